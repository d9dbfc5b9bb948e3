#!/usr/bin/env bash
# h200_kmajor_tune.sh — on the GPU host: the gemm_mma f16 "kmajor" bucket's problem (64 x 8192 x 4096, B stored K x N)
# timed with the shipped configuration (bench_gemm_mixed, the configuration forced as the tuner passes it: no split),
# then a short `clforge tune` of the bucket (BUDGET seconds, every evaluation traced).
. scripts/gpu/common.sh
gpu_session kmajor-tune
CFG="BM=64 BN=64 BK=64 WM=32 WN=32 LDSM=1 STAGES=3 FPIPE=1 ASYNC=1 SWZ=1 DK=4 WGMMA=0"
say "== $(date -u) shipped kmajor configuration on the bucket's problem (C fp32, as the tuner)"
CLFORGE_GEMM_MMA_CONFIG="$CFG" timeout 100 bench/bench_gemm_mixed --device gpu --modes f16 --reps 20 --shape 64x8192x4096 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
say "== clforge tune --family gemm_mma --precision f16 --bucket kmajor --budget ${BUDGET:-40}"
CLFORGE_TUNE_TRACE=$r/trace.txt timeout 200 ./clforge tune --device gpu --family gemm_mma --precision f16 --bucket kmajor \
  --budget ${BUDGET:-40} --json $out/tune-kmajor.json 2>&1 | tail -15 | tee -a "$log"
grep -c . $r/trace.txt | sed 's/^/evaluations traced: /' | tee -a "$log"
