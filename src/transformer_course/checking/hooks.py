"""What a module's submodules receive during one call, recorded with forward pre-hooks:
the checks' way to see inside a learner's composite module without reading its code."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Collection, Mapping
from typing import Any

import torch
from torch import nn

__all__ = ["argument_received", "inputs_received", "last_input_hint", "skipped_layers_hint"]


def argument_received(
    obj: Any, method: str, position: int, call: Callable[[], Any], keyword: str | None = None
) -> list | None:
    """Run ``call()`` once, without gradients and its printing silenced, with
    ``obj.method`` wrapped on this instance only, and return the positional argument
    ``position`` (or the argument passed as ``keyword``) of every call made to it, in order
    (a decoding loop's ``model.decode`` and the source ids it is handed); None when
    ``call()`` raised. The class's method is
    restored afterwards."""
    received: list = []
    original = getattr(obj, method)

    def recording(*args, **kwargs):
        if len(args) > position:
            received.append(args[position])
        elif keyword is not None and keyword in kwargs:
            received.append(kwargs[keyword])
        return original(*args, **kwargs)

    setattr(obj, method, recording)  # an attribute of this instance only
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            call()
    except Exception:  # only an explanation: nothing to say
        return None
    finally:
        delattr(obj, method)  # the class's method again
    return received


def inputs_received(
    module: nn.Module, roles: Collection[str], call: Callable[[], Any]
) -> list[tuple[str, str, tuple, dict]]:
    """Run ``call()`` (which calls ``module``) once, without gradients and whatever it
    raises, and return every call made to a submodule whose last name is in ``roles``
    (``self_attn``, ``layers.0``'s ``0``...), in order: (full name, last name, positional
    arguments, keyword arguments). The hooks are removed afterwards."""
    seen: list[tuple[str, str, tuple, dict]] = []
    handles = []
    for name, child in module.named_modules():
        role = name.rsplit(".", 1)[-1]
        if role not in roles:
            continue

        def pre(_mod, args, kwargs, name=name, role=role):
            seen.append((name, role, args, kwargs))

        handles.append(child.register_forward_pre_hook(pre, with_kwargs=True))
    try:
        with torch.no_grad(), contextlib.suppress(Exception):
            call()
    finally:
        for handle in handles:
            handle.remove()
    return seen


def _first_arguments(module: nn.Module, call: Callable[[], Any]) -> list[tuple[str, Any, bool]]:
    """(name, first positional argument, whether its forward returned) for every
    submodule call during ``call()``, in order, whatever the call raises."""
    seen: list[list] = []
    handles = []
    for name, child in module.named_modules():
        if not name:
            continue

        def pre(_mod, args, name=name):
            seen.append([name, args[0] if args else None, False])

        def post(_mod, _args, _out, name=name):
            for entry in reversed(seen):
                if entry[0] == name and not entry[2]:
                    entry[2] = True
                    break

        handles += [child.register_forward_pre_hook(pre), child.register_forward_hook(post)]
    try:
        with torch.no_grad(), contextlib.suppress(Exception):
            call()
    finally:
        for handle in handles:
            handle.remove()
    return [(name, first, returned) for name, first, returned in seen]


def _same_tensor(a: Any, b: torch.Tensor) -> bool:
    return isinstance(a, torch.Tensor) and (
        a is b or (a.shape == b.shape and bool(torch.equal(a.detach(), b.detach())))
    )


def last_input_hint(
    module: nn.Module,
    call: Callable[[], Any],
    inputs: Mapping[str, torch.Tensor],
    reference: nn.Module,
    reference_call: Callable[[], Any],
) -> tuple[Callable[[BaseException], bool], Callable[[BaseException], str]]:
    """A hint (for Checker.call) for an error raised inside a composite module: when the
    submodule that raised (called, never returned) received one of the call's own
    ``inputs`` (label -> tensor) as its first argument, and the reference's submodule of
    that name never receives it, that is said: a layer handed the module's input where
    another tensor belongs (blind12n-ffn-w2-reads-input, w_2(dropout(x)), was told the
    matmul's sizes alone). Both calls run again under hooks, only once the error has
    happened."""

    def text(_exc: BaseException) -> str:
        raised = [entry for entry in _first_arguments(module, call) if not entry[2]]
        if not raised:
            return ""
        name, first, _ = raised[-1]  # the innermost call that never returned
        label = next((lab for lab, value in inputs.items() if _same_tensor(first, value)), None)
        if label is None:
            return ""
        rightly = {
            ref_name
            for ref_name, ref_first, _ in _first_arguments(reference, reference_call)
            if any(_same_tensor(ref_first, value) for value in inputs.values())
        }
        if name in rightly or name not in dict(reference.named_modules()):
            return ""  # its input is right there, or the reference has no such layer
        return (
            f"`self.{name}` receives {label} itself (the layer that raised): it gets the "
            f"module's own input, where the result of the steps before it belongs. Check "
            f"which tensor `self.{name}` is given."
        )

    return (lambda exc: isinstance(exc, RuntimeError)), text


def skipped_layers_hint(
    module: nn.Module,
    call: Callable[[], Any],
    reference: nn.Module,
    reference_call: Callable[[], Any],
) -> tuple[Callable[[BaseException], bool], Callable[[BaseException], str]]:
    """A hint (for Checker.call) for an error raised inside a composite module: the layers
    with parameters that the reference runs before the submodule that raised, and that the
    learner's forward never called before it raised, are named (blind28c-swiglu-input-
    halves-no-projection: w2 fed halves of x, w1 and w3 built and never used, was told the
    matmul's sizes alone). Both calls run again under hooks, only once the error has
    happened; any failure of the probe gives no hint."""

    def text(_exc: BaseException) -> str:
        try:
            learner = _first_arguments(module, call)
            raised = [entry for entry in learner if not entry[2]]
            if not raised:
                return ""
            name, first, _ = raised[-1]  # the innermost call that never returned
            order = [ref_name for ref_name, _, _ in _first_arguments(reference, reference_call)]
            weighted = {
                layer_name
                for layer_name, layer in reference.named_modules()
                if any(True for _ in layer.parameters(recurse=False))
            }
            if name not in order:
                return ""
            ran = {entry[0] for entry in learner}
            before = order[: order.index(name)]
            skipped = [
                layer
                for layer in dict.fromkeys(before)
                if layer in weighted
                and layer not in ran
                and not any(layer.startswith(f"{done}.") for done in ran)
            ]
        except Exception:  # a probe: no answer
            return ""
        if not skipped:
            return ""
        listed = " and ".join(skipped)
        shape = f" (of shape {tuple(first.shape)})" if isinstance(first, torch.Tensor) else ""
        are = "are" if len(skipped) > 1 else "is"
        return (
            f"Your forward never uses {listed} before `self.{name}` raised: {listed} "
            f"{are} built in __init__ but never called, so what `self.{name}` received{shape} is not "
            f"made from their outputs, as it should be. Compute the steps before "
            f"`self.{name}` with {listed}."
        )

    return (lambda exc: isinstance(exc, RuntimeError)), text
