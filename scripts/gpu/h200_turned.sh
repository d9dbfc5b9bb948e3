#!/usr/bin/env bash
# h200_turned.sh — on the GPU host: transposed SGEMM shapes (B stored N x K, which GPUs now pack K-major
# rather than read in place) and the NN reference, two rounds.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache-turned
for round in 1 2; do
  for sh in "--bt --shape 4096x4096x4096" "--at --bt --shape 2000x3000x1000" "--bt --shape 2048x2048x2048" "--shape 4096x4096x4096"; do
    timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 --reps 5 $sh 2>&1 | grep GFLOP
  done
done
