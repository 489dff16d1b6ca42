"""How a sequence of numbers grows: by a constant step (linear, evenly spaced, what
``np.linspace`` or ``np.arange`` gives) or by a constant factor (geometric, what a power
``base ** (k / n)`` or ``np.logspace`` gives).

A learner's frequencies, wavelengths or scales are often read back from their output
(each pair's angle at position 1, each head's slope); how the read values grow names the
formula that made them, where the right one grows the other way. Three values at least:
two values are both linear and geometric.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["series_kind"]


def series_kind(values: Sequence[float], *, rtol: float = 1e-4) -> tuple[str, float] | None:
    """("linear", step) when consecutive ``values`` differ by one constant nonzero step,
    ("geometric", factor) when they are all of one sign and each is one constant factor
    (not 1) times the one before; None otherwise, or for fewer than three finite values."""
    try:
        x = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        return None
    if x.size < 3 or not np.isfinite(x).all():
        return None
    steps = np.diff(x)
    scale = max(float(np.abs(x).max()), 1e-300)
    if abs(steps[0]) > rtol * scale and np.allclose(steps, steps[0], rtol=rtol, atol=rtol * scale):
        return "linear", float(steps[0])
    if (x > 0).all() or (x < 0).all():
        ratios = x[1:] / x[:-1]
        if abs(ratios[0] - 1) > rtol and np.allclose(ratios, ratios[0], rtol=rtol, atol=0):
            return "geometric", float(ratios[0])
    return None
