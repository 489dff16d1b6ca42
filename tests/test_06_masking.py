"""Lesson 06 (masking): classic mistakes must fail with their intended message in the
visible and the hidden check, correct variants (including the way the Annotated
Transformer, nanoGPT and d2l build their masks) must pass both, and the reference masks
agree with independent oracles (PyTorch's own modules and the paper's definition of
masking: attention restricted to the allowed keys)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from common import Correct, Mistake, lesson_tests
from torch import nn

from transformer_course.checking import CheckFailure
from transformer_course.checks.masking import (
    QUIZ_FULLY_MASKED_ROW,
    QUIZ_WHICH_MASK,
    check_decoder_self_attention_mask,
    check_look_ahead_mask,
    check_padding_mask,
)
from transformer_course.reference import masking as ref
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.multi_head_attention import MultiHeadAttention


def _tril(n, diagonal=0):
    return torch.tril(torch.ones(n, n, dtype=torch.bool), diagonal=diagonal)


def _named(name, fn):
    fn.__name__ = fn.__qualname__ = name
    return fn


def subsequent_mask(size):
    """The Annotated Transformer's subsequent_mask, written again: (1, size, size)."""
    attn_shape = (1, size, size)
    upper = torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8)
    return upper == 0


_FIRST_MASK: list = []


def look_ahead_built_once(size):  # the first call's mask, kept for every later size
    if not _FIRST_MASK:
        _FIRST_MASK.append(torch.tril(torch.ones(size, size, dtype=torch.bool)))
    return _FIRST_MASK[0]


_MASK_BY_SHAPE: dict = {}


def padding_mask_cached_by_shape(ids, pad_id):  # a cache keyed on the shape alone
    key = tuple(ids.shape)
    if key not in _MASK_BY_SHAPE:
        _MASK_BY_SHAPE[key] = (ids != pad_id)[:, None, None, :]
    return _MASK_BY_SHAPE[key]


# ------------------------------------------------------------------------- padding_mask
PADDING_MISTAKES = {
    "inverted polarity": (lambda ids, p: (ids == p)[:, None, None, :], r"polarity is inverted"),
    # an order comparison (blind8d-padmask-greater-than-pad-id; before: only located)
    "ids > pad_id": (
        lambda ids, p: (ids > p)[:, None, None, :],
        r"Your mask is `ids > pad_id`: it hides every real token whose id is below pad_id",
    ),
    # round 20 (blind19b-padmask-hugging-face-attention-mask was told of a bare squeeze):
    # the ids' own shape is named as such, with no squeeze
    "(batch, len)": (
        lambda ids, p: ids != p,
        r"^(?![\s\S]*squeeze)[\s\S]*\(batch, len\) instead of \(batch, 1, 1, len\).*needs "
        r"two singleton axes",
    ),
    "(batch, len) as 0/1 int32": (
        lambda ids, p: ids.ne(p).to(torch.int32),
        r"^(?![\s\S]*squeeze)[\s\S]*Two things to change.*int32[\s\S]*\(batch, len\) instead "
        r"of \(batch, 1, 1, len\)",
    ),
    # round 10 (blind10d-padmask-view-batch-of-one): the shape alone before
    "view(1, 1, 1, -1)": (
        lambda ids, p: (ids != p).view(1, 1, 1, -1),
        r"right flags in the right order, but its first axis is 1 where the batch \(\d+ "
        r"sequences\) belongs",
    ),
    "(batch, 1, len, 1): query axis": (
        lambda ids, p: (ids != p)[:, None, :, None],
        r"broadcast over the keys instead of over the queries",
    ),
    "(batch, len, 1, 1)": (
        lambda ids, p: (ids != p)[:, :, None, None],
        r"in the num_heads position",
    ),
    "Annotated Transformer (batch, 1, len)": (
        lambda ids, p: (ids != p).unsqueeze(-2),
        r"One singleton axis is missing.*Annotated Transformer.*mask\.unsqueeze\(1\)",
    ),
    "expanded (batch, 1, len, len)": (
        lambda ids, p: (ids != p)[:, None, None, :].expand(-1, 1, ids.shape[1], -1),
        r"expanded the mask over the query axis.*cross-attention",
    ),
    # round 20 (blind19b-padmask-with-look-ahead-triangle, told "expanded"): a triangle
    # over (query, key) ANDed in, named by the rows' values
    "ANDed with a strict lower triangle": (
        lambda ids, p: (
            (ids != p)[:, None, None, :]
            & torch.ones(ids.shape[1], ids.shape[1]).tril(diagonal=-1).bool()
        ),
        r"^(?![\s\S]*You expanded)[\s\S]*ANDed with a \(\d+, \d+\) triangle over \(query, "
        r"key\), torch\.tril\(\.\.\., diagonal=-1\).*blocked from its own key",
    ),
    "ANDed with an upper triangle": (
        lambda ids, p: ids.ne(p).unsqueeze(1).unsqueeze(1) & ref.look_ahead_mask(ids.shape[1]).T,
        r"^(?![\s\S]*You expanded)[\s\S]*torch\.triu\(\.\.\.\), an upper triangle",
    ),
    "query rows that differ": (
        lambda ids, p: (ids != p)[:, None, :, None] & (ids != p)[:, None, None, :],
        r"^(?![\s\S]*(You expanded|triangle))[\s\S]*its rows are not all the same",
    ),
    "int dtype": (
        lambda ids, p: (ids != p).long()[:, None, None, :],
        r"dtype torch.bool.*drop any.*~1 == -2",
    ),
    "uint8 dtype": (
        lambda ids, p: (ids != p).to(torch.uint8)[:, None, None, :],
        r"dtype torch.bool.*~1 == 254",
    ),
    "float dtype": (
        lambda ids, p: (ids != p).float()[:, None, None, :],
        r"dtype torch.bool.*\*adds\* a float mask",
    ),
    "additive float": (
        lambda ids, p: torch.zeros(ids.shape).masked_fill(ids == p, -math.inf)[:, None, None, :],
        r"additive",
    ),
    "hard-coded pad id 0": (lambda ids, p: (ids != 0)[:, None, None, :], r"hard-coded 0"),
    "all True": (
        lambda ids, p: torch.ones(ids.shape[0], 1, 1, ids.shape[1], dtype=torch.bool),
        r"True everywhere",
    ),
    "numpy array": (lambda ids, p: (ids.numpy() != p)[:, None, None, :], r"torch.from_numpy"),
    "forgot return": (
        lambda ids, p: None,
        r"but it is None\. The function returned nothing.*forget the `return`",
    ),
    "in place": (
        lambda ids, p: ids.masked_fill_(ids == p, -1)[:, None, None, :] != -1,
        r"changed its argument `ids` in place.*Build a new tensor",
    ),
    "pads only at the end assumed (counts real tokens)": (
        lambda ids, p: (torch.arange(ids.shape[1])[None, :] < (ids != p).sum(1, keepdim=True))[
            :, None, None, :
        ],
        # named since blind6b-padmask-from-lengths (before: the attention symptom only)
        r"marks the first n positions of each row as real.*assumes the pads sit at the end",
    ),
    "length from the first pad (argmax)": (
        lambda ids, p: (
            torch.arange(ids.shape[1])[None, :] < (ids == p).long().argmax(1, keepdim=True)
        )[:, None, None, :],
        # named since blind10g-padmask-length-from-argmax-of-first-pad (before: located only)
        r"before each row's first pad as real, the first pad found with argmax",
    ),
}


def _padding_loop(ids, pad_id):
    mask = torch.zeros(ids.shape[0], 1, 1, ids.shape[1], dtype=torch.bool)
    for b in range(ids.shape[0]):
        for j in range(ids.shape[1]):
            mask[b, 0, 0, j] = bool(ids[b, j] != pad_id)
    return mask


