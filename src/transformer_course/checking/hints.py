"""Advice added to a failure message when the learner's code raises a known error."""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["GENERIC_HINTS", "Hint", "matching_hints"]


#: Hints added to the message when the learner's code raises an error whose text
#: contains the key. Every check gets these; an exercise can add its own.
GENERIC_HINTS: dict[str, str] = {
    "view size is not compatible": (
        "After a transpose (or another reordering of axes) a tensor is no longer laid out "
        "row by row in memory, so `.view` cannot regroup its axes. Use `.reshape(...)` (it "
        "copies only when it must) or `.contiguous().view(...)`."
    ),
    "Can't call numpy() on Tensor that requires grad": (
        "Stay in torch (no .numpy()): later lessons train through this code, and gradients "
        "only flow through torch operations."
    ),
    "Boolean value of Tensor with more than one value is ambiguous": (
        "An `if` (or `and`/`or`) on a whole tensor is ambiguous: use element-wise operations "
        "instead, such as torch.where(...), masked_fill(...), & and |."
    ),
    "The truth value of an array with more than one element is ambiguous": (
        "An `if` (or `and`/`or`) on a whole array is ambiguous: use element-wise operations "
        "instead, such as np.where(...), & and |."
    ),
    "expected m1 and m2 to have the same dtype": (
        "A matrix product mixed two dtypes (float32 and float64, say). Keep the dtype of the "
        "inputs: avoid .double()/.float() and tensors created with a fixed dtype."
    ),
    "must have the same dtype": (
        "Two tensors of different dtypes met in one operation. Keep the dtype of the inputs: "
        "avoid .double()/.float() and new tensors created with a fixed dtype (pass "
        "dtype=x.dtype, or use torch.zeros_like(x))."
    ),
}

Hint = tuple[str | type | Callable[[BaseException], bool], str]


def matching_hints(exc: BaseException, hints: Iterable[Hint]) -> list[str]:
    text = f"{type(exc).__name__}: {exc}"
    found = []
    for when, hint in hints:
        if isinstance(when, str):
            hit = when in text
        elif isinstance(when, type):
            hit = isinstance(exc, when)
        else:
            try:
                hit = bool(when(exc))
            except Exception:
                hit = False
        if hit and hint not in found:
            found.append(hint)
    return found
