"""checking.position_indexing: the table row each token received, and the index rule."""

import torch

from transformer_course.checking.position_indexing import indexing_reading, rows_added


def _table(rows=16, width=8):
    position = torch.arange(rows, dtype=torch.float64)[:, None]
    rate = 10000.0 ** (-torch.arange(0, width, 2, dtype=torch.float64) / width)
    return torch.stack([(position * rate).sin(), (position * rate).cos()], -1).flatten(-2)


def test_rows_added_reads_each_tokens_row():
    pe = _table()
    index = torch.tensor([[0, 1, 2], [1, 1, 1]])
    assert torch.equal(rows_added(pe[index], pe), index)
    assert rows_added(pe[index] + 0.5, pe) is None  # no row of the table


def test_indexing_reading_names_the_batch_axis_and_other_rules():
    batch, length = 3, 5
    b = torch.arange(batch)[:, None].expand(batch, length)
    t = torch.arange(length)[None, :].expand(batch, length)
    assert indexing_reading(t) == ""
    assert "pe[b], one vector per sentence" in indexing_reading(b)
    assert "counted from 1" in indexing_reading(t + 1)
    assert "pe[0]" in indexing_reading(torch.zeros_like(t))
    assert "flattened" in indexing_reading(b * length + t)
    assert indexing_reading((t * 2) % 7) == ""
