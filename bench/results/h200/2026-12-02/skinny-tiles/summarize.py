#!/usr/bin/env python3
"""Pairs the rounds of h200_skinny_tiles.sh PART=ab logs: each product's TFLOP/s per build (old, new) and forced
split, against cuBLAS in the same log. Usage: summarize.py LOG"""
import collections, re, sys

rows = collections.defaultdict(lambda: collections.defaultdict(list))
cublas = {}
for line in open(sys.argv[1]):
    m = re.match(r'\s*(\d+)x\s*(\d+)x\s*(\d+)\s+cuBLAS\s+([\d.]+)', line)
    if m:
        cublas['x'.join(m.groups()[:3])] = float(m.group(4)) / 1000
        continue
    m = re.match(r'(\S+) r\d \| 1x\s*(\d+)x\s*(\d+)x\s*(\d+) NN f32\s+([\d.]+)', line)
    if m:
        rows['x'.join(m.groups()[1:4])][m.group(1)].append(float(m.group(5)) / 1000)
for shape, d in rows.items():
    mean = {k: sum(v) / len(v) for k, v in d.items()}
    cols = '  '.join('%s %s' % (k, '/'.join('%.1f' % x for x in v)) for k, v in d.items())
    ratio = mean['new'] / mean['old'] if 'old' in mean and 'new' in mean else float('nan')
    print('%-15s %s  cuBLAS %.1f  new/old %.2f  new/cuBLAS %.2f' % (shape, cols, cublas.get(shape, 0), ratio,
                                                                   mean.get('new', 0) / cublas.get(shape, 1)))
