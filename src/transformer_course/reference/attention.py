"""Reference implementation: lesson 04 · Scaled dot-product attention

Generated from the lesson master `solutions/04_attention/04_attention.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import math

import numpy as np
import torch


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax of `x` along `axis`.

    x: a float numpy array of any shape; it is not modified.
    Returns a new array of the same shape whose slices along `axis` are non-negative and
    add up to 1. Entries equal to -inf get weight 0. A slice in which every entry is
    -inf comes back as all zeros (uniform weights, 1/n each, are accepted too; NaN is
    not). Any float dtype is accepted for the result; this one keeps the input's.
    """
    peak = np.max(x, axis=axis, keepdims=True)  # (..., 1, ...): one max per slice
    peak = np.where(np.isfinite(peak), peak, 0.0)  # an all -inf slice: subtract nothing
    exps = np.exp(x - peak)  # largest entry of each slice is exp(0) = 1
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)


# "The black cat drank the milk" with hand-made vectors (a trained model learns its own).
CAT_WORDS = ["the", "black", "cat", "drank", "the", "milk"]  # BLACK_CAT, word by word
CAT_QUERIES = np.array(  # (len_q, d_k) = (6, 3): drinkable, animal, colour
    [
        [0.0, 1.0, 0.0],  # the:   looks for the animal it introduces
        [0.0, 2.0, 0.0],  # black: looks for the thing it colours
        [1.0, 0.0, 1.0],  # cat:   looks for what it drinks and its colour
        [2.0, 1.0, -1.0],  # drank: something drinkable, an animal, not a colour
        [1.0, 0.0, 0.0],  # the:   looks for the drinkable thing it introduces
        [0.0, 1.0, 0.0],  # milk:  looks for who drank it
    ]
)
CAT_KEYS = np.array(  # (len_k, d_k) = (6, 3): what each word offers
    [
        [0.0, 0.0, 0.0],  # the
        [-1.0, 0.0, 2.0],  # black
        [0.0, 2.0, 0.5],  # cat
        [0.5, 0.5, 0.0],  # drank
        [0.0, 0.0, 0.0],  # the
        [2.0, 0.0, 0.5],  # milk
    ]
)
CAT_VALUES = np.array(  # (len_k, d_v) = (6, 4): liquid, animal, dark, action
    [
        [0.0, 0.0, 0.0, 0.0],  # the
        [0.0, 0.0, 1.0, 0.0],  # black
        [0.0, 1.0, 0.0, 0.0],  # cat
        [0.0, 0.0, 0.0, 1.0],  # drank
        [0.0, 0.0, 0.0, 0.0],  # the
        [1.0, 0.0, 0.0, 0.0],  # milk
    ]
)


def attention_row(
    query: np.ndarray, keys: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Attention of one query over a sentence, in numpy.

    query:  (d_k,)        what one word looks for
    keys:   (len_k, d_k)  what each word offers
    values: (len_k, d_v)  what each word hands over

    Returns (weights, output):
    weights: (len_k,)  softmax(keys @ query / sqrt(d_k)): non-negative, adding up to 1
    output:  (d_v,)    sum over j of weights[j] * values[j]
    The inputs are not modified. Any float dtype is accepted for the results.
    """
    d_k = query.shape[-1]
    scores = keys @ query / math.sqrt(d_k)  # (len_k,): one score per key
    weights = softmax(scores)  # (len_k,): adds up to 1
    output = weights @ values  # (d_v,): weighted sum of the value rows
    return weights, output


def quiz_score_scale() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "c"


def quiz_fully_masked() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return "b"


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q kᵀ / sqrt(d_k) + mask) v, for any number of leading batch dims.

    q:    (..., len_q, d_k)   queries
    k:    (..., len_k, d_k)   keys
    v:    (..., len_k, d_v)   values
    mask: None, or a bool tensor broadcastable to (..., len_q, len_k);
          True = this query may attend to this key, False = blocked.

    Returns (output, weights):
    output:  (..., len_q, d_v)    row i = sum over j of weights[..., i, j] * v[..., j, :]
    weights: (..., len_q, len_k)  each row sums to 1 over the keys it may attend to;
             a query row with no allowed key gets all-zero weights (and a zero output).
    q, k, v and mask are not modified. Accepted too: any value that blocks a key (-inf,
    -1e9, torch.finfo(dtype).min, an additive mask), uniform weights for a row with no
    allowed key (never NaN), results in another float dtype.
    """
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., len_q, len_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # blocked keys: -inf
    weights = torch.softmax(scores, dim=-1)  # (..., len_q, len_k): over the keys
    if mask is not None:
        nothing_allowed = ~mask.any(dim=-1, keepdim=True)  # (..., len_q, 1)
        if nothing_allowed.any():  # a causal or padding mask has none: skip the copy
            weights = weights.masked_fill(nothing_allowed, 0.0)  # NaN rows -> 0
    output = weights @ v  # (..., len_q, d_v)
    return output, weights


def quiz_cross_attention_roles() -> str:
    """Your answer to Question 3: "a", "b", "c" or "d"."""
    return "b"
