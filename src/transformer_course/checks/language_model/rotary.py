"""Checks for lesson 11's rotary_embedding and apply_rotary (RoPE), in either pairing."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import torch

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.graph import call_gradients
from transformer_course.checking.hints import Hint, outer_axis_hint
from transformer_course.checking.inputs import randn
from transformer_course.checking.layers import mistake_pairs
from transformer_course.checking.layouts import match_layout
from transformer_course.checking.localise import (
    agreeing_mistakes,
    candidates_message,
)
from transformer_course.checking.oracles import (
    rope_angles_f,
    rotate_f,
)
from transformer_course.checking.precision import narrow_variants
from transformer_course.checking.recovered_angles import HALF_TURN_SLIPS, half_turn_slips
from transformer_course.checking.table_columns import (
    column_sources,
    cut_code,
    cut_for,
    cut_from,
    describe_columns,
    describe_cut,
    sinusoid_columns,
    sinusoid_tables,
)
from transformer_course.checking.term_factors import term_factors
from transformer_course.checking.uninitialised import unwritten_tensor_note
from transformer_course.reference import language_model as ref


@dataclass(frozen=True)
class _RopeCase:
    length: int
    d_head: int
    base: float | None  # None: the default


# the last: pairs whose base ** (2i) is past float32's range (blind19d, 10000 ** 10 = 1e40)
_VISIBLE_ROPE = [_RopeCase(6, 8, None), _RopeCase(40, 16, 100.0), _RopeCase(3, 24, None)]
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
    later = (positions * thetas[_TIMES_D])[:, 1:]  # (length, d_head // 2 - 1)
    if later.numel() == 0 or float(later.abs().max()) < 1e-3:
        # every angle but pair 0's is 0 to the tolerance: frozen pairs, which other slips
        # give too (_frozen_pairs names them together)
        del thetas[_TIMES_D]
    found = {
        message: torch.stack([(positions * theta).cos(), (positions * theta).sin()])
        for message, theta in thetas.items()
    }
    # blind18d-rope-angles-as-powers got "differs" alone: the position as an exponent
    theta = base ** (-2 * i / d_head)  # (d_head // 2,)
    powered = theta**positions  # (length, d_head // 2)
    found[_POWERS] = torch.stack([powered.cos(), powered.sin()])
    return found


_POWERS = (
    "Your angles are theta_i ** m, each frequency raised to the power of the position, "
    "instead of the product m * theta_i: position 0 gets the angle 1 instead of 0, and the "
    "angles shrink with the position instead of growing. angle[m, i] = m * theta_i: "
    "torch.arange(length)[:, None] * theta."
)


_SWAPPED_COS_SIN = "You returned (sin, cos): return (cos, sin), in that order."
_IGNORED_BASE = (
    "Your rotary_embedding ignores the base argument: its tables are those of the default "
    "base, 10000, whatever base is passed (10000 written into the formula where base "
    "belongs). Use the argument: theta_i = base ** (-2i / d_head)."
)
_ROPE_SHAPE = (
    "rotary_embedding returns one angle per pair: (length, d_head // 2). (Implementations "
    "that rotate half often repeat the table to d_head with torch.cat([angles, angles], -1); "
    "this contract keeps one column per pair, and apply_rotary uses it for both halves.)"
)


def _pairs_prefix(value: Any, name: str, case: _RopeCase, base: float) -> str:
    """When a table has another number of columns than d_head // 2 and its columns are the
    right table's first ones (b12b: torch.arange(0, d_head // 2, 2), d_head // 4 pairs;
    torch.arange(d_head) with the exponent 2i / d_head, d_head columns): what the columns
    hold and which index range makes that many; "" otherwise."""
    if not isinstance(value, torch.Tensor) or value.dim() != 2 or value.shape[0] != case.length:
        return ""
    columns, pairs = int(value.shape[1]), case.d_head // 2
    if columns == pairs or columns == 0:
        return ""
    # the formula's angles for pairs 0 .. columns - 1, continued past d_head // 2 (not a
    # copy of the table, which rotate-half libraries concatenate: told apart here)
    i = torch.arange(columns, dtype=torch.float64)
    angles = torch.arange(case.length, dtype=torch.float64)[:, None] * base ** (
        -2 * i / case.d_head
    )
    right = angles.cos() if name == "cos" else angles.sin()
    if not torch.allclose(value.double(), right, atol=1e-4):
        return ""
    ranges = {
        case.d_head // 4: "torch.arange(0, d_head // 2, 2) stops at d_head // 2 with a step of "
        "2, d_head // 4 indices",
        case.d_head: "torch.arange(d_head) gives one index per feature",
        # blind17b-rope-one-frequency-too-many was told only "1 more columns"
        case.d_head // 2 + 1: "one frequency too many, d_head // 2 + 1: the pair indices "
        "ran up to d_head inclusive, torch.arange(0, d_head + 1, 2) or torch.range(0, "
        "d_head, 2) (whose end is included)",
    }
    why = f" ({ranges[columns]})" if columns in ranges else ""
    what = (
        f"the angles of the first {columns} pairs only"
        if columns < pairs
        else f"the d_head // 2 pairs' angles and {columns - pairs} more columns"
    )
    return (
        f"Its {columns} columns are {what}: one column per pair i = 0 .. d_head // 2 - 1 is "
        f"wanted{why}. The exponents 2i / d_head are torch.arange(0, d_head, 2) / d_head."
    )


def _width_written(width: int, d_head: int) -> str:
    """``width`` as the expressions of d_head that give it ("d_head // 2 or d_head - 2"
    when two do), "" when none does."""
    forms = {
        "d_head // 2": d_head // 2,
        "d_head // 4": d_head // 4,
        "2 * d_head": 2 * d_head,
        "d_head - 1": d_head - 1,
        "d_head + 1": d_head + 1,
        "d_head - 2": d_head - 2,
        "d_head + 2": d_head + 2,
    }
    return " or ".join(form for form, size in forms.items() if size == width)


def _table_for_width(value: Any, name: str, case: _RopeCase, base: float) -> str:
    """When a table has another number of columns than d_head // 2 and is exactly the
    right table for a head of another width w (every frequency base ** (-2i / w) and the
    count of pairs from w: blind25c, d_head // 2 passed to the formula, d_head // 4
    columns): which width the table was made for; "" otherwise."""
    if not isinstance(value, torch.Tensor) or value.dim() != 2 or value.shape[0] != case.length:
        return ""
    columns = int(value.shape[1])
    if columns in (0, case.d_head // 2):
        return ""
    width = 2 * columns  # the head whose d_head // 2 pairs make that many columns
    if width == case.d_head:
        return ""
    angles = rope_angles_f(case.length, width, base)  # (length, columns)
    right = angles.cos() if name == "cos" else angles.sin()
    # the first columns of the right formula, continued: one column (angle m, the same for
    # every width) or such a prefix tells no width apart (_pairs_prefix names it)
    i = torch.arange(columns, dtype=torch.float64)
    prefix = torch.arange(case.length, dtype=torch.float64)[:, None] * base ** (
        -2 * i / case.d_head
    )  # (length, columns)
    prefix = prefix.cos() if name == "cos" else prefix.sin()
    if torch.allclose(right, prefix, atol=1e-4) or not torch.allclose(
        value.double(), right, atol=1e-4
    ):
        return ""
    given = _width_written(width, case.d_head)
    count = _width_written(columns, case.d_head)
    return (
        f"Its {columns} columns{f' (= {count})' if count else ''} are the whole table for a "
        f"head {width} wide, not d_head = {case.d_head} wide: the frequency formula was "
        f"given {f'{given} ({width})' if given else width} where d_head belongs, so it makes "
        f"{'too few' if columns < case.d_head // 2 else 'too many'} frequencies, {columns} "
        f"of them, base ** (-2i / {width}), instead of d_head // 2 = {case.d_head // 2} "
        "frequencies base ** (-2i / d_head). Use d_head in both places: theta = base ** "
        "(-torch.arange(0, d_head, 2) / d_head)."
    )
    return ""


def check_rotary_embedding(rotary_embedding, *, hidden: bool = False) -> None:
    with Checker("rotary_embedding", hidden=hidden) as c:
        c.require_callable(rotary_embedding)
        runs = []
        cases = _HIDDEN_ROPE if hidden else _VISIBLE_ROPE
        for case in cases:
            args = (case.length, case.d_head) + (() if case.base is None else (case.base,))
            base = 10000.0 if case.base is None else case.base
            call = f"rotary_embedding{args}"
            got = c.call(
                rotary_embedding,
                *args,
                call_repr=call,
                hints=[
                    outer_axis_hint(
                        ("length (one per position)", case.length),
                        ("d_head // 2 (one per pair)", case.d_head // 2),
                        "angles = torch.arange(length)[:, None] * theta, (length, d_head // 2)",
                    )
                ],
            )
            c.expect_type(got, tuple, call, "Return a pair (cos, sin).")
            c.expect_true(len(got) == 2, f"{call} should return a pair (cos, sin).")
            shape = (case.length, case.d_head // 2)
            for name, value in zip(("cos", "sin"), got, strict=True):
                c.expect_type(value, torch.Tensor, f"{call}: {name}")
                c.expect_shape(
                    value,
                    shape,
                    f"{call}: {name}",
                    _table_for_width(value, name, case, base)
                    or _pairs_prefix(value, name, case, base)
                    or _ROPE_SHAPE,
                )
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
            if not all(bool(torch.isfinite(value).all()) for value in got):
                c.expect_true(not _pow_swapped(rotary_embedding), f"{call}: {_POW_SWAPPED}")
            angles = rope_angles_f(case.length, case.d_head, base)
            same = _one_table_twice(got, angles)
            c.expect_true(not same, f"{call}: {same}")
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
            mistakes.update(_low_precision_angles(case.length, case.d_head, base))
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
        _judge_runs(
            c,
            runs,
            localise=lambda: (
                _wrong_frequencies(runs, cases, rotary_embedding)
                or _tables_of_two_angles(runs, cases)
            ),
            columns=lambda: _columns_misplaced(runs, cases),
        )
        stale = _stale_tables(rotary_embedding)
        c.expect_true(not stale, stale)


# one length, three calls that differ from the first in base, then in d_head: a result kept
# between calls under a key that leaves an argument out comes back for the later calls
_STALE_PROBE = ((11, 8, 100.0), (11, 8), (11, 4, 100.0))


def _stale_tables(rotary_embedding) -> str:
    """When every call the check made (each with a length of its own) was right: whether
    calls with one length and another d_head or base give back an earlier call's tables
    (blind16b: a dict default argument keyed by the length alone, accepted before); the
    message, or "" when they are right (or the probe says nothing)."""
    results: list[tuple[tuple, torch.Tensor, bool]] = []  # (args, (cos, sin) stacked, right)
    stale: list[tuple[tuple, tuple]] = []  # (later call's args, earlier call's args)
    for args in _STALE_PROBE:
        try:
            with torch.no_grad():
                cos, sin = rotary_embedding(*args)
            got = torch.stack([torch.as_tensor(cos).double(), torch.as_tensor(sin).double()])
        except Exception:  # a probe: the checks' own calls tell errors
            return ""
        length, d_head = args[0], args[1]
        angles = rope_angles_f(length, d_head, args[2] if len(args) > 2 else 10000.0)
        expected = torch.stack([angles.cos(), angles.sin()])  # (2, length, d_head // 2)
        right = got.shape == expected.shape and torch.allclose(got, expected, atol=1e-4)
        if not right:
            earlier = [
                before
                for before, table, was_right in results
                if was_right and table.shape == got.shape and torch.allclose(table, got)
            ]
            if not earlier:
                return ""  # wrong in another way: not what this probe tells
            stale.append((args, earlier[0]))
        results.append((args, got, right))
    if not stale:
        return ""

    def shown(args: tuple) -> str:
        return f"rotary_embedding{args}"

    def base(args: tuple) -> float:
        return args[2] if len(args) > 2 else 10000.0

    left_out = [
        name
        for name, differs in (
            ("d_head", any(a[1] != b[1] for a, b in stale)),
            ("base", any(base(a) != base(b) for a, b in stale)),
        )
        if differs
    ]
    later, earlier = stale[0]
    return (
        f"{shown(later)} returned the very tables of an earlier call, {shown(earlier)} (the "
        "same length, another d_head or base), although each call with a length not asked "
        "before gave the right tables: your tables are kept between calls (a cache: a dict as "
        "a default argument, a global dict, an attribute) under a key that leaves out "
        f"{' and '.join(left_out)}, so a later call with the same length gets the stale "
        "tables of an earlier one. Key the cache on every argument, (length, d_head, base) "
        "(functools.lru_cache does), or compute the "
        "tables on each call: they are cheap."
    )


_POW_SWAPPED = (
    "cos and sin contain NaN or inf, and with base=2.0 your tables are those of theta_i = "
    "1 / (2i / d_head) ** base (infinite for the first pair, 16, 4, ... for the others "
    "where 2 ** (-2i / d_head) belongs): torch.pow's arguments are swapped, torch.pow("
    "exponents, base) (or exponents ** base) raises each exponent to the power base. The "
    "base goes first: theta = 1.0 / torch.pow(base, torch.arange(0, d_head, 2) / d_head), "
    "or base ** (-torch.arange(0, d_head, 2) / d_head)."
)


def _pow_swapped(rotary_embedding) -> bool:
    """For tables with NaN or inf: whether they are those of theta_i = 1 / (2i / d) **
    base, torch.pow's arguments swapped (b14b: "contains NaN or inf" alone), told by a
    probe with base 2, where the pairs after the first have finite angles (16 m, 4 m,
    ...) and the first an infinite frequency."""
    length, d_head, base = 4, 8, 2.0
    try:
        got = rotary_embedding(length, d_head, base)
    except Exception:  # a probe: the error is told by the checks' own calls
        return False
    shape = (length, d_head // 2)
    if not (
        isinstance(got, tuple)
        and len(got) == 2
        and all(isinstance(t, torch.Tensor) and tuple(t.shape) == shape for t in got)
    ):
        return False
    exponents = torch.arange(0, d_head, 2, dtype=torch.float64) / d_head  # (d_head // 2,)
    theta = 1.0 / exponents[1:].pow(base)  # the pairs after the first: finite
    angles = torch.arange(length, dtype=torch.float64)[:, None] * theta  # (length, pairs - 1)
    tables = torch.stack([got[0].double(), got[1].double()])  # (2, length, d_head // 2)
    expected = torch.stack([angles.cos(), angles.sin()])
    return bool(
        (~torch.isfinite(tables[..., 0])).any()
        and torch.allclose(tables[..., 1:], expected, rtol=1e-3, atol=1e-3)
    )


_LOW_PRECISION = (
    "Your angles are computed in {name}: the frequencies, the positions and their "
    "products are rounded to {name}'s {bits}-bit mantissa (about {digits} significant "
    "digits), so every angle, and its cos and sin, is off (positions past {exact} are not "
    "even whole numbers). A model cast to half precision does this to its buffers. "
    "Compute theta, the positions and the angles in float32 or float64 "
    "(torch.arange(..., dtype=torch.float64)), and cast only cos and sin to float32."
)


def _low_precision_angles(length: int, d_head: int, base: float) -> dict[str, torch.Tensor]:
    """The table with the frequencies and angles computed in a half-precision dtype (b13b:
    bfloat16, as a model cast with .to(torch.bfloat16) makes its buffers; "largest
    difference" alone), cos and sin taken in that dtype or in float32: {message: (cos, sin)
    stacked, float64}."""
    found = {}
    for dtype, name, bits, digits, exact in (
        (torch.bfloat16, "bfloat16", 8, 3, 256),
        (torch.float16, "float16", 11, 4, 2048),
    ):
        theta = base ** (-torch.arange(0, d_head, 2, dtype=dtype) / d_head)  # (d_head // 2,)
        angles = torch.arange(length, dtype=dtype)[:, None] * theta  # (length, d_head // 2)
        message = _LOW_PRECISION.format(name=name, bits=bits, digits=digits, exact=exact)
        for taken, said in (
            (angles, ""),
            (
                angles.float(),
                " (Your cos and sin, taken in float32 afterwards, cannot undo the rounding.)",
            ),
        ):
            found[message + said] = torch.stack([taken.cos(), taken.sin()]).double()
    return found


def _turns(got: torch.Tensor, length: int) -> torch.Tensor | None:
    """The angle per position of each pair of a (cos, sin) table stacked, if the table is
    m · theta_i (position 0 unrotated, each pair turning by one angle per position)."""
    if length < 2:
        return None
    cos, sin = got[0], got[1]  # (len, pairs)
    theta = torch.atan2(sin[1], cos[1])  # (pairs,): the angle per position, in (-pi, pi]
    positions = torch.arange(length, dtype=torch.float64)[:, None]
    if not (
        torch.allclose(cos, (positions * theta).cos(), atol=1e-4)
        and torch.allclose(sin, (positions * theta).sin(), atol=1e-4)
    ):
        return None
    return theta


def _uniform_factor(theta: torch.Tensor, right: torch.Tensor) -> float | None:
    """The one factor by which every pair turns too far, if there is one (not 1)."""
    big = right.abs() > 1e-3
    if not bool(big.sum() > 1):
        return None
    ratio = theta[big] / right[big]
    if not bool(torch.allclose(ratio, ratio[0].expand_as(ratio), rtol=1e-3)):
        return None
    factor = float(ratio[0])
    return None if abs(factor - 1) <= 1e-3 else factor


def _factor_at(rotary_embedding, length: int, d_head: int, base: float) -> float | None:
    """The one factor by which every pair of rotary_embedding(length, d_head, base) turns
    too far per position, if there is one."""
    try:
        with torch.no_grad():
            cos, sin = rotary_embedding(length, d_head, base)
        got = torch.stack([torch.as_tensor(cos).double(), torch.as_tensor(sin).double()])
    except Exception:  # a probe: any failure means no answer
        return None
    if got.shape != (2, length, d_head // 2):
        return None
    theta = _turns(got, length)
    if theta is None:
        return None
    angles = rope_angles_f(length, d_head, base)
    return _uniform_factor(theta, torch.atan2(angles.sin()[1], angles.cos()[1]))


def _scaled_positions(rotary_embedding, case: _RopeCase) -> str:
    """Every pair turning too far by one factor is the positions or the frequencies
    scaled: the two give the same table at one length, but frequencies do not depend on
    the length, so a probe at another length with the same d_head and base parts them
    (blind10h: positions from torch.linspace(0, length, length) were told "your
    positions are right")."""
    base = 10000.0 if case.base is None else case.base
    lengths = (case.length, 2 * case.length + 3)
    factors = [_factor_at(rotary_embedding, n, case.d_head, base) for n in lengths]
    if None in factors or abs(factors[0] - factors[1]) < 1e-3:
        return ""
    shown = ", ".join(f"{f:.4g} at length {n}" for n, f in zip(lengths, factors, strict=True))
    spacing = next(
        (
            told
            for told, factor_of in _POSITION_SPACINGS.items()
            if all(
                abs(f - factor_of(n)) < 1e-3 * abs(f) for n, f in zip(lengths, factors, strict=True)
            )
        ),
        "",
    )
    return (
        "Your positions are wrong: every pair turns too far per position by one factor, "
        f"and that factor changes with the length at the same d_head and base ({shown}). "
        "The frequencies do not depend on the length, so the positions do: they are not "
        f"the integers 0, 1, ..., length - 1{spacing}. Use torch.arange(length)."
    )


#: {how the positions are spaced: the factor per position it gives at a length n}; the
#: two probe lengths part every two of them (blind16b-rope-positions-divided-by-length:
#: arange(length) / length was told only that the factor changes with the length)
_POSITION_SPACINGS = {
    " but spaced length / (length - 1) apart, as torch.linspace(0, length, length) makes "
    "them": lambda n: n / (n - 1),
    " but divided by the length, fractions 0, 1 / length, ..., (length - 1) / length in "
    "[0, 1) (torch.arange(length) / length), so every angle but position 0's is length "
    "times too small": lambda n: 1 / n,
    " but spread over [0, 1], 0, 1 / (length - 1), ..., 1 (torch.linspace(0, 1, length), "
    "or torch.arange(length) / (length - 1)), so every angle is length - 1 times too "
    "small": lambda n: 1 / (n - 1),
}


def _another_base(runs: list[tuple], cases: list[_RopeCase]) -> str:
    """When the learner's angles per position are exactly base' ** (-2i / d_head) for a
    base' other than the case's, on every case checked (the base' fitted on the cases with
    three pairs or more, every case confirming it): that base', and the slip that makes it
    when one is known (b12b: exp(-2i / d_head · log10(base)), the base-10 logarithm in the
    log-space form, is base' = e ** log10(base)); "" otherwise."""
    import math

    told: set[frozenset[str]] = set()
    first: tuple[float, float] | None = None
    for (got, _expected, _call, *_), case in zip(runs, cases, strict=True):
        theta = _turns(got, case.length) if case.length >= 2 else None
        if theta is None:
            return ""
        d, base = case.d_head, 10000.0 if case.base is None else case.base
        if len(theta) < 2 or abs(float(theta[0]) - 1) > 1e-4 or not 0 < float(theta[1]) < 1:
            return ""
        fitted = float(theta[1]) ** (-d / 2)
        model = fitted ** (-2 * torch.arange(len(theta), dtype=torch.float64) / d)
        if not torch.allclose(theta.double(), model, rtol=1e-3, atol=1e-6):
            return ""
        known = {
            "log10": math.e ** math.log10(base),
            "log2": math.e ** math.log2(base),
            "default": 10000.0,
            "sqrt": base**0.5,
            "squared": base**2.0,
        }
        fits = frozenset(n for n, v in known.items() if abs(fitted / v - 1) < 1e-3)
        told.add(fits)
        if len(theta) >= 3 and first is None:
            first = (fitted, base)
    # one slip that fits every case (b13b: a doubled exponent gives base ** 2, which is
    # also the default 10000 for a case of base 100)
    names = frozenset.intersection(*told) if told else frozenset()
    if first is None or (len(told) != 1 and not names):
        return ""
    fitted, base = first
    said = {
        "log10": " That is e ** log10(base): the base-10 logarithm where the natural one "
        "belongs (the log-space form is exp(-2i / d_head · ln(base)), math.log(base), not "
        "math.log10).",
        "log2": " That is e ** log2(base): the base-2 logarithm where the natural one belongs "
        "(exp(-2i / d_head · math.log(base))).",
        "default": " That is the default 10000: the base given was not used.",
        "sqrt": " That is sqrt(base): the exponent is i / d_head, where it is 2i / d_head.",
        "squared": " That is base ** 2: the exponent is doubled, theta_i = base ** (-4i / "
        "d_head), where it is 2i / d_head (the even exponents torch.arange(0, d_head, 2) "
        "divided by d_head // 2 instead of d_head, or the factor 2 applied twice).",
    }
    text = "".join(said[n] for n in ("log10", "log2", "default", "sqrt", "squared") if n in names)
    return (
        f" Your angles are theta_i = {fitted:.4g} ** (-2i / d_head) for every pair: the "
        f"frequencies of base {fitted:.4g}, not {base:g}.{text}"
    )


#: log10 of float32's largest magnitude (about 3.4e38)
_FLOAT32_MAX_LOG10 = 38.53
#: exp(-x) is exactly 0 in float32 for x above about 103.9 (its smallest subnormal)
_FLOAT32_EXP_UNDERFLOW = 103.98


def _frozen_pairs(theta: torch.Tensor, bad: list[int], case: _RopeCase) -> str:
    """When the pairs before one are right and every pair from it on turns by exactly 0:
    a power of the base computed on its own left float32's range on the way (base ** 2i
    overflowing to inf, 1 / inf = 0, blind19d-rope-power-before-root-overflows; or base **
    -2i underflowing to 0) before a root or a division would have brought it back; where no
    power can leave the range, from pair 1 on, an exponent far too negative (the log-space
    form without its logarithm); "" otherwise."""
    first = bad[0]
    if first == 0 or bad != list(range(first, len(theta))):
        return ""
    if not bool((theta[first:].abs() < 1e-12).all()):
        return ""
    base = 10000.0 if case.base is None else case.base
    last = first - 1
    frozen = (
        f"Pairs {first} to {len(theta) - 1} never rotate: their angle per position is "
        f"exactly 0 (cos 1 and sin 0 at every position), while pairs 0 to {last} are right."
    )
    if 2 * first * math.log10(base) < _FLOAT32_MAX_LOG10:
        # no power of the base leaves float32's range here: an exponent too negative
        # (blind21c-rope-log-space-without-log was told an overflow of 10000 ** 2 = 1e8)
        d_head = 2 * len(theta)
        exponent = 2 * first * base / d_head
        if first != 1 or exponent < _FLOAT32_EXP_UNDERFLOW:
            return ""
        no_log = (
            f"the log-space form written without its logarithm, exp(-2i / d_head · base) = "
            f"exp(-{exponent:g}) at pair 1 (pair 0 is exp(0) = 1 whatever multiplies its "
            "exponent)"
        )
        times_d = 2 * d_head * math.log10(base)
        if case.length * 10 ** (-min(times_d, 300)) < 1e-3:
            # the exponent multiplied by d_head turns these pairs by less than the
            # tolerance too: both are said
            return (
                f"{frozen} No power of the base leaves float32's range here, so nothing "
                "overflowed: the frequencies from pair 1 on are 0 or too small to turn at "
                f"all. Two slips give exactly this: {no_log}, or the exponent multiplied by "
                f"d_head where it divides, base ** (-2i · d_head) = 1e-{times_d:g} at pair "
                "1. Write theta_i = base ** (-2i / d_head), or exp(-2i / d_head · "
                "math.log(base))."
            )
        return (
            f"{frozen} No power of the base leaves float32's range here ({base:g} ** 2 = "
            f"{base**2:.3g}), so nothing overflowed: the frequencies are exp of numbers far "
            f"below -103, where exp gives exactly 0 in float32. That is {no_log}: write "
            "exp(-2i / d_head · math.log(base)), or base ** (-2i / d_head)."
        )
    return (
        f"{frozen} A frequency that drops to exactly 0 from one pair on is a number that "
        "left float32's range on the way: float32 holds magnitudes up to about 3.4e38 "
        "(and down to about 1.4e-45), and here the power base ** (2i) reaches "
        f"{base:g} ** {2 * first} = {base ** (2 * first):.3g} at pair {first}. Computed "
        "on its own, base ** (2i) overflows to inf (and 1 / inf is 0), or base ** (-2i) "
        "underflows to 0, before the root by d_head could bring it back. Raise the base to "
        "the whole exponent at once, theta_i = base ** (-2i / d_head): its values stay "
        "between 0 and 1."
    )


def _slip_frequencies(d_head: int, base: float) -> dict[str, torch.Tensor]:
    """The frequencies each known slip of theta_i = base ** (-2i / d_head) gives, by the
    slip's description (float64; the learner's float32 is compared as angles)."""
    two_i = torch.arange(0, d_head, 2, dtype=torch.float64)  # (d_head // 2,)
    return {
        "parentheses missing around the exponent (base ** -torch.arange(0, d_head, 2) / "
        "d_head is (base ** -2i) / d_head)": base**-two_i / d_head,
        "parentheses missing around the exponent (base ** torch.arange(0, d_head, 2) / "
        "d_head is (base ** 2i) / d_head)": base**two_i / d_head,
        "// where / belongs (-2i // d_head is -1 for every i > 0)": base
        ** torch.div(-two_i, d_head, rounding_mode="floor"),
        "a lost minus (base ** (2i / d_head))": base ** (two_i / d_head),
    }


def _frequency_slips(
    theta: torch.Tensor,
    right: torch.Tensor,
    bad: list[int],
    case: _RopeCase,
    *,
    observed: bool = True,
) -> str:
    """The known slips whose frequencies give the learner's angles per position (every
    pair, modulo 2π), named only when they fit; when none does, what is observed of the
    wrong pairs: which ones, and how many times as far as theta_i they turn
    (blind23c-rope-llama3-frequency-scaling: Llama 3.1's scaling of the slow frequencies
    was told of a lost minus and missing parentheses, which its angles contradict)."""
    base = 10000.0 if case.base is None else case.base
    measured = theta.double()  # (pairs,): in (-pi, pi]
    fitting = []
    for slip, frequencies in _slip_frequencies(case.d_head, base).items():
        if frequencies.shape != measured.shape:
            continue
        for dtype in (torch.float64, torch.float32):
            predicted = frequencies.to(dtype)
            angle = torch.atan2(predicted.sin(), predicted.cos()).double()
            gap = torch.remainder(measured - angle + torch.pi, 2 * torch.pi) - torch.pi
            if bool(torch.isfinite(gap).all()) and bool((gap.abs() < 1e-3).all()):
                fitting.append(slip)
                break
    if fitting:
        return f" That is what {' or '.join(fitting)} gives: fix that."
    if not observed:  # the caller has said what is observed (one factor for every pair)
        return ""
    # no known slip fits: only what is observed, when each wrong pair turns the same way
    # as theta_i (a positive angle per position, not past a half turn)
    wrong_mine, wrong_right = measured[bad], right.double()[bad]
    if not bool((wrong_mine > 0).all()) or not bool((wrong_right > 1e-12).all()):
        return ""
    ratios = wrong_mine / wrong_right
    listed = ", ".join(f"pair {i}: {float(r):.3g} times" for i, r in zip(bad, ratios))
    slowest = bad == list(range(bad[0], len(measured))) and bad[0] > 0
    wrong_ones = f"pair {bad[0]}" if len(bad) == 1 else f"pairs {bad[0]} to {len(measured) - 1}"
    right_ones = "pair 0 is" if bad[0] == 1 else f"pairs 0 to {bad[0] - 1} are"
    where = (
        f" Only the slowest pairs are wrong ({wrong_ones}; {right_ones} right)"
        if slowest
        else " The wrong pairs"
    )
    slower = bool((ratios < 1).all())
    told = (
        f"{where}, and they turn {'slower' if slower else 'by other angles'} than theta_i "
        f"({listed} as far): their frequencies are "
        f"{'divided by a factor' if slower else 'changed'} before the angles are taken."
    )
    if slowest and slower:
        told += (
            " Code that rescales only the long wavelengths, as the context-extension "
            "scalings of RoPE do (Llama 3.1's rope_scaling, NTK-aware or YaRN scaling), "
            "gives this; the lesson's table uses theta_i = base ** (-2i / d_head) "
            "unchanged for every pair."
        )
    return told


def _wrong_frequencies(runs: list[tuple], cases: list[_RopeCase], rotary_embedding) -> str:
    """When no known slip fits: the learner's tables as angles, if they are m · theta_i
    (position 0 unrotated, each pair turning by one angle per position) with other
    frequencies than base ** (-2i / d_head): which pairs, and their angles per position
    (blind10b: a dropped parenthesis and a floor division got "largest difference")."""
    for (got, expected, call, _, _, _), case in zip(runs, cases, strict=True):
        if torch.allclose(got, expected, rtol=1e-4, atol=1e-4) or case.length < 2:
            continue
        theta = _turns(got, case.length)
        if theta is None:
            return ""  # not a table of m · theta_i: the layout checks say more
        right = torch.atan2(expected[1][1], expected[0][1])
        diff = torch.remainder(theta - right + torch.pi, 2 * torch.pi) - torch.pi
        bad = (diff.abs() > 1e-4).nonzero().flatten().tolist()
        if not bad:
            return ""

        def shown(t: torch.Tensor) -> str:
            return (
                "["
                + ", ".join(f"{v:.3f}" for v in t[:6].tolist())
                + (", ...]" if len(t) > 6 else "]")
            )

        positions = _scaled_positions(rotary_embedding, case)
        if positions:
            return f"{call} is not what the reference gives. {positions}"
        frozen = _frozen_pairs(theta, bad, case)
        if frozen:
            return f"{call} is not what the reference gives. {frozen}"
        factor = _uniform_factor(theta, right)
        interpolation = (
            " (the linear position interpolation of long-context RoPE, positions * "
            f"{factor:.3g}, does this)"
            if factor is not None and factor < 1
            else ""
        )
        scaled = (
            f" Every pair turns {factor:.3g} times as far as it should, by the same factor "
            f"at every length checked: every angle is {factor:.3g} · m · theta_i. Either the "
            f"positions are scaled by {factor:.3g}{interpolation}, or every frequency is "
            "multiplied by it; the two give the same table. The lesson's table uses the "
            "positions 0, 1, 2, ... and theta_i = base ** (-2i / d_head) as they are."
            if factor is not None
            else ""
        )
        same = scaled or (
            f" Every pair of yours turns by the same angle ({float(theta[0]):.3f}): the "
            "exponent is the same for every pair (an integer division 2i // d_head, which "
            "is 0 for every i, does that), where it must grow with i."
            if len(theta) > 1 and bool(torch.allclose(theta, theta[0].expand_as(theta)))
            else ""
        )
        same = same or _another_base(runs, cases)
        # one factor for every pair is what scaled positions give too: claim the
        # positions right only when the pairs are off by different factors
        opening = (
            "Position 0 is unrotated and each pair turns by one angle per position, but "
            "not by the right one"
            if scaled
            else "Your positions are right (angle[m, i] = m · theta_i from angle 0 at "
            "position 0), but not your frequencies"
        )
        return (
            f"{call} is not what the reference gives. {opening}: pair "
            f"{bad[0]} is the first wrong ({len(bad)} of {len(theta)} pairs). Per position "
            f"(atan2(sin[1], cos[1]), modulo 2π) yours turn by {shown(theta)}, the pairs "
            f"should turn by theta_i = base ** (-2i / d_head) = {shown(right)}.{same}"
            f"{_frequency_slips(theta, right, bad, case, observed=not scaled)}"
        )
    return ""


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


def _sequential_halves(x: torch.Tensor, angles: torch.Tensor) -> dict[str, torch.Tensor]:
    """The two halves of each pair written one after the other into one tensor that the
    second reads from: the second half computed from the first half already rotated
    (a and b views of a clone written in place, blind19d-rot-second-half-from-rotated-
    view got "largest difference" alone), or the first from the second, when the
    halves are written in the other order."""
    half = x.shape[-1] // 2
    a, b = x.double()[..., :half], x.double()[..., half:]  # (..., len, d_head / 2)
    cos, sin = angles.cos(), angles.sin()  # (len, d_head / 2)
    new_a, new_b = a * cos - b * sin, a * sin + b * cos
    view = (
        "Either the name was reassigned before the other half used it (a = a * cos - b * "
        "sin, then b from that new a), or a and b are views of the tensor you write into "
        "(slices of a clone, or of x, share its memory), so the first write changes what "
        "the second reads"
    )
    return {
        "Your second half is computed from the first half already rotated: a * sin + b * cos "
        f"with the new a, a * cos - b * sin, where the original a belongs. {view}. Compute "
        "both halves from the original a and b before writing either, e.g. "
        "torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).": torch.cat(
            [new_a, new_a * sin + b * cos], dim=-1
        ),
        "Your first half is computed from the second half already rotated: a * cos - b * sin "
        f"with the new b, a * sin + b * cos, where the original b belongs. {view}. Compute "
        "both halves from the original a and b before writing either, e.g. "
        "torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).": torch.cat(
            [a * cos - new_b * sin, new_b], dim=-1
        ),
    }


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


_TERMS = {  # (output part, input part): (the factor's name, its sign) in the rotation
    ("first", "a"): ("cos", 1),
    ("first", "b"): ("sin", -1),
    ("second", "a"): ("sin", 1),
    ("second", "b"): ("cos", 1),
}
_FORMULA = {"first": "a * cos - b * sin", "second": "a * sin + b * cos"}


def _unused_feature(outputs, parts, inputs, cos: torch.Tensor, sin: torch.Tensor) -> str:
    """One feature of each pair that never reaches the result (x with only that feature
    rotates to 0), and whether the other stands in for it in all four terms
    (blind10h-rotary-first-feature-twice: (a cos - a sin, a sin + a cos) got "differs")."""
    cos, sin = cos.double(), sin.double()
    for missing, used in (("b", "a"), ("a", "b")):
        if not torch.allclose(outputs[missing].double(), torch.zeros(()).double(), atol=1e-6):
            continue
        got = parts(outputs[used])
        p = inputs[used]
        copied = torch.allclose(got["first"], p * cos - p * sin, rtol=1e-4, atol=1e-5) and (
            torch.allclose(got["second"], p * sin + p * cos, rtol=1e-4, atol=1e-5)
        )
        how = (
            f"{used} stands in for {missing} in every term, ({used} * cos - {used} * sin, "
            f"{used} * sin + {used} * cos): a copy-paste slip"
            if copied
            else f"no term reads {missing}"
        )
        return (
            f"Your result does not depend on the {'second' if missing == 'b' else 'first'} "
            f"feature of each pair, {missing}: x with only its {missing} features rotates to "
            f"0: {how}. Pair (a, b) becomes (a * cos - b * sin, "
            "a * sin + b * cos)."
        )
    return ""


#: one slip made in all four terms, by the words that name it in one term's slip
_EVERY_TERM = {
    "where": (
        "cos and sin are exchanged in every term: yours computes (a * sin - b * cos, a * cos "
        "+ b * sin). Were the tables passed or unpacked in the wrong order (apply_rotary(x, "
        "sin, cos), or sin, cos = rotary_embedding(...))? rotary_embedding returns (cos, sin) "
        "and apply_rotary takes (x, cos, sin): pair (a, b) becomes (a * cos - b * sin, "
        "a * sin + b * cos)."
    ),
    "wrong sign": (
        "Every term has the wrong sign: yours is minus the rotation, (-a * cos + b * sin, "
        "-a * sin - b * cos). Pair (a, b) becomes (a * cos - b * sin, a * sin + b * cos)."
    ),
    "divides": (
        "Every term divides by its factor instead of multiplying (a / cos - b / sin, ...). "
        "Pair (a, b) becomes (a * cos - b * sin, a * sin + b * cos)."
    ),
    "missing": "",
}


def _formula_repeated(got: dict, inputs: dict, factors: dict) -> str:
    """One output of the pair written with the other's formula (a copy-paste slip: both
    a * cos - b * sin), the other output right; "" otherwise."""
    a, b, cos, sin = inputs["a"], inputs["b"], factors["cos"], factors["sin"]
    formulas = {"first": a * cos - b * sin, "second": a * sin + b * cos}

    def close(x: torch.Tensor, y: torch.Tensor) -> bool:
        return torch.allclose(x, y, rtol=1e-4, atol=1e-5)

    for wrong, right in (("second", "first"), ("first", "second")):
        if close(got[right], formulas[right]) and close(got[wrong], formulas[right]):
            return (
                f"Your {wrong} output repeats the {right}'s formula, {_FORMULA[right]} (a "
                f"copy-paste slip): both halves of each pair hold the same value. The {wrong} "
                f"output is {_FORMULA[wrong]}: pair (a, b) becomes (a * cos - b * sin, "
                "a * sin + b * cos)."
            )
    return ""


def _term_probe(apply_rotary, d_head: int, pairing: str) -> str:
    """Each of the rotation's four terms, measured apart: x with only its a features
    (b = 0), then only its b features, at positions 1 .. 4 (no zero sine or cosine). Each
    term the learner's values get wrong is named when it is a known slip of it (missing,
    the sign flipped, divided by its factor, the other factor) and the four add up to the
    learner's result (no term depends on the other half); "" otherwise."""
    length, half = 4, d_head // 2
    cos, sin = (t[1:] for t in ref.rotary_embedding(length + 1, d_head))
    a, b = randn((length, half), 71), randn((length, half), 72)
    zero = torch.zeros_like(a)

    def build(first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
        if pairing == "adjacent":
            return torch.stack([first, second], -1).flatten(-2)
        return torch.cat([first, second], -1)

    def parts(y: torch.Tensor) -> dict[str, torch.Tensor]:
        y = y.double()
        if pairing == "adjacent":
            return {"first": y[..., 0::2], "second": y[..., 1::2]}
        return {"first": y[..., :half], "second": y[..., half:]}

    try:
        with torch.no_grad():
            outputs = {
                "a": apply_rotary(build(a, zero), cos, sin),
                "b": apply_rotary(build(zero, b), cos, sin),
                "ab": apply_rotary(build(a, b), cos, sin),
            }
    except Exception:
        return ""
    if any(
        not isinstance(y, torch.Tensor) or tuple(y.shape) != (length, d_head)
        for y in outputs.values()
    ):
        return ""
    if not torch.allclose(
        outputs["ab"].double(), outputs["a"].double() + outputs["b"].double(), rtol=1e-4, atol=1e-4
    ):
        return ""
    unused = _unused_feature(outputs, parts, {"a": a.double(), "b": b.double()}, cos, sin)
    if unused:
        return unused
    factors = {"cos": cos.double(), "sin": sin.double()}
    inputs = {"a": a.double(), "b": b.double()}
    repeated = _formula_repeated(parts(outputs["ab"]), inputs, factors)
    if repeated:
        return repeated
    found, kinds = [], []
    for (out, part), (factor, sign) in _TERMS.items():
        got = parts(outputs[part])[out]
        p, f = inputs[part], factors[factor]
        other = "sin" if factor == "cos" else "cos"
        term = f"{'-' if sign < 0 else ''}{part} * {factor}"
        slips = {
            "": sign * p * f,
            f"the {term} term is missing": torch.zeros_like(p),
            f"the {term} term has the wrong sign": -sign * p * f,
            f"the {term} term divides by {factor} instead of multiplying: "
            f"{'-' if sign < 0 else ''}{part} / {factor}": sign * p / f,
            f"the {term} term uses {other} where {factor} belongs": sign * p * factors[other],
        }
        fits = [
            name
            for name, value in slips.items()
            if torch.allclose(got, value, rtol=1e-4, atol=1e-5)
        ]
        if fits == [""]:
            continue
        if len(fits) != 1:
            return ""
        found.append(f"in the {out} output ({_FORMULA[out]}), {fits[0]}")
        kinds.append(next(kind for kind in _EVERY_TERM if kind in fits[0]))
    if len(found) == len(_TERMS) and len(set(kinds)) == 1:  # one slip made in every term
        return _EVERY_TERM[kinds[0]]
    if len(found) > 2:  # most terms wrong: the learner's formula, read term by term
        return _formula_read(parts(outputs["ab"]), inputs, factors, pairing)
    if not found:
        return ""
    where = "halves" if pairing == "half" else "neighbouring pairs"
    return (
        "Term by term (x with only its a features, then only its b features; pairs as "
        f"{where}): " + "; ".join(found) + ". Pair (a, b) becomes (a * cos - b * sin, "
        "a * sin + b * cos)."
    )


def _signed_sum(weights: dict[str, float]) -> str:
    """{term: weight} with weights -1, 0 or 1 as a formula: "a * cos - b * sin"; "0"."""
    text = ""
    for term, weight in weights.items():
        if weight == 0:
            continue
        if not text:
            text = term if weight > 0 else f"-{term}"
        else:
            text += f" + {term}" if weight > 0 else f" - {term}"
    return text or "0"


def _formula_read(
    got: dict[str, torch.Tensor],
    inputs: dict[str, torch.Tensor],
    factors: dict[str, torch.Tensor],
    pairing: str,
) -> str:
    """Round 37 (blind29c-rot-partner-times-cos-sin-only, (-b cos, a sin): three of the
    four terms wrong, so "another layout" and "largest difference"): each output of the
    pair read as a signed sum of the four products a * cos, a * sin, b * cos, b * sin
    (:func:`~transformer_course.checking.term_factors.term_factors`, weights -1, 0 or 1
    only), written out next to the rotation's, with the terms that are missing or should
    not be there, and what position 0 (cos 1, sin 0) does with it: a rotation by angle 0
    leaves the pair unchanged. "" when an output is not such a sum."""
    products = {
        f"{part} * {factor}": inputs[part] * factors[factor]
        for part in ("a", "b")
        for factor in ("cos", "sin")
    }
    read = {}
    for out in ("first", "second"):
        weights = term_factors(got[out], products, rtol=1e-4, atol=1e-5)
        if weights is None or any(w not in (-1, 0, 1) for w in weights.values()):
            return ""
        read[out] = weights
    right = {
        "first": {"a * cos": 1, "a * sin": 0, "b * cos": 0, "b * sin": -1},
        "second": {"a * cos": 0, "a * sin": 1, "b * cos": 1, "b * sin": 0},
    }
    missing, extra = [], []
    for out in ("first", "second"):
        for term, weight in read[out].items():
            want = right[out][term]
            if weight == want:
                continue
            if want:
                missing.append(f"{'-' if want < 0 else ''}{term}")
            if weight:
                extra.append(f"{'-' if weight < 0 else ''}{term}")
    at_zero = {
        out: _signed_sum(
            {part: sum(w for t, w in read[out].items() if t == f"{part} * cos") for part in "ab"}
        )
        for out in ("first", "second")
    }
    yours = f"({_signed_sum(read['first'])}, {_signed_sum(read['second'])})"
    where = "halves" if pairing == "half" else "neighbouring pairs"
    said = [
        f"Term by term (pairs as {where}), your pair (a, b) becomes {yours}, where the "
        "rotation gives (a * cos - b * sin, a * sin + b * cos)"
    ]
    if missing:
        said.append(f"the terms {', '.join(missing)} are missing")
    if extra:
        said.append(f"{', '.join(extra)} {'is' if len(extra) == 1 else 'are'} not a term of it")
    return (
        ": ".join(said[:2])
        + (f", and {said[2]}" if len(said) > 2 else "")
        + f". That is not a rotation: at position 0 (cos = 1, sin = 0) yours turns (a, b) "
        f"into ({at_zero['first']}, {at_zero['second']}), where a turn by angle 0 leaves the "
        "pair as it is. The rotation adds two products: x * cos + partner * sin, with the "
        "partner (-b, a)."
    )


def _partners_text(partners: list[int]) -> str:
    return "[" + ", ".join(str(p) for p in partners) + "]"


def _partner_probe(apply_rotary, x: torch.Tensor, got: torch.Tensor, pairing: str) -> str:
    """Each output feature's partner, read from the learner's outputs: with cos = 0 and
    sin = 1 (every pair turned by 90 degrees) the result is the partner map alone, and
    one-hot rows x = eye(d_head) give it feature by feature (output feature i takes input
    feature partner[i], with a sign); with cos = 1 and sin = 0 the result must be x. When
    that map is a signed permutation whose partners are not the pairing's, and x * cos +
    partner(x) * sin reproduces the learner's result on the check's input, the partners
    are named (blind20c-rot-partner-from-flipped-features: x.flip(-1) pairs i with
    d_head - 1 - i, and got "differs from the reference"); "" otherwise."""
    d_head = x.shape[-1]
    half = d_head // 2
    eye = torch.eye(d_head, dtype=torch.float32)  # (len = d_head, d_head): one-hot rows
    zeros, ones = torch.zeros(d_head, half), torch.ones(d_head, half)  # (len, d_head / 2)
    try:
        with torch.no_grad():
            turned = apply_rotary(eye.clone(), zeros, ones)  # row j: where feature j goes
            kept = apply_rotary(eye.clone(), ones, zeros.clone())
    except Exception:  # a probe: any failure means no answer
        return ""
    if not all(
        isinstance(y, torch.Tensor) and tuple(y.shape) == (d_head, d_head) for y in (turned, kept)
    ):
        return ""
    turned, kept = turned.double(), kept.double()
    if not torch.allclose(kept, eye.double(), atol=1e-5):
        return ""
    signed = turned.round()
    if (
        not torch.allclose(turned, signed, atol=1e-5)
        or not torch.equal(signed.abs().sum(0), torch.ones(d_head, dtype=torch.float64))
        or not torch.equal(signed.abs().sum(1), torch.ones(d_head, dtype=torch.float64))
    ):
        return ""  # not a signed permutation: another mistake
    partners = signed.abs().argmax(0).tolist()  # output i takes input feature partners[i]
    if pairing == "adjacent":
        right = [i + 1 if i % 2 == 0 else i - 1 for i in range(d_head)]
    else:
        right = [(i + half) % d_head for i in range(d_head)]
    if partners == right:
        return ""  # the partners are right: a sign or a term, told elsewhere
    # the check's own input: x * cos + partner(x) * sin must be the learner's result
    length = x.shape[-2]
    angles = rope_angles_f(length, d_head)  # (len, d_head / 2)
    if pairing == "half":  # one angle per feature, (len, d_head)
        per_feature = torch.cat([angles, angles], dim=-1)
    else:
        per_feature = angles.repeat_interleave(2, dim=-1)
    cos, sin = per_feature.cos(), per_feature.sin()
    predicted = x.double() * cos + (x.double() @ signed) * sin  # (..., len, d_head)
    if not torch.allclose(got.double(), predicted, rtol=1e-2, atol=1e-2):
        return ""
    reversed_order = partners == list(range(d_head - 1, -1, -1))
    cause = (
        " They are the features in reverse order, d_head - 1 - i: x.flip(-1) reverses "
        "every feature, where rotate-half swaps the two halves, each in its own order."
        if reversed_order
        else ""
    )
    fix = (
        "torch.cat([-x[..., half:], x[..., :half]], dim=-1) (feature i's partner is "
        "i + d_head // 2)"
        if pairing == "half"
        else "the neighbour of each feature (2i with 2i + 1)"
    )
    return (
        "Your apply_rotary pairs each feature with the wrong partner. With cos = 0 and "
        "sin = 1 (every pair turned by 90 degrees) output feature i is its partner's value: "
        f"yours takes input features {_partners_text(partners)} for outputs 0 .. "
        f"{d_head - 1}, where the pairs are {_partners_text(right)}.{cause} So each feature "
        "turns with another pair's feature and angle, and the result is not a rotation of "
        f"the lesson's pairs. The partner term must be {fix}."
    )


def _feature_sources_probe(apply_rotary, x: torch.Tensor, got: torch.Tensor, pairing: str) -> str:
    """Which input feature each output feature reads as its own, read from the learner's
    outputs: with cos = 1 and sin = 0 (angle 0, no turn) the result must be x itself, and
    one-hot rows x = eye(d_head) give the map feature by feature; with cos = 0 and sin = 1
    the map of partners, with their signs. When the first is a selection of x's features
    (each output copies one input feature) but not x itself, and x[..., own] * cos +
    partner(x) * sin reproduces the learner's result on the check's input, the features
    each half reads are named: a slice that picks the wrong features for a or b
    (x[..., ::2] with x[..., half:], x[..., :half] twice, ...), provided the pairs are
    turned by the right formula (rotate-half only); "" otherwise."""
    d_head = x.shape[-1]
    half = d_head // 2
    eye = torch.eye(d_head, dtype=torch.float32)  # (len = d_head, d_head): one-hot rows
    zeros, ones = torch.zeros(d_head, half), torch.ones(d_head, half)  # (len, d_head / 2)
    try:
        with torch.no_grad():
            kept = apply_rotary(eye.clone(), ones, zeros.clone())  # row j: where feature j stays
            turned = apply_rotary(eye.clone(), zeros, ones.clone())  # row j: where it turns to
    except Exception:  # a probe: any failure means no answer
        return ""
    if not all(
        isinstance(y, torch.Tensor) and tuple(y.shape) == (d_head, d_head) for y in (kept, turned)
    ):
        return ""
    kept, turned = kept.detach().double(), turned.detach().double()
    if not (torch.isfinite(kept).all() and torch.isfinite(turned).all()):
        return ""
    selection = kept.round()
    if (
        not torch.allclose(kept, selection, atol=1e-5)
        or not torch.equal(selection, selection.abs())
        or not torch.equal(selection.sum(0), torch.ones(d_head, dtype=torch.float64))
        or torch.equal(selection, torch.eye(d_head, dtype=torch.float64))
    ):
        return ""  # not a selection of features, or x itself: another mistake
    own = selection.argmax(0).tolist()  # output i copies input feature own[i]
    # the formula must be right on the features read: pair i = (x[own[i]], x[own[i + half]])
    # turned by 90 degrees is (-x[own[i + half]], x[own[i]]); a repeated formula (the second
    # output a * cos - b * sin too) copies the same features at angle 0 but turns otherwise
    signed = turned.round()
    if pairing != "half" or not torch.allclose(turned, signed, atol=1e-5):
        return ""
    for i in range(half):
        first, second = signed[:, i], signed[:, i + half]  # (d_head,) each: where they turn from
        if not (
            first[own[i + half]] == -1
            and first.abs().sum() == 1
            and second[own[i]] == 1
            and second.abs().sum() == 1
        ):
            return ""
    # the check's own input: x[..., own] * cos + partner(x) * sin must be the learner's result
    length = x.shape[-2]
    angles = rope_angles_f(length, d_head)  # (len, d_head / 2)
    if pairing == "half":  # one angle per feature, (len, d_head)
        per_feature = torch.cat([angles, angles], dim=-1)
    else:
        per_feature = angles.repeat_interleave(2, dim=-1)
    predicted = x.double()[..., own] * per_feature.cos() + (x.double() @ turned) * per_feature.sin()
    if tuple(got.shape) != tuple(predicted.shape) or not torch.allclose(
        got.double(), predicted, rtol=1e-2, atol=1e-2
    ):
        return ""
    parts = []  # the halves whose features are wrong
    for name, outputs, fix in (
        ("first", range(half), "a = x[..., :half]"),
        ("second", range(half, d_head), "b = x[..., half:]"),
    ):
        read = [own[i] for i in outputs]
        if read != list(outputs):
            parts.append(
                f"the {name} half of the result (features {outputs[0]} .. {outputs[-1]}) "
                f"copies input features {_partners_text(read)}, where it belongs to features "
                f"{_partners_text(list(outputs))} ({fix})"
            )
    repeated = sorted({f for f in own if own.count(f) > 1})
    unread = [f for f in range(d_head) if f not in own]
    extra = (
        f" Input features {_partners_text(repeated)} are read twice and "
        f"{_partners_text(unread)} never."
        if repeated and unread
        else ""
    )
    return (
        "Your apply_rotary reads its halves from the wrong features of x. With cos = 1 and "
        "sin = 0 (angle 0: no turn) the result must be x itself, but "
        + "; ".join(parts)
        + f".{extra} Rotate-half pairs feature i with feature i + d_head // 2: take a = "
        "x[..., :half] and b = x[..., half:] (contiguous halves; a strided slice such as "
        "x[..., ::2] belongs to the neighbouring-pair layout, with x[..., 1::2] as its "
        "partner)."
    )


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


def _judge_runs(c: Checker, runs: list[tuple], localise=None, columns=None) -> None:
    """Every input's (got, expected, call, tolerance, mistakes, expect_close options): when
    one is wrong, the known mistakes that agree with the learner on EVERY input are
    stated (one) or named as candidates (several); when none agrees, ``columns()`` (which
    function each column of a table is, more than a layout of the whole can say), then
    each input is compared in turn without them (its layout, replay and fixed hint)."""
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
        told = columns() if columns else ""
        if told:
            c.fail(told)
    for got, expected, call, tol, _, options in runs:
        try:
            c.expect_close(got, expected, call, **tol, **options)
        except CheckFailure as failure:
            # only where nothing better than the largest difference was found
            told = localise() if localise and "largest difference" in failure.message else ""
            if told:
                c.fail(told)
            raise


_BROADCAST = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
    r"non-singleton dimension (\d+)"
)


def _clash(exc: BaseException, axis: int) -> set[int] | None:
    """The two sizes of a broadcast error at ``axis`` (counted from the first), or None."""
    found = _BROADCAST.search(str(exc))
    if not found or int(found.group(3)) != axis:
        return None
    return {int(found.group(1)), int(found.group(2))}


def _probe_clash(apply_rotary, length: int, d_head: int) -> set[int] | None:
    """The sizes of the broadcast error apply_rotary raises on one head's x (length,
    d_head) with its own tables, at axis 0 or 1 as {axis: sizes}; None when it does not
    raise so."""
    x = randn((length, d_head), 7)
    try:
        apply_rotary(x, *ref.rotary_embedding(length, d_head))
    except Exception as exc:  # a probe: what the error says is read below
        for axis in (0, 1):
            sizes = _clash(exc, axis)
            if sizes is not None:
                return {axis: sizes}
    return None


def _split_follows_length(apply_rotary, d_head: int, length: int, other: int) -> str:
    """For a half of x with ``other`` = len features: whether the split point follows the
    length (b14b: half = cos.shape[0]), told by a second length (x (n, d_head), n another
    size below d_head) whose half then has n features."""
    if apply_rotary is None or other != length:
        return ""
    probe = next((n for n in range(2, d_head) if n not in (d_head // 2, length)), None)
    if probe is None or _probe_clash(apply_rotary, probe, d_head) != {1: {probe, d_head // 2}}:
        return ""
    return (
        f"One of your halves of x has {other} features where cos and sin have d_head // 2 "
        f"= {d_head // 2} columns, and on x ({probe}, {d_head}) it has {probe}: your split "
        "point follows len, the number of positions, not the features. It was read from "
        "the tables' first axis (cos.shape[0], their positions) or from x.shape[-2]. The "
        "split point is d_head // 2: half = x.shape[-1] // 2 (or cos.shape[-1]), a, b = "
        "x[..., :half], x[..., half:]."
    )


def _tables_width_hint(apply_rotary, d_head: int, ndim: int) -> Hint:
    """For a clash of d_head with d_head // 2 along the last axis: the tables used at
    their width with something d_head wide; doubled along the positions (b14b:
    cos.repeat(2, 1) for Hugging Face's rotate-half form) when a probe with d_head = 2
    (tables of one column, which broadcast) clashes along the positions instead."""

    def text(exc: BaseException) -> str:
        if d_head < 4 or _clash(exc, ndim - 1) != {d_head, d_head // 2}:
            return ""
        length = 3
        if _probe_clash(apply_rotary, length, 2) == {0: {length, 2 * length}}:
            return (
                f"x's d_head = {d_head} features met the tables' d_head // 2 = {d_head // 2} "
                f"columns, and on x ({length}, 2) with tables ({length}, 1) (which broadcast "
                f"along the features) the clash is of {length} with {2 * length} positions: "
                "your tables were doubled along the positions (cos.repeat(2, 1), or "
                "torch.cat([cos, cos], dim=0)), not along the features. The rotate-half form "
                "x * cos + rotate_half(x) * sin needs them (len, d_head): "
                "torch.cat([cos, cos], dim=-1), or cos.repeat(1, 2)."
            )
        return (
            f"Something d_head = {d_head} wide (x, or a table doubled to d_head) met something "
            f"d_head // 2 = {d_head // 2} wide (a table as given, or a half of x). The "
            "rotate-half form x * cos + rotate_half(x) * sin needs the tables doubled along "
            "the features, torch.cat([cos, cos], dim=-1); the halves' form, a * cos - b * sin "
            "and a * sin + b * cos, uses them as they are."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


def _split_hint(d_head: int, ndim: int, apply_rotary=None, length: int = 0) -> Hint:
    """For a size clash along the last axis of a part of x with cos or sin (d_head // 2
    columns), the part being neither a half nor the whole: the split point of x is not
    the last axis halved (said as following the length when a probe shows it)."""

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or int(found.group(3)) != ndim - 1:
            return ""
        sizes = {int(found.group(1)), int(found.group(2))}
        if d_head // 2 not in sizes or len(sizes) != 2 or d_head in sizes:
            return ""
        (other,) = sizes - {d_head // 2}
        follows = _split_follows_length(apply_rotary, d_head, length, other)
        if follows:
            return follows
        return (
            f"One of your halves of x has {other} features where cos and sin have d_head // 2 "
            f"= {d_head // 2} columns: the split point must be x.shape[-1] // 2 (the last "
            "axis, d_head, halved): a, b = x[..., :half], x[..., half:]."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


def _tables_axis_hint(shape: tuple[int, ...]) -> Hint:
    """For a clash of len with the axis before it in x (heads): cos and sin given an
    extra axis, (len, 1, d_head // 2), line their positions up with that axis."""

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if len(shape) < 3 or not found or int(found.group(3)) != len(shape) - 3:
            return ""
        if {int(found.group(1)), int(found.group(2))} != {shape[-3], shape[-2]}:
            return ""
        return (
            f"The sizes are x's axis -3 ({shape[-3]}) and its len ({shape[-2]}). The likely "
            "cause: cos and sin were given an extra axis (cos[:, None, :], or unsqueeze(1), "
            "as for a (batch, len, heads, d_head) layout), so their positions meet x's axis "
            "-3. cos and sin, (len, d_head // 2), already line up with x's last two axes: "
            "use them as they are."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


def _tables_cut_hint(shape: tuple[int, ...]) -> Hint:
    """For a clash of len with the size of another of x's axes on the positions' axis:
    the tables cut to that axis's size (blind17b-rot-tables-sliced-to-first-axis,
    cos[: x.shape[0]], got the bare broadcast error)."""

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if len(shape) < 3 or not found or int(found.group(3)) != len(shape) - 2:
            return ""
        sizes = {int(found.group(1)), int(found.group(2))}
        length = shape[-2]
        if length not in sizes or len(sizes) != 2:
            return ""
        (other,) = sizes - {length}
        axes = [f"x.shape[{i}]" for i, size in enumerate(shape[:-2]) if size == other]
        if not axes:
            return ""
        return (
            f"The sizes are x's len ({length}) and {other} = {' = '.join(axes)}: on the "
            f"positions' axis something has {other} rows, the size of another axis of x. The "
            f"likely cause: cos and sin cut to it, {'cos[: ' + axes[0] + ']'} (the length "
            "only for a (len, d_head) input). The positions are x's axis -2: "
            "cos[: x.shape[-2]] (and sin), or the tables as they are, one row per position."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


def _unpacks_two_halves(exc: BaseException) -> bool:
    return isinstance(exc, ValueError) and "too many values to unpack (expected 2" in str(exc)


def _split_size_hint(d_head: int, ndim: int) -> Hint:
    """For two names unpacked from more than two pieces (b13b: x.split(2, dim=-1), whose
    argument is each chunk's size): named when x has two axes, so x.shape has exactly
    two values and cannot be what was unpacked."""

    def text(exc: BaseException) -> str:
        if d_head <= 4:
            return ""
        if ndim != 2:  # x.shape unpacked into two names gives this error too
            return (
                "Two names were unpacked from more than two values: x.shape (of any x with "
                "more than 2 axes), or the pieces of a split, x.split(2, dim=-1) cutting "
                f"d_head = {d_head} into chunks of size 2 ({d_head // 2} of them; split's "
                "argument is each chunk's size, chunk's the number of chunks)."
            )
        return (
            f"x has 2 axes here, so it is not x.shape that gave too many values: two names "
            f"were unpacked from more than two pieces of x. The likely cause: x.split(2, "
            f"dim=-1), cutting d_head = {d_head} into chunks of size 2 ({d_head // 2} of "
            "them): split's argument is the size of each chunk, not the number of chunks "
            "(and a, b = x unpacks x's rows). Use x.chunk(2, dim=-1), x.split(half, dim=-1) "
            "or a, b = x[..., :half], x[..., half:]."
        )

    return _unpacks_two_halves, text


def _axes_count_hints(ndim: int) -> list[Hint]:
    """For x.shape unpacked into a fixed number of names, or x indexed with a fixed number
    of axes (x[:, :, :, :half]): x may have any number of leading axes."""
    text = (
        f"Here x has {ndim} axes: apply_rotary takes x with any number of leading axes, "
        "(..., len, d_head) (one head's (len, d_head), or (batch, num_heads, len, d_head)). "
        "Unpacking x.shape into a fixed number of names, or indexing x[:, :, :, ...], fixes "
        "that number: read the last axes only (d_head = x.shape[-1]) and slice with "
        "x[..., :half]."
    )
    return [
        (
            # two axes unpack into two names: "too many (expected 2)" is not x.shape's
            lambda exc: (
                isinstance(exc, ValueError)
                and "values to unpack" in str(exc)
                and not (ndim == 2 and _unpacks_two_halves(exc))
            ),
            text,
        ),
        (lambda exc: isinstance(exc, IndexError) and "too many indices" in str(exc), text),
    ]


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
    try:  # cos and sin (len, 1, d_head // 2): an axis added for another layout
        unsqueezed = torch.broadcast_shapes((length, 1, half), (*lead, length, half))
    except RuntimeError:
        unsqueezed = None
    if unsqueezed is not None and shape == (*unsqueezed[:-1], d_head) and len(shape) > x.dim():
        return (
            f"Your result has {len(shape)} axes, x has {x.dim()}: cos and sin were given an "
            "extra axis (cos[:, None, :], or unsqueeze(1), as for a (batch, len, heads, "
            "d_head) layout; or x's halves were), so their positions broadcast against "
            "another axis of x. cos "
            "and sin, (len, d_head // 2), already line up with x's last two axes, (..., len, "
            "d_head // 2), whatever leading axes x has: use them as they are."
        )
    for extra in range(1, 4):  # b15b: cos[None, None], for a (batch, heads, len, d_head) x
        leading = torch.broadcast_shapes((1,) * extra + (length, half), (*lead, length, half))
        if len(leading) > x.dim() and shape == (*leading[:-1], d_head):
            return (
                f"Your result has {len(shape)} axes, x has {x.dim()}: the extra leading axes "
                f"of size one come from the tables, given {extra} leading axes "
                "(cos[None, None], unsqueeze(0), or view(1, 1, len, -1), to fit a (batch, "
                "heads, len, d_head) x), which broadcasting adds to an x with fewer axes. cos "
                "and sin, (len, d_head // 2), already line up with x's last two axes, (..., "
                "len, d_head // 2), whatever leading axes x has: use them as they are."
            )
    if shape == (*lead, length, half, 2) and isinstance(got, torch.Tensor):
        # b16b: torch.view_as_real of the rotated complex pairs, never flattened back
        flat = got.detach().double().flatten(-2)  # (..., len, d_head), pairs interleaved
        adjacent = rotate_f(x, rope_angles_f(length, d_head), "adjacent")

        def close(a: torch.Tensor, b: torch.Tensor) -> bool:
            return bool(torch.allclose(a, b, rtol=1e-2, atol=1e-2))

        if close(flat, adjacent):
            return (
                "Your result has an extra trailing axis of size 2, (..., len, d_head // 2, "
                "2): each rotated neighbouring pair (2i, 2i + 1) on an axis of its own, as "
                "torch.view_as_real returns the complex numbers (or torch.stack([...], "
                "dim=-1) of the two rotated parts). The values are right: flatten the last "
                "two axes back into d_head, torch.view_as_real(...).flatten(-2)."
            )
        if close(got.detach().double().transpose(-1, -2).flatten(-2), expected.double()):
            return (
                "Your result has an extra trailing axis of size 2, (..., len, d_head // 2, "
                "2): the two rotated halves stacked on a new last axis, torch.stack([...], "
                "dim=-1) (flattening it would interleave them). Join the halves along the "
                "last axis: torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)."
            )
        return (
            "Your result has an extra trailing axis of size 2, (..., len, d_head // 2, 2): "
            "pairs on an axis of their own (torch.view_as_real, or torch.stack(..., dim=-1)), "
            "never merged back into d_head features (.flatten(-2) for neighbouring pairs, "
            "torch.cat(..., dim=-1) for halves)."
        )
    if shape in ((*lead, 2, length, half), (*lead, length, 2, half)):
        return (
            "Your result has an extra axis of size 2: torch.stack puts the two rotated "
            "halves on a new axis; join them along the last axis with "
            "torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)."
        )
    return ""


def _dtype_cause(apply_rotary, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> str:
    """Why a half-precision x came back float32, told apart by a second call with cos and
    sin already in x's dtype: still float32, the learner's code upcasts x itself."""
    try:
        again = apply_rotary(x, cos.to(x.dtype), sin.to(x.dtype))
    except Exception as error:
        again = error
    if not (isinstance(again, torch.Tensor) and again.dtype == x.dtype):
        outcome = (
            f"raises {type(again).__name__}"
            if isinstance(again, BaseException)
            else f"returns {str(getattr(again, 'dtype', type(again).__name__)).replace('torch.', '')}"
        )
        return (
            f"With cos and sin given in x's dtype too, yours {outcome}: it is not their "
            "promotion, your code works in float32 itself (x.float(), or a complex view, "
            "which exists for float32 and float64 only) and never casts back. Compute in "
            "float32 if you like, then end with .to(x.dtype) (Meta's Llama code: "
            ".type_as(x))."
        )
    return (
        "cos and sin are float32 (rotary_embedding's), and x times them is promoted to "
        "float32: cast them to x's dtype first, cos.to(x.dtype) and sin.to(x.dtype) (or "
        "cast the result back with .to(x.dtype))."
    )


#: (batch, num_heads, len, d_head) of the call with a non-contiguous x
_NON_CONTIGUOUS_SHAPE = {False: (2, 3, 5, 8), True: (2, 4, 7, 12)}
_VIEW_NEEDS_CONTIGUOUS = (
    "This x is a transposed view, (batch, len, num_heads, d_head).transpose(1, 2): queries "
    "and keys arrive so from split_heads, not contiguous in memory, and a .view(...) that "
    "flattens or regroups their leading axes fails on them. Use .reshape(...) (or call "
    ".contiguous() first); slicing x[..., :half] needs neither."
)


def _view_error(exc: BaseException) -> bool:
    text = str(exc)
    return isinstance(exc, RuntimeError) and "view" in text and "stride" in text


def _expect_non_contiguous(c: Checker, apply_rotary, seed: int, hidden: bool, pairing: str):
    """apply_rotary on queries as split_heads gives them, a transposed (non-contiguous)
    view (blind13b: x.view(-1, len, d_head) raised PyTorch's view error, and every check
    input was contiguous)."""
    batch, heads, length, d_head = _NON_CONTIGUOUS_SHAPE[hidden]
    # (batch, len, heads, d_head) -> (batch, heads, len, d_head), strides not contiguous
    x = randn((batch, length, heads, d_head), seed).transpose(1, 2)
    cos, sin = ref.rotary_embedding(length, d_head)  # (len, d_head // 2) each
    call = (
        f"apply_rotary(x {tuple(x.shape)} non-contiguous (a transposed view, as split_heads "
        "returns), cos, sin)"
    )
    got = c.call(
        apply_rotary, x, cos, sin, call_repr=call, hints=[(_view_error, _VIEW_NEEDS_CONTIGUOUS)]
    )
    c.expect_type(got, torch.Tensor, call)
    c.expect_shape(got, tuple(x.shape), call)
    expected = rotate_f(x, rope_angles_f(length, d_head), pairing)
    tol = tolerance(torch.float32)
    if torch.allclose(got.double(), expected, **tol):
        c.ok()
        return
    contiguous = x.contiguous()  # the same values, laid out row by row
    again = c.call(apply_rotary, contiguous, cos, sin, call_repr=call.replace(" non-", " ", 1))
    if isinstance(again, torch.Tensor) and again.shape == expected.shape:
        c.expect_true(
            not torch.allclose(again.double(), expected, **tol),
            f"{call} is not what the reference gives, although the same values made "
            "contiguous (x.contiguous()) come out right: your code depends on how x is laid "
            "out in memory, not only on its values (x.as_strided, its storage or data_ptr, "
            "or a view that reinterprets its memory). Work with x's axes: x[..., :half], "
            "x[..., half:], torch.cat(..., dim=-1).",
        )
    c.expect_close(got, expected, call, **tol)


def _expect_gradient_reaches_x(c: Checker, apply_rotary, seed: int, pairing: str) -> None:
    """The result of an x that requires grad requires grad too, and its gradient is the
    rotation's transpose of the upstream gradient (blind18d-rot-input-detached-copy:
    x.detach().clone() first passed every value check; the projections before the
    rotation would never learn)."""
    x = randn((2, 3, 6, 8), seed).requires_grad_(True)  # (batch, heads, len, d_head), a leaf
    upstream = randn((2, 3, 6, 8), seed + 1)  # dLoss/dresult
    cos, sin = ref.rotary_embedding(6, 8)  # (len, d_head // 2)
    call = "apply_rotary(x (2, 3, 6, 8) requiring grad, cos, sin)"
    got = c.call(apply_rotary, x, cos, sin, call_repr=call)
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(x.shape):
        return  # the value checks said what is wrong
    if not got.requires_grad:
        c.fail(
            f"{call} returned a result that does not require grad: your code cuts x from "
            "autograd (x.detach(), x.data, a copy made with x.detach().clone() or "
            "torch.tensor(x), torch.no_grad(), or a round trip through NumPy), so no gradient "
            "reaches the queries and keys and their projections never learn. Compute with x "
            "itself; to leave the caller's tensor unchanged, out-of-place operations (or "
            "x.clone(), which keeps the graph) are enough."
        )
    loss = f"({call} * upstream).sum()"
    # d loss / d x, where the call ran (the grader: its sandbox)
    (got_grad_x,) = c.call(
        call_gradients, apply_rotary, (x, cos, sin), upstream, call_repr=f"{loss}.backward()"
    )
    if got_grad_x is None:
        c.fail(
            f"{loss}.backward() left x without a gradient: your result is computed from a "
            "copy of x cut from autograd (x.detach(), x.data). Compute with x itself."
        )
    angles = rope_angles_f(6, 8)  # (len, d_head // 2)
    expected = rotate_f(upstream, angles, pairing, direction=-1)  # (2, 3, 6, 8)

    def explain(got=got_grad_x) -> str:
        lost = [
            int(i)
            for i in range(8)
            if bool((got[..., i] == 0).all()) and not bool((expected[..., i] == 0).all())
        ]
        if not lost:
            return ""
        return (
            f"No gradient reaches x's features {lost} (of d_head = 8), although the values "
            "are right: the terms computed from them use a copy cut from autograd "
            "(x[..., i].detach(), x.data[...], or a tensor filled in place under "
            "torch.no_grad()). Take every slice from x itself."
        )

    c.expect_close(
        got_grad_x,
        expected,
        f"The gradient of {loss} with respect to x",
        **tolerance(torch.float32),
        explain=explain,
        hint="The values are right, so part of your computation is cut from autograd "
        "(.detach(), .data, torch.no_grad(), a copy made with torch.tensor(...)): compute "
        "every term from x itself.",
    )


def _complex_multiplier(got: torch.Tensor, x: torch.Tensor, angles: torch.Tensor, tol: dict) -> str:
    """When every pair of the learner's result is its input pair, as a complex number,
    times one of the complex numbers a slip builds from the tables instead of cos + i sin
    (torch.polar(cos, sin): magnitude cos, angle sin, blind21c-rotary-polar-of-cos-and-sin
    got "largest difference"): that slip, in either pairing; "" otherwise."""
    try:
        got64, x64 = got.detach().double(), x.double()
        if got64.shape != x64.shape or x64.shape[-1] % 2:
            return ""
        cos, sin = angles.cos(), angles.sin()  # (len, d_head // 2)
        ones = torch.ones_like(cos)
        built = {
            "torch.polar(cos, sin), which takes a magnitude and an angle: each pair is "
            "scaled by cos and turned by sin radians": torch.polar(cos, sin),
            "torch.polar(sin, cos), a magnitude and an angle: each pair is scaled by sin "
            "and turned by cos radians": torch.polar(sin, cos),
            "torch.polar(torch.ones_like(cos), cos): the cosine taken for the angle": (
                torch.polar(ones, cos)
            ),
            "torch.polar(torch.ones_like(sin), sin): the sine taken for the angle": (
                torch.polar(ones, sin)
            ),
        }
        half = x64.shape[-1] // 2
        layouts = {
            "adjacent": lambda t: torch.complex(t[..., 0::2], t[..., 1::2]),
            "half": lambda t: torch.complex(t[..., :half], t[..., half:]),
        }
        for pairing, as_complex in layouts.items():
            z_in, z_out = as_complex(x64), as_complex(got64)  # (..., len, d_head // 2)
            for slip, multiplier in built.items():
                predicted = z_in * multiplier
                if torch.allclose(predicted.real, z_out.real, **tol) and torch.allclose(
                    predicted.imag, z_out.imag, **tol
                ):
                    pairs = "(2i, 2i + 1)" if pairing == "adjacent" else "(i, i + d_head/2)"
                    return (
                        f"Each pair {pairs} of yours, read as a complex number, is multiplied "
                        f"by {slip}, not by cos + i sin = e^(i · angle), which turns it by the "
                        "angle and keeps its length. Build the rotation with "
                        "torch.complex(cos, sin), or torch.polar(torch.ones_like(cos), "
                        "angle) from the angles themselves."
                    )
        return ""
    except Exception:  # a diagnosis: anything unexpected leaves the old message
        return ""


def _pair_text(pairing: str, width: int) -> str:
    """The features of pair i in a head of ``width`` features, for the pairing used."""
    return f"(i, i + {width // 2})" if pairing == "half" else "(2i, 2i + 1)"


def _features_passed_through(
    got: torch.Tensor, x: torch.Tensor, angles: torch.Tensor, pairing: str, tol: dict
) -> str:
    """When some of the head's features come back exactly as x at every position, while
    the lesson rotates them all: which ones, and, when the other features are a rotation
    of their own as a smaller head (pairs with the first angles), that too
    (blind23c-rotary-partial-first-half-only, a partial rotary dimension as GPT-NeoX's
    rotary_pct, was told "largest difference"); "" otherwise."""
    try:
        got64, x64 = got.detach().double(), x.double()
        if got64.shape != x64.shape or x64.shape[-2] < 2:
            return ""
        d_head = x64.shape[-1]
        moved = x64[..., 1:, :]  # (..., len - 1, d_head): position 0 is never turned
        # passed through means copied: exactly equal (a turn by a tiny angle, cos ~ 1, is
        # within the tolerance of x but not equal to it)
        same = got64[..., 1:, :] == moved  # (..., len - 1, d_head)
        kept = same.flatten(0, -2).all(dim=0)  # (d_head,): features passed through
        # only features the reference visibly turns count: a slow pair's small angles
        # can stay within the tolerance of x
        expected = rotate_f(x64, angles, pairing)[..., 1:, :]  # (..., len - 1, d_head)
        turned = (~torch.isclose(expected, moved, **tol)).flatten(0, -2).any(dim=0)
        kept = kept & turned
        if not bool(kept.any()) or bool(kept.all()):
            return ""
        passed = kept.nonzero().flatten().tolist()
        rotated = (~kept).nonzero().flatten().tolist()
        if passed != list(range(passed[0], passed[-1] + 1)):
            where = f"features {passed}"
        else:
            where = f"features {passed[0]} to {passed[-1]}"
        told = (
            f"Your result's {where} of every head (of d_head = {d_head}) come back as x "
            "unchanged at every position: they are never rotated, while RoPE rotates every "
            f"pair of the head, all {d_head} features, pair i being features "
            f"{_pair_text(pairing, d_head)}."
        )
        part = len(rotated)
        if rotated == list(range(part)) and part % 2 == 0 and part > 0:
            small = rotate_f(x64[..., :part], angles[:, : part // 2], pairing)
            if torch.allclose(got64[..., :part], small, **tol):
                told += (
                    f" Your first {part} features are rotated as a head of {part} features "
                    f"alone (pairs {_pair_text(pairing, part)} with the first {part // 2} "
                    "angles): "
                    "a partial rotary dimension (rotating only part of the head and passing "
                    "the rest through, as GPT-NeoX's rotary_pct does). Rotate the whole "
                    "head: pair its features across all d_head of them and use every "
                    "column of cos and sin."
                )
        return told
    except Exception:  # a diagnosis: anything unexpected leaves the old message
        return ""


_TABLES_TRANSFORMED = (
    "Your result is the rotation's formula with {used}: the tables were passed through "
    "{what} before use. rotary_embedding's tables already hold the cosines and sines, "
    "cos = cos(angle) and sin = sin(angle), not the angles: use them as they are, "
    "(a, b) -> (a * cos - b * sin, a * sin + b * cos). ({note})"
)


def _tables_transformed(x: torch.Tensor, angles: torch.Tensor, pairing: str) -> dict:
    """The rotation's formula with an elementwise function (cos or sin) applied to a
    table, each combination its own candidate (blind26c-rot-tables-taken-as-angles:
    torch.cos(cos) and torch.sin(sin), the tables read as angles)."""
    d = x.shape[-1]
    index_a = torch.arange(d // 2) if pairing == "half" else torch.arange(0, d, 2)
    index_b = index_a + d // 2 if pairing == "half" else index_a + 1
    a, b = x.double()[..., index_a], x.double()[..., index_b]  # (..., len, d/2)
    functions = {"": lambda t: t, "cos": torch.cos, "sin": torch.sin}
    found = {}
    for on_cos, f in functions.items():
        for on_sin, g in functions.items():
            if not on_cos and not on_sin:
                continue
            cos, sin = f(angles.cos()), g(angles.sin())  # (len, d/2)
            out = torch.empty_like(x, dtype=torch.float64)
            out[..., index_a], out[..., index_b] = a * cos - b * sin, a * sin + b * cos
            used = " and ".join(
                f"torch.{fn}({name}) where {name} belongs"
                for fn, name in ((on_cos, "cos"), (on_sin, "sin"))
                if fn
            )
            what = " and ".join(
                f"a {'cosine' if fn == 'cos' else 'sine'}" for fn in (on_cos, on_sin) if fn
            )
            note = (
                "The result is not a rotation: the pairs' lengths change, and position 0, "
                "angle 0, is not left as it is."
                if on_cos
                else "Position 0, angle 0, happens to come out right."
            )
            found[_TABLES_TRANSFORMED.format(used=used, what=what, note=note)] = out
    return found


def _rotate_tables(
    x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, pairing: str
) -> torch.Tensor:
    """The rotation with the tables given, in the dtype of what it is given: pair (a, b)
    becomes (a cos - b sin, a sin + b cos), pairs as halves or neighbours."""
    d = x.shape[-1]
    if pairing == "half":
        a, b = x[..., : d // 2], x[..., d // 2 :]  # (..., len, d/2) each
        return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
    a, b = x[..., 0::2], x[..., 1::2]  # (..., len, d/2) each
    return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)


_NARROW_TABLES = {  # {(what was rounded, dtype): the message}
    "tables": (
        "Your result is the rotation with cos and sin rounded to {dtype} first "
        "(cos.to(torch.{dtype}), the half-precision tables of a mixed-precision run): the "
        "tables keep only {bits} significant bits, so every rotated feature is off by up to "
        "{error} of its size, far above the rounding of x's own dtype. Rotate with the tables "
        "as they are given, or cast them to x's dtype, cos.to(x.dtype), which rounds them "
        "only when x itself is in half precision."
    ),
    "x": (
        "Your result is the rotation of x rounded to {dtype} first (x.to(torch.{dtype}), "
        "with the tables kept as they are) and cast back afterwards: x keeps only {bits} "
        "significant bits, so every rotated feature is off by up to {error} of its size. "
        "Compute in x's own dtype: the result keeps x's dtype and its precision."
    ),
    "everything": (
        "Your result is the whole rotation computed in {dtype} (x, cos and sin cast to "
        "torch.{dtype}, or an autocast block) and cast back to x's dtype: {bits} significant "
        "bits, so every rotated feature is off by up to {error} of its size. Compute in x's "
        "own dtype, with the tables cast to it, cos.to(x.dtype)."
    ),
}
_DTYPE_BITS = {"bfloat16": ("8", "0.4%"), "float16": ("11", "0.05%")}
#: said after a candidate computed with neighbouring pairs, which the lesson accepts
_NEIGHBOURS_TOO = (
    " (Your pairs are neighbours, (2i, 2i + 1), as in Meta's Llama code: that pairing is accepted.)"
)


def _narrow_table_mistakes(
    x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, pairing: str
) -> dict[str, torch.Tensor | None]:
    """{message: result} of the rotation with the tables, x, or the whole computation
    rounded to bfloat16 or float16 (blind30c-rot-tables-rounded-to-bfloat16 was told
    "largest difference"): each variant is a candidate, stated only when it gives the
    learner's values on every input (the variants differ from one another on float32
    ones)."""
    variants = narrow_variants(
        lambda x, cos, sin: _rotate_tables(x, cos, sin, pairing),
        {"x": x, "cos": cos, "sin": sin},
        {"tables": ("cos", "sin"), "x": ("x",)},
    )
    note = _NEIGHBOURS_TOO if pairing == "adjacent" else ""
    return {
        _NARROW_TABLES[group].format(
            dtype=dtype, bits=_DTYPE_BITS[dtype][0], error=_DTYPE_BITS[dtype][1]
        )
        + note: value
        for (group, dtype), value in variants.items()
    }


def _half_turn_mistakes(
    x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, pairing: str
) -> dict[str, torch.Tensor]:
    """{message: result} of the rotation by angles recovered from the tables with an
    inverse function that covers half a turn (blind30c-rot-angles-recovered-with-atan:
    atan(sin / cos), each angle with a negative cosine off by pi, was told "largest
    difference")."""
    return {
        (
            f"Your result is the rotation by angles recovered from the tables as {slip}, "
            f"{HALF_TURN_SLIPS[slip]}. The tables already hold cos(angle) and sin(angle): rotate with them as "
            "they are, (a * cos - b * sin, a * sin + b * cos); where the angles themselves "
            "are needed, torch.atan2(sin, cos) recovers them on the whole circle."
            + (_NEIGHBOURS_TOO if pairing == "adjacent" else "")
        ): _rotate_tables(x.double(), new_cos, new_sin, pairing)
        for slip, (new_cos, new_sin) in half_turn_slips(cos, sin).items()
    }


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
                apply_rotary,
                x,
                cos,
                sin,
                call_repr=call,
                hints=[
                    _split_hint(d_head, x.dim(), apply_rotary, length),
                    _tables_width_hint(apply_rotary, d_head, x.dim()),
                    _split_size_hint(d_head, x.dim()),
                    *_axes_count_hints(x.dim()),
                    _tables_axis_hint(tuple(x.shape)),
                    _tables_cut_hint(tuple(x.shape)),
                ],
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
                        _dtype_cause(apply_rotary, x, cos, sin)
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
            mistakes.update(_sequential_halves(x, angles))
            mistakes.update(_tables_transformed(x, angles, pairing))
            for way in ("half", "adjacent"):  # a wrong result does not show its pairing
                mistakes.update(_narrow_table_mistakes(x, cos, sin, way))
                mistakes.update(_half_turn_mistakes(x, cos, sin, way))
            expected = rotate_f(x, angles, pairing)
            axes = (*(f"axis {i}" for i in range(x.dim() - 2)), "len", "d_head")

            def explain(
                got=got,
                expected=expected,
                x=x,
                angles=angles,
                pairing=pairing,
                axes=axes,
                tol=tol,
                d_head=d_head,
            ) -> str:
                return (
                    # blind24c-rot-output-buffer-never-filled (its differences alone before)
                    unwritten_tensor_note(
                        lambda: apply_rotary(x.clone(), *ref.rotary_embedding(*x.shape[-2:])),
                        tuple(x.shape),
                        x.dtype,
                        "Here: out[..., :half] = a * cos - b * sin (or o1.copy_(...) for o1, "
                        "o2 = out.chunk(2, dim=-1)), likewise the second half; or build the "
                        "result directly, torch.cat([a * cos - b * sin, a * sin + b * cos], "
                        "dim=-1).",
                    )
                    or _rotary_layout(
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
                    or _features_passed_through(got, x, angles, pairing, tol)
                    or _partner_probe(apply_rotary, x, got, pairing)
                    or next(
                        (
                            found
                            for way in (pairing, "adjacent" if pairing == "half" else "half")
                            if (found := _term_probe(apply_rotary, d_head, way))
                        ),
                        "",
                    )
                    # cos and sin exchanged (the term probe above) is torch.complex(sin, cos)
                    or _complex_multiplier(got, x, angles, tol)
                    # round 30: a slice that picks the wrong features for a or b
                    or _feature_sources_probe(apply_rotary, x, got, pairing)
                )

            runs.append((got, expected, call, tol, mistakes, explain, axes, x))
        # a cause is stated only when it gives the learner's values on every input
        _judge_runs(
            c,
            [
                (g, e, call, tol, m, {"explain": why, "axes": a, "untouched": before})
                for g, e, call, tol, m, why, a, before in runs
            ],
        )
        _expect_non_contiguous(c, apply_rotary, 57 if hidden else 7, hidden, pairing)
        _relative_property(c, apply_rotary, 16 if hidden else 8, 55 if hidden else 5)
        _expect_gradient_reaches_x(c, apply_rotary, 71 if hidden else 17, pairing)


def _own_frequency(table: torch.Tensor, wave) -> torch.Tensor | None:
    """The angle per position of each column of ``table`` (len, pairs), read as
    wave(m · theta) alone (cos or sin, position 0 first): from position 1, both branches
    of the inverse tried; None unless every column fits one frequency."""
    positions = torch.arange(table.shape[0], dtype=torch.float64)[:, None]  # (len, 1)
    first = table[1].clamp(-1.0, 1.0)  # (pairs,)
    if wave is torch.cos:
        options = (torch.acos(first), -torch.acos(first))
    else:
        options = (torch.asin(first), torch.pi - torch.asin(first))
    found = torch.full_like(first, float("nan"))
    for theta in options:
        fits = ((wave(positions * theta) - table).abs() < 1e-4).all(dim=0)  # (pairs,)
        found = torch.where(fits & found.isnan(), theta, found)
    return None if bool(found.isnan().any()) else found


def _tables_of_two_angles(runs: list[tuple], cases: list[_RopeCase]) -> str:
    """When cos and sin are not of one angle (cos ** 2 + sin ** 2 is not 1): what each
    table is on its own, cos(m · theta) or sin(m · theta) with which exponents of the base
    (blind21c-rope-sines-from-odd-exponents: the sines from base ** (-(2i + 1) / d_head)
    got "differs from the reference"); the observation alone when a table is no such
    wave."""
    for (got, expected, call, _, _, _), case in zip(runs, cases, strict=True):
        if torch.allclose(got, expected, rtol=1e-4, atol=1e-4) or case.length < 2:
            continue
        cos, sin = got[0], got[1]  # (len, pairs) each
        unit = cos.pow(2) + sin.pow(2)
        off = (unit - 1).abs()
        if not bool(torch.isfinite(unit).all()) or float(off.max()) < 1e-3:
            return ""
        where = tuple(int(i) for i in (off == off.max()).nonzero()[0])
        observed = (
            f"Your cos and sin are not the cosine and sine of one angle: cos ** 2 + sin ** 2 "
            f"is {float(unit[where]):.4g} at position {where[0]}, pair {where[1]}, where it "
            "is 1 for any angle."
        )
        base = 10000.0 if case.base is None else case.base
        told = ""
        exponents = []
        for wave in (torch.cos, torch.sin):
            theta = _own_frequency(got[0 if wave is torch.cos else 1], wave)
            if theta is None or bool((theta.abs() < 1e-12).any()):
                exponents = []
                break
            exponent = -torch.log(theta.abs()) / math.log(base) * case.d_head  # (pairs,)
            # float32 cosines near 1 read small angles roughly: a tenth of an exponent
            if not torch.allclose(exponent, exponent.round(), atol=0.1):
                exponents = []
                break
            exponents.append([int(e) for e in exponent.round().tolist()])
        if len(exponents) == 2 and exponents[0] != exponents[1]:

            def kind(values: list[int], d_head: int = case.d_head) -> str:
                if all(v % 2 == 1 for v in values):
                    return " (the odd exponents)"
                if values == list(range(0, d_head, 2)):
                    return " (the right ones)"
                return ""

            told = (
                f" Read on their own, your cosines turn by base ** (-e / d_head) per "
                f"position with e = {exponents[0]}{kind(exponents[0])}, your sines with e = "
                f"{exponents[1]}{kind(exponents[1])}: the two tables come from different "
                "frequencies."
            )
        return (
            f"{call} is not what the reference gives. {observed}{told} Both tables come "
            "from the same angles, angles = positions * theta with theta_i = base ** (-2i / "
            "d_head) (torch.arange(0, d_head, 2) / d_head): cos = angles.cos(), sin = "
            "angles.sin()."
        )
    return ""


_TABLE_LABELS = ("your cos table", "your sin table")


def _rope_columns(case: _RopeCase) -> tuple[dict, list[str], list[str]]:
    """The reference functions of a case's tables (sin and cos of m·θ_i for every pair,
    float64 columns) and the names the right cos and sin tables hold, column by column."""
    base = 10000.0 if case.base is None else case.base
    pairs = case.d_head // 2
    theta = base ** (-2 * torch.arange(pairs, dtype=torch.float64) / case.d_head)
    columns = sinusoid_columns(torch.arange(case.length), theta)
    return (
        columns,
        [f"cos(m·theta_{i})" for i in range(pairs)],
        [f"sin(m·theta_{i})" for i in range(pairs)],
    )


def _columns_misplaced(runs: list[tuple], cases: list[_RopeCase]) -> str:
    """When every column of the learner's tables is one of the right functions, sin(m·theta_i)
    or cos(m·theta_i), but not in its place: how the tables were cut from one wider table
    (blind29c-rope-tables-halves-of-interleaved-sinusoid: lesson 03's interleaved table
    cut in halves, told "cos ** 2 + sin ** 2 is 0", true but not what the code did), the
    same cut on every case checked; else which function each column holds. "" when a
    column is no such function (the frequency and angle checks say more)."""
    cuts: set[tuple[str, str, tuple[int, ...]]] | None = None
    first: tuple[str, list, list, dict, list] | None = None
    for (got, expected, call, _, _, _), case in zip(runs, cases, strict=True):
        if got.shape != expected.shape or torch.allclose(got, expected, rtol=1e-4, atol=1e-4):
            continue
        if case.length < 2 or case.d_head < 4:
            continue
        if _turns(got, case.length) is not None:
            # one angle per column, cos and sin of it: a frequency slip (every pair at
            # theta_0, an integer division), or the pairs reordered, which the layout of
            # the whole ("its pair axis in reverse") and the frequencies tell
            return ""
        columns, right_cos, right_sin = _rope_columns(case)
        tables = [got[0].numpy(), got[1].numpy()]
        sources = [column_sources(t, columns) for t in tables]
        if any(not names for table in sources for names in table):
            return ""  # a column that is no reference function: not a layout slip
        wholes = sinusoid_tables(columns, case.d_head // 2)
        found = cut_from(tables, wholes)
        keys = {(c.whole, c.how, c.order) for c in found}
        cuts = keys if cuts is None else cuts & keys
        if first is None:
            first = (call, sources, found, wholes, [right_cos, right_sin])
    if first is None:
        return ""
    call, sources, found, wholes, wanted = first
    opening = (
        f"{call} is not what the reference gives. Every column of your tables is one of the "
        "right functions, a sine or a cosine of m·theta_i (theta_i = base ** (-2i / d_head)), but "
        "not in its place"
    )
    wish = (
        "RoPE wants one table of each, one column per pair: cos[:, i] = cos(m·theta_i) and "
        "sin[:, i] = sin(m·theta_i), so angles = torch.arange(length)[:, None] * theta, "
        "cos = angles.cos(), sin = angles.sin()"
    )
    chosen = [c for c in found if (c.whole, c.how, c.order) in (cuts or set())]
    if len({c.whole for c in chosen}) == 1:
        cut = chosen[0]
        right = cut_for(wholes[cut.whole][1], wanted, cut.whole)
        fix = f" (from that table: {cut_code(right, ('cos', 'sin'))})" if right else ""
        return (
            f"{opening}: your tables are the two pieces of {describe_cut(cut, _TABLE_LABELS)}. "
            f"{wish}{fix}."
        )
    described = "; ".join(
        describe_columns(label, table)
        if any(right not in names for right, names in zip(names_wanted, table, strict=True))
        else f"{label} is right"
        for label, table, names_wanted in zip(_TABLE_LABELS, sources, wanted, strict=True)
    )
    return f"{opening}: {described}. {wish}."


def _one_table_twice(got: tuple, angles: torch.Tensor) -> str:
    """cos and sin returned equal, entry for entry (blind15b-rope-sin-table-is-cos: angles.cos()
    twice, told by an edit only): which table both are, when one of the right ones; the
    observation alone otherwise. "" when they differ anywhere."""
    cos, sin = (value.detach().double() for value in got)  # (len, pairs) each
    if cos.shape != angles.shape or not torch.equal(cos, sin):
        return ""
    right = {"the cosines": angles.cos(), "the sines": angles.sin()}
    which = next(
        (name for name, table in right.items() if torch.allclose(cos, table, atol=1e-5)), None
    )
    if which is None:
        return (
            "your cos and sin tables are equal, entry for entry: one table returned twice. "
            "cos = angles.cos() and sin = angles.sin() differ (at position 0, cos is 1 and "
            "sin is 0)."
        )
    wrong = "sin" if which == "the cosines" else "cos"
    return (
        f"your cos and sin tables are equal, entry for entry: both hold {which} (so your "
        f"{wrong} table is a copy of the other: at position 0 it is "
        f"{'1, where sin is 0' if wrong == 'sin' else '0, where cos is 1'}). Return "
        "angles.cos() and angles.sin(), one of each."
    )