PADDING_CORRECT = {
    "None indexing": lambda ids, p: (ids != p)[:, None, None, :],
    "unsqueeze": lambda ids, p: (ids != p).unsqueeze(1).unsqueeze(2),
    "unsqueeze(-2) twice": lambda ids, p: (ids != p).unsqueeze(-2).unsqueeze(-2),
    "Annotated Transformer src_mask, head axis added as its attention does": lambda ids, p: (
        (ids != p).unsqueeze(-2).unsqueeze(1)
    ),
    "view": lambda ids, p: ids.ne(p).view(ids.shape[0], 1, 1, ids.shape[1]),
    "reshape of not-equal": lambda ids, p: (~(ids == p)).reshape(ids.shape[0], 1, 1, -1),
    "logical_not of eq": lambda ids, p: torch.logical_not(torch.eq(ids, p))[:, None, None],
    "where": lambda ids, p: torch.where(ids == p, False, True)[:, None, None, :],
    "numpy round trip": lambda ids, p: torch.from_numpy(ids.numpy() != p)[:, None, None, :],
    "int then bool": lambda ids, p: (ids != p).int().bool()[:, None, None, :],
    "loop": _padding_loop,
}

# ---------------------------------------------------------------------- look_ahead_mask
_CAUSAL_8 = torch.tril(torch.ones(8, 8, dtype=torch.bool))  # a cache for at most 8 positions


def _decoder_padding_by_index(tgt_ids, pad_id):  # padding_mask on each 1-D row
    causal = ref.look_ahead_mask(tgt_ids.shape[1])
    return torch.cat([ref.padding_mask(tgt_ids[i], pad_id) & causal for i in range(len(tgt_ids))])


LOOK_AHEAD_MISTAKES = {
    # round 20: 1-D positions compared with themselves (blind17d-lookahead-dot-T-on-1d-
    # arange was told the contract's shape)
    "positions compared with mT": (
        lambda size: torch.arange(size).unsqueeze(0).mT.squeeze() >= torch.arange(size),
        r"Yours is 1-D, \(\d+,\), all True: two 1-D position vectors compared entry by entry",
    ),
    # round 20: a size off by one on every size (checking.size_sources; blind19b-lookahead-
    # one-more-for-bos, built for size + 1, was told the contract's shape alone)
    "one position short": (
        lambda size: torch.ones(size - 1, size - 1).tril() > 0,
        r"rows and columns for the sizes [\d, ]+: it is built for size - 1 positions, one row "
        r"and one column short \(otherwise the right triangle\)",
    ),
    # sliced from a triangle precomputed for 8 positions (blind8d-lookahead-sliced-from-
    # cached-triangle; before: caught by the hidden size 9 alone, the shape restated)
    "sliced from a fixed 8 x 8 triangle": (
        lambda size: _CAUSAL_8[:size, :size],
        r"Yours stops at 8 positions where \d+ were asked: a mask sliced from a triangle built "
        r"once for a maximum size",
    ),
    "triu": (
        lambda n: torch.triu(torch.ones(n, n, dtype=torch.bool)),
        r"torch.triu instead of torch.tril",
    ),
    "tril turned over": (
        lambda n: torch.tril(torch.ones(n, n, dtype=torch.bool)).transpose(0, 1),
        r"the right mask transposed.*turned over \(\.T, \.transpose\(0, 1\)",
    ),
    "inverted (triu diagonal=1)": (
        lambda n: torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1),
        r"True marks the blocked",
    ),
    "no diagonal (tril -1)": (lambda n: _tril(n, -1), r"leaves out the diagonal"),
    # round 10 (blind10d-lookahead-not-triu-without-offset): the same mask another way; the
    # message asked "did you use torch.tril(..., diagonal=-1)?", one of three candidates
    "no diagonal (~triu)": (
        lambda n: ~torch.triu(torch.ones(n, n, dtype=torch.bool)),
        r"leaves out the diagonal \(torch\.tril\(\.\.\., diagonal=-1\), ~torch\.triu\(\.\.\.\) "
        r"without diagonal=1, or a strict j < i",
    ),
    "all True": (lambda n: torch.ones(n, n, dtype=torch.bool), r"True everywhere"),
    "float tril": (lambda n: torch.tril(torch.ones(n, n)), r"dtype torch.bool"),
    "int tril": (lambda n: torch.tril(torch.ones(n, n, dtype=torch.int64)), r"bitwise NOT"),
    "uint8 tril": (lambda n: torch.tril(torch.ones(n, n, dtype=torch.uint8)), r"~1 == 254"),
    "additive (generate_square_subsequent_mask)": (
        lambda n: nn.Transformer.generate_square_subsequent_mask(n),
        r"additive",
    ),
    "(1, 1, size, size)": (lambda n: _tril(n)[None, None], r"Return exactly \(size, size\)"),
    "Annotated Transformer's subsequent_mask, (1, size, size)": (
        subsequent_mask,
        r"Return exactly \(size, size\).*attn_mask.*Annotated Transformer's subsequent_mask",
    ),
    "numpy": (lambda n: np.tril(np.ones((n, n), dtype=bool)), r"torch.from_numpy"),
    # nanoGPT's registered buffer returned as it is: two mistakes, both said at once
    # (blind6b-lookahead-nanogpt-bias: only the shape was)
    "nanoGPT's float (1, 1, size, size) buffer": (
        lambda n: torch.tril(torch.ones(n, n)).view(1, 1, n, n),
        r"Two things to change: the shape, and the dtype \(torch\.float32",
    ),
    # round 34: the offset itself is named (checking.mask_relations.triangle_offset)
    "tril with diagonal=1 (sees one step ahead)": (
        lambda n: _tril(n, 1),
        r"cut at the wrong diagonal: it is torch\.tril\(\.\.\., diagonal=1\)[\s\S]*the "
        r"future leaks",
    ),
    # an int triu(1) mask: the dtype and the polarity wrong at once (blind7b-lookahead-triu-
    # int-two-mistakes: only the dtype was named)
    "int triu diagonal=1": (
        lambda n: torch.triu(torch.ones(n, n), diagonal=1).int(),
        r"dtype torch\.bool.*Two mistakes at once: besides the dtype, the entries are the wrong "
        r"way round",
    ),
    "band of width 2 (forgets the distant past)": (
        lambda n: _tril(n) & ~_tril(n, -3),
        # named since blind10g-lookahead-sliding-window-of-four (before: located only)
        r"Your mask is a band: each query sees itself and the 2 keys before it",
    ),
}


def _look_ahead_loop(size):
    mask = torch.zeros(size, size, dtype=torch.bool)
    for i in range(size):
        for j in range(i + 1):
            mask[i, j] = True
    return mask


LOOK_AHEAD_CORRECT = {
    "tril bool": lambda n: _tril(n),
    "tril float then bool": lambda n: torch.tril(torch.ones(n, n)).bool(),
    "ones().tril().bool()": lambda n: torch.ones(n, n).tril().bool(),
    "tril == 1 (nanoGPT's buffer, as a bool)": lambda n: torch.tril(torch.ones(n, n)) == 1,
    "triu(1) == 0": lambda n: torch.triu(torch.ones(n, n), diagonal=1) == 0,
    "Annotated Transformer's subsequent_mask, without the batch axis": lambda n: subsequent_mask(n)[
        0
    ],
    "~triu(ones, 1)": lambda n: ~torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1),
    "arange comparison": lambda n: torch.arange(n)[:, None] >= torch.arange(n)[None, :],
    "arange with unsqueeze": lambda n: torch.arange(n).unsqueeze(1) >= torch.arange(n).unsqueeze(0),
    "numpy round trip": lambda n: torch.from_numpy(np.tril(np.ones((n, n), dtype=bool))),
    "from generate_square_subsequent_mask": lambda n: (
        nn.Transformer.generate_square_subsequent_mask(n) == 0
    ),
    "loop": _look_ahead_loop,
}


