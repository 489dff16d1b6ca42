"""Whether a result's autograd graph leads back to given tensors.

A gradient check (``.backward()`` through a module's output, then the gradients of its
input and parameters) needs the result's graph. In the notebook the learner's module runs
here and its output carries that graph; in the sandboxed grader it runs in another
process and its output comes back as values (with ``requires_grad`` and whether it had a
``grad_fn``), not as a graph: nothing of it leads back to the check's own tensors. A
gradient check therefore first asks :func:`graph_reaches`, and says nothing when the
answer is no for every tensor the learner's computation could have used, which an
output made by the learner's own code never is unless it was cut from all of them (and
then ``requires_grad`` is off, which the checks name before).
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

__all__ = ["graph_reaches"]


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
