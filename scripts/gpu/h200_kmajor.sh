#!/usr/bin/env bash
# h200_kmajor.sh — on the GPU host: f16/bf16 operands stored K-major (B stored K x N as x W has it; A stored K x M)
# read in place by mma.sync configurations (ldmatrix.trans; the kernel's AKM/BKN) against the default (wgmma after
# the packing pass), on skinny and square products, with cuBLAS (torch.matmul) in the same script.
#   PART=check   the mixed suite with the default and with an mma.sync configuration forced (K-major operands
#                then read in place), then the sweep below
#   CFGS         configurations to time (names below), SHAPES, MODES, SPLITS (forced split-K values, 0 = rule)
. scripts/gpu/common.sh
gpu_session kmajor
PART=${PART:-check}
declare -A C=(
  [sync128]="BM=128 BN=128 BK=32 WM=64 WN=64 LDSM=1 STAGES=3 FPIPE=1 ASYNC=1 SWZ=1 DK=4 WGMMA=0"
  [sync64]="BM=64 BN=128 BK=32 WM=32 WN=64 LDSM=1 STAGES=4 FPIPE=1 ASYNC=1 SWZ=1 DK=4 WGMMA=0"
  [sync32]="BM=32 BN=128 BK=32 WM=32 WN=32 LDSM=1 STAGES=4 FPIPE=1 ASYNC=1 SWZ=1 DK=4 WGMMA=0"
  [sync64k]="BM=64 BN=64 BK=64 WM=32 WN=32 LDSM=1 STAGES=3 FPIPE=1 ASYNC=1 SWZ=1 DK=4 WGMMA=0"
)
if [ "$PART" = check ] || [ "$PART" = rule ]; then
  say "== $(date -u) test_gemm_mixed (H200), default"
  CLFORGE_TEST_DEVICES=0:0 timeout 200 tests/test_gemm_mixed > $r/suite-default.log 2>&1; say "rc=$? $(tail -1 $r/suite-default.log)"
  grep -E "K-major|:F:|:E:|warning" $r/suite-default.log | head -10 | tee -a "$log"
  for t in ${TESTS:-}; do
    CLFORGE_TEST_DEVICES=0:0 timeout 300 tests/$t > $r/$t.log 2>&1; say "$t rc=$? $(tail -1 $r/$t.log)"
  done
  [ "$PART" = check ] && {
  say "== test_gemm_mixed with sync64 forced (K-major operands in place)"
  CLFORGE_GEMM_MMA_CONFIG="${C[sync64]}" CLFORGE_TEST_DEVICES=0:0 timeout 200 tests/test_gemm_mixed > $r/suite-sync64.log 2>&1
  say "rc=$? $(tail -1 $r/suite-sync64.log)"; grep -E "fail|FAIL|Error|wrong" $r/suite-sync64.log | head -10 | tee -a "$log"
  }
fi
B=bench/bench_gemm_mixed
MODES=${MODES:-f16h}
if [ "$PART" != rule ]; then
SHAPES=${SHAPES:-"16x8192x8192 32x8192x8192 64x8192x8192 128x8192x8192 256x8192x8192 128x14336x4096 512x4096x4096 1024x4096x4096 2048x2048x2048 4096x4096x4096"}
CFGS=${CFGS:-"default sync128 sync64 sync32"}
SPLITS=${SPLITS:-0}
sh=""; for s in $SHAPES; do sh="$sh --shape $s"; done
LAYS=${LAYS:-"NN AT"}
for L in $LAYS; do
  lay=""; [ $L = AT ] && lay="--at"
  say "-- cuBLAS ${lay:-NN}"
  timeout 120 python3 ../bench/torch_gemm.py --dtype f16 $lay $sh --json $r/cublas${lay}.json 2>&1 | grep cuBLAS | tee -a "$log"
  for c in $CFGS; do
    for sp in $SPLITS; do
      if [ $c = default ]; then unset CLFORGE_GEMM_MMA_CONFIG; else export CLFORGE_GEMM_MMA_CONFIG="${C[$c]}"; fi
      if [ $sp = 0 ]; then unset CLFORGE_GEMM_SPLIT_K; else export CLFORGE_GEMM_SPLIT_K=$sp; fi
      say "-- $c split=$sp ${lay:-NN}"
      timeout 150 $B --device gpu $lay --modes $MODES --reps 10 $sh --json $r/$c-s$sp${lay}.json 2>&1 | grep -E "GFLOP|rror|warning" | cut -c1-220 | tee -a "$log"
    done
  done
  unset CLFORGE_GEMM_MMA_CONFIG CLFORGE_GEMM_SPLIT_K
