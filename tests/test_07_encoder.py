"""Lesson 07 (the encoder): classic mistakes are rejected with their own message by the
visible and the hidden checks, correct variants (including the way well-known sources
write them) pass both, and the reference agrees with PyTorch's nn.LayerNorm,
nn.TransformerEncoderLayer and nn.TransformerEncoder (weights copied, dropout off)."""

from __future__ import annotations

import copy
import functools
import math
import random
from collections import OrderedDict

import pytest
import torch
import torch.nn.functional as F
from common import (
    Correct,
    Mistake,
    copy_attention,
    copy_norm,
    lesson_tests,
    randomize,
    stack_base,
)
from torch import nn

from transformer_course.checks.encoder import (
    check_Encoder,
    check_EncoderLayer,
    check_LayerNorm,
    check_PositionwiseFeedForward,
    eval_dropout_hint,
)
from transformer_course.reference import encoder as ref
from transformer_course.reference.masking import padding_mask
from transformer_course.reference.multi_head_attention import MultiHeadAttention

pytestmark = pytest.mark.usefixtures("no_fastpath")


# ==================================================================================== LayerNorm
class LNBase(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))


def ln_class(name, normalise, base=LNBase):
    """A LayerNorm whose forward is weight * normalise(self, x) + bias."""

    def forward(self, x):
        return self.weight * normalise(self, x) + self.bias

    return type(name, (base,), {"forward": forward})


# ---------------------------------------------------------------- correct
def _var_mean(self, x):
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + self.eps)


def _rsqrt(self, x):
    mean = x.mean(-1, keepdim=True)
    centred = x - mean
    return centred * torch.rsqrt(centred.pow(2).mean(-1, keepdim=True) + self.eps)


def _float64_inside(self, x):
    x64 = x.double()
    mean = x64.mean(-1, keepdim=True)
    var = x64.var(-1, keepdim=True, correction=0)
    return ((x64 - mean) / torch.sqrt(var + self.eps)).to(x.dtype)


def _std_biased_squared(self, x):
    std = x.std(-1, keepdim=True, unbiased=False)
    return (x - x.mean(-1, keepdim=True)) / torch.sqrt(std**2 + self.eps)


class LNAnnotatedCorrected(nn.Module):
    """The Annotated Transformer's LayerNorm with its names (a_2, b_2) as this contract's
    and nn.LayerNorm's statistics: biased variance, eps inside the square root."""

    def __init__(self, features, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(features))  # a_2
        self.bias = nn.Parameter(torch.zeros(features))  # b_2
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)
        return self.weight * (x - mean) / std + self.bias


LN_CORRECT = [
    ref.LayerNorm,
    ln_class("LNVarMean", _var_mean),
    ln_class("LNRsqrt", _rsqrt),
    ln_class("LNFloat64Inside", _float64_inside),
    ln_class("LNStdSquared", _std_biased_squared),
    LNAnnotatedCorrected,
]


# ---------------------------------------------------------------- mistakes
def _unbiased(self, x):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(-1, keepdim=True) + self.eps)


def _variance_of_whole_batch(self, x):
    """One variance over every entry of x (torch.var with no dim), the mean per token: the
    same family as blind20b-ln-variance-over-whole-tensor, written another way."""
    centred = x - x.mean(-1, keepdim=True)  # (..., d_model)
    return centred / torch.sqrt(torch.var(x, correction=0) + self.eps)


def _eps_in_divisor_by_correction(self, x):
    """The variance's divisor d_model + eps (a negative correction): the family of
    blind12n-ln-eps-in-feature-count, written with torch.var."""
    centred = x - x.mean(-1, keepdim=True)  # (..., d_model)
    return centred / torch.sqrt(torch.var(x, -1, keepdim=True, correction=-self.eps))


def _variance_at_least_eps(self, x):
    """The variance floored at eps with torch.maximum: the family of
    blind12n-ln-variance-clamped-at-eps."""
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)  # (..., 1)
    return (x - mean) * torch.rsqrt(torch.maximum(var, torch.full_like(var, self.eps)))


def _eps_outside(self, x):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / (x.std(-1, keepdim=True, unbiased=False) + self.eps)


def _no_sqrt(self, x):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / (x.var(-1, keepdim=True, unbiased=False) + self.eps)


def _std_unbiased_eps_outside(self, x):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / (x.std(-1, keepdim=True) + self.eps)


def _no_eps(self, x):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / x.std(-1, keepdim=True, unbiased=False)


def _eps_dropped(self, x):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False))


class LNMeanSquaredInsteadOfDeviations(LNBase):
    """Round 31: the square put on the mean, not on the deviations: v = E[x - E[x]²] =
    E[x] - E[x]² (the family 'the variance by another formula', read back from the
    output)."""

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = (x - mean**2).mean(-1, keepdim=True)
        return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias


def _mean_absolute_deviation_squared(self, x):
    """Round 32: divides by the mean absolute deviation, a sibling of the standard
    deviation (the family 'another measure of the spread', read back on a probe)."""
    mean = x.mean(-1, keepdim=True)
    spread = (x - mean).abs().mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(spread**2 + self.eps)


def _half_range(self, x):
    """Round 32: divides by half the range of the token's values."""
    mean = x.mean(-1, keepdim=True)
    spread = (x.amax(-1, keepdim=True) - x.amin(-1, keepdim=True)) / 2
    return (x - mean) / torch.sqrt(spread**2 + self.eps)


def _median_centred(self, x):
    """Round 32: centres on the median (x.median), the variance right (the family 'another
    centre than the mean')."""
    centre = x.median(-1, keepdim=True).values
    return (x - centre) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)


def _midrange_centred(self, x):
    """Round 32: centres on (max + min) / 2."""
    centre = (x.amax(-1, keepdim=True) + x.amin(-1, keepdim=True)) / 2
    return (x - centre) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)


def _variance_minus_absolute_mean(self, x):
    """Round 32: E[x²] - |E[x]|, an absolute value where the square belongs."""
    mean = x.mean(-1, keepdim=True)
    var = (x**2).mean(-1, keepdim=True) - mean.abs()
    return (x - mean) / torch.sqrt(var + self.eps)


def _variance_floored_at_one(self, x):
    """Round 32: the variance clamped to at least 1 (a floor on the statistic)."""
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, unbiased=False).clamp(min=1.0)
    return (x - mean) / torch.sqrt(var + self.eps)


def _std_floored(self, x):
    """Round 32: the standard deviation clamped to at least 0.8, eps left out."""
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / x.std(-1, keepdim=True, unbiased=False).clamp(min=0.8)


class LNFixedEps(LNBase):
    """Stores BERT's 1e-12 and ignores the eps argument (blind7b-ln-eps-argument-ignored;
    before: "no eps" or "a wrong default", not that the argument is unused)."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        self.eps = 1e-12

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias


def _root_mean_square(self, x):
    """T5's 'LayerNorm': no mean subtracted (blind7b-ln-no-centering-t5-style; before: the
    formula restated)."""
    return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


def _over(dims):
    def normalise(self, x):
        mean = x.mean(dims, keepdim=True)
        return (x - mean) / torch.sqrt(x.var(dims, keepdim=True, unbiased=False) + self.eps)

    return normalise


class LNAnnotated(nn.Module):
    """The Annotated Transformer's LayerNorm, names changed to weight/bias: x.std(-1) is the
    unbiased std, eps is added outside the square root, and its default eps is 1e-6."""

    def __init__(self, features, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(features))
        self.bias = nn.Parameter(torch.zeros(features))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.weight * (x - mean) / (std + self.eps) + self.bias


class LNNoGain(LNBase):
    def forward(self, x):
        return _var_mean(self, x) + self.bias


class LNNoBiasUsed(LNBase):
    def forward(self, x):
        return self.weight * _var_mean(self, x)


class LNNoBiasParameter(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        return self.weight * _var_mean(self, x)


class LNNoParameters(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return _var_mean(self, x)


class LNSwapped(LNBase):
    def forward(self, x):
        return self.bias * _var_mean(self, x) + self.weight


class LNEpsIgnored(LNBase):
    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        return (
            self.weight * (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + 1e-5)
            + self.bias
        )


class LNDefaultEps1e6(LNBase):
    def __init__(self, d_model, eps=1e-6):
        super().__init__(d_model, eps)

    forward = ln_class("_", _var_mean).forward


class LNBuffers(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", torch.ones(d_model))
        self.register_buffer("bias", torch.zeros(d_model))

    forward = ln_class("_", _var_mean).forward


class LNFormulaWithoutAffine(LNBase):
    """Builds weight and bias, normalises by hand and never applies them (the family of
    blind21b-ln-functional-without-affine): a fresh layer is right, no gradient reaches
    the parameters."""

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        variance = x.var(dim=-1, unbiased=False, keepdim=True)
        return (x - mean) / torch.sqrt(variance + self.eps)


class LNUnderNoGrad(LNBase):
    """Uses its parameters, under torch.no_grad(): cut off, though they have an effect."""

    def forward(self, x):
        with torch.no_grad():
            return ln_class("_", _var_mean).forward(self, x)


class LNRandomInit(LNBase):
    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        self.weight = nn.Parameter(torch.randn(d_model))

    forward = ln_class("_", _var_mean).forward


class LNGammaBeta(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.gamma = nn.Parameter(torch.ones(d_model))
        self.beta = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        return self.gamma * _var_mean(self, x) + self.beta


class LNNotImplemented(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        raise NotImplementedError()


class LNComputesInFloat32(LNBase):
    """Casts x to float32 for stability and never back (blind6b-ln-float32-upcast; no
    float64 input was checked before)."""

    def forward(self, x):
        x = x.float()
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
        return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias


# formula slips (blind9d-ln-variance-uncentred, blind9d-ln-squares-instead-of-root,
# mutant-LayerNorm-1, -10, -11; before: "differs from the reference: largest difference")
def _variance_uncentred(self, x):
    return (x - x.mean(-1, keepdim=True)) / torch.sqrt((x * x).mean(-1, keepdim=True) + self.eps)


def _squared_not_root(self, x):
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / (var + self.eps) ** 2


def _eps_subtracted(self, x):
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var - self.eps)


def _numerator_uncentred(self, x):
    var = x.var(-1, keepdim=True, unbiased=False)
    return x / torch.sqrt(var + self.eps)


class LNGainOverCentred(LNBase):
    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
        return self.weight / (x - mean) / torch.sqrt(var + self.eps) + self.bias


class LNGainDivides(LNBase):
    def forward(self, x):
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
        return (x - mean) / torch.sqrt(var + self.eps) / self.weight + self.bias


class LNGainFirst(LNBase):
    def forward(self, x):
        x = x * self.weight
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
        return (x - mean) / torch.sqrt(var + self.eps) + self.bias


class LNAffineFirst(LNBase):
    """weight * x + bias first, then normalised (blind10g-ln-affine-before-normalising;
    before: the contract's formula restated)."""

    def forward(self, x):
        x = self.weight * x + self.bias
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
        return (x - mean) / torch.sqrt(var + self.eps)


class LNUnitL2(LNBase):
    """The centred x divided by its L2 norm, F.normalize (blind10g-ln-unit-l2-norm; before:
    told only that its eps argument is ignored)."""

    def forward(self, x):
        unit = torch.nn.functional.normalize(x - x.mean(dim=-1, keepdim=True), dim=-1)
        return self.weight * unit + self.bias


class LNParametersThreeD(LNBase):
    """weight and bias of shape (1, 1, d_model) (blind9d-ln-parameters-3d; before: told
    "a plain tensor attribute is not part of the state dict")."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        self.weight = nn.Parameter(torch.ones(1, 1, d_model))
        self.bias = nn.Parameter(torch.zeros(1, 1, d_model))

    forward = ln_class("_", _var_mean).forward


def _var_mean_unpacked_reversed(self, x):  # round 10, blind10d-ln-var-mean-unpacked-reversed
    mean, var = torch.var_mean(x, dim=-1, keepdim=True)  # returns (var, mean); unbiased
    return (x - mean) / torch.sqrt(var + self.eps)


def _var_mean_unpacked_reversed_biased(self, x):
    mean, var = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
    return (x - mean) / torch.sqrt(var + self.eps)


class LNBiasSubtracted(LNBase):  # mutant-LayerNorm-13's kind: + self.bias -> - self.bias
    def forward(self, x):
        mean, var = x.mean(-1, keepdim=True), x.var(-1, keepdim=True, unbiased=False)
        return self.weight * (x - mean) / torch.sqrt(var + self.eps) - self.bias


class LNEpsAfterTheDivision(LNBase):
    """`* rsqrt(var) + eps`: eps added after the division (a misplaced bracket). Built with
    eps=1e-5 given explicitly it gives what it gives by default, so "your default eps is not
    1e-5" is no candidate (before: named as one of two)."""

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return self.weight * (x - mean) * torch.rsqrt(var) + self.eps + self.bias


class LNVarianceRoundedDown(LNBase):
    """The variance divided with rounding_mode="floor": a whole number, 0 below 1."""

    def forward(self, x):
        centred = x - x.mean(-1, keepdim=True)
        var = centred.pow(2).sum(-1, keepdim=True).div(x.size(-1), rounding_mode="floor")
        return self.weight * centred / (var + self.eps).sqrt() + self.bias


class LNEpsInTheNumerator(LNBase):
    """(x - mean + eps) / sqrt(var): eps on the wrong side of the division (before: the
    fallback, "differs from the reference")."""

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return self.weight * (x - mean + self.eps) / torch.sqrt(var) + self.bias


class LNBiasInsideGain(LNBase):
    """weight * (normalised + bias): the bias scaled by the gain (before: the fallback,
    "differs from the reference")."""

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        return self.weight * ((x - mean) / torch.sqrt(var + self.eps) + self.bias)


class LNBiasTimesGain(LNBase):
    """weight * normalised + weight * bias: the same function written out, the same family
    (the affine steps in another order)."""

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        normalised = (x - mean) / torch.sqrt(var + self.eps)
        return self.weight * normalised + self.weight * self.bias


class LayerPreAttentionSandwiched(ref.EncoderLayer):
    """Pre-LN: the attention's output normalised again by norm1 before the residual
    (post-LN is the reference's); lesson 11's DecoderBlock got "no residual" for it."""

    def forward(self, x, mask=None):
        if not self.norm_first:
            return super().forward(x, mask)
        h = self.norm1(x)
        x = x + self.dropout(self.norm1(self.self_attn(h, h, h, mask)[0]))
        return x + self.dropout(self.feed_forward(self.norm2(x)))


class LayerPostNormalisesTwiceAtTheEnd(ref.EncoderLayer):
    """Post-LN returning norm2(norm2(x + feed_forward(x))): the last norm run once more
    (before: "does not return the last norm's output")."""

    def forward(self, x, mask=None):
        out = super().forward(x, mask)
        return out if self.norm_first else self.norm2(out)


# the variance as E[x^2] - E[x]^2: right on paper, it cancels in float32 on tokens whose
# mean is large next to their spread (the class of blind12n-ln-variance-from-second-moment,
# accepted before: every case's tokens had means near 0; this was a correct variant then)
def _moments(self, x):
    mean = x.mean(-1, keepdim=True)
    var = (x * x).mean(-1, keepdim=True) - mean**2
    return (x - mean) / (var + self.eps).sqrt()


def _sum_of_squares(self, x):
    n = x.shape[-1]
    mean = x.sum(-1, keepdim=True) / n
    std = torch.sqrt(x.pow(2).sum(-1, keepdim=True) / n - mean.pow(2) + self.eps)
    return (x - mean) / std


class LNFunctionalLastTwoAxes(LNBase):
    """F.layer_norm over the last two axes, x.shape[-2:] (the class of
    blind19e-ln-functional-normalized-shape-all-but-batch, told the raw error alone)."""

    def forward(self, x):
        return F.layer_norm(x, x.shape[-2:], self.weight, self.bias, self.eps)


def _mean_absolute_deviation(self, x):  # the family of blind17g-ln-mean-absolute-deviation
    mean = x.mean(-1, keepdim=True)
    spread = torch.abs(x - mean).sum(-1, keepdim=True) / x.shape[-1]
    return (x - mean) / torch.sqrt(spread + self.eps)


LN_MISTAKES = [
    Mistake(
        check_LayerNorm,
        ln_class("LNMeanAbsoluteDeviation", _mean_absolute_deviation),
        r"Your spread is the mean absolute deviation",
    ),
    Mistake(
        check_LayerNorm,
        LNFunctionalLastTwoAxes,
        r"normalized_shape names the trailing axes.*asks for the last 2 axes of x at once "
        r"\(positions and features together.*normalized_shape should be \(d_model,\)",
    ),
    *(
        Mistake(
            check_LayerNorm,
            ln_class(name, normalise),
            r"every token's mean large next to its spread.*The same module in float64 gives "
            r"the right result.*variance computed as E\[x²\] - E\[x\]², the mean of the "
            r"squares minus the squared mean.*cancels catastrophically",
        )
        for name, normalise in (("LNMoments", _moments), ("LNSumOfSquares", _sum_of_squares))
    ),
    Mistake(
        check_LayerNorm,
        LNBiasInsideGain,
        r"You add the bias before multiplying by the gain, self\.weight \* \(normalised \+ "
        r"self\.bias\)",
    ),
    Mistake(check_LayerNorm, LNBiasTimesGain, r"You add the bias before multiplying by the gain"),
    # the output the reference's times one constant: said as the diagnosis it is
    Mistake(
        check_LayerNorm,
        ln_class(
            "LNSumOfSquaresOverBatchSize",
            lambda self, x: (
                (x - x.mean(-1, keepdim=True))
                / torch.sqrt(
                    ((x - x.mean(-1, keepdim=True)) ** 2).sum(-1, keepdim=True) / x.shape[0]
                    + self.eps
                )
            ),
        ),
        r"is not what the reference gives\. Yours is the reference's normalised x times "
        r"[0-9.]+ on every token: you divide by another measure of the spread",
    ),
    Mistake(
        check_LayerNorm,
        LNEpsAfterTheDivision,
        r"(?s)\A(?!.*default eps is not)(?=.*Your eps is added to the normalised result "
        r"instead of to the variance: built with eps=0\.5)",
    ),
    Mistake(
        check_LayerNorm,
        LNVarianceRoundedDown,
        r"Your variance is rounded down to a whole number: floor division",
    ),
    Mistake(
        check_LayerNorm,
        LNEpsInTheNumerator,
        r"(?s)\A(?!.*default eps is not)(?=.*You add eps to the numerator, "
        r"\(x - mean \+ eps\) / sqrt\(var\))",
    ),
    Mistake(
        check_LayerNorm,
        ln_class(
            "LNEpsAfterTheBias",
            lambda self, x: (
                (x - x.mean(-1, keepdim=True)) / x.std(-1, keepdim=True, correction=0)
                + self.eps / self.weight
            ),
        ),
        # eps added after the division (and after the bias): with the fresh weight of ones
        # the eps=0.5 probe shows the shift
        r"(?s)\A(?!.*default eps is not)(?=.*(You divide by sqrt\(var\) with no eps|Your eps "
        r"is added to the normalised result))",
    ),
    # round 10: NaN (a negative "variance") was all the learner was told
    Mistake(
        check_LayerNorm,
        ln_class("LNVarMeanReversed", _var_mean_unpacked_reversed),
        r"Your mean and variance are exchanged.*torch\.var_mean returns \(variance, mean\).* "
        r"And the variance is the unbiased one",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNVarMeanReversedBiased", _var_mean_unpacked_reversed_biased),
        r"Your mean and variance are exchanged.*in that order\.$",
    ),
    Mistake(check_LayerNorm, LNBiasSubtracted, r"You subtract the bias"),
    Mistake(
        check_LayerNorm,
        LNMeanSquaredInsteadOfDeviations,
        r"the v you divide by is (E\[x\] - E\[x\]²|-E\[x\]² \+ E\[x\]) on every token",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNMeanAbsoluteDeviationSquared", _mean_absolute_deviation_squared),
        r"you divide by the mean absolute deviation",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNHalfRange", _half_range),
        r"you divide by 0\.5 times the range of the token's values",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNMedianCentred", _median_centred),
        r"with c the median, x\.median\(dim=-1\).*the v under the root is the variance",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNVarianceFlooredAtOne", _variance_floored_at_one),
        r"the variance clamped to at least 1, var\.clamp\(min=1\)",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNStdFloored", _std_floored),
        r"the variance clamped to at least 0\.64",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNMidrangeCentred", _midrange_centred),
        r"with c the midrange, \(max \+ min\) / 2",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNVarianceMinusAbsoluteMean", _variance_minus_absolute_mean),
        r"the v you divide by is E\[x²\] - \|E\[x\]\| on every token",
    ),
    Mistake(
        check_LayerNorm,
        LNParametersThreeD,
        r"^(?![\s\S]*plain tensor)[\s\S]*weight has shape \(1, 1, \d+\), expected \(\d+,\)\. "
        r"Give weight and bias one entry per feature",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNVarianceUncentred", _variance_uncentred),
        r"Your variance is the mean of x² \(the second moment around 0",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNSquaredNotRoot", _squared_not_root),
        r"divide by the square of \(var \+ eps\)",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNEpsSubtracted", _eps_subtracted),
        r"subtract eps from the variance",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNNumeratorUncentred", _numerator_uncentred),
        r"you divide x itself, not x - mean",
    ),
    Mistake(check_LayerNorm, LNGainOverCentred, r"divide the gain by the centred x"),
    Mistake(check_LayerNorm, LNGainDivides, r"divide the normalised x by self\.weight"),
    Mistake(check_LayerNorm, LNGainFirst, r"multiply x by self\.weight before taking the mean"),
    Mistake(
        check_LayerNorm,
        LNAffineFirst,
        r"apply the gain and the bias to x before normalising it(?![\s\S]*eps)",
    ),
    Mistake(
        check_LayerNorm,
        LNUnitL2,
        r"is not what the reference gives\. Yours is the reference.s normalised x times 0\.\d+ = "
        r"1/sqrt\(d_model\).{0,200}L2 norm",
    ),
    Mistake(check_LayerNorm, LNComputesInFloat32, r"returns float32 for a float64 x"),
    Mistake(check_LayerNorm, ln_class("LNUnbiased", _unbiased), r"unbiased variance"),
    Mistake(
        check_LayerNorm, ln_class("LNEpsOutside", _eps_outside), r"eps outside the square root"
    ),
    Mistake(check_LayerNorm, LNAnnotated, r"unbiased"),
    Mistake(
        check_LayerNorm,
        ln_class("LNEpsInDivisorByCorrection", _eps_in_divisor_by_correction),
        r"You add eps to the feature count that divides the sum of squared deviations",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNVarianceAtLeastEps", _variance_at_least_eps),
        r"You clamp the variance at eps, sqrt\(max\(var, eps\)\)",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNVarianceOfWholeBatch", _variance_of_whole_batch),
        r"takes the variance \(`var`\) over the whole tensor .* instead of along the last axis",
    ),
    Mistake(check_LayerNorm, ln_class("LNNoSqrt", _no_sqrt), r"not by its square root"),
    # both Annotated differences with this contract's eps: the first case (a token with a
    # tiny spread) tells them from the unbiased variance alone, and says it once
    Mistake(
        check_LayerNorm,
        ln_class("LNStdUnbiasedEpsOutside", _std_unbiased_eps_outside),
        r"^(?![\s\S]*(cannot tell them apart|\(2\)))[\s\S]*\(std \+ eps\) with the unbiased std",
    ),
    Mistake(check_LayerNorm, ln_class("LNNoEps", _no_eps), r"with no eps"),
    # eps dropped from the formula (mutant-LayerNorm-9; before: "ignores its eps argument
    # ... no eps, or a fixed tiny one"): the variance-0 token tells it from a fixed eps
    Mistake(
        check_LayerNorm,
        ln_class("LNEpsDroppedFromFormula", _eps_dropped),
        r"^(?![\s\S]*ignores its eps argument)[\s\S]*You divide by sqrt\(var\) with no eps",
    ),
    # (x + mean) (mutant-LayerNorm-8; before: "differs from the reference" and the formula)
    Mistake(
        check_LayerNorm,
        ln_class(
            "LNAddsMean",
            lambda self, x: (
                (x + x.mean(-1, keepdim=True))
                / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)
            ),
        ),
        r"You added the mean, x \+ mean, where it is subtracted",
    ),
    Mistake(
        check_LayerNorm,
        LNFixedEps,
        r"^(?![\s\S]*with no eps)[\s\S]*ignores its eps argument.*Built with eps=0\.5, yours "
        r"gives exactly what it gives[\s\S]*a fixed tiny eps of its own",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNRootMeanSquare", _root_mean_square),
        r"without subtracting their mean first: that is RMSNorm",
    ),
    Mistake(check_LayerNorm, ln_class("LNOverSequence", _over(-2)), r"positions of the sequence"),
    Mistake(check_LayerNorm, ln_class("LNOverBatch", _over((0, 1))), r"BatchNorm's statistics"),
    Mistake(check_LayerNorm, ln_class("LNOverAxis0", _over(0)), r"over dim=0 of x's \d axes"),
    Mistake(
        check_LayerNorm,
        ln_class(
            "LNDividesByRsqrt",
            lambda self, x: (
                (x - x.mean(-1, keepdim=True))
                / torch.rsqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)
            ),
        ),
        r"multiplied \(x - mean\) by the standard deviation instead of dividing",
    ),
    Mistake(
        check_LayerNorm,
        ln_class(
            "LNMeanOverPositions",
            lambda self, x: (
                (x - x.mean(-2, keepdim=True))
                / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)
            ),
        ),
        r"Your mean is taken over dim=\d while the variance is over the features",
    ),
    # the reverse (mutant-LayerNorm-6; before: "differs from the reference" and the formula)
    Mistake(
        check_LayerNorm,
        ln_class(
            "LNVarianceOverPositions",
            lambda self, x: (
                (x - x.mean(-1, keepdim=True))
                / torch.sqrt(x.var(-2, keepdim=True, unbiased=False) + self.eps)
            ),
        ),
        r"Your variance is taken over dim=\d \(dim=-2\) while the mean is over the features",
    ),
    Mistake(
        check_LayerNorm,
        ln_class(
            "LNNoKeepdim",
            lambda self, x: (x - x.mean(-1)) / torch.sqrt(x.var(-1, unbiased=False) + self.eps),
        ),
        r"most likely a mean or variance taken without keepdim=True",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNOverWholeSequence", _over((-2, -1))),
        r"whole sequence at once.*channels and spatial dims",
    ),
    Mistake(check_LayerNorm, ln_class("LNDimTwo", _over(2)), r"any number of leading axes"),
    Mistake(check_LayerNorm, LNNoGain, r"lacks the gain"),
    Mistake(check_LayerNorm, LNNoBiasUsed, r"lacks the bias"),
    Mistake(check_LayerNorm, LNNoBiasParameter, r"missing: \['bias'\]"),
    Mistake(check_LayerNorm, LNNoParameters, r"a plain tensor attribute is not part"),
    Mistake(check_LayerNorm, LNSwapped, r"gain and bias are swapped"),
    Mistake(check_LayerNorm, LNEpsIgnored, r"ignores its eps argument"),
    Mistake(check_LayerNorm, LNDefaultEps1e6, r"default eps is not 1e-5"),
    Mistake(check_LayerNorm, LNBuffers, r"requires_grad is False.*nn.Parameter"),
    # round 24: a result that no parameter has any effect on is told so (the parameters
    # changed, the result the same), not asked about torch.no_grad
    Mistake(
        check_LayerNorm,
        LNFormulaWithoutAffine,
        r"does not depend on the module's parameters\. Its parameters have no effect: "
        r"changing self\.weight and self\.bias leaves the result exactly as it was",
    ),
    Mistake(
        check_LayerNorm,
        LNUnderNoGrad,
        r"^(?![\s\S]*have no effect)[\s\S]*requires_grad is False\)\. Did you use "
        r"torch\.no_grad\(\)",
    ),
    Mistake(check_LayerNorm, LNRandomInit, r"weight all ones and bias all zeros"),
    Mistake(check_LayerNorm, LNGammaBeta, r"Annotated Transformer calls them a_2 and b_2"),
    Mistake(check_LayerNorm, LNNotImplemented, r"not implemented yet"),
]


