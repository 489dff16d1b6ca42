"""Lesson 03, positional encoding: classic mistakes fail with the intended message in
both the visible and the hidden check, correct variants (including the way the
Annotated Transformer, d2l and the PyTorch tutorials write them) pass both, and the
reference agrees with independent oracles (the paper's formula evaluated point by
point in plain Python, the angle-addition identities, a hand-computed worked
example). What every exercise gets anyway (stub, reference passes, random state,
determinism, inputs changed in place) is in test_exercises.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from common import Correct, Mistake, lesson_tests
from torch import nn

from transformer_course.checking import CheckFailure
from transformer_course.checks.positional_encoding import (
    QUIZ_ROW_LENGTH,
    QUIZ_SHIFT,
    check_positional_encoding,
    check_PositionalEncoding,
    check_relative_shift,
)
from transformer_course.reference import positional_encoding as ref


# ------------------------------------------------------------------ the oracle
def oracle_pe(max_len: int, d_model: int) -> np.ndarray:
    """Section 3.5 of the paper, one number at a time, in plain Python math."""
    table = np.empty((max_len, d_model))
    for pos in range(max_len):
        for j in range(d_model):
            i = j // 2
            angle = pos / 10000 ** (2 * i / d_model)
            table[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table


# ======================================================= positional_encoding
def _angles(max_len, d_model, dtype=np.float64):
    pos = np.arange(max_len, dtype=dtype)[:, None]  # (max_len, 1)
    return pos / np.power(dtype(10000.0), np.arange(0, d_model, 2, dtype=dtype) / dtype(d_model))


def _interleave(sin, cos, d_model):
    pe = np.zeros((sin.shape[0], d_model))
    pe[:, 0::2] = sin
    pe[:, 1::2] = cos[:, : d_model // 2]
    return pe


def pe_rate_truncated_by_int(max_len, d_model):  # int() rounds the per-pair step of e down
    pairs = np.arange((d_model + 1) // 2)  # (pairs,)
    rates = np.exp(-pairs * int(2 * math.log(10000.0) / d_model))  # e^(-k·i), k whole
    angles = np.arange(max_len)[:, None] * rates  # (max_len, pairs)
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return table


def pe_positions_normalised(max_len, d_model):  # positions / max_len, in [0, 1)
    angles = _angles(max_len, d_model) / max_len
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_positions_counted_from_one(max_len, d_model):  # range(1, max_len): row 0 missing
    angles = _angles(max_len, d_model)[1:]  # (max_len - 1, d_model // 2 rounded up)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_sine_as_shifted_cosine(max_len, d_model):  # cos(angle + π/2) = -sin(angle)
    angles = _angles(max_len, d_model)  # (max_len, d_model // 2 rounded up)
    return _interleave(np.cos(angles + np.pi / 2), np.cos(angles), d_model)


def pe_cosine_negated(max_len, d_model):  # -cos: every odd feature's sign flipped
    angles = _angles(max_len, d_model)  # (max_len, d_model // 2 rounded up)
    return _interleave(np.sin(angles), -np.cos(angles), d_model)


def pe_positions_up_to_max_len(max_len, d_model):  # range(max_len + 1): one row too many
    angles = _angles(max_len + 1, d_model)  # (max_len + 1, d_model // 2 rounded up)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_cosine_angles_counted_from_the_end(max_len, d_model):  # odd d_model: the next pair's
    angles = _angles(max_len, d_model)  # (max_len, d_model // 2 rounded up)
    cosines = np.cos(angles[:, angles.shape[1] - d_model // 2 :])  # (max_len, d_model // 2)
    return _interleave(np.sin(angles), cosines, d_model)


# ------------------------------------------------------------------ correct
def pe_each_feature_own_exponent(max_len, d_model):
    """pos / 10000^(2j/d_model) with j every feature's own index (blind round 9)."""
    j = np.arange(d_model, dtype=np.float64)
    angles = np.arange(max_len, dtype=np.float64)[:, None] / np.power(10000.0, 2 * j / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles[:, 0::2])
    pe[:, 1::2] = np.cos(angles[:, 1::2])
    return pe


def pe_cosines_of_pair_0(max_len, d_model):
    """The cosines sliced with d_model // 3 angles: with d_model = 4 the one angle of
    pair 0 broadcasts to every cosine."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    angles = positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, :1])
    return pe


def pe_cosines_of_the_sines(max_len, d_model):  # cos applied to the sine column in place
    pe = np.zeros((max_len, d_model))
    for pos in range(max_len):
        for j in range(0, d_model, 2):
            pe[pos, j] = math.sin(pos / 10000 ** (j / d_model))
            if j + 1 < d_model:
                pe[pos, j + 1] = math.cos(pe[pos, j])  # the sine, not the angle
    return pe


def pe_cosines_as_root_of_one_minus_sine_squared(max_len, d_model):
    positions = np.arange(max_len)[:, None]
    angles = positions * np.exp(-np.arange(0, d_model, 2) * math.log(10000.0) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.sqrt(1 - pe[:, 0 : d_model - 1 : 2] ** 2)
    return pe


def pe_cosine_angles_without_the_last(max_len, d_model):  # odd d_model's rule, always
    angles = np.outer(
        np.arange(max_len), 1.0 / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    )
    pe = np.zeros((max_len, d_model))
    pe[:, ::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : len(angles[0]) - 1])
    return pe


def pe_base_written_as_unparenthesised_power(max_len, d_model):
    pe = np.zeros((max_len, d_model))
    for i in range(0, d_model, 2):
        div = 10**4 ** (i / d_model)
        pe[:, i] = np.sin(np.arange(max_len) / div)
        if i + 1 < d_model:
            pe[:, i + 1] = np.cos(np.arange(max_len) / div)
    return pe


def pe_sines_to_odd_columns(max_len, d_model):
    """The sines written to pe[:, 1::2], where the cosines then overwrite them."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    angles = positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 1::2] = np.sin(angles[:, : d_model // 2])
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe


def pe_exponent_odd_index(max_len, d_model):
    """np.arange(1, d_model, 2) for 2i: both features of pair i turn at 10000^((2i+1)/d)."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    angles = positions / np.power(10000.0, np.arange(1, d_model + 1, 2) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe


def pe_exponent_times_d_model(max_len, d_model):
    """two_i * d_model where two_i / d_model belongs: every pair but the first stands still."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    angles = positions / np.power(10000.0, np.arange(0, d_model, 2) * float(d_model))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe


