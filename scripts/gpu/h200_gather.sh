#!/usr/bin/env bash
# h200_gather.sh — on the GPU host: matrix-unit operands whose rows cp.async cannot copy (odd K, odd leading
#   dimensions), gathered by the kernel (GA, GB) against packed first.
#   First the mixed-precision, GEMM and planner suites on the H200 (NOTEST=1: skipped). Then
#   ab:    this build against the one in .old (a worktree of the commit before), two alternating rounds, over SHAPES
#          in each MODE:LAYOUT of MODES (bt: B stored N x K, nn: K x N), with the aligned neighbours in EVEN;
#   force: this build with CLFORGE_GEMM_MMA_GATHER=pack against =always over LARGE, two alternating rounds;
#   then cuBLAS (torch.matmul) over the same shapes. PARTS: which of them (default "ab force").
. scripts/gpu/common.sh
gpu_session gather
if [ -z "${NOTEST:-}" ]; then
  for t in test_gemm_mixed test_gemm_plan test_gemm; do
    ( CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 timeout 300 tests/$t > $r/$t.log 2>&1 )
    say "$t rc=$? $(grep -E 'Checks' $r/$t.log | tr '\n' ' ')"
  done
fi
bench() {   # LABEL BENCH MODE LAYOUT SHAPES...
  local label=$1 b=$2 m=$3 bt=; shift 3; [ "$1" = bt ] && bt=--bt; shift
  local ss=""; for s in "$@"; do ss="$ss --shape $s"; done
  timeout 200 $b --device gpu --modes $m $bt --reps 20 $ss 2>&1 | grep -E "GFLOP|rror|warn" | cut -c1-90 |
    sed "s/^/$label | /" | tee -a "$log"
}
torch_dtype() { case $1 in bf16*) echo bf16;; tf32) echo tf32;; f64) echo f64;; f32) echo f32;; *) echo f16;; esac; }
MODES=${MODES:-f16h:bt f16h:nn tf32:bt f64:nn}
SHAPES=${SHAPES:-777x1555x999 1000x1000x999 1500x700x905 333x4097x2001 129x257x77}
EVEN=${EVEN:-768x1536x1024 1024x1024x1024}
LARGE=${LARGE:-4097x4097x4097 3001x3001x3001 2000x3000x999 5000x5000x1001}
if [[ " ${PARTS:-ab force} " == *" ab "* ]]; then
  old_build bench_gemm_mixed
  for round in 1 2; do
    for v in old new; do
      b=bench/bench_gemm_mixed; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
      for ml in $MODES; do
        CLFORGE_CACHE_DIR=/tmp/clf-cache-gather-$v bench "$v r$round $ml" $b ${ml%%:*} ${ml#*:} $SHAPES $EVEN
      done
    done
  done
fi
if [[ " ${PARTS:-ab force} " == *" force "* ]]; then
  for round in 1 2; do
    for g in pack always; do
      for ml in ${FMODES:-f16h:bt tf32:bt}; do
        CLFORGE_GEMM_MMA_GATHER=$g bench "$g r$round $ml" bench/bench_gemm_mixed ${ml%%:*} ${ml#*:} $LARGE
      done
    done
  done
fi
say "== cuBLAS"
for ml in $MODES; do
  bt=; [ "${ml#*:}" = bt ] && bt=--bt
  ss=""; for s in $SHAPES $EVEN $LARGE; do ss="$ss --shape $s"; done
  timeout 150 python3 ../bench/torch_gemm.py --dtype $(torch_dtype ${ml%%:*}) $bt $ss 2>&1 | grep -E "cuBLAS|rror" |
    sed "s/^/$ml | /" | tee -a "$log"
done
date -u | tee -a "$log"
