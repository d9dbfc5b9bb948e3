#!/usr/bin/env bash
# h200_split_rule.sh — on the GPU host: the fp32-accurate modes against exact fp32 over the classes of shape where
# the split's packing pass weighs (small cubes, few rows or columns, short K, batches), B stored K x N and N x K, to
# draw the planner's rule for choosing among them (gemm_plan.c split_choice). Appends to $out/split-rule.txt.
. scripts/gpu/common.sh
gpu_session split-rule
export CLFORGE_GEMM_SPLIT_RULE=${CLFORGE_GEMM_SPLIT_RULE:-off}   # each mode as asked, on every shape
SH=${SHAPES:-"128x128x128 256x256x256 384x384x384 512x512x512 768x768x768 1024x1024x1024 1280x1280x1280
  32x4096x4096 64x4096x4096 128x4096x4096 192x4096x4096 256x4096x4096 384x4096x4096 4096x64x4096 4096x128x4096
  4096x256x4096 4096x4096x64 4096x4096x128 4096x4096x256 4096x4096x512 2048x2048x128 2048x2048x256 1024x4096x1024
  2048x1024x512 8192x8192x256"}
sh=""; for s in $SH; do sh="$sh --shape $s"; done
for lay in "" --bt; do
  say "-- single ${lay:-NN}"
  timeout 280 bench/bench_gemm_mixed --device gpu $lay --modes f32,3xtf32,3xf16 --reps 5 $sh --json $r/single${lay}.json 2>&1 \
    | grep -E "GFLOP|rror|warn" | tee -a "$log"
done
for b in "64 256x256x256" "512 128x128x64" "16 512x512x512" "8 1024x1024x1024"; do
  say "-- batch ${b% *}"
  timeout 120 bench/bench_gemm_mixed --device gpu --batch ${b% *} --shape ${b#* } --modes f32,3xtf32,3xf16 --reps 5 \
    --json $r/batch-${b% *}.json 2>&1 | grep -E "GFLOP|rror|warn" | tee -a "$log"
done
date -u | tee -a "$log"
