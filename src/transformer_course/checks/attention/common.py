"""Lesson 04's shared check machinery: the tolerance of an attention output, and the
explanations that more than one check gives (the softmax's overflow, the scale applied after
it). Its names keep their underscore: they are private to the package (its modules import
them; tests do not).
"""

from __future__ import annotations

import numpy as np
import torch

from transformer_course.checking import (
    tolerance,
)


def _output_tolerance(*dtypes, values) -> dict[str, float]:
    """The tolerance for an attention output: a weighted average of the value rows, so
    an absolute error in proportion to the size of the values is rounding, not a mistake
    (outputs near 0 come from large terms that cancel)."""
    tol = tolerance(*dtypes)
    if isinstance(values, torch.Tensor):
        values = values.detach().double().numpy()
    scale = float(np.abs(np.asarray(values, dtype=np.float64)).max(initial=0.0))
    return {"rtol": tol["rtol"], "atol": max(tol["atol"], tol["rtol"] * scale)}


_SOFTMAX_OVERFLOW = (
    "np.exp(1000.0) overflows to inf, and inf / inf is NaN. Subtract the maximum of each "
    "slice before exponentiating: m = np.max(x, axis=axis, keepdims=True), then "
    "np.exp(x - m). This changes nothing mathematically (softmax(x) = softmax(x - c) for "
    "any constant c per slice), and the largest exponent becomes exp(0) = 1."
)


#: the scale applied to the weights, after the softmax, instead of to the scores
_SCALED_AFTER_SOFTMAX = (
    "Your weights are softmax({scores}) divided by √d_k = √{d_k} afterwards: the scaling "
    "went after the softmax, so each row of weights adds up to 1/√d_k = {total:.4g} instead "
    "of 1. Scale the scores, before the softmax: softmax({scores} / √d_k)."
)