# ====================================================================== PositionwiseFeedForward
class FFNBase(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)


def ffn_class(name, forward, base=FFNBase):
    return type(name, (base,), {"forward": forward})


class FFNHiddenKeptByShape(FFNBase):
    """Round 32: the hidden layer cached on self while the input's shape stays the same
    (state kept across calls; each case of the check calls a fresh module once)."""

    def forward(self, x):
        if getattr(self, "_hidden", None) is None or self._hidden.shape[:-1] != x.shape[:-1]:
            self._hidden = torch.relu(self.w_1(x))
        return self.w_2(self.dropout(self._hidden))


class EncoderOutputsByShape(ref.Encoder):
    """Round 32: the stack's outputs kept in a dict keyed by the input's shape."""

    def forward(self, x, mask=None):
        memo = self.__dict__.setdefault("_memo", {})
        key = (tuple(x.shape), None if mask is None else tuple(mask.shape))
        if key not in memo:
            memo[key] = super().forward(x, mask)
        return memo[key]


class LayerAttentionKeptByShape(ref.EncoderLayer):
    """Round 32: the self-attention's output cached on self while the shape stays the same."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return super().forward(x, mask)
        if getattr(self, "_attended", None) is None or self._attended.shape != x.shape:
            self._attended = self.self_attn(x, x, x, mask)[0]
        x = self.norm1(x + self.dropout(self._attended))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class FFNFirstLinearBuiltInForward(nn.Module):
    """w_2 built in __init__, but w_1 rebuilt in forward at every call: the family of
    blind20b-ffn-layers-rebuilt-in-forward, one layer of the two."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.sizes = (d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        self.w_1 = nn.Linear(*self.sizes)
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


