"""Checks for lesson 10's make_batches: padded batches for teacher forcing."""

from __future__ import annotations

import contextlib
import io
import itertools
import random
import types
from collections.abc import Iterator, Sequence

import numpy as np
import torch

from transformer_course.checking import Checker, CheckFailure, numpy_rng, short
from transformer_course.checking.kept_state import StateWatch
from transformer_course.checking.padded_rows import (
    LEFT,
    PAD_IN_FRONT,
    START_REPLACED,
    leading_pad_readings,
)
from transformer_course.checking.partitions import order_rule, size_rule
from transformer_course.checking.sequence_relations import ORDER_CHANGES, fitting_reorderings

from .common import is_tensor

_FIELDS = ("src", "decoder_input", "labels")
_KEYS_HINT = (
    'A batch is a tuple (src, decoder_input, labels) or a dict with exactly the keys "src", '
    '"decoder_input" and "labels" (the training loop reads them by these names).'
)
_NO_SHIFT = (
    "Your labels are the same as your decoder input. Then the token the model must predict "
    "at position t is the very token it reads at position t, which the look-ahead mask lets "
    "it see: it would learn to copy, not to translate. Shift by one: decoder_input = "
    "[<bos>] + target, labels = target + [<eos>], so that position t reads the tokens up to "
    "t and is asked for token t + 1."
)
_SWAPPED = (
    "Your decoder input and labels are swapped: decoder_input should start with <bos> "
    "(it is what the decoder reads, starting from <bos> as at translation time), and labels "
    "should end with <eos> (what it must predict, ending with the signal to stop)."
)
_EOS_AS_START = (
    "Your decoder input starts with <eos> instead of <bos>. Some models (BART, Marian) "
    "do start the decoder with <eos>, but this course's decoders, greedy_decode and "
    "beam_search, start from <bos> (bos_id): train the model the way it will be used."
)
_EOS_FED = (
    "<eos> is fed to the decoder as an input: your decoder input is [<bos>] + target + "
    "[<eos>]. <eos> is the last thing the model outputs; it never needs to read it, since "
    "nothing comes after it. That extra position has no label to predict (or a wrong one), "
    "and every batch carries a useless column. The decoder input is [<bos>] + target "
    "(one token shorter than target + <bos> + <eos>), the labels target + [<eos>]."
)
_NO_EOS_LABEL = (
    "Your labels have no <eos>: labels should be target + [<eos>]. Without <eos> among the "
    "labels the model never learns to stop, and at translation time it rambles on until "
    "max_len."
)
_NO_BOS = (
    "Your decoder input does not start with <bos>: it should be [<bos>] + target. At "
    "translation time the decoder starts from <bos> alone and predicts the first word from "
    "it; in training, the first position must read <bos> and be asked for the first word."
)
MINUS_100 = (
    "Your labels are padded with -100 (Hugging Face's 'ignore this label' value). In this "
    "course the loss skips labels equal to pad_id (label_smoothed_loss(..., pad_id) and "
    "F.cross_entropy(..., ignore_index=pad_id)); -100 is not a valid token id and would "
    "crash the loss. Pad labels with pad_id."
)
_SLICED_WITHOUT_EOS = (
    "Your decoder input is [<bos>] + target without the target's last token, and your labels "
    "the target without <eos>: what slicing [<bos>] + target into [:-1] and [1:] gives. "
    "The sequence to slice is [<bos>] + target + [<eos>]: decoder_input = [<bos>] + target "
    "(all of it), labels = target + [<eos>]; without <eos> the model never learns to stop."
)
_SHIFTED_TWICE = (
    "Your labels are shifted twice: they are target[1:] + [<eos>], so the first target token "
    "is never a label and position t is asked for the token after the next one. The "
    "decoder input already makes the shift ([<bos>] + target): the labels are the target "
    "itself plus <eos>, target + [<eos>]."
)
_PAD_AS_START = (
    "Every row of your decoder input starts with pad_id={pad} where <bos> (bos_id={bos}) "
    "belongs: decoder_input is [pad_id] + target, as T5 builds it (its "
    "decoder_start_token_id is its pad id). Here the first position is then a <pad>, which "
    "the target padding mask hides from every query (position 0 attends to nothing), and the "
    "model never reads <bos>, which greedy_decode and beam_search start from. Use "
    "[bos_id] + target."
)
_LEFT_PADDED = (
    "Your rows are padded on the left. Pad on the right (lesson 01's pad_batch does): "
    "the positional encoding gives the first word of every sentence position 0, and the "
    "decoder's teacher forcing lines up decoder_input[t] with labels[t] from the start."
)

_RAGGED_ROWS = (
    "A tensor (or array) was built from rows of different lengths: the rows of a batch "
    "were not padded to one length. torch.tensor needs every row as long as the longest, so pad each "
    "field's rows first, on the right with pad_id (lesson 01's pad_batch(rows, pad_id), "
    "then torch.from_numpy); a batch whose rows happen to have the same length hides this."
)

_ONE_PASS = (
    "it has no len() and no indexing, and a second pass over it finds nothing. The "
    "contract is a list of batches: this lesson's cells take make_batches(...)[0] (the "
    "example batch, the source tensor that translate builds), which raises TypeError "
    "here, and a loop that goes over the batches twice would see none the second time."
)

#: one-pass iterators a learner may return, by their type's name
_ITERATOR_TYPES = {
    "map",
    "filter",
    "zip",
    "chain",
    "islice",
    "list_iterator",
    "tuple_iterator",
    "range_iterator",
}


def _hardcoded(got: list[int], expected: list[int], ids: dict[str, int]) -> str:
    """A note when a row would be right with some of the course's default special ids."""
    defaults = {"pad_id": 0, "bos_id": 2, "eos_id": 3}
    differing = [name for name in ids if ids[name] != defaults[name]]
    for size in range(1, len(differing) + 1):
        for names in itertools.combinations(differing, size):
            swap = {ids[name]: defaults[name] for name in names}
            if [swap.get(t, t) for t in expected] == got:
                passed = ", ".join(f"{n}={ids[n]}" for n in names)
                role = {"pad_id": "padded with", "bos_id": "started with", "eos_id": "ended with"}
                written = "; ".join(
                    f"your rows are {role[n]} {defaults[n]} (written in) instead of {n}={ids[n]}"
                    for n in names
                )
                helper = (
                    " A padding helper left at its default pads with 0 too: "
                    "torch.nn.utils.rnn.pad_sequence(rows, batch_first=True) pads with "
                    "padding_value=0.0 unless it is given one (padding_value=pad_id)."
                    if "pad_id" in names
                    else ""
                )
                return (
                    f"It would be right with lesson 01's ids (<pad>=0, <bos>=2, <eos>=3), but "
                    f"this call passed {passed}: {written}. Use the arguments, not the "
                    f"constants.{helper}"
                )
    return ""


