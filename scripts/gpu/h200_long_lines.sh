#!/usr/bin/env bash
# h200_long_lines.sh — on the GPU host: softmax and layer norm over few, long lines (vocabulary-sized rows),
#   clforge's one-call forms (bench_reduce --shapes) against torch.softmax / layer_norm and torch.compile, and
#   a copy of the same bytes, in one script.
#   PART=torch   torch and torch.compile on SHAPES
#   PART=split   clforge with CLFORGE_REDUCE_SPLIT=off (the kernels before: one group a line) and auto (lines
#                split across groups), alternating, ROUNDS rounds, and with each block size in BLOCKS;
#                first test_reduce on the GPU (CTEST=1: with the split forced on too)
#   PART=configs the fused configuration pinned (CLFORGE_REDUCE_CONFIG) to each of CONFIGS ("WG=256,VEC=1 ..."),
#                each with the split blocks in BLOCKS (or the default)
. scripts/gpu/common.sh
gpu_session long-lines
SHAPES=${SHAPES:-"2048x32768 4096x50257 1024x131072 512x152064 8192x8192"}
sh=""; for s in $SHAPES; do sh="$sh --shape $s"; done
red() {   # red LABEL: bench_reduce --shapes on SHAPES under the label
  say "-- $1"
  timeout 300 bench/bench_reduce --device gpu --shapes $sh 2>&1 | grep -E "x [0-9]+ " | sed "s/^/$1 | /" | tee -a "$log"
}
if [ "${PART:-split}" = split ]; then
  if [ -n "${CTEST:-}" ]; then
    for v in auto on; do
      ( CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 CLFORGE_REDUCE_SPLIT=$v timeout 300 tests/test_reduce > $r/test_reduce-$v.log 2>&1 )
      say "test_reduce split=$v rc=$? $(grep -E 'Checks' $r/test_reduce-$v.log | tr '\n' ' ')"
    done
  fi
  for round in ${ROUNDS:-1 2}; do
    for v in off auto; do CLFORGE_REDUCE_SPLIT=$v red "split=$v r$round"; done
  done
  for b in ${BLOCKS:-}; do CLFORGE_REDUCE_SPLIT_BLOCK=$b red "block=$b"; done
fi
if [ "${PART:-split}" = configs ]; then
  for c in ${CONFIGS:-}; do
    for b in ${BLOCKS:-default}; do
      if [ $b = default ]; then CLFORGE_REDUCE_CONFIG="${c//,/ }" red "cfg=$c"
      else CLFORGE_REDUCE_SPLIT_BLOCK=$b CLFORGE_REDUCE_CONFIG="${c//,/ }" red "cfg=$c block=$b"; fi
    done
  done
fi
if [ "${PART:-split}" = torch ]; then
  for s in $SHAPES; do
    say "== torch $s"
    timeout 200 python3 ../bench/torch_map.py --norms ${s%x*} ${s#*x} --json $r/torch-$s.json 2>&1 | grep -E "GB/s" | tee -a "$log"
  done
fi
date -u | tee -a "$log"
