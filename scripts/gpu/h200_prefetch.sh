#!/usr/bin/env bash
# h200_prefetch.sh — on the GPU host: does requesting each stage's rows into L2 ahead of their copies (gemm_mma's
#   PF, set for every build through CLFORGE_BUILD_OPTIONS) speed up the matrix-unit products, most of all those
#   with few rows that stream a large weight matrix from memory? Alternating rounds of PF values over SHAPES in
#   each MODE:LAYOUT of MODES, cuBLAS (torch.matmul) once per entry in the same script.
. scripts/gpu/common.sh
gpu_session prefetch
SHAPES=${SHAPES:-"240x5120x8192 6144x336x5120 1200x1800x1000 144x10240x4096 9216x176x4096 448x14336x2048 2500x8192x4096 4096x4096x4096 8192x8192x8192"}
ss=""; for s in $SHAPES; do ss="$ss --shape $s"; done
torch_dtype() { case $1 in bf16*) echo bf16;; tf32) echo tf32;; 3xtf32) echo f32;; *) echo f16;; esac; }
for ml in ${MODES:-f16h:bt f16h:nn tf32:bt}; do
  mode=${ml%%:*}; BT=; [ "${ml#*:}" = bt ] && BT=--bt
  say "== cuBLAS ($ml)"
  timeout 150 python3 ../bench/torch_gemm.py --dtype $(torch_dtype $mode) $BT $ss --json $r/cublas-$mode-${ml#*:}.json 2>&1 |
    grep -E "cuBLAS|rror" | tee -a "$log"
  for round in ${ROUNDS:-1 2}; do
    for pf in ${PFS:-0 4 8 16}; do
      say "-- PF=$pf $ml r$round"
      CLFORGE_BUILD_OPTIONS="-DPF=$pf" timeout 200 bench/bench_gemm_mixed --device gpu --modes $mode $BT --reps 10 $ss \
        --json $r/pf$pf-$mode-${ml#*:}-$round.json 2>&1 | grep -E "GFLOP|rror|warn" | cut -c1-90 | sed "s/^/PF=$pf $ml r$round | /" | tee -a "$log"
    done
  done
done
date -u | tee -a "$log"
