#!/usr/bin/env bash
# h200_coldstart.sh — on the GPU host: first-call latency of a new process on the H200 (context creation +
# first SGEMM + first map, to completion; bench/bench_coldstart) with a cold cache, a warm cache, and after
# clf_warmup, at several sizes; the same with only the NVIDIA ICD loaded; then `clforge warmup` itself
# (every default kernel, and one bucket with 1 thread against the default, to show the parallel builds).
# The target: the first GEMM of a new process within 50 ms once the disk cache is warm.
# Locally on PoCL: CLF_COLDSTART_DEVICE=0:0 CLF_COLDSTART_SIZES=256 CLF_COLDSTART_BUILD=build-h16b \
#   bash scripts/gpu/h200_coldstart.sh
. scripts/gpu/common.sh
gpu_results
dev=${CLF_COLDSTART_DEVICE:-nvidia}
sizes=${CLF_COLDSTART_SIZES:-256 4096}
if [ -n "${CLF_COLDSTART_BUILD:-}" ]; then
  cmake --build "$CLF_COLDSTART_BUILD" --target bench_coldstart clforge_cli >/dev/null && cd "$CLF_COLDSTART_BUILD" || exit 1
else
  gpu_build
fi
{ command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv; ls /etc/OpenCL/vendors; } \
  > $r/host.txt 2>&1
cat $r/host.txt
for s in $sizes; do
  echo "== size $s"
  timeout 240 bench/bench_coldstart --size "$s" --runs 7 --device "$dev" --json $r/coldstart-$s.json 2>&1 |
    tee $r/coldstart-$s.txt
done
# What the ICD loader costs: it opens every installed driver before the first platform query.
icd=$(grep -il "${CLF_COLDSTART_ICD:-nvidia}" /etc/OpenCL/vendors/*.icd 2>/dev/null | head -1)
if [ -z "$icd" ]; then icd=$(ls /etc/OpenCL/vendors/*.icd | grep -i "${CLF_COLDSTART_ICD:-nvidia}" | head -1); fi
if [ -n "$icd" ]; then
  echo "== size 1024, only $icd loaded (OCL_ICD_VENDORS)"
  OCL_ICD_VENDORS=$icd timeout 120 bench/bench_coldstart --size 1024 --runs 7 --device "$dev" \
    --json $r/coldstart-1024-one-icd.json 2>&1 | tee $r/coldstart-1024-one-icd.txt
fi
echo "== clforge warmup (every default kernel), fresh caches"
w=/tmp/clf-coldstart-warmup; rm -rf $w; mkdir -m 700 $w
( export CLFORGE_CACHE_DIR=$w/all POCL_CACHE_DIR=$w/all/pocl CUDA_CACHE_PATH=$w/all/nv
  /usr/bin/time -f "%e s wall, %U s user, %M KB" timeout 300 ./clforge warmup --device "$dev"
  /usr/bin/time -f "again: %e s wall" ./clforge warmup --device "$dev" ) 2>&1 | tee $r/warmup.txt
for t in 1 0; do
  c=$w/large-$t; opt=""; [ $t = 1 ] && opt="--threads 1"
  # shellcheck disable=SC2086
  ( export CLFORGE_CACHE_DIR=$c POCL_CACHE_DIR=$c/pocl CUDA_CACHE_PATH=$c/nv
    /usr/bin/time -f "large bucket, threads ${t/0/default}: %e s wall" timeout 200 ./clforge warmup --device "$dev" \
      --family gemm --precision f32 --bucket large $opt ) 2>&1 | tee -a $r/warmup.txt
done
rm -rf $w
