"""matmul(..., epilogue=...): the GEMM epilogue from Python against NumPy (fp32, fp64, half inputs, batches, extra
outputs, broadcasts), and every bad binding refused with clforge.InvalidArgError or ParseError, out unchanged."""
import math

import numpy as np
import pytest

import clforge

_erf = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False)])
def test_bias_gelu_and_pre_activation(ctx, rng, dtype, tol, ta, tb):
    if dtype == "float64" and not ctx.device.fp64:
        pytest.skip("no fp64 on this device")
    m, n, k = 37, 53, 29   # off every tile
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    bias = rng.standard_normal(n).astype(dtype)
    scale = rng.standard_normal(m).astype(dtype)
    A, B = clforge.asarray(a, ctx), clforge.asarray(b, ctx)
    pre = clforge.zeros((m, n), dtype, ctx)
    out = clforge.matmul(A, B, trans_a=ta, trans_b=tb, alpha=0.5,
                         epilogue="pre = acc * s + bias; c = gelu(pre)",
                         bias=clforge.asarray(bias, ctx), s=clforge.asarray(scale, ctx), pre=pre)
    want_pre = 0.5 * ((a.T if ta else a) @ (b.T if tb else b)).astype(np.float64) * scale[:, None] + bias
    np.testing.assert_allclose(pre.numpy(), want_pre, rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(out.numpy(), gelu(want_pre), rtol=tol, atol=tol * 10)


def test_residual_scalar_and_old_c(ctx, rng):
    m, n, k = 40, 40, 17   # square C: vectors need row() / col()
    a, b = rng.standard_normal((m, k)).astype("float32"), rng.standard_normal((k, n)).astype("float32")
    res, c0 = rng.standard_normal((m, n)).astype("float32"), rng.standard_normal((m, n)).astype("float32")
    v = rng.standard_normal(m).astype("float32")
    out = clforge.asarray(c0, ctx)
    clforge.matmul(clforge.asarray(a, ctx), clforge.asarray(b, ctx), out=out,
                   epilogue="c = max(acc + r, 0) * w + c + t", r=clforge.asarray(res, ctx), w=2.5,
                   t=clforge.row(clforge.asarray(v, ctx)))
    want = np.maximum(a @ b + res, 0) * 2.5 + c0 + v[:, None]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)


def test_batched_with_shared_and_per_item_matrices(ctx, rng):
    batch, m, n, k = 3, 21, 34, 19
    a = rng.standard_normal((batch, m, k)).astype("float32")
    b = rng.standard_normal((k, n)).astype("float32")   # shared by every product
    shared = rng.standard_normal((m, n)).astype("float32")
    own = rng.standard_normal((batch, m, n)).astype("float32")
    bias = rng.standard_normal(n).astype("float32")
    extra = clforge.zeros((batch, m, n), "float32", ctx)
    out = clforge.matmul(clforge.asarray(a, ctx), clforge.asarray(b, ctx),
                         epilogue="e = acc + bias; c = e * q + p", bias=clforge.asarray(bias, ctx),
                         q=clforge.asarray(shared, ctx), p=clforge.asarray(own, ctx), e=extra)
    e = a @ b + bias
    np.testing.assert_allclose(extra.numpy(), e, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out.numpy(), e * shared + own, rtol=1e-4, atol=1e-4)


def test_half_inputs_store_float32(ctx, rng):
    m, n, k = 33, 47, 64
    a = rng.standard_normal((m, k)).astype("float16")
    b = rng.standard_normal((n, k)).astype("float16")
    bias = rng.standard_normal(n).astype("float32")
    out = clforge.empty((m, n), "float32", ctx)
    clforge.matmul(clforge.asarray(a, ctx), clforge.asarray(b, ctx), out=out, trans_b=True,
                   epilogue="c = relu(acc + bias)", bias=clforge.asarray(bias, ctx))
    want = np.maximum(a.astype(np.float32) @ b.astype(np.float32).T + bias, 0)
    np.testing.assert_allclose(out.numpy(), want, rtol=2e-3, atol=2e-3)


def test_bad_bindings_are_refused_and_change_nothing(ctx, rng):
    m, n, k = 24, 30, 8
    A = clforge.asarray(rng.standard_normal((m, k)).astype("float32"), ctx)
    B = clforge.asarray(rng.standard_normal((k, n)).astype("float32"), ctx)
    c0 = rng.standard_normal((m, n)).astype("float32")
    out = clforge.asarray(c0, ctx)
    v = clforge.asarray(np.ones(n, "float32"), ctx)
    bad = [
        (clforge.InvalidArgError, dict(epilogue=None, bias=v)),                          # names without a program
        (clforge.InvalidArgError, dict(epilogue="c = acc + bias", bias=clforge.zeros(7, "float32", ctx))),
        (clforge.InvalidArgError, dict(epilogue="c = acc + bias", bias=clforge.zeros((m, n + 1), "float32", ctx))),
        (clforge.InvalidArgError, dict(epilogue="c = acc + bias", bias="1")),
        (clforge.InvalidArgError, dict(epilogue=3)),
        (clforge.InvalidArgError, dict(epilogue="c = acc + bias")),                      # bias unbound
        (clforge.InvalidArgError, dict(epilogue="c = acc", bias=v)),                     # bias unused
        (clforge.ParseError, dict(epilogue="c = acc +", bias=v)),
        (clforge.InvalidArgError, dict(epilogue="c = acc + bias", bias=clforge.row(v))),  # n values as a row vector
    ]
    for err, kw in bad:
        with pytest.raises(err):
            clforge.matmul(A, B, out=out, beta=1.0, **kw)
        np.testing.assert_array_equal(out.numpy(), c0)
