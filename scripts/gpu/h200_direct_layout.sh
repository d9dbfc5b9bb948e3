#!/usr/bin/env bash
# h200_direct_layout.sh — on the GPU host: the direct kernel's layout for operands stored with K contiguous
#   (CLFORGE_GEMM_DIRECT_LAYOUT=$NEW, auto by default: loads in runs of 8 along K, local rows padded so that a warp's
#   stores meet no bank twice, for the operands auto picks or, with 1, all) against the plain one (=0), one build, two alternating rounds, on products drawn from $SEED by class:
#   few-row products (NN, on the direct kernel either way; A·Bᵀ with K not a multiple of 4, which the layout's rule
#   moves from packing B to the direct kernel; A·Bᵀ with K a multiple of 4, which stay on the fast kernel), products
#   of the small bucket (up to 512³ of work, on the direct kernel) in every orientation, batches of small odd matrices
#   (NN, A·Bᵀ, Aᵀ·B), and fixed products that must not move; cuBLAS through PyTorch in the same script. TESTS=N first
#   runs test_gemm's N random cases (with the layout's own cases) and test_gemm_plan on the GPU. The log ends with
#   scripts/gpu/summarize_ab.py's table (old: the plain layout, new: CLFORGE_GEMM_DIRECT_LAYOUT=$NEW). Then the few-row
#   products with the layout on: as planned against all on the direct kernel. PART=main or PART=packoff runs one of
#   the two (together they may pass the device tool's 10 minutes; the draw is the same for a given SEED).
. scripts/gpu/common.sh
gpu_session ${NAME:-direct-layout}
[ -n "${TESTS:-}" ] && gemm_suites "$TESTS"
SEED=${SEED:-71}
python3 - "$SEED" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
def r(lo, hi): return rnd.randint(lo, hi)
def odd4(lo, hi):   # not a multiple of 4
    while True:
        k = r(lo, hi)
        if k % 4: return k
for i in range(4):
    print("-", 1, "%dx%dx%d" % (r(33, 127), r(2000, 8000), r(2000, 8000)), sep="|")
for i in range(5):
    print("--bt", 1, "%dx%dx%d" % (r(33, 127), r(2000, 8000), odd4(2000, 8000)), sep="|")
for i in range(2):
    print("--bt", 1, "%dx%dx%d" % (r(33, 127), r(2000, 8000), r(500, 2000) * 4), sep="|")
for flags in ("-", "--bt", "--at", "--at --bt", "-", "--bt"):
    while True:
        s = (r(100, 700), r(100, 700), r(100, 1500))
        if s[0] * s[1] * s[2] <= 1 << 27: break
    print(flags, 1, "%dx%dx%d" % s, sep="|")
for flags in ("-", "--bt", "--at", "-", "--bt"):
    s = (r(48, 400), r(48, 400), r(33, 400))
    print(flags, max(8, (1 << 32) // (2 * s[0] * s[1] * s[2]) // 8 * 8), "%dx%dx%d" % s, sep="|")
for f, b, s in (("-", 1, "4096x4096x4096"), ("--bt", 1, "4096x4096x4096"), ("-", 1, "777x1555x999"), ("-", 1, "512x512x512"),
                ("-", 64, "256x256x256"), ("--bt", 512, "128x128x64")):
    print(f, b, s, sep="|")
PY
[ -n "${GROUPS_FILE:-}" ] && cp "../$GROUPS_FILE" $r/groups.txt   # another list (FLAGS|BATCH|MxNxK lines)
cat $r/groups.txt >> "$log"
if [ "${PART:-all}" != packoff ]; then
  ab_env_groups CLFORGE_GEMM_DIRECT_LAYOUT 0 "${NEW:-auto}" $r/groups.txt
  cublas_groups $r/groups.txt
  python3 ../scripts/gpu/summarize_ab.py "$log" > $r/summary.md && cat $r/summary.md >> "$log"
  date -u | tee -a "$log"
fi
# With the layout on, the few-row products as the rules plan them (old) against every one of them on the direct
# kernel in place (new: CLFORGE_GEMM_PACK=off), A·Bᵀ whose K the fast kernel reads in place included: whether the
# direct kernel should take the whole class. A log of its own, so that the summary pairs its rounds only.
if [ "${PART:-all}" != main ]; then
  log=$out/${NAME:-direct-layout}-packoff.txt
  awk -F'|' '$2 == 1 { split($3, d, "x"); if (d[1] < 128) print }' $r/groups.txt > $r/fewrows.txt
  cat $r/fewrows.txt >> "$log"
  ( export CLFORGE_GEMM_DIRECT_LAYOUT=${NEW:-auto}; ab_env_groups CLFORGE_GEMM_PACK "" off $r/fewrows.txt )
  cublas_groups $r/fewrows.txt
  python3 ../scripts/gpu/summarize_ab.py "$log" >> "$log"
fi
