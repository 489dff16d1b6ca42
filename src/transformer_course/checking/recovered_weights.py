"""The attention weights a learner's code used, recovered from what it computed.

An attention's output for query i is a weighted sum of the values: o_i = sum_j w_ij v_j.
When a head's values (len_k, d_v) have independent rows (len_k < d_v), the output fixes
the weights: w_i is the one solution of w_i V = o_i. So a check that sees the values and
the output of the learner's attention (its ``w_v`` and the input of its ``w_o``, through
forward hooks) knows the weights the learner's code used, however it computed them, and
can say *how* they depart from softmax(scores) with the mask:

* weight on keys the mask forbids (the first such query and key);
* rows that do not sum to 1: exactly exp(s) / (1 + sum exp(s)) (a 1 added to the
  softmax's denominator), exactly the right weights times a factor per row, or neither;
* rows that sum to 1 but are the softmax of other scores: the right scores times one
  factor (another scale), the right scores capped (c * tanh(s / c), Gemma 2's soft-cap),
  or other scores (then the first wrong weight, and where the scores come from).

Where the values are an argument of the learner's function (lessons 04 and 12), the
weights are read more simply, through one-hot values
(:func:`~transformer_course.checking.attention_weights.weights_through_values`); this
module is for modules that make their own values. A factor on the scores is measured and
named by :mod:`~transformer_course.checking.temperature`, as everywhere.

A cause is named only when the weights it predicts are the recovered ones on every head
and query of the run; otherwise the message locates the first wrong weight. When the
values are not independent, or the output is not a weighted sum of them (the heads split
or merged differently), nothing is said.
"""

from __future__ import annotations

import math

import torch

from transformer_course.checking.temperature import (
    COMMON_FACTORS,
    fitted_temperature,
    named_factors,
)

__all__ = ["length_scale_reading", "recover_weights", "score_factor", "weights_departure"]

_ATOL = 2e-4  # recovered from float32 results: a few ulps of the outputs, amplified


def recover_weights(outputs: torch.Tensor, values: torch.Tensor) -> torch.Tensor | None:
    """The weights w (..., len_q, len_k) with w @ values = outputs, for outputs
    (..., len_q, d_v) and values (..., len_k, d_v); None when the values' rows are not
    independent (nearly dependent), or not fewer than their width (len_k >= d_v: then every
    output is some weighted sum, and a wrong split of the heads would pass for weights), or
    the outputs are not weighted sums of the values."""
    o, v = outputs.detach().double(), values.detach().double()
    if o.shape[:-2] != v.shape[:-2] or o.shape[-1] != v.shape[-1] or v.shape[-2] >= v.shape[-1]:
        return None
    if not (torch.isfinite(o).all() and torch.isfinite(v).all()):
        return None
    singular = torch.linalg.svdvals(v)  # (..., len_k)
    if bool((singular[..., -1] <= 1e-6 * singular[..., 0]).any()):
        return None
    weights = o @ torch.linalg.pinv(v)  # (..., len_q, len_k)
    scale = max(float(o.abs().max()), 1e-12)
    if float((weights @ v - o).abs().max()) > 1e-4 * scale:
        return None
    return weights


def _close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return bool(torch.allclose(a, b, rtol=0.0, atol=_ATOL))


def _query(index: tuple[int, ...]) -> str:
    """``(batch, head, i)`` or ``(i,)`` in words."""
    *lead, i = index
    head = f"head {lead[-1]} of batch row {lead[0]}, " if len(lead) == 2 else ""
    return f"{head}query {i}"


def _at(index: tuple[int, ...]) -> str:
    return f"{_query(index[:-1])}, key {index[-1]}"


def _first_wrong(got: torch.Tensor, expected: torch.Tensor) -> tuple[int, ...]:
    wrong = ((got - expected).abs() > _ATOL).nonzero()
    return tuple(int(i) for i in wrong[0])


def _softmax(scores: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1).nan_to_num(0.0)


