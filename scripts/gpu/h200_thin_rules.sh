#!/usr/bin/env bash
# h200_thin_rules.sh — on the GPU host: thin products of 8 to 16 vectors on the gemv kernels per rows-per-thread
# and team setting (CLFORGE_GEMV_CONFIG on top of the shipped entries), and on the tiled GEMM path (THIN=7
# sends products of 8 or more vectors there), against cuBLAS in the same script.
. scripts/gpu/common.sh
gpu_session thinrules
thin="--shape 4096x16x4096 --shape 4096x12x4096 --shape 3000x11x6000 --shape 8192x16x2048 --shape 4096x8x4096 --shape 16x4096x4096 --shape 12x8192x2048 --shape 8x4096x4096"
gemv_bench "shipped"
for cfg in "THIN=7" "RPT=4" "RPT=8" "RPT=4 TEAM=16" "RPT=4 TEAM=4" "RPT=8 TEAM=4" "RPT=4 XL=1024" "RPT=4 WG=128"; do
  CLFORGE_GEMV_CONFIG="$cfg" gemv_bench "CLFORGE_GEMV_CONFIG=\"$cfg\""
done
gemv_bench "shipped, A·Bᵀ" --trans-b
CLFORGE_GEMV_CONFIG="THIN=7" gemv_bench "THIN=7, A·Bᵀ" --trans-b
say "== cuBLAS"
timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $thin --json $r/cublas.json 2>&1 | grep cuBLAS | tee -a "$log"
