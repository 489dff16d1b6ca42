"""Lesson 12's shared check machinery: the tensor-type check, and the messages and
diagnoses that several exercises' checks give."""

import re

import torch

from transformer_course.checking import Checker


def _expect_tensor(c: Checker, got, what: str) -> None:
    c.expect_type(got, torch.Tensor, what, "Return a torch.Tensor.")


_BROADCAST = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
    r"non-singleton dimension (\d+)"
)


_MASK_FILLED_ZERO = (
    "Your blocked scores are set to 0 instead of -inf: a score of 0 still gets weight "
    "exp(0) / sum after the softmax, so masked keys are attended to. Fill them with "
    "float('-inf') (scores.masked_fill(blocked, float('-inf')))."
)


def _informative(value: torch.Tensor) -> torch.Tensor | None:
    """A mistake's value, or None when it is NaN or inf everywhere: every such mistake
    gives the same value, so matching it would tell them apart no better than chance."""
    return value if bool(torch.isfinite(value).any()) else None


def _all_nan_candidates(got: torch.Tensor, candidates: dict[str, torch.Tensor | None]) -> str:
    """When the learner's value is NaN or inf everywhere: the causes that give exactly that
    on this input, all of them (one such input cannot tell them apart); "" otherwise."""
    if bool(torch.isfinite(got).any()):
        return ""
    agree = [
        cause
        for cause, value in candidates.items()
        if value is not None and not bool(torch.isfinite(value).any())
    ]
    if not agree:
        return ""
    return (
        "Your result is NaN or inf everywhere. On this input that is what each of these "
        "mistakes gives (one of them, or several, is yours): " + "; ".join(agree) + "."
    )
