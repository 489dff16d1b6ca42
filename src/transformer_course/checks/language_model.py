# ruff: noqa: B023  (each lambda and closure is called in the loop iteration that made it)
"""Checks for lesson 11: ``next_token_batches``, ``RMSNorm``, ``rotary_embedding``,
``apply_rotary``, ``SwiGLU``, ``CausalSelfAttention``, ``DecoderBlock``, ``GPT``,
``sample`` and the lesson's two concept questions.

Expected values come from the float64 oracles of
:mod:`transformer_course.checking.oracles` (``rms_norm_f``, ``rope_angles_f``,
``rotate_f``, ``swiglu_f``, ``causal_self_attention_f``, ``decoder_block_f``, ``gpt_f``),
written from the papers' formulas with explicit rotations, independent of the reference;
``tests/test_oracles.py`` proves that they and PyTorch's ``nn.RMSNorm`` / ``F.silu`` /
``F.scaled_dot_product_attention`` agree. Each has one keyword ("knob") per classic
mistake.

RoPE's two pairings (adjacent pairs, as in RoFormer and Meta's Llama code; "rotate
half", as in GPT-NeoX and Hugging Face's Llama) are both accepted, consistently applied:
the checks compute both and follow the one the learner's result matches, with a note
for the adjacent one (the reference uses rotate-half). The defining property (q·k after rotation depends only
on the offset m − n) and the causal property (a later token never changes an earlier
position's result) are checked by experiment on the learner's code.

``sample`` is checked by its distribution: thousands of copies of a row of logits in
one call, the empirical frequencies against the exact probabilities (a tolerance of
about six standard deviations), the set of tokens that may appear exactly, and the
``generator`` argument (two generators with the same seed give the same draws).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.generators import seeded_generator
from transformer_course.checking.hints import Hint, dropped_axis_hint
from transformer_course.checking.inputs import randn
from transformer_course.checking.layer_mistakes import (
    add_new,
    norm_choice_mistakes,
    residual_mistakes,
)
from transformer_course.checking.layers import (
    build,
    expect_composite,
    expect_tensor_result,
    mistake_pairs,
    mistake_values,
)
from transformer_course.checking.layouts import match_layout
from transformer_course.checking.localise import (
    agreeing_mistakes,
    candidates_message,
    localise_layer,
    localise_stack,
)
from transformer_course.checking.modules import build_module, random_state, state_shapes
from transformer_course.checking.oracles import (
    as_float64,
    causal_self_attention_f,
    decoder_block_f,
    gpt_f,
    rms_norm_f,
    rope_angles_f,
    rotate_f,
    sample_probabilities_f,
    swiglu_f,
)
from transformer_course.checking.oracles.state import sub
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.exercise import Exercise
from transformer_course.reference import language_model as ref

__all__ = [
    "check_CausalSelfAttention",
    "check_DecoderBlock",
    "check_GPT",
    "check_RMSNorm",
    "check_SwiGLU",
    "check_apply_rotary",
    "check_next_token_batches",
    "check_quiz_rope_values",
    "check_quiz_temperature",
    "check_rotary_embedding",
    "check_sample",
]


def _generator(seed: int) -> torch.Generator:
    return seeded_generator(seed)


def _plain_generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# ======================================================================= next_token_batches
@dataclass(frozen=True)
class _BatchCase:
    seed: int
    num_tokens: int
    block_size: int
    batch_size: int


_VISIBLE_BATCH = [_BatchCase(1, 12, 4, 400), _BatchCase(2, 50, 8, 6)]
_HIDDEN_BATCH = [
    _BatchCase(101, 9, 3, 500),
    _BatchCase(102, 200, 16, 12),
    _BatchCase(103, 6, 5, 50),
]

_TARGETS_SAME = (
    "Your targets are the inputs themselves. The target at each position is the token that "
    "comes next: tokens[s + 1 : s + block_size + 1]."
)
_TARGETS_BEFORE = (
    "Your targets are shifted the wrong way (the token before, not after). The target of "
    "inputs[b, i] = tokens[s + i] is tokens[s + i + 1]."
)
_LAST_START = (
    "The last valid start, num_tokens - block_size - 1, never occurs in many draws: "
    "torch.randint's `high` is exclusive, so draw from 0 to num_tokens - block_size "
    "(torch.randint(0, len(tokens) - block_size, ...))."
)
_GENERATOR = (
    "Two calls with generators seeded alike gave different batches: draw the starts with "
    "the generator you were given (torch.randint(..., generator=generator)), never the "
    "global random stream, so that training is reproducible."
)


_WINDOW_PAST_END = (
    "An index ran past the end of the stream: a window or its targets reach beyond the last "
    "token. The window tokens[s : s + block_size] and its targets tokens[s + 1 : s + "
    "block_size + 1] must both fit, so every start s < num_tokens - block_size: "
    "torch.randint(0, num_tokens - block_size, (batch_size,), generator=generator)."
)


def _window_message(call: str, b: int, row: list[int], num_tokens: int) -> str:
    """What inputs[b] holds, told by the stream positions of its tokens (``row``; -1:
    a token that is not in the stream): a window that runs backwards or steps by more
    than one is named."""
    shown = f"{call}: inputs[{b}] holds the tokens at stream positions {row}"
    rule = "Each row must be tokens[s : s + block_size] for one start s"
    start, length = row[0], len(row)
    if -1 in row:
        return f"{shown} (-1: a token that is not in the stream). {rule}."
    for step in (-1, *range(2, length + 1), *range(-length, -1)):
        if row == [(start + step * i) % num_tokens for i in range(length)]:
            if step == -1:
                return (
                    f"{shown}: your window runs backwards (positions s - i: the offsets "
                    "are subtracted from the start instead of added, or the window is "
                    f"reversed). "
                    f"{rule}: positions s + torch.arange(block_size)."
                )
            return (
                f"{shown}: your window steps by {step} positions, not 1 (positions s + "
                f"{step}·i). {rule}: positions s + torch.arange(block_size)."
            )
    return f"{shown}, not consecutive ones. {rule}."


def _time_major(value: torch.Tensor, shape: tuple[int, int], position: dict[int, int]) -> str:
    """The hint for a result of shape (block_size, batch_size) whose columns are the
    windows (time-major, as a seq-first iterator makes); "" otherwise."""
    if value.dim() != 2 or tuple(value.shape) != shape[::-1] or shape[0] == shape[1]:
        return ""
    for column in value.T:
        row = [position.get(int(t), -1) for t in column]
        if row != list(range(row[0], row[0] + len(row))):
            return ""
    return (
        "It is the transpose of what is asked, (block_size, batch_size), time-major: each "
        "window is a column. The windows are the rows, (batch_size, block_size): stack them "
        "along dim 0 (or drop the .T / transpose)."
    )


def check_next_token_batches(next_token_batches, *, hidden: bool = False) -> None:
    with Checker("next_token_batches", hidden=hidden) as c:
        c.require_callable(next_token_batches)
        for case in _HIDDEN_BATCH if hidden else _VISIBLE_BATCH:
            # distinct values, so that every token's position is known
            tokens = torch.randperm(case.num_tokens, generator=_plain_generator(case.seed)) + 3
            position = {int(t): i for i, t in enumerate(tokens)}
            call = f"next_token_batches(tokens ({case.num_tokens},), {case.block_size}, {case.batch_size}, generator)"
            args = (tokens, case.block_size, case.batch_size)
            got = c.call(
                next_token_batches,
                *args,
                _generator(case.seed),
                call_repr=call,
                hints={"out of bounds for dimension 0": _WINDOW_PAST_END},
            )
            again = c.call(next_token_batches, *args, _generator(case.seed), call_repr=call)
            c.expect_type(got, tuple, call, "Return a pair (inputs, targets).")
            c.expect_true(len(got) == 2, f"{call} should return a pair (inputs, targets).")
            inputs, targets = got
            shape = (case.batch_size, case.block_size)
            for name, value in (("inputs", inputs), ("targets", targets)):
                c.expect_type(value, torch.Tensor, f"{call}: {name}")
                c.expect_shape(value, shape, f"{call}: {name}", _time_major(value, shape, position))
                c.expect_true(
                    value.dtype == torch.int64,
                    f"{call}: {name} should be int64 token ids, not {value.dtype}.",
                )
            starts = []
            for b in range(case.batch_size):
                row = [position.get(int(t), -1) for t in inputs[b]]
                start = row[0]
                consecutive = row == list(range(start, start + case.block_size))
                c.expect_true(
                    consecutive,
                    "" if consecutive else _window_message(call, b, row, case.num_tokens),
                )
                starts.append(start)
                got_next = [position.get(int(t), -2) for t in targets[b]]
                if got_next == row:
                    c.fail(f"{call}: {_TARGETS_SAME}")
                if got_next == [i - 1 for i in row]:
                    c.fail(f"{call}: {_TARGETS_BEFORE}")
                c.expect_true(
                    got_next == [i + 1 for i in row],
                    f"{call}: targets[{b}] should be tokens[s + 1 : s + block_size + 1], the "
                    "inputs moved one token to the right.",
                )
            last = case.num_tokens - case.block_size - 1
            c.expect_true(
                max(starts) <= last and min(starts) >= 0,
                f"{call}: a window starts at {max(starts)}, past the last valid start {last}.",
            )
            if case.batch_size >= 50 * (last + 1) ** 0.5:
                c.expect_true(last in starts, f"{call}: {_LAST_START}")
                c.expect_true(0 in starts, f"{call}: the start 0 never occurs in many draws.")
            c.expect_true(
                torch.equal(again[0], inputs) and torch.equal(again[1], targets), _GENERATOR
            )


# ================================================================================ RMSNorm
@dataclass(frozen=True)
class _NormCase:
    seed: int
    shape: tuple[int, ...]
    eps: float | None  # None: the default
    quiet_token: bool = True  # one token with a tiny root mean square (close to eps)
    dtype: torch.dtype = torch.float32  # of x


_VISIBLE_NORM = [
    _NormCase(1, (2, 3, 8), None),
    _NormCase(2, (4, 6), 0.1),
    _NormCase(3, (2, 5), None, dtype=torch.float64),  # the output keeps x's dtype
]
_HIDDEN_NORM = [
    _NormCase(101, (3, 5, 16), None),
    _NormCase(102, (2, 2, 3, 6), 0.01),
    _NormCase(103, (3, 4, 8), 0.001, dtype=torch.float64),
]
_LOWER_PRECISION = (
    "{what} returned {got} for a float64 input: your RMSNorm computes in a lower precision "
    "and never casts back. Return x's dtype, as nn.RMSNorm does (Llama's RMSNorm computes "
    "in float32 and casts back with .type_as(x))."
)

_MEAN = (
    "You divided by the square root of the mean of x, not of x squared. RMSNorm divides by "
    "the root of the mean of the squares: sqrt(x.pow(2).mean(-1, keepdim=True) + eps)."
)
_SUBTRACT = (
    "You subtracted the mean first: that is LayerNorm (without its bias). RMSNorm does not "
    "re-centre: it divides x itself by sqrt(mean(x**2) + eps)."
)
_SUM = (
    "You used the sum of the squares (x.norm(dim=-1) is its root, the L2 norm); RMSNorm takes "
    "their mean (divide by d_model): the root mean square is x.norm(dim=-1) / sqrt(d_model)."
)
_CENTRED = (
    "You subtracted the mean from x, although the root mean square is taken of x itself: "
    "RMSNorm does not re-centre at all, x / sqrt(mean(x**2) + eps) * weight."
)
_INVERTED = (
    "You multiplied by the root mean square instead of dividing by it (dividing by "
    "torch.rsqrt(...), which is already 1 / sqrt): multiply by rsqrt, or divide by sqrt."
)
_EPS_OUT = (
    "You added eps outside the square root, x / (sqrt(mean(x**2)) + eps). nn.RMSNorm puts it "
    "inside: x / sqrt(mean(x**2) + eps); the two differ for a token with small values, as here."
)
_NO_ROOT = (
    "You divided by the mean of the squares itself, without its square root: RMSNorm divides "
    "by the root mean square, sqrt(x.pow(2).mean(-1, keepdim=True) + eps) (or multiplies by "
    "torch.rsqrt of it)."
)
_EPS_SUBTRACTED = (
    "You subtracted eps under the square root, sqrt(mean(x**2) - eps): add it, "
    "sqrt(mean(x**2) + eps) (a token with small values, as here, then takes the root of a "
    "negative number: NaN)."
)
_GAIN_DIVIDED = (
    "You divided by the learned gain self.weight instead of multiplying by it: "
    "x / sqrt(mean(x**2) + eps) * self.weight."
)
_NO_EPS = "You left out eps: divide by sqrt(mean(x**2) + eps), with eps inside the root."
_AXIS = (
    "You normalised over the wrong axis. Each token is normalised on its own, over its "
    "d_model features: the mean of the squares over the last axis (dim=-1, keepdim=True)."
)
_NO_GAIN = "Your result lacks the learned gain: multiply by self.weight."
_UNIT_OFFSET = (
    "You multiplied by 1 + self.weight (Gemma's convention, where the gain is stored as an "
    "offset from one and initialised to zeros): here the gain is self.weight itself, "
    "initialised to ones; multiply by it."
)
_DEFAULT_EPS = (
    "Your default eps is not 1e-5: make eps=1e-5 the default of the eps parameter (the "
    "contract's; nn.RMSNorm's own default depends on the dtype)."
)
_EPS_IGNORED = "Your RMSNorm ignores its eps argument: store it (self.eps = eps) and use it."


def _norm_mistakes(case_eps: float | None) -> dict[str, dict[str, Any]]:
    eps = 1e-5 if case_eps is None else case_eps
    table: dict[str, dict[str, Any]] = {
        _MEAN: {"statistic": "mean"},
        _SUBTRACT: {"statistic": "variance"},
        _SUM: {"statistic": "sum_square"},
        _EPS_OUT: {"eps_at": "outside"},
        _NO_EPS: {"eps_at": "none"},
        _EPS_SUBTRACTED: {"eps_at": "subtracted"},
        _GAIN_DIVIDED: {"divide_gain": True},
        _AXIS: {"over": "sequence"},
        _AXIS + " ": {"over": "everything"},
        _AXIS + "  ": {"over": "sequence_and_features"},
        _NO_GAIN: {"gain": False},
        _CENTRED: {"centre": True},
        _INVERTED: {"invert": True},
        _UNIT_OFFSET: {"unit_offset": True},
        _NO_ROOT: {"root": False},
    }
    if case_eps is None:
        for wrong in (1e-6, 1e-8, torch.finfo(torch.float32).eps):
            table[_DEFAULT_EPS + " " * len(table)] = {"eps": wrong}
    else:
        table[_EPS_IGNORED] = {"eps": 1e-5}
        table[_EPS_IGNORED + " "] = {"eps": 1e-6}
    return {message: {"eps": eps, **knobs} for message, knobs in table.items()}


def _without_eps(table: dict[str, dict[str, Any]], eps: float) -> dict[str, dict[str, Any]]:
    """The mistakes of ``table`` made with the right eps, without the eps knob (so that
    any two can be combined)."""
    return {
        message: {k: v for k, v in knobs.items() if k != "eps"}
        for message, knobs in table.items()
        if knobs.get("eps") == eps
    }


def _negative_root(got: torch.Tensor, x: torch.Tensor, eps: float) -> str:
    """For NaN tokens: the quantities that are negative on exactly those tokens (their
    root is NaN), among what a root mean square could be taken of by a slip; "" when
    none is, or the result has no NaN."""
    bad = torch.isnan(got.detach().double()).any(dim=-1)  # (...): one per token
    if not bool(bad.any()):
        return ""
    x = x.double()
    candidates = {
        "the mean of x itself (not squared)": x.mean(-1) + eps,
        "the mean of x ** 3 (an odd power: the power is one too high, x ** 2 is meant)": (
            x.pow(3).mean(-1) + eps
        ),
        "the mean of the squares minus eps": x.pow(2).mean(-1) - eps,
    }
    found = [what for what, value in candidates.items() if torch.equal(value < 0, bad)]
    if not found:
        return ""
    tokens = [tuple(int(i) for i in t) for t in bad.nonzero()[:3]]
    return (
        f"Your result is NaN on the tokens {tokens}{' ...' if int(bad.sum()) > 3 else ''}, "
        "exactly those where " + " or ".join(found) + " is negative: the root of a negative "
        "number. RMSNorm takes the root of mean(x ** 2) + eps, positive for every token."
    )


def check_RMSNorm(cls, *, hidden: bool = False) -> None:
    with Checker("RMSNorm", hidden=hidden) as c:
        c.require_callable(cls)
        for case in _HIDDEN_NORM if hidden else _VISIBLE_NORM:
            d_model = case.shape[-1]
            args = (d_model,) if case.eps is None else (d_model, case.eps)
            module, built, state = build(
                c,
                cls,
                *args,
                name="RMSNorm",
                reference=ref.RMSNorm(d_model),
                seed=case.seed,
                mode="eval",
            )
            x = randn(case.shape, case.seed) * (
                0.5 + randn((*case.shape[:-1], 1), case.seed + 1).abs()
            )
            if case.quiet_token:
                x[(0,) * (len(case.shape) - 1)] = randn((d_model,), case.seed + 2, scale=3e-3)
            x = x.to(case.dtype)
            got = c.call(
                module,
                x,
                call_repr=f"{built}(x {tuple(x.shape)})",
                hints=[dropped_axis_hint(x.shape)],
            )
            what = f"{built}(x {tuple(x.shape)}{', float64' if x.dtype == torch.float64 else ''})"
            expect_tensor_result(c, got, tuple(x.shape), what)
            if x.dtype == torch.float64 and got.dtype != torch.float64:
                c.fail(_LOWER_PRECISION.format(what=what, got=got.dtype))
            eps = 1e-5 if case.eps is None else case.eps
            table = _norm_mistakes(case.eps)
            c.expect_close(
                got,
                rms_norm_f(x, state, eps),
                what,
                # float32 precision is enough, also for a float64 input (Llama's RMSNorm
                # computes in float32 and casts back)
                **tolerance(got.dtype, torch.float32),
                mistakes=mistake_values(lambda **k: rms_norm_f(x, state, **k), table),
                pairs=lambda table=table, x=x, state=state, eps=eps: mistake_pairs(
                    lambda **k: rms_norm_f(x, state, eps, **k), _without_eps(table, eps)
                ),
                explain=lambda got=got, x=x, eps=eps: _negative_root(got, x, eps),
            )


# ================================================================================ RoPE
@dataclass(frozen=True)
class _RopeCase:
    length: int
    d_head: int
    base: float | None  # None: the default


_VISIBLE_ROPE = [_RopeCase(6, 8, None), _RopeCase(40, 16, 100.0)]
_HIDDEN_ROPE = [_RopeCase(9, 4, None), _RopeCase(64, 32, None), _RopeCase(5, 12, 500000.0)]

_ONE_INDEXED = (
    "Your positions start at 1. RoPE's first token sits at position 0 (it is not rotated: "
    "angle 0, cos 1, sin 0); use torch.arange(length)."
)
_HALF_EXPONENT = (
    "Your frequencies use base ** (-i / d_head): the exponent is -2i / d_head, i = 0 .. "
    "d_head/2 - 1 (torch.arange(0, d_head, 2) / d_head), the same frequencies as lesson 03."
)
_SIGN = (
    "Your frequencies grow with i (base ** (+2i / d_head)): either the exponent's minus is "
    "missing, or the positions are divided by theta_i instead of multiplied (m / theta_i is "
    "m · base ** (+2i / d_head)). theta_i = base ** (-2i / d_head) shrinks from 1 (pair 0 "
    "turns fastest) to almost 0, and angle[m, i] = m · theta_i."
)
_LINSPACE = (
    "Your exponents run from 0 to exactly 1 (as if divided by d_head - 2): theta_i = "
    "base ** (-2i / d_head), so the last exponent is (d_head - 2) / d_head, not 1."
)
_ODD_EXPONENT = (
    "Your exponents are -(2i + 1) / d_head, shifted by one (odd numbers 1, 3, 5, ...): "
    "theta_i = base ** (-2i / d_head), the even numbers torch.arange(0, d_head, 2) from 0, "
    "so that pair 0 turns by 1 radian per position."
)
_TIMES_D = (
    "Your exponents are -2i · d_head: you multiplied by d_head where the formula divides, "
    "so every pair but pair 0 turns by almost 0. theta_i = base ** (-2i / d_head)."
)
_TIMES_BASE = (
    "You multiplied base by the exponent, base * (-2i / d_head), instead of raising it to "
    "that power: theta_i = base ** (-2i / d_head) (** is the power, * a product)."
)


def _rope_slips(length: int, d_head: int, base: float) -> dict[str, torch.Tensor]:
    """(cos, sin) stacked for the frequency formula's slips of one symbol (float64)."""
    i = torch.arange(d_head // 2, dtype=torch.float64)
    positions = torch.arange(length, dtype=torch.float64)[:, None]
    thetas = {
        _ODD_EXPONENT: base ** (-(2 * i + 1) / d_head),
        _TIMES_D: base ** (-2 * i * d_head),
        _TIMES_BASE: base * (-2 * i / d_head),
    }
    return {
        message: torch.stack([(positions * theta).cos(), (positions * theta).sin()])
        for message, theta in thetas.items()
    }


_SWAPPED_COS_SIN = "You returned (sin, cos): return (cos, sin), in that order."
_IGNORED_BASE = "Your rotary_embedding ignores its base argument: theta_i = base ** (-2i / d_head)."
_ROPE_SHAPE = (
    "rotary_embedding returns one angle per pair: (length, d_head // 2). (Implementations "
    "that rotate half often repeat the table to d_head with torch.cat([angles, angles], -1); "
    "this contract keeps one column per pair, and apply_rotary uses it for both halves.)"
)


def check_rotary_embedding(rotary_embedding, *, hidden: bool = False) -> None:
    with Checker("rotary_embedding", hidden=hidden) as c:
        c.require_callable(rotary_embedding)
        runs = []
        for case in _HIDDEN_ROPE if hidden else _VISIBLE_ROPE:
            args = (case.length, case.d_head) + (() if case.base is None else (case.base,))
            base = 10000.0 if case.base is None else case.base
            call = f"rotary_embedding{args}"
            got = c.call(rotary_embedding, *args, call_repr=call)
            c.expect_type(got, tuple, call, "Return a pair (cos, sin).")
            c.expect_true(len(got) == 2, f"{call} should return a pair (cos, sin).")
            shape = (case.length, case.d_head // 2)
            for name, value in zip(("cos", "sin"), got, strict=True):
                c.expect_type(value, torch.Tensor, f"{call}: {name}")
                c.expect_shape(value, shape, f"{call}: {name}", _ROPE_SHAPE)
                c.expect_floating(value, f"{call}: {name}", preferred=torch.float32)
                if value.dtype != torch.float32:
                    c.fail(
                        f"{call}: {name} has dtype {str(value.dtype).replace('torch.', '')}, "
                        "but the contract asks for float32: apply_rotary multiplies the "
                        "queries and keys by these tables, and a float64 table would promote "
                        "a float32 model's attention to float64. Computing the angles in "
                        "float64 is fine (the reference does); return cos.float() and "
                        "sin.float()."
                    )
            angles = rope_angles_f(case.length, case.d_head, base)
            table = {
                _ONE_INDEXED: {"first": 1},
                _HALF_EXPONENT: {"exponent": "i/d"},
                _SIGN: {"exponent": "+2i/d"},
                _LINSPACE: {"exponent": "2i/(d-2)"},
            }

            def pair(which, case=case, base=base, **knobs):
                a = rope_angles_f(case.length, case.d_head, base, **knobs)
                return (
                    torch.stack([a.cos(), a.sin()])
                    if which == "cs"
                    else torch.stack([a.sin(), a.cos()])
                )

            mistakes = {message: pair("cs", **knobs) for message, knobs in table.items()}
            mistakes[_SWAPPED_COS_SIN] = pair("sc")
            mistakes.update(_rope_slips(case.length, case.d_head, base))
            # with the default base, ignoring it changes nothing: the learner's value
            mistakes[_IGNORED_BASE] = torch.stack(
                [
                    rope_angles_f(case.length, case.d_head).cos(),
                    rope_angles_f(case.length, case.d_head).sin(),
                ]
            )
            runs.append(
                (
                    torch.stack([got[0].double(), got[1].double()]),
                    torch.stack([angles.cos(), angles.sin()]),
                    f"{call}, (cos, sin) stacked",
                    {"rtol": 1e-4, "atol": 1e-4},
                    mistakes,
                    {
                        "pairs": mistake_pairs(lambda pair=pair, **k: pair("cs", **k), table),
                        "axes": ("cos/sin", "len", "pair"),
                    },
                )
            )
        _judge_runs(c, runs)


@dataclass(frozen=True)
class _RotaryCase:
    seed: int
    shape: tuple[int, ...]  # x: (..., len, d_head)
    dtype: torch.dtype = torch.float32


_VISIBLE_ROTARY = [
    _RotaryCase(1, (5, 8)),
    _RotaryCase(2, (2, 3, 6, 8)),
    _RotaryCase(3, (2, 5, 8), torch.bfloat16),  # the result keeps x's dtype
]
_HIDDEN_ROTARY = [
    _RotaryCase(101, (2, 4, 7, 16)),
    _RotaryCase(102, (1, 9, 4), torch.float64),
    _RotaryCase(103, (3, 2, 2, 5, 12)),
    _RotaryCase(104, (1, 2, 6, 8), torch.float16),
]

_ADJACENT_NOTE = (
    "your apply_rotary pairs neighbouring features (2i, 2i + 1), as the RoFormer paper and "
    "Meta's Llama code do; the reference pairs i with i + d_head/2 (rotate half, as GPT-NeoX "
    "and Hugging Face's port of Llama, which permutes the query and key weights to match). "
    "Both are correct when queries and keys use the same one, which the later checks of this "
    "lesson follow; weights trained with one pairing do not work with the other."
)
_DIRECTION = (
    "You rotate the wrong way (by -angle): yours gives (a cos + b sin, -a sin + b cos). Pair "
    "(a, b) must become (a cos - b sin, a sin + b cos): the minus belongs to the first "
    "output's sin term."
)
_NO_MINUS = (
    "Your rotation has no minus sign: (a cos + b sin, a sin + b cos) is not a rotation. Pair "
    "(a, b) becomes (a cos - b sin, a sin + b cos)."
)
_TWO_MINUS = (
    "Both sin terms carry a minus sign: (a cos - b sin, -a sin + b cos) is not a rotation. "
    "Pair (a, b) becomes (a cos - b sin, a sin + b cos)."
)
_MIXED = (
    "Your pairing is mixed: you take the pairs one way (halves or neighbours) and put the "
    "rotated values back the other way. Write the result back in the same positions the pair "
    "came from."
)
_NOT_ROTATED = (
    "Your result is x * cos + x * sin (or similar) rather than a rotation of pairs: each pair "
    "(a, b) becomes (a cos - b sin, a sin + b cos); the partner feature b matters."
)
_RELATIVE = (
    "The defining property of RoPE fails: with one query vector at position m and one key "
    "vector at position n, the dot product of the rotated vectors should depend on m - n "
    "only, but here two pairs (m, n) with the same offset give different scores."
)


def _mixed(x: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
    """Pairs taken as halves, written back interleaved."""
    x = x.double()
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    cos, sin = angles.cos(), angles.sin()
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)


_ROTARY_LAYOUTS = {
    ("output", "halves_swapped"): (
        "You wrote the two rotated halves back in the wrong order: the first half of the "
        "result is a * cos - b * sin (pair i's first element), the second a * sin + b * cos: "
        "torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)."
    ),
    ("output", "interleave"): _MIXED,
    ("x", "deinterleave"): (
        "Your pairing is mixed: you rotate neighbouring features (2i, 2i + 1) as pairs but "
        "write the results back as halves (i, i + d_head/2). Write each rotated pair back "
        "where it came from."
    ),
    ("x", "interleave"): (
        "Your pairing is mixed: you read features i and i + d_head/2 into neighbouring "
        "places before rotating. Rotate the pairs in place: a = x[..., :d/2], b = x[..., d/2:]."
    ),
}


def _rotary_layout(layout) -> str:
    """A RoPE layout mistake in the course's words, or the layout tool's own sentence."""
    if layout is None:
        return ""
    return _ROTARY_LAYOUTS.get((layout.where, layout.kind), layout.message)


def _angle_layout_mistakes(x: torch.Tensor, angles: torch.Tensor) -> dict[str, torch.Tensor]:
    """The angle table laid out for one pairing and used with the other: one angle per
    feature, cat([angles, angles]) (halves) or repeat_interleave (neighbours)."""
    x = x.double()
    halves = torch.cat([angles, angles], -1)  # feature j turns by theta_(j mod d/2)
    neighbours = angles.repeat_interleave(2, -1)  # feature j turns by theta_(j // 2)
    rotate_half = torch.cat([-x[..., x.shape[-1] // 2 :], x[..., : x.shape[-1] // 2]], -1)
    swap_neighbours = torch.stack([-x[..., 1::2], x[..., 0::2]], -1).flatten(-2)
    return {
        "You rotate neighbouring pairs (2i, 2i + 1) with the halves' angle table "
        "(cat([angles, angles]): feature j turns by theta_(j mod d_head/2)), so the two "
        "features of a pair turn by different angles. Neighbouring pairs need "
        "repeat_interleave(2) of the table; or pair halves with the halves' table.": (
            x * halves.cos() + swap_neighbours * halves.sin()
        ),
        "You rotate halves (i, i + d_head/2) with an interleaved angle table "
        "(repeat_interleave: feature j turns by theta_(j // 2)), so the two features of a "
        "pair turn by different angles. Halves need cat([angles, angles]) (one column per "
        "pair, used for both halves).": x * neighbours.cos() + rotate_half * neighbours.sin(),
    }


def _relative_property(c: Checker, apply_rotary, d_head: int, seed: int) -> None:
    length = 12
    cos, sin = ref.rotary_embedding(length, d_head)
    q = randn((d_head,), seed).expand(length, d_head).contiguous()
    k = randn((d_head,), seed + 1).expand(length, d_head).contiguous()
    call = f"apply_rotary(one vector at every position ({length}, {d_head}), cos, sin)"
    rq = c.call(apply_rotary, q, cos, sin, call_repr=call)
    rk = c.call(apply_rotary, k, cos, sin, call_repr=call)
    c.expect_type(rq, torch.Tensor, call)
    c.expect_shape(rq, (length, d_head), call)
    scores = rq.double() @ rk.double().T  # (m, n)
    offsets = torch.arange(length)[:, None] - torch.arange(length)
    spread = max(
        float(scores[offsets == d].max() - scores[offsets == d].min())
        for d in range(-length + 1, length)
    )
    c.expect_true(spread < 1e-3 * max(1.0, float(scores.abs().max())), f"{call}: {_RELATIVE}")


def _judge_runs(c: Checker, runs: list[tuple]) -> None:
    """Every input's (got, expected, call, tolerance, mistakes, expect_close options): when
    one is wrong, the known mistakes that agree with the learner on EVERY input are
    stated (one) or named as candidates (several); when none agrees, each input is
    compared in turn without them (its layout, replay and fixed hint)."""
    wrong = [
        run
        for run in runs
        if not torch.allclose(
            torch.as_tensor(run[0]).double(), torch.as_tensor(run[1]).double(), **run[3]
        )
    ]
    if wrong:
        records = [
            (got, mistakes, tol["rtol"], tol["atol"]) for got, _, _, tol, mistakes, _ in runs
        ]
        found = agreeing_mistakes(records)
        if found:
            c.fail(f"{wrong[0][2]} is not what the reference gives. {candidates_message(found)}")
    for got, expected, call, tol, _, options in runs:
        c.expect_close(got, expected, call, **tol, **options)


_BROADCAST = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
    r"non-singleton dimension (\d+)"
)


def _split_hint(d_head: int, ndim: int) -> Hint:
    """For a size clash along the last axis of a part of x with cos or sin (d_head // 2
    columns), the part being neither a half nor the whole: the split point of x is not
    the last axis halved."""

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or int(found.group(3)) != ndim - 1:
            return ""
        sizes = {int(found.group(1)), int(found.group(2))}
        if d_head // 2 not in sizes or len(sizes) != 2 or d_head in sizes:
            return ""
        (other,) = sizes - {d_head // 2}
        return (
            f"One of your halves of x has {other} features where cos and sin have d_head // 2 "
            f"= {d_head // 2} columns: the split point must be x.shape[-1] // 2 (the last "
            "axis, d_head, halved): a, b = x[..., :half], x[..., half:]."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


def _rotary_shape_hint(got: Any, x: torch.Tensor, expected: torch.Tensor) -> str:
    """For a result of the wrong shape: the two rotated halves joined along another axis
    than the last (or stacked), said when the shape is exactly that."""
    shape = tuple(getattr(got, "shape", ()))
    lead, (length, d_head) = tuple(x.shape[:-2]), tuple(x.shape[-2:])
    half = d_head // 2
    halves = (expected[..., :half], expected[..., half:])
    if shape == (*lead, 2 * length, half):
        joined = torch.cat(halves, dim=-2)
        same = isinstance(got, torch.Tensor) and torch.allclose(
            got.double(), joined, rtol=1e-4, atol=1e-4
        )
        return (
            f"Your result is the two rotated halves ({(*lead, length, half)} each) joined "
            f"along axis -2 (len){', with the right values,' if same else ''} instead of the "
            "last axis: torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)."
        )
    if shape in ((*lead, 2, length, half), (*lead, length, 2, half)):
        return (
            "Your result has an extra axis of size 2: torch.stack puts the two rotated "
            "halves on a new axis; join them along the last axis with "
            "torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)."
        )
    return ""


def check_apply_rotary(apply_rotary, *, hidden: bool = False) -> None:
    with Checker("apply_rotary", hidden=hidden) as c:
        c.require_callable(apply_rotary)
        runs = []
        for case in _HIDDEN_ROTARY if hidden else _VISIBLE_ROTARY:
            length, d_head = case.shape[-2:]
            x = randn(case.shape, case.seed, dtype=case.dtype)
            cos, sin = ref.rotary_embedding(length, d_head)
            call = f"apply_rotary(x {tuple(x.shape)} {str(case.dtype).replace('torch.', '')}, cos, sin)"
            got = c.call(
                apply_rotary, x, cos, sin, call_repr=call, hints=[_split_hint(d_head, x.dim())]
            )
            c.expect_type(got, torch.Tensor, call)
            angles = rope_angles_f(length, d_head)
            half, adjacent = rotate_f(x, angles, "half"), rotate_f(x, angles, "adjacent")
            if tuple(got.shape) != tuple(x.shape):
                c.expect_shape(got, tuple(x.shape), call, _rotary_shape_hint(got, x, half))
            c.expect_floating(got, call, preferred=case.dtype)
            if got.dtype != case.dtype:
                c.fail(
                    f"{call} returned {str(got.dtype).replace('torch.', '')}: the result keeps "
                    f"x's dtype. "
                    + (
                        "cos and sin are float32 (rotary_embedding's), and x times them is "
                        "promoted to float32: cast them to x's dtype first, cos.to(x.dtype) "
                        "and sin.to(x.dtype) (or cast the result back with .to(x.dtype))."
                        if got.dtype == torch.float32 and x.element_size() < 4
                        else "Cast the result back with .to(x.dtype)."
                    )
                )
            tol = tolerance(got.dtype, case.dtype)
            pairing = "half"
            if not torch.allclose(got.double(), half, **tol) and torch.allclose(
                got.double(), adjacent, **tol
            ):
                pairing = "adjacent"
                c.note(_ADJACENT_NOTE)
            mistakes = {
                _DIRECTION: rotate_f(x, angles, pairing, direction=-1),
                _NO_MINUS: rotate_f(x, angles, pairing, signs=(1, 1)),
                _TWO_MINUS: rotate_f(x, angles, pairing, signs=(-1, -1)),
                _MIXED: _mixed(x, angles),
                _NOT_ROTATED: x.double() * torch.cat([angles.cos(), angles.cos()], -1)
                + x.double() * torch.cat([angles.sin(), angles.sin()], -1),
                _ONE_INDEXED: rotate_f(x, rope_angles_f(length, d_head, first=1), pairing),
            }
            mistakes.update(_angle_layout_mistakes(x, angles))
            expected = rotate_f(x, angles, pairing)
            axes = (*(f"axis {i}" for i in range(x.dim() - 2)), "len", "d_head")

            def explain(
                got=got, expected=expected, x=x, angles=angles, pairing=pairing, axes=axes, tol=tol
            ) -> str:
                return _rotary_layout(
                    match_layout(
                        got,
                        expected,
                        axes,
                        reference=lambda x_: rotate_f(x_, angles, pairing),
                        inputs=[("x", x, axes)],
                        input_kinds=("interleave", "deinterleave"),
                        **tol,
                    )
                )

            runs.append((got, expected, call, tol, mistakes, explain, axes))
        # a cause is stated only when it gives the learner's values on every input
        _judge_runs(
            c,
            [(g, e, call, tol, m, {"explain": x, "axes": a}) for g, e, call, tol, m, x, a in runs],
        )
        _relative_property(c, apply_rotary, 16 if hidden else 8, 55 if hidden else 5)


# ================================================================================ SwiGLU
_SWAP = (
    "Your gate and value are swapped: the SiLU goes on w1(x) (the gate), which then "
    "multiplies w3(x): w2(silu(w1(x)) * w3(x))."
)
_RELU = "You used ReLU: SwiGLU's gate is the SiLU, F.silu(z) = z * sigmoid(z)."
_GELU = "You used GELU (that is GeGLU): SwiGLU's gate is the SiLU, F.silu."
_SIGMOID = (
    "You used a plain sigmoid as the gate (that is the original GLU): SwiGLU uses the SiLU, "
    "z * sigmoid(z) (F.silu)."
)
_NO_GATE = "Your block has no gate: multiply silu(w1(x)) by w3(x) before w2."
_AFTER = "You applied the SiLU after the product: it goes on w1(x) alone, silu(w1(x)) * w3(x)."
_SWIGLU_KEYS = (
    "SwiGLU has three bias-free nn.Linear named w1, w2, w3 (Llama's names): "
    "nn.Linear(d_model, d_ff, bias=False) for w1 and w3, nn.Linear(d_ff, d_model, bias=False) for w2."
)


@dataclass(frozen=True)
class _FfnCase:
    seed: int
    shape: tuple[int, ...]
    d_ff: int


_VISIBLE_FFN = [_FfnCase(1, (2, 3, 8), 12)]
_HIDDEN_FFN = [_FfnCase(101, (4, 16), 40), _FfnCase(102, (1, 2, 5, 6), 6)]


def check_SwiGLU(cls, *, hidden: bool = False) -> None:
    with Checker("SwiGLU", hidden=hidden) as c:
        c.require_callable(cls)
        for case in _HIDDEN_FFN if hidden else _VISIBLE_FFN:
            d_model = case.shape[-1]
            module, built, state = build(
                c,
                cls,
                d_model,
                case.d_ff,
                name="SwiGLU",
                reference=ref.SwiGLU(d_model, case.d_ff),
                seed=case.seed,
                mode="eval",
            )
            x = randn(case.shape, case.seed, scale=2.0)
            what = f"{built}(x {tuple(x.shape)})"
            got = c.call(module, x, call_repr=what)
            expect_tensor_result(c, got, tuple(x.shape), what)
            table = {
                _SWAP: {"swap": True},
                _RELU: {"activation": "relu"},
                _GELU: {"activation": "gelu"},
                _SIGMOID: {"activation": "sigmoid"},
                _NO_GATE: {"gate": False},
                _AFTER: {"after": True},
            }
            c.expect_close(
                got,
                swiglu_f(x, state),
                what,
                **tolerance(got.dtype),
                mistakes=mistake_values(lambda **k: swiglu_f(x, state, **k), table),
            )


# ================================================================== attention, block, GPT
def _close(got: torch.Tensor, expected: torch.Tensor) -> bool:
    return bool(torch.allclose(got.detach().double(), expected, rtol=1e-4, atol=1e-5))


def _pairing(c: Checker, got: torch.Tensor, compute: Callable[[str], torch.Tensor]) -> str:
    """The pairing the learner's result follows: "half" unless it matches "adjacent" only."""
    if not _close(got, compute("half")) and _close(got, compute("adjacent")):
        c.note(_ADJACENT_NOTE)
        return "adjacent"
    return "half"


def _expect_oracle_and_causal(
    c: Checker,
    module,
    inputs: torch.Tensor,
    got: torch.Tensor,
    oracle: Callable[..., torch.Tensor],
    what: str,
    table: Mapping[str, Mapping[str, Any]],
    future: str,
    localise: Callable[[str], str] | None = None,
) -> None:
    """``got`` against ``oracle(pairing=...)`` in the learner's RoPE pairing, each mistake
    of ``table`` ({message: oracle knobs}) named when it matches; then the causal
    property (changing the last input never changes an earlier output), ``future`` its
    message; ``localise(pairing)`` says which sub-result departs when no mistake matches."""
    pairing = _pairing(c, got, lambda pr: oracle(pairing=pr))
    expect_composite(
        c,
        got,
        oracle(pairing=pairing),
        what,
        **tolerance(got.dtype),
        mistakes=mistake_values(lambda **k: oracle(pairing=pairing, **k), table),
        localise=None if localise is None else lambda: localise(pairing),
    )
    _causal_property(c, module, inputs, what, future)


_NO_ROPE = (
    "Your attention has no rotary embedding: rotate each head's queries and keys with "
    "apply_rotary(q, cos, sin), apply_rotary(k, cos, sin), cos and sin from "
    "rotary_embedding(len, d_head)."
)
_ROTATE_VALUES = (
    "You rotated the values too. RoPE rotates queries and keys only: it is their dot product "
    "that should depend on the offset; the values carry content, not position."
)
_BEFORE_SPLIT = (
    "You rotated the d_model-wide projections before splitting the heads (angles for "
    "d_model). RoPE rotates each head: split the heads first, then rotate every head's "
    "(len, d_head) queries and keys with rotary_embedding(len, d_head)."
)
_NOT_CAUSAL = (
    "Your attention is not causal: every query sees every key. Pass look_ahead_mask(len) "
    "to scaled_dot_product_attention, so that query i attends to keys 0 .. i."
)
_FUTURE = (
    "Changing the last token changed the output at earlier positions: your attention lets "
    "a position read tokens after it. Pass look_ahead_mask(len) (True = may attend)."
)
_ATTENTION_KEYS = (
    "The attention's projections are four nn.Linear(d_model, d_model, bias=False) named "
    "w_q, w_k, w_v, w_o (lesson 12 builds its cache around these names)."
)
_SIZES = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")


def _attention_hints(
    batch: int, length: int, d_model: int, num_heads: int, length_axis: bool = True
) -> list:
    """Hints for a size mismatch inside the attention, by the two sizes PyTorch names: the
    batch where the length belongs (``length_axis``: for the attention alone, since in a
    block a norm's statistic without keepdim can clash alike), or RoPE's tables made for
    d_model instead of d_head."""

    def hint(exc: BaseException) -> str:
        found = _SIZES.search(str(exc))
        if not found:
            return ""
        pair = {int(found[1]), int(found[2])}
        if length_axis and batch != length and pair == {batch, length}:
            return (
                f"The sizes {found[1]} and {found[2]} are the batch ({batch}) and the length "
                f"({length}): was the length read from the wrong axis? x is (batch, len, "
                "d_model): length = x.shape[1], and rotary_embedding(length, d_head) has one "
                "row per position."
            )
        d_head = d_model // num_heads
        if d_model // 2 in pair and d_head // 2 in pair and d_model != d_head:
            return (
                "A shape does not fit: are cos and sin from rotary_embedding(len, d_head) (one "
                "column per pair of a head's d_head features), not d_model?"
            )
        return ""

    return [(RuntimeError, hint)]


def _length_hint(shape: tuple[int, ...]) -> Hint:
    """For a clash on the positions axis of the heads (batch, num_heads, len, ·) between
    len and the size of another axis of x (batch, len, d_model): the length read from
    that axis."""
    length = shape[1]
    names = {2: "d_model"}  # the batch: _attention_hints

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or int(found.group(3)) not in (2, 3):
            return ""
        sizes = {int(found.group(1)), int(found.group(2))}
        if length not in sizes or len(sizes) != 2:
            return ""
        (other,) = sizes - {length}
        axes = [f"x.shape[{k}] ({names[k]})" for k in names if shape[k] == other]
        if not axes:
            return ""
        return (
            f"A size {other} met the {length} positions of x: {other} is {' and '.join(axes)}, "
            "so the length given to rotary_embedding (or to look_ahead_mask) was read from "
            f"another axis of x: the number of positions is len = x.shape[1] = {length} "
            "(x is (batch, len, d_model))."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


_KEYS_NOT_ROTATED = (
    "You rotated the queries but not the keys. RoPE rotates both, with the same angles: "
    "only then does the score q_i . k_j depend on the offset i - j alone."
)
_QUERIES_NOT_ROTATED = (
    "You rotated the keys but not the queries. RoPE rotates both, with the same angles: "
    "only then does the score q_i . k_j depend on the offset i - j alone."
)
_NO_W_O = (
    "You return the merged heads without the output projection: finish with "
    "self.w_o(merge_heads(heads))."
)
_NO_SCALE = (
    "Your scores are not divided by sqrt(d_head): softmax(q kᵀ / sqrt(d_head)), as lesson "
    "04's scaled_dot_product_attention does."
)
_SCALE_D_MODEL = (
    "You divided the scores by sqrt(d_model); each head's scores are divided by "
    "sqrt(d_head), d_head = d_model // num_heads."
)

_IGNORES_BASE = (
    "Your rotation ignores the base the module was built with: it uses rotary_embedding's "
    "default 10000. Pass it on: rotary_embedding(len, self.d_head, self.base)."
)

#: {message: causal_self_attention_f's knobs for that mistake}. A one-indexed position is
#: not among them: RoPE's scores depend only on offsets, so the attention cannot show it
#: (rotary_embedding's own check does).
_SPLIT_NO_TRANSPOSE = (
    "Your heads were split with one view (or reshape) straight to (batch, num_heads, len, "
    "d_head), without the transpose, so each head holds features of several positions. "
    "Split as split_heads (imported) does: view(batch, len, num_heads, d_head), then "
    "transpose(1, 2)."
)
_MERGE_NO_TRANSPOSE = (
    "Your heads were merged with a reshape to (batch, len, d_model) without transpose(1, 2) "
    "first, so each output token is cut out of one head's block of numbers: use "
    "merge_heads (imported), or transpose(1, 2) before the reshape."
)
_ATTENTION_MISTAKES = {
    _NO_ROPE: {"rope": False},
    _ROTATE_VALUES: {"rotate_values": True},
    _BEFORE_SPLIT: {"split": "before"},
    _NOT_CAUSAL: {"causal": False},
    _KEYS_NOT_ROTATED: {"rotated": "q"},
    _QUERIES_NOT_ROTATED: {"rotated": "k"},
    _NO_W_O: {"use_w_o": False},
    _NO_SCALE: {"scale": "none"},
    _SCALE_D_MODEL: {"scale": "sqrt_d_model"},
    "You divided the scores by d_head instead of sqrt(d_head).": {"scale": "d_head"},
    _IGNORES_BASE: {"base": 10000.0},
    "Your attention neither rotates the queries and keys nor masks the future. Either both "
    "are left out, or the length was read from the batch axis (x.shape[0], 1 here): "
    "rotary_embedding(1, d_head) is position 0's angle (no rotation) and look_ahead_mask(1) "
    "blocks nothing, and both broadcast. x is (batch, len, d_model): length = x.shape[1].": {
        "rope": False,
        "causal": False,
    },
    _SPLIT_NO_TRANSPOSE: {"heads_split": "no_transpose"},
    _MERGE_NO_TRANSPOSE: {"heads_merge": "no_transpose"},
    _SPLIT_NO_TRANSPOSE.replace("split", "split (and merged back)", 1): {
        "heads_split": "no_transpose",
        "heads_merge": "no_transpose",
    },
}


@dataclass(frozen=True)
class _ModelCase:
    seed: int
    batch: int
    length: int
    d_model: int
    num_heads: int
    d_ff: int = 16
    num_layers: int = 2
    vocab: int = 23
    eps: float | None = None  # the block's eps (None: its default); the other layers ignore it
    base: float | None = None  # the attention's RoPE base (None: its default)


_VISIBLE_ATTENTION = [_ModelCase(1, 2, 6, 16, 2, eps=0.5)]
_HIDDEN_ATTENTION = [_ModelCase(101, 1, 9, 24, 3), _ModelCase(102, 3, 5, 32, 2, eps=0.25)]
#: CausalSelfAttention's own cases add a base other than the default (a learner's
#: rotary_embedding(len, d_head) without self.base shows only there)
_VISIBLE_CSA = [*_VISIBLE_ATTENTION, _ModelCase(3, 2, 6, 16, 2, base=100.0)]
_HIDDEN_CSA = [*_HIDDEN_ATTENTION, _ModelCase(103, 1, 7, 24, 3, base=500.0)]


def _causal_property(c: Checker, module, x: torch.Tensor, call: str, message: str) -> None:
    changed = x.clone()
    changed[:, -1] = changed[:, -1] + 1 if changed.is_floating_point() else (changed[:, -1] + 1) % 7
    before = c.call(module, x, call_repr=call)
    after = c.call(module, changed, call_repr=call)
    earlier = (before[:, :-1].detach().double() - after[:, :-1].detach().double()).abs().max()
    c.expect_true(float(earlier) < 1e-5, f"{call}: {message}")


def _check_layer(
    cls,
    hidden: bool,
    name: str,
    args: Callable[[_ModelCase], tuple],
    oracle_f: Callable[..., torch.Tensor],
    table: Mapping[str, Mapping[str, Any]],
    scale: float,
    oracle_options: Callable[[_ModelCase], dict[str, Any]] = lambda case: {},
    localise: bool = False,
    cases: tuple[list[_ModelCase], list[_ModelCase]] = (_VISIBLE_ATTENTION, _HIDDEN_ATTENTION),
    inspect: Callable[[Checker, nn.Module, str, _ModelCase], None] | None = None,
) -> None:
    """The check of a layer of the GPT that maps x (batch, len, d_model) to the same
    shape: ``cls(*args(case))`` with deterministic weights, against ``oracle_f(x, state,
    num_heads, **oracle_options(case))`` (with the ``table``'s mistakes), then its causal
    property."""
    with Checker(name, hidden=hidden) as c:
        c.require_callable(cls)
        for case in cases[1] if hidden else cases[0]:
            module, built, state = build(
                c,
                cls,
                *args(case),
                name=name,
                reference=getattr(ref, name)(*args(case)),
                seed=case.seed,
                mode="eval",
            )
            if inspect is not None:
                inspect(c, module, built, case)
            x = randn((case.batch, case.length, case.d_model), case.seed, scale=scale)
            what = f"{built}(x {tuple(x.shape)})"
            attention = name == "CausalSelfAttention"
            hints = _attention_hints(
                case.batch, case.length, case.d_model, case.num_heads, length_axis=attention
            )
            if attention:  # in a block, a norm's statistic without keepdim clashes alike
                hints.append(_length_hint(tuple(x.shape)))
            got = c.call(module, x, call_repr=what, hints=hints)
            expect_tensor_result(c, got, tuple(x.shape), what)
            oracle = functools.partial(oracle_f, x, state, case.num_heads, **oracle_options(case))
            where = functools.partial(_localise_block, module, x) if localise else None
            _expect_oracle_and_causal(c, module, x, got, oracle, what, table, _FUTURE, where)


def check_CausalSelfAttention(cls, *, hidden: bool = False) -> None:
    _check_layer(
        cls,
        hidden,
        "CausalSelfAttention",
        lambda case: (case.d_model, case.num_heads, *(() if case.base is None else (case.base,))),
        causal_self_attention_f,
        _ATTENTION_MISTAKES,
        scale=1.0,
        oracle_options=lambda case: {} if case.base is None else {"base": case.base},
        cases=(_VISIBLE_CSA, _HIDDEN_CSA),
    )


_POST = (
    "Your block is post-norm (norm(x + sublayer(x)), the 2017 layout). A decoder-only block "
    "is pre-norm: h = x + attn(norm1(x)), then h + feed_forward(norm2(h))."
)
_NO_RESIDUAL = "Your block has no residual connections: add each sub-layer's result to its input."
_FROM_NORMED = (
    "Your residual starts from the normalised x: h = x + attn(norm1(x)) adds to x itself, "
    "so that the residual stream is never normalised."
)
_SWAPPED_NORMS = "norm1 goes before the attention and norm2 before the feed-forward block."
_PARALLEL = (
    "Both of your sub-layers read the block's input (the 'parallel' block of GPT-J/PaLM). "
    "Here the feed-forward block reads h = x + attn(norm1(x)), the result of the attention."
)


_BLOCK_EPS = (
    "Your block's norms ignore the eps it was given: they compute with RMSNorm's default "
    "1e-5. Pass it on when you build them, RMSNorm(d_model, eps) for norm1 and norm2 (and "
    "if you do, your RMSNorm itself ignores its eps argument: its own test cell says so)."
)


_BLOCK_PARTS = {"attn": "attn", "ffn": "feed_forward"}  # decoder_block_f's parts: attributes
_BLOCK_NORMS = {"attn": "norm1", "ffn": "norm2"}


def _localise_block(module, x: torch.Tensor, pairing: str) -> str:
    """Which residual sub-result of the learner's pre-norm block first departs."""
    return localise_layer(
        module,
        lambda: module(x),
        x,
        sublayers=list(_BLOCK_PARTS.values()),
        norms={_BLOCK_PARTS[k]: v for k, v in _BLOCK_NORMS.items()},
        norm_first=True,
    )


_BLOCK_MISTAKES = {  # {message: decoder_block_f's knobs for that mistake}
    _POST: {"layout": "post"},
    _NO_RESIDUAL: {"layout": "no_residual"},
    _FROM_NORMED: {"layout": "residual_from_normed"},
    _SWAPPED_NORMS: {"layout": "swapped_norms"},
    _PARALLEL: {"layout": "parallel"},
    _NO_ROPE: {"attention": {"rope": False}},
    _NOT_CAUSAL: {"attention": {"causal": False}},
    _BLOCK_EPS: {"eps": 1e-5},  # (the same as the right result where the case's eps is the default)
}
add_new(_BLOCK_MISTAKES, residual_mistakes(_BLOCK_PARTS, _BLOCK_NORMS, True, dropout=False))
add_new(_BLOCK_MISTAKES, norm_choice_mistakes(_BLOCK_PARTS, _BLOCK_NORMS))


def _inspect_block(c: Checker, module: nn.Module, built: str, case: _ModelCase) -> None:
    """The block's attention has the block's number of heads (its weights' shapes cannot
    tell: every head count gives (d_model, d_model) projections)."""
    heads = getattr(getattr(module, "attn", None), "num_heads", None)
    if isinstance(heads, int) and heads != case.num_heads:
        c.fail(
            f"{built}: its attention has num_heads={heads}, but the block was given "
            f"num_heads={case.num_heads}. Build it with the block's arguments, "
            "CausalSelfAttention(d_model, num_heads) (with d_model // num_heads, or d_ff, in "
            "the second place the heads are cut differently)."
        )


def check_DecoderBlock(cls, *, hidden: bool = False) -> None:
    _check_layer(
        cls,
        hidden,
        "DecoderBlock",
        lambda case: (
            (case.d_model, case.num_heads, case.d_ff) + (() if case.eps is None else (case.eps,))
        ),
        decoder_block_f,
        _BLOCK_MISTAKES,
        scale=2.0,
        oracle_options=lambda case: {} if case.eps is None else {"eps": case.eps},
        localise=True,
        inspect=_inspect_block,
    )


_UNTIED = (
    "Your output layer is not tied to the embedding: its weight is a separate matrix. Use "
    "the embedding's weight for the logits (x @ self.embedding.weight.T), or make the "
    "output layer share it (self.output.weight = self.embedding.weight)."
)
_NO_FINAL_NORM = (
    "Your GPT has no final norm before the logits: a pre-norm stack ends with "
    "self.norm(x) (RMSNorm), since nothing else normalises the residual stream."
)
_SCALED = (
    "You multiplied the embeddings by sqrt(d_model), as the 2017 Transformer does before "
    "adding its positional encoding. This GPT has no positional encoding to balance: use "
    "self.embedding(ids) as it is."
)
_PROBS = (
    "Your GPT returns probabilities (a softmax over the vocabulary): return the logits; "
    "the cross-entropy and sample take logits."
)
_GPT_FUTURE = (
    "Changing the last token changed the logits at earlier positions: the model can see the "
    "future. Every attention must be causal."
)
_GPT_NOT_CAUSAL = (
    "Your GPT's logits at a position depend on the tokens after it: its attention is not "
    "causal, every query sees every key. A language model must predict each token from the "
    "tokens before it only: every block's attention masks the future with "
    "look_ahead_mask(len) (True = may attend), as your CausalSelfAttention does."
)
_GPT_MISTAKES = {  # {message: gpt_f's knobs for that mistake}
    _NO_FINAL_NORM: {"final_norm": False},
    _SCALED: {"scale_embedding": True},
    _PROBS: {"softmax": True},
    _GPT_NOT_CAUSAL: {"causal": False},
}


_EMBEDDING_STD = 0.02  # GPT-2's initialisation of the embedding, part of the contract
_INIT_SIZES = (512, 64, 2, 32, 1)  # vocab, d_model, heads, d_ff, layers: 32,768 weights


def _check_embedding_init(c: Checker, cls, seed: int) -> None:
    """A newly built GPT's embedding weights have the contract's standard deviation: with
    the output tied to the embedding, nn.Embedding's default (1) makes the first logits
    about sqrt(d_model) times too large, and training from there ends far above the
    lesson's loss although the model computes the right function."""
    built = f"GPT{_INIT_SIZES}"
    torch.manual_seed(seed)  # the Checker puts the global stream back afterwards
    module = c.call(cls, *_INIT_SIZES, call_repr=built)
    state = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    weight = state.get("embedding.weight")
    c.expect_true(weight is not None, f"{built} has no state-dict key embedding.weight.")
    std = float(weight.detach().double().std())
    if 0.015 <= std <= 0.025:  # 32,768 draws: a correct init lands within 1% of 0.02
        return
    if 0.8 <= std <= 1.2:
        cause = (
            "That is nn.Embedding's default initialisation (standard deviation 1): add "
            "nn.init.normal_(self.embedding.weight, std=0.02) after creating it."
        )
    else:
        cause = (
            "Is the initialisation applied to the tensor the model ends up with? For example, "
            "tying with self.embedding.weight = self.output.weight after initialising the "
            "embedding replaces it with the nn.Linear's initial weights; or another standard "
            "deviation was used."
        )
    c.fail(
        f"A newly built {built} has embedding weights with standard deviation {std:.3g}; the "
        f"contract asks for a normal initialisation with standard deviation {_EMBEDDING_STD} "
        "(GPT-2's). The output layer is tied to the embedding, so larger weights make the "
        "first logits far too large: the model computes the right function, but training "
        f"starts from a huge loss and ends well above the lesson's. {cause}"
    )


def _localise_gpt(module, ids: torch.Tensor, state, case: _ModelCase, pairing: str) -> str:
    """Which step of the learner's GPT first departs: the blocks' chaining (each fed the
    previous block's output, the first the embeddings), each block's result, the final
    norm before the tied output layer."""
    p = as_float64(state)
    embedding = p["embedding.weight"]  # (vocab_size, d_model)

    def block(h, i):
        return decoder_block_f(h, sub(p, f"layers.{i}"), case.num_heads, pairing=pairing)

    return localise_stack(
        module,
        lambda: module(ids),
        embedding[ids],
        case.num_layers,
        final=lambda t: rms_norm_f(t, sub(p, "norm"), 1e-5) @ embedding.T,
        unnormed=lambda t: t @ embedding.T,
        norm=lambda t: rms_norm_f(t, sub(p, "norm"), 1e-5),
        layer_oracle=block,
        input_name="the embeddings of the ids",
    )


_LAST_POSITION_ONLY = (
    "one row of logits per sequence, not one per position (batch, len, vocab_size). "
    "Did you keep only the last position (x[:, [-1]], generation's shortcut)? Training "
    "needs the logits of every position: logits[:, t] predicts the token after ids[:, t]."
)


def check_GPT(cls, *, hidden: bool = False) -> None:
    with Checker("GPT", hidden=hidden) as c:
        c.require_callable(cls)
        for case in _HIDDEN_ATTENTION if hidden else _VISIBLE_ATTENTION:
            args = (case.vocab, case.d_model, case.num_heads, case.d_ff, case.num_layers)
            reference = ref.GPT(*args)
            expected = state_shapes(reference)
            state = random_state(expected, case.seed)
            state["embedding.weight"] = state["embedding.weight"] * 3.0  # larger logits
            module, built = build_module(
                c,
                cls,
                *args,
                name="GPT",
                expected_shapes=expected,
                state=state,
                mode="eval",
                allow_extra_keys=True,
            )
            loaded = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
            extra = set(loaded) - set(expected)
            c.expect_true(
                extra <= {"output.weight", "lm_head.weight"},
                f"{built} has unexpected state-dict keys {sorted(extra)}: the contract's keys are "
                "embedding.weight, layers.*, norm.weight (and output.weight if tied).",
            )
            for key in extra:
                c.expect_true(
                    torch.equal(loaded[key], loaded["embedding.weight"]), f"{built}: {_UNTIED}"
                )
            ids = torch.randint(
                0, case.vocab, (case.batch, case.length), generator=_plain_generator(case.seed)
            )
            what = f"{built}(ids {tuple(ids.shape)})"
            hints = _attention_hints(case.batch, case.length, case.d_model, case.num_heads)
            got = c.call(module, ids, call_repr=what, hints=hints)
            if (
                isinstance(got, torch.Tensor)
                and case.length > 1
                and tuple(got.shape) == (case.batch, 1, case.vocab)
            ):
                c.fail(f"{what} has shape {tuple(got.shape)}: {_LAST_POSITION_ONLY}")
            expect_tensor_result(c, got, (case.batch, case.length, case.vocab), what)
            oracle = functools.partial(gpt_f, ids, state, case.num_heads, case.num_layers)
            where = functools.partial(_localise_gpt, module, ids, state, case)
            _expect_oracle_and_causal(
                c, module, ids, got, oracle, what, _GPT_MISTAKES, _GPT_FUTURE, where
            )
        _check_embedding_init(c, cls, seed=101 if hidden else 1)


# ================================================================================ sample
@dataclass(frozen=True)
class _SampleCase:
    logits: tuple[float, ...]
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    draws: int = 4000
    seed: int = 0


# probabilities at temperature 1, in the row's order: about .14 .46 .02 .25 .04 .07 .01
# (not sorted, so that a sorted order mapped back the wrong way shows)
_ROW = (0.8, 2.0, -1.1, 1.4, -0.4, 0.1, -1.7)
# flatter: top-k's renormalisation changes which tokens top-p keeps
_FLAT = (0.9, 0.2, 1.2, 0.6, -0.3, 0.75, 0.0, 0.4)
_VISIBLE_SAMPLE = [
    _SampleCase(_ROW, seed=1),
    _SampleCase(_ROW, temperature=0.5, seed=2),
    _SampleCase(_ROW, temperature=2.0, seed=3),
    _SampleCase(_ROW, top_k=3, seed=4),
    _SampleCase(_ROW, top_p=0.8, seed=5),
    _SampleCase(_ROW, temperature=2.0, top_p=0.8, seed=8),  # top-p after the temperature
    _SampleCase(_ROW, temperature=0.7, top_k=5, top_p=0.9, seed=6),
    _SampleCase(_FLAT, top_k=5, top_p=0.7, seed=9),  # top-k, then top-p
    _SampleCase((1.0, 3.0, 2.0, 2.0, 0.0), top_k=2, seed=7),  # a tie at the k-th logit
    _SampleCase((1.0, 3.0, 2.0, 2.0, 0.0), top_k=8, seed=10),  # top_k beyond the vocabulary
]
_ROW2 = (-0.5, 0.3, 1.9, -2.0, 1.1, 0.2, -0.8, 2.3, 0.0, -1.4, 0.7)
_FLAT2 = (0.5, 1.5, -0.2, 1.0, 0.3, 1.2, -1.0, 0.8, 0.0)
_HIDDEN_SAMPLE = [
    _SampleCase(_ROW2, seed=101),
    _SampleCase(_ROW2, temperature=1.5, top_k=4, seed=103),
    _SampleCase(_ROW2, temperature=2.5, top_p=0.8, seed=107),  # top-p after the temperature
    _SampleCase(_ROW2, temperature=0.6, top_p=0.7, seed=102),
    _SampleCase(_ROW2, top_k=6, top_p=0.5, seed=104),
    _SampleCase(_FLAT2, top_k=4, top_p=0.6, seed=106),
    _SampleCase((0.0, 5.0, 1.0, 5.0, 5.0, 2.0), top_k=2, seed=105),
    _SampleCase(_FLAT2, top_k=12, top_p=0.9, seed=108),  # top_k beyond the vocabulary
]

_TEMPERATURE_PROBS = (
    "Your samples follow softmax(logits), whatever the temperature: you divided the "
    "probabilities by the temperature, and renormalising (which torch.multinomial does) "
    "undoes that. Divide the logits, before the softmax: softmax(logits / temperature)."
)
_TEMPERATURE_TIMES = (
    "You multiplied the logits by the temperature: divide them, logits / temperature."
)
_TOP_P_BEFORE_TEMPERATURE = (
    "Your top-p chose its tokens from the probabilities at temperature 1, and the "
    "temperature came afterwards: top-p works on the probabilities after the temperature, "
    "softmax(logits / temperature). Divide the logits first, then top-k, then top-p."
)
_TOP_P_BEFORE_TOP_K = (
    "You applied top-p before top-k: top-p must work on the probabilities of the tokens "
    "top-k kept, renormalised (a softmax over the logits with the others at -inf), which "
    "are larger, so that top-p keeps fewer tokens. The order is temperature, top-k, top-p."
)
_TOP_P_GATHER = (
    "Your top-p removes the wrong tokens: the decisions made in sorted order were mapped "
    "back to the vocabulary with gather (which applies the inverse permutation). Put them "
    "back with scatter: remove = remove_sorted.scatter(-1, order, remove_sorted), so that "
    "the token at sorted position i, order[i], gets decision i."
)
_TOP_P_FEW = (
    "Your top-p keeps one token too few: the token that makes the running total reach "
    "top_p (the one that crosses it) must be kept (remove a token when the total *before* "
    "it already reaches top_p)."
)
_TOP_K_FEWER = (
    "Your top-k keeps k - 1 tokens, one too few: it removes the k-th largest logit itself "
    "(logits <= kth). Remove only the logits below the k-th largest (logits < kth)."
)
_TOP_K_MORE = (
    "Your top-k keeps k + 1 tokens, one too many: the threshold is the k-th largest logit, "
    "torch.topk(logits, top_k).values[..., -1:]; keep the logits >= it."
)
_TOP_P_UNSORTED = (
    "Your top-p runs its total over the tokens in vocabulary order: sort the probabilities "
    "first (most probable first), accumulate in that order, then map the decisions back to "
    "the vocabulary with scatter."
)
_UNIFORM = (
    "Every token you keep is drawn about equally often: your probabilities do not depend on "
    "the logits. The likely cause: a softmax over the wrong axis (dim=0 or -2, across the "
    "batch: here the rows are copies of one row, so every entry becomes 1 / batch); take it "
    "over the vocabulary, torch.softmax(logits, dim=-1). (Or weights drawn from something "
    "other than the probabilities.)"
)
_ALWAYS_ARGMAX = (
    "Your samples are always the most probable token (the argmax), whatever the "
    "temperature: with temperature > 0, draw at random from the probabilities, "
    "torch.multinomial(probs, 1, generator=generator); only temperature == 0 is greedy."
)
_TOP_P_COMPLEMENT = (
    "Your top-p set is cut at 1 - top_p, not at top_p: it keeps the most probable tokens "
    "while the mass before them is below 1 - top_p (too few tokens when top_p > 0.5, too "
    "many below). Remove a token when the mass before it reaches top_p itself: "
    "cumsum - probs >= top_p."
)
_TOP_P_MANY = (
    "Your top-p keeps one token too many: keep the smallest set of the most probable tokens "
    "whose total reaches top_p, and no more."
)
_TIES = (
    "With a tie at the k-th largest logit, your top-k keeps fewer than k tokens: keep every "
    "logit >= the k-th largest (or exactly k of them), not only those strictly above it."
)
_RENORMALISE = (
    "The tokens you keep are drawn in the wrong proportions, although the right tokens "
    "appear: after removing tokens, renormalise what is kept (a softmax over the logits "
    "with the removed ones set to -inf does it)."
)
_GREEDY = (
    "With temperature 0, sample must return the argmax of each row (greedy decoding), "
    "without dividing by zero."
)
_SAMPLE_GENERATOR = (
    "Two calls with generators seeded alike gave different tokens: pass the generator to "
    "the random draw (torch.multinomial(probs, 1, generator=generator)), never use the "
    "global random stream."
)
_TOP_P_FIRST_ROW = (
    "Only the first row of the batch drew tokens outside its top-p set; the other rows "
    "never did. Did you keep the most probable token with drop[0] = False? On a (batch, "
    "vocab) mask that keeps every token of row 0; the first column of every row is "
    "drop[..., 0] = False (or drop[:, 0])."
)
_TOP_P_ROWS = (
    "Each row of logits is a sequence of its own: its top-p set comes from its own "
    "probabilities (sort, cumsum and scatter along the last axis, dim=-1)."
)

_SAMPLE_MISTAKES = {  # {message: sample_probabilities_f's knobs for that mistake}
    _TEMPERATURE_PROBS: {"temperature_at": "probs"},
    _TEMPERATURE_TIMES: {"temperature_at": "multiplied"},
    _TOP_P_BEFORE_TEMPERATURE: {"temperature_at": "after_top_p"},
    _TOP_P_BEFORE_TOP_K: {"order": "top_p_first"},
    _TOP_P_GATHER: {"top_p_map": "gather"},
    _TOP_P_FEW: {"top_p_rule": "one_too_few"},
    _TOP_P_MANY: {"top_p_rule": "one_too_many"},
    _TOP_P_COMPLEMENT: {"top_p_rule": "complement"},
    _TIES: {"ties": "strict"},
    _TOP_K_MORE: {"top_k_extra": 1},
    _TOP_P_UNSORTED: {"top_p_sorted": False},
    _ALWAYS_ARGMAX: {"greedy": True},
    _UNIFORM: {"softmax_dim": "batch"},
}


def _frequencies(tokens: torch.Tensor, vocab: int) -> torch.Tensor:
    return (
        torch.bincount(tokens.flatten().long().clamp(0, vocab - 1), minlength=vocab).double()
        / tokens.numel()
    )


def _sample_call(c: Checker, sample, logits, case: _SampleCase, seed: int):
    kwargs: dict[str, Any] = {"temperature": case.temperature}
    if case.top_k is not None:
        kwargs["top_k"] = case.top_k
    if case.top_p is not None:
        kwargs["top_p"] = case.top_p
    shown = ", ".join(f"{k}={v}" for k, v in kwargs.items())
    call = f"sample(logits ({logits.shape[0]}, {logits.shape[1]}), {shown}, generator=...)"
    vocab = logits.shape[-1]
    beyond = (
        lambda exc: case.top_k is not None and case.top_k > vocab and "out of range" in str(exc),
        f"top_k={case.top_k} is larger than the vocabulary ({vocab} tokens), and torch.topk "
        "refuses a k larger than the axis: then every token is kept. Clamp it, "
        "torch.topk(logits, min(top_k, logits.shape[-1])).",
    )
    got = c.call(
        sample, logits, **kwargs, generator=_generator(seed), call_repr=call, hints=[beyond]
    )
    return got, call


def _applies(knobs: Mapping[str, Any], case: _SampleCase) -> bool:
    """Whether a mistake can show in this case (it changes nothing otherwise)."""
    if knobs.get("greedy"):
        # always the argmax is told only where nothing filters the tokens: with top-k or
        # top-p, a filter that keeps one token looks the same (and the first case, with
        # neither, has caught a sampler that is always greedy)
        return case.top_k is None and case.top_p is None
    if knobs.get("temperature_at") in ("probs", "multiplied") and case.temperature == 1.0:
        return False
    if knobs.get("temperature_at") == "after_top_p":
        return case.temperature != 1.0 and case.top_p is not None
    if "order" in knobs:
        return case.top_k is not None and case.top_p is not None
    if "top_k_extra" in knobs or "ties" in knobs:
        return case.top_k is not None
    if "top_p_sorted" in knobs or "top_p_rule" in knobs or "top_p_map" in knobs:
        return case.top_p is not None
    return True


def _sample_distribution(c: Checker, sample, case: _SampleCase) -> None:
    """One row of logits copied case.draws times: the frequencies against the exact
    probabilities, the classic mistakes named when exactly one of them fits."""
    logits = torch.tensor(case.logits, dtype=torch.float32).expand(case.draws, -1).contiguous()
    vocab = logits.shape[1]
    got, call = _sample_call(c, sample, logits, case, case.seed)
    c.expect_type(got, torch.Tensor, call, "Return a tensor of token ids, one per row.")
    c.expect_shape(
        got, (case.draws,), call, "One token per row of logits: (batch,), not (batch, 1)."
    )
    c.expect_true(
        got.dtype == torch.int64, f"{call} should return int64 token ids, not {got.dtype}."
    )
    again, _ = _sample_call(c, sample, logits, case, case.seed)
    c.expect_true(torch.equal(again, got), _SAMPLE_GENERATOR)
    row = torch.tensor(case.logits)
    options = dict(temperature=case.temperature, top_k=case.top_k, top_p=case.top_p)
    expected = sample_probabilities_f(row, **options)
    frequencies = _frequencies(got, vocab)
    allowed = expected > 0
    tol = 6 * (expected * (1 - expected) / case.draws).sqrt() + 1e-3

    def matches(probs: torch.Tensor) -> bool:
        if torch.isnan(probs).any():
            return False
        bound = 6 * (probs * (1 - probs) / case.draws).sqrt() + 1e-3
        return bool(((frequencies - probs).abs() <= bound).all())

    if matches(expected):
        c.ok()
        return
    tie = case.top_k is not None and bool(
        (row == torch.topk(row, min(case.top_k, len(row))).values[-1]).sum() > 1
    )
    fitting = [
        _TOP_K_FEWER if message == _TIES and not tie else message
        for message, knobs in _SAMPLE_MISTAKES.items()
        if _applies(knobs, case) and matches(sample_probabilities_f(row, **options, **knobs))
    ]
    if len(fitting) == 1:
        c.fail(f"{call}: {fitting[0]}")
    if fitting:
        c.fail(
            f"{call}: your samples fit more than one classic mistake here:\n* "
            + "\n* ".join(fitting)
        )
    outside = frequencies[~allowed].sum()
    if outside > 0:
        c.fail(
            f"{call} drew tokens that must never be drawn here "
            f"(ids {torch.nonzero(frequencies * ~allowed).flatten().tolist()}): "
            "check top-k and top-p."
        )
    if (frequencies[allowed] == 0).any() and not (expected[frequencies == 0] < 1e-3).all():
        c.fail(f"{call} never drew some tokens that should be drawn: check top-k and top-p.")
    worst = int(((frequencies - expected).abs() - tol).argmax())
    c.fail(
        f"{call}: token {worst} was drawn {frequencies[worst]:.3f} of the time, expected "
        f"{expected[worst]:.3f}. {_RENORMALISE}"
    )


@dataclass(frozen=True)
class _RowsCase:
    seed: int
    rows: int
    tail: int  # tokens after the two most probable ones
    calls: int
    top_p: float = 0.4


# Two likely tokens (about .3 and .15) and a long tail (about .55): top_p=0.4 keeps the
# two; a row that is not filtered draws from the tail more than half of the time.
_VISIBLE_ROWS = _RowsCase(31, rows=6, tail=30, calls=20)
_HIDDEN_ROWS = _RowsCase(131, rows=9, tail=45, calls=24)


def _sample_rows(c: Checker, sample, case: _RowsCase) -> None:
    """top-p on a batch of different rows (each a permutation of one row): every draw of
    every row within that row's own top-p set, the first row included."""
    tail = torch.linspace(-0.5, 0.5, case.tail)
    likely = torch.tensor([0.3, 0.15]) / 0.55 * case.tail  # tail logits about 0: e^0 each
    base = torch.cat([likely.log(), tail])  # (vocab,)
    generator = _plain_generator(case.seed)
    order = torch.stack([torch.randperm(len(base), generator=generator) for _ in range(case.rows)])
    logits = base[order]  # (rows, vocab): row r holds base[order[r, j]] at column j
    allowed = torch.stack([sample_probabilities_f(row, top_p=case.top_p) > 0 for row in logits])
    call = f"sample(logits ({case.rows}, {len(base)}), top_p={case.top_p}, generator=...)"
    outside: dict[int, list[int]] = {}
    for number in range(case.calls):
        got = c.call(
            sample,
            logits,
            top_p=case.top_p,
            generator=_generator(case.seed + number),
            call_repr=call,
        )
        c.expect_type(got, torch.Tensor, call, "Return a tensor of token ids, one per row.")
        c.expect_shape(got, (case.rows,), call, "One token per row of logits: (batch,).")
        for r in range(case.rows):
            token = int(got[r])
            if not (0 <= token < len(base) and allowed[r, token]):
                outside.setdefault(r, []).append(token)
    if set(outside) == {0}:
        c.fail(f"{call}, {case.calls} calls: {_TOP_P_FIRST_ROW}")
    for r, tokens in outside.items():
        kept = torch.nonzero(allowed[r]).flatten().tolist()
        c.fail(
            f"{call}: row {r} drew token {tokens[0]}, outside its top-p set {kept} (the rows "
            f"are different orders of one row of logits). {_TOP_P_ROWS}"
        )
    c.ok()


def check_sample(sample, *, hidden: bool = False) -> None:
    with Checker("sample", hidden=hidden) as c:
        c.require_callable(sample)
        cases = _HIDDEN_SAMPLE if hidden else _VISIBLE_SAMPLE
        # greedy: temperature 0 is the argmax of every row
        rows = torch.tensor([cases[0].logits, tuple(reversed(cases[0].logits))])
        call = f"sample(logits {tuple(rows.shape)}, temperature=0.0, generator=...)"
        got = c.call(
            sample,
            rows,
            temperature=0.0,
            generator=_generator(1),
            call_repr=call,
            hints={"probability tensor contains": _GREEDY, "division by zero": _GREEDY},
        )
        c.expect_type(got, torch.Tensor, call, "Return a tensor of token ids, one per row.")
        c.expect_shape(got, (2,), call, "One token per row of logits: (batch,).")
        c.expect_equal(got.long(), rows.argmax(-1), call, _GREEDY)
        for case in cases:
            _sample_distribution(c, sample, case)
        _sample_rows(c, sample, _HIDDEN_ROWS if hidden else _VISIBLE_ROWS)


# ======================================================================= concept questions
QUIZ_ROPE_VALUES = Quiz(
    name="quiz_rope_values",
    answer="c",
    choices={
        "a": "the token embeddings, before the first layer, as lesson 03's encoding is added",
        "b": "queries, keys and values, so that the output carries the position too",
        "c": "queries and keys only, after the heads are split, in every layer",
        "d": "the attention weights, after the softmax",
    },
    why={
        "a": "That is lesson 03's absolute encoding. RoPE acts inside every attention, on the "
        "vectors whose dot product is the score.",
        "b": "Rotating the values would mix position into the content the attention moves; the "
        "relative-position property concerns the score q·k only.",
        "c": "Each head's queries and keys are rotated by their position's angles, so that their "
        "dot product depends on the offset; the values and the residual stream are untouched.",
        "d": "The weights are probabilities over keys; rotating them means nothing. The rotation "
        "acts on q and k before their dot product.",
    },
)
check_quiz_rope_values = quiz_check(QUIZ_ROPE_VALUES)

QUIZ_TEMPERATURE = Quiz(
    name="quiz_temperature",
    answer="b",
    choices={
        "a": "it sharpens the distribution, as intended",
        "b": "nothing: multinomial renormalises, so every temperature samples from softmax(logits)",
        "c": "it flattens the distribution",
        "d": "it raises an error, because the probabilities sum to 2",
    },
    why={
        "a": "Dividing every probability by the same number keeps their ratios, and the draw "
        "only sees ratios.",
        "b": "torch.multinomial takes non-negative weights and renormalises them: dividing all "
        "by 0.5 changes nothing. Temperature must divide the logits, before the softmax.",
        "c": "A common-factor change leaves the distribution as it is; flattening needs T > 1 "
        "applied to the logits.",
        "d": "torch.multinomial accepts weights that do not sum to 1.",
    },
)
check_quiz_temperature = quiz_check(QUIZ_TEMPERATURE)


# ================================================================================ registry
LESSON = "11_language_model"
_SDPA = ("torch.nn.functional.scaled_dot_product_attention", "torch.nn.MultiheadAttention")
_RMS_NORM_APIS = ("torch.nn.RMSNorm", "torch.nn.functional.rms_norm", "torch.rms_norm")
EXERCISES = (
    Exercise(
        "next_token_batches",
        check_next_token_batches,
        kind="function",
        points=2,
        minutes=15,
        level=1,
    ),
    Exercise(
        "RMSNorm",
        check_RMSNorm,
        kind="module",
        points=2,
        minutes=15,
        level=2,
        forbidden=_RMS_NORM_APIS,
    ),
    Exercise(
        "rotary_embedding", check_rotary_embedding, kind="function", points=2, minutes=15, level=2
    ),
    Exercise("apply_rotary", check_apply_rotary, kind="function", points=3, minutes=25, level=2),
    Exercise("quiz_rope_values", check_quiz_rope_values, kind="quiz", points=1, minutes=3, level=2),
    Exercise("SwiGLU", check_SwiGLU, kind="module", points=2, minutes=15, level=2),
    Exercise(
        "CausalSelfAttention",
        check_CausalSelfAttention,
        kind="module",
        points=3,
        minutes=20,
        level=2,
        forbidden=_SDPA,
    ),
    Exercise(
        "DecoderBlock",
        check_DecoderBlock,
        kind="module",
        points=2,
        minutes=10,
        level=2,
        forbidden=_SDPA,
    ),
    Exercise("GPT", check_GPT, kind="module", points=3, minutes=20, level=2, forbidden=_SDPA),
    Exercise("sample", check_sample, kind="function", points=4, minutes=30, level=3),
    Exercise("quiz_temperature", check_quiz_temperature, kind="quiz", points=1, minutes=3, level=2),
)
