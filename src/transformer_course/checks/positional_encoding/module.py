"""The check of ``PositionalEncoding(d_model, max_len, dropout)``: the stored table (any
layout that broadcasts, any name, in or out of the state dict, never a parameter), the
forward pass, the dropout after the sum, the table following ``.to()``, and the
arguments taken by position in the order the exercise gives.
"""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import torch

from transformer_course.checking import Checker, torch_generator
from transformer_course.checking.concatenated import concatenation_of
from transformer_course.checking.dropout_masks import dropout_pattern_problem
from transformer_course.checking.dropout_placement import (
    dropped_term_mask,
    fitting_placements,
    sum_placements,
)
from transformer_course.checking.module_settings import NEVER_IN_TRAINING
from transformer_course.checking.modules import build_module
from transformer_course.checking.narrow_tables import narrow_table_note
from transformer_course.checking.size_one_axes import dropped_only_at_one, values_in_permuted_axes
from transformer_course.checking.term_factors import term_factors_message
from transformer_course.reference import positional_encoding as ref

from .common import _FLOAT32_FORMULA, _tolerance
from .table_mistakes import _pe_layout_hint, _pe_mistakes

# --------------------------------------------------------------- PositionalEncoding
_VISIBLE_MODULE = [(8, 20, [(2, 5), (1, 20)])]
_HIDDEN_MODULE = [
    (16, 64, [(3, 17), (2, 64), (1, 1)]),
    (6, 10, [(4, 10), (5, 3)]),
    (4, 12, [(2, 7)]),
]
_LAYOUTS = ("(1, max_len, d_model)", "(max_len, d_model)", "(max_len, 1, d_model)")

_NOT_IN_STATE_DICT = (
    "PositionalEncoding's state dict is empty: the table is not saved with the module (a "
    "buffer with persistent=False, or rows computed in forward). That works; a buffer made "
    "with register_buffer('pe', table) is also saved by state_dict()."
)
_EVAL_HINT = (
    "In eval mode dropout must do nothing. F.dropout(x, p) defaults to training=True and "
    "drops anyway: use an nn.Dropout module (it follows .train() and .eval()) or pass "
    "training=self.training."
)


def _exercise_1(mistake: str) -> str:
    return (
        "It looks like the positional-encoding table with a classic mistake of exercise 1. "
        f"{mistake} Fix positional_encoding first (its test cell explains more); this "
        "module builds its table with it."
    )


def _stored_tables(found: dict, max_len: int, d_model: int) -> dict[str, tuple[str, np.ndarray]]:
    """key -> (layout, the (max_len, d_model) table) of every state-dict entry shaped like one."""
    shapes = {(1, max_len, d_model): _LAYOUTS[0], (max_len, d_model): _LAYOUTS[1]}
    shapes[(max_len, 1, d_model)] = _LAYOUTS[2]
    tables = {}
    for key, value in found.items():
        layout = shapes.get(tuple(value.shape))
        if layout and value.is_floating_point():
            tables[key] = (layout, value.detach().reshape(max_len, d_model).double().numpy())
    return tables


def _check_stored_table(c: Checker, found: dict, built: str, max_len: int, d_model: int) -> str:
    """Diagnose the table in the state dict, if there is one; returns its layout (or "")."""
    if not found:
        c.note(_NOT_IN_STATE_DICT)
        return ""
    expected = ref.positional_encoding(max_len, d_model)
    if max_len != d_model:
        swapped = ref.positional_encoding(d_model, max_len)  # (d_model, max_len)
        for key, value in found.items():
            if (
                value.is_floating_point()
                and value.numel() == swapped.size
                and tuple(value.shape)[-2:] == swapped.shape
                and np.allclose(value.detach().double().reshape(swapped.shape), swapped, atol=1e-5)
            ):
                c.fail(
                    f"{built}: the table in its state dict, `{key}`, has shape "
                    f"{tuple(value.shape)}: it is positional_encoding({d_model}, {max_len}), "
                    f"the arguments swapped. The function takes (max_len, d_model): call "
                    f"positional_encoding(max_len, d_model), {max_len} positions of "
                    f"{d_model} features."
                )
    for key, value in found.items():  # the right table, for another number of positions
        rows = (
            value.shape[-3 if value.dim() == 3 and value.shape[-2] == 1 else -2]
            if value.dim() in (2, 3)
            else 0
        )
        if (
            value.is_floating_point()
            and rows not in (0, max_len)
            and value.shape[-1] == d_model
            and value.numel() == rows * d_model
            and np.allclose(
                value.detach().double().reshape(rows, d_model),
                ref.positional_encoding(rows, d_model),
                **_FLOAT32_FORMULA,
            )
        ):
            c.fail(
                f"{built}: the table in its state dict, `{key}`, has shape "
                f"{tuple(value.shape)}: {rows} positions, but the module was built with "
                f"max_len={max_len}. Build it with positional_encoding(max_len, d_model), the "
                "max_len passed to __init__, not a fixed number of positions."
            )
    unknown = ""  # the layout of a table-shaped entry that is not the table
    for key, (layout, table) in _stored_tables(found, max_len, d_model).items():
        if np.allclose(table, expected, **_FLOAT32_FORMULA):
            c.ok()
            return layout
        for mistake, wrong in _pe_mistakes(max_len, d_model).items():
            if np.allclose(table, wrong(), **_FLOAT32_FORMULA):
                c.fail(
                    f"{built}: the table in its state dict, `{key}`, is wrong. "
                    + _exercise_1(mistake)
                )
        # the right sines and cosines, not each in its place (round 35: a table built in
        # the module itself, in another layout, was told by its output alone)
        placed = _pe_layout_hint(table, max_len, d_model) if np.isfinite(table).all() else None
        if placed:
            c.fail(
                f"{built}: the table in its state dict, `{key}`, is wrong. {placed} (If the "
                "module builds it with positional_encoding, fix that first: its test cell "
                "explains more.)"
            )
        unknown = unknown or layout
    return unknown  # the output check explains what is wrong, if anything is


#: the table kept as (max_len, 1, d_model) (the layout the state dict shows), whatever slice
#: of it was taken: its len rows meet x's batch axis
_SEQ_FIRST_TABLE = (
    "Your table is stored as (max_len, 1, d_model), the sequence-first layout of older "
    "PyTorch tutorials (for x of shape (len, batch, d_model)): a slice of its first axis, "
    "table[:{length}], is ({length}, 1, d_model), so its positions line up with the *batch* "
    "axis of x and its axis of size 1 with the positions. Here x is (batch, len, d_model): "
    "store the table as (1, max_len, d_model) (table.unsqueeze(0)) and add table[:, :len]."
)


