"""Reductions over the rows or columns of a 2-D array (clf_reduce) and the one-call softmax built on it."""
from __future__ import annotations

import ctypes
from typing import Any, Optional

from . import _lib
from ._core import F32, Array, empty
from ._errors import check, invalid
from ._lib import lib
from ._ops import ROW_MAJOR, _map_args_type

_OPS = {"sum": 0, "max": 1, "min": 2, "lse": 3, "moments": 4}


def _matrix(what: str, a: Array) -> int:
    """The leading dimension (elements) of a 2-D array whose rows are contiguous."""
    if not isinstance(a, Array):
        raise invalid(f"{what} must be a clforge.Array, got {type(a).__name__}")
    if a.ndim != 2:
        raise invalid(f"{what} must be 2-D, got shape {a.shape}")
    if a.strides[1] != a.itemsize or a.strides[0] % a.itemsize or a.strides[0] < a.shape[1] * a.itemsize:
        raise invalid(f"{what}: rows must be contiguous (strides {a.strides})")
    return max(a.strides[0] // a.itemsize, 1)


def reduce(x: Array, op: str = "sum", axis: int = -1, pre: Optional[str] = None, post: Optional[str] = None,
           write: Optional[str] = None, out: Optional[Array] = None, y: Optional[Array] = None,
           **scalars: Any) -> Optional[Array]:
    """For every line of the 2-D array x (a row with axis -1 or 1, a column with axis 0): r = post(op over
    the line of pre(x)); returns it as a 1-D array (out, or a new fp32 one) unless only write is given.
    With write, y (default: a new array like x; x itself for in place) = write(x, r) over each line. op is
    sum, max, min, lse or moments; expressions and names are those of docs/reduce.md; keyword arguments
    bind scalars by name."""
    ldx = _matrix("reduce: x", x)
    if op not in _OPS:
        raise invalid(f"reduce: op must be one of {sorted(_OPS)}, got {op!r}")
    if axis not in (-1, 0, 1):
        raise invalid(f"reduce: axis must be 0, 1 or -1, got {axis!r}")
    for name, e in (("pre", pre), ("post", post), ("write", write)):
        if e is not None and not isinstance(e, str):
            raise invalid(f"reduce: {name} must be a string")
    m, n = x.shape
    lines = n if axis == 0 else m
    if out is None and write is None:
        out = empty((lines,), "float32", x.ctx)
    if out is not None:
        if not isinstance(out, Array) or out.ctx is not x.ctx:
            raise invalid("reduce: out must be a clforge.Array of x's context")
        out.require_contiguous("reduce: out")
        if out.size != lines:
            raise invalid(f"reduce: out has {out.size} elements, the reduction {lines}")
    ldy = 0
    if write is not None:
        if y is None:
            y = empty(x.shape, x.dtype_name, x.ctx)
        if not isinstance(y, Array) or y.ctx is not x.ctx or y.ndim != 2 or y.shape != x.shape:
            raise invalid(f"reduce: y must be a clforge.Array of x's context and shape {x.shape}")
        ldy = _matrix("reduce: y", y)
    elif y is not None:
        raise invalid("reduce: y is written only with a write expression")
    items = []
    for name, v in scalars.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise invalid(f"reduce: argument {name} must be a number, got {type(v).__name__}")
        items.append((name.encode(), 1, F32, None, 0, float(v)))
    d = _lib.ReduceDesc(
        ROW_MAJOR, m, n, 1 if axis == 0 else 0, _OPS[op],
        pre.encode() if pre else None, post.encode() if post else None, write.encode() if write else None,
        x.code, x.mem, x.offset // x.itemsize, ldx,
        out.code if out is not None else F32, out.mem if out is not None else None,
        out.offset // out.itemsize if out is not None else 0,
        y.code if y is not None else F32, y.mem if y is not None else None,
        y.offset // y.itemsize if y is not None else 0, ldy)
    check(lib.clf_reduce(x.ctx.handle, ctypes.byref(d), _map_args_type(len(items))(*items), len(items), None))
    return out if out is not None else None


def softmax(x: Array, axis: int = -1, out: Optional[Array] = None) -> Array:
    """Softmax of each row (axis -1 or 1) or column (axis 0) of the 2-D array x, in one pass over it: out
    (default: a new array like x; x itself for in place) = exp(x - max) / sum(exp(x - max))."""
    if out is None:
        _matrix("softmax: x", x)
        out = empty(x.shape, x.dtype_name, x.ctx)
    reduce(x, "lse", axis, write="exp(x - rmax) / rsum", y=out)
    return out
