#!/usr/bin/env bash
# h200_stagger.sh — on the GPU host: do the two work-groups a compute unit holds hide each other's epilogue when
# one of them starts late (STAGGER_NS: ns per 1024 of K that work-groups of a launch-index range wait first)?
# The hook it drives was removed after the measurement (docs/mixed-precision.md, "Work-groups started out of phase"):
# gemm_mma, before its first copies, spun on %globaltimer (nanosleep 256 between reads) for STAGGER_NS * Kv / 1024 ns
# when get_group_id(1) == 0, STAGGER_LO <= pid < STAGGER_HI and (pid / STAGGER_DIV) % 2 == STAGGER_PAR.
# f16 8192x8192x1024 plain and fused (gelu(acc + bias)), f16h 8192^3 and 4096^3. VARIANTS: "ns lo hi div par;...".
# Appends to $out/stagger.txt.
. scripts/gpu/common.sh
gpu_session stagger
E=bench/bench_gemm_epilogue; B=bench/bench_gemm_mixed
run() {   # label, build options
  say "-- $1"
  CLFORGE_BUILD_OPTIONS="$2" timeout 120 $E --device gpu --f16 --shape 8192x8192x1024 --also "c = acc + bias" --reps 9 \
    2>&1 | grep -E "plain|fused|rror" | tee -a "$log"
  CLFORGE_BUILD_OPTIONS="$2" timeout 120 $B --device gpu --bt --modes f16h --reps 5 --shape 8192x8192x8192 \
    --shape 4096x4096x4096 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
}
for round in ${ROUNDS:-1 2}; do
  run "base ($round)" ""
  IFS=';' read -ra vs <<< "${VARIANTS:-11000 0 264 132 1;6000 0 264 132 1;11000 0 264 1 1;11000 0 264 2 1}"
  for v in "${vs[@]}"; do
    set -- $v
    run "ns/1024K $1 lo $2 hi $3 div $4 par $5 ($round)" "-DSTAGGER_NS=$1 -DSTAGGER_LO=$2 -DSTAGGER_HI=$3 -DSTAGGER_DIV=$4 -DSTAGGER_PAR=$5"
  done
done
