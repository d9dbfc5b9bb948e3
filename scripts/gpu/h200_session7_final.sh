#!/usr/bin/env bash
# h200_session7_final.sh — on the GPU host: the GEMM suites on the H200 with this build; then f16 products with
# C stored in f16 (as torch.matmul stores it: the fair comparison where C's bytes count, batched attention
# shapes) and in fp32, and cuBLAS in the same script. Appends to $out/final7.txt.
. scripts/gpu/common.sh
gpu_session final7
B=bench/bench_gemm_mixed
say "== $(date -u) suites (H200 first)"
( CLFORGE_TEST_DEVICES=0:0 timeout 300 ctest -R 'test_gemm|test_tune$|test_runtime' -j4 --output-on-failure ) > $r/ctest.log 2>&1
grep -E "tests passed|Passed|Failed|F:|\*\*\*" $r/ctest.log | tail -12 | tee -a "$log"
say "== f16 with C in f16 (f16h) and in fp32 (f16), B stored N x K"
for bs in "512 128x128x64" "512 128x64x128" "64 256x256x256" "1 4096x4096x4096" "1 8192x8192x8192" "1 8192x8192x1024"; do
  set -- $bs
  timeout 120 $B --device gpu --bt --modes ${MODES:-f16,f16h,bf16h} --reps 10 --batch $1 --shape $2 --json $r/f16h-$1-$2.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  timeout 60 python3 ../bench/torch_gemm.py --dtype f16 --bt --batch $1 --shape $2 2>&1 | grep cuBLAS | sed "s/\$/ (batch $1)/" | tee -a "$log"
done
say "== fp64 and tf32 (fp32 C), 4096^3"
timeout 120 $B --device gpu --bt --modes f64,tf32 --reps 10 --shape 4096x4096x4096 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
