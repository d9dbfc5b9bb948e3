#!/usr/bin/env bash
# h200_wip_measure.sh — on the GPU host, from the repository root, with branch wip/reduce-vector-args checked
# out: what its two changes do, against the figures of main from 2026-12-01 (bench/results/h200/2026-12-01/
# thin-staged/: reduce-shapes-unsafe-math.txt, nv-exp-and-shipped.txt). (1) layer norm and softmax in one
# call with g and b loaded by whole vectors; (2) thin products with LU lowered at 11-16 vectors, and with the
# old LU forced back (CLFORGE_GEMV_CONFIG cannot: the plan lowers any LU, so the old build is the baseline);
# then the reduce and gemv suites on the H200.
. scripts/gpu/common.sh
gpu_session wip
date -u | tee -a "$log"
say "== bench_reduce --shapes"
timeout 120 bench/bench_reduce --device gpu --shapes 2>&1 | tail -5 | tee -a "$log"
thin="--shape 8x4096x4096 --shape 16x4096x4096 --shape 4096x8x4096 --shape 4096x16x4096 --shape 3000x11x6000 --shape 12x8192x2048"
for o in "" "--trans-b" "--trans"; do
  gemv_bench "bench_gemv $o" $o
done
gemv_bench "bench_gemv --f64" --f64
# With LU lowered, which team suits 8 and 16 vectors (before it, TEAM=16 won at 16 and TEAM=8 at 8)
for cfg in "TEAM=16" "TEAM=16 RPT=1" "TEAM=8 RPT=4" "TEAM=32"; do
  CLFORGE_GEMV_CONFIG="$cfg" gemv_bench "CLFORGE_GEMV_CONFIG=\"$cfg\"" 
done
CLFORGE_TEST_DEVICES=$(./clforge devices 2>/dev/null | awk '/^ +[0-9]+:[0-9]+ .*(NVIDIA|H200)/ {print $1; exit}') \
  timeout 300 ctest -R "test_gemv|test_reduce" --output-on-failure > $r/ctest.log 2>&1
grep -E "tests passed|Failed|Assertion" $r/ctest.log | head | tee -a "$log"
date -u | tee -a "$log"
