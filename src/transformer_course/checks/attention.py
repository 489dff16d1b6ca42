"""Checks for lesson 04: a numerically stable softmax and scaled dot-product attention.

Every classic mistake gets its own diagnosis. The inputs are chosen so that the
mistakes cannot hide: len_q != len_k (so swapping q and k breaks the shapes),
d_v != d_k and d_k, len_k, d_v all different (so scaling by the wrong number
gives a recognisably different answer), d_v != len_k (so returning the pair in
the wrong order shows in the shapes), masks that are not symmetric and have a
fully masked query row.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from transformer_course.checking import Checker, CheckFailure, numpy_rng, torch_generator
from transformer_course.reference import attention as ref
from transformer_course.registry import Exercise

NEG_INF = float("-inf")


def _fmt(x: np.ndarray) -> str:
    """A short, readable repr of a small array for messages."""
    text = np.array2string(np.asarray(x), precision=3, separator=", ", threshold=24)
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:157] + "..."


# =============================================================================== softmax
SOFTMAX_OVERFLOW = (
    "np.exp(1000.0) overflows to inf, and inf / inf is NaN. Subtract the maximum of each "
    "slice before exponentiating: m = np.max(x, axis=axis, keepdims=True), then "
    "np.exp(x - m). This changes nothing mathematically (softmax(x) = softmax(x - c) for "
    "any constant c per slice), and the largest exponent becomes exp(0) = 1."
)
SOFTMAX_GLOBAL_MAX = (
    "The rows of this input live on very different scales. It looks like you subtracted "
    "one maximum for the whole array (np.max(x)) instead of the maximum of each slice: "
    "a row around -1000 minus a global maximum around +1000 underflows exp() to 0 "
    "everywhere, and 0 / 0 is NaN. Use np.max(x, axis=axis, keepdims=True)."
)
SOFTMAX_NOT_NORMALISED = (
    "Your result is exp(x) (or exp(x - max)) without dividing by the sum along the axis, "
    "so the entries of a slice do not add up to 1. Divide by "
    "np.sum(e, axis=axis, keepdims=True)."
)
SOFTMAX_WHOLE_ARRAY = (
    "Your values add up to 1 over the whole array instead of along the axis: each slice "
    "along `axis` is normalised on its own. Pass axis=axis, keepdims=True to np.sum."
)
SOFTMAX_KEEPDIMS = (
    "It looks like you divided by the sums without keepdims=True: np.sum(e, axis=-1) has "
    "shape (n,), and numpy broadcasts it along the wrong axis (entry [i, j] gets divided by "
    "the sum of row j). Pass keepdims=True to np.sum (and np.max) so the sums line up "
    "with their slices."
)
SOFTMAX_ALL_NEG_INF = (
    "A slice in which every entry is -inf has nothing to give weight to. The documented "
    "convention (the same as F.scaled_dot_product_attention for a fully masked row) is "
    "that it comes back as all zeros."
)
SOFTMAX_ALL_NEG_INF_NAN = (
    SOFTMAX_ALL_NEG_INF + " Yours is NaN there: the slice maximum is -inf and "
    "-inf - (-inf) is NaN (or, without the max, exp gives all zeros and 0 / 0 is NaN). "
    "Replace a non-finite maximum by 0 (np.where(np.isfinite(m), m, 0.0)) and divide only "
    "where the sum is positive: np.divide(e, s, out=np.zeros_like(e), where=s > 0)."
)
SOFTMAX_ALL_NEG_INF_UNIFORM = (
    SOFTMAX_ALL_NEG_INF + " Yours is uniform (1/n each) there: did you replace -inf by a "
    "large finite number such as -1e9? Then all entries of that slice are equal and the "
    "weight is spread evenly over entries that should get none. Keep -inf (exp(-inf) is "
    "exactly 0) and give an all -inf slice zeros."
)
SOFTMAX_INPLACE = (
    "Your softmax changed the array it was given (an in-place operation such as "
    "x -= x.max(...) or x[...] = ...). The caller's data must stay as it was: write "
    "x - m into a new array instead."
)


def _softmax_wrong_axis(x: np.ndarray, axis: int) -> dict[str, np.ndarray]:
    """The answer of a softmax taken along every other axis."""
    wrong = {}
    own = axis % x.ndim
    for other in range(x.ndim):
        if other != own:
            message = (
                f"Your result is normalised along axis {other - x.ndim} instead of "
                f"axis={axis}: did you hard-code the axis (e.g. axis=-1), or forget to "
                "pass axis=axis to np.max or np.sum?"
            )
            wrong[message] = ref.softmax(x, axis=other)
    return wrong


def _softmax_mistakes(x: np.ndarray, axis: int) -> dict[str, np.ndarray]:
    mistakes: dict[str, np.ndarray] = {}
    with np.errstate(all="ignore"):
        mistakes.update(_softmax_wrong_axis(x, axis))
        peak = np.max(x, axis=axis, keepdims=True)
        exps = np.exp(x - np.where(np.isfinite(peak), peak, 0.0))
        mistakes[SOFTMAX_NOT_NORMALISED] = exps
        mistakes[SOFTMAX_NOT_NORMALISED.replace("exp(x) (or exp(x - max))", "exp(x)")] = np.exp(x)
        mistakes[SOFTMAX_WHOLE_ARRAY] = exps / np.sum(exps)
        sums = np.sum(exps, axis=axis)
        try:
            mistakes[SOFTMAX_KEEPDIMS] = exps / sums
        except ValueError:
            pass
        if np.isneginf(x).any():
            finite = np.where(np.isneginf(x), -1e9, x)
            mistakes[SOFTMAX_ALL_NEG_INF_UNIFORM] = ref.softmax(finite, axis=axis)
    return mistakes


def _softmax_explain(got: np.ndarray, x: np.ndarray, axis: int) -> str:
    """A property-based hint when no known mistake matches."""
    with np.errstate(all="ignore"):
        if (got < 0).any():
            return "Softmax weights are never negative (they are exponentials divided by a sum)."
        live = ~np.all(np.isneginf(x), axis=axis, keepdims=True)
        sums = np.sum(got, axis=axis, keepdims=True)
        if not np.allclose(np.where(live, sums, 1.0), 1.0, atol=1e-5):
            return (
                f"Your values do not add up to 1 along axis={axis} (sums: {_fmt(sums.squeeze())})."
            )
    return "Check each step: subtract the slice max, exponentiate, divide by the slice sum."


def _softmax_cases(hidden: bool) -> list[tuple[str, np.ndarray, int | None, str]]:
    """(label, x, axis or None for the default, hint for NaN results)."""
    nan_hint = "Where does a NaN come from? exp(large) = inf, inf/inf and 0/0 are NaN."
    if not hidden:
        cases = [
            ("small logits", np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5], [-1.0, 0.0, 4.0]]), None, nan_hint),
            ("axis=0", np.array([[1.0, 2.0, 0.0, -1.0], [3.0, 0.0, 0.0, 2.0]]), 0, nan_hint),
            ("a 3-D input, axis=1", numpy_rng(40).normal(size=(2, 3, 4)), 1, nan_hint),
            ("float32 input", numpy_rng(41).normal(size=(2, 5)).astype(np.float32), -1, nan_hint),
            ("large logits", np.array([[1000.0, 1001.0, 1002.0], [990.0, 1000.0, 1010.0]]), -1, SOFTMAX_OVERFLOW),
            ("rows on very different scales", np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1001.0, -1000.0]]), -1, SOFTMAX_GLOBAL_MAX),
            ("some -inf entries", np.array([[0.0, NEG_INF, 1.0, NEG_INF], [2.0, 2.0, NEG_INF, 0.0]]), -1, "exp(-inf) is exactly 0, so a -inf entry simply gets weight 0."),
            ("a row that is all -inf", np.array([[1.0, 2.0, 3.0], [NEG_INF, NEG_INF, NEG_INF]]), -1, SOFTMAX_ALL_NEG_INF_NAN),
        ]  # fmt: skip
        return cases
    rng = numpy_rng(4040)
    square = rng.normal(size=(4, 4)) * 2
    large = rng.normal(size=(3, 6)) * 5 + 800
    scales = np.stack([rng.normal(size=5) + 900, rng.normal(size=5) - 900, rng.normal(size=5)])
    with_inf = rng.normal(size=(2, 3, 5))
    with_inf[rng.random(size=with_inf.shape) < 0.3] = NEG_INF
    with_inf[..., 0] = 0.0  # every slice along the last axis keeps one finite entry
    empty = rng.normal(size=(3, 4, 2)).astype(np.float32)
    empty[1, :, 0] = NEG_INF  # one slice along axis=1 is all -inf
    return [
        ("a random square input", square, None, nan_hint),
        ("a 4-D input, axis=-3", rng.normal(size=(2, 3, 2, 2)), -3, nan_hint),
        ("a 3-D input, axis=0", rng.normal(size=(3, 2, 4)), 0, nan_hint),
        ("a 1-D float32 input", rng.normal(size=7).astype(np.float32), -1, nan_hint),
        ("large logits", large, -1, SOFTMAX_OVERFLOW),
        ("large logits along axis=0", large.T.copy(), 0, SOFTMAX_OVERFLOW),
        ("rows on very different scales", scales, -1, SOFTMAX_GLOBAL_MAX),
        ("some -inf entries", with_inf, -1, "exp(-inf) is exactly 0, so a -inf entry gets weight 0."),
        ("an all -inf slice along axis=1 (float32)", empty, 1, SOFTMAX_ALL_NEG_INF_NAN),
        ("a row that is all -inf", np.array([[NEG_INF] * 4, [3.0, NEG_INF, 1.0, 2.0]]), -1, SOFTMAX_ALL_NEG_INF_NAN),
    ]  # fmt: skip


def check_softmax(softmax, *, hidden: bool = False) -> None:
    """softmax(x, axis=-1) on numpy arrays: stable, dtype-preserving, any axis, all -inf -> 0."""
    with Checker("softmax", hidden=hidden) as c:
        c.require_callable(softmax)
        for label, x, axis, nan_hint in _softmax_cases(hidden):
            given = x.copy()
            if axis is None:
                what = f"softmax(x) with the default axis on {label}, x = {_fmt(x)}"
                got = c.call(softmax, given, call_repr=f"softmax({_fmt(x)})")
                axis = -1
            else:
                what = f"softmax(x, axis={axis}) on {label}, x = {_fmt(x)}"
                got = c.call(
                    softmax, given, axis=axis, call_repr=f"softmax({_fmt(x)}, axis={axis})"
                )
            c.expect_true(
                given.shape == x.shape and np.array_equal(given, x, equal_nan=True),
                f"{what}: {SOFTMAX_INPLACE}",
            )
            c.expect_type(
                got,
                np.ndarray,
                what,
                "Return a numpy array (np.exp and np.sum on a numpy input give one; "
                "convert a torch result back with .numpy()).",
            )
            c.expect_shape(got, x.shape, what, "Softmax keeps the shape of its input.")
            c.expect_dtype(
                got,
                x.dtype,
                what,
                "Keep the input's dtype: a float32 input gives a float32 result (don't convert "
                "to float64 with astype or np.array(..., dtype=np.float64)).",
            )
            expected = ref.softmax(x, axis=axis)
            tol = (
                {"rtol": 1e-5, "atol": 1e-6}
                if x.dtype == np.float32
                else {"rtol": 1e-7, "atol": 1e-10}
            )
            got64 = np.asarray(got, dtype=np.float64)
            if not np.isfinite(got64).all():
                # NaN on an all -inf slice is its own mistake; name it before anything else.
                dead = np.broadcast_to(np.all(np.isneginf(x), axis=axis, keepdims=True), x.shape)
                if dead.any() and not np.isfinite(got64[dead]).all():
                    c.fail(
                        f"{what} contains NaN on the slice that is all -inf. {SOFTMAX_ALL_NEG_INF_NAN}"
                    )
            c.expect_close(
                got,
                expected,
                what,
                **tol,
                hint=nan_hint if not np.isfinite(got64).all() else _softmax_explain(got64, x, axis),
                mistakes=_softmax_mistakes(x, axis),
            )


# ==================================================================== scaled dot-product attention
def _weights_variant(q, k, mask, *, scale, dim=-1, mask_mode="before", fill=NEG_INF):
    """The weights (float64) some implementation gives; used to name a learner's mistake."""
    q, k = q.detach().double(), k.detach().double()
    scores = q @ k.transpose(-2, -1) / scale  # (..., len_q, len_k)
    if mask is not None and mask_mode == "before":
        scores = scores.masked_fill(~mask, fill)
    if mask is not None and mask_mode == "inverted":
        scores = scores.masked_fill(mask, NEG_INF)
    weights = torch.softmax(scores, dim=dim)
    if mask is not None and mask_mode == "after":
        weights = weights * mask
    return torch.nan_to_num(weights, nan=0.0)


