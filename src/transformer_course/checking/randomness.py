"""Randomness in checks: private generators seeded inside each check, and the global
streams (``random``, ``np.random``, ``torch``) saved and put back around it."""

from __future__ import annotations

import random

import numpy as np

__all__ = [
    "global_random_state",
    "numpy_rng",
    "random_in_eval",
    "reseeded_global_generator",
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


def reseeded_global_generator(run, what: str) -> str:
    """The message for code that seeds torch's global generator itself (a
    torch.manual_seed(...) in forward, "for reproducible dropout"): run twice from two
    different global states, it leaves the generator in the same state both times (and
    gives the same result), so what it draws never depends on the state it was given
    (round 20, blind19b-mha-seeds-rng-in-forward: uncaught, every mask was a valid
    dropout mask). ``run()`` makes one call of the learner's code and returns its result;
    "" when the states after differ, or a run raises. The caller's state is restored."""
    import contextlib
    import io

    import torch

    states, results = [], []
    with torch.random.fork_rng(devices=[]):
        for seed in (1234, 98765):
            torch.manual_seed(seed)
            try:
                with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
                    results.append(run())
            except Exception:  # a probe: no evidence
                return ""
            states.append(torch.get_rng_state())
    if not torch.equal(states[0], states[1]):
        return ""
    first, second = (r[0] if isinstance(r, tuple | list) and r else r for r in results)
    same = (
        isinstance(first, torch.Tensor)
        and isinstance(second, torch.Tensor)
        and first.shape == second.shape
        and bool(torch.equal(first, second))
    )
    return (
        f"Called twice, from two different states of torch's global random generator, "
        f"{what} leaves the generator in the same state both times"
        + (" and gives the same result both times" if same else "")
        + ": your code seeds the global generator itself (a torch.manual_seed(...) in "
        "forward, or in a function it calls). So in training every call drops the same "
        "weights (dropout is no longer random from one step to the next), and each call "
        "resets the random stream of everything else in the program (the data shuffling, "
        "the other layers' dropout). Seed once, outside the model, at the start of a run; "
        "forward must only draw from the generator."
    )
