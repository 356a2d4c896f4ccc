#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 30), seeded from the fixtures. Stable Rust is
# enough: cargo-fuzz's nightly flags are unlocked with RUSTC_BOOTSTRAP, and no sanitizer is used
# (Rust code is memory-safe; what we look for are panics, stack overflows, hangs and blow-ups).
#
#   fuzz/run.sh [SECONDS] [TARGET...]
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). A crash leaves its input in fuzz/artifacts/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
seconds="${1:-30}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(translate_bytes mutate_modules assemble_text reverse_wgsl)

mkdir -p corpus/translate_bytes corpus/assemble_text corpus/reverse_wgsl corpus/mutate_modules
cp -n ../fixtures/glsl/*.spv ../fixtures/hlsl/*.spv corpus/translate_bytes/ 2>/dev/null || true
cp -n ../fixtures/spvasm/*.spvasm ../fixtures/invalid/*.spvasm corpus/assemble_text/ 2>/dev/null || true
cp -n ../fixtures/wgsl/*.wgsl corpus/reverse_wgsl/ 2>/dev/null || true

export RUSTC_BOOTSTRAP=1
for target in "${targets[@]}"; do
    echo "== $target: ${seconds}s"
    log="$(mktemp)"
    status=0
    cargo fuzz run "$target" --sanitizer none --release -- \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    grep -E "^stat::(number_of_executed_units|peak_rss_mb)|panicked|ERROR|Test unit written|overflow" "$log" || true
    rm -f "$log"
    if [[ $status -ne 0 ]]; then
        echo "fuzz target $target failed: its input is in fuzz/artifacts/$target/" >&2
        exit 1
    fi
done
