"""The ctypes structures of clforge._lib against include/clforge/clforge.h: same fields, same order, same
array lengths. A field added to the header without the binding would make the library write past a Python
buffer; this test fails first."""
import ctypes
import pathlib
import re

import pytest

from clforge import _lib

HEADER = pathlib.Path(__file__).resolve().parents[2] / "include" / "clforge" / "clforge.h"
MIRRORS = {
    "clf_device_info": _lib.DeviceInfo, "clf_context_options": _lib.ContextOptions, "clf_gemm_types": _lib.GemmTypes,
    "clf_map_arg": _lib.MapArg, "clf_tune_options": _lib.TuneOptions, "clf_tune_entry": _lib.TuneEntry,
    "clf_tune_report": _lib.TuneReport, "clf_cache_stats": _lib.CacheStats, "clf_roofline": _lib.Roofline,
    "clf_reduce_desc": _lib.ReduceDesc, "clf_epilogue_arg": _lib.EpilogueArg, "clf_epilogue": _lib.Epilogue,
}


# Element sizes of the header's field types on this platform (pointers and handles: a pointer).
SIZES = {"char": 1, "int": 4, "float": 4, "double": 8, "size_t": ctypes.sizeof(ctypes.c_size_t), "cl_uint": 4,
         "cl_ulong": 8, "cl_device_type": 8, "unsigned long": ctypes.sizeof(ctypes.c_ulong), "clf_dtype": 4,
         "clf_arg_kind": 4, "clf_compute": 4, "clf_layout": 4, "clf_reduce_axis": 4, "clf_reduce_op": 4, "cl_mem": ctypes.sizeof(ctypes.c_void_p),
         "clf_tune_entry": ctypes.sizeof(_lib.TuneEntry), "clf_epilogue_kind": 4}


def header_fields(name):
    """[(field, array length or None, element size)] of `typedef struct name { ... } name;` in the header."""
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    m = re.search(r"typedef struct %s \{(.*?)\} %s;" % (name, name), text, flags=re.S)
    assert m, f"{name} not found in {HEADER}"
    fields = []
    for decl in m.group(1).split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        type_and_first, *rest = decl.split(",")
        words = type_and_first.split()
        ctype = " ".join(w for w in words[:-1] if w not in ("const", "volatile")).rstrip("*").strip()
        for d in [words[-1]] + [r.strip() for r in rest]:
            pointer = "*" in type_and_first or d.startswith("*")
            am = re.match(r"(\w+)(?:\[(\w+)\])?$", d.lstrip("*"))
            assert am, f"{name}: cannot read declarator {d!r}"
            assert pointer or ctype in SIZES, f"{name}.{am.group(1)}: add type {ctype!r} to SIZES"
            size = ctypes.sizeof(ctypes.c_void_p) if pointer else SIZES[ctype]
            fields.append((am.group(1), int(am.group(2)) if am.group(2) else None, size))
    return fields


def ctypes_fields(cls):
    out = []
    for fname, ftype in cls._fields_:
        if issubclass(ftype, ctypes.Array):
            out.append((fname, ftype._length_, ctypes.sizeof(ftype._type_)))
        else:
            out.append((fname, None, ctypes.sizeof(ftype)))
    return out


@pytest.mark.parametrize("name", sorted(MIRRORS))
def test_struct_matches_header(name):
    assert ctypes_fields(MIRRORS[name]) == header_fields(name)


def test_constants_match_header():
    from clforge import _core, _errors, _ops

    text = HEADER.read_text()
    codes = {int(v): n for n, v in re.findall(r"X\((CLF_ERR_\w+), (-\d+),", text)}
    assert codes and set(codes) == set(_errors._BY_STATUS)
    for v, cls in _errors._BY_STATUS.items():
        assert cls.__doc__.startswith(codes[v])
    dtypes = re.search(r"typedef enum \{ ?(CLF_F32[^}]*)\} clf_dtype;", text).group(1).replace(" ", "").split(",")
    assert [getattr(_core, d[4:]) for d in dtypes if d] == list(range(len([d for d in dtypes if d])))
    compute = dict((n.lower(), int(v)) for n, v in re.findall(r"CLF_COMPUTE_(\w+) = (\d+)", text))
    assert compute == _ops._COMPUTE
    assert re.search(r"CLF_ROW_MAJOR = 101", text) and _ops.ROW_MAJOR == 101
    assert re.search(r"CLF_NO_TRANS = 111, CLF_TRANS = 112", text) and (_ops.NO_TRANS, _ops.TRANS) == (111, 112)
    from clforge import _reduce

    ops = re.search(r"CLF_REDUCE_SUM, CLF_REDUCE_MAX, CLF_REDUCE_MIN, CLF_REDUCE_LSE, CLF_REDUCE_MOMENTS", text)
    assert ops and _reduce._OPS == {"sum": 0, "max": 1, "min": 2, "lse": 3, "moments": 4}
    assert re.search(r"typedef enum clf_reduce_axis \{ CLF_REDUCE_ROWS, CLF_REDUCE_COLS \}", text)
