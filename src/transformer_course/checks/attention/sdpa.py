"""The check of ``scaled_dot_product_attention``: shapes, scale, masks (fully masked rows
included), batched inputs and gradients, and the mistakes it names.
"""

from __future__ import annotations

import math
import re
import traceback
from collections.abc import Callable
from functools import partial

import torch

from transformer_course.checking import (
    Checker,
    CheckFailure,
    tolerance,
    torch_generator,
)
from transformer_course.checking.attention_weights import (
    BLOCKED_NOT_MINUS_INF,
    FULLY_MASKED_NAN,
    INVERTED_MASK,
    MASK_TIMES_INF,
    SOFTMAX_OVER_QUERIES,
    attention_weights_variant,
    expect_attention_weights,
    with_fully_masked_rows,
)
from transformer_course.checking.failure import _is_learner_frame
from transformer_course.checking.graph import call_gradients
from transformer_course.checking.hints import two_mistakes
from transformer_course.checking.reshape_moves import reshaped_instead
from transformer_course.checking.stand_ins import stand_in_sentence, stand_ins
from transformer_course.checking.temperature import COMMON_FACTORS, named_factors
from transformer_course.reference import attention as ref

from .common import _SCALED_AFTER_SOFTMAX, _output_tolerance


def _learner_source(exc: BaseException) -> str:
    """The source lines of the frames an exception passed through (the learner's among
    them), to recognise what the code that raised it wrote."""
    return "\n".join(frame.line or "" for frame in traceback.extract_tb(exc.__traceback__))


_SDPA_SWAP = (
    "The inputs have len_q = {len_q} queries and len_k = {len_k} keys on purpose. The scores "
    "are q @ kᵀ, shape (..., len_q, len_k): one row per query, one column per key. Did you "
    "swap q and k (k @ qᵀ), or transpose the weights?"
)
_SDPA_SHAPES = (
    "Check the shapes of the two products: the scores are q @ k.transpose(-2, -1), "
    "(..., len_q, d_k) @ (..., d_k, len_k) -> (..., len_q, len_k); the output is weights @ v, "
    "(..., len_q, len_k) @ (..., len_k, d_v) -> (..., len_q, d_v). Here len_q = {len_q}, "
    "len_k = {len_k}, d_k = {d_k} and d_v = {d_v} differ on purpose. Did you swap q and k "
    "(k @ qᵀ), multiply by k instead of v, transpose the weights before weights @ v, or "
    "transpose other dims than the last two (k.T "
    "reverses them all, k.transpose(0, 1) swaps the first two; k.transpose(-2, -1) is right "
    "whatever the batch dims)?"
)
_SDPA_DOT_T = (
    "`k.T` reverses *all* the dims of a tensor: on a batch of keys of shape {shape} it gives "
    "{reversed}, not {wanted}, so the batch dims end up in the matrix product (PyTorch warns "
    "that .T on a tensor that is not 2-D is deprecated). It works on a single 2-D sentence "
    "and breaks on batches. Transpose only the last two dims: k.transpose(-2, -1) (or k.mT)."
)
_SDPA_SMALL_T = (
    "k.t() only transposes 2-D tensors, and these inputs have batch dims in front. "
    "Transpose the last two dims: k.transpose(-2, -1) (or k.mT)."
)
_SDPA_PERMUTE = (
    "k.permute(...) names every dim, so it fits one rank only: permute(0, 2, 1) is "
    "written for (batch, len, d) and fails on {ndim}-D inputs such as these. Swap the last "
    "two dims, whatever comes before: k.transpose(-2, -1) (or k.mT)."
)
_SDPA_TRANSPOSE_DIMS = (
    "Transposing with dims counted from the front (transpose(0, 1), transpose(1, 2)) only "
    "swaps the last two dims for inputs of one particular rank: with (batch, len, d) "
    "transpose(1, 2) is right, with (batch, num_heads, len, d) it swaps heads and len. "
    "Count from the end: k.transpose(-2, -1) works for any number of batch dims."
)
_SDPA_BMM = (
    "torch.bmm only takes 3-D tensors (batch, n, m); these inputs have {ndim} dims. Use @ "
    "(torch.matmul), which broadcasts over any number of leading batch dims."
)
_SDPA_BOOL_INDEX = (
    "The mask is only broadcastable to (..., len_q, len_k), not necessarily of the same shape "
    "as the scores: boolean indexing (scores[~mask] = ...) needs equal shapes. Use masked_fill "
    "or torch.where, which broadcast."
)
_SDPA_MUTATION = (
    "For example q /= math.sqrt(d_k) divides the caller's q: write q = q / math.sqrt(d_k) "
    "(a new tensor), or scale the scores instead. The methods ending in _ work in place too: "
    "mask.logical_not_() or mask.unsqueeze_(1) change the caller's mask, where ~mask and "
    "mask.unsqueeze(1) make new tensors."
)
_SDPA_FILL_ZERO = (
    "Your weights match blocked scores set to 0 instead of -inf. A score of 0 still gets "
    "weight e^0 = 1 in the softmax, so the blocked keys are not hidden at all. Fill with "
    "-inf (or a large negative number such as -1e9; -1e-9, with its exponent negative, "
    "is a tiny number and acts as 0)."
)
_SDPA_BOOL_ADDED = (
    "Your weights match softmax(scores + mask) with the bool mask read as numbers (True = 1, "
    "False = 0): adding it shifts some scores by 1 and blocks nothing. Block the keys where "
    "the mask is False with masked_fill or torch.where, or first turn the mask into an "
    "additive one (0 where allowed, -inf where blocked)."
)
_SDPA_NEGATED = (
    "Your weights are the softmax of the negated scores, -(q kᵀ) / √d_k: the sign of the "
    "scores flipped on the way (max - scores instead of scores - max, or q or k negated), "
    "so the keys most similar to each query get the smallest weights. The weights grow "
    "with the scores: softmax(q kᵀ / √d_k) over the allowed keys."
)
_SDPA_MASK_IGNORED = (
    "Your weights match attention with no mask at all: keys where the mask is False still "
    "get weight, so the mask never reached the scores. Either it is not used, or its result "
    "was thrown away: scores.masked_fill(...) returns a new tensor and leaves scores as they "
    "were, so assign it (scores = scores.masked_fill(~mask, float('-inf'))) or use the "
    "in-place masked_fill_. The blocked keys' scaled scores must be -inf (or a large "
    "negative number) before the softmax."
)
_SDPA_MASK_AFTER = (
    "Your weights look like the mask was applied after the softmax: masked keys get 0, but "
    "the remaining weights of those rows no longer add up to 1. Apply the mask to the scaled "
    "scores before the softmax (fill with -inf), so the softmax renormalises over the keys "
    "that are allowed."
)


_SDPA_RENORMALISED_AFTER = (
    "Your weights are right on every query row but {rows}: exactly the rows where a key "
    "the mask blocks scores far above every allowed key (here by more than {gap:.0f}), and "
    "there yours {got}. That is what a mask applied after the softmax gives: the softmax "
    "(or the exponentials, exp(s - max) with the max over every key) ran over all the keys, "
    "blocked ones included, then the blocked keys were zeroed and the row divided by its new "
    "sum. Where a blocked key dominates, exp() gives the allowed keys exactly 0 in "
    "{dtype} before the mask is applied, and nothing is left to renormalise. Block the "
    "scores before the softmax (masked_fill(~mask, -inf)), so it only ever sees the allowed "
    "keys."
)


def _starved_rows_note(q, k, mask, weights, expected, rtol, atol) -> str:
    """When the learner's weights are right on every query row but some of those where a
    blocked key's scaled score tops every allowed one by more than 30 (where exp() of the
    allowed scores, taken relative to the blocked key, underflows), and wrong on at least
    one of them: the mask applied after a softmax over all keys, then renormalised; ""
    otherwise (and "" without a mask)."""
    if mask is None or not isinstance(weights, torch.Tensor) or weights.shape != expected.shape:
        return ""
    with torch.no_grad():
        scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = mask.expand(scores.shape)
        top_blocked = scores.masked_fill(allowed, float("-inf")).amax(dim=-1)
        top_allowed = scores.masked_fill(~allowed, float("-inf")).amax(dim=-1)
        gap = top_blocked - top_allowed  # (..., len_q): -inf or nan where none is allowed
        starved = torch.nan_to_num(gap, nan=-1.0, neginf=-1.0, posinf=-1.0) > 30
        w = weights.detach().double()
        right = torch.isclose(w, expected.double(), rtol=max(rtol, 1e-4), atol=max(atol, 1e-5))
        wrong_rows = ~right.all(dim=-1)  # (..., len_q)
    if not bool(wrong_rows.any()) or bool((wrong_rows & ~starved).any()):
        return ""
    rows = [tuple(int(i) for i in index) for index in wrong_rows.nonzero()]
    sums = w.sum(dim=-1)[wrong_rows]
    got = (
        "are all zero"
        if bool((sums.abs() < 1e-6).all())
        else f"add up to {float(sums.min()):.3g}..{float(sums.max()):.3g}, not 1"
    )
    shown = ", ".join(str(r) for r in rows[:3]) + (", ..." if len(rows) > 3 else "")
    return _SDPA_RENORMALISED_AFTER.format(
        rows=f"{len(rows)} ({shown}, batch indices first)",
        gap=float(gap[wrong_rows].min()) // 10 * 10,
        got=got,
        dtype=str(q.dtype).removeprefix("torch."),
    )