# ---------------------------------------------------------- decoder_self_attention_mask
def _pad(ids, p):
    return (ids != p)[:, None, None, :]  # (batch, 1, 1, len)


def make_std_mask(tgt, pad):
    """The Annotated Transformer's make_std_mask, written again: (batch, len, len)."""
    tgt_mask = (tgt != pad).unsqueeze(-2)
    return tgt_mask & subsequent_mask(tgt.size(-1)).type_as(tgt_mask.data)


def _in_place_and(ids, pad_id):
    mask = _tril(ids.shape[1])
    mask &= _pad(ids, pad_id)
    return mask


def _loop_reusing_one_mask(ids, pad_id):
    batch, length = ids.shape
    causal = _tril(length)
    mask = torch.zeros(batch, 1, length, length, dtype=torch.bool)
    for b in range(batch):
        causal[:, ids[b] == pad_id] = False
        mask[b, 0] = causal
    return mask


DECODER_MISTAKES = {
    # round 20: a course function that takes the batch called on each row (checking.failure:
    # course_call_on_a_row; blind12k-decmask-padding-mask-per-row was told only that the
    # course's code got something outside its contract)
    "padding_mask per row": (
        _decoder_padding_by_index,
        r"calls padding_mask on one row of tgt_ids \(\d+, \d+\) at a time \(a loop over the "
        r"batch\): its argument ids is a 1-D",
    ),
    # round 10 (blind10d-decmask-expanded-to-eight-heads): the contract's shape alone before
    "expanded over 4 heads": (
        lambda ids, p: (_pad(ids, p) & _tril(ids.shape[1])).repeat(1, 4, 1, 1),
        r"Your head axis has 4 entries, where it must be 1",
    ),
    # one mistake in each part (blind8d-decmask-no-diagonal-and-pad-rows; before: the
    # diagonal alone was named)
    "pad rows and no diagonal": (
        lambda ids, p: (
            _pad(ids, p)
            & _pad(ids, p).transpose(-1, -2)
            & torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool).tril(diagonal=-1)
        ),
        r"Two mistakes at once\. \(1\) Your mask blocks the rows of pad \*queries\*.*"
        r"\(2\) The look-ahead part leaves out the diagonal",
    ),
    # blind round 5: the look-ahead part built for len - 1 positions, or the padding of
    # len - 1 (the sizes in the broadcast error tell it is a length off by one)
    "look-ahead for len - 1": (
        lambda ids, p: _pad(ids, p) & _tril(ids.shape[1] - 1),
        r"one of your tensors has \d+ \(len - 1\): a length off by one",
    ),
    "padding of len - 1": (
        lambda ids, p: _pad(ids[:, :-1], p) & _tril(ids.shape[1]),
        r"\(len - 1\): a length off by one.*no tgt_ids\[:, :-1\]",
    ),
    "OR instead of AND": (lambda ids, p: _pad(ids, p) | _tril(ids.shape[1]), r"OR \(\|\)"),
    # the same mask from the True = blocked convention (round 10, blind10d-decmask-blocked-
    # masks-and-then-inverted: told "you combined the masks with OR (|)", code it never had)
    "blocked masks & then ~": (
        lambda ids, p: ~((ids == p)[:, None, None, :] & ~_tril(ids.shape[1])),
        r"OR \(\|\), or \(the same mask\) the blocked masks of the True = blocked convention "
        r"combined with & before inverting",
    ),
    "only causal (expanded)": (
        lambda ids, p: _tril(ids.shape[1]).expand(ids.shape[0], 1, -1, -1),
        r"look-ahead mask alone \(broadcast",
    ),
    "only causal (len, len)": (
        lambda ids, p: _tril(ids.shape[1]),
        r"look-ahead mask alone: the padding",
    ),
    "only padding (expanded)": (
        lambda ids, p: _pad(ids, p).expand(-1, 1, ids.shape[1], -1),
        r"padding mask alone \(broadcast",
    ),
    "only padding (batch, 1, 1, len)": (
        lambda ids, p: _pad(ids, p),
        r"padding mask alone: combine",
    ),
    "no head axis (batch, len, len)": (
        lambda ids, p: (ids != p)[:, None, :] & _tril(ids.shape[1]),
        r"head axis is missing",
    ),
    "Annotated Transformer's make_std_mask (batch, len, len)": (
        make_std_mask,
        r"head axis is missing.*Annotated Transformer's make_std_mask",
    ),
    "padding on the query axis": (
        lambda ids, p: (ids != p)[:, None, :, None] & _tril(ids.shape[1]),
        r"rows of pad \*queries\*",
    ),
    "padding on both axes": (
        lambda ids, p: (ids != p)[:, None, :, None] & _pad(ids, p) & _tril(ids.shape[1]),
        r"rows of pad \*queries\*.*as well as on the key axis",
    ),
    "inverted": (
        lambda ids, p: ~(_pad(ids, p) & _tril(ids.shape[1])),
        r"whole mask is inverted, every entry the opposite",
    ),
    # round 20 (blind19b-decmask-padding-read-as-blocked): the padding part alone inverted
    "padding part inverted": (
        lambda ids, p: (ids == p)[:, None, None, :] & _tril(ids.shape[1]),
        r"^(?![\s\S]*whole mask)[\s\S]*padding part of your mask is inverted: it allows only "
        r"the pad keys",
    ),
    "triu": (
        lambda ids, p: (
            _pad(ids, p) & torch.triu(torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool))
        ),
        r"upper triangle",
    ),
    "causal part transposed": (
        lambda ids, p: _pad(ids, p) & _tril(ids.shape[1]).mT,
        r"look-ahead part is the upper triangle: the right look-ahead mask transposed",
    ),
    "causal part inverted": (
        lambda ids, p: _pad(ids, p) & ~_tril(ids.shape[1]),
        r"look-ahead part is inverted",
    ),
    "no diagonal": (
        lambda ids, p: _pad(ids, p) & _tril(ids.shape[1], -1),
        r"leaves out the diagonal",
    ),
    "multiplied (float)": (
        lambda ids, p: _pad(ids, p).float() * _tril(ids.shape[1]).float(),
        r"use & \(logical AND\)",
    ),
    "multiplied (int)": (
        lambda ids, p: _pad(ids, p).long() * _tril(ids.shape[1]).long(),
        r"dtype torch.bool",
    ),
    "hard-coded pad id 0": (lambda ids, p: _pad(ids, 0) & _tril(ids.shape[1]), r"hard-coded 0"),
    # blind9d-decmask-padding-without-axes; before: the raw broadcast error alone
    "padding without its new axes": (
        lambda ids, p: (ids != p) & _tril(ids.shape[1]),
        r"the padding part is \(batch, len\), without the heads and query axes",
    ),
    # torch raises NotImplementedError for & on floats: not the unimplemented exercise
    "& with a float causal matrix": (
        lambda ids, p: _pad(ids, p) & torch.tril(torch.ones(ids.shape[1], ids.shape[1])),
        r"(?s)raised NotImplementedError: \"bitwise_and.*float tensor.*dtype=torch\.bool",
    ),
    # blind17d: a matrix product where the element-wise AND belongs
    # round 20: the learner's own @ named (blind17d-decmask-matmul-instead-of-and)
    "combined with @": (
        lambda ids, p: ids.ne(p)[:, None, None, :] @ _tril(ids.shape[1]),
        r"combines bool masks with @, a matrix product, instead of &, the element-wise AND",
    ),
    "combined with torch.matmul": (
        lambda ids, p: torch.matmul(_pad(ids, p), _tril(ids.shape[1])),
        r"A matrix product \(@, torch\.matmul, mm\) got bool tensors.*Masks combine entry by entry",
    ),
    "sees one step ahead": (
        lambda ids, p: _pad(ids, p) & _tril(ids.shape[1], 1),
        r"cut at the wrong diagonal: it is torch\.tril\(\.\.\., diagonal=1\)",
    ),
    "look-ahead mask of the batch size": (
        lambda ids, p: _pad(ids, p) & _tril(len(ids)),
        r"yours gives the right mask.*look_ahead_mask\(tgt_ids\.shape\[1\]\)",
    ),
    # blind6b: combined in place, mask &= ..., which cannot grow the (len, len) mask
    "combined in place (&=)": (
        lambda ids, p: _in_place_and(ids, p),
        r"in-place operation \(such as mask &= other.*cannot hold the \(batch, 1, len, len\)",
    ),
    # blind6b: a loop that blocks each row's pads in one shared mask
    "loop over the batch reusing one mask": (
        lambda ids, p: _loop_reusing_one_mask(ids, p),
        r"the pad columns of every sequence before it as well",
    ),
    # two mistakes at once, both said in the first message
    "Annotated Transformer's make_std_mask, as float": (
        lambda ids, p: make_std_mask(ids, p).float(),
        r"Two things to change: the shape, and the dtype \(torch\.float32.*head axis is missing",
    ),
    "diagonal forced True (a guard against fully masked rows)": (
        lambda ids, p: (_pad(ids, p) & _tril(ids.shape[1])) | torch.eye(ids.shape[1]).bool(),
        # named since blind10g-decmask-diagonal-forced-true (before: located only)
        r"the diagonal is True at the pad positions too",
    ),
    "in place": (
        lambda ids, p: _pad(ids.masked_fill_(ids == p, -1), -1) & _tril(ids.shape[1]),
        r"changed its argument `\w+` in place.*Build new tensors",
    ),
}


