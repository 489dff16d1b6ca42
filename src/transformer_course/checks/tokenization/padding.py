"""The check of ``pad_batch``: right-padding to the longest sequence."""

from __future__ import annotations

import contextlib
import io

import numpy as np

from transformer_course.checking import Checker, CheckFailure, numpy_rng, short
from transformer_course.checking.empty_row_dtypes import empty_row_dtype, no_id_dtype
from transformer_course.checking.failing_line import line_row_lists
from transformer_course.checking.formatting import as_numpy
from transformer_course.checking.padded_rows import (
    BOTH_ENDS,
    UNPADDED,
    WHOLE_WIDTH_ADDED,
    unequal_row_readings,
)
from transformer_course.checking.rounded_sizes import rounded_up_size
from transformer_course.checking.uninitialised import unwritten_entries
from transformer_course.reference import tokenization as ref


def _left_padded(seqs, pad_id, expected):
    left = np.full_like(expected, pad_id)
    for row, seq in enumerate(seqs):
        if seq:
            left[row, -len(seq) :] = seq
    return left


def _sequence_offsets(seqs, pad_id, array) -> list[int] | None:
    """Where each row of array holds its sequence whole, the rest pad_id: the column it
    starts at, per row; None when a row is not its sequence shifted within the padding."""
    offsets = []
    for seq, row in zip(seqs, array, strict=True):
        extra = len(row) - len(seq)
        fits = [
            k
            for k in range(extra + 1)
            if list(row[k : k + len(seq)]) == list(seq)
            and all(v == pad_id for v in [*row[:k], *row[k + len(seq) :]])
        ]
        if not fits:
            return None
        offsets.append(0 if 0 in fits else fits[0])
    return offsets


