"""Float64 functional versions of the encoder-decoder's layers, each with one keyword
("knob") per classic mistake, and the module helpers that the layer checks of lessons
07-09 share (building a learner's module with the contract's keys, state-dict hints,
result checks).

``tests/test_07_encoder.py`` and ``tests/test_08_decoder.py`` prove that these functions,
the reference modules and PyTorch's ``nn.LayerNorm`` / ``nn.TransformerEncoderLayer`` /
``nn.TransformerDecoderLayer`` agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch
import torch.nn.functional as F

from transformer_course.checking.checker import Checker
from transformer_course.checking.modules import build_module, random_state, state_shapes
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.multi_head_attention import merge_heads, split_heads

__all__ = [
    "LAYER_HINTS",
    "as_float64",
    "attention_f",
    "build",
    "describe_mask",
    "dropout_hint",
    "encoder_layer_f",
    "expect_tensor_result",
    "ffn_f",
    "layer_norm_f",
    "mistake_values",
    "residual_block",
    "stack_f",
    "state_hint",
    "sub",
    "uses_final_norm",
    "value_or_none",
    "zero_if",
]


def sub(p: Mapping[str, torch.Tensor], prefix: str) -> dict[str, torch.Tensor]:
    """The entries of a state dict under ``prefix.``, with the prefix removed."""
    start = prefix + "."
    return {key[len(start) :]: value for key, value in p.items() if key.startswith(start)}


def as_float64(state: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    return {key: value.double() for key, value in state.items()}


def describe_mask(mask: torch.Tensor | None, kind: str = "") -> str:
    if mask is None:
        return "None"
    return f"bool {tuple(mask.shape)}" + (f" ({kind})" if kind else "")


def mistake_values(
    compute: Callable[..., torch.Tensor], table: Mapping[str, Mapping[str, Any]]
) -> dict[str, Callable[[], torch.Tensor | None]]:
    """{message: zero-argument callable giving what that mistake computes, or None when
    the mistake cannot happen with these shapes}."""

    return {
        message: (lambda knobs=knobs: value_or_none(lambda: compute(**knobs)))
        for message, knobs in table.items()
    }


def value_or_none(compute: Callable[[], torch.Tensor | None]) -> torch.Tensor | None:
    """What a mistake computes, or None when it cannot happen with these shapes."""
    try:
        return compute()
    except (RuntimeError, IndexError, ValueError):
        return None


def expect_tensor_result(
    c: Checker, got: Any, shape: tuple, what: str, *, shape_hint: str = ""
) -> None:
    """Type, shape, floating dtype and a gradient path, before any value is compared."""
    c.expect_type(
        got, torch.Tensor, what, "forward should return one tensor (return x at the end)."
    )
    c.expect_shape(got, shape, what, shape_hint)
    c.expect_floating(got, what, preferred=torch.float32)
    c.expect_true(
        got.requires_grad,
        f"{what} is cut off from the module's parameters (requires_grad is False). Did you "
        "use torch.no_grad(), .detach(), or go through numpy, or store a weight as a plain "
        "tensor or buffer instead of an nn.Parameter? Training needs the gradient to reach "
        "every weight.",
    )


_TUPLE_HINT = (
    "MultiHeadAttention (lesson 05) returns a pair, (output, weights): take the output, "
    "`self.self_attn(q, k, v, mask)[0]`."
)
#: hints for errors a learner's layer or stack raises (on top of the generic ones)
LAYER_HINTS = [
    (
        lambda exc: "tuple" in str(exc) and ("Tensor" in str(exc) or "'tuple'" in str(exc)),
        _TUPLE_HINT,
    ),
    (
        "cannot assign 'list' as child module",
        "A Python list cannot replace a submodule, and a plain list attribute does not register "
        "its modules at all: use nn.ModuleList([...]).",
    ),
]


def dropout_hint(case_dropout: float, mode: str) -> str:
    if mode == "eval" and case_dropout > 0:
        return (
            f"The module was built with dropout={case_dropout} and switched to eval(), where "
            "dropout must do nothing: use nn.Dropout modules (they follow train()/eval()), or "
            "F.dropout(..., training=self.training)."
        )
    return ""


def state_hint(found: Mapping[str, tuple], expected: Mapping[str, tuple]) -> str:
    """Explain a state dict whose keys or shapes differ from the contract's."""
    missing = set(expected) - set(found)
    hints = []
    if any(key.startswith("layers.") for key in expected) and not any(
        key.startswith("layers.") for key in found
    ):
        hints.append(
            "No `layers.*` keys at all: a plain Python list does not register its modules "
            "with PyTorch (their weights are invisible to state_dict, .parameters() and the "
            "optimizer). Use nn.ModuleList([...]) and name it `self.layers`."
        )
    layer_numbers = {int(key.split(".")[1]) for key in expected if key.startswith("layers.")}
    found_numbers = {
        int(key.split(".")[1])
        for key in found
        if key.startswith("layers.") and key.split(".")[1].isdigit()
    }
    if found_numbers and found_numbers != layer_numbers:
        hints.append(
            f"Your stack has {len(found_numbers)} layer{'s' if len(found_numbers) != 1 else ''}, the contract {len(layer_numbers)}: "
            "create num_layers layers (range(num_layers))."
        )
    if "norm.weight" in found and "norm.weight" not in expected:
        hints.append(
            "It has a final LayerNorm `norm` that this configuration must not have: with "
            "final_norm=None the stack gets one only when norm_first=True (pre-LN), and with "
            "final_norm=False never. Set self.norm = None otherwise."
        )
    if "norm.weight" in missing:
        hints.append(
            "It lacks the final LayerNorm `norm`: with final_norm=True, or with final_norm=None "
            "and norm_first=True (pre-LN), the stack ends with self.norm = LayerNorm(d_model)."
        )
    if any(".in_proj_weight" in key for key in found):
        hints.append(
            "nn.MultiheadAttention fuses q, k, v into `in_proj_weight`; use lesson 05's "
            "MultiHeadAttention (imported in the setup cell), whose projections are w_q, w_k, "
            "w_v, w_o."
        )
    if any(key.split(".")[-2] in {"linear1", "linear2"} for key in found if "." in key):
        hints.append(
            "`linear1`/`linear2` are nn.TransformerEncoderLayer's names; here the feed-forward "
            "block is `feed_forward` = PositionwiseFeedForward(...), with w_1 and w_2 inside."
        )
    if any(key.split(".")[0] in {"a_2", "b_2", "gamma", "beta"} for key in found):
        hints.append(
            "The gain and bias are called `weight` and `bias` here (nn.LayerNorm's names; the "
            "Annotated Transformer calls them a_2 and b_2)."
        )
    numbered = sorted(key for key in found if any(part.isdigit() for part in key.split(".")))
    if numbered and not any(key.startswith("layers.") for key in found):
        hints.append(
            f"Keys such as {numbered[0]!r} come from nn.Sequential, which names its parts by "
            "position. The maths is the same, but the weights are loaded by name: keep the two "
            "nn.Linear as attributes `w_1` and `w_2`."
        )
    for key, shape in expected.items():
        if key in found and found[key] != tuple(shape) and key.endswith("w_1.weight"):
            d_ff, d_model = shape
            if found[key] == (4 * d_model, d_model):
                hints.append(
                    f"w_1 is {4 * d_model} wide, 4 * d_model, but d_ff={d_ff} was asked for: the "
                    "hidden width is the d_ff argument (the paper's 2048 = 4 * 512 is a choice "
                    "passed in, not a rule)."
                )
            else:
                hints.append("w_1 is nn.Linear(d_model, d_ff) and w_2 nn.Linear(d_ff, d_model).")
    return " ".join(dict.fromkeys(hints))


