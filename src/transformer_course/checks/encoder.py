"""Checks for lesson 07: ``LayerNorm``, ``PositionwiseFeedForward``, ``EncoderLayer``,
``Encoder`` and the lesson's two concept questions.

Every module is built through :func:`transformer_course.checking.modules.build_module`
(construct, check the state-dict keys, load deterministic weights, read them back,
switch to train or eval) and then called through ``Checker.call``; nothing else of
the learner's code is touched.

Expected values come from the float64 oracles of
:mod:`transformer_course.checking.oracles` (``layer_norm_f``, ``ffn_f``,
``encoder_layer_f``, ``encoder_f``), written from the formulas, independent of the
reference modules; ``tests/test_oracles.py`` proves that they and PyTorch's
``nn.LayerNorm`` / ``nn.TransformerEncoderLayer`` / ``nn.TransformerEncoder`` agree. Each function has one keyword ("knob") per classic mistake, so that a wrong
answer is told which mistake it matches.

Training mode is checked without depending on a random stream: with ``dropout=1.0``
every dropout zeroes its input, so the result is fixed (a post-LN layer gives
``norm2(norm1(x))``, a pre-LN layer gives ``x``); with ``dropout=0.0`` train equals
eval.

The module helpers live in :mod:`transformer_course.checking.layers`.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.backward_pass import backward_problem
from transformer_course.checking.dropout_masks import P_IS_ONE, dropout_pattern_problem
from transformer_course.checking.elementwise_functions import (
    described_function,
    row_scaled_function,
)
from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.graph import call_gradients
from transformer_course.checking.hooks import inputs_received, last_input_hint
from transformer_course.checking.inputs import randn
from transformer_course.checking.keep_probability import KEEP_PROBABILITY, rate_read_backwards
from transformer_course.checking.layer_flow import FALLS_THROUGH, stream_dropped_entry
from transformer_course.checking.layer_mistakes import (
    PADDING_WORDS,
    add_new,
    discarded_mistakes,
    dropout_missing_mistakes,
    dropout_place_mistakes,
    layer_mistakes,
    norm_choice_mistakes,
    placement_mistakes,
    residual_mistakes,
    source_mask,
    stack_description,
    stack_mistakes,
)
from transformer_course.checking.layers import (
    LAYER_HINTS,
    also_wrong_besides_final_norm,
    build,
    describe_mask,
    dropout_hint,
    dropout_rate_problem,
    expect_composite,
    expect_dropout_default_in_train,
    expect_masks_on_every_path,
    expect_masks_on_train_path,
    expect_positional_order,
    expect_sublayers_dropped,
    expect_tensor_result,
    mistake_pairs,
    mistake_values,
    only_dropout_mistakes,
    stacked_layers_hint,
    state_hint,
    sublayer_inputs_agree,
)
from transformer_course.checking.localise import (
    called_submodules,
    localise_layer,
    localise_stack,
    mask_arrival_hint,
    stack_input_hint,
)
from transformer_course.checking.mask_rows import one_mask_for_all
from transformer_course.checking.module_settings import NEVER_IN_TRAINING, wrong_setting_note
from transformer_course.checking.modules import (
    build_module,
    expect_contract_defaults,
    random_state,
    state_shapes,
)
from transformer_course.checking.norm_eps import norm_eps_problem
from transformer_course.checking.oracles import (
    as_float64,
    encoder_f,
    encoder_layer_f,
    ffn_f,
    layer_norm_f,
    uses_final_norm,
)
from transformer_course.checking.oracles.state import linear, sub
from transformer_course.checking.precision import right_in_float64
from transformer_course.checking.projection_sources import projection_sentence
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.checking.residual_draws import residual_draw_problem, undropped_note
from transformer_course.checking.skipped_layers import layers_skipped_in_training
from transformer_course.checking.stale import MODULE_KEPT_STATE, module_keeps_state
from transformer_course.checking.state_keys import (
    built_keys,
    layer_count_note,
    norms_without_affine,
)
from transformer_course.checking.swapped_arguments import (
    attention_arguments_swapped,
    dropout_refuses,
)
from transformer_course.checking.unregistered import expect_deterministic_registered
from transformer_course.checking.variance_forms import variance_form_sentence
from transformer_course.exercise import Exercise
from transformer_course.reference import encoder as ref

__all__ = [
    "check_Encoder",
    "check_EncoderLayer",
    "check_LayerNorm",
    "check_PositionwiseFeedForward",
    "check_quiz_final_norm",
    "check_quiz_layer_norm_axis",
]


# ================================================================================ LayerNorm
@dataclass(frozen=True)
class _NormCase:
    seed: int
    shape: tuple[int, ...]  # the input, (..., d_model)
    eps: float | None  # None: LayerNorm(d_model), the default eps
    scale: float = 1.0  # the input's spread (small: the variance is comparable to eps)
    flat_token: bool = False  # one token whose features are all equal (variance 0)
    quiet_token: bool = False  # one token with a tiny spread (variance 1e-4, close to eps)
    fresh: bool = False  # no weights loaded: a fresh module must be plain normalisation
    dtype: torch.dtype = torch.float32  # the input's (float64: the result stays float64)


_VISIBLE_NORM = [
    _NormCase(1, (2, 3, 8), None, fresh=True, quiet_token=True),
    _NormCase(2, (2, 4, 8), None, flat_token=True, quiet_token=True),
    _NormCase(3, (4, 6), 0.1, scale=0.3),
    _NormCase(4, (2, 3, 6), None, dtype=torch.float64),
]
_HIDDEN_NORM = [
    _NormCase(101, (3, 5, 16), None, flat_token=True, quiet_token=True),
    _NormCase(102, (7, 12), 1e-3, scale=0.05),
    _NormCase(103, (2, 2, 3, 6), 0.05, scale=0.3),
    _NormCase(104, (1, 4, 512), None, quiet_token=True),
    _NormCase(105, (2, 6, 10), None, fresh=True, flat_token=True),
    _NormCase(106, (3, 4, 10), 1e-3, scale=0.3, dtype=torch.float64),
]
_DOWNCAST = (
    "Your LayerNorm returns float32 for a float64 x: somewhere x is cast down (x.float(), "
    ".to(torch.float32), or .to(self.weight.dtype)), and the result loses float64's "
    "precision. Compute in x's dtype: the float32 weight and bias promote to float64 by "
    "themselves. (Upcasting half-precision input for stability is fine, if you cast the "
    "result back: .to(x.dtype).)"
)

_UNBIASED = (
    "You used the unbiased variance, dividing by d_model - 1 (the default of torch.var and "
    "torch.std, and what x.std(-1) in the Annotated Transformer computes). LayerNorm uses the "
    "biased variance, the plain mean of the squared deviations: pass unbiased=False (or "
    "correction=0), or compute ((x - mean) ** 2).mean(-1)."
)
_EPS_OUTSIDE = (
    "You added eps outside the square root, (x - mean) / (std + eps). LayerNorm (Ba et al., "
    "and nn.LayerNorm) puts it inside: (x - mean) / sqrt(var + eps). The two differ when a "
    "token's variance is small, as it is in this input."
)
_NO_EPS = (
    "You divide by sqrt(var) with no eps. eps keeps the division safe (a token whose features "
    "are all equal, a zero <pad> vector say, has variance 0: 0 / 0 is NaN) and belongs inside "
    "the square root: sqrt(var + eps)."
)
_EPS_IN_NUMERATOR = (
    "You add eps to the numerator, (x - mean + eps) / sqrt(var), so the denominator has no "
    "eps (0 / 0 for a token whose features are all equal): eps belongs inside the square "
    "root of the denominator, (x - mean) / sqrt(var + eps)."
)
_BIAS_INSIDE_GAIN = (
    "You add the bias before multiplying by the gain, self.weight * (normalised + self.bias), "
    "so the bias is scaled by the gain too (a fresh layer, gain 1, cannot show it): multiply "
    "first, then add, self.weight * normalised + self.bias."
)
_NO_SQRT = (
    "You divide by the variance, var + eps, not by its square root: LayerNorm divides by the "
    "standard deviation, (x - mean) / torch.sqrt(var + eps)."
)
_SEQUENCE = (
    "You normalised over the positions of the sequence (dim=-2, or dim=1) instead of over "
    "each token's own features (dim=-1). In a Transformer every token is normalised on its "
    "own, over its d_model features: mean and variance over the last axis."
)
_BATCH = (
    "You normalised each feature over the whole batch (every sequence and position): those "
    "are BatchNorm's statistics, not LayerNorm's. LayerNorm takes the mean and variance of "
    "each token's own d_model features, over the last axis only, so that a token's result "
    "never depends on the other tokens in the batch (or on how much padding they carry)."
)
_WHOLE_SEQUENCE = (
    "You normalised over the whole sequence at once (positions and features together, "
    "dim=(-2, -1)). That is 'across channels and spatial dims', as LayerNorm is described for "
    "images; in a Transformer each token is normalised separately, over the last axis only, "
    "as nn.LayerNorm(d_model) does."
)
_EVERYTHING = (
    "You normalised over the whole tensor at once (one mean and variance for everything). "
    "LayerNorm takes one mean and one variance per token, over its last axis (dim=-1)."
)
_MEAN_EVERYTHING = (
    "Your mean is one number for the whole tensor (x.mean() with no dim: every feature of "
    "every token of every sequence), while the variance is per token: a token's result then "
    "depends on the other tokens and on the padding. The mean is per token too, over the "
    "last axis: x.mean(dim=-1, keepdim=True)."
)
_NO_GAIN = (
    "Your result lacks the gain: after normalising, multiply by self.weight (one learned "
    "factor per feature), then add self.bias."
)
_NO_BIAS = "Your result lacks the bias: after multiplying by self.weight, add self.bias."
_NO_AFFINE = (
    "Your result is the bare normalisation: multiply by the learned gain self.weight and add "
    "the learned bias self.bias, so that the layer can undo the normalisation where that helps."
)
_SWAPPED = (
    "Your gain and bias are swapped: the normalised x is multiplied by self.weight, then "
    "self.bias is added."
)
_NO_CENTERING = (
    "You normalise by the root mean square of the features, sqrt(mean(x²) + eps), without "
    "subtracting their mean first: that is RMSNorm (T5's 'LayerNorm'), not LayerNorm. Centre "
    "each token first: (x - mean) / sqrt(var + eps), var the biased variance around that mean, "
    "x.var(dim=-1, keepdim=True, unbiased=False)."
)
_MEAN_ADDED = (
    "You added the mean, x + mean, where it is subtracted: centre each token with (x - mean) "
    "/ sqrt(var + eps)."
)
_VARIANCE_UNCENTRED = (
    "Your variance is the mean of x² (the second moment around 0, as T5's norm computes "
    "it), while the numerator is centred, x - mean: the two disagree for every token whose "
    "mean is not 0. The variance is taken around the mean: ((x - mean) ** 2).mean(dim=-1, "
    "keepdim=True), or x.var(dim=-1, keepdim=True, unbiased=False)."
)
_VARIANCE_ABSOLUTE = (
    "Your spread is the mean absolute deviation, (x - mean).abs().mean(-1), where the "
    "variance belongs: the mean of the squared deviations, ((x - mean) ** 2).mean(-1), or "
    "x.var(dim=-1, keepdim=True, unbiased=False). LayerNorm divides by the square root of "
    "the variance plus eps, the standard deviation."
)
_SQUARED = (
    "You divide by the square of (var + eps), (var + eps) ** 2, where its square root "
    "belongs: (x - mean) / torch.sqrt(var + eps), or (var + eps) ** 0.5."
)
_STATS_SWAPPED = (
    "Your mean and variance are exchanged: you subtract the variance and divide by the square "
    "root of the mean (+ eps), which gives NaN wherever a token's mean is negative. "
    "torch.var_mean returns (variance, mean), in that order."
)
_STATS_SWAPPED_UNBIASED = (
    f"{_STATS_SWAPPED} And the variance is the unbiased one (divided by d_model - 1, the "
    "default of torch.var_mean, torch.var and torch.std): pass correction=0 (unbiased=False)."
)
_BIAS_SUBTRACTED = (
    "You subtract the bias: the normalised x is multiplied by self.weight, then self.bias is "
    "added, ... * self.weight + self.bias."
)
_EPS_SUBTRACTED = (
    "You subtract eps from the variance, sqrt(var - eps): eps is added inside the square "
    "root, (x - mean) / sqrt(var + eps)."
)
_NUMERATOR_UNCENTRED = (
    "Your mean and variance are right, but you divide x itself, not x - mean: the "
    "numerator is the centred x, (x - mean) / sqrt(var + eps)."
)
_GAIN_OVER_CENTRED = (
    "You divide the gain by the centred x, self.weight / (x - mean) / sqrt(var + eps): the "
    "gain multiplies, self.weight * (x - mean) / sqrt(var + eps) + self.bias."
)
_GAIN_DIVIDES = (
    "You divide the normalised x by self.weight: the gain multiplies it, "
    "(x - mean) / sqrt(var + eps) * self.weight + self.bias."
)
_GAIN_FIRST = (
    "You multiply x by self.weight before taking the mean and variance, so the "
    "normalisation cancels the gain: normalise first, then multiply by self.weight and add "
    "self.bias."
)
_AFFINE_FIRST = (
    "You apply the gain and the bias to x before normalising it, so the "
    "normalisation undoes most of them (a fresh layer, gain 1 and bias 0, cannot show it): "
    "normalise x first (subtract its mean, divide by its standard deviation), then "
    "multiply by self.weight and add self.bias."
)
_WRONG_DEFAULT_EPS = (
    "Your default eps is not 1e-5. LayerNorm(d_model) should use eps=1e-5 (nn.LayerNorm's "
    "default, and this contract's; the Annotated Transformer uses 1e-6, BERT 1e-12): make it "
    "the default value of the eps parameter."
)
_EPS_IGNORED = (
    "Your LayerNorm ignores its eps argument. LayerNorm(d_model, eps=...) must use the value "
    "passed in: store it in __init__ (self.eps = eps) and use it in forward."
)
_ANNOTATED = (
    "You divide by (std + eps) with the unbiased std, as the Annotated Transformer's LayerNorm "
    "does (x.std(-1)): two differences from nn.LayerNorm. Use the biased variance and put eps "
    "inside the square root: (x - mean) / sqrt(var + eps)."
)


_ANY_RANK = (
    "LayerNorm must work for an input with any number of leading axes, (..., d_model): "
    "(batch, len, d_model) in a Transformer, but also (tokens, d_model) or more axes. Count "
    "the axes from the end: the features are dim=-1."
)
_LN_INVERTED = (
    "You multiplied (x - mean) by the standard deviation instead of dividing by it (dividing "
    "by torch.rsqrt(var + eps), which is already 1 / sqrt): divide by torch.sqrt(var + "
    "eps), or multiply by torch.rsqrt(var + eps)."
)
_KEEPDIM = (
    "The statistics do not line up with x: most likely a mean or variance taken without "
    "keepdim=True loses the reduced axis, (batch, len) instead of (batch, len, 1), and then meets x's "
    "feature axis. Keep the axis: x.mean(dim=-1, keepdim=True), x.var(dim=-1, "
    "keepdim=True, unbiased=False)."
)
_NORM_HINTS = {"Dimension out of range": _ANY_RANK, "must match the size of tensor": _KEEPDIM}


def _axes_message(dims: tuple[int, ...], ndim: int) -> str:
    return (
        f"You took the mean and variance over dim={dims[0] if len(dims) == 1 else dims} of "
        f"x's {ndim} axes, instead of over each token's own features, the last axis only "
        "(dim=-1, keepdim=True): every (sequence, position) gets its own mean and variance."
    )


def _norm_mistakes(case_eps: float | None, ndim: int = 3) -> dict[str, dict[str, Any]]:
    eps = 1e-5 if case_eps is None else case_eps
    table: dict[str, dict[str, Any]] = {
        _UNBIASED: {"unbiased": True},
        _EPS_OUTSIDE: {"eps_at": "outside"},
        _NO_EPS: {"eps_at": "none"},
        _NO_SQRT: {"eps_at": "no_sqrt"},
        _SEQUENCE: {"over": "sequence"},
        _BATCH: {"over": "batch"},
        _WHOLE_SEQUENCE: {"over": "sequence_and_features"},
        _EVERYTHING: {"over": "everything"},
        _ANY_RANK: {"over": "axis_2"},
        _NO_GAIN: {"gain": False},
        _NO_BIAS: {"shift": False},
        _NO_AFFINE: {"gain": False, "shift": False},
        _SWAPPED: {"swap": True},
        _ANNOTATED: {"unbiased": True, "eps_at": "outside"},
        _LN_INVERTED: {"invert": True},
        _NO_CENTERING: {"center": False},
        _MEAN_ADDED: {"mean_added": True},
        _VARIANCE_UNCENTRED: {"variance": "uncentred"},
        _VARIANCE_ABSOLUTE: {"variance": "absolute"},
        _SQUARED: {"eps_at": "squared"},
        _EPS_SUBTRACTED: {"eps_at": "subtracted"},
        _EPS_IN_NUMERATOR: {"eps_at": "numerator"},
        _NUMERATOR_UNCENTRED: {"numerator": "x"},
        _GAIN_OVER_CENTRED: {"gain_as": "over_centred"},
        _GAIN_DIVIDES: {"gain_as": "divisor"},
        _GAIN_FIRST: {"gain_as": "first"},
        _AFFINE_FIRST: {"gain_as": "affine_first"},
        _BIAS_INSIDE_GAIN: {"gain_as": "bias_inside"},
        _STATS_SWAPPED: {"stats_swapped": True},
        _STATS_SWAPPED_UNBIASED: {"stats_swapped": True, "unbiased": True},
        _BIAS_SUBTRACTED: {"shift_sign": -1},
    }
    # any other set of axes (the batch axis alone, say): named by its dims
    named = {
        frozenset({ndim - 2}),
        frozenset(range(ndim - 1)),
        frozenset({ndim - 2, ndim - 1}),
        frozenset(range(ndim)),
        frozenset({2} if ndim > 2 else {ndim - 1}),
        frozenset({ndim - 1}),
    }
    for size in range(1, ndim + 1):
        for dims in itertools.combinations(range(ndim), size):
            if frozenset(dims) not in named:
                table[_axes_message(dims, ndim)] = {"over": dims}
    # the mean alone over the whole tensor, x.mean() with no dim (blind14g-ln-mean-over-whole-
    # tensor was given the largest difference and the formula)
    table[_MEAN_EVERYTHING] = {"mean_over": tuple(range(ndim))}
    for dim in range(ndim - 1):  # the mean alone over another axis
        table[
            f"Your mean is taken over dim={dim} while the variance is over the features: "
            "both statistics are per token, over the last axis (x.mean(dim=-1, "
            "keepdim=True))."
        ] = {"mean_over": (dim,)}
        # the variance alone over another axis (mutant-LayerNorm-6: dim=-2 in the variance)
        table[
            f"Your variance is taken over dim={dim} (dim={dim - ndim}) while the mean is over "
            "the features: both statistics are per token, over the last axis (x.var(dim=-1, "
            "keepdim=True, unbiased=False))."
        ] = {"over": (dim,), "mean_over": (ndim - 1,)}
    if case_eps is None:
        table[_WRONG_DEFAULT_EPS] = {"eps": 1e-6}
        table[_WRONG_DEFAULT_EPS + " "] = {"eps": 1e-12}
        table[_ANNOTATED + " "] = {"unbiased": True, "eps_at": "outside", "eps": 1e-6}
    else:
        table[_EPS_IGNORED] = {"eps": 1e-5}
        table[_EPS_IGNORED + " "] = {"eps": 1e-6}
    return {message: {"eps": eps, **knobs} for message, knobs in table.items()}


def _norm_input(case: _NormCase) -> torch.Tensor:
    """(..., d_model): every token with its own mean and spread, so that the wrong axis shows."""
    lead = case.shape[:-1]
    x = randn(case.shape, case.seed, scale=case.scale)
    offsets = randn((*lead, 1), case.seed + 1, scale=2.0 * case.scale)  # a mean per token
    spreads = 0.5 + randn((*lead, 1), case.seed + 2).abs()  # a different spread per token
    x = x * spreads + offsets
    if case.flat_token:  # the last token of the first sequence
        x[(0,) * (len(lead) - 1) + (lead[-1] - 1,)] = 0.5  # every feature the same: variance 0
    if case.quiet_token:  # the first token
        x[(0,) * len(lead)] = randn(case.shape[-1:], case.seed + 3, scale=0.01)
    return x


def _rebuilt_with_eps(cls, d_model: int, module, x: torch.Tensor, eps: float):
    """The learner's LayerNorm built again with ``eps``, holding ``module``'s weights, in
    eval mode, applied to ``x``; None when it cannot be built with an eps or fails (said
    elsewhere)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            other = cls(d_model, eps=eps)
            other.load_state_dict(module.state_dict())
            other.eval()
            return other(x)
    except Exception:  # no eps parameter, or another failure
        return None


