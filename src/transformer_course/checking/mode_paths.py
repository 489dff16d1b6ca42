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

:func:`reads_blocked_keys` is one such property, for any attention over (query, key, value,
mask): whether the output changes when the keys and values at positions the mask blocks for
every query are changed (it must not: a blocked key gets no weight, whatever its content).
It reads the output only, so it holds whatever weights the module returns (before or after
dropout) and whatever value it blocks with.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

__all__ = [
    "Mode",
    "module_modes",
    "path_sentence",
    "reads_blocked_keys",
    "split_by_mode",
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


def module_modes(rate: float = 0.5) -> list[Mode]:
    """Eval mode (built with ``rate``), train mode with dropout 0.0, train mode with ``rate``
    (0 < rate < 1: a draw that keeps some entries, seeded alike in every call)."""
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


def reads_blocked_keys(
    run: Callable[..., torch.Tensor],
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor,
    *,
    seed: int,
) -> bool | None:
    """Whether ``run(query, key, value, mask)`` (the output alone) changes when the key and
    value rows that ``mask`` (bool, True = may attend, broadcasting to (batch, ..., len_q,
    len_k)) blocks for every query are replaced by other numbers. Both calls are made with
    the global torch seed set to ``seed``, so a dropout draws the same entries in both.
    None when the call raises, returns no tensor, or no key is blocked for every query."""
    b, lk = key.shape[0], key.shape[1]
    if mask.dim() < 3:  # (len_q, len_k): the same for every sequence
        mask_b = mask.expand(b, *mask.shape)
    else:
        mask_b = mask.expand(b, *mask.shape[1:])
    full = mask_b.expand(*mask_b.shape[:-1], lk)
    blocked = ~full.reshape(b, -1, lk).any(dim=1)  # (batch, len_k): no query may see it
    if not bool(blocked.any()):
        return None
    other = torch.randn(key.shape, generator=torch.Generator().manual_seed(seed + 1)) * 3
    spot = blocked[..., None]  # (batch, len_k, 1)
    key2 = torch.where(spot, other, key)
    value2 = torch.where(spot, -other, value)
    outputs = []
    with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
        for k, v in ((key, value), (key2, value2)):
            torch.manual_seed(seed)
            result = run(query, k, v, mask)
            out = result[0] if isinstance(result, tuple | list) and result else result
            if not isinstance(out, torch.Tensor):
                return None
            outputs.append(out.detach().double())
    if outputs[0].shape != outputs[1].shape or not bool(torch.isfinite(outputs[0]).all()):
        return None
    return not torch.allclose(outputs[0], outputs[1], rtol=1e-5, atol=1e-6)
