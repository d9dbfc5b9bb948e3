#!/usr/bin/env bash
# h200_mma.sh — on the GPU host, from the repository root: the mixed-precision suite on every device, then
# clforge's compute modes against cuBLAS (PyTorch) at the same shapes, in the same run.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache
date -u
./clforge devices 2>&1 | head -8
shapes=${MMA_SHAPES:---shape 4096x4096x4096 --shape 8192x8192x8192}
timeout 240 bench/bench_gemm_mixed --device gpu --bt $shapes --json $r/mixed-h200.json 2>&1 | tail -20
for d in ${TORCH_DTYPES:-f16 bf16 tf32 f32 f64}; do
  timeout 120 python3 ../bench/torch_gemm.py --dtype $d --bt $shapes --json $r/torch-$d.json 2>&1 | tail -3
done
( timeout 300 tests/test_gemm_mixed ) > $r/test-mixed.log 2>&1; grep -E "gemm_mixed|Checks|mixed gemm|warning" $r/test-mixed.log | head -20
date -u
