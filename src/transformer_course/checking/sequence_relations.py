"""Relations between a wrong list (or dict) and the right one that name a family of
mistakes from the values alone, for any exercise compared with ``expect_equal``:

* :func:`collapsed_runs`: the right items, but each run of equal consecutive items once
  (``itertools.groupby``, a test against the previous item, CTC-style merging);
* :func:`keys_as_strings`: a dict keyed by tuples (pairs of ids, say) whose keys came back
  as strings, with the format that made them when one format fits every key;
* :func:`cut_short`: the right first items, and nothing after them (a loop that ends
  early, a map or zip that stops at a shorter iterable, a range one short);
* :func:`fitting_reorderings`: the right items of each row in another order (reversed,
  sorted, rotated by one), named when one order change fits every row compared.

Each says only what every compared value shows ("" otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import groupby
from typing import Any

__all__ = ["ORDER_CHANGES", "collapsed_runs", "cut_short", "fitting_reorderings", "keys_as_strings"]

#: order changes of a row, each with what it does and the code that does it
ORDER_CHANGES: dict[str, Callable[[list], list]] = {
    "in reverse order (seq[::-1], reversed(seq), torch.flip)": lambda seq: seq[::-1],
    "sorted in ascending order (sorted(seq), .sort())": sorted,
    "sorted in descending order (sorted(seq, reverse=True))": lambda seq: sorted(seq, reverse=True),
    "rotated left by one (the first item moved to the end)": lambda seq: seq[1:] + seq[:1],
    "rotated right by one (the last item moved to the front)": lambda seq: seq[-1:] + seq[:-1],
}


def fitting_reorderings(
    observed: Sequence[list],
    originals: Sequence[list],
    accepted: Callable[[list], Iterable[list]] = lambda seq: [seq],
) -> list[str]:
    """The order changes of :data:`ORDER_CHANGES` that give every observed row: row i is
    one of ``accepted(change(originals[i]))`` (the forms a right row may take, built from
    the reordered items) for every i, and the change moves at least one original row.
    All that fit are returned (several when the rows cannot tell them apart); [] when
    none does or the rows are not lists of comparable items."""
    if not observed or len(observed) != len(originals):
        return []
    fitting = []
    for what, change in ORDER_CHANGES.items():
        try:
            changed = [change(list(row)) for row in originals]
            fits = all(
                list(got) in [list(form) for form in accepted(new)]
                for got, new in zip(observed, changed)
            )
        except TypeError:  # items that cannot be sorted
            continue
        if fits and any(new != list(row) for new, row in zip(changed, originals)):
            fitting.append(what)
    return fitting


def cut_short(got: Any, expected: Any) -> str:
    """``got`` is the first items of ``expected``, at least one and not all: that fact,
    with the ways of stopping early that give that many items; "" otherwise."""
    if not (isinstance(got, list | tuple) and isinstance(expected, list | tuple)):
        return ""
    kept, wanted = len(got), len(expected)
    if not 1 <= kept < wanted:
        return ""
    try:
        if list(got) != list(expected[:kept]):
            return ""
        if list(got) == list(expected[wanted - kept :]):
            return ""  # the last items as well: no telling which end was cut
    except Exception:  # items that do not compare: no relation to state
        return ""
    observed = (
        f"Yours has {kept} item{'s' if kept > 1 else ''} for {wanted}: the first "
        f"{kept if kept > 1 else 'one'}, right, and none of the {wanted - kept} after "
        f"{'them' if kept > 1 else 'it'}."
    )
    if kept == 1:
        return (
            f"{observed} Only the first item comes back: something ends the work after one "
            "step. For instance a return inside the loop (indented under the for), or map or "
            "zip given a second iterable of one item (map(f, items, [default])): they walk "
            "their iterables in step and stop at the shortest. Pass a default inside the "
            "function (a lambda), not as a second iterable, and return after the loop."
        )
    if kept == wanted - 1:
        return (
            f"{observed} Only the last item is missing: a range or slice that stops one "
            "short (range(len(items) - 1), items[:-1]) does this. Go over every item."
        )
    return (
        f"{observed} Something ends the sequence early: a break or a return inside the "
        "loop, a length taken from another argument, or map or zip over a shorter second "
        "iterable (they stop at the shortest). Go over every item."
    )


def collapsed_runs(got: Any, expected: Any) -> str:
    """``got`` is ``expected`` with each run of equal consecutive items kept once (and
    shorter for it): that fact, with the first run shown; "" otherwise."""
    if not (isinstance(got, list | tuple) and isinstance(expected, list | tuple)):
        return ""
    if len(got) >= len(expected):
        return ""
    try:
        runs = [(item, len(list(run))) for item, run in groupby(expected)]
        collapsed = [item for item, _ in runs]
        if list(got) != collapsed:
            return ""
    except Exception:  # items that do not compare: no relation to state
        return ""
    item, length = next((item, n) for item, n in runs if n > 1)
    collapsed_message = (
        f"Yours has {len(got)} items for {len(expected)}: it is the right sequence with each "
        f"run of equal consecutive items kept once ({item!r}, {length} times in a row, came "
        "back once), as itertools.groupby, a test against the previous item, or merging "
        "repeats (CTC-style decoding) does. Return one item for every input item, repeats "
        "in a row included."
    )
    ends = [
        name
        for name, cut in (("last", list(expected[:-1])), ("first", list(expected[1:])))
        if list(got) == cut
    ]
    if ends:  # the only run sits at that end: a lost end item looks the same here
        return (
            f"{collapsed_message} (Or the {ends[0]} item alone is missing: on this input, "
            "whose only repeat sits at that end, both give the same result.)"
        )
    return collapsed_message


_KEY_FORMATS = (
    ("the digits of its items concatenated (str(a) + str(b))", lambda key: "".join(map(str, key))),
    ("the tuple written out (str(pair))", str),
    ("its items joined by a space", lambda key: " ".join(map(str, key))),
    ("its items joined by a comma", lambda key: ",".join(map(str, key))),
    ("its items joined by a comma and a space", lambda key: ", ".join(map(str, key))),
    ("its items joined by '-'", lambda key: "-".join(map(str, key))),
    ("its items joined by '_'", lambda key: "_".join(map(str, key))),
)


def keys_as_strings(got: Any, expected: Any) -> str:
    """Every key of ``got`` a string where ``expected``'s keys are tuples: that fact, and
    the format that turns each expected key into the learner's key when one does for every
    key (concatenated digits named with the collisions they make); "" otherwise."""
    if not (isinstance(got, dict) and isinstance(expected, dict)) or not got or not expected:
        return ""
    if not all(isinstance(k, str) for k in got) or not all(isinstance(k, tuple) for k in expected):
        return ""
    example = next(iter(expected))
    found = (
        f"Your keys are strings ({next(iter(got))!r}), not tuples such as {example}: a key is "
        "the tuple itself, counts[(a, b)], which keeps the two items apart and lets the "
        "caller read pair[0] and pair[1]."
    )
    for how, form in _KEY_FORMATS:
        try:
            formatted: dict[str, Any] = {}
            for key, value in expected.items():
                name = form(key)
                formatted[name] = formatted.get(name, 0) + value if name in formatted else value
        except Exception:  # a value that does not add up: try the next format
            continue
        if formatted == got:
            collision = (
                " Concatenated digits also collide: (1, 12) and (11, 2) both become '112'."
                if "concatenated" in how
                else ""
            )
            return f"{found} Each of yours is the key written as {how}.{collision}"
    return found
