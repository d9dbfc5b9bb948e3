#!/usr/bin/env bash
# h200_thin_half3.sh — on the GPU host: thin typed products on the gemv kernels reading A, the vectors and C in
# their storage types (one launch), against main (.old): the shipped rule (gemv only for K-major weights) and
# CLFORGE_MMA=off (gemv for every thin product), NN and NT, alternating; the suites first.
# Appends to $out/thin-half3.txt.
. scripts/gpu/common.sh
gpu_session thin-half3
for t in test_gemm_mixed test_gemv; do
  CLFORGE_TEST_DEVICES=0:0 timeout 200 tests/$t > $r/$t.log 2>&1; say "$t rc=$? $(tail -1 $r/$t.log)"
done
cd ..; ( cd .old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target bench_gemm_mixed > $r/old-build.log 2>&1 ) || say "old build failed"
cd build-gpu
sh=""; for x in 1x4096x4096 4x4096x4096 8x4096x4096 16x4096x4096 1x14336x4096 4096x1x4096; do sh="$sh --shape $x"; done
for round in 1 2; do
  for lay in "" "--bt"; do
    for v in old new gemv; do
      b=bench/bench_gemm_mixed; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
      mma=""; [ $v = gemv ] && mma=off
      say "-- $v ${lay:-NN} round $round"
      CLFORGE_MMA=$mma CLFORGE_CACHE_DIR=/tmp/clf-cache-th3-$v timeout 200 $b --device gpu $lay --modes f16h,bf16h,f16 --reps 30 $sh --json $r/th-$v${lay}-$round.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
    done
  done
done
