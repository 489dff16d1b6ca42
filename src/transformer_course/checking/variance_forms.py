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


#: what a token may be centred on besides its mean: {how it is said: the centre} for
#: (tokens, width) float64 values, each (tokens, 1)
_OTHER_CENTRES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "the median, x.median(dim=-1) (for an even d_model the lower of the two middle values)": (
        lambda x: x.median(-1, keepdim=True).values
    ),
    "the median, torch.quantile(x, 0.5, dim=-1) (the two middle values averaged)": (
        lambda x: torch.quantile(x, 0.5, dim=-1, keepdim=True)
    ),
    "the midrange, (max + min) / 2": lambda x: (
        (x.amax(-1, keepdim=True) + x.amin(-1, keepdim=True)) / 2
    ),
}

#: spreads a normalisation may divide by instead of the standard deviation, as squared
#: statistics (terms of the fitted v): {term: what dividing by its root means}
_SPREAD_TERMS = {
    "(E|x - mean|)²": "the mean absolute deviation, (x - mean).abs().mean(-1)",
    "(max - min)²": "the range of the token's values, x.max(-1) - x.min(-1)",
    "max|x - mean|²": "the largest absolute deviation, (x - mean).abs().max(-1)",
}


def _terms(x: torch.Tensor) -> dict[str, torch.Tensor]:
    """The candidate terms of v for (tokens, width) values, each (tokens,)."""
    mean = x.mean(-1)
    deviation = (x - mean[:, None]).abs()  # (tokens, width)
    # |E[x]| is E[x] where no mean is negative (the tokens left after NaN): one term then
    signs = int((mean < -0.1).sum()) >= 3 and int((mean > 0.1).sum()) >= 3
    terms = {
        "E[x²]": (x**2).mean(-1),
        "E[x]²": mean**2,
        "E[x]": mean,
        "var": x.var(-1, unbiased=False),
        "(E|x - mean|)²": deviation.mean(-1) ** 2,
        "(max - min)²": (x.amax(-1) - x.amin(-1)) ** 2,
        "max|x - mean|²": deviation.amax(-1) ** 2,
        "1": torch.ones_like(mean),
    }
    if signs:
        terms["|E[x]|"] = mean.abs()
    return terms


def _clamped(used: torch.Tensor, variance: torch.Tensor) -> str:
    """ "the variance clamped to at least c" (or at most c) when ``used`` is the variance on
    the tokens on one side of one constant c and c itself on the others (a floor put on
    the statistic: var.clamp(min=1), torch.clamp(std, min=...)); "" otherwise."""
    close = torch.isclose(used, variance, rtol=2e-3, atol=2e-3)  # (tokens,)
    moved = ~close
    if int(moved.sum()) < 3 or int(close.sum()) < 3:
        return ""
    bound = float(used[moved].mean())
    if not torch.allclose(used[moved], torch.full_like(used[moved], bound), rtol=2e-3, atol=2e-3):
        return ""
    tolerance = 2e-3 * max(1.0, abs(bound))
    if bool((variance[moved] < bound).all()) and bool((variance[close] >= bound - tolerance).all()):
        return f"the variance clamped to at least {bound:.4g}, var.clamp(min={bound:.4g})"
    if bool((variance[moved] > bound).all()) and bool((variance[close] <= bound + tolerance).all()):
        return f"the variance clamped to at most {bound:.4g}, var.clamp(max={bound:.4g})"
    return ""


def _divisors(normalised: torch.Tensor, centred: torch.Tensor) -> torch.Tensor | None:
    """One divisor per token when normalised = centred / divisor on every token, by least
    squares; None otherwise."""
    divisor = (centred * centred).sum(-1) / (centred * normalised).sum(-1)  # (tokens,)
    if not torch.allclose(normalised * divisor[:, None], centred, rtol=1e-3, atol=1e-3):
        return None
    return divisor


