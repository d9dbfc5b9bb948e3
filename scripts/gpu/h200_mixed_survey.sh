#!/usr/bin/env bash
# h200_mixed_survey.sh — on the GPU host: a survey of typed GEMM shapes outside the headline list, against
# cuBLAS (torch.matmul) in the same script: NN and NT layouts, f16 and bf16 in and out, thin products
# (matrix-vector, decode-sized), batched, odd sizes. Finds the classes that run far below cuBLAS.
# The mixed suite first (convert_pack of 16 bytes a work-item). Appends to $out/survey.txt.
. scripts/gpu/common.sh
gpu_session survey
say "== $(date -u) test_gemm_mixed (H200)"
CLFORGE_TEST_DEVICES=0:0 timeout 240 tests/test_gemm_mixed > $r/suite-mixed.log 2>&1; say "rc=$? $(tail -1 $r/suite-mixed.log)"
B=bench/bench_gemm_mixed
thin="--shape 1x4096x4096 --shape 4x4096x4096 --shape 16x4096x4096 --shape 4096x1x4096 --shape 32x8192x8192 --shape 1x14336x4096"
odd="--shape 1000x1000x1000 --shape 2500x1500x3000 --shape 5000x300x2000 --shape 128x8192x8192"
for lay in "" "--bt"; do
  say "-- f16h ${lay:-NN}"
  timeout 200 $B --device gpu $lay --modes f16h --reps 10 $thin $odd --json $r/f16h${lay}.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  timeout 200 python3 ../bench/torch_gemm.py --dtype f16 $lay $thin $odd --json $r/cublas-f16${lay}.json 2>&1 | grep cuBLAS | tee -a "$log"
done
say "-- batched f16h NT, NN"
for s in "32 512x512x128" "256 64x64x64" "16 1024x1024x1024"; do
  set -- $s
  for lay in "--bt" ""; do
    t=$(timeout 60 $B --device gpu $lay --modes f16h --reps 10 --batch $1 --shape $2 2>&1 | grep -E "GFLOP|rror")
    c=$(timeout 60 python3 ../bench/torch_gemm.py --dtype f16 $lay --batch $1 --shape $2 2>&1 | grep cuBLAS)
    say "batch $1 ${lay:-NN} | $t | $c"
  done
done
say "-- tf32 and fp64 NN (4- and 2-element pack work-items) against the build before (.old)"
cd ..; ( cd .old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target bench_gemm_mixed > $r/old-build.log 2>&1 ) || say "old build failed"
cd build-gpu
for round in 1 2; do
  for v in old new; do
    b=$B; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
    CLFORGE_CACHE_DIR=/tmp/clf-cache-survey-$v timeout 100 $b --device gpu --modes tf32,f64 --reps 10 --shape 3000x2000x1000 --shape 4096x4096x4096 2>&1 | grep -E "GFLOP|rror" | sed "s/^/$v /" | tee -a "$log"
  done
done
