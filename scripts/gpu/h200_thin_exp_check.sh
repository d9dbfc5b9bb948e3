#!/usr/bin/env bash
# h200_thin_exp_check.sh — on the GPU host, from the repository root: the row reductions (one-call softmax and
# layer norm, 8192 x 8192 and the --shapes set) against torch and torch.compile in the same run; thin products
# with the shipped gemv entries in four orientations and fp64; then the reduce, gemv and map suites on the H200
# (their output kept in $r/ctest.log). On 2026-12-01 it ran with an exp built from native_exp2 in
# cl/reduce.cl, since removed (docs/reduce.md).
. scripts/gpu/common.sh
gpu_session thin-exp-check
date -u | tee -a "$log"
say "== bench_reduce"
timeout 90 bench/bench_reduce --device gpu --json $r/reduce.json 2>&1 | tail -9 | tee -a "$log"
say "== bench_reduce --shapes"
timeout 120 bench/bench_reduce --device gpu --shapes --json $r/reduce-shapes.json 2>&1 | tail -14 | tee -a "$log"
say "== torch (eager and compiled)"
for s in "8192 8192" "4096 16384" "32768 1024"; do
  timeout 120 python3 ../bench/torch_map.py --norms $s --json $r/torch-norms-${s/ /x}.json 2>&1 | tail -6 | tee -a "$log"
done
thin="--shape 8x4096x4096 --shape 16x4096x4096 --shape 4096x8x4096 --shape 4096x16x4096 --shape 3000x11x6000 --shape 4096x2x4096 --shape 12x8192x2048"
for o in "" "--trans-b" "--trans" "--trans --trans-b"; do
  gemv_bench "bench_gemv shipped $o" $o
done
gemv_bench "bench_gemv shipped --f64" --f64
CLFORGE_TEST_DEVICES=$(./clforge devices 2>/dev/null | awk '/^ +[0-9]+:[0-9]+ .*(NVIDIA|H200)/ {print $1; exit}') \
  timeout 330 ctest -R "test_gemv|test_reduce|test_map" --output-on-failure > $r/ctest.log 2>&1
grep -E "Passed|Failed|FAIL|Assertion|failed|wrong|want" $r/ctest.log | head -40 | tee -a "$log"
date -u | tee -a "$log"
