#!/usr/bin/env python3
"""torch_map.py — the PyTorch side of bench_map.c on the same sizes: a device copy, y = relu(a*x + b)
in eager mode (three kernels) and with torch.compile (one fused kernel), timed with CUDA events;
writes every figure as JSON."""
import argparse, datetime, json, sys, time

from torch_timing import time_ms as shared_time_ms


def time_ms(fn, torch):
    return shared_time_ms(fn, torch, reps=9, max_group=500)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write results here")
    ap.add_argument("--mib", type=int, default=256, help="MiB per buffer (bench_map's default on GPUs: 256)")
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    args = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("torch_map: no CUDA device", file=sys.stderr)
        return 1
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


if __name__ == "__main__":
    sys.exit(main())
