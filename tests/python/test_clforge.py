"""The Python package against NumPy on every device: devices and contexts, round trips with odd shapes,
non-contiguous input, matmul (every transpose, batched, alpha/beta, half types), maps, copy/fill/convert,
tuning, errors (bad input raises, never crashes), and PyOpenCL interop without copies."""
import gc

import numpy as np
import pytest

import clforge


def test_version_and_devices():
    assert clforge.__version__.count(".") == 2
    devs = clforge.devices()
    assert devs and all(isinstance(d, clforge.Device) for d in devs)
    assert sum(d.is_default for d in devs) == 1
    for d in devs:
        assert d.type in ("cpu", "gpu", "accelerator", "other") and len(d.id) == 16 and d.global_mem > 0


def test_context_properties(ctx):
    assert ctx.device.name
    assert ctx.cl_context and ctx.cl_queue
    ctx.finish()
    stats = ctx.cache_stats()
    assert set(stats) == {"memory_hits", "disk_hits", "compiles", "disk_rejects", "last_load_seconds"}
    assert isinstance(ctx.cache_dir, str)
    assert "Context(" in repr(ctx)


def test_context_lifecycle_and_selector():
    d = clforge.devices()[0]
    with clforge.Context(device=d.selector, no_disk_cache=True) as c:
        assert c.device.name == d.name and c.cache_dir == ""
        a = clforge.asarray(np.arange(5, dtype=np.float32), c)
    assert "closed" in repr(c)
    with pytest.raises(clforge.InvalidArgError, match="closed"):
        c.finish()
    with pytest.raises(clforge.InvalidArgError, match="closed"):   # its context was closed explicitly
        a.numpy()
    a.release()
    with pytest.raises(clforge.Error) as e:
        clforge.Context(device="no-such-device-anywhere")
    assert e.value.name.startswith("CLF_ERR_") and "no-such-device-anywhere" in e.value.message


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(1,), (7,), (3, 5), (2, 3, 4), (0, 3), (1, 1, 1, 1), (129, 65)])
def test_round_trip(ctx, rng, dtype, shape):
    x = rng.standard_normal(shape).astype(dtype)
    a = clforge.asarray(x, ctx)
    assert a.shape == shape and a.dtype == dtype and a.nbytes == x.nbytes and a.is_contiguous
    assert np.array_equal(a.numpy(), x)


def test_round_trip_noncontiguous_and_conversions(ctx, rng):
    x = rng.standard_normal((40, 31))
    for view in (x[::3, 1::2], x.T, np.asfortranarray(x), x[:, 5]):
        assert np.array_equal(clforge.asarray(view, ctx).numpy(), view)
    ints = np.arange(10, dtype=np.int32)
    a = clforge.asarray(ints, ctx)
    assert a.dtype == np.float32 and np.array_equal(a.numpy(), ints)
    b = clforge.asarray(x, ctx, dtype=np.float32)
    assert b.dtype == np.float32 and np.allclose(b.numpy(), x, rtol=1e-6)
    assert clforge.asarray(b) is b
    assert clforge.asarray([[1, 2], [3, 4]], ctx).shape == (2, 2)


def test_bfloat16(ctx, rng):
    x = rng.standard_normal((9, 13)).astype(np.float32)
    a = clforge.asarray(x, ctx).astype("bfloat16")
    assert a.dtype_name == "bfloat16"
    bits = a.numpy().view(np.uint16)
    ref = x.view(np.uint32)
    ref = ((ref + 0x7FFF + ((ref >> 16) & 1)) >> 16).astype(np.uint16)   # round to nearest even
    assert np.array_equal(bits, ref)
    back = clforge.asarray(bits, ctx, dtype="bfloat16").astype(np.float32).numpy()
    assert np.array_equal(back, (ref.astype(np.uint32) << 16).view(np.float32))


def test_views(ctx, rng):
    x = rng.standard_normal((4, 6, 5)).astype(np.float32)
    a = clforge.asarray(x, ctx)
    assert np.array_equal(a[2].numpy(), x[2]) and np.array_equal(a[-1].numpy(), x[-1])
    assert np.array_equal(a.reshape(24, 5).numpy(), x.reshape(24, 5))
    assert a.reshape(-1).shape == (120,) and len(a) == 4
    t = a[0].T
    assert t.shape == (5, 6) and not t.is_contiguous
    assert np.array_equal(t.numpy(), x[0].T) and t.numpy().flags.c_contiguous   # a transposed 2-D view: copied
    with pytest.raises(clforge.InvalidArgError, match="not contiguous"):
        a.T.numpy()   # a 3-D one is not
    with pytest.raises(IndexError):
        a[4]
    with pytest.raises(clforge.InvalidArgError):
        a.reshape(7, 7)


