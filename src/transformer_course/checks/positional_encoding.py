"""Checks for lesson 03: sinusoidal positional encoding.

Three exercises: the table ``positional_encoding(max_len, d_model)``, the
rotation ``relative_shift(k, d_model)`` that moves every position by k, and the
module ``PositionalEncoding(d_model, max_len, dropout)`` that adds the table to a
batch of embeddings.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from transformer_course.checking import Checker, CheckFailure, torch_generator
from transformer_course.reference import positional_encoding as ref
from transformer_course.registry import Exercise

# float32 arithmetic (torch's default, or the exp/log form of 10000^(2i/d_model))
# loses about 1e-7 of the angle per unit of position: at position 255 that is a
# few 1e-5 after sin/cos. Every real mistake is off by far more than 1e-4.
ATOL = 1e-4
RTOL = 1e-5


# ------------------------------------------------------------------ wrong tables
def _table(max_len, d_model, *, base=10000.0, start=0, exponent="2i", swap=False,
           layout="interleaved", multiply=False, odd_last="sin"):  # fmt: skip
    """A sinusoidal table with one classic mistake switched on (the defaults give the right one).

    exponent: "2i" (right), "i" (pair index without the 2), "j" (the column index j,
    so the cos column 2i+1 gets the wrong frequency), "2j" (2 * the even column
    index 2i, i.e. 4i), "int" (2i // d_model: integer division).
    """
    pos = np.arange(start, start + max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    cols = np.arange(d_model)
    pair = cols // 2  # i for columns 2i and 2i+1
    power = {
        "2i": 2 * pair / d_model,
        "i": pair / d_model,
        "j": cols / d_model,
        "2j": 4 * pair / d_model,
        "int": (2 * pair // d_model).astype(np.float64),
    }[exponent]
    scale = np.power(base, power)  # (d_model,)
    angles = pos * scale if multiply else pos / scale  # (max_len, d_model)
    if layout == "concatenated":
        half = (d_model + 1) // 2
        rates = np.power(base, 2 * np.arange(half) / d_model)
        ang = pos / rates  # (max_len, half)
        return np.concatenate([np.sin(ang), np.cos(ang[:, : d_model // 2])], axis=1)
    even = np.sin(angles) if not swap else np.cos(angles)
    odd = np.cos(angles) if not swap else np.sin(angles)
    table = np.where(cols % 2 == 0, even, odd)
    if d_model % 2 and odd_last != "sin":
        table[:, -1] = 0.0 if odd_last == "zero" else np.cos(angles[:, -1])
    return table


def _pe_mistakes(max_len, d_model):
    mistakes = {
        "Sine and cosine are swapped: even features (0, 2, 4, ...) hold the sine, "
        "PE[pos, 2i] = sin(...), and odd features the cosine, PE[pos, 2i+1] = cos(...). "
        "(Row 0 is a give-away: it must read 0, 1, 0, 1, ...)": lambda: _table(
            max_len, d_model, swap=True
        ),
        "The sin and cos halves are concatenated (all sines in features 0..d_model/2-1, then "
        "all cosines). Some codebases (tensor2tensor, for one) use that layout and it carries "
        "the same information, but the paper, and this course, interleave them: sin in "
        "feature 2i, cos in feature 2i+1 (pe[:, 0::2] and pe[:, 1::2]).": lambda: _table(
            max_len, d_model, layout="concatenated"
        ),
        "The exponent uses i/d_model where the formula has 2i/d_model (i counts the "
        "sin/cos *pairs*, so the exponent runs over 0, 2/d_model, 4/d_model, ...). With i "
        "alone the wavelengths stop at about 100·2π instead of reaching 10000·2π.": lambda: _table(
            max_len, d_model, exponent="i"
        ),
        "The cos feature 2i+1 has the wrong frequency: you put the feature index j = 2i+1 "
        "in the exponent. Both members of a pair share one angle, pos / 10000^(2i/d_model) "
        "with the *even* index 2i (use j - j % 2, or compute the angles once per pair).": (
            lambda: _table(max_len, d_model, exponent="j")
        ),
        "The exponent is doubled: you wrote 2·j/d_model with j the even feature index, but "
        "j already *is* 2i (range(0, d_model, 2) gives 2i). Use j/d_model, or 2i/d_model "
        "with i = j // 2.": lambda: _table(max_len, d_model, exponent="2j"),
        "Every pair has the same frequency (1): the exponent 2i/d_model came out as 0. Did "
        "you use integer division (2 * i // d_model)?": lambda: _table(
            max_len, d_model, exponent="int"
        ),
        "The base is 1000; the paper uses 10000 (10000^(2i/d_model)).": lambda: _table(
            max_len, d_model, base=1000.0
        ),
        "The angle is pos *times* 10000^(2i/d_model); it must be pos *divided* by it "
        "(equivalently times 10000^(-2i/d_model), i.e. exp(-2i·ln(10000)/d_model)).": lambda: (
            _table(max_len, d_model, multiply=True)
        ),
        "Positions start at 1; they start at 0 (row 0 is sin(0), cos(0), ... = 0, 1, 0, 1, "
        "...). Use np.arange(max_len).": lambda: _table(max_len, d_model, start=1),
    }
    if d_model % 2:
        last = (
            f"With odd d_model={d_model} the last feature, {d_model - 1}, is even: it is the "
            f"sine of pair i={(d_model - 1) // 2}, which simply has no cosine partner. "
        )
        mistakes[last + "Yours is all zeros there."] = lambda: _table(
            max_len, d_model, odd_last="zero"
        )
        mistakes[last + "Yours holds a cosine there."] = lambda: _table(
            max_len, d_model, odd_last="cos"
        )
    return mistakes


def _pe_property_hint(got: np.ndarray, max_len: int, d_model: int) -> str:
    """Explain the first basic property the learner's table violates."""
    if np.abs(got).max() > 1 + 1e-6:
        return ("Some values are outside [-1, 1], which sin and cos never leave. Is the angle "
                "inside the sin/cos?")  # fmt: skip
    row0 = np.where(np.arange(d_model) % 2 == 0, 0.0, 1.0)
    if not np.allclose(got[0], row0, atol=ATOL):
        return (f"Row 0 (position 0) should be sin(0), cos(0), ... = {np.round(row0[:6], 3)}... "
                f"but yours starts {np.round(got[0, :6], 3)}.")  # fmt: skip
    if not np.allclose(got[:, 0], np.sin(np.arange(max_len)), atol=ATOL):
        return "Feature 0 should be sin(pos): pair i = 0 has frequency 1 (wavelength 2π)."
    pairs = d_model // 2
    if pairs and not np.allclose(got[:, 0 : 2 * pairs : 2] ** 2 + got[:, 1 : 2 * pairs : 2] ** 2,
                                 1.0, atol=10 * ATOL):  # fmt: skip
        return ("Features 2i and 2i+1 should be the sine and cosine of the *same* angle, so "
                "their squares should sum to 1, but they don't.")  # fmt: skip
    return ("Compare with the formula: PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), "
            "PE[pos, 2i+1] = cos(pos / 10000^(2i/d_model)).")  # fmt: skip


# --------------------------------------------------------------- positional_encoding
VISIBLE_PE = [(6, 4), (20, 10), (9, 7)]
HIDDEN_PE = [(12, 8), (64, 32), (17, 9), (256, 128), (30, 3), (1, 6), (5, 1)]


def check_positional_encoding(positional_encoding, *, hidden: bool = False) -> None:
    with Checker("positional_encoding", hidden=hidden) as c:
        c.require_callable(positional_encoding)
        for max_len, d_model in HIDDEN_PE if hidden else VISIBLE_PE:
            what = f"positional_encoding(max_len={max_len}, d_model={d_model})"
            try:
                got = c.call(positional_encoding, max_len, d_model)
            except CheckFailure as error:
                if d_model % 2 and "not implemented yet" not in error.message:
                    c.fail(
                        f"{error.message}\nThis input has an odd d_model: there are "
                        f"{(d_model + 1) // 2} sine features (0, 2, ..., {d_model - 1}) but only "
                        f"{d_model // 2} cosine features, so the cosines take only the first "
                        f"{d_model // 2} angles (e.g. pe[:, 1::2] = np.cos(angles[:, :d_model // 2])).",
                        error.learner_traceback,
                    )
                raise
            if isinstance(got, torch.Tensor):
                c.fail(f"{what} returned a torch.Tensor; return a numpy array "
                       "(`.numpy()`, then `.astype(np.float64)`).")  # fmt: skip
            c.expect_type(
                got, np.ndarray, what, "Return a numpy array of shape (max_len, d_model)."
            )
            shape = tuple(got.shape)
            hint = "Rows are positions, columns are features: (max_len, d_model)."
            if shape == (d_model, max_len):
                hint += " Yours looks transposed."
            elif shape == (1, max_len, d_model):
                hint += " Return the 2-D table; the batch axis is added later, by the module."
            elif len(shape) == 2 and shape[0] == max_len and shape[1] == d_model + 1:
                hint += (
                    " With an odd d_model your table got one extra column: keep d_model of them."
                )
            c.expect_shape(got, (max_len, d_model), what, hint)
            c.expect_dtype(got, np.dtype(np.float64), what,
                           "Build it with np.zeros((max_len, d_model)) (float64 by default), or "
                           "convert with .astype(np.float64).")  # fmt: skip
            expected = ref.positional_encoding(max_len, d_model)
            got64 = got.astype(np.float64)
            hint = (
                "If you wrote `10000 ** 2 * i / d_model`, Python reads it as (10000**2) * i / d_model: "
                "put the exponent in parentheses."
                if not np.isfinite(got64).all()
                else _pe_property_hint(got64, max_len, d_model)
            )
            c.expect_close(got, expected, what, rtol=RTOL, atol=ATOL, hint=hint,
                           mistakes=_pe_mistakes(max_len, d_model))  # fmt: skip


# ------------------------------------------------------------------- relative_shift
def _shift(k, d_model, *, transpose=False, angle="wk", exponent="2i", layout="interleaved"):
    """relative_shift with one mistake switched on (the defaults give the right matrix)."""
    pairs = d_model // 2
    i = np.arange(pairs)
    w = 1.0 / np.power(10000.0, (2 * i if exponent == "2i" else i) / d_model)
    theta = {"wk": w * k, "w": w, "k": np.full(pairs, float(k))}[angle]
    m = np.zeros((d_model, d_model))
    s_idx = 2 * i if layout == "interleaved" else i
    c_idx = 2 * i + 1 if layout == "interleaved" else i + pairs
    m[s_idx, s_idx] = np.cos(theta)
    m[c_idx, c_idx] = np.cos(theta)
    m[s_idx, c_idx] = -np.sin(theta)
    m[c_idx, s_idx] = np.sin(theta)
    return m.T if transpose else m


def _shift_mistakes(k, d_model):
    return {
        "The sine terms have the wrong sign: this matrix shifts by -k (it is the transpose "
        "of the right one). PE[pos] is a *row* vector multiplied from the left, PE[pos] @ M, "
        "and sin(a+b) = sin a·cos b + cos a·sin b, cos(a+b) = cos a·cos b - sin a·sin b give "
        "M[2i, 2i] = M[2i+1, 2i+1] = cos(w_i·k), M[2i+1, 2i] = +sin(w_i·k) and "
        "M[2i, 2i+1] = -sin(w_i·k). (Deriving it for a column vector, M @ PE[pos], gives "
        "the transpose.)": (lambda: _shift(k, d_model, transpose=True)),
        "Each pair rotates by w_i, the shift for k = 1. To move k positions it must rotate "
        "by the angle w_i·k.": lambda: _shift(k, d_model, angle="w"),
        "Every pair rotates by the same angle k. Pair i rotates by w_i·k, with its own "
        "frequency w_i = 1 / 10000^(2i/d_model).": lambda: _shift(k, d_model, angle="k"),
        "The frequencies use 10000^(i/d_model); they are the ones of positional_encoding, "
        "w_i = 1 / 10000^(2i/d_model).": lambda: _shift(k, d_model, exponent="i"),
        "The blocks sit at (i, i + d_model/2), the concatenated layout. In this course a "
        "pair is the interleaved features (2i, 2i+1).": lambda: _shift(
            k, d_model, layout="concatenated"
        ),
    }


def _shift_property_hint(got: np.ndarray, k: int, d_model: int) -> str:
    blocks = np.kron(np.eye(d_model // 2), np.ones((2, 2))) > 0
    if np.abs(np.where(blocks, 0.0, got)).max() > ATOL:
        return ("M should be block diagonal: each 2×2 block (2i, 2i+1) mixes one sine with its "
                "own cosine, and everything outside those blocks is 0.")  # fmt: skip
    pe = ref.positional_encoding(50 + abs(k), d_model)
    lo = max(0, -k)
    moved = pe[lo : lo + 50] @ got
    err = np.abs(moved - pe[lo + k : lo + k + 50]).max()
    return (f"PE[pos] @ M should equal PE[pos + {k}] for every pos; with yours they differ by "
            f"up to {err:.3g}. Check the angles (w_i·k) and where cos and ±sin sit.")  # fmt: skip


VISIBLE_SHIFT = [(3, 4), (5, 8), (-2, 6), (0, 4)]
HIDDEN_SHIFT = [(7, 16), (-11, 10), (100, 32), (0, 4), (1, 2), (4, 64)]


def check_relative_shift(relative_shift, *, hidden: bool = False) -> None:
    with Checker("relative_shift", hidden=hidden) as c:
        c.require_callable(relative_shift)
        for k, d_model in HIDDEN_SHIFT if hidden else VISIBLE_SHIFT:
            what = f"relative_shift(k={k}, d_model={d_model})"
            got = c.call(relative_shift, k, d_model)
            if isinstance(got, torch.Tensor):
                c.fail(f"{what} returned a torch.Tensor; return a numpy array "
                       "(`.numpy()`, then `.astype(np.float64)`).")  # fmt: skip
            c.expect_type(got, np.ndarray, what, "Return a numpy array (d_model, d_model).")
            c.expect_shape(got, (d_model, d_model), what,
                           "M maps one row of the table (d_model features) to another.")  # fmt: skip
            c.expect_dtype(
                got, np.dtype(np.float64), what, "Build it with np.zeros((d_model, d_model))."
            )
            c.expect_close(got, ref.relative_shift(k, d_model), what, rtol=RTOL, atol=ATOL,
                           hint=_shift_property_hint(got.astype(np.float64), k, d_model),
                           mistakes=_shift_mistakes(k, d_model))  # fmt: skip
        for d_model in (7, 1) if hidden else (5,):
            what = f"relative_shift(k=2, d_model={d_model})"
            try:
                result = relative_shift(2, d_model)
            except ValueError:
                c.ok()
                continue
            except NotImplementedError:
                c.call(relative_shift, 2, d_model)  # reports "not implemented yet"
            except Exception as error:
                c.fail(f"{what} raised {type(error).__name__}: {error}. For an odd d_model, raise a "
                       "ValueError yourself (`if d_model % 2: raise ValueError(...)`) so the caller "
                       "learns why.")  # fmt: skip
            c.fail(f"{what} returned {type(result).__name__} instead of raising ValueError. With an "
                   "odd d_model the last feature is a sine without its cosine partner, and no matrix "
                   "turns sin(a) alone into sin(a + w·k): raise ValueError.")  # fmt: skip


# --------------------------------------------------------------- PositionalEncoding
VISIBLE_MODULE = [(8, 20, [(2, 5), (1, 20)])]
HIDDEN_MODULE = [(16, 64, [(3, 17), (2, 64), (1, 1)]), (6, 10, [(4, 10), (5, 3)]),
                 (5, 12, [(2, 7)])]  # fmt: skip
TABLE_HINT = ("Build the table with `ref.positional_encoding(max_len, d_model)`, convert it "
              "with torch.tensor(..., dtype=torch.float32), add the batch axis "
              "(.unsqueeze(0)) and store it with self.register_buffer('pe', table).")  # fmt: skip


def _construct(c: Checker, cls, d_model: int, max_len: int, dropout: float):
    module = c.call(cls, d_model, max_len=max_len, dropout=dropout,
                    call_repr=f"PositionalEncoding({d_model}, max_len={max_len}, "
                              f"dropout={dropout})")  # fmt: skip
    c.expect_type(module, nn.Module, f"PositionalEncoding({d_model}, max_len={max_len})",
                  "Subclass nn.Module and call super().__init__() first.")  # fmt: skip
    return module


def _forward(c: Checker, module, x: torch.Tensor, max_len: int):
    length = x.shape[1]
    call_repr = f"PositionalEncoding.forward(x of shape {tuple(x.shape)})"
    try:
        return c.call(module, x, call_repr=call_repr)
    except CheckFailure as error:
        cause = error.__cause__
        if isinstance(cause, RuntimeError) and "size" in str(cause):
            c.fail(
                f"{error.message}\nx has len={length} positions but the table has "
                f"max_len={max_len}: add only the first len rows, `self.pe[:, :x.size(1)]`. "
                "Slicing `self.pe[:len]` cuts the batch axis (of size 1) instead, and adding "
                "the whole `self.pe` only works when len happens to equal max_len.",
                error.learner_traceback,
            )
        raise


def _check_table(c: Checker, module, d_model: int, max_len: int) -> torch.Tensor:
    name = f"PositionalEncoding({d_model}, max_len={max_len})"
    buffers = dict(module.named_buffers())
    parameters = dict(module.named_parameters())
    if "pe" not in buffers:
        if "pe" in parameters:
            c.fail(f"{name}.pe is an nn.Parameter, so an optimiser would change it. The "
                   "sinusoidal table is fixed, not learned: store it with "
                   "self.register_buffer('pe', table) (it then moves with .to(device) and is "
                   "saved in the state dict, but is never trained).")  # fmt: skip
        c.fail(f"{name} has no buffer named `pe` (its buffers: {sorted(buffers)}). {TABLE_HINT}")
    c.ok()
    c.expect_true(not parameters,
                  f"{name} has learnable parameters {sorted(parameters)}; the sinusoidal "
                  "encoding has none: the table is a buffer, and dropout has no weights.")  # fmt: skip
    pe = buffers["pe"]
    shape = tuple(pe.shape)
    hint = "One batch axis of size 1 in front, so it broadcasts over the batch."
    if shape == (max_len, 1, d_model):
        hint += (" (max_len, 1, d_model) is the sequence-first layout of older PyTorch "
                 "tutorials; this course is batch-first: (batch, len, d_model).")  # fmt: skip
    elif shape == (max_len, d_model):
        hint += " Add it with table.unsqueeze(0)."
    c.expect_shape(pe, (1, max_len, d_model), f"{name}.pe", hint)
    c.expect_dtype(pe, torch.float32, f"{name}.pe",
                   "torch.tensor(a float64 numpy array) stays float64: pass dtype=torch.float32 "
                   "(embeddings are float32, and so is the rest of the model).")  # fmt: skip
    expected = torch.tensor(ref.positional_encoding(max_len, d_model), dtype=torch.float32)
    c.expect_close(pe[0], expected, f"{name}.pe[0]", rtol=RTOL, atol=ATOL, hint=TABLE_HINT)
    return expected


def _check_train_dropout(c: Checker, cls, d_model, max_len, x, table, seed):
    p = 0.5
    module = _construct(c, cls, d_model, max_len, p)
    module.train()
    length = x.shape[1]
    pe = table[:length].unsqueeze(0)  # (1, len, d_model)
    with torch.random.fork_rng(devices=[]):  # dropout draws from the global stream: restore it
        torch.manual_seed(seed)
        out = _forward(c, module, x.clone(), max_len)
    what = f"PositionalEncoding({d_model}, max_len={max_len}, dropout={p}) in training mode"
    c.expect_type(out, torch.Tensor, what)
    c.expect_shape(out, x.shape, what)
    out = out.detach().double()
    x64, pe64 = x.double(), pe.double()

    def pattern(dropped, kept):  # every entry is one or the other
        return bool(torch.all(torch.isclose(out, dropped, atol=ATOL, rtol=RTOL)
                              | torch.isclose(out, kept, atol=ATOL, rtol=RTOL)))  # fmt: skip

    total = x64 + pe64
    if torch.allclose(out, total, atol=ATOL, rtol=RTOL):
        c.fail(f"{what}: the output is exactly x + pe, so dropout was not applied. Call "
               "self.dropout (an nn.Dropout(dropout) made in __init__) on the sum in forward.")  # fmt: skip
    if pattern(torch.zeros_like(total), total / (1 - p)):
        fraction = float((out == 0).double().mean())
        c.expect_true(0.3 < fraction < 0.7,
                      f"{what}: {fraction:.0%} of the entries were zeroed, but dropout={p} "
                      "should zero about half. Did you ignore the `dropout` argument (e.g. a "
                      "hard-coded nn.Dropout(0.1))?")  # fmt: skip
        return
    if pattern(pe64.expand_as(x64), x64 / (1 - p) + pe64):
        c.fail(f"{what}: dropout was applied to x *before* adding the encoding (where an entry "
               "was dropped, the output holds pe). The paper applies dropout to the *sums* of "
               "the embeddings and the positional encodings (section 5.4): "
               "self.dropout(x + pe).")  # fmt: skip
    if pattern(x64, x64 + pe64 / (1 - p)):
        c.fail(f"{what}: dropout was applied to the encoding alone, then x was added. The "
               "paper applies dropout to the *sum*: self.dropout(x + pe).")  # fmt: skip
    c.fail(f"{what}: every output entry should be either 0 (dropped) or (x + pe) / (1 - p) "
           "(kept and rescaled), as self.dropout(x + pe) gives; yours are not.")  # fmt: skip


def check_PositionalEncoding(cls, *, hidden: bool = False) -> None:
    with Checker("PositionalEncoding", hidden=hidden) as c:
        c.require_callable(cls)
        seed = 303 if hidden else 30
        gen = torch_generator(seed)
        for d_model, max_len, inputs in HIDDEN_MODULE if hidden else VISIBLE_MODULE:
            module = _construct(c, cls, d_model, max_len, 0.0)
            table = _check_table(c, module, d_model, max_len)  # (max_len, d_model)
            for batch, length in inputs:
                x = torch.randn(batch, length, d_model, generator=gen)  # (batch, len, d_model)
                x_before = x.clone()
                what = f"PositionalEncoding({d_model}, max_len={max_len}, dropout=0.0)(x) with x of shape {tuple(x.shape)}"
                out = _forward(c, module, x, max_len)
                c.expect_true(torch.equal(x, x_before),
                              f"{what} changed x itself (an in-place `x += ...` or `x.add_`): the "
                              "caller's embeddings must stay as they were. Return x + pe, a new "
                              "tensor.")  # fmt: skip
                c.expect_type(out, torch.Tensor, what, "Return a tensor.")
                hint = "The output has the shape of x: (batch, len, d_model)."
                if tuple(out.shape) == (1, length, d_model):
                    hint += " Yours has batch size 1: did you return the encoding without adding x?"
                c.expect_shape(out, x.shape, what, hint)
                c.expect_dtype(out, torch.float32, what, "x is float32; so must the output be.")
                pe = table[:length].unsqueeze(0)  # (1, len, d_model)
                zeroed = int(((out == 0) & (x + pe != 0)).sum())
                c.expect_close(
                    out, x + pe, what, rtol=RTOL, atol=ATOL,
                    hint=f"{zeroed} entries are exactly 0 although dropout=0.0. Did you ignore the "
                         "`dropout` argument (e.g. a hard-coded nn.Dropout(0.1))?" if zeroed else
                         "Expected x + pe[:, :len]: position p of every sequence in the batch gets "
                         "row p of the table.",
                    mistakes={
                        "You returned the encoding without adding x: the output must be x + pe, "
                        "the token embeddings *plus* their positions.": pe.expand_as(x),
                        "You returned x unchanged: add the table, x + self.pe[:, :x.size(1)].": x,
                        "You multiplied x by the encoding; add it.": x * pe,
                        "Every sequence got one row of the table for all its positions: the row of "
                        "its *batch* index. That's the sequence-first (len, batch, d_model) "
                        "convention of older PyTorch tutorials; here x is (batch, len, d_model), "
                        "so slice the positions, self.pe[:, :x.size(1)].": (
                            x + table[:batch].unsqueeze(1) if batch <= max_len else None
                        ),
                        "x was also scaled by sqrt(d_model). That scaling belongs to the token "
                        "embedding (lesson 02); this module only adds the encoding.": (
                            x * d_model**0.5 + pe
                        ),
                    },
                )  # fmt: skip
            # dropout must be off in eval mode ...
            module = _construct(c, cls, d_model, max_len, 0.5)
            module.eval()
            x = torch.randn(2, min(max_len, 6), d_model, generator=gen)  # (batch, len, d_model)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                out = _forward(c, module, x, max_len)
            c.expect_close(out, x + table[: x.shape[1]].unsqueeze(0),
                           f"PositionalEncoding({d_model}, max_len={max_len}, dropout=0.5) in eval "
                           "mode (module.eval())", rtol=RTOL, atol=ATOL,
                           hint="In eval mode dropout must do nothing. F.dropout(x, p) defaults to "
                                "training=True and drops anyway: use an nn.Dropout module (it "
                                "follows .train()/.eval()) or pass training=self.training.")  # fmt: skip
            # ... and act on the sum x + pe in training mode.
            x = torch.randn(4, min(max_len, 16), d_model, generator=gen)  # (batch, len, d_model)
            _check_train_dropout(c, cls, d_model, max_len, x, table, seed)


__all__ = [
    "check_PositionalEncoding",
    "check_positional_encoding",
    "check_relative_shift",
]


# ---------------------------------------------------------------------------- registry
LESSON = "03_positional_encoding"
EXERCISES = (
    Exercise(
        "positional_encoding",
        check_positional_encoding,
        kind="function",
        points=3,
        minutes=20,
        level=2,
    ),
    Exercise(
        "relative_shift", check_relative_shift, kind="function", points=2, minutes=25, level=3
    ),
    Exercise(
        "PositionalEncoding", check_PositionalEncoding, kind="module", points=2, minutes=15, level=2
    ),
)
