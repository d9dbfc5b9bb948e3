#!/usr/bin/env bash
# h200_release_check.sh — on the GPU host, after h200_release.sh: the changes that run prompted, measured once
# more in one short call: the f16 matrix-unit configuration against the previous one (alternating), the wave
# rule with its fixed tile cost on the shapes it cut or should not cut, one-call softmax and layer norm under
# the new row-kernel default, the wave and reduce suites, and the thin/tiny GEMM paths. Appends to
# $out/check.txt as it goes.
. scripts/gpu/common.sh
gpu_session check
say "== $(date -u) f16 8192^3 on matrix units, B stored N x K: new (cp.async) and old configuration, alternating"
for round in 1 2; do
  for c in "BM=128 BN=128 BK=32 WM=64 WN=64 LDSM=1 STAGES=3 FPIPE=1 ASYNC=1 SWZ=1" "BM=128 BN=128 BK=64 WM=64 WN=64 LDSM=1 STAGES=1 FPIPE=1 ASYNC=0 SWZ=0"; do
    t=$(CLFORGE_GEMM_MMA_CONFIG="$c" timeout 60 bench/bench_gemm_mixed --device gpu --modes f16,bf16 --bt --reps 5 \
        --shape 8192x8192x8192 2>&1 | grep GFLOP | awk '{print $(NF-6), $(NF-5)}' | tr '\n' ' ')
    say "round $round | $c | $t"
  done
done
say "== waves off / on"
for s in 3072x3072x3072 2304x2304x2304 2000x3000x1000 1000x3000x700 1024x3072x704 1536x4608x2048; do
  off=$(CLFORGE_GEMM_WG_PER_CU=off timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 --reps 7 --shape $s --json $r/off-$s.json 2>&1 | grep GFLOP | awk '{print $(NF-5)}')
  on=$(timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 --reps 7 --shape $s --json $r/on-$s.json 2>&1 | grep GFLOP | awk '{print $(NF-5)}')
  say "$s: waves off $off, on $on GFLOP/s"
done
say "== reduce (row-kernel default WG=128)"
timeout 90 bench/bench_reduce --device nvidia --reps 7 --shapes --json $r/reduce-shapes.json 2>&1 | tail -6 | tee -a $log
say "== suites"
( CLFORGE_TEST_DEVICES=0:0 timeout 150 ctest -R 'test_gemm_waves|test_reduce' -j2 --output-on-failure ) > $r/ctest.log 2>&1
grep -E "tests passed|Passed|Failed|F:" $r/ctest.log | tail -6 | tee -a $log
say "== thin, tiny, matrix-vector"
timeout 60 bench/bench_gemv --device gpu --json $r/gemv-default.json 2>&1 | tail -16 | tee -a $log
thin="--shape 2x4096x4096 --shape 8x4096x4096 --shape 16x4096x4096 --shape 4096x8x4096 --shape 4096x16x4096"
timeout 40 bench/bench_gemv --device gpu $thin --trans-b --json $r/gemv-thin-nt.json 2>&1 | tail -5 | tee -a $log
CLFORGE_DEVICE=gpu timeout 40 bench/bench_percall --json $r/percall.json 2>&1 | tail -6 | tee -a $log
say "== $(date -u) done"