class FFNReLUClass(FFNBase):
    """self.relu = nn.ReLU, the class, then self.relu(h) (blind10g-ffn-relu-class-not-
    instance; before: the raw TypeError only)."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.relu = nn.ReLU

    def forward(self, x):
        return self.w_2(self.dropout(self.relu(self.w_1(x))))


class FFNFlattened(FFNBase):
    """The tokens flattened to (batch * len, d_model) and never reshaped back
    (blind10g-ffn-flattened-never-reshaped-back; before: the contract's shape restated)."""

    def forward(self, x):
        x = x.reshape(-1, x.shape[-1])
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


class FFNSequential(nn.Sequential):
    """nn.Sequential with named parts: its state-dict keys are w_1.* and w_2.*, as the
    contract asks (numbered parts would give 0.weight, 3.weight, which do not load)."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(
            OrderedDict(
                w_1=nn.Linear(d_model, d_ff),
                relu=nn.ReLU(),
                dropout=nn.Dropout(dropout),
                w_2=nn.Linear(d_ff, d_model),
            )
        )


class FFND2L(nn.Module):
    """d2l's PositionWiseFFN (dense1, ReLU, dense2), with this contract's names and the
    dropout between the two layers (d2l applies it in AddNorm instead)."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(dropout)
        self.w_2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        return self.w_2(self.dropout(self.relu(self.w_1(x))))


class FFNFunctionalDropout(FFNBase):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.p = dropout

    def forward(self, x):
        return self.w_2(F.dropout(F.relu(self.w_1(x)), self.p, training=self.training))


class FFNReLUInPlace(FFND2L):
    """nn.ReLU(inplace=True) on w_1's output: Linear's backward does not read its output,
    so overwriting it is safe, and the backward pass runs."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.relu = nn.ReLU(inplace=True)


class FFNFunctionalDropoutInPlace(FFNFunctionalDropout):
    """F.dropout(..., inplace=True) on the ReLU's output, which ReLU's backward needs: the
    values are right, the backward pass raises (the class of blind19e-ffn-dropout-inplace,
    accepted before)."""

    def forward(self, x):
        hidden = F.relu(self.w_1(x))  # (batch, len, d_ff)
        return self.w_2(F.dropout(hidden, self.p, training=self.training, inplace=True))


FFN_CORRECT = [
    ref.PositionwiseFeedForward,
    FFNReLUInPlace,
    FFNSequential,
    FFND2L,
    FFNFunctionalDropout,
    ffn_class("FFNClamp", lambda self, x: self.w_2(self.dropout(self.w_1(x).clamp(min=0)))),
    ffn_class(  # ReLU and inverted dropout commute: relu(drop(h)) == drop(relu(h))
        "FFNDropoutBeforeRelu", lambda self, x: self.w_2(torch.relu(self.dropout(self.w_1(x))))
    ),
    ffn_class(
        "FFNEinsum",
        lambda self, x: (
            torch.einsum(
                "...f,df->...d",
                self.dropout(
                    torch.relu(torch.einsum("...d,fd->...f", x, self.w_1.weight) + self.w_1.bias)
                ),
                self.w_2.weight,
            )
            + self.w_2.bias
        ),
    ),
]


class FFNAlwaysDropout(FFNBase):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.p = dropout

    def forward(self, x):
        return self.w_2(F.dropout(torch.relu(self.w_1(x)), self.p))  # training=True always


class FFNDropout1d(FFNBase):
    """A channel-wise dropout: on (batch, len, d_ff) nn.Dropout1d reads the positions as
    channels and zeroes whole positions (the family of blind21b-ffn-dropout2d-drops-
    positions)."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.dropout = nn.Dropout1d(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


class FFNMaskSharedOverBatch(FFNBase):
    """A hand-made dropout whose mask is drawn once, (len, d_ff), for every sequence."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.p = dropout

    def forward(self, x):
        hidden = torch.relu(self.w_1(x))  # (batch, len, d_ff)
        if self.training and self.p > 0:
            keep = (torch.rand(hidden.shape[1:]) >= self.p).to(hidden.dtype)  # (len, d_ff)
            hidden = hidden * keep * (1 / (1 - self.p) if self.p < 1 else 0.0)
        return self.w_2(hidden)


class FFNDropoutUnscaled(FFNBase):
    """A hand-made dropout that zeroes units but does not divide the kept ones by 1 - p."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.p = dropout

    def forward(self, x):
        hidden = torch.relu(self.w_1(x))  # (batch, len, d_ff)
        if self.training:
            hidden = hidden * (torch.rand_like(hidden) >= self.p)
        return self.w_2(hidden)


class FFNRateWrittenAsOne(FFNBase):
    """The dropout built with a rate of 1 instead of the argument: right in eval mode and
    at dropout=1.0, every hidden activation zeroed at any other rate in train mode."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.dropout = nn.Dropout(1.0)

    def forward(self, x):
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


class FFNFourTimes(FFNBase):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, 4 * d_model, dropout)

    def forward(self, x):
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


class FFNNumberedSequential(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_model, d_ff), nn.ReLU(), nn.Dropout(dropout), nn.Linear(d_ff, d_model)
        )

    def forward(self, x):
        return self.net(x)


class FFNTorchNames(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(torch.relu(self.linear1(x))))


class FFNSecondLayerConv(FFNBase):
    """w_2 a convolution over the positions (kernel 5): the family of
    blind26b-ffn-first-layer-kernel-three, on the other layer and another kernel."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.w_2 = nn.Conv1d(d_ff, d_model, kernel_size=5, padding=2)

    def forward(self, x):
        hidden = self.dropout(torch.relu(self.w_1(x)))  # (batch, len, d_ff)
        return self.w_2(hidden.transpose(1, 2)).transpose(1, 2)  # (batch, len, d_model)


class FFNReLUSquaredByProduct(FFNBase):
    """Round 31: the ReLU's output multiplied by itself (a squared ReLU)."""

    def forward(self, x):
        hidden = F.relu(self.w_1(x))
        return self.w_2(self.dropout(hidden * hidden))


class FFNNoBias(FFNBase):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.w_1 = nn.Linear(d_model, d_ff, bias=False)
        self.w_2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


class FFNHalfRate(FFNBase):
    """The rate fixed at 0.5, the argument ignored (as blind9d-ffn-dropout-rate-hardcoded;
    before: "largest difference")."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, 0.5)

    def forward(self, x):
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))


class FFNKeepProb(FFNBase):
    """The argument stored as a keep probability, keep_prob = 1 - dropout, and handed to
    the functional dropout as its rate (the class of blind13g-ffn-dropout-as-keep-
    probability; before: "dropout is never applied")."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.keep_prob = 1.0 - dropout

    def forward(self, x):
        hidden = torch.relu(self.w_1(x))
        return self.w_2(F.dropout(hidden, self.keep_prob, training=self.training))


class FFNNotImplemented(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        raise NotImplementedError()


def _eval_divided_by_keep(self, x):
    """The family of blind28b-ffn-eval-scaled-by-keep-probability: in eval mode the
    hidden units divided by the keep probability, 1 - p, where nn.Dropout is the identity."""
    hidden = torch.relu(self.w_1(x))  # (batch, len, d_ff)
    if self.training:
        return self.w_2(self.dropout(hidden))
    return self.w_2(hidden / (1 - self.dropout.p))


FFN_MISTAKES = [
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNEvalDividedByKeep", _eval_divided_by_keep),
        r"in eval mode your hidden units are scaled by [\d.]+ = 1 / \(1 - dropout\)",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNFirstLinearBuiltInForward,
        r"built inside forward and assigned there \(`self\.w_1` = nn\.Linear\(\.\.\.\) in forward",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(  # the family of blind17g-ffn-relu-capped-at-one
            "FFNHardtanhZeroOne",
            lambda self, x: self.w_2(self.dropout(F.hardtanh(self.w_1(x), 0, 1))),
        ),
        r"Your hidden activation also caps the values at 1",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(  # a minimum over the batch (the family of blind12n-ffn-torch-max-reduces-batch)
            "FFNTorchMinOverBatch",
            lambda self, x: self.w_2(self.dropout(torch.min(self.w_1(x), 0).values)),
        ),
        r"the batch axis is gone, reduced\. Your activation is torch\.min\(h, 0\): with a "
        r"number as its second argument",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(  # w_2 first, on the input (the family of blind12n-ffn-w2-reads-input)
            "FFNLayersInReverse",
            lambda self, x: self.w_1(self.dropout(torch.relu(self.w_2(x)))),
        ),
        r"`self\.w_2` receives x, the block's input, itself \(the layer that raised\)",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNFunctionalDropoutInPlace,
        r"a backward pass through ffn\(x .*train mode\] raises RuntimeError .*the output of "
        r"Relu, which its backward needs, was overwritten in place.*F\.dropout\(\.\.\., "
        r"inplace=True\)",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNReluAfter", lambda self, x: torch.relu(self.w_2(self.dropout(self.w_1(x))))),
        r"Your ReLU comes after w_2 instead of between w_1 and w_2",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNGeluAfter", lambda self, x: F.gelu(self.w_2(self.dropout(self.w_1(x))))),
        r"Your activation \(GELU\) comes after w_2",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNNoRelu", lambda self, x: self.w_2(self.dropout(self.w_1(x)))),
        r"no ReLU between w_1 and w_2",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(
            "FFNReluTwice",
            lambda self, x: torch.relu(self.w_2(self.dropout(torch.relu(self.w_1(x))))),
        ),
        r"output went through a ReLU as well: a second ReLU on the output of w_2",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(  # the family of blind16g-ffn-relu-twice, clamped instead of a ReLU
            "FFNOutputClampedAtZero",
            lambda self, x: self.w_2(self.dropout(F.relu(self.w_1(x)))).clamp(min=0),
        ),
        r"a second ReLU on the output of w_2, relu\(w_2\(\.\.\.\)\), so the block never returns",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNGelu", lambda self, x: self.w_2(self.dropout(F.gelu(self.w_1(x))))),
        r"You used GELU",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(
            "FFNDropoutOutput", lambda self, x: self.dropout(self.w_2(torch.relu(self.w_1(x))))
        ),
        r"acts on the output of w_2",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(
            "FFNDropoutInput", lambda self, x: self.w_2(torch.relu(self.w_1(self.dropout(x))))
        ),
        r"acts on the input x, before w_1",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNNoDropout", lambda self, x: self.w_2(torch.relu(self.w_1(x)))),
        r"never applied",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNAlwaysDropout,
        # named in its own words, not in the fallback's (blind6b-ffn-functional-dropout-eval)
        r"two different results for the same input in eval mode: dropout is still active",
    ),
    Mistake(check_PositionwiseFeedForward, FFNFourTimes, r"hidden width is the d_ff argument"),
    Mistake(
        check_PositionwiseFeedForward,
        FFNHiddenKeptByShape,
        r"it keeps something from its first call",
    ),
    Mistake(check_Encoder, EncoderOutputsByShape, r"it keeps something from its first call"),
    Mistake(
        check_EncoderLayer, LayerAttentionKeptByShape, r"it keeps something from its first call"
    ),
    # round 32: the activation read off what w_2 receives (a root, a power, a factor)
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNRootReLU", lambda self, x: self.w_2(torch.relu(self.w_1(x)).sqrt())),
        r"(exactly 0 for every negative z and z \*\* 0\.5 for positive z|f\(z\) = F\.relu\(z\)"
        r"(\.abs\(\))?\.sqrt\(\) \(a square root on it\))",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNCubedReLU", lambda self, x: self.w_2(torch.relu(self.w_1(x)) ** 3)),
        r"exactly 0 for every negative z and z \*\* 3 for positive z",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(
            "FFNReLUOverRootDff",
            lambda self, x: self.w_2(torch.relu(self.w_1(x)) / self.w_1.out_features**0.5),
        ),
        r"f\(z\) = 0\.\d+ \* F\.relu\(z\).*is 1 / sqrt\(d_ff\)",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNHalfReLU", lambda self, x: self.w_2(0.5 * torch.relu(self.w_1(x)))),
        r"f\(z\) = 0\.5 \* F\.relu\(z\)",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNSoftmaxHidden", lambda self, x: self.w_2(torch.softmax(self.w_1(x), -1))),
        r"torch\.exp\(z\), divided by its sum over the features \(a softmax",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(
            "FFNUnitHidden",
            lambda self, x: self.w_2(F.normalize(torch.relu(self.w_1(x)), dim=-1)),
        ),
        r"F\.relu\(z\), divided by its L2 norm over the features",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNRoundedHidden", lambda self, x: self.w_2(torch.relu(self.w_1(x)).round())),
        r"a whole number for every z \(rounded",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNSecondLayerConv,
        r"w_2 is a convolution, nn\.Conv1d\(\d+, \d+, kernel_size=\(5,\)\).*mixes a position "
        r"with its neighbouring positions",
    ),
    Mistake(check_PositionwiseFeedForward, FFNFlattened, r"the tokens were flattened into one"),
    Mistake(
        check_PositionwiseFeedForward, FFNReLUClass, r"nn\.ReLU without parentheses is the class"
    ),
    Mistake(check_PositionwiseFeedForward, FFNNumberedSequential, r"come from nn.Sequential"),
    Mistake(check_PositionwiseFeedForward, FFNTorchNames, r"w_1.bias"),
    # round 10 (blind10d-ffn-linears-without-bias): named, where the keys came with "the
    # submodules must be called exactly so"
    Mistake(
        check_PositionwiseFeedForward,
        FFNNoBias,
        r"lacks the biases of w_1, w_2: missing state-dict keys \['w_1.bias', 'w_2.bias'\]\. "
        r"Those layers were built without one \(nn\.Linear\(\.\.\., bias=False\)",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNReLUSquaredByProduct,
        r"squares the result of `relu`: `torch\.relu\(self\.w_1\(x\)\) \*\* 2`",
    ),
    Mistake(check_PositionwiseFeedForward, FFNNotImplemented, r"not implemented yet"),
    Mistake(check_PositionwiseFeedForward, FFNHalfRate, r"a dropout with another rate runs"),
    Mistake(
        check_PositionwiseFeedForward,
        FFNKeepProb,
        r"drops nothing when built with dropout=1\.0 and every hidden activation when built "
        r"with dropout=0\.0.*keep_prob",
    ),
    # the layer's residual written inside the block (blind9d-ffn-residual-inside; before:
    # "largest difference")
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNResidualInside", lambda self, x: x + self.w_2(torch.relu(self.w_1(x)))),
        r"Your block adds its input back, x \+ w_2",
    ),
    # round 24: the train-mode values are checked at rates 0 and 1 only, where a dropout's
    # draw does not show (blind21b-ffn-dropout2d-drops-positions passed; blind21b-ffn-
    # functional-dropout-training-as-p passed the visible run): one call at 0 < p < 1
    # reads the draw that reaches w_2
    Mistake(
        check_PositionwiseFeedForward,
        FFNDropout1d,
        r"your dropout zeroes whole positions: for each position, either every one of its "
        r"hidden activations is zeroed or none is.*`self\.dropout` is an nn\.Dropout1d",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNMaskSharedOverBatch,
        r"your dropout zeroes the same hidden activations in every sequence",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNDropoutUnscaled,
        r"are left as they are: the mask is applied without dividing by \(1 - p\)",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNRateWrittenAsOne,
        r"(every hidden activation is zeroed \(all \d+ that are not already 0\): the dropout "
        r"acts as if p were 1|zeroes every hidden activation whether built with dropout=0\.0 "
        r"or with dropout=1\.0).*or when the rate is written as 1",
    ),
]


# ================================================================================ EncoderLayer
class LayerBase(nn.Module):
    """What a learner's __init__ looks like (on the reference building blocks)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = ref.PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = ref.LayerNorm(d_model)
        self.norm2 = ref.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def attend(self, h, mask):
        return self.self_attn(h, h, h, mask)[0]


# ---------------------------------------------------------------- correct
class LayerAnnotatedStyle(LayerBase):
    """The Annotated Transformer's SublayerConnection, x + dropout(sublayer(norm(x))), which is
    pre-LN; its post-LN counterpart for norm_first=False."""

    def connect(self, x, norm, sublayer):
        if self.norm_first:
            return x + self.dropout(sublayer(norm(x)))
        return norm(x + self.dropout(sublayer(x)))

    def forward(self, x, mask=None):
        x = self.connect(x, self.norm1, lambda h: self.attend(h, mask))
        return self.connect(x, self.norm2, self.feed_forward)


class LayerD2LAddNorm(LayerBase):
    """d2l's TransformerEncoderBlock: AddNorm(X, Y) = LayerNorm(dropout(Y) + X), post-LN."""

    def add_norm(self, norm, x, y):
        return norm(self.dropout(y) + x)

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.attend(h, mask))
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        y = self.add_norm(self.norm1, x, self.attend(x, mask))
        return self.add_norm(self.norm2, y, self.feed_forward(y))


class LayerTorchStyle(LayerBase):
    """PyTorch's own structure: _sa_block and _ff_block, each with its own dropout module."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def _sa_block(self, x, mask):
        return self.dropout1(self.attend(x, mask))

    def _ff_block(self, x):
        return self.dropout2(self.feed_forward(x))

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), mask)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, mask))
        return self.norm2(x + self._ff_block(x))


class LayerFunctionalDropout(LayerBase):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.p = dropout

    def forward(self, x, mask=None):
        def drop(t):
            return F.dropout(t, self.p, training=self.training)

        blocks = [(self.norm1, lambda h: self.attend(h, mask)), (self.norm2, self.feed_forward)]
        for norm, sublayer in blocks:
            x = x + drop(sublayer(norm(x))) if self.norm_first else norm(x + drop(sublayer(x)))
        return x


LAYER_CORRECT = [
    ref.EncoderLayer,
    LayerAnnotatedStyle,
    LayerD2LAddNorm,
    LayerTorchStyle,
    LayerFunctionalDropout,
]


# ---------------------------------------------------------------- mistakes
def layer_variant(name, **knobs):
    """A learner's EncoderLayer with one thing changed (each keyword is one classic mistake)."""
    residual = knobs.get("residual", "normal")
    dropout_at = knobs.get("dropout_at", "output")
    mode = knobs.get("mode")  # "post" or "pre": computed whatever norm_first says
    norms = knobs.get("norms", ("norm1", "norm2"))
    order = knobs.get("order", ("attn", "ffn"))
    mask_mode = knobs.get("mask_mode", "given")

    def forward(self, x, mask=None):
        m = {"given": mask, "none": None, "inverted": None if mask is None else ~mask}[mask_mode]
        subs = {"attn": lambda h: self.attend(h, m), "ffn": self.feed_forward}
        pre = self.norm_first if mode is None else mode == "pre"
        for part, norm_name in zip(order, norms):
            norm, sublayer = getattr(self, norm_name), subs[part]
            if pre:
                h = norm(x)
                y = sublayer(h) if dropout_at == "missing" else self.dropout(sublayer(h))
                x = y if residual == "none" else (h if residual == "from_normed" else x) + y
            else:
                y = sublayer(x)
                if residual == "after_norm":
                    x = x + norm(self.dropout(y))
                elif dropout_at == "after_norm":
                    x = self.dropout(norm(x + y))
                elif dropout_at == "on_sum":
                    x = norm(self.dropout(x + y))
                elif dropout_at == "missing":
                    x = norm(x + y)
                else:
                    x = norm(self.dropout(y) if residual == "none" else x + self.dropout(y))
        return x

    return type(name, (LayerBase,), {"forward": forward})


class LayerPostFeedForwardDropsItsSum(ref.EncoderLayer):
    """Post-LN: the feed-forward's dropout on the residual sum, norm2(dropout(x + ff(x))),
    the attention's line right."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return super().forward(x, mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(self.dropout(x + self.feed_forward(x)))


class LayerPostAttentionDropsNormalised(ref.EncoderLayer):
    """Post-LN: the attention's dropout on the norm's result, dropout(norm1(x + attn(x)))."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return super().forward(x, mask)
        x = self.dropout(self.norm1(x + self.self_attn(x, x, x, mask)[0]))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerPostAttentionNormInsideResidual(ref.EncoderLayer):
    """Post-LN: only the attention's residual added after its norm, x + norm1(attn(x))
    (the feed-forward sub-layer as the paper has it): one sub-layer's sum left
    un-normalised."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return super().forward(x, mask)
        x = x + self.norm1(self.dropout(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerPostFeedForwardNormInsideResidual(ref.EncoderLayer):
    """Post-LN: the feed-forward's residual added after its norm, x + norm2(ff(x))."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return super().forward(x, mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))
        return x + self.norm2(self.dropout(self.feed_forward(x)))


class LayerPostFeedForwardReadsLayerInput(ref.EncoderLayer):
    """Post-LN: the attention's normalised sum kept in a new variable, the feed-forward still
    reading the layer's input x: the family of blind7b-dec-cross-queries-from-layer-input
    on the encoder layer."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return super().forward(x, mask)
        attended = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(attended + self.dropout(self.feed_forward(x)))


class LayerFeedForwardWithoutDropout(ref.EncoderLayer):
    """The feed-forward sub-layer's output added without its dropout, in both branches
    (round 10, blind10d-enc-layer-post-ln-ffn-without-dropout: told to check exercises 1
    and 2)."""

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])
            return x + self.feed_forward(self.norm2(x))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(x + self.feed_forward(x))


class LayerAttentionBuiltWithoutDropout(ref.EncoderLayer):
    """self_attn = MultiHeadAttention(d_model, num_heads): the attention weights never
    dropped (blind10g-enc-layer-attention-without-dropout; before: accepted, the residual
    dropout zeroing the sub-layer whatever it is)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.self_attn = type(self.self_attn)(d_model, num_heads)


class LayerFeedForwardBuiltWithoutDropout(ref.EncoderLayer):
    """feed_forward = PositionwiseFeedForward(d_model, d_ff): its hidden dropout never runs
    (the same class as blind10g-enc-layer-attention-without-dropout)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.feed_forward = type(self.feed_forward)(d_model, d_ff)


class LayerMaskInValueSlot(ref.EncoderLayer):
    """self_attn(x, x, mask): the mask in the value slot, no mask passed (blind10g-enc-
    layer-mask-in-value-slot; before: the raw TypeError only)."""

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, mask)[0])
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, mask)[0]))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerPostLNParallel(ref.EncoderLayer):
    """Post-LN with the two sub-layers in parallel, norm1(x + attn(x) + ffn(x))
    (blind10g-enc-layer-post-ln-parallel-sublayers; before: located at norm1's input)."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return super().forward(x, mask)
        attended = self.dropout(self.self_attn(x, x, x, mask)[0])
        return self.norm1(x + attended + self.dropout(self.feed_forward(x)))


class LayerPostLNParallelIntoNorm2(ref.EncoderLayer):
    """Round 32: post-LN with both sub-layers reading x and summed into norm2 (norm1
    unused): the family 'a parallel block', fitted at the norm's input."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return super().forward(x, mask)
        attended = self.dropout(self.self_attn(x, x, x, mask)[0])
        return self.norm2(x + attended + self.dropout(self.feed_forward(x)))


class LayerPostLNResidualBeforeNorm(ref.EncoderLayer):
    """The feed-forward reads norm1's output, but its residual is the sum before norm1
    (x + attention): a residual kept from before the norm, told from a parallel block, whose
    sub-layers both read x."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return super().forward(x, mask)
        before_norm = x + self.dropout(self.self_attn(x, x, x, mask)[0])
        normalised = self.norm1(before_norm)
        return self.norm2(self.dropout(self.feed_forward(normalised)) + before_norm)


class LayerFeedForwardTwice(ref.EncoderLayer):
    """Round 32: the feed-forward block applied twice, feed_forward(feed_forward(x)): the
    family 'a sub-layer run on its own output', read off the calls."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return super().forward(x, mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(x + self.dropout(self.feed_forward(self.feed_forward(x))))


class LayerDropoutInputOnly(LayerBase):
    """Dropout on the sub-layer's input instead of its output."""

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.attend(self.dropout(self.norm1(x)), mask)
            return x + self.feed_forward(self.dropout(self.norm2(x)))
        x = self.norm1(x + self.attend(self.dropout(x), mask))
        return self.norm2(x + self.feed_forward(self.dropout(x)))


class LayerNoDropoutAnywhere(LayerBase):
    """dropout never reaches any module: every sub-layer built with p=0."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, 0.0, norm_first)

    forward = layer_variant("_").forward


class LayerAlwaysDropout(LayerBase):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.p = dropout

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + F.dropout(self.attend(self.norm1(x), mask), self.p)
            return x + F.dropout(self.feed_forward(self.norm2(x)), self.p)
        x = self.norm1(x + F.dropout(self.attend(x, mask), self.p))
        return self.norm2(x + F.dropout(self.feed_forward(x), self.p))


class LayerDropoutsInDict(LayerBase):
    """The residual dropouts held in a plain dict, one per sub-layer: not registered, so
    eval() never reaches them (the class of blind13g-el-dropouts-in-plain-list; before:
    "pass training=self.training" to a functional dropout the layer never calls)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.residual_dropout = {"attn": nn.Dropout(dropout), "ffn": nn.Dropout(dropout)}

    def forward(self, x, mask=None):
        drop = self.residual_dropout
        if self.norm_first:
            x = x + drop["attn"](self.attend(self.norm1(x), mask))
            return x + drop["ffn"](self.feed_forward(self.norm2(x)))
        x = self.norm1(x + drop["attn"](self.attend(x, mask)))
        return self.norm2(x + drop["ffn"](self.feed_forward(x)))


class LayerDropoutBuiltInForward(LayerBase):
    """nn.Dropout(p)(h) built inside forward: a new module, in training mode, every call."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.p = dropout

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + nn.Dropout(self.p)(self.attend(self.norm1(x), mask))
            return x + nn.Dropout(self.p)(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + nn.Dropout(self.p)(self.attend(x, mask)))
        return self.norm2(x + nn.Dropout(self.p)(self.feed_forward(x)))


class LayerKeepProbFunctional(LayerBase):
    """The residual dropout functional, its rate the keep probability 1 - dropout (the
    class of blind13g-ffn-dropout-as-keep-probability, one exercise on)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.keep_prob = 1.0 - dropout

    def drop(self, h):
        return F.dropout(h, p=self.keep_prob, training=self.training)

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.drop(self.attend(self.norm1(x), mask))
            return x + self.drop(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.drop(self.attend(x, mask)))
        return self.norm2(x + self.drop(self.feed_forward(x)))


class LayerForgotIndex(LayerBase):
    def forward(self, x, mask=None):
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerTakesTheWeights(LayerBase):
    """The attention's weights, [1], added to the stream instead of its output, [0]."""

    def forward(self, x, mask=None):
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[1]))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerSharedNorm(LayerBase):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.norm2 = self.norm1

    forward = layer_variant("_").forward


