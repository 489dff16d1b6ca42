"""Checks for lesson 10's noam_lr: the learning-rate schedule of section 5.3."""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Callable

import numpy as np

from transformer_course.checking import Checker, numpy_rng, short
from transformer_course.checking.stale import answers_on_repeat

from .common import plain_float


def _noam(step, d_model, warmup):
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


#: the schedule without its linear warm-up factor (tensor2tensor's rsqrt_decay alone)
_FLAT_WARM_UP = (
    "Your rates are the schedule without its linear warm-up factor: d_model ** -0.5 * "
    "max(step, warmup) ** -0.5 alone (tensor2tensor's rsqrt_decay without its "
    "linear_warmup). After the warm-up they are right, but during it they sit flat at the "
    "peak, (d_model * warmup) ** -0.5, where the paper's rise linearly from step 1, step * "
    "d_model ** -0.5 * warmup ** -1.5. Multiply by min(1, step / warmup), or write the "
    "paper's form: lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)."
)

_NOAM_MISTAKES: dict[str, Callable[[int, int, int], float]] = {
    _FLAT_WARM_UP: lambda s, d, w: (d * max(s, w)) ** -0.5,
    "You used warmup ** -0.5 in the warm-up branch; the paper has step * warmup ** -1.5, "
    "which is what makes the two branches meet at step == warmup.": lambda s, d, w: (
        d**-0.5 * min(s**-0.5, s * w**-0.5)
    ),
    "Your rate is the larger of the two terms at every step, so it decreases during the "
    "warm-up and keeps growing after it. Two mistakes give exactly this: max taken where "
    "the paper takes min, or, written as an if/else on step < warmup, the two branches in "
    "each other's place (step ** -0.5 during the warm-up, step * warmup ** -1.5 after it; "
    "or the comparison inverted). The paper's rate is the rising line step * warmup ** "
    "-1.5 while step < warmup and the falling 1/sqrt(step) curve after it: d_model ** -0.5 "
    "* min(step ** -0.5, step * warmup ** -1.5).": lambda s, d, w: (
        d**-0.5 * max(s**-0.5, s * w**-1.5)
    ),
    # the family 'min replaced by another operation on the two branches'
    "Your rate is the SUM of the two terms, d_model ** -0.5 * (step ** -0.5 + step * warmup "
    "** -1.5), where the paper takes the smaller one: min(step ** -0.5, step * warmup ** "
    "-1.5). The rate then never rises from almost 0 and keeps growing after the warm-up.": (
        lambda s, d, w: d**-0.5 * (s**-0.5 + s * w**-1.5)
    ),
    "Your rate is the PRODUCT of the two terms, d_model ** -0.5 * step ** -0.5 * step * "
    "warmup ** -1.5, where the paper takes the smaller one: min(step ** -0.5, step * warmup "
    "** -1.5) (a comma between the two terms, not a *).": lambda s, d, w: (
        d**-0.5 * s**-0.5 * s * w**-1.5
    ),
    "The factor d_model ** -0.5 is missing (the rates are sqrt(d_model) times too "
    "large).": lambda s, d, w: min(s**-0.5, s * w**-1.5),
    "You multiplied by d_model ** 0.5 instead of d_model ** -0.5: a wider model gets a "
    "smaller learning rate, not a larger one.": lambda s, d, w: d**0.5 * min(s**-0.5, s * w**-1.5),
    "Your values are the paper's for step + 1: steps count from 1 (the first optimizer "
    "step is step 1), so do not add 1 to `step`.": lambda s, d, w: _noam(s + 1, d, w),
    "Your values are the paper's for step - 1: steps already count from 1.": lambda s, d, w: _noam(
        max(s - 1, 1), d, w
    ),
    "d_model and warmup are in each other's places: your values are the paper's "
    "formula with the two swapped, warmup ** -0.5 * min(step ** -0.5, step * d_model ** "
    "-1.5). Check the parameters' order, noam_lr(step, d_model, warmup), and which name "
    "each factor uses.": lambda s, d, w: _noam(s, w, d),
    "There is no warm-up: the rate starts at its largest value and only decays. For the "
    "first `warmup` steps it should grow linearly, step * warmup ** -1.5.": lambda s, d, w: (
        d**-0.5 * s**-0.5
    ),
}


_HALVES = [x / 2 for x in range(-6, 7)]  # the powers of d_model and warmup tried
_COEFFICIENTS = [1.0, -1.0, 0.5, -0.5, 2.0, -2.0]  # and the numbers in front of them


def _powers(coefficient: float, d_power: float, w_power: float) -> str:
    parts = [
        f"{coefficient:g}" if coefficient != 1 else "",
        f"d_model ** {d_power:g}" if d_power else "",
        f"warmup ** {w_power:g}" if w_power else "",
    ]
    return " * ".join(part for part in parts if part) or "1"


def _learner_values(noam_lr, d_model, warmup, steps) -> list[float] | None:
    """The learner's rates for other inputs, to test a candidate cause on them too."""
    try:
        values = [float(noam_lr(step, d_model, warmup)) for step in steps]
    except Exception:  # a candidate needs every value, or it is not tested
        return None
    return values if all(math.isfinite(v) and v != 0 for v in values) else None


