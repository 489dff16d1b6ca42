"""Randomness in checks: private generators seeded inside each check, and the global
streams (``random``, ``np.random``, ``torch``) saved and put back around it."""

from __future__ import annotations

import random

import numpy as np

__all__ = ["global_random_state", "numpy_rng", "restore_random_state", "torch_generator"]


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
