"""How a bool mask the learner built or passed on relates to the right one, read off the two
masks' values (after broadcasting both to one shape), so that every check that localises a
wrong mask names the mistake alike:

- the logical inverse (True exactly where the right mask is False): ``~mask``, ``ids ==
  pad_id``, or PyTorch's True = blocked convention, where this course's masks are True = may
  attend;
- the query and key axes swapped: a padding mask built as (batch, 1, len, 1), pads on the
  query axis, where (batch, 1, 1, len) puts them on the key axis;
- combined with its own transpose, ``mask & mask.transpose(-1, -2)``: a padding mask made
  square, its pads blocked as queries as well as keys (blind29b-enc-square-padding-mask);
- everything allowed (no masking) or everything blocked;
- :func:`triangle_offset`: a causal triangle cut at another diagonal, torch.tril(...,
  diagonal=d) with d != 0 (d > 0 lets each query see d later keys, d < 0 hides itself and
  the |d| - 1 keys before it), with whatever key padding the right mask holds kept;
  :func:`moved_diagonals` gives the same cuts, in the same words
  (:func:`diagonal_sentence`), as candidates for a check that sees only the attention's
  output.

Each is named only when it reproduces every entry of the learner's mask, and never when the
right mask itself would also fit (a relation that changes nothing explains nothing)."""

from __future__ import annotations

from typing import Any

import torch

__all__ = [
    "mask_relation",
    "moved_diagonals",
    "triangle_offset",
    "triangle_offset_note",
    "unasked_masks",
]


