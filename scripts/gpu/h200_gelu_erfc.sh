#!/usr/bin/env bash
# h200_gelu_erfc.sh — on the GPU host: GEMM + bias + gelu with the GPU's erf (CLF_ERFC_GELU=0, the default there)
#   against the Chebyshev erfc form that CPU devices use (CLFORGE_BUILD_OPTIONS=-DCLF_ERFC_GELU=1), in two
#   alternating rounds of bench_gemm_epilogue (fused, plain GEMM, GEMM then map in the same process; relu and
#   gelu without the bias timed too), fp32 4096x4096x1024 and two more, f16 8192x8192x1024; then bench_map's gelu.
. scripts/gpu/common.sh
gpu_session ${NAME:-gelu-erfc}
for round in 1 2; do
  for v in erf erfc; do
    opt=""; [ $v = erfc ] && opt="-DCLF_ERFC_GELU=1"
    say "== $v round $round"
    CLFORGE_BUILD_OPTIONS="$opt" timeout 150 bench/bench_gemm_epilogue --device gpu \
      --shape 4096x4096x1024 --shape 3000x5000x1500 --shape 6144x6144x768 \
      --also "c = relu(acc + bias)" --also "c = gelu(acc)" --json $r/epi-f32-$v-$round.json 2>&1 | tee -a "$log" | tail -12
    CLFORGE_BUILD_OPTIONS="$opt" timeout 150 bench/bench_gemm_epilogue --device gpu --f16 \
      --shape 8192x8192x1024 --also "c = relu(acc + bias)" --json $r/epi-f16-$v-$round.json 2>&1 | tee -a "$log" | tail -8
  done
done
date -u | tee -a "$log"
