"""One diagnosis of attention weights, shared by every exercise that computes attention.

Lessons 04 (scaled dot-product attention), 05 (multi-head attention), 06 (masks)
and 07-09 (the layers built on them) all end up holding a tensor of attention
weights ``(..., len_q, len_k)`` and the bool mask it was computed with (True =
may attend). :func:`expect_attention_weights` explains, in the same words
everywhere, what is wrong with such weights: NaN rows, negative weights, weight
on keys the mask forbids, an inverted mask, rows that do not sum to 1 over the
keys, a softmax over the queries.

Fully masked query rows (a query with no key it may attend to) are a degenerate
case with two reasonable answers, and both are accepted:

* all-zero weights: the course's reference, and ``F.scaled_dot_product_attention``;
* uniform weights ``1/len_k``: what filling with a large finite number such as
  ``-1e9`` gives (the Annotated Transformer, d2l); the learner gets a note.

NaN is not accepted: it poisons everything downstream, including the loss.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from transformer_course.checking import Checker

__all__ = [
    "FULLY_MASKED_NAN",
    "INVERTED_MASK",
    "expect_attention_weights",
    "fully_masked_convention",
    "fully_masked_rows",
    "with_fully_masked_rows",
]

INVERTED_MASK = (
    "The mask's meaning is inverted: you blocked the keys where the mask is True. In this "
    "course (as in F.scaled_dot_product_attention) True means 'may attend', so block where "
    "it is False: scores.masked_fill(~mask, float('-inf')). (nn.MultiheadAttention's bool "
    "masks mean the opposite; lesson 06 has the table.)"
)
MASK_NOT_APPLIED = (
    "Keys the mask forbids still get weight: the mask is not applied (or not passed on). "
    "Set their scaled scores to -inf (or a large negative number) before the softmax; the "
    "mask broadcasts to (..., len_q, len_k)."
)
MASK_AFTER_SOFTMAX = (
    "Masked keys get 0, but the remaining weights of those rows no longer add up to 1: the "
    "mask was applied after the softmax. Apply it to the scaled scores before the softmax, "
    "so that the softmax renormalises over the keys that are allowed."
)
FULLY_MASKED_NAN = (
    "A query row whose mask is all False (it may attend to no key) came out as NaN: the "
    "softmax of a row that is all -inf is 0 / 0. Such a row should attend to nothing: give "
    "it all-zero weights after the softmax (weights.masked_fill(~mask.any(dim=-1, "
    "keepdim=True), 0.0), or torch.nan_to_num(weights, nan=0.0)). Filling with a large "
    "finite number such as -1e9 instead of -inf also avoids the NaN."
)
FULLY_MASKED_OTHER = (
    "A query row whose mask is all False (it may attend to no key) should get all-zero "
    "weights (the course's convention, and F.scaled_dot_product_attention's), or uniform "
    "weights if you fill with a large finite number such as -1e9; yours are neither."
)
NOT_A_DISTRIBUTION = (
    "Each query's weights must add up to 1 over the keys: take the softmax of the scaled "
    "scores over the last axis, dim=-1."
)
SOFTMAX_OVER_QUERIES = (
    "Your weights sum to 1 over the queries (dim=-2) instead of over the keys (dim=-1). Each "
    "query row is a probability distribution over the keys: take the softmax with dim=-1."
)


def fully_masked_rows(mask: torch.Tensor | None, shape: torch.Size | tuple) -> torch.Tensor:
    """bool (..., len_q): the query rows of weights shaped ``shape`` with no allowed key."""
    if mask is None:
        return torch.zeros(tuple(shape)[:-1], dtype=torch.bool)
    return ~mask.expand(tuple(shape)).any(dim=-1)


def fully_masked_convention(weights: torch.Tensor, mask: torch.Tensor | None) -> str | None:
    """ "zero" or "uniform" when every fully masked row of ``weights`` follows that
    convention, "other" when they follow neither, None when there is no such row."""
    dead = fully_masked_rows(mask, weights.shape)
    if not dead.any():
        return None
    rows = weights.detach().double()[dead]  # (n_dead, len_k)
    if not torch.isfinite(rows).all():
        return "other"
    if torch.allclose(rows, torch.zeros_like(rows), atol=1e-6):
        return "zero"
    if torch.allclose(rows, torch.full_like(rows, 1.0 / rows.shape[-1]), atol=1e-5):
        return "uniform"
    return "other"


def with_fully_masked_rows(
    weights: torch.Tensor, mask: torch.Tensor | None, convention: str | None
) -> torch.Tensor:
    """``weights`` with its fully masked rows set to ``convention`` ("zero" or "uniform")."""
    if convention not in {"zero", "uniform"} or mask is None:
        return weights
    dead = fully_masked_rows(mask, weights.shape)[..., None]  # (..., len_q, 1)
    fill = 0.0 if convention == "zero" else 1.0 / weights.shape[-1]
    return weights.masked_fill(dead, fill)


def _where(index: torch.Tensor) -> str:
    return str(tuple(int(i) for i in index))


def expect_attention_weights(
    c: Checker,
    weights: torch.Tensor,
    mask: torch.Tensor | None,
    what: str,
    *,
    expected: torch.Tensor,
    mistakes: Mapping[str, Any] | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> str | None:
    """Check attention weights ``(..., len_q, len_k)`` against ``expected`` (the reference's,
    whose fully masked rows are zero) and explain any difference.

    ``mistakes`` maps a diagnosis to the weights that mistake gives (or a callable giving
    them); they are tried before the property checks. Returns the learner's convention for
    fully masked rows ("zero", "uniform", or None when there are none), so that the
    caller can compute the expected *output* under the same convention.
    """
    w = weights.detach().double()
    shape = tuple(w.shape)
    allowed = (
        torch.ones(shape, dtype=torch.bool) if mask is None else mask.expand(shape)
    )  # (..., len_q, len_k)
    dead = fully_masked_rows(mask, shape)  # (..., len_q)
    live = ~dead

    # 1. NaN: on exactly the fully masked rows, on the rows that allow everything, or elsewhere.
    nan_rows = (~torch.isfinite(w)).any(dim=-1)  # (..., len_q)
    if nan_rows.any():
        if dead.any() and not nan_rows[live].any():
            c.fail(f"{what}: {FULLY_MASKED_NAN}")
        everything = allowed.all(dim=-1)
        if mask is not None and everything.any() and bool((nan_rows == everything).all()):
            c.fail(f"{what} is NaN in exactly the query rows whose mask allows every key. "
                   f"{INVERTED_MASK}")  # fmt: skip
        first = nan_rows.nonzero()[0]
        c.fail(
            f"{what} contains NaN or inf (first in query row {_where(first)}, batch indices "
            "first). Check the masking and the softmax: exp() of large scores overflows unless "
            "the softmax subtracts the row maximum (torch.softmax does)."
        )
    c.ok()
    if (w < -1e-6).any():
        c.fail(f"{what} has negative entries: weights come out of a softmax, so they are >= 0.")
    c.ok()

    # 2. The mask: no weight on forbidden keys of live rows; fully masked rows zero or uniform.
    convention = fully_masked_convention(w, mask)
    if mask is not None:
        leak = (w > 1e-6) & ~allowed & live[..., None]
        if leak.any():
            live_keys = allowed & live[..., None]
            if (w[live_keys] < 1e-6).all():
                c.fail(f"{what} puts weight only on keys the mask forbids. {INVERTED_MASK}")
            c.fail(f"{what} gives weight to keys the mask forbids. {MASK_NOT_APPLIED}")
        c.ok()
        if convention == "other":
            c.fail(f"{what}: {FULLY_MASKED_OTHER}")
        if convention == "uniform":
            c.note(
                "your fully masked query rows get uniform weights (what a large finite fill "
                "value such as -1e9 gives). That is accepted: such rows belong to padding "
                "and are ignored downstream. The course's reference returns zeros there, "
                "as F.scaled_dot_product_attention does."
            )
        c.ok()

    # 3. Known mistakes, compared on what is not a matter of convention.
    target = with_fully_masked_rows(expected.detach().double(), mask, convention)
    if torch.allclose(w, target, rtol=rtol, atol=atol):
        c.ok()
        return convention
    for message, wrong in (mistakes or {}).items():
        wrong_value = wrong() if callable(wrong) else wrong
        if wrong_value is None:
            continue
        wrong_value = with_fully_masked_rows(
            torch.nan_to_num(wrong_value.detach().double(), nan=0.0), mask, convention
        )
        if wrong_value.shape == w.shape and torch.allclose(w, wrong_value, rtol=1e-4, atol=1e-5):
            c.fail(f"{what} is not what the reference gives. {message}")

    # 4. Properties that explain the rest.
    sums = w.sum(dim=-1)
    if not torch.allclose(sums[live], torch.ones_like(sums[live]), atol=1e-4):
        columns = w.sum(dim=-2)
        if mask is None and torch.allclose(columns, torch.ones_like(columns), atol=1e-4):
            c.fail(f"{what}: {SOFTMAX_OVER_QUERIES}")
        if mask is not None and not (w[~allowed & live[..., None]] > 1e-6).any():
            c.fail(f"{what}: {MASK_AFTER_SOFTMAX}")
        c.fail(
            f"{what} does not sum to 1 over the keys for every query (row sums from "
            f"{float(sums[live].min()):.3g} to {float(sums[live].max()):.3g}). "
            f"{NOT_A_DISTRIBUTION}"
        )
    diff = (w - target).abs()
    worst = (diff == diff.max()).nonzero()[0]
    index = tuple(int(i) for i in worst)
    c.fail(
        f"{what} differs from the reference: largest difference {float(diff.max()):.3g} at "
        f"index {index} (yours {float(w[index]):.6g}, expected {float(target[index]):.6g}). "
        "Check the steps: scores = q @ kᵀ / √d_k, where d_k is the width of each query and key; "
        "blocked scores = -inf; softmax over the keys."
    )
    return convention  # not reached
