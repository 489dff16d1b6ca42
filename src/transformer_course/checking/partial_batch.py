"""A step applied to part of a batch: the first sequences of the result are right and the
others are what the step would leave them without it (the input itself, unchanged; or, for
two sequences or more, the right values times one constant: a scale that reached part of
the batch). Code that
indexes one sequence ([0], [:1]) or a loop that stops early does that. Only said when
every wrong sequence is explained the same way, so that a mistake that merely shows on some
sequences (their padding, their length) is not taken for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["partial_batch_sentence"]


def _plural(items: list[int], noun: str) -> str:
    listed = ", ".join(map(str, items))
    return f"{noun}s {listed} are" if len(items) > 1 else f"{noun} {listed} is"


def _as_array(value: Any) -> np.ndarray | None:
    try:
        if hasattr(value, "detach"):
            return value.detach().cpu().double().numpy()
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            return value.astype(np.float64)
    except Exception:
        return None
    return None


def partial_batch_sentence(
    got: np.ndarray,
    expected: np.ndarray,
    arguments: Sequence[tuple[str, Any]] = (),
    *,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> str:
    """The sentence when the batch elements (axis 0) of ``got`` split into right ones and
    wrong ones that are all the same named argument's elements unchanged (``arguments``:
    (name, value) of the call), or all the right values times one constant; else ""."""
    try:
        if got.shape != expected.shape or got.ndim < 2 or got.shape[0] < 2:
            return ""
        right = [
            b
            for b in range(got.shape[0])
            if np.allclose(got[b], expected[b], rtol=rtol, atol=atol, equal_nan=True)
        ]
        wrong = [b for b in range(got.shape[0]) if b not in right]
        # the first k right, the rest wrong: what [0], [:k] or a loop stopped early give (a
        # mistake that shows on some sequences only, by their padding, has no such order)
        if not right or not wrong or right != list(range(len(right))):
            return ""
        untouched = ""
        for name, value in arguments:
            array = _as_array(value)
            if array is not None and array.shape == got.shape:
                if all(np.allclose(got[b], array[b], rtol=rtol, atol=atol) for b in wrong):
                    untouched = f"exactly the {name} you were given, unchanged"
                    break
        if not untouched:
            # one constant for two sequences or more: a factor that depends on each
            # sequence (its number of pads) would differ between them
            if len(wrong) < 2:
                return ""
            ratios = []
            for b in wrong:
                nonzero = np.abs(expected[b]) > 1e-6
                if not nonzero.any():
                    return ""
                ratio = got[b][nonzero] / expected[b][nonzero]
                if float(np.ptp(ratio)) > 1e-4 * max(1.0, float(np.abs(ratio).max())):
                    return ""
                ratios.append(float(ratio.mean()))
            if (
                max(ratios) - min(ratios) > 1e-4 * max(1.0, abs(ratios[0]))
                or abs(ratios[0] - 1.0) < 1e-4
            ):
                return ""
            untouched = f"the right values times {ratios[0]:.4g}"
        return (
            f"In your result, batch {_plural(right, 'element')} right, but "
            f"{_plural(wrong, 'element')} {untouched}: a step of your code reached only part "
            "of the batch (an index such as [0] or [:1], or a loop over the sequences that "
            "stops early). Apply every step to the whole batch, axis 0 included."
        )
    except Exception:
        return ""
