"""Online softmax and tiled (flash-style) attention (lesson 12), block by block as the
lesson builds them, with one knob per classic mistake: a running maximum or sum not
rescaled when the maximum grows, rescaled the wrong way, started at 0, each block's own
maximum, the causal mask indexed inside the block. Right with the defaults
(tests/test_oracles.py: equal to torch.softmax and F.scaled_dot_product_attention)."""

from __future__ import annotations

import math

import torch

__all__ = ["online_softmax_f", "tiled_attention_f"]


def online_softmax_f(
    x: torch.Tensor,
    block_size: int,
    *,
    rescale: str = "right",
    start: float = float("-inf"),
    running: bool = True,
    update: bool = True,
    skip_last: bool = False,
    final_max: str = "running",
    terms_max: str = "new",
    extreme: str = "max",
) -> torch.Tensor:
    """The online softmax of x (..., n) over its last axis, one block of ``block_size``
    at a time, in x's dtype: right with the defaults; the knobs are classic mistakes:
    ``rescale`` "none" or "inverted", the running maximum ``start``ing at 0 instead of
    -inf, and (``running`` False) a maximum that is each block's own instead of the
    largest value seen so far; ``final_max`` "last_block": the final exp(x - m) taken with
    the last block's own maximum instead of the running one; ``terms_max`` "block": each
    block's terms added as exp(block - its own maximum) instead of the new running one;
    ``extreme`` "min": a running minimum in its place (amin, torch.minimum, from +inf
    when ``start`` says so)."""
    m = torch.full(x.shape[:-1], start, dtype=x.dtype)
    last = m
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    n = x.shape[-1]
    for first in range(0, n - block_size + 1 if skip_last else n, block_size):
        block = x[..., first : first + block_size]
        last = block.amin(dim=-1) if extreme == "min" else block.amax(dim=-1)
        larger = torch.minimum if extreme == "min" else torch.maximum
        new = larger(m, last) if running else last
        if rescale == "none":
            factor = torch.ones_like(total)
        elif rescale == "inverted":
            factor = torch.exp(new - m).nan_to_num(0.0, posinf=0.0)
        elif rescale == "inverted_raw":  # exp(+inf) on the first block: NaN, as written
            factor = torch.exp(new - m)
        else:
            factor = torch.exp(m - new)
        terms = last if terms_max == "block" else new
        total = total * factor + torch.exp(block - terms[..., None]).sum(dim=-1)
        if update:
            m = new
    final = last if final_max == "last_block" else m
    return torch.exp(x - final[..., None]) / total[..., None]


def tiled_attention_f(
    q,
    k,
    v,
    block_size: int,
    causal: bool = False,
    *,
    rescale_sum: bool = True,
    rescale_output: bool = True,
    local_index: bool = False,
    running: bool = True,
    strict: bool = False,
    old_max: bool = False,
    divide: bool = True,
    inverted: str = "",
    no_max: bool = False,
    initial_max: float = float("-inf"),
    normalise_each: str = "",
    transposed_test: bool = False,
    factor_as: str = "",
):
    """Tiled (flash-style) attention: softmax(q kᵀ / sqrt(d_k)) v, one block of
    ``block_size`` keys at a time, in q's dtype; q (..., len_q, d_k), k (..., len_k, d_k),
    v (..., len_k, d_v) -> (..., len_q, d_v); ``causal``: query i sees keys 0 .. i. Right
    with the defaults; the knobs are classic mistakes: the
    running sum or the accumulated output not rescaled when the maximum grows, the causal
    mask comparing a query with the key's index inside its block, a maximum that is each
    block's own (``running`` False), the accumulated output (``inverted`` "output") or the
    running sum ("sum") divided by the factor exp(m_old - m_new) instead of multiplied (0 on
    the first block: 0 / 0); ``no_max``: each block's weights exp(s), no maximum
    subtracted, while the sum and output are still rescaled; ``initial_max``: the running
    maximum's start (0 instead of -inf: exact unless a row's scores are all far below 0,
    where every exp underflows, 0 / 0); ``normalise_each``: the output divided by the
    running sum inside the loop, after every block, with the sum then restarted at 1
    ("reset") or kept, and the output divided by it again at the end ("keep");
    ``transposed_test``: each block's causal test built (block, len_q), the key positions
    a column and the query positions a row, torch.arange(start, stop)[:, None] >
    rows.T (it broadcasts only when block_size == len_q); ``factor_as``: the rescale
    factor of the sum and the output with one of its two terms dropped, exp(m_old) ("old":
    the new maximum never subtracted) or exp(-m_new) ("new": the old maximum left out)."""
    len_q, len_k = q.shape[-2], k.shape[-2]
    m = torch.full(q.shape[:-1], initial_max, dtype=q.dtype)  # (..., len_q)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)  # (..., len_q)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)  # (..., len_q, d_v)
    rows = torch.arange(len_q)[:, None]
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        s = q @ k[..., start:stop, :].transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            keys = torch.arange(stop - start) if local_index else torch.arange(start, stop)
            future = keys[None] >= rows if strict else keys[None] > rows
            if transposed_test:
                future = keys[:, None] > rows.T  # (block, len_q), used as (len_q, block)
            s = s.masked_fill(future, float("-inf"))
        new = torch.maximum(m, s.amax(dim=-1)) if running else s.amax(dim=-1)
        factor = torch.exp(m - new)  # (..., len_q)
        if factor_as:
            factor = torch.exp(m if factor_as == "old" else -new)
        p = torch.exp(s - (m if old_max else new)[..., None])  # (..., len_q, block)
        if no_max:
            p = torch.exp(s)
        sum_factor = 1 / factor if inverted == "sum" else factor
        out_factor = 1 / factor if inverted == "output" else factor
        total = total * (sum_factor if rescale_sum else 1.0) + p.sum(-1)
        acc = acc * (out_factor[..., None] if rescale_output else 1.0) + p @ v[..., start:stop, :]
        m = new
        if normalise_each:
            acc = acc / total[..., None]
            if normalise_each == "reset":
                total = torch.ones_like(total)
    return acc / total[..., None] if divide else acc
