"""Checks for lesson 11's CausalSelfAttention, and the layer machinery that the block's and
the GPT's checks share (the cases, the pairing, the causal property)."""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.extra_steps import extra_output_steps
from transformer_course.checking.failing_line import line_tensors
from transformer_course.checking.hints import Hint
from transformer_course.checking.inputs import randn
from transformer_course.checking.layers import (
    build,
    expect_composite,
    expect_tensor_result,
    mistake_pairs,
    mistake_values,
)
from transformer_course.checking.localise import diagnose, localise_layer, record_calls
from transformer_course.checking.mask_relations import moved_diagonals
from transformer_course.checking.oracles import (
    causal_self_attention_f,
    multi_head_attention_f,
    rope_angles_f,
    rotate_f,
)
from transformer_course.checking.randomness import random_in_eval
from transformer_course.checking.raw_errors import failing_line, local_shape
from transformer_course.checking.recovered_weights import (
    length_scale_reading,
    recover_weights,
    score_factor,
    weights_departure,
)
from transformer_course.checking.score_scales import score_scale_candidates
from transformer_course.reference import language_model as ref

from .common import (
    _same_in_train_mode,
    expect_layers_in_init,
    expect_no_persistent_buffers,
    expect_weights_kept,
)
from .rotary import _ADJACENT_NOTE, _BROADCAST


def _close(got: torch.Tensor, expected: torch.Tensor) -> bool:
    return bool(torch.allclose(got.detach().double(), expected, rtol=1e-4, atol=1e-5))


def _pairing(c: Checker, got: torch.Tensor, compute: Callable[[str], torch.Tensor]) -> str:
    """The pairing the learner's result follows: "half" unless it matches "adjacent" only."""
    if not _close(got, compute("half")) and _close(got, compute("adjacent")):
        c.note(_ADJACENT_NOTE)
        return "adjacent"
    return "half"


def _expect_oracle_and_causal(
    c: Checker,
    module,
    inputs: torch.Tensor,
    got: torch.Tensor,
    oracle: Callable[..., torch.Tensor],
    what: str,
    table: Mapping[str, Mapping[str, Any]],
    future: str,
    localise: Callable[[str], str] | None = None,
    extra: Mapping[str, Callable[[str], torch.Tensor]] | None = None,
    locate: Callable[[str], str] | None = None,
) -> None:
    """``got`` against ``oracle(pairing=...)`` in the learner's RoPE pairing, each mistake
    of ``table`` ({message: oracle knobs}) named when it matches; then the causal
    property (changing the last input never changes an earlier output), ``future`` its
    message; ``localise(pairing)`` says which sub-result departs when no mistake matches;
    ``locate(pairing)``, the last resort (after the one-edit deviations), where the
    learner's steps first depart."""
    pairing = _pairing(c, got, lambda pr: oracle(pairing=pr))
    expect_composite(
        c,
        got,
        oracle(pairing=pairing),
        what,
        **tolerance(got.dtype),
        mistakes={
            **mistake_values(lambda **k: oracle(pairing=pairing, **k), table),
            **{m: (lambda f=f: f(pairing)) for m, f in (extra or {}).items()},
        },
        localise=lambda: (
            _two_at_once(got, oracle, pairing, table)
            or ("" if localise is None else localise(pairing))
        ),
        hint=lambda: "" if locate is None else locate(pairing),
    )
    _causal_property(c, module, inputs, what, future)


def _two_at_once(got: torch.Tensor, oracle, pairing: str, table) -> str:
    """When no single mistake of ``table`` gives the learner's result: the two of them made
    at once that do (every two that turn different knobs), as diagnose names them; ""
    when none does."""
    pairs = mistake_pairs(lambda **k: oracle(pairing=pairing, **k), table)
    return diagnose(got, pairs, **tolerance(got.dtype))


_NO_ROPE = (
    "Your attention has no rotary embedding: its queries and keys are never rotated. Either "
    "apply_rotary is never called, or its results are not assigned: apply_rotary returns "
    "new tensors and leaves q and k as they were (it does not rotate in place), so a bare "
    "apply_rotary(q, cos, sin) changes nothing. Rotate each head's queries and keys and keep "
    "the results: q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin), cos and sin "
    "from rotary_embedding(len, d_head)."
)
_ROTATE_VALUES = (
    "You rotated the values too. RoPE rotates queries and keys only: it is their dot product "
    "that should depend on the offset; the values carry content, not position."
)
_BEFORE_SPLIT = (
    "You rotated the d_model-wide projections before splitting the heads (angles for "
    "d_model). RoPE rotates each head: split the heads first, then rotate every head's "
    "(len, d_head) queries and keys with rotary_embedding(len, d_head)."
)
_NOT_CAUSAL = (
    "Your attention is not causal: every query sees every key. Pass look_ahead_mask(len) "
    "to scaled_dot_product_attention, so that query i attends to keys 0 .. i. (Masking by "
    "hand: scores.masked_fill(...) returns a new tensor and leaves scores as they were; "
    "assign it, scores = scores.masked_fill(~mask, float('-inf')).)"
)
_MASK_INVERTED = (
    "Your mask is the wrong way round: each query attends to the keys after it only (the "
    "last query to none, a row of NaN). torch.triu(..., diagonal=1) marks the future True, "
    "which is nn.MultiheadAttention's convention (True = blocked); this course's "
    "scaled_dot_product_attention reads True = may attend: pass look_ahead_mask(len) (or "
    "the negation, ~mask)."
)
_FUTURE = (
    "Changing the last token changed the output at earlier positions: your attention lets "
    "a position read tokens after it. Pass look_ahead_mask(len) (True = may attend)."
)
_ATTENTION_KEYS = (
    "The attention's projections are four nn.Linear(d_model, d_model, bias=False) named "
    "w_q, w_k, w_v, w_o (lesson 12 builds its cache around these names)."
)
_SIZES = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")
_PRODUCT = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")


