"""Sampling in float64 (lesson 11): the exact distribution ``sample`` draws from, after
temperature, top-k and top-p (nucleus), with one knob per classic mistake."""

from __future__ import annotations

import torch

__all__ = ["sample_probabilities_f"]


def sample_probabilities_f(
    logits: torch.Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    *,
    temperature_at: str = "logits",
    top_p_rule: str = "crossing_kept",
    ties: str = "kept",
    top_p_map: str = "scatter",
    order: str = "top_k_first",
    top_k_extra: int = 0,
    top_p_sorted: bool = True,
    greedy: bool = False,
    softmax_dim: str = "vocab",
    top_p_keep: int = 0,
    top_p_cut: str = "top_p",
    fill: float = float("-inf"),
    inverted: str = "",
) -> torch.Tensor:
    """The exact distribution sample draws from, in float64 (one row of logits (vocab,)).
    ``temperature_at`` "logits" (right), "probs" (dividing the probabilities: no effect
    after renormalising), "multiplied", "after_top_p" (top-p on the probabilities at
    temperature 1, the temperature applied afterwards); ``top_p_rule`` "crossing_kept"
    (right), "one_too_few" (the crossing token dropped), "one_too_many", "complement" (the
    set cut at 1 - top_p instead of top_p); ``ties`` "kept",
    "strict" (only logits above the k-th are kept); ``top_p_map`` "scatter" (right),
    "gather" (the sorted removal mask mapped back with the inverse permutation) or "none"
    (never mapped back: sorted column i's decision applied to token i);
    ``order`` "top_k_first" (right) or "top_p_first"; ``top_k_extra``: top_k + that many
    tokens kept; ``top_p_sorted`` False: the running total taken in vocabulary order (the
    first token always kept); ``greedy``: always the argmax, whatever the temperature;
    ``softmax_dim`` "batch": the final softmax across a batch of copies of this row, which
    makes every kept token equally likely (NaN, "cannot happen", when tokens were removed:
    a column of -inf gives 0 / 0); ``top_p_keep``: the sorted column top-p always keeps,
    whatever top_p (0, right: the most probable token; 1: the guard on the second column,
    remove_sorted[..., 1] = False; -1: on the last); ``top_p_cut`` "one_minus": the set cut
    at 1 - top_p, which ``top_p_rule`` then applies to (two mistakes at once); ``fill``:
    the logit the filters give the tokens they remove (0.0: a finite fill, which keeps
    them drawable); ``inverted`` "top_k" or "top_p": that filter's mask inverted, so it
    removes the tokens it should keep and keeps the rest (NaN, "cannot happen", when
    nothing is left: that sampler raises)."""
    z = logits.double()
    if greedy:
        return torch.nn.functional.one_hot(z.argmax(), len(z)).double()
    if temperature_at == "logits":
        z = z / temperature
    elif temperature_at == "multiplied":
        z = z * temperature

    def keep_top_k(z: torch.Tensor) -> torch.Tensor:
        kth = torch.topk(z, min(top_k + top_k_extra, len(z))).values[-1]
        remove = z < kth if ties == "kept" else z <= kth
        return z.masked_fill(~remove if inverted == "top_k" else remove, fill)

    def keep_top_p(z: torch.Tensor) -> torch.Tensor:
        if not top_p_sorted:
            probs = torch.softmax(z, -1)
            remove = probs.cumsum(-1) - probs >= top_p
            remove[0] = False
            return z.masked_fill(remove, float("-inf"))
        probs, order_ = torch.softmax(z, -1).sort(descending=True)
        cut = (
            1 - top_p
            if "complement" in (top_p_rule, top_p_cut) or top_p_cut == "one_minus"
            else top_p
        )
        count = max(int((probs.cumsum(-1) - probs < cut).sum()), 1)
        if top_p_rule == "one_too_few":
            count = max(count - 1, 1) if probs.cumsum(-1)[count - 1] > cut + 1e-12 else count
        elif top_p_rule == "one_too_many":
            count = min(count + 1, len(z))
        remove_sorted = torch.arange(len(z)) >= count
        remove_sorted[top_p_keep] = False
        if top_p_map == "gather":
            remove = remove_sorted.gather(-1, order_)
        elif top_p_map == "none":
            remove = remove_sorted  # the sorted decisions read as vocabulary order
        else:
            remove = remove_sorted.scatter(-1, order_, remove_sorted)
        return z.masked_fill(~remove if inverted == "top_p" else remove, fill)

    steps = ("top_k", "top_p") if order == "top_k_first" else ("top_p", "top_k")
    for step in steps:
        if step == "top_k" and top_k is not None:
            z = keep_top_k(z)
            if ties == "strict" and torch.isinf(z).all():
                return torch.full_like(z, float("nan"))
        if step == "top_p" and top_p is not None:
            z = keep_top_p(z)
    if temperature_at == "after_top_p":
        z = z / temperature
    if softmax_dim == "batch":
        if torch.isinf(z).any():
            return torch.full_like(z, float("nan"))
        return torch.full_like(z, 1.0 / len(z))
    if inverted and torch.isinf(z).all():
        return torch.full_like(z, float("nan"))
    return torch.softmax(z, -1)
