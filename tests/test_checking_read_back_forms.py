"""Round 31: steps read back from a result: which parameters a final linear step used
(:mod:`transformer_course.checking.projection_sources`) and which variance a
normalisation divided by (:mod:`transformer_course.checking.variance_forms`)."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.projection_sources import projection_sentence, projection_used
from transformer_course.checking.variance_forms import variance_form


class _Head(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.table = nn.Embedding(7, 4)
        self.output = nn.Linear(4, 7)


def test_the_matrix_and_bias_a_final_step_used_are_named():
    head = _Head()
    hidden = torch.randn(2, 3, 4)  # (batch, len, d_model)
    with torch.no_grad():
        through_table = hidden @ head.table.weight.T  # (batch, len, vocab), no bias
        own = head.output(hidden)
    assert projection_used(head, hidden, through_table) == ("table.weight", None)
    sentence, used = projection_sentence(
        head, "output", hidden, through_table, result="the logits", hidden_name="y"
    )
    assert used == ("table.weight", None)
    assert "self.output.weight and self.output.bias are never used" in sentence
    assert projection_sentence(head, "output", hidden, own, result="r", hidden_name="y") is None


def test_a_tied_weight_used_under_another_name_is_the_layer_s_own():
    head = _Head()
    head.output.weight = head.table.weight  # tied: one (vocab, d_model) matrix, two names
    hidden = torch.randn(2, 3, 4)
    with torch.no_grad():
        without_bias = hidden @ head.table.weight.T  # (batch, len, vocab)
        own = head.output(hidden)
    assert projection_sentence(head, "output", hidden, own, result="r", hidden_name="y") is None
    sentence, used = projection_sentence(
        head, "output", hidden, without_bias, result="the logits", hidden_name="y"
    )
    assert used == ("output.weight", None)
    assert "self.output.bias is never used" in sentence


def test_a_result_no_linear_step_makes_or_plain_values_get_no_answer():
    head = _Head()
    hidden = torch.randn(2, 3, 4)
    assert projection_used(head, hidden, torch.randn(2, 3, 7)) is None
    assert (
        projection_sentence(object(), "output", hidden, hidden, result="r", hidden_name="y") is None
    )
    assert projection_used(head, hidden.numpy(), torch.randn(2, 3, 7)) is None


def _norm(variance):
    def call(x):
        mean = x.mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(variance(x, mean) + 1e-5)

    return call


def test_the_variance_a_normalisation_used_is_read_back_as_moments():
    ones, zeros = torch.ones(6), torch.zeros(6)
    squares_only = _norm(lambda x, mean: (x**2).mean(-1, keepdim=True))
    form, fitted, nan_tokens = variance_form(squares_only, ones, zeros, 1e-5)
    assert [name for name, _ in form] == ["E[x²]"] and nan_tokens == 0 and fitted == 40
    right = _norm(lambda x, mean: x.var(-1, keepdim=True, unbiased=False))
    assert variance_form(right, ones, zeros, 1e-5) is None
    # the centring off: not one divisor per token, nothing said
    assert variance_form(lambda x: x / x.std(-1, keepdim=True), ones, zeros, 1e-5) is None