def build(
    c: Checker, cls, *args, name: str, reference: torch.nn.Module, seed: int, mode: str, **kw
):
    """Build the learner's module with the reference's state-dict keys and the check's
    deterministic weights; returns (module, constructor text, float32 state)."""
    expected = state_shapes(reference)
    state = random_state(expected, seed)
    module, built = build_module(
        c,
        cls,
        *args,
        name=name,
        expected_shapes=expected,
        keys_hint=lambda found: state_hint(found, expected),
        state=state,
        mode=mode,
        **kw,
    )
    return module, built, state


# ============================================================ float64 functional versions
def layer_norm_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    eps: float = 1e-5,
    *,
    unbiased: bool = False,
    eps_at: str = "inside",
    over: str = "features",
    gain: bool = True,
    shift: bool = True,
    swap: bool = False,
) -> torch.Tensor:
    """LayerNorm in float64: ``over`` "features" (right), "sequence" (dim -2), "batch" (every
    axis but the features, BatchNorm's statistics), "sequence_and_features" (dims -2, -1),
    "everything"; ``eps_at`` "inside" (right), "outside" (std + eps), "none"."""
    x = x.double()
    dims = {
        "features": (-1,),
        "sequence": (-2,),
        "batch": tuple(range(x.dim() - 1)),
        "sequence_and_features": (-2, -1),
        "everything": tuple(range(x.dim())),
        "axis_2": (2,),  # dim=2 hard-coded: right for (batch, len, d_model) only
    }[over]
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, keepdim=True, correction=1 if unbiased else 0)
    if eps_at == "inside":
        y = (x - mean) / torch.sqrt(var + eps)
    elif eps_at == "outside":
        y = (x - mean) / (torch.sqrt(var) + eps)
    else:
        y = (x - mean) / torch.sqrt(var)
    weight, bias = p["weight"].double(), p["bias"].double()
    if swap:
        weight, bias = bias, weight
    if gain:
        y = y * weight
    if shift:
        y = y + bias
    return y


