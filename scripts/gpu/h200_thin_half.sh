#!/usr/bin/env bash
# h200_thin_half.sh — on the GPU host: thin typed products (a few rows or columns of C) against a previous build
# (a worktree carried as .old) and cuBLAS (torch.matmul) in the same script, B stored K x N and N x K,
# alternating builds; the suites that cover them first. Variants (VARIANTS): old, new (the shipped rule), gemv
# (CLFORGE_MMA=off: every thin product on the gemv kernels). Also ROUNDS, MODES, SHAPES, TESTS, CUBLAS=0|1.
# The eighth session's runs (bench/results/h200/2026-12-01/thin-half/): thin-half3.txt with
# VARIANTS="old new gemv" ROUNDS="1 2" MODES=f16h,bf16h,f16 CUBLAS=0 SHAPES="1x4096x4096 4x4096x4096
# 8x4096x4096 16x4096x4096 1x14336x4096 4096x1x4096"; thin-half4.txt with the defaults.
# Appends to $out/thin-half.txt.
. scripts/gpu/common.sh
gpu_session thin-half
for t in ${TESTS:-test_gemm_mixed}; do
  CLFORGE_TEST_DEVICES=0:0 timeout 200 tests/$t > $r/$t.log 2>&1; say "$t rc=$? $(tail -1 $r/$t.log)"
done
cd ..; ( cd .old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target bench_gemm_mixed > $r/old-build.log 2>&1 ) || say "old build failed"
cd build-gpu
sh=""; for x in ${SHAPES:-1x4096x4096 4x4096x4096 16x4096x4096 1x14336x4096 4096x1x4096 8x8192x8192}; do sh="$sh --shape $x"; done
for round in ${ROUNDS:-1}; do
  for lay in "" "--bt"; do
    for v in ${VARIANTS:-old new}; do
      b=bench/bench_gemm_mixed; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
      mma=""; [ $v = gemv ] && mma=off
      say "-- $v ${lay:-NN} round $round"
      CLFORGE_MMA=$mma CLFORGE_CACHE_DIR=/tmp/clf-cache-thin-$v timeout 120 $b --device gpu $lay --modes ${MODES:-f16h,bf16h} \
        --reps 30 $sh --json $r/th-$v${lay}-$round.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
    done
    [ "${CUBLAS:-1}" = 1 ] && timeout 60 python3 ../bench/torch_gemm.py --dtype f16 $lay $sh --json $r/cublas-f16${lay}.json 2>&1 | grep cuBLAS | tee -a "$log"
  done
done
