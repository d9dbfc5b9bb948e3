#!/usr/bin/env bash
# h200_small_split.sh — on the GPU host: odd fp32 products (each side 150-1500, K 200-2500), eight of the small
#   bucket (m n k <= 2^27: 32 x 32 tiles on the direct kernel, unsplit under K = 2048) and four a little larger,
#   with K forced into 2, 3, 4 or 6 slices (CLFORGE_GEMM_SPLIT_K), the small-bucket rule (CLFORGE_GEMM_SMALL_SPLIT=on)
#   and the planner's own plan twice (first and last); cuBLAS through PyTorch in the same script.
#   SEED draws the products (default 91), SPLITS the forced slices; PART=ab times the rule off and on instead, in two
#   alternating rounds (scripts/gpu/summarize_ab.py's table at the end).
. scripts/gpu/common.sh
gpu_session ${NAME:-small-split}
SEED=${SEED:-91}
python3 - "$SEED" ${PART:-} > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
r = rnd.randint
n = 0
if len(sys.argv) > 2:   # PART=ab: products the rule may cut (K >= 1024, under 264 tiles of 32 x 32) and 3 others
    while n < 12:
        m, nn, k = r(150, 700), r(150, 700), r(1024, 3000) if n < 9 else r(300, 1023)
        if n < 9 and ((m + 31) // 32) * ((nn + 31) // 32) >= 264:
            continue
        print(rnd.choice(["-", "-", "--bt", "--at"]), 1, "%dx%dx%d" % (m, nn, k), sep="|")
        n += 1
while n < 12:   # 8 of the small bucket (m n k <= 2^27), 4 up to 600 x 600 x 1500: a few dozen to a few hundred tiles
    m, nn, k = r(150, 1500), r(150, 1500), r(200, 2500)
    if m * nn * k > (1 << 27 if n < 8 else 600 * 600 * 1500):
        continue
    flags = rnd.choice(["-", "-", "--bt", "--at"])
    print(flags, 1, "%dx%dx%d" % (m, nn, k), sep="|")
    n += 1
PY
cat $r/groups.txt >> "$log"
if [ "${PART:-sweep}" = ab ]; then   # the rule off and on in two alternating rounds, summarize_ab.py's table at the end
  ab_env_groups CLFORGE_GEMM_SMALL_SPLIT off on $r/groups.txt
  cublas_groups $r/groups.txt
  python3 ../scripts/gpu/summarize_ab.py "$log" | tee $r/summary.md >> "$log"
  date -u | tee -a "$log"
  exit 0
fi
while IFS='|' read -r flags batch s; do
  [ "$flags" = - ] && flags=""
  f32_bench planner $flags --batch "$batch" --shape "$s"
  for sk in ${SPLITS:-2 3 4 6}; do
    CLFORGE_GEMM_SPLIT_K=$sk f32_bench "s$sk" $flags --batch "$batch" --shape "$s"
  done
  CLFORGE_GEMM_SMALL_SPLIT=on f32_bench rule $flags --batch "$batch" --shape "$s"
  f32_bench planner-r2 $flags --batch "$batch" --shape "$s"
done < $r/groups.txt
cublas_groups $r/groups.txt
date -u | tee -a "$log"
