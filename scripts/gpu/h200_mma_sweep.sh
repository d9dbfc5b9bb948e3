#!/usr/bin/env bash
# h200_mma_sweep.sh — on the GPU host: gemm_mma configurations timed at given shapes (B stored N x K), cuBLAS
# in the same dtype in the same run. Optionally first the instruction probe (scripts/gpu/ptx_probe.c) and
# the mixed-precision GEMM suite.
#   SWEEP   "MODE|CONFIG" lines (MODE: f16 bf16 tf32 3xtf32 f64; CONFIG: CLFORGE_GEMM_MMA_CONFIG)
#   SHAPES  default "8192x8192x8192 4096x4096x4096"; BATCH=N: each shape a batch of N; PROBE=1, SUITE=1 to
#           run those first
# fp64 m16n8k16 against m8n8k4 (2026-12-01): SWEEP of "f64|... DK=4" and "f64|... DK=16" lines.
. scripts/gpu/common.sh
gpu_session ${NAME:-mma-sweep}
if [ -n "${PROBE:-}" ]; then
  say "== wgmma / fp64 mma probe"
  gcc -O2 -std=c11 ../scripts/gpu/ptx_probe.c -o /tmp/wp -lOpenCL -lm && /tmp/wp 2>&1 | cut -c1-400 | tee -a "$log"
fi
if [ -n "${SUITE:-}" ]; then
  say "== mixed-precision GEMM suite on the H200"
  CLFORGE_TEST_DEVICES=0:0 timeout 200 ctest -R 'gemm_mixed' --output-on-failure > $r/ctest.log 2>&1
  grep -E "tests passed|Failed|\*\*\*|error|rror" $r/ctest.log | head -20 | tee -a "$log"
fi
B=bench/bench_gemm_mixed
for s in ${SHAPES:-8192x8192x8192 4096x4096x4096}; do
  say "== $s, B stored N x K: mode | config | GFLOP/s, max error"
  while IFS='|' read -r m c; do
    [ -n "$c" ] || continue
    t=$(CLFORGE_GEMM_MMA_CONFIG="$c" timeout 60 $B --device gpu --modes $m --bt --reps 5 --shape $s ${BATCH:+--batch $BATCH} 2>&1 | grep -E 'GFLOP|rror|warn' | awk '{print $(NF-5), $NF}' | tr '\n' ' ')
    say "$m | $c | $t"
  done <<< "$SWEEP"
  for d in $(echo "$SWEEP" | cut -d'|' -f1 | sed 's/3xtf32/f32/' | sort -u); do
    say "$(timeout 60 python3 ../bench/torch_gemm.py --dtype $d --bt --shape $s ${BATCH:+--batch $BATCH} 2>&1 | grep cuBLAS) ($d)"
  done
done
