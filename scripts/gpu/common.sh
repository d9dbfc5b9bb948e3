# common.sh — what the GPU-host scripts share; sourced from the repository root.
#   $out          the folder the device tool brings back ($OUT there, else ./gpu-out)
#   gpu_results   makes $r (a new /tmp/gpu-results.*/results), packed into $out/results.tgz when the script exits
#                 (the tool brings back at most 8 files)
#   gpu_build [T] unpacks the dependencies in .gpu/, builds Release (or target T) in build-gpu, enters it
#   gpu_session N results, build, a cache of its own (/tmp/clf-cache-N), and say: echo to the terminal and
#                 append to $out/N.txt, which comes back even when the call is cut short
#   gemv_bench    bench_gemv over $thin, said under a label
#   f32_bench     bench_gemm_mixed (fp32) with options, its result lines said under a label; F32_CFG: the H200's
#                 shipped fp32 tiles by bucket, for CLFORGE_GEMM_CONFIG
#   old_build T.. builds targets T of the worktree in ../.old (the build before, for A/B rounds) from build-gpu
#   gemm_suites N test_gemm's random cases (N of them) and test_gemm_plan on the GPU, each said with its counts
#   ab_groups F   the build before (../.old) and this one, fp32, in two alternating rounds over F's products
#   ab_env_groups VAR OLD NEW F  this build with VAR=OLD and VAR=NEW, as ab_groups (the same labels)
#   ab_rounds F RUN  the alternating rounds both run (RUN: a function of the variant, the label and the options)
#   cublas_groups F  cuBLAS (torch.matmul, fp32) on F's products
set -u
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
export PYTHONUNBUFFERED=1
gpu_results() {   # a folder of its own: two scripts at once (a suite that runs a documented one) keep theirs
  local base; base=$(mktemp -d /tmp/gpu-results.XXXXXX)
  r=$base/results; mkdir -p "$r"
  trap "tar -C '$base' -czf '$out/results.tgz' results" EXIT
}
gpu_build() {
  . .gpu/gpu-env.sh .gpu/debs
  local log=${r:-/tmp}/build.log
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build build-gpu -j"$(nproc)" ${1:+--target "$1"} > "$log" 2>&1 ||
    { echo "build failed:"; grep -E "error" "$log" | head -20; exit 1; }
  cd build-gpu
}
gpu_session() {
  gpu_results
  gpu_build
  export CLFORGE_CACHE_DIR=/tmp/clf-cache-$1
  log=$out/$1.txt
}
say() { echo "$@" | tee -a "$log"; }
# gemv_bench LABEL [OPTIONS...]: bench_gemv on the GPU over the shapes in $thin ("--shape MxNxK ..."), without
# CLBlast, its result lines said under the label.
gemv_bench() {
  local label=$1; shift
  say "== $label"
  timeout 120 bench/bench_gemv --device gpu --no-clblast $thin "$@" 2>&1 | grep -E "x[0-9]+x" | cut -c1-100 | tee -a "$log"
}
# The H200's shipped fp32 configurations (autotune/defaults/nvidia-h200.json), and two that are not, to force one per
# sweep.
declare -A F32_CFG=(
  [large]="MWG=128 NWG=128 KWG=16 MDIMC=16 NDIMC=8 VWM=4 VWN=2 KWI=8 PADA=4 PADB=0 DBUF=1"
  [medium]="MWG=64 NWG=128 KWG=16 MDIMC=8 NDIMC=32 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1"
  [skinny]="MWG=64 NWG=64 KWG=32 MDIMC=8 NDIMC=16 VWM=2 VWN=4 KWI=16 PADA=2 PADB=0 DBUF=1"
  [bsmall]="MWG=64 NWG=32 KWG=16 MDIMC=8 NDIMC=8 VWM=2 VWN=4 KWI=16 PADA=2 PADB=4 DBUF=1"
  # not shipped: 64 x 128 and 128 x 64 tiles with 8 x 8 accumulators a work-item (128 work-items)
  [m8]="MWG=64 NWG=128 KWG=16 MDIMC=8 NDIMC=16 VWM=4 VWN=4 KWI=16 PADA=4 PADB=0 DBUF=1"
  [m8t]="MWG=128 NWG=64 KWG=16 MDIMC=16 NDIMC=8 VWM=4 VWN=4 KWI=8 PADA=4 PADB=0 DBUF=1"
)
# f32_bench LABEL [OPTIONS...]: bench/bench_gemm_mixed (or $B) in fp32 on the GPU, result lines said under the label.
f32_bench() {
  local label=$1; shift
  say "-- $label"
  timeout 120 ${B:-bench/bench_gemm_mixed} --device gpu --modes f32 --reps 10 "$@" 2>&1 | grep -E "GFLOP|rror" | cut -c1-90 |
    sed "s/^/$label | /" | tee -a "$log"
}
# old_build TARGET...: Release build of TARGETs in ../.old/build-gpu (run from build-gpu); said when it fails.
old_build() {
  ( cd ../.old && cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build build-gpu -j16 --target "$@" > $r/old-build.log 2>&1 ) || say "old build failed"
}
# gemm_suites N: test_gemm's random tcase (N random cases, with its split-K and edge cases) and test_gemm_plan on the
# GPU (0:0), each said with its counts; logs in $r.
gemm_suites() {
  for t in test_gemm test_gemm_plan; do
    ( [ $t = test_gemm ] && export CK_RUN_CASE=random; CLFORGE_GEMM_TEST_CASES=$1 CLFORGE_SOURCE_DIR=.. CLFORGE_TEST_DEVICES=0:0 \
      timeout 200 tests/$t > $r/$t.log 2>&1 )
    say "$t rc=$? $(grep -E 'Checks|random cases|cases on' $r/$t.log | tr '\n' ' ')"
  done
}
# A products file has one product a line: FLAGS|BATCH|MxNxK, FLAGS bench_gemm_mixed's (--at, --bt) or "-" for none.
# ab_rounds FILE RUN: two alternating rounds over FILE's products, old then new in each: RUN VARIANT LABEL FLAGS... is
# called with VARIANT old or new, LABEL old-rN or new-rN and bench_gemm_mixed's options for the product.
ab_rounds() {
  local round v flags batch s
  for round in 1 2; do
    for v in old new; do
      while IFS='|' read -r flags batch s; do
        [ "$flags" = - ] && flags=""
        "$2" $v "$v-r$round" $flags --batch "$batch" --shape "$s"
      done < "$1"
    done
  done
}
# ab_groups FILE: bench_gemm_mixed of ../.old/build-gpu (the build before) and of this build, fp32, in two alternating
# rounds over FILE's products, said under old-rN / new-rN.
ab_groups() {
  ab_build_run() {
    local bin=bench/bench_gemm_mixed; [ "$1" = old ] && bin=../.old/build-gpu/bench/bench_gemm_mixed
    B=$bin f32_bench "${@:2}"
  }
  ab_rounds "$1" ab_build_run
}
# ab_env_groups VAR OLD NEW FILE: this build's bench_gemm_mixed with VAR=OLD (said as old-rN) and VAR=NEW (new-rN), fp32,
# in two alternating rounds over FILE's products.
ab_env_groups() {
  ab_env_var=$1 ab_env_old=$2 ab_env_new=$3
  ab_env_run() {
    ( if [ "$1" = old ]; then export "$ab_env_var=$ab_env_old"; else export "$ab_env_var=$ab_env_new"; fi
      f32_bench "${@:2}" )
  }
  ab_rounds "$4" ab_env_run
}
# cublas_groups FILE: torch.matmul in fp32 (cuBLAS, TF32 off) on FILE's products, said under "cuBLAS".
cublas_groups() {
  local flags batch s
  while IFS='|' read -r flags batch s; do
    [ "$flags" = - ] && flags=""
    timeout 60 python3 ../bench/torch_gemm.py --dtype f32 $flags --batch "$batch" --shape "$s" 2>&1 |
      grep -E "cuBLAS|rror" | sed "s/^/cuBLAS | /" | tee -a "$log"
  done < "$1"
}
