"""Checks for lesson 02 (embeddings): one_hot, embed, cosine_similarity, TokenEmbedding,
and two concept questions.

Every check compares the learner's answer with :mod:`transformer_course.reference.embeddings`
(or with PyTorch's own lookup) on inputs drawn from a generator seeded here (visible and
hidden runs use different seeds and shapes), and recognises the classic mistakes by the
values or shapes they produce. What the checks accept beyond the reference's own choices:

* ``one_hot``: any floating dtype, and integer 0/1 arrays (with a note); booleans are
  rejected, with the reason (they add up as logic, not as numbers).
* ``embed``: any floating result (a float32 table looked up through a float64 one-hot
  product, say), compared with a tolerance that fits it.
* ``cosine_similarity``: any floating dtype; a zero vector must get similarity 0 (the
  convention of PyTorch and scikit-learn, motivated in the message), reached by any
  guard, an ``eps`` in the denominator included.
* ``TokenEmbedding``: any attribute name for the table (``embedding.weight`` is the
  course's, noted otherwise), and extra buffers (a stored scale) besides it.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import traceback

import numpy as np
import torch
from torch import nn

from transformer_course.checking import (
    Checker,
    CheckFailure,
    numpy_rng,
    tolerance,
    torch_generator,
)
from transformer_course.checking.extra_steps import extra_norm_outputs
from transformer_course.checking.frozen_rows import (
    frozen_rows_message,
    frozen_rows_of,
    padding_idx_signature,
)
from transformer_course.checking.mirrored import MIRRORED_FILLS, mirrored_fill
from transformer_course.checking.modules import (
    build_module,
    expect_follows_new_weights,
    random_state,
)
from transformer_course.checking.pair_factors import pair_factors
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.checking.rows_read import rows_read_sentence
from transformer_course.exercise import Exercise
from transformer_course.reference import embeddings as ref
from transformer_course.reference.tokenization import SPECIAL_TOKENS

__all__ = [
    "check_TokenEmbedding",
    "check_cosine_similarity",
    "check_embed",
    "check_one_hot",
    "check_quiz_gradient_rows",
    "check_quiz_linear_layer",
]


def _ids_repr(ids: np.ndarray) -> str:
    if ids.ndim == 0:  # a single id as an array of shape (): say so, 2 alone would hide it
        return f"np.array({ids.item()}) (shape ())"
    return repr(ids.tolist()) if ids.size <= 8 else f"<ids of shape {ids.shape}>"


# ------------------------------------------------------------------ one_hot
def _one_hot_cases(hidden: bool) -> list[tuple[np.ndarray, int]]:
    if not hidden:
        return [
            (np.array([2, 0, 3]), 5),
            (np.array([[1, 4, 4], [0, 2, 5]]), 7),
            (np.array([0, 3, 1, 3], dtype=np.int32), 4),  # the largest id is used; int32 ids
            (np.array([[3], [1]]), 5),  # an axis of size 1 (a batch of one-token sequences)
            (np.array([299, 7, 256, 130]), 300),  # ids past 255: no 8-bit type holds them
        ]
    rng = numpy_rng(2002)
    cases = []
    for shape, vocab_size in (((6,), 10), ((3, 4), 9), ((2, 3, 4), 12), ((1,), 3)):
        # ids stay below vocab_size - 1, so vocab_size cannot be guessed from the ids
        cases.append((rng.integers(0, vocab_size - 1, size=shape), vocab_size))
    cases.append((np.array([[5, 0], [2, 5]], dtype=np.int32), 6))
    cases.append((np.array([[260, 3], [511, 129]]), 512))
    return cases


def _right_on_flat_ids(one_hot, ids: np.ndarray, vocab_size: int) -> bool:
    """Whether the learner's one_hot gives the right answer for ids.ravel()."""
    flat = ids.ravel().copy()
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(one_hot(flat, vocab_size), dtype=np.float64)
        return probe.shape == (flat.size, vocab_size) and bool(
            np.array_equal(probe, ref.one_hot(flat, vocab_size))
        )
    return False


_SQUEEZED = (
    "The axes of size 1 are gone: did you .squeeze() the result (or the ids)? ids of shape "
    "{shape} give one-hot vectors of shape {expected}; a batch of one sequence, or of "
    "one-token sequences, keeps its axes of size 1. Return np.eye(vocab_size)[ids] as it is."
)


def _width_counted_from_ids(one_hot, width: int, ids: np.ndarray) -> str:
    """A width counted from the ids: the number of distinct ids (one column per id
    present, np.unique or pd.get_dummies) or the number of ids (len(ids)). When both
    give ``width`` here, ids with a repeat part them; "" when neither fits."""
    distinct, count = np.unique(ids).size, ids.shape[-1]
    present = (
        "the number of distinct ids in this batch: one column per id present (np.unique, "
        "pd.get_dummies) is not a one-hot over the vocabulary"
    )
    length = "the number of ids (len(ids)): the one-hot vectors are as long as the sequence"
    if width not in (distinct, count):
        return ""
    if distinct != count:
        return present if width == distinct else length
    probe_ids = np.array([1, 1, 4], dtype=ids.dtype)  # 2 distinct ids, 3 ids, max + 1 = 5
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(one_hot(probe_ids.copy(), 6))
    if probe is not None and probe.shape == (3, 2):
        return present
    if probe is not None and probe.shape == (3, 3):
        return length
    return f"the number of ids here, and of distinct ids: {present}, or {length}"


def _probe_shape(one_hot, ids: np.ndarray, vocab_size: int) -> tuple | None:
    """The shape one_hot returns for ids (None when it raises or returns no array)."""
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        return tuple(np.shape(one_hot(ids.copy(), vocab_size)))
    return None


def _size_one_axis_dropped(one_hot, ids: np.ndarray, vocab_size: int) -> str:
    """Which axis of size 1 one_hot drops, from ids with a size-1 axis first, (1, 3), and
    last, (3, 1): only the last one (a to_categorical-style rule), or only the first; ""
    when both go (a plain .squeeze()) or the probes cannot tell."""
    if one_hot is None or ids.ndim < 2:
        return ""
    first_ids = np.array([[2, 0, 3]]) % vocab_size  # (1, 3)
    last_ids = first_ids.T.copy()  # (3, 1)
    first_kept = _probe_shape(one_hot, first_ids, vocab_size) == (1, 3, vocab_size)
    last_kept = _probe_shape(one_hot, last_ids, vocab_size) == (3, 1, vocab_size)
    if first_kept and not last_kept:
        return (
            f"Only a last axis of size 1 is dropped: ids of shape {ids.shape} give "
            f"{tuple(d for d in (*ids.shape, vocab_size) if d != 1)} instead of "
            f"{(*ids.shape, vocab_size)}, while ids of shape (1, 3) keep their first axis of "
            f"size 1, (1, 3, {vocab_size}) as expected. Your code drops the ids' last axis when "
            "it has length 1 (if ids.shape[-1] == 1: ids = ids[..., 0], .squeeze(-1), or "
            "the same axis cut from the result; the rule of keras' to_categorical). Here ids of shape (batch, 1) "
            "are a batch of one-token sequences: keep that axis, np.eye(vocab_size)[ids] "
            "gives (batch, 1, vocab_size)."
        )
    if last_kept and not first_kept:
        return (
            f"Only a first axis of size 1 is dropped: ids of shape (1, 3) give "
            f"(3, {vocab_size}) instead of (1, 3, {vocab_size}), while ids of shape (3, 1) "
            f"keep their last axis, (3, 1, {vocab_size}). Your code removes a leading axis of "
            "length 1 (.squeeze(0), or ids[0] when len(ids) == 1): a batch of one sequence "
            "keeps its batch axis. Return np.eye(vocab_size)[ids] as it is."
        )
    return ""


def _width_max_or_one_short(one_hot, width: int, vocab_size: int) -> str:
    """The width is both max(ids) + 1 and vocab_size - 1 on the check's ids: a probe whose
    largest id is far below vocab_size tells the two apart; both are named when it does
    not (no one_hot, or the probe fails)."""
    probe, size = np.array([0, 1]), 6  # max(ids) + 1 = 2, vocab_size - 1 = 5
    got = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        got = np.asarray(one_hot(probe.copy(), size)).shape if one_hot is not None else None
    from_ids = (
        f"The last axis has length max(ids) + 1 = {width}: the width must be the vocab_size "
        f"argument ({vocab_size}), not guessed from the ids in this batch (a batch need not "
        "contain the largest id)."
    )
    one_short = (
        f"The last axis has length vocab_size - 1 = {width}, one column short: np.eye("
        "vocab_size - 1) (or a range stopping one early) has no column for the largest id. "
        "The width is vocab_size, np.eye(vocab_size), id i in column i."
    )
    if got == (2, 2):
        return from_ids
    if got == (2, 5):
        return one_short
    return (
        f"The last axis has length {width}: on these ids that is both max(ids) + 1 and "
        "vocab_size - 1, which they cannot tell apart. Either the width was guessed from the "
        "ids in this batch, or it is one short (np.eye(vocab_size - 1)); it must be the "
        f"vocab_size argument ({vocab_size})."
    )


def _one_hot_shape_hint(
    got: tuple, ids: np.ndarray, vocab_size: int, passed_several: bool = False, one_hot=None
) -> str:
    """``passed_several``: an earlier case with several ids passed, so the ids were not
    summed into one vector (a bag of words)."""
    expected = (*ids.shape, vocab_size)
    squeezed = tuple(d for d in expected if d != 1)
    if 1 in expected and got == squeezed and (ids.size > 1 or passed_several):
        return _size_one_axis_dropped(one_hot, ids, vocab_size) or _SQUEEZED.format(
            shape=ids.shape, expected=expected
        )
    if got == (vocab_size, *ids.shape):
        return (
            "The one-hot axis came first: the result looks transposed. Each token gets one row "
            "of length vocab_size, so the new axis goes last (pick rows of the identity matrix, "
            "not columns)."
        )
    if ids.ndim > 1 and got == (ids.size, vocab_size):
        return "You flattened the ids: keep their shape and add one axis of length vocab_size at the end."
    if ids.ndim > 1 and got == (ids.shape[0], vocab_size):
        return (
            "You made one vector per row of ids instead of one per id: did you assume 1-D ids "
            "(a loop over `ids`)? ids can have any shape, e.g. (batch, len); indexing an "
            "array with an array of ids handles every shape at once."
        )
    if got == (vocab_size,):
        return (
            "You returned a single vector: did you add the one-hot vectors up (a bag of words)? "
            "Each id needs its own one-hot vector."
        )
    if len(got) == ids.ndim + 1 and got[:-1] == ids.shape:
        if ids.size and got[-1] == int(ids.max()) + 1 == vocab_size - 1:
            return _width_max_or_one_short(one_hot, got[-1], vocab_size)
        if ids.size and got[-1] == int(ids.max()) + 1:
            return (
                f"The last axis has length max(ids) + 1 = {got[-1]}: the width must be the "
                f"vocab_size argument ({vocab_size}), not guessed from the ids in this batch "
                "(a batch need not contain the largest id)."
            )
        counted = _width_counted_from_ids(one_hot, got[-1], ids)
        if counted:
            return (
                f"The last axis has length {got[-1]}, {counted}. The width is the vocab_size "
                f"argument ({vocab_size}), and id i goes in column i, whether or not the "
                "other ids occur."
            )
        return f"The last axis must have length vocab_size = {vocab_size}."
    return (
        f"The ids have shape {ids.shape}, so the one-hot array has shape ids.shape + (vocab_size,)."
    )


def _ids_axes_reversed_hint(got: np.ndarray, ids: np.ndarray, vocab_size: int) -> str:
    """When the result is the one-hot array with the ids' axes reversed (the one-hot axis
    last): a .T on the identity's columns, or on the ids; "" otherwise."""
    if ids.ndim < 2 or ids.shape == ids.shape[::-1]:
        return ""
    reversed_ids = np.transpose(ref.one_hot(ids, vocab_size), (*range(ids.ndim)[::-1], ids.ndim))
    with contextlib.suppress(Exception):
        if tuple(got.shape) == reversed_ids.shape and np.array_equal(got, reversed_ids):
            return (
                f"Yours is the one-hot array with the ids' axes reversed, {got.shape} where "
                f"the ids have shape {ids.shape}: a .T reverses every axis, not just two. "
                "The identity's columns, np.eye(vocab_size)[:, ids], have shape "
                "(vocab_size, *ids.shape), and .T on them puts the one-hot axis last but also "
                "reverses the ids' axes (.T on the ids before indexing does the same); this "
                "is right only for 1-D ids. Pick rows instead, np.eye(vocab_size)[ids], "
                "which gives ids.shape + (vocab_size,) for ids of any shape."
            )
    return ""


_BOOL_ONE_HOT = (
    "A one-hot vector is a vector of numbers, and booleans are not numbers to numpy: they "
    "add up as logic (np.array([True]) + np.array([True]) is [True], not [2]), so summing "
    "one-hot vectors to count tokens would silently go wrong. Convert with "
    "`.astype(np.float64)`, or build the result from a float array in the first place."
)


def _several_ones(got: np.ndarray, ids: np.ndarray, vocab_size: int) -> str:
    """Vectors that do not hold exactly one 1: when every vector marks every id of the
    input (out[..., ids] = 1, the column index without its row index), say so."""
    row_sums = got.sum(axis=-1)
    counts = sorted({int(n) for n in np.ravel(row_sums)})
    held = (
        f"every one-hot vector holds {counts[0]} ones"
        if len(counts) == 1
        else f"your one-hot vectors hold {', '.join(map(str, counts[:-1]))} or {counts[-1]} ones"
    )
    flat = np.zeros(got.shape)
    flat.flat[np.ravel(ids)] = 1.0  # np.put(out, ids, 1): positions of the flattened array
    if np.array_equal(got, flat):
        return (
            f"{held}: your 1s sit at the positions {', '.join(map(str, np.ravel(ids)))} of "
            "the whole array flattened, so in its first row(s), not one per row. np.put(out, "
            "ids, 1), out.flat[ids] = 1 and out.ravel()[ids] = 1 read the ids as flat "
            "indices. Pair each id with its own row: np.put_along_axis(out, ids[..., None], "
            "1, axis=-1), out[np.arange(len(ids)), ids] = 1 for 1-D ids, or "
            "np.eye(vocab_size)[ids]."
        )
    every_id = np.zeros(vocab_size)
    every_id[np.ravel(ids)] = 1.0
    if np.unique(ids).size > 1 and np.array_equal(got, np.broadcast_to(every_id, got.shape)):
        return (
            f"{held}: each marks every id of the input ({', '.join(map(str, np.unique(ids)))}), "
            "not its own. That is what out[..., ids] = 1 (or out[:, ids] = 1) does: the ids "
            "pick columns for every row at once. Pair each id with its own row: "
            "out[np.arange(len(ids)), ids] = 1 for 1-D ids, or np.eye(vocab_size)[ids] for "
            "ids of any shape."
        )
    return f"{held}; each must hold exactly one 1, in column `id`."


def _ids_axis_models(probe_ids: np.ndarray, vocab_size: int) -> dict[str, np.ndarray]:
    """What the two readings of an id out of bounds for an axis of the ids' own length give
    on ``probe_ids`` (ids all below their length, so neither raises): {cause: result}."""
    n = len(probe_ids)
    rows = np.zeros((n, vocab_size))
    rows[probe_ids] = 1.0  # out[ids] = 1: whole rows picked by the ids
    return {
        "you indexed the first axis of the result with the ids (out[ids] = 1 sets the whole "
        "rows numbered by the ids, not one entry per id): pair each id with its own "
        "position, np.eye(vocab_size)[ids], or out[np.arange(len(ids)), ids] = 1 for 1-D "
        "ids": rows,
        "your one-hot width is the number of ids (np.eye(len(ids)), or ids.size), not "
        "vocab_size: the width comes from the vocab_size argument, np.eye(vocab_size)[ids]": (
            np.eye(n)[probe_ids]
        ),
    }


