#!/usr/bin/env bash
# h200_transfer.sh — on the GPU host: host <-> device bandwidth, clforge (bench/bench_transfer: pageable
# direct, pageable staged, pinned direct) against PyTorch (bench/torch_transfer.py: pin_memory().cuda(
# non_blocking=True), pageable .cuda(), and the device-to-host counterparts), 1 MiB to $CLF_TRANSFER_MAX_MIB
# (4096); the ratio of clforge's default path to pinned PyTorch per size; then the Python tutorial
# (docs/python.md) on the NVIDIA device from the build folder. JSON in $r. Locally (no CUDA):
#   CLF_TRANSFER_MAX_MIB=16 CLFORGE_DEVICE=0:0 bash scripts/gpu/h200_transfer.sh
. scripts/gpu/common.sh
gpu_results
b=${CLF_GPU_BUILD:-build-gpu}   # locally another build folder may be given
if [ "$b" = build-gpu ] && [ -f .gpu/gpu-env.sh ]; then
  gpu_build bench_transfer
else
  cmake -S . -B "$b" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$b" -j"$(nproc)" --target bench_transfer \
    >/dev/null || exit 1
  cd "$b"
fi
cmake --build . -j"$(nproc)" --target clforge >/dev/null || exit 1   # the shared library, for the tutorial
export CLFORGE_CACHE_DIR=/tmp/clf-cache-transfer
max=${CLF_TRANSFER_MAX_MIB:-4096}
dev=${CLFORGE_DEVICE:-nvidia}
echo "== clforge (bench_transfer --device $dev)"
timeout 400 bench/bench_transfer --device "$dev" --max-mib "$max" --json $r/transfer-clforge.json | tee $r/transfer-clforge.txt
echo "== clforge staged with 2 and 4 copying threads (the default is half the CPUs, at most 8)"
for t in 2 4; do
  CLFORGE_STAGING_THREADS=$t timeout 300 bench/bench_transfer --device "$dev" --max-mib "$max" \
    --json $r/transfer-clforge-${t}t.json | grep staged | sed "s/staged/staged-${t}t/"
done
echo "== PyTorch"
timeout 150 python3 ../bench/torch_transfer.py --max-mib "$max" --json $r/transfer-torch.json 2>&1 | tee $r/transfer-torch.txt
python3 - "$r" <<'PY'
import json, os, sys
r = sys.argv[1]
try:
    c = json.load(open(os.path.join(r, "transfer-clforge.json")))
    t = json.load(open(os.path.join(r, "transfer-torch.json")))
except (OSError, ValueError) as e:
    sys.exit(f"no comparison: {e}")
torch = {(x["dir"], x["method"], x["bytes"]): x["gbs"] for x in t["rows"]}
rows = []
print(f"{'size':>10} dir  {'staged':>8} {'direct':>8} {'pinned':>8} {'torch pin':>9} {'torch pg':>8}  staged/pin")
for x in c["rows"]:
    if x["method"] != "pageable-staged":
        continue
    key = lambda m: next((y["gbs"] for y in c["rows"] if y["dir"] == x["dir"] and y["bytes"] == x["bytes"] and y["method"] == m), 0)
    tp, tg = torch.get((x["dir"], "pinned", x["bytes"]), 0), torch.get((x["dir"], "pageable", x["bytes"]), 0)
    ratio = x["gbs"] / tp if tp else None
    rows.append({"dir": x["dir"], "bytes": x["bytes"], "staged_gbs": x["gbs"], "direct_gbs": key("pageable-direct"),
                 "pinned_gbs": key("pinned-direct"), "torch_pinned_gbs": tp, "torch_pageable_gbs": tg, "ratio": ratio})
    print(f"{x['bytes'] >> 20:7d} MiB {x['dir']} {x['gbs']:8.2f} {key('pageable-direct'):8.2f} {key('pinned-direct'):8.2f}"
          f" {tp:9.2f} {tg:8.2f}  {ratio if ratio is not None else float('nan'):.2f}")
big = [x["ratio"] for x in rows if x["bytes"] >= 64 << 20 and x["ratio"] is not None]
verdict = {"target": "staged >= 0.9x torch pinned from 64 MiB", "min_ratio_from_64mib": min(big) if big else None}
print(verdict)
json.dump({"rows": rows, "verdict": verdict}, open(os.path.join(r, "transfer-summary.json"), "w"), indent=1)
PY
echo "== Python tutorial (docs/python.md) on $dev"
( cd .. && CLFORGE_DEVICE=$dev CLFORGE_LIBRARY=$PWD/$b/libclforge.so PYTHONPATH=$PWD/python \
  timeout 200 python3 tests/python/test_docs.py ) > $r/tutorial.log 2>&1; echo "tutorial exit $?"; tail -5 $r/tutorial.log
