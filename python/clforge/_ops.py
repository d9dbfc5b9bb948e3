"""Operations on device arrays: matmul (BLAS GEMM semantics, batched), fused maps, copy, fill, convert.

Shapes, dtypes, contiguity and contexts are checked here, before any C call, so that a mistake raises
clforge.InvalidArgError with a message about the Python arguments; the C library checks again.
"""
from __future__ import annotations

import ctypes
from typing import Any, Dict, Optional, Tuple

import numpy as np

from . import _lib
from ._core import BF16, F16, F32, F64, Array, Context, DTypeLike, _code, _NAMES, _np_dtype, empty
from ._errors import check, invalid
from ._lib import lib

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112
_COMPUTE = {"exact": 0, "tf32": 1, "3xtf32": 2, "3xf16": 3}


def _same_ctx(what: str, *arrays: Optional[Array]) -> Context:
    ctx = None
    for a in arrays:
        if a is None:
            continue
        if not isinstance(a, Array):
            raise invalid(f"{what}: expected clforge.Array arguments, got {type(a).__name__} (use clforge.asarray)")
        if ctx is None:
            ctx = a.ctx
        elif a.ctx is not ctx:
            raise invalid(f"{what}: the arrays belong to different contexts")
    assert ctx is not None
    return ctx


def _elems(a: Array) -> int:
    return a.offset // a.itemsize


def _gemm_dims(a: Array, b: Array, trans_a: bool, trans_b: bool) -> Tuple[int, int, int]:
    ar, ac = a.shape[-2:]
    br, bc = b.shape[-2:]
    m, k = (ac, ar) if trans_a else (ar, ac)
    kb, n = (bc, br) if trans_b else (br, bc)
    if k != kb:
        raise invalid(f"matmul: inner dimensions differ: op(a) is {m}x{k}, op(b) is {kb}x{n}")
    return m, n, k


def _operand(x: Array, name: str, trans: bool) -> Tuple[bool, int]:
    """(transpose, leading dimension) of a matmul operand as the C library takes it: a C-contiguous array as it is;
    a 2-D transposed view of one (``x.T``, stored column-major) as the matrix it views, with the transpose flipped."""
    if x._transposed_matrix:
        return not trans, x.shape[0]
    x.require_contiguous(f"matmul: {name}")
    return trans, x.shape[-1]


def _batch(a: Array, b: Array) -> int:
    if a.ndim not in (2, 3) or b.ndim not in (2, 3):
        raise invalid(f"matmul: operands must be 2-D matrices or 3-D batches, got {a.ndim}-D and {b.ndim}-D")
    ba = a.shape[0] if a.ndim == 3 else None
    bb = b.shape[0] if b.ndim == 3 else None
    if ba is not None and bb is not None and ba != bb:
        raise invalid(f"matmul: batch sizes differ ({ba} and {bb})")
    return ba if ba is not None else bb if bb is not None else 0


def _out_dtype(a: Array, b: Array, out: Optional[Array], typed: bool) -> int:
    if out is not None:
        return out.code
    if a.code == b.code:
        return a.code
    return F32