def _width_hint(vocab_size: int, ids=None, one_hot=None):
    """An id out of bounds for a size other than vocab_size. When that size is the length
    of one of the ids' axes, two readings give the error: the ids indexed the result's
    first axis (out[ids] = 1), or the width was counted from the ids (np.eye(len(ids)));
    a probe on ids that all fit tells them apart. Otherwise the width was not taken from
    the argument (a number written in, or counted from other ids)."""

    def hint(exc: BaseException) -> str:
        found = re.search(r"index (\d+) is out of bounds for axis \d+ with size (\d+)", str(exc))
        if not found or int(found[2]) == vocab_size:
            return ""
        size = int(found[2])
        if ids is not None and size in np.shape(ids):
            probe_ids, probe_size = np.array([1, 0, 0]), 5
            models = _ids_axis_models(probe_ids, probe_size)
            got = None
            if one_hot is not None:
                with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
                    got = np.asarray(one_hot(probe_ids.copy(), probe_size), dtype=float)
            agree = [
                cause
                for cause, model in models.items()
                if got is not None and got.shape == model.shape and np.array_equal(got, model)
            ]
            said = agree if len(agree) == 1 else list(models)
            lead = (
                f"Id {found[1]} fell outside an axis of size {size}, the length of the ids "
                f"(shape {tuple(np.shape(ids))}), where vocab_size is {vocab_size}"
            )
            if len(said) == 1:
                return (
                    f"{lead}; and on one_hot({probe_ids.tolist()}, {probe_size}), ids that all "
                    f"fit, yours gives what this reading gives: {said[0]}."
                )
            return (
                f"{lead}: two readings give this error, which these ids cannot tell apart: "
                f"(1) {said[0]}; (2) {said[1]}."
            )
        return (
            f"Id {found[1]} fell outside something of size {found[2]}, but vocab_size is "
            f"{vocab_size} here: the one-hot width must come from the vocab_size argument "
            "(np.eye(vocab_size)), not from a number written in or counted from the ids of "
            "another call."
        )

    return hint


def _not_zero_one_hint(got: np.ndarray, expected: np.ndarray) -> str:
    """Values other than 0 and 1 (got has expected's shape): what they are, where the
    entries at the ids and the others are each one constant (a target smoothed over the
    vocabulary, a scaled vector, a filled start), or the largest entry at each id."""
    got = np.asarray(got, dtype=float)
    at_id, elsewhere = got[expected == 1], got[expected == 0]
    if not at_id.size or not elsewhere.size:
        return ""
    high, low = float(at_id[0]), float(elsewhere[0])
    constant = np.allclose(at_id, high, atol=1e-9) and np.allclose(elsewhere, low, atol=1e-9)
    if constant and abs(low) <= 1e-12:
        return (
            f" Yours is {high:.4g} at the id and 0 elsewhere: the 1 was scaled (multiplied, "
            "or filled with another value). Put exactly 1 there: np.eye(vocab_size)[ids]."
        )
    if constant and 0 < low < high and np.allclose(got.sum(axis=-1), 1.0, atol=1e-6):
        return (
            f" Yours is a smoothed target, {high:.4g} at the id and {low:.4g} at every other "
            "entry, the rows summing to 1: label smoothing. That is a choice of the loss, "
            "applied to the targets while training (lesson 10, F.cross_entropy(..., "
            "label_smoothing=0.1)); a one-hot vector is exact, 1 at the id and 0 elsewhere, "
            "so that one_hot(ids) @ table picks exactly the id's row: np.eye(vocab_size)[ids]."
        )
    if constant and low != 0:
        return (
            f" Yours is {high:.4g} at the id and {low:.4g} at every other entry: the vectors "
            "did not start from zeros (np.ones or np.full?), or a constant was "
            "added. Start from zeros and set a single 1: np.eye(vocab_size)[ids]."
        )
    if np.array_equal(got.argmax(axis=-1), expected.argmax(axis=-1)):
        return (
            " Your largest entry of each vector is at the id, but the others are not 0: a "
            "distribution over the vocabulary (a softmax, a smoothed target) rather than the "
            "exact one-hot vector, np.eye(vocab_size)[ids]."
        )
    return ""


def _ids_narrowed_mistakes(ids: np.ndarray, vocab_size: int) -> dict:
    """The one-hot vectors of the ids cast to an 8-bit integer type first (uint8 wraps an
    id of 256 or more round modulo 256; int8 wraps 128 and above to negative ids, which
    index from the end): {message: model}, for the types that change these ids."""
    out = {}
    for dtype, bits in ((np.uint8, "0 .. 255"), (np.int8, "-128 .. 127")):
        narrowed = ids.astype(dtype).astype(np.int64)
        changed = np.flatnonzero(narrowed.ravel() != ids.ravel())
        if not changed.size or narrowed.min() < -vocab_size:
            continue
        negative = np.flatnonzero(narrowed.ravel() < 0)  # where int8 differs from uint8
        k = int(negative[0] if negative.size else changed[0])
        big, small = int(ids.ravel()[k]), int(narrowed.ravel()[k])
        column = small % vocab_size
        out[
            f"The 1 for id {big} sits in column {column}: the ids were cast to "
            f"{np.dtype(dtype).name} ({bits}) before indexing, so id {big} wrapped round to "
            f"{small}"
            + (f", which indexes from the end (column {column})" if small < 0 else "")
            + ". An 8-bit type cannot hold the ids of a vocabulary above "
            f"{np.iinfo(dtype).max + 1}: keep the ids' own integer type (int64), "
            "np.eye(vocab_size)[ids]."
        ] = np.eye(vocab_size)[narrowed]
    return out


def _no_new_axis_hint(ids: np.ndarray, vocab_size: int):
    """A broadcasting error between the vocabulary's (vocab_size,) and the ids' own shape:
    np.arange(vocab_size) compared with ids that have no last axis of their own (each id
    must meet all vocab_size columns). (matches, text) for ``c.call``."""
    ids_shape = "(" + ", ".join(str(n) for n in ids.shape) + ("," if ids.ndim == 1 else "") + ")"

    def matches(exc: BaseException) -> bool:
        text = str(exc)
        return (
            isinstance(exc, ValueError)
            and "broadcast" in text
            and f"({vocab_size},)" in text
            and ids_shape in text
        )

    def text(exc: BaseException) -> str:
        return (
            f"The vocabulary's {vocab_size} columns, shape ({vocab_size},), met the ids' own "
            f"shape {ids_shape} axis to axis: a comparison such as np.arange(vocab_size) == "
            "ids pairs them elementwise. Each id needs a row of vocab_size flags: give the ids "
            "a last axis of size 1 first, ids[..., None] == np.arange(vocab_size) "
            "(np.expand_dims(ids, -1)), which broadcasts to (*ids.shape, vocab_size)."
        )

    return (matches, text)


