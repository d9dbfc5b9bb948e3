#!/usr/bin/env bash
# h200_3xf16.sh — on the GPU host: 3xF16 (fp32 inputs scaled by a power of two per row, split into f16 high parts
# and remainders, three f16 wgmma products) against 3xTF32, exact fp32 and cuBLAS SGEMM (torch, TF32 off) in the
# same script: the accuracy tests on the H200 first, then TFLOP/s. Appends to $out/3xf16.txt.
. scripts/gpu/common.sh
gpu_session 3xf16
export CLFORGE_GEMM_SPLIT_RULE=${CLFORGE_GEMM_SPLIT_RULE:-off}   # each mode as asked, on every shape
# TESTS: test_gemm_mixed cases run as the planner picks; WGMMA_OFF: cases run again with CLFORGE_WGMMA=off (3xTF32
# on mma.sync, the split inside the kernel)
mixed_case() {   # mixed_case CASE auto|off
  ( [ $2 = off ] && export CLFORGE_WGMMA=off
    CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=$1 timeout 300 tests/test_gemm_mixed > $r/t-$1-$2.log 2>&1 )
  say "$1 wgmma=$2 rc=$? $(grep -E 'Checks|rms error|cases on|compute [0-9] on' $r/t-$1-$2.log | head -3 | tr '\n' ' ')"
}
for t in ${TESTS:-three_f16_scales_rows three_tf32_elementwise three_tf32_is_fp32_accurate pack_kernel random_mixed_cases \
                  split_k_cases failed_selftest_falls_back failed_wgmma_selftest_falls_back}; do mixed_case $t auto; done
for t in ${WGMMA_OFF-three_tf32_elementwise three_tf32_is_fp32_accurate}; do mixed_case $t off; done
TESTS_ONLY=${TESTS_ONLY:-0}; [ "$TESTS_ONLY" = 1 ] && exit 0
SH=${SHAPES:-"4096x4096x4096 8192x8192x8192 6000x5000x3000 3001x2999x1537 1024x1024x8192 2000x3000x1000"}
sh=""; for s in $SH; do sh="$sh --shape $s"; done
for round in ${ROUNDS:-1 2}; do
  say "-- clforge round $round"
  timeout 300 bench/bench_gemm_mixed --device gpu --bt --modes ${MODES:-3xtf32,3xf16,f32} --reps 5 $sh --json $r/mixed-$round.json 2>&1 \
    | grep -E "GFLOP|rror|warn" | tee -a "$log"
done
timeout 200 python3 ../bench/torch_gemm.py --dtype f32 --bt $sh --json $r/cublas-f32.json 2>&1 | grep cuBLAS | tee -a "$log"
date -u | tee -a "$log"
