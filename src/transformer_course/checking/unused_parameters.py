"""Parameters a module holds but its forward never uses: changed in place (and put back),
they leave the result as it was. A result with no gradient path to the parameters is
usually cut off on purpose (torch.no_grad, .detach, numpy), and the check says so; when
changing the parameters does not change the result at all, the parameters are simply
never read (blind21b-ln-functional-without-affine: F.layer_norm without weight= and
bias= was asked whether it used torch.no_grad)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

__all__ = ["parameters_without_effect", "unused_parameters_sentence"]


def _first_tensor(value: Any) -> torch.Tensor | None:
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (tuple, list)) and value and isinstance(value[0], torch.Tensor):
        return value[0]
    return None


def _same(a: torch.Tensor | None, b: torch.Tensor | None) -> bool:
    return (
        a is not None
        and b is not None
        and a.shape == b.shape
        and bool(torch.equal(a.detach(), b.detach()))
    )


def parameters_without_effect(module: Any, call: Callable[[], Any]) -> list[str]:
    """The names of ``module``'s parameters whose change leaves ``call()``'s result exactly
    as it was (each shifted by a different amount per entry through load_state_dict, which
    also reaches a module driven in the grader's sandbox, then restored); [] when the
    module has no parameters, gives another result on each call, raises, or does not take
    the change."""
    if not isinstance(module, nn.Module):
        return []
    unused = []
    try:
        names = [name for name, _ in module.named_parameters()]
        original = {k: v.detach().clone() for k, v in module.state_dict().items()}
        if not names or any(name not in original for name in names):
            return []
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            base = _first_tensor(call())
            if not _same(base, _first_tensor(call())):
                return []  # random from call to call: no comparison means anything
            for name in names:
                value = original[name]
                shift = torch.linspace(0.3, 0.7, value.numel(), dtype=value.dtype)
                shifted = value + shift.view_as(value)
                try:
                    module.load_state_dict({**original, name: shifted})
                    if not torch.equal(module.state_dict()[name].detach(), shifted):
                        return []  # the change did not reach the module
                    changed = _first_tensor(call())
                finally:
                    module.load_state_dict(original)
                if _same(base, changed):
                    unused.append(name)
    except Exception:  # a probe: the usual message stands
        return []
    return unused


def unused_parameters_sentence(module: Any, call: Callable[[], Any]) -> str:
    """When none of ``module``'s parameters has any effect on ``call()``'s result: that, in
    words, with the usual ways it happens; "" otherwise."""
    unused = parameters_without_effect(module, call)
    if not unused or len(unused) != len(list(module.named_parameters())):
        return ""
    shown = [f"self.{name}" for name in unused]
    names = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
    return (
        f"Its parameters have no effect: changing {names} leaves the result exactly as it was, "
        "so forward never uses them (that is why no gradient reaches them). A functional call "
        "that is not given them (F.layer_norm(x, shape, eps=eps) without weight= and bias=, "
        "say) or a formula that leaves them out does this: use them in forward, as the "
        "module's own parameters."
    )
