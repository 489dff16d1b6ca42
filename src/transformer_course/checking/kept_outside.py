"""Sizes rounded up. (State kept outside its owner is read where it shows, from the
objects a check holds: the memory a result or a buffer shares with an earlier one, see
``Checker._result_returned_again`` and the KVCache check; never from the learner's class
or globals, which the grader cannot see.)

:func:`rounded_up` names an axis whose size is the asked one rounded up to a multiple of a
round number (16 to 256) or to the next power of two: a size padded "for speed", as
nanoGPT's vocabulary of 50304, where the contract asks for the exact size.
"""

from __future__ import annotations

__all__ = ["rounded_up"]


def rounded_up(got: int, asked: int) -> str:
    """How ``got`` is ``asked`` rounded up ("a multiple of 64", "the next power of two"),
    the largest round step that fits; "" when it is not, when ``got`` is a multiple of
    ``asked`` (twice the size is more often two things in one axis than a rounding), and
    when it exceeds ``asked`` by fewer than 4 (an off-by-one or two is likelier)."""
    if not (isinstance(got, int) and isinstance(asked, int)) or got <= asked or asked < 1:
        return ""
    if got % asked == 0 or got - asked < 4:  # a few more: an off-by-one's family, not this
        return ""
    for step in (256, 128, 64, 32, 16):
        if got == -(-asked // step) * step:
            return f"a multiple of {step}"
    if got == 1 << (asked - 1).bit_length():
        return "the next power of two"
    return ""
