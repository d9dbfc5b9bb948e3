#!/usr/bin/env bash
# h200x2_tune_compare.sh — on a GPU host with two H200s (device kind nvidia-h200-x2), from the repository
# root. Issue 5's comparison, with no tuning data from earlier runs (empty caches, CLFORGE_SHIPPED=off):
#   GPU 0: a 10x-longer reference search of the medium bucket (300 s: the share a 60 s two-bucket run
#          gives it, times ten), then `clforge tune --budget 60` over medium and large, then every
#          result measured at 1024^3 and 4096^3 on this one GPU, then CLBlast's own tuner at 1024^3;
#   GPU 1: the reference search of the large bucket (300 s) at the same time, then test_gemm and the
#          full `clforge bench` (clforge vs CLBlast, roofline, maps) for the report.
# Results go to $OUT as one tarball.
. scripts/gpu/common.sh
gpu_results
gpu_build
export CLFORGE_SHIPPED=off
./clforge devices | grep -E "^ +[0-9]"
tune() {   # tune DEVICE BUDGET BUCKETS NAME
  rm -rf /tmp/$4
  /usr/bin/time -f "$4 wall %e s" env CLFORGE_CACHE_DIR=/tmp/$4 CLFORGE_TUNE_TRACE=$r/trace-$4.jsonl \
    ./clforge tune --device $1 --family gemm --precision f32 --bucket $3 --budget $2 --json $r/$4.json 2>&1 |
    grep -v "^gemm f32"
}
date -u
echo "== reference searches, 300 s per bucket (GPU 0: medium, GPU 1: large)"
tune 0:0 300 medium ref-medium > $r/ref-medium.log 2>&1 &
tune 0:1 300 large ref-large > $r/ref-large.log 2>&1 &
wait
cat $r/ref-medium.log $r/ref-large.log
(
  echo "== GPU 1: test_gemm"
  CLFORGE_TEST_DEVICES=0:1 CLFORGE_GEMM_TEST_CASES=600 timeout 60 tests/test_gemm 2>&1 | tail -2
  echo "== GPU 1: clforge bench"
  env -u CLFORGE_SHIPPED CLFORGE_CACHE_DIR=/tmp/bench timeout 150 ./clforge bench --device 0:1 --json $r/bench-h200.json 2>/dev/null
) > $r/gpu1.log 2>&1 &
echo "== GPU 0: clforge tune --budget 60 (medium, large)"
tune 0:0 60 medium,large tune60
echo "== GPU 0: each result at 1024^3 and 4096^3"
for run in tune60 ref-medium ref-large; do
  python3 -c "
import json,sys
for e in json.load(open('$r/$run.json'))['entries']: print(e['bucket'], e['config'])" | while read -r bucket cfg; do
    shape=1024x1024x1024; [ "$bucket" = large ] && shape=4096x4096x4096
    echo "-- $run $bucket: $cfg"
    CLFORGE_GEMM_CONFIG="$cfg" timeout 30 bench/bench_gemm --device 0:0 --no-clblast --shape $shape \
      --json $r/measured-$run-$bucket.json 2>&1 | grep -E "^ *[0-9]+x"
  done
done
echo "== GPU 0: CLBlast's tuner (clblast_tuner_xgemm, 1024^3, fixed set then random)"
( cd $r && date +%s.%N > clblast-start && timeout 100 clblast_tuner_xgemm -platform 0 -device 0 -precision 32 \
    -m 1024 -n 1024 -k 1024 -fraction 0.005 > clblast-tuner.log 2>&1; date +%s.%N > clblast-end )
grep -a -E "Found|best|Best|GFLOPS" $r/clblast-tuner.log | tail -8
wait
cat $r/gpu1.log | tail -40
date -u
