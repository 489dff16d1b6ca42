"""Tables whose columns are the right functions in the wrong place: which known column each
column of a learner's table is, and how the learner's tables were cut from a wider one.

A table of functions of the position (lesson 03's sinusoidal encoding, lesson 11's RoPE cos
and sin tables) is often built from the right pieces and laid out wrongly: sines and
cosines interleaved where one table of each belongs, a wide table cut in halves where its
even and odd columns were meant, a feature order of another codebase. A value comparison
says "largest difference at index ...", and a property check says "cos ** 2 + sin ** 2 is
not 1", true but not what the code did. This module answers column by column:

* :func:`sinusoid_columns` names the reference functions, ``sin(m·θ_i)`` and
  ``cos(m·θ_i)`` for every frequency θ_i (float64);
* :func:`column_sources` says which of them each column of a learner's table equals
  (every one it equals, so that a caller can tell an unambiguous column from one that
  several functions fit on the rows checked);
* :func:`cut_from` tests whether the learner's tables are the pieces of one wider table
  (:func:`sinusoid_tables`: sines and cosines interleaved, or as halves) cut in halves or
  into its even and odd columns, in either order;
* :func:`describe_columns` and :func:`describe_cut` put either in words: "your cos table's
  column 0 is sin(m·theta_2), column 1 is cos(m·theta_2), ...".

A layout is named only where the caller's inputs leave one reading (every candidate is
tested as a whole table against the learner's, never guessed from one column).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

import numpy as np

from transformer_course.checking.formatting import as_numpy

__all__ = [
    "Cut",
    "column_sources",
    "cut_code",
    "cut_for",
    "cut_from",
    "describe_columns",
    "describe_cut",
    "sinusoid_columns",
    "sinusoid_tables",
]


def sinusoid_columns(positions: Any, theta: Any, angle: str = "m·theta") -> dict[str, np.ndarray]:
    """{"sin(m·θ_i)": column, "cos(m·θ_i)": column} for every frequency θ_i of ``theta``
    at ``positions`` (float64, each column (len(positions),)); ``angle`` is how the angle
    is written ("pos·w" for lesson 03's words)."""
    m = np.asarray(as_numpy(positions), dtype=np.float64)[:, None]  # (len, 1)
    angles = m * np.asarray(as_numpy(theta), dtype=np.float64)[None, :]  # (len, n)
    found: dict[str, np.ndarray] = {}
    for i in range(angles.shape[1]):
        found[f"sin({angle}_{i})"] = np.sin(angles[:, i])
        found[f"cos({angle}_{i})"] = np.cos(angles[:, i])
    return found


def sinusoid_tables(
    columns: Mapping[str, np.ndarray], count: int, angle: str = "m·theta"
) -> dict[str, tuple[np.ndarray, list[str]]]:
    """The wide tables of the first ``count`` frequencies' sines and cosines (2 · count
    columns) in the layouts learners build: {what the table is: (table (len, 2 · count),
    the names of its columns)}."""
    sines = [f"sin({angle}_{i})" for i in range(count)]
    cosines = [f"cos({angle}_{i})" for i in range(count)]
    layouts = {
        "a sinusoidal table with sines and cosines interleaved (lesson 03's layout: "
        f"sin({angle}_0), cos({angle}_0), sin({angle}_1), cos({angle}_1), ...)": [
            name for pair in zip(sines, cosines, strict=True) for name in pair
        ],
        "a sinusoidal table with cosines and sines interleaved "
        f"(cos({angle}_0), sin({angle}_0), cos({angle}_1), ...)": [
            name for pair in zip(cosines, sines, strict=True) for name in pair
        ],
        "a table of all the sines, then all the cosines (torch.cat([sin, cos], -1))": (
            sines + cosines
        ),
        "a table of all the cosines, then all the sines (torch.cat([cos, sin], -1))": (
            cosines + sines
        ),
    }
    return {
        what: (np.stack([columns[name] for name in names], axis=1), names)
        for what, names in layouts.items()
    }


def column_sources(
    table: Any, known: Mapping[str, np.ndarray], *, atol: float = 1e-4
) -> list[tuple[str, ...]]:
    """For every column of ``table`` (rows, columns): the names of the ``known`` columns
    (each (rows,)) it equals within ``atol``, all of them (an empty tuple: none)."""
    values = np.asarray(as_numpy(table), dtype=np.float64)
    if values.ndim != 2:
        return []
    found = []
    for j in range(values.shape[1]):
        column = values[:, j]
        found.append(
            tuple(
                name
                for name, reference in known.items()
                if reference.shape == column.shape and np.allclose(column, reference, atol=atol)
            )
        )
    return found


def _said(sources: tuple[str, ...]) -> str:
    if not sources:
        return "none of them"
    if len(sources) == 1:
        return sources[0]
    return " or ".join(sources[:2]) + (" or ..." if len(sources) > 2 else "")


def describe_columns(label: str, sources: Sequence[tuple[str, ...]], shown: int = 4) -> str:
    """ "your cos table's column 0 is sin(m·theta_0), column 1 is cos(m·theta_0), ..." for the
    first ``shown`` columns (with every function that fits, where several do)."""
    parts = [f"column {j} is {_said(names)}" for j, names in enumerate(sources[:shown])]
    more = ", ..." if len(sources) > shown else ""
    return f"{label}'s " + ", ".join(parts) + more


@dataclass(frozen=True)
class Cut:
    """The learner's tables as pieces of one wider table: ``whole`` (what it is),
    ``how`` ("halves" or "even_odd"), ``order`` (for each learner table, the index of the
    piece it is: 0 the first half or the even columns) and the names of each table's
    columns."""

    whole: str
    how: str
    order: tuple[int, ...]
    names: tuple[tuple[str, ...], ...]


def _pieces(whole: np.ndarray, how: str, count: int) -> list[np.ndarray]:
    if how == "halves":
        return np.split(whole, count, axis=1)
    return [whole[:, k::count] for k in range(count)]


def cut_from(
    tables: Sequence[Any],
    wholes: Mapping[str, tuple[np.ndarray, list[str]]],
    *,
    atol: float = 1e-4,
) -> list[Cut]:
    """Every way the learner's ``tables`` (each (rows, c)) are the pieces of one of
    ``wholes`` ({what: (table (rows, len(tables) · c), its column names)}) cut in equal
    consecutive pieces ("halves") or into every len(tables)-th column ("even_odd"), in
    any order."""
    got = [np.asarray(as_numpy(t), dtype=np.float64) for t in tables]
    if not got or any(g.ndim != 2 or g.shape != got[0].shape for g in got):
        return []
    count, width = len(got), got[0].shape[1]
    found = []
    for what, (whole, names) in wholes.items():
        if whole.shape != (got[0].shape[0], count * width):
            continue
        labels = np.asarray(names, dtype=object)[None, :]
        for how in ("halves", "even_odd"):
            pieces = _pieces(whole, how, count)
            named = _pieces(labels, how, count)
            for order in permutations(range(count)):
                if all(
                    np.allclose(g, pieces[k], atol=atol) for g, k in zip(got, order, strict=True)
                ):
                    found.append(Cut(what, how, order, tuple(tuple(named[k][0]) for k in order)))
    return found


def describe_cut(cut: Cut, labels: Sequence[str], shown: int = 3) -> str:
    """The learner's tables as pieces of ``cut.whole``, in words: which piece each table
    (``labels``, as "your sin table") is, and its first ``shown`` columns."""
    if cut.how == "halves":
        piece = ("first half", "second half", "third part", "fourth part")
        how = "cut in two (chunk(2, dim=-1), or slices up to and from its middle)"
    else:
        piece = ("even columns", "odd columns", "columns 2::4", "columns 3::4")
        how = "cut into its even and odd columns ([:, 0::2] and [:, 1::2])"
    tables = [
        f"{label} is its {piece[k]} ("
        + ", ".join(names[:shown])
        + (", ...)" if len(names) > shown else ")")
        for label, k, names in zip(labels, cut.order, cut.names, strict=True)
    ]
    return f"{cut.whole}, {how}: " + "; ".join(tables)


def cut_for(names: Sequence[str], wanted: Sequence[Sequence[str]], whole: str = "") -> Cut | None:
    """The way to cut a wide table whose columns are ``names`` into tables whose columns
    are ``wanted`` (one list of names per table), if one of the cuts does."""
    count = len(wanted)
    labels = np.asarray(list(names), dtype=object)[None, :]
    if labels.shape[1] != sum(len(w) for w in wanted):
        return None
    for how in ("halves", "even_odd"):
        named = [tuple(piece[0]) for piece in _pieces(labels, how, count)]
        for order in permutations(range(count)):
            if all(named[k] == tuple(w) for w, k in zip(wanted, order, strict=True)):
                return Cut(whole, how, order, tuple(named[k] for k in order))
    return None


def cut_code(cut: Cut, labels: Sequence[str], table: str = "table") -> str:
    """The code that makes ``cut`` of ``table`` into the tables ``labels`` (two of them):
    "cos, sin = table.chunk(2, dim=-1)", "cos, sin = table[:, 1::2], table[:, 0::2]"."""
    if cut.how == "halves":
        in_order = [label for _, label in sorted(zip(cut.order, labels, strict=True))]
        return f"{', '.join(in_order)} = {table}.chunk({len(labels)}, dim=-1)"
    count = len(labels)
    slices = ", ".join(f"{table}[:, {k}::{count}]" for k in cut.order)
    return f"{', '.join(labels)} = {slices}"
