"""Lesson 02 (embeddings): classic mistakes are rejected with the intended message by
both the visible and the hidden checks, correct variants (including the way
well-known tutorials write them) pass both, and the reference agrees with
independent oracles (PyTorch's own functions and modules, the definitions,
hand-computed values). What every exercise gets anyway (stub, reference passes,
random state, determinism, inputs changed in place) is in test_exercises.py."""

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
from transformer_course.checks.embeddings import (
    QUIZ_GRADIENT_ROWS,
    check_cosine_similarity,
    check_embed,
    check_one_hot,
    check_TokenEmbedding,
)
from transformer_course.reference import embeddings as ref
from transformer_course.wordvectors import project_2d, word_vectors


def _unit(x, axis=-1):
    return x / np.maximum(np.linalg.norm(x, axis=axis, keepdims=True), 1e-12)


# ================================================================== one_hot
# ------------------------------------------------------------------ wrong
def one_hot_bool(ids, vocab_size):
    return np.asarray(ids)[..., None] == np.arange(vocab_size)


def one_hot_ids_as_int8(ids, vocab_size):  # ids of 128 and above turn negative
    small_ids = np.asarray(ids).astype(np.int8)
    return np.eye(vocab_size)[small_ids]


def one_hot_filled_through_uint8(ids, vocab_size):  # a compact copy: 256 wraps to 0
    flat = np.array(ids, dtype=np.uint8).ravel()
    out = np.zeros((flat.size, vocab_size))
    out[np.arange(flat.size), flat] = 1.0
    return out.reshape(*np.shape(ids), vocab_size)


def one_hot_where_without_new_axis(ids, vocab_size):  # (vocab,) against ids' own shape
    return np.where(np.arange(vocab_size) == np.asarray(ids), 1.0, 0.0)


def one_hot_transposed(ids, vocab_size):
    return np.eye(vocab_size)[:, ids]


def one_hot_width_from_ids(ids, vocab_size):
    return np.eye(int(np.max(ids)) + 1)[ids]


def one_hot_one_column_per_present_id(ids, vocab_size):  # as pd.get_dummies: ids present
    column = {i: j for j, i in enumerate(sorted(set(np.ravel(ids).tolist())))}
    out = np.zeros((*np.shape(ids), len(column)))
    for index, i in np.ndenumerate(ids):
        out[(*index, column[int(i)])] = 1.0
    return out


def one_hot_width_of_sequence(ids, vocab_size):  # len(ids) columns: a square identity
    ids = np.asarray(ids)
    return np.eye(max(ids.shape[-1], int(ids.max()) + 1))[ids][..., : ids.shape[-1]]


def one_hot_columns_without_rows(ids, vocab_size):  # out[..., ids] = 1: every id in every row
    ids = np.asarray(ids)
    out = np.zeros((*ids.shape, vocab_size))
    out[..., ids] = 1.0
    return out


def one_hot_width_written_in(ids, vocab_size):  # np.eye(5): right for vocab_size 5 only
    return np.eye(5)[ids]


def one_hot_flattened(ids, vocab_size):
    return np.eye(vocab_size)[np.ravel(ids)]


def one_hot_bag_of_words(ids, vocab_size):
    return np.eye(vocab_size)[np.ravel(ids)].sum(axis=0)


def one_hot_minus_one(ids, vocab_size):
    return np.eye(vocab_size)[np.asarray(ids) - 1]


def one_hot_plus_one(ids, vocab_size):
    return np.eye(vocab_size)[(np.asarray(ids) + 1) % vocab_size]


def one_hot_loop_1d_only(ids, vocab_size):
    out = np.zeros((len(ids), vocab_size))
    for row, i in enumerate(ids):
        out[row, i] = 1.0
    return out


def one_hot_tensor(ids, vocab_size):
    return F.one_hot(torch.as_tensor(np.asarray(ids, dtype=np.int64)), vocab_size).float()


def one_hot_values_not_one(ids, vocab_size):
    return np.eye(vocab_size)[ids] * 2.0


def one_hot_squeezed(ids, vocab_size):
    return np.squeeze(np.eye(vocab_size)[np.asarray(ids)])


# ------------------------------------------------------------------ correct
def one_hot_eye(ids, vocab_size):
    return np.eye(vocab_size)[ids]


def one_hot_zeros_fancy_indexing(ids, vocab_size):
    ids = np.asarray(ids)
    out = np.zeros((*ids.shape, vocab_size))
    out[(*np.indices(ids.shape), ids)] = 1.0
    return out


def one_hot_compare(ids, vocab_size):
    return (np.asarray(ids)[..., None] == np.arange(vocab_size)).astype(np.float64)


def one_hot_put_along_axis(ids, vocab_size):
    ids = np.asarray(ids)
    out = np.zeros((*ids.shape, vocab_size))
    np.put_along_axis(out, ids[..., None], 1.0, axis=-1)
    return out


def one_hot_loops(ids, vocab_size):
    ids = np.asarray(ids)
    out = np.zeros((ids.size, vocab_size))
    for row, i in enumerate(ids.reshape(-1)):
        out[row, i] = 1.0
    return out.reshape(*ids.shape, vocab_size)


def one_hot_torch(ids, vocab_size):
    """F.one_hot(...).numpy(): right values, but the exercise forbids F.one_hot (registry):
    the check refuses it as the grader does (issue 22), naming what to write instead."""
    return F.one_hot(torch.as_tensor(np.asarray(ids, dtype=np.int64)), vocab_size).numpy()


def one_hot_int(ids, vocab_size):
    return np.eye(vocab_size, dtype=np.int64)[ids]


def one_hot_float32(ids, vocab_size):
    return np.eye(vocab_size, dtype=np.float32)[ids]


# ================================================================== embed
# ------------------------------------------------------------------ wrong
def cosine_as_euclidean_distance(a, b):  # torch.cdist / scipy's cdist: a distance
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a[:, None, :] - b[None, :, :], axis=-1)


def cosine_as_unit_vector_distance(a, b):  # rows normalised, then cdist
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    a = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)
    b = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)
    return np.linalg.norm(a[:, None, :] - b[None, :, :], axis=-1)


def embed_ids_clipped(ids, table):  # np.clip to one row below the last: the last id is lost
    return np.asarray(table)[np.clip(np.asarray(ids), 0, len(table) - 2)]


def embed_ids_sorted(ids, table):  # the ids sorted before the lookup (np.unique, sorted)
    return np.asarray(table)[np.sort(np.asarray(ids), axis=None).reshape(np.shape(ids))]


def one_hot_of_sorted_ids(ids, vocab_size):  # the ids sorted on the way in
    ids = np.asarray(ids)
    return np.eye(vocab_size)[np.sort(ids, axis=None).reshape(ids.shape)]


def embed_one_id_at_a_time(ids, table):  # int(i) over the ids: 1-D ids only
    return np.stack([np.asarray(table)[int(i)] for i in ids])


def embed_columns(ids, table):
    return table[:, ids]


def embed_columns_transposed(ids, table):
    return np.moveaxis(table[:, ids], 0, -1)


def embed_flattened(ids, table):
    return table[np.ravel(ids)]


def embed_reshaped_per_row(ids, table):  # (batch, len * d_model): len and d_model merged
    ids = np.asarray(ids)
    return np.asarray(table)[ids.ravel()].reshape(ids.shape[0], -1)


def embed_take_without_axis(ids, table):  # np.take reads the flattened table
    return np.take(table, ids)


def one_hot_rows_for_1d_ids(ids, vocab_size):  # (arange(n), ids): raises on 2-D ids
    out = np.zeros((np.size(ids, 0), vocab_size))
    out[np.arange(np.size(ids, 0)), ids] = 1
    return out


def embed_off_by_one(ids, table):
    return table[np.asarray(ids) - 1]


def embed_one_hot_only(ids, table):
    return np.eye(len(table))[ids]


def embed_squeezed(ids, table):  # .squeeze(): ids of shape (1, len) lose their batch axis
    return np.squeeze(table[ids])


def embed_mean(ids, table):
    return table[np.ravel(ids)].mean(axis=0)


def embed_scaled(ids, table):
    return table[ids] * math.sqrt(table.shape[1])


def embed_in_place(ids, table):
    table[0] = 0.0  # overwrites the caller's table
    return table[ids]


def embed_int(ids, table):
    return table[ids].astype(np.int64)


def embed_one_hot_of_width_d_model(ids, table):
    d_model = np.shape(table)[1]
    return ref.one_hot(ids, d_model) @ table


# ------------------------------------------------------------------ correct
def embed_via_one_hot(ids, table):
    return ref.one_hot(ids, len(table)) @ table  # float64, also for a float32 table


def embed_take(ids, table):
    return np.take(table, ids, axis=0)


def embed_loops(ids, table):
    ids = np.asarray(ids)
    rows = [table[i] for i in ids.reshape(-1)]
    return np.array(rows).reshape(*ids.shape, table.shape[1])


def embed_einsum(ids, table):
    return np.einsum("...v,vd->...d", ref.one_hot(ids, len(table)), table)


def embed_torch(ids, table):
    """PyTorch's functional lookup, back to numpy."""
    return F.embedding(
        torch.as_tensor(np.asarray(ids, dtype=np.int64)), torch.as_tensor(table)
    ).numpy()


# ================================================================== cosine_similarity
# ------------------------------------------------------------------ wrong
def cos_product_columns_normalised(a, b):  # a @ b.T, each column divided by its length
    dots = np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64).T  # (n, m)
    lengths = np.linalg.norm(dots, axis=0, keepdims=True)  # (1, m)
    return np.divide(dots, lengths, out=np.zeros_like(dots), where=lengths > 0)