def _as_batches(
    c: Checker, got, what: str, sizes: list[int] | None = None
) -> list[tuple[torch.Tensor, ...]]:
    """The learner's batches as (src, decoder_input, labels) int64 tensors; ``sizes``: the
    number of pairs each batch should hold (to explain a tensor that lost an axis)."""
    if got is None:
        c.fail(f"{what} returned None. Did you forget the `return` statement?")
    if isinstance(got, dict) or (
        isinstance(got, tuple) and len(got) == 3 and all(is_tensor(x) for x in got)
    ):
        c.fail(
            f"{what} returned a single batch; it should return a list of batches (one per "
            "batch_size pairs), even when there is only one."
        )
    if is_tensor(got) or isinstance(got, np.ndarray | str):
        c.fail(f"{what} should return a list of batches, but it returned {short(got)}.")
    # (the sandboxed grader hands back what it cannot carry as an inert object named
    # after the learner's type: a generator or an iterator is told by that name there)
    if isinstance(got, types.GeneratorType) or type(got).__name__ == "generator":
        c.fail(
            f"{what} returned a generator (a function with `yield` returns one): the batches "
            f"may be right, but a generator can be iterated once; {_ONE_PASS} Return a list: "
            "append each batch to a list and return it (or return list(...) of the batches)."
        )
    if isinstance(got, Iterator) or type(got).__name__ in _ITERATOR_TYPES:
        c.fail(
            f"{what} returned an iterator, {short(got)}: it can be iterated once; "
            f"{_ONE_PASS} Return a list of the batches (list(...) around it)."
        )
    if not isinstance(got, Sequence):
        c.fail(f"{what} should return a list of batches, but it returned {short(got)}.")
    batches = list(got)
    out = []
    for number, batch in enumerate(batches):
        name = f"batch {number} of {what}"
        if isinstance(batch, dict):
            if set(batch) != set(_FIELDS):
                c.fail(f"{name} is a dict with the keys {sorted(batch)}. {_KEYS_HINT}")
            fields = [batch[key] for key in _FIELDS]
        elif isinstance(batch, tuple | list) and len(batch) == 3:
            fields = list(batch)
        else:
            c.fail(f"{name} is {short(batch, 120)}. {_KEYS_HINT}")
        converted = []
        narrow = []  # (field name, dtype): torch tensors of an integer dtype other than int64
        for field_name, value in zip(_FIELDS, fields):
            label = f"{field_name} of {name}"
            from_numpy = isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.integer)
            if from_numpy:
                value = torch.from_numpy(np.ascontiguousarray(value))
            elif isinstance(value, list):
                c.fail(
                    f"{label} is a list; make it a 2-D tensor padded with pad_id "
                    "(lesson 01's pad_batch, then torch.from_numpy or torch.tensor)."
                )
            if not is_tensor(value):
                c.fail(f"{label} should be a 2-D integer tensor, but it is {short(value)}.")
            if value.dtype.is_floating_point or value.dtype == torch.bool:
                c.fail(
                    f"{label} has dtype {value.dtype}; token ids are integers "
                    "(torch.int64: create it with dtype=torch.long)."
                )
            if value.dim() != 2:
                rows = sizes[number] if sizes and number < len(sizes) else None
                lost = (
                    " This batch holds one pair, so its batch axis has size 1, and .squeeze() "
                    "(or [0]) removes it; keep every tensor 2-D, (1, len), even then."
                    if value.dim() < 2 and rows == 1
                    else " An axis of size 1 (a row one token long?) was removed, by .squeeze() "
                    "say: keep every tensor 2-D, (batch, len)."
                    if value.dim() < 2 and value.numel() in (0, rows)
                    else ""
                )
                c.fail(
                    f"{label} should be 2-D (batch, len), but it has shape "
                    f"{tuple(value.shape)}.{lost}"
                )
            if value.dtype != torch.int64:
                if not from_numpy:
                    narrow.append((field_name, value.dtype))
                else:
                    c.note(
                        f"the fields are numpy {value.dtype} arrays; nn.Embedding and the "
                        "loss want int64 tensors (torch.long), which batch_fields converts to."
                    )
            converted.append(value.long())
        if narrow:
            _fail_narrow_dtypes(c, name, narrow)
        out.append(tuple(converted))
    c.ok()
    return out


def _fail_narrow_dtypes(c: Checker, name: str, narrow: list[tuple[str, torch.dtype]]) -> None:
    """Fails for torch tensors of an integer dtype other than int64 (blind21b-mb-int32-
    tensors): the docstring asks for torch.int64, and the loss refuses anything else as
    labels; ``narrow``: (field, dtype) of each such field of one batch."""
    by_dtype: dict[torch.dtype, list[str]] = {}
    for field_name, dtype in narrow:
        by_dtype.setdefault(dtype, []).append(field_name)
    parts = []
    for dtype, names in by_dtype.items():
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        parts.append(f"{listed} {'is' if len(names) == 1 else 'are'} {dtype}")
    if any(f == "labels" and dtype != torch.uint8 for f, dtype in narrow):
        breaks = (
            "The loss refuses such labels: F.cross_entropy(logits, labels) raises "
            '"expected target dtype to be Long or Byte, but got Int" (for int32), so '
            "training fails on the first batch"
        )
    elif any(dtype != torch.int32 for _, dtype in narrow):
        breaks = "nn.Embedding refuses such ids: it takes int64 (or int32) indices only"
    else:
        breaks = "The loss and the rest of the course read int64 ids"
    c.fail(
        f"In {name}, {'; '.join(parts)}: the docstring asks for torch.int64 (torch.long), "
        f"what nn.Embedding and the loss want. {breaks}. Build the tensors as int64: "
        "torch.tensor(rows, dtype=torch.long), or torch.from_numpy(...) of an int64 array, "
        "or .long() on the tensor; leave out the .int() (or the int32 dtype) that narrows "
        "them."
    )


def _rows(tensor: torch.Tensor) -> list[list[int]]:
    return tensor.tolist()


def _strip(row: list[int], pad_id: int) -> list[int]:
    end = len(row)
    while end and row[end - 1] == pad_id:
        end -= 1
    return row[:end]


def _src_form(row: list[int], source: list[int], bos: int, eos: int) -> str | None:
    forms = {"plain": source, "eos": [*source, eos], "bos+eos": [bos, *source, eos]}
    return next((name for name, form in forms.items() if row == form), None)


def _source_reordered(batches_and_chunks, ids: dict[str, int]) -> str:
    """The family 'the source's ids in another order': every src row of the batches
    (padding stripped) is one of the accepted forms of its source reordered the same way
    (reversed, sorted, rotated), said with every order change that fits all the rows (""
    when none does)."""
    pad, bos, eos = ids["pad_id"], ids["bos_id"], ids["eos_id"]
    rows, sources = [], []
    for batch, chunk in batches_and_chunks:
        src_rows = _rows(batch[0])
        if len(src_rows) != len(chunk):
            return ""
        rows += [_strip(row, pad) for row in src_rows]
        sources += [list(source) for source, _ in chunk]
    fitting = fitting_reorderings(rows, sources, lambda seq: [seq, [*seq, eos], [bos, *seq, eos]])
    if not fitting:
        return ""
    told = (
        fitting[0]
        if len(fitting) == 1
        else " or ".join(fitting) + " (these rows cannot tell them apart)"
    )
    return (
        f"Your src rows hold each source's ids {told}, on every row of the batches. A "
        "Transformer reads the source in its own order (the positional encoding gives each "
        "token its place): keep each source as it is, list(source), before padding."
        + (
            " Reversing the source was a trick of LSTM encoders; a Transformer does not need it."
            if fitting == [next(iter(ORDER_CHANGES))]
            else ""
        )
    )


def _marker_slip(row: list[int], source: list[int], ids: dict[str, int]) -> str:
    """The family 'the source's markers wrong': a row that is the source with special ids
    in front and at the end other than the three accepted forms, said as what is in front
    and at the end ("" when the row is not the source between special ids)."""
    names = {ids["bos_id"]: "<bos>", ids["eos_id"]: "<eos>", ids["pad_id"]: "<pad>"}
    for front in range(0, 3):
        for back in range(0, 3):
            if front + back == 0 or len(row) != front + len(source) + back:
                continue
            head, middle, tail = row[:front], row[front : len(row) - back], row[len(row) - back :]
            if middle != list(source) or not all(t in names for t in head + tail):
                continue

            def said(tokens):
                return " ".join(names[t] for t in tokens) or "nothing"

            return (
                f"Your source row is the source with {said(head)} in front and {said(tail)} at "
                "the end, which is not one of the three accepted forms: the source alone, "
                "source + [eos_id], or [bos_id] + source + [eos_id] (a <bos> in front comes "
                "with an <eos> at the end)."
            )
    return ""


def _markers_around(row: list[int], body: list[int], ids: dict[str, int]):
    """(in front, at the end): the special ids around ``body`` in ``row`` (at most two
    on each side), or None when the row is not ``body`` between special ids."""
    special = {ids["bos_id"], ids["eos_id"], ids["pad_id"]}
    for front in range(0, 3):
        back = len(row) - front - len(body)
        if not 0 <= back <= 2:
            continue
        head, middle, tail = row[:front], row[front : front + len(body)], row[front + len(body) :]
        if middle == list(body) and all(t in special for t in head + tail):
            return head, tail
    return None


def _markers_misplaced(d: list[int], lab: list[int], target: list[int], ids) -> str:
    """The family 'the markers of the decoder input or the labels misplaced': a row that
    is the target with special ids around it other than the right ones (<bos> in front
    for the decoder input, <eos> at the end for the labels), said as what is in front and
    at the end of each wrong row, with what that does to the shift ("" otherwise)."""
    bos, eos = ids["bos_id"], ids["eos_id"]
    names = {ids["bos_id"]: "<bos>", ids["eos_id"]: "<eos>", ids["pad_id"]: "<pad>"}

    def said(tokens) -> str:
        return " ".join(names[t] for t in tokens) or "nothing"

    rows = {
        "decoder_input": (d, [bos], [], "[bos_id, *target]: <bos> in front, nothing at the end"),
        "labels": (lab, [], [eos], "[*target, eos_id]: the target, then <eos> at the end"),
    }
    found = []
    for name, (row, want_head, want_tail, right) in rows.items():
        around = _markers_around(row, target, ids)
        if around is None or around == (want_head, want_tail):
            continue
        head, tail = around
        found.append(
            f"your {name} row is the target with {said(head)} in front and {said(tail)} at "
            f"the end; it should be {right}"
        )
    if not found or len(found) < sum(row != [*h, *target, *t] for row, h, t, _ in rows.values()):
        return ""  # a row that is not the target between markers: something else
    text = "; and ".join(found)
    text = text[0].upper() + text[1:] + "."
    if d == [bos, *target] and len(lab) == len(target) + 1 and lab[1:] == list(target):
        text += (
            f" With {said(lab[:1])} in front of the labels, each label is the token the "
            "decoder reads at that same position (the labels are not shifted against the "
            "input), and the last label is the target's last word instead of <eos>: label "
            "t must be the token AFTER input t, so the model learns to predict the next word."
        )
    return text


