#!/usr/bin/env bash
# h200_tile_rates.sh — on the GPU host: how fast each fp32 tile configuration runs as a function of the tiles a
#   compute unit holds. For each configuration (forced through CLFORGE_GEMM_CONFIG): the waves probe (bench_gemm
#   --waves: 1..8 rows of tiles per unit, K = 512 and 2048), then products of exactly c x (compute units) tiles,
#   c = 1..6, at K = $K (default 2048), unsplit (CLFORGE_GEMM_SPLIT_K=1, CLFORGE_GEMM_WG_PER_CU=off).
. scripts/gpu/common.sh
gpu_session tile-rates
K=${K:-2048}
for c in ${CONFIGS:-large medium skinny m8 m8t}; do   # names of F32_CFG (common.sh)
  cfg=${F32_CFG[$c]}
  say "== $c: $cfg"
  CLFORGE_GEMM_CONFIG="$cfg" timeout 120 bench/bench_gemm --device gpu --waves medium 2>&1 | grep -E "wg_per_cu|tile_ns|rror" | tee -a "$log"
  bm=$(echo "$cfg" | sed 's/.*MWG=\([0-9]*\).*/\1/'); bn=$(echo "$cfg" | sed 's/.*NWG=\([0-9]*\).*/\1/')
  sh=""; for t in 1 2 3 4 5 6; do sh="$sh --shape $((bm * 12))x$((bn * 11 * t))x$K"; done
  CLFORGE_GEMM_SPLIT_K=1 CLFORGE_GEMM_WG_PER_CU=off CLFORGE_GEMM_CONFIG="$cfg" f32_bench "$c" $sh --json $r/rates-$c.json
done
date -u | tee -a "$log"
