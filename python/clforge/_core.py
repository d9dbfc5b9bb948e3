"""Devices, contexts and the device array type (a cl_mem with shape, dtype and strides)."""
from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from . import _lib
from ._errors import check, invalid
from ._lib import cl, lib

try:  # a real bfloat16 NumPy type when ml_dtypes is installed
    import ml_dtypes as _ml_dtypes

    bfloat16: Optional[np.dtype] = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # bfloat16 data is then carried as its raw bits in uint16
    bfloat16 = None

F32, F64, F16, BF16 = 0, 1, 2, 3
_NAMES = {F32: "float32", F64: "float64", F16: "float16", BF16: "bfloat16"}
DTypeLike = Union[str, np.dtype, type, None]


def _code(dtype: DTypeLike) -> int:
    """clforge's dtype code for a NumPy dtype or name; "bfloat16" (or ml_dtypes.bfloat16) is CLF_BF16."""
    if isinstance(dtype, str) and dtype in ("bfloat16", "bf16"):
        return BF16
    try:
        d = np.dtype(dtype)
    except TypeError:
        raise invalid(f"dtype {dtype!r} is not a NumPy dtype") from None
    if bfloat16 is not None and d == bfloat16:
        return BF16
    codes = {np.dtype(np.float32): F32, np.dtype(np.float64): F64, np.dtype(np.float16): F16}
    if d not in codes:
        raise invalid(f"dtype {d} is not supported (float32, float64, float16, bfloat16)")
    return codes[d]


def _np_dtype(code: int) -> np.dtype:
    """The NumPy dtype that holds a clforge dtype on the host (bfloat16: ml_dtypes', else uint16 bits)."""
    if code == BF16:
        return bfloat16 if bfloat16 is not None else np.dtype(np.uint16)
    return np.dtype({F32: np.float32, F64: np.float64, F16: np.float16}[code])


@dataclass(frozen=True)
class Device:
    """One OpenCL device as clforge sees it. ``selector`` ("P:D") selects it in Context(device=...)."""

    name: str
    vendor: str
    platform: str
    driver: str
    type: str
    selector: str
    compute_units: int
    global_mem: int
    max_alloc: int
    fp64: bool
    fp16: bool
    is_default: bool
    id: str
    key: str


def _device(info: _lib.DeviceInfo) -> Device:
    kinds = {2: "cpu", 4: "gpu", 8: "accelerator"}
    kind = next((v for k, v in kinds.items() if info.type & k), "other")
    return Device(info.name.decode(), info.vendor.decode(), info.platform.decode(), info.driver.decode(), kind,
                  f"{info.platform_index}:{info.device_index}", info.compute_units, info.global_mem, info.max_alloc,
                  bool(info.fp64), bool(info.fp16), bool(info.is_default), info.id.decode(), info.key.decode())


def devices() -> list:
    """Every OpenCL device of every platform, as a list of Device."""
    count = ctypes.c_size_t(0)
    check(lib.clf_device_list(None, 0, ctypes.byref(count)))
    infos = (_lib.DeviceInfo * max(count.value, 1))()
    check(lib.clf_device_list(infos, count.value, ctypes.byref(count)))
    return [_device(infos[i]) for i in range(count.value)]


