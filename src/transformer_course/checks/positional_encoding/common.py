"""Lesson 03's shared check machinery: the float32-formula tolerance, the numpy-array
expectation of the two table exercises, and what a measured frequency exponent says about
the code. Its names keep their underscore: they are private to the package (its modules
import them; tests do not).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from transformer_course.checking import Checker, tolerance

# float32 arithmetic (torch's default, or the exp/log form of 10000^(2i/d_model))
# loses about 1e-7 of the angle per unit of position: at position 255 that is a
# few 1e-5 after sin/cos. Every real mistake is off by far more than 1e-4.
_FLOAT32_FORMULA = {"rtol": 1e-5, "atol": 1e-4}


def _tolerance(*dtypes) -> dict[str, float]:
    """The tolerance of the least precise dtype, but never tighter than a float32 formula."""
    fit = tolerance(*dtypes)
    return {key: max(fit[key], _FLOAT32_FORMULA[key]) for key in fit}


def _expect_array(c: Checker, got, what: str, shape: str) -> None:
    """A numpy array, with a word for the learner who returned a tensor."""
    hint = f"Return a numpy array of shape {shape}."
    if isinstance(got, torch.Tensor):
        hint = (
            "You returned a torch.Tensor. The exercises of this lesson work in numpy (the "
            "module of exercise 3 turns the table into a tensor itself): return a numpy "
            "array, e.g. convert a tensor with `.numpy()`."
        )
    c.expect_type(got, np.ndarray, what, hint)


def _exponent_cause(c: float, d_model: int) -> tuple[str, str] | None:
    """What a measured exponent c·i/d_model (i the pair index) says about the code: the
    cause's key and its sentence, or None."""
    if abs(c - 4.0) < 1e-3:
        return "4i", (
            " 4i, not 2i: did you multiply by 2 indices that already are even (2i)? "
            "np.arange(0, d_model, 2) gives 2i itself."
        )
    if abs(c - 1.0) < 1e-3:
        return "i", " i, not 2i: the exponent needs twice the pair index."
    # the exp(log) form with another logarithm: exp(-2i·log_b(10000)/d_model) is
    # 10000^(-2i/(d_model·ln b)), so the measured c is 2 / ln b
    for name, base in (("np.log10 (math.log10)", 10.0), ("np.log2 (math.log2)", 2.0)):
        if abs(c - 2.0 / math.log(base)) < 1e-3:
            return f"log{base:g}", (
                f" {c:.4g} = 2 / ln {base:g}: the exp(log) form written with {name} where the "
                "natural log belongs. exp(-2i·log(10000)/d_model) equals 10000^(-2i/d_model) "
                "only with the natural log (np.log, math.log); or write the power directly, "
                "pos / np.power(10000.0, 2i / d_model)."
            )
    log_ratio = _log_ratio_exponent(d_model)
    if log_ratio > 0 and abs(c - log_ratio) < 1e-3 * log_ratio:
        return "log ratio", (
            f" {c:.4g} = 2·d_model·ln(10000 / d_model) / ln 10000 at d_model = {d_model}: the "
            "exp(log) form with the division inside the logarithm, np.log(10000.0 / d_model) "
            "where np.log(10000.0) / d_model belongs (a parenthesis misplaced), so pair i "
            "turns at (d_model / 10000)^(2i) per position instead of 10000^(-2i / d_model). "
            "Write exp(-2i·(np.log(10000.0) / d_model)), or the power directly, "
            "pos / np.power(10000.0, 2i / d_model)."
        )
    if abs(c - 2.0 * d_model**2) < 1e-3 * d_model**2:
        return "times d_model", (
            f" That is 2i·d_model = 2i·{d_model}: the exponent multiplies by d_model where it "
            "divides, 2i / d_model."
        )
    return None


def _log_ratio_exponent(d_model: int) -> float:
    """The c of exp(-2i·ln(10000 / d_model)) = 10000^(-c·i/d_model): the logarithm taken
    of the ratio 10000 / d_model instead of divided by d_model."""
    return 2.0 * d_model * math.log(10000.0 / d_model) / math.log(10000.0)


def _exponent_why(c: float, d_model: int) -> str:
    """What a measured exponent c·i/d_model (i the pair index) says about the code."""
    cause = _exponent_cause(c, d_model)
    return cause[1] if cause else ""


def _cause_exponent(key: str, d_model: int) -> float:
    """The exponent c (of c·i/d_model) that the cause ``key`` of :func:`_exponent_cause`
    gives for ``d_model``."""
    return {
        "4i": 4.0,
        "i": 1.0,
        "log10": 2.0 / math.log(10.0),
        "log2": 2.0 / math.log(2.0),
        "times d_model": 2.0 * d_model**2,
        "log ratio": _log_ratio_exponent(d_model),
    }[key]


def _exponent_why_everywhere(c: float, d_model: int, others) -> str:
    """:func:`_exponent_why` of c, said only when the cause predicts the learner's results
    of the check's other calls too: ``others`` yields (agrees, d_model) pairs, ``agrees``
    a function of an exponent c' that tells whether the learner's result of that call is
    the one for c'. One d_model can fit a cause by coincidence (a floor division in the
    exp(log) form gives log10's 0.8686 at d_model = 4 and frequency 1 everywhere at
    d_model = 8). The measured exponent is said anyway, by the caller."""
    cause = _exponent_cause(c, d_model)
    if cause is None:
        return ""
    for agrees, other_d in others:
        if not agrees(_cause_exponent(cause[0], other_d)):
            return ""
    return cause[1]
