"""checking.aligned_positions: a score computed with predictions and targets misaligned."""

from __future__ import annotations

import torch

from transformer_course.checking.aligned_positions import misaligned_pairings


def _score(logits, labels):  # (batch, T, V), (batch, T)
    return torch.nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), labels.reshape(-1)
    )


LOGITS = torch.randn(2, 5, 7, generator=torch.Generator().manual_seed(0))
LABELS = torch.tensor([[1, 4, 2, 6, 3], [0, 5, 5, 2, 1]])


def test_the_shift_by_two_is_named_and_the_right_value_is_not():
    wrong = float(_score(LOGITS[:, :-2], LABELS[:, 2:]))
    found = misaligned_pairings(_score, LOGITS, LABELS, wrong, names=("logits", "labels"))
    assert found and all("logits[..., :-2, :] scored against labels[..., 2:]" in f for f in found)
    assert misaligned_pairings(_score, LOGITS, LABELS, float(_score(LOGITS, LABELS))) == []


def test_values_that_are_not_tensors_say_nothing():
    assert misaligned_pairings(_score, [[0.0]], [[1]], 0.5) == []
