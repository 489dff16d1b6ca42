"""Inputs that put an edit found on one wrong result to the test.

A check usually stops at the first wrong result, so the edit the search finds often rests on
that one result, and several mistakes can give it (the message then says so, and may be
wrong). Here the wrong call's floating-point arguments are drawn again (same shapes, dtypes
and ``requires_grad``; integers, booleans and everything else kept), the learner's code is
called on them as the check called it, and each edit is kept only when it gives the
learner's result on these inputs too: an edit that disagrees is refuted, not named, and
every new input on which the learner's result is wrong adds to the evidence.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from transformer_course.checking.deviations.search import (
    _FAILED,
    Raised,
    Recorded,
    TooLargeToFreeze,
    Variant,
    _bounded_and_quiet,
    _built_module,
    _instance,
    _run,
    _Timeout,
    frozen,
    same,
)
from transformer_course.checking.randomness import global_random_state, restore_random_state

__all__ = ["confirm", "evidence", "probe_calls"]

#: how many inputs are drawn again, and how long the learner's code may run on each
_PROBES = 2
_LEARNER_LIMIT_S = 1.0


def _redrawn(value: Any, generator: Any, rng: np.random.Generator) -> tuple[Any, bool]:
    """``value`` with its floating-point tensors and arrays drawn again, and whether
    anything was."""
    import torch

    if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel() > 0:
        finite = value.detach()[torch.isfinite(value.detach())]
        new = torch.randn(value.shape, generator=generator, dtype=torch.float64)
        # keep the entries that are not finite (-inf scores of a mask, say) where they are
        new = torch.where(torch.isfinite(value.detach()), new.to(value.dtype), value.detach())
        if finite.numel() and bool((finite >= 0).all()):  # a non-negative input stays so
            new = new.abs()
        return new.requires_grad_(value.requires_grad), True
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size > 0:
        new = rng.normal(size=value.shape).astype(value.dtype)
        new = np.where(np.isfinite(value), new, value)
        if bool((value[np.isfinite(value)] >= 0).all()):
            new = np.abs(new)
        return new, True
    if isinstance(value, (tuple, list)):
        items = [_redrawn(item, generator, rng) for item in value]
        return type(value)(item for item, _ in items), any(changed for _, changed in items)
    if isinstance(value, dict):
        items = {key: _redrawn(item, generator, rng) for key, item in value.items()}
        return {key: item for key, (item, _) in items.items()}, any(
            changed for _, changed in items.values()
        )
    return value, False


def probe_calls(record: Recorded, count: int = _PROBES) -> list[Recorded]:
    """The learner's code called again on ``record``'s inputs with its floating-point
    values drawn again (nothing when it has none, or when the record is a construction)."""
    import torch

    target = record.target
    if target is None or record.constructed:
        return []
    probes = []
    for seed in range(1, count + 1):
        generator = torch.Generator().manual_seed(seed)
        rng = np.random.default_rng(seed)
        (args, kwargs), changed = _redrawn((list(record.args), dict(record.kwargs)), generator, rng)
        if not changed:
            return []
        args = tuple(args)
        state = None
        if record.built is not None:
            with contextlib.suppress(Exception):
                state = frozen(dict(target.state_dict()))
            if state is None:
                return []
        saved = global_random_state()
        restore_random_state(record.random_state)
        try:
            with _bounded_and_quiet(_LEARNER_LIMIT_S):
                result = target(*frozen(args), **frozen(kwargs))
            result = frozen(result)
        except (_Timeout, TooLargeToFreeze):  # stopped, or too large to keep: no probe
            return []
        except Exception as error:  # (the learner's code: anything may come back)
            result = Raised.of(error)
        except BaseException:  # (KeyboardInterrupt, SystemExit from the learner's code)
            return []
        finally:
            restore_random_state(saved)
        if result is _FAILED:
            return []
        probes.append(
            Recorded(
                args,
                kwargs,
                record.random_state,
                result,
                built=record.built,
                state=state,
                training=record.training,
            )
        )
    return probes


def confirm(
    function: Any, variants: list[Variant], probes: list[Recorded]
) -> tuple[list, list[Recorded]]:
    """The variants that give the learner's result on every probe, and the probes on
    which the learner's result differs from the reference's."""
    module = isinstance(function, type)

    def result_of(run_function: Any, probe: Recorded, constructor: bool) -> Any:
        try:
            if constructor:
                return _built_module(run_function, probe, 0.5)
            if module:
                return _run(run_function, probe, _instance(function, probe), 0.5)
            return _run(run_function, probe, None, 0.5)
        except Exception:
            return _FAILED

    import inspect

    original = inspect.unwrap(function.forward) if module else function
    wrong = [p for p in probes if not same(p.result, result_of(original, p, False))]
    kept = []
    for variant in variants:
        try:
            edited = variant.function()
        except Exception:
            continue
        if all(same(p.result, result_of(edited, p, variant.constructor)) for p in probes):
            kept.append(variant)
    return kept, wrong


def evidence(wrong_calls: list[Recorded]) -> int:
    """How many wrong results back an edit: each wrong value counts, but errors count once
    at most (inputs of the same shapes raise the same error, and many mistakes raise it:
    "the size of tensor a (12) must match ..." is no more certain the second time)."""
    raised = [call for call in wrong_calls if isinstance(call.result, Raised)]
    return len(wrong_calls) - len(raised) + min(1, len(raised))
