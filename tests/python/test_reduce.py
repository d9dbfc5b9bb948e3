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
    with pytest.raises(clforge.InvalidArgError, match="op"):
        clforge.reduce(a, "mean")
    with pytest.raises(clforge.InvalidArgError, match="axis"):
        clforge.reduce(a, axis=2)
    with pytest.raises(clforge.InvalidArgError, match="2-D"):
        clforge.reduce(clforge.zeros(6, "float32", ctx))
    with pytest.raises(clforge.InvalidArgError, match="out"):
        clforge.reduce(a, out=clforge.zeros(3, "float32", ctx))
    with pytest.raises(clforge.InvalidArgError, match="rows must be contiguous"):
        clforge.softmax(a.T)
    with pytest.raises(clforge.ParseError):
        clforge.reduce(a, pre="x +")
