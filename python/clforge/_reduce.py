"""Reductions over the rows or columns of a 2-D array (clf_reduce) and the one-call softmax built on it."""
from __future__ import annotations

import ctypes
from typing import Any, Optional, Tuple

from . import _lib
from ._core import F32, Array, empty
from ._errors import check, invalid
from ._lib import lib
from ._ops import ROW_MAJOR, _args_array_type

COL_MAJOR = 102

_OPS = {"sum": 0, "max": 1, "min": 2, "lse": 3, "moments": 4}


class _Vector:
    """A 1-D array bound as one value per row (kind 2) or per column (kind 3) of the matrix."""

    def __init__(self, a: Array, kind: int) -> None:
        if not isinstance(a, Array) or a.ndim != 1:
            raise invalid("row/col: the argument must be a 1-D clforge.Array")
        a.require_contiguous("row/col")
        self.array, self.kind = a, kind


def row(a: Array) -> _Vector:
    """Binds a 1-D array as one value per row of the matrix (needed only when the matrix is square)."""
    return _Vector(a, 2)


def col(a: Array) -> _Vector:
    """Binds a 1-D array as one value per column of the matrix (needed only when the matrix is square)."""
    return _Vector(a, 3)


def _vector(what: str, name: str, v: Array, m: int, n: int, matrix: str) -> _Vector:
    """A 1-D array of m elements as one value per row of an m x n matrix, of n as one per column; what names the
    argument in messages (e.g. "reduce: argument"), matrix the matrix ("x")."""
    if v.ndim != 1 or v.size not in (m, n):
        raise invalid(f"{what} {name} (shape {v.shape}) is not a vector of {m} or {n} elements")
    if m == n:
        raise invalid(f"{what} {name}: {matrix} is square; say clforge.row({name}) or clforge.col({name})")
    return _Vector(v, 2 if v.size == m else 3)


def _bind(name: str, v: Any, x: Array) -> tuple:
    """A clf_map_arg tuple for a keyword argument of reduce: a number, row(a), col(a), or a 1-D array whose
    length says which (m: per row, n: per column)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (name.encode(), 1, F32, None, 0, float(v))
    if isinstance(v, Array):
        v = _vector("reduce: argument", name, v, x.shape[0], x.shape[1], "x")
    if not isinstance(v, _Vector):
        raise invalid(f"reduce: argument {name} must be a number or a clforge.Array, got {type(v).__name__}")
    a = v.array
    if a.ctx is not x.ctx:
        raise invalid(f"reduce: argument {name} belongs to another context")
    if a.size != x.shape[0 if v.kind == 2 else 1]:
        raise invalid(f"reduce: argument {name} has {a.size} elements, x {x.shape}")
    return (name.encode(), v.kind, a.code, a.mem, a.offset // a.itemsize, 0.0)


def _matrix(what: str, a: Array) -> int:
    """The leading dimension (elements) of a 2-D array whose rows are contiguous."""
    if not isinstance(a, Array):
        raise invalid(f"{what} must be a clforge.Array, got {type(a).__name__}")
    if a.ndim != 2:
        raise invalid(f"{what} must be 2-D, got shape {a.shape}")
    if a.strides[1] != a.itemsize or a.strides[0] % a.itemsize or a.strides[0] < a.shape[1] * a.itemsize:
        raise invalid(f"{what}: rows must be contiguous (strides {a.strides})")
    return max(a.strides[0] // a.itemsize, 1)


def _storage(what: str, a: Array) -> Tuple[int, int]:
    """(layout, leading dimension) of a 2-D array stored by rows (rows contiguous, any row pitch) or, like a
    transposed view ``x.T``, by columns."""
    if isinstance(a, Array) and a.ndim == 2 and a.is_contiguous:
        return ROW_MAJOR, max(a.shape[1], 1)
    if (isinstance(a, Array) and a.ndim == 2 and a.strides[0] == a.itemsize and not a.strides[1] % a.itemsize
            and a.strides[1] >= a.shape[0] * a.itemsize):
        return COL_MAJOR, a.strides[1] // a.itemsize
    return ROW_MAJOR, _matrix(what, a)


def _like(x: Array, layout: int) -> Array:
    """A new array of x's shape and dtype stored as layout says (by columns: the transposed view of a new one)."""
    if layout == COL_MAJOR:
        return empty(x.shape[::-1], x.dtype_name, x.ctx).T
    return empty(x.shape, x.dtype_name, x.ctx)


