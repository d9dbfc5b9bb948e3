#!/usr/bin/env bash
# h200_store_and_launches.sh — on the GPU host, three measurements the planner's next rules are drawn from:
#   PART=epi      the fused fp32 epilogue's stores (STORES: staged through local memory, rolled over the rows of
#                 registers, unrolled over the registers) on programs of growing cost, alternating rounds
#                 (bench_gemm_epilogue --also), after test_gemm_epilogue on the H200;
#   PART=profile  per-kernel times (CLFORGE_PROFILE=1) of odd and skinny products beside their wall time, to see
#                 how much of a call is not kernel time (launch gaps, host cost);
#   PART=plans    unseen odd and skinny fp32 products under the rule, each packing mode, forced splits and
#                 forced tile configurations, cuBLAS (torch.matmul) in the same script.
#   PART=ab       this build against the one in .old (a worktree of the commit before), alternating rounds
#                 (ABALSO: one program instead of the four):
#                 fused epilogues (programs and shapes in no list above: ABPROGS, ABSHAPES) with each build's
#                 default store, and plain fp32 GEMMs (ABGEMM), after test_gemm_epilogue on the H200.
#   PART=mma      f16 epilogues on the matrix units (f16 A, B, C and bias; MSHAPES) under each store setting,
#                 after test_gemm_epilogue on the H200 with more typed cases (matrix units). gemm_mma.cl had a
#                 rolled store when run5-mma-rolled.txt was measured; it lost and was taken out.
#   PART=splitab  fp32 products (SSHAPES) through this build and the one in .old, alternating rounds, cuBLAS once,
#                 after test_gemm's random cases and test_gemm_plan on the H200.
# PART=all runs the first three. SHAPES overrides the plans' list, ESHAPES the epilogue's.
. scripts/gpu/common.sh
gpu_session store-launches
PART=${PART:-all}
B=bench/bench_gemm_mixed
on() { [ "$PART" = all ] && [ "$1" != ab ] && [ "$1" != mma ] && [ "$1" != splitab ] || [ "$PART" = "$1" ]; }
# epi_suite [CASES]: test_gemm_epilogue on the H200 (CASES random cases per precision, else its default), said.
epi_suite() {
  CLFORGE_EPI_TEST_CASES=${1:-} CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 timeout 400 tests/test_gemm_epilogue \
    > $r/test_gemm_epilogue.log 2>&1
  say "test_gemm_epilogue${1:+ ($1 cases)} rc=$? $(grep -E 'Checks|random cases' $r/test_gemm_epilogue.log | tr '\n' ' ')"
}
if on epi; then
  es=""; for s in ${ESHAPES:-4096x4096x1024 3000x2000x1000}; do es="$es --shape $s"; done
  also=(--also "c = acc" --also "c = acc + bias" --also "c = relu(acc + bias)" --also "c = sigmoid(acc + bias)")
  epi_suite
  stores=${STORES:-"staged rolled unrolled"}
  for round in 1 2; do
    for st in $stores; do
      say "== epilogue store $st, round $round"
      export CLFORGE_EPILOGUE_STORE=$st
      timeout 120 bench/bench_gemm_epilogue --device gpu $es "${also[@]}" --json $r/epi-$st-$round.json 2>&1 |
        grep -E "epilogue|plain|rror" | tee -a "$log"
    done
  done
  unset CLFORGE_EPILOGUE_STORE
