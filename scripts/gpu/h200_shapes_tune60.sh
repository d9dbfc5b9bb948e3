#!/usr/bin/env bash
# h200_shapes_tune60.sh — run on the GPU host from the repository root (see DEVELOPERS in README):
#  1. test_gemm on the H200 (split-K is automatic there, unlike on CPU devices);
#  2. the GEMM shapes of issue 3 against CLBlast (bench_gemm) and cuBLAS (PyTorch) in this one script,
#     plus a split-K sweep (CLFORGE_GEMM_SPLIT_K=1 is "never split") on the shapes it affects;
#  3. `clforge tune --family gemm --budget 60` over the medium and large buckets as a device nobody has
#     tuned (empty cache, CLFORGE_SHIPPED=off), with the evaluation trace, and that result measured
#     at 1024^3 and 4096^3.
# Everything lands in $OUT as one tarball (the device tool brings back few files).
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache
date -u
echo "== test_gemm on the H200"
CLFORGE_TEST_DEVICES=0:0 CLFORGE_GEMM_TEST_CASES=1000 timeout 120 tests/test_gemm > $r/test_gemm-h200.log 2>&1
tail -2 $r/test_gemm-h200.log
shapes="512x512x512 544x544x544 1024x1024x1024 1000x3000x700 4096x4096x4096 4097x4097x4097 64x4096x4096
        4096x64x4096 4096x4096x64 256x4096x4096 128x8192x8192 4096x4096x16384"
args=; for s in $shapes; do args="$args --shape $s"; done
echo "== clforge vs CLBlast"
timeout 150 bench/bench_gemm --device nvidia $args --json $r/shapes-h200.json 2>&1 | grep -v "^ *sweep"
echo "== cuBLAS (PyTorch, TF32 off)"
timeout 60 python3 ../bench/torch_gemm.py $args --json $r/cublas-shapes-h200.json 2>&1
echo "== split-K sweep (clforge only)"
for p in 1 2 4 8 16; do
  echo "-- CLFORGE_GEMM_SPLIT_K=$p"
  CLFORGE_GEMM_SPLIT_K=$p timeout 40 bench/bench_gemm --device nvidia --no-clblast --shape 64x4096x4096 \
    --shape 4096x64x4096 --shape 256x4096x4096 --shape 128x8192x8192 --shape 1024x1024x1024 \
    --json $r/splitk-$p-h200.json 2>&1 | grep -E "^ *[0-9]+x"
done
echo "== clforge tune --family gemm --budget 60, empty cache, shipped defaults off"
rm -rf /tmp/tune60
/usr/bin/time -f "wall %e s" env CLFORGE_SHIPPED=off CLFORGE_CACHE_DIR=/tmp/tune60 CLFORGE_TUNE_TRACE=$r/trace60-h200.jsonl \
  ./clforge tune --device nvidia --family gemm --precision f32 --bucket medium,large --budget 60 \
  --json $r/tune60-h200.json 2>&1 | grep -v "^gemm f32"
cp /tmp/tune60/tuning/*.json $r/tunedb60-h200.json
echo "== the 60 s result at 1024 and 4096"
CLFORGE_CACHE_DIR=/tmp/tune60 timeout 60 bench/bench_gemm --device nvidia --no-clblast --shape 1024x1024x1024 \
  --shape 4096x4096x4096 --json $r/tuned60-h200.json 2>&1 | grep -E "^ *[0-9]+x"
date -u
