#!/usr/bin/env bash
# h200_gemv_thin.sh — on the GPU host, from the repository root: the gemv kernels' suite on the GPU, then
# bench_gemv on matrix-vector, thin (m or n of 2..16) and odd shapes with the default parameters, then a
# sweep of CLFORGE_GEMV_CONFIG over the cases below 0.8 of copy; tiny products per call (bench_percall).
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache-gemv
date -u
CLFORGE_TEST_DEVICES=$(./clforge devices 2>/dev/null | awk '/^ +[0-9]+:[0-9]+ .*(NVIDIA|H200)/ {print $1; exit}') \
  timeout 300 tests/test_gemv 2>&1 | tail -6
timeout 120 bench/bench_gemv --device gpu --json $r/gemv-default.json 2>&1 | tail -16
thin="--shape 2x4096x4096 --shape 8x4096x4096 --shape 16x4096x4096 --shape 4096x8x4096 --shape 4096x16x4096"
timeout 60 bench/bench_gemv --device gpu $thin --trans-b --json $r/gemv-thin-nt.json 2>&1 | tail -5
timeout 60 bench/bench_gemv --device gpu $thin --trans --json $r/gemv-thin-tn.json 2>&1 | tail -5
i=0
for cfg in "GPB=4" "GPB=16" "SPLIT=1" "TX=8 SPLIT=1" "TX=4 LU=8" "TX=16" "TX=32 GPB=4" "LU=8" "RPT=1" "RPT=2" \
           "RPT=8" "TEAM=32" "TEAM=1 WG=128" "VW=8" "CW=2" "WG=128"; do
  i=$((i + 1))
  echo "== CLFORGE_GEMV_CONFIG=\"$cfg\""
  CLFORGE_GEMV_CONFIG="$cfg" timeout 60 bench/bench_gemv --device gpu --no-clblast --shape 1x4096x4096 \
    --shape 4096x4096 --shape 4097x4097 --shape 16384x1024 $thin --json $r/gemv-sweep-$i.json 2>&1 | tail -9 | cut -c1-96
done
CLFORGE_DEVICE=gpu timeout 60 bench/bench_percall --json $r/percall.json 2>&1 | tail -6
date -u
