"""A scale applied on the wrong side of an affine step: the input multiplied by ``c`` before
``W x + b`` gives ``c W x + b``, not ``c (W x + b)``: the bias escapes the scale.

Attention's 1/sqrt(d_head) may be folded into the queries (or the keys) instead of the
scores, which is right when it multiplies the *projected* queries, ``w_q(query) * c``, and
wrong when it multiplies the raw input, ``w_q(query * c)``, or the weight alone: the
scores become ``(c W q + b) . k`` instead of ``(W q + b) . k * c``. The two agree only when
the bias is zero, so the check's layers must have a bias for the inputs to tell them apart.
The same slip on the keys' side, ``w_k(key * c)``, is *not* a mistake for the weights: the
unscaled bias adds ``q . b_k`` to every score of a query, the same for every key, which
the softmax cancels; so only the queries' projection is a candidate alone, and the keys'
only together with the queries' (the scale split between both inputs).

:func:`scaled_before_projection` gives, for an oracle that takes a parameter dict, the
states that reproduce each placement (the projection's weight multiplied by the factor,
its bias kept: the same as scaling its input), each with the message that names it; the
check runs its own oracle on them with the scores left unscaled and names the placement
that agrees with the learner's module on every input it ran. The candidates are built from
the check's own parameters, never the learner's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

__all__ = ["scaled_before_projection"]

#: the projections whose input may be scaled, and what that input is
_INPUTS = {"w_q": "query", "w_k": "key", "w_v": "value"}


def _scaled(state: Mapping[str, torch.Tensor], name: str, factor: float) -> dict:
    out = dict(state)
    out[f"{name}.weight"] = state[f"{name}.weight"] * factor
    return out


def scaled_before_projection(
    state: Mapping[str, torch.Tensor],
    factor: float,
    *,
    factor_text: str = "1 / sqrt(d_head)",
    projections: Sequence[str] = ("w_q",),
    split: Sequence[str] = ("w_q", "w_k"),
) -> dict[str, dict]:
    """{message: a parameter dict} for the scale ``factor`` applied to the input of one
    projection in ``projections`` (its weight scaled, its bias not), and for sqrt(factor)
    applied to the inputs of both of ``split`` (the scale split between the queries and
    the keys, each input scaled): the scores are then to be left unscaled. Projections without
    a bias in ``state`` are left out (there the placement changes nothing)."""
    found: dict[str, dict] = {}

    def biased(names: Sequence[str]) -> list[str]:
        return [n for n in names if f"{n}.bias" in state and f"{n}.weight" in state]

    for name in biased(projections):
        what = _INPUTS.get(name, name)
        found[
            f"Your scores are ({name}({what} * c)) . k, c = {factor_text}: the scale multiplies "
            f"the raw `{what}` before {name} (or {name}'s weight alone), so {name}'s bias is "
            f"not scaled: (W {what} * c + b) where (W {what} + b) * c belongs. Folding the "
            "scale into a projection is right only after it: "
            f"{name}({what}) * c, or divide the scores q @ kᵀ by sqrt(d_head)."
        ] = _scaled(state, name, factor)
    if len(split) == 2 and all(f"{n}.weight" in state for n in split) and biased(split[:1]):
        a, b = split
        half = abs(factor) ** 0.5
        state2 = _scaled(_scaled(state, a, half), b, half)
        found[
            f"Your scores are {a}(`{_INPUTS.get(a, a)}` * sqrt(c)) . {b}(`{_INPUTS.get(b, b)}` "
            f"* sqrt(c)), c = {factor_text}: the scale is split between the two inputs before "
            f"their projections, so neither bias is scaled. Scale after the projections (or "
            "divide the scores q @ kᵀ by sqrt(d_head))."
        ] = state2
    return found
