"""Checks for lesson 05: ``split_heads``, ``merge_heads``, ``MultiHeadAttention`` and two
concept questions.

Expected values come from :mod:`transformer_course.reference.multi_head_attention`
(tested against ``nn.MultiheadAttention`` in ``tests/test_05_multi_head_attention.py``).
The values that classic mistakes produce are computed by the float64 oracle
:func:`~transformer_course.checking.oracles.multi_head_attention_f`, with one knob per
mistake, so that a wrong answer gets the diagnosis of the mistake it matches. The attention weights are diagnosed by the
course's one shared diagnosis, :func:`~transformer_course.checking.attention_weights.expect_attention_weights`.

What is required is what the concept needs; incidental choices are accepted:

* any value that blocks masked positions (-inf, -1e9, ``torch.finfo(dtype).min``, an
  additive 0/-inf mask), and fully masked query rows that come out as zeros, uniform
  weights or another finite distribution (the conventions the shared diagnosis accepts;
  a note says which), the output being checked under the learner's own convention;
* any floating-point dtype for the output and the weights (a note when it is not the
  inputs' float32), compared with the tolerance of float32, the inputs' dtype;
* dropout through ``nn.Dropout``, ``F.dropout(..., training=self.training)`` or
  ``F.scaled_dot_product_attention(dropout_p=...)``; the weights returned in training
  mode may be taken before dropout (the contract) or after it (what
  ``nn.MultiheadAttention`` and the Annotated Transformer return), with a note.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import re
from dataclasses import dataclass
from typing import Any

import torch

from transformer_course.checking import Checker, CheckFailure, tolerance, torch_generator
from transformer_course.checking.attention_weights import (
    expect_attention_weights,
    with_fully_masked_rows,
)
from transformer_course.checking.inputs import randn
from transformer_course.checking.layers import mistake_pairs, value_or_none
from transformer_course.checking.modules import build_module, random_state
from transformer_course.checking.oracles import multi_head_attention_f
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.exercise import Exercise
from transformer_course.reference import multi_head_attention as ref

__all__ = [
    "check_MultiHeadAttention",
    "check_merge_heads",
    "check_quiz_cross_attention_shape",
    "check_quiz_head_width",
    "check_split_heads",
]

_PROJECTIONS = ("w_q", "w_k", "w_v", "w_o")


def _where_from(got: torch.Tensor, x: torch.Tensor, index: tuple[int, ...]) -> str:
    """Which entry of ``x`` the learner's value at ``index`` is (random values are unique)."""
    hits = (x == got[index]).nonzero()
    return f"x{tuple(int(i) for i in hits[0])}" if len(hits) == 1 else "a value not taken from x"


# ------------------------------------------------------------------ split_heads
# (seed, batch, len, d_model, num_heads, dtype)
_VISIBLE_SPLIT = [
    (1, 2, 3, 8, 2, torch.float32),
    (2, 1, 5, 12, 3, torch.float64),
    (3, 2, 2, 6, 6, torch.float32),  # d_head = 1
    (4, 1, 3, 4, 1, torch.float32),  # one head
]
_HIDDEN_SPLIT = [
    (101, 3, 5, 12, 4, torch.float64),
    (102, 2, 7, 16, 8, torch.float32),
    (103, 1, 6, 6, 1, torch.float32),
    (104, 2, 3, 10, 10, torch.float32),
    (105, 2, 5, 24, 6, torch.float64),
]

_SPLIT_NO_TRANSPOSE = (
    "You reshaped straight to (batch, num_heads, len, d_head) without a transpose. A reshape "
    "only regroups the numbers in memory order, so 'head 0' then holds the first tokens' "
    "complete vectors instead of the first d_head features of every token. Reshape to "
    "(batch, len, num_heads, d_head) first, then `.transpose(1, 2)`."
)
_SPLIT_STRIDED = (
    "Your heads are split along the wrong axis: head i should hold the contiguous features "
    "i*d_head ... (i+1)*d_head - 1 of each token, but yours holds every num_heads-th feature. "
    "Reshape the last axis as (num_heads, d_head), in that order, not (d_head, num_heads)."
)
_SAME_DTYPE = "Reshaping and transposing move numbers around; they never need to change the dtype."


_SPLIT_AXES = ("batch", "len", "num_heads", "d_head")


def _split_permutation_message(order: tuple[int, ...]) -> str:
    names = ", ".join(_SPLIT_AXES[axis] for axis in order)
    return (
        f"Your axes come out in the order ({names}): that is x.reshape(batch, len, num_heads, "
        f"d_head).permute{order}. The contract's order is (batch, num_heads, len, d_head): "
        ".permute(0, 2, 1, 3), i.e. .transpose(1, 2)."
    )