def _slice_hint(layout: str, batch: int, length: int, max_len: int, d_model: int = 0):
    """Advice for a shape mismatch in x + table, from the sizes the error names: the
    number of table rows the learner added tells which slice they took."""

    def hint(exc: BaseException) -> str:
        if layout == _LAYOUTS[1]:
            return (
                "Your table is 2-D, (max_len, d_model), so slicing its second axis picks "
                "feature columns, not positions. Either store it with a batch axis in front, "
                "(1, max_len, d_model) (table.unsqueeze(0)), and slice table[:, :len], or keep "
                "it 2-D and slice its rows, table[:len]."
            )
        found = re.search(r"tensor a \((\d+)\) must match the size of tensor b \((\d+)\)", str(exc))
        sizes = {int(found[1]), int(found[2])} if found else set()
        if layout == _LAYOUTS[2] and max_len in sizes and length != max_len:
            # all max_len rows met x: the slice cut the axis of size 1 (table[:, :len])
            return (
                f"Your table is stored as (max_len, 1, d_model), the sequence-first layout "
                f"of older PyTorch tutorials, and all its max_len={max_len} rows met x: a "
                "slice of its second axis, table[:, :len] (the batch-first slice), cuts the "
                "axis of size 1 and keeps every row, which then lines up with the batch axis "
                "of x. Keep layout and slice together: store the table as (1, max_len, "
                "d_model) (table.unsqueeze(0)) and add table[:, :len]."
            )
        if layout == _LAYOUTS[2]:
            return _SEQ_FIRST_TABLE.format(length=length)
        axis = re.search(r"non-singleton dimension (-?\d+)", str(exc))
        # the feature axis clashes with a width that no slice of x gives: a table built for
        # another d_model (a slice by len or batch on the wrong axis is explained below)
        width = next(iter(sizes - {d_model}), 0) if len(sizes) == 2 else 0
        on_features = axis is not None and int(axis[1]) in (2, -1)
        if d_model in sizes and on_features and width not in (0, length, batch, max_len):
            return (
                f"The sizes that clash are the features: x has d_model={d_model}, your table "
                f"has {width} columns. Build the table for this module's own d_model, "
                "positional_encoding(max_len, d_model), not for a fixed width"
                + (" (512 is the paper's d_model)." if width == 512 else ".")
            )
        added = sizes - {length}
        rows = next(iter(added)) if length in sizes and len(added) == 1 else None
        # the slices that add `rows` rows here; two of them alike on this input: name both
        candidates = [
            text
            for hit, text in (
                (
                    rows == batch and batch not in (length, max_len),
                    f"x.size(0), the batch size {batch}",
                ),
                (
                    rows == d_model and d_model not in (batch, max_len),
                    f"x.size(-1), the feature width d_model={d_model}",
                ),
                (rows == max_len, f"no slice at all, the whole table of max_len={max_len} rows"),
                (
                    rows is not None and abs(rows - length) == 1,
                    f"x.size(1) {'+' if (rows or 0) > length else '-'} 1, a slice off by one",
                ),
            )
            if hit
        ]
        if len(candidates) > 1:
            return (
                f"You added {rows} rows of the table to x's len={length} positions. On this "
                "input more than one slice gives that many rows: "
                + "; or ".join(f"sliced with {text}" for text in candidates)
                + ". Add exactly the first len rows, table[:, :x.size(1)] for a (1, max_len, "
                "d_model) table."
            )
        if length in sizes and added == {batch} and batch not in (length, max_len):
            return (
                f"You added {batch} rows of the table, the batch size of x, to its "
                f"len={length} positions: the table was sliced with x.size(0) (x.shape[0]), "
                "the sequence-first (len, batch, d_model) convention of older tutorials. Here "
                "x is (batch, len, d_model): slice with x.size(1), table[:, :x.size(1)] for "
                "a (1, max_len, d_model) table."
            )
        if length in sizes and added == {d_model} and d_model not in (batch, max_len):
            return (
                f"You added {d_model} rows of the table, x's d_model (its last axis), to its "
                f"len={length} positions: the table was sliced with x.size(-1) (x.shape[-1]), "
                "the feature width. The positions are x's second axis: slice with x.size(1), "
                "table[:, :x.size(1)] for a (1, max_len, d_model) table."
            )
        if length in sizes and added == {max_len}:
            return (
                f"You added all max_len={max_len} rows of the table to x's len={length} "
                "positions: add only the first len rows (for a (1, max_len, d_model) table, "
                "table[:, :len]). Slicing table[:len] cuts the batch axis (of size 1) and "
                "leaves every row, and adding the whole table only works when len happens "
                "to equal max_len."
            )
        if rows is not None and abs(rows - length) == 1:
            more = "one too many" if rows > length else "one too few"
            return (
                f"You added {rows} rows of the table to x's len={length} positions, {more}: "
                f"the slice is off by one (:x.size(1) {'+' if rows > length else '-'} 1). Add "
                "exactly the first len rows, table[:, :x.size(1)] for a (1, max_len, d_model) "
                "table (the end of a slice is already excluded)."
            )
        return (
            f"x has len={length} positions (batch {batch}, max_len={max_len}): add only the "
            "first len rows of the table, table[:, :x.size(1)] for a (1, max_len, d_model) "
            "table. The two sizes in the error are x's len and the number of rows you added."
        )

    return hint


#: the global torch stream is seeded before each call of the learner's module whose output
#: is reported (the Checker puts it back afterwards): a dropout left on (the functional
#: F.dropout in eval mode, a hard-coded probability) draws the same mask on every run, so
#: the same answer always gets the same message (the same counts of zeroed entries)
_CALL_SEED = 0


def _table_shapes(module) -> dict[str, tuple[int, ...]]:
    """The shape of each buffer and tensor attribute of the module (the table, wherever
    the learner keeps it, under a private name such as self._cache too)."""
    shapes = {name: tuple(b.shape) for name, b in module.named_buffers()}
    for name, value in vars(module).items():
        if isinstance(value, torch.Tensor) and not name.startswith("__"):
            shapes.setdefault(name, tuple(value.shape))
    return shapes


def _expect_tables_kept(c, module, what: str, tables: dict | None, length: int) -> None:
    """forward leaves the module's state alone: a table cut to this call's length (self.pe
    = self.pe[:, :len]) refuses, or misreads, every later and longer input."""
    if not tables:
        return
    now = _table_shapes(module)
    for name, shape in tables.items():
        if name in now and now[name] != shape:
            cut = len(now[name]) == len(shape) and [
                i for i, (a, b) in enumerate(zip(shape, now[name], strict=True)) if a != b
            ] == [next((i for i, n in enumerate(now[name]) if n == length and shape[i] != n), -1)]
            if not cut:
                c.fail(
                    f"{what} changed the module itself: its table `{name}` was {shape} when "
                    f"the module was built and is {now[name]} after this call. forward must "
                    "leave the table as built (a fixed buffer): compute x + the slice you "
                    "need into a new tensor, without assigning anything to the module."
                )
            c.fail(
                f"{what} changed the module itself: its table `{name}` was {shape} when the "
                f"module was built and is {now[name]} after this call (len={length}). forward "
                f"assigned a slice back to the module (self.{name} = self.{name}[:, :len]), so "
                "every later call sees a table cut to this length, and a longer x is refused "
                "or fails. Slice into a local value and leave the table as built: return "
                f"self.dropout(x + self.{name}[:, :x.size(1)])."
            )