def zero_if(drop: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    """What nn.Dropout(p=1.0) does in train mode (``drop=True``), or nothing."""
    return (lambda t: torch.zeros_like(t)) if drop else (lambda t: t)


def ffn_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    *,
    drop: bool = False,
    activation: str = "relu",
    drop_at: str = "hidden",
) -> torch.Tensor:
    """w_2(dropout(relu(w_1(x)))) in float64. ``drop``: every dropout zeroes (p=1, train);
    ``activation`` "relu", "none", "gelu", "relu_twice"; ``drop_at`` "hidden", "output",
    "input", "nowhere"."""
    zero = zero_if(drop)
    x = x.double()
    if drop_at == "input":
        x = zero(x)
    h = x @ p["w_1.weight"].double().T + p["w_1.bias"].double()  # (..., d_ff)
    if activation in {"relu", "relu_twice"}:
        h = torch.relu(h)
    elif activation == "gelu":
        h = F.gelu(h)
    if drop_at == "hidden":
        h = zero(h)
    y = h @ p["w_2.weight"].double().T + p["w_2.bias"].double()  # (..., d_model)
    if activation == "relu_twice":
        y = torch.relu(y)
    if drop_at == "output":
        y = zero(y)
    return y


def attention_f(
    p: Mapping[str, torch.Tensor],
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor | None,
    num_heads: int,
    *,
    drop: bool = False,
) -> torch.Tensor:
    """Lesson 05's multi-head attention in float64 (output only); ``drop``: the attention
    weights are dropped (p=1, train), so only w_o's bias is left."""

    def project(name: str, t: torch.Tensor) -> torch.Tensor:
        return t.double() @ p[f"{name}.weight"].double().T + p[f"{name}.bias"].double()

    q = split_heads(project("w_q", query), num_heads)  # (batch, num_heads, len_q, d_head)
    k = split_heads(project("w_k", key), num_heads)  # (batch, num_heads, len_k, d_head)
    v = split_heads(project("w_v", value), num_heads)
    heads, _ = scaled_dot_product_attention(q, k, v, mask)  # (batch, num_heads, len_q, d_head)
    heads = zero_if(drop)(heads)
    return project("w_o", merge_heads(heads))  # (batch, len_q, d_model)


