"""checking.precision: a module whose float32 result is wrong and whose float64 copy is
right is told apart from one that is wrong in both."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.precision import (
    narrow_dtype_grid,
    narrow_rounding,
    narrow_variants,
    right_in_float64,
)


class _LogOfProduct(nn.Module):
    """log(prod(x)) for the sum of the logs: right on paper, the product underflows in
    float32 (and not in float64) for many small factors."""

    def forward(self, x):  # (batch, n) -> (batch,)
        return torch.log(torch.prod(x, dim=-1))


def test_right_in_float64_tells_precision_from_a_wrong_formula():
    x = torch.full((2, 40), 0.01)  # prod 1e-80: 0 in float32, about 1e-80 in float64
    expected = torch.log(x.double()).sum(-1)  # (2,)
    module = _LogOfProduct()
    assert torch.isinf(module(x)).all()
    assert right_in_float64(module, (x,), expected) is True
    assert right_in_float64(module, (x,), expected + 1.0) is False


def test_right_in_float64_makes_no_claim_without_a_tensor():
    class _ReturnsNone(nn.Module):
        def forward(self, x):
            return None

    assert right_in_float64(_ReturnsNone(), (torch.ones(2),), torch.ones(2)) is None


def test_a_result_a_hair_off_that_moves_by_a_hair_is_a_narrow_rounding():
    """Round 34: a loss computed in bfloat16 (a hair off, and a shift of the logits that the
    loss ignores moves it by another hair) against a formula's slips (a raw logit read
    moves it by the shift's size; a constant factor is far off)."""
    assert narrow_rounding(2.94811, 2.95077, 0.0045)
    assert not narrow_rounding(2.94811, 2.95077, 2.7)  # a raw logit read: moved by ~3·(1 - ε)
    assert not narrow_rounding(3.2, 2.95077, 0.0)  # far off: a formula's
    assert not narrow_rounding(0.0, 0.0)


def test_a_result_cast_back_from_a_narrow_dtype_is_told_by_its_values():
    torch.manual_seed(0)
    x = torch.randn(3, 5, dtype=torch.float64)
    right = torch.softmax(x, dim=-1)
    assert narrow_dtype_grid(torch.softmax(x.half(), -1).double(), right) == torch.float16
    assert narrow_dtype_grid(torch.softmax(x.bfloat16(), -1).double(), right) == torch.bfloat16
    # the right values, float32's rounding, or a formula's slip: no narrow dtype
    assert narrow_dtype_grid(right, right) is None
    assert narrow_dtype_grid(right.float(), right) is None
    assert narrow_dtype_grid((right * 1.01).half().double(), right) is None


def test_narrow_variants_tell_which_inputs_were_rounded_and_to_which_dtype():
    """blind30c: a product with one factor rounded to bfloat16 is that variant alone."""
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(50, generator=g), torch.randn(50, generator=g)
    got = (a * b.bfloat16().float()).double()
    variants = narrow_variants(lambda a, b: a * b, {"a": a, "b": b}, {"b": ("b",), "a": ("a",)})
    fits = [key for key, value in variants.items() if torch.allclose(got, value, rtol=1e-6)]
    assert fits == [("b", "bfloat16")]
    assert variants[("everything", "float16")].dtype == torch.float64
