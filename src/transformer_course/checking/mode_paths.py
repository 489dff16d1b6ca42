"""A mistake made on one path of a module only: in train mode with dropout > 0, in train mode
at any rate, or in eval mode, while the other modes are right.

A module often computes in two ways: a training branch written out by hand so that dropout
can act on an intermediate (``if self.training and self.dropout.p > 0:``), and a plain one
(a fused call, or the same lines without dropout) for eval mode and dropout 0. A slip in one
branch (the mask forgotten there, a step left out) shows only in the modes that take it. A
check that sees it in one mode would name it by its symptom alone ("the mask is not applied
(or not passed on)"), which the learner's code refutes in every other mode
(blind29a-mha-mask-dropped-in-dropout-path). So the property that failed is asked of the
module again in each mode (:func:`module_modes`): a fresh module per mode, the same
weights, the same inputs, seeded alike; :func:`split_by_mode` says in which modes it holds
and in which it does not, and :func:`path_sentence` which branch that points to. Nothing is
said when the property fails (or holds) in every mode: then no branch is to blame.

:func:`output_moves` is the property a mask gives: the output entries the mask shields do
not move when the inputs at the blocked positions change (a blocked key gets no weight,
whatever its content). It reads the output only, so it holds whatever weights a module
returns and whatever value it blocks with. It compares two calls, so it is asked only in
the modes that draw nothing (eval, dropout 0.0): the grader's calls each draw their own.
:func:`masks_by_mode` asks it of any module, one :class:`MaskProbe` per mask (a layer's
padding mask, a decoder's source and look-ahead masks), and says which mode ignores which
mask. A property read off one call (MultiHeadAttention's mixing coefficients, read back
through its weights) can be asked at a rate between 0 and 1 too.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

__all__ = [
    "MaskProbe",
    "Mode",
    "changed_at",
    "masks_by_mode",
    "module_modes",
    "output_moves",
    "path_sentence",
    "right_in_eval",
    "split_by_mode",
    "train_only_sentence",
]


@dataclass(frozen=True)
class Mode:
    """One way a module is run: train or eval mode, built with a dropout rate."""

    train: bool
    dropout: float

    @property
    def name(self) -> str:
        if not self.train:
            return "eval mode"
        return f"train mode with dropout={self.dropout}"


def module_modes(rate: float | None = None) -> list[Mode]:
    """Eval mode and train mode with dropout 0.0, the modes whose results no random stream
    decides; with ``rate`` (0 < rate < 1) train mode at that rate as well, for a property
    that holds whatever the draw (a coefficient that must be 0, read back from one call),
    never for one that compares two calls: the grader's calls each draw their own."""
    if rate is None:
        return [Mode(False, 0.0), Mode(True, 0.0)]
    return [Mode(False, rate), Mode(True, 0.0), Mode(True, rate)]


def split_by_mode(
    holds: Callable[[Mode], bool | None], modes: Sequence[Mode]
) -> tuple[list[Mode], list[Mode]]:
    """(the modes where ``holds`` is False, those where it is True); a mode whose probe
    could not be run (None, or an exception) is in neither."""
    wrong, right = [], []
    for mode in modes:
        try:
            found = holds(mode)
        except Exception:  # a probe: that mode tells nothing
            found = None
        if found is False:
            wrong.append(mode)
        elif found is True:
            right.append(mode)
    return wrong, right


def _listed(modes: Sequence[Mode]) -> str:
    names = [mode.name for mode in modes]
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]


def path_sentence(wrong: Sequence[Mode], right: Sequence[Mode], symptom: str, fine: str) -> str:
    """What the split says, in words: "In <wrong modes> <symptom>; in <right modes> <fine>.
    So <the branch> ...". "" unless both sides hold a mode and the split is one that a branch
    on the mode explains (every wrong mode trains with dropout > 0 while a mode without
    dropout is right; every wrong mode trains while eval mode is right; or the reverse)."""
    if not wrong or not right:
        return ""
    if all(m.train and m.dropout > 0 for m in wrong) and any(
        not m.train or m.dropout == 0 for m in right
    ):
        branch = (
            "the lines that run only in training with dropout > 0 (a branch such as `if "
            "self.training and self.dropout.p > 0:`, written out so that dropout can act) "
            "are the ones at fault"
        )
    elif all(m.train for m in wrong) and all(not m.train for m in right):
        branch = "the lines that run only in train mode (under `if self.training:`) are at fault"
    elif all(not m.train for m in wrong) and all(m.train for m in right):
        branch = "the lines that run only in eval mode (under `if not self.training:`) are at fault"
    else:
        return ""
    return f"In {_listed(wrong)} {symptom}; in {_listed(right)} {fine}. So {branch}."


