#!/usr/bin/env bash
# h200_pending.sh — on the GPU host: the measurements the 2026-12-07 rounds left undone (about 11 minutes: two device
#   calls, PARTS="ab sum" and PARTS="survey tiles"): medium_split as shipped against the build before (h200_split_sweep.sh PART=ab SEED=107; the build
#   before, commit e6a34c3, unpacked into .old and carried), a survey of the fp32 classes on fresh shapes
#   (h200_survey.sh SEED=31), and the few-row tiles of 256 work-items (h200_few_row_tiles.sh over the few-row
#   products of 2026-12-07), and the split slices summed in their launch against the reduction launch
#   (h200_split_sum.sh TESTS=40 SEED=109). Each writes its own folder under $OUT; PARTS chooses (default
#   "ab sum survey tiles").
set -u
base=${OUT:-$PWD/gpu-out}
for part in ${PARTS:-ab sum survey tiles}; do
  mkdir -p "$base/$part"
  case $part in
    ab) OUT=$base/ab PART=ab SEED=107 timeout 240 bash scripts/gpu/h200_split_sweep.sh > "$base/ab/run.log" 2>&1 ;;
    sum) OUT=$base/sum TESTS=40 SEED=109 timeout 240 bash scripts/gpu/h200_split_sum.sh > "$base/sum/run.log" 2>&1 ;;
    survey) OUT=$base/survey SEED=31 CLASSES="f32-large f32-large-bt f32-odd f32-skinny f32-batched f32-batched-bt" \
              timeout 200 bash scripts/gpu/h200_survey.sh > "$base/survey/run.log" 2>&1 ;;
    tiles) OUT=$base/tiles SHAPES=bench/results/h100/2026-12-07/few-row-split-groups.txt TILESET="m64 t256 t256n m32w" \
             SPLITS="2 4 8" NO_CUBLAS=1 timeout 200 bash scripts/gpu/h200_few_row_tiles.sh > "$base/tiles/run.log" 2>&1 ;;
  esac
  echo "$part rc=$?"
done
