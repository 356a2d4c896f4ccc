#!/usr/bin/env bash
# Differential test of the reverse path: random WGSL compute programs (fuzz/random_wgsl.py), each
# run on one Vulkan device as WGSL through wgpu, as our SPIR-V for it through Vulkan, and as our
# forward path's WGSL for that SPIR-V through wgpu; the outputs must agree (the execution tests,
# tests/execution, on generated programs).
#
#   fuzz/differential_wgsl.sh [COUNT] [FIRST_SEED]     (default: 40 programs from seed 0)
#
# Needs a Vulkan device (lavapipe will do). The programs go to
# fixtures/exec/compute/random_wgsl/ (ignored by git), which is removed when every test passes
# and kept for a look when one fails.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
count="${1:-40}"
first="${2:-0}"
programs="$root/fixtures/exec/compute/random_wgsl"

rm -rf "$programs"
mkdir -p "$programs"
python3 "$here/random_wgsl.py" "$first" "$count" "$programs"

cd "$root"
if NODEVICE_SELECT=1 CI=true cargo test --locked --test execution -- random_wgsl/ --quiet; then
    rm -rf "$programs"
else
    echo "differential: failing programs kept in $programs" >&2
    exit 1
fi
