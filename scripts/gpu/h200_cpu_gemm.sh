#!/usr/bin/env bash
# h200_cpu_gemm.sh — on the GPU host's CPU (PoCL, platform 1): clforge's CPU GEMM path (gemm_cpu) against
# PyTorch's CPU matmul on the same cores and CLBlast on the same device, in one script, f32 and f64; the
# roofline with its spec cross-check and the map/copy rows; a sweep of gemm_cpu configurations and a short
# `clforge tune --family gemm_cpu`, then the clforge rows again with the tuned configuration. JSON into $r.
#   CLF_CPU_DEVICE  the CPU device (default 1:0)          CLF_CPU_THREADS  torch threads (default: nproc)
#   CLF_CPU_SIZES   square sizes (default 256..4096)       CLF_CPU_PHASE    compare | tune | all (default all)
#   CLF_CPU_BUDGET  tune budget in seconds (default 40)   CLF_CPU_MAPCOPY  0: no map/copy rows
# The bench's 4097^3, 8191^3 and 8192^3 are left out: CLBlast needs minutes for them on a CPU.
# On the GPU host after `. .gpu/gpu-env.sh .gpu/debs`. Locally (PoCL is 0:0): CLF_CPU_BUILD=build CLF_CPU_DEVICE=0:0 CLF_CPU_SIZES="256 512" CLF_CPU_BUDGET=10 bash scripts/gpu/h200_cpu_gemm.sh
. scripts/gpu/common.sh
gpu_results
bdir=${CLF_CPU_BUILD:-build-gpu}
if [ ! -x "$bdir/bench/bench_gemm" ] || [ ! -x "$bdir/clforge" ]; then
  cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$bdir" -j"$(nproc)" --target bench_gemm clforge_cli > "$r/build.log" 2>&1 ||
    { echo "build failed:"; grep -E "error" "$r/build.log" | head -20; exit 1; }
fi
dev=${CLF_CPU_DEVICE:-1:0}
sizes=${CLF_CPU_SIZES:-"256 512 1024 2048 4096"}
phase=${CLF_CPU_PHASE:-all}
threads=${CLF_CPU_THREADS:-$(nproc)}
export CLFORGE_CACHE_DIR=${CLFORGE_CACHE_DIR:-/tmp/clf-cache-cpu}
bench=$bdir/bench/bench_gemm cli=$bdir/clforge
shapes=""; for s in $sizes; do shapes="$shapes --shape ${s}x${s}x${s}"; done
big=${sizes##* }
if [ "$big" -ge 4096 ]; then   # the bench's other shapes (>= 256 in every extent but the skinny ones)
  shapes="$shapes --shape 1000x3000x700 --shape 64x4096x4096 --shape 4096x64x4096 --shape 4096x4096x64"
fi
"$cli" devices > "$r/devices.txt" 2>&1; grep -E "^ *$dev|pocl|PoCL" "$r/devices.txt" | head -3
lscpu > "$r/lscpu.txt" 2>&1 || true

torch_rows() {   # $1 = f32|f64 -> $r/torch-$1.json (median of 5 after warm-up, threads = $threads)
  python3 - "$1" "$threads" "$r/torch-$1.json" $sizes <<'EOF' || echo "torch: not available"
import json, sys, time
import torch
prec, threads, out, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3], [int(x) for x in sys.argv[4:]]
torch.set_num_threads(threads)
dt = torch.float64 if prec == "f64" else torch.float32
rows = []
for n in sizes:
    a, b = torch.rand(n, n, dtype=dt) * 2 - 1, torch.rand(n, n, dtype=dt) * 2 - 1
    c = torch.empty(n, n, dtype=dt)
    reps = max(3, min(50, int(2e10 / (2.0 * n ** 3))))
    for _ in range(2):
        torch.matmul(a, b, out=c)
    ts = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            torch.matmul(a, b, out=c)
        ts.append((time.perf_counter() - t0) / reps)
    t = sorted(ts)[2]
    rows.append({"m": n, "n": n, "k": n, "torch_ms": t * 1e3, "torch_gflops": 2.0 * n ** 3 / t / 1e9})
    print(f"torch {prec} {n:5d}^3 {rows[-1]['torch_gflops']:8.1f} GFLOP/s", flush=True)
json.dump({"torch": torch.__version__, "threads": threads, "config": torch.__config__.parallel_info(),
           "results": rows}, open(out, "w"), indent=2)
EOF
}

