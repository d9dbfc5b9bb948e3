#!/usr/bin/env bash
# h200_batch_tiles.sh — on the GPU host: tiles and reads for batches of small odd matrices, and the packing pass of
#   few-row products, on shapes drawn from $SEED (as h200_survey.sh draws its batched and skinny classes).
#   Batches: the planner's plan, then every configuration of CFGS forced (F32_CFG names in common.sh), each packed
#   as the planner would and with CLFORGE_GEMM_PACK=off (the direct kernel, operands read in place); few-row
#   products (17-200 rows or columns, long K): the planner and CLFORGE_GEMM_PACK=off. cuBLAS through PyTorch in
#   the same script. NB / NF: how many batches / few-row products to draw.
. scripts/gpu/common.sh
gpu_session batch-tiles
SEED=${SEED:-41}
python3 - "$SEED" "${NB:-10}" "${NF:-8}" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
def r(lo, hi): return rnd.randint(lo, hi)
for i in range(int(sys.argv[2])):
    s = (r(48, 512), r(48, 512), r(32, 512))
    print("batch", "--bt" if i % 2 else "-", max(8, (1 << 32) // (2 * s[0] * s[1] * s[2]) // 8 * 8), "%dx%dx%d" % s, sep="|")
for i in range(int(sys.argv[3])):
    f = (r(17, 200), r(2000, 8000), r(2000, 8000))
    if i % 2: f = (f[1], f[0], f[2])
    print("few", "--bt" if i % 4 >= 2 else "-", 1, "%dx%dx%d" % f, sep="|")
PY
cat $r/groups.txt >> "$log"
while IFS='|' read -r cls flags batch s; do
  [ "$flags" = - ] && flags=""
  say "== $cls $flags batch $batch $s"
  f32_bench "planner" $flags --batch $batch --shape $s
  ( export CLFORGE_GEMM_PACK=off; f32_bench "direct" $flags --batch $batch --shape $s )
  if [ $cls = batch ]; then
    for c in ${CFGS:-skinny medium bsmall large m8}; do
      ( export CLFORGE_GEMM_CONFIG="${F32_CFG[$c]}"; f32_bench "$c" $flags --batch $batch --shape $s
        export CLFORGE_GEMM_PACK=off; f32_bench "$c-direct" $flags --batch $batch --shape $s )
    done
  fi
  timeout 60 python3 ../bench/torch_gemm.py --dtype f32 $flags --batch $batch --shape $s 2>&1 | grep -E "cuBLAS|rror" |
    sed "s/^/cuBLAS | /" | tee -a "$log"
done < $r/groups.txt
date -u | tee -a "$log"
