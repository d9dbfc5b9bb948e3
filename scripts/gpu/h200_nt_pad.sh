#!/usr/bin/env bash
# h200_nt_pad.sh — on the GPU host: B stored N x K read in place by 128 x 128 tiles, with rows padded against bank
#   conflicts (BPAD_NK in cl/gemm.cl), against the build before (.old, carried): batches of A.B^T and fixed products in
#   alternating rounds; then whole-tile A.B^T products read in place (CLFORGE_GEMM_NT_PACK=0) by both builds; test_gemm
#   (60 random cases) and test_gemm_plan first; cuBLAS through PyTorch in the same script.
. scripts/gpu/common.sh
gpu_session ntpad
old_build bench_gemm_mixed
gemm_suites 60
G=../bench/results/h200/2026-12-04/nt-pad/groups.txt
ab_groups $G
for round in 1 2; do
  for v in old new; do
    bin=bench/bench_gemm_mixed; [ $v = old ] && bin=../.old/build-gpu/bench/bench_gemm_mixed
    CLFORGE_GEMM_NT_PACK=0 B=$bin f32_bench "$v-inplace-r$round" --bt --shape 4096x4096x4096 --shape 2048x6144x4096
  done
done
cublas_groups $G
date -u | tee -a "$log"
