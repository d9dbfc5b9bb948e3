#!/usr/bin/env bash
# h200_mma_split.sh — on the GPU host: split-K on the matrix units. The suites that cover it (with the split
# forced, so that every random case runs through the partial planes and gemm_reduce); work-groups per compute
# unit of the shipped f16, tf32 and fp64 configurations (products of j rows of tiles x one tile per unit); then
# f16 products of many classes with the split off, the planner's rule (WG_PER_CU, standing in for the entry),
# and forced slice counts; cuBLAS on the same shapes (PART=sweep). PART=check: the probe as the tuner runs it
# (--waves), then the shipped rule against the split turned off, alternating runs, on shapes of the classes the
# rule serves (long K, a last wave of one row of tiles) and of those it must leave alone. Appends to
# $out/split.txt as it goes.
. scripts/gpu/common.sh
gpu_session split
B=bench/bench_gemm_mixed
PART=${PART:-all}
if [ "$PART" = all ] || [ "$PART" = suites ]; then
  say "== $(date -u) suites on the H200, split forced (CLFORGE_GEMM_SPLIT_K=3) where said"
  ( CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=split_k_cases timeout 120 tests/test_gemm_mixed ) > $r/split-cases.log 2>&1
  grep -E "split-K|Checks|F:" $r/split-cases.log | tee -a "$log"
  ( CLFORGE_TEST_DEVICES=0:0 CLFORGE_GEMM_SPLIT_K=3 timeout 200 ctest -R 'test_gemm_mixed|test_gemm_epilogue' -j2 --output-on-failure ) > $r/ctest-split.log 2>&1
  grep -E "tests passed|Passed|Failed|F:|\*\*\*" $r/ctest-split.log | tail -8 | sed 's/^/split forced: /' | tee -a "$log"
  ( CLFORGE_TEST_DEVICES=0:0 timeout 200 ctest -R 'test_gemm_waves|test_gemm_plan|test_gemm$' -j3 --output-on-failure ) > $r/ctest.log 2>&1
  grep -E "tests passed|Passed|Failed|F:|\*\*\*" $r/ctest.log | tail -8 | tee -a "$log"
fi
if [ "$PART" = all ] || [ "$PART" = waves ]; then
  say "== work-groups per compute unit: j rows of tiles x 132 tiles, K = 512, no split"
  for spec in "f16 128" "tf32 128" "f64 64"; do
    set -- $spec; shapes=""
    for j in 1 2 3 4 5 6 7 8; do shapes="$shapes --shape $(($2 * j))x$(($2 * 132))x512"; done
    CLFORGE_GEMM_SPLIT_K=1 timeout 120 $B --device gpu --bt --modes $1 --reps 7 $shapes 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  done
fi
if [ "$PART" = all ] || [ "$PART" = sweep ]; then
  shapes="--shape 4097x4097x4097 --shape 4096x4096x4096 --shape 777x1555x999 --shape 896x1664x1024 --shape 1024x1024x1024
    --shape 2048x2048x2048 --shape 1500x700x900 --shape 2000x3000x1000 --shape 3000x3000x3000 --shape 512x512x8192
    --shape 1024x1024x8192 --shape 6000x5000x2000"
  for v in off auto 2 3 4 6 8; do
    case $v in off) env="CLFORGE_GEMM_SPLIT_K=1";; auto) env="CLFORGE_GEMM_WG_PER_CU=2";; *) env="CLFORGE_GEMM_SPLIT_K=$v";; esac
    say "== f16, B stored N x K, split $v ($env)"
    env $env timeout 150 $B --device gpu --bt --modes ${MODES:-f16} --reps 7 $shapes --json $r/split-$v.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  done
  timeout 120 python3 ../bench/torch_gemm.py --dtype f16 --bt $shapes --json $r/cublas-f16.json 2>&1 | grep cuBLAS | tee -a "$log"
fi
if [ "$PART" = check ]; then
  say "== $(date -u) the probe as the tuner runs it"
  timeout 120 $B --device gpu --waves 2>&1 | tee -a "$log"
  check() {   # check MODE SHAPES...: off and the shipped rule, alternating, twice
    local m=$1; shift; local sh=""; for x in "$@"; do sh="$sh --shape $x"; done
    for round in 1 2; do
      for v in off rule; do
        env=$([ $v = off ] && echo CLFORGE_GEMM_SPLIT_K=1 || echo CLFORGE_NOTHING=1)
        say "-- $m $v (round $round)"
        env $env timeout 150 $B --device gpu --bt --modes $m --reps 10 $sh --json $r/check-$m-$v-$round.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
      done
    done
  }
  long=${LONG:-"768x768x16384 1536x1024x12288 256x2048x8192 2048x512x32768 640x640x20000"}
  waves=${WAVES:-"4097x4097x4097 4100x4100x2048 8200x8200x4096"}
  still=${STILL:-"4096x4096x4096 1000x1000x1000 2000x3000x1000 777x1555x999 5000x4000x3000"}
  check ${MODES:-f16} $long $waves $still
  check tf32 ${OTHER:-768x768x16384 2048x512x32768 4097x4097x4097 1000x1000x1000}
  check ${LAST:-f64} ${OTHER:-768x768x16384 2048x512x32768 4097x4097x4097 1000x1000x1000}
  shapes=""; for x in $long $waves $still; do shapes="$shapes --shape $x"; done
  timeout 150 python3 ../bench/torch_gemm.py --dtype f16 --bt $shapes --json $r/check-cublas-f16.json 2>&1 | grep cuBLAS | tee -a "$log"
  other=""; for x in ${OTHER:-768x768x16384 2048x512x32768 4097x4097x4097 1000x1000x1000}; do other="$other --shape $x"; done
  for d in tf32 ${LAST_TORCH:-f64}; do
    timeout 100 python3 ../bench/torch_gemm.py --dtype $d --bt $other 2>&1 | grep cuBLAS | sed "s/\$/ ($d)/" | tee -a "$log"
  done
  say "== suites"
  ( CLFORGE_TEST_DEVICES=0:0 timeout 200 ctest -R 'test_gemm_mixed|test_gemm_waves|test_tune$' -j3 --output-on-failure ) > $r/ctest-check.log 2>&1
  grep -E "tests passed|Passed|Failed|F:|\*\*\*" $r/ctest-check.log | tail -8 | tee -a "$log"
fi
if [ "$PART" = narrow ]; then
  # Split products on 128 x 128 tiles (the entry's, forced by an override equal to it) against the narrowed
  # 128 x 64 tiles the planner gives products of fewer tiles than compute units.
  sh=""; for x in 768x768x16384 256x2048x8192 640x640x20000 1024x768x24576 512x1536x16384 1152x1152x9216 \
                  3072x256x20480 1024x1024x8192 512x512x8192 1000x1000x1000 896x1664x1024; do sh="$sh --shape $x"; done
  for round in 1 2; do
    for v in narrowed wide; do
      say "-- $v (round $round)"
      if [ $v = wide ]; then export CLFORGE_GEMM_MMA_CONFIG="BN=128 WN=128 STAGES=3"; else unset CLFORGE_GEMM_MMA_CONFIG; fi
      timeout 150 $B --device gpu --bt --modes f16,tf32 --reps 10 $sh --json $r/narrow-$v-$round.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
    done
  done
  unset CLFORGE_GEMM_MMA_CONFIG
fi
