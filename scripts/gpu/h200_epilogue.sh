#!/usr/bin/env bash
# h200_epilogue.sh — on the GPU host, from the repository root: the GEMM-epilogue suite on the H200, then
# C = gelu(A*B + bias) timed as the plain GEMM, fused (clf_gemm_epilogue) and GEMM followed by clf_map:
# fp32 at 4096x4096x1024 and f16 at 8192x8192x1024 (targets: fused within 3% of plain, >= 1.15x faster than
# GEMM + map). Locally (PoCL): EPI_DEVICE=0:0 EPI_F32=256x256x128 EPI_F16=256x256x128, and EPI_TESTS=0 to skip
# the suite (it builds only the bench then).
. scripts/gpu/common.sh
gpu_results
[ "${EPI_TESTS:-1}" = 0 ] && gpu_build bench_gemm_epilogue || gpu_build
export CLFORGE_CACHE_DIR=/tmp/clf-cache-epilogue
dev=${EPI_DEVICE:-nvidia}
date -u
if [ "${EPI_TESTS:-1}" != 0 ]; then
  ( CLFORGE_TEST_DEVICES=0:0 CLFORGE_EPI_TEST_CASES=60 timeout 300 ctest -R gemm_epilogue --output-on-failure ) > $r/ctest-epilogue.log 2>&1
  grep -E "tests passed|Passed|Failed|random cases" $r/ctest-epilogue.log | tail -8
fi
timeout 120 bench/bench_gemm_epilogue --device "$dev" --shape ${EPI_F32:-4096x4096x1024} --json $r/epilogue-f32.json
timeout 120 bench/bench_gemm_epilogue --device "$dev" --f16 --shape ${EPI_F16:-8192x8192x1024} --json $r/epilogue-f16.json
python3 - "$r" <<'PY'
import json, sys
for f in ("epilogue-f32.json", "epilogue-f16.json"):
    try:
        rows = json.load(open(f"{sys.argv[1]}/{f}"))["results"]
    except (OSError, ValueError, KeyError) as e:
        print(f, "missing:", e); continue
    for x in rows:
        ok1 = x["fused_over_plain"] <= 1.03
        ok2 = x["unfused_over_fused"] >= 1.15
        print(f'{x["dtype"]} {x["m"]}x{x["n"]}x{x["k"]}: fused/plain {x["fused_over_plain"]:.3f} '
              f'({"meets" if ok1 else "misses"} <= 1.03), GEMM+map/fused {x["unfused_over_fused"]:.2f} '
              f'({"meets" if ok2 else "misses"} >= 1.15), GEMM+map(no bias)/fused {x["unfused_min_over_fused"]:.2f}, '
              f'verified {x["verified"]}')
PY
date -u
