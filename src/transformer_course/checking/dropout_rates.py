"""Which of a module's dropouts run at another rate than the one the module was given, and
why: read off the nn.Dropout modules it holds (their ``p``), and confirmed on its outputs by
running it again with those rates set to the argument. A rate of 0.5 with no sub-module to
blame is nn.Dropout()'s default (the rate left out); a sub-module whose dropouts all hold
its constructor's default was built without the dropout argument; any other rate is a
fixed one written in place of the argument."""

from __future__ import annotations

import contextlib
import inspect
import io
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import torch
from torch import nn

__all__ = ["confirmed_wrong_rates", "wrong_dropouts", "wrong_rates_sentence"]

#: nn.Dropout's own default rate, taken when nn.Dropout() is built with no argument
_TORCH_DEFAULT = 0.5


def wrong_dropouts(module: Any, rate: float) -> list[tuple[str, nn.Module]]:
    """(name, module) of every dropout module inside ``module`` whose rate is not
    ``rate``, in registration order; [] for anything that is not an nn.Module."""
    if not isinstance(module, nn.Module):
        return []
    return [
        (name, sub)
        for name, sub in module.named_modules()
        if isinstance(sub, nn.modules.dropout._DropoutNd) and abs(float(sub.p) - rate) > 1e-9
    ]


@contextlib.contextmanager
def _rates_set(dropouts: Sequence[tuple[str, nn.Module]], rate: float) -> Iterator[None]:
    """Every one of ``dropouts`` at ``rate`` for the duration, then back as it was."""
    kept = [sub.p for _, sub in dropouts]
    try:
        for _, sub in dropouts:
            sub.p = rate
        yield
    finally:
        for (_, sub), p in zip(dropouts, kept, strict=True):
            sub.p = p


def confirmed_wrong_rates(
    module: Any, rate: float, right_when: Callable[[], bool], within: str = ""
) -> list[tuple[str, nn.Module]]:
    """The dropouts of ``module`` (those under its sub-module ``within`` when given) at
    another rate than ``rate``, when setting them to it makes ``right_when()`` (a probe of
    the module's outputs) true: those rates explain what the check saw; [] when there are
    none, or the probe still fails or raises with them set (another cause, or more than
    this one)."""
    wrong = [
        (name, sub)
        for name, sub in wrong_dropouts(module, rate)
        if not within or name.startswith(f"{within}.")
    ]
    if not wrong:
        return []
    try:
        with _rates_set(wrong, rate), torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            fixed = bool(right_when())
    except Exception:  # a probe: no evidence
        return []
    return wrong if fixed else []


def _constructor_default(sub: nn.Module) -> float | None:
    """The default of the ``dropout`` parameter of ``sub``'s constructor, if it has one."""
    try:
        parameter = inspect.signature(type(sub).__init__).parameters.get("dropout")
    except (TypeError, ValueError):
        return None
    if parameter is None or not isinstance(parameter.default, int | float):
        return None
    return float(parameter.default)


def _builder(module: nn.Module, name: str, wrong_names: set[str]) -> str | None:
    """The outermost sub-module above dropout ``name`` that takes a ``dropout`` argument
    and all of whose dropouts are wrong: the one built without the argument (or with a
    fixed rate); None when the dropout is the module's own."""
    parts = name.split(".")
    for length in range(1, len(parts)):
        prefix = ".".join(parts[:length])
        sub = module.get_submodule(prefix)
        if _constructor_default(sub) is None:
            continue
        inside = [
            f"{prefix}.{inner}"
            for inner, d in sub.named_modules()
            if inner and isinstance(d, nn.modules.dropout._DropoutNd)
        ]
        if inside and all(inner in wrong_names for inner in inside):
            return prefix
    return None


def _attribute(name: str) -> str:
    """A module path as the learner writes it: ``layers.0.dropout`` -> ``self.layers[0].dropout``."""
    return "self." + re.sub(r"\.(\d+)", r"[\1]", name)


def _listed(items: Sequence[str], limit: int = 4) -> str:
    shown = [f"`{item}`" for item in items[:limit]]
    if len(items) > limit:
        shown.append(f"{len(items) - limit} more")
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def wrong_rates_sentence(
    module: nn.Module, wrong: Sequence[tuple[str, nn.Module]], rate: float, owner: str
) -> str:
    """What ``wrong`` (from :func:`confirmed_wrong_rates`) says, for a learner: which
    sub-modules or dropouts hold which rate, the likely cause of each, and what to write.
    ``owner`` names the module in the sentence ("the layer", "the encoder")."""
    wrong_names = {name for name, _ in wrong}
    builders: dict[str, float] = {}
    own: dict[float, list[str]] = {}
    for name, sub in wrong:
        builder = _builder(module, name, wrong_names)
        if builder is not None:
            builders.setdefault(builder, float(sub.p))
        else:
            own.setdefault(float(sub.p), []).append(_attribute(name))
    sentences = []
    by_class: dict[tuple[str, float, bool], list[str]] = {}
    for prefix, p in builders.items():
        sub = module.get_submodule(prefix)
        is_default = _constructor_default(sub) == p
        by_class.setdefault((type(sub).__name__, p, is_default), []).append(_attribute(prefix))
    for (class_name, p, is_default), prefixes in by_class.items():
        how = (
            "without the dropout argument (it is not passed on), so every dropout inside "
            f"holds the default rate, {p}"
            if is_default
            else f"with the fixed rate {p} in place of the dropout argument"
            + (
                " (or its dropouts were built as nn.Dropout(), with the rate left out: "
                "PyTorch's default is 0.5)"
                if p == _TORCH_DEFAULT
                else ""
            )
        )
        verb = "was" if len(prefixes) == 1 else "were"
        sentences.append(f"{_listed(prefixes)} ({class_name}) {verb} built {how}")
    for p, names in own.items():
        verb = "is" if len(names) == 1 else "are"
        if p == _TORCH_DEFAULT:
            sentences.append(
                f"{_listed(names)} {verb} nn.Dropout(p=0.5), PyTorch's default rate: built as "
                "nn.Dropout() with the rate left out, so the dropout argument is ignored"
            )
        else:
            sentences.append(
                f"{_listed(names)} {verb} nn.Dropout(p={p}): built with a fixed rate in place "
                "of the dropout argument"
            )
    said = "; ".join(sentences)
    return (
        f"{owner[0].upper()}{owner[1:]} was given dropout={rate}, but {said}. Set to "
        f"{rate}, those dropouts make yours behave as it should here, so that is the cause: "
        "build every dropout from the argument, nn.Dropout(dropout), and pass dropout on to "
        "every sub-module you build."
    )
