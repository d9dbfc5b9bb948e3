#!/usr/bin/env bash
# h200_mma_variants.sh — on the GPU host: times forced gemm_mma configurations (CLFORGE_GEMM_MMA_CONFIG) in the
# f16 and tf32 modes; a configuration whose self-test fails shows as the portable path's speed.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache-variants
for cfg in "$@"; do
  echo "== $cfg"
  CLFORGE_GEMM_MMA_CONFIG="$cfg" timeout 60 bench/bench_gemm_mixed --device gpu --bt --modes ${MODES:-f16,tf32} \
    --shape 8192x8192x8192 --reps 5 2>&1 | grep -E "GFLOP|warning|error" | head -4
done
