#!/usr/bin/env bash
# h200_mma_epilogue.sh — on the GPU host: why a GEMM epilogue costs more on the matrix units when gelu and a
# bias meet (f16 8192x8192x1024: 1.09x the plain GEMM, each alone 1.01-1.03x). Registers and spills of the
# wgmma kernel per epilogue (ptxas, -cl-nv-verbose), then the fused/plain times with registers capped at 128 a
# thread (two work-groups of 256 per compute unit) and uncapped (CAPS). SUITE=1 runs the epilogue and mixed
# suites first; SKIP_REG=1 skips the register report. Appends to $out/mma-epi.txt.
. scripts/gpu/common.sh
gpu_session mma-epi
E=bench/bench_gemm_epilogue
exprs=("c = acc" "c = acc + bias" "c = gelu(acc)" "c = gelu(acc + bias)")
if [ -n "${SUITE:-}" ]; then
  ( CLFORGE_TEST_DEVICES=0:0 timeout 200 ctest -R 'test_gemm_epilogue|test_gemm_mixed' -j2 --output-on-failure ) > $r/ctest.log 2>&1
  grep -E "tests passed|Passed|Failed|F:" $r/ctest.log | tail -4 | tee -a "$log"
fi
[ -z "${SKIP_REG:-}" ] && say "== $(date -u) registers of gemm_mma (f16, wgmma) per epilogue"
[ -z "${SKIP_REG:-}" ] && for x in "${exprs[@]}"; do
  reg=$(CLFORGE_CACHE_DIR=/tmp/clf-cache-reg-$RANDOM CLFORGE_BUILD_OPTIONS=-cl-nv-verbose CLFORGE_BUILD_LOG=1 timeout 90 $E --device gpu \
        --f16 --shape 256x256x256 --also "$x" --reps 1 2>&1 | grep -A4 "entry function 'gemm_mma'" | grep -E "registers|spill" | tr -s ' ' | tr '\n' ' ')
  say "$x | $reg"
done
also=(--also "c = acc" --also "c = acc + bias" --also "c = gelu(acc)")
for round in 1 2; do
  for cap in ${CAPS:-0 128}; do
    opt=""; [ $cap != 0 ] && opt="-cl-nv-maxrregcount=$cap"
    say "-- cap $cap (round $round)"
    CLFORGE_BUILD_OPTIONS="$opt" timeout 120 $E --device gpu --f16 --shape 8192x8192x1024 "${also[@]}" --reps 9 \
      --json $r/epi-f16-cap$cap-$round.json 2>&1 | grep -E "epilogue|plain|fused|rror" | tee -a "$log"
  done
done