def _sequence_first(batch, chunk, ids: dict[str, int]) -> bool:
    """Whether the batch's tensors, transposed, are exactly the expected rows (decoder
    input and labels; the source in one of its accepted forms) while they are not already."""
    pad, bos, eos = ids["pad_id"], ids["bos_id"], ids["eos_id"]
    if any(t.dim() != 2 or t.shape[1] != len(chunk) for t in batch):
        return False
    if all(t.shape[0] == len(chunk) for t in batch) and all(
        _strip(_rows(batch[2])[i], pad) == [*target, eos] for i, (_, target) in enumerate(chunk)
    ):
        return False  # square, and already right as it is
    src, decoder_input, labels = (_rows(t.T) for t in batch)
    return all(
        _strip(decoder_input[i], pad) == [bos, *target]
        and _strip(labels[i], pad) == [*target, eos]
        and _src_form(_strip(src[i], pad), list(source), bos, eos) is not None
        for i, (source, target) in enumerate(chunk)
    )


def _rolled(decoder_input, labels, chunk, ids: dict[str, int]) -> str:
    """The family 'one tensor is the other rolled': labels made from the padded decoder
    input by a circular shift (torch.roll(decoder_input, -1, dims=1)), or the decoder input
    from the padded labels (torch.roll(labels, 1, dims=1)). The two give the same relation
    between the tensors; the one that is right (its rows as the targets give them) tells
    which was rolled, and when neither is, both readings are named. Told on the whole
    batch, every row; "" otherwise."""
    d_rows, l_rows = _rows(decoder_input), _rows(labels)  # (rows, width) each
    if not d_rows or len(d_rows) != len(l_rows) or any(len(r) < 2 for r in d_rows):
        return ""
    if any(len(a) != len(b) for a, b in zip(d_rows, l_rows)):
        return ""
    if not all(d == lab[-1:] + lab[:-1] for d, lab in zip(d_rows, l_rows)):
        return ""
    bos, eos, pad = ids["bos_id"], ids["eos_id"], ids["pad_id"]
    targets = [list(target) for _, target in chunk]
    d_right = [_strip(d, pad) for d in d_rows] == [[bos, *t] for t in targets]
    l_right = [_strip(lab, pad) for lab in l_rows] == [[*t, eos] for t in targets]
    if d_right == l_right:
        return (
            "Each row of your labels is the same row of your decoder input rolled one step "
            "to the left, with the end wrapped around to the front (torch.roll), and neither "
            "is right: a roll brings the last column round instead of adding <bos> or "
            "<eos>. Build both from each target, decoder_input = [bos_id, *target] and "
            f"labels = [*target, eos_id], padded with pad_id={pad}."
        )
    if d_right:
        return (
            "Your labels are the padded decoder input rolled one step to the left "
            "(torch.roll(decoder_input, -1, dims=1)): a roll wraps around, so the first "
            f"column, <bos> ({bos}), comes back as the last column of every row's labels, "
            f"after the padding of the shorter rows, and no row's labels end with <eos> "
            f"({eos}). Build the labels from each target, [*target, eos_id], padded with "
            f"pad_id={pad} (or shift without wrapping: append the <eos> column before the "
            "shift and cut one column, not torch.roll)."
        )
    return (
        "Your decoder input is the padded labels rolled one step to the right "
        "(torch.roll(labels, 1, dims=1)): a roll wraps around, so each row's last "
        f"column (<eos> ({eos}) for the longest rows, pad_id={pad} for the others) comes "
        f"back as the first column, where <bos> ({bos}) belongs. Build the decoder "
        "input from each target, [bos_id, *target], padded with pad_id (or shift "
        "without wrapping, not torch.roll)."
    )


def _cut_rows(every, ids: dict[str, int]) -> str:
    """Rows cut to one maximum length (the family 'sizes capped': target[:max_len],
    source[:max_len], or the finished rows cut to max_len positions), read over every row
    of the call's batches (``every``: (batch, chunk) pairs); "" when no single length
    explains every row, or no row was cut."""
    pad, bos, eos = ids["pad_id"], ids["bos_id"], ids["eos_id"]
    rows = []  # (source, target, src row, decoder_input row, labels row), pads stripped
    for batch, chunk in every:
        fields = [_rows(tensor) for tensor in batch[:3]]
        if any(len(field) != len(chunk) for field in fields):
            return ""
        for i, (source, target) in enumerate(chunk):
            s, d, lab = (_strip(field[i], pad) for field in fields)
            rows.append((list(source), list(target), s, d, lab))
    if not rows:
        return ""

    def cut(length: int, body: list[int]) -> list[int]:
        return body[:length]

    notes = []
    longest_target = max(len(lab) - 1 for *_, lab in rows)
    if longest_target >= 1 and any(len(t) > longest_target for _, t, *_ in rows):
        if all(
            d == [bos, *cut(longest_target, t)] and lab == [*cut(longest_target, t), eos]
            for _, t, _, d, lab in rows
        ):
            notes.append(
                f"every target longer than {longest_target} tokens keeps only its first "
                f"{longest_target} (target[:{longest_target}]), then <bos> and <eos> are added"
            )
    width = max(len(d) for *_, d, _ in rows)
    # some rows cut and some shorter ones whole: a slice applied to every row (such as
    # [:-1]) cuts the short rows too, so it cannot give these
    if any(len(t) + 1 > width for _, t, *_ in rows) and any(
        len(t) + 1 < width for _, t, *_ in rows
    ):
        if all(
            d == cut(width, [bos, *t]) and lab == cut(width, [*t, eos]) for _, t, _, d, lab in rows
        ):
            notes.append(
                f"decoder_input and labels are cut to {width} positions after <bos> and <eos> "
                "were added, so a long row loses its last tokens and its <eos> label (the "
                "model never learns to stop there)"
            )
    longest_source = max(len(s) for _, _, s, _, _ in rows)
    if longest_source >= 1 and any(len(src) > longest_source for src, *_ in rows):
        forms = (lambda x: x, lambda x: [*x, eos], lambda x: [bos, *x, eos])
        if any(
            all(s == cut(longest_source, form(src)) for src, _, s, _, _ in rows) for form in forms
        ):
            notes.append(
                f"every source longer than {longest_source} ids is cut to {longest_source}"
            )
    if not notes:
        return ""
    return (
        "Your rows are cut short to a maximum length: "
        + "; and ".join(notes)
        + ". make_batches keeps every token of every pair: no maximum length is applied "
        "(truncating a pair changes what the model is taught); each row is padded to the "
        "longest row of its batch instead."
    )


def _length_filter(pairs, missing: list[int] | None) -> str:
    """When the pairs missing are exactly the long ones (a source or target longer than
    the lesson model's max_len, 32, while every pair kept is shorter than all of them): a
    filter on the length, the sibling of rows cut to a maximum length; "" otherwise."""
    if not missing:
        return ""

    def longest(i: int) -> int:
        return max(len(pairs[i][0]), len(pairs[i][1]))

    kept = [i for i in range(len(pairs)) if i not in missing]
    shortest_missing = min(longest(i) for i in missing)
    if not kept or shortest_missing <= 32 or shortest_missing <= max(map(longest, kept)):
        return ""
    lengths = ", ".join(f"pair {i}: {len(pairs[i][0])} and {len(pairs[i][1])}" for i in missing)
    return (
        f"the pairs {missing} (counting from 0) are in no batch, and they are exactly the "
        f"long ones (source and target lengths {lengths}; every pair kept has at most "
        f"{max(map(longest, kept))} ids on each side): your code leaves out the pairs longer "
        "than a maximum length (a filter such as `if len(source) <= max_len`). make_batches "
        "uses every pair, however long: no maximum length is applied."
    )


def _shapes_fit(every) -> bool:
    """Whether every batch holds three 2-D fields with one row per pair."""
    return all(
        len(batch) >= 3
        and all(isinstance(t, torch.Tensor) and t.dim() == 2 for t in batch[:3])
        and all(t.shape[0] == len(chunk) for t in batch[:3])
        for batch, chunk in every
    )


