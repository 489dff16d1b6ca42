"""Loading a seccomp filter into a learner process, inside the sandbox.

The grader builds the filter (:mod:`transformer_course.grader.seccomp_filter`, with
libseccomp) and sends it to the zygote as base64 text; loading it needs only ``prctl``.
"""

from __future__ import annotations

import ctypes

__all__ = ["install", "install_encoded"]

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(program: bytes) -> None:
    """Load a filter built by :func:`build` into the calling process (and its future
    children), for good: no libseccomp needed here, only ``prctl``."""
    if not program or len(program) % 8:
        raise ValueError("not a seccomp filter program")
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    prctl = libc.prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    if prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")


def install_encoded(text: str) -> None:
    """:func:`install` a program sent as base64 text (the zygote's configuration)."""
    import base64

    install(base64.b64decode(text, validate=True))
