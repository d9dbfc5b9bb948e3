#!/usr/bin/env bash
# h200_thin_tile.sh — on the GPU host: gemv_tile (the vectors' products staged through local memory) against the
# shipped thin entries. PART=check: test_gemv's tile and random cases on the H200 (first device). PART=sweep:
# bench_gemv over thin shapes in three orientations with CLFORGE_GEMV_CONFIG settings ($CONFIGS, "|"-separated;
# "-" is the shipped entry), fp32 then fp64 ($F64 1); ORIENT lists the orientations (default: NN,NT,TN as "",
# --trans-b, --trans; "NN" stands for ""). PART=regs: registers of gemv_tile per setting (ptxas, -cl-nv-verbose).
# PART=profile: per-kernel times of 4096x16x4096 (the tile kernel and the split's second pass). PART=torch: cuBLAS on
# the same shapes (NN, --at, --bt; F64=1 adds fp64). PART=all: check and sweep.
. scripts/gpu/common.sh
gpu_session thintile
PART=${PART:-all}
thin=${THIN_SHAPES:-"--shape 4096x16x4096 --shape 4096x12x4096 --shape 3000x11x6000 --shape 8192x16x2048 --shape 2048x10x8192 --shape 4096x8x4096 --shape 6144x13x5120 --shape 16x4096x4096 --shape 12x8192x2048 --shape 14x6000x3000 --shape 8x4096x4096 --shape 9x7000x5000"}
if [ "$PART" = check ] || [ "$PART" = all ]; then
  say "== test_gemv tile + random (H200)"
  ( CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=tile timeout 300 tests/test_gemv; CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=random timeout 300 tests/test_gemv ) > $r/check.log 2>&1
  grep -E "random cases|Checks|fail|case:" $r/check.log | head -20 | tee -a "$log"
fi
if [ "$PART" = sweep ] || [ "$PART" = all ]; then
  IFS='|' read -ra confs <<< "${CONFIGS:--|TM=1|TM=2|TM=4|TM=2 WG=128|TM=4 WG=128|TM=4 BK=64|TM=4 GPB=2|TM=4 GPB=4|TM=2 GPB=4}"
  for o in ${ORIENT:-NN --trans-b --trans}; do
    [ "$o" = NN ] && o=""
    for c in "${confs[@]}"; do
      if [ "$c" = - ]; then unset CLFORGE_GEMV_CONFIG; else export CLFORGE_GEMV_CONFIG="$c"; fi
      gemv_bench "f32 $o [$c]" $o
    done
  done
  unset CLFORGE_GEMV_CONFIG
  if [ "${F64:-0}" = 1 ]; then
    for c in "${confs[@]}"; do
      if [ "$c" = - ]; then unset CLFORGE_GEMV_CONFIG; else export CLFORGE_GEMV_CONFIG="$c"; fi
      gemv_bench "f64 [$c]" --f64
    done
  fi
fi
if [ "$PART" = torch ]; then   # cuBLAS through PyTorch on the same shapes: A.B, A stored transposed, B stored transposed
  ts=$(echo $thin | sed 's/--shape //g')
  for o in "" --at --bt; do
    say "== torch ${o:-NN}"
    python3 ../bench/torch_gemm.py $o $(for s in $ts; do echo --shape $s; done) --json $r/torch${o:-NN}.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
  done
  [ "${F64:-0}" = 1 ] && { say "== torch f64"; python3 ../bench/torch_gemm.py --f64 $(for s in $ts; do echo --shape $s; done) --json $r/torchf64.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"; }
fi
if [ "$PART" = regs ]; then
  IFS='|' read -ra confs <<< "${CONFIGS:-TM=1|TM=2|TM=4|TM=2 WG=128|TM=4 WG=128|TM=2 WG=64}"
  for o in "" --trans; do
    for c in "${confs[@]}"; do
      reg=$(CLFORGE_CACHE_DIR=/tmp/clf-cache-reg-$RANDOM CLFORGE_GEMV_CONFIG="THIN=16 $c" CLFORGE_BUILD_OPTIONS=-cl-nv-verbose \
            CLFORGE_BUILD_LOG=1 timeout 60 bench/bench_gemv --device gpu --no-clblast --reps 1 --shape 512x16x512 $o 2>&1 |
            grep -A4 "Compiling entry function 'gemv_tile'" | grep -E "registers|spill" | tr '\n' ' ')
      say "regs ${o:-NN} [$c]: $reg"
    done
  done
fi
if [ "$PART" = profile ]; then
  IFS='|' read -ra confs <<< "${CONFIGS:--|TM=2 WG=128|TM=2 WG=128 GPB=4}"
  for c in "${confs[@]}"; do
    if [ "$c" = - ]; then unset CLFORGE_GEMV_CONFIG; else export CLFORGE_GEMV_CONFIG="$c"; fi
    say "== profile [$c]"
    CLFORGE_PROFILE=1 timeout 60 bench/bench_gemv --device gpu --no-clblast --shape ${PSHAPE:-4096x16x4096} 2>&1 |
      grep -E "x[0-9]+x|sgemv|dgemv" | tee -a "$log"
  done
  unset CLFORGE_GEMV_CONFIG
fi
date -u | tee -a "$log"