def _ignores_eps(
    cls, d_model: int, module, x: torch.Tensor, got: torch.Tensor, eps: float = 0.5
) -> bool:
    """Whether the learner's LayerNorm built with a very different eps (0.5), holding the
    same weights, gives exactly ``got`` on ``x`` (blind7b-ln-eps-argument-ignored: a fixed
    eps of 1e-12 was told "no eps" or "a wrong default", not that the argument is ignored).
    With ``eps=1e-5``: whether its default eps is the contract's (built with eps=1e-5 given
    explicitly it gives what it gives by default), which rules out "a wrong default"."""
    out = _rebuilt_with_eps(cls, d_model, module, x, eps)
    return (
        isinstance(out, torch.Tensor)
        and out.shape == got.shape
        and torch.allclose(out.detach().double(), got.detach().double(), rtol=1e-6, atol=1e-7)
    )


_UNBIASED_NO_EPS = (
    "You divide by the unbiased standard deviation, x.std(-1) (dividing by d_model - 1, "
    "torch.std's default), with no eps at all: yours gives NaN for a token whose features "
    "are all equal, and the same result whatever eps it is built with. Use the biased "
    "variance and put eps inside the square root: (x - mean) / sqrt(var + self.eps), var = "
    "x.var(-1, keepdim=True, unbiased=False)."
)
_EPS_IN_COUNT = (
    "You add eps to the feature count that divides the sum of squared deviations, sum / "
    "(d_model + eps), instead of to the variance under the square root: built with eps=0.5 "
    "(the same weights), yours gives exactly that formula. With eps=1e-5 it changes almost "
    "nothing for ordinary tokens, but a token whose features are all equal gives 0 / 0 (NaN) "
    "and small variances are not damped. Divide by d_model, then add eps to the variance: "
    "sqrt(var + eps)."
)
_EPS_AS_FLOOR = (
    "You clamp the variance at eps, sqrt(max(var, eps)) (var.clamp(min=eps)), instead of "
    "adding eps to it: built with eps=0.5 (the same weights), yours gives exactly that "
    "formula. The two agree where the variance is far above eps and differ on near-constant "
    "tokens, whose variance is replaced by eps: write sqrt(var + eps)."
)
_EPS_ROOTS_SPLIT = (
    "You take the square roots of the variance and of eps separately and add them, "
    "sqrt(var) + sqrt(eps): built with eps=0.5 (the same weights), yours gives exactly that "
    "formula. The square root of a sum is not the sum of the square roots: add eps to the "
    "variance first, then take one root, sqrt(var + eps)."
)
_EPS_TWICE_OUTSIDE = (
    "Your eps is added twice: once under the square root and once more after it, "
    "sqrt(var + eps) + eps: built with eps=0.5 (the same weights), yours gives exactly that "
    "formula. Add it once, under the root: (x - mean) / sqrt(var + eps)."
)
_EPS_TWICE_INSIDE = (
    "Your eps is added twice under the square root, sqrt(var + 2 * eps) (a variance that "
    "already holds eps, var = x.var(...) + eps, then sqrt(var + eps) again): built with "
    "eps=0.5 (the same weights), yours gives exactly that formula. Add it once: "
    "(x - mean) / sqrt(var + eps)."
)
_EPS_SQUARED = (
    "Your eps is squared under the root, sqrt(var + eps ** 2) (eps treated as a standard "
    "deviation): built with eps=0.5 (the same weights), yours gives exactly that formula. "
    "eps is added to the variance as it is: sqrt(var + eps)."
)
_UNBIASED_TOO = (
    " Your variance is also the unbiased one, dividing by d_model - 1 (the default of "
    "torch.var and torch.std): LayerNorm's divides by d_model (unbiased=False, or "
    "correction=0)."
)
#: where a LayerNorm's eps may enter, each as the denominator it gives: (centred (..., d),
#: biased variance (..., 1), d_model, eps) -> (..., 1) or (..., d); each is tried with the
#: unbiased variance as well (two slips at once, both said)
_EPS_PLACEMENTS: tuple[tuple[str, Callable[..., torch.Tensor]], ...] = (
    (_EPS_IN_COUNT, lambda centred, var, d, eps: torch.sqrt(var * d / (d + eps))),
    (_EPS_AS_FLOOR, lambda centred, var, d, eps: torch.sqrt(var.clamp(min=eps))),
    (_EPS_ROOTS_SPLIT, lambda centred, var, d, eps: torch.sqrt(var) + eps**0.5),
    (_EPS_TWICE_OUTSIDE, lambda centred, var, d, eps: torch.sqrt(var + eps) + eps),
    (_EPS_TWICE_INSIDE, lambda centred, var, d, eps: torch.sqrt(var + 2 * eps)),
    (_EPS_SQUARED, lambda centred, var, d, eps: torch.sqrt(var + eps**2)),
)


def _eps_placement(cls, d_model: int, module, x: torch.Tensor, p) -> str:
    """Where the learner's eps enters, when a LayerNorm built with a large eps (0.5, which
    moves every token) and the same weights gives exactly one of the placements above on
    ``x``: that placement's message; "" otherwise (the right one, another, or a build that
    fails). The contract's eps, 1e-5, leaves these placements equal to "no eps" on every
    token but a constant one (blind12n-ln-eps-in-feature-count, blind12n-ln-variance-
    clamped-at-eps were told "no eps")."""
    eps = 0.5
    out = _rebuilt_with_eps(cls, d_model, module, x, eps)
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        return ""
    x64, got = x.detach().double(), out.detach().double()
    centred = x64 - x64.mean(dim=-1, keepdim=True)  # (..., d_model)
    var = centred.pow(2).mean(dim=-1, keepdim=True)  # (..., 1)
    right = centred / torch.sqrt(var + eps) * p["weight"] + p["bias"]  # (..., d_model)
    if torch.allclose(got, right, rtol=1e-4, atol=1e-5, equal_nan=True):
        return ""
    variances = {"": var}
    if d_model > 1:
        variances[_UNBIASED_TOO] = var * d_model / (d_model - 1)
    fitting = [
        message + also
        for message, denominator in _EPS_PLACEMENTS
        for also, variance in variances.items()
        if torch.allclose(
            got,
            centred / denominator(centred, variance, d_model, eps) * p["weight"] + p["bias"],
            rtol=1e-4,
            atol=1e-5,
            equal_nan=True,
        )
    ]
    if fitting:
        return fitting[0] if len(fitting) == 1 else ""
    return _eps_multiple(got, centred, variances, p, eps)


def _eps_multiple(got: torch.Tensor, centred: torch.Tensor, variances: dict, p, eps: float) -> str:
    """When the output of a LayerNorm built with ``eps`` is centred / sqrt(var + k * eps)
    (times the weight, plus the bias) for one whole or half number k other than 1 (0 is
    said elsewhere), with the biased or the unbiased variance: eps scaled or counted k
    times, said with k; "" otherwise. The family of the fixed placements above, for any
    count."""
    for also, variance in variances.items():
        for k in (0.5, 1.5, 2.0, 3.0, 4.0, 0.25):
            if torch.allclose(
                got,
                centred / torch.sqrt(variance + k * eps) * p["weight"] + p["bias"],
                rtol=1e-4,
                atol=1e-5,
            ):
                return (
                    f"Your eps enters the variance {k:g} times, sqrt(var + {k:g} * eps): built "
                    "with eps=0.5 (the same weights), yours gives exactly that formula (eps "
                    "added more than once, or scaled). Add it once, as it is: (x - mean) / "
                    f"sqrt(var + eps).{also}"
                )
    return ""


_EPS_AFTER_DIVISION = (
    "Your eps is added to the normalised result instead of to the variance: built with "
    "eps=0.5 (the same weights), your output is the eps-free normalisation shifted by 0.5, "
    "so eps never reaches the denominator (and a token whose features are all equal gives "
    "0 / 0). Usually operator precedence: `/ torch.sqrt(var) + eps` without brackets divides "
    "first and then adds eps (as `* torch.rsqrt(var) + eps` does). Put eps under the square "
    "root: / torch.sqrt(var + eps)."
)
_VARIANCE_FLOORED = (
    "Your variance is rounded down to a whole number: floor division (//) where / belongs, "
    "so a token whose variance is below 1 gets 0 (and is divided by sqrt(eps)). Compute the "
    "mean of the squared deviations with a true division, ((x - mean) ** 2).sum(-1, "
    "keepdim=True) / d_model, or x.var(-1, keepdim=True, unbiased=False)."
)


_PRECEDENCE = (
    "the power binds tighter than the division (operator precedence): Python reads "
    "(var + eps) ** 1/2 as ((var + eps) ** 1) / 2. Put the exponent in brackets, "
    "(var + eps) ** (1/2), or write (var + eps) ** 0.5 or torch.sqrt(var + eps)."
)
_HALF_POWER = (
    "You divide by (var + eps) / 2, half the variance, where its square root belongs: "
    f"written as a separate std = (var + eps) ** 1/2, {_PRECEDENCE}"
)
_HALF_POWER_INLINE = (
    "You divide by var + eps and then by 2, where LayerNorm divides by the square root "
    "sqrt(var + eps): written inline, (x - mean) / (var + eps) ** 1/2, "
    f"{_PRECEDENCE}"
)


_MEAN_ALONE_DIVIDED = (
    "Only the mean is divided by the standard deviation: yours is x - mean / sqrt(var + eps) "
    "(times the weight, plus the bias), so x itself is never scaled. Python divides before "
    "it subtracts (operator precedence): bracket the difference, (x - mean) / "
    "torch.sqrt(var + eps)."
)
_MEAN_ALONE_SCALED = (
    "Only the mean is normalised and scaled: yours is x - mean / sqrt(var + eps) * weight + "
    "bias, so x itself is neither divided nor multiplied by the weight. Python divides and "
    "multiplies before it subtracts (operator precedence): bracket the difference, (x - mean) "
    "/ torch.sqrt(var + eps) * self.weight + self.bias."
)


def _mean_alone_divided(x: torch.Tensor, p, eps: float, *, gain_inside: bool) -> torch.Tensor:
    """LayerNorm with the brackets around x - mean left out: x - mean / sqrt(var + eps),
    the gain applied to that whole (``gain_inside``) or to the divided mean alone.
    (..., d_model) -> the same."""
    x = x.detach().double()  # (..., d_model)
    mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
    std = torch.sqrt(((x - mean) ** 2).mean(dim=-1, keepdim=True) + eps)  # (..., 1)
    if gain_inside:
        return p["weight"] * (x - mean / std) + p["bias"]
    return x - mean / std * p["weight"] + p["bias"]


def _half_power_norm(x: torch.Tensor, p, eps: float, *, inline: bool = False) -> torch.Tensor:
    """LayerNorm with `** 1/2` unbracketed: std = (var + eps) ** 1/2 divides by
    (var + eps) / 2; inline, (x - mean) / (var + eps) ** 1/2 divides by var + eps, then 2."""
    x = x.detach().double()  # (..., d_model)
    centred = x - x.mean(dim=-1, keepdim=True)
    variance = (centred**2).mean(dim=-1, keepdim=True)  # (..., 1)
    divisor = 2 * (variance + eps) if inline else (variance + eps) / 2
    return p["weight"] * centred / divisor + p["bias"]


def _floored_variance_norm(x: torch.Tensor, p, eps: float) -> torch.Tensor:
    """LayerNorm with the biased variance floor-divided, sum // d_model (blind13g)."""
    x = x.detach().double()  # (..., d_model)
    centred = x - x.mean(dim=-1, keepdim=True)
    variance = torch.floor((centred**2).sum(dim=-1, keepdim=True) / x.shape[-1])  # (..., 1)
    return p["weight"] * centred / torch.sqrt(variance + eps) + p["bias"]


