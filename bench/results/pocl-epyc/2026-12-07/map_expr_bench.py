import time, numpy as np, clforge
ctx = clforge.Context("pocl")
n = 1 << 22
x = clforge.asarray(np.random.default_rng(1).standard_normal(n).astype(np.float32), ctx)
y = clforge.empty((n,), "float32", ctx)
for expr in ("y = x * 1.5", "y = exp(x)", "y = erf(x)" , "y = gelu(x)", "y = tanh(x)", "y = sigmoid(x)"):
    try:
        ctx.map(expr, x=x, y=y); ctx.finish()
    except Exception as e:
        print(expr, "error", e); continue
    ts = []
    for _ in range(5):
        t = time.perf_counter(); ctx.map(expr, x=x, y=y); ctx.finish(); ts.append(time.perf_counter() - t)
    print("%-16s %.2f ms  %.2f ns/elem" % (expr, min(ts) * 1e3, min(ts) / n * 1e9))
