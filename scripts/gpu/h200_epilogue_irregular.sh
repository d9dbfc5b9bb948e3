#!/usr/bin/env bash
# h200_epilogue_irregular.sh — on the GPU host: (1) [removed: the fp32 fused epilogue with compute_tile's K loop
# forced rolled or unrolled, through a build switch since removed; results in
# bench/results/h200/2026-12-01/epilogue-staging/epi-kk*.json]; (2) odd-sized fp32 products
# under a few waves, every configuration of sweep-irregular-f32.txt with split-K automatic, off, 2 and 3,
# cuBLAS in the same run; (3) the issue-13 workload table as it stands (PART=3: only this).
# Appends to $out/epi-irr.txt.
. scripts/gpu/common.sh
gpu_session epi-irr
here=$PWD/..
if [ "${PART:-1}" = 1 ] || [ "${PART:-1}" = 2 ]; then
  shapes="777x1555x999 2000x3000x1000 1000x1000x1000 1500x700x900 1234x2345x777 3000x3000x600 640x4000x1200 2500x1800x1500 3072x3072x3072"
  sargs=""; for s in $shapes; do sargs="$sargs --shape $s"; done
  say "== $(date -u) cuBLAS on the odd shapes"
  timeout 120 python3 $here/bench/torch_gemm.py --dtype f32 $sargs --json $r/cublas-odd.json 2>&1 | grep cuBLAS | tee -a "$log"
  say "== shipped plan (bench_gemm, CLBlast alongside)"
  timeout 150 bench/bench_gemm --device gpu --reps 7 $sargs --json $r/odd-shipped.json 2>&1 | grep -E "clforge|rror" | tee -a "$log"
  for sk in 1 2 3 auto; do
    say "== sweep, CLFORGE_GEMM_SPLIT_K=$sk"
    ( [ $sk != auto ] && export CLFORGE_GEMM_SPLIT_K=$sk
      timeout 200 bench/bench_gemm --device gpu --no-clblast --reps 5 $sargs --sweep $here/scripts/gpu/sweep-irregular-f32.txt \
        --json $r/odd-sweep-sk$sk.json ) 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  done
fi
if [ "${PART:-1}" = 1 ] || [ "${PART:-1}" = 3 ]; then
  say "== $(date -u) issue-13 workloads (fp32), clforge then cuBLAS"
  B=bench/bench_gemm_mixed
  while read -r flags; do
    t=$(timeout 60 $B --device gpu --modes f32 --reps 7 $flags 2>&1 | grep -E "GFLOP|rror" | tail -1)
    c=$(timeout 60 python3 $here/bench/torch_gemm.py --dtype f32 $flags 2>&1 | grep cuBLAS)
    say "$flags | $t | cuBLAS $c"
  done <<'L'
--bt --shape 4096x4096x4096
--at --bt --shape 2000x3000x1000
--shape 3072x3072x3072
--shape 777x1555x999
--batch 64 --shape 256x256x256
--batch 512 --shape 128x64x128
--batch 512 --bt --shape 128x128x64
L
fi
