#!/usr/bin/env bash
# h200_final.sh — on the GPU host, from the repository root: tunes the skinny GEMM bucket (90 s; its
# result goes to the shipped defaults), then in one cache directory and one script: test_gemm, the full
# `clforge bench` (clforge and CLBlast in one process), and cuBLAS through PyTorch on the same shapes
# plus the shapes near the bucket boundaries (bench_gemm vs CLBlast, torch_gemm.py).
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache
date -u
echo "== clforge tune --bucket skinny --budget 90"
./clforge tune --device nvidia --family gemm --precision f32 --bucket skinny --budget 90 --json $r/tune-skinny-h200.json 2>&1 | grep -v "^gemm f32"
cp $CLFORGE_CACHE_DIR/tuning/*.json $r/tunedb-h200.json
echo "== test_gemm"
CLFORGE_TEST_DEVICES=0:0 CLFORGE_GEMM_TEST_CASES=600 timeout 60 tests/test_gemm 2>&1 | tail -2
echo "== clforge bench"
timeout 150 ./clforge bench --device nvidia --json $r/bench-h200.json 2>/dev/null | grep -E "gemm|roofline"
echo "== cuBLAS on the bench's shapes"
timeout 60 python3 ../bench/torch_gemm.py --json $r/cublas-gemm-h200.json 2>&1 | grep -E "^ *[0-9]+x"
args=; for s in 544x544x544 1536x1536x1536 1024x3072x704 256x4096x4096 128x8192x8192; do args="$args --shape $s"; done
echo "== boundary shapes: clforge vs CLBlast, then cuBLAS"
timeout 60 bench/bench_gemm --device nvidia $args --json $r/boundary-h200.json 2>&1 | grep -E "^ *[0-9]+x" | cut -c1-100
timeout 40 python3 ../bench/torch_gemm.py $args --json $r/cublas-boundary-h200.json 2>&1 | grep -E "^ *[0-9]+x"
date -u
