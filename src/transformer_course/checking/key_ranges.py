"""Attention over a range of the keys only: the learner's output read as the right
attention restricted to keys a .. b - 1 (k and v cut to k[..., a:b, :] before the scores,
a slice by another length, a loop or a window that stops early), found by trying every
contiguous range, the full one excepted. Observed from the outputs alone, so any exercise
whose output is attention over a key axis can name it."""

from __future__ import annotations

from collections.abc import Callable

import torch


def attended_key_range(
    got, attend: Callable[[int, int], torch.Tensor | None], len_k: int, atol: float = 1e-5
) -> tuple[int, int] | None:
    """The one range [a, b) of keys, 0 <= a < b <= len_k and not [0, len_k), such that
    ``attend(a, b)`` (the right attention over keys a .. b - 1 only) equals ``got``; None
    when no range or more than one does, or anything fails (values from a sandbox, an odd
    shape: say nothing)."""
    if not isinstance(got, torch.Tensor) or len_k < 2:
        return None
    try:
        mine = got.detach().double()
        found = []
        for a in range(len_k):
            for b in range(a + 1, len_k + 1):
                if (a, b) == (0, len_k):
                    continue
                expected = attend(a, b)
                if expected is None or tuple(expected.shape) != tuple(mine.shape):
                    continue
                if torch.allclose(mine, expected.double(), rtol=1e-4, atol=atol):
                    found.append((a, b))
    except (RuntimeError, ValueError, IndexError, TypeError):
        return None
    return found[0] if len(found) == 1 else None


def key_range_text(a: int, b: int, len_k: int, lengths: dict[str, int]) -> str:
    """The range in words, with the other length that ends it when one does (``lengths``:
    name -> value, such as {"len_q = q.shape[-2]": 3})."""
    cut = f"k[..., {a or ''}:{b if b < len_k else ''}, :]"
    same = [name for name, value in lengths.items() if value == b and b < len_k]
    ends = (
        f" It stops at {b}, which is {same[0]}: is a length taken from the wrong tensor "
        f"where len_k = k.shape[-2] = {len_k} belongs?"
        if same
        else ""
    )
    return (
        f"Your output is the right attention over keys {a} .. {b - 1} only, of the {len_k} "
        f"keys: the others get no weight, as if k and v were cut to {cut} before the "
        f"scores.{ends} Every query attends over all len_k keys (those its mask allows)."
    )
