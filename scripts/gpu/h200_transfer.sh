#!/usr/bin/env bash
# h200_transfer.sh — on the GPU host: host <-> device bandwidth, clforge (bench/bench_transfer: pageable
# direct, pageable staged, clf_host_alloc pinned memory through clf_upload/clf_download, the driver from its
# own mapped buffer) against PyTorch (bench/torch_transfer.py: pin_memory().cuda(non_blocking=True), pageable
# .cuda(), and the device-to-host counterparts), 1 MiB to $CLF_TRANSFER_MAX_MIB (4096); a sweep of the
# staging knobs (copying threads x chunk size) at $CLF_TRANSFER_SWEEP_MIB (1024) that decides the defaults;
# a summary: clforge-pinned / torch pinned (target >= 0.9 from 64 MiB) and staged / torch pageable; then the
# Python tutorial (docs/python.md) on the NVIDIA device from the build folder. JSON in $r. Locally (no CUDA):
#   CLF_TRANSFER_MAX_MIB=16 CLF_TRANSFER_SWEEP_MIB=16 CLFORGE_DEVICE=0:0 bash scripts/gpu/h200_transfer.sh
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
sweep=${CLF_TRANSFER_SWEEP_MIB:-1024}
echo "== staging sweep at $sweep MiB: copying threads x chunk MiB (default: one per CPU, 2 to 16, 8 MiB)"
for t in 4 8 12 16; do
  for c in 2 8 32; do
    CLFORGE_STAGING_THREADS=$t CLFORGE_STAGING_CHUNK=$((c << 20)) timeout 60 bench/bench_transfer --device "$dev" \
      --min-mib "$sweep" --max-mib "$sweep" --method pageable-staged --json $r/transfer-sweep-${t}t-${c}m.json \
      | grep staged | sed "s/pageable-staged/staged ${t}t ${c}MiB/"
  done
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
mine = {(x["dir"], x["method"], x["bytes"]): x["gbs"] for x in c["rows"]}
rows = []
print(f"{'size':>10} dir  {'clf-pin':>8} {'drv-pin':>8} {'torch pin':>9} {'pin/pin':>7}   {'staged':>8} {'direct':>8} "
      f"{'torch pg':>8} {'stg/pg':>6}")
for d, m, size in sorted({(k[0], k[1], k[2]) for k in mine if k[1] == "clforge-pinned"}, key=lambda k: (k[0], k[2])):
    g = lambda meth: mine.get((d, meth, size), 0)
    tp, tg = torch.get((d, "pinned", size), 0), torch.get((d, "pageable", size), 0)
    row = {"dir": d, "bytes": size, "clforge_pinned_gbs": g("clforge-pinned"), "driver_pinned_gbs": g("pinned-direct"),
           "staged_gbs": g("pageable-staged"), "direct_gbs": g("pageable-direct"), "torch_pinned_gbs": tp,
           "torch_pageable_gbs": tg, "pinned_ratio": g("clforge-pinned") / tp if tp else None,
           "staged_vs_torch_pageable": g("pageable-staged") / tg if tg else None,
           "staged_vs_torch_pinned": g("pageable-staged") / tp if tp else None}
    rows.append(row)
    f = lambda v: f"{v:.2f}" if v is not None else "  -"
    print(f"{size >> 20:7d} MiB {d} {row['clforge_pinned_gbs']:8.2f} {row['driver_pinned_gbs']:8.2f} {tp:9.2f} "
          f"{f(row['pinned_ratio']):>7}   {row['staged_gbs']:8.2f} {row['direct_gbs']:8.2f} {tg:8.2f} "
          f"{f(row['staged_vs_torch_pageable']):>6}")
big = lambda key: [x[key] for x in rows if x["bytes"] >= 64 << 20 and x[key] is not None]
sweep = []
for name in sorted(os.listdir(r)):
    if name.startswith("transfer-sweep-") and name.endswith(".json"):
        t_, c_ = name[len("transfer-sweep-"):-len(".json")].split("-")
        for x in json.load(open(os.path.join(r, name)))["rows"]:
            sweep.append({"threads": int(t_[:-1]), "chunk_mib": int(c_[:-1]), "dir": x["dir"], "gbs": x["gbs"]})
both = {}
for x in sweep:
    both.setdefault((x["threads"], x["chunk_mib"]), []).append(x["gbs"])
best = max(both.items(), key=lambda kv: min(kv[1]), default=None)
verdict = {"target": "clforge-pinned >= 0.9x torch pinned from 64 MiB",
           "min_pinned_ratio_from_64mib": min(big("pinned_ratio"), default=None),
           "min_staged_vs_torch_pageable_from_64mib": min(big("staged_vs_torch_pageable"), default=None),
           "min_staged_vs_torch_pinned_from_64mib": min(big("staged_vs_torch_pinned"), default=None),
           "best_staging": {"threads": best[0][0], "chunk_mib": best[0][1], "min_gbs_both_dirs": min(best[1])}
           if best else None}
print(json.dumps(verdict, indent=1))
json.dump({"rows": rows, "sweep": sweep, "verdict": verdict}, open(os.path.join(r, "transfer-summary.json"), "w"),
          indent=1)
PY
echo "== Python tutorial (docs/python.md) on $dev"
( cd .. && CLFORGE_DEVICE=$dev CLFORGE_LIBRARY=$PWD/$b/libclforge.so PYTHONPATH=$PWD/python \
  timeout 200 python3 tests/python/test_docs.py ) > $r/tutorial.log 2>&1; echo "tutorial exit $?"; tail -5 $r/tutorial.log
