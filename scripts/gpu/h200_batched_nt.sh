#!/usr/bin/env bash
# h200_batched_nt.sh — on the GPU host: batched and single A·Bᵀ (and batched A·B) fp32 products under the
# shipped plan and under forced configurations (CLFORGE_GEMM_CONFIG), with B packed K-major first (the GPU
# default) or read in place (CLFORGE_GEMM_NT_PACK=0); cuBLAS in the same run. Appends to $out/batched-nt.txt.
. scripts/gpu/common.sh
gpu_session batched-nt
here=$PWD/..
B=bench/bench_gemm_mixed
configs=("shipped"
  "MWG=64 NWG=32 KWG=16 MDIMC=8 NDIMC=8 VWM=2 VWN=4 KWI=16 PADA=2 PADB=4 DBUF=1"
  "MWG=64 NWG=64 KWG=16 MDIMC=8 NDIMC=8 VWM=4 VWN=4 KWI=8 PADA=4 PADB=0 DBUF=1"
  "MWG=64 NWG=64 KWG=32 MDIMC=8 NDIMC=16 VWM=2 VWN=4 KWI=16 PADA=2 PADB=0 DBUF=1"
  "MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=8 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1")
while read -r flags; do
  say "== $flags | $(timeout 60 python3 $here/bench/torch_gemm.py --dtype f32 $flags 2>&1 | grep cuBLAS)"
  for c in "${configs[@]}"; do
    for pack in auto 0; do
      t=$( ( [ "$c" != shipped ] && export CLFORGE_GEMM_CONFIG="$c"; [ $pack = 0 ] && export CLFORGE_GEMM_NT_PACK=0
             timeout 60 $B --device gpu --modes f32 --reps 7 $flags ) 2>&1 | grep -E "GFLOP|rror" | tail -1 | awk '{print $(NF-5), $(NF-4)}')
      say "  pack=$pack ${c:0:22} | $t"
    done
  done
done <<'L'
--batch 512 --bt --shape 128x128x64
--batch 256 --bt --shape 256x256x64
--batch 64 --bt --shape 256x256x256
--batch 128 --bt --shape 512x512x64
--batch 512 --shape 128x64x128
--bt --shape 1024x1024x1024
--bt --shape 4096x4096x4096
L
