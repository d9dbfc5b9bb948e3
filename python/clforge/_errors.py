"""clforge.Error and its subclasses: one per clforge status, OpenCLError for OpenCL's own codes."""
from __future__ import annotations

from typing import Dict, Type

from ._lib import lib


class Error(Exception):
    """A failed clforge call.

    Attributes:
        status: the numeric status (clforge's codes are -2001 and below; others are OpenCL's).
        name: its name, e.g. ``"CLF_ERR_INVALID_ARG"`` or ``"CL_OUT_OF_RESOURCES"``.
        message: what went wrong, from ``clf_last_error()`` or from the Python layer's own checks.
    """

    def __init__(self, status: int, message: str, name: str = "") -> None:
        self.status = status
        self.name = name or (lib.clf_status_name(status) or b"?").decode()
        self.message = message
        super().__init__(f"{self.name}: {message}" if message else self.name)


class InvalidArgError(Error, ValueError):
    """CLF_ERR_INVALID_ARG: a bad argument (shape, dtype, size, offset, handle)."""


class UnsupportedError(Error):
    """CLF_ERR_UNSUPPORTED: not supported on this device."""


class BuildError(Error):
    """CLF_ERR_BUILD: an OpenCL program failed to build (the message holds the log)."""


class ParseError(Error, ValueError):
    """CLF_ERR_PARSE: a map expression does not parse."""


class NoDeviceError(Error):
    """CLF_ERR_NO_DEVICE: no OpenCL device found or selected."""


class IOError_(Error, OSError):
    """CLF_ERR_IO: file input/output failed (cache, tuning database)."""


class OutOfMemoryError(Error, MemoryError):
    """CLF_ERR_OUT_OF_MEMORY: out of host memory."""


class VerifyError(Error):
    """CLF_ERR_VERIFY: a result did not match the reference."""


class InterruptedError_(Error):
    """CLF_ERR_INTERRUPTED: interrupted (a tuning run stopped)."""


class InternalError(Error):
    """CLF_ERR_INTERNAL: a defect in clforge."""


class OpenCLError(Error):
    """An OpenCL error code passed through (e.g. CL_MEM_OBJECT_ALLOCATION_FAILURE)."""


_BY_STATUS: Dict[int, Type[Error]] = {
    -2001: InvalidArgError, -2002: UnsupportedError, -2003: BuildError, -2004: ParseError, -2005: NoDeviceError,
    -2006: IOError_, -2007: OutOfMemoryError, -2008: VerifyError, -2009: InterruptedError_, -2010: InternalError,
}


def check(status: int) -> None:
    """Raises the Error subclass for a failed status, with this thread's clf_last_error() message."""
    if status == 0:
        return
    message = (lib.clf_last_error() or b"").decode(errors="replace")
    raise _BY_STATUS.get(status, OpenCLError)(status, message)


def invalid(message: str) -> InvalidArgError:
    """An InvalidArgError raised by the Python layer's own checks, before any C call."""
    return InvalidArgError(-2001, message, "CLF_ERR_INVALID_ARG")