class Context:
    """A clforge context: one device, one in-order queue, the program cache and the tuning database
    (shared with C programs and the ``clforge`` CLI through the same cache directory).

    Args:
        device: selector as ``CLFORGE_DEVICE``: "P:D", "gpu", "cpu" or a name substring such as "nvidia";
            None: ``$CLFORGE_DEVICE``, else the default device.
        cache_dir: None: ``$CLFORGE_CACHE_DIR``, else ``~/.cache/clforge``.
        no_disk_cache: keep compiled programs in memory only.
        no_tuning: ignore the tuning database.

    Every operation enqueues on the context's queue and returns; ``Array.numpy()`` and ``finish()`` wait.
    """

    def __init__(self, device: Optional[str] = None, cache_dir: Optional[str] = None, no_disk_cache: bool = False,
                 no_tuning: bool = False, *, _handle: Optional[int] = None, _keep: Any = None) -> None:
        self._h: Optional[int] = None
        self._keep = _keep   # objects the handle depends on (a wrapped PyOpenCL queue)
        self._pinned = 0     # live pinned_empty blocks: the C context outlives them (close() waits for them)
        self._closed = False
        if _handle is not None:
            self._h = _handle
            return
        opt = _lib.ContextOptions(device.encode() if device else None, cache_dir.encode() if cache_dir else None,
                                  int(no_disk_cache), int(no_tuning))
        h = ctypes.c_void_p()
        check(lib.clf_context_create(ctypes.byref(opt), ctypes.byref(h)))
        self._h = h.value

    @classmethod
    def wrap(cls, cl_context: int, cl_device: int, cl_queue: int, keep: Any = None) -> "Context":
        """A context over existing OpenCL handles (integers, e.g. PyOpenCL's ``int_ptr``). The queue must be
        in-order; clforge retains the three handles and releases them when closed. ``keep`` is held alive as
        long as the context (e.g. the PyOpenCL queue the handles came from). The integers must be live OpenCL
        objects: the OpenCL loader dereferences them, and no library can tell a stale pointer from a live one."""
        for name, v in (("cl_context", cl_context), ("cl_device", cl_device), ("cl_queue", cl_queue)):
            if not isinstance(v, int) or v == 0:
                raise invalid(f"Context.wrap: {name} must be a non-zero integer handle")
        h = ctypes.c_void_p()
        check(lib.clf_context_wrap(cl_context, cl_device, cl_queue, ctypes.byref(h)))
        return cls(_handle=h.value, _keep=keep)

    @property
    def handle(self) -> int:
        """The clf_context pointer (for C code called from Python)."""
        if not self._h or self._closed:
            raise invalid("the context is closed")
        return self._h

    @property
    def device(self) -> Device:
        return _device(lib.clf_context_device(self.handle).contents)

    @property
    def cl_context(self) -> int:
        """The OpenCL context handle (an integer, as PyOpenCL's ``int_ptr``)."""
        return lib.clf_context_cl(self.handle)

    @property
    def cl_queue(self) -> int:
        """The OpenCL command queue handle (an integer)."""
        return lib.clf_context_queue(self.handle)

    @property
    def cache_dir(self) -> str:
        return lib.clf_context_cache_dir(self.handle).decode()

    def cache_stats(self) -> Dict[str, float]:
        """Program-cache statistics: memory_hits, disk_hits, compiles, disk_rejects, last_load_seconds."""
        s = _lib.CacheStats()
        check(lib.clf_context_cache_stats(self.handle, ctypes.byref(s)))
        return {f: getattr(s, f) for f, _ in _lib.CacheStats._fields_}

    def finish(self) -> None:
        """Waits for everything enqueued on the context's queue."""
        check(lib.clf_finish(self.handle))

    def close(self) -> None:
        """Waits for the queue and frees the context (arrays keep their buffers alive on their own; the pinned
        memory of live ``pinned_empty`` arrays is freed with the last of them)."""
        self._closed = True
        if self._h and self._pinned == 0:
            lib.clf_context_destroy(self._h)
            self._h = None

    def _pinned_free(self, ptr: int) -> None:
        check(lib.clf_host_free(self._h, ptr))
        self._pinned -= 1
        if self._closed:
            self.close()

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"clforge.Context({self.device.name!r})" if self._h else "clforge.Context(closed)"

    # Operations defined in _ops.py and _tune.py, bound here so that they read as ctx.map(...), ctx.tune(...).
    def map(self, expr: str, n: Optional[int] = None, **args: Any) -> None:
        """Runs a fused elementwise expression, e.g. ``ctx.map("y = relu(a*x + b)", x=xa, a=0.5, b=ba, y=out)``.
        Array arguments are buffers (any of the four dtypes, mixed freely; float16/bfloat16 computed in float32;
        contiguous, all of one size unless n is given); numbers are scalars. See docs/map.md for the grammar."""
        _ops().map_expr(self, expr, n, args)

    def tune(self, families: Optional[str] = None, budget_seconds: float = 60.0, exhaustive: bool = False,
             quiet: bool = True) -> Dict[str, Any]:
        """Autotunes the families (comma-separated, None: all); returns the report as a dict."""
        from ._tune import tune
        return tune(self, families, budget_seconds, exhaustive, quiet)

    def config_in_use(self, family: str, precision: str = "f32", bucket: str = "default") -> Dict[str, str]:
        """The configuration the ops would use now for a family/precision/bucket, and its origin."""
        from ._tune import config_in_use
        return config_in_use(self, family, precision, bucket)

    def roofline(self, quick: bool = True, remeasure: bool = False) -> Dict[str, Any]:
        """The device's roofline (stored with its tuning data; measured when there is none or remeasure)."""
        r = _lib.Roofline()
        check(lib.clf_roofline_get(self.handle, int(quick), int(remeasure), ctypes.byref(r)))
        return {"copy_gbs": r.copy_gbs, "triad_gbs": r.triad_gbs, "fp32_gflops": r.fp32_gflops,
                "fp64_gflops": r.fp64_gflops, "date": r.date.decode(), "fp32_spec_gflops": r.fp32_spec_gflops,
                "fp64_spec_gflops": r.fp64_spec_gflops, "spec_basis": r.spec_basis.decode()}


