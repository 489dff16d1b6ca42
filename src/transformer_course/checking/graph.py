"""Gradients through the learner's code, asked for with the call.

A gradient check (a backward pass through a module's output, then the gradients of its
input and parameters) needs the result's autograd graph. In the notebook the learner's
code runs here and its result carries that graph; in the sandboxed grader it runs in
another process and its result comes back as values (with ``requires_grad`` and whether it
had a ``grad_fn``), not as a graph. So a check does not take the gradient of a result it
holds: it asks :func:`call_gradients` for the call and the gradients together, which the
grader's stand-in for the learner's function or module answers from its sandbox
(``gradients_of_call``), and the notebook and the grader reach the same verdict.

:func:`graph_needs_input_grad` is the family "a graph built only when an input requires
grad": a module whose output is cut off from its parameters when it is given plain tensors
(the check's inputs) but reaches them when its inputs require grad. Reentrant activation
checkpointing (``torch.utils.checkpoint.checkpoint(..., use_reentrant=True)``) records
nothing unless one of its tensor inputs requires grad; a forward that tests
``x.requires_grad`` does the same. torch.no_grad(), .detach() or a weight stored as a plain
tensor cut the parameters off whatever the inputs, so the same call made again with inputs
that require grad tells the two apart (blind29b-dec-reentrant-checkpoint-inputs-without-
grad was told about no_grad, .detach and numpy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# one implementation for both sides: the sandbox runs it where the learner's code ran
from transformer_course.grader.inside.gradients import requested_gradients

__all__ = ["INPUT_GRAD_ONLY", "call_gradients", "graph_needs_input_grad"]


def call_gradients(fn, args: Sequence, upstream: Any = None, wrt: str = "arguments") -> Any:
    """``fn(*args)``, then the gradients of ``Σ result · upstream`` (``upstream``: a tensor
    of the result's shape, ones when None, or a tuple matching a tuple result, None for a
    part left out) with respect to the tensor arguments that require a gradient, in order
    (``wrt="arguments"``), or to ``fn``'s trainable parameters by name (``"parameters"``,
    ``fn`` a module; a shared parameter under each of its names), or both (``"all"``:
    ``{"arguments": [...], "parameters": {...}}``); None for one the result does not depend
    on. Raises what the call or the backward pass raised (the RuntimeError of an in-place change, say), and ValueError
    when the result is not the tensor or the parts ``upstream`` expects. Where the grader
    stands in for ``fn``, both are done in its sandbox."""
    if callable(getattr(type(fn), "gradients_of_call", None)):
        return fn.gradients_of_call(tuple(args), upstream, wrt)
    result = fn(*args)
    return requested_gradients(fn, list(args), result, {"wrt": wrt, "upstream": upstream})


#: What a learner reads when :func:`graph_needs_input_grad` holds (after "cut off from the
#: module's parameters (requires_grad is False)").
INPUT_GRAD_ONLY = (
    "Called again on the same inputs made to require grad (.requires_grad_()), your module's "
    "output does reach its parameters: your forward builds its graph only when an input "
    "requires grad. That is what reentrant activation checkpointing does, "
    "torch.utils.checkpoint.checkpoint(..., use_reentrant=True) (the old default), which "
    "records nothing when none of its tensor inputs requires grad (the first layer's input, "
    "or a frozen embedding's output, often does not); a test on `x.requires_grad` (or "
    "torch.set_grad_enabled(x.requires_grad)) in forward does the same. Pass "
    "use_reentrant=False to checkpoint (or call the layers directly, layer(x, ...)): the "
    "weights must get their gradient whether or not the inputs require one."
)


def graph_needs_input_grad(module, args: Sequence, upstream: Any = None) -> bool:
    """Whether ``module(*args)``, made again with its floating-point tensor arguments
    requiring grad (copies: the caller's stay as they are), gives a gradient to some
    parameter of ``module``: asked only when the call with ``args`` as given (no
    argument requiring grad) came back cut off from the parameters, it says that the
    graph depends on the inputs (see the module docstring). ``upstream`` as for
    :func:`call_gradients` (a tuple for a tuple result). False when the call or its
    backward pass raises, or when no argument is a floating-point tensor."""
    import torch

    with_grad = [
        a.detach().clone().requires_grad_(True)
        if isinstance(a, torch.Tensor) and a.is_floating_point()
        else a
        for a in args
    ]
    if not any(isinstance(a, torch.Tensor) and a.requires_grad for a in with_grad):
        return False
    try:
        found = call_gradients(module, with_grad, upstream, "parameters")
    except Exception:  # a probe: the message about the cut-off graph stands
        return False
    return isinstance(found, dict) and any(
        isinstance(g, torch.Tensor) and bool(g.abs().sum() > 0) for g in found.values()
    )
