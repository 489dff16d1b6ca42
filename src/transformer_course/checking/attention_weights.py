"""One diagnosis of attention weights, shared by every exercise that computes attention.

Lessons 04 (scaled dot-product attention), 05 (multi-head attention), 06 (masks)
and 07-09 (the layers built on them) all end up holding a tensor of attention
weights ``(..., len_q, len_k)`` and the bool mask it was computed with (True =
may attend). :func:`expect_attention_weights` explains, in the same words
everywhere, what is wrong with such weights: NaN rows, negative weights, weight
on keys the mask forbids, an inverted mask, rows that do not sum to 1 over the
keys, a softmax over the queries, uniform rows that ignore the scores.

**What is accepted.** The value used to block a key is the learner's choice: -inf,
a large finite number (-1e9, -1e4, ``torch.finfo(dtype).min``), given to
``masked_fill`` or ``torch.where`` or added as a float mask. For a query row that
allows at least one key all of these give the same weights. A *fully masked*
query row (no key it may attend to) is a degenerate case with no single right
answer; three finite conventions are accepted (:func:`fully_masked_convention`):

* ``"zero"``: all-zero weights, so the query takes in nothing. The course's
  reference, and ``F.scaled_dot_product_attention`` (PyTorch 2.5 and later).
* ``"uniform"``: ``1/len_k`` each. The limit of the softmax of equal scores, and
  what ``masked_fill`` with a finite value such as -1e9 gives (the Annotated
  Transformer, d2l). The learner gets a note.
* ``"distribution"``: any other row of non-negative weights summing to 1. What
  *adding* a finite mask gives when the scores keep their differences (-1e9 added
  to float64 scores). The learner gets a note.

NaN is not accepted: it poisons everything downstream, the loss and every
gradient included (NaN times a zero weight is still NaN).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch

from transformer_course.checking.checker import Checker
from transformer_course.checking.oracles.attention import scaled_dot_product_attention_f
from transformer_course.checking.precision import NARROW_DTYPE_CAUSE, narrow_dtype_grid

__all__ = [
    "ACCEPTED_CONVENTIONS",
    "ALL_ZEROED",
    "BLOCKED_NOT_MINUS_INF",
    "FULLY_MASKED_DISTRIBUTION_NOTE",
    "FULLY_MASKED_NAN",
    "FULLY_MASKED_OTHER",
    "FULLY_MASKED_UNIFORM_NOTE",
    "INVERTED_MASK",
    "MASK_AFTER_SOFTMAX",
    "MASK_NOT_APPLIED",
    "MASK_TIMES_INF",
    "NEGATIVE_WEIGHTS",
    "NOT_A_DISTRIBUTION",
    "NOT_FINITE",
    "SOFTMAX_OVER_QUERIES",
    "TRANSPOSED_WEIGHTS",
    "UNIFORM_WEIGHTS",
    "attention_weights_variant",
    "expect_attention_weights",
    "fully_masked_convention",
    "fully_masked_rows",
    "with_fully_masked_rows",
]

#: The conventions for fully masked rows that :func:`expect_attention_weights` accepts.
ACCEPTED_CONVENTIONS = ("zero", "uniform", "distribution")

INVERTED_MASK = (
    "The mask's meaning is inverted: you blocked the keys where the mask is True and kept "
    "the ones where it is False. In this course (as in F.scaled_dot_product_attention) "
    "True means 'may attend', so block where it is False (~mask, or mask == 0). "
    "(nn.MultiheadAttention's bool masks mean the opposite; lesson 06 has the table.)"
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
    "softmax of a row that is all -inf is 0 / 0. NaN spreads into every later layer, the "
    "loss and the gradients. Give such a row finite weights: zero it after the softmax "
    "(find the rows with mask.any(dim=-1, keepdim=True)) or replace NaN by 0 "
    "(torch.nan_to_num). Filling with a large finite number such as -1e9 instead of -inf "
    "also avoids the NaN."
)
FULLY_MASKED_OTHER = (
    "A query row whose mask is all False (it may attend to no key) should get all-zero "
    "weights (the course's reference, and F.scaled_dot_product_attention's in PyTorch 2.5 "
    "and later), or, if you block with a large finite number such as -1e9, weights that "
    "still add up to 1 (uniform, 1/len_k each). Yours are neither: they are not zero and do "
    "not add up to 1."
)
FULLY_MASKED_UNIFORM_NOTE = (
    "your fully masked query rows (mask all False) get uniform weights, 1/len_k each: what "
    "blocking with a large finite number such as -1e9 gives, and the limit of a softmax "
    "of equal scores. That is accepted: such a row belongs to padding, and its output is "
    "ignored downstream. The course's reference returns all-zero weights there, as "
    "F.scaled_dot_product_attention does (PyTorch 2.5 and later)."
)
FULLY_MASKED_DISTRIBUTION_NOTE = (
    "your fully masked query rows (mask all False) hold finite weights that add up to 1 "
    "over keys the query may not see: what adding a finite mask such as -1e9 to the "
    "scores gives when they keep their differences. That is accepted: such a row belongs "
    "to padding, and its output is ignored downstream. The course's reference returns "
    "all-zero weights there, as F.scaled_dot_product_attention does (PyTorch 2.5 and later)."
)
NOT_A_DISTRIBUTION = (
    "Each query's weights must add up to 1 over the keys: take the softmax of the scaled "
    "scores over the last axis, dim=-1."
)
TRANSPOSED_WEIGHTS = (
    "Yours are the right weights transposed: each query's weights stand in a column, (..., "
    "len_k, len_q), instead of a row (..., len_q, len_k). Return them as the softmax gives "
    "them, one row per query (no .transpose(-1, -2), .T or .mT after it)."
)
SOFTMAX_OVER_QUERIES = (
    "Your weights sum to 1 over the queries (dim=-2) instead of over the keys (dim=-1). Each "
    "query row is a probability distribution over the keys: take the softmax with dim=-1."
)
NEGATIVE_WEIGHTS = (
    "Attention weights come out of a softmax, so they are never negative. Negative "
    "weights mean the softmax's output is not what was returned: the scores used without "
    "the softmax (or normalised by their sum), or its logarithm (log_softmax)."
)
LOG_WEIGHTS = (
    "They are the logarithms of the right weights: log_softmax (log-probabilities, all "
    "<= 0, what a loss takes) where the softmax belongs. Use torch.softmax(scores, dim=-1)."
)
NOT_FINITE = (
    "Check the masking and the softmax: exp() of large scores overflows to inf (and "
    "inf / inf is NaN) unless the softmax subtracts the row maximum first, as torch.softmax "
    "does."
)
BLOCKED_NOT_MINUS_INF = (
    "The blocked scores reached the softmax as +inf or NaN, not -inf: check the sign of "
    "the fill value (-float('-inf') is +inf; write float('-inf')) and that it is not NaN. "
    "A +inf score makes exp() overflow, and inf / inf is NaN."
)
MASK_TIMES_INF = (
    "That is what multiplying by infinity does: 0 * inf is NaN, so an additive mask made "
    "as (~mask) * float('-inf') (or mask * -inf, or -inf * (1 - mask)) holds NaN where it "
    "should hold 0, and the NaN spreads through the softmax to every entry of its row. "
    "Put -inf only where the mask blocks: scores.masked_fill(~mask, float('-inf')), or "
    "torch.where(mask, scores, float('-inf')) (an additive mask needs "
    "torch.zeros(...).masked_fill(~mask, float('-inf')), not a product)."
)
ALL_ZEROED = (
    "Only the rows of queries that may attend to no key should be zero. This looks like "
    "their fix applied to the whole tensor: a test over all of it (for example `if "
    "torch.isnan(weights).any(): weights = torch.zeros_like(weights)`, or the mask reduced "
    "without dim=-1). Zero just those rows: weights.masked_fill(~mask.any(dim=-1, "
    "keepdim=True), 0.0), or torch.nan_to_num(weights)."
)
UNIFORM_WEIGHTS = (
    "Every query spreads its weight evenly over the keys it may attend to, whatever the "
    "scores: the scores never reached the softmax (were they all made equal, multiplied "
    "by 0, or was the softmax taken over a dim of size 1?)."
)


# ------------------------------------------------------------------ fully masked rows
def fully_masked_rows(mask: torch.Tensor | None, shape: torch.Size | tuple) -> torch.Tensor:
    """bool (..., len_q): the query rows of weights shaped ``shape`` with no allowed key."""
    if mask is None:
        return torch.zeros(tuple(shape)[:-1], dtype=torch.bool)
    return ~mask.expand(tuple(shape)).any(dim=-1)


def fully_masked_convention(weights: torch.Tensor, mask: torch.Tensor | None) -> str | None:
    """How ``weights`` treats its fully masked rows: "zero" (all of them zero), "uniform"
    (all ``1/len_k``), "distribution" (finite, non-negative, each adding up to 1, not all
    uniform), "other" (anything else, NaN included), or None when there is no such row."""
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
    sums = rows.sum(dim=-1)
    if (rows >= -1e-6).all() and torch.allclose(sums, torch.ones_like(sums), atol=1e-4):
        return "distribution"
    return "other"


def with_fully_masked_rows(
    weights: torch.Tensor,
    mask: torch.Tensor | None,
    convention: str | None,
    *,
    like: torch.Tensor | None = None,
) -> torch.Tensor:
    """``weights`` with its fully masked rows set to ``convention``.

    "zero" and "uniform" need nothing else. For "distribution" (the learner's own
    finite rows), pass the learner's weights as ``like``: its fully masked rows are
    copied (with ``like`` given, this is done for every accepted convention). Use it
    to compute the output the learner's convention implies:
    ``with_fully_masked_rows(expected_w, mask, convention, like=learner_w) @ v``.
    """
    if convention not in ACCEPTED_CONVENTIONS or mask is None:
        return weights
    dead = fully_masked_rows(mask, weights.shape)[..., None]  # (..., len_q, 1)
    if like is not None:
        return torch.where(dead, like.detach().to(weights.dtype), weights)
    if convention == "distribution":
        return weights
    fill = 0.0 if convention == "zero" else 1.0 / weights.shape[-1]
    return weights.masked_fill(dead, fill)


# -------------------------------------------------------------------- known mistakes
def attention_weights_variant(
    q: torch.Tensor,
    k: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    scale: float | None = None,
    dim: int = -1,
    mask_mode: str = "before",
    fill: float = float("-inf"),
) -> torch.Tensor:
    """The weights (float64, NaN turned into 0) that a variant of attention gives, to
    name a learner's mistake: ``softmax(q kᵀ / scale)`` over ``dim`` (``scale``
    defaults to √d_k), with the mask applied ``"before"`` the softmax (with ``fill``),
    ``"after"`` it (weights times the mask), ``"inverted"`` (True = blocked), or
    ``"none"`` (ignored). The weights of the one float64 attention oracle,
    :func:`~transformer_course.checking.oracles.scaled_dot_product_attention_f`."""
    q, k = q.detach(), k.detach()
    _, weights = scaled_dot_product_attention_f(
        q,
        k,
        k,  # the values play no part in the weights
        mask,
        scale=None if scale is None else 1.0 / scale,
        softmax_dim=dim,
        mask_mode="given" if mask_mode == "before" else mask_mode,
        fill=fill,
    )
    return weights


# ---------------------------------------------------------------------- the diagnosis
def _index(flat: torch.Tensor) -> tuple[int, ...]:
    """The index of the first True entry of a bool tensor."""
    return tuple(int(i) for i in flat.nonzero()[0])


def _looks_inverted(w: torch.Tensor, allowed: torch.Tensor, live: torch.Tensor) -> bool:
    """All the weight of every row that has both allowed and blocked keys sits on the
    blocked ones: the mask was read the other way round."""
    mixed = live & (~allowed).any(dim=-1)  # (..., len_q): rows with keys on both sides
    if not mixed.any():
        return False
    on_allowed = (w * allowed).sum(dim=-1)  # (..., len_q)
    return bool((on_allowed[mixed] < 1e-6).all())


def _softmax_axis(w: torch.Tensor) -> str:
    """When ``w`` sums to 1 over an axis before the queries' (the batch, the heads) rather
    than over the keys: that axis named, else "" (blind7b-mha-inline-softmax-over-heads)."""
    names = {0: "the batch axis", 1: "the heads axis"} if w.dim() == 4 else {0: "the batch axis"}
    for dim in range(w.dim() - 2):
        sums = w.sum(dim=dim)
        if w.shape[dim] > 1 and torch.allclose(sums, torch.ones_like(sums), atol=1e-4):
            name = names.get(dim, f"axis {dim}")
            return (
                f"Your weights sum to 1 over {name} (dim={dim}) instead of over the keys: the "
                f"softmax was taken over dim={dim}. Each query row is a distribution over the "
                "keys: take the softmax of the scaled scores with dim=-1."
            )
    return ""


def _uniform_on_allowed(w: torch.Tensor, allowed: torch.Tensor, live: torch.Tensor) -> bool:
    counts = allowed.sum(dim=-1, keepdim=True).clamp(min=1)  # (..., len_q, 1)
    uniform = allowed / counts  # (..., len_q, len_k)
    return bool(live.any()) and torch.allclose(w[live], uniform[live].double(), atol=1e-6)


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
    pairs: Mapping[str, Any] | None = None,
    explain: Callable[[], str] | None = None,
    leak_explain: Callable[[], str] | None = None,
) -> str | None:
    """Check attention weights ``(..., len_q, len_k)`` against ``expected`` (the reference's,
    whose fully masked rows are zero) and explain any difference.

    Shapes must have been checked already. The order of the diagnosis: NaN or inf (on
    the fully masked rows, on the rows an inverted mask would empty, elsewhere);
    negative weights; weight on forbidden keys (a matching entry of ``mistakes`` first,
    then an inverted mask with its own message, then ``leak_explain``'s diagnosis, made
    from more than these weights, then the generic one);
    fully masked rows that follow no accepted convention; then the values: first the
    ``mistakes`` (a diagnosis mapped to the weights that mistake gives, or to a callable
    giving them, or None), then properties (rows not adding up to 1, a softmax over the
    queries, the mask applied after the softmax, uniform rows), then the largest
    difference. ``pairs`` (two mistakes at once, as ``mistakes``) are tried after the
    single mistakes and named only when exactly one matches; ``explain`` (a diagnosis from
    more than the value, or "") comes next.

    Returns the learner's convention for fully masked rows ("zero", "uniform",
    "distribution", or None when there are none), so that the caller can compute the
    expected *output* under the same convention (:func:`with_fully_masked_rows`).
    """
    w = weights.detach().double()
    shape = tuple(w.shape)
    allowed = (
        torch.ones(shape, dtype=torch.bool) if mask is None else mask.expand(shape)
    )  # (..., len_q, len_k)
    dead = fully_masked_rows(mask, shape)  # (..., len_q)
    live = ~dead

    # 1. NaN or inf: on exactly the fully masked rows, on the rows that allow every key
    #    (what an inverted mask empties), or anywhere else.
    bad_rows = (~torch.isfinite(w)).any(dim=-1)  # (..., len_q)
    if bad_rows.any():
        if dead.any() and not bad_rows[live].any():
            c.fail(
                f"{what}: {FULLY_MASKED_NAN} (The first such row is query row "
                f"{_index(dead & bad_rows)}, batch indices first.)"
            )
        everything = allowed.all(dim=-1)  # (..., len_q): rows that allow every key
        if mask is not None and everything.any() and bool((bad_rows == everything).all()):
            c.fail(
                f"{what} is NaN in exactly the query rows whose mask allows every key, "
                f"as if those rows allowed none. {INVERTED_MASK}"
            )
        blocked = (~allowed).any(dim=-1)  # (..., len_q): rows with a blocked key
        if mask is not None and (~blocked).any() and bool((bad_rows == blocked).all()):
            c.fail(
                f"{what} is NaN or inf in exactly the query rows that have a blocked key "
                f"(first: query row {_index(bad_rows)}, batch indices first) and finite in "
                f"the rows that block nothing. {BLOCKED_NOT_MINUS_INF}"
            )
        if mask is not None and (~blocked).any() and bool(bad_rows.all()):
            c.fail(
                f"{what} is NaN or inf in every query row, even those whose mask blocks no "
                f"key (first: query row {_index(~blocked)}, batch indices first): the "
                f"allowed entries turned into NaN as well, not only the blocked ones. "
                f"{MASK_TIMES_INF}"
            )
        c.fail(
            f"{what} contains NaN or inf (first in query row {_index(bad_rows)}, batch "
            f"indices first) where the reference's weights are finite. {NOT_FINITE}"
        )
    c.ok()
    if (w < -1e-6).any():
        logs = torch.log(expected.detach().double())  # -inf where the reference gives 0
        both = torch.isfinite(logs) & live[..., None]
        is_log = (
            logs.shape == w.shape
            and bool(both.any())
            and torch.allclose(w[both], logs[both], rtol=max(rtol, 1e-4), atol=max(atol, 1e-5))
        )
        c.fail(
            f"{what} has negative entries (the smallest is {float(w.min()):.3g} at index "
            f"{_index(w == w.min())}). {LOG_WEIGHTS if is_log else NEGATIVE_WEIGHTS}"
        )
    c.ok()

    def known_mistake(table: Mapping[str, Any] | None = mistakes) -> str | None:
        """The first of ``table`` that ``w`` matches (fully masked rows aside)."""
        for message, wrong in (table or {}).items():
            wrong_value = wrong() if callable(wrong) else wrong
            if wrong_value is None:
                continue
            wrong_value = with_fully_masked_rows(
                torch.nan_to_num(wrong_value.detach().double(), nan=0.0), mask, convention, like=w
            )
            if wrong_value.shape == w.shape and torch.allclose(
                w, wrong_value, rtol=max(rtol, 1e-4), atol=max(atol, 1e-5)
            ):
                return message
        return None

    # 2. The mask: no weight on forbidden keys of live rows; fully masked rows finite. A
    #    known mistake that explains a leak (the mask ignored, filled with 0) comes first.
    convention = fully_masked_convention(w, mask)
    if mask is not None:
        leak = (w > 1e-6) & ~allowed & live[..., None]  # (..., len_q, len_k)
        if leak.any():
            if (message := known_mistake()) is not None:
                c.fail(f"{what} is not what the reference gives. {message}")
            if _looks_inverted(w, allowed, live):
                c.fail(f"{what} puts weight only on keys the mask forbids. {INVERTED_MASK}")
            if axis := _softmax_axis(w):
                c.fail(f"{what} gives weight to keys the mask forbids. {axis}")
            if other := _mask_of_another_sequence(w, allowed, leak):
                c.fail(f"{what} gives weight to keys the mask forbids. {other}")
            # the right weights transposed, before the mask read on swapped axes: a value
            # match is the more specific (both leave zeros where the transposed mask blocks)
            if _transposed(w, expected, rtol, atol):
                c.fail(f"{what} gives weight to keys the mask forbids. {TRANSPOSED_WEIGHTS}")
            if swapped := _mask_on_swapped_axes(w, allowed):
                c.fail(f"{what} gives weight to keys the mask forbids. {swapped}")
            if part := _mask_on_part(w, allowed):
                c.fail(f"{what} gives weight to keys the mask forbids. {part}")
            # a diagnosis the caller makes from more than these weights (round 11: sequence
            # 0's mask used for the whole batch was told "the mask is not applied")
            if leak_explain is not None and (diagnosis := leak_explain()):
                c.fail(f"{what} gives weight to keys the mask forbids. {diagnosis}")
            index = _index(leak)
            c.fail(
                f"{what} gives weight to keys the mask forbids (first at index {index}: "
                f"mask False, weight {float(w[index]):.3g}). {MASK_NOT_APPLIED}"
            )
        c.ok()
        if convention == "other":
            index = _index(dead)
            row = w[index]
            c.fail(
                f"{what}: {FULLY_MASKED_OTHER} Query row {index} (batch indices first) is "
                f"{_row(row)}, adding up to {float(row.sum()):.3g}."
            )
        if convention == "uniform":
            c.note(FULLY_MASKED_UNIFORM_NOTE)
        elif convention == "distribution":
            c.note(FULLY_MASKED_DISTRIBUTION_NOTE)
        c.ok()

    # 3. The values, compared on what is not a matter of convention.
    target = with_fully_masked_rows(expected.detach().double(), mask, convention, like=w)
    if torch.allclose(w, target, rtol=rtol, atol=atol):
        c.ok()
        return convention
    if (message := known_mistake()) is not None:
        c.fail(f"{what} is not what the reference gives. {message}")
    both = [message for message in (pairs or {}) if known_mistake({message: pairs[message]})]
    if len(both) == 1:
        c.fail(f"{what} is not what the reference gives. {both[0]}")
    if explain is not None and (diagnosis := explain()):
        c.fail(f"{what} is not what the reference gives. {diagnosis}")

    # 4. Properties that explain the rest.
    if (narrow := narrow_dtype_grid(w, target)) is not None:
        # rows that sum to 1 only up to the narrow dtype's rounding: said before the sums
        diff = (w - target).abs()
        name = str(narrow).removeprefix("torch.")
        c.fail(
            f"{what} is not what the reference gives: every weight is a {name} number "
            f"(cast back to {str(weights.dtype).removeprefix('torch.')}), off the reference by up "
            f"to {float(diff.max()):.2g}, about {name}'s rounding (it keeps about "
            f"{3 if narrow == torch.float16 else 2} significant digits). {NARROW_DTYPE_CAUSE}"
        )
    if mask is not None and (one := _one_sequences_mask(w, allowed)):
        c.fail(f"{what} is not what the reference gives. {one}")
    if mask is not None and dead.any() and live.any() and bool((w[live].abs() < 1e-12).all()):
        c.fail(
            f"{what} is zero everywhere, also in the rows that may attend to a key. {ALL_ZEROED}"
        )
    sums = w.sum(dim=-1)  # (..., len_q)
    # the right weights, transposed (round 11: weights.transpose(-1, -2) on return was told
    # to take the softmax over dim=-1, which it did)
    if _transposed(w, target, rtol, atol):
        c.fail(f"{what} is not what the reference gives. {TRANSPOSED_WEIGHTS}")
    if not torch.allclose(sums[live], torch.ones_like(sums[live]), atol=1e-4):
        columns = w.sum(dim=-2)  # (..., len_k)
        if mask is None and torch.allclose(columns, torch.ones_like(columns), atol=1e-4):
            c.fail(f"{what}: {SOFTMAX_OVER_QUERIES}")
        if axis := _softmax_axis(w):
            c.fail(f"{what} does not sum to 1 over the keys. {axis}")
        if mask is not None:
            complete = live & allowed.all(dim=-1)  # rows with nothing blocked
            partial = live & ~allowed.all(dim=-1)  # rows with blocked keys
            if (
                partial.any()
                and torch.allclose(sums[complete], torch.ones_like(sums[complete]), atol=1e-4)
                and bool((sums[partial] < 1 - 1e-4).all())
                and bool((sums[partial] > 1e-6).all())
            ):
                c.fail(f"{what}: {MASK_AFTER_SOFTMAX}")
        c.fail(
            f"{what} does not sum to 1 over the keys for every query (row sums from "
            f"{float(sums[live].min()):.3g} to {float(sums[live].max()):.3g}). "
            f"{NOT_A_DISTRIBUTION}"
        )
    if _uniform_on_allowed(w, allowed, live) and not _uniform_on_allowed(target, allowed, live):
        c.fail(f"{what} is not what the reference gives. {UNIFORM_WEIGHTS}")
    diff = (w - target).abs()
    index = _index(diff == diff.max())
    c.fail(
        f"{what} differs from the reference: largest difference {float(diff.max()):.3g} at "
        f"index {index} (yours {float(w[index]):.6g}, expected {float(target[index]):.6g}). "
        "Check the steps: scores = q @ kᵀ / √d_k, where d_k is the width of each query and key; "
        "blocked scores = -inf (or a large negative number); softmax over the keys."
    )
    return convention  # not reached


def _mask_on_swapped_axes(w: torch.Tensor, allowed: torch.Tensor) -> str | None:
    """For leaking weights with len_q = len_k: when the weights are zero exactly where the
    *transposed* mask blocks (in every row that mask leaves a key to), the mask was read
    with its query and key axes swapped (a mask built as (len_k, len_q), or transposed to
    match q kᵀ). Only a square mask that is not symmetric (a causal one) shows it."""
    if w.shape[-1] != w.shape[-2] or w.shape[-1] < 2:
        return None
    swapped = allowed.transpose(-2, -1)
    if torch.equal(swapped, allowed):
        return None
    rows = swapped.any(dim=-1)  # (..., len_q): rows the swapped mask leaves a key to
    if not rows.any():
        return None
    zero = w <= 1e-6
    if not torch.equal(zero[rows], ~swapped[rows]):
        return None
    return (
        "Your weights are zero exactly where the *transposed* mask blocks: the mask was "
        "read with its query and key axes swapped (mask.transpose(-2, -1), mask.T, or a "
        "mask built as (len_k, len_q)). Its last two axes are (len_q, len_k), the same as "
        "the scores q kᵀ: row i says which keys query i may see. Use it as given; for a "
        "causal mask, query i sees keys 0..i (a lower triangle, torch.tril)."
    )


def _transposed(w: torch.Tensor, expected: torch.Tensor, rtol: float, atol: float) -> bool:
    """Whether ``w`` is ``expected`` with its last two axes exchanged (square only)."""
    right = torch.nan_to_num(expected.detach().double(), nan=0.0)
    return (
        w.shape[-1] == w.shape[-2]
        and w.shape == right.shape
        and not torch.allclose(w, right, rtol=max(rtol, 1e-4), atol=max(atol, 1e-5))
        and torch.allclose(w.transpose(-1, -2), right, rtol=max(rtol, 1e-4), atol=max(atol, 1e-5))
    )


def _one_sequences_mask(w: torch.Tensor, allowed: torch.Tensor) -> str | None:
    """For weights (batch, heads, len_q, len_k) whose every (batch, head) slice is zero
    exactly where the mask of one same sequence blocks, that mask being not every
    sequence's own: one sequence's mask was applied to the whole batch."""
    if w.dim() != 4 or allowed.dim() != 4 or w.shape[0] < 2:
        return None
    allowed = allowed.expand(w.shape)
    zero = w <= 1e-6
    if not bool(zero.any()):
        return None  # a mask merely ignored leaves no zero at all
    common = set(range(w.shape[0]))
    for b in range(w.shape[0]):
        for h in range(w.shape[1]):
            common &= {o for o in range(w.shape[0]) if torch.equal(zero[b, h], ~allowed[o, h])}
    if len(common) != 1:
        return None
    (o,) = common
    if all(torch.equal(allowed[b], allowed[o]) for b in range(w.shape[0])):
        return None
    return (
        f"Every sequence of the batch has zero weight exactly where the mask of batch "
        f"element {o} blocks, and nowhere else: the mask of sequence {o} alone was applied "
        "to the whole batch (an index such as mask[0], or a loop over the batch that keeps "
        "one sequence's mask), so the other sequences follow its mask instead of their own. "
        "Apply the whole mask, (batch, 1, 1, len_k) or (batch, 1, len_q, len_k), and let it "
        "broadcast over the heads and queries."
    )


def _listed(items: list[int]) -> str:
    return ", ".join(map(str, items[:-1])) + (" and " if len(items) > 1 else "") + str(items[-1])


def _counted(noun: str, items: list[int], one: str, many: str) -> str:
    if len(items) == 1:
        return f"{noun} {items[0]} {one}"
    return f"{noun}s {_listed(items)} {many}"


def _mask_on_part(w: torch.Tensor, allowed: torch.Tensor) -> str | None:
    """For leaking weights (batch, heads, len_q, len_k): when every (batch, head) slice
    whose mask blocks a key either follows its mask exactly (zero on every blocked key,
    nowhere else) or has no zero at all (the mask never reached it), both kinds present,
    the mask was applied to part of the batch or of the heads: which part, by head or by
    batch element when the split is along one axis."""
    if w.dim() != 4 or allowed.dim() != 4:
        return None
    allowed = allowed.expand(w.shape)
    zero = w <= 1e-6
    masked, unmasked = set(), set()
    for b in range(w.shape[0]):
        for h in range(w.shape[1]):
            if bool(allowed[b, h].all()):
                continue  # nothing to block: it follows the mask either way
            if torch.equal(zero[b, h], ~allowed[b, h]):
                masked.add((b, h))
            elif not bool(zero[b, h].any()):
                unmasked.add((b, h))
            else:
                return None
    if not masked or not unmasked:
        return None
    heads_masked = sorted({h for _, h in masked})
    heads_unmasked = sorted({h for _, h in unmasked})
    batch_masked = sorted({b for b, _ in masked})
    batch_unmasked = sorted({b for b, _ in unmasked})
    if w.shape[1] > 1 and not set(heads_masked) & set(heads_unmasked):
        where = (
            f"{_counted('head', heads_masked, 'follows', 'follow')} the mask exactly, while "
            f"{_counted('head', heads_unmasked, 'gives', 'give')} weight to every key it "
            "forbids: the mask reached only part of the heads (a slice such as [:, :1], or a "
            "loop over the heads that passes the mask to some of them). Every head uses the "
            "same mask: pass it to the attention of all heads at once, shaped to broadcast "
            "over the heads axis"
        )
    elif w.shape[0] > 1 and not set(batch_masked) & set(batch_unmasked):
        where = (
            f"{_counted('batch element', batch_masked, 'follows', 'follow')} the mask "
            f"exactly, while {_counted('batch element', batch_unmasked, 'gives', 'give')} "
            "weight to every key it forbids: the mask reached only part of the batch (a "
            "slice, or a loop over the sequences that applies it to some of them). Apply the "
            "mask to the whole batch"
        )
    else:
        return None
    return f"Some attention slices are masked and the others not at all: {where}."


def _mask_of_another_sequence(
    w: torch.Tensor, allowed: torch.Tensor, leak: torch.Tensor
) -> str | None:
    """For leaking weights (batch, heads, len_q, len_k): when every (batch, head) slice
    whose zeros are not where its own mask blocks has them exactly where the mask of
    another sequence of the batch blocks, and some slice has zeros on keys its own mask
    allows (a mask merely ignored never zeroes anything), the masks were mixed between
    the batch's sequences."""
    if w.dim() != 4 or w.shape[0] < 2 or not leak.any():
        return None
    if one := _one_sequences_mask(w, allowed):
        return one
    zero = w <= 1e-6
    example = None
    for b in range(w.shape[0]):
        for h in range(w.shape[1]):
            if torch.equal(zero[b, h], ~allowed[b, h]):
                continue
            others = [
                o for o in range(w.shape[0]) if o != b and torch.equal(zero[b, h], ~allowed[o, h])
            ]
            if not others:
                return None
            if example is None and (zero[b, h] & allowed[b, h]).any():
                example = (b, h, others[0])
    if example is None:
        return None
    b, h, o = example
    return (
        f"In batch element {b}, head {h}, your weights are zero exactly where the mask of "
        f"batch element {o} blocks (keys its own mask allows among them), and every head "
        "that does not follow its own mask follows another sequence's: the masks are mixed "
        "between the sequences of the batch. If you fold the heads into the batch axis "
        "(batch * num_heads, ...), repeat each sequence's mask once per head in the same "
        "order, mask.repeat_interleave(num_heads, dim=0), not mask.repeat(num_heads, 1, 1), "
        "which tiles the whole batch; or keep (batch, num_heads, ...) and let the mask "
        "broadcast over the heads."
    )


