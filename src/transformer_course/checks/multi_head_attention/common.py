"""Lesson 05's shared check machinery: where a wrong entry of a reshaped tensor came from,
the dtype rule of a reshape, and the hint for a reshape that writes a batch of 1. Its names
keep their underscore: they are private to the package (its modules import them; tests do
not).
"""

from __future__ import annotations

import contextlib
import io
import math
import re

import torch


def _where_from(got: torch.Tensor, x: torch.Tensor, index: tuple[int, ...]) -> str:
    """Which entry of ``x`` the learner's value at ``index`` is (random values are unique)."""
    hits = (x == got[index]).nonzero()
    return f"x{tuple(int(i) for i in hits[0])}" if len(hits) == 1 else "a value not taken from x"


#: the other cause of a missing transpose (round 19, blind16d-split-transpose-result-dropped:
#: `heads.transpose(1, 2)` on a line of its own was told only to add a transpose): the
#: calls cannot tell a transpose never written from one whose result was dropped
_TRANSPOSE_RESULT_KEPT = (
    "If your code has the transpose (or a permute), its result was not kept: neither is in "
    "place, each returns a new tensor and leaves its input as it was, so a line "
    "`t.transpose(1, 2)` on its own changes nothing. Keep the result: t = t.transpose(1, 2), "
    "or chain it."
)

_SAME_DTYPE = "Reshaping and transposing move numbers around; they never need to change the dtype."


def _batch_of_one_hint(batch: int):
    """A view/reshape that asks for a batch of 1 of a tensor that holds ``batch`` (> 1)
    sequences: the requested size times batch is exactly the number of elements, so the
    other sizes are right and the 1 was written into the code."""

    def hit(exc: BaseException) -> str:
        found = re.search(r"shape '\[([-\d, ]+)\]' is invalid for input of size (\d+)", str(exc))
        if batch <= 1 or found is None:
            return ""
        shape = [int(n) for n in found.group(1).split(",")]
        if shape[0] != 1 or -1 in shape or math.prod(shape) * batch != int(found.group(2)):
            return ""
        return (
            f"Your reshape asks for {tuple(shape)}: a batch of one, but the tensor holds "
            f"batch = {batch} sequences. Take the batch size from the input (batch = "
            "x.shape[0]) instead of writing 1."
        )

    return [(RuntimeError, hit)]


#: head counts written into code: the paper's h = 8, BERT-base's 12, and 16
_FIXED_HEAD_COUNTS = (8, 12, 16)


def _fixed_heads_note(right_with, num_heads: int, where: str) -> str:
    """A function right only when the number of heads is a constant (round 10: heads
    concatenated in a loop over range(8)): ``right_with(k)`` says whether the learner's
    function is right with k heads (or, for split_heads, whether it cut x into k heads)."""
    for k in _FIXED_HEAD_COUNTS:
        if k == num_heads:
            continue
        with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
            if right_with(k):
                return (
                    f"Yours {where.format(k=k, num_heads=num_heads)}: is {k} written into your "
                    "code? Take the number of heads from the input (x.shape[1] in merge_heads, "
                    "the num_heads argument in split_heads)."
                )
    return ""


def _fixed_heads_hint(right_with, num_heads: int, where: str):
    """:func:`_fixed_heads_note` as a hint for an exception the learner's code raised."""

    def hit(_exc: BaseException) -> str:
        return _fixed_heads_note(right_with, num_heads, where)

    return [(Exception, hit)]


def _numpy_refused_hint(name: str, recipe: str) -> str:
    """The advice when ``x.numpy()`` refused x because it requires grad."""
    return (
        f"This x requires grad, as the projections' output does when {name} runs inside the "
        "layer: x.numpy() refuses such a tensor, and a numpy round trip (x.detach().numpy() "
        "... torch.from_numpy) would cut the result from the autograd graph, so no gradient "
        "would flow back to the projections and they could never be trained. Stay in torch "
        f"from start to end: {recipe}."
    )


def _expect_graph(c, fn, x: torch.Tensor, args: tuple, reference, name: str, recipe: str) -> None:
    """``fn(x, *args)`` for an x that requires grad: the result must stay in x's autograd
    graph (a grad_fn). A numpy round trip refuses x (x.numpy() on a tensor that requires
    grad) or detaches the result; torch.tensor(...) of the values, .detach() and
    torch.no_grad() detach it too (blind13d-split-through-numpy). No backward is run: in
    the grader the result crosses the sandbox's codec, which keeps requires_grad and
    whether there was a grad_fn, not the graph itself."""
    shape = ", ".join(str(n) for n in x.shape)
    extra = "".join(f", {a}" for a in args)
    call = f"{name}(x ({shape}){extra}) for an x that requires grad"
    leaf = x.detach().clone().requires_grad_()
    got = c.call(
        fn,
        leaf,
        *args,
        call_repr=call,
        hints=[
            ("Can't call numpy() on Tensor that requires grad", _numpy_refused_hint(name, recipe))
        ],
    )
    if not isinstance(got, torch.Tensor) or got.shape != reference(x, *args).shape:
        return  # the checks above already say what the result must be
    c.expect_true(
        got.grad_fn is not None or got is leaf,
        f"{call} returned a tensor outside the autograd graph (no grad_fn, requires_grad "
        f"{got.requires_grad}): your values were right on the inputs above, but no gradient "
        "can flow back to x through this result, so the projections before this step could never be trained. A numpy round trip "
        "(.numpy() ... torch.from_numpy / torch.tensor), torch.tensor(...) of the values, "
        ".detach(), .data or torch.no_grad() each cut the result from the graph, and this "
        f"call cannot tell which of them you used. Stay in torch, attached: {recipe}.",
    )
