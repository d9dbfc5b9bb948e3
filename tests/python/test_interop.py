"""PyOpenCL interop without copies, both ways, on every device."""
import numpy as np
import pytest

import clforge

cl = pytest.importorskip("pyopencl")
cl_array = pytest.importorskip("pyopencl.array")


def test_clforge_array_to_pyopencl(ctx, rng):
    x = rng.standard_normal((31, 7)).astype(np.float32)
    a = clforge.asarray(x, ctx)
    pa = a.to_pyopencl()
    assert pa.shape == (31, 7) and pa.dtype == np.float32 and pa.base_data.int_ptr == a.mem
    assert np.array_equal(pa.get(), x)
    pa += 1
    assert np.array_equal(a.numpy(), x + 1)
    q2 = cl.CommandQueue(pa.context)
    pa2 = clforge.to_pyopencl(a[3], q2)
    assert np.array_equal(pa2.get(), x[3] + 1)


def test_pyopencl_to_clforge(rng):
    for dev_sel in [d.selector for d in clforge.devices()]:
        p, d = (int(s) for s in dev_sel.split(":"))
        device = cl.get_platforms()[p].get_devices()[d]
        cctx = cl.Context([device])
        queue = cl.CommandQueue(cctx)
        x = rng.standard_normal((19, 23)).astype(np.float32)
        px = cl_array.to_device(queue, x)
        fx = clforge.from_pyopencl(px)                 # context wrapped from the array's queue
        assert fx.mem == px.base_data.int_ptr and np.array_equal(fx.numpy(), x)
        ctx = fx.ctx
        w = clforge.asarray(rng.standard_normal((23, 5)).astype(np.float32), ctx)
        y = clforge.matmul(fx, w)
        np.testing.assert_allclose(y.numpy(), x @ w.numpy(), rtol=1e-4, atol=1e-4)
        # A raw Buffer with a given dtype and shape, written by clforge, read by PyOpenCL.
        buf = cl.Buffer(cctx, cl.mem_flags.READ_WRITE, 4 * 100)
        fb = clforge.from_pyopencl(buf, ctx, shape=(10, 10), dtype=np.float32)
        fb.fill(3.0)
        host = np.empty(100, np.float32)
        cl.enqueue_copy(queue, host, buf)
        assert (host == 3).all()
        with pytest.raises(clforge.InvalidArgError, match="exceeds"):
            clforge.from_pyopencl(buf, ctx, shape=(11, 10), dtype=np.float32)
        with pytest.raises(clforge.InvalidArgError, match="needs ctx and dtype"):
            clforge.from_pyopencl(buf)
        with pytest.raises(clforge.InvalidArgError):
            clforge.from_pyopencl(np.ones(3))
        wctx = clforge.context_from_pyopencl(queue)
        assert wctx.cl_queue == queue.int_ptr and wctx.device.name == device.name
        other = clforge.Context(device=dev_sel)
        with pytest.raises(clforge.InvalidArgError, match="another OpenCL context"):
            clforge.Array(other, buf.int_ptr, (100,), np.float32, retain=True)
        other.close()


def test_wrap_rejects_out_of_order_queue():
    dev = cl.get_platforms()[0].get_devices()[0]
    cctx = cl.Context([dev])
    try:
        q = cl.CommandQueue(cctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    except cl.Error:
        pytest.skip("device has no out-of-order queues")
    with pytest.raises(clforge.InvalidArgError, match="in-order"):
        clforge.context_from_pyopencl(q)
