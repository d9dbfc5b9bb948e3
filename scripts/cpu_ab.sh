#!/usr/bin/env bash
# cpu_ab.sh — an A/B of two environment settings on the CPU device, for a machine shared with other jobs: ROUNDS
#   alternating rounds (A then B in each) of bench/bench_gemm_mixed over the products given, then the median, least
#   and most of each variant and B's median over A's. Raw lines ("1|2 LABEL GFLOP/s") go to OUT.
#   usage: scripts/cpu_ab.sh OUT ROUNDS "A_ENV" "B_ENV" "FLAGS|MxNxK"...
#     FLAGS: bench_gemm_mixed's (--at, --bt; ':' stands for a space, --batch:8) or "-" for none.
#   BUILD (default build) holds the bench; BUILD_A and BUILD_B, when set, give each variant its own (an A/B of two
#   builds: pass "" or X=1 as both environments); MODES (default f32) its --modes.
#   e.g. scripts/cpu_ab.sh /tmp/ab.txt 3 "CLFORGE_GEMM_CPU_PACK=1" "CLFORGE_GEMM_CPU_PACK=2" "-|64x4096x4096"
set -u
out=$1 rounds=$2 env_a=$3 env_b=$4
shift 4
root=$(cd "$(dirname "$0")/.." && pwd)
bench_a=${BUILD_A:-${BUILD:-$root/build}}/bench/bench_gemm_mixed
bench_b=${BUILD_B:-${BUILD:-$root/build}}/bench/bench_gemm_mixed
for b in "$bench_a" "$bench_b"; do [ -x "$b" ] || { echo "no $b (set BUILD)"; exit 1; }; done
: > "$out"
for _ in $(seq "$rounds"); do
  for v in 1 2; do
    e=$env_a bench=$bench_a; [ $v = 2 ] && e=$env_b bench=$bench_b
    for l in "$@"; do
      IFS='|' read -r fl s <<< "$l"
      [ "$fl" = - ] && fl=""
      g=$(env $e CLFORGE_SOURCE_DIR="$root" "$bench" --device cpu --modes "${MODES:-f32}" --reps 5 ${fl//:/ } --shape "$s" \
          2>&1 | awk '/GFLOP/ {print $(NF-5)}')
      echo "$v $l ${g:-failed}" >> "$out"
    done
  done
done
python3 - "$out" <<'P'
import statistics as st, sys
from collections import defaultdict
d = defaultdict(list)
for line in open(sys.argv[1]):
    v, s, g = line.split()
    if g != "failed":
        d[(s, v)].append(float(g))
for s in dict.fromkeys(k[0] for k in d):
    a, b = d.get((s, "1"), []), d.get((s, "2"), [])
    if not a or not b:
        print(f"{s:24s} failed in one variant")
        continue
    print(f"{s:24s} A {st.median(a):7.1f} [{min(a):.0f}-{max(a):.0f}]  B {st.median(b):7.1f} [{min(b):.0f}-{max(b):.0f}]"
          f"  B/A {st.median(b) / st.median(a):.2f}")
P
