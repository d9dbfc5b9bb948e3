#!/usr/bin/env bash
# h200_check.sh — on the GPU host, from the repository root: every test suite on the H200, then a few
# GEMM shapes against CLBlast, to check a change for regressions on the GPU.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache
date -u
( CLFORGE_TEST_DEVICES=0:0 CLFORGE_GEMM_TEST_CASES=1000 timeout 150 ctest -j8 --output-on-failure ) > $r/ctest-h200.log 2>&1
grep -E "tests passed|Passed|Failed|Timeout" $r/ctest-h200.log | tail -12
timeout 60 bench/bench_gemm --device nvidia --shape 1024x1024x1024 --shape 4096x4096x4096 --shape 4097x4097x4097 \
  --shape 1000x3000x700 --shape 64x4096x4096 --json $r/check-h200.json 2>&1 | grep -E "^ *[0-9]+x" | cut -c1-100
date -u