def _ref_gemm(a, b, ta, tb):
    return (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-4), (np.float64, 1e-10)])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul(ctx, rng, dtype, tol, ta, tb):
    if dtype == np.float64 and not ctx.device.fp64:
        pytest.skip("no fp64")
    m, n, k = 37, 23, 51
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    c = rng.standard_normal((m, n)).astype(dtype)
    da, db = clforge.asarray(a, ctx), clforge.asarray(b, ctx)
    out = clforge.matmul(da, db, trans_a=ta, trans_b=tb)
    assert out.shape == (m, n) and out.dtype == dtype
    np.testing.assert_allclose(out.numpy(), _ref_gemm(a, b, ta, tb), rtol=tol, atol=tol)
    dc = clforge.asarray(c, ctx)
    r = clforge.matmul(da, db, out=dc, alpha=-0.5, beta=2.0, trans_a=ta, trans_b=tb)
    assert r is dc
    np.testing.assert_allclose(dc.numpy(), -0.5 * _ref_gemm(a, b, ta, tb) + 2 * c, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-4), ("float16", 1e-3)])
def test_matmul_transposed_views(ctx, rng, dtype, tol):
    """x.T of a C-contiguous matrix is read in place as a transposed operand, with or without trans flags, in an
    epilogue call too; the result matches the NumPy product of the views."""
    m, n, k = 19, 29, 37
    at = rng.standard_normal((k, m)).astype(np.float32)   # stored K x M: at.T is A
    bt = rng.standard_normal((n, k)).astype(np.float32)   # stored N x K: bt.T is B
    a = rng.standard_normal((m, k)).astype(np.float32)
    dat, dbt, da = (clforge.asarray(x, ctx).astype(dtype) for x in (at, bt, a))
    at, bt, a = (x.astype(np.float32).numpy().astype(np.float64) for x in (dat, dbt, da))   # the rounded inputs
    out = np.float32 if dtype == "float16" else None
    def run(x, y, **kw):
        o = clforge.empty((x.shape[1] if kw.get("trans_a") else x.shape[0],
                           y.shape[0] if kw.get("trans_b") else y.shape[1]), out, ctx) if out else None
        return clforge.matmul(x, y, out=o, **kw).numpy()
    np.testing.assert_allclose(run(dat.T, dbt.T), at.T @ bt.T, rtol=tol, atol=tol)
    np.testing.assert_allclose(run(da, dbt.T), a @ bt.T, rtol=tol, atol=tol)
    np.testing.assert_allclose(run(dat.T, dbt, trans_b=True), at.T @ bt.T, rtol=tol, atol=tol)
    np.testing.assert_allclose(run(da.T, dbt.T, trans_a=True), a @ bt.T, rtol=tol, atol=tol)   # (A^T)^T = A
    bias = rng.standard_normal(n).astype(np.float32)
    o = clforge.matmul(dat.T, dbt.T, out=clforge.empty((m, n), np.float32, ctx), epilogue="c = relu(acc + bias)",
                       bias=clforge.asarray(bias, ctx))
    np.testing.assert_allclose(o.numpy(), np.maximum(at.T @ bt.T + bias, 0), rtol=tol, atol=tol)


