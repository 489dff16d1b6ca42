"""checking.residual_draws: the term a layer adds to its stream in each sub-layer's place,
rebuilt from its own sub-results under hooks: a draw per sentence (stochastic depth) or per
position is named, nn.Dropout never; at dropout=1.0 a sub-layer added undropped is found
whatever else is wrong."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from transformer_course.checking.residual_draws import (
    residual_draw_problem,
    undropped_note,
    undropped_sublayers,
)

SUBLAYERS = ["attn", "ffn"]
NORMS = {"attn": "norm1", "ffn": "norm2"}


class _Layer(nn.Module):
    """Two linear sub-layers with LayerNorms; ``drop(name, y)`` is the residual dropout."""

    def __init__(self, p: float, norm_first: bool, how: str = "dropout", undropped=()):
        super().__init__()
        torch.manual_seed(0)
        self.attn, self.ffn = nn.Linear(6, 6), nn.Linear(6, 6)
        self.norm1, self.norm2 = nn.LayerNorm(6), nn.LayerNorm(6)
        self.dropout = nn.Dropout(p)
        self.norm_first, self.how, self.undropped = norm_first, how, set(undropped)

    def drop(self, name, y):
        if name in self.undropped:
            return y
        if self.how == "sentence":
            keep = (torch.rand(y.shape[0], 1, 1) >= self.dropout.p).to(y.dtype)
            return y * keep / (1 - self.dropout.p)
        return self.dropout(y)

    def forward(self, x):
        for name, norm in (("attn", self.norm1), ("ffn", self.norm2)):
            sub = getattr(self, name)
            if self.norm_first:
                x = x + self.drop(name, sub(norm(x)))
            else:
                x = norm(x + self.drop(name, sub(x)))
        return x


def _x() -> torch.Tensor:
    return torch.randn(8, 5, 6, generator=torch.Generator().manual_seed(1))


@pytest.mark.parametrize("norm_first", [False, True])
def test_nn_dropout_is_never_named(norm_first):
    x = _x()
    for seed in range(10):
        layer = _Layer(0.5, norm_first).train()
        torch.manual_seed(seed)
        problem = residual_draw_problem(
            layer,
            lambda layer=layer: layer(x),
            x,
            0.5,
            sublayers=SUBLAYERS,
            norms=NORMS,
            norm_first=norm_first,
        )
        assert problem == ""


@pytest.mark.parametrize("norm_first", [False, True])
def test_one_draw_per_sentence_is_named_at_its_sub_layer(norm_first):
    x = _x()
    layer = _Layer(0.5, norm_first, how="sentence").train()
    torch.manual_seed(0)
    problem = residual_draw_problem(
        layer, lambda: layer(x), x, 0.5, sublayers=SUBLAYERS, norms=NORMS, norm_first=norm_first
    )
    assert "after `self.attn`" in problem
    assert "zeroes whole sentences" in problem


@pytest.mark.parametrize("norm_first", [False, True])
def test_a_sub_layer_added_undropped_is_found_at_rate_one(norm_first):
    x = _x()
    layer = _Layer(1.0, norm_first, undropped=("ffn",)).train()
    found = undropped_sublayers(
        layer, lambda: layer(x), x, sublayers=SUBLAYERS, norms=NORMS, norm_first=norm_first
    )
    assert found == ["ffn"]
    right = _Layer(1.0, norm_first).train()
    assert (
        undropped_sublayers(
            right, lambda: right(x), x, sublayers=SUBLAYERS, norms=NORMS, norm_first=norm_first
        )
        == []
    )


def test_the_note_is_not_added_to_a_message_about_dropout():
    x = _x()
    layer = _Layer(1.0, False, undropped=("attn",)).train()
    kwargs = {"sublayers": SUBLAYERS, "norms": NORMS, "norm_first": False}
    said = undropped_note(
        "is not what the reference gives. The mask is ignored.",
        layer,
        lambda: layer(x),
        x,
        **kwargs,
    )
    assert "A second mistake" in said and "`self.attn`" in said
    about_dropout = "is not what the reference gives. Your dropout acts on the stream."
    assert undropped_note(about_dropout, layer, lambda: layer(x), x, **kwargs) == ""
