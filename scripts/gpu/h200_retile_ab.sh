#!/usr/bin/env bash
# h200_retile_ab.sh — on the GPU host: measures the shipped fp32 medium, large and skinny entries' tile times
#   (bench_gemm --waves: wg_per_cu and tile_ns), writes them into this checkout's autotune/defaults/nvidia-h200.json
#   (a copy comes back as $out/nvidia-h200.json), rebuilds, then times the planner with the tile rule
#   (default) against CLFORGE_GEMM_TILES=bucket in alternating rounds on drawn shapes (NN from SEEDS, A.B^T from
#   BT_SEED) and fixed ones, cuBLAS (torch) in the same script. NOMEASURE=1 keeps the file as it is; TESTS=N first
#   runs test_gemm's N random cases and test_gemm_plan on the GPU.
. scripts/gpu/common.sh
gpu_session retile
[ -n "${TESTS:-}" ] && gemm_suites "$TESTS"
if [ -z "${NOMEASURE:-}" ]; then
  timeout 200 bench/bench_gemm --device gpu --waves medium,large,skinny 2>&1 | tee -a "$log" | grep tile_ns > $r/tile_ns.txt
  python3 - ../autotune/defaults/nvidia-h200.json $r/tile_ns.txt <<'PY' | tee -a "$log"
import json, re, sys
path, got = sys.argv[1], open(sys.argv[2]).read().split("\n")
d = json.load(open(path))
for line in got:
    m = re.match(r'(\w+)\s+"tile_ns": \[(.*)\]', line)
    if m:
        d["tuned"]["gemm"]["f32"][m.group(1)]["tile_ns"] = [int(x) for x in m.group(2).split(",")]
        print("tile_ns stored for", m.group(1))
json.dump(d, open(path, "w"), indent=2)
open(path, "a").write("\n")
PY
  cp ../autotune/defaults/nvidia-h200.json "$out/"
  cmake --build . -j16 > $r/rebuild.log 2>&1 || { say "rebuild failed"; exit 1; }
fi
draw() { python3 - "$@" <<'PY'
import random, sys
s = []
for seed in sys.argv[1:]:
  rnd = random.Random(int(seed)); r = rnd.randint
  s += [(r(200, 1500), r(200, 1500), r(200, 2000)) for _ in range(4)]
  s += [(r(1000, 3000), r(1000, 3000), r(500, 3000)) for _ in range(3)]
  s += [(r(17, 200), r(2000, 8000), r(2000, 8000)), (r(2000, 8000), r(17, 200), r(2000, 8000))]
print(" ".join("--shape %dx%dx%d" % x for x in s))
PY
}
nn=$(draw ${SEEDS:-21 22 23}); bt=$(draw ${BT_SEED:-24})
fixed="--shape 4096x4096x4096 --shape 3072x3072x3072 --shape 2000x3000x1000 --shape 777x1555x999 --shape 8192x8192x8192 --shape 1024x1024x1024"
for round in 1 2; do
  for k in old new; do
    for set in nn fixed bt; do
      flags=; [ $set = bt ] && flags=--bt
      ( [ $k = old ] && export CLFORGE_GEMM_TILES=bucket
        f32_bench "$k-$set-r$round" $flags ${!set} --json $r/$k-$set-r$round.json )
    done
  done
done
for set in nn fixed bt; do
  flags=; [ $set = bt ] && flags=--bt
  say "== cuBLAS $set"
  timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $flags ${!set} --json $r/cublas-$set.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
done
date -u | tee -a "$log"
