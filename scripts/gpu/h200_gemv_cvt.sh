#!/usr/bin/env bash
# h200_gemv_cvt.sh — on the GPU host: f16 widening in the gemv kernels by the hardware's cvt.f32.f16 (this build)
# against h2f's arithmetic (the build in .old), on f16 and bf16 matrix-vector products, both layouts; the mixed
# suite first (thin_f16_widening takes every f16 bit pattern through the kernels).
. scripts/gpu/common.sh
gpu_session gemv-cvt
say "== $(date -u) test_gemm_mixed (H200)"
CLFORGE_TEST_DEVICES=0:0 timeout 150 tests/test_gemm_mixed > $r/suite.log 2>&1; say "rc=$? $(tail -1 $r/suite.log)"
cd ..; ( cd .old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target bench_gemm_mixed > $r/old-build.log 2>&1 ) || say "old build failed"
cd build-gpu
sh="--shape 1x4096x4096 --shape 1x14336x4096 --shape 4096x1x4096 --shape 1x8192x8192"
for lay in "--bt" ""; do
  for round in 1 2; do
    for v in old new; do
      b=bench/bench_gemm_mixed; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
      CLFORGE_CACHE_DIR=/tmp/clf-cache-cvt-$v timeout 60 $b --device gpu $lay --modes f16h,bf16h --reps 20 $sh 2>&1 | grep -E "GFLOP|rror" | cut -c1-90 | sed "s/^/$v /" | tee -a "$log"
    done
  done
done
