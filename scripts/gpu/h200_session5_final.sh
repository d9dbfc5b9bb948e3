#!/usr/bin/env bash
# h200_session5_final.sh — on the GPU host, from the repository root: the test suite on the H200 alone (CI runs
# it on PoCL and rusticl; package, test_json_schema and test_docs_commands need a network or jsonschema, which
# this host lacks), then the one-call softmax and layer norm under single compiler options, to see which part
# of -cl-fast-relaxed-math (3064 -> 3915 GB/s) matters, and the row kernels' PTX from the program cache for
# reading offline, and the thin products' (results.tgz: reduce-cache/, gemv-cache/).
. scripts/gpu/common.sh
gpu_session final
date -u | tee -a "$log"
CLFORGE_TEST_DEVICES=$(./clforge devices 2>/dev/null | awk '/^ +[0-9]+:[0-9]+ .*(NVIDIA|H200)/ {print $1; exit}') \
  timeout 240 ctest -j6 -E "package|test_json_schema|test_docs_commands" --output-on-failure > $r/ctest.log 2>&1
grep -E "tests passed|Failed|FAIL|Assertion" $r/ctest.log | head -20 | tee -a "$log"
export CLFORGE_CACHE_DIR=/tmp/reduce-cache
for opt in "" "-cl-denorms-are-zero" "-cl-unsafe-math-optimizations" "-cl-finite-math-only"; do
  say "== bench_reduce ${opt:-default}"
  CLFORGE_BUILD_OPTIONS="$opt" timeout 60 bench/bench_reduce --device gpu 2>&1 | grep -E "1 call" | tee -a "$log"
done
cp -r /tmp/reduce-cache $r/reduce-cache
export CLFORGE_CACHE_DIR=/tmp/gemv-cache   # the thin products' programs (PTX), for reading offline
thin="--shape 8x4096x4096 --shape 16x4096x4096 --shape 4096x8x4096 --shape 4096x16x4096"
gemv_bench "bench_gemv shipped"
cp -r /tmp/gemv-cache $r/gemv-cache
date -u | tee -a "$log"