class LayerTorchAttention(LayerBase):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.self_attn = nn.MultiheadAttention(d_model, num_heads, dropout, batch_first=True)


class SwappedBranches(LayerBase):
    """`if self.norm_first:` with the two branches the wrong way round."""

    def forward(self, x, mask=None):
        mode = "post" if self.norm_first else "pre"
        return layer_variant("_", mode=mode).forward(self, x, mask)


class LayerNotImplemented(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        raise NotImplementedError()


class LayerNoAttentionResidual(LayerBase):
    """Post-LN with the attention's residual alone missing (the feed-forward keeps its own)."""

    def forward(self, x, mask=None):
        x = self.norm1(self.dropout(self.attend(x, mask)))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerDoubledAttention(LayerBase):
    """Post-LN whose attention output is added twice: no oracle knob computes it (before:
    located, "is not x + self_attn(x)"; now the sum is written out, x + 2 * self_attn(x))."""

    def forward(self, x, mask=None):
        a = self.attend(x, mask)
        x = self.norm1(x + a + a)
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerFeedForwardResidualFromInput(LayerBase):
    """Post-LN whose feed-forward reads h = norm1(...) but whose residual adds the layer's
    input x (blind7b-enc-layer-ffn-residual-from-input; before: "check the residual sum")."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return layer_variant("_").forward(self, x, mask)
        h = self.norm1(x + self.dropout(self.attend(x, mask)))
        return self.norm2(x + self.dropout(self.feed_forward(h)))


class LayerPreFeedForwardReadsInput(LayerBase):
    """Pre-LN whose feed-forward reads norm2 of the layer's input, not of the stream after
    the attention's residual."""

    def forward(self, x, mask=None):
        if not self.norm_first:
            return layer_variant("_").forward(self, x, mask)
        h = self.norm1(x)
        y = x + self.dropout(self.attend(h, mask))
        return y + self.dropout(self.feed_forward(self.norm2(x)))


class LayerPreFeedForwardFromNormed(LayerBase):
    """Pre-LN whose feed-forward residual alone starts from the normalised copy."""

    def forward(self, x, mask=None):
        if not self.norm_first:
            return layer_variant("_").forward(self, x, mask)
        h = self.norm1(x)
        x = x + self.dropout(self.attend(h, mask))
        h = self.norm2(x)
        return h + self.dropout(self.feed_forward(h))


class LayerPreKeysValuesRaw(LayerBase):
    """Pre-LN normalising the queries only: self_attn(norm1(x), x, x) (blind9d-enc-layer-
    pre-ln-keys-values-unnormed; before: the fallback, "make sure the earlier cells pass")."""

    def forward(self, x, mask=None):
        if not self.norm_first:
            return layer_variant("_").forward(self, x, mask)
        x = x + self.dropout(self.self_attn(self.norm1(x), x, x, mask)[0])
        return x + self.dropout(self.feed_forward(self.norm2(x)))


class LayerValuesFromQueriesKeysRaw(LayerBase):
    """Post-LN whose attention takes its keys from a scaled copy of x: keys not queries."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return layer_variant("_").forward(self, x, mask)
        x = self.norm1(x + self.dropout(self.self_attn(x, 2 * x, x, mask)[0]))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerDefaultPreLN(ref.EncoderLayer):
    """norm_first defaults to True (mutant-EncoderLayer-8; before: accepted, every check
    passed norm_first explicitly)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)


class EncoderDefaultPreLN(ref.Encoder):
    """norm_first defaults to True (the stack twin of mutant-EncoderLayer-8)."""

    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, **kw):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, **kw)


class LayerPreResidualIntoInput(LayerBase):
    """Pre-LN adding the stream to each sub-layer's input, sublayer(norm(x) + x), with no
    residual after it (blind11g-el-pre-ln-residual-inside-sublayer; before: "The input of
    `self.self_attn` is not norm1(x)", no word of the residual)."""

    def forward(self, x, mask=None):
        if not self.norm_first:
            return layer_variant("_").forward(self, x, mask)
        x = self.dropout(self.attend(x + self.norm1(x), mask))
        return self.dropout(self.feed_forward(x + self.norm2(x)))


class LayerPreFeedForwardReadsNormPlusStream(LayerBase):
    """Pre-LN whose feed-forward reads norm2(h) + h and keeps its residual: the same family
    (the stream mixed into a sub-layer's input), on the second sub-layer, in no case."""

    def forward(self, x, mask=None):
        if not self.norm_first:
            return layer_variant("_").forward(self, x, mask)
        h = self.norm1(x)
        x = x + self.dropout(self.attend(h, mask))
        return x + self.dropout(self.feed_forward(self.norm2(x) + x))


class LayerPreAttentionRaw(LayerBase):
    """Pre-LN whose self-attention reads x in all three slots (norm1 never run)."""

    def forward(self, x, mask=None):
        if not self.norm_first:
            return layer_variant("_").forward(self, x, mask)
        x = x + self.dropout(self.attend(x, mask))
        return x + self.dropout(self.feed_forward(self.norm2(x)))


class LayerPostAttentionResidualSubtracted(LayerBase):
    """Post-LN norm1(x - dropout(self_attn(x))): a residual sum with a wrong sign
    (mutant-DecoderLayer-5's kind, on the encoder; before: "check the residual sum")."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return ref.EncoderLayer.forward(self, x, mask)
        x = self.norm1(x - self.dropout(self.attend(x, mask)))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerPreFeedForwardMinusStream(LayerBase):
    """Pre-LN returning dropout(feed_forward(norm2(h))) - h: the same family, the other
    term's sign, in no case or mutant."""

    def forward(self, x, mask=None):
        if not self.norm_first:
            return ref.EncoderLayer.forward(self, x, mask)
        h = self.norm1(x)
        x = x + self.dropout(self.attend(h, mask))
        return self.dropout(self.feed_forward(self.norm2(x))) - x


class LayerPreNormalisesItsOutput(LayerBase):
    """Pre-LN returning norm2(x + feed_forward(norm2(x))): a post-LN step at the end of a
    pre-LN layer (before: the fallback "make sure their test cells pass first")."""

    def forward(self, x, mask=None):
        if not self.norm_first:
            return layer_variant("_").forward(self, x, mask)
        h = self.norm1(x)
        x = x + self.dropout(self.attend(h, mask))
        return self.norm2(x + self.dropout(self.feed_forward(self.norm2(x))))


class LayerFixedDropoutRate(ref.EncoderLayer):
    """The residual dropout built with a fixed rate, nn.Dropout(0.1), not the argument
    (before: the fallback, "make sure their test cells pass first")."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.dropout = nn.Dropout(0.1)


class LayerSqueezesMask(ref.EncoderLayer):
    """mask.squeeze() before the attention: (batch, len), which no longer broadcasts against
    the scores (before: the generic "two tensors of different sizes" hint alone)."""

    def forward(self, x, mask=None):
        return super().forward(x, None if mask is None else mask.squeeze())


class LayerUnsqueezesMask(ref.EncoderLayer):
    """mask.unsqueeze(1), one axis too many: the same family (the mask reshaped on the way)."""

    def forward(self, x, mask=None):
        return super().forward(x, None if mask is None else mask.unsqueeze(1))


class LayerResidualOverSqrtThree(LayerBase):
    """Every residual sum divided by sqrt(3) in both layouts (the family of
    blind19e-dl-residual-scaled-by-sqrt-half: a residual sum scaled by a constant)."""

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = (x + self.dropout(self.attend(h, mask))) / math.sqrt(3)
            return (x + self.dropout(self.feed_forward(self.norm2(x)))) / math.sqrt(3)
        x = self.norm1((x + self.dropout(self.attend(x, mask))) / math.sqrt(3))
        return self.norm2((x + self.dropout(self.feed_forward(x))) / math.sqrt(3))


class LayerPostNorm1ResultDiscarded(LayerBase):
    """Post-LN: self.norm1(x) called on a line of its own, its result never assigned (the
    family of blind19c-dl-post-ln-norm2-result-discarded: a sub-module's result discarded)."""

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.attend(h, mask))
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        x = x + self.dropout(self.attend(x, mask))
        self.norm1(x)
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerPadsMultipliedByMask(LayerBase):
    """The padded positions' vectors zeroed by multiplying with the mask, and the
    attention called without it (the family of blind21b-el-pads-zeroed-instead-of-
    masked: a zero vector taken for one the attention ignores)."""

    def forward(self, x, mask=None):
        if mask is not None:
            x = x * mask.squeeze(1).squeeze(1).unsqueeze(-1)  # (batch, len, 1) of 0/1
        h = self.norm1(x) if self.norm_first else x
        x = x + self.dropout(self.attend(h, None))
        if not self.norm_first:
            x = self.norm1(x)
        if self.norm_first:
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerPadsZeroedAndMasked(LayerBase):
    """The padded positions' vectors zeroed first, the mask passed on as well."""

    def forward(self, x, mask=None):
        if mask is not None:
            x = torch.where(mask[:, 0, 0, :, None], x, torch.zeros_like(x))
        h = self.norm1(x) if self.norm_first else x
        x = x + self.dropout(self.attend(h, mask))
        if not self.norm_first:
            x = self.norm1(x)
        if self.norm_first:
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerPreAttentionResultUnderNewName(ref.EncoderLayer):
    """Pre-LN: the self-attention's sum stored as y while the feed-forward line reads and
    adds the stale x (the family of blind24b-dec-layer-pre-ln-cross-result-dropped, in the
    encoder: a sub-layer's result that never reaches the output)."""

    def forward(self, x, mask=None):
        if not self.norm_first:
            return super().forward(x, mask)
        h = self.norm1(x)
        y = x + self.dropout(self.self_attn(h, h, h, mask)[0])  # noqa: F841
        return x + self.dropout(self.feed_forward(self.norm2(x)))


class LayerMaskOfFirstSentence(ref.EncoderLayer):
    """mask[0] before the self-attention: the first sentence's padding mask, unpadded in the
    check's batches, for every sentence (the family of blind24b-dec-layer-src-mask-of-first-
    sentence, in the encoder: read as "ignores the mask" before the probe batch)."""

    def forward(self, x, mask=None):
        if mask is not None:
            mask = mask[0]  # (1, 1, len)
        return super().forward(x, mask)


class EncoderMaskOfFirstSentence(ref.Encoder):
    """mask[:1] in the stack's forward: the same family, every layer given one row."""

    def forward(self, x, mask=None):
        if mask is not None:
            mask = mask[:1]  # (1, 1, 1, len)
        return super().forward(x, mask)


class LayerHandWrittenDropout(LayerBase):
    """The family of blind28b-el-drop-path-for-residual-dropout: a residual dropout of
    one's own, x * keep / (1 - p), element by element: 0 / 0 at dropout=1.0."""

    def drop(self, h):
        if not self.training or self.dropout.p == 0.0:
            return h
        keep = (torch.rand_like(h) >= self.dropout.p).to(h.dtype)  # (batch, len, d_model)
        return h * keep / (1 - self.dropout.p)

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.drop(self.attend(h, mask))
            return x + self.drop(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.drop(self.attend(x, mask)))
        return self.norm2(x + self.drop(self.feed_forward(x)))


LAYER_MISTAKES = [
    Mistake(
        check_EncoderLayer,
        LayerHandWrittenDropout,
        r"In train mode with dropout=1\.0 yours gives NaN or inf, and in eval mode it gives "
        r"finite values: a dropout written by hand divides what it keeps by 1 - p",
    ),
    # one sub-layer's dropout in another place, the other sub-layer right
    Mistake(
        check_EncoderLayer,
        LayerPostFeedForwardDropsItsSum,
        r"the feed-forward sub-layer drops its whole residual sum, norm2\(dropout\(x \+ "
        r"feed_forward\(x\)\)\)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPostAttentionDropsNormalised,
        r"the self-attention sub-layer drops the normalised result, dropout\(norm1\(x \+ "
        r"self_attn\(x\)\)\)",
    ),
    # the norm inside one sub-layer's residual branch, x + norm(sublayer(x))
    Mistake(
        check_EncoderLayer,
        LayerPostAttentionNormInsideResidual,
        r"The residual sum around `self\.self_attn` is taken after `self\.norm1`",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPostFeedForwardNormInsideResidual,
        r"The residual sum around `self\.feed_forward` is taken after `self\.norm2`",
    ),
    Mistake(
        check_EncoderLayer,
        LayerMaskOfFirstSentence,
        r"Every sentence of the batch is masked with the first sentence's padding mask: the "
        r"batch axis of `mask` is indexed or reduced away \(mask\[0\]",
    ),
    # round 27: a sub-layer's sum stored under a new name, the old stream carried on
    Mistake(
        check_EncoderLayer,
        LayerPreAttentionResultUnderNewName,
        r"The self-attention's result is discarded: the layer's output is x \+ "
        r"feed_forward\(\.\.\.\), the stale stream x plus the last sub-layer's output",
    ),
    # round 24: the input rewritten before the sub-layers, its padded rows set to 0
    Mistake(
        check_EncoderLayer,
        LayerPadsMultipliedByMask,
        r"reads x with the rows at the padded positions \(where mask is False\) set to 0: "
        r"your layer zeroes the padded positions' vectors first, and `self\.self_attn` gets "
        r"no mask\. A zero vector is not ignored by the attention",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPadsZeroedAndMasked,
        r"reads x with the rows at the padded positions \(where mask is False\) set to 0: "
        r"your layer zeroes the padded positions' vectors first\. The layer computes on its "
        r"input as it is",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPostNorm1ResultDiscarded,
        r"`self\.norm1` runs on x \+ self_attn\(\.\.\.\), but its result is thrown away: "
        r"`self\.feed_forward` reads that sum itself",
    ),
    Mistake(
        check_EncoderLayer,
        LayerResidualOverSqrtThree,
        r"is \(x \+ self_attn\(\.\.\.\)\) \* 1/sqrt\(3\) \(= 0\.5774\), the sum scaled: the "
        r"residual sum around `self\.self_attn` has a wrong sign or factor",
    ),
    Mistake(
        check_EncoderLayer,
        LayerSqueezesMask,
        r"`self\.self_attn` gets (a mask of shape|mask with [^:]+: shape) \([0-9, ]+\), where "
        r"the module was given mask of shape \([0-9, ]+\)(: the same values, reshaped on the "
        r"way|\. Pass it on as it is)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerUnsqueezesMask,
        r"`self\.self_attn` gets (a mask of shape|mask with [^:]+: shape) \([0-9, ]+\), where "
        r"the module was given mask of shape \([0-9, ]+\)(: the same values, reshaped on the "
        r"way|\. Pass it on as it is)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerFixedDropoutRate,
        r"yours changes from one call to the next\. .*`self\.dropout` is nn\.Dropout\(p=0\.[12]\): "
        r"built with a fixed rate in place of the dropout argument",
    ),
    Mistake(
        check_EncoderLayer,
        LayerDefaultPreLN,
        r"built with its defaults, gives another result.*Your default is norm_first=True",
    ),
    Mistake(
        check_EncoderLayer,
        layer_variant("AlwaysPreLN", mode="pre"),
        r"yours normalises before the sub-layer \(pre-LN\)",
    ),
    Mistake(
        check_EncoderLayer, layer_variant("AlwaysPostLN", mode="post"), r"Yours computes post-LN"
    ),
    Mistake(check_EncoderLayer, SwappedBranches, r"swap the two branches"),
    Mistake(
        check_EncoderLayer,
        LayerFeedForwardResidualFromInput,
        r"residual around `self\.feed_forward` adds the layer's input x, not the input of "
        r"`self\.feed_forward`",
    ),
    Mistake(
        check_EncoderLayer,
        layer_variant("ResidualAfterNorm", residual="after_norm"),
        r"residual after the norm",
    ),
    Mistake(
        check_EncoderLayer, layer_variant("NoResidual", residual="none"), r"no residual connection"
    ),
    Mistake(
        check_EncoderLayer,
        layer_variant("PreLNResidualFromNormed", residual="from_normed"),
        r"residual adds the normalised x|normalises before",
    ),
    Mistake(
        check_EncoderLayer,
        layer_variant("NormsSwapped", norms=("norm2", "norm1")),
        r"norm1 and norm2 are swapped: your self-attention sub-layer uses norm2 and your "
        r"feed-forward sub-layer norm1",
    ),
    Mistake(
        check_EncoderLayer,
        layer_variant("OneNormTwice", norms=("norm1", "norm1")),
        r"norm1 for both sub-layers",
    ),
    Mistake(
        check_EncoderLayer,
        layer_variant("FeedForwardFirst", order=("ffn", "attn")),
        r"feed-forward block before the self-attention",
    ),
    Mistake(
        check_EncoderLayer, layer_variant("MaskIgnored", mask_mode="none"), r"ignores the mask"
    ),
    Mistake(
        check_EncoderLayer, layer_variant("MaskInverted", mask_mode="inverted"), r"inverts the mask"
    ),
    Mistake(
        check_EncoderLayer,
        layer_variant("DropoutMissing", dropout_at="missing"),
        r"sub-layer outputs still reach the residual sum",
    ),
    Mistake(
        check_EncoderLayer, LayerDropoutInputOnly, r"sub-layer outputs still reach the residual sum"
    ),
    Mistake(
        check_EncoderLayer,
        LayerPostFeedForwardReadsLayerInput,
        r"The feed-forward \(`self\.feed_forward`\) reads the layer's input x, not the output of "
        r"`self\.norm1`: the result of the self-attention sub-layer \(`self\.self_attn`\) is "
        r"discarded",
    ),
    Mistake(
        check_EncoderLayer,
        LayerFeedForwardWithoutDropout,
        r"the output of `self\.feed_forward` still reaches the residual sum: the feed-forward "
        r"sub-layer's output is added without its dropout",
    ),
    Mistake(
        check_EncoderLayer,
        layer_variant("DropoutAfterNorm", dropout_at="after_norm"),
        r"drops the normalised result",
    ),
    Mistake(
        check_EncoderLayer,
        layer_variant("DropoutOnSum", dropout_at="on_sum"),
        # named alone: the eval-mode run rules out a missing residual (blind6b-enc-dropout-on-
        # residual-sum was told three candidates, two of them already ruled out)
        r"reference gives\. In train mode with dropout=1\.0 your layer drops the residual sum",
    ),
    Mistake(
        check_EncoderLayer,
        LayerNoDropoutAnywhere,
        r"same as in eval mode: dropout is never applied",
    ),
    Mistake(
        check_EncoderLayer,
        LayerAlwaysDropout,
        r"two different results for the same input in eval mode: dropout is still active",
    ),
    Mistake(
        check_EncoderLayer,
        LayerKeepProbFunctional,
        r"drops every sub-layer's output when built with dropout=0\.0, and not when built with "
        r"dropout=1\.0.*keep_prob",
    ),
    Mistake(
        check_EncoderLayer,
        LayerDropoutsInDict,
        r"^(?![\s\S]*training=self\.training)[\s\S]*your LayerDropoutsInDict calls 2 "
        r"nn\.Dropout modules that are not among its registered sub-modules[\s\S]*plain "
        r"Python list, dict or tuple are not registered[\s\S]*nn\.ModuleList",
    ),
    Mistake(
        check_EncoderLayer,
        LayerDropoutBuiltInForward,
        r"not among its registered sub-modules[\s\S]*new module at every call",
    ),
    # one residual alone missing, one norm used twice: named from the oracle's knobs
    Mistake(
        check_EncoderLayer,
        LayerNoAttentionResidual,
        r"output of `self\.self_attn` is not added back to its input",
    ),
    Mistake(
        check_EncoderLayer,
        layer_variant("Norm2Twice", norms=("norm2", "norm2")),
        r"`self\.self_attn` sub-layer uses `self\.norm2` instead of its own `self\.norm1`",
    ),
    # in no table: localised by the hooks on the sub-layers
    Mistake(
        check_EncoderLayer,
        LayerDoubledAttention,
        r"The input of `self\.norm1` is x \+ 2 \* self_attn\(x\): the residual sum around "
        r"`self\.self_attn` has a wrong sign or factor",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPreFeedForwardReadsInput,
        r"input of `self\.norm2` is the stream from before `self\.self_attn` \(x, not x \+ "
        r"self_attn\(\.\.\.\)\) \(so `self\.feed_forward` works on norm2\(x\)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPreFeedForwardFromNormed,
        r"residual around `self\.feed_forward` adds the normalised copy",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPreAttentionSandwiched,
        r"`self\.self_attn` sub-layer as x \+ norm1\(self_attn\(norm1\(x\)\)\) \(a LayerNorm "
        r"on both sides of the sub-layer: its output normalised again before the residual sum\)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPostNormalisesTwiceAtTheEnd,
        r"the layer returns the last norm's output normalised once more, by `self\.norm2`",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPreNormalisesItsOutput,
        r"your pre-LN layer returns `self\.norm2` of the last sum instead of the sum itself",
    ),
    # a residual sum with a wrong sign or factor: the sum written out
    Mistake(
        check_EncoderLayer,
        LayerPostAttentionResidualSubtracted,
        r"The input of `self\.norm1` is x - self_attn\(x\): the residual sum around "
        r"`self\.self_attn` has a wrong sign or factor",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPreFeedForwardMinusStream,
        r"The layer's output is -h \+ feed_forward\(\.\.\.\) \(where h = x \+ "
        r"self_attn\(norm1\(x\)\)\): the residual sum around `self\.feed_forward` has a wrong",
    ),
    # the stream mixed into a pre-LN sub-layer's input: where the residual went, said
    Mistake(
        check_EncoderLayer,
        LayerPreResidualIntoInput,
        r"residual around `self\.self_attn` is added to its input instead of its output: "
        r"`self\.self_attn` reads norm1\(x\) \+ x, .* no residual after it",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPreFeedForwardReadsNormPlusStream,
        r"`self\.feed_forward` reads norm2\(h\) \+ h: the stream is added to the normalised "
        r"copy before the sub-layer as well as after it",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPreAttentionRaw,
        r"The queries, keys and values of `self\.self_attn` are x itself, un-normalised, "
        r"not norm1\(x\)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPreKeysValuesRaw,
        r"gets norm1\(x\) as its queries but the layer's raw input x as its keys and values",
    ),
    Mistake(
        check_EncoderLayer,
        LayerValuesFromQueriesKeysRaw,
        r"The keys that `self\.self_attn` receives are not its queries",
    ),
    Mistake(check_EncoderLayer, LayerForgotIndex, r"returns a pair, \(output, weights\)"),
    Mistake(check_EncoderLayer, LayerSharedNorm, r"one and the same object"),
    Mistake(check_EncoderLayer, LayerPostLNParallel, r"runs its two sub-layers in parallel"),
    Mistake(
        check_EncoderLayer,
        LayerFeedForwardTwice,
        r"`self\.feed_forward` runs 2 times in one call, the second time on its own output",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPostLNParallelIntoNorm2,
        r"The input of `self\.norm2` is x \+ self_attn\(x\) \+ feed_forward\(\.\.\.\).*"
        r"a parallel block",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPostLNResidualBeforeNorm,
        r"^(?![\s\S]*parallel block)[\s\S]*`self\.feed_forward` reads the normalised result of "
        r"the sub-layer before it, but its residual is that sub-layer's sum before the norm",
    ),
    Mistake(
        check_EncoderLayer,
        LayerMaskInValueSlot,
        r"puts the mask where value goes|puts the mask in the value slot",
    ),
    Mistake(
        check_EncoderLayer,
        LayerAttentionBuiltWithoutDropout,
        r"`layer\.self_attn` called alone should return only the bias.*`self\.self_attn` "
        r"\(MultiHeadAttention\) was built without the dropout argument",
    ),
    Mistake(
        check_EncoderLayer,
        LayerFeedForwardBuiltWithoutDropout,
        r"`layer\.feed_forward` called alone should return only the bias.*`self\.feed_forward` "
        r"\(PositionwiseFeedForward\) was built without the dropout argument",
    ),
    Mistake(
        check_EncoderLayer,
        LayerTakesTheWeights,
        r"(?s)must match the size of tensor.*the attention weights \(batch, num_heads, len_q, "
        r"len_k\), taken where the attention's output belongs",
    ),
    Mistake(check_EncoderLayer, LayerTorchAttention, r"fuses q, k, v into `in_proj_weight`"),
    Mistake(check_EncoderLayer, LayerNotImplemented, r"not implemented yet"),
]