def _table_width_text(exc: BaseException, d_model: int, d_head: int) -> str:
    """The sizes d_model // 2 and d_head // 2 met: the tables made for d_model (blind16b-
    csa-rope-tables-for-d-model was asked "are cos and sin ... not d_model?"), or d_head
    tables applied to the d_model-wide projections before split_heads. The two give the
    same sizes; the width of cos (or sin) on the learner's failing line tells which."""
    width = next(
        (shape[-1] for name in ("cos", "sin") if (shape := local_shape(exc, name))),
        None,
    )
    if width == d_model // 2:
        return (
            f"Your cos and sin have {width} = d_model // 2 columns: they were made for "
            f"d_model = {d_model} features (rotary_embedding(len, d_model), or x.shape[-1]), "
            f"where each head's queries and keys have d_head = {d_head} features and need "
            f"{d_head // 2} columns, one per pair. Make them for one head: "
            "rotary_embedding(len, self.d_head, self.base)."
        )
    if width == d_head // 2:
        return (
            f"Your cos and sin have {width} = d_head // 2 columns, right for one head, but "
            f"they met something with d_model // 2 = {d_model // 2} pairs: the queries or "
            "keys were rotated while still d_model wide, before split_heads. Split the heads "
            "first, then rotate (batch, num_heads, len, d_head) tensors."
        )
    return (
        "A shape does not fit: are cos and sin from rotary_embedding(len, d_head) (one "
        "column per pair of a head's d_head features), not d_model? (Or were the queries "
        "and keys rotated before split_heads, still d_model wide?)"
    )


def _heads_and_width_swapped_hint(batch: int, length: int, d_model: int, num_heads: int):
    """Any error raised where the failing line holds a tensor split into d_head heads of
    num_heads features, (batch, d_head, len, num_heads): split_heads given d_head where
    num_heads belongs (blind12b-csa-split-heads-by-d-head was told of RoPE's tables)."""
    d_head = d_model // num_heads
    swapped = (batch, d_head, length, num_heads)

    def hint(exc: BaseException) -> str:
        if d_head == num_heads:
            return ""
        with contextlib.suppress(Exception):  # a reading of frames: never in the way
            names = [name for name, value in line_tensors(exc) if tuple(value.shape) == swapped]
            if names:
                return (
                    f"Your {', '.join(names)} {'is' if len(names) == 1 else 'are'} {swapped}: "
                    f"split into d_head = {d_head} heads of num_heads = {num_heads} features "
                    f"each, where (batch, num_heads, len, d_head) = {(batch, num_heads, length, d_head)} "
                    "belongs: the split was given d_head as the number of heads "
                    "(split_heads(..., self.d_head), or a view(batch, len, d_head, num_heads) "
                    "with the two sizes swapped). Pass the number of heads: "
                    "split_heads(self.w_q(x), self.num_heads), likewise k and v."
                )
        return ""

    return (lambda exc: bool(hint(exc)), hint)