def _sdpa_output_mistakes(exp_out: torch.Tensor, mask) -> dict[str, torch.Tensor]:
    """The output computed from the softmax's weights before the rows with no allowed key
    were fixed: NaN in those rows, right everywhere else."""
    if mask is None:
        return {}
    dead = ~mask.any(dim=-1, keepdim=True)  # (..., len_q, 1)
    if not bool(dead.any()):
        return {}
    nan_rows = torch.where(dead, torch.full_like(exp_out, float("nan")), exp_out)
    return {
        "Your weights are right, but your output is NaN in the rows of the queries that may "
        "attend to no key: it was computed from the softmax's weights before those rows were "
        "set to zero (their softmax is 0/0 = NaN). Compute output = weights @ v last, from "
        "the final weights.": nan_rows
    }


def _output_from_scores(q, k, v, mask) -> dict[str, torch.Tensor]:
    """The output mixed with the (masked) scores, scaled or not, instead of the weights."""
    raw = q.double() @ k.double().transpose(-2, -1)
    found = {}
    for scores, which in ((raw / math.sqrt(q.shape[-1]), "scaled "), (raw, "raw ")):
        if mask is not None:
            scores = scores.masked_fill(~mask, 0.0)
        found[
            f"Your weights are right, but your output is the {which}scores times v "
            f"(scores @ v): the value rows are mixed by the scores, not by the weights. "
            "Use the weights the softmax gave: output = weights @ v."
        ] = scores @ v.double()
    return found


def _output_from_unmasked(q, k, v, mask) -> dict[str, torch.Tensor]:
    """The output computed from the weights of no mask at all (before the mask was
    applied, or from a second softmax of the unmasked scores), the weights right."""
    if mask is None or bool(mask.all()):
        return {}
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    return {
        "Your weights are right, but your output is the one attention gives with no mask: "
        "it was computed from weights before the mask was applied (an output = weights @ v "
        "that comes before the masked_fill, or a second softmax of the unmasked scores), so "
        "the values of blocked keys still flow into it. Compute output = weights @ v last, "
        "from the final, masked weights.": torch.softmax(scores, dim=-1) @ v.double()
    }


_SDPA_OUTPUT_HINT = (
    "Your weights are right, so check the last step: output = weights @ v, computed from the "
    "final weights (after fixing fully masked rows). Row i of the output is the weighted sum "
    "of the value rows, with query i's weights."
)


def _is_dot_t(exc: BaseException) -> bool:
    return isinstance(exc, RuntimeError) and re.search(r"\.T\b", _learner_source(exc)) is not None


def _is_front_transpose(exc: BaseException) -> bool:
    source = _learner_source(exc)
    calls = re.findall(r"(?:transpose|swapaxes)\(([^()]*)\)", source)
    return isinstance(exc, RuntimeError) and any(
        re.fullmatch(r"\s*\d+\s*,\s*\d+\s*", args) for args in calls
    )


_SHAPE_ERRORS = (
    "must match the size",
    "cannot be multiplied",
    "size mismatch",
    "Expected size for first two dimensions",
)


def _is_shape_error(exc: BaseException) -> bool:
    text = str(exc)
    return (
        isinstance(exc, RuntimeError)
        and any(key in text for key in _SHAPE_ERRORS)
        and not _is_dot_t(exc)
        and not _is_front_transpose(exc)
    )


_DIM_OUT_OF_RANGE = re.compile(
    r"Dimension out of range \(expected to be in range of \[-(\d+), (\d+)\], but got (\d+)\)"
)


def _front_axis_hint(exc: BaseException) -> str:
    """A positive axis that this input lacks: the code counts axes from the front, for
    inputs of one rank (read from torch's message, so the source is not needed)."""
    found = _DIM_OUT_OF_RANGE.search(str(exc))
    if not isinstance(exc, IndexError) or not found:
        return ""
    ndim, axis = int(found.group(1)), int(found.group(3))
    return (
        f"Your code names axis {axis}, counted from the front, and this input has only {ndim} "
        "axes: q, k and v may have any number of leading batch dims ((batch, len, d) here, "
        "(batch, num_heads, len, d) in multi-head attention). Count from the end: "
        "k.transpose(-2, -1), softmax(dim=-1)."
    )


_SDPA_MASK_RESHAPED = (
    "The error comes from the line that applies the mask, and the mask you were given, "
    "shape {mask}, already broadcasts against the scores, shape {scores}: use it as it is. "
    "Did you reshape it (unsqueeze, view, or a heads axis added as multi-head code does)? "
    "masked_fill(~mask, float('-inf')) broadcasts a mask of any shape that fits."
)
_SDPA_DTYPES = (
    "Two tensors of different dtypes met in one operation, and the inputs here are all "
    "{dtype}. Did a cast change the dtype of the scores or the weights (.float(), "
    ".to(torch.float32), softmax(..., dtype=torch.float32)) without casting back "
    "(.to(q.dtype), .type_as(q))? Keep the inputs' dtype from the scores to the output."
)


def _is_dtype_mismatch(exc: BaseException) -> bool:
    return isinstance(exc, RuntimeError) and (
        re.search(r"scalar type \w+ but found|same dtype|dtype.{0,40}but got", str(exc)) is not None
    )


def _learner_line(exc: BaseException) -> str:
    """The learner's line that raised ``exc`` ("" when none is found)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_learner_frame(f.filename)]
    return (frames[-1].line or "") if frames else ""


def _raised_on_mask_line(exc: BaseException) -> bool:
    """A shape error raised by the learner's line that uses the mask."""
    last = _learner_line(exc)
    return isinstance(exc, RuntimeError) and "mask" in last and "must match the size" in str(exc)


_SIZES_MET = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) "
    r"at non-singleton dimension (\d+)"
)


def _queries_met_keys(exc: BaseException, len_q: int, len_k: int, ndim: int) -> bool:
    """A shape error on a mask line where len_q entries met the keys axis (the last one):
    a tensor computed from the mask lost its keys axis (a reduction without keepdim) or
    was transposed. Only when len_q != len_k, so that the sizes tell the axes apart."""
    found = _SIZES_MET.search(str(exc))
    return (
        _raised_on_mask_line(exc)
        and len_q != len_k
        and found is not None
        and {int(found.group(1)), int(found.group(2))} == {len_q, len_k}
        and int(found.group(3)) == ndim - 1
    )


_SDPA_MASK_REDUCED = (
    "The error comes from this line of yours, which uses the mask or a tensor computed "
    "from it: `{line}`. There, a tensor with len_q = {len_q} entries on its last axis met "
    "the keys axis of the scores or weights (len_k = {len_k}). A reduction over the keys "
    "without keepdim=True does that (mask.any(dim=-1) has shape (..., len_q), which lines "
    "up with the keys), and so does a transposed mask. Keep the reduced axis: "
    "mask.any(dim=-1, keepdim=True) has shape (..., len_q, 1), one entry per query row."
)


_SDPA_IF_MASK = (
    "The line `{line}` asks Python for the truth value of the whole mask tensor, which "
    "has no single one (without a mask your function runs: `if mask:` is False for None). "
    "To test whether a mask was given, write `if mask is not None:`."
)


_SDPA_WHOLE_SHAPE = (
    "A torch.Size, a whole shape, went where one number belongs (math.sqrt, a division): "
    "q.shape is {shape} here. d_k is one number, the width of each query and key, the "
    "last entry of the shape: d_k = q.shape[-1] (or q.size(-1)) = {d_k}."
)


_SDPA_OUTPUT_TRANSPOSED_WEIGHTS = (
    "Your weights are right, but your output is weights.transpose(-2, -1) @ v: the "
    "weights were transposed before mixing the values, (..., len_k, len_q) @ (..., len_k, "
    "d_v). That fails whenever len_q != len_k{failed}, and where they are equal each output "
    "row mixes the values with a *column* of the weights (the weights of one key over all "
    "the queries) instead of its query's row. The output is weights @ v as they are: "
    "(..., len_q, len_k) @ (..., len_k, d_v) -> (..., len_q, d_v)."
)
#: a square input (len_q = len_k) on which transposed weights still multiply: the
#: output then shows whether the weights were transposed before weights @ v
_SQUARE_PROBE = tuple(
    torch.randn(2, 4, d, generator=torch_generator(4747 + i), dtype=torch.float64)
    for i, d in enumerate((3, 3, 5))
)


def _right_weights_output_as(fn, probe: tuple, wrong: Callable) -> bool:
    """Whether ``fn`` on ``probe`` (q, k, v; no mask) returns the right weights and the
    output ``wrong(weights, v)`` instead of the right one."""
    q, k, v = (t.clone() for t in probe)
    try:
        with torch.no_grad(), torch.random.fork_rng(devices=[]):
            torch.manual_seed(_CALL_SEED)
            output, weights = fn(q, k, v)
    except Exception:  # a probe: the message falls back to the candidates
        return False
    if not (isinstance(output, torch.Tensor) and isinstance(weights, torch.Tensor)):
        return False
    right_out, right_w = ref.scaled_dot_product_attention(q, k, v)
    w = weights.double()
    return (
        w.shape == right_w.shape
        and output.shape == right_out.shape
        and torch.allclose(w, right_w.double(), atol=1e-6)
        and not torch.allclose(output.double(), right_out.double(), atol=1e-6)
        and torch.allclose(output.double(), wrong(w, v), atol=1e-6)
    )


def _transposed_weights_probe(fn) -> bool:
    """Whether ``fn`` on :data:`_SQUARE_PROBE` returns the right weights and the output
    weights.transpose(-2, -1) @ v."""
    return _right_weights_output_as(fn, _SQUARE_PROBE, lambda w, v: w.transpose(-2, -1) @ v)


