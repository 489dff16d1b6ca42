"""A softmax whose numerator and denominator use different exponentials.

The family: ``exp(a·(x - m)) / Σ exp(b·(x - m))`` with a != b. FlashAttention-style code
computes e ** s as ``exp2(s · log2 e)``; keeping the factor in one place and not the other
gives a base-2 numerator over a natural-base sum (``exp2(x - m)`` without log2 e), or the
factor kept with ``torch.exp`` (e ** (s · log2 e)) in one of the two. The result is not a
softmax at any temperature (that is :mod:`.temperature`'s family, a = b), and its rows do
not sum to 1.

:func:`mixed_bases` measures a from the learner's output (log got is a·x plus one constant
per row, fitted by least squares), then b from each row's constant (the row's sum of
exp(b·(x - m)) equals 1 / the constant's exponential, solved by bisection: the sum falls as
b grows, since x - m <= 0), and returns (a, b) only when both hold on every row and a != b.
:func:`bases_sentence` says it in words, each factor named when it is a known one.
"""

from __future__ import annotations

import math

import torch

__all__ = ["bases_sentence", "exponential_words", "mixed_bases"]


def _solve_b(x_minus_m: torch.Tensor, total: float) -> float | None:
    """The b with sum(exp(b · x_minus_m)) = total (x_minus_m <= 0, one entry 0), or None."""
    if total < 1 or not math.isfinite(total):
        return None

    def f(b: float) -> float:
        return float(torch.exp(b * x_minus_m).sum()) - total

    low, high = 1e-6, 1e3
    if f(low) < 0 or f(high) > 0:
        return None
    for _ in range(200):
        mid = math.sqrt(low * high)
        if f(mid) > 0:
            low = mid
        else:
            high = mid
    return math.sqrt(low * high)


def mixed_bases(got, x, rtol: float = 1e-4) -> tuple[float, float] | None:
    """(a, b) when ``got`` = exp(a·(x - m)) / Σ exp(b·(x - m)) along the last axis (m each
    row's maximum) for one a and one b on every row, with a != b; None otherwise."""
    if not isinstance(got, torch.Tensor) or not isinstance(x, torch.Tensor):
        return None
    got, x = got.detach().double(), x.detach().double()
    if got.shape != x.shape or x.shape[-1] < 2 or not bool(torch.isfinite(got).all()):
        return None
    if not bool((got > 0).all()):
        return None
    rows_got, rows_x = got.reshape(-1, x.shape[-1]), x.reshape(-1, x.shape[-1])
    log_got = rows_got.log()
    xc = rows_x - rows_x.mean(-1, keepdim=True)
    lc = log_got - log_got.mean(-1, keepdim=True)
    spread = float((xc * xc).sum())
    if spread < 1e-8:
        return None
    a = float((xc * lc).sum()) / spread
    if not a > 0 or not torch.allclose(lc, a * xc, rtol=0, atol=1e-5 * max(1.0, abs(a))):
        return None
    x_minus_m = rows_x - rows_x.amax(-1, keepdim=True)
    constants = (log_got - a * x_minus_m).mean(-1)  # -log(denominator) per row
    bs = []
    for row, c in zip(x_minus_m, constants.tolist(), strict=True):
        b = _solve_b(row, math.exp(-c))
        if b is None:
            return None
        bs.append(b)
    b = bs[0]
    if any(not math.isclose(other, b, rel_tol=rtol * 10) for other in bs):
        return None
    if math.isclose(a, b, rel_tol=1e-3):
        return None
    return a, b


#: an exponential exp(t·s) in words, for the factors t that have a name
_NAMED = (
    (1.0, "e ** (x - m) (torch.exp of x - m, or torch.exp2 of (x - m) · log2(e))"),
    (math.log(2.0), "2 ** (x - m) (torch.exp2 of x - m, without the log2(e) = 1.4427 factor)"),
    (
        1 / math.log(2.0),
        "e ** ((x - m) · log2(e)) (the log2(e) = 1.4427 factor that exp2 needs, kept with "
        "torch.exp)",
    ),
)


def exponential_words(t: float) -> str:
    """exp(t·(x - m)) in words: the named form when t is a known factor, else the number."""
    for value, words in _NAMED:
        if math.isclose(t, value, rel_tol=1e-3):
            return words
    return f"e ** ({t:.4g} · (x - m))"


def bases_sentence(a: float, b: float, numerator: str, total: str) -> str:
    """What :func:`mixed_bases`'s (a, b) mean, ``numerator`` and ``total`` naming the two
    places in the learner's code (the final numerator, the running sum)."""
    return (
        f"Your {numerator} is {exponential_words(a)}, but the {total} adds "
        f"{exponential_words(b)} terms: two different exponentials (bases e ** {a:.4g} and "
        f"e ** {b:.4g}), so each row is not a softmax and does not sum to 1. Use the same "
        "exponential in both places: torch.exp(s), or torch.exp2(s * log2(e)) everywhere "
        "(exp2 alone is 2 ** s, another base)."
    )