def check_one_hot(one_hot, *, hidden: bool = False) -> None:
    """one_hot(ids, vocab_size) -> (..., vocab_size) numbers with a single 1 per id.

    float64 is the reference's dtype; any float dtype passes, integer 0/1 arrays pass with
    a note; booleans fail (they add up as logic).
    """
    with Checker("one_hot", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(one_hot)
        passed_several = False  # a case with several ids has passed
        for ids, vocab_size in _one_hot_cases(hidden):
            what = f"one_hot({_ids_repr(ids)}, vocab_size={vocab_size})"
            expected = ref.one_hot(ids, vocab_size)
            try:
                got = c.call(
                    one_hot,
                    ids.copy(),
                    vocab_size,
                    call_repr=what,
                    hints=[
                        (IndexError, _width_hint(vocab_size, ids, one_hot)),
                        _no_new_axis_hint(ids, vocab_size),
                    ],
                    mutation_hint="one_hot only reads the ids.",
                )
            except CheckFailure as failure:
                if ids.ndim > 1 and _right_on_flat_ids(one_hot, ids, vocab_size):
                    raise CheckFailure(
                        failure.exercise,
                        f"{failure.message}\nYours is right on the same ids flattened to 1-D "
                        f"({_ids_repr(ids.ravel())}), and fails on their shape {ids.shape}: "
                        "ids can have any shape (a batch of sequences), and the result is "
                        "(*ids.shape, vocab_size). Index once with all the ids "
                        "(np.eye(vocab_size)[ids]), or flatten them and reshape the result.",
                        failure.learner_traceback,
                    ) from None
                raise
            c.expect_type(
                got,
                np.ndarray,
                what,
                "Return a numpy array (a torch tensor from F.one_hot converts with .numpy()).",
            )
            c.expect_shape(
                got,
                expected.shape,
                what,
                _ids_axes_reversed_hint(got, ids, vocab_size)
                or _one_hot_shape_hint(tuple(got.shape), ids, vocab_size, passed_several, one_hot),
            )
            c.expect_true(got.dtype != np.bool_, f"{what} holds booleans. {_BOOL_ONE_HOT}")
            if np.issubdtype(got.dtype, np.integer):
                c.note(
                    f"one_hot returns integers ({got.dtype}). numpy turns them into floats in "
                    "`one_hot(ids) @ table`, so that is fine here; in PyTorch, though, "
                    "`F.one_hot(ids) @ weight` fails (int64 times float32): there, convert "
                    "with .float()."
                )
                c.ok()
            else:
                c.expect_floating(got, what, preferred="float64")
            c.expect_true(
                bool(np.isin(got, (0, 1)).all()),
                f"{what} contains values other than 0 and 1: a one-hot vector is all zeros except "
                "a single 1 at the token's id." + _not_zero_one_hint(got, expected),
            )
            row_sums = got.sum(axis=-1)
            if not np.all(row_sums == 1):
                c.fail(f"{what}: {_several_ones(got, ids, vocab_size)}")
            c.expect_equal(
                got,
                expected,
                what,
                hint=lambda got=got, ids=ids, vocab_size=vocab_size: (
                    rows_read_sentence(
                        got, ids, np.eye(vocab_size), "Each of your vectors is one-hot"
                    )
                    or "The 1 for token id i belongs in column i (ids count from 0)."
                ),
                mistakes={
                    "The 1 sits one column too far left: did you subtract 1 from the ids? "
                    "Ids count from 0, and id i goes in column i.": np.roll(expected, -1, axis=-1),
                    "The 1 sits one column too far right: did you add 1 to the ids? "
                    "Ids count from 0, and id i goes in column i.": np.roll(expected, 1, axis=-1),
                    **_ids_narrowed_mistakes(ids, vocab_size),
                },
            )
            passed_several = passed_several or ids.size > 1


# ------------------------------------------------------------------ embed
def _embed_cases(hidden: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    if not hidden:
        rng = numpy_rng(20)
        table = rng.normal(size=(7, 5))  # (vocab_size, d_model)
        return [
            (np.array([3, 0, 4, 4]), table),
            (np.array([[6, 1, 2], [0, 0, 5]]), table),
            (
                np.array([[2, 5], [5, 1]], dtype=np.int32),
                rng.normal(size=(6, 3)).astype(np.float32),
            ),
            (np.array([[4, 1, 6]]), table),  # a batch of one sentence: (1, len)
            (np.array(2), table),  # a single id, shape (): ids of any shape include ()
        ]
    rng = numpy_rng(2020)
    cases = []
    for shape, vocab_size, d_model in (
        ((10,), 30, 8),
        ((3, 6), 13, 4),
        ((2, 2, 5), 9, 16),
        ((1, 1), 4, 3),
    ):
        table = rng.normal(size=(vocab_size, d_model))
        cases.append((rng.integers(0, vocab_size, size=shape), table))
    cases.append((np.array([[11, 11, 0]], dtype=np.int32), rng.normal(size=(12, 6))))
    cases.append((rng.integers(0, 20, size=(2, 4)), rng.normal(size=(20, 7)).astype(np.float32)))
    cases.append((np.array(8), rng.normal(size=(9, 4))))  # a single id, shape ()
    return cases


_COLUMNS_HINT = (
    "It looks like you indexed the columns of the table (`table[:, ids]`): a token's vector "
    "is a ROW of the table (vocab_size, d_model), so index its first axis with the ids."
)


_FLATTENED_IDS = (
    "You flattened the ids: keep their shape, and add one axis of length d_model at the end."
)


def _squeezed_or_flattened(embed, ids: np.ndarray, table: np.ndarray) -> str:
    """Ids (1, len): a squeeze and a flatten both give (len, d_model) with the right rows.
    Ids (2, 2) without an axis of size 1 part them."""
    probe_ids = np.array([[0, 1], [1, 0]], dtype=ids.dtype)
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(embed(probe_ids.copy(), np.asarray(table).copy()), dtype=np.float64)
    squeezed = (
        "Your values are the right rows, with every axis of size 1 removed: did you call "
        ".squeeze() (np.squeeze)? It also removes the axes of ids that happen to have size 1 "
        f"(these ids are {ids.shape}). Return table[ids] as it is: (..., d_model), whatever "
        "the ids' shape."
    )
    if probe is not None and probe.shape == (2, 2, table.shape[1]):
        return squeezed  # ids without an axis of size 1 keep their shape: no flatten
    if probe is not None and probe.shape == (4, table.shape[1]):
        return _FLATTENED_IDS
    return (
        f"Your values are the right rows, in shape {(ids.size, table.shape[1])}: the axis of "
        "size 1 of these ids is gone. On ids of this shape a .squeeze() and a flatten "
        "(ravel, reshape(-1)) both give that. Return table[ids] as it is: (..., d_model), "
        "whatever the ids' shape."
    )


def _embed_shape_hint(result: np.ndarray, ids: np.ndarray, table: np.ndarray, embed=None) -> str:
    vocab_size, d_model = table.shape
    got = tuple(result.shape)
    expected = np.asarray(table)[ids]  # (..., d_model)
    if 1 in expected.shape and got == np.squeeze(expected).shape:
        values = np.asarray(result, dtype=np.float64)
        if np.allclose(values, np.squeeze(expected), rtol=1e-5, atol=1e-6):
            return _squeezed_or_flattened(embed, ids, table)
    if got == ids.shape and np.array_equal(result, np.asarray(table).ravel()[ids]):
        return (
            "Yours gives one number per id, entry ids[i] of the table read as one flat list "
            "(table.ravel()[ids]): that is what np.take(table, ids) does without an axis. "
            "Pick whole rows: np.take(table, ids, axis=0), or table[ids]."
        )
    if got == (vocab_size, *ids.shape):
        return _COLUMNS_HINT
    if ids.ndim > 1 and got == (ids.size, d_model):
        return _FLATTENED_IDS
    if got == (*ids.shape, vocab_size):
        return (
            "That is the shape of one-hot vectors, (..., vocab_size): did you return the one-hot "
            "vectors without multiplying them by the table, or pick columns (`table[:, ids]`) "
            "and transpose? A token's vector is a ROW of the table, shape (..., d_model)."
        )
    if got == (d_model,):
        values = np.asarray(result, dtype=np.float64)
        rows = expected.reshape(-1, d_model)
        for how, combined in (("added", rows.sum(axis=0)), ("averaged", rows.mean(axis=0))):
            if np.allclose(values, combined, rtol=1e-5, atol=1e-6):
                return (
                    f"You returned a single vector, the rows {how} up: each id needs its own row."
                )
        return "You returned a single vector of length d_model: each id needs its own row, (..., d_model)."
    return "The result has the ids' shape plus one axis of length d_model: (..., d_model)."


def _square_table_hint(embed, ids: np.ndarray, table: np.ndarray) -> str:
    """After an error: with a square table (vocab_size = d_model) the two sizes cannot be
    confused; if the learner's embed is right there, it reads one for the other."""
    vocab_size, d_model = table.shape
    size = max(vocab_size, d_model)
    if vocab_size == d_model:
        return ""
    square = numpy_rng(7).normal(size=(size, size)).astype(table.dtype)
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(embed(ids.copy(), square.copy()), dtype=np.float64)
    if probe is None or probe.shape != (*ids.shape, size):
        return ""
    if not np.allclose(probe, square[ids], rtol=1e-5, atol=1e-6):
        return ""
    return (
        f" With a square table ({size}, {size}) yours gives the right rows, so it confuses the "
        f"table's two sizes: the vocabulary size is table.shape[0] ({vocab_size} here), the "
        f"width d_model is table.shape[1] ({d_model}). One-hot vectors need vocab_size "
        "columns (np.eye(table.shape[0])[ids] @ table), or index the rows directly, "
        "table[ids]."
    )


def _one_dim_hint(ids) -> str:
    """A TypeError raised on ids with more than one axis: the code takes one id at a time
    (int(i), or a loop over ids), which assumes 1-D ids."""
    return (
        f"These ids have shape {np.shape(ids)}: a loop over them yields whole rows, not single "
        "ids, and int(row) (or a row used where one id belongs) fails. Your code takes one "
        "id at a time, which assumes 1-D ids; ids may have any shape. Index the table with "
        "the whole array at once: table[ids] gives (..., d_model) for ids of any shape."
    )


_ALONG_AXIS_HINT = (
    "Only np.take_along_axis (or np.put_along_axis) raises this: it needs an index with as "
    "many dimensions as the table, one index per entry of the result. With 1-D ids, "
    "ids[:, None] broadcasts to whole rows and happens to work; ids of shape (batch, len) "
    "give a 3-D index against the 2-D table. A lookup indexes the table's first axis with "
    "the ids, whatever their shape: table[ids] (or np.take(table, ids, axis=0))."
)


_TUPLE_HINT = (
    "The table was indexed with as many indices as there are ids: your ids were read as one "
    "index per axis (a tuple, table[tuple(ids)], or table[ids[0], ids[1], ...]), the first "
    "id for the row, the second for the column, and the rest for axes the table does not "
    "have. A tuple index means one index per dimension; a lookup wants one row per id: "
    "index the first axis with a list or an array of ids, table[np.asarray(ids)]."
)


def _row_into_one_number_hint(exc: BaseException) -> str:
    """For numpy's "setting an array element with a sequence": np.vectorize named when it
    raised (its frames are in the traceback), the usual candidates otherwise."""
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    if any("vectorize" in frame.name for frame in frames):
        return (
            "np.vectorize expects your function to return one number per element of ids, "
            "and it builds an array of one number per id to hold them: your function "
            "returns a whole row of the table (d_model numbers) for each id, which does "
            "not fit in one element. A lookup needs no vectorize: table[ids] picks every "
            "row at once, for ids of any shape."
        )
    if "inhomogeneous" in str(exc):
        return ""
    return (
        "A whole row of the table (d_model numbers) was put where one number goes: an array "
        "made with one number per id (np.zeros(len(ids)), np.fromiter, or np.vectorize of "
        "a function that returns a row) cannot hold rows. table[ids] picks every row at "
        "once, giving ids.shape + (d_model,)."
    )


_SIZE_CLASH = re.compile(r"size (\d+) is different from (\d+)|shapes \((\d+),(\d+)\) and \((\d+),")


def _clashing_sizes(exc: BaseException) -> set[int]:
    """The two sizes a failed matrix product names, or an empty set."""
    found = _SIZE_CLASH.search(str(exc)) if isinstance(exc, ValueError) else None
    return {int(g) for g in found.groups() if g is not None} if found else set()


def _one_hot_width_hint(exc: BaseException, ids, table, embed) -> str:
    """A matrix product that fails because one size is the largest id + 1 (or the number of
    distinct ids) and the other the table's vocab_size: a one-hot matrix as wide as the ids
    need instead of as the table is tall. When the largest id + 1 is also d_model (a
    transposed table clashes with the same sizes), a probe with the ids [0, 1] tells them
    apart. "" otherwise."""
    sizes = _clashing_sizes(exc)
    if not sizes or np.size(ids) == 0 or np.ndim(table) != 2:
        return ""
    vocab, d_model = (int(n) for n in np.shape(table))
    top = int(np.max(ids)) + 1
    if vocab not in sizes or top == vocab:
        return ""
    if top == d_model and top in sizes:
        if vocab <= 2 or d_model == 2:
            return ""
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                embed(np.array([0, 1]), np.asarray(table).copy())
            return ""  # the probe ran: the width does not follow the ids
        except Exception as probe_exc:  # the same clash, now with the ids' width 2?
            if _clashing_sizes(probe_exc) != {2, vocab}:
                return ""
    if top in sizes:
        width = f"the largest id + 1 = {top} (np.eye(ids.max() + 1), or a one-hot sized by the ids)"
    elif len(np.unique(ids)) in sizes:
        width = f"the number of distinct ids, {len(np.unique(ids))}"
    else:
        return ""
    return (
        f"Your one-hot matrix is {width} wide, but the table has vocab_size = {vocab} rows: "
        "a one-hot product one_hot @ table needs one column per row of the table, "
        f"np.eye(table.shape[0])[ids] (here {vocab} wide), whatever ids happen to occur. "
        "Or index the table directly: table[ids]."
    )


def check_embed(embed, *, hidden: bool = False) -> None:
    """embed(ids, table) -> table[ids]: (...) ids, (vocab_size, d_model) table -> (..., d_model).

    Any floating result passes (the table's dtype is preferred, with a note otherwise).
    """
    with Checker("embed", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(embed)
        for ids, table in _embed_cases(hidden):
            what = f"embed({_ids_repr(ids)}, table of shape {table.shape}, dtype {table.dtype})"
            expected = ref.embed(ids, table)
            try:
                got = c.call(
                    embed,
                    ids.copy(),
                    table.copy(),
                    call_repr=what,
                    hints=[
                        (
                            lambda exc, ids=ids, table=table: bool(
                                _one_hot_width_hint(exc, ids, table, embed)
                            ),
                            lambda exc, ids=ids, table=table: _one_hot_width_hint(
                                exc, ids, table, embed
                            ),
                        ),
                        ("setting an array element with a sequence", _row_into_one_number_hint),
                        *{
                            "out of bounds for axis 1": _COLUMNS_HINT,
                            **(
                                {
                                    f"array is 2-dimensional, but {ids.size} were indexed": _TUPLE_HINT
                                }
                                if np.ndim(ids) == 1 and ids.size > 2 and table.ndim == 2
                                else {}
                            ),
                            **(
                                {
                                    "can be converted to Python scalars": _one_dim_hint(ids),
                                    "not a sequence": _one_dim_hint(ids),
                                    "`indices` and `arr` must have the same number of dimensions": (
                                        _ALONG_AXIS_HINT
                                    ),
                                }
                                if np.ndim(ids) > 1
                                else {}
                            ),
                        }.items(),
                    ],
                    mutation_hint="An embedding lookup only reads the table; it never writes to it.",
                )
            except CheckFailure as failure:
                named = _square_table_hint(embed, ids, table)
                if named:
                    raise failure.with_cause(named) from None
                raise
            c.expect_type(got, np.ndarray, what, "Return a numpy array.")
            c.expect_shape(got, expected.shape, what, _embed_shape_hint(got, ids, table, embed))
            c.expect_floating(got, what, preferred=table.dtype, expected=expected)
            vocab_size, d_model = table.shape
            c.expect_close(
                got,
                expected,
                what,
                **tolerance(got.dtype, table.dtype),
                hint=lambda got=got, ids=ids, table=table: (
                    rows_read_sentence(got, ids, table)
                    or "Row i of the result should be row ids[i] of the table."
                ),
                mistakes={
                    "Your rows are the right ones divided by their lengths (unit vectors, as "
                    "cosine_similarity makes them): a lookup returns the table's rows as they "
                    "are, table[ids], with nothing normalised.": ref.embed(
                        ids,
                        table / np.maximum(np.linalg.norm(table, axis=-1, keepdims=True), 1e-12),
                    ),
                    "You picked the row before the right one, table[ids - 1] (as if ids were "
                    "1-based): ids count from 0, so id i is `table[i]`, not `table[i - 1]`.": (
                        ref.embed((ids - 1) % vocab_size, table)
                    ),
                    "You picked the row after the right one: id i is `table[i]`, not "
                    "`table[i + 1]`.": ref.embed((ids + 1) % vocab_size, table),
                    "Your vectors are scaled by sqrt(d_model): the plain lookup has no scale "
                    "(the paper's sqrt(d_model) factor belongs to TokenEmbedding, later in this "
                    "lesson).": expected * math.sqrt(d_model),
                },
            )


# ------------------------------------------------------------------ cosine_similarity
def _cosine_cases(hidden: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    if not hidden:
        rng = numpy_rng(200)
        worked_a = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
        worked_b = np.array([[2.0, 0.0], [0.0, 3.0], [-1.0, -1.0], [3.0, 4.0]])
        a_same = rng.normal(size=(5, 6))
        b_same = rng.normal(size=(5, 6)) * 3.0
        a_short = rng.normal(size=(3, 4)) * 0.05  # vectors much shorter than 1
        b_short = rng.normal(size=(2, 4)) * 0.05
        a_zero = np.array([[1.0, 2.0, 2.0], [0.0, 0.0, 0.0]])
        b_zero = np.array([[2.0, 4.0, 4.0], [0.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
        return [
            (worked_a, worked_b),
            (a_same, b_same),
            (a_short, b_short),
            (a_zero, b_zero),
        ]
    rng = numpy_rng(2200)
    cases = []
    for n, m, d, scale in ((7, 3, 16, 1.0), (4, 4, 5, 1e4), (1, 9, 8, 1e-2), (6, 2, 3, 50.0)):
        a = rng.normal(size=(n, d)) * scale * rng.uniform(0.5, 3.0, size=(n, 1))
        b = rng.normal(size=(m, d)) * scale * rng.uniform(0.5, 3.0, size=(m, 1))
        cases.append((a, b))
    a = rng.normal(size=(3, 4))
    b = rng.normal(size=(5, 4))
    a[1] = 0.0
    b[[0, 3]] = 0.0
    cases.append((a, b))
    cases.append(
        (rng.normal(size=(4, 6)).astype(np.float32), rng.normal(size=(3, 6)).astype(np.float32))
    )
    return cases


def _norms_of_the_other_hint(cosine_similarity, message: str, a, b) -> str:
    """A broadcasting error between one matrix, (m, d) or (n, d), and the (n, 1) or (m, 1)
    row lengths of the other: one side divided by the other side's lengths (a copy-paste
    slip). Named when, on two matrices with as many rows (where nothing raises), the
    learner's values are that model's. "" otherwise."""
    n, m, d = len(a), len(b), a.shape[1]
    shapes = {
        f"shapes ({m},{d}) ({n},1)": "b",  # b divided by a's row lengths
        f"shapes ({n},{d}) ({m},1)": "a",  # a divided by b's row lengths
    }
    side = next((who for words, who in shapes.items() if words in message), None)
    if side is None or n == m:
        return ""
    rng = numpy_rng(4242)
    pa, pb = rng.normal(size=(3, 4)), rng.normal(size=(3, 4)) * 3.0
    na = np.linalg.norm(pa, axis=-1, keepdims=True)
    nb = np.linalg.norm(pb, axis=-1, keepdims=True)
    model = (pa / na) @ (pb / na).T if side == "b" else (pa / nb) @ (pb / nb).T
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            got = np.asarray(cosine_similarity(pa.copy(), pb.copy()), dtype=np.float64)
    except Exception:
        return ""
    if got.shape != model.shape or not np.allclose(got, model, atol=1e-6):
        return ""
    mine, other = ("b", "a") if side == "b" else ("a", "b")
    used = "|a[i]| |a[j]|" if side == "b" else "|b[i]| |b[j]|"
    return (
        f"You divided the rows of `{mine}` by the row lengths of `{other}` (a copy-paste slip: "
        f"np.linalg.norm({other}, ...) where np.linalg.norm({mine}, ...) belongs): here they "
        f"have {n} and {m} rows, so the shapes clash, and on two matrices with as many rows "
        f"yours runs and divides entry (i, j) by {used} where |a[i]| |b[j]| belongs, "
        f"{mine}'s own lengths never used. Normalise each matrix by its own row "
        f"lengths: {mine} / np.linalg.norm({mine}, axis=-1, keepdims=True)."
    )


def _cosine_over_pair_axis(values: np.ndarray, a: np.ndarray, b: np.ndarray) -> str:
    """The cosine of the broadcast pairs a[:, None, :] and b[None, :, :] (n, m, d) taken
    along axis 0 (a's rows) or 1 (b's rows) instead of the features, axis -1: what
    F.cosine_similarity gives with its default dim=1 (or dim=0); "" otherwise."""
    a_pairs = np.broadcast_to(a.astype(np.float64)[:, None, :], (len(a), len(b), a.shape[-1]))
    b_pairs = np.broadcast_to(b.astype(np.float64)[None, :, :], a_pairs.shape)  # (n, m, d)
    names = {0: "a's rows (n)", 1: "b's rows (m)"}
    for axis, rows in names.items():
        lengths = np.linalg.norm(a_pairs, axis=axis) * np.linalg.norm(b_pairs, axis=axis)
        model = (a_pairs * b_pairs).sum(axis=axis) / np.maximum(lengths, 1e-8)
        if values.shape != model.shape or not np.allclose(values, model, atol=1e-5):
            continue
        return (
            f"Yours has shape {values.shape}: the cosine of the broadcast pairs "
            "a[:, None, :] and b[None, :, :], (n, m, d), taken along axis "
            f"{axis}, {rows}, instead of along the features, the last axis: the features "
            f"remain and the axis of {rows} is gone. F.cosine_similarity does that with "
            f"dim={axis}" + (", its default" if axis == 1 else "") + ": pass dim=-1, "
            "F.cosine_similarity(a[:, None, :], b[None, :, :], dim=-1), (n, m)."
        )
    return ""


def _combined_inputs_hint(got, a: np.ndarray, b: np.ndarray) -> str:
    """A result of another shape whose numbers show how the inputs were combined: every
    entry of the unit rows times every entry (np.outer flattens its arguments), or the
    cosines of a and b stacked into one matrix (each stacked row against every other, the
    (n, m) block of a against b inside it); "" otherwise."""
    n, m, d = len(a), len(b), a.shape[-1]
    try:
        values = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return ""
    a_unit, b_unit = _normalised(a.astype(np.float64)), _normalised(b.astype(np.float64))
    if values.shape == (n * d, m * d) and np.allclose(values, np.outer(a_unit, b_unit), atol=1e-5):
        return (
            f"Yours is every entry of a's unit rows times every entry of b's, shape (n * d, "
            f"m * d) = ({n * d}, {m * d}): np.outer flattens both arrays before multiplying, "
            "so it pairs numbers, not rows. The outer product of the rows' *lengths* is a "
            "denominator; the cosines are the dot products of the unit rows, "
            "a_unit @ b_unit.T, (n, m)."
        )
    hint = _cosine_over_pair_axis(values, a, b)
    if hint:
        return hint
    stacked = _normalised(np.concatenate([a, b]).astype(np.float64))  # (n + m, d)
    if values.shape == (n + m, n + m) and np.allclose(values, stacked @ stacked.T, atol=1e-5):
        return (
            f"Yours is the cosine of every row of a and b stacked into one matrix with every "
            f"other, shape (n + m, n + m) = ({n + m}, {n + m}): a's rows against each other "
            "and b's against themselves too, as scikit-learn's cosine_similarity(X) does with "
            f"one argument. The answer is only its block of a's rows against b's, [:{n}, "
            f"{n}:]: compare a with b, a_unit @ b_unit.T, without stacking them."
        )
    return ""


_PAIRWISE_HINT = (
    "cosine_similarity is pairwise: entry (i, j) compares row i of `a` with row j of `b`, "
    "for every pair, so the result has shape (n, m). One matrix product of the normalised "
    "rows computes all of them at once."
)


def _same_numbers(got, a: np.ndarray, b: np.ndarray) -> bool:
    """True when ``got`` holds the reference's cosines, in any shape of as many entries."""
    expected = ref.cosine_similarity(a, b)
    with contextlib.suppress(Exception):
        values = np.asarray(got, dtype=np.float64)
        return values.size == expected.size and np.allclose(
            values.reshape(-1), expected.reshape(-1), rtol=1e-4, atol=1e-5
        )
    return False


def _row_by_row_hint(a: np.ndarray, b: np.ndarray):
    """For a broadcast error between the n rows of a and the m rows of b (n != m): row i
    of a was compared with row i of b only, as F.cosine_similarity(a, b) or a * b do.
    (matches, text) for ``c.call``'s hints."""
    n, m = len(a), len(b)

    def matches(exc: BaseException) -> bool:
        text = str(exc)
        torch_sizes = re.search(
            r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)", text
        )
        if torch_sizes:
            return {int(torch_sizes[1]), int(torch_sizes[2])} == {n, m}
        shapes = re.findall(r"\(([\d,\s]+)\)", text)
        found = {tuple(int(k) for k in shape.split(",") if k.strip()) for shape in shapes}
        return "could not be broadcast" in text and {a.shape, b.shape} <= found

    text = (
        f"You compared row i of `a` with row i of `b` only (element by element, as "
        f"F.cosine_similarity(a, b), a * b or a zip over the rows do): that needs as many rows "
        f"in b as in a, and here a has {n} and b {m}. cosine_similarity is pairwise: entry "
        "(i, j) compares row i of a with row j of b, for every pair, shape (n, m): the "
        "normalised rows' product a_unit @ b_unit.T (or F.cosine_similarity(a[:, None, :], "
        "b[None, :, :], dim=-1))."
    )
    return (matches, text)


def _eps_too_large(a, b) -> dict:
    """An eps that is too large to leave the cosines alone, added to each length or to
    the product of the lengths: {message: model} for a few usual values (1e-8, PyTorch's,
    and anything as small passes the check)."""
    la = np.linalg.norm(a, axis=-1, keepdims=True)
    lb = np.linalg.norm(b, axis=-1, keepdims=True)
    out = {}
    for eps in (1.0, 0.5, 0.1, 0.01, 1e-3):
        out[
            f"Each length had {eps:g} added to it (x / (norm + {eps:g})): an eps that large "
            "shrinks every cosine, most for short vectors. The guard against zero vectors "
            "must leave the others alone: np.maximum(norm, 1e-12), or an eps of 1e-8 as "
            "PyTorch uses."
        ] = (a / (la + eps)) @ (b / (lb + eps)).T
        out[
            f"The product of the lengths had {eps:g} added to it (a·b / (|a| |b| + {eps:g})): "
            "an eps that large shrinks every cosine, most for short vectors. The guard "
            "against zero vectors must leave the others alone: a floor of 1e-12 under each "
            "length, or an eps of 1e-8 as PyTorch uses."
        ] = (a @ b.T) / (la * lb.T + eps)
    return out


def _eps_added_to_entries(a, b, has_zero: bool) -> dict:
    """When some row is a zero vector: the cosines of a + eps and b + eps, a tiny eps added
    to every entry (any tiny eps gives the same: a zero row becomes eps * ones, whose
    direction does not depend on eps; the other rows barely move)."""
    if not has_zero:
        return {}
    eps = 1e-8
    return {
        "Every cosine is right except those that involve a zero vector: a tiny eps was "
        "added to every entry of the vectors (a + 1e-8), which barely moves a nonzero "
        "vector but turns a zero vector into the all-eps vector, and that one has a "
        "direction (every entry equal): its similarity with a row is that row's entry sum "
        "over its length and sqrt(d), and 1 with another zero vector, where a zero vector "
        "should give 0. Guard the lengths, not the entries: divide by np.maximum(length, "
        "1e-12).": ref.cosine_similarity(a + eps, b + eps)
    }


def _zero_vector_value(got: np.ndarray, expected: np.ndarray, a, b) -> dict:
    """When every entry is right except those that involve a zero vector, and these all
    hold one same value other than 0 (a NaN replaced by 1, say): that value named, as a
    model for expect_close's mistakes ({} otherwise)."""
    zero = (np.linalg.norm(a, axis=-1) == 0)[:, None] | (np.linalg.norm(b, axis=-1) == 0)[None, :]
    if got.shape != expected.shape or not zero.any() or zero.all():
        return {}
    if not np.allclose(got[~zero], expected[~zero], rtol=1e-4, atol=1e-5):
        return {}
    values = got[zero]
    if not np.isfinite(values).all() or not np.allclose(values, values.flat[0], atol=1e-6):
        return {}
    value = float(values.flat[0])
    if abs(value) < 1e-6:
        return {}
    model = expected.copy()
    model[zero] = value
    return {
        f"Every cosine is right except those that involve a zero vector, which you set to "
        f"{value:g} (a NaN replaced by it, np.nan_to_num(..., nan={value:g}), or an np.where "
        "on the zero lengths): a zero vector has no direction, and the convention here (as "
        "in PyTorch and scikit-learn) gives it similarity 0 with everything. Divide by "
        "np.maximum(length, 1e-12) instead, and the zero rows stay zero.": model
    }


_TRANSPOSE_HINT = (
    "`a` is (n, d) and `b` is (m, d): both hold one vector per row, so a product that pairs "
    "every row of `a` with every row of `b` needs the transpose of b, b.T (d, m): "
    "a_unit @ b_unit.T."
)


def _matmul_operands_hint(a: np.ndarray, b: np.ndarray):
    """For matmul's core-dimension error: which product of a, a.T, b, b.T (normalised or
    not) gives exactly the two sizes the error names, when only one does. (matches, text)
    for ``c.call``'s hints."""
    shapes = {"a": a.shape, "a.T": a.shape[::-1], "b": b.shape, "b.T": b.shape[::-1]}

    def products(exc: BaseException) -> list[str]:
        text = str(exc)
        # np.matmul / @ names the two inner sizes; np.dot and torch name both shapes
        inner = re.search(r"size (\d+) is different from (\d+)", text)
        both = re.search(r"shapes \((\d+), ?(\d+)\) and \((\d+), ?(\d+)\) not aligned", text)
        both = both or re.search(r"cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)", text)
        if both:
            sizes = [int(n) for n in both.groups()]
            fits = lambda x, y: (*x, *y) == tuple(sizes)  # noqa: E731
        elif inner:
            fits = lambda x, y: (y[0], x[-1]) == (int(inner[1]), int(inner[2]))  # noqa: E731
        else:
            return []
        return [
            f"{left} @ {right}"
            for left, x in shapes.items()
            for right, y in shapes.items()
            if left[0] != right[0] and fits(x, y)
        ]

    def text(exc: BaseException) -> str:
        (product,) = products(exc)
        if product == "a @ b":
            return (
                f"Your product is a @ b (normalised or not), b not transposed: it pairs the "
                f"{a.shape[1]} features of each row of a with the {b.shape[0]} rows of b. b "
                "holds one vector per row, like a, so the product that pairs every row of a "
                "with every row of b is with the transpose of b: a_unit @ b_unit.T, (n, d) @ "
                "(d, m)."
            )
        return (
            f"Your product is {product} (normalised or not): its operands' inner sizes "
            f"differ. a is (n, d) = {a.shape} and b is (m, d) = {b.shape}, both one vector per "
            "row: the pairwise product is a_unit @ b_unit.T, (n, d) @ (d, m) = (n, m)."
        )

    return (lambda exc: len(products(exc)) == 1, text)


_ZERO_VECTOR_NAN = (
    "A zero vector has length 0, so a·b / (|a| |b|) is 0/0 = NaN there. The convention here "
    "(the same as PyTorch's F.cosine_similarity and scikit-learn's cosine_similarity) is that "
    "a zero vector has similarity 0 with everything, because a NaN spreads: np.argmax picks a "
    "NaN as the largest value, and a sum or mean over a row holding one NaN is NaN. Guard the "
    "division so that it never divides by 0 (a tiny floor under the lengths, or an eps added "
    "to them, as PyTorch does)."
)


def _normalised(x: np.ndarray, axis=-1) -> np.ndarray:
    norm = np.linalg.norm(x, axis=axis, keepdims=True)
    return x / np.maximum(norm, 1e-12)


#: how one argument's rows may be scaled: (what was done, the rows it gives)
_SCALINGS = {
    "divided by its own length": lambda x: _normalised(x),
    "not normalised": lambda x: x,
    "divided by norms taken over axis 0 (one per column, across different vectors) instead "
    "of each row's own length (axis=-1, keepdims=True)": lambda x: _normalised(x, 0),
    "divided by the norm of the whole matrix instead of each row's own length": (
        lambda x: _normalised(x, None)
    ),
    "multiplied by its lengths instead of divided by them": (
        lambda x: x * np.linalg.norm(x, axis=-1, keepdims=True)
    ),
    "divided by its squared lengths instead of its lengths": (
        lambda x: x / np.maximum((x * x).sum(-1, keepdims=True), 1e-24)
    ),
}
_SAME_FOR_BOTH = ("not normalised", "divided by norms taken", "divided by the norm of the whole")


def _scaling_mistakes(
    a: np.ndarray, b: np.ndarray, read: dict[str, np.ndarray] | None = None
) -> dict[str, np.ndarray]:
    """Each argument scaled its own way (one of them wrongly): {diagnosis: result}. The
    symmetric mistakes and "only one normalised" have messages of their own. ``read``, the
    learner's denominator read from their values (:func:`_denominator_mistakes`), replaces
    the scalings that give the same numbers: it names them among its causes."""
    if read:
        return read
    out = {}
    for how_a, scale_a in _SCALINGS.items():
        for how_b, scale_b in _SCALINGS.items():
            right = "divided by its own length"
            if how_a == how_b or {how_a, how_b} == {right, "not normalised"}:
                continue
            parts = [f"`{name}` was {how}" for name, how in (("a", how_a), ("b", how_b))]
            wrong = [part for part, how in zip(parts, (how_a, how_b)) if how != right]
            out[
                f"{' and '.join(wrong)}"
                + (f" (while {parts[0 if how_a == right else 1]})" if len(wrong) == 1 else "")
                + ". Each row of a and of b is divided by its own length: "
                "x / np.linalg.norm(x, axis=-1, keepdims=True)."
            ] = scale_a(a) @ scale_b(b).T
    return out


def _power_of_length(power: float) -> str:
    """How a row divided by ``power`` of its length was scaled, in words."""
    if power == 0.5:
        return (
            "the square root of its length (np.sqrt of np.linalg.norm: the norm is already "
            "the square root of the sum of squares, so it was rooted twice)"
        )
    if power == 1:
        return "its length, rightly"
    if power == 0:
        return "nothing (not normalised)"
    if power == 2:
        return "its squared length (the sum of squares, x·x, without its square root)"
    if power == -1:
        return "the inverse of its length (multiplied by its length)"
    return f"its length to the power {power:g}"


def _norm_power_mistakes(a: np.ndarray, b: np.ndarray, got) -> dict[str, np.ndarray]:
    """Each argument's rows divided by a power of their lengths other than 1, read from
    the learner's output: log(a·b / yours) = p log|a_i| + q log|b_j| fitted over the pairs
    whose dot product is not near 0, p and q rounded to halves, {diagnosis: its result}
    when that result is the learner's (blind23a-b23a-cos-norms-rooted-twice was asked
    whether each vector was divided by its length). Needs rows of several lengths in
    both arguments, else the powers cannot be told apart; {} then, or on any failure."""
    with contextlib.suppress(Exception):
        values = np.asarray(got, dtype=np.float64)  # (n, m)
        dots = a @ b.T  # (n, m)
        len_a, len_b = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)  # (n,), (m,)
        if values.shape != dots.shape or not (len_a > 0).all() or not (len_b > 0).all():
            return {}
        log_a, log_b = np.log(len_a), np.log(len_b)
        if np.ptp(log_a) < 0.1 or np.ptp(log_b) < 0.1:
            return {}
        usable = (np.abs(dots) > 1e-6) & np.isfinite(values) & (values * dots > 0)
        if usable.sum() < 4:
            return {}
        rows, cols = np.nonzero(usable)
        design = np.stack([log_a[rows], log_b[cols]], axis=1)  # (pairs, 2)
        target = np.log(dots[usable] / values[usable])  # (pairs,)
        fitted = np.linalg.lstsq(design, target, rcond=None)[0]
        power_a, power_b = (float(np.round(2 * x) / 2) for x in fitted)
        if {power_a, power_b} <= {-1.0, 0.0, 1.0, 2.0}:
            return {}  # right, or a mistake _SCALINGS and the messages above name
        predicted = dots / np.outer(len_a**power_a, len_b**power_b)  # (n, m)
        if not np.allclose(values, predicted, rtol=1e-4, atol=1e-6):
            return {}
        how = (
            f"each row of a and of b was divided by {_power_of_length(power_a)}"
            if power_a == power_b
            else f"each row of a was divided by {_power_of_length(power_a)}, each row of b by "
            f"{_power_of_length(power_b)}"
        )
        return {
            f"Your values are a·b divided by other powers of the lengths than the lengths "
            f"themselves: {how}. A cosine is a·b / (|a| |b|): divide each row by its length, "
            "np.linalg.norm(x, axis=-1, keepdims=True), as it is.": predicted
        }
    return {}


#: what a denominator of two row lengths other than |a[i]| |b[j]| most likely came from
_DENOMINATOR_READINGS = {
    (("|a[i]|", 2),): "a's length twice, b's lengths never used: the norm of a[i] where the "
    "norm of b[j] belongs (a copy-paste slip), or, the same numbers, each row of a divided by "
    "its squared length and b left as it is",
    (("|b[j]|", 2),): "b's length twice, a's lengths never used: the norm of b[j] where the "
    "norm of a[i] belongs (a copy-paste slip), or, the same numbers, each row of b divided by "
    "its squared length and a left as it is",
    (("|a[i]|", 1), ("|a[j]|", 1)): "a's lengths on both sides, b's never used: b's rows "
    "divided by a's row lengths (a copy-paste slip), or an outer product of a's lengths with "
    "themselves; with different numbers of rows in a and b the shapes clash",
    (("|b[i]|", 1), ("|b[j]|", 1)): "b's lengths on both sides, a's never used: a's rows "
    "divided by b's row lengths (a copy-paste slip), or an outer product of b's lengths with "
    "themselves; with different numbers of rows in a and b the shapes clash",
    (("|a[j]|", 1), ("|b[i]|", 1)): "the lengths in the wrong order: np.outer(b_norm, "
    "a_norm) where np.outer(a_norm, b_norm) belongs",
    (("|a[i]|", 1), ("|b[i]|", 1)): "both lengths taken at the row's index i: b's length "
    "read at i where j belongs (an elementwise product of the two norm vectors, kept as a "
    "column)",
    (("|a[j]|", 1), ("|b[j]|", 1)): "both lengths taken at the column's index j: a's length "
    "read at j where i belongs (an elementwise product of the two norm vectors, as a row)",
}


def _denominator_mistakes(a: np.ndarray, b: np.ndarray, got, expected) -> dict[str, np.ndarray]:
    """The learner's denominator read from the ratio of their values to the cosines
    (:func:`~transformer_course.checking.pair_factors.pair_factors`): entry (i, j) divided
    by two row lengths other than |a[i]| |b[j]| (one copied where the other belongs, read at
    the other index, in the wrong order), named as that product with what gives it, every
    cause the numbers allow. With as many rows in a as in b, a's and b's lengths at the
    other index are candidates too. {diagnosis: the learner's values}, {} otherwise."""
    with contextlib.suppress(Exception):
        len_a, len_b = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
        rows, cols = {"|a[i]|": len_a}, {"|b[j]|": len_b}
        if len(a) == len(b):
            rows["|b[i]|"], cols["|a[j]|"] = len_b, len_a
        powers = pair_factors(got, expected, rows, cols)
        if not powers:
            return {}
        denominator = {"|a[i]|": 1.0, "|b[j]|": 1.0}
        for name, power in powers.items():
            denominator[name] = denominator.get(name, 0.0) - power
        kept = tuple(sorted((name, p) for name, p in denominator.items() if p != 0))
        if any(p < 0 or p != int(p) for _, p in kept) or sum(p for _, p in kept) != 2:
            return {}
        reading = _DENOMINATOR_READINGS.get(tuple((name, int(p)) for name, p in kept), "")
        if not reading:
            return {}
        written = " ".join(" ".join([name] * int(p)) for name, p in kept)
        return {
            f"Your entry (i, j) is a[i]·b[j] divided by {written} where |a[i]| |b[j]| belongs: "
            f"{reading}. Entry (i, j) needs a's length at i and b's at j: a[i]·b[j] / "
            "(|a[i]| |b[j]|), or normalise each matrix by its own row lengths, "
            "x / np.linalg.norm(x, axis=-1, keepdims=True), then a_unit @ b_unit.T.": np.asarray(
                got, dtype=np.float64
            )
        }
    return {}


def _mirrored_text(fill: str, raised: bool) -> str:
    return (
        "Your table is filled as if it were symmetric (a self-similarity of one matrix with "
        f"itself): {MIRRORED_FILLS[fill]}. The cosine of a[i] and b[j] equals that of a[j] "
        "and b[i] only when a is b; for two matrices entry (i, j) compares a[i] with b[j] "
        "alone"
        + (
            ", and with n != m rows the mirror (j, i) falls outside the (n, m) table, which "
            "is the IndexError"
            if raised
            else ""
        )
        + ". Write each pair once, out[i, j] = ..., with no mirrored write (or a_unit @ "
        "b_unit.T)."
    )


def _mirrored_mistakes(got: np.ndarray, expected: np.ndarray) -> dict[str, np.ndarray]:
    """A square table filled as if symmetric (:func:`~transformer_course.checking.
    mirrored.mirrored_fill`): {diagnosis: the learner's values}, {} otherwise."""
    fill = mirrored_fill(got, expected)
    return {_mirrored_text(fill, raised=False): got} if fill else {}


def _mirrored_probe_hint(cosine_similarity, d: int) -> str:
    """After an IndexError with n != m: on two different matrices with as many rows
    (nothing falls outside), is the learner's table the right one filled as if
    symmetric? The sentence that says so, "" otherwise."""
    rng = numpy_rng(6161)
    pa = rng.normal(size=(4, d)) * rng.uniform(0.5, 3.0, size=(4, 1))
    pb = rng.normal(size=(4, d)) * rng.uniform(0.5, 3.0, size=(4, 1))
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(cosine_similarity(pa.copy(), pb.copy()), dtype=np.float64)
    fill = mirrored_fill(probe, ref.cosine_similarity(pa, pb)) if probe is not None else ""
    return " " + _mirrored_text(fill, raised=True) if fill else ""


def _with_itself(got, a: np.ndarray, b: np.ndarray) -> str:
    """A square result of the wrong size, n != m: the cosines of one argument's rows with
    each other (a_unit @ a_unit.T, or b's), when its values are exactly those. "" else."""
    with contextlib.suppress(Exception):
        values = np.asarray(got, dtype=np.float64)
        for name, other, x in (("a", "b", a), ("b", "a", b)):
            model = ref.cosine_similarity(x.astype(np.float64), x.astype(np.float64))
            if values.shape == model.shape and np.allclose(values, model, rtol=1e-4, atol=1e-5):
                size = len(x)
                return (
                    f"Your values are the cosines of `{name}` with itself ({name}_unit @ "
                    f"{name}_unit.T, shape ({size}, {size})): `{other}` is never used in the "
                    f"result (a copy-paste slip). Entry (i, j) compares row i of a with row j "
                    "of b: a_unit @ b_unit.T, shape (n, m)."
                )
    return ""


def _norm_product_hint(cosine_similarity, a: np.ndarray, b: np.ndarray) -> str:
    """After a broadcasting error: with as many rows in a as in b, does the learner's
    function divide a @ b.T by the elementwise product of the two norm vectors?"""
    k = min(len(a), len(b))
    a2, b2 = a[:k].astype(np.float64), b[:k].astype(np.float64)
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(cosine_similarity(a2.copy(), b2.copy()), dtype=np.float64)
    norms = np.linalg.norm(a2, axis=-1) * np.linalg.norm(b2, axis=-1)  # (k,): elementwise
    if probe is None or probe.shape != (k, k) or not np.allclose(probe, a2 @ b2.T / norms):
        return ""
    return (
        f" With {k} rows in both, yours runs and gives a @ b.T / (|a| * |b|) where |a| * |b| "
        "is the elementwise product of the two norm vectors: entry (i, j) is divided by "
        "|a[j]| |b[j]|, and with different numbers of rows it cannot broadcast. Entry (i, j) "
        "needs |a[i]| |b[j]|, the outer product: np.linalg.norm(a, axis=1)[:, None] * "
        "np.linalg.norm(b, axis=1)[None, :] (or normalise the rows first)."
    )


def _implied_denominator_hint(cosine_similarity, a: np.ndarray, b: np.ndarray) -> str:
    """After a broadcasting error: with as many rows in a as in b, the learner's function
    runs; read the denominator it divides a @ b.T by (a @ b.T / yours) and name it when it
    is one product of row lengths other than |a[i]| |b[j]|: the outer product in the
    wrong order (|b[i]| |a[j]|), or one matrix's lengths twice. "" otherwise."""
    k = min(len(a), len(b))
    if k < 2:
        return ""
    rng = numpy_rng(5151)
    a2 = rng.normal(size=(k, a.shape[1])) * rng.uniform(0.5, 3.0, size=(k, 1))  # (k, d)
    b2 = rng.normal(size=(k, a.shape[1])) * rng.uniform(0.5, 3.0, size=(k, 1))  # (k, d)
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(cosine_similarity(a2.copy(), b2.copy()), dtype=np.float64)
    if probe is None or probe.shape != (k, k) or not np.all(np.isfinite(probe)):
        return ""
    na, nb = np.linalg.norm(a2, axis=-1), np.linalg.norm(b2, axis=-1)  # (k,), (k,)
    dots = a2 @ b2.T  # (k, k)
    candidates = {
        "|b[i]| |a[j]|: the outer product of the lengths in the wrong order, np.outer(b_norm, "
        "a_norm) (or b_norm[:, None] * a_norm[None, :]), shape (m, n) where (n, m) belongs, "
        "so with different numbers of rows it cannot broadcast": np.outer(nb, na),
        "|a[i]| |a[j]|: the lengths of `a` on both sides, b's lengths never used (an outer "
        "product of a's lengths with themselves, or b's rows divided by a's lengths)": np.outer(
            na, na
        ),
        "|b[i]| |b[j]|: the lengths of `b` on both sides, a's lengths never used (an outer "
        "product of b's lengths with themselves, or a's rows divided by b's lengths)": np.outer(
            nb, nb
        ),
    }
    found = [
        why for why, denominator in candidates.items() if np.allclose(probe, dots / denominator)
    ]
    if len(found) != 1:
        return ""
    return (
        f" With {k} rows in both, yours runs and divides entry (i, j) of a @ b.T by "
        f"{found[0]}. Entry (i, j) needs |a[i]| |b[j]|: np.outer(a_norm, b_norm), shape "
        "(n, m), or normalise the rows of each matrix first."
    )


def _product_normalised_mistakes(a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """a @ b.T divided by something other than |a[i]| |b[j]|: the product matrix itself
    normalised (its rows, its columns, the whole matrix), or only one side's lengths."""
    dots = a @ b.T  # (n, m)
    a_len = np.linalg.norm(a, axis=-1, keepdims=True)  # (n, 1)
    b_len = np.linalg.norm(b, axis=-1, keepdims=True).T  # (1, m)
    row_len = np.linalg.norm(dots, axis=-1, keepdims=True)  # (n, 1)
    col_len = np.linalg.norm(dots, axis=0, keepdims=True)  # (1, m)
    whole = np.linalg.norm(dots)
    fix = (
        " Entry (i, j) is a[i]·b[j] / (|a[i]| |b[j]|): divide by the lengths of the rows of "
        "a and of b (np.outer(a_len, b_len)), or normalise the rows of a and of b first and "
        "then take a @ b.T."
    )
    candidates = {
        "Each row of your result was divided by its own length: you normalised the rows of "
        "the product matrix a @ b.T (np.linalg.norm(dots, axis=-1)), not the vectors, so "
        "each row is a unit vector over b's rows and b's lengths are never used.": (
            dots,
            row_len,
        ),
        "Each column of your result was divided by its own length: you normalised the "
        "columns of the product matrix a @ b.T (np.linalg.norm(dots, axis=0)), not the "
        "vectors, so a's lengths are never used.": (dots, col_len),
        "Your result is a @ b.T divided by one number, the length of the whole product "
        "matrix (np.linalg.norm(dots) with no axis): the norm of the products, not of the "
        "vectors.": (dots, whole),
        "Your result is a @ b.T divided by the lengths of a's rows alone: b's lengths are "
        "never used.": (dots, a_len),
        "Your result is a @ b.T divided by the lengths of b's rows alone: a's lengths are "
        "never used.": (dots, b_len),
    }
    found = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for why, (top, bottom) in candidates.items():
            value = np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1.0), 0.0)
            found[why + fix] = value
    return found


def _keepdims_hint(message: str) -> str:
    """(n, d) divided by a vector of n norms: the norms lost their axis (no keepdims)."""
    found = re.search(r"shapes \((\d+),\s*(\d+)\)\s+\((\d+),\)", message)
    if not found or found[1] != found[3] or found[2] == found[1]:
        return ""
    return (
        f" A ({found[1]}, {found[2]}) array divided by {found[3]} norms of shape "
        f"({found[3]},): the norms lost their axis, so numpy lines them up with the last "
        "axis (the features), not the rows. Keep it: np.linalg.norm(x, axis=-1, "
        "keepdims=True), shape (n, 1), divides each row by its own length."
    )


def _angle_mistakes(cosines: np.ndarray) -> dict[str, np.ndarray]:
    """The angle instead of its cosine: arccos in radians, divided by pi (the angular
    distance), or one minus that (an angular similarity)."""
    angle = np.arccos(np.clip(cosines, -1.0, 1.0))
    tail = (
        "Cosine similarity is the cosine itself, a·b / (|a| |b|), no arccos: 1 for the same "
        "direction, 0 for orthogonal, -1 for opposite."
    )
    return {
        f"Yours is the angle between the vectors, arccos(cosine), in radians. {tail}": angle,
        "Yours is the angular distance, arccos(cosine) / pi (0 for the same direction, 1 for "
        f"opposite). {tail}": angle / np.pi,
        "Yours is an angular similarity, 1 - arccos(cosine) / pi (1 for the same direction, "
        f"0 for opposite). {tail}": 1.0 - angle / np.pi,
    }


#: a probe where the two ways of moving cosines into [0, 1] differ: the cosines are 1,
#: 0.6 and 0, so (cos + 1) / 2 gives 1, 0.8, 0.5 and a min-max rescaling the cosines
_RESCALE_PROBE = (np.array([[1.0, 0.0]]), np.array([[2.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))


def _rescaled_mistakes(cosine_similarity, cosines: np.ndarray, got) -> dict[str, np.ndarray]:
    """The cosines moved into [0, 1]: shifted and halved, (cos + 1) / 2, or min-max
    rescaled over the whole matrix. Where these inputs give both the same result (the
    cosines span [-1, 1]), one call on _RESCALE_PROBE tells which one the code computes."""
    tail = (
        "Cosine similarity is the cosine itself, a·b / (|a| |b|), which ranges over [-1, 1]: "
        "1 for the same direction, 0 for orthogonal, -1 for opposite. Return it as it is."
    )
    spread = float(cosines.max() - cosines.min()) if cosines.size else 0.0
    halved = (cosines + 1.0) / 2.0
    min_max = (cosines - cosines.min()) / spread if spread > 1e-9 else None
    models = {
        "Yours is the cosine rescaled to [0, 1], (cosine + 1) / 2: orthogonal vectors get "
        f"0.5 and opposite ones 0. {tail}": halved,
        "Yours is the cosine rescaled to [0, 1] over the whole matrix, (cosine - min) / "
        "(max - min) (a min-max normalisation): the lowest entry became 0 and the highest "
        f"1. {tail}": min_max,
    }
    if min_max is None or not np.allclose(halved, min_max, atol=1e-9):
        return models
    if np.shape(got) != halved.shape or not np.allclose(got, halved, atol=1e-6):
        return models  # neither is the result: no call needed
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = np.asarray(cosine_similarity(*(x.copy() for x in _RESCALE_PROBE)), dtype=float)
    right = ref.cosine_similarity(*_RESCALE_PROBE)  # (1, 3): 1, 0.6, 0
    if probe is not None and probe.shape == right.shape:
        if np.allclose(probe, (right + 1.0) / 2.0, atol=1e-6):
            return dict(list(models.items())[:1])
        if np.allclose(probe, right, atol=1e-6):  # min-max of cosines spanning [0, 1]
            return dict(list(models.items())[1:])
    return models


def _diagonal_overwritten(got: np.ndarray, expected: np.ndarray) -> dict:
    """Every entry right but the diagonal (i, i), which holds one constant: the diagonal
    overwritten (np.fill_diagonal with 0, -inf or 1: nearest-neighbour code keeps a vector
    from being its own neighbour). {message: model}, {} otherwise."""
    k = min(expected.shape)
    if got.shape != expected.shape or k < 2:
        return {}
    diagonal = np.diagonal(got)[:k]
    value = diagonal[0]
    same = np.all(diagonal == value) or (np.isnan(value) and np.isnan(diagonal).all())
    if not same or np.allclose(np.diagonal(expected)[:k], value):
        return {}
    model = expected.copy()
    np.fill_diagonal(model, value)
    return {
        f"Every entry is right except the diagonal: each entry (i, i) is {value:g}, where the "
        "cosine of a[i] and b[i] belongs (1 when a is b). The diagonal was overwritten "
        f"(np.fill_diagonal(sim, {value:g}), as nearest-neighbour code does so that a vector "
        "is not its own neighbour): cosine_similarity returns every pair's cosine; leave "
        "excluding a vector from its own neighbours to the code that searches.": model
    }


def _unit_identity_mistakes(a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """Formulas that equal the cosine only for vectors of length 1, applied to the raw rows
    (no normalisation first): 1 - |a - b|^2 / 2 (from |a - b|^2 = 2 - 2 cos), and the same
    without the half: each named with what it assumes."""
    squared = ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1)  # (n, m)
    assumes = (
        "which equals the cosine only for vectors of length 1 (|a - b|^2 = |a|^2 + |b|^2 - "
        "2 a·b = 2 - 2 cos for unit vectors), and your rows were not normalised first. "
        "Divide each row by its own length before using it, or compute a·b / (|a| |b|) "
        "directly."
    )
    return {
        f"Yours is 1 - |a - b|^2 / 2, one minus half the squared Euclidean distance, {assumes}": (
            1.0 - squared / 2.0
        ),
        f"Yours is 1 - |a - b|^2, one minus the squared Euclidean distance (the / 2 left "
        f"out too), {assumes}": 1.0 - squared,
    }


def _distance_mistakes(a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """The distance matrices a learner may return for the similarity: Euclidean (the
    default of torch.cdist and scipy's cdist) and its square."""
    difference = a[:, None, :] - b[None, :, :]  # (n, m, d)
    squared = (difference**2).sum(axis=-1)  # (n, m)
    return {
        "Yours is the Euclidean distance between the vectors, |a[i] - b[j]| (what "
        "torch.cdist and scipy's cdist give by default), not their cosine similarity: a "
        "distance grows as vectors move apart, a cosine measures the angle between them. "
        "Divide the dot products by the lengths: a[i]·b[j] / (|a[i]| |b[j]|).": np.sqrt(squared),
        "Yours is the squared Euclidean distance between the vectors, |a[i] - b[j]|² (the "
        "'sqeuclidean' of scipy's cdist), not their cosine similarity: divide the dot "
        "products by the lengths, a[i]·b[j] / (|a[i]| |b[j]|).": squared,
        "Yours is the Euclidean distance between the unit vectors, |a[i]/|a[i]| - "
        "b[j]/|b[j]||, which is sqrt(2 - 2 cos): the rows were normalised, then a distance "
        "(cdist) taken where their dot products belong, a_unit @ b_unit.T.": np.sqrt(
            np.maximum(2.0 - 2.0 * ref.cosine_similarity(a, b), 0.0)
        ),
    }


def check_cosine_similarity(cosine_similarity, *, hidden: bool = False) -> None:
    """cosine_similarity(a (n, d), b (m, d)) -> (n, m); a zero vector gives 0.

    Any float dtype passes (float64 preferred, with a note otherwise); values are compared
    at least at float32's tolerance, so that a small eps in the denominator (PyTorch's
    1e-8, say) passes as well.
    """
    with Checker("cosine_similarity", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(cosine_similarity)
        for a, b in _cosine_cases(hidden):
            what = f"cosine_similarity(a of shape {a.shape}, b of shape {b.shape})"
            if a.dtype != np.float64:
                what += f" (inputs of dtype {a.dtype})"
            has_zero = not (np.linalg.norm(a, axis=-1).all() and np.linalg.norm(b, axis=-1).all())
            if has_zero:
                what += " (some rows are zero vectors)"
            try:
                got = c.call(
                    cosine_similarity,
                    a.copy(),
                    b.copy(),
                    call_repr=what,
                    hints=[
                        (row_by_row := _row_by_row_hint(a, b)),
                        (
                            lambda exc, row_by_row=row_by_row: (
                                "could not be broadcast" in str(exc) and not row_by_row[0](exc)
                            ),
                            _PAIRWISE_HINT,
                        ),
                        (operands := _matmul_operands_hint(a, b)),
                        (
                            lambda exc, operands=operands: (
                                any(
                                    words in str(exc)
                                    for words in (
                                        "mismatch in its core dimension",
                                        "not aligned",
                                        "cannot be multiplied",
                                    )
                                )
                                and not operands[0](exc)
                            ),
                            _TRANSPOSE_HINT,
                        ),
                    ],
                )
            except CheckFailure as failure:
                named = (
                    "could not be broadcast" in failure.message
                    and (
                        _norm_product_hint(cosine_similarity, a, b)
                        or _norms_of_the_other_hint(cosine_similarity, failure.message, a, b)
                        or _implied_denominator_hint(cosine_similarity, a, b)
                        or _keepdims_hint(failure.message)
                    )
                ) or (
                    "IndexError" in failure.message
                    and len(a) != len(b)
                    and _mirrored_probe_hint(cosine_similarity, a.shape[1])
                )
                if named:
                    raise failure.with_cause(named) from None
                raise
            c.expect_true(
                got is None or np.ndim(got) > 0,
                f"{what} returned a single number, {repr(got)[:60]}. {_PAIRWISE_HINT}",
            )
            c.expect_type(got, np.ndarray, what, "Return a numpy array.")
            n, m = len(a), len(b)
            got_shape = tuple(got.shape)
            hint = _PAIRWISE_HINT
            if got_shape == (m, n):
                hint = (
                    "Rows should follow `a` and columns `b`: did you compute `b @ a.T` instead of "
                    "`a @ b.T`?"
                )
            elif n != m and got_shape in ((n, n), (m, m)) and (itself := _with_itself(got, a, b)):
                hint = itself
            elif got_shape in ((n,), (m,)) and 1 in (n, m) and _same_numbers(got, a, b):
                single = "a" if n == 1 else "b"
                hint = (
                    f"Your values are the right cosines, in an array with the axis of length 1 "
                    f"dropped: `{single}` holds a single row here, and then a .squeeze() (or "
                    "an index [0]) of the pairwise result and an elementwise comparison "
                    "(broadcast, row i with row i) both give these numbers, so these inputs "
                    f"cannot tell which one you did. The result is (n, m) = ({n}, {m}) even "
                    f"when n or m is 1. {_PAIRWISE_HINT}"
                )
            elif got_shape in ((n,), (m,)):
                hint = f"You compared the vectors elementwise (row i with row i only). {_PAIRWISE_HINT}"
            elif got_shape in ((1,), (1, 1)):
                hint = f"You returned a single number. {_PAIRWISE_HINT}"
            if got_shape != (n, m):
                hint = _combined_inputs_hint(got, a, b) or hint
            c.expect_shape(got, (n, m), what, hint)
            c.expect_floating(got, what, preferred="float64")
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            expected = ref.cosine_similarity(a64, b64)
            got_np = np.asarray(got, dtype=np.float64)
            c.expect_true(
                not has_zero or bool(np.isfinite(got_np).all()),
                f"{what} contains NaN or inf. {_ZERO_VECTOR_NAN}",
            )
            hint = ""
            if np.isfinite(got_np).all() and np.abs(got_np).max() > 1 + 1e-4:
                hint = (
                    "Some values lie outside [-1, 1], which a cosine never does: did you divide "
                    "each vector by its own length?"
                )
            a_unit, b_unit = _normalised(a64), _normalised(b64)
            c.expect_close(
                got,
                expected,
                what,
                **tolerance(got.dtype, a.dtype, "float32"),
                hint=hint,
                mistakes={
                    "That is 1 - cosine, the cosine *distance*: return the similarity itself "
                    "(1 for the same direction, 0 for orthogonal, -1 for opposite).": 1.0
                    - expected,
                    # the angle between the vectors (face-embedding code's "distance based
                    # on cosine similarity"), in radians or as a fraction of pi
                    **_angle_mistakes(expected),
                    **_rescaled_mistakes(cosine_similarity, expected, got_np),
                    "Yours is the Pearson correlation: each vector was centred on its own "
                    "mean before the cosine (what np.corrcoef computes). Cosine similarity "
                    "uses the vectors as they are: a·b / (|a| |b|).": (
                        ref.cosine_similarity(
                            a64 - a64.mean(axis=-1, keepdims=True),
                            b64 - b64.mean(axis=-1, keepdims=True),
                        )
                    ),
                    # a sibling of the cosine: the distance between the points, which grows
                    # where the cosine shrinks (torch.cdist, scipy's cdist by default)
                    **_distance_mistakes(a64, b64),
                    **_product_normalised_mistakes(a64, b64),
                    "Your negative similarities became 0: the result was clipped to [0, 1] "
                    "(np.clip or np.maximum(..., 0)). A cosine ranges over [-1, 1]: vectors "
                    "pointing in opposite directions have similarity -1. Return it unclipped.": (
                        np.clip(expected, 0.0, 1.0) if (expected < -1e-6).any() else None
                    ),
                    "Rows and columns are swapped: entry (i, j) should compare a[i] with b[j]; "
                    "did you compute `b @ a.T`?": expected.T if n == m else None,
                    "Vectors shorter than 1 were not normalised: did you clamp the lengths at 1 "
                    "(np.maximum(norm, 1) or np.clip)? The guard against zero vectors must only "
                    "stop a division by 0: use a tiny floor such as 1e-12, not 1.": (
                        a64 / np.maximum(np.linalg.norm(a64, axis=-1, keepdims=True), 1.0)
                    )
                    @ (b64 / np.maximum(np.linalg.norm(b64, axis=-1, keepdims=True), 1.0)).T,
                    "That is the plain dot product a @ b.T: divide each vector by its length "
                    "first (cosine = a·b / (|a| |b|)).": a64 @ b64.T,
                    # the unit-vector identities applied to raw rows: right only for rows
                    # of length 1 (blind20a-cos-from-squared-distance-unnormalised)
                    **_unit_identity_mistakes(a64, b64),
                    "Only `a` was divided by its lengths: normalise the rows of `b` too.": a_unit
                    @ b64.T,
                    "Only `b` was divided by its lengths: normalise the rows of `a` too.": a64
                    @ b_unit.T,
                    "You normalised along the wrong axis: each vector is a row, so its length "
                    "is taken along the last axis (axis=-1, keeping the dims); axis=0 takes the "
                    "length of each column, across different vectors.": _normalised(a64, 0)
                    @ _normalised(b64, 0).T,
                    "You divided by the norm of the whole matrix (np.linalg.norm without an "
                    "axis): each row needs its own length.": _normalised(a64, None)
                    @ _normalised(b64, None).T,
                    "You divided by the squared lengths: |x| is sqrt(x·x), so use "
                    "np.linalg.norm (or take the square root of the sum of squares).": (
                        (a64 / np.maximum((a64 * a64).sum(-1, keepdims=True), 1e-24))
                        @ (b64 / np.maximum((b64 * b64).sum(-1, keepdims=True), 1e-24)).T
                    ),
                    **_scaling_mistakes(
                        a64, b64, _denominator_mistakes(a64, b64, got_np, expected)
                    ),
                    **_norm_power_mistakes(a64, b64, got_np),
                    **_mirrored_mistakes(got_np, expected),
                    **_diagonal_overwritten(got_np, expected),
                    **_zero_vector_value(got_np, expected, a64, b64),
                    **_eps_added_to_entries(a64, b64, has_zero),
                    "Every entry is 0, but only the entries that involve a zero vector should "
                    "be: as soon as any row of a or b is a zero vector, you return an all-zero "
                    "matrix (an early return that guards the whole result), so the similarities "
                    "of every other pair of rows are lost. Guard each length instead: "
                    "np.maximum(length, 1e-12) makes exactly the zero rows' entries 0.": (
                        np.zeros_like(expected)
                        if has_zero and (np.abs(expected) > 1e-6).any()
                        else None
                    ),
                    **_eps_too_large(a64, b64),
                    "Your cosines have lost their sign: every negative one came out positive "
                    "(an np.abs, or a square root of a square, on the way). A cosine ranges over "
                    "[-1, 1]: opposite directions give -1. Return a_unit @ b_unit.T as it "
                    "is.": (np.abs(expected) if (expected < -1e-6).any() else None),
                    "You divided by the sum of the absolute values (the L1 norm, "
                    "np.linalg.norm(x, ord=1, axis=-1) or np.abs(x).sum(-1)): the length of a "
                    "vector is its Euclidean (L2) norm, sqrt(x·x), np.linalg.norm(x, axis=-1).": (
                        (a64 / np.maximum(np.abs(a64).sum(-1, keepdims=True), 1e-12))
                        @ (b64 / np.maximum(np.abs(b64).sum(-1, keepdims=True), 1e-12)).T
                    ),
                },
            )


# ------------------------------------------------------------------ TokenEmbedding
def _token_embedding_cases(hidden: bool) -> list[tuple[int, int, tuple[int, int], int]]:
    """(vocab_size, d_model, ids shape (batch, len), seed)."""
    if not hidden:
        # a batch of one sentence too, and a d_model that is not a perfect square (a
        # rounded scale, int(math.sqrt(d_model)), is exact for 4 and 9)
        return [(11, 4, (2, 5), 21), (20, 9, (1, 4), 22), (12, 6, (3, 2), 23)]
    return [
        (37, 16, (4, 7), 2101),
        (8, 6, (1, 1), 2102),
        (50, 5, (2, 3), 2103),
        (13, 64, (3, 9), 2104),
    ]


def _scale_operation_mistakes(plain, d_model: int) -> dict:
    """sqrt(d_model) (or d_model) combined with the lookup by another operation than the
    product: added, subtracted, or as a power. {message: model}."""
    root = math.sqrt(d_model)
    return {
        f"You added sqrt(d_model) = {root:.4g} to every entry instead of multiplying by it: "
        "the scale is a product, self.embedding(ids) * math.sqrt(self.d_model).": plain + root,
        f"You subtracted sqrt(d_model) = {root:.4g} from every entry instead of multiplying "
        "by it: the scale is a product, self.embedding(ids) * math.sqrt(self.d_model).": (
            plain - root
        ),
        f"You added d_model = {d_model} to every entry: the embeddings are multiplied by "
        "sqrt(d_model), self.embedding(ids) * math.sqrt(self.d_model).": plain + d_model,
    }


def _rows_zeroed_for_id(expected, ids) -> dict:
    """The vectors of one id (the padding's 0, say) set to zero, every other vector
    right. {message: model} for each id of the batch whose zeroing changes something."""
    out = {}
    for token in sorted({int(i) for i in ids.reshape(-1).tolist()}):
        mask = (ids == token)[..., None]
        model = expected.masked_fill(mask, 0.0)
        if torch.equal(model, expected):
            continue
        out[
            f"The vectors of id {token} are all zero, every other vector is right: you zeroed "
            f"the positions holding id {token} (a masked_fill on ids == {token}, or a multiply "
            f"by (ids != {token})). TokenEmbedding returns every id's row times sqrt(d_model), "
            "padding included: masking the padding is attention's job (lesson 06), and "
            "nn.Embedding's padding_idx only keeps that row's gradient at zero."
        ] = model
    return out


def _keys_diagnosis(shapes: dict[str, tuple[int, ...]], vocab_size: int, d_model: int) -> str:
    """Explain a state dict without exactly one table of shape (vocab_size, d_model)."""
    listing = ", ".join(f"`{k}` {v}" for k, v in shapes.items()) or "nothing"
    message = (
        f"Its state dict should hold one table of shape ({vocab_size}, {d_model}), "
        f"`embedding.weight`; yours holds {listing}. "
    )
    tables = [key for key, shape in shapes.items() if shape == (vocab_size, d_model)]
    transposed = [key for key, shape in shapes.items() if shape == (d_model, vocab_size)]
    if len(tables) > 1:
        return message + (
            "A token embedding has one table, one row per token id: create one "
            "nn.Embedding(vocab_size, d_model) in __init__ and nothing else of that size."
        )
    if transposed and any(key.endswith("bias") for key in shapes):
        return message + (
            "That looks like an nn.Linear: a linear layer applied to one-hot vectors would "
            "compute the same numbers, but it stores its weight transposed (d_model, "
            "vocab_size), adds a bias, and needs one-hot inputs instead of ids. An "
            "nn.Embedding(vocab_size, d_model) looks the rows up directly."
        )
    if transposed:
        return message + (
            "The table is transposed: either an nn.Linear(vocab_size, d_model, bias=False), "
            "which stores its weight as (d_model, vocab_size), or an nn.Embedding with its "
            "sizes swapped. nn.Embedding takes the number of rows first (one per token id), "
            "then the vector width."
        )
    rows = [shape[0] for shape in shapes.values() if len(shape) == 2 and shape[1] == d_model]
    if len(rows) == 1 and rows[0] != vocab_size:
        extra = {vocab_size + 1: " (vocab_size + 1: one row too many)"}.get(rows[0], "")
        return message + (
            f"Its width is right, but it has {rows[0]} rows{extra} where vocab_size is "
            f"{vocab_size}: one row per token id, nn.Embedding(vocab_size, d_model), with the "
            "vocab_size passed to __init__ (not a number written in)."
        )
    if shapes:
        return message + (
            "Create the table as nn.Embedding(vocab_size, d_model): the number of rows first "
            "(one per token id), then the vector width."
        )
    return message + (
        "Create the table in __init__, after `super().__init__()`, as an attribute: "
        "`self.embedding = nn.Embedding(vocab_size, d_model)`. A table kept in a plain "
        "Python variable, or created inside forward, is not part of the module."
    )


def _no_scale_message(fresh_table: torch.Tensor, d_model: int) -> str:
    """The output is the plain lookup of the table loaded into the module: either no
    scale at all, or a scale put into the initial table (which loading replaces). A
    freshly built nn.Embedding holds N(0, 1) entries (root mean square about 1); one whose
    entries are about sqrt(d_model) times larger was scaled in __init__."""
    root = math.sqrt(d_model)
    rms = float(fresh_table.double().pow(2).mean().sqrt()) if fresh_table.numel() else 0.0
    if d_model >= 4 and fresh_table.numel() >= 32 and abs(rms / root - 1.0) < 0.25:
        return (
            f"Your forward returns the plain lookup: the sqrt(d_model) = {root:.3g} factor is "
            f"not applied to the output. Your freshly built table's entries are about {rms:.3g} "
            f"in size, sqrt(d_model) times nn.Embedding's N(0, 1) initialisation: did you "
            "scale the weights in __init__? That factor is lost as soon as the table is loaded "
            "(as here) or trained. Scale the output in forward: "
            "self.embedding(ids) * math.sqrt(self.d_model)."
        )
    return (
        f"Your forward returns the plain lookup: the paper multiplies the embeddings by "
        f"sqrt(d_model) (here sqrt({d_model}) = {root:.3g}) in forward, "
        "self.embedding(ids) * math.sqrt(self.d_model). (A factor put into the table's "
        "initial weights in __init__ does not count: loading or training replaces them.)"
    )


def _expect_no_renorm(c, what: str, key: str, weight, after, ids) -> None:
    """The rows forward changed are looked-up rows, each scaled down to one common norm:
    nn.Embedding's max_norm, which renormalises the rows it looks up, in place."""
    changed = (after != weight).any(dim=-1)  # (vocab_size,)
    looked_up = torch.zeros_like(changed)
    looked_up[ids.flatten()] = True
    if not bool(changed.any()) or bool((changed & ~looked_up).any()):
        return
    before_norms = weight[changed].double().norm(dim=-1)
    after_norms = after[changed].double().norm(dim=-1)
    cap = float(after_norms.max())
    ratios = after[changed].double() / weight[changed].double()
    same_direction = bool(((ratios - ratios.mean(dim=-1, keepdim=True)).abs() < 1e-4).all())
    if not (same_direction and bool((after_norms > cap * (1 - 1e-4)).all())):
        return
    if bool((before_norms <= cap).any()):
        return
    c.fail(
        f"{what} changed the table `{key}` itself: every row it looked up whose norm was "
        f"above {cap:.4g} was scaled down to norm {cap:.4g}, in place. That is nn.Embedding's "
        f"max_norm (nn.Embedding(..., max_norm={cap:.4g}) renormalises the rows it looks up, "
        "on every call): the lookup must leave the table alone. Build "
        "nn.Embedding(vocab_size, d_model) without max_norm."
    )


def _expect_trainable_table(c, module, what: str, key: str) -> None:
    """An output without a gradient, explained by the table itself when it cannot train:
    a frozen parameter (from_pretrained's default), or no parameter at all."""
    parameters = dict(module.named_parameters())
    if key not in parameters:
        c.fail(
            f"{what} returned a tensor that does not require grad: the table `{key}` is not a "
            "parameter of the module (a buffer, or a tensor kept as a plain attribute), so no "
            "optimiser would ever train it. Create it as nn.Embedding(vocab_size, d_model) in "
            "__init__: its weight is a trainable nn.Parameter."
        )
    if not parameters[key].requires_grad:
        c.fail(
            f"{what} returned a tensor that does not require grad: the table `{key}` itself has "
            "requires_grad=False, so it is frozen and never trains. "
            "nn.Embedding.from_pretrained(weights) freezes by default (freeze=True); so do "
            "weight.requires_grad_(False) and nn.Parameter(..., requires_grad=False). Build "
            "nn.Embedding(vocab_size, d_model) (or pass freeze=False)."
        )


def _constant_ratio(got, plain) -> float | None:
    """The one constant c with got = c * plain (None when there is none)."""
    if not isinstance(got, torch.Tensor) or got.shape != plain.shape:
        return None
    nonzero = plain.abs() > 1e-6
    if not bool(nonzero.any()):
        return None
    ratios = got.detach()[nonzero].double() / plain[nonzero].double()
    factor = float(ratios.mean())
    return factor if float((ratios - factor).abs().max()) <= 1e-4 * max(1.0, abs(factor)) else None


def _shape_dependence(module, ids, weight, vocab_size: int, seed: int) -> tuple[bool, bool]:
    """Whether the module's factor could be sqrt(len) and sqrt(batch): on ids with one
    more row and two more positions, does it follow them (a constant does not)?"""
    batch, length = ids.shape[0], ids.shape[-1]
    other = torch.randint(0, vocab_size, (batch + 1, length + 2), generator=torch_generator(seed))
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            got = module(other)
    except Exception:  # the learner's errors are the main check's to report
        return True, True
    factor = _constant_ratio(got, nn.functional.embedding(other, weight))
    if factor is None:
        return True, True
    return (
        abs(factor - math.sqrt(length + 2)) < 1e-4 * factor,
        abs(factor - math.sqrt(batch + 1)) < 1e-4 * factor,
    )


def _factor_at(c, cls, d_model: int) -> float | None:
    """The constant the learner's module multiplies its own lookup by when built with
    this d_model (None when the output is no constant multiple of the lookup)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        try:
            module = cls(7, d_model).eval()
            tables = [v for v in module.state_dict().values() if tuple(v.shape) == (7, d_model)]
            ids = torch.arange(7).reshape(1, 7)
            with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
                got = module(ids)
        except Exception:  # the main check reports the learner's errors
            return None
    if len(tables) != 1:
        return None
    return _constant_ratio(got, nn.functional.embedding(ids, tables[0].detach()))


def _constant_scale_hint(c, cls, factor: float, d_model: int) -> str:
    """The output is the lookup times a constant that no named mistake explains. Two
    causes give a constant that is the root of a whole number: sqrt(d_model) rounded to an
    integer, and a hard-coded width. A second d_model, where the two differ, parts them."""
    head = (
        f"Your output is the lookup times one constant, {factor:.4g}, but the factor is "
        f"sqrt(d_model) = sqrt({d_model}) = {math.sqrt(d_model):.4g}, this layer's own d_model"
    )
    if abs(factor - d_model**0.25) < 1e-4 * factor:
        # the square root of sqrt(d_model): d_model ** 0.25 on a second d_model too
        fourth = 81 if d_model == 16 else 16
        at_fourth = _factor_at(c, cls, fourth)
        if at_fourth is not None and abs(at_fourth - fourth**0.25) < 1e-4 * at_fourth:
            return (
                head + f": {factor:.4g} = d_model ** 0.25, and built with d_model={fourth} "
                f"yours scales by {at_fourth:.4g} = {fourth} ** 0.25, not sqrt({fourth}) = "
                f"{math.sqrt(fourth):.4g}: the square root was taken twice (a d_model stored "
                "already square-rooted in __init__, then math.sqrt of it again in forward). "
                "Keep self.d_model the width itself and take the square root once."
            )
    hard_coded = abs(factor**2 - round(factor**2)) < 1e-3 * factor**2
    rounded = abs(factor - round(factor)) < 1e-6 and round(factor) in (
        math.floor(math.sqrt(d_model)),
        round(math.sqrt(d_model)),
    )
    if not (hard_coded or rounded):
        return head + ". Scale by math.sqrt(self.d_model)."
    other = (round(factor) + 1) ** 2 + 1  # sqrt 3.16 for a factor 2: neither 2 nor an integer
    at_other = _factor_at(c, cls, other)
    whole = math.floor(math.sqrt(other))
    if rounded and at_other is not None and abs(at_other - whole) < 1e-6 * whole:
        return (
            head + f": sqrt({d_model}) rounded down to an integer (built with d_model={other}, "
            f"yours scales by {whole:g} = int(sqrt({other})) instead of "
            f"{math.sqrt(other):.4g}). int(), round(), // and math.isqrt drop the fraction: "
            "scale by the float math.sqrt(self.d_model)."
        )
    if hard_coded and at_other is not None and abs(at_other - factor) < 1e-6 * factor:
        return (
            head + f": {factor:.4g} = sqrt({round(factor**2)}), and built with d_model={other} "
            f"yours still scales by {factor:.4g}: a hard-coded width. Use the d_model passed "
            "to __init__."
        )
    return (
        head
        + ": the square root of another whole number, "
        + " or ".join(
            text
            for hit, text in (
                (rounded, f"sqrt({d_model}) rounded to an integer (int(), round(), //)"),
                (hard_coded, f"sqrt({round(factor**2)}), a hard-coded width"),
            )
            if hit
        )
        + ". Scale by math.sqrt(self.d_model), with the d_model passed to __init__."
    )


def _length_axis_reduced_hint(got, weight, ids, d_model: int) -> str:
    """For (batch, d_model) where (batch, len, d_model) belongs: which reduction over the
    length axis of the token vectors (scaled or not) gives the learner's values, named
    when one does, else the lost axis alone."""
    got = got.detach().double()
    rows = weight.double()[ids]  # (batch, len, d_model)
    models = {}
    for scaled, vectors in (("", rows * math.sqrt(d_model)), (" (before the scale)", rows)):
        models.update(
            {
                f"the mean of each sentence's token vectors{scaled}: nn.EmbeddingBag (its "
                "default mode is 'mean'), or a .mean(dim=1)": vectors.mean(dim=1),
                f"the sum of each sentence's token vectors{scaled}: nn.EmbeddingBag with "
                "mode='sum', or a .sum(dim=1)": vectors.sum(dim=1),
                f"the elementwise max over each sentence's token vectors{scaled}: "
                "nn.EmbeddingBag with mode='max', or a .max(dim=1)": vectors.max(dim=1).values,
                f"the first token's vector{scaled} alone ([:, 0])": vectors[:, 0],
                f"the last token's vector{scaled} alone ([:, -1])": vectors[:, -1],
            }
        )
    agree = [m for m, value in models.items() if torch.allclose(got, value, atol=1e-4)]
    lost = (
        "The length axis is gone: yours is (batch, d_model), one vector per sentence, where "
        "each id needs its own vector, (batch, len, d_model)."
    )
    if len(agree) == 1:
        return (
            f"{lost} Your vectors are {agree[0]}. TokenEmbedding looks every id up on its "
            "own: nn.Embedding(vocab_size, d_model), then self.embedding(ids) * "
            "sqrt(d_model)."
        )
    return f"{lost} Look every id up on its own: self.embedding(ids) with an nn.Embedding."


#: the ids of the special tokens of lesson 01's vocabulary (build_vocab)
_PAD_ID = 0
_SPECIAL_TOKENS = dict(enumerate(SPECIAL_TOKENS))


def _expect_every_row_trained(c, module, key, initial_table, built: str, vocab_size: int):
    """The values are right: a call that reads every row once must give every row of the
    table a gradient (none kept at zero by padding_idx or a detached copy). Said wherever
    a gradient can be taken: in the notebook's process, or in the grader's sandbox."""
    if key not in dict(module.named_parameters()):
        return
    every_id = torch.arange(vocab_size).reshape(1, vocab_size)  # (1, vocab_size)
    what = f"{built} applied to ids (1, {vocab_size}) holding every id once"
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            rows = frozen_rows_of(module, every_id, key)
    except Exception:  # the same module ran on other ids: nothing new to say
        return
    if rows and padding_idx_signature(rows, initial_table) and rows[0] != _PAD_ID:
        # padding_idx on another id than the course's <pad>: a real token left untrained
        row = rows[0]
        token = f"{_SPECIAL_TOKENS[row]}, a real token" if row in _SPECIAL_TOKENS else "a word"
        fairseq = " (1 is fairseq's <pad>, not this vocabulary's)" if row == 1 else ""
        c.fail(
            f"{what}: the output's values are right, but row {row} of the table started at "
            f"zero in your freshly built module and got no gradient: that is "
            f"nn.Embedding(vocab_size, d_model, padding_idx={row}). In this course <pad> is "
            f"id {_PAD_ID}, and id {row} is {token} whose vector would stay zero "
            f"and never be trained, while <pad>'s row {_PAD_ID} is trained like any other"
            f"{fairseq}. Use the plain table, "
            f"nn.Embedding(vocab_size, d_model), or padding_idx={_PAD_ID} for <pad>."
        )
    if rows and padding_idx_signature(rows, initial_table):
        # accepted (a correct variant of the tests): padding_idx keeps the loaded lookup
        c.note(
            f"Your table's row {rows[0]} starts at zero and gets no gradient: "
            f"nn.Embedding(..., padding_idx={rows[0]}). The lookup is right; this lesson's "
            "layer is a plain table, nn.Embedding(vocab_size, d_model), whose every row "
            "(padding included) is trained."
        )
    elif rows:
        c.fail(frozen_rows_message(rows, initial_table, what))


def _expect_same_in_training(c, module, ids, expected, built: str, seed: int) -> None:
    """A new module is in training mode (model.train()), and the lookup has nothing that
    training changes: the output must be the eval-mode one. Dropout inside the module is
    named by its signature, every entry either 0 or the right value times one common
    1/(1-p) > 1; anything else that depends on the mode or on chance is located only."""
    what = f"{built}.train() applied to ids of shape {tuple(ids.shape)}"
    module.train()
    with torch.random.fork_rng(devices=[]):  # the draws seeded here, the global stream kept
        torch.manual_seed(seed)
        first = c.call(module, ids.clone(), call_repr=what)
        second = c.call(module, ids.clone(), call_repr=what)
    module.eval()
    if not all(isinstance(t, torch.Tensor) and t.shape == expected.shape for t in (first, second)):
        c.fail(
            f"{what} returned {_described(first)}, where eval mode gave a tensor of shape "
            f"{tuple(expected.shape)}: forward depends on training mode (self.training). "
            "TokenEmbedding is the lookup times sqrt(d_model) in both modes."
        )
    # (batch, len, d_model) each, in float64 for the comparison
    got, again, right = (t.detach().double() for t in (first, second, expected))
    if torch.allclose(got, right, rtol=1e-5, atol=1e-6) and torch.allclose(
        again, right, rtol=1e-5, atol=1e-6
    ):
        return
    differs = not torch.equal(got, again)
    zeroed = got.abs() <= 1e-7
    kept = ~zeroed & (right.abs() > 1e-6)
    factor = float((got[kept] / right[kept]).mean()) if bool(kept.any()) else 1.0
    dropout_like = (
        factor > 1 + 1e-4
        and bool(torch.isclose(got[~zeroed], factor * right[~zeroed], rtol=1e-4, atol=1e-6).all())
        and (bool(zeroed.any()) or differs)
    )
    if dropout_like:
        p = 1 - 1 / factor
        c.fail(
            f"{what} is not the lookup times sqrt(d_model): {int(zeroed.sum())} of "
            f"{got.numel()} entries are 0 and every other one is {factor:.4g} times the right "
            f"value, 1/(1 - p) for p = {p:.2g}"
            + (", and a second call with the same ids gives other zeros" if differs else "")
            + ". That is dropout inside TokenEmbedding: it runs in training mode, a new "
            "module's default (eval mode switches it off, so the output was right there). "
            "TokenEmbedding has no dropout: the paper applies it once, to the sum of the "
            "embeddings and the positional encodings (PositionalEncoding, lesson 03), so "
            "dropout here would drop the embeddings twice. Remove it: "
            "return self.embedding(ids) * math.sqrt(self.d_model)."
        )
    c.fail(
        f"{what} is not the lookup times sqrt(d_model), though eval mode gave it"
        + (
            ", and a second call with the same ids gives another result: something random "
            "runs in forward in training mode (dropout, noise added to the embeddings?)"
            if differs
            else ": forward depends on training mode (self.training)"
        )
        + ". TokenEmbedding is the same in both modes: nothing in it is random or switched "
        "by model.train(); the paper's dropout comes after the positions are added "
        "(PositionalEncoding, lesson 03)."
    )


def _expect_scaled_in_eval_mode(c, module, ids, plain, d_model: int, built: str, seed: int):
    """Eval mode gave the plain lookup: one call in training mode tells a scale applied
    only while self.training (right there) from no scale at all (the plain lookup there
    too, which the caller's message names)."""
    what = f"{built}.train() applied to ids of shape {tuple(ids.shape)}"
    module.train()
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            trained = c.call(module, ids.clone(), call_repr=what)
    finally:
        module.eval()
    scaled = plain * math.sqrt(d_model)  # (batch, len, d_model)
    if (
        isinstance(trained, torch.Tensor)
        and trained.shape == scaled.shape
        and torch.allclose(trained.detach().double(), scaled.double(), rtol=1e-5, atol=1e-6)
    ):
        c.fail(
            f"{built}.eval() applied to ids of shape {tuple(ids.shape)} returns the plain "
            f"lookup, while in training mode (.train()) it returns the lookup times "
            f"sqrt(d_model) = {math.sqrt(d_model):.3g}: your forward applies the scale only "
            "while self.training, as if it were a training-time trick like dropout. The "
            "factor is part of the model: its later layers expect the scaled embeddings in "
            "evaluation and generation too. Scale in both modes, with no test of "
            "self.training: return self.embedding(ids) * math.sqrt(self.d_model)."
        )


def _described(value) -> str:
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {tuple(value.shape)}"
    return f"a {type(value).__name__}"


def check_TokenEmbedding(cls, *, hidden: bool = False) -> None:
    """TokenEmbedding(vocab_size, d_model): ids (batch, len) -> embedding(ids) * sqrt(d_model).

    The state dict must hold one table of shape (vocab_size, d_model), `embedding.weight`
    in the course's modules (another name passes with a note, e.g. the Annotated
    Transformer's `lut.weight`); extra buffers (a stored scale, say) are allowed, and
    whatever they hold is loaded back unchanged. The output is checked in eval mode, then
    in training mode (a new module's default), where it must be the same: no dropout.
    """
    with Checker("TokenEmbedding", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(cls, "TokenEmbedding")
        for vocab_size, d_model, ids_shape, seed in _token_embedding_cases(hidden):
            with torch.random.fork_rng(devices=[]):  # a fixed initial table, RNG left alone
                torch.manual_seed(seed)
                module, built = build_module(
                    c, cls, vocab_size, d_model, name="TokenEmbedding", mode="eval"
                )
            found = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
            shapes = {key: tuple(value.shape) for key, value in found.items()}
            tables = [key for key, shape in shapes.items() if shape == (vocab_size, d_model)]
            c.expect_true(
                len(tables) == 1,
                f"{built} cannot take the table. {_keys_diagnosis(shapes, vocab_size, d_model)}",
            )
            key = tables[0]
            if key != "embedding.weight":
                c.note(
                    f"TokenEmbedding keeps its table as `{key}`. That works; the course's own modules "
                    "call it `embedding.weight` (self.embedding = nn.Embedding(...)), the name "
                    "later lessons use."
                )
            fresh_table = found[key].detach().clone()  # the learner's own initial table
            weight = random_state({key: (vocab_size, d_model)}, seed)[key]
            # (vocab_size, d_model), entries of size about 1/sqrt(d_model); other entries
            # (a stored scale, say) are loaded back as they were
            c.call(
                module.load_state_dict,
                {**found, key: weight.clone()},
                call_repr=f"{built}.load_state_dict(...)",
            )
            ids = torch.randint(0, vocab_size, ids_shape, generator=torch_generator(seed))
            what = f"{built} applied to ids of shape {tuple(ids_shape)}"
            got = c.call(module, ids.clone(), call_repr=what)
            c.expect_type(
                got, torch.Tensor, what, "Return a torch tensor (do not convert to numpy)."
            )
            expected_shape = (*ids_shape, d_model)
            hint = "Each id becomes one vector of length d_model: (batch, len) -> (batch, len, d_model)."
            if tuple(got.shape) == (*ids_shape, vocab_size):
                hint = "That is (batch, len, vocab_size): one-hot vectors or scores over the vocabulary, not embeddings."
            elif tuple(got.shape) == (math.prod(ids_shape), d_model) and min(ids_shape) > 1:
                hint = (
                    f"The batch and length axes are merged into one of {math.prod(ids_shape)} "
                    "= batch * len rows: the ids were flattened (ids.view(-1), .reshape(-1), "
                    ".flatten()) and never reshaped back. nn.Embedding takes ids of any shape: "
                    "self.embedding(ids) keeps (batch, len) and adds d_model."
                )
            elif (
                tuple(got.shape) == (ids_shape[1], ids_shape[0], d_model)
                and ids_shape[0] != ids_shape[1]
            ):
                hint = (
                    "The batch and length axes are swapped: (len, batch, d_model) is the "
                    "sequence-first layout of older PyTorch code. The ids were transposed "
                    "before the lookup (ids.t(), ids.transpose(0, 1)), or the output after it. "
                    "Here ids are (batch, len): look them up as they are, self.embedding(ids)."
                )
            elif tuple(got.shape) == tuple(n for n in expected_shape if n != 1):
                hint = (
                    "The axes of size 1 are gone: did you call .squeeze()? It removes every "
                    "axis of size 1, including the batch axis of a batch of one sentence."
                )
            elif (
                len(ids_shape) == 2
                and ids_shape[1] > 1
                and tuple(got.shape)
                == (
                    ids_shape[0],
                    d_model,
                )
            ):
                hint = _length_axis_reduced_hint(got, weight, ids, d_model)
            c.expect_shape(got, expected_shape, what, hint)
            c.expect_dtype(
                got,
                torch.float32,
                what,
                "The table is float32 (PyTorch's default), and so is every later layer: a "
                f"{str(got.dtype).removeprefix('torch.')} output would make the next nn.Linear "
                "fail with a dtype mismatch. Keep the table's dtype: no .double(), .half() or "
                ".to(...), and scale by a Python float such as math.sqrt(d_model).",
            )
            if not got.requires_grad:
                _expect_trainable_table(c, module, what, key)
            c.expect_true(
                got.requires_grad,
                f"{what} returned a tensor that does not require grad, so no gradient could ever "
                "reach the embedding table: did you use torch.no_grad(), .detach(), .data or numpy? "
                "The table is learned, so the lookup must stay inside autograd.",
            )
            after = c.call(module.state_dict, call_repr=f"{built}.state_dict()")[key].detach()
            if not torch.equal(after, weight) and after.shape == weight.shape:
                _expect_no_renorm(c, what, key, weight, after, ids)
            if not torch.equal(after, weight):
                ratio = after.double() / weight.double()
                same = bool(weight.abs().min() > 1e-6) and float(ratio.std()) < 1e-4
                c.fail(
                    f"{what} changed the table `{key}` itself: after the call its entries "
                    + (
                        f"are {float(ratio.mean()):.4g} times those loaded"
                        + (
                            f" (sqrt(d_model) = {math.sqrt(d_model):.4g})"
                            if abs(float(ratio.mean()) - math.sqrt(d_model)) < 1e-3 * d_model
                            else ""
                        )
                        if same
                        else "are no longer those loaded"
                    )
                    + ". forward modifies the weights in place (weight.data.mul_, *=, ...), so "
                    "every call scales them again and training starts from a changed table. "
                    "Leave the weights alone and scale the output: "
                    "self.embedding(ids) * math.sqrt(self.d_model)."
                )
            again = c.call(module, ids.clone(), call_repr=what)
            c.expect_true(
                torch.equal(got.detach(), again.detach()),
                f"{what} gave different results on two calls with the same ids, its table "
                "unchanged: something random runs in forward. Does it create a new nn.Embedding "
                "(new random weights) on every call (create it once, in __init__), or apply "
                "dropout (F.dropout drops even in eval mode unless given training=self.training)?",
            )
            plain = nn.functional.embedding(ids, weight)  # the lookup without the scale
            extra = [name for name in found if name != key]
            scale_hint, factor = "", None
            # a factor equal to sqrt(len) or sqrt(batch) here may be a constant that
            # happens to match: ids of another shape tell which it follows
            by_len, by_batch = _shape_dependence(module, ids, weight, vocab_size, seed)
            with torch.no_grad():
                nonzero = plain.abs() > 1e-6
                if nonzero.any() and got.shape == plain.shape:
                    ratios = got.detach()[nonzero] / plain[nonzero]
                    factor = float(ratios.mean())
                    # factors a named mistake below explains: the catch-all would only
                    # repeat it as a second, vaguer candidate
                    named = (
                        1.0,
                        d_model,
                        1 / math.sqrt(d_model),
                        math.sqrt(vocab_size),
                        d_model / 2,
                    )
                    named += (math.sqrt(ids.shape[-1]),) * by_len
                    named += (math.sqrt(ids.shape[0]),) * by_batch
                    if (
                        float((ratios - factor).abs().max()) <= 1e-4 * max(1.0, abs(factor))
                        and abs(factor - math.sqrt(d_model)) > 1e-3 * math.sqrt(d_model)
                        and all(abs(factor - f) > 1e-4 * max(1.0, f) for f in named)
                    ):
                        scale_hint = _constant_scale_hint(c, cls, factor, d_model)
            if got.shape == plain.shape and torch.allclose(
                got.detach().double(), plain.double(), rtol=1e-5, atol=1e-6
            ):
                _expect_scaled_in_eval_mode(c, module, ids, plain, d_model, built, seed)
            c.expect_close(
                got,
                plain * math.sqrt(d_model),
                what,
                **tolerance(got.dtype),
                hint="It should be self.embedding(ids) * sqrt(d_model)."
                + (
                    f" Your module also holds {', '.join(f'`{k}`' for k in extra)}: the lookup "
                    "needs no parameter besides the table (an extra bias, say, changes the output)."
                    if extra
                    else ""
                ),
                mistakes={
                    **extra_norm_outputs(
                        module,
                        extra,
                        plain * math.sqrt(d_model),
                        layer="TokenEmbedding",
                        right="the scaled lookup self.embedding(ids) * sqrt(d_model)",
                    ),
                    _no_scale_message(fresh_table, d_model): plain,
                    f"You scaled by d_model ({d_model}); the factor is its square root, "
                    f"sqrt(d_model) = {math.sqrt(d_model):.3g}.": plain * d_model,
                    # (for d_model = 4, d_model / 2 is sqrt(d_model) itself: no mistake)
                    **(
                        {
                            f"You scaled by d_model / 2 = {d_model / 2:g}, not sqrt(d_model) "
                            f"= {math.sqrt(d_model):.3g}: `d_model ** 1 / 2` is read as "
                            "(d_model ** 1) / 2, since ** binds tighter than /. Write "
                            "d_model ** 0.5 (or math.sqrt(d_model)).": plain * (d_model / 2)
                        }
                        if d_model != 4
                        else {}
                    ),
                    "You divided by sqrt(d_model); the paper multiplies the embeddings by it "
                    "(dividing by sqrt(d_k) is attention's scaling, a different thing).": plain
                    / math.sqrt(d_model),
                    f"You scaled by sqrt(vocab_size); the factor is sqrt(d_model) = "
                    f"sqrt({d_model}), the width of each vector.": plain * math.sqrt(vocab_size),
                    f"You scaled by the square root of the sequence length (ids.shape[-1] = "
                    f"{ids.shape[-1]}); the factor is sqrt(d_model) = sqrt({d_model}), the width "
                    "of each vector, whatever the length of the input.": (
                        plain * math.sqrt(ids.shape[-1])
                        if ids.shape[-1] != d_model and by_len
                        else None
                    ),
                    f"You scaled by the square root of the batch size (ids.shape[0] = "
                    f"{ids.shape[0]}); the factor is sqrt(d_model) = sqrt({d_model}).": (
                        plain * math.sqrt(ids.shape[0])
                        if ids.shape[0] not in (1, d_model, ids.shape[-1]) and by_batch
                        else None
                    ),
                    # any other constant factor: after the named ones above, which win
                    **({scale_hint: plain * factor} if scale_hint else {}),
                    **_scale_operation_mistakes(plain, d_model),
                    **_rows_zeroed_for_id(plain * math.sqrt(d_model), ids),
                },
            )
            # right in eval mode; a new module is in training mode, where it must not differ
            _expect_same_in_training(c, module, ids, plain * math.sqrt(d_model), built, seed)
            expect_follows_new_weights(c, module, (ids.clone(),), what)
            _expect_every_row_trained(c, module, key, fresh_table, built, vocab_size)
            # the output is right: an extra trainable parameter is the only thing left
            trainable = {
                name: parameter
                for name, parameter in module.named_parameters()
                if parameter.requires_grad and tuple(parameter.shape) != (vocab_size, d_model)
            }
            scales = [
                name
                for name, parameter in trainable.items()
                if parameter.numel() == 1
                and abs(float(parameter.detach().reshape(())) - math.sqrt(d_model)) < 1e-4 * d_model
            ]
            c.expect_true(
                not trainable,
                f"{built} has a trainable parameter besides the table: "
                + ", ".join(f"`{name}`" for name in trainable)
                + (
                    f" ({', '.join(f'`{name}`' for name in scales)} holds sqrt(d_model): the "
                    "scale is an nn.Parameter)"
                    if scales
                    else ""
                )
                + ". The table should be the module's only parameter (an optimiser would "
                "train every other one, and the output would drift from the lookup times "
                "sqrt(d_model)). "
                + (
                    "sqrt(d_model) is a fixed constant of the paper, not something to learn: "
                    "keep the scale a Python float, math.sqrt(d_model) (or a buffer)."
                    if scales
                    else "Remove it: the lookup and its fixed scale need nothing else."
                ),
            )


# ------------------------------------------------------------------ concept questions
QUIZ_LINEAR_LAYER = Quiz(
    name="quiz_linear_layer",
    answer="a",
    choices={
        "a": "nn.Linear(vocab_size, d_model, bias=False) whose weight is E.T",
        "b": "nn.Linear(vocab_size, d_model, bias=False) whose weight is E",
        "c": "nn.Linear(d_model, vocab_size, bias=False) whose weight is E",
        "d": "nn.Linear(vocab_size, d_model) (with its bias) whose weight is E.T",
    },
    why={
        "a": "nn.Linear computes x @ weight.T, so with weight = E.T it computes "
        "one_hot(ids) @ E, which is the lookup E[ids]. That is why an embedding layer is "
        "called a bias-free linear layer on one-hot inputs.",
        "b": "nn.Linear(vocab_size, d_model) stores its weight as (d_model, vocab_size), "
        "out_features first, so E (vocab_size, d_model) does not even fit; the layer "
        "multiplies by weight.T, which must be E.",
        "c": "nn.Linear's arguments are (in_features, out_features), input size first, so "
        "this layer maps d_model numbers to vocab_size numbers: the direction of the "
        "model's last layer, which turns a vector into scores over the vocabulary (the "
        "paper ties that layer's weight to E). A one-hot vector has vocab_size entries, "
        "so in_features must be vocab_size. (It is the weight that is stored (out_features, "
        "in_features).)",
        "d": "The bias would add the same vector to every token's row: the result is "
        "E[ids] + bias, not the lookup.",
    },
)
check_quiz_linear_layer = quiz_check(QUIZ_LINEAR_LAYER)

QUIZ_GRADIENT_ROWS = Quiz(
    name="quiz_gradient_rows",
    answer=5,
    why={
        5: "The batch uses the ids 0, 1, 2, 3 and 5: five different rows. Row 1 occurs twice "
        "and gets the sum of both positions' gradients, but it is still one row; rows 4 and "
        "6 to 9 are never read, so their gradient is exactly 0.",
        10: "10 is the vocabulary size, as if every row got a gradient: not every row does. "
        "Only the rows of the ids that occur in the batch take part in the computation; a "
        "row that is never looked up does not affect the loss, so its gradient is 0.",
        6: "6 is the number of tokens. Row 1 is read twice, but it is one row: its gradient is "
        "the sum of the gradients at its two positions.",
        4: "Count again: the ids are 3, 0, 5, 1, 1, 2. If you left out row 0, the row of "
        "id 0 (<pad>), as if padding never received a gradient: that is what "
        "nn.Embedding(..., padding_idx=0) does, and this layer has no padding_idx, so row 0 "
        "is read and gets its gradient like any other.",
    },
)
check_quiz_gradient_rows = quiz_check(QUIZ_GRADIENT_ROWS)


# ---------------------------------------------------------------------------- registry
LESSON = "02_embeddings"
EXERCISES = (
    Exercise(
        "one_hot",
        check_one_hot,
        kind="function",
        points=1,
        minutes=5,
        level=1,
        forbidden=("torch.nn.functional.one_hot",),
    ),
    Exercise("embed", check_embed, kind="function", points=1, minutes=5, level=1),
    Exercise(
        "quiz_linear_layer", check_quiz_linear_layer, kind="quiz", points=1, minutes=3, level=2
    ),
    Exercise(
        "quiz_gradient_rows", check_quiz_gradient_rows, kind="quiz", points=1, minutes=2, level=1
    ),
    Exercise(
        "cosine_similarity",
        check_cosine_similarity,
        kind="function",
        points=2,
        minutes=15,
        level=2,
        forbidden=("torch.nn.functional.cosine_similarity",),
    ),
    Exercise("TokenEmbedding", check_TokenEmbedding, kind="module", points=2, minutes=15, level=2),
)
