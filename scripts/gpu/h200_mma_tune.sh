#!/usr/bin/env bash
# h200_mma_tune.sh — on the GPU host: the gemm_mma family's f16 configurations tuned by `clforge tune` with
# wgmma in the search space (TUNE_BUDGET seconds, default 150), f16 GEMM at 4096^3 and 8192^3 (B stored
# N x K) with the shipped configuration before and the tuned one after, alternating; cuBLAS in the same run.
# Appends to $out/mma-tune.txt.
. scripts/gpu/common.sh
gpu_session mma-tune
here=$PWD/..
B=bench/bench_gemm_mixed
f16() { timeout 90 $B --device gpu --modes f16 --bt --reps 7 --shape 4096x4096x4096 --shape 8192x8192x8192 2>&1 | grep -E "GFLOP|rror"; }
say "== $(date -u) cuBLAS f16"
timeout 90 python3 $here/bench/torch_gemm.py --dtype f16 --bt --shape 4096x4096x4096 --shape 8192x8192x8192 2>&1 | grep cuBLAS | tee -a "$log"
say "== shipped"
f16 | tee -a "$log"
say "== $(date -u) clforge tune --family gemm_mma --precision f16"
timeout $(( ${TUNE_BUDGET:-150} + 90 )) ./clforge tune --device gpu --family gemm_mma --precision f16 --bucket all \
  --budget ${TUNE_BUDGET:-150} --json $r/tune-mma-f16.json 2>&1 | tail -5 | tee -a "$log"
for round in 1 2; do
  say "== round $round: tuned"
  f16 | tee -a "$log"
  say "== round $round: shipped (CLFORGE_CACHE_DIR without the tuning)"
  CLFORGE_CACHE_DIR=/tmp/clf-cache-shipped f16 | tee -a "$log"
done