def _sdpa_mistakes(q, k, v, mask) -> dict[str, torch.Tensor]:
    d_k, len_k, d_v = q.shape[-1], k.shape[-2], v.shape[-1]
    root = math.sqrt(d_k)
    mistakes = {
        f"Your weights match softmax(q kᵀ) with no scaling. Divide the scores by √d_k = "
        f"√{d_k} before the softmax: scores = q @ k.transpose(-2, -1) / math.sqrt(d_k), with "
        "d_k = q.shape[-1]. Without it the scores grow with d_k and the softmax saturates "
        "(see the section on scaling).": _weights_variant(q, k, mask, scale=1.0),
        f"Your weights match scores divided by d_k = {d_k} instead of by √d_k = {root:.4g}: "
        "take the square root (math.sqrt(d_k)).": _weights_variant(q, k, mask, scale=d_k),
        f"Your weights match scores divided by len_k = {len_k}, the number of keys. The "
        "paper divides by √d_k, where d_k is the width of each query/key vector "
        f"(q.shape[-1] = {d_k}), not the number of words in the sentence (a popular "
        "explanation gets this wrong).": _weights_variant(q, k, mask, scale=len_k),
        f"Your weights match scores divided by √len_k = √{len_k}, the square root of the "
        "number of keys. d_k is the width of each query/key vector "
        f"(q.shape[-1] = {d_k}), not the number of keys (k.shape[-2]); it does not change "
        "with sentence length.": _weights_variant(q, k, mask, scale=math.sqrt(len_k)),
        f"Your weights match scores divided by √d_v = √{d_v}: you took the width from v. "
        f"The scale is √d_k, the width of the queries and keys (q.shape[-1] = {d_k}); here "
        f"d_v = {d_v} differs from d_k on purpose.": _weights_variant(
            q, k, mask, scale=math.sqrt(d_v)
        ),
        "Your weights sum to 1 over the queries (dim=-2) instead of over the keys (dim=-1). "
        "Each query row is a probability distribution over the keys: take the softmax with "
        "dim=-1.": _weights_variant(q, k, mask, scale=root, dim=-2),
    }
    if mask is not None:
        mistakes.update(
            {
                "Your weights match attention with no mask at all: keys where the mask is "
                "False still get weight. Set their scaled scores to -inf before the softmax, "
                "e.g. scores.masked_fill(~mask, float('-inf')).": _weights_variant(
                    q, k, None, scale=root
                ),
                "Your weights look like the mask was applied after the softmax: masked keys "
                "get 0, but the remaining weights of those rows no longer add up to 1. Apply "
                "the mask to the scaled scores before the softmax (fill with -inf), so the "
                "softmax renormalises over the keys that are allowed.": _weights_variant(
                    q, k, mask, scale=root, mask_mode="after"
                ),
                "Your weights match the mask with its meaning inverted: you blocked the keys "
                "where mask is True. Here (as in F.scaled_dot_product_attention) True = may "
                "attend, so fill where the mask is False: scores.masked_fill(~mask, "
                "float('-inf')). (nn.MultiheadAttention's bool masks mean the opposite; see "
                "the lesson.)": _weights_variant(q, k, mask, scale=root, mask_mode="inverted"),
            }
        )
    return mistakes