def output_moves(
    run: Callable[..., Any],
    args: Sequence,
    changed: Sequence,
    keep: torch.Tensor | None = None,
    *,
    seed: int,
) -> bool | None:
    """Whether ``run(*changed)`` differs from ``run(*args)`` (the output: a result's first
    item when it is a pair) on the entries ``keep`` selects (bool, broadcast to the output;
    None: every entry). For modes that draw nothing (eval, dropout 0.0): two calls with a
    dropout between 0 and 1 differ anyway in the grader, whose calls draw their own (the
    global seed set to ``seed`` before each call is only the notebook's). None when a call
    raises or returns no tensor of one shape, or a non-finite one."""
    outputs = []
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            for given in (args, changed):
                torch.manual_seed(seed)
                result = run(*given)
                out = result[0] if isinstance(result, tuple | list) and result else result
                if not isinstance(out, torch.Tensor):
                    return None
                outputs.append(out.detach().double())
    except Exception:  # a probe: nothing is learnt from a call that raises
        return None
    first, second = outputs
    if first.shape != second.shape or not bool(torch.isfinite(first).all()):
        return None
    if keep is not None:
        try:
            chosen = keep.expand(first.shape)
        except RuntimeError:
            return None
        first, second = first[chosen], second[chosen]
    return not torch.allclose(first, second, rtol=1e-5, atol=1e-6)


def changed_at(x: torch.Tensor, where: torch.Tensor, *, seed: int) -> torch.Tensor:
    """``x`` (batch, len, d) with the rows ``where`` (bool (batch, len)) replaced by other
    numbers (drawn from a private generator seeded with ``seed``)."""
    other = torch.randn(x.shape, generator=torch.Generator().manual_seed(seed)) * 3
    return torch.where(where[..., None], other.to(x.dtype), x)


@dataclass(frozen=True)
class MaskProbe:
    """One mask asked of a module in each mode: the call's arguments, the same with the
    blocked positions' inputs changed, the output entries that must not move (``keep``),
    what a move means and what to write instead."""

    args: tuple
    changed: tuple
    keep: torch.Tensor | None
    symptom: str
    fix: str


def masks_by_mode(
    build: Callable[[Mode], Callable[..., Any]],
    probes: Sequence[MaskProbe],
    *,
    seed: int,
) -> str:
    """For each probe whose mask holds in one of eval mode and train mode at dropout 0.0
    and not in the other: the split in words (:func:`path_sentence`) and its fix; "" when
    no probe splits. ``build(mode)`` makes the module for a mode (the same weights in both
    modes: seed its construction). Dropout between 0 and 1 is not asked: two calls that
    each draw cannot be compared (:func:`output_moves`)."""
    sentences = []
    built: dict[Mode, Any] = {}  # one module per mode, for every probe
    for probe in probes:

        def holds(mode: Mode, probe: MaskProbe = probe) -> bool | None:
            if mode not in built:
                built[mode] = build(mode)
            run = built[mode]
            moves = output_moves(run, probe.args, probe.changed, probe.keep, seed=seed)
            return None if moves is None else not moves

        wrong, right = split_by_mode(holds, module_modes())
        found = path_sentence(wrong, right, probe.symptom, "it does not, the mask is applied")
        if found:
            sentences.append(f"{found} {probe.fix}")
    return " ".join(sentences)


def right_in_eval(
    module, run: Callable[[], Any], expected: torch.Tensor, *, rtol: float, atol: float
) -> bool:
    """Whether ``run()`` (a call of ``module``, now in train mode) gives ``expected`` once
    the module is switched to eval mode; switched back to train mode after. For a train-mode
    call at dropout 0.0, where dropout changes nothing, a right eval-mode result puts the
    mistake on the train-only path (:func:`train_only_sentence`)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            module.eval()
            got = run()
        return (
            isinstance(got, torch.Tensor)
            and got.shape == expected.shape
            and torch.allclose(got.detach().double(), expected.double(), rtol=rtol, atol=atol)
        )
    except Exception:  # a probe: nothing is learnt
        return False
    finally:
        module.train()


def train_only_sentence(method: str) -> str:
    """What a right eval-mode result says about a wrong train-mode one at dropout 0.0."""
    return (
        f"This is train mode with dropout=0.0, where dropout changes nothing, and the same "
        f"model in eval mode, on the same inputs, gives the right {method}: so the lines that "
        "run only in train mode (under `if self.training:`) are at fault; fix them there."
    )
