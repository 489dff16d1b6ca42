"""A formula right on paper that loses its precision in float32.

Some formulas equal the right one in exact arithmetic and differ in floating point: the
variance as E[x²] - E[x]² (the mean of the squares minus the squared mean) cancels
catastrophically when a token's mean is large next to its spread, a softmax without its
maximum subtracted overflows, a log of a product underflows. Ordinary inputs and float64
hide them (blind12n-ln-variance-from-second-moment passed every check). A check that
gives an input built to expose such a loss, and sees a wrong float32 result, runs the
learner's module once more in float64 (a deep copy, the same weights): when that result
is right, the code computes the right function and its arithmetic is what fails, which
:func:`right_in_float64` tells.

A module that cannot be copied or cast (the grader's proxies) gives None: no claim.
"""

from __future__ import annotations

import contextlib
import copy
import io
from typing import Any

import torch

__all__ = ["right_in_float64"]


def right_in_float64(
    module: Any, args: tuple, expected: torch.Tensor, *, rtol: float = 1e-6, atol: float = 1e-8
) -> bool | None:
    """Whether a float64 copy of ``module`` called on ``args`` cast to float64 gives
    ``expected`` (float64); None when the copy cannot be made or called, or gives no
    tensor."""
    try:
        double = copy.deepcopy(module).double()
        cast = tuple(
            a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args
        )
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            out = double(*cast)
    except Exception:  # the learner's code, or a module that cannot be copied: no claim
        return None
    if not isinstance(out, torch.Tensor) or out.shape != expected.shape:
        return None
    return bool(torch.allclose(out.double(), expected, rtol=rtol, atol=atol))
