"""The check of ``merge_heads``: (batch, num_heads, len, d_head) -> (batch, len, num_heads *
d_head), and the mistakes it names (no transpose, interleaved heads, the sizes unpacked in
split_heads' layout, heads missing, a result cut from autograd).
"""

from __future__ import annotations

import contextlib
import io
import itertools

import torch

from transformer_course.checking import Checker
from transformer_course.checking.batch_rows import row_by_row_hint, row_by_row_note
from transformer_course.checking.inputs import randn
from transformer_course.checking.reshape_sizes import wrong_size_hint
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
    "heads axis back behind len first (`.transpose(1, 2)`), then reshape. " + _TRANSPOSE_RESULT_KEPT
)
_MERGE_INTERLEAVED = (
    "Your heads come out interleaved (feature j of head i landed at j*num_heads + i): merging "
    "should concatenate the heads, head 0's d_head features first. Transpose to (batch, len, "
    "num_heads, d_head) and flatten the last two axes in that order."
)


_MERGE_UNPACKED_AS_SPLIT = (
    "Yours is x.transpose(1, 2) reshaped to (batch, num_heads, len * d_head): the transpose is "
    "there, but the sizes you reshape to have len and num_heads exchanged. Two slips give "
    "exactly this: x.shape unpacked as (batch, len, num_heads, d_head), split_heads' layout; "
    "or the sizes read after the transpose (x = x.transpose(1, 2), then x.shape[2] is "
    "num_heads, no longer len). Read the sizes from the input before transposing, x is "
    "(batch, num_heads, len, d_head), and reshape to (batch, len, num_heads * d_head)."
)


def _iterated_note(order: tuple[int, ...]) -> str:
    """The second recipe of x.permute(1, 2, 0, 3) reshaped: the concatenation of x's own
    elements, which walks x's first axis, the batch (round 12, blind12d-merge-cat-iterates-
    batch: torch.cat(list(x), dim=-1))."""
    if tuple(order) != (1, 2, 0, 3):
        return ""
    return (
        " The same numbers come from concatenating x's own elements: torch.cat(list(x), "
        "dim=-1), or a loop `for t in x`, iterates over x's first axis, the batch, not the "
        "heads, and glues the sequences side by side. To concatenate the heads, iterate over "
        "axis 1 (torch.cat(x.unbind(1), dim=-1)), or transpose and reshape."
    )


def _heads_in_columns(got, x: torch.Tensor) -> list[int] | None:
    """Which head of x (batch, num_heads, len, d_head) each block of d_head columns of
    ``got`` (batch, len, k * d_head) is, in order; None when a block is no single head."""
    batch, num_heads, length, d_head = x.shape
    if not (
        isinstance(got, torch.Tensor)
        and got.dim() == 3
        and tuple(got.shape[:2]) == (batch, length)
        and got.shape[2] % d_head == 0
        and got.dtype == x.dtype
    ):
        return None
    present = []
    for block in got.split(d_head, dim=-1):  # each (batch, len, d_head)
        hits = [h for h in range(num_heads) if torch.equal(block, x[:, h])]
        if len(hits) != 1:
            return None
        present.append(hits[0])
    return present


def _heads_list(heads: list[int]) -> str:
    return ("head " if len(heads) == 1 else "heads ") + ", ".join(str(h) for h in heads)


def _heads_reordered_note(got, x: torch.Tensor) -> str:
    """Every head there, each whole, but in another order (round 19, blind16d-merge-heads-
    prepended-in-loop: torch.cat([x[:, i], merged], -1) in a loop puts the last head first,
    told only its first wrong entry). The blocks of columns say which head each is."""
    present = _heads_in_columns(got, x)
    num_heads = x.shape[1]
    if present is None or sorted(present) != list(range(num_heads)):
        return ""
    if present == list(range(num_heads)):
        return ""
    if present == list(reversed(range(num_heads))):
        how = (
            "in reverse order, the last head first: a loop that puts each new head in front "
            "(torch.cat([x[:, h], merged], dim=-1), or list.insert(0, ...)), or a reversed "
            "range or flip, gives this"
        )
    else:
        how = f"in the order {', '.join(map(str, present))}"
    return (
        f"Yours holds every head, each whole, but its blocks of d_head = {x.shape[3]} columns "
        f"are the heads {how}. Merging concatenates the heads in their order, head 0 first: "
        "torch.cat([x[:, h] for h in range(num_heads)], dim=-1), or x.transpose(1, 2)"
        ".reshape(batch, len, num_heads * d_head)."
    )


