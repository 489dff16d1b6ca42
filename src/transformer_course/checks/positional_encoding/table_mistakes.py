"""The wrong tables: what each classic mistake of ``positional_encoding`` gives (from the
float64 oracle ``sinusoidal_positions_f``), the tables stored in another layout, and the
hints read from a table's properties. Shared by the checks of ``positional_encoding`` and
``PositionalEncoding``.
"""

from __future__ import annotations

import math

import numpy as np

from transformer_course.checking.layers import mistake_pairs, mistake_values
from transformer_course.checking.oracles import sinusoidal_positions_f
from transformer_course.checking.table_columns import column_sources
from transformer_course.reference import positional_encoding as ref

from .common import _FLOAT32_FORMULA

# ------------------------------------------------------------------ wrong tables
#: diagnosis -> the knobs of sinusoidal_positions_f that make that mistake
_PE_MISTAKES: dict[str, dict] = {
    "Sine and cosine are swapped: even features (0, 2, 4, ...) hold the sine, "
    "PE[pos, 2i] = sin(...), and odd features the cosine, PE[pos, 2i+1] = cos(...). "
    "(Row 0 is a give-away: it must read 0, 1, 0, 1, ...)": {"swap": True},
    "The sin and cos halves are concatenated (all sines in features 0..d_model/2-1, then "
    "all cosines). Some codebases (tensor2tensor, for one) use that layout and it carries "
    "the same information, but the paper, and this course, interleave them: sin in "
    "feature 2i, cos in feature 2i+1 (the even and the odd columns).": {"layout": "concatenated"},
    "The exponent uses i/d_model where the formula has 2i/d_model (i counts the "
    "sin/cos *pairs*, so the exponent runs over 0, 2/d_model, 4/d_model, ...). With i "
    "alone the wavelengths stop at about 100·2π instead of reaching 10000·2π.": {"exponent": "i"},
    "The cos feature 2i+1 has the wrong frequency: you put the feature index j = 2i+1 "
    "in the exponent. Both members of a pair share one angle, pos / 10000^(2i/d_model) "
    "with the *even* index 2i (use j - j % 2, or compute the angles once per pair).": {
        "exponent": "j"
    },
    "The exponent is doubled: you wrote 2·j/d_model with j the even feature index, but "
    "j already *is* 2i (range(0, d_model, 2) gives 2i). Use j/d_model, or 2i/d_model "
    "with i = j // 2.": {"exponent": "2j"},
    "The exponent uses the odd index 2i+1 for both features of pair i "
    "(np.arange(1, d_model, 2) where np.arange(0, d_model, 2) belongs): pair 0 must turn "
    "with frequency 1, 10000^0, so that feature 0 is sin(pos). The exponent is 2i/d_model, "
    "with the even index 2i.": {"exponent": "2i+1"},
    "Each feature j used its own index in the exponent, 2j/d_model: for the sines j is "
    "already 2i, so their exponent is doubled (4i/d_model), and each cosine, feature 2i+1, "
    "gets 2(2i+1)/d_model instead of the angle of its sine. Both features of pair i share "
    "pos / 10000^(2i/d_model), with the even index 2i (j - j % 2) over d_model.": {
        "exponent": "2col"
    },
    "The exponent is 2i / (d_model - 2), as tensor2tensor spreads its frequencies (num_"
    "timescales - 1 in the denominator): the last pair then reaches exactly 1/10000 and "
    "every pair after the first turns too slowly. The paper's exponent is 2i/d_model: "
    "divide by d_model, not d_model - 2.": {"exponent": "t2t"},
    "Every pair has the same frequency (1): the exponent 2i/d_model came out as 0. Did "
    "you use integer division (2 * i // d_model)?": {"exponent": "int"},
    "The base is 1000; the paper uses 10000 (10000^(2i/d_model)).": {"base": 1000.0},
    "The angle is pos *times* 10000^(2i/d_model) (multiplied instead of divided); it must "
    "be pos *divided* by it "
    "(equivalently times 10000^(-2i/d_model), i.e. exp(-2i·ln(10000)/d_model)).": {
        "multiply": True
    },
    "Positions start at 1; they start at 0 (row 0 is sin(0), cos(0), ... = 0, 1, 0, 1, "
    "...). Count the positions from 0 to max_len - 1.": {"start": 1},
}


