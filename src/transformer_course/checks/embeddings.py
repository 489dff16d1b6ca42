"""Checks for lesson 02 (embeddings): one_hot, embed, cosine_similarity, TokenEmbedding.

Every check compares the learner's answer with :mod:`transformer_course.reference.embeddings`
on inputs drawn from a generator seeded here (visible and hidden runs use
different seeds and shapes), and recognises the classic mistakes by the values
or shapes they produce.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from transformer_course.checking import Checker, CheckFailure, numpy_rng, torch_generator
from transformer_course.reference import embeddings as ref
from transformer_course.registry import Exercise

__all__ = ["check_TokenEmbedding", "check_cosine_similarity", "check_embed", "check_one_hot"]


def _call(c: Checker, fn: Callable, *args, hints: tuple[tuple[str, str], ...] = (), call_repr=None):
    """``c.call`` that adds a diagnosis when the learner's error message contains a known phrase."""
    try:
        return c.call(fn, *args, call_repr=call_repr)
    except CheckFailure as failure:
        for needle, hint in hints:
            if needle in failure.message:
                raise CheckFailure(
                    c.exercise, f"{failure.message}\n{hint}", failure.learner_traceback
                ) from failure.__cause__
        raise


def _ids_repr(ids: np.ndarray) -> str:
    return repr(ids.tolist()) if ids.size <= 8 else f"<ids of shape {ids.shape}>"


# ------------------------------------------------------------------ one_hot
def _one_hot_cases(hidden: bool) -> list[tuple[np.ndarray, int]]:
    if not hidden:
        return [
            (np.array([2, 0, 3]), 5),
            (np.array([[1, 4, 4], [0, 2, 5]]), 7),
            (np.array([0, 3, 1, 3]), 4),  # the largest id, vocab_size - 1, is used
        ]
    rng = numpy_rng(2002)
    cases = []
    for shape, vocab_size in (((6,), 10), ((3, 4), 9), ((2, 3, 4), 12), ((1,), 3)):
        # ids stay below vocab_size - 1, so vocab_size cannot be guessed from the ids
        cases.append((rng.integers(0, vocab_size - 1, size=shape), vocab_size))
    cases.append((np.array([[5, 0], [2, 5]], dtype=np.int32), 6))
    return cases


def _one_hot_shape_hint(got: tuple, ids: np.ndarray, vocab_size: int) -> str:
    if got == (vocab_size, *ids.shape):
        return (
            "The one-hot axis came first: the result looks transposed. Each token gets one row "
            "of length vocab_size, so the new axis goes last (e.g. `np.eye(vocab_size)[ids]`, "
            "not `np.eye(vocab_size)[:, ids]`)."
        )
    if ids.ndim > 1 and got == (ids.size, vocab_size):
        return "You flattened the ids: keep their shape and add one axis of length vocab_size at the end."
    if ids.ndim > 1 and got == (ids.shape[0], vocab_size):
        return (
            "You made one vector per row of ids instead of one per id: did you assume 1-D ids "
            "(a loop over `ids`)? ids can have any shape, e.g. (batch, len); "
            "`np.eye(vocab_size)[ids]` handles every shape."
        )
    if got == (vocab_size,):
        return (
            "You returned a single vector: did you add the one-hot vectors up (a bag of words)? "
            "Each id needs its own one-hot vector."
        )
    if len(got) == ids.ndim + 1 and got[:-1] == ids.shape:
        if ids.size and got[-1] == int(ids.max()) + 1:
            return (
                f"The last axis has length max(ids) + 1 = {got[-1]}: the width must be the "
                f"vocab_size argument ({vocab_size}), not guessed from the ids in this batch "
                "(a batch need not contain the largest id)."
            )
        return f"The last axis must have length vocab_size = {vocab_size}."
    return (
        f"The ids have shape {ids.shape}, so the one-hot array has shape ids.shape + (vocab_size,)."
    )


