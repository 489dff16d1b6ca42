"""checking/library_calls.py: the keyword arguments of the learner's library calls."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checking.library_calls import keywords_of_calls


def _logits_labels():
    return torch.randn(3, 4), torch.tensor([0, 1, 2])  # (N, V), (N,)


def test_the_learners_keywords_only_even_under_a_torch_function_mode():
    class Mode(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    logits, labels = _logits_labels()
    with Mode():
        calls = keywords_of_calls(
            F, "cross_entropy", lambda: F.cross_entropy(logits, labels, label_smoothing=0.1)
        )
    assert calls == [{"label_smoothing": 0.1, "args": ()}]


def test_the_module_form_is_seen_and_the_function_put_back():
    logits, labels = _logits_labels()
    original = F.cross_entropy
    calls = keywords_of_calls(
        F, "cross_entropy", lambda: nn.CrossEntropyLoss(ignore_index=2)(logits, labels)
    )
    assert calls is not None and calls[0]["ignore_index"] == 2
    assert F.cross_entropy is original


def test_a_call_that_raises_records_nothing():
    def raising():
        F.cross_entropy(*_logits_labels())
        raise ValueError("the learner's own error")

    assert keywords_of_calls(F, "cross_entropy", raising) is None
