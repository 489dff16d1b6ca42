"""Normalisations in float64, from their formulas: LayerNorm (lesson 07) and RMSNorm
(lesson 11), each with one knob per classic mistake. Shapes: x (..., d_model) in and out."""

from __future__ import annotations

from collections.abc import Mapping

import torch

__all__ = ["layer_norm_f", "rms_norm_f"]


def layer_norm_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    eps: float = 1e-5,
    *,
    unbiased: bool = False,
    eps_at: str = "inside",
    over: str | tuple[int, ...] = "features",
    gain: bool = True,
    shift: bool = True,
    swap: bool = False,
    mean_over: tuple[int, ...] | None = None,
    invert: bool = False,
    center: bool = True,
    mean_added: bool = False,
    variance: str = "centred",
    numerator: str = "centred",
    gain_as: str = "multiplier",
    stats_swapped: bool = False,
    shift_sign: int = 1,
) -> torch.Tensor:
    """LayerNorm in float64: (x - mean) / sqrt(var + eps) * weight + bias over d_model,
    ``p`` holding ``weight`` and ``bias`` (d_model,). x (..., d_model) -> (..., d_model).

    Knobs: ``unbiased`` (the variance divided by n - 1); ``over`` "features" (right),
    "sequence" (dim -2), "batch" (every axis but the features, BatchNorm's statistics),
    "sequence_and_features" (dims -2, -1), "everything", "axis_2" (dim=2 hard-coded), or
    a tuple of dims;
    ``eps_at`` "inside" (right), "outside" (std + eps), "none", "no_sqrt" (a division
    by var + eps, no square root); ``gain``/``shift`` False
    leave out weight/bias; ``swap`` exchanges weight and bias; ``mean_over``: the mean that
    is subtracted taken over these dims (the variance as ``over`` says); ``invert``:
    (x - mean) multiplied by the root instead of divided (a division by rsqrt); ``center``
    False: no mean subtracted, x divided by its root mean square (T5's RMS-style norm);
    ``mean_added``: x + mean where x - mean belongs (the variance still the right one);
    ``eps_at`` also "squared" ((var + eps) ** 2 where the root belongs) and "subtracted"
    (sqrt(var - eps)) and "numerator" ((x - mean + eps) / sqrt(var)); ``variance`` "uncentred": the mean of x² around 0 while the
    numerator is centred; ``numerator`` "x": x divided, not x - mean (the statistics
    right); ``gain_as`` "divisor" (the normalised x divided by the weight), "over_centred"
    (weight / (x - mean) / sqrt(var + eps)), "first" (x multiplied by the weight before
    the statistics, so that they cancel it), "affine_first" (weight * x + bias taken
    first, then normalised, nothing applied after), "bias_inside" (weight * (normalised + bias):
    the bias added before the gain, so scaled by it); ``stats_swapped``: the mean and the variance
    exchanged (torch.var_mean's (variance, mean) unpacked as (mean, variance));
    ``shift_sign`` -1: the bias subtracted."""
    x = x.double()
    if gain_as == "first":  # the statistics of x * weight: the gain normalised away
        x = x * p["weight"].double()
    if gain_as == "affine_first":  # weight * x + bias, then the plain normalisation
        x = x * p["weight"].double() + p["bias"].double()
        gain = shift = False
    dims = (
        over
        if isinstance(over, tuple)
        else {
            "features": (-1,),
            "sequence": (-2,),
            "batch": tuple(range(x.dim() - 1)),
            "sequence_and_features": (-2, -1),
            "everything": tuple(range(x.dim())),
            "axis_2": (2,),  # dim=2 hard-coded: right for (batch, len, d_model) only
        }[over]
    )
    var = x.var(dim=dims, keepdim=True, correction=1 if unbiased else 0)
    mean = x.mean(dim=dims if mean_over is None else mean_over, keepdim=True)
    if not center:  # the mean of the squares, around 0
        mean = torch.zeros_like(mean)
        var = x.pow(2).mean(dim=dims, keepdim=True)
    if variance == "uncentred":  # the second moment around 0, the numerator centred
        var = x.pow(2).mean(dim=dims, keepdim=True)
    if variance == "absolute":  # the mean absolute deviation where the variance belongs
        var = (x - x.mean(dim=dims, keepdim=True)).abs().mean(dim=dims, keepdim=True)
    if stats_swapped:
        mean, var = var, mean
    if mean_added:  # x - (-mean)
        mean = -mean
    if numerator == "x":  # the statistics right, the mean never subtracted from x
        mean = torch.zeros_like(mean)
    if gain_as == "over_centred":
        y = p["weight"].double() / (x - mean) / torch.sqrt(var + eps)
        return y + p["bias"].double() if shift else y
    if invert:
        y = (x - mean) * torch.sqrt(var + eps)
    elif eps_at == "inside":
        y = (x - mean) / torch.sqrt(var + eps)
    elif eps_at == "outside":
        y = (x - mean) / (torch.sqrt(var) + eps)
    elif eps_at == "no_sqrt":
        y = (x - mean) / (var + eps)
    elif eps_at == "squared":
        y = (x - mean) / (var + eps) ** 2
    elif eps_at == "subtracted":
        y = (x - mean) / torch.sqrt(var - eps)
    elif eps_at == "numerator":  # (x - mean + eps) / sqrt(var): eps on the wrong side
        y = (x - mean + eps) / torch.sqrt(var)
    else:
        y = (x - mean) / torch.sqrt(var)
    weight, bias = p["weight"].double(), p["bias"].double()
    if swap:
        weight, bias = bias, weight
    if gain and shift and gain_as == "bias_inside":  # weight * (y + bias): the bias scaled
        return (y + shift_sign * bias) * weight
    if gain and gain_as == "divisor":
        y = y / weight
    elif gain and gain_as != "first":
        y = y * weight
    if shift:
        y = y + shift_sign * bias
    return y