def _eps_added_after_division(
    cls, d_model: int, module, x: torch.Tensor, got: torch.Tensor, p, eps: float
) -> str:
    """The message for eps added after the division, ``/ sqrt(var) + eps`` (with or
    without the weight in between), when the layer built with eps=0.5 and with the check's
    eps gives the eps-free normalisation shifted by that eps (blind13g-ln-eps-added-after-
    division was told "no eps"); "" otherwise."""
    free = layer_norm_f(x, p, eps, eps_at="none")  # (..., d_model) float64, NaN at var 0
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            other = cls(d_model, eps=0.5)
            other.load_state_dict(module.state_dict())
            other.eval()
            out = other(x)
    except Exception:  # no eps parameter, or another failure: said elsewhere
        return ""
    if not (isinstance(out, torch.Tensor) and out.shape == got.shape):
        return ""
    weight = p["weight"]  # (d_model,)

    def shifted(result: torch.Tensor, by: float) -> bool:
        result = result.detach().double()
        return any(
            torch.allclose(result, free + shift, rtol=1e-4, atol=1e-5, equal_nan=True)
            for shift in (by, by * weight)
        )

    return _EPS_AFTER_DIVISION if shifted(out, 0.5) and shifted(got, eps) else ""


def _eps_free(module, x: torch.Tensor) -> bool | None:
    """Whether the learner's LayerNorm (already known to ignore its eps argument) divides by
    sqrt(var) with no eps at all: True when a token whose features are all 0 (variance
    exactly 0 whatever the formula) comes out non-finite (0 / 0), False when it comes out
    finite (a fixed eps of its own, such as BERT's 1e-12), None when it cannot be told.
    On the check's other inputs the two agree to the last digit (mutant-LayerNorm-9, an
    eps dropped from the formula, was told its eps *argument* was ignored)."""
    probe = x.detach().clone()
    token = (0,) * (probe.dim() - 1)
    probe[token] = 0.0
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            out = module(probe)
    except Exception:  # said elsewhere
        return None
    if not isinstance(out, torch.Tensor) or out.shape != probe.shape:
        return None
    return not bool(torch.isfinite(out[token]).all())


def _norm_hint(cls, d_model: int, module, x, got, p, eps: float, default_eps: bool) -> str:
    """The advice when no known mistake matches: a constant scale on every token first (the
    main mistake, whatever eps does), then an eps argument that never reaches forward."""
    scale = _scale_hint(x, got, p, eps)
    ignored = default_eps and _ignores_eps(cls, d_model, module, x, got)
    if scale and ignored:
        return (
            f"{scale} Also, built with eps=0.5 yours gives exactly what it gives with the "
            "default: the eps argument never reaches forward."
        )
    if scale:
        return scale
    if power := _spread_power(x, got, p, eps):
        return power
    if ignored:
        return (
            f"{_EPS_IGNORED} (Built with eps=0.5, yours gives exactly what it gives with the "
            "default eps on this x: the eps argument never reaches forward.)"
        )
    return (
        "Per token: mean and biased variance over the last axis, (x - mean) / sqrt(var + eps), "
        "times weight, plus bias."
    )


def _scale_hint(x: torch.Tensor, got: torch.Tensor, p, eps: float) -> str:
    """When the learner's output is the reference's normalised values times one constant on
    every token whose spread eps cannot touch (the division by the wrong spread), that
    constant, and for 1/sqrt(d_model) the L2 norm that gives it; "" otherwise
    (blind10g-ln-unit-l2-norm, F.normalize(x - mean), was told only that its eps argument
    is ignored, which F.normalize's own eps also makes true)."""
    x, got = x.detach().double(), got.detach().double()
    weight, bias = p["weight"].double(), p["bias"].double()
    normalised = (layer_norm_f(x, p, eps) - bias) / weight
    theirs = (got - bias) / weight
    keep = (x.var(dim=-1, keepdim=True, unbiased=False) > 1e3 * eps) & (weight.abs() > 0.1)
    keep = keep & (normalised.abs() > 0.1)
    if int(keep.sum()) < 4 or not torch.isfinite(theirs[keep]).all():
        return ""
    ratios = theirs[keep] / normalised[keep]
    ratio = float(ratios.median())
    if abs(ratio - 1) < 1e-3 or float((ratios - ratio).abs().max()) > 1e-4 * abs(ratio):
        return ""
    d_model = x.shape[-1]
    if abs(ratio * d_model**0.5 - 1) < 1e-4:
        return (
            f"Yours is the reference's normalised x times {ratio:.4f} = 1/sqrt(d_model) "
            f"(d_model = {d_model}) on every token: you divide the centred x by its length, "
            "the square root of the *sum* of its squares (its L2 norm, what F.normalize "
            "divides by), where LayerNorm divides by its standard deviation, the square root "
            "of their *mean*, plus eps: (x - mean) / sqrt(var + eps)."
        )
    counted = _variance_count(x, ratio)
    return (
        f"Yours is the reference's normalised x times {ratio:.4g} on every token: you divide "
        "by another measure of the spread than sqrt(var + eps), var the mean of the squared "
        "deviations from the token's mean." + counted
    )


def _variance_count(x: torch.Tensor, ratio: float) -> str:
    """When a constant ratio on every token is sqrt(n / d_model) for n the size of another
    axis of x (or the number of tokens, or of elements): the sum of squared deviations
    divided by that count instead of by d_model (a count read off the wrong axis:
    x.shape[0], len(x), x.numel()), said with every axis that has that size; "" otherwise."""
    d_model = x.shape[-1]
    n = d_model * ratio**2
    if abs(n - round(n)) > 1e-3 * max(1.0, n) or round(n) == d_model:
        return ""
    n = round(n)
    counts = {f"x.shape[{i}]": size for i, size in enumerate(x.shape[:-1])}
    counts["the number of tokens"] = int(x.numel() // d_model)
    counts["x.numel()"] = int(x.numel())
    if d_model > 1:
        counts["d_model - 1"] = d_model - 1
    names = [name for name, size in counts.items() if size == n]
    if not names or names == ["d_model - 1"]:
        return ""
    return (
        f" That ratio is sqrt({n} / {d_model}): what dividing each token's sum of squared "
        f"deviations by {n} ({' or '.join(names)}) gives, where the mean over the token's own "
        f"features divides by d_model = {d_model} (x.shape[-1]; or x.var(-1, unbiased=False))."
    )


#: denominators a LayerNorm may divide the centred x by, with the spread raised to another
#: power than 1/2 or eps placed elsewhere (the root taken twice, or not at all): one family,
#: "the spread's power", matched on the check's input as a whole
_SPREAD_POWERS = {
    "sqrt(std + eps), the square root of the standard deviation (the variance's fourth "
    "root: the root taken twice)": lambda var, eps: (var.sqrt() + eps).sqrt(),
    "(var + eps) ** 0.25, the variance's fourth root (the root taken twice)": lambda var, eps: (
        (var + eps) ** 0.25
    ),
    "var + eps, the variance itself (no square root)": lambda var, eps: var + eps,
    "std ** 2 + eps, the variance itself (no square root)": lambda var, eps: var + eps,
    "(var + eps) ** 1.5": lambda var, eps: (var + eps) ** 1.5,
    "(var + eps) ** 2, the variance squared": lambda var, eps: (var + eps) ** 2,
}


def _spread_power(x: torch.Tensor, got: torch.Tensor, p, eps: float) -> str:
    """Which of :data:`_SPREAD_POWERS` the learner's output equals on the whole input (gain
    and bias applied as the contract says), said when exactly one formula does; ""
    otherwise."""
    x, got = x.detach().double(), got.detach().double()
    centred = x - x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    weight, bias = p["weight"].double(), p["bias"].double()
    found = []
    seen = []
    for name, spread in _SPREAD_POWERS.items():
        out = weight * centred / spread(var, eps) + bias
        if any(torch.equal(out, other) for other in seen):
            continue  # the same formula written another way
        seen.append(out)
        if out.shape == got.shape and torch.allclose(out, got, rtol=1e-4, atol=1e-5):
            found.append(name)
    if len(found) != 1:
        return ""
    return (
        f"You divide each token's centred x by {found[0]}, where LayerNorm divides by the "
        "standard deviation, sqrt(var + eps): the square root taken once, of the biased "
        "variance plus eps."
    )


def check_LayerNorm(cls, *, hidden: bool = False) -> None:
    """LayerNorm(d_model, eps=1e-5): per-token normalisation over the last axis."""
    with Checker("LayerNorm", hidden=hidden) as c:
        c.require_callable(cls, "LayerNorm")
        torch.manual_seed(0)  # whatever the learner's code draws, it draws the same each time
        for case in _HIDDEN_NORM if hidden else _VISIBLE_NORM:
            _check_norm_case(c, cls, case)
        _check_second_call_and_gradient(c, cls, seed=7 + 100 * hidden)
        _expect_precise_on_large_means(c, cls, seed=8 + 100 * hidden)


#: a token's mean next to its spread (about 1) in the precision probe: float32 keeps about
#: 7 digits, so E[x²] (about 1e5 to 1e6) leaves the variance 2 or 3 of them
_LARGE_MEAN = 300.0
#: the probe's float32 result against the float64 oracle: the reference's own float32
#: arithmetic is off by about 1e-4 at these means, a cancelling formula by about 0.1
_PRECISION_TOLERANCE = {"rtol": 1e-3, "atol": 1e-3}
_SECOND_MOMENT = (
    "Yours is what the variance computed as E[x²] - E[x]², the mean of the squares minus "
    "the squared mean, gives in float32: equal to the variance on paper, but here both "
    "terms are about {square:.0e} while their difference, the variance, is about 1, below "
    "what float32 resolves at that size, so the subtraction cancels catastrophically (the "
    "variance comes out far off, 0, or negative and then NaN). Subtract the mean first, "
    "then square: ((x - mean) ** 2).mean(dim=-1, keepdim=True), or x.var(dim=-1, "
    "keepdim=True, unbiased=False)."
)


def _layer_norm_with_random_state(c: Checker, cls, d_model: int, *, seed: int):
    """The learner's LayerNorm(d_model), built and holding a random weight and bias drawn
    from ``seed``: (module, how it was built, that state)."""
    expected_shapes = state_shapes(ref.LayerNorm(d_model))
    state = random_state(expected_shapes, seed)
    module, built = build_module(
        c,
        cls,
        d_model,
        name="LayerNorm",
        expected_shapes=expected_shapes,
        keys_hint=lambda found: state_hint(found, expected_shapes),
        state=state,
    )
    return module, built, state


def _second_moment_norm(x: torch.Tensor, p, eps: float) -> torch.Tensor:
    """LayerNorm with the variance E[x²] - E[x]², computed in x's dtype (float32: the
    cancellation is the point), the rest in float64. x (..., d_model) -> (..., d_model)."""
    mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
    variance = ((x * x).mean(dim=-1, keepdim=True) - mean * mean).double()  # (..., 1)
    return (x.double() - mean.double()) / torch.sqrt(variance + eps) * p["weight"] + p["bias"]


def _expect_precise_on_large_means(c: Checker, cls, *, seed: int) -> None:
    """Tokens whose mean is large next to their spread, in float32: a formula right on
    paper that cancels there (the variance as E[x²] - E[x]²) passed every case, whose
    tokens have means near 0 (blind12n-ln-variance-from-second-moment). A wrong result
    whose float64 copy is right is a loss of precision (checking.precision), and the
    second-moment variance is named when it gives the learner's values."""
    d_model = 8
    module, built, state = _layer_norm_with_random_state(c, cls, d_model, seed=seed)
    means = _LARGE_MEAN * (1.0 + randn((2, 3, 1), seed + 1).abs())  # (2, 3, 1)
    x = randn((2, 3, d_model), seed) + means  # (2, 3, 8) float32
    what = (
        f"{built} holding the check weight and bias, applied to x {tuple(x.shape)} float32 "
        f"(every token's mean large next to its spread: means {means.min().item():.0f} to "
        f"{means.max().item():.0f}, spreads about 1)"
    )
    got = c.call(module, x, call_repr=f"layer_norm(x {tuple(x.shape)}) [{built}]")
    expect_tensor_result(c, got, x.shape, what)
    p = as_float64(state)
    expected = layer_norm_f(x, p, 1e-5)  # (2, 3, 8) float64
    if torch.allclose(got.detach().double(), expected, **_PRECISION_TOLERANCE):
        return
    if right_in_float64(module, (x,), layer_norm_f(x.double(), p, 1e-5)):
        said = (
            "The same module in float64 gives the right result: your formula is right on "
            "paper, and its float32 arithmetic loses the precision."
        )
        second = _second_moment_norm(x, p, 1e-5)
        if _same_values(got, second):
            said += " " + _SECOND_MOMENT.format(square=float((x.double() ** 2).mean()))
        else:
            said += (
                " Look for a difference of two large, nearly equal numbers (such as E[x²] - "
                "E[x]²): compute the deviations x - mean first, then their squares."
            )
        largest = (got.detach().double() - expected).abs().nan_to_num(float("inf")).max()
        c.fail(
            f"{what} is not what the reference gives (largest difference {largest.item():.3g})."
            f" {said}"
        )
    c.expect_close(got, expected, what, **_PRECISION_TOLERANCE)


def _same_values(got: torch.Tensor, expected: torch.Tensor) -> bool:
    """Equal within float32's tolerance, NaN where NaN."""
    got64 = got.detach().double()
    return got64.shape == expected.shape and bool(
        torch.allclose(got64, expected, rtol=1e-4, atol=1e-5, equal_nan=True)
    )


def _stats_norm(
    x: torch.Tensor,
    p,
    eps: float = 1e-5,
    *,
    stats_of: torch.Tensor | None = None,
    detach_mean: bool = False,
    detach_variance: bool = False,
) -> torch.Tensor:
    """LayerNorm in float64 with the statistics of ``stats_of`` (x's own by default), the
    mean and/or the variance optionally cut from the graph. (..., d) -> (..., d)."""
    source = x if stats_of is None else stats_of
    mean = source.mean(dim=-1, keepdim=True)  # (..., 1)
    variance = source.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1)
    mean = mean.detach() if detach_mean else mean
    variance = variance.detach() if detach_variance else variance
    return (x - mean) / torch.sqrt(variance + eps) * p["weight"] + p["bias"]


_STATS_KEPT = (
    "Called a second time, on another x, your LayerNorm normalises it with the mean and "
    "variance of the first call's input: the statistics are computed once and kept on self "
    "(as BatchNorm's running statistics), then reused. LayerNorm has no running "
    "statistics: every call takes each token's own mean and variance, from the x of that "
    "call."
)
_STATE_KEPT = (
    "Called a second time, on another x, your LayerNorm gives another result than a fresh "
    "one with the same weights: it keeps something on self from one call to the next "
    "(statistics, a shape, an intermediate result). forward must compute everything from "
    "the x of each call."
)
_DETACHED = {
    (True, True): "the mean and the variance",
    (True, False): "the mean",
    (False, True): "the variance",
}