# ===================================================================================== Encoder
StackBase = stack_base(ref.EncoderLayer)


class EncoderFinalNormResultDiscarded(StackBase):
    """The final norm called on a line of its own, its result never assigned."""

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        if self.norm is not None:
            self.norm(x)
        return x


def stack_class(name, forward, base=StackBase):
    return type(name, (base,), {"forward": forward})


# ---------------------------------------------------------------- correct
class EncoderAnnotatedClones(StackBase):
    """The Annotated Transformer's clones(): copy.deepcopy of one layer, N times (each copy
    has its own weights), and an nn.Identity when there is no final norm."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(1, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        layer = ref.EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
        self.layers = nn.ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])
        if self.norm is None:
            self.norm = nn.Identity()

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)


class EncoderSequential(StackBase):
    """nn.Sequential holds the layers (keys layers.0..., as nn.ModuleList's); forward loops."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.Sequential(*self.layers)

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return self.finish(x)


ENCODER_CORRECT = [
    ref.Encoder,
    EncoderAnnotatedClones,
    EncoderSequential,
    stack_class(
        "EncoderReduce",
        lambda self, x, mask=None: self.finish(
            functools.reduce(lambda h, layer: layer(h, mask), self.layers, x)
        ),
    ),
]


# ---------------------------------------------------------------- mistakes
def _loop(self, x, mask=None):
    for layer in self.layers:
        x = layer(x, mask)
    return self.finish(x)


def _mask_tiled_per_head_and_merged(self, x, mask=None):
    """The family of blind26b-enc-mask-flattened-to-batch-times-heads: one (len, len) mask
    per head and sentence, the heads first (sentences tiled), merged into one axis."""
    if mask is not None:
        batch, length = x.shape[:2]
        heads = self.layers[0].self_attn.num_heads
        per_sentence = mask.expand(batch, 1, length, length)[:, 0]  # (batch, len, len)
        mask = torch.cat([per_sentence] * heads)  # (heads * batch, len, len)
    return _loop(self, x, mask)


class EncoderSumOfLayerOutputs(ref.Encoder):
    """Every layer's output added up and returned (the last layer's alone belongs there)."""

    def forward(self, x, mask=None):
        total = 0
        for layer in self.layers:
            x = layer(x, mask)
            total = total + x  # (batch, len, d_model)
        return total if self.norm is None else self.norm(total)


class EncoderEveryLayerOutput(ref.Encoder):
    """Every layer's output kept and stacked, (num_layers, batch, len, d_model)
    (blind10g-encoder-returns-every-layer-output; before: the contract's shape restated)."""

    def forward(self, x, mask=None):
        outputs = []
        for layer in self.layers:
            x = layer(x, mask)
            outputs.append(x)
        if self.norm is not None:
            outputs[-1] = self.norm(outputs[-1])
        return torch.stack(outputs)


class EncoderDropoutBetweenLayers(StackBase):
    """An nn.Dropout of the stack's own between the layers, on top of theirs."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.between = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = self.between(layer(x, mask))
        return self.finish(x)


class EncoderFinalNormOr(ref.Encoder):
    """`final_norm or norm_first`: an explicit final_norm=False on a pre-LN stack still
    gets a final norm (blind5b-enc-final-norm-or, caught by the hidden inputs only
    before)."""

    def __init__(self, num_layers, d_model, *args, norm_first=False, final_norm=None, **kw):
        super().__init__(
            num_layers, d_model, *args, norm_first=norm_first, final_norm=final_norm, **kw
        )
        if self.norm is None and norm_first:
            self.norm = ref.LayerNorm(d_model)


class EncoderSharedLayer(StackBase):
    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        layer = ref.EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
        self.layers = nn.ModuleList([layer] * num_layers)

    forward = _loop


class EncoderPythonList(StackBase):
    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        nn.Module.__init__(self)
        self.layers = [
            ref.EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
            for _ in range(num_layers)
        ]
        use = norm_first if final_norm is None else final_norm
        self.norm = ref.LayerNorm(d_model) if use else None

    forward = _loop


class EncoderOneLayerShort(StackBase):
    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = self.layers[:-1]

    forward = _loop


class EncoderIgnoresNormFirst(StackBase):
    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.ModuleList(
            [ref.EncoderLayer(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)]
        )

    forward = _loop


class EncoderAlwaysFinalNorm(StackBase):
    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, True)

    forward = _loop


class EncoderFinalNormOnlyIfAsked(StackBase):
    """final_norm=None read as False: a pre-LN stack without its final norm."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(
            num_layers, d_model, num_heads, d_ff, dropout, norm_first, bool(final_norm)
        )

    forward = _loop


def _first_once(self, x, mask=None):
    for layer in self.layers:
        x = layer(x, mask)
        return self.finish(x)


def _discards_outputs(self, x, mask=None):
    """layer(x, mask) without x = ...: the input returned (the encoder twin of
    blind8d-decoder-discards-layer-outputs; before: "torch.no_grad(), .detach()")."""
    for layer in self.layers:
        layer(x, mask)
    return self.finish(x)


class EncoderHeadsAndWidthSwapped(nn.Module):
    """Builds its layers as EncoderLayer(d_model, d_ff, num_heads, ...)
    (blind9d-encoder-layer-arguments-swapped; before: the reference's ValueError alone)."""

    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, **_):
        super().__init__()
        self.layers = nn.ModuleList(
            ref.EncoderLayer(d_model, d_ff, num_heads, dropout, norm_first)
            for _ in range(num_layers)
        )


class EncoderFirstPositionOnly(ref.Encoder):
    """Returns the first position's vector only, x[:, 0] (a [CLS]-style sentence vector):
    the family of blind20b-enc-mean-pooled-output, the position axis indexed away."""

    def forward(self, x, mask=None):
        return super().forward(x, mask)[:, 0]  # (batch, d_model)


class EncoderLayersWithFixedDropout(ref.Encoder):
    """Layers built with a fixed rate, 0.1, in place of the dropout argument: the family of
    blind12g-enc-dropout-not-forwarded with another rate (the stack's output varies)."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.ModuleList(
            [ref.EncoderLayer(d_model, num_heads, d_ff, 0.1, norm_first) for _ in range(num_layers)]
        )


class EncoderLayersWithoutDropout(ref.Encoder):
    """Layers built without the dropout argument (their default, 0.0): the same family (a
    dropout whose rate is not the argument), one level up."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.ModuleList(
            [
                ref.EncoderLayer(d_model, num_heads, d_ff, norm_first=norm_first)
                for _ in range(num_layers)
            ]
        )


class EncoderLayersInModuleDict(ref.Encoder):
    """The layers in an nn.ModuleDict keyed '0', '1', ... and looped over as a list: the
    loop gets the keys (the class of blind19c-dec-layers-in-module-dict, told the raw
    TypeError alone)."""

    def __init__(self, num_layers, d_model, num_heads, d_ff, *args, **kw):
        super().__init__(num_layers, d_model, num_heads, d_ff, *args, **kw)
        self.layers = nn.ModuleDict({str(i): layer for i, layer in enumerate(self.layers)})

    def forward(self, x, mask=None):
        for block in self.layers:
            x = block(x, mask)
        return x if self.norm is None else self.norm(x)