_SDPA_OUTPUT_TRANSPOSED_VALUES = (
    "On an input the check ran where len_k = d_v = 4, your weights are right, but your "
    "output is weights @ v.transpose(-2, -1): the values were transposed before mixing them, "
    "(..., len_q, len_k) @ (..., d_v, len_k). That fails whenever d_v != len_k (here len_k "
    "= {len_k}, d_v = {d_v}), and where they are equal each output row mixes the columns of "
    "the values instead of its rows. Only the keys are transposed (for q @ kᵀ); the output "
    "is weights @ v as they are: (..., len_q, len_k) @ (..., len_k, d_v) -> (..., len_q, d_v)."
)
#: an input with len_k = d_v (and len_q, d_k different) on which transposed values still
#: multiply: the output then shows whether v was transposed before weights @ v
_VALUES_PROBE = tuple(
    torch.randn(2, n, d, generator=torch_generator(5151 + i), dtype=torch.float64)
    for i, (n, d) in enumerate(((3, 5), (4, 5), (4, 4)))
)


def _transposed_values_probe(fn) -> bool:
    """Whether ``fn`` on :data:`_VALUES_PROBE` returns the right weights and the output
    weights @ v.transpose(-2, -1)."""
    return _right_weights_output_as(fn, _VALUES_PROBE, lambda w, v: w @ v.transpose(-2, -1))


#: two inputs where q, k and v share one shape, (batch, len, d) = (2, 4, 4): any of them
#: fits where another belongs, so the results show which one the code read in its place
_SAME_SHAPE_PROBES = [
    tuple(
        torch.randn(2, 4, 4, generator=torch_generator(6161 + 10 * seed + i), dtype=torch.float64)
        for i in range(3)
    )
    for seed in range(2)
]
_SDPA_ROLES = {"q": "queries", "k": "keys", "v": "values"}
_SDPA_USES = {"q": "q @ k.transpose(-2, -1)", "k": "q @ k.transpose(-2, -1)", "v": "weights @ v"}


def _sdpa_stand_in(fn) -> str:
    """The message for a function that reads one of q, k, v where another belongs (round
    20, blind19b-sdpa-scores-q-times-q: q @ qᵀ, told to swap q and k or transpose k), found
    on inputs of one shape (checking.stand_ins); "" when no single substitution fits."""
    pairs = stand_ins(
        fn,
        lambda q, k, v: ref.scaled_dot_product_attention(q, k, v),
        _SAME_SHAPE_PROBES,
        ("q", "k", "v"),
    )
    if not pairs:
        return ""
    found = stand_in_sentence(pairs, lambda arg, other: _SDPA_USES[arg].replace(arg, other))
    unused = " or ".join(f"the {_SDPA_ROLES[arg]} ({arg}) are never used" for arg, _ in pairs)
    return (
        f"On inputs where q, k and v all have the shape (2, 4, 4), so that any of them fits "
        f"where another belongs, {found}: {unused}. Here, with len_q != len_k, that "
        "substitution breaks a product. Use each argument in its place: the scores are "
        "q @ k.transpose(-2, -1), the output is weights @ v."
    )


def _sdpa_shapes_hint(dims: dict, fn=None) -> Callable[[BaseException], str]:
    """The shapes of the two products; with the learner's function ``fn``, named as the
    weights transposed before weights @ v when a square input shows it."""

    def hint(_exc: BaseException) -> str:
        if fn is not None and _transposed_weights_probe(fn):
            return (
                "On a square input the check ran (len_q = len_k = 4), y"
                + (
                    _SDPA_OUTPUT_TRANSPOSED_WEIGHTS.format(
                        failed=f" (here len_q = {dims['len_q']}, len_k = {dims['len_k']})"
                    )[1:]
                )
            )
        if fn is not None and _transposed_values_probe(fn):
            return _SDPA_OUTPUT_TRANSPOSED_VALUES.format(**dims)
        if fn is not None and (substituted := _sdpa_stand_in(fn)):
            return substituted
        return _SDPA_SHAPES.format(**dims)

    return hint


def _sdpa_hints(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask=None, fn=None) -> list:
    shape = tuple(k.shape)
    dims = {"len_q": q.shape[-2], "len_k": k.shape[-2], "d_k": q.shape[-1], "d_v": v.shape[-1]}
    scores = (*torch.broadcast_shapes(q.shape[:-2], k.shape[:-2]), q.shape[-2], k.shape[-2])
    len_q, len_k = q.shape[-2], k.shape[-2]
    mask_hints = (
        []
        if mask is None
        else [
            (
                lambda exc: (
                    isinstance(exc, TypeError)
                    and "operator.invert" in str(exc)
                    and mask.dtype == torch.bool
                ),
                f"The mask this call passed is bool, shape {tuple(mask.shape)}, and ~ negates a "
                "bool mask: the tensor ~ got is a float one, so your code turned the mask into "
                "numbers before that line (mask.to(scores.dtype), mask.float(), "
                "mask.type_as(scores), or arithmetic such as mask * 1.0). Keep the mask bool "
                "and use it as given: scores.masked_fill(~mask, float('-inf')) broadcasts it "
                "and needs no cast.",
            ),
            (
                lambda exc: (
                    "value of Tensor with more than one value is ambiguous" in str(exc)
                    and re.match(r"\s*(el)?if\s+(not\s+)?mask\s*:", _learner_line(exc)) is not None
                ),
                lambda exc: _SDPA_IF_MASK.format(line=_learner_line(exc).strip()),
            ),
            (
                lambda exc: _queries_met_keys(exc, len_q, len_k, len(scores)),
                lambda exc: _SDPA_MASK_REDUCED.format(
                    line=_learner_line(exc).strip(), len_q=len_q, len_k=len_k
                ),
            ),
            (
                lambda exc: (
                    _raised_on_mask_line(exc)
                    and not _queries_met_keys(exc, len_q, len_k, len(scores))
                ),
                _SDPA_MASK_RESHAPED.format(mask=tuple(mask.shape), scores=scores),
            ),
        ]
    )
    return [
        *mask_hints,
        (
            lambda exc: isinstance(exc, TypeError) and "torch.Size" in str(exc),
            _SDPA_WHOLE_SHAPE.format(shape=tuple(q.shape), d_k=q.shape[-1]),
        ),
        (_is_dtype_mismatch, _SDPA_DTYPES.format(dtype=str(q.dtype).replace("torch.", ""))),
        (
            _is_dot_t,
            _SDPA_DOT_T.format(
                shape=shape, reversed=shape[::-1], wanted=(*shape[:-2], shape[-1], shape[-2])
            ),
        ),
        ("t() expects a tensor with <= 2 dimensions", _SDPA_SMALL_T),
        (
            "does not match the length of the desired ordering of dimensions",
            _SDPA_PERMUTE.format(ndim=k.dim()),
        ),
        (_is_front_transpose, _SDPA_TRANSPOSE_DIMS),
        (IndexError, _front_axis_hint),
        ("must be a 3D tensor", _SDPA_BMM.format(ndim=q.dim())),
        ("The shape of the mask", _SDPA_BOOL_INDEX),
        (
            lambda exc: (
                _is_shape_error(exc) and not (mask is not None and _raised_on_mask_line(exc))
            ),
            _sdpa_shapes_hint(dims, fn),
        ),
        (
            "a leaf Variable that requires grad is being used in an in-place operation",
            "An in-place operation changed an input that requires gradients. " + _SDPA_MUTATION,
        ),
    ]


def _bool_mask_added(q, k, mask) -> torch.Tensor:
    """softmax(scores + mask) with the bool mask read as 0 / 1."""
    scores = q.detach().double() @ k.detach().double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores + mask, dim=-1)


def _sdpa_scales(q, k, v) -> list[tuple[float, str]]:
    """(a wrong scale, its diagnosis): the numbers the scores may be divided by instead of
    √d_k (the right one among them is dropped by the callers)."""
    d_k, len_q, len_k, d_v = q.shape[-1], q.shape[-2], k.shape[-2], v.shape[-1]
    root = math.sqrt(d_k)
    scales = [
        (
            1.0,
            f"Your weights match softmax(q kᵀ) with no scaling. Divide the scores by √d_k = "
            f"√{d_k} before the softmax, with d_k = q.shape[-1]. Without it the scores grow "
            "with d_k and the softmax saturates (see the section on scaling).",
        ),
        (
            float(d_k),
            f"Your weights match scores divided by d_k = {d_k} instead of by √d_k = "
            f"{root:.4g}. Either the square root is missing (/ d_k), or √d_k was applied "
            "twice: q and k each divided by √d_k (their product then shrinks by d_k), or the "
            "scores divided twice. Divide once, the scores by math.sqrt(d_k).",
        ),
        (
            d_k**0.25,
            f"Your weights match scores divided by d_k ** 0.25 = √(√d_k) = {d_k**0.25:.4g} "
            f"instead of √d_k = {root:.4g}: the square root was taken twice "
            "(math.sqrt(math.sqrt(d_k)), or the fourth root d_k ** 0.25). 1 / d_k ** 0.25 is "
            "the factor for q and for k each when both are scaled (their product then "
            "shrinks by √d_k); applied once, to the scores, it must be 1 / math.sqrt(d_k).",
        ),
        (
            float(len_k),
            f"Your weights match scores divided by len_k = {len_k}, the number of keys. The "
            "paper divides by √d_k, where d_k is the width of each query/key vector "
            f"(q.shape[-1] = {d_k}), not the number of words in the sentence (a popular "
            "explanation gets this wrong).",
        ),
        (
            math.sqrt(len_k),
            f"Your weights match scores divided by √len_k = √{len_k}, the square root of the "
            f"number of keys. d_k is the width of each query/key vector (q.shape[-1] = {d_k}), "
            "not the number of keys (k.shape[-2]); it does not change with sentence length.",
        ),
        (
            math.sqrt(len_q),
            f"Your weights match scores divided by √len_q = √{len_q}, the square root of the "
            f"number of queries (q.shape[-2], or len(q) for a single sentence). d_k is the last "
            f"dim, q.shape[-1] = {d_k}.",
        ),
        (
            math.sqrt(d_v),
            f"Your weights match scores divided by √d_v = √{d_v}: you took the width from v. "
            f"The scale is √d_k, the width of the queries and keys (q.shape[-1] = {d_k}); here "
            f"d_v = {d_v} differs from d_k on purpose.",
        ),
    ]
    scales.append(
        (
            1.0 / root,
            f"Your weights match scores multiplied by √d_k = √{d_k} instead of divided by it "
            f"(dividing by d_k ** -0.5, or by a scale already inverted, does that): the scale "
            f"shrinks the scores, scores = q @ kᵀ / math.sqrt(d_k).",
        )
    )
    if q.dim() > 2:
        scales.append(
            (
                math.sqrt(q.shape[0]),
                f"Your weights match scores divided by √{q.shape[0]}, the square root of "
                f"q.shape[0] (or len(q)): the first dim of q is a batch dim here. Count from the "
                f"end: d_k = q.shape[-1] = {d_k}.",
            )
        )
    return scales