def _exponent(points: list[tuple[int, float]]) -> float | None:
    """k when every value is C * step ** k (the same k between each pair of steps)."""
    if any(g1 / g2 <= 0 for (_, g1), (_, g2) in zip(points, points[1:])):
        return None  # a change of sign: not a power of step
    slopes = [
        math.log(g2 / g1) / math.log(s2 / s1)
        for (s1, g1), (s2, g2) in zip(points, points[1:])
        if s2 != s1
    ]
    if not slopes or any(not math.isclose(k, slopes[0], abs_tol=1e-6) for k in slopes):
        return None
    return (
        round(slopes[0] * 2) / 2 if abs(slopes[0] * 2 - round(slopes[0] * 2)) < 1e-6 else slopes[0]
    )


def _warm_up_floored(noam_lr, cases) -> str:
    """The rate 0 at every step of the warm-up (step < warmup) and right from step ==
    warmup on: what an integer division gives, step // warmup being 0 before warmup."""
    try:
        rates = [(d, w, steps, [float(noam_lr(s, d, w)) for s in steps]) for d, w, steps in cases]
    except Exception:  # every value is needed
        return ""
    early = [s for d, w, steps, _ in rates for s in steps if s < w]
    fits = early and all(
        v == 0 if s < w else math.isclose(v, _noam(s, d, w), rel_tol=1e-6)
        for d, w, steps, values in rates
        for s, v in zip(steps, values)
    )
    if not fits:
        return ""
    return (
        "Your rate is 0 at every step of the warm-up (step < warmup) and right from step == "
        "warmup on: the warm-up term is floored to 0, as an integer division does (step // "
        "warmup is 0 while step < warmup; int() or math.floor of step / warmup too). The "
        "warm-up rises linearly: step * warmup ** -1.5, or with true division (step / "
        "warmup) * warmup ** -0.5."
    )


def _warm_up_from_zero(noam_lr, cases) -> str:
    """The warm-up branch fed step - 1 (a counter from 0), the decay branch step: the
    learner's rate at step 1 is 0, so the first optimizer step does nothing."""
    try:
        values = [[float(noam_lr(s, d, w)) for s in steps] for d, w, steps in cases]
    except Exception:
        return ""
    fits = all(
        math.isclose(v, d**-0.5 * min(s**-0.5, (s - 1) * w**-1.5), rel_tol=1e-6, abs_tol=1e-15)
        for (d, w, steps), vals in zip(cases, values)
        for s, v in zip(steps, vals)
    )
    if not fits:
        return ""
    return (
        "Your rates are d_model ** -0.5 * min(step ** -0.5, (step - 1) * warmup ** -1.5): the "
        "warm-up branch counts from 0, so step 1 (the first optimizer step) gets a rate of 0 "
        "and the whole ramp lags one step. Steps count from 1: step * warmup ** -1.5."
    )


def _steps_moved(noam_lr, cases) -> str:
    """When every wrong rate of every case is the paper's rate at another whole step (each
    rate but the peak occurs at two steps, one per branch): which step, and the pattern
    (only step 1 moved to 2: a clamp of step; every step moved by the same k: step + k)."""
    moves = []  # (step, the steps whose rate the learner gave)
    for d, w, steps in cases:
        values = _learner_values(noam_lr, d, w, steps)
        if values is None:
            return ""
        for step, value in zip(steps, values):
            if math.isclose(value, _noam(step, d, w), rel_tol=1e-6):
                continue
            found = {
                round(t)
                for t, branch in ((value * d**0.5 * w**1.5, "warm"), ((d**-0.5 / value) ** 2, ""))
                if 1 <= t <= 10 * max(steps)
                and (t <= w if branch else t >= w)
                and math.isclose(t, round(t), rel_tol=1e-9, abs_tol=1e-6)
            }
            if not found:
                return ""
            moves.append((step, found))
    if not moves:
        return ""
    common = set.intersection(*({t - s for t in found} for s, found in moves))
    if {s for s, _ in moves} == {1} and 1 in common:
        return (
            "Your rate at step 1 is the paper's rate of step 2, and every other step is "
            "right: is your step clamped to at least 2 (max(step, 2))? The contract clamps "
            "to 1, max(step, 1), only so that step 0 does not divide by zero."
        )
    if len(common) == 1:
        (k,) = common
        shown = ", ".join(f"at step {s}, the rate of step {s + k}" for s, _ in moves[:3])
        return (
            f"Your rates are the paper's at other steps ({shown}): your steps are shifted by "
            f"{k:+d} (step {'+' if k > 0 else '-'} {abs(k)}); use the step as given."
        )
    return ""


#: the three exponents of the formula, as a learner may write them as fractions
_FRACTIONS = {"d_model": ("-1 / 2", -0.5), "step": ("-1 / 2", -0.5), "warmup": ("-3 / 2", -1.5)}


def _unparenthesised(x: float, name: str, as_fraction: bool) -> float:
    """x ** exponent, or what Python computes for x ** -1 / 2 (x ** -3 / 2): (x ** -1) / 2."""
    text, exponent = _FRACTIONS[name]
    if not as_fraction:
        return x**exponent
    numerator, denominator = (int(t) for t in text.split(" / "))
    return x**numerator / denominator


