"""clforge.reduce and clforge.softmax against NumPy, on odd shapes and every device, and their errors."""
import numpy as np
import pytest

import clforge


@pytest.mark.parametrize("shape", [(1, 1), (7, 33), (130, 5)])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax(ctx, rng, shape, axis):
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    ax = 0 if axis == 0 else 1
    e = np.exp(x.astype(np.float64) - x.max(axis=ax, keepdims=True))
    want = e / e.sum(axis=ax, keepdims=True)
    got = clforge.softmax(clforge.asarray(x, ctx), axis=axis).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-7)


def test_softmax_in_place(ctx, rng):
    x = rng.standard_normal((9, 17)).astype(np.float32)
    a = clforge.asarray(x, ctx)
    assert clforge.softmax(a, out=a) is a
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(a.numpy(), e / e.sum(axis=1, keepdims=True), rtol=2e-5, atol=1e-7)


@pytest.mark.parametrize("op,ref", [("sum", np.sum), ("max", np.max), ("min", np.min)])
@pytest.mark.parametrize("axis", [0, 1])
def test_reduce_ops(ctx, rng, op, ref, axis):
    x = rng.standard_normal((37, 21)).astype(np.float32)
    got = clforge.reduce(clforge.asarray(x, ctx), op, axis).numpy()
    np.testing.assert_allclose(got, ref(x.astype(np.float64), axis=axis), rtol=1e-5, atol=1e-5)


def test_reduce_expressions_and_scalars(ctx, rng):
    x = rng.standard_normal((11, 70)).astype(np.float32)
    got = clforge.reduce(clforge.asarray(x, ctx), "sum", pre="x*x*s", post="sqrt(r / len)", s=2.0).numpy()
    np.testing.assert_allclose(got, np.sqrt((2 * x.astype(np.float64) ** 2).mean(axis=1)), rtol=1e-5)


def test_reduce_errors(ctx):
    a = clforge.zeros((4, 5), "float32", ctx)
    strided = clforge.zeros((2, 4, 5), "float32", ctx).T[0]   # (4, 2): neither rows nor columns contiguous
    with pytest.raises(clforge.InvalidArgError, match="op"):
        clforge.reduce(a, "mean")
    with pytest.raises(clforge.InvalidArgError, match="axis"):
        clforge.reduce(a, axis=2)
    with pytest.raises(clforge.InvalidArgError, match="2-D"):
        clforge.reduce(clforge.zeros(6, "float32", ctx))
    with pytest.raises(clforge.InvalidArgError, match="out"):
        clforge.reduce(a, out=clforge.zeros(3, "float32", ctx))
    with pytest.raises(clforge.InvalidArgError, match="rows must be contiguous"):
        clforge.softmax(strided)
    with pytest.raises(clforge.InvalidArgError, match="both be stored by rows or both by columns"):
        clforge.reduce(a.T, write="x - r", y=clforge.zeros((5, 4), "float32", ctx))
    with pytest.raises(clforge.ParseError):
        clforge.reduce(a, pre="x +")


@pytest.mark.parametrize("shape", [(1, 3), (13, 77)])
def test_layer_norm_and_rms_norm(ctx, rng, shape):
    x = (rng.standard_normal(shape) * 3 + 100).astype(np.float32)
    g = rng.standard_normal(shape[1]).astype(np.float32)
    b = rng.standard_normal(shape[1]).astype(np.float32)
    a, ga, ba = (clforge.asarray(v, ctx) for v in (x, g, b))
    xd = x.astype(np.float64)
    mean, var = xd.mean(axis=1, keepdims=True), xd.var(axis=1, keepdims=True)
    want = (xd - mean) / np.sqrt(var + 1e-5) * g + b
    np.testing.assert_allclose(clforge.layer_norm(a, ga, ba).numpy(), want, rtol=1e-4, atol=1e-4)
    want = xd / np.sqrt((xd * xd).mean(axis=1, keepdims=True) + 1e-6) * g
    np.testing.assert_allclose(clforge.rms_norm(a, ga).numpy(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axis", [0, 1])
def test_transposed_views(ctx, rng, axis):
    """x.T (stored by columns) is read in place: reductions, softmax with its output stored like x, layer and RMS
    norm, and a write into y = another transposed view or x.T itself (in place)."""
    base = (rng.standard_normal((23, 41)) * 3).astype(np.float32)   # stored 23 x 41: x = base.T is 41 x 23
    x = base.T.astype(np.float64)
    d = clforge.asarray(base, ctx)
    np.testing.assert_allclose(clforge.reduce(d.T, "sum", axis).numpy(), x.sum(axis=axis), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(clforge.reduce(d.T, "max", axis).numpy(), x.max(axis=axis), rtol=1e-6)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    sm = clforge.softmax(d.T, axis=axis)
    assert sm.shape == (41, 23) and not sm.is_contiguous   # stored like x
    np.testing.assert_allclose(sm.numpy(), e / e.sum(axis=axis, keepdims=True), rtol=2e-5, atol=1e-7)
    g = rng.standard_normal(23).astype(np.float32)
    mean, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    np.testing.assert_allclose(clforge.layer_norm(d.T, clforge.asarray(g, ctx), clforge.zeros(23, "float32", ctx))
                               .numpy(), (x - mean) / np.sqrt(var + 1e-5) * g, rtol=1e-4, atol=1e-4)
    y = clforge.empty((23, 41), "float32", ctx)
    assert clforge.reduce(d.T, "sum", axis, write="x - r / len", y=y.T) is None
    np.testing.assert_allclose(y.T.numpy(), x - x.mean(axis=axis, keepdims=True), rtol=1e-5, atol=1e-5)
    clforge.softmax(d.T, axis=axis, out=d.T)   # in place
    np.testing.assert_allclose(d.numpy().T, e / e.sum(axis=axis, keepdims=True), rtol=2e-5, atol=1e-7)


def test_reduce_vector_binding(ctx, rng):
    x = rng.standard_normal((6, 9)).astype(np.float32)
    w = rng.standard_normal(9).astype(np.float32)
    s = rng.standard_normal(6).astype(np.float32)
    y = clforge.empty(x.shape, "float32", ctx)
    got = clforge.reduce(clforge.asarray(x, ctx), "sum", write="x * w + s + r", y=y,
                         w=clforge.asarray(w, ctx), s=clforge.asarray(s, ctx))
    assert got is None
    want = x * w + s[:, None] + x.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
    sq = clforge.asarray(np.eye(4, dtype=np.float32), ctx)
    v = clforge.asarray(np.arange(4, dtype=np.float32), ctx)
    with pytest.raises(clforge.InvalidArgError, match="square"):
        clforge.reduce(sq, pre="x * v", v=v)
    np.testing.assert_allclose(clforge.reduce(sq, pre="x * v", v=clforge.col(v)).numpy(), np.arange(4))
    with pytest.raises(clforge.InvalidArgError, match="vector of"):
        clforge.reduce(clforge.asarray(x, ctx), pre="x * v", v=v)