_SDPA_SOFTMAX_TWICE = (
    "Your weights are the softmax of the softmax: it was applied twice (to the scores, then "
    "to the weights), which flattens every row towards uniform and gives blocked keys "
    "weight again (exp(0) = 1). Apply it once, to the masked, scaled scores."
)


#: the input a wrong scale is confirmed on: every named scale (1, d_k, len_k, √len_k,
#: √len_q, √d_v, 1/√d_k) differs there from the others, from √d_k = 3 and from 2·√d_k
#: (at d_k = 4, d_k and 2·√d_k coincide); d_k ** 0.25 = √3 = √len_q there, two scales
#: that the check's own inputs tell apart (the probe only confirms)
_SCALE_PROBE_SIZES = {"len_q": 3, "len_k": 7, "d_k": 9, "d_v": 2}


def _scale_probe() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch_generator(4242)
    size = _SCALE_PROBE_SIZES
    q = torch.randn(2, size["len_q"], size["d_k"], generator=g, dtype=torch.float64)
    k = torch.randn(2, size["len_k"], size["d_k"], generator=g, dtype=torch.float64)
    v = torch.randn(2, size["len_k"], size["d_v"], generator=g, dtype=torch.float64)
    return q, k, v


def _scale_confirmed(probe_weights, index: int) -> bool:
    """Whether the learner's weights on the scale probe (``probe_weights()``, None when
    the call failed) are the ones the ``index``-th scale of :func:`_sdpa_scales` gives
    there: a wrong scale is named only when a second input, with other sizes, agrees."""
    weights = probe_weights()
    if weights is None:
        return False
    q, k, v = _scale_probe()
    scale = _sdpa_scales(q, k, v)[index][0]
    expected = attention_weights_variant(q, k, None, scale=scale)
    return weights.shape == expected.shape and bool(
        torch.allclose(weights.detach().double(), expected, rtol=1e-4, atol=1e-5)
    )


def _sdpa_mistakes(q, k, v, mask, probe_weights=None) -> dict[str, Callable[[], torch.Tensor]]:
    """Diagnosis -> the weights (float64) that mistake gives on these inputs. With
    ``probe_weights`` (the learner's weights on :func:`_scale_probe`, made on demand), a
    wrong scale is kept only when it gives the learner's weights there too."""
    d_k = q.shape[-1]
    root = math.sqrt(d_k)
    scales = _sdpa_scales(q, k, v)
    mistakes: dict[str, Callable[[], torch.Tensor]] = {}  # computed only when needed

    def confirmed_variant(index: int, scale: float) -> torch.Tensor | None:
        if probe_weights is not None and not _scale_confirmed(probe_weights, index):
            return None
        return attention_weights_variant(q, k, mask, scale=scale)

    for index, (scale, message) in enumerate(scales):
        if not math.isclose(scale, root):
            mistakes.setdefault(message, partial(confirmed_variant, index, scale))
    for how, k_moved in reshaped_instead(k, -2, -1).items():  # k.view(..., d_k, len_k)
        mistakes[
            f"Your weights are softmax(q @ k' / √d_k) with k' the keys put through {how} "
            "(k.view(..., d_k, len_k), or reshape) in place of kᵀ. A reshape keeps the "
            "entries in memory order and only regroups them: the shape comes out right, but "
            "each column of k' mixes features of several keys. Swap the axes with "
            "k.transpose(-2, -1) (or k.mT)."
        ] = partial(attention_weights_variant, q, k_moved.transpose(-2, -1), mask, scale=root)
    mistakes[_SDPA_NEGATED] = partial(attention_weights_variant, q, k, mask, scale=-root)
    mistakes[_SDPA_SOFTMAX_TWICE] = lambda: torch.softmax(
        torch.nan_to_num(attention_weights_variant(q, k, mask, scale=root), nan=0.0), dim=-1
    )
    after = _SCALED_AFTER_SOFTMAX.format(d_k=d_k, total=1 / root, scores="q kᵀ")
    mistakes[after] = lambda: attention_weights_variant(q, k, mask, scale=1.0) / root
    for dim in range(q.dim() - 1):  # every dim of the scores but the keys'
        message = (
            SOFTMAX_OVER_QUERIES
            if dim == q.dim() - 2
            else f"Your weights are normalised over dim {dim}, a batch dim, instead of over "
            "the keys (dim=-1). Each query row is a probability distribution over the keys: "
            "take the softmax with dim=-1."
        )
        mistakes.setdefault(message, partial(attention_weights_variant, q, k, mask, dim=dim))
    if mask is not None:
        mistakes[_SDPA_MASK_IGNORED] = partial(
            attention_weights_variant, q, k, mask, mask_mode="none"
        )
        mistakes[_SDPA_MASK_AFTER] = partial(
            attention_weights_variant, q, k, mask, mask_mode="after"
        )
        mistakes[INVERTED_MASK] = partial(
            attention_weights_variant, q, k, mask, mask_mode="inverted"
        )
        mistakes[_SDPA_FILL_ZERO] = partial(attention_weights_variant, q, k, mask, fill=0.0)
        mistakes[_SDPA_BOOL_ADDED] = partial(_bool_mask_added, q, k, mask)
    return mistakes


_SDPA_ALWAYS_CAUSAL = (
    "Your weights are those of attention with a causal (lower-triangular) mask added "
    "{given}: query i never attends to the keys after position i. The function must apply "
    "only the mask it is given (None: every key allowed); a causal mask is the caller's "
    "choice (a decoder's self-attention passes one), not something to add always, and "
    "cross-attention or an encoder must see every key."
)


def _always_causal(q, k, mask) -> dict[str, Callable[[], torch.Tensor]]:
    """Name a causal mask applied on every call, on top of the given one (or of none)."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    if len_q < 2 or len_k < 2:
        return {}  # one query or one key: a causal mask changes nothing
    causal = torch.ones(len_q, len_k, dtype=torch.bool).tril()  # (len_q, len_k)
    combined = causal if mask is None else causal & mask.bool()
    given = "although no mask was given" if mask is None else "on top of the given mask"
    return {
        _SDPA_ALWAYS_CAUSAL.format(given=given): partial(attention_weights_variant, q, k, combined)
    }


def _sdpa_pairs(q, k, v, mask) -> dict[str, Callable[[], torch.Tensor]]:
    """Two mistakes at once: a wrong scale (or none) *and* the softmax over another dim
    than the keys' ({both messages: the weights both give}); tried after the single
    mistakes, and named only when exactly one pair gives the learner's weights."""
    singles = _sdpa_mistakes(q, k, v, mask)
    root = math.sqrt(q.shape[-1])
    scale_messages = {s: m for s, m in _sdpa_scales(q, k, v) if not math.isclose(s, root)}
    pairs = {}
    for dim in range(q.dim() - 1):  # every dim of the scores but the keys'
        dim_message = next(
            m
            for m in singles
            if (m == SOFTMAX_OVER_QUERIES and dim == q.dim() - 2)
            or m.startswith(f"Your weights are normalised over dim {dim},")
        )
        for scale, scale_message in scale_messages.items():
            pairs[two_mistakes(scale_message, dim_message)] = partial(
                attention_weights_variant, q, k, mask, scale=scale, dim=dim
            )
    return pairs


def _fitted_fill_mistake(q, k, mask, weights) -> dict[str, Callable[[], torch.Tensor]]:
    """Blocked keys that keep a small share of weight because their scores were set to a
    finite number that is not negative enough (-10, -100 next to large scores): the
    family of a fill value, measured from the learner's weights (log w_b - log w_a =
    fill - s_a for a blocked key b and an allowed key a of one row) and kept by the
    matcher only when softmax with that fill gives the learner's weights."""
    if mask is None:
        return {}
    w = weights.detach().double()
    scores = q.detach().double() @ k.detach().double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores, w = torch.broadcast_tensors(scores, w)
    allowed = mask.expand_as(scores)
    live = allowed.any(dim=-1, keepdim=True)  # (..., len_q, 1)
    blocked = ~allowed & live
    if not bool(torch.isfinite(w).all()) or not bool(blocked.any()):
        return {}
    if not bool((w[allowed & live] > 0).all()) or not bool((w[blocked] > 0).all()):
        return {}
    log_w = w.clamp(min=1e-300).log()
    # log Z of each row, read off its allowed keys: s_a - log w_a
    count = allowed.sum(dim=-1, keepdim=True).clamp(min=1)
    log_z = torch.where(allowed, scores - log_w, 0.0).sum(dim=-1, keepdim=True) / count
    fills = (log_w + log_z)[blocked]
    fill = float(fills.mean())
    if not math.isfinite(fill) or fill < -700:
        return {}
    message = (
        f"The keys the mask blocks keep a small share of the weight: their scaled scores are "
        f"set to {fill:.4g} (measured from your weights), a finite number that is not "
        f"negative enough next to these scores (up to {float(scores[allowed].max()):.3g}), "
        "so exp() of it is not 0. Fill them with -inf (or a number so negative that it "
        "underflows, such as -1e9 or torch.finfo(scores.dtype).min)."
    )
    return {message: partial(attention_weights_variant, q, k, mask, fill=fill)}


