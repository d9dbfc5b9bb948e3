#!/usr/bin/env bash
# h200_thin_probe.sh — on the GPU host, from the repository root: thin products (m or n of 8 and 16 against
# 4096 x 4096) in the four orientations on the gemv kernels with their shipped configuration and a sweep of
# CLFORGE_GEMV_CONFIG, the same shapes on the tiled GEMM path (THIN=1), and cuBLAS through PyTorch.
# EXTRA: more CLFORGE_GEMV_CONFIG values to try, separated by ';'. ORIENT: the orientations of the sweep
# (default: NN, NT, TN). NOREF=1 skips the GEMM path and cuBLAS.
. scripts/gpu/common.sh
gpu_session thin-probe
date -u | tee -a "$log"
thin="--shape 8x4096x4096 --shape 16x4096x4096 --shape 4096x8x4096 --shape 4096x16x4096 --shape 3000x11x6000"
for o in "" "--trans-b" "--trans" "--trans --trans-b"; do
  gemv_bench "default $o" $o
done
IFS=';' read -ra orients <<< "${ORIENT:-;--trans-b;--trans}"
IFS=';' read -ra cfgs <<< "${EXTRA:-}"
for cfg in "${cfgs[@]}"; do
  for o in "${orients[@]}"; do
    CLFORGE_GEMV_CONFIG="$cfg" gemv_bench "CLFORGE_GEMV_CONFIG=\"$cfg\" $o" $o
  done
done
[ "${NOREF:-0}" = 1 ] && { date -u | tee -a "$log"; exit 0; }
for o in "" "--trans-b"; do
  CLFORGE_GEMV_CONFIG="THIN=1" gemv_bench "GEMM path (THIN=1) $o" $o
done
say "== cuBLAS"
python3 ../bench/torch_gemm.py --shape 8x4096x4096 --shape 16x4096x4096 --shape 4096x8x4096 --shape 4096x16x4096 \
  --shape 3000x11x6000 --json $r/cublas-thin.json 2>&1 | tail -8 | tee -a "$log"
python3 ../bench/torch_gemm.py --bt --shape 8x4096x4096 --shape 16x4096x4096 --shape 4096x16x4096 2>&1 | tail -5 | tee -a "$log"
date -u | tee -a "$log"