def _broadcast(mine: torch.Tensor, right: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Both masks at one shape with square (query, key) axes: (..., n, n) where n is the
    larger of the last two sizes, so that a (batch, 1, 1, len) mask and a (batch, 1, len, 1)
    one can be compared entry by entry."""
    n = max(mine.shape[-1], mine.shape[-2], right.shape[-1], right.shape[-2])
    shape = (*torch.broadcast_shapes(mine.shape[:-2], right.shape[:-2]), n, n)
    return mine.expand(shape), right.expand(shape)


def mask_relation(
    mine: Any, right: torch.Tensor, name: str = "mask", *, from_ids: bool = False
) -> str:
    """A sentence naming how ``mine`` relates to the right bool mask ``right`` (both with a
    (query, key) pair of last axes, broadcastable), or "" when no single relation explains
    every entry (or the values are not bool tensors that broadcast). ``from_ids``: the
    learner built the mask from token ids (so ids == pad_id is a candidate), rather than
    passing on a mask it was given."""
    if not isinstance(mine, torch.Tensor) or not isinstance(right, torch.Tensor):
        return ""
    if mine.dim() < 2 or right.dim() < 2 or mine.dtype != torch.bool:
        return ""
    try:
        a, b = _broadcast(mine.detach(), right.detach().bool())
    except RuntimeError:
        return ""
    if torch.equal(a, b):
        return ""
    if torch.equal(a, ~b):
        return (
            f"your {name} is the right one inverted: True exactly where it should be False "
            + ("(as ~mask, or ids == pad_id, gives). " if from_ids else "(as ~mask gives). ")
            + "In this course a mask says True = may "
            "attend (PyTorch's nn.MultiheadAttention takes the opposite, True = blocked): "
            "do not invert it."
        )
    if torch.equal(a, b.transpose(-1, -2)):
        shape = tuple(mine.shape)
        if mine.shape[-1] == 1 and mine.shape[-2] > 1:
            return (
                f"your {name} has shape {shape}: its pads sit on the query axis (rows), "
                "where a padding mask puts them on the key axis (columns), (batch, 1, 1, len): "
                "each real token still attends to the pads, and the pads' own rows are "
                "blocked instead. Index it as (ids != pad_id)[:, None, None, :]."
            )
        return (
            f"your {name} is the right one with its query and key axes swapped (the last two "
            "axes transposed): entry (i, j) holds what belongs at (j, i)."
        )
    both = b & b.transpose(-1, -2)
    if not torch.equal(both, b) and torch.equal(a, both):
        if right.shape[-2] == 1 and right.shape[-1] > 1:
            return (
                f"your {name} blocks the pads as queries as well as keys: it is the padding "
                "mask made square, as mask & mask.transpose(-1, -2) gives ((len, len): entry "
                "(i, j) True only where both i and j are real), so every padded position's "
                "row is fully blocked: its attention is empty (a softmax over no key) and its "
                "output is no longer what the layers compute. A padding mask blocks keys "
                "only, (batch, 1, 1, len): a pad may still attend (its output is ignored by "
                "the loss), and only the real queries' view of the pads is cut."
            )
        return (
            f"your {name} is the right one combined with its own transpose (mask & "
            "mask.transpose(-1, -2)): entry (i, j) is allowed only where (j, i) is allowed "
            "too, so rows the right mask leaves open are blocked."
        )
    if bool(a.all()):
        return f"your {name} allows every entry (True everywhere): nothing is masked."
    if not bool(a.any()):
        return f"your {name} blocks every entry (False everywhere): no query can attend."
    return ""


def unasked_masks(len_q: int, len_k: int) -> dict[str, torch.Tensor]:
    """The masks a function may apply although it was given none (mask=None): each classic
    default (a causal mask, is_causal=True, aligned to the first key or to the last; its
    inverse, the later keys only) as (len_q, len_k) bool, True = may attend, keyed by the
    sentence that names it. Candidates equal on these sizes are named together, so an output
    that matches one never names a cause the sizes cannot tell apart."""
    ones = torch.ones(len_q, len_k, dtype=torch.bool)
    top_left = torch.tril(ones)  # (len_q, len_k): query i sees keys 0 .. i
    bottom_right = torch.tril(ones, diagonal=len_k - len_q)  # query i is position len_k - len_q + i
    later = ~torch.tril(ones, diagonal=-1)  # (len_q, len_k): query i sees keys i .. len_k - 1
    candidates = {
        "a causal mask aligned to the first key (query i sees keys 0 .. i only), as "
        "is_causal=True in F.scaled_dot_product_attention or torch.tril(torch.ones(len_q, "
        "len_k)) gives": top_left,
        "a causal mask aligned to the last key (query i, the (len_k - len_q + i)-th "
        "position, sees the keys up to it only), as lesson 06's look_ahead_mask(len_k)"
        "[-len_q:] gives": bottom_right,
        "a mask that lets query i see keys i .. len_k - 1 only (the causal mask inverted, "
        "~look_ahead_mask or torch.triu)": later,
    }
    grouped: dict[str, torch.Tensor] = {}
    for text, mask in candidates.items():
        same = next((key for key, other in grouped.items() if torch.equal(other, mask)), None)
        if same is None:
            grouped[text] = mask
        else:
            grouped[f"{same}, or {text} (the two agree on these sizes)"] = grouped.pop(same)
    return {text: mask for text, mask in grouped.items() if not bool(mask.all())}


def triangle_offset(mine: Any, right: torch.Tensor) -> int | None:
    """The diagonal d != 0 for which ``mine`` equals the right causal mask ``right`` (bool,
    (..., n, n), a lower triangle and'ed with per-sequence key padding) with its triangle cut
    at torch.tril(..., diagonal=d) instead of 0, the padding kept; None when no single d
    fits (or the values are not bool tensors of ``right``'s shape)."""
    if not isinstance(mine, torch.Tensor) or not isinstance(right, torch.Tensor):
        return None
    if mine.dtype != torch.bool or tuple(mine.shape) != tuple(right.shape) or right.dim() < 2:
        return None
    n = right.shape[-1]
    if right.shape[-2] != n or n < 2 or torch.equal(mine, right):
        return None
    keys = right[..., -1:, :]  # (..., 1, n): the last query sees every real key
    ones = torch.ones(n, n, dtype=torch.bool)
    if not torch.equal(right, keys & torch.tril(ones)):
        return None  # not a causal mask with key padding: nothing to offset
    fits = [d for d in range(-n + 1, n) if d and torch.equal(mine, keys & torch.tril(ones, d))]
    return fits[0] if len(fits) == 1 else None


def diagonal_sentence(d: int, name: str = "mask") -> str:
    """What a causal triangle cut at torch.tril(..., diagonal=d), d != 0, does, and the right
    cut: the one sentence that a mask read off directly (:func:`triangle_offset_note`) and an
    attention output matched against the oracle with a moved diagonal
    (:func:`moved_diagonals`) both say."""
    if d > 0:
        what = (
            f"each query also sees the {'next key' if d == 1 else f'{d} keys after it'}, "
            "so the future leaks into training"
        )
    else:
        what = (
            "each query is hidden from itself"
            + (f" and from the {-d - 1} key(s) just before it" if d < -1 else "")
            + " (query 0 then sees nothing: a fully masked row)"
        )
    return (
        f"Your {name}'s triangle is cut at the wrong diagonal: it is torch.tril(..., "
        f"diagonal={d}) (j <= i {'+' if d > 0 else '-'} {abs(d)}) where diagonal=0 (j <= i) "
        f"belongs: {what}. Query i may attend to keys 0..i, itself included: "
        "torch.tril(torch.ones(size, size, dtype=torch.bool)) with no diagonal argument."
    )


def triangle_offset_note(mine: Any, right: torch.Tensor, name: str = "mask") -> str:
    """:func:`triangle_offset` in words ("" when no offset fits)."""
    d = triangle_offset(mine, right)
    return "" if d is None else diagonal_sentence(d, name)


def moved_diagonals(offsets: tuple[int, ...] = (1, 2, -2)) -> dict[str, int]:
    """{message: d} for a causal mask cut at torch.tril(..., diagonal=d) where diagonal=0
    belongs: candidates for a check to match the learner's output against with its oracle
    (round 34: tril(..., diagonal=1), one future key seen, got "differs from the
    reference"). d = -1, the diagonal left out, is the classic that checks name themselves."""
    return {diagonal_sentence(d, "causal mask"): d for d in offsets}
