#!/usr/bin/env python3
"""torch_map.py — the PyTorch side of bench_map.c on the same sizes: a device copy, y = relu(a*x + b)
in eager mode (three kernels) and with torch.compile (one fused kernel), timed with CUDA events;
writes every figure as JSON. With --norms R C: the side of bench_reduce.c instead: torch.softmax over the
rows of an R x C fp32 matrix and torch.nn.functional.layer_norm (weight and bias), eager and compiled,
counted as one read and one write of the matrix; a torch.compile failure is recorded, not fatal."""
import argparse, datetime, json, sys, time

from torch_timing import time_ms as shared_time_ms


def time_ms(fn, torch):
    return shared_time_ms(fn, torch, reps=9, max_group=500)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write results here")
    ap.add_argument("--mib", type=int, default=256, help="MiB per buffer (bench_map's default on GPUs: 256)")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--norms", type=int, nargs=2, metavar=("ROWS", "COLS"), help="softmax and layer norm instead")
    args = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("torch_map: no CUDA device", file=sys.stderr)
        return 1
    if args.norms:
        return norms(args, torch)
    n = args.mib * (1 << 20) // 4
    B = n * 4
    g = torch.Generator(device="cuda").manual_seed(1)
    x, a, b = (torch.rand(n, device="cuda", generator=g) * 2 - 1 for _ in range(3))
    y = torch.empty_like(x)
    dst = torch.empty_like(x)

    def eager():
        torch.relu(a * x + b)   # mul, add, relu: three kernels and two temporaries, as users write it

    def eager_out():
        torch.mul(a, x, out=dst); dst.add_(b); torch.clamp(dst, min=0, out=y)

    rows = {}
    ms = time_ms(lambda: dst.copy_(x), torch)
    rows["copy"] = {"ms": ms, "gbs": 2 * B / (ms * 1e-3) / 1e9}
    ms = time_ms(eager, torch)
    rows["eager"] = {"ms": ms, "gbs": 4 * B / (ms * 1e-3) / 1e9}
    ms = time_ms(eager_out, torch)
    rows["eager_preallocated"] = {"ms": ms, "gbs": 4 * B / (ms * 1e-3) / 1e9}
    ref = torch.relu(a * x + b)
    if not args.no_compile:
        f = torch.compile(lambda a, x, b: torch.relu(a * x + b))
        t0 = time.time(); out = f(a, x, b); torch.cuda.synchronize(); first = time.time() - t0
        err = (out - ref).abs().max().item()
        ms = time_ms(lambda: f(a, x, b), torch)
        rows["compile"] = {"ms": ms, "gbs": 4 * B / (ms * 1e-3) / 1e9, "first_call_s": first, "max_abs_error": err}
    for k, r in rows.items():
        print(f"{k:20s} {r['ms']:8.3f} ms  {r['gbs']:8.1f} GB/s", flush=True)
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
           "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"), "command": " ".join(sys.argv),
           "buffer_bytes": B, "precision": "f32", "formula": "y = relu(a*x + b), vectors a, x, b",
           "bytes_counted": "copy: 2 per element byte; map: 4 (3 reads, 1 write) whatever the kernels do",
           "timing": "CUDA events around back-to-back runs of >= 20 ms, median of 9", "results": rows}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(doc, fh, indent=2)
    return 0


def compiled(fn, torch, rows, name, *inputs, ref=None, B=0):
    """Times torch.compile(fn) into rows[name], or records why it failed."""
    try:
        f = torch.compile(fn)
        t0 = time.time(); out = f(*inputs); torch.cuda.synchronize(); first = time.time() - t0
        ms = time_ms(lambda: f(*inputs), torch)
        rows[name] = {"ms": ms, "gbs": 2 * B / (ms * 1e-3) / 1e9, "first_call_s": first,
                      "max_abs_error": (out - ref).abs().max().item()}
    except Exception as e:   # no compiler or Triton on the host: say so in the results
        rows[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}


def norms(args, torch):
    R, C = args.norms
    B = R * C * 4
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.rand(R, C, device="cuda", generator=g) * 8 - 4
    w = torch.rand(C, device="cuda", generator=g) + 0.5
    b = torch.rand(C, device="cuda", generator=g) - 0.5
    dst = torch.empty_like(x)
    F = torch.nn.functional
    rows = {}
    ms = time_ms(lambda: dst.copy_(x), torch)
    rows["copy"] = {"ms": ms, "gbs": 2 * B / (ms * 1e-3) / 1e9}
    ms = time_ms(lambda: torch.softmax(x, dim=1), torch)
    rows["softmax"] = {"ms": ms, "gbs": 2 * B / (ms * 1e-3) / 1e9}
    ms = time_ms(lambda: F.layer_norm(x, (C,), w, b, 1e-5), torch)
    rows["layer_norm"] = {"ms": ms, "gbs": 2 * B / (ms * 1e-3) / 1e9}
    if not args.no_compile:
        compiled(lambda t: torch.softmax(t, dim=1), torch, rows, "softmax_compile", x,
                 ref=torch.softmax(x, dim=1), B=B)
        compiled(lambda t, w, b: F.layer_norm(t, (C,), w, b, 1e-5), torch, rows, "layer_norm_compile", x, w, b,
                 ref=F.layer_norm(x, (C,), w, b, 1e-5), B=B)
    for k, r in rows.items():
        print(f"{k:20s} " + (f"{r['ms']:8.3f} ms  {r['gbs']:8.1f} GB/s" if "ms" in r else r["error"]), flush=True)
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
           "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"), "command": " ".join(sys.argv),
           "rows": R, "cols": C, "precision": "f32",
           "bytes_counted": "copy: 2 per matrix byte; softmax, layer_norm: 2 (one read, one write)",
           "timing": "CUDA events around back-to-back runs of >= 20 ms, median of 9", "results": rows}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(doc, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
