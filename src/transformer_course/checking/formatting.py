"""How checks show values in messages: :func:`short`, the one formatter for anything a
learner's code returned or raised, bounded whatever its size (a 50 MiB string, a list of
a hundred million items, a list nested a million deep, a huge tensor all give a message
of at most ``limit`` characters, computed without building the value's full repr);
dtype names and ordinals."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "as_numpy",
    "candidates_message",
    "clip",
    "dtype_name",
    "first_difference",
    "ordinal",
    "short",
]

_SMALL_ARRAY = 30  # arrays and tensors up to this many values show them
_SMALL_MASK = 144  # bool ones up to this many (a 12 x 12 mask), as rows of 0 and 1


def short(value: Any, limit: int = 300) -> str:
    """A compact repr for messages: small arrays show their values, large ones their shape.

    Equal to ``repr(value)`` when that fits in ``limit`` characters; otherwise its first
    ``limit - 3`` characters and "...", produced without computing the rest.
    """
    if hasattr(value, "shape") and hasattr(value, "dtype") and getattr(value, "ndim", 0) >= 1:
        size = math.prod(int(n) for n in value.shape)
        boolean = "bool" in str(value.dtype)
        array = as_numpy(value) if size <= (_SMALL_MASK if boolean else _SMALL_ARRAY) else None
        if array is not None and boolean:
            body = np.array2string(array.astype(np.int8), separator="", max_line_width=10_000)
            body = " ".join(body.split())  # one line: [[100] [110] [111]] for a 3 x 3 mask
            text = f"{type(value).__name__}({body} as 0/1, dtype={value.dtype})"
        elif array is not None and array.dtype != object:
            body = np.array2string(array, precision=4, separator=", ", suppress_small=True)
            text = f"{type(value).__name__}({body}, dtype={value.dtype})"
        else:
            text = f"<{type(value).__name__} shape={tuple(value.shape)} dtype={value.dtype}>"
    else:
        text = _bounded_repr(value, limit)
    return clip(text, limit)


def clip(text: str, limit: int = 2000) -> str:
    """``text`` cut to at most ``limit`` characters (a learner's exception message, say)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


# Plain containers are written out here, item by item, as repr writes them, so that
# writing stops once the budget is spent; other values use their own repr.
_CONTAINERS = (list, tuple, dict, set, frozenset)
_HOLDS_ITSELF = {list: "[...]", dict: "{...}", tuple: "(...)"}  # what repr writes


def _bounded_repr(value: Any, limit: int) -> str:
    """The first ``limit + 1`` (or more) characters of ``repr(value)``, or all of it."""
    parts: list[str] = []
    size = 0
    for piece in _repr_pieces(value, limit):
        parts.append(piece)
        size += len(piece)
        if size > limit:
            break
    return "".join(parts)


def _repr_pieces(value: Any, limit: int) -> Iterator[str]:
    """repr(value) in pieces, without recursion (a list nested a million deep is fine)."""
    open_ids: set[int] = set()
    stack: list[tuple[Iterator[tuple[bool, Any]], int | None]] = [(iter([(False, value)]), None)]
    while stack:
        tokens, container = stack[-1]
        token = next(tokens, None)
        if token is None:
            stack.pop()
            open_ids.discard(container)
            continue
        is_text, item = token
        if is_text:
            yield item
            continue
        kind = type(item)
        if kind in _CONTAINERS:
            if id(item) in open_ids:  # a container that holds itself
                yield _HOLDS_ITSELF.get(kind, "...")
                continue
            opening, closing, items = _container(item)
            yield opening
            open_ids.add(id(item))
            stack.append((_tokens(item, items, closing), id(item)))
        else:
            yield _leaf_repr(item, limit)


def _container(item: Any) -> tuple[str, str, Iterator[tuple[bool, Any]]]:
    kind = type(item)
    if kind is tuple:
        return "(", ",)" if len(item) == 1 else ")", _items(item)
    if kind is list:
        return "[", "]", _items(item)
    if kind is dict:
        return "{", "}", _dict_items(item)
    if not item:  # empty set / frozenset
        return f"{kind.__name__}()", "", iter(())
    if kind is set:
        return "{", "}", _items(item)
    return "frozenset({", "})", _items(item)


def _tokens(item: Any, items: Iterator[tuple[bool, Any]], closing: str):
    yield from items
    yield True, closing


def _items(items: Any) -> Iterator[tuple[bool, Any]]:
    for index, element in enumerate(items):
        if index:
            yield True, ", "
        yield False, element


def _dict_items(mapping: dict) -> Iterator[tuple[bool, Any]]:
    for index, (key, element) in enumerate(mapping.items()):
        if index:
            yield True, ", "
        yield False, key
        yield True, ": "
        yield False, element


def _leaf_repr(item: Any, limit: int) -> str:
    if type(item) in (str, bytes) and len(item) > limit:  # repr of the start only
        return repr(item[: limit + 1])[:-1]  # the string goes on: no closing quote
    try:
        return repr(item)
    except Exception:  # an int too long for repr, a repr that raises
        return f"<{type(item).__name__}>"


def as_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu()
        if str(value.dtype) == "torch.bfloat16":
            value = value.float()
        value = value.numpy()
    return np.asarray(value)


def dtype_name(dtype: Any) -> str:
    """ "float32" for np.float32, np.dtype("float32"), "float32" and torch.float32 alike."""
    if isinstance(dtype, str):
        return dtype.replace("torch.", "")
    if type(dtype).__module__.startswith("torch"):
        return str(dtype).replace("torch.", "")
    try:
        return np.dtype(dtype).name
    except TypeError:
        return str(dtype)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... (as the messages have always written them: 11th is "11th")."""
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def first_difference(got: Any, expected: Any) -> str:
    """Where two arrays (or tensors) of the same shape first differ, in reading order:
    "first wrong entry at (i, j): yours ..., expected ... (k of n entries differ)"; ""
    when they are not two arrays of one shape, or do not differ."""
    if not (hasattr(got, "shape") and hasattr(expected, "shape")):
        return ""
    try:
        got_np, exp_np = as_numpy(got), as_numpy(expected)
    except Exception:
        return ""
    if got_np.shape != exp_np.shape or got_np.ndim == 0:
        return ""
    with np.errstate(invalid="ignore"):
        wrong = got_np != exp_np
    if not wrong.any():
        return ""
    index = tuple(int(i) for i in np.argwhere(wrong)[0])
    return (
        f"First wrong entry at {index}: yours {got_np[index].item()!r}, expected "
        f"{exp_np[index].item()!r} ({int(wrong.sum())} of {wrong.size} entries differ)."
    )


def candidates_message(found: list[str] | tuple[str, ...]) -> str:
    """The diagnosis when one known mistake matches; every candidate when several do
    (each text once: two table entries may share a message)."""
    found = list(dict.fromkeys(message.strip() for message in found))
    if len(found) == 1:
        return found[0]
    listed = " ".join(f"({number}) {message}" for number, message in enumerate(found, 1))
    return (
        f"{len(found)} known mistakes give exactly this result on these inputs, which cannot "
        f"tell them apart: {listed}"
    )
