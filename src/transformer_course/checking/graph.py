"""Gradients through the learner's code, asked for with the call.

A gradient check (a backward pass through a module's output, then the gradients of its
input and parameters) needs the result's autograd graph. In the notebook the learner's
code runs here and its result carries that graph; in the sandboxed grader it runs in
another process and its result comes back as values (with ``requires_grad`` and whether it
had a ``grad_fn``), not as a graph. So a check does not take the gradient of a result it
holds: it asks :func:`call_gradients` for the call and the gradients together, which the
grader's stand-in for the learner's function or module answers from its sandbox
(``gradients_of_call``), and the notebook and the grader reach the same verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# one implementation for both sides: the sandbox runs it where the learner's code ran
from transformer_course.grader.inside.gradients import requested_gradients

__all__ = ["call_gradients"]


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