def _check_second_call_and_gradient(c: Checker, cls, *, seed: int) -> None:
    """One module called twice, on two inputs with different statistics (every case
    builds a fresh module and calls it once: statistics kept on self from the first call
    were accepted, blind15g-ln-statistics-kept-from-first-call), then the gradient with
    respect to x of the second result (the values alone cannot show statistics detached
    from the graph, blind15g-ln-statistics-detached)."""
    d_model = 8
    module, built, state = _layer_norm_with_random_state(c, cls, d_model, seed=seed)
    p = as_float64(state)
    first = randn((2, 3, d_model), seed)  # (2, 3, 8)
    second = (3.0 * randn((2, 3, d_model), seed + 1) + 2.0).requires_grad_()  # (2, 3, 8)
    c.call(module, first, call_repr=f"layer_norm(x {tuple(first.shape)}) [{built}]")
    call = f"layer_norm(x2 {tuple(second.shape)}) [{built}, called before on another x]"
    got = c.call(module, second, call_repr=call)
    what = f"the output of {call}"
    expect_tensor_result(c, got, second.shape, what)
    x64 = second.detach().double()
    expected = _stats_norm(x64, p)
    if not torch.allclose(got.detach().double(), expected, **tolerance(got.dtype)):
        stale = _stats_norm(x64, p, stats_of=first.double())
        kept = torch.allclose(got.detach().double(), stale, **tolerance(got.dtype))
        c.fail(f"{what} is not what the reference gives. {_STATS_KEPT if kept else _STATE_KEPT}")
    upstream = randn(tuple(second.shape), seed + 2)  # (2, 3, 8), d loss / d output
    # d Σ output · upstream / d x2, where the call ran (the grader: its sandbox)
    grads = c.call(
        call_gradients,
        module,
        (second,),
        upstream,
        call_repr=f"torch.autograd.grad({call}, x2, upstream gradient)",
    )
    if len(grads) != 1:
        return
    grad = grads[0]
    if grad is None:
        c.fail(
            f"No gradient flows from {what} back into x2 (its gradient is None): your "
            "forward cuts x from autograd (.detach(), .data, torch.no_grad() or a round "
            "trip through NumPy), so nothing before the norm would learn. Compute with x."
        )

    def reference_grad(**detach: bool) -> torch.Tensor:
        leaf = x64.clone().requires_grad_()
        (found,) = torch.autograd.grad(_stats_norm(leaf, p, **detach), leaf, upstream.double())
        return found

    expected_grad = reference_grad()
    if torch.allclose(grad.double(), expected_grad, rtol=1e-4, atol=1e-5):
        return
    for (mean, variance), which in _DETACHED.items():
        cut = reference_grad(detach_mean=mean, detach_variance=variance)
        if torch.allclose(grad.double(), cut, rtol=1e-4, atol=1e-5):
            c.fail(
                f"The values of {call} are right, but its gradient with respect to x2 is not "
                f"nn.LayerNorm's: it is what you get when no gradient flows through {which} "
                "(.detach(), torch.no_grad() or .item() on the statistics, treating them as "
                "constants as BatchNorm's running statistics are). They are functions of x: "
                "keep them in the graph, so that the gradient includes the terms through "
                f"{which}."
            )
    largest = (grad.double() - expected_grad).abs().max().item()
    c.fail(
        f"The values of {call} are right, but its gradient with respect to x2 differs from "
        f"nn.LayerNorm's (largest difference {largest:.3g}): somewhere your computation "
        "leaves the autograd graph (.detach(), .data, .item(), torch.no_grad(), a NumPy round "
        "trip) or is replaced by a constant."
    )


def _upcast_hint(c: Checker, module, built: str) -> str:
    """Why a LayerNorm returns another dtype than its float32 input: its parameters held in
    another dtype (read off its state dict), which promote x, or else a computation in
    another dtype never cast back (blind14g-ln-parameters-float64 was given nine candidate
    gain and bias mistakes)."""
    found = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    other = {
        name: value.dtype
        for name, value in found.items()
        if isinstance(value, torch.Tensor) and value.dtype != torch.float32
    }
    if other:
        names = " and ".join(f"`{name}`" for name in other)
        dtypes = " and ".join(sorted({str(dtype) for dtype in other.values()}))
        return (
            f"Your {names} {'is' if len(other) == 1 else 'are'} {dtypes} (the state dict "
            f"holds {'it' if len(other) == 1 else 'them'} so), and the parameters promote a "
            "float32 x to that dtype. Create the gain and the bias in the default dtype, "
            "float32 as nn.LayerNorm's: nn.Parameter(torch.ones(d_model)) and "
            "nn.Parameter(torch.zeros(d_model)), with no dtype; they follow x's dtype by "
            "themselves when the model is cast (model.double())."
        )
    return (
        "Your LayerNorm computes in another dtype and does not cast back: a LayerNorm keeps "
        "its input's dtype (if you upcast for stability, return .to(x.dtype))."
    )


def _check_norm_case(c: Checker, cls, case: _NormCase) -> None:
    d_model = case.shape[-1]
    kwargs = {} if case.eps is None else {"eps": case.eps}
    reference = ref.LayerNorm(d_model, **kwargs)
    expected_shapes = state_shapes(reference)
    state = None if case.fresh else random_state(expected_shapes, case.seed)
    module, built = build_module(
        c,
        cls,
        d_model,
        name="LayerNorm",
        expected_shapes=expected_shapes,
        keys_hint=lambda found: (
            state_hint(found, expected_shapes)
            or (
                # every key there, a shape wrong (blind9d-ln-parameters-3d: (1, 1, d_model))
                "Give weight and bias one entry per feature, shape (d_model,): "
                "nn.Parameter(torch.ones(d_model)) and nn.Parameter(torch.zeros(d_model)), "
                "nn.LayerNorm's shapes. They broadcast against x (..., d_model) by themselves, "
                "whatever its number of axes."
                if set(found) >= set(expected_shapes)
                else "Create self.weight = nn.Parameter(torch.ones(d_model)) and self.bias = "
                "nn.Parameter(torch.zeros(d_model)): a plain tensor attribute is not part of "
                "the state dict and is not learned."
            )
        ),
        state=state,
        **kwargs,
    )
    if case.fresh:
        found = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
        weight, bias = found["weight"].detach().double(), found["bias"].detach().double()
        c.expect_true(
            torch.equal(weight, torch.ones(d_model, dtype=torch.float64))
            and torch.equal(bias, torch.zeros(d_model, dtype=torch.float64)),
            f"a freshly built {built} should have weight all ones and bias all zeros, so that "
            "it starts as plain normalisation (as nn.LayerNorm does); yours has weight "
            f"{weight[:4].tolist()}... and bias {bias[:4].tolist()}... Initialise them with "
            "torch.ones(d_model) and torch.zeros(d_model).",
        )
        state = {"weight": weight.float(), "bias": bias.float()}
    x = _norm_input(case).to(case.dtype)
    notes = [
        *(["one token has all features equal (variance 0)"] if case.flat_token else []),
        *(["one token has a tiny spread (variance about 1e-4)"] if case.quiet_token else []),
    ]
    flat = f" ({'; '.join(notes)})" if notes else ""
    what = f"{built}{'' if case.fresh else ' holding the check weight and bias'}, applied to x {tuple(x.shape)}{flat}"
    got = c.call(
        module, x, call_repr=f"layer_norm(x {tuple(x.shape)}) [{built}]", hints=_NORM_HINTS
    )
    expect_tensor_result(
        c,
        got,
        x.shape,
        what,
        shape_hint="LayerNorm keeps the shape of its input.",
        module=module,
        rerun=lambda: module(x),
    )
    if x.dtype == torch.float64:
        c.expect_dtype(got, torch.float64, what, _DOWNCAST)
    elif got.dtype != x.dtype:  # float32 in, another dtype out
        c.expect_dtype(got, x.dtype, what, _upcast_hint(c, module, built))
    p = as_float64(state)
    eps = 1e-5 if case.eps is None else case.eps
    expected = layer_norm_f(x, p, eps)
    mistakes = _norm_mistakes(case.eps, x.dim())
    if case.eps is None and _ignores_eps(cls, d_model, module, x, got):
        # the argument provably unused: a fixed eps, not a wrong default (blind7b); which
        # of "no eps at all" and "a fixed tiny eps" only a variance-0 token tells apart
        no_eps = _eps_free(module, x)
        if no_eps:  # 0 / 0 at a constant token: no eps reaches the division at all
            renamed = {
                _NO_EPS: f"{_NO_EPS} (Yours gives NaN for a token whose features are all "
                "equal, and the same result whatever eps it is built with: there is no eps in "
                "your formula.)",
                # the unbiased std with eps outside is as close on this x as the unbiased std
                # with no eps; the NaN and the rebuild say which (x.std(-1) alone was told
                # it divides by std + eps)
                **dict.fromkeys((_ANNOTATED, _ANNOTATED + " "), _UNBIASED_NO_EPS),
            }
            # a fixed eps of its own would give a finite result there: ruled out
            del mistakes[_WRONG_DEFAULT_EPS], mistakes[_WRONG_DEFAULT_EPS + " "]
        else:
            fixed = (
                "a fixed tiny eps of its own (a token whose features are all equal still "
                "comes out finite), such as BERT's 1e-12"
                if no_eps is False
                else "0 or close to it: you divide by sqrt(var) with no eps, or with a fixed "
                "tiny one such as BERT's 1e-12"
            )
            tiny = (
                f"{_EPS_IGNORED} Built with eps=0.5, yours gives exactly what it gives with "
                f"the default on this x, and the eps it uses instead is {fixed}. eps belongs "
                "inside the square root, sqrt(var + self.eps)."
            )
            renamed = {
                _NO_EPS: tiny,
                _WRONG_DEFAULT_EPS + " ": tiny,
                _WRONG_DEFAULT_EPS: f"{_EPS_IGNORED} Built with eps=0.5, yours gives exactly "
                "what it gives with the default on this x, and the eps it uses instead looks "
                "like 1e-6 (the Annotated Transformer's).",
            }
        mistakes = {renamed.get(message, message): knobs for message, knobs in mistakes.items()}
    elif case.eps is None and _ignores_eps(cls, d_model, module, x, got, eps=1e-5):
        # built with eps=1e-5 given explicitly, it gives what it gives by default: its
        # default is the contract's, so "a wrong default" is no candidate (an eps added after
        # the division, `* rsqrt(var) + eps`, was told "no eps" or "a wrong default")
        for message in (_WRONG_DEFAULT_EPS, _WRONG_DEFAULT_EPS + " "):
            mistakes.pop(message, None)
    if not torch.allclose(got.detach().double(), expected, **tolerance(got.dtype)) and (
        added := _eps_added_after_division(cls, d_model, module, x, got, p, eps)
        or _eps_placement(cls, d_model, module, x, p)
    ):
        c.fail(f"{what} is not what the reference gives. {added}")
    c.expect_close(
        got,
        expected,
        what,
        **tolerance(got.dtype),
        mistakes={
            **mistake_values(lambda **k: layer_norm_f(x, p, **k), mistakes),
            _VARIANCE_FLOORED: lambda: _floored_variance_norm(x, p, eps),
            _HALF_POWER: lambda: _half_power_norm(x, p, eps),
            _HALF_POWER_INLINE: lambda: _half_power_norm(x, p, eps, inline=True),
            # the brackets around x - mean left out (blind16g-ln-only-mean-divided-precedence
            # was given the largest difference and the formula)
            _MEAN_ALONE_DIVIDED: lambda: _mean_alone_divided(x, p, eps, gain_inside=True),
            # where the gain is all ones (a fresh module) the two are one result: the
            # bracket, said once
            **(
                {}
                if bool((p["weight"] == 1).all())
                else {_MEAN_ALONE_SCALED: lambda: _mean_alone_divided(x, p, eps, gain_inside=False)}
            ),
        },
        # one constant on every token is an observed diagnosis, not advice: said as one
        explain=lambda: (
            _norm_hint(cls, d_model, module, x, got, p, eps, case.eps is None)
            if _scale_hint(x, got, p, eps) or _spread_power(x, got, p, eps)
            # the variance read back from the output on a probe: its formula, observed
            else variance_form_sentence(module, p["weight"], p["bias"], eps, dtype=x.dtype)
        ),
        hint=lambda: _norm_hint(cls, d_model, module, x, got, p, eps, case.eps is None),
    )


# ================================================================ PositionwiseFeedForward
@dataclass(frozen=True)
class _FFNCase:
    seed: int
    batch: int
    length: int
    d_model: int
    d_ff: int
    dropout: float = 0.0
    mode: str = "eval"


_VISIBLE_FFN = [
    _FFNCase(11, 2, 3, 8, 20),
    _FFNCase(12, 2, 4, 6, 16, dropout=0.3),
    _FFNCase(13, 1, 3, 8, 12, dropout=1.0, mode="train"),
]
_HIDDEN_FFN = [
    _FFNCase(111, 3, 5, 12, 48),
    _FFNCase(112, 2, 4, 16, 24, dropout=0.0, mode="train"),
    _FFNCase(113, 1, 7, 8, 32, dropout=1.0, mode="train"),
    _FFNCase(114, 2, 2, 4, 10, dropout=0.5),
]

_NO_RELU = (
    "There is no ReLU between w_1 and w_2. Without it the two linear maps collapse into a "
    "single linear map (W_2 W_1), and the block adds nothing a linear layer could not: "
    "FFN(x) = max(0, x W_1 + b_1) W_2 + b_2."
)
_RELU_TWICE = (
    "Your output went through a ReLU as well: a second ReLU on the output of w_2, "
    "relu(w_2(...)), so the block never returns a negative value. The ReLU sits only between "
    "w_1 and w_2; the output of w_2 may be negative."
)
_RELU_AFTER = (
    "Your ReLU comes after w_2 instead of between w_1 and w_2: w_2(dropout(relu(w_1(x)))). "
    "The hidden layer needs the non-linearity; the block's output may be negative."
)
_GELU_AFTER = (
    "Your activation (GELU) comes after w_2 instead of between w_1 and w_2; and the paper's "
    "block uses ReLU: w_2(dropout(relu(w_1(x))))."
)
_RELU_IS = (
    " ReLU is max(0, h): torch.relu(h), F.relu(h) or h.clamp(min=0). FFN(x) = max(0, x W_1 + "
    "b_1) W_2 + b_2."
)
_OTHER_ACTIVATION = {
    "clamp_max": "Your hidden activation keeps the negative values and zeros the positive ones, "
    "min(0, h): h.clamp(max=0), the bound on the wrong side." + _RELU_IS,
    "relu_of_negative": "Your hidden activation is relu(-h), the ReLU of the negated "
    "pre-activation (a sign slip): it keeps the negative values, flipped." + _RELU_IS,
    "abs": "Your hidden activation is |h| (torch.abs), not the ReLU." + _RELU_IS,
    "sigmoid": "Your hidden activation is a sigmoid, not the ReLU." + _RELU_IS,
    "tanh": "Your hidden activation is tanh, not the ReLU." + _RELU_IS,
    "silu": "Your hidden activation is SiLU (swish), not the ReLU." + _RELU_IS,
    "leaky_relu": "Your hidden activation is a leaky ReLU (negative slope 0.01), not the ReLU: "
    "the negative values must become 0." + _RELU_IS,
    "relu6": "Your hidden activation is ReLU6, which also caps the values at 6." + _RELU_IS,
    "clamp_0_1": "Your hidden activation also caps the values at 1, h.clamp(0, 1) (a hard "
    "sigmoid): every hidden unit above 1 is cut to 1. The ReLU has no upper bound." + _RELU_IS,
    "elu": "Your hidden activation is ELU, not the ReLU." + _RELU_IS,
    "softplus": "Your hidden activation is softplus, a smooth ReLU, not the ReLU." + _RELU_IS,
}
_GELU = (
    "You used GELU. The paper's block (and nn.TransformerEncoderLayer's default) uses ReLU; "
    "GELU is what BERT and GPT use, a fine choice, but not this contract."
)
_FFN_DROP_OUTPUT = (
    "In train mode with dropout=1.0 your output is all zeros: your dropout acts on the output "
    "of w_2. In this block it sits between the ReLU and w_2, on the d_ff-wide hidden "
    "activations (as in nn.TransformerEncoderLayer); the dropout on the block's output belongs "
    "to the encoder layer (exercise 3)."
)
_FFN_DROP_TWICE = (
    "In train mode with dropout=1.0 your output is all zeros, and so is the input of w_2: "
    "your dropout acts twice, on the hidden activations between the ReLU and w_2 (right) and "
    "once more on the output of w_2. Delete the second one: this block has one dropout, on "
    "the d_ff-wide hidden activations; the dropout on the block's output belongs to the "
    "encoder layer (exercise 3)."
)
_FFN_BIASES_TWICE = (
    "Both biases are added twice: nn.Linear already adds its bias, self.w_1(x) is "
    "x @ W_1^T + b_1, so a further + self.w_1.bias (or + self.w_2.bias) counts it again. "
    "Call the layers alone: self.w_2(self.dropout(torch.relu(self.w_1(x))))."
)
_FFN_BIAS_1_TWICE = (
    "The first bias is added twice: nn.Linear already adds its bias, self.w_1(x) is "
    "x @ W_1^T + b_1, so a further + self.w_1.bias counts it again. Call the layer alone."
)
_FFN_BIAS_2_TWICE = (
    "The second bias is added twice: nn.Linear already adds its bias, self.w_2(h) is "
    "h @ W_2^T + b_2, so a further + self.w_2.bias counts it again. Call the layer alone."
)


