"""clforge: a portable OpenCL compute backend (GEMM, fused elementwise maps, copies, autotuning) from Python.

    import numpy as np, clforge
    ctx = clforge.Context(device="nvidia")          # or "cpu", "gpu", "0:0"; default: $CLFORGE_DEVICE
    a = clforge.asarray(np.random.rand(512, 256).astype(np.float32), ctx)
    b = clforge.asarray(np.random.rand(256, 128).astype(np.float32), ctx)
    c = clforge.matmul(a, b).numpy()

The bindings call libclforge through ctypes; the C library is the one implementation. See docs/python.md.
"""
from ._core import Array, Context, Device, asarray, bfloat16, devices, empty, pinned_empty, zeros
from ._errors import (BuildError, Error, InternalError, InterruptedError_, InvalidArgError, IOError_, NoDeviceError,
                      OpenCLError, OutOfMemoryError, ParseError, UnsupportedError, VerifyError)
from ._interop import context_from_pyopencl, from_pyopencl, to_pyopencl
from ._lib import lib as _clib
from ._ops import convert, copy, fill, matmul
from ._reduce import col, layer_norm, reduce, rms_norm, row, softmax
from ._tune import bench, tune

__version__: str = _clib.clf_version().decode()
del _clib

__all__ = [
    "Array", "Context", "Device", "asarray", "bfloat16", "devices", "empty", "pinned_empty", "zeros", "matmul", "copy",
    "fill", "convert", "reduce", "softmax", "layer_norm", "rms_norm", "row", "col", "tune", "bench", "context_from_pyopencl", "from_pyopencl", "to_pyopencl", "Error", "InvalidArgError",
    "UnsupportedError", "BuildError", "ParseError", "NoDeviceError", "IOError_", "OutOfMemoryError", "VerifyError",
    "InterruptedError_", "InternalError", "OpenCLError", "__version__",
]