def cos_clipped_to_non_negative(a, b):  # np.clip(..., 0, 1): opposite vectors get 0
    return np.clip(ref.cosine_similarity(a, b), 0.0, 1.0)


def cos_self_pairs_excluded(a, b):  # -inf on (i, i): no vector is its own neighbour
    sim = ref.cosine_similarity(a, b)
    k = min(sim.shape)
    sim[np.arange(k), np.arange(k)] = -np.inf
    return sim


def cos_diagonal_set_to_one(a, b):  # "a vector is similar to itself": (i, i) = 1
    sim = ref.cosine_similarity(a, b)
    np.fill_diagonal(sim, 1.0)
    return sim


def cos_elementwise(a, b):
    return np.sum(_unit(a) * _unit(b), axis=-1)


def cos_swapped(a, b):
    return _unit(b) @ _unit(a).T


def cos_no_transpose(a, b):
    return _unit(a) @ _unit(b)


def cos_no_norm_b(a, b):
    return _unit(a) @ b.T


def cos_a_rooted_norm_b_right(a, b):
    """Divides a's rows by the square root of their sum of squares' square root (a
    fourth root), b's by their lengths."""
    root_a = np.maximum(np.sum(a * a, axis=-1, keepdims=True) ** 0.25, 1e-12)
    return (a / root_a) @ _unit(b).T


def cos_norms_cubed(a, b):
    """Divides both by their lengths cubed (norm ** 3)."""
    return (a / np.linalg.norm(a, axis=-1, keepdims=True) ** 3) @ (
        b / np.linalg.norm(b, axis=-1, keepdims=True) ** 3
    ).T


def cos_no_norm_a(a, b):
    return a @ _unit(b).T


def cos_dot_only(a, b):
    return a @ b.T


def cos_wrong_axis(a, b):
    return _unit(a, 0) @ _unit(b, 0).T


def cos_matrix_norm(a, b):
    return (a / np.linalg.norm(a)) @ (b / np.linalg.norm(b)).T


def cos_distance(a, b):
    return 1.0 - _unit(a) @ _unit(b).T


def cos_squared_norm(a, b):
    return (a / (a * a).sum(-1, keepdims=True)) @ (b / (b * b).sum(-1, keepdims=True)).T


def cos_nan_for_zero(a, b):
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a / np.linalg.norm(a, axis=-1, keepdims=True)) @ (
            b / np.linalg.norm(b, axis=-1, keepdims=True)
        ).T


def cos_scalar(a, b):
    return float(np.sum(_unit(a).mean(0) * _unit(b).mean(0)))


def cos_norm_vectors_not_outer(a, b):
    return (a @ b.T) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def cos_b_per_column(a, b):
    return _unit(a) @ (b / np.linalg.norm(b, axis=0)).T


def cos_a_times_length(a, b):
    return (a * np.linalg.norm(a, axis=1, keepdims=True)) @ _unit(b).T


def cos_norms_without_keepdims(a, b):
    return (a / np.linalg.norm(a, axis=1)) @ (b / np.linalg.norm(b, axis=1)).T


def cos_clamp_at_one(a, b):
    """Guards against zero vectors by clamping every length at 1: short vectors stay short."""
    a = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1.0)
    b = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1.0)
    return a @ b.T


# ------------------------------------------------------------------ correct
def cos_einsum(a, b):
    dots = np.einsum("nd,md->nm", a, b)
    norms = np.sqrt(np.einsum("nd,nd->n", a, a))[:, None] * np.sqrt(np.einsum("md,md->m", b, b))
    return np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)


def cos_loops(a, b):
    out = np.zeros((len(a), len(b)))
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            nx, ny = math.sqrt(float(x @ x)), math.sqrt(float(y @ y))
            out[i, j] = 0.0 if nx == 0 or ny == 0 else float(x @ y) / (nx * ny)
    return out


def cos_float32_eps(a, b):
    a, b = a.astype(np.float32), b.astype(np.float32)
    a = a / (np.linalg.norm(a, axis=1, keepdims=True) + 1e-8)
    b = b / (np.linalg.norm(b, axis=1, keepdims=True) + 1e-8)
    return a @ b.T


def cos_eps_in_denominator(a, b):
    """The textbook formula with an eps added to the product of the lengths."""
    norms = np.linalg.norm(a, axis=1)[:, None] * np.linalg.norm(b, axis=1)[None, :]
    return (a @ b.T) / (norms + 1e-8)


def cos_sklearn_style(a, b):
    """scikit-learn's recipe: normalize the rows (a zero row keeps length 0), then one product."""

    def normalize(x):
        norms = np.sqrt((x * x).sum(axis=1))
        norms[norms == 0.0] = 1.0  # what sklearn's _handle_zeros_in_scale does
        return x / norms[:, None]

    return normalize(a) @ normalize(b).T


def cos_torch_normalize(a, b):
    a_t, b_t = torch.as_tensor(a), torch.as_tensor(b)
    return (F.normalize(a_t, dim=-1) @ F.normalize(b_t, dim=-1).T).numpy()


def cos_nan_to_num(a, b):
    with np.errstate(invalid="ignore", divide="ignore"):
        sims = (a @ b.T) / np.outer(np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1))
    return np.nan_to_num(sims)


def cos_angular_distance(a, b):  # arccos(cosine) / pi: a distance, not the cosine
    return np.arccos(np.clip(ref.cosine_similarity(a, b), -1.0, 1.0)) / np.pi


def cos_pearson(a, b):  # each vector centred first: a correlation, not the cosine
    a, b = np.asarray(a, float), np.asarray(b, float)
    return ref.cosine_similarity(a - a.mean(-1, keepdims=True), b - b.mean(-1, keepdims=True))


def cos_max_method_as_floor(a, b):  # .max(eps) reduces, eps read as the axis
    a, b = np.asarray(a, float), np.asarray(b, float)
    a_norms = np.sqrt((a * a).sum(axis=1, keepdims=True)).max(1e-8)
    b_norms = np.sqrt((b * b).sum(axis=1, keepdims=True)).max(1e-8)
    return (a / a_norms) @ (b / b_norms).T


def cos_float32_result(a, b):
    return ref.cosine_similarity(a, b).astype(np.float32)


# ================================================================== TokenEmbedding
class _Base(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)


# ------------------------------------------------------------------ wrong
class TEFlattened(_Base):  # ids.view(-1): (batch * len, d_model)
    def forward(self, ids):
        return self.embedding(ids.view(-1)) * math.sqrt(self.d_model)


class TESqrtPrecedence(_Base):  # d_model ** 1 / 2 is (d_model ** 1) / 2
    def forward(self, ids):
        return self.embedding(ids) * self.d_model**1 / 2


class TEScaledByOddConstant(_Base):  # a factor that is no root of a whole number
    def forward(self, ids):
        return self.embedding(ids) * 2.7


class TEOutputKeptByIds(_Base):  # memoised on the ids: a weight update never shows
    def forward(self, ids):
        key = tuple(ids.flatten().tolist())
        if not hasattr(self, "outputs"):
            self.outputs = {}
        if key not in self.outputs:
            self.outputs[key] = self.embedding(ids) * math.sqrt(self.d_model)
        return self.outputs[key]


class TEScalesFirstSequence(_Base):  # the scale applied to out[:1] only
    def forward(self, ids):
        out = self.embedding(ids)
        return torch.cat([out[:1] * math.sqrt(self.d_model), out[1:]])


class TEMaxNorm(nn.Module):  # max_norm renormalises the looked-up rows in place
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model, max_norm=1.0)

    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.d_model)


class TEUnscaled(_Base):
    def forward(self, ids):
        return self.embedding(ids)


class TEScaleInInit(_Base):  # the factor put into the initial table, lost on loading
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        with torch.no_grad():
            self.embedding.weight.mul_(math.sqrt(d_model))

    def forward(self, ids):
        return self.embedding(ids)


class TEScaledByDModel(_Base):
    def forward(self, ids):
        return self.embedding(ids) * self.d_model


class TEDivided(_Base):
    def forward(self, ids):
        return self.embedding(ids) / math.sqrt(self.d_model)


class TEScaledByFixedWidth(_Base):
    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(300)  # a width written in, not self.d_model


class TEScaledByIntegerSqrt(_Base):  # exact for d_model 4, 9, 16, ...; too small otherwise
    def forward(self, ids):
        return self.embedding(ids) * int(math.sqrt(self.d_model))


class TEScaledByTwo(_Base):  # sqrt(4) written in: right for d_model = 4 only
    def forward(self, ids):
        return self.embedding(ids) * 2.0


class TEScaleRootedTwice(_Base):  # the scale kept as a root, then rooted again: d_model ** 0.25
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.scale = d_model**0.5

    def forward(self, ids):
        return self.embedding(ids) * self.scale**0.5


class TEScaledByRootTwo(_Base):  # sqrt(2) written in: d_model ** 0.25 at d_model = 4 only
    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(2)


class TEFromPretrained(_Base):  # from_pretrained freezes by default: never trains
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.embedding = nn.Embedding.from_pretrained(torch.randn(vocab_size, d_model))

    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.d_model)


class TEFromPretrainedTrainable(TEFromPretrained):  # freeze=False: a trainable table
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.embedding = nn.Embedding.from_pretrained(
            torch.randn(vocab_size, d_model), freeze=False
        )


