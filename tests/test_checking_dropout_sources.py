"""checking.dropout_sources: dropout on the scores, the projected queries or the projected
keys, read back from the attention weights of one train-mode call with 0 < p < 1, whatever
the draw; nothing read from the right weights or from dropout after the softmax."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from transformer_course.checking.dropout_sources import KEYS, QUERIES, SCORES, dropout_sources

P = 0.5


def _weights(q, k, on=""):
    if on == QUERIES:
        q = F.dropout(q, P, training=True)
    if on == KEYS:
        k = F.dropout(k, P, training=True)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if on == SCORES:
        scores = F.dropout(scores, P, training=True)
    return torch.softmax(scores, dim=-1)


def test_each_place_before_the_softmax_is_read_back_alone():
    torch.manual_seed(0)
    q, k = torch.randn(2, 2, 8, 4), torch.randn(2, 2, 8, 4)  # d_head 4 < len 8
    for on in (SCORES, QUERIES, KEYS):
        assert dropout_sources(_weights(q, k, on), q, k, P) == [on]


def test_nothing_is_read_from_the_right_weights_or_dropout_after_the_softmax():
    torch.manual_seed(1)
    q, k = torch.randn(1, 2, 8, 4), torch.randn(1, 2, 8, 4)
    assert dropout_sources(_weights(q, k), q, k, P) == []
    assert dropout_sources(F.dropout(_weights(q, k), P, training=True), q, k, P) == []
    assert dropout_sources(_weights(1.5 * q, k), q, k, P) == []