def _split_permutations(x: torch.Tensor, num_heads: int, expected: torch.Tensor) -> dict:
    """Every other order of the axes of (batch, len, num_heads, d_head) that has the expected
    shape (when sizes coincide), as a known mistake named by its order."""
    batch, length, d_model = x.shape
    four = x.reshape(batch, length, num_heads, d_model // num_heads)
    found = {}
    for order in itertools.permutations(range(4)):
        value = four.permute(order)
        if order != (0, 2, 1, 3) and value.shape == expected.shape:
            if not torch.equal(value, expected):
                found[_split_permutation_message(order)] = value
    return found


def _split_shape_hint(got: tuple, batch: int, length: int, num_heads: int, d_head: int) -> str:
    hints = {
        (batch, length, num_heads, d_head): "That is (batch, len, num_heads, d_head): you cut "
        "d_model into heads but left the heads axis after len. Add `.transpose(1, 2)`.",
        (batch, num_heads, d_head, length): "len and d_head are swapped: transpose axes 1 and 2 "
        "of the (batch, len, num_heads, d_head) tensor, not 2 and 3.",
        (batch, length, d_head, num_heads): "The last two axes are (d_head, num_heads): reshape "
        "the last axis as (num_heads, d_head), then move the heads axis to position 1.",
        (batch * num_heads, length, d_head): "Keep batch and heads as separate axes: the "
        "contract is 4-D, (batch, num_heads, len, d_head). (d2l's transpose_qkv folds them "
        "into one axis for its own attention function; here they stay apart.)",
    }
    default = "The contract is (batch, num_heads, len, d_head) with d_head = d_model // num_heads."
    sizes = (batch, length, num_heads, d_head)
    orders = [
        order
        for order in itertools.permutations(range(4))
        if tuple(sizes[axis] for axis in order) == tuple(got)
    ]
    if tuple(got) not in hints and orders:  # another order of the four axes: say which
        names = " or ".join(
            "(" + ", ".join(_SPLIT_AXES[axis] for axis in order) + ")" for order in orders[:2]
        )
        default = (
            f"That is {names}: the four axes are there, in the wrong order. The contract's "
            "order is (batch, num_heads, len, d_head): reshape to (batch, len, num_heads, "
            "d_head), then .transpose(1, 2)."
        )
    return hints.get(tuple(got), default)


def _sequence_first_split(got, x: torch.Tensor, num_heads: int) -> str:
    """When ``got`` is the right recipe run with the batch and length sizes exchanged,
    x.reshape(len, batch, num_heads, d_head).transpose(1, 2): x.shape read in PyTorch's
    sequence-first order (blind7b-split-sequence-first-unpack; before: "the four axes are
    there, in the wrong order", which a reshape that mixes the sequences is not)."""
    batch, length, d_model = x.shape
    if batch == length or not isinstance(got, torch.Tensor):
        return ""
    mixed = x.reshape(length, batch, num_heads, d_model // num_heads).transpose(1, 2)
    if got.shape != mixed.shape or got.dtype != x.dtype or not torch.equal(got, mixed):
        return ""
    return (
        f"Yours is x.reshape(len, batch, num_heads, d_head).transpose(1, 2), with len = {length} "
        f"and batch = {batch} exchanged: x.shape was read as (len, batch, d_model), PyTorch's "
        "sequence-first order (nn.MultiheadAttention without batch_first), but x is (batch, "
        "len, d_model). The reshape then runs without error and mixes the tokens of different "
        "sequences. Unpack batch, length, d_model = x.shape and reshape to (batch, len, "
        "num_heads, d_head), then .transpose(1, 2)."
    )


_SPLIT_PIECES_OF_NUM_HEADS = (
    "Yours holds d_head pieces of num_heads consecutive features each, stacked: what "
    "torch.split(x, num_heads, dim=-1) gives, whose second argument is the size of each "
    "piece, not the number of pieces. Cut num_heads pieces of d_head features: "
    "torch.chunk(x, num_heads, dim=-1) or torch.split(x, d_head, dim=-1), stacked on dim=1 (or "
    "reshape to (batch, len, num_heads, d_head) and .transpose(1, 2))."
)


def _pieces_of_num_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """torch.stack(torch.split(x, num_heads, dim=-1), dim=1): (batch, d_head, len, num_heads)."""
    batch, length, d_model = x.shape
    return x.reshape(batch, length, d_model // num_heads, num_heads).permute(0, 2, 1, 3)


def check_split_heads(split_heads, *, hidden: bool = False) -> None:
    """split_heads(x (batch, len, d_model), num_heads) -> (batch, num_heads, len, d_head).

    Required: that shape, x's dtype, and exactly x's numbers with head i holding features
    i*d_head ... (i+1)*d_head - 1 of every token. Any way of getting there is accepted
    (reshape/view + transpose/permute, unflatten, chunk + stack, einsum, a loop).
    """
    with Checker("split_heads", hidden=hidden) as c:
        c.require_callable(split_heads)
        for seed, batch, length, d_model, num_heads, dtype in (
            _HIDDEN_SPLIT if hidden else _VISIBLE_SPLIT
        ):
            d_head = d_model // num_heads
            x = randn((batch, length, d_model), seed, dtype=dtype)  # (batch, len, d_model)
            what = (
                f"split_heads(x, num_heads={num_heads}) for x of shape (batch={batch}, "
                f"len={length}, d_model={d_model})"
            )
            got = c.call(
                split_heads,
                x,
                num_heads,
                call_repr=f"split_heads(x {tuple(x.shape)}, {num_heads})",
                hints=_batch_of_one_hint(batch),
                mutation_hint="Reshape and transpose give new views of x; nothing needs to be "
                "written into x.",
            )
            c.expect_type(got, torch.Tensor, what, "Return a torch tensor (reshape/transpose x).")
            expected = ref.split_heads(x, num_heads)  # (batch, num_heads, len, d_head)
            pieces = _pieces_of_num_heads(x, num_heads)
            by_value = (
                got.shape == pieces.shape and got.dtype == x.dtype and torch.equal(got, pieces)
            )
            sequence_first = _sequence_first_split(got, x, num_heads)
            # another order of the four axes, told by the values where sizes coincide (the
            # shape alone left "(batch, d_head, num_heads, len) or (num_heads, d_head, batch,
            # len)" for a transpose(1, 3), mutant-split_heads-1)
            four = x.reshape(batch, length, num_heads, d_head)
            reordered = next(
                (
                    _split_permutation_message(order)
                    for order in itertools.permutations(range(4))
                    if four.permute(order).shape == got.shape
                    and four.permute(order).shape != expected.shape
                    and got.dtype == x.dtype
                    and torch.equal(got, four.permute(order))
                ),
                "",
            )
            shape_hint = _split_shape_hint(got.shape, batch, length, num_heads, d_head)
            if reordered and "the four axes are there, in the wrong order" in shape_hint:
                shape_hint = reordered  # the named shapes keep their own advice
            c.expect_shape(
                got,
                expected.shape,
                what,
                _SPLIT_PIECES_OF_NUM_HEADS if by_value else sequence_first or shape_hint,
            )
            c.expect_dtype(got, dtype, what, _SAME_DTYPE)

            def explain(got=got, x=x, expected=expected, d_head=d_head) -> str:
                b, i, t, j = (int(n) for n in (got != expected).nonzero()[0])  # first wrong entry
                return (
                    f"At index [{b}, {i}, {t}, {j}] yours holds {_where_from(got, x, (b, i, t, j))}, "
                    f"but head {i} of token {t} should hold x[{b}, {t}, {i * d_head + j}] "
                    f"(result[b, i, t, j] == x[b, t, i * d_head + j])."
                )

            c.expect_equal(
                got,
                expected,
                what,
                hint=explain,
                mistakes={
                    _SPLIT_NO_TRANSPOSE: x.reshape(batch, num_heads, length, d_head),
                    _SPLIT_STRIDED: x.reshape(batch, length, d_head, num_heads).permute(0, 3, 1, 2),
                    _SPLIT_PIECES_OF_NUM_HEADS: pieces,
                    **_split_permutations(x, num_heads, expected),
                },
            )


# ------------------------------------------------------------------ merge_heads
# (seed, batch, num_heads, len, d_head, dtype, non_contiguous_input)
_VISIBLE_MERGE = [
    (11, 2, 2, 3, 4, torch.float32, False),
    (12, 1, 3, 5, 2, torch.float64, False),
    (13, 2, 2, 3, 2, torch.float32, True),  # a transposed view, as split_heads returns it
    (14, 1, 1, 3, 2, torch.float32, False),  # one head
]
_HIDDEN_MERGE = [
    (111, 3, 4, 2, 3, torch.float64, False),
    (112, 2, 8, 6, 2, torch.float32, False),
    (113, 1, 1, 4, 6, torch.float32, False),
    (114, 2, 5, 3, 1, torch.float32, False),
    (115, 2, 3, 7, 4, torch.float32, True),
]

_MERGE_NO_TRANSPOSE = (
    "You reshaped (batch, num_heads, len, d_head) straight to (batch, len, d_model) without a "
    "transpose, so each output 'token' is cut out of one head's block of numbers. Move the "
    "heads axis back behind len first (`.transpose(1, 2)`), then reshape."
)
_MERGE_INTERLEAVED = (
    "Your heads come out interleaved (feature j of head i landed at j*num_heads + i): merging "
    "should concatenate the heads, head 0's d_head features first. Transpose to (batch, len, "
    "num_heads, d_head) and flatten the last two axes in that order."
)


_MERGE_UNPACKED_AS_SPLIT = (
    "Yours is x.transpose(1, 2) reshaped to (batch, num_heads, len * d_head): the transpose is "
    "there, but the sizes you reshape to have len and num_heads exchanged (was x.shape unpacked "
    "as (batch, len, num_heads, d_head), split_heads' layout?). x is (batch, num_heads, len, "
    "d_head): unpack it in that order and reshape to (batch, len, num_heads * d_head)."
)


def _merge_shape_hint(got, x, batch: int, num_heads: int, length: int, d_head: int) -> str:
    """The advice for a wrong shape; where two computations give that shape, the values
    say which one it is (the shape alone names none)."""
    shape = tuple(got.shape)
    if shape == (batch, num_heads, length * d_head) and got.dtype == x.dtype:
        if torch.equal(got, x.reshape(shape)):
            return (
                "You flattened len and d_head together: move the heads axis back behind len "
                "first (`.transpose(1, 2)`), then flatten the last two axes."
            )
        if torch.equal(got, x.transpose(1, 2).reshape(shape)):
            return _MERGE_UNPACKED_AS_SPLIT
        return (
            f"Your middle axis has num_heads = {num_heads} entries where len = {length} belongs, "
            "and the last one len * d_head: the result is (batch, len, num_heads * d_head)."
        )
    hints = {
        (batch, length, num_heads, d_head): "That is (batch, len, num_heads, d_head): flatten the "
        "last two axes into one of size num_heads * d_head.",
        (batch, length * num_heads, d_head): "You merged len and num_heads: the heads must be "
        "concatenated along the feature axis, giving (batch, len, num_heads * d_head).",
    }
    if shape == (batch * length, num_heads * d_head) and batch > 1:  # blind7b-merge-flattens-batch
        return (
            f"Yours is 2-D: its first axis, {batch * length} = batch {batch} x len {length}, "
            "folds the batch and the positions together (a reshape to (-1, num_heads * d_head)). "
            "Keep them apart: reshape to (batch, len, num_heads * d_head)."
        )
    if shape not in hints and got.numel() == x.numel() and got.dtype == x.dtype:
        # x's axes read in another order (blind8d-merge-unpacks-heads-first: batch and
        # num_heads exchanged, a wrong shape whenever batch != num_heads)
        axes = ("batch", "num_heads", "len", "d_head")
        for order in itertools.permutations(range(4)):
            if order != (0, 2, 1, 3) and torch.equal(got, x.permute(order).reshape(shape)):
                moved = [axes[i] for i, j in zip(order, (0, 2, 1, 3), strict=True) if i != j]
                exchanged = (
                    f": the {moved[0]} and {moved[1]} axes are exchanged" if len(moved) == 2 else ""
                )
                return (
                    f"Yours is x.permute{order} reshaped: x's numbers read in the axis order "
                    f"({', '.join(axes[i] for i in order)}) where (batch, len, num_heads, d_head) "
                    f"belongs{exchanged}. x is (batch, num_heads, len, d_head): transpose(1, 2), "
                    "then reshape to (batch, len, num_heads * d_head)."
                )
    return hints.get(shape, "The contract is (batch, len, num_heads * d_head).")


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


def check_merge_heads(merge_heads, *, hidden: bool = False) -> None:
    """merge_heads(x (batch, num_heads, len, d_head)) -> (batch, len, num_heads * d_head).

    Required: that shape, x's dtype, and exactly x's numbers with the heads concatenated
    (head 0's features first). Inputs include transposed views, as split_heads returns
    them, so `.view` without `.contiguous()` is caught visibly.
    """
    with Checker("merge_heads", hidden=hidden) as c:
        c.require_callable(merge_heads)
        for seed, batch, num_heads, length, d_head, dtype, strided in (
            _HIDDEN_MERGE if hidden else _VISIBLE_MERGE
        ):
            if strided:  # a transposed view, as split_heads returns it
                x = randn((batch, length, num_heads, d_head), seed, dtype=dtype).transpose(1, 2)
            else:
                x = randn((batch, num_heads, length, d_head), seed, dtype=dtype)
            layout = ", a transposed (non-contiguous) view" if strided else ""
            what = (
                f"merge_heads(x) for x of shape (batch={batch}, num_heads={num_heads}, "
                f"len={length}, d_head={d_head}){layout}"
            )
            got = c.call(
                merge_heads,
                x,
                call_repr=f"merge_heads(x {tuple(x.shape)}{layout})",
                hints=_batch_of_one_hint(batch),
                mutation_hint="Transpose and reshape give new tensors; nothing needs to be "
                "written into x.",
            )
            c.expect_type(got, torch.Tensor, what, "Return a torch tensor (transpose/reshape x).")
            expected = ref.merge_heads(x)  # (batch, len, num_heads * d_head)
            c.expect_shape(
                got,
                expected.shape,
                what,
                _merge_shape_hint(got, x, batch, num_heads, length, d_head),
            )
            c.expect_dtype(got, dtype, what, _SAME_DTYPE)

            def explain(got=got, x=x, expected=expected, d_head=d_head) -> str:
                b, t, f = (int(n) for n in (got != expected).nonzero()[0])  # first wrong entry
                return (
                    f"At index [{b}, {t}, {f}] yours holds {_where_from(got, x, (b, t, f))}, but "
                    f"feature {f} of token {t} is feature {f % d_head} of head {f // d_head}: "
                    f"x[{b}, {f // d_head}, {t}, {f % d_head}]."
                )

            # any other order of x's four axes before the reshape, named by the axes it
            # exchanges (blind8d-merge-unpacks-heads-first, x read as (num_heads, batch,
            # len, d_head), was only located)
            axes = ("batch", "num_heads", "len", "d_head")
            reorders = {}
            for order in itertools.permutations(range(4)):
                if order in ((0, 2, 1, 3), (0, 1, 2, 3), (0, 2, 3, 1)):
                    continue  # the right one, and the two named above
                moved = [axes[i] for i, j in zip(order, (0, 2, 1, 3), strict=True) if i != j]
                exchanged = (
                    f": the {moved[0]} and {moved[1]} axes are exchanged" if len(moved) == 2 else ""
                )
                swapped = [i for i in range(4) if order[i] != i]
                as_transpose = (
                    f" = x.transpose({swapped[0]}, {swapped[1]})" if len(swapped) == 2 else ""
                )
                reorders[
                    f"Yours is x.permute{order}{as_transpose} reshaped to (batch, len, num_heads "
                    "* d_head): "
                    f"x's numbers read in the axis order ({', '.join(axes[i] for i in order)}) "
                    "where (batch, len, num_heads, d_head) belongs, x.transpose(1, 2)"
                    f"{exchanged}. x is (batch, num_heads, len, d_head): only axes 1 and 2 "
                    "trade places."
                ] = x.permute(order).reshape(batch, length, num_heads * d_head)
            c.expect_equal(
                got,
                expected,
                what,
                hint=explain,
                mistakes={
                    _MERGE_NO_TRANSPOSE: x.reshape(batch, length, num_heads * d_head),
                    _MERGE_INTERLEAVED: x.permute(0, 2, 3, 1).reshape(
                        batch, length, num_heads * d_head
                    ),
                    **reorders,
                },
            )


# ---------------------------------------------------------- MultiHeadAttention
@dataclass(frozen=True)
class _Case:
    seed: int
    batch: int
    len_q: int
    len_k: int
    d_model: int
    num_heads: int
    kind: str  # "self": query is key is value; "cross": key is value; "general": all differ
    mask: str  # "none", "padding", "causal", "causal+padding", "rows" (some rows fully masked)
    scale: float = 1.0  # input scale: larger means larger logits
    dropout: float = 0.0  # the constructor's dropout
    train: bool = False  # checked in train() mode (only with dropout 0.0 or 1.0: no randomness)


_VISIBLE_MHA = [
    _Case(21, 2, 4, 4, 8, 2, "self", "none"),
    _Case(22, 2, 3, 5, 8, 2, "cross", "padding"),
    _Case(23, 1, 5, 5, 12, 3, "self", "causal", dropout=0.2),
    _Case(24, 2, 4, 3, 8, 4, "general", "rows"),
    _Case(25, 3, 5, 5, 8, 2, "self", "causal+padding"),
    _Case(26, 2, 3, 4, 8, 2, "cross", "padding", dropout=0.0, train=True),
    _Case(27, 2, 3, 4, 8, 2, "cross", "padding", dropout=1.0, train=True),
]
_HIDDEN_MHA = [
    _Case(121, 2, 5, 7, 12, 3, "cross", "none", scale=3.0),
    _Case(122, 2, 4, 4, 16, 2, "cross", "none"),
    _Case(123, 3, 6, 6, 16, 4, "self", "causal+padding"),
    _Case(124, 2, 1, 6, 8, 2, "general", "rows"),
    _Case(125, 2, 3, 5, 12, 4, "cross", "rows", scale=2.0),
    _Case(126, 1, 3, 3, 6, 1, "self", "none"),
    _Case(127, 2, 4, 6, 8, 2, "cross", "padding", dropout=0.3),
    _Case(128, 2, 5, 5, 12, 3, "self", "causal", dropout=1.0, train=True),
    _Case(129, 2, 3, 4, 8, 4, "general", "rows", dropout=0.0, train=True),
]


def _state_shapes(d_model: int) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {}
    for name in _PROJECTIONS:
        shapes[f"{name}.weight"] = (d_model, d_model)
        shapes[f"{name}.bias"] = (d_model,)
    return shapes


def _keys_hint(d_model: int, num_heads: int):
    """Explains a wrong state dict: a fused q/k/v, a ModuleList, no bias, per-head layers."""

    def hint(found: dict[str, tuple[int, ...]]) -> str:
        expected = _state_shapes(d_model)
        if set(found) == set(expected):  # the right names, a wrong shape
            return (
                "Each projection is nn.Linear(d_model, d_model): it computes the queries (or "
                f"keys, values) of all {num_heads} heads at once, d_model = num_heads * d_head, "
                "and split_heads cuts them apart afterwards."
            )
        text = (
            "Create exactly four layers in __init__: self.w_q, self.w_k, self.w_v and self.w_o, "
            "each nn.Linear(d_model, d_model) (with its bias)."
        )
        if any(shape == (3 * d_model, d_model) for shape in found.values()):
            return text + (
                " A single fused nn.Linear(d_model, 3 * d_model) for q, k and v computes the "
                "same thing (nn.MultiheadAttention does that), but the contract here, and the "
                "later lessons, load the weights under these four names."
            )
        if any(re.match(r"\w+\.[0-3]\.weight$", key) for key in found):
            return text + (
                " Your four projections live in a list (an nn.ModuleList, like the Annotated "
                "Transformer's `self.linears = clones(nn.Linear(d_model, d_model), 4)`), so "
                "their keys are numbered. The computation is the same, but this course loads "
                "weights by name: give each layer its own attribute, self.w_q = nn.Linear(...) "
                "and so on."
            )
        if any(key.endswith(".weight") for key in found) and not any(
            key.endswith(".bias") for key in found
        ):
            return text + " Your layers have no bias: keep nn.Linear's default bias=True."
        return text

    return hint


def _inputs(case: _Case):
    """query (batch, len_q, d_model), key and value (batch, len_k, d_model), mask or None."""
    b, lq, lk, d = case.batch, case.len_q, case.len_k, case.d_model
    query = randn((b, lq, d), case.seed, scale=case.scale)
    if case.kind == "self":
        key = value = query
    elif case.kind == "cross":
        key = value = randn((b, lk, d), case.seed + 1, scale=case.scale)
    else:
        key = randn((b, lk, d), case.seed + 1, scale=case.scale)
        value = randn((b, lk, d), case.seed + 2, scale=case.scale)
    lengths = [lk - (i % 3) for i in range(b)]  # the 2nd sequence has 1 pad, the 3rd 2 pads
    padding = (torch.arange(lk) < torch.tensor(lengths)[:, None])[:, None, None, :]  # (b,1,1,lk)
    causal = torch.tril(torch.ones(lq, lk, dtype=torch.bool))  # (len_q, len_k)
    if case.mask == "none":
        mask = None
    elif case.mask == "padding":
        mask = padding
    elif case.mask == "causal":
        mask = causal
    elif case.mask == "causal+padding":
        mask = causal & padding  # (b, 1, len_q, len_k)
    else:  # random pattern per head, with some rows that may attend to nothing
        gen = torch_generator(case.seed + 3)
        mask = torch.rand((b, case.num_heads, lq, lk), generator=gen) < 0.6
        mask[:, :, :, 0] = True
        mask[0, 0, -1, :] = False
        mask[-1, -1, 0, :] = False
    return query, key, value, mask


def _describe_mask(mask) -> str:
    return "None" if mask is None else f"bool {tuple(mask.shape)}"


_KV_FROM_QUERY = (
    "Your keys and values come from `query`: in cross-attention they come from `key` and "
    "`value`, the encoder output, and only the queries come from `query`, the decoder. "
    "Project `key` with w_k and `value` with w_v."
)
_Q_FROM_KEY = (
    "Your queries come from `key`, the encoder output. In cross-attention the queries come "
    "from `query` (the decoder), the keys and values from `key`/`value` (the encoder output); "
    "some popular explanations get this backwards."
)

# (knobs of multi_head_attention_f, diagnosis): mistakes visible in the attention weights ...
_WEIGHT_MISTAKES = [
    (
        {"scale": "sqrt_d_model"},
        "You divided the scores by sqrt(d_model); the scale is sqrt(d_k) with d_k = d_head = "
        "d_model / num_heads, the width of the vectors whose dot products you take.",
    ),
    (
        {"scale": "none"},
        "You did not scale the scores: divide q k^T by sqrt(d_head) before the softmax.",
    ),
    (
        {"scale": "d_head"},
        "You divided the scores by d_head; the paper divides by its square root, sqrt(d_head).",
    ),
    ({"q_from": "key"}, _Q_FROM_KEY),
    ({"q_from": "value"}, "Your queries come from the `value` input: project `query` with w_q."),
    ({"k_from": "query"}, _KV_FROM_QUERY),
    ({"k_proj": "w_q"}, "Your keys look like `key` projected with w_q: project the keys with w_k."),
    ({"k_proj": "w_v"}, "Your keys look like `key` projected with w_v: project the keys with w_k."),
    (
        {"split": "no_transpose"},
        "Your heads are not the ones split_heads makes: after the projections, reshape to "
        "(batch, len, num_heads, d_head) and then transpose(1, 2); a direct reshape to "
        "(batch, num_heads, len, d_head) mixes tokens into each head.",
    ),
    (
        {"softmax_dim": -2},
        "You took the softmax over the queries (dim=-2); each query's weights must sum to 1 "
        "over the keys: softmax over the last axis.",
    ),
    (
        {"mask_mode": "none"},
        "Your attention ignores the mask: keys the mask forbids get weight. Pass the mask on "
        "and apply it to the scaled scores before the softmax (blocked scores become -inf or "
        "a large negative number); it broadcasts to (batch, num_heads, len_q, len_k).",
    ),
    (
        {"fill": 0.0},
        "Your blocked scores become 0 (the scores multiplied by the mask, or masked_fill with "
        "0), not -inf: a score of 0 is an ordinary score, so the softmax still gives the keys "
        "the mask forbids weight. Fill them with -inf (or a large negative number such as "
        "-1e9) before the softmax: scores.masked_fill(~mask, float('-inf')).",
    ),
    (
        {"mask_mode": "after"},
        "You applied the mask after the softmax (the weights multiplied by it): the keys the "
        "mask forbids get 0, but the remaining weights of those rows no longer add up to 1. "
        "Apply it to the scaled scores before the softmax (blocked scores become -inf or a "
        "large negative number), so that the softmax renormalises over the allowed keys.",
    ),
]
# ... and mistakes that only the output shows.
_OUTPUT_MISTAKES = [
    (
        {"use_w_o": False},
        "You left out the output projection: the concatenated heads still go through w_o.",
    ),
    (
        {"merge": "no_transpose"},
        "You merged the heads with a reshape but without transpose(1, 2) first, so each output "
        "token is cut out of one head's block of numbers.",
    ),
    (
        {"v_proj": "w_k"},
        "Your values look like `value` projected with w_k: project the values with w_v.",
    ),
    (
        {"v_proj": "w_q"},
        "Your values look like `value` projected with w_q: project the values with w_v.",
    ),
    (
        {"v_proj": None},
        "Your values are not projected: apply w_v to `value` before splitting into heads.",
    ),
    (
        {"v_from": "key"},
        "Your values come from the `key` input: the values are `value` projected with w_v.",
    ),
    (
        {"v_from": "query"},
        "Your values come from the `query` input: the values are `value` projected with w_v. "
        "In cross-attention the values come from the encoder output, like the keys.",
    ),
]

_DROPOUT_IN_EVAL = (
    "The module is in eval mode, where dropout must do nothing: use `self.dropout = "
    "nn.Dropout(dropout)` (it follows train()/eval()), or F.dropout(..., "
    "training=self.training)."
)
_DROPOUT_NOT_IN_TRAIN = (
    "In train mode with dropout=1.0 every attention weight is dropped, so each head's output is "
    "0 and the layer's output is just w_o's bias. Yours is what eval mode gives: dropout is "
    "not applied in training. Apply it to the attention weights before they multiply the "
    "values: `self.dropout(weights) @ v`."
)
_DROPOUT_AFTER_W_O = (
    "In train mode with dropout=1.0 your output is all zeros: you applied dropout to the "
    "layer's output, after w_o. In multi-head attention, dropout acts on the attention weights "
    "(before they multiply the values), so with dropout=1.0 the output is w_o's bias."
)
_DROPOUT_ON_SCORES = (
    "With dropout=1.0 in train mode your weights are uniform over the allowed keys: you "
    "applied dropout to the scores before the softmax (zeroed scores give equal weights). "
    "Dropout acts on the weights after the softmax, where the values are mixed."
)


def _mistake_values(table, part: int, args: tuple) -> dict:
    """{message: zero-argument callable giving the output (part 0) or weights (part 1)}."""

    def value(knobs):
        try:
            return multi_head_attention_f(*args, **knobs)[part]
        except RuntimeError:  # a mistake that cannot happen with these shapes
            return None

    return {message: (lambda knobs=knobs: value(knobs)) for knobs, message in table}


def _weights_shape_hint(
    got: tuple, batch: int, num_heads: int, len_q: int, len_k: int, d_model: int = 0
) -> str:
    d_head = d_model // num_heads
    if d_model and d_head != num_heads and tuple(got) == (batch, d_head, len_q, len_k):
        return (
            f"Your weights have {d_head} heads, d_head = d_model // num_heads = {d_model} // "
            f"{num_heads}, instead of num_heads = {num_heads}: the number of heads and the "
            "width of a head are swapped. split_heads(x, num_heads) takes the number of "
            "heads (it computes d_head itself)."
        )
    hints = {
        (batch, len_q, len_k): "Those are weights averaged over the heads (what "
        "nn.MultiheadAttention returns by default); return every head's weights, "
        "(batch, num_heads, len_q, len_k).",
        (batch, num_heads, len_k, len_q): "Your scores are transposed: compute q @ k^T, one row "
        "per query and one column per key.",
    }
    if len_q != len_k:
        hints[(batch, num_heads, len_k, len_k)] = f"You have one row per *key*. {_Q_FROM_KEY}"
        hints[(batch, num_heads, len_q, len_q)] = (
            f"You have one column per *query*. {_KV_FROM_QUERY}"
        )
    return hints.get(tuple(got), "")


def _output_shape_hint(got: tuple, case: _Case) -> str:
    b, h, lq, lk, d = case.batch, case.num_heads, case.len_q, case.len_k, case.d_model
    hints = {
        (b, h, lq, d // h): "That is still split into heads: merge them "
        "(batch, len_q, num_heads * d_head) and apply w_o.",
        (b, lq, h, d // h): "Flatten the last two axes: (batch, len_q, d_model).",
    }
    if lq != lk:
        hints[(b, lk, d)] = f"You have one output row per *key*. {_Q_FROM_KEY}"
    return hints.get(tuple(got), "There is one output row per query: (batch, len_q, d_model).")


def _length_mixup_hint(case: _Case):
    """A hint for a shape error that mixes len_q and len_k in cross-attention."""
    lq, lk = case.len_q, case.len_k

    def mixes_lengths(exc: BaseException) -> bool:
        numbers = {int(n) for n in re.findall(r"\d+", str(exc))}
        return isinstance(exc, RuntimeError) and {lq, lk} <= numbers

    advice = (
        f"Here len_q = {lq} (the decoder's queries) and len_k = {lk} (the encoder's keys), and "
        "the error mixes exactly these two lengths: the scores must be (batch, num_heads, "
        "len_q, len_k) and the values (batch, num_heads, len_k, d_head). Most likely your keys "
        "or your values come from `query`: in cross-attention they come from `key` and "
        "`value`, the encoder output, and only the queries come from `query`, the decoder."
    )
    if lq == lk or case.kind == "self":
        return []
    b, d = case.batch, case.d_model

    def reshaped(exc: BaseException) -> tuple[list[int], int] | None:
        """(the shape asked for, the number of elements) of a failed view/reshape."""
        found = re.search(r"shape '\[([-\d, ]+)\]' is invalid for input of size (\d+)", str(exc))
        if not isinstance(exc, RuntimeError) or found is None:
            return None
        return [int(n) for n in found.group(1).split(",")], int(found.group(2))

    def with_length(numbers: int, length: int):
        def hit(exc: BaseException) -> bool:
            got = reshaped(exc)
            return got is not None and got[1] == numbers and length in got[0][1:2]

        return hit

    # only a key or value projection holds b * len_k * d_model numbers (len_q != len_k), and
    # only the query projection b * len_q * d_model: a view of one of them with the other's
    # length is that mistake, whatever the code around it
    kv_with_len_q = (
        f"The tensor your code reshapes holds batch * len_k * d_model = {b * lk * d} numbers, a "
        f"key or value projection (len_k = {lk}, the encoder's length), but the shape asks for "
        f"len_q = {lq} positions, the query's length: split the keys and values with their own "
        "length, key.shape[1] (or -1 in that place), not the query's (split_heads(self.w_k(key), "
        "num_heads) does that)."
    )
    q_with_len_k = (
        f"The tensor your code reshapes holds batch * len_q * d_model = {b * lq * d} numbers, the "
        f"query projection (len_q = {lq}), but the shape asks for len_k = {lk} positions, the "
        "keys' length: split the queries with their own length, query.shape[1] (or -1 there)."
    )
    specific = [with_length(b * lk * d, lq), with_length(b * lq * d, lk)]

    def other_mixup(exc: BaseException) -> bool:
        return mixes_lengths(exc) and not any(hit(exc) for hit in specific)

    return [
        (specific[0], kv_with_len_q),
        (specific[1], q_with_len_k),
        (other_mixup, advice),
    ]


_FROM_QUERY = {
    "keys": ({"k_from": "query"}, "Your keys come from `query` (w_k(query))"),
    "values": ({"v_from": "query"}, "Your values come from `query` (w_v(query))"),
    "keys and values": (
        {"k_from": "query", "v_from": "query"},
        "Your keys and your values both come from `query`",
    ),
}


def _length_mixup_source(module, state, case: _Case) -> str:
    """After a shape error that mixes len_q and len_k: rerun with len_k = len_q and key,
    value, query all different, where reading `query` for the keys, the values or both
    gives three different results, and name the one the learner's output agrees with."""
    b, h, lq, d = case.batch, case.num_heads, case.len_q, case.d_model
    query = randn((b, lq, d), case.seed + 7)
    key = randn((b, lq, d), case.seed + 8)
    value = randn((b, lq, d), case.seed + 9)
    result = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        result = module(query, key, value)
    if not (isinstance(result, tuple | list) and len(result) == 2):
        return ""
    output = result[0]
    if not isinstance(output, torch.Tensor) or tuple(output.shape) != (b, lq, d):
        return ""
    found = []
    for knobs, said in _FROM_QUERY.values():
        wrong = multi_head_attention_f(state, query, key, value, None, h, **knobs)[0]
        if torch.allclose(output.detach().double(), wrong, rtol=1e-4, atol=1e-5):
            found.append(said)
    if len(found) != 1:
        return ""
    return (
        f"Run again with len_k = len_q (and query, key, value all different), yours gives "
        f"exactly what this gives: {found[0]}. In cross-attention the keys and values come "
        "from `key` and `value`, the encoder output, and only the queries from `query`: "
        "k = split_heads(self.w_k(key), ...), v = split_heads(self.w_v(value), ...)."
    )


def _fitted_divisor(weights, state, query, key, mask, num_heads: int) -> float | None:
    """The number the learner's scores were divided by, when the weights are exactly the
    softmax of the reference's per-head scores q kᵀ divided by some positive number
    (fitted on the allowed keys whose weights are not vanishingly small, then checked on
    all of them), else None."""
    w = weights.detach().double()
    d_model = query.shape[-1]
    d_head = d_model // num_heads

    def heads(x, name):  # (batch, num_heads, len, d_head)
        projected = x.double() @ state[f"{name}.weight"].double().T + state[f"{name}.bias"].double()
        return projected.reshape(*x.shape[:2], num_heads, d_head).transpose(1, 2)

    s = heads(query, "w_q") @ heads(key, "w_k").transpose(-2, -1)  # unscaled scores
    if s.shape != w.shape:
        return None
    allowed = torch.ones_like(w, dtype=torch.bool) if mask is None else mask.expand(w.shape)
    use = allowed & (w > 1e-8)  # weights whose logarithm is well determined
    rows = use.sum(dim=-1, keepdim=True)  # (..., len_q, 1)
    use = use & (rows >= 2)
    if not use.any():
        return None

    def centred(t):
        mean = (t * use).sum(dim=-1, keepdim=True) / rows.clamp_min(1)
        return (t - mean) * use

    x, y = centred(s), centred(torch.log(w.clamp_min(1e-300)))
    denominator = float((x * x).sum())
    factor = float((x * y).sum()) / denominator if denominator > 0 else 0.0
    if factor <= 0:
        return None
    guess = torch.softmax(s.masked_fill(~allowed, float("-inf")) * factor, dim=-1)
    live = allowed.any(dim=-1)
    if not torch.allclose(w[live], guess[live], rtol=1e-4, atol=1e-5):
        return None
    return 1.0 / factor


def _scale_suspects(divisor: float, d_model: int, num_heads: int) -> set[str]:
    """The usual divisors that ``divisor`` equals (two can coincide, num_heads == d_head)."""
    d_head = d_model // num_heads
    suspects = {
        "sqrt(d_head)": d_head**0.5,
        "sqrt(num_heads)": num_heads**0.5,
        "sqrt(d_model)": d_model**0.5,
        "d_head": float(d_head),
        "d_model": float(d_model),
        "num_heads": float(num_heads),
        "1 (no scaling)": 1.0,
        "d_head ** 0.25 (the square root taken twice)": d_head**0.25,
    }
    return {name for name, value in suspects.items() if math.isclose(divisor, value, rel_tol=1e-3)}


def _wrong_scale(weights, state, query, key, mask, num_heads: int, agree=None) -> str:
    """A wrong scale, whatever it is (blind7b-mha-inline-scale-sqrt-num-heads divided by
    sqrt(num_heads)): the divisor the weights show, named by the usual suspects it equals
    on *every* case the module runs (``agree.scale_suspects()``), so that a scale that
    changes with the input is not given a name one input contradicts."""
    divisor = _fitted_divisor(weights, state, query, key, mask, num_heads)
    d_head = query.shape[-1] // num_heads
    if divisor is None or math.isclose(divisor, d_head**0.5, rel_tol=1e-3):
        return ""
    names = _scale_suspects(divisor, query.shape[-1], num_heads)
    if agree is not None:
        names &= agree.scale_suspects()
    if not names:
        return ""
    return (
        f"Your weights are the softmax of the right scores q kᵀ divided by {divisor:.4g} = "
        f"{' or '.join(sorted(names))} here (on every input the check ran), not by "
        f"sqrt(d_head) = sqrt({d_head}) = {d_head**0.5:.4g}: the scale is 1/sqrt(d_k), d_k the "
        "width of each head's queries and keys, d_head = d_model // num_heads."
    )


def _heads_mixed(weights, state, query, key, mask, num_heads: int) -> str:
    """Localise a weights mistake by head: which of the reference's per-head queries and
    keys give each of the learner's heads? Named when every head has exactly one such
    pair and they are not head i's own (e.g. every head reusing head 0's queries)."""
    w = weights.detach().double()
    d_model = query.shape[-1]
    d_head = d_model // num_heads

    def heads(x, name):  # (batch, num_heads, len, d_head)
        projected = x.double() @ state[f"{name}.weight"].double().T + state[f"{name}.bias"].double()
        return projected.reshape(*x.shape[:2], num_heads, d_head).transpose(1, 2)

    q, k = heads(query, "w_q"), heads(key, "w_k")
    allowed = None if mask is None else mask.expand(w.shape)
    found = []
    for i in range(num_heads):
        matches = []
        for a in range(num_heads):
            for b in range(num_heads):
                scores = q[:, a] @ k[:, b].transpose(-2, -1) / d_head**0.5
                if allowed is not None:
                    scores = scores.masked_fill(~allowed[:, i], float("-inf"))
                guess = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
                if torch.allclose(w[:, i], guess, rtol=1e-4, atol=1e-5):
                    matches.append((a, b))
        if len(matches) != 1:
            return ""
        found.append(matches[0])
    if all(pair == (i, i) for i, pair in enumerate(found)):
        return ""
    q_heads, k_heads = [a for a, _ in found], [b for _, b in found]
    own = list(range(num_heads))
    if k_heads == own and len(set(q_heads)) == 1:
        return (
            f"Every head uses the queries of head {q_heads[0]} (features "
            f"{q_heads[0] * d_head}..{(q_heads[0] + 1) * d_head - 1} of w_q(query)) with its "
            "own keys: the queries are not split into heads the way the keys are. Split all "
            "three the same way: split_heads(self.w_q(query), num_heads), and likewise k, v."
        )
    if q_heads == own and len(set(k_heads)) == 1:
        return (
            f"Every head uses the keys of head {k_heads[0]} with its own queries: the keys "
            "are not split into heads the way the queries are. Split all three the same "
            "way: split_heads(self.w_k(key), num_heads)."
        )
    listed = "; ".join(
        f"head {i}: queries of head {a}, keys of head {b}" for i, (a, b) in enumerate(found)
    )
    return (
        f"Your heads mix the reference's heads ({listed}): head i must pair the queries and "
        "keys of the same d_head features, i*d_head ... (i+1)*d_head - 1."
    )


def _kind(case: _Case) -> str:
    if case.kind == "self":
        return "self-attention (query = key = value)"
    if case.kind == "cross":
        lengths = ", len_q != len_k" if case.len_q != case.len_k else ""
        return f"cross-attention (key = value{lengths})"
    return "attention with query, key and value all different"


def check_MultiHeadAttention(cls, *, hidden: bool = False) -> None:
    """Construct cls(d_model, num_heads, dropout=...), load a state dict, compare forward.

    Required: the state-dict keys w_q/w_k/w_v/w_o .weight/.bias with (d_model, d_model) and
    (d_model,) shapes, forward(query, key, value, mask=None) -> (output (batch, len_q,
    d_model), weights (batch, num_heads, len_q, len_k)) matching the reference within
    float32 tolerance, a gradient path to the parameters, no dropout in eval mode, and in
    train mode: dropout=0.0 equals eval, dropout=1.0 drops every weight (output = w_o's
    bias). Accepted: see the module docstring.
    """
    with Checker("MultiHeadAttention", hidden=hidden) as c:
        c.require_callable(cls, "MultiHeadAttention")
        cases = _HIDDEN_MHA if hidden else _VISIBLE_MHA
        agree = _Agreement(cls, cases)
        for case in cases:
            _check_case(c, cls, case, agree)
        # one module called twice, the first time on other keys and values (blind8d;
        # imported here to keep this edit inside this function while the module moves)
        from dataclasses import replace

        from transformer_course.checking.modules import expect_no_state_between_calls

        case = next(case for case in cases if case.kind == "cross" and not case.train)
        other = replace(case, seed=case.seed + 500, len_k=case.len_k + 2)
        first, args = _inputs(other)[:3], tuple(t for t in _inputs(case) if t is not None)
        expect_no_state_between_calls(
            c,
            lambda: build_module(
                c,
                cls,
                case.d_model,
                case.num_heads,
                dropout=case.dropout,
                name="MultiHeadAttention",
                state=random_state(_state_shapes(case.d_model), seed=case.seed),
            )[0],
            first,
            args,
            f"mha(query, key, value{', mask' if len(args) > 3 else ''}) [{_kind(case)}, "
            f"key and value of length {case.len_k}]",
            f"key and value of length {other.len_k}",
        )
        _check_dropout_placement(c, cls, _HIDDEN_DROPOUT if hidden else _VISIBLE_DROPOUT)


def _variant_args(case: _Case):
    state = random_state(_state_shapes(case.d_model), seed=case.seed)
    return (state, *_inputs(case), case.num_heads)


def _candidates(args) -> dict[str, Any]:
    """Every known mistake, alone and in pairs: {message: callable giving (output, weights)}."""
    singles = {message: knobs for knobs, message in (*_WEIGHT_MISTAKES, *_OUTPUT_MISTAKES)}
    out = {m: (lambda k=k: multi_head_attention_f(*args, **k)) for m, k in singles.items()}
    out.update(mistake_pairs(lambda **knobs: multi_head_attention_f(*args, **knobs), singles))
    return out


class _Agreement:
    """The known mistakes (and pairs) that agree with the learner's module on *every*
    case it runs without error (eval mode, no fully masked rows), computed once, when a
    diagnosis is first needed: a mistake is named only if no input contradicts it."""

    def __init__(self, cls, cases):
        self.cls, self.cases, self._found, self._runs = cls, cases, None, None
        self._scales: set[str] | None = None

    def scale_suspects(self) -> set[str]:
        """The names of the divisor the learner's scores show on every case it runs (empty
        when one case fits no single divisor or another one): see :func:`_wrong_scale`."""
        if self._scales is None:
            if self._found is None:
                self._found = self._compute()
            common: set[str] | None = None
            for args, (_, weights) in self._runs or []:
                state, query, key, _, mask, h = args
                if not isinstance(weights, torch.Tensor):
                    return set()
                divisor = _fitted_divisor(weights, state, query, key, mask, h)
                names = set() if divisor is None else _scale_suspects(divisor, query.shape[-1], h)
                common = names if common is None else common & names
            self._scales = common or set()
        return self._scales

    def __contains__(self, message: str) -> bool:
        if self._found is None:
            self._found = self._compute()
        return self._found is True or message in self._found

    def _compute(self):
        runs = []
        for case in self.cases:
            if case.train or case.mask == "rows":
                continue
            args = _variant_args(case)
            result = None
            with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
                module = self.cls(case.d_model, case.num_heads, dropout=case.dropout)
                module.load_state_dict(args[0])
                module.eval()
                query, key, value, mask = args[1:5]
                call = (query, key, value) if mask is None else (query, key, value, mask)
                result = module(*call)
            if isinstance(result, tuple | list) and len(result) == 2:
                runs.append((args, result))
        self._runs = runs
        if not runs:
            return True  # nothing to compare against: every mistake stays a candidate
        found = None
        for args, (output, weights) in runs:
            agreeing = set()
            for message, compute in _candidates(args).items():
                if found is not None and message not in found:
                    continue
                value = value_or_none(compute)
                if value is None or value[0] is None:
                    continue
                out, w = value
                if (
                    isinstance(output, torch.Tensor)
                    and isinstance(weights, torch.Tensor)
                    and output.shape == out.shape
                    and weights.shape == w.shape
                    and torch.allclose(output.detach().double(), out, rtol=1e-4, atol=1e-5)
                    and torch.allclose(
                        weights.detach().double(),
                        torch.nan_to_num(w, nan=0.0),
                        rtol=1e-4,
                        atol=1e-5,
                    )
                ):
                    agreeing.add(message)
            found = agreeing
        return found


def _only_agreeing(table: dict, agree) -> dict:
    """``table`` ({message: value or callable}) with every mistake some input contradicts
    left out (its value None)."""
    return {
        message: (
            lambda m=message, v=value: (
                (v() if callable(v) else v) if agree is None or m in agree else None
            )
        )
        for message, value in table.items()
    }


def _random_in_eval(module, args) -> bool:
    """Whether two more calls of the (eval-mode) module on the same inputs disagree."""
    outputs = []
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        with torch.no_grad():
            for _ in range(2):
                outputs.append(torch.as_tensor(module(*args)[0]).detach().double())
    return len(outputs) == 2 and not torch.allclose(outputs[0], outputs[1], atol=1e-9)


def _runs_without_mask(module, query, key, value) -> bool:
    """Whether the module returns a pair on these inputs when no mask is passed."""
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        with torch.no_grad():
            result = module(query, key, value)
        return isinstance(result, tuple | list) and len(result) == 2
    return False


def _check_case(c: Checker, cls, case: _Case, agree=None) -> None:
    b, h, lq, lk, d = case.batch, case.num_heads, case.len_q, case.len_k, case.d_model
    state = random_state(_state_shapes(d), seed=case.seed)
    module, built = build_module(
        c,
        cls,
        d,
        h,
        dropout=case.dropout,
        name="MultiHeadAttention",
        expected_shapes=_state_shapes(d),
        keys_hint=_keys_hint(d, h),
        state=state,
        mode="train" if case.train else "eval",
    )
    query, key, value, mask = _inputs(case)
    mode = "train" if case.train else "eval"
    call = (
        f"mha(query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}, "
        f"mask={_describe_mask(mask)}) [{_kind(case)}; mha = {built} holding the check's "
        f"weights, in {mode} mode]"
    )
    args = (query, key, value) if mask is None else (query, key, value, mask)
    try:
        result = c.call(
            module,
            *args,
            call_repr=call,
            hints=[*_length_mixup_hint(case), *_batch_of_one_hint(case.batch)],
        )
    except CheckFailure as failure:
        named = _length_mixup_source(module, state, case) if _length_mixup_hint(case) else ""
        if named:
            generic = "Most likely your keys or your values come from `query`"
            message = failure.message
            start = message.find(generic)
            if start >= 0:
                stop = message.find("\n", start)
                message = message[:start] + named + (message[stop:] if stop >= 0 else "")
            else:
                message = f"{message}\n{named}"
            raise CheckFailure(failure.exercise, message, failure.learner_traceback) from None
        if mask is not None and _runs_without_mask(module, query, key, value):
            raise CheckFailure(
                failure.exercise,
                f"{failure.message}\nYour forward runs on these inputs without a mask but "
                f"fails with this one, a bool mask of shape {tuple(mask.shape)}, which "
                f"already broadcasts to the scores (batch, num_heads, len_q, len_k) = "
                f"({b}, {h}, {lq}, {lk}): it already has its heads axis. Pass the mask to "
                "the attention as it is given: no mask.unsqueeze(...), view or expand "
                "(the Annotated Transformer's mask.unsqueeze(1) is for its 3-D masks).",
                failure.learner_traceback,
            ) from None
        raise
    pair = isinstance(result, tuple | list) and len(result) == 2
    length = f" of length {len(result)}" if isinstance(result, tuple | list) else ""
    c.expect_true(
        pair,
        f"{call} returned {type(result).__name__}{length}; forward should return a pair: "
        "(output, weights).",
    )
    output, weights = result
    what_o, what_w = f"the output of {call}", f"the weight tensor returned by {call}"
    c.expect_type(output, torch.Tensor, what_o)
    c.expect_type(weights, torch.Tensor, what_w)
    c.expect_shape(output, (b, lq, d), what_o, _output_shape_hint(output.shape, case))
    c.expect_shape(
        weights, (b, h, lq, lk), what_w, _weights_shape_hint(weights.shape, b, h, lq, lk, d)
    )
    # short names: the note about another float dtype is then printed once, not per case
    c.expect_floating(output, "the output of forward", preferred=query.dtype)
    c.expect_floating(weights, "the weight tensor returned by forward", preferred=query.dtype)
    c.expect_true(
        output.requires_grad,
        f"{what_o} is cut off from the module's parameters (requires_grad is False): did you "
        "use torch.no_grad(), .detach(), or go through numpy? Training needs the gradient to "
        "flow back to w_q, w_k, w_v and w_o.",
    )

    reference = ref.MultiHeadAttention(d, h).double().eval()
    reference.load_state_dict({name: tensor.double() for name, tensor in state.items()})
    with torch.no_grad():
        expected_out, expected_weights = reference(
            query.double(), key.double(), value.double(), mask
        )
    variant_args = (state, query, key, value, mask, h)
    tol = tolerance(output.dtype, weights.dtype, query.dtype)

    # The weights: before dropout (the contract), or, in training, after it (with a note).
    dropped_entirely = case.train and case.dropout == 1.0
    weight_mistakes = _only_agreeing(_mistake_values(_WEIGHT_MISTAKES, 1, variant_args), agree)
    convention = None
    if dropped_entirely and bool((weights.detach().abs() < 1e-6).all()):
        c.note(
            "in train mode your layer returns the attention weights after dropout (as "
            "nn.MultiheadAttention and the Annotated Transformer do). That is accepted; the "
            "reference returns them before dropout, the attention distribution itself. In "
            "eval mode, where weights are inspected, the two agree."
        )
    else:
        if dropped_entirely:
            weight_mistakes[_DROPOUT_ON_SCORES] = lambda: multi_head_attention_f(
                *variant_args, uniform_weights=True
            )[1]
        convention = expect_attention_weights(
            c,
            weights,
            mask,
            what_w,
            expected=expected_weights,
            mistakes=weight_mistakes,
            pairs=_only_agreeing(
                mistake_pairs(
                    lambda **knobs: multi_head_attention_f(*variant_args, **knobs)[1],
                    {message: knobs for knobs, message in _WEIGHT_MISTAKES},
                ),
                agree,
            ),
            explain=lambda: (
                _heads_mixed(weights, state, query, key, mask, h)
                or _wrong_scale(weights, state, query, key, mask, h, agree)
            ),
            **tol,
        )

    # The output.
    if dropped_entirely:
        bias = state["w_o.bias"].double().expand(b, lq, d)  # heads all zero -> w_o(0) = bias
        c.expect_close(
            output,
            bias,
            what_o,
            **tol,
            hint="With dropout=1.0 in train mode, the output must be w_o's bias in every "
            "position: dropout acts on the attention weights, before they multiply the values.",
            mistakes={
                _DROPOUT_NOT_IN_TRAIN: expected_out,
                _DROPOUT_AFTER_W_O: torch.zeros(b, lq, d),
            },
        )
        return
    if convention not in (None, "zero"):  # the learner's own fully masked rows
        own = with_fully_masked_rows(expected_weights, mask, convention, like=weights)
        expected_out = multi_head_attention_f(*variant_args, weights=own)[0]
    hint = ""
    if case.dropout and not case.train:
        hint = _DROPOUT_IN_EVAL
        if _random_in_eval(module, args):
            c.fail(
                f"{what_o}: two calls on the same inputs, in eval mode, give two different "
                f"outputs, so something random still runs in eval mode. {_DROPOUT_IN_EVAL}"
            )
    elif case.train:
        hint = (
            "In train mode with dropout=0.0, dropout changes nothing: the layer must compute "
            "exactly what it computes in eval mode."
        )
    c.expect_close(
        output,
        expected_out,
        what_o,
        **tol,
        hint=hint,
        mistakes=_only_agreeing(_mistake_values(_OUTPUT_MISTAKES, 0, variant_args), agree),
        pairs=_only_agreeing(
            mistake_pairs(
                lambda **knobs: multi_head_attention_f(*variant_args, **knobs)[0],
                {message: knobs for knobs, message in (*_WEIGHT_MISTAKES, *_OUTPUT_MISTAKES)},
            ),
            agree,
        ),
        axes=("batch", "len_q", "d_model"),
        num_heads=h,
    )


# Dropout strictly between 0 and 1, in train mode: where it acts. len_k <= d_head (the
# heads' mixing coefficients can be read back through the values) and len_q >= len_k (a
# dropout on the values can be read back through the weights).
_VISIBLE_DROPOUT = _Case(31, 2, 6, 4, 16, 2, "cross", "none", dropout=0.5, train=True)
_HIDDEN_DROPOUT = _Case(131, 1, 7, 5, 20, 2, "general", "none", dropout=0.4, train=True)


def _kept_or_dropped(got: torch.Tensor, full: torch.Tensor, p: float) -> bool:
    """Whether every entry of ``got`` is 0 or ``full / (1 - p)`` (inverted dropout)."""
    kept = full / (1 - p)
    tol = 1e-3 * (1 + kept.abs())
    return bool((torch.minimum(got.abs(), (got - kept).abs()) <= tol).all())


def _check_dropout_placement(c: Checker, cls, case: _Case) -> None:
    """In train mode with 0 < dropout < 1, the heads must be (dropped-out weights) @ v:
    each coefficient that mixes value k into query q's head is 0 or w_qk / (1 - p). The
    coefficients are read back from the output through the check's own w_o and w_v;
    when they do not fit, the other places dropout could act are tried (the values, the
    heads before w_o), each against every entry, and named only when it fits."""
    b, h, lq, lk, d = case.batch, case.num_heads, case.len_q, case.len_k, case.d_model
    dh, p = d // h, case.dropout
    state = random_state(_state_shapes(d), seed=case.seed)
    module, built = build_module(
        c,
        cls,
        d,
        h,
        dropout=p,
        name="MultiHeadAttention",
        expected_shapes=_state_shapes(d),
        keys_hint=_keys_hint(d, h),
        state=state,
        mode="train",
    )
    query, key, value, _ = _inputs(case)
    call = (
        f"mha(query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}) "
        f"[{_kind(case)}; mha = {built} holding the check's weights, in train mode]"
    )
    torch.manual_seed(case.seed)
    result = c.call(module, query, key, value, call_repr=call)
    if not (isinstance(result, tuple | list) and len(result) == 2):
        return  # the cases above already say what forward must return
    output = result[0]
    if not isinstance(output, torch.Tensor) or output.shape != (b, lq, d):
        return
    st = {name: tensor.double() for name, tensor in state.items()}
    reference = ref.MultiHeadAttention(d, h).double().eval()
    reference.load_state_dict(st)
    with torch.no_grad():
        _, weights = reference(query.double(), key.double(), value.double())
        v = (value.double() @ st["w_v.weight"].T + st["w_v.bias"]).reshape(b, lk, h, dh)
        v = v.transpose(1, 2)  # (b, h, lk, d_head)
        merged = (output.detach().double() - st["w_o.bias"]) @ torch.linalg.inv(st["w_o.weight"]).T
        heads = merged.reshape(b, lq, h, dh).transpose(1, 2)  # (b, h, lq, d_head)
        mixing = heads @ torch.linalg.pinv(v)  # (b, h, lq, lk)
        if _kept_or_dropped(mixing, weights, p) and torch.allclose(mixing @ v, heads, atol=1e-3):
            return
        values = torch.linalg.lstsq(weights, heads).solution  # (b, h, lk, d_head)
        on_values = _kept_or_dropped(values, v, p) and torch.allclose(
            weights @ values, heads, atol=1e-3
        )
        on_heads = _kept_or_dropped(heads, weights @ v, p)
    what = f"the output of {call}"
    rule = (
        "In multi-head attention, dropout acts on the attention weights, before they "
        "multiply the values: `self.dropout(weights) @ v` (each weight is either dropped or "
        "scaled by 1/(1 - p))."
    )
    if on_values:
        c.fail(
            f"{what} is what dropout on the values gives: read back through w_o, each "
            f"entry of your v is either 0 or v / (1 - p) (p = {p}), while the attention "
            f"weights are used whole. You applied dropout to the values v instead of to "
            f"the attention weights. {rule}"
        )
    if on_heads:
        c.fail(
            f"{what} is what dropout on the heads gives: each entry of weights @ v (before "
            f"merge_heads and w_o) is either 0 or scaled by 1/(1 - p) (p = {p}). You applied "
            f"dropout to the attention's result instead of to the attention weights. {rule}"
        )
    c.fail(
        f"{what}, with dropout={p} in train mode, is not (dropped-out attention weights) @ "
        "values: read back through w_o and the values, the coefficient that mixes value k "
        "into query q's head should be either 0 or weight / (1 - p), and yours are not. "
        "Dropout sits somewhere else (on the queries, the keys, the values, the scores or "
        f"the output?), or it does not rescale the kept weights by 1/(1 - p). {rule}"
    )


# ---------------------------------------------------------------------- concept questions
QUIZ_HEAD_WIDTH = Quiz(
    name="quiz_head_width",
    answer=64,
    why={
        64: "d_k = d_model / h = 768 / 12 = 64: each head's queries and keys are 64 numbers "
        "wide, whatever the length of the sentence. (BERT-base has exactly these sizes.)",
        768: "768 is d_model, the width of a whole token vector. Each head projects it down to "
        "a slice of d_model / h features.",
        9216: "768 * 12 would make every head as wide as the whole model, twelve times over: "
        "the heads share d_model between them instead.",
        12: "12 is h, the number of heads, not the width of one head.",
        8: "8 = sqrt(64) is what the scores are divided by, sqrt(d_k), not d_k itself.",
    },
)
check_quiz_head_width = quiz_check(QUIZ_HEAD_WIDTH)

QUIZ_CROSS_ATTENTION_SHAPE = Quiz(
    name="quiz_cross_attention_shape",
    answer="b",
    choices={
        "a": "(2, 8, 7, 5)",
        "b": "(2, 8, 5, 7)",
        "c": "(2, 8, 5, 5)",
        "d": "(2, 5, 7)",
    },
    why={
        "a": "That has one row per *source* token: queries from the encoder output. A widely "
        "read illustrated guide puts it that way, and it cannot work: the output has one row "
        "per query, and the decoder needs one output row for each target word it writes.",
        "b": "One row per query, the 5 target positions the decoder is writing (queries come "
        "from the decoder), and one column per key, the 7 source positions (keys and values "
        "come from the encoder output): (batch, num_heads, len_q, len_k). The two lengths "
        "need not agree.",
        "c": "(len_tgt, len_tgt) is the shape of the decoder's *self*-attention, where the "
        "target attends to itself. In cross-attention the keys are the source positions.",
        "d": "That is the weights averaged over the heads, what nn.MultiheadAttention returns "
        "by default. This course's layer returns every head's weights.",
    },
)
check_quiz_cross_attention_shape = quiz_check(QUIZ_CROSS_ATTENTION_SHAPE)


# ---------------------------------------------------------------------------- registry
LESSON = "05_multi_head_attention"
EXERCISES = (
    Exercise("quiz_head_width", check_quiz_head_width, kind="quiz", points=1, minutes=3, level=1),
    Exercise("split_heads", check_split_heads, kind="function", points=1, minutes=10, level=2),
    Exercise("merge_heads", check_merge_heads, kind="function", points=1, minutes=10, level=2),
    Exercise(
        "quiz_cross_attention_shape",
        check_quiz_cross_attention_shape,
        kind="quiz",
        points=1,
        minutes=3,
        level=1,
    ),
    Exercise(
        "MultiHeadAttention",
        check_MultiHeadAttention,
        kind="module",
        points=3,
        minutes=30,
        level=3,
        forbidden=(
            "torch.nn.MultiheadAttention",
            "torch.nn.functional.multi_head_attention_forward",
            "torch.nn.functional.scaled_dot_product_attention",
        ),
    ),
)
