#!/usr/bin/env bash
# h200_tune.sh — run on the GPU host: tunes GEMM f32 on the H200
# from an empty cache with a 60 s budget and with a longer one, measures each result at 1024 and 4096
# next to the shipped default, and benches the host's PoCL (16 Xeon cores). Results go to $OUT.
. scripts/gpu/common.sh
long=${LONG_BUDGET:-180}
gpu_build
date -u
for b in 60 "$long"; do
  rm -rf "/tmp/tune$b"
  echo "== clforge tune --family gemm --budget $b (empty cache)"
  /usr/bin/time -f "wall %e s" env CLFORGE_CACHE_DIR="/tmp/tune$b" ./clforge tune --device nvidia --family gemm \
    --precision f32 --bucket medium,large --budget "$b" --json "$out/tune$b-h200.json" 2>&1 | grep -v "^\[" | tail -6
done
for c in shipped 60 "$long"; do
  echo "== $c configuration at 1024 and 4096"
  dir=/tmp/tune$c; [ "$c" = shipped ] && dir=/tmp/empty-cache
  CLFORGE_CACHE_DIR=$dir bench/bench_gemm --device nvidia --no-clblast --shape 1024x1024x1024 --shape 4096x4096x4096 \
    --json "$out/tuned-$c-h200.json" 2>&1 | tail -3
done
echo "== clforge bench on the GPU host's PoCL"
timeout 200 ./clforge bench --device pocl --quick --json "$out/bench-pocl-xeon16.json" 2>/dev/null | tail -30
echo "== PyTorch maps (eager, torch.compile)"
timeout 90 python3 ../bench/torch_map.py --json "$out/torch-map-h200.json" 2>&1 | tail -8