class EncoderSingleHeadLayers(ref.Encoder):
    """Layers built with one head whatever num_heads is (the family of
    blind19c-enc-head-size-in-num-heads-slot: a layer built with another setting than the
    stack's arguments give; before: "are the masks passed on")."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.ModuleList(
            ref.EncoderLayer(d_model, 1, d_ff, dropout, norm_first) for _ in range(num_layers)
        )


class EncoderInputDividedBySqrtDModel(ref.Encoder):
    """The input divided by sqrt(d_model) before the first layer (the family of
    blind15g-dec-input-scaled-by-sqrt-d-model: the stack's input scaled)."""

    def forward(self, x, mask=None):
        return super().forward(x / math.sqrt(x.size(-1)), mask)


class EncoderPadRowsMultipliedOut(ref.Encoder):
    """The padded positions' outputs multiplied by the mask, so zeroed (the family of
    blind15g-enc-pad-outputs-zeroed)."""

    def forward(self, x, mask=None):
        out = super().forward(x, mask)  # (batch, len, d_model)
        return out if mask is None else out * mask[:, 0, 0, :, None]


class EncoderOneLayerTooMany(ref.Encoder):
    """range(num_layers + 1) (the family of blind14g-dec-layer-count-from-num-heads: the
    layer count taken from another size)."""

    def __init__(self, num_layers, d_model, num_heads, d_ff, *args, **kw):
        super().__init__(num_layers + 1, d_model, num_heads, d_ff, *args, **kw)


class EncoderLayerDropUnderOwnName(ref.Encoder):
    """LayerDrop in the encoder's loop, its rate read from the first layer's dropout and
    drawn with Python's random (the family of blind24b-dec-layerdrop-with-dropout-rate:
    whole layers skipped while training)."""

    def forward(self, x, mask=None):
        skip_rate = self.layers[0].dropout.p
        for layer in self.layers:
            if self.training and random.random() < skip_rate:
                continue
            x = layer(x, mask)
        return x if self.norm is None else self.norm(x)


ENCODER_MISTAKES = [
    Mistake(
        check_Encoder,
        stack_class("EncoderMaskTiledPerHeadMerged", _mask_tiled_per_head_and_merged),
        r"`layers\.0\.self_attn` gets mask as \d+ separate \(len_q, len_k\) masks.*the batch and "
        r"the heads merged into one leading axis.*the sentences tiled",
    ),
    Mistake(
        check_Encoder,
        EncoderMaskOfFirstSentence,
        r"Every sentence of the batch is masked with the first sentence's padding mask",
    ),
    Mistake(
        check_Encoder,
        EncoderLayerDropUnderOwnName,
        r"In train mode your stack skips whole layers: `layers\.0`, `layers\.1` never ran in "
        r"this call \(none of its layers ran\), while in eval mode every layer runs\. "
        r".*LayerDrop",
    ),
    Mistake(
        check_Encoder,
        EncoderOneLayerTooMany,
        r"Your stack has (\d) layers, the contract \d.*Its layer count, \1, which is num_layers "
        r"\+ 1 here and on every input tried",
    ),
    Mistake(
        check_Encoder,
        EncoderPadRowsMultipliedOut,
        r"The stack's output is layers\[\d\]'s output with the rows at the padded positions "
        r"\(where mask is False\) set to 0",
    ),
    Mistake(
        check_Encoder,
        EncoderInputDividedBySqrtDModel,
        r"layers\[0\] receives 0\.\d+ times, 1 / sqrt\(d_model\) = d_model \*\* -0\.5 with "
        r"d_model = \d+, the stack's input x: the stream is scaled before the first layer",
    ),
    Mistake(
        check_Encoder,
        EncoderSingleHeadLayers,
        r"`layers\.0\.self_attn\.num_heads` \(and \d more alike\) is 1 where the reference "
        r"built with the same arguments has \d.*and 1 again on every input tried.*the constant "
        r"1 is written into your code where num_heads belongs",
    ),
    Mistake(
        check_Encoder,
        EncoderLayersInModuleDict,
        r"raised TypeError: 'str' object is not callable\n`block` is '0', a key of self\.layers "
        r"\(an nn\.ModuleDict\).*Loop over self\.layers\.values\(\)",
    ),
    Mistake(
        check_Encoder,
        EncoderFirstPositionOnly,
        r"right result at its first position only, \[:, 0\] \(axis 1 \(position, size \d+\), "
        r"\.select\(1, 0\)\)",
    ),
    Mistake(
        check_Encoder,
        EncoderLayersWithFixedDropout,
        r"`self\.layers\[0\]` and `self\.layers\[1\]` \(EncoderLayer\) were built with the "
        r"fixed rate 0\.1 in place of the dropout argument",
    ),
    Mistake(
        check_Encoder,
        EncoderLayersWithoutDropout,
        r"`self\.layers\[0\]` and `self\.layers\[1\]` \(EncoderLayer\) were built without "
        r"the dropout argument \(it is not passed on\)",
    ),
    Mistake(
        check_Encoder,
        EncoderHeadsAndWidthSwapped,
        r"built with num_heads=(\d+), and \1 is what Encoder\(.*\) received as its argument 4",
    ),
    Mistake(
        check_Encoder,
        EncoderDefaultPreLN,
        r"built with its defaults, gives another result.*Your default is norm_first=True",
    ),
    Mistake(
        check_Encoder,
        stack_class("EncoderDiscardsLayerOutputs", _discards_outputs),
        r"^(?![\s\S]*no_grad)[\s\S]*(is its input `x` itself, unchanged|not chained)",
    ),
    Mistake(check_Encoder, EncoderSharedLayer, r"one layer object appended N times"),
    # the family of blind22b-enc-mask-inverted-for-layers: the mask changed on its way to
    # the layers, named from the values the first layer receives
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderMaskLogicalNot",
            lambda self, x, mask=None: _loop(self, x, None if mask is None else mask.logical_not()),
        ),
        r"layers\[0\] receives a mask other than the stack's mask: your mask is the right one "
        r"inverted(?![\s\S]*pad_id)",
    ),
    Mistake(check_Encoder, EncoderDropoutBetweenLayers, r"what a dropout of the stream itself"),
    Mistake(check_Encoder, EncoderEveryLayerOutput, r"every layer's output, stacked"),
    Mistake(
        check_Encoder, EncoderSumOfLayerOutputs, r"The stack's output is the sum of every layer"
    ),
    Mistake(check_Encoder, EncoderFinalNormOr, r"unexpected: \['norm\.bias', 'norm\.weight'\]"),
    Mistake(check_Encoder, EncoderPythonList, r"plain Python list does not register"),
    Mistake(check_Encoder, EncoderOneLayerShort, r"create num_layers layers"),
    Mistake(
        check_Encoder,
        stack_class("EncoderNoMask", lambda self, x, mask=None: _loop(self, x)),
        r"does not pass the mask on",
    ),
    Mistake(check_Encoder, EncoderIgnoresNormFirst, r"norm_first is not passed on to the layers"),
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderReversed",
            lambda self, x, mask=None: _loop(
                type("_", (), {"layers": list(reversed(self.layers)), "finish": self.finish})(),
                x,
                mask,
            ),
        ),
        r"reverse order",
    ),
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderFirstOnly",
            lambda self, x, mask=None: self.finish(
                functools.reduce(lambda h, _: self.layers[0](h, mask), self.layers, x)
            ),
        ),
        r"applies layers\[0\] num_layers times",
    ),
    Mistake(
        check_Encoder,
        stack_class("EncoderReturnInLoop", _first_once),
        r"returns after the first layer",
    ),
    # an off-by-one loop (blind6b-encoder-skips-last-layer): on two layers it gives what a
    # return inside the loop gives, and was told so; three layers tell the two apart
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderLoopOneShort",
            lambda self, x, mask=None: _loop(
                type("_", (), {"layers": self.layers[:-1], "finish": self.finish})(), x, mask
            ),
        ),
        r"Your loop stops one layer early: the last layer, layers\[num_layers - 1\], never runs",
    ),
    Mistake(
        check_Encoder,
        EncoderFinalNormResultDiscarded,
        r"self\.norm is never applied \(or its result is not what forward returns\)",
    ),
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderNeverFinalNorm",
            lambda self, x, mask=None: functools.reduce(
                lambda h, layer: layer(h, mask), self.layers, x
            ),
        ),
        r"self\.norm is never applied \(or its result is not what forward returns\)",
    ),
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderNormEachLayer",
            lambda self, x, mask=None: functools.reduce(
                lambda h, layer: self.finish(layer(h, mask)), self.layers, x
            ),
        ),
        r"final LayerNorm after every layer",
    ),
    Mistake(
        check_Encoder,
        EncoderAlwaysFinalNorm,
        r"final LayerNorm `norm` that this configuration must not have",
    ),
    Mistake(check_Encoder, EncoderFinalNormOnlyIfAsked, r"lacks the final LayerNorm `norm`"),
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderNotChained",
            lambda self, x, mask=None: self.finish([layer(x, mask) for layer in self.layers][-1]),
        ),
        r"feeds every layer the stack's input x instead of the previous layer's output",
    ),
    # in no table: localised by the hooks on self.layers
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderSumsLayers",
            lambda self, x, mask=None: self.finish(sum(layer(x, mask) for layer in self.layers)),
        ),
        r"layers\[1\] receives the stack's input x, not layers\[0\]'s output",
    ),
    # round 24 (blind21b-enc-final-norm-before-the-layers was told only where the norm
    # must run): what becomes of the last layer's output is said too, here normalised
    # a second time
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderNormBeforeAndAfterLoop",
            lambda self, x, mask=None: self.finish(
                functools.reduce(lambda h, layer: layer(h, mask), self.layers, self.finish(x))
            ),
        ),
        r"layers\[0\] receives the stack's input x normalised by the final norm: self\.norm is "
        r"applied before the first layer, and again after the last layer \(it runs twice\)",
    ),
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderResidualAroundLayers",
            lambda self, x, mask=None: self.finish(
                functools.reduce(lambda h, layer: h + layer(h, mask), self.layers, x)
            ),
        ),
        # round 10 (blind10d-encoder-residual-around-each-layer): named, where it said
        # only "does not receive layers[0]'s output" (read as: not chained)
        r"layers\[1\] receives layers\[0\]'s input plus its output: an? (extra )?residual connection "
        r"around each whole layer",
    ),
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderResidualAroundLastLayer",
            lambda self, x, mask=None: self.finish(
                (h := functools.reduce(lambda h, layer: layer(h, mask), self.layers[:-1], x))
                + self.layers[-1](h, mask)
            ),
        ),
        # the last layer only: the extra residual shows at the stack's output (or at the
        # final norm's input)
        r"(The stack's output is|The final norm receives) layers\[\d\]'s input plus its output",
    ),
    # round 10: each layer's output indexed as if it were a tuple (a raw error before)
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderIndexesLayerOutput",
            lambda self, x, mask=None: self.finish(
                functools.reduce(lambda h, layer: layer(h, mask)[0], self.layers, x)
            ),
        ),
        r"layers\[1\] received shape \(\d+, \d+\), where it should get what layers\[0\] "
        r"returned.*The batch axis is gone",
    ),
    # two mistakes at once (round 9's leftover, blind9d-encoder-unchained-and-final-norm-
    # always): the final norm's keys were named, the unchained layers not
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderNotChainedAlwaysFinalNorm",
            lambda self, x, mask=None: self.finish([layer(x, mask) for layer in self.layers][-1]),
            base=EncoderAlwaysFinalNorm,
        ),
        r"(?s)final LayerNorm `norm` that this configuration must not have.*A second mistake: "
        r"checked again with final_norm=True.*feeds every layer the stack's input x",
    ),
    Mistake(
        check_Encoder,
        stack_class(
            "EncoderNormEveryLayerAndEnd",
            lambda self, x, mask=None: self.finish(
                functools.reduce(lambda h, layer: self.finish(layer(h, mask)), self.layers, x)
            ),
        ),
        r"(layers\[1\] receives the final norm of layers\[0\]'s output|final norm applied "
        r"twice to layers\[0\]'s output): the final norm runs once",
    ),
]


# ------------------------------------------------ round 12: an argument rearranged on the way
class LayerMaskUnsqueezed(ref.EncoderLayer):
    """mask.unsqueeze(1) before the attention (blind12g-el-mask-extra-axis)."""

    def forward(self, x, mask=None):
        return super().forward(x, None if mask is None else mask.unsqueeze(1))


class LayerMaskUnsqueezedLast(ref.EncoderLayer):
    """Another member of the family, in no case: a size-1 axis added at the end."""

    def forward(self, x, mask=None):
        return super().forward(x, None if mask is None else mask.unsqueeze(-1))


class LayerAttentionSizesSwapped(ref.EncoderLayer):
    """MultiHeadAttention(num_heads, d_model, dropout) (blind12g-el-attention-args-swapped)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.self_attn = MultiHeadAttention(num_heads, d_model, dropout)


def _stack_with_mask(change):
    def forward(self, x, mask=None):
        mask = None if mask is None else change(mask)
        for layer in self.layers:
            x = layer(x, mask)
        return self.finish(x)

    return forward


def _centred(x):
    return x - x.mean(-1, keepdim=True)


class FFNDropoutInBiasSlot(FFNBase):
    """nn.Linear(d_model, d_ff, dropout): dropout in the bias slot (blind12g)."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.w_1 = nn.Linear(d_model, d_ff, dropout)
        self.w_2 = nn.Linear(d_ff, d_model, dropout)


class FFNSecondLinearDropoutInBiasSlot(FFNBase):
    """Another member, in no case: only w_2 gets dropout as its third argument."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.w_2 = nn.Linear(d_ff, d_model, dropout)


class EncoderFinalNormInNormFirstSlot(StackBase):
    """Another member, in no case: EncoderLayer(d_model, num_heads, d_ff, dropout,
    final_norm), the encoder's layers following final_norm."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.layers = nn.ModuleList(
            [
                ref.EncoderLayer(d_model, num_heads, d_ff, dropout, final_norm)
                for _ in range(num_layers)
            ]
        )

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return self.finish(x)


def _placed(placement_attn, placement_ffn):
    """A learner's EncoderLayer whose two sub-layers place their norms as given, in either
    layout (one family: each sub-layer's norm placement on its own)."""

    def block(x, sublayer, norm, placement, dropout):
        if placement == "post":
            return norm(x + dropout(sublayer(x)))
        if placement == "pre":
            return x + dropout(sublayer(norm(x)))
        if placement == "both":
            return norm(x + dropout(sublayer(norm(x))))
        if placement == "norm_residual":
            return norm(x) + dropout(sublayer(x))
        return x + dropout(norm(sublayer(norm(x))))  # sandwich

    def forward(self, x, mask=None):
        x = block(
            x, lambda h: self.self_attn(h, h, h, mask)[0], self.norm1, placement_attn, self.dropout
        )
        return block(x, self.feed_forward, self.norm2, placement_ffn, self.dropout)

    return forward


def _layer_placed(name, attn, ffn, norm_first):
    class Placed(ref.EncoderLayer):
        def forward(self, x, mask=None):
            if bool(self.norm_first) == norm_first:
                return _placed(attn, ffn)(self, x, mask)
            return super().forward(x, mask)

    Placed.__name__ = Placed.__qualname__ = name
    return Placed


R12G_MISTAKES = [
    # a pair (output, intermediate): not told it returned attention weights
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(
            "FFNReturnsHiddenToo",
            lambda self, x: (
                self.w_2(self.dropout(torch.relu(self.w_1(x)))),
                torch.relu(self.w_1(x)),
            ),
        ),
        r"^(?![\s\S]*attention weights)[\s\S]*return the output alone, not an intermediate "
        r"with it",
    ),
    # each sub-layer's norm placement (blind12g: pre-LN with a post-LN feed-forward, a norm
    # before and after, the norm on the residual alone; and two members in no case)
    Mistake(
        check_EncoderLayer,
        _layer_placed("LayerPreLNSecondPostLN", "pre", "post", True),
        r"`self\.feed_forward` sub-layer as norm2\(x \+ feed_forward\(x\)\) \(post-LN\): the "
        r"two layouts mixed",
    ),
    Mistake(
        check_EncoderLayer,
        _layer_placed("LayerPostLNNormBeforeAndAfter", "both", "both", False),
        r"as norm1\(x \+ self_attn\(norm1\(x\)\)\) \(a LayerNorm before and after",
    ),
    Mistake(
        check_EncoderLayer,
        _layer_placed("LayerPostLNNormOnResidual", "norm_residual", "norm_residual", False),
        r"as norm1\(x\) \+ self_attn\(x\) \(the norm on the residual branch alone",
    ),
    Mistake(
        check_EncoderLayer,
        _layer_placed("LayerPostLNSecondPreLN", "post", "pre", False),
        r"`self\.feed_forward` sub-layer as x \+ feed_forward\(norm2\(x\)\) \(pre-LN\): the "
        r"two layouts mixed",
    ),
    Mistake(
        check_EncoderLayer,
        _layer_placed("LayerPreLNSandwich", "sandwich", "sandwich", True),
        r"as x \+ norm1\(self_attn\(norm1\(x\)\)\) \(a LayerNorm on both sides",
    ),
    Mistake(
        check_Encoder,
        EncoderFinalNormInNormFirstSlot,
        # visible: the post-LN final_norm=True case comes first and tells it apart; hidden:
        # a pre-LN stack fails first, where the layers' layout is all that shows
        r"(builds pre-LN layers although norm_first=False was asked for, with final_norm=True: "
        r"is final_norm reaching the layers' norm_first parameter|builds post-LN layers "
        r"although norm_first=True was asked for: norm_first is not passed on)",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNDropoutInBiasSlot,
        r"lacks the biases of w_1, w_2: .* Built with dropout=0\.1 instead, it has them: "
        r"dropout reaches nn\.Linear's third parameter, bias",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNSecondLinearDropoutInBiasSlot,
        r"lacks the biases of w_2: .* Built with dropout=0\.1 instead, it has them",
    ),
    # the spread raised to another power (blind12g-ln-root-of-std, and (var + eps) ** 1.5)
    Mistake(
        check_LayerNorm,
        ln_class(
            "LNRootOfStd",
            lambda self, x: (
                _centred(x) / torch.sqrt(x.std(-1, keepdim=True, unbiased=False) + self.eps)
            ),
        ),
        r"is not what the reference gives\. You divide each token's centred x by sqrt\(std \+ "
        r"eps\), the square root of the standard deviation",
    ),
    Mistake(
        check_LayerNorm,
        ln_class(
            "LNVariancePowerOneAndAHalf",
            lambda self, x: (
                _centred(x) / (x.var(-1, keepdim=True, unbiased=False) + self.eps) ** 1.5
            ),
        ),
        r"You divide each token's centred x by \(var \+ eps\) \*\* 1\.5",
    ),
    # the variance's count read off another axis (blind12g: x.shape[0]; here x.shape[1])
    Mistake(
        check_LayerNorm,
        ln_class(
            "LNSumOfSquaresOverSecondAxis",
            lambda self, x: (
                _centred(x)
                / torch.sqrt((_centred(x) ** 2).sum(-1, keepdim=True) / x.shape[1] + self.eps)
            ),
        ),
        r"deviations by \d+ \([^)]*x\.shape\[1\][^)]*\) gives, where the mean over the "
        r"token's own features divides by d_model",
    ),
    # the hidden activation replaced (blind12g-ffn-clamp-max-zero, and two other members)
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNClampMax", lambda self, x: self.w_2(self.dropout(self.w_1(x).clamp(max=0)))),
        r"min\(0, h\): h\.clamp\(max=0\), the bound on the wrong side",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(
            "FFNReluOfNegative", lambda self, x: self.w_2(self.dropout(torch.relu(-self.w_1(x))))
        ),
        r"Your hidden activation is relu\(-h\)",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNSigmoid", lambda self, x: self.w_2(self.dropout(torch.sigmoid(self.w_1(x))))),
        r"Your hidden activation is a sigmoid, not the ReLU",
    ),
    Mistake(
        check_EncoderLayer,
        LayerMaskUnsqueezed,
        r"`self\.self_attn` gets mask with an extra axis of size 1 inserted at position 1 "
        r"\(unsqueeze\(1\)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerMaskUnsqueezedLast,
        r"`self\.self_attn` gets mask with an extra axis of size 1 inserted at position 4 "
        r"\(unsqueeze\(4\)\)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerAttentionSizesSwapped,
        r"^(?![\s\S]*d_ff where)[\s\S]*the two sizes reached the attention exchanged, "
        r"MultiHeadAttention\(num_heads, d_model, \.\.\.\)",
    ),
    Mistake(
        check_Encoder,
        stack_class("EncoderMaskSqueezed", _stack_with_mask(lambda m: m.squeeze(1))),
        r"(layers\[0\] receives the stack's mask|self_attn` gets mask) with its axis 1, of "
        r"size 1, removed \(squeeze\(1\)",
    ),
    Mistake(
        check_Encoder,
        stack_class("EncoderMaskIndexed", _stack_with_mask(lambda m: m[:, :, 0])),
        r"(layers\[0\] receives the stack's mask|self_attn` gets mask) with its axis 1, of "
        r"size 1, removed",
    ),
]


# ---------------------------------------------------------------- round 15 (r15c)
class LayerFeedForwardKeywordsSwapped(ref.EncoderLayer):
    """d_ff and dropout exchanged by keyword on the way to the feed-forward block."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.feed_forward = ref.PositionwiseFeedForward(d_model, d_ff=dropout, dropout=d_ff)


R15C_MISTAKES = [
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class(
            "FFNClampedInput",
            lambda self, x: self.w_2(self.dropout(self.w_1(x.clamp(min=0)))),
        ),
        r"Your ReLU is applied to the block's input, before w_1",
    ),
    Mistake(
        check_EncoderLayer,
        LayerFeedForwardKeywordsSwapped,
        r"raised TypeError: .* Built with dropout=0 instead, your layer's nn\.Dropout is handed "
        r"\d+, which is d_ff: d_ff and dropout reach the feed-forward block in swapped places",
    ),
]


# ---------------------------------------------------------------- round 17 (fix17g)
class LayerNorm2EpsFromRate(LayerBase):
    """The dropout rate handed to the second norm as its eps, LayerNorm(d_model, dropout)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.norm2 = ref.LayerNorm(d_model, dropout)

    def forward(self, x, mask=None):
        return ref.EncoderLayer.forward(self, x, mask)


class LayerPreLNWithoutReturn(LayerBase):
    """The pre-LN branch ends in an assignment: the post-LN lines run on its result."""

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.dropout(self.attend(self.norm1(x), mask))
            x = x + self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.dropout(self.attend(x, mask)))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerDropsTheStream(LayerBase):
    """The residual dropout applied to the stream, dropout(x) + sublayer(...), both layouts."""

    def forward(self, x, mask=None):
        blocks = ((self.norm1, lambda h: self.attend(h, mask)), (self.norm2, self.feed_forward))
        for norm, sublayer in blocks:
            if self.norm_first:
                x = self.dropout(x) + sublayer(norm(x))
            else:
                x = norm(self.dropout(x) + sublayer(x))
        return x


class LayerNorm2WithoutAffine(LayerBase):
    """The second norm built as nn.LayerNorm without its learned gain and bias."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.norm2 = nn.LayerNorm(d_model, eps=1e-5, elementwise_affine=False)

    def forward(self, x, mask=None):
        return ref.EncoderLayer.forward(self, x, mask)


def _mean_of_everything(self, x):
    centred = x - torch.mean(x)  # one mean for the whole batch
    return centred / torch.sqrt(x.var(dim=-1, keepdim=True, correction=0) + self.eps)


class LNDoubleParameters(LNBase):
    """Gain and bias kept in float64 "for precision": a float32 x comes back float64."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        self.weight = nn.Parameter(torch.ones(d_model).double())
        self.bias = nn.Parameter(torch.zeros(d_model).double())

    def forward(self, x):
        return self.weight * _var_mean(self, x) + self.bias


