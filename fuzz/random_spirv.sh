#!/usr/bin/env bash
# Differential test of control flow: random SPIR-V compute modules written at the SPIR-V level
# (fuzz/random_spirv.py: every structured shape the SPIR-V rules allow, valid by construction,
# with operations on integers of mixed signedness, on composites and on floats between),
# each checked with spirv-val, also rewritten by spirv-opt passes, and run as SPIR-V on Vulkan and
# as our WGSL through wgpu on the same device, with the results compared to each other and to
# the generator's CPU model: the execution tests (tests/execution) on generated modules.
#
#   fuzz/random_spirv.sh [COUNT] [FIRST_SEED]          (default: 100 modules from seed 0)
#   VARIANTS="plain O" fuzz/random_spirv.sh ...        (which of the variants below to run)
#
# Variants: plain (as generated), O (spirv-opt -O), merge-return (--merge-return: one return per
# function, early ones turned into breaks out of a loop spirv-opt adds; it needs the unreachable
# blocks gone first: --eliminate-dead-branches), dead-branches (--eliminate-dead-branches
# --merge-blocks), inline (the same, then the helpers inlined into the entry point), loops (the
# same, then --loop-peeling: a loop's first or last iterations copied out in front of it or after
# it), legalize (--legalize-hlsl, the passes DXC runs on every shader). Not a variant: spirv-opt's
# --loop-invariant-code-motion (2023.1) moves loads of a variable out of loops that store to it
# (seed 22414), which changes what the module computes; it found one bug of ours (seed 22371,
# fixtures/exec/compute/insert_chain_base_before_loop.spvasm).
#
# Where the device is no reference (it cannot build the pipeline, crashes, or computes something
# other than the generator's CPU model), the WGSL is checked against the CPU model alone and the
# test is reported as ignored with the reason; the last line counts these by reason. A driver crash
# (lavapipe 22.3 takes SIGSEGV on seed 4510's merge-return variant) costs that one module: the
# SPIR-V runs in a worker process (tests/execution/worker.rs), and the crash is named per signal.
#
# Needs spirv-as, spirv-val, spirv-opt and a Vulkan device (lavapipe will do). The modules go to
# fixtures/exec/compute/random_spirv/VARIANT/ (ignored by git), which is removed when every test
# passes and kept for a look when one fails.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
count="${1:-100}"
first="${2:-0}"
dir="$root/fixtures/exec/compute/random_spirv"
variants="${VARIANTS:-plain O merge-return dead-branches inline loops legalize}"

# The spirv-opt flags of a variant.
passes() {
    case "$1" in
        plain) ;;
        O) echo "-O" ;;
        merge-return) echo "--eliminate-dead-branches --merge-return" ;;
        dead-branches) echo "--eliminate-dead-branches --merge-blocks" ;;
        inline) echo "--eliminate-dead-branches --merge-return --inline-entry-points-exhaustive --eliminate-dead-functions" ;;
        loops) echo "--eliminate-dead-branches --merge-return --loop-peeling" ;;
        legalize) echo "--legalize-hlsl" ;;
        *) echo "random_spirv.sh: unknown variant '$1'" >&2; exit 2 ;;
    esac
}

# The spirv-val environment for a module's "; Version: 1.N" line (as fixtures/regen.sh).
environment() {
    case "$(sed -n 's/^; Version: //p' "$1")" in
        1.3) echo vulkan1.1 ;;
        1.4) echo vulkan1.1spv1.4 ;;
        1.5) echo vulkan1.2 ;;
        1.6) echo vulkan1.3 ;;
        *) echo "random_spirv.sh: $1 has no known version" >&2; exit 1 ;;
    esac
}

rm -rf "$dir"
mkdir -p "$dir/source"
python3 "$here/random_spirv.py" "$first" "$count" "$dir/source"
for source in "$dir"/source/*.spvasm; do
    name="$(basename "$source")"
    env="$(environment "$source")"
    spirv-as --target-env "spv$(sed -n 's/^; Version: //p' "$source")" "$source" -o "$source.spv"
    # A buffer with a scalar block layout needs the device feature, which the execution test
    # enables (lavapipe has it); the validator and the optimizer are told.
    layout=()
    if grep -qx '; Scalar block layout' "$source"; then
        layout=(--scalar-block-layout)
    fi
    if ! spirv-val "${layout[@]}" --target-env "$env" "$source.spv"; then
        echo "random_spirv: the generator wrote an invalid module: $source" >&2
        exit 1
    fi
    for variant in $variants; do
        mkdir -p "$dir/$variant"
        cp "$source" "$dir/$variant/$name"
        flags="$(passes "$variant")"
        if [[ -z "$flags" ]]; then
            cp "$source.spv" "$dir/$variant/$name.spv"
            continue
        fi
        # shellcheck disable=SC2086 # several flags
        # spirv-opt (2023.1) sometimes breaks a valid module (e.g. -O leaves a continue construct
        # its back-edge block does not post-dominate), now and then crashes (-O on seed 246) or
        # never ends (-O on seed 760): its bugs, not cases for us. One it leaves valid: -O's
        # if-conversion turns a merge's phi into a select on the branch condition even where a
        # join both arms reach comes before the merge (seed 8671; the shape by hand, run:
        # fixtures/spvasm/cf_if_arm_exit_to_merge_past_a_join.spvasm), so an O variant failing
        # where the plain one passes may be spirv-opt's: run `spirv-opt -O --print-all` step by
        # step to see which pass changed the result.
        if ! timeout 20 spirv-opt $flags "${layout[@]}" --target-env="$env" "$source.spv" -o "$dir/$variant/$name.spv" 2>/dev/null \
            || ! spirv-val "${layout[@]}" --target-env "$env" "$dir/$variant/$name.spv" 2>/dev/null; then
            echo "random_spirv: spirv-opt $flags failed on $name or made it invalid; skipped" >&2
            rm -f "$dir/$variant/$name" "$dir/$variant/$name.spv"
        fi
    done
done
rm -rf "$dir/source"

cd "$root"
# The test log stays after a clean run too, for a look at what was ignored and why.
log="$root/target/random_spirv.log"
mkdir -p "$root/target"
status=0
# Validation builds naga's IR from our syntax tree (src/wgsl/naga_ir.rs): it must equal naga's
# reading of our text on these programs too.
cargo test --locked --test naga_ir -- every_fixture --quiet
NODEVICE_SELECT=1 CI=true cargo test --locked --test execution -- random_spirv/ >"$log" 2>&1 || status=$?
grep -E '^test result|FAILED|panicked' "$log" || true
# Where the device could not serve as the reference, the WGSL was checked against the CPU model
# alone (reported as ignored): say how often and why.
count() { grep -c "ignored ($1" "$log" || true; }
device="the WGSL run matches the CPU model, but the device is no reference: the SPIR-V run"
# The crashes by signal, e.g. " (1 SIGSEGV)".
signals="$(grep "ignored ($device crashed" "$log" | grep -o 'SIG[A-Z]*' | sort | uniq -c \
    | awk '{ list = list sep $1 " " $2; sep = ", " } END { if (list != "") print " (" list ")" }' || true)"
echo "random_spirv: checked against the CPU model only: $(count "$device failed") where the device" \
    "cannot build the pipeline, $(count "$device crashed") where it crashes$signals," \
    "$(count "$device differs") where it computes another result," \
    "$(count 'the device computes the same') where it computes the same other result for the" \
    "SPIR-V and the WGSL"
if [[ $status -eq 0 ]]; then
    rm -rf "$dir"
else
    echo "random_spirv: failing modules kept in $dir (log: $log)" >&2
    exit 1
fi
