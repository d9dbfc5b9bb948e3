#!/usr/bin/env bash
# h200_tune60_repeat.sh — on the GPU host, from the repository root: two more 60 s GEMM tunes of the
# medium and large buckets from empty caches with the shipped defaults off and NVIDIA's own kernel cache
# off (CUDA_CACHE_DISABLE=1, so that neither run profits from the other's compiles), each measured at
# 1024^3 and 4096^3; then `clforge bench --quick` on the host's PoCL (16 Xeon cores).
. scripts/gpu/common.sh
gpu_results
gpu_build
date -u
for run in 2 3; do
  echo "== run $run: clforge tune --family gemm --budget 60 (medium, large)"
  rm -rf /tmp/tune60-$run
  /usr/bin/time -f "wall %e s" env CUDA_CACHE_DISABLE=1 CLFORGE_SHIPPED=off CLFORGE_CACHE_DIR=/tmp/tune60-$run \
    CLFORGE_TUNE_TRACE=$r/trace-tune60-$run.jsonl ./clforge tune --device nvidia --family gemm --precision f32 \
    --bucket medium,large --budget 60 --json $r/tune60-$run.json 2>&1 | grep -v "^gemm f32"
  for bucket in medium large; do
    cfg=$(python3 -c "
import json
print([e['config'] for e in json.load(open('$r/tune60-$run.json'))['entries'] if e['bucket'] == '$bucket'][0])")
    shape=1024x1024x1024; [ $bucket = large ] && shape=4096x4096x4096
    CLFORGE_GEMM_CONFIG="$cfg" timeout 30 bench/bench_gemm --device nvidia --no-clblast --shape $shape \
      --json $r/measured-tune60-$run-$bucket.json 2>&1 | grep -E "^ *[0-9]+x"
  done
done
echo "== clforge bench on the GPU host's PoCL"
CLFORGE_CACHE_DIR=/tmp/pocl timeout 170 ./clforge bench --device pocl --quick --json $r/bench-pocl-xeon16.json 2>/dev/null
date -u
