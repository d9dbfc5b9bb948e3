#!/usr/bin/env bash
# h200_few_row_tiles.sh — on the GPU host: few-row fp32 products (C of 17-127 rows, thousands of columns, long K) on
#   the direct kernel with tiles of 16 to 112 rows forced (CLFORGE_GEMM_CONFIG, CLFORGE_GEMM_PACK=off), against the
#   planner's own choice (the skinny bucket's 64 x 64 tiles) and cuBLAS in the same script: how much of the gap to
#   cuBLAS is C's rows padded up to the tile. SHAPES (FLAGS|BATCH|MxNxK lines, a file) overrides the list below;
#   TILESET and SPLITS choose the forced tilings and K splits, PACK=on lets the forced ones pack (default off), NO_CUBLAS=1
#   skips cuBLAS.
. scripts/gpu/common.sh
gpu_session ${NAME:-few-row-tiles}
cat > $r/groups.txt <<'L'
-|1|20x5000x4000
-|1|34x4170x3268
-|1|42x6869x3525
-|1|58x4157x2710
-|1|74x6165x7079
-|1|90x5120x4096
-|1|99x3001x6113
-|1|115x6000x3000
--bt|1|41x4419x2746
--bt|1|74x5000x4001
L
[ -n "${SHAPES:-}" ] && cp "../$SHAPES" $r/groups.txt
cat $r/groups.txt >> "$log"
# The skinny entry's tiles with C's rows per tile changed (8 x 16 work-items, 2 x 4 vectors, KWG 32), and tiles of
# 256 work-items (more warps a compute unit for products of few tiles): t256 64 x 64, t256n 64 x 128 (KWG 16), m32w
# 32 x 128; and tiles of more accumulators a work-item (128 work-items each): large (the large entry's 128 x 128, 8 x 16),
# m8 64 x 128 and m8t 128 x 64 (8 x 8), w256 32 x 256 (8 x 8).
base="KWG=32 MDIMC=8 NDIMC=16 VWM=2 VWN=4 KWI=16 PADA=2 PADB=0 DBUF=1"
declare -A TILES=([m16]="MWG=16 NWG=128 $base" [m32]="MWG=32 NWG=128 $base" [m48]="MWG=48 NWG=64 $base"
                  [m64]="MWG=64 NWG=64 $base" [m80]="MWG=80 NWG=64 $base" [m96]="MWG=96 NWG=64 $base"
                  [m112]="MWG=112 NWG=64 $base"
                  [t256]="MWG=64 NWG=64 KWG=32 MDIMC=16 NDIMC=16 VWM=2 VWN=2 KWI=16 PADA=2 PADB=0 DBUF=1"
                  [t256n]="MWG=64 NWG=128 KWG=16 MDIMC=16 NDIMC=16 VWM=2 VWN=4 KWI=16 PADA=2 PADB=0 DBUF=1"
                  [m32w]="MWG=32 NWG=128 KWG=32 MDIMC=8 NDIMC=32 VWM=2 VWN=4 KWI=16 PADA=2 PADB=0 DBUF=1"
                  [large]="${F32_CFG[large]}" [m8]="${F32_CFG[m8]}" [m8t]="${F32_CFG[m8t]}"
                  [w256]="MWG=32 NWG=256 KWG=16 MDIMC=4 NDIMC=32 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1")
# A forced configuration is never split along K: SPLITS (e.g. "2 4 8") adds each tiling with CLFORGE_GEMM_SPLIT_K.
# (The family takes MWG from 16, 32, 64, 128, 256: m48, m80, m96 and m112 are refused, and so reported as errors.)
while IFS='|' read -r flags batch s; do
  [ "$flags" = - ] && flags=""
  f32_bench planner $flags --batch "$batch" --shape "$s"
  for t in ${TILESET:-m16 m32 m48 m64 m80 m96 m112}; do
    for sk in ${SPLITS:-1}; do
      CLFORGE_GEMM_SPLIT_K=$sk CLFORGE_GEMM_PACK=${PACK:-off} CLFORGE_GEMM_CONFIG="${TILES[$t]}" \
        f32_bench "$t-s$sk" $flags --batch "$batch" --shape "$s"
    done
  done
done < $r/groups.txt
[ -z "${NO_CUBLAS:-}" ] && cublas_groups $r/groups.txt
date -u | tee -a "$log"
