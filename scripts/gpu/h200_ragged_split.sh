#!/usr/bin/env bash
# h200_ragged_split.sh — on the GPU host: fp32 products that split K on the direct kernel (small-bucket products of
#   K >= 1024 and few tiles, long-K products of few tiles, few-row products with B stored K x N, few-row A·Bᵀ with K
#   not a multiple of 4) and two that do not, drawn from $SEED, and two fixed products whose last wave is split: this build ("new": the rest of K in the slices'
#   launch) against the build before (.old: that commit unpacked into the repository root and carried; "old": the
#   rest a launch of its own) and against this build with the few-tile rules off (CLFORGE_GEMM_SMALL_SPLIT=off,
#   CLFORGE_GEMM_FEW_TILES_SLICES=off; "off"), in two alternating rounds; cuBLAS through PyTorch in the same script,
#   summarize_ab.py's table at the end. TESTS=N first runs test_gemm's N random cases and test_gemm_plan on the GPU.
. scripts/gpu/common.sh
gpu_session ${NAME:-ragged-split}
old_build bench_gemm_mixed
[ -n "${TESTS:-}" ] && gemm_suites "$TESTS"
SEED=${SEED:-101}
python3 - "$SEED" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
r = rnd.randint
def draw(n, m, nn, k, flags=("-", "-", "--bt", "--at"), ok=lambda m, n, k: True):
    for _ in range(n):
        while True:
            s = (r(*m), r(*nn), r(*k))
            if ok(*s):
                break
        print(rnd.choice(flags), 1, "%dx%dx%d" % s, sep="|")
draw(4, (150, 700), (150, 700), (1024, 2000), ok=lambda m, n, k: ((m + 31) // 32) * ((n + 31) // 32) < 264)
draw(4, (150, 700), (150, 700), (2000, 6000))
draw(3, (17, 127), (2000, 8000), (2000, 8000), flags=("-",))
draw(2, (17, 127), (2000, 8000), (2000, 8000), flags=("--bt",), ok=lambda m, n, k: k % 4 != 0)
draw(1, (1500, 4000), (1500, 4000), (1000, 4000))   # controls: not split on the direct kernel
draw(1, (300, 1500), (300, 1500), (200, 1000))
print("--at --bt|1|2000x3000x1000")   # its last wave's rows split in two (and a rest before)
print("-|1|3072x3072x3072")           # its last wave's rows split in four, K divided evenly: unchanged
PY
cat $r/groups.txt >> "$log"
run_variant() {
  case $1 in
    old) B=../.old/build-gpu/bench/bench_gemm_mixed f32_bench "${@:2}" ;;
    new) f32_bench "${@:2}" ;;
    off) CLFORGE_GEMM_SMALL_SPLIT=off CLFORGE_GEMM_FEW_TILES_SLICES=off f32_bench "${@:2}" ;;
  esac
}
for round in 1 2; do
  for v in off old new; do
    while IFS='|' read -r flags batch s; do
      [ "$flags" = - ] && flags=""
      run_variant $v "$v-r$round" $flags --batch "$batch" --shape "$s"
    done < $r/groups.txt
  done
done
cublas_groups $r/groups.txt
python3 ../scripts/gpu/summarize_ab.py "$log" | tee $r/summary.md >> "$log"
date -u | tee -a "$log"
