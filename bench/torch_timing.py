"""torch_timing.py — the CUDA-event timing loop that torch_gemm.py and torch_map.py share (the same
shape as bench/timer.c: warm-up, groups of back-to-back runs lasting >= min_ms, median of reps)."""


def time_ms(fn, torch, min_ms=20.0, reps=7, max_group=200):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); fn(); end.record(); torch.cuda.synchronize()
    group = max(1, min(max_group, int(min_ms / max(start.elapsed_time(end), 1e-3)) + 1))
    times = []
    for _ in range(reps):
        start.record()
        for _ in range(group):
            fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / group)
    times.sort()
    return times[len(times) // 2]