def _w2_input_all_zeros(module, x: torch.Tensor) -> bool:
    """Whether the input that `w_2` receives on this call is all zeros (a forward
    pre-hook; False when there is no `w_2` or the call raises)."""
    seen: list[torch.Tensor] = []
    try:
        handle = module.get_submodule("w_2").register_forward_pre_hook(
            lambda _, args: seen.append(args[0].detach()) if args else None
        )
    except Exception:
        return False
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            module(x)
    except Exception:
        return False
    finally:
        handle.remove()
    return len(seen) == 1 and torch.is_tensor(seen[0]) and not seen[0].any().item()


def _biases_doubled(p, *names: str):
    return {**p, **{f"{name}.bias": 2 * p[f"{name}.bias"] for name in names}}


_FFN_DROP_INPUT = (
    "In train mode with dropout=1.0 your result is w_2(relu(b_1)): your dropout acts on the "
    "input x, before w_1. In this block it sits between the ReLU and w_2."
)
_FFN_NO_DROP = (
    "In train mode with dropout=1.0 your block gives the same as in eval mode: its dropout is "
    f"never applied. {NEVER_IN_TRAINING} It acts on the hidden activations, between the ReLU "
    "and w_2: self.dropout (an nn.Dropout)."
)

_FFN_KEEP_PROBABILITY = (
    "In train mode yours drops nothing when built with dropout=1.0 and every hidden "
    "activation when built with dropout=0.0: the rate works backwards, as if the argument "
    "were the probability of keeping a unit (TensorFlow's keep_prob), a rate of 1 - dropout "
    "as in nn.Dropout(1 - dropout). PyTorch's dropout rate is the probability of zeroing "
    "each value: build nn.Dropout(dropout)."
)


def _keep_probability(c: Checker, cls, case: _FFNCase, x: torch.Tensor, got, p) -> str:
    """For a train-mode case with dropout 0.0 or 1.0 whose output is what the other rate
    gives (every hidden activation dropped at 0.0, none at 1.0): the same block built with
    the other rate, the same weights, does the opposite too when the rate is read as a
    keep probability, nn.Dropout(1 - dropout) (blind13g-ffn-dropout-as-keep-probability
    was told "dropout is never applied"); "" otherwise. One more module and call, made
    only for an output that the swapped rate explains."""
    if case.mode != "train" or case.dropout not in (0.0, 1.0):
        return ""
    drop = case.dropout == 1.0
    swapped = ffn_f(x, p, drop=not drop)  # (batch, len, d_model)
    if got.shape != swapped.shape or not torch.allclose(
        got.detach().double(), swapped, rtol=1e-4, atol=1e-5
    ):
        return ""
    other_rate = 1.0 - case.dropout
    other, built, _ = build(
        c,
        cls,
        case.d_model,
        case.d_ff,
        name="PositionwiseFeedForward",
        reference=ref.PositionwiseFeedForward(case.d_model, case.d_ff, other_rate),
        seed=case.seed,
        mode="train",
        dropout=other_rate,
    )
    with torch.no_grad():
        out = c.call(other, x, call_repr=f"ffn(x {tuple(x.shape)}) [{built}, train mode]")
    flipped = ffn_f(x, p, drop=drop)  # what the case's own rate should give
    if (
        isinstance(out, torch.Tensor)
        and out.shape == flipped.shape
        and torch.allclose(out.detach().double(), flipped, rtol=1e-4, atol=1e-5)
    ):
        return _FFN_KEEP_PROBABILITY
    if (
        not drop
        and isinstance(out, torch.Tensor)
        and out.shape == swapped.shape
        and torch.allclose(out.detach().double(), swapped, rtol=1e-4, atol=1e-5)
    ):  # every hidden activation zeroed at both rates (blind21b-ffn-functional-dropout-
        # training-as-p was given the largest difference alone)
        return _FFN_P_IS_ONE
    return ""


_FFN_P_IS_ONE = (
    "In train mode yours zeroes every hidden activation whether built with dropout=0.0 or "
    "with dropout=1.0 (the result is w_2's bias at both rates): its dropout runs with p = 1 "
    f"whatever the rate. {P_IS_ONE}"
)


_FFN_RESIDUAL = (
    "Your block adds its input back, x + w_2(...): the residual connection belongs to the "
    "encoder layer (exercise 3), which adds x around this whole block. The feed-forward "
    "block itself returns w_2(dropout(relu(w_1(x))))."
)
_FFN_RATE = {
    1.0: "In train mode with dropout=1.0 every hidden activation is dropped, so the result "
    "is w_2's bias, the same at every call",
    0.0: "In train mode with dropout=0.0 nothing is dropped, so the result is the same at "
    "every call",
}
_FFN_RATE_END = (
    "; yours changes from one call to the next: a dropout with another rate runs. Build the "
    "dropout from the argument, nn.Dropout(dropout), not from a fixed rate such as 0.1."
)


def check_PositionwiseFeedForward(cls, *, hidden: bool = False) -> None:
    """PositionwiseFeedForward(d_model, d_ff, dropout): w_2(dropout(relu(w_1(x))))."""
    with Checker("PositionwiseFeedForward", hidden=hidden) as c:
        c.require_callable(cls, "PositionwiseFeedForward")
        torch.manual_seed(0)
        for case in _HIDDEN_FFN if hidden else _VISIBLE_FFN:
            _check_ffn_case(c, cls, case)
        _expect_nothing_kept(c, cls, (8, 20), ffn_f, "PositionwiseFeedForward", d_model=8, seed=14)
        _expect_ffn_dropout_draw(c, cls, _HIDDEN_FFN[-1] if hidden else _VISIBLE_FFN[1])
        _expect_ffn_backward_runs(c, cls, _HIDDEN_FFN[-1] if hidden else _VISIBLE_FFN[1])


#: positions per sequence in the dropout-draw probe: enough rows that an independent
#: draw is never mistaken for whole positions zeroed
_DRAW_LENGTH = 16


def _build_ffn_in_train_mode(c: Checker, cls, case: _FFNCase):
    """The learner's block for `case`, in train mode with the case's dropout rate, its
    weights copied from the reference's: (module, built, state) as `build` returns them."""
    return build(
        c,
        cls,
        case.d_model,
        case.d_ff,
        name="PositionwiseFeedForward",
        reference=ref.PositionwiseFeedForward(case.d_model, case.d_ff, case.dropout),
        seed=case.seed,
        mode="train",
        dropout=case.dropout,
    )


def _expect_ffn_dropout_draw(c: Checker, cls, case: _FFNCase) -> None:
    """One train-mode call at a rate between 0 and 1 (case.dropout), with `w_2`'s input
    seen by a forward pre-hook: the hidden activations must be dropped entry by entry and
    the kept ones scaled by 1 / (1 - p), as nn.Dropout does. The value cases run in train
    mode only at rates 0 and 1, where a channel-wise nn.Dropout2d (whole positions
    zeroed), a mask broadcast along an axis or kept values left unscaled give the right
    values (blind21b-ffn-dropout2d-drops-positions passed every check). Silent when `w_2`
    is not called as a module (the values were checked already)."""
    module, built, state = _build_ffn_in_train_mode(c, cls, case)
    x = randn((2, _DRAW_LENGTH, case.d_model), case.seed + 3)  # (batch, len, d_model)
    w_2 = getattr(module, "w_2", None)
    if not isinstance(w_2, torch.nn.Module):
        return
    seen: list[Any] = []
    try:  # a module that takes no hooks (one that crossed the grader's boundary): no probe
        handle = w_2.register_forward_pre_hook(
            lambda _m, args: seen.append(args[0] if args else None)
        )
    except Exception:
        return
    torch.manual_seed(case.seed)
    try:
        with torch.no_grad():
            c.call(module, x, call_repr=f"ffn(x {tuple(x.shape)}) [{built}, train mode]")
    finally:
        handle.remove()
    if len(seen) != 1:
        return
    p = as_float64(state)
    hidden_before = torch.relu(linear(x, p, "w_1"))  # (batch, len, d_ff), before dropout
    problem = dropout_pattern_problem(
        hidden_before,
        seen[0],
        case.dropout,
        ("sequence", "position", "hidden unit"),
        unit="hidden activation",
        holder=module,
    )
    c.expect_true(
        not problem,
        f"the input of w_2 in {built}, train mode, for x {tuple(x.shape)} (the hidden "
        f"activations after your dropout) is not what a dropout gives. {problem}",
    )


def _expect_ffn_backward_runs(c: Checker, cls, case: _FFNCase) -> None:
    """One backward pass in train mode with a rate between 0 and 1, the only setting in
    which a dropout that works in place overwrites what the ReLU's backward needs
    (blind19e-ffn-dropout-inplace passed every check of the values)."""
    module, built, _ = _build_ffn_in_train_mode(c, cls, case)
    x = randn((case.batch, case.length, case.d_model), case.seed + 1)  # (batch, len, d_model)
    call = f"ffn(x {tuple(x.shape)}) [{built}, train mode]"
    problem = backward_problem(module, (x,), call)
    c.expect_true(not problem, problem)


_FFN_RELU_ON_INPUT = (
    "Your ReLU is applied to the block's input, before w_1 (w_1(relu(x))), instead of to "
    "w_1's output: the negative features of x are zeroed, and nothing non-linear is left "
    "between w_1 and w_2 (two linear maps in a row are one linear map). Apply it between the "
    "two: w_2(dropout(relu(w_1(x))))."
)


def _hidden_width_hint(module, x: torch.Tensor, got: Any, case: _FFNCase) -> str:
    """For an output d_ff wide, (batch, len, d_ff): whether `self.w_2` ran at all (a
    forward hook), so that a block returning its hidden activations is told so
    (blind14g-ffn-w2-never-applied was given the shapes alone); "" otherwise."""
    shape = tuple(getattr(got, "shape", ()))
    if case.d_ff == case.d_model or shape != (case.batch, case.length, case.d_ff):
        return ""
    called = called_submodules(module, ["w_2"], lambda: module(x))
    if called is None:
        return ""
    if "w_2" not in called:
        return (
            f"Yours returns d_ff = {case.d_ff} features per token, the hidden activations, and "
            "`self.w_2` is never called: the second linear layer, which maps the hidden "
            "activations back to d_model, is missing from forward: "
            "w_2(dropout(relu(w_1(x))))."
        )
    return (
        f"Yours returns d_ff = {case.d_ff} features per token, the hidden width, though "
        "`self.w_2` runs: its output is not what forward returns. The block ends with w_2, "
        "d_ff -> d_model: return w_2(dropout(relu(w_1(x))))."
    )


#: reductions over the batch axis an activation may be written as by mistake
_BATCH_REDUCTIONS = {
    "torch.max(h, 0)": lambda h: h.amax(dim=0),
    "torch.min(h, 0)": lambda h: h.amin(dim=0),
}


def _batch_axis_reduced_hint(x: torch.Tensor, got: Any, p) -> str:
    """For an output that lost the batch axis, (len, d_model) for x (batch, len, d_model):
    when it is w_2 of a maximum (or minimum) over the batch of w_1(x), the activation
    written as torch.max(h, 0), which with a number as its second argument reduces over
    that axis (blind12n-ffn-torch-max-reduces-batch was given the shapes alone); when it
    is the block on the first sequence alone, that; "" otherwise."""
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(x.shape[1:]):
        return ""
    if x.shape[0] > 1 and _same_values(got, ffn_f(x[0], p)):
        return (
            f"Yours is (len, d_model) = {tuple(got.shape)}: the block's output for the first "
            "sequence alone, x[0]; the batch axis is indexed away. Return every sequence: "
            "(batch, len, d_model), as x."
        )
    hidden = linear(x, p, "w_1")  # (batch, len, d_ff), float64
    for written, reduce in _BATCH_REDUCTIONS.items():
        if _same_values(got, linear(reduce(hidden), p, "w_2")):
            return (
                f"Yours is (len, d_model) = {tuple(got.shape)}: the batch axis is gone, reduced. "
                f"Your activation is {written}: with a number as its second argument torch.max "
                "(and torch.min) is a reduction over that axis, here the batch (dim 0), "
                "returning (values, indices), not the element-wise max(h, 0). The ReLU is "
                "torch.relu(h), h.clamp(min=0) or torch.maximum(h, torch.zeros_like(h))."
            )
    return ""


def _hidden_activation_read(module, x: torch.Tensor, p, case: _FFNCase) -> str:
    """The activation the learner's block applies between w_1 and w_2, read off what w_2
    receives against w_1(x) (recorded with a hook during one call) and named or described
    (elementwise_functions): a root, a power, a constant factor, another function; "" when
    w_2 is not called once as a module, in train mode with dropout (random zeros), or
    nothing fits (blind misses: relu(h) ** 2 was "largest difference", and so were
    sqrt(relu(h)) and relu(h) / sqrt(d_ff))."""
    if case.mode == "train" and case.dropout > 0:
        return ""
    try:
        seen = inputs_received(module, {"w_2"}, lambda: module(x))
        if len(seen) != 1 or not seen[0][2] or not torch.is_tensor(seen[0][2][0]):
            return ""
        received = seen[0][2][0].detach().double()  # (batch, len, d_ff)
        pre_activation = linear(x.detach().double(), p, "w_1")  # (batch, len, d_ff)
        if received.shape != pre_activation.shape:
            return ""
        described = described_function(pre_activation, received, right="F.relu(z)")
        rows = (
            None
            if described
            else row_scaled_function(
                pre_activation.reshape(-1, case.d_ff), received.reshape(-1, case.d_ff)
            )
        )
    except Exception:  # an explanation only: the usual message stands
        return ""
    if rows is not None:
        formula, scaling = rows
        softmax = " (a softmax over the hidden features)" if formula == "torch.exp(z)" else ""
        return (
            "What your w_2 receives is, token by token, an activation of z = w_1(x), "
            f"{formula}, {scaling}{softmax}: your hidden layer is normalised across its d_ff "
            "features, which the paper's block never does. Each hidden value is max(0, z) "
            f"on its own, whatever the other features hold. {_RELU_IS.strip()}"
        )
    if not described:
        return ""
    factor = ""
    if re.match(r"f\(z\) = [-\d.e]+ \* ", described):
        size = float(described.split()[2])
        if case.mode == "eval" and 0 < case.dropout < 1:
            for name, value in (
                ("1 - dropout", 1 - case.dropout),
                ("1 / (1 - dropout)", 1 / (1 - case.dropout)),
            ):
                if abs(size - value) < 1e-3 * value:
                    return (
                        "What your w_2 receives is an activation f of z = w_1(x), read off the "
                        f"values, and {described}: in eval mode your hidden units are scaled "
                        f"by {size:.4g} = {name} (dropout = {case.dropout:g}). nn.Dropout is "
                        "inverted dropout: it already rescales the kept units by 1 / (1 - p) "
                        "in training and is the identity in eval mode, so nothing is to be "
                        "multiplied at evaluation time: call self.dropout(h) in both modes "
                        f"and scale nothing yourself. {_RELU_IS.strip()}"
                    )
        for name, value in (
            ("1 / sqrt(d_ff)", case.d_ff**-0.5),
            ("1 / sqrt(d_model)", case.d_model**-0.5),
            ("1 / d_ff", 1 / case.d_ff),
            ("sqrt(d_ff)", case.d_ff**0.5),
            ("sqrt(d_model)", case.d_model**0.5),
        ):
            if abs(size - value) < 1e-3 * value:
                factor = f" The factor {size:.4g} is {name} (d_model = {case.d_model}, d_ff = {case.d_ff}): the paper's block scales nothing."
                break
    return (
        "What your w_2 receives is an activation f of z = w_1(x), read off the values, and "
        f"{described}: it is not the ReLU, F.relu(z) = max(0, z), unchanged (no power, root "
        f"or factor).{factor} {_RELU_IS.strip()}"
    )


def _ffn_input_hint(module, x: torch.Tensor, case: _FFNCase, state):
    """checking.hooks.last_input_hint against the reference block holding the same
    weights, in the case's mode."""
    reference = ref.PositionwiseFeedForward(case.d_model, case.d_ff, case.dropout)
    with contextlib.suppress(Exception):  # a state the reference cannot take: no weights
        reference.load_state_dict(state)
    reference.train(case.mode == "train")
    inputs = {"x, the block's input,": x}
    return last_input_hint(module, lambda: module(x), inputs, reference, lambda: reference(x))