SDPA_FULLY_MASKED = (
    "{where} has no key it may attend to (its mask row is all False). The documented "
    "convention, the same as F.scaled_dot_product_attention's, is all-zero weights and "
    "therefore a zero output for such a row."
)
SDPA_FULLY_MASKED_NAN = (
    SDPA_FULLY_MASKED + " Yours are NaN: a softmax over a row that is all -inf is 0 / 0. "
    "After the softmax, zero those rows, e.g. "
    "weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0), or "
    "torch.nan_to_num(weights, nan=0.0)."
)
SDPA_FULLY_MASKED_UNIFORM = (
    SDPA_FULLY_MASKED + " Yours are uniform (1/len_k each): that is what a large finite "
    "fill value such as -1e9 gives, because all the scores of the row become equal and the "
    "softmax spreads the weight evenly over keys the query may not see. Fill with "
    "float('-inf') and zero the fully masked rows after the softmax "
    "(weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0))."
)
SDPA_SWAP = (
    "The inputs have len_q = {len_q} queries and len_k = {len_k} keys on purpose. The scores "
    "are q @ kᵀ, shape (..., len_q, len_k): one row per query, one column per key. Did you "
    "swap q and k (k @ qᵀ), or transpose the weights?"
)


def _sdpa_explain(c, got_w, exp_w, what, mask, shape_info) -> None:
    """Name what is wrong with weights that match no known mistake, or pass them."""
    g = got_w.detach().double()
    e = exp_w.double()
    if torch.allclose(g, e, **shape_info["tol"]) and torch.isfinite(g).all():
        c.ok()
        return
    g0 = torch.nan_to_num(g, nan=0.0)  # a NaN row and a zero row tell the same story here
    for message, wrong in _sdpa_mistakes(*shape_info["qkv"], mask).items():
        if wrong.shape == g.shape and torch.allclose(g0, wrong, rtol=1e-4, atol=1e-5):
            c.fail(f"{what} are not what the reference gives. {message}")
    if mask is not None:
        empty = ~mask.expand(e.shape).any(dim=-1)  # (..., len_q): rows with nothing to attend
        if empty.any():
            index = tuple(int(i) for i in empty.nonzero()[0])
            where = f"Query row {index} (batch indices first)"
            rows = g[empty]  # (n_empty, len_k)
            if not torch.isfinite(rows).all():
                c.fail(f"{what}: {SDPA_FULLY_MASKED_NAN.format(where=where)}")
            if torch.allclose(rows, torch.full_like(rows, 1.0 / e.shape[-1]), atol=1e-5):
                c.fail(f"{what}: {SDPA_FULLY_MASKED_UNIFORM.format(where=where)}")
            if not torch.allclose(rows, torch.zeros_like(rows), atol=1e-6):
                c.fail(f"{what}: {SDPA_FULLY_MASKED.format(where=where)} Yours are not zero.")
        blocked = ~mask.expand(e.shape)
        if (g[blocked].abs() > 1e-6).any():
            c.fail(
                f"{what} give weight to keys the mask forbids (mask False). Set their scaled "
                "scores to -inf before the softmax, with True = may attend."
            )
    if not torch.isfinite(g).all():
        c.fail(f"{what} contain NaN or inf where the reference's are all finite.")
    sums = g.sum(dim=-1)
    live = torch.ones_like(sums, dtype=torch.bool) if mask is None else mask.expand(e.shape).any(-1)
    if not torch.allclose(sums[live], torch.ones_like(sums[live]), atol=1e-5):
        c.fail(
            f"{what} do not add up to 1 over the keys (the last dim) for every query row: take "
            "the softmax of the scaled scores over dim=-1."
        )
    diff = (g - e).abs()
    worst = tuple(int(i) for i in (diff == diff.max()).nonzero()[0])
    c.fail(
        f"{what} differ from the reference: largest difference {float(diff.max()):.3g} at "
        f"index {worst} (yours {float(g[worst]):.6g}, expected {float(e[worst]):.6g}). "
        "Check the steps: scores = q @ kᵀ / √d_k; masked scores = -inf; softmax over the keys."
    )


