#!/usr/bin/env bash
# h200_worst_profile.sh — on the GPU host: where the time of the surveys' worst fp32 classes goes (odd medium
#   products, 17-200 rows with a long K, batches of small odd matrices). For each group of GROUPS ("FLAGS|SHAPES",
#   FLAGS passed to bench_gemm_mixed and torch_gemm.py, e.g. "--batch 144 --bt"): the planner's plan timed, its
#   per-kernel profile (CLFORGE_PROFILE=1), the same under each forced variant of VARIANTS (env settings), and
#   cuBLAS through PyTorch in the same script.
. scripts/gpu/common.sh
gpu_session worst-profile
GROUPS_DEFAULT="|570x411x1391 399x1321x1658 733x515x1211 1369x831x1347 33x6623x2488 48x5000x3000 175x3687x6066 4573x136x6796
--batch 144 --bt|390x87x423
--batch 232|125x298x247
--batch 300|97x211x150"
VARIANTS=${VARIANTS:-"CLFORGE_GEMM_SPLIT_K=1 CLFORGE_GEMM_PACK=off CLFORGE_GEMM_PACK=edges"}
while IFS='|' read -r flags shapes; do
  sh=""; for s in $shapes; do sh="$sh --shape $s"; done
  f32_bench "planner $flags" $flags $sh
  for v in $VARIANTS; do ( export "$v"; f32_bench "$v $flags" $flags $sh ); done
  for s in $shapes; do
    say "-- profile $flags $s"
    CLFORGE_PROFILE=1 timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 --reps 10 $flags --shape $s 2>&1 |
      grep -vE "GFLOP|^#|^$" | cut -c1-140 | tee -a "$log"
  done
  timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $flags $sh 2>&1 | grep -E "x[0-9]|rror" | sed "s/^/cuBLAS $flags | /" | tee -a "$log"
done <<< "${GROUPS_LIST:-$GROUPS_DEFAULT}"
date -u | tee -a "$log"