done
fi
# PART=rule: the planner as built against packing as before (CLFORGE_GEMM_MMA_MN=pack) and forced configurations
# (VARIANTS), alternating, ROUNDS rounds; batched products; thin products.
# variant V: rule (the planner as built), pack (K-major operands packed: CLFORGE_GEMM_MMA_MN=pack), or a name of
# the configurations above, forced
variant() {
  unset CLFORGE_GEMM_MMA_MN CLFORGE_GEMM_MMA_CONFIG
  case $1 in rule) ;; pack) export CLFORGE_GEMM_MMA_MN=pack ;; *) export CLFORGE_GEMM_MMA_CONFIG="${C[$1]}" ;; esac
}
if [ "$PART" = rule ]; then
  ROUNDS=${ROUNDS:-2}
  VARIANTS=${VARIANTS:-"rule pack"}
  NN=${NN:-"8x8192x8192 32x8192x8192 64x8192x8192 128x8192x8192 256x8192x8192 512x8192x8192 768x8192x8192 1024x8192x8192 128x14336x4096 512x4096x4096 4096x4096x4096"}
  AT=${AT:-"8192x32x8192 8192x128x8192 8192x512x8192 4096x1024x4096 4096x4096x4096"}
  for L in NN AT; do
    lay=""; [ $L = AT ] && lay="--at"
    eval shapes=\$$L; sh=""; for s in $shapes; do sh="$sh --shape $s"; done
    timeout 120 python3 ../bench/torch_gemm.py --dtype f16 $lay $sh --json $r/cublas-$L.json 2>&1 | grep cuBLAS | sed "s/^/$L /" | tee -a "$log"
    for round in $(seq $ROUNDS); do
      for v in $VARIANTS; do
        variant $v
        timeout 150 $B --device gpu $lay --modes $MODES --reps 10 $sh --json $r/$v-$L-$round.json 2>&1 | grep -E "GFLOP|rror|warning" | cut -c1-120 | sed "s/^/$v /" | tee -a "$log"
      done
    done
    unset CLFORGE_GEMM_MMA_MN CLFORGE_GEMM_MMA_CONFIG
  done
  say "-- batched NN"
  for s in "512 128x64x128" "64 256x256x256" "32 512x512x128" "16 1024x1024x1024"; do
    set -- $s
    c=$(timeout 60 python3 ../bench/torch_gemm.py --dtype f16 --batch $1 --shape $2 2>&1 | grep cuBLAS)
    for v in $VARIANTS; do
      variant $v
      t=$(timeout 60 $B --device gpu --modes $MODES --reps 10 --batch $1 --shape $2 2>&1 | grep -E "GFLOP|rror")
      say "batch $1 $v | $t | $c"
    done
    unset CLFORGE_GEMM_MMA_MN CLFORGE_GEMM_MMA_CONFIG
  done
  say "-- thin NN (pack: the gemv kernels, as before)"
  sh="--shape 2x8192x8192 --shape 4x8192x8192 --shape 8x8192x8192 --shape 16x8192x8192 --shape 16x4096x4096 --shape 8x14336x4096"
  timeout 120 python3 ../bench/torch_gemm.py --dtype f16 $sh 2>&1 | grep cuBLAS | tee -a "$log"
  for v in $VARIANTS; do
    variant $v
    timeout 150 $B --device gpu --modes f16h,bf16h --reps 10 $sh 2>&1 | grep -E "GFLOP|rror|warning" | cut -c1-120 | sed "s/^/$v /" | tee -a "$log"
  done
  unset CLFORGE_GEMM_MMA_MN CLFORGE_GEMM_MMA_CONFIG
fi
# PART=splits: products of 96 to 1024 rows (B stored K x N read in place, and B stored N x K) under the planner's
# split rule against forced splits along K (CLFORGE_GEMM_SPLIT_K), and 128-wide tiles forced (SPLITCFG).
if [ "$PART" = splits ]; then
  SH=${SH:-"128x8192x8192 200x8192x8192 256x8192x8192 512x8192x8192 96x12288x4096 700x5000x3000"}
  sh=""; for s in $SH; do sh="$sh --shape $s"; done
  for lay in "" "--bt"; do
    timeout 120 python3 ../bench/torch_gemm.py --dtype f16 $lay $sh 2>&1 | grep cuBLAS | sed "s/^/${lay:-NN} /" | tee -a "$log"
    for sp in ${SPLITS_F:-rule 1 2 4}; do
      unset CLFORGE_GEMM_SPLIT_K; [ $sp != rule ] && export CLFORGE_GEMM_SPLIT_K=$sp
      timeout 150 $B --device gpu $lay --modes f16h --reps 10 $sh --json $r/split-$sp${lay}.json 2>&1 | grep -E "GFLOP|rror" | cut -c1-100 | sed "s/^/split=$sp /" | tee -a "$log"
    done
    unset CLFORGE_GEMM_SPLIT_K
    for c in ${SPLITCFG:-}; do
      export CLFORGE_GEMM_MMA_CONFIG="$c"
      for sp in 1 2; do
        export CLFORGE_GEMM_SPLIT_K=$sp
        timeout 150 $B --device gpu $lay --modes f16h --reps 10 $sh 2>&1 | grep -E "GFLOP|rror" | cut -c1-100 | sed "s/^/cfg=${c// /,} split=$sp /" | tee -a "$log"
      done
    done
    unset CLFORGE_GEMM_MMA_CONFIG CLFORGE_GEMM_SPLIT_K
  done
fi
