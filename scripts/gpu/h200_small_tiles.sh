#!/usr/bin/env bash
# h200_small_tiles.sh — on the GPU host: fp32 products that fill the device poorly (odd medium sizes, skinny
#   long-K products) under the tiled kernel's shipped configurations and under small-tile configurations with
#   larger register tiles (8 x 8 or 16 x 8 accumulators a work-item where the shipped small tiles hold 8 x 4),
#   each forced through CLFORGE_GEMM_CONFIG, against the planner's own choice and cuBLAS (torch, same script).
#   Shapes are drawn from each seed of $SEED (default 11) per class, so no list of ours decides them; SHAPES
#   overrides. CONFIGS: names from the table below (default all); UNSPLIT=1 runs the forced ones unsplit
#   (CLFORGE_GEMM_SPLIT_K=1, CLFORGE_GEMM_WG_PER_CU=off), as tile_rates.sh measured them. REDUCE=1 also sweeps
#   the row kernel's configuration on the layer norm and softmax (bench_reduce --shapes, CLFORGE_REDUCE_CONFIG).
. scripts/gpu/common.sh
gpu_session small-tiles
SEED=${SEED:-11}
SHAPES=${SHAPES:-$(python3 - $SEED <<'PY'
import random, sys
s = []
for seed in sys.argv[1:]:
  rnd = random.Random(int(seed)); r = rnd.randint
  s += [(r(200, 1500), r(200, 1500), r(200, 2000)) for _ in range(4)]            # odd
  s += [(r(1000, 2600), r(1000, 2600), r(500, 3000)) for _ in range(3)]         # medium
  s += [(r(17, 200), r(2000, 8000), r(2000, 8000)), (r(2000, 8000), r(17, 200), r(2000, 8000))]   # skinny
print(" ".join("%dx%dx%d" % x for x in s))
PY
)}
say "shapes: $SHAPES"
sh=""; for s in $SHAPES; do sh="$sh --shape $s"; done
declare -A C=(
  [L]="${F32_CFG[large]}"
  [M]="${F32_CFG[medium]}"
  [S]="${F32_CFG[skinny]}"
  [s64x64t64]="MWG=64 NWG=64 KWG=32 MDIMC=8 NDIMC=8 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1"
  [s64x64t32]="MWG=64 NWG=64 KWG=32 MDIMC=4 NDIMC=8 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1"
  [M8]="${F32_CFG[m8]}"
  [M8T]="${F32_CFG[m8t]}"
  [s128x64t64]="MWG=128 NWG=64 KWG=16 MDIMC=8 NDIMC=8 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1"
  [s64x128t64]="MWG=64 NWG=128 KWG=16 MDIMC=8 NDIMC=8 VWM=4 VWN=4 KWI=8 PADA=4 PADB=0 DBUF=1"
  [s128x128t256]="MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=16 VWM=4 VWN=4 KWI=8 PADA=4 PADB=0 DBUF=1"
  [s64x32t32]="MWG=64 NWG=32 KWG=32 MDIMC=8 NDIMC=4 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1"
  [s32x64t32]="MWG=32 NWG=64 KWG=32 MDIMC=4 NDIMC=8 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1"
)
say "== planner"
f32_bench planner $sh --json $r/planner.json
unsplit=(); [ "${UNSPLIT:-0}" = 1 ] && unsplit=(CLFORGE_GEMM_SPLIT_K=1 CLFORGE_GEMM_WG_PER_CU=off)
for c in ${CONFIGS:-L M S s64x64t64 s64x64t32 M8 M8T s128x64t64 s64x128t64 s128x128t256 s64x32t32 s32x64t32}; do
  env "${unsplit[@]}" CLFORGE_GEMM_CONFIG="${C[$c]}" timeout 120 bench/bench_gemm_mixed --device gpu --modes f32 --reps 10 $sh \
    --json $r/cfg-$c.json 2>&1 | grep -E "GFLOP|rror" | cut -c1-90 | sed "s/^/$c | /" | tee -a "$log"
done
say "== cuBLAS"
timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $sh --json $r/cublas.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
if [ "${REDUCE:-0}" = 1 ]; then
  rs=""; for s in ${RSHAPES:-8192x8192 16384x4096 4096x16384 32768x2048}; do rs="$rs --shape $s"; done
  for c in "" "WG=256 LPL=256" "WG=512 LPL=512" "WG=1024 LPL=1024" "WG=256 LPL=128"; do
    say "-- reduce '${c:-shipped}'"
    CLFORGE_REDUCE_CONFIG="$c" timeout 200 bench/bench_reduce --device gpu --shapes $rs 2>&1 | grep -E "x [0-9]+ " |
      sed "s/^/${c:-shipped} | /" | tee -a "$log"
  done
fi
date -u | tee -a "$log"
