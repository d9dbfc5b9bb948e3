#!/usr/bin/env bash
# h200_pack.sh — on the GPU host: the matrix units' packing pre-pass (convert_pack) of eight elements a
# work-item against the previous build's four (a worktree of the commit before, carried as .old), on products
# that pack: B stored K x N (the NN layout), odd leading dimensions; alternating old and new builds, with a
# per-kernel profile, then cuBLAS in the same layouts. The suite that covers it first. Appends to $out/pack.txt.
. scripts/gpu/common.sh
gpu_session pack
say "== $(date -u) test_gemm_mixed (H200)"
CLFORGE_TEST_DEVICES=0:0 timeout 240 tests/test_gemm_mixed > $r/suite-mixed.log 2>&1; say "rc=$? $(tail -1 $r/suite-mixed.log)"
cd ..; ( cd .old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target bench_gemm_mixed > $r/old-build.log 2>&1 ) || { say "old build failed"; tail -5 $r/old-build.log; }
cd build-gpu
nn=""; for x in ${NN:-2048x2048x2048 4096x4096x4096 8192x8192x8192 3000x2000x1000}; do nn="$nn --shape $x"; done
bt=""; for x in ${BT:-4097x4097x4097 3001x3001x3001 777x1555x999}; do bt="$bt --shape $x"; done
for round in 1 2; do
  for v in old new; do
    b=bench/bench_gemm_mixed; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
    export CLFORGE_CACHE_DIR=/tmp/clf-cache-pack-$v
    say "-- $v (round $round)"
    timeout 200 $b --device gpu --modes f16h,tf32 --reps 10 $nn --json $r/nn-$v-$round.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
    timeout 100 $b --device gpu --modes f64 --reps 5 --shape 4096x4096x4096 --json $r/nn64-$v-$round.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
    timeout 200 $b --device gpu --bt --modes f16h --reps 10 $bt --json $r/bt-$v-$round.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  done
done
for v in old new; do
  b=bench/bench_gemm_mixed; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
  say "-- profile $v: f16h NN 4096^3, then 4097^3 --bt"
  CLFORGE_CACHE_DIR=/tmp/clf-cache-pack-$v CLFORGE_PROFILE=1 timeout 60 $b --device gpu --modes f16h --reps 5 --shape 4096x4096x4096 2>&1 | grep -E "convert|mma|reduce" | tee -a "$log"
  CLFORGE_CACHE_DIR=/tmp/clf-cache-pack-$v CLFORGE_PROFILE=1 timeout 60 $b --device gpu --bt --modes f16h --reps 5 --shape 4097x4097x4097 2>&1 | grep -E "convert|mma|reduce" | tee -a "$log"
done
say "-- cuBLAS"
for d in f16 tf32; do timeout 150 python3 ../bench/torch_gemm.py --dtype $d $nn --json $r/cublas-nn-$d.json 2>&1 | grep cuBLAS | tee -a "$log"; done
timeout 100 python3 ../bench/torch_gemm.py --dtype f16 --bt $bt --json $r/cublas-bt-f16.json 2>&1 | grep cuBLAS | tee -a "$log"
