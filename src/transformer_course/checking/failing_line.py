"""What the names on the learner's line that raised held: shapes and dtypes of tensors and
arrays, lengths of lists and tuples, small numbers, so that a raw error's message shows
the sizes that clashed instead of asking the learner to print them (issue class 8: "what
the learner is shown must show the difference")."""

from __future__ import annotations

import builtins
import keyword
import re
import traceback
from types import FrameType
from typing import Any

from transformer_course.checking.failure import innermost_learner_traceback

__all__ = ["failing_line_values"]

#: names on a line that are never the learner's data (libraries, and Python's own names)
_LIBRARIES = {"torch", "F", "nn", "np", "math", "numpy", "random", "self"}
#: at most this many names are described (the line's first ones)
_MOST = 6
_NAME = re.compile(r"(?<![\w.])(self(?:\.[A-Za-z_]\w*)+|[A-Za-z_]\w*)")
_STRING = re.compile(r"(['\"]).*?\1")


def _innermost_learner_frame(exc: BaseException) -> tuple[FrameType, str] | None:
    """The learner's innermost frame on the traceback and the source of its failing line."""
    found = innermost_learner_traceback(exc)
    if found is None:
        return None
    summary = traceback.extract_tb(found, limit=1)
    line = summary[0].line if summary else ""
    return (found.tb_frame, line) if line else None


def _describe(value: Any) -> str:
    """A few words for a value of a built-in kind; "" for anything else (a learner's
    object is never asked to describe itself)."""
    import numpy as np
    import torch

    if isinstance(value, torch.Tensor) and type(value) in (torch.Tensor, torch.nn.Parameter):
        dtype = str(value.dtype).removeprefix("torch.")
        return f"{tuple(value.shape)} {dtype}" if value.dim() else f"a 0-d {dtype} tensor"
    if type(value) is np.ndarray:
        return f"array {value.shape} {value.dtype}"
    if value is None or type(value) in (bool, int):
        return f"= {value!r}"
    if type(value) is float:
        return f"= {value:.6g}"
    if type(value) in (list, tuple):
        kind = type(value).__name__
        if not value:
            return f"an empty {kind}"
        first = _describe(value[0])
        of = f" (first item {first.removeprefix('= ')})" if first else ""
        return f"a {kind} of {len(value)}{of}"
    return ""


def _value_of(name: str, frame: FrameType) -> tuple[bool, Any]:
    """(found, value) of a plain name or a ``self.a.b`` chain in the learner's frame."""
    head, *attributes = name.split(".")
    if head not in frame.f_locals:
        return False, None
    value = frame.f_locals[head]
    for attribute in attributes:
        try:
            value = object.__getattribute__(value, attribute)
        except Exception:
            # an nn.Module keeps its parameters, buffers and submodules in dictionaries
            stores = [getattr(value, store, {}) for store in ("_parameters", "_buffers")]
            held = [store[attribute] for store in stores if attribute in store]
            if not held:
                return False, None
            value = held[0]
    return True, value


def failing_line_values(exc: BaseException) -> str:
    """ "On the line that raised: q (2, 3, 4) float32, k (2, 5, 4) float32, d_k = 4." for the
    names of the learner's failing line that hold tensors, arrays, sequences or numbers;
    "" when there is no learner line, or none of its names holds such a value, or none
    holds a tensor, array or sequence (the sizes are what a raw error hides)."""
    found = _innermost_learner_frame(exc)
    if found is None:
        return ""
    frame, line = found
    code = _STRING.sub("", line.split("#")[0])
    described: list[str] = []
    sized = False
    for name in dict.fromkeys(_NAME.findall(code)):
        if keyword.iskeyword(name) or name in _LIBRARIES or hasattr(builtins, name):
            continue
        known, value = _value_of(name, frame)
        words = _describe(value) if known else ""
        if not words:
            continue
        sized = sized or not words.startswith("=")
        described.append(f"{name} {words}")
        if len(described) == _MOST:
            break
    if not sized:
        return ""
    return f"On your line that raised: {', '.join(described)}."
