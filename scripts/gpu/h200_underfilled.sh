#!/usr/bin/env bash
# h200_underfilled.sh — on the GPU host: fp32 products whose tiles do not fill the device (odd medium sizes,
# skinny products of 17-200 rows or columns, batches of small matrices) under forced split-K values and forced
# configurations, with cuBLAS (torch.matmul) in the same script: the measurements the split and tile rules are
# drawn from. PART=split|batched|pack|ab|edges|profile|all (all: split and batched); SHAPES and BSHAPES ("BATCH:MxNxK ...") override the lists; SPLITS.
. scripts/gpu/common.sh
gpu_session underfilled
PART=${PART:-all}
B=bench/bench_gemm_mixed
SHAPES=${SHAPES:-"404x580x1488 672x648x1758 900x500x3000 300x1200x1000 1500x700x900 777x1555x999 1141x793x1240 92x2990x4725 6159x188x3555 4485x89x6813 48x4096x4096 200x5000x3000 3000x33x6000"}
BSHAPES=${BSHAPES:-"152:308x103x430 56:314x478x233 360:298x423x47 64:256x256x256 128:200x300x150 32:500x400x300"}
sh=""; for s in $SHAPES; do sh="$sh --shape $s"; done
if [ "$PART" = split ] || [ "$PART" = all ]; then
  say "== cuBLAS"
  timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $sh --json $r/cublas-split.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
  for sp in ${SPLITS:-0 1 2 3 4 6 8 12 16}; do
    if [ $sp = 0 ]; then unset CLFORGE_GEMM_SPLIT_K; else export CLFORGE_GEMM_SPLIT_K=$sp; fi
    f32_bench "rule split=$sp" $sh --json $r/rule-s$sp.json
  done
  for c in large medium skinny; do
    export CLFORGE_GEMM_CONFIG="${F32_CFG[$c]}"
    for sp in ${CSPLITS:-1 2 4 8 16}; do
      export CLFORGE_GEMM_SPLIT_K=$sp
      f32_bench "$c split=$sp" $sh --json $r/$c-s$sp.json
    done
  done
  unset CLFORGE_GEMM_SPLIT_K CLFORGE_GEMM_CONFIG