def _check_ffn_case(c: Checker, cls, case: _FFNCase) -> None:
    x = randn((case.batch, case.length, case.d_model), case.seed + 1)
    module, built, state = build(
        c,
        cls,
        case.d_model,
        case.d_ff,
        name="PositionwiseFeedForward",
        reference=ref.PositionwiseFeedForward(case.d_model, case.d_ff, case.dropout),
        seed=case.seed,
        mode=case.mode,
        forward_args=(x,),
        dropout=case.dropout,
    )
    what = (
        f"the output of {built} in {case.mode} mode (holding the check's weights) for x "
        f"{tuple(x.shape)}"
    )
    got = c.call(
        module,
        x,
        call_repr=f"ffn(x {tuple(x.shape)}) [{built}, {case.mode} mode]",
        hints=[_ffn_input_hint(module, x, case, state)],
    )
    expect_tensor_result(
        c,
        got,
        x.shape,
        what,
        shape_hint=(
            f"Yours is 2-D, (batch * len, d_model) = {tuple(got.shape)}: the tokens were "
            "flattened into one axis and not reshaped back. nn.Linear acts on the last axis "
            "of a tensor of any shape, so no flattening is needed; return (batch, len, "
            "d_model), as x."
            if tuple(getattr(got, "shape", ())) == (case.batch * case.length, case.d_model)
            and case.batch > 1
            else _hidden_width_hint(module, x, got, case)
            or _batch_axis_reduced_hint(x, got, as_float64(state))
            or "The block maps every token d_model -> d_ff -> d_model: (batch, len, d_model)."
        ),
    )
    if case.mode == "eval" and case.dropout > 0:
        expect_deterministic_registered(
            c, module, (x,), got, f"ffn(x {tuple(x.shape)}) [{built}, eval mode]", case.dropout
        )
    p = as_float64(state)
    drop = case.mode == "train" and case.dropout == 1.0
    table: dict[str, dict[str, Any]] = {
        _NO_RELU: {"activation": "none"},
        _RELU_TWICE: {"activation": "relu_twice"},
        _GELU: {"activation": "gelu"},
        _RELU_AFTER: {"activation": "none", "after": "relu"},
        _GELU_AFTER: {"activation": "none", "after": "gelu"},
        _FFN_RESIDUAL: {"residual": True},
        **{message: {"activation": name} for name, message in _OTHER_ACTIVATION.items()},
    }
    if case.mode == "train" and case.dropout in _FFN_RATE:  # no randomness is expected
        with torch.no_grad():
            again = c.call(module, x, call_repr=f"ffn(x {tuple(x.shape)}) [{built}, train mode]")
        if torch.is_tensor(again) and not torch.equal(again, got):
            rate = _FFN_RATE[case.dropout]
            c.fail(f"{what} is not what the reference gives. {rate}{_FFN_RATE_END}")
    if inverted := _keep_probability(c, cls, case, x, got, p):
        c.fail(f"{what} is not what the reference gives. {inverted}")
    if drop:
        # all zeros out: the hidden dropout too when w_2 also reads zeros (w_2's bias makes
        # its output nonzero, so a second dropout zeroes it; blind15g-ffn-dropout-twice)
        twice = bool((got == 0).all()) and _w2_input_all_zeros(module, x)
        table |= {
            _FFN_DROP_TWICE if twice else _FFN_DROP_OUTPUT: {"drop_at": "output"},
            _FFN_DROP_INPUT: {"drop_at": "input"},
            _FFN_NO_DROP: {"drop_at": "nowhere"},
        }
    c.expect_close(
        got,
        ffn_f(x, p, drop=drop),
        what,
        **tolerance(got.dtype),
        mistakes={
            **mistake_values(lambda **k: ffn_f(x, p, drop=drop, **k), table),
            _FFN_RELU_ON_INPUT: lambda: ffn_f(torch.relu(x), p, drop=drop, activation="none"),
            _FFN_BIASES_TWICE: lambda: ffn_f(x, _biases_doubled(p, "w_1", "w_2"), drop=drop),
            _FFN_BIAS_1_TWICE: lambda: ffn_f(x, _biases_doubled(p, "w_1"), drop=drop),
            _FFN_BIAS_2_TWICE: lambda: ffn_f(x, _biases_doubled(p, "w_2"), drop=drop),
        },
        pairs=lambda: mistake_pairs(lambda **k: ffn_f(x, p, drop=drop, **k), table),
        # the activation read off what w_2 receives: a power, root, factor, other function
        explain=lambda: (
            _hidden_activation_read(module, x, p, case)
            or _last_projection_read(module, x, p, case, got)
        ),
        hint=dropout_hint(case.dropout, case.mode),
    )


def _last_projection_read(module, x: torch.Tensor, p, case: _FFNCase, got) -> str:
    """The parameters the block's last step used, when the right hidden activations
    relu(w_1(x)) through another weight or bias (or none) give the learner's output exactly
    (checking.projection_sources): w_2's bias left out (F.linear(h, self.w_2.weight)), w_1's
    weight used again, ...; "" otherwise, or where dropout acts."""
    if case.mode == "train" and case.dropout > 0:
        return ""
    try:
        hidden = torch.relu(linear(x, p, "w_1"))  # (batch, len, d_ff) float64
        found = projection_sentence(
            module, "w_2", hidden, got, result="your block's output", hidden_name="h"
        )
        # w_1's bias left out: the right last step on relu(x @ W_1.T)
        unbiased = torch.relu(x.double() @ p["w_1.weight"].double().T)  # (batch, len, d_ff)
        first_bias_unused = torch.allclose(
            got.detach().double(), linear(unbiased, p, "w_2"), rtol=1e-4, atol=1e-5
        )
    except Exception:  # an explanation only: the usual message stands
        return ""
    if found is not None:
        sentence = found[0].replace(" (h being what your own run handed the last step)", "")
        return f"With h = relu(w_1(x)), the right hidden activations, {sentence}"
    if first_bias_unused:
        return (
            "Your output is w_2(relu(x @ self.w_1.weight.T)) exactly: self.w_1.bias is never "
            "used (F.linear(x, self.w_1.weight) without the bias, or x @ W.T by hand). The "
            "first step is self.w_1(x) = x @ self.w_1.weight.T + self.w_1.bias."
        )
    return ""


def _expect_nothing_kept(
    c: Checker, cls, args: tuple, oracle, name: str, *, d_model: int, seed: int
) -> None:
    """One module called on two inputs of the same shape (every case above builds a fresh
    module and calls it once with each shape: a result cached on self, keyed by the shape,
    was accepted): the second result must be what a fresh module with the same weights
    gives. ``oracle(x, p)`` is the reference function, or None to run the reference class."""
    reference = getattr(ref, name)(*args)
    state = random_state(state_shapes(reference), seed)
    reference.load_state_dict(state)
    reference.eval()
    first = randn((2, 5, d_model), seed)  # (2, 5, d_model)
    second = randn(tuple(first.shape), seed + 1)  # (2, 5, d_model): other values
    with torch.no_grad():
        expected = (
            oracle(second.double(), as_float64(state))
            if oracle is not None
            else reference(second).double()
        )

    def build():
        module = cls(*args)
        module.load_state_dict(state)
        return module.eval()

    def same(got, want) -> bool:
        return torch.is_tensor(got) and torch.allclose(
            got.detach().double(), want, rtol=1e-4, atol=1e-5
        )

    if module_keeps_state(build, (first,), (second,), expected, same):
        call_name = {"PositionwiseFeedForward": "ffn"}.get(name, name.lower())
        built = f"{name}({', '.join(map(str, args))}), eval mode, holding the check's weights"
        c.fail(
            f"the output of {call_name}(x2 {tuple(second.shape)}) [{built}, called before "
            f"on another x of the same shape] is not what the reference gives. "
            f"{MODULE_KEPT_STATE}"
        )


# ============================================================================ EncoderLayer
@dataclass(frozen=True)
class _LayerCase:
    seed: int
    batch: int
    length: int
    d_model: int
    num_heads: int
    d_ff: int
    norm_first: bool = False
    padding: str = "none"  # "none", "right", "left", "both" (right and left in one batch)
    dropout: float = 0.0
    mode: str = "eval"


_VISIBLE_LAYER = [
    _LayerCase(21, 2, 5, 8, 2, 16),
    _LayerCase(22, 2, 6, 8, 2, 16, padding="right", dropout=0.2),
    _LayerCase(23, 2, 5, 8, 2, 12, norm_first=True, padding="left"),
    _LayerCase(24, 2, 4, 8, 2, 16, dropout=1.0, mode="train"),
    _LayerCase(25, 1, 4, 8, 2, 16, norm_first=True, dropout=1.0, mode="train"),
]
_HIDDEN_LAYER = [
    _LayerCase(121, 3, 7, 12, 3, 20, padding="both"),
    _LayerCase(122, 2, 4, 16, 4, 64, norm_first=True, dropout=0.1),
    _LayerCase(123, 2, 5, 12, 3, 24, dropout=0.0, mode="train", padding="right"),
    _LayerCase(124, 1, 6, 12, 2, 16, dropout=1.0, mode="train"),
    _LayerCase(125, 2, 3, 8, 4, 16, norm_first=True, dropout=1.0, mode="train"),
    _LayerCase(126, 3, 6, 8, 2, 8, norm_first=True, padding="both"),
]


_PARTS = {"attn": "self_attn", "ffn": "feed_forward"}  # the oracle's parts: attributes
_PART_NORMS = {"attn": "norm1", "ffn": "norm2"}

_NORMS_SWAPPED = (
    "norm1 and norm2 are swapped: your self-attention sub-layer uses norm2 and your "
    "feed-forward sub-layer norm1. norm1 belongs to the self-attention sub-layer, norm2 to "
    "the feed-forward one (the weights are loaded by these names)."
)

_ONE_NORM = (
    "You use norm1 for both sub-layers: the feed-forward sub-layer has its own LayerNorm, norm2, "
    "with its own gain and bias."
)

_FFN_FIRST = (
    "Your layer runs the feed-forward block before the self-attention: the order is "
    "self-attention first (tokens exchange information), then the feed-forward block (each "
    "token on its own)."
)


def _extra_residual_message(parts: tuple[str, ...]) -> str:
    """x + norm(x + sub(x)): a post-LN sub-layer's normalised sum added to x once more."""
    names = {"attn": ("norm1", "self_attn", "x, x, x, mask"), "ffn": ("norm2", "feed_forward", "x")}
    wrong = " and ".join(
        f"x = x + {norm}(x + dropout({attr}(...)))" for norm, attr, _ in map(names.get, parts)
    )
    norm, attr, args = names[parts[0]]
    return (
        f"Your post-LN layer adds x once more around the normalised sum, {wrong}: the "
        "residual is added twice and the layer's output is no longer normalised. In post-LN "
        f"the norm's output replaces the stream: x = {norm}(x + dropout({attr}({args})))."
    )


def _extra_residual_layer(x, p, mask, num_heads: int, parts: tuple[str, ...]) -> torch.Tensor:
    """The post-LN layer with x + norm(x + sub(x)) for the sub-layers in ``parts``, each
    sub-layer's block computed by the oracle on its own. (batch, len, d) -> the same."""
    h = x.double()
    for part, norm in (("attn", "norm1"), ("ffn", "norm2")):
        block = encoder_layer_f(
            h, p, mask, num_heads, norm_first=False, order=(part,), norms=(norm,)
        )
        h = h + block if part in parts else block
    return h


_PARALLEL = (
    "Your layer runs its two sub-layers in parallel (GPT-J's layout): the feed-forward block "
    "reads the layer's input x, as the self-attention does, and both outputs go into one "
    "residual sum under norm1, norm1(x + attn(x) + ffn(x)); norm2 is never used. The paper's "
    "layer is sequential: x = norm1(x + dropout(self_attn(x, x, x, mask))), then "
    "x = norm2(x + dropout(feed_forward(x))) on that result."
)
_MASK_IGNORED = (
    "Your layer ignores the mask: the real tokens attend to <pad> positions. Pass the mask on "
    "to the self-attention, self_attn(x, x, x, mask)."
)
_MASK_INVERTED = (
    "Your layer inverts the mask: tokens attend only to <pad> positions. In this course a mask "
    "is True where attending is allowed (lesson 06), and MultiHeadAttention takes it as it "
    "is: pass mask, not ~mask (nn.MultiheadAttention's masks mean the opposite)."
)
_BUILT_ON = (
    "EncoderLayer uses your LayerNorm and PositionwiseFeedForward from exercises 1 and 2: make "
    "sure their test cells pass first. Then check the order of the steps against the docstring."
)


# the contract's order matters: lesson 09 builds the stacks positionally (Encoder(*layers))
_BY_POSITION = (
    "Lesson 09's Transformer passes these arguments by position, Encoder(num_layers, "
    "d_model, num_heads, d_ff, dropout, norm_first, final_norm), and so do callers that "
    "follow the contract: declare them in the contract's order."
)


_MASK_ON_QUERIES = (
    "Your layer's mask blocks the padded query rows instead of the padded key columns: what "
    "it gives is the attention with the mask's last two axes exchanged, (batch, 1, len, 1) "
    "where the padding mask is (batch, 1, 1, len). The real tokens still attend to the <pad> "
    "positions, and each <pad> position's own row is blocked. The mask was turned on the way "
    "(a transpose(-1, -2), or an unsqueeze(-1) on a (batch, len) mask): pass mask to the "
    "self-attention as it is given; it broadcasts against the scores (batch, num_heads, len_q, "
    "len_k) by itself."
)


def _mask_on_queries(mask: torch.Tensor | None) -> torch.Tensor | None:
    """The padding mask (batch, 1, 1, len) with its last two axes exchanged, (batch, 1, len,
    1): it blocks the padded queries instead of the padded keys; None for no such mask."""
    if mask is None or mask.dim() != 4 or mask.shape[-2] != 1 or mask.shape[-1] == 1:
        return None
    return mask.transpose(-1, -2)


def eval_dropout_hint(module_at_rate_zero, args: tuple, got: torch.Tensor, rate: float) -> str:
    """The advice that dropout still acts in eval mode, given only where the eval-mode output
    depends on the dropout rate: ``module_at_rate_zero()`` builds the same layer with
    dropout=0.0 and the same weights, in eval mode. When it gives the same output, dropout is
    not what is wrong (blind16g-el-padding-mask-on-query-rows, a mask mistake, was told that
    dropout acts in eval mode); "" then. The advice stays when the probe cannot run."""
    advice = dropout_hint(rate, "eval")
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            other = module_at_rate_zero()
            again = other(*args)
    except Exception:
        return advice
    again = again[0] if isinstance(again, tuple) and again else again
    if (
        isinstance(again, torch.Tensor)
        and isinstance(got, torch.Tensor)
        and again.shape == got.shape
        and torch.allclose(again.detach().double(), got.detach().double(), rtol=0, atol=1e-12)
    ):
        return ""
    return advice


def _mask_one_row(
    c: Checker,
    module,
    x: torch.Tensor,
    mask: torch.Tensor | None,
    got,
    expected: torch.Tensor,
    oracle,
) -> str:
    """One sentence's padding mask given to every sentence (mask[0]), when the output is
    wrong: the module run again on a probe mask whose sentences are all padded, each
    differently (:mod:`transformer_course.checking.mask_rows`)."""
    if mask is None or not isinstance(got, torch.Tensor) or got.shape != expected.shape:
        return ""
    if torch.allclose(got.detach().double(), expected, rtol=1e-4, atol=1e-5):
        return ""

    def run(probe_mask: torch.Tensor):  # bool (batch, 1, 1, len)
        # recorded: the single-edit search must reproduce this output too
        with torch.no_grad():
            return c.probe(module, x, probe_mask)

    return one_mask_for_all(
        run, oracle, x.shape[0], x.shape[1], name="mask", attention="the self-attention"
    )


