"""Where a wrong size came from: a size taken from the wrong quantity, told by probes.

A learner's reshape, view or tensor constructor asks for a size computed from the wrong
variable (d_head from the length, the look-ahead size from pad_id), or for a constant
written into the code (64, BERT-base's d_head). PyTorch's error shows one wrong number;
one input cannot tell which quantity it is (1 is len // num_heads here, and a literal 1
too). So the learner's code is run on a few more inputs, and the wrong number of each is
matched against every named size of that input, their quotients, products and neighbours
(X - 1, X + 1), and a constant. A source is stated only when it agrees on every input tried
and no other source does; when several agree, all are named; with one input, nothing is.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

__all__ = [
    "broadcast_sizes",
    "reshape_request",
    "size_candidates",
    "size_source_note",
    "size_sources",
]

_REQUEST = re.compile(r"shape '\[([-\d, ]+)\]' is invalid for input of size (\d+)")
_BROADCAST = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")


def reshape_request(message: str) -> list[int] | None:
    """The shape a refused reshape/view asked for, from PyTorch's error text."""
    found = _REQUEST.search(message)
    return [int(n) for n in found.group(1).split(",")] if found else None


def broadcast_sizes(message: str) -> tuple[int, int] | None:
    """The two sizes of a refused broadcast, from PyTorch's error text."""
    found = _BROADCAST.search(message)
    return (int(found.group(1)), int(found.group(2))) if found else None


def size_candidates(sizes: Mapping[str, int]) -> dict[str, int]:
    """Every expression a learner may have written for a size: the named sizes, their
    quotients and products, and each size plus or minus one."""
    found = dict(sizes)
    for (a, x), (b, y) in itertools.permutations(sizes.items(), 2):
        if y:
            found.setdefault(f"{a} // {b}", x // y)
        if a < b:
            found.setdefault(f"{a} * {b}", x * y)
    for a, x in sizes.items():
        found.setdefault(f"{a} - 1", x - 1)
        found.setdefault(f"{a} + 1", x + 1)
    return found


def size_sources(
    observed: Sequence[int], sizes: Sequence[Mapping[str, int]], exclude: Sequence[str] = ()
) -> tuple[list[str], int | None]:
    """The expressions whose value is the observed wrong size on every input, and the
    constant when the wrong size never changed while the inputs did (else None). Needs two
    inputs or more: with one, everything that happens to be equal agrees."""
    if len(observed) < 2 or len(observed) != len(sizes):
        return [], None
    tables = [size_candidates(s) for s in sizes]
    names = [
        name
        for name in tables[0]
        if name not in exclude
        and all(name in table and table[name] == seen for table, seen in zip(tables, observed))
    ]
    constant = (
        observed[0]
        if len(set(observed)) == 1 and len({tuple(s.items()) for s in sizes}) > 1
        else None
    )
    if constant is not None and names:
        constant = None  # a name that never changed either: the name is the likelier source
    return names, constant


def size_source_note(
    observed: Sequence[int],
    sizes: Sequence[Mapping[str, int]],
    where: str,
    belongs: str,
    fix: str,
    exclude: Sequence[str] = (),
) -> str:
    """The diagnosis for a wrong size ``observed`` on each input (``sizes`` their named
    sizes): ``where`` says where the size sits, ``belongs`` what belongs there, ``fix`` the
    remedy; "" when no single source agrees on every input (at most two are named)."""
    names, constant = size_sources(observed, sizes, exclude)
    seen = ", ".join(str(n) for n in observed)
    if constant is not None:
        return (
            f"{where}, and {constant} again on every input tried ({len(observed)} inputs of "
            f"different sizes), whatever the sizes: the constant {constant} is "
            f"written into your code where {belongs} belongs. {fix}"
        ).strip()
    # the plain names first: the simplest expression that agrees
    names.sort(key=lambda name: (name.count(" "), name))
    if not names or len(names) > 2:
        return ""
    source = " or ".join(names)
    return (
        f"{where}, which is {source} here and on every input tried ({seen} on "
        f"{len(observed)} inputs): {source} was used where {belongs} belongs. {fix}"
    ).strip()
