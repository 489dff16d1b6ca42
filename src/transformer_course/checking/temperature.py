"""The family of a softmax taken over its scores times one constant t: a temperature, a
scale of the scores that is not the contract's (no 1/√d_k, d_k for √d_k, ...), or another
base of the exponential (2 ** x is exp(x·ln 2), np.exp2, 10 ** x). Each member gives
softmax(t·scores) for its own t; the learner's weights tell t, measured from them, and the
t is then matched against named expressions of the call's sizes and constants. A name is
given only when exactly one expression has that value (several are named together), and
the measured factor is said when none does.

:func:`fitted_temperature` measures t (or says that no t fits); :func:`named_factors`
finds which named expressions equal it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

__all__ = [
    "COMMON_FACTORS",
    "confirmed_scales",
    "confirmed_temperature",
    "fitted_scale",
    "fitted_temperature",
    "named_factors",
    "precedence_scales",
    "softmax_along",
    "temperature_sentence",
]

#: the constants a softmax's argument is often multiplied by by mistake, other bases
#: of the exponential written as exp(x·ln b)
COMMON_FACTORS: dict[str, float] = {
    "ln 2: the exponential in base 2 (2 ** x, np.exp2, torch.exp2) where e ** x (exp) "
    "belongs": math.log(2.0),
    # FlashAttention's kernels multiply the scores by log2(e) and then take exp2: the
    # factor kept with exp gives e ** (x·log2 e), a softmax 1/ln 2 times too sharp
    "log2(e) = 1/ln 2: the scores multiplied by log2(e) = 1.4427 (the factor exp2 needs) "
    "but exponentiated with e ** x (exp), not 2 ** x (exp2)": 1 / math.log(2.0),
    "ln 10: the exponential in base 10 (10 ** x) where e ** x (np.exp) belongs": math.log(10.0),
    "1/2: the scores halved (a temperature of 2)": 0.5,
    "2: the scores doubled (a temperature of 1/2)": 2.0,
}


def softmax_along(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """The softmax of float64 ``scores`` along ``axis`` (-inf entries get weight 0)."""
    scores = np.asarray(scores, dtype=np.float64)
    with np.errstate(all="ignore"):
        peak = np.max(scores, axis=axis, keepdims=True)
        exps = np.exp(scores - np.where(np.isfinite(peak), peak, 0.0))
        total = np.sum(exps, axis=axis, keepdims=True)
        return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)


def fitted_temperature(
    weights: np.ndarray, scores: np.ndarray, axis: int = -1, atol: float = 1e-6
) -> float | None:
    """The t with weights = softmax(t·scores) along ``axis`` within ``atol``, measured by
    least squares on the log-weights of the finite entries (log w = t·s - log Z per slice);
    None when no t reproduces ``weights`` (or the scores tell nothing: equal in every
    slice)."""
    w = np.asarray(weights, dtype=np.float64)
    s = np.asarray(scores, dtype=np.float64)
    if w.shape != s.shape or not np.isfinite(w).all() or (w < 0).any():
        return None
    live = np.isfinite(s) & (w > 1e-12)
    with np.errstate(all="ignore"):
        log_w = np.where(live, np.log(np.where(live, w, 1.0)), 0.0)
        count = np.sum(live, axis=axis, keepdims=True)
        mean_s = np.sum(np.where(live, s, 0.0), axis=axis, keepdims=True) / np.maximum(count, 1)
        mean_l = np.sum(log_w, axis=axis, keepdims=True) / np.maximum(count, 1)
        ds = np.where(live, s - mean_s, 0.0)
        dl = np.where(live, log_w - mean_l, 0.0)
    var = float(np.sum(ds * ds))
    if var < 1e-12:
        return None
    t = float(np.sum(ds * dl) / var)
    if not math.isfinite(t):
        return None
    with np.errstate(all="ignore"):
        model = softmax_along(np.where(np.isfinite(s), t * s, -np.inf), axis=axis)
    if not np.allclose(model, w, atol=atol, rtol=1e-4):
        return None
    return t


def fitted_scale(got, value_at, low: float = 1e-3, high: float = 1e3) -> float | None:
    """The factor t with ``got`` = ``value_at(t)`` (a whole computation whose scores are
    multiplied by t: attention, tiled or grouped), measured on a grid of log t between
    ``low`` and ``high`` and refined by golden-section search; None when no t fits (to
    rtol 1e-4) or ``got`` is not finite. ``value_at`` returns a tensor or an array."""
    target = np.asarray(got, dtype=np.float64)
    if not np.isfinite(target).all():
        return None

    def error(log_t: float) -> float:
        value = np.asarray(value_at(math.exp(log_t)), dtype=np.float64)
        return float(np.abs(value - target).max()) if value.shape == target.shape else math.inf

    grid = [math.log(low) + i * math.log(high / low) / 60 for i in range(61)]
    best = min(range(len(grid)), key=lambda i: error(grid[i]))
    a, b = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(40):
        left, right = b - ratio * (b - a), a + ratio * (b - a)
        if error(left) < error(right):
            b = right
        else:
            a = left
    t = math.exp((a + b) / 2)
    fitted = np.asarray(value_at(t), dtype=np.float64)
    return t if np.allclose(fitted, target, rtol=1e-4, atol=1e-5) else None


def named_factors(t: float, names: Mapping[str, float], rtol: float = 1e-4) -> list[str]:
    """The names whose value equals ``t`` (to ``rtol``)."""
    return [name for name, value in names.items() if math.isclose(t, value, rel_tol=rtol)]


def precedence_scales(d_k: int) -> dict[str, float]:
    """The absolute factors t (weights = softmax(t · q·k)) of the square root written with
    a bare ``** 1/2``: Python reads ``d_k ** 1 / 2`` as ``(d_k ** 1) / 2`` (``**`` binds
    tighter than ``/``), so dividing by it divides by d_k and then by 2, and a factor
    ``d_k ** -1 / 2`` multiplies by 1/(2·d_k); dividing by ``d_k ** -1 / 2`` multiplies by
    2·d_k. Keys are the descriptions (no numbers: a probe of other sizes is matched
    against the same keys)."""
    return {
        "1/(2·d_k): the square root written as d_k ** 1 / 2 (or a factor d_k ** -1 / 2), "
        "which Python reads as (d_k ** 1) / 2 because ** binds tighter than /: the scores "
        "are divided by d_k and then by 2. Write d_k ** 0.5, d_k ** (1 / 2) or "
        "math.sqrt(d_k)": 1.0 / (2.0 * d_k),
        "2·d_k: the scores divided by d_k ** -1 / 2, which Python reads as (d_k ** -1) / 2 "
        "because ** binds tighter than /. Write d_k ** -0.5 as a factor, or divide by "
        "math.sqrt(d_k)": 2.0 * d_k,
    }


def confirmed_scales(found: list[tuple[float, int]], expressions, rtol: float = 1e-4) -> list[str]:
    """The keys of ``expressions(d_k)`` whose value equals the measured t on every
    (t, d_k) of ``found`` (the check's input and its probes): a name holds only when all
    the inputs agree with it."""
    if not found:
        return []
    keys = list(expressions(found[0][1]))
    return [
        key
        for key in keys
        if all(math.isclose(t, expressions(d_k)[key], rel_tol=rtol) for t, d_k in found)
    ]


def confirmed_temperature(
    got, scores, rerun, probe_scores, axis: int = -1, atol: float = 1e-5
) -> float | None:
    """The factor t of a result that is softmax(t·scores) along ``axis`` (``got`` and
    ``scores`` tensors or arrays), measured on the check's input and confirmed on a second
    one: ``rerun(probe_scores)`` (the learner's function on ``probe_scores``, the same
    along ``axis``) must give softmax(t·probe_scores) with the same t. A factor the code
    holds (another base of exp, a temperature, a scale) gives one t on every input; a
    result that happens to fit on one input does not. None when no t fits, when t is 1
    (right) or -1 (softmin, a mistake of its own), when t is near 0 (uniform weights tell
    no factor), or when the rerun raises or disagrees."""
    try:
        got64 = np.asarray(_as_float64(got))
        scores64 = np.asarray(_as_float64(scores))
        t = fitted_temperature(got64, scores64, axis=axis, atol=atol)
        if (
            t is None
            or abs(t) < 1e-3
            or math.isclose(t, 1.0, rel_tol=1e-4)
            or math.isclose(t, -1.0, rel_tol=1e-4)
        ):
            return None
        with np.errstate(all="ignore"):
            probe = np.asarray(_as_float64(rerun(probe_scores)))
        again = fitted_temperature(probe, np.asarray(_as_float64(probe_scores)), axis, atol)
    except Exception:  # a probe of learner code: any failure leaves the old message
        return None
    if again is None or not math.isclose(again, t, rel_tol=1e-3):
        return None
    return t


def temperature_sentence(t: float, expected: str = "exp(x)") -> str:
    """Words for a softmax of its scores times ``t`` (measured and confirmed): the factor,
    and its name when one of :data:`COMMON_FACTORS` has that value, as one sentence."""
    names = named_factors(t, COMMON_FACTORS, rtol=1e-3)
    named = f" ({' or '.join(names)})" if names else ""
    return (
        f"Your result is the softmax of x times {t:.4g}, on every input tried: exp({t:.4g}·x) "
        f"where {expected} belongs{named}, so its weights are "
        + ("flatter" if abs(t) < 1 else "sharper")
        + " than softmax(x)."
    )


def _as_float64(values) -> np.ndarray:
    """A tensor (detached, on the CPU) or an array as a float64 array."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().double().numpy()
    return np.asarray(values, dtype=np.float64)