def rms_norm_f(
    x: torch.Tensor,
    p: Mapping[str, torch.Tensor],
    eps: float = 1e-5,
    *,
    statistic: str = "mean_square",
    eps_at: str = "inside",
    over: str = "features",
    gain: bool = True,
    centre: bool = False,
    invert: bool = False,
    unit_offset: bool = False,
    root: bool = True,
    divide_gain: bool = False,
    gain_first: bool = False,
    gain_op: str = "multiply",
) -> torch.Tensor:
    """RMSNorm in float64: x / sqrt(mean(x²) + eps) * weight, ``p`` holding ``weight``
    (d_model,). x (..., d_model) -> (..., d_model).

    Knobs: ``statistic`` "mean_square" (right), "mean" (the plain mean), "variance"
    (LayerNorm without a bias: the mean subtracted), "sum_square", "std" (x divided by its standard deviation: x.var(correction=0) as the
    statistic, x not centred), "std_unbiased" (the same with torch's default, unbiased
    x.var()), "variance_unbiased" (a LayerNorm with the unbiased variance); ``eps_at`` "inside",
    "outside", "none", "subtracted" (sqrt(mean(x²) - eps)), "reciprocal" (x * (rsqrt(mean(x²)) + eps)); ``over`` "features", "sequence", "sequence_and_features", "everything", "first" (dim=0: the batch of a 3-D input); ``gain`` False
    leaves out the weight; ``centre``: the mean subtracted from the numerator only (the
    statistic still from x); ``invert``: multiplied by the root (divided by rsqrt);
    ``unit_offset``: multiplied by 1 + weight (Gemma's gain stored as an offset from one);
    ``root`` False: divided by the mean square itself (no square root);
    ``divide_gain``: divided by the weight instead of multiplied; ``gain_first``: x
    multiplied by the weight before the statistic, and not after (normalised away);
    ``gain_op`` "add" or "subtract": the weight added to (subtracted from) the normalised x,
    as a bias would be, where the gain multiplies."""
    x = x.double()
    if gain_first:
        x = x * p["weight"].double()
    dims = {
        "features": (-1,),
        "sequence": (-2,),
        "sequence_and_features": (-2, -1),
        "everything": tuple(range(x.dim())),
        "first": (0,),
    }[over]
    numerator = x - x.mean(dim=dims, keepdim=True) if centre else x
    if statistic == "variance":
        x = numerator = x - x.mean(dim=dims, keepdim=True)
    if statistic in ("std", "std_unbiased", "variance_unbiased"):
        # x.var as the statistic (the mean subtracted inside it only; "variance_unbiased":
        # from the numerator too, a LayerNorm with torch's default unbiased variance)
        stat = x.var(dim=dims, keepdim=True, correction=0 if statistic == "std" else 1)
        if statistic == "variance_unbiased":
            numerator = x - x.mean(dim=dims, keepdim=True)
    elif statistic == "mean":
        stat = x.mean(dim=dims, keepdim=True)
    elif statistic == "sum_square":
        stat = x.pow(2).sum(dim=dims, keepdim=True)
    else:
        stat = x.pow(2).mean(dim=dims, keepdim=True)
    sqrt = torch.sqrt if root else (lambda t: t)
    if eps_at == "inside":
        denominator = sqrt(stat + eps)
    elif eps_at == "outside":
        denominator = sqrt(stat) + eps
    elif eps_at == "subtracted":
        denominator = sqrt(stat - eps)
    else:
        denominator = sqrt(stat)
    y = numerator * denominator if invert else numerator / denominator
    if eps_at == "reciprocal":  # x * (rsqrt(mean(x²)) + eps): eps after the reciprocal
        y = numerator * (1 / sqrt(stat) + eps)
    weight = p["weight"].double() + (1.0 if unit_offset else 0.0)
    if not gain or gain_first:
        return y
    if gain_op in ("add", "subtract"):
        return y + weight if gain_op == "add" else y - weight
    return y / weight if divide_gain else y * weight
