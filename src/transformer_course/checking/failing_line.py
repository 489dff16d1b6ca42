"""What the names on the learner's line that raised held: shapes and dtypes of tensors and
arrays, lengths of lists and tuples, small numbers, so that a raw error's message shows
the sizes that clashed instead of asking the learner to print them (issue class 8: "what
the learner is shown must show the difference")."""

from __future__ import annotations

import ast
import builtins
import inspect
import keyword
import re
import traceback
from itertools import combinations
from types import FrameType
from typing import Any

from transformer_course.checking.failure import innermost_learner_traceback
from transformer_course.checking.formatting import ordinal

__all__ = [
    "arguments_out_of_order",
    "failing_line_values",
    "in_place_on_line",
    "integer_index_on_a_long_axis",
    "line_row_lists",
    "line_tensors",
    "pieces_of_an_argument",
    "squeezed_arguments",
]

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


def in_place_on_line(exc: BaseException) -> str:
    """For autograd's refusal of an in-place change to a parameter ("a leaf Variable that
    requires grad is being used in an in-place operation"): the in-place calls (a method
    ending in a single _, such as .t_(), .mul_()) on the learner's line that raised, each
    with its out-of-place form; "" when the error is another or the line holds none
    (blind18d-gpt-weight-transposed-in-place was told "an operation ending in _" in
    general, not which one)."""
    if "used in an in-place operation" not in str(exc):
        return ""
    found = _innermost_learner_frame(exc)
    if found is None:
        return ""
    try:
        tree = ast.parse(found[1].strip())
    except SyntaxError:  # a line that is part of a longer statement
        return ""
    calls = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        method = node.func.attr
        if method.endswith("_") and not method.endswith("__") and len(method) > 1:
            calls.append((ast.unparse(node), method))
    if not calls:
        return ""
    named = "; ".join(
        f"{text} ({method} changes the tensor it is called on; {method[:-1]}(), without the "
        "_, returns a new one" + (", as .T does" if method == "t_" else "") + ")"
        for text, method in dict.fromkeys(calls)
    )
    return (
        f"The in-place call on your line that raised: {named}. Here it changes a tensor "
        "autograd tracks as a leaf (a trainable parameter, or an input that requires grad), "
        "which autograd refuses; without autograd it would change that tensor for good "
        "(every later call then sees the changed one). Use the out-of-place form."
    )


def _callee(node: ast.expr, frame: FrameType) -> Any:
    """The function a call's ``func`` names in the learner's frame (a plain name, or a
    module attribute such as F.softmax), or None."""
    if isinstance(node, ast.Name):
        for scope in (frame.f_locals, frame.f_globals, vars(builtins)):
            if node.id in scope:
                return scope[node.id]
        return None
    if isinstance(node, ast.Attribute):
        owner = _callee(node.value, frame)
        if owner is None:
            return None
        try:
            return inspect.getattr_static(owner, node.attr)
        except AttributeError:
            return None
    return None


def arguments_out_of_order(exc: BaseException) -> str:
    """For a learner's line that raised and calls a function with plain names as
    positional arguments, some of which are the names of that function's other parameters
    (scaled_dot_product_attention(q, v, k, mask), whose parameters are q, k, v, mask,
    blind19d-gqa-keys-and-values-swapped-in-call): which argument reaches which parameter;
    "" otherwise. Read off the line's text and the function's signature only."""
    found = _innermost_learner_frame(exc)
    if found is None:
        return ""
    frame, line = found
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:  # a line that continues on the next: no reading
        return ""
    notes = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        function = _callee(node.func, frame)
        if function is None or not callable(function):
            continue
        try:
            parameters = [
                p.name
                for p in inspect.signature(function).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            ]
        except (TypeError, ValueError):
            continue
        names = [arg.id if isinstance(arg, ast.Name) else None for arg in node.args]
        crossed = [
            (name, parameter)
            for name, parameter in zip(names, parameters, strict=False)
            if name is not None and name != parameter and name in parameters
        ]
        if len(crossed) < 2:
            continue
        called = ast.unparse(node)
        went = " and ".join(f"`{name}` goes to the parameter `{param}`" for name, param in crossed)
        notes.append(
            f"Your line calls {clip_call(called)}, whose parameters are "
            f"({', '.join(parameters)}): the arguments are in another order than the "
            f"parameters of the same names, so {went}. Pass each where its name belongs "
            f"(or by keyword)."
        )
    return "\n".join(notes)


def clip_call(text: str, most: int = 120) -> str:
    """A call's source, shortened to ``most`` characters."""
    return text if len(text) <= most else text[: most - 3] + "..."


