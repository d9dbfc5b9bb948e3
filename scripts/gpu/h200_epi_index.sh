#!/usr/bin/env bash
# h200_epi_index.sh — on the GPU host: the epilogue's indices with what the binding fixes written in (this build)
# against the build before (.old, a git worktree of the commit before), alternating rounds: f16 epilogues on the
# matrix units (MSHAPES); then this build's fp32 epilogue under each store (CLFORGE_EPILOGUE_STORE) at ESHAPES.
. scripts/gpu/common.sh
gpu_session ${NAME:-epi-index}
( cd ../.old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build build-gpu -j16 --target bench_gemm_epilogue > $r/old-build.log 2>&1 ) || say "old build failed"
ms=""; for s in ${MSHAPES:-8192x8192x1024 6144x5120x2048}; do ms="$ms --shape $s"; done
also=(--also "c = acc + bias" --also "c = tanh(acc + bias)" --also "c = relu(acc + bias)")
for round in 1 2; do
  for v in old new; do
    d=.; [ $v = old ] && d=../.old/build-gpu
    say "== f16 on the matrix units, $v, round $round"
    CLFORGE_CACHE_DIR=/tmp/clf-cache-ei-$v timeout 150 $d/bench/bench_gemm_epilogue --device gpu --f16 $ms "${also[@]}" \
      --json $r/f16-$v-$round.json 2>&1 | grep -E "epilogue|plain|rror" | tee -a "$log"
  done
done
es=""; for s in ${ESHAPES:-4096x4096x1024 2500x4000x1200}; do es="$es --shape $s"; done
for round in 1 2; do
  for st in unrolled rolled staged; do
    say "== fp32, store $st, round $round"
    CLFORGE_EPILOGUE_STORE=$st timeout 150 bench/bench_gemm_epilogue --device gpu $es --also "c = acc + bias" \
      --also "c = (acc + bias) * sigmoid(acc + bias)" --json $r/f32-$st-$round.json 2>&1 | grep -E "epilogue|plain|rror" | tee -a "$log"
  done
done