def _missing_heads_note(merge_heads, got, x: torch.Tensor, seed: int) -> str:
    """Fewer heads than x holds, each block of columns one of x's heads: which heads are
    there and which are missing; the cause only when a probe with more heads tells it
    (round 13, blind13d-merge-drops-last-head: with 2 heads "one head short" and "head 0
    only" give the same result, and the message named the second)."""
    present = _heads_in_columns(got, x)
    batch, num_heads, length, d_head = x.shape
    if present is None or len(present) >= num_heads:
        return ""
    missing = [h for h in range(num_heads) if h not in present]
    columns = (
        f"Yours is d_head = {d_head} wide, one head's width: its columns are"
        if len(present) == 1
        else f"Yours is {len(present)} * d_head = {len(present) * d_head} wide: its blocks of "
        f"d_head = {d_head} columns are, in order,"
    )
    facts = (
        f"{columns} {_heads_list(present)} of x, and {_heads_list(missing)} "
        f"{'is' if len(missing) == 1 else 'are'} missing."
    )
    advice = (
        " Merging concatenates all num_heads heads, head 0 first: torch.cat([x[:, h] for h in "
        "range(num_heads)], dim=-1), or x.transpose(1, 2).reshape(batch, len, num_heads * "
        "d_head)."
    )
    more = num_heads + 2  # another number of heads, at least 3: tells the causes apart
    probe = randn((batch, more, length, d_head), seed + 70)  # (batch, more, len, d_head)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            again = _heads_in_columns(merge_heads(probe), probe)
    except Exception:
        again = None
    if again is None:
        return facts + advice
    seen = f"With {more} heads, yours keeps {_heads_list(again)}"
    if present == list(range(num_heads - 1)) and again == list(range(more - 1)):
        return (
            f"{facts} {seen}: one head short both times, the last head is dropped whatever "
            "the number of heads. A loop or range that stops one early, range(num_heads - 1) "
            "(or x.shape[1] - 1), gives this: range(n) already stops before n." + advice
        )
    if present == [num_heads - 1] and again == [more - 1]:
        return (
            f"{facts} {seen}: the last head alone both times (x[:, -1], or a loop that keeps "
            "overwriting its result instead of concatenating)." + advice
        )
    if again == present and present == list(range(d_head)):
        # as many heads as d_head: the count read from the last axis, or a fixed list;
        # a probe with another d_head (and more heads than it) tells the two apart
        wider = randn((batch, d_head + 3, length, d_head + 1), seed + 71)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                kept = _heads_in_columns(merge_heads(wider), wider)
        except Exception:
            kept = None
        if kept == list(range(d_head + 1)):
            return (
                f"{facts} {seen} too, and with {d_head + 3} heads of width {d_head + 1}, "
                f"heads 0 to {d_head}: always the first d_head heads. Your code counts the "
                "heads with d_head (the size of the last axis) instead of num_heads "
                "(x.shape[1]): a loop over range(d_head), which runs past the last head "
                "when d_head > num_heads." + advice
            )
    if again == present:
        return (
            f"{facts} {seen} too: the same heads whatever the number of heads, so they are "
            "written into your code (an index such as x[:, 0], or a fixed list)." + advice
        )
    return f"{facts} {seen}.{advice}"


#: (batch, num_heads, len, d_head) of the probes that tell len and d_head apart
_UNPACK_PROBES = ((2, 2, 3, 5), (1, 3, 4, 2))


