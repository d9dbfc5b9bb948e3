#!/usr/bin/env bash
# h200_3xtf32_mmasync.sh — on the GPU host: 3xTF32 on mma.sync (CLFORGE_WGMMA=off; the split inside the kernel) with
# the inf fix's masks against kernel sources given as folders (CLFORGE_KERNEL_DIR), in alternating rounds in one
# session, after the accuracy tests with wgmma off. VARIANTS: "label=folder ..." (folder relative to the repository
# root; "new" is the built-in sources). Appends to $out/mmasync.txt.
. scripts/gpu/common.sh
gpu_session mmasync
export CLFORGE_GEMM_SPLIT_RULE=off CLFORGE_WGMMA=off
for t in three_tf32_elementwise three_tf32_is_fp32_accurate; do
  CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 CK_RUN_CASE=$t timeout 300 tests/test_gemm_mixed > $r/t-$t.log 2>&1
  say "$t wgmma=off rc=$? $(grep -E 'Checks|rms error' $r/t-$t.log | head -3 | tr '\n' ' ')"
done
SH=${SHAPES:-"4096x4096x4096 2048x2048x2048 3001x2999x1537"}
sh=""; for s in $SH; do sh="$sh --shape $s"; done
for round in ${ROUNDS:-1 2}; do
  for v in ${VARIANTS:-new}; do
    label=${v%%=*}; dir=${v#*=}
    say "-- $label round $round"
    ( [ "$dir" != "$label" ] && export CLFORGE_KERNEL_DIR=$PWD/../$dir
      timeout 200 bench/bench_gemm_mixed --device gpu --bt --modes 3xtf32 --reps 5 $sh 2>&1 ) |
      grep -E "GFLOP|rror|warn" | sed "s/^/$label r$round | /" | tee -a "$log"
  done
done
date -u | tee -a "$log"