def check_one_hot(one_hot, *, hidden: bool = False) -> None:
    """one_hot(ids, vocab_size) -> float64 (..., vocab_size) with a single 1 per id."""
    with Checker("one_hot", hidden=hidden) as c:
        c.require_callable(one_hot)
        for ids, vocab_size in _one_hot_cases(hidden):
            what = f"one_hot({_ids_repr(ids)}, vocab_size={vocab_size})"
            got = c.call(one_hot, ids.copy(), vocab_size, call_repr=what)
            c.expect_type(
                got, np.ndarray, what, "Return a numpy array (np.zeros / np.eye give you one)."
            )
            expected = ref.one_hot(ids, vocab_size)
            if tuple(got.shape) != expected.shape:
                c.expect_shape(
                    got,
                    expected.shape,
                    what,
                    _one_hot_shape_hint(tuple(got.shape), ids, vocab_size),
                )
            c.ok()
            if got.dtype == np.bool_:
                hint = (
                    "A comparison like `ids[..., None] == np.arange(vocab_size)` gives booleans: "
                    "convert with `.astype(np.float64)`."
                )
            elif np.issubdtype(got.dtype, np.integer):
                hint = (
                    "Integer zeros and ones look right but the contract is float64, so that "
                    "`one_hot(ids) @ table` is an ordinary float matrix product: use "
                    "`np.zeros(..., dtype=np.float64)` or `np.eye(vocab_size)` (float64 by default)."
                )
            else:
                hint = "Use np.float64 (the default of np.zeros and np.eye)."
            c.expect_dtype(got, "float64", what, hint)
            c.expect_true(
                bool(np.isin(got, (0.0, 1.0)).all()),
                f"{what} contains values other than 0 and 1: a one-hot vector is all zeros except "
                "a single 1 at the token's id.",
            )
            row_sums = got.sum(axis=-1)
            c.expect_true(
                bool(np.all(row_sums == 1.0)),
                f"{what}: some one-hot vectors hold {int(row_sums.max())} ones and some "
                f"{int(row_sums.min())}; each must hold exactly one 1, in column `id`.",
            )
            c.expect_equal(
                got,
                expected,
                what,
                hint="The 1 for token id i belongs in column i (ids count from 0).",
                mistakes={
                    "The 1 sits one column too far left: did you subtract 1 from the ids? "
                    "Ids count from 0, and id i goes in column i.": np.roll(expected, -1, axis=-1),
                    "The 1 sits one column too far right: did you add 1 to the ids? "
                    "Ids count from 0, and id i goes in column i.": np.roll(expected, 1, axis=-1),
                },
            )


