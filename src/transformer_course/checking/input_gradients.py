"""A right output whose graph does not reach one of its inputs.

A module can give the right values and still cut an input off from autograd on its way
in: ``memory = memory.detach()`` in a decoder ("it only reads the encoder's output"),
``x.data``, ``torch.no_grad()`` around one sub-layer, or a round trip through NumPy. The
values cannot show it; in a full model whatever produced that input (the encoder, the
embeddings, the layers before) then never learns from the loss
(blind30b-dec-memory-detached). :func:`inputs_without_gradient` calls the module again on
copies of the inputs that require grad and asks, where the call ran
(:func:`~.graph.call_gradients`: in the sandboxed grader, inside its sandbox), for the
gradient of ``Σ output · upstream`` with respect to each; :func:`cut_off_text` says what a
learner reads about one that gets none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from transformer_course.checking.graph import call_gradients

__all__ = [
    "cut_off_text",
    "inputs_without_gradient",
    "parameters_without_gradient",
    "submodules_named",
]


def inputs_without_gradient(
    call: Callable[..., Any],
    module,
    args: Sequence,
    names: dict[int, str],
    right: torch.Tensor,
    upstream: torch.Tensor,
    call_repr: str,
) -> dict[str, str] | None:
    """The inputs among ``names`` (argument position -> name, each a floating-point tensor)
    that get no gradient from ``module(*args)``: name -> "None" or "all zeros". The call is
    made again with those arguments as copies that require grad (the caller's stay as they
    are), through ``call`` (a checker's ``c.call``: the learner's errors are reported as
    such). None when that call does not give ``right`` again (its values, as a tensor that
    requires grad): the checks of the output say what is wrong then."""
    given = list(args)
    for position in names:
        given[position] = given[position].detach().clone().requires_grad_(True)
    got = call(module, *given, call_repr=call_repr)
    if not (
        isinstance(got, torch.Tensor)
        and got.requires_grad
        and got.shape == right.shape
        and torch.allclose(got.detach(), right.detach(), rtol=1e-5, atol=1e-6)
    ):
        return None
    # d Σ output · upstream / d inputs, where the call ran (the grader: its sandbox)
    grads = call(
        call_gradients,
        module,
        given,
        upstream.to(got.dtype),
        call_repr=f"torch.autograd.grad({call_repr}, [{', '.join(names.values())}], "
        "upstream gradient)",
    )
    requiring = [i for i, a in enumerate(given) if isinstance(a, torch.Tensor) and a.requires_grad]
    if not isinstance(grads, (list, tuple)) or len(grads) != len(requiring):
        return None
    by_position = dict(zip(requiring, grads))
    cut = {}
    for position, name in names.items():
        grad = by_position.get(position)
        if grad is None:
            cut[name] = "None"
        elif not bool(grad.abs().sum() > 0):
            cut[name] = "all zeros"
    return cut


def cut_off_text(call_repr: str, name: str, gradient: str, enters: str) -> str:
    """What the learner reads when ``name`` gets no gradient (``gradient``: "None" or "all
    zeros") from the right output of ``call_repr``; ``enters``: where the input goes
    ("the cross-attention's keys and values", "the layers")."""
    return (
        f"The output of {call_repr} is right, but no gradient flows back from it into "
        f"`{name}` (its gradient is {gradient}): {name} enters {enters} cut off from the "
        "graph, by .detach(), .data, torch.no_grad() or a round trip through numpy."
    )


def parameters_without_gradient(
    call: Callable[..., Any], module, args: Sequence, upstream: torch.Tensor, call_repr: str
) -> list[str] | None:
    """The trainable parameters of ``module`` (by name) that get no gradient (None or all
    zeros) from ``Σ module(*args) · upstream``, asked where the call ran; None when the
    answer is not a dict of gradients."""
    found = call(
        call_gradients,
        module,
        list(args),
        upstream,
        "parameters",
        call_repr=f"torch.autograd.grad({call_repr}, parameters, upstream gradient)",
    )
    if not isinstance(found, dict):
        return None
    return [
        name
        for name, grad in found.items()
        if not isinstance(grad, torch.Tensor) or not bool(grad.abs().sum() > 0)
    ]


def submodules_named(names: Sequence[str], depth: int = 2) -> list[str]:
    """The submodules that hold the parameters ``names``, by their first ``depth`` parts
    (``layers.0.self_attn.w_q.weight`` -> ``layers.0``), in order, each once."""
    out: list[str] = []
    for name in names:
        head = ".".join(name.split(".")[:depth])
        if head not in out:
            out.append(head)
    return out
