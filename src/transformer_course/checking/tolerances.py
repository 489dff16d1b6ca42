"""Tolerances for comparing floating-point values, by dtype."""

from __future__ import annotations

from typing import Any

__all__ = ["tolerance"]


_TOLERANCES = {  # dtype name -> (rtol, atol)
    "float64": (1e-6, 1e-9),
    "float32": (1e-4, 1e-5),
    "float16": (1e-2, 1e-3),
    "bfloat16": (2e-2, 1e-2),
}


def tolerance(*dtypes: Any) -> dict[str, float]:
    """``{"rtol": ..., "atol": ...}`` fitting the least precise of ``dtypes``.

    Pass the dtype of the learner's result (and of the inputs): a float32 answer
    is compared with float32 tolerances even where the reference works in float64.
    """
    worst = (1e-6, 1e-9)
    for dtype in dtypes:
        name = str(dtype).replace("torch.", "")
        worst = max(worst, _TOLERANCES.get(name, (1e-6, 1e-9)))
    return {"rtol": worst[0], "atol": worst[1]}