def _long_rows(every, ids: dict[str, int]) -> str:
    """What the rows made of the pairs with the longest source and target hold (pads
    stripped), for a message about rows cut to a maximum length: the sides that lost ids."""
    pad = ids["pad_id"]
    said = []
    for side, field, name, extra in ((0, 0, "src", 0), (1, 2, "labels", 1)):
        length, number, row = max(
            (len(chunk[i][side]), number, i)
            for number, (_, chunk) in enumerate(every)
            for i in range(len(chunk))
        )
        held = len(_strip(_rows(every[number][0][field])[row], pad))
        if held < length + extra:
            what = "source" if side == 0 else "target"
            whole = f"{length} ids" if side == 0 else f"{length} + <eos> = {length + 1} ids"
            said.append(
                f"the pair with the longest {what} ({length} ids; batch {number}, row {row}) "
                f"gets a {name} row of {held} ids, not {whole}"
            )
    return "; ".join(said) or "some rows are shorter than their pairs"


def _leading_pads(batch, chunk, ids: dict[str, int]) -> str:
    """For rows that start with pad_id: what the field's rows are, read against the tokens
    they should hold (checking.padded_rows): padded on the left (the right tokens moved
    to the end), the first token replaced by pad_id (T5's decoder start), or a pad put in
    front; "" when no field's rows start with pad_id or no single reading fits them all
    (then the row checks below say what differs)."""
    pad, bos, eos = ids["pad_id"], ids["bos_id"], ids["eos_id"]
    sources = [list(s) for s, _ in chunk]
    targets = [list(t) for _, t in chunk]
    fields = {
        "src": [
            ("", sources),
            ("", [[*s, eos] for s in sources]),
            ("", [[bos, *s, eos] for s in sources]),
        ],
        "decoder_input": [("<bos> (bos_id", [[bos, *t] for t in targets])],
        "labels": [("the first target token (", [[*t, eos] for t in targets])],
    }
    for name, tensor in zip(_FIELDS, batch):
        rows = _rows(tensor)
        if len(rows) != len(chunk):
            return ""
        starts = [i for i, r in enumerate(rows) if r and r[0] == pad and any(t != pad for t in r)]
        if not starts:
            continue
        i = starts[0]
        shown = f"row {i} of {name} is {rows[i]}"
        for first, tokens in fields[name]:
            readings = leading_pad_readings(rows, tokens, pad)
            if readings == [LEFT]:
                return f"{shown}. {_LEFT_PADDED}"
            if readings == [START_REPLACED] and name == "decoder_input":
                return f"{shown}. {_PAD_AS_START.format(pad=pad, bos=bos)}"
            if readings == [START_REPLACED] and name != "src":
                return (
                    f"{shown}: the first position of every row holds pad_id={pad}, where "
                    f"{first}{tokens[i][0]} here) belongs, and the rest of the row is right. "
                    f"{name} is {'target + [<eos>]' if name == 'labels' else 'the source'}, "
                    "padded on the right; nothing replaces its first token."
                )
            if readings == [PAD_IN_FRONT]:
                return (
                    f"{shown}: every row of {name} has one pad_id={pad} put in front of its "
                    f"tokens ({tokens[i]} here), and is then padded on the right. Nothing "
                    "goes before a row's first token: the padding goes at the end only."
                )
            if sorted(readings) == sorted([LEFT, PAD_IN_FRONT]):
                return (
                    f"{shown}: the rows hold their tokens after one pad_id={pad} (these rows "
                    "cannot tell whether they were padded on the left or had a pad put in "
                    f"front). {_LEFT_PADDED}"
                )
    return ""


def _check_rows(
    c: Checker, batch, chunk, ids: dict[str, int], what: str, src_forms: set, every=None
):
    """One batch against its pairs, row by row, with a diagnosis for each known mistake;
    ``every``: (batch, chunk) for every batch of the call, where a diagnosis reads them all
    (None: this batch alone)."""
    pad, bos, eos = ids["pad_id"], ids["bos_id"], ids["eos_id"]
    src, decoder_input, labels = batch
    if _sequence_first(batch, chunk, ids):
        shapes = ", ".join(f"{name} {tuple(t.shape)}" for name, t in zip(_FIELDS, batch))
        c.fail(
            f"the tensors of {what} are transposed ({shapes}): they are sequence-first, "
            "(len, batch), nn.Transformer's batch_first=False layout, and their columns are "
            "the right rows. This course's model is batch-first: (batch, len), one row per "
            "pair; return them without the transpose."
        )
    for field_name, tensor in zip(_FIELDS, batch):
        if tensor.shape[0] != len(chunk):
            c.fail(
                f"{field_name} of {what} has {tensor.shape[0]} rows, but the batch should "
                f"hold {len(chunk)} pairs (one row per pair)."
            )
    if (labels == -100).any():
        c.fail(f"{what}: {MINUS_100}")
    width = max(len(target) for _, target in chunk) + 1
    rolled = _rolled(decoder_input, labels, chunk, ids)  # before the left padding it can look like
    if rolled:
        source, target = chunk[0]
        c.fail(
            f"in {what}, for the pair (source {list(source)}, target {list(target)}), row 0 "
            f"has decoder_input {_rows(decoder_input)[0]} and labels {_rows(labels)[0]}. "
            f"{rolled}"
        )
    leading = _leading_pads(batch, chunk, ids)
    if leading:
        c.fail(f"in {what}, {leading}")
    for i, (source, target) in enumerate(chunk):
        d_raw, l_raw, s_raw = _rows(decoder_input)[i], _rows(labels)[i], _rows(src)[i]
        d, lab, s = _strip(d_raw, pad), _strip(l_raw, pad), _strip(s_raw, pad)
        want_d, want_l = [bos, *target], [*target, eos]
        shown = f"for the pair (source {list(source)}, target {list(target)})"
        form = _src_form(s, list(source), bos, eos)
        swapped = (
            list(source) != list(target)
            and _src_form(s, list(target), bos, eos) is not None
            and lab == [*source, eos]
        )
        if form is None and swapped:  # round 18, blind15a-mb-pairs-unpacked-target-first
            c.fail(
                f"in {what}, src row {i} is {s_raw} and labels row {i} is {l_raw} {shown}: "
                "src holds the target ids and labels (and decoder_input) are built from the "
                "source: source and target are swapped, each pair unpacked as (target, "
                "source). A pair is (source ids, target ids): `for source, target in pairs` "
                "(the model reads the source and learns to write the target)."
            )
        if form is None:
            hint = (
                _cut_rows(every or [(batch, chunk)], ids)
                or _hardcoded(s_raw[: len(s)], s, ids)
                or _hardcoded(s_raw, s_raw, ids)
                or _marker_slip(s, list(source), ids)
                or _source_reordered(every or [(batch, chunk)], ids)
            )
            c.fail(
                f"in {what}, src row {i} is {s_raw} {shown}. It should hold the source ids, "
                f"padded with pad_id={pad} on the right: {list(source)}, or with markers, "
                f"{[*source, eos]} or {[bos, *source, eos]}. {hint}".strip()
            )
        src_forms.add(form)
        if len(src_forms) > 1:
            c.fail(
                f"in {what}, some source rows carry <bos>/<eos> markers and others do not "
                f"({sorted(src_forms)}): pick one form and use it for every row."
            )
        annotated = d == [*want_d, eos] and len(want_d) < width  # eos where the label is pad
        if lab == want_l and (d == want_d or annotated):
            continue
        pair = f"{shown}, row {i} has decoder_input {d_raw} and labels {l_raw}"
        cut_note = _cut_rows(every or [(batch, chunk)], ids)  # read over every row
        if cut_note:
            c.fail(f"in {what}, {pair}. {cut_note}")
        if d == lab:
            c.fail(f"in {what}, {pair}. {_NO_SHIFT}")
        # the swap as the sliced form writes it too: [bos] + target + [eos] padded, then
        # [:, 1:] taken as the decoder input and [:, :-1] as the labels
        if d == want_l and (lab == want_d or (lab == [*want_d, eos] and len(want_d) < width)):
            c.fail(f"in {what}, {pair}. {_SWAPPED}")
        if d and d[0] == eos and d[1:] == target:
            c.fail(f"in {what}, {pair}. {_EOS_AS_START}")
        if d == [*want_d, eos]:
            c.fail(f"in {what}, {pair}. {_EOS_FED}")
        if d == want_d and lab == list(target):
            c.fail(f"in {what}, {pair}. {_NO_EOS_LABEL}")
        if d == want_d and target and lab == [*target[1:], eos]:
            c.fail(f"in {what}, {pair}. {_SHIFTED_TWICE}")
        if d in (list(target), [*target, eos]):
            c.fail(f"in {what}, {pair}. {_NO_BOS}")
        if target and d == [bos, *target[:-1]] and lab == list(target):
            c.fail(f"in {what}, {pair}. {_SLICED_WITHOUT_EOS}")
        tail = l_raw[len(want_l) :]
        if d == want_d and l_raw[: len(want_l)] == want_l and tail and len(set(tail)) == 1:
            c.fail(
                f"in {what}, {pair}. The padding of the labels is {tail[0]}"
                f"{' (eos_id)' if tail[0] == eos else ''}, not pad_id={pad}: the loss leaves "
                "out only the positions whose label is pad_id, so every padded position would "
                "be trained to predict that token. Pad the labels with pad_id, "
                "pad_batch(rows, pad_id)."
                + (
                    " (0 is what torch.nn.utils.rnn.pad_sequence pads with when it is given "
                    "no padding_value: pass padding_value=pad_id for every field.)"
                    if tail[0] == 0 and tail[0] not in (eos, bos)
                    else ""
                )
            )
        n = len(target)
        if (
            d == want_d
            and len(l_raw) > n + 1
            and l_raw[:n] == list(target)
            and l_raw[-1] == eos
            and all(t == pad for t in l_raw[n:-1])
        ):
            c.fail(
                f"in {what}, {pair}. The <eos> of the labels comes after the padding, in the "
                "last column, instead of right after the row's last token: an <eos> column "
                "was added to the padded targets. Append eos_id to each target first, "
                "[*target, eos_id], then pad the rows."
            )
        misplaced = _markers_misplaced(d, lab, list(target), ids)
        if misplaced:
            c.fail(f"in {what}, {pair}. {misplaced}")
        hint = _hardcoded(d_raw, [*want_d, *[pad] * (len(d_raw) - len(want_d))], ids)
        hint = hint or _hardcoded(l_raw, [*want_l, *[pad] * (len(l_raw) - len(want_l))], ids)
        c.fail(
            f"in {what}, {pair}; expected decoder_input {want_d} and labels {want_l} "
            f"(then pad_id={pad} up to the batch's longest row). {hint}".strip()
        )
    if decoder_input.shape != labels.shape:
        c.fail(
            f"in {what}, decoder_input has shape {tuple(decoder_input.shape)} and labels "
            f"{tuple(labels.shape)}: they must have the same shape, because labels[:, t] is "
            "what the decoder should predict after reading decoder_input[:, :t + 1]."
        )
    c.ok()