def _decoder_loop(ids, pad_id):
    batch, length = ids.shape
    mask = torch.zeros(batch, 1, length, length, dtype=torch.bool)
    for b in range(batch):
        for i in range(length):
            for j in range(i + 1):
                mask[b, 0, i, j] = bool(ids[b, j] != pad_id)
    return mask


DECODER_CORRECT = {
    "reference pieces with &": lambda ids, p: (
        ref.padding_mask(ids, p) & ref.look_ahead_mask(ids.shape[1])
    ),
    "logical_and": lambda ids, p: torch.logical_and(_pad(ids, p), _tril(ids.shape[1])),
    "expand then &": lambda ids, p: (
        _pad(ids, p).expand(-1, -1, ids.shape[1], -1) & _tril(ids.shape[1])[None, None]
    ),
    "multiply then bool": lambda ids, p: (_pad(ids, p).int() * _tril(ids.shape[1]).int()).bool(),
    "bool product": lambda ids, p: _pad(ids, p) * _tril(ids.shape[1]),
    "where": lambda ids, p: torch.where(_tril(ids.shape[1]), _pad(ids, p), False),
    "arange comparison + unsqueeze": lambda ids, p: (
        (ids != p).unsqueeze(1).unsqueeze(2)
        & (torch.arange(ids.shape[1])[:, None] >= torch.arange(ids.shape[1])[None, :])
    ),
    "Annotated Transformer's make_std_mask with the head axis": lambda ids, p: make_std_mask(
        ids, p
    ).unsqueeze(1),
    "loop": _decoder_loop,
}


MISTAKES = [
    *(Mistake(check_padding_mask, _named(n, f), m) for n, (f, m) in PADDING_MISTAKES.items()),
    *(Mistake(check_look_ahead_mask, _named(n, f), m) for n, (f, m) in LOOK_AHEAD_MISTAKES.items()),
    Mistake(
        check_look_ahead_mask,
        look_ahead_built_once,
        r"keeps something from one call to the next: the module-level list `_FIRST_MASK`",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_cached_by_shape,
        r"keeps something from one call to the next: the module-level dict `_MASK_BY_SHAPE`",
        hidden_only=True,
    ),
    *(
        Mistake(check_decoder_self_attention_mask, _named(n, f), m)
        for n, (f, m) in DECODER_MISTAKES.items()
    ),
]


# Round 11 (r11d): the batch axis mishandled, right on every sequence alone and wrong on the
# batch (checking.batch_rows; the family of blind11d-split-assumes-batch-of-one, proved here
# on two masks that no case contains).
def padding_mask_last_token_kept(ids, pad_id):
    """The last position always let through (an <eos> taken to sit there)."""
    keep = ids.ne(pad_id)
    keep[..., -1] = True
    return keep.unsqueeze(1).unsqueeze(1)


def padding_mask_first_sequence_only(ids, pad_id):
    return (ids[0] != pad_id)[None, None, None, :]


def decoder_mask_first_sequence_only(tgt_ids, pad_id):
    real = tgt_ids[0] != pad_id  # (len,)
    return (real[None, :] & ref.look_ahead_mask(tgt_ids.shape[1]))[None, None]


def padding_mask_query_axis(ids, pad_id):  # blind11d-pad-mask-on-query-axis's mistake
    return ids.ne(pad_id).unsqueeze(1).unsqueeze(-1)


def padding_mask_of_squeezed_ids(ids, pad_id):  # a bare .squeeze(): [[7]] becomes 7
    real = ids.squeeze() != pad_id
    return real[:, None, None, :] if real.ndim == 2 else real.reshape(1, 1, -1)


def decoder_mask_ids_compared_in_place(tgt_ids, pad_id):  # ne_: tgt_ids overwritten
    real = tgt_ids.ne_(pad_id).bool()
    return real[:, None, None, :] & ref.look_ahead_mask(tgt_ids.shape[1])


def decoder_mask_extra_axis(tgt_ids, pad_id):  # an unsqueeze too many: (batch, 1, 1, len, len)
    return ref.padding_mask(tgt_ids, pad_id).unsqueeze(1) & ref.look_ahead_mask(tgt_ids.shape[1])


def padding_mask_expanded_over_heads(ids, pad_id):
    return (ids != pad_id)[:, None, None, :].expand(-1, 8, -1, -1)


def decoder_mask_same_kind_by_xor(ids, pad_id):
    is_pad = ids == pad_id  # (batch, len)
    same_kind = ~(is_pad.unsqueeze(2) ^ is_pad.unsqueeze(1))  # (batch, len, len)
    return same_kind.unsqueeze(1) & ref.look_ahead_mask(ids.shape[1])


def decoder_mask_same_kind_only(ids, pad_id):
    real = ids != pad_id  # (batch, len)
    return (real.unsqueeze(2) == real.unsqueeze(1)).unsqueeze(1)


_BATCH_AXIS = r"right for each sequence given alone .* does not handle the batch axis"
MISTAKES += [
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_same_kind_by_xor,
        r"The padding part of your mask compares the query's and the key's real-token flags "
        r"for equality",
    ),
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_same_kind_only,
        r"compares the query's and the key's real-token flags for equality[\s\S]*look-ahead "
        r"part is missing",
    ),
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_ids_compared_in_place,
        r"^(?![\s\S]*reads one size for the other)[\s\S]*changed its argument",
    ),
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_extra_axis,
        r"Your numbers are right and in the right order, but yours has one axis of size 1 too many, "
        r"5-D where 4-D belongs",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_expanded_over_heads,
        r"Your head axis has 8 entries, where it must be 1",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_of_squeezed_ids,
        r"Your numbers are right and in the right order, but axes of size 1 of .* are gone",
    ),
    Mistake(check_padding_mask, padding_mask_first_sequence_only, _BATCH_AXIS),
    Mistake(
        check_padding_mask,
        padding_mask_last_token_kept,
        r"the last position is always marked True \(real\) in every row, whatever it holds",
    ),
    Mistake(check_decoder_self_attention_mask, decoder_mask_first_sequence_only, _BATCH_AXIS),
    Mistake(
        check_padding_mask,
        padding_mask_query_axis,
        r"Yours is \(batch, 1, len, 1\): your len axis is on the query axis \(len_q\)",
    ),
]


