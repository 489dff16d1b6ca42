"""A subscript counted from the front where the contract's leading axes vary.

A function whose inputs are ``(..., n)`` or ``(..., len_k, d_k)`` takes any number of
leading axes (a batch, heads, or none). A learner who wrote ``x[:, start:stop]`` or
``k[:, :, start:stop]`` counted the axes from the front for the one shape they had in
mind: on an input with another number of axes the slice lands on another axis (the heads,
a row), or raises "too many indices". The error that follows (a shape clash two lines
later, a matrix product that does not chain) looks like many other slips; the learner's
own source and the failing frame's tensors tell this one exactly: the sliced name, the
axis its slice lands on, the number of axes it has, and the axis the exercise slices.

:func:`front_counted_slice` reads it; a check passes the axis its exercise slices, counted
from the end (-1: the last, the columns of a softmax; -2: the positions of keys and
values), and puts the reading before its own readings of the error, which it replaces.
"""

from __future__ import annotations

import ast
import re

import torch

from transformer_course.checking.failure import innermost_learner_traceback, learner_source

__all__ = ["front_counted_slice", "yielding_to_front_counted"]


def _is_everything(part: ast.expr) -> bool:
    return (
        isinstance(part, ast.Slice)
        and part.lower is None
        and part.upper is None
        and part.step is None
    )


def _subscripts(source: str):
    """(name, items, text) for each subscript of a plain name in ``source`` whose items
    are a tuple without an ellipsis, starting with at least one bare ``:`` and holding a
    slice with a bound after it (``x[:, a:b]``, ``k[:, :, start:stop]``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
            continue
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(item, ast.Constant) and item.value is Ellipsis for item in items):
            continue
        leading = 0
        while leading < len(items) and _is_everything(items[leading]):
            leading += 1
        if leading == 0 or leading == len(items):
            continue
        if not isinstance(items[leading], ast.Slice):
            continue
        yield node.value.id, items, leading, ast.unparse(node)


def front_counted_slice(
    exc: BaseException, axis_from_end: int, what: str, given: tuple = ()
) -> str:
    """When the learner's function slices one of its tensors with a subscript counted from
    the front (``x[:, a:b]``) whose slice lands, on this call's tensor, on another axis
    than the exercise's (``axis_from_end``: -1 the last, -2 the one before it), or which
    has more items than the tensor has axes: that subscript, the axis it cuts and the fix
    (an ellipsis, counting from the end); "" otherwise. ``what`` names the exercise's axis
    ("the columns", "the keys' positions"); ``given``: the tensors the check passed whose
    axis that is (the learner's frame holds them under any name), the only ones read when
    given (a mask of the learner's own has its keys on another axis)."""
    found = innermost_learner_traceback(exc)
    if found is None:
        return ""
    frame = found.tb_frame
    source = learner_source(exc)
    source = re.sub(r"^\s*@.*$", "", source, flags=re.M)  # decorators may not resolve
    import textwrap

    found_cuts = []
    for name, items, leading, text in _subscripts(textwrap.dedent(source)):
        value = frame.f_locals.get(name)
        if not isinstance(value, torch.Tensor):
            continue
        if given and not any(value is tensor for tensor in given):
            continue  # a tensor of the learner's own (a mask): its axes mean other things
        ndim = value.dim()
        meant = ndim + axis_from_end
        if len(items) > ndim:
            cut = f"asks for {len(items)} axes of a tensor that has {ndim} here"
        elif leading != meant:
            cut = f"cuts axis {leading} of {name}, counted from the front"
        else:
            continue
        if all(text != seen for seen, *_ in found_cuts):
            found_cuts.append((text, name, value, cut, ast.unparse(items[leading])))
    if not found_cuts:
        return ""
    text, name, value, cut, bound = min(found_cuts, key=lambda cut: source.find(cut[0]))
    others = [f"`{seen}`" for seen, *_ in found_cuts if seen != text]
    also = f" ({', '.join(others)} likewise)" if others else ""
    tail = ", :" * (-axis_from_end - 1)
    return (
        f"Your `{text}` {cut}{also}: {name} is {tuple(value.shape)} on this call, and the "
        f"axis to slice is {what}, axis {axis_from_end} (the "
        f"{'last' if axis_from_end == -1 else 'second to last'}). The subscript counts "
        "the axes from the front, for one number of leading axes, but the inputs may "
        "have any (none, a batch, heads): count from the end with an ellipsis, "
        f"{name}[..., {bound}{tail}]."
    )


def yielding_to_front_counted(hints, axis_from_end: int, what: str, given: tuple = ()) -> list:
    """A check's hints for a call, with :func:`front_counted_slice` first and each of the
    others silent when it applies: their readings of the same error (a transpose over the
    wrong pair of axes, a block of the wrong width) would name a slip the learner did not
    make."""

    def front(exc: BaseException) -> str:
        try:
            return front_counted_slice(exc, axis_from_end, what, given)
        except Exception:  # a reading of the learner's source: never in the way
            return ""

    wrapped = [(Exception, front)]
    for when, hint in hints:

        def quiet(exc: BaseException, hint=hint) -> str:
            if front(exc):
                return ""
            return hint(exc) if callable(hint) else hint

        wrapped.append((when, quiet))
    return wrapped