def _narrow_stored_note(found: dict, max_len: int, d_model: int) -> str:
    """The state dict's table built or stored in a narrow dtype (checking.narrow_tables):
    its dtype, and whether its error grows with the position; "" otherwise."""
    right = ref.positional_encoding(max_len, d_model)  # (max_len, d_model) float64
    pos = np.arange(max_len, dtype=np.float64)[:, None]
    freqs = np.power(10000.0, -np.arange(0, d_model, 2, dtype=np.float64) / d_model)
    angles = np.zeros((max_len, d_model))  # the angle behind each entry
    angles[:, 0::2] = pos * freqs
    angles[:, 1::2] = (pos * freqs)[:, : d_model // 2]
    stored = {
        key: found[key].detach().reshape(max_len, d_model)
        for key in _stored_tables(found, max_len, d_model)
    }
    try:
        return narrow_table_note(stored, right, angles)
    except Exception:  # a stand-in tensor that cannot be read: no claim
        return ""


def _check_forward(
    c, module, built, x, table, layout, max_len, tables=None, table_right=False, narrow=""
):
    """dropout off (eval, or p = 0): the output must be x + PE[:len]; the module's tables
    (``tables``: their shapes when built) keep their shapes."""
    batch, length, d_model = x.shape
    what = f"{built} applied to x of shape {tuple(x.shape)}"

    def made_later() -> list[tuple[str, tuple[int, ...]]]:
        """Tensors the module holds now and did not hold when built: made in forward."""
        if tables is None:
            return []
        return [(n, shape) for n, shape in _table_shapes(module).items() if n not in tables]

    def lazy(exc: BaseException) -> bool:
        return "must match the size of tensor" in str(exc) and bool(made_later())

    def lazy_hint(exc: BaseException) -> str:
        name, shape = made_later()[0]
        return (
            f"Your module holds `{name}`, of shape {shape}, which it did not hold when it "
            "was built: forward made it on an earlier call, sized for that call's x, and "
            f"keeps it for the next ones. This x has len={length}. Build the table once, in "
            "__init__, for max_len positions (self.register_buffer('pe', ...)), and slice "
            "the first len rows in forward."
        )

    torch.manual_seed(_CALL_SEED)
    out = c.call(
        module,
        x,
        call_repr=what,
        hints=[
            (lazy, lazy_hint),
            (
                lambda exc: "must match the size of tensor" in str(exc) and not lazy(exc),
                _slice_hint(layout, batch, length, max_len, d_model),
            ),
            (lambda exc: "instances of 'Dropout'" in str(exc), _DROPOUT_AS_NUMBER),
            (
                lambda error: isinstance(error, ValueError) and length <= max_len,
                f"Your PositionalEncoding refused x with len={length} positions, although "
                f"it was built with max_len={max_len}: len <= max_len is a legal input. "
                "Refuse only len > max_len. Your test is off: >= where > belongs (off by "
                "one), or a size read from another axis of x or of the table (x.size(1) is "
                "len; the table's position axis, pe.shape[1] for a (1, max_len, d_model) "
                "table, holds max_len)."
                + (f" {_SEQ_FIRST_TABLE.format(length=length)}" if layout == _LAYOUTS[2] else ""),
            ),
        ],
        mutation_hint="Return x + the table as a new tensor: `x += ...` (or x.add_) "
        "changes the caller's embeddings.",
    )
    _expect_tables_kept(c, module, what, tables, length)
    c.expect_type(out, torch.Tensor, what, "Return a tensor.")
    hint = "The output has the shape of x: (batch, len, d_model)."
    if layout == _LAYOUTS[2] and tuple(out.shape) == (length, length, d_model):
        hint += " " + _SEQ_FIRST_TABLE.format(length=length)
    if tuple(out.shape) == (1, length, d_model):
        hint += " Yours has batch size 1: did you return the encoding without adding x?"
    if tuple(out.shape) != tuple(x.shape):

        def run_grown(axes, x=x):
            grown = x
            for axis in axes:
                grown = torch.cat([grown, grown], dim=axis)
            torch.manual_seed(_CALL_SEED)
            with contextlib.redirect_stdout(io.StringIO()):
                result = module(grown)
            return isinstance(result, torch.Tensor) and result.shape == grown.shape

        hint = dropped_only_at_one(tuple(out.shape), tuple(x.shape), run_grown) or hint
        joined = concatenation_of(
            out,
            {"x": x, "the table's rows": table[:length].unsqueeze(0)},  # (1, len, d_model)
            **_FLOAT32_FORMULA,
        )
        if joined:
            first, second, axis = joined
            axis_name = ("batch", "position", "feature")[axis]
            hint = (
                f"Yours is {first} and {second} concatenated along the {axis_name} axis "
                f"(torch.cat([...], dim={axis}), dim={axis - 3} from the end) instead of added: "
                f"the output then has {out.shape[axis]} where x has {x.shape[axis]}. The "
                "encoding is added to the embeddings, element by element: x + "
                "self.pe[:, :len], which keeps the shape of x."
            )
        expected = x + table[:length].unsqueeze(0)  # (batch, len, d_model)
        swapped = values_in_permuted_axes(out, expected, **_FLOAT32_FORMULA)
        if swapped and tuple(out.shape) == (length, batch, d_model):
            hint = (
                swapped + "Yours is (len, batch, d_model), the sequence-first layout of the "
                "PyTorch tutorial (and its (max_len, 1, d_model) table): x transposed to add "
                "the table must be transposed back, x.transpose(0, 1), to (batch, len, "
                "d_model), the shape of x."
            )
        elif swapped:
            hint = swapped + hint
    c.expect_shape(out, x.shape, what, hint)
    if out.requires_grad:
        _fail_requires_grad(c, module, what)
    c.expect_dtype(
        out,
        x.dtype,
        what,
        "x is float32, like every layer of the model; a float64 table turns x + table into "
        "float64, and the next layer (float32 weights) then fails with a dtype mismatch. "
        "Make the table float32: torch.tensor(a float64 numpy array) stays float64, so pass "
        "dtype=torch.float32 (or convert with .float()).",
    )
    pe = table[:length].unsqueeze(0)  # (1, len, d_model)
    mistakes = {
        "You returned the encoding without adding x: the output must be x + PE, the token "
        "embeddings *plus* their positions.": pe.expand_as(x),
        "You returned x unchanged: add the first len rows of the table.": x,
        "You multiplied x by the encoding; add it.": x * pe,
        "You subtracted the encoding from x (x - PE): add it, x + PE.": x - pe,
        "You subtracted x from the encoding (PE - x): the output is x + PE.": pe - x,
        "Every sequence got one row of the table for all its positions: the row of its "
        "*batch* index. That's the sequence-first (len, batch, d_model) convention of older "
        "PyTorch tutorials (the word-language-model example keeps the table as "
        "(max_len, 1, d_model) and adds table[:x.size(0)]); here x is (batch, len, d_model), "
        "so slice the positions, the second axis of x.": (
            x + table[:batch].unsqueeze(1) if batch <= max_len else None
        ),
        f"Your output is x * sqrt(d_model) + PE[:len]: x is multiplied by sqrt(d_model) = "
        f"{d_model**0.5:.4g} before the encoding is added. That scaling belongs to the token "
        "embedding (lesson 02, embeddings * sqrt(d_model)), so embeddings that come from it "
        "would be scaled twice; this module only adds the encoding: x + PE[:len].": (
            x * d_model**0.5 + pe
        ),
        f"The rows you add are sqrt(d_model) = {d_model**0.5:.4g} times the table's: the "
        "encoding was multiplied by sqrt(d_model). That scaling belongs to the token "
        "embedding (lesson 02, embeddings * sqrt(d_model)); the positions are added as the "
        "table gives them, each pair on the unit circle: x + PE[:len].": x + pe * d_model**0.5,
    }
    if out.shape == x.shape and torch.allclose(out.detach(), x, atol=1e-6):
        _expect_added_in_eval(c, module, x, x + pe, what)
    # the mistakes of exercise 1, unless the table in the state dict was found right (rows
    # 1..len of a right table look like positions counted from 1: the slice is off then)
    for mistake, wrong in ({} if table_right else _pe_mistakes(max_len, d_model)).items():
        mistakes[f"The encoding you add is wrong. {_exercise_1(mistake)}"] = lambda wrong=wrong: (
            x + torch.tensor(wrong()[:length], dtype=x.dtype)
        )
    c.expect_close(
        out,
        x + pe,
        what,
        **_tolerance(out.dtype),
        hint="Expected x + PE[:len]: position p of every sequence in the batch gets row p of "
        "the table.",
        mistakes=mistakes,
        explain=lambda: (
            narrow
            or _rows_added(out, x, table)
            or term_factors_message(
                out,
                {"x": x, "PE[:len]": pe},
                **_tolerance(out.dtype),
                where=" PositionalEncoding adds the table's rows as they are to x as it is (any "
                "scaling of the embeddings belongs to the token embedding, lesson 02).",
            )
        ),
    )


def _fail_requires_grad(c, module, what: str) -> None:
    """The output requires grad although x does not: say where the gradient comes from, a
    trainable parameter, a buffer with requires_grad on, or something forward makes."""
    trainable = [name for name, p in module.named_parameters() if p.requires_grad]
    tracked = [name for name, b in module.named_buffers() if b.requires_grad]
    start = f"{what} returned a tensor that requires grad, although x does not: "
    fixed = (
        "The sinusoidal table is fixed, not learned: keep it as a buffer (register_buffer) "
        "that needs no gradient, which moves with .to(device) and is saved in the state "
        "dict, but is never trained."
    )
    if trainable:
        c.fail(
            start + f"your module holds a trainable parameter, `{trainable[0]}` (an "
            "nn.Parameter), so an optimiser would change it. " + fixed
        )
    if tracked:
        c.fail(
            start + f"your buffer `{tracked[0]}` has requires_grad on (requires_grad_(), or "
            "a table made with requires_grad=True): no optimiser sees a buffer, so it is never "
            "trained, but every output now carries a graph back into the table, and "
            "autograd computes a gradient for it in every backward pass. " + fixed + " "
            "Register the table as it comes, without requires_grad."
        )
    c.fail(
        start + "your module holds no trainable parameter and no buffer that needs a "
        "gradient, so forward makes the tensor that does (a table or rows built there with "
        "requires_grad=True, or an nn.Parameter made in forward). " + fixed
    )


def _expect_added_in_eval(c, module, x, expected, what: str) -> None:
    """x returned unchanged in eval mode: fail naming it when the same module (dropout 0)
    adds the table in training mode, so the positions are added only in training."""
    module.train()
    try:
        torch.manual_seed(_CALL_SEED)
        with contextlib.redirect_stdout(io.StringIO()):
            trained = module(x.clone())
    except Exception:  # a probe: the comparison with the reference then speaks
        return
    finally:
        module.eval()
    if not isinstance(trained, torch.Tensor) or trained.shape != expected.shape:
        return
    if torch.allclose(trained.detach(), expected, **_tolerance(trained.dtype)):
        c.fail(
            f"{what} (eval mode) returned x unchanged, but in training mode (dropout=0.0) "
            "the same module gives x + PE[:len]: your positions are added only in training "
            "mode (a forward under `if self.training:`). Dropout is what is for training "
            "only, and nn.Dropout already does nothing in eval mode; the encoding is added "
            "in both modes: return self.dropout(x + self.pe[:, :x.size(1)])."
        )


def _rows_added(out, x, table) -> str:
    """Localise by the table's rows: which row (and how many times it) each position of x
    got, when every position got one whole row of the table (or none, or twice one); ""
    when the output is not x plus rows of the table."""
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        return ""
    added = (out.detach().double() - x.double())[0]  # (len, d_model), the first sequence
    rows = table.double()  # (max_len, d_model)
    length = added.shape[0]
    found = []
    for p in range(length):
        hits = [
            (r, times)
            for times in (1.0, 2.0)
            for r in range(rows.shape[0])
            if torch.allclose(added[p], times * rows[r], atol=1e-4)
        ]
        if len(hits) != 1:
            return ""
        found.append(hits[0])
    taken = [r for r, _ in found]
    if all(times == 2.0 for _, times in found) and taken == list(range(length)):
        return (
            "Every position got its row of the table twice: x + 2·PE. Either the encoding "
            "is added twice (x = x + pe, then x + pe again in the return), or the rows you "
            "add are doubled (2 * pe, a table built as a sum of two): add the encoding once, "
            "self.dropout(x + self.pe[:, :x.size(1)])."
        )
    if any(times != 1.0 for _, times in found) or taken == list(range(length)):
        return ""
    shown = ", ".join(f"{p} -> row {r}" for p, r in enumerate(taken[:4]))
    offset = taken[0]
    if taken == list(range(offset, offset + length)):
        where = (
            f"rows {offset}..{offset + length - 1}"
            + (", the last len rows (table[:, -len:])" if offset + length == rows.shape[0] else "")
            + (" (the slice starts one row late)" if offset == 1 else "")
        )
        unused = "row 0 is" if offset == 1 else f"rows 0..{offset - 1} are"
        return (
            f"Position p got row p + {offset} of the table ({shown}, ...): every position is "
            f"shifted by {offset}{' (off by one)' if offset == 1 else ''} and {unused} never "
            f"used. You added {where} instead of the first len rows. Position p gets row p: "
            "table[:, :x.size(1)]."
        )
    if len(set(taken)) == 1 and length > 1:
        row = taken[0]
        cause = (
            f", row {row} = len: position len's row was added to every token, as indexing "
            "the table at the length, table[:, len] (a missing colon), does instead of "
            "slicing its first len rows, table[:, :len]"
            if row == length
            else f": row {row} was added to every token, one index where a slice of len rows "
            "belongs"
        )
        return (
            f"Every position got the same row of the table ({shown}, ...){cause}. Position p "
            "gets row p: table[:, :x.size(1)]."
        )
    if taken == list(range(length))[::-1]:
        return (
            f"Position p got row len - 1 - p of the table ({shown}, ...): the rows are added "
            "in reverse. Position p gets row p: table[:, :x.size(1)]."
        )
    return (
        f"Every position got one row of the table, but not its own ({shown}, ...). Position "
        "p gets row p: table[:, :x.size(1)]."
    )


def _expect_given_p(c, out, total, what: str, p: float) -> None:
    """Training-mode output that is dropout of x + PE with another probability than the
    one passed (each entry 0 or the sum times one factor 1 / (1 - p')): the argument is
    not used."""
    if not isinstance(out, torch.Tensor) or out.shape != total.shape:
        return
    got, want = out.detach().double(), total.double()
    dropped = got.abs() <= 1e-6
    kept = ~dropped & (want.abs() > 1e-3)
    if not bool(dropped.any()) or not bool(kept.any()):
        return
    ratios = got[kept] / want[kept]
    scale = float(ratios.median())
    if scale <= 1.0 + 1e-6 or not torch.allclose(ratios, torch.full_like(ratios, scale), rtol=1e-4):
        return
    c.fail(
        f"{what}: {int(dropped.sum())} of your {got.numel()} entries are 0 and the others are "
        f"(x + PE) × {scale:.4g}, which is dropout with p = {1 - 1 / scale:.2g}, not the "
        f"dropout={p} the module was given. The `dropout` argument is not used: create "
        "nn.Dropout(dropout) in __init__, not a fixed probability."
    )


def _scale_of(out, total) -> float | None:
    """The one factor r with out = r·total at every entry (where total is not ~0)."""
    if not isinstance(out, torch.Tensor) or out.shape != total.shape:
        return None
    got, want = out.detach().double(), total.double()
    where = want.abs() > 1e-3
    if not bool(where.any()):
        return None
    ratios = got[where] / want[where]
    r = float(ratios[0])
    if not torch.allclose(ratios, torch.full_like(ratios, r), rtol=1e-4, atol=1e-5):
        return None
    return r


#: factors an eval-mode output can be scaled by, as functions of the dropout probability
_EVAL_FACTORS = (
    (
        "1 - p",
        lambda p: 1 - p,
        "the test-time scaling of the original dropout paper: nn.Dropout already scales "
        "the kept entries by 1 / (1 - p) in training, so in eval mode it passes x + PE "
        "through unchanged; scale nothing yourself",
    ),
    (
        "1 / (1 - p)",
        lambda p: 1 / (1 - p),
        "training mode's scaling of the kept entries, applied in eval mode too; nn.Dropout "
        "does that scaling itself in training and nothing in eval mode",
    ),
    ("p", lambda p: p, "the dropout probability used as a factor"),
)


def _eval_scaled(out, total, run_eval) -> str:
    """An eval-mode output that is x + PE times a factor: which expression of p it is,
    told apart by a second run with p = 0.2 (1 - p and p are both 0.5 at p = 0.5), or
    the factor, the same for both probabilities (not dropout's); "" otherwise."""
    r = _scale_of(out, total)
    if r is None or abs(r - 1.0) < 1e-6:
        return ""
    try:
        other = run_eval(0.2)
    except Exception:  # CheckFailure included: the first run's message is the one to give
        return ""
    r2 = _scale_of(other, total)
    if r2 is None:
        return ""
    fits = [
        (name, why)
        for name, f, why in _EVAL_FACTORS
        if abs(f(0.5) - r) < 1e-4 and abs(f(0.2) - r2) < 1e-4
    ]
    head = (
        f"In eval mode your output is (x + PE) × {r:.4g} with dropout=0.5 and × {r2:.4g} "
        "with dropout=0.2"
    )
    if len(fits) == 1:
        name, why = fits[0]
        return f"{head}: x + PE scaled by {name}, {why}. In eval mode dropout does nothing."
    if abs(r2 - r) < 1e-6:
        return (
            f"In eval mode your output is (x + PE) × {r:.4g}, whatever the dropout "
            "probability: a constant factor, not dropout's. The module returns x + PE in "
            "eval mode (dropout does nothing there)."
        )
    return ""


def _expect_dropout_on_the_sum(c, out, x, rows, what: str) -> None:
    """With dropout=0.5 in training mode, every entry must be 0 or 2·(x + PE) whatever the
    draw; when the entries fit another placement of dropout (twice, on x alone, on each
    term) instead, that placement is named (all of them when several fit)."""
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        return
    placements = sum_placements(0.5, "x", "PE")
    fits = fitting_placements(out, (x, rows), placements)
    if "" in fits or not fits:
        return
    c.fail(
        f"{what}: your entries are not each 0 or (x + PE) / (1 - p) = 2·(x + PE), as "
        "dropout of the sum gives whatever it draws. They fit a dropout placed elsewhere: "
        + " or ".join(fits)
        + ". The paper applies dropout once, to the sum: self.dropout(x + PE)."
    )


def _expect_table_not_dropped(c, out, x, rows, what: str, again) -> None:
    """In eval mode with p = 0.5: an output of x plus the table through one dropout mask,
    the same for every sequence of the batch, is a table that went through dropout
    itself: once when built (one mask, the same on two calls of one module with other
    seeds) or in every forward with training forced on (a new mask per call)."""
    mask = dropped_term_mask(out, x, rows, 0.5)  # (1, len, d_model): True where kept
    if mask is None:
        return
    try:
        masks = [dropped_term_mask(out, x, rows, 0.5) for out in again()]
    except Exception:  # the calls are the check's own probe: no verdict from them
        masks = []
    lost = int((~mask & (rows.abs() > 1e-6)).sum())
    if len(masks) == 2 and masks[0] is not None and masks[1] is not None:
        fixed = torch.equal(masks[0], masks[1])
    else:
        return  # the two calls do not show one mask each: say nothing more
    if fixed:
        c.fail(
            f"{what} adds a table with {lost} of its entries zeroed and the others doubled "
            "(PE / (1 - p)), at the same places for every sequence of the batch and on "
            "every call: the stored table itself went through dropout, once, when the "
            "module was built (self.dropout(table) in __init__, where a new module is in "
            "training mode), so a fixed random mask is baked into the buffer, in eval mode "
            "as in training. Store the table as computed, and apply dropout in forward, "
            "to the sum: self.dropout(x + self.pe[:, :x.size(1)])."
        )
    c.fail(
        f"{what} adds a table with {lost} of its entries zeroed and the others doubled "
        "(PE / (1 - p)), the same for every sequence of the batch: the table goes through "
        "a dropout of its own that ignores eval mode (F.dropout(pe, p) defaults to "
        "training=True). Apply dropout once, to the sum, with the module's nn.Dropout: "
        "self.dropout(x + self.pe[:, :x.size(1)])."
    )


def _check_dropout(c, cls, d_model, max_len, x, table):
    """Dropout, checked without depending on a random stream: p = 0.5 in eval mode and
    p = 0 in training mode change nothing; p = 1 in training mode zeroes everything."""
    length = x.shape[1]
    total = x + table[:length].unsqueeze(0)  # (batch, len, d_model)

    def run(p, mode):
        module, built = build_module(
            c, cls, d_model, name="PositionalEncoding", max_len=max_len, dropout=p, mode=mode
        )
        what = f"{built} in {mode} mode, applied to x of shape {tuple(x.shape)}"
        torch.manual_seed(_CALL_SEED)
        return c.call(module, x.clone(), call_repr=what), what

    out, what = run(0.5, "eval")
    if isinstance(out, torch.Tensor) and out.shape == total.shape:
        # dropout's training behaviour: each entry 0, or the sum scaled by 1 / (1 - p)
        got = out.detach().double()
        dropped = got.abs() <= 1e-6
        kept = torch.isclose(got, 2.0 * total.double(), rtol=1e-4, atol=1e-5)
        if bool((dropped | kept).all()) and bool(dropped.any()):
            c.fail(
                f"{what} still drops: {int(dropped.sum())} of its {got.numel()} entries are 0 "
                "and the others are (x + PE) / (1 - p) = 2·(x + PE), which is dropout in "
                f"training mode. {_EVAL_HINT}"
            )

    def twice_on_one_module():  # two calls of one module, each after its own seed
        module, _ = build_module(
            c, cls, d_model, name="PositionalEncoding", max_len=max_len, dropout=0.5, mode="eval"
        )
        outs = []
        for seed in (_CALL_SEED, _CALL_SEED + 1):
            torch.manual_seed(seed)
            with contextlib.redirect_stdout(io.StringIO()):
                outs.append(module(x.clone()))
        return outs

    _expect_table_not_dropped(c, out, x, table[:length].unsqueeze(0), what, twice_on_one_module)
    c.expect_close(
        out,
        total,
        what,
        **_tolerance(out.dtype),
        explain=lambda out=out: _eval_scaled(out, total, lambda p: run(p, "eval")[0]),
        hint="In eval mode dropout must do nothing: the output is x + PE.",
    )

    out, what = run(0.0, "train")
    if (
        isinstance(out, torch.Tensor)
        and out.shape == total.shape
        and bool((out.detach() == 0).all())
        and bool((total != 0).any())
    ):
        # dropout with p = 1: is the argument read as a keep probability (1 - dropout)?
        # dropout=1.0 then keeps everything; a fixed p = 1 would zero it all again
        out_one, _ = run(1.0, "train")
        keeps_all = (
            isinstance(out_one, torch.Tensor)
            and out_one.shape == total.shape
            and bool(torch.allclose(out_one.detach().double(), total.double(), atol=1e-5))
        )
        c.fail(
            f"{what}: all {out.numel()} entries are 0, which is dropout with p = 1, although "
            "the module was given dropout=0.0"
            + (
                ", and with dropout=1.0 nothing is dropped at all: the argument is read as "
                "the probability of *keeping* an entry (nn.Dropout(1 - dropout), TensorFlow's "
                "keep_prob). PyTorch's p is the probability of *zeroing* one: create "
                "nn.Dropout(dropout)."
                if keeps_all
                else ": a dropout probability of 1 (a fixed one, or 1 - dropout) zeroes "
                "everything. Create nn.Dropout(dropout), where p is the probability of "
                "zeroing an entry."
            )
        )
    _expect_given_p(c, out, total, what, 0.0)
    c.expect_close(
        out,
        total,
        what,
        **_tolerance(out.dtype),
        hint=lambda: (
            f"With dropout=0.0, training mode must give what eval mode gives, x + PE; "
            f"{int((out == 0).sum())} of your entries are 0. Did you ignore the `dropout` "
            "argument (a hard-coded nn.Dropout(0.1), say)?"
        ),
    )

    out, what = run(1.0, "train")
    c.expect_close(
        out,
        torch.zeros_like(total),
        what,
        **_tolerance(out.dtype),
        hint=lambda: (
            f"With dropout=1.0 in training mode every entry must be 0 "
            f"(nn.Dropout(1.0) drops everything), but {int((out != 0).sum())} of yours are not. "
            "Did you ignore the `dropout` argument (a hard-coded nn.Dropout(0.1), say)?"
        ),
        mistakes={
            "The output is exactly x + PE, so dropout was not applied in training mode. "
            f"{NEVER_IN_TRAINING} Create an nn.Dropout(dropout) in __init__ and call it on "
            "the sum in forward.": total,
            "Dropout was applied to x *before* adding the encoding (with dropout=1.0 the "
            "output holds the encoding alone). The paper applies dropout to the *sums* of the "
            "embeddings and the positional encodings (section 5.4): dropout(x + PE).": (total - x),
            "Dropout was applied to the encoding alone, then x was added (with dropout=1.0 "
            "the output is x). The paper applies dropout to the *sum*: dropout(x + PE).": x,
        },
    )

    # dropout placed elsewhere that p = 0 and p = 1 cannot see (twice, on each term)
    out, what = run(0.5, "train")
    _expect_dropout_on_the_sum(c, out, x, total - x, what)
    # the right placement, but a mask shared along an axis (nn.Dropout2d zeroes whole
    # positions of a (batch, len, d_model) input; blind28a-PE-channel-dropout passed)
    pattern = dropout_pattern_problem(
        total, out, 0.5, ("sequence", "position", "feature"), unit="value"
    )
    c.expect_true(not pattern, f"{what}: your output is not what a dropout gives. {pattern}")


_NOT_A_BUFFER = (
    "The table did not follow the module: after .to(torch.bfloat16) the output is {got}, "
    "so the table is still float32 (or float64). It is a plain attribute (self.pe = table, "
    "a numpy array, or a tensor kept outside the module): .to(dtype), .half(), "
    ".to(device)/.cuda() and state_dict() only see parameters and buffers, so on a GPU or "
    "in half precision the model fails with a device or dtype mismatch. Register it in "
    "__init__: self.register_buffer('pe', table) (fixed, never trained, moved and saved "
    "with the module). (d2l keeps a plain attribute and moves it to x's device in every "
    "forward; .half() still leaves it behind.)"
)


def _left_behind(module) -> list[str]:
    """The plain attributes holding a float array or tensor that .to(torch.bfloat16) left
    as it was (a table kept outside the parameters and buffers)."""
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (
            (isinstance(value, np.ndarray) and value.dtype.kind == "f")
            or (
                isinstance(value, torch.Tensor)
                and value.is_floating_point()
                and value.dtype != torch.bfloat16
            )
        )
    ]


