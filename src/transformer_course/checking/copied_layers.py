"""Stacked layers that start from the same weights: a stack filled with copies of one
layer (``copy.deepcopy`` of a block built once, the annotated Transformer's ``clones``
without the re-initialisation that follows it there) or with one layer registered
several times (``[block] * n``, ``nn.ModuleList([block for _ in range(n)])``).

Both compute the right function with the check's weights loaded, so a check that loads
its own state never sees them; a freshly built module's ``state_dict`` does: every
randomly initialised tensor of layer 0 (one that is not constant) equals the same
tensor of every other layer. Storage tells the two apart: copies have their own tensors
(they will drift apart in training, but every layer starts as the others), one layer
registered n times has one set of parameters (the stack is one layer applied n times,
and stays so). :func:`copied_layers_note` reads a state dict and says which
(blind31c-gpt-blocks-deep-copied-from-one was accepted).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import torch

__all__ = ["copied_layers_note"]


def copied_layers_note(state: Mapping[str, torch.Tensor], prefix: str, built: str) -> str:
    """The message when the layers ``{prefix}.0``, ``{prefix}.1``, ... of a freshly built
    module's ``state`` (two or more) hold equal randomly initialised tensors, each key
    of layer 0 against the same key of every other layer; "" when they differ, when
    fewer than two layers or no random tensor are there. ``built`` shows the call."""
    pattern = re.compile(rf"^{re.escape(prefix)}\.(\d+)\.(.+)$")
    layers: dict[int, dict[str, torch.Tensor]] = {}
    for key, value in state.items():
        if isinstance(value, torch.Tensor) and (match := pattern.match(key)):
            layers.setdefault(int(match[1]), {})[match[2]] = value
    if len(layers) < 2 or 0 not in layers:
        return ""
    first = layers[0]
    random = [
        name
        for name, value in first.items()
        if value.is_floating_point()
        and value.numel() > 1
        and bool((value != value.flatten()[0]).any())
    ]
    if not random:
        return ""
    for tensors in layers.values():
        for name in random:
            other = tensors.get(name)
            if other is None or other.shape != first[name].shape:
                return ""
            if not torch.equal(other, first[name]):
                return ""
    shared = all(
        layers[index][name].data_ptr() == first[name].data_ptr()
        for index in layers
        for name in random
    )
    count = len(layers)
    name = random[0]
    if shared:
        return (
            f"A newly built {built} holds one block {count} times: {prefix}.0 to "
            f"{prefix}.{count - 1} share their parameters ({prefix}.0.{name} and "
            f"{prefix}.1.{name} are one tensor), so the stack is one block applied {count} "
            f"times, trained as one. Build a new block for each place, [Block(...) for _ in "
            "range(num_layers)], not [block] * num_layers."
        )
    return (
        f"A newly built {built} has {count} blocks with parameters of their own, but all "
        f"start from the same random weights ({prefix}.0.{name} equals {prefix}.1.{name}, and "
        f"so does every randomly initialised tensor of every block): the blocks are copies of "
        "one block (copy.deepcopy of a block built once, as the annotated Transformer's "
        "clones do before it re-initialises them), not freshly built ones. The contract asks "
        "for num_layers new blocks, each drawing its own initial weights: "
        "[Block(...) for _ in range(num_layers)], one constructor call per block."
    )