def cos_pairs_along_a_rows(a, b):  # the broadcast pairs' cosine along axis 0, a's rows
    a_pairs = torch.as_tensor(np.asarray(a, dtype=np.float64))[:, None, :]  # (n, 1, d)
    b_pairs = torch.as_tensor(np.asarray(b, dtype=np.float64))[None, :, :]  # (1, m, d)
    return F.cosine_similarity(a_pairs, b_pairs, dim=0).numpy()  # (m, d)


class TEPadRowsDetached(_Base):  # the vectors of ids 0 and 1 taken from a detached copy
    def forward(self, ids):
        rows = self.embedding(ids)  # (batch, len, d_model)
        frozen = (ids <= 1)[..., None]  # (batch, len, 1)
        return torch.where(frozen, rows.detach(), rows) * math.sqrt(self.d_model)


class TEBufferTable(nn.Module):  # the table registered as a buffer: saved, never trained
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.register_buffer("table", torch.randn(vocab_size, d_model))

    def forward(self, ids):
        return nn.functional.embedding(ids, self.table) * math.sqrt(self.d_model)


class TEVocabWrittenIn(_Base):  # nn.Embedding(1000, d_model): the vocabulary size ignored
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.embedding = nn.Embedding(1000, d_model)

    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.d_model)


class TESequenceFirst(_Base):  # ids.t(): the tutorial's (len, batch) habit
    def forward(self, ids):
        return self.embedding(ids.t()) * math.sqrt(self.d_model)


class TEScaledByLength(_Base):
    def forward(self, ids):
        return self.embedding(ids) * ids.size(1) ** 0.5


class TEScaledByVocab(_Base):
    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.embedding.num_embeddings)


class TELinear(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Linear(vocab_size, d_model)

    def forward(self, ids):
        one_hot = F.one_hot(ids, self.embedding.in_features).float()
        return self.embedding(one_hot) * math.sqrt(self.d_model)


class TELinearNoBias(TELinear):
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.embedding = nn.Linear(vocab_size, d_model, bias=False)


class TESwappedSizes(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(d_model, vocab_size)

    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.d_model)


class TETableInForward(nn.Module):
    """Keeps no table at all: a fresh nn.Embedding in every forward."""

    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.vocab_size, self.d_model = vocab_size, d_model

    def forward(self, ids):
        return nn.Embedding(self.vocab_size, self.d_model)(ids) * math.sqrt(self.d_model)


class TETwoTables(_Base):
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.spare = nn.Embedding(vocab_size, d_model)

    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.d_model)


class TESqueezed(_Base):
    """Squeezes the output, which drops the batch axis of a batch of one sentence."""

    def forward(self, ids):
        return (self.embedding(ids) * math.sqrt(self.d_model)).squeeze()


class TEDetached(_Base):
    def forward(self, ids):
        with torch.no_grad():
            return self.embedding(ids) * math.sqrt(self.d_model)


class TENewTableEachCall(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.vocab_size, self.d_model = vocab_size, d_model
        self.embedding = nn.Embedding(vocab_size, d_model)

    def forward(self, ids):
        fresh = nn.Embedding(self.vocab_size, self.d_model)
        return fresh(ids) * math.sqrt(self.d_model)


class TEScalesWeightsInForward(_Base):
    """Scales the table itself in forward: right on the first call, sqrt(d_model) times
    larger on each later one (not a fresh table: the weights change)."""

    def forward(self, ids):
        self.embedding.weight.data.mul_(math.sqrt(self.d_model))
        return self.embedding(ids)


class TELearnedScale(_Base):
    """The output is right, but the scale is a second, trainable parameter."""

    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.scale = nn.Parameter(torch.tensor(math.sqrt(d_model)))

    def forward(self, ids):
        return self.embedding(ids) * self.scale


class TEUnusedLayer(_Base):
    """The output is right, but an unused nn.Linear adds trainable parameters."""

    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.d_model)


class TEExtraBias(_Base):
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.bias = nn.Parameter(torch.ones(d_model))

    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.d_model) + self.bias


class TENotAModule:
    def __init__(self, vocab_size, d_model):
        self.embedding = nn.Embedding(vocab_size, d_model)


class TEFloat64(_Base):
    def forward(self, ids):
        return self.embedding(ids).double() * math.sqrt(self.d_model)


# ------------------------------------------------------------------ correct
class TEPaper(_Base):
    def forward(self, ids):
        return self.embedding(ids) * self.d_model**0.5


class TEAnnotated(nn.Module):
    """The Annotated Transformer's Embeddings (its table is called `lut`, its scale is
    applied in forward), with this course's argument order."""

    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.lut = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, x):
        return self.lut(x) * math.sqrt(self.d_model)


class TEScaleAttribute(_Base):
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.scale = math.sqrt(d_model)

    def forward(self, ids):
        return self.embedding(ids) * self.scale


class TEScaleRegisteredBuffer(_Base):
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.register_buffer("scale", torch.tensor(math.sqrt(d_model)))

    def forward(self, ids):
        return self.embedding(ids) * self.scale


class TEFunctional(_Base):
    def forward(self, ids):
        return F.embedding(ids, self.embedding.weight) * math.sqrt(self.d_model)


class TEOneHotMatmul(_Base):
    def forward(self, ids):
        one_hot = F.one_hot(ids, self.embedding.num_embeddings).to(self.embedding.weight.dtype)
        return one_hot @ self.embedding.weight * math.sqrt(self.d_model)


class TEPaddingIdx(nn.Module):
    """padding_idx only changes initialisation and gradients, not the loaded lookup."""

    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=0)

    def forward(self, ids):
        return self.embedding(ids) * torch.sqrt(torch.tensor(float(self.d_model)))


class TEPaddingIdxOnLastRow(nn.Module):
    """padding_idx=-1: the last id's row starts at zero and is never trained."""

    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=-1)

    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.d_model)


class TEWeightIndexing(_Base):
    def forward(self, ids):
        return self.embedding.weight[ids] * math.sqrt(self.d_model)


