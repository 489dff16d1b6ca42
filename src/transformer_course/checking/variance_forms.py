"""What a normalisation divided by, read back from its output: a per-token normalisation
``weight · (x - mean) / sqrt(v + eps) + bias`` whose centring is right gives, token by
token, the divisor sqrt(v + eps), hence the v the learner's code used. That v, over many
tokens of a probe with means and spreads spread apart, is written as the fewest terms of
the token's moments (E[x²], E[x]², E[x], the variance, 1) that reproduce it: the variance
computed as E[x²] - E[x] (the mean never squared), as E[x²] alone (the mean never
subtracted), as E[x]², ... is then a fact observed on every token, whatever code made it
(blind27b-ln-variance-mean-not-squared was told only that a NaN appeared).

Tokens whose output is NaN are left out of the fit and reported: a v below -eps has no real
square root. Nothing is said when the centring is wrong (the output is not a multiple of
x - mean per token), when the fitted v is the variance itself, or when no form, or more
than one, fits. Only run after a call already failed; any exception means no evidence."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from transformer_course.checking.elementwise_forms import fitted_form, form_text

__all__ = ["variance_form", "variance_form_sentence"]

#: tokens in the probe: more than the terms, so that a form is fitted, not interpolated
_PROBE_TOKENS = 40


def _probe(width: int, dtype: torch.dtype, seed: int) -> torch.Tensor:
    """(1, _PROBE_TOKENS, width): tokens whose means run from -2.5 to 2.5 and whose
    spreads run from 0.4 to 2, paired in a shuffled order."""
    generator = torch.Generator().manual_seed(seed)
    noise = torch.randn(_PROBE_TOKENS, width, generator=generator, dtype=torch.float64)
    noise = (noise - noise.mean(-1, keepdim=True)) / noise.std(-1, keepdim=True, unbiased=False)
    means = torch.linspace(-2.5, 2.5, _PROBE_TOKENS, dtype=torch.float64)[:, None]
    order = torch.randperm(_PROBE_TOKENS, generator=generator)
    spreads = torch.linspace(0.4, 2.0, _PROBE_TOKENS, dtype=torch.float64)[order, None]
    return (noise * spreads + means)[None].to(dtype)  # (1, tokens, width)


def variance_form(
    call: Callable[[torch.Tensor], Any],
    weight: torch.Tensor,
    bias: torch.Tensor,
    eps: float,
    *,
    dtype: torch.dtype = torch.float32,
    seed: int = 0,
) -> tuple[tuple[tuple[str, float], ...], int, int] | None:
    """(the fitted form of v, tokens fitted, tokens that came out NaN) for the output of
    ``call`` on a probe, read as weight · (x - mean) / sqrt(v + eps) + bias per token;
    None when the output is not of that kind, or no single form fits."""
    try:
        weight64, bias64 = weight.detach().double(), bias.detach().double()  # (width,)
        if not bool((weight64.abs() > 1e-3).all()):
            return None
        x = _probe(weight64.shape[-1], dtype, seed)  # (1, tokens, width)
        with torch.no_grad():
            out = call(x.clone())
        if not isinstance(out, torch.Tensor) or out.shape != x.shape:
            return None
        x64 = x.double()[0]  # (tokens, width)
        normalised = (out.detach().double()[0] - bias64) / weight64  # (tokens, width)
        centred = x64 - x64.mean(-1, keepdim=True)
        finite = torch.isfinite(normalised).all(-1)  # (tokens,)
        nan_tokens = int((~finite).sum())
        if int(finite.sum()) < 8:
            return None
        n, c = normalised[finite], centred[finite]
        divisor = (c * c).sum(-1) / (c * n).sum(-1)  # (finite tokens,) least squares
        if not torch.allclose(n * divisor[:, None], c, rtol=1e-3, atol=1e-3):
            return None  # not (x - mean) over one number per token: the centring is off
        used = divisor**2 - eps  # (finite tokens,) the learner's v
        moments = x64[finite]
        mean = moments.mean(-1)
        terms = {
            "E[x²]": (moments**2).mean(-1),
            "E[x]²": mean**2,
            "E[x]": mean,
            "var": moments.var(-1, unbiased=False),
            "1": torch.ones_like(mean),
        }
        form = fitted_form(used, terms, max_terms=2, rtol=2e-3, atol=2e-3)
    except Exception:  # a probe: the usual message stands
        return None
    if form is None or (len(form) == 1 and form[0][0] == "var" and abs(form[0][1] - 1) < 1e-3):
        return None
    return form, int(finite.sum()), nan_tokens


def variance_form_sentence(
    call: Callable[[torch.Tensor], Any],
    weight: torch.Tensor,
    bias: torch.Tensor,
    eps: float,
    *,
    dtype: torch.dtype = torch.float32,
) -> str:
    """The observed variance form, in words for a learner; "" when none is observed."""
    found = variance_form(call, weight, bias, eps, dtype=dtype)
    if found is None:
        return ""
    form, fitted, nan_tokens = found
    nan = (
        f" ({nan_tokens} more token(s) came out NaN: where that quantity is below -eps, "
        "sqrt(v + eps) has no real value)"
        if nan_tokens
        else ""
    )
    return (
        f"On a probe of {fitted + nan_tokens} tokens with different means and spreads, your "
        "output is (x - mean) / sqrt(v + eps) · weight + bias with the right mean, but the v "
        f"you divide by is {form_text(form)} on every token{nan}, where LayerNorm's v is the "
        "biased variance, E[(x - mean)²] = E[x²] - E[x]² (the mean of the squares minus the "
        "SQUARE of the mean): x.var(dim=-1, keepdim=True, unbiased=False), or ((x - mean) "
        "** 2).mean(dim=-1, keepdim=True)."
    )