def _converted_buffers(module) -> list[str]:
    """The float buffers that .to(torch.bfloat16) converted."""
    return [name for name, b in module.named_buffers() if b.dtype == torch.bfloat16]


def _check_gradient_reaches_x(c, module, built: str, x: torch.Tensor) -> None:
    """The sum stays in autograd: x.data, x.detach(), torch.no_grad() or numpy in forward
    cut it off, and then nothing before this module (the token embeddings) is trained.
    Judged by the output's requires_grad alone (the table is a buffer, checked before):
    the sandboxed grader returns the learner's output with its requires_grad but without
    its graph, so following the graph back to x would fail every answer there."""
    what = f"{built} applied to x of shape {tuple(x.shape)} that requires grad"
    leaf = x.detach().clone().requires_grad_(True)
    torch.manual_seed(_CALL_SEED)
    out = c.call(module, leaf, call_repr=what)
    if not isinstance(out, torch.Tensor) or out.requires_grad:
        return
    c.fail(
        f"{what} returned a tensor that no gradient can flow back through to x: forward "
        "took x out of autograd (x.data, x.detach(), torch.no_grad(), or a round trip "
        "through numpy), so nothing before this module, the token embeddings included, "
        "would ever be trained. The table needs no gradient; x does: add the rows to x "
        "itself, self.dropout(x + self.pe[:, :x.size(1)])."
    )


