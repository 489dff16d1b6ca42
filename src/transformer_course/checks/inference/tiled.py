"""Checks for lesson 12's tiled (flash-style) attention, against the float64 oracle and its
mistakes."""

import contextlib
import math
import re

import torch
from torch.overrides import TorchFunctionMode

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.attention_weights import mask_misapplied, weights_through_values
from transformer_course.checking.hints import mistake_pairs, uses_dot_t
from transformer_course.checking.inputs import randn
from transformer_course.checking.leading_axes import yielding_to_front_counted
from transformer_course.checking.oracles import (
    scaled_dot_product_attention_f,
    tiled_attention_f,
)
from transformer_course.checking.partial_slices import match_partial_slices
from transformer_course.checking.temperature import precedence_scales
from transformer_course.checking.transposes import pairs_reproducing
from transformer_course.checking.unapplied import never_applied
from transformer_course.reference.attention import scaled_dot_product_attention

from .common import (
    _BROADCAST,
    _LOWER_PRECISION,
    _MASK_FILLED_ZERO,
    _all_nan_candidates,
    _arranged_or_related,
    _empty_block_hint,
    _expect_tensor,
    _informative,
    _localise_blocks,
    _lower_precision_hint,
    _raises_empty,
    _runs,
    _zero_denominator,
)

_SCALED_BY_LENGTH = (
    "The scores are divided by sqrt({n}), the square root of a length ({axis}), instead of "
    "sqrt(d_k) = sqrt(q.shape[-1]): d_k is the last axis."
)


def _scaled_by_length(q, k, v, causal: bool) -> dict:
    """The scores divided by the square root of a length (an axis mix-up): one candidate
    when len_q == len_k, where the two cannot be told apart."""
    lengths = {"len_q": ("q.shape[-2]", q.shape[-2]), "len_k": ("k.shape[-2]", k.shape[-2])}
    if q.shape[-2] == k.shape[-2]:
        lengths = {"len_q": ("q.shape[-2], equal to len_k here", q.shape[-2])}
    return {
        _SCALED_BY_LENGTH.format(n=name, axis=axis): _tiled_expected(
            q, k, v, causal, scale=1 / math.sqrt(size)
        )
        for name, (axis, size) in lengths.items()
        if size != q.shape[-1]
    }


def _keys_reshaped(q, k, v, block: int, causal: bool, whole: bool) -> torch.Tensor | None:
    """Attention whose keys were turned (..., n, d_k) -> (..., d_k, n) with reshape (or
    view) instead of a transpose: each block's slice (``whole`` False) or all of k at once
    (``whole`` True, then sliced by columns). reshape keeps the entries' order in memory,
    so they are regrouped rather than moved between the axes. None where that is the
    transpose (one key per block and d_k == 1)."""
    d_k, len_k = q.shape[-1], k.shape[-2]
    if whole:
        keys_t = k.reshape(*k.shape[:-2], d_k, len_k)  # (..., d_k, len_k), entries regrouped
    else:
        keys_t = torch.cat(
            [
                k[..., start : start + block, :].reshape(*k.shape[:-2], d_k, -1)
                for start in range(0, len_k, block)
            ],
            dim=-1,
        )  # (..., d_k, len_k)
    if torch.equal(keys_t, k.transpose(-2, -1)):
        return None
    scores = q.double() @ keys_t.double() / math.sqrt(d_k)  # (..., len_q, len_k)
    if causal:
        future = torch.arange(len_k)[None, :] > torch.arange(q.shape[-2])[:, None]
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v.double()  # (..., len_q, d_v)


_KEYS_RESHAPED = (
    "Your scores use the keys reshaped to (..., d_k, {n}) instead of transposed: reshape "
    "(and view) keep the entries in their memory order and only regroup them, so the shape "
    "is right but each column mixes features of several keys. Swap the two axes with "
    "k[..., start:stop, :].transpose(-2, -1) (or .mT)."
)


def _keys_reshaped_mistakes(q, k, v, block: int, causal: bool) -> dict:
    """The keys' transpose made with reshape, per block or for all of k at once (one
    entry when the two coincide, as with a single block)."""
    per_block = _keys_reshaped(q, k, v, block, causal, whole=False)
    whole = _keys_reshaped(q, k, v, block, causal, whole=True)
    found = {_KEYS_RESHAPED.format(n="block"): per_block}
    if whole is not None and (per_block is None or not torch.allclose(whole, per_block)):
        found[_KEYS_RESHAPED.format(n="len_k") + " (Here all of k was reshaped at once.)"] = whole
    return found


def _fitted_scale(got, q, k, v, causal: bool) -> float | None:
    """The factor t with got = softmax(t · q kᵀ) v (the causal mask applied), measured on
    a grid of log t and refined by golden-section search; None when no t fits."""
    target = got.detach().double()
    if not bool(torch.isfinite(target).all()):
        return None
    q64, k64, v64 = q.double(), k.double(), v.double()

    def error(log_t: float) -> float:
        value = _tiled_expected(q64, k64, v64, causal, scale=math.exp(log_t))
        return float((value - target).abs().max())

    grid = [math.log(1e-3) + i * math.log(1e6) / 60 for i in range(61)]
    best = min(range(len(grid)), key=lambda i: error(grid[i]))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(40):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        if error(a) < error(b):
            high = b
        else:
            low = a
    t = math.exp((low + high) / 2)
    fitted = _tiled_expected(q64, k64, v64, causal, scale=t)
    return t if torch.allclose(fitted, target, rtol=1e-4, atol=1e-5) else None


def _scale_kinds(shape: tuple[int, ...]) -> dict[str, tuple[str, float]]:
    """The scales other than 1/sqrt(d_k) that a slip of the code gives, for q of ``shape``:
    an id (the same for the same slip at any sizes) -> (its words at these sizes, its
    value). The axis ids name one axis each; several axes of one size are joined when
    said."""
    d_k = shape[-1]
    right = 1 / math.sqrt(d_k)
    kinds: dict[str, tuple[str, float]] = {}
    for text, value in precedence_scales(d_k).items():
        number = f"1/(2·d_k) = 1/{2 * d_k}" if value < 1 else f"2·d_k = {2 * d_k}"
        kinds["precedence-" + ("small" if value < 1 else "large")] = (
            f"{number}: " + text.split(": ", 1)[1],
            value,
        )
    kinds["d_k"] = (
        f"1/d_k = 1/{d_k}: the scores divided by d_k instead of sqrt(d_k) (a missing "
        "math.sqrt, or d_k ** -1 where d_k ** -0.5 belongs)",
        1 / d_k,
    )
    for axis, size in enumerate(shape[:-2]):
        if size not in (1, d_k):
            same = [a for a, other in enumerate(shape[:-2]) if other == size]
            read = " or ".join(f"q.shape[{a}]" for a in same)
            kinds[f"axis-{axis}"] = (
                f"1/sqrt({size}), with {size} = {' = '.join(f'q.shape[{a}]' for a in same)} "
                f"(of q {tuple(shape)}), where d_k = q.shape[-1] = {d_k} belongs: d_k was "
                f"read from another axis than the last; {read} is d_k only for 2-D (len, d_k) "
                "inputs. Take d_k = q.shape[-1]",
                1 / math.sqrt(size),
            )
    # another base of the exponential on top of the right scale (blind20c-tiled-exp2-
    # without-log2e was told only the measured factor): exp2 as FlashAttention's kernels
    # take it, with or without the log2(e) it needs
    kinds["exp2"] = (
        "1/sqrt(d_k) times ln 2 = 0.6931: your exponentials are 2 ** s (torch.exp2, as "
        "the Triton FlashAttention kernels take them) where e ** s belongs, and the "
        "scores were not first multiplied by log2(e) = 1.4427, which exp2 needs "
        "(exp2(s · log2 e) = exp(s)); a softmax in base 2 is too flat. Multiply the "
        "scores by math.log2(math.e) before every exp2, or use torch.exp",
        right * math.log(2.0),
    )
    kinds["log2e"] = (
        "1/sqrt(d_k) times log2(e) = 1.4427: your scores were multiplied by log2(e), the "
        "factor torch.exp2 needs, but exponentiated with torch.exp: either drop the "
        "log2(e) or take torch.exp2 (for the weights and the rescale factor alike)",
        right / math.log(2.0),
    )
    kinds["exp10"] = (
        "1/sqrt(d_k) times ln 10 = 2.303: your exponentials are 10 ** s where e ** s "
        "belongs; use torch.exp",
        right * math.log(10.0),
    )
    return kinds


#: the constant factors among :func:`_scale_kinds` (the same t·sqrt(d_k) at every size)
_CONSTANT_KINDS = ("exp2", "log2e", "exp10")

#: a probe whose every axis has a size of its own, none of them a square (d_k = 6): a scale
#: read from an axis, from d_k, or a constant factor each give another t on it
_SCALE_PROBE = ((3, 5, 7, 6), 2, 3)  # q's shape, d_v, block_size


def _probe_scale(rerun) -> tuple[float, tuple[int, ...]] | None:
    """The scale t the learner's tiled_attention uses on :data:`_SCALE_PROBE` (no mask),
    with the probe's shape; None when it raises or no t fits."""
    shape, d_v, block = _SCALE_PROBE
    q, k = randn(shape, 4611, scale=0.5), randn(shape, 4612, scale=0.5)
    v = randn((*shape[:-1], d_v), 4613)  # (3, 5, 7, 2)
    try:
        got = rerun(q.clone(), k.clone(), v.clone(), block, False)
        if not isinstance(got, torch.Tensor) or got.shape != (*shape[:-1], d_v):
            return None
        t = _fitted_scale(got, q, k, v, False)
    except Exception:  # a probe of learner code: any failure leaves the measured t alone
        return None
    return None if t is None else (t, shape)


