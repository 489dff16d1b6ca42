"""checking.init_statistics: the distribution a fresh weight was drawn from."""

import torch
from torch import nn

from transformer_course.checking.init_statistics import init_shape


def _drawn(init):
    torch.manual_seed(0)
    weight = torch.empty(256, 64)
    init(weight)
    return init_shape(weight)


def test_a_normal_cut_at_absolute_bounds_is_read_with_its_cut_and_scale():
    shape = _drawn(lambda w: nn.init.trunc_normal_(w, std=0.02, a=-0.02, b=0.02))
    assert shape.kind == "truncated normal"
    assert abs(shape.cut_in_stds - 1) < 0.1 and abs(shape.scale - 0.02) < 0.001
    assert abs(shape.bound - 0.02) < 1e-4


def test_uniform_normal_and_constant_draws_are_told_apart():
    assert _drawn(lambda w: nn.init.uniform_(w, -0.1, 0.1)).kind == "uniform"
    assert _drawn(lambda w: nn.init.normal_(w, std=0.02)).kind == "normal"
    # trunc_normal_'s default bounds (±2, absolute) leave a normal of std 0.02 whole
    assert _drawn(lambda w: nn.init.trunc_normal_(w, std=0.02)).kind == "normal"
    assert _drawn(nn.init.zeros_).kind == "constant"
    assert init_shape(torch.randn(10)) is None  # too few draws to tell
