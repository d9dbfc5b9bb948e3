#!/usr/bin/env bash
# quickstart.sh — the main job on a fresh Debian 12 machine: installs dependencies, builds clforge, lists
# the devices, tunes the default device briefly, benchmarks it against CLBlast and writes a report.
# The default device is the first GPU, else PoCL on the CPU; CLFORGE_DEVICE picks another.
# Environment: CLFORGE_TUNE_BUDGET (seconds per family, default 20), OUT (default ./clforge-results).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
# shellcheck disable=SC2086
clf_install_deps $CLF_RUNTIME_PKGS

cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DCLFORGE_TESTS=OFF >/dev/null
cmake --build build-release -j"$(nproc)" >/dev/null
cli=build-release/clforge
out=${OUT:-$PWD/clforge-results}
mkdir -p "$out"

echo "== Devices"
"$cli" devices
echo "== Tuning the default device (${CLFORGE_TUNE_BUDGET:-20} s per family)"
"$cli" tune --budget "${CLFORGE_TUNE_BUDGET:-20}" --json "$out/tune.json"
echo "== Benchmark against CLBlast"
"$cli" bench --quick --json "$out/bench.json"
echo "== Report"
"$cli" report "$out/bench.json" -o "$out/report"
echo "Report: $out/report/README.md (charts: $out/report/*.svg)"
