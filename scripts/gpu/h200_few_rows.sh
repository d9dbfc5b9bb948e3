#!/usr/bin/env bash
# h200_few_rows.sh — on the GPU host: fp32 products of M rows (ROWS, default 17..192) times N x K (default 4096 x
#   4096) as the planner runs them and under forced configurations (CONFIGS: names of F32_CFG in common.sh, or
#   s32 = 32 x 64 tiles), NN and A.B^T, cuBLAS (torch) in the same script: where the few-rows class falls off.
. scripts/gpu/common.sh
gpu_session few-rows
F32_CFG[s32]="MWG=32 NWG=64 KWG=32 MDIMC=4 NDIMC=8 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1"
NK=${NK:-4096x4096}
sh=""; for m in ${ROWS:-17 24 32 33 40 48 56 64 80 96 112 128 160 192}; do sh="$sh --shape ${m}x$NK"; done
for flags in "" "--bt"; do
  f32_bench "planner$flags" $flags $sh --json $r/planner$flags.json
  for c in ${CONFIGS:-skinny s32}; do
    CLFORGE_GEMM_CONFIG="${F32_CFG[$c]}" f32_bench "$c$flags" $flags $sh --json $r/$c$flags.json
  done
  timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $flags $sh --json $r/cublas$flags.json 2>&1 | grep -E "cuBLAS|rror" | sed "s/^/cuBLAS$flags | /" | tee -a "$log"
done
date -u | tee -a "$log"
