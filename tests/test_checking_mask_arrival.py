"""checking.localise.mask_arrival_hint: one mask handed to both attentions is told apart
from the two masks exchanged, and a mask handed on transposed is named."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.localise import mask_arrival_hint


class _Attention(nn.Module):
    def forward(self, query, key, value, mask=None):  # (batch, len_q, d) -> same
        return query


class _Layer(nn.Module):
    def __init__(self, route):
        super().__init__()
        self.self_attn, self.cross_attn, self.route = _Attention(), _Attention(), route

    def forward(self, x, memory, src_mask, tgt_mask):
        first, second = self.route(src_mask, tgt_mask)
        x = self.self_attn(x, x, x, first)
        return self.cross_attn(x, memory, memory, second)


def _said(route) -> str:
    x, memory = torch.randn(2, 3, 4), torch.randn(2, 5, 4)
    src = torch.ones(2, 1, 1, 5, dtype=torch.bool)
    src[1, ..., -1] = False
    tgt = torch.ones(3, 3, dtype=torch.bool).tril()[None, None].expand(2, 1, 3, 3)
    layer = _Layer(route)
    given = {"self_attn": ("tgt_mask", tgt), "cross_attn": ("src_mask", src)}
    ((_, hit),) = mask_arrival_hint(layer, lambda: layer(x, memory, src, tgt), given)
    return hit(None)


def test_one_mask_in_both_slots_is_not_called_exchanged():
    both = _said(lambda src, tgt: (src, src))
    assert "src_mask is passed in both mask slots and tgt_mask in none" in both
    exchanged = _said(lambda src, tgt: (src, tgt.reshape(src.shape[0], 1, 3, 3)))
    assert "both mask slots" not in exchanged


def test_a_transposed_mask_is_named():
    assert "gets tgt_mask transposed" in _said(lambda src, tgt: (tgt.mT, src))