def _fraction_exponents(noam_lr, cases) -> str:
    """The exponents written as fractions without parentheses (x ** -1 / 2 is (x ** -1) / 2
    in Python): named when one choice of which exponents were so written gives every value
    of every case (when several do, all of them)."""
    rates = [(d, w, steps, _learner_values(noam_lr, d, w, steps)) for d, w, steps in cases]
    if any(values is None for *_, values in rates):
        return ""
    found = []
    for choice in itertools.product((False, True), repeat=3):
        if not any(choice):
            continue
        flags = dict(zip(_FRACTIONS, choice))

        def rate(s, d, w, flags=flags):
            return _unparenthesised(d, "d_model", flags["d_model"]) * min(
                _unparenthesised(s, "step", flags["step"]),
                s * _unparenthesised(w, "warmup", flags["warmup"]),
            )

        if all(
            math.isclose(v, rate(s, d, w), rel_tol=1e-9)
            for d, w, steps, values in rates
            for s, v in zip(steps, values)
        ):
            found.append([name for name, flag in flags.items() if flag])
    if not found:
        return ""
    written = " / ".join(
        ", ".join(f"{name} ** {_FRACTIONS[name][0]}" for name in names) for names in found
    )
    return (
        f"Your rates are what {written} give in Python: ** binds tighter than /, "
        "so x ** -1 / 2 is (x ** -1) / 2 = 1 / (2 x), not x ** -0.5. Write the "
        "exponents as decimals (** -0.5, ** -1.5) or in parentheses (** (-1 / 2))."
    )


#: the exponents of the formula, d_model ** -0.5 * min(step ** -0.5, step ** 1 * warmup **
#: -1.5), by name: (where it is, the paper's value)
_EXPONENTS = {
    "decay": ("step in the decay branch, step ** -0.5", -0.5),
    "warm": ("step in the warm-up branch, step * warmup ** -1.5", 1.0),
    "warmup": ("warmup in the warm-up branch, step * warmup ** -1.5", -1.5),
}
#: an input on which the exponents part: a warm-up short enough that every branch wins
#: somewhere, and steps far beyond it
_EXPONENT_PROBE = (16, 4, [1, 2, 3, 4, 5, 8, 20, 64, 100, 1000])


def _with_exponent(name: str, value: float):
    powers = {key: right for key, (_, right) in _EXPONENTS.items()} | {name: value}

    def rate(s, d, w):
        s = max(s, 1)
        return d**-0.5 * min(s ** powers["decay"], s ** powers["warm"] * w ** powers["warmup"])

    return rate


def _fitted_exponents(name: str, observed) -> list[float]:
    """The values the exponent ``name`` must have for each observed rate to come from its
    branch of the formula (the other exponents the paper's): any real number, such as
    sqrt(3) = 1.732 for warmup ** 3 ** 0.5, which half-integers do not cover. Each is
    then tested on every rate by the caller."""
    fitted = []
    for d, w, steps, values in observed:
        for s, v in zip(steps, values):
            scaled = v * d**0.5  # the rate without its d_model ** -0.5
            if scaled <= 0:
                continue
            if name == "warmup" and w > 1:
                fitted.append(math.log(scaled / s) / math.log(w))
            elif name == "warm" and s > 1:
                fitted.append(math.log(scaled * w**1.5) / math.log(s))
            elif name == "decay" and s > 1:
                fitted.append(math.log(scaled) / math.log(s))
    return fitted


def _right_associative(value: float, right: float, base: str) -> str:
    """Why an exponent is ``value`` where ``right`` belongs, when it is what a chain of two
    powers gives in Python: x ** a ** b is x ** (a ** b) (** is right-associative), not
    (x ** a) ** b = x ** (a * b); "" when no such a, b fit."""
    for a in range(2, 10):
        for b in (0.5, 0.75, 1.5, 2, 3, 1 / 3):
            if math.isclose(abs(right), a * b) and math.isclose(abs(value), a**b, rel_tol=1e-6):
                shown = f"{b:g}" if b != 1 / 3 else "(1 / 3)"
                return (
                    f" (what {base} ** {a} ** {shown} gives: ** is right-associative, so "
                    f"{base} ** {a} ** {shown} is {base} ** ({a} ** {shown}) = {base} ** "
                    f"{a**b:.6g}, not ({base} ** {a}) ** {shown} = {base} ** {a * b:g}; write "
                    f"the parentheses, or the exponent {abs(right):g} itself)"
                )
    return ""


def _exponent_replaced(noam_lr, cases) -> str:
    """The family 'one exponent of the formula replaced' (its sign flipped, a floor
    division, -3 // 2 = -2, another half-integer): named when exactly one replaced
    exponent gives every value of every case and of a probe whose short warm-up lets each
    branch win somewhere (when several do, all of them); "" otherwise."""
    observed = []
    for d, w, steps in [*cases, _EXPONENT_PROBE]:
        values = _learner_values(noam_lr, d, w, [s for s in steps if s > 0])
        if values is None:
            return ""
        observed.append((d, w, [s for s in steps if s > 0], values))
    found = []
    for name, (_, right) in _EXPONENTS.items():
        tried = []
        for value in [*(x / 2 for x in range(-6, 7)), *_fitted_exponents(name, observed)]:
            if math.isclose(value, right, rel_tol=1e-6) or (
                name == "warm" and math.isclose(value, -1.5, rel_tol=1e-6)
            ):
                continue  # (step * warmup) ** -1.5 is told below, with its cause
            if any(math.isclose(value, other, rel_tol=1e-6, abs_tol=1e-9) for other in tried):
                continue
            tried.append(value)
            rate = _with_exponent(name, value)
            if all(
                math.isclose(v, rate(s, d, w), rel_tol=1e-8)
                for d, w, steps, values in observed
                for s, v in zip(steps, values)
            ):
                found.append((name, value))
    if not found:
        return ""

    def said(name: str, value: float) -> str:
        where, right = _EXPONENTS[name]
        why = ""
        if value == -right:
            why = " (the sign of the exponent flipped)"
        elif value == 0:
            why = f" (x ** 0 is 1: the factor {where.split()[0]} is left out of that branch)"
        elif right != int(right) and value == math.floor(right):
            why = (
                f" (what {int(2 * right)} // 2 gives in Python: // is floor division, which "
                f"rounds {int(2 * right)} / 2 = {right:g} down to {value:g}; write {right:g})"
            )
        else:
            why = _right_associative(value, right, where.split()[0])
        return f"the exponent of {where}, is {value:.6g} in your formula instead of {right:g}{why}"

    if len(found) == 1:
        return (
            f"Your rates are the paper's formula with one exponent changed: {said(*found[0])}. "
            "lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)."
        )
    return (
        "Your rates are the paper's formula with one exponent changed; these changes all give "
        "exactly your rates on every input here: "
        + "; or ".join(said(*f) for f in found)
        + ". lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)."
    )