def _fitted_cap(got: torch.Tensor, scores: torch.Tensor, allowed: torch.Tensor) -> float | None:
    """The cap c for which softmax(c * tanh(s / c)) is closest to ``got``, searched from
    just above the largest |score| to 1000 times it; None when no cap fits better than
    no cap."""
    largest = float(scores.masked_fill(~allowed, 0.0).abs().max())
    if largest <= 0:
        return None

    def error(cap: float) -> float:
        capped = cap * torch.tanh(scores / cap)
        return float((_softmax(capped, allowed) - got).abs().max())

    caps = [largest * 10 ** (k / 20) for k in range(-20, 61)]  # 0.1x .. 1000x
    best = min(caps, key=error)
    low, high = best / 10 ** (1 / 20), best * 10 ** (1 / 20)
    for _ in range(40):  # golden-section refinement on log c
        a = math.exp(math.log(low) + 0.382 * (math.log(high) - math.log(low)))
        b = math.exp(math.log(low) + 0.618 * (math.log(high) - math.log(low)))
        if error(a) < error(b):
            high = b
        else:
            low = a
    cap = math.sqrt(low * high)
    return cap if error(cap) < float((_softmax(scores, allowed) - got).abs().max()) else None


def weights_departure(
    got: torch.Tensor,
    scores: torch.Tensor,
    allowed: torch.Tensor,
    *,
    scores_are: str,
    scale: float,
    recovered_from: str | None,
    named_only: bool = False,
) -> str:
    """How the recovered weights ``got`` (..., len_q, len_k) depart from softmax over the
    keys of ``scores`` (the right scaled scores, float64) with keys outside ``allowed``
    (True = may attend, broadcastable) blocked; "" when they do not (the departure is
    elsewhere). ``scores_are`` says in words what the scores are (``q k^T / sqrt(d_head),
    q and k as your w_q and w_k made them``); ``scale`` is the factor the right scores
    carry (1 / sqrt(d_head)), to put a fitted factor in the learner's terms;
    ``recovered_from`` what the weights were recovered from (``your values and w_o's
    input``), None when ``got`` is what the learner's code returned (a softmax). ``named_only``: "" where no cause is named (a softmax of other scores), so
    that a caller can try its finer diagnoses first and locate the step last."""
    allowed = allowed.expand_as(scores)
    expected = _softmax(scores, allowed)
    if _close(got, expected):
        return ""
    lead = (
        "Your weights"
        if recovered_from is None
        else f"The attention weights your code used (recovered exactly from {recovered_from})"
    )
    leaked = got.masked_fill(allowed, 0.0).abs()
    if float(leaked.max()) > _ATOL:
        at = tuple(int(i) for i in (leaked > _ATOL).nonzero()[0])
        return (
            f"{lead} put weight on keys the mask blocks: {_at(at)} has weight "
            f"{float(got[at]):.4g}, where it must be 0. The blocked scores must still be "
            f"-inf (or hugely negative) when the softmax takes them: a mask never applied or "
            f"not assigned (masked_fill returns a new tensor), a mask of another shape or "
            f"direction, or a step between the mask and the softmax that makes -inf finite "
            f"(tanh, clamp) lets them through."
        )
    sums = got.sum(-1)  # (..., len_q)
    if not _close(sums, torch.ones_like(sums)):
        exps = torch.exp(scores).masked_fill(~allowed, 0.0)
        plus_one = exps / (1.0 + exps.sum(-1, keepdim=True))
        if _close(got, plus_one):
            return (
                f"{lead} are exp(s) / (1 + sum exp(s)): a 1 is added to the softmax's "
                f"denominator (an 'off-by-one' softmax, softmax_1), so each row sums to less "
                f"than 1 (between {float(sums.min()):.3g} and {float(sums.max()):.3g} here) "
                f"and the output shrinks. The lesson's attention is the softmax, "
                f"exp(s) / sum exp(s) over the keys: torch.softmax(scores, dim=-1)."
            )
        ratio = got / expected.clamp_min(1e-300)
        per_row = (ratio * expected).sum(-1, keepdim=True)  # the factor, if one per row
        if _close(got, expected * per_row):
            return (
                f"{lead} are the right softmax times a factor per query (the rows sum to "
                f"between {float(sums.min()):.3g} and {float(sums.max()):.3g}, not 1): "
                f"each row's exponentials are divided by something other than their own sum (an "
                f"extra term in the denominator), or the weights are multiplied or divided "
                f"after the softmax."
            )
        row = tuple(int(i) for i in ((sums - 1).abs() > _ATOL).nonzero()[0])
        return (
            f"{lead} do not sum to 1 over the keys: the row of {_query(row)} "
            f"sums to {float(sums[row]):.4g}. A softmax over the keys (dim=-1) divides each "
            f"row's exponentials by that row's own sum."
        )
    blocked = scores.masked_fill(~allowed, float("-inf"))
    # recovered weights carry rounding noise around 0 (blocked keys, tiny weights)
    cleaned = got.masked_fill(~allowed, 0.0).clamp_min(0.0)
    factor = fitted_temperature(cleaned.numpy(), blocked.numpy(), atol=_ATOL)
    if factor is not None and abs(factor - 1) > 1e-3:
        names = named_factors(factor, COMMON_FACTORS, rtol=1e-3)
        return (
            f"{lead} are the softmax of the right scores times {factor:.4g}: your scores are "
            f"scaled by {factor * scale:.4g} where the lesson's are scaled by {scale:.4g}"
            + (f" ({' or '.join(names)})" if names else "")
            + ". Check the factor the scores are multiplied or divided by."
        )
    cap = _fitted_cap(got, scores, allowed)
    if cap is not None and _close(got, _softmax(cap * torch.tanh(scores / cap), allowed)):
        return (
            f"{lead} are the softmax of capped scores, {cap:.3g} * tanh(s / {cap:.3g}) (a "
            f"soft-cap, as Gemma 2 does), not of the scores themselves: the large scores are "
            f"pulled towards 0 and the weights come out flatter. The lesson's attention takes "
            f"the softmax of the scaled scores as they are."
        )
    if named_only:
        return ""
    at = _first_wrong(got, expected)
    return (
        f"{lead} are a softmax over the allowed keys (each row sums to 1, the blocked keys "
        f"get 0), but not of the right scores, {scores_are}: the first wrong weight is at "
        f"{_at(at)}, yours {float(got[at]):.4g}, expected {float(expected[at]):.4g}. The "
        f"step that departs is the scores: how q and k are rotated, multiplied and scaled."
    )


