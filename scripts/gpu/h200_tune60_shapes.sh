#!/usr/bin/env bash
# h200_tune60_shapes.sh — on the GPU host, from the repository root, on a fresh machine (nothing compiled
# before it, so that the tune starts as cold as a new user's):
#  1. `clforge tune --family gemm --budget 60` over the medium and large buckets from an empty cache with
#     the shipped defaults off (CLFORGE_SHIPPED=off), with the evaluation trace; each result measured at
#     1024^3 and 4096^3;
#  2. the GEMM shapes around the small/medium boundary and the irregular ones, clforge vs CLBlast
#     (bench_gemm) and cuBLAS (PyTorch) in this one script;
#  3. every test suite on the H200.
. scripts/gpu/common.sh
gpu_results
gpu_build
date -u
echo "== clforge tune --family gemm --budget 60 (medium, large), empty cache, shipped defaults off"
rm -rf /tmp/tune60
/usr/bin/time -f "wall %e s" env CLFORGE_SHIPPED=off CLFORGE_CACHE_DIR=/tmp/tune60 CLFORGE_TUNE_TRACE=$r/trace-tune60.jsonl \
  ./clforge tune --device nvidia --family gemm --precision f32 --bucket medium,large --budget 60 \
  --json $r/tune60.json 2>&1 | grep -v "^gemm f32"
for bucket in medium large; do
  cfg=$(python3 -c "
import json
print([e['config'] for e in json.load(open('$r/tune60.json'))['entries'] if e['bucket'] == '$bucket'][0])")
  shape=1024x1024x1024; [ $bucket = large ] && shape=4096x4096x4096
  CLFORGE_GEMM_CONFIG="$cfg" timeout 30 bench/bench_gemm --device nvidia --no-clblast --shape $shape \
    --json $r/measured-tune60-$bucket.json 2>&1 | grep -E "^ *[0-9]+x"
done
export CLFORGE_CACHE_DIR=/tmp/clf-cache
shapes="512x512x512 544x544x544 640x640x640 768x768x768 896x896x896 1024x1024x1024 1000x3000x700
        4096x4096x4096 4097x4097x4097 64x4096x4096 4096x64x4096 256x4096x4096"
args=; for s in $shapes; do args="$args --shape $s"; done
echo "== clforge vs CLBlast"
timeout 120 bench/bench_gemm --device nvidia $args --json $r/shapes-h200.json 2>&1 | grep -E "^ *[0-9]+x"
echo "== cuBLAS (PyTorch, TF32 off)"
timeout 60 python3 ../bench/torch_gemm.py $args --json $r/cublas-shapes-h200.json 2>&1 | grep -E "^ *[0-9]+x"
echo "== test suites on the H200"
( CLFORGE_TEST_DEVICES=0:0 CLFORGE_GEMM_TEST_CASES=1000 timeout 150 ctest -j8 --output-on-failure ) > $r/ctest-h200.log 2>&1
grep -E "tests passed|Passed|Failed|Timeout" $r/ctest-h200.log | tail -12
date -u