class TETableNamedTable(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.table = nn.Embedding(vocab_size, d_model)

    def forward(self, ids):
        return self.table(ids) * math.sqrt(self.d_model)


# ================================================================== concept questions


MISTAKES = [
    Mistake(
        check_TokenEmbedding,
        TEPaddingIdxOnLastRow,
        r"row (\d+) of the table started at zero.*padding_idx=\1\)\. In this course <pad> is id 0",
    ),
    Mistake(
        check_one_hot,
        one_hot_torch,
        r"calls torch\.nn\.functional\.one_hot.*`F\.one_hot` computes the answer for you; build "
        r"the one-hot rows with comparisons or indexing.*grader scores it 0",
    ),
    Mistake(check_one_hot, one_hot_bool, r"booleans.*add up as logic.*astype"),
    Mistake(check_one_hot, one_hot_transposed, r"transposed"),
    Mistake(
        check_one_hot,
        one_hot_where_without_new_axis,
        r"raised ValueError.*broadcast[\s\S]*ids\[\.\.\., None\] == np\.arange",
    ),
    Mistake(check_one_hot, one_hot_ids_as_int8, r"cast to int8 \(-128 \.\. 127\).*from the end"),
    Mistake(
        check_one_hot,
        one_hot_filled_through_uint8,
        r"The 1 for id \d+ sits in column \d+: the ids were cast to uint8",
    ),
    Mistake(
        check_one_hot, one_hot_rows_for_1d_ids, r"(?s)right on the same ids flattened.*any shape"
    ),
    Mistake(check_embed, embed_take_without_axis, r"flat list.*np\.take\(table, ids, axis=0\)"),
    Mistake(check_one_hot, one_hot_width_from_ids, r"max\(ids\) \+ 1"),
    Mistake(check_one_hot, one_hot_flattened, r"flattened"),
    Mistake(check_one_hot, one_hot_bag_of_words, r"bag of words"),
    Mistake(check_one_hot, one_hot_minus_one, r"subtract 1"),
    Mistake(check_one_hot, one_hot_plus_one, r"add 1"),
    Mistake(check_one_hot, one_hot_loop_1d_only, r"any shape"),
    Mistake(check_one_hot, one_hot_tensor, r"numpy array.*\.numpy\(\)"),
    Mistake(check_one_hot, one_hot_values_not_one, r"values other than 0 and 1"),
    Mistake(check_embed, embed_columns, r"indexed the columns"),
    Mistake(
        check_cosine_similarity,
        cosine_as_euclidean_distance,
        r"Euclidean distance between the vectors, \|a\[i\] - b\[j\]\|",
    ),
    Mistake(  # the product matrix normalised (family of blind28a-cos-product-rows-normalised)
        check_cosine_similarity,
        cos_product_columns_normalised,
        r"Each column of your result was divided by its own length.*a's lengths are never used",
    ),
    Mistake(
        check_cosine_similarity,
        cosine_as_unit_vector_distance,
        r"Euclidean distance between the unit vectors",
    ),
    Mistake(check_embed, embed_ids_clipped, r"the ids clipped, np\.clip or min"),
    Mistake(check_embed, embed_ids_sorted, r"right ones for the ids sorted"),
    Mistake(
        check_one_hot,
        one_hot_of_sorted_ids,
        r"one-hot, but the vectors are the right ones for the ids sorted",
    ),
    Mistake(
        check_embed,
        embed_one_id_at_a_time,
        r"raised TypeError.*\n.*a loop over them yields whole rows.*assumes 1-D ids",
    ),
    Mistake(check_embed, embed_columns_transposed, r"columns"),
    Mistake(check_embed, embed_flattened, r"flattened the ids"),
    Mistake(
        check_embed,
        embed_reshaped_per_row,
        r"should have shape \(\d+, (\d+), (\d+)\), but it has shape \(\d+, \d+\)\. That is the "
        r"expected shape with the 2 axes \(\1, \2\) \(axes 1 to 2\) merged into one",
    ),
    Mistake(check_embed, embed_off_by_one, r"table\[i - 1\]"),
    Mistake(check_embed, embed_one_hot_only, r"without multiplying them by the table"),
    Mistake(check_embed, embed_mean, r"single vector, the rows averaged"),
    # blind round 10: caught visibly (a batch of one sentence), and told the squeeze, not
    # "did you add or average the rows?"
    Mistake(
        check_embed,
        embed_squeezed,
        r"^(?!.*(add|averag))(?s:.*)right rows, with every axis of size 1 removed.*squeeze",
    ),
    Mistake(check_embed, embed_scaled, r"scaled by sqrt\(d_model\)"),
    Mistake(check_embed, embed_in_place, r"changed its argument `table` in place.*only reads"),
    Mistake(check_embed, embed_int, r"floating-point"),
    Mistake(check_cosine_similarity, cos_elementwise, r"elementwise|pairwise"),
    Mistake(
        check_cosine_similarity, cos_clipped_to_non_negative, r"negative similarities became 0"
    ),
    Mistake(
        check_cosine_similarity,
        cos_self_pairs_excluded,
        r"right except the diagonal: each entry \(i, i\) is -inf.*fill_diagonal",
    ),
    Mistake(
        check_cosine_similarity,
        cos_diagonal_set_to_one,
        r"right except the diagonal: each entry \(i, i\) is 1,",
    ),
    Mistake(check_TokenEmbedding, TEFlattened, r"batch and length axes are merged.*flattened"),
    Mistake(check_cosine_similarity, cos_swapped, r"b @ a\.T"),
    Mistake(check_cosine_similarity, cos_pairs_along_a_rows, r"taken along axis 0, a's rows"),
    Mistake(check_cosine_similarity, cos_no_transpose, r"(?s)core dimension.*transposed"),
    # asked whether each vector was divided by its length (the family of blind23a-b23a-
    # cos-norms-rooted-twice): the powers of the lengths fitted from the output
    Mistake(
        check_cosine_similarity,
        cos_a_rooted_norm_b_right,
        r"each row of a was divided by the square root of its length .*each row of b by its "
        r"length, rightly",
    ),
    Mistake(
        check_cosine_similarity,
        cos_norms_cubed,
        r"each row of a and of b was divided by its length to the power 3",
    ),
    Mistake(check_cosine_similarity, cos_no_norm_b, r"Only `a` was divided"),
    Mistake(check_cosine_similarity, cos_no_norm_a, r"Only `b` was divided"),
    Mistake(check_cosine_similarity, cos_dot_only, r"plain dot product"),
    Mistake(check_cosine_similarity, cos_wrong_axis, r"wrong axis"),
    Mistake(check_cosine_similarity, cos_matrix_norm, r"norm of the whole matrix"),
    Mistake(check_cosine_similarity, cos_distance, r"cosine \*distance\*"),
    Mistake(check_cosine_similarity, cos_pearson, r"Pearson correlation.*centred"),
    Mistake(
        check_cosine_similarity,
        cos_max_method_as_floor,
        r"raised TypeError: 'float' object cannot be interpreted as an integer\n.*np\.max\(a, b\) "
        r"\(or np\.min, or the method a\.max\(b\)\) reads b as the axis.*np\.maximum\(a, b\)",
    ),
    Mistake(
        check_cosine_similarity, cos_angular_distance, r"angular distance, arccos\(cosine\) / pi"
    ),
    Mistake(check_cosine_similarity, cos_squared_norm, r"squared lengths"),
    Mistake(check_cosine_similarity, cos_nan_for_zero, r"zero vector.*NaN.*argmax"),
    Mistake(check_cosine_similarity, cos_scalar, r"single number"),
    Mistake(check_cosine_similarity, cos_clamp_at_one, r"shorter than 1 were not normalised"),
    Mistake(check_cosine_similarity, cos_norm_vectors_not_outer, r"elementwise product.*outer"),
    Mistake(
        check_cosine_similarity, cos_b_per_column, r"`b` was divided by norms taken over axis 0"
    ),
    Mistake(check_cosine_similarity, cos_a_times_length, r"`a` was multiplied by its lengths"),
    Mistake(check_cosine_similarity, cos_norms_without_keepdims, r"lost their axis.*keepdims"),
    Mistake(check_one_hot, one_hot_squeezed, r"axes of size 1 are gone.*squeeze"),
    Mistake(check_embed, embed_one_hot_of_width_d_model, r"square table.*table\.shape\[0\]"),
    Mistake(check_TokenEmbedding, TEScaledByLength, r"square root of the sequence length"),
    Mistake(
        check_one_hot,
        one_hot_width_written_in,
        r"(?s)raised IndexError.*outside something of size 5, but vocab_size is \d+",
    ),
    # blind round 10: widths counted from the ids, told apart by ids with a repeat
    Mistake(
        check_one_hot,
        one_hot_one_column_per_present_id,
        r"^(?!.*len\(ids\))(?s:.*)the number of distinct ids in this batch.*vocab_size argument",
    ),
    Mistake(
        check_one_hot,
        one_hot_width_of_sequence,
        r"^(?!.*distinct)(?s:.*)the number of ids \(len\(ids\)\)",
    ),
    Mistake(
        check_one_hot,
        one_hot_columns_without_rows,
        r"each marks every id of the input.*out\[\.\.\., ids\] = 1.*own row",
    ),
    Mistake(
        check_TokenEmbedding,
        TEUnscaled,
        r"^(?!.*did you scale the weights).*plain lookup.*multiplies the embeddings by sqrt\(d_model\)",
    ),
    Mistake(
        check_TokenEmbedding,
        TEScaleInInit,
        r"plain lookup.*sqrt\(d_model\) times nn.Embedding's N\(0, 1\).*scale the weights in __init__",
    ),
    Mistake(check_TokenEmbedding, TEScaledByDModel, r"scaled by d_model"),
    Mistake(check_TokenEmbedding, TEPadRowsDetached, r"rows 0, 1 of the table got no gradient"),
    Mistake(
        check_TokenEmbedding,
        TESqrtPrecedence,
        r"^(?!.*passed to __init__).*You scaled by d_model / 2 = [\d.]+, not sqrt\(d_model\).*"
        r"\*\* binds tighter than /",
    ),
    # no cause offered for a factor that tells nothing: not "use the d_model passed"
    Mistake(
        check_TokenEmbedding,
        TEScaledByOddConstant,
        r"^(?!.*(passed to __init__|hard-coded)).*one constant, 2\.7, but the factor is "
        r"sqrt\(d_model\).*Scale by math\.sqrt\(self\.d_model\)",
    ),
    Mistake(
        check_TokenEmbedding,
        TEScalesFirstSequence,
        r"indices \[0\] \(of \d\) are right and \[[\d, ]+\] are the right values times one constant, 0\."
        r".*only part of that axis",
        hidden_only=True,  # (a factor is named on two wrong sequences or more: batch 4)
    ),
    Mistake(
        check_TokenEmbedding,
        TEOutputKeptByIds,
        r"after the module's weights changed in place.*returned exactly its earlier output",
    ),
    Mistake(
        check_TokenEmbedding,
        TEMaxNorm,
        r"^(?!.*weight\.data\.mul_).*scaled down to norm 1, in place\. That is nn\.Embedding's "
        r"max_norm",
    ),
    # named alone: no second, vaguer "times one constant" candidate beside it
    Mistake(
        check_TokenEmbedding,
        TEDivided,
        r"^(?![\s\S]*(known mistakes|one constant))[\s\S]*divided by sqrt\(d_model\)",
    ),
    Mistake(
        check_TokenEmbedding, TEScaledByFixedWidth, r"one constant, 17\.32.*sqrt\(300\).*hard-coded"
    ),
    Mistake(check_TokenEmbedding, TEScaledByVocab, r"sqrt\(vocab_size\)"),
    # blind round 10: a scale rounded to an integer is told apart from a hard-coded width
    # by a second d_model (both give 2 for d_model = 6)
    Mistake(
        check_TokenEmbedding,
        TEScaledByIntegerSqrt,
        r"^(?!.*hard-coded)(?s:.*)sqrt\(6\) rounded down to an integer.*yours scales by 3 = "
        r"int\(sqrt\(10\)\).*math\.sqrt\(self\.d_model\)",
    ),
    Mistake(
        check_TokenEmbedding,
        TEScaledByTwo,
        r"^(?!.*rounded)(?s:.*)one constant, 2, .*sqrt\(4\).*still scales by 2: a hard-coded",
    ),
    # blind round 14: d_model ** 0.25 is told apart from a hard-coded sqrt(2) by d_model=16
    Mistake(
        check_TokenEmbedding,
        TEScaleRootedTwice,
        r"^(?!.*hard-coded)(?s:.*)= d_model \*\* 0\.25.*square root was taken twice",
    ),
    Mistake(
        check_TokenEmbedding,
        TEScaledByRootTwo,
        r"^(?!.*taken twice)(?s:.*)one constant, 1\.414.*hard-coded",
    ),
    Mistake(
        check_TokenEmbedding,
        TEFromPretrained,
        r"^(?!.*torch\.no_grad)(?s:.*)`embedding\.weight` itself has requires_grad=False.*"
        r"from_pretrained.*freeze=False",
    ),
    Mistake(check_TokenEmbedding, TEBufferTable, r"`table` is not a parameter of the module"),
    Mistake(
        check_TokenEmbedding,
        TEVocabWrittenIn,
        r"width is right, but it has 1000 rows where vocab_size is \d+",
    ),
    Mistake(
        check_TokenEmbedding,
        TESequenceFirst,
        r"batch and length axes are swapped.*sequence-first.*ids\.t\(\)",
    ),
    Mistake(check_TokenEmbedding, TELinear, r"looks like an nn\.Linear"),
    Mistake(check_TokenEmbedding, TELinearNoBias, r"transposed: either an nn\.Linear"),
    Mistake(check_TokenEmbedding, TESwappedSizes, r"number of rows first"),
    Mistake(check_TokenEmbedding, TETableInForward, r"holds nothing.*not part of the module"),
    Mistake(check_TokenEmbedding, TETwoTables, r"one table, one row per token id"),
    Mistake(check_TokenEmbedding, TESqueezed, r"axes of size 1 are gone.*squeeze"),
    Mistake(check_TokenEmbedding, TEDetached, r"does not require grad"),
    Mistake(check_TokenEmbedding, TENewTableEachCall, r"new random weights"),
    Mistake(check_TokenEmbedding, TENotAModule, r"subclass of nn\.Module"),
    Mistake(check_TokenEmbedding, TEFloat64, r"dtype torch\.float32.*dtype mismatch"),
    Mistake(check_TokenEmbedding, TEExtraBias, r"also holds `bias`"),
    Mistake(
        check_TokenEmbedding,
        TEScalesWeightsInForward,
        r"^(?!.*new random weights).*changed the table `embedding\.weight` itself.*"
        r"sqrt\(d_model\).*in place",
    ),
    Mistake(
        check_TokenEmbedding,
        TEUnusedLayer,
        r"trainable parameter besides the table: `proj\.weight`, `proj\.bias`\.(?!.*Python float)"
        r".*Remove it",
    ),
    Mistake(
        check_TokenEmbedding,
        TELearnedScale,
        r"trainable parameter besides the table: `scale` \(`scale` holds sqrt\(d_model\)",
    ),
]


# ------------------------------------------------ round 11 (r11c): families that carry over
def _unit_rows(x):
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def cos_np_dot_untransposed(a, b):  # np.dot names both shapes: (n, d) and (m, d)
    return np.dot(_unit_rows(a), _unit_rows(b))


def cos_torch_untransposed(a, b):  # torch names both shapes too
    return (torch.from_numpy(_unit_rows(a)) @ torch.from_numpy(_unit_rows(b))).numpy()


def cos_both_transposed(a, b):  # (d, n) @ (d, m): the inner sizes d and n
    return _unit_rows(a).T @ _unit_rows(b).T


def one_hot_torch_without_long(ids, vocab_size):  # F.one_hot of int32 ids
    return F.one_hot(torch.as_tensor(ids), vocab_size).numpy()


def one_hot_torch_from_numpy(ids, vocab_size):  # the same family: from_numpy keeps int32
    return F.one_hot(torch.from_numpy(np.asarray(ids)), vocab_size).float().numpy()


def cos_torch_row_by_row(a, b):  # F.cosine_similarity pairs row i with row i
    return F.cosine_similarity(torch.as_tensor(a), torch.as_tensor(b), dim=-1).numpy()


def cos_zip_rows(a, b):  # the same pairing written as a zip over the rows: (n,) values
    return np.array([x @ y for x, y in zip(_unit_rows(a), _unit_rows(b), strict=False)])


def _raw_cosines(a, b):
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a @ b.T) / (
            np.linalg.norm(a, axis=-1, keepdims=True) * np.linalg.norm(b, axis=-1)[None, :]
        )


