"""checking.empty_mask_rows: the rows of a mask that allow no key, patched to allow some."""

import torch

from transformer_course.checking.empty_mask_rows import patched_empty_rows


def _mask():  # a left-padded sequence under a causal mask: rows 0 and 1 allow nothing
    real = torch.tensor([False, False, True, True])
    return (real[None, :] & torch.tril(torch.ones(4, 4, dtype=torch.bool)))[None, None]


def test_every_patch_changes_only_the_empty_rows():
    mask = _mask()
    found = patched_empty_rows(mask)
    assert len(found) == 3
    for value in found.values():
        assert torch.equal(value[..., 2:, :], mask[..., 2:, :])
        assert bool(value[..., :2, :].any(dim=-1).all())
    every = next(v for m, v in found.items() if "allows every key" in m)
    assert bool(every[..., :2, :].all())
    assert "the first at index (0, 0, 0), query 0" in next(iter(found))


def test_no_empty_row_no_candidate():
    assert patched_empty_rows(torch.tril(torch.ones(3, 3, dtype=torch.bool))) == {}
