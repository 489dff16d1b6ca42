"""One row of a padding mask broadcast over the batch (checking.mask_rows), and whole
layers skipped in train mode (checking.skipped_layers)."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.mask_rows import one_mask_for_all, probe_padding_mask
from transformer_course.checking.skipped_layers import layers_skipped_in_training


def test_the_probe_mask_pads_every_row_differently():
    mask = probe_padding_mask(3, 6)  # (3, 1, 1, 6)
    rows = mask[:, 0, 0, :]
    assert mask.shape == (3, 1, 1, 6) and not rows.all(-1).any()  # every row padded
    distinct = [*rows, rows.any(0), rows.all(0)]
    assert all(not torch.equal(a, b) for i, a in enumerate(distinct) for b in distinct[i + 1 :])
    assert probe_padding_mask(1, 6) is None and probe_padding_mask(3, 2) is None


def _masked_mean(mask: torch.Tensor | None, values: torch.Tensor) -> torch.Tensor:
    """A stand-in for an attention: the mean over the real positions, per sentence."""
    if mask is None:
        return values.mean(-1)  # (batch,)
    weights = mask[:, 0, 0, :].expand(values.shape[0], -1).double()  # (batch, len)
    return (values * weights).sum(-1) / weights.sum(-1)


def test_the_one_row_given_to_every_sentence_is_named_and_no_other():
    values = torch.randn(3, 6, dtype=torch.float64)  # (batch, len)

    def oracle(mask):
        return _masked_mean(mask, values)

    def note(learner):
        return one_mask_for_all(learner, oracle, 3, 6, name="mask")

    assert "the first sentence's padding mask" in note(lambda m: _masked_mean(m[:1], values))
    assert "(mask[-1]" in note(lambda m: _masked_mean(m[-1:], values))
    assert note(lambda m: _masked_mean(m, values)) == ""  # right
    assert note(lambda m: _masked_mean(None, values)) == ""  # no mask: another diagnosis
    assert note(lambda m: _masked_mean(~m, values)) == ""  # inverted: no row fits
    assert note(lambda m: 1 / 0) == ""  # the learner's code raising: no diagnosis


class _Stack(nn.Module):
    def __init__(self, skip_in_training: bool):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))
        self.skip_in_training = skip_in_training

    def forward(self, x):
        for index, layer in enumerate(self.layers):
            if self.training and self.skip_in_training and index != 1:
                continue
            x = layer(x)
        return x


def test_layers_skipped_in_train_mode_only_are_named_and_the_mode_kept():
    x = torch.randn(2, 4)
    stack = _Stack(skip_in_training=True).train()
    note = layers_skipped_in_training(stack, lambda: stack(x))
    assert "`layers.0`, `layers.2` never ran in this call (1 of 3 of its layers ran)" in note
    assert stack.training and all(layer.training for layer in stack.layers)
    right = _Stack(skip_in_training=False).train()
    assert layers_skipped_in_training(right, lambda: right(x)) == ""
    assert layers_skipped_in_training(stack.eval(), lambda: stack(x)) == ""  # eval mode
    assert layers_skipped_in_training("not a module", lambda: None) == ""
