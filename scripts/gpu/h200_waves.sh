#!/usr/bin/env bash
# h200_waves.sh — on the GPU host: work-groups per compute unit of the shipped GEMM configurations
# (bench_gemm --waves), then fp32 shapes whose last wave of tiles is mostly idle, with the wave rule off and
# on (the shipped wg_per_cu; WAVE_ON="CLFORGE_GEMM_WG_PER_CU=N" forces one), cuBLAS (PyTorch) in the same run.
# WAVE_PROBE=0 skips the probe.
# WAVE_SHAPES overrides the shape list ("MxNxK[:flags] ...", flags as bench_gemm_mixed's, comma-separated).
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache-waves
date -u
if [ "${WAVE_PROBE:-1}" != 0 ]; then
  timeout 120 bench/bench_gemm --device gpu --no-clblast --waves large,medium,thin,skinny,batched | tee $r/waves-f32.txt
  timeout 120 bench/bench_gemm --device gpu --no-clblast --f64 --waves large,medium,thin | tee $r/waves-f64.txt
fi
for sf in ${WAVE_SHAPES:-3072x3072x3072 2000x3000x1000 2000x3000x1000:--at,--bt 2560x2560x2560 5000x5000x2000 6144x6144x6144 3000x7000x1500 1536x4608x2048 3584x3584x1024 777x1555x999 4096x4096x4096 8192x8192x8192}; do
  s=${sf%%:*}; f=""; [ "$s" != "$sf" ] && f=$(echo "${sf#*:}" | tr ',' ' ')
  off=$(CLFORGE_GEMM_WG_PER_CU=off timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 --reps 7 $f --shape $s --json $r/off-$s.json 2>&1 | grep GFLOP | awk '{print $(NF-5)}')
  on=$(env ${WAVE_ON:-} timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 --reps 7 $f --shape $s --json $r/on-$s.json 2>&1 | grep GFLOP | awk '{print $(NF-5)}')
  cb=$(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 $f --shape $s --json $r/cublas-$s.json 2>&1 | grep cuBLAS | awk '{print $(NF-4)}')
  echo "$s $f: waves off $off, on $on, cuBLAS $cb GFLOP/s"
done
date -u
