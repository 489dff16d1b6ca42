"""Position-wise feed-forward blocks in float64, from their formulas: the paper's ReLU
network (lesson 07) and SwiGLU (lesson 11), each with one knob per classic mistake.
Shapes: x (..., d_model) -> (..., d_model), through a hidden (..., d_ff)."""

from __future__ import annotations

from collections.abc import Mapping

import torch
import torch.nn.functional as F

from transformer_course.checking.oracles.state import linear, zero_if

__all__ = ["OTHER_ACTIVATIONS", "ffn_f", "swiglu_f"]

#: the hidden non-linearity replaced by another one (one family: "not the ReLU"), by the
#: name ffn_f's ``activation`` takes: the ReLU's clamp on the wrong side (clamp(max=0)),
#: the ReLU of the negated input, and the library's other element-wise activations
OTHER_ACTIVATIONS = {
    "clamp_max": lambda h: h.clamp(max=0),
    "relu_of_negative": lambda h: torch.relu(-h),
    "abs": torch.abs,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "silu": F.silu,
    "leaky_relu": F.leaky_relu,
    "relu6": F.relu6,
    "clamp_0_1": lambda h: h.clamp(0, 1),
    "elu": F.elu,
    "softplus": F.softplus,
}


def ffn_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    *,
    drop: bool = False,
    activation: str = "relu",
    drop_at: str = "hidden",
    after: str = "none",
    residual: bool = False,
) -> torch.Tensor:
    """w_2(dropout(relu(w_1(x)))) in float64, ``p`` holding w_1 (d_ff, d_model) and w_2
    (d_model, d_ff) with biases. ``drop``: every dropout zeroes (p=1, train);
    ``activation`` "relu", "none", "gelu", "relu_twice"; ``drop_at`` "hidden" (right),
    "output", "input", "nowhere"; ``after`` "none" (right), "relu", "gelu": an activation
    on w_2's output; ``residual``: x added to the result (the layer's residual written
    inside the block)."""
    zero = zero_if(drop)
    x = x.double()
    if drop_at == "input":
        x = zero(x)
    h = linear(x, p, "w_1")  # (..., d_ff)
    if activation in {"relu", "relu_twice"}:
        h = torch.relu(h)
    elif activation == "gelu":
        h = F.gelu(h)
    elif activation in OTHER_ACTIVATIONS:
        h = OTHER_ACTIVATIONS[activation](h)
    if drop_at == "hidden":
        h = zero(h)
    y = linear(h, p, "w_2")  # (..., d_model)
    if activation == "relu_twice" or after == "relu":
        y = torch.relu(y)
    elif after == "gelu":
        y = F.gelu(y)
    if drop_at == "output":
        y = zero(y)
    return y + x if residual else y


#: the slopes of z * sigmoid(beta z) other than the SiLU's 1 that a gate may be written
#: with: 1.702 is CLIP's QuickGELU (a sigmoid approximation of GELU)
SWISH_BETAS = (0.5, 1.5, 1.702, 2.0)


def _swish(beta: float):
    return lambda z: z * torch.sigmoid(beta * z)


def swiglu_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    *,
    activation: str = "silu",
    swap: bool = False,
    gate: bool = True,
    after: bool = False,
) -> torch.Tensor:
    """w2(silu(w1 x) * w3 x) in float64, ``p`` holding the bias-free w1, w3 (d_ff, d_model)
    and w2 (d_model, d_ff). ``activation`` "silu" (right), "relu", "gelu", "sigmoid",
    "identity", "gelu_tanh", "swish_<beta>" (beta among :data:`SWISH_BETAS`), or
    the name of any other function of torch.nn.functional ("selu", "elu", "mish", ...);
    ``swap``: the SiLU on w3 instead of w1; ``gate`` False: w2(silu(w1 x)); ``after``:
    silu(w1 x * w3 x)."""
    act = {
        "silu": F.silu,
        "relu": torch.relu,
        "gelu": F.gelu,
        "sigmoid": torch.sigmoid,
        "identity": lambda z: z,  # no activation at all: the bilinear GLU
        "gelu_tanh": lambda z: F.gelu(z, approximate="tanh"),
        # the Swish family z * sigmoid(beta z): beta 1 is the SiLU, 1.702 CLIP's QuickGELU
        **{f"swish_{beta:g}": _swish(beta) for beta in SWISH_BETAS},
    }.get(activation) or getattr(F, activation)  # b12b: any other of F by name (F.selu, ...)
    h1 = linear(x, p, "w1")  # (..., d_ff)
    h3 = linear(x, p, "w3")
    if swap:
        h1, h3 = h3, h1
    if after:
        h = act(h1 * h3)
    else:
        h = act(h1) * h3 if gate else act(h1)
    return linear(h, p, "w2")  # (..., d_model)
