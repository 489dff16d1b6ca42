"""Whether a result's autograd graph leads back to given tensors.

A gradient check (``.backward()`` through a module's output, then the gradients of its
input and parameters) needs the result's graph. In the notebook the learner's module runs
here and its output carries that graph; in the sandboxed grader it runs in another
process and its output comes back as values (with ``requires_grad`` and whether it had a
``grad_fn``), not as a graph: nothing of it leads back to the check's own tensors. A
gradient check therefore either asks :func:`call_gradients` for the gradients it needs,
which the grader's stand-in for the learner's function or module takes in the sandbox,
where the graph is (``gradients_of_call``), or first asks :func:`graph_reaches` and says
nothing when the answer is no for every tensor the learner's computation could have used,
which an output made by the learner's own code never is unless it was cut from all of them
(and then ``requires_grad`` is off, which the checks name before).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import torch

# one implementation for both sides: the sandbox runs it where the learner's code ran
from transformer_course.grader.inside.gradients import requested_gradients

__all__ = ["call_gradients", "graph_reaches"]


def call_gradients(fn, args: Sequence, upstream: Any = None, wrt: str = "arguments") -> Any:
    """``fn(*args)``, then the gradients of ``Σ result · upstream`` (``upstream``: a tensor
    of the result's shape, ones when None, or a tuple matching a tuple result, None for a
    part left out) with respect to the tensor arguments that require a gradient, in order
    (``wrt="arguments"``), or to ``fn``'s trainable parameters by name (``"parameters"``,
    ``fn`` a module; a shared parameter under each of its names), or both (``"all"``:
    ``{"arguments": [...], "parameters": {...}}``); None for one the result does not depend
    on. Raises what the call or
    the backward pass raised (the RuntimeError of an in-place change, say), and ValueError
    when the result is not the tensor or the parts ``upstream`` expects. Where the grader
    stands in for ``fn``, both are done in its sandbox."""
    if callable(getattr(type(fn), "gradients_of_call", None)):
        return fn.gradients_of_call(tuple(args), upstream, wrt)
    result = fn(*args)
    return requested_gradients(fn, list(args), result, {"wrt": wrt, "upstream": upstream})


def graph_reaches(output: torch.Tensor, tensors: Iterable[torch.Tensor]) -> bool:
    """Whether ``output`` is one of the leaf ``tensors`` or its graph accumulates a
    gradient into one of them."""
    targets = {id(tensor) for tensor in tensors if isinstance(tensor, torch.Tensor)}
    if id(output) in targets:
        return True
    seen: set[int] = set()
    stack = [output.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if id(getattr(node, "variable", None)) in targets:  # an AccumulateGrad leaf
            return True
        stack.extend(child for child, _ in node.next_functions)
    return False