def _len_and_d_head_read_swapped(merge_heads) -> str:
    """A result (batch, d_head, num_heads * len) on every probe: x.shape unpacked as
    (batch, num_heads, d_head, len), the transposed keys' layout, so the reshape puts
    d_head where len belongs (round 20, blind18b-merge-unpacks-d-head-before-length was
    told only that the shape is wrong); "" otherwise."""
    for seed, (batch, num_heads, length, d_head) in enumerate(_UNPACK_PROBES):
        x = torch.randn(
            batch, num_heads, length, d_head, generator=torch.Generator().manual_seed(5150 + seed)
        )
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                got = merge_heads(x.clone())
        except Exception:  # a probe: the general hint stays
            return ""
        if not (
            isinstance(got, torch.Tensor)
            and tuple(got.shape) == (batch, d_head, num_heads * length)
        ):
            return ""
    return (
        "Your result is (batch, d_head, num_heads * len) on every input tried (len and d_head "
        "differ in them): the sizes were read from x.shape as (batch, num_heads, d_head, len), "
        "the layout of transposed keys, where x is (batch, num_heads, len, d_head), so the "
        "reshape puts d_head where len belongs. Unpack batch, num_heads, length, d_head = "
        "x.shape, then x.transpose(1, 2).reshape(batch, length, num_heads * d_head)."
    )


def _merge_shape_hint(
    got, x, batch: int, num_heads: int, length: int, d_head: int, merge_heads=None, seed: int = 0
) -> str:
    """The advice for a wrong shape; where two computations give that shape, the values
    say which one it is (the shape alone names none)."""
    shape = tuple(got.shape)
    if merge_heads is not None and (note := _missing_heads_note(merge_heads, got, x, seed)):
        return note
    if shape == (batch, num_heads, length * d_head) and got.dtype == x.dtype:
        if torch.equal(got, x.reshape(shape)):
            return (
                "You flattened len and d_head together: each head's tokens are concatenated "
                "one after the other into one vector of len * d_head, (batch, num_heads, len "
                "* d_head) (x.reshape(batch, num_heads, -1), x.flatten(2) and torch.cat("
                "x.unbind(2), dim=-1), which iterates over the length axis, all give it). The "
                "heads are what must be concatenated: move the heads axis back behind len "
                "first (`.transpose(1, 2)`), then flatten the last two axes. "
                + _TRANSPOSE_RESULT_KEPT
            )
        if torch.equal(got, x.transpose(1, 2).reshape(shape)):
            return _MERGE_UNPACKED_AS_SPLIT
        return (
            f"Your middle axis has num_heads = {num_heads} entries where len = {length} belongs, "
            "and the last one len * d_head: the result is (batch, len, num_heads * d_head)."
        )
    if shape == (batch, length * num_heads, d_head) and length > 1 and num_heads > 1:
        if torch.equal(got, x.transpose(1, 2).flatten(1, 2)):
            return (
                "Yours is x.transpose(1, 2).flatten(1, 2): after the transpose, (batch, len, "
                "num_heads, d_head), you flattened axes 1 and 2, the length and the heads, into "
                "one axis of len * num_heads, where the last two, the heads and d_head, belong: "
                "the heads must be concatenated along the feature axis, .flatten(2) or "
                ".reshape(batch, len, num_heads * d_head)."
            )
        if torch.equal(got, x.flatten(1, 2)):
            return (
                "Yours is x.flatten(1, 2), x's axes 1 and 2, the heads and the length, "
                "flattened together without a transpose: the heads are stacked one after the "
                "other along the length (len * num_heads rows). Move the heads next to d_head "
                "first, .transpose(1, 2), then flatten the last two axes."
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
    expected = x.transpose(1, 2).reshape(batch, length, num_heads * d_head)
    in_order = (
        got.numel() == x.numel()
        and got.dtype == x.dtype
        and torch.equal(got.reshape(-1), expected.reshape(-1))
    )
    if in_order and shape == tuple(n for n in expected.shape if n != 1):
        # the right numbers in the right order, the size-1 axes gone: no permutation, which
        # a size-1 axis would let match too (blind10g-merge-squeeze-drops-batch-of-one)
        return (
            f"Your numbers are right and in the right order, but the axes of size 1 of "
            f"{tuple(expected.shape)} are gone: a bare .squeeze() removes every axis of size 1, "
            "the batch axis of a batch of one included. Drop the squeeze (or squeeze only an "
            "axis you name): the result is (batch, len, num_heads * d_head) whatever the sizes."
        )
    if shape not in hints and not in_order and got.numel() == x.numel() and got.dtype == x.dtype:
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
                    f"{_iterated_note(order)}"
                )
    if shape == (batch, length, d_head) and num_heads > 1 and got.dtype == x.dtype:
        # blind9d-merge-heads-summed: the heads reduced, not concatenated
        for name, reduced in (
            ("summed, x.sum(dim=1)", x.sum(dim=1)),
            ("averaged, x.mean(dim=1)", x.mean(dim=1)),
            ("reduced to their maximum, x.max(dim=1)", x.max(dim=1).values),
        ):
            if torch.allclose(got, reduced):
                return (
                    f"Yours is d_head = {d_head} wide, one head's width: the heads are {name}. "
                    "Merging concatenates them, each token's num_heads * d_head features side "
                    "by side: x.transpose(1, 2).reshape(batch, len, num_heads * d_head)."
                )
        return (
            f"Yours is d_head = {d_head} wide, one head's width: the heads must be "
            "concatenated, not reduced to one, giving (batch, len, num_heads * d_head)."
        )
    if shape == (batch, length * num_heads * d_head) and got.dtype == x.dtype:
        if torch.equal(got, x.transpose(1, 2).reshape(shape)):  # blind9d-merge-flatten-from-dim-1
            return (
                "Yours is 2-D: the positions are flattened into the features too (flatten(1), "
                "or a reshape to (batch, -1)). Flatten only the last two axes, flatten(2), or "
                "reshape to (batch, len, num_heads * d_head)."
            )
    if in_order and shape == (batch, 1, length, num_heads * d_head) and num_heads > 1:
        # round 14, blind14d-merge-cat-keeps-head-axis: torch.cat(x.split(1, dim=1), dim=-1)
        return (
            "Your numbers are right and in the right order, but yours keeps a heads axis of "
            "size 1, (batch, 1, len, num_heads * d_head), a 4-D tensor instead of the 3-D "
            "(batch, len, num_heads * d_head). Pieces cut along the heads axis with "
            "x.split(1, dim=1), x.chunk(num_heads, dim=1) or x[:, i : i + 1] keep that axis "
            "(size 1 in each), and torch.cat along the last axis keeps it too. Drop it: take "
            "the heads as x[:, i] (or x.unbind(1)), or squeeze(1) the result, or use "
            "x.transpose(1, 2).reshape(batch, len, num_heads * d_head)."
        )
    if shape not in hints and in_order:
        if merge_heads is not None and (swapped := _len_and_d_head_read_swapped(merge_heads)):
            return swapped
        return (
            "Your numbers are right and in the right order, only the shape is not: reshape to "
            "(batch, len, num_heads * d_head)."
        )
    return hints.get(shape, "The contract is (batch, len, num_heads * d_head).")


