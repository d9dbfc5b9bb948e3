#!/usr/bin/env bash
# h200_reduce_tune.sh — on the GPU host: the one-call softmax and layer norm on the heuristic (no H200 entry for
# the reduce family is shipped), then `clforge tune --family reduce --bucket fused` (f32, $BUDGET seconds,
# default 90), the same shapes again with the tuned entry, and (TORCH=1, the default) torch.compile's softmax
# and layer norm on the same host in the same script. The tuning database comes back in results.tgz.
# Run 2026-12-01 as is (reducetune.txt) and with BUDGET=60 TORCH=0 after the two-part problem (reducetune2.txt).
. scripts/gpu/common.sh
gpu_session reducetune
say "== $(date -u) bench_reduce --shapes, heuristic"
timeout 100 bench/bench_reduce --device gpu --shapes 2>&1 | tail -5 | tee -a "$log"
say "== tune"
timeout 200 ./clforge tune --device gpu --family reduce --bucket fused --precision f32 --budget "${BUDGET:-90}" \
  --json $r/tune-reduce.json 2>&1 | grep -v "^\[" | tail -4 | tee -a "$log"
cp -r $CLFORGE_CACHE_DIR/tuning $r/ 2>/dev/null
say "== bench_reduce --shapes, tuned"
timeout 100 bench/bench_reduce --device gpu --shapes 2>&1 | tail -5 | tee -a "$log"
if [ "${TORCH:-1}" = 1 ]; then
  say "== torch (eager and compiled)"
  for s in "8192 8192" "4096 16384" "32768 1024"; do
    timeout 100 python3 ../bench/torch_map.py --norms $s --json $r/torch-norms-${s/ /x}.json 2>&1 | grep -v "^W" | tail -4 | tee -a "$log"
  done
fi
say "== $(date -u)"
