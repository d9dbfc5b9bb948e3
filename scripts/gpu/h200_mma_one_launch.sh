#!/usr/bin/env bash
# h200_mma_one_launch.sh — on the GPU host: split products on the matrix units as one launch of K slices, the last
#   one shorter, against the build before (.old: that commit unpacked into the repository root and carried), where
#   the remainder of K was a second launch. First the suites that run the split on the GPU (test_gemm_mixed's
#   split-K cases, its random cases with the split forced into 5 and 3 slices, test_gemm_waves), then, for each of
#   MODES (default "f16 tf32"), two alternating rounds over products drawn from $SEED of the classes that split
#   (a few tiles with a long K, a last wave of one row of tiles, odd sizes), B stored N x K, and cuBLAS in the same
#   dtype; summarize_ab.py's table per mode in $out/mma-MODE.md.
. scripts/gpu/common.sh
gpu_session ${NAME:-mma-one-launch}
old_build bench_gemm_mixed
if [ -z "${NO_TESTS:-}" ]; then
  ( CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=split_k_cases timeout 150 tests/test_gemm_mixed ) \
    > $r/split-cases.log 2>&1
  say "split_k_cases rc=$? $(grep -E 'split-K|Checks' $r/split-cases.log | tr '\n' ' ')"
  for parts in 5 3; do
    ( CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=random_mixed_cases CLFORGE_GEMM_SPLIT_K=$parts \
        CLFORGE_GEMM_TEST_CASES=${TESTS:-120} timeout 150 tests/test_gemm_mixed ) > $r/random-split$parts.log 2>&1
    say "random_mixed_cases, split into $parts: rc=$? $(grep -E 'cases on|Checks' $r/random-split$parts.log | tr '\n' ' ')"
  done
  ( CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 timeout 150 tests/test_gemm_waves ) > $r/waves.log 2>&1
  say "test_gemm_waves rc=$? $(grep -E 'Checks' $r/waves.log)"
fi
SEED=${SEED:-111}
python3 - "$SEED" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
r = rnd.randint
for _ in range(4):   # few tiles, a long K: split as a whole
    print("--bt", 1, "%dx%dx%d" % (r(128, 900), r(128, 900), r(2048, 8192)), sep="|")
for _ in range(3):   # a last wave of one row of 128 x 128 tiles (33 columns: 4 x 264 + 33)
    print("--bt", 1, "%dx%dx%d" % (4096 + r(1, 120), r(4100, 4224), r(2048, 6000)), sep="|")
for _ in range(2):   # odd medium sizes
    print("--bt", 1, "%dx%dx%d" % (r(500, 1500), r(500, 1500), r(1000, 4000)), sep="|")
print("--bt|1|4096x4096x4096")
PY
# mode_run VARIANT LABEL OPTIONS...: bench_gemm_mixed of the build before (old) or this one in $mode, said under LABEL.
mode_run() {
  local bin=bench/bench_gemm_mixed; [ "$1" = old ] && bin=../.old/build-gpu/bench/bench_gemm_mixed
  say "-- $2"
  timeout 120 $bin --device gpu --modes $mode --reps 10 "${@:3}" 2>&1 | grep -E "GFLOP|rror" | cut -c1-90 |
    sed "s/^/$2 | /" | tee -a "$log"
}
for mode in ${MODES:-f16 tf32}; do
  log=$out/mma-$mode.txt
  cat $r/groups.txt >> "$log"
  ab_rounds $r/groups.txt mode_run
  while IFS='|' read -r flags batch s; do
    timeout 60 python3 ../bench/torch_gemm.py --dtype $mode $flags --batch "$batch" --shape "$s" 2>&1 |
      grep -E "cuBLAS|rror" | sed "s/^/cuBLAS | /" | tee -a "$log"
  done < $r/groups.txt
  python3 ../scripts/gpu/summarize_ab.py "$log" | tee $out/mma-$mode.md >> "$log"
done
date -u | tee -a "$log"