def _table_width_sources(columns: int, sizes: dict[str, int]) -> list[tuple[str, int]]:
    """The (name, size) of ``sizes`` for which rotary_embedding(len, size) makes tables of
    ``columns`` columns (one per pair: torch.arange(0, size, 2) has (size + 1) // 2
    entries, size // 2 pairs), every name whose size fits (two alike are both named)."""
    found = []
    for name, size in sizes.items():
        if size > 0 and columns in ((size + 1) // 2, size // 2):
            found.append((name, size))
    return found


def _attention_hints(
    batch: int, length: int, d_model: int, num_heads: int, length_axis: bool = True
) -> list:
    """Hints for a size mismatch inside the attention, by the two sizes PyTorch names: the
    batch where the length belongs (``length_axis``: for the attention alone, since in a
    block a norm's statistic without keepdim can clash alike), or RoPE's tables made for
    d_model instead of d_head."""

    def hint(exc: BaseException) -> str:
        product = _PRODUCT.search(str(exc))
        d_head = d_model // num_heads
        if (
            product
            and d_head != d_model
            and int(product[2]) == d_head
            and int(product[3]) == d_model
        ):
            return (
                f"A d_model x d_model projection got d_head = {d_head} features per row: it "
                "was applied to the heads, (batch, num_heads, len, d_head), not to a (batch, "
                "len, d_model) tensor. The projections come before split_heads (w_q, w_k, "
                "w_v) and after merge_heads (w_o): self.w_o(merge_heads(heads))."
            )
        if product and length_axis:
            width = int(product[2])
            if width == num_heads * length and width != d_model and int(product[3]) == d_model:
                return (
                    f"The left operand has {width} = num_heads x len features per position "
                    f"where d_model = {d_model} belong: a (batch, num_heads, len, len) tensor "
                    "was merged and projected, the attention weights rather than the heads' "
                    "outputs. scaled_dot_product_attention returns (output, weights), in that "
                    "order: heads, _ = scaled_dot_product_attention(...)."
                )
        found = _SIZES.search(str(exc))
        if not found:
            return ""
        pair = {int(found[1]), int(found[2])}
        swapped_heads = (
            "an axis of the heads' tensors swapped: k.transpose(1, 2) exchanges the heads "
            "and the positions of (batch, num_heads, len, d_head), where the scores need "
            "k.transpose(-2, -1)"
        )
        if length_axis and batch != length and pair == {batch, length}:
            also = (
                f" Or, as {num_heads} is the number of heads too, {swapped_heads}."
                if num_heads == batch
                else ""
            )
            rows = next(
                (shape[0] for name in ("cos", "sin") if (shape := local_shape(exc, name))),
                None,
            )
            if rows == batch:  # the tables on the failing line: one row per batch entry
                return (
                    f"The sizes {found[1]} and {found[2]} are the batch ({batch}) and the "
                    f"length ({length}), and your cos and sin have {batch} rows, the batch: "
                    "the length was read from the batch axis (x.shape[0]), so the tables "
                    "(and the mask) are made for batch positions. x is (batch, len, d_model): "
                    "length = x.shape[1], and rotary_embedding(length, d_head) has one row "
                    f"per position.{also}"
                )
            return (
                f"The sizes {found[1]} and {found[2]} are the batch ({batch}) and the length "
                f"({length}): was the length read from the wrong axis? x is (batch, len, "
                "d_model): length = x.shape[1], and rotary_embedding(length, d_head) has one "
                f"row per position.{also}"
            )
        if length_axis and num_heads != length and pair == {num_heads, length}:
            d_head = d_model // num_heads
            unsplit = (batch, length, num_heads, d_head)
            line = failing_line(exc)
            rotating = "rotary" in line or "cos" in line  # the line rotates, not the scores
            if rotating and any(local_shape(exc, name) == unsplit for name in ("q", "k", "x")):
                # the tensors on the failing line: heads not yet moved before the positions
                return (
                    f"The sizes {found[1]} and {found[2]} are the number of heads "
                    f"({num_heads}) and the length ({length}), and your queries or keys on "
                    f"that line are {unsplit}, (batch, len, num_heads, d_head): they were "
                    "rotated before the heads were transposed, so apply_rotary reads the "
                    "heads axis (the second-last) as the positions. Transpose to (batch, "
                    "num_heads, len, d_head) first (split_heads does), then rotate."
                )
            return (
                f"The sizes {found[1]} and {found[2]} are the number of heads ({num_heads}) "
                f"and the length ({length}). The likely cause: {swapped_heads}."
            )
        d_head = d_model // num_heads
        sizes = {batch, d_model, d_head, d_model // 2, d_head // 2, num_heads}
        if length in pair and len(pair) == 2 and max(pair) > length and not pair & sizes - {length}:
            return (
                f"The sizes {found[1]} and {found[2]}: {max(pair)} is no size of this input, "
                f"and {length} is its length. The likely cause: a table made for a fixed "
                f"number of positions ({max(pair)}: a maximum length, e.g. precomputed in "
                "__init__), RoPE's cos and sin or a causal mask, met this input's "
                f"{length} positions: cut it to the input's length (cos[:len], sin[:len], "
                "mask[:len, :len]) or make it in forward (rotary_embedding(len, self.d_head, "
                "self.base), look_ahead_mask(len))."
            )
        if d_model // 2 in pair and d_head // 2 in pair and d_model != d_head:
            return _table_width_text(exc, d_model, d_head)
        other = pair - {d_head // 2}
        if d_head // 2 in pair and len(pair) == 2 and not other & {length, d_model // 2}:
            # blind10h-csa-rope-min-width-32: tables for max(d_head, 32)
            width = next(iter(other))
            # b12b: rotary_embedding(self.d_head, len) makes (d_head, (len + 1) // 2) tables:
            # the other side is (len + 1) // 2, which a fixed head width of len features gives too
            swapped = (
                f" {width} is also (len + 1) // 2: were the length and d_head arguments "
                "swapped, rotary_embedding(self.d_head, len), which makes (d_head, "
                "(len + 1) // 2) tables?"
                if width == (length + 1) // 2
                else ""
            )
            sources = _table_width_sources(
                width, {"self.num_heads": num_heads, "d_model": d_model, "x.shape[0]": batch}
            )
            tables = [
                shape for name in ("cos", "sin") if (shape := local_shape(exc, name)) is not None
            ]
            if tables and any(shape[-1:] != (width,) for shape in tables):
                sources = []  # the tables on the line are not the side that clashed
            if sources and not swapped:
                # blind25c: rotary_embedding(len, self.num_heads, base) with 3 heads makes
                # 2 columns; only the module's own sizes that make that many are named
                return (
                    f"The sizes {found[1]} and {found[2]}: {d_head // 2} is d_head // 2, the "
                    "width of half a head (and the columns of its rotation tables); "
                    + (
                        f"your cos and sin have {width} columns"
                        if tables
                        else f"the other side has {width}: if that is your cos and sin, "
                        f"{width} columns is"
                    )
                    + ", which is what "
                    + " or ".join(
                        f"rotary_embedding(len, {name}, ...) makes ({name} = {size})"
                        for name, size in sources
                    )
                    + ": the tables were built with "
                    + " or ".join(name for name, _ in sources)
                    + " where the head width d_head belongs. The tables are "
                    "rotary_embedding(len, self.d_head, self.base)."
                )
            return (
                f"The sizes {found[1]} and {found[2]}: {d_head // 2} is d_head // 2, the width "
                "of half a head (and the columns of its rotation tables); the other side has "
                f"{width}.{swapped} Were cos and sin made for another head width ({2 * width} "
                "features: a fixed or minimum head width), or a head cut "
                "into halves at another place than d_head // 2? The tables are "
                "rotary_embedding(len, self.d_head, self.base)."
            )
        return ""

    return [(RuntimeError, hint)]


def _length_hint(shape: tuple[int, ...]) -> Hint:
    """For a clash on the positions axis of the heads (batch, num_heads, len, ·) between
    len and the size of another axis of x (batch, len, d_model): the length read from
    that axis."""
    length = shape[1]
    names = {2: "d_model"}  # the batch: _attention_hints

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or int(found.group(3)) not in (2, 3):
            return ""
        sizes = {int(found.group(1)), int(found.group(2))}
        if length not in sizes or len(sizes) != 2:
            return ""
        (other,) = sizes - {length}
        axes = [f"x.shape[{k}] ({names[k]})" for k in names if shape[k] == other]
        if not axes:
            return ""
        return (
            f"A size {other} met the {length} positions of x: {other} is {' and '.join(axes)}, "
            "so the length given to rotary_embedding (or to look_ahead_mask) was read from "
            f"another axis of x: the number of positions is len = x.shape[1] = {length} "
            "(x is (batch, len, d_model))."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


_KEYS_NOT_ROTATED = (
    "You rotated the queries but not the keys. RoPE rotates both, with the same angles: "
    "only then does the score q_i . k_j depend on the offset i - j alone."
)
_QUERIES_NOT_ROTATED = (
    "You rotated the keys but not the queries. RoPE rotates both, with the same angles: "
    "only then does the score q_i . k_j depend on the offset i - j alone."
)
_NO_W_O = (
    "You return the merged heads without the output projection: finish with "
    "self.w_o(merge_heads(heads))."
)
_NO_SCALE = (
    "Your scores are not divided by sqrt(d_head): softmax(q kᵀ / sqrt(d_head)), as lesson "
    "04's scaled_dot_product_attention does."
)
_SCALE_D_MODEL = (
    "You divided the scores by sqrt(d_model); each head's scores are divided by "
    "sqrt(d_head), d_head = d_model // num_heads."
)
_SCALE_HALF_D_HEAD = (
    "You divided the scores by d_head / 2, not sqrt(d_head): `d_head ** 1 / 2` is read as "
    "(d_head ** 1) / 2, because ** binds tighter than /. Write d_head ** 0.5 (or "
    "math.sqrt(d_head))."
)

_IGNORES_BASE = (
    "Your rotation ignores the base the module was built with: it uses rotary_embedding's "
    "default 10000. Pass it on: rotary_embedding(len, self.d_head, self.base)."
)

#: {message: causal_self_attention_f's knobs for that mistake}. A one-indexed position is
#: not among them: RoPE's scores depend only on offsets, so the attention cannot show it
#: (rotary_embedding's own check does).
_SPLIT_NO_TRANSPOSE = (
    "Your heads were split with one view (or reshape) straight to (batch, num_heads, len, "
    "d_head), without the transpose, so each head holds features of several positions. "
    "Split as split_heads (imported) does: view(batch, len, num_heads, d_head), then "
    "transpose(1, 2)."
)
_MERGE_NO_TRANSPOSE = (
    "Your heads were merged with a reshape to (batch, len, d_model) without transpose(1, 2) "
    "first, so each output token is cut out of one head's block of numbers: use "
    "merge_heads (imported), or transpose(1, 2) before the reshape."
)
_SOFTMAX_QUERIES = (
    "Your softmax runs over the queries (dim=-2), not over the keys: each query's weights "
    "over the keys it may see sum to 1, torch.softmax(scores, dim=-1)."
)
_NO_DIAGONAL = (
    "Your causal mask leaves out the diagonal: query i sees keys 0 .. i - 1 but not its own "
    "(the first sees none). A mask built with torch.tril(..., diagonal=-1), or j < i where "
    "j <= i belongs, does that. look_ahead_mask(len) keeps the diagonal: query i attends to "
    "keys 0 .. i, itself included."
)
_FILL_ZERO = (
    "Your blocked scores became 0 (or a number close to it), not -inf: exp(0) keeps a "
    "weight for every later key, so each position still attends to the future. Two ways to "
    "get there: masked_fill with 0 or a tiny number (-1e-9, -eps) instead of float('-inf') "
    "(or a large negative such as -1e9), or scores multiplied by the mask. Pass "
    "look_ahead_mask(len) to scaled_dot_product_attention, or fill with -inf."
)
_MASK_AFTER_SOFTMAX = (
    "You applied the causal mask after the softmax (the future weights set to 0): each "
    "query still sees only the past, but its weights no longer add up to 1 (the softmax "
    "ran over every key, the future ones included). Mask the scores before the softmax, "
    "scores.masked_fill(~look_ahead_mask(len), float('-inf')), or pass the mask to "
    "scaled_dot_product_attention, so that the softmax renormalises over the allowed keys."
)
_MASK_FUTURE = (
    "Your causal mask is transposed: each query attends to itself and the keys after it "
    "(the last query to itself only), where it must see itself and the keys before it. "
    "look_ahead_mask(len).T, torch.triu where torch.tril belongs, or j >= i where j <= i "
    "belongs, does that: pass look_ahead_mask(len) as it is (query i attends to keys 0 .. i)."
)
_TABLES_SWAPPED = (
    "Your queries and keys turn the wrong way round: the scores are those of a rotation by "
    "-angle (any table c - m·theta gives them: a score depends only on the difference of "
    "the two angles). The attention's output cannot tell apart the slips that do this: cos "
    "and sin exchanged (sin, cos = rotary_embedding(...), or apply_rotary(q, sin, cos)); "
    "the sines negated; the positions reversed (the tables flipped along the positions, "
    "cos.flip(0)). rotary_embedding returns (cos, sin) for positions 0 .. len - 1, and "
    "apply_rotary takes (x, cos, sin): the own checks of those two tell which, if they "
    "are yours."
)
_ATTENTION_MISTAKES = {
    _NO_ROPE: {"rope": False},
    _TABLES_SWAPPED: {"tables": "swapped"},
    _MASK_FUTURE: {"causal": "future"},
    _MASK_AFTER_SOFTMAX: {"mask_mode": "after"},
    _FILL_ZERO: {"fill": 0.0},
    _NO_DIAGONAL: {"causal": "strict"},
    _SOFTMAX_QUERIES: {"softmax_dim": -2},
    _ROTATE_VALUES: {"rotate_values": True},
    _BEFORE_SPLIT: {"split": "before"},
    _NOT_CAUSAL: {"causal": False},
    _MASK_INVERTED: {"causal": "inverted"},
    _KEYS_NOT_ROTATED: {"rotated": "q"},
    _QUERIES_NOT_ROTATED: {"rotated": "k"},
    _NO_W_O: {"use_w_o": False},
    _NO_SCALE: {"scale": "none"},
    _SCALE_D_MODEL: {"scale": "sqrt_d_model"},
    "You divided the scores by d_head instead of sqrt(d_head).": {"scale": "d_head"},
    _SCALE_HALF_D_HEAD: {"scale": "half_d_head"},
    _IGNORES_BASE: {"base": 10000.0},
    "Your attention neither rotates the queries and keys nor masks the future. Either both "
    "are left out, or the length was read from the batch axis (x.shape[0], 1 here): "
    "rotary_embedding(1, d_head) is position 0's angle (no rotation) and look_ahead_mask(1) "
    "blocks nothing, and both broadcast. x is (batch, len, d_model): length = x.shape[1].": {
        "rope": False,
        "causal": False,
    },
    _SPLIT_NO_TRANSPOSE: {"heads_split": "no_transpose"},
    _MERGE_NO_TRANSPOSE: {"heads_merge": "no_transpose"},
    _SPLIT_NO_TRANSPOSE.replace("split", "split (and merged back)", 1): {
        "heads_split": "no_transpose",
        "heads_merge": "no_transpose",
    },
}


@dataclass(frozen=True)
class _ModelCase:
    seed: int
    batch: int
    length: int
    d_model: int
    num_heads: int
    d_ff: int = 16
    num_layers: int = 2
    vocab: int = 23
    eps: float | None = None  # the block's eps (None: its default); the other layers ignore it
    base: float | None = None  # the attention's RoPE base (None: its default)


_VISIBLE_ATTENTION = [_ModelCase(1, 2, 6, 16, 2, eps=0.5)]
_HIDDEN_ATTENTION = [_ModelCase(101, 1, 9, 24, 3), _ModelCase(102, 3, 5, 32, 2, eps=0.25)]
#: CausalSelfAttention's own cases add a base other than the default (a learner's
#: rotary_embedding(len, d_head) without self.base shows only there), first, with d_model
#: = 24 and d_head = 8, where the scales sqrt(d_model), d_head / 2 and sqrt(d_head) all
#: differ (blind17b-csa-scale-power-precedence, d_head / 2, was told sqrt(d_model): at
#: d_model = 16, d_head = 8 they are both 4)
_VISIBLE_CSA = [_ModelCase(3, 2, 6, 24, 3, base=100.0), *_VISIBLE_ATTENTION]
_HIDDEN_CSA = [*_HIDDEN_ATTENTION, _ModelCase(103, 1, 7, 24, 3, base=500.0)]


def _causal_property(c: Checker, module, x: torch.Tensor, call: str, message: str) -> None:
    changed = x.clone()
    changed[:, -1] = changed[:, -1] + 1 if changed.is_floating_point() else (changed[:, -1] + 1) % 7
    before = c.call(module, x, call_repr=call)
    after = c.call(module, changed, call_repr=call)
    earlier = (before[:, :-1].detach().double() - after[:, :-1].detach().double()).abs().max()
    c.expect_true(float(earlier) < 1e-5, f"{call}: {message}")


def _check_layer(
    cls,
    hidden: bool,
    name: str,
    args: Callable[[_ModelCase], tuple],
    oracle_f: Callable[..., torch.Tensor],
    table: Mapping[str, Mapping[str, Any]],
    scale: float,
    oracle_options: Callable[[_ModelCase], dict[str, Any]] = lambda case: {},
    localise: Callable[[nn.Module, torch.Tensor, _ModelCase], Callable[[str], str]] | None = None,
    locate: Callable[[nn.Module, torch.Tensor, _ModelCase], Callable[[str], str]] | None = None,
    cases: tuple[list[_ModelCase], list[_ModelCase]] = (_VISIBLE_ATTENTION, _HIDDEN_ATTENTION),
    inspect: Callable[[Checker, nn.Module, str, _ModelCase], None] | None = None,
    before: Callable[[Checker, Any, _ModelCase], None] | None = None,
    more_mistakes: Callable[[torch.Tensor, Any, _ModelCase], dict[str, Callable]] | None = None,
    after: Callable[[Checker, Any, _ModelCase], None] | None = None,
) -> None:
    """The check of a layer of the GPT that maps x (batch, len, d_model) to the same
    shape: ``cls(*args(case))`` with deterministic weights, against ``oracle_f(x, state,
    num_heads, **oracle_options(case))`` (with the ``table``'s mistakes), then its causal
    property; ``after(c, cls, first case)`` last (a gradient check, say)."""
    with Checker(name, hidden=hidden) as c:
        c.require_callable(cls)
        for case in cases[1] if hidden else cases[0]:
            if before is not None:  # what the learner's own module tells before its shapes
                before(c, cls, case)
            reference = getattr(ref, name)(*args(case))
            expect_no_persistent_buffers(c, cls, args(case), reference, name)
            x = randn((case.batch, case.length, case.d_model), case.seed, scale=scale)
            expect_layers_in_init(c, cls, args(case), x, reference, name)
            module, built, state = build(
                c,
                cls,
                *args(case),
                name=name,
                reference=reference,
                seed=case.seed,
                mode="eval",
            )
            if inspect is not None:
                inspect(c, module, built, case)
            what = f"{built}(x {tuple(x.shape)})"
            attention = name == "CausalSelfAttention"
            hints = _attention_hints(
                case.batch, case.length, case.d_model, case.num_heads, length_axis=attention
            )
            if attention:  # in a block, a norm's statistic without keepdim clashes alike
                hints.append(_length_hint(tuple(x.shape)))
                hints.insert(
                    0,
                    _heads_and_width_swapped_hint(
                        case.batch, case.length, case.d_model, case.num_heads
                    ),
                )
            # the global stream seeded before each call (the checker restores it on leaving),
            # so a module that draws in eval mode draws the same on every run of the check
            torch.manual_seed(case.seed)
            got = c.call(module, x, call_repr=what, hints=hints)
            expect_tensor_result(c, got, tuple(x.shape), what)
            expect_weights_kept(c, module, state, what)
            # b12b: F.dropout in forward got "differs from the reference" alone
            torch.manual_seed(case.seed + 1)
            random = random_in_eval(what, got, c.call(module, x, call_repr=what, hints=hints))
            if random:  # blind18d-csa-sdpa-dropout-p: the one candidate this lesson adds
                random += (
                    " So does F.scaled_dot_product_attention(q, k, v, ..., dropout_p=p) with "
                    "p > 0: it drops attention weights whatever the mode; pass dropout_p=0.0 "
                    "(or p if self.training else 0.0)."
                )
            c.expect_true(not random, random)
            oracle = functools.partial(oracle_f, x, state, case.num_heads, **oracle_options(case))
            where = None if localise is None else localise(module, x, case)
            last = None if locate is None else locate(module, x, case)
            extra = _head_count_mistakes(
                lambda heads, x=x, case=case, state=state, **k: oracle_f(
                    x, state, heads, **oracle_options(case), **k
                ),
                case,
            )
            if more_mistakes is not None:  # {message: f(pairing)}, the layer's own
                extra.update(more_mistakes(x, state, case))
            if attention:
                extra.update(_extra_steps_mistakes(oracle, x))
                extra.update(_rope_on_input_mistakes(state, x, case.num_heads, case.base))
                extra.update(_score_mistakes(state, x, case.num_heads, case.base))
                # the causal mask's diagonal moved (the table names k = -1)
                extra.update(
                    {
                        told: lambda pairing, oracle=oracle, k=k: oracle(
                            pairing=pairing, diagonal=k
                        )
                        for told, k in moved_diagonals().items()
                    }
                )
                # the scores scaled by another power of a size (the table names the
                # classic four: none, 1 / sqrt(d_model), 1 / d_head, 2 / d_head)
                extra.update(
                    {
                        told: lambda pairing, oracle=oracle, factor=factor: oracle(
                            pairing=pairing, scale=factor
                        )
                        for told, factor in score_scale_candidates(
                            {
                                "d_head": case.d_model // case.num_heads,
                                "d_model": case.d_model,
                                "num_heads": case.num_heads,
                            },
                            skip=(("d_model", -0.5), ("d_head", -1.0)),
                        ).items()
                    }
                )
                extra.update(
                    _projection_mistakes(
                        lambda swapped, x=x, case=case, **k: oracle_f(
                            x, swapped, case.num_heads, **oracle_options(case), **k
                        ),
                        state,
                    )
                )
                extra.update(
                    _strided_head_mistakes(
                        lambda permuted, x=x, case=case, **k: oracle_f(
                            x, permuted, case.num_heads, **oracle_options(case), **k
                        ),
                        state,
                        case.num_heads,
                    )
                )
            _expect_oracle_and_causal(
                c, module, x, got, oracle, what, table, _FUTURE, where, extra=extra, locate=last
            )
            _longer_next_call(
                c, cls, module, name, args(case), case, state, oracle_f, oracle_options
            )
        _same_in_train_mode(c, cls, args(case), x, name)
        if after is not None:
            after(c, cls, (cases[1] if hidden else cases[0])[0])


def _right_at(module, x: torch.Tensor, expected: Callable[[str], torch.Tensor]) -> bool | None:
    """Whether module(x) is the oracle's result in either RoPE pairing; None if it raises."""
    try:
        with torch.no_grad():
            got = module(x)
    except Exception:  # a probe: the error is told by the caller
        return None
    results = [expected(pairing) for pairing in ("half", "adjacent")]
    if not isinstance(got, torch.Tensor) or got.shape != results[0].shape:
        return False
    return any(_close(got, result) for result in results)


def _longer_next_call(
    c: Checker, cls, module, name: str, args: tuple, case: _ModelCase, state, oracle_f, options
) -> None:
    """The module that was right on its first call, called again on a LONGER sequence,
    against a fresh module (same weights) called on that sequence first: right only when
    fresh is state kept from the first call (blind10h-csa-rope-cached-first-call: rotation
    tables computed on the first call and sliced on later ones, never checked)."""
    longer = randn((case.batch, case.length + 5, case.d_model), case.seed + 17)

    def expected(pairing: str) -> torch.Tensor:
        return oracle_f(longer, state, case.num_heads, **options(case), pairing=pairing)

    if _right_at(module, longer, expected):
        return
    fresh, built, _ = build(
        c, cls, *args, name=name, reference=getattr(ref, name)(*args), seed=case.seed, mode="eval"
    )
    call = f"{built}(x {tuple(longer.shape)})"
    if _right_at(fresh, longer, expected):
        c.fail(
            f"{call} is right on a fresh module but not when the same module was called first "
            f"on a shorter sequence (length {case.length}, then {case.length + 5}): your module "
            "keeps something from its first call (a rotation table, a mask or a length stored "
            "on self) and reuses it. Compute what depends on the length in every call, "
            "rotary_embedding(len, d_head, base) and look_ahead_mask(len), or rebuild it when "
            "the length grows."
        )
    got = c.call(fresh, longer, call_repr=call)
    expect_tensor_result(c, got, tuple(longer.shape), call)
    c.fail(
        f"{call} is not what the reference gives, although length {case.length} was right: "
        "something in your module depends on the length (a table or mask built for a fixed "
        "number of positions?)."
    )


def _extra_steps_mistakes(oracle: Callable[..., torch.Tensor], x: torch.Tensor) -> dict:
    """The attention's right output with a step too many (x added back, a residual inside
    the attention, blind19d-csa-residual-added-inside; a norm after it): {message:
    f(pairing)}, each computed only when tried."""
    around = (
        "the DecoderBlock that uses it, h = x + attn(norm1(x)), which would add x a second time"
    )

    def steps(pairing: str) -> dict[str, torch.Tensor]:
        return extra_output_steps(
            oracle(pairing=pairing), {"x": x}, layer="CausalSelfAttention", around=around
        )

    messages = extra_output_steps(x, {"x": x}, layer="CausalSelfAttention", around=around)
    return {
        message: lambda pairing, message=message: steps(pairing)[message] for message in messages
    }


_ROPE_ON_INPUT = (
    "Your attention rotates the layer's input x over its d_model features "
    "(rotary_embedding(len, d_model) applied to x) before the projections{which}, instead "
    "of rotating each head's projected queries and keys: a rotation does not survive w_q and w_k "
    "(w_q R_m x is not R_m w_q x), so the scores no longer depend on the offset alone{values}. "
    "Project first, split the heads, then rotate q and k with the tables for d_head: "
    "cos, sin = rotary_embedding(len, self.d_head, self.base); q, k = apply_rotary(q, cos, "
    "sin), apply_rotary(k, cos, sin)."
)


def _rope_on_input_mistakes(
    state: Mapping[str, torch.Tensor], x: torch.Tensor, num_heads: int, base: float | None
) -> dict[str, Callable]:
    """RoPE applied to the layer's input (batch, len, d_model) with d_model-wide tables,
    before the projections, where each head's projected queries and keys belong
    (blind20c-csa-rope-on-input-before-projections got "differs from the reference"): the
    rotated x fed to all three projections, or to w_q and w_k only (v from x as it is).
    {message: f(pairing)}, each computed only when tried."""
    length, d_model = x.shape[-2:]
    if d_model % 2:
        return {}

    def attention(pairing: str, values_rotated: bool) -> torch.Tensor:
        angles = rope_angles_f(length, d_model, 10000.0 if base is None else base)
        turned = rotate_f(x, angles, pairing)  # (batch, len, d_model), float64
        values = turned if values_rotated else x.double()
        output, _ = multi_head_attention_f(
            state, turned, turned, values, None, num_heads, is_causal=True
        )
        return output

    every = _ROPE_ON_INPUT.format(
        which=" and feeds the rotated x to all three projections",
        values=", and the values carry positions too",
    )
    queries_keys = _ROPE_ON_INPUT.format(
        which=" for the queries and keys (the values from x as it is)", values=""
    )
    return {
        every: lambda pairing: attention(pairing, True),
        queries_keys: lambda pairing: attention(pairing, False),
    }


_UNIT_QUERIES_KEYS = (
    "Your queries and keys are normalised to unit length (F.normalize(q, dim=-1) and "
    "likewise k, QK-norm) before the scores: each score is then a cosine divided by "
    "sqrt(d_head), at most 1 / sqrt(d_head), and the weights are nearly uniform. The "
    "lesson's attention has no such step: scores = q @ k.transpose(-2, -1) / sqrt(d_head) "
    "on the rotated q and k as they are."
)
_ADDED_FLOAT_MASK = (
    "Your look-ahead mask is added to the scores as numbers (+1 where a key may be seen, 0 "
    "for the future) instead of blocking: a float attn_mask is added to the scores by "
    "F.scaled_dot_product_attention (a bool one blocks where it is False), so every position "
    "still attends to the later ones. Pass the bool mask itself (attn_mask=look_ahead_mask("
    "length), or is_causal=True), or fill the blocked scores with -inf."
)


def _score_mistakes(
    state: Mapping[str, torch.Tensor], x: torch.Tensor, num_heads: int, base: float | None
) -> dict[str, Callable]:
    """Slips in the scores between the rotation and the softmax, computed from the weights:
    the queries and keys scaled to unit length (blind21c-attention-unit-length-queries-and-
    keys), the causal mask cast to float and so added, 0 or 1, instead of blocking
    (blind12i-csa-sdpa-float-mask); both got "differs from the reference". {message:
    f(pairing)}, each computed only when tried."""
    batch, length, d_model = x.shape
    d_head = d_model // num_heads
    if d_head * num_heads != d_model or d_head % 2:
        return {}
    x64 = x.double()

    def heads(name: str) -> torch.Tensor:  # (batch, num_heads, len, d_head)
        projected = x64 @ state[f"{name}.weight"].double().T  # (batch, len, d_model)
        return projected.view(batch, length, num_heads, d_head).transpose(1, 2)

    def attention(pairing: str, slip: str) -> torch.Tensor:
        angles = rope_angles_f(length, d_head, 10000.0 if base is None else base)
        q, k = (rotate_f(heads(name), angles, pairing) for name in ("w_q", "w_k"))
        if slip == "unit":
            q, k = (t / t.norm(dim=-1, keepdim=True).clamp(min=1e-12) for t in (q, k))
        scores = q @ k.transpose(-2, -1) / d_head**0.5  # (batch, heads, len, len)
        allowed = torch.ones(length, length, dtype=torch.bool).tril()  # (len, len)
        if slip == "float_mask":
            scores = scores + allowed.double()
        else:
            scores = scores.masked_fill(~allowed, float("-inf"))
        merged = (scores.softmax(-1) @ heads("w_v")).transpose(1, 2).reshape(x64.shape)
        return merged @ state["w_o.weight"].double().T  # (batch, len, d_model)

    if any(f"{name}.weight" not in state for name in ("w_q", "w_k", "w_v", "w_o")):
        return {}
    return {
        _UNIT_QUERIES_KEYS: lambda pairing: attention(pairing, "unit"),
        _ADDED_FLOAT_MASK: lambda pairing: attention(pairing, "float_mask"),
    }


def _head_count_mistakes(oracle: Callable[..., torch.Tensor], case: _ModelCase) -> dict:
    """The same weights split into another number of heads (each a divisor of d_model with
    an even head width): a number of heads or a head width fixed in the learner's code
    (blind10h-csa-four-heads-hard-coded: view(batch, length, 4, -1) got "differs")."""
    found = {}
    for heads in range(1, case.d_model + 1):
        width = case.d_model // heads
        if heads == case.num_heads or case.d_model % heads or width % 2:
            continue
        message = (
            f"Your attention computes {heads} head{'s' if heads > 1 else ''} of {width} "
            f"features, not num_heads = "
            f"{case.num_heads} heads of d_model // num_heads = {case.d_model // case.num_heads}"
            f": a number of heads or a head width is fixed in your code (a {heads} in a view "
            "or reshape, or d_head from another value). Split with self.num_heads, "
            "split_heads(..., self.num_heads), and take the angles for self.d_head."
        )
        found[message] = lambda pairing, heads=heads: oracle(heads, pairing=pairing)
    return found


_PROJECTIONS = {"w_q": "queries", "w_k": "keys", "w_v": "values"}


def _projection_mistakes(oracle: Callable[..., torch.Tensor], state) -> dict[str, Callable]:
    """One projection used in another's place (a copy-paste slip such as
    k = split_heads(self.w_q(x), ...)): the oracle with that weight substituted."""
    found = {}
    for used in _PROJECTIONS:
        for meant, wanted in _PROJECTIONS.items():
            if used == meant or f"{used}.weight" not in state or f"{meant}.weight" not in state:
                continue
            swapped = dict(state)
            swapped[f"{meant}.weight"] = state[f"{used}.weight"]
            message = (
                f"Your {wanted} are projected with {used}, not {meant} (a copy-paste slip such "
                f"as {wanted[0]} = split_heads(self.{used}(x), ...)), so {meant} is never used: "
                f"the {wanted} come from self.{meant}(x)."
            )
            found[message] = lambda pairing, swapped=swapped: oracle(swapped, pairing=pairing)
    # two projections exchanged (each used for the other: k, q = ... unpacked in the wrong
    # order, or the names swapped in one assignment)
    names = list(_PROJECTIONS)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            if f"{first}.weight" not in state or f"{second}.weight" not in state:
                continue
            exchanged = dict(state)
            exchanged[f"{first}.weight"] = state[f"{second}.weight"]
            exchanged[f"{second}.weight"] = state[f"{first}.weight"]
            a, b = _PROJECTIONS[first], _PROJECTIONS[second]
            message = (
                f"Your {a} and {b} are exchanged: the {a} come from self.{second}(x) and the "
                f"{b} from self.{first}(x) (two names swapped, such as {b[0]}, {a[0]} = ... "
                f"where {a[0]}, {b[0]} = ... belongs, each projection called for the other, "
                "or the two given to scaled_dot_product_attention in each other's place). "
                f"The {a} are self.{first}(x), the {b} self.{second}(x)."
            )
            found[message] = lambda pairing, exchanged=exchanged: oracle(exchanged, pairing=pairing)
    return found


def _strided_head_mistakes(
    oracle: Callable[..., torch.Tensor], state, num_heads: int
) -> dict[str, Callable]:
    """Heads split, merged, or both, with the head axis taken as the fast one, view(batch,
    len, d_head, num_heads) with the heads moved out of the last axis: head h holds the
    strided features h, h + num_heads, ... (blind23c-csa-heads-view-d-head-before-heads
    got "differs"). Each is the reference with the projections' rows (the split) or the
    output projection's columns (the merge) permuted, so the oracle replays it exactly."""
    if "w_q.weight" not in state or "w_o.weight" not in state:
        return {}
    d_model = state["w_q.weight"].shape[0]
    d_head = d_model // num_heads
    if num_heads < 2 or d_head < 2:
        return {}
    # the feature the strided split puts at the contiguous split's place h * d_head + j
    strided = torch.arange(d_model).view(d_head, num_heads).T.reshape(-1)  # (d_model,)
    split_text = (
        "your heads hold strided features: head h gets features h, h + num_heads, h + 2 · "
        "num_heads, ... (every num_heads-th feature) instead of the contiguous slice h · "
        "d_head to (h + 1) · d_head - 1, as a view(batch, len, d_head, num_heads) with the "
        "head axis moved out of the last place does"
    )
    merge_text = (
        "your merge puts head h's feature j at j · num_heads + h (interleaving the heads, "
        "as a permute that moves the head axis last before the reshape does) instead of h "
        "· d_head + j"
    )
    fix = (
        " Split with view(batch, len, num_heads, d_head).transpose(1, 2) (split_heads) and "
        "merge back with transpose(1, 2).reshape(batch, len, d_model) (merge_heads): the "
        "head axis comes before d_head."
    )
    found = {}
    for split, merge in ((True, True), (True, False), (False, True)):
        permuted = dict(state)
        if split:
            for name in ("w_q", "w_k", "w_v"):
                permuted[f"{name}.weight"] = state[f"{name}.weight"][strided]
        if merge:
            permuted["w_o.weight"] = state["w_o.weight"][:, strided]
        told = (
            f"{split_text[0].upper()}{split_text[1:]}, and {merge_text}."
            if split and merge
            else f"{split_text[0].upper()}{split_text[1:]}, while your merge is right."
            if split
            else f"{merge_text[0].upper()}{merge_text[1:]}, while your split is right."
        )
        found[told + fix] = lambda pairing, permuted=permuted: oracle(permuted, pairing=pairing)
    return found


def check_CausalSelfAttention(cls, *, hidden: bool = False) -> None:
    _check_layer(
        cls,
        hidden,
        "CausalSelfAttention",
        lambda case: (case.d_model, case.num_heads, *(() if case.base is None else (case.base,))),
        causal_self_attention_f,
        _ATTENTION_MISTAKES,
        scale=1.0,
        oracle_options=lambda case: {} if case.base is None else {"base": case.base},
        localise=lambda module, x, case: functools.partial(
            _localise_attention,
            module,
            x,
            case.num_heads,
            10000.0 if case.base is None else case.base,
            True,
        ),
        locate=lambda module, x, case: functools.partial(
            _localise_attention,
            module,
            x,
            case.num_heads,
            10000.0 if case.base is None else case.base,
            False,
        ),
        cases=(_VISIBLE_CSA, _HIDDEN_CSA),
    )


def _localise_attention(
    module, x: torch.Tensor, num_heads: int, base: float, named_only: bool, pairing: str
) -> str:
    """How the attention weights the learner's module used depart from the causal softmax
    of its own rotated queries and keys: the weights are recovered from its values (w_v's
    output) and w_o's input, both through forward hooks (checking/recovered_weights). They
    are determined only for fewer keys than a head's width: a longer x is cut to its
    first d_head - 1 positions, and the message says so. "" when they cannot be recovered
    (the projections not called as modules, the heads split or merged otherwise), or, with
    ``named_only``, when no cause is named."""
    d_head = x.shape[-1] // num_heads
    if x.shape[1] < d_head:
        return _attention_weights_departure(module, x, num_heads, base, named_only, pairing)
    if d_head < 3:
        return ""
    shorter = x[:, : d_head - 1]
    found = _attention_weights_departure(module, shorter, num_heads, base, named_only, pairing)
    return found and (
        f"Run on the first {d_head - 1} positions, x[:, :{d_head - 1}] (with fewer keys than "
        f"a head's {d_head} features, the weights can be recovered): {found}"
    )


def _attention_weights_departure(
    module,
    x: torch.Tensor,
    num_heads: int,
    base: float,
    named_only: bool,
    pairing: str,
    lengths: bool = True,
):
    """:func:`_localise_attention` on an x (batch, len, d_model) with len < d_head. When the
    weights are the softmax of the right scores times one factor, the same is measured on
    each shorter prefix of x, and a factor that changes with the length is told
    (blind31c-csa-logn-query-scaling: log(len) / log(128) on the queries, told as one
    factor). ``lengths=False``: (weights, scores, allowed) for that measurement, or ""."""
    try:
        _, records = record_calls(module, ["w_q", "w_k", "w_v", "w_o"], lambda: module(x))
    except Exception:  # a probe: the error is told by the check's own call
        return ""
    seen = {name: (given, made) for name, given, made in records}
    if set(seen) != {"w_q", "w_k", "w_v", "w_o"} or len(records) != 4:
        return ""
    batch, length, d_model = x.shape
    d_head = d_model // num_heads

    def heads(t: torch.Tensor | None) -> torch.Tensor | None:  # (batch, len, d_model) ->
        if t is None or tuple(t.shape) != (batch, length, d_model):  # (batch, h, len, d_head)
            return None
        return t.detach().double().view(batch, length, num_heads, d_head).transpose(1, 2)

    q, k, v = (heads(seen[name][1]) for name in ("w_q", "w_k", "w_v"))
    merged = heads(seen["w_o"][0])  # w_o's input: the heads merged
    if any(t is None for t in (q, k, v, merged)):
        return ""
    weights = recover_weights(merged, v)  # (batch, num_heads, len, len)
    if weights is None:
        return ""
    angles = rope_angles_f(length, d_head, base)  # (len, d_head/2)
    q, k = rotate_f(q, angles, pairing), rotate_f(k, angles, pairing)
    scale = d_head**-0.5
    scores = q @ k.transpose(-2, -1) * scale  # (batch, num_heads, len, len)
    allowed = torch.ones(length, length, dtype=torch.bool).tril()
    if lengths and score_factor(weights, scores, allowed) is not None:
        # one factor on these scores: does it change with the sequence length?
        factors = {}
        for n in range(2, length + 1):
            found = _attention_weights_departure(
                module, x[:, :n], num_heads, base, named_only, pairing, lengths=False
            )
            if not isinstance(found, tuple):
                break
            factor = score_factor(*found)
            if factor is None:
                break
            factors[n] = factor
        else:
            if reading := length_scale_reading(factors):
                return (
                    "The attention weights your code used (recovered exactly from your values "
                    "and w_o's input) are at each length the softmax of the right scores "
                    f"times one factor, but {reading}: drop it."
                )
    if not lengths:
        return weights, scores, allowed
    return weights_departure(
        weights,
        scores,
        allowed,
        scores_are="q k^T / sqrt(d_head) with q and k from your w_q and w_k, rotated",
        scale=scale,
        recovered_from="your values and w_o's input",
        named_only=named_only,
    )


_BLOCK_PARTS = {"attn": "attn", "ffn": "feed_forward"}  # decoder_block_f's parts: attributes
_BLOCK_NORMS = {"attn": "norm1", "ffn": "norm2"}


def _localise_block(module, x: torch.Tensor, pairing: str) -> str:
    """Which residual sub-result of the learner's pre-norm block first departs."""
    return localise_layer(
        module,
        lambda: module(x),
        x,
        sublayers=list(_BLOCK_PARTS.values()),
        norms={_BLOCK_PARTS[k]: v for k, v in _BLOCK_NORMS.items()},
        norm_first=True,
    )
