"""What a layer's residual dropout does to each sub-layer's output, read from one
training-mode call at a rate between 0 and 1.

The layers' value cases run in train mode only at rates 0 and 1, whose results are fixed:
there a dropout that draws one decision per sentence (stochastic depth, timm's DropPath,
in the residual dropout's place), per position, or per feature gives the same values as
nn.Dropout, or NaN at p = 1 from its division by 1 - p, whose message named the division
and not the draw (blind28b-el-drop-path-for-residual-dropout). Here the layer runs once at
rate p with forward hooks on its sub-layers and norms (hooks only observe), and the term
the layer adds to its stream in each sub-layer's place is rebuilt from the learner's own
sub-results: post-LN, the input of the norm after the sub-layer minus the sub-layer's
input; pre-LN, the next stream (the next sub-layer's norm input, or the output) minus the
stream before. That term against the sub-layer's output is one dropout's before and after,
judged by :func:`~transformer_course.checking.dropout_masks.dropout_pattern_problem`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch import nn

from transformer_course.checking.dropout_masks import dropout_pattern_problem
from transformer_course.checking.sublayer_names import sublayer_words

__all__ = ["residual_draw_problem", "undropped_note", "undropped_sublayers"]

AXES = ("sentence", "position", "feature")


def _first(value: Any) -> torch.Tensor | None:
    if isinstance(value, (tuple, list)) and value:
        value = value[0]
    return value if isinstance(value, torch.Tensor) else None


def _recorded(
    module: nn.Module, names: Sequence[str], call: Callable[[], Any]
) -> tuple[Any, list[tuple[str, torch.Tensor | None, torch.Tensor | None]]]:
    """One call with forward hooks on the named submodules: (its result, [(name, first
    input, output)] in the order they returned)."""
    records: list[tuple[str, torch.Tensor | None, torch.Tensor | None]] = []
    handles = []
    named = dict(module.named_modules())
    for name in names:
        child = named.get(name)
        if child is None:
            continue

        def hook(_mod, args, kwargs, output, name=name):
            first = args[0] if args else next(iter(kwargs.values()), None)
            records.append((name, _first(first), _first(output)))

        handles.append(child.register_forward_hook(hook, with_kwargs=True))
    try:
        with torch.no_grad():
            result = call()
    finally:
        for handle in handles:
            handle.remove()
    return _first(result), records


def _added_terms(
    module: nn.Module,
    call: Callable[[], Any],
    x: torch.Tensor,
    sublayers: Sequence[str],
    norms: Mapping[str, str],
    norm_first: bool,
) -> list[tuple[str, torch.Tensor, torch.Tensor]] | None:
    """One call with hooks: for each sub-layer in order, (its name, its output, the term
    the layer adds to the stream in its place), rebuilt from the learner's own
    sub-results; None when the flow cannot be read (a sub-layer or norm not called as a
    module, shapes that do not line up, the layer raising)."""
    try:
        got, records = _recorded(module, [*sublayers, *norms.values()], call)
    except Exception:  # the learner's layer raised under hooks: nothing to say here
        return None
    if got is None:
        return None
    terms = []
    stream = x.detach().double()
    for position, name in enumerate(sublayers):
        index = next((i for i, r in enumerate(records) if r[0] == name), None)
        if index is None:
            return None
        _, inp, out = records[index]
        if inp is None or out is None:
            return None
        after = [r for r in records[index + 1 :] if r[0] in norms.values()]
        if norm_first:
            following = (
                norms.get(sublayers[position + 1]) if position + 1 < len(sublayers) else None
            )
            nxt = next((r for r in after if r[0] == following), None) if following else None
            new_stream = nxt[1] if nxt is not None else got
            if new_stream is None:
                return None
            new_stream = new_stream.detach().double()
            before_sum = stream
        else:
            if not after or after[0][1] is None or after[0][2] is None:
                return None
            new_stream = after[0][1].detach().double()
            before_sum = inp.detach().double()
        if new_stream.shape != before_sum.shape or out.shape != before_sum.shape:
            return None
        terms.append((name, out.detach().double(), new_stream - before_sum))
        stream = new_stream if norm_first else after[0][2].detach().double()
    return terms


def undropped_sublayers(
    module: nn.Module,
    call: Callable[[], Any],
    x: torch.Tensor,
    *,
    sublayers: Sequence[str],
    norms: Mapping[str, str],
    norm_first: bool,
) -> list[str]:
    """For ``module`` built with dropout=1.0 in train mode: the sub-layers whose output the
    layer adds to its stream as it is (no residual dropout on it: at p = 1 the term added
    is 0), read from the learner's own sub-results whatever else is wrong (a mask left
    out changes the output's values, not that it is added undropped)."""
    terms = _added_terms(module, call, x, sublayers, norms, norm_first)
    if not terms:
        return []
    found = []
    for name, out, added in terms:
        scale = float(out.abs().max())
        if scale > 1e-6 and torch.allclose(added, out, rtol=1e-4, atol=1e-5 * max(1.0, scale)):
            found.append(name)
    return found