def reduce(x: Array, op: str = "sum", axis: int = -1, pre: Optional[str] = None, post: Optional[str] = None,
           write: Optional[str] = None, out: Optional[Array] = None, y: Optional[Array] = None,
           **args: Any) -> Optional[Array]:
    """For every line of the 2-D array x (a row with axis -1 or 1, a column with axis 0): r = post(op over
    the line of pre(x)); returns it as a 1-D array (out, or a new fp32 one) unless only write is given.
    With write, y (default: a new array like x; x itself for in place) = write(x, r) over each line. x and y are
    stored by rows, or both by columns (transposed views such as x.T, read in place). op is
    sum, max, min, lse or moments; expressions and names are those of docs/reduce.md; keyword arguments
    bind names: numbers, 1-D arrays of m (one value per row) or n elements (per column), or row(a)/col(a)."""
    layout, ldx = _storage("reduce: x", x)
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
            y = _like(x, layout)
        if not isinstance(y, Array) or y.ctx is not x.ctx or y.ndim != 2 or y.shape != x.shape:
            raise invalid(f"reduce: y must be a clforge.Array of x's context and shape {x.shape}")
        y_layout, ldy = _storage("reduce: y", y)
        if y_layout != layout:
            raise invalid("reduce: x and y must both be stored by rows or both by columns (a transposed view)")
    elif y is not None:
        raise invalid("reduce: y is written only with a write expression")
    items = [_bind(name, v, x) for name, v in args.items()]
    d = _lib.ReduceDesc(
        layout, m, n, 1 if axis == 0 else 0, _OPS[op],
        pre.encode() if pre else None, post.encode() if post else None, write.encode() if write else None,
        x.code, x.mem, x.offset // x.itemsize, ldx,
        out.code if out is not None else F32, out.mem if out is not None else None,
        out.offset // out.itemsize if out is not None else 0,
        y.code if y is not None else F32, y.mem if y is not None else None,
        y.offset // y.itemsize if y is not None else 0, ldy)
    check(lib.clf_reduce(x.ctx.handle, ctypes.byref(d), _args_array_type(len(items))(*items), len(items), None))
    return out if out is not None else None


def softmax(x: Array, axis: int = -1, out: Optional[Array] = None) -> Array:
    """Softmax of each row (axis -1 or 1) or column (axis 0) of the 2-D array x, in one pass over it: out
    (default: a new array like x; x itself for in place) = exp(x - max) / sum(exp(x - max))."""
    if out is None:
        out = _like(x, _storage("softmax: x", x)[0])
    reduce(x, "lse", axis, write="exp(x - rmax) / rsum", y=out)
    return out


def layer_norm(x: Array, weight: Array, bias: Array, eps: float = 1e-5, out: Optional[Array] = None) -> Array:
    """Layer norm of each row of the 2-D array x, in one pass: (x - mean) / sqrt(var + eps) * weight + bias,
    weight and bias having one value per column (out: default a new array like x; x itself for in place)."""
    if out is None:
        out = _like(x, _storage("layer_norm: x", x)[0])
    reduce(x, "moments", -1, post="rsqrt(var + eps)", write="(x - mean) * r * g + b", y=out,
           eps=float(eps), g=col(weight), b=col(bias))
    return out


def rms_norm(x: Array, weight: Array, eps: float = 1e-6, out: Optional[Array] = None) -> Array:
    """RMS norm of each row of the 2-D array x, in one pass: x / sqrt(mean(x^2) + eps) * weight, weight
    having one value per column (out: default a new array like x; x itself for in place)."""
    if out is None:
        out = _like(x, _storage("rms_norm: x", x)[0])
    reduce(x, "sum", -1, pre="x * x", post="rsqrt(r / len + eps)", write="x * r * g", y=out,
           eps=float(eps), g=col(weight))
    return out