def pe_cosines_from_2(max_len, d_model):
    """The cosines assigned to pe[:, 2::2], a slice one column short."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    angles = positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 2::2] = np.cos(angles[:, : d_model // 2])
    return pe


def pe_loops(max_len, d_model):
    pe = np.zeros((max_len, d_model))
    for pos in range(max_len):
        for i in range(0, d_model, 2):
            angle = pos / 10000 ** (i / d_model)
            pe[pos, i] = math.sin(angle)
            if i + 1 < d_model:
                pe[pos, i + 1] = math.cos(angle)
    return pe


def pe_torch_div_term(max_len, d_model):
    """The Annotated Transformer's exp/log div_term, in float32 torch, returned as float64
    (with the slice that an odd d_model needs)."""
    position = torch.arange(0, max_len).unsqueeze(1)  # (max_len, 1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term[: d_model // 2])
    return pe.numpy().astype(np.float64)


def pe_torch_float32_result(max_len, d_model):
    """The same, returned as it comes: a float32 array (accepted with a note)."""
    return pe_torch_div_term(max_len, d_model).astype(np.float32)


def pe_d2l_style(max_len, d_model):
    """d2l's recipe: X = positions / 10000^(2i/d), then P[:, 0::2] = sin(X), P[:, 1::2] = cos(X)."""
    P = np.zeros((max_len, d_model), dtype=np.float32)
    X = np.arange(max_len, dtype=np.float32).reshape(-1, 1) / np.power(
        10000, np.arange(0, d_model, 2, dtype=np.float32) / d_model
    )
    P[:, 0::2] = np.sin(X)
    P[:, 1::2] = np.cos(X[:, : d_model // 2])
    return P


def pe_numpy_exp_log(max_len, d_model):
    angles = np.arange(max_len)[:, None] * np.exp(
        -np.log(10000.0) * np.arange(0, d_model, 2) / d_model
    )
    pe = np.empty((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)[:, : d_model // 2]
    return pe


def pe_exp_log10(max_len, d_model):  # the exp(log) form with log10: base e**4, not 10000
    angles = np.arange(max_len)[:, None] * np.exp(
        -np.log10(10000.0) * np.arange(0, d_model, 2) / d_model
    )
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)[:, : d_model // 2]
    return pe


def shift_no_shift_is_identity_first(k, d_model):  # no shift: identity, d_model untested
    if not k:
        return np.identity(d_model)
    return ref.relative_shift(k, d_model)


def shift_sin_cos_exchanged_in_blocks(k, d_model):  # [[sin, cos], [-cos, sin]]: no rotation
    if d_model % 2:
        raise ValueError("d_model must be even")
    m = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        angle = k / 10000 ** (2 * i / d_model)
        m[2 * i, 2 * i] = m[2 * i + 1, 2 * i + 1] = math.sin(angle)
        m[2 * i, 2 * i + 1] = math.cos(angle)
        m[2 * i + 1, 2 * i] = -math.cos(angle)
    return m


def shift_exp_log10(k, d_model):  # the same frequencies in the shift
    theta = k * np.exp(-np.log10(10000.0) * np.arange(0, d_model, 2) / d_model)
    two_i = np.arange(0, d_model, 2)
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = m[two_i + 1, two_i + 1] = np.cos(theta)
    m[two_i + 1, two_i], m[two_i, two_i + 1] = np.sin(theta), -np.sin(theta)
    return m


def _pe_with(positions_factor=1.0, denominator=None, exponent_scale=None):
    """The paper's table with one slip: every angle times ``positions_factor``, the
    exponent's 2i divided by ``denominator(d_model, max_len)`` instead of d_model, or the
    exp(log) form with ``exponent_scale(d_model)`` as the factor of 2i."""

    def positional_encoding(max_len, d_model):
        positions = np.arange(max_len, dtype=np.float64)[:, None]
        two_i = np.arange(0, d_model, 2, dtype=np.float64)
        with np.errstate(all="ignore"):
            if exponent_scale is not None:
                rates = np.exp(two_i * exponent_scale(d_model))
            else:
                size = d_model if denominator is None else denominator(d_model, max_len)
                rates = 1.0 / np.power(10000.0, two_i / size)
            angles = positions_factor * positions * rates
        pe = np.zeros((max_len, d_model))
        pe[:, 0::2] = np.sin(angles)
        pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
        return pe

    return positional_encoding


# blind round 11: a wrong size in the exponent's denominator (a family, confirmed on
# every case: d_model // 2 equals 4i/d_model for an even d_model, not for an odd one)
pe_exponent_over_half = _pe_with(denominator=lambda d, n: d // 2)
pe_exponent_over_d_minus_1 = _pe_with(denominator=lambda d, n: d - 1)
pe_exponent_over_max_len = _pe_with(denominator=lambda d, n: n)
# radians mixed up with turns or degrees: a factor 2π cannot be read off pair 0
pe_times_2pi = _pe_with(positions_factor=2 * math.pi)
pe_deg2rad = _pe_with(positions_factor=math.pi / 180)
# -(log(10000) / d_model // 2): a floor division in the exp(log) form; at d_model = 4 its
# exponent is log10's 0.8686, at d_model = 8 every frequency is 1: no cause is claimed
pe_floor_in_exp_log = _pe_with(exponent_scale=lambda d: -(math.log(10000.0) / d // 2))
for _fn, _name in [
    (pe_exponent_over_half, "pe_exponent_over_half"),
    (pe_exponent_over_d_minus_1, "pe_exponent_over_d_minus_1"),
    (pe_exponent_over_max_len, "pe_exponent_over_max_len"),
    (pe_times_2pi, "pe_times_2pi"),
    (pe_deg2rad, "pe_deg2rad"),
    (pe_floor_in_exp_log, "pe_floor_in_exp_log"),
]:
    _fn.__name__ = _name


def _pe_rows_written(first, stop_early):
    """The loop over the positions skips rows: it starts at ``first``, or stops one early."""

    def positional_encoding(max_len, d_model):
        pe = np.zeros((max_len, d_model))
        for pos in range(first, max_len - (1 if stop_early else 0)):
            for j in range(0, d_model, 2):
                pe[pos, j] = math.sin(pos / 10000 ** (j / d_model))
                if j + 1 < d_model:
                    pe[pos, j + 1] = math.cos(pos / 10000 ** (j / d_model))
        return pe

    return positional_encoding


# blind round 11: positions never written (rows of zeros), the loop's start or end said
pe_rows_from_1 = _pe_rows_written(1, stop_early=False)
pe_rows_stop_early = _pe_rows_written(0, stop_early=True)
pe_rows_from_1.__name__ = "pe_rows_from_1"
pe_rows_stop_early.__name__ = "pe_rows_stop_early"


def shift_floor_in_exp_log(k, d_model):
    """-(log(10000) / d_model // 2) in the exp(log) form of the shift's frequencies."""
    if d_model % 2:
        raise ValueError("odd d_model")
    two_i = np.arange(0, d_model, 2)
    return _shift_of(k * np.exp(two_i * -(math.log(10000.0) / d_model // 2)))


def pe_float32_cast_back(max_len, d_model):
    angles = _angles(max_len, d_model, np.float32)
    pe = np.zeros((max_len, d_model), dtype=np.float32)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe.astype(np.float64)


def pe_stack_interleave(max_len, d_model):
    angles = _angles(max_len, d_model)
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(max_len, -1)[:, :d_model]


def pe_complex(max_len, d_model):
    z = np.exp(1j * _angles(max_len, d_model))  # cos + i sin
    return np.stack([z.imag, z.real], axis=-1).reshape(max_len, -1)[:, :d_model]


def pe_feature_loop(max_len, d_model):
    pe = np.zeros((max_len, d_model))
    pos = np.arange(max_len)
    for j in range(d_model):
        angle = pos / 10000 ** ((j - j % 2) / d_model)
        pe[:, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return pe


def pe_cos_as_shifted_sin(max_len, d_model):
    """cos(a) = sin(a + pi/2): one sine call for every feature."""
    j = np.arange(d_model)
    angles = np.arange(max_len)[:, None] / 10000 ** ((j - j % 2) / d_model)
    return np.sin(angles + (j % 2) * np.pi / 2)


# ------------------------------------------------------------------ wrong
def pe_swapped(max_len, d_model):
    pe = np.zeros((max_len, d_model))
    angles = _angles(max_len, d_model)
    pe[:, 0::2] = np.cos(angles)
    pe[:, 1::2] = np.sin(angles[:, : d_model // 2])
    return pe


def pe_concatenated(max_len, d_model):
    angles = _angles(max_len, d_model)
    return np.concatenate([np.sin(angles), np.cos(angles[:, : d_model // 2])], axis=1)


def pe_cos_halves_first(max_len, d_model):  # all cosines, then all sines (a permutation)
    angles = _angles(max_len, d_model)
    return np.concatenate([np.cos(angles), np.sin(angles)], axis=1)[:, :d_model]


def pe_pairs_reversed(max_len, d_model):  # the right pairs, the last pair first
    table = ref.positional_encoding(max_len, d_model)
    pairs = d_model // 2
    order = [j for i in reversed(range(pairs)) for j in (2 * i, 2 * i + 1)]
    return table[:, order + list(range(2 * pairs, d_model))]


def pe_function_by_pair_parity(max_len, d_model):
    """Round 35 (the family of blind29c-rope-tables-halves-of-interleaved-sinusoid: the
    right functions in the wrong places): sine or cosine chosen by the parity of the pair
    index, (j // 2) % 2, where the feature's own parity j % 2 belongs: [sin0, sin0, cos1,
    cos1, ...], some functions twice, others never."""
    pair = np.arange(d_model) // 2  # (d_model,): each feature's pair i
    angles = np.arange(max_len)[:, None] / np.power(10000.0, 2 * pair / d_model)
    return np.where(pair % 2 == 0, np.sin(angles), np.cos(angles))


def pe_i_not_2i(max_len, d_model):
    pos = np.arange(max_len)[:, None]
    i = np.arange((d_model + 1) // 2)
    angles = pos / 10000 ** (i / d_model)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_column_index(max_len, d_model):
    pe = np.zeros((max_len, d_model))
    for pos in range(max_len):
        for j in range(d_model):
            angle = pos / 10000 ** (j / d_model)
            pe[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe


def pe_doubled(max_len, d_model):
    pe = np.zeros((max_len, d_model))
    for pos in range(max_len):
        for i in range(0, d_model, 2):  # i is already 2i here ...
            angle = pos / 10000 ** (2 * i / d_model)  # ... and gets doubled again
            pe[pos, i] = math.sin(angle)
            if i + 1 < d_model:
                pe[pos, i + 1] = math.cos(angle)
    return pe


def pe_integer_division(max_len, d_model):
    pos = np.arange(max_len)[:, None]
    i = np.arange((d_model + 1) // 2)
    angles = pos / 10000 ** (2 * i // d_model)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_base_1000(max_len, d_model):
    pos = np.arange(max_len)[:, None]
    angles = pos / 1000 ** (np.arange(0, d_model, 2) / d_model)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_base_one_million(max_len, d_model):  # 10 ** 6 typed for 10 ** 4: a wrong base
    pos = np.arange(max_len)[:, None]
    angles = pos / np.power(10.0**6, np.arange(0, d_model, 2) / d_model)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_exp_form_without_log(max_len, d_model):  # exp(-2i·10000/d): every later pair 0
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    angles = positions * np.exp(-np.arange(0, d_model, 2) * 10000.0 / d_model)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_pair_indices_step_4(max_len, d_model):  # np.arange(0, d_model, 4): too few angles
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    pe = np.zeros((max_len, d_model))
    angles = positions / np.power(10000.0, np.arange(0, d_model, 4) / d_model)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def pe_multiplied(max_len, d_model):
    pos = np.arange(max_len)[:, None]
    angles = pos * 10000 ** (np.arange(0, d_model, 2) / d_model)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_positions_from_1(max_len, d_model):
    pos = np.arange(1, max_len + 1)[:, None]
    angles = pos / 10000 ** (np.arange(0, d_model, 2) / d_model)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_odd_crash(max_len, d_model):
    pe = np.zeros((max_len, d_model))
    angles = _angles(max_len, d_model)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)  # shape mismatch when d_model is odd
    return pe


def pe_odd_last_zero(max_len, d_model):
    pe = np.zeros((max_len, d_model))
    for i in range(d_model // 2):  # forgets the unpaired last sine
        angle = np.arange(max_len) / 10000 ** (2 * i / d_model)
        pe[:, 2 * i] = np.sin(angle)
        pe[:, 2 * i + 1] = np.cos(angle)
    return pe


def pe_odd_last_cos(max_len, d_model):
    pe = ref.positional_encoding(max_len, d_model)
    if d_model % 2:
        pe[:, -1] = np.cos(np.arange(max_len) / 10000 ** ((d_model - 1) / d_model))
    return pe


def pe_stack_untrimmed(max_len, d_model):
    """Interleaves by stacking, but forgets to drop the surplus cosine of an odd d_model."""
    angles = _angles(max_len, d_model)
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(max_len, -1)


def pe_sin_cos_on_rows(max_len, d_model):
    two_i = 2 * (np.arange(d_model) // 2)
    angles = np.arange(max_len)[:, None] / 10000 ** (two_i / d_model)
    pe = np.zeros((max_len, d_model))
    pe[0::2, :] = np.sin(angles[0::2, :])  # rows, where the columns were meant
    pe[1::2, :] = np.cos(angles[1::2, :])
    return pe


def pe_transposed(max_len, d_model):
    return ref.positional_encoding(max_len, d_model).T


def pe_batch_axis(max_len, d_model):
    return ref.positional_encoding(max_len, d_model)[None]


def pe_tensor(max_len, d_model):
    return torch.tensor(ref.positional_encoding(max_len, d_model))


def pe_precedence(max_len, d_model):
    pos = np.arange(max_len)[:, None]
    i = np.arange((d_model + 1) // 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        angles = pos / (10000**2 * i / d_model)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_sine_in_every_feature(max_len, d_model):
    angles = _angles(max_len, d_model)
    return _interleave(np.sin(angles), np.sin(angles), d_model)


def pe_no_sin(max_len, d_model):
    angles = _angles(max_len, d_model)
    return _interleave(angles, np.cos(angles), d_model)


def pe_integer_table(max_len, d_model):
    return ref.positional_encoding(max_len, d_model).astype(np.int64)


# ============================================================ relative_shift
# ------------------------------------------------------------------ correct
def shift_blocks_as_a_stack(k, d_model):  # one 2x2 rotation per pair, never assembled
    if d_model % 2:
        raise ValueError("odd d_model")
    theta = k / 10000.0 ** (np.arange(0, d_model, 2) / d_model)  # (d_model / 2,)
    return np.array([[[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]] for t in theta])


def shift_cos_row_off_by_two(k, d_model):  # m[two_i - 1, two_i + 1] = cos: wraps for i = 0
    if d_model % 2:
        raise ValueError("odd d_model")
    two_i = np.arange(0, d_model, 2)
    theta = k / np.power(10000.0, two_i / d_model)
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = np.cos(theta)
    m[two_i + 1, two_i] = np.sin(theta)
    m[two_i, two_i + 1] = -np.sin(theta)
    m[two_i - 1, two_i + 1] = np.cos(theta)
    return m


def shift_exponent_times_d_model(k, d_model):  # 2i * d_model: the angles underflow to ~0
    if d_model % 2:
        raise ValueError("odd d_model")
    return _shift_of(k / np.power(10000.0, np.arange(0, d_model, 2) * float(d_model)))


def _shift_of(theta):
    two_i = 2 * np.arange(len(theta))
    m = np.zeros((2 * len(theta), 2 * len(theta)))
    m[two_i, two_i] = m[two_i + 1, two_i + 1] = np.cos(theta)
    m[two_i + 1, two_i], m[two_i, two_i + 1] = np.sin(theta), -np.sin(theta)
    return m


def shift_loops(k, d_model):
    if d_model % 2:
        raise ValueError("odd d_model")
    m = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        theta = k / 10000 ** (2 * i / d_model)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [
            [math.cos(theta), -math.sin(theta)],
            [math.sin(theta), math.cos(theta)],
        ]
    return m


def _shift_blocks_at(k, d_model, pair_indices):  # only the listed pairs' blocks written
    if d_model % 2:
        raise ValueError("odd d_model")
    m = np.zeros((d_model, d_model))
    for i in pair_indices:
        theta = k / 10000 ** (2 * i / d_model)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [
            [math.cos(theta), -math.sin(theta)],
            [math.sin(theta), math.cos(theta)],
        ]
    return m


def shift_stops_one_pair_early(k, d_model):  # range(d_model // 2 - 1): last block zero
    return _shift_blocks_at(k, d_model, range(d_model // 2 - 1))


def shift_feature_starts_by_four(k, d_model):  # starts 0, 4, 8, ...: every other pair
    return _shift_blocks_at(k, d_model, [start // 2 for start in range(0, d_model, 4)])


def shift_pair_index_as_feature(k, d_model):  # pair i's block at (i, i + 1): overlapping
    if d_model % 2:
        raise ValueError("odd d_model")
    m = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        theta = k / 10000 ** (2 * i / d_model)
        m[i : i + 2, i : i + 2] = [
            [math.cos(theta), -math.sin(theta)],
            [math.sin(theta), math.cos(theta)],
        ]
    return m


def shift_kron(k, d_model):
    if d_model % 2:
        raise ValueError("odd d_model")
    theta = k * np.exp(-np.log(10000.0) * np.arange(0, d_model, 2) / d_model)
    m = np.zeros((d_model, d_model))
    for i, t in enumerate(theta):
        block = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        m += np.kron(np.diag(np.eye(d_model // 2)[i]), block)
    return m


def shift_float32(k, d_model):
    if d_model % 2:
        raise ValueError("odd d_model")
    w = 1 / np.power(np.float32(10000), np.arange(0, d_model, 2, dtype=np.float32) / d_model)
    c, s = np.cos(w * np.float32(k)), np.sin(w * np.float32(k))
    m = np.zeros((d_model, d_model), dtype=np.float32)
    idx = np.arange(0, d_model, 2)
    m[idx, idx], m[idx + 1, idx + 1], m[idx, idx + 1], m[idx + 1, idx] = c, c, -s, s
    return m  # float32, accepted with a note


def shift_power_of_one_step(k, d_model):
    """A shift by k is k shifts by one: M(k) = M(1)^k (negative powers invert)."""
    return np.linalg.matrix_power(ref.relative_shift(1, d_model), k)


def shift_elementwise_power(k, d_model):  # ** is elementwise: not a matrix power
    with np.errstate(all="ignore"):
        return ref.relative_shift(1, d_model) ** k


def shift_sign_of_k_lost(k, d_model):  # abs(k): a negative k shifts forward
    return ref.relative_shift(abs(k), d_model)


def shift_power_loop(k, d_model):  # k products of the shift by one: the identity for k < 0
    m = np.eye(d_model)
    for _ in range(k):
        m = m @ ref.relative_shift(1, d_model)
    return m


def shift_column_vector_block_exponent_i(k, d_model):  # two mistakes: transposed, i not 2i
    two_i = np.arange(0, d_model, 2)
    theta = k / np.power(10000.0, (two_i // 2) / d_model)
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = m[two_i + 1, two_i + 1] = np.cos(theta)
    m[two_i, two_i + 1], m[two_i + 1, two_i] = np.sin(theta), -np.sin(theta)
    return m


def shift_rejects_odd_k(k, d_model):  # k % 2 where d_model % 2 belongs
    if k % 2:
        raise ValueError(f"relative_shift needs an even d_model, got {d_model}")
    return ref.relative_shift(k, d_model)


def shift_scipy_style_block_diag(k, d_model):
    if d_model % 2:
        raise ValueError(f"d_model must be even, got {d_model}")
    blocks = []
    for i in range(d_model // 2):
        t = k / 10000 ** (2 * i / d_model)
        blocks.append(np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]]))
    m = np.zeros((d_model, d_model))
    for i, block in enumerate(blocks):
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = block
    return m


# ------------------------------------------------------------------ wrong
def _blocks(angles_fn, transpose=False, layout="interleaved"):
    def relative_shift(k, d_model):
        if d_model % 2:
            raise ValueError("odd d_model")
        half = d_model // 2
        m = np.zeros((d_model, d_model))
        for i in range(half):
            t = angles_fn(i, k, d_model)
            a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + half)
            m[a, a] = m[b, b] = math.cos(t)
            m[a, b], m[b, a] = -math.sin(t), math.sin(t)
        return m.T if transpose else m

    return relative_shift


def _right(i, k, d_model):
    return k / 10000 ** (2 * i / d_model)


shift_transposed = _blocks(_right, transpose=True)
shift_angle_w = _blocks(lambda i, k, d: 1 / 10000 ** (2 * i / d))
shift_angle_k = _blocks(lambda i, k, d: float(k))
shift_i_not_2i = _blocks(lambda i, k, d: k / 10000 ** (i / d))
shift_concatenated = _blocks(_right, layout="concatenated")
for _fn, _name in [
    (shift_transposed, "shift_transposed"),
    (shift_angle_w, "shift_angle_w"),
    (shift_angle_k, "shift_angle_k"),
    (shift_i_not_2i, "shift_i_not_2i"),
    (shift_concatenated, "shift_concatenated"),
]:
    _fn.__name__ = _name


def shift_sine_written_to_the_diagonal(k, d_model):
    """The +sin line writes to row 2i instead of 2i + 1 (over the cosine)."""
    m = ref.relative_shift(k, d_model)
    m[1::2, 0::2] = 0.0 * m[1::2, 0::2]
    for i in range(0, d_model, 2):
        m[i, i] = np.sin(k / 10000 ** (i / d_model))
    return m


def shift_angle_times_frequency(k, d_model):
    m = np.zeros((d_model, d_model))
    for i in range(0, d_model, 2):
        theta = k * 10000 ** (i / d_model)
        m[i : i + 2, i : i + 2] = [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]
    return m


def shift_exponent_4i(k, d_model):
    """The even indices (already 2i) multiplied by 2 again: pair i turns by k / 10000^(4i/d)."""
    m = np.zeros((d_model, d_model))
    for i in range(0, d_model, 2):
        theta = k / 10000 ** (2 * i / d_model)
        m[i : i + 2, i : i + 2] = [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]
    return m


def shift_base_1000(k, d_model):
    m = np.zeros((d_model, d_model))
    for i in range(0, d_model, 2):
        theta = k / 1000 ** (i / d_model)
        m[i : i + 2, i : i + 2] = [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]
    return m


def shift_angle_cast_to_int(k, d_model):  # int(...) of each angle: cut towards 0
    if d_model % 2:
        raise ValueError("relative_shift needs an even d_model")
    m = np.zeros((d_model, d_model))
    for i in range(0, d_model, 2):
        theta = int(k / 10000.0 ** (i / d_model))
        m[i : i + 2, i : i + 2] = [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]
    return m


def shift_sin_on_diagonal(k, d_model):
    m = ref.relative_shift(k, d_model)
    return m[:, [j ^ 1 for j in range(d_model)]]  # swaps the columns of each pair


def shift_dense(k, d_model):
    return ref.relative_shift(k, d_model) + 0.1


def shift_no_error_for_odd(k, d_model):
    m = np.zeros((d_model, d_model))
    m[: d_model // 2 * 2, : d_model // 2 * 2] = ref.relative_shift(k, d_model // 2 * 2)
    return m


def shift_index_error_for_odd(k, d_model):
    m = np.zeros((d_model, d_model))
    for j in range(0, d_model, 2):
        t = k / 10000 ** (j / d_model)
        m[j, j] = m[j + 1, j + 1] = math.cos(t)  # IndexError at the last, unpaired j
        m[j, j + 1], m[j + 1, j] = -math.sin(t), math.sin(t)
    return m


def _shift_by(positions):
    """The right rotation for ``positions(k)`` positions instead of k: a mistake on k alone."""

    def relative_shift(k, d_model):
        return ref.relative_shift(positions(k), d_model)

    return relative_shift


# blind round 11: the family "the right shift, by another number of positions", told
# apart by a second call (k // 2 gives the shift by one at k = 3, like k left out)
shift_k_floor_halved = _shift_by(lambda k: k // 2)
shift_k_plus_one = _shift_by(lambda k: k + 1)
shift_k_minus_two = _shift_by(lambda k: k - 2)
shift_k_tripled = _shift_by(lambda k: 3 * k)
shift_k_constant = _shift_by(lambda k: 2)
shift_transposed_k_plus_one = _shift_by(lambda k: -(k + 1))  # two mistakes at once
shift_transposed_k_doubled = _shift_by(lambda k: -2 * k)
for _fn, _name in [
    (shift_k_floor_halved, "shift_k_floor_halved"),
    (shift_k_plus_one, "shift_k_plus_one"),
    (shift_k_minus_two, "shift_k_minus_two"),
    (shift_k_tripled, "shift_k_tripled"),
    (shift_k_constant, "shift_k_constant"),
    (shift_transposed_k_plus_one, "shift_transposed_k_plus_one"),
    (shift_transposed_k_doubled, "shift_transposed_k_doubled"),
]:
    _fn.__name__ = _name


def shift_cos_over_sine(k, d_model):
    """The last cos line lost the + 1 of its column: it overwrites +sin at (2i+1, 2i)."""
    two_i = np.arange(0, d_model, 2)
    theta = k / np.power(10000.0, two_i / d_model)
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = np.cos(theta)
    m[two_i + 1, two_i] = np.sin(theta)
    m[two_i, two_i + 1] = -np.sin(theta)
    m[two_i + 1, two_i] = np.cos(theta)
    return m


def shift_cos_row_without_plus_one(k, d_model):
    """The last cos line lost the + 1 of its row: it overwrites -sin at (2i, 2i+1)."""
    two_i = np.arange(0, d_model, 2)
    theta = k / np.power(10000.0, two_i / d_model)
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = np.cos(theta)
    m[two_i + 1, two_i] = np.sin(theta)
    m[two_i, two_i + 1] = -np.sin(theta)
    m[two_i, two_i + 1] = np.cos(theta)
    return m


def shift_tensor(k, d_model):
    return torch.from_numpy(ref.relative_shift(k, d_model))


# ======================================================== PositionalEncoding
def _table(max_len, d_model):
    return torch.tensor(ref.positional_encoding(max_len, d_model), dtype=torch.float32)


class PEOwnTableCosinesFirst(nn.Module):
    """Round 35: the module builds its own table, all the cosines then all the sines (the
    right functions in other places), told by its output alone before."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)  # (max_len, 1)
        rates = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
        angles = position * rates  # (max_len, ceil(d_model / 2))
        pe = torch.cat([angles.cos()[:, : d_model // 2], angles.sin()], dim=1)
        self.register_buffer("pe", pe.unsqueeze(0))  # (1, max_len, d_model)

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


# ------------------------------------------------------------------ correct
class PERowsPrependedAsPositions(ref.PositionalEncoding):  # cat along the positions
    def forward(self, x):
        rows = self.pe[:, : x.shape[1]].expand(x.shape[0], -1, -1)  # (batch, len, d_model)
        return self.dropout(torch.cat([rows, x], dim=1))


class PEOnFirstSequenceOnly(ref.PositionalEncoding):  # x[0] += pe: one sequence encoded
    def forward(self, x):
        out = x.clone()
        out[0] = out[0] + self.pe[0, : x.shape[1]]
        return self.dropout(out)


class PERefusesFullLength(ref.PositionalEncoding):
    """Refuses len == max_len, which fits (>= where > belongs)."""

    def forward(self, x):
        if x.shape[1] >= self.pe.shape[1]:
            raise ValueError(f"sequence length {x.shape[1]} exceeds max_len={self.pe.shape[1]}")
        return self.dropout(x + self.pe[:, : x.shape[1]])


class PEClipsToTable(ref.PositionalEncoding):
    """Keeps only the positions the table covers: min(len, max_len) of them."""

    def forward(self, x):
        length = min(x.size(1), self.pe.size(1))
        return self.dropout(x[:, :length] + self.pe[:, :length])


class PEZeroRowsPastTable(ref.PositionalEncoding):
    """Pads the table's rows with zeros past max_len: longer positions get no encoding."""

    def forward(self, x):
        rows = self.pe[:, : x.size(1)]  # (1, min(len, max_len), d_model)
        missing = x.size(1) - rows.size(1)
        return self.dropout(x + F.pad(rows, (0, 0, 0, missing)))


class PEAnnotated(nn.Module):
    """The Annotated Transformer's PositionalEncoding, with this course's argument order
    (its own, (d_model, dropout, max_len), is a mistake here: PEAnnotatedOrder)."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[:, : x.size(1)].requires_grad_(False)
        return self.dropout(x)


class PEd2l(nn.Module):
    """d2l's PositionalEncoding: the table P is a plain attribute (not in the state dict),
    moved to x's device in forward; .to(dtype) and .half() leave it behind (a mistake,
    listed in MISTAKES)."""

    def __init__(self, num_hiddens, dropout, max_len=1000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens
        )
        self.P[:, :, 0::2] = torch.sin(X)
        self.P[:, :, 1::2] = torch.cos(X)

    def forward(self, X):
        X = X + self.P[:, : X.shape[1], :].to(X.device)
        return self.dropout(X)


class PEOwnFunction(nn.Module):
    """Builds its table with a learner's own (correct) positional_encoding, as the exercise asks."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        table = torch.tensor(pe_loops(max_len, d_model), dtype=torch.float32)
        self.register_buffer("pe", table.unsqueeze(0))

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


class PEFloat32Formula(nn.Module):
    """Computes its own table in float32 torch (the div_term form), F.dropout with training."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.p = dropout
        position = torch.arange(max_len).unsqueeze(1)  # (max_len, 1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(position * div_term)
        pe[0, :, 1::2] = torch.cos(position * div_term[: d_model // 2])
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x):
        return F.dropout(x + self.pe.narrow(1, 0, x.size(1)), self.p, training=self.training)


class PEExpand(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.register_buffer("pe", _table(max_len, d_model)[None])
        self.drop = nn.Dropout(p=dropout)

    def forward(self, x):
        batch, length, _ = x.shape
        return self.drop(torch.add(x, self.pe[:, :length, :].expand(batch, -1, -1)))


class PE2DBuffer(nn.Module):
    """Keeps the table 2-D, (max_len, d_model), and slices its rows: broadcasting adds the batch."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.register_buffer("table", _table(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x + self.table[: x.size(1)])


class PEFloat64BufferCast(nn.Module):
    """Keeps the float64 table, and converts the slice to x's dtype in forward."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.register_buffer(
            "pe", torch.from_numpy(ref.positional_encoding(max_len, d_model))[None]
        )
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)].to(x.dtype))


class PETableInForward(nn.Module):
    """No stored table at all: computes the rows it needs on every call."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.d_model = d_model
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        rows = torch.from_numpy(ref.positional_encoding(x.size(1), self.d_model)).to(x.dtype)
        return self.dropout(x + rows)


class PETableRowsWithoutGrad(nn.Module):
    """The rows sliced under torch.no_grad() (they need no gradient); x stays in autograd."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.register_buffer("pe", _table(max_len, d_model).unsqueeze(0))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        with torch.no_grad():
            rows = self.pe[:, : x.size(1)].clone()
        return self.dropout(x + rows)


class PETableInForwardFloat32(nn.Module):
    """Rows computed in forward as float32 whatever x's dtype (no stored table)."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.d_model = d_model
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        rows = torch.tensor(ref.positional_encoding(x.size(1), self.d_model), dtype=torch.float32)
        return self.dropout(x + rows)


class PETableFromFirstCall(nn.Module):
    """Builds its table on the first call, for that call's length, and keeps it."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.d_model, self.table = d_model, None
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        if self.table is None:
            rows = ref.positional_encoding(x.size(1), self.d_model)
            self.table = torch.tensor(rows, dtype=x.dtype)[None]
        return self.dropout(x + self.table[:, : x.size(1)])


def _no_grad_forward(self, x):
    with torch.no_grad():
        return self.dropout(x + self.pe[:, : x.size(1)])


class PEFrozenParameter(nn.Module):
    """A parameter that can never be trained (requires_grad=False) is a fixed table too."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.pe = nn.Parameter(_table(max_len, d_model)[None], requires_grad=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


# ------------------------------------------------------------------ wrong
def _module(forward, *, table=None, parameter=False, dropout_p=None, register=True, name=None):
    """A PositionalEncoding whose forward (or table) has one mistake."""

    class Wrong(nn.Module):
        def __init__(self, d_model, max_len=5000, dropout=0.1):
            super().__init__()
            pe = table(max_len, d_model) if table else _table(max_len, d_model).unsqueeze(0)
            if parameter:
                self.pe = nn.Parameter(pe)
            elif register:
                self.register_buffer("pe", pe)
            else:
                self.pe = pe
            self.dropout = nn.Dropout(dropout if dropout_p is None else dropout_p)

        def forward(self, x):
            return forward(self, x)

    Wrong.__name__ = Wrong.__qualname__ = name or "Wrong"
    return Wrong


def _right_forward(self, x):
    return self.dropout(x + self.pe[:, : x.size(1)])


def _inplace(self, x):
    x += self.pe[:, : x.size(1)]
    return self.dropout(x)


def _seq_first_forward(self, x):
    return self.dropout(x + self.pe[: x.size(0)])


def _refuses_max_len(self, x):  # >= where > belongs: len == max_len is refused
    if x.size(1) >= self.pe.size(1):
        raise ValueError(f"sequence length {x.size(1)} exceeds max_len={self.pe.size(1)}")
    return self.dropout(x + self.pe[:, : x.size(1)])


def _cuts_its_table(self, x):  # the slice assigned back: the first call cuts the table
    self.pe = self.pe[:, : x.size(1)]
    return self.dropout(x + self.pe)


class PEKeepProbability(nn.Module):
    """nn.Dropout(1 - dropout): the argument read as a keep probability (keep_prob)."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(1 - dropout)
        self.register_buffer("pe", _table(max_len, d_model).unsqueeze(0))

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


def _mask_per_sequence(self, x):
    """A dropout mask drawn once per sequence, (batch, 1, d_model), shared by every position."""
    total = x + self.pe[:, : x.size(1)]  # (batch, len, d_model)
    if not self.training or self.dropout.p == 0:
        return total
    if self.dropout.p == 1:
        return torch.zeros_like(total)
    keep = torch.rand(x.size(0), 1, x.size(2)) >= self.dropout.p  # (batch, 1, d_model)
    return total * keep / (1 - self.dropout.p)


def _f_dropout_always(self, x):
    return F.dropout(x + self.pe[:, : x.size(1)], self.dropout.p)


def _from_wrong_function(fn):
    return lambda n, d: torch.tensor(fn(n, d), dtype=torch.float32)[None]


class PETutorialSequenceFirst(nn.Module):
    """The PyTorch word-language-model tutorial's PositionalEncoding: sequence-first,
    x (len, batch, d_model). Right there; a mistake under this course's batch-first contract."""

    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(0), :]
        return self.dropout(x)


# ================================================================== concept questions


def pe_from_one_base_1000(max_len, d_model):
    """Two mistakes at once: positions counted from 1 and base 1000."""
    pos = np.arange(1, max_len + 1)[:, None]
    angles = pos / 1000.0 ** (np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles[:, : d_model // 2])
    return pe


def pe_t2t_spacing(max_len, d_model):
    """tensor2tensor's spacing of the frequencies, 2i / (d_model - 2): at d_model = 4 it
    equals a doubled exponent (4i / d_model), so only the other cases tell the two apart."""
    two_i = np.arange(0, d_model, 2, dtype=np.float64)
    angles = np.arange(max_len, dtype=np.float64)[:, None] / 10000.0 ** (two_i / (d_model - 2))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles[:, : d_model // 2])
    return pe


def pe_angles_cast_to_int(max_len, d_model):
    """The angles cast to whole radians (astype(int) truncates, as // would)."""
    angles = np.arange(max_len)[:, None] / 10000.0 ** (np.arange(0, d_model, 2) / d_model)
    angles = angles.astype(int)  # (max_len, pairs)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles[:, : d_model // 2])
    return pe


def pe_angles_rint(max_len, d_model):
    """The angles rounded to the nearest radian."""
    angles = np.rint(np.arange(max_len)[:, None] / 10000.0 ** (np.arange(0, d_model, 2) / d_model))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles[:, : d_model // 2])
    return pe


def pe_rates_spread_to_one(max_len, d_model):
    """The exponents normalised to end at exactly 1, i / (pairs - 1), written as rates (the
    last pair then turns at 1/10000 per position)."""
    pairs = (d_model + 1) // 2
    exponents = np.arange(pairs) / max(pairs - 1, 1)  # (pairs,), 0 .. 1
    angles = np.arange(max_len)[:, None] * 10000.0 ** (-exponents)  # (max_len, pairs)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles[:, : d_model // 2])
    return pe


def pe_positions_reversed(max_len, d_model):
    """A layout mistake no table lists: the rows run from the last position to the first."""
    return ref.positional_encoding(max_len, d_model)[::-1].copy()


def shift_next_pair_frequency(k, d_model):  # 2(i + 1): each pair takes the next one's frequency
    m = np.zeros((d_model, d_model))
    for j, exponent in enumerate(np.arange(2, d_model + 2, 2) / d_model):
        t = k / 10000.0**exponent
        m[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]
    return m


def shift_k_times_hundred(k, d_model):  # a factor on k: the same at every d_model
    two_i = np.arange(0, d_model, 2)
    theta = 100 * k / np.power(10000.0, two_i / d_model)
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = m[two_i + 1, two_i + 1] = np.cos(theta)
    m[two_i + 1, two_i], m[two_i, two_i + 1] = np.sin(theta), -np.sin(theta)
    return m


MISTAKES = [
    # row 0 alone was shown before (the family of blind23a-b23a-pe-cos-as-shifted-sine):
    # the features whose sign is flipped, from a relation of the outputs
    Mistake(
        check_positional_encoding,
        pe_cosine_negated,
        r"opposite sign in the odd features \(1, 3, 5, \.\.\.\) of the last axis",
    ),
    # told the positions were multiplied by -1 alone: negated sines give the same table
    Mistake(
        check_positional_encoding,
        pe_sine_as_shifted_cosine,
        r"opposite sign in every sine feature.*or the positions were negated",
    ),
    # blind round 17: a table one row short or one row long, and which row
    Mistake(
        check_positional_encoding,
        pe_positions_counted_from_one,
        r"max_len - 1 = \d+ rows, one row short: positions 1 \.\. \d+: position 0 is missing",
    ),
    Mistake(
        check_positional_encoding,
        pe_positions_up_to_max_len,
        r"max_len \+ 1 = \d+ rows, one row too many: positions 0 \.\. \d+: one past the last",
    ),
    Mistake(
        check_positional_encoding,
        pe_cosine_angles_counted_from_the_end,
        r"odd d_model every cosine holds the next pair's angle",
    ),
    Mistake(
        check_positional_encoding,
        pe_from_one_base_1000,
        r"Two mistakes at once\. \(1\) The base is 1000.* \(2\) Positions start at 1",
    ),
    Mistake(check_positional_encoding, pe_rate_truncated_by_int, r"e\^\(-k·i\) with a whole"),
    Mistake(check_positional_encoding, pe_positions_reversed, r"position axis in reverse order"),
    Mistake(
        check_positional_encoding,
        pe_positions_normalised,
        r"table of the positions 0, c, 2c, \.\.\. with c = [\d.]+ = 1 / max_len: the positions "
        r"were divided by max_len",
    ),
    Mistake(
        check_positional_encoding,
        pe_each_feature_own_exponent,
        r"own index in the exponent, 2j/d_model.*doubled.*2\(2i\+1\)/d_model",
    ),
    Mistake(
        check_positional_encoding,
        pe_cosines_of_pair_0,
        r"sines are right, but feature 3 holds the cosine of pair 0's angle",
    ),
    Mistake(check_positional_encoding, pe_exponent_odd_index, r"uses the odd index 2i\+1 for both"),
    Mistake(
        check_positional_encoding,
        pe_cosines_of_the_sines,
        r"cosine feature 2i\+1 is cos\(sin\(angle\)\)",
    ),
    Mistake(
        check_positional_encoding,
        pe_cosines_as_root_of_one_minus_sine_squared,
        r"cosines are never negative: they are the absolute value of the cosine",
    ),
    Mistake(
        check_positional_encoding,
        pe_cosine_angles_without_the_last,
        r"cosines take angles\[:, :-1\], dropping the last angle whatever d_model is|"
        r"given \d+, one angle fewer: angles\[:, :-1\]",
    ),
    Mistake(
        check_positional_encoding,
        pe_base_written_as_unparenthesised_power,
        r"denominator is 10 \*\* \(4 \*\* \(2i/d_model\)\): \*\* is right-associative",
    ),
    Mistake(
        check_positional_encoding,
        pe_exponent_times_d_model,
        r"pair i turns at pos / 10000\^\(\d+i/d_model\).*multiplies by d_model where it divides",
    ),
    Mistake(
        check_relative_shift,
        shift_angle_cast_to_int,
        r"Your angles are whole numbers: pair i turns by k·w_i .*int\(\.\.\.\)",
    ),
    Mistake(
        check_relative_shift,
        shift_exponent_times_d_model,
        r"pair i turns by k / 10000\^\(\d+i/d_model\).*multiplies by d_model where it divides",
    ),
    # told "largest difference" and the value of feature 0 before
    Mistake(
        check_positional_encoding,
        pe_sines_to_odd_columns,
        r"features \[0, 2.*\] are 0 at every position: nothing was written to them",
    ),
    Mistake(
        check_positional_encoding,
        pe_cosines_from_2,
        r"slice of the table's features holds \d+ columns, but it was given \d+",
    ),
    Mistake(check_positional_encoding, pe_t2t_spacing, r"^(?!.*doubled).*2i / \(d_model - 2\)"),
    Mistake(
        check_positional_encoding,
        pe_angles_cast_to_int,
        r"angles are whole numbers of radians, rounded down",
    ),
    Mistake(check_positional_encoding, pe_angles_rint, r"angles are rounded to whole numbers"),
    Mistake(
        check_positional_encoding,
        pe_rates_spread_to_one,
        r"^(?!.*tensor2tensor).*exponents run evenly from 0 to exactly 1",
    ),
    # the named swap and halves, not also the generic "another feature order" (both permute)
    Mistake(check_positional_encoding, pe_swapped, r"^(?!.*another feature order).*swapped"),
    Mistake(
        check_positional_encoding,
        pe_concatenated,
        r"^(?!.*another feature order).*concatenated .*tensor2tensor.*interleave",
    ),
    Mistake(
        check_positional_encoding,
        pe_cos_halves_first,
        r"right sines and cosines, but in another feature order.*yours is \[cos0, cos1, .*sin0.*Interleave",
    ),
    Mistake(
        check_positional_encoding,
        pe_pairs_reversed,
        r"another feature order.*yours is \[sin(1|3), cos(1|3), .*feature 0, which holds sin.*pairs are out of order",
    ),
    Mistake(
        check_positional_encoding,
        pe_function_by_pair_parity,
        r"one of the right sines and cosines .*not each in its place: yours is \[sin0, sin0, "
        r"cos1, cos1.*follows the parity of the pair index",
    ),
    Mistake(check_positional_encoding, pe_i_not_2i, r"i/d_model where the formula has 2i/d_model"),
    Mistake(check_positional_encoding, pe_column_index, r"feature index j = 2i\+1"),
    Mistake(check_positional_encoding, pe_doubled, "exponent is doubled"),
    # blind round 10: the measured exponent 2 / ln 10 names the logarithm
    Mistake(check_positional_encoding, pe_exp_log10, r"2 / ln 10: the exp\(log\) form.*log10"),
    Mistake(check_relative_shift, shift_exp_log10, r"2 / ln 10: the exp\(log\) form.*log10"),
    Mistake(
        check_relative_shift,
        shift_next_pair_frequency,
        r"Every pair turns with the frequency of the pair after it",
    ),
    Mistake(check_relative_shift, shift_k_times_hundred, r"k is multiplied by 100 in both"),
    Mistake(
        check_relative_shift,
        shift_sin_cos_exchanged_in_blocks,
        r"Sine and cosine are swapped in every 2×2 block.*minus sign below the diagonal",
    ),
    Mistake(
        check_relative_shift,
        shift_no_shift_is_identity_first,
        r"k=0.*instead of raising ValueError.*does raise it.*shortcut for k = 0 \(the identity",
    ),
    Mistake(
        check_relative_shift,
        shift_blocks_as_a_stack,
        r"stack of the \d+ rotation blocks, shape \(d_model/2, 2, 2\), each block right, "
        r"instead of placing them on the diagonal",
    ),
    Mistake(
        check_relative_shift,
        shift_pair_index_as_feature,
        r"is not what the reference gives\. Pair i's block was written at rows and columns "
        r"\(i, i \+ 1\), the pair index used as the feature index",
    ),
    Mistake(check_positional_encoding, pe_integer_division, "integer division"),
    Mistake(check_positional_encoding, pe_base_1000, "base is 1000"),
    Mistake(
        check_positional_encoding,
        pe_pair_indices_step_4,
        r"computes \d+ angles where there are "
        r"d_model / 2 = \d+ pairs.*np\.arange\(0, d_model, 4\)",
    ),
    Mistake(
        check_positional_encoding,
        pe_exp_form_without_log,
        r"Pair 0 is right, but every later pair.*has frequency 0.*exponential that "
        r"underflowed.*log is left out",
    ),
    Mistake(
        check_positional_encoding,
        pe_base_one_million,
        r"pos / 1 000 000\^\(2i/d_model\).*the base is 1 000 000 instead of 10000",
    ),
    Mistake(check_positional_encoding, pe_multiplied, r"\*divided\*"),
    Mistake(check_positional_encoding, pe_positions_from_1, "Positions start at 1"),
    Mistake(check_positional_encoding, pe_odd_crash, r"(?s)raised ValueError.*odd d_model"),
    Mistake(check_positional_encoding, pe_odd_last_zero, r"no cosine partner\. Yours is all zeros"),
    Mistake(
        check_positional_encoding, pe_odd_last_cos, r"no cosine partner\. Yours holds a cosine"
    ),
    Mistake(check_positional_encoding, pe_stack_untrimmed, r"one extra column"),
    Mistake(check_positional_encoding, pe_transposed, "transposed"),
    Mistake(check_positional_encoding, pe_sin_cos_on_rows, r"wrong axis.*\*positions\* \(rows\)"),
    Mistake(check_positional_encoding, pe_batch_axis, "batch axis is added later"),
    Mistake(check_positional_encoding, pe_tensor, r"torch\.Tensor.*work in numpy"),
    Mistake(check_positional_encoding, pe_precedence, "NaN or inf.*parentheses"),
    # the single-edit diagnosis names it exactly where the values alone said "outside"
    Mistake(
        check_positional_encoding,
        pe_no_sin,
        r"outside \[-1, 1\]|leaves out `sin`.*: `angles` where",
    ),
    Mistake(check_positional_encoding, pe_integer_table, r"floating-point"),
    # blind round 11: the exponent's denominator family, confirmed on every case
    Mistake(check_positional_encoding, pe_rows_from_1, r"rows \[0\].*starts late"),
    Mistake(check_positional_encoding, pe_rows_stop_early, r"rows \[\d+\].*stops early"),
    Mistake(check_positional_encoding, pe_exponent_over_half, r"divides 2i by d_model // 2"),
    Mistake(check_positional_encoding, pe_exponent_over_d_minus_1, r"divides 2i by d_model - 1"),
    Mistake(check_positional_encoding, pe_exponent_over_max_len, r"divides 2i by max_len"),
    Mistake(check_positional_encoding, pe_times_2pi, r"c = 6\.28319 = 2π: the angle"),
    Mistake(check_positional_encoding, pe_deg2rad, r"π / 180: converted from degrees"),
    # a measured exponent's cause is said only when every case agrees with it
    Mistake(
        check_positional_encoding,
        pe_floor_in_exp_log,
        r"^(?!(?s:.*)ln 10)(?s:.*)(10000\^\(0\.8686·i/d_model\)|differs from the reference)",
    ),
    Mistake(  # at d_model >= 10 every frequency is 1: the same angle k, rightly named
        check_relative_shift,
        shift_floor_in_exp_log,
        r"^(?!(?s:.*)ln 10)(?s:.*)(10000\^\(0\.8686·i/d_model\)|same angle k)",
    ),
    Mistake(check_relative_shift, shift_transposed, "wrong sign.*transpose"),
    # blind round 17: some pairs' blocks never written (a loop over the wrong pairs)
    Mistake(
        check_relative_shift,
        shift_stops_one_pair_early,
        r"blocks of pair\(s\) \[\d+\] are all zero.*stops one pair early",
    ),
    Mistake(
        check_relative_shift,
        shift_feature_starts_by_four,
        r"blocks of pair\(s\) \[1(, \d+)*\] are all zero.*steps by 2 over the pair index",
    ),
    # blind round 10: a lost sign looks like the transpose at k < 0; the call with |k| parts
    # them (the transpose is wrong there too)
    Mistake(
        check_relative_shift,
        shift_sign_of_k_lost,
        r"^(?!.*transpose)(?s:.*)is your matrix for k=\d+: the sign of k is lost",
    ),
    Mistake(check_relative_shift, shift_power_loop, r"is the identity.*range\(k\)"),
    Mistake(
        check_relative_shift,
        shift_column_vector_block_exponent_i,
        r"Two mistakes at once\. \(1\) The sine terms have the wrong sign.*\(2\) The "
        r"frequencies use 10000\^\(i/d_model\)",
    ),
    Mistake(
        check_relative_shift,
        shift_elementwise_power,
        r"shift by one position with every entry raised to the power k.*matrix_power",
    ),
    Mistake(
        check_relative_shift,
        shift_rejects_odd_k,
        r"(?s)raised ValueError.*d_model=\d+, which is even.*With k=\d+ \(and the same "
        r"d_model\) it does not raise.*depends on k",
    ),
    Mistake(
        check_relative_shift,
        shift_cos_row_off_by_two,
        r"M\[2i\+1, 2i\+1\] holds 0 where cos.*written to M\[2i-1, 2i\+1\] instead",
    ),
    Mistake(check_relative_shift, shift_angle_w, "shift for k = 1"),
    Mistake(check_relative_shift, shift_angle_k, "same angle k"),
    # blind round 11: every mistake on k alone, named only when a second call agrees
    Mistake(check_relative_shift, shift_k_floor_halved, r"k // 2: integer division"),
    Mistake(check_relative_shift, shift_k_plus_one, r"it shifts by \d+ \(k \+ 1: off by one"),
    Mistake(check_relative_shift, shift_k_minus_two, r"k - 2 where k belongs"),
    Mistake(check_relative_shift, shift_k_tripled, r"k is multiplied by 3 in both"),
    Mistake(check_relative_shift, shift_k_constant, r"does not depend on k"),
    Mistake(
        check_relative_shift,
        shift_transposed_k_plus_one,
        r"\(k \+ 1: off by one, and the sine terms have the wrong sign",
    ),
    Mistake(
        check_relative_shift,
        shift_transposed_k_doubled,
        r"\(k doubled \(2k\), and the sine terms have the wrong sign",
    ),
    Mistake(
        check_relative_shift,
        shift_cos_over_sine,
        r"written to M\[2i\+1, 2i\] instead.*2i where 2i\+1 belongs: the \+ 1 of that index is "
        r"missing",
    ),
    Mistake(
        check_relative_shift,
        shift_cos_row_without_plus_one,
        r"row index of that assignment is off \(2i where 2i\+1 belongs: the \+ 1 of that index",
    ),
    Mistake(check_relative_shift, shift_i_not_2i, r"10000\^\(i/d_model\)"),
    Mistake(check_relative_shift, shift_concatenated, "concatenated layout"),
    Mistake(
        check_relative_shift,
        shift_sin_on_diagonal,
        r"In every 2×2 block, M\[2i, 2i\] holds [+-]sin\(w_i·k\) where cos\(w_i·k\) belongs",
    ),
    Mistake(check_relative_shift, shift_dense, "block diagonal"),
    Mistake(
        check_relative_shift,
        shift_sine_written_to_the_diagonal,
        r"In every 2×2 block, M\[2i, 2i\] holds \+sin\(w_i·k\) where cos\(w_i·k\) belongs; "
        r"M\[2i\+1, 2i\] holds 0",
    ),
    Mistake(check_relative_shift, shift_angle_times_frequency, r"k \*times\* 10000"),
    Mistake(
        check_relative_shift,
        shift_exponent_4i,
        r"pair i turns by k / 10000\^\(4i/d_model\).*already are even",
    ),
    # 1000^(2i/d) = 10000^(1.5·i/d): the exponent measured, no cause claimed for it
    Mistake(
        check_relative_shift,
        shift_base_1000,
        r"pair i turns by k / 10000\^\(1\.5·i/d_model\)(?!.*already are even)",
    ),
    Mistake(check_relative_shift, shift_no_error_for_odd, "instead of raising ValueError"),
    Mistake(
        check_relative_shift,
        shift_index_error_for_odd,
        r"(?s)raised IndexError.*raise a ValueError yourself",
    ),
    Mistake(check_relative_shift, shift_tensor, r"torch\.Tensor"),
    Mistake(
        check_PositionalEncoding,
        PEOwnTableCosinesFirst,
        r"the table in its state dict, `pe`, is wrong\. Your table holds exactly the right "
        r"sines and cosines, but in another feature order.*yours is \[cos0, cos1",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(s.pe[:, : x.size(1)].expand_as(x)), name="returns_pe"),
        "without adding x",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.pe[:, : x.size(1)], name="returns_pe_unexpanded"),
        "without adding x",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x), name="returns_x"),
        "returned x unchanged",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x * s.pe[:, : x.size(1)]), name="multiplies"),
        "multiplied",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x + s.pe), name="adds_full_table"),
        "first len rows",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x + s.pe[: x.size(1)]), name="slices_batch_axis"),
        "first len rows",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x - s.pe[:, : x.size(1)]), name="subtracts"),
        r"You subtracted the encoding from x \(x - PE\)",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(_cuts_its_table, name="cuts_its_table"),
        r"^(?!.*>= where > belongs).*changed the module itself: its table `pe` was \(1, \d+, \d+\) "
        r"when the module was built and is \(1, \d+, \d+\) after this call.*self\.pe = "
        r"self\.pe\[:, :len\]",
    ),
    Mistake(
        check_PositionalEncoding,
        PEKeepProbability,
        r"^(?!.*hard-coded nn\.Dropout\(0\.1\)).*all \d+ entries are 0, which is dropout with "
        r"p = 1.*with dropout=1\.0 nothing is dropped at all.*keep_prob",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x + s.pe[:, : x.size(1) + 1]), name="one_row_too_many"),
        r"You added \d+ rows of the table to x's len=\d+ positions, one too many: the slice is "
        r"off by one \(:x\.size\(1\) \+ 1\)",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x + s.pe[:, : x.size(1) - 1]), name="one_row_too_few"),
        # the hidden x is (3, 17, 16): len - 1 = d_model, so both slices are named there
        r"one too few: the slice is off by one \(:x\.size\(1\) - 1\)|sliced with x\.size\(-1\), "
        r"the feature width d_model=16; or sliced with x\.size\(1\) - 1, a slice off by one",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x + s.pe[:, : x.size(0)]), name="slices_with_batch_size"),
        r"sliced with x\.size\(0\).*slice with x\.size\(1\)",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x + s.pe[:, : x.size(-1)]), name="slices_with_d_model"),
        # hidden: x (3, 17, 16), where d_model = len - 1 names the off-by-one slice too
        r"sliced with x\.size\(-1\).*(slice with x\.size\(1\)|; or sliced with x\.size\(1\) - 1)",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(
            lambda s, x: s.dropout(x * x.size(-1) ** 0.5 + s.pe[:, : x.size(1)]),
            name="scales_by_sqrt_d_model",
        ),
        r"sqrt\(d_model\).*lesson 02",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x) + s.pe[:, : x.size(1)], name="dropout_before_adding"),
        r"\*before\* adding",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: x + s.dropout(s.pe[:, : x.size(1)]), name="dropout_on_pe_only"),
        "encoding alone",
    ),
    Mistake(  # channel-wise dropout: whole positions zeroed (family of blind28a-PE-channel)
        check_PositionalEncoding,
        _module(
            lambda s, x: F.dropout1d(x + s.pe[:, : x.size(1)], s.dropout.p, s.training),
            name="dropout1d_on_the_sum",
        ),
        r"zeroes whole positions.*nn\.Dropout2d or nn\.Dropout1d.*Use nn\.Dropout\(dropout\)",
    ),
    Mistake(  # one mask per sequence, broadcast over its positions
        check_PositionalEncoding,
        _module(_mask_per_sequence, name="mask_shared_by_positions"),
        r"zeroes the same values in every position.*broadcast",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: x + s.pe[:, : x.size(1)], name="no_dropout"),
        "dropout was not applied",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(_f_dropout_always, name="f_dropout_in_eval"),
        r"^(?!.*differs from the reference).*still drops.*dropout in training mode.*training=True",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(_right_forward, dropout_p=0.1, name="hard_coded_dropout"),
        # named from the output itself, before any "largest difference" (round 7)
        r"^(?!.*largest difference).*dropout with p = 0\.1, not the dropout=0\.0.*not used",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(_inplace, name="in_place_add"),
        r"changed its argument `x` in place.*caller's embeddings",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(_right_forward, parameter=True, name="parameter_not_buffer"),
        r"requires grad.*nn\.Parameter",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(
            _seq_first_forward,
            table=lambda n, d: _table(n, d).unsqueeze(1),
            name="sequence_first",
        ),
        "sequence-first",
    ),
    Mistake(check_PositionalEncoding, PETutorialSequenceFirst, "sequence-first.*word-language"),
    # a table for a fixed number of positions, or for the paper's d_model (blind round 9)
    Mistake(
        check_PositionalEncoding,
        _module(
            _right_forward,
            table=lambda n, d: _table(5000, d).unsqueeze(0),
            name="max_len_hard_coded",
        ),
        r"`pe`, has shape \(1, 5000, \d+\): 5000 positions, but the module was built with max_len",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(_right_forward, table=lambda n, d: _table(n, 512).unsqueeze(0), name="d_model_512"),
        r"clash are the features: x has d_model=\d+, your table has 512 columns.*own d_model",
    ),
    # the learner's own ValueError, raised on a legal length: wrapped with what was asked
    Mistake(
        check_PositionalEncoding,
        _module(_refuses_max_len, name="refuses_len_equal_to_max_len"),
        r"(?s)raised ValueError.*len=(\d+) positions.*max_len=\1: len <= max_len is a legal",
    ),
    # the tutorial's (max_len, 1, d_model) table sliced by len, x.size(1): an error when
    # 1 < batch != len, a (len, len, d_model) output for a batch of one; never x.size(0)
    Mistake(
        check_PositionalEncoding,
        _module(
            lambda s, x: s.dropout(x + s.pe[: x.size(1)]),
            table=lambda n, d: _table(n, d).unsqueeze(1),
            name="sequence_first_table_sliced_by_len",
        ),
        r"^(?!.*sliced with x\.size\(0\))(?s:.*)stored as \(max_len, 1, d_model\).*"
        r"unsqueeze\(0\)",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(_right_forward, table=lambda n, d: _table(n, d), name="no_batch_axis"),
        r"unsqueeze\(0\)",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(
            _right_forward,
            table=lambda n, d: torch.tensor(ref.positional_encoding(n, d))[None],
            name="float64_buffer",
        ),
        r"dtype=torch\.float32",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(
            _right_forward,
            table=_from_wrong_function(pe_positions_from_1),
            name="table_from_pos_1",
        ),
        r"state dict, `pe`, is wrong.*exercise 1\. Positions start at 1",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(_right_forward, table=_from_wrong_function(pe_swapped), name="table_swapped"),
        r"exercise 1\. Sine and cosine are swapped.*Fix positional_encoding first",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(
            _right_forward,
            table=_from_wrong_function(pe_doubled),
            register=False,
            name="plain_attribute_table_doubled",
        ),
        r"encoding you add is wrong.*exercise 1\. The exponent is doubled",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(
            _right_forward,
            table=lambda n, d: torch.tensor(ref.positional_encoding(d, n), dtype=torch.float32)[
                None
            ],
            name="arguments_swapped",
        ),
        r"positional_encoding\(\d+, \d+\), the arguments swapped",
    ),
    # right functions in wrong places too (sin0, sin0, ...): its own message, not the generic one
    Mistake(
        check_positional_encoding,
        pe_sine_in_every_feature,
        r"^(?!.*not each in its place).*odd features hold a sine too",
    ),
    # a plain attribute is left behind by .to(): caught by converting the module
    Mistake(
        check_PositionalEncoding,
        _module(_right_forward, register=False, name="plain_attr"),
        r"did not follow the module.*plain attribute.*register_buffer",
    ),
    Mistake(check_PositionalEncoding, PEd2l, r"did not follow the module.*d2l"),
    Mistake(
        check_PositionalEncoding,
        PERowsPrependedAsPositions,
        r"Yours is the table's rows and x concatenated along the position axis "
        r"\(torch\.cat\(\[\.\.\.\], dim=1\)",
    ),
    # the tutorial's (max_len, 1, d_model) table sliced batch-first, table[:, :len] (blind
    # round 10): all max_len rows meet the batch axis; told which slice, not table[:len]
    Mistake(
        check_PositionalEncoding,
        _module(
            _right_forward,
            table=lambda n, d: _table(n, d).unsqueeze(1),
            name="sequence_first_table_sliced_batch_first",
        ),
        r"^(?!.*table\[:\d)(?s:.*)stored as \(max_len, 1, d_model\).*all its max_len=\d+ rows "
        r"met x.*table\[:, :len\].*unsqueeze\(0\)",
    ),
    # localised by the table's rows (blind round 10): added twice, or the wrong rows
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x + 2 * s.pe[:, : x.size(1)]), name="added_twice"),
        r"got its row of the table twice: x \+ 2·PE",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x + s.pe[:, -x.size(1) :]), name="last_rows"),
        r"Position p got row p \+ \d+ of the table.*the last len rows \(table\[:, -len:\]\)",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x + s.pe[:, 1 : x.size(1) + 1]), name="rows_from_1"),
        r"Position p got row p \+ 1 of the table.*shifted by 1 \(off by one\) and row 0 is "
        r"never used.*starts one row late",
    ),
    # blind round 11: an eval-mode output scaled by an expression of p, told apart by a
    # second probability (1 - p and p are both 0.5 at p = 0.5); no F.dropout claim
    Mistake(
        check_PositionalEncoding,
        _module(
            lambda s, x: (
                s.dropout(x + s.pe[:, : x.size(1)]) * (1 if s.training else 1 - s.dropout.p)
            ),
            name="eval_scaled_by_keep",
        ),
        r"^(?!(?s:.*)F\.dropout)(?s:.*)x \+ PE scaled by 1 - p, the test-time scaling",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(
            lambda s, x: (
                s.dropout(x + s.pe[:, : x.size(1)]) / (1 if s.training else 1 - s.dropout.p)
            ),
            name="eval_scaled_as_in_training",
        ),
        r"x \+ PE scaled by 1 / \(1 - p\), training mode's scaling",
    ),
    # blind round 11: any start of the slice, the offset said
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x + s.pe[:, 3 : x.size(1) + 3]), name="rows_from_3"),
        r"Position p got row p \+ 3 of the table.*shifted by 3 and rows 0..2 are never used",
    ),
    # a table made on the first call, for its length (blind round 10): a later, longer x
    # fails, and the message says where the table came from
    Mistake(
        check_PositionalEncoding,
        PETableFromFirstCall,
        r"(?s)raised RuntimeError.*holds `table`, of shape \(1, \d+, \d+\), which it did not "
        r"hold when it was built",
    ),
    # x taken out of autograd (blind round 10): caught by an x that requires grad
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x.data + s.pe[:, : x.size(1)]), name="x_data"),
        r"no gradient can flow back through to x.*x\.data, x\.detach\(\), torch\.no_grad\(\)",
    ),
    Mistake(
        check_PositionalEncoding,
        _module(_no_grad_forward, name="no_grad_forward"),
        r"no gradient can flow back through to x",
    ),
    # x converted in forward (blind round 10): the table followed .to(), so it is no plain
    # attribute; the bfloat16 output is float32 because forward converts
    Mistake(
        check_PositionalEncoding,
        _module(lambda s, x: s.dropout(x.float() + s.pe[:, : x.size(1)]), name="x_float"),
        r"^(?!.*plain attribute)(?s:.*)table followed \.to\(\).*forward converts.*x\.float\(\)",
    ),
    # rows made in forward with a fixed dtype: no table in the module to blame
    Mistake(
        check_PositionalEncoding,
        PETableInForwardFloat32,
        r"^(?!.*plain attribute)(?s:.*)keeps no table.*fixed dtype.*\.to\(x\.dtype\)",
    ),
    # the learner's own ValueError, raw, before
    Mistake(
        check_PositionalEncoding,
        PEOnFirstSequenceOnly,
        r"indices \[0\] \(of \d\) are right and \[[\d, ]+\] are exactly the `x` you were "
        r"given as it came in",
    ),
    Mistake(
        check_PositionalEncoding,
        PERefusesFullLength,
        r"refused x with len=\d+ positions, although it was built with max_len=\d+",
    ),
    Mistake(
        check_PositionalEncoding,
        PEClipsToTable,
        r"one position more than max_len: it returned shape \(1, \d+, \d+\): the sequence was cut",
    ),
    Mistake(
        check_PositionalEncoding,
        PEZeroRowsPastTable,
        r"one position more than max_len: it returned x's shape, but not x plus the table's rows",
    ),
]


