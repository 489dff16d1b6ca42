"""A counter a learner's stateful code keeps (a cache's length, a position passed as
``start``, a step number), read as an update rule.

Such a counter goes wrong as one family: it is advanced by the wrong quantity (one per call
instead of the n positions of the call, an axis size, the whole length so far, nothing),
or set to a quantity where it should be advanced. :func:`matching_updates` takes the
values the learner's counter had after each call and, for each call, the quantities it
might have been advanced by (or set to), and returns every rule that reproduces *every*
value: the checks name a rule only when it is the only one left, and probe with sizes that
all differ so that one is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def matching_updates(
    observed: Sequence[int], quantities: Sequence[Mapping[str, int]], initial: int = 0
) -> list[tuple[str, str]]:
    """The update rules that reproduce a counter's values.

    ``observed[i]``: the counter after call i (its value before call 0 is ``initial``);
    ``quantities[i]``: name -> value of each quantity call i might add (the same names on
    every call). Returns ``("add", name)`` for each name whose value, added on every call
    from ``initial``, gives every observed value, then ``("set", name)`` for each name
    whose value on every call *is* the observed one; [] when none fits, or when nothing
    was observed. A constant 0 among the quantities is the counter that never moves.
    """
    if not observed or len(quantities) < len(observed):
        return []
    names = list(quantities[0])
    rules: list[tuple[str, str]] = []
    for name in names:
        value, fits = initial, True
        for got, sizes in zip(observed, quantities, strict=False):
            value += sizes[name]
            if got != value:
                fits = False
                break
        if fits:
            rules.append(("add", name))
    for name in names:
        if all(got == sizes[name] for got, sizes in zip(observed, quantities, strict=False)):
            rules.append(("set", name))
    return rules
