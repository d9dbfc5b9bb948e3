#!/usr/bin/env bash
# h200_thin_half2.sh — on the GPU host: thin typed products on the gemv kernels (streamed matrix in f16/bf16)
# only where the matrix units would pack it (K-major), against main (.old), with per-kernel profiles of the
# decode shapes; the suites first. Appends to $out/thin-half2.txt.
. scripts/gpu/common.sh
gpu_session thin-half2
for t in test_gemm_mixed test_gemv; do
  CLFORGE_TEST_DEVICES=0:0 timeout 200 tests/$t > $r/$t.log 2>&1; say "$t rc=$? $(tail -1 $r/$t.log)"
done
grep -E "thin cases" $r/test_gemm_mixed.log | tee -a "$log"
cd ..; ( cd .old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target bench_gemm_mixed > $r/old-build.log 2>&1 ) || say "old build failed"
cd build-gpu
sh=""; for x in 1x4096x4096 4x4096x4096 8x4096x4096 16x4096x4096 1x14336x4096 1x4096x14336 4096x8x4096; do sh="$sh --shape $x"; done
for round in 1 2; do
  for lay in "" "--bt"; do
    for v in old new; do
      b=bench/bench_gemm_mixed; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
      say "-- $v ${lay:-NN} round $round"
      CLFORGE_CACHE_DIR=/tmp/clf-cache-th-$v timeout 200 $b --device gpu $lay --modes f16h,bf16,f16 --reps 20 $sh --json $r/th-$v${lay}-$round.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
    done
  done
done
for m in f16h bf16; do
  say "-- profile new NN $m 1x4096x4096 and 1x14336x4096"
  CLFORGE_CACHE_DIR=/tmp/clf-cache-th-new CLFORGE_PROFILE=1 timeout 60 bench/bench_gemm_mixed --device gpu --modes $m --reps 20 --shape 1x4096x4096 --shape 1x14336x4096 2>&1 | grep -E "GFLOP|gemv|convert|^kernel" | tee -a "$log"
done
