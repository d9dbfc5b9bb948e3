"""The C library through ctypes: loading libclforge and libOpenCL, and the prototypes of every function used.

Nothing here is public. The C library is the one implementation; this module only declares its signatures
so that ctypes converts arguments and never guesses them. The structures mirror include/clforge/clforge.h
field by field: tests/python/test_abi.py compares them with the header, so a change there fails a test
instead of corrupting memory.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int, c_size_t, c_uint,
                    c_uint64, c_ulong, c_void_p)

cl_mem = c_void_p
cl_event = c_void_p
cl_ulong = c_uint64
cl_uint = c_uint
status = c_int


class DeviceInfo(Structure):
    _fields_ = [
        ("name", c_char * 256), ("vendor", c_char * 256), ("platform", c_char * 256),
        ("platform_vendor", c_char * 256), ("version", c_char * 128), ("driver", c_char * 128),
        ("opencl_c", c_char * 128), ("type", cl_ulong), ("vendor_id", cl_uint), ("compute_units", cl_uint),
        ("clock_mhz", cl_uint), ("global_mem", cl_ulong), ("local_mem", cl_ulong), ("max_alloc", cl_ulong),
        ("max_work_group", c_size_t), ("fp64", c_int), ("fp16", c_int), ("subgroups", c_int),
        ("platform_index", c_int), ("device_index", c_int), ("is_default", c_int), ("key", c_char * 1024),
        ("id", c_char * 17), ("nv_cc", c_int),
    ]


class ContextOptions(Structure):
    _fields_ = [("device", c_char_p), ("cache_dir", c_char_p), ("no_disk_cache", c_int), ("no_tuning", c_int)]


class GemmTypes(Structure):
    _fields_ = [("a", c_int), ("b", c_int), ("c", c_int), ("compute", c_int)]


class MapArg(Structure):
    _fields_ = [("name", c_char_p), ("kind", c_int), ("dtype", c_int), ("buffer", cl_mem), ("offset", c_size_t),
                ("value", c_double)]


class EpilogueArg(Structure):
    _fields_ = [("name", c_char_p), ("kind", c_int), ("dtype", c_int), ("buffer", cl_mem), ("offset", c_size_t),
                ("ld", c_size_t), ("stride", c_size_t), ("value", c_double)]


class Epilogue(Structure):
    _fields_ = [("expr", c_char_p), ("args", POINTER(EpilogueArg)), ("nargs", c_size_t)]


class ReduceDesc(Structure):
    _fields_ = [("layout", c_int), ("m", c_size_t), ("n", c_size_t), ("axis", c_int), ("op", c_int),
                ("pre", c_char_p), ("post", c_char_p), ("write", c_char_p),
                ("x_type", c_int), ("x", cl_mem), ("x_off", c_size_t), ("ldx", c_size_t),
                ("out_type", c_int), ("out", cl_mem), ("out_off", c_size_t),
                ("y_type", c_int), ("y", cl_mem), ("y_off", c_size_t), ("ldy", c_size_t)]


class TuneOptions(Structure):
    _fields_ = [("families", c_char_p), ("budget_seconds", c_double), ("exhaustive", c_int), ("quiet", c_int),
                ("stop", POINTER(c_int))]


class TuneEntry(Structure):
    _fields_ = [("family", c_char * 32), ("bucket", c_char * 32), ("precision", c_char * 8), ("config", c_char * 256),
                ("rate", c_double), ("unit", c_char * 8), ("evaluations", c_int), ("failed", c_int),
                ("seconds", c_double)]


class TuneReport(Structure):
    _fields_ = [("entries", TuneEntry * 64), ("count", c_int), ("db_path", c_char * 1024)]


class CacheStats(Structure):
    _fields_ = [("memory_hits", c_ulong), ("disk_hits", c_ulong), ("compiles", c_ulong), ("disk_rejects", c_ulong),
                ("last_load_seconds", c_double)]


class Roofline(Structure):
    _fields_ = [("copy_gbs", c_double), ("triad_gbs", c_double), ("fp32_gflops", c_double),
                ("fp64_gflops", c_double), ("date", c_char * 32), ("fp32_spec_gflops", c_double),
                ("fp64_spec_gflops", c_double), ("spec_basis", c_char * 160)]


def _load_clforge() -> ctypes.CDLL:
    """libclforge from $CLFORGE_LIBRARY, else the copy installed with this package, else the system's."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("CLFORGE_LIBRARY", ""), os.path.join(here, "libclforge.so")]
    for path in candidates:
        if path and os.path.exists(path):
            return ctypes.CDLL(path)
    found = ctypes.util.find_library("clforge")
    if found:
        return ctypes.CDLL(found)
    raise ImportError("clforge: libclforge.so not found (set CLFORGE_LIBRARY to its path, or `pip install .` "
                      "from the clforge checkout)")


def _load_opencl() -> ctypes.CDLL:
    for name in ("libOpenCL.so.1", ctypes.util.find_library("OpenCL")):
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError:
                pass
    raise ImportError("clforge: libOpenCL.so.1 not found (install an OpenCL ICD loader, e.g. ocl-icd-libopencl1)")


lib = _load_clforge()
cl = _load_opencl()