def _scale_named(got, q, k, v, causal: bool, rerun=None) -> str:
    """When the output is attention with another scale t than 1/sqrt(d_k): t, and the slip
    that gives it when exactly one does on the check's input and on a probe of other
    sizes (``rerun``, the learner's function: a constant factor, 2 / sqrt(d_k) say, and
    1/sqrt of an axis that happens to be 2 agree on one input); "" when no scale fits
    (or the scale is right)."""
    d_k = q.shape[-1]
    t = _fitted_scale(got, q, k, v, causal)
    if t is None or math.isclose(t, 1 / math.sqrt(d_k), rel_tol=1e-3):
        return ""
    said = (
        f"Your scores are multiplied by {t:.4g} where 1/sqrt(d_k) = 1/sqrt({d_k}) = "
        f"{1 / math.sqrt(d_k):.4g} belongs (the output is exactly softmax(t · q kᵀ) v with "
        f"t = {t:.4g})"
    )
    unnamed = said + ": find where your scale comes from; it is 1 / math.sqrt(q.shape[-1])."
    kinds = _scale_kinds(tuple(q.shape))
    found = [kind for kind, (_, value) in kinds.items() if math.isclose(t, value, rel_tol=1e-3)]
    probe = _probe_scale(rerun) if rerun is not None else None
    if probe is None:
        # one input: a constant factor always fits too, so only constants are named
        found = [kind for kind in found if kind in _CONSTANT_KINDS]
        return f"{said}: {t:.4g} is {kinds[found[0]][0]}." if len(found) == 1 else unnamed
    t_probe, probe_shape = probe
    probe_kinds = _scale_kinds(probe_shape)
    found = [
        kind
        for kind in found
        if kind in probe_kinds and math.isclose(t_probe, probe_kinds[kind][1], rel_tol=1e-3)
    ]
    if len(found) == 1:
        return f"{said}: {t:.4g} is {kinds[found[0]][0]}."
    factor = t * math.sqrt(d_k)
    if not found and math.isclose(factor, t_probe * math.sqrt(probe_shape[-1]), rel_tol=1e-3):
        return (
            f"{said}. On a probe with d_k = {probe_shape[-1]} (and every other size changed "
            f"too) your scale is again {factor:.4g} / sqrt(d_k): a constant factor "
            f"{factor:.4g} on top of the right 1/sqrt(d_k), not a size read from the wrong "
            f"place. Look for the extra {factor:.4g} in your scale or scores (a numerator "
            "other than 1, a factor applied twice); the scale is 1 / math.sqrt(q.shape[-1])."
        )
    return unnamed


def _tiled_pairs(q, k, v, block: int, causal: bool) -> dict:
    """Two known mistakes at once, one from each of two families (the rescale, the scale,
    the causal mask, the final division), each pair the oracle with both knobs: tried
    only when no single mistake matches, and named only when exactly one pair does (round
    34: a rescale left out together with a scale of 1/d_k was only located)."""
    d = q.shape[-1]
    several = k.shape[-2] > block
    families = {
        "rescale": [
            (
                "The output accumulated over earlier blocks is not rescaled when the maximum "
                "grows: multiply it by exp(m_old - m_new), as the running sum.",
                {"rescale_output": False},
            ),
            (
                "The running sum is not rescaled when the maximum grows (the accumulated "
                "output is): multiply it by exp(m_old - m_new) too.",
                {"rescale_sum": False},
            ),
            (
                "Neither the running sum nor the accumulated output is rescaled when the "
                "maximum grows: multiply both by exp(m_old - m_new).",
                {"rescale_output": False, "rescale_sum": False},
            ),
        ]
        if several
        else [],
        "scale": [
            ("The scores are not multiplied by 1 / sqrt(d_k).", {"q_times": math.sqrt(d)}),
            ("The scores are divided by d_k instead of sqrt(d_k).", {"q_times": d**-0.5}),
        ],
        "causal": [
            (
                "The causal mask hides the diagonal too (j >= i masked): mask only j > i.",
                {"strict": True},
            ),
            (
                "The causal mask compares the query with the key's index inside its block "
                "instead of its position in the sequence (start + index).",
                {"local_index": True},
            ),
            ("causal=True was never applied: nothing is masked.", {"causal": False}),
        ]
        if causal
        else [],
        "divide": [
            (
                "The accumulated output is never divided by the running sum: return acc / total.",
                {"divide": False},
            )
        ],
    }

    def value(knobs: dict):
        knobs = dict(knobs)
        scaled = q * knobs.pop("q_times", 1.0)
        return tiled_attention_f(scaled, k, v, block, knobs.pop("causal", causal), **knobs)

    return mistake_pairs(families, value)


def _tiled_expected(q, k, v, causal: bool, *, scale: float | None = None):
    len_q, len_k = q.shape[-2], k.shape[-2]
    mask = torch.ones(len_q, len_k, dtype=torch.bool).tril() if causal else None
    if scale is not None:
        q = q * scale * math.sqrt(q.shape[-1])
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    return output


def _softmax_parts(q, k, v, causal: bool, column_scale=None):
    """(acc, total) of the whole computation in float64: acc = sum_j exp(s_j - m) v_j and
    total = sum_j exp(s_j - m), s = q kᵀ / sqrt(d_k) (each key column j times
    column_scale[j] instead, when given), the causal mask j <= i applied."""
    scores = q.double() @ k.double().transpose(-2, -1)
    if column_scale is None:
        scores = scores / math.sqrt(q.shape[-1])
    else:
        scores = scores * column_scale.double()
    if causal:
        future = torch.arange(k.shape[-2])[None, :] > torch.arange(q.shape[-2])[:, None]
        scores = scores.masked_fill(future, float("-inf"))
    weights = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    return weights @ v.double(), weights.sum(dim=-1)


def _blocks_normalised_apart(q, k, v, block: int, causal: bool, mean: bool) -> torch.Tensor:
    """Each block's softmax taken on its own and the blocks' outputs summed (or averaged):
    no shared denominator (blocks with no visible key give 0)."""
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        future = torch.arange(k.shape[-2])[None, :] > torch.arange(q.shape[-2])[:, None]
        scores = scores.masked_fill(future, float("-inf"))
    out = 0
    starts = range(0, k.shape[-2], block)
    for start in starts:
        weights = torch.nan_to_num(torch.softmax(scores[..., start : start + block], dim=-1))
        out = out + weights @ v[..., start : start + block, :].double()
    return out / len(starts) if mean else out


def _keys_before(q, k, v, causal: bool, stop: int) -> torch.Tensor:
    """Attention over keys 0 .. stop - 1 only (the blocks from key ``stop`` on never
    visited)."""
    scores = q.double() @ k[..., :stop, :].double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        future = torch.arange(stop)[None, :] > torch.arange(q.shape[-2])[:, None]
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v[..., :stop, :].double()


