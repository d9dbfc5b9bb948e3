#!/usr/bin/env bash
# h200_session_check.sh — on the GPU host, at the end of a session: (1) every suite on the H200; (2) the
# shipped f16 defaults on small, irregular and batched shapes (the wgmma tile narrowing), cuBLAS in the same
# run; (3) fp64 shape classes against CLBlast; (4) the gemv family tuned (clforge tune) with matrix-vector
# and thin products before and after; (5) the batched_small bucket tuned. PART=1 runs (1)-(3), PART=2 (4)-(5),
# PART=3 only the suites (SUITES: a ctest -R pattern).
# Appends to $out/session.txt as it goes.
. scripts/gpu/common.sh
gpu_session session
B=bench/bench_gemm_mixed
if [ "${PART:-1}" = 1 ] || [ "${PART:-1}" = 3 ]; then
  say "== $(date -u) suites on the H200 (first device)"
  # the log goes to $out: a suite removed /tmp/results (the log with it) in the first run of this script
  ( CLFORGE_TEST_DEVICES=0:0 timeout 330 ctest -j6 --output-on-failure ${SUITES:+-R "$SUITES"} ) > $out/ctest.log 2>&1
  grep -E "tests passed|Failed|\*\*\*|Timeout" $out/ctest.log | tail -12 | tee -a "$log"
fi
if [ "${PART:-1}" = 1 ]; then
  say "== f16 shipped defaults (wgmma, narrowed where the rule says)"
  timeout 90 $B --device gpu --bt --modes f16 --reps 5 --shape 896x1664x1024 --shape 777x1555x999 \
    --shape 1024x1024x1024 --shape 4097x4097x4097 --json $r/f16-shapes.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  for s in "512 128x64x128" "512 128x128x64"; do
    set -- $s
    timeout 60 $B --device gpu --bt --modes f16 --reps 5 --batch $1 --shape $2 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  done
  say "== fp64 shape classes against CLBlast (bench_gemm --f64)"
  timeout 150 bench/bench_gemm --device gpu --f64 --reps 5 --shape 4096x4096x4096 --shape 3072x3072x3072 \
    --shape 2000x3000x1000 --shape 777x1555x999 --json $r/dgemm-shapes.json 2>&1 | tail -6 | tee -a "$log"
fi
if [ "${PART:-1}" = 2 ]; then
  thin="--shape 1x4096x4096 --shape 8x4096x4096 --shape 16x4096x4096 --shape 4096x8x4096 --shape 4096x16x4096 --shape 3000x11x6000"
  say "== $(date -u) gemv before tuning"
  timeout 90 bench/bench_gemv --device gpu --no-clblast --shape 4096x4096 --shape 8192x8192 $thin --json $r/gemv-before.json 2>&1 | tail -9 | tee -a "$log"
  timeout 200 ./clforge tune --device gpu --family gemv --budget ${TUNE_BUDGET:-60} --json $r/tune-gemv.json 2>&1 | tail -12 | tee -a "$log"
  say "== gemv after tuning"
  timeout 90 bench/bench_gemv --device gpu --no-clblast --shape 4096x4096 --shape 8192x8192 $thin --json $r/gemv-after.json 2>&1 | tail -9 | tee -a "$log"
  say "== batched_small"
  timeout 100 ./clforge tune --device gpu --family gemm --bucket batched_small --budget 40 --json $r/tune-batched-small.json 2>&1 | tail -4 | tee -a "$log"
  for s in "512 128x64x128" "512 128x128x64 --bt" "64 256x256x256"; do
    set -- $s
    t=$(timeout 60 $B --device gpu --modes f32 --reps 7 --batch $1 --shape $2 ${3:-} 2>&1 | grep -E "GFLOP|rror" | awk '{print $(NF-5)}')
    say "$1 x $2 ${3:-}: $t GFLOP/s (fp32, tuned)"
  done
fi