def _fitted_scale(q, k, mask, weights) -> float | None:
    """The one constant c for which the learner's weights are closest to softmax(q kᵀ / c),
    fitted on the log-weights of the allowed keys (None when it cannot be fitted: weights
    not positive where allowed, or no row with two allowed keys)."""
    w = weights.detach().double()
    scores = q.detach().double() @ k.detach().double().transpose(-2, -1)  # (..., len_q, len_k)
    allowed = torch.ones_like(scores, dtype=torch.bool)
    if mask is not None:
        allowed = allowed & mask
    scores, w = torch.broadcast_tensors(scores, w)
    allowed = allowed.expand_as(scores)
    if not bool(torch.isfinite(w).all()) or not bool((w[allowed] > 0).all()):
        return None
    count = allowed.sum(dim=-1, keepdim=True).clamp(min=1)
    log_w = torch.where(allowed, w.clamp(min=1e-300).log(), 0.0)
    s = torch.where(allowed, scores, 0.0)
    d_log = torch.where(allowed, log_w - log_w.sum(-1, keepdim=True) / count, 0.0)
    d_s = torch.where(allowed, s - s.sum(-1, keepdim=True) / count, 0.0)
    denominator = float((d_s * d_s).sum())
    slope = float((d_s * d_log).sum()) / denominator if denominator > 0 else 0.0
    return 1.0 / slope if slope > 0 else None


def _fitted_scale_mistake(
    q, k, mask, weights, probe_weights=None
) -> dict[str, Callable[[], torch.Tensor]]:
    """A wrong constant scale that none of the named ones explains: what it is, measured
    (the matcher keeps it only if softmax(q kᵀ / c) then gives the learner's weights).
    When the learner's weights on the scale probe (another d_k) fit the same c, the scale
    is a constant that does not follow d_k, and is named so."""
    d_k = q.shape[-1]
    root = math.sqrt(d_k)
    c = _fitted_scale(q, k, mask, weights)
    if c is None or math.isclose(c, root, rel_tol=1e-3):
        return {}
    probe = probe_weights() if probe_weights is not None else None
    if probe is not None:
        pq, pk, _ = _scale_probe()
        probe_c = _fitted_scale(pq, pk, None, probe)
        probe_d_k = pq.shape[-1]
        if (
            probe_c is not None
            and probe_d_k != d_k
            and math.isclose(probe_c, c, rel_tol=1e-3)
            and torch.allclose(
                probe.detach().double(),
                attention_weights_variant(pq, pk, None, scale=c),
                rtol=1e-4,
                atol=1e-5,
            )
        ):
            message = (
                f"Your weights match softmax(q kᵀ / c) with c = {c:.4g}, and on an input "
                f"with d_k = {probe_d_k} the check ran too, with the same c = {c:.4g}: your "
                f"scale is a constant (a hard-coded {1 / c:.4g} or {c:.4g}, the √d_k of one "
                f"example?) that does not depend on d_k. It must be √d_k, here √{d_k} = "
                f"{root:.4g}, computed from the inputs: math.sqrt(q.shape[-1])."
            )
            return {message: partial(attention_weights_variant, q, k, mask, scale=c)}
    message = (
        f"Your weights match softmax(q kᵀ / c) with one constant c = {c:.4g} for every score, "
        f"but c must be √d_k = √{d_k} = {root:.4g} (d_k = q.shape[-1]): your scores are "
        f"{'too large' if c < root else 'too small'} by a factor {max(c, root) / min(c, root):.4g}"
        f" = {'√d_k / c' if c < root else 'c / √d_k'}. Look at the number you divide by."
    )
    names = named_factors(root / c, COMMON_FACTORS)
    if names:  # a known factor on top of the right scale: another base, a temperature
        message = message.replace(
            " Look at the number you divide by.",
            f" That is the right softmax(q kᵀ / √d_k) with the scaled scores times "
            f"{' or '.join(names)}.",
        )
    return {message: partial(attention_weights_variant, q, k, mask, scale=c)}


def _probe_weights(c, scaled_dot_product_attention) -> Callable[[], torch.Tensor | None]:
    """The learner's weights on :func:`_scale_probe`, computed on the first request and
    kept; None when the call fails or returns no weights."""
    kept: list = []

    def weights() -> torch.Tensor | None:
        if not kept:
            q, k, v = _scale_probe()
            try:
                torch.manual_seed(_CALL_SEED)
                result = c.call(scaled_dot_product_attention, q, k, v, unchanged=False)
                second = (
                    result[1] if isinstance(result, tuple | list) and len(result) == 2 else None
                )
            except Exception:  # CheckFailure included: the main inputs give the message
                second = None
            kept.append(second if isinstance(second, torch.Tensor) else None)
        return kept[0]

    return weights


def _sdpa_cases(hidden: bool) -> list[dict]:
    """Inputs: len_q != len_k (but for the causal masks, square and not symmetric, which
    show a mask read on swapped axes), d_v != d_k, d_v != len_k and d_k, len_k, d_v all
    different."""

    def make(seed, lead, len_q, len_k, d_k, d_v, dtype=torch.float64, scale=1.0):
        g = torch_generator(seed)
        q = torch.randn(*lead, len_q, d_k, generator=g, dtype=torch.float64) * scale
        k = torch.randn(*lead, len_k, d_k, generator=g, dtype=torch.float64)
        v = torch.randn(*lead, len_k, d_v, generator=g, dtype=torch.float64)
        return q.to(dtype), k.to(dtype), v.to(dtype)

    def rand_mask(seed, shape, empty_rows=()):
        g = torch_generator(seed)
        mask = torch.rand(*shape, generator=g) < 0.6
        mask[..., 0] |= True  # every row keeps a key ...
        for row in empty_rows:  # ... except the ones fully masked on purpose
            mask[row] = False
        return mask

    if not hidden:
        q, k, v = make(1, (2,), 3, 5, 4, 6)
        mask = torch.tensor(
            [[True, True, False, True, False], [False] * 5, [False, True, True, True, True]]
        )  # (len_q, len_k): row 1 is fully masked
        q4, k4, v4 = make(2, (2, 2), 3, 4, 5, 2)
        pad = torch.tensor([[True, True, True, False], [True, True, False, False]])
        q32, k32, v32 = make(3, (2,), 4, 3, 8, 5, dtype=torch.float32)
        ql, kl, vl = make(5, (2,), 4, 6, 8, 3, dtype=torch.float32, scale=80.0)  # large logits
        qg, kg, vg = make(4, (), 2, 3, 4, 5)
        q1, k1, v1 = make(7, (2,), 1, 4, 3, 5)  # a single query
        qc, kc, vc = make(8, (2,), 4, 4, 3, 5)  # a square mask that is not symmetric
        qp, kp, vp = make(9, (1,), 3, 4, 5, 2)  # one sentence, all padding
        # float32 scores in the hundreds with each row's highest key blocked: its score tops
        # the allowed ones' by more than 100, where exp() of the gap underflows in float32
        qd, kd, vd = make(20, (2,), 3, 4, 8, 3, dtype=torch.float32, scale=80.0)
        top = (qd.double() @ kd.double().transpose(-2, -1)).argmax(dim=-1, keepdim=True)
        beaten = torch.ones(2, 3, 4, dtype=torch.bool).scatter(-1, top, False)
        return [
            {"label": "no mask, batch of 2", "qkv": (q, k, v), "mask": None},
            {
                "label": "a (len_q, len_k) mask broadcast over the batch, with a fully masked "
                "query row",
                "qkv": (q, k, v),
                "mask": mask,
            },
            {
                "label": "4-D inputs (batch, heads, len, d) with a padding mask of shape "
                "(batch, 1, 1, len_k)",
                "qkv": (q4, k4, v4),
                "mask": pad[:, None, None, :],
            },
            {"label": "float32 inputs", "qkv": (q32, k32, v32), "mask": None},
            {
                "label": "large float32 logits (scores up to a few hundred) with a mask",
                "qkv": (ql, kl, vl),
                "mask": rand_mask(6, (4, 6), [2]),
            },
            {"label": "a single query (len_q = 1)", "qkv": (q1, k1, v1), "mask": None},
            {
                "label": "a causal mask (len_q = len_k: each query sees itself and the keys "
                "before it)",
                "qkv": (qc, kc, vc),
                "mask": torch.ones(4, 4, dtype=torch.bool).tril(),
            },
            {
                "label": "2-D inputs (no batch dims) that require gradients",
                "qkv": (qg, kg, vg),
                "mask": None,
                "grad": True,
            },
            {
                "label": "a batch of one sentence that is all padding: a mask (1, 1, len_k) "
                "that blocks every key",
                "qkv": (qp, kp, vp),
                "mask": torch.zeros(1, 1, 4, dtype=torch.bool),
            },
            {
                "label": "float32 scores in the hundreds, each query's highest-scoring key "
                "blocked (batch, len_q, len_k)",
                "qkv": (qd, kd, vd),
                "mask": beaten,
            },
        ]
    q, k, v = make(101, (3,), 4, 7, 8, 5)
    qb, kb, vb = make(102, (2, 3), 5, 6, 3, 4)
    ql, kl, vl = make(103, (2,), 3, 6, 16, 7, scale=8.0)  # large logits
    q1, k1, v1 = make(104, (2, 2), 1, 5, 6, 3)  # a single query
    q32, k32, v32 = make(105, (2, 2), 5, 3, 4, 6, dtype=torch.float32)
    qg, kg, vg = make(106, (2,), 3, 4, 6, 2)
    qx, kx, vx = make(111, (3,), 5, 4, 6, 2, dtype=torch.float32, scale=100.0)  # large logits
    pad = torch.tensor([[True, True, True, True, True, False], [False] * 6])
    # a square mask that is not symmetric: a mask read on the wrong axis (transposed, its
    # rows taken for columns) differs from the right one only when len_q = len_k
    qc, kc, vc = make(113, (2,), 5, 5, 4, 3)
    qp, kp, vp = make(114, (2, 2), 3, 5, 6, 4)  # every sentence all padding
    return [
        {"label": "no mask, batch of 3", "qkv": (q, k, v), "mask": None},
        {
            "label": "a (batch, 1, len_q, len_k) mask over 4-D inputs, with fully masked rows",
            "qkv": (qb, kb, vb),
            "mask": rand_mask(107, (2, 1, 5, 6), [(0, 0, 2), (1, 0, 4)]),
        },
        {
            "label": "a padding mask (batch, 1, 1, len_k) where one sequence is all padding",
            "qkv": (qb, kb, vb),
            "mask": pad[:, None, None, :],
        },
        {
            "label": "large logits with a (len_q, len_k) mask",
            "qkv": (ql, kl, vl),
            "mask": rand_mask(108, (3, 6), [1]),
        },
        {
            "label": "a single query, 4-D inputs",
            "qkv": (q1, k1, v1),
            "mask": rand_mask(109, (1, 5)),
        },
        {
            "label": "float32 inputs with a mask",
            "qkv": (q32, k32, v32),
            "mask": rand_mask(110, (2, 2, 5, 3), [(1, 0, 3)]),
        },
        {
            "label": "large float32 logits (scores up to a few hundred) with a mask",
            "qkv": (qx, kx, vx),
            "mask": rand_mask(112, (5, 4), [3]),
        },
        {
            "label": "a causal mask (len_q = len_k: each query sees itself and the keys before it)",
            "qkv": (qc, kc, vc),
            "mask": torch.ones(5, 5, dtype=torch.bool).tril(),
        },
        {
            "label": "3-D inputs that require gradients",
            "qkv": (qg, kg, vg),
            "mask": None,
            "grad": True,
        },
        {
            "label": "a batch in which every sentence is all padding: a mask (batch, 1, 1, "
            "len_k) that blocks every key",
            "qkv": (qp, kp, vp),
            "mask": torch.zeros(2, 1, 1, 5, dtype=torch.bool),
        },
    ]


