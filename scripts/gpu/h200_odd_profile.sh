#!/usr/bin/env bash
# h200_odd_profile.sh — on the GPU host: where the time of odd-sized products goes. The mixed-precision suite
#   and the planner tests first (CTEST=1: the whole suite), then for each product in ODD and its aligned
#   neighbour in EVEN: bench_gemm_mixed in each mode of MODES (f16h B N x K, f16h with B K x N, f32) and the
#   per-kernel profile (CLFORGE_PROFILE=1) of the same call, so that packs, the main kernel and the reduction
#   are seen apart.
. scripts/gpu/common.sh
gpu_session odd-profile
if [ -n "${CTEST:-}" ]; then
  ( CLFORGE_TEST_DEVICES=0:0 timeout 400 ctest -j8 --output-on-failure ) > $out/ctest-h200.log 2>&1
  grep -E "tests passed|Failed|Timeout" $out/ctest-h200.log | tail -8 | tee -a "$log"
elif [ -z "${NOTEST:-}" ]; then
  for t in test_gemm_mixed test_gemm_plan; do
    ( CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 timeout 300 tests/$t > $r/$t.log 2>&1 )
    say "$t rc=$? $(grep -E 'Checks' $r/$t.log | tr '\n' ' ')"
  done
fi
for ml in ${MODES:-f16h:bt f16h:nn f32:nn}; do
  m=${ml%%:*}; bt=; [ "${ml#*:}" = bt ] && bt=--bt
  for s in ${ODD:-777x1555x999 1000x1000x1000 4097x4097x4097} ${EVEN:-768x1536x1024 1024x1024x1024 4096x4096x4096}; do
    say "== $ml $s"
    timeout 60 bench/bench_gemm_mixed --device gpu --modes $m $bt --reps 20 --shape $s 2>&1 | grep -E "GFLOP|rror" | cut -c1-100 | tee -a "$log"
    CLFORGE_PROFILE=1 timeout 60 bench/bench_gemm_mixed --device gpu --modes $m $bt --reps 20 --shape $s 2>&1 |
      grep -vE "GFLOP|^#|^$" | cut -c1-140 | tee -a "$log"
  done
done
date -u | tee -a "$log"
