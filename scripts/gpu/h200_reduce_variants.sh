#!/usr/bin/env bash
# h200_reduce_variants.sh — on the GPU host: bench_reduce --shapes over SHAPES with kernel sources given as folders
# (VARIANTS: "label=folder ..." relative to the repository root, read through CLFORGE_KERNEL_DIR; a bare label is
# the built-in sources), in alternating rounds (ROUNDS). Appends to $out/reduce-variants.txt.
. scripts/gpu/common.sh
gpu_session reduce-variants
SHAPES=${SHAPES:-"8192x8192 4096x16384"}
sh=""; for s in $SHAPES; do sh="$sh --shape $s"; done
for round in ${ROUNDS:-1 2}; do
  for v in ${VARIANTS:-new}; do
    label=${v%%=*}; dir=${v#*=}
    ( [ "$dir" != "$label" ] && export CLFORGE_KERNEL_DIR=$PWD/../$dir
      timeout 200 bench/bench_reduce --device gpu --shapes $sh 2>&1 ) | grep -E "x [0-9]+ |rror" |
      sed "s/^/$label r$round | /" | tee -a "$log"
  done
done
date -u | tee -a "$log"