def _sizes_written_in(noam_lr, cases) -> str:
    """Rates that are exactly the schedule of other sizes (the paper's 512 and 4000, or
    another case's) on every case: the sizes written into the formula, not the arguments.
    A written-in size is a constant, the same on every case, so it is named only when one
    choice of constants gives every case's rates (a factor of 1/2 is d_model=1024 on one
    case with d_model=256, but not on the others)."""
    sizes_d = sorted({512, *(d for d, _, _ in cases)})
    sizes_w = sorted({4000, *(w for _, w, _ in cases)})
    observed = []
    for d, w, steps in cases:
        values = _learner_values(noam_lr, d, w, steps)
        if values is None:
            return ""
        observed.append((d, w, steps, values))

    def gives(fixed_d, fixed_w) -> bool:
        return all(
            math.isclose(v, _noam(s, fixed_d or d, fixed_w or w), rel_tol=1e-6)
            for d, w, steps, values in observed
            for s, v in zip(steps, values)
        )

    fits = [
        (dd, ww)
        for dd, ww in itertools.product([None, *sizes_d], [None, *sizes_w])
        if (dd, ww) != (None, None) and gives(dd, ww)
    ]
    wrong = [
        (d, w)
        for d, w, steps, values in observed
        if not all(math.isclose(v, _noam(s, d, w), rel_tol=1e-6) for s, v in zip(steps, values))
    ]
    if len(fits) != 1 or not wrong:
        return ""
    dd, ww = fits[0]
    d, w = wrong[0]
    fixed = [(name, got) for name, got in (("d_model", dd), ("warmup", ww)) if got is not None]
    names = " and ".join(name for name, _ in fixed)
    values = " and ".join(str(got) for _, got in fixed)
    shown = " and ".join(f"{name}={got}" for name, got in fixed)
    plural = len(fixed) > 1
    return (
        f"With d_model={d}, warmup={w}, your rates are exactly the schedule of {shown} at "
        f"every step: your formula does not use the "
        f"argument{'s' if plural else ''} {names} (the value{'s' if plural else ''} "
        f"{values} {'are' if plural else 'is'} written in). Use the arguments: "
        "lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)."
    )