def residual_draw_problem(
    module: nn.Module,
    call: Callable[[], Any],
    x: torch.Tensor,
    p: float,
    *,
    sublayers: Sequence[str],
    norms: Mapping[str, str],
    norm_first: bool,
    shape_only: bool = False,
) -> str:
    """For ``module`` built with dropout ``p`` (0 < p < 1) in train mode and ``call`` one
    call of it on ``x``: what is wrong with the dropout that turns a sub-layer's output
    into the term added to the stream, said for the first sub-layer where it is not
    nn.Dropout's (see the module's docstring); "" when each looks right, when the layer
    raises, or when the term is not a dropout of the output at all (other checks say
    that). ``sublayers``: in the order they run; ``norms``: {sub-layer: its norm}.
    ``shape_only``: say only a mask drawn with another shape (whole sentences, whole
    positions, one mask for every position), where the caller has a finer diagnosis of a
    wrong rate or scale (a fixed rate, a division by 1 - p)."""
    if not 0.0 < p < 1.0:
        return ""
    for name, out, added in _added_terms(module, call, x, sublayers, norms, norm_first) or []:
        problem = dropout_pattern_problem(out, added, p, AXES, unit="value", holder=module)
        if problem and shape_only and not re.search(r"zeroes (whole|the same)", problem):
            return ""
        if problem:
            return (
                f"The term your layer adds to the stream after `self.{name}` (the "
                f"{sublayer_words(name)}'s residual dropout, dropout({name}(...)), read from "
                f"the input of the sum) is not what a dropout of `self.{name}`'s output "
                f"gives. {problem}"
            )
    return ""


def undropped_note(
    message: str,
    module: nn.Module,
    call: Callable[[], Any],
    x: torch.Tensor,
    *,
    sublayers: Sequence[str],
    norms: Mapping[str, str],
    norm_first: bool,
) -> str:
    """A second mistake to say after ``message`` (a failure found on another input, in
    eval mode or at rate 0, that says nothing about dropout): the sub-layers whose residual
    dropout is missing, read from ``module`` built with dropout=1.0 in train mode and
    called once by ``call`` (:func:`undropped_sublayers`); "" when every one is dropped or
    the message already speaks of dropout (blind17g-dl-pre-ln-cross-unmasked-undropped
    was told only of its missing src_mask, "with one change")."""
    said = message.split("is not what the reference gives.", 1)[-1]
    if re.search(r"\bdropout\b(?!=)|nn\.Dropout|\bdrop(s|ped)?\b", said, re.IGNORECASE):
        return ""
    names = undropped_sublayers(
        module, call, x, sublayers=sublayers, norms=norms, norm_first=norm_first
    )
    if not names:
        return ""
    listed = ", ".join(f"`self.{name}`" for name in names)
    sums = "; ".join(f"x + dropout({name}(...))" for name in names)
    which = "that sub-layer" if len(names) == 1 else "those sub-layers"
    return (
        f"\nA second mistake, besides that one: built with dropout=1.0, in train mode, your "
        f"layer adds the output of {listed} to the stream as it is, undropped, where p = 1 "
        f"drops it to 0: the residual dropout on {which} is missing. Write {sums}."
    )
