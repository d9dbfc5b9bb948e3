#!/usr/bin/env bash
# h200_wide.sh — on the GPU host: products of 9-16 vectors in their own gemv buckets (wide_rows, wide_cols):
# the heuristic first, then a 30 s tune of each in f32 and f64, the products again in every orientation and
# fp64, cuBLAS in the same script, and test_gemv on the H200. The tuning database comes back in results.tgz.
. scripts/gpu/common.sh
gpu_session wide
thin="--shape 4096x16x4096 --shape 4096x12x4096 --shape 3000x11x6000 --shape 8192x16x2048 --shape 4096x8x4096 --shape 16x4096x4096 --shape 12x8192x2048 --shape 8x4096x4096 --shape 2048x10x8192 --shape 14x6000x3000"
gemv_bench "heuristic for the wide buckets"
say "== tune"
timeout 200 ./clforge tune --device gpu --family gemv --bucket wide_rows,wide_cols --precision f32,f64 --budget 30 \
  --json $r/tune-wide.json 2>&1 | grep -v "^\[" | tail -8 | tee -a "$log"
cp -r $CLFORGE_CACHE_DIR/tuning $r/ 2>/dev/null
for o in "" "--trans-b" "--trans"; do
  gemv_bench "tuned $o" $o
done
gemv_bench "tuned --f64" --f64
say "== cuBLAS"
timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $thin --json $r/cublas.json 2>&1 | grep cuBLAS | tee -a "$log"
CLFORGE_TEST_DEVICES=0:0 timeout 200 ctest -R "test_gemv" --output-on-failure 2>&1 | tail -4 | tee -a "$log"
date -u | tee -a "$log"
