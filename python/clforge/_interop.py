"""PyOpenCL interop without copies: clforge contexts over PyOpenCL queues, arrays over PyOpenCL buffers and
arrays, and clforge arrays handed to PyOpenCL. Handles travel as integers (PyOpenCL's int_ptr)."""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from . import _lib
from ._core import Array, Context, DTypeLike, _mem_size
from ._errors import invalid
from ._lib import cl


def context_from_pyopencl(queue: Any) -> Context:
    """A clforge Context on a PyOpenCL CommandQueue (in-order): its context, device and queue are shared, so
    commands from both libraries run in one order."""
    try:
        return Context.wrap(queue.context.int_ptr, queue.device.int_ptr, queue.int_ptr, keep=queue)
    except AttributeError:
        raise invalid("context_from_pyopencl: expected a pyopencl.CommandQueue") from None


def from_pyopencl(obj: Any, ctx: Optional[Context] = None, shape: Optional[Sequence[int]] = None,
                  dtype: DTypeLike = None) -> Array:
    """A clforge Array over a ``pyopencl.array.Array`` (shape, dtype, strides and offset taken from it) or a
    ``pyopencl.Buffer`` (dtype required, shape defaults to the whole buffer). No copy: both see one memory.
    ctx defaults to a context over the PyOpenCL array's queue; it must share the buffer's OpenCL context."""
    buf = getattr(obj, "base_data", None)
    if buf is not None:   # pyopencl.array.Array
        if ctx is None:
            if obj.queue is None:
                raise invalid("from_pyopencl: the array has no queue; pass ctx")
            ctx = context_from_pyopencl(obj.queue)
        return Array(ctx, buf.int_ptr, obj.shape, dtype or obj.dtype, obj.strides, obj.offset, retain=True, base=obj)
    if not hasattr(obj, "int_ptr"):
        raise invalid(f"from_pyopencl: expected a pyopencl Buffer or Array, got {type(obj).__name__}")
    if ctx is None or dtype is None:
        raise invalid("from_pyopencl: a pyopencl.Buffer needs ctx and dtype")
    item = np.dtype("uint16" if dtype in ("bfloat16", "bf16") else dtype).itemsize
    size = _mem_size(obj.int_ptr)
    shape = (size // item,) if shape is None else tuple(shape)
    if math.prod(shape) * item > size:
        raise invalid(f"from_pyopencl: shape {tuple(shape)} of {item}-byte elements exceeds the buffer's {size} bytes")
    return Array(ctx, obj.int_ptr, shape, dtype, None, 0, retain=True, base=obj)


def to_pyopencl(a: Array, queue: Any = None) -> Any:
    """The array's memory as a ``pyopencl.array.Array`` (no copy). queue defaults to the clforge context's own
    queue (wrapped by PyOpenCL), which keeps both libraries' commands in one order."""
    import pyopencl as cla
    import pyopencl.array as cl_array

    if queue is None:
        queue = cla.CommandQueue.from_int_ptr(a.ctx.cl_queue, retain=True)
    if queue.context.int_ptr != a.ctx.cl_context:
        raise invalid("to_pyopencl: the queue belongs to another OpenCL context than the array")
    buf = cla.Buffer.from_int_ptr(a.mem, retain=True)
    dtype = a.dtype
    return cl_array.Array(queue, a.shape, dtype, strides=a.strides, data=buf, offset=a.offset)