def embed_one_hot_from_max_id(ids, table):  # one-hot as wide as the ids need
    ids = np.asarray(ids)
    one_hot = (ids[..., None] == np.arange(int(ids.max()) + 1)).astype(float)
    return one_hot @ np.asarray(table)


def cos_unit_identity_on_raw_rows(a, b):  # 1 - |a - b|^2 / 2 via norm: no normalising
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    distance = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=-1)  # (n, m)
    return 1.0 - 0.5 * distance**2


def cos_nan_to_one(a, b):  # zero vectors given similarity 1
    return np.nan_to_num(_raw_cosines(a, b), nan=1.0)


def cos_nan_to_minus_one(a, b):  # ... or -1, with np.where
    raw = _raw_cosines(a, b)
    return np.where(np.isnan(raw), -1.0, raw)


class _ScaledEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)


class TokenEmbeddingScaledInPlace(_ScaledEmbedding):  # the table scaled in place, each call
    def forward(self, ids):
        self.embedding.weight.mul_(1.0)
        return self.embedding(ids) * math.sqrt(self.d_model)


class TokenEmbeddingWeightIncremented(_ScaledEmbedding):  # the same family: += on the weight
    def forward(self, ids):
        self.embedding.weight += 0.0
        return self.embedding(ids) * math.sqrt(self.d_model)


class TokenEmbeddingRMSNormed(_ScaledEmbedding):  # a norm after the scaled lookup
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.final_norm = nn.RMSNorm(d_model, eps=1e-6)

    def forward(self, ids):
        return self.final_norm(self.embedding(ids) * math.sqrt(self.d_model))


class TokenEmbeddingPlusScale(_ScaledEmbedding):
    def forward(self, ids):
        return self.embedding(ids) + math.sqrt(self.d_model)


class TokenEmbeddingMinusScale(_ScaledEmbedding):
    def forward(self, ids):
        return self.embedding(ids) - math.sqrt(self.d_model)


class TokenEmbeddingPaddingMasked(_ScaledEmbedding):
    def forward(self, ids):
        out = self.embedding(ids) * math.sqrt(self.d_model)
        return out.masked_fill((ids == 0)[..., None], 0.0)


class TokenEmbeddingPaddingMultiplied(_ScaledEmbedding):  # the same: times (ids != 0)
    def forward(self, ids):
        return self.embedding(ids) * math.sqrt(self.d_model) * (ids != 0)[..., None]


def cos_absolute(a, b):
    return np.abs(_unit_rows(a) @ _unit_rows(b).T)


def cos_sqrt_of_square(a, b):  # the same sign lost
    return np.sqrt((_unit_rows(a) @ _unit_rows(b).T) ** 2)


def cos_l1_sum(a, b):
    def unit(x):
        return x / np.maximum(np.abs(x).sum(-1, keepdims=True), 1e-12)

    return unit(a) @ unit(b).T


def cos_l1_norm(a, b):  # the same: np.linalg.norm with ord=1
    def unit(x):
        return x / np.maximum(np.linalg.norm(x, ord=1, axis=-1, keepdims=True), 1e-12)

    return unit(a) @ unit(b).T


def embed_unit_rows(ids, table):  # the rows normalised, as for cosine similarity
    return _unit_rows(np.asarray(table))[np.asarray(ids)]


def embed_rows_over_sqrt_of_squares(ids, table):  # the same, by hand
    rows = np.asarray(table)[np.asarray(ids)]
    return rows / np.sqrt((rows**2).sum(-1, keepdims=True))


def cos_eps_on_each_length(a, b):
    def unit(x):
        return x / (np.linalg.norm(x, axis=-1, keepdims=True) + 0.1)

    return unit(a) @ unit(b).T


def cos_eps_on_the_product(a, b):
    lengths = np.linalg.norm(a, axis=-1, keepdims=True) * np.linalg.norm(b, axis=-1)[None, :]
    return (a @ b.T) / (lengths + 1.0)