def matmul(a: Array, b: Array, out: Optional[Array] = None, alpha: float = 1.0, beta: float = 0.0,
           trans_a: bool = False, trans_b: bool = False, compute: str = "exact", epilogue: Optional[str] = None,
           **args: Any) -> Array:
    """``out = alpha * op(a) @ op(b) + beta * out`` with BLAS GEMM semantics (row-major, op = transpose when
    trans_a / trans_b). 2-D operands give one product; 3-D operands (batch, rows, cols) a batched product, and
    a 2-D operand is then shared by every batch. a and b may be C-contiguous arrays or 2-D transposed views of
    them (``x.T``: read in place, as trans_a / trans_b would); out must be C-contiguous. beta == 0 never reads out;
    beta != 0 needs out.

    dtypes: float32 @ float32 and float64 @ float64 (clf_sgemm / clf_dgemm); float16 and bfloat16 (with each
    other or with float32) through the typed clf_gemm, which accumulates in float32. out defaults to the
    operands' dtype (float32 when they differ). compute="tf32", "3xtf32" or "3xf16" lets float32 operands use matrix
    units (typed path); the fp32-accurate "3xtf32" and "3xf16" run as exact float32 where that is faster (small,
    thin or short-K products). Returns out.

    epilogue: a program in the map language run on every element inside the GEMM before it is stored
    (docs/epilogue.md), e.g. "c = gelu(acc + bias)": acc is alpha * op(a) @ op(b) + beta * out, c the stored value;
    keyword arguments bind its other names: numbers, 1-D arrays of m elements (one per row of out) or n (per
    column; row(v) / col(v) when out is square), and arrays of out's shape (m, n) or, batched, (batch, m, n), to
    read or to write as extra outputs. A 2-D matrix in a batched call is shared by every product (read only).
    """
    if epilogue is None and args:
        raise invalid(f"matmul: {', '.join(sorted(args))}: keyword arguments bind an epilogue's names, and no "
                      f"epilogue was given")
    ctx = _same_ctx("matmul", a, b, out)
    op_a, lda = _operand(a, "a", trans_a)
    op_b, ldb = _operand(b, "b", trans_b)
    if out is not None:
        out.require_contiguous("matmul: out")
    if compute not in _COMPUTE:
        raise invalid(f"matmul: compute must be one of {sorted(_COMPUTE)}, got {compute!r}")
    batch = _batch(a, b)
    m, n, k = _gemm_dims(a, b, trans_a, trans_b)
    half = any(x.code in (F16, BF16) for x in (a, b) + ((out,) if out is not None else ()))
    typed = half or compute != "exact"
    cd = _out_dtype(a, b, out, typed)
    if not typed and not (a.code == b.code == cd):
        raise invalid(f"matmul: a, b and out must have one dtype for {_NAMES[a.code]} products "
                      f"(got {_NAMES[a.code]}, {_NAMES[b.code]}, {_NAMES[cd]})")
    if typed and F64 in (a.code, b.code, cd):
        raise invalid("matmul: float64 does not mix with float16/bfloat16 or tf32 compute")
    want = (batch, m, n) if batch else (m, n)
    if out is None:
        if beta != 0:
            raise invalid("matmul: beta != 0 reads out, so out must be given")
        out = empty(want, _NAMES[cd], ctx)
    elif out.shape != want:
        raise invalid(f"matmul: out has shape {out.shape}, the product has shape {want}")
    call = (ROW_MAJOR, TRANS if op_a else NO_TRANS, TRANS if op_b else NO_TRANS, m, n, k)
    ldc = n
    st = [x.shape[-1] * x.shape[-2] if x.ndim == 3 else 0 for x in (a, b)]   # batch strides (0: shared)
    if epilogue is not None:
        from ._epilogue import epilogue as bind   # imported here: _epilogue imports this module
        epi = bind(epilogue, args, m, n, batch, ctx)
        types = _lib.GemmTypes(a.code, b.code, cd, _COMPUTE[compute]) if typed or cd == F64 else None
        check(lib.clf_gemm_epilogue(ctx.handle, ctypes.byref(types) if types is not None else None, *call, alpha,
                                    a.mem, _elems(a), lda, st[0], b.mem, _elems(b), ldb, st[1], beta, out.mem,
                                    _elems(out), ldc, m * n, max(batch, 1), ctypes.byref(epi[0]), None))
        return out
    if typed:
        types = _lib.GemmTypes(a.code, b.code, cd, _COMPUTE[compute])
        if batch:
            check(lib.clf_gemm_batched_strided(ctx.handle, ctypes.byref(types), *call, alpha, a.mem, _elems(a), lda,
                                               st[0], b.mem, _elems(b), ldb, st[1], beta, out.mem, _elems(out), ldc,
                                               m * n, batch, None))
        else:
            check(lib.clf_gemm(ctx.handle, ctypes.byref(types), *call, alpha, a.mem, _elems(a), lda, b.mem, _elems(b),
                               ldb, beta, out.mem, _elems(out), ldc, None))
        return out
    if batch:
        f = lib.clf_sgemm_batched_strided if cd == F32 else lib.clf_dgemm_batched_strided
        check(f(ctx.handle, *call, alpha, a.mem, _elems(a), lda, st[0], b.mem, _elems(b), ldb, st[1], beta, out.mem,
                _elems(out), ldc, m * n, batch, None))
    else:
        f = lib.clf_sgemm if cd == F32 else lib.clf_dgemm
        check(f(ctx.handle, *call, alpha, a.mem, _elems(a), lda, b.mem, _elems(b), ldb, beta, out.mem, _elems(out),
                ldc, None))
    return out


