"""Lesson 10's shared check machinery: plain numbers, and the deterministic weights of
the small reference models that train_step's and beam_search's checks run.
"""

from __future__ import annotations

import numbers

import numpy as np
import torch

from transformer_course.checking import Checker, short, torch_generator
from transformer_course.checking.wrapped import wrapped_number_note


def is_tensor(value) -> bool:
    return isinstance(value, torch.Tensor)


def plain_float(c: Checker, value, what: str, hint: str) -> float:
    """A plain real number (a Python or numpy float or int, not a bool, tensor or array)."""
    if is_tensor(value) or isinstance(value, np.ndarray):
        c.fail(f"{what} returned a {type(value).__name__} ({short(value)}). {hint}")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        extra = (
            " Did you forget the `return` statement?"
            if value is None
            else wrapped_number_note(value)
        )
        c.fail(f"{what} should return a float, but it returned {short(value)}.{extra}")
    c.ok()
    return float(value)


def deterministic_state(model: torch.nn.Module, seed: int) -> dict[str, torch.Tensor]:
    """N(0, 1/fan_in) weights for every parameter (LayerNorm gains near 1); buffers (the
    positional-encoding table) as they are."""
    gen = torch_generator(seed)
    state = {}
    parameters = dict(model.named_parameters())
    for name, tensor in model.state_dict().items():
        if name not in parameters:
            state[name] = tensor.clone()
            continue
        values = torch.randn(tensor.shape, generator=gen, dtype=torch.float64)
        if tensor.dim() >= 2:
            values = values * tensor.shape[-1] ** -0.5 * 2.0
        elif name.endswith("bias"):
            values = values * 0.1
        else:
            values = 1.0 + values * 0.1
        state[name] = values.to(tensor.dtype)
    return state
