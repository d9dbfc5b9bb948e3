"""GEMM epilogues from Python: the keyword arguments of matmul(..., epilogue=...) bound as clf_epilogue_arg."""
from __future__ import annotations

import ctypes
from typing import Any, Dict, List

from . import _lib
from ._core import Array
from ._errors import invalid
from ._ops import _args_array_type
from ._reduce import _matrix, _vector, _Vector

_SCALAR, _ROW, _COL, _MATRIX = 0, 1, 2, 3   # clf_epilogue_kind


def _bind(name: str, v: Any, m: int, n: int, batch: int, ctx: Any) -> tuple:
    """One clf_epilogue_arg for a keyword argument: a number, row(v) / col(v) or a 1-D array of m (one value per row
    of C) or n elements (per column), or a matrix of C's shape: (m, n), shared by a batch, or (batch, m, n)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (name.encode(), _SCALAR, 0, None, 0, 0, 0, float(v))
    if isinstance(v, Array) and v.ndim == 1:
        v = _vector("matmul: epilogue argument", name, v, m, n, "C")
    if isinstance(v, _Vector):
        a, kind = v.array, _ROW if v.kind == 2 else _COL
        if a.size != (m if kind == _ROW else n):
            raise invalid(f"matmul: epilogue argument {name} has {a.size} elements, C has {m if kind == _ROW else n} "
                          f"{'rows' if kind == _ROW else 'columns'}")
    elif isinstance(v, Array):
        a, kind = v, _MATRIX
        if v.shape not in ((m, n), (batch, m, n)) or (v.ndim == 3 and not batch):
            raise invalid(f"matmul: epilogue argument {name} has shape {v.shape}; C is "
                          f"{(batch, m, n) if batch else (m, n)}")
    else:
        raise invalid(f"matmul: epilogue argument {name} must be a number, a clforge.Array or row()/col() of one, "
                      f"got {type(v).__name__}")
    if a.ctx is not ctx:
        raise invalid(f"matmul: epilogue argument {name} belongs to another context")
    if kind != _MATRIX:
        a.require_contiguous(f"matmul: epilogue argument {name}")
        return (name.encode(), kind, a.code, a.mem, a.offset // a.itemsize, 0, 0, 0.0)
    if a.ndim == 3:
        a.require_contiguous(f"matmul: epilogue argument {name}")
        ld, stride = n, m * n
    else:
        ld, stride = _matrix(f"matmul: epilogue argument {name}", a), 0
    return (name.encode(), kind, a.code, a.mem, a.offset // a.itemsize, ld, stride, 0.0)


def epilogue(expr: Any, args: Dict[str, Any], m: int, n: int, batch: int, ctx: Any) -> List[Any]:
    """The clf_epilogue of a matmul call and the ctypes objects it points to (keep them alive for the call)."""
    if not isinstance(expr, str):
        raise invalid(f"matmul: epilogue must be a string, got {type(expr).__name__}")
    items = [_bind(name, v, m, n, batch, ctx) for name, v in args.items()]
    arr = _args_array_type(len(items), _lib.EpilogueArg)(*items)
    return [_lib.Epilogue(expr.encode(), ctypes.cast(arr, ctypes.POINTER(_lib.EpilogueArg)), len(items)), arr]