def _row(row: torch.Tensor) -> str:
    values = ", ".join(f"{float(x):.3g}" for x in row[:8])
    return f"[{values}{', ...' if row.numel() > 8 else ''}]"


def weights_through_values(
    run: Callable[[torch.Tensor], Any], values: torch.Tensor, output: torch.Tensor
) -> torch.Tensor | None:
    """The attention weights a learner's attention function uses, read off its outputs:
    ``run(v)`` is the learner's function on the failing input with the values replaced by
    ``v``. An attention output is weights @ v, so one-hot values (v[..., j, :] = e_j, an
    identity of len_k rows) return the weights themselves, (..., len_q, len_k). Kept only
    when the learner's function is linear in the values the way attention is: its
    ``output`` on ``values`` (..., len_k, d_v) must be those weights @ values, so a
    mistake that reads the values themselves wrongly (sliced, transposed) gives None.
    None too when the call raises or returns anything but a tensor of the expected
    shape (values that crossed the grader's boundary included)."""
    len_k = values.shape[-2]
    one_hot = torch.eye(len_k, dtype=values.dtype).expand(*values.shape[:-2], len_k, len_k)
    try:
        weights = run(one_hot.clone())  # (..., len_q, len_k)
    except Exception:  # the learner's code on an input it cannot take: nothing is learnt
        return None
    if not isinstance(weights, torch.Tensor) or not isinstance(output, torch.Tensor):
        return None
    if weights.shape != (*output.shape[:-1], len_k) or not bool(torch.isfinite(weights).all()):
        return None
    weights = weights.detach().double()
    replayed = weights @ values.detach().double()  # (..., len_q, d_v)
    if not torch.allclose(replayed, output.detach().double(), rtol=1e-4, atol=1e-5):
        return None
    return weights