fi
if [ "$PART" = batched ] || [ "$PART" = all ]; then
  for bs in $BSHAPES; do
    b=${bs%%:*}; s=${bs#*:}
    for lay in "" --bt; do
      say "== batch $b $s ${lay:-NN}: $(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 $lay --batch $b --shape $s 2>&1 | grep -E 'cuBLAS|rror')"
      for c in default large medium skinny bsmall; do
        if [ $c = default ]; then unset CLFORGE_GEMM_CONFIG; else export CLFORGE_GEMM_CONFIG="${F32_CFG[$c]}"; fi
        f32_bench "$c b$b ${lay:-NN}" $lay --batch $b --shape $s
      done
      unset CLFORGE_GEMM_CONFIG
    done
  done
fi
if [ "$PART" = pack ]; then   # the packing pass against reading in place (the direct kernel, bucket's or forced tiles)
  say "== cuBLAS"
  timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $sh --json $r/cublas-pack.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
  for round in 1 2; do
    for c in default large medium skinny; do
      if [ $c = default ]; then unset CLFORGE_GEMM_CONFIG; else export CLFORGE_GEMM_CONFIG="${F32_CFG[$c]}"; fi
      [ $c = default ] && f32_bench "packed $c r$round" $sh --json $r/packed-$c-$round.json
      CLFORGE_GEMM_PACK=off f32_bench "inplace $c r$round" $sh --json $r/inplace-$c-$round.json
    done
    unset CLFORGE_GEMM_CONFIG
    for bs in $BSHAPES; do
      b=${bs%%:*}; s=${bs#*:}
      for lay in "" --bt; do
        [ $round = 1 ] && say "== batch $b $s ${lay:-NN}: $(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 $lay --batch $b --shape $s 2>&1 | grep -E 'cuBLAS|rror')"
        f32_bench "packed b$b ${lay:-NN} r$round" $lay --batch $b --shape $s
        CLFORGE_GEMM_PACK=off f32_bench "inplace b$b ${lay:-NN} r$round" $lay --batch $b --shape $s
      done
    done
  done
fi
if [ "$PART" = ab ]; then   # this build against the one in .old (a worktree of the commit before), alternating:
  # the GEMM suites on the H200 first, then SHAPES and BSHAPES (NN) through both, ROUNDS rounds, cuBLAS once
  say "== $(date -u) test_gemm, test_gemm_plan (H200)"
  for t in test_gemm test_gemm_plan; do
    CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 timeout 240 tests/$t > $r/$t.log 2>&1; say "$t rc=$? $(grep -E 'Checks|random cases' $r/$t.log | tr '\n' ' ')"
  done
  ( cd ../.old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-gpu -j16 --target bench_gemm_mixed > $r/old-build.log 2>&1 ) || say "old build failed"
  say "== cuBLAS"
  timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $sh --json $r/cublas-ab.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
  for bs in $BSHAPES; do
    say "== batch ${bs%%:*} ${bs#*:}: $(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 --batch ${bs%%:*} --shape ${bs#*:} 2>&1 | grep -E 'cuBLAS|rror')"
  done
  for round in $(seq ${ROUNDS:-2}); do
    for v in old new; do
      b=$B; [ $v = old ] && b=../.old/build-gpu/bench/bench_gemm_mixed
      B=$b CLFORGE_CACHE_DIR=/tmp/clf-cache-ab-$v f32_bench "$v r$round" $sh --json $r/ab-$v-$round.json
      for bs in $BSHAPES; do
        B=$b CLFORGE_CACHE_DIR=/tmp/clf-cache-ab-$v f32_bench "$v b${bs%%:*} r$round" --batch ${bs%%:*} --shape ${bs#*:}
      done
    done
  done
fi
if [ "$PART" = edges ]; then   # edge-checked in-place reads (the rule) against packing (CLFORGE_GEMM_PACK=always):
  # test_gemm's random, split and edge cases on the H200, then SHAPES (NN), BTSHAPES (B stored N x K) and
  # BSHAPES (NN batches), alternating, ROUNDS rounds
  say "== $(date -u) test_gemm random tcase (H200)"
  CLFORGE_GEMM_TEST_CASES=${CASES:-300} CK_RUN_CASE=random CLFORGE_TEST_DEVICES=0:0 timeout 200 tests/test_gemm > $r/test_gemm.log 2>&1
  say "rc=$? $(grep -E 'cases on|Checks' $r/test_gemm.log | tr '\n' ' ')"
  bt=""; for s in ${BTSHAPES:-}; do bt="$bt --shape $s"; done
  for round in $(seq ${ROUNDS:-2}); do
    for v in always rule; do
      if [ $v = always ]; then export CLFORGE_GEMM_PACK=always; else unset CLFORGE_GEMM_PACK; fi
      f32_bench "$v r$round" $sh --json $r/edges-$v-$round.json
      [ -n "$bt" ] && f32_bench "$v bt r$round" --bt $bt --json $r/edges-bt-$v-$round.json
      for bs in $BSHAPES; do f32_bench "$v b${bs%%:*} r$round" --batch ${bs%%:*} --shape ${bs#*:}; done
    done
  done
  unset CLFORGE_GEMM_PACK
fi
if [ "$PART" = profile ]; then   # per-kernel times (CLFORGE_PROFILE=1), one shape a process: PSHAPES "BATCH:MxNxK[:bt|nn[:MODE]]"
  PSHAPES=${PSHAPES:-"1:404x580x1488 1:1141x793x1240 1:777x1555x999 1:92x2990x4725 152:308x103x430 56:314x478x233 64:256x256x256:bt"}
  for ps in $PSHAPES; do
    IFS=: read -r b s t md <<< "$ps"
    say "== profile batch $b $s ${t:-}"
    CLFORGE_PROFILE=1 timeout 60 $B --device gpu --modes ${md:-f32} --reps 20 --batch $b --shape $s $([ "${t:-}" = bt ] && echo --bt) 2>&1 |
      grep -E "GFLOP|^gemm|^kernel|^pack|^copy|_" | grep -v "^device" | cut -c1-110 | tee -a "$log"
  done
fi
date -u | tee -a "$log"
