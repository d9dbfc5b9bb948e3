#!/usr/bin/env python3
"""torch_transfer.py — the PyTorch side of bench_transfer.c on the same sizes (1 MiB to 4 GiB): host to
device with pin_memory().cuda(non_blocking=True) and with a pageable .cuda(), device to host into a pinned
and into a pageable tensor (copy_), each timed on the host around torch.cuda.synchronize() as the C bench
times a blocking transfer (median of up to 15 runs after a warm-up); writes every figure as JSON."""
import argparse
import json
import sys
import time


def median_seconds(fn, torch, budget=0.5):
    fn()
    torch.cuda.synchronize()
    times, start = [], time.perf_counter()
    while len(times) < 15 and (len(times) < 3 or time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write results here")
    ap.add_argument("--max-mib", type=int, default=4096)
    args = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("torch_transfer: no CUDA device", file=sys.stderr)
        return 1
    rows = []
    mib = 1
    while mib <= args.max_mib:
        n = mib << 20
        pageable = torch.ones(n, dtype=torch.uint8)           # touched, as bench_transfer's malloc'd memory
        pinned = torch.ones(n, dtype=torch.uint8).pin_memory()
        dev = torch.ones(n, dtype=torch.uint8, device="cuda")
        cases = {
            ("h2d", "pinned"): lambda: pinned.cuda(non_blocking=True),
            ("h2d", "pageable"): lambda: pageable.cuda(),
            ("d2h", "pinned"): lambda: pinned.copy_(dev, non_blocking=True),
            ("d2h", "pageable"): lambda: pageable.copy_(dev),
        }
        for (direction, kind), fn in cases.items():
            s = median_seconds(fn, torch)
            rows.append({"dir": direction, "method": kind, "bytes": n, "seconds": s, "gbs": n / s / 1e9})
            print(f"{mib:10d} MiB  {direction}  torch-{kind:<10} {n / s / 1e9:8.2f} GB/s")
        del pageable, pinned, dev
        torch.cuda.empty_cache()
        mib *= 4
    doc = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
