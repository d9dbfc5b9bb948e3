#!/usr/bin/env bash
# h200_maps.sh — on the GPU host: half-precision maps and row reductions against copy bandwidth and PyTorch,
# in one run:
#   bench_map --half        f16 relu(a*x + b), f32 -> bf16, bf16 -> f32, by bytes moved, / clf_copy (same run)
#   bench_reduce --sweep    row/column sums, softmax and layer norm (one call: ops lse and moments; and two
#                           calls) on 8192 x 8192 fp32
#   torch_map.py --norms    torch.softmax, F.layer_norm, and their torch.compile forms (failure recorded)
#   summary.json            the ratios against the targets (half maps and casts >= 0.9 of copy; softmax and
#                           layer norm >= 0.8 of torch and >= 1.0 of torch.compile)
# Stage argument: bench (default), tests (test_map and test_reduce on the GPU), tune (tunes map and reduce,
# then benches again with the tuned configurations), all.
# Local trial: H200_MAPS_LOCAL=<build dir> CLFORGE_DEVICE=0:0 H200_MAPS_SMALL=1 bash scripts/gpu/h200_maps.sh
. scripts/gpu/common.sh
gpu_results
# Locally, results go to a folder of their own (other scripts may be using /tmp/results at the same time).
if [ -n "${H200_MAPS_LOCAL:-}" ]; then r=$(mktemp -d); echo "results in $r"; cd "$H200_MAPS_LOCAL"; else gpu_build; fi
stage=${1:-bench}
dev=${CLFORGE_DEVICE:-gpu}
export CLFORGE_CACHE_DIR=${CLFORGE_CACHE_DIR:-/tmp/clf-cache-maps}
if [ -n "${H200_MAPS_SMALL:-}" ]; then mib=8; R=512; C=1024; sweep=; else mib=256; R=8192; C=8192; sweep=--sweep; fi

if [ "$stage" = tests ] || [ "$stage" = all ]; then
  dn=$(echo "$dev" | grep -q : && echo "$dev" || echo 0:0)
  ( CLFORGE_TEST_DEVICES=$dn timeout 280 ctest -R 'test_map|test_reduce' -j2 --output-on-failure ) > $r/ctest-maps.log 2>&1
  grep -E "tests passed|Passed|Failed|\*\*\*" $r/ctest-maps.log | tail -8
fi

bench() {   # tag
  timeout 150 bench/bench_map --device "$dev" --mib $mib --reps 7 --no-sweep --half --json $r/map-$1.json 2>&1 |
    tee $r/map-$1.txt | grep -E "clf_copy|f16|bf16|verification"
  timeout 200 bench/bench_reduce --device "$dev" --rows $R --cols $C --reps 7 ${2:-} --json $r/reduce-$1.json 2>&1 |
    tee $r/reduce-$1.txt
}

summary() {   # tag
  python3 - "$r" "$1" <<'PY'
import json, os, sys
r, tag = sys.argv[1], sys.argv[2]
def load(p):
    try:
        return json.load(open(os.path.join(r, p)))
    except Exception as e:
        return {"error": str(e)}
m, red, t = load(f"map-{tag}.json"), load(f"reduce-{tag}.json"), load("torch-norms.json")
s = {"tag": tag}
h = m.get("half", {})
for k, v in h.items():
    if isinstance(v, dict) and "ratio_vs_copy_bandwidth" in v:
        s[f"half: {k}"] = {"ratio_vs_copy": round(v["ratio_vs_copy_bandwidth"], 3), "target": 0.9}
tr = t.get("results", {})
rr = red.get("results", {})
for ours, theirs in (("softmax, 1 call", "softmax"), ("layer norm, 1 call", "layer_norm"),
                     ("softmax, 2 calls", "softmax"), ("layer norm, 2 calls", "layer_norm")):
    if ours not in rr:
        continue
    g = rr[ours]["counted_gbs"]
    s[ours] = {"clforge_gbs": round(g, 1), "moved_vs_copy": round(rr[ours]["moved_vs_copy"], 3),
               "max_rel_error": rr[ours].get("max_rel_error")}
    if theirs in tr:
        s[ours].update({"torch_gbs": round(tr[theirs]["gbs"], 1), "ratio_vs_torch": round(g / tr[theirs]["gbs"], 3),
                        "target": 0.8})
        c = tr.get(theirs + "_compile", {})
        s[ours]["ratio_vs_torch_compile"] = round(g / c["gbs"], 3) if "gbs" in c else c.get("error", "not run")
        s[ours]["target_vs_torch_compile"] = 1.0
for k in ("sweep_rows", "sweep_softmax", "sweep_softmax1", "sweep_layernorm1", "sweep_cols"):
    if k in red:
        s[k] = {"best": red[k]["best"], "gbs": round(red[k]["gbs"], 1)}
sw = h.get("f16_sweep", [])
if sw:
    b = max(sw, key=lambda e: e["gbs"])
    s["f16 map sweep"] = {"best": b["config"], "gbs": round(b["gbs"], 1), "in use": h.get("f16_config")}
cs = h.get("cast_sweep", [])
if cs:   # both cast directions under one configuration (they share the f16 key): best by the slower one
    b = max(cs, key=lambda e: min(e["gbs"], e["gbs2"]))
    s["cast sweep"] = {"best": b["config"], "f32->bf16 gbs": round(b["gbs"], 1), "bf16->f32 gbs": round(b["gbs2"], 1),
                       "in use": h.get("f16_config")}
print(json.dumps(s, indent=1))
json.dump(s, open(os.path.join(r, f"summary-{tag}.json"), "w"), indent=1)
PY
}

torch_norms() {
  [ -f $r/torch-norms.json ] && return
  timeout 150 python3 ../bench/torch_map.py --norms $R $C --json $r/torch-norms.json > $r/torch-norms.txt 2>&1 ||
    echo "torch_map.py failed (see torch-norms.txt)"
  tail -6 $r/torch-norms.txt
}

if [ "$stage" = bench ] || [ "$stage" = all ]; then
  bench default $sweep
  torch_norms
  summary default
fi

# One command may run 10 minutes: run the stages as separate commands (tests, bench, tune), not all.
if [ "$stage" = tune ] || [ "$stage" = all ]; then
  timeout 150 ./clforge tune --device "$dev" --family map,reduce --budget 30 --json $r/tune.json 2>&1 | tail -14
  bench tuned
  torch_norms
  summary tuned
fi