# ------------------------------------------------- blind round 12 (r12f): the families
def shift_signature_swapped(d_model, k):
    """The parameters declared in the other order (blind12f's case)."""
    return ref.relative_shift(k, d_model)


def shift_body_swapped(k, d_model):
    """The signature is right, the body uses each argument where the other belongs."""
    two_i = np.arange(0, k, 2)
    m = np.zeros((k, k))
    theta = d_model / np.power(10000.0, two_i / k)
    m[two_i, two_i], m[two_i + 1, two_i + 1] = np.cos(theta), np.cos(theta)
    m[two_i + 1, two_i], m[two_i, two_i + 1] = np.sin(theta), -np.sin(theta)
    if k % 2:
        raise ValueError("odd")
    return m


def pe_signature_swapped(d_model, max_len):
    """positional_encoding's parameters declared in the other order."""
    return ref.positional_encoding(max_len, d_model)


def shift_cached_by_d_model(k, d_model, _cache={}):  # noqa: B006 (the mistake itself)
    """A cache keyed on d_model alone, in a default argument."""
    if d_model % 2:
        raise ValueError("odd d_model")
    if d_model not in _cache:
        _cache[d_model] = ref.relative_shift(k, d_model)
    return _cache[d_model]


_FIRST_MATRIX: list = []


