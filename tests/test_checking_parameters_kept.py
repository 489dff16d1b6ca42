"""checking.parameters_kept: a max_norm's renormalisation of the rows looked up, told from
other writes to a table."""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.checking.parameters_kept import renormalised_rows


def test_a_max_norm_lookup_is_read_off_the_rows_it_changed():
    torch.manual_seed(0)
    embedding = nn.Embedding(20, 8, max_norm=1.5)
    with torch.no_grad():
        embedding.weight.mul_(2.0)
    before = embedding.weight.detach().clone()
    ids = torch.tensor([[1, 4, 4, 7], [0, 9, 1, 3]])
    embedding(ids)
    limit = renormalised_rows(before, embedding.weight, ids)
    assert limit is not None and abs(limit - 1.5) < 1e-4


def test_other_writes_are_not_a_max_norm():
    torch.manual_seed(0)
    before = torch.randn(20, 8) * 3
    ids = torch.tensor([1, 4, 7])
    assert renormalised_rows(before, before * 0.5, ids) is None  # every row written
    redrawn = before.clone()
    redrawn[ids] = torch.randn(3, 8)
    assert renormalised_rows(before, redrawn, ids) is None  # the rows redrawn
    assert renormalised_rows(before, before.clone(), ids) is None  # nothing changed
