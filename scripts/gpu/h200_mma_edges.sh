#!/usr/bin/env bash
# h200_mma_edges.sh — on the GPU host: operands read in place by the matrix units although their last tile is
# partial (cp.async zero-fills past M, N and K) against the previous build, which packed them first (a worktree
# of the commit before, carried as .old). The suites that cover it, then f16 products with aligned rows and odd
# sizes, alternating old and new builds, and cuBLAS. Appends to $out/edges.txt.
. scripts/gpu/common.sh
gpu_session edges
say "== $(date -u) suites (H200)"
( CLFORGE_TEST_DEVICES=0:0 timeout 200 ctest -R 'test_gemm_mixed|test_gemm_epilogue' -j2 --output-on-failure ) > $r/ctest.log 2>&1
grep -E "tests passed|Passed|Failed|F:|edge cases|split-K|\*\*\*" $r/ctest.log | tail -8 | tee -a "$log"
grep -E "edge cases|failed" $r/ctest.log | head -5 | tee -a "$log"
cd ..; ( cd .old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target bench_gemm_mixed > $r/old-build.log 2>&1 ) || { say "old build failed"; tail -5 $r/old-build.log; }
cd build-gpu
sh=""; for x in ${SHAPES:-4097x4096x4096 4096x4097x4096 2000x3000x1000 1000x1000x1000 777x1555x1024 2048x50257x4096 3000x3000x3000 1500x700x904 4096x4096x4096 896x1664x1024}; do sh="$sh --shape $x"; done
for round in 1 2; do
  for v in old new; do
    b=bench/bench_gemm_mixed; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
    say "-- $v (round $round)"
    CLFORGE_CACHE_DIR=/tmp/clf-cache-edges-$v timeout 200 $b --device gpu --bt --modes ${MODES:-f16} --reps 10 $sh --json $r/edges-$v-$round.json 2>&1 | grep -E "GFLOP|rror" | tee -a "$log"
  done
done
timeout 150 python3 ../bench/torch_gemm.py --dtype f16 --bt $sh --json $r/edges-cublas.json 2>&1 | grep cuBLAS | tee -a "$log"
