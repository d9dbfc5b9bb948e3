#!/usr/bin/env bash
# h200_thin.sh — on the GPU host, from the repository root: tunes the thin GEMM bucket on the H200 (60 s;
# the result goes to the shipped defaults), then times the thin shapes against CLBlast (bench_gemm, with
# that result) and cuBLAS (PyTorch) in this one script.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache
date -u
./clforge tune --device nvidia --family gemm --precision f32 --bucket thin --budget 60 --json $r/tune-thin-h200.json 2>&1 | grep -v "^gemm f32"
cp $CLFORGE_CACHE_DIR/tuning/*.json $r/tunedb-thin-h200.json
args=; for s in 128x4096x4096 256x4096x4096 384x4096x4096 128x8192x8192 256x8192x2048; do args="$args --shape $s"; done
timeout 60 bench/bench_gemm --device nvidia $args --json $r/thin-h200.json 2>&1 | grep -E "^ *[0-9]+x" | cut -c1-100
timeout 40 python3 ../bench/torch_gemm.py $args --json $r/cublas-thin-h200.json 2>&1 | grep -E "^ *[0-9]+x"
date -u