def check_EncoderLayer(cls, *, hidden: bool = False) -> None:
    """EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first): self-attention and
    feed-forward, each with a residual connection and a LayerNorm."""
    with Checker("EncoderLayer", hidden=hidden) as c:
        c.require_callable(cls, "EncoderLayer")
        torch.manual_seed(0)
        for case in _HIDDEN_LAYER if hidden else _VISIBLE_LAYER:
            try:
                _check_layer_case(c, cls, case)
            except CheckFailure as failure:
                raise _with_undropped(c, cls, case, failure) from None
        _expect_nothing_kept(c, cls, (8, 2, 16), None, "EncoderLayer", d_model=8, seed=66)
        x = randn((2, 5, 8), 61 + 100 * hidden)
        defaults = {"dropout": 0.0, "norm_first": False}
        expect_contract_defaults(c, cls, (8, 2, 16), defaults, (x,), "EncoderLayer", seed=62)
        expect_dropout_default_in_train(c, cls, (8, 2, 16), (x,), "EncoderLayer", seed=62)
        order = {"dropout": 0.0, "norm_first": True}
        expect_positional_order(
            c, cls, (8, 2, 16), order, (x,), "EncoderLayer", seed=62, caller=_BY_POSITION
        )
        expect_masks_on_every_path(c, cls, "EncoderLayer", (8, 2, 16), 8, decoder=False, seed=71)
        _expect_residual_draws(c, cls, seed=76 + 100 * hidden)


def _layer_draw_problem(
    c: Checker, cls, norm_first: bool, seed: int, *, shape_only: bool = False
) -> tuple[str, str]:
    """The layer built with dropout=0.5 in train mode and called once on a batch of 8
    sentences: (what is wrong with the draw of its residual dropout, the call in words),
    by :func:`~transformer_course.checking.residual_draws.residual_draw_problem`; ("", "")
    when it looks like nn.Dropout's or the layer cannot be built."""
    try:
        module, built, _ = build(
            c,
            cls,
            8,
            2,
            16,
            name="EncoderLayer",
            reference=ref.EncoderLayer(8, 2, 16, 0.5, norm_first),
            seed=seed,
            mode="train",
            dropout=0.5,
            norm_first=norm_first,
        )
    except CheckFailure:
        return "", ""
    x = randn((8, 5, 8), seed + 1)  # (batch, len, d_model)
    torch.manual_seed(seed)
    problem = residual_draw_problem(
        module,
        lambda: module(x),
        x,
        0.5,
        sublayers=list(_PARTS.values()),
        norms={_PARTS[k]: v for k, v in _PART_NORMS.items()},
        norm_first=norm_first,
        shape_only=shape_only,
    )
    return problem, f"layer(x {tuple(x.shape)}) [layer = {built}, train mode]"


def _with_undropped(c: Checker, cls, case: _LayerCase, failure: CheckFailure) -> CheckFailure:
    """``failure`` of a case where dropout cannot show (eval mode, or rate 0), with a
    second mistake added when the layer built with dropout=1.0 in train mode adds a
    sub-layer's output undropped (:func:`~transformer_course.checking.residual_draws.
    undropped_note`): two mistakes at once are both named."""
    if case.mode == "train" and case.dropout > 0:
        return failure
    try:
        module, _, _ = build(
            c,
            cls,
            8,
            2,
            16,
            name="EncoderLayer",
            reference=ref.EncoderLayer(8, 2, 16, 1.0, case.norm_first),
            seed=case.seed + 7,
            mode="train",
            dropout=1.0,
            norm_first=case.norm_first,
        )
    except CheckFailure:
        return failure
    x = randn((2, 4, 8), case.seed + 8)
    note = undropped_note(
        failure.message,
        module,
        lambda: module(x),
        x,
        sublayers=list(_PARTS.values()),
        norms={_PARTS[k]: v for k, v in _PART_NORMS.items()},
        norm_first=case.norm_first,
    )
    if not note:
        return failure
    return CheckFailure(failure.exercise, failure.message + note, failure.learner_traceback)


def _expect_residual_draws(c: Checker, cls, seed: int) -> None:
    """In train mode at dropout=0.5, each sub-layer's output must be dropped entry by
    entry: the value cases run in train mode only at rates 0 and 1, where a draw per
    sentence (stochastic depth) gives nn.Dropout's values."""
    for norm_first in (False, True):
        problem, call = _layer_draw_problem(c, cls, norm_first, seed)
        c.expect_true(
            not problem, f"the output of {call} is not what the reference gives. {problem}"
        )


def _built_at_rate_zero(cls, case: _LayerCase, state) -> Any:
    """The case's layer built with dropout=0.0, holding the case's weights, in eval mode."""
    module = cls(case.d_model, case.num_heads, case.d_ff, dropout=0.0, norm_first=case.norm_first)
    module.load_state_dict(state)
    return module.eval()


def _ffn_sizes_swapped(cls, case: _LayerCase, message: str) -> str | None:
    """For a float reaching a layer size while the layer is built: built again with
    dropout=0 (an int), the layer's nn.Dropout refusing the rate d_ff shows d_ff and the
    dropout rate exchanged on their way to the feed-forward block
    (blind13g-el-feed-forward-arguments-swapped); None when it does not."""
    if not (message.startswith("calling `") and "type float" in message.split("\n")[0]):
        return None
    if not dropout_refuses(cls, case, 0, case.d_ff):
        return None
    return (
        f" Built with dropout=0 instead, your layer's nn.Dropout is handed {case.d_ff}, which "
        f"is d_ff: d_ff and dropout reach the feed-forward block in swapped places, "
        "PositionwiseFeedForward(d_model, dropout, d_ff) for PositionwiseFeedForward(d_model, "
        "d_ff, dropout), so the rate became a layer size. Pass them in the order of the "
        "signature, or by keyword."
    )


def _residual_dropout_from_num_heads(c: Checker, cls, case: _LayerCase, message: str) -> str:
    """For a build whose nn.Dropout refused the rate num_heads: which dropout got it. Built
    again with one head (nn.Dropout(1) is allowed) and dropout=0.0, in train mode, a layer
    whose residual dropout got num_heads drops both sub-layers' outputs whole and gives what
    every dropout at p=1 gives; one whose attention or feed-forward got it does not (their
    dropouts act inside the block). The three were given as candidates before (the
    decoder's twin: blind16g-dl-dropout-built-with-num-heads); "" when the probe does not
    single this one out."""
    first = message.split("\n")[0]
    if case.num_heads == 1 or not (
        "probability" in first and re.search(rf"got {case.num_heads}\b", first)
    ):
        return ""
    x = randn((case.batch, case.length, case.d_model), case.seed + 1)
    _, mask = source_mask(case.batch, case.length, case.padding, case.seed + 2)
    args = (x,) if mask is None else (x, mask)
    try:
        module, _, state = build(
            c,
            cls,
            case.d_model,
            1,
            case.d_ff,
            name="EncoderLayer",
            reference=ref.EncoderLayer(case.d_model, 1, case.d_ff, 0.0, case.norm_first),
            seed=case.seed,
            mode="train",
            dropout=0.0,
            norm_first=case.norm_first,
        )
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            got = module(*args)  # (batch, len, d_model)
    except Exception:  # CheckFailure included: no evidence either way
        return ""
    got = got[0] if isinstance(got, tuple) and got else got
    dropped = encoder_layer_f(x, as_float64(state), mask, 1, norm_first=case.norm_first, drop=True)
    if not (
        isinstance(got, torch.Tensor)
        and got.shape == dropped.shape
        and torch.allclose(got.detach().double(), dropped, rtol=1e-4, atol=1e-5)
    ):
        return ""
    return (
        f"\nThe rate {case.num_heads} is num_heads. Built with num_heads=1 and dropout=0.0 "
        "instead, your layer in train mode drops both sub-layers' outputs whole, as "
        "nn.Dropout(1) does: the dropout on the sub-layers' outputs is given num_heads, "
        "nn.Dropout(num_heads) where nn.Dropout(dropout) belongs."
    )


def _norms_without_affine(cls, case: _LayerCase, message: str) -> str:
    """For a state-dict keys failure whose only wrong keys are norms' weight and bias: the
    layer constructed again (its keys read) shows norms built without a learned gain and
    bias (blind14g-el-norms-without-affine was given the missing keys alone); ""."""
    if "state-dict keys" not in message.split("\n")[0]:
        return ""
    args = (case.d_model, case.num_heads, case.d_ff)
    found = built_keys(lambda: cls(*args, dropout=case.dropout, norm_first=case.norm_first))
    if found is None:
        return ""
    expected = state_shapes(ref.EncoderLayer(*args, case.dropout, case.norm_first))
    return norms_without_affine(found, expected)


def _check_layer_case(c: Checker, cls, case: _LayerCase) -> None:
    args = (case.d_model, case.num_heads, case.d_ff)
    try:
        module, built, state = build(
            c,
            cls,
            *args,
            name="EncoderLayer",
            reference=ref.EncoderLayer(*args, case.dropout, case.norm_first),
            seed=case.seed,
            mode=case.mode,
            dropout=case.dropout,
            norm_first=case.norm_first,
        )
    except CheckFailure as failure:
        if (swapped := _ffn_sizes_swapped(cls, case, failure.message)) is not None:
            raise failure.with_cause(swapped) from None
        if (swapped := attention_arguments_swapped(cls, case, failure.message)) is not None:
            raise failure.with_cause(swapped) from None
        if rate := _residual_dropout_from_num_heads(c, cls, case, failure.message):
            raise failure.with_cause(rate) from None
        if affine := _norms_without_affine(cls, case, failure.message):
            raise CheckFailure(
                failure.exercise, failure.message + affine, failure.learner_traceback
            ) from None
        raise
    x = randn((case.batch, case.length, case.d_model), case.seed + 1)
    _, mask = source_mask(case.batch, case.length, case.padding, case.seed + 2)
    padding = PADDING_WORDS[case.padding]
    call = (
        f"layer(x {tuple(x.shape)}, mask={describe_mask(mask, padding)}) [layer = {built}, "
        f"{case.mode} mode, holding the check's weights]"
    )
    args = (x,) if mask is None else (x, mask)
    got = c.call(
        module,
        *args,
        call_repr=call,
        hints=[
            *mask_arrival_hint(module, lambda: module(*args), {"self_attn": ("mask", mask)}),
            *LAYER_HINTS,
        ],
    )
    what = f"the output of {call}"
    expect_tensor_result(
        c, got, x.shape, what, shape_hint="(batch, len, d_model), as x.", inputs={"x": x}
    )
    if case.mode == "eval" and case.dropout > 0:
        expect_deterministic_registered(c, module, args, got, call, case.dropout)
    p = as_float64(state)
    drop = case.mode == "train" and case.dropout == 1.0

    def compute(x=x, **knobs):
        knobs = {"norm_first": case.norm_first, "drop": drop, **knobs}
        return encoder_layer_f(x, p, mask, case.num_heads, **knobs)

    table = layer_mistakes(case.norm_first, drop)
    table |= {
        _NORMS_SWAPPED: {"norms": ("norm2", "norm1")},
        _ONE_NORM: {"norms": ("norm1", "norm1")},
        _FFN_FIRST: {"order": ("ffn", "attn")},
    }
    if not case.norm_first:
        table[_PARALLEL] = {"parallel": True}
    add_new(table, residual_mistakes(_PARTS, _PART_NORMS, case.norm_first))
    if drop:
        add_new(table, dropout_missing_mistakes(_PARTS, _PART_NORMS, case.norm_first))
        add_new(table, dropout_place_mistakes(_PARTS, _PART_NORMS, case.norm_first))
    if not (case.mode == "train" and case.dropout > 0):
        called = called_submodules(module, list(_PARTS.values()), lambda: module(*args))
        add_new(table, discarded_mistakes(_PARTS, _PART_NORMS, case.norm_first, called))
    add_new(table, norm_choice_mistakes(_PARTS, _PART_NORMS))
    add_new(table, placement_mistakes(_PARTS, _PART_NORMS, case.norm_first))
    if mask is not None:
        table |= {_MASK_IGNORED: {"mask_mode": "none"}, _MASK_INVERTED: {"mask_mode": "inverted"}}
    if drop:  # what eval mode rules out is no candidate (a missing residual, say)
        filtered = only_dropout_mistakes(table, module, args, compute(drop=False))
        # right in eval mode: the stream zeroed is a dropout on it (blind14g)
        table = {**filtered, **stream_dropped_entry(table, filtered)}
        # post-LN, where the stream was zeroed: the sub-layers' inputs tell (the output
        # cannot); each sub-layer reads the stream itself there
        if not case.norm_first:
            table = sublayer_inputs_agree(
                table, module, lambda: module(*args), got, compute, _PARTS, _PART_NORMS
            )

    def built_with_rate(rate: float):  # the same layer built with another rate, train mode
        other, other_built, _ = build(
            c,
            cls,
            case.d_model,
            case.num_heads,
            case.d_ff,
            name="EncoderLayer",
            reference=ref.EncoderLayer(
                case.d_model, case.num_heads, case.d_ff, rate, case.norm_first
            ),
            seed=case.seed,
            mode="train",
            dropout=rate,
            norm_first=case.norm_first,
        )
        return c.call(other, *args, call_repr=f"layer(...) [layer = {other_built}, train mode]")

    if case.mode == "train" and rate_read_backwards(
        got, case.dropout, compute(drop=True), built_with_rate
    ):
        c.fail(f"{what} is not what the reference gives. {KEEP_PROBABILITY}")

    def localise():
        # a norm built with another eps (the dropout rate as LayerNorm's eps) first: its
        # output is exactly a LayerNorm with that eps (blind14g-el-norms-eps-from-dropout was
        # told that dropout stays active in eval mode)
        return norm_eps_problem(
            module, lambda: module(*args), list(_PART_NORMS.values()), state, case.dropout
        ) or localise_layer(
            module,
            lambda: module(*args),
            x,
            sublayers=list(_PARTS.values()),
            norms={_PARTS[k]: v for k, v in _PART_NORMS.items()},
            norm_first=case.norm_first,
            arguments=(("mask", mask),),
        )

    if not (case.mode == "train" and case.dropout > 0):
        # the first sentence's mask for all (mask[0]): unpadded in the check's masks, it
        # reads as no mask at all
        one_row = _mask_one_row(
            c,
            module,
            x,
            mask,
            got,
            compute(),
            lambda m: encoder_layer_f(
                x, p, m, case.num_heads, norm_first=case.norm_first, drop=drop
            ),
        )
        if one_row:
            c.fail(f"{what} is not what the reference gives. {one_row}")

    expect_masks_on_train_path(
        c,
        got,
        compute(),
        what,
        case.mode == "train",
        cls,
        "EncoderLayer",
        (8, 2, 16),
        8,
        decoder=False,
        seed=71,
    )
    expect_composite(
        c,
        got,
        compute(),
        what,
        **tolerance(got.dtype),
        mistakes={
            **mistake_values(compute, table),
            # post-LN with x + norm(x + sub(x)) (blind15g-el-post-ln-extra-residual-around-
            # norm was told that the feed-forward does not read norm1's output)
            **(
                {
                    _extra_residual_message(parts): (
                        lambda parts=parts: _extra_residual_layer(x, p, mask, case.num_heads, parts)
                    )
                    for parts in (("attn", "ffn"), ("attn",), ("ffn",))
                }
                if not case.norm_first and not drop
                else {}
            ),
            # the pre-LN branch without its return: the post-LN layer runs on its result
            **(
                {FALLS_THROUGH: lambda: compute(x=compute(), norm_first=False)}
                if case.norm_first
                else {}
            ),
            # the padding mask blocking query rows (blind16g-el-padding-mask-on-query-rows
            # was told that dropout acts in eval mode)
            **(
                {
                    _MASK_ON_QUERIES: lambda: encoder_layer_f(
                        x, p, _mask_on_queries(mask), case.num_heads, norm_first=case.norm_first
                    )
                }
                if _mask_on_queries(mask) is not None and not drop
                else {}
            ),
        },
        localise=lambda: (
            (
                _layer_draw_problem(c, cls, case.norm_first, case.seed, shape_only=True)[0]
                if case.mode == "train" and case.dropout > 0
                else ""
            )
            or dropout_rate_problem(module, args, got, case.dropout)
            or ("" if case.mode == "train" and case.dropout > 0 else localise())
        ),
        hint=lambda: (
            (
                eval_dropout_hint(
                    lambda: _built_at_rate_zero(cls, case, state), args, got, case.dropout
                )
                if case.mode == "eval" and case.dropout > 0
                else ""
            )
            or _BUILT_ON
        ),
    )
    if drop:
        parts = {
            "self_attn": (
                (x, x, x),
                "self_attn.w_o.bias",
                "MultiHeadAttention(d_model, num_heads, dropout)",
            ),
            "feed_forward": (
                (x,),
                "feed_forward.w_2.bias",
                "PositionwiseFeedForward(d_model, d_ff, dropout)",
            ),
        }
        expect_sublayers_dropped(c, module, parts, state, f"train mode with dropout={case.dropout}")


