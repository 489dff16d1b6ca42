"""Tensors of a module's own that its contract does not have: a learned gate or scale on a
residual branch (Flamingo's tanh gate, CaiT's LayerScale, ReZero's alpha), a temperature,
a mixing weight. The state dict shows them as unexpected keys with no submodule (no dot
in the name); the generic key message ("the submodules must be called exactly so") names
no cause for them, since nothing is misnamed: something is added. Said here with each
tensor's shape and value at construction, which is what the learner wrote (blind29b-dl-
tanh-gated-cross-attention, blind28b-el-layer-scale-on-sublayers and blind30b-el-rezero-
residual-weights got only the key list)."""

from __future__ import annotations

from collections.abc import Mapping

import torch

__all__ = ["extra_tensors_note"]


def _value_words(tensor: torch.Tensor) -> str:
    """How a tensor looks at construction: "one number, 0", "8 numbers, all 0.0001",
    "8 numbers" (when they differ)."""
    values = tensor.detach().cpu().double().flatten()
    count = values.numel()
    size = "one number" if count == 1 else f"{count} numbers, shape {tuple(tensor.shape)}"
    if count == 0:
        return "empty"
    if bool((values == values[0]).all()):
        first = float(values[0])
        return f"{size}, {'' if count == 1 else 'all '}{first:g} at construction"
    return size


def extra_tensors_note(built: str, name: str, extra: list[str], state: Mapping) -> str:
    """For unexpected state-dict keys that are all the module's own tensors (no submodule:
    no dot in the key), while no key of the contract is missing: what they are and why
    they must go; "" otherwise. ``state``: the module's state dict as built, read with
    keep_vars=True: only parameters are said here, and no bias (an added term, not a
    factor: the key list and the bias rules say it)."""
    if not extra or any("." in key for key in extra) or any(key not in state for key in extra):
        return ""
    if not all(isinstance(state[key], torch.nn.Parameter) for key in extra):
        return ""  # a buffer (a cached mask, a table) is no gate: the key list says it
    if any("bias" in key.lower() for key in extra):
        return ""
    shown = "; ".join(f"`{key}` ({_value_words(torch.as_tensor(state[key]))})" for key in extra)
    zero = [key for key in extra if not torch.as_tensor(state[key]).detach().any()]
    said = (
        "is 0: a branch multiplied by it"
        if len(zero) == 1
        else "are 0: a branch multiplied by one of them"
    )
    zero_note = (
        f" At construction {', '.join(f'`{key}`' for key in zero)} {said} (or by its tanh) "
        "contributes nothing in a fresh layer."
        if zero
        else ""
    )
    tensors = "tensor" if len(extra) == 1 else "tensors"
    return (
        f"{built} has {len(extra)} extra learned {tensors} of its own that the contract does "
        f"not have (unexpected state-dict keys, besides every key the contract names): "
        f"{shown}. Every key the contract names is there, so nothing is misnamed: "
        f"something is added, such as a learned gate or scale on a residual branch "
        f"(Flamingo's tanh gate, LayerScale's gamma, ReZero's alpha), which changes what "
        f"{name} computes and which the checks' weights, loaded by the contract's names, "
        f"cannot set.{zero_note} Remove it and compute exactly the contract's formula: each "
        "sub-result used as it is, with no factor of your own."
    )
