"""One step too many after a layer's right output: an input added (a residual connection
inside the layer), a LayerNorm over the features, or both (a whole sub-layer block).

A layer that returns its sub-result passed through the next step of the model computes
exactly ``step(right output)``: the candidates below are those values, for a check to try
as known mistakes (and to name only when they agree with the learner's layer on every input
it runs, as every known mistake)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["extra_activation_outputs", "extra_norm_outputs", "extra_output_steps"]


def _norm(x: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(x, x.shape[-1:])


#: where the residual sum and the norm belong, by default (the encoder-decoder lessons)
_AROUND = "the layer that uses it (lesson 07's encoder and decoder layers)"


def extra_output_steps(
    output: torch.Tensor,
    inputs: Mapping[str, torch.Tensor],
    *,
    layer: str,
    around: str = _AROUND,
) -> dict[str, torch.Tensor]:
    """{message: value} for ``output`` (the right one) with a step too many: each input of
    ``output``'s shape added, a LayerNorm (no learned scale) after it, and both. ``around``
    says where the residual sum belongs instead (the layer that uses ``layer``)."""
    found = {
        f"Yours is the right output normalised over its features (a LayerNorm after it): "
        f"{layer} ends with its output projection; the norm belongs to the layer around it "
        "(lesson 07's encoder and decoder layers).": _norm(output)
    }
    for name, value in inputs.items():
        if not isinstance(value, torch.Tensor) or value.shape != output.shape:
            continue
        value = value.to(output.dtype)
        found[
            f"Yours is the right output plus `{name}`: a residual connection inside {layer}. "
            f"{layer} returns its own result alone; the residual sum x + sublayer(x) belongs to "
            f"{around}."
        ] = output + value
        found[
            f"Yours is LayerNorm(`{name}` + the right output): a whole sub-layer block "
            f"(residual and norm) inside {layer}. {layer} returns its own result alone; the "
            f"residual sum and the norm belong to {around}."
        ] = _norm(output + value)
    return found


def extra_norm_outputs(
    module: nn.Module, extra_keys: Iterable[str], output: torch.Tensor, *, layer: str, right: str
) -> dict[str, torch.Tensor]:
    """{message: value} for a module that holds, besides its contract's parameters, a
    normalisation submodule (the owner of some ``extra_keys``): ``output`` (the right one,
    described by ``right``) passed through that submodule, with its own parameters, as a
    norm added after the layer's result gives. Empty when no extra key belongs to a norm or
    the norm cannot be applied (a plain tensor, a wrong size)."""
    found = {}
    for owner in sorted({key.rsplit(".", 1)[0] for key in extra_keys if "." in key}):
        try:
            sub = module.get_submodule(owner)
        except AttributeError:
            continue
        if not isinstance(sub, nn.LayerNorm | nn.GroupNorm) and type(sub).__name__ != "RMSNorm":
            continue
        try:
            with torch.no_grad():
                value = sub(output.detach().to(next(sub.parameters()).dtype))
        except Exception:  # the norm does not fit the output: not this mistake
            continue
        found[
            f"Yours is {right} passed through your extra `{owner}` ({type(sub).__name__}): a "
            f"norm after the result normalises each vector (mean 0, variance 1), which also "
            f"undoes any scale before it. {layer} has no norm: remove `{owner}` and return "
            f"{right} itself."
        ] = value
    return found


#: the activations a layer's output may be passed through by mistake: {how it is written: f}
_OUTPUT_ACTIVATIONS = {
    "F.silu": F.silu,
    "F.relu": F.relu,
    "F.gelu": F.gelu,
    "torch.tanh": torch.tanh,
    "torch.sigmoid": torch.sigmoid,
}


def extra_activation_outputs(
    outputs: Mapping[str, torch.Tensor], *, layer: str, last: str
) -> dict[str, torch.Tensor]:
    """{message: value}: each of ``outputs`` ({what it is: the value before the step}, the
    first being the right output) passed through a common activation after ``layer``'s
    last step ``last`` (round 34: an activation after SwiGLU's w2, on its right output or
    moved there from the gate, got "differs" or half of it)."""
    found = {}
    for index, (what, value) in enumerate(outputs.items()):
        for name, activation in _OUTPUT_ACTIVATIONS.items():
            moved = "" if index == 0 else f"; and {what}"
            found[
                f"Your result is passed through {name} after `{last}`: {layer} ends with "
                f"{last}, with no activation after it{moved}. Return what `{last}` gives as it "
                "is."
            ] = activation(value)
    return found
