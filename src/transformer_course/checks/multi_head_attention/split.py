"""The check of ``split_heads``: (batch, len, d_model) -> (batch, num_heads, len, d_head),
and the mistakes it names (no transpose, strided heads, another order of the axes, the
sizes read sequence-first, torch.split given num_heads, a result cut from autograd).
"""

from __future__ import annotations

import itertools
import re

import torch

from transformer_course.checking import Checker
from transformer_course.checking.batch_rows import alone_right, row_by_row_hint, row_by_row_note
from transformer_course.checking.inputs import randn
from transformer_course.checking.reshape_sizes import wrong_size_hint
from transformer_course.checking.size_one_axes import size_one_axes_note
from transformer_course.reference import multi_head_attention as ref

from .common import (
    _SAME_DTYPE,
    _TRANSPOSE_RESULT_KEPT,
    _batch_of_one_hint,
    _expect_graph,
    _fixed_heads_hint,
    _fixed_heads_note,
    _where_from,
)

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
    "(batch, len, num_heads, d_head) first, then `.transpose(1, 2)`. " + _TRANSPOSE_RESULT_KEPT
)
_SPLIT_STRIDED = (
    "Your heads are split along the wrong axis: head i should hold the contiguous features "
    "i*d_head ... (i+1)*d_head - 1 of each token, but yours holds every num_heads-th feature. "
    "Reshape the last axis as (num_heads, d_head), in that order, not (d_head, num_heads)."
)

_SPLIT_TRANSPOSE_FIRST = (
    "You transposed first and reshaped after: x.transpose(1, 2) is (batch, d_model, len), "
    "and reshaping that to (batch, num_heads, len, d_head) cuts each head out of the "
    "transposed numbers, mixing features and positions. Reshape first, to (batch, len, "
    "num_heads, d_head), then `.transpose(1, 2)`."
)

_SPLIT_AXES = ("batch", "len", "num_heads", "d_head")