def _shifted_rows_hint(seqs, pad_id, array) -> str:
    """Every row holds its sequence whole but some start past column 0: say where, and
    name the padding split between both ends when each offset is half its padding."""
    offsets = _sequence_offsets(seqs, pad_id, array)
    if offsets is None or not any(offsets):
        return ""
    extras = [array.shape[1] - len(seq) for seq in seqs]
    row = next(r for r, k in enumerate(offsets) if k)
    where = (
        f"Your rows hold their sequences whole, but not from column 0: row {row} "
        f"({seqs[row]}) starts at column {offsets[row]}, with pad_id={pad_id} before it. "
    )
    if offsets == [e // 2 for e in extras] or offsets == [e - e // 2 for e in extras]:
        more = "right" if offsets == [e // 2 for e in extras] else "left"
        return (
            where + "Each row's padding is split between both ends, half before the "
            f"sequence and half after it (the odd one on the {more}), as centred ('same') "
            "padding does (np.pad with (extra // 2, extra - extra // 2), or str.center). "
            "Put all of it on the right: every sequence starts at column 0, then pad_id up "
            "to max_len, np.pad(seq, (0, max_len - len(seq)), constant_values=pad_id)."
        )
    return (
        where + f"Your offsets per row are {offsets} (the padding each row needs: {extras}). "
        "Every sequence starts at column 0, then pad_id up to max_len."
    )


def _right_on(pad_batch, seqs: list[list[int]], pad_id: int) -> bool:
    """Whether the learner's pad_batch returns the right batch on these sequences (given
    a copy): then a failure on them came from elsewhere (an argument changed in place, a
    print), never from the width, and no hint about the width applies."""
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        got = np.asarray(pad_batch([list(s) for s in seqs], pad_id))
        return got.shape == (len(seqs), max((len(s) for s in seqs), default=0)) and bool(
            np.array_equal(got, ref.pad_batch(seqs, pad_id))
        )
    return False


def _width_of_first_hint(pad_batch, seqs: list[list[int]], pad_id: int) -> str:
    """When the longest sequence is not the first: if the learner's pad_batch is right
    with the sequences reordered longest first, its width comes from the first one."""
    longest = max(range(len(seqs)), key=lambda i: len(seqs[i]), default=0)
    if not seqs or longest == 0 or len(seqs[0]) == len(seqs[longest]):
        return ""
    if _right_on(pad_batch, seqs, pad_id):
        return ""
    order = [longest, *(i for i in range(len(seqs)) if i != longest)]
    reordered = [list(seqs[i]) for i in order]
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(pad_batch([list(s) for s in reordered], pad_id))
        if probe.shape == (len(seqs), len(seqs[longest])) and np.array_equal(
            probe, ref.pad_batch(reordered, pad_id)
        ):
            return (
                f"With the longest sequence first yours is right, and here the first one is "
                f"shorter ({len(seqs[0])} ids, the longest has {len(seqs[longest])}): the width "
                "comes from the first sequence. max_len is the length of the longest "
                "sequence: max(len(seq) for seq in sequences)."
            )
    return ""


def _width_of_largest_hint(pad_batch, seqs: list[list[int]], pad_id: int) -> str:
    """When the longest sequence is not the largest in Python's list comparison: if the
    learner's pad_batch is right once the longest one is made the largest too (its first
    id raised above every other first id, the lengths unchanged), its width comes from
    max(sequences), which compares the lists element by element."""
    if not seqs or not any(seqs):
        return ""
    longest = max(range(len(seqs)), key=lambda i: len(seqs[i]))
    largest = max(seqs)
    if len(largest) == len(seqs[longest]) or _right_on(pad_batch, seqs, pad_id):
        return ""
    probe = [list(s) for s in seqs]
    probe[longest][0] = max(s[0] for s in seqs if s) + 1
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        got = np.asarray(pad_batch([list(s) for s in probe], pad_id))
        if got.shape == (len(seqs), len(seqs[longest])) and np.array_equal(
            got, ref.pad_batch(probe, pad_id)
        ):
            return (
                f"Your width is {len(largest)}, the length of max(sequences) = {largest}: max "
                "compares lists element by element (lexicographically), not by length, so it "
                f"picks the largest list, not the longest ({len(seqs[longest])} ids). With the "
                "longest sequence also the largest, yours is right. max_len is "
                "max(len(seq) for seq in sequences) (or len(max(sequences, key=len)))."
            )
    return ""


_NARROW_DTYPE_HINT = (
    "An id does not fit your array's dtype: ids go past 255 (every BPE merge makes one), "
    "more than an 8-bit dtype (uint8, int8) holds. Use a wide integer dtype: np.int64."
)
_PAD_HINTS = [
    ("out of bounds for", _NARROW_DTYPE_HINT),
    (
        "inhomogeneous shape",
        "np.array cannot make one rectangular array of rows of different lengths: pad every "
        "row to max_len first (row + [pad_id] * (max_len - len(row))), or create the whole "
        "batch with np.full((len(sequences), max_len), pad_id, dtype=np.int64) and copy each "
        "sequence into the start of its row.",
    ),
]


def _expect_padding_written(c, pad_batch, seqs, pad_id, array, expected, what) -> None:
    """Fail when the padding places hold left-over memory: called again just after a
    block of sentinels of the batch's size was freed, the learner's pad_batch gives
    sentinels back in places it never wrote (np.empty, filled with the sequences only).
    Only for a dtype that holds the sentinels (int64 or floating)."""
    if not (array.dtype == np.int64 or np.issubdtype(array.dtype, np.floating)):
        return
    unwritten = unwritten_entries(
        lambda: np.asarray(pad_batch([list(s) for s in seqs], pad_id)),
        expected.shape,
        array.dtype,
    )
    if unwritten is None:
        return
    padding = np.ones(expected.shape, dtype=bool)
    for row, seq in enumerate(seqs):
        padding[row, : len(seq)] = False
    where = "the padding places" if not (unwritten & ~padding).any() else "some places"
    c.fail(
        f"{what} returned {short(array)}, expected {short(expected)}. Your batch holds "
        f"left-over memory in {where}: called again just after a block of memory filled "
        "with a marker value was freed, your pad_batch gave that marker back there, so "
        "nothing ever wrote those entries (their values change from call to call). "
        "np.empty (and np.empty_like) allocate without initialising, and only the sequences "
        f"were copied in. Start from the padding: np.full((len(sequences), max_len), "
        f"pad_id, dtype=np.int64), then copy each sequence into the start of its row."
    )


def _whole_row_hints(pad_batch) -> list:
    """The hint for a broadcast error, when a probe shows the cause: on [[1, 2, 3], [4]]
    the learner's pad_batch repeats the 4 over its whole row, [[1, 2, 3], [4, 4, 4]], as
    only batch[row] = seq (no slice) does."""

    def whole_row(exc: BaseException) -> bool:
        if "could not broadcast input array" not in str(exc):
            return False
        with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
            probe = np.asarray(pad_batch([[1, 2, 3], [4]], 0))
            return probe.tolist() == [[1, 2, 3], [4, 4, 4]]
        return False

    text = (
        "You copied each sequence into its whole row (batch[row] = seq) instead of the "
        "row's first len(seq) places: on [[1, 2, 3], [4]] yours gives [[1, 2, 3], [4, 4, 4]], "
        "a sequence of one id broadcast over the whole row, and a sequence that is neither "
        "that short nor the longest cannot be broadcast at all. Write only the start of the "
        "row: batch[row, : len(seq)] = seq."
    )
    return [(whole_row, text)]


#: what numpy and torch say when rows of unequal lengths are stacked into one array
_UNEQUAL_ROWS_ERRORS = (
    "all input arrays must have the same shape",
    "inhomogeneous",
    "stack expects each tensor to be equal size",
    "could not broadcast input array",
)


def _unequal_rows_hints(seqs, pad_id) -> list:
    """The hint for a raise on rows of unequal lengths (np.stack, np.array, torch.stack),
    when the rows the learner's failing line held show how each was padded: the same
    reading for every row, and only one (checking.padded_rows)."""
    max_len = max((len(s) for s in seqs), default=0)
    texts = {
        BOTH_ENDS: (
            "Your rows were padded at both ends: each holds max_len - len(seq) pad ids before "
            "its sequence and as many after it (np.pad(seq, n) with one number n pads n at "
            "each end), so the rows are 2 * max_len - len(seq) long and cannot be stacked. "
            "Pad only at the end: np.pad(seq, (0, max_len - len(seq)), "
            "constant_values=pad_id), or seq + [pad_id] * (max_len - len(seq))."
        ),
        WHOLE_WIDTH_ADDED: (
            f"Each row got max_len = {max_len} pad ids, whatever its length, so the rows are "
            "len(seq) + max_len long and cannot be stacked: a row needs only the places its "
            "sequence leaves free, max_len - len(seq) pad ids."
        ),
        UNPADDED: (
            "Your rows reached the stacking call unpadded (each as long as its sequence), so "
            "they cannot be stacked: the padded row was made but not kept (np.pad and list "
            "+ return a new row; assign it), or never made. Pad each row to max_len first."
        ),
    }

    def readings(exc: BaseException) -> list[str]:
        if not any(words in str(exc) for words in _UNEQUAL_ROWS_ERRORS):
            return []
        with contextlib.suppress(Exception):
            for _, rows in line_row_lists(exc):
                found = unequal_row_readings(rows, seqs, pad_id)
                if len(found) == 1:
                    return found
        return []

    def text(exc: BaseException) -> str:
        found = readings(exc)
        shown = next(
            (
                f"On your line that raised, {name} held rows of lengths "
                f"{[len(r) for r in rows]} for sequences of lengths {[len(s) for s in seqs]}. "
                for name, rows in line_row_lists(exc)
                if unequal_row_readings(rows, seqs, pad_id) == found
            ),
            "",
        )
        return shown + texts[found[0]]

    return [(lambda exc: bool(readings(exc)), text)]


def _gaps_left_none_hints(pad_batch) -> list:
    """The hint for an error about None (int() or an int64 array given None), when probes
    show where it comes from: sequences of equal length come out right, while a batch
    whose second sequence is shorter raises about None too. The gaps of the shorter
    sequences were filled with None, not pad_id: itertools.zip_longest without fillvalue,
    or any padding list built from None."""

    def about_none(exc: BaseException) -> bool:
        if not isinstance(exc, TypeError | ValueError) or "None" not in str(exc):
            return False
        with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
            equal = np.asarray(pad_batch([[5, 6], [7, 8]], 0))
            if equal.tolist() != [[5, 6], [7, 8]]:
                return False
            try:
                pad_batch([[5, 6], [7]], 0)
            except (TypeError, ValueError) as shorter:
                return "None" in str(shorter)
        return False

    text = (
        "Sequences of equal length come out right (pad_batch([[5, 6], [7, 8]], 0)), but as "
        "soon as one is shorter (pad_batch([[5, 6], [7]], 0)) a None reaches the array: the "
        "places past a shorter sequence's end were filled with None, not with pad_id, which "
        "is never used. itertools.zip_longest(*sequences) fills the gaps with None unless "
        "given fillvalue=pad_id; simpler, start from np.full((len(sequences), max_len), "
        "pad_id) and copy each sequence into the start of its row."
    )
    return [(about_none, text)]


#: what the usual ways to find max_len or to build the rows raise on a batch of no
#: sequences: the words of the error -> what raised it
_EMPTY_BATCH_ERRORS = {
    "arg is an empty sequence": "max(len(seq) for seq in sequences) without default=0 "
    "fails when there is no length to take the largest of",
    "iterable argument is empty": "max(len(seq) for seq in sequences) without default=0 "
    "fails when there is no length to take the largest of",
    "empty list of sequences": "torch's pad_sequence refuses an empty list",
    "need at least one array": "np.stack (or np.vstack) needs at least one row",
}


def _empty_batch_hints(seqs) -> list:
    """The hint for an exception that only a batch of no sequences explains (none for any
    other batch, where the same words would name an impossible cause)."""
    if seqs:
        return []

    def raised_by(exc: BaseException) -> str:
        return next((who for words, who in _EMPTY_BATCH_ERRORS.items() if words in str(exc)), "")

    def text(exc: BaseException) -> str:
        return (
            f"Here the batch has no sequences at all, and your code raised on it: "
            f"{raised_by(exc)}. An empty batch is a "
            "(0, 0) array: find the longest length with max((len(seq) for seq in sequences), "
            "default=0), then np.full((len(sequences), max_len), pad_id, dtype=np.int64) "
            "handles it like any other batch."
        )

    return [(lambda exc: bool(raised_by(exc)), text)]


def _width(c, pad_batch, seqs, pad_id) -> int | None:
    """The number of columns of pad_batch(seqs, pad_id) (None when it fails or has no
    two axes): a probe, made through the checker so that the one-edit search sees its
    result too."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            shape = tuple(np.shape(c.call(pad_batch, [list(s) for s in seqs], pad_id)))
    except (CheckFailure, Exception):  # a probe: any failure is no verdict
        return None
    return shape[1] if len(shape) == 2 else None


def _empty_batch_shape_hint(seqs, got, pad_batch=None, c=None) -> str:
    """For a batch of no sequences returned with another shape than (0, 0) (or (0,),
    accepted with a note). One column too many is told apart by two probes: a batch of
    empty sequences ([[], []]: a floor of one column gives 1, a default=1 gives 0) and a
    batch of one sequence of two ([[5, 6]]: only a + 1 gives 3)."""
    if seqs or tuple(got.shape) in ((0, 0), (0,)):
        return ""
    shape = tuple(got.shape)
    if len(shape) == 2 and shape[0] == 0 and shape[1] == 1 and pad_batch is not None:
        of_empty, of_two = _width(c, pad_batch, [[], []], 0), _width(c, pad_batch, [[5, 6]], 0)
        if of_empty == 1 and of_two == 2:
            return (
                "Here the batch has no sequences at all: yours has no row, right, but 1 "
                "column, and pad_batch([[], []], 0) also has 1 column where it should have "
                "0 columns: your width is at least one, max(longest length, 1) (a guard that "
                "keeps an empty batch one pad wide), while sequences of length 2 give 2 "
                "columns, right. A batch of empty sequences is (batch, 0): max_len is "
                "max((len(seq) for seq in sequences), default=0), with no floor."
            )
    if len(shape) == 2 and shape[0] == 0 and shape[1] > 0:
        return (
            f"Here the batch has no sequences at all: yours has no row, right, but {shape[1]} "
            f"column(s), so your longest length of no sequences is {shape[1]}, not 0 (a "
            f"default={shape[1]} for max, or a + {shape[1]} on the longest length). max_len is "
            "max((len(seq) for seq in sequences), default=0)."
        )
    return (
        f"Here the batch has no sequences at all, and yours has shape {tuple(got.shape)}: an "
        "empty batch is (batch, max_len) = (0, 0), no row and no column. Build it like any "
        "other batch, np.full((len(sequences), max_len), pad_id, dtype=np.int64) with "
        "max_len = max((len(seq) for seq in sequences), default=0)."
    )


def _wrapped(expected, dtype):
    """``expected`` in the learner's integer dtype, wrapped around where an id does not
    fit (None when every id fits)."""
    if not np.issubdtype(dtype, np.integer) or int(expected.max(initial=0)) <= np.iinfo(dtype).max:
        return None
    return expected.astype(dtype)


#: ways to fill a row past its sequence from the sequence itself, each with what does it
_SELF_FILLS = {
    "repeats of the sequence from its start (np.resize(seq, max_len), np.tile, or an index "
    "taken modulo len(seq))": lambda seq, n: np.resize(np.asarray(seq), n),
    "its last id repeated (np.pad with mode='edge')": lambda seq, n: np.pad(
        np.asarray(seq), (0, n - len(seq)), mode="edge"
    ),
    "the sequence mirrored back from its end (np.pad with mode='reflect')": (
        lambda seq, n: np.pad(np.asarray(seq), (0, n - len(seq)), mode="reflect")
    ),
    "the sequence mirrored back from its end, last id included (np.pad with mode='symmetric')": (
        lambda seq, n: np.pad(np.asarray(seq), (0, n - len(seq)), mode="symmetric")
    ),
}


def _self_filled_hint(seqs, pad_id, array) -> str:
    """When every row that needs padding holds its sequence and then ids taken from that
    sequence (repeated, its last id, mirrored): the fills that fit every such row, where
    pad_id belongs; "" otherwise."""
    rows = [(r, seq) for r, seq in enumerate(seqs) if 0 < len(seq) < array.shape[1]]
    if not rows or array.ndim != 2 or array.shape[0] != len(seqs):
        return ""
    fitting = []
    for name, fill in _SELF_FILLS.items():
        try:
            if all(np.array_equal(array[r], fill(seq, array.shape[1])) for r, seq in rows):
                fitting.append(name)
        except Exception:  # a fill this row cannot take (reflect on one id): no fit
            continue
    if not fitting:
        return ""
    return (
        f"Each short row goes on past its sequence with {' or '.join(fitting)}, instead of "
        f"pad_id={pad_id}: the rest of the row must be pad_id, which the model learns to "
        "ignore, not copies of the row's own ids. Start from np.full((batch, max_len), "
        "pad_id) and write each sequence at the start of its row."
    )


def _pad_filled_with(seqs, pad_id, expected, got) -> dict:
    """When the ids are right and every padded place holds one same value other than
    pad_id and 0 (which has a message of its own): that value named."""
    padded = np.zeros(expected.shape, dtype=bool)
    for row, seq in enumerate(seqs):
        padded[row, len(seq) :] = True
    if got.shape != expected.shape or not padded.any():
        return {}
    values = set(np.unique(got[padded]).tolist())
    if len(values) != 1 or not np.array_equal(got[~padded], expected[~padded]):
        return {}
    value = values.pop()
    if value in (pad_id, 0):
        return {}
    filled = expected.copy()
    filled[padded] = value
    return {
        f"The padding holds {value}, not pad_id={pad_id}: fill the rest of each row with the "
        "pad_id you were given (np.full(..., pad_id)).": filled
    }


def _zeros_made_pad(seqs, pad_id, expected):
    """``expected`` with every 0 in it, the real ids 0 inside the rows too, made pad_id (None
    when no real id 0 sits in a row, or pad_id is 0)."""
    if pad_id == 0 or not any(0 in seq for seq in seqs):
        return None
    return np.where(expected == 0, pad_id, expected)


def _every_row_written(seqs, pad_id, expected):
    """Every sequence written into every row, each over the start of the ones before:
    what one list repeated as every row, or a slice batch[:, :len(seq)], gives (None when
    that is the right batch: fewer than two sequences, say)."""
    batch = np.full(expected.shape, pad_id, dtype=np.int64)  # (batch, max_len)
    for seq in seqs:
        batch[:, : len(seq)] = seq
    return None if np.array_equal(batch, expected) else batch


_EVERY_ROW_WRITTEN = (
    "Every row of yours is the same: each sequence was written into every row, each over "
    "the start of the ones before. Two ways give exactly this: the rows are one list "
    "repeated, [[pad_id] * max_len] * len(sequences), whose rows all share one list, so "
    "writing one row writes them all; or the copy writes a slice of every row, "
    "batch[:, :len(seq)] = seq, a colon where the row index belongs. Make a new list per "
    "row ([[pad_id] * max_len for _ in sequences], or np.full) and write row i alone: "
    "batch[i, :len(seq)] = seq."
)


def _cut_to_shortest(seqs, pad_id, expected) -> dict:
    """Every row cut to the shortest sequence's length, then padded to max_len (columns
    built with zip(*sequences), which stops at its shortest argument): {message: model},
    empty when all the sequences have one length."""
    lengths = [len(s) for s in seqs]
    if not seqs or min(lengths) == max(lengths):
        return {}
    shortest = min(lengths)
    model = np.full_like(expected, pad_id)  # (batch, max_len)
    model[:, :shortest] = expected[:, :shortest]
    return {
        f"Every row keeps only its first {shortest} id(s), the length of the shortest "
        f"sequence, and pad_id={pad_id} after: the longer sequences lost every id past "
        "that length. zip(*sequences) stops at its shortest argument (and min() of the "
        "lengths cuts the same way): go to the longest, itertools.zip_longest(*sequences, "
        f"fillvalue={pad_id}), or copy each whole sequence into the start of its row of "
        "np.full((len(sequences), max_len), pad_id).": model
    }


def _reversed_rows(seqs, pad_id, expected):
    flipped = expected.copy()
    for row, seq in enumerate(seqs):
        flipped[row, : len(seq)] = list(seq)[::-1]
    return None if np.array_equal(flipped, expected) else flipped


def check_pad_batch(pad_batch, *, hidden: bool = False) -> None:
    """Check ``pad_batch(sequences, pad_id)``: a (batch, max_len) numpy array or torch
    tensor of any integer dtype that holds the ids, right-padded with pad_id."""
    import torch

    with Checker("pad_batch", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(pad_batch)
        if hidden:
            rng = numpy_rng(41)
            cases = [
                ([list(rng.integers(4, 50, size=n)) for n in (3, 1, 7, 7, 2)], 0),
                ([[5, 6], [], [7]], 0),
                # a real id 0 (the byte 0 in BPE) inside a row, padded with another id
                ([[9, 0, 9], [8]], 99),
                ([[9, 9, 9]], 7),
                ([[], []], 0),
                # an empty first row: a batch that takes its first row's dtype is float
                ([[], [3], [4, 5, 6]], 9),
                ([[300, 5], [1000]], 1),
                ([], 5),  # no sequences at all: (0, 0)
            ]
        else:
            cases = [
                ([[5, 6, 7], [8], [9, 10]], 0),
                # a real id 0 (the byte 0 in BPE) inside a row, padded with another id
                ([[4, 0], [], [6, 7, 8, 9]], 3),
                # an empty first row: torch.tensor([]) is float32, and pad_sequence takes
                # its dtype from the first row
                ([[], [11, 12], [13]], 2),
                # BPE ids reach 256 and more: a dtype of 8 bits cannot hold them
                ([[256, 300, 7], [1000]], 1),
                # no sequences at all: a (0, 0) batch (the hint's "no sequences at all")
                ([], 0),
            ]
        for sequences, pad_id in cases:
            seqs = [[int(i) for i in s] for s in sequences]
            what = f"pad_batch({seqs}, pad_id={pad_id})"
            try:
                got = c.call(
                    pad_batch,
                    [list(s) for s in seqs],
                    pad_id,
                    hints=[
                        *_empty_batch_hints(seqs),
                        *_whole_row_hints(pad_batch),
                        *_gaps_left_none_hints(pad_batch),
                        *_unequal_rows_hints(seqs, pad_id),
                        *_PAD_HINTS,
                    ],
                )
            except CheckFailure as failure:
                hint = _width_of_first_hint(pad_batch, seqs, pad_id) or _width_of_largest_hint(
                    pad_batch, seqs, pad_id
                )
                if hint:
                    raise CheckFailure(
                        failure.exercise, f"{failure.message}\n{hint}", failure.learner_traceback
                    ) from None
                raise
            expected = ref.pad_batch(seqs, pad_id)
            c.expect_type(
                got,
                (np.ndarray, torch.Tensor),
                what,
                "A batch is one rectangular array, not a list of rows: return a numpy array "
                "(np.full / np.array).",
            )
            if not any(seqs) and not np.issubdtype(as_numpy(got).dtype, np.integer):
                # no id to infer a dtype from: float, and 1-D with no rows (np.array([]))
                why = no_id_dtype(lambda rows: pad_batch(rows, 0))
                if why:
                    c.fail(
                        f"{what} returned {type(got).__name__} of shape {tuple(got.shape)} and "
                        f"dtype {got.dtype}, expected an integer array of shape "
                        f"{expected.shape}. {why}"
                    )
            if not seqs and tuple(got.shape) == (0,):
                # np.array of no rows: 1-D, there being no row to give the width; accepted
                c.note(
                    f"{what} returned shape (0,): with no sequences np.array has no row to "
                    "take the width from. The contract's empty batch is (0, 0), "
                    "np.full((len(sequences), max_len), pad_id), which later code can index "
                    "as batch[:, j]; yours is accepted."
                )
                continue
            shape_hint = (
                "The shape is (batch, max_len): one row per sequence, as long as the longest one."
            )
            transposed = (
                "Yours is transposed: (max_len, batch), one column per sequence (time first), "
                "as torch's pad_sequence gives without batch_first=True. Return one row per "
                "sequence, (batch, max_len): pad_sequence(..., batch_first=True), or transpose."
            )
            if tuple(got.shape) != expected.shape:
                if (
                    len(got.shape) == 2
                    and got.shape[0] == expected.shape[0]
                    and got.shape[1] == expected.shape[1] + 1
                ):
                    floor = expected.shape[1] == 0 and _width(c, pad_batch, [[5, 6]], 0) == 2
                    shape_hint += (
                        " Yours has 1 column where every sequence is empty, while sequences of "
                        "length 2 (pad_batch([[5, 6]], 0)) give 2 columns, right: your width is "
                        "at least one, max(longest length, 1) (a guard that keeps an empty "
                        "batch one pad wide). A batch of empty sequences has 0 columns: no floor."
                        if floor
                        else f" Yours has one column too many, {got.shape[1]}: the width is "
                        "max_len + 1 (a + 1 on the longest length, or a pad_id added to every "
                        "row before padding)."
                    )
                if len(got.shape) == 2 and got.shape[0] == expected.shape[0]:
                    rounded = rounded_up_size(
                        expected.shape[1],
                        got.shape[1],
                        lambda n, pad_id=pad_id: _width(c, pad_batch, [[5] * n, [6]], pad_id),
                        "width (max_len)",
                    )
                    shape_hint = f"{shape_hint} {rounded}" if rounded else shape_hint
                shape_hint = (
                    _empty_batch_shape_hint(seqs, got, pad_batch, c)
                    or _width_of_first_hint(pad_batch, seqs, pad_id)
                    or _width_of_largest_hint(pad_batch, seqs, pad_id)
                ) or (
                    shape_hint + " " + transposed
                    if tuple(got.shape) == expected.shape[::-1]
                    else shape_hint
                )
            c.expect_shape(got, expected.shape, what, shape_hint)
            array = got.numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
            if (
                array.size
                and any(not s for s in seqs)
                and not np.issubdtype(array.dtype, np.integer)
            ):
                why = empty_row_dtype(lambda rows: pad_batch(rows, 0), got.dtype)
                if why:
                    c.fail(
                        f"{what} should hold integers (token ids), but its dtype is "
                        f"{got.dtype}. {why}"
                    )
            if array.size:
                c.expect_integer_dtype(got, what)
            elif not np.issubdtype(array.dtype, np.integer):
                c.note(
                    f"{what} has no values, so its dtype ({got.dtype}) does not matter here; "
                    "with values, ids need an integer dtype."
                )
            if array.shape == expected.shape and not np.array_equal(array, expected):
                _expect_padding_written(c, pad_batch, seqs, pad_id, array, expected, what)
            c.expect_equal(
                array,
                expected,
                what,
                hint=lambda seqs=seqs, pad_id=pad_id, array=array: (
                    _shifted_rows_hint(seqs, pad_id, array)
                    or _self_filled_hint(seqs, pad_id, array)
                    or f"Each row holds its sequence, then pad_id={pad_id} up to max_len."
                ),
                mistakes={
                    "You padded on the left (the padding first, then the tokens): pad on the right, "
                    "the tokens first, then the padding.": _left_padded(seqs, pad_id, expected),
                    f"Your padding is 0 whatever pad_id is (here pad_id={pad_id}): fill with "
                    "the pad_id you were given, not a hard-coded 0. (np.pad fills with 0 "
                    "unless given constant_values=pad_id; so do np.zeros and torch's "
                    "pad_sequence without padding_value.)": ref.pad_batch(seqs, 0),
                    transposed: expected.T,
                    **_pad_filled_with(seqs, pad_id, expected, array),
                    "Your rows come longest first: you sorted the sequences by length (as "
                    "pack_padded_sequence wants), but row i of the batch is sequence i, in the "
                    "order given. Pad them in their own order.": (
                        ref.pad_batch(sorted(seqs, key=len, reverse=True), pad_id)
                        if sorted(seqs, key=len, reverse=True) != seqs
                        else None
                    ),
                    f"Your real ids 0 inside the sequences became pad_id={pad_id} too: every 0 "
                    "in the batch was replaced, as padding with zeros and then replacing the "
                    "zeros (batch[batch == 0] = pad_id, or np.where(batch == 0, pad_id, "
                    "batch)) does, which cannot tell the padding from a real id 0. Fill only "
                    "the padding places: start from np.full((len(sequences), max_len), pad_id, "
                    "dtype=np.int64) and copy each sequence into the start of its row.": (
                        _zeros_made_pad(seqs, pad_id, expected)
                    ),
                    _EVERY_ROW_WRITTEN: _every_row_written(seqs, pad_id, expected),
                    **_cut_to_shortest(seqs, pad_id, expected),
                    "Each sequence is reversed in its row: copy it as it is, its first id "
                    "first, then the padding.": _reversed_rows(seqs, pad_id, expected),
                    f"Your batch's dtype, {array.dtype}, is too small for these ids: those "
                    "above its largest value wrapped around. Ids go past 255 (every BPE merge "
                    "makes one): use a wide integer dtype, np.int64.": _wrapped(
                        expected, array.dtype
                    ),
                },
            )
