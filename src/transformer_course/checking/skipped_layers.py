"""Whole layers of a stack skipped in train mode, observed with forward hooks.

The family: a stack's loop that leaves layers out while training, LayerDrop (fairseq's
``if self.training and random() < p: continue``, p the dropout rate or a rate of its own),
a ``continue`` or ``break`` under ``self.training``, a loop over a random subset. Eval
mode and dropout 0 hide all of them; with a high rate every layer may be skipped and the
stack returns its input. :func:`layers_skipped_in_training` runs the call again with a
pre-hook on each entry of the module's ``nn.ModuleList`` children, once in the module's
own (train) mode and once in eval mode, and names the entries that ran in eval mode only.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

__all__ = ["layers_skipped_in_training"]


def _calls(module: nn.Module, call: Callable[[], Any]) -> dict[str, int] | None:
    """How many times each entry of each ``nn.ModuleList`` child ran during ``call()``
    ({"layers.0": 1, ...}); None when there is no such entry or ``call()`` raises."""
    counts: dict[str, int] = {}
    handles = []
    for list_name, child in module.named_children():
        if not isinstance(child, nn.ModuleList):
            continue
        for index, entry in enumerate(child):
            name = f"{list_name}.{index}"
            counts[name] = 0

            def count(*_args, name=name):
                counts[name] += 1

            handles.append(entry.register_forward_pre_hook(count))
    if not counts:
        return None
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            call()
    except Exception:
        return None
    finally:
        for handle in handles:
            handle.remove()
    return counts


def layers_skipped_in_training(module: Any, call: Callable[[], Any]) -> str:
    """A sentence naming the layers that ``call()`` skips in train mode and runs in eval
    mode, or "" (the module in eval mode, no layer list, a layer skipped in both modes,
    or the learner's code raising). The module's mode is restored."""
    if not isinstance(module, nn.Module) or not module.training:
        return ""
    trained = _calls(module, call)
    if trained is None:
        return ""
    try:
        module.eval()
        evaluated = _calls(module, call)
    finally:
        module.train()
    if evaluated is None or any(count == 0 for count in evaluated.values()):
        return ""
    skipped = [name for name, count in trained.items() if count == 0]
    if not skipped:
        return ""
    listed = ", ".join(f"`{name}`" for name in skipped)
    every = len(skipped) == len(trained)
    return (
        f"In train mode your stack skips whole layers: {listed} never ran in this call "
        f"({'none' if every else f'{len(trained) - len(skipped)} of {len(trained)}'} of its "
        f"layers ran), while in eval mode every layer runs. A `continue` under self.training "
        f"skips them: LayerDrop (skipping each layer at random with some probability, such "
        f"as the dropout rate, while training) or a condition of its own. This stack has no "
        f"LayerDrop: every layer runs in both modes, for layer in self.layers: x = layer(x, "
        f"...), and dropout acts inside the layers."
    )