def _stopped_early(q, k, v, block: int, causal: bool, uncausal_ran: bool = False) -> dict:
    """The loop stopping before the block at each start (but the last partial one, named
    apart): a loop bound too short, or a skip of "future" blocks that skips visible ones.
    ``uncausal_ran``: an earlier call with causal=False over blocks past this start was
    right, so under causal=True the skip is the cause, not the loop's bound
    (blind10e-tiled-causal-skip-straddling-block got both)."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    partial = len_k - len_k % block if len_k % block else None
    out = {}
    for start in range(block, len_k, block):
        if start == partial:
            continue
        seen = (
            f" Under causal=True query {len_q - 1} may attend to key {start}"
            f"{' and later ones' if start < len_q - 1 else ''}: a block lies wholly in the "
            "future only when its first key is after the last query, start > len_q - 1."
            if causal and start <= len_q - 1
            else ""
        )
        if seen and uncausal_ran:
            out[
                f"Your result is attention over keys 0 .. {start - 1} only: the blocks from "
                f"key {start} on were skipped. Your results with causal=False over as many "
                "blocks were right, so the loop visits every block there: the skip of the "
                "blocks thought to be in the future is what drops this one. It starts at key "
                f"{start} <= len_q - 1 = {len_q - 1}, so query {len_q - 1} may attend to key "
                f"{start}: a block lies wholly in the future only when its first key is after "
                "the last query, start > len_q - 1 (start >= len_q); skip only those."
            ] = _keys_before(q, k, v, causal, start)
            continue
        # the first start a loop over the queries' length never reaches
        # (blind12l-tiled-blocks-over-len-q was told only "a loop that stops early")
        first_only = (
            ", or the return indented into the loop's body, which ends the function after "
            "its first block"
            if start == block
            else ""
        )
        over_len_q = (
            f" That is exactly where range(0, len_q, block_size) stops: a loop over len_q = "
            f"q.shape[-2] = {len_q}, the number of queries, instead of len_k = k.shape[-2] = "
            f"{len_k}, the number of keys (the two are equal only in self-attention without "
            "a cache)."
            if len_q < len_k and start == -(-len_q // block) * block
            else ""
        )
        out[
            f"Your result is attention over keys 0 .. {start - 1} only: the blocks from key "
            f"{start} on were never visited (a loop that stops early, or a skip of blocks "
            f"thought to be in the future{first_only}).{over_len_q}{seen} Visit every block, "
            "range(0, len_k, block_size)."
        ] = _keys_before(q, k, v, causal, start)
    return out


def _added_before_rescale(q, k, v, block: int, causal: bool) -> torch.Tensor:
    """Tiled attention whose running sum and output add each block's terms *before* the
    rescale, (acc + w v) * exp(m_old - m_new): the factor multiplies the new block's terms
    too, and on the first block (exp(-inf - m) = 0) wipes them out
    (blind10e-tiled-rescale-after-add)."""
    q, k, v = q.double(), k.double(), v.double()
    len_q, len_k = q.shape[-2], k.shape[-2]
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start in range(0, len_k, block):
        stop = min(start + block, len_k)
        scores = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.arange(start, stop)[None, :] > torch.arange(len_q)[:, None]
            scores = scores.masked_fill(future, float("-inf"))
        new = torch.maximum(m, scores.amax(dim=-1))
        correction = torch.exp(m - new)
        weights = torch.exp(scores - new[..., None])
        total = (total + weights.sum(dim=-1)) * correction
        acc = (acc + weights @ v[..., start:stop, :]) * correction[..., None]
        m = new
    return acc / total[..., None]


_ADDED_BEFORE_RESCALE = (
    "Your running sum and output are rescaled after adding each block's terms instead of "
    "before, (acc + exp(s - m_new) v) * exp(m_old - m_new): the factor then multiplies the "
    "new block's terms too, which were already taken against the new maximum (on the first "
    "block the factor is exp(-inf - m) = 0 and wipes them out). Rescale what was "
    "accumulated before, then add: acc = acc * correction[..., None] + weights @ v_block, "
    "and likewise the sum."
)


def _multiplied_by_sum(q, k, v, causal: bool) -> torch.Tensor:
    """acc * total at the end instead of acc / total (mutant tiled_attention-11)."""
    acc, total = _softmax_parts(q, k, v, causal)
    return acc * total[..., None]


def _compounded_scale(q, k, v, block: int, causal: bool) -> torch.Tensor | None:
    """The scale applied again in every block (q = q * scale inside the loop): block b's
    scores multiplied by scale ** (b + 1) (blind9e-tiled-scale-compounds-per-block); None
    with one block, where it is right."""
    if k.shape[-2] <= block:
        return None
    scale = 1 / math.sqrt(q.shape[-1])
    column = scale ** (torch.arange(k.shape[-2]) // block + 1).double()
    acc, total = _softmax_parts(q, k, v, causal, column)
    return acc / total[..., None]


_COMPOUNDED_SCALE = (
    "Your scale is applied again in every block: block b's scores are multiplied by "
    "scale ** (b + 1), as q = q * scale (or scale *= ...) inside the loop does. Scale once: "
    "multiply each block's scores by 1 / sqrt(d_k), or make a scaled copy of q once before "
    "the loop."
)
_MULTIPLIED_BY_SUM = (
    "Your accumulated output is multiplied by the running sum at the end instead of divided "
    "by it: the softmax's denominator divides, return acc / total[..., None]."
)
_SCALE_INVERTED = (
    "Your scores are multiplied by sqrt(d_k) instead of divided by it: a scale of "
    "1 / sqrt(d_k) used as a divisor (scores / scale), or sqrt(d_k) used as a factor. "
    "Multiply by scale = 1 / sqrt(d_k) (or divide by math.sqrt(d_k))."
)


def _blockwise(q, k, v, block: int, causal: bool, *, fill_visible=False, fa1=""):
    """Tiled attention as a learner's loop computes it, with one of two slips:
    ``fill_visible``, the causal mask the wrong way round (masked_fill where j <= i, the
    keys that may be seen: each query sees only the later keys, and a query whose block
    has none gets NaN from exp(-inf - -inf)); ``fa1``, the output kept normalised after
    every block (FlashAttention-1's form, O = (l_old e^(m - m') O_old + P V) / l_new) with
    the old output's factor wrong: "no_sum", exp(m_old - m_new) alone, without the old
    running sum it was divided by; "ratio_inverted", l_new / (l_old e^(m - m')), the
    ratio upside down (FlashAttention-2's diag(l1 / l2)^-1 read as a plain ratio);
    "sums_inverted", (l_new / l_old) e^(m - m'), only the sums' ratio upside down;
    "no_correction", l_old / l_new without exp(m_old - m_new)."""
    m = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)  # (..., len_q)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)  # (..., len_q)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)  # (..., len_q, d_v)
    rows = torch.arange(q.shape[-2])[:, None]
    for start in range(0, k.shape[-2], block):
        stop = min(start + block, k.shape[-2])
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            keys = torch.arange(start, stop)[None, :]
            s = s.masked_fill(keys <= rows if fill_visible else keys > rows, float("-inf"))
        new = torch.maximum(m, s.amax(dim=-1))
        factor = torch.exp(m - new)  # (..., len_q)
        weights = torch.exp(s - new[..., None])  # (..., len_q, block)
        new_total = total * factor + weights.sum(dim=-1)
        block_terms = weights @ v[..., start:stop, :]  # (..., len_q, d_v)
        old_share = {  # what the normalised old output is multiplied by, (..., len_q)
            "": None,
            "no_sum": factor / new_total,
            "ratio_inverted": torch.where(
                total * factor > 0, new_total / (total * factor), torch.zeros_like(total)
            ),
            "sums_inverted": torch.where(total > 0, new_total / total, torch.zeros_like(total))
            * factor,
            "no_correction": total / new_total,
        }[fa1]
        if fa1:
            acc = old_share[..., None] * acc + block_terms / new_total[..., None]
        else:
            acc = acc * factor[..., None] + block_terms
        total, m = new_total, new
    return acc if fa1 else acc / total[..., None]


_FILLS_VISIBLE = (
    "Your causal mask is the wrong way round: each query sees only the keys after it (j > "
    "i), and a query with no later key in a block gets none at all (NaN). A mask in the "
    "course's convention, True = may attend (j <= i), was given to masked_fill, which "
    "fills where its mask is True: fill the future keys instead, scores.masked_fill(~allowed, "
    "float('-inf')), or a mask built as j > i."
)
_FA1_WITHOUT_OLD_SUM = (
    "Your output is kept normalised after every block (FlashAttention-1's form), but the "
    "old output is rescaled by exp(m_old - m_new) alone: it was already divided by the old "
    "running sum, so that sum has to be multiplied back in, acc = (total * correction * acc "
    "+ weights @ v_block) / new_total. Without it, the earlier blocks' contribution is "
    "divided by the sum twice. (Or keep acc unnormalised in the loop and divide once at the "
    "end, acc / total.)"
)
_FA1_RIGHT = (
    " The old output was divided by the old running sum l_old and its terms taken against "
    "m_old, so its share of the new output is l_old · exp(m_old - m_new) / l_new: out = "
    "(total * correction)[..., None] / new_total[..., None] * out + weights @ v_block / "
    "new_total[..., None]. (Or keep acc unnormalised in the loop and divide once at the "
    "end, acc / total.)"
)
_FA1_WRONG_FACTOR = {
    "no_sum": _FA1_WITHOUT_OLD_SUM,
    "ratio_inverted": "Your output is kept normalised after every block (FlashAttention-1's "
    "form), but the factor that rescales the old output is upside down: yours multiplies it "
    "by l_new / (l_old · exp(m_old - m_new)), the new running sum over the old rescaled one, "
    "where the reciprocal belongs (FlashAttention-2's diag(l_old / l_new)^-1 is a division "
    "by that ratio, not a multiplication): the earlier blocks keep too much weight whenever "
    "a later block adds to the sum." + _FA1_RIGHT,
    "sums_inverted": "Your output is kept normalised after every block (FlashAttention-1's "
    "form), and its rescale factor exp(m_old - m_new) is right, but the ratio of the sums "
    "next to it is upside down: l_new / l_old where l_old / l_new belongs." + _FA1_RIGHT,
    "no_correction": "Your output is kept normalised after every block (FlashAttention-1's "
    "form) and multiplied by the ratio of the sums l_old / l_new, but without exp(m_old - "
    "m_new): the old running sum was kept against the old maximum, so it must be rescaled "
    "before it weighs the old output." + _FA1_RIGHT,
}
_ZERO_SCALE = (
    "Your scores are all 0: each query's output is the plain average of the values it may "
    "attend to, as a scale of 0 gives. 1 // math.sqrt(d_k) is floor division, 0.0 for any "
    "d_k above 1 (as is int(1 / math.sqrt(d_k))): write scale = 1 / math.sqrt(d_k)."
)


_MAX_NOT_THE_ROWS = (
    "Yours is right on the rows with ordinary scores but 0 / 0 (NaN) on the rows whose "
    "scores are all far below 0 (about -120 here): every exp there underflowed to 0, so the "
    "maximum subtracted was not the row's own. Either your running maximum starts at 0 "
    "instead of -inf (it then stays 0 on such a row), or no maximum is subtracted at all "
    "(plain exp(s)); this input cannot tell the two apart. Start the running maximum at "
    "-inf (torch.full(q.shape[:-1], float('-inf'))) and exponentiate against it: "
    "exp(s - m_new)."
)


def _only_where_far_below(value: torch.Tensor) -> torch.Tensor | None:
    """A mistake's result that is NaN on some rows only (those whose scores underflow),
    None where it is finite everywhere (the mistake is then exact on this input) or NaN
    everywhere (other models give that too)."""
    finite = torch.isfinite(value)
    return value if bool(finite.any()) and not bool(finite.all()) else None


def _tiled_cases(hidden: bool):
    def case(seed, shape_q, len_k, d_v, block, causal, scale=1.0, dtype=torch.float32):
        q = randn(shape_q, seed, scale=scale, dtype=dtype)
        k = randn((*shape_q[:-2], len_k, shape_q[-1]), seed + 1, scale=scale, dtype=dtype)
        v = randn((*shape_q[:-2], len_k, d_v), seed + 2, dtype=dtype)
        return q, k, v, block, causal

    def sink(seed, shape_q, len_k, block, causal):
        """Queries that all match the first block of keys far better than the rest (an
        attention "sink"): the block maxima fall by over 100 after the first block."""
        q, k, v, block, causal = case(seed, shape_q, len_k, shape_q[-1], block, causal)
        q = q * 0.3 + 4.0
        k = k * 0.3
        k[..., :block, :] += 16.0
        return q, k, v, block, causal

    def far_below(seed, shape_q, len_k, block, causal):
        """Batch element 1's scores are all far below 0 (about -120: exp underflows to 0 in
        float32 unless the row's own maximum is subtracted); element 0's are ordinary. A
        running maximum started at 0 (blind10k-tiled-max-starts-zero) was right on every
        other input."""
        q, k, v, block, causal = case(seed, shape_q, len_k, shape_q[-1], block, causal)
        q[1] = q[1] * 0.3 + 6.0
        k[1] = k[1] * 0.3 - 10.0
        return q, k, v, block, causal

    if not hidden:
        return [
            # 3 heads, not 2: a head count equal to block_size made a running tensor with one
            # axis too few (q.shape[:-2], mutant tiled_attention-15) clash with the queries
            # exactly as weights summed over dim=-2 do
            case(1401, (1, 3, 6, 4), 6, 4, 2, False),
            case(1402, (1, 3, 6, 4), 6, 4, 2, True),
            case(1403, (2, 3, 8), 7, 5, 3, False, scale=2.0),
            case(1404, (1, 5, 4), 5, 4, 8, True),
            case(1405, (2, 3, 4), 7, 3, 3, True),  # len_q < len_k
            sink(1406, (1, 4, 4), 6, 2, False),
            # a block that starts at the last query's own key: skipping the "future" blocks
            # from start >= len_q - 1 on loses key 3 of query 3 (hidden-only before)
            case(1407, (1, 4, 4), 6, 4, 3, True),
            # float64 inputs keep their dtype (running tensors made float32 and updated in
            # place, blind10e-tiled-accumulators-float32-in-place, passed every float32 input)
            case(1408, (2, 3, 5, 4), 7, 3, 3, False, dtype=torch.float64),
            far_below(1409, (2, 3, 4), 5, 2, False),
        ]
    return [
        case(2401, (2, 2, 13, 8), 13, 6, 5, True, scale=2.0),
        case(2402, (3, 4, 4), 9, 3, 4, False),
        case(2403, (1, 1, 4, 4), 10, 4, 3, True),
        case(2404, (2, 7, 2), 7, 2, 1, False, scale=3.0),
        sink(2405, (2, 5, 4), 9, 3, True),
        case(2406, (1, 2, 6, 4), 8, 5, 3, True, dtype=torch.float64),
        far_below(2407, (2, 2, 5, 4), 7, 3, True),
        # block_size > len_k: one block (block_size read as a count of blocks, len_k //
        # block_size = 0, passed every other hidden input, blind13e-tiled-block-size-read-
        # as-count)
        case(2408, (2, 3, 4), 3, 4, 5, False),
    ]


def causal_lower_right(len_q: int, len_k: int) -> torch.Tensor:
    """bool (len_q, len_k), the causal mask aligned to the bottom right: the queries are
    the last len_q positions, query i sees keys j <= len_k - len_q + i (lesson 12's cache
    mask; torch.nn.attention.bias.causal_lower_right)."""
    return torch.ones(len_q, len_k, dtype=torch.bool).tril(len_k - len_q)


_BOTTOM_RIGHT = (
    "Your causal mask is aligned to the bottom right: query i sees keys j <= len_k - len_q "
    "+ i, as if the queries were the last len_q positions (section 2's cache mask, "
    "causal_cache_mask). tiled_attention's causal=True is aligned to the top left, as "
    "F.scaled_dot_product_attention(..., is_causal=True): query i sees keys j <= i. The two "
    "agree only when len_q == len_k."
)


_TILED_OWN_MAX = (
    "Your maximum is each block's own, not the largest score seen so far: when a later "
    "block's scores are far below an earlier one's, or all masked (-inf), exp(m_old - "
    "m_new) overflows. The running maximum only grows: m_new = max(m, block max)."
)


_BATCH2 = re.compile(
    r"Expected size for first two dimensions of batch2 tensor to be: \[\d+, (\d+)\] but "
    r"got: \[\d+, (\d+)\]"
)


_TILED_BLOCKS_OUT_OF_ORDER = (
    "Your rows are right except those of the early queries, which are NaN, and your answer "
    "is right without the mask even where a later block's scores are far below the first "
    "block's: the key blocks are walked in another order than first to last (for example "
    "reversed(range(0, len_k, block_size)), the last block first). Without the mask the "
    "order does not matter, but with causal=True the first block visited is entirely in "
    "the future of the early queries: all their scores there are -inf, so their running "
    "maximum stays -inf and exp(-inf - (-inf)) = exp(nan) makes their rows NaN. Walk the "
    "blocks from the first: for start in range(0, len_k, block_size)."
)


def _first_block_later(got, q, k, v, block: int) -> torch.Tensor | None:
    """The right causal output with NaN on the queries 0 .. s - 1, when those are exactly
    the learner's NaN rows and s is the start of a later key block: the rows a loop gives
    that visits the block at s first (all its keys are in those queries' future, their
    running maximum stays -inf), whatever order it takes after; None otherwise."""
    if not isinstance(got, torch.Tensor) or got.shape[-2] != q.shape[-2]:
        return None
    nan_rows = torch.isnan(got).all(dim=-1)  # (..., len_q)
    queries = nan_rows.reshape(-1, nan_rows.shape[-1]).all(dim=0)  # (len_q,)
    first = int(queries.sum())
    if first == 0 or first % block or first >= k.shape[-2] or not bool(queries[:first].all()):
        return None
    value = _tiled_expected(q, k, v, True).clone()  # (..., len_q, d_v)
    value[..., :first, :] = float("nan")
    return value


def _right_without_mask_far_below(c: Checker, tiled_attention):
    """Whether the learner's tiled_attention is right on an input without the mask whose
    first block of keys scores over 100 above the rest (a maximum that is each block's
    own overflows there; blocks walked in another order do not): asked once, on failure,
    and recorded, so that no single edit is offered that this input rules out."""
    answer: list[bool] = []

    def right() -> bool:
        if not answer:
            q = randn((1, 4, 4), 4411) * 0.3 + 4.0  # (1, 4, 4)
            k = randn((1, 6, 4), 4412) * 0.3  # (1, 6, 4)
            k[..., :2, :] += 16.0
            v = randn((1, 6, 4), 4413)  # (1, 6, 4)
            try:
                got = c.probe(tiled_attention, q.clone(), k.clone(), v.clone(), 2, False)
                expected = _tiled_expected(q, k, v, False)
                answer.append(
                    isinstance(got, torch.Tensor)
                    and got.shape == expected.shape
                    and bool(torch.allclose(got.double(), expected.double(), atol=1e-4))
                )
            except Exception:  # the learner's code: any error is "not right"
                answer.append(False)
        return answer[0]

    return right


def _transposed_scores_hint(q: torch.Tensor, k: torch.Tensor, block: int):
    """A shape error that the scores q @ k_block.transpose(i, j) raise, word for word, with
    a pair of axes other than the last two (mutant tiled_attention-18, transpose(-3, -1),
    got the generic broadcasting hint alone): the pairs named, from
    :func:`checking.transposes.pairs_reproducing` on zeros of the same shapes."""
    q0 = torch.zeros(q.shape, dtype=q.dtype)
    k0 = torch.zeros((*k.shape[:-2], min(block, k.shape[-2]), k.shape[-1]), dtype=k.dtype)

    def hint(exc: BaseException) -> str:
        pairs = pairs_reproducing(
            str(exc), lambda pair: q0 @ k0.transpose(*pair), k0.dim(), (-2, -1)
        )
        if not pairs:
            return ""
        if uses_dot_t(exc):  # k.T: every axis reversed, no pair of them swapped
            return (
                "Your line uses `.T` on the block of keys: on a tensor of more than two axes "
                "it reverses all of them ((batch, heads, block, d_k) becomes (d_k, block, "
                "heads, batch)), so the product's leading axes no longer match q's. The "
                "scores need only the last two swapped: k[..., start:stop, :].transpose(-2, "
                "-1) (or .mT), (..., d_k, block)."
            )
        which = " or ".join(f"transpose({i}, {j})" for i, j in pairs)
        return (
            f"The scores q @ k[..., start:stop, :].{which} raise exactly this error: the "
            "block of keys was transposed over the wrong pair of axes. The scores need its "
            "last two swapped, k[..., start:stop, :].transpose(-2, -1), (..., d_k, block), "
            "so that q (..., len_q, d_k) @ it gives (..., len_q, block); the leading (batch, "
            "heads) axes stay where they are."
        )

    return (RuntimeError, hint)


def _tiled_hints(
    q: torch.Tensor,
    v: torch.Tensor,
    block: int,
    causal: bool,
    summed_fine: bool,
    short_fine: bool = False,
    earlier_ran: bool = False,
    values_probe=None,
    uncausal_probe=None,
    transposed_probe=None,
) -> list:
    """For the size clashes of tiled attention's classic slips, what the sizes are: a
    block's weights against its slice of v (the rows differ), a per-query tensor against
    a block's width (a sum over the wrong axis, unless ``summed_fine``: an earlier input
    where that sum would have clashed ran; or a causal mask of the wrong height), the
    accumulated output's last axis against d_v. ``uncausal_probe()`` says whether the
    same call with causal=False runs: it tells a causal mask of the wrong height from a
    running tensor of the wrong height."""
    len_q, len_k, d_v = q.shape[-2], v.shape[-2], v.shape[-1]
    widths = {min(block, len_k - start) for start in range(0, len_k, block)}

    def rows(exc: BaseException) -> str:
        found = _BATCH2.search(str(exc))
        if not found:
            return ""
        keys, got = int(found.group(1)), int(found.group(2))
        if keys == q.shape[-1] and got in widths and got != keys:
            # q @ k_block without the transpose: d_k meets the block's keys
            return (
                f"A matrix product met d_k = q.shape[-1] = {keys} where a block of {got} keys "
                "was: the scores need the block's keys transposed, q (..., len_q, d_k) @ "
                "k[..., start:stop, :].transpose(-2, -1) (..., d_k, block), which gives "
                "(..., len_q, block)."
            )
        if keys not in widths or got == keys:
            return ""
        off = got - keys
        uncut = ""
        if got == len_k:
            # every row of v: it was not cut along the keys (blind13e-tiled-values-sliced-
            # on-last-axis was told only the rows): used whole, or cut on its last axis
            cut_last = values_probe() if values_probe is not None else None
            uncut = (
                f" ({got} = len_k: v's rows were not cut at all. On one block of 3 keys with "
                "d_v = 5, yours makes 3 columns where 5 belong: you sliced v on its last axis, "
                "v[..., start:stop] (the d_v axis), instead of the keys' axis)"
                if cut_last
                else f" ({got} = len_k: v's rows were not cut at all; either v is used whole, "
                "or sliced on its last axis, v[..., start:stop] (the d_v axis), instead of the "
                "keys' axis)"
                if cut_last is None
                else f" ({got} = len_k: v is used whole, every block's weights meet all of v)"
            )
        return (
            f"A block's weights cover {keys} keys, but your slice of v has {got} rows"
            + (f" (one row too {'many' if off > 0 else 'few'})" if abs(off) == 1 else "")
            + uncut
            + ": slice v exactly as k, v[..., start:stop, :], so that weights @ v pairs each "
            "key's weight with its own value."
        )

    def clash(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found:
            return ""
        sizes, axis = {int(found.group(1)), int(found.group(2))}, int(found.group(3))
        if axis == q.dim() - 2 and len_q in sizes and len(sizes) == 2:
            (other,) = sizes - {len_q}
            summed = (
                "the block's weights summed over the queries (dim=-2) instead of over the keys "
                "(weights.sum(dim=-1), one sum per query)"
                if other in widths and not summed_fine
                else ""
            )
            mask = (
                "the causal mask built for another number of queries than len_q = "
                "q.shape[-2] (it is (len_q, block): query positions torch.arange(len_q))"
                if causal
                else ""
            )
            # a running tensor made with one axis too few (q.shape[:-2]) lines its last
            # leading axis up with the queries (mutant tiled_attention-15, total made with
            # q.shape[:-2], was told only the sum over dim=-2: there heads == block == 2);
            # not when an earlier call, where it would have clashed too, ran (short_fine)
            short = (
                "a running tensor (the maximum, the sum or the output) made with one axis too "
                f"few, q.shape[:-2] = {tuple(q.shape[:-2])} instead of q.shape[:-1] = "
                f"{tuple(q.shape[:-1])}, whose last axis then lines up with the queries"
                if q.dim() > 2 and other == q.shape[-3] and not short_fine
                else ""
            )
            # a running tensor made like k or v has len_k rows where len_q belong
            # (blind12e-tiled-acc-zeros-like-v: acc = torch.zeros_like(v))
            like_keys = (
                f"a running tensor (the maximum, the sum or the output) made like k or v, "
                f"with len_k = {len_k} rows where the len_q = {len_q} queries belong: "
                "torch.zeros_like(v) is (..., len_k, d_v) and k.shape[:-1] is (..., len_k); "
                "make them from q: (*q.shape[:-1], v.shape[-1]) for the output, "
                "q.shape[:-1] for the maximum and the sum"
                if other == len_k != len_q and other not in widths
                else ""
            )
            if mask and (like_keys or short) and uncausal_probe is not None:
                # blind18c/18d-tiled-query-positions-len-k were told both: the same call
                # without the mask tells them apart (it runs: the mask is the wrong one)
                if uncausal_probe():
                    like_keys = short = ""
                    if other == len_k != len_q:
                        mask = (
                            f"the causal mask has len_k = {len_k} rows where the len_q = "
                            f"{len_q} queries belong: its query positions were made from the "
                            "number of keys, torch.arange(len_k), instead of len_q, "
                            "torch.arange(len_q)[:, None] (the same call with causal=False "
                            "runs, so the running tensors are right)"
                        )
                    else:
                        mask += " (the same call with causal=False runs)"
                else:
                    mask = ""
            found = [cause for cause in (summed, mask, short, like_keys) if cause]
            if not found:
                return ""
            return (
                f"A per-query tensor (len_q = {len_q}) met one of size {other} along the "
                "queries' axis: "
                + (
                    found[0]
                    if len(found) < 2
                    else "either " + ", or ".join(found) + " (this input cannot tell them apart)"
                )
                + "."
            )
        if axis == q.dim() - 1 and len(sizes) == 2:
            # the last axis is d_v for the output, the block's width for its scores and
            # causal mask: where d_v is a block width too, both are named
            # (blind10k-tiled-causal-mask-square, a mask sliced past its end, was told acc)
            causes = []
            for known in sorted(sizes, reverse=True):
                (other,) = sizes - {known}
                if known == d_v and not (other == 0 and earlier_ran):
                    # (an output with 0 columns would have failed the calls that ran before)
                    # blind19f-tiled-output-accumulator-like-queries: acc made like q
                    names = [
                        n
                        for n, size in (
                            ("len_k = v.shape[-2]", len_k),
                            ("len_q", len_q),
                            (
                                "d_k = q.shape[-1], the queries' width: the output was made "
                                "like q, torch.zeros_like(q) or torch.zeros(q.shape), or with "
                                "k.shape[-1], instead of with the values' width",
                                q.shape[-1],
                            ),
                        )
                        if size == other
                    ]
                    causes.append(
                        f"the accumulated output's last axis must be d_v = v.shape[-1] = {d_v}, "
                        f"but a tensor of yours has {other} there"
                        + (f" ({' or '.join(names)})" if names else "")
                        + ": acc = torch.zeros((*q.shape[:-1], v.shape[-1]))"
                    )
                if causal and known in widths and other == block > known:
                    # blind12e-tiled-causal-positions-full-block: the last, shorter block's
                    # mask made block_size wide
                    causes.append(
                        f"the last block holds {known} keys (len_k = {len_k} is not a multiple "
                        f"of block_size = {block}), but its causal mask is block_size = {block} "
                        "wide: the key positions were taken as torch.arange(start, start + "
                        "block_size) (or a mask sliced start : start + block_size past its "
                        "end) instead of torch.arange(start, stop), stop = min(start + "
                        "block_size, len_k)"
                    )
                elif causal and known in widths:
                    if other == len_q != known and transposed_probe is not None:
                        # blind23c-tiled-causal-test-transposed was told only the sizes:
                        # the same call with block_size queries runs and masks the
                        # transposed pairs
                        if transposed_probe():
                            return (
                                f"Your causal mask for a block is (block, len_q) = ({known}, "
                                f"{len_q}), the transpose of the (len_q, block) = ({len_q}, "
                                f"{known}) one the scores need: the key positions were made "
                                "a column and the query positions a row (torch.arange(start, "
                                "stop)[:, None] > query_positions.T). With as many queries as "
                                "block_size it runs, and then masks the transposed pairs: "
                                "your output on q cut to its first block_size queries is what "
                                "that transposed test gives. Put the queries on the rows and "
                                "the keys on the columns: torch.arange(start, stop)[None, :] "
                                "> torch.arange(len_q)[:, None]."
                            )
                    causes.append(
                        f"a block's scores have {known} columns, one per key of the block, but "
                        f"a tensor of yours has {other} there: a block's causal mask is "
                        f"(len_q, block), cut for the keys start .. stop - 1 of all len_k = "
                        f"{len_k}"
                        + (
                            " (0 columns: a slice past the end of a mask with fewer than len_k "
                            "columns, such as a square (len_q, len_q) one)"
                            if other == 0
                            else ""
                        )
                    )
            if len(causes) == 1:
                return causes[0][0].upper() + causes[0][1:] + "."
            if causes:
                return (
                    "This input cannot tell two causes apart: either " + "; or ".join(causes) + "."
                )
        return ""

    return [
        (lambda exc: isinstance(exc, RuntimeError), rows),
        (lambda exc: isinstance(exc, RuntimeError), clash),
    ]


def _causal_test_transposed(tiled_attention, q, k, v, block: int) -> bool:
    """Whether the learner's causal mask is each block's test transposed, (block, len_q):
    on q cut to its first block_size queries (where that shape broadcasts) and keys cut
    to whole blocks, its output is the oracle's with the transposed test, which differs
    there from the right one. False when the probe raises or gives anything else."""
    len_q, len_k = q.shape[-2], k.shape[-2] - k.shape[-2] % block
    if len_q < block or len_k < 2 * block:
        return False
    q_block = q[..., :block, :]  # (..., block, d_k): as many queries as a block's keys
    k_whole, v_whole = k[..., :len_k, :], v[..., :len_k, :]  # (..., len_k, d): whole blocks
    try:
        got = tiled_attention(q_block, k_whole, v_whole, block, True)
        got = torch.as_tensor(got)
    except Exception:  # the probe's input raised too: no evidence
        return False
    transposed = tiled_attention_f(q_block, k_whole, v_whole, block, True, transposed_test=True)
    right = tiled_attention_f(q_block, k_whole, v_whole, block, True)
    if got.shape != transposed.shape or torch.allclose(transposed, right, equal_nan=True):
        return False
    return torch.allclose(got.to(transposed.dtype), transposed, atol=1e-5, equal_nan=True)


def _positions_flat_hint(tiled_attention, q, k, v, block: int, causal: bool):
    """A size clash on a leading axis (0 or 1, not one of q's batch or head axes) between
    len_q and a block's width, on a causal call: two position vectors compared element by
    element, the query positions a 1-D torch.arange(len_q) where the (len_q, block)
    table needs a column (blind16e-tiled-causal-positions-not-column got the raw
    broadcast error alone). Named when the same input with causal=False runs: the clash
    is in the causal mask."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    widths = {min(block, len_k - start) for start in range(0, len_k, block)}

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not causal or not found:
            return ""
        sizes, axis = {int(found.group(1)), int(found.group(2))}, int(found.group(3))
        if axis > 1 or axis >= q.dim() - 2 or q.shape[axis] in sizes or len(sizes) != 2:
            return ""
        if len_q not in sizes or not (sizes - {len_q}) <= widths:
            return ""
        (width,) = sizes - {len_q}
        try:
            tiled_attention(q, k, v, block, False)
        except Exception:  # the clash is not the causal mask's alone
            return ""
        return (
            f"The same input with causal=False runs, so the clash is in the causal mask: a "
            f"vector of len_q = {len_q} met one of {width}, a block's width, element by "
            f"element (dimension {axis} of a 1-D or 2-D tensor, not an axis of q's). The "
            "query positions are a flat vector, torch.arange(len_q), where the mask needs a "
            "(len_q, block) table: make them a column, torch.arange(len_q)[:, None] "
            "(len_q, 1), and compare them with the block's key positions as a row, "
            "torch.arange(start, stop)[None, :] (1, block): future = key_positions > "
            "query_positions broadcasts to (len_q, block). (When a block holds exactly "
            "len_q keys, the flat comparison runs and masks the wrong keys.)"
        )

    return (lambda exc: isinstance(exc, RuntimeError), text)


_STEP_ZERO = re.compile(r"range\(\) arg 3 must not be zero")
_MASK_AS_INDEX = re.compile(
    r"shape of the mask \[(\d+), (\d+)\] at index 0 does not match the shape of the indexed"
)


def _block_count_hint(len_q: int, len_k: int, block: int):
    """range(0, len_k, step) with a step of 0 where block_size > len_k: the step is a length
    divided by block_size, block_size read as the number of blocks (torch.chunk's reading;
    blind13e-tiled-block-size-read-as-count got the generic "a step of 0")."""

    def hint(exc: BaseException) -> str:
        if not _STEP_ZERO.search(str(exc)) or block <= min(len_q, len_k):
            return ""
        quotients = " and ".join(
            f"{name} // block_size = {size} // {block} = 0"
            for name, size in (("len_k", len_k), ("len_q", len_q))
            if size < block and (name == "len_k" or len_q != len_k)
        )
        return (
            f"Your loop's step is 0 with block_size = {block} > len_k = {len_k}: it is a "
            f"length divided by block_size ({quotients}), as when block_size is read as the "
            "number of blocks (torch.chunk's second argument) and the step as the keys per "
            "block. block_size is the number of keys in each block, the step itself: "
            "range(0, len_k, block_size); a block_size of len_k or more gives a single block "
            "holding every key."
        )

    return (ValueError, hint)


def _mask_as_index_hint(q: torch.Tensor, len_k: int, block: int):
    """The causal mask used as a boolean index, scores[future] = -inf: a (len_q, block)
    mask lines up with the leading axes of batched scores, an IndexError
    (blind13e-tiled-mask-by-boolean-index got the generic advice alone)."""
    widths = {min(block, len_k - start) for start in range(0, len_k, block)} | {len_k}

    def hint(exc: BaseException) -> str:
        found = _MASK_AS_INDEX.search(str(exc))
        if not found or q.dim() < 3:
            return ""
        rows, columns = int(found.group(1)), int(found.group(2))
        if rows != q.shape[-2] or columns not in widths:
            return ""
        return (
            f"Your causal mask, ({rows}, {columns}) = (len_q, keys), was used as a boolean "
            "index, scores[future] = float('-inf'): a bool mask used as an index lines up "
            f"with the leading axes of scores, here {tuple(q.shape[:-2])} (batch, heads), "
            "not its last two, so it fits 2-D inputs only. Fill with "
            "scores = scores.masked_fill(future, float('-inf')), which broadcasts the mask "
            "over the leading axes (or index the last axes, scores[..., future])."
        )

    return (IndexError, hint)


def _values_sliced_on_last_axis(tiled_attention) -> bool | None:
    """Whether the learner's code cuts v's last axis (d_v) where the keys' axis belongs
    (v[..., start:stop]): on one block (block_size >= len_k) with d_v > len_k its output
    then has len_k columns (or they clash with an output made d_v wide), where v used
    whole gives the right d_v; None if the probe raised otherwise or gave neither."""
    q, k, v = randn((1, 3, 4), 4311), randn((1, 3, 4), 4312), randn((1, 3, 5), 4313)
    try:
        out = tiled_attention(q, k, v, 3)  # (1, 3, 5) expected, (1, 3, 3) when cut
    except RuntimeError as exc:
        found = _BROADCAST.search(str(exc))
        return True if found and {int(found.group(1)), int(found.group(2))} == {3, 5} else None
    except Exception:  # the probe failed otherwise: no evidence
        return None
    if not isinstance(out, torch.Tensor) or out.dim() != 3:
        return None
    return {3: True, 5: False}.get(out.shape[-1])


def _sum_not_column_hint(len_q: int, d_v: int):
    """The final division by the running sum without [..., None]: (..., len_q, d_v) divided
    by (..., len_q) lines len_q up with d_v, which raises unless they are equal."""
    sizes = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")

    def hint(exc: BaseException) -> str:
        found = sizes.search(str(exc))
        if not found or len_q == d_v or {int(found[1]), int(found[2])} != {len_q, d_v}:
            return ""
        return (
            f"The sizes {found[1]} and {found[2]} are d_v and len_q: was the output "
            "(..., len_q, d_v) divided (or multiplied) by a per-query tensor (..., len_q), such "
            "as the running sum or the rescale factor, without [..., None]? Broadcasting "
            "lines its last axis up with d_v; make it a column, total[..., None], so each "
            "query's row uses its own value."
        )

    return (RuntimeError, hint)


def _without_last_block(q, k, v, block: int, causal: bool) -> torch.Tensor | None:
    """Attention over the keys of the whole blocks only (the last, shorter block skipped),
    or None when len_k is a multiple of the block size."""
    cut = k.shape[-2] - k.shape[-2] % block
    if cut == k.shape[-2] or cut == 0:
        return None
    scores = q.double() @ k[..., :cut, :].double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        future = torch.arange(cut)[None, :] > torch.arange(q.shape[-2])[:, None]
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v[..., :cut, :].double()


def _over_keys(q, k, v, first: int, stop: int, causal: bool) -> torch.Tensor:
    """Attention over the keys first .. stop - 1 alone (their absolute positions for the
    causal mask), in float64."""
    scores = q.double() @ k[..., first:stop, :].double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        future = torch.arange(first, stop)[None, :] > torch.arange(q.shape[-2])[:, None]
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v[..., first:stop, :].double()


def _keys_left_out(q, k, v, block: int, causal: bool) -> dict[str, torch.Tensor]:
    """The family "keys the loop never visits": the first s keys (the loop's range starting
    at s, 1 <= s <= block_size: mutant tiled_attention-17, range(1, len_k, block_size), was
    only located in 'what every block does') or the last key (a stop of len_k - 1), each
    the attention over the keys left, a mistake of its own (with the causal mask, a query
    before the first visited key has no key at all: NaN in both)."""
    len_k = k.shape[-2]
    if len_k < 2:
        return {}
    found = {
        f"Key{'s 0 ..' if first > 1 else ''} {first - 1} never reach{'' if first > 1 else 'es'} "
        f"the output: your result is attention over keys {first} .. {len_k - 1} alone, as a "
        f"loop over blocks that starts at key {first} gives (range({first}, len_k, "
        "block_size), "
        + ("one key too late, an off-by-one" if first == 1 else f"{first} keys too late")
        + "). The blocks start at 0: range(0, len_k, block_size).": _over_keys(
            q, k, v, first, len_k, causal
        )
        for first in range(1, min(block, len_k - 1) + 1)
    }
    found[
        f"The last key ({len_k - 1}) never reaches the output: your result is attention over "
        f"keys 0 .. {len_k - 2} alone (a stop of len_k - 1, or a range that ends one key "
        "early). The blocks end at len_k: stop = min(start + block_size, len_k)."
    ] = _over_keys(q, k, v, 0, len_k - 1, causal)
    return found


def _leading_axes_hint(got, expected_shape: tuple[int, ...]) -> str:
    """An output whose last two axes are right but whose leading (batch, head) axes are
    not: something was sliced or reduced along a leading axis."""
    found = tuple(got.shape) if isinstance(got, torch.Tensor) else None
    if not found or len(found) != len(expected_shape) or len(found) < 3:
        return ""
    if found[-2:] != expected_shape[-2:] or found[:-2] == expected_shape[:-2]:
        return ""
    return (
        f"Its last two axes (len_q, d_v) are right, but its leading axes are {found[:-2]}, not "
        f"{expected_shape[:-2]}: were the key and value blocks sliced on the first axis "
        "(k[start:stop]) instead of the key axis, k[..., start:stop, :] and "
        "v[..., start:stop, :]? The inputs may have any number of leading axes."
    )


def _part_of_an_axis(run, q, k, v, block: int) -> str:
    """When every small probe is right: the failing input's output right on some sequences
    or heads and zeros, or copies of a right one, on the others (a step applied to part of
    the batch), named; "" otherwise."""
    with contextlib.suppress(Exception):  # a probe of the learner's code: never in the way
        got = run(q, k, v, block, False)
        found = match_partial_slices(
            got.detach(), _tiled_expected(q, k, v, False), rtol=1e-4, atol=1e-5, noun="output"
        )
        if found is not None:
            return found.message
    return ""


def _localise_tiled(tiled_attention, q, k, v, block: int, causal: bool) -> str:
    """When no known mistake matches: the learner's tiled_attention, without a mask, on a
    single block of keys, on several blocks whose first holds every query's largest
    scores, and on several blocks each raising them; the part of the algorithm the first
    wrong one points to (the causal mask when all three are right on a causal call)."""
    queries = randn((1, 2, 3, 4), 4401, scale=0.3) + 1.0  # positive: scores follow the keys'

    def keys(offsets):
        shift = torch.tensor(offsets, dtype=torch.float32)[None, None, :, None]
        return randn((1, 2, len(offsets), 4), 4402, scale=0.3) + shift

    falling = keys([2.0] * 3 + [1.0] * 3 + [0.0] * 3)
    rising = keys([0.0] * 3 + [1.0] * 3 + [2.0] * 3)
    values = randn((1, 2, 9, 3), 4403)
    probes = [
        (
            "a single block of keys (len_k <= block_size)",
            (queries, keys([0.5] * 4), values[..., :4, :], 8),
        ),
        (
            "several blocks, the first holding every query's largest scores (nothing to rescale)",
            (queries, falling, values, 3),
        ),
        ("several blocks, each raising the largest score", (queries, rising, values, 3)),
    ]
    features = [f"dtype {q.dtype}"] if q.dtype != torch.float32 else []
    if k.shape[-2] % block:
        features.append("a last block shorter than block_size")
    if q.shape[-2] != k.shape[-2]:
        features.append("len_q != len_k")
    if v.shape[-1] != q.shape[-1]:
        features.append("d_v != d_k")
    shaped = (
        "All three are right, so the mistake shows only on inputs like this one"
        + (f" ({', '.join(features)})" if features else "")
        + ": compare your steps with the reference's on it."
    )
    run = lambda *args: tiled_attention(  # noqa: E731
        *(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    )
    cases = [(text, (*args, False), _tiled_expected(*args[:3], False)) for text, args in probes]
    conclusions = {
        (False, False, False): "Already a single block is wrong, so the mistake is in what "
        "every block does (its scores q kᵀ / sqrt(d_k), its maximum, its weights exp(s - m), "
        "what they add to the sum and the output) or in the final division acc / total, not "
        "in how the blocks are combined.",
        (True, False, False): "A single block is right but several are not, even where the "
        "maximum never changes: the mistake is in how the blocks are combined, which keys and "
        "values each block reads (k[..., start:stop, :] and v[..., start:stop, :], every key "
        "once), how their terms are added up, or what each pass hands to the next (the "
        "running maximum, sum and output reassigned inside the loop, at every pass: a "
        "running_max = new_max dedented after the loop, or never written, leaves the maximum "
        "at -inf, and each block's rescale factor then wipes out the blocks before it).",
        (True, True, False): "The blocks combine right while the maximum stays and go wrong "
        "when a later block raises it: the mistake is in the rescaling, the factor exp(m_old "
        "- m_new), what it multiplies (the sum and the output so far, before the new terms "
        "are added) and when m is updated.",
    }
    if not causal:
        located = _localise_blocks(run, cases, conclusions, shaped)
        if shaped not in located:
            return located
        return _part_of_an_axis(run, q, k, v, block) or shaped
    # the failing input itself without the mask: right there, the mask is what differs
    cases.append(
        (
            "this very input with causal=False",
            (q, k, v, block, False),
            _tiled_expected(q, k, v, False),
        )
    )
    conclusions = {(*key, False): text for key, text in conclusions.items()}
    conclusions[(True, True, True, False)] = shaped.replace(
        "All three are right",
        "The three small inputs are right, but this one is wrong even without the mask",
    )
    in_the_mask = (
        "Without the mask your result on this very input is right, so the mistake is in the "
        "causal mask"
    )
    rule = (
        "Query i may attend to key j exactly when j <= i, j the key's position in the whole "
        "sequence (start + its index in the block), aligned to the top left even when len_q "
        "< len_k; a block wholly in the future (start > len_q - 1) adds nothing."
    )
    located = _localise_blocks(
        run, cases, conclusions, f"{in_the_mask}: {rule[0].lower()}{rule[1:]}"
    )
    if "this one is wrong even without the mask" in located:
        return _part_of_an_axis(run, q, k, v, block) or located
    if in_the_mask not in located:
        return located
    # the mask located: the learner's weights, read off its outputs, say what it does
    output = run(q, k, v, block, True)  # (..., len_q, d_v)
    weights = weights_through_values(lambda ones: run(q, k, ones, block, True), v, output)
    if weights is None:
        return located
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()  # (len_q, len_k)
    misapplied = mask_misapplied(weights, scores, allowed, rule)
    return (
        located.replace(
            f"{in_the_mask}: {rule[0].lower()}{rule[1:]}", f"{in_the_mask}. {misapplied}"
        )
        if misapplied
        else located
    )


def _expect_default_not_causal(c: Checker, tiled_attention, hidden: bool) -> None:
    """Called without ``causal``, tiled attention masks nothing: the signature's default
    is causal=False (mutant tiled_attention-12, a default of True, passed every call that
    gives causal explicitly)."""
    shape = (1, 2, 4, 4) if not hidden else (2, 1, 5, 3)
    q, k, v = (randn(shape, 1409 + 1000 * hidden + i) for i in range(3))
    what = f"tiled_attention(q {shape}, k {shape}, v {shape}, block_size=2), causal left out"
    got = c.call(tiled_attention, q, k, v, 2, call_repr=what)
    _expect_tensor(c, got, what)
    c.expect_close(
        got,
        _tiled_expected(q, k, v, False),
        what,
        **tolerance(got.dtype),
        mistakes={
            "Called without causal, yours masks the future: your default is causal=True. The "
            "signature's default is causal=False, def tiled_attention(q, k, v, block_size, "
            "causal=False): a caller who leaves causal out asks for no mask.": _tiled_expected(
                q, k, v, True
            )
        },
        hint="Called without causal, tiled_attention must mask nothing: the default is "
        "causal=False.",
    )


class _FloatResults(TorchFunctionMode):
    """While active: the shapes of the floating tensors that PyTorch functions, tensor
    methods and operators return (the call's intermediate tables, watched from outside,
    as the course's watch for forbidden APIs is)."""

    def __init__(self) -> None:
        super().__init__()
        self.shapes: list[tuple[int, ...]] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        for item in result if isinstance(result, tuple | list) else (result,):
            if isinstance(item, torch.Tensor) and item.is_floating_point():
                self.shapes.append(tuple(item.shape))
        return result


def _expect_no_full_table(c: Checker, tiled_attention, hidden: bool) -> None:
    """A right answer that still builds a floating (..., len_q, len_k) table for every
    batch and head, the table tiling exists to avoid (blind15e-tiled-full-score-table: all
    the scores computed before the loop, its blocks of columns walked after; exact, so
    accepted): one causal call with len_k = 4 blocks, watched. A boolean mask over all
    keys, with no batch or head axes, is not counted."""
    batch, heads, len_q, len_k, block = (2, 2, 6, 12, 3) if not hidden else (1, 3, 5, 10, 2)
    q = randn((batch, heads, len_q, 4), 1461 + hidden)  # (batch, heads, len_q, d_k)
    k = randn((batch, heads, len_k, 4), 1462 + hidden)  # (batch, heads, len_k, d_k)
    v = randn((batch, heads, len_k, 3), 1463 + hidden)  # (batch, heads, len_k, d_v)
    full = batch * heads * len_q * len_k
    watch = _FloatResults()
    try:
        with watch:
            tiled_attention(q, k, v, block, True)
    except Exception:  # the calls before ran; this one tells nothing
        return
    tables = [
        shape
        for shape in watch.shapes
        if shape[-2:] in {(len_q, len_k), (len_k, len_q)} and math.prod(shape) >= full
    ]
    if not tables:
        return
    c.fail(
        f"tiled_attention(q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, "
        f"block_size={block}, causal=True) gives the right output, but while it ran a "
        f"floating tensor of shape {tables[0]} was made: a whole (len_q, len_k) table for "
        "every batch and head (of scores, such as q @ k.transpose(-2, -1) computed once "
        "before the loop, or of weights or an additive mask over all keys). Tiling exists "
        "so that such a table never exists: its memory grows with len_q * len_k, while "
        f"one block's scores are (..., len_q, block) = (..., {len_q}, {block}). Compute the "
        "scores inside the loop, for the block's keys only: q @ k[..., start:stop, "
        ":].transpose(-2, -1), masked with the block's own key positions."
    )


def _unscaled_everywhere(c, tiled_attention, q, k, v, block: int, causal: bool):
    """softmax(q kᵀ) v for these inputs when the learner's output is unscaled attention
    at another width too, else None. Where sqrt(d_k) is a whole number (d_k = 4), a scale
    of 1 is also what a slip such as 2 / sqrt(d_k) gives (mutant-tiled_attention-20 was
    told "no scale"): the learner's function is run once more with d_k = 6, where no such
    slip gives 1."""
    unscaled = _tiled_expected(q, k, v, causal, scale=1)
    d_k = q.shape[-1]
    if d_k < 4 or math.isqrt(d_k) ** 2 != d_k:
        return unscaled
    try:
        shape = (*q.shape[:-1], 6)
        q6 = randn(shape, 4311, dtype=q.dtype)  # (..., len_q, 6)
        k6 = randn((*k.shape[:-1], 6), 4312, dtype=q.dtype)  # (..., len_k, 6)
        got = c.probe(tiled_attention, q6, k6, v, block, causal)
        want = _tiled_expected(q6, k6, v, causal, scale=1)
        if torch.allclose(torch.as_tensor(got).double(), want.double(), atol=1e-5, rtol=1e-4):
            return unscaled
    except Exception:  # a probe that fails tells nothing: no claim
        pass
    return None


def check_tiled_attention(tiled_attention, *, hidden: bool = False) -> None:
    """tiled_attention(q, k, v, block_size, causal=False) -> output (..., len_q, d_v)."""
    with (
        Checker("tiled_attention", hidden=hidden) as c,
    ):
        c.require_callable(tiled_attention)
        summed_fine = False  # a call ran where weights summed over dim=-2 would clash
        short_fine = False  # a call ran where a tensor made with q.shape[:-2] would clash
        uncausal_blocks = 0  # the most keys a passed causal=False call spread over blocks
        ran = False  # whether a call ran (and was right) before this one
        right_far_below = _right_without_mask_far_below(c, tiled_attention)
        for q, k, v, block, causal in _tiled_cases(hidden):
            what = (
                f"tiled_attention(q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, "
                f"block_size={block}, causal={causal})"
            )
            got = c.call(
                tiled_attention,
                q,
                k,
                v,
                block,
                causal,
                call_repr=what,
                hints=yielding_to_front_counted(
                    [
                        _transposed_scores_hint(q, k, block),
                        _positions_flat_hint(tiled_attention, q, k, v, block, causal),
                        *_tiled_hints(
                            q,
                            v,
                            block,
                            causal,
                            summed_fine,
                            short_fine,
                            ran,
                            values_probe=lambda: _values_sliced_on_last_axis(tiled_attention),
                            uncausal_probe=lambda args=(q, k, v, block): _runs(
                                lambda: tiled_attention(*args, False)
                            ),
                            transposed_probe=lambda args=(q, k, v, block): _causal_test_transposed(
                                tiled_attention, *args
                            ),
                        ),
                        _block_count_hint(q.shape[-2], k.shape[-2], block),
                        _mask_as_index_hint(q, k.shape[-2], block),
                        _sum_not_column_hint(q.shape[-2], v.shape[-1]),
                        _empty_block_hint(
                            "k[..., start : start + block_size, :] (and likewise v)",
                            lambda size=block, d=q.shape[-1]: _raises_empty(
                                lambda: tiled_attention(
                                    *(randn((1, size, d), 4304 + i) for i in range(3)), size
                                )
                            ),
                            lambda d=q.shape[-1]: _runs(
                                lambda: tiled_attention(
                                    *(randn((1, 5, d), 4307 + i) for i in range(3)), 2
                                )
                            ),
                        ),
                        _lower_precision_hint(q.dtype, "q"),
                    ],
                    -2,
                    "the keys' and values' positions (len_k)",
                    (k, v),
                ),
            )
            widths = {min(block, k.shape[-2] - start) for start in range(0, k.shape[-2], block)}
            summed_fine = summed_fine or not widths <= {q.shape[-2]}
            short_fine = short_fine or (q.dim() > 2 and q.shape[-3] not in (1, q.shape[-2]))
            if isinstance(got, tuple) and got:
                c.fail(f"{what} returned a tuple; return only the output tensor.")
            _expect_tensor(c, got, what)
            shape = (*q.shape[:-1], v.shape[-1])
            c.expect_shape(got, shape, what, _leading_axes_hint(got, shape))
            c.expect_floating(got, what, preferred=q.dtype)
            if q.dtype == torch.float64 and got.dtype != torch.float64:
                c.fail(
                    _LOWER_PRECISION.format(
                        what=what, got=got.dtype, name="tiled_attention", first="q"
                    )
                )
            several = k.shape[-2] > block
            nan_causes = {
                "the causal mask hiding the diagonal too (j >= i masked: query 0 sees no key)": (
                    tiled_attention_f(q, k, v, block, causal, strict=True) if causal else None
                ),
                "each block's weights exponentiated against the previous maximum (-inf on the "
                "first block) instead of the new one": (
                    tiled_attention_f(q, k, v, block, causal, old_max=True)
                ),
                "the accumulated output divided by the rescale factor exp(m_old - m_new) "
                "instead of multiplied by it (the factor is 0 on the first block: 0 / 0)": (
                    tiled_attention_f(q, k, v, block, causal, inverted="output")
                ),
                "the running sum divided by that factor instead of multiplied by it": (
                    tiled_attention_f(q, k, v, block, causal, inverted="sum")
                ),
                "each block's terms added before the rescale (the first block's factor "
                "exp(-inf - m) = 0 wipes them out)": _added_before_rescale(q, k, v, block, causal),
            }
            expected = _tiled_expected(q, k, v, causal)
            c.expect_close(
                got,
                expected,
                what,
                **tolerance(got.dtype),
                pairs=lambda args=(q, k, v, block, causal): _tiled_pairs(*args),
                mistakes={
                    # blind12e-tiled-keys-as-values: weights @ k[..., start:stop, :]
                    "Your output is attention with the keys as values, softmax(q kᵀ / "
                    "sqrt(d_k)) k: each block's weights multiply the block of keys, not of "
                    "values. Accumulate weights @ v[..., start:stop, :].": (
                        _tiled_expected(q, k, k, causal)
                        if k.shape[-1] == v.shape[-1] and not torch.equal(k, v)
                        else None
                    ),
                    "Your block weights are exp(s), with no maximum subtracted, while the "
                    "running sum and output are still rescaled by exp(m_old - m_new): the two "
                    "disagree, and exp(s) overflows for large scores. Exponentiate against "
                    "the new maximum: weights = exp(s - m_new[..., None]).": (
                        tiled_attention_f(q, k, v, block, causal, no_max=True)
                    ),
                    "The output accumulated over earlier blocks is not rescaled when the "
                    "maximum grows: it was summed with weights exp(s - m_old), so multiply it "
                    "by exp(m_old - m_new) too, as the running sum.": (
                        tiled_attention_f(q, k, v, block, causal, rescale_output=False)
                        if several
                        else None
                    ),
                    # round 37 (mutant tiled_attention-21, exp(running_max): located in
                    # how the blocks combine): the factor with one of its terms dropped
                    **{
                        f"Your rescale factor is {form}: {dropped}. The factor that moves the "
                        "running sum and the output from the old maximum to the new one is "
                        "exp(m_old - m_new) (1 while the maximum stays, below 1 when it grows): "
                        "the difference, inside one exp.": (
                            tiled_attention_f(q, k, v, block, causal, factor_as=knob)
                            if several
                            else None
                        )
                        for knob, form, dropped in (
                            (
                                "old",
                                "exp(m_old)",
                                "the new maximum is never subtracted (exp(running_max) where "
                                "exp(running_max - new_max) belongs)",
                            ),
                            (
                                "new",
                                "exp(-m_new)",
                                "the old maximum is left out (exp(-new_max) where "
                                "exp(running_max - new_max) belongs)",
                            ),
                        )
                    },
                    "The running sum is not rescaled when the maximum grows (the accumulated "
                    "output is): both were computed with the old maximum.": (
                        tiled_attention_f(q, k, v, block, causal, rescale_sum=False)
                        if several
                        else None
                    ),
                    # the same output whether no scale is applied or it is applied after
                    # the exponential, where the final division cancels it
                    # (blind23c-tiled-scale-on-exponentials was told only the first)
                    "Your output is softmax(q kᵀ) v, attention with unscaled scores: the "
                    "scores reach the exponential without the factor 1 / sqrt(d_k). Either "
                    "no scale is applied, or it is applied after the exponential (to each "
                    "block's weights, or to the running sum and the output alike), where "
                    "the final division by the running sum cancels it. Multiply the scores "
                    "by the scale before the exponential: scores = q @ k_blockᵀ * scale, "
                    "scale = 1 / sqrt(d_k).": (
                        lambda args=(q, k, v, block, causal): _unscaled_everywhere(
                            c, tiled_attention, *args
                        )
                    ),
                    "The last, shorter block of keys is skipped: when len_k is not a multiple "
                    "of block_size, the loop must still visit the last keys (range(0, len_k, "
                    "block_size), with stop = min(start + block_size, len_k)).": (
                        _without_last_block(q, k, v, block, causal)
                    ),
                    # where sqrt(d_k) is whole, 1/d_k is also a constant factor times
                    # 1/sqrt(d_k): the measured scale, with its probe, tells them apart
                    "The scores are divided by d_k instead of sqrt(d_k).": (
                        _tiled_expected(q, k, v, causal, scale=1 / q.shape[-1])
                        if math.isqrt(q.shape[-1]) ** 2 != q.shape[-1]
                        else None
                    ),
                    **_scaled_by_length(q, k, v, causal),
                    **_keys_left_out(q, k, v, block, causal),
                    # the family "the final division done inside the loop"
                    **{
                        "Your output is divided by the running sum inside the loop, after "
                        "every block, "
                        + (
                            "and the sum then restarted at 1: the blocks seen so far then "
                            "weigh 1 in total next to the raw exp(s - m) terms of the next "
                            "block, instead of their own sum."
                            if how == "reset"
                            else "and again at the end: what was accumulated is divided by "
                            "the sum so far at every block, and by the whole sum once more."
                        )
                        + " The running sum and the output both stay unnormalised in the "
                        "loop (rescaled by exp(m_old - m_new)); divide once, after it: "
                        "acc / total.": (
                            tiled_attention_f(q, k, v, block, causal, normalise_each=how)
                            if several
                            else None
                        )
                        for how in ("reset", "keep")
                    },
                    # the output of no mask at all (blind11e-tiled-causal-fill-discarded
                    # was told "ignores the keys' block offset or is missing", the first a
                    # cause whose prediction differs whenever there are several blocks)
                    never_applied(
                        "the causal mask",
                        "scores.masked_fill(future, float('-inf'))",
                        "scores = scores.masked_fill(future, float('-inf'))",
                        "causal=True",
                    )
                    + " Query i may attend to key j exactly when j <= i, with j the key's "
                    "position in the whole sequence (start + its index in the block).": (
                        _tiled_expected(q, k, v, False) if causal else None
                    ),
                    "The causal mask compares the query with the key's index *inside the "
                    "block* instead of its position in the sequence (start + index): later "
                    "blocks are masked as if they began at key 0.": (
                        scaled_dot_product_attention(
                            q,
                            k,
                            v,
                            torch.arange(k.shape[-2])[None, :] % block
                            <= torch.arange(q.shape[-2])[:, None],
                        )[0]
                        if causal and several
                        else None
                    ),
                    # blind15e-tiled-query-tiles-local-positions (located to the causal
                    # mask only): the queries tiled too, each tile's positions from 0
                    "The causal mask compares the key with the query's index *inside its "
                    "tile of queries* (torch.arange(q_stop - q_start)) instead of its "
                    "position in the sequence (q_start + index): the first tile of "
                    "block_size queries is right, every later tile is masked as if its "
                    "queries were the first ones and sees too few keys. Take the query "
                    "positions as torch.arange(q_start, q_stop)[:, None].": (
                        scaled_dot_product_attention(
                            q,
                            k,
                            v,
                            torch.arange(k.shape[-2])[None, :]
                            <= torch.arange(q.shape[-2])[:, None] % block,
                        )[0]
                        if causal and q.shape[-2] > block
                        else None
                    ),
                    # blind13e-tiled-causal-flag-tested-is-not-none (told only "masks the
                    # future"): the flag ignored or tested for None, candidates alike here
                    "With causal=False nothing may be masked, but yours masks the future: "
                    "causal=False still gets the causal mask, as if every call were causal. "
                    "Either the flag is never read, or it is tested with `if causal is not "
                    "None:`, which is true for False too (False is not None); test its truth, "
                    "`if causal:`.": (None if causal else _tiled_expected(q, k, v, True)),
                    _MASK_FILLED_ZERO: (
                        scaled_dot_product_attention_f(
                            q,
                            k,
                            v,
                            torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(),
                            fill=0.0,
                        )[0]
                        if causal
                        else None
                    ),
                    _BOTTOM_RIGHT: (
                        scaled_dot_product_attention(
                            q, k, v, causal_lower_right(q.shape[-2], k.shape[-2])
                        )[0]
                        if causal and q.shape[-2] != k.shape[-2]
                        else None
                    ),
                    # blind21c-tiled-key-blocks-last-to-first: with the causal mask a
                    # maximum of each block's own and blocks walked last to first give
                    # the same NaN rows; without it, only the first overflows where a
                    # later block's scores fall far below (asked only on failure)
                    _TILED_OWN_MAX: (
                        (
                            lambda args=(q, k, v, block, causal): (
                                None
                                if right_far_below()
                                else tiled_attention_f(*args, running=False)
                            )
                        )
                        if several
                        else None
                    ),
                    _TILED_BLOCKS_OUT_OF_ORDER: (
                        (
                            lambda args=(q, k, v, block, causal), got=got: (
                                _first_block_later(got, *args[:4]) if right_far_below() else None
                            )
                        )
                        if several and causal
                        else None
                    ),
                    "Your causal mask hides the diagonal too (key j masked when j >= i): a "
                    "query may attend to its own position, so mask only j > i. (Query 0 then "
                    "has no key at all: its row of weights is 0/0 = NaN.)": (
                        _informative(tiled_attention_f(q, k, v, block, causal, strict=True))
                        if causal
                        else None
                    ),
                    "Each block's weights are exponentiated against the previous maximum "
                    "(m_old, -inf on the first block) instead of the new one: compute "
                    "m_new = max(m_old, block max) first, then exp(s - m_new).": (
                        _informative(tiled_attention_f(q, k, v, block, causal, old_max=True))
                    ),
                    "The accumulated output is never divided by the running sum of the "
                    "weights: return acc / total at the end (the softmax's denominator).": (
                        tiled_attention_f(q, k, v, block, causal, divide=False)
                    ),
                    _MULTIPLIED_BY_SUM: _multiplied_by_sum(q, k, v, causal),
                    _ADDED_BEFORE_RESCALE: _informative(
                        _added_before_rescale(q, k, v, block, causal)
                    ),
                    **_stopped_early(
                        q, k, v, block, causal, uncausal_ran=uncausal_blocks >= k.shape[-2]
                    ),
                    "The scores are divided by sqrt(d_v), the values' width (v.shape[-1]), "
                    "instead of sqrt(d_k), the width of the queries and keys (q.shape[-1]): "
                    "the two differ here.": (
                        _tiled_expected(q, k, v, causal, scale=1 / math.sqrt(v.shape[-1]))
                        if v.shape[-1] != q.shape[-1]
                        else None
                    ),
                    "Each block's softmax is taken on its own and the blocks' outputs are "
                    "averaged: the blocks must share one softmax. Keep a running maximum and "
                    "sum across blocks, rescale what was accumulated when the maximum grows, "
                    "and divide by the one running sum at the end.": (
                        _blocks_normalised_apart(q, k, v, block, causal, mean=True)
                        if several
                        else None
                    ),
                    "Each block's softmax is taken on its own and the blocks' outputs are "
                    "added: the blocks must share one softmax. Keep a running maximum and sum "
                    "across blocks, rescale what was accumulated when the maximum grows, and "
                    "divide by the one running sum at the end.": (
                        _blocks_normalised_apart(q, k, v, block, causal, mean=False)
                        if several
                        else None
                    ),
                    "Your causal mask lets query i see key i + 1 too (masked only where "
                    "j > i + 1): mask every key j > i.": (
                        scaled_dot_product_attention(
                            q,
                            k,
                            v,
                            torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(1),
                        )[0]
                        if causal
                        else None
                    ),
                    "Neither the running sum nor the accumulated output is rescaled when the "
                    "maximum grows: both were computed with the old maximum, so multiply both "
                    "by exp(m_old - m_new) before adding the new block's terms.": (
                        tiled_attention_f(
                            q, k, v, block, causal, rescale_output=False, rescale_sum=False
                        )
                        if several
                        else None
                    ),
                    _SCALE_INVERTED: _tiled_expected(q, k, v, causal, scale=math.sqrt(q.shape[-1])),
                    _MAX_NOT_THE_ROWS: _only_where_far_below(
                        tiled_attention_f(q, k, v, block, causal, initial_max=0.0)
                    ),
                    _COMPOUNDED_SCALE: _compounded_scale(q, k, v, block, causal),
                    # blind14e: a scale written 1 // sqrt(d_k), the causal mask given to
                    # masked_fill as it is (True = may attend), FlashAttention-1's
                    # normalised output rescaled without the old sum (located only before)
                    _ZERO_SCALE: _tiled_expected(q, k, v, causal, scale=0.0),
                    # the family "1/sqrt(d_k) applied after the exponentials" (blind19d-
                    # tiled-scale-on-value-block was only located to "every block"): on
                    # the values, the weights or the output, the scores' scale missing or
                    # kept too; each placement gives the same output, so all are named
                    **{
                        "Your output is " + size + " times 1/sqrt(d_k): the scale "
                        "1/sqrt(d_k) multiplies something after the exponentials (each "
                        "value block, v[..., start:stop, :] * scale, the weights, or the "
                        "output; these give the same result)" + where + " The scale belongs "
                        "on the scores only, before the maximum and the exp: scores = q @ "
                        "k_blockᵀ * scale.": value
                        for size, where, value in (
                            (
                                "the softmax of the unscaled scores",
                                " instead of the scores, which are not scaled at all.",
                                _tiled_expected(q, k, v, causal, scale=1) / math.sqrt(q.shape[-1]),
                            ),
                            (
                                "the right output",
                                " as well as the scores: the scale is applied twice.",
                                _tiled_expected(q, k, v, causal) / math.sqrt(q.shape[-1]),
                            ),
                        )
                    },
                    # blind12l-tiled-keys-reshaped-not-transposed (located to "every
                    # block" before): per block or all the keys at once
                    **_keys_reshaped_mistakes(q, k, v, block, causal),
                    _FILLS_VISIBLE: (
                        _informative(_blockwise(q, k, v, block, causal, fill_visible=True))
                        if causal
                        else None
                    ),
                    # the family "FlashAttention-1's normalised output rescaled by a
                    # wrong factor" (blind20c-tiled-normalised-output-ratio-inverted was
                    # located only to "how the blocks are combined")
                    **{
                        text: (_blockwise(q, k, v, block, causal, fa1=how) if several else None)
                        for how, text in _FA1_WRONG_FACTOR.items()
                    },
                },
                explain=lambda got=got, causes=nan_causes, e=expected, args=(q, k, v, block, causal): (
                    _zero_denominator(
                        got,
                        e,
                        "the accumulated sum of exp(s - m) v over the blocks",
                        "running sum of the weights",
                        "weights.sum(dim=-1)",
                    )
                    or _all_nan_candidates(got, causes)
                    or (
                        ""
                        if _arranged_or_related(got, e)
                        # blind12l-tiled-scale-precedence, blind15e-tiled-d-k-from-axis-1
                        # (located to "every block" before): the scale measured
                        else _scale_named(got, args[0], args[1], args[2], args[4], tiled_attention)
                        or _localise_tiled(tiled_attention, *args)
                    )
                ),
                hint="For each block: scores, new maximum m' = max(m, block max), rescale the "
                "running sum and the output by exp(m - m'), add exp(s - m') and exp(s - m') v; "
                "divide by the sum at the end."
                + (
                    " With causal=True, query i sees keys j <= i (the diagonal included)."
                    if causal
                    else ""
                ),
            )
            if not causal and several:
                uncausal_blocks = max(uncausal_blocks, k.shape[-2])
            ran = True
        _expect_default_not_causal(c, tiled_attention, hidden)
        _expect_no_full_table(c, tiled_attention, hidden)


# ===================================================================== sliding_window_mask
