#!/usr/bin/env python3
"""torch_gemm.py — times cuBLAS SGEMM (TF32 off) through PyTorch with CUDA events on the shapes that
bench_gemm.c uses, and writes every figure as JSON (the cuBLAS column of docs/gemm.md)."""
import argparse, datetime, json, sys

from torch_timing import time_ms

SHAPES = [(256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
          (8192, 8192, 8192), (4097, 4097, 4097), (8191, 8191, 8191), (1000, 3000, 700), (64, 4096, 4096),
          (4096, 64, 4096), (4096, 4096, 64)]




def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write results here")
    ap.add_argument("--f64", action="store_true", help="DGEMM instead of SGEMM")
    ap.add_argument("--dtype", choices=["f32", "f64", "f16", "bf16", "tf32"], default=None,
                    help="precision (f16/bf16 accumulate in fp32; tf32 is fp32 with allow_tf32)")
    ap.add_argument("--bt", action="store_true", help="B stored transposed (N x K), as clforge's mixed bench")
    ap.add_argument("--at", action="store_true", help="A stored transposed (K x M)")
    ap.add_argument("--batch", type=int, default=1, help="batched (torch.bmm) over this many matrices")
    ap.add_argument("--quick", action="store_true", help="only shapes up to 1024")
    ap.add_argument("--shape", action="append", default=[], metavar="MxNxK",
                    help="time this shape instead of the default list (repeatable)")
    args = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("torch_gemm: no CUDA device", file=sys.stderr)
        return 1
    prec = args.dtype or ("f64" if args.f64 else "f32")
    tf32 = prec == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32   # off: plain FP32 FMA, comparable with OpenCL SGEMM
    torch.backends.cudnn.allow_tf32 = tf32
    torch.set_float32_matmul_precision("high" if tf32 else "highest")
    dtype = {"f32": torch.float32, "tf32": torch.float32, "f64": torch.float64, "f16": torch.float16,
             "bf16": torch.bfloat16}[prec]
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shape] or \
        [s for s in SHAPES if not args.quick or max(s) <= 1024]
    rows = []
    for m, n, k in shapes:
        bs = (args.batch,) if args.batch > 1 else ()
        a = torch.rand(*bs, m, k, device="cuda", dtype=dtype) * 2 - 1
        if args.at:
            a = (torch.rand(*bs, k, m, device="cuda", dtype=dtype) * 2 - 1).transpose(-1, -2)
        b = torch.rand(*bs, k, n, device="cuda", dtype=dtype) * 2 - 1
        if args.bt:
            b = (torch.rand(*bs, n, k, device="cuda", dtype=dtype) * 2 - 1).transpose(-1, -2)
        c = torch.empty(*bs, m, n, device="cuda", dtype=dtype)
        ms = time_ms(lambda: torch.matmul(a, b, out=c), torch)
        a0, b0, c0 = (a[0], b[0], c[0]) if bs else (a, b, c)
        ref = (a0[:64].double() @ b0.double())
        err = ((c0[:64].double() - ref).norm() / ref.norm()).item()
        gf = 2.0 * m * n * k * args.batch / (ms * 1e-3) / 1e9
        rows.append({"m": m, "n": n, "k": k, "batch": args.batch, "a_transposed": args.at, "cublas_ms": ms, "cublas_gflops": gf, "rel_error": err})
        print(f"{m:5d}x{n:5d}x{k:5d}  cuBLAS {gf:9.1f} GFLOP/s  (rel. error {err:.1e})", flush=True)
        del a, b, c
    doc = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "cuda": torch.version.cuda, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "command": " ".join(sys.argv), "precision": prec, "tf32": tf32, "b_transposed": args.bt,
           "timing": "CUDA events around back-to-back runs of >= 20 ms, median of 7", "results": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
