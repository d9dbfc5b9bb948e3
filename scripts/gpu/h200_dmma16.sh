#!/usr/bin/env bash
# h200_dmma16.sh — on the GPU host: which Hopper matrix-unit instructions OpenCL reaches (wgmma_probe.c), the
# mixed-precision GEMM suite, then clf_dgemm at 8192^3 and 4096^3 over fp64 configurations (DK=4: mma
# m8n8k4; DK=16: m16n8k16), cuBLAS DGEMM in the same run.
. scripts/gpu/common.sh
gpu_session dmma16
say "== wgmma / fp64 mma probe"
gcc -O2 -std=c11 ../scripts/gpu/wgmma_probe.c -o /tmp/wp -lOpenCL -lm && /tmp/wp 2>&1 | cut -c1-400 | tee -a "$log"
say "== mixed-precision GEMM suite on the H200"
CLFORGE_TEST_DEVICES=0:0 timeout 200 ctest -R 'gemm_mixed' --output-on-failure > $r/ctest.log 2>&1
grep -E "tests passed|Failed|\*\*\*" $r/ctest.log | tee -a "$log"
B=bench/bench_gemm_mixed
cfgs=${CFGS:-"BM=64 BN=64 BK=16 WM=32 WN=32 LDSM=0 STAGES=2 FPIPE=0 ASYNC=1 SWZ=0 DK=4
BM=64 BN=64 BK=16 WM=32 WN=32 LDSM=0 STAGES=2 FPIPE=0 ASYNC=1 SWZ=0 DK=16
BM=64 BN=64 BK=16 WM=32 WN=16 LDSM=0 STAGES=2 FPIPE=0 ASYNC=1 SWZ=0 DK=16
BM=64 BN=64 BK=16 WM=16 WN=32 LDSM=0 STAGES=2 FPIPE=0 ASYNC=1 SWZ=0 DK=16
BM=64 BN=64 BK=16 WM=32 WN=32 LDSM=0 STAGES=2 FPIPE=0 ASYNC=0 SWZ=0 DK=16
BM=128 BN=64 BK=16 WM=32 WN=32 LDSM=0 STAGES=1 FPIPE=0 ASYNC=0 SWZ=0 DK=16
BM=128 BN=64 BK=16 WM=64 WN=32 LDSM=0 STAGES=1 FPIPE=0 ASYNC=0 SWZ=0 DK=16
BM=64 BN=64 BK=32 WM=32 WN=32 LDSM=0 STAGES=1 FPIPE=0 ASYNC=0 SWZ=0 DK=16"}
for s in 8192x8192x8192 4096x4096x4096; do
  say "== fp64 $s, B stored N x K: config | GFLOP/s"
  while IFS= read -r c; do
    [ -n "$c" ] || continue
    t=$(CLFORGE_GEMM_MMA_CONFIG="$c" timeout 60 $B --device gpu --modes f64 --bt --reps 5 --shape $s 2>&1 | grep -E 'GFLOP|rror|warn' | awk '{print $(NF-5), $NF}' | tr '\n' ' ')
    say "$c | $t"
  done <<< "$cfgs"
  say "$(timeout 60 python3 ../bench/torch_gemm.py --dtype f64 --bt --shape $s 2>&1 | grep cuBLAS)"
done
