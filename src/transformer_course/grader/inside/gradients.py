"""The gradient a check asks for, taken where the learner's module lives.

Values cross the sandbox's boundary as plain data, without autograd's graph, so a check
that needs the gradient of a module's output with respect to its parameters (an embedding
row kept out of training by ``padding_idx`` or a detached copy) cannot take it on the
grader's side. The grader asks for it instead: the module's call is made as any other, and
then the gradient of the output's sum with respect to each parameter is taken here and
sent back as data (``None`` for a parameter the output does not depend on). The learner's
code runs during the backward pass (its hooks, its autograd functions) exactly as it would
under the check in a notebook, under the same limits.
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["output_sum_gradients"]


def output_sum_gradients(module: Any, output: Any) -> dict[str, Any]:
    """``{name: d output.sum() / d parameter}`` for ``module``'s trainable parameters; an
    empty dict when the output is not a tensor that carries a graph."""
    if not isinstance(output, torch.Tensor) or not output.requires_grad:
        return {}
    named = [(name, p) for name, p in module.named_parameters() if p.requires_grad]
    if not named:
        return {}
    gradients = torch.autograd.grad(output.float().sum(), [p for _, p in named], allow_unused=True)
    return {
        name: None if gradient is None else gradient.detach().clone()
        for (name, _), gradient in zip(named, gradients, strict=True)
    }