def _sdpa_cases(hidden: bool) -> list[dict]:
    """Inputs: len_q != len_k, d_v != d_k, d_v != len_k and d_k, len_k, d_v all different."""

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
        qg, kg, vg = make(4, (), 2, 3, 4, 5)
        return [
            {"label": "no mask, batch of 2", "qkv": (q, k, v), "mask": None},
            {"label": "a (len_q, len_k) mask broadcast over the batch, with a fully masked "
                      "query row", "qkv": (q, k, v), "mask": mask},
            {"label": "4-D inputs (batch, heads, len, d) with a padding mask of shape "
                      "(batch, 1, 1, len_k)", "qkv": (q4, k4, v4), "mask": pad[:, None, None, :]},
            {"label": "float32 inputs", "qkv": (q32, k32, v32), "mask": None},
            {"label": "2-D inputs (no batch dims) that require gradients",
             "qkv": (qg, kg, vg), "mask": None, "grad": True},
        ]  # fmt: skip
    q, k, v = make(101, (3,), 4, 7, 8, 5)
    qb, kb, vb = make(102, (2, 3), 5, 6, 3, 4)
    ql, kl, vl = make(103, (2,), 3, 6, 16, 7, scale=8.0)  # large logits
    q1, k1, v1 = make(104, (2, 2), 1, 5, 6, 3)  # a single query
    q32, k32, v32 = make(105, (2, 2), 5, 3, 4, 6, dtype=torch.float32)
    qg, kg, vg = make(106, (2,), 3, 4, 6, 2)
    pad = torch.tensor([[True, True, True, True, True, False], [False] * 6])
    return [
        {"label": "no mask, batch of 3", "qkv": (q, k, v), "mask": None},
        {"label": "a (batch, 1, len_q, len_k) mask over 4-D inputs, with fully masked rows",
         "qkv": (qb, kb, vb), "mask": rand_mask(107, (2, 1, 5, 6), [(0, 0, 2), (1, 0, 4)])},
        {"label": "a padding mask (batch, 1, 1, len_k) where one sequence is all padding",
         "qkv": (qb, kb, vb), "mask": pad[:, None, None, :]},
        {"label": "large logits with a (len_q, len_k) mask",
         "qkv": (ql, kl, vl), "mask": rand_mask(108, (3, 6), [1])},
        {"label": "a single query, 4-D inputs", "qkv": (q1, k1, v1),
         "mask": rand_mask(109, (1, 5))},
        {"label": "float32 inputs with a mask", "qkv": (q32, k32, v32),
         "mask": rand_mask(110, (2, 2, 5, 3), [(1, 0, 3)])},
        {"label": "3-D inputs that require gradients", "qkv": (qg, kg, vg), "mask": None,
         "grad": True},
    ]  # fmt: skip


