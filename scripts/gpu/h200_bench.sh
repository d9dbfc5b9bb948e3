#!/usr/bin/env bash
# h200_bench.sh — run on the GPU host (NVIDIA H200 + PoCL) from the repository root: builds clforge, runs
# the test suites on the H200, then every bench with its baselines in this one script: `clforge bench`
# (clforge vs CLBlast, calibrated roofline), cuBLAS through PyTorch, maps vs clEnqueueCopyBuffer, PyTorch
# eager and torch.compile. Results go to $OUT (JSON). Needs the .gpu/ dependency folder (see DEVELOPERS).
. scripts/gpu/common.sh
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache
date -u
./clforge devices | grep -E "^ +[0-9]|key|id "
echo "== tests on the H200"
( CLFORGE_TEST_DEVICES=0:0 CLFORGE_GEMM_TEST_CASES=1000 timeout 150 ctest -j8 --output-on-failure ) > "$out/ctest-h200.log" 2>&1
grep -E "tests passed|Passed|Failed|Timeout" "$out/ctest-h200.log" | tail -14
echo "== clforge bench (H200, with CLBlast)"
timeout 170 ./clforge bench --device nvidia --json "$out/bench-h200.json" 2>/dev/null | tail -42
echo "== cuBLAS (PyTorch, TF32 off)"
timeout 60 python3 ../bench/torch_gemm.py --json "$out/torch-gemm-h200.json" 2>&1 | tail -14
echo "== maps and copies"
timeout 100 bench/bench_map --device nvidia --json "$out/map-h200.json" 2>&1 | grep -v "^ *sweep" | tail -16
timeout 60 python3 ../bench/torch_map.py --json "$out/torch-map-h200.json" 2>&1 | tail -8