R17G_MISTAKES = [
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNHiddenReturned", lambda self, x: self.dropout(F.relu(self.w_1(x)))),
        r"has shape \(\d+, \d+, (\d+)\)\. Yours returns d_ff = \1 features per token, the hidden "
        r"activations, and `self\.w_2` is never called",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNMeanOfEverything", _mean_of_everything),
        r"Your mean is one number for the whole tensor \(x\.mean\(\) with no dim",
    ),
    Mistake(
        check_LayerNorm,
        LNDoubleParameters,
        r"should have dtype torch\.float32, but it has dtype torch\.float64\. Your `weight` and "
        r"`bias` are torch\.float64",
    ),
    Mistake(
        check_EncoderLayer,
        LayerNorm2WithoutAffine,
        r"missing: \['norm2\.bias', 'norm2\.weight'\].* `norm2` has no learned gain and bias .*"
        r"elementwise_affine=False",
    ),
    Mistake(
        check_EncoderLayer,
        LayerNorm2EpsFromRate,
        r"`self\.norm2` normalises with eps = 0\.\d+ .* That is the dropout rate, 0\.\d+: it "
        r"reaches LayerNorm's second parameter, eps",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPreLNWithoutReturn,
        r"computes the whole pre-LN layer and then the whole post-LN layer on its result.*falls "
        r"through",
    ),
    Mistake(
        check_EncoderLayer,
        LayerDropsTheStream,
        r"your dropout acts on the residual stream, dropout\(x\) \+ sublayer\(\.\.\.\)",
    ),
]


class LayerDropoutDefaultThird(ref.EncoderLayer):
    """A default dropout rate of 0.3 (blind round 15: a default rate other than 0.0 was
    accepted, the defaults being compared in eval mode only)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.3, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)


class EncoderDropoutDefaultFifth(ref.Encoder):
    """The stack's default rate 0.2 (the stack twin; before: accepted)."""

    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.2, **kw):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, **kw)


class LayerNormFirstBeforeDropout(ref.EncoderLayer):
    """__init__(d_model, num_heads, d_ff, norm_first, dropout): the two last parameters in
    the other order (before: accepted, every check passed them by keyword)."""

    def __init__(self, d_model, num_heads, d_ff, norm_first=False, dropout=0.0):
        super().__init__(d_model, num_heads, d_ff, dropout=dropout, norm_first=norm_first)


class EncoderDropoutLast(ref.Encoder):
    """__init__(..., norm_first, final_norm, dropout): the rate moved to the end, a rotation
    of the three (before: accepted)."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, norm_first=False, final_norm=None, dropout=0.0
    ):
        super().__init__(
            num_layers,
            d_model,
            num_heads,
            d_ff,
            dropout=dropout,
            norm_first=norm_first,
            final_norm=final_norm,
        )


def _statistics_without_grad(self, x):
    """The statistics computed under torch.no_grad() ("they are only constants")."""
    with torch.no_grad():
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + self.eps)


def _variance_data(self, x):
    """Only the variance cut from the graph, through .data."""
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True).data
    return (x - mean) / (var + self.eps).sqrt()


class LNCachedStatistics(LNBase):
    """Statistics taken on the first call, in a dict, and reused by every later call
    ("as BatchNorm at inference")."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        self.cache = {}

    def forward(self, x):
        if "std" not in self.cache:
            self.cache["mu"] = x.mean(-1, keepdim=True)
            self.cache["std"] = (x.var(-1, keepdim=True, unbiased=False) + self.eps).sqrt()
        return self.weight * (x - self.cache["mu"]) / self.cache["std"] + self.bias


def _std_half_power(self, x):
    """std = (var + eps) ** 1/2 on its own line: half the variance, not its root."""
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
    std = (var + self.eps) ** 1 / 2
    return (x - mean) / std


def _output_dropped_too(self, x):
    """The hidden dropout, and F.dropout once more on the block's output."""
    hidden = self.dropout(F.relu(self.w_1(x)))
    return F.dropout(self.w_2(hidden), p=self.dropout.p, training=self.training)


def _second_bias_again(self, x):
    """b_2 added by hand after nn.Linear has added it."""
    return self.w_2(self.dropout(torch.relu(self.w_1(x)))) + self.w_2.bias


class LayerPostFeedForwardResidualTwice(LayerBase):
    """Post-LN whose feed-forward block keeps the stream beside the normalised sum,
    h + norm2(h + ffn(h)) (pre-LN right)."""

    def forward(self, x, mask=None):
        if self.norm_first:
            return layer_variant("_").forward(self, x, mask)
        h = self.norm1(x + self.dropout(self.attend(x, mask)))
        normalised = self.norm2(h + self.dropout(self.feed_forward(h)))
        return h + normalised


R18G_MISTAKES = [
    Mistake(
        check_EncoderLayer,
        LayerPostFeedForwardResidualTwice,
        r"adds x once more around the normalised sum, x = x \+ norm2\(x \+ "
        r"dropout\(feed_forward\(\.\.\.\)\)\): the residual is added twice",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNOutputDroppedToo", _output_dropped_too),
        r"and so is the input of w_2: your dropout acts twice",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        ffn_class("FFNSecondBiasAgain", _second_bias_again),
        r"The second bias is added twice: nn\.Linear already adds its bias",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNStdHalfPower", _std_half_power),
        r"You divide by \(var \+ eps\) / 2, half the variance.*operator precedence",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNStatisticsWithoutGrad", _statistics_without_grad),
        r"values of .* are right, but its gradient with respect to x2 is not nn\.LayerNorm's: "
        r"it is what you get when no gradient flows through the mean and the variance",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNVarianceData", _variance_data),
        r"no gradient flows through the variance \(",
    ),
    Mistake(
        check_LayerNorm,
        LNCachedStatistics,
        r"normalises it with the mean and variance of the first call's input",
    ),
    Mistake(
        check_EncoderLayer,
        LayerDropoutDefaultThird,
        r"gives another result in train mode than EncoderLayer\(8, 2, 16, dropout=0\.0\).*your "
        r"default dropout rate is not 0\.0, the contract's\. Yours is 0\.3",
    ),
    Mistake(
        check_Encoder,
        EncoderDropoutDefaultFifth,
        r"your default dropout rate is not 0\.0, the contract's\. Yours is 0\.2",
    ),
    Mistake(
        check_EncoderLayer,
        LayerNormFirstBeforeDropout,
        r"passed by position.*your dropout and norm_first are exchanged",
    ),
    Mistake(
        check_Encoder,
        EncoderDropoutLast,
        r"passed by position.*not in the contract's order, \(dropout, norm_first, "
        r"final_norm\)(?![\s\S]*exchanged)",
    ),
]


# ------------------------------------------------------------------------------- round 19
class LayerMaskPermutedForAttention(LayerBase):
    """Hands the self-attention the padding mask permuted to (batch, 1, len, 1): it blocks
    the padded query rows, not the padded keys (round 19; before: told that dropout acts in
    eval mode)."""

    def attend(self, h, mask):
        rows = None if mask is None else mask.permute(0, 1, 3, 2)  # (batch, 1, len, 1)
        return self.self_attn(h, h, h, rows)[0]

    forward = LayerAnnotatedStyle.forward
    connect = LayerAnnotatedStyle.connect


class LayerAttentionRateAsHeads(nn.Module):
    """Builds the self-attention with the rate and the head count in each other's places
    (round 19; before: a division by zero inside the course's code, no cause)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        self.norm_first = norm_first
        self.norm1, self.norm2 = ref.LayerNorm(d_model), ref.LayerNorm(d_model)
        self.self_attn = MultiHeadAttention(d_model, dropout, num_heads)
        self.feed_forward = ref.PositionwiseFeedForward(d_model, d_ff, dropout)
        self.dropout = nn.Dropout(dropout)

    forward = ref.EncoderLayer.forward


def _mean_times_rsqrt(self, x):
    """x - mean * rsqrt(var + eps): the brackets around x - mean left out."""
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, unbiased=False)
    return x - mean * torch.rsqrt(var + self.eps)


class LNMeanAloneScaled(LNBase):
    """std on its own line, and the bracket left out around x - mean, the gain multiplying
    the divided mean alone."""

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        std = torch.sqrt(x.var(dim=-1, keepdim=True, unbiased=False) + self.eps)
        return x - mean / std * self.weight + self.bias


class LayerResidualDropoutsFromHeads(LayerTorchStyle):
    """PyTorch's two residual dropouts, each built with the head count as its rate."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.dropout1, self.dropout2 = nn.Dropout(num_heads), nn.Dropout(num_heads)


class LayerAttentionRateFromHeads(ref.EncoderLayer):
    """The self-attention built with the head count as its rate: the probe that names a
    residual dropout must not name it here."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.self_attn = MultiHeadAttention(d_model, num_heads, num_heads)


def _padding_from_zero_vectors(self, x, mask=None):
    if mask is None:  # the padding read off all-zero vectors: (batch, len)
        mask = x.abs().sum(dim=-1) != 0
    for layer in self.layers:
        x = layer(x, mask)
    return self.finish(x)


def _all_true_mask_when_none(self, x, mask=None):
    if mask is None:  # (batch, 1, 1, len): allows every key, as None does
        mask = torch.ones(x.shape[0], 1, 1, x.shape[1], dtype=torch.bool)
    for layer in self.layers:
        x = layer(x, mask)
    return self.finish(x)


R19G_MISTAKES = [
    Mistake(
        check_EncoderLayer,
        LayerResidualDropoutsFromHeads,
        r"raised ValueError[^\n]*got \d+\nThe rate \d+ is num_heads\. Built with num_heads=1 and "
        r"dropout=0\.0 instead, your layer in train mode drops both sub-layers' outputs whole"
        r".*nn\.Dropout\(num_heads\) where nn\.Dropout\(dropout\) belongs",
    ),
    Mistake(
        check_EncoderLayer,
        LayerAttentionRateFromHeads,
        r"^(?![\s\S]*outputs whole)[\s\S]*raised ValueError",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNMeanTimesRsqrt", _mean_times_rsqrt),
        r"Only the mean is divided by the standard deviation: yours is x - mean / sqrt\(var "
        r"\+ eps\).*operator precedence",
    ),
    Mistake(
        check_LayerNorm,
        LNMeanAloneScaled,
        r"Only the mean is (divided by the standard deviation|normalised and scaled).*operator "
        r"precedence",
    ),
    Mistake(
        check_EncoderLayer,
        LayerAttentionRateAsHeads,
        r"raised ZeroDivisionError[\s\S]*dropout=0\.5 instead, your layer hands nn\.Dropout the "
        r"rate \d, which is num_heads\. num_heads and dropout reach the self-attention in "
        r"swapped places",
    ),
    Mistake(
        check_EncoderLayer,
        LayerMaskPermutedForAttention,
        r"Your layer's mask blocks the padded query rows instead of the padded key columns"
        r"(?![\s\S]*switched to eval)",
    ),
    Mistake(
        check_Encoder,
        stack_class("EncoderPaddingFromZeroVectors", _padding_from_zero_vectors),
        r"called with mask=None, and `layers\.0` received a mask of shape \(2, 4\): your "
        r"stack hands on a mask of its own making when mask is None.*A \(batch, len\) mask",
    ),
]


def test_eval_dropout_advice_only_where_the_rate_changes_the_eval_output():
    """The advice that dropout acts in eval mode is given only where the same layer built
    with dropout=0.0 gives another eval-mode output (round 19: a mask mistake was given it)."""
    torch.manual_seed(0)
    layer = ref.EncoderLayer(8, 2, 16, 0.2).eval()
    x = torch.randn(2, 5, 8)  # (batch, len, d_model)
    got = layer(x)

    def at_rate_zero():
        other = ref.EncoderLayer(8, 2, 16, 0.0)
        other.load_state_dict(layer.state_dict())
        return other.eval()

    assert eval_dropout_hint(at_rate_zero, (x,), got, 0.2) == ""
    assert "switched to eval()" in eval_dropout_hint(at_rate_zero, (x,), got * 0.8, 0.2)
    assert "switched to eval()" in eval_dropout_hint(lambda: 1 / 0, (x,), got, 0.2)


# ------------------------------------------------------- round 34: families, not instances
class LayerAttentionScaledBySqrtDModel(LayerBase):
    """Post-LN, the attention's output multiplied by sqrt(d_model) before the residual sum
    (the embedding's scale carried over to a sub-layer): "a term of the residual sum scaled
    by a size" (the residual sums' coefficients fitted freely, named when recognisable)."""

    def forward(self, x, mask=None):
        scale = math.sqrt(x.shape[-1])
        if self.norm_first:
            x = x + scale * self.dropout(self.attend(self.norm1(x), mask))
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + scale * self.dropout(self.attend(x, mask)))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerPreFeedForwardOverSqrtTwo(LayerBase):
    """Pre-LN, the feed-forward's output divided by sqrt(2) before it joins the stream: the
    same family on the other sub-layer and the other layout."""

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.dropout(self.attend(self.norm1(x), mask))
            return x + self.dropout(self.feed_forward(self.norm2(x))) / math.sqrt(2)
        x = self.norm1(x + self.dropout(self.attend(x, mask)))
        return self.norm2(x + self.dropout(self.feed_forward(x)) / math.sqrt(2))


class LayerAttentionTimesOnePointThree(LayerBase):
    """Post-LN, the attention's output times 1.3, a factor no size gives: the sibling that a
    too eager fit would name as a size; it is located (the residual sum around self_attn),
    never given a factor it does not have."""

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + 1.3 * self.dropout(self.attend(self.norm1(x), mask))
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + 1.3 * self.dropout(self.attend(x, mask)))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class FFNLeakyReLUModule(FFNBase):
    """nn.LeakyReLU(0.2) as the hidden activation (GAN code's habit): an activation named
    from its values as a leak of one slope, whatever the slope."""

    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__(d_model, d_ff, dropout)
        self.activation = nn.LeakyReLU(0.2)

    def forward(self, x):
        return self.w_2(self.dropout(self.activation(self.w_1(x))))


class FFNLeakySlopeTenth(FFNBase):
    def forward(self, x):
        return self.w_2(self.dropout(F.leaky_relu(self.w_1(x), negative_slope=0.1)))


def _eps_twice_outside(self, x):
    centred = x - x.mean(-1, keepdim=True)
    std = torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + self.eps)
    return centred / (std + self.eps)


def _eps_twice_inside(self, x):
    """The variance already holds eps, and the root adds it once more."""
    variance = x.var(-1, keepdim=True, unbiased=False) + self.eps
    return (x - x.mean(-1, keepdim=True)) / torch.sqrt(variance + self.eps)


def _roots_split(self, x):
    centred = x - x.mean(-1, keepdim=True)
    return centred / (x.var(-1, keepdim=True, unbiased=False).sqrt() + math.sqrt(self.eps))


def _unbiased_roots_split(self, x):
    """Two slips at once: torch.std's default (unbiased) and the roots taken apart."""
    return (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + self.eps**0.5)


def _std_alone(self, x):
    """x.std(-1) with no eps anywhere: told it divided by std + eps before."""
    return (x - x.mean(-1, keepdim=True)) / x.std(-1, keepdim=True)


def _eps_thrice_inside(self, x):
    """eps three times under the root: the count of eps read off the rebuild with eps=0.5."""
    variance = x.var(-1, keepdim=True, unbiased=False)
    return (x - x.mean(-1, keepdim=True)) / torch.sqrt(variance + 3 * self.eps)


def _eps_seven_times(self, x):
    """A count no learner writes (7): the sibling that the count's short list must not
    name as another count."""
    variance = x.var(-1, keepdim=True, unbiased=False)
    return (x - x.mean(-1, keepdim=True)) / torch.sqrt(variance + 7 * self.eps)


class FFNSecondBiasUnused(FFNBase):
    """The last step through F.linear with the weight alone: w_2's bias never used (told
    'largest difference' before); read off the parameters the last step used."""

    def forward(self, x):
        return F.linear(self.dropout(F.relu(self.w_1(x))), self.w_2.weight)


class FFNFirstBiasUnused(FFNBase):
    """The first step by hand, x @ W.T, the bias forgotten: the same family at w_1."""

    def forward(self, x):
        return self.w_2(self.dropout(F.relu(x @ self.w_1.weight.T)))


class LayerPostNorm2Functional(LayerBase):
    """Post-LN, the second sum normalised by F.layer_norm with no weight and bias: a
    normalisation without the module (told 'no LayerNorm runs' before)."""

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.dropout(self.attend(self.norm1(x), mask))
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.dropout(self.attend(x, mask)))
        y = x + self.dropout(self.feed_forward(x))
        return F.layer_norm(y, y.shape[-1:])


R34_MISTAKES = [
    Mistake(
        check_EncoderLayer,
        LayerPostNorm2Functional,
        r"residual sum after `self\.feed_forward` is normalised without `self\.norm2`.*no learned "
        r"gain and bias",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNSecondBiasUnused,
        r"h @ self\.w_2\.weight\.T reproduces your block's output exactly: self\.w_2\.bias is "
        r"never used",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNFirstBiasUnused,
        r"w_2\(relu\(x @ self\.w_1\.weight\.T\)\) exactly: self\.w_1\.bias is never used",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNEpsSevenTimes", _eps_seven_times),
        r"^(?![\s\S]*(enters the variance|twice|separately|squared under))[\s\S]*LayerNorm",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNEpsTwiceOutside", _eps_twice_outside),
        r"added twice: once under the square root and once more after it",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNEpsTwiceInside", _eps_twice_inside),
        r"added twice under the square root, sqrt\(var \+ 2 \* eps\)",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNRootsSplit", _roots_split),
        r"square roots of the variance and of eps separately.*(?<!unbiased one)$",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNUnbiasedRootsSplit", _unbiased_roots_split),
        r"square roots of the variance and of eps separately.* also the unbiased one",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNStdAlone", _std_alone),
        r"^(?![\s\S]*std \+ eps)[\s\S]*(unbiased standard deviation, x\.std\(-1\).*no eps at "
        r"all|sqrt\(15 / 16\))",
    ),
    Mistake(
        check_LayerNorm,
        ln_class("LNEpsThriceInside", _eps_thrice_inside),
        r"eps enters the variance 3 times, sqrt\(var \+ 3 \* eps\)",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNLeakyReLUModule,
        r"f\(z\) = F\.leaky_relu\(z, negative_slope=0\.2\).*it is not the ReLU",
    ),
    Mistake(
        check_PositionwiseFeedForward,
        FFNLeakySlopeTenth,
        r"f\(z\) = F\.leaky_relu\(z, negative_slope=0\.1\)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerAttentionTimesOnePointThree,
        r"^(?![\s\S]*sqrt)[\s\S]*is x \+ 1\.3 \* self_attn\(x\): the residual sum around "
        r"`self\.self_attn` has a wrong sign or factor",
    ),
    Mistake(
        check_EncoderLayer,
        LayerAttentionScaledBySqrtDModel,
        r"is x \+ \d\.\d+ \(sqrt\(\d+\)\) \* self_attn\(x\): the residual sum around "
        r"`self\.self_attn` has a wrong sign or factor",
    ),
    Mistake(
        check_EncoderLayer,
        LayerPreFeedForwardOverSqrtTwo,
        r"0\.7071 \(1/sqrt\(2\)\) \* feed_forward\(.*\).*has a wrong sign or factor",
    ),
]