def squeezed_arguments(exc: BaseException, arguments: list[tuple[str, Any]]) -> str:
    """For each tensor argument of the call (``arguments``: (name, value)) that has axes
    of size 1 and whose name, on the learner's failing line, holds the same numbers with
    those axes gone (mask.squeeze(): (batch, 1, 1, len_k) -> (batch, len_k),
    blind19d-gqa-mask-squeezed): the note that dropping them changed which axes meet when
    broadcasting; "" otherwise."""
    import torch

    found = _innermost_learner_frame(exc)
    if found is None:
        return ""
    frame, line = found
    code = _STRING.sub("", line.split("#")[0])
    on_line = set(_NAME.findall(code))
    notes = []
    for name, given in arguments:
        name = name.strip("`")
        if name not in on_line or not isinstance(given, torch.Tensor) or 1 not in given.shape:
            continue
        known, value = _value_of(name, frame)
        if not known or not isinstance(value, torch.Tensor) or value.shape == given.shape:
            continue
        kept = tuple(size for size in given.shape if size != 1)
        if tuple(value.shape) != kept or not torch.equal(value, given.reshape(kept)):
            continue
        where = "the last" if len(kept) == 1 else f"the {ordinal(len(kept))} from the end"
        notes.append(
            f"Your `{name}` is {tuple(value.shape)}: the argument {name} "
            f"{tuple(given.shape)} with its axes of size 1 dropped (a .squeeze()). Those "
            "axes are what placed its sizes against the right axes: broadcasting lines up "
            f"the last axes, so without them {name}'s remaining axes meet other axes than "
            f"they were made for (here its first axis, of size {kept[0]}, now meets axis "
            f"-{len(kept)}, {where}). Use {name} as it was given."
        )
    return "\n".join(notes)


def line_tensors(exc: BaseException, min_dim: int = 0) -> list[tuple[str, Any]]:
    """The tensors (of min_dim axes or more) the names on the learner's failing line held,
    as (name, tensor), in the line's order (at most six); [] when there is no learner
    line."""
    import torch

    found = _innermost_learner_frame(exc)
    if found is None:
        return []
    frame, line = found
    code = _STRING.sub("", line.split("#")[0])
    tensors = []
    for name in dict.fromkeys(_NAME.findall(code)):
        if keyword.iskeyword(name) or name in _LIBRARIES or hasattr(builtins, name):
            continue
        known, value = _value_of(name, frame)
        if known and type(value) in (torch.Tensor, torch.nn.Parameter) and value.dim() >= min_dim:
            tensors.append((name, value))
    return tensors[:_MOST]


def _as_int_row(item: Any) -> list[int] | None:
    """A 1-D array, tensor, list or tuple of integers as a list of int; None otherwise."""
    import numpy as np
    import torch

    if type(item) is np.ndarray and item.ndim == 1 and np.issubdtype(item.dtype, np.integer):
        return [int(v) for v in item.tolist()]
    if type(item) is torch.Tensor and item.dim() == 1 and not item.is_floating_point():
        return [int(v) for v in item.tolist()]
    if type(item) in (list, tuple) and all(type(v) is int for v in item):
        return list(item)
    return None


def line_row_lists(exc: BaseException) -> list[tuple[str, list[list[int]]]]:
    """The lists (or tuples) of integer rows (1-D arrays, tensors, lists) that the names on
    the learner's failing line held, each as (name, rows as lists of int), in the line's
    order: what a stacking call that raised on rows of unequal lengths was given. [] when
    there is no learner line or no such name."""
    found = _innermost_learner_frame(exc)
    if found is None:
        return []
    frame, line = found
    code = _STRING.sub("", line.split("#")[0])
    out = []
    for name in dict.fromkeys(_NAME.findall(code)):
        if keyword.iskeyword(name) or name in _LIBRARIES or hasattr(builtins, name):
            continue
        known, value = _value_of(name, frame)
        if not known or type(value) not in (list, tuple) or not value:
            continue
        rows = [_as_int_row(item) for item in value]
        if all(row is not None for row in rows):
            out.append((name, rows))
    return out[:_MOST]


def pieces_of_an_argument(exc: BaseException, arguments: list[tuple[str, Any]]) -> str:
    """When two or more tensors named on the learner's failing line are, joined in order,
    a tensor argument of the call cut along one axis that is not its last (x.chunk(2)
    without dim=-1 cuts the first axis): the axis and the sizes of the pieces; "" otherwise
    (blind12i-rot-chunk-without-dim got the raw broadcasting error alone)."""
    import torch

    pieces = line_tensors(exc, min_dim=2)
    if len(pieces) < 2:
        return ""
    for given_name, given in arguments:
        if not isinstance(given, torch.Tensor) or given.dim() < 2:
            continue
        for axis in range(given.dim() - 1):  # every axis but the last (the features)
            for count in range(len(pieces), 1, -1):
                for group in combinations(pieces, count):  # in the line's order
                    try:
                        joined = torch.cat([value.detach() for _, value in group], dim=axis)
                    except (RuntimeError, IndexError, TypeError):  # pieces that do not join
                        continue
                    if joined.shape != given.shape or not torch.equal(joined, given.detach()):
                        continue
                    if any(value.shape[axis] in (0, given.shape[axis]) for _, value in group):
                        continue  # an empty piece and the whole: no cut at all
                    names = ", ".join(name for name, _ in group)
                    sizes = " + ".join(str(value.shape[axis]) for _, value in group)
                    return (
                        f"Your {names} are the argument {given_name.strip('`')} "
                        f"{tuple(given.shape)} cut along axis {axis} (sizes {sizes} = "
                        f"{given.shape[axis]}), not along its last axis: x.chunk(n) and "
                        "x.split(size) without dim cut the first axis (dim=0); to cut the "
                        "features, pass dim=-1 (x.chunk(2, dim=-1))."
                    )
    return ""


