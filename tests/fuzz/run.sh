#!/usr/bin/env bash
# run.sh — builds the expression-parser fuzzer with clang (ASan + UBSan + libFuzzer) in its own build
# directory and runs it from the seed corpus for a bounded time.
# Usage: tests/fuzz/run.sh [seconds]   (default 60; env: CLFORGE_FUZZ_BUILD, CC)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-60}"
build="${CLFORGE_FUZZ_BUILD:-$root/build-fuzz}"
cc="${CC:-}"
if [[ -z "$cc" || "$cc" != *clang* ]]; then
  cc="$(command -v clang || command -v clang-14 || true)"
fi
[[ -n "$cc" ]] || { echo "run.sh: clang not found" >&2; exit 2; }
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Debug -DCLFORGE_FUZZ=ON \
      -DCLFORGE_TESTS=OFF -DCLFORGE_BENCH=OFF > "$build.log" 2>&1 || { cat "$build.log"; exit 1; }
cmake --build "$build" --target fuzz_expr -j2 >> "$build.log" 2>&1 || { cat "$build.log"; exit 1; }
# New inputs go to a scratch corpus so the checked-in seeds stay small; crashes land in $build.
work="$build/corpus"
mkdir -p "$work"
cd "$build"
"$build/tests/fuzz/fuzz_expr" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "$work" "$here/corpus"