def _ops() -> Any:
    """The _ops module (imported on first use: it imports this one)."""
    global _OPS
    if _OPS is None:
        from . import _ops as m
        _OPS = m
    return _OPS


_OPS: Any = None


def _mem_context(mem: int) -> int:
    owner = ctypes.c_void_p()
    e = cl.clGetMemObjectInfo(mem, _lib.CL_MEM_CONTEXT, ctypes.sizeof(owner), ctypes.byref(owner), None)
    if e != 0:
        raise invalid(f"not a valid OpenCL buffer (clGetMemObjectInfo returned {e})")
    return owner.value or 0


def _mem_size(mem: int) -> int:
    size = ctypes.c_size_t(0)
    e = cl.clGetMemObjectInfo(mem, _lib.CL_MEM_SIZE, ctypes.sizeof(size), ctypes.byref(size), None)
    if e != 0:
        raise invalid(f"not a valid OpenCL buffer (clGetMemObjectInfo returned {e})")
    return size.value


class Array:
    """An n-dimensional array in a device buffer: a cl_mem with shape, dtype, strides and offset (bytes).

    Create one with ``clforge.asarray``, ``clforge.empty`` or ``clforge.zeros``, or wrap a PyOpenCL buffer
    with ``clforge.from_pyopencl``; read it back with ``.numpy()``. Constructed directly, ``mem`` is a live
    cl_mem handle (an integer) of ctx's OpenCL context; the array takes over one reference to it, or adds
    its own with ``retain=True``. Operations need C-contiguous arrays;
    views such as ``.T`` are allowed to exist and are rejected by operations with a clear error.
    """

    def __init__(self, ctx: Context, mem: int, shape: Sequence[int], dtype: DTypeLike, strides: Optional[Sequence[int]] = None,
                 offset: int = 0, *, retain: bool = False, base: Any = None) -> None:
        self.ctx = ctx
        self.code = _code(dtype)
        self.dtype = _np_dtype(self.code)
        self.shape: Tuple[int, ...] = tuple(int(s) for s in shape)
        if any(s < 0 for s in self.shape):
            raise invalid(f"shape {self.shape} has a negative extent")
        item = self.dtype.itemsize
        if strides is None:
            strides, acc = [], item
            for s in reversed(self.shape):
                strides.insert(0, acc)
                acc *= max(s, 1)
        self.strides: Tuple[int, ...] = tuple(int(s) for s in strides)
        if len(self.strides) != len(self.shape):
            raise invalid(f"strides {self.strides} do not match shape {self.shape}")
        self.offset = int(offset)
        self._contiguous: Optional[bool] = None
        if retain:
            if _mem_context(mem) != ctx.cl_context:
                raise invalid("the buffer belongs to another OpenCL context than the clforge context")
            cl.clRetainMemObject(mem)
        self._mem: Optional[int] = mem
        self.base = base   # what the buffer came from (a PyOpenCL object), kept alive

    @property
    def mem(self) -> int:
        """The cl_mem handle, an integer (as PyOpenCL's ``int_ptr``)."""
        if not self._mem:
            raise invalid("the array was released")
        return self._mem

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def is_contiguous(self) -> bool:
        """C-contiguous (extents of 1 may have any stride)."""
        if self._contiguous is None:
            self._contiguous = self._check_contiguous()
        return self._contiguous

    def _check_contiguous(self) -> bool:
        acc = self.itemsize
        for s, st in zip(reversed(self.shape), reversed(self.strides)):
            if s != 1 and st != acc:
                return False
            acc *= s
        return True

    @property
    def _transposed_matrix(self) -> bool:
        """A 2-D transposed view of a C-contiguous matrix (``x.T``: stored by columns, no gaps), which matmul and
        numpy() read as the matrix it views."""
        return (self.ndim == 2 and not self.is_contiguous and
                self.strides == (self.itemsize, self.shape[0] * self.itemsize) and not self.offset % self.itemsize)

    @property
    def T(self) -> "Array":
        """The transposed view (no copy; not contiguous). A 2-D one is read in place by matmul (as a transposed
        operand), reduce / softmax / layer_norm / rms_norm (as a matrix stored by columns) and numpy(); other
        operations refuse it."""
        return Array(self.ctx, self.mem, self.shape[::-1], self.dtype_name, self.strides[::-1], self.offset,
                     retain=True, base=self)

    @property
    def dtype_name(self) -> str:
        """"float32", "float64", "float16" or "bfloat16"."""
        return _NAMES[self.code]

    def require_contiguous(self, what: str) -> None:
        if self._contiguous and not self.offset % self.itemsize:
            return
        if not self.is_contiguous:
            raise invalid(f"{what}: the array (shape {self.shape}, strides {self.strides}) is not contiguous; "
                          "operations need C-contiguous device arrays (copy it on the host, or use trans_a/trans_b "
                          "for a transposed matrix)")
        if self.offset % self.itemsize:
            raise invalid(f"{what}: offset {self.offset} bytes is not a multiple of the element size {self.itemsize}")

    def numpy(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Copies the array to a new NumPy array, or into ``out`` (C-contiguous, same shape and dtype; e.g. from
        ``pinned_empty``, which the device writes directly), and returns it. Waits for what is enqueued before.
        A 2-D transposed view of a contiguous array (``x.T``) comes back as its own C-contiguous copy."""
        flipped = self._transposed_matrix
        if not flipped:
            self.require_contiguous("numpy")
        if out is None:
            out = np.empty(self.shape, self.dtype)
        elif (not isinstance(out, np.ndarray) or out.shape != self.shape or out.dtype != self.dtype
              or not out.flags.c_contiguous or not out.flags.writeable):
            raise invalid(f"numpy: out must be a writeable C-contiguous {self.dtype} array of shape {self.shape}")
        if out.nbytes and flipped:   # the stored matrix, then its transpose into out
            t = np.empty(self.shape[::-1], self.dtype)
            check(lib.clf_download(self.ctx.handle, self.mem, self.offset, t.ctypes.data, t.nbytes))
            out[...] = t.T
        elif out.nbytes:
            check(lib.clf_download(self.ctx.handle, self.mem, self.offset, out.ctypes.data, out.nbytes))
        return out

    def reshape(self, *shape: Any) -> "Array":
        """A view with another shape of the same size (contiguous arrays only)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = tuple(int(s) for s in shape)
        if -1 in shape:
            known = math.prod(s for s in shape if s != -1)
            shape = tuple(self.size // known if s == -1 and known else s for s in shape)
        if math.prod(shape) != self.size:
            raise invalid(f"reshape: cannot view {self.shape} as {shape}")
        self.require_contiguous("reshape")
        return Array(self.ctx, self.mem, shape, self.dtype_name, None, self.offset, retain=True, base=self)

    def __getitem__(self, i: int) -> "Array":
        """``a[i]``: the i-th sub-array along the first axis (a view)."""
        if not isinstance(i, (int, np.integer)) or self.ndim == 0:
            raise invalid("device arrays index by one integer along the first axis only")
        i = int(i) + (self.shape[0] if i < 0 else 0)
        if not 0 <= i < self.shape[0]:
            raise IndexError(f"index {i} out of range for axis of size {self.shape[0]}")
        return Array(self.ctx, self.mem, self.shape[1:], self.dtype_name, self.strides[1:],
                     self.offset + i * self.strides[0], retain=True, base=self)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def copy(self) -> "Array":
        """A new array with the same contents (device-side copy)."""
        from ._ops import copy
        return copy(self)

    def fill(self, value: float) -> "Array":
        """Sets every element to value; returns self."""
        from ._ops import fill
        return fill(self, value)

    def astype(self, dtype: DTypeLike) -> "Array":
        """A new array converted to dtype on the device (round to nearest even)."""
        from ._ops import convert
        return convert(self, dtype)

    def to_pyopencl(self, queue: Any = None) -> Any:
        """The same memory as a ``pyopencl.array.Array`` (no copy)."""
        from ._interop import to_pyopencl
        return to_pyopencl(self, queue)

    def release(self) -> None:
        """Drops this array's reference to its buffer now rather than at garbage collection."""
        if self._mem:
            cl.clReleaseMemObject(self._mem)
            self._mem = None

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"clforge.Array(shape={self.shape}, dtype={self.dtype_name}, device={self.ctx.device.name!r})"


def _normalize_shape(shape: Union[int, Sequence[int]]) -> Tuple[int, ...]:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)


def empty(shape: Union[int, Sequence[int]], dtype: DTypeLike = np.float32, ctx: Optional[Context] = None) -> Array:
    """A new uninitialised array on ctx's device."""
    if not isinstance(ctx, Context):
        raise invalid("empty: ctx must be a clforge.Context")
    shape = _normalize_shape(shape)
    code = _code(dtype)
    nbytes = math.prod(shape) * _np_dtype(code).itemsize
    if nbytes >= 1 << 63:
        raise invalid(f"empty: shape {shape} needs {nbytes} bytes, more than any device holds")
    mem = ctypes.c_void_p()
    check(lib.clf_buffer_create(ctx.handle, max(nbytes, 16), ctypes.byref(mem)))
    return Array(ctx, mem.value, shape, _NAMES[code])


class _PinnedBlock:
    """Owns one clf_host_alloc allocation; the NumPy arrays over it keep it alive (through their base)."""

    def __init__(self, ctx: Context, nbytes: int) -> None:
        ptr = ctypes.c_void_p()
        check(lib.clf_host_alloc(ctx.handle, nbytes, ctypes.byref(ptr)))
        self.ctx, self.ptr = ctx, ptr.value
        ctx._pinned += 1

    def __del__(self) -> None:
        try:
            self.ctx._pinned_free(self.ptr)
        except Exception:
            pass


def pinned_empty(shape: Union[int, Sequence[int]], dtype: DTypeLike = np.float32,
                 ctx: Optional[Context] = None) -> np.ndarray:
    """A new uninitialised NumPy array in pinned (page-locked) host memory of ctx: ``asarray`` from it and
    ``Array.numpy(out=...)`` into it move data by the device's DMA directly, without the staging copy that
    pageable memory takes, which is the fastest host transfer there is. The memory is freed with the last
    array (or view) over it."""
    if not isinstance(ctx, Context):
        raise invalid("pinned_empty: ctx must be a clforge.Context")
    shape = _normalize_shape(shape)
    if any(s < 0 for s in shape):
        raise invalid(f"pinned_empty: negative dimension in shape {shape}")
    dt = _np_dtype(_code(dtype))
    nbytes = math.prod(shape) * dt.itemsize
    block = _PinnedBlock(ctx, max(nbytes, 16))
    raw = (ctypes.c_uint8 * nbytes).from_address(block.ptr)
    raw._clforge_block = block   # the ctypes array, the base of every view, holds the allocation
    return np.frombuffer(raw, dtype=np.uint8).view(dt).reshape(shape)


def zeros(shape: Union[int, Sequence[int]], dtype: DTypeLike = np.float32, ctx: Optional[Context] = None) -> Array:
    """A new array of zeros on ctx's device."""
    return empty(shape, dtype, ctx).fill(0)


def asarray(x: Any, ctx: Optional[Context] = None, dtype: DTypeLike = None) -> Array:
    """Uploads a NumPy array (or anything np.asarray takes) to ctx's device; a clforge.Array is returned as is.

    dtype converts on the host first (None: keep float32/float64/float16/bfloat16, other types become float32
    except float64). Non-contiguous input is copied to a contiguous one first. ``dtype="bfloat16"`` with a
    uint16 input takes the bits as bfloat16 (the representation used when ml_dtypes is not installed).
    """
    if isinstance(x, Array):
        if ctx is not None and ctx is not x.ctx:
            raise invalid("asarray: the array belongs to another context")
        return x if dtype is None or _code(dtype) == x.code else x.astype(dtype)
    if not isinstance(ctx, Context):
        raise invalid("asarray: ctx must be a clforge.Context")
    a = np.asarray(x)
    if dtype is not None:
        code = _code(dtype)
        target = _np_dtype(code)
        if code == BF16 and a.dtype == np.uint16:
            a = a.view(target)   # bfloat16 bits (how bfloat16 is held without ml_dtypes)
        elif a.dtype != target:
            if code == BF16 and bfloat16 is None:
                raise invalid("asarray: converting to bfloat16 on the host needs ml_dtypes; pass the bits as uint16, "
                              "or upload float32 and use .astype('bfloat16') on the device")
            a = a.astype(target)
    elif a.dtype not in (np.float32, np.float64, np.float16) and (bfloat16 is None or a.dtype != bfloat16):
        if a.dtype.kind not in "biuf":
            raise invalid(f"asarray: cannot upload dtype {a.dtype}")
        a = a.astype(np.float32)
        code = F32
    code = _code(dtype if dtype is not None else a.dtype)
    a = np.ascontiguousarray(a)
    out = empty(a.shape, _NAMES[code], ctx)
    if a.nbytes:
        check(lib.clf_upload(ctx.handle, out.mem, 0, a.ctypes.data, a.nbytes))
    return out
