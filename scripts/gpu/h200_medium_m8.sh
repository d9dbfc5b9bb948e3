#!/usr/bin/env bash
# h200_medium_m8.sh — on the GPU host: a candidate fp32 medium entry (64 x 128 tiles, 8 x 8 accumulators a
#   work-item, 128 work-items: M8 below) against the shipped one (8 x 4, 256 work-items). Measures the candidate's
#   wg_per_cu and tile_ns (bench_gemm --waves, forced by CLFORGE_GEMM_CONFIG), writes it with them into this
#   checkout's autotune/defaults/nvidia-h200.json (a copy comes back as $out/nvidia-h200.json), rebuilds, then times
#   the build before (.old, carried) and this one in alternating rounds on products drawn from SEED (medium-sized
#   C, NN and A.B^T), batches and fixed products; cuBLAS through PyTorch in the same script. TESTS=N first runs
#   test_gemm's N random cases and test_gemm_plan on the GPU with the candidate.
. scripts/gpu/common.sh
gpu_session medium-m8
old_build bench_gemm_mixed
M8="MWG=64 NWG=128 KWG=16 MDIMC=8 NDIMC=16 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1"
say "shipped medium:"; timeout 120 bench/bench_gemm --device gpu --waves medium 2>&1 | tee -a "$log" > /dev/null
say "candidate $M8:"
CLFORGE_GEMM_CONFIG="$M8" timeout 120 bench/bench_gemm --device gpu --waves medium 2>&1 | tee -a "$log" > $r/m8-waves.txt
python3 - ../autotune/defaults/nvidia-h200.json $r/m8-waves.txt "$M8" <<'PY' | tee -a "$log"
import json, re, sys
path, got, cfg = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
w = re.search(r"wg_per_cu (\d+)", got); t = re.search(r'"tile_ns": \[(.*)\]', got)
if not (w and t):
    sys.exit("no waves figures for the candidate")
d = json.load(open(path))
e = d["tuned"]["gemm"]["f32"]["medium"]
src = "bench_gemm --waves (scripts/gpu/h200_medium_m8.sh, 2026-12-04)"
e.update({"config": cfg, "wg_per_cu": int(w.group(1)), "tile_ns": [int(x) for x in t.group(1).split(",")],
          "wg_per_cu_source": src, "tile_ns_source": src,
          "chosen_by": "A/B against the tuned entry on drawn products (scripts/gpu/h200_medium_m8.sh, 2026-12-04)"})
json.dump(d, open(path, "w"), indent=2)
open(path, "a").write("\n")
print("medium entry replaced: wg_per_cu", w.group(1))
PY
cp ../autotune/defaults/nvidia-h200.json "$out/"
cmake --build . -j16 > $r/rebuild.log 2>&1 || { say "rebuild failed"; exit 1; }
[ -n "${TESTS:-}" ] && gemm_suites "$TESTS"
python3 - "${SEED:-61}" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1])); r = rnd.randint
n = 0
while n < 12:   # C of at most 3.7 M elements (the medium bucket's on 132 units), both sides 300 or more
    m, c, k = r(300, 2600), r(300, 2600), r(400, 3000)
    if m * c <= 3700000:
        print("--bt" if n % 3 == 2 else "-", 1, "%dx%dx%d" % (m, c, k), sep="|"); n += 1
for f, b, s in (("-", 1, "2257x1381x885"), ("-", 1, "1914x1621x1080"), ("-", 1, "1024x1024x1024"),
                ("-", 1, "777x1555x999"), ("-", 1, "1412x828x1067"), ("-", 72, "434x270x233"), ("-", 56, "354x303x343"),
                ("-", 1, "4096x4096x4096"), ("-", 1, "2000x3000x1000"), ("--bt", 1, "64x6114x6524")):
    print(f, b, s, sep="|")
PY
cat $r/groups.txt >> "$log"
ab_groups $r/groups.txt
cublas_groups $r/groups.txt
date -u | tee -a "$log"
