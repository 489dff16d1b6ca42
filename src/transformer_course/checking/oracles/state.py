"""State-dict plumbing the oracles share: a sub-module's entries, float64 copies, a linear
layer read from a state dict, and what dropout with p=1 does in train mode."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch

__all__ = ["as_float64", "linear", "sub", "zero_if"]


def sub(p: Mapping[str, torch.Tensor], prefix: str) -> dict[str, torch.Tensor]:
    """The entries of a state dict under ``prefix.``, with the prefix removed."""
    start = prefix + "."
    return {key[len(start) :]: value for key, value in p.items() if key.startswith(start)}


def as_float64(state: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A float64 copy of a state dict."""
    return {key: value.double() for key, value in state.items()}


def linear(x: torch.Tensor, p: Mapping[str, torch.Tensor], name: str) -> torch.Tensor:
    """nn.Linear ``name`` of the state dict ``p`` applied to x in float64: x Wᵀ (+ b when
    the state dict has ``name.bias``). x: (..., d_in) -> (..., d_out)."""
    y = x.double() @ p[f"{name}.weight"].double().T
    bias = p.get(f"{name}.bias")
    return y if bias is None else y + bias.double()


def zero_if(drop: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    """What nn.Dropout(p=1.0) does in train mode (``drop=True``: zeroes), or nothing."""
    return (lambda t: torch.zeros_like(t)) if drop else (lambda t: t)
