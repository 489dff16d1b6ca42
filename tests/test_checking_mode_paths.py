"""checking.mode_paths: a property asked of a module in each mode, and the branch a split
between the modes points to."""

from __future__ import annotations

import torch

from transformer_course.checking.mode_paths import (
    Mode,
    module_modes,
    path_sentence,
    reads_blocked_keys,
    split_by_mode,
)


def test_the_modes_and_their_names():
    assert [m.name for m in module_modes(0.5)] == [
        "eval mode",
        "train mode with dropout=0.0",
        "train mode with dropout=0.5",
    ]


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


def _attention(masked: bool):
    def run(q, k, v, mask):
        scores = q @ k.transpose(-2, -1)
        if masked:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.nn.functional.dropout(scores.softmax(-1), 0.5, training=True)
        return weights @ v, weights

    return run


def test_blocked_keys_read_only_when_the_mask_is_ignored():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 3, 4, generator=g), torch.randn(2, 5, 4, generator=g)
    mask = (torch.arange(5) < torch.tensor([[4], [3]]))[:, None, :]  # (2, 1, 5)
    assert reads_blocked_keys(_attention(False), q, k, k, mask, seed=1) is True
    assert reads_blocked_keys(_attention(True), q, k, k, mask, seed=1) is False
    everything = torch.ones(2, 1, 5, dtype=torch.bool)
    assert reads_blocked_keys(_attention(False), q, k, k, everything, seed=1) is None
