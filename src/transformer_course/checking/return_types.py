"""The (values, indices) pair that torch's reductions with an index return (``x.max(dim)``,
``x.min(dim)``, ``torch.topk``, ``torch.sort``, ``torch.kthvalue``, ``torch.median(x,
dim)``, ``torch.mode``), returned where a tensor belongs: told by its type,
``torch.return_types.<name>`` (round 34: a greedy ``return logits.max(dim=-1)`` was told
"should be a Tensor, but it is a max")."""

from __future__ import annotations

from typing import Any

__all__ = ["index_pair_note"]

#: the reductions whose result is the (values, indices) pair
_PAIRS = {"max", "min", "topk", "sort", "kthvalue", "median", "mode", "cummax", "cummin"}


def index_pair_note(value: Any) -> str:
    """What ``value`` is when it is one of those pairs, and how to take either half; ""
    for anything else."""
    kind = type(value)
    if getattr(kind, "__module__", "") != "torch.return_types" or kind.__name__ not in _PAIRS:
        return ""
    name = kind.__name__
    argmax = {"max": " or x.argmax(dim=-1)", "min": " or x.argmin(dim=-1)"}.get(name, "")
    values = {"max": " or x.amax(dim=-1)", "min": " or x.amin(dim=-1)"}.get(name, "")
    return (
        f"It is the (values, indices) pair that torch's {name}(..., dim) returns, not a tensor: "
        f"take the positions with .indices (x.{name}(...).indices{argmax}) or the values with "
        f".values{values}."
    )
