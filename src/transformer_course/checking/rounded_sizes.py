"""A size rounded *up* where the exact one belongs: a length padded to a multiple of 8 (a
tokenizer's ``pad_to_multiple_of``, for tensor cores), to the next power of two (a bucket
size), or to a multiple of another block. Each member gives a size at least the right one
that agrees with it on some lengths and not on others; one wrong size fits several rules
(5 -> 8 is a multiple of 8 and a power of two) and a constant too (a width written in), so
:func:`rounded_up_size` asks the learner's code for the size on two more lengths and names
a rule only when it alone gives all three."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["rounded_up_size"]

#: the blocks code rounds sizes up to
_BLOCKS = (2, 4, 8, 16, 32, 64, 128)


def _rules() -> dict[str, Callable[[int], int]]:
    rules: dict[str, Callable[[int], int]] = {
        f"rounded up to a multiple of {block}": (lambda n, block=block: -(-n // block) * block)
        for block in _BLOCKS
    }
    rules["rounded up to the next power of two"] = lambda n: 1 << max(n - 1, 0).bit_length()
    return rules


def rounded_up_size(
    expected: int, got: int, size_of: Callable[[int], int | None], what: str = "size"
) -> str:
    """The sentence naming the rounding rule that turns ``expected`` into ``got`` and, for
    two more lengths n, gives ``size_of(n)`` (the learner's size when the right one is n;
    None when unknown); "" when no rule, or more than one, fits everything."""
    if not 0 < expected < got:
        return ""
    fitting = {name: rule for name, rule in _rules().items() if rule(expected) == got}
    if not fitting:
        return ""
    probes = (got + 1, 2 * got + 1)
    observed = {}
    for n in probes:
        size = size_of(n)
        if size is None:
            return ""
        observed[n] = size
    fitting = {
        name: rule for name, rule in fitting.items() if all(rule(n) == observed[n] for n in probes)
    }
    if len(fitting) != 1 or all(observed[n] == got for n in probes):
        return ""
    (name,) = fitting
    seen = " and ".join(f"{observed[n]} where {n} belongs" for n in probes)
    return (
        f"Your {what} is {got} where {expected} belongs: {expected} {name} (so is every "
        f"size it gives: {seen}), as padding to a multiple for speed (a tokenizer's "
        "pad_to_multiple_of) or a bucket size does. Use the exact size, with no rounding: "
        f"math.ceil or a // block * block has no place here."
    )
