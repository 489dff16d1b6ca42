"""A pairwise result off by a factor made of per-row and per-column quantities.

Many results are an (n, m) table of pairs, entry (i, j) a formula of row i of one input
and row j of another: a cosine a[i]·b[j] / (|a[i]| |b[j]|), a scaled score, a distance. A
slip in the formula's scale (one length copied where another belongs, a length squared,
a row's length taken at the column's index) leaves the learner's table equal to the right
one times a product of powers of per-row and per-column quantities::

    got[i, j] = expected[i, j] * prod_k row_k[i] ** p_k * prod_l col_l[j] ** q_l

The powers are read by least squares on the logarithms of got / expected, over the entries
where both are clearly nonzero and of one sign, rounded to halves, and kept only when they
reproduce ``got`` to the tolerance and the quantities' logarithms are far from collinear
(else several readings fit the same numbers): a fact about the inputs the check ran.
Give a quantity of the other axis at this axis's index (|a[j]| as a column quantity,
when n == m) to tell a length read at the wrong index from the right one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .formatting import as_numpy

__all__ = ["pair_factors"]


def pair_factors(
    got: Any,
    expected: Any,
    rows: Mapping[str, Any],
    cols: Mapping[str, Any],
    *,
    rtol: float = 1e-4,
    atol: float = 1e-6,
) -> dict[str, float] | None:
    """{quantity: power} (nonzero powers only, halves) with ``got`` = ``expected`` times
    the product of each row quantity (length n, indexed by i) and column quantity (length
    m, indexed by j) to its power; None when no such product fits, when the quantities
    cannot be told apart on these inputs, or when every power is 0 (``got`` is right)."""
    try:
        values = as_numpy(got).astype(np.float64)
        right = as_numpy(expected).astype(np.float64)
        if values.ndim != 2 or values.shape != right.shape:
            return None
        n, m = right.shape
        logs = []
        for name, quantity in rows.items():
            q = np.abs(as_numpy(quantity).astype(np.float64).reshape(-1))
            if q.shape != (n,) or not (q > 0).all():
                return None
            logs.append((name, np.broadcast_to(np.log(q)[:, None], (n, m))))
        for name, quantity in cols.items():
            q = np.abs(as_numpy(quantity).astype(np.float64).reshape(-1))
            if q.shape != (m,) or not (q > 0).all():
                return None
            logs.append((name, np.broadcast_to(np.log(q)[None, :], (n, m))))
        usable = (
            np.isfinite(values)
            & (np.abs(right) > 1e-6)
            & (np.abs(values) > 1e-12)
            & (values * right > 0)
        )
        if usable.sum() < len(logs) + 2:
            return None
        design = np.stack([column[usable] for _, column in logs], axis=1)  # (pairs, k)
        # every quantity must vary, and none may be (nearly) a combination of the others
        centred = design - design.mean(axis=0, keepdims=True)
        singular = np.linalg.svd(centred, compute_uv=False)
        if singular.min() < 0.05 * max(singular.max(), 1e-12):
            return None
        target = np.log(values[usable] / right[usable])
        # no constant term: a stray constant factor is a mistake of another kind
        fitted = np.linalg.lstsq(design, target, rcond=None)[0]
        powers = [float(np.round(2 * p) / 2) for p in fitted]
        if all(p == 0 for p in powers):
            return None
        factor = np.exp(sum(p * column for p, (_, column) in zip(powers, logs, strict=True)))
        if not np.allclose(values, right * factor, rtol=rtol, atol=atol):
            return None
        return {name: p for p, (name, _) in zip(powers, logs, strict=True) if p != 0}
    except Exception:  # odd values: no reading
        return None
