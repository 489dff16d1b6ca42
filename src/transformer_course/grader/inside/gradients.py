"""The gradients a check asks for, taken where the learner's code ran.

Values cross the sandbox's boundary as plain data, without autograd's graph, so a check
that needs a gradient through the learner's code (an embedding row kept out of training
by ``padding_idx``, a loss whose terms were cut from the graph, an in-place change that
makes backward raise) cannot take it on the grader's side. The grader asks for it with
the call instead: the call is made as any other, and then the gradient of
``Σ result · upstream`` is taken here, with respect to the module's trainable parameters
(``wrt="parameters"``, by name) or to the call's tensor arguments that require a gradient
(``wrt="arguments"``, in order), or to both (``"all"``), and sent back as data (``None`` for one the result does
not depend on). An error of the backward pass is the learner's, as it would be in a
notebook. The learner's code runs during the backward pass (its hooks, its autograd
functions) under the same limits. :func:`transformer_course.checking.graph.call_gradients`
is the notebook's side of the same request.
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["requested_gradients"]


def requested_gradients(target: Any, args: list, result: Any, request: dict) -> Any:
    """The gradients ``request`` asks for (``{"wrt": ..., "upstream": ...}``) of ``result``,
    which ``target(*args)`` (or its method) returned: a list for ``wrt="arguments"``, a dict
    by name for ``"parameters"`` (every name of a shared parameter), and both,
    ``{"arguments": [...], "parameters": {...}}``, for ``"all"``."""
    outputs, upstream = _paired(result, request.get("upstream"))
    wrt = request.get("wrt")
    arguments = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    named = []
    if wrt in ("parameters", "all"):
        named = [
            (name, p)
            for name, p in target.named_parameters(remove_duplicate=False)
            if p.requires_grad
        ]
    if wrt == "parameters":
        arguments = []
    inputs = list({id(t): t for t in [*arguments, *(p for _, p in named)]}.values())
    found: dict[int, Any] = {}
    if outputs and inputs:
        gradients = torch.autograd.grad(
            outputs, inputs, upstream, allow_unused=True, retain_graph=bool(named)
        )
        found = {
            id(t): None if g is None else g.detach().clone()
            for t, g in zip(inputs, gradients, strict=True)
        }
        if named and all(found[id(p)] is None for _, p in named):
            found.update(_accumulated(outputs, upstream, [p for _, p in named], args))
    of_arguments = [found.get(id(a)) for a in arguments]
    of_parameters = {name: found.get(id(p)) for name, p in named}
    if wrt == "parameters":
        return of_parameters
    if wrt == "all":
        return {"arguments": of_arguments, "parameters": of_parameters}
    return of_arguments


def _accumulated(outputs: list, upstream: list, parameters: list, args: list) -> dict:
    """The parameters' gradients as ``.backward()`` accumulates them, where
    ``torch.autograd.grad`` found none: reentrant activation checkpointing
    (``torch.utils.checkpoint.checkpoint(..., use_reentrant=True)``) recomputes its forward
    during the backward pass and accumulates into ``.grad`` with a backward of its own, out
    of ``autograd.grad``'s reach, so training (``loss.backward()``) does update those
    weights. Every ``.grad`` touched (the parameters', the arguments') is put back as it
    was. {} when that backward pass raises (nothing more is known)."""
    leaves = list(
        {
            id(t): t
            for t in [*parameters, *(a for a in args if isinstance(a, torch.Tensor))]
            if t.requires_grad and t.is_leaf
        }.values()
    )
    saved = [t.grad for t in leaves]
    try:
        for t in leaves:
            t.grad = None
        torch.autograd.backward(outputs, upstream)
        return {id(p): None if p.grad is None else p.grad.detach().clone() for p in parameters}
    except Exception:  # the gradients autograd.grad found stand
        return {}
    finally:
        for t, grad in zip(leaves, saved, strict=True):
            t.grad = grad


def _paired(result: Any, upstream: Any) -> tuple[list, list]:
    """The result's tensors that carry a graph, each with its upstream gradient (ones where
    none is given). A tuple result pairs with a tuple of upstream gradients (None: left
    out); an upstream gradient whose shape is not its tensor's is a ValueError."""
    if isinstance(result, torch.Tensor):
        results, upstreams = [result], [upstream]
    elif isinstance(result, (tuple, list)) and isinstance(upstream, (tuple, list)):
        if len(result) != len(upstream):
            raise ValueError("the result has another number of parts than the gradients given")
        results, upstreams = list(result), list(upstream)
    else:
        raise ValueError("the result is not a tensor, or not the parts the check expects")
    outputs, grads = [], []
    for value, grad in zip(results, upstreams, strict=True):
        if not isinstance(value, torch.Tensor) or not value.requires_grad:
            continue
        if grad is None and len(results) > 1:
            continue
        grad = torch.ones_like(value) if grad is None else grad.to(value.dtype)
        if grad.shape != value.shape:
            raise ValueError(
                f"an upstream gradient of shape {tuple(grad.shape)} for a result "
                f"of shape {tuple(value.shape)}"
            )
        outputs.append(value)
        grads.append(grad)
    return outputs, grads
