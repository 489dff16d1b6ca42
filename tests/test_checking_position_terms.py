"""checking.position_terms: a term of the position alone added before a stack's first
layer, named as lesson 03's sinusoids or described, never for a term that follows the
tokens."""

from __future__ import annotations

import math

import torch

from transformer_course.checking.position_terms import position_term_note


def _inputs(batch: int = 3, length: int = 5, width: int = 8) -> torch.Tensor:
    return torch.randn(batch, length, width, generator=torch.Generator().manual_seed(1))


def _sinusoids(length: int, width: int) -> torch.Tensor:
    angles = torch.arange(length)[:, None] * 10000.0 ** (-torch.arange(0, width, 2) / width)
    return torch.stack([angles.sin(), angles.cos()], -1).flatten(-2)


def test_sinusoids_are_named_with_their_layout_and_scale():
    x = _inputs()
    note = position_term_note(x + _sinusoids(5, 8), x, "layers", "x")
    assert "plus lesson 03's sinusoidal positional encoding (sines and cosines interleaved)" in note
    note = position_term_note(math.sqrt(8) * x + _sinusoids(5, 8), x, "layers", "x")
    assert "x multiplied by sqrt(d_model) plus lesson 03's" in note


def test_any_table_of_positions_is_described_when_the_sequences_differ():
    x = _inputs()
    table = torch.randn(5, 8, generator=torch.Generator().manual_seed(2))
    assert "plus one vector per position" in position_term_note(x + table, x, "layers", "x")
    # one sequence: a term of the position alone cannot be told from one of the tokens
    assert position_term_note(x[:1] + table, x[:1], "layers", "x") == ""


def test_terms_that_follow_the_tokens_are_not_positional():
    x = _inputs()
    assert position_term_note(x + 0.5 * x.flip(-1), x, "layers", "x") == ""
    assert position_term_note(2 * x, x, "layers", "x") == ""
    assert position_term_note(x, x, "layers", "x") == ""
