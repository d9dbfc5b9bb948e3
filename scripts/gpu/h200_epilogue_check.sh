#!/usr/bin/env bash
# h200_epilogue_check.sh — on the GPU host: the fused epilogue against the plain GEMM after the staging fix,
# fp32 4096x4096x1024 with the staged loop taking 1, 2 and 4 elements a step (CLFORGE_EPILOGUE_UNROLL), the
# first run's program cache (PTX) packed for offline reading; f16 8192x8192x1024 on matrix units; then the
# suites named by SUITES (ctest -R), verbose on failure. Appends to $out/epi-check.txt.
. scripts/gpu/common.sh
gpu_session epi-check
also=(--also "c = acc" --also "c = gelu(acc)" --also "c = acc + bias")
for u in 1 2 4; do
  say "== $(date -u) fp32, CLFORGE_EPILOGUE_UNROLL=$u"
  CLFORGE_CACHE_DIR=/tmp/clf-cache-u$u CLFORGE_EPILOGUE_UNROLL=$u timeout 120 bench/bench_gemm_epilogue --device gpu \
    --shape 4096x4096x1024 "${also[@]}" --reps 9 --json $r/epi-f32-u$u.json 2>&1 | grep -E "epilogue|plain|rror" | tee -a "$log"
done
tar -C /tmp -czf $out/cache-u1.tgz clf-cache-u1
say "== $(date -u) f16 (matrix units)"
timeout 120 bench/bench_gemm_epilogue --device gpu --f16 --shape 8192x8192x1024 "${also[@]}" --reps 9 \
  --json $r/epi-f16.json 2>&1 | grep -E "epilogue|plain|rror" | tee -a "$log"
if [ -n "${SUITES:-}" ]; then
  say "== $(date -u) suites $SUITES on the H200"
  ( CLFORGE_TEST_DEVICES=0:0 timeout 300 ctest --output-on-failure -R "$SUITES" ) > $out/ctest.log 2>&1
  grep -E "tests passed|Failed|\*\*\*|Timeout|Assertion|FAIL" $out/ctest.log | tail -20 | tee -a "$log"
fi
