#!/usr/bin/env bash
# h200_thin32.sh — on the GPU host: fp32 products with 17 to 32 rows or columns (drawn from $SEED), on the tiled
#   GEMM (default: only products of at most 16 go to the gemv kernels) against the gemv kernels (CLFORGE_GEMV_CONFIG=
#   THIN=32), NN, A.B^T and A^T.B, two alternating rounds, cuBLAS (torch) in the same script.
. scripts/gpu/common.sh
gpu_session thin32
shapes=$(python3 - ${SEED:-41} <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1])); r = rnd.randint
s = [(r(17, 32), r(2000, 8000), r(2000, 8000)) for _ in range(4)] + [(r(2000, 8000), r(17, 32), r(2000, 8000)) for _ in range(4)]
print(" ".join("--shape %dx%dx%d" % x for x in s))
PY
)
say "shapes: $shapes"
for flags in "" "--bt" "--at"; do
  for round in 1 2; do
    f32_bench "tiled${flags}-r$round" $flags $shapes --json $r/tiled${flags}-r$round.json
    CLFORGE_GEMV_CONFIG=THIN=32 f32_bench "gemv${flags}-r$round" $flags $shapes --json $r/gemv${flags}-r$round.json
  done
  timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $flags $shapes --json $r/cublas${flags}.json 2>&1 | grep -E "cuBLAS|rror" | sed "s/^/cuBLAS$flags | /" | tee -a "$log"
done
( CLFORGE_GEMV_CONFIG=THIN=32 CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 timeout 300 tests/test_gemv > $r/test_gemv.log 2>&1 )
say "test_gemv THIN=32 rc=$? $(grep -E 'Checks' $r/test_gemv.log | tr '\n' ' ')"
date -u | tee -a "$log"
