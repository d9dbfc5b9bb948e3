#!/usr/bin/env bash
# h200_reduce_shfl.sh — on the GPU host: the row kernel's warp-shuffle tree, two-phase write and per-block
# counts (this build) against the build before them (in .old), on one-call softmax and layer norm; each change
# alone turned off by a build option (CLFORGE_BUILD_OPTIONS=-DCLF_SHFL=0, -DCLF_WSPLIT=0), alternating, two
# rounds. PART=check (default): local-memory probe, the reduce and map suites on the H200, then the rounds.
# PART=verify: the reduce suite, two rounds of both builds (with 16384 x 2304). PART=sweep: bench_reduce --fused-sweep, then short lines under other teams. PROBE=0 skips the probe, SHORT=1 the WSPLIT=0 rounds. PART=variants: registers of the row kernels (softmax, layer norm) and two rounds over VARIANTS.
# PART=torch: two rounds of both builds, then torch.softmax and layer_norm, eager and compiled, on the same shapes.
. scripts/gpu/common.sh
gpu_session reduce-shfl
PART=${PART:-check}
shapes="--shape 8192x8192 --shape 4096x16384 --shape 32768x1024 --shape 16384x4096 --shape 65536x768 --shape 8192x5120 --shape 2048x32768"
gpu=$(./clforge devices 2>/dev/null | awk '/^ +[0-9]+:[0-9]+ .*(NVIDIA|H200)/ {print $1; exit}')
build_old() {
  ( cd ../.old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build build-gpu -j16 --target bench_reduce > $r/old-build.log 2>&1 ) || say "old build failed"
}
run_shapes() {   # LABEL BINARY [build options]
  CLFORGE_BUILD_OPTIONS="${3:-}" timeout 150 $2 --device gpu --reps 15 $shapes 2>&1 | grep -E "^ *[0-9]+ x" |
    sed "s/^/$1 /" | tee -a "$log"
}
if [ "$PART" = check ]; then
  [ "${PROBE:-1}" = 1 ] && say "== $(date -u) local memory beyond CL_DEVICE_LOCAL_MEM_SIZE"
  [ "${PROBE:-1}" = 1 ] && gcc -O2 -std=c11 ../scripts/gpu/local_mem_probe.c -o /tmp/lmp -lOpenCL && timeout 60 /tmp/lmp 2>&1 | tee -a "$log"
  build_old &
  say "== $(date -u) test_reduce, test_map on $gpu"
  CLFORGE_TEST_DEVICES=$gpu timeout 240 ctest -R "test_reduce|test_map" --output-on-failure > $r/ctest.log 2>&1
  grep -E "tests passed|Failed|Assertion|FAIL" $r/ctest.log | head | tee -a "$log"
  wait
  for round in 1 2; do
    say "== $(date -u) round $round"
    run_shapes old ../.old/build-gpu/bench/bench_reduce
    run_shapes new bench/bench_reduce
    run_shapes noshfl bench/bench_reduce -DCLF_SHFL=0
    [ -z "${SHORT:-}" ] && run_shapes nowsplit bench/bench_reduce -DCLF_WSPLIT=0
  done
elif [ "$PART" = verify ]; then   # the reduce suite on the H200, then two rounds of both builds
  [ -x ../.old/build-gpu/bench/bench_reduce ] || build_old
  CLFORGE_TEST_DEVICES=$gpu timeout 200 ctest -R "test_reduce" --output-on-failure > $r/ctest.log 2>&1
  grep -E "tests passed|Failed|Assertion|FAIL" $r/ctest.log | head | tee -a "$log"
  shapes="$shapes --shape 16384x2304"
  for round in 1 2; do
    say "== $(date -u) round $round"
    run_shapes old ../.old/build-gpu/bench/bench_reduce
    run_shapes new bench/bench_reduce
  done
elif [ "$PART" = sweep ]; then   # the row kernel's configurations with this build: 8192 x 8192, then short lines
  say "== $(date -u) bench_reduce --fused-sweep (8192 x 8192)"
  timeout 300 bench/bench_reduce --device gpu --fused-sweep --json $r/fused-sweep.json 2>&1 | grep "sweep fused" | tee -a "$log"
  for cfg in "" "WG=128 LPL=64 VEC=4 UNR=1" "WG=256 LPL=64 VEC=4 UNR=1" "WG=128 LPL=32 VEC=4 UNR=1" "WG=128 LPL=64 VEC=4 UNR=2"; do
    say "-- CLFORGE_REDUCE_CONFIG=\"$cfg\""
    CLFORGE_REDUCE_CONFIG="$cfg" timeout 100 bench/bench_reduce --device gpu --reps 15 --shape 65536x768 --shape 16384x2304 \
      --shape 32768x1536 --shape 32768x1024 2>&1 | grep -E "^ *[0-9]+ x" | tee -a "$log"
  done
elif [ "$PART" = variants ]; then   # VARIANTS: "label=build options;..." (this build), old first in each round
  [ -x ../.old/build-gpu/bench/bench_reduce ] || build_old
  IFS=';' read -ra vs <<< "${VARIANTS:-new=}"
  for v in "${vs[@]}"; do
    for s in ${REG_SHAPES:-8192x8192 4096x16384 8192x5120}; do
      CLFORGE_CACHE_DIR=/tmp/clf-reg-$RANDOM CLFORGE_BUILD_OPTIONS="-cl-nv-verbose ${v#*=}" CLFORGE_BUILD_LOG=1 \
        timeout 60 bench/bench_reduce --device gpu --reps 1 --shape $s 2>&1 |
        awk -v tag="${v%%=*} $s" '/build log/ { o = ""; if (match($0, /-DCLF_OP=[0-9]+/)) o = substr($0, RSTART + 6, RLENGTH - 6);
               r = ($0 ~ /CLF_ROWK=1/) } /registers/ && r && (o == "OP=3" || o == "OP=4") { print tag, o, $5, $6 }' | sort -u | tee -a "$log"
    done
  done
  for round in 1 2; do
    say "== $(date -u) round $round"
    run_shapes old ../.old/build-gpu/bench/bench_reduce
    for v in "${vs[@]}"; do run_shapes "${v%%=*}" bench/bench_reduce "${v#*=}"; done
  done
else
  [ -x ../.old/build-gpu/bench/bench_reduce ] || build_old
  for round in 1 2; do
    say "== $(date -u) round $round"
    run_shapes old ../.old/build-gpu/bench/bench_reduce
    run_shapes new bench/bench_reduce
  done
  say "== $(date -u) torch"
  for s in 8192x8192 4096x16384 32768x1024 16384x4096 65536x768 8192x5120; do
    timeout 120 python3 ../bench/torch_map.py --norms ${s%x*} ${s#*x} --json $r/torch-norms-$s.json 2>&1 | tail -5 |
      sed "s/^/torch $s /" | tee -a "$log"
  done
fi
say "== $(date -u) done"
