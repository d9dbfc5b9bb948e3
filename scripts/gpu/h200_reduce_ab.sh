#!/usr/bin/env bash
# h200_reduce_ab.sh — on the GPU host: softmax and layer norm (bench_reduce --shapes) with the kernel sources of an
# earlier build (OLD_CL: a folder of cl/*.cl, read through CLFORGE_KERNEL_DIR) against the built-in ones, in
# alternating rounds (ROUNDS), after test_reduce on the GPU (split as planned and forced on); OLD_ENV instead of
# OLD_CL: "old" is the built-in sources under that environment (e.g. CLFORGE_REDUCE_FRAME=off); TORCH_SHAPES: torch
# and torch.compile on those too; OPTS: further rounds of the built-in sources, one per compiler option given (through
# CLFORGE_BUILD_OPTIONS, e.g. -DCLF_WSPLIT=8; commas for spaces). Appends to $out/reduce-ab.txt.
. scripts/gpu/common.sh
OLD_CL=$([ -n "${OLD_ENV:-}" ] || cd "${OLD_CL:?a folder of the earlier cl/*.cl, or OLD_ENV}" && pwd)
gpu_session reduce-ab
for v in $([ "${CTEST:-1}" = 1 ] && echo auto on); do   # CTEST=0: no tests
  ( CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 CLFORGE_REDUCE_SPLIT=$v timeout 300 tests/test_reduce > $r/test_reduce-$v.log 2>&1 )
  say "test_reduce split=$v rc=$? $(grep -E 'Checks' $r/test_reduce-$v.log | tr '\n' ' ')"
done
SHAPES=${SHAPES:-"4096x50257 2048x32768 8192x8191 16384x4095"}
sh=""; for s in $SHAPES; do sh="$sh --shape $s"; done
for round in ${ROUNDS:-1 2}; do
  for k in old new ${OPTS:-}; do
    say "-- $k r$round"
    ( [ $k = old ] && if [ -n "${OLD_ENV:-}" ]; then export ${OLD_ENV?}; else export CLFORGE_KERNEL_DIR=$OLD_CL; fi
      case $k in -D*) export CLFORGE_BUILD_OPTIONS="${k//,/ }" ;; esac
      timeout 200 bench/bench_reduce --device gpu --shapes $sh 2>&1 ) | grep -E "x [0-9]+ " | sed "s/^/$k r$round | /" |
      tee -a "$log"
  done
done
for s in ${TORCH_SHAPES:-}; do
  say "== torch $s"
  timeout 200 python3 ../bench/torch_map.py --norms ${s%x*} ${s#*x} --json $r/torch-$s.json 2>&1 | grep -E "GB/s" | tee -a "$log"
done
date -u | tee -a "$log"
