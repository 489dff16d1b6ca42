"""Lesson 11's shared check machinery: the seeded generators its checks draw from, and
the probe of a module's randomness in train mode."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from transformer_course.checking.generators import seeded_generator


def _generator(seed: int) -> torch.Generator:
    return seeded_generator(seed)


def _plain_generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


_RANDOM_IN_TRAIN = (
    "{built} in train mode (a freshly built module is in train mode, and training runs it "
    "so) gave two different outputs for the same input: it draws random numbers.{told} This "
    "lesson's {name} has no dropout and nothing random (section 6: no dropout in the GPT): "
    "the same input gives the same output on every call."
)


def _same_in_train_mode(c: Any, cls: Any, args: tuple, x: torch.Tensor, name: str) -> None:
    """A freshly built module in train mode, called twice on one input, gives one output:
    the value checks run in eval mode, where a dropout inside does nothing (blind10b: a
    dropout in SwiGLU, nanoGPT's dropouts in the attention, block and GPT, were accepted)."""
    built = f"{name}{args}"
    module = c.call(cls, *args, call_repr=built)
    if not isinstance(module, nn.Module):
        return
    module.train()
    what = f"{built}({'x' if x.is_floating_point() else 'ids'} {tuple(x.shape)})"
    first = c.call(module, x, call_repr=what)
    second = c.call(module, x, call_repr=what)
    if not (isinstance(first, torch.Tensor) and isinstance(second, torch.Tensor)):
        return
    if first.shape != second.shape or torch.equal(first, second):
        c.ok()
        return
    dropouts = [
        sub_name or "the module itself"
        for sub_name, sub in module.named_modules()
        if isinstance(sub, nn.modules.dropout._DropoutNd) and sub.p > 0
    ]
    told = (
        f" It holds a dropout ({', '.join(dropouts)}): remove it."
        if dropouts
        else " (A dropout through F.dropout, or a random draw?)"
    )
    c.fail(_RANDOM_IN_TRAIN.format(built=built, told=told, name=name))


#: a generator passed by position where torch's samplers take it by keyword only
GENERATOR_BY_KEYWORD = (
    lambda exc: isinstance(exc, TypeError) and "Generator" in str(exc),
    "The generator went in by position: torch.randint and torch.multinomial take it by "
    "keyword only (torch.multinomial's third positional argument is replacement). Pass "
    "generator=generator: torch.randint(low, high, size, generator=generator), "
    "torch.multinomial(probs, 1, generator=generator).",
)