def _note_extra_widths(c: Checker, batches, ids: dict[str, int], what: str) -> None:
    """A note when a tensor is wider than the longest row of its own batch (its rows as the
    learner formed them, markers included), which the docstring asks for: extra columns of
    padding are harmless for the loss (accepted), but cost time. The note says what the
    width is: the longest row over all the batches (one width fixed for the whole data
    set), or one fixed number."""
    pad = ids["pad_id"]
    widths = []  # (batch number, field, width, longest row of its batch)
    for number, batch in enumerate(batches):
        for name, tensor in zip(_FIELDS, batch):
            rows = _rows(tensor)  # (rows, width)
            if rows:
                longest = max(len(_strip(row, pad)) for row in rows)
                widths.append((number, name, len(rows[0]), longest))
    wide = [w for w in widths if w[2] > w[3]]
    if not wide:
        return
    number, name, width, longest = wide[0]
    head = (
        f"in batch {number} of {what}, {name} has {width} columns while the longest row of "
        f"that batch holds {longest} tokens: {width - longest} column(s) of padding only."
    )
    why = ""
    for field in _FIELDS:
        field_widths = {w for _n, f, w, _most in widths if f == field}
        overall = max((most for _n, f, _w, most in widths if f == field), default=0)
        if len(field_widths) != 1 or sum(1 for w in widths if w[1] == field) < 2:
            continue
        fixed = field_widths.pop()
        if fixed == overall:
            why = (
                f" Every batch's {field} has the same width, {fixed}, the longest {field} row "
                "over all the pairs: every batch is padded to the longest row of the whole "
                "data set (one maximum length computed once, as padding='max_length' does)."
            )
        elif fixed > overall:
            why = f" Every batch's {field} has the same width, {fixed}: a fixed length."
        break
    c.note(
        f"{head}{why} That works (the loss leaves out the padded positions), but the "
        "docstring asks for each batch padded to the longest row of its own batch: compute "
        "the width from the batch's rows, inside the loop, so no batch carries columns of "
        "padding only."
    )


def _visible_batch_cases():
    standard = {"pad_id": 0, "bos_id": 2, "eos_id": 3}
    pairs = [
        ([4, 5, 6], [7, 8]),
        ([9], [10, 11, 12]),
        ([5, 6], [8]),
        ([4, 4, 9, 5], [7, 12]),
        ([6], [9, 10]),
    ]
    # Unusual special ids; 0, 2 and 3 are ordinary tokens here.
    unusual = {"pad_id": 9, "bos_id": 7, "eos_id": 8}
    pairs_unusual = [([0, 2, 3, 1], [3, 0]), ([5], [2, 1, 4, 0]), ([1, 1], [6])]
    return [(pairs, 2, standard), (pairs_unusual, 3, unusual), (_long_pairs(40, 36), 2, standard)]


def _long_pairs(source_len: int, target_len: int) -> list:
    """Pairs of which one has a source of ``source_len`` ids and another a target of
    ``target_len`` tokens, longer than the lesson model's max_len (32), among short ones:
    rows cut to a maximum length (source[:32], target[:31], blind30b-mb-truncates-to-model-
    max-len) change only these. Ids 4..19: none is pad (0), <bos> (2) or <eos> (3)."""

    def ids(length: int, step: int) -> list[int]:
        return [4 + (step * k + length) % 16 for k in range(length)]

    return [
        (ids(source_len, 5), [7, 8, 9]),
        ([5, 6], ids(target_len, 7)),
        ([9, 4, 11], [10]),
    ]


_STANDARD_IDS = {"pad_id": 0, "bos_id": 2, "eos_id": 3}


def _random_pairs(rng: np.random.Generator, n: int, ids: dict[str, int], max_len: int = 9):
    ordinary = [t for t in range(20) if t not in ids.values()]

    def sentence():
        return [int(t) for t in rng.choice(ordinary, size=int(rng.integers(1, max_len + 1)))]

    pairs, seen = [], set()
    while len(pairs) < n:
        pair = (sentence(), sentence())
        key = (tuple(pair[0]), tuple(pair[1]))
        if key not in seen:
            seen.add(key)
            pairs.append(pair)
    return pairs


def _hidden_batch_cases():
    rng = numpy_rng(1001)
    cases = []
    for n, batch_size, ids in (
        (37, 8, {"pad_id": 0, "bos_id": 2, "eos_id": 3}),
        (12, 5, {"pad_id": 4, "bos_id": 11, "eos_id": 1}),
        (6, 10, {"pad_id": 0, "bos_id": 2, "eos_id": 3}),  # one batch, smaller than batch_size
        (5, 1, {"pad_id": 3, "bos_id": 0, "eos_id": 2}),
    ):
        cases.append((_random_pairs(rng, n, ids), batch_size, ids))
    # a pair beyond any usual maximum length (32, 50, 64): kept whole
    long_pairs = _long_pairs(75, 70)
    cases.append(([*long_pairs[:2], *_random_pairs(rng, 4, _STANDARD_IDS)], 3, _STANDARD_IDS))
    return cases


def _expect_batches(c, make_batches, pairs, batch_size, ids, src_forms, **extra):
    arguments = ", ".join(f"{k}={v}" for k, v in {**ids, **extra}.items())
    what = f"make_batches(pairs, batch_size={batch_size}, {arguments})"
    got = c.call(
        make_batches,
        pairs,
        batch_size,
        call_repr=what,
        hints={
            "expected sequence of length": _RAGGED_ROWS,
            "inhomogeneous shape": _RAGGED_ROWS,
        },
        mutation_hint="Build new lists ([bos_id, *target], [*target, eos_id]) instead of "
        "calling .append/.insert on the targets you were given.",
        **ids,
        **extra,
    )
    sizes = [min(batch_size, len(pairs) - start) for start in range(0, len(pairs), batch_size)]
    return _as_batches(c, got, what, sizes), what


