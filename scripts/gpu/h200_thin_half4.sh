#!/usr/bin/env bash
# h200_thin_half4.sh — on the GPU host: the final thin typed rule (gemv kernels for K-major weights and for
# matrix-vector products, 16-byte loads of 16-bit weights) against main before the thin work (.old), NN and NT,
# and cuBLAS in the same script; test_gemm_mixed first. Appends to $out/thin-half4.txt.
. scripts/gpu/common.sh
gpu_session thin-half4
CLFORGE_TEST_DEVICES=0:0 timeout 120 tests/test_gemm_mixed > $r/test_gemm_mixed.log 2>&1; say "test_gemm_mixed rc=$? $(tail -1 $r/test_gemm_mixed.log)"
cd ..; ( cd .old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target bench_gemm_mixed > $r/old-build.log 2>&1 ) || say "old build failed"
cd build-gpu
sh=""; for x in 1x4096x4096 4x4096x4096 16x4096x4096 1x14336x4096 4096x1x4096 8x8192x8192; do sh="$sh --shape $x"; done
for lay in "" "--bt"; do
  for v in old new; do
    b=bench/bench_gemm_mixed; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
    say "-- $v ${lay:-NN}"
    CLFORGE_CACHE_DIR=/tmp/clf-cache-th4-$v timeout 60 $b --device gpu $lay --modes f16h,bf16h --reps 30 $sh --json $r/th-$v${lay}.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  done
  timeout 60 python3 ../bench/torch_gemm.py --dtype f16 $lay $sh --json $r/cublas-f16${lay}.json 2>&1 | grep cuBLAS | tee -a "$log"
done