def _heads_counted_by_d_head(merge_heads) -> str:
    """Where the call raises IndexError: a loop over the heads whose count is d_head (the
    last axis) instead of num_heads is right when the two are equal and, with more heads
    than d_head, concatenates only the first d_head heads. Named when probes show both."""
    square = randn((2, 3, 4, 3), 1717)  # num_heads = d_head = 3
    wide = randn((2, 4, 3, 2), 1718)  # num_heads 4 > d_head 2
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            right = merge_heads(square.clone())
            short = merge_heads(wide.clone())
    except Exception:  # a probe: the error's own message stays
        return ""
    first = wide[:, :2].transpose(1, 2).reshape(2, 3, 4)  # the first d_head heads, merged
    if not (
        isinstance(right, torch.Tensor)
        and torch.equal(right, ref.merge_heads(square))
        and isinstance(short, torch.Tensor)
        and short.shape == first.shape
        and torch.equal(short, first)
    ):
        return ""
    return (
        "Your code counts the heads with d_head (the size of the last axis) instead of "
        "num_heads (x.shape[1]): a loop over range(d_head). It is right when num_heads == "
        "d_head (checked with 3 and 3), merges only the first d_head heads when there are "
        "more heads (with 4 heads of width 2 it returned heads 0 and 1 alone), and runs "
        "past the last head, as here, when d_head > num_heads. Loop over range(x.shape[1]), "
        "or with no loop: x.transpose(1, 2).reshape(batch, len, num_heads * d_head)."
    )