# ------------------------------------------- round 35: a mask dropped on one path only
class LayerSkipsMaskWhenTraining(ref.EncoderLayer):
    """The padding mask left out in train mode ('the padding is dropped out anyway'): eval
    mode is right, the train cases run at dropout 1.0 (the sub-layers' outputs dropped
    whole) and without padding, so every value case passed (the family of blind29a-mha-
    mask-dropped-in-dropout-path, in a layer)."""

    def forward(self, x, mask=None):
        attend = None if self.training else mask
        return ref.EncoderLayer.forward(self, x, attend)


class EncoderMaskOnlyInEval(ref.Encoder):
    """The stack hands its layers the mask in eval mode only."""

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x) if self.training else layer(x, mask)
        return x if self.norm is None else self.norm(x)


class LayerIgnoresMaskEverywhere(ref.EncoderLayer):
    """The sibling: the mask never passed, in any mode, keeps its own message."""

    def forward(self, x, mask=None):
        return ref.EncoderLayer.forward(self, x, None)


class LayerTrainingBranchFunctionalDropout(ref.EncoderLayer):
    """Right: a training branch of its own (F.dropout on each sub-layer's output) that
    passes the mask as the eval branch does."""

    def forward(self, x, mask=None):
        if not self.training:
            return ref.EncoderLayer.forward(self, x, mask)
        p = self.dropout.p
        if self.norm_first:
            h = self.norm1(x)
            x = x + F.dropout(self.self_attn(h, h, h, mask)[0], p, training=True)
            return x + F.dropout(self.feed_forward(self.norm2(x)), p, training=True)
        x = self.norm1(x + F.dropout(self.self_attn(x, x, x, mask)[0], p, training=True))
        return self.norm2(x + F.dropout(self.feed_forward(x), p, training=True))


_MASK_ON_ONE_PATH = (
    r"Run again in two modes[\s\S]*the output at the real positions changes when x changes "
    r"at the padded ones: the mask is ignored there; in eval mode"
)
R35_MISTAKES = [
    Mistake(
        check_EncoderLayer,
        LayerSkipsMaskWhenTraining,
        _MASK_ON_ONE_PATH + r"[\s\S]*only in train mode \(under `if self\.training:`\)[\s\S]*"
        r"self\.self_attn\(x, x, x, mask\)",
    ),
    Mistake(
        check_Encoder,
        EncoderMaskOnlyInEval,
        _MASK_ON_ONE_PATH + r"[\s\S]*only in train mode \(under `if self\.training:`\)[\s\S]*"
        r"layer\(x, mask\)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerIgnoresMaskEverywhere,
        r"^(?![\s\S]*three modes)[\s\S]*Your layer ignores the mask: the real tokens attend",
    ),
]


# ------------------------------ round 37 (f37b): sub-layer structure, how a step departs
class LayerPreFeedForwardStreamShrunk(LayerBase):
    """Pre-LN, the stream shrunk by a constant no size gives before the feed-forward's
    residual sum, 0.9 * h + dropout(feed_forward(norm2(h))): the factor is fitted from the
    learner's own sub-results and said, whatever it is (the family of DeepNet's alpha)."""

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.attend(h, mask))
            return 0.9 * x + self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.dropout(self.attend(x, mask)))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class LayerSigmoidGatedFeedForward(LayerBase):
    """A learned scalar gate of its own on the feed-forward branch, x + sigmoid(g) *
    dropout(feed_forward(x)), g a parameter the contract does not have: the extra learned
    tensor is named with its shape and value at construction."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.ffn_gate_logit = nn.Parameter(torch.full((), 2.0))

    def forward(self, x, mask=None):
        gate = torch.sigmoid(self.ffn_gate_logit)
        if self.norm_first:
            x = x + self.dropout(self.attend(self.norm1(x), mask))
            return x + gate * self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.dropout(self.attend(x, mask)))
        return self.norm2(x + gate * self.dropout(self.feed_forward(x)))


class LayerResidualDropoutPerPosition(LayerBase):
    """The residual dropout drawn once per position (a mask of shape (batch, len, 1),
    whole token vectors kept or zeroed), F.dropout on a ones tensor so that p = 1 gives
    zeros and no NaN: every value case passes; the draw at dropout=0.5 tells."""

    def drop(self, y):
        keep = F.dropout(torch.ones(*y.shape[:2], 1), self.dropout.p, self.training)
        return y * keep

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.drop(self.attend(self.norm1(x), mask))
            return x + self.drop(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.drop(self.attend(x, mask)))
        return self.norm2(x + self.drop(self.feed_forward(x)))


class LayerResidualDropoutPerSentenceNoNaN(LayerBase):
    """Stochastic depth with torch.where, no division by zero at p = 1: one draw per
    sentence, the kept ones scaled by 1 / (1 - p). Every value case passes; the draw at
    dropout=0.5 tells."""

    def drop(self, y):
        p = self.dropout.p
        if not self.training or p == 0.0:
            return y
        keep = torch.rand(y.shape[0], 1, 1) >= p
        return torch.where(keep, y / max(1 - p, 1e-12), torch.zeros_like(y))

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.drop(self.attend(self.norm1(x), mask))
            return x + self.drop(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.drop(self.attend(x, mask)))
        return self.norm2(x + self.drop(self.feed_forward(x)))


R37B_MISTAKES = [
    Mistake(
        check_EncoderLayer,
        LayerPreFeedForwardStreamShrunk,
        r"is 0\.9 \* h \+ feed_forward\(\.\.\.\).*the residual sum around `self\.feed_forward` "
        r"has a wrong sign or factor",
    ),
    Mistake(
        check_EncoderLayer,
        LayerSigmoidGatedFeedForward,
        r"has 1 extra learned tensor of its own that the contract does not have[\s\S]*"
        r"`ffn_gate_logit` \(one number, 2 at construction\)",
    ),
    Mistake(
        check_EncoderLayer,
        LayerResidualDropoutPerPosition,
        r"after `self\.self_attn`[\s\S]*your dropout zeroes whole positions",
    ),
    Mistake(
        check_EncoderLayer,
        LayerResidualDropoutPerSentenceNoNaN,
        r"after `self\.self_attn`[\s\S]*your dropout zeroes whole sentences: one draw per "
        r"sentence",
    ),
]


class EncoderNormKeptAside(StackBase):
    """A final norm built in every configuration, its use decided in forward from the
    settings kept as attributes: right values, but `norm` is not None where the contract's
    is (state-dict keys norm.weight and norm.bias that it must not have)."""

    def __init__(
        self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False, final_norm=None
    ):
        super().__init__(num_layers, d_model, num_heads, d_ff, dropout, norm_first, True)
        self.settings = (norm_first, final_norm)

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        norm_first, final_norm = self.settings
        wanted = final_norm if final_norm is not None else norm_first
        return self.norm(x) if wanted else x


class EncoderPadsMaskedAsQueries(StackBase):
    """The padding mask widened so that a pad neither attends nor is attended to: each
    row of the mask ANDed with the column of the same positions; the pads' own rows are
    then fully blocked."""

    def forward(self, x, mask=None):
        if mask is not None:
            mask = mask & mask.squeeze(1).unsqueeze(-1)  # (batch, 1, len, len)
        for layer in self.layers:
            x = layer(x, mask)
        return x if self.norm is None else self.norm(x)


class EncoderPadsOnQueriesOnly(StackBase):
    """The sibling: the mask's last two axes swapped, (batch, 1, len, 1): pads on the
    query axis only (the real tokens still see them)."""

    def forward(self, x, mask=None):
        if mask is not None:
            mask = mask.transpose(-1, -2)
        for layer in self.layers:
            x = layer(x, mask)
        return x if self.norm is None else self.norm(x)


R37C_MISTAKES = [
    Mistake(
        check_Encoder,
        EncoderPadsMaskedAsQueries,
        r"layers\[0\] receives a mask other than the stack's mask: your mask blocks the pads "
        r"as queries as well as keys",
    ),
    Mistake(
        check_Encoder,
        EncoderPadsOnQueriesOnly,
        r"^(?![\s\S]*as queries as well)[\s\S]*pads sit on the query axis",
    ),
    Mistake(
        check_Encoder,
        EncoderNormKeptAside,
        r"has a final LayerNorm `norm` that it never applies: changing its parameters "
        r"\(norm\.weight, norm\.bias\) leaves the output exactly as it was.*`norm` is None",
    ),
]

test_classic_mistake, test_correct_variant = lesson_tests(
    [
        *LN_MISTAKES,
        *FFN_MISTAKES,
        *LAYER_MISTAKES,
        *ENCODER_MISTAKES,
        *R12G_MISTAKES,
        *R15C_MISTAKES,
        *R17G_MISTAKES,
        *R18G_MISTAKES,
        *R19G_MISTAKES,
        *R34_MISTAKES,
        *R35_MISTAKES,
        *R37B_MISTAKES,
        *R37C_MISTAKES,
    ],
    [
        *(Correct(check_LayerNorm, cls) for cls in LN_CORRECT),
        *(Correct(check_PositionwiseFeedForward, cls) for cls in FFN_CORRECT),
        *(
            Correct(check_EncoderLayer, cls)
            for cls in [*LAYER_CORRECT, LayerTrainingBranchFunctionalDropout]
        ),
        *(
            Correct(check_Encoder, cls)
            for cls in [
                *ENCODER_CORRECT,
                stack_class("EncoderAllTrueMaskWhenNone", _all_true_mask_when_none),
            ]
        ),
    ],
)


# ======================================================================================= oracles
def torch_encoder_layer(ours, d_model, num_heads, d_ff, norm_first):
    theirs = nn.TransformerEncoderLayer(
        d_model, num_heads, d_ff, 0.0, batch_first=True, norm_first=norm_first
    )
    with torch.no_grad():
        copy_attention(ours.self_attn, theirs.self_attn)
        theirs.linear1.weight.copy_(ours.feed_forward.w_1.weight)
        theirs.linear1.bias.copy_(ours.feed_forward.w_1.bias)
        theirs.linear2.weight.copy_(ours.feed_forward.w_2.weight)
        theirs.linear2.bias.copy_(ours.feed_forward.w_2.bias)
        copy_norm(ours.norm1, theirs.norm1)
        copy_norm(ours.norm2, theirs.norm2)
    return theirs.eval()


def padded_ids(left=False):
    """(3, 6) source ids with <pad> = 0 at the end of two rows (or at their start)."""
    if left:
        return torch.tensor([[0, 0, 5, 6, 7, 8], [3, 4, 5, 6, 7, 8], [0, 0, 0, 0, 9, 4]])
    return torch.tensor([[5, 6, 7, 8, 0, 0], [3, 4, 5, 6, 7, 8], [9, 4, 0, 0, 0, 0]])


@pytest.mark.parametrize("shape", [(3, 5, 16), (7, 12), (2, 2, 3, 6), (1, 4, 512)])
@pytest.mark.parametrize("eps", [1e-5, 1e-3, 0.1])
def test_layer_norm_matches_nn_layer_norm(shape, eps):
    ours = randomize(ref.LayerNorm(shape[-1], eps=eps), seed=1)
    theirs = nn.LayerNorm(shape[-1], eps=eps)
    with torch.no_grad():
        copy_norm(ours, theirs)
    x = torch.randn(shape, generator=torch.Generator().manual_seed(2)) * 3 + 1
    with torch.no_grad():
        torch.testing.assert_close(ours(x), theirs(x), rtol=1e-5, atol=1e-6)
    fresh = ref.LayerNorm(shape[-1])
    assert torch.equal(fresh.weight, torch.ones(shape[-1]))
    assert torch.equal(fresh.bias, torch.zeros(shape[-1]))
    assert fresh.eps == 1e-5 == nn.LayerNorm(4).eps


def test_layer_norm_normalises_each_token_on_its_own():
    x = torch.randn(3, 6, 10, generator=torch.Generator().manual_seed(3)) * 4 + 2
    with torch.no_grad():
        y = ref.LayerNorm(10)(x)
    torch.testing.assert_close(y.mean(-1), torch.zeros(3, 6), atol=1e-5, rtol=0)
    torch.testing.assert_close(y.var(-1, unbiased=False), torch.ones(3, 6), atol=1e-3, rtol=0)
    with torch.no_grad():  # a token's result does not depend on the other tokens
        torch.testing.assert_close(ref.LayerNorm(10)(x[1:2, 2:3]), y[1:2, 2:3])


def test_feed_forward_is_the_papers_formula_and_a_per_token_map():
    ffn = randomize(ref.PositionwiseFeedForward(8, 32), seed=4).eval()
    x = torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(5))
    w1, b1 = ffn.w_1.weight.detach().T, ffn.w_1.bias.detach()
    w2, b2 = ffn.w_2.weight.detach().T, ffn.w_2.bias.detach()
    expected = torch.clamp(x @ w1 + b1, min=0) @ w2 + b2  # max(0, x W1 + b1) W2 + b2
    with torch.no_grad():
        torch.testing.assert_close(ffn(x), expected)
        order = torch.tensor([3, 0, 4, 1, 2])
        torch.testing.assert_close(ffn(x[:, order]), ffn(x)[:, order])


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("padding", [None, "right", "left"])
def test_encoder_layer_matches_nn_transformer_encoder_layer(norm_first, padding):
    d_model, num_heads, d_ff = 16, 4, 40
    ours = randomize(ref.EncoderLayer(d_model, num_heads, d_ff, 0.0, norm_first), seed=6).eval()
    theirs = torch_encoder_layer(ours, d_model, num_heads, d_ff, norm_first)
    ids = padded_ids(left=padding == "left")
    x = torch.randn(3, 6, d_model, generator=torch.Generator().manual_seed(7))
    mask, kwargs = None, {}
    if padding:
        mask, kwargs = padding_mask(ids, 0), {"src_key_padding_mask": ids == 0}
    with torch.no_grad():
        torch.testing.assert_close(ours(x, mask), theirs(x, **kwargs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("norm_first", "final_norm"), [(False, None), (False, True), (True, None), (True, False)]
)
def test_encoder_matches_nn_transformer_encoder(norm_first, final_norm):
    num_layers, d_model, num_heads, d_ff = 3, 16, 4, 32
    ours = randomize(
        ref.Encoder(num_layers, d_model, num_heads, d_ff, 0.0, norm_first, final_norm), 8
    ).eval()
    template = nn.TransformerEncoderLayer(
        d_model, num_heads, d_ff, 0.0, batch_first=True, norm_first=norm_first
    )
    use_norm = ours.norm is not None
    theirs = nn.TransformerEncoder(
        template,
        num_layers,
        norm=nn.LayerNorm(d_model) if use_norm else None,
        enable_nested_tensor=False,
    ).eval()
    with torch.no_grad():
        for layer_ours, layer_theirs in zip(ours.layers, theirs.layers, strict=True):
            mine = torch_encoder_layer(layer_ours, d_model, num_heads, d_ff, norm_first)
            layer_theirs.load_state_dict(mine.state_dict())
        if use_norm:
            copy_norm(ours.norm, theirs.norm)
    assert use_norm == (norm_first if final_norm is None else final_norm)
    ids = padded_ids()
    x = torch.randn(3, 6, d_model, generator=torch.Generator().manual_seed(9))
    with torch.no_grad():
        got = ours(x, padding_mask(ids, 0))
        expected = theirs(x, src_key_padding_mask=ids == 0)
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)


def test_layers_of_a_stack_are_independent():
    encoder = ref.Encoder(3, 8, 2, 16)
    weights = [layer.feed_forward.w_1.weight for layer in encoder.layers]
    assert len({id(w) for w in weights}) == 3
    assert not torch.equal(weights[0], weights[1])


def test_dropout_one_in_train_mode_gives_the_documented_results():
    x = torch.randn(2, 4, 8, generator=torch.Generator().manual_seed(10))
    post = randomize(ref.EncoderLayer(8, 2, 16, dropout=1.0), seed=11).train()
    pre = randomize(ref.EncoderLayer(8, 2, 16, dropout=1.0, norm_first=True), seed=12).train()
    ffn = randomize(ref.PositionwiseFeedForward(8, 16, dropout=1.0), seed=13).train()
    with torch.no_grad():
        torch.testing.assert_close(post(x), post.norm2(post.norm1(x)))
        torch.testing.assert_close(pre(x), x)
        torch.testing.assert_close(ffn(x), ffn.w_2.bias.expand(2, 4, 8))
        post.dropout.p = 0.0  # p = 0 in train mode is eval
        post.self_attn.dropout.p = post.feed_forward.dropout.p = 0.0
        torch.testing.assert_close(post(x), post.eval()(x))


def test_checks_are_deterministic_and_leave_global_rng_alone(capsys):
    torch.manual_seed(0)
    before = torch.rand(3)
    torch.manual_seed(0)
    check_Encoder(ref.Encoder)
    check_LayerNorm(ref.LayerNorm, hidden=True)
    assert torch.equal(torch.rand(3), before)
    assert "✓ Encoder: all" in capsys.readouterr().out


def test_paper_sizes():
    """Paper, section 3.3: d_model = 512, d_ff = 2048; one layer's feed-forward block holds
    2 * 512 * 2048 + 2048 + 512 parameters, twice its attention's 4 * 512^2 + 4 * 512."""
    ffn = ref.PositionwiseFeedForward(512, 2048)
    assert sum(p.numel() for p in ffn.parameters()) == 2 * 512 * 2048 + 2048 + 512 == 2_099_712
    layer = ref.EncoderLayer(512, 8, 2048)
    assert sum(p.numel() for p in layer.parameters()) == 2_099_712 + 1_050_624 + 2 * 1024
    assert math.isclose(2_099_712 / 1_050_624, 2.0, rel_tol=1e-3)


@pytest.mark.parametrize(
    "answer, named",
    [
        # the axes of the whole sentence, in place of the letter: told choice (d) and why
        # it is wrong (not blind13g-quiz-ln-axis-returns-dim's -1)
        ((1, 2), r"the axes \(1, 2\).*choice \(d\).*\(d\) is not right either"),
        (2, r"the axis 2, the last one.*features, which is choice \(b\).*return \"b\""),
        (0, r"the axis 0, the batch axis, which is choice \(a\).*BatchNorm"),
        # a number that is no axis keeps the plain form message
        (512, r"returned the number 512, an int: this question is answered with a letter"),
    ],
)
def test_quiz_layer_norm_axis_reads_an_axis_as_the_choice_it_means(answer, named):
    from transformer_course.checking import CheckFailure
    from transformer_course.checks.encoder import check_quiz_layer_norm_axis

    with pytest.raises(CheckFailure, match=named):
        check_quiz_layer_norm_axis(lambda: answer)