# ================================================================================= Encoder
@dataclass(frozen=True)
class _StackCase:
    seed: int
    num_layers: int
    batch: int
    length: int
    d_model: int
    num_heads: int
    d_ff: int
    norm_first: bool = False
    final_norm: bool | None = None
    padding: str = "none"
    dropout: float = 0.0
    mode: str = "eval"


_VISIBLE_STACK = [
    # three layers: a return inside the loop (layer 0 only) and a loop that stops one layer
    # early (layers 0 and 1) give different outputs
    _StackCase(31, 3, 2, 5, 8, 2, 16, padding="right"),
    # final_norm=True on a post-LN stack before any pre-LN stack: layers that follow
    # final_norm instead of norm_first (the one in the other's slot) show here alone
    _StackCase(33, 3, 1, 4, 8, 2, 12, final_norm=True, dropout=0.1),
    _StackCase(32, 2, 2, 5, 8, 2, 16, norm_first=True, padding="left"),
    _StackCase(34, 2, 2, 4, 8, 2, 16, dropout=1.0, mode="train"),
    # an explicit final_norm=False on a pre-LN stack: no final norm (not `or norm_first`)
    _StackCase(35, 2, 2, 4, 8, 2, 16, norm_first=True, final_norm=False),
]
_HIDDEN_STACK = [
    _StackCase(131, 3, 2, 6, 12, 3, 20, norm_first=True, final_norm=False, padding="both"),
    _StackCase(132, 1, 3, 4, 8, 2, 16, final_norm=True, padding="right"),
    _StackCase(133, 4, 2, 5, 16, 4, 32, padding="right"),
    _StackCase(134, 2, 1, 5, 8, 4, 8, norm_first=True, dropout=1.0, mode="train"),
    _StackCase(135, 2, 2, 4, 12, 3, 12, dropout=0.0, mode="train"),
]

_STACK_NO_MASK = (
    "Your stack does not pass the mask on: every layer must get it, layer(x, mask); without it "
    "the real tokens attend to <pad> positions."
)
_STACK_BUILT_ON = (
    "Encoder stacks your EncoderLayer (exercise 3): make sure its test cell passes first."
)


def _mask_made_when_none(module, call, x: torch.Tensor) -> str:
    """For a stack called with mask=None: the first layer (``layers.<i>``) or self-attention
    that receives a tensor as its mask all the same, found with pre-hooks; the stack built a
    mask of its own (blind16g-enc-default-mask-batch-by-len, a (batch, len) mask of ones, was
    given the raw broadcasting error alone). "" when every mask received is None."""
    roles = {"self_attn"} | {
        name.rsplit(".", 1)[-1]
        for name, _ in module.named_modules()
        if name.startswith("layers.") and name.count(".") == 1
    }
    for name, role, args, kwargs in inputs_received(module, roles, call):
        if role == "self_attn":
            received = kwargs.get("mask", args[3] if len(args) > 3 else None)
        elif name.startswith("layers.") and name.count(".") == 1:
            received = kwargs.get("mask", args[1] if len(args) > 1 else None)
        else:
            continue
        if not isinstance(received, torch.Tensor):
            continue
        shape = tuple(received.shape)
        who = (
            "stack hands on a mask of its"
            if role != "self_attn"
            else "layers hand on a mask of their"
        )
        said = (
            f"The encoder was called with mask=None, and `{name}` received a mask of shape "
            f"{shape}: your {who} own making when mask is None. None means "
            "no mask: pass it on to every layer as it is (MultiHeadAttention takes mask=None "
            "as no mask)."
        )
        if shape == tuple(x.shape[:2]):
            said += (
                " A (batch, len) mask does not fit either: against the scores (batch, "
                "num_heads, len_q, len_k) it lines up with the last two axes, (len_q, len_k); "
                "a padding mask has the shape (batch, 1, 1, len)."
            )
        return said
    return ""


def check_Encoder(cls, *, hidden: bool = False) -> None:
    """Encoder(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)."""
    with Checker("Encoder", hidden=hidden) as c:
        c.require_callable(cls, "Encoder")
        torch.manual_seed(0)
        for case in _HIDDEN_STACK if hidden else _VISIBLE_STACK:
            _check_encoder_case(c, cls, case)
        _expect_nothing_kept(c, cls, (2, 8, 2, 16), None, "Encoder", d_model=8, seed=65)
        x = randn((2, 5, 8), 63 + 100 * hidden)
        defaults = {"dropout": 0.0, "norm_first": False, "final_norm": None}
        expect_contract_defaults(c, cls, (2, 8, 2, 16), defaults, (x,), "Encoder", seed=64)
        expect_dropout_default_in_train(c, cls, (2, 8, 2, 16), (x,), "Encoder", seed=64)
        order = {"dropout": 0.0, "norm_first": True, "final_norm": False}
        expect_positional_order(
            c, cls, (2, 8, 2, 16), order, (x,), "Encoder", seed=64, caller=_BY_POSITION
        )
        expect_masks_on_every_path(c, cls, "Encoder", (2, 8, 2, 16), 8, decoder=False, seed=72)


def _check_encoder_case(c: Checker, cls, case: _StackCase, *, probe: bool = False) -> None:
    args = (case.num_layers, case.d_model, case.num_heads, case.d_ff)
    kwargs = {"dropout": case.dropout, "norm_first": case.norm_first}
    if case.final_norm is not None:
        kwargs["final_norm"] = case.final_norm
    try:
        module, built, state = build(
            c,
            cls,
            *args,
            name="Encoder",
            reference=ref.Encoder(*args, **kwargs),
            seed=case.seed,
            mode=case.mode,
            **kwargs,
        )
    except CheckFailure as failure:
        if probe:
            raise
        if "Your stack has " in failure.message and (
            counted := layer_count_note(lambda numbers: cls(*numbers, **kwargs), args, "layers")
        ):
            raise CheckFailure(
                failure.exercise, f"{failure.message} {counted}", failure.learner_traceback
            ) from None
        raise also_wrong_besides_final_norm(
            failure,
            cls,
            case,
            _check_encoder_case,
            lambda: (randn((case.batch, case.length, case.d_model), case.seed + 1),),
        ) from None
    x = randn((case.batch, case.length, case.d_model), case.seed + 1)
    _, mask = source_mask(case.batch, case.length, case.padding, case.seed + 2)
    call = f"encoder(x {tuple(x.shape)}, mask={describe_mask(mask)}) [{stack_description(case, built)}]"
    args = (x,) if mask is None else (x, mask)
    got = c.call(
        module,
        *args,
        call_repr=call,
        hints=[
            *(
                [(Exception, lambda _exc: _mask_made_when_none(module, lambda: module(*args), x))]
                if mask is None
                else []
            ),
            *mask_arrival_hint(module, lambda: module(*args), {"self_attn": ("mask", mask)}),
            *LAYER_HINTS,
            *stack_input_hint(module, lambda: module(*args), x, case.num_layers),
        ],
    )
    what = f"the output of {call}"
    p = as_float64(state)
    drop = case.mode == "train" and case.dropout == 1.0
    final = uses_final_norm(case.norm_first, case.final_norm)
    expect_tensor_result(
        c,
        got,
        x.shape,
        what,
        shape_hint=stacked_layers_hint(
            got, tuple(x.shape), case.num_layers, "(batch, len, d_model), as x."
        ),
        inputs={"x": x},
        expected=lambda: encoder_f(
            x,
            p,
            mask,
            case.num_heads,
            case.num_layers,
            norm_first=case.norm_first,
            final=final,
            drop=drop,
        ),
        axis_names=("batch", "position", "d_model"),
        module=module,
        rerun=lambda: module(*args),
    )
    if case.mode == "train":
        # whole layers skipped while training (LayerDrop): at dropout=1.0 a pre-LN stack
        # without them gives the same output, the layers that ran tell
        if skipped := layers_skipped_in_training(module, lambda: module(*args)):
            c.fail(f"While computing {what}: {skipped}")
    if case.mode == "eval" and case.dropout > 0:
        expect_deterministic_registered(c, module, args, got, call, case.dropout)

    def compute(**knobs):
        knobs = {"norm_first": case.norm_first, "final": final, "drop": drop, **knobs}
        return encoder_f(x, p, mask, case.num_heads, case.num_layers, **knobs)

    table = stack_mistakes(case.norm_first, case.final_norm, drop=drop)
    if mask is not None:
        table[_STACK_NO_MASK] = {"mask_passed": False}

    def layer_oracle(h, i):
        return encoder_layer_f(
            h, sub(p, f"layers.{i}"), mask, case.num_heads, norm_first=case.norm_first
        )

    def localise():
        return localise_stack(
            module,
            lambda: module(*args),
            x,
            case.num_layers,
            final=(lambda t: layer_norm_f(t, sub(p, "norm"))) if final else None,
            layer_oracle=layer_oracle,
            arguments=(("mask", mask),),
        )

    if not (case.mode == "train" and case.dropout > 0):
        # one sentence's mask for every sentence, in the stack's forward (mask[:1])
        one_row = _mask_one_row(
            c,
            module,
            x,
            mask,
            got,
            compute(),
            lambda m: encoder_f(
                x,
                p,
                m,
                case.num_heads,
                case.num_layers,
                norm_first=case.norm_first,
                final=final,
                drop=drop,
            ),
        )
        if one_row:
            c.fail(f"{what} is not what the reference gives. {one_row}")

    expect_masks_on_train_path(
        c,
        got,
        compute(),
        what,
        case.mode == "train",
        cls,
        "Encoder",
        (2, 8, 2, 16),
        8,
        decoder=False,
        seed=72,
    )
    expect_composite(
        c,
        got,
        compute(),
        what,
        **tolerance(got.dtype),
        mistakes=mistake_values(compute, table),
        localise=lambda: (
            dropout_rate_problem(module, args, got, case.dropout)
            or (_mask_made_when_none(module, lambda: module(*args), x) if mask is None else "")
            or _layers_built_otherwise(cls, case, module)
            or ("" if case.mode == "train" and case.dropout > 0 else localise())
        ),
        hint=dropout_hint(case.dropout, case.mode) or _STACK_BUILT_ON,
    )


#: (num_layers, d_model, num_heads, d_ff) of the stacks built again to tell where a wrong
#: setting of a layer comes from: d_model // num_heads and num_heads differ on each
_OTHER_STACK_SIZES = ((2, 16, 2, 8), (1, 12, 3, 20))
_STACK_ARGUMENTS = ("num_layers", "d_model", "num_heads", "d_ff")


def _layers_built_otherwise(cls, case: _StackCase, module) -> str:
    """A layer whose settings (its attention's num_heads, say) are not the ones the
    stack's arguments give: one argument in another's place when the layers are built
    (checking.module_settings.wrong_setting_note)."""
    kwargs = {"dropout": case.dropout, "norm_first": case.norm_first}
    if case.final_norm is not None:
        kwargs["final_norm"] = case.final_norm
    own = (case.num_layers, case.d_model, case.num_heads, case.d_ff)
    sizes = [dict(zip(_STACK_ARGUMENTS, numbers)) for numbers in (own, *_OTHER_STACK_SIZES)]
    return wrong_setting_note(
        module,
        ref.Encoder(*own, **kwargs),
        lambda named: cls(*(named[name] for name in _STACK_ARGUMENTS), **kwargs),
        sizes,
        "EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)",
    )


# ======================================================================= concept questions
QUIZ_LAYER_NORM_AXIS = Quiz(
    name="quiz_layer_norm_axis",
    answer="b",
    choices={
        "a": "over the batch: each feature, across all sentences in the batch",
        "b": "over the features of each token: one mean and variance per (sentence, position)",
        "c": "over the positions of each sentence: each feature, across the tokens of one sentence",
        "d": "over the whole sentence: all positions and all features together",
    },
    why={
        "a": "That is BatchNorm's axis. It would mix sentences, and padded positions, into every "
        "token's statistics, and make a token's result depend on the rest of the batch.",
        "b": "Each token's d_model features get their own mean and variance, so a token's result "
        "never depends on other tokens, other sentences or padding; nn.LayerNorm(d_model) "
        "normalises the last axis.",
        "c": "That mixes positions: a token's result would depend on the length of its sentence "
        "and on its padding.",
        "d": "That is 'across channels and spatial dims', LayerNorm as used on images. In a "
        "Transformer each token is normalised separately.",
    },
    # the axis (or axes) itself, for x of shape (batch, seq_len, d_model), in place of the
    # letter (blind13g-quiz-ln-axis-returns-dim returned -1)
    meant={
        **{
            axis: ("b", f"the axis {axis}, the last one of (batch, seq_len, d_model): the features")
            for axis in (-1, 2)
        },
        **{axis: ("a", f"the axis {axis}, the batch axis") for axis in (0, -3)},
        **{axis: ("c", f"the axis {axis}, the positions") for axis in (1, -2)},
        **{
            axes: ("d", f"the axes {axes}, the positions and the features together")
            for axes in ((1, 2), (-2, -1))
        },
    },
)
check_quiz_layer_norm_axis = quiz_check(QUIZ_LAYER_NORM_AXIS)

QUIZ_FINAL_NORM = Quiz(
    name="quiz_final_norm",
    answer="c",
    choices={
        "a": "a post-LN encoder, because its residual stream grows without bound",
        "b": "neither: a final LayerNorm only slows training down",
        "c": "a pre-LN encoder, because its last layer ends with a residual sum that no "
        "LayerNorm follows",
        "d": "both need one, which is why the paper's Figure 1 shows it",
    },
    why={
        "a": "In post-LN every layer ends with a LayerNorm, so the stack's output is already "
        "normalised; a further LayerNorm changes little.",
        "b": "In pre-LN the residual stream is never normalised on its way through the stack: "
        "the final LayerNorm is what normalises the output.",
        "c": "Pre-LN layers normalise only the copy each sub-layer reads; the residual sum x + ... "
        "grows through the stack and leaves the last layer un-normalised, so the stack ends with "
        "one LayerNorm (PyTorch's nn.Transformer adds it in both modes).",
        "d": "The paper's post-LN stack has no final LayerNorm; nn.Transformer adds one to both "
        "its encoder and decoder, even in post-LN mode, which is why Encoder has final_norm.",
    },
)
check_quiz_final_norm = quiz_check(QUIZ_FINAL_NORM)


# ================================================================================ registry
LESSON = "07_encoder"
_NORM_APIS = ("torch.nn.LayerNorm", "torch.nn.functional.layer_norm", "torch.layer_norm")
_ENCODER_APIS = ("torch.nn.TransformerEncoderLayer", "torch.nn.TransformerEncoder")
EXERCISES = (
    Exercise(
        "LayerNorm",
        check_LayerNorm,
        kind="module",
        points=2,
        minutes=20,
        level=2,
        forbidden=(*_NORM_APIS, "torch.nn.GroupNorm", "torch.nn.functional.group_norm"),
    ),
    Exercise(
        "quiz_layer_norm_axis",
        check_quiz_layer_norm_axis,
        kind="quiz",
        points=1,
        minutes=3,
        level=1,
    ),
    Exercise(
        "PositionwiseFeedForward",
        check_PositionwiseFeedForward,
        kind="module",
        points=1,
        minutes=10,
        level=1,
        forbidden=_ENCODER_APIS,
    ),
    Exercise(
        "EncoderLayer",
        check_EncoderLayer,
        kind="module",
        points=3,
        minutes=30,
        level=3,
        forbidden=(*_ENCODER_APIS, *_NORM_APIS, "torch.nn.MultiheadAttention"),
    ),
    Exercise(
        "Encoder",
        check_Encoder,
        kind="module",
        points=2,
        minutes=15,
        level=2,
        forbidden=(*_ENCODER_APIS, *_NORM_APIS, "torch.nn.MultiheadAttention"),
    ),
    Exercise("quiz_final_norm", check_quiz_final_norm, kind="quiz", points=1, minutes=3, level=2),
)
