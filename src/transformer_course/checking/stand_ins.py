"""Evidence that a function used one of its arguments in place of another, or never used
one: the learner's function is run on probes whose arguments all have one shape (so any
argument fits where another belongs), and its results are compared with the reference's
on the same probe with one argument replaced by another (q where k belongs: q @ qᵀ; the
values where the keys belong: values @ query). An argument whose every replacement leaves
the results unchanged was never read (a global used instead, a typo).

Only run after a call already failed (each probe is one more call of the learner's
code); any exception in a probe means no evidence, and the caller's message stays."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

__all__ = ["ignored_arguments", "stand_in_sentence", "stand_ins"]


def _as_arrays(result: Any) -> list[np.ndarray] | None:
    """The tensors or arrays of a result (one, or a tuple/list of them) as float64 numpy
    arrays; None for anything else."""
    items = result if isinstance(result, tuple | list) else (result,)
    arrays = []
    for item in items:
        if isinstance(item, torch.Tensor):
            arrays.append(item.detach().cpu().double().numpy())
        elif isinstance(item, np.ndarray) and np.issubdtype(item.dtype, np.number):
            arrays.append(item.astype(np.float64))
        else:
            return None
    return arrays


def _same(first: Any, second: Any) -> bool:
    """Whether two results hold the same arrays, shape for shape and value for value
    (NaN where NaN), within a float32 tolerance."""
    a, b = _as_arrays(first), _as_arrays(second)
    return (
        a is not None
        and b is not None
        and len(a) == len(b)
        and all(
            x.shape == y.shape and np.allclose(x, y, rtol=1e-4, atol=1e-5, equal_nan=True)
            for x, y in zip(a, b)
        )
    )


def _copy(value: Any) -> Any:
    return value.clone() if isinstance(value, torch.Tensor) else np.array(value, copy=True)


def _run(fn: Callable, args: Sequence[Any]) -> Any:
    """``fn`` on copies of ``args``, quietly, without gradients, with torch's random state
    restored afterwards; None when it raises."""
    try:
        with (
            contextlib.redirect_stdout(io.StringIO()),
            torch.no_grad(),
            torch.random.fork_rng(devices=[]),
        ):
            torch.manual_seed(0)
            return fn(*(_copy(a) for a in args))
    except Exception:  # a probe: no evidence
        return None


def stand_ins(
    fn: Callable, reference: Callable, probes: Sequence[Sequence[Any]], names: Sequence[str]
) -> list[tuple[str, str]]:
    """The pairs (argument, stand-in) such that on every probe (positional arguments of
    one shape, named ``names``) ``fn``'s results are the reference's with the argument
    replaced by the stand-in, and differ from the reference's own (the probe tells them
    apart). Several pairs when the probes cannot tell them apart; [] when none fits."""
    found = []
    for i, argument in enumerate(names):
        for j, stand_in in enumerate(names):
            if i == j:
                continue
            fits = True
            for probe in probes:
                mine = _run(fn, probe)
                replaced = list(probe)
                replaced[i] = probe[j]
                wanted = _run(reference, replaced)
                if (
                    mine is None
                    or wanted is None
                    or _same(mine, _run(reference, probe))
                    or not _same(mine, wanted)
                ):
                    fits = False
                    break
            if fits:
                found.append((argument, stand_in))
    return found


def ignored_arguments(
    fn: Callable,
    reference: Callable,
    probe: Sequence[Any],
    others: Sequence[Any],
    names: Sequence[str],
) -> list[str]:
    """The arguments whose replacement by its counterpart in ``others`` (same shape, other
    values) leaves ``fn``'s results unchanged where the reference's change: the function
    never reads them. [] when none (or when ``fn`` raises on the probe)."""
    mine = _run(fn, probe)
    right = _run(reference, probe)
    if mine is None or right is None:
        return []
    ignored = []
    for i, name in enumerate(names):
        changed = list(probe)
        changed[i] = others[i]
        again, moved = _run(fn, changed), _run(reference, changed)
        if (
            again is not None
            and moved is not None
            and _same(mine, again)
            and not _same(right, moved)
        ):
            ignored.append(name)
    return ignored


def stand_in_sentence(pairs: Sequence[tuple[str, str]], shown: Callable[[str, str], str]) -> str:
    """One sentence for the pairs :func:`stand_ins` found: each pair as ``shown(argument,
    stand_in)`` (the line that reads so), joined with "or" when the probes could not tell
    them apart; "" for none."""
    if not pairs:
        return ""
    readings = [
        f"{stand_in} where {argument} belongs ({shown(argument, stand_in)})"
        for argument, stand_in in pairs
    ]
    return (
        "your results are exactly what the correct code gives with "
        + " or with ".join(readings)
        + (": the probes the check ran cannot tell these apart" if len(pairs) > 1 else "")
    )