def _check_too_long(c, module, built: str, max_len: int, d_model: int, seed: int) -> None:
    """A sequence one position longer than max_len lies outside the contract (len <=
    max_len): raising is right, whatever the exception, and so is the right sum for all
    len positions (rows computed in forward). Returning anything else is not: a sequence
    cut to max_len positions (silent truncation), or x with only some positions added."""
    length = max_len + 1
    x = torch.randn(1, length, d_model, generator=torch_generator(seed))  # (1, len, d_model)
    what = f"{built} applied to x of shape {tuple(x.shape)}, one position more than max_len"
    torch.manual_seed(_CALL_SEED)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            out = module(x.clone())
    except Exception:  # refused: right (a ValueError says why best)
        return
    if not isinstance(out, torch.Tensor):
        return  # what forward returns is checked on legal inputs
    rows = torch.tensor(ref.positional_encoding(length, d_model), dtype=torch.float32)
    if out.shape == x.shape and torch.allclose(out.detach().float(), x + rows, **_FLOAT32_FORMULA):
        return  # the rows of every position, computed for this length: right
    if tuple(out.shape) == (1, max_len, d_model):
        cause = (
            f"it returned shape {tuple(out.shape)}: the sequence was cut to its first "
            f"max_len={max_len} positions (x[:, :max_len]), silently dropping the last one"
        )
    elif out.shape == x.shape:
        cause = (
            "it returned x's shape, but not x plus the table's rows for every position: "
            "positions past the table got no rows of their own (or the rows of others)"
        )
    else:
        cause = f"it returned shape {tuple(out.shape)} for x of shape {tuple(x.shape)}"
    c.fail(
        f"{what}: {cause}. The table holds max_len positions, so a longer sequence cannot be "
        "encoded: refuse it, as the reference does, with "
        "raise ValueError(f'sequence length {len} exceeds max_len={max_len}') before the "
        "addition: the layers after it would go on, unwarned, with a result that is not x's."
    )


