#!/usr/bin/env bash
# h200_3xf16.sh — on the GPU host: 3xF16 (fp32 inputs scaled by a power of two per row, split into f16 high parts
# and remainders, three f16 wgmma products) against 3xTF32, exact fp32 and cuBLAS SGEMM (torch, TF32 off) in the
# same script: the accuracy tests on the H200 first, then TFLOP/s. Appends to $out/3xf16.txt.
. scripts/gpu/common.sh
gpu_session 3xf16
for t in three_f16_scales_rows three_tf32_is_fp32_accurate random_mixed_cases split_k_cases failed_selftest_falls_back \
         failed_wgmma_selftest_falls_back; do
  ( CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=$t timeout 300 tests/test_gemm_mixed > $r/t-$t.log 2>&1 )
  say "$t rc=$? $(grep -E 'Checks|rms error|cases on|3xF16 on' $r/t-$t.log | head -3 | tr '\n' ' ')"
done
SH=${SHAPES:-"4096x4096x4096 8192x8192x8192 6000x5000x3000 3001x2999x1537 1024x1024x8192 2000x3000x1000"}
sh=""; for s in $SH; do sh="$sh --shape $s"; done
for round in 1 2; do
  say "-- clforge round $round"
  timeout 300 bench/bench_gemm_mixed --device gpu --bt --modes 3xtf32,3xf16,f32 --reps 5 $sh --json $r/mixed-$round.json 2>&1 \
    | grep -E "GFLOP|rror|warn" | tee -a "$log"
done
timeout 200 python3 ../bench/torch_gemm.py --dtype f32 --bt $sh --json $r/cublas-f32.json 2>&1 | grep cuBLAS | tee -a "$log"
date -u | tee -a "$log"
