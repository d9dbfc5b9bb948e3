#!/usr/bin/env bash
# h200_pending.sh — on the GPU host: the measurements the 2026-12-07 rounds left undone (about 10 minutes: two device
#   calls, PARTS="env mma" and PARTS="survey tiles"): medium_split off against on over the products of its A/B
#   (h200_split_sweep.sh PART=env, SEEDs 107 and 113), the matrix-unit splits in one launch in tf32 and bf16 against
#   the build before them (h200_mma_one_launch.sh MODES="tf32 bf16" NO_TESTS=1; commit e6a34c3 unpacked into .old
#   and carried), a survey of the fp32 classes on fresh shapes (h200_survey.sh SEED=31), and the few-row tiles of 256
#   work-items (h200_few_row_tiles.sh over the few-row products of 2026-12-07). Each writes its own folder under
#   $OUT; PARTS chooses (default "env mma survey tiles").
set -u
base=${OUT:-$PWD/gpu-out}
for part in ${PARTS:-env mma survey tiles}; do
  mkdir -p "$base/$part"
  case $part in
    env) for seed in 107 113; do
           OUT=$base/env/$seed PART=env SEED=$seed NF=0 timeout 150 bash scripts/gpu/h200_split_sweep.sh \
             > "$base/env/run-$seed.log" 2>&1
         done ;;
    mma) OUT=$base/mma MODES="tf32 bf16" NO_TESTS=1 timeout 280 bash scripts/gpu/h200_mma_one_launch.sh \
           > "$base/mma/run.log" 2>&1 ;;
    survey) OUT=$base/survey SEED=31 CLASSES="f32-large f32-large-bt f32-odd f32-skinny f32-batched f32-batched-bt" \
              timeout 200 bash scripts/gpu/h200_survey.sh > "$base/survey/run.log" 2>&1 ;;
    tiles) OUT=$base/tiles SHAPES=bench/results/h100/2026-12-07/few-row-split-groups.txt TILESET="m64 t256 t256n m32w" \
             SPLITS="2 4 8" NO_CUBLAS=1 timeout 200 bash scripts/gpu/h200_few_row_tiles.sh > "$base/tiles/run.log" 2>&1 ;;
  esac
  echo "$part rc=$?"
done
