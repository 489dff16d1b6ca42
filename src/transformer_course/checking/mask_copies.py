"""A mask that reaches an attention as copies of the mask it was given, one per sentence
and head: which sentence's mask each copy holds, and how the copies were laid out (the
batch and heads merged into one axis, or tiled across the batch so that the heads of a
sentence read other sentences' masks)."""

from __future__ import annotations

from typing import Any

import torch


def _sources(copies: torch.Tensor, rows: torch.Tensor) -> list[list[int]]:
    """For each copy (copies[i]: (len_q', len_k)), the sentences s whose mask rows[s]
    ((len_q or 1, len_k)) it equals once broadcast to its shape."""
    found = []
    for copy in copies:
        matched = []
        for s, row in enumerate(rows):
            try:
                expanded = row.expand(copy.shape)
            except RuntimeError:
                continue
            if torch.equal(copy, expanded):
                matched.append(s)
        found.append(matched)
    return found


def mask_copies(mask: Any, wanted: Any, label: str = "mask") -> str:
    """How ``mask`` holds copies of the 4-D mask ``wanted`` (batch, 1, len_q or 1, len_k)
    per sentence and head, as a sentence; "" when it is not that, or when every head of
    every sentence holds that sentence's own mask in the layout the scores broadcast with."""
    if not isinstance(mask, torch.Tensor) or not isinstance(wanted, torch.Tensor):
        return ""
    if wanted.dim() != 4 or wanted.shape[1] != 1 or mask.shape[-1:] != wanted.shape[-1:]:
        return ""
    batch = int(wanted.shape[0])
    mask, wanted = mask.detach().cpu(), wanted.detach().cpu()
    if mask.dtype != wanted.dtype:
        mask = mask.to(wanted.dtype)
    rows = wanted[:, 0]  # (batch, len_q or 1, len_k)
    if mask.dim() == 3 and mask.shape[0] > batch and mask.shape[0] % batch == 0:
        merged, count = True, int(mask.shape[0])
        copies = mask  # (batch * heads, len_q', len_k)
    elif mask.dim() == 4 and mask.shape[0] == batch and mask.shape[1] > 1:
        merged, count = False, batch * int(mask.shape[1])
        copies = mask.reshape(count, *mask.shape[2:])  # (batch * heads, len_q', len_k)
    else:
        return ""
    heads = count // batch
    sources = _sources(copies, rows)
    if not all(sources):
        return ""
    together = all(i // heads in sources[i] for i in range(count))
    tiled = all(i % batch in sources[i] for i in range(count))
    if merged and (together or tiled):
        order = (
            "each sentence's copies together"
            if together
            else "the sentences tiled (mask 0, mask 1, ..., mask 0, mask 1, ...)"
        )
        return (
            f"gets {label} as {count} separate (len_q, len_k) masks, shape "
            f"{tuple(mask.shape)}: the batch and the heads merged into one leading axis of "
            f"batch * num_heads = {batch} * {heads} = {count}, {order} (the 3-D attn_mask "
            "layout of PyTorch's nn.MultiheadAttention). This attention takes a mask that "
            "broadcasts against its scores (batch, num_heads, len_q, len_k), whose leading "
            f"axis is the batch alone: pass {label} on as it is, its size-1 head axis "
            "broadcasts to every head."
        )
    if merged or together:
        return ""
    wrong = [
        (i // heads, i % heads, sources[i][0]) for i in range(count) if i // heads not in sources[i]
    ]
    b, h, s = wrong[0]
    seen = f"head {h} of sentence {b} gets sentence {s}'s {label}"
    transposed = heads <= batch and all(i % heads in sources[i] for i in range(count))
    if tiled:
        how = (
            "the copies per head were tiled across the batch (mask 0, mask 1, ..., mask 0, "
            "mask 1, ...), as .repeat(num_heads, 1, 1, 1) or torch.cat([mask] * num_heads) "
            "lays them out, then viewed as (batch, num_heads, ...)"
            + (
                ", or the batch and head axes were swapped (with as many heads as sentences "
                "the two agree)"
                if transposed
                else ""
            )
            + ". Copies that keep each sentence together come from "
            "repeat_interleave(num_heads, dim=0)"
        )
    elif transposed:
        how = "the batch and head axes were swapped on the way"
    else:
        how = "the copies were mixed across the sentences on the way"
    return (
        f"gets {label} with shape {tuple(mask.shape)}, one copy per head, but the heads of a "
        f"sentence read other sentences' masks ({seen}): {how}. Simplest: pass {label} on "
        "as it is; its size-1 head axis broadcasts to every head."
    )
