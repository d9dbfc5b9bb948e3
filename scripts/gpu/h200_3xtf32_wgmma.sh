#!/usr/bin/env bash
# h200_3xtf32_wgmma.sh — on the GPU host: 3xTF32 on wgmma (operands split by the packing pass, each stage summed
# fresh over WN / PARTS columns). PART=check: the mixed-precision tests that run 3xTF32 (shipped defaults off, so
# the new default runs), the k = 4096 accuracy per configuration; PART=sweep: configurations at SHAPES against the
# mma.sync configuration shipped before and cuBLAS SGEMM (torch.matmul, TF32 off) in the same run (check runs it
# too); PART=final: the H200 tests, --waves and unseen shapes; splits: forced splits along K; tune: clforge tune of
# the 3x bucket against the shipped entry; why: the tune traced, its failures run alone; recheck: those again;
# ab: this build against the one in .old (a worktree of the commit before), the tests and the k = 4096 accuracy,
# then alternating rounds over ABSHAPES and cuBLAS SGEMM once per shape.
. scripts/gpu/common.sh
gpu_session ${NAME:-3xtf32-wgmma}
B=bench/bench_gemm_mixed
SYNC="BM=128 BN=128 BK=32 WM=32 WN=64 LDSM=2 STAGES=1 FPIPE=1 ASYNC=0 SWZ=0 DK=4 WGMMA=0 PARTS=1"
W="LDSM=0 ASYNC=1 SWZ=1 DK=4 WGMMA=1 WM=64"
# rate3x OPTIONS...: one 3xTF32 run of bench_gemm_mixed, as "GFLOP/s max-error" (or its warning or error)
rate3x() {
  timeout 90 $B --device gpu --modes 3xtf32 --reps 5 "$@" 2>&1 | grep -E 'GFLOP|rror|warn' |
    sed -E 's/.* ([0-9.]+) GFLOP\/s +max rel. error ([0-9.e+-]+).*/\1 \2/' | cut -c1-160 | tr '\n' ' '
}
CFGS=${CFGS:-"$SYNC
BM=128 BN=128 BK=16 WN=128 STAGES=3 PARTS=2 FPIPE=0 $W
BM=128 BN=128 BK=16 WN=128 STAGES=3 PARTS=4 FPIPE=1 $W
BM=128 BN=128 BK=16 WN=128 STAGES=3 PARTS=2 FPIPE=1 $W
BM=64 BN=128 BK=32 WN=128 STAGES=2 PARTS=2 FPIPE=0 $W
BM=64 BN=128 BK=32 WN=128 STAGES=2 PARTS=4 FPIPE=1 $W
BM=128 BN=128 BK=16 WN=64 STAGES=3 PARTS=2 FPIPE=1 $W
BM=128 BN=64 BK=16 WN=64 STAGES=4 PARTS=2 FPIPE=1 $W
BM=64 BN=128 BK=16 WN=128 STAGES=4 PARTS=4 FPIPE=1 $W"}
if [ "${PART:-check}" = check ]; then
  say "== tests (CLFORGE_SHIPPED=off: the default 3x configuration is wgmma's)"
  for c in ${TESTS-three_tf32_is_fp32_accurate random_mixed_cases split_k_cases pack_kernel typed_arguments}; do
    CLFORGE_SHIPPED=off CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=$c timeout 200 ctest -R gemm_mixed --output-on-failure > $r/ctest-$c.log 2>&1
    say "$c: $(grep -E 'tests passed|Checks' $r/ctest-$c.log | tr '\n' ' ') $(grep -E 'rms error|differs|Failure|rror' $r/ctest-$c.log | head -3 | tr '\n' ' ')"
  done
  say "== k = 4096 accuracy per configuration (rms, fp32 then 3xTF32)"
  while read -r c; do
    CLFORGE_GEMM_MMA_CONFIG="$c" CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=three_tf32_is_fp32_accurate timeout 100 \
      ctest -R gemm_mixed -V > $r/acc.log 2>&1
    say "$c | $(grep -E 'rms error' $r/acc.log | sed 's/.*: fp32/fp32/') $(grep -cE 'tests passed' $r/acc.log) passed"
  done <<< "$CFGS"
fi
if [ "${PART:-check}" = sweep ] || [ "${PART:-check}" = check ]; then
  for s in ${SHAPES:-8192x8192x8192 4096x4096x4096}; do
    say "== $s, B stored N x K, 3xTF32: config | GFLOP/s, max error"
    for round in 1 2; do
      while read -r c; do
        t=$(CLFORGE_GEMM_MMA_CONFIG="$c" rate3x --bt --shape $s)
        say "r$round | $c | $t"
      done <<< "$CFGS"
    done
    say "$(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 --bt --shape $s 2>&1 | grep cuBLAS) (SGEMM)"
  done
fi
if [ "${PART:-check}" = final ]; then
  # the shipped configurations (3x on wgmma) against the mma.sync entry before it, on shapes no sweep used, NN
  # (B packed from K x N) and NT, and cuBLAS SGEMM in the same run; the tests; the work-groups a unit holds
  say "== tests on the H200 (shipped defaults)"
  CLFORGE_TEST_DEVICES=0:0 timeout 300 ctest -R 'test_gemm_mixed|test_gemm_plan' -j2 --output-on-failure > $r/ctest.log 2>&1
  say "$(grep -E 'tests passed|Failed|rms error' $r/ctest.log | head -6)"
  say "== work-groups per compute unit (--waves)"
  timeout 120 $B --device gpu --waves --modes 3xtf32 2>&1 | tail -3 | tee -a "$log"
  for x in "6000x5000x3000" "3001x2999x1537" "1024x1024x8192" "2048x512x32768" "5000x7000x1000 --bt" "8x1024x1024x1024"; do
    set -- $x; s=$1; shift; extra="$*"; batch=""
    case $s in *x*x*x*) batch=${s%%x*}; s=${s#*x};; esac
    for round in 1 2; do
      for c in "shipped" "$SYNC"; do
        if [ "$c" = shipped ]; then unset CLFORGE_GEMM_MMA_CONFIG; else export CLFORGE_GEMM_MMA_CONFIG="$c"; fi
        t=$(rate3x $extra --shape $s ${batch:+--batch $batch})
        say "r$round | ${batch:+$batch x }$s $extra | ${c:0:40} | $t"
      done
      unset CLFORGE_GEMM_MMA_CONFIG
    done
    say "$(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 $extra --shape $s ${batch:+--batch $batch} 2>&1 | grep cuBLAS) (SGEMM)"
  done
fi
if [ "${PART:-check}" = splits ]; then
  # products of few tiles and a long K under the shipped rule, then forced splits (CLFORGE_GEMM_SPLIT_K)
  for s in ${SSHAPES:-1024x1024x8192 2048x512x32768 768x768x16384 1536x1024x6144}; do
    for sp in rule 1 2 4 8; do
      if [ $sp = rule ]; then unset CLFORGE_GEMM_SPLIT_K; else export CLFORGE_GEMM_SPLIT_K=$sp; fi
      t=$(rate3x --shape $s)
      say "$s | split $sp | $t"
    done
    unset CLFORGE_GEMM_SPLIT_K
    say "$(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 --shape $s 2>&1 | grep cuBLAS) (SGEMM)"
  done
fi
if [ "${PART:-check}" = tune ]; then
  # clforge tune over the 3x bucket (wgmma with PARTS in the space), then the tuned entry against the shipped one
  b3() { timeout 90 $B --device gpu --modes 3xtf32 --bt --reps 5 --shape 4096x4096x4096 --shape 8192x8192x8192 2>&1 | grep -E "GFLOP|rror"; }
  say "== $(date -u) clforge tune --family gemm_mma --precision f32 --bucket 3x"
  timeout $(( ${TUNE_BUDGET:-120} + 90 )) ./clforge tune --device gpu --family gemm_mma --precision f32 --bucket 3x \
    --budget ${TUNE_BUDGET:-120} --json $r/tune-mma-3x.json 2>&1 | tail -6 | tee -a "$log"
  for round in 1 2; do
    say "== round $round: tuned"; b3 | tee -a "$log"
    say "== round $round: shipped (CLFORGE_CACHE_DIR without the tuning)"; CLFORGE_CACHE_DIR=/tmp/clf-cache-shipped b3 | tee -a "$log"
  done
  cp $r/tune-mma-3x.json "$out/" 2>/dev/null
fi
if [ "${PART:-check}" = why ]; then
  # the tune again with a trace; each configuration that failed run alone, with its error
  CLFORGE_TUNE_TRACE=$r/trace.jsonl timeout $(( ${TUNE_BUDGET:-120} + 90 )) ./clforge tune --device gpu --family gemm_mma \
    --precision f32 --bucket 3x --budget ${TUNE_BUDGET:-120} 2>&1 | tail -2 | tee -a "$log"
  grep '"failed"' $r/trace.jsonl | sed 's/.*"config":"\([^"]*\)".*/\1/' | sort -u | head -5 | while read -r c; do
    say "failed: $c"
    CLFORGE_GEMM_MMA_CONFIG="$c" timeout 60 $B --device gpu --modes 3xtf32 --reps 2 --shape 4096x4096x4096 2>&1 | tail -3 | tee -a "$log"
  done
  cp $r/trace.jsonl "$out/" 2>/dev/null
fi
if [ "${PART:-check}" = recheck ]; then
  # the configurations the tune saw fail, run alone; a short tune with a trace, its failures counted
  for c in "BM=128 BN=128 BK=16 WN=128 STAGES=3 FPIPE=1 PARTS=1 $W" "BM=64 BN=128 BK=16 WN=128 STAGES=2 FPIPE=1 PARTS=1 $W"; do
    CLFORGE_GEMM_MMA_CONFIG="$c" CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=three_tf32_is_fp32_accurate timeout 100 ctest -R gemm_mixed -V > $r/acc.log 2>&1
    say "$c | $(grep -E 'rms error' $r/acc.log | sed 's/.*: fp32/fp32/') $(grep -E 'tests passed' $r/acc.log) | $(grep -ciE 'answers instead|warn' $r/acc.log) warnings"
  done
  for m in 3xtf32 tf32; do
    CLFORGE_GEMM_MMA_CONFIG="BM=128 BN=128 BK=16 WN=128 STAGES=3 FPIPE=1 PARTS=2 $W" timeout 60 $B --device gpu --modes $m --bt --reps 3 --shape 4096x4096x4096 2>&1 | tail -2 | tee -a "$log"
  done
  CLFORGE_TUNE_TRACE=$r/trace2.jsonl timeout 150 ./clforge tune --device gpu --family gemm_mma --precision f32 --bucket 3x \
    --budget ${TUNE_BUDGET:-45} 2>&1 | tail -1 | tee -a "$log"
  say "traced evaluations: $(grep -c . $r/trace2.jsonl), failed: $(grep -c '"failed"' $r/trace2.jsonl)"
fi
if [ "${PART:-check}" = ab ]; then
  old_build bench_gemm_mixed test_gemm_mixed
  say "== tests on the H200 (shipped defaults)"
  CLFORGE_TEST_DEVICES=0:0 timeout 300 ctest -R 'test_gemm_mixed|test_gemm_plan' -j2 --output-on-failure > $r/ctest.log 2>&1
  say "$(grep -E 'tests passed|Failed' $r/ctest.log | head -4)"
  for d in .. ../.old; do
    CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=three_tf32_is_fp32_accurate CLFORGE_SOURCE_DIR=$d timeout 100 $d/build-gpu/tests/test_gemm_mixed \
      > $r/acc.log 2>&1
    say "accuracy at k = 4096, $d: $(grep -E 'rms error' $r/acc.log | head -2 | tr '\n' ' ') $(grep -E 'Checks' $r/acc.log)"
  done
  for x in ${ABSHAPES:-"8192x8192x8192 --bt" "4096x4096x4096 --bt" "7168x6144x2560" "3500x4500x2200" "2500x9000x1800 --bt" \
           "1536x1536x12288" "16x768x768x768"}; do
    set -- $x; s=$1; shift; extra="$*"; batch=""
    case $s in *x*x*x*) batch=${s%%x*}; s=${s#*x};; esac
    for round in 1 2; do
      for v in old new; do
        d=.; [ $v = old ] && d=../.old/build-gpu
        t=$(B=$d/bench/bench_gemm_mixed CLFORGE_CACHE_DIR=/tmp/clf-cache-ab-$v rate3x $extra --shape $s ${batch:+--batch $batch})
        say "r$round | ${batch:+$batch x }$s $extra | $v | $t"
      done
    done
    say "$(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 $extra --shape $s ${batch:+--batch $batch} 2>&1 | grep cuBLAS) (SGEMM)"
  done
fi