_ARG_ARRAYS: Dict[Tuple[Any, int], Any] = {}


def _args_array_type(n: int, struct: Any = _lib.MapArg) -> Any:
    """The ctypes array type of n argument structures (clf_map_arg, clf_epilogue_arg), made once per length:
    creating a ctypes type costs microseconds."""
    t = _ARG_ARRAYS.get((struct, n))
    if t is None:
        t = _ARG_ARRAYS[(struct, n)] = struct * max(n, 1)
    return t


def map_expr(ctx: Context, expr: str, n: Optional[int], args: Dict[str, Any]) -> None:
    """See Context.map."""
    if not isinstance(expr, str):
        raise invalid("map: the expression must be a string")
    items = []
    sizes = set()
    for name, v in args.items():
        if isinstance(v, Array):
            if v.ctx is not ctx:
                raise invalid(f"map: argument {name} belongs to another context")
            v.require_contiguous(f"map: argument {name}")
            items.append((name.encode(), 0, v.code, v.mem, v.offset // v.itemsize, 0.0))
            sizes.add(v.size)
        elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            items.append((name.encode(), 1, F32, None, 0, float(v)))
        else:
            raise invalid(f"map: argument {name} must be a clforge.Array or a number, got {type(v).__name__}")
    margs = _args_array_type(len(items))(*items)
    if n is None:
        if len(sizes) != 1:
            raise invalid(f"map: buffer arguments have different sizes {sorted(sizes)}; pass n to map a prefix"
                          if sizes else "map: no buffer argument; pass n")
        n = sizes.pop()
    elif n < 0 or any(s < n for s in sizes):
        raise invalid(f"map: n = {n} is negative or larger than a buffer argument ({sorted(sizes)})")
    check(lib.clf_map(ctx.handle, expr.encode(), n, margs, len(args), None))


def copy(src: Array, dst: Optional[Array] = None) -> Array:
    """Copies src into dst (same dtype and size; a new array when dst is None); returns dst."""
    ctx = _same_ctx("copy", src, dst)
    src.require_contiguous("copy: src")
    if dst is None:
        dst = empty(src.shape, src.dtype_name, ctx)
    dst.require_contiguous("copy: dst")
    if dst.code != src.code or dst.size != src.size:
        raise invalid(f"copy: dst ({dst.shape}, {dst.dtype_name}) differs from src ({src.shape}, {src.dtype_name}); "
                      "use convert for another dtype")
    check(lib.clf_copy(ctx.handle, src.mem, src.offset, dst.mem, dst.offset, src.nbytes, None))
    return dst


def fill(dst: Array, value: float) -> Array:
    """Sets every element of dst to value (rounded to its dtype); returns dst."""
    ctx = _same_ctx("fill", dst)
    dst.require_contiguous("fill")
    if dst.code == BF16:
        bits = np.array(value, np.float32).view(np.uint32)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16   # nearest even, as the device converts
        pattern = np.array(rounded, np.uint16).tobytes()
    else:
        pattern = np.array(value, dst.dtype).tobytes()
    buf = ctypes.create_string_buffer(pattern, len(pattern))
    check(lib.clf_fill(ctx.handle, dst.mem, dst.offset, buf, len(pattern), dst.nbytes, None))
    return dst


def convert(src: Array, dtype: DTypeLike, out: Optional[Array] = None) -> Array:
    """src converted to dtype on the device (narrowing rounds to nearest even); into out when given."""
    ctx = _same_ctx("convert", src, out)
    src.require_contiguous("convert: src")
    code = _code(dtype)
    if out is None:
        out = empty(src.shape, _NAMES[code], ctx)
    out.require_contiguous("convert: out")
    if out.code != code or out.size != src.size:
        raise invalid(f"convert: out ({out.shape}, {out.dtype_name}) must have {src.size} elements of {_NAMES[code]}")
    check(lib.clf_convert(ctx.handle, src.code, src.mem, _elems(src), code, out.mem, _elems(out), src.size, None))
    return out