def test_matmul_batched(ctx, rng):
    a = rng.standard_normal((5, 17, 9)).astype(np.float32)
    b = rng.standard_normal((5, 9, 13)).astype(np.float32)
    shared = rng.standard_normal((9, 13)).astype(np.float32)
    da, db = clforge.asarray(a, ctx), clforge.asarray(b, ctx)
    np.testing.assert_allclose(clforge.matmul(da, db).numpy(), a @ b, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(clforge.matmul(da, clforge.asarray(shared, ctx)).numpy(), a @ shared, rtol=1e-4,
                               atol=1e-4)
    bt = np.ascontiguousarray(np.swapaxes(b, 1, 2))
    np.testing.assert_allclose(clforge.matmul(da, clforge.asarray(bt, ctx), trans_b=True).numpy(), a @ b, rtol=1e-4,
                               atol=1e-4)


@pytest.mark.parametrize("ta,tb", [("float16", "float16"), ("bfloat16", "bfloat16"), ("float16", "float32")])
def test_matmul_half(ctx, rng, ta, tb):
    a32 = rng.standard_normal((33, 40)).astype(np.float32)
    b32 = rng.standard_normal((40, 19)).astype(np.float32)
    da = clforge.asarray(a32, ctx).astype(ta)
    db = clforge.asarray(b32, ctx).astype(tb)
    ra = da.astype(np.float32).numpy()
    rb = db.astype(np.float32).numpy()
    out = clforge.matmul(da, db, out=clforge.empty((33, 19), np.float32, ctx))
    np.testing.assert_allclose(out.numpy(), ra.astype(np.float64) @ rb, rtol=1e-4, atol=1e-4)
    default = clforge.matmul(da, db)
    assert default.dtype_name == (ta if ta == tb else "float32")


def test_matmul_tf32_compute(ctx, rng):
    a = rng.standard_normal((20, 30)).astype(np.float32)
    b = rng.standard_normal((30, 10)).astype(np.float32)
    for compute in ("3xtf32", "3xf16"):
        out = clforge.matmul(clforge.asarray(a, ctx), clforge.asarray(b, ctx), compute=compute)
        np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_matmul_errors(ctx, rng):
    a = clforge.asarray(np.ones((4, 5), np.float32), ctx)
    b = clforge.asarray(np.ones((6, 3), np.float32), ctx)
    d = clforge.asarray(np.ones((5, 3), np.float64), ctx)
    a3 = clforge.asarray(np.ones((2, 4, 4), np.float32), ctx)
    cases = [
        (lambda: clforge.matmul(a, b), "inner dimensions"),
        (lambda: clforge.matmul(a, d), "one dtype"),
        (lambda: clforge.matmul(a3.T, a3), "not contiguous"),   # a 3-D transposed view is no operand
        (lambda: clforge.matmul(a, a, trans_b=True, out=clforge.empty((4, 4), np.float32, ctx).T), "not contiguous"),
        (lambda: clforge.matmul(a, np.ones((5, 3))), "clforge.Array"),
        (lambda: clforge.matmul(a, a, trans_b=True, beta=1.0), "out must be given"),
        (lambda: clforge.matmul(a, a, trans_b=True, out=clforge.empty((3, 3), np.float32, ctx)), "shape"),
        (lambda: clforge.matmul(a, a, trans_b=True, compute="fast"), "compute"),
        (lambda: clforge.matmul(a.reshape(20), a), "2-D"),
        (lambda: clforge.matmul(clforge.asarray(np.ones((2, 4, 5), np.float32), ctx),
                                clforge.asarray(np.ones((3, 5, 4), np.float32), ctx)), "batch"),
    ]
    for f, word in cases:
        with pytest.raises(clforge.InvalidArgError, match=word):
            f()


def test_map(ctx, rng):
    n = 1001
    x, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    dx, db = clforge.asarray(x, ctx), clforge.asarray(b, ctx)
    y = clforge.empty(n, np.float32, ctx)
    ctx.map("y = relu(a*x + b)", x=dx, a=0.5, b=db, y=y)
    np.testing.assert_allclose(y.numpy(), np.maximum(0.5 * x + b, 0), rtol=1e-6, atol=1e-6)
    ctx.map("y = x*2", n=10, x=dx, y=y)
    assert np.allclose(y.numpy()[:10], 2 * x[:10]) and np.allclose(y.numpy()[10:], np.maximum(0.5 * x + b, 0)[10:])
    with pytest.raises(clforge.ParseError):
        ctx.map("y = relu(", x=dx, y=y)
    with pytest.raises(clforge.InvalidArgError, match="different sizes"):
        ctx.map("y = x", x=clforge.empty(5, np.float32, ctx), y=y)
    with pytest.raises(clforge.InvalidArgError, match="must be a clforge.Array or a number"):
        ctx.map("y = x", x="seven", y=y)
    h = clforge.empty(n, np.float16, ctx)                  # half-precision storage, computed in fp32
    ctx.map("h = x*2 + b", x=dx, b=db, h=h)
    np.testing.assert_allclose(h.numpy(), (2 * x + b).astype(np.float16), rtol=1e-3, atol=1e-3)
    with pytest.raises(clforge.Error):   # a name the expression needs is missing: the C library says which
        ctx.map("y = x + z", x=dx, y=y)


def test_copy_fill_convert(ctx, rng):
    x = rng.standard_normal((3, 77)).astype(np.float32)
    a = clforge.asarray(x, ctx)
    c = a.copy()
    assert c.mem != a.mem and np.array_equal(c.numpy(), x)
    clforge.fill(c, 2.5)
    assert (c.numpy() == 2.5).all() and np.array_equal(a.numpy(), x)
    clforge.copy(a[1], c[0])
    assert np.array_equal(c.numpy()[0], x[1])
    h = clforge.convert(a, np.float16)
    assert h.dtype == np.float16 and np.array_equal(h.numpy(), x.astype(np.float16))
    out = clforge.empty((3, 77), np.float32, ctx)
    assert clforge.convert(h, np.float32, out=out) is out
    assert np.array_equal(out.numpy(), x.astype(np.float16).astype(np.float32))
    assert (clforge.zeros(9, np.float16, ctx).numpy() == 0).all()
    assert (clforge.empty(4, "bfloat16", ctx).fill(1.0).astype(np.float32).numpy() == 1).all()
    with pytest.raises(clforge.InvalidArgError, match="convert"):
        clforge.copy(a, clforge.empty((3, 77), np.float64, ctx))
    with pytest.raises(clforge.InvalidArgError, match="not supported"):
        clforge.empty(4, np.int32, ctx)
    with pytest.raises(clforge.InvalidArgError, match="Context"):
        clforge.empty(4, np.float32, None)


def test_errors_carry_status(ctx):
    with pytest.raises(clforge.InvalidArgError, match="more than any device"):
        clforge.empty(1 << 62, np.float32, ctx)
    with pytest.raises(clforge.Error) as e:   # from the C library's check
        clforge.empty((1 << 40) + 1, np.float64, ctx)
    assert e.value.status == -2001 and e.value.name == "CLF_ERR_INVALID_ARG"
    assert "largest allocation" in e.value.message and isinstance(e.value, ValueError)
    with pytest.raises(clforge.InvalidArgError):
        clforge.Context.wrap(0, 0, 0)
    with pytest.raises(clforge.InvalidArgError, match="Context"):
        clforge.asarray(np.ones(3), "not a context")
    with pytest.raises(clforge.InvalidArgError, match="cannot upload"):
        clforge.asarray(np.array(["a"]), ctx)


def test_release_and_gc(ctx):
    a = clforge.asarray(np.ones(1000, np.float32), ctx)
    v = a.reshape(10, 100)[3]
    a.release()
    with pytest.raises(clforge.InvalidArgError, match="released"):
        a.numpy()
    assert (v.numpy() == 1).all()      # a view holds its own reference
    del v
    gc.collect()


def test_tune_and_config(ctx):
    rep = ctx.tune(families="copy", budget_seconds=1)
    assert rep["entries"] and rep["entries"][0]["family"] == "copy" and rep["entries"][0]["rate"] > 0
    used = ctx.config_in_use("copy")
    assert used["origin"] in ("tuned", "stale", "shipped", "default") and used["config"]
    assert clforge.tune(ctx, families="copy", budget_seconds=1)["db_path"] == rep["db_path"]
    with pytest.raises(clforge.Error):
        ctx.tune(families="no_such_family", budget_seconds=1)
    with pytest.raises(clforge.InvalidArgError):
        ctx.config_in_use("no_such_family")


def test_roofline(ctx):
    r = ctx.roofline(quick=True)
    assert r["copy_gbs"] > 0 and r["fp32_gflops"] > 0


def test_bench():
    doc = clforge.bench(device=clforge.devices()[0].selector, quick=True, only="transfer")
    assert doc["format"].startswith("clforge-bench") and doc["devices"][0]["results"]
    assert {r["workload"] for r in doc["devices"][0]["results"]} == {"transfer"}
    with pytest.raises(clforge.Error, match="wrote no JSON"):
        clforge.bench(only="no_such_workload")
