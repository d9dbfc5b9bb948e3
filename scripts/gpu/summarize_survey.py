#!/usr/bin/env python3
"""summarize_survey.py DIR — pairs h200_survey.sh's clf-CLASS.json and cublas-CLASS.json by shape and prints
each row's TFLOP/s and × cuBLAS, then each class's worst and geometric mean; writes DIR/survey.json."""
import glob, json, math, os, sys

d = sys.argv[1]
rows = []
for f in sorted(glob.glob(os.path.join(d, "clf-*.json"))):
    cls = os.path.basename(f)[4:-5]
    cf = os.path.join(d, "cublas-%s.json" % cls)
    if not os.path.exists(cf):
        continue
    ours = json.load(open(f))["results"]
    theirs = {(x["m"], x["n"], x["k"]): x for x in json.load(open(cf))["results"]}
    for x in ours:
        t = theirs.get((x["m"], x["n"], x["k"]))
        if not t or x["tflops"] <= 0:
            continue
        rows.append({"class": cls, "m": x["m"], "n": x["n"], "k": x["k"], "batch": x["batch"], "mode": x["mode"],
                     "clforge_tflops": round(x["tflops"], 2), "cublas_tflops": round(t["cublas_gflops"] / 1e3, 2),
                     "x_cublas": round(x["tflops"] * 1e3 / t["cublas_gflops"], 3), "max_rel_error": x["max_rel_error"]})
for x in rows:
    print("%-18s %5dx%5dx%5dx%5d %-5s %8.2f %8.2f  %.2f" % (x["class"], x["batch"], x["m"], x["n"], x["k"], x["mode"],
                                                          x["clforge_tflops"], x["cublas_tflops"], x["x_cublas"]))
by = {}
for x in rows:
    by.setdefault(x["class"].split("-", 1)[1], []).append(x["x_cublas"])
print("class               n  worst  geomean")
for c, v in sorted(by.items(), key=lambda kv: min(kv[1])):
    print("%-18s %2d  %.2f   %.2f" % (c, len(v), min(v), math.exp(sum(map(math.log, v)) / len(v))))
json.dump({"rows": rows}, open(os.path.join(d, "survey.json"), "w"), indent=1)
