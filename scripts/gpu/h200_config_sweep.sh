#!/usr/bin/env bash
# h200_config_sweep.sh — on the GPU host, from the repository root: which of the shipped H200 GEMM
# configurations (medium 64x128, large 128x128, skinny 32x64) is fastest for shapes near the bucket
# boundaries, each pinned through CLFORGE_GEMM_CONFIG. Decides the bucket rules in host/gemm/gemm_family.c.
. scripts/gpu/common.sh
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache
M="MWG=64 NWG=128 KWG=16 MDIMC=8 NDIMC=32 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1"
L="MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=8 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1"
S="MWG=32 NWG=64 KWG=32 MDIMC=8 NDIMC=16 VWM=4 VWN=4 KWI=8 PADA=4 PADB=4 DBUF=1"
args=; for s in 1000x3000x700 1024x3072x704 1536x1536x1536 2048x2048x2048 1024x4096x1024 4096x1024x4096 \
  2048x2048x512 64x4096x4096 256x4096x4096 512x4096x4096 128x8192x8192; do args="$args --shape $s"; done
for c in M L S; do
  echo "== $c: ${!c}"
  CLFORGE_GEMM_CONFIG="${!c}" timeout 60 bench/bench_gemm --device nvidia --no-clblast $args \
    --json $out/sweep-$c.json 2>&1 | grep -E "^ *[0-9]+x" | cut -c1-60
done
