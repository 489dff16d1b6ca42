"""The library APIs an exercise forbids (``Exercise.forbidden``), seen in the notebook.

The course's grader scores an exercise 0 when the learner's code calls one of its
forbidden APIs. :func:`refuse_forbidden` makes a check say so too, so that the test cell
in the notebook and the grader agree: while the check runs, a ``TorchFunctionMode``
watches every PyTorch function called, and a call of a forbidden one whose nearest
caller outside PyTorch is not the course's own code (the checks, the references) fails
the check with a message that names the API and the line that called it.

What it watches are the APIs the exercise names, as the grader's run-time watch does:
functions such as ``F.scaled_dot_product_attention`` or ``torch.softmax`` (however they
were imported or aliased), and a module class through the functional its forward calls
(``nn.MultiheadAttention`` through ``F.multi_head_attention_forward``, ``nn.RMSNorm``
through ``F.rms_norm``). Tensor methods (``x.softmax``) are not watched: the grader
flags those for a human instead of scoring them, and the two must agree.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from transformer_course.checking.checker import Checker

__all__ = ["refuse_forbidden"]

# as imported and as resolved (a link in the path must not hide a frame's origin)
_COURSE = tuple({str(Path(__file__).parents[1]), str(Path(__file__).resolve().parents[1])})
_TORCH = tuple({str(Path(torch.__file__).parent), str(Path(torch.__file__).resolve().parent)})

# A module class and the functional its forward calls (what a TorchFunctionMode sees).
_CLASS_FUNCTIONALS = {
    "torch.nn.MultiheadAttention": "torch.nn.functional.multi_head_attention_forward",
    "torch.nn.RMSNorm": "torch.nn.functional.rms_norm",
    "torch.nn.LayerNorm": "torch.nn.functional.layer_norm",
    "torch.nn.Softmax": "torch.nn.functional.softmax",
}


def _resolve(dotted: str) -> Any:
    module_name, _, attr = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError):
        owner, _, name = module_name.rpartition(".")
        try:
            return getattr(getattr(importlib.import_module(owner), name), attr)
        except (ImportError, AttributeError):
            return None


def _watched(apis: Sequence[str]) -> dict[int, str]:
    """{id of a function PyTorch reports: the forbidden API it stands for}."""
    watched: dict[int, str] = {}
    for api in apis:
        target = _CLASS_FUNCTIONALS.get(api, api)
        function = _resolve(target)
        if function is None or isinstance(function, type):
            continue
        watched[id(function)] = api
    return watched


_CHECKER_CALL = Checker.call.__code__


def _caller(frame) -> tuple[str, int] | None:
    """Where the learner's code made the call: the nearest frame outside PyTorch, unless
    it is the course's own code (a reference, a check). When that frame is the check's
    call of the learner's code itself, the learner's callable *is* PyTorch code (a class
    that inherits a forbidden module, for instance): it counts, at the check's call."""
    while frame is not None and frame.f_code.co_filename.startswith(_TORCH):
        frame = frame.f_back
    if frame is None:
        return None
    if frame.f_code is _CHECKER_CALL:
        return "<inherited>", 0
    if frame.f_code.co_filename.startswith(_COURSE):
        return None
    return frame.f_code.co_filename, frame.f_lineno


class _Watch(TorchFunctionMode):
    def __init__(self, watched: dict[int, str]):
        super().__init__()
        self.watched = watched
        self.seen: list[tuple[str, str, int]] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        api = self.watched.get(id(func))
        if api is not None:
            where = _caller(sys._getframe(1))
            if where is not None:
                self.seen.append((api, *where))
        return func(*args, **(kwargs or {}))


def _line(filename: str, line: int) -> str:
    if filename == "<inherited>":
        return "through a PyTorch class your class is or inherits"
    if filename.startswith("<"):  # a notebook cell
        return f"line {line} of a cell"
    return f"{Path(filename).name}, line {line}"


@contextlib.contextmanager
def refuse_forbidden(c: Checker, apis: Sequence[str]) -> Iterator[None]:
    """Inside a :class:`Checker` block: fail (after the block's own checks) if the
    learner's code called one of ``apis`` (dotted names, as in ``Exercise.forbidden``)."""
    watch = _Watch(_watched(apis))
    with watch:
        yield
    if watch.seen:
        api, filename, line = watch.seen[0]
        c.fail(
            f"Your code calls {api} ({_line(filename, line)}), which this exercise asks you "
            "to build yourself: the course's grader scores it 0, even though the results "
            "may be right. Write it with the functions the lesson gives you and basic "
            "tensor operations."
        )
