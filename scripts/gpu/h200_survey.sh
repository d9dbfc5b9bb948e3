#!/usr/bin/env bash
# h200_survey.sh — on the GPU host: clforge against cuBLAS (torch.matmul, same script) on random shapes of every
# class (fp32: square, transposes, batched, odd, tall-skinny, thin; f16: large, mid-sized M, batched, odd), drawn
# from $SEED so that no list of ours decides what is measured. Groups run one bench_gemm_mixed call and one
# torch_gemm.py call each; summarize_survey.py pairs them (× cuBLAS per row, worst classes first).
#   SEED     the draw (default 1); CLASSES  a subset of the class names below (default all)
. scripts/gpu/common.sh
gpu_session survey
SEED=${SEED:-1}
B=bench/bench_gemm_mixed
python3 - "$SEED" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
def r(lo, hi): return rnd.randint(lo, hi)
groups = []   # class mode flags batch shapes
def add(cls, mode, flags, batch, shapes):
    groups.append((cls, mode, flags or "-", batch, " ".join("%dx%dx%d" % s for s in shapes)))
for flags in ("", "--bt", "--at", "--at --bt"):
    add("f32-large" + flags.replace(" ", "").replace("--", "-"), "f32", flags, 1, [(r(1500, 6000), r(1500, 6000), r(1000, 6000)) for _ in range(3)])
add("f32-odd", "f32", "", 1, [(r(200, 1500), r(200, 1500), r(200, 2000)) for _ in range(4)])
add("f32-skinny", "f32", "", 1, [(r(17, 200), r(2000, 8000), r(2000, 8000)) for _ in range(2)] + [(r(2000, 8000), r(17, 200), r(2000, 8000)) for _ in range(2)])
add("f32-thin", "f32", "", 1, [(r(2, 16), r(2000, 8000), r(2000, 8000)) for _ in range(2)] + [(r(2000, 8000), r(2, 16), r(2000, 8000)) for _ in range(2)])
add("f32-thin-at", "f32", "--at", 1, [(r(2000, 8000), r(2, 16), r(2000, 8000)) for _ in range(3)])
for _ in range(3):
    s = (r(48, 512), r(48, 512), r(32, 512))
    add("f32-batched" + rnd.choice(["", "-bt"]), "f32", "", max(8, (1 << 32) // (2 * s[0] * s[1] * s[2]) // 8 * 8), [s])
for i, g in enumerate(groups):
    if g[0] == "f32-batched-bt": groups[i] = (g[0], g[1], "--bt", g[3], g[4])
add("f16-large", "f16h", "--bt", 1, [(r(2000, 8192), r(2000, 8192), r(2000, 8192)) for _ in range(3)])
add("f16-large-nn", "f16h", "", 1, [(r(2000, 8192), r(2000, 8192), r(2000, 8192)) for _ in range(2)])
add("f16-midm", "f16h", "--bt", 1, [(r(17, 1024), r(3000, 14336), r(2048, 8192)) for _ in range(4)])
add("f16-odd", "f16h", "--bt", 1, [(r(300, 2000), r(300, 2000), r(300, 2000)) for _ in range(3)])
for _ in range(2):
    s = (r(64, 1024), r(64, 1024), r(64, 512))
    add("f16-batched", "f16h", "--bt", max(8, (1 << 34) // (2 * s[0] * s[1] * s[2]) // 8 * 8), [s])
for i, g in enumerate(groups): print("%02d-%s" % (i, g[0]), *g[1:], sep="|")
PY
want=${CLASSES:-}
while IFS='|' read -r cls mode flags batch shapes; do
  [ -n "$want" ] && ! echo " $want " | grep -q " ${cls#*-} " && continue
  [ "$flags" = - ] && flags=""
  sh=""; for s in $shapes; do sh="$sh --shape $s"; done
  td=${mode%h}
  say "-- $cls $mode ${flags:-NN} batch $batch"
  timeout 120 $B --device gpu --modes $mode $flags --batch $batch --reps 10 $sh --json $r/clf-$cls.json 2>&1 | grep -E "GFLOP|rror" | cut -c1-100 | tee -a "$log"
  timeout 120 python3 ../bench/torch_gemm.py --dtype $td $flags --batch $batch $sh --json $r/cublas-$cls.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
done < $r/groups.txt
python3 ../scripts/gpu/summarize_survey.py $r | tee -a "$log"
# The JSON files come back in results.tgz: copied one by one they passed the device tool's 8-file limit, which then
# left results.tgz out too.
date -u | tee -a "$log"
