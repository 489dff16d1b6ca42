"""Weights made from scores one by one instead of by a softmax over them: a sigmoid gate
per key (1 / (1 + exp(-s))), tanh, ReLU, softplus. Each gives values in its own range, not
a distribution: a check tries them as known mistakes (named only when the learner's
weights agree with one), with the scores it computed itself."""

from __future__ import annotations

import numpy as np

__all__ = ["elementwise_gates"]

#: name -> (the function, how it is written)
_GATES = {
    "the logistic sigmoid": (lambda s: 1.0 / (1.0 + np.exp(-s)), "1 / (1 + exp(-s))"),
    "tanh": (np.tanh, "np.tanh(s)"),
    "ReLU": (lambda s: np.maximum(s, 0.0), "np.maximum(s, 0)"),
    "softplus": (lambda s: np.log1p(np.exp(s)), "log(1 + exp(s))"),
}


def elementwise_gates(scores, *, what: str, axis_name: str) -> dict[str, np.ndarray]:
    """{message: weights} for each elementwise function of ``scores`` (described by
    ``what``, e.g. "the scaled scores") used where a softmax over ``axis_name`` belongs."""
    s = np.asarray(scores, dtype=np.float64)
    found = {}
    with np.errstate(all="ignore"):
        for name, (gate, written) in _GATES.items():
            found[
                f"Your weights are {name} of {what}, {written} for each score s, instead of "
                f"the softmax over the {axis_name}: each weight is computed on its own, so "
                f"they do not add up to 1 and the output is not a weighted average. Turn "
                f"{what} into weights with your softmax, which divides each exp(s) by the "
                f"sum over the {axis_name}."
            ] = gate(s)
    return found
