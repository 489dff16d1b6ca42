"""A module call that changes the module's own parameters.

``forward`` computes with a module's parameters and leaves them as they are: the optimiser
alone changes them. A forward that rescales a weight in place (``self.w_q.weight.mul_(s)``
under ``torch.no_grad()``, or ``.data /= s``) gives a different result on every call, which
a check would otherwise read as randomness left on in eval mode (blind16d-mha-query-weights-
rescaled-every-call was told to use nn.Dropout). Buffers may change (a KV cache, running
statistics); parameters may not.

One such write has a signature of its own: nn.Embedding(..., max_norm=m) renormalises, in
place, every row a lookup reads whose norm is above m (PyTorch's embedding_renorm_: the
row times m / (norm + 1e-7)), and leaves every other row alone.
:func:`renormalised_rows` reads it off the weights before and after one call and the
indices looked up: the rows changed are exactly the looked-up rows longer than one m, each
rescaled to norm m (blind30c-gpt-embedding-max-norm was told that forward re-initialises
its weights).
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["changed_parameters_message", "parameters_snapshot", "renormalised_rows"]


def parameters_snapshot(fn: Any) -> dict[str, Any] | None:
    """Copies of ``fn``'s parameters when ``fn`` is an nn.Module; None otherwise."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(fn, torch.nn.Module):
        return None
    try:
        return {name: p.detach().clone() for name, p in fn.named_parameters()}
    except Exception:  # a module whose parameters cannot be listed: told elsewhere
        return None


def changed_parameters_message(fn: Any, before: dict[str, Any], call_repr: str) -> str:
    """The failure for parameters that ``fn``'s call changed (by what factor, when one
    factor explains the change); "" when none changed."""
    import torch

    try:
        now = dict(fn.named_parameters())
    except Exception:
        return ""
    changed = [
        name
        for name, old in before.items()
        if name in now and now[name].shape == old.shape and not torch.equal(now[name].detach(), old)
    ]
    if not changed:
        return ""
    name = changed[0]
    old, new = before[name].double(), now[name].detach().double()
    how = ""
    if bool((old != 0).all()):
        ratio = new / old
        if bool(torch.allclose(ratio, ratio.flatten()[0].expand_as(ratio), rtol=1e-5)):
            how = f" (multiplied by {float(ratio.flatten()[0]):.4g})"
    others = f" and {len(changed) - 1} more" if len(changed) > 1 else ""
    return (
        f"`{call_repr}` changed the module's own parameter {name}{how}{others} in place. "
        "forward must compute with the parameters and leave them as they were: an "
        "in-place operation on a weight (mul_, div_, copy_, +=, .data = ...) is applied again "
        "on every call, so two calls give two different results. Compute a new tensor from "
        "it instead (w = self.w_q.weight / s, or scale the result), and leave the parameter "
        "to the optimiser."
    )


def renormalised_rows(before: Any, after: Any, looked_up: Any) -> float | None:
    """The max_norm m when the rows of ``after`` (rows, features) that differ from
    ``before`` are exactly the rows indexed by ``looked_up`` whose 2-norm is above m, each
    rescaled to norm m (m / (norm + 1e-7), as nn.Embedding's max_norm does), every other
    row unchanged; None otherwise."""
    import torch

    try:
        old, new = before.detach().double(), after.detach().double()  # (rows, features)
        if old.dim() != 2 or old.shape != new.shape:
            return None
        rows = torch.unique(torch.as_tensor(looked_up).flatten())
        changed = (old != new).any(dim=-1)  # (rows,)
        if not bool(changed.any()):
            return None
        read = torch.zeros_like(changed)
        read[rows] = True
        if bool((changed & ~read).any()):
            return None  # a row nobody looked up changed: another write
        norms = old.norm(dim=-1)  # (rows,)
        limit = float(new[changed].norm(dim=-1).median())
        scale = limit / (norms[changed] + 1e-7)  # (changed,)
        if not bool(torch.allclose(new[changed], old[changed] * scale[:, None], rtol=1e-4)):
            return None
        kept = read & ~changed
        if bool((norms[changed] <= limit * (1 + 1e-4)).any()):
            return None  # a short row rescaled: not a cap
        if bool((norms[kept] > limit * (1 + 1e-4)).any()):
            return None  # a long row read and left as it was: not a cap
    except Exception:  # values of no usable kind: no claim
        return None
    return limit