def _check_follows_to(c, cls, d_model, max_len, gen):
    """The table is a buffer (or computed from x): converting the module converts it.
    Run in bfloat16, where a table left behind in float32 shows in the output's dtype."""
    module, built = build_module(
        c, cls, d_model, name="PositionalEncoding", max_len=max_len, dropout=0.0, mode="eval"
    )
    c.call(module.to, torch.bfloat16, call_repr=f"{built}.to(torch.bfloat16)")
    x = torch.randn(2, min(max_len, 4), d_model, generator=gen)  # (batch, len, d_model)
    what = f"{built}.to(torch.bfloat16) applied to x of shape {tuple(x.shape)} in bfloat16"
    torch.manual_seed(_CALL_SEED)
    out = c.call(module, x.to(torch.bfloat16), call_repr=what)
    c.expect_type(out, torch.Tensor, what, "Return a tensor.")
    if out.dtype != torch.bfloat16:
        left, converted = _left_behind(module), _converted_buffers(module)
        if not left and converted:  # the table followed: forward converts x or the sum
            c.fail(
                f"{what} returned dtype {out.dtype}, although the module's table followed "
                f".to(): its buffer `{converted[0]}` is bfloat16 now. So forward converts: x "
                f"(or the sum) is turned into {out.dtype} there (x.float(), .double(), "
                ".to(torch.float32), or rows made with a fixed dtype). The output keeps x's "
                "dtype: add the rows to x as it is, self.dropout(x + self.pe[:, :x.size(1)]) "
                "(convert the rows to x.dtype if they differ, never x)."
            )
        if not left:  # no table at all in the module: made in forward, or kept outside
            c.fail(
                f"{what} returned dtype {out.dtype}. The module keeps no table (no buffer, no "
                f"tensor attribute), so the {out.dtype} comes from forward: rows made there "
                "with a fixed dtype (torch.tensor(..., dtype=torch.float32)), a table kept "
                "outside the module (a global), or x converted (x.float()). Keep x's dtype: "
                "make the rows in it (.to(x.dtype)), or build the table once in __init__ as a "
                "buffer (register_buffer), which .to() converts."
            )
        c.fail(f"{what} returned dtype {out.dtype}. " + _NOT_A_BUFFER.format(got=out.dtype))
    table = torch.tensor(ref.positional_encoding(max_len, d_model), dtype=torch.float32)
    c.expect_close(
        out.float(),
        (x.to(torch.bfloat16) + table[: x.shape[1]].to(torch.bfloat16)).float(),
        what,
        rtol=2e-2,
        atol=2e-2,
        hint="In bfloat16 the output must still be x + PE[:len].",
    )