def mask_misapplied(
    weights: torch.Tensor, scores: torch.Tensor, allowed: torch.Tensor, rule: str
) -> str:
    """What the learner's recovered ``weights`` (..., len_q, len_k) do with the mask
    ``allowed`` (True = may attend), given the reference's ``scores`` (scaled, unmasked):
    the masked keys zeroed but still counted in the normaliser (the weights are the
    softmax over every key with the blocked ones then set to 0), or else the (query, key)
    pairs that get weight though blocked and those that get none though allowed, as
    observed. ``rule`` states the mask the exercise asks for. "" when the weights' support
    is right and no relation explains them."""
    allowed = allowed.expand(weights.shape)
    live = allowed.any(dim=-1)  # (..., len_q): rows with a key to attend to
    full = torch.softmax(scores.double(), dim=-1) * allowed  # (..., len_q, len_k)
    partial = live & ~allowed.all(dim=-1)  # rows that block some key
    sums = weights.sum(dim=-1)  # (..., len_q)
    if (
        bool(partial.any())
        and torch.allclose(weights[live], full[live], rtol=1e-4, atol=1e-6)
        and bool((sums[partial] < 1 - 1e-3).any())
    ):
        low = float(sums[partial].min())
        return (
            "Read off your outputs with one-hot values (each output row is then that "
            "query's weights), your weights on the blocked keys are 0, but the rows that "
            f"block some key add up to less than 1 (down to {low:.3g}): they are the "
            "softmax over every key, the blocked ones included, with the blocked weights "
            "set to 0 afterwards. The normaliser (the running sum, or the softmax's "
            "denominator) still counts the blocked keys' exponentials: the mask is applied "
            "too late. Fill the blocked scores with -inf before the exponential, so that "
            f"they add nothing to the sum nor to the output. {rule}"
        )
    right = torch.softmax(scores.double().masked_fill(~allowed, float("-inf")), dim=-1)
    # only clear cases: weight of 1e-3 or more where none belongs, or none (below a
    # thousandth of the right weight) where the right weight is 1e-3 or more
    leaks = (weights > 1e-3) & ~allowed  # weight on a blocked key
    missing = (weights < 1e-3 * right) & (right > 1e-3) & allowed & live[..., None]
    if not bool(leaks.any()) and not bool(missing.any()):
        return ""

    def pairs(where: torch.Tensor) -> str:
        found = where.reshape(-1, *where.shape[-2:]).any(dim=0).nonzero().tolist()
        shown = ", ".join(f"({i}, {j})" for i, j in found[:6])
        return shown + (", ..." if len(found) > 6 else "")

    parts = []
    if bool(leaks.any()):
        parts.append(f"weight on (query, key) pairs the mask blocks: {pairs(leaks)}")
    if bool(missing.any()):
        parts.append(f"no weight on pairs it allows: {pairs(missing)}")
    return (
        "Read off your outputs with one-hot values (each output row is then that query's "
        f"weights), your attention puts {'; and '.join(parts)}. {rule}"
    )
