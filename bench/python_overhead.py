#!/usr/bin/env python3
"""python_overhead.py — per-call cost from Python of tiny GEMMs (8^3, 16^3 and 32^3 fp32) and a tiny map
(y = a*x + y over 256 floats) with clforge, pyclblast and PyOpenCL on one device: "enqueue" is the time per
call of many calls followed by one finish (the Python and binding overhead, with the driver's enqueue), and
"sync" the time of one call plus a queue finish (what a small synchronous step costs). Median of 7 samples;
writes JSON with --json. Needs numpy and pyopencl; pyclblast is optional."""
import argparse
import json
import sys
import time

import numpy as np

import clforge


GEMM_SIZES = (8, 16, 32)


def per_call(fn, finish, calls, sync):
    fn()
    finish()
    samples = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
            if sync:
                finish()
        finish()
        samples.append((time.perf_counter() - t0) / calls)
    samples.sort()
    return samples[3]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--device", default=None, help="clforge selector (default: $CLFORGE_DEVICE or the default)")
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--json")
    args = ap.parse_args()
    import pyopencl as cl
    import pyopencl.array as cl_array
    from pyopencl.elementwise import ElementwiseKernel

    ctx = clforge.Context(device=args.device)
    queue = cl.CommandQueue.from_int_ptr(ctx.cl_queue, retain=True)   # every library on the same queue
    rng = np.random.default_rng(0)
    x_h, y_h = rng.standard_normal(256, dtype=np.float32), rng.standard_normal(256, dtype=np.float32)
    x, y = clforge.asarray(x_h, ctx), clforge.asarray(y_h, ctx)
    px, py = x.to_pyopencl(queue), y.to_pyopencl(queue)
    axpy = ElementwiseKernel(queue.context, "float a, float *x, float *y", "y[i] = a*x[i] + y[i]")
    try:
        import pyclblast
    except ImportError:
        pyclblast = None
        print("python_overhead: pyclblast not installed; its rows are left out", file=sys.stderr)

    cases = {}
    for n in GEMM_SIZES:
        a_h, b_h = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)
        a, b, c = clforge.asarray(a_h, ctx), clforge.asarray(b_h, ctx), clforge.empty((n, n), np.float32, ctx)
        # Every library's result is checked once against NumPy before timing.
        clforge.matmul(a, b, out=c)
        assert np.allclose(c.numpy(), a_h @ b_h, rtol=1e-4, atol=1e-4)
        cases[(f"gemm{n}", "clforge")] = lambda a=a, b=b, c=c: clforge.matmul(a, b, out=c)
        if pyclblast:
            pa, pb, pc = a.to_pyopencl(queue), b.to_pyopencl(queue), c.to_pyopencl(queue)
            cases[(f"gemm{n}", "pyclblast")] = lambda n=n, pa=pa, pb=pb, pc=pc: pyclblast.gemm(
                queue, n, n, n, pa, pb, pc, a_ld=n, b_ld=n, c_ld=n)
    cases[("map", "clforge")] = lambda: ctx.map("y = a*x + y", x=x, a=0.5, y=y)
    cases[("map", "pyopencl")] = lambda: axpy(np.float32(0.5), px, py)
    if pyclblast:
        cases[("map", "pyclblast")] = lambda: pyclblast.axpy(queue, 256, px, py, alpha=0.5)
    rows = []
    print(f"{ctx.device.name}: per call, microseconds")
    print(f"{'op':7} {'library':10} {'enqueue':>9} {'sync':>9}")
    for (op, lib), fn in cases.items():
        enq = per_call(fn, queue.finish, args.calls, False)
        syn = per_call(fn, queue.finish, max(args.calls // 4, 50), True)
        rows.append({"op": op, "library": lib, "enqueue_us": enq * 1e6, "sync_us": syn * 1e6})
        print(f"{op:7} {lib:10} {enq * 1e6:9.1f} {syn * 1e6:9.1f}")
    for op in [f"gemm{n}" for n in GEMM_SIZES] + ["map"]:
        mine = next(r for r in rows if r["op"] == op and r["library"] == "clforge")
        for r in rows:
            if r["op"] == op and r["library"] != "clforge":
                print(f"{op}: clforge / {r['library']}: enqueue {mine['enqueue_us'] / r['enqueue_us']:.2f}x, "
                      f"sync {mine['sync_us'] / r['sync_us']:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": ctx.device.name, "clforge": clforge.__version__, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