def centred_variance_form(
    call: Callable[[torch.Tensor], Any],
    weight: torch.Tensor,
    bias: torch.Tensor,
    eps: float,
    *,
    dtype: torch.dtype = torch.float32,
    seed: int = 0,
) -> tuple[str, tuple[tuple[str, float], ...] | None, int, int] | None:
    """(the centre, the fitted form of v, tokens fitted, tokens that came out NaN) for the
    output of ``call`` on a probe, read as weight · (x - centre) / sqrt(v + eps) + bias per
    token, the centre "the mean" or one of :data:`_OTHER_CENTRES`; the form None when v is
    the variance itself or no single form fits. None when the output is of no such kind."""
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
        finite = torch.isfinite(normalised).all(-1)  # (tokens,)
        nan_tokens = int((~finite).sum())
        if int(finite.sum()) < 8:
            return None
        n, moments = normalised[finite], x64[finite]
        centres = {"the mean": lambda v: v.mean(-1, keepdim=True), **_OTHER_CENTRES}
        centre, divisor = "", None
        for name, measure in centres.items():
            divisor = _divisors(n, moments - measure(moments))
            if divisor is not None:
                centre = name
                break
        if divisor is None:
            return None  # not (x - centre) over one number per token
        used = divisor**2 - eps  # (finite tokens,) the learner's v
        terms = _terms(moments)
        form = fitted_form(used, terms, max_terms=2, rtol=2e-3, atol=2e-3)
        if form is None and (bound := _clamped(used, terms["var"])):
            form = ((bound, 1.0),)
    except Exception:  # a probe: the usual message stands
        return None
    if form is not None and len(form) == 1 and form[0][0] == "var" and abs(form[0][1] - 1) < 1e-3:
        form = None
    if form is None and centre == "the mean":
        return None
    return centre, form, int(finite.sum()), nan_tokens


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
    found = centred_variance_form(call, weight, bias, eps, dtype=dtype, seed=seed)
    if found is None or found[0] != "the mean" or found[1] is None:
        return None
    return found[1], found[2], found[3]


def variance_form_sentence(
    call: Callable[[torch.Tensor], Any],
    weight: torch.Tensor,
    bias: torch.Tensor,
    eps: float,
    *,
    dtype: torch.dtype = torch.float32,
) -> str:
    """The observed centre and variance form, in words for a learner; "" when none is
    observed."""
    found = centred_variance_form(call, weight, bias, eps, dtype=dtype)
    if found is None:
        return ""
    centre, form, fitted, nan_tokens = found
    probe = f"On a probe of {fitted + nan_tokens} tokens with different means and spreads, "
    if centre != "the mean":
        spread = (
            "the v under the root is the variance, as it should be"
            if form is None
            else f"the v under the root is {form_text(form)}, not the variance"
        )
        return (
            f"{probe}your output is (x - c) / sqrt(v + eps) · weight + bias with c "
            f"{centre} of each token, where LayerNorm subtracts the token's MEAN, "
            f"x.mean(dim=-1, keepdim=True); {spread}. Centre on the mean: the variance is the "
            "mean squared deviation from it, and only the mean makes each token's output "
            "average 0."
        )
    nan = (
        f" ({nan_tokens} more token(s) came out NaN: where that quantity is below -eps, "
        "sqrt(v + eps) has no real value)"
        if nan_tokens
        else ""
    )
    spread = ""
    if len(form) == 1 and form[0][0] in _SPREAD_TERMS and form[0][1] > 0:
        root = form[0][1] ** 0.5
        factor = "" if abs(root - 1) < 1e-3 else f"{root:.3g} times "
        spread = (
            f": you divide by {factor}{_SPREAD_TERMS[form[0][0]]}, another measure of the "
            "spread than the standard deviation"
        )
    return (
        f"{probe}your output is (x - mean) / sqrt(v + eps) · weight + bias with the right "
        f"mean, but the v you divide by is {form_text(form)} on every token{nan}{spread}, where "
        "LayerNorm's v is the biased variance, E[(x - mean)²] = E[x²] - E[x]² (the mean of "
        "the squares minus the SQUARE of the mean): x.var(dim=-1, keepdim=True, "
        "unbiased=False), or ((x - mean) ** 2).mean(dim=-1, keepdim=True)."
    )
