#!/usr/bin/env bash
# h200_pending.sh — on the GPU host: the measurements the 2026-12-07 rounds left undone (about 17 minutes: three device
#   calls, PARTS="tiles", PARTS="env mma" and PARTS="survey"): medium_split off against on over the products of its A/B
#   (h200_split_sweep.sh PART=env, SEEDs 107 and 113), the matrix-unit splits in one launch in tf32 and bf16 against
#   the build before them (h200_mma_one_launch.sh MODES="tf32 bf16" NO_TESTS=1; commit e6a34c3 unpacked into .old
#   and carried), a survey of the fp32 classes on fresh shapes (h200_survey.sh SEED=31), and few-row and medium
#   products on tiles of 64 and 128 accumulators a work-item split 4, 8 and 16 ways against the planner's 64 x 64
#   tiles of 32 (h200_few_row_tiles.sh over scripts/gpu/shapes-few-row-medium.txt, cuBLAS in the same part: about 7
#   minutes, a call of its own). Each writes its own folder under $OUT; PARTS chooses (default "env mma survey
#   tiles").
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
    tiles) OUT=$base/tiles SHAPES=scripts/gpu/shapes-few-row-medium.txt TILESET="large m8 m8t w256" SPLITS="4 8 16" \
             timeout 420 bash scripts/gpu/h200_few_row_tiles.sh > "$base/tiles/run.log" 2>&1 ;;
  esac
  echo "$part rc=$?"
done