def residual_block(
    x: torch.Tensor,
    sublayer: Callable[[torch.Tensor], torch.Tensor],
    norm: Callable[[torch.Tensor], torch.Tensor],
    *,
    norm_first: bool,
    drop: bool = False,
    residual: str = "normal",
    dropout_at: str = "output",
) -> torch.Tensor:
    """One sub-layer with its residual connection and LayerNorm.

    Post-LN: norm(x + dropout(sublayer(x))); pre-LN: x + dropout(sublayer(norm(x))).
    ``residual``: "normal", "none", "after_norm" (post-LN: x + norm(sublayer(x))),
    "from_normed" (pre-LN: norm(x) + sublayer(norm(x))). ``dropout_at``: "output" (right),
    "missing", "after_norm", "on_sum" (post-LN: dropout(x + sublayer(x)) before the norm).
    """
    zero = zero_if(drop)
    on_output = zero if dropout_at == "output" else (lambda t: t)
    if norm_first:
        h = norm(x)
        if dropout_at == "after_norm":
            h = zero(h)
        y = on_output(sublayer(h))
        if residual == "none":
            return y
        return (h if residual == "from_normed" else x) + y
    y = on_output(sublayer(x))
    if residual == "after_norm":
        return x + norm(y)
    total = y if residual == "none" else x + y
    if dropout_at == "on_sum":
        total = zero(total)
    out = norm(total)
    return zero(out) if dropout_at == "after_norm" else out


def encoder_layer_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    mask: torch.Tensor | None,
    num_heads: int,
    *,
    norm_first: bool,
    drop: bool = False,
    residual: str = "normal",
    dropout_at: str = "output",
    norms: tuple[str, str] = ("norm1", "norm2"),
    order: tuple[str, str] = ("attn", "ffn"),
    mask_mode: str = "given",
) -> torch.Tensor:
    """One encoder layer in float64, with one knob per classic mistake."""
    m = {"given": mask, "none": None, "inverted": None if mask is None else ~mask}[mask_mode]
    sublayers = {
        "attn": lambda h: attention_f(sub(p, "self_attn"), h, h, h, m, num_heads, drop=drop),
        "ffn": lambda h: ffn_f(h, sub(p, "feed_forward"), drop=drop),
    }
    x = x.double()
    for part, norm_name in zip(order, norms, strict=True):
        norm_p = sub(p, norm_name)
        x = residual_block(
            x,
            sublayers[part],
            lambda t, norm_p=norm_p: layer_norm_f(t, norm_p),
            norm_first=norm_first,
            drop=drop,
            residual=residual,
            dropout_at=dropout_at,
        )
    return x


def stack_f(
    layer: Callable[[torch.Tensor, dict], torch.Tensor],
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    num_layers: int,
    *,
    final: bool,
    order: str = "forward",
    norm_each: bool = False,
) -> torch.Tensor:
    """A stack: ``layer(x, layer_state)`` for each of the num_layers layers, then the final
    norm if ``final``. ``order``: "forward", "reversed", "first_only" (layer 0 applied
    num_layers times), "first_once" (a return inside the loop). ``norm_each``: the final
    norm applied after every layer."""
    indices = {
        "forward": list(range(num_layers)),
        "reversed": list(reversed(range(num_layers))),
        "first_only": [0] * num_layers,
        "first_once": [0],
    }[order]
    x = x.double()
    for index in indices:
        x = layer(x, sub(p, f"layers.{index}"))
        if norm_each and final:
            x = layer_norm_f(x, sub(p, "norm"))
    if final and not norm_each:
        x = layer_norm_f(x, sub(p, "norm"))
    return x


def uses_final_norm(norm_first: bool, final_norm: bool | None) -> bool:
    """The contract: final_norm=None means 'the same as norm_first'."""
    return norm_first if final_norm is None else final_norm