MISTAKES += [
    Mistake(check_embed, embed_unit_rows, r"Your rows are the right ones divided by their lengths"),
    Mistake(
        check_embed,
        embed_rows_over_sqrt_of_squares,
        r"Your rows are the right ones divided by their lengths",
    ),
    Mistake(check_cosine_similarity, cos_eps_on_each_length, r"Each length had 0\.1 added to it"),
    Mistake(
        check_cosine_similarity,
        cos_eps_on_the_product,
        r"The product of the lengths had 1 added to it",
    ),
    Mistake(
        check_TokenEmbedding,
        TokenEmbeddingScaledInPlace,
        r"(?s)leaf Variable.*changed a trainable parameter in place",
    ),
    Mistake(
        check_TokenEmbedding,
        TokenEmbeddingWeightIncremented,
        r"(?s)leaf Variable.*changed a trainable parameter in place",
    ),
    Mistake(check_TokenEmbedding, TokenEmbeddingPlusScale, r"You added sqrt\(d_model\)"),
    Mistake(
        check_TokenEmbedding,
        TokenEmbeddingRMSNormed,
        r"passed through your extra `final_norm` \(RMSNorm\).*remove `final_norm`",
    ),
    Mistake(check_TokenEmbedding, TokenEmbeddingMinusScale, r"You subtracted sqrt\(d_model\)"),
    Mistake(check_TokenEmbedding, TokenEmbeddingPaddingMasked, r"The vectors of id 0 are all zero"),
    Mistake(
        check_TokenEmbedding, TokenEmbeddingPaddingMultiplied, r"The vectors of id 0 are all zero"
    ),
    Mistake(check_cosine_similarity, cos_absolute, r"Your cosines have lost their sign"),
    Mistake(check_cosine_similarity, cos_sqrt_of_square, r"Your cosines have lost their sign"),
    Mistake(check_cosine_similarity, cos_l1_sum, r"sum of the absolute values \(the L1 norm"),
    Mistake(check_cosine_similarity, cos_l1_norm, r"sum of the absolute values \(the L1 norm"),
    Mistake(
        check_cosine_similarity,
        cos_torch_row_by_row,
        r"(?s)must match the size.*You compared row i of `a` with row i of `b` only",
    ),
    Mistake(
        check_cosine_similarity,
        cos_zip_rows,
        r"shape \(3,\)\. You compared the vectors elementwise \(row i with row i only\)",
    ),
    Mistake(
        check_embed,
        embed_one_hot_from_max_id,
        r"(?s)Your one-hot matrix is the largest id \+ 1 = \d+ .*table has vocab_size",
    ),
    Mistake(
        check_cosine_similarity,
        cos_unit_identity_on_raw_rows,
        r"Yours is 1 - \|a - b\|\^2 / 2.*only for vectors of length 1.*not normalised first",
    ),
    Mistake(
        check_cosine_similarity,
        cos_nan_to_one,
        r"right except those that involve a zero vector, which you set to 1 ",
    ),
    Mistake(
        check_cosine_similarity,
        cos_nan_to_minus_one,
        r"right except those that involve a zero vector, which you set to -1 ",
    ),
    Mistake(
        check_one_hot,
        one_hot_torch_without_long,
        r"(?s)LongTensor.*F\.one_hot takes int64 ids only.*\.long\(\)",
    ),
    Mistake(
        check_one_hot,
        one_hot_torch_from_numpy,
        r"(?s)LongTensor.*F\.one_hot takes int64 ids only.*\.long\(\)",
    ),
    Mistake(
        check_cosine_similarity,
        cos_np_dot_untransposed,
        r"(?s)not aligned.*Your product is a @ b \(normalised or not\), b not transposed",
    ),
    Mistake(
        check_cosine_similarity,
        cos_torch_untransposed,
        r"(?s)cannot be multiplied.*Your product is a @ b \(normalised or not\), b not "
        r"transposed",
    ),
    Mistake(
        check_cosine_similarity,
        cos_both_transposed,
        r"Your product is a\.T @ b\.T \(normalised or not\)",
    ),
]

# ---- blind round 12 (r12c): families, each with a member no benchmark case contains


def one_hot_rows_picked_by_ids(ids, vocab_size):
    ids = np.asarray(ids)
    out = np.zeros((*ids.shape, vocab_size))
    out[ids] = 1
    return out


def one_hot_rows_picked_by_ids_int(ids, vocab_size):
    ids = np.asarray(ids)
    out = np.zeros((ids.size, vocab_size), dtype=int)
    out[ids] = 1
    return out


def one_hot_width_from_len(ids, vocab_size):
    return np.eye(len(ids))[ids]


MISTAKES += [
    Mistake(
        check_one_hot,
        one_hot_rows_picked_by_ids,
        r"yours gives what this reading gives: you indexed the first axis of the result",
    ),
    Mistake(
        check_one_hot,
        one_hot_rows_picked_by_ids_int,
        r"yours gives what this reading gives: you indexed the first axis of the result",
    ),
    Mistake(
        check_one_hot,
        one_hot_width_from_len,
        r"yours gives what this reading gives: your one-hot width is the number of ids",
    ),
]


def embed_take_along_axis(ids, table):
    index = np.asarray(ids)[..., None]
    return np.take_along_axis(np.asarray(table), index, axis=0)


def embed_take_along_axis_broadcast(ids, table):
    ids = np.asarray(ids)
    index = np.broadcast_to(ids[..., None], (*ids.shape, table.shape[1]))
    return np.take_along_axis(table, index, axis=0)


class TokenEmbeddingBagMean(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.EmbeddingBag(vocab_size, d_model)

    def forward(self, ids):
        scale = math.sqrt(self.d_model)
        return scale * self.embedding(ids)


class TokenEmbeddingBagSum(TokenEmbeddingBagMean):
    def __init__(self, vocab_size, d_model):
        super().__init__(vocab_size, d_model)
        self.embedding = nn.EmbeddingBag(vocab_size, d_model, mode="sum")


class TokenEmbeddingLastToken(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)

    def forward(self, ids):
        return self.embedding(ids)[:, -1] * math.sqrt(self.d_model)


MISTAKES += [
    Mistake(check_embed, embed_take_along_axis, r"Only np.take_along_axis \(or np.put_along"),
    Mistake(
        check_embed, embed_take_along_axis_broadcast, r"Only np.take_along_axis \(or np.put_along"
    ),
    Mistake(
        check_TokenEmbedding,
        TokenEmbeddingBagMean,
        r"Your vectors are the mean of each sentence's token vectors: nn.EmbeddingBag",
    ),
    Mistake(
        check_TokenEmbedding,
        TokenEmbeddingBagSum,
        r"Your vectors are the sum of each sentence's token vectors: nn.EmbeddingBag with mode",
    ),
    Mistake(
        check_TokenEmbedding, TokenEmbeddingLastToken, r"Your vectors are the last token's vector"
    ),
]


def cosine_b_by_norms_of_a(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)
    b_unit = b / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)
    return a_unit @ b_unit.T


def cosine_a_by_norms_of_b(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    a_unit = a / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    b_unit = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return a_unit @ b_unit.T


MISTAKES += [
    Mistake(
        check_cosine_similarity,
        cosine_b_by_norms_of_a,
        r"You divided the rows of `b` by the row lengths of `a`",
    ),
    Mistake(
        check_cosine_similarity,
        cosine_a_by_norms_of_b,
        r"You divided the rows of `a` by the row lengths of `b`",
    ),
]


class TokenEmbeddingFunctionalDropout(_ScaledEmbedding):  # dropout on the lookup, p = 0.2
    def forward(self, ids):
        looked_up = F.dropout(self.embedding(ids), p=0.2, training=self.training)
        return looked_up * math.sqrt(self.d_model)  # (batch, len, d_model)


class TokenEmbeddingNoiseInTraining(_ScaledEmbedding):  # Gaussian noise while training
    def forward(self, ids):
        out = self.embedding(ids) * math.sqrt(self.d_model)  # (batch, len, d_model)
        return out + 0.01 * torch.randn_like(out) if self.training else out


MISTAKES += [
    # blind round 13: right in eval mode only; a new module is in training mode
    Mistake(
        check_TokenEmbedding,
        TokenEmbeddingFunctionalDropout,
        r"\.train\(\) applied .* entries are 0 and every other one is 1\.25 times the right "
        r"value, 1/\(1 - p\) for p = 0\.2.*dropout inside TokenEmbedding.*has no dropout",
    ),
    Mistake(
        check_TokenEmbedding,
        TokenEmbeddingNoiseInTraining,
        r"^(?!.*dropout inside)(?s:.*)\.train\(\) applied.*a second call with the same ids "
        r"gives another result: something random runs in forward in training mode",
    ),
]


def embed_unpacked_ids(ids, table):  # the ids unpacked into one index per axis
    return np.asarray(table)[(*np.asarray(ids).tolist(),)]


def cos_min_length_guard(a, b):  # one zero row anywhere: the whole result 0
    la = np.linalg.norm(a, axis=1)  # (n,)
    lb = np.linalg.norm(b, axis=1)  # (m,)
    if la.min() == 0 or lb.min() == 0:
        return np.zeros((a.shape[0], b.shape[0]))
    return (a @ b.T) / np.outer(la, lb)  # (n, m)


def cos_b_with_itself(a, b):  # copy-paste slip: b's rows against each other, a unused
    b_unit = b / np.linalg.norm(b, axis=-1, keepdims=True).clip(1e-12)  # (m, d)
    return b_unit @ b_unit.T  # (m, m)


MISTAKES += [
    # blind round 15: the cause named where the inputs tell it apart
    Mistake(check_embed, embed_unpacked_ids, r"read as one index per axis.*tuple"),
    Mistake(
        check_cosine_similarity,
        cos_min_length_guard,
        r"Every entry is 0.*any row of a or b is a zero vector, you return an all-zero matrix",
    ),
    Mistake(
        check_cosine_similarity,
        cos_b_with_itself,
        r"cosines of `b` with itself.*`a` is never used",
    ),
]

# ---- fix round 18 (blind15c): the classes of mistake the blind round's cases showed


def one_hot_of_transposed_ids(ids, vocab_size):  # ids.T: every axis of the ids reversed
    identity = np.eye(vocab_size)  # (vocab_size, vocab_size)
    return identity[np.asarray(ids).T]  # (*ids.shape[::-1], vocab_size)


def embed_vectorized_getitem(ids, table):  # vectorize wants one number back, gets a row
    look_up = np.vectorize(table.__getitem__, otypes=[np.float64])
    return look_up(ids)


def embed_one_number_per_id(ids, table):  # a 1-D array given a whole row per place
    vectors = np.zeros(len(ids))
    for position, token_id in enumerate(ids):
        vectors[position] = table[token_id]
    return vectors


def cos_machine_eps_on_entries(a, b):  # the eps nudges the entries, not the lengths
    tiny = np.finfo(np.float64).eps
    a_nudged, b_nudged = a + tiny, b + tiny  # (n, d), (m, d)
    a_len = np.sqrt((a_nudged**2).sum(axis=1, keepdims=True))  # (n, 1)
    b_len = np.sqrt((b_nudged**2).sum(axis=1, keepdims=True))  # (m, 1)
    return (a_nudged / a_len) @ (b_nudged / b_len).T  # (n, m)


MISTAKES += [
    Mistake(
        check_cosine_similarity,
        cos_machine_eps_on_entries,
        r"a tiny eps was added to every entry of the vectors",
    ),
    Mistake(
        check_embed,
        embed_vectorized_getitem,
        r"(?s)raised ValueError: setting an array element.*np\.vectorize expects your function "
        r"to return one number",
    ),
    Mistake(
        check_embed,
        embed_one_number_per_id,
        r"(?s)setting an array element.*A whole row of the table \(d_model numbers\) was put "
        r"where one number goes",
    ),
    Mistake(
        check_one_hot,
        one_hot_of_transposed_ids,
        r"one-hot array with the ids' axes reversed.*\.T reverses every axis",
    ),
]

CORRECT = [
    Correct(check_one_hot, one_hot_eye),
    Correct(check_one_hot, one_hot_zeros_fancy_indexing),
    Correct(check_one_hot, one_hot_compare),
    Correct(check_one_hot, one_hot_put_along_axis),
    Correct(check_one_hot, one_hot_loops),
    Correct(check_one_hot, one_hot_int, note=r"returns integers .*F\.one_hot\(ids\) @ weight"),
    Correct(check_one_hot, one_hot_float32, note=r"is float32; the reference gives float64"),
    Correct(check_embed, embed_via_one_hot, note=r"is float64; the reference gives float32"),
    Correct(check_embed, embed_take),
    Correct(check_embed, embed_loops),
    Correct(check_embed, embed_einsum),
    Correct(check_embed, embed_torch),
    Correct(check_cosine_similarity, cos_einsum),
    Correct(check_cosine_similarity, cos_loops),
    Correct(check_cosine_similarity, cos_float32_eps),
    Correct(check_cosine_similarity, cos_eps_in_denominator),
    Correct(check_cosine_similarity, cos_sklearn_style),
    Correct(check_cosine_similarity, cos_torch_normalize),
    Correct(check_cosine_similarity, cos_nan_to_num),
    Correct(
        check_cosine_similarity, cos_float32_result, note=r"is float32; the reference gives float64"
    ),
    Correct(check_TokenEmbedding, TEPaper),
    Correct(check_TokenEmbedding, TEFromPretrainedTrainable),
    Correct(check_TokenEmbedding, TEAnnotated, note=r"keeps its table as `lut\.weight`"),
    Correct(check_TokenEmbedding, TEScaleAttribute),
    Correct(check_TokenEmbedding, TEScaleRegisteredBuffer),
    Correct(check_TokenEmbedding, TEFunctional),
    Correct(check_TokenEmbedding, TEOneHotMatmul),
    Correct(check_TokenEmbedding, TEPaddingIdx),
    Correct(check_TokenEmbedding, TEWeightIndexing),
    Correct(check_TokenEmbedding, TETableNamedTable),
]


# ------------------------------------------ round 19 (fix19c): mistakes of blind round 16
class TokenEmbeddingScaleWhileTraining(_ScaledEmbedding):  # scale as a training-time trick
    def forward(self, ids):
        scale = math.sqrt(self.d_model) if self.training else 1.0
        return self.embedding(ids) * scale


def one_hot_smoothed_like_pytorch(ids, vocab_size, epsilon=0.1):  # a loss's soft target
    exact = np.eye(vocab_size)[np.asarray(ids)]
    return (1 - epsilon) * exact + epsilon / vocab_size


def one_hot_filled_background(ids, vocab_size):  # started from a filled array, not zeros
    ids = np.asarray(ids)
    out = np.full((*ids.shape, vocab_size), 0.5)
    np.put_along_axis(out, ids[..., None], 1.0, axis=-1)
    return out


def one_hot_flat_view(ids, vocab_size):  # ravel() is a view: the ids index it flat
    ids = np.asarray(ids)
    out = np.zeros((*ids.shape, vocab_size))
    out.ravel()[ids] = 1.0
    return out


def cos_as_unit_score(a, b):  # a 'score' habit: the cosine moved into [0, 1]
    unit_a = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)
    unit_b = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)
    return 0.5 * (unit_a @ unit_b.T) + 0.5


