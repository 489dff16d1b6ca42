"""The eps a layer's LayerNorms actually use, read off what each norm receives and returns
(forward hooks): a norm built with another eps than the contract's 1e-5 (the dropout rate
passed as LayerNorm's second parameter, eps, say) gives outputs that no structural
mistake explains, and that the layer's other diagnoses would blame on something else."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch import nn

from transformer_course.checking.localise import record_calls
from transformer_course.checking.oracles import layer_norm_f

__all__ = [
    "effective_eps",
    "eps_relation",
    "estimated_rms_eps",
    "norm_eps_problem",
    "rms_norm_eps_problem",
]

#: nn.LayerNorm's and the contract's default
DEFAULT_EPS = 1e-5


def _confirmed_eps(
    squared: torch.Tensor,
    usable: torch.Tensor,
    y: torch.Tensor,
    normalise: Callable[[float], torch.Tensor],
) -> float | None:
    """The median of the per-feature eps estimates ``squared`` (..., d_model) where
    ``usable``, when at least four features are usable, it is a finite eps >= 0, and the
    norm recomputed with it, ``normalise(eps)`` (..., d_model), gives ``y``; else None."""
    if int(usable.sum()) < 4:
        return None
    eps = float(squared[usable].median())
    if not (eps >= 0 and math.isfinite(eps)):
        return None
    if not torch.allclose(normalise(eps), y, rtol=1e-4, atol=1e-5):
        return None
    return eps


def estimated_eps(
    x: torch.Tensor, y: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor
) -> float | None:
    """The eps for which ``y`` is exactly LayerNorm(x) with this weight and bias, x and y
    (..., d_model): solved per token from (x - mean) / ((y - bias) / weight) = sqrt(var +
    eps), then confirmed on the whole tensor; None when no single eps gives ``y``."""
    x, y = x.detach().double(), y.detach().double()
    weight, bias = weight.detach().double(), bias.detach().double()
    if x.shape != y.shape or x.shape[-1:] != weight.shape or not torch.isfinite(y).all():
        return None
    centred = x - x.mean(dim=-1, keepdim=True)  # (..., d_model)
    var = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1)
    normalised = (y - bias) / weight  # (..., d_model), where |weight| is not tiny
    usable = (weight.abs() > 0.1) & (centred.abs() > 0.3 * var.sqrt()) & (normalised.abs() > 1e-6)
    squared = (centred / normalised) ** 2 - var  # (..., d_model): eps, feature by feature
    return _confirmed_eps(
        squared, usable, y, lambda eps: layer_norm_f(x, {"weight": weight, "bias": bias}, eps)
    )


def norm_eps_problem(
    module: nn.Module,
    call: Callable[[], Any],
    norms: Sequence[str],
    state: Mapping[str, torch.Tensor],
    dropout: float,
) -> str:
    """When the named LayerNorms of ``module`` (``norm1``, ``norm2``...), during ``call()``,
    each compute exactly a LayerNorm with one eps that is not 1e-5 (told apart from it by
    far more than float32's rounding): which norms, that eps, and the dropout rate as its
    likely source when the two are equal; "" otherwise (the norms right, not LayerNorms of
    their input, or the call not reproducible). ``state`` holds the weights loaded, under
    ``<norm>.weight`` and ``<norm>.bias``."""
    try:
        _, records = record_calls(module, list(norms), call)
    except Exception:
        return ""
    found: dict[str, float] = {}
    for name, received, returned in records:
        if name in found or received is None or returned is None:
            continue
        weight, bias = state.get(f"{name}.weight"), state.get(f"{name}.bias")
        if weight is None or bias is None:
            return ""
        eps = estimated_eps(received, returned, weight, bias)
        if eps is None or abs(eps - DEFAULT_EPS) < 1e-3:
            continue
        found[name] = eps
    if not found:
        return ""
    names = list(found)
    quoted = [f"`self.{name}`" for name in names]
    said = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
    shown = list(dict.fromkeys(f"{found[name]:.3g}" for name in names))
    values = shown[0] if len(shown) == 1 else " and ".join(shown)
    verb = "normalises" if len(names) == 1 else "normalise"
    text = (
        f"{said} {verb} with eps = {values} (returning exactly a LayerNorm of what "
        f"{'it receives' if len(names) == 1 else 'each receives'} with that eps), not the default {DEFAULT_EPS:g}."
    )
    if dropout > 0 and all(abs(eps - dropout) <= 1e-3 * dropout for eps in found.values()):
        return (
            f"{text} That is the dropout rate, {dropout:g}: it reaches LayerNorm's second "
            "parameter, eps (LayerNorm(d_model, dropout) for LayerNorm(d_model), whose "
            "signature is (d_model, eps)). Build the norms with LayerNorm(d_model); the "
            "dropout belongs to the sub-layers' outputs."
        )
    return f"{text} Build the norms with LayerNorm(d_model), which uses eps=1e-5."


def estimated_rms_eps(x: torch.Tensor, y: torch.Tensor, weight: torch.Tensor) -> float | None:
    """The eps for which ``y`` is exactly RMSNorm(x) with this gain, x and y (...,
    d_model): solved per feature from (x / (y / weight)) ** 2 = mean(x ** 2) + eps, then
    confirmed on the whole tensor; None when no single eps gives ``y``."""
    x, y, weight = x.detach().double(), y.detach().double(), weight.detach().double()
    if x.shape != y.shape or x.shape[-1:] != weight.shape or not torch.isfinite(y).all():
        return None
    mean_square = x.pow(2).mean(dim=-1, keepdim=True)  # (..., 1)
    normalised = y / weight  # (..., d_model), where |weight| is not tiny
    usable = (weight.abs() > 0.1) & (x.abs() > 0.3 * mean_square.sqrt()) & (normalised.abs() > 1e-6)
    squared = (x / normalised) ** 2 - mean_square  # (..., d_model): eps, feature by feature
    return _confirmed_eps(
        squared, usable, y, lambda eps: x * torch.rsqrt(mean_square + eps) * weight
    )


def rms_norm_eps_problem(
    module: nn.Module,
    call: Callable[[], Any],
    norms: Sequence[str],
    expected_eps: float,
    sources: Mapping[str, float],
) -> str:
    """When the named RMSNorms of ``module`` (``norm1``, ``norm2``...), during ``call()``,
    each compute exactly an RMSNorm of what they receive with one eps other than
    ``expected_eps`` (by far more than rounding): which norms, that eps, and which of the
    constructor's other arguments (``sources``, name -> value) it equals, the likely
    argument passed in eps's place (blind19d-block-norm2-given-d-ff-as-eps: RMSNorm(d_model,
    d_ff)); "" otherwise, and for a norm at the default 1e-5 (eps never passed on, which
    the layer's own check names). Reads each norm's gain from the module itself."""
    try:
        _, records = record_calls(module, list(norms), call)
    except Exception:  # a probe: no evidence
        return ""
    found: dict[str, float] = {}
    for name, received, returned in records:
        if name in found or not isinstance(received, torch.Tensor):
            continue
        weight = getattr(getattr(module, name, None), "weight", None)
        if not isinstance(weight, torch.Tensor) or not isinstance(returned, torch.Tensor):
            continue
        eps = estimated_rms_eps(received, returned, weight)
        if eps is None or abs(eps - expected_eps) <= 1e-3 * max(1.0, expected_eps):
            continue
        if abs(eps - DEFAULT_EPS) < 1e-3:  # eps never passed on: the layer's check says so
            continue
        found[name] = eps
    if not found:
        return ""
    names = list(found)
    quoted = [f"`self.{name}`" for name in names]
    said = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
    shown = " and ".join(dict.fromkeys(f"{found[name]:.4g}" for name in names))
    verb = "normalises" if len(names) == 1 else "normalise"
    text = (
        f"{said} {verb} with eps = {shown} (returning exactly an RMSNorm of what "
        f"{'it receives' if len(names) == 1 else 'each receives'} with that eps), not the "
        f"eps given, {expected_eps:g}: eps is added under the square root, "
        "x / sqrt(mean(x ** 2) + eps), so a large eps shrinks the output."
    )
    matching = [
        argument
        for argument, value in sources.items()
        if all(abs(eps - value) <= 1e-3 * max(1.0, abs(value)) for eps in found.values())
    ]
    if matching:
        which = " or ".join(f"{argument} = {sources[argument]:g}" for argument in matching)
        return (
            f"{text} That is {which}: it reaches RMSNorm's second parameter, eps "
            f"({' or '.join(f'RMSNorm(d_model, {argument})' for argument in matching)} "
            "where RMSNorm(d_model, eps) belongs). Build "
            "the norms with RMSNorm(d_model, eps)."
        )
    return f"{text} Build the norms with RMSNorm(d_model, eps)."


def effective_eps(per_token: torch.Tensor, mean_square: torch.Tensor, eps: float) -> float | None:
    """The one constant e with ``per_token`` = sqrt(mean_square + e) on every token (both
    (..., 1)): the eps a root mean square really adds, solved on the tokens whose mean
    square is small enough for it to show (below 1e4 times eps), agreed on by those that
    measure it well, and confirmed on all; None when no token tells it, no single constant
    fits, or it is ``eps`` itself. With one such token, forms that only it could tell
    apart (eps outside the root) are the caller's to rule out first."""
    per_token, mean_square = per_token.double(), mean_square.double()
    telling = mean_square < 1e4 * max(eps, 1e-12)
    if not bool(telling.any()) or not bool(torch.isfinite(per_token).all()):
        return None
    estimates = per_token.pow(2) - mean_square
    found = float(estimates[telling].median())
    if not (math.isfinite(found) and found > 0):
        return None  # eps left out (0), or a negative: the statistic checks say more
    # the tokens that measure e well must agree on it: eps outside the root,
    # (sqrt(ms) + eps) ** 2 - ms = 2 sqrt(ms) eps + eps ** 2, gives each its own
    sharp = estimates[mean_square < 100 * found]
    if sharp.numel() > 1 and float(sharp.max() - sharp.min()) > 0.05 * found:
        return None
    if not torch.allclose((mean_square + found).sqrt(), per_token, rtol=1e-4, atol=1e-9):
        return None
    if abs(found - eps) <= 1e-3 * eps:
        return None
    return found


#: common hard-coded eps values a learner may write instead of the one passed
_COMMON_EPS = (1e-3, 1e-5, 1e-6, 1e-8, 1e-12)


def eps_relation(found: float, eps: float, d_model: int) -> list[str]:
    """How an effective eps ``found`` follows from the eps given and d_model: each
    operation that gives it (several when this input cannot tell them apart), [] when
    none does. Each names what the code did to eps and where eps belongs."""
    told = []
    relations = (
        (
            eps / d_model,
            f"eps divided by d_model = {d_model} along with the squares: eps added to the sum "
            "of the squares before dividing, sqrt((sum(x ** 2) + eps) / d_model)",
        ),
        (
            eps * d_model,
            f"eps multiplied by d_model = {d_model} (eps counted once per feature, then "
            "not averaged)",
        ),
        (eps**2, "eps squared: eps ** 2 added where eps belongs (an eps meant for the root)"),
        (math.sqrt(eps), "the square root of eps, added where eps itself belongs"),
    )
    for value, what in relations:
        if abs(found - value) <= 1e-3 * value:
            told.append(what)
    for value in _COMMON_EPS:
        if abs(found - value) <= 1e-3 * value and abs(eps - value) > 1e-3 * value:
            told.append(f"a fixed eps = {value:g} written in the code instead of the eps given")
    return told
