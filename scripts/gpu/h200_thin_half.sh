#!/usr/bin/env bash
# h200_thin_half.sh — on the GPU host: thin typed products (m or n up to 16) on the gemv kernels with the
# streamed matrix read in its f16/bf16 storage, against the matrix-unit path they took before (the build of
# the commit before, carried as .old), and cuBLAS (torch.matmul) in the same script, B stored K x N and
# N x K. The suites that cover it first. Appends to $out/thin-half.txt.
. scripts/gpu/common.sh
gpu_session thin-half
say "== $(date -u) suites (H200)"
for t in test_gemm_mixed test_gemv test_gemm_plan; do
  CLFORGE_SOURCE_DIR=$PWD/.. CLFORGE_TEST_DEVICES=0:0 timeout 200 tests/$t > $r/$t.log 2>&1; say "$t rc=$? $(tail -1 $r/$t.log)"
done
grep -E "thin cases|failed" $r/test_gemm_mixed.log | head -5 | tee -a "$log"
cd ..; ( cd .old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target bench_gemm_mixed > $r/old-build.log 2>&1 ) || say "old build failed"
cd build-gpu
sh=""; for x in 1x4096x4096 2x4096x4096 4x4096x4096 8x4096x4096 16x4096x4096 4096x1x4096 4096x8x4096 1x14336x4096 1x4096x14336; do sh="$sh --shape $x"; done
for lay in "" "--bt"; do
  for v in old new; do
    b=bench/bench_gemm_mixed; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
    say "-- $v ${lay:-NN}"
    CLFORGE_CACHE_DIR=/tmp/clf-cache-thin-$v timeout 200 $b --device gpu $lay --modes f16h,bf16 --reps 20 $sh --json $r/thin-$v${lay}.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  done
  timeout 200 python3 ../bench/torch_gemm.py --dtype f16 $lay $sh --json $r/cublas-f16${lay}.json 2>&1 | grep cuBLAS | tee -a "$log"
done