def _describe(q, k, v, mask) -> str:
    text = f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
    if mask is not None:
        text += f", mask {tuple(mask.shape)}"
    return f"{text}, dtype {str(q.dtype).replace('torch.', '')}"


def _call_sdpa(c, fn, q, k, v, mask, label):
    args = (q, k, v) if mask is None else (q, k, v, mask)
    call_repr = f"scaled_dot_product_attention({_describe(q, k, v, mask)})"
    try:
        return c.call(fn, *args, call_repr=call_repr)
    except CheckFailure as failure:
        if "not implemented yet" in failure.message:
            raise
        cause = str(failure.__cause__ or "")
        hints = []
        if "mask" in cause and isinstance(failure.__cause__, IndexError | RuntimeError):
            hints.append(
                "The mask is only broadcastable to (..., len_q, len_k), not necessarily of the "
                "same shape as the scores: boolean indexing (scores[~mask] = ...) needs equal "
                "shapes. Use masked_fill or torch.where, which broadcast."
            )
        elif isinstance(failure.__cause__, RuntimeError) and (
            "size" in cause or "shape" in cause or "mat1" in cause
        ):
            hints.append(
                SDPA_SWAP.format(len_q=q.shape[-2], len_k=k.shape[-2])
                + f" Also d_k = {q.shape[-1]} and d_v = {v.shape[-1]} differ: the output is "
                "weights @ v, shape (..., len_q, len_k) @ (..., len_k, d_v) -> "
                "(..., len_q, d_v)."
            )
        if "requires grad" in cause or "numpy" in cause:
            hints.append(
                "Stay in torch (no .numpy()): later lessons train through this function, "
                "and gradients only flow through torch operations."
            )
        raise CheckFailure(
            c.exercise,
            f"On {label}: {failure.message} " + " ".join(hints),
            failure.learner_traceback,
        ) from failure.__cause__


