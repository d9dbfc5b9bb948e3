#!/usr/bin/env bash
# h200_gemm_check.sh — on the GPU host: the GEMM suites on the H200, then the transposed shapes.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache-check
( CLFORGE_TEST_DEVICES=0:0 CLFORGE_GEMM_TEST_CASES=1000 timeout 150 ctest -R 'gemm' -j4 --output-on-failure ) > $r/ctest-gemm.log 2>&1
grep -E "tests passed|Passed|Failed|cases on" $r/ctest-gemm.log | tail -8
cd .. && bash scripts/gpu/h200_turned.sh 2>&1 | head -4