def _check_order_free(c, batches, pairs, batch_size, ids, what, src_forms) -> list[int]:
    """Shuffled batches: every pair exactly once, each row right; returns the pair order."""
    lookup = {(tuple(s), tuple(t)): i for i, (s, t) in enumerate(pairs)}
    order = []
    pad, eos = ids["pad_id"], ids["eos_id"]
    sizes = [batch[0].shape[0] for batch in batches]
    for number, batch in enumerate(batches):
        chunk = []
        for row in range(batch[0].shape[0]):
            labels = _strip(_rows(batch[2])[row], pad)
            target = tuple(labels[:-1]) if labels and labels[-1] == eos else None
            source = _strip(_rows(batch[0])[row], pad)
            for candidate in (source, source[:-1], source[1:-1]):
                if (tuple(candidate), target) in lookup:
                    index = lookup[(tuple(candidate), target)]
                    break
            else:
                # a source of one pair with the target of another: the pairs broken up
                sources = {tuple(s): i for i, (s, _) in enumerate(pairs)}
                targets = {tuple(t): i for i, (_, t) in enumerate(pairs)}
                i = next(
                    (
                        sources[tuple(x)]
                        for x in (source, source[:-1], source[1:-1])
                        if tuple(x) in sources
                    ),
                    None,
                )
                j = targets.get(target) if target is not None else None
                full = list(pairs[i][1]) if i is not None else []
                if (
                    target is not None
                    and len(target) < len(full)
                    and full[: len(target)] == list(target)
                ):
                    c.fail(
                        f"{what}: row {row} of batch {number} holds the source of pair {i} "
                        f"({list(pairs[i][0])}) with its target cut short: labels {labels} "
                        f"for the target {full} ({len(full)} tokens, of which your row keeps "
                        f"the first {len(target)}). Your rows are cut to a maximum length "
                        "(target[:max_len]), which the short pairs of the unshuffled cases "
                        "never reach. make_batches keeps every token of every pair: no "
                        "maximum length is applied; each row is padded to the longest row of "
                        "its batch instead."
                    )
                if i is not None and j is not None and i != j:
                    c.fail(
                        f"{what}: row {row} of batch {number} holds the source of pair {i} "
                        f"({list(pairs[i][0])}) with the target of pair {j} "
                        f"({list(pairs[j][1])}): the pairs were broken up. Your sources and "
                        "targets were put in different orders (two shuffles, or two "
                        "permutations drawn one after the other from the generator); "
                        "shuffle one list of indices (or of pairs) and take each row's "
                        "source and target from the same pair."
                    )
                c.fail(
                    f"{what}: row {row} of batch {number} (src {source}, labels {labels}) "
                    "is not one of the pairs, in any of the accepted forms. Check the "
                    "batches with shuffle=False first."
                )
            order.append(index)
            chunk.append(pairs[index])
        _check_rows(c, batch, chunk, ids, f"batch {number} of {what}", src_forms)
    _note_extra_widths(c, batches, ids, what)
    if sorted(order) != list(range(len(pairs))):
        missing = len(set(range(len(pairs))) - set(order))
        c.fail(
            f"{what}: with shuffle=True every pair must be used exactly once; "
            f"{missing} pair(s) are missing and {len(order) - len(set(order))} repeated. "
            "Shuffle a list of indices (or a copy of the pairs), then cut it into batches."
        )
    full = len(pairs) // batch_size
    expected = [batch_size] * full + ([len(pairs) % batch_size] if len(pairs) % batch_size else [])
    if sorted(sizes, reverse=True) != expected:
        cut = size_rule(sizes, len(pairs), batch_size)
        c.fail(
            f"{what}: the batches hold {sizes} pairs; every batch should hold batch_size="
            f"{batch_size} pairs, except one smaller batch for the rest."
            + (f" Your sizes are what this cut gives: {cut}." if cut else "")
        )
    c.ok()
    return order


def _count(missing: list[int]) -> str:
    return "pair is" if len(missing) == 1 else f"{len(missing)} pairs are"


def _missing_pairs(batches, pairs, ids: dict[str, int]) -> list[int] | None:
    """The indices of the pairs whose labels row is in no batch, when every row the batches
    hold is one of the pairs' (None otherwise: then which pairs are there is not known)."""
    pad, eos = ids["pad_id"], ids["eos_id"]
    left = {}
    for i, (_, target) in enumerate(pairs):
        left.setdefault(tuple([*target, eos]), []).append(i)
    for batch in batches:
        if batch[2].dim() != 2:
            return None
        for row in _rows(batch[2]):
            found = left.get(tuple(_strip(row, pad)))
            if not found:
                return None
            found.pop(0)
    return sorted(i for indices in left.values() for i in indices)


def _contents(batches, pairs, ids: dict[str, int]) -> list[list[int]] | None:
    """The index of the pair behind each row of each batch (by its labels), or None when
    a row matches no pair or a batch is not 2-D."""
    eos, pad = ids["eos_id"], ids["pad_id"]
    where: dict[tuple, list[int]] = {}
    for i, (_, target) in enumerate(pairs):
        where.setdefault(tuple([*target, eos]), []).append(i)
    out = []
    for batch in batches:
        if batch[2].dim() != 2:
            return None
        rows = []
        for row in _rows(batch[2]):
            found = where.get(tuple(_strip(row, pad)))
            if not found:
                return None
            rows.append(next((i for i in found if i not in rows), found[0]))
        out.append(rows)
    return out


#: the end of each batch's slice pairs[start : end], as a learner might slip on it
_SLICE_ENDS = {
    "start + batch_size + 1": lambda start, size: start + size + 1,
    "start + batch_size - 1": lambda start, size: start + size - 1,
    "start - batch_size": lambda start, size: start - size,
    "batch_size": lambda start, size: size,
}


def _slice_end(contents: list[list[int]] | None, count: int, batch_size: int) -> str:
    """When the batches are pairs[start : end] for start in range(0, count, batch_size)
    with another end than start + batch_size, that end named; "" otherwise."""
    if contents is None:
        return ""
    order = list(range(count))
    if contents == [order[s : s + batch_size] for s in range(0, count, batch_size)]:
        return ""
    for text, end in _SLICE_ENDS.items():
        if contents == [order[s : end(s, batch_size)] for s in range(0, count, batch_size)]:
            sizes = [len(batch) for batch in contents]
            negative = (
                " (a negative end counts from the end of the list)"
                if text == "start - batch_size"
                else ""
            )
            return (
                f"Your batches hold {sizes} pairs: each is pairs[start : {text}]{negative}, "
                f"not pairs[start : start + batch_size]"
                + (
                    ", so neighbouring batches overlap (the first pair of each batch ends "
                    "the one before too)"
                    if text.endswith("+ 1")
                    else ""
                )
                + ". Batch k holds pairs[k * batch_size : (k + 1) * batch_size]."
            )
    return ""


