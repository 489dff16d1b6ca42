"""Which of a token's features a per-token statistic was taken over.

The family: a normaliser (RMSNorm's root mean square, LayerNorm's mean and variance) whose
statistic is computed from *some* of the features, not all ``d_model`` of them: the
partial RMSNorm (pRMSNorm) of the RMSNorm paper (the first p % of the features), a slice
off by one (``x[..., :-1]``, ``x[..., 1:]``), every other feature (``x[..., ::2]``). The
output keeps the normaliser's form (x divided by one number per token), so "that number is
not the root mean square" is all a plain comparison says.

:func:`feature_subset` recomputes the statistic over each such subset of the features (the
first k, the last k, the even or odd positions) and returns the one subset, in words, whose
statistic reproduces the learner's number for every token; "" when none does or several do
(the tokens cannot tell them apart)."""

from __future__ import annotations

from collections.abc import Callable

import torch

__all__ = ["feature_subset", "feature_subsets"]


def feature_subsets(d_model: int) -> list[tuple[str, slice]]:
    """(words, slice of the last axis) for every strict subset tried: the first k and the
    last k features (k = 1 .. d_model - 1), the even and the odd positions."""
    subsets = []
    for k in range(1, d_model):
        share = f", {100 * k / d_model:.3g} % of them" if k < d_model / 2 else ""
        subsets.append(
            (f"the first {k} of the {d_model} features (x[..., :{k}]{share})", slice(0, k))
        )
        subsets.append(
            (
                f"the last {k} of the {d_model} features (x[..., {d_model - k}:]{share})",
                slice(d_model - k, d_model),
            )
        )
    if d_model >= 4:
        subsets.append(("every other feature, the even ones (x[..., ::2])", slice(0, None, 2)))
        subsets.append(("every other feature, the odd ones (x[..., 1::2])", slice(1, None, 2)))
    return subsets


def feature_subset(
    target: torch.Tensor,
    x: torch.Tensor,
    statistic: Callable[[torch.Tensor], torch.Tensor],
    *,
    rtol: float = 1e-3,
    atol: float = 1e-6,
) -> str:
    """The words for the one strict subset of x's last axis over which ``statistic`` (a
    function of the selected features, (..., k) -> (..., 1)) gives ``target`` (..., 1) for
    every token; "" when none or several do, or when the whole vector does too."""
    x = x.double()
    target = target.double()
    d_model = x.shape[-1]
    if d_model < 2 or torch.allclose(statistic(x), target, rtol=rtol, atol=atol):
        return ""
    found = [
        words
        for words, part in feature_subsets(d_model)
        if torch.allclose(statistic(x[..., part]), target, rtol=rtol, atol=atol)
    ]
    return found[0] if len(found) == 1 else ""
