#!/usr/bin/env bash
# h200_longk_split.sh — on the GPU host: fp32 products of a few dozen tiles and a long K (each side of C 150-700,
#   K 2000-6000), which the planner cuts into 2-3 slices of at least 1024, against K forced into 4, 8 or 12 slices
#   (CLFORGE_GEMM_SPLIT_K, slices down to 256) on the planner's tiles, and on the small bucket's 32 x 32 tiles read
#   in place (CLFORGE_GEMM_PACK=off, CLFORGE_GEMM_CONFIG) in 4 or 8; one round each, the planner again last; cuBLAS
#   through PyTorch in the same script. The planner and the forced splits of the bucket's tiles run with
#   CLFORGE_GEMM_SMALL_SPLIT=off (the plans this was measured against); "rule" is the planner as it is now.
#   SEED draws the products (default 95).
. scripts/gpu/common.sh
gpu_session ${NAME:-longk-split}
SEED=${SEED:-95}
python3 - "$SEED" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
r = rnd.randint
for _ in range(10):
    print(rnd.choice(["-", "-", "--bt", "--at"]), 1, "%dx%dx%d" % (r(150, 700), r(150, 700), r(2000, 6000)), sep="|")
PY
cat $r/groups.txt >> "$log"
small="MWG=32 NWG=32 KWG=32 MDIMC=8 NDIMC=8 VWM=4 VWN=4 KWI=8 PADA=4 PADB=4 DBUF=1"
while IFS='|' read -r flags batch s; do
  [ "$flags" = - ] && flags=""
  CLFORGE_GEMM_SMALL_SPLIT=off f32_bench planner $flags --batch "$batch" --shape "$s"
  for sk in 4 8 12; do
    CLFORGE_GEMM_SMALL_SPLIT=off CLFORGE_GEMM_SPLIT_K=$sk f32_bench "s$sk" $flags --batch "$batch" --shape "$s"
  done
  for sk in 4 8; do
    CLFORGE_GEMM_SPLIT_K=$sk CLFORGE_GEMM_PACK=off CLFORGE_GEMM_CONFIG="$small" f32_bench "d32-s$sk" $flags --batch "$batch" --shape "$s"
  done
  f32_bench rule $flags --batch "$batch" --shape "$s"
  CLFORGE_GEMM_SMALL_SPLIT=off f32_bench planner-r2 $flags --batch "$batch" --shape "$s"
done < $r/groups.txt
cublas_groups $r/groups.txt
date -u | tee -a "$log"
