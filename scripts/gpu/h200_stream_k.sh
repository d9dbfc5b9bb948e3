#!/usr/bin/env bash
# h200_stream_k.sh — on the GPU host: stream-K (CLFORGE_GEMM_STREAM_K=1) against the shipped plan on odd and
# aligned fp32 shapes, with the large (128 x 128) and medium (64 x 128) configurations of
# sweep-stream-k.txt; cuBLAS in the same run; then the GEMM suites on the H200 (SKIP_CTEST=1 skips them).
# Appends to $out/stream-k.txt.
. scripts/gpu/common.sh
gpu_session stream-k
here=$PWD/..
shapes=${SHAPES:-"777x1555x999 1500x700x900 900x1300x1100 1700x600x800 500x2900x1000 2200x900x1300 700x2000x1500 1900x1100x900 1000x1000x1000 1234x2345x777 2000x3000x1000 3000x3000x600 2500x1800x1500 3072x3072x3072 4096x4096x4096 4097x4097x4097"}
sargs=""; for s in $shapes; do sargs="$sargs --shape $s"; done
say "== $(date -u) cuBLAS"
timeout 150 python3 $here/bench/torch_gemm.py --dtype f32 $sargs --json $r/cublas.json 2>&1 | grep cuBLAS | tee -a "$log"
say "== shipped plan"
timeout 200 bench/bench_gemm --device gpu --no-clblast --reps 7 $sargs --json $r/shipped.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
say "== stream-K, forced configurations"
CLFORGE_GEMM_STREAM_K=1 timeout 250 bench/bench_gemm --device gpu --no-clblast --reps 7 $sargs \
  --sweep $here/scripts/gpu/sweep-stream-k.txt --json $r/stream-k.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
if [ -z "${SKIP_CTEST:-}" ]; then
  say "== $(date -u) GEMM suites on the H200"
  ( CLFORGE_TEST_DEVICES=0:0 timeout 300 ctest -j4 --output-on-failure -R "test_gemm$|test_gemm_epilogue|test_gemm_plan" ) > $out/ctest.log 2>&1
  grep -E "tests passed|Failed|\*\*\*|Timeout|random cases|failed" $out/ctest.log | tail -12 | tee -a "$log"
fi
