#!/usr/bin/env bash
# h200_thin_staged.sh — on the GPU host, from the repository root: thin products with the shipped gemv
# entries (vectors staged in local memory for the rows kernel), the same with staging off, fp64, the one-call
# softmax and layer norm with and without fast-math build options (where their time goes), then a
# 30 s tune of the two thin buckets with XL in the space and the bench again with the tuned entries; last,
# the gemv and GEMM suites on the H200.
. scripts/gpu/common.sh
gpu_session thin-staged
date -u | tee -a "$log"
thin="--shape 8x4096x4096 --shape 16x4096x4096 --shape 4096x8x4096 --shape 4096x16x4096 --shape 3000x11x6000 --shape 4096x2x4096 --shape 12x8192x2048"
for o in "" "--trans-b" "--trans" "--trans --trans-b"; do
  gemv_bench "shipped $o" $o --json $r/shipped-$(echo "x$o" | tr -d ' -').json
done
for o in "" "--trans-b"; do
  CLFORGE_GEMV_CONFIG="XL=0" gemv_bench "shipped, XL=0 $o" $o
done
gemv_bench "f64 shipped" --f64
CLFORGE_GEMV_CONFIG="TEAM=8 RPT=2 XL=256" gemv_bench "f64 TEAM=8 RPT=2 XL=256" --f64
CLFORGE_GEMV_CONFIG="TEAM=8 RPT=2 XL=256" gemv_bench "f64 TEAM=8 RPT=2 XL=256 --trans-b" --f64 --trans-b
# Row reductions: is the one-call softmax and layer norm bound by arithmetic (IEEE exp, division)?
for opt in "" "-cl-fast-relaxed-math" "-cl-mad-enable"; do
  say "== bench_reduce ${opt:-default}"
  CLFORGE_BUILD_OPTIONS="$opt" timeout 90 bench/bench_reduce --device gpu 2>&1 | tail -11 | tee -a "$log"
done
say "== tune"
timeout 150 ./clforge tune --device gpu --family gemv --bucket thin_rows,thin_cols --precision f32,f64 --budget 30 \
  --json $r/tune-thin.json 2>&1 | grep -v "^\[" | tail -8 | tee -a "$log"
for o in "" "--trans-b" "--trans"; do
  gemv_bench "tuned $o" $o
done
cp -r $CLFORGE_CACHE_DIR/tuning $r/ 2>/dev/null
CLFORGE_TEST_DEVICES=$(./clforge devices 2>/dev/null | awk '/^ +[0-9]+:[0-9]+ .*(NVIDIA|H200)/ {print $1; exit}') \
  timeout 200 ctest -R "test_gemv" --output-on-failure 2>&1 | tail -4 | tee -a "$log"
date -u | tee -a "$log"
