"""Randomness in checks: private generators seeded inside each check, and the global
streams (``random``, ``np.random``, ``torch``) saved and put back around it."""

from __future__ import annotations

import random

import numpy as np

__all__ = [
    "global_random_state",
    "numpy_rng",
    "random_in_eval",
    "restore_random_state",
    "torch_generator",
]


def numpy_rng(seed: int) -> np.random.Generator:
    """A private numpy generator: checks never touch ``np.random``'s global state."""
    return np.random.default_rng(seed)


def torch_generator(seed: int):
    """A private torch generator: checks never touch ``torch``'s global stream."""
    import torch

    return torch.Generator().manual_seed(seed)


def global_random_state() -> tuple:
    import torch

    return random.getstate(), np.random.get_state(), torch.get_rng_state()  # noqa: NPY002


def restore_random_state(state: tuple) -> None:
    import torch

    random.setstate(state[0])
    np.random.set_state(state[1])  # noqa: NPY002
    torch.set_rng_state(state[2])


def random_in_eval(what: str, first, second) -> str:
    """The message for a module that gave two different outputs for the same input in eval
    mode (``first``, ``second``: its two results), "" when they are equal (or not both
    tensors of one shape). b12b: F.dropout(weights, p) inside forward, whose training
    argument defaults to True, drops in eval mode too."""
    import torch

    if not (
        isinstance(first, torch.Tensor)
        and isinstance(second, torch.Tensor)
        and first.shape == second.shape
    ) or bool(torch.equal(first, second)):
        return ""
    zeros = bool(((first == 0) != (second == 0)).any())
    return (
        f"Two calls of {what} on the same x, in eval mode, gave different results"
        + (" (entries zeroed in one call and not in the other)" if zeros else "")
        + ": something random runs in eval mode. Dropout written with the function, "
        "F.dropout(h, p), is on whatever the mode (its training argument defaults to True): "
        "pass training=self.training, or use an nn.Dropout module, which eval() turns off "
        "(this lesson's model has no dropout at all). Random tensors drawn in forward "
        "(torch.rand, torch.randn) do the same."
    )