def _describe(q, k, v, mask) -> str:
    text = f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
    if mask is not None:
        text += f", mask {tuple(mask.shape)}"
    return f"{text}, {str(q.dtype).replace('torch.', '')}"


#: the global torch stream is seeded before each call of the learner's function (the
#: Checker puts it back afterwards): whatever random draw a wrong answer makes (dropout),
#: it makes the same one on every run, so the same answer always gets the same message.
#: The second call, made to detect randomness, gets another seed: a random function
#: differs between the two, a deterministic one cannot.
_CALL_SEED, _AGAIN_SEED = 0, 1


def _expect_deterministic(c, fn, args, weights: torch.Tensor, what: str) -> None:
    """Call ``fn`` again on copies of the same inputs: different weights mean something
    random runs inside (dropout), which no comparison with the reference can name."""
    torch.manual_seed(_AGAIN_SEED)
    again = c.call(fn, *[a.detach().clone() for a in args], unchanged=False)
    if not isinstance(again, tuple | list) or len(again) != 2:
        return
    second = again[1]
    if not isinstance(second, torch.Tensor) or second.shape != weights.shape:
        return
    first, second = weights.detach().double(), second.detach().double()
    if torch.equal(first.isnan(), second.isnan()) and torch.equal(
        first.nan_to_num(), second.nan_to_num()
    ):
        return
    c.fail(
        what + "two calls with the same inputs returned different weights (largest "
        f"difference {float((first - second).abs().nan_to_num().max()):.3g}): something random "
        "runs in your function. Dropout? F.dropout(x, p) drops entries at random on every call "
        "(its training flag defaults to True, whatever mode a module is in). This function has "
        "no dropout: remove it."
    )


def _nan_from_any_mask(fn, args, mask) -> bool:
    """Whether the weights are finite with no mask but NaN or inf with a mask that allows
    every key, and NaN or zeros (nothing allowed, repaired) with one that blocks every key:
    NaN made from the mask's allowed entries (0 * inf). An inverted mask gives the other
    signature: an all-False mask then allows everything, finite rows that add up to 1."""

    def weights_for(probe_mask) -> torch.Tensor | None:
        torch.manual_seed(_AGAIN_SEED)
        try:
            got = fn(*[a.detach().clone() for a in args[:3]], probe_mask)
        except Exception:
            return None
        if not isinstance(got, tuple | list) or len(got) != 2:
            return None
        return got[1].detach() if isinstance(got[1], torch.Tensor) else None

    unmasked = weights_for(None)
    everything = weights_for(torch.ones_like(mask))
    nothing = weights_for(torch.zeros_like(mask))
    if unmasked is None or everything is None or nothing is None:
        return False
    return (
        bool(torch.isfinite(unmasked).all())
        and not bool(torch.isfinite(everything).all())
        and (not bool(torch.isfinite(nothing).all()) or not bool(nothing.any()))
    )


def _expect_masking_keeps_finite(c, fn, args, mask, weights: torch.Tensor, what: str) -> None:
    """NaN or inf in rows that may attend to a key, which a mask that blocks nothing
    leaves finite: the blocking itself makes them (+inf or NaN put in the scores), not an
    overflow of the softmax."""
    w = weights.detach()
    live = mask.expand(w.shape).any(dim=-1)  # (..., len_q): rows with an allowed key
    bad = (~torch.isfinite(w)).any(dim=-1) & live
    if not bad.any():
        return
    torch.manual_seed(_AGAIN_SEED)
    try:  # a probe: whatever it raises, the comparison below explains the weights
        probe = fn(*[a.detach().clone() for a in args[:3]], torch.ones_like(mask))
    except Exception:
        return
    if not isinstance(probe, tuple | list) or len(probe) != 2:
        return
    if not isinstance(probe[1], torch.Tensor):
        return
    first = tuple(int(i) for i in bad.nonzero()[0])
    if not bool(torch.isfinite(probe[1]).all()):
        if _nan_from_any_mask(fn, args, mask):
            c.fail(
                what + f"your `weights` contain NaN or inf in query rows that may attend to a "
                f"key (first query row {first}, batch indices first), and so they do with a "
                "mask that blocks nothing (all True), while with no mask they are finite (and "
                "an all-False mask gives no row that adds up to 1, so the mask is not read "
                "the wrong way round): passing a mask turns the "
                f"allowed entries into NaN too, not only the blocked ones. {MASK_TIMES_INF}"
            )
        return
    c.fail(
        what + f"your `weights` contain NaN or inf in query rows that may attend to a key (first "
        f"query row {first}, batch indices first), but with a mask that blocks nothing they are "
        f"finite: the blocking makes them. {BLOCKED_NOT_MINUS_INF}"
    )


_SDPA_ALL_FALSE_SKIPPED = (
    "your `weights` are those of no mask at all, although this mask (all False) blocks "
    "every key: every query row got the softmax of its scores, while on an earlier input "
    "({earlier}) your fully masked rows came out as zeros. So the masking is skipped when the whole mask is "
    "False: a guard such as `if mask is not None and mask.any():` reads mask.any() as 'is "
    "anything masked', but it asks 'is any key allowed', and is False exactly here (a "
    "batch that is all padding). Each query row is masked on its own: test only "
    "`if mask is not None:`."
)
_SDPA_ROWS_NOT_ON_THEIR_OWN = (
    "your fully masked rows are not zeros here, while on an earlier input ({earlier}) they "
    "came out as zeros: "
    "the weights of a query row with no allowed key depend on the rest of the mask (other "
    "rows, other sentences of the batch). Each query row is masked on its own: zero the "
    "rows where ~mask.any(dim=-1, keepdim=True), whatever the other rows hold."
)


_SDPA_UNBLOCKED_ROWS_ZEROED = (
    "the query rows whose mask is all False (no allowed key) came out as NaN, and on the "
    "same input with query row 0 allowed every key, that row came out all zeros: your "
    "repair zeroes the rows with no *blocked* key instead of the rows with no *allowed* "
    "key. That is a flipped mask reused (mask = ~mask to fill the scores, then "
    "~mask.any(dim=-1) on the flipped one), or mask.all(dim=-1) where ~mask.any(dim=-1) "
    "belongs. Keep the mask as given (fill where ~mask, without rebinding it) and zero the "
    "rows where ~mask.any(dim=-1, keepdim=True)."
)


def _unblocked_rows_zeroed(c, fn, q, k, v, mask) -> bool:
    """Whether the answer zeroes a query row that may attend to every key: a probe on the
    same q, k, v with query row 0 of the mask all True (a repair of the fully masked rows
    that found the rows with nothing blocked)."""
    probe_mask = mask.clone()
    probe_mask[..., 0, :] = True  # (..., len_q, len_k): row 0 allows every key
    try:
        result = c.call(fn, q.clone(), k.clone(), v.clone(), probe_mask)
        weights = result[1].detach()  # (..., len_q, len_k)
        full = probe_mask.expand(weights.shape).all(dim=-1)  # (..., len_q)
    except Exception:  # the main input gives the message
        return False
    return bool(full.any()) and bool((weights[full] == 0).all())