def _by_position(cls, args: tuple, training: bool, x, expected) -> str:
    """What cls(*args), in training or eval mode, applied to x gives when it is not
    ``expected``: the error, or how the output differs ('' when it is right)."""
    built = f"PositionalEncoding{args}"
    try:
        with torch.random.fork_rng(devices=[]), contextlib.redirect_stdout(io.StringIO()):
            torch.manual_seed(_CALL_SEED)
            module = cls(*args)
            module.train(training)
            out = module(x.clone())
    except Exception as exc:  # reported as what the call did, not raised
        return f"{built} raised {type(exc).__name__}: {exc}"
    if not isinstance(out, torch.Tensor):
        return f"{built} returned a {type(out).__name__}"
    if out.shape != expected.shape:
        return f"{built} returned shape {tuple(out.shape)} where x has {tuple(x.shape)}"
    if not torch.allclose(out.detach().double(), expected.double(), rtol=1e-4, atol=1e-5):
        mode = "training" if training else "eval"
        return f"{built} in {mode} mode applied to x of shape {tuple(x.shape)} gave a wrong output"
    return ""


def _check_argument_order(c, d_model: int, max_len: int, cls, x, table) -> None:
    """The signature given, __init__(self, d_model, max_len=5000, dropout=0.1), taken by
    position too: everything before built the module by keyword, so a call by position
    that fails tells the order of the parameters apart from every other cause. Run with
    dropout 0 in eval mode (x + PE, on x as long as max_len: the table's length) and
    dropout 1 in training mode (all 0: the probability)."""
    total = x + table[: x.shape[1]].unsqueeze(0)  # (batch, len, d_model)
    for p, training, expected in ((0.0, False, total), (1.0, True, torch.zeros_like(total))):
        failure = _by_position(cls, (d_model, max_len, p), training, x, expected)
        if failure:
            break
    else:
        return
    by_keyword = f"PositionalEncoding({d_model}, max_len={max_len}, dropout={p})"
    if not _by_position(cls, (d_model, p, max_len), training, x, expected):
        c.fail(
            f"{failure}, although {by_keyword} was right: by position, max_len and dropout "
            f"are in each other's place, and PositionalEncoding({d_model}, {p}, {max_len}) "
            "(the order swapped) is right. Your __init__ takes (d_model, dropout, max_len), "
            "the Annotated Transformer's order, not the signature the exercise gives, "
            "__init__(self, d_model, max_len=5000, dropout=0.1). Keywords hide the swap, but "
            "a call by position, as the course's Transformer builds it (lesson 09: "
            "PositionalEncoding(d_model, max_len, dropout)), would get dropout p = max_len "
            "(nn.Dropout refuses it) and a table of `dropout` rows. Keep the order given."
        )
    c.fail(
        f"{failure}, although {by_keyword} was right: your __init__ does not take its "
        "arguments by position in the order of the signature the exercise gives, "
        "__init__(self, d_model, max_len=5000, dropout=0.1) (parameters in another order, "
        "an extra one in between, or keyword-only ones after a `*`?). The course's "
        "Transformer builds it by position (lesson 09: PositionalEncoding(d_model, max_len, "
        "dropout)): keep the signature given."
    )


#: the signature's defaults, __init__(self, d_model, max_len=5000, dropout=0.1)
_DEFAULT_MAX_LEN, _DEFAULT_DROPOUT = 5000, 0.1


def _built_run(cls, args: tuple, kwargs: dict, x: torch.Tensor, mode: str = "eval"):
    """cls(*args, **kwargs) in ``mode`` applied to x: (output, "") or (None, what went
    wrong, the error named); a constructor that raises gives (None, None), said by the
    checks that build it with every keyword. No seed is relied on: in the grader the
    module runs in the sandbox, whose random stream this side does not set."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            module = cls(*args, **kwargs)
    except Exception:  # a constructor that needs more arguments: not this check's business
        return None, None
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            module.train(mode == "train")
            out = module(x.clone())
    except Exception as exc:  # reported as what the call did, not raised
        return None, f"raised {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        return None, "did not return a tensor of x's shape"
    return out.detach().double(), ""


def _dropout_rate(trained: torch.Tensor, evaluated: torch.Tensor) -> float | None:
    """The rate an inverted dropout used, read off its kept entries, which it scales by
    1 / (1 - p): p = 1 - eval / train there (None when nothing was kept)."""
    kept = (trained != 0) & (evaluated.abs() > 1e-6)
    if not bool(kept.any()):
        return None
    return float(1 - (evaluated[kept] / trained[kept]).median())


def _table_rows(cls, d_model: int) -> int:
    """The number of positions of the table that cls(d_model) stores (its defaults), read
    from its state dict: the axis beside the d_model features that is not of size 1 (0
    when there is no such table)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            found = cls(d_model).state_dict()
    except Exception:
        return 0
    for value in found.values():
        if isinstance(value, torch.Tensor) and value.dim() in (2, 3) and value.shape[-1] == d_model:
            rows = [n for n in value.shape[:-1] if n != 1]
            if len(rows) == 1:
                return rows[0]
    return 0


