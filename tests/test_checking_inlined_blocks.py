"""checking.inlined_blocks: a stack that calls its blocks' sub-layers itself, localised."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.inlined_blocks import inlined_departure


class _Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.attn = nn.LayerNorm(4), nn.Linear(4, 4)
        self.norm2, self.feed_forward = nn.LayerNorm(4), nn.Linear(4, 4)

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return h + self.feed_forward(self.norm2(h))


class _Stack(nn.Module):
    def __init__(self, layout):
        super().__init__()
        torch.manual_seed(0)
        self.layers = nn.ModuleList([_Block(), _Block()])
        self.norm = nn.LayerNorm(4)
        self.layout = layout

    def forward(self, x):
        for b in self.layers:
            if self.layout == "block":
                x = b(x)
            elif self.layout == "sequential":
                h = x + b.attn(b.norm1(x))
                x = h + b.feed_forward(b.norm2(h))
            elif self.layout == "parallel":
                x = x + b.attn(b.norm1(x)) + b.feed_forward(b.norm2(x))
            else:  # the attention's output dropped
                b.attn(b.norm1(x))
                x = x + b.feed_forward(b.norm2(x))
        return self.norm(x)


def _said(layout: str) -> str:
    stack, x = _Stack(layout), torch.randn(2, 3, 4)
    branches = (("norm1", "attn"), ("norm2", "feed_forward"))
    return inlined_departure(stack, lambda: stack(x), x, 2, branches=branches, final="norm")


def test_the_parallel_block_is_named_and_the_others_are_not():
    assert "parallel residual" in _said("parallel")
    dropped = _said("dropped")
    assert "attn's output never reaches the stream" in dropped and "parallel" not in dropped
    assert _said("sequential") == ""  # right, written out
    assert _said("block") == ""  # the blocks run as modules: the stack's localiser's job