def _split_permutation_message(order: tuple[int, ...]) -> str:
    names = ", ".join(_SPLIT_AXES[axis] for axis in order)
    # (num_heads, batch, len, d_head) read as (batch, num_heads, ...) is also what the heads
    # concatenated on the batch axis and viewed back give (round 20, blind17d-split-chunks-
    # on-batch-then-viewed): the two agree on every value, so both are named
    head_major = (
        " The same values come from the heads folded into the batch axis head-major and read "
        "back batch-first: torch.cat(x.chunk(num_heads, dim=-1), dim=0) (the heads "
        "concatenated along the batch axis, the TensorFlow recipe), or a reshape to (batch * "
        "len, num_heads, d_head) with .transpose(0, 1), then a view or reshape to (batch, "
        "num_heads, len, d_head). Laid out heads-first and read batch-first, the data mixes "
        "the batch's sequences with the heads: each sequence gets heads of other sequences."
        if order == (2, 0, 1, 3)
        else ""
    )
    return (
        f"Your axes come out in the order ({names}): that is x.reshape(batch, len, num_heads, "
        f"d_head).permute{order}.{head_major} The contract's order is (batch, num_heads, len, "
        "d_head): .permute(0, 2, 1, 3), i.e. .transpose(1, 2)."
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


def _folded_heads_note(got, x: torch.Tensor, num_heads: int) -> str:
    """The heads folded into the batch axis, 3-D (num_heads * batch, len, d_head), told
    head-major or batch-major by the values (round 10, blind10d-split-heads-concat-on-batch-
    axis: the TensorFlow recipe, tf.concat(tf.split(x, h, axis=2), axis=0))."""
    batch, length, d_model = x.shape
    d_head = d_model // num_heads
    if not (
        isinstance(got, torch.Tensor)
        and tuple(got.shape) == (batch * num_heads, length, d_head)
        and got.dtype == x.dtype
        and num_heads > 1
    ):
        return ""
    four = x.reshape(batch, length, num_heads, d_head)
    layouts = {
        "head-major (all sequences' head 0, then head 1, ...: torch.cat(torch.split(x, "
        "d_head, dim=-1), dim=0), TensorFlow's tf.concat(tf.split(x, h, axis=2), axis=0))": (
            four.permute(2, 0, 1, 3).reshape(batch * num_heads, length, d_head)
        ),
        "batch-major (sequence 0's heads, then sequence 1's: a reshape to (batch * num_heads, "
        "len, d_head) after the transpose)": four.transpose(1, 2).reshape(-1, length, d_head),
    }
    for name, value in layouts.items():
        if torch.equal(got, value):
            d2l = (
                " (d2l's transpose_qkv folds them this way for its own attention function.)"
                if name.startswith("batch-major")
                else ""
            )
            return (
                f"Yours is 3-D: the heads are folded into the batch axis, {name}. Keep batch "
                "and heads as separate axes, (batch, num_heads, len, d_head): x.reshape(batch, "
                "len, num_heads, d_head).transpose(1, 2). The attention function of this course "
                f"runs over any number of leading axes, so nothing needs folding.{d2l}"
            )
    return ""


def _heads_along_length_note(got, x: torch.Tensor, num_heads: int) -> str:
    """The heads laid end to end along the length axis, 3-D (batch, num_heads * len,
    d_head), told by the values (round 18, blind15d-split-pieces-concatenated-on-length:
    torch.cat(x.split(d_head, dim=-1), dim=1) where torch.stack belongs; before: "a
    reshape, view, flatten or concatenation combined them")."""
    batch, length, d_model = x.shape
    d_head = d_model // num_heads
    if not (
        isinstance(got, torch.Tensor)
        and tuple(got.shape) == (batch, num_heads * length, d_head)
        and got.dtype == x.dtype
        and num_heads > 1
    ):
        return ""
    four = x.reshape(batch, length, num_heads, d_head)
    layouts = {
        "head after head (all of head 0's positions, then head 1's): the pieces of x.split("
        "d_head, dim=-1) joined with torch.cat(..., dim=1), where torch.stack(..., dim=1) "
        "gives them an axis of their own (or a reshape to (batch, num_heads * len, d_head) "
        "after the transpose)": four.transpose(1, 2).reshape(batch, -1, d_head),
        "position after position (each token's heads in turn): x.reshape(batch, -1, d_head) "
        "or x.view(batch, -1, d_head), with no num_heads axis": four.reshape(batch, -1, d_head),
    }
    for name, value in layouts.items():
        if torch.equal(got, value):
            return (
                f"Yours is 3-D: the heads are laid end to end along the length axis, {name}. "
                "Keep heads and positions as separate axes, (batch, num_heads, len, d_head): "
                "x.reshape(batch, len, num_heads, d_head).transpose(1, 2)."
            )
    return ""


def _squeezed_or_folded(split_heads, got, x: torch.Tensor, num_heads: int) -> str:
    """A batch of one's axes of size 1 gone (a bare .squeeze()) or the heads folded into the
    batch axis: on a batch of one both give (num_heads, len, d_head), the same numbers in the
    same order. Stated only after a batch of two told them apart (round 11: the bare squeeze
    was named as a fold, the rule's counter-example)."""
    expected = ref.split_heads(x, num_heads)
    squeezed = size_one_axes_note(got, expected)
    folded = _folded_heads_note(got, x, num_heads)
    if not (squeezed and folded):
        return squeezed or folded
    two = torch.cat([x, x.flip(1)])  # a batch of two sequences: no size-1 batch axis
    try:
        again = split_heads(two, num_heads)
    except Exception:
        again = None
    if isinstance(again, torch.Tensor) and torch.equal(again, ref.split_heads(two, num_heads)):
        return squeezed + " (Yours is right on a batch of two: only the size-1 axes go.)"
    if _folded_heads_note(again, two, num_heads):
        return folded
    return (
        "On a batch of one two mistakes give this tensor, and a batch of two did not tell them "
        f"apart: (1) {squeezed} (2) {folded}"
    )


def _copies_per_head_note(got, x: torch.Tensor, num_heads: int) -> str:
    """A (batch, num_heads, len, d_model) result whose every head is x whole: each head
    given a copy of every token's full vector (repeat, expand, stack of x) instead of a
    slice of d_head features (round 20, blind12k-split-repeats-whole-vector-per-head was
    told the contract's shape). "" otherwise."""
    batch, length, d_model = x.shape
    if not (
        isinstance(got, torch.Tensor)
        and num_heads > 1
        and tuple(got.shape) == (batch, num_heads, length, d_model)
        and torch.equal(got.detach(), x.detach().unsqueeze(1).expand_as(got))
    ):
        return ""
    return (
        f"Each of your {num_heads} heads holds a full copy of x, every token's whole "
        f"d_model = {d_model} vector (a repeat, expand or stack of x over a new heads axis): "
        f"(batch, num_heads, len, d_model) instead of (batch, num_heads, len, d_head). The "
        f"heads share d_model between them, each gets its own slice of d_head = "
        f"{d_model // num_heads} features: x.reshape(batch, len, num_heads, d_head)"
        ".transpose(1, 2)."
    )


def _split_shape_hint(got: tuple, batch: int, length: int, num_heads: int, d_head: int) -> str:
    hints = {
        (batch, length, num_heads, d_head): "That is (batch, len, num_heads, d_head): you cut "
        "d_model into heads but left the heads axis after len. Add `.transpose(1, 2)`. "
        + _TRANSPOSE_RESULT_KEPT,
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
    "Yours holds d_head pieces of num_heads consecutive features each, stacked: the two sizes "
    "num_heads and d_head are swapped. Two recipes give exactly this: x.reshape(batch, len, "
    "d_head, num_heads).transpose(1, 2), the last axis cut as (d_head, num_heads) instead of "
    "(num_heads, d_head); and torch.split(x, num_heads, dim=-1) stacked on dim=1, whose second "
    "argument is the size of each piece, not the number of pieces. (With num_heads == d_head "
    "both give the right tensor, which is why it can pass on some sizes.) Cut num_heads pieces "
    "of d_head features: reshape to (batch, len, num_heads, d_head) and .transpose(1, 2), or "
    "torch.chunk(x, num_heads, dim=-1) / torch.split(x, d_head, dim=-1) stacked on dim=1."
)


def _pieces_of_num_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """torch.stack(torch.split(x, num_heads, dim=-1), dim=1): (batch, d_head, len, num_heads)."""
    batch, length, d_model = x.shape
    return x.reshape(batch, length, d_model // num_heads, num_heads).permute(0, 2, 1, 3)


#: other inputs on which a refused reshape's wrong size is read again, (batch, len,
#: d_model, num_heads): no two of their sizes, quotients or products coincide in all three
_SIZE_PROBES = [(3, 7, 20, 4), (2, 5, 18, 3), (1, 11, 30, 5)]


def _size_probes(split_heads) -> list:
    """split_heads called on :data:`_SIZE_PROBES`, with each input's named sizes."""
    probes = []
    for batch, length, d_model, num_heads in _SIZE_PROBES:
        y = randn((batch, length, d_model), 11)
        sizes = {
            "batch": batch,
            "len": length,
            "num_heads": num_heads,
            "d_head": d_model // num_heads,
            "d_model": d_model,
        }
        probes.append((lambda y=y, h=num_heads: split_heads(y, h), sizes))
    return probes


_STACK_SIZES = re.compile(r"got \[([\d, ]+)\] at entry 0 and \[([\d, ]+)\] at entry")


def _cut_axis_hint(x_shape: tuple[int, ...], names: tuple[str, ...]):
    """Pieces of x that torch.stack/cat refused: the axis whose size differs from x's is
    the one that was cut; any axis but the features (the last) is the wrong one (round
    12, blind12d-split-chunks-the-tokens: x.chunk(num_heads, dim=1) cuts the tokens)."""

    def hit(exc: BaseException) -> str:
        found = _STACK_SIZES.search(str(exc))
        if not found:
            return ""
        first, second = ([int(n) for n in g.split(",")] for g in found.groups())
        if len(first) != len(x_shape) or len(second) != len(x_shape):
            return ""
        cut = [axis for axis in range(len(x_shape)) if first[axis] != x_shape[axis]]
        if len(cut) != 1 or cut[0] == len(x_shape) - 1:
            return ""
        axis = cut[0]
        return (
            f"Your pieces are {tuple(first)} and {tuple(second)}: x {tuple(x_shape)} = "
            f"({', '.join(names)}) was cut along the {names[axis]} axis (dim={axis}), so each "
            f"piece keeps all {x_shape[-1]} features and a share of the {names[axis]} "
            f"positions, and the shares differ when {names[axis]} is not divisible. A head "
            f"is a slice of every token's features: cut along the last axis, x.chunk(num_heads, "
            "dim=-1), and stack the pieces on dim=1."
        )

    return [(RuntimeError, hit)]


def _single_head_returns_x(split_heads, got, x: torch.Tensor, num_heads: int) -> str:
    """x itself returned for num_heads=1 (a shortcut, ``if num_heads == 1: return x``),
    which a squeeze also gives when only the head axis has size 1. Stated only after a
    batch of two sequences of one token, where every squeeze would drop the len axis too,
    comes back unchanged as well (blind13d-split-one-head-shortcut was told "a bare
    .squeeze()")."""
    if num_heads != 1 or not (
        isinstance(got, torch.Tensor) and got.shape == x.shape and torch.equal(got, x)
    ):
        return ""
    probe = randn((2, 1, x.shape[-1]), 11, dtype=x.dtype)  # (batch=2, len=1, d_model)
    try:
        again = split_heads(probe, 1)
    except Exception:  # said by the check's own calls
        return ""
    if not (isinstance(again, torch.Tensor) and again.shape == probe.shape):
        return ""
    if not torch.equal(again, probe):
        return ""
    return (
        "For num_heads=1 yours returns x itself, unchanged: also for a batch of two one-token "
        "sequences, (2, 1, d_model), where a bare .squeeze() would drop the len axis too. A "
        "special case for a single head (`if num_heads == 1: return x`), or a squeeze of the "
        "head axis itself (squeeze(1)), leaves the head axis missing: one head is still a "
        "head, (batch, 1, len, d_model), and the attention code indexes that axis. The general "
        "reshape and transpose give it for one head too."
    )


def _heads_short_of_last_feature(got, expected: torch.Tensor) -> str:
    """Every head without its last feature, the rest right: a slice whose end was written
    as the last index, x[..., i * d_head : (i + 1) * d_head - 1] (round 14, blind14d-split-
    slice-end-minus-one, told only the shape)."""
    if not isinstance(got, torch.Tensor) or got.shape != expected[..., :-1].shape:
        return ""
    if got.dtype != expected.dtype or not torch.equal(got, expected[..., :-1]):
        return ""
    d_head = expected.shape[-1]
    return (
        f"Each of your heads holds its first {d_head - 1} features, right, and lacks its last "
        f"one: d_head - 1 = {d_head - 1} instead of d_head = {d_head}. If you cut the heads with slices: a Python slice's end "
        "is already excluded: head i is x[..., i * d_head : (i + 1) * d_head], without a - 1 "
        "(the closed range i*d_head ... (i+1)*d_head - 1 in the docstring names the last "
        "index kept, not the slice's end)."
    )


def check_split_heads(split_heads, *, hidden: bool = False) -> None:
    """split_heads(x (batch, len, d_model), num_heads) -> (batch, num_heads, len, d_head).

    Required: that shape, x's dtype, and exactly x's numbers with head i holding features
    i*d_head ... (i+1)*d_head - 1 of every token; for an x that requires grad, a result in
    x's autograd graph (the layer trains through it). Any way of getting there is accepted
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

            def right_with(k, batch=batch, length=length, d_head=d_head, num_heads=num_heads):
                y = randn((batch, length, k * d_head), 7)
                got = split_heads(y, num_heads)
                return isinstance(got, torch.Tensor) and torch.equal(got, ref.split_heads(y, k))

            fixed = (right_with, num_heads, "cuts x into {k} heads when asked for {num_heads}")

            row_right = alone_right(split_heads, ref.split_heads, x, num_heads)

            batch_note = lambda row_right=row_right, batch=batch: row_by_row_note(  # noqa: E731
                row_right, batch
            )
            got = c.call(
                split_heads,
                x,
                num_heads,
                call_repr=f"split_heads(x {tuple(x.shape)}, {num_heads})",
                hints=[
                    *_batch_of_one_hint(batch),
                    *_cut_axis_hint((batch, length, d_model), ("batch", "len", "d_model")),
                    *_fixed_heads_hint(*fixed),
                    *row_by_row_hint(row_right, batch, unless=_batch_of_one_hint(batch)),
                    *wrong_size_hint(
                        {
                            "batch": batch,
                            "len": length,
                            "num_heads": num_heads,
                            "d_head": d_head,
                            "d_model": d_model,
                        },
                        [
                            ("batch", "len", "num_heads", "d_head"),
                            ("batch", "num_heads", "len", "d_head"),
                        ],
                        probes=_size_probes(split_heads),
                        formulas={"d_head": "d_model // num_heads", "num_heads": "num_heads"},
                    ),
                ],
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
            shape_hint = (
                _fixed_heads_note(*fixed)
                or _copies_per_head_note(got, x, num_heads)
                or _single_head_returns_x(split_heads, got, x, num_heads)
                or _squeezed_or_folded(split_heads, got, x, num_heads)
                or _heads_along_length_note(got, x, num_heads)
                or batch_note()
                or _heads_short_of_last_feature(got, expected)
                or _split_shape_hint(got.shape, batch, length, num_heads, d_head)
            )
            if reordered and "the four axes are there, in the wrong order" in shape_hint:
                shape_hint = reordered  # the named shapes keep their own advice
            # a named shape's advice only when the values are that layout's: with batch ==
            # num_heads, (num_heads, len, batch, d_head) has the shape of (batch, len,
            # num_heads, d_head) (round 11: four.transpose(0, 2) was told to add a transpose)
            named_order = {
                (batch, length, num_heads, d_head): (0, 1, 2, 3),
                (batch, num_heads, d_head, length): (0, 2, 3, 1),
            }.get(tuple(got.shape))
            if (
                named_order is not None
                and shape_hint == _split_shape_hint(got.shape, batch, length, num_heads, d_head)
                and not by_value
                and not sequence_first
                and not (got.dtype == x.dtype and torch.equal(got, four.permute(named_order)))
            ):
                shape_hint = reordered or (
                    "The contract is (batch, num_heads, len, d_head) with d_head = d_model // "
                    "num_heads."
                )
            c.expect_shape(
                got,
                expected.shape,
                what,
                _SPLIT_PIECES_OF_NUM_HEADS if by_value else sequence_first or shape_hint,
            )
            c.expect_dtype(got, dtype, what, _SAME_DTYPE)

            def explain(
                got=got, x=x, expected=expected, d_head=d_head, batch_note=batch_note
            ) -> str:
                if note := batch_note():
                    return note
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
                    # blind9d-split-transpose-before-reshape
                    _SPLIT_TRANSPOSE_FIRST: x.transpose(1, 2).reshape(
                        batch, num_heads, length, d_head
                    ),
                    **_split_permutations(x, num_heads, expected),
                },
            )
        # the layer trains through split_heads: the result must stay in x's graph
        seed, batch, length, d_model, num_heads, dtype = (
            _HIDDEN_SPLIT if hidden else _VISIBLE_SPLIT
        )[0]
        _expect_graph(
            c,
            split_heads,
            randn((batch, length, d_model), seed, dtype=dtype),  # (batch, len, d_model)
            (num_heads,),
            ref.split_heads,
            "split_heads",
            "x.reshape(batch, len, num_heads, d_head).transpose(1, 2)",
        )