def _check_signature_defaults(c, cls, gen) -> None:
    """PositionalEncoding(d_model) with the signature's defaults, max_len=5000 and
    dropout=0.1, left out: the checks pass both by keyword, so a default changed in the
    signature (max_len=512, BERT's length) was accepted, and a caller that builds it
    with its defaults gets a table too short for sequences up to 5000 positions (or
    another dropout rate). Run in training mode, seeded, on x as long as the default
    table: the same draws as the module built with the defaults written out."""
    d_model = 4
    x = torch.randn(1, _DEFAULT_MAX_LEN, d_model, generator=gen)  # (1, 5000, d_model)
    contract = {"max_len": _DEFAULT_MAX_LEN, "dropout": _DEFAULT_DROPOUT}
    explicit, _ = _built_run(cls, (d_model,), contract, x)
    if explicit is None:  # the checks with every keyword say what is wrong
        return
    written = (
        f"PositionalEncoding({d_model}, max_len={_DEFAULT_MAX_LEN}, dropout={_DEFAULT_DROPOUT})"
    )
    signature = "__init__(self, d_model, max_len=5000, dropout=0.1)"
    implicit, failure = _built_run(cls, (d_model,), {}, x)
    if failure is None:
        return
    if implicit is None or not torch.allclose(implicit, explicit, rtol=1e-5, atol=1e-6):
        rows = _table_rows(cls, d_model)
        stored = f" Your default table holds {rows} positions." if rows else ""
        c.fail(
            f"PositionalEncoding({d_model}), built with its defaults, applied in eval mode to x "
            f"of shape {tuple(x.shape)}, {failure or 'gave another output'}, while {written}, "
            f"the signature's defaults written out, takes it: your default max_len is not "
            f"{_DEFAULT_MAX_LEN}.{stored} Keep the signature given, {signature}: a module "
            "built without max_len must take any sequence up to 5000 positions"
            + (" (512 is BERT's limit, not this module's)." if rows == 512 else ".")
        )
    trained, failure = _built_run(cls, (d_model,), {}, x, mode="train")
    rate = _dropout_rate(trained, implicit) if trained is not None else None
    if rate is None or abs(rate - _DEFAULT_DROPOUT) <= 1e-4:
        return
    c.fail(
        f"PositionalEncoding({d_model}), built with its defaults, applied in training mode to "
        f"x of shape {tuple(x.shape)}, scales the entries it keeps by 1 / (1 - p) with p = "
        f"{rate:.3g}: your default dropout is not {_DEFAULT_DROPOUT}. Keep the signature "
        f"given, {signature}: 0.1 is the paper's P_drop (section 5.4), and a caller that "
        "leaves dropout out expects it."
    )


_DROPOUT_AS_NUMBER = (
    "Your nn.Dropout module was given where a number belongs: F.dropout(x + pe, "
    "self.dropout, ...) passes the module as the probability p, and comparing it with "
    "0 and 1 fails. Call the module itself, self.dropout(x + pe) (it knows its p and "
    "the training mode), or keep the float p from __init__ for F.dropout."
)


def _buffer_name_hint(exc: BaseException) -> str:
    """register_buffer refusing a name the module already holds as a plain attribute."""
    found = re.search(r"attribute '(\w+)' already exists", str(exc))
    if not found:
        return ""
    name = found.group(1)
    return (
        f"register_buffer('{name}', ...) refuses a name the module already holds as a plain "
        f"attribute: self.{name} = table followed by self.register_buffer('{name}', "
        f"self.{name}) raises this. Register the table without assigning it first, "
        f"self.register_buffer('{name}', table): it is then self.{name}, and part of the "
        "state dict."
    )


def _expect_constructible(c, cls, d_model: int, max_len: int) -> None:
    """Build the module once with the course's hints for construction errors (a buffer
    registered under a name already taken); build_module builds it again for the checks."""
    c.call(
        cls,
        d_model,
        max_len=max_len,
        dropout=0.0,
        call_repr=f"PositionalEncoding({d_model}, max_len={max_len}, dropout=0.0)",
        hints=[(KeyError, _buffer_name_hint)],
    )


def check_PositionalEncoding(cls, *, hidden: bool = False) -> None:
    """PositionalEncoding(d_model, max_len=..., dropout=...): x (batch, len, d_model) ->
    dropout(x + PE[:len]), with a fixed (never trained) table; see the module docstring
    for the layouts and dtypes that are accepted. Built by keyword throughout, then once
    by position, PositionalEncoding(d_model, max_len, dropout): the signature given."""
    with Checker("PositionalEncoding", hidden=hidden) as c:
        c.require_callable(cls)
        gen = torch_generator(303 if hidden else 30)
        first_d_model, first_max_len, _ = (_HIDDEN_MODULE if hidden else _VISIBLE_MODULE)[0]
        _expect_constructible(c, cls, first_d_model, first_max_len)
        for d_model, max_len, inputs in _HIDDEN_MODULE if hidden else _VISIBLE_MODULE:
            module, built = build_module(
                c,
                cls,
                d_model,
                name="PositionalEncoding",
                max_len=max_len,
                dropout=0.0,
                mode="eval",
            )
            found = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
            layout = _check_stored_table(c, found, built, max_len, d_model)
            table = torch.tensor(ref.positional_encoding(max_len, d_model), dtype=torch.float32)
            right = ref.positional_encoding(max_len, d_model)
            table_right = any(
                np.allclose(stored, right, **_FLOAT32_FORMULA)
                for _, stored in _stored_tables(found, max_len, d_model).values()
            )
            tables = _table_shapes(module)
            narrow = "" if table_right else _narrow_stored_note(found, max_len, d_model)
            for batch, length in inputs:
                x = torch.randn(batch, length, d_model, generator=gen)  # (batch, len, d_model)
                _check_forward(
                    c,
                    module,
                    built,
                    x,
                    table,
                    layout,
                    max_len,
                    tables,
                    table_right=table_right,
                    narrow=narrow,
                )
            _check_gradient_reaches_x(c, module, built, x)
            _check_too_long(c, module, built, max_len, d_model, seed=max_len)
            x = torch.randn(2, min(max_len, 6), d_model, generator=gen)  # (batch, len, d_model)
            _check_dropout(c, cls, d_model, max_len, x, table)
            _check_follows_to(c, cls, d_model, max_len, gen)
        # right with keywords: the arguments by position, in the order given (once)
        d_model, max_len, _ = (_HIDDEN_MODULE if hidden else _VISIBLE_MODULE)[0]
        x = torch.randn(2, max_len, d_model, generator=gen)  # (batch, max_len, d_model)
        table = torch.tensor(ref.positional_encoding(max_len, d_model), dtype=torch.float32)
        _check_argument_order(c, d_model, max_len, cls, x, table)
        _check_signature_defaults(c, cls, gen)
