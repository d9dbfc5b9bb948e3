#!/usr/bin/env bash
# h200_mma_tune.sh — on the GPU host: the mixed-precision suite on the H200, the gemm_mma family tuned
# (f16 and f32 precisions, buckets all and 3x), then the compute modes timed against cuBLAS (PyTorch).
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache
date -u
( CLFORGE_TEST_DEVICES=0:0 timeout 200 tests/test_gemm_mixed ) > $r/test-mixed.log 2>&1
grep -E "gemm_mixed|Checks|mixed gemm|:F:|:E:" $r/test-mixed.log | head -12
shapes=${MMA_SHAPES:---shape 4096x4096x4096 --shape 8192x8192x8192}
timeout 120 bench/bench_gemm_mixed --device gpu --bt --modes f16,tf32,3xtf32 $shapes 2>&1 | tail -8
timeout ${TUNE_TIMEOUT:-300} ./clforge tune --device gpu --family gemm_mma --precision ${TUNE_PRECISION:-f16,f32} --budget ${TUNE_BUDGET:-150} \
  --json $r/tune-mma-h200.json 2>&1 | grep -vE "^\s*\[" | tail -12
timeout 200 bench/bench_gemm_mixed --device gpu --bt $shapes --json $r/mixed-h200.json 2>&1 | tail -14
date -u
