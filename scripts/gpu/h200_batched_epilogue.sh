#!/usr/bin/env bash
# h200_batched_epilogue.sh — on the GPU host: (1) the gemm family's batched bucket tuned (clforge tune), with
# batched products timed before and after, cuBLAS in the same run; (2) where the fused epilogue's time goes:
# gelu(acc + bias) against simpler epilogues on the same GEMM, fp32 and f16 (matrix units), with a
# per-kernel profile; (3) f16 at 8192^3 with registers per thread capped at 72 against no cap, alternating.
# Appends to $out/batched-epilogue.txt as it goes.
. scripts/gpu/common.sh
gpu_session batched-epilogue
B=bench/bench_gemm_mixed
batched() {
  local label=$1 s
  for s in "64 256x256x256" "512 128x64x128" "512 128x128x64 --bt"; do
    set -- $s
    t=$(timeout 60 $B --device gpu --modes f32 --reps 7 --batch $1 --shape $2 ${3:-} 2>&1 | grep -E "GFLOP|rror" | awk '{print $(NF-5)}')
    say "$1 x $2 ${3:-}: $t GFLOP/s ($label)"
  done
}
say "== $(date -u) batched fp32, shipped configuration"
batched before
timeout 150 ./clforge tune --device gpu --family gemm --bucket batched --budget ${TUNE_BUDGET:-90} --json $r/tune-batched.json 2>&1 | tail -4 | tee -a "$log"
batched tuned
for s in "64 256x256x256" "512 128x64x128" "512 128x128x64 --bt"; do
  set -- $s
  say "$(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 --batch $1 --shape $2 ${3:-} 2>&1 | grep cuBLAS) batch $1 ${3:-}"
done
say "== epilogue: gelu(acc + bias) against simpler epilogues"
also=(--also "c = acc" --also "c = acc + bias" --also "c = gelu(acc)")
CLFORGE_PROFILE=1 timeout 120 bench/bench_gemm_epilogue --device gpu --shape 4096x4096x1024 "${also[@]}" \
  --json $r/epilogue-f32.json > $r/epilogue-f32.txt 2>&1
grep -E "epilogue|plain|gemm|map" $r/epilogue-f32.txt | head -30 | tee -a "$log"
timeout 120 bench/bench_gemm_epilogue --device gpu --f16 --shape 8192x8192x1024 "${also[@]}" \
  --json $r/epilogue-f16.json 2>&1 | grep -E "epilogue|plain" | tee -a "$log"
say "== f16 8192^3: registers capped at 72 or not, alternating"
for round in 1 2 3; do
  for cap in 0 72; do
    opt=""; [ $cap != 0 ] && opt="-cl-nv-maxrregcount=$cap"
    t=$(CLFORGE_BUILD_OPTIONS="$opt" timeout 60 $B --device gpu --modes f16 --bt --reps 5 --shape 8192x8192x8192 2>&1 | grep -E 'GFLOP|rror' | awk '{print $(NF-5)}')
    say "round $round cap $cap | $t"
  done
done