def check_merge_heads(merge_heads, *, hidden: bool = False) -> None:
    """merge_heads(x (batch, num_heads, len, d_head)) -> (batch, len, num_heads * d_head).

    Required: that shape, x's dtype, and exactly x's numbers with the heads concatenated
    (head 0's features first); for an x that requires grad, a result in x's autograd graph. Inputs include transposed views, as split_heads returns
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

            def right_with(k, batch=batch, length=length, d_head=d_head, seed=seed):
                y = randn((batch, k, length, d_head), seed + 50)
                got = merge_heads(y)
                return isinstance(got, torch.Tensor) and torch.equal(got, ref.merge_heads(y))

            fixed = (right_with, num_heads, "is right with {k} heads but not with {num_heads}")

            def row_right(i, x=x):  # sequence i alone, a batch of one
                alone = x[i : i + 1].clone()
                got = merge_heads(alone)
                return isinstance(got, torch.Tensor) and torch.equal(got, ref.merge_heads(alone))

            batch_note = lambda row_right=row_right, batch=batch: row_by_row_note(  # noqa: E731
                row_right, batch
            )
            got = c.call(
                merge_heads,
                x,
                call_repr=f"merge_heads(x {tuple(x.shape)}{layout})",
                hints=[
                    (IndexError, lambda _exc: _heads_counted_by_d_head(merge_heads)),
                    *_batch_of_one_hint(batch),
                    *_fixed_heads_hint(*fixed),
                    *row_by_row_hint(row_right, batch, unless=_batch_of_one_hint(batch)),
                    *wrong_size_hint(
                        {
                            "batch": batch,
                            "len": length,
                            "num_heads": num_heads,
                            "d_head": d_head,
                            "d_model": num_heads * d_head,
                        },
                        [("batch", "len", "d_model")],
                    ),
                ],
                mutation_hint="Transpose and reshape give new tensors; nothing needs to be "
                "written into x.",
            )
            c.expect_type(got, torch.Tensor, what, _pieces_hint(got, x))
            expected = ref.merge_heads(x)  # (batch, len, num_heads * d_head)
            c.expect_shape(
                got,
                expected.shape,
                what,
                _fixed_heads_note(*fixed)
                or batch_note()
                or _merge_shape_hint(got, x, batch, num_heads, length, d_head, merge_heads, seed),
            )
            c.expect_dtype(got, dtype, what, _SAME_DTYPE)

            def explain(
                got=got, x=x, expected=expected, d_head=d_head, batch_note=batch_note
            ) -> str:
                if note := batch_note():
                    return note
                if note := _heads_reordered_note(got, x):
                    return note
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
                    f"trade places.{_iterated_note(order)}"
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
        # the layer trains through merge_heads: the result must stay in x's graph
        seed, batch, num_heads, length, d_head, dtype, _ = (
            _HIDDEN_MERGE if hidden else _VISIBLE_MERGE
        )[0]
        _expect_graph(
            c,
            merge_heads,
            randn((batch, num_heads, length, d_head), seed, dtype=dtype),  # (batch, h, len, d_head)
            (),
            ref.merge_heads,
            "merge_heads",
            "x.transpose(1, 2).reshape(batch, len, num_heads * d_head)",
        )


def _pieces_hint(got, x: torch.Tensor) -> str:
    """The hint for a result that is not a tensor: a list or tuple of the heads, each
    (batch, len, d_head), never joined into one tensor (round 20, blind16d-merge-returns-
    list-of-heads, was told to return a tensor); the general advice otherwise."""
    batch, num_heads, length, d_head = x.shape
    if (
        isinstance(got, list | tuple)
        and len(got) == num_heads
        and all(
            isinstance(t, torch.Tensor) and tuple(t.shape) == (batch, length, d_head) for t in got
        )
    ):
        kind = type(got).__name__
        return (
            f"It is a {kind} of the {num_heads} heads, each a (batch, len, d_head) = "
            f"({batch}, {length}, {d_head}) tensor: the heads were split apart and never "
            "joined. Concatenate them along the feature axis into one tensor, "
            f"torch.cat(heads, dim=-1), (batch, len, num_heads * d_head), or transpose and "
            "reshape x directly: x.transpose(1, 2).reshape(batch, len, num_heads * d_head)."
        )
    return "Return a torch tensor (transpose/reshape x)."