def check_scaled_dot_product_attention(scaled_dot_product_attention, *, hidden: bool = False):
    """(output, weights) = scaled_dot_product_attention(q, k, v, mask=None) on torch tensors."""
    with Checker("scaled_dot_product_attention", hidden=hidden) as c:
        c.require_callable(scaled_dot_product_attention)
        for case in _sdpa_cases(hidden):
            (q, k, v), mask, label = case["qkv"], case["mask"], case["label"]
            originals = [t.clone() for t in (q, k, v)]
            given = [t.clone().requires_grad_(case.get("grad", False)) for t in (q, k, v)]
            result = _call_sdpa(c, scaled_dot_product_attention, *given, mask, label)
            what = f"On {label} ({_describe(q, k, v, mask)}), "
            c.expect_true(
                all(torch.equal(a.detach(), b) for a, b in zip(given, originals, strict=True)),
                what + "your function changed q, k or v in place (e.g. q /= math.sqrt(d_k)). "
                "The caller's tensors must stay as they were: write q = q / math.sqrt(d_k), or "
                "scale the scores instead.",
            )
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
            swap_hint = SDPA_SWAP.format(len_q=len_q, len_k=len_k)
            c.expect_shape(
                weights,
                w_shape,
                what + "the weights",
                "They are (..., len_q, len_k): one row per query, one column per key, with the "
                "batch dims of the inputs in front. "
                + (swap_hint if tuple(weights.shape[-2:]) == (len_k, len_q) else ""),
            )
            c.expect_shape(
                output,
                o_shape,
                what + "the output",
                "It is weights @ v: (..., len_q, len_k) @ (..., len_k, d_v) -> (..., len_q, d_v).",
            )
            dtype_hint = (
                f"Keep the dtype of the inputs ({q.dtype}): don't convert with .double() / "
                ".float() or build new tensors with a fixed dtype."
            )
            c.expect_dtype(weights, q.dtype, what + "the weights", dtype_hint)
            c.expect_dtype(output, q.dtype, what + "the output", dtype_hint)
            exp_out, exp_w = ref.scaled_dot_product_attention(
                q.double(), k.double(), v.double(), mask
            )  # (..., len_q, d_v), (..., len_q, len_k)
            tol = (
                {"rtol": 1e-4, "atol": 1e-5}
                if q.dtype == torch.float32
                else {"rtol": 1e-6, "atol": 1e-9}
            )
            _sdpa_explain(
                c, weights, exp_w, what + "your weights", mask, {"qkv": (q, k, v), "tol": tol}
            )
            c.expect_close(
                output,
                exp_out,
                what + "your output",
                **tol,
                hint="Your weights are right, so check the last step: output = weights @ v, "
                "computed from the final weights (after zeroing fully masked rows). Row i of the "
                "output is the weighted sum of the value rows, with query i's weights.",
            )
            if case.get("grad"):
                c.expect_true(
                    output.grad_fn is not None,
                    what + "q, k and v require gradients, but your output is not connected to "
                    "them (it has no grad_fn). Did you use .detach(), torch.no_grad() or go "
                    "through numpy? Later lessons train through this function, so stay in torch.",
                )


# ---------------------------------------------------------------------------- registry
LESSON = "04_attention"
EXERCISES = (
    Exercise(
        "softmax",
        check_softmax,
        kind="function",
        points=2,
        minutes=15,
        level=2,
        forbidden=("scipy.special.softmax", "torch.softmax", "torch.nn.functional.softmax"),
    ),
    Exercise(
        "scaled_dot_product_attention",
        check_scaled_dot_product_attention,
        kind="function",
        points=3,
        minutes=25,
        level=3,
        forbidden=(
            "torch.nn.functional.scaled_dot_product_attention",
            "torch.nn.MultiheadAttention",
        ),
    ),
)
