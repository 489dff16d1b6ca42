"""checking.narrow_tables: a fixed table built or stored in a narrow dtype."""

import numpy as np
import torch

from transformer_course.checking.narrow_tables import narrow_table_note


def _table(max_len=2000, d=8, dtype=torch.float64):
    pos = torch.arange(max_len, dtype=dtype)[:, None]
    angles = pos / (10000 ** (torch.arange(0, d, 2, dtype=dtype) / d))
    table = torch.zeros(max_len, d, dtype=dtype)
    table[:, 0::2], table[:, 1::2] = torch.sin(angles), torch.cos(angles)
    wide = angles.double().numpy()
    return table, np.repeat(wide, 2, axis=1)


def test_angles_in_float16_named_with_the_growth_along_the_positions():
    right, angles = _table()
    half, _ = _table(dtype=torch.float16)
    note = narrow_table_note({"pe": half}, right.numpy(), angles)
    assert "is stored as float16" in note and "grows with the position" in note


def test_values_cast_up_from_bfloat16_are_read_off_the_grid():
    right, angles = _table(40)
    note = narrow_table_note({"pe": right.to(torch.bfloat16).float()}, right.numpy(), angles)
    assert "every value is a bfloat16 number" in note and "grows" not in note


def test_silent_on_a_right_table_or_a_formula_slip():
    right, angles = _table(40)
    assert narrow_table_note({"pe": right.float()}, right.numpy(), angles) == ""
    assert narrow_table_note({"pe": (right * 0.5).half()}, right.numpy(), angles) == ""
