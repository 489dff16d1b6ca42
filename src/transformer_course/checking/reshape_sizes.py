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
from collections.abc import Callable, Mapping, Sequence

from .size_sources import reshape_request, size_source_note

__all__ = ["probed_size_note", "wrong_size_hint", "wrong_size_note"]

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


def probed_size_note(
    message: str,
    sizes: Mapping[str, int],
    layouts: Sequence[Sequence[str]],
    probes: Sequence[tuple[Callable[[], object], Mapping[str, int]]],
    formulas: Mapping[str, str] | None = None,
) -> str:
    """The source of the one wrong size of a refused reshape, told by ``probes`` (a call of
    the learner's code on another input, and that input's named sizes): the size in the same
    place on each refused probe is matched against every expression of the named sizes and
    a constant (:mod:`.size_sources`); "" unless one source agrees on every input."""
    asked = reshape_request(message)
    if asked is None:
        return ""
    for layout in layouts:
        if len(layout) != len(asked):
            continue
        want = [sizes[name] for name in layout]
        wrong = [i for i, (a, w) in enumerate(zip(asked, want, strict=True)) if a != -1 and a != w]
        if len(wrong) != 1:
            continue
        i = wrong[0]
        observed, named = [asked[i]], [dict(sizes)]
        for call, probe_sizes in probes:
            try:
                call()
            except Exception as exc:  # the learner's code, on another input
                again = reshape_request(str(exc))
                if again is not None and len(again) == len(asked) and again[i] != -1:
                    observed.append(again[i])
                    named.append(dict(probe_sizes))
        formula = (formulas or {}).get(layout[i], "")
        fix = f"Compute {layout[i]} from the input: {layout[i]} = {formula}." if formula else ""
        note = size_source_note(
            observed,
            named,
            f"Your reshape asks for {tuple(asked)} where ({', '.join(layout)}) = {tuple(want)} "
            f"belongs: in place of {layout[i]} = {want[i]} it has {asked[i]}",
            layout[i],
            fix,
            exclude=[layout[i]],
        )
        if note:
            return note
    return ""


def wrong_size_hint(
    sizes: Mapping[str, int],
    layouts: Sequence[Sequence[str]],
    probes: Sequence[tuple[Callable[[], object], Mapping[str, int]]] = (),
    formulas: Mapping[str, str] | None = None,
):
    """:func:`wrong_size_note` as a hint for ``Checker.call``; with ``probes``,
    :func:`probed_size_note` first (a source that agrees on every input tried)."""

    def hit(exc: BaseException) -> str:
        if probes and (note := probed_size_note(str(exc), sizes, layouts, probes, formulas)):
            return note
        return wrong_size_note(str(exc), sizes, layouts)

    return [(RuntimeError, hit)]
