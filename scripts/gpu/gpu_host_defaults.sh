#!/usr/bin/env bash
# gpu_host_defaults.sh — run on the GPU host: tunes map and copy on the H200 and every family on the host's
# PoCL (16 Xeon cores) from empty caches, and leaves the tuning databases in $OUT, from which the shipped
# defaults in autotune/defaults/ are made.
. scripts/gpu/common.sh
gpu_build clforge_cli
date -u
rm -rf /tmp/h200 /tmp/xeon
CLFORGE_CACHE_DIR=/tmp/h200 timeout 120 ./clforge tune --device nvidia --family map,copy --precision f32 --budget 25 \
  --json "$out/tune-h200-mapcopy.json" 2>&1 | grep -v "^\[" | tail -5
CLFORGE_CACHE_DIR=/tmp/xeon timeout 330 ./clforge tune --device pocl --family gemm,map,copy --precision f32 --budget 90 \
  --json "$out/tune-pocl-xeon16.json" 2>&1 | grep -v "^\[" | tail -9
cp /tmp/h200/tuning/*.json "$out/db-h200.json"; cp /tmp/xeon/tuning/*.json "$out/db-pocl-xeon16.json"