def cos_min_max_scaled(a, b):  # min-max normalised over the whole matrix
    unit_a = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)
    unit_b = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)
    cosines = unit_a @ unit_b.T
    return (cosines - cosines.min()) / (cosines.max() - cosines.min())


MISTAKES += [
    Mistake(
        check_cosine_similarity,
        cos_as_unit_score,
        r"^(?!.*min-max).*Yours is the cosine rescaled to \[0, 1\], \(cosine \+ 1\) / 2",
    ),
    Mistake(
        check_cosine_similarity,
        cos_min_max_scaled,
        r"^(?!.*\(cosine \+ 1\) / 2).*rescaled to \[0, 1\] over the whole matrix, \(cosine "
        r"- min\) / \(max - min\)",
    ),
    Mistake(
        check_one_hot,
        one_hot_smoothed_like_pytorch,
        r"values other than 0 and 1.*Yours is a smoothed target, 0\.9\d at the id and "
        r"0\.0\d at every other entry.*label smoothing",
    ),
    Mistake(
        check_one_hot,
        one_hot_filled_background,
        r"values other than 0 and 1.*Yours is 1 at the id and 0\.5 at every other entry: "
        r"the vectors did not start from zeros",
    ),
    Mistake(
        check_one_hot,
        one_hot_flat_view,
        r"hold 0 or \d ones: your 1s sit at the positions [\d, ]+ of the whole array "
        r"flattened.*read the ids as flat indices",
    ),
    Mistake(
        check_TokenEmbedding,
        TokenEmbeddingScaleWhileTraining,
        r"\.eval\(\) applied to ids of shape \(\d+, \d+\) returns the plain lookup, while in "
        r"training mode.*the scale only while self\.training",
    ),
]


# ------------------------------------------------ f22 (g1): classes the round-19 cases showed
def embed_mapped_over_ids(ids, table):  # map(...) over the ids: a 0-d array has no items
    return np.array(list(map(lambda i: np.asarray(table)[i], np.asarray(ids))))


def embed_into_zeros_like_ids(ids, table):  # np.zeros_like(ids) keeps the ids' int dtype
    ids, table = np.asarray(ids), np.asarray(table)
    out = np.zeros_like(ids, shape=ids.shape + table.shape[1:])
    out[...] = table[ids]
    return out


def _unit_rows(x):
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def cos_ravelled_outer(a, b):  # np.outer of the unit rows: every entry times every entry
    return np.outer(_unit_rows(a).ravel(), _unit_rows(b).ravel())


def cos_vstacked(a, b):  # one matrix of both: every stacked row against every other
    rows = _unit_rows(np.vstack([a, b]))
    return rows @ rows.T


MISTAKES += [
    Mistake(
        check_cosine_similarity,
        cos_ravelled_outer,
        r"should have shape \(\d+, \d+\), but it has shape \(\d+, \d+\)\. Yours is every entry "
        r"of a's unit rows times every entry of b's.*np\.outer flattens",
    ),
    Mistake(
        check_cosine_similarity,
        cos_vstacked,
        r"Yours is the cosine of every row of a and b stacked into one matrix with every other",
    ),
    Mistake(
        check_embed,
        embed_into_zeros_like_ids,
        r"should hold floating-point numbers, but its dtype is int64\. Your values are the "
        r"right ones truncated toward zero",
    ),
    Mistake(
        check_embed,
        embed_mapped_over_ids,
        r"embed\(np\.array\(\d+\) \(shape \(\)\).*iteration over a 0-d array[\s\S]*A 0-d array, "
        r"of shape \(\), holds a single value and has no items: your code loops over it",
    ),
]

# ------------------------------------------------- round 27 (f27g1): classes of blind round 24


def one_hot_cuts_result_axis_of_one(ids, vocab_size):
    """The result's axis of the ids' last size-1 axis cut after encoding."""
    ids = np.asarray(ids)
    out = np.eye(vocab_size)[ids]
    return out[..., 0, :] if ids.ndim > 1 and ids.shape[-1] == 1 else out


def cosine_lengths_broadcast_wrong_way(a, b):
    """b's lengths down the rows and a's across: entry (i, j) over |b[i]| |a[j]|."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    la, lb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    return (a @ b.T) / (lb[:, None] * la[None, :] + 1e-12)


def cosine_lengths_of_a_twice(a, b):
    """a's lengths on both sides of the denominator: b's never used."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    la = np.linalg.norm(a, axis=1)
    return (a @ b.T) / np.outer(la, la)


MISTAKES += [
    Mistake(
        check_cosine_similarity,
        cosine_lengths_broadcast_wrong_way,
        r"divides entry \(i, j\) of a @ b\.T by \|b\[i\]\| \|a\[j\]\|: the outer product of "
        r"the lengths in the wrong order",
    ),
    Mistake(
        check_cosine_similarity,
        cosine_lengths_of_a_twice,
        r"divides entry \(i, j\) of a @ b\.T by \|a\[i\]\| \|a\[j\]\|: the lengths of `a` "
        r"on both sides",
    ),
]


def test_one_hot_names_the_last_axis_of_one_dropped_not_a_squeeze():
    """The hidden ids have no last axis of size 1: the visible run shows this mistake."""
    with pytest.raises(CheckFailure) as failure:
        check_one_hot(one_hot_cuts_result_axis_of_one)
    message = str(failure.value)
    assert ".squeeze() the result" not in message
    assert re.search(
        r"Only a last axis of size 1 is dropped[\s\S]*ids of shape \(1, 3\) keep their first "
        r"axis",
        message,
    ), message


# ------------------------------------------------------------------- round 34 (f34g0106)
class EmbeddingInHalfPrecision(ref.TokenEmbedding):  # .half() on the way out
    def forward(self, ids):
        return super().forward(ids).half()


