"""The check of ``relative_shift(k, d_model)``: the block-diagonal rotation that moves
every position by k, the mistakes it names (from the float64 oracle ``relative_shift_f``),
and the ValueError for an odd d_model.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import re
from typing import Any

import numpy as np

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking.arguments import arguments_swapped
from transformer_course.checking.hints import two_mistakes
from transformer_course.checking.oracles import relative_shift_f
from transformer_course.checking.stale import earlier_call, kept_between_calls
from transformer_course.reference import positional_encoding as ref

from .common import _FLOAT32_FORMULA, _expect_array, _exponent_why_everywhere, _tolerance


# ------------------------------------------------------------------- relative_shift
def _shift_pair_index(k, d_model) -> np.ndarray:
    """Pair i's rotation block written at rows and columns (i, i + 1), in turn (the pair
    index used as the feature index): the blocks overlap and overwrite each other."""
    m = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        theta = k / 10000.0 ** (2 * i / d_model)
        m[i, i] = m[i + 1, i + 1] = math.cos(theta)
        m[i + 1, i], m[i, i + 1] = math.sin(theta), -math.sin(theta)
    return m


def _shift_cosines_tiled(k, d_model) -> np.ndarray | None:
    """The right matrix but for its diagonal, which holds the d_model/2 cosines in pair
    order, repeated from the start (np.fill_diagonal with the pairs' cosines, np.tile):
    entry j holds pair j mod (d_model/2)'s where pair j // 2's belongs. None where that
    is the right matrix (d_model = 2, k = 0)."""
    theta = k / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    m = _shift_at_angles(theta)
    right = np.diag(m).copy()
    np.fill_diagonal(m, np.tile(np.cos(theta), 2))
    return None if np.allclose(np.diag(m), right) else m


def _shift_mistakes(k, d_model):
    return {
        "Your diagonal holds the d_model/2 cosines in pair order, then again from the first: "
        "diagonal entry j holds the cosine of pair j mod (d_model/2) where pair j // 2's "
        "belongs. np.fill_diagonal(m, np.cos(theta)) does that (it cycles through the values "
        "it is given), as np.tile would. Each cosine sits twice, on the two features of its "
        "pair: m[2i, 2i] = m[2i+1, 2i+1] = cos(w_i·k), e.g. "
        "np.fill_diagonal(m, np.repeat(np.cos(theta), 2)).": (
            lambda: _shift_cosines_tiled(k, d_model)
        ),
        "Pair i's block was written at rows and columns (i, i + 1), the pair index used as "
        "the feature index: the blocks overlap and overwrite each other, and the rows and "
        "columns of features d_model/2 + 1 and above stay empty. Pair i holds features 2i and 2i + 1, so its block "
        "is at (2i, 2i + 1).": (lambda: _shift_pair_index(k, d_model)) if d_model > 2 else None,
        "The sine terms have the wrong sign: this matrix shifts by -k (it is the transpose "
        "of the right one). PE[pos] is a *row* vector multiplied from the left, PE[pos] @ M, "
        "and sin(a+b) = sin a·cos b + cos a·sin b, cos(a+b) = cos a·cos b - sin a·sin b give "
        "M[2i, 2i] = M[2i+1, 2i+1] = cos(w_i·k), M[2i+1, 2i] = +sin(w_i·k) and "
        "M[2i, 2i+1] = -sin(w_i·k). (Deriving it for a column vector, M @ PE[pos], gives "
        "the transpose.)": (lambda: relative_shift_f(k, d_model, transpose=True)),
        "Each pair rotates by w_i, the shift for k = 1: k is missing from the angle, so your "
        "matrix moves one position whatever k is. To move k positions it must rotate by the "
        "angle w_i·k.": lambda: relative_shift_f(k, d_model, angle="w"),
        "Every pair rotates by the same angle k. Pair i rotates by w_i·k, with its own "
        "frequency w_i = 1 / 10000^(2i/d_model).": lambda: relative_shift_f(k, d_model, angle="k"),
        "The frequencies use 10000^(i/d_model); they are the ones of positional_encoding, "
        "w_i = 1 / 10000^(2i/d_model).": lambda: relative_shift_f(k, d_model, exponent="i"),
        "The blocks sit at (i, i + d_model/2), the concatenated layout. In this course a "
        "pair is the interleaved features (2i, 2i+1).": lambda: relative_shift_f(
            k, d_model, layout="concatenated"
        ),
        "The angle is k *times* 10000^(2i/d_model); it is k *divided* by it, w_i·k with "
        "w_i = 1 / 10000^(2i/d_model) (the frequencies of positional_encoding).": (
            lambda: _shift_at_angles(k * np.power(10000.0, np.arange(0, d_model, 2) / d_model))
        ),
        **{
            "Sine and cosine are swapped in every 2×2 block: the diagonal holds sin(w_i·k) "
            "where cos(w_i·k) belongs, and the entries off it hold ±cos(w_i·k) where "
            "±sin(w_i·k) belong"
            + (" (with the minus sign below the diagonal, too)" if transpose else "")
            + ". Such a block is no rotation, so PE[pos] @ M is no row of the table. From "
            "sin(a+b) = sin a·cos b + cos a·sin b and cos(a+b) = cos a·cos b - sin a·sin b: "
            "M[2i, 2i] = M[2i+1, 2i+1] = cos(w_i·k), M[2i+1, 2i] = +sin(w_i·k), "
            "M[2i, 2i+1] = -sin(w_i·k).": (
                lambda transpose=transpose: _shift_sin_cos_swapped(k, d_model, transpose)
            )
            for transpose in (False, True)
        },
        f"Your matrix is k = {k} times the matrix of a shift by one position (k * M1, "
        "the matrix multiplied by the number k): the entries are scaled, but a shift by k "
        "turns each pair by k times its angle, w_i·k, which is the k-th *matrix* power of "
        "M1 (np.linalg.matrix_power(M1, k)), not its multiple; k = 0 would give the zero "
        "matrix instead of the identity. Put w_i·k into the cos and sin.": (
            lambda: k * relative_shift_f(1, d_model) if k != 1 else None
        ),
        f"Your matrix is the shift by one position with every entry raised to the power "
        f"k = {k} (M1 ** k, elementwise: numpy's ** works entry by entry). Shifting k times "
        "is a *matrix* power, np.linalg.matrix_power(M1, k) (a negative k too), or directly "
        "the rotation of each pair by w_i·k.": (
            lambda: _elementwise_power(relative_shift_f(1, d_model), k) if k != 1 else None
        ),
    }


def _shift_sin_cos_swapped(k, d_model, transpose: bool) -> np.ndarray | None:
    """Every 2x2 block with sin and cos exchanged: sin(w_i·k) on the diagonal, +cos below
    it and -cos above (the minus above the diagonal kept; ``transpose``: below it). None
    for an odd d_model (no matrix) or k = 0 with d_model 2 (nothing to tell)."""
    if d_model % 2:
        return None
    theta = k / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    two_i = np.arange(0, d_model, 2)
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = m[two_i + 1, two_i + 1] = np.sin(theta)
    below, above = (-np.cos(theta), np.cos(theta)) if transpose else (np.cos(theta), -np.cos(theta))
    m[two_i + 1, two_i], m[two_i, two_i + 1] = below, above
    return m


def _single_shift_mistakes(k, d_model):
    """The mistakes told apart by one call. k left out of the angle (the shift by one
    position) is not: k // 2 or k - 2 give the same matrix at k = 3. _offset_as_function
    names it, and every other mistake on k alone, after a second call."""
    return {
        message: value
        for message, value in _shift_mistakes(k, d_model).items()
        if not message.startswith("Each pair rotates by w_i")
    }


#: ways an angle k·w_i (k / 10000^(2i/d_model)) gets rounded to a whole number
_ANGLE_ROUNDINGS = (
    (
        np.floor,
        "rounded down to a whole number: a floor division, k // 10000^(2i/d_model) (or np.floor)",
    ),
    (np.trunc, "cut to a whole number towards 0: int(...), or astype(int)"),
    (np.round, "rounded to the nearest whole number: round(...) or np.round"),
    (np.ceil, "rounded up to a whole number: np.ceil (or -(-k // ...))"),
)


#: probes that tell the roundings apart, and them from angles that are ~0: at d_model = 4
#: pair 1 turns by k / 100 = ±1.5, which floor, int(), round and ceil each map to
#: another pair of whole numbers (1 and -2, 1 and -1, 2 and -2, 2 and -1)
_ROUNDING_PROBES = ((150, 4), (-150, 4))


def _shift_angles(k, d_model) -> np.ndarray:
    """k·w_i for every pair: (d_model/2,)."""
    return k / np.power(10000.0, np.arange(0, d_model, 2) / d_model)


def _rounded_angles(relative_shift, got: np.ndarray, k: int, d_model: int) -> str:
    """The rotation with each angle k·w_i rounded to a whole number (a floor division,
    int(), round, ceil), named when the learner's matrix is that here and on the probes
    :data:`_ROUNDING_PROBES`, which tell the roundings apart (and from angles that
    underflow to 0, which every rounding of a small angle also gives); "" otherwise."""
    if d_model < 4 or d_model % 2 or got.shape != (d_model, d_model):
        return ""
    here = [
        (rounding, text)
        for rounding, text in _ANGLE_ROUNDINGS
        if np.allclose(got, _shift_at_angles(rounding(_shift_angles(k, d_model))), atol=1e-9)
    ]
    if not here:
        return ""
    probed = []
    for probe in _ROUNDING_PROBES:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                probed.append(np.asarray(relative_shift(*probe), dtype=np.float64))
        except Exception:
            return ""
    found = [
        text
        for rounding, text in here
        if all(
            matrix.shape == (probe[1], probe[1])
            and np.allclose(matrix, _shift_at_angles(rounding(_shift_angles(*probe))), atol=1e-9)
            for matrix, probe in zip(probed, _ROUNDING_PROBES, strict=True)
        )
    ]
    if not found:
        return ""
    return (
        "Your angles are whole numbers: pair i turns by k·w_i "
        + "; or ".join(found)
        + " (pair 0, w_0 = 1, is right for a whole k; at k = 150, d_model = 4, pair 1's angle "
        "1.5 came out as a whole number too). Keep the angle a float: k / np.power(10000.0, "
        "2i / d_model), true division."
    )


#: the oracle's knobs, each one known mistake: (the knob's setting, its key in
#: _shift_mistakes' messages, found by their first words)
_SHIFT_KNOBS = (
    ({"transpose": True}, "The sine terms have the wrong sign"),
    ({"angle": "w"}, "Each pair rotates by w_i"),
    ({"angle": "k"}, "Every pair rotates by the same angle k"),
    ({"exponent": "i"}, "The frequencies use 10000^(i/d_model)"),
    ({"layout": "concatenated"}, "The blocks sit at (i, i + d_model/2)"),
)


def _shift_pairs(k: int, d_model: int) -> dict[str, np.ndarray]:
    """Two of the oracle's mistakes at once (a transposed block with a wrong frequency,
    say), both named; combinations where one knob makes the other moot (one angle k for
    every pair uses no frequency) are left out."""
    messages = _shift_mistakes(k, d_model)
    text = {start: next(m for m in messages if m.startswith(start)) for _, start in _SHIFT_KNOBS}
    pairs = {}
    for n, (first, first_start) in enumerate(_SHIFT_KNOBS):
        for second, second_start in _SHIFT_KNOBS[n + 1 :]:
            if first.keys() & second.keys():
                continue
            if {"angle", "exponent"} <= (first.keys() | second.keys()) and "k" in (
                first.get("angle"),
                second.get("angle"),
            ):
                continue
            pairs[two_mistakes(text[first_start], text[second_start])] = relative_shift_f(
                k, d_model, **first, **second
            )
    return pairs


def _elementwise_power(m: np.ndarray, k: int) -> np.ndarray:
    with np.errstate(all="ignore"):
        return m**k


def _shift_at_angles(theta: np.ndarray) -> np.ndarray:
    """The block-diagonal rotation with pair i turned by theta[i]."""
    two_i = 2 * np.arange(len(theta))
    m = np.zeros((2 * len(theta), 2 * len(theta)))
    m[two_i, two_i] = m[two_i + 1, two_i + 1] = np.cos(theta)
    m[two_i + 1, two_i], m[two_i, two_i + 1] = np.sin(theta), -np.sin(theta)
    return m


def _block_entries(got: np.ndarray, k: int, d_model: int) -> str:
    """Localise by the four places of the 2×2 blocks: which of them hold what (cos, ±sin
    of the right angles, or 0) in every block; "" unless each wrong place holds one."""
    if d_model < 2:
        return ""
    i = np.arange(0, d_model, 2)
    theta = k / np.power(10000.0, i / d_model)
    forms = {
        "cos(w_i·k)": np.cos(theta),
        "+sin(w_i·k)": np.sin(theta),
        "-sin(w_i·k)": -np.sin(theta),
        "-cos(w_i·k)": -np.cos(theta),
        "0": np.zeros_like(theta),
    }
    places = {
        "M[2i, 2i]": ((i, i), "cos(w_i·k)"),
        "M[2i+1, 2i]": ((i + 1, i), "+sin(w_i·k)"),
        "M[2i, 2i+1]": ((i, i + 1), "-sin(w_i·k)"),
        "M[2i+1, 2i+1]": ((i + 1, i + 1), "cos(w_i·k)"),
    }
    wrong, moved = [], []
    for place, (index, right) in places.items():
        values = got[index]
        if np.allclose(values, forms[right], atol=1e-6):
            continue
        held = [name for name, form in forms.items() if np.allclose(values, form, atol=1e-6)]
        if len(held) != 1:
            return ""
        wrong.append(f"{place} holds {held[0]} where {right} belongs")
        if held == ["0"] and not np.allclose(forms[right], 0.0, atol=1e-6):
            moved += _written_elsewhere(got, place, index, forms[right], d_model)
    if not wrong:
        return ""
    return (
        "In every 2×2 block, "
        + "; ".join(wrong)
        + ". "
        + "".join(moved)
        + "The block of pair i is "
        "[[cos, -sin], [+sin, cos]] at the angle w_i·k: M[2i, 2i] = M[2i+1, 2i+1] = "
        "cos(w_i·k), M[2i+1, 2i] = +sin(w_i·k), M[2i, 2i+1] = -sin(w_i·k) (did one line "
        "write to the wrong row or column?)."
    )


def _written_elsewhere(got, place: str, index, values, d_model: int) -> list[str]:
    """Where the values missing from ``place`` went: a row (or column) offset of -2..2 at
    which ``got`` holds them in every block (numpy's negative indices wrap around, as an
    index computed as 2i - 1 does for i = 0). Offsets that land on the same entries (-2
    and +2 when d_model = 4) are named together; [] unless one set of entries fits."""
    rows, cols = index
    row_name, col_name = place[2:-1].split(", ")
    targets: dict[tuple, list[tuple[int, int, str]]] = {}
    for axis, name in ((0, row_name), (1, col_name)):
        for offset in (-2, -1, 1, 2):
            r = (rows + offset) % d_model if axis == 0 else rows
            c_ = (cols + offset) % d_model if axis == 1 else cols
            if np.allclose(got[r, c_], values, atol=1e-6):
                targets.setdefault((tuple(r), tuple(c_)), []).append((axis, offset, name))
    if len(targets) != 1:
        return []
    (found,) = targets.values()
    axis = found[0][0]
    if any(a != axis for a, _, _ in found):
        return []

    def shifted(name: str, offset: int) -> str:
        base = int(name.split("+")[1]) if "+" in name else 0
        return f"2i{base + offset:+d}".replace("+0", "") if base + offset else "2i"

    names = [shifted(name, offset) for _, offset, name in found]
    first = names[0]
    where = f"M[{first}, {col_name}]" if axis == 0 else f"M[{row_name}, {first}]"
    return [
        f"Its values were written to {where} instead"
        + (f" (or, the same entries here, with {' or '.join(names[1:])})" if len(names) > 1 else "")
        + f": the {'row' if axis == 0 else 'column'} index of that assignment is off "
        f"({first} where {found[0][2]} belongs{_index_term(found[0][2], found[0][1])}; "
        "numpy's negative indices wrap around to the end, so 2i - 1 for i = 0 is the last "
        "one). "
    ]


def _index_term(right: str, offset: int) -> str:
    """What the wrong index lost or gained next to ``right`` ("2i" or "2i+1"): a term left
    out (2i where 2i + 1 belongs), one added, or a term with the wrong constant."""
    base = int(right.split("+")[1]) if "+" in right else 0
    wrong = base + offset

    def term(n: int) -> str:
        return f"+ {n}" if n >= 0 else f"- {-n}"

    if wrong == 0:
        return f": the {term(base)} of that index is missing (left out)"
    if base == 0:
        return f": a {term(wrong)} was added to that index"
    return f": its {term(base)} became {term(wrong)}"


def _rotation_offset(got: np.ndarray, d_model: int) -> float | None:
    """The number of positions s that ``got`` shifts by, when it is the right rotation of
    every pair for some s (pair i turns by w_i·s, one s for every pair); None otherwise.
    s is measured from the slowest pair, whose angle cannot wrap around."""
    pairs = d_model // 2
    if pairs < 2 or got.shape != (d_model, d_model):
        return None
    two_i = 2 * np.arange(pairs)
    theta = np.arctan2(got[two_i + 1, two_i], got[two_i, two_i])  # each pair's angle
    w = 1.0 / np.power(10000.0, two_i / d_model)
    s = float(theta[-1] / w[-1])
    if abs(s - round(s)) < 1e-4:
        s = float(round(s))
    if not np.allclose(got, _shift_at_angles(s * w), atol=1e-6):
        return None
    return s


def _offset_functions(k: int) -> list[tuple[str, Any]]:
    """The ways a shift by k turns into a shift by another number of positions, as
    functions of k: each one's description and its function."""
    return [
        (
            "k is missing from the angle: each pair rotates by w_i, the shift for k = 1, so "
            "your matrix moves one position whatever k is",
            lambda k: 1,
        ),
        ("k never reaches the angle: the identity, the shift by 0 positions", lambda k: 0),
        ("k + 1: off by one", lambda k: k + 1),
        ("k - 1: off by one", lambda k: k - 1),
        ("k doubled (2k)", lambda k: 2 * k),
        ("k halved (k / 2)", lambda k: k / 2),
        ("k // 2: integer division", lambda k: k // 2),
        ("k squared (k ** 2)", lambda k: k * k),
        ("the sign of k is lost (abs(k))", abs),
        ("k times 2π: the angle w_i·k is already in radians", lambda k: 2 * math.pi * k),
        ("k divided by 2π: the angle w_i·k is already in radians", lambda k: k / (2 * math.pi)),
        (
            "k times π / 180: converted from degrees (np.deg2rad), but w_i·k is already in radians",
            lambda k: k * math.pi / 180,
        ),
        (
            "k times 180 / π: converted to degrees; cos and sin take radians",
            lambda k: k * 180 / math.pi,
        ),
    ]


def _frequency_index_shift(relative_shift, got: np.ndarray, k: int, d_model: int) -> str:
    """Every pair turned with the frequency of the pair c places before it (c = 1: the
    paper's index counted from 1 while i runs from 0, 10000^(-2(i - 1)/d_model); c = -1:
    the next pair's). At one d_model that is the rotation for k·10000^(2c/d_model)
    positions, which a factor on k gives too; a call with another d_model tells them
    apart (the index's factor changes with d_model, a factor on k does not). "" unless
    both calls fit one c."""
    pairs = d_model // 2
    if pairs < 2 or k == 0 or got.shape != (d_model, d_model):
        return ""
    w = 1.0 / np.power(10000.0, 2 * np.arange(pairs) / d_model)
    for c in (1, -1):
        if not np.allclose(got, _shift_at_angles(k * w * 10000.0 ** (2 * c / d_model)), atol=1e-6):
            continue
        d2 = d_model + 4
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                other = np.asarray(relative_shift(k, d2), dtype=np.float64)
        except Exception:  # a probe: any failure is no verdict
            return ""
        w2 = 1.0 / np.power(10000.0, 2 * np.arange(d2 // 2) / d2)
        if other.shape != (d2, d2) or not np.allclose(
            other, _shift_at_angles(k * w2 * 10000.0 ** (2 * c / d2)), atol=1e-6
        ):
            return ""
        which, index = ("before", "i - 1") if c == 1 else ("after", "i + 1")
        cause = (
            "the paper's index counted from 1 while your i starts at 0, so pair 0 turns "
            "by k·10000^(2/d_model), faster than k"
            if c == 1
            else "the index one too high, so the last pair turns by a frequency no pair has"
        )
        return (
            f"Every pair turns with the frequency of the pair {which} it: your angles are "
            f"k·10000^(-2({index})/d_model) where w_i·k = k·10000^(-2i/d_model) belongs "
            f"({cause}). On d_model = {d_model} and {d2} your matrices are the right "
            f"rotations with every frequency 10000^({2 * c}/d_model) times the right one, "
            "which only an index shifted by one pair gives (a factor on k would not change "
            "with d_model). Use w_i = 1 / 10000^(2i/d_model) with i = 0, 1, ..., "
            "d_model/2 - 1."
        )
    return ""


def _offset_as_function(relative_shift, got: np.ndarray, k: int, d_model: int) -> str:
    """Your matrix is the right rotation for another number of positions s != k: the
    family of mistakes on k alone (left out, off by one, doubled, halved, its sign lost,
    a factor 2π ...). A second call, with k + 5, tells them apart: a cause is named only
    when it gives the positions of both calls, all of them when several do; otherwise
    the number of positions is said. "" when the matrix is no such rotation."""
    s = _rotation_offset(got, d_model)
    if s is None or abs(s - k) < 1e-6:
        return ""
    named = _frequency_index_shift(relative_shift, got, k, d_model)
    if named:
        return named
    k2 = k + 5
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            other = np.asarray(relative_shift(k2, d_model), dtype=np.float64)
    except Exception:  # the main check reports the learner's errors
        other = None
    s2 = _rotation_offset(other, d_model) if other is not None else None
    if s2 is not None and k != 0:
        # an angle past 2π reads as a smaller shift (at d_model = 4, 800 positions and
        # 171.7 are one matrix): take the reading that keeps the first call's factor
        # when that matrix is the second call's too
        w = 1.0 / np.power(10000.0, 2 * np.arange(d_model // 2) / d_model)
        if np.allclose(other, _shift_at_angles(s / k * k2 * w), atol=1e-6):
            s2 = s / k * k2
    shown = f"{int(s)}" if s == round(s) else f"{s:.4g}"
    head = (
        f"Your matrix rotates each pair by w_i·{shown} instead of w_i·k with k = {k}: it is "
        f"the right shift, but by {shown} position{'' if s == 1 else 's'} instead of {k}"
    )
    tail = " Pair i turns by the angle w_i·k, w_i = 1 / 10000^(2i/d_model)."
    if s2 is None:
        return head + "." + tail
    functions = _offset_functions(k)
    # each one with the sine terms' signs flipped too (the transpose turns by -angle):
    # two mistakes at once (the identity has no sign to flip)
    functions += [
        (
            f"{text}, and the sine terms have the wrong sign (the transpose of the matrix, "
            "which turns the other way)",
            lambda k, f=f: -f(k),
        )
        for text, f in functions
        if f(k) != 0 or f(k + 5) != 0
    ]
    fits = [text for text, f in functions if abs(f(k) - s) < 1e-6 and abs(f(k2) - s2) < 1e-6]
    shown2 = f"{int(s2)}" if s2 == round(s2) else f"{s2:.4g}"
    seen = f"; with k = {k2} it shifts by {shown2}"
    if len(fits) == 1:
        return f"{head}{seen} ({fits[0]}).{tail}"
    if fits:
        return f"{head}{seen}: that fits " + " or ".join(fits) + "." + tail
    if abs(s2 - s) < 1e-6:
        return f"{head}{seen} too: your matrix does not depend on k.{tail}"
    if abs((s2 - k2) - (s - k)) < 1e-6:  # k + c, one constant c for both calls
        c = s - k
        written = f"k + {c:.4g}" if c > 0 else f"k - {-c:.4g}"
        return f"{head}{seen}: {written} where k belongs, in both calls.{tail}"
    if k != 0 and abs(s2 * k - s * k2) < 1e-6:  # k·r, one factor r for both calls
        return f"{head}{seen}: k is multiplied by {s / k:.4g} in both.{tail}"
    return f"{head}{seen}.{tail}"


def _shift_measured_exponent(got: np.ndarray, k: int, d_model: int) -> float | None:
    """The c of a rotation per pair whose frequencies fall geometrically, w_i =
    10000^(-c·i/d_model) (i the pair index), when that matrix is ``got``; None otherwise."""
    pairs = d_model // 2
    if k == 0 or pairs < 2 or got.shape != (d_model, d_model):
        return None
    two_i = 2 * np.arange(pairs)
    theta = np.arctan2(got[two_i + 1, two_i], got[two_i, two_i])  # each pair's angle
    if not np.allclose(got, _shift_at_angles(theta), atol=1e-6):
        return None  # not one rotation per pair
    index = np.arange(1, pairs)
    freq = theta[1:] / k
    usable = (np.abs(theta[1:]) < 3.0) & (freq > 0)  # away from the wrap at ±π
    if not usable.any():
        return None
    slope = -float(np.sum(index[usable] * np.log(freq[usable])) / np.sum(index[usable] ** 2))
    model = _shift_at_angles(k * np.exp(-slope * np.arange(pairs)))
    if not np.allclose(got, model, atol=1e-6):
        return None
    return slope * d_model / math.log(10000.0)


def _fitted_frequencies(got: np.ndarray, k: int, d_model: int, others=lambda: ()) -> str:
    """A rotation per pair whose frequencies fall geometrically, w_i = 10000^(-c·i/d_model),
    with another c than 2 (i the pair index): the c measured from the learner's angles,
    said only when the matrix it gives is the learner's. "" otherwise. What c says about
    the code is said only when the learner's ``others()`` matrices ((matrix, (k,
    d_model)) each, the check's other calls, made only then) give the same cause."""
    c = _shift_measured_exponent(got, k, d_model)
    if c is None or abs(c - 2.0) < 1e-3 or c <= 0:
        return ""
    measured = [
        (
            lambda c_other, matrix=matrix, case=case: np.allclose(
                matrix,
                _shift_at_angles(
                    case[0] / np.power(10000.0, c_other * np.arange(case[1] // 2) / case[1])
                ),
                atol=1e-6,
            ),
            case[1],
        )
        for matrix, case in others()
        if case[0] != 0 and case[1] >= 4 and matrix.shape == (case[1], case[1])
    ]
    why = _exponent_why_everywhere(c, d_model, measured)
    shown = f"{round(c)}i" if abs(c - round(c)) < 1e-3 else f"{c:.4g}·i"
    return (
        f"Each pair is rotated, but pair i turns by k / 10000^({shown}/d_model) (i the "
        f"pair index, measured from your matrix): the frequencies are those of "
        f"positional_encoding, w_i = 1 / 10000^(2i/d_model), so the exponent is 2i/d_model." + why
    )


def _other_matrices(relative_shift, cases, current) -> list:
    """The learner's matrices for the check's other even cases, (matrix, case) each; the
    cases that raise are left out (the check reaches them with their own message)."""
    matrices = []
    for case in cases:
        if case == current or case[1] % 2:
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                matrix = np.asarray(relative_shift(*case), dtype=np.float64)
        except Exception:
            continue
        matrices.append((matrix, case))
    return matrices


def _outside_blocks(got: np.ndarray, d_model: int) -> str:
    """Entries outside the 2×2 blocks (the reference is block diagonal): where, and when
    they all sit in the gaps between neighbouring blocks, what couples the pairs there."""
    if d_model % 2 or np.shape(got) != (d_model, d_model):
        return ""
    blocks = np.kron(np.eye(d_model // 2), np.ones((2, 2))) > 0
    outside = np.abs(np.where(blocks, 0.0, got)) > _FLOAT32_FORMULA["atol"]
    if not outside.any():
        return ""
    where = [(int(r), int(col)) for r, col in zip(*np.nonzero(outside), strict=True)]
    shown = ", ".join(map(str, where[:4])) + (", ..." if len(where) > 4 else "")
    gaps = {(2 * i + 1, 2 * i + 2) for i in range(d_model // 2 - 1)}
    gaps |= {(col, r) for r, col in gaps}
    if set(where) <= gaps:
        return (
            f"Your matrix has entries between neighbouring pairs, at {shown}: the entries "
            "[2i+1, 2i+2] and [2i+2, 2i+1], in the gap between the block of pair i and the "
            "block of pair i+1, must be 0, so that each pair only mixes its own sine and "
            "cosine. Yours couple pair i to the next pair. An off-diagonal filled all along "
            "(np.diag(v, 1), np.diag(v, -1)) writes these gaps too: write the four entries "
            "of each 2×2 block (2i, 2i+1) and leave everything else 0."
        )
    return (
        f"Your matrix has entries outside its 2×2 blocks, at {shown}: M is block diagonal, "
        "each block (2i, 2i+1) mixes one pair's sine with its own cosine, and everything "
        "outside those blocks must be 0."
    )


def _rows_at_two_angles(got: np.ndarray, k: int, d_model: int) -> str:
    """When each 2×2 block's two rows are each a cosine and a sine of one angle, the upper
    row at the right angle w_i·k and the lower at another: the block is no rotation. Named
    with the lower rows' angle when it is a frequency of its own per feature, k / 10000^((2i
    + 1) / d_model) (blind19e-rs-odd-rows-own-frequency); "" otherwise."""
    if d_model < 2 or d_model % 2:
        return ""
    i = np.arange(0, d_model, 2)
    right = k / np.power(10000.0, i / d_model)
    upper = np.arctan2(-got[i, i + 1], got[i, i])  # row 2i: [cos a, -sin a]
    lower = np.arctan2(got[i + 1, i], got[i + 1, i + 1])  # row 2i+1: [sin b, cos b]
    unit = np.allclose(got[i, i] ** 2 + got[i, i + 1] ** 2, 1.0, atol=1e-6) and np.allclose(
        got[i + 1, i] ** 2 + got[i + 1, i + 1] ** 2, 1.0, atol=1e-6
    )

    def same(a, b):  # angles equal up to whole turns
        return np.allclose(np.cos(a - b), 1.0, atol=1e-9)

    if not unit or not same(upper, right) or same(lower, right):
        return ""
    own = k / np.power(10000.0, (i + 1) / d_model)
    which = (
        " at a frequency of its own, k / 10000^((2i+1)/d_model), as if the cosine feature "
        "2i+1 had its own frequency"
        if same(lower, own)
        else " at another angle"
    )
    return (
        "In every 2×2 block the upper row turns by the right angle w_i·k, but the lower row "
        f"(the cosine feature 2i+1) turns{which}: a block whose two rows use different angles "
        "is no rotation, so PE[pos] @ M is not PE[pos + k]. Sine and cosine of pair i share "
        "one frequency w_i = 1 / 10000^(2i/d_model): the same angle w_i·k in all four "
        "entries of the block."
    )


def _shift_property_hint(got: np.ndarray, k: int, d_model: int) -> str:
    blocks = np.kron(np.eye(d_model // 2), np.ones((2, 2))) > 0
    outside = np.abs(np.where(blocks, 0.0, got)) > _FLOAT32_FORMULA["atol"]
    if outside.any():
        where = [(int(r), int(col)) for r, col in zip(*np.nonzero(outside), strict=True)]
        shown = ", ".join(map(str, where[:4])) + (", ..." if len(where) > 4 else "")
        empty = [
            i
            for i in range(d_model // 2)
            if np.abs(got[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]).max() <= _FLOAT32_FORMULA["atol"]
        ]
        located = f" Yours has entries outside the blocks at {shown}"
        if empty:
            located += f", and the block(s) of pair(s) {empty} are all zero"
        return (
            "M should be block diagonal: each 2×2 block (2i, 2i+1) mixes one sine with its "
            "own cosine, and everything outside those blocks is 0." + located + "."
        )
    pe = ref.positional_encoding(50 + abs(k), d_model)
    lo = max(0, -k)
    moved = pe[lo : lo + 50] @ got
    err = np.abs(moved - pe[lo + k : lo + k + 50]).max()
    return (
        f"PE[pos] @ M should equal PE[pos + {k}] for every pos; with yours they differ by "
        f"up to {err:.3g}. Check the angles (w_i·k) and where cos and ±sin sit."
    )


_VISIBLE_SHIFT = [(3, 4), (5, 8), (-2, 6), (0, 4)]
_HIDDEN_SHIFT = [(7, 16), (-11, 10), (100, 32), (0, 4), (1, 2), (4, 64)]

_RAISE_VALUE_ERROR = (
    "For an odd d_model, raise a ValueError yourself, with a message that says why, so "
    "that the caller learns what went wrong."
)


def _expect_negative_k_kept(c, relative_shift, got, what: str, k: int, d_model: int) -> None:
    """A negative k that lost its sign (abs(k)) gives the shift by |k|, which is also the
    transpose of the right matrix: a matrix derived for column vectors gives the same. A
    call with |k| parts them (the column-vector matrix is wrong there too). A loop that
    multiplies k times by the shift by one gives the identity for a negative k."""
    got64 = np.asarray(got, dtype=np.float64)
    if np.allclose(got64, np.eye(d_model), atol=1e-6):
        c.fail(
            f"{what} is the identity: the shift by 0 positions. A loop that applies the shift "
            f"by one k times (for _ in range(k)) runs zero times for k = {k}. A negative k "
            "turns each pair backwards: rotate by the angle w_i·k (negative), or use "
            "np.linalg.matrix_power(M1, k), which inverts for a negative k."
        )
    if not np.allclose(got64, ref.relative_shift(-k, d_model), atol=1e-6):
        return
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            positive = np.asarray(relative_shift(-k, d_model), dtype=np.float64)
    except Exception:  # the main check reports the learner's errors
        return
    if positive.shape == got64.shape and np.allclose(positive, got64, atol=1e-6):
        c.fail(
            f"{what} is your matrix for k={-k}: the sign of k is lost (abs(k), or a "
            f"shift computed from |k|), so it moves forward by {-k} positions instead of "
            f"back. Your positive shifts are right: keep k's sign, and each pair turns by "
            "the angle w_i·k, negative for a negative k."
        )


def _stacked_blocks(got, k: int, d_model: int) -> str:
    """Name a stack of the d_model / 2 rotation blocks, (d_model / 2, 2, 2), returned as M."""
    if np.shape(got) != (d_model // 2, 2, 2):
        return ""
    expected = ref.relative_shift(k, d_model)  # (d_model, d_model)
    pairs = range(d_model // 2)
    blocks = np.stack([expected[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] for i in pairs])
    right = np.allclose(np.asarray(got, dtype=np.float64), blocks, atol=1e-6)
    return (
        f"You returned a stack of the {d_model // 2} rotation blocks, shape "
        f"(d_model/2, 2, 2){', each block right' if right else ''}, instead of placing them "
        "on the diagonal of the (d_model, d_model) matrix: block i goes to rows and columns "
        "2i and 2i+1, every other entry is 0. M maps one row of the table (d_model features) "
        "to another."
    )


def _swapped(relative_shift, k: int, d_model: int) -> str:
    """k and d_model in another order (the signature's, or the body's): "" unless the
    keyword call or the exchanged call gives the right matrix."""

    def is_right(m) -> bool:
        m = np.asarray(m, dtype=np.float64)
        expected = ref.relative_shift(k, d_model)
        return m.shape == expected.shape and np.allclose(m, expected, atol=1e-6)

    return arguments_swapped(relative_shift, (k, d_model), ("k", "d_model"), is_right)


def _even_refused(relative_shift, k: int, d_model: int):
    """The hint for the learner's own ValueError on an even d_model: the keyword call
    and the call with k and d_model exchanged tell whether the parameters are in another
    order; a call with k + 1, the same d_model, whether the test reads k instead of
    d_model."""

    def hint(exc: BaseException) -> str:
        swapped = _swapped(relative_shift, k, d_model)
        if swapped:
            return swapped
        raised = False
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                relative_shift(k + 1, d_model)
        except ValueError:
            raised = True
        except Exception:  # another error: not this hint's to explain
            return ""
        head = (
            f"Your relative_shift raised ValueError for d_model={d_model}, which is even: "
            "every even d_model has a matrix, and only an odd one must be rejected."
        )
        if not raised:
            return (
                f"{head} With k={k + 1} (and the same d_model) it does not raise, so your "
                f"test depends on k, not on d_model (k % 2 where d_model % 2 belongs, say). "
                "Test d_model: if d_model % 2: raise ValueError(...)."
            )
        return f"{head} Check the condition of your raise: it should test d_model % 2."

    return hint


_FRESH_D_MODEL = itertools.count(1002, 2)  # even sizes no check call uses


def _same_matrix(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.allclose(a, b, atol=1e-6)


def _stale(relative_shift, got, seen: list, k: int, d_model: int) -> str:
    """The matrix of an earlier call returned again (state kept between calls), told
    apart from a constant k by two calls on a d_model never used: "" when it is not."""
    # the calls of this run first, then the other run's (the visible and hidden checks
    # run in one kernel, so a kept result can come from either)
    calls = [*seen, *_VISIBLE_SHIFT, *_HIDDEN_SHIFT]
    match = earlier_call(got, calls, (k, d_model), ref.relative_shift, _same_matrix)
    if match is None:
        return ""
    fresh = next(_FRESH_D_MODEL)
    if np.shape(got) == (d_model, d_model):  # a cache keyed without k
        if not kept_between_calls(
            relative_shift, (1, fresh), (2, fresh), ref.relative_shift, _same_matrix
        ):
            return ""
        how = (
            f"On a d_model it had not seen, {fresh}, it gave the right matrix for k=1, then "
            "that same matrix again for k=2"
        )
    else:  # one matrix for every call
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                again = relative_shift(1, fresh)
        except Exception:  # not this family's
            return ""
        if not _same_matrix(again, got):
            return ""
        how = f"relative_shift(1, {fresh}) returns it again too"
    return (
        f"Your matrix is the one of an earlier call, relative_shift(k={match[0]}, "
        f"d_model={match[1]}), returned again for k={k}, d_model={d_model}. {how}: your "
        "function keeps a result between calls (a cache keyed on d_model alone, or a "
        "module-level matrix built once). Build M from k and d_model on every call (a "
        "cache must be keyed on both, and return a copy)."
    )


def _python_sequence_hint(exc: BaseException) -> str:
    """Arithmetic on a Python range or list (range(0, d_model, 2) + 1, k / [..]): numpy's
    elementwise arithmetic belongs; "" for another TypeError."""
    text = str(exc)
    found = re.search(r"unsupported operand type\(s\) for .*'(range|list)'", text)
    kind = found.group(1) if found else "list" if "can only concatenate list" in text else ""
    if not kind:
        return ""
    return (
        f"A Python {kind} does no arithmetic entry by entry: range(0, d_model, 2) + 1 (or a "
        "number divided by a list) raises this. Keep the feature indices and the angles as "
        "numpy arrays, two_i = np.arange(0, d_model, 2): they index the matrix just as "
        "well (m[two_i, two_i + 1]) and compute elementwise."
    )


def _blocks_left_zero(got, k: int, d_model: int) -> str:
    """The sentence for a matrix whose written 2x2 blocks are right but some pairs' blocks
    are all zero (a loop over the wrong pairs): which pairs, and the loops that skip
    exactly those; "" when it is not that."""
    pairs = d_model // 2
    if d_model % 2 or pairs < 2 or np.shape(got) != (d_model, d_model):
        return ""
    got64 = np.asarray(got, dtype=np.float64)  # (d_model, d_model)
    expected = ref.relative_shift(k, d_model)  # (d_model, d_model)
    atol = _FLOAT32_FORMULA["atol"]
    blocks = np.kron(np.eye(pairs), np.ones((2, 2))) > 0
    if np.abs(np.where(blocks, 0.0, got64)).max() > atol:
        return ""
    empty, wrong = [], []
    for i in range(pairs):
        block = got64[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        if np.abs(block).max() <= atol:
            empty.append(i)
        elif not np.allclose(block, expected[2 * i : 2 * i + 2, 2 * i : 2 * i + 2], atol=atol):
            wrong.append(i)
    if not empty or wrong or len(empty) == pairs:
        return ""
    candidates = []
    if empty == list(range(1, pairs, 2)):
        candidates.append(
            "a loop that steps by 2 over the pair index (range(0, d_model // 2, 2), or block "
            "starts 2 * i for i in range(0, d_model // 2, 2)): the step of 2 belongs to the "
            "feature index 2i, not to the pair index as well"
        )
    if empty == [pairs - 1]:
        candidates.append("a loop that stops one pair early (range(d_model // 2 - 1))")
    if empty == list(range((pairs + 1) // 2, pairs)) and len(empty) > 1:
        candidates.append(
            "a loop over half the pairs (range(d_model // 4), the pair count halved once too often)"
        )
    named = (
        " Loops that skip exactly these: " + "; or ".join(candidates) + "." if candidates else ""
    )
    return (
        f"The 2×2 blocks of pair(s) {empty} are all zero, never written, while the blocks "
        "your code did write are right: your loop does not visit every pair."
        + named
        + f" Write one block for each of the d_model // 2 = {pairs} pairs: for i in "
        "range(d_model // 2), rows and columns 2i and 2i+1."
    )


def check_relative_shift(relative_shift, *, hidden: bool = False) -> None:
    """relative_shift(k, d_model) -> M (d_model, d_model) with PE[pos + k] = PE[pos] @ M.

    Any float dtype passes (float64 preferred, with a note otherwise); an odd d_model
    must raise ValueError.
    """
    with Checker("relative_shift", hidden=hidden) as c:
        c.require_callable(relative_shift)
        seen: list[tuple[int, int]] = []
        for k, d_model in _HIDDEN_SHIFT if hidden else _VISIBLE_SHIFT:
            what = f"relative_shift(k={k}, d_model={d_model})"
            got = c.call(
                relative_shift,
                k,
                d_model,
                call_repr=what,
                hints=[
                    (
                        lambda error: isinstance(error, ValueError),
                        _even_refused(relative_shift, k, d_model),
                    ),
                    (
                        lambda error: not isinstance(error, ValueError),
                        lambda error, k=k, d_model=d_model: _swapped(relative_shift, k, d_model),
                    ),
                    (TypeError, _python_sequence_hint),
                ],
            )
            _expect_array(c, got, what, "(d_model, d_model)")
            stale = (
                ""
                if _same_matrix(got, ref.relative_shift(k, d_model))
                else _stale(relative_shift, got, seen, k, d_model)
            )
            if stale:
                c.fail(f"{what} is not what the reference gives. {stale}")
            seen.append((k, d_model))
            c.expect_shape(
                got,
                (d_model, d_model),
                what,
                (
                    ""
                    if np.shape(got) == (d_model, d_model)
                    else _swapped(relative_shift, k, d_model)
                )
                or _stacked_blocks(got, k, d_model)
                or "M maps one row of the table (d_model features) to another.",
            )
            c.expect_floating(got, what, preferred="float64")
            if k < 0 and d_model % 2 == 0:
                _expect_negative_k_kept(c, relative_shift, got, what, k, d_model)
            left_zero = _blocks_left_zero(got, k, d_model)
            if left_zero:
                c.fail(f"{what} is not what the reference gives. {left_zero}")
            c.expect_close(
                got,
                ref.relative_shift(k, d_model),
                what,
                **_tolerance(got.dtype),
                hint=_shift_property_hint(got.astype(np.float64), k, d_model),
                mistakes=_single_shift_mistakes(k, d_model) if d_model % 2 == 0 else None,
                pairs=_shift_pairs(k, d_model) if d_model % 2 == 0 else None,
                explain=lambda got=got, k=k, d_model=d_model: (
                    _rounded_angles(relative_shift, np.asarray(got, dtype=np.float64), k, d_model)
                    or _block_entries(np.asarray(got, dtype=np.float64), k, d_model)
                    or _rows_at_two_angles(np.asarray(got, dtype=np.float64), k, d_model)
                    or _outside_blocks(np.asarray(got, dtype=np.float64), d_model)
                    or _offset_as_function(
                        relative_shift, np.asarray(got, dtype=np.float64), k, d_model
                    )
                    or _fitted_frequencies(
                        np.asarray(got, dtype=np.float64),
                        k,
                        d_model,
                        lambda current=(k, d_model): _other_matrices(
                            relative_shift, _HIDDEN_SHIFT if hidden else _VISIBLE_SHIFT, current
                        ),
                    )
                ),
            )
        refused: list[int] = []  # the k of the odd calls that raised ValueError
        # k = 0 last: a shortcut for the zero shift (the identity) must not skip the test
        for k, d_model in ((2, 7), (2, 1), (0, 7)) if hidden else ((2, 5), (0, 5)):
            what = f"relative_shift(k={k}, d_model={d_model})"
            try:
                result = c.call(
                    relative_shift,
                    k,
                    d_model,
                    call_repr=what,
                    hints=[(lambda error: not isinstance(error, ValueError), _RAISE_VALUE_ERROR)],
                )
            except CheckFailure as failure:
                if isinstance(failure.__cause__, ValueError):
                    c.ok()  # the ValueError the contract asks for
                    refused.append(k)
                    continue
                raise
            shortcut = (
                f" relative_shift(k={refused[0]}, d_model={d_model}) does raise it, so the "
                f"call with k={k} returns before your test of d_model is reached: a shortcut "
                f"for k = {k}"
                + (
                    " (the identity, np.eye(d_model), for the zero shift)"
                    if np.shape(result) == (d_model, d_model)
                    and np.allclose(np.asarray(result, dtype=np.float64), np.eye(d_model))
                    else ""
                )
                + " placed before it. Test d_model first, then compute (or shortcut) the "
                "matrix."
                if refused and k not in refused and k == 0
                else ""
            )
            c.fail(
                f"{what} returned {type(result).__name__} instead of raising ValueError. With "
                "an odd d_model the last feature is a sine without its cosine partner, and no "
                "matrix turns sin(a) alone into sin(a + w·k): raise ValueError." + shortcut
            )
