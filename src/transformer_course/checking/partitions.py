"""How a list of n items was cut into batches, read off what came back: the sizes of the
pieces (the rule that gives them) and the order the items were dealt into them.

The contract of every exercise that cuts data into batches (lesson 10's ``make_batches``,
lesson 11's batches of token windows) is the same: in order, consecutive pieces of ``size``
items, the last one holding the rest. A learner's loop goes wrong as one family, whatever
its code: the number of pieces counted with floor division and the rest merged into the
last piece, the rest put first, the items spread evenly over the pieces (``np.array_split``
/ ``torch.tensor_split`` given a count), or the items dealt round-robin (``order[b::k]``,
a reshape read by columns), the whole order or the pieces' order reversed, the items
sorted by a key. :func:`size_rule` names the rule behind a list of sizes, :func:`order_rule`
the way the items were dealt; each returns a sentence for a check's message, "" when no
rule of the family gives exactly what came back (then nothing is claimed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["order_rule", "right_pieces", "size_rule"]


def right_pieces(n: int, size: int) -> list[list[int]]:
    """The contract's pieces of range(n): consecutive, ``size`` items each, the rest last."""
    return [list(range(start, min(start + size, n))) for start in range(0, n, size)]


def _balanced(n: int, count: int) -> list[int]:
    """The sizes np.array_split(range(n), count) gives: the larger pieces first."""
    base, extra = divmod(n, count)
    return [base + 1] * extra + [base] * (count - extra)


def _size_rules(n: int, size: int) -> dict[str, list[int]]:
    """Each slip's sizes for n items and pieces of ``size``, by what the slip does."""
    full, rest = divmod(n, size)
    ceil = -(-n // size)
    rules: dict[str, list[int]] = {}
    if full and rest:
        rules[
            f"len // size = {full} pieces, the {rest} left over merged into the last one "
            f"(a count by floor division, the last piece taking items[k * size :])"
        ] = [size] * (full - 1) + [size + rest]
        rules[
            f"the {rest} left over put first, then pieces of {size} (the slices counted "
            "back from the end)"
        ] = [rest] + [size] * full
        rules[
            f"the items spread evenly over ceil(len / size) = {ceil} pieces "
            f"(np.array_split or torch.tensor_split given the number of pieces, {ceil}, "
            f"which makes pieces of about len / {ceil} instead of {size})"
        ] = _balanced(n, ceil)
        if full > 1:
            rules[
                f"the items spread evenly over len // size = {full} pieces "
                f"(np.array_split or torch.tensor_split given the count {full})"
            ] = _balanced(n, full)
    return rules


def size_rule(sizes: Sequence[int], n: int, size: int) -> str:
    """The rule that gives exactly these piece sizes for n items cut into pieces of
    ``size`` (in the order the pieces came), as a clause for a check's message: "" when the
    sizes are the contract's, or no rule of the family gives them. Sizes that two rules give
    alike name both."""
    sizes = list(sizes)
    if sizes == [len(piece) for piece in right_pieces(n, size)]:
        return ""
    found = [what for what, wanted in _size_rules(n, size).items() if wanted == sizes]
    return "; or ".join(found)


def order_rule(
    contents: Sequence[Sequence[int]],
    n: int,
    size: int,
    keys: dict[str, Callable[[int], object]] | None = None,
) -> str:
    """How items 0 .. n - 1 were dealt into these pieces (each a list of item indices, every
    item once), when the contract keeps them in order in consecutive pieces of ``size``: a
    clause that names the dealing (round-robin, reversed, pieces reversed, rows reversed
    within each piece, sorted by one of ``keys``: name -> key of an item), "" when none of
    them gives exactly these pieces (or the pieces are the contract's)."""
    contents = [list(piece) for piece in contents]
    right = right_pieces(n, size)
    if contents == right or sorted(i for piece in contents for i in piece) != list(range(n)):
        return ""
    count = len(right)
    found = []
    if count > 1 and contents == [list(range(b, n, count)) for b in range(count)]:
        found.append(
            f"the items dealt round-robin: piece b holds items b, b + {count}, b + "
            f"{2 * count}, ... (items[b::{count}], the number of pieces as the step, or a "
            "reshape to (size, pieces) read by columns) instead of a run of consecutive ones"
        )
    if contents == right_pieces(n, size)[::-1]:
        found.append("the right pieces in reverse order (the last piece first)")
    if contents == [[n - 1 - i for i in piece] for piece in right]:
        found.append("the items in reverse order (items[::-1]) before the cut")
    if contents == [piece[::-1] for piece in right]:
        found.append("each piece's items in reverse order")
    for name, key in (keys or {}).items():
        for descending in (False, True):
            order = sorted(range(n), key=key, reverse=descending)
            if contents == [[order[i] for i in piece] for piece in right]:
                found.append(
                    f"the items sorted by {name}, {'largest' if descending else 'smallest'} "
                    "first, before the cut"
                )
    return "; or ".join(found)
