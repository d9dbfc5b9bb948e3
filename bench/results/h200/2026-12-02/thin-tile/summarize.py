#!/usr/bin/env python3
"""summarize.py — the thin-product table of this folder: the previous shipped entries (gemv_rows/gemv_cols) against
gemv_tile as now shipped (TM=2 WG=128), from the bench_gemv logs run1-run4 (scripts/gpu/h200_thin_tile.sh), with
cuBLAS (torch.matmul, cublas-run5-*.json) and copy bandwidth; writes summary.json and prints a markdown table."""
import json, os, re, statistics

os.chdir(os.path.dirname(os.path.abspath(__file__)))

def parse(path):
    lab, out = None, {}
    for line in open(path):
        if line.startswith('=='):
            lab = line[3:].strip()
            continue
        m = re.match(r'(\S+)\s+(\w+) clforge\s+([\d.]+) us\s+([\d.]+) GB/s \(([\d.]+) of copy\s+([\d.]+) GB/s', line)
        if m and lab and '[' in lab:
            out.setdefault(lab, {}).setdefault(m.group(1), []).append((float(m.group(3)), float(m.group(6))))
    return out

runs = {i: parse(f'run{i}.txt') for i in (1, 2, 3, 4)}
# (orientation label in the logs, old: (run, label), new: (run, label), cuBLAS file)
sources = {
    'A.B':     ('f32', (3, 'f32  [-]'), (3, 'f32  [TM=2 WG=128]'), 'NN'),
    'A.B^T':   ('f32', (1, 'f32 --trans-b [-]'), (1, 'f32 --trans-b [TM=2 WG=128]'), 'bt'),
    'A^T.B':   ('f32', (1, 'f32 --trans [-]'), (2, 'f32 --trans [TM=2 WG=128]'), 'at'),
    'f64 A.B': ('f64', (4, 'f64 [-]'), (2, 'f64 [TM=2 WG=128]'), None),
}
rows = []
for orient, (prec, old, new, cub) in sources.items():
    o, n = runs[old[0]][old[1]], runs[new[0]][new[1]]
    cb = {}
    if cub:
        for r in json.load(open(f'cublas-run5-{cub}.json'))['results']:
            cb[f"{r['m']}x{r['n']}x{r['k']}"] = r['cublas_ms'] * 1000
    else:
        for r in json.load(open('cublas-run4-f64.json'))['results']:
            cb[f"{r['m']}x{r['n']}x{r['k']}"] = r['cublas_ms'] * 1000
    for shape in n:
        m_, nn, k = (int(x) for x in shape.split('x'))
        esz = 8 if prec == 'f64' else 4
        old_us = statistics.median(t for t, _ in o[shape])
        new_us = statistics.median(t for t, _ in n[shape])
        copy = statistics.median(c for _, c in n[shape])
        big = max(m_, nn) * k * esz   # the streamed operand
        rows.append({'orientation': orient, 'shape': shape, 'before_us': old_us, 'after_us': new_us,
                     'cublas_us': round(cb.get(shape, float('nan')), 1), 'copy_gbs': copy,
                     'after_of_copy': round(big / (new_us * 1e-6) / 1e9 / copy, 2), 'runs': [old[0], new[0]]})
json.dump({'device': 'NVIDIA H200', 'date': '2026-12-02', 'rows': rows}, open('summary.json', 'w'), indent=1)
print('| product | orientation | before | after | cuBLAS | after: A alone vs copy |')
print('|---|---|---:|---:|---:|---:|')
for r in rows:
    print(f"| {r['shape']} | {r['orientation']} | {r['before_us']:.1f} | {r['after_us']:.1f} | {r['cublas_us']} | {r['after_of_copy']:.2f} |")
