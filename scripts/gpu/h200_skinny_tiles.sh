#!/usr/bin/env bash
# h200_skinny_tiles.sh — on the GPU host: which tiles and K splits run skinny and odd-sized fp32 products fastest.
#   PART=sweep   every configuration in CFGS (128 x 128 down to 64 x 64, with 64 or 128 work-items; a config
#                forced by CLFORGE_GEMM_CONFIG) times every forced split in SPLITS over SHAPES, the planner's own
#                choice and cuBLAS (torch.matmul) in the same script. The planner's per-configuration cost model is
#                drawn from this.
#   PART=ab      this build against the one in .old (a worktree of the commit before), alternating rounds, over
#                ABSHAPES (products in no list above), cuBLAS once, after test_gemm and test_gemm_plan on the H200;
#                with FSHAPES, those products also with CLFORGE_GEMM_SPLIT_K=FSPLIT (default 5) in the same rounds,
#                to check where the rule declines to split; with VARIANTS (LABEL:VAR=VALUE ...), this build again
#                with VAR set in each round.
. scripts/gpu/common.sh
gpu_session skinny-tiles
PART=${PART:-sweep}
declare -A CFG=(
  [L128x128]="${F32_CFG[large]}"
  [T128x64]="MWG=128 NWG=64 KWG=16 MDIMC=16 NDIMC=8 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1"
  [W64x128]="MWG=64 NWG=128 KWG=16 MDIMC=8 NDIMC=16 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1"
  [X128x96]="MWG=128 NWG=96 KWG=16 MDIMC=16 NDIMC=8 VWM=4 VWN=4 KWI=8 PADA=4 PADB=0 DBUF=1"
  [Y96x128]="MWG=96 NWG=128 KWG=16 MDIMC=8 NDIMC=16 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1"
  [S64x64]="${F32_CFG[skinny]}"
  [Q64x64t64]="MWG=64 NWG=64 KWG=16 MDIMC=8 NDIMC=8 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1"
  [M64x128]="${F32_CFG[medium]}"
)
if [ "$PART" = sweep ]; then
  SHAPES=${SHAPES:-"92x2990x4725 4485x89x6813 6159x188x3555 199x6102x5457 3300x70x5000 150x4200x3600 2700x130x4100 48x6000x5000 404x580x1488 672x648x1758 1141x793x244 530x410x1700 820x760x1300"}
  sh=""; for s in $SHAPES; do sh="$sh --shape $s"; done
  say "== cuBLAS"
  timeout 150 python3 ../bench/torch_gemm.py --dtype f32 $sh --json $r/cublas.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
  f32_bench "rule" $sh --json $r/rule.json
  for c in ${CFGS:-L128x128 T128x64 W64x128 S64x64 Q64x64t64 M64x128}; do   # X, Y: refused (96 is no tile size)
    for sp in ${SPLITS:-1 2 4 6 8 12}; do
      CLFORGE_GEMM_CONFIG="${CFG[$c]}" CLFORGE_GEMM_SPLIT_K=$sp f32_bench "$c s$sp" $sh
    done
  done
fi
if [ "$PART" = ab ]; then
  gemm_suites 200
  old_build bench_gemm_mixed
  ss=""; for s in ${ABSHAPES:?}; do ss="$ss --shape $s"; done
  say "== cuBLAS"
  timeout 150 python3 ../bench/torch_gemm.py --dtype f32 $ss --json $r/cublas-ab.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
  for round in 1 2; do
    for v in old new; do
      d=.; [ $v = old ] && d=../.old/build-gpu
      B=$d/bench/bench_gemm_mixed CLFORGE_CACHE_DIR=/tmp/clf-cache-ab-$v f32_bench "$v r$round" $ss --json $r/ab-$v-$round.json
    done
    for x in ${VARIANTS:-}; do   # LABEL:VAR=VALUE, this build with VAR set (a rule switched off, for the A/B)
      ( export "${x#*:}"; CLFORGE_CACHE_DIR=/tmp/clf-cache-ab-new f32_bench "${x%%:*} r$round" $ss --json $r/ab-${x%%:*}-$round.json )
    done
    if [ -n "${FSHAPES:-}" ]; then
      fs=""; for s in $FSHAPES; do fs="$fs --shape $s"; done
      CLFORGE_CACHE_DIR=/tmp/clf-cache-ab-new CLFORGE_GEMM_SPLIT_K=${FSPLIT:-5} f32_bench "split=${FSPLIT:-5} r$round" $fs
    fi
  done
fi
date -u | tee -a "$log"
