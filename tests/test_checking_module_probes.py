"""The module probes of round 23: a pooled or indexed-away axis (checking.axis_reductions),
dropouts at another rate than the argument (checking.dropout_rates), sub-modules skipped
when an optional argument is None (checking.skipped_calls)."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.axis_reductions import dropped_axis_note
from transformer_course.checking.dropout_rates import confirmed_wrong_rates, wrong_rates_sentence
from transformer_course.checking.skipped_calls import skipped_by_none


def test_an_axis_pooled_away_is_named_with_every_reading_that_fits():
    want = torch.randn(2, 5, 4, dtype=torch.float64)  # (batch, position, d_model)
    names = ("batch", "position", "d_model")
    assert ".amax(dim=1)" in dropped_axis_note(want.amax(dim=1).float(), want, names)
    # an end taken along a named axis: that entry named in the axis's words
    last = dropped_axis_note(want[:, -1], want, names)
    assert "at its last position only, [:, -1] (axis 1 (position, size 5), .select(1, -1))" in last
    first_row = dropped_axis_note(want[0], want, names)
    assert "at its first batch only, [0] (axis 0 (batch, size 2), .select(0, 0))" in first_row
    assert "only the last entry along axis 1 (size 5)" in dropped_axis_note(want[:, -1], want)
    # every reading equal on a constant axis: all of them named, none chosen
    flat = torch.ones(2, 5, 4, dtype=torch.float64)
    note = dropped_axis_note(flat[:, 0], flat, names)
    assert "averaged over" in note and "first position only" in note and " or " in note
    assert dropped_axis_note(torch.randn(2, 4), want, names) == ""  # no reading fits
    assert dropped_axis_note(torch.randn(2, 5), want, names) == ""  # another shape
    assert dropped_axis_note([1.0], want, names) == ""  # not a tensor


class _Block(nn.Module):
    def __init__(self, dropout=0.0):
        super().__init__()
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x)


class _Layer(nn.Module):
    def __init__(self, dropout=0.0):
        super().__init__()
        self.inner = _Block()  # dropout not passed on
        self.dropout = nn.Dropout()  # PyTorch's default rate, 0.5

    def forward(self, x):
        return self.dropout(self.inner(x))


def test_dropouts_at_another_rate_are_named_once_their_fix_is_confirmed():
    layer = _Layer(1.0).train()
    x = torch.randn(3, 4)

    def all_dropped():
        return bool(torch.equal(layer(x), torch.zeros_like(x)))

    wrong = confirmed_wrong_rates(layer, 1.0, all_dropped)
    assert [name for name, _ in wrong] == ["inner.dropout", "dropout"]
    assert layer.dropout.p == 0.5 and layer.inner.dropout.p == 0.0  # put back
    said = wrong_rates_sentence(layer, wrong, 1.0, "your layer")
    assert "`self.inner` (_Block) was built without the dropout argument" in said
    assert "`self.dropout` is nn.Dropout(p=0.5), PyTorch's default rate" in said
    # a probe that the rates do not fix: no cause named
    assert confirmed_wrong_rates(layer, 1.0, lambda: False) == []
    assert confirmed_wrong_rates(object(), 1.0, all_dropped) == []


class _Guarded(nn.Module):
    def __init__(self):
        super().__init__()
        self.first, self.second = nn.Identity(), nn.Identity()

    def forward(self, x, a=None, b=None):
        x = self.first(x)
        if b is not None:  # the whole sub-layer under the test meant for b
            x = self.second(x)
        return x


def test_a_sub_module_skipped_when_one_argument_is_none_is_found_with_that_argument():
    module, x = _Guarded(), torch.randn(2, 3)
    skipped = skipped_by_none(
        module,
        ("first", "second"),
        lambda values: module(x, values["a"], values["b"]),
        {"a": torch.ones(1), "b": torch.ones(1)},
    )
    assert skipped == {"second": ["b"]}
