"""checking.mode_paths: a property asked of a module in each mode, and the branch a split
between the modes points to."""

from __future__ import annotations

import torch

from transformer_course.checking.mode_paths import (
    MaskProbe,
    Mode,
    changed_at,
    masks_by_mode,
    module_modes,
    path_sentence,
    right_in_eval,
    split_by_mode,
    train_only_sentence,
)


def test_the_modes_and_their_names():
    assert [m.name for m in module_modes(0.5)] == [
        "eval mode",
        "train mode with dropout=0.0",
        "train mode with dropout=0.5",
    ]
    # by default only the modes that draw nothing: two calls at 0.5 cannot be compared
    assert [m.name for m in module_modes()] == ["eval mode", "train mode with dropout=0.0"]


def test_a_split_names_the_branch_and_no_split_names_nothing():
    evaluate, plain, dropping = module_modes(0.5)
    found = path_sentence([dropping], [evaluate, plain], "it breaks", "it holds")
    assert found.startswith("In train mode with dropout=0.5 it breaks; in eval mode and")
    assert "only in training with dropout > 0" in found
    assert "only in train mode" in path_sentence([plain, dropping], [evaluate], "x", "y")
    assert "only in eval mode" in path_sentence([evaluate], [plain, dropping], "x", "y")
    assert path_sentence([], [evaluate, plain, dropping], "x", "y") == ""
    assert path_sentence([evaluate, plain, dropping], [], "x", "y") == ""
    # wrong in eval mode and with dropout, right at 0.0: no branch on the mode explains it
    assert path_sentence([evaluate, dropping], [plain], "x", "y") == ""


def test_a_probe_that_raises_tells_nothing():
    def holds(mode: Mode):
        if not mode.train:
            raise RuntimeError("no")
        return mode.dropout == 0

    wrong, right = split_by_mode(holds, module_modes(0.5))
    assert [m.name for m in wrong] == ["train mode with dropout=0.5"]
    assert [m.name for m in right] == ["train mode with dropout=0.0"]


class _Pool(torch.nn.Module):
    """Each position takes the mean of the positions its mask allows; the mask dropped in
    training when ``drop_in_training``."""

    def __init__(self, drop_in_training: bool, dropout: float = 0.0):
        super().__init__()
        self.drop_in_training, self.dropout = drop_in_training, torch.nn.Dropout(dropout)

    def forward(self, x, mask):
        if self.training and self.drop_in_training:
            mask = torch.ones_like(mask)
        weights = mask.float() / mask.float().sum(-1, keepdim=True)  # (batch, 1, len)
        return (weights @ x).expand_as(x) + self.dropout(x)


def test_masks_by_mode_names_the_mask_and_the_path():
    x = torch.randn(2, 4, 3, generator=torch.Generator().manual_seed(0))
    mask = (torch.arange(4) < torch.tensor([[4], [2]]))[:, None, :]  # (2, 1, 4)
    padded = ~mask[:, 0, :]
    probe = MaskProbe(
        (x, mask), (changed_at(x, padded, seed=1), mask), mask[:, 0, :, None], "it moves", "Fix."
    )

    def build(drop_in_training):
        return lambda mode: _Pool(drop_in_training, mode.dropout).train(mode.train)

    found = masks_by_mode(build(True), [probe], seed=2)
    assert found.startswith("In train mode with dropout=0.0 it moves; in eval mode it does not")
    assert found.endswith("Fix.")
    assert masks_by_mode(build(False), [probe], seed=2) == ""


def test_right_in_eval_switches_back_to_train_mode():
    module = _Pool(True).train()
    x = torch.randn(1, 3, 2)
    mask = torch.tensor([[[True, True, False]]])
    expected = _Pool(False).eval()(x, mask)
    assert right_in_eval(module, lambda: module(x, mask), expected, rtol=1e-6, atol=1e-7)
    assert module.training
    assert "only in train mode" in train_only_sentence("memory")
