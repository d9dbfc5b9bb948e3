#!/usr/bin/env bash
# h200_batch_tiles_ab.sh — on the GPU host: this build against the build before (.old: the commit before, unpacked
#   into the repository root and carried) in alternating rounds, on batches of small odd matrices and few-row
#   products drawn from $SEED (as h200_batch_tiles.sh draws them, another seed) and on fixed products that must
#   not move; cuBLAS through PyTorch in the same script. TESTS=N first runs test_gemm's N random cases and
#   test_gemm_plan on the GPU. GROUPS_FILE (relative to the repository root): a list of its own instead of the draw;
#   NAME: the log's name.
. scripts/gpu/common.sh
gpu_session ${NAME:-batch-tiles-ab}
old_build bench_gemm_mixed
[ -n "${TESTS:-}" ] && gemm_suites "$TESTS"
SEED=${SEED:-43}
python3 - "$SEED" "${NB:-12}" "${NF:-8}" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
def r(lo, hi): return rnd.randint(lo, hi)
for i in range(int(sys.argv[2])):
    s = (r(48, 512), r(48, 512), r(32, 512))
    print("--bt" if i % 2 else "-", max(8, (1 << 32) // (2 * s[0] * s[1] * s[2]) // 8 * 8), "%dx%dx%d" % s, sep="|")
for i in range(int(sys.argv[3])):
    f = (r(33, 127), r(2000, 8000), r(2000, 8000)) if i % 2 == 0 else (r(17, 200), r(2000, 8000), r(2000, 8000))
    print("--bt" if i % 4 == 3 else "-", 1, "%dx%dx%d" % f, sep="|")
for f, b, s in (("-", 1, "4096x4096x4096"), ("-", 1, "3072x3072x3072"), ("-", 1, "2000x3000x1000"),
                ("-", 1, "777x1555x999"), ("-", 64, "256x256x256"), ("-", 512, "128x64x128"), ("--bt", 512, "128x128x64")):
    print(f, b, s, sep="|")
PY
[ -n "${GROUPS_FILE:-}" ] && cp "../$GROUPS_FILE" $r/groups.txt   # another list (FLAGS|BATCH|MxNxK lines)
cat $r/groups.txt >> "$log"
ab_groups $r/groups.txt
cublas_groups $r/groups.txt
date -u | tee -a "$log"
