"""A reshape or view that asks for a size taken from the wrong variable: PyTorch refuses it
("shape '[2, 3, 2, 3]' is invalid for input of size 48") and the learner reads a raw error.

The requested shape is in the error; the check knows what each size should be (batch, len,
num_heads, d_head, ...). When the request differs from one intended layout in exactly one
place, and the size found there is the value of another named size, that is the diagnosis:
the size of X was written where Y belongs. With several names sharing that value, all of
them are listed; with more than one place wrong, or a 1 where a size belongs (a literal 1,
a batch of one written in, is likelier than a variable that happens to be 1), nothing is
said (a raw error keeps its generic hints).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["wrong_size_hint", "wrong_size_note"]

_REQUEST = re.compile(r"shape '\[([-\d, ]+)\]' is invalid for input of size (\d+)")


def wrong_size_note(
    message: str, sizes: Mapping[str, int], layouts: Sequence[Sequence[str]]
) -> str:
    """The diagnosis for PyTorch's error ``message`` of a reshape/view, given the named
    ``sizes`` and the ``layouts`` (tuples of names) the reshape may have meant; else ""."""
    found = _REQUEST.search(message)
    if found is None:
        return ""
    asked = [int(n) for n in found.group(1).split(",")]
    for layout in layouts:
        if len(layout) != len(asked):
            continue
        want = [sizes[name] for name in layout]
        wrong = [i for i, (a, w) in enumerate(zip(asked, want, strict=True)) if a != -1 and a != w]
        if len(wrong) != 1:
            continue
        i = wrong[0]
        if asked[i] == 1:  # a literal 1 (a batch of one written in) is likelier than a name
            continue
        others = [name for name, n in sizes.items() if n == asked[i] and name != layout[i]]
        if not others:
            continue
        names = " or ".join(others)
        return (
            f"Your reshape asks for {tuple(asked)} where ({', '.join(layout)}) = {tuple(want)} "
            f"belongs: in place of {layout[i]} = {want[i]} it has {asked[i]}, which is {names} "
            f"here. The size of {names} was written where {layout[i]} belongs: take {layout[i]} "
            "from its own variable."
        )
    return ""


def wrong_size_hint(sizes: Mapping[str, int], layouts: Sequence[Sequence[str]]):
    """:func:`wrong_size_note` as a hint for ``Checker.call``."""

    def hit(exc: BaseException) -> str:
        return wrong_size_note(str(exc), sizes, layouts)

    return [(RuntimeError, hit)]
