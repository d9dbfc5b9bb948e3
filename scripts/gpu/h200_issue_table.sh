#!/usr/bin/env bash
# h200_issue_table.sh — on the GPU host: the fp32 and fp64 products users reported falling behind (transposed,
# batched, odd-sized, matrix-vector), clforge against CLBlast (bench_gemm_mixed --clblast, same buffers) and
# cuBLAS (torch_gemm.py, same orientation and batch), fp32 and fp64, in one script. ROWS overrides the list:
# "LABEL:BATCH:MxNxK:FLAGS" with FLAGS from at, bt, atbt, nn.
. scripts/gpu/common.sh
gpu_session issue-table
ROWS=${ROWS:-"nt:1:4096x4096x4096:bt tt:1:2000x3000x1000:atbt nn:1:3072x3072x3072:nn odd:1:777x1555x999:nn
  batch64:64:256x256x256:nn batch512:512:128x64x128:nn scores:512:128x128x64:bt gemv:1:1x4096x4096:nn"}
for row in $ROWS; do
  IFS=: read -r label batch shape flags <<< "$row"
  f=""; case $flags in at) f="--at";; bt) f="--bt";; atbt) f="--at --bt";; esac
  for dt in f32 f64; do
    say "== $label $dt batch $batch $shape $flags"
    timeout 120 bench/bench_gemm_mixed --device gpu --modes $dt --clblast --reps 10 --batch $batch $f --shape $shape \
      --json $r/clf-$label-$dt.json 2>&1 | grep -E "GFLOP|rror" | cut -c1-140 | tee -a "$log"
    timeout 120 python3 ../bench/torch_gemm.py --dtype $dt --batch $batch $f --shape $shape --json $r/cublas-$label-$dt.json \
      2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
  done
done
date -u | tee -a "$log"
