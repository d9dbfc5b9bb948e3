#!/usr/bin/env bash
# h200_fill_epilogue.sh — on the GPU host: (1) the fp32 fused epilogue's cost over K (128, 1024, 4096) with
# `c = acc`, staged and unrolled stores, to tell a per-tile store cost from a slower main loop; (2) the wave-fill
# rule (gemm_plan.c) on odd shapes it was not derived from, on and off (CLFORGE_GEMM_FILL=off), alternating,
# cuBLAS in the same run; (3) every suite on the H200 (SUITES: a ctest -R pattern; SKIP_CTEST=1 skips).
# Appends to $out/fill-epi.txt as it goes.
. scripts/gpu/common.sh
gpu_session fill-epi
here=$PWD/..
say "== $(date -u) fp32 epilogue over K, c = acc"
for st in staged unrolled; do
  CLFORGE_EPILOGUE_STORE=$st timeout 150 bench/bench_gemm_epilogue --device gpu --shape 4096x4096x128 \
    --shape 4096x4096x1024 --shape 4096x4096x4096 --also "c = acc" --reps 9 --json $r/epi-k-$st.json 2>&1 |
    grep -E "epilogue|plain|rror" | sed "s/^/$st /" | tee -a "$log"
done
shapes=${SHAPES:-"900x1300x1100 1700x600x800 500x2900x1000 1100x1700x640 2200x900x1300 1300x1300x1300 700x2000x1500 1900x1100x900 777x1555x999 1500x700x900"}
sargs=""; for s in $shapes; do sargs="$sargs --shape $s"; done
say "== $(date -u) cuBLAS"
timeout 120 python3 $here/bench/torch_gemm.py --dtype f32 $sargs --json $r/cublas-fill.json 2>&1 | grep cuBLAS | tee -a "$log"
for round in 1 2; do
  for fill in on off; do
    say "== round $round, fill rule $fill"
    ( [ $fill = off ] && export CLFORGE_GEMM_FILL=off
      timeout 150 bench/bench_gemm --device gpu --no-clblast --reps 7 $sargs --json $r/fill-$fill-$round.json ) 2>&1 |
      grep -E "GFLOP|rror" | tee -a "$log"
  done
done
if [ -z "${SKIP_CTEST:-}" ]; then
  say "== $(date -u) suites on the H200 (first device)"
  ( CLFORGE_TEST_DEVICES=0:0 timeout ${CTEST_TIMEOUT:-300} ctest -j8 --output-on-failure ${SUITES:+-R "$SUITES"} ) > $out/ctest.log 2>&1
  grep -E "tests passed|Failed|\*\*\*|Timeout" $out/ctest.log | tail -12 | tee -a "$log"
fi
