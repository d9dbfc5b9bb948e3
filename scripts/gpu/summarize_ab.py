#!/usr/bin/env python3
"""summarize_ab.py [--json] LOG — the A/B log of ab_groups / ab_env_groups (scripts/gpu/common.sh) as a table: each
product of the log's list (FLAGS|BATCH|MxNxK lines), its TFLOP/s under old-rN and new-rN, the ratio of the means, and
cuBLAS (cublas_groups, same order) with new's fraction of it; a third variant said as off-rN (a script's rules
switched off) adds a column new/off. Result lines are matched to products by order within
each label; a line that reports an error takes its product's slot empty. --json: the same rows as JSON, for
bench/results/."""
import json
import re
import sys

ORIENT = {"-": "", "--bt": "A·Bᵀ", "--at": "Aᵀ·B", "--at --bt": "Aᵀ·Bᵀ"}


def rows(path):
    text = open(path, encoding="utf-8", errors="replace").read().splitlines()
    products = [l for l in text if re.fullmatch(r"[^|]*\|\d+\|\d+x\d+x\d+", l.strip())]
    runs = {}
    for line in text:
        m = re.match(r"^((?:old|new|off)-r\d+|cuBLAS) \|", line)
        if not m:
            continue
        g = re.search(r"([\d.]+) GFLOP/s", line)
        runs.setdefault(m.group(1), []).append(float(g.group(1)) / 1000 if g else None)
    order = {"off": 0, "old": 1, "new": 2}
    labels = sorted((k for k in runs if k != "cuBLAS"), key=lambda k: (order[k.split("-")[0]], k))
    out = []
    for i, p in enumerate(products):
        flags, batch, shape = p.strip().split("|")
        vals = {k: (runs[k][i] if i < len(runs[k]) else None) for k in runs}
        side = lambda s: [v for k, v in vals.items() if k.startswith(s) and v is not None]
        old, new, off = side("old"), side("new"), side("off")
        m, n, k = (int(x) for x in shape.split("x"))
        out.append({"flags": flags, "batch": int(batch), "m": m, "n": n, "k": k,
                    "tflops": {lab: vals.get(lab) for lab in labels},
                    "new_over_old": (sum(new) / len(new)) / (sum(old) / len(old)) if old and new else None,
                    "new_over_off": (sum(new) / len(new)) / (sum(off) / len(off)) if off and new else None,
                    "cublas_tflops": vals.get("cuBLAS")})
    return labels, out


def table(labels, out):
    offs = any(r["new_over_off"] for r in out)
    print("| product | " + " | ".join(labels) + " | new/old |" + (" new/off |" if offs else "") + " cuBLAS | new × cuBLAS |")
    print("|---|" + "---:|" * (len(labels) + 3 + offs))
    for r in out:
        name = ("%d × " % r["batch"] if r["batch"] != 1 else "") + "%d×%d×%d" % (r["m"], r["n"], r["k"])
        name += " " + ORIENT.get(r["flags"], r["flags"])
        new = [v for lab, v in r["tflops"].items() if lab.startswith("new") and v is not None]
        cub = r["cublas_tflops"]
        cells = ["%.1f" % r["tflops"][lab] if r["tflops"].get(lab) is not None else "—" for lab in labels]
        ratio = lambda x: "%.3f" % x if x else "—"
        print("| %s | %s | %s |%s %s | %s |" % (name.strip(), " | ".join(cells), ratio(r["new_over_old"]),
                                              " %s |" % ratio(r["new_over_off"]) if offs else "",
                                              "%.1f" % cub if cub else "—", "%.2f" % (max(new) / cub) if new and cub else "—"))


if __name__ == "__main__":
    as_json = "--json" in sys.argv[1:]
    labels, out = rows([a for a in sys.argv[1:] if a != "--json"][0])
    if as_json:
        json.dump({"unit": "TFLOP/s", "source": sys.argv[-1].split("/")[-1], "products": out}, sys.stdout, indent=1)
        print()
    else:
        table(labels, out)
