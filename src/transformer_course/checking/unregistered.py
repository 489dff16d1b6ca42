"""Dropout modules that a learner's module calls but does not register: kept in a plain
Python list, dict or tuple (``self.dropouts = [nn.Dropout(p), nn.Dropout(p)]``), or built
inside ``forward``. ``.eval()`` walks the registered sub-modules only, so such a dropout
stays in training mode and keeps dropping in eval mode: the same symptom as a functional
``F.dropout(h, p)`` left at its default ``training=True``, with another cause and another
fix. The two are told apart by observation only: a global forward pre-hook (for the
duration of the learner's call) sees every module called, registered or not, and the
registered ones are what ``named_modules()`` lists (blind13g-el-dropouts-in-plain-list
was told to pass training=self.training to F.dropout).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from transformer_course.checking import Checker
from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.layers import expect_deterministic_in_eval

__all__ = ["expect_deterministic_registered", "unregistered_dropouts", "unregistered_layers"]


def _dropouts_called(
    module: nn.Module, call: Callable[[], Any], kind: type | tuple = nn.modules.dropout._DropoutNd
) -> list[tuple[nn.Module, str]]:
    """Run ``call()`` once (no gradients, whatever it raises) and return every module of
    ``kind`` (dropouts by default) called during it that is not a registered sub-module of
    ``module``, each with the name of the innermost registered module that was running
    when it was called ("" for ``module`` itself)."""
    names = {id(sub): name for name, sub in module.named_modules(remove_duplicate=False)}
    running: list[nn.Module] = []
    found: list[tuple[nn.Module, str]] = []

    def pre(mod: nn.Module, _args: Any) -> None:
        if isinstance(mod, kind) and id(mod) not in names:
            owner = next((names[id(m)] for m in reversed(running) if id(m) in names), "")
            found.append((mod, owner))
        running.append(mod)

    def post(_mod: nn.Module, _args: Any, _out: Any) -> None:
        if running:
            running.pop()

    handles = [
        nn.modules.module.register_module_forward_pre_hook(pre),
        nn.modules.module.register_module_forward_hook(post),
    ]
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            call()
    except Exception:  # what was seen before the error still counts
        pass
    finally:
        for handle in handles:
            handle.remove()
    return found


def unregistered_dropouts(module: nn.Module, call: Callable[[], Any]) -> str:
    """For an eval-mode ``module`` whose results vary: why, when a dropout it calls is not
    one of its registered sub-modules and is still in training mode (kept in a plain
    list or dict, or built anew in every call, which two calls tell apart); "" when every
    dropout called is registered (then a functional dropout is the candidate)."""
    first = _dropouts_called(module, call)
    active = [(mod, owner) for mod, owner in first if mod.training and mod.p > 0]
    if not active:
        return ""
    second = _dropouts_called(module, call)  # `first` keeps its modules alive: ids differ
    kept = {id(mod) for mod, _ in first} & {id(mod) for mod, _ in second}
    owners = sorted({owner for _, owner in active})
    where = " and ".join(f"`self.{o}`" if o else f"your {type(module).__name__}" for o in owners)
    count = len({id(mod) for mod, _ in active})
    one = count == 1
    said = (
        f"{where} calls {'an nn.Dropout' if one else f'{count} nn.Dropout modules'} that "
        f"{'is' if one else 'are'} not among its registered sub-modules (named_modules() "
        f"does not list {'it' if one else 'them'}), so .eval() never reached "
        f"{'it' if one else 'them'}: still in training mode, "
        f"{'it drops' if one else 'they drop'} in eval mode too."
    )
    if kept:
        return (
            f"{said} Modules kept in a plain Python list, dict or tuple are not registered "
            "(nn.Module registers only what is assigned to an attribute directly, or held in "
            "nn.ModuleList / nn.ModuleDict): use nn.ModuleList([nn.Dropout(dropout), ...]), "
            "or give each dropout its own attribute (self.dropout1 = nn.Dropout(dropout))."
        )
    return (
        f"{said} It is a new module at every call: an nn.Dropout built inside forward "
        "(nn.Dropout(p)(h)) starts in training mode and no .eval() ever reaches it. Build it "
        "once in __init__, self.dropout = nn.Dropout(dropout), and call self.dropout(h)."
    )


def unregistered_layers(module: nn.Module, call: Callable[[], Any]) -> str:
    """For a module whose state dict lacks its layers: the layers with weights (nn.Linear,
    nn.Embedding, nn.LayerNorm, ...) that ``call()`` (one forward) runs but that are not
    registered sub-modules, built anew in every call (round 20, blind12k-mha-linears-
    built-in-forward: four nn.Linear made in forward, told the keys were missing) or kept
    in a plain list (the same objects in two calls); "" when every layer called is
    registered (or none is called)."""
    weighted = (nn.Linear, nn.Embedding, nn.LayerNorm, nn.modules.conv._ConvNd)
    with torch.random.fork_rng(devices=[]):  # layers built in forward draw from it
        first = _dropouts_called(module, call, weighted)
        second = _dropouts_called(module, call, weighted)  # `first` keeps its modules alive
    if not first:
        return ""
    kept = {id(mod) for mod, _ in first} & {id(mod) for mod, _ in second}
    kinds = sorted({type(mod).__name__ for mod, _ in first})
    count = len({id(mod) for mod, _ in first})
    said = (
        f"Your forward runs {count} {' / '.join(f'nn.{k}' for k in kinds)} "
        f"layer{'s' if count > 1 else ''} that {'are' if count > 1 else 'is'} not among the "
        "module's registered sub-modules: the state dict and .parameters() do not list them, "
        "so the optimiser never trains them and saved weights cannot be loaded into them."
    )
    if kept:
        return (
            f"{said} They are kept in a plain Python list, dict or tuple, which nn.Module does "
            "not register: assign each layer to its own attribute in __init__ (self.w_q = "
            "nn.Linear(...)), or hold them in nn.ModuleList / nn.ModuleDict."
        )
    registered_now = {id(sub): name for name, sub in module.named_modules() if name}
    assigned = sorted({registered_now[id(mod)] for mod, _ in second if id(mod) in registered_now})
    if assigned:  # new at every call, and attributes once forward has run
        shown = ", ".join(f"`self.{name}`" for name in assigned)
        return (
            f"{said} They are built inside forward and assigned there ({shown} = nn.Linear(...) "
            "in forward, not in __init__): a freshly built module has no such layers, so "
            "no parameters before its first call, and every call replaces them with new "
            "random ones, throwing away weights that were loaded or trained. Create the "
            "layers once, in __init__, and only call them in forward."
        )
    return (
        f"{said} They are new objects at every call: built inside forward, as local "
        "variables, so each call draws fresh random weights and two calls on the same input "
        "disagree. Create the layers once, in __init__, as attributes (self.w_q = "
        "nn.Linear(...)), and call them in forward."
    )


def expect_deterministic_registered(
    c: Checker, module: Any, args: tuple, got: torch.Tensor, call: str, case_dropout: float
) -> None:
    """:func:`~transformer_course.checking.layers.expect_deterministic_in_eval`, whose
    failure names an unregistered dropout (a plain list, a dropout built in forward) when
    the module calls one, instead of the functional dropout's training flag."""
    try:
        expect_deterministic_in_eval(c, module, args, got, call, case_dropout)
    except CheckFailure:
        if isinstance(module, nn.Module) and (
            why := unregistered_dropouts(module, lambda: module(*args))
        ):
            c.fail(
                f"{call} gave two different results for the same input in eval mode (the "
                f"module was built with dropout={case_dropout}, then switched to eval()): {why}"
            )
        raise
