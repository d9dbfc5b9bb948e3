#!/usr/bin/env bash
# h200_small_split.sh — on the GPU host: odd fp32 products (each side 150-1500, K 200-2500), eight of the small
#   bucket (m n k <= 2^27: 32 x 32 tiles on the direct kernel, unsplit under K = 2048) and four a little larger,
#   with K forced into 2, 3, 4 or 6 slices (CLFORGE_GEMM_SPLIT_K), the planner with its small-tile splits ("rule",
#   the default) and without them (CLFORGE_GEMM_SMALL_SPLIT=off, "planner", first and last); cuBLAS through PyTorch
#   in the same script.
#   SEED draws the products (default 91), SPLITS the forced slices; PART=ab times CLFORGE_GEMM_SMALL_SPLIT off and on
#   (the default) instead, in two alternating rounds on products those rules serve (scripts/gpu/summarize_ab.py's table
#   at the end), after test_gemm's random cases and test_gemm_plan on the GPU (CASES of them; 0: none). PICK=A,B
#   keeps lines A to B of the draw.
. scripts/gpu/common.sh
gpu_session ${NAME:-small-split}
SEED=${SEED:-91}
python3 - "$SEED" ${PART:-} > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
r = rnd.randint
n = 0
if len(sys.argv) > 2:   # PART=ab: products the rules may change, and two they leave alone
    def draw(lo, hi, klo, khi, ok=lambda m, n: True, flags=("-", "-", "--bt", "--at")):
        while True:
            m, nn = r(*lo), r(*hi)
            if ok(m, nn):
                print(rnd.choice(flags), 1, "%dx%dx%d" % (m, nn, r(klo, khi)), sep="|")
                return
    few32 = lambda m, nn: ((m + 31) // 32) * ((nn + 31) // 32) < 264
    for _ in range(4): draw((150, 700), (150, 700), 1024, 2000, few32)   # the small bucket, K >= 1024
    for _ in range(4): draw((150, 700), (150, 700), 2000, 6000)          # long K, few tiles of the bucket's
    for _ in range(2): draw((20, 120), (300, 1500), 2000, 5000)          # few rows: the few-row rules' (controls)
    for _ in range(2): draw((150, 700), (150, 700), 300, 1023)           # K under 1024: unchanged
    n = 12
while n < 12:   # 8 of the small bucket (m n k <= 2^27), 4 up to 600 x 600 x 1500: a few dozen to a few hundred tiles
    m, nn, k = r(150, 1500), r(150, 1500), r(200, 2500)
    if m * nn * k > (1 << 27 if n < 8 else 600 * 600 * 1500):
        continue
    flags = rnd.choice(["-", "-", "--bt", "--at"])
    print(flags, 1, "%dx%dx%d" % (m, nn, k), sep="|")
    n += 1
PY
[ -n "${PICK:-}" ] && sed -i -n "${PICK}p" $r/groups.txt   # PICK=3,10: only those lines of the draw
cat $r/groups.txt >> "$log"
if [ "${PART:-sweep}" = ab ]; then   # the rule off and on in two alternating rounds, summarize_ab.py's table at the end
  [ "${CASES:-40}" != 0 ] && gemm_suites ${CASES:-40}
  ab_env_groups CLFORGE_GEMM_SMALL_SPLIT off "" $r/groups.txt
  cublas_groups $r/groups.txt
  python3 ../scripts/gpu/summarize_ab.py "$log" | tee $r/summary.md >> "$log"
  date -u | tee -a "$log"
  exit 0
fi
while IFS='|' read -r flags batch s; do
  [ "$flags" = - ] && flags=""
  CLFORGE_GEMM_SMALL_SPLIT=off f32_bench planner $flags --batch "$batch" --shape "$s"
  for sk in ${SPLITS:-2 3 4 6}; do
    CLFORGE_GEMM_SPLIT_K=$sk f32_bench "s$sk" $flags --batch "$batch" --shape "$s"
  done
  f32_bench rule $flags --batch "$batch" --shape "$s"
  CLFORGE_GEMM_SMALL_SPLIT=off f32_bench planner-r2 $flags --batch "$batch" --shape "$s"
done < $r/groups.txt
cublas_groups $r/groups.txt
date -u | tee -a "$log"
