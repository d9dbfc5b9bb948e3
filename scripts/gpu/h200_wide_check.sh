#!/usr/bin/env bash
# h200_wide_check.sh — on the GPU host: the shipped wide_rows/wide_cols entries on products of 8 to 16 vectors
# in every orientation and fp64, then the whole test suite on the H200 (first device), -j4.
. scripts/gpu/common.sh
gpu_session widecheck
thin="--shape 4096x16x4096 --shape 4096x12x4096 --shape 3000x11x6000 --shape 8192x16x2048 --shape 4096x8x4096 --shape 16x4096x4096 --shape 12x8192x2048 --shape 8x4096x4096 --shape 2048x10x8192 --shape 14x6000x3000"
for o in "" "--trans-b" "--trans"; do
  gemv_bench "shipped $o" $o
done
gemv_bench "shipped --f64" --f64
say "== suite"
( CLFORGE_TEST_DEVICES=0:0 timeout 400 ctest -j4 -E "package|test_json_schema|test_docs_commands" --output-on-failure ) > $r/ctest.log 2>&1
grep -E "tests passed|Failed|\*\*\*|Timeout" $r/ctest.log | tail -12 | tee -a "$log"
date -u | tee -a "$log"
