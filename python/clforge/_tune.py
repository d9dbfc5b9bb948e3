"""Tuning and benchmarks as Python objects: clf_tune's report, the configuration in use, `clforge bench`'s JSON."""
from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sysconfig
import tempfile
from typing import Any, Dict, Optional

from . import _lib
from ._core import Context
from ._errors import IOError_, check, invalid
from ._lib import lib


def tune(ctx: Context, families: Optional[str] = None, budget_seconds: float = 60.0, exhaustive: bool = False,
         quiet: bool = True) -> Dict[str, Any]:
    """Runs clf_tune on ctx and returns {"db_path": str, "entries": [ {family, bucket, precision, config, rate,
    unit, evaluations, failed, seconds}, ... ]}. The results go to the tuning database shared with C."""
    if budget_seconds <= 0:
        raise invalid("tune: budget_seconds must be positive")
    opt = _lib.TuneOptions(families.encode() if families else None, float(budget_seconds), int(exhaustive),
                           int(quiet), None)
    rep = _lib.TuneReport()
    check(lib.clf_tune(ctx.handle, ctypes.byref(opt), ctypes.byref(rep)))
    entries = []
    for e in rep.entries[:rep.count]:
        entries.append({"family": e.family.decode(), "bucket": e.bucket.decode(), "precision": e.precision.decode(),
                        "config": e.config.decode(), "rate": e.rate, "unit": e.unit.decode(),
                        "evaluations": e.evaluations, "failed": e.failed, "seconds": e.seconds})
    return {"db_path": rep.db_path.decode(), "entries": entries}


def config_in_use(ctx: Context, family: str, precision: str, bucket: str) -> Dict[str, str]:
    cfg = ctypes.create_string_buffer(256)
    origin = ctypes.create_string_buffer(32)
    check(lib.clf_config_in_use(ctx.handle, family.encode(), precision.encode(), bucket.encode(), cfg, 256, origin, 32))
    return {"config": cfg.value.decode(), "origin": origin.value.decode()}


def _cli() -> str:
    """The clforge CLI: $CLFORGE_CLI, else the one installed with this package, else on PATH."""
    env = os.environ.get("CLFORGE_CLI")
    if env:
        return env
    beside = os.path.join(sysconfig.get_path("scripts"), "clforge")
    if os.path.exists(beside):
        return beside
    found = shutil.which("clforge")
    if not found:
        raise invalid("bench: the clforge CLI is not installed (set CLFORGE_CLI)")
    return found


def bench(device: Optional[str] = None, quick: bool = True, only: Optional[str] = None,
          timeout: Optional[float] = None) -> Dict[str, Any]:
    """Runs `clforge bench` (the same measurements as the CLI: roofline, GEMM, maps, copies, transfers) on one
    device and returns its JSON document as a dict ({"format": "clforge-bench/2", "devices": [...], ...}).
    only: comma-separated workloads, e.g. "copy,transfer". The bench lives in the CLI, so this runs it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.json")
        cmd = [_cli(), "bench", "--json", path]
        if device:
            cmd += ["--device", device]
        if quick:
            cmd.append("--quick")
        if only:
            cmd += ["--only", only]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0 and not os.path.exists(path):
            raise IOError_(-2006, f"bench: `{' '.join(cmd)}` failed ({r.returncode}) and wrote no JSON: "
                                  f"{r.stderr.strip()[-2000:]}", "CLF_ERR_IO")
        with open(path) as f:
            return json.load(f)