def _kept_between_calls(noam_lr, cases) -> str:
    """The family 'state kept between calls': the same call made three times in a row
    gives different rates. Said with the step each call's rate belongs to when they are
    consecutive warm-up steps (a step counter of its own, increased at every call, as the
    Annotated Transformer's NoamOpt keeps self._step); "" when the calls agree."""
    d_model, warmup, steps = cases[0]
    step = steps[len(steps) // 2]
    answers = answers_on_repeat(noam_lr, (step, d_model, warmup))
    try:
        rates = [float(a) for a in answers or ()]
    except (TypeError, ValueError):  # not numbers: told by the check's own tests
        return ""
    if len(rates) < 3 or all(math.isclose(r, rates[0], rel_tol=1e-9) for r in rates):
        return ""
    call = f"noam_lr({step}, {d_model}, {warmup})"
    text = (
        f"Three calls in a row of {call}, with the very same arguments, gave three different "
        f"rates ({', '.join(f'{r:.6g}' for r in rates)}): your function keeps state between "
        "calls (a counter or a list kept on the function, in a global or in a default "
        "argument) instead of computing the rate from its arguments alone."
    )
    slope = d_model**-0.5 * warmup**-1.5  # the warm-up's rate per step
    counted = [round(r / slope) for r in rates]
    consecutive = all(b == a + 1 for a, b in zip(counted, counted[1:]))
    if consecutive and all(
        0 < n <= warmup and math.isclose(r, _noam(n, d_model, warmup), rel_tol=1e-6)
        for n, r in zip(counted, rates)
    ):
        text += (
            f" They are the rates of steps {', '.join(map(str, counted))}: your function "
            f"ignores its step argument ({step}) and counts the steps itself, one more at "
            "every call (as the Annotated Transformer's NoamOpt keeps self._step). The "
            "training loop passes the step: compute the rate from it, with no counter."
        )
    else:
        text += " Compute the rate from step, d_model and warmup alone, with nothing stored."
    return text


#: the paper's schedule as a product of three factors (tensor2tensor's names in brackets):
#: d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5) is scale * decay * ramp
_NOAM_FACTORS: dict[str, Callable[[int, int, int], float]] = {
    "scale": lambda s, d, w: d**-0.5,  # constant("hidden_size ** -0.5")
    "decay": lambda s, d, w: max(s, w) ** -0.5,  # rsqrt_decay
    "ramp": lambda s, d, w: min(1.0, s / w),  # linear_warmup
}


def _narrow_noam(noam_lr, found: list[str], d_model: int, warmup: int) -> list[str]:
    """Of the table's mistakes that fit every step checked, those that also fit steps inside
    the warm-up (a case whose only warm-up step is 1 cannot tell a flat start from
    warmup ** -0.5 in the warm-up branch: both give (d_model * warmup) ** -0.5 there)."""
    extra = sorted({s for s in (warmup // 2 + 1, max(2, warmup // 4)) if 1 < s < warmup})
    if not extra:
        return found
    values = _learner_values(noam_lr, d_model, warmup, extra)
    if values is None:
        return found
    return [
        message
        for message in found
        if message not in _NOAM_MISTAKES
        or all(
            math.isclose(v, _NOAM_MISTAKES[message](s, d_model, warmup), rel_tol=1e-6)
            for s, v in zip(extra, values)
        )
    ]


def _missing_factor(rates) -> str:
    """The learner's curve read against the schedule's factors (:data:`_NOAM_FACTORS`):
    when it is the product of all but one of them, at every step of every case, name the
    factor left out and what it does to the curve (blind29b-noam-rsqrt-decay-without-
    warmup-ramp: tensor2tensor's rsqrt_decay alone, flat at the peak during the warm-up,
    was told only "your rates go like step ** 0"). "" when no single factor explains it
    (a missing scale is a constant factor, said before this)."""
    for name in ("ramp", "decay"):
        kept = [f for key, f in _NOAM_FACTORS.items() if key != name]
        if all(
            math.isclose(v, math.prod(f(s, d, w) for f in kept), rel_tol=1e-6)
            for d, w, steps, values in rates
            for s, v in zip(steps, values)
        ):
            break
    else:
        return ""
    d, w, steps, _ = rates[0]
    peak = (d * w) ** -0.5
    if name == "ramp":
        first = min(steps)
        return (
            "Your rates are the schedule without its linear warm-up factor: "
            "d_model ** -0.5 * max(step, warmup) ** -0.5 alone (tensor2tensor's rsqrt_decay "
            "without its linear_warmup). After the warm-up they are right, but during it "
            f"they sit flat at the peak, (d_model * warmup) ** -0.5 = {peak:.6g} for "
            f"d_model={d}, warmup={w}, where the paper's rise linearly from step 1, "
            f"step * d_model ** -0.5 * warmup ** -1.5 ({_noam(first, d, w):.6g} at step "
            f"{first}). Multiply by min(1, step / warmup), or write the paper's form: "
            "lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)."
        )
    return (
        "Your rates are the schedule without its decay factor: they rise linearly during the "
        f"warm-up, as the paper's do, and after it your rates stay constant at the peak, "
        f"(d_model * warmup) ** -0.5 = {peak:.6g} for d_model={d}, warmup={w}: no decay. The "
        "paper's decay like step ** -0.5 after the peak: that is the step ** -0.5 branch of "
        "lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)."
    )


def _explain_noam(noam_lr, cases) -> str:
    """What the learner's rates are, when it can be told from every visible case: the
    paper's times a constant factor (a power of d_model and warmup, when exactly one fits
    every case), or a power of step other than the paper's in the warm-up or after it."""
    shifted = (
        _kept_between_calls(noam_lr, cases)
        or _warm_up_floored(noam_lr, cases)
        or _sizes_written_in(noam_lr, cases)
        or _warm_up_from_zero(noam_lr, cases)
        or _fraction_exponents(noam_lr, cases)
        or _steps_moved(noam_lr, cases)
        or _exponent_replaced(noam_lr, cases)
    )
    if shifted:
        return shifted
    rates = [(d, w, steps, _learner_values(noam_lr, d, w, steps)) for d, w, steps in cases]
    if any(values is None for *_, values in rates):
        return ""
    constant = _constant_rate(rates)
    if constant:
        return constant
    ratios = [[v / _noam(s, d, w) for s, v in zip(steps, vals)] for d, w, steps, vals in rates]
    if all(math.isclose(max(r), min(r), rel_tol=1e-6) for r in ratios):
        fits = [
            (k, a, b)
            for k, a, b in itertools.product(_COEFFICIENTS, _HALVES, _HALVES)
            if (k, a, b) != (1, 0, 0)
            and all(
                math.isclose(r[0], k * d**a * w**b, rel_tol=1e-6)
                for r, (d, w, *_) in zip(ratios, rates)
            )
        ]
        factors = ", ".join(
            f"{r[0]:.6g} for d_model={d}, warmup={w}" for r, (d, w, *_) in zip(ratios, rates)
        )
        head = (
            "Your rates have the paper's shape (the linear warm-up, then the 1/sqrt(step) "
            f"decay) but are a constant factor times its values at every step ({factors})"
        )
        same = all(math.isclose(r[0], ratios[0][0], rel_tol=1e-6) for r in ratios)
        if same and len({(d, w) for d, w, *_ in rates}) > 1:
            # the family 'a bare number in front' (the Annotated Transformer's NoamOpt
            # `factor`, say): the same ratio whatever d_model and warmup
            k = ratios[0][0]
            words = {2.0: "twice", 0.5: "half", -1.0: "minus", -2.0: "minus twice"}
            times = words.get(round(k, 9), f"{k:.6g} times")
            return (
                f"{head}: your rates are {times} the paper's at every step, whatever d_model "
                f"and warmup, so a bare factor of {k:.6g} multiplies the formula (a factor "
                "argument, or a constant left in front). The paper's lr is d_model ** -0.5 * "
                "min(step ** -0.5, step * warmup ** -1.5), with nothing in front."
            )
        if len(fits) == 1:
            k, a, b = fits[0]
            return (
                f"{head}: your scale factor is {_powers(k, -0.5 + a, b)}; the paper's is "
                "d_model ** -0.5."
            )
        rounded_root = all(
            math.isclose(r[0], math.sqrt(d) / math.isqrt(d), rel_tol=1e-6)
            for r, (d, *_) in zip(ratios, rates)
        )
        if rounded_root and not same:
            # exact where d_model is a perfect square, too large by sqrt(d) / isqrt(d)
            # elsewhere: the square root was rounded down to an integer
            return (
                f"{head}: each factor is sqrt(d_model) / isqrt(d_model), so your formula "
                "divides by the integer square root of d_model (rounded down, math.isqrt or "
                "int(d_model ** 0.5)): exact only where d_model is a perfect square. Use "
                "d_model ** -0.5, the real square root."
            )
        return f"{head}: the scale factor is wrong; the paper's is d_model ** -0.5."
    missing = _missing_factor(rates)
    if missing:
        return missing
    branch = _one_branch_factor(rates)
    if branch:
        return branch
    products = [[v * _noam(s, d, w) for s, v in zip(steps, vals)] for d, w, steps, vals in rates]
    if all(math.isclose(max(r), min(r), rel_tol=1e-6) for r in products):
        return (
            "Your rates are inversely proportional to the paper's (yours times the paper's is "
            "the same number at every step): a division where the formula multiplies, "
            "lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)."
        )
    _, w, steps, values = rates[0]
    warm = [(s, v) for s, v in zip(steps, values) if s < w]
    decay = [(s, v) for s, v in zip(steps, values) if s > w]
    k_warm, k_decay = _exponent(warm), _exponent(decay)
    parts = []
    if k_warm is not None and not math.isclose(k_warm, 1.0):
        parts.append(
            f"during the warm-up (step < warmup) your rates go like step ** {k_warm:g}; the "
            "paper's rise linearly, like step ** 1 (step * warmup ** -1.5)"
        )
    if k_decay is not None and math.isclose(k_decay, 0.0, abs_tol=1e-9):
        parts.append(
            "after it (step > warmup) your rates stay constant (they go like step ** 0): no "
            "decay. The paper's decay like step ** -0.5 after the peak: that is the "
            "step ** -0.5 branch of min(step ** -0.5, step * warmup ** -1.5)"
        )
    elif k_decay is not None and not math.isclose(k_decay, -0.5):
        parts.append(
            f"after it (step > warmup) yours go like step ** {k_decay:g}; the paper's decay "
            "like step ** -0.5"
        )
    if not parts:
        return _one_side_wrong(rates)
    text = "; ".join(parts)
    text = text[0].upper() + text[1:] + "."
    if k_warm == -1.5 and all(
        math.isclose(v, d**-0.5 * (s * w) ** -1.5, rel_tol=1e-6)
        for d, w, steps, vals in rates
        for s, v in zip(steps, vals)
        if s < w
    ):
        text += (
            " Your warm-up values are d_model ** -0.5 * (step * warmup) ** -1.5: the power "
            "-1.5 belongs to warmup alone, step * warmup ** -1.5."
        )
    return text


#: the first of two slips at once, undone by calling the learner's function at another
#: step: (what it is, the step to call it at for the paper's step s)
_STEP_SLIPS = {
    "your values are those of step + 1 (steps already count from 1)": lambda s: s - 1,
    "your values are those of step - 1 (steps already count from 1)": lambda s: s + 1,
}


def _two_slips(noam_lr, cases) -> str:
    """The family 'two slips at once' (issue class 4): a step moved by one AND another
    known slip (a factor, a term left out, max for min), told by undoing the step's slip
    (calling the learner's function at the step it reads) and finding the other one in
    every value of every case; both are said. "" when no such pair explains the rates."""
    for first, step_of in _STEP_SLIPS.items():

        def undone(s, d, w, step_of=step_of):
            return noam_lr(step_of(s), d, w)

        # (step 0, where the contract allows two answers, is left out of what is undone)
        kept = [(d, w, [s for s in steps if step_of(s) >= 1]) for d, w, steps in cases]
        values = [(d, w, steps, _learner_values(undone, d, w, steps)) for d, w, steps in kept]
        if any(v is None for *_, v in values):
            continue
        if all(
            math.isclose(v, _noam(s, d, w), rel_tol=1e-6)
            for d, w, steps, vals in values
            for s, v in zip(steps, vals)
        ):
            continue  # the step's slip alone: said by the mistakes' table
        second = [
            message
            for message, wrong in _NOAM_MISTAKES.items()
            if all(
                math.isclose(v, wrong(s, d, w), rel_tol=1e-6)
                for d, w, steps, vals in values
                for s, v in zip(steps, vals)
            )
        ]
        if not second:
            with contextlib.suppress(Exception):
                second = [m for m in [_explain_noam(undone, kept)] if m]
        if len(second) == 1:
            return (
                f"Two slips at once: {first}, and with that undone (your function called at "
                f"the step it reads) the rest is one more known slip: {second[0]}"
            )
    return ""


def _one_side_wrong(rates) -> str:
    """Rates right on one side of the peak (step <= warmup, or step >= warmup) and wrong
    on the other, in no shape a power of step or a factor explains: the part of the
    schedule that is wrong, with the values, and the paper's law there."""
    rows = [
        (s, v, _noam(s, d, w), w, d) for d, w, steps, vals in rates for s, v in zip(steps, vals)
    ]
    every_wrong = [row for row in rows if not math.isclose(row[1], row[2], rel_tol=1e-6)]
    if not every_wrong:
        return ""
    after = all(s > w for s, _, _, w, _ in every_wrong)
    before = all(s < w for s, _, _, w, _ in every_wrong)
    if after == before:
        return ""
    first = every_wrong[0][3:]  # (warmup, d_model) of the first case that differs
    wrong = [row[:3] for row in every_wrong if row[3:] == first]  # (step, yours, paper's)
    shown = f"with d_model={first[1]}, warmup={first[0]}, " + ", ".join(
        f"step {s}: yours {v:.6g}, the paper's {e:.6g}" for s, v, e in wrong[:4]
    )
    if after:
        trend = ""
        if wrong[0][1] > wrong[0][2] and wrong[-1][1] < wrong[-1][2]:
            trend = " (above the paper's just after the peak, below it later)"
        elif all(v > e for _, v, e in wrong):
            trend = " (above the paper's: yours decay too slowly)"
        elif all(v < e for _, v, e in wrong):
            trend = " (below the paper's: yours decay too fast)"
        return (
            "Your warm-up and the peak are right (every step up to warmup matches the "
            f"paper's), but after the peak your rates differ{trend}: {shown}. So the decay "
            "after the warm-up is not the paper's: past step = warmup the rate must fall "
            "like 1 / sqrt(step), d_model ** -0.5 * step ** -0.5 (the step ** -0.5 branch of "
            "min(step ** -0.5, step * warmup ** -1.5)), with no other curve (cosine, linear, "
            "exponential) and no end or floor."
        )
    return (
        "Your rates from the peak on are right (every step from warmup on matches the "
        f"paper's), but during the warm-up (step < warmup) they differ: {shown}. The warm-up "
        "must rise linearly to the peak: d_model ** -0.5 * step * warmup ** -1.5 (the second "
        "branch of min(step ** -0.5, step * warmup ** -1.5))."
    )


def _constant_rate(rates) -> str:
    """Rates that do not depend on the step: the same value at every step of each case.
    Named as the paper's rate at one step (step 1: every step clamped to 1, as min(step, 1)
    gives where the guard max(step, 1) belongs; warmup: warmup where step belongs) when
    that step fits every case; otherwise the symptom alone."""
    if not all(math.isclose(max(v), min(v), rel_tol=1e-9) for *_, v in rates):
        return ""
    shown = ", ".join(f"{v[0]:.6g} for d_model={d}, warmup={w}" for d, w, _, v in rates)
    head = f"Your rate is the same at every step ({shown}): no warm-up and no decay"

    def at(step_of) -> bool:
        return all(
            math.isclose(v[0], _noam(step_of(w), d, w), rel_tol=1e-6) for d, w, _, v in rates
        )

    if at(lambda w: 1):
        return (
            f"{head}. It is the paper's rate at step 1 on every case: every step is computed "
            "as step 1, as min(step, 1) gives (1 for every step >= 1) where the guard "
            "against step 0 is max(step, 1), which lifts step 0 alone to 1 and leaves the "
            "other steps as they are."
        )
    if at(lambda w: w):
        return (
            f"{head}. It is the paper's peak, its rate at step = warmup, on every case: your "
            "formula uses warmup where step belongs (min(step ** -0.5, step * warmup ** "
            "-1.5) varies with step)."
        )
    return (
        f"{head}: the step never reaches your formula (a constant or another argument in "
        "its place). lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)."
    )


def _one_branch_factor(rates) -> str:
    """Rates right in one branch and a constant factor (a power of d_model and warmup
    that fits every case) times the paper's in the other: the scale put inside one branch
    of an if/else instead of in front of the min."""
    sides = {
        "warm-up (step < warmup)": lambda s, w: s < w,
        "decay (step > warmup)": lambda s, w: s > w,
    }
    factors = {}
    for side, inside in sides.items():
        per_case = []
        for d, w, steps, values in rates:
            ratios = [v / _noam(s, d, w) for s, v in zip(steps, values) if inside(s, w)]
            if not ratios or not math.isclose(max(ratios), min(ratios), rel_tol=1e-6):
                return ""
            per_case.append((d, w, ratios[0]))
        factors[side] = per_case
    right = [
        side for side, cases in factors.items() if all(math.isclose(r, 1.0) for *_, r in cases)
    ]
    if len(right) != 1:
        return ""
    (wrong,) = [side for side in factors if side not in right]
    fits = [
        (a, b)
        for a, b in itertools.product(_HALVES, _HALVES)
        if (a, b) != (0, 0)
        and all(math.isclose(r, d**a * w**b, rel_tol=1e-6) for d, w, r in factors[wrong])
    ]
    if len(fits) != 1:
        return ""
    a, b = fits[0]
    scale = _powers(1.0, -0.5 + a, b)
    return (
        f"Your {right[0].split(' ')[0]} rates are the paper's, but your {wrong} ones are "
        f"{_powers(1.0, a, b)} times the paper's on every case: "
        + ("that branch lacks" if scale == "1" else f"that branch is scaled by {scale}, not")
        + " the factor d_model ** -0.5. The factor d_model ** -0.5 multiplies the min of "
        "both branches (written as an if/else, it belongs in each branch): lr = "
        "d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)."
    )


def _rounded_noam(steps, d_model, warmup) -> dict:
    """The right rates rounded (or cut) to a few decimal places: round(lr, k), or
    int(lr * 10**k) / 10**k, which lose the digits of rates of the order of 1e-4."""
    exact = np.array([_noam(s, d_model, warmup) for s in steps])  # (len(steps),)
    variants = {}
    for places in range(1, 9):
        scale = 10.0**places
        for how, values in (
            (f"rounded to {places} decimal places (round(lr, {places}))", np.round(exact, places)),
            (f"cut to {places} decimal places", np.trunc(exact * scale) / scale),
        ):
            if not values.any() or any(np.array_equal(values, v) for v in variants.values()):
                continue  # all 0.0 (another mistake's symptom), or told by an earlier one
            message = (
                f"Your rates are the right ones {how}: rates of the order of 1e-4 lose most "
                "of their digits, and small ones become 0.0. Return the rate itself; round "
                "only where you print it."
            )
            variants[message] = values
    return variants


def _step_zero_as_another(value: float, d_model: int, warmup: int) -> str:
    """When the rate returned for step 0 is the rate of another whole step k (the formula
    solved for step on each branch): step 0 replaced by k, named (the peak when k is
    warmup); "" otherwise."""
    if not (math.isfinite(value) and value > 0):
        return ""
    scaled = value * d_model**0.5
    for k in (scaled * warmup**1.5, scaled**-2):  # the warm-up branch's step, the decay's
        step = round(k)
        if step > 1 and math.isclose(k, step, rel_tol=1e-6):
            if not math.isclose(_noam(step, d_model, warmup), value, rel_tol=1e-6):
                continue
            peak = (
                ", the peak of the schedule (step == warmup): step 0 is replaced by warmup "
                "(such as `step = step or warmup`)"
                if step == warmup
                else f": step 0 is replaced by {step}"
            )
            return (
                f" Yours is the rate of step {step}{peak}. Replace step 0 by 1 (max(step, 1)) "
                "or return 0.0 for it."
            )
    return ""


def check_noam_lr(noam_lr, *, hidden: bool = False) -> None:
    """noam_lr(step, d_model, warmup) -> float, the schedule of section 5.3."""
    with Checker("noam_lr", hidden=hidden) as c:
        c.require_callable(noam_lr)
        if hidden:
            rng = numpy_rng(3001)
            cases = [
                # Python ints, as the signature says (numpy's refuse ** -1)
                (
                    int(d),
                    int(w),
                    sorted({1, int(w), int(w) + 1, *map(int, rng.integers(1, 50 * w, 6))}),
                )
                for d, w in ((256, 1000), (96, 50), (1024, 8000), (20, 3))
            ]
        else:
            cases = [
                (512, 4000, [1, 2, 100, 3999, 4000, 4001, 10_000, 100_000]),
                (64, 200, [1, 50, 199, 200, 201, 1_000, 5_000]),
            ]
        for d_model, warmup, steps in cases:
            got = []
            for step in steps:
                value = c.call(noam_lr, step, d_model, warmup)
                got.append(
                    plain_float(
                        c,
                        value,
                        f"noam_lr({step}, {d_model}, {warmup})",
                        "Return a Python float (float(x) or x.item()): the training loop sets "
                        "the optimizer's learning rate to it.",
                    )
                )
            what = f"noam_lr(step, d_model={d_model}, warmup={warmup}) for step in {steps}"
            c.expect_close(
                np.array(got),
                np.array([_noam(s, d_model, warmup) for s in steps]),
                what,
                rtol=1e-6,
                atol=1e-12,
                mistakes={
                    **{
                        message: np.array([wrong(s, d_model, warmup) for s in steps])
                        for message, wrong in _NOAM_MISTAKES.items()
                    },
                    **_rounded_noam(steps, d_model, warmup),
                },
                explain=lambda: _explain_noam(noam_lr, cases) or _two_slips(noam_lr, cases),
                narrow=lambda found, d_model=d_model, warmup=warmup: _narrow_noam(
                    noam_lr, found, d_model, warmup
                ),
                hint="lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5).",
            )
            # Step 0: before the first step. 0.0 (the formula's limit) or lr(1) are accepted.
            what = f"noam_lr(0, {d_model}, {warmup})"
            value = c.call(
                noam_lr,
                0,
                d_model,
                warmup,
                call_repr=what,
                hints={
                    "ZeroDivisionError": "At step 0, 0 ** -0.5 divides by zero. Steps count "
                    "from 1, but the function should not crash before the first step: return "
                    "0.0 there (or the value of step 1, using max(step, 1))."
                },
            )
            value = plain_float(c, value, what, "Return a Python float.")
            first = _noam(1, d_model, warmup)
            if not (
                value == 0.0 or (math.isfinite(value) and math.isclose(value, first, rel_tol=1e-6))
            ):
                c.fail(
                    f"{what} returned {short(value)}. Before the first step, return 0.0 or the value "
                    f"of step 1 ({first:.6g}); the formula itself gives 0 ** -0.5 = inf there."
                    + _step_zero_as_another(value, d_model, warmup)
                )
            c.ok()
