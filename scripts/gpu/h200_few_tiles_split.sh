#!/usr/bin/env bash
# h200_few_tiles_split.sh — on the GPU host: products of fewer tiles than compute units (C of 17-64 rows or columns,
#   thousands of the other, K of 1500-8000) cut into slices down to 512 along K (the default; C of under 128 rows
#   only) against slices of at least 1024 (CLFORGE_GEMM_FEW_TILES_SLICES=off), one build, two alternating rounds, on products drawn from $SEED;
#   fixed products that the rule leaves alone as controls; cuBLAS through PyTorch in the same script. The log ends
#   with scripts/gpu/summarize_ab.py's table (old: off, new: the rule).
. scripts/gpu/common.sh
gpu_session ${NAME:-few-tiles-split}
SEED=${SEED:-81}
python3 - "$SEED" > $r/groups.txt <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[1]))
r = rnd.randint
for flags in ("-", "-", "-", "--bt", "--bt", "-", "--at", "-"):
    print(flags, 1, "%dx%dx%d" % (r(17, 64), r(1000, 8000), r(1500, 8000)), sep="|")
for flags in ("-", "--bt"):
    print(flags, 1, "%dx%dx%d" % (r(1000, 8000), r(17, 64), r(1500, 8000)), sep="|")
for s in ("64x4096x4096", "115x6000x3000", "777x1555x999"):
    print("-", 1, s, sep="|")
PY
cat $r/groups.txt >> "$log"
ab_env_groups CLFORGE_GEMM_FEW_TILES_SLICES off "" $r/groups.txt
cublas_groups $r/groups.txt
python3 ../scripts/gpu/summarize_ab.py "$log" | tee $r/summary.md >> "$log"
date -u | tee -a "$log"
