#!/usr/bin/env bash
# h200_split_sweep.sh — on the GPU host: fp32 products of the classes furthest behind cuBLAS (few rows with a long K;
#   odd medium sizes), drawn from $SEED, under the planner and forced variants, one round each: K cut into SPLITS
#   parts (CLFORGE_GEMM_SPLIT_K; default 4 8 16), and the operands read in place by the direct kernel in the
#   bucket's tiles (CLFORGE_GEMM_PACK=off) unsplit by force and in PACK_SPLITS parts (default 8); the planner again
#   last. cuBLAS through PyTorch in the same script. NF, NM: how many of each class (default 5, 5).
#   PART=ab: the build before (.old: that commit unpacked into the repository root and carried) against this one in
#   two alternating rounds instead, on NM products of 128-900 rows and columns whose 64 x 64 tiles are 33-98 (a
#   quarter to three quarters of 132 compute units) with K of 2048-6000, and NF few-row ones as controls, with
#   summarize_ab.py's table; TESTS=N first runs test_gemm's N random cases and test_gemm_plan on the GPU. PART=env: the
#   same products, this build with medium_split off (CLFORGE_GEMM_MEDIUM_SPLIT=off, "old") and on ("new"); NO_CUBLAS=1
#   skips cuBLAS.
. scripts/gpu/common.sh
gpu_session ${NAME:-split-sweep}
SEED=${SEED:-105}
if [ "${PART:-}" = ab ] || [ "${PART:-}" = env ]; then
  [ "$PART" = ab ] && old_build bench_gemm_mixed
  [ -n "${TESTS:-}" ] && gemm_suites "$TESTS"
  python3 - "$SEED" "${NF:-3}" "${NM:-10}" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
r = rnd.randint
n = 0
while n < int(sys.argv[3]):
    m, nn, k = r(128, 900), r(128, 900), r(2048, 6000)
    if 33 <= ((m + 63) // 64) * ((nn + 63) // 64) <= 98:
        print(rnd.choice(["-", "-", "--bt", "--at"]), 1, "%dx%dx%d" % (m, nn, k), sep="|")
        n += 1
for _ in range(int(sys.argv[2])):
    print(rnd.choice(["-", "--bt"]), 1, "%dx%dx%d" % (r(17, 127), r(2000, 8000), r(2000, 8000)), sep="|")
PY
  cat $r/groups.txt >> "$log"
  if [ "$PART" = ab ]; then ab_groups $r/groups.txt; else ab_env_groups CLFORGE_GEMM_MEDIUM_SPLIT off on $r/groups.txt; fi
  [ -z "${NO_CUBLAS:-}" ] && cublas_groups $r/groups.txt
  python3 ../scripts/gpu/summarize_ab.py "$log" | tee $r/summary.md >> "$log"
  date -u | tee -a "$log"
  exit 0
fi
python3 - "$SEED" "${NF:-5}" "${NM:-5}" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
r = rnd.randint
for _ in range(int(sys.argv[2])):
    print(rnd.choice(["-", "-", "--bt", "--at"]), 1, "%dx%dx%d" % (r(17, 127), r(2000, 8000), r(2000, 8000)), sep="|")
for _ in range(int(sys.argv[3])):
    print(rnd.choice(["-", "-", "--bt", "--at"]), 1, "%dx%dx%d" % (r(150, 700), r(150, 700), r(1000, 3000)), sep="|")
PY
cat $r/groups.txt >> "$log"
while IFS='|' read -r flags batch s; do
  [ "$flags" = - ] && flags=""
  f32_bench planner $flags --batch "$batch" --shape "$s"
  for sk in ${SPLITS:-4 8 16}; do
    CLFORGE_GEMM_SPLIT_K=$sk f32_bench "s$sk" $flags --batch "$batch" --shape "$s"
  done
  CLFORGE_GEMM_PACK=off CLFORGE_GEMM_SPLIT_K=1 f32_bench "inplace" $flags --batch "$batch" --shape "$s"
  for sk in ${PACK_SPLITS:-8}; do
    CLFORGE_GEMM_PACK=off CLFORGE_GEMM_SPLIT_K=$sk f32_bench "inplace-s$sk" $flags --batch "$batch" --shape "$s"
  done
  f32_bench planner-r2 $flags --batch "$batch" --shape "$s"
done < $r/groups.txt
cublas_groups $r/groups.txt
date -u | tee -a "$log"
