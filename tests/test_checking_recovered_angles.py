"""checking.recovered_angles: the tables of angles recovered over half a turn."""

from __future__ import annotations

import torch

from transformer_course.checking.recovered_angles import half_turn_slips


def test_each_slip_gives_the_tables_of_the_angles_its_inverse_function_returns():
    angles = torch.linspace(-3.0, 6.0, 40, dtype=torch.float64)
    cos, sin = angles.cos(), angles.sin()
    recovered = {
        "torch.atan(sin / cos)": torch.atan(sin / cos),
        "torch.asin(sin)": torch.asin(sin),
        "torch.acos(cos)": torch.acos(cos),
    }
    slips = half_turn_slips(cos, sin)
    assert set(slips) == set(recovered)
    for slip, theta in recovered.items():
        new_cos, new_sin = slips[slip]
        assert torch.allclose(new_cos, theta.cos(), atol=1e-12), slip
        assert torch.allclose(new_sin, theta.sin(), atol=1e-12), slip


def test_small_angles_come_back_right():
    angles = torch.linspace(0.0, 1.5, 10, dtype=torch.float64)
    for new_cos, new_sin in half_turn_slips(angles.cos(), angles.sin()).values():
        assert torch.equal(new_cos, angles.cos()) and torch.equal(new_sin, angles.sin())