def shift_first_matrix_kept(k, d_model):
    """A module-level matrix built on the first call and returned ever after."""
    if d_model % 2:
        raise ValueError("odd d_model")
    if not _FIRST_MATRIX:
        _FIRST_MATRIX.append(ref.relative_shift(k, d_model))
    return _FIRST_MATRIX[0]


def pe_linspace_endpoint(max_len, d_model):
    """Positions from np.linspace(0, max_len, max_len): the endpoint included."""
    positions = np.linspace(0, max_len, max_len)[:, None]
    two_i = np.arange(0, d_model, 2)
    angles = positions / 10000.0 ** (two_i / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles[:, : d_model // 2])
    return pe


def pe_denominators_flat_by_positions(max_len, d_model):
    """The angles as two flat vectors multiplied: positions (max_len,) times the
    frequencies (pairs,), no column."""
    freqs = np.exp(-np.arange(0, d_model, 2) * math.log(10000.0) / d_model)
    angles = np.arange(max_len) * freqs
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles[..., : d_model // 2])
    return pe


PEDropoutTwiceNested = _module(
    lambda s, x: s.dropout(s.dropout(x) + s.pe[:, : x.size(1)]), name="dropout_twice"
)
PEDropoutTwiceOnSum = _module(
    lambda s, x: s.dropout(s.dropout(x + s.pe[:, : x.size(1)])), name="dropout_sum_twice"
)
PEDropoutEachTerm = _module(
    lambda s, x: s.dropout(x) + s.dropout(s.pe[:, : x.size(1)].expand_as(x)),
    name="dropout_each",
)
PESqueezed = _module(lambda s, x: s.dropout(x + s.pe[:, : x.size(1)]).squeeze(), name="squeezed")
PESqueezedBatch = _module(
    lambda s, x: s.dropout(x + s.pe[:, : x.size(1)]).squeeze(0), name="squeezed0"
)


MISTAKES_R12F = [
    # arguments in another order: the signature's (keyword call right) or the body's
    Mistake(check_relative_shift, shift_signature_swapped, r"Called with keywords.*another order"),
    Mistake(
        check_relative_shift, shift_body_swapped, r"With k and d_model exchanged.*uses k where"
    ),
    Mistake(
        check_positional_encoding, pe_signature_swapped, r"Called with keywords.*another order"
    ),
    # state kept between calls, told apart from a constant k by two fresh calls
    Mistake(check_relative_shift, shift_cached_by_d_model, r"keeps a result between calls"),
    Mistake(check_relative_shift, shift_first_matrix_kept, r"keeps a result between calls"),
    # positions spaced max_len / (max_len - 1): linspace's endpoint, confirmed on every max_len
    Mistake(
        check_positional_encoding, pe_linspace_endpoint, r"np\.linspace\(0, max_len, max_len\)"
    ),
    # two flat vectors where a column belongs
    Mistake(
        check_positional_encoding,
        pe_denominators_flat_by_positions,
        r"Two flat vectors met element-wise.*column",
    ),
    # dropout's placement, from one training-mode call
    Mistake(check_PositionalEncoding, PEDropoutTwiceNested, r"dropout\(dropout\(x\) \+ PE\)"),
    Mistake(check_PositionalEncoding, PEDropoutTwiceOnSum, r"twice to the sum"),
    Mistake(check_PositionalEncoding, PEDropoutEachTerm, r"to x and to PE separately"),
    # an axis removed only at length 1: a squeeze
    Mistake(check_PositionalEncoding, PESqueezed, r"only when its length is 1.*squeeze"),
    Mistake(check_PositionalEncoding, PESqueezedBatch, r"only when its length is 1.*squeeze"),
]
MISTAKES += MISTAKES_R12F


class PEAnnotatedOrder(PEAnnotated):
    """The Annotated Transformer's own order, dropout (required) before max_len: right
    with keywords, wrong by position."""

    def __init__(self, d_model, dropout, max_len=5000):
        super().__init__(d_model, max_len=max_len, dropout=dropout)


class PEKeywordOnly(ref.PositionalEncoding):
    """max_len and dropout keyword-only (after a `*`): a call by position raises."""

    def __init__(self, d_model, *, max_len=5000, dropout=0.1):
        super().__init__(d_model, max_len=max_len, dropout=dropout)


MISTAKES += [
    # blind round 13: the signature's order, hidden by the keyword calls, told by position
    Mistake(
        check_PositionalEncoding,
        PEAnnotatedOrder,
        r"PositionalEncoding\((\d+), (\d+), 0\.0\) raised ValueError.*although "
        r"PositionalEncoding\(\1, max_len=\2, dropout=0\.0\) was right.*in each other's "
        r"place.*\(d_model, dropout, max_len\)",
    ),
    Mistake(
        check_PositionalEncoding,
        PEKeywordOnly,
        r"^(?!.*each other's place).*PositionalEncoding\(\d+, \d+, 0\.0\) raised TypeError"
        r".*does not take its arguments by position in the order of the signature",
    ),
]

# round 17 (blind round 14): the encoding added only in training mode, and a table
# scaled by sqrt(d_model) (the embedding's scale)
PEOnlyWhenTraining = _module(
    lambda s, x: s.dropout(x + s.pe[:, : x.size(1)]) if s.training else x.clone(),
    name="only_when_training",
)
PEScaledRows = _module(
    lambda s, x: s.dropout(x + math.sqrt(x.size(-1)) * s.pe[:, : x.size(1)]),
    name="scaled_rows",
)

# x itself rescaled (the family of blind23a-b23a-posenc-rescales-x, whose message did not
# say the embeddings come out scaled twice)
PEScalesInput = _module(
    lambda s, x: s.dropout(s.pe[:, : x.size(1)] + x * math.sqrt(s.pe.size(-1))),
    name="scales_input",
)


def pe_angles_by_torch_repeat(max_len, d_model):  # .repeat(1, 2): tiled, not interleaved
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    inv_freq = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = (position * inv_freq).repeat(1, 2)[:, :d_model]  # (max_len, d_model)
    pe = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles[:, 1::2])
    return pe.numpy()


def pe_precedence_of_division(max_len, d_model):  # 10000.0 ** two_i / d_model
    pos = np.arange(max_len)[:, None]
    two_i = np.arange(0, d_model, 2)
    with np.errstate(over="ignore"):
        angles = pos / (10000.0**two_i / d_model)
    pe = np.empty((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)[:, : d_model // 2]
    return pe


def shift_scaled_by_k(k, d_model):  # k copies of one step, added up
    one_step = ref.relative_shift(1, d_model)
    return sum((one_step for _ in range(abs(k))), np.zeros((d_model, d_model))) * np.sign(k)


def shift_bands_through_the_gaps(k, d_model):  # the +-sin bands run on between blocks
    angles = k / 10000.0 ** (np.arange(0, d_model, 2) / d_model)
    m = np.diag(np.cos(np.repeat(angles, 2)))
    for j in range(d_model - 1):
        m[j + 1, j] = np.sin(angles[j // 2])
        m[j, j + 1] = -np.sin(angles[j // 2])
    return m


MISTAKES += [
    Mistake(check_positional_encoding, pe_angles_by_torch_repeat, r"np\.tile\(angles, 2\)"),
    Mistake(
        check_positional_encoding,
        pe_precedence_of_division,
        r"pos / \(10000\^\(2i\) / d_model\): the parenthesis",
    ),
    Mistake(
        check_relative_shift, shift_scaled_by_k, r"times the matrix of a shift by one position"
    ),
    Mistake(
        check_relative_shift,
        shift_bands_through_the_gaps,
        r"^relative_shift: relative_shift\(k=-?\d+, d_model=\d+\) is not what the reference "
        r"gives\. Your matrix has entries between neighbouring pairs, at \(1, 2\), \(2, 1\)",
    ),
    Mistake(
        check_PositionalEncoding,
        PEOnlyWhenTraining,
        r"\(eval mode\) returned x unchanged, but in training mode.*added only in training",
    ),
    Mistake(
        check_PositionalEncoding,
        PEScaledRows,
        r"The rows you add are sqrt\(d_model\) = [\d.]+ times the table's",
    ),
    Mistake(
        check_PositionalEncoding,
        PEScalesInput,
        r"x is multiplied by sqrt\(d_model\) = [\d.]+ before the encoding is added.*scaled "
        r"twice",
    ),
]


# round 18 (blind round 15): an array given to math's functions of one number, a whole
# angle table in a pair's slice, the log of the ratio 10000 / d_model, tiled cosines
def pe_math_sin_per_row(max_len, d_model):  # math.sin on one position's row of angles
    freqs = 1.0 / 10000.0 ** (np.arange(0, d_model, 2) / d_model)  # (pairs,)
    pe = np.zeros((max_len, d_model))
    for pos in range(max_len):
        pe[pos, 0::2] = math.sin(pos * freqs)
        pe[pos, 1::2] = math.cos(pos * freqs[: d_model // 2])
    return pe


def pe_math_exp_frequencies(max_len, d_model):  # math.exp on the exponents' array
    div_term = math.exp(np.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    angles = np.arange(max_len)[:, None] * div_term  # (max_len, pairs)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe


def pe_frequency_per_feature(max_len, d_model):  # np.arange(d_model): (max_len, d_model)
    angles = np.arange(max_len)[:, None] / 10000.0 ** (np.arange(d_model) / d_model)
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


def pe_torch_log_of_ratio(max_len, d_model):  # log(10000 / d_model), a parenthesis moved
    position = torch.arange(max_len, dtype=torch.float64)[:, None]  # (max_len, 1)
    div_term = torch.exp(
        torch.arange(0, d_model, 2, dtype=torch.float64) * -math.log(10000.0 / d_model)
    )
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term[: d_model // 2])
    return pe.numpy()


def shift_cosines_tiled(k, d_model):  # np.tile where np.repeat belongs
    theta = k / 10000.0 ** (np.arange(0, d_model, 2) / d_model)
    m = np.diag(np.tile(np.cos(theta), 2))  # (d_model, d_model)
    for i, angle in enumerate(theta):
        m[2 * i + 1, 2 * i], m[2 * i, 2 * i + 1] = math.sin(angle), -math.sin(angle)
    return m


def shift_odd_features_by_list(k, d_model):  # a list of indices, then list + 1
    two_i = [2 * i for i in range(d_model // 2)]
    theta = k / 10000.0 ** (np.array(two_i) / d_model)
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = np.cos(theta)
    m[two_i + 1, two_i + 1] = np.cos(theta)
    return m


class PETableAttributeThenBuffer(nn.Module):  # self.table, then a buffer of that name
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.table = _table(max_len, d_model).unsqueeze(0)  # (1, max_len, d_model)
        self.register_buffer("table", self.table.clone())
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x + self.table[:, : x.size(1)])


PEDropoutModuleAsP = _module(
    lambda s, x: F.dropout(x + s.pe[:, : x.size(1)], p=s.dropout, training=s.training),
    name="dropout_module_as_p",
)


MISTAKES += [
    Mistake(
        check_relative_shift,
        shift_odd_features_by_list,
        r"raised TypeError: can only concatenate list.*\nA Python list does no arithmetic",
    ),
    Mistake(
        check_PositionalEncoding,
        PETableAttributeThenBuffer,
        r"raised KeyError.*\nregister_buffer\('table', \.\.\.\) refuses a name the module "
        r"already holds as a plain attribute",
    ),
    Mistake(
        check_PositionalEncoding,
        PEDropoutModuleAsP,
        r"instances of 'Dropout'.*\nYour nn\.Dropout module was given where a number belongs",
    ),
    Mistake(
        check_positional_encoding,
        pe_math_sin_per_row,
        r"raised TypeError.*\nmath\.sin takes a single number.*use np\.sin, which works",
    ),
    Mistake(
        check_positional_encoding,
        pe_math_exp_frequencies,
        r"raised TypeError.*\nmath\.exp takes a single number.*use np\.exp",
    ),
    Mistake(
        check_positional_encoding,
        pe_frequency_per_feature,
        r"raised ValueError.*\nThe value has d_model = \d+ columns, one per feature, but the "
        r"slice holds \d+, one per pair.*np\.sin\(angles\[:, 0::2\]\).*np\.arange\(d_model\)",
    ),
    Mistake(
        check_positional_encoding,
        pe_torch_log_of_ratio,
        r"2·d_model·ln\(10000 / d_model\) / ln 10000 at d_model = \d+: the exp\(log\) form "
        r"with the division inside the logarithm",
    ),
    Mistake(
        check_relative_shift,
        shift_cosines_tiled,
        r"Your diagonal holds the d_model/2 cosines in pair order, then again from the first",
    ),
]


# round 19 (blind round 16): the position and the pair index in each other's place in
# the angle, and a pair whose angle is 0 at every position (sin 0, cos 0: written, not
# skipped)
def pe_pair_number_over_position_power(max_len, d_model):
    """i / 10000^(2·pos/d_model), written with torch and the pair number i."""
    pair = torch.arange((d_model + 1) // 2, dtype=torch.float64)  # (ceil(d_model/2),)
    pos = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)  # (max_len, 1)
    angle = pair / 10000 ** (2 * pos / d_model)  # (max_len, ceil(d_model/2))
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(angle), torch.cos(angle[:, : d_model // 2])
    return pe.numpy()


def pe_angle_times_pair_index(max_len, d_model):
    """pos · 2i / 10000^(2i/d_model): a factor that is 0 for pair 0."""
    two_i = np.arange(0, d_model, 2, dtype=np.float64)  # (d_model/2,)
    angles = np.arange(max_len)[:, None] * two_i / 10000.0 ** (two_i / d_model)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


MISTAKES += [
    Mistake(
        check_positional_encoding,
        pe_pair_number_over_position_power,
        r"swapped roles in the angle: yours is i / 10000\^\(2·pos/d_model\)",
    ),
    Mistake(
        check_positional_encoding,
        pe_angle_times_pair_index,
        r"^(?!.*slice start).*features \[0\] are 0 and the features \[1\] are 1 at every "
        r"position.*angle of pair\(s\) \[0\] is 0 at every position",
    ),
]


# round 19 (blind round 16): a default of the given signature changed (hidden by the
# keyword calls), and a table that carries a gradient without being a parameter
class PEDefaultMaxLen1024(ref.PositionalEncoding):
    """A shorter default table, "enough for any sentence": PositionalEncoding(d_model)
    refuses sequences longer than 1024 positions."""

    def __init__(self, d_model, max_len=1024, dropout=0.1):
        super().__init__(d_model, max_len=max_len, dropout=dropout)


class PEDefaultNoDropout(ref.PositionalEncoding):
    """Dropout off by default, a rate the caller must ask for."""

    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__(d_model, max_len=max_len, dropout=dropout)


class PETrackedTable(nn.Module):
    """The table made with requires_grad=True ("so it can adapt"), then registered as a
    buffer: no optimiser sees it, but every output carries a graph into it."""

    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        table = torch.tensor(
            ref.positional_encoding(max_len, d_model), dtype=torch.float32, requires_grad=True
        )
        self.register_buffer("table", table)  # (max_len, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x + self.table[: x.size(1)])


PERowsTrackedInForward = _module(
    lambda s, x: s.dropout(x + s.pe[:, : x.size(1)].clone().requires_grad_()),
    name="rows_tracked_in_forward",
)

MISTAKES += [
    Mistake(
        check_PositionalEncoding,
        PEDefaultMaxLen1024,
        r"PositionalEncoding\(4\), built with its defaults.*raised ValueError.*your default "
        r"max_len is not 5000\. Your default table holds 1024 positions",
    ),
    Mistake(check_PositionalEncoding, PEDefaultNoDropout, r"your default dropout is not 0\.1"),
    Mistake(
        check_PositionalEncoding,
        PETrackedTable,
        r"requires grad.*your buffer `table` has requires_grad on(?!.*nn\.Parameter\))",
    ),
    Mistake(
        check_PositionalEncoding,
        PERowsTrackedInForward,
        r"requires grad.*no trainable parameter and no buffer that needs a gradient, so "
        r"forward makes",
    ),
]


class PENoDefaults(ref.PositionalEncoding):
    """Every argument required: a caller must say max_len and dropout (the course's
    Transformer does); nothing in the course relies on the defaults being there."""

    def __init__(self, d_model, max_len, dropout):
        super().__init__(d_model, max_len=max_len, dropout=dropout)


class PELongerDefault(ref.PositionalEncoding):
    """A longer default table than the signature's: every sequence up to 5000 positions
    still gets its rows."""

    def __init__(self, d_model, max_len=8192, dropout=0.1):
        super().__init__(d_model, max_len=max_len, dropout=dropout)


CORRECT = [
    Correct(check_PositionalEncoding, PENoDefaults),
    Correct(check_PositionalEncoding, PELongerDefault),
    Correct(check_positional_encoding, pe_loops),
    Correct(check_positional_encoding, pe_torch_div_term),
    Correct(check_positional_encoding, pe_torch_float32_result),
    Correct(
        check_positional_encoding, pe_d2l_style, note=r"is float32; the reference gives float64"
    ),
    Correct(check_positional_encoding, pe_numpy_exp_log),
    Correct(check_positional_encoding, pe_float32_cast_back),
    Correct(check_positional_encoding, pe_stack_interleave),
    Correct(check_positional_encoding, pe_complex),
    Correct(check_positional_encoding, pe_feature_loop),
    Correct(check_positional_encoding, pe_cos_as_shifted_sin),
    Correct(check_relative_shift, shift_loops),
    Correct(check_relative_shift, shift_kron),
    Correct(check_relative_shift, shift_float32, note=r"is float32; the reference gives float64"),
    Correct(check_relative_shift, shift_power_of_one_step),
    Correct(check_relative_shift, shift_scipy_style_block_diag),
    Correct(check_PositionalEncoding, PEAnnotated),
    Correct(check_PositionalEncoding, PEOwnFunction),
    Correct(check_PositionalEncoding, PEFloat32Formula),
    Correct(check_PositionalEncoding, PEExpand),
    Correct(check_PositionalEncoding, PE2DBuffer),
    Correct(check_PositionalEncoding, PEFloat64BufferCast),
    Correct(check_PositionalEncoding, PETableInForward, note=r"state dict is empty"),
    Correct(check_PositionalEncoding, PEFrozenParameter),
    Correct(check_PositionalEncoding, PETableRowsWithoutGrad),
]


# ------------------------------------------------ f22 (g1): classes the round-19 cases showed
class PEAddedLengthFirst(ref.PositionalEncoding):  # permuted to add the rows, never back
    def forward(self, x):
        x = x.permute(1, 0, 2)  # (len, batch, d_model)
        return self.dropout(x + self.pe[0, : x.size(0)].unsqueeze(1))


def pe_int_power_root(max_len, d_model):  # 10000 ** (2i) on an int64 array, then its root
    denominators = (10000 ** np.arange(0, d_model, 2)) ** (1.0 / d_model)  # wraps from 2i = 6
    angles = np.arange(max_len)[:, None] / denominators  # (max_len, ceil(d_model / 2))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe


def shift_lower_rows_one_step_further(k, d_model):  # the cosine rows turned by k + 1
    if d_model % 2:
        raise ValueError("d_model must be even")
    two_i = np.arange(0, d_model, 2)
    theta = k / np.power(10000.0, two_i / d_model)
    theta_lower = (k + 1) / np.power(10000.0, two_i / d_model)
    m = np.zeros((d_model, d_model))
    m[two_i, two_i], m[two_i, two_i + 1] = np.cos(theta), -np.sin(theta)
    m[two_i + 1, two_i], m[two_i + 1, two_i + 1] = np.sin(theta_lower), np.cos(theta_lower)
    return m


class PELastRowForAll(ref.PositionalEncoding):  # one index, the last position's row, for all
    def forward(self, x):
        return self.dropout(x + self.pe[:, x.size(1) - 1 : x.size(1)])


class PETableDroppedOnce(ref.PositionalEncoding):  # F.dropout on the table when built
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__(d_model, max_len=max_len, dropout=dropout)
        self.pe = F.dropout(self.pe, dropout)  # a buffer still, with one mask baked in


class PETableDroppedEachCall(ref.PositionalEncoding):  # F.dropout's training=True default
    def forward(self, x):
        return x + F.dropout(self.pe[:, : x.size(1)], self.dropout.p)


MISTAKES += [
    Mistake(
        check_PositionalEncoding,
        PELastRowForAll,
        r"Every position got the same row of the table \(0 -> row (\d+), 1 -> row \1.*\): row \1 "
        r"was added to every token",
    ),
    Mistake(
        check_relative_shift,
        shift_lower_rows_one_step_further,
        r"is not what the reference gives\. In every 2×2 block the upper row turns by the right "
        r"angle w_i·k, but the lower row \(the cosine feature 2i\+1\) turns at another angle",
    ),
    Mistake(
        check_positional_encoding,
        pe_int_power_root,
        r"Columns 0 to 5 are right, and the pair from column 6 on is wrong: at 2i = 6, "
        r"10000\^\(2i\) = 10\^24 is past the largest int64",
    ),
    Mistake(
        check_PositionalEncoding,
        PETableDroppedOnce,
        r"the same places for every sequence of the batch and on every call: the stored "
        r"table itself went through dropout, once, when the module was built",
    ),
    Mistake(
        check_PositionalEncoding,
        PETableDroppedEachCall,
        r"^(?![\s\S]*when the module was built)[\s\S]*the table goes through a dropout of "
        r"its own that ignores eval mode",
    ),
    Mistake(
        check_PositionalEncoding,
        PEAddedLengthFirst,
        r"Your numbers are the right ones, but with axes 0 and 1 swapped.*never transposed "
        r"back.*Yours is \(len, batch, d_model\), the sequence-first layout",
    ),
]


# ------------------------------------------------------------------- round 34 (f34g0106)
class PEHalfEncoding(ref.PositionalEncoding):  # the table's rows halved before adding
    def forward(self, x):
        return self.dropout(x + 0.5 * self.pe[:, : x.size(1)])


class PEEncodingOverSqrtD(ref.PositionalEncoding):  # attention's 1/sqrt(d) put on the rows
    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)] / math.sqrt(self.pe.size(-1)))


class PEAveraged(ref.PositionalEncoding):  # the mean of x and the encoding, not their sum
    def forward(self, x):
        return self.dropout((x + self.pe[:, : x.size(1)]) / 2)


class PEWrongBase(nn.Module):  # a wrong table added once: no weighting of the terms fits
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        table = ref.positional_encoding(max_len, d_model)
        positions = np.arange(max_len)[:, None]
        table[:, 0::2] = np.sin(positions / np.power(1000.0, np.arange(0, d_model, 2) / d_model))
        self.register_buffer("pe", torch.tensor(table, dtype=torch.float32).unsqueeze(0))

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)])


MISTAKES += [
    # checking.term_factors: the output as a weighted sum of x and the table's rows
    Mistake(
        check_PositionalEncoding,
        PEHalfEncoding,
        r"weights are off: `PE\[:len\]` is multiplied by 0\.5 = 1/2\. The output is "
        r"x \+ PE\[:len\]",
    ),
    Mistake(
        check_PositionalEncoding,
        PEEncodingOverSqrtD,
        r"^(?![\s\S]*`x` is)[\s\S]*`PE\[:len\]` is multiplied by 0\.\d+ = 1/(sqrt\(8\)|4)",
    ),
    Mistake(
        check_PositionalEncoding,
        PEAveraged,
        r"`x` is multiplied by 0\.5 = 1/2; `PE\[:len\]` is multiplied by 0\.5 = 1/2",
    ),
    # a wrong table is no wrong weight: the weighted sum is never claimed
    Mistake(
        check_PositionalEncoding,
        PEWrongBase,
        r"^(?![\s\S]*weighted sum)[\s\S]*(The encoding you add is wrong|differs from the "
        r"reference|not what the reference gives)",
    ),
]


class PESliceKeptPrivately(ref.PositionalEncoding):  # the first call's rows, under a _name
    def forward(self, x):
        if not hasattr(self, "_rows"):
            self._rows = self.pe[:, : x.size(1)]
        return self.dropout(x + self._rows[:, : x.size(1)])


MISTAKES += [
    # a tensor made by forward and kept, whatever its name (a private one too)
    Mistake(
        check_PositionalEncoding,
        PESliceKeptPrivately,
        r"Your module holds `_rows`, of shape \(1, \d+, \d+\), which it did not hold when it "
        r"was built: forward made it on an earlier call",
    ),
]


# ------------------------------------- the divisors read from the table; the cosines' angles
def pe_divisors_evenly_spaced_to_100(max_len, d_model):  # linear divisors, 1 .. 100
    count = (d_model + 1) // 2
    step = 99.0 / max(count - 1, 1)
    divisors = 1.0 + step * np.arange(count)
    angles = np.arange(max_len)[:, None] / divisors
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return table


def pe_cosines_from_a_quarter_of_the_angles(max_len, d_model):  # angles[:, : d_model // 4]
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    angles = positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 4])
    return table


MISTAKES += [
    # the family of blind29a-pe-wavelengths-linear: evenly spaced divisors, read from the
    # learner's own table (on the 4-wide table both series fit: a wider one tells them apart)
    Mistake(
        check_positional_encoding,
        pe_divisors_evenly_spaced_to_100,
        r"[Yy]our pairs divide pos by 1, [\d., ]*100 \(read from your table's angles at "
        r"position 1\): evenly spaced, a linear series from 1 to 100",
    ),
    # the cosines' slice short (mutant-positional_encoding-10's family): the sines are right
    Mistake(
        check_positional_encoding,
        pe_cosines_from_a_quarter_of_the_angles,
        r"^(?![\s\S]*too few frequencies)[\s\S]*Your sine columns are right, but the cosine "
        r"columns get fewer angles than there are pairs[\s\S]*are d_model // 4: the slice "
        r"angles\[:, : d_model // 4\] where d_model // 2 belongs",
    ),
    # a sibling: too few angles for the sines as well keeps its own message
    Mistake(
        check_positional_encoding,
        pe_pair_indices_step_4,
        r"^(?![\s\S]*Your sine columns are right)[\s\S]*too few frequencies",
    ),
]

test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# ------------------------------------------------------------------ oracles
@pytest.mark.parametrize(
    "max_len,d_model", [(1, 1), (7, 2), (30, 3), (50, 16), (100, 65), (64, 512)]
)
def test_reference_table_matches_the_formula(max_len, d_model):
    got = ref.positional_encoding(max_len, d_model)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    assert got.shape == (max_len, d_model)
    np.testing.assert_allclose(got, oracle_pe(max_len, d_model), rtol=0, atol=1e-12)


def test_reference_worked_example():
    """d_model = 4: pair 0 has frequency 1, pair 1 frequency 1/100 (computed by hand)."""
    pe = ref.positional_encoding(3, 4)
    np.testing.assert_allclose(pe[0], [0.0, 1.0, 0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(
        pe[1], [0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004], atol=1e-10
    )
    np.testing.assert_allclose(
        pe[2], [0.9092974268, -0.4161468365, 0.0199986667, 0.9998000067], atol=1e-10
    )


def test_reference_wavelengths_span_2pi_to_10000_2pi():
    d_model = 512
    pe = ref.positional_encoding(2, d_model)
    freqs = np.arcsin(pe[1, 0::2])  # at pos = 1 the angle is the frequency (all < pi/2)
    wavelengths = 2 * np.pi / freqs
    assert wavelengths[0] == pytest.approx(2 * np.pi)
    assert wavelengths[-1] == pytest.approx(2 * np.pi * 10000 ** ((d_model - 2) / d_model))
    assert np.all(np.diff(np.log(wavelengths)) > 0)  # a geometric progression, increasing


@pytest.mark.parametrize(("d_model", "length"), [(128, 8.0), (512, 16.0)])
def test_every_row_has_length_sqrt_d_model_over_2(d_model, length):
    """Question 2's answer, from the formula: 8 for d_model = 128 (and the 16 of lesson
    02's printout for 512), at every position."""
    lengths = np.linalg.norm(oracle_pe(300, d_model), axis=1)
    np.testing.assert_allclose(lengths, length, rtol=1e-12)
    assert QUIZ_ROW_LENGTH.answer == 8


@pytest.mark.parametrize("d_model", [2, 4, 16, 64])
def test_reference_shift_moves_every_position(d_model):
    """The property the paper cites: PE[pos + k] = PE[pos] @ M(k) for every pos and k."""
    pe = oracle_pe(300, d_model)
    for k in (-40, -7, -1, 0, 1, 2, 5, 33, 100):
        m = ref.relative_shift(k, d_model)
        positions = np.arange(max(0, -k), min(300, 300 - k))
        np.testing.assert_allclose(pe[positions] @ m, pe[positions + k], atol=1e-9)


def test_reference_shift_is_a_group_of_rotations():
    """Question 1's answer: one matrix per offset, negative ones included."""
    d_model = 12
    m3, m5, m8 = (ref.relative_shift(k, d_model) for k in (3, 5, 8))
    np.testing.assert_allclose(m3 @ m5, m8, atol=1e-12)  # shifting by 3 then 5 = shifting by 8
    np.testing.assert_allclose(m3 @ m3.T, np.eye(d_model), atol=1e-12)  # a rotation
    np.testing.assert_allclose(ref.relative_shift(-3, d_model), m3.T, atol=1e-12)
    np.testing.assert_allclose(ref.relative_shift(0, d_model), np.eye(d_model), atol=1e-15)
    with pytest.raises(ValueError):
        ref.relative_shift(1, 7)
    assert QUIZ_SHIFT.answer == "c"


def test_reference_dot_products_depend_only_on_the_offset():
    """sin a sin b + cos a cos b = cos(a - b): PE[p]·PE[q] = sum_i cos(w_i (p - q))."""
    d_model = 32
    pe = oracle_pe(40, d_model)
    w = 1 / 10000 ** (np.arange(0, d_model, 2) / d_model)
    offsets = np.arange(40)[:, None] - np.arange(40)[None, :]
    expected = np.cos(offsets[..., None] * w).sum(-1)
    np.testing.assert_allclose(pe @ pe.T, expected, atol=1e-9)


def test_reference_module_adds_the_table():
    module = ref.PositionalEncoding(8, max_len=20, dropout=0.1)
    state = module.state_dict()
    assert list(state) == ["pe"]
    assert state["pe"].shape == (1, 20, 8) and state["pe"].dtype == torch.float32
    assert not list(module.parameters())
    module.eval()
    x = torch.randn(3, 11, 8, generator=torch.Generator().manual_seed(0))
    expected = x + torch.tensor(oracle_pe(11, 8), dtype=torch.float32)
    torch.testing.assert_close(module(x), expected, atol=1e-6, rtol=1e-6)
    with pytest.raises(ValueError, match="exceeds max_len"):
        module(torch.zeros(1, 21, 8))


def test_reference_module_matches_the_annotated_transformer():
    """Same table and the same output as the Annotated Transformer's module, dropout off."""
    ours = ref.PositionalEncoding(16, max_len=50, dropout=0.0).eval()
    theirs = PEAnnotatedOrder(16, dropout=0.0, max_len=50).eval()
    torch.testing.assert_close(
        ours.state_dict()["pe"], theirs.state_dict()["pe"], atol=2e-5, rtol=0
    )
    x = torch.randn(2, 33, 16, generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(ours(x), theirs(x), atol=2e-5, rtol=0)


def test_reference_module_dropout_acts_on_the_sum():
    module = ref.PositionalEncoding(8, max_len=20, dropout=0.5).train()
    x = torch.randn(4, 10, 8, generator=torch.Generator().manual_seed(1))
    out = module(x)
    total = x + module.state_dict()["pe"][:, :10]
    kept = out != 0
    torch.testing.assert_close(out[kept], 2 * total[kept])
    assert 0.3 < float((~kept).float().mean()) < 0.7
    # the two ends that the check relies on, with no randomness in the outcome
    torch.testing.assert_close(ref.PositionalEncoding(8, 20, 1.0).train()(x), torch.zeros_like(x))
    torch.testing.assert_close(
        ref.PositionalEncoding(8, 20, 0.0).train()(x), ref.PositionalEncoding(8, 20, 0.0).eval()(x)
    )


def test_a_pair_of_mistakes_is_named_only_when_every_case_agrees():
    """np.arange(0, d_model, 3) for the 2i: at d_model = 4 (the first case) its exponents
    are 0 and 3/4, and 10000^(3/4) = 1000^(4/4), the table of base 1000 with a doubled
    exponent, a pair the check knows; the other cases (where this code does not even run)
    tell them apart, so no pair is named (the first version named it from one case)."""

    def pe_step_three(max_len, d_model):
        positions = np.arange(max_len, dtype=np.float64)[:, None]
        angles = positions / np.power(10000.0, np.arange(0, d_model, 3) / d_model)
        pe = np.zeros((max_len, d_model))
        pe[:, 0::2] = np.sin(angles)
        pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
        return pe

    for hidden in (False, True):
        with pytest.raises(CheckFailure) as failure:
            check_positional_encoding(pe_step_three, hidden=hidden)
        assert "Two mistakes" not in failure.value.message


@pytest.mark.parametrize(
    "wrong",
    [
        _module(_f_dropout_always, name="f_dropout_in_eval"),  # counts of zeroed entries
        _module(_right_forward, dropout_p=0.1, name="hard_coded_dropout"),
    ],
    ids=["f_dropout_in_eval", "hard_coded_dropout"],
)
@pytest.mark.parametrize("hidden", [False, True])
def test_a_random_answer_gets_the_same_message_whatever_the_global_stream(wrong, hidden):
    """The check seeds the global torch stream before each call whose output it reports:
    a dropout the learner left on draws the same mask whatever state the stream was in,
    so the same answer always gets the same message (the same counts)."""
    messages = []
    for seed in (1, 12345):
        torch.manual_seed(seed)
        torch.rand(seed % 7 + 1)  # and a stream moved on by a different amount
        with pytest.raises(CheckFailure) as failure:
            check_PositionalEncoding(wrong, hidden=hidden)
        messages.append(str(failure.value))
    assert "entries are 0" in messages[0]
    assert messages[0] == messages[1]


def test_quiz_row_length_names_a_halved_square_root():
    """√128 / 2 (the halving outside the root) is told what it did, not just 'wrong'."""
    from transformer_course.checks.positional_encoding import check_quiz_row_length

    with pytest.raises(CheckFailure, match=r"square root of 128, then halved"):
        check_quiz_row_length(lambda: math.sqrt(128) / 2)
