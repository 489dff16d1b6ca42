"""Which tensor a dropout before the softmax acted on, read back from the attention weights.

With dropout = 1.0 in train mode, dropout on the scores, on the projected queries or on the
projected keys all give the same weights: every score is 0, and the softmax of equal scores
is uniform. At 0 < p < 1 they differ, and the weights show which one it was, whatever the
draw: the log of a row of weights is its scores up to one constant per row, and

* dropout on the scores makes each score either 0 or s·S_ij (s = 1 / (1 - p));
* dropout on the projected queries makes row i's scores (s·q_i ⊙ m_i) · k_j / √d: a row
  of coefficients, each 0 or s·q_if, read back through the keys (centred over the keys,
  which removes the row's constant; exact when len_k > d_head);
* dropout on the projected keys makes column j's scores q_i · (s·k_j ⊙ m_j) / √d: read
  back through the queries, each feature up to one shift, which must make every entry 0
  or s·k_jf.

:func:`dropout_sources` gives every reading that fits every row of every head; a check
names one only when it is the only one, and says all of them otherwise.
"""

from __future__ import annotations

import math

import torch

__all__ = ["KEYS", "QUERIES", "SCORES", "dropout_sources"]

SCORES = "scores"
QUERIES = "queries"
KEYS = "keys"


def _each_zero_or(values: torch.Tensor, full: torch.Tensor, s: float, tol: float) -> bool:
    """Whether every entry of ``values`` is 0 or ``s * full`` (and some are not 0)."""
    near_zero = values.abs() <= tol
    near_kept = (values - s * full).abs() <= tol * (1 + (s * full).abs())
    return bool((near_zero | near_kept).all()) and bool((~near_zero).any())


def _scores_fit(logw: torch.Tensor, scores: torch.Tensor, s: float, tol: float) -> bool:
    """Each row of ``logw`` is one constant plus entries each 0 or s·scores."""
    for row, srow in zip(logw.reshape(-1, logw.shape[-1]), scores.reshape(-1, scores.shape[-1])):
        if not any(_each_zero_or(row - c, srow, s, tol) for c in (row[0], row[0] - s * srow[0])):
            return False
    return True


def _queries_fit(logw, q, k, s: float, tol: float) -> bool:
    """Each row's coefficients through the centred keys, each 0 or s·q_if."""
    dh = q.shape[-1]
    if k.shape[-2] <= dh:
        return False
    lc = logw - logw.mean(dim=-1, keepdim=True)  # (..., lq, lk)
    kc = k - k.mean(dim=-2, keepdim=True)  # (..., lk, dh)
    coefficients = torch.linalg.lstsq(kc / math.sqrt(dh), lc.transpose(-2, -1)).solution
    a = coefficients.transpose(-2, -1)  # (..., lq, dh)
    if not torch.allclose(a @ kc.transpose(-2, -1) / math.sqrt(dh), lc, atol=tol):
        return False
    return _each_zero_or(a, q, s, tol)


def _keys_fit(logw, q, k, s: float, tol: float) -> bool:
    """Each key's features through the queries, up to one shift per feature (the rows'
    constants), each 0 or s·k_jf."""
    dh = q.shape[-1]
    if q.shape[-2] <= dh:
        return False
    lc = logw - logw.mean(dim=-1, keepdim=True)  # (..., lq, lk)
    centred = torch.linalg.lstsq(q / math.sqrt(dh), lc).solution.transpose(-2, -1)  # (..., lk, dh)
    kc_all = centred
    flat_k = k.reshape(-1, *k.shape[-2:])
    for kc, kk in zip(kc_all.reshape(-1, *kc_all.shape[-2:]), flat_k):
        for f in range(dh):
            column, full = kc[:, f], kk[:, f]
            if not any(
                _each_zero_or(column + shift, full, s, tol)
                for shift in (-column[0], s * full[0] - column[0])
            ):
                return False
    return True


def dropout_sources(
    weights: torch.Tensor, q: torch.Tensor, k: torch.Tensor, p: float, tol: float = 1e-3
) -> list[str]:
    """The readings (:data:`SCORES`, :data:`QUERIES`, :data:`KEYS`) that give ``weights``
    (..., len_q, len_k), returned by a train-mode call with dropout p (0 < p < 1) and no
    mask, from the per-head projected queries ``q`` (..., len_q, d_head) and keys ``k``
    (..., len_k, d_head) of the right computation: dropout on the unnormalised scores,
    on the queries, or on the keys. [] when a weight is 0 or not finite (dropout after
    the softmax, or something else), or when none fits."""
    if not 0 < p < 1 or not isinstance(weights, torch.Tensor):
        return []
    w = weights.detach().double()
    q, k = q.detach().double(), k.detach().double()
    if w.shape[:-1] != q.shape[:-1] or w.shape[-1] != k.shape[-2]:
        return []
    if not bool(torch.isfinite(w).all()) or not bool((w > 0).all()):
        return []
    logw = torch.log(w)
    s = 1.0 / (1.0 - p)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    found = []
    if _scores_fit(logw, scores, s, tol):
        found.append(SCORES)
    if _queries_fit(logw, q, k, s, tol):
        found.append(QUERIES)
    if _keys_fit(logw, q, k, s, tol):
        found.append(KEYS)
    return found
