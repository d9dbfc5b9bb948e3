#!/usr/bin/env bash
# h200_nt_rows.sh — on the GPU host: where reading a B stored N x K in place (the padded or swizzled local store)
#   stops beating packing it first: A.B^T products of ROWS rows (C's M) against N x K weights, fp32, with
#   CLFORGE_GEMM_NT_PACK=0 (in place wherever aligned) and =1 (packed) in alternating rounds, then the planner's own
#   choice; cuBLAS through PyTorch in the same script. The pack rule's threshold (NT_PACK_MIN_M in
#   host/gemm/gemm_plan.c) is drawn from this. ROWS and NK (N x K pairs) override the lists below.
. scripts/gpu/common.sh
gpu_session nt-rows
ROWS=${ROWS:-"128 256 384 512 768 1024 1536 2048 4096"}
NK=${NK:-"4096x4096 11008x4096 4096x11008 3072x768"}
: > $r/groups.txt
for nk in $NK; do for m in $ROWS; do echo "--bt|1|${m}x${nk}" >> $r/groups.txt; done; done
cat $r/groups.txt >> "$log"
for round in 1 2; do
  for pack in 0 1; do
    while IFS='|' read -r flags batch s; do
      CLFORGE_GEMM_NT_PACK=$pack f32_bench "pack$pack-r$round" $flags --batch "$batch" --shape "$s"
    done < $r/groups.txt
  done
done
while IFS='|' read -r flags batch s; do f32_bench planner $flags --batch "$batch" --shape "$s"; done < $r/groups.txt
cublas_groups $r/groups.txt
date -u | tee -a "$log"
