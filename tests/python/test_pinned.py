"""pinned_empty: NumPy arrays over pinned host memory, round trips through them (odd sizes, every dtype),
downloads into them with numpy(out=...), lifetime across views and Context.close(), and bad input."""
import gc

import numpy as np
import pytest

import clforge


@pytest.mark.parametrize("shape", [(1,), (7, 13), (3, 5, 11), (100003,)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_round_trip(ctx, rng, shape, dtype):
    if dtype == np.float64 and not ctx.device.fp64:
        pytest.skip("no fp64")
    h = clforge.pinned_empty(shape, dtype, ctx)
    assert h.shape == shape and h.dtype == dtype and h.flags.c_contiguous and h.flags.writeable
    h[...] = rng.standard_normal(shape).astype(dtype)
    d = clforge.asarray(h, ctx)
    back = clforge.pinned_empty(shape, dtype, ctx)
    back[...] = 0
    assert d.numpy(out=back) is back
    np.testing.assert_array_equal(back, h)
    np.testing.assert_array_equal(d.numpy(), h)


def test_compute_from_pinned(ctx, rng):
    a = clforge.pinned_empty((37, 29), np.float32, ctx)
    b = clforge.pinned_empty((29, 41), np.float32, ctx)
    a[...] = rng.standard_normal(a.shape)
    b[...] = rng.standard_normal(b.shape)
    c = clforge.pinned_empty((37, 41), np.float32, ctx)
    clforge.matmul(clforge.asarray(a, ctx), clforge.asarray(b, ctx)).numpy(out=c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_views_keep_memory_alive(ctx):
    h = clforge.pinned_empty((64, 64), np.float32, ctx)
    h[...] = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    view = h[10:20, 5]
    del h
    gc.collect()
    np.testing.assert_array_equal(view, np.arange(10, 20, dtype=np.float32) * 64 + 5)


def test_close_waits_for_pinned_arrays(ctx):
    c = clforge.Context(device=ctx.device.selector)
    h = clforge.pinned_empty(1000, np.float32, c)
    h[...] = 3
    c.close()
    with pytest.raises(clforge.InvalidArgError, match="closed"):
        clforge.empty(4, np.float32, c)
    assert h.sum() == 3000   # still readable: the memory outlives close() until the last array goes
    del h
    gc.collect()


def test_empty_and_bad_input(ctx):
    z = clforge.pinned_empty((0, 5), np.float32, ctx)
    assert z.shape == (0, 5) and z.size == 0
    with pytest.raises(clforge.InvalidArgError, match="ctx"):
        clforge.pinned_empty(4, np.float32, None)
    with pytest.raises(clforge.InvalidArgError, match="negative"):
        clforge.pinned_empty((2, -1), np.float32, ctx)
    with pytest.raises(clforge.InvalidArgError, match="largest allocation"):
        clforge.pinned_empty(1 << 60, np.float32, ctx)
    with pytest.raises(clforge.Error):
        clforge.pinned_empty(4, np.int64, ctx)
    d = clforge.asarray(np.ones((3, 4), np.float32), ctx)
    for bad in (np.empty((4, 3), np.float32), np.empty((3, 4), np.float64), np.empty((3, 8), np.float32)[:, ::2]):
        with pytest.raises(clforge.InvalidArgError, match="out must be"):
            d.numpy(out=bad)