def _literal_int(node: ast.expr) -> int | None:
    """The integer an index element writes literally (0, -1), or None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _literal_int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _whole_axis(node: ast.expr) -> bool:
    """Whether an index element is a bare ':' (every entry of its axis)."""
    return isinstance(node, ast.Slice) and not (node.lower or node.upper or node.step)


def integer_index_on_a_long_axis(exc: BaseException, value_size: int) -> str:
    """A slice assignment ``t[..., 0, ...] = value`` that failed because the value has
    ``value_size`` entries along an axis the slice lacks: the one axis of ``t`` indexed by a
    literal integer whose size is ``value_size`` (the integer keeps one entry of it where the
    value has one per entry), and, when ``t`` has an axis of size 1 indexed by ':', that
    axis as the one the integer was written for (an index from a layout with the axes in
    another order). "" when the line is no such assignment or no single axis fits."""
    import torch

    found = _innermost_learner_frame(exc)
    if found is None:
        return ""
    frame, line = found
    try:
        body = ast.parse(line.split("#")[0].strip()).body
    except SyntaxError:
        return ""
    if len(body) != 1 or not isinstance(body[0], ast.Assign | ast.AugAssign):
        return ""
    statement = body[0]
    target = statement.target if isinstance(statement, ast.AugAssign) else statement.targets[0]
    if not isinstance(target, ast.Subscript):
        return ""
    name = ast.unparse(target.value)
    known, tensor = _value_of(name, frame)
    if not known or not isinstance(tensor, torch.Tensor):
        return ""
    elements = list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]
    if len(elements) > tensor.dim() or any(
        isinstance(e, ast.Constant) and e.value in (None, Ellipsis) for e in elements
    ):
        return ""  # a new axis or an ellipsis: the elements are not one per axis
    shape = tuple(tensor.shape)
    fits = [
        (axis, index)
        for axis, element in enumerate(elements)
        if (index := _literal_int(element)) is not None and shape[axis] == value_size
    ]
    if len(fits) != 1:
        return ""
    axis, index = fits[0]
    text = (
        f"Your line writes {ast.unparse(target)}: the integer {index} on axis {axis} of "
        f"{name} {shape} selects only position {index} of that axis, which has {value_size} "
        f"entries, and your value holds one entry for each of them. Give axis {axis} every "
        "position, ':', where the integer stands."
    )
    ones = [
        a
        for a in range(tensor.dim())
        if shape[a] == 1 and a != axis and (a >= len(elements) or _whole_axis(elements[a]))
    ]
    if len(ones) == 1:
        fixed = [ast.unparse(e) for e in elements] + [":"] * (tensor.dim() - len(elements))
        fixed[axis], fixed[ones[0]] = ":", str(index)
        layout = list(shape)
        layout[axis], layout[ones[0]] = 1, shape[axis]
        text += (
            f" That index was written for a layout with the size-1 axis at position {axis}, "
            f"{tuple(layout)}; in yours the size-1 axis is axis {ones[0]}: "
            f"{name}[{', '.join(fixed)}]."
        )
    return text


_SIZES_MET = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")


def missing_trailing_axis(exc: BaseException) -> str:
    """For a broadcast refused between two sizes: a tensor of the learner's failing line
    shaped like another one there without its last axis (one value per row of it: a max,
    sum or mean over the last axis taken without keepdim=True), whose own last axis met
    the other's last axis; "" when no pair of the line's tensors fits (or there is no
    learner frame, as in the grader)."""
    import torch

    sizes = _SIZES_MET.search(str(exc))
    found = _innermost_learner_frame(exc)
    if sizes is None or found is None:
        return ""
    frame, line = found
    code = _STRING.sub("", line.split("#")[0])
    tensors = {}
    for name in dict.fromkeys(_NAME.findall(code)):
        known, value = _value_of(name, frame)
        if known and isinstance(value, torch.Tensor) and value.dim() >= 1:
            tensors[name] = tuple(value.shape)
    met = {int(sizes[1]), int(sizes[2])}
    for short, short_shape in tensors.items():
        for full, full_shape in tensors.items():
            if short_shape != full_shape[:-1] or {short_shape[-1], full_shape[-1]} != met:
                continue
            return (
                f"{short} {short_shape} is {full} {full_shape} without its last axis: one "
                f"value per row of {full} (a max, sum or mean over the last axis taken "
                f"without keepdim=True). Broadcasting lines shapes up from the right, so "
                f"{short}'s last axis ({short_shape[-1]} rows) meets {full}'s last axis "
                f"({full_shape[-1]} columns): each row's value is not broadcast along its "
                f"row, and where the two sizes agree it is silently applied across the "
                f"columns instead (another row's value in each column). Give it its "
                f"trailing axis back: {short}[..., None] (or keepdim=True where it is "
                "computed)."
            )
    return ""
