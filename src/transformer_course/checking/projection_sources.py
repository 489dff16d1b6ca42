"""Which parameters a final linear step really used: the learner's result is compared with
``hidden @ W.T (+ b)`` for every 2-D parameter W of the module whose shape fits and every
1-D parameter b that fits (or none), ``hidden`` being what reached that step in the
learner's own run. The one combination that reproduces the result names the matrix and
bias used, and so the module's own weight or bias that was left out (the logits taken from
the target embedding's matrix with tie_embeddings off: blind27b-tr-logits-from-embedding-
matrix-always; the bias dropped; another layer's weight). Nothing is said when no
combination, or more than one, reproduces the result.

Only run after a call already failed; any exception means no evidence."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

__all__ = ["projection_sentence", "projection_used"]


def _fits(got: torch.Tensor, value: torch.Tensor, rtol: float, atol: float) -> bool:
    return got.shape == value.shape and bool(torch.allclose(got, value, rtol=rtol, atol=atol))


def projection_used(
    module: nn.Module,
    hidden: Any,
    got: Any,
    *,
    rtol: float = 1e-4,
    atol: float = 1e-5,
) -> tuple[str, str | None] | None:
    """(name of W, name of b or None) of ``module``'s parameters for which ``got`` equals
    ``hidden @ W.T + b`` (hidden (..., d_in), W (d_out, d_in), b (d_out,), got (..., d_out)),
    when exactly one combination does; None otherwise (no fit, several, or bad values)."""
    try:
        if not (isinstance(hidden, torch.Tensor) and isinstance(got, torch.Tensor)):
            return None
        hidden64 = hidden.detach().double()  # (..., d_in)
        got64 = got.detach().double()  # (..., d_out)
        if hidden64.dim() < 1 or got64.shape[:-1] != hidden64.shape[:-1]:
            return None
        d_in, d_out = hidden64.shape[-1], got64.shape[-1]
        params = list(module.named_parameters())
        matrices = [(n, p) for n, p in params if tuple(p.shape) == (d_out, d_in)]
        biases = [(n, p) for n, p in params if tuple(p.shape) == (d_out,)]
        found = []
        for w_name, weight in matrices:
            product = hidden64 @ weight.detach().double().T  # (..., d_out)
            for b_name, bias in [(None, None), *biases]:
                value = product if bias is None else product + bias.detach().double()
                if _fits(got64, value, rtol, atol):
                    found.append((w_name, b_name))
    except Exception:  # a probe: the usual message stands
        return None
    return found[0] if len(found) == 1 else None


def projection_sentence(
    module: nn.Module,
    layer: str,
    hidden: Any,
    got: Any,
    *,
    result: str,
    hidden_name: str,
    rtol: float = 1e-4,
    atol: float = 1e-5,
) -> tuple[str, tuple[str, str | None]] | None:
    """When ``got`` is a linear map of ``hidden`` through parameters other than
    ``module.<layer>``'s own weight and bias: a sentence naming the ones used and the ones
    left out, with the parameters used; None otherwise (also when the layer's own
    weight and bias reproduce it, or the module has no such layer)."""
    own = getattr(module, layer, None)
    if not isinstance(own, nn.Linear):
        return None
    used = projection_used(module, hidden, got, rtol=rtol, atol=atol)
    if used is None:
        return None
    want_w, want_b = f"{layer}.weight", (f"{layer}.bias" if own.bias is not None else None)
    # a tied parameter is one object under several names: the layer's own, when it is
    params = dict(module.named_parameters())
    w_name, b_name = used
    if params.get(w_name) is own.weight:
        w_name = want_w
    if b_name is not None and own.bias is not None and params.get(b_name) is own.bias:
        b_name = want_b
    used = (w_name, b_name)
    if used == (want_w, want_b):
        return None
    formula = f"{hidden_name} @ self.{w_name}.T" + (f" + self.{b_name}" if b_name else "")
    left_out = [f"self.{n}" for n in (want_w, want_b) if n is not None and n not in used]
    left = " and ".join(left_out)
    verb = "is" if len(left_out) == 1 else "are"
    return (
        f"{formula} reproduces {result} exactly ({hidden_name} being what your own run "
        f"handed the last step): {left} {verb} never used. The last step is self.{layer}("
        f"{hidden_name}) = {hidden_name} @ self.{want_w}.T"
        + (f" + self.{want_b}" if want_b else "")
        + ", the layer's own parameters.",
        used,
    )