def score_factor(got: torch.Tensor, scores: torch.Tensor, allowed: torch.Tensor) -> float | None:
    """The one factor t with ``got`` = softmax(t · scores) over the allowed keys on every
    head and query (``got`` the recovered weights, rows summing to 1, nothing on blocked
    keys); None when no single factor gives them."""
    allowed = allowed.expand_as(scores)
    if float(got.masked_fill(allowed, 0.0).abs().max()) > _ATOL:
        return None
    sums = got.sum(-1)
    if not _close(sums, torch.ones_like(sums)):
        return None
    blocked = scores.masked_fill(~allowed, float("-inf"))
    cleaned = got.masked_fill(~allowed, 0.0).clamp_min(0.0)
    return fitted_temperature(cleaned.numpy(), blocked.numpy(), atol=_ATOL)


def length_scale_reading(factors: dict[int, float]) -> str:
    """How a factor on the scores, measured at several sequence lengths ({len: factor}),
    depends on the length, in words: "" when it does not (one factor for every length,
    told by :func:`weights_departure`) or fewer than two lengths were measured. Names the
    usual forms: log(len) / log(N) (the log-n scaling of long-context code, N a training
    length), len / N, sqrt(len / N); else lists the factors."""
    if len(factors) < 2:
        return ""
    values = list(factors.values())
    if max(values) - min(values) <= 1e-3 * max(abs(v) for v in values):
        return ""
    shown = ", ".join(f"{factor:.4g} at len = {n}" for n, factor in sorted(factors.items()))

    def one(estimates: list[float]) -> float | None:
        if any(not math.isfinite(e) or e <= 0 for e in estimates):
            return None
        middle = sorted(estimates)[len(estimates) // 2]
        return middle if all(abs(e / middle - 1) < 1e-2 for e in estimates) else None

    forms = []
    if all(n > 1 and f > 0 for n, f in factors.items()):
        if (n_log := one([math.exp(math.log(n) / f) for n, f in factors.items()])) is not None:
            forms.append(
                f"log(len) / log({n_log:.4g}): the log-n scaling of long-context code, which "
                f"multiplies the queries (or the scores) by log(len) / log(N) for a training "
                f"length N = {n_log:.4g}"
            )
    if (n_lin := one([n / f for n, f in factors.items() if f > 0])) is not None and len(
        [f for f in values if f > 0]
    ) == len(values):
        forms.append(f"len / {n_lin:.4g}, the length itself divided by a constant")
    if (n_root := one([n / f**2 for n, f in factors.items() if f > 0])) is not None and all(
        f > 0 for f in values
    ):
        forms.append(f"sqrt(len / {n_root:.4g}), the root of the length")
    said = f", which is {' or '.join(forms)}" if forms else ""
    return (
        f"the factor depends on the sequence length: {shown}{said}. The lesson's scores are "
        "q k^T / sqrt(d_head) at every length; no factor that changes with the length "
        "belongs in them"
    )