fi
if on profile; then
  for ps in ${PSHAPES:-1:404x580x1488 1:777x1555x999 1:1000x1000x1000 1:92x2990x4725 1:2048x2048x2048 152:308x103x430}; do
    b=${ps%%:*}; s=${ps#*:}
    say "== profile batch $b $s"
    CLFORGE_PROFILE=1 timeout 60 $B --device gpu --modes f32 --reps 50 --batch $b --shape $s 2>&1 |
      grep -vE "^device|^$" | cut -c1-110 | tee -a "$log"
  done
fi
if on plans; then
  SHAPES=${SHAPES:-"530x410x1700 820x760x1300 350x950x2100 1230x610x770 140x3700x5200 60x5100x3900 5300x120x4400 3800x45x6100"}
  sh=""; for s in $SHAPES; do sh="$sh --shape $s"; done
  say "== cuBLAS"
  timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $sh --json $r/cublas-plans.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
  f32_bench "rule" $sh --json $r/plans-rule.json
  for pk in off always; do CLFORGE_GEMM_PACK=$pk f32_bench "pack=$pk" $sh; done
  for sp in 1 2 4 8; do CLFORGE_GEMM_SPLIT_K=$sp f32_bench "rule split=$sp" $sh; done
  for c in skinny medium bsmall; do
    for sp in 1 4; do
      CLFORGE_GEMM_CONFIG="${F32_CFG[$c]}" CLFORGE_GEMM_SPLIT_K=$sp f32_bench "$c split=$sp" $sh
      CLFORGE_GEMM_CONFIG="${F32_CFG[$c]}" CLFORGE_GEMM_SPLIT_K=$sp CLFORGE_GEMM_PACK=off f32_bench "$c split=$sp pack=off" $sh
    done
  done
fi
if on mma; then
  epi_suite 40
  ms=""; for s in ${MSHAPES:-8192x8192x1024 6144x5120x2048}; do ms="$ms --shape $s"; done
  also=(--also "c = acc + bias" --also "c = tanh(acc + bias)" --also "c = (acc + bias) * sigmoid(acc + bias)" --also "c = gelu(acc)")
  for round in 1 2; do
    for st in unrolled rolled; do
      say "== f16 epilogue store $st, round $round"
      CLFORGE_EPILOGUE_STORE=$st timeout 150 bench/bench_gemm_epilogue --device gpu --f16 $ms "${also[@]}" \
        --json $r/mma-$st-$round.json 2>&1 | grep -E "epilogue|plain|rror" | tee -a "$log"
    done
  done
fi
if on splitab; then
  gemm_suites 150
  old_build bench_gemm_mixed
  ss=""; for s in ${SSHAPES:-7000x110x3000 9000x70x2500 100x8000x4000 120x12000x2048 6000x100x6000 5000x200x3000 3500x150x5000 2048x2048x2048 4096x4096x4096}; do ss="$ss --shape $s"; done
  say "== cuBLAS"
  timeout 120 python3 ../bench/torch_gemm.py --dtype f32 $ss --json $r/cublas-splitab.json 2>&1 | grep -E "cuBLAS|rror" | tee -a "$log"
  for round in 1 2; do
    for v in old new; do
      d=.; [ $v = old ] && d=../.old/build-gpu
      B=$d/bench/bench_gemm_mixed CLFORGE_CACHE_DIR=/tmp/clf-cache-ab-$v f32_bench "$v r$round" $ss \
        --json $r/splitab-$v-$round.json
    done
  done
fi
if on ab; then
  epi_suite
  old_build bench_gemm_epilogue bench_gemm_mixed
  es=""; for s in ${ABSHAPES:-5120x3072x1536 2500x4000x1200 6144x6144x768}; do es="$es --shape $s"; done
  gs=""; for s in ${ABGEMM:-4096x4096x4096 3072x3072x3072 5000x3000x2000}; do gs="$gs --shape $s"; done
  also=(--also "c = acc * 0.5 + bias" --also "c = max(acc + bias, 0.1 * (acc + bias))" --also "c = tanh(acc + bias)"
        --also "c = (acc + bias) * sigmoid(acc + bias)")
  [ -n "${ABALSO:-}" ] && also=(--also "$ABALSO")   # the bench takes four at most
  for round in 1 2; do
    for v in old new; do
      d=.; [ $v = old ] && d=../.old/build-gpu
      say "== $v, round $round"
      CLFORGE_CACHE_DIR=/tmp/clf-cache-ab-$v timeout 150 $d/bench/bench_gemm_epilogue --device gpu $es "${also[@]}" \
        --json $r/ab-epi-$v-$round.json 2>&1 | grep -E "epilogue|plain|rror" | tee -a "$log"
      B=$d/bench/bench_gemm_mixed CLFORGE_CACHE_DIR=/tmp/clf-cache-ab-$v f32_bench "$v" $gs
    done
  done
fi
date -u | tee -a "$log"