#: the sizes a learner can divide the exponent's 2i by instead of d_model (the family of
#: a wrong denominator; tensor2tensor's d_model - 2 is a mistake of its own above)
_PE_DENOMINATORS = ("d_model // 2", "d_model - 1", "d_model + 1", "2 * d_model", "max_len")


def _pe_base_without_parentheses(max_len: int, d_model: int) -> np.ndarray:
    """The table with 10 ** (4 ** (2i/d_model)) in the denominator: 10.0**4 ** (...)."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    two_i = np.arange(0, d_model, 2)  # (ceil(d_model / 2),)
    angles = positions / 10.0 ** (4.0 ** (two_i / d_model))  # (max_len, ceil(d_model / 2))
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return table


def _pe_cosines_replaced(max_len: int, d_model: int, cosines) -> np.ndarray:
    """The reference table with its cosine features replaced by ``cosines(sines, cosines)``
    (both (max_len, d_model // 2)); all NaN where that cannot fill the cosine features (a
    broadcasting error in the learner's code: no table of theirs agrees with it)."""
    table = ref.positional_encoding(max_len, d_model)  # (max_len, d_model)
    pairs = d_model // 2
    try:
        table[:, 1::2] = cosines(table[:, 0 : 2 * pairs : 2], table[:, 1::2])
    except ValueError:
        return np.full_like(table, np.nan)
    return table


def _pe_cosines_drop_first_angle(max_len: int, d_model: int) -> np.ndarray:
    """The table whose cosines take the last d_model // 2 angles (angles[:, 1:] for an odd
    d_model); for an even d_model that slice is all the angles: the reference table."""
    table = ref.positional_encoding(max_len, d_model)  # (max_len, d_model)
    if d_model % 2 == 0 or d_model < 3:
        return table
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    angles = positions / np.power(
        10000.0, np.arange(0, d_model, 2) / d_model
    )  # (max_len, pairs + 1)
    table[:, 1::2] = np.cos(angles[:, 1:])  # (max_len, d_model // 2)
    return table


def _pe_cosines_drop_last_angle(max_len: int, d_model: int) -> np.ndarray:
    """The table whose cosines take angles[:, :-1] whatever d_model is."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    angles = positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    return _pe_cosines_replaced(max_len, d_model, lambda _sines, _cos: np.cos(angles[:, :-1]))


def _pe_angles_tiled(max_len: int, d_model: int) -> np.ndarray:
    """The table whose feature j takes the angle of pair j mod ceil(d_model / 2) (the
    pair angles tiled, np.tile(angles, 2)) instead of pair j // 2 (each angle repeated)."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    angles = positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model)  # (max_len, P)
    per_feature = angles[:, np.arange(d_model) % angles.shape[1]]  # (max_len, d_model)
    odd = np.arange(d_model) % 2 == 1  # (d_model,): the cosine features
    return np.where(odd, np.cos(per_feature), np.sin(per_feature))


def _pe_power_then_divided(max_len: int, d_model: int) -> np.ndarray:
    """The table with pos / (10000^(2i) / d_model): the exponent's parenthesis closed
    before / d_model (10000^(2i) overflows to inf for large i: angle 0 there)."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    with np.errstate(over="ignore"):
        denominators = np.power(10000.0, np.arange(0, d_model, 2, dtype=np.float64)) / d_model
    angles = positions / denominators  # (max_len, ceil(d_model / 2))
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return table


def _pe_roles_swapped(max_len: int, d_model: int, pair_index: str) -> np.ndarray:
    """The table whose angle has the positions and the pair indices in each other's
    place: ``pair_index`` / 10000^(position term / d_model), with the pair index written
    as the even feature index 2i ("2i": 2i / 10000^(pos/d_model)) or as the pair number i
    ("i": i / 10000^(2·pos/d_model))."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    two_i = np.arange(0, d_model, 2, dtype=np.float64)[None, :]  # (1, ceil(d_model / 2))
    if pair_index == "2i":
        angles = two_i / np.power(10000.0, positions / d_model)  # (max_len, P)
    else:
        angles = (two_i / 2) / np.power(10000.0, 2 * positions / d_model)  # (max_len, P)
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return table


#: the angle with the position and the pair index in each other's place, by how the
#: pair index was written
_PE_ROLES_SWAPPED = {
    "2i": "2i / 10000^(pos/d_model)",
    "i": "i / 10000^(2·pos/d_model)",
}


def _pe_exponents_to_one(max_len: int, d_model: int) -> np.ndarray:
    """The table whose exponents run evenly from 0 to exactly 1 over the pairs' angles
    (np.linspace(0, 1, number of angles)): pair i turns at pos / 10000^(i / (pairs - 1)).
    With a single angle its exponent, 0, is right: the reference table."""
    pairs = (d_model + 1) // 2  # the number of angles: one per sine
    if pairs < 2:
        return ref.positional_encoding(max_len, d_model)
    exponents = np.linspace(0.0, 1.0, pairs)  # (pairs,)
    angles = np.arange(max_len, dtype=np.float64)[:, None] / np.power(10000.0, exponents)
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return table


def _pe_angles_rounded(max_len: int, d_model: int, rounding) -> np.ndarray:
    """The table whose angles are rounded to whole radians by ``rounding`` (np.floor: a
    floor division pos // 10000^(2i/d_model), or int(); np.round)."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    angles = rounding(positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model))
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return table


def _pe_compute(max_len, d_model):
    return lambda **knobs: sinusoidal_positions_f(max_len, d_model, **knobs)


def _one_function(max_len, d_model, function):
    """The table with `function` (np.sin or np.cos) in every feature, at each pair's angle."""
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    angles = positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = function(angles)
    table[:, 1::2] = function(angles[:, : d_model // 2])
    return table


def _rows_alternate(max_len, d_model):
    """sin on the even positions (rows) and cos on the odd ones, of the right angles."""
    pairs = 2 * (np.arange(d_model) // 2)  # (d_model,): 2i of each feature
    angles = np.arange(max_len, dtype=np.float64)[:, None] / np.power(10000.0, pairs / d_model)
    even_row = (np.arange(max_len) % 2 == 0)[:, None]
    return np.where(even_row, np.sin(angles), np.cos(angles))


def _pe_mistakes(max_len, d_model):
    """diagnosis -> (a zero-argument function giving the table that mistake produces)."""
    mistakes = mistake_values(_pe_compute(max_len, d_model), _PE_MISTAKES)
    mistakes[
        "The odd features hold a sine too: there is no cosine at all (a copy of the even "
        "line?). Feature 2i+1 is cos(pos / 10000^(2i/d_model)), the cosine of the same angle "
        "as feature 2i (row 0 reads 0, 1, 0, 1, ...)."
    ] = lambda: _one_function(max_len, d_model, np.sin)
    mistakes[
        "The even features hold a cosine too: there is no sine at all. Feature 2i is "
        "sin(pos / 10000^(2i/d_model)), feature 2i+1 the cosine of the same angle."
    ] = lambda: _one_function(max_len, d_model, np.cos)
    mistakes[
        "The sines and cosines alternate along the wrong axis: yours has sin on the even "
        "*positions* (rows) and cos on the odd ones, as pe[0::2, :] = sin, pe[1::2, :] = cos "
        "would write. They alternate along the features: pe[:, 0::2] = sin and "
        "pe[:, 1::2] = cos, so every row holds sin, cos, sin, cos, ..."
    ] = lambda: _rows_alternate(max_len, d_model)
    mistakes[
        "Your sines are right, but each cosine feature 2i+1 is cos(sin(angle)): the cosines "
        "were taken of the sines, from columns that had already been overwritten with "
        "sin(angle). Keep the angles in an array of their own and take both the sines and "
        "the cosines from it (or take the cosines before overwriting)."
    ] = lambda: _pe_cosines_replaced(max_len, d_model, lambda sines, _cos: np.cos(sines))
    mistakes[
        "Your sines are right, but your cosines are never negative: they are the absolute "
        "value of the cosine, |cos(angle)|, as sqrt(1 - sin^2) gives it (cos^2 = 1 - sin^2 "
        "fixes the cosine only up to its sign). Take np.cos of the angle itself."
    ] = lambda: _pe_cosines_replaced(max_len, d_model, lambda _sines, cos: np.abs(cos))
    mistakes[
        "Your cosines take angles[:, :-1], dropping the last angle whatever d_model is: "
        "that is the rule for an odd d_model (its last sine has no cosine partner), but an "
        "even d_model has as many cosines as angles, so a cosine feature "
        "gets another pair's angle (or numpy cannot broadcast). Use "
        "np.cos(angles[:, : d_model // 2]), right for both."
    ] = lambda: _pe_cosines_drop_last_angle(max_len, d_model)
    mistakes[
        "Your sines are right, but with an odd d_model every cosine holds the next pair's "
        "angle: feature 2i+1 is the cosine of pair i+1's angle, not of pair i's. An odd "
        "d_model has one angle more than cosines (its last sine has no partner), and your "
        "cosines took the last d_model // 2 angles (angles[:, 1:], or a slice counted from "
        "the end, angles[:, -(d_model // 2):]), dropping the first angle where the last "
        "belongs. Take the first ones: pe[:, 1::2] = np.cos(angles[:, : d_model // 2])."
    ] = lambda: _pe_cosines_drop_first_angle(max_len, d_model)
    mistakes[
        "Your denominator is 10 ** (4 ** (2i/d_model)): ** is right-associative, so "
        "10.0**4 ** (2i / d_model) without parentheses around 10.0**4 raises 4, not 10000, "
        "to the power 2i/d_model (pair 0 then turns by 1/10 radian per position instead of "
        "1). Write (10.0**4) ** (2i / d_model), or np.power(10000.0, 2i / d_model)."
    ] = lambda: _pe_base_without_parentheses(max_len, d_model)
    mistakes[
        "Feature j got the angle of pair j mod (number of pairs) instead of pair j // 2: the "
        "pair angles were spread over the features with np.tile(angles, 2) (torch's "
        ".repeat), which repeats the whole row of angles one after the other, where "
        "np.repeat(angles, 2, axis=1) (torch's repeat_interleave) repeats each angle twice, "
        "side by side. So past pair 0 a sine and a cosine take the angle of another pair, "
        "and the two features of a pair no longer share one angle."
    ] = lambda: _pe_angles_tiled(max_len, d_model)
    mistakes[
        "Your angles are pos / (10000^(2i) / d_model): the parenthesis of the exponent "
        "closes too early, so the exponent is 2i instead of 2i/d_model, and the power is "
        "then divided by d_model. Pair 0 turns d_model radians per position instead of 1, "
        "and the other pairs almost not at all. Keep / d_model inside the exponent: "
        "np.power(10000.0, two_i / d_model), or 10000 ** (2 * i / d_model)."
    ] = lambda: _pe_power_then_divided(max_len, d_model)
    for pair_index, written in _PE_ROLES_SWAPPED.items():
        mistakes[
            "The position and the pair index swapped roles in the angle: yours is "
            f"{written}, the pair index divided by a power of the position, where the "
            "formula is pos / 10000^(2i/d_model): the position is the numerator and the "
            "pair index goes in the exponent. (That is why feature 0 is 0 at every "
            "position: its pair index is 0.)"
        ] = lambda pair_index=pair_index: _pe_roles_swapped(max_len, d_model, pair_index)
    mistakes[
        "Your exponents run evenly from 0 to exactly 1 over the pairs: pair i got "
        "i / (pairs - 1), as np.linspace(0, 1, number of pairs) spreads them, so the last "
        "pair turns at exactly pos / 10000 and every pair after the first turns too "
        "slowly. The exponent is 2i/d_model: it starts at 0 and stays below 1 (the last "
        "pair's is (d_model - 2)/d_model for an even d_model), np.arange(0, d_model, 2) / "
        "d_model."
    ] = lambda: _pe_exponents_to_one(max_len, d_model)
    mistakes[
        "Your angles are whole numbers of radians, rounded down: pos // 10000^(2i/d_model) "
        "(a floor division, or int() of the angle) drops the fraction, so pair 0 is right "
        "but the slower pairs stay at angle 0 for many positions. The angle is the true "
        "quotient, pos / 10000^(2i/d_model), with /."
    ] = lambda: _pe_angles_rounded(max_len, d_model, np.floor)
    mistakes[
        "Your angles are rounded to whole numbers of radians (np.round, or round()), so "
        "pair 0 is right but the slower pairs move in jumps of a whole radian or not at "
        "all. The angle is the true quotient, pos / 10000^(2i/d_model): do not round it."
    ] = lambda: _pe_angles_rounded(max_len, d_model, np.round)
    for size in _PE_DENOMINATORS:
        mistakes[
            f"The exponent divides 2i by {size} where it divides by d_model: pair i turns at "
            f"pos / 10000^(2i / ({size})). The exponent is 2i/d_model, the model's width, "
            "for every d_model."
        ] = lambda size=size: sinusoidal_positions_f(max_len, d_model, denominator=size)
    if d_model % 2:
        last = (
            f"With odd d_model={d_model} the last feature, {d_model - 1}, is even: it is the "
            f"sine of pair i={(d_model - 1) // 2}, which simply has no cosine partner. "
        )
        mistakes[last + "Yours is all zeros there."] = lambda: sinusoidal_positions_f(
            max_len, d_model, odd_last="zero"
        )
        mistakes[last + "Yours holds a cosine there."] = lambda: sinusoidal_positions_f(
            max_len, d_model, odd_last="cos"
        )
    return mistakes


def _pe_pairs(positional_encoding, cases, current, tol) -> dict[str, np.ndarray]:
    """Two mistakes of the table at once that agree with the learner's tables on every
    case the check runs ({both messages: the table for the ``current`` case}): on one
    small table two
    pairs of knobs can coincide (base 1000 with 4i/d_model is 10000 with 3i/d_model at
    d_model = 4), so a pair is named only when every case agrees with it."""
    tables = []
    for max_len, d_model in cases:
        try:
            tables.append(np.asarray(positional_encoding(max_len, d_model), dtype=np.float64))
        except Exception:  # the learner's code fails on another case: no pair is confirmed
            return {}
    per_case = [mistake_pairs(_pe_compute(*case), _PE_MISTAKES) for case in cases]
    found = {}
    for message in per_case[0]:
        values = [pairs[message]() for pairs in per_case]
        if all(
            v is not None
            and np.shape(v) == t.shape
            and np.allclose(t, np.asarray(v, dtype=np.float64), **tol)
            for v, t in zip(values, tables, strict=True)
        ):
            found[message] = values[cases.index(current)]
    return found


def _pe_feature_sources(got: np.ndarray, max_len: int, d_model: int) -> list[int] | None:
    """For each of the learner's features, the one reference feature it equals (its index),
    read by :func:`column_sources`; None when a feature equals none or several of them (a
    table of one row cannot tell the sines apart)."""
    expected = ref.positional_encoding(max_len, d_model)
    known = {str(m): expected[:, m] for m in range(d_model)}
    sources = column_sources(got, known, atol=10 * _FLOAT32_FORMULA["atol"])
    if len(sources) != d_model or any(len(names) != 1 for names in sources):
        return None
    return [int(names[0]) for names in sources]


def _pe_layout_hint(got: np.ndarray, max_len: int, d_model: int) -> str | None:
    """When each of the learner's features is one of the reference's (the sine or cosine of
    one pair) but not each in its place: say which, feature by feature (another order of
    all of them; or some used twice and others never)."""
    order = _pe_feature_sources(got, max_len, d_model)
    if order is None or order == list(range(d_model)):
        return None
    names = [f"{'cos' if j % 2 else 'sin'}{j // 2}" for j in range(d_model)]

    def show(indices) -> str:
        shown = ", ".join(names[m] for m in indices[:8])
        return f"[{shown}{', ...' if len(indices) > 8 else ''}]"

    first = next(j for j in range(d_model) if order[j] != j)
    if sorted(order) == list(range(d_model)):
        return (
            "Your table holds exactly the right sines and cosines, but in another feature "
            f"order (sinI / cosI: the sine / cosine of pair i): yours is {show(order)}, the "
            f"course's is {show(list(range(d_model)))}. The first misplaced one is feature "
            f"{first}, which holds {names[order[first]]} instead of {names[first]}. "
            + (
                "Each sine sits next to its cosine, but the pairs are out of order: pair i "
                "(frequency 1 / 10000^(2i/d_model)) belongs in features 2i and 2i+1."
                if all(order[j] // 2 == order[j + 1] // 2 for j in range(0, d_model - 1, 2))
                else "Interleave them: PE[:, 2i] = sin(angle_i), PE[:, 2i+1] = cos(angle_i) "
                "(pe[:, 0::2] and pe[:, 1::2])."
            )
        )
    # some reference features twice, others never (round 35, the family of
    # blind29c-rope-tables-halves-of-interleaved-sinusoid: right functions, wrong places);
    # every sine and cosine of its kind with another pair's angle is a slice of the angles
    # taken wrongly, which _pe_property_hint names
    if all(order[j] % 2 == j % 2 for j in range(d_model)):
        return None
    twice = [names[m] for m in sorted(set(order)) if order.count(m) > 1]
    never = [names[m] for m in range(d_model) if m not in order]
    pairs_right = all(order[j] // 2 == j // 2 for j in range(d_model))
    kinds = ["sin" if m % 2 == 0 else "cos" for m in order]
    why = ""
    if pairs_right:
        why = (
            " Every feature has its own pair's angle (pair j // 2), but the choice of sine or "
            "cosine is wrong"
            + (
                ": it follows the parity of the pair index i (i % 2), where it follows the "
                "feature's, j % 2 (even features the sine, odd ones the cosine)."
                if kinds == ["sin" if (j // 2) % 2 == 0 else "cos" for j in range(d_model)]
                else f" at features {[j for j in range(d_model) if order[j] != j][:8]}."
            )
        )
    return (
        "Every feature of your table is one of the right sines and cosines (sinI / cosI: the "
        f"sine / cosine of pair i), but not each in its place: yours is {show(order)}, the "
        f"course's is {show(list(range(d_model)))}. The first misplaced one is feature "
        f"{first}, which holds {names[order[first]]} instead of {names[first]}; "
        f"{', '.join(twice[:4])} appear{'s' if len(twice) == 1 else ''} more than once and "
        f"{', '.join(never[:4])}{' ...' if len(never) > 4 else ''} never.{why} Feature 2i is "
        "sin(angle_i) and feature 2i+1 cos(angle_i): pe[:, 0::2] = np.sin(angles), "
        "pe[:, 1::2] = np.cos(angles)."
    )


def _pe_mistakes_and_layout(got: np.ndarray, max_len: int, d_model: int) -> dict:
    """The named mistakes, then the layout diagnosis only where none of them gives the
    learner's table (a sin/cos swap or the sin|cos halves are permutations too, and their
    own messages say more)."""
    named = _pe_mistakes(max_len, d_model)
    for wrong in named.values():
        value = wrong() if callable(wrong) else wrong
        if (
            value is not None
            and np.shape(value) == got.shape
            and np.allclose(value, got, atol=1e-3)
        ):
            return named
    return {**named, **_pe_layout(got, max_len, d_model)}


def _pe_layout(got: np.ndarray, max_len: int, d_model: int) -> dict[str, np.ndarray]:
    """{the layout diagnosis: the reference's features in the learner's order}, or {}."""
    if got.shape != (max_len, d_model) or not np.isfinite(got).all():
        return {}
    message = _pe_layout_hint(got, max_len, d_model)
    if message is None:
        return {}
    order = _pe_feature_sources(got, max_len, d_model)
    if order is None:
        return {}
    return {message: ref.positional_encoding(max_len, d_model)[:, order]}


#: factors every angle can be multiplied by when radians and turns or degrees are mixed
#: up: (the factor, what it says about the code)
_ANGLE_FACTORS = (
    (2 * math.pi, "2π: the angle pos·w_i is already in radians (sin and cos take it as is)"),
    (1 / (2 * math.pi), "1 / 2π: the angle pos·w_i is already in radians"),
    (
        math.pi / 180,
        "π / 180: converted from degrees (np.deg2rad, np.radians); pos·w_i is already in radians",
    ),
    (180 / math.pi, "180 / π: converted to degrees (np.rad2deg); sin and cos take radians"),
)


def _pe_scaled_table(max_len: int, d_model: int, c: float) -> np.ndarray:
    """The sinusoidal table of the positions 0, c, 2c, ..."""
    positions = c * np.arange(max_len, dtype=np.float64)[:, None]
    angles = positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
    table = np.zeros((max_len, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return table


def _linspace_reading(c: float, max_len: int, others) -> str:
    """c = max_len / (max_len - 1), the step of np.linspace(0, max_len, max_len) (its
    endpoint included), said only when the learner's ``others()`` tables ((table, case)
    each) have that step for their own max_len too: one table cannot tell it from a
    constant factor."""
    if max_len < 3 or abs(c * (max_len - 1) / max_len - 1.0) > 1e-6:
        return ""
    checked = 0
    for table, (n, d) in others():
        if n < 3 or d < 2 or table.shape != (n, d) or not np.isfinite(table[:2, :2]).all():
            continue
        if abs(float(np.arctan2(table[1, 0], table[1, 1])) - n / (n - 1)) > 1e-6:
            return ""
        checked += 1
    if not checked:
        return ""
    return (
        " = max_len / (max_len - 1), on every max_len the check tried: the positions are "
        "spaced max_len / (max_len - 1) apart, the step of np.linspace(0, max_len, "
        "max_len), whose endpoint max_len is included (the last row is position max_len, "
        "not max_len - 1). np.arange(max_len) gives the positions"
    )


def _pe_positions_scaled(
    got: np.ndarray, max_len: int, d_model: int, others=lambda: ()
) -> dict[str, np.ndarray]:
    """The sinusoidal table of positions 0, c, 2c, ... (every position multiplied by one
    factor c, read off row 1's first pair), as a mistake model: named with c, and as
    normalised positions when c = 1 / max_len or 1 / (max_len - 1), or radians mixed up
    with turns or degrees (2π, π / 180, ...). A factor of 2π cannot be read off pair 0
    (sin(2π·pos) is 0 at every integer), so those factors are models of their own. {}
    when c is 1."""
    if max_len < 3 or d_model < 2 or not np.isfinite(got[:2, :2]).all():
        return {}
    tail = (
        ": every position was multiplied by the same factor, so every angle is off by it. "
        "The positions are the plain integers 0, 1, 2, ..., max_len - 1."
    )
    models = {
        f"Your table is the sinusoidal table of the positions 0, c, 2c, ... with c = "
        f"{factor:.6g} = {why}{tail}": _pe_scaled_table(max_len, d_model, factor)
        for factor, why in _ANGLE_FACTORS
    }
    c = float(np.arctan2(got[1, 0], got[1, 1]))
    if abs(c - 1.0) < 1e-6 or abs(c) < 1e-9:
        return models
    if any(abs(c - factor) < 1e-6 for factor, _ in _ANGLE_FACTORS):
        return models
    named = {max_len: "max_len", max_len - 1: "max_len - 1"}
    which = next(
        (
            f" = 1 / {name}: the positions were divided by {name} (normalised to [0, 1))"
            for n, name in named.items()
            if abs(c * n - 1.0) < 1e-4
        ),
        "",
    ) or _linspace_reading(c, max_len, others)
    if abs(c + 1.0) < 1e-6:
        # sin(-x) = -sin(x), cos(-x) = cos(x): negated positions and negated sines give
        # one table, so both are named
        return {
            **models,
            "Your table has the opposite sign in every sine feature (the even ones, 0, 2, "
            "4, ...), and the cosines are right: either the sines were written with a minus "
            "too many (-sin(angle), or cos(angle + π/2)), or the positions were negated "
            "(0, -1, -2, ...), which gives the same table since cos(-x) = cos(x). Use sin(pos "
            "· w_i) on the even features, with the positions 0, 1, 2, ..., max_len - 1.": (
                _pe_scaled_table(max_len, d_model, c)
            ),
        }
    message = (
        f"Your table is the sinusoidal table of the positions 0, c, 2c, ... with c = {c:.6g}"
        f"{which}{tail}"
    )
    return {**models, message: _pe_scaled_table(max_len, d_model, c)}


def _pe_property_hint(got: np.ndarray, max_len: int, d_model: int) -> str:
    """Explain the first basic property the learner's table violates."""
    if np.abs(got).max() > 1 + 1e-6:
        return (
            "Some values are outside [-1, 1], which sin and cos never leave. Is the angle "
            "inside the sin/cos?"
        )
    atol = _FLOAT32_FORMULA["atol"]
    row0 = np.where(np.arange(d_model) % 2 == 0, 0.0, 1.0)
    if not np.allclose(got[0], row0, atol=atol):
        return (
            f"Row 0 (position 0) should be sin(0), cos(0), ... = {np.round(row0[:6], 3)}... "
            f"but yours starts {np.round(got[0, :6], 3)}."
        )
    if not np.allclose(got[:, 0], np.sin(np.arange(max_len)), atol=atol):
        return "Feature 0 should be sin(pos): pair i = 0 has frequency 1 (wavelength 2π)."
    pairs = d_model // 2
    sin_cos = got[:, 0 : 2 * pairs : 2] ** 2 + got[:, 1 : 2 * pairs : 2] ** 2
    expected = ref.positional_encoding(max_len, d_model)
    if pairs and np.allclose(got[:, 0::2], expected[:, 0::2], atol=atol):
        # the sines are right: which pair's cosine does each odd feature hold?
        positions = np.arange(max_len, dtype=np.float64)[:, None]
        angles = positions / np.power(10000.0, np.arange(0, d_model, 2) / d_model)
        for i in range(pairs):
            if np.allclose(got[:, 2 * i + 1], expected[:, 2 * i + 1], atol=atol):
                continue
            other = [
                p
                for p in range(angles.shape[1])
                if np.allclose(got[:, 2 * i + 1], np.cos(angles[:, p]), atol=atol)
            ]
            if other:
                return (
                    f"Your sines are right, but feature {2 * i + 1} holds the cosine of pair "
                    f"{other[0]}'s angle, pos / 10000^({2 * other[0]}/d_model), not of pair {i}'s "
                    f"(the angle of its sine, feature {2 * i}): the cosines got the wrong slice "
                    "of the angles. The cosine of pair i goes to feature 2i+1, in order: "
                    "pe[:, 1::2] = np.cos(angles[:, : d_model // 2])."
                )
    if pairs and not np.allclose(sin_cos, 1.0, atol=10 * atol):
        return (
            "Features 2i and 2i+1 should be the sine and cosine of the *same* angle, so "
            "their squares should sum to 1, but they don't."
        )
    return (
        "Compare with the formula: PE[pos, 2i] = sin(pos / 10000^(2i/d_model)), "
        "PE[pos, 2i+1] = cos(pos / 10000^(2i/d_model))."
    )