# ------------------------------------------------------------------ embed
def _embed_cases(hidden: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    if not hidden:
        rng = numpy_rng(20)
        table = rng.normal(size=(7, 5))  # (vocab_size, d_model)
        return [
            (np.array([3, 0, 4, 4]), table),
            (np.array([[6, 1, 2], [0, 0, 5]]), table),
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
    return cases


_COLUMNS_HINT = (
    "It looks like you indexed the columns of the table (`table[:, ids]`): a token's vector "
    "is a ROW of the table (vocab_size, d_model), so use `table[ids]`."
)


def _embed_shape_hint(got: tuple, ids: np.ndarray, table: np.ndarray) -> str:
    vocab_size, d_model = table.shape
    if got == (vocab_size, *ids.shape):
        return _COLUMNS_HINT
    if ids.ndim > 1 and got == (ids.size, d_model):
        return "You flattened the ids: keep their shape, and add one axis of length d_model at the end."
    if got == (*ids.shape, vocab_size):
        return (
            "That is the shape of one-hot vectors, (..., vocab_size): did you return the one-hot "
            "vectors without multiplying them by the table, or pick columns (`table[:, ids]`) "
            "and transpose? A token's vector is a ROW of the table: `table[ids]`, shape (..., d_model)."
        )
    if got == (d_model,):
        return "You returned a single vector: did you add or average the rows? Each id needs its own row."
    return "The result has the ids' shape plus one axis of length d_model: (..., d_model)."


def check_embed(embed, *, hidden: bool = False) -> None:
    """embed(ids, table) -> table[ids]: (...) ids, (vocab_size, d_model) table -> (..., d_model)."""
    with Checker("embed", hidden=hidden) as c:
        c.require_callable(embed)
        for ids, table in _embed_cases(hidden):
            what = f"embed({_ids_repr(ids)}, table of shape {table.shape})"
            table_arg = table.copy()
            got = _call(
                c, embed, ids.copy(), table_arg, call_repr=what,
                hints=(("out of bounds for axis 1", _COLUMNS_HINT),),
            )  # fmt: skip
            c.expect_type(got, np.ndarray, what, "Return a numpy array.")
            expected = ref.embed(ids, table)
            if tuple(got.shape) != expected.shape:
                c.expect_shape(
                    got, expected.shape, what, _embed_shape_hint(tuple(got.shape), ids, table)
                )
            c.ok()
            c.expect_true(
                np.issubdtype(got.dtype, np.floating),
                f"{what} has dtype {got.dtype}: the vectors are the table's floats, do not convert them.",
            )
            c.expect_true(
                np.array_equal(table_arg, table),
                f"{what} changed the table it was given. An embedding lookup only reads the table.",
            )
            vocab_size, d_model = table.shape
            c.expect_close(
                got,
                expected,
                what,
                rtol=1e-12,
                atol=1e-12,
                hint="Row i of the result should be row ids[i] of the table.",
                mistakes={
                    "You picked the row before the right one: ids count from 0, so id i is "
                    "`table[i]`, not `table[i - 1]`.": ref.embed((ids - 1) % vocab_size, table),
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
        a_same = rng.normal(size=(5, 6))
        b_same = rng.normal(size=(5, 6)) * 3.0
        a_zero = np.array([[1.0, 2.0, 2.0], [0.0, 0.0, 0.0]])
        b_zero = np.array([[2.0, 4.0, 4.0], [0.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
        return [
            (np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]]),
             np.array([[2.0, 0.0], [0.0, 3.0], [-1.0, -1.0], [3.0, 4.0]])),
            (a_same, b_same),
            (a_zero, b_zero),
        ]  # fmt: skip
    rng = numpy_rng(2200)
    cases = []
    for n, m, d, scale in ((7, 3, 16, 1.0), (4, 4, 5, 1e4), (1, 9, 8, 1e-3), (6, 2, 3, 50.0)):
        a = rng.normal(size=(n, d)) * scale * rng.uniform(0.5, 3.0, size=(n, 1))
        b = rng.normal(size=(m, d)) * scale * rng.uniform(0.5, 3.0, size=(m, 1))
        cases.append((a, b))
    a = rng.normal(size=(3, 4))
    b = rng.normal(size=(5, 4))
    a[1] = 0.0
    b[[0, 3]] = 0.0
    cases.append((a, b))
    return cases


_PAIRWISE_HINT = (
    "cosine_similarity is pairwise: entry (i, j) compares row i of `a` with row j of `b`, "
    "for every pair, so the result has shape (n, m). A product of normalised matrices, "
    "`a_unit @ b_unit.T`, computes all of them at once."
)


def _normalised(x: np.ndarray, axis=-1) -> np.ndarray:
    norm = np.linalg.norm(x, axis=axis, keepdims=True)
    return x / np.maximum(norm, 1e-12)


def check_cosine_similarity(cosine_similarity, *, hidden: bool = False) -> None:
    """cosine_similarity(a (n, d), b (m, d)) -> (n, m); zero vectors give 0."""
    with Checker("cosine_similarity", hidden=hidden) as c:
        c.require_callable(cosine_similarity)
        for a, b in _cosine_cases(hidden):
            what = f"cosine_similarity(a of shape {a.shape}, b of shape {b.shape})"
            has_zero = not (np.linalg.norm(a, axis=-1).all() and np.linalg.norm(b, axis=-1).all())
            if has_zero:
                what += " (some rows are zero vectors)"
            got = _call(
                c, cosine_similarity, a.copy(), b.copy(), call_repr=what,
                hints=(("could not be broadcast", _PAIRWISE_HINT),),
            )  # fmt: skip
            if np.ndim(got) == 0:
                c.fail(f"{what} returned a single number, {repr(got)[:60]}. {_PAIRWISE_HINT}")
            c.expect_type(got, np.ndarray, what, "Return a numpy array.")
            n, m = len(a), len(b)
            got_shape = tuple(got.shape)
            if got_shape != (n, m):
                if got_shape == (m, n):
                    hint = (
                        "Rows should follow `a` and columns `b`: did you compute `b @ a.T` instead of "
                        "`a @ b.T`?"
                    )
                elif got_shape in ((n,), (m,)):
                    hint = f"You compared the vectors elementwise (row i with row i only). {_PAIRWISE_HINT}"
                elif got_shape in ((), (1,), (1, 1)):
                    hint = f"You returned a single number. {_PAIRWISE_HINT}"
                else:
                    hint = _PAIRWISE_HINT
                c.expect_shape(got, (n, m), what, hint)
            c.ok()
            c.expect_true(
                np.issubdtype(got.dtype, np.floating),
                f"{what} has dtype {got.dtype}; cosine similarities are floats.",
            )
            expected = ref.cosine_similarity(a, b)
            got_np = np.asarray(got, dtype=np.float64)
            hint = ""
            if has_zero and not np.isfinite(got_np).all():
                hint = (
                    "A zero vector has length 0, so dividing by its length gives 0/0 = NaN. The "
                    "contract says a zero vector has similarity 0 with everything: guard the "
                    "division, e.g. `np.maximum(norm, 1e-12)`."
                )
            elif np.isfinite(got_np).all() and np.abs(got_np).max() > 1 + 1e-6:
                hint = (
                    "Some values lie outside [-1, 1], which a cosine never does: did you divide "
                    "each vector by its own length (np.linalg.norm(..., axis=-1, keepdims=True))?"
                )
            a_unit, b_unit = _normalised(a), _normalised(b)
            c.expect_close(
                got,
                expected,
                what,
                rtol=1e-5,
                atol=1e-6,
                hint=hint,
                mistakes={
                    "That is 1 - cosine, the cosine *distance*: return the similarity itself "
                    "(1 for the same direction, 0 for orthogonal, -1 for opposite).": 1.0
                    - expected,
                    "Rows and columns are swapped: entry (i, j) should compare a[i] with b[j]; "
                    "did you compute `b @ a.T`?": expected.T if n == m else None,
                    "That is the plain dot product a @ b.T: divide each vector by its length "
                    "first (cosine = a·b / (|a| |b|)).": a @ b.T,
                    "Only `a` was divided by its lengths: normalise the rows of `b` too.": a_unit
                    @ b.T,
                    "Only `b` was divided by its lengths: normalise the rows of `a` too.": a
                    @ b_unit.T,
                    "You normalised along the wrong axis: each vector is a row, so its length is "
                    "`np.linalg.norm(x, axis=-1, keepdims=True)` (axis=0 takes the length of "
                    "each column, across different vectors).": _normalised(a, 0)
                    @ _normalised(b, 0).T,
                    "You divided by the norm of the whole matrix (np.linalg.norm without an "
                    "axis): each row needs its own length, `np.linalg.norm(x, axis=-1, "
                    "keepdims=True)`.": _normalised(a, None) @ _normalised(b, None).T,
                    "You divided by the squared lengths: |x| is sqrt(x·x), so use "
                    "np.linalg.norm (or take the square root of the sum of squares).": (
                        (a / np.maximum((a * a).sum(-1, keepdims=True), 1e-24))
                        @ (b / np.maximum((b * b).sum(-1, keepdims=True), 1e-24)).T
                    ),
                },
            )


# ------------------------------------------------------------------ TokenEmbedding
def _token_embedding_cases(hidden: bool) -> list[tuple[int, int, tuple[int, int], int]]:
    """(vocab_size, d_model, ids shape (batch, len), seed)."""
    if not hidden:
        return [(11, 4, (2, 5), 21), (20, 9, (3, 4), 22)]
    return [
        (37, 16, (4, 7), 2101),
        (8, 6, (1, 1), 2102),
        (50, 5, (2, 3), 2103),
        (13, 64, (3, 9), 2104),
    ]


def _state_dict_diagnosis(module, vocab_size: int, d_model: int, error: Exception) -> str:
    expected = f"exactly one entry, `embedding.weight` of shape ({vocab_size}, {d_model})"
    try:
        shapes = {key: tuple(value.shape) for key, value in module.state_dict().items()}
    except Exception:  # the learner's module may be too broken to list its parameters
        return f"Its state dict should hold {expected}. PyTorch said: {error}"
    listing = ", ".join(f"`{k}` {v}" for k, v in shapes.items()) or "nothing"
    message = f"Its state dict should hold {expected}; yours holds {listing}. "
    weight = shapes.get("embedding.weight")
    if "embedding.bias" in shapes:
        return message + (
            "That looks like an nn.Linear: a linear layer applied to one-hot vectors would "
            "compute the same numbers, but it stores its weight transposed (d_model, "
            "vocab_size), adds a bias, and needs one-hot inputs instead of ids. Use "
            "`self.embedding = nn.Embedding(vocab_size, d_model)`, which looks the rows up directly."
        )
    if weight == (d_model, vocab_size):
        return message + (
            "The table is transposed: either an nn.Linear(vocab_size, d_model, bias=False), "
            "which stores its weight as (d_model, vocab_size), or an nn.Embedding with its "
            "sizes swapped. Use `nn.Embedding(vocab_size, d_model)`: number of rows first "
            "(one per token id), then the vector width."
        )
    if weight is not None:
        return message + (
            "Create the table as `nn.Embedding(vocab_size, d_model)`: number of rows first "
            "(one per token id), then the vector width."
        )
    return message + (
        "Store the table as an attribute named `embedding`: `self.embedding = "
        "nn.Embedding(vocab_size, d_model)` in __init__ (after `super().__init__()`), "
        "with no other parameters."
    )


def check_TokenEmbedding(TokenEmbedding, *, hidden: bool = False) -> None:
    """TokenEmbedding(vocab_size, d_model): ids (batch, len) -> embedding(ids) * sqrt(d_model)."""
    import torch
    from torch import nn

    with Checker("TokenEmbedding", hidden=hidden) as c:
        c.require_callable(TokenEmbedding, "TokenEmbedding")
        for vocab_size, d_model, ids_shape, seed in _token_embedding_cases(hidden):
            make = f"TokenEmbedding(vocab_size={vocab_size}, d_model={d_model})"
            module = c.call(TokenEmbedding, vocab_size, d_model, call_repr=make)
            c.expect_type(
                module, nn.Module, make,
                "Define it as `class TokenEmbedding(nn.Module)` and call `super().__init__()` first in __init__.",
            )  # fmt: skip
            generator = torch_generator(seed)
            weight = torch.randn(vocab_size, d_model, generator=generator)  # (vocab_size, d_model)
            ids = torch.randint(0, vocab_size, ids_shape, generator=generator)  # (batch, len)
            try:
                # strict=False: extra buffers (a stored scale, say) are allowed; the table is not optional
                result = module.load_state_dict({"embedding.weight": weight.clone()}, strict=False)
                if "embedding.weight" in result.missing_keys or result.unexpected_keys:
                    raise KeyError("embedding.weight")
            except Exception as error:
                c.fail(
                    f"could not load the weights into {make}. "
                    + _state_dict_diagnosis(module, vocab_size, d_model, error)
                )
            c.ok()
            extra = [key for key in result.missing_keys if key != "embedding.weight"]
            module.eval()
            what = f"{make} applied to ids of shape {tuple(ids_shape)}"
            got = c.call(module, ids.clone(), call_repr=what)
            c.expect_type(
                got, torch.Tensor, what, "Return a torch tensor (do not convert to numpy)."
            )
            expected_shape = (*ids_shape, d_model)
            if tuple(got.shape) != expected_shape:
                hint = "Each id becomes one vector of length d_model: (batch, len) -> (batch, len, d_model)."
                if tuple(got.shape) == (*ids_shape, vocab_size):
                    hint = "That is (batch, len, vocab_size): one-hot vectors or scores over the vocabulary, not embeddings."
                c.expect_shape(got, expected_shape, what, hint)
            c.ok()
            c.expect_dtype(
                got, torch.float32, what,
                "The table is float32 (PyTorch's default); keep the output in the table's dtype.",
            )  # fmt: skip
            c.expect_true(
                got.requires_grad,
                f"{what} returned a tensor that does not require grad, so no gradient could ever "
                "reach the embedding table: did you use torch.no_grad(), .detach(), .data or numpy? "
                "The table is learned, so the lookup must stay inside autograd.",
            )
            again = c.call(module, ids.clone(), call_repr=what)
            c.expect_true(
                torch.equal(got.detach(), again.detach()),
                f"{what} gave different results on two calls with the same ids. Does forward create a new "
                "nn.Embedding (new random weights) on every call? Create it once, in __init__.",
            )
            expected = torch.nn.functional.embedding(ids, weight) * math.sqrt(d_model)
            plain = expected / math.sqrt(d_model)
            c.expect_close(
                got,
                expected,
                what,
                rtol=1e-5,
                atol=1e-5,
                hint="It should be self.embedding(ids) * sqrt(d_model)."
                + (
                    f" Your module also holds {', '.join(f'`{k}`' for k in extra)}: the lookup "
                    "needs no parameter besides the table (an extra bias, say, changes the output)."
                    if extra
                    else ""
                ),
                mistakes={
                    f"You forgot the scale: the paper multiplies the embeddings by sqrt(d_model) "
                    f"(here sqrt({d_model}) = {math.sqrt(d_model):.3g}).": plain,
                    f"You scaled by d_model ({d_model}); the factor is its square root, "
                    f"sqrt(d_model) = {math.sqrt(d_model):.3g}.": plain * d_model,
                    "You divided by sqrt(d_model); the paper multiplies the embeddings by it "
                    "(dividing by sqrt(d_k) is attention's scaling, a different thing).": plain
                    / math.sqrt(d_model),
                    f"You scaled by sqrt(vocab_size); the factor is sqrt(d_model) = "
                    f"sqrt({d_model}), the width of each vector.": plain * math.sqrt(vocab_size),
                },
            )


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
