"""Checks for lesson 05: ``split_heads``, ``merge_heads`` and ``MultiHeadAttention``.

Expected values come from :mod:`transformer_course.reference.multi_head_attention` (tested
against ``nn.MultiheadAttention`` in ``tests/test_05_multi_head_attention.py``).
The values that classic mistakes produce are computed by :func:`_variant`, a
multi-head attention with a knob for each mistake, so that a wrong answer gets
the diagnosis of the mistake it matches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from transformer_course.checking import Checker, CheckFailure, torch_generator
from transformer_course.reference import multi_head_attention as ref
from transformer_course.registry import Exercise

__all__ = ["check_MultiHeadAttention", "check_merge_heads", "check_split_heads"]

PROJECTIONS = ("w_q", "w_k", "w_v", "w_o")
STATE_KEYS = [f"{name}.{part}" for name in PROJECTIONS for part in ("weight", "bias")]


def _randn(shape, seed: int, dtype=torch.float32, scale: float = 1.0) -> torch.Tensor:
    """Standard normal values from a private generator (float64 draw, then cast)."""
    values = torch.randn(tuple(shape), generator=torch_generator(seed), dtype=torch.float64)
    return (values * scale).to(dtype)


def _call_with_view_hint(c: Checker, fn, *args, call_repr: str):
    """Checker.call, with a hint when ``.view`` was used on a non-contiguous tensor."""
    try:
        return c.call(fn, *args, call_repr=call_repr)
    except CheckFailure as failure:
        if "view size is not compatible" in failure.message:
            raise CheckFailure(
                failure.exercise,
                failure.message + "\nAfter a transpose the tensor is no longer laid out "
                "row by row in memory, so `.view` cannot regroup its axes. Use `.reshape(...)` "
                "(it copies only when it must) or `.contiguous().view(...)`.",
                failure.learner_traceback,
            ) from failure
        raise


# ------------------------------------------------------------------ split_heads
# (seed, batch, len, d_model, num_heads, dtype)
_SPLIT_VISIBLE = [(1, 2, 3, 8, 2, torch.float32), (2, 1, 5, 12, 3, torch.float64)]
_SPLIT_HIDDEN = [
    (101, 3, 5, 12, 4, torch.float64),
    (102, 2, 7, 16, 8, torch.float32),
    (103, 1, 6, 6, 1, torch.float32),
    (104, 2, 3, 10, 10, torch.float32),
    (105, 2, 5, 24, 6, torch.float64),
]


def _split_shape_hint(got: tuple, batch: int, length: int, num_heads: int, d_head: int) -> str:
    hints = {
        (batch, length, num_heads, d_head): "That is (batch, len, num_heads, d_head): you cut "
        "d_model into heads but left the heads axis after len. Add `.transpose(1, 2)`.",
        (batch, num_heads, d_head, length): "len and d_head are swapped: transpose axes 1 and 2 "
        "of the (batch, len, num_heads, d_head) tensor, not 2 and 3.",
        (batch, length, d_head, num_heads): "The last two axes are (d_head, num_heads): reshape "
        "the last axis as (num_heads, d_head), then move the heads axis to position 1.",
        (batch * num_heads, length, d_head): "Keep batch and heads as separate axes: the contract "
        "is 4-D, (batch, num_heads, len, d_head).",
    }
    return hints.get(tuple(got), "The contract is (batch, num_heads, len, d_head) with d_head = "
                     "d_model // num_heads.")  # fmt: skip


def check_split_heads(split_heads, *, hidden: bool = False) -> None:
    """split_heads(x (batch, len, d_model), num_heads) -> (batch, num_heads, len, d_head)."""
    with Checker("split_heads", hidden=hidden) as c:
        c.require_callable(split_heads)
        for seed, batch, length, d_model, num_heads, dtype in (
            _SPLIT_HIDDEN if hidden else _SPLIT_VISIBLE
        ):
            d_head = d_model // num_heads
            x = _randn((batch, length, d_model), seed, dtype)
            original = x.clone()
            what = (
                f"split_heads(x, num_heads={num_heads}) for x of shape (batch={batch}, len={length}, "
                f"d_model={d_model})"
            )
            got = _call_with_view_hint(c, split_heads, x, num_heads,
                                       call_repr=f"split_heads(x {tuple(x.shape)}, {num_heads})")  # fmt: skip
            c.expect_type(got, torch.Tensor, what, "Return a torch tensor (reshape/transpose x).")
            expected = ref.split_heads(x, num_heads)  # (batch, num_heads, len, d_head)
            c.expect_shape(got, expected.shape, what,
                           _split_shape_hint(tuple(got.shape), batch, length, num_heads, d_head))  # fmt: skip
            c.expect_dtype(
                got, dtype, what, "Reshaping and transposing never need to change the dtype."
            )
            c.expect_true(
                torch.equal(x, original),
                f"{what} changed its input x in place. Return a new view instead of writing into x.",
            )
            c.expect_close(
                got, expected, what, rtol=0.0, atol=0.0,
                mistakes={
                    "You reshaped straight to (batch, num_heads, len, d_head) without a transpose. "
                    "A reshape only regroups the numbers in memory order, so 'head 0' then holds the "
                    "first tokens' complete vectors instead of the first d_head features of every "
                    "token. Reshape to (batch, len, num_heads, d_head) first, then `.transpose(1, 2)`.":
                        x.reshape(batch, num_heads, length, d_head),
                    "Your heads are split along the wrong axis: head i should hold the contiguous "
                    "features i*d_head ... (i+1)*d_head - 1 of each token, but yours holds every "
                    "num_heads-th feature. Reshape the last axis as (num_heads, d_head), in that "
                    "order, not (d_head, num_heads).":
                        x.reshape(batch, length, d_head, num_heads).permute(0, 3, 1, 2),
                },
            )  # fmt: skip


# ------------------------------------------------------------------ merge_heads
# (seed, batch, num_heads, len, d_head, dtype, non_contiguous_input)
_MERGE_VISIBLE = [(11, 2, 2, 3, 4, torch.float32, False), (12, 1, 3, 5, 2, torch.float64, False)]
_MERGE_HIDDEN = [
    (111, 3, 4, 2, 3, torch.float64, False),
    (112, 2, 8, 6, 2, torch.float32, False),
    (113, 1, 1, 4, 6, torch.float32, False),
    (114, 2, 5, 3, 1, torch.float32, False),
    (115, 2, 3, 7, 4, torch.float32, True),
]


def _merge_shape_hint(got: tuple, batch: int, num_heads: int, length: int, d_head: int) -> str:
    hints = {
        (batch, length, num_heads, d_head): "That is (batch, len, num_heads, d_head): flatten the "
        "last two axes into one of size num_heads * d_head.",
        (batch, num_heads, length * d_head): "You flattened len and d_head together: move the "
        "heads axis back behind len first (`.transpose(1, 2)`), then flatten the last two axes.",
        (batch, length * num_heads, d_head): "You merged len and num_heads: the heads must be "
        "concatenated along the feature axis, giving (batch, len, num_heads * d_head).",
    }
    return hints.get(tuple(got), "The contract is (batch, len, num_heads * d_head).")


def check_merge_heads(merge_heads, *, hidden: bool = False) -> None:
    """merge_heads(x (batch, num_heads, len, d_head)) -> (batch, len, num_heads * d_head)."""
    with Checker("merge_heads", hidden=hidden) as c:
        c.require_callable(merge_heads)
        for seed, batch, num_heads, length, d_head, dtype, strided in (
            _MERGE_HIDDEN if hidden else _MERGE_VISIBLE
        ):
            if strided:  # a transposed view, as split_heads returns it
                x = _randn((batch, length, num_heads, d_head), seed, dtype).transpose(1, 2)
            else:
                x = _randn((batch, num_heads, length, d_head), seed, dtype)
            original = x.clone()
            what = (
                f"merge_heads(x) for x of shape (batch={batch}, num_heads={num_heads}, len={length}, "
                f"d_head={d_head})"
            )
            got = _call_with_view_hint(
                c, merge_heads, x, call_repr=f"merge_heads(x {tuple(x.shape)})"
            )
            c.expect_type(got, torch.Tensor, what, "Return a torch tensor (transpose/reshape x).")
            expected = ref.merge_heads(x)  # (batch, len, num_heads * d_head)
            c.expect_shape(got, expected.shape, what,
                           _merge_shape_hint(tuple(got.shape), batch, num_heads, length, d_head))  # fmt: skip
            c.expect_dtype(
                got, dtype, what, "Reshaping and transposing never need to change the dtype."
            )
            c.expect_true(
                torch.equal(x, original),
                f"{what} changed its input x in place. Return a new tensor instead of writing into x.",
            )
            c.expect_close(
                got, expected, what, rtol=0.0, atol=0.0,
                mistakes={
                    "You reshaped (batch, num_heads, len, d_head) straight to (batch, len, d_model) "
                    "without a transpose, so each output 'token' is cut out of one head's block of "
                    "numbers. Move the heads axis back behind len first (`.transpose(1, 2)`), then "
                    "reshape.":
                        x.reshape(batch, length, num_heads * d_head),
                    "Your heads come out interleaved (feature j of head i landed at j*num_heads + i): "
                    "merging should concatenate the heads, head 0's d_head features first. Transpose "
                    "to (batch, len, num_heads, d_head) and flatten the last two axes in that order.":
                        x.permute(0, 2, 3, 1).reshape(batch, length, num_heads * d_head),
                },
            )  # fmt: skip


# ---------------------------------------------------------- MultiHeadAttention
@dataclass(frozen=True)
class _Case:
    seed: int
    batch: int
    len_q: int
    len_k: int
    d_model: int
    num_heads: int
    kind: str  # "self": query is key is value; "cross": key is value; "general": all three differ
    mask: str  # "none", "padding", "causal", "causal+padding", "rows" (some rows fully masked)
    scale: float = 1.0  # input scale: larger means larger logits
    dropout: float = 0.0  # > 0: construct with dropout, switch to eval(), expect no dropout


_MHA_VISIBLE = [
    _Case(21, 2, 4, 4, 8, 2, "self", "none"),
    _Case(22, 2, 3, 5, 8, 2, "cross", "padding"),
    _Case(23, 1, 5, 5, 12, 3, "self", "causal", dropout=0.2),
    _Case(24, 2, 4, 3, 8, 4, "general", "rows"),
]
_MHA_HIDDEN = [
    _Case(121, 2, 5, 7, 12, 3, "cross", "none", scale=3.0),
    _Case(122, 2, 4, 4, 16, 2, "cross", "none"),
    _Case(123, 3, 6, 6, 16, 4, "self", "causal+padding"),
    _Case(124, 2, 1, 6, 8, 2, "general", "rows"),
    _Case(125, 2, 3, 5, 12, 4, "cross", "rows", scale=2.0),
    _Case(126, 1, 3, 3, 6, 1, "self", "none"),
    _Case(127, 2, 4, 6, 8, 2, "cross", "padding", dropout=0.3),
]


def _state_dict(d_model: int, seed: int) -> dict[str, torch.Tensor]:
    """Deterministic float32 weights for w_q, w_k, w_v, w_o (keys as in nn.Linear)."""
    state = {}
    for index, name in enumerate(PROJECTIONS):
        state[f"{name}.weight"] = _randn((d_model, d_model), seed * 10 + index, scale=d_model**-0.5)
        state[f"{name}.bias"] = _randn((d_model,), seed * 10 + index + 5, scale=0.1)
    return state


def _inputs(case: _Case):
    """query (batch, len_q, d_model), key and value (batch, len_k, d_model), mask or None."""
    b, lq, lk, d = case.batch, case.len_q, case.len_k, case.d_model
    query = _randn((b, lq, d), case.seed, scale=case.scale)
    if case.kind == "self":
        key = value = query
    elif case.kind == "cross":
        key = value = _randn((b, lk, d), case.seed + 1, scale=case.scale)
    else:
        key = _randn((b, lk, d), case.seed + 1, scale=case.scale)
        value = _randn((b, lk, d), case.seed + 2, scale=case.scale)
    lengths = [lk - (i % 3) for i in range(b)]  # the 2nd sequence has 1 pad, the 3rd 2 pads
    padding = (torch.arange(lk) < torch.tensor(lengths)[:, None])[:, None, None, :]  # (b,1,1,lk)
    causal = torch.tril(torch.ones(lq, lk, dtype=torch.bool))  # (len_q, len_k)
    if case.mask == "none":
        mask = None
    elif case.mask == "padding":
        mask = padding
    elif case.mask == "causal":
        mask = causal
    elif case.mask == "causal+padding":
        mask = causal & padding  # (b, 1, len_q, len_k)
    else:  # random pattern per head, with some rows that may attend to nothing
        gen = torch_generator(case.seed + 3)
        mask = torch.rand((b, case.num_heads, lq, lk), generator=gen) < 0.6
        mask[:, :, :, 0] = True
        mask[0, 0, -1, :] = False
        mask[-1, -1, 0, :] = False
    return query, key, value, mask


def _describe_mask(mask) -> str:
    return "None" if mask is None else f"bool {tuple(mask.shape)}"


def _variant(state, query, key, value, mask, num_heads, *, q_from="query", k_proj="w_k",
             v_proj="w_v", v_from="value", scale="sqrt_d_head", softmax_dim=-1,
             mask_mode="normal", split="correct", merge="correct", use_w_o=True):  # fmt: skip
    """Multi-head attention in float64 with one knob per classic mistake.

    Returns (output (batch, len_q, d_model), weights (batch, num_heads, len_q, len_k)).
    """
    p = {name: tensor.double() for name, tensor in state.items()}
    inputs = {"query": query.double(), "key": key.double(), "value": value.double()}

    def project(name, x):
        return x if name is None else x @ p[f"{name}.weight"].T + p[f"{name}.bias"]

    def cut(x):  # (batch, len, d_model) -> (batch, heads, len, d_head)
        b, length, d = x.shape
        if split == "no_transpose":
            return x.reshape(b, num_heads, length, d // num_heads)
        return x.reshape(b, length, num_heads, d // num_heads).transpose(1, 2)

    q = cut(project("w_q", inputs[q_from]))
    k = cut(project(k_proj, inputs["key"]))
    v = cut(project(v_proj, inputs[v_from]))
    d_head, d_model = q.shape[-1], query.shape[-1]
    divisor = {"sqrt_d_head": math.sqrt(d_head), "sqrt_d_model": math.sqrt(d_model),
               "d_head": float(d_head), "none": 1.0}[scale]  # fmt: skip
    scores = q @ k.transpose(-2, -1) / divisor  # (batch, heads, len_q, len_k)
    if mask is not None and mask_mode != "ignored":
        allowed = ~mask if mask_mode == "inverted" else mask
        allowed = allowed.expand(scores.shape)
        if mask_mode == "large_negative":
            scores = scores.masked_fill(~allowed, -1e9)
        else:
            scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=softmax_dim).nan_to_num(0.0)
    heads = weights @ v  # (batch, heads, len_q, d_head)
    b, h, lq, dh = heads.shape
    if merge == "no_transpose":
        merged = heads.reshape(b, lq, h * dh)
    else:
        merged = heads.transpose(1, 2).reshape(b, lq, h * dh)
    return (project("w_o", merged) if use_w_o else merged), weights


_WEIGHT_MISTAKES = {
    "You divided the scores by sqrt(d_model); the scale is sqrt(d_k) with d_k = d_head = "
    "d_model / num_heads, the width of the vectors whose dot products you take.":
        {"scale": "sqrt_d_model"},
    "You did not scale the scores: divide q k^T by sqrt(d_head) before the softmax.":
        {"scale": "none"},
    "You divided the scores by d_head; the paper divides by its square root, sqrt(d_head).":
        {"scale": "d_head"},
    "Your queries come from the `key` input. In cross-attention the queries come from `query` "
    "(the decoder), the keys and values from `key`/`value` (the encoder output); some popular "
    "explanations get this backwards.":
        {"q_from": "key"},
    "Your queries come from the `value` input: project `query` with w_q.":
        {"q_from": "value"},
    "Your keys look like `key` projected with w_q: project the keys with w_k.":
        {"k_proj": "w_q"},
    "Your keys look like `key` projected with w_v: project the keys with w_k.":
        {"k_proj": "w_v"},
    "Your heads are not the ones split_heads makes: after the projections, reshape to "
    "(batch, len, num_heads, d_head) and then transpose(1, 2); a direct reshape to "
    "(batch, num_heads, len, d_head) mixes tokens into each head.":
        {"split": "no_transpose"},
    "You took the softmax over the queries (dim=-2); each query's weights must sum to 1 over "
    "the keys: softmax over the last axis.":
        {"softmax_dim": -2},
}  # fmt: skip

_OUTPUT_MISTAKES = {
    "You left out the output projection: the concatenated heads still go through w_o.":
        {"use_w_o": False},
    "You merged the heads with a reshape but without transpose(1, 2) first, so each output "
    "token is cut out of one head's block of numbers.":
        {"merge": "no_transpose"},
    "Your values look like `value` projected with w_k: project the values with w_v.":
        {"v_proj": "w_k"},
    "Your values look like `value` projected with w_q: project the values with w_v.":
        {"v_proj": "w_q"},
    "Your values are not projected: apply w_v to `value` before splitting into heads.":
        {"v_proj": None},
    "Your values come from the `key` input: the values are `value` projected with w_v.":
        {"v_from": "key"},
    "Your values come from the `query` input: the values are `value` projected with w_v.":
        {"v_from": "query"},
}  # fmt: skip


_MASK_IGNORED = "Your attention ignores the mask: apply it to the scores before the softmax."


def _mistake_values(table: dict, part: int, args: tuple) -> dict:
    """{message: zero-argument callable giving the output (part 0) or weights (part 1)}."""

    def value(knobs):
        try:
            return _variant(*args, **knobs)[part]
        except RuntimeError:  # a mistake that cannot happen with these shapes
            return None

    return {message: (lambda knobs=knobs: value(knobs)) for message, knobs in table.items()}


def _weights_shape_hint(got: tuple, batch: int, num_heads: int, len_q: int, len_k: int) -> str:
    hints = {
        (batch, len_q, len_k): "Those are weights averaged over the heads (what "
        "nn.MultiheadAttention returns by default); return every head's weights, "
        "(batch, num_heads, len_q, len_k).",
        (batch, num_heads, len_k, len_q): "Your scores are transposed: compute q @ k^T, one row "
        "per query and one column per key.",
    }
    if len_q != len_k:
        hints[(batch, num_heads, len_k, len_k)] = (
            "You have one row per *key*: your queries come from `key` (the encoder output). In "
            "cross-attention the queries come from `query` (the decoder), the keys and values from "
            "the encoder output; some popular explanations get this backwards."
        )
        hints[(batch, num_heads, len_q, len_q)] = (
            "You have one column per *query*: your keys come from `query`. Keys (and values) "
            "come from the `key` (and `value`) input."
        )
    return hints.get(tuple(got), "")


def _output_shape_hint(got: tuple, batch: int, num_heads: int, len_q: int, len_k: int,
                       d_model: int) -> str:  # fmt: skip
    d_head = d_model // num_heads
    hints = {
        (batch, num_heads, len_q, d_head): "That is still split into heads: merge them "
        "(batch, len_q, num_heads * d_head) and apply w_o.",
        (batch, len_q, num_heads, d_head): "Flatten the last two axes: (batch, len_q, d_model).",
    }
    if len_q != len_k:
        hints[(batch, len_k, d_model)] = (
            "You have one output row per *key*: your queries come from `key` (the encoder "
            "output). In cross-attention the queries come from `query` (the decoder), the keys "
            "and values from the encoder output; some popular explanations get this backwards."
        )
    return hints.get(tuple(got), "There is one output row per query: (batch, len_q, d_model).")


def _check_state_dict(c: Checker, module, d_model: int, num_heads: int, built: str) -> None:
    found = list(c.call(module.state_dict, call_repr=f"{built}.state_dict()").items())
    names = [name for name, _ in found]
    if sorted(names) != sorted(STATE_KEYS):
        hint = (
            "Create exactly four layers in __init__: self.w_q, self.w_k, self.w_v and self.w_o, "
            "each nn.Linear(d_model, d_model) (with its bias)."
        )
        if any(tuple(t.shape) == (3 * d_model, d_model) for _, t in found):
            hint += (
                " A single fused nn.Linear(d_model, 3 * d_model) for q, k and v computes the same "
                "thing (nn.MultiheadAttention does that), but the contract here, and the later "
                "lessons, load the weights under these four names."
            )
        elif any(name.endswith(".weight") for name in names) and not any(
            name.endswith(".bias") for name in names
        ):
            hint += " Your layers have no bias: keep nn.Linear's default bias=True."
        c.fail(f"{built} should have the state-dict keys {STATE_KEYS}, but it has {names}. {hint}")
    c.ok()
    for name, tensor in found:
        want = (d_model, d_model) if name.endswith("weight") else (d_model,)
        if tuple(tensor.shape) != want:
            c.fail(
                f"{built}: {name} has shape {tuple(tensor.shape)}, expected {want}. Each projection "
                "is nn.Linear(d_model, d_model): it computes the queries (or keys, values) of all "
                f"{num_heads} heads at once, d_model = num_heads * d_head, and split_heads cuts them "
                "apart afterwards."
            )
    c.ok()


def _build(c: Checker, cls, case: _Case, state):
    built = f"{getattr(cls, '__name__', 'MultiHeadAttention')}(d_model={case.d_model}, num_heads={case.num_heads}, dropout={case.dropout})"
    module = c.call(cls, case.d_model, case.num_heads, dropout=case.dropout, call_repr=built)
    c.expect_type(module, torch.nn.Module, built,
                  "Make MultiHeadAttention a subclass of nn.Module (and call super().__init__()).")  # fmt: skip
    _check_state_dict(c, module, case.d_model, case.num_heads, built)
    c.call(module.load_state_dict, state, call_repr=f"{built}.load_state_dict(...)")
    loaded = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    for name in STATE_KEYS:
        if not torch.allclose(loaded[name].detach().double().cpu(), state[name].double()):
            c.fail(
                f"after {built}.load_state_dict(...), {name} does not hold the weights loaded "
                "into it: a later key overwrote it. Are some of w_q, w_k, w_v one and the same "
                "nn.Linear object (e.g. `self.w_q = self.w_k = self.w_v = nn.Linear(...)`)? Each "
                "projection needs its own nn.Linear, with its own weights."
            )
    c.ok()
    if case.dropout:
        c.call(module.eval, call_repr=f"{built}.eval()")
    return module, built


def _check_weights(c, weights, case, mask, what):
    """Properties of the attention weights that explain what went wrong."""
    w = weights.detach().double()
    b, h, lq, lk = w.shape
    allowed = (
        torch.ones(b, h, lq, lk, dtype=torch.bool) if mask is None else mask.expand(b, h, lq, lk)
    )
    dead = ~allowed.any(dim=-1)  # (b, h, lq): rows that may attend to nothing
    all_allowed = allowed.all(dim=-1)
    nan_rows = (~torch.isfinite(w)).any(dim=-1)
    if nan_rows.any():
        if mask is not None and (nan_rows == dead).all():
            c.fail(
                f"{what} has NaN in exactly the query rows where the mask allows no key at all: "
                "the softmax of a row of -inf is 0/0. Such a row should get all-zero weights (and "
                "so contribute nothing), as `scaled_dot_product_attention` from lesson 04 does: "
                "call it, or set those rows to 0 after the softmax."
            )
        if mask is not None and _mask_polarity_inverted(nan_rows, all_allowed):
            c.fail(
                f"{what} has NaN in the query rows where the mask allows every key: you filled the "
                "positions where the mask is True with -inf. In this course True means 'may "
                "attend': fill where the mask is False (`scores.masked_fill(~mask, -inf)`)."
            )
        c.fail(f"{what} contains NaN or inf. Check the masking and the softmax.")
    c.ok()
    if (w < -1e-6).any():
        c.fail(f"{what} has negative entries: weights come out of a softmax, so they are >= 0.")
    c.ok()
    if mask is not None:
        leak = (w > 1e-6) & ~allowed & ~dead[..., None]
        if leak.any():
            live = allowed & ~dead[..., None]
            if (w[live] < 1e-6).all():
                c.fail(
                    f"{what} puts weight only on the keys the mask forbids: the mask polarity is "
                    "inverted. In this course True means 'may attend', so fill the scores with -inf "
                    "where the mask is False (`scores.masked_fill(~mask, float('-inf'))`)."
                )
            c.fail(
                f"{what} gives weight to keys the mask forbids (mask {_describe_mask(mask)}): the "
                "mask is not applied. Pass it on to the attention (it broadcasts to (batch, "
                "num_heads, len_q, len_k)), and apply it to the scores before the softmax."
            )
        c.ok()
        if dead.any():
            sums = w.sum(dim=-1)[dead]
            if (sums > 1e-6).any():
                uniform = torch.allclose(w[dead], torch.full_like(w[dead], 1.0 / lk), atol=1e-5)
                cause = (
                    "they are uniform (1/len_k each), which is what filling with -1e9 instead of "
                    "-inf gives"
                    if uniform
                    else "they are not zero"
                )
                c.fail(
                    f"{what}: in query rows where the mask allows no key at all, the weights should "
                    f"all be 0 (the row attends to nothing), but {cause}. Use "
                    "`scaled_dot_product_attention` from lesson 04, or zero those rows after the "
                    "softmax."
                )
        c.ok()
    live_rows = ~dead
    sums = w.sum(dim=-1)
    if not torch.allclose(sums[live_rows], torch.ones_like(sums[live_rows]), atol=1e-4):
        column_sums = w.sum(dim=-2)
        if mask is None and torch.allclose(column_sums, torch.ones_like(column_sums), atol=1e-4):
            c.fail(
                f"{what} sums to 1 over the queries (dim=-2) instead of over the keys: take the "
                "softmax over the last axis, so each query's weights over the keys sum to 1."
            )
        c.fail(
            f"{what} does not sum to 1 over the keys for every query (row sums range from "
            f"{float(sums[live_rows].min()):.3g} to {float(sums[live_rows].max()):.3g}): apply "
            "the softmax over the last axis (the keys)."
        )
    c.ok()


def _mask_polarity_inverted(nan_rows: torch.Tensor, all_allowed: torch.Tensor) -> bool:
    """NaN exactly in the rows where every key is allowed: -inf was filled where mask is True."""
    return bool(all_allowed.any()) and bool((nan_rows == all_allowed).all())


def check_MultiHeadAttention(cls, *, hidden: bool = False) -> None:
    """Construct cls(d_model, num_heads, dropout=...), load a state dict, compare forward."""
    with Checker("MultiHeadAttention", hidden=hidden) as c:
        c.require_callable(cls, "MultiHeadAttention")
        # Constructing modules draws their initial weights from torch's global stream: fork it,
        # so that running a check does not change what the learner's next random draw gives.
        with torch.random.fork_rng(devices=[]):
            _check_mha_cases(c, cls, _MHA_HIDDEN if hidden else _MHA_VISIBLE)


def _check_mha_cases(c: Checker, cls, cases) -> None:
    for case in cases:
        state = _state_dict(case.d_model, case.seed)
        module, built = _build(c, cls, case, state)
        query, key, value, mask = _inputs(case)
        b, h, lq, lk, d = case.batch, case.num_heads, case.len_q, case.len_k, case.d_model
        kind = {"self": "self-attention (query = key = value)",
                "cross": "cross-attention (key = value, len_q != len_k)" if lq != lk
                else "cross-attention (key = value)",
                "general": "attention with query, key and value all different"}[case.kind]  # fmt: skip
        call = (
            f"mha(query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}, "
            f"mask={_describe_mask(mask)}) [{kind}; mha = {built} holding the check's weights"
            f"{', in eval mode' if case.dropout else ''}]"
        )
        args = (query, key, value) if mask is None else (query, key, value, mask)
        result = c.call(module, *args, call_repr=call)
        if not (isinstance(result, tuple | list) and len(result) == 2):
            c.fail(
                f"{call} returned {type(result).__name__}"
                f"{f' of length {len(result)}' if isinstance(result, tuple | list) else ''}; "
                "forward should return a pair: (output, weights)."
            )
        c.ok()
        output, weights = result
        c.expect_type(output, torch.Tensor, f"the output of {call}")
        c.expect_type(weights, torch.Tensor, f"the weight tensor returned by {call}")
        c.expect_shape(output, (b, lq, d), f"the output of {call}",
                       _output_shape_hint(tuple(output.shape), b, h, lq, lk, d))  # fmt: skip
        c.expect_shape(weights, (b, h, lq, lk), f"the weight tensor returned by {call}",
                       _weights_shape_hint(tuple(weights.shape), b, h, lq, lk))  # fmt: skip
        c.expect_dtype(output, torch.float32, f"the output of {call}",
                       "The module's weights and inputs are float32; keep that dtype.")  # fmt: skip
        c.expect_dtype(weights, torch.float32, f"the weight tensor returned by {call}")
        c.expect_true(
            output.requires_grad,
            f"the output of {call} is cut off from the module's parameters (requires_grad is "
            "False): did you use torch.no_grad(), .detach(), or go through numpy? Training needs "
            "the gradient to flow back to w_q, w_k, w_v and w_o.",
        )

        expected_module = ref.MultiHeadAttention(d, h)
        expected_module.load_state_dict(state)
        with torch.no_grad():
            expected_out, expected_weights = expected_module(query, key, value, mask)

        args = (state, query, key, value, mask, h)
        mistakes_w = _mistake_values(_WEIGHT_MISTAKES, 1, args)
        mistakes_w |= _mistake_values({_MASK_IGNORED: {"mask_mode": "ignored"}}, 1, args)
        what_w = f"the weight tensor returned by {call}"
        _check_weights(c, weights, case, mask, what_w)
        c.expect_close(weights, expected_weights, what_w, rtol=1e-4, atol=1e-5,
                       mistakes=mistakes_w)  # fmt: skip
        mistakes_o = _mistake_values(_OUTPUT_MISTAKES, 0, args)
        hint = ""
        if case.dropout:
            hint = (
                "The module is in eval mode, where dropout must do nothing: use "
                "`self.dropout = nn.Dropout(dropout)` (it follows train()/eval()), or "
                "F.dropout(..., training=self.training)."
            )
        c.expect_close(output, expected_out, f"the output of {call}", rtol=1e-4, atol=1e-5,
                       hint=hint, mistakes=mistakes_o)  # fmt: skip


# ---------------------------------------------------------------------------- registry
LESSON = "05_multi_head_attention"
EXERCISES = (
    Exercise("split_heads", check_split_heads, kind="function", points=1, minutes=10, level=2),
    Exercise("merge_heads", check_merge_heads, kind="function", points=1, minutes=10, level=2),
    Exercise(
        "MultiHeadAttention",
        check_MultiHeadAttention,
        kind="module",
        points=3,
        minutes=30,
        level=3,
        forbidden=(
            "torch.nn.MultiheadAttention",
            "torch.nn.functional.multi_head_attention_forward",
            "torch.nn.functional.scaled_dot_product_attention",
        ),
    ),
)
