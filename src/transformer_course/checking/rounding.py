"""Values rounded to whole numbers where real numbers belong: floor division ``//``
(``a // b`` is ``floor(a / b)`` on floats too), a cast to int (truncation toward zero),
``round``. Each member gives the right formula with one intermediate rounded its own way;
:func:`rounded_variants` lists them for a check to match the learner's result against
(on inputs with negative values, floor and truncation differ).
"""

from __future__ import annotations

import numpy as np

__all__ = ["rounded_variants"]


def rounded_variants(x: np.ndarray) -> dict[str, np.ndarray]:
    """``x`` rounded the ways code rounds by mistake, by description."""
    x = np.asarray(x, dtype=np.float64)
    return {
        "rounded down to whole numbers: a floor division // (a // b is floor(a / b), on "
        "floats too) where a true division / belongs": np.floor(x),
        "truncated toward zero: a cast to int (int(...), .astype(int)) where the value "
        "stays a float": np.trunc(x),
        "rounded to the nearest whole number (round, np.round) where the value stays "
        "as it is": np.round(x),
    }
