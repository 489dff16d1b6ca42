"""Which sub-modules a call skips that another call runs, observed with forward hooks: a
layer right when its optional arguments are given and wrong when they are left to None may
put a whole sub-layer under the test meant for the argument alone (blind20b-dl-cross-
attention-only-with-src-mask: the cross-attention under ``if src_mask is not None``). Which
argument's None skips which sub-module is found by leaving out one argument at a time."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch import nn

__all__ = ["called_children", "skipped_by_none"]


def called_children(module: nn.Module, children: Sequence[str], call: Callable[[], Any]) -> set:
    """The names among ``children`` (attributes of ``module``) whose forward runs during
    ``call()`` (no gradients; what ran before an error still counts)."""
    called: set[str] = set()
    handles = []
    for name in children:
        child = getattr(module, name, None)
        if isinstance(child, nn.Module):
            handles.append(
                child.register_forward_pre_hook(lambda *_args, name=name: called.add(name))
            )
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            call()
    except Exception:  # a probe: what ran before the error still counts
        pass
    finally:
        for handle in handles:
            handle.remove()
    return called


def skipped_by_none(
    module: nn.Module,
    children: Sequence[str],
    run: Callable[[Mapping[str, Any]], Any],
    given: Mapping[str, Any],
) -> dict[str, list[str]]:
    """{sub-module: the arguments whose None alone makes ``module`` skip it}: ``run(values)``
    calls the module with ``values`` (argument name -> value); ``given`` holds every
    optional argument's real value, under which each of ``children`` that runs is the
    baseline. Each argument is then set to None on its own; a child that stops running is
    skipped because of it. {} when nothing is skipped (or the module is not an nn.Module)."""
    if not isinstance(module, nn.Module):
        return {}
    baseline = called_children(module, children, lambda: run(given))
    skipped: dict[str, list[str]] = {}
    for argument in given:
        ran = called_children(module, children, lambda a=argument: run({**given, a: None}))
        for child in sorted(baseline - ran):
            skipped.setdefault(child, []).append(argument)
    return skipped