_P = c_void_p
_S = c_size_t
_PROTOS = {
    "clf_version": (c_char_p, []),
    "clf_status_name": (c_char_p, [c_int]),
    "clf_status_string": (c_char_p, [c_int]),
    "clf_last_error": (c_char_p, []),
    "clf_device_list": (status, [POINTER(DeviceInfo), _S, POINTER(c_size_t)]),
    "clf_device_select": (status, [c_char_p, POINTER(DeviceInfo)]),
    "clf_context_create": (status, [POINTER(ContextOptions), POINTER(_P)]),
    "clf_context_wrap": (status, [_P, _P, _P, POINTER(_P)]),
    "clf_context_destroy": (None, [_P]),
    "clf_context_device": (POINTER(DeviceInfo), [_P]),
    "clf_context_cl": (_P, [_P]),
    "clf_context_queue": (_P, [_P]),
    "clf_finish": (status, [_P]),
    "clf_context_cache_stats": (status, [_P, POINTER(CacheStats)]),
    "clf_context_cache_dir": (c_char_p, [_P]),
    "clf_buffer_create": (status, [_P, _S, POINTER(cl_mem)]),
    "clf_upload": (status, [_P, cl_mem, _S, _P, _S]),
    "clf_download": (status, [_P, cl_mem, _S, _P, _S]),
    "clf_host_alloc": (status, [_P, _S, POINTER(_P)]),
    "clf_host_free": (status, [_P, _P]),
    "clf_sgemm": (status, [_P, c_int, c_int, c_int, _S, _S, _S, c_float, cl_mem, _S, _S, cl_mem, _S, _S, c_float,
                           cl_mem, _S, _S, POINTER(cl_event)]),
    "clf_dgemm": (status, [_P, c_int, c_int, c_int, _S, _S, _S, c_double, cl_mem, _S, _S, cl_mem, _S, _S, c_double,
                           cl_mem, _S, _S, POINTER(cl_event)]),
    "clf_sgemm_batched_strided": (status, [_P, c_int, c_int, c_int, _S, _S, _S, c_float, cl_mem, _S, _S, _S, cl_mem,
                                           _S, _S, _S, c_float, cl_mem, _S, _S, _S, _S, POINTER(cl_event)]),
    "clf_dgemm_batched_strided": (status, [_P, c_int, c_int, c_int, _S, _S, _S, c_double, cl_mem, _S, _S, _S, cl_mem,
                                           _S, _S, _S, c_double, cl_mem, _S, _S, _S, _S, POINTER(cl_event)]),
    "clf_gemm": (status, [_P, POINTER(GemmTypes), c_int, c_int, c_int, _S, _S, _S, c_float, cl_mem, _S, _S, cl_mem,
                          _S, _S, c_float, cl_mem, _S, _S, POINTER(cl_event)]),
    "clf_gemm_batched_strided": (status, [_P, POINTER(GemmTypes), c_int, c_int, c_int, _S, _S, _S, c_float, cl_mem,
                                          _S, _S, _S, cl_mem, _S, _S, _S, c_float, cl_mem, _S, _S, _S, _S,
                                          POINTER(cl_event)]),
    "clf_gemm_epilogue": (status, [_P, POINTER(GemmTypes), c_int, c_int, c_int, _S, _S, _S, c_double, cl_mem, _S, _S,
                                   _S, cl_mem, _S, _S, _S, c_double, cl_mem, _S, _S, _S, _S, POINTER(Epilogue),
                                   POINTER(cl_event)]),
    "clf_convert": (status, [_P, c_int, cl_mem, _S, c_int, cl_mem, _S, _S, POINTER(cl_event)]),
    "clf_map": (status, [_P, c_char_p, _S, POINTER(MapArg), _S, POINTER(cl_event)]),
    "clf_reduce": (status, [_P, POINTER(ReduceDesc), POINTER(MapArg), _S, POINTER(cl_event)]),
    "clf_copy": (status, [_P, cl_mem, _S, cl_mem, _S, _S, POINTER(cl_event)]),
    "clf_fill": (status, [_P, cl_mem, _S, _P, _S, _S, POINTER(cl_event)]),
    "clf_tune": (status, [_P, POINTER(TuneOptions), POINTER(TuneReport)]),
    "clf_config_in_use": (status, [_P, c_char_p, c_char_p, c_char_p, c_char_p, _S, c_char_p, _S]),
    "clf_roofline_get": (status, [_P, c_int, c_int, POINTER(Roofline)]),
}
for _name, (_res, _args) in _PROTOS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

_CL_PROTOS = {
    "clRetainMemObject": (c_int, [cl_mem]),
    "clReleaseMemObject": (c_int, [cl_mem]),
    "clGetMemObjectInfo": (c_int, [cl_mem, c_uint, _S, _P, POINTER(c_size_t)]),
    "clReleaseEvent": (c_int, [cl_event]),
    "clWaitForEvents": (c_int, [c_uint, POINTER(cl_event)]),
}
for _name, (_res, _args) in _CL_PROTOS.items():
    _f = getattr(cl, _name)
    _f.restype = _res
    _f.argtypes = _args

CL_MEM_SIZE = 0x1102
CL_MEM_CONTEXT = 0x1106
