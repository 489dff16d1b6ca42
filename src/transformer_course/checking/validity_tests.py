"""A learner's own test of its arguments that refuses some invalid arguments and lets
others of the same kind through: ``if d_model // num_heads == 0: raise ValueError``
refuses (2, 4) and builds (10, 4), although 4 divides neither. A code with no test at all
refuses none and is left alone (the contract may not require one); a code whose test
refuses some invalid inputs has a test, and the inputs it lets through show what the
test computes instead, named from a list of candidate conditions when exactly the
refusals the learner's code made fit one of them (conditions that agree on every
argument tried are named together).

Only the constructor or the function is called, each probe on its own small sizes."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["refusals", "uneven_refusals"]


def refusals(build: Callable[..., Any], arguments: Sequence[tuple]) -> list[bool] | None:
    """For each tuple of positional arguments, whether ``build(*arguments)`` raised a
    ValueError or an AssertionError (a refusal); None when it raised anything else (a
    probe: no evidence)."""
    refused = []
    for args in arguments:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                build(*args)
        except (ValueError, AssertionError):
            refused.append(True)
        except Exception:  # another failure: the probe tells nothing
            return None
        else:
            refused.append(False)
    return refused


def uneven_refusals(
    build: Callable[..., Any],
    invalid: Sequence[tuple],
    candidates: Sequence[tuple[str, Callable[..., bool]]],
) -> tuple[list[tuple], list[tuple], list[str]] | None:
    """When ``build`` refuses some of the ``invalid`` argument tuples and accepts others:
    (the refused, the accepted, the names of the ``candidates`` conditions that are true
    on exactly the refused ones); None when it refuses all of them or none."""
    refused = refusals(build, invalid)
    if refused is None or all(refused) or not any(refused):
        return None
    named = [
        name
        for name, condition in candidates
        if all(bool(condition(*args)) == was for args, was in zip(invalid, refused))
    ]
    return (
        [args for args, was in zip(invalid, refused) if was],
        [args for args, was in zip(invalid, refused) if not was],
        named,
    )
