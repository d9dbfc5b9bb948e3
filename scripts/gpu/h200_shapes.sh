#!/usr/bin/env bash
# h200_shapes.sh — on the GPU host: SGEMM on shape classes beyond square NN (transposes, odd sizes, batches)
# and matrix-vector, clforge then cuBLAS (PyTorch) in the same run, one class at a time.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache-shapes
run() {   # name, flags..., then --shape
  local name=$1; shift
  timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 "$@" --json $r/shape-$name.json 2>&1 | grep GFLOP | sed "s/^/clforge /"
  timeout 60 python3 ../bench/torch_gemm.py --dtype f32 "$@" --json $r/cublas-$name.json 2>&1 | grep cuBLAS | sed "s/^/cublas  /"
}
run nt --bt --shape 4096x4096x4096
run tt --at --bt --shape 2000x3000x1000
run nn3072 --shape 3072x3072x3072
run odd --shape 777x1555x999
run b64 --batch 64 --shape 256x256x256
run b512 --batch 512 --shape 128x64x128
run b512nt --batch 512 --bt --shape 128x128x64
run mv --shape 1x4096x4096
if [ -x bench/bench_gemv ]; then timeout 60 bench/bench_gemv --device gpu --json $r/gemv-h200.json 2>&1 | tail -12; fi
