#!/usr/bin/env bash
# h200_wgmma_check.sh — on the GPU host: the shipped matrix-unit configurations (wgmma for f16/bf16/tf32, mma
# m16n8k16 for fp64) in every mode at 4096^3 and 8192^3 (f16h/bf16h: C in the inputs' type, as cuBLAS through
# torch.matmul stores it) with cuBLAS per dtype; f16 on irregular and batched
# shapes and with B stored K x N (the packing pre-pass); a cap on registers per thread (more work-groups per
# compute unit); then the GEMM and runtime suites on the H200. Appends to $out/wgcheck.txt as it goes.
. scripts/gpu/common.sh
gpu_session wgcheck
B=bench/bench_gemm_mixed
say "== $(date -u) shipped configurations, B stored N x K"
timeout 120 $B --device gpu --bt --modes f16,bf16,f16h,bf16h,tf32,3xtf32,f64 --reps 5 --shape 4096x4096x4096 \
  --shape 8192x8192x8192 --json $r/mixed-bt.json 2>&1 | grep -E "GFLOP|rror|warn" | tee -a "$log"
for d in f16 bf16 tf32 f32 f64; do
  timeout 90 python3 ../bench/torch_gemm.py --dtype $d --bt --shape 4096x4096x4096 --shape 8192x8192x8192 \
    --json $r/cublas-$d.json 2>&1 | grep cuBLAS | sed "s/\$/ ($d)/" | tee -a "$log"
done
say "== f16: irregular, batched, B stored K x N"
timeout 120 $B --device gpu --bt --modes f16 --reps 5 --shape 4097x4097x4097 --shape 777x1555x999 \
  --shape 896x1664x1024 --json $r/irregular.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
timeout 60 $B --device gpu --bt --modes f16 --reps 5 --batch 512 --shape 128x128x64 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
timeout 60 $B --device gpu --modes f16 --reps 5 --shape 8192x8192x8192 2>&1 | grep -E "GFLOP|rror" | sed 's/$/ (B K x N)/' | tee -a "$log"
timeout 90 python3 ../bench/torch_gemm.py --dtype f16 --bt --shape 4097x4097x4097 --shape 777x1555x999 \
  --shape 896x1664x1024 2>&1 | grep cuBLAS | tee -a "$log"
timeout 60 python3 ../bench/torch_gemm.py --dtype f16 --bt --batch 512 --shape 128x128x64 2>&1 | grep cuBLAS | tee -a "$log"
say "== registers per thread capped (-cl-nv-maxrregcount), 8192^3"
for m in f16 tf32; do
  for cap in 0 80 72; do
    opt=""; [ $cap != 0 ] && opt="-cl-nv-maxrregcount=$cap"
    t=$(CLFORGE_BUILD_OPTIONS="$opt" timeout 60 $B --device gpu --modes $m --bt --reps 5 --shape 8192x8192x8192 2>&1 | grep -E 'GFLOP|rror' | awk '{print $(NF-5), $NF}')
    say "$m cap $cap | $t"
  done
done
say "== suites (first device: the H200)"
( CLFORGE_TEST_DEVICES=0:0 timeout 240 ctest -R 'test_gemm_mixed|test_runtime|test_gemm_plan|test_gemm_epilogue' -j4 --output-on-failure ) > $r/ctest.log 2>&1
grep -E "tests passed|Passed|Failed|F:|\*\*\*" $r/ctest.log | tail -12 | tee -a "$log"
