#!/usr/bin/env bash
# h200_dmma.sh — on the GPU host: the GEMM suites on the H200 (fp64 products run on DMMA), then clf_dgemm
# timed before and after tuning gemm_mma's f64 configurations, cuBLAS DGEMM in the same run.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache-dmma
( CLFORGE_TEST_DEVICES=0:0 CLFORGE_GEMM_TEST_CASES=1000 timeout 300 ctest -R 'gemm' -j4 --output-on-failure ) > $r/ctest-gemm.log 2>&1
grep -E "tests passed|Passed|Failed|\*\*\*|cases on|mixed gemm|gemm failed" $r/ctest-gemm.log | head -20
shapes="--shape 4096x4096x4096 --shape 8192x8192x8192"
timeout 100 bench/bench_gemm_mixed --device gpu --bt --modes f64 $shapes 2>&1 | tail -3
timeout 150 ./clforge tune --device gpu --family gemm_mma --precision f64 --budget ${TUNE_BUDGET:-90} --json $r/tune-dmma-h200.json 2>&1 | grep -E "^gemm_mma|speed" | tail -3
timeout 100 bench/bench_gemm_mixed --device gpu --bt --modes f64 $shapes --json $r/dmma-h200.json 2>&1 | tail -3
timeout 100 bench/bench_gemm_mixed --device gpu --modes f64 $shapes 2>&1 | tail -3