# ---------------------------------------------------------------- round 12 (r12d) families
# -- a size from the wrong quantity, told by probes (checking.size_sources): the look-ahead
# sized with pad_id, and with batch * len (a member no case holds)
def decoder_mask_look_ahead_of_pad_id(tgt_ids, pad_id):
    return ref.padding_mask(tgt_ids, pad_id) & ref.look_ahead_mask(pad_id)


def decoder_mask_look_ahead_of_numel(tgt_ids, pad_id):
    return ref.padding_mask(tgt_ids, pad_id) & ref.look_ahead_mask(tgt_ids.numel())


# -- the axes of size 1 dropped before indexing (raises on a batch of one / one token)
def padding_mask_bare_squeeze_first(ids, pad_id):
    real = ids.ne(pad_id).squeeze()
    return real[:, None, None, :]


def padding_mask_squeeze_then_unsqueeze(ids, pad_id):  # the same loss, another idiom
    flags = (ids != pad_id).squeeze()
    return (
        flags.unsqueeze(1).unsqueeze(1)
        if flags.dim() == 2
        else flags.view(-1, 1, 1, flags.shape[1])
    )


# -- a matrix operation given a vector: one size of the shape left out
def look_ahead_tril_of_vector(size):
    allowed = torch.ones(size).bool()
    return allowed.tril()


def look_ahead_triu_of_vector(size):
    return ~torch.triu(torch.ones(size, dtype=torch.bool), diagonal=1)


MISTAKES += [
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_look_ahead_of_pad_id,
        r"which is pad_id here and on every input tried .*pad_id was used where the length",
    ),
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_look_ahead_of_numel,
        r"which is batch \* len here and on every input tried",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_bare_squeeze_first,
        r"right on the same data with those axes 2 long: your code drops the axes of size 1",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_squeeze_then_unsqueeze,
        r"right on the same data with those axes 2 long: your code drops the axes of size 1",
    ),
    Mistake(check_look_ahead_mask, look_ahead_tril_of_vector, r"tensor it got is 1-D"),
    Mistake(check_look_ahead_mask, look_ahead_triu_of_vector, r"tensor it got is 1-D"),
]


# ----------------------------------------------------------------- round 14 (r14c) families
# -- a batch of one taken to hold no padding: right on every larger batch, told by the same
# sequence in a batch of two
def padding_mask_one_sentence_unpadded(ids, pad_id):
    if len(ids) == 1:  # one sentence: nothing was padded
        return torch.ones_like(ids, dtype=torch.bool)[:, None, None, :]
    return (ids != pad_id).unsqueeze(1).unsqueeze(2)


def decoder_mask_one_sentence_unpadded(tgt_ids, pad_id):
    causal = ref.look_ahead_mask(tgt_ids.shape[1])  # (len, len)
    if tgt_ids.size(0) > 1:
        causal = causal & (tgt_ids != pad_id)[:, None, None, :]
    return causal.expand(tgt_ids.size(0), 1, -1, -1)


_BATCH_OF_ONE_PADS = (
    r"Your mask for this batch of one, a sequence with \d+ pads?, lets the queries attend to "
    r"its pads? .*but the same sequence in a batch of two \(ids\.repeat\(2, 1\)\) gets the "
    r"right mask"
)
MISTAKES += [
    Mistake(check_padding_mask, padding_mask_one_sentence_unpadded, _BATCH_OF_ONE_PADS),
    Mistake(
        check_decoder_self_attention_mask, decoder_mask_one_sentence_unpadded, _BATCH_OF_ONE_PADS
    ),
]


# ---------------------------------------------------------------- round 15 (r15c)
def padding_mask_no_pads_as_ones_like(ids, pad_id):  # early return of a float all-ones mask
    if bool((ids != pad_id).all()):
        return torch.ones_like(ids, dtype=torch.float32)[:, None, None, :]
    return (ids != pad_id).unsqueeze(1).unsqueeze(2)


def look_ahead_mask_triu_indices(size):  # the upper triangle's positions, offset 1
    return torch.triu_indices(size, size, offset=1)


def decoder_mask_unbracketed_ne(tgt_ids, pad_id):  # & binds tighter than !=
    causal = torch.ones(tgt_ids.shape[1], tgt_ids.shape[1], dtype=torch.bool).tril()
    return tgt_ids.unsqueeze(1).unsqueeze(1) != pad_id & causal


MISTAKES += [
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_unbracketed_ne,
        r"^(?![\s\S]*known mistakes give exactly)[\s\S]*an operator-precedence slip",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_no_pads_as_ones_like,
        r"torch\.float32\. .*Only here, where ids has no pad at all, is it torch\.float32.*"
        r"A special case for a batch without padding",
    ),
    Mistake(
        check_look_ahead_mask,
        look_ahead_mask_triu_indices,
        r"Yours is torch\.triu_indices\(\d+, \d+, 1\): the row and column indices",
    ),
]

CORRECT = [
    *(Correct(check_padding_mask, _named(n, f)) for n, f in PADDING_CORRECT.items()),
    *(Correct(check_look_ahead_mask, _named(n, f)) for n, f in LOOK_AHEAD_CORRECT.items()),
    *(Correct(check_decoder_self_attention_mask, _named(n, f)) for n, f in DECODER_CORRECT.items()),
]

test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def test_hidden_inputs_cover_the_hard_cases():
    from transformer_course.checks import masking as checks

    cases = checks.hidden_padding_cases() + checks.hidden_decoder_cases()
    assert any(bool((ids == p).all(dim=1).any()) for ids, p in cases), "a fully padded sequence"
    assert any(p != 0 for _, p in cases), "a pad id other than 0"
    assert any(bool((ids[:, 0] == p).any()) and not bool((ids == p).all()) for ids, p in cases), (
        "left padding"
    )
    assert any(ids.shape == (1, 1) for ids, _ in cases), "a single token"
    assert 1 in checks.HIDDEN_SIZES and max(checks.HIDDEN_SIZES) >= 16
    visible = [ids for ids, _ in checks.visible_padding_cases()]
    hidden = [ids for ids, _ in checks.hidden_padding_cases()]
    assert all(a.shape != b.shape or not torch.equal(a, b) for a in visible for b in hidden)


def test_a_mask_difference_is_shown_as_a_picture():
    with pytest.raises(CheckFailure) as caught:
        check_look_ahead_mask(lambda n: _tril(n, 1))
    assert "1 = may attend; rows are queries, columns are keys" in caught.value.message
    assert re.search(r"yours +expected\n1 1 0 0 +1 0 0 0\n", caught.value.message)


def test_quiz_answers_agree_with_the_reference():
    """The concept questions' answers, computed with the reference attention and masks."""
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, 3, 4, generator=gen) for _ in range(3))
    nothing = torch.zeros(3, 3, dtype=torch.bool)
    out, weights = scaled_dot_product_attention(q, k, v, nothing)
    assert QUIZ_FULLY_MASKED_ROW.answer == "b"
    assert torch.equal(weights, torch.zeros_like(weights)) and bool(out.isfinite().all())
    # which mask: cross-attention's weights are (len_tgt, len_src): only a source mask fits
    src = torch.tensor([[5, 6, 0, 0]])  # (batch, len_src)
    tgt = torch.tensor([[2, 7, 8]])  # (batch, len_tgt)
    layer = MultiHeadAttention(8, 2).eval()
    memory, states = torch.randn(1, 4, 8, generator=gen), torch.randn(1, 3, 8, generator=gen)
    with torch.no_grad():
        _, w = layer(states, memory, memory, ref.padding_mask(src, 0))
        assert bool((w[..., 2:] == 0).all())
        with pytest.raises(RuntimeError):
            layer(states, memory, memory, ref.decoder_self_attention_mask(tgt, 0))
    assert QUIZ_WHICH_MASK.answer == "c"


