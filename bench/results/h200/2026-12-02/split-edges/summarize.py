# summarize.py LOG: the old/new rounds of an h200_skinny_tiles.sh PART=ab log as a markdown table (TFLOP/s, new/old, cuBLAS)
import re,collections,sys
f=sys.argv[1]
d=collections.defaultdict(dict); cub={}
for l in open(f):
    m=re.match(r'(old|new) r(\d) \| 1x\s+(\d+)x\s*(\d+)x\s*(\d+) NN f32\s+([\d.]+) GFLOP',l)
    if m:
        v,r,a,b,c,g=m.groups(); d[f'{a}x{b}x{c}'].setdefault(v,[]).append(float(g)/1000)
    m=re.match(r'\s*(\d+)x\s*(\d+)x\s*(\d+)\s+cuBLAS\s+([\d.]+)',l)
    if m: cub['x'.join(m.groups()[:3])]=float(m.group(4))/1000
for k,v in d.items():
    o=v['old'];n=v['new']
    print(f"| {k} | {min(o):.1f}–{max(o):.1f} | {min(n):.1f}–{max(n):.1f} | {sum(n)/sum(o):.3f} | {cub[k]:.1f} |")
