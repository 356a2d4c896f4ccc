#!/usr/bin/env bash
# Differential test: random compute, fragment and vertex shaders (fuzz/random_programs.py),
# compiled by glslang with and without spirv-opt -O, each run as SPIR-V on Vulkan and as our WGSL
# through wgpu on the same device, outputs compared: the execution tests (tests/execution) on
# generated programs.
#
#   fuzz/differential.sh [COUNT] [FIRST_SEED]     (default: 50 programs of each stage from seed 0)
#   OPT="-Os" fuzz/differential.sh ...            (other spirv-opt passes for the .opt variant)
#
# Needs glslangValidator, spirv-opt and a Vulkan device (lavapipe will do). The programs go to
# fixtures/exec/{compute,render}/random/ (ignored by git), which are removed when every test
# passes and kept for a look when one fails.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
count="${1:-50}"
first="${2:-0}"
compute="$root/fixtures/exec/compute/random"
render="$root/fixtures/exec/render/random"

rm -rf "$compute" "$render"
mkdir -p "$compute" "$render/vertex"
python3 "$here/random_programs.py" "$first" "$count" "$compute" compute
python3 "$here/random_programs.py" "$first" "$count" "$render" fragment
python3 "$here/random_programs.py" "$first" "$count" "$render/vertex" vertex
for source in "$compute"/*.comp "$render"/*.vert "$render"/*.frag "$render"/vertex/*.vert "$render"/vertex/*.frag; do
    glslangValidator -V --target-env vulkan1.1 "$source" -o "$source.spv" >/dev/null
    # shellcheck disable=SC2086 # OPT holds several flags
    spirv-opt ${OPT:--O} --target-env=vulkan1.1 "$source.spv" -o "$source.opt.spv"
done

cd "$root"
# Validation builds naga's IR from our syntax tree (src/wgsl/naga_ir.rs): it must equal naga's
# reading of our text on these programs too.
cargo test --locked --test naga_ir -- every_fixture --quiet
if NODEVICE_SELECT=1 CI=true cargo test --locked --test execution -- random/ --quiet; then
    rm -rf "$compute" "$render"
else
    echo "differential: failing programs kept in $compute and $render" >&2
    exit 1
fi
