"""What a module's submodules receive during one call, recorded with forward pre-hooks:
the checks' way to see inside a learner's composite module without reading its code."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection
from typing import Any

import torch
from torch import nn

__all__ = ["inputs_received"]


def inputs_received(
    module: nn.Module, roles: Collection[str], call: Callable[[], Any]
) -> list[tuple[str, str, tuple, dict]]:
    """Run ``call()`` (which calls ``module``) once, without gradients and whatever it
    raises, and return every call made to a submodule whose last name is in ``roles``
    (``self_attn``, ``layers.0``'s ``0``...), in order: (full name, last name, positional
    arguments, keyword arguments). The hooks are removed afterwards."""
    seen: list[tuple[str, str, tuple, dict]] = []
    handles = []
    for name, child in module.named_modules():
        role = name.rsplit(".", 1)[-1]
        if role not in roles:
            continue

        def pre(_mod, args, kwargs, name=name, role=role):
            seen.append((name, role, args, kwargs))

        handles.append(child.register_forward_pre_hook(pre, with_kwargs=True))
    try:
        with torch.no_grad(), contextlib.suppress(Exception):
            call()
    finally:
        for handle in handles:
            handle.remove()
    return seen
