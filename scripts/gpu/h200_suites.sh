#!/usr/bin/env bash
# h200_suites.sh — on the GPU host: every test suite on the H200 (device 0:0), a short log brought back.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache-suites
( CLFORGE_TEST_DEVICES=0:0 CLFORGE_GEMM_TEST_CASES=1000 timeout 280 ctest -j8 --output-on-failure ) > $r/ctest-h200.log 2>&1
grep -E "tests passed|Passed|Failed|Timeout|cases on" $r/ctest-h200.log | tail -24
