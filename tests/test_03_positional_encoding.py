"""Lesson 03, positional encoding: classic mistakes must fail with the intended
message in both the visible and the hidden check, correct variants must pass
both, and the reference must agree with independent oracles (the paper's
formula evaluated point by point in plain Python, the angle-addition identities,
a hand-computed worked example)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checking import CheckFailure
from transformer_course.checks.positional_encoding import (
    check_positional_encoding,
    check_PositionalEncoding,
    check_relative_shift,
)
from transformer_course.reference import positional_encoding as ref

BOTH = pytest.mark.parametrize("hidden", [False, True], ids=["visible", "hidden"])


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
    np.testing.assert_allclose(pe[1], [0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004],
                               atol=1e-10)  # fmt: skip
    np.testing.assert_allclose(pe[2], [0.9092974268, -0.4161468365, 0.0199986667, 0.9998000067],
                               atol=1e-10)  # fmt: skip


def test_reference_wavelengths_span_2pi_to_10000_2pi():
    d_model = 512
    pe = ref.positional_encoding(2, d_model)
    freqs = np.arcsin(pe[1, 0::2])  # at pos = 1 the angle is the frequency (all < pi/2)
    wavelengths = 2 * np.pi / freqs
    assert wavelengths[0] == pytest.approx(2 * np.pi)
    assert wavelengths[-1] == pytest.approx(2 * np.pi * 10000 ** ((d_model - 2) / d_model))
    assert np.all(np.diff(np.log(wavelengths)) > 0)  # a geometric progression, increasing


@pytest.mark.parametrize("d_model", [2, 4, 16, 64])
def test_reference_shift_moves_every_position(d_model):
    """The property the paper cites: PE[pos + k] = PE[pos] @ M(k) for every pos and k."""
    pe = oracle_pe(300, d_model)
    for k in (-40, -7, -1, 0, 1, 2, 5, 33, 100):
        m = ref.relative_shift(k, d_model)
        positions = np.arange(max(0, -k), min(300, 300 - k))
        np.testing.assert_allclose(pe[positions] @ m, pe[positions + k], atol=1e-9)


def test_reference_shift_is_a_group_of_rotations():
    d_model = 12
    m3, m5, m8 = (ref.relative_shift(k, d_model) for k in (3, 5, 8))
    np.testing.assert_allclose(m3 @ m5, m8, atol=1e-12)  # shifting by 3 then 5 = shifting by 8
    np.testing.assert_allclose(m3 @ m3.T, np.eye(d_model), atol=1e-12)  # a rotation
    np.testing.assert_allclose(ref.relative_shift(-3, d_model), m3.T, atol=1e-12)
    np.testing.assert_allclose(ref.relative_shift(0, d_model), np.eye(d_model), atol=1e-15)
    with pytest.raises(ValueError):
        ref.relative_shift(1, 7)


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
    assert dict(module.named_buffers())["pe"].shape == (1, 20, 8)
    assert dict(module.named_buffers())["pe"].dtype == torch.float32
    assert not list(module.parameters())
    assert "pe" in module.state_dict()
    module.eval()
    x = torch.randn(3, 11, 8, generator=torch.Generator().manual_seed(0))
    expected = x + torch.tensor(oracle_pe(11, 8), dtype=torch.float32)
    torch.testing.assert_close(module(x), expected, atol=1e-6, rtol=1e-6)
    with pytest.raises(ValueError, match="exceeds max_len"):
        module(torch.zeros(1, 21, 8))


def test_reference_module_dropout_acts_on_the_sum():
    module = ref.PositionalEncoding(8, max_len=20, dropout=0.5).train()
    x = torch.randn(4, 10, 8, generator=torch.Generator().manual_seed(1))
    out = module(x)
    total = x + module.pe[:, :10]
    kept = out != 0
    torch.testing.assert_close(out[kept], 2 * total[kept])
    assert 0.3 < float((~kept).float().mean()) < 0.7


def test_checks_pass_the_reference_and_leave_the_global_rng_alone():
    state = torch.get_rng_state()
    np_state = np.random.get_state()[1].copy()  # noqa: NPY002
    for hidden in (False, True):
        check_positional_encoding(ref.positional_encoding, hidden=hidden)
        check_relative_shift(ref.relative_shift, hidden=hidden)
        check_PositionalEncoding(ref.PositionalEncoding, hidden=hidden)
    assert torch.equal(torch.get_rng_state(), state)
    assert np.array_equal(np.random.get_state()[1], np_state)  # noqa: NPY002


# ----------------------------------------------------------------- the stubs
def _stub(*args, **kwargs):
    raise NotImplementedError()


class StubModule(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        raise NotImplementedError()


@BOTH
@pytest.mark.parametrize(
    "check,fn",
    [(check_positional_encoding, _stub), (check_relative_shift, _stub),
     (check_PositionalEncoding, StubModule)],
    ids=["positional_encoding", "relative_shift", "PositionalEncoding"],
)  # fmt: skip
def test_untouched_stub_says_not_implemented(check, fn, hidden):
    with pytest.raises(CheckFailure, match="not implemented yet"):
        check(fn, hidden=hidden)


# ======================================================= positional_encoding
def _angles(max_len, d_model, dtype=np.float64):
    pos = np.arange(max_len, dtype=dtype)[:, None]  # (max_len, 1)
    return pos / np.power(dtype(10000.0), np.arange(0, d_model, 2, dtype=dtype) / dtype(d_model))


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
    """The exp/log div_term of many PyTorch implementations, in float32."""
    position = torch.arange(max_len).unsqueeze(1)  # (max_len, 1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term[: d_model // 2])
    return pe.numpy().astype(np.float64)


def pe_numpy_exp_log(max_len, d_model):
    angles = np.arange(max_len)[:, None] * np.exp(
        -np.log(10000.0) * np.arange(0, d_model, 2) / d_model
    )
    pe = np.empty((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)[:, : d_model // 2]
    return pe


def pe_float32(max_len, d_model):
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


PE_CORRECT = [pe_loops, pe_torch_div_term, pe_numpy_exp_log, pe_float32, pe_stack_interleave,
              pe_complex, pe_feature_loop]  # fmt: skip


@BOTH
@pytest.mark.parametrize("fn", PE_CORRECT, ids=lambda f: f.__name__)
def test_positional_encoding_correct_variants_pass(fn, hidden):
    check_positional_encoding(fn, hidden=hidden)


def _interleave(sin, cos, d_model):
    pe = np.zeros((sin.shape[0], d_model))
    pe[:, 0::2] = sin
    pe[:, 1::2] = cos[:, : d_model // 2]
    return pe


def pe_swapped(max_len, d_model):
    pe = np.zeros((max_len, d_model))
    angles = _angles(max_len, d_model)
    pe[:, 0::2] = np.cos(angles)
    pe[:, 1::2] = np.sin(angles[:, : d_model // 2])
    return pe


def pe_concatenated(max_len, d_model):
    angles = _angles(max_len, d_model)
    return np.concatenate([np.sin(angles), np.cos(angles[:, : d_model // 2])], axis=1)


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


def pe_transposed(max_len, d_model):
    return ref.positional_encoding(max_len, d_model).T


def pe_float32_dtype(max_len, d_model):
    return ref.positional_encoding(max_len, d_model).astype(np.float32)


def pe_tensor(max_len, d_model):
    return torch.tensor(ref.positional_encoding(max_len, d_model))


def pe_precedence(max_len, d_model):
    pos = np.arange(max_len)[:, None]
    i = np.arange((d_model + 1) // 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        angles = pos / (10000**2 * i / d_model)
    return _interleave(np.sin(angles), np.cos(angles), d_model)


def pe_no_sin(max_len, d_model):
    angles = _angles(max_len, d_model)
    return _interleave(angles, np.cos(angles), d_model)


PE_MISTAKES = [
    (pe_swapped, "swapped"),
    (pe_concatenated, "concatenated .*tensor2tensor.*interleave"),
    (pe_i_not_2i, r"i/d_model where the formula has 2i/d_model"),
    (pe_column_index, r"feature index j = 2i\+1"),
    (pe_doubled, "exponent is doubled"),
    (pe_integer_division, "integer division"),
    (pe_base_1000, "base is 1000"),
    (pe_multiplied, r"\*divided\*"),
    (pe_positions_from_1, "Positions start at 1"),
    (pe_odd_crash, r"(?s)raised ValueError.*odd d_model"),
    (pe_odd_last_zero, r"no cosine partner\. Yours is all zeros"),
    (pe_odd_last_cos, r"no cosine partner\. Yours holds a cosine"),
    (pe_transposed, "transposed"),
    (pe_float32_dtype, "dtype float64"),
    (pe_tensor, "torch.Tensor"),
    (pe_precedence, "NaN or inf.*parentheses"),
    (pe_no_sin, r"outside \[-1, 1\]"),
]


@BOTH
@pytest.mark.parametrize("fn,message", PE_MISTAKES, ids=[f.__name__ for f, _ in PE_MISTAKES])
def test_positional_encoding_mistakes_fail(fn, message, hidden):
    with pytest.raises(CheckFailure, match=message):
        check_positional_encoding(fn, hidden=hidden)


# ============================================================ relative_shift
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
    return m.astype(np.float64)


SHIFT_CORRECT = [shift_loops, shift_kron, shift_float32]


@BOTH
@pytest.mark.parametrize("fn", SHIFT_CORRECT, ids=lambda f: f.__name__)
def test_relative_shift_correct_variants_pass(fn, hidden):
    check_relative_shift(fn, hidden=hidden)


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


def shift_float32_dtype(k, d_model):
    return ref.relative_shift(k, d_model).astype(np.float32)


SHIFT_MISTAKES = [
    (shift_transposed, "wrong sign.*transpose"),
    (shift_angle_w, "shift for k = 1"),
    (shift_angle_k, "same angle k"),
    (shift_i_not_2i, r"10000\^\(i/d_model\)"),
    (shift_concatenated, "concatenated layout"),
    (shift_sin_on_diagonal, r"PE\[pos\] @ M should equal PE\[pos \+ -?\d+\]"),
    (shift_dense, "block diagonal"),
    (shift_no_error_for_odd, "instead of raising ValueError"),
    (shift_index_error_for_odd, "raised IndexError.*raise a ValueError yourself"),
    (shift_float32_dtype, "dtype float64"),
]


@BOTH
@pytest.mark.parametrize("fn,message", SHIFT_MISTAKES, ids=[f.__name__ for f, _ in SHIFT_MISTAKES])
def test_relative_shift_mistakes_fail(fn, message, hidden):
    with pytest.raises(CheckFailure, match=message):
        check_relative_shift(fn, hidden=hidden)


# ======================================================== PositionalEncoding
def _table(max_len, d_model):
    return torch.tensor(ref.positional_encoding(max_len, d_model), dtype=torch.float32)


class PEReference(ref.PositionalEncoding):
    pass


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


PE_MODULE_CORRECT = [PEReference, PEFloat32Formula, PEExpand]


@BOTH
@pytest.mark.parametrize("cls", PE_MODULE_CORRECT, ids=lambda c: c.__name__)
def test_module_correct_variants_pass(cls, hidden):
    check_PositionalEncoding(cls, hidden=hidden)


def _module(forward, *, table=None, parameter=False, dropout_p=None, register=True):
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

    return Wrong


def _right_forward(self, x):
    return self.dropout(x + self.pe[:, : x.size(1)])


def _inplace(self, x):
    x += self.pe[:, : x.size(1)]
    return self.dropout(x)


def _seq_first_forward(self, x):
    return self.dropout(x + self.pe[: x.size(0)])


def _f_dropout_always(self, x):
    return F.dropout(x + self.pe[:, : x.size(1)], self.dropout.p)


PE_MODULE_MISTAKES = [
    (_module(lambda s, x: s.dropout(s.pe[:, : x.size(1)].expand_as(x))), "without adding x"),
    (_module(lambda s, x: s.pe[:, : x.size(1)]), "without adding x"),
    (_module(lambda s, x: s.dropout(x)), "returned x unchanged"),
    (_module(lambda s, x: s.dropout(x * s.pe[:, : x.size(1)])), "multiplied"),
    (_module(lambda s, x: s.dropout(x + s.pe)), "first len rows"),
    (_module(lambda s, x: s.dropout(x + s.pe[: x.size(1)])), "first len rows"),
    (_module(lambda s, x: s.dropout(x * x.size(-1) ** 0.5 + s.pe[:, : x.size(1)])),
     r"sqrt\(d_model\).*lesson 02"),
    (_module(lambda s, x: s.dropout(x) + s.pe[:, : x.size(1)]), r"\*before\* adding"),
    (_module(lambda s, x: x + s.dropout(s.pe[:, : x.size(1)])), "encoding alone"),
    (_module(lambda s, x: x + s.pe[:, : x.size(1)]), "dropout was not applied"),
    (_module(_f_dropout_always), "training=True"),
    (_module(_right_forward, dropout_p=0.1), "ignore the `dropout` argument"),
    (_module(_inplace), r"changed its argument `x` in place"),
    (_module(_right_forward, parameter=True), "nn.Parameter"),
    (_module(_right_forward, register=False), "no buffer named `pe`"),
    (_module(_seq_first_forward, table=lambda n, d: _table(n, d).unsqueeze(1)), "sequence-first"),
    (_module(_right_forward, table=lambda n, d: _table(n, d)), r"unsqueeze\(0\)"),
    (_module(_right_forward, table=lambda n, d: torch.tensor(ref.positional_encoding(n, d))[None]),
     "dtype=torch.float32"),
    (_module(_right_forward, table=lambda n, d: torch.tensor(ref.positional_encoding(n + 1, d)[1:],
                                                            dtype=torch.float32)[None]),
     r"ref\.positional_encoding"),
]  # fmt: skip
MODULE_IDS = [
    "returns_pe_expanded", "returns_pe", "returns_x", "multiplies", "adds_full_table",
    "slices_batch_axis", "scales_by_sqrt_d_model", "dropout_before_adding", "dropout_on_pe_only",
    "no_dropout", "f_dropout_in_eval", "hard_coded_dropout", "in_place_add", "parameter_not_buffer",
    "plain_attribute", "sequence_first", "no_batch_axis", "float64_buffer", "table_from_pos_1",
]  # fmt: skip


@BOTH
@pytest.mark.parametrize("cls,message", PE_MODULE_MISTAKES, ids=MODULE_IDS)
def test_module_mistakes_fail(cls, message, hidden):
    with pytest.raises(CheckFailure, match=message):
        check_PositionalEncoding(cls, hidden=hidden)
