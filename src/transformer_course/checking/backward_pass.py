"""A forward that is right and a backward pass that fails: a tensor autograd saved was
overwritten in place.

nn.Dropout(p, inplace=True) (or nn.ReLU(inplace=True), F.dropout(..., inplace=True), a
method ending in _) overwrites its input. When that input is a tensor the step before
kept for its own backward (a ReLU's output, which ReLU's gradient reads), the forward
values are right in every mode, and the first ``.backward()`` in training raises
RuntimeError: a check that compares values alone accepts it
(blind19e-ffn-dropout-inplace). :func:`backward_problem` runs one backward pass through
a module's output and, when it raises that error, says which step's output was
overwritten (PyTorch's text names it: "output 0 of Relu") and which of the module's
submodules were built to work in place.

The backward pass runs where the call ran (:func:`~.graph.call_gradients`): in the
sandboxed grader, inside its sandbox, so that the grader says what the notebook says.
"""

from __future__ import annotations

import contextlib
import io
import re

import torch
from torch import nn

from transformer_course.checking.graph import call_gradients

__all__ = ["backward_problem", "in_place_submodules"]

_MODIFIED = "modified by an inplace operation"
_SAVED_BY = re.compile(r"which is output \d+ of (\w+?)(?:Backward\d*)?, is at version")


def in_place_submodules(module: nn.Module) -> list[str]:
    """``self.<name> = nn.<Class>(..., inplace=True)`` for every submodule built to
    overwrite its input (PyTorch's layers keep the flag as ``inplace``)."""
    found = []
    for name, sub in module.named_modules():
        if name and getattr(sub, "inplace", False) is True:
            rate = f"{sub.p}, " if isinstance(getattr(sub, "p", None), float) else ""
            found.append(f"`self.{name}` is nn.{type(sub).__name__}({rate}inplace=True)")
    return found


def backward_problem(module: nn.Module, args: tuple, call_repr: str) -> str:
    """The diagnosis when ``module(*args)`` (whose forward values were right) gives an
    output whose backward pass raises because a saved tensor was overwritten in place; ""
    when the backward runs, when the output carries no graph to the module's parameters,
    or on any other error. The backward pass runs where the call ran
    (:func:`~.graph.call_gradients`: in the sandboxed grader, there)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.enable_grad():
            call_gradients(module, args, None, "parameters")
    except RuntimeError as error:
        text = str(error)
        if _MODIFIED not in text:
            return ""
    except Exception:  # the learner's code: any other error is not this probe's to explain
        return ""
    else:
        return ""
    saved = _SAVED_BY.search(text)
    step = f"the output of {saved.group(1)}" if saved else "a tensor"
    said = (
        f"Your forward passed the checks of its values, but a backward pass through "
        f"{call_repr} raises "
        f"RuntimeError ({text.split(':')[0].strip()}): {step}, which its backward needs, "
        "was overwritten in place afterwards. Training calls backward after every forward, "
        "so this module cannot be trained."
    )
    culprits = in_place_submodules(module)
    if culprits:
        return (
            f"{said} {'; '.join(culprits)}: built with inplace=True, it writes its result "
            "over its input, here that saved tensor. Build it without inplace (the default, "
            "False)."
        )
    return (
        f"{said} An in-place operation overwrites it: a method ending in _ (relu_, "
        "masked_fill_, mul_), x += ... or x *= ... on it, or F.dropout(..., inplace=True). "
        "Use the out-of-place form, which returns a new tensor."
    )
