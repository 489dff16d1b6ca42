"""A layer that runs more often than the contract calls it, with what it received each
time: one projection applied to each branch separately (w2(a) * w2(b) where w2(a * b)
belongs), a layer run twice in a row. Read from the calls recorded by
:func:`checking.hooks.inputs_received`, so any exercise whose module calls named layers a
known number of times can name it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import torch


def _same(a: Any, b: torch.Tensor) -> bool:
    return (
        torch.is_tensor(a)
        and tuple(a.shape) == tuple(b.shape)
        and bool(torch.allclose(a.detach().double(), b.double(), rtol=1e-4, atol=1e-5))
    )


def repeated_calls(
    seen: Iterable[tuple[str, str, tuple, dict]],
    once: Iterable[str],
    known: Mapping[str, torch.Tensor],
) -> str:
    """The first layer of ``once`` (each called once per forward) that ran more than once
    in ``seen`` ((name, role, args, kwargs) per call, in order), with its inputs named from
    ``known`` (a description -> the tensor it must be) where one matches: "`self.w2` runs
    2 times in one forward, on silu(w1(x)) and on w3(x), where it runs once"; "" when
    every layer ran at most once, or anything is odd."""
    try:
        inputs: dict[str, list[Any]] = {}
        for _name, role, args, kwargs in seen:
            first = args[0] if args else next(iter(kwargs.values()), None)
            inputs.setdefault(role, []).append(first)
        for role in once:
            given = inputs.get(role, [])
            if len(given) < 2:
                continue
            named = []
            for value in given:
                match = next((text for text, tensor in known.items() if _same(value, tensor)), None)
                named.append(match or "an input of its own")
            listed = ", ".join(named[:-1]) + f" and on {named[-1]}"
            return (
                f"`self.{role}` runs {len(given)} times in one forward, on {listed}, where it "
                "runs once: a layer applied to each branch separately (or again to its own "
                "result) gives another function than one call on the combined input."
            )
    except (RuntimeError, TypeError, ValueError):  # values from a sandbox: say nothing
        return ""
    return ""