def _output_rows_repaired(output, dead: torch.Tensor) -> bool:
    """Whether the output rows of the queries with no allowed key are all zeros, what the
    repaired (zero) weights give: the repair reached the output."""
    if not (isinstance(output, torch.Tensor) and output.shape[:-1] == dead.shape):
        return False
    rows = output.detach()[dead]  # (number of dead rows, d_v)
    return bool(torch.isfinite(rows).all()) and bool((rows == 0).all())


def _expect_fully_masked_rows_finite(c, mask, weights, what, probe=None, output=None) -> None:
    """NaN exactly in the rows with no allowed key: the rows were not repaired, or
    repaired by a multiplication (NaN * 0 is NaN), which these weights cannot tell apart;
    or (``probe()`` True: a row that allows every key is zeroed) repaired in the rows
    with no blocked key instead; or (the ``output``'s rows there all zeros) repaired in a
    copy that made the output while the unrepaired weights were returned (round 20,
    blind19b-sdpa-returns-unrepaired-weights, was told to repair them)."""
    w = weights.detach()
    dead = ~mask.expand(w.shape).any(dim=-1)  # (..., len_q)
    bad = (~torch.isfinite(w)).any(dim=-1)  # (..., len_q)
    if not bad.any() or not dead.any() or bool(bad[~dead].any()):
        return
    if probe is not None and probe():
        c.fail(f"{what}your `weights`: {_SDPA_UNBLOCKED_ROWS_ZEROED}")
    first = tuple(int(i) for i in (dead & bad).nonzero()[0])
    if _output_rows_repaired(output, dead & bad):
        c.fail(
            f"{what}your `weights` are NaN in the query rows whose mask allows no key (the "
            f"first is query row {first}, batch indices first), while your `output` is all "
            "zeros and finite in those rows, as it should be: the repair reached the output "
            "but not the weights you return. Either it was made in a copy of the weights "
            "(the one that multiplies v) and the weights returned are the ones from before "
            "it, or only the output was repaired (torch.nan_to_num(weights @ v)). Repair the "
            "weights themselves and return that tensor, the one that multiplies v: "
            "`return weights @ v, weights`."
        )
    c.fail(
        f"{what}your `weights`: {FULLY_MASKED_NAN} Multiplying them by a 0/1 mask does not "
        "repair them either: NaN * 0 is NaN (weights * mask.any(dim=-1, keepdim=True) keeps "
        "the NaN), so overwrite them, with masked_fill or torch.where. (The first such row "
        f"is query row {first}, batch indices first.)"
    )


def _expect_rows_masked_on_their_own(c, q, k, mask, weights, convention, earlier, what) -> None:
    """Fully masked rows that were zeros on an ``earlier`` case (its label) and are not
    zeros now: the treatment of a row depends on the rest of the mask (the mask skipped
    when it is all False, named when the weights are exactly those of no mask)."""
    if earlier is None or convention in (None, "zero"):
        return
    if not bool(mask.any()):
        unmasked = attention_weights_variant(q, k, None, scale=math.sqrt(q.shape[-1]))
        w = weights.detach().double()
        if w.shape == unmasked.shape and torch.allclose(w, unmasked, rtol=1e-4, atol=1e-5):
            c.fail(what + _SDPA_ALL_FALSE_SKIPPED.format(earlier=earlier))
    c.fail(what + _SDPA_ROWS_NOT_ON_THEIR_OWN.format(earlier=earlier))


def _scale_moved_to_output(q, k, v, mask, weights, output) -> str:
    """Weights that are the softmax of the unscaled scores, with an output that is their
    weighted sum of v divided by √d_k (or d_k): the scale put on the output (or on v)
    instead of the scores. "" otherwise."""
    d_k = q.shape[-1]
    if d_k == 1:
        return ""
    unscaled = attention_weights_variant(q, k, mask, scale=1.0)  # (..., len_q, len_k)
    if torch.allclose(unscaled, attention_weights_variant(q, k, mask), rtol=1e-4, atol=1e-6):
        return ""  # the scale changes nothing here (every key blocked): nothing to tell
    w, out = weights.detach().double(), output.detach().double()
    if w.shape != unscaled.shape or not torch.allclose(
        torch.nan_to_num(w), unscaled, rtol=1e-4, atol=1e-6
    ):
        return ""
    mixed = torch.nan_to_num(w) @ v.detach().double()  # (..., len_q, d_v)
    if out.shape != mixed.shape:
        return ""
    for divisor, shown in ((math.sqrt(d_k), f"√d_k = √{d_k}"), (float(d_k), f"d_k = {d_k}")):
        if torch.allclose(out, mixed / divisor, rtol=1e-4, atol=1e-6):
            return (
                f"Your weights match softmax(q kᵀ) with no scaling, and your output is "
                f"weights @ v divided by {shown}: the scale went onto the output (or v), not "
                "onto the scores. Dividing the output only shrinks it; dividing the scores is "
                "what keeps the softmax from saturating. Scale the scores: softmax(q kᵀ / "
                "√d_k), then weights @ v as it is."
            )
    return ""


def _backward_error(fn, mask) -> str | None:
    """Run ``fn`` on a small input that requires gradients (with ``mask``) and backward
    through its output and weights: None when backward runs (or the forward call fails,
    which the cases above report), else the text of the RuntimeError backward raised.
    The backward pass runs where the call ran (:func:`call_gradients`: in the sandboxed
    grader, there)."""
    q, k, v = (
        torch.randn(2, n, d, generator=torch_generator(6161 + i), dtype=torch.float64)
        for i, (n, d) in enumerate(((3, 4), (5, 4), (5, 6)))
    )
    args = [t.requires_grad_() for t in (q, k, v)] + ([] if mask is None else [mask.clone()])
    # d loss / d (output, weights) for loss = output.sum() + Σ weights · key index
    upstream = (torch.ones(2, 3, 6, dtype=torch.float64), torch.arange(5.0).repeat(2, 3, 1))
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(_CALL_SEED)
            output, weights = fn(*args)  # (2, 3, 6), (2, 3, 5)
        if (tuple(output.shape), tuple(weights.shape)) != ((2, 3, 6), (2, 3, 5)):
            return None
    except Exception:  # a probe: the cases above say what is wrong with the call
        return None
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(_CALL_SEED)
            call_gradients(fn, args, upstream)
    except RuntimeError as exc:
        return str(exc).split(" Hint:")[0]
    except Exception:  # a second call that differs from the first: nothing said here
        return None
    return None


def _expect_backward_with_a_mask(c: Checker, fn) -> None:
    """Backward must run with a mask too. The grad cases have none, so an in-place step
    in the mask branch (the fully masked rows zeroed with weights.masked_fill_ on the
    softmax's output, which softmax's backward needs) went unseen (blind12m-sdpa-nan-rows-
    zeroed-in-place); the forward values are right, so only backward shows it."""
    mask = torch.tensor(
        [[True, False, True, True, False], [False] * 5, [True] * 5]
    )  # (len_q, len_k): query 1 sees no key
    text = _backward_error(fn, mask)
    if text is None:
        return
    call = (
        "scaled_dot_product_attention(q (2, 3, 4), k (2, 5, 4), v (2, 5, 6), mask (3, 5)) "
        "with q, k and v requiring gradients (query 1 may attend to no key)"
    )
    raised = f"backward through the output and weights of {call} raised RuntimeError: {text[:400]}"
    if "modified by an inplace operation" not in text:
        c.fail(
            f"{raised}\nLater lessons train through this function: build the output and the "
            "weights with torch operations that autograd can follow."
        )
    unmasked = _backward_error(fn, None) is None
    softmax = re.search(r"output \d+ of Softmax", text) is not None
    where = (
        "Without a mask the same backward runs, so the step is in your mask branch"
        if unmasked
        else "Backward fails without a mask too"
    )
    tensor = (
        ": here the tensor is the softmax's output, the weights, which softmax's backward "
        "needs (zeroing the fully masked rows with weights.masked_fill_(...), "
        "weights[rows] = 0 or weights.nan_to_num_() changes it in place)"
        if softmax
        else " (an operation ending in _, such as masked_fill_ or nan_to_num_, an x[...] = "
        "assignment, or x += ...)"
    )
    c.fail(
        f"{raised}\nYour values are right, but an operation changed in place a tensor that "
        f"autograd saved for the backward pass. {where}{tensor}. Use the out-of-place forms, "
        "which return new tensors: weights = weights.masked_fill(rows, 0.0), torch.where, "
        "weights.nan_to_num(0.0)."
    )


def _only_on_the_mask_path(sdpa, q, k, v, mask, weights) -> str:
    """When weights given a mask are wrong but the same call without the mask gives the
    right weights: the mistake sits on the path taken when a mask is given, named as the
    scaling skipped there when the masked weights are those of the unscaled scores; ""
    otherwise (no mask, or a probe that fails)."""
    if mask is None:
        return ""
    try:
        with torch.no_grad():
            _, unmasked = sdpa(q.clone(), k.clone(), v.clone())  # (..., len_q, len_k)
        _, right = ref.scaled_dot_product_attention(q.double(), k.double(), v.double())
        if tuple(unmasked.shape) != tuple(right.shape) or not torch.allclose(
            unmasked.detach().double(), right, atol=1e-5
        ):
            return ""
        root = math.sqrt(q.shape[-1])
        _, unscaled = ref.scaled_dot_product_attention(
            q.double() * root, k.double(), v.double(), mask
        )  # (..., len_q, len_k): softmax(q kᵀ) under the mask
        got = weights.detach().double()
        allowed = mask.bool().any(dim=-1, keepdim=True).expand_as(unscaled)  # rows with a key
        fits_unscaled = tuple(got.shape) == tuple(unscaled.shape) and torch.allclose(
            got[allowed], unscaled[allowed], atol=1e-5
        )
    except Exception:  # the probe is the check's own: no verdict from it
        return ""
    if fits_unscaled:
        return (
            "Called on the same q, k, v without a mask, your weights are right: the scores "
            "are divided by √d_k only when no mask is given. The division sits in one branch "
            "of `if mask is not None:` (the else branch, say); scale the scores before the "
            "mask test, on both paths."
        )
    return (
        "Called on the same q, k, v without a mask, your weights are right: the mistake is "
        "on the path your function takes when a mask is given (a step inside `if mask is "
        "not None:`, or one left out of it)."
    )


