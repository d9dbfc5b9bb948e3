#!/usr/bin/env python3
"""summarize_ab.py LOG — the A/B log of ab_groups / ab_env_groups (scripts/gpu/common.sh) as a table: each product
of the log's list (FLAGS|BATCH|MxNxK lines), its TFLOP/s under old-rN and new-rN, the ratio of the means, and cuBLAS
(cublas_groups, same order) with new's fraction of it. Result lines are matched to products by order within each
label; a line that reports an error takes its product's slot empty."""
import re
import sys


def main(path):
    text = open(path, encoding="utf-8", errors="replace").read().splitlines()
    products = [l for l in text if re.fullmatch(r"[^|]*\|\d+\|\d+x\d+x\d+", l.strip())]
    runs = {}
    for line in text:
        m = re.match(r"^((?:old|new)-r\d+|cuBLAS) \|", line)
        if not m:
            continue
        g = re.search(r"([\d.]+) GFLOP/s", line)
        runs.setdefault(m.group(1), []).append(float(g.group(1)) / 1000 if g else None)
    labels = sorted((k for k in runs if k != "cuBLAS"), key=lambda k: (k.startswith("new"), k))
    print("| product | " + " | ".join(labels) + " | new/old | cuBLAS | new × cuBLAS |")
    print("|---|" + "---:|" * (len(labels) + 3))
    for i, p in enumerate(products):
        flags, batch, shape = p.strip().split("|")
        name = ("%s × " % batch if batch != "1" else "") + shape.replace("x", "×")
        name += " " + {"-": "", "--bt": "A·Bᵀ", "--at": "Aᵀ·B", "--at --bt": "Aᵀ·Bᵀ"}.get(flags, flags)
        vals = {k: (runs[k][i] if i < len(runs[k]) else None) for k in runs}
        mean = lambda side: [v for k, v in vals.items() if k.startswith(side) and v is not None]
        old, new = mean("old"), mean("new")
        ratio = "%.3f" % ((sum(new) / len(new)) / (sum(old) / len(old))) if old and new else "—"
        cub = vals.get("cuBLAS")
        frac = "%.2f" % (max(new) / cub) if new and cub else "—"
        cells = ["%.1f" % vals[k] if vals.get(k) is not None else "—" for k in labels]
        print("| %s | %s | %s | %s | %s |" % (name.strip(), " | ".join(cells), ratio,
                                            "%.1f" % cub if cub else "—", frac))


if __name__ == "__main__":
    main(sys.argv[1])
