"""A bool mask whose rows that allow nothing were patched to allow something.

A query row with no allowed key (a leading pad of a left-padded sequence under a causal
mask, a sequence made only of pads) gives a softmax of nothing but -inf, NaN. Code written
to avoid that NaN often patches the *mask*: ``mask | ~mask.any(-1, keepdim=True)`` (every
key allowed, as Hugging Face's ``_unmask_unattended``), the diagonal forced in (``mask |
eye``: the query sees itself), or the first key allowed. The mask function's contract is
the mask itself, rows of nothing included; the attention, not the mask, decides what a row
of nothing gives.

:func:`patched_empty_rows` gives, for the right mask, each patch applied to its empty rows
alone, with the message that names it, for a check to match the learner's mask against
(exactly: only the empty rows differ, each in the patch's way). Nothing when the right
mask has no empty row (there the patches change nothing and cannot be told apart from the
right mask).
"""

from __future__ import annotations

import torch

__all__ = ["patched_empty_rows"]

_WHY = (
    "The mask must say what the rules say, a row of nothing included (a pad query under a "
    "causal mask has no allowed key): the guard against NaN belongs in the attention, which "
    "gives such a row zero weights (the course's attention does), not in the mask. Return the "
    "combined mask as it is, without the patch."
)


def patched_empty_rows(mask: torch.Tensor, *, rows: str = "query rows") -> dict[str, torch.Tensor]:
    """{message: the right ``mask`` (bool, (..., len_q, len_k)) with each row that allows
    no key patched one way}: every key allowed, the diagonal allowed, the first key allowed.
    {} when no row of ``mask`` is empty."""
    mask = mask.bool()
    empty = ~mask.any(dim=-1, keepdim=True)  # (..., len_q, 1)
    if not bool(empty.any()):
        return {}
    len_q, len_k = mask.shape[-2:]
    where = tuple(empty.nonzero()[0].tolist()[:-1])  # the first empty row's index
    first = f"the first at index {where}, query {where[-1]}"
    found = {
        f"Your mask allows every key in the {rows} that allow none ({first}: a query "
        "with no allowed key, such as a leading pad of a left-padded sequence): those rows "
        "are all True, future and pad keys included, as a guard against NaN does, mask | "
        f"~mask.any(dim=-1, keepdim=True). {_WHY}": mask | empty,
    }
    if len_q == len_k:
        eye = torch.eye(len_q, dtype=torch.bool, device=mask.device)
        found[
            f"Your mask lets each query attend to itself in the {rows} that allow no key "
            f"({first}): the diagonal was forced in, mask | torch.eye(len) (or only where "
            f"a row is empty), so that every row sees at least one key. {_WHY}"
        ] = mask | (empty & eye)
    first_key = torch.zeros(len_k, dtype=torch.bool, device=mask.device)
    first_key[0] = True
    found[
        f"Your mask allows the first key in the {rows} that allow none ({first}): a "
        f"guard that gives an empty row one key, mask[..., 0] = True where it is empty. {_WHY}"
    ] = mask | (empty & first_key)
    return found
