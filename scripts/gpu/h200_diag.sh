#!/usr/bin/env bash
# h200_diag.sh — on the GPU host: where GEMM time goes. (1) registers and spills of gemm_mma configurations
# (-cl-nv-verbose), (2) 8192^3 f16 and tf32 on matrix units over a list of configurations
# (CLFORGE_GEMM_MMA_CONFIG), optionally from other kernel sources (MMA_KDIRS="dir1 dir2", each a copy of cl/),
# (3) fp32 shape classes with a per-kernel profile, each with cuBLAS in the same run.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache-diag
B=bench/bench_gemm_mixed
cfgs=${MMA_CFGS:-"BM=128 BN=128 BK=64 WM=64 WN=64 LDSM=1 STAGES=1 FPIPE=1
BM=128 BN=128 BK=32 WM=64 WN=64 LDSM=1 STAGES=2 FPIPE=1
BM=128 BN=256 BK=32 WM=64 WN=64 LDSM=1 STAGES=1 FPIPE=1
BM=256 BN=128 BK=32 WM=64 WN=64 LDSM=1 STAGES=1 FPIPE=1
BM=128 BN=128 BK=64 WM=64 WN=32 LDSM=1 STAGES=1 FPIPE=1
BM=128 BN=128 BK=64 WM=32 WN=64 LDSM=1 STAGES=1 FPIPE=0
BM=128 BN=256 BK=32 WM=64 WN=64 LDSM=1 STAGES=1 FPIPE=0
BM=256 BN=128 BK=32 WM=64 WN=64 LDSM=1 STAGES=2 FPIPE=0"}
echo "== mma: registers (ptxas) and 8192^3 f16, bt"
for kd in ${MMA_KDIRS:-default}; do
  [ "$kd" = default ] && unset CLFORGE_KERNEL_DIR || export CLFORGE_KERNEL_DIR=$PWD/../$kd
  echo "-- kernels: $kd"
  while IFS= read -r c; do
    [ -n "$c" ] || continue
    reg=$(CLFORGE_GEMM_MMA_CONFIG="$c" CLFORGE_BUILD_OPTIONS=-cl-nv-verbose CLFORGE_BUILD_LOG=1 timeout 60 $B --device gpu \
          --modes f16 --bt --reps 1 --shape 256x256x256 2>&1 | grep -A4 "Compiling entry function 'gemm_mma'" | grep -E "registers|spill" | tr '\n' ' ')
    t=$(CLFORGE_GEMM_MMA_CONFIG="$c" timeout 60 $B --device gpu --modes ${MMA_MODES:-f16} --bt --reps 5 --shape 8192x8192x8192 2>&1 | grep -E 'GFLOP|rror|warn' | awk '{print $(NF-5), $NF}' | tr '\n' ' ')
    echo "$c | $t | $reg"
  done <<< "$cfgs"
done
unset CLFORGE_KERNEL_DIR
[ -n "${SKIP_SHAPES:-}" ] && exit 0
echo "== fp32 shape classes (clforge, profile; then cuBLAS)"
shape() {
  CLFORGE_PROFILE=1 timeout 60 $B --device gpu --modes f32 --reps 5 "$@" 2>&1 | grep -E "GFLOP|^[a-z_0-9]+ +[0-9]+ +[0-9.]+" | head -8
  timeout 60 python3 ../bench/torch_gemm.py --dtype f32 "$@" 2>&1 | grep cuBLAS
}
for s in 2000x3000x1000 777x1555x999 3072x3072x3072 4096x4096x4096; do
  for t in "" "--at" "--bt" "--at --bt"; do shape $t --shape $s; done
done
shape --batch 64 --shape 256x256x256
shape --batch 64 --at --bt --shape 256x256x256
