"""The grader's own clock on its work with the learner's values.

A check runs in the grader's process: the requests it sends into the sandbox have
deadlines (:mod:`.session`), but what the check then computes on the values that came
back (a comparison, a reference computation on the learner's output) ran unbounded.
:func:`enforced` holds a deadline on the grader's side too: a watchdog thread raises
an exception in the checking thread when the deadline passes (between two Python
bytecodes: a single long library call ends first; the codec's limits keep every value
small enough for one call to be short). The exception is a
:class:`~.errors.SandboxAbort` (``timeout``, not recovered): the exercise gets the
timeout message and the learner process is replaced, since the channel may have been
interrupted in the middle of a request.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
import time
from collections.abc import Iterator

from transformer_course.grader.errors import SandboxAbort

__all__ = ["GRACE_S", "CheckOverrun", "check_overrun", "enforced"]

GRACE_S = 2.0  # past the check's deadline: the sandbox's own request deadline comes first


class CheckOverrun(SandboxAbort):
    """Raised (as a class, without arguments) in a check that overran its deadline."""

    seconds = 0.0

    def __init__(self) -> None:
        super().__init__(
            "timeout",
            f"the checks ran longer than {self.seconds:g} s on the values your code returned "
            "(a very large result?), so they were stopped",
        )


def check_overrun(seconds: float) -> type[CheckOverrun]:
    return type("CheckOverrun", (CheckOverrun,), {"seconds": seconds})


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(exception) if exception else None
    )


@contextlib.contextmanager
def enforced(deadline: float | None, exception: type[BaseException]) -> Iterator[None]:
    """Raise ``exception`` in the calling thread if it is still inside at ``deadline``
    (a ``time.monotonic()`` value; None: no deadline)."""
    if deadline is None:
        yield
        return
    thread_id = threading.get_ident()
    lock = threading.Lock()
    state = {"inside": True, "fired": False}

    def fire() -> None:
        with lock:
            if state["inside"]:
                state["fired"] = True
                _raise_in(thread_id, exception)

    timer = threading.Timer(max(0.0, deadline - time.monotonic()), fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["inside"] = False
        timer.cancel()
        if state["fired"]:
            _raise_in(thread_id, None)  # fired as the body ended: drop it if still pending