def _batch_size_as_count(contents, n: int, batch_size: int) -> str:
    """The family 'batch_size read as the number of batches': the pairs, in order, cut
    into batch_size pieces instead of pieces of batch_size pairs, as np.array_split(order,
    batch_size) (sizes differing by at most 1, the larger first), torch.chunk /
    np.array_split's cousin with pieces of ceil(n / batch_size), or a step of n //
    batch_size. Named when the learner's batches are exactly one of them and differ from
    the contract's; "" otherwise."""
    if not contents or n == 0:
        return ""
    right = [list(range(i, min(i + batch_size, n))) for i in range(0, n, batch_size)]
    if contents == right:
        return ""
    order = np.arange(n)
    found = []
    split = [piece.tolist() for piece in np.array_split(order, batch_size)]
    if contents in (split, [p for p in split if p]):
        found.append(
            f"np.array_split(order, {batch_size}) cuts the pairs into {batch_size} pieces of "
            "about len(pairs) / batch_size (its second argument is the number of pieces, "
            "not their size)"
        )
    size = -(-n // batch_size)  # ceil(n / batch_size)
    chunks = [list(range(i, min(i + size, n))) for i in range(0, n, size)]
    if contents == chunks:
        found.append(
            f"torch.chunk(order, {batch_size}) (or a step of ceil(len(pairs) / batch_size)) "
            f"cuts the pairs into at most {batch_size} pieces of {size} (its second argument "
            "is the number of chunks, not their size)"
        )
    step = n // batch_size
    if step > 0:
        stepped = [list(range(i, min(i + step, n))) for i in range(0, n, step)]
        if contents == stepped:
            found.append(
                f"a step of len(pairs) // batch_size = {step} cuts the pairs into pieces of "
                f"{step}, about batch_size pieces"
            )
    if not found:
        return ""
    return (
        f"Your batches are the pairs cut into batch_size = {batch_size} pieces, not into "
        f"pieces of batch_size pairs: {'; or '.join(found)}"
        + (" (these agree here)" if len(found) > 1 else "")
        + ". batch_size is the number of pairs in each "
        "batch: batch k holds pairs[k * batch_size : (k + 1) * batch_size] (range(0, "
        "len(pairs), batch_size) gives the starts), and the last batch holds the rest."
    )


def _right_in_one_batch(c: Checker, make_batches, pairs, ids: dict[str, int]) -> bool:
    """Whether make_batches(pairs[:2], batch_size=3) gives the one right batch (a probe:
    a loop that ends after its first batch is right there, a loop over the wrong starts
    is not)."""
    few, what = pairs[:2], f"make_batches(pairs[:2], batch_size=3, {ids}, shuffle=False)"
    try:
        got = c.call(make_batches, few, 3, call_repr=what, shuffle=False, **ids)
        batches = _as_batches(c, got, what, [len(few)])
    except CheckFailure:
        return False
    return len(batches) == 1 and _contents(batches, few, ids) == [[0, 1]]


def _expect_shuffle_read(c, make_batches, pairs, batch_size, ids, contents, what) -> None:
    """shuffle=False gave the right pairs in another order: when the same call with
    shuffle=True (the same default seed) gives that very order, and another seed another
    one (a sort by length is the same for every seed), the permutation is drawn whatever
    shuffle says (round 18, blind15a-mb-shuffles-when-not-asked); otherwise
    nothing is said here."""
    if contents is None:
        return
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            shuffled = make_batches(pairs, batch_size, **ids, shuffle=True)
            reseeded = make_batches(pairs, batch_size, **ids, shuffle=True, seed=9017)
        same = _contents(list(shuffled), pairs, ids) == contents
        seeded = _contents(list(reseeded), pairs, ids) != contents
    except Exception:  # the shuffled call is checked on its own below
        return
    if same and seeded:  # a seeded permutation (not a sort, which no seed changes)
        c.fail(
            f"{what}: the batches hold the right pairs, in another order, and it is the "
            "order the same call gives with shuffle=True (the same default seed): the "
            "pairs are shuffled whatever shuffle says. Draw the permutation only under "
            "`if shuffle:`; with shuffle=False batch 0 holds the first batch_size pairs of "
            "`pairs`, batch 1 the next, and so on."
        )


#: what a budget of batch_size tokens may count: name -> the tokens of one pair in a
#: batch of rows (source, target)
_BUDGETS = {
    "source tokens (fairseq's --max-tokens)": lambda source, target: len(source),
    "target tokens": lambda source, target: len(target),
    "source and target tokens together": lambda source, target: len(source) + len(target),
}


def _token_budget(contents, pairs, batch_size) -> str:
    """Batches of every pair, in order, whose sizes vary: the sizes, and which counts of
    tokens, read as a budget of batch_size per batch (fill a batch while the next pair
    still fits), give exactly these batches. "" when the pairs are not all there in
    order."""
    if not contents or [i for batch in contents for i in batch] != list(range(len(pairs))):
        return ""
    sizes = [len(batch) for batch in contents]

    def packed(tokens_of) -> list[int]:
        out, count, used = [], 0, 0
        for source, target in pairs:
            tokens = tokens_of(source, target)
            if count and used + tokens > batch_size:
                out.append(count)
                count, used = 0, 0
            count, used = count + 1, used + tokens
        return [*out, count] if count else out

    def padded() -> list[int]:  # rows * the longest source so far, padding included
        out, rows, longest = [], [], 0
        for source, _ in pairs:
            if rows and (len(rows) + 1) * max(longest, len(source)) > batch_size:
                out.append(len(rows))
                rows, longest = [], 0
            rows.append(source)
            longest = max(longest, len(source))
        return [*out, len(rows)] if rows else out

    fits = [name for name, tokens_of in _BUDGETS.items() if packed(tokens_of) == sizes]
    if padded() == sizes:
        fits.append("padded source tokens (rows times the longest source)")
    head = (
        f" Your batches hold {sizes} pairs; each must hold batch_size={batch_size} pairs "
        "(the last one the rest): batch_size counts sentence pairs."
    )
    if not fits:
        return head
    return (
        f"{head} Your sizes are exactly what a budget of batch_size={batch_size} "
        f"{' or '.join(fits)} per batch gives (each batch filled while the next pair's "
        "tokens still fit): batch_size is not a number of tokens here."
    )


def check_make_batches(make_batches, *, hidden: bool = False) -> None:
    """make_batches(pairs, batch_size, *, pad_id, bos_id, eos_id, shuffle, seed) -> batches."""
    with Checker("make_batches", hidden=hidden) as c:
        c.require_callable(make_batches)
        cases = _hidden_batch_cases() if hidden else _visible_batch_cases()
        src_forms: set = set()
        for pairs, batch_size, ids in cases:
            batches, what = _expect_batches(
                c, make_batches, pairs, batch_size, ids, src_forms, shuffle=False
            )
            expected = [pairs[i : i + batch_size] for i in range(0, len(pairs), batch_size)]
            missing = _missing_pairs(batches, pairs, ids)
            first = f"{what} returned {len(batches)} batches for {len(pairs)} pairs"
            sizes = [batch[0].shape[0] for batch in batches]
            wrong_end = _slice_end(_contents(batches, pairs, ids), len(pairs), batch_size)
            if wrong_end:
                c.fail(f"{first}. {wrong_end}")
            filtered = _length_filter(pairs, missing)
            if filtered:
                c.fail(f"{first}: {filtered}")
            dropped_last = len(batches) == len(expected) - 1 and set(sizes) == {batch_size}
            if missing and dropped_last and missing == list(range(sum(sizes), len(pairs))):
                c.fail(
                    f"{first}: the last {_count(missing)} missing. Keep the last, smaller "
                    "batch (range(0, len(pairs), batch_size) visits every start)."
                )
            if missing and missing == list(range(len(missing))):
                c.fail(
                    f"{first}: the first {_count(missing)} missing. The first batch starts "
                    "at pair 0 (range(0, len(pairs), batch_size))."
                )
            contents = _contents(batches, pairs, ids)
            if missing and contents == [list(range(batch_size))] and len(expected) > 1:
                if _right_in_one_batch(c, make_batches, pairs, ids):
                    c.fail(
                        f"{first}, pairs[0 : {batch_size}], the first batch alone: the "
                        f"pairs {missing} (counting from 0) are missing. With "
                        f"pairs[:2] and batch_size=3, where one batch holds them all, your "
                        "result is right. Two slips give exactly this: your loop ends after "
                        "its first batch (a `return batches` indented into the loop, one "
                        "level too deep, or a `break`), or every batch is sliced "
                        "pairs[start : batch_size], an end that does not move with start, so "
                        "that every later slice is empty and is skipped. Return the list "
                        "after the loop, once every batch is built, each batch "
                        "pairs[start : start + batch_size]."
                    )
            if missing:
                c.fail(
                    f"{first}, holding {sizes} pairs: the pairs {missing} (counting from 0) "
                    f"are missing. With batch_size={batch_size}, batch k holds "
                    "pairs[k * batch_size : (k + 1) * batch_size]."
                )
            as_count = _batch_size_as_count(contents, len(pairs), batch_size)
            if as_count:
                c.fail(f"{first}, holding {sizes} pairs. {as_count}")
            in_order = contents is not None and [i for b in contents for i in b] == list(
                range(len(pairs))
            )
            cut = size_rule(sizes, len(pairs), batch_size) if in_order else ""
            if cut:
                c.fail(
                    f"{first}, holding {sizes} pairs: {cut}. Every batch holds batch_size="
                    f"{batch_size} pairs and only the last one the rest: batch k is "
                    "pairs[k * batch_size : (k + 1) * batch_size], for k in range(ceil("
                    "len(pairs) / batch_size)) (the starts range(0, len(pairs), batch_size))."
                )
            if len(batches) != len(expected):
                used = sum(batch[0].shape[0] for batch in batches)
                extra_empty = (
                    len(batches) == len(expected) + 1
                    and used == len(pairs)
                    and sizes[-1] == 0
                    and len(pairs) % batch_size == 0
                )
                if extra_empty:
                    # the count len(pairs) // batch_size + 1 (the + 1 for a rest that is
                    # not there when batch_size divides the number of pairs)
                    c.fail(
                        f"{what} returned {len(batches)} batches, the last one empty (0 "
                        f"rows): one batch too many. {len(pairs)} pairs in batches of "
                        f"{batch_size} make exactly {len(expected)}; a count such as "
                        "len(pairs) // batch_size + 1 adds an extra batch whenever "
                        "batch_size divides the number of pairs. Count with ceiling "
                        "division, -(-len(pairs) // batch_size), or loop over "
                        "range(0, len(pairs), batch_size)."
                    )
                budget = _token_budget(contents, pairs, batch_size)
                c.fail(
                    f"{what} returned {len(batches)} batches (holding {used} pairs); "
                    f"{len(pairs)} pairs in batches of {batch_size} make {len(expected)}."
                    f"{budget}"
                )
            used = [i for batch in contents or [] for i in batch]
            repeated = sorted({i for i in used if used.count(i) > 1})
            if repeated and not missing:
                last = contents[-1]
                rest = list(range(len(pairs) - len(pairs) % batch_size, len(pairs)))
                wrapped = last == rest + list(range(len(last) - len(rest)))
                cumulative = [
                    list(range(min((k + 1) * batch_size, len(pairs)))) for k in range(len(contents))
                ]
                if contents == cumulative and len(contents) > 1:
                    c.fail(
                        f"{first}: your batches hold the pairs {contents}: each batch holds "
                        "every earlier batch's rows as well as its own (batch k has (k + 1) "
                        "* batch_size rows), so the lists of rows keep growing: they are "
                        "made once, before the loop over the batches, and never emptied. "
                        "Make the lists of rows inside the loop, new for each batch (or "
                        "build each batch from its own chunk, pairs[start : start + "
                        "batch_size])."
                    )
                how = (
                    f"your last batch holds the pairs {last}: the {len(rest)} left over, "
                    "filled up to batch_size with pairs from the start (wrapped around, as "
                    "DistributedSampler pads its indices)"
                    if wrapped and rest
                    else f"your batches hold the pairs {contents}"
                )
                c.fail(
                    f"{first}: the pairs {repeated} (counting from 0) are used more than "
                    f"once; {how}. Every pair is used exactly once per epoch: when "
                    "batch_size does not divide the number of pairs, the last batch is "
                    "smaller (pairs[k * batch_size :] holds the rest), not topped up."
                )
            rows = [_strip(r, ids["pad_id"]) for batch in batches for r in _rows(batch[2])]
            wanted = [[*t, ids["eos_id"]] for _, t in pairs]
            if sorted(map(tuple, rows)) == sorted(map(tuple, wanted)) and rows != wanted:
                _expect_shuffle_read(c, make_batches, pairs, batch_size, ids, contents, what)
                dealt = order_rule(
                    contents or [],
                    len(pairs),
                    batch_size,
                    keys={
                        "the source's length": lambda i, p=pairs: len(p[i][0]),
                        "the target's length": lambda i, p=pairs: len(p[i][1]),
                    },
                )
                if dealt:
                    c.fail(
                        f"{what}: the batches hold the right pairs, in another order: {dealt}. "
                        "With shuffle=False keep the order of `pairs`: batch 0 holds the "
                        "first batch_size pairs, batch 1 the next batch_size, and so on."
                    )
                c.fail(
                    f"{what}: the batches hold the right pairs, in another order. With "
                    "shuffle=False keep the order of `pairs`: batch 0 holds the first "
                    "batch_size pairs, and so on (no sorting by length)."
                )
            every = list(zip(batches, expected))
            cut_note = _cut_rows(every, ids) if _shapes_fit(every) else ""
            if cut_note:
                c.fail(f"{what}: {_long_rows(every, ids)}. {cut_note}")
            for number, (batch, chunk) in enumerate(every):
                _check_rows(
                    c, batch, chunk, ids, f"batch {number} of {what}", src_forms, every=every
                )
            _note_extra_widths(c, batches, ids, what)
        # Shuffling: any order, each pair once; the same seed gives the same order.
        rng = numpy_rng(2002 if hidden else 2001)
        ids = {"pad_id": 0, "bos_id": 2, "eos_id": 3}
        pairs = _random_pairs(rng, 41 if hidden else 23, ids)
        batch_size = 6 if hidden else 5
        seeds = (11, 12) if hidden else (3, 4)
        orders = []
        for seed in (seeds[0], seeds[0], seeds[1]):
            batches, what = _expect_batches(
                c, make_batches, pairs, batch_size, ids, src_forms, shuffle=True, seed=seed
            )
            orders.append(_check_order_free(c, batches, pairs, batch_size, ids, what, src_forms))
        if orders[0] == list(range(len(pairs))):
            c.fail(
                f"make_batches(..., shuffle=True, seed={seeds[0]}) kept the pairs in their "
                "original order: shuffle=True should put them in a random order first, so "
                "that every epoch sees the batches in a different order and mix."
            )
        if orders[0] != orders[1]:
            c.fail(
                f"two calls of make_batches(..., shuffle=True, seed={seeds[0]}) gave different "
                "orders. The same seed must give the same order: draw the order from a "
                "generator seeded with `seed` (torch.Generator().manual_seed(seed), "
                "random.Random(seed) or np.random.default_rng(seed)), not from the global "
                f"random stream.{_module_generators_sentence(make_batches)}"
            )
        if orders[0] == orders[2]:
            c.fail(
                f"seed={seeds[0]} and seed={seeds[1]} gave the same order: the order must "
                "depend on `seed` (the training loop passes a new seed every epoch, so that "
                "each epoch sees the data in a new order)."
            )
        c.ok()
        _expect_global_random_state_kept(c, make_batches, pairs, batch_size, ids, seeds[0])
        _expect_empty_target_kept(c, make_batches, src_forms)


#: a pair whose target is empty (a sentence the tokenizer left without a known word) between
#: two ordinary ones: its rows are decoder_input [<bos>] and labels [<eos>] (the model learns
#: to stop at once); the family 'elements filtered out' drops it
_EMPTY_TARGET_PAIRS = [([4, 5, 6], [7, 8]), ([9, 4], []), ([6], [10])]


def _expect_empty_target_kept(c: Checker, make_batches, src_forms: set) -> None:
    """Every pair is used, the one with an empty target too: its row holds decoder_input
    [bos_id] and labels [eos_id]."""
    ids = {"pad_id": 0, "bos_id": 2, "eos_id": 3}
    pairs = [(list(s), list(t)) for s, t in _EMPTY_TARGET_PAIRS]
    batches, what = _expect_batches(c, make_batches, pairs, len(pairs), ids, src_forms)
    what = f"{what} with pairs {pairs}"
    missing = _missing_pairs(batches, pairs, ids)
    if missing == [1]:
        c.fail(
            f"{what}: the pair with an empty target (source [9, 4], target []) is in no "
            "batch: your code leaves out the pairs whose target is empty (a filter such as "
            "`if target`, `if len(target) > 0`, or a length test that skips it). Every pair "
            "is used exactly once: an empty target still makes a row, decoder_input "
            "[bos_id] and labels [eos_id], which teaches the model to stop at once."
        )
    if missing:
        c.fail(
            f"{what}: the pairs {missing} (counting from 0) are in no batch. Every pair is "
            "used exactly once, whatever its length."
        )
    if len(batches) == 1:
        _check_rows(c, batches[0], pairs, ids, f"batch 0 of {what}", src_forms)
    c.ok()


def _global_random_states() -> dict[str, object]:
    """The global random streams a shuffle may touch, by the name a message gives them."""
    return {
        "PyTorch's": torch.get_rng_state(),
        "Python's `random` module's": random.getstate(),
        "numpy's `np.random`": np.random.get_state(),  # noqa: NPY002 (the global state itself)
    }


def _same_state(a, b) -> bool:
    if torch.is_tensor(a):
        return torch.equal(a, b)
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return all(_same_state(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


def _expect_global_random_state_kept(c, make_batches, pairs, batch_size, ids, seed) -> None:
    """A seeded shuffle draws from a generator of its own: seeding a global stream resets
    every later draw of the caller (dropout masks, initialisation; blind12h-mb-seeds-global-
    generator was accepted). Drawing from a global stream is accepted (the course's checks
    tolerate it everywhere); seeding is told apart by two calls from two different global
    states: a stream the call seeds is in the same state after both. ``seed`` is not the
    last call's. The checker puts the global streams back afterwards."""
    what = f"make_batches(pairs, batch_size={batch_size}, ..., shuffle=True, seed={seed})"
    after = []
    for _ in range(2):
        c.call(make_batches, pairs, batch_size, call_repr=what, **ids, shuffle=True, seed=seed)
        after.append(_global_random_states())
        torch.rand(3)  # another global state before the second call
        random.random()
        np.random.rand(3)  # noqa: NPY002 (the global state itself)
    seeded = [name for name in after[0] if _same_state(after[0][name], after[1][name])]
    if seeded:
        c.fail(
            f"{what} seeds {' and '.join(seeded)} global random stream: called from two "
            "different global states, it leaves the same state after both (torch.manual_seed("
            "seed), random.seed(seed) or np.random.seed(seed) in your code). Your order is "
            "right, but every later random draw of the caller (the dropout masks, a model's "
            "initial weights) is reset with it: a data pipeline must not reseed the training's "
            "random stream. Draw from a generator of your own: g = torch.Generator()."
            "manual_seed(seed); torch.randperm(n, generator=g) (or random.Random(seed)."
            "shuffle(order), np.random.default_rng(seed))."
        )
    c.ok()


def _module_generators_sentence(make_batches) -> str:
    """For two calls with one seed that gave two orders: the random generators kept at
    module level that the learner's function reads, whose stream goes on from one call to
    the next (seeded once, on the first call, or never); "" when it reads none, or on
    anything odd (a proxy in the grader)."""
    try:
        generators = StateWatch(make_batches).generators
    except Exception:  # an explanation only
        return ""
    if not generators:
        return ""
    them = "it is" if len(generators) == 1 else "they are"
    return (
        f" Your function draws from {' and '.join(generators)}, created once for the "
        "module: its stream goes on from one call to the next, so a later call with the same "
        f"seed continues where the earlier one stopped unless {them} seeded again with "
        "`seed` on every call (seeding it only on the first call is not enough). Create the "
        "generator inside the function, on every call."
    )
