"""What a learner's function printed on a call that returned None.

A function that prints its answer instead of returning it (``print('b')`` in a concept
question, ``print(loss)`` at the end of a training step) returns None, and the learner sees
their answer on the screen above a message that says "None": blind17g-quiz-cross-norm-
printed was told only that the function has no return statement. ``Tee`` copies what a
call writes to stdout (the learner still sees it) so that the failure can say what was
printed, and that printing is not returning.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

__all__ = ["printed_not_returned", "tee_stdout"]

#: characters kept of what one call prints (what is shown is shorter still)
_KEPT = 2000


class _Tee:
    def __init__(self, stream):
        self._stream = stream
        self.text = ""

    def write(self, text: str) -> int:
        if len(self.text) < _KEPT:
            self.text += str(text)[: _KEPT - len(self.text)]
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextlib.contextmanager
def tee_stdout() -> Iterator[_Tee]:
    """sys.stdout copied while the block runs; the copy's ``text`` is what it printed."""
    tee = _Tee(sys.stdout)
    previous, sys.stdout = sys.stdout, tee
    try:
        yield tee
    finally:
        if sys.stdout is tee:  # (the learner's code may have replaced it: leave theirs)
            sys.stdout = previous


def printed_not_returned(printed: str) -> str:
    """The note for a call that returned None after printing ``printed``; "" when it
    printed nothing."""
    text = printed.strip()
    if not text:
        return ""
    shown = text if len(text) <= 80 else text[:77] + "..."
    return (
        f"Your function printed {shown!r} and returned None: print shows a value on the "
        "screen, and the caller still gets None. Hand the value back with `return` (return "
        "it where you print it)."
    )
