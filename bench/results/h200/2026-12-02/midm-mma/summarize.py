#!/usr/bin/env python3
"""Tables from the logs of scripts/gpu/h200_midm_mma.sh.
   summarize.py sweep run1-sweep.txt   TFLOP/s per product and forced configuration (* the best forced one)
   summarize.py ab run2-ab.txt ...     old -> new per product, mode and batch, with cuBLAS from the same run"""
import collections
import re
import sys


def sweep(path):
    rows, cub = collections.OrderedDict(), {}
    for line in open(path):
        m = re.match(r'\s*(\d+)x\s*(\d+)x\s*(\d+)\s+cuBLAS\s+([\d.]+)', line)
        if m:
            cub['%sx%sx%s' % m.groups()[:3]] = float(m.group(4)) / 1000
            continue
        m = re.match(r'(.+?) \| 1x\s*(\d+)x\s*(\d+)x\s*(\d+) \w+ \w+\s+([\d.]+) GFLOP', line)
        if m:
            rows.setdefault('%sx%sx%s' % m.groups()[1:4], {})[m.group(1)] = float(m.group(5)) / 1000
    labs = []
    for d in rows.values():
        labs += [k for k in d if k not in labs]
    print('product'.ljust(16) + ''.join(x[:11].rjust(12) for x in ['cuBLAS'] + labs))
    for sh, d in rows.items():
        best = max(v for k, v in d.items() if not k.startswith('rule'))
        print(sh.ljust(16) + '%12.0f' % cub.get(sh, 0) +
              ''.join('%11.0f%s' % (d[x], '*' if d[x] == best else ' ') if x in d else ' ' * 12 for x in labs))


def ab(path):
    d = collections.defaultdict(lambda: collections.defaultdict(list))
    cub, sec = {}, None
    for line in open(path):
        m = re.match(r'== cuBLAS \((\S+)\)', line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r'(?:batch (\d+) )?\s*(\d+)x\s*(\d+)x\s*(\d+)\s+cuBLAS\s+([\d.]+)', line)
        if m:
            cub[(sec, m.group(1) or '1', '%sx%sx%s' % m.groups()[1:4])] = float(m.group(5)) / 1000
            continue
        m = re.match(r'(old|new) (\S+)(?: b(\d+))? r\d \| (\d+)x\s*(\d+)x\s*(\d+)x\s*(\d+) \w+ \w+\s+([\d.]+) GFLOP', line)
        if m:
            d[(m.group(2), m.group(3) or '1', '%sx%sx%s' % m.groups()[4:7])][m.group(1)].append(float(m.group(8)) / 1000)
    for (ml, b, sh), v in d.items():
        o, n = v['old'], v['new']
        print('%-9s b%-3s %-15s old %5.1f-%5.1f  new %5.1f-%5.1f  x%.2f  cuBLAS %5.1f' %
              (ml, b, sh, min(o), max(o), min(n), max(n), (sum(n) / len(n)) / (sum(o) / len(o)), cub.get((ml, b, sh), 0)))


if __name__ == '__main__':
    for p in sys.argv[2:]:
        (sweep if sys.argv[1] == 'sweep' else ab)(p)
