#!/usr/bin/env bash
# h200_regression.sh — on the GPU host: paired runs of the code at .base/ (an older commit, unpacked there
# by hand) and the working tree, alternating, on the square NN GEMM rows and the map/copy bench; then every
# test suite on the H200.
. scripts/gpu/common.sh
gpu_results
. .gpu/gpu-env.sh .gpu/debs
for t in . .base; do
  cmake -S $t -B $t/build-gpu -DCMAKE_BUILD_TYPE=Release -DCLFORGE_TESTS=$([ $t = . ] && echo ON || echo OFF) >/dev/null &&
    cmake --build $t/build-gpu -j"$(nproc)" > $r/build-$(basename $t).log 2>&1 || { echo "build of $t failed"; grep -E "error" $r/build-*.log | head; exit 1; }
done
export CLFORGE_CACHE_DIR=/tmp/clf-cache-regr
shapes="--shape 1024x1024x1024 --shape 2048x2048x2048 --shape 4096x4096x4096 --shape 8192x8192x8192 --shape 4097x4097x4097 --shape 1000x3000x700 --shape 64x4096x4096 --shape 256x4096x4096"
for round in 1 2; do
  for t in .base .; do
    name=$([ $t = . ] && echo new || echo old)
    timeout 100 $t/build-gpu/bench/bench_gemm --device gpu --no-clblast $shapes --json $r/gemm-$name-$round.json 2>&1 | grep -E "^ *[0-9]+x" | cut -c1-60 | sed "s/^/$name$round /"
    timeout 100 $t/build-gpu/bench/bench_gemm --device gpu --no-clblast --f64 --shape 4096x4096x4096 --json $r/dgemm-$name-$round.json 2>&1 | grep -E "^ *[0-9]+x" | cut -c1-60 | sed "s/^/$name$round f64 /"
    timeout 100 $t/build-gpu/bench/bench_map --device gpu --no-sweep --json $r/map-$name-$round.json 2>&1 | grep -iE "copy|relu|map" | head -4 | sed "s/^/$name$round /"
  done
done
cd build-gpu
( CLFORGE_TEST_DEVICES=0:0 CLFORGE_GEMM_TEST_CASES=1000 timeout 240 ctest -j8 --output-on-failure ) > $r/ctest-h200.log 2>&1
grep -E "tests passed|Passed|Failed|Timeout" $r/ctest-h200.log | tail -20