# ----------------------------------------------------------------------------- oracles
@pytest.mark.parametrize("size", [1, 2, 5, 13])
def test_look_ahead_mask_matches_generate_square_subsequent_mask(size):
    """nn.Transformer's causal mask is float: 0 where allowed, -inf above the diagonal
    (True = blocked in bool form); ours is its opposite-polarity bool."""
    torch_mask = nn.Transformer.generate_square_subsequent_mask(size)
    assert torch.equal(ref.look_ahead_mask(size), ~torch.isinf(torch_mask))
    assert torch.equal(ref.to_additive(ref.look_ahead_mask(size)), torch_mask)
    assert ref.look_ahead_mask(size).dtype == torch.bool


def _batch(seed, lengths, length, pad_id=0):
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(1, 30, (len(lengths), length), generator=gen)
    for row, n in enumerate(lengths):
        ids[row, n:] = pad_id
    return ids


def _copy_into_torch(ours: MultiHeadAttention) -> nn.MultiheadAttention:
    theirs = nn.MultiheadAttention(ours.d_model, ours.num_heads, batch_first=True)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        theirs.out_proj.weight.copy_(ours.w_o.weight)
        theirs.out_proj.bias.copy_(ours.w_o.bias)
    return theirs.eval()


def test_padding_mask_agrees_with_nn_multihead_attention_key_padding_mask():
    torch.manual_seed(0)
    ours = MultiHeadAttention(16, 4).eval()
    theirs = _copy_into_torch(ours)
    ids = _batch(1, [6, 3, 5], 6)  # no fully padded row: nn.MultiheadAttention gives NaN there
    x = torch.randn(3, 6, 16)
    with torch.no_grad():
        out, weights = ours(x, x, x, ref.padding_mask(ids, 0))
        expected, expected_weights = theirs(
            x, x, x, key_padding_mask=~(ids != 0), average_attn_weights=False
        )
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(weights, expected_weights, rtol=1e-5, atol=1e-6)
    assert bool((weights[..., ids[0] == 0] == 0).all())


def test_decoder_mask_agrees_with_nn_multihead_attention():
    """attn_mask (float, -inf = blocked) plus key_padding_mask (True = pad) in PyTorch
    equals our single combined bool mask."""
    torch.manual_seed(1)
    ours = MultiHeadAttention(16, 2).eval()
    theirs = _copy_into_torch(ours)
    ids = _batch(2, [7, 4, 1], 7)
    x = torch.randn(3, 7, 16)
    pads = ids == 0  # (batch, len), True = ignore this key
    with torch.no_grad():
        out, _ = ours(x, x, x, ref.decoder_self_attention_mask(ids, 0))
        as_bool, _ = theirs(x, x, x, attn_mask=~ref.look_ahead_mask(7), key_padding_mask=pads)
        as_float, _ = theirs(
            x,
            x,
            x,
            attn_mask=nn.Transformer.generate_square_subsequent_mask(7),
            key_padding_mask=torch.zeros(pads.shape).masked_fill(pads, -math.inf),
        )
    torch.testing.assert_close(out, as_bool, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(out, as_float, rtol=1e-5, atol=1e-6)


def test_masks_agree_with_f_scaled_dot_product_attention():
    """F.scaled_dot_product_attention takes bool masks with our polarity (True = attend)."""
    gen = torch.Generator().manual_seed(3)
    ids = _batch(3, [5, 2, 0], 5)
    q, k, v = (torch.randn(3, 2, 5, 4, generator=gen) for _ in range(3))
    for mask in (ref.padding_mask(ids, 0), ref.decoder_self_attention_mask(ids, 0)):
        out, _ = scaled_dot_product_attention(q, k, v, mask)
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)
        additive = F.scaled_dot_product_attention(
            q[:2], k[:2], v[:2], attn_mask=ref.to_additive(mask[:2])
        )
        torch.testing.assert_close(out[:2], additive, rtol=1e-5, atol=1e-6)


def test_decoder_mask_means_attending_only_to_allowed_keys():
    """The paper's meaning of masking, computed without any mask: for each query, a
    plain softmax over only the keys that are real and not in the future."""
    gen = torch.Generator().manual_seed(4)
    ids = _batch(4, [6, 3], 6)
    d_k = 8
    q, k, v = (torch.randn(2, 6, d_k, generator=gen, dtype=torch.float64) for _ in range(3))
    out, _ = scaled_dot_product_attention(q, k, v, ref.decoder_self_attention_mask(ids, 0)[:, 0])
    for b in range(2):
        for i in range(6):
            allowed = [j for j in range(i + 1) if ids[b, j] != 0]
            scores = torch.stack([q[b, i] @ k[b, j] for j in allowed]) / math.sqrt(d_k)
            weights = torch.softmax(scores, dim=0)
            expected = sum(w * v[b, j] for w, j in zip(weights, allowed, strict=True))
            torch.testing.assert_close(out[b, i], expected)


def test_future_tokens_do_not_change_earlier_outputs_in_torch_decoder_layer():
    """nn.TransformerDecoderLayer with our mask (converted) is causal: the property the
    checks test with the reference attention, confirmed on PyTorch's own layer."""
    torch.manual_seed(5)
    layer = nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True).eval()
    memory = torch.randn(1, 4, 16)
    x = torch.randn(1, 6, 16)
    blocked = ref.to_blocked(ref.look_ahead_mask(6))  # True = not allowed
    with torch.no_grad():
        base = layer(x, memory, tgt_mask=blocked)
        x2 = x.clone()
        x2[:, 3:] = torch.randn(1, 3, 16)
        changed = layer(x2, memory, tgt_mask=blocked)
    torch.testing.assert_close(changed[:, :3], base[:, :3])
    assert not torch.allclose(changed[:, 3:], base[:, 3:])


def test_cross_attention_mask_handles_len_q_different_from_len_k():
    torch.manual_seed(6)
    ours = MultiHeadAttention(16, 2).eval()
    theirs = _copy_into_torch(ours)
    src = _batch(6, [4, 2], 4)  # (batch, len_src)
    tgt = torch.randn(2, 7, 16)  # (batch, len_tgt, d_model): len_q = 7 != len_k = 4
    memory = torch.randn(2, 4, 16)
    mask = ref.cross_attention_mask(src, 0)
    assert mask.shape == (2, 1, 1, 4)
    with torch.no_grad():
        out, weights = ours(tgt, memory, memory, mask)
        expected, _ = theirs(tgt, memory, memory, key_padding_mask=src == 0)
    assert weights.shape == (2, 2, 7, 4)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- round 17 (fix17d)
_CAUSAL_BUILT_ONCE = []  # filled on the first call, never again


def decoder_mask_causal_built_once(tgt_ids, pad_id):  # a module-level triangle, built once
    if not _CAUSAL_BUILT_ONCE:
        n = tgt_ids.size(1)
        _CAUSAL_BUILT_ONCE.append(torch.ones(n, n, dtype=torch.bool).tril())
    return (tgt_ids != pad_id)[:, None, None, :] & _CAUSAL_BUILT_ONCE[0]


