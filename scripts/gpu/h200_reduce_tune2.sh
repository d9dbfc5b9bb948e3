#!/usr/bin/env bash
# h200_reduce_tune2.sh — on the GPU host: the reduce family's fused bucket tuned on its two-part problem (a
# softmax over lines of 8192 and a layer norm over lines of 1024), then the one-call softmax and layer norm on
# the heuristic and on the tuned entry, in the same script.
. scripts/gpu/common.sh
gpu_session reducetune2
say "== $(date -u) bench_reduce --shapes, heuristic"
timeout 60 bench/bench_reduce --device gpu --shapes 2>&1 | tail -5 | tee -a "$log"
say "== tune"
timeout 100 ./clforge tune --device gpu --family reduce --bucket fused --precision f32 --budget 60 \
  --json $r/tune-reduce.json 2>&1 | grep -v "^\[" | tail -3 | tee -a "$log"
say "== bench_reduce --shapes, tuned"
timeout 60 bench/bench_reduce --device gpu --shapes 2>&1 | tail -5 | tee -a "$log"
say "== $(date -u)"