def one_hot_one_column_short(ids, vocab_size):  # np.eye(vocab_size - 1)
    return np.eye(vocab_size - 1)[np.asarray(ids)]


MISTAKES += [
    # a width that is both max(ids) + 1 and vocab_size - 1 here: a probe tells them apart
    Mistake(
        check_one_hot,
        one_hot_one_column_short,
        r"^(?![\s\S]*guessed from the ids)[\s\S]*The last axis has length vocab_size - 1 = "
        r"\d+, one column short",
    ),
    # the dtype message names the dtype it got, not float64 always
    Mistake(
        check_TokenEmbedding,
        EmbeddingInHalfPrecision,
        r"^(?![\s\S]*a float64 output)[\s\S]*should have dtype torch\.float32, but it has "
        r"dtype torch\.float16[\s\S]*a float16 output would make the next nn\.Linear fail",
    ),
]


# ---------------------------------------------- cosine: the denominator read, a mirrored fill
def cos_b_length_squared_below(a, b):  # the denominator |b[j]| |b[j]|: b's length twice
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    lengths_b = np.sqrt((b * b).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (a @ b.T) / (lengths_b * lengths_b)[None, :]
    return np.nan_to_num(out)


def cos_a_squared_b_own_length(a, b):  # a / |a|^2, b / |b|: three lengths, not two
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    a_scaled = a / np.maximum((a * a).sum(-1, keepdims=True), 1e-24)
    return a_scaled @ (b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)).T


def cos_mirrored_assignment(a, b):  # out[i, j] = out[j, i] = value: a self-similarity fill
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    result = np.zeros((a.shape[0], b.shape[0]))
    for i, row in enumerate(a):
        for j, col in enumerate(b):
            size = np.linalg.norm(row) * np.linalg.norm(col)
            result[i, j] = result[j, i] = row @ col / size if size else 0.0
    return result


MISTAKES += [
    # the family of blind29a-cos-a-norm-twice: two lengths in the denominator, one of them
    # the wrong one, read from the ratio of the learner's values to the cosines
    Mistake(
        check_cosine_similarity,
        cos_b_length_squared_below,
        r"divided by \|b\[j\]\| \|b\[j\]\| where \|a\[i\]\| \|b\[j\]\| belongs: b's length "
        r"twice, a's lengths never used",
    ),
    # a sibling the reading must leave to its own message: three lengths, not two
    Mistake(
        check_cosine_similarity,
        cos_a_squared_b_own_length,
        r"^(?![\s\S]*belongs: )[\s\S]*`a` was divided by its squared lengths instead of its "
        r"lengths \(while `b` was divided by its own length\)",
    ),
    # the family of blind29a-cos-symmetric-fill: each value written at its mirror too
    Mistake(
        check_cosine_similarity,
        cos_mirrored_assignment,
        r"IndexError[\s\S]*filled as if it were symmetric[\s\S]*the later write winning"
        r"[\s\S]*the mirror \(j, i\) falls outside the \(n, m\) table",
    ),
]


test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# ------------------------------------------------------------------ oracles
def test_one_hot_matches_torch():
    rng = np.random.default_rng(7)
    ids = rng.integers(0, 11, size=(3, 4, 5))
    expected = F.one_hot(torch.from_numpy(ids), 11).numpy()
    got = ref.one_hot(ids, 11)
    assert got.dtype == np.float64 and got.shape == (3, 4, 5, 11)
    np.testing.assert_array_equal(got, expected)


def test_booleans_add_up_as_logic():
    """The reason the check gives for rejecting boolean one-hot vectors."""
    same = np.array([True, False]) + np.array([True, False])
    assert same.dtype == np.bool_ and same.tolist() == [True, False]
    counts = ref.one_hot(np.array([1, 1]), 2).sum(axis=0)
    assert counts.tolist() == [0.0, 2.0]


def test_embed_matches_torch_and_the_one_hot_identity():
    rng = np.random.default_rng(8)
    table = rng.normal(size=(17, 6))
    ids = rng.integers(0, 17, size=(2, 9))
    expected = F.embedding(torch.from_numpy(ids), torch.from_numpy(table)).numpy()
    np.testing.assert_array_equal(ref.embed(ids, table), expected)
    # e_i E = E_i: the lookup is the one-hot matrix product (section 4 of the lesson)
    np.testing.assert_allclose(ref.one_hot(ids, 17) @ table, expected, rtol=0, atol=0)


def test_embedding_is_a_bias_free_linear_layer_with_the_transposed_table():
    """Question 1's answer, checked with PyTorch's own layers."""
    torch.manual_seed(0)
    vocab_size, d_model = 9, 4
    lookup = nn.Embedding(vocab_size, d_model)
    linear = nn.Linear(vocab_size, d_model, bias=False)
    with torch.no_grad():
        linear.weight.copy_(lookup.weight.T)
    ids = torch.tensor([[3, 0, 8], [1, 1, 2]])
    one_hot = F.one_hot(ids, vocab_size).float()
    torch.testing.assert_close(linear(one_hot), lookup(ids), rtol=0, atol=1e-6)


def test_gradient_reaches_exactly_the_rows_that_occur():
    """Question 2's answer: the batch [[3, 0, 5], [1, 1, 2]] and a 10-row table."""
    lookup = nn.Embedding(10, 4)
    lookup(torch.tensor([[3, 0, 5], [1, 1, 2]])).sum().backward()
    rows = lookup.weight.grad.abs().sum(dim=1).nonzero().flatten().tolist()
    assert rows == [0, 1, 2, 3, 5]
    assert len(rows) == QUIZ_GRADIENT_ROWS.answer
    torch.testing.assert_close(lookup.weight.grad[1], torch.full((4,), 2.0))


def test_cosine_matches_torch_and_hand_values():
    rng = np.random.default_rng(9)
    a, b = rng.normal(size=(5, 7)), rng.normal(size=(3, 7)) * 10
    expected = F.cosine_similarity(torch.from_numpy(a)[:, None], torch.from_numpy(b)[None], dim=-1)
    np.testing.assert_allclose(
        ref.cosine_similarity(a, b), expected.numpy(), rtol=1e-12, atol=1e-12
    )
    # worked example of the lesson: 45 degrees and 135 degrees, orthogonal one-hots
    got = ref.cosine_similarity(
        np.array([[1.0, 0.0]]), np.array([[1.0, 1.0], [-1.0, -1.0], [0.0, 3.0]])
    )
    np.testing.assert_allclose(
        got, [[math.cos(math.pi / 4), math.cos(3 * math.pi / 4), 0.0]], atol=1e-15
    )
    # zero vectors: 0 with everything, like torch (which clamps the norms with eps)
    zero = np.zeros((1, 7))
    np.testing.assert_array_equal(ref.cosine_similarity(zero, b), np.zeros((1, 3)))
    torch_zero = F.cosine_similarity(
        torch.zeros(1, 1, 7, dtype=torch.float64), torch.from_numpy(b)[None], dim=-1
    )
    np.testing.assert_array_equal(torch_zero.numpy(), np.zeros((1, 3)))


def test_nan_spreads_the_way_the_zero_vector_message_says():
    row = np.array([0.2, np.nan, 0.9])
    assert np.argmax(row) == 1  # argmax picks the NaN
    assert np.isnan(row.mean())


@pytest.mark.parametrize(("vocab_size", "d_model"), [(10, 4), (37, 16), (5, 512)])
def test_token_embedding_matches_nn_embedding_times_sqrt_d_model(vocab_size, d_model):
    """Paper, section 3.4: "In the embedding layers, we multiply those weights by sqrt(d_model)"."""
    generator = torch.Generator().manual_seed(vocab_size)
    oracle = nn.Embedding(vocab_size, d_model)
    module = ref.TokenEmbedding(vocab_size, d_model)
    module.load_state_dict({"embedding.weight": oracle.weight.detach().clone()})
    assert list(module.state_dict()) == ["embedding.weight"]
    ids = torch.randint(0, vocab_size, (3, 8), generator=generator)
    got = module(ids)
    assert got.shape == (3, 8, d_model) and got.dtype == torch.float32
    torch.testing.assert_close(got, oracle(ids) * math.sqrt(d_model), rtol=0, atol=0)
    got.sum().backward()  # only the rows that occur receive a gradient
    used = torch.zeros(vocab_size, dtype=torch.bool)
    used[ids.unique()] = True
    grad_rows = module.embedding.weight.grad.abs().sum(dim=1) > 0
    assert torch.equal(grad_rows, used)


def test_word_vectors_are_deterministic_and_cluster_by_group():
    from transformer_course.data import WORD_GROUPS

    vocab, table = word_vectors()
    vocab2, table2 = word_vectors()
    assert vocab == vocab2 and np.array_equal(table, table2)
    assert table.shape == (len(vocab), 8)
    assert list(vocab)[:4] == ["<pad>", "<unk>", "<bos>", "<eos>"]
    assert not table[:4].any()  # special tokens never occur in the corpus
    sims = ref.cosine_similarity(table, table)
    for group, members in WORD_GROUPS.items():
        others = [w for g, ws in WORD_GROUPS.items() if g != group for w in ws]
        for word in members:
            within = min(sims[vocab[word], vocab[m]] for m in members if m != word)
            across = max(sims[vocab[word], vocab[o]] for o in others)
            assert within > across, (group, word, within, across)
    points = project_2d(table[[vocab[w] for ws in WORD_GROUPS.values() for w in ws]])
    assert points.shape == (24, 2)