summary() {   # clforge (bench_gemm JSON) against torch and CLBlast, per precision -> $r/summary-$1.json
  python3 - "$r" "$1" <<'EOF'
import json, os, sys
r, tag = sys.argv[1], sys.argv[2]
out = {}
for prec in ("f32", "f64"):
    cf = f"{r}/bench-{tag}-{prec}.json"
    if not os.path.exists(cf):
        continue
    torch = {}
    if os.path.exists(f"{r}/torch-{prec}.json"):
        torch = {(x["m"], x["n"], x["k"]): x["torch_gflops"] for x in json.load(open(f"{r}/torch-{prec}.json"))["results"]}
    rows = []
    for x in json.load(open(cf))["results"]:
        key = (x["m"], x["n"], x["k"])
        row = {"shape": "%dx%dx%d" % key, "path": x.get("path"), "config": x["config"],
               "clforge_gflops": round(x["clforge_gflops"], 1), "verified": x["verified"]}
        if x.get("clblast_gflops"):
            row["clblast_gflops"] = round(x["clblast_gflops"], 1)
            row["vs_clblast"] = round(x["clforge_gflops"] / x["clblast_gflops"], 2)
        if key in torch:
            row["torch_gflops"] = round(torch[key], 1)
            row["vs_torch"] = round(x["clforge_gflops"] / torch[key], 3)
        rows.append(row)
        print(prec, row, flush=True)
    out[prec] = rows
json.dump(out, open(f"{r}/summary-{tag}.json", "w"), indent=2)
EOF
}

if [ "$phase" = compare ] || [ "$phase" = all ]; then
  for p in f32 f64; do torch_rows $p; done
  for p in f32 f64; do
    f=""; [ $p = f64 ] && f=--f64
    timeout 240 "$bench" --device "$dev" $f --reps 3 --max-gflop 1000 --json "$r/bench-shipped-$p.json" $shapes 2>&1
    # Small products with the packs forced on: what reading operands in place saves.
    CLFORGE_GEMM_CPU_PACK=1 timeout 60 "$bench" --device "$dev" $f --reps 3 --no-clblast \
      --json "$r/bench-packed-$p.json" --shape 256x256x256 --shape 320x320x320 2>&1 | sed "s/^/packed: /"
  done
  summary shipped
  [ "${CLF_CPU_MAPCOPY:-1}" = 0 ] || timeout 120 "$cli" bench --device "$dev" --quick --only map,copy --json "$r/bench-map-copy.json" > "$r/bench-map-copy.txt" 2>&1
  [ -f "$r/bench-map-copy.txt" ] && tail -n 8 "$r/bench-map-copy.txt"
fi

if [ "$phase" = tune ] || [ "$phase" = all ]; then
  for p in f32 f64; do [ -f "$r/torch-$p.json" ] || torch_rows $p; done
  # A few shapes of micro-kernel around the default, at 2048^3 (1024^3 when the sizes stop below).
  n=2048; [ "$big" -lt 2048 ] && n=$big
  for p in f32 f64; do
    f=""; [ $p = f64 ] && f=--f64
    for c in "" "MR=14" "NV=1 VW=16" "MI=4 NI=2" "KC=128" "ORDER=1"; do
      CLFORGE_GEMM_CPU_CONFIG="$c" timeout 60 "$bench" --device "$dev" $f --reps 3 --no-clblast --max-gflop 1000 \
        --shape ${n}x${n}x${n} 2>&1 | tail -n 1 | sed "s/^/sweep $p [$c] /"
    done
  done | tee "$r/sweep.txt"
  timeout $(( ${CLF_CPU_BUDGET:-40} * 2 + 60 )) "$cli" tune --device "$dev" --family gemm_cpu \
    --budget "${CLF_CPU_BUDGET:-40}" --json "$r/tune-gemm_cpu.json" > "$r/tune.txt" 2>&1
  tail -n 8 "$r/tune.txt"
  "$cli" tune --show --device "$dev" --family gemm_cpu 2>&1 | tee "$r/tune-show.txt"
  cp "$CLFORGE_CACHE_DIR"/tuning/*.json "$r/" 2>/dev/null
  for p in f32 f64; do
    f=""; [ $p = f64 ] && f=--f64
    timeout 120 "$bench" --device "$dev" $f --reps 3 --no-clblast --max-gflop 1000 --json "$r/bench-tuned-$p.json" \
      $shapes 2>&1
  done
  summary tuned
fi