def _without_float_mask_candidates(failure: CheckFailure) -> CheckFailure:
    """Where the check's own hint says the bool mask it passed was cast by the learner's
    code, the general advice on ~ of a float mask (which also names masks built without
    dtype=torch.bool, impossible for a mask the check built) is left out."""
    if "The mask this call passed is bool" not in failure.message:
        return failure
    lines = failure.message.split("\n")
    kept = [line for line in lines if not line.startswith("~ negates a bool mask, and this")]
    return CheckFailure(failure.exercise, "\n".join(kept), failure.learner_traceback)


def check_scaled_dot_product_attention(scaled_dot_product_attention, *, hidden: bool = False):
    """(output, weights) = scaled_dot_product_attention(q, k, v, mask=None) on torch tensors.

    Required: weights (..., len_q, len_k) = softmax over the keys of q kᵀ / √d_k with the
    blocked keys (mask False) at weight 0, output (..., len_q, d_v) = weights @ v, for any
    number of leading batch dims, within a tolerance that fits the dtype; q, k, v and the
    mask left unchanged; the output connected to the autograd graph. Accepted: any
    floating dtype (a note); any value to block keys (-inf, -1e9, -1e4, finfo.min,
    masked_fill, torch.where, an additive mask); fully masked rows as zeros (the
    reference), uniform, or another finite distribution (a note), never NaN; a tuple or
    a list.
    """
    with Checker("scaled_dot_product_attention", hidden=hidden) as c:
        c.require_callable(scaled_dot_product_attention)
        zero_rows_on = None  # the label of the first case whose fully masked rows were zeros
        for case in _sdpa_cases(hidden):
            (q, k, v), mask, label = case["qkv"], case["mask"], case["label"]
            given = [t.clone().requires_grad_(case.get("grad", False)) for t in (q, k, v)]
            args = given if mask is None else [*given, mask.clone()]
            torch.manual_seed(_CALL_SEED)
            try:
                result = c.call(
                    scaled_dot_product_attention,
                    *args,
                    call_repr=f"scaled_dot_product_attention({_describe(q, k, v, mask)})",
                    hints=_sdpa_hints(q, k, v, mask, scaled_dot_product_attention),
                    mutation_hint=_SDPA_MUTATION,
                )
            except CheckFailure as failure:
                raise _without_float_mask_candidates(failure) from None
            what = f"On {label} ({_describe(q, k, v, mask)}), "
            if isinstance(result, torch.Tensor):
                c.fail(
                    what + "your function returned a single tensor. Return a tuple "
                    "(output, weights): the weights are what we plot and inspect."
                )
            c.expect_type(result, tuple | list, what + "the result", "Return (output, weights).")
            c.expect_true(
                len(result) == 2,
                what + f"the result has {len(result)} items; return exactly (output, weights).",
            )
            output, weights = result
            c.expect_type(output, torch.Tensor, what + "the output (first item)")
            c.expect_type(weights, torch.Tensor, what + "the weights (second item)")
            lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
            if mask is not None:
                lead = torch.broadcast_shapes(lead, mask.shape[:-2])
            len_q, len_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
            w_shape, o_shape = (*lead, len_q, len_k), (*lead, len_q, d_v)
            if tuple(output.shape) == w_shape and tuple(weights.shape) == o_shape:
                c.fail(
                    what + "the first item has the shape of the weights and the second the shape "
                    "of the output: return (output, weights), in that order."
                )
            swap_hint = _SDPA_SWAP.format(len_q=len_q, len_k=len_k)
            if tuple(weights.shape[-2:]) == (len_k, len_q) and len_q != len_k:
                # the output tells which: right from the right weights, only returned transposed
                right_out, right_w = ref.scaled_dot_product_attention(q, k, v, mask)
                if (
                    tuple(output.shape) == tuple(right_out.shape)
                    and torch.allclose(output.detach().double(), right_out.double(), atol=1e-5)
                    and torch.allclose(
                        weights.detach().double().transpose(-2, -1),
                        right_w.double(),
                        atol=1e-5,
                        equal_nan=True,
                    )
                ):
                    swap_hint = (
                        f"The inputs have len_q = {len_q} queries and len_k = {len_k} keys on "
                        "purpose. Your output is right, and your weights are the right ones "
                        "transposed: you computed with (..., len_q, len_k) weights and returned "
                        "them transposed (.transpose(-2, -1), .mT). Return the weights the "
                        "output was computed with."
                    )
            c.expect_shape(
                weights,
                w_shape,
                what + "your `weights`",
                "They are (..., len_q, len_k): one row per query, one column per key, with the "
                "batch dims of the inputs in front. "
                + (swap_hint if tuple(weights.shape[-2:]) == (len_k, len_q) else "")
                + (
                    f" Yours have {weights.dim()} dims, more than q, k and the mask give: did you "
                    "reshape the mask (an unsqueeze adds a dim)? The mask you were given, shape "
                    f"{tuple(mask.shape)}, already broadcasts against the scores: use it as it is."
                    if mask is not None and weights.dim() > len(w_shape)
                    else ""
                ),
            )
            c.expect_shape(
                output,
                o_shape,
                what + "your `output`",
                "It is weights @ v: (..., len_q, len_k) @ (..., len_k, d_v) -> (..., len_q, d_v)."
                + (
                    " Did you multiply by k instead of v?"
                    if output.shape[-1] == q.shape[-1]
                    else ""
                ),
            )
            c.expect_floating(weights, "your `weights`", preferred=q.dtype)
            c.expect_floating(output, "your `output`", preferred=q.dtype)
            _expect_deterministic(c, scaled_dot_product_attention, args, weights, what)
            if mask is not None:
                _expect_fully_masked_rows_finite(
                    c,
                    mask,
                    weights,
                    what,
                    partial(_unblocked_rows_zeroed, c, scaled_dot_product_attention, q, k, v, mask),
                    output,
                )
                _expect_masking_keeps_finite(
                    c, scaled_dot_product_attention, args, mask, weights, what
                )
            exp_out, exp_w = ref.scaled_dot_product_attention(
                q.double(), k.double(), v.double(), mask
            )  # (..., len_q, d_v), (..., len_q, len_k)
            moved = _scale_moved_to_output(q, k, v, mask, weights, output)
            if moved:
                c.fail(what + "your `weights` are not what the reference gives. " + moved)
            probe_weights = _probe_weights(c, scaled_dot_product_attention)
            try:
                convention = expect_attention_weights(
                    c,
                    weights,
                    mask,
                    what + "your `weights`",
                    expected=exp_w,
                    mistakes={
                        **_sdpa_mistakes(q, k, v, mask, probe_weights),
                        **_fitted_scale_mistake(q, k, mask, weights, probe_weights),
                        **_fitted_fill_mistake(q, k, mask, weights),
                        **_always_causal(q, k, mask),
                    },
                    pairs=_sdpa_pairs(q, k, v, mask),
                    explain=lambda q=q, k=k, mask=mask, weights=weights, exp_w=exp_w: (
                        _starved_rows_note(
                            q, k, mask, weights, exp_w, **tolerance(weights.dtype, q.dtype)
                        )
                    ),
                    **tolerance(weights.dtype, q.dtype),
                )
            except CheckFailure as failure:
                note = _only_on_the_mask_path(scaled_dot_product_attention, q, k, v, mask, weights)
                if not note:
                    raise
                raise CheckFailure(
                    failure.exercise, f"{failure.message} {note}", failure.learner_traceback
                ) from None
            if mask is not None:
                _expect_rows_masked_on_their_own(
                    c, q, k, mask, weights, convention, zero_rows_on, what
                )
            if convention == "zero" and zero_rows_on is None:
                zero_rows_on = label
            accepted_w = with_fully_masked_rows(exp_w, mask, convention, like=weights)
            c.expect_close(
                output,
                accepted_w @ v.double() if convention else exp_out,
                what + "your `output`",
                **_output_tolerance(output.dtype, q.dtype, values=v),
                hint=_SDPA_OUTPUT_HINT,
                mistakes={
                    _SDPA_OUTPUT_TRANSPOSED_WEIGHTS.format(failed=""): (
                        weights.detach().double().transpose(-2, -1) @ v.double()
                        if len_q == len_k
                        else None
                    ),
                    **_sdpa_output_mistakes(exp_out, mask),
                    **_output_from_scores(q, k, v, mask),
                    **_output_from_unmasked(q, k, v, mask),
                },
            )
            if case.get("grad"):
                c.expect_true(
                    output.grad_fn is not None,
                    what + "q, k and v require gradients, but your output is not connected to "
                    "them (it has no grad_fn). Did you use .detach(), torch.no_grad() or go "
                    "through numpy? Later lessons train through this function, so stay in torch.",
                )
                c.expect_true(
                    weights.requires_grad,
                    what + "q, k and v require gradients and your output does, but your "
                    "`weights` do not: they were cut from the autograd graph (a .detach(), "
                    ".data, torch.no_grad() or a numpy round trip on the scores or the "
                    "weights). Your output then depends on v alone for autograd: no gradient "
                    "reaches q and k, so later lessons could never train the queries and "
                    "keys. Keep every step from q and k to the weights in torch, attached.",
                )
        _expect_backward_with_a_mask(c, scaled_dot_product_attention)