MISTAKES += [
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_causal_built_once,
        r"one of your tensors has 6(: the length of an earlier call in this check)?,? .*"
        r"again on fresh calls .*[Yy]our function keeps its look-ahead mask from an earlier call",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def decoder_mask_triangle_of_pad_row(tgt_ids, pad_id):  # tril on (batch, 1, 1, len)
    return (tgt_ids != pad_id).unsqueeze(1).unsqueeze(2).tril()


MISTAKES += [
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_triangle_of_pad_row,
        r"^(?![\s\S]*That is the padding mask alone)[\s\S]*Yours is torch\.tril of the padding "
        r"mask: tril works on the last two axes",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def padding_mask_identity_test(ids, pad_id):  # `is not` compares objects: one Python bool
    real = ids is not pad_id
    return real.unsqueeze(1).unsqueeze(2)


MISTAKES += [
    Mistake(
        check_padding_mask,
        padding_mask_identity_test,
        r"'bool' object has no attribute 'unsqueeze'\n.*`is` and `is not` ask whether two things "
        r"are the same object",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def test_quiz_letter_without_quotes_is_told_to_quote_it():
    """`return a` (no quotes) raises NameError: the message says the letter needs quotes."""
    from transformer_course.checks.masking import check_quiz_which_mask

    def quiz_which_mask():
        return a  # noqa: F821

    with pytest.raises(CheckFailure, match=r"Your answer a is written without quotes"):
        check_quiz_which_mask(quiz_which_mask)


def look_ahead_mask_row_then_tril(size):  # the triangle cut from a single row
    return torch.ones(1, size, dtype=torch.bool).tril().expand(size, size)


_LEFTOVER = torch.Generator().manual_seed(0)


def look_ahead_mask_leftover_memory(size):  # stands for torch.empty's leftover contents
    leftover = torch.rand(size, size, generator=_LEFTOVER) > 0.3
    return torch.tril(leftover)


MISTAKES += [
    Mistake(
        check_look_ahead_mask,
        look_ahead_mask_row_then_tril,
        r"Every row of yours is row 0 of the triangle: each query sees key 0 alone.*tril was "
        r"applied to a single row",
    ),
    Mistake(
        check_look_ahead_mask,
        look_ahead_mask_leftover_memory,
        r"Called again, look_ahead_mask\(\d+\) gives other flags: your mask changes from call "
        r"to call.*torch\.empty",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def padding_mask_hides_bos(ids, pad_id):  # <bos> (id 2) taken for padding
    return ids.ne(pad_id).logical_and(ids.ne(2)).view(ids.shape[0], 1, 1, -1)


MISTAKES += [
    Mistake(
        check_padding_mask,
        padding_mask_hides_bos,
        r"Your mask hides the pads and, with them, every token whose id is 2.*Id 2 is the "
        r"tokenizer's <bos>",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def decoder_mask_rules_unequal(tgt_ids, pad_id):  # != of two bool masks is XOR
    return ref.padding_mask(tgt_ids, pad_id) != ref.look_ahead_mask(tgt_ids.size(1))


def decoder_mask_look_ahead_of_size(tgt_ids, pad_id):  # size() without the axis: a torch.Size
    return ref.padding_mask(tgt_ids, pad_id) & ref.look_ahead_mask(tgt_ids.size())


# round 18 (blind15d): the rules combined with XOR (before: the grids only) and the
# look-ahead part sized by the whole shape (before: a raw TypeError from torch.ones)
MISTAKES += [
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_rules_unequal,
        r"combines the two rules with \^ \(XOR, exclusive or; for bools != computes the same\)",
    ),
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_look_ahead_of_size,
        r"most likely sized with the whole shape, look_ahead_mask\(tgt_ids\.shape\), a "
        r"torch\.Size \(batch, len\)",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def padding_mask_complement_unbracketed(ids, pad_id):  # ~ binds tighter than ==
    keep = ~ids == pad_id  # meant ~(ids == pad_id)
    return keep.unsqueeze(1).unsqueeze(1)


def padding_mask_compared_with_itself(ids, pad_id):  # all False too: not the ~ slip
    return (ids != ids).unsqueeze(1).unsqueeze(1)


# round 18 (blind15d): ~ids == pad_id (before: "the condition never holds", with a
# single-edit sentence naming `ids != ids`); the probe must not name it for another
# all-False mask
MISTAKES += [
    Mistake(
        check_padding_mask,
        padding_mask_complement_unbracketed,
        r"Your mask is ~ids == pad_id: ~ binds tighter than ==.*~\(ids == pad_id\)",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_compared_with_itself,
        r"^(?![\s\S]*binds tighter)[\s\S]*Your mask is False everywhere",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def decoder_mask_length_of_longest_side(tgt_ids, pad_id):  # the larger size taken as len
    n = sorted(tgt_ids.shape)[-1]
    causal = torch.ones(n, n).tril().bool()  # (n, n)
    return ref.padding_mask(tgt_ids, pad_id) & causal


def decoder_mask_length_of_shortest_side(tgt_ids, pad_id):  # the smaller size taken as len
    n = min(tgt_ids.size(0), tgt_ids.size(1))
    return ref.padding_mask(tgt_ids, pad_id) & ref.look_ahead_mask(n)


# round 19 (blind16d-decmask-length-from-largest-size): uncaught while no input had more
# sequences than positions; a probe with batch and length the other way round tells the
# larger (or smaller) of the two sizes from a size read from the batch alone
MISTAKES += [
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_length_of_longest_side,
        r"fails here, with \d+ sequences of \d+ positions, more sequences than positions: its "
        r"length follows the larger of the two sizes \(max\(tgt_ids\.shape\)",
    ),
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_length_of_shortest_side,
        r"fewer sequences than positions: its length follows the smaller of the two sizes",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def padding_mask_new_axis_in_front(ids, pad_id):  # unsqueeze(0) where unsqueeze(1) belongs
    return (ids != pad_id).unsqueeze(0).unsqueeze(2)  # (1, batch, 1, len)


def padding_mask_batch_on_query_axis(ids, pad_id):
    return (ids != pad_id).reshape(1, 1, *ids.shape)  # (1, 1, batch, len)


def decoder_mask_batch_on_heads_axis(tgt_ids, pad_id):
    real = (tgt_ids != pad_id).unsqueeze(1)  # (batch, 1, len)
    return real.unsqueeze(0) & ref.look_ahead_mask(tgt_ids.shape[1])  # (1, batch, len, len)


# round 19 (blind16d-padmask-batch-on-heads-axis): the right flags with the batch axis on
# another axis, a 1 in front (before: "assumes a batch of one somewhere")
MISTAKES += [
    Mistake(
        check_padding_mask,
        padding_mask_new_axis_in_front,
        r"its batch axis \(\d sequences\) sits on the heads axis \(axis 1\), \(1, batch, 1, \d\)"
        r".*Keep the batch axis first: \(ids != pad_id\)\[:, None, None, :\]",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_batch_on_query_axis,
        r"^(?![\s\S]*batch of one)[\s\S]*sits on the query axis \(axis 2\)",
    ),
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_batch_on_heads_axis,
        r"^(?![\s\S]*batch of one)[\s\S]*sits on the heads axis \(axis 1\), \(1, batch, \d, \d\)",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def padding_mask_real_after_first_token(ids, pad_id):  # a running max: pads assumed first
    seen = (ids != pad_id).int().cummax(dim=-1).values.bool()  # (batch, len)
    return seen[:, None, None, :]


def padding_mask_real_up_to_last_token(ids, pad_id):  # a running count from the end
    left = (ids != pad_id).flip(-1).cumsum(-1).flip(-1)  # real tokens from here to the end
    return (left > 0).unsqueeze(1).unsqueeze(1)


# round 19 (blind16d-padmask-real-from-first-token-on): a mask right for the same sequences
# padded at the other end is told it assumes the side of the pads (before: "True
# everywhere"); "True everywhere" itself stays for a mask that is True on any input
MISTAKES += [
    Mistake(
        check_padding_mask,
        padding_mask_real_after_first_token,
        r"^(?![\s\S]*True everywhere)[\s\S]*marks as real every position from a row's first "
        r"real token on.*with their pads moved to the start get the right mask: your code "
        r"assumes the pads sit at the start",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_real_up_to_last_token,
        r"marks as real every position up to a row's last real token.*your code assumes the "
        r"pads sit at the end",
    ),
    Mistake(
        check_padding_mask,
        lambda ids, pad_id: torch.ones_like(ids, dtype=torch.bool)[:, None, None, :],
        r"^(?![\s\S]*assumes the pads)[\s\S]*True everywhere",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def padding_mask_type_as_ids(ids, pad_id):  # meant to match the ids, takes their dtype
    return (ids != pad_id).type_as(ids)[:, None, None, :]  # (batch, 1, 1, len)


def decoder_mask_causal_type_as_ids(tgt_ids, pad_id):  # a bool & int64 gives int64
    causal = ref.look_ahead_mask(tgt_ids.shape[1]).type_as(tgt_ids)  # (len, len)
    return ref.padding_mask(tgt_ids, pad_id) & causal


def padding_mask_long(ids, pad_id):  # a fixed cast: stays int64 whatever the ids
    flags = torch.ne(ids, pad_id).to(torch.int64)  # (batch, len)
    return flags.unsqueeze(1).unsqueeze(2)


# round 21 (blind12k-decmask-look-ahead-to-ids-dtype): a mask that takes the ids' dtype
# (.to(ids), type_as, ones_like) is told so, from a probe with int32 ids; a fixed .long()
# keeps the general message
MISTAKES += [
    Mistake(
        check_padding_mask,
        padding_mask_type_as_ids,
        r"takes the dtype of the ids it is given.*\.to\(ids\.device\)",
    ),
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_causal_type_as_ids,
        r"^(?![\s\S]*not \* or \+)[\s\S]*takes the dtype of the ids it is given",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_long,
        r"^(?![\s\S]*takes the dtype of the ids)[\s\S]*drop any \.int\(\), \.long\(\)",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def decoder_mask_causal_expanded_over_batch(tgt_ids, pad_id):
    batch, length = tgt_ids.shape
    causal = ref.look_ahead_mask(length).expand(batch, length, length)  # (batch, len, len)
    return ref.padding_mask(tgt_ids, pad_id) & causal  # (batch, batch, len, len)


def decoder_mask_padding_three_axes(tgt_ids, pad_id):
    batch, length = tgt_ids.shape
    pad = (tgt_ids != pad_id).unsqueeze(1)  # (batch, 1, len): one axis too few
    causal = ref.look_ahead_mask(length)[None, None].expand(batch, 1, length, length)
    return pad & causal  # (batch, batch, len, len)


# round 21 (blind18b-decmask-look-ahead-repeated-over-batch): a (batch, batch, len, len)
# mask, each slice the right mask of one sequence, says which part met the heads axis
# (before: "assumes a batch of one")
MISTAKES += [
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_causal_expanded_over_batch,
        r"^(?![\s\S]*batch of one)[\s\S]*right mask of sequence i, repeated along the heads "
        r"axis.*\(batch, len, len\), with no heads axis",
    ),
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_padding_three_axes,
        r"right mask of sequence j: the padding part is 3-D, \(batch, 1, len\)",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def padding_mask_empty_rows_opened(ids, pad_id):  # a guard: a row of pads sees everything
    keep = ids != pad_id  # (batch, len)
    keep[keep.sum(dim=1) == 0] = True
    return keep[:, None, None, :]


# round 21 (blind12k-padmask-all-pad-rows-unmasked): a row of pads made all True while the
# others are right is named (before: located, a pad key's weight)
MISTAKES += [
    Mistake(
        check_padding_mask,
        padding_mask_empty_rows_opened,
        r"right on every row with a real token, but row \d, made only of pads, comes out all "
        r"True.*guard against fully masked rows",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def padding_mask_ids_transposed(ids, pad_id):  # ids read as (len, batch)
    keep = ids.transpose(0, 1) != pad_id  # (len, batch)
    return keep.unsqueeze(1).unsqueeze(1)  # (len, 1, 1, batch)


def padding_mask_reshape_batch_last(ids, pad_id):
    batch = len(ids)
    return (ids != pad_id).reshape(-1, 1, 1, batch)  # the batch size where len belongs


# round 21 (blind12k-padmask-ids-read-sequence-first, blind18b-padmask-view-with-batch-
# size): a (len, 1, 1, batch) mask told apart by its flags, transposed or regrouped
MISTAKES += [
    Mistake(
        check_padding_mask,
        padding_mask_ids_transposed,
        r"right mask with the batch and the length exchanged.*sequence-first",
    ),
    Mistake(
        check_padding_mask,
        padding_mask_reshape_batch_last,
        r"holds the right flags in order, regrouped.*put the batch size \(\d\) where the length",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def decoder_mask_causal_only_with_pads(tgt_ids, pad_id):
    length = tgt_ids.shape[1]
    keep = ref.padding_mask(tgt_ids, pad_id)  # (batch, 1, 1, len)
    if (tgt_ids != pad_id).all():  # "nothing to mask": every row is full
        return keep.expand(-1, -1, length, -1)  # (batch, 1, len, len), all True
    return keep & ref.look_ahead_mask(length)


# round 21 (blind18b-decmask-causal-skipped-without-padding): a batch with no pad at all
# (before: every case held a pad, and a look-ahead part skipped without pads passed)
MISTAKES += [
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_causal_only_with_pads,
        r"a batch with no pad at all\) returned a mask that is True everywhere.*leaves out the "
        r"look-ahead mask when there is nothing to pad",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


def decoder_mask_triangle_of_ids_shape(tgt_ids, pad_id):
    causal = torch.ones(tgt_ids.shape, dtype=torch.bool).tril()  # (batch, len), not square
    return ref.padding_mask(tgt_ids, pad_id) & causal


# round 21 (blind18b-decmask-tril-of-ones-like-ids): a (batch, len) triangle is named
# (before: the shape rule alone)
MISTAKES += [
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_triangle_of_ids_shape,
        r"Yours is the padding mask & a \(\d, \d\) triangle, the shape of tgt_ids",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# ------------------------------------------------------------------- round 34 (f34g0106)
def look_ahead_two_steps_ahead(size):  # diagonal=2: the next two tokens visible too
    return torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=2)


def look_ahead_two_back(size):  # diagonal=-2: itself and the token before it hidden
    return torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=-2)


def decoder_mask_one_step_ahead(tgt_ids, pad_id):
    size = tgt_ids.shape[1]
    causal = torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=1)
    return (tgt_ids != pad_id)[:, None, None, :] & causal


MISTAKES += [
    # checking.mask_relations.triangle_offset: the triangle cut at another diagonal
    Mistake(
        check_look_ahead_mask,
        look_ahead_two_steps_ahead,
        r"triangle is cut at the wrong diagonal: it is torch\.tril\(\.\.\., diagonal=2\)"
        r"[\s\S]*each query also sees the 2 keys after it",
    ),
    Mistake(
        check_look_ahead_mask,
        look_ahead_two_back,
        r"^(?![\s\S]*Position 0 may not attend)[\s\S]*torch\.tril\(\.\.\., diagonal=-2\)"
        r"[\s\S]*hidden from itself and from the 1 key\(s\) just before it",
    ),
    Mistake(
        check_decoder_self_attention_mask,
        decoder_mask_one_step_ahead,
        r"triangle is cut at the wrong diagonal: it is torch\.tril\(\.\.\., diagonal=1\)",
    ),
]
test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


@pytest.mark.parametrize(
    "answer, named",
    [
        # the weights' value for the letter: 0 is choice (b)'s all-zero row (it was read as
        # choice (a)'s "0 / 0" before), NaN choice (a)'s
        (
            0,
            r"returned 0, an int, not a letter: 0, the weight on every key, which is choice "
            r"\(b\)[\s\S]*return \"b\"",
        ),
        (float("nan"), r"NaN, the weights' value, which is choice \(a\)[\s\S]*not right either"),
        (np.float32(1.0), r"which is choice \(d\)[\s\S]*the query's own key is blocked"),
    ],
)
def test_quiz_fully_masked_row_reads_a_weight_as_the_choice_it_means(answer, named):
    from transformer_course.checks.masking import check_quiz_fully_masked_row

    with pytest.raises(CheckFailure, match=named):
        check_quiz_fully_masked_row(lambda: answer)
