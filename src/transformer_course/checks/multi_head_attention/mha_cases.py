"""``MultiHeadAttention``'s cases: the inputs each case runs (query, key, value, mask), the
state dict the check loads and the hint for wrong state-dict keys, and how a case is
described in a message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from transformer_course.checking import torch_generator
from transformer_course.checking.inputs import randn

_PROJECTIONS = ("w_q", "w_k", "w_v", "w_o")


@dataclass(frozen=True)
class _Case:
    seed: int
    batch: int
    len_q: int
    len_k: int
    d_model: int
    num_heads: int
    kind: str  # "self": query is key is value; "cross": key is value; "general": all differ
    mask: str  # "none", "padding", "causal", "causal+padding", "rows" (some rows fully masked)
    scale: float = 1.0  # input scale: larger means larger logits
    dropout: float = 0.0  # the constructor's dropout
    train: bool = False  # checked in train() mode (only with dropout 0.0 or 1.0: no randomness)


_VISIBLE_MHA = [
    _Case(21, 2, 4, 4, 8, 2, "self", "none"),
    _Case(22, 2, 3, 5, 8, 2, "cross", "padding"),
    _Case(23, 1, 5, 5, 12, 3, "self", "causal", dropout=0.2),
    _Case(24, 2, 4, 3, 8, 4, "general", "rows"),
    _Case(25, 3, 5, 5, 8, 2, "self", "causal+padding"),
    _Case(26, 2, 3, 4, 8, 2, "cross", "padding", dropout=0.0, train=True),
    _Case(27, 2, 3, 4, 8, 2, "cross", "padding", dropout=1.0, train=True),
]
_HIDDEN_MHA = [
    _Case(121, 2, 5, 7, 12, 3, "cross", "none", scale=3.0),
    _Case(122, 2, 4, 4, 16, 2, "cross", "none"),
    _Case(123, 3, 6, 6, 16, 4, "self", "causal+padding"),
    _Case(124, 2, 1, 6, 8, 2, "general", "rows"),
    _Case(125, 2, 3, 5, 12, 4, "cross", "rows", scale=2.0),
    _Case(126, 1, 3, 3, 6, 1, "self", "none"),
    _Case(127, 2, 4, 6, 8, 2, "cross", "padding", dropout=0.3),
    _Case(128, 2, 5, 5, 12, 3, "self", "causal", dropout=1.0, train=True),
    _Case(129, 2, 3, 4, 8, 4, "general", "rows", dropout=0.0, train=True),
]


def _state_shapes(d_model: int) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {}
    for name in _PROJECTIONS:
        shapes[f"{name}.weight"] = (d_model, d_model)
        shapes[f"{name}.bias"] = (d_model,)
    return shapes


def _keys_hint(d_model: int, num_heads: int):
    """Explains a wrong state dict: a fused q/k/v, a ModuleList, no bias, per-head layers."""

    def hint(found: dict[str, tuple[int, ...]]) -> str:
        expected = _state_shapes(d_model)
        if set(found) == set(expected):  # the right names, a wrong shape
            d_head = d_model // num_heads
            narrow = [
                name
                for name in _PROJECTIONS
                if found.get(f"{name}.weight") == (d_head, d_model) and num_heads > 1
            ]
            if narrow:  # round 20: blind15d-mha-projections-to-head-width, told the rule
                return (
                    f"{' and '.join(narrow)} {'project' if len(narrow) > 1 else 'projects'} "
                    f"onto d_model // num_heads = {d_head} features, one head's width, where "
                    f"{'they' if len(narrow) > 1 else 'it'} must give all {num_heads} heads at "
                    f"once: nn.Linear(d_model, d_head) makes the output width d_head, too "
                    f"narrow by a factor of num_heads. The paper's W_i^Q (d_model x d_k) is "
                    f"one head's slice of the projection; the layer holds all of them: "
                    f"nn.Linear(d_model, d_model), d_model = num_heads * d_head, and "
                    f"split_heads cuts its output into the heads."
                )
            reads_one_head = [
                name
                for name in _PROJECTIONS
                if found.get(f"{name}.weight") == (d_model, d_head) and num_heads > 1
            ]
            if reads_one_head:  # blind16d-mha-w-o-head-width: nn.Linear(d_head, d_model)
                names = " and ".join(reads_one_head)
                return (
                    f"{names} {'take' if len(reads_one_head) > 1 else 'takes'} only d_head "
                    f"inputs (in_features = d_model // num_heads = {d_head}), one head's "
                    f"width: nn.Linear(d_head, d_model). "
                    + (
                        f"w_o reads the concatenated heads, num_heads * d_head = {d_model} "
                        "features per position (the paper's W^O is h*d_v x d_model), so it "
                        "raises on the merged heads unless num_heads == 1. "
                        if "w_o" in reads_one_head
                        else ""
                    )
                    + "Every projection reads d_model features: nn.Linear(d_model, d_model)."
                )
            return (
                "Each projection is nn.Linear(d_model, d_model): it computes the queries (or "
                f"keys, values) of all {num_heads} heads at once, d_model = num_heads * d_head, "
                "and split_heads cuts them apart afterwards."
            )
        text = (
            "Create exactly four layers in __init__: self.w_q, self.w_k, self.w_v and self.w_o, "
            "each nn.Linear(d_model, d_model) (with its bias)."
        )
        if any(shape == (3 * d_model, d_model) for shape in found.values()):
            return text + (
                " A single fused nn.Linear(d_model, 3 * d_model) for q, k and v computes the "
                "same thing (nn.MultiheadAttention does that), but the contract here, and the "
                "later lessons, load the weights under these four names."
            )
        if any(re.match(r"\w+\.[0-3]\.weight$", key) for key in found):
            return text + (
                " Your four projections live in a list (an nn.ModuleList, like the Annotated "
                "Transformer's `self.linears = clones(nn.Linear(d_model, d_model), 4)`), so "
                "their keys are numbered. The computation is the same, but this course loads "
                "weights by name: give each layer its own attribute, self.w_q = nn.Linear(...) "
                "and so on."
            )
        if any(key.endswith(".weight") for key in found) and not any(
            key.endswith(".bias") for key in found
        ):
            return text + " Your layers have no bias: keep nn.Linear's default bias=True."
        return text

    return hint


def _inputs(case: _Case):
    """query (batch, len_q, d_model), key and value (batch, len_k, d_model), mask or None."""
    b, lq, lk, d = case.batch, case.len_q, case.len_k, case.d_model
    query = randn((b, lq, d), case.seed, scale=case.scale)
    if case.kind == "self":
        key = value = query
    elif case.kind == "cross":
        key = value = randn((b, lk, d), case.seed + 1, scale=case.scale)
    else:
        key = randn((b, lk, d), case.seed + 1, scale=case.scale)
        value = randn((b, lk, d), case.seed + 2, scale=case.scale)
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


def _kind(case: _Case) -> str:
    if case.kind == "self":
        return "self-attention (query = key = value)"
    if case.kind == "cross":
        lengths = ", len_q != len_k" if case.len_q != case.len_k else ""
        return f"cross-attention (key = value{lengths})"
    return "attention with query, key and value all different"
