#!/usr/bin/env bash
# h200_split_sum.sh — on the GPU host: split fp32 products summed by a reduction launch (CLFORGE_GEMM_SPLIT_SUM=launch,
#   "old") and by their own slices (=fused, "new") in two alternating rounds, on products drawn from $SEED as
#   h200_ragged_split.sh draws them (the classes that split); cuBLAS through PyTorch in the same script and
#   summarize_ab.py's table at the end. TESTS=N first runs test_gemm's N random cases (the split cases summed in their
#   launch among them) and test_gemm_plan on the GPU, and test_gemm_epilogue's split_summed_in_launch.
. scripts/gpu/common.sh
gpu_session ${NAME:-split-sum}
if [ -n "${TESTS:-}" ]; then
  gemm_suites "$TESTS"
  ( CK_RUN_CASE=split_summed_in_launch CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 timeout 200 \
      tests/test_gemm_epilogue > $r/test_gemm_epilogue.log 2>&1 )
  say "test_gemm_epilogue split_summed_in_launch rc=$? $(grep -E 'Checks' $r/test_gemm_epilogue.log)"
fi
SEED=${SEED:-109}
python3 - "$SEED" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
r = rnd.randint
def draw(n, m, nn, k, flags=("-", "-", "--bt", "--at")):
    for _ in range(n):
        print(rnd.choice(flags), 1, "%dx%dx%d" % (r(*m), r(*nn), r(*k)), sep="|")
draw(4, (150, 700), (150, 700), (1024, 2000))
draw(4, (150, 700), (150, 700), (2000, 6000))
draw(3, (17, 127), (2000, 8000), (2000, 8000), flags=("-", "--bt"))
print("--at --bt|1|2000x3000x1000")
print("-|1|3072x3072x3072")
PY
cat $r/groups.txt >> "$log"
ab_env_groups CLFORGE_GEMM_SPLIT_SUM launch fused $r/groups.txt
cublas_groups $r/groups.txt
python3 ../scripts/gpu/summarize_ab.py "$log" | tee $r/summary.md >> "$log"
date -u | tee -a "$log"
