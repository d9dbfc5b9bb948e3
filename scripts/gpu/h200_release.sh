#!/usr/bin/env bash
# h200_release.sh — on the GPU host, one call: the suites this release touched on the H200; the GEMM wave rule
# off and on (h200_waves.sh without the probe); mixed precision on the matrix units against cuBLAS; thin and
# tiny GEMMs against cuBLAS and matrix-vector against the copy; GEMM epilogues (plain, fused, GEMM + map);
# one-call softmax and layer norm (with a sweep of the row kernel) against PyTorch and torch.compile.
# Every part appends to $out/release.txt as it goes, so a run cut short still brings back what it measured.
. scripts/gpu/common.sh
gpu_session release
say "== $(date -u) suites on the H200"
( CLFORGE_TEST_DEVICES=0:0 timeout 240 ctest -R 'test_gemm_waves|test_gemv|test_gemm_epilogue|test_reduce|test_gemm_plan|test_gemm_mixed|test_gemm$' \
    -j4 --output-on-failure ) > $r/ctest-release.log 2>&1
grep -E "tests passed|Passed|Failed|\*\*\*|F:" $r/ctest-release.log | tail -12 | tee -a $log
say "== waves (off = CLFORGE_GEMM_WG_PER_CU=off, on = the shipped wg_per_cu)"
for s in 3072x3072x3072 2000x3000x1000 2560x2560x2560 2304x2304x2304 3000x3000x3000 1536x4608x2048 1000x3000x700 1024x3072x704 777x1555x999 4097x4097x4097 4096x4096x4096 8192x8192x8192; do
  off=$(CLFORGE_GEMM_WG_PER_CU=off timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 --reps 7 --shape $s --json $r/off-$s.json 2>&1 | grep GFLOP | awk '{print $(NF-5)}')
  on=$(timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 --reps 7 --shape $s --json $r/on-$s.json 2>&1 | grep GFLOP | awk '{print $(NF-5)}')
  cb=$(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 --shape $s --json $r/cublas-$s.json 2>&1 | grep cuBLAS | awk '{print $(NF-4)}')
  say "$s: waves off $off, on $on, cuBLAS $cb GFLOP/s"
done
say "== mixed precision, B stored N x K, TFLOP/s (clforge, then cuBLAS)"
for s in 4096x4096x4096 8192x8192x8192; do
  timeout 90 bench/bench_gemm_mixed --device gpu --bt --modes f16,bf16,f16h,bf16h,tf32,3xtf32,f64 --reps 5 --shape $s --json $r/mixed-$s.json 2>&1 | grep GFLOP | tee -a $log
  for d in f16 bf16 tf32 f32 f64; do
    timeout 60 python3 ../bench/torch_gemm.py --dtype $d --bt --shape $s --json $r/cublas-$d-$s.json 2>&1 | grep cuBLAS | sed "s/^/$d /" | tee -a $log
  done
done
say "== thin and tiny (clf_sgemm), cuBLAS"
for s in 1x4096x4096 4096x1x4096 2x8192x4096 4x4096x4096 8x4096x4096 16x4096x4096 4096x8x4096 13x5000x3000 3000x11x6000 16x16x16 32x32x32; do
  a=$(timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 --reps 7 --shape $s --json $r/thin-$s.json 2>&1 | grep GFLOP | awk '{print $(NF-5)}')
  b=$(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 --shape $s --json $r/thin-cublas-$s.json 2>&1 | grep cuBLAS | awk '{print $(NF-4)}')
  say "$s clforge $a cuBLAS $b GFLOP/s"
done
timeout 90 bench/bench_gemv --device gpu --json $r/gemv.json 2>&1 | tail -16 | tee -a $log
say "== epilogue"
for u in 1 2 4 8; do
  CLFORGE_EPILOGUE_UNROLL=$u timeout 100 bench/bench_gemm_epilogue --device nvidia --shape 4096x4096x1024 --compare-unrolled \
    --json $r/epilogue-f32-u$u.json 2>&1 | grep -v "^#" | sed "s/^/unroll $u: /" | tee -a $log
done
timeout 100 bench/bench_gemm_epilogue --device nvidia --f16 --shape 8192x8192x1024 --json $r/epilogue-f16.json 2>&1 | tail -2 | tee -a $log
say "== reduce"
timeout 120 bench/bench_reduce --device nvidia --reps 7 --shapes --json $r/reduce-shapes.json 2>&1 | tail -14 | tee -a $log
for s in "8192 8192" "4096 16384" "32768 1024"; do
  timeout 120 python3 ../bench/torch_map.py --norms $s --json "$r/torch-norms-${s/ /x}.json" 2>&1 | tail -6 | tee -a $log
done
timeout 150 bench/bench_reduce --device nvidia --reps 5 --fused-sweep --json $r/reduce-fused-sweep.json > $r/reduce-fused-sweep.txt 2>&1
sort -t'|' -k2 $r/reduce-fused-sweep.txt | tail -5 | tee -a $log
say "== batched bucket: shipped heuristic, then a 60 s tune (clforge tune --family gemm --bucket batched)"
bat() { for sh in "--batch 64 --shape 256x256x256" "--batch 64 --at --bt --shape 256x256x256" "--batch 256 --shape 128x128x128" "--batch 32 --bt --shape 384x384x192"; do
  a=$(timeout 60 bench/bench_gemm_mixed --device gpu --modes f32 --reps 7 $sh 2>&1 | grep GFLOP | awk '{print $(NF-5)}')
  b=$(timeout 60 python3 ../bench/torch_gemm.py --dtype f32 $sh 2>&1 | grep cuBLAS | awk '{print $(NF-4)}')
  say "$1 $sh: clforge $a cuBLAS $b GFLOP/s"; done; }
bat before
timeout 120 ./clforge tune --device gpu --family gemm --precision f32 --bucket batched --budget 60 --json $r/tune-batched.json 2>&1 | tail -4 | tee -a $log
bat tuned
cp $CLFORGE_CACHE_DIR/tuning/*.json $r/ 2>/dev/null
say "== $(date -u) done"
