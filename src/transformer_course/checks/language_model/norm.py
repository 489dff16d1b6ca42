# ruff: noqa: B023  (each lambda and closure is called in the loop iteration that made it)
"""Checks for lesson 11's RMSNorm, against the float64 oracle ``rms_norm_f``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.feature_subsets import feature_subset
from transformer_course.checking.graph import call_gradients
from transformer_course.checking.hints import dropped_axis_hint
from transformer_course.checking.inputs import randn
from transformer_course.checking.layers import (
    build,
    expect_tensor_result,
    mistake_pairs,
    mistake_values,
)
from transformer_course.checking.oracles import rms_norm_f
from transformer_course.checking.relations import contracted_by_vector
from transformer_course.reference import language_model as ref

from .common import _built, expect_layers_in_init, expect_parameters_not_buffers


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
_STD = (
    "You divided x by its standard deviation (x.var() or x.std(): the mean is subtracted "
    "inside the statistic{unbiased}) instead of its root mean square. RMSNorm's statistic is "
    "the mean of the squares of x itself: x / sqrt(x.pow(2).mean(-1, keepdim=True) + eps)."
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
_EPS_RECIPROCAL = (
    "You added eps to the reciprocal of the root, x * (torch.rsqrt(mean(x**2)) + eps): it "
    "belongs inside the root, x * torch.rsqrt(mean(x**2) + eps)."
)
_GAIN_DIVIDED = (
    "You divided by the learned gain self.weight instead of multiplying by it: "
    "x / sqrt(mean(x**2) + eps) * self.weight."
)
_NO_EPS = (
    "You left out eps: divide by sqrt(mean(x**2) + eps), with eps inside the root. (The "
    "unit-vector form, F.normalize(x, dim=-1) * sqrt(d_model), has no eps under the root "
    "either: its own eps only floors the norm.)"
)
_AXIS = (
    "You normalised over the wrong axis: your mean of the squares runs {over}. Each token "
    "is normalised on its own, over its d_model features: the mean of the squares over the "
    "last axis alone (dim=-1, keepdim=True)."
)
#: {the oracle's ``over``: which axes the learner's mean of the squares runs over}
_AXIS_OVER = {
    "sequence": (
        "over the positions (dim=-2, the sequence axis), one number per feature, instead "
        "of over each token's features"
    ),
    "everything": (
        "over every axis at once (a .mean() without dim, or dim=None): one number for the "
        "whole tensor, every token scaled by the mean square of all of them"
    ),
    "sequence_and_features": (
        "over the last two axes, dim=(-2, -1): one number per sequence, so every token is "
        "scaled by the whole sequence's mean square (right only for a one-token sequence)"
    ),
    # round 34: dim=0 ("largest difference" first before): the batch of a 3-D input (of a
    # 2-D one, the positions, where "sequence" is named with it)
    "first": (
        "over the first axis (dim=0, the batch of a (batch, len, d_model) input), one "
        "number per position and feature across the sequences of the batch, instead of "
        "over each token's features"
    ),
}
_NO_GAIN = "Your result lacks the learned gain: multiply by self.weight."
_GAIN_ADDED = (
    "You {verb} the learned gain instead of multiplying by it ({sign} self.weight, as a bias "
    "would be): RMSNorm has no bias, and its gain scales each feature, x / sqrt(mean(x**2) "
    "+ eps) * self.weight."
)
_UNIT_OFFSET = (
    "You multiplied by 1 + self.weight (Gemma's convention, where the gain is stored as an "
    "offset from one and initialised to zeros): here the gain is self.weight itself, "
    "initialised to ones; multiply by it."
)
#: b12b: the value that fits is said ({wrong}), the one of the learner's default
_DEFAULT_EPS = (
    "Your default eps is {wrong:g}, not 1e-5 (RMSNorm(d_model) with no eps given normalises "
    "like eps={wrong:g}): make eps=1e-5 the default of the eps parameter (the contract's; "
    "nn.RMSNorm's own default depends on the dtype)."
)
_EPS_IGNORED = "Your RMSNorm ignores its eps argument: store it (self.eps = eps) and use it."
_GAIN_FIRST = (
    "You multiplied x by the gain before taking the root mean square: the statistic is then "
    "that of x * weight, so the gain is normalised away with x's scale (right only while "
    "every gain is 1). Normalise x first, then multiply: x / sqrt(mean(x**2) + eps) * "
    "self.weight."
)
#: the wrong defaults a learner's eps may have (1e-6: Llama's and many kernels')
_WRONG_EPS = (1e-6, 1e-8, torch.finfo(torch.float32).eps)


def _norm_mistakes(case_eps: float | None) -> dict[str, dict[str, Any]]:
    eps = 1e-5 if case_eps is None else case_eps
    table: dict[str, dict[str, Any]] = {
        _MEAN: {"statistic": "mean"},
        _SUBTRACT: {"statistic": "variance"},
        _SUM: {"statistic": "sum_square"},
        _STD.format(unbiased=""): {"statistic": "std"},
        _STD.format(unbiased=", and divided by d_model - 1, torch's default"): {
            "statistic": "std_unbiased"
        },
        _SUBTRACT.replace("first:", "first and took the unbiased variance (x.var()):", 1): {
            "statistic": "variance_unbiased"
        },
        _EPS_OUT: {"eps_at": "outside"},
        _NO_EPS: {"eps_at": "none"},
        _EPS_SUBTRACTED: {"eps_at": "subtracted"},
        _EPS_RECIPROCAL: {"eps_at": "reciprocal"},
        _GAIN_DIVIDED: {"divide_gain": True},
        **{_AXIS.format(over=text): {"over": over} for over, text in _AXIS_OVER.items()},
        _NO_GAIN: {"gain": False},
        _CENTRED: {"centre": True},
        _INVERTED: {"invert": True},
        _UNIT_OFFSET: {"unit_offset": True},
        _NO_ROOT: {"root": False},
        _GAIN_FIRST: {"gain_first": True},
        _GAIN_ADDED.format(verb="added", sign="+"): {"gain_op": "add"},
        _GAIN_ADDED.format(verb="subtracted", sign="-"): {"gain_op": "subtract"},
    }
    if case_eps is None:
        for wrong in _WRONG_EPS:
            table[_DEFAULT_EPS.format(wrong=wrong)] = {"eps": wrong}
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


def _wrong_statistic(got: torch.Tensor, x: torch.Tensor, state, eps: float) -> str:
    """When the result is x * weight divided by one number per token (RMSNorm's form) but
    that number is not sqrt(mean(x ** 2) + eps): which other average it is, or else the
    first token's number against the root mean square (blind10h-rms-mean-absolute-value:
    the mean |x| got "differs from the reference")."""
    got, x = got.detach().double(), x.double()
    scaled = x * state["weight"].double()
    if got.shape != scaled.shape or not bool(torch.isfinite(got).all()):
        return ""
    if bool((got.abs() < 1e-6).any()) or bool((scaled.abs() < 1e-6).any()):
        return ""
    ratio = scaled / got  # (..., d_model): one number per token if the form is RMSNorm's
    per_token = ratio.mean(-1, keepdim=True)
    if not torch.allclose(ratio, per_token.expand_as(ratio), rtol=1e-3, atol=1e-6):
        return ""
    rms = (x.pow(2).mean(-1, keepdim=True) + eps).sqrt()
    mean_abs = x.abs().mean(-1, keepdim=True)
    l2 = x.pow(2).sum(-1, keepdim=True)
    std = x.var(-1, unbiased=False, keepdim=True)
    candidates = [  # (what, the number per token), with eps inside the root or without
        *(
            (
                "the mean absolute value, mean(|x|) (an L1 scale: the features are averaged "
                "before they are squared)",
                value,
            )
            for value in (mean_abs, (mean_abs.pow(2) + eps).sqrt())
        ),
        ("the largest |x| of the token", x.abs().amax(-1, keepdim=True)),
        # blind23c-rms-square-of-the-mean: the mean and the square in the other order,
        # x.mean(-1).pow(2) (or the sum squared over d_model ** 2): |mean(x)| under the
        # root, about 0 for centred features, so eps decides the number
        *(
            (
                "the square of the mean, mean(x) ** 2, under the root, where the mean of "
                "the squares belongs: the features are averaged before they are squared, so "
                "positive and negative features cancel (x.mean(dim=-1).pow(2) is not "
                "x.pow(2).mean(dim=-1))",
                value,
            )
            for value in (
                (x.mean(-1, keepdim=True).pow(2) + eps).sqrt(),
                x.mean(-1, keepdim=True).abs(),
            )
        ),
        *(
            ("the standard deviation (the mean subtracted)", value)
            for value in (std.sqrt(), (std + eps).sqrt())
        ),
        *(
            ("the square root of the sum of squares (the L2 norm, not divided by d_model)", v)
            for v in (l2.sqrt(), (l2 + eps).sqrt())
        ),
        # b16b: the L2 norm divided by d_model, where sqrt(d_model) belongs (the mean of
        # the squares divided by d_model once more gives the same)
        *(
            (
                "the sum of the squares divided by d_model ** 2, sqrt(d_model) times too "
                "small (the L2 norm x.norm(dim=-1) divided by d_model where sqrt(d_model) "
                "belongs, or the mean of the squares divided by d_model again), so your "
                "output is sqrt(d_model) times too large",
                value,
            )
            for value in (
                (l2 / x.shape[-1] ** 2 + eps).sqrt(),
                l2.sqrt() / x.shape[-1],
                (l2 + eps).sqrt() / x.shape[-1],
                l2.sqrt() / x.shape[-1] + eps,
            )
        ),
        # blind17b-rms-mean-square-over-d-minus-one (told only the first token's number):
        # Bessel's correction, as an unbiased variance divides
        *(
            (
                f"the sum of the squares divided by d_model - 1 = {x.shape[-1] - 1} (Bessel's "
                "correction, as an unbiased variance divides), not by d_model = "
                f"{x.shape[-1]}: the mean of the squares is sum / d_model",
                (l2 / (x.shape[-1] - 1) + e).sqrt(),
            )
            for e in (eps, 0.0)
            if x.shape[-1] > 2
        ),
        # eps as a lower bound of the root (of the mean square: _EPS_FLOOR), said only
        # where a token's root is below eps: elsewhere the floor changes nothing, and eps
        # left out (next) gives the same numbers (round 34: eps added to x itself was told
        # "floored at eps")
        *(
            (
                "the root mean square floored at eps, max(sqrt(mean(x ** 2)), eps), where "
                "eps is added under the root",
                floored,
            )
            for floored in (x.pow(2).mean(-1, keepdim=True).sqrt().clamp(min=eps),)
            if not torch.allclose(floored, x.pow(2).mean(-1, keepdim=True).sqrt(), rtol=1e-3)
        ),
        (
            "the root mean square without eps, sqrt(mean(x ** 2)): eps never reaches the "
            "mean of the squares",
            x.pow(2).mean(-1, keepdim=True).sqrt(),
        ),
        (
            "the root mean square of x + eps, sqrt(mean((x + eps) ** 2)): eps is added to "
            "each feature before squaring, not to the mean of the squares",
            (x + eps).pow(2).mean(-1, keepdim=True).sqrt(),
        ),
        # b13b: the sum of the squares divided by another axis's size than d_model
        # (len(x), x.shape[0]: the batch), named by the axis when no other has its size
        *(
            (
                f"the sum of the squares divided by x.shape[{axis}] = {x.shape[axis]}"
                + (" (len(x), the size of x's first axis)" if axis == 0 else "")
                + f", not by d_model = {x.shape[-1]}",
                (l2 / x.shape[axis] + e).sqrt(),
            )
            for axis in range(x.dim() - 1)
            if x.shape[axis] != x.shape[-1] and list(x.shape).count(x.shape[axis]) == 1
            for e in (eps, 0.0)
        ),
    ]
    found = list(
        dict.fromkeys(
            name
            for name, value in candidates
            if torch.allclose(per_token, value, rtol=1e-3, atol=1e-6)
        )
    )
    if torch.allclose(per_token, rms, rtol=1e-3, atol=1e-6):
        return ""
    if not found and (roots := _roots_taken(per_token, x.pow(2).mean(-1, keepdim=True), eps)):
        return roots
    if not found and (composed := _statistic_under_roots(per_token, x, eps)):
        return composed
    if not found and (
        scaled_rms := _rms_times_power(per_token, rms, x.shape[-1])
        or _rms_times_power(per_token, x.pow(2).mean(-1, keepdim=True).sqrt(), x.shape[-1], True)
    ):
        return scaled_rms
    # round 37 (blind29c-rms-partial-first-sixteenth): the root mean square of some of the
    # features (pRMSNorm's first p %, a slice off by one), not of all d_model
    if not found and (
        part := feature_subset(
            per_token, x, lambda f: (f.pow(2).mean(-1, keepdim=True) + eps).sqrt()
        )
        or feature_subset(per_token, x, lambda f: f.pow(2).mean(-1, keepdim=True).sqrt())
    ):
        return (
            "Your result is x * weight divided by one number per token, as RMSNorm's is, but "
            f"that number is the root mean square of {part} only, not of all d_model = "
            f"{x.shape[-1]} features: the mean of the squares is taken over part of the "
            "vector (a slice of x, or the partial RMSNorm's first p % of the features). "
            "Average the squares of every feature: x.pow(2).mean(dim=-1, keepdim=True), then "
            "add eps and take the root."
        )
    first = tuple(0 for _ in per_token.shape[:-1])
    told = (
        f"it is {found[0]}"
        if len(found) == 1
        # several fit these tokens alike: each is said, none as the cause
        else f"it is {'; or '.join(found)} (these tokens cannot tell which)"
        if 1 < len(found) <= 3
        else f"for token {first} yours is {float(per_token[first]):.4g}, the root mean "
        f"square {float(rms[first]):.4g}"
    )
    return (
        "Your result is x * weight divided by one number per token, as RMSNorm's is, but that "
        f"number is not the root mean square sqrt(mean(x ** 2) + eps): {told}. Square each "
        "feature, average the squares over the last axis, add eps, then take the root: "
        "x.pow(2).mean(dim=-1, keepdim=True)."
    )


_ROOT_NAMES = {2: "a fourth root", 3: "an eighth root"}

#: the number of square roots taken -> how that reads
_ROOTS_TAKEN = {
    0: "with no square root taken",
    1: "under one square root",
    2: "under two square roots (a fourth root: the root of the root)",
    3: "under three square roots (an eighth root)",
}


def _statistic_under_roots(per_token: torch.Tensor, x: torch.Tensor, eps: float) -> str:
    """The number per token as a per-token statistic of the squares (the mean of the
    squares, or a variance: biased or unbiased, the mean subtracted) under 0 to 3 square
    roots, eps added before any of them or after them all; each part that differs from
    RMSNorm's one root of the mean of the squares is named (blind28c-rmsnorm-root-of-std:
    sqrt(x.std() + eps), the unbiased variance under two roots, got the first token's
    number alone). "" when no combination, or more than one statistic, fits."""
    d_model = x.shape[-1]
    statistics = {  # what -> (..., 1) per token
        "the mean of the squares, mean(x ** 2)": x.pow(2).mean(-1, keepdim=True),
        "the variance, x.var(unbiased=False) (the token's mean subtracted)": x.var(
            -1, unbiased=False, keepdim=True
        ),
        f"the unbiased variance, x.var() (the token's mean subtracted, divided by d_model - 1 "
        f"= {d_model - 1})": x.var(-1, unbiased=True, keepdim=True),
        # round 34: sqrt(mean(|x|)), the absolute values where the squares belong
        "the mean absolute value, mean(|x|)": x.abs().mean(-1, keepdim=True),
    }
    fits: dict[str, int] = {}
    for what, statistic in statistics.items():
        for roots in _ROOTS_TAKEN:
            for added_before in (*range(roots + 1), None):  # None: no constant at all
                value = statistic
                for step in range(roots):
                    value = (value + eps if step == added_before else value).sqrt()
                value = value + eps if added_before == roots else value
                if torch.allclose(per_token, value, rtol=1e-3, atol=1e-7):
                    fits.setdefault(what, roots)
    if len(fits) != 1:
        return ""
    ((what, roots),) = fits.items()
    if what.startswith("the mean of the squares") and roots == 1:
        return ""  # RMSNorm's own (eps placed elsewhere is told by other checks)
    wrong = []
    if what.startswith("the mean absolute value"):
        wrong.append(
            "the statistic averages the absolute values, x.abs().mean(-1), where RMSNorm "
            "averages the squares, x.pow(2).mean(-1)"
        )
    elif not what.startswith("the mean of the squares"):
        wrong.append(
            "the statistic is a variance, which subtracts each token's mean (x.std() is "
            "its square root): RMSNorm's mean of the squares is not centred"
        )
    if roots != 1:
        wrong.append(
            f"the square root is taken {roots} times, not once"
            + (" (a root of x.std(), itself a root already)" if roots == 2 and wrong else "")
        )
    return (
        "Your result is x * weight divided by one number per token, as RMSNorm's is, but that "
        f"number is {what} {_ROOTS_TAKEN[roots]}: {'; and '.join(wrong)}. RMSNorm divides by "
        "one square root of the mean of the squares: x * torch.rsqrt(x.pow(2).mean(dim=-1, "
        "keepdim=True) + self.eps)."
    )


def _roots_taken(per_token: torch.Tensor, mean_square: torch.Tensor, eps: float) -> str:
    """The number per token as the mean of the squares under two or three square roots
    (blind21c-rms-root-of-root-mean-square: sqrt(sqrt(mean(x ** 2)) + eps), the PyTorch
    page's x / sqrt(RMS[x] + eps) read literally, got "for token (0, 0) yours is ..." and
    advice about eps). The small constant may be added before any of the roots or after
    them all: every placement is tried, and only the number of roots is named, since it is
    what sets the scale (the placement matters only where the mean square is tiny)."""
    for roots in _ROOT_NAMES:
        for added_before in (*range(roots + 1), None):  # None: no constant at all
            value = mean_square  # (..., 1)
            for step in range(roots):
                value = (value + eps if step == added_before else value).sqrt()
            value = value + eps if added_before == roots else value
            if torch.allclose(per_token, value, rtol=1e-3, atol=1e-7):
                return (
                    "Your result is x * weight divided by one number per token, as RMSNorm's "
                    f"is, but that number is the mean of the squares under {roots} square "
                    f"roots, {_ROOT_NAMES[roots]} of it, not its square root: the square "
                    f"root is taken {roots} times (a root of the root mean square, as the "
                    "formula x / sqrt(RMS[x] + eps) reads if RMS[x] is taken for the root "
                    "mean square already). Take the root once: the mean of the squares goes "
                    "straight under one square root, torch.rsqrt(x.pow(2).mean(dim=-1, "
                    "keepdim=True) + self.eps)."
                )
    return ""


#: {power of d_model: how the root mean square picks up that factor}
_RMS_POWERS = {
    1.0: (
        "x / ||x|| (F.normalize, whose root mean square is 1 / sqrt(d_model)) multiplied by "
        "d_model ** -0.5 where d_model ** 0.5 belongs (the scale inverted), or divided by "
        "sqrt(d_model) where it multiplies"
    ),
    -1.0: (
        "x / ||x|| (F.normalize) multiplied by d_model ** 1.5 or d_model where d_model ** 0.5 "
        "belongs, or the root mean square divided by d_model once more"
    ),
    2.0: "the root mean square multiplied by d_model ** 2 somewhere, where it stands alone",
}


def _rms_times_power(
    per_token: torch.Tensor, rms: torch.Tensor, d_model: int, without_eps: bool = False
) -> str:
    """The number per token as the root mean square times one power of d_model on every
    token (blind20c-rms-unit-vector-scale-inverted: F.normalize(x) * d_model ** -0.5, d_model
    times the root mean square, got the first token's number alone); "" when the factor
    varies or is no such power (d_model ** 0.5 is the L2 norm, told by its own candidate).
    ``without_eps``: ``rms`` is sqrt(mean(x ** 2)), eps left out (as F.normalize does)."""
    factor = per_token / rms  # (..., 1)
    if d_model < 2 or not torch.allclose(factor, factor.mean().expand_as(factor), rtol=1e-3):
        return ""
    value = float(factor.mean())
    power = next((p for p in _RMS_POWERS if abs(value / d_model**p - 1) < 1e-3), None)
    if power is None:
        return ""
    size = "small" if value > 1 else "large"
    times = f"d_model ** {abs(power):g}" if abs(power) != 1 else "d_model"
    return (
        "Your result is x * weight divided by one number per token, as RMSNorm's is, but that "
        f"number is {value:.4g} = d_model ** {power:g} times the root mean square sqrt(mean(x "
        f"** 2){'' if without_eps else ' + eps'}) on every token, so every output is {times} "
        f"times too {size} (d_model = {d_model}).{' Your root has no eps either.' if without_eps else ''} "
        f"The likely cause: {_RMS_POWERS[power]}. Divide by the root mean square "
        "itself: x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight."
    )


def _fixed_eps(got: torch.Tensor, x: torch.Tensor, state, eps: float) -> float | None:
    """The wrong eps among :data:`_WRONG_EPS` that ``got`` was computed with, if it
    matches one and not ``eps``."""
    got = got.detach().double()

    def close(e):
        return torch.allclose(got, rms_norm_f(x, state, e), rtol=1e-4, atol=1e-6)

    if close(eps):
        return None
    return next((wrong for wrong in _WRONG_EPS if close(wrong)), None)


def _eps_ignored(c: Checker, cls, case: _NormCase, x, state, got, built: str) -> None:
    """With the default eps the result used another: a wrong default or an eps argument
    never used look alike. Build it again with eps=1e-5 given: if that one computes with
    the same wrong eps, the argument is ignored (blind8b-rms-eps-hardcoded was told its
    default was wrong); otherwise the default table's message stands."""
    wrong = _fixed_eps(got, x, state, 1e-5)
    if wrong is None:
        return
    d_model = case.shape[-1]
    again, built_again, _ = build(
        c,
        cls,
        d_model,
        1e-5,
        name="RMSNorm",
        reference=ref.RMSNorm(d_model),
        seed=case.seed,
        mode="eval",
    )
    got_again = c.call(again, x, call_repr=f"{built_again}(x {tuple(x.shape)})")
    if isinstance(got_again, torch.Tensor) and got_again.shape == got.shape:
        if _fixed_eps(got_again, x, state, 1e-5) == wrong:
            c.fail(
                f"{built}(x {tuple(x.shape)}) and {built_again}(x {tuple(x.shape)}) both "
                f"normalise with eps={wrong:g}, although the second was given eps=1e-5: "
                "your RMSNorm ignores its eps argument (a fixed value in its place). Store "
                "the argument, self.eps = eps, and use self.eps in forward."
            )


def _starts_at_ones(c: Checker, cls, d_model: int) -> None:
    """A fresh RMSNorm's gain is ones (the value checks load their own weights, so a gain
    initialised otherwise passed them: blind10b-rms-gain-zeros)."""
    built = f"RMSNorm({d_model})"
    module = c.call(cls, d_model, call_repr=built)
    weight = getattr(module, "weight", None)
    if not isinstance(weight, torch.Tensor) or tuple(weight.shape) != (d_model,):
        return  # the state-dict checks say what is wrong
    weight = weight.detach().double()
    if bool((weight == 1).all()):
        c.ok()
        return
    if bool((weight == 0).all()):
        c.fail(
            f"{built}.weight starts at zeros, so a fresh RMSNorm returns only zeros (and a "
            "model built from it outputs nothing until the gains have grown). Initialise the "
            "gain to ones, nn.Parameter(torch.ones(d_model)): zeros is the start of Gemma's "
            "1 + weight convention, and here the gain multiplies directly."
        )
    shown = ", ".join(f"{v:.3g}" for v in weight[:4].tolist())
    c.fail(
        f"{built}.weight starts at [{shown}{', ...' if d_model > 4 else ''}], not ones: "
        "initialise the gain to ones, nn.Parameter(torch.ones(d_model)), so that a fresh "
        "RMSNorm only normalises."
    )


_GRADIENT_CASE = {False: _NormCase(7, (2, 3, 8), None), True: _NormCase(107, (3, 6), 0.01)}
_GRADIENT_CUT = (
    "{what} does not require grad: your forward takes its result out of autograd (a "
    ".detach(), .data, torch.no_grad() or a round trip through NumPy), so training could "
    "not update anything before it. Compute with tensor operations on x and self.weight "
    "as they are."
)
_STATISTIC_DETACHED = (
    "The forward values are right, but the gradient is the one of x * weight / rms with the "
    "root mean square held constant: no gradient flows through the statistic (the mean "
    "square computed from x.detach() or x.data, under torch.no_grad(), or through NumPy or "
    ".item()). Training needs the gradient through the root mean square too: compute it "
    "from x itself, x.pow(2).mean(dim=-1, keepdim=True), without detaching anything."
)
_NUMERATOR_DETACHED = (
    "The forward values are right, but the gradient flows only through the root mean "
    "square: the x that is divided (the numerator) is detached (x.detach() or x.data). "
    "Divide x itself: x / sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * self.weight."
)


def _expect_gradients(c: Checker, cls, case: _NormCase) -> None:
    """The gradients of a module whose forward values are right (blind13b: the mean square
    computed from x.detach() passed, its gradient that of a constant root mean square):
    with respect to x and to the gain, against the float64 oracle's, for the sum of the
    output times a seeded upstream gradient."""
    d_model = case.shape[-1]
    args = (d_model,) if case.eps is None else (d_model, case.eps)
    eps = 1e-5 if case.eps is None else case.eps
    module, built, state = build(
        c, cls, *args, name="RMSNorm", reference=ref.RMSNorm(d_model), seed=case.seed, mode="eval"
    )
    x = randn(case.shape, case.seed).requires_grad_(True)  # (..., d_model), a leaf
    upstream = randn(case.shape, case.seed + 1)  # dLoss/dout, (..., d_model)
    what = f"{built}(x {tuple(x.shape)})"
    out = c.call(module, x, call_repr=what)
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != tuple(x.shape):
        return  # the value checks said what is wrong
    if not out.requires_grad:
        c.fail(_GRADIENT_CUT.format(what=what))
    parameters = c.call(
        module.state_dict, keep_vars=True, call_repr=f"{built}.state_dict(keep_vars=True)"
    )
    weight = parameters.get("weight")
    loss = f"({what} * upstream).sum()"
    # d loss / d x and / d each parameter, where the call ran (the grader: its sandbox)
    found = c.call(call_gradients, module, (x,), upstream, "all", call_repr=f"{loss}.backward()")
    got_grad_x = found["arguments"][0]
    got_grad_weight = found["parameters"].get("weight")
    # the float64 oracle's gradients, and those of the statistic held constant
    x64 = x.detach().double().requires_grad_(True)
    weight64 = state["weight"].double().requires_grad_(True)
    expected = rms_norm_f(x64, {"weight": weight64}, eps)
    grad_x, grad_weight = torch.autograd.grad((expected * upstream.double()).sum(), (x64, weight64))
    constant_rms = (
        upstream.double()
        * weight64.detach()
        * torch.rsqrt(x64.detach().pow(2).mean(-1, keepdim=True) + eps)
    )  # (..., d_model): the gradient through the numerator alone
    if got_grad_x is None:
        c.fail(
            f"{loss}.backward() left x without a gradient although the result requires grad: "
            "in your forward, x is cut from autograd before it is used (x.detach(), x.data, "
            "or a copy made with torch.tensor(x)), so the layers before the norm would never "
            "learn. Compute with x itself."
        )
    c.expect_close(
        got_grad_x,
        grad_x,
        f"The gradient of {loss} with respect to x",
        **tolerance(torch.float32),
        mistakes={_STATISTIC_DETACHED: constant_rms, _NUMERATOR_DETACHED: grad_x - constant_rms},
    )
    if not isinstance(weight, torch.Tensor):
        return  # the state-dict checks said what is wrong
    c.expect_true(
        got_grad_weight is not None,
        f"{loss}.backward() left self.weight without a gradient: the gain must be a "
        "parameter used as it is in forward (not self.weight.data or .detach(), and with "
        "requires_grad left on), or training never changes it.",
    )
    c.expect_close(
        got_grad_weight,
        grad_weight,
        f"The gradient of {loss} with respect to self.weight",
        **tolerance(torch.float32),
    )


#: b15b: self.eps = eps, (a trailing comma) raised PyTorch's TypeError with no course hint
_TUPLE_OPERAND = (
    lambda exc: isinstance(exc, TypeError) and "'tuple'" in str(exc) and "operand" in str(exc),
    "A tuple met a tensor in arithmetic: a number stored with a trailing comma, self.eps = "
    "eps, (a tuple of one number), or an (eps,) default. Store the number itself, "
    "self.eps = eps, and add it inside the square root: torch.sqrt(mean_square + self.eps).",
)


#: PyTorch's own norms, by class name (nn.RMSNorm exists from torch 2.4 on)
_TORCH_NORMS = {
    "RMSNorm": "nn.RMSNorm computes it for you",
    "LayerNorm": "nn.LayerNorm also subtracts the mean, which RMSNorm does not",
}


def _wraps_torch_norm(c: Checker, cls, args: tuple) -> None:
    """Before the state-dict keys are compared: a module that holds PyTorch's nn.RMSNorm
    (or nn.LayerNorm) as a submodule instead of a gain of its own (b15b-rms-wraps-nn-rmsnorm
    got the stack's final-norm advice of lessons 07-09 after the keys)."""
    try:
        module = cls(*args)
        wrapped = [
            (name, type(sub).__name__)
            for name, sub in module.named_modules()
            if name
            and type(sub).__module__.startswith("torch.nn")
            and type(sub).__name__ in _TORCH_NORMS
        ]
    except Exception:  # build() says what went wrong
        return
    if not wrapped:
        return
    name, kind = wrapped[0]
    c.fail(
        f"{_built('RMSNorm', args)} holds PyTorch's nn.{kind} as `self.{name}` (its gain is "
        f"at `{name}.weight`, not `weight`): {_TORCH_NORMS[kind]}, and this exercise asks "
        "you to write the normalisation out, x / sqrt(mean(x ** 2) + eps) * weight, not "
        "with nn.RMSNorm or F.rms_norm. The gain is this module's own parameter, "
        "self.weight = nn.Parameter(torch.ones(d_model)), so that the state dict has the "
        "key `weight` that the later lessons load."
    )


_EPS_FLOOR = (
    "Your eps is a lower bound of the mean square, sqrt(max(mean(x ** 2), eps)) (a "
    "clamp(min=eps) or torch.maximum), where it is added to it: the two agree on tokens of "
    "ordinary size, not on one whose mean square is near eps. Add it: "
    "x / sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)."
)


def _other_dtype(c: Checker, module, what: str, got: torch.dtype) -> None:
    """A float32 input that comes back in another dtype (blind12i-rms-gain-float64, a gain
    made float64, passed: x * weight promotes): the parameters' dtypes say whether the
    gain is the cause."""
    found = {
        key: value.dtype
        for key, value in module.state_dict().items()
        if isinstance(value, torch.Tensor)
        and value.is_floating_point()
        and value.dtype != torch.float32
    }
    cause = (
        f"your {', '.join(f'{key} is {dtype}' for key, dtype in found.items())}, and x * "
        f"weight promotes the float32 x to {got}. Make the gain in the default dtype, "
        "nn.Parameter(torch.ones(d_model)) (no dtype=...): the model's weights are float32."
        if found
        else f"your forward computes in {got} and never casts back. Return x's dtype (cast "
        "back with .type_as(x), as Llama's RMSNorm does)."
    )
    c.fail(f"{what} returned {got} for a float32 input, not float32: {cause}")


def _gain_contracted(c: Checker, got: Any, x: torch.Tensor, state, case, what: str) -> None:
    """A result without the feature axis that is the normalised x times the gain, summed
    over the features: the gain applied with @ (a dot product with the (d_model,) vector)
    where * belongs (blind19d-rms-gain-applied-with-matmul was told the shape alone)."""
    weight = state.get("weight") if hasattr(state, "get") else None
    if not isinstance(weight, torch.Tensor):
        return
    eps = 1e-5 if case.eps is None else case.eps
    normalised = rms_norm_f(x, {**state, "weight": torch.ones_like(weight)}, eps)
    if contracted_by_vector(got, normalised, weight):
        c.fail(
            f"{what} should have shape {tuple(x.shape)}, but it has shape "
            f"{tuple(got.shape)}: each token's normalised features were multiplied by the "
            "gain and summed into one number, a dot product. That is the gain applied with "
            "@ or torch.matmul (a matrix product with the (d_model,) vector weight), or a "
            "product summed over the last axis, where the element-wise * alone belongs: "
            "x * torch.rsqrt(mean_square + eps) * self.weight."
        )


#: the check's input scaled: where eps is negligible (large values) or dominant (small
#: ones), the eps slips part (blind12i-rms-normalize-no-eps: eps left out and eps added to
#: the reciprocal of the root agree on ordinary activations, and were named together)
_PARTING_SCALES = (1e3, 1e-3)


def _narrowed_by_scale(found: list[str], module, x: torch.Tensor, state, table, eps: float):
    """The messages of ``found`` whose mistakes also give the learner's result on the
    check's input scaled by each of :data:`_PARTING_SCALES`; a scale whose result no
    candidate gives (or that raises) is skipped."""
    for scale in _PARTING_SCALES:
        probe = (x.double() * scale).to(x.dtype)
        try:
            with torch.no_grad():
                got = module(probe)
        except Exception:  # a probe: nothing learnt from it
            continue
        if not isinstance(got, torch.Tensor) or got.shape != probe.shape:
            continue
        got = got.detach().double()
        values = {
            **mistake_values(lambda **k: rms_norm_f(probe, state, **k), table),
            _EPS_FLOOR: probe.double()
            * state["weight"].double()
            / probe.double().pow(2).mean(-1, keepdim=True).clamp(min=eps).sqrt(),
        }
        fitting = []
        for message in found:
            value = values.get(message)
            value = value() if callable(value) else value
            if isinstance(value, torch.Tensor) and value.shape == got.shape:
                if torch.allclose(got, value.double(), rtol=1e-3, atol=1e-6 * scale):
                    fitting.append(message)
        if fitting:
            found = fitting
    return found


def check_RMSNorm(cls, *, hidden: bool = False) -> None:
    with Checker("RMSNorm", hidden=hidden) as c:
        c.require_callable(cls)
        for case in _HIDDEN_NORM if hidden else _VISIBLE_NORM:
            d_model = case.shape[-1]
            args = (d_model,) if case.eps is None else (d_model, case.eps)
            probe = randn(case.shape, case.seed).to(case.dtype)
            expect_layers_in_init(c, cls, args, probe, ref.RMSNorm(d_model), "RMSNorm")
            _wraps_torch_norm(c, cls, args)
            module, built, state = build(
                c,
                cls,
                *args,
                name="RMSNorm",
                reference=ref.RMSNorm(d_model),
                seed=case.seed,
                mode="eval",
            )
            expect_parameters_not_buffers(c, module, ref.RMSNorm(d_model), built)
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
                hints=[dropped_axis_hint(x.shape), _TUPLE_OPERAND],
            )
            what = f"{built}(x {tuple(x.shape)}{', float64' if x.dtype == torch.float64 else ''})"
            _gain_contracted(c, got, x, state, case, what)
            expect_tensor_result(c, got, tuple(x.shape), what)
            if x.dtype == torch.float64 and got.dtype != torch.float64:
                c.fail(_LOWER_PRECISION.format(what=what, got=got.dtype))
            if x.dtype == torch.float32 and got.dtype != torch.float32:
                _other_dtype(c, module, what, got.dtype)
            if case.eps is None:
                _eps_ignored(c, cls, case, x, state, got, built)
            eps = 1e-5 if case.eps is None else case.eps
            table = _norm_mistakes(case.eps)
            c.expect_close(
                got,
                rms_norm_f(x, state, eps),
                what,
                # float32 precision is enough, also for a float64 input (Llama's RMSNorm
                # computes in float32 and casts back)
                **tolerance(got.dtype, torch.float32),
                mistakes={
                    **mistake_values(lambda **k: rms_norm_f(x, state, **k), table),
                    # blind18e-rms-eps-as-floor-not-added: where no token's mean square is
                    # near eps, it is named with the candidates it cannot be told from
                    _EPS_FLOOR: x.double()
                    * state["weight"].double()
                    / x.double().pow(2).mean(-1, keepdim=True).clamp(min=eps).sqrt(),
                },
                pairs=lambda table=table, x=x, state=state, eps=eps: mistake_pairs(
                    lambda **k: rms_norm_f(x, state, eps, **k), _without_eps(table, eps)
                ),
                explain=lambda got=got, x=x, eps=eps, state=state: (
                    _negative_root(got, x, eps) or _wrong_statistic(got, x, state, eps)
                ),
                narrow=lambda found, module=module, x=x, state=state, table=table, eps=eps: (
                    _narrowed_by_scale(found, module, x, state, table, eps)
                ),
            )
        _expect_gradients(c, cls, _GRADIENT_CASE[hidden])
        _starts_at_ones(c, cls, (_HIDDEN_NORM if hidden else _VISIBLE_NORM)[0].shape[-1])
