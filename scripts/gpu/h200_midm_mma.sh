#!/usr/bin/env bash
# h200_midm_mma.sh — on the GPU host: which matrix-unit tiles and K splits run half-precision products with a
#   few hundred rows (a batch of tokens times a weight matrix) fastest.
#   PART=sweep   every configuration in CFGS (forced by CLFORGE_GEMM_MMA_CONFIG) times every forced split in
#                SPLITS over SHAPES, the planner's own choice (twice) and cuBLAS (torch.matmul) in the same script;
#                MODE (default f16h: f16 in and out, fp32 accumulation; tf32: the stages keep their bytes), B stored
#                N x K.
#   PART=ab      this build against the one in .old (a worktree of the commit before), alternating rounds, over
#                ABSHAPES in each MODE:LAYOUT of MODES (LAYOUT bt: B stored N x K, nn: K x N; default "f16h:bt"),
#                cuBLAS once per entry, after the mixed-precision suite and the planner tests on the H200 (CTEST=1:
#                the whole suite); BATCHES: each product also as batches of these counts.
. scripts/gpu/common.sh
gpu_session midm-mma
PART=${PART:-sweep}
W="LDSM=0 FPIPE=0 ASYNC=1 SWZ=1 WGMMA=1"
k=32; [ "${MODE:-f16h}" = tf32 ] && k=16   # stages of 64-byte rows (128-byte for the 64 x 64 tiles)
declare -A CFG=(
  [L128x128]="BM=128 BN=128 BK=$k WM=64 WN=128 STAGES=3 $W"
  [N128x64]="BM=128 BN=64 BK=$k WM=64 WN=64 STAGES=4 $W"
  [W64x128]="BM=64 BN=128 BK=$k WM=64 WN=128 STAGES=4 $W"
  [Q64x64]="BM=64 BN=64 BK=$((2 * k)) WM=64 WN=64 STAGES=3 $W"
)
# mma_bench LABEL [OPTIONS...]: bench_gemm_mixed (or $B) on the GPU in $MODE, B stored N x K, said under the label.
mma_bench() {
  local label=$1; shift
  say "-- $label"
  timeout 150 ${B:-bench/bench_gemm_mixed} --device gpu --modes ${MODE:-f16h} ${BT---bt} --reps 10 "$@" 2>&1 |
    grep -E "GFLOP|rror|warn" | cut -c1-90 | sed "s/^/$label | /" | tee -a "$log"
}
torch_dtype() { case ${MODE:-f16h} in bf16*) echo bf16;; tf32) echo tf32;; 3xtf32) echo f32;; f64) echo f64;; *) echo f16;; esac; }
if [ "$PART" = sweep ]; then
  sh=""; for s in ${SHAPES:?}; do sh="$sh --shape $s"; done
  say "== cuBLAS"
  timeout 150 python3 ../bench/torch_gemm.py --dtype $(torch_dtype) --bt $sh --json $r/cublas.json 2>&1 |
    grep -E "cuBLAS|rror" | tee -a "$log"
  mma_bench "rule" $sh --json $r/rule.json
  for c in ${CFGS:-L128x128 N128x64 W64x128 Q64x64}; do
    for sp in ${SPLITS:-1 2 3 4}; do
      CLFORGE_GEMM_MMA_CONFIG="${CFG[$c]}" CLFORGE_GEMM_SPLIT_K=$sp mma_bench "$c s$sp" $sh
    done
  done
  mma_bench "rule again" $sh
fi
if [ "$PART" = ab ]; then
  say "== mixed-precision GEMM suite and planner tests on the H200"
  if [ -n "${NOTEST:-}" ]; then
    say "(tests not run: NOTEST)"
  elif [ -n "${CTEST:-}" ]; then   # the whole suite instead (the three tests that need packages or a network fail there)
    ( CLFORGE_TEST_DEVICES=0:0 timeout 400 ctest -j8 --output-on-failure ) > $out/ctest-h200.log 2>&1
    grep -E "tests passed|Failed|Timeout" $out/ctest-h200.log | tail -8 | tee -a "$log"
  else
    for t in test_gemm_mixed test_gemm_plan; do
      ( CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 timeout 300 tests/$t > $r/$t.log 2>&1 )
      say "$t rc=$? $(grep -E 'Checks' $r/$t.log | tr '\n' ' ')"
    done
  fi
  old_build bench_gemm_mixed
  ss=""; for s in ${ABSHAPES:?}; do ss="$ss --shape $s"; done
  for ml in ${MODES:-f16h:bt}; do
    MODE=${ml%%:*}; BT=; [ "${ml#*:}" = bt ] && BT=--bt
    say "== cuBLAS ($ml)"
    timeout 150 python3 ../bench/torch_gemm.py --dtype $(torch_dtype) $BT $ss --json $r/cublas-$MODE-${ml#*:}.json 2>&1 |
      grep -E "cuBLAS|rror" | tee -a "$log"
    for b in ${BATCHES:-1}; do
      [ "$b" = 1 ] || timeout 150 python3 ../bench/torch_gemm.py --dtype $(torch_dtype) $BT --batch $b $ss 2>&1 |
        grep -E "cuBLAS|rror" | sed "s/^/batch $b /" | tee -a "$log"
      for round in 1 2; do
        for v in old new; do
          d=.; [ $v = old ] && d=../.old/build-gpu
          B=$d/bench/bench_gemm_mixed CLFORGE_CACHE_DIR=/tmp/clf-cache-ab-$v mma_bench "$v $ml b$b r$round" $ss \
            --batch $b --json $r/ab-$v-$MODE-${ml#*:}-b$b-$round.json
        done
      done
    done
  done
fi
date -u | tee -a "$log"
