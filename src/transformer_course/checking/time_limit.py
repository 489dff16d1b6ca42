"""A time limit for a learner's call that may loop for ever (a loop whose exit test never
holds): the check gets an exception it can explain instead of a cell that never ends.
Only in the main thread of a platform with setitimer, where Python delivers signals;
elsewhere the call runs unlimited, as before."""

from __future__ import annotations

import contextlib
import signal
import threading
import time

__all__ = ["TimeLimitExceeded", "time_limit"]


class TimeLimitExceeded(Exception):
    """The call ran past its time limit."""


@contextlib.contextmanager
def time_limit(seconds: float, error: type[BaseException] = TimeLimitExceeded):
    """Raise ``error`` inside the block after ``seconds`` (once: a stop sent again could
    land in the block's own clean-up and leave the timer running); nothing when a limit
    cannot be set (another thread, no setitimer). An outer limit already running (a
    grader's, a benchmark's) is kept: when it would fire first it alone applies, and
    otherwise it is set again, less the time spent, when the block ends."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "setitimer"
    ):
        yield
        return
    outer = signal.getitimer(signal.ITIMER_REAL)[0]
    if 0 < outer <= seconds:
        yield
        return

    def stop(signum, frame):
        raise error(f"the call ran for more than {seconds:g} s")

    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer > 0:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 1e-3))
