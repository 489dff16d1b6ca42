"""Checks for lesson 06: padding masks, look-ahead masks, the decoder's combined mask, and
two concept questions.

Masks are ``torch.bool`` with True = "may attend" (the convention of
``F.scaled_dot_product_attention``), a taught, motivated part of the lesson: each check
verifies type, shape and dtype first (with a message for each classic wrong form), then
the exact values (with a diagnosis for each classic wrong mask), explaining any other
difference by what the mask does to attention (the *reference* attention run with the
learner's mask): a pad key that gets weight, a real token nobody may read, an output
that changes when future tokens change.

Decided per case (what is required is what the course's attention and PyTorch's layers
need, with the reason in the message):

* any way of computing the mask is accepted (comparisons, tril/triu, arange, where,
  logical_and, bool products, loops, a numpy round trip ending in a bool tensor);
* other dtypes are not: an integer (including uint8) or float 0/1 mask breaks
  ``~mask`` (a bitwise NOT, ~1 == -2 or 254) and ``masked_fill``, and a float mask is
  *added* to the scores by ``F.scaled_dot_product_attention``; the additive 0/-inf form
  gets its own message;
* shapes are not either: the padding mask stays compact, (batch, 1, 1, len), so that it
  also serves cross-attention, where len_q differs; the look-ahead mask is exactly
  (size, size), the shape ``nn.MultiheadAttention``'s ``attn_mask`` takes.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from collections.abc import Callable

import torch

from transformer_course.checking import Checker, CheckFailure, torch_generator
from transformer_course.checking.batch_rows import alone_right, row_by_row_hint, row_by_row_note
from transformer_course.checking.hints import two_mistakes
from transformer_course.checking.mask_forms import additive_mask_note
from transformer_course.checking.mask_relations import triangle_offset_note
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.checking.size_one_axes import (
    grown_size_one,
    raised_on_size_one_hint,
    size_one_axes_note,
)
from transformer_course.checking.size_sources import broadcast_sizes, size_source_note, size_sources
from transformer_course.checking.uninitialised import unwritten_tensor_entries
from transformer_course.exercise import Exercise
from transformer_course.reference import masking as ref
from transformer_course.reference import tokenization as tok
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.multi_head_attention import MultiHeadAttention

# the check functions, and the inputs they run (public for the lesson's tests, which prove
# that the hidden ones cover the hard cases)
__all__ = [
    "HIDDEN_SIZES",
    "VISIBLE_SIZES",
    "check_decoder_self_attention_mask",
    "check_look_ahead_mask",
    "check_padding_mask",
    "check_quiz_fully_masked_row",
    "check_quiz_which_mask",
    "hidden_decoder_cases",
    "hidden_padding_cases",
    "visible_decoder_cases",
    "visible_padding_cases",
]

_VOCAB_SIZE = 20
D_MODEL, NUM_HEADS = 8, 2


# ----------------------------------------------------------------------------- inputs
def _padded_batch(seed: int, lengths: list[int], length: int, pad_id: int, *, left: bool = False):
    """Random token ids (batch, length), never pad_id except in the padding.

    ``lengths`` gives the number of real tokens per sequence; the rest is padding,
    at the end (``left=False``) or at the start (``left=True``). When pad_id != 0,
    the first token is 0, so that a mask comparing with 0 instead of pad_id shows.
    """
    gen = torch_generator(seed)
    ids = torch.randint(0, _VOCAB_SIZE - 1, (len(lengths), length), generator=gen)
    ids = ids + (ids >= pad_id).long()  # skip pad_id: values in [0, VOCAB_SIZE) minus {pad_id}
    if pad_id != 0:
        ids[0, length - lengths[0] if left else 0] = 0
    for row, n in enumerate(lengths):
        if left:
            ids[row, : length - n] = pad_id
        else:
            ids[row, n:] = pad_id
    return ids


def visible_padding_cases() -> list[tuple[torch.Tensor, int]]:
    """(ids (batch, len), pad_id) pairs the visible padding_mask check runs."""
    return [
        (torch.tensor([[5, 7, 9, 0, 0], [3, 4, 8, 6, 2], [11, 0, 0, 0, 0]]), 0),
        # pad_id 1: here 0 is an ordinary token (a start token, say)
        (torch.tensor([[0, 4, 7, 1, 1], [0, 9, 1, 1, 1]]), 1),
        # left padding (pads first), and a sequence made only of padding
        (torch.tensor([[0, 0, 6, 2], [0, 0, 0, 0], [4, 0, 0, 0]]), 0),
        # a batch of one sequence of one token
        (torch.tensor([[7]]), 0),
        # a batch of one that holds pads: a single sentence padded to a fixed length
        (torch.tensor([[6, 3, 8, 0, 0]]), 0),
    ]


def hidden_padding_cases() -> list[tuple[torch.Tensor, int]]:
    """(ids (batch, len), pad_id) pairs the hidden padding_mask check runs: other seeds and
    shapes, a fully padded sequence, left padding, a pad id other than 0, a single token."""
    return [
        (_padded_batch(6101, [7, 3, 0, 5], 7, 0), 0),
        (_padded_batch(6102, [4, 6, 1], 6, 1), 1),
        (_padded_batch(6103, [2, 5, 3], 5, 3, left=True), 3),
        (_padded_batch(6104, [12, 9, 0, 16, 3, 16], 16, 0), 0),
        (_padded_batch(6105, [1], 1, 0), 0),
        (_padded_batch(6106, [4], 7, 2, left=True), 2),  # a batch of one that holds pads
    ]


def visible_decoder_cases() -> list[tuple[torch.Tensor, int]]:
    """(tgt_ids (batch, len_tgt), pad_id) pairs the visible decoder-mask check runs."""
    return [
        # "<bos> i am fine <eos>" and "<bos> hi <eos>", right-padded with pad_id 0
        (torch.tensor([[2, 5, 6, 7, 3, 0], [2, 8, 3, 0, 0, 0]]), 0),
        # left padding (used for batched generation): pads come first
        (torch.tensor([[0, 0, 2, 9, 4], [2, 7, 5, 8, 4]]), 0),
        # a sequence made only of padding, pad_id 1
        (torch.tensor([[0, 4, 1], [1, 1, 1]]), 1),
        # a batch of one sequence of one token
        (torch.tensor([[2]]), 0),
        # a batch of one that holds pads: a single sentence padded to a fixed length
        (torch.tensor([[2, 6, 3, 0]]), 0),
        # more sequences than positions: a size read from the batch shows only here
        (torch.tensor([[2, 5, 3], [2, 9, 3], [2, 3, 0], [2, 7, 3], [2, 3, 0]]), 0),
        # a batch that holds no pad at all: the look-ahead part alone matters (a shortcut
        # that returns the padding mask when there is nothing to pad shows only here)
        (torch.tensor([[2, 5, 6, 3], [2, 9, 4, 3]]), 0),
    ]


def hidden_decoder_cases() -> list[tuple[torch.Tensor, int]]:
    """(tgt_ids (batch, len_tgt), pad_id) pairs the hidden decoder-mask check runs."""
    return [
        (_padded_batch(6201, [9, 4, 0, 6], 9, 0), 0),
        (_padded_batch(6202, [3, 7, 5], 7, 2, left=True), 2),
        (_padded_batch(6203, [12, 1, 8], 12, 1), 1),
        (_padded_batch(6204, [16, 5, 11, 0, 16], 16, 0), 0),
        (_padded_batch(6205, [1], 1, 0), 0),
        (_padded_batch(6206, [3], 6, 1), 1),  # a batch of one that holds pads
        (_padded_batch(6207, [4, 2, 4, 3, 1, 4, 4], 4, 0), 0),  # more sequences than positions
        (_padded_batch(6208, [5, 5, 5], 5, 1), 1),  # no pad at all
    ]


#: the sizes the look_ahead_mask check runs, visible and hidden
# the long ones last: a mask sliced from a triangle precomputed for a fixed maximum size
# (a causal buffer of block_size) is right up to that size only (blind8d-lookahead-sliced-
# from-cached-triangle, caught by the hidden size 9 alone)
VISIBLE_SIZES = [4, 6, 2, 1, 40]
HIDDEN_SIZES = [5, 9, 3, 16, 1, 70]


# ---------------------------------------------------------------------------- helpers
def _ids_repr(ids: torch.Tensor) -> str:
    if ids.numel() <= 24:
        return str(ids.tolist())
    return f"a random ({ids.shape[0]}, {ids.shape[1]}) batch"


def _grid(mask2d: torch.Tensor) -> list[str]:
    return [" ".join("1" if bool(v) else "0" for v in row) for row in mask2d]


def _side_by_side(got2d: torch.Tensor, expected2d: torch.Tensor, label: str = "") -> str:
    """Yours | expected, as 0/1 grids (rows = queries, columns = keys), for small masks."""
    if got2d.shape[-1] > 9:
        return ""
    left, right = _grid(got2d), _grid(expected2d)
    width = max(len(left[0]) if left else 0, len("yours"))
    lines = [
        f"{'yours':<{width}}   expected",
        *(f"{a:<{width}}   {b}" for a, b in zip(left, right, strict=True)),
    ]
    return f"\n({label}1 = may attend; rows are queries, columns are keys)\n" + "\n".join(lines)


def _expect_mask_tensor(c: Checker, got, what: str) -> None:
    hint = "Return a torch.Tensor of dtype torch.bool."
    if type(got).__module__ == "numpy":
        hint += " You returned a numpy array: wrap it with torch.from_numpy(...)."
    elif got is None:
        hint += " Did you forget the `return` statement?"
    c.expect_type(got, torch.Tensor, f"{what}'s result", hint)


def _expect_bool(
    c: Checker,
    got: torch.Tensor,
    what: str,
    source_hint: str,
    extra: str = "",
    expected: torch.Tensor | None = None,
) -> None:
    """dtype torch.bool, with the reason other dtypes fail (a taught choice). With
    ``expected`` (the right bool mask, same shape), a numeric mask's entries are read as a
    mask too, so that a second mistake in them is named with the dtype (blind7b-lookahead-
    triu-int-two-mistakes: an int triu(1) mask was told only about its dtype)."""
    if got.dtype.is_floating_point and bool(torch.isinf(got).any()):
        c.fail(f"{what} {additive_mask_note(got)}")
    if (
        got.dtype != torch.bool
        and expected is not None
        and tuple(got.shape) == tuple(expected.shape)
        and bool(((got == 0) | (got == 1)).all())
    ):
        marked = got != 0
        if bool((marked == ~expected).all()):
            extra = (
                f"{extra} Two mistakes at once: besides the dtype, the entries are the wrong way "
                "round: your 1s mark the positions that must be blocked and your 0s the ones "
                "that may be attended, so after a plain .bool() the polarity would still be "
                "inverted. Make True (1) the positions that may be attended."
            ).strip()
        elif bool((marked == expected).all()):
            extra = f"{extra} (Its 0/1 entries are right: only the dtype is wrong.)".strip()
    if got.dtype.is_floating_point:
        why = (
            "A float mask means something else: F.scaled_dot_product_attention *adds* a float "
            "mask to the scores (0 and 1 would hide nothing), and masked_fill refuses it."
        )
    else:
        example = "~1 == 254" if got.dtype == torch.uint8 else "~1 == -2"
        why = (
            f"Numbers do not work as masks: `~` on an integer tensor is a bitwise NOT "
            f"({example}, never 0), so `~mask` would block nothing, and masked_fill requires "
            "a bool mask."
        )
    c.expect_dtype(
        got,
        torch.bool,
        f"{what}'s result",
        f"Masks in this course are bool (True = may attend). {source_hint} {why} {extra}".strip(),
    )


def _attention(mask: torch.Tensor, batch: int, length: int, seed: int):
    """Reference attention on random q, k, v (batch, NUM_HEADS, length, d_k) with ``mask``.

    Returns output (batch, NUM_HEADS, length, d_k) and weights (batch, NUM_HEADS, length, length).
    """
    gen = torch_generator(seed)
    q, k, v = (torch.randn(batch, NUM_HEADS, length, 4, generator=gen) for _ in range(3))
    return scaled_dot_product_attention(q, k, v, mask)


def _pad_key_leak(weights: torch.Tensor, ids: torch.Tensor, pad_id: int) -> str:
    """A message if some pad key gets weight with the learner's mask, else ""."""
    is_pad = (ids == pad_id)[:, None, None, :].expand_as(weights)
    leaked = (weights != 0) & is_pad
    if not bool(leaked.any()):
        return ""
    b, h, i, j = (int(x) for x in leaked.nonzero()[0])
    return (
        f"With your mask, the reference attention gives the pad key at position {j} "
        f"of sequence {b} a weight of {float(weights[b, h, i, j]):.3g} (query {i}). Padded "
        "keys must receive exactly zero weight, so the mask must be False at every pad key."
    )


def _causal_leak(
    mask_for: Callable[[torch.Tensor], torch.Tensor],
    ids: torch.Tensor | None,
    length: int,
    seed: int,
    picture: str = "",
    pad_id: int = 0,
) -> str:
    """A message if, with the mask, changing the tokens after position i changes the outputs
    at positions 0..i, else "".

    ``mask_for(ids)`` returns the mask for a batch of ids (or ignores them). A reference
    multi-head attention layer with fixed weights plays the decoder's self-attention; its
    output at each position is compared before and after the future tokens change.
    """
    gen = torch_generator(seed)
    layer = MultiHeadAttention(D_MODEL, NUM_HEADS)
    shapes = {name: p.shape for name, p in layer.state_dict().items()}
    layer.load_state_dict(
        {
            name: torch.randn(shape, generator=gen) / math.sqrt(D_MODEL)
            for name, shape in shapes.items()
        }
    )
    table = torch.randn(_VOCAB_SIZE, D_MODEL, generator=gen)  # a fixed embedding table
    keep_pads = ids is not None
    if ids is None:  # a single sequence of random tokens
        ids = torch.randint(0, _VOCAB_SIZE, (1, length), generator=gen)
    with torch.no_grad():
        x = table[ids]  # (batch, len, d_model)
        base, _ = layer(x, x, x, mask_for(ids))  # (batch, len, d_model)
        for i in range(length - 1):
            changed = ids.clone()
            future = changed[:, i + 1 :]
            # a different real token at every real future position; pads stay pads
            new = (
                future + 1 + torch.randint(0, _VOCAB_SIZE - 2, future.shape, generator=gen)
            ) % _VOCAB_SIZE
            new = torch.where(new == pad_id, (new + 1) % _VOCAB_SIZE, new)
            if keep_pads:
                new = torch.where(future == pad_id, future, new)
            changed[:, i + 1 :] = new
            x = table[changed]  # (batch, len, d_model)
            out, _ = layer(x, x, x, mask_for(changed))  # (batch, len, d_model)
            diff = (out[:, : i + 1] - base[:, : i + 1]).abs()
            if bool((diff > 1e-5).any()):
                b, j, _ = (int(x) for x in (diff > 1e-5).nonzero()[0])
                seq = f" of sequence {b}" if ids.shape[0] > 1 else ""
                return (
                    f"With your mask, changing the tokens after position {i} changed "
                    f"the attention output at position {j}{seq} (by up to "
                    f"{float(diff[b, j].max()):.3g}). Position {j} can see the future: the mask "
                    f"must be False for every key after the query.{picture}"
                )
    return ""


def _ids_dtype_followed(fn, ids: torch.Tensor, pad_id: int, got: torch.Tensor) -> str:
    """When ``got`` has the ids' own integer dtype and the same call on the ids cast to
    int32 comes back int32, the mask took the ids' dtype from them (.to(ids), type_as,
    ones_like(ids), arithmetic with the ids), not from a cast (.long() stays int64): the
    message that says so ("" otherwise, or when the probe fails)."""
    if got.dtype != ids.dtype or got.dtype == torch.int32:
        return ""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            probe = fn(ids.clone().to(torch.int32), pad_id)
    except Exception:  # a probe: the general message stays
        return ""
    if not (isinstance(probe, torch.Tensor) and probe.dtype == torch.int32):
        return ""
    return (
        f"Your mask takes the dtype of the ids it is given: {ids.dtype} ids give a "
        f"{ids.dtype} mask, int32 ids an int32 one. So a tensor in it was converted to the "
        "ids' dtype, not cast by a fixed .long(): `.to(ids)` (or .to(tgt_ids)) moves to the "
        "ids' device *and* casts to their dtype, and so do .type_as(ids) and "
        "torch.ones_like(ids) without dtype=; a bool & an integer tensor is then an integer "
        "tensor. To follow the device only, write .to(ids.device)."
    )


# ------------------------------------------------------------------------ padding_mask
_FROM_COMPARISON = (
    "A comparison such as `ids != pad_id` is already bool: drop any .int(), .long() or .float()."
)
_PAD_SHAPE_HINTS = {
    "flat": "Yours has the ids' own shape, (batch, len) instead of (batch, 1, 1, len): the "
    "flags without the head and query axes (the layout of Hugging Face's attention_mask and "
    "of nn.MultiheadAttention's key_padding_mask). The values may be right, but the mask "
    "needs two singleton axes: (batch, 1, 1, len). Attention scores are (batch, num_heads, "
    "len_q, len_k); the 1s line up with num_heads and len_q, so one row of key flags "
    "broadcasts to every head and every query: (ids != pad_id)[:, None, None, :].",
    "query": "your len axis is on the query axis (len_q), so the mask would broadcast over the "
    "keys instead of over the queries: it would blank out whole rows for pad *queries* while "
    "every real token could still attend to the pads. Padding must hide pad *keys*: put the len "
    "axis last, (batch, 1, 1, len).",
    "expanded": "You expanded the mask over the query axis. The contract is the compact "
    "(batch, 1, 1, len): broadcasting does the expansion for free inside attention, and the "
    "same mask then also serves cross-attention, where the number of queries (len_q) differs "
    "from len; an expanded (batch, 1, len, len) mask cannot broadcast against its "
    "(batch, num_heads, len_q, len_k) scores.",
    "three": "One singleton axis is missing. Broadcasting aligns shapes from the right, so a 3-D "
    "(batch, 1, len) mask against 4-D scores (batch, num_heads, len_q, len_k) is read as "
    "(1, batch, 1, len): your batch axis would line up with num_heads. Use (batch, 1, 1, len). "
    "(The Annotated Transformer's masks are (batch, 1, len) because its attention layer adds "
    "the head axis itself, with mask.unsqueeze(1); the attention of this course does not.)",
    "heads": "Your len axis is in the num_heads position, (batch, len, 1, 1): against scores "
    "(batch, num_heads, len_q, len_k) it would pair position j with head j. The flags belong on "
    "the last (key) axis: (batch, 1, 1, len).",
}


_MASK_AXES = ("batch", "heads", "query", "key")


def _batch_axis_moved_note(got, expected: torch.Tensor, batch: int, fix: str) -> str:
    """The right flags with the batch axis on another axis of the four, a 1 in front of it
    (round 19, blind16d-padmask-batch-on-heads-axis: [None, :, None, :] gives (1, batch,
    1, len), told it assumes a batch of one): moving that axis back to the front gives the
    expected mask exactly, so the flags are right and only the axis is misplaced."""
    if not (
        isinstance(got, torch.Tensor)
        and batch > 1
        and got.ndim == 4
        and got.shape[0] == 1
        and got.shape != expected.shape
    ):
        return ""
    for axis in range(1, 4):
        if got.shape[axis] != batch:
            continue
        moved = got.detach().cpu().movedim(axis, 0)  # the batch axis back in front
        if moved.shape == expected.shape and torch.equal(moved != 0, expected):
            shape = ", ".join("batch" if k == axis else str(n) for k, n in enumerate(got.shape))
            return (
                f"Yours holds the right flags, but its batch axis ({batch} sequences) sits on "
                f"the {_MASK_AXES[axis]} axis (axis {axis}), ({shape}), with a 1 in front "
                "where the batch belongs: a new axis was inserted before the batch (an index "
                "such as [None, :, ...] or unsqueeze(0), or a view/reshape that starts with 1). "
                f"Attention's scores are (batch, heads, query, key), so this would pair "
                f"sequence b with {('head b', 'query b', 'key b')[axis - 1]}. "
                f"Keep the batch axis first: {fix}."
            )
    return ""


def _causal_shaped_like_ids_note(got, ids, pad_id) -> str:
    """A (batch, 1, batch, len) mask that is the padding mask & a (batch, len) triangle:
    the look-ahead part built with the shape of the ids (tril of ones_like(tgt_ids), of
    tgt_ids.shape) instead of (len, len); right only when batch == len."""
    batch, length = ids.shape
    if not (
        isinstance(got, torch.Tensor)
        and batch != length
        and tuple(got.shape) == (batch, 1, batch, length)
    ):
        return ""
    pad = (ids != pad_id)[:, None, None, :]  # (batch, 1, 1, len)
    triangle = torch.ones(batch, length, dtype=torch.bool).tril()  # (batch, len)
    if not torch.equal(got.detach().cpu() != 0, pad & triangle):
        return ""
    return (
        f"Yours is the padding mask & a ({batch}, {length}) triangle, the shape of tgt_ids "
        "(batch, len), not a square (len, len): the look-ahead part was built from the ids' "
        "shape (torch.tril(torch.ones_like(tgt_ids)), or torch.ones(tgt_ids.shape)), so it "
        f"has {batch} query rows, one per sequence, instead of {length}, one per position. "
        "Build it for the length alone: look_ahead_mask(tgt_ids.shape[1]), (len, len)."
    )


def _decoder_batch_axis_twice_note(fn, ids, pad_id, got, expected: torch.Tensor) -> str:
    """A (batch, batch, len, len) decoder mask whose every slice got[i, j] is the right mask
    of one sequence: a batched part with one axis too few met the other part's heads axis.
    got[i, j] == expected[i] (the sequence on axis 0): a (batch, len, len) part, the
    look-ahead repeated or expanded over the batch with no heads axis, met the padding's
    (batch, 1, 1, len); got[i, j] == expected[j] (the sequence on axis 1): the padding part
    is 3-D, (batch, 1, len), and its batch axis met a 4-D part's heads axis. A probe on
    the first sequence alone must give one slice on axis 1 (a fixed number of heads that
    equals the batch size here gives that many again)."""
    batch = ids.shape[0]
    if not (
        isinstance(got, torch.Tensor)
        and batch > 1
        and got.ndim == 4
        and tuple(got.shape) == (batch, batch, *expected.shape[2:])
    ):
        return ""
    flags = got.detach().cpu() != 0  # (batch, batch, len, len)
    by_first = torch.equal(flags, expected.expand(-1, batch, -1, -1))
    by_second = torch.equal(flags, expected[:, 0][None].expand(batch, -1, -1, -1))
    if by_first == by_second:
        return ""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            alone = fn(ids[:1].clone(), pad_id)
    except Exception:  # a probe: the general message stays
        return ""
    if not (isinstance(alone, torch.Tensor) and alone.ndim == 4 and alone.shape[1] == 1):
        return ""
    if by_first:
        return (
            "Each slice [i, j] of yours is the right mask of sequence i, repeated along the "
            "heads axis (axis 1): a part of your mask is 3-D, (batch, len, len), with no heads "
            "axis, such as the look-ahead mask repeated or expanded over the batch, and "
            "combined with the padding mask, (batch, 1, 1, len), its batch axis lined up with "
            "the heads axis (broadcasting aligns the last axes). The look-ahead mask needs no "
            "batch axis: the (len, len) triangle broadcasts over the batch by itself "
            "(padding_mask(...) & look_ahead_mask(len)); a batched one must be (batch, 1, "
            "len, len)."
        )
    return (
        "Each slice [i, j] of yours is the right mask of sequence j: the padding part is "
        "3-D, (batch, 1, len), an axis too few, so combined with a 4-D part its batch axis "
        "lined up with the heads axis. The padding mask is (batch, 1, 1, len): "
        "(tgt_ids != pad_id)[:, None, None, :]."
    )


def _same_flags_reshaped(got, expected: torch.Tensor, batch: int) -> str:
    """The right flags, in order, under another shape whose batch axis is 1 (round 10,
    blind10d-padmask-view-batch-of-one: .view(1, 1, 1, -1), written for one sentence,
    folds the batch into the last axis)."""
    if not (
        isinstance(got, torch.Tensor)
        and batch > 1
        and got.ndim >= 1
        and got.shape[0] == 1
        and batch not in got.shape  # folded into another axis, not moved (that is [None, None])
        and got.numel() == expected.numel()
    ):
        return ""
    if not torch.equal(got.reshape(-1).to(torch.bool), expected.reshape(-1)):
        return ""
    return (
        f"Yours holds the right flags in the right order, but its first axis is 1 where the "
        f"batch ({batch} sequences) belongs: the batch is folded into another axis (a "
        f"view/reshape with a 1 written for the batch, as for a single sentence). Keep the "
        f"batch axis: (ids != pad_id)[:, None, None, :], or .view(batch, 1, 1, len) with "
        f"batch = ids.shape[0]."
    )


def _padding_shape_hint(shape: tuple[int, ...], batch: int, length: int) -> str:
    if shape == (batch, length):
        return _PAD_SHAPE_HINTS["flat"]
    if length > 1 and shape in {(batch, 1, length, 1), (batch, length, 1)}:
        named = "(batch, 1, len, 1)" if len(shape) == 4 else "(batch, len, 1)"
        return f"Yours is {named}: {_PAD_SHAPE_HINTS['query']}"
    if length > 1 and shape == (batch, 1, length):
        return _PAD_SHAPE_HINTS["three"]
    if length > 1 and shape == (batch, 1, length, length):
        return _PAD_SHAPE_HINTS["expanded"]
    if length > 1 and shape == (batch, length, 1, 1):
        return _PAD_SHAPE_HINTS["heads"]
    if len(shape) == 4 and shape[0] == batch and shape[1] > 1 and shape[2:] == (1, length):
        return (
            f"Your head axis has {shape[1]} entries, where it must be 1: a mask expanded or "
            f"repeated over {shape[1]} heads fits only an attention with exactly that many "
            "heads. Keep the singleton head axis, (batch, 1, 1, len): it broadcasts over any "
            "number of heads by itself."
        )
    return _PAD_ONE_FLAG_PER_KEY


_PAD_ONE_FLAG_PER_KEY = "The padding mask has one flag per key: (batch, 1, 1, len)."


def _query_triangles(length: int) -> list[tuple[str, torch.Tensor, str, str]]:
    """The triangles over (query, key) a padding mask with a query axis may have been
    ANDed with: (its name, the (len, len) triangle, what it blocks, what mask that is)."""
    ones = torch.ones(length, length, dtype=torch.bool)  # (len, len)
    return [
        (
            "torch.tril(...), the look-ahead mask",
            ones.tril(),
            "every query is also blocked from the keys after it (causal, future keys hidden)",
            "That is the decoder's self-attention mask (decoder_self_attention_mask), not the "
            "padding mask",
        ),
        (
            "torch.tril(..., diagonal=-1), a look-ahead mask without its diagonal",
            ones.tril(-1),
            "every query is also blocked from its own key and from the keys after it",
            "That is a look-ahead (causal) mask, which belongs to the decoder's self-attention "
            "alone, not the padding mask",
        ),
        (
            "torch.triu(...), an upper triangle",
            ones.triu(),
            "every query is also blocked from the keys before it",
            "A triangle has no place in the padding mask",
        ),
    ]


def _query_rows_hint(got, expected: torch.Tensor, length: int) -> str:
    """A (batch, 1, len, len) padding mask, one row per query, told apart by its values:
    the right flags copied to every query row (an expansion), or the padding mask ANDed
    with a triangle over (query, key) (round 20, blind19b-padmask-with-look-ahead-triangle:
    the decoder's look-ahead part in the padding mask, was told "expanded"), or neither
    (then only the shape is named)."""
    flags = got.detach().cpu() != 0  # (batch, 1, len, len)
    expanded = expected.expand(-1, -1, length, -1)  # (batch, 1, len, len)
    if torch.equal(flags, expanded):
        return _PAD_SHAPE_HINTS["expanded"]
    for name, triangle, effect, which in _query_triangles(length):
        if torch.equal(flags, expected & triangle):
            return (
                f"Yours is the padding mask ANDed with a ({length}, {length}) triangle over "
                f"(query, key), {name}: besides the pads, {effect}. {which}: the "
                "encoder's self-attention and cross-attention may look at every real key, "
                "before and after the query. Drop the triangle and return the compact "
                "(ids != pad_id)[:, None, None, :], (batch, 1, 1, len)."
            )
    return (
        f"Yours has a query axis of {length} rows, (batch, 1, len, len), and its rows are not "
        "all the same, so it is not the padding flags broadcast over the queries either. The "
        "padding mask depends on the keys alone: one row of flags per sequence, "
        "(batch, 1, 1, len), which broadcasts over every head and query inside attention."
    )


def _shape_or_size_one(got, expected: torch.Tensor, batch: int, length: int) -> str:
    """The named shapes first; for any other, axes of size 1 lost or added when the flags
    are right and in order (round 11: ids.squeeze() on a batch of one got the rule only)."""
    if length > 1 and tuple(got.shape) == (batch, 1, length, length):
        return _query_rows_hint(got, expected, length)
    hint = _padding_shape_hint(tuple(got.shape), batch, length)
    if hint != _PAD_ONE_FLAG_PER_KEY:
        return hint
    return _batch_and_length_exchanged(got, expected, batch, length) or (
        size_one_axes_note(got, expected) or hint
    )


def _batch_and_length_exchanged(got, expected: torch.Tensor, batch: int, length: int) -> str:
    """A mask whose axes of size > 1 are (len, batch) where (batch, len) belong, told apart
    by its flags: the ids read as sequence-first (transposed, .T), or the right flags in
    order regrouped by a view/reshape that put the batch size where the length belongs."""
    if not (
        isinstance(got, torch.Tensor)
        and batch > 1
        and length > 1
        and batch != length
        and got.numel() == batch * length
        and [n for n in got.shape if n > 1] == [length, batch]
    ):
        return ""
    flags = (got.detach().cpu() != 0).reshape(length, batch)
    right = expected.reshape(batch, length)  # (batch, len)
    shape = tuple(got.shape)
    if torch.equal(flags, right.T):
        return (
            f"Yours, {shape}, is the right mask with the batch and the length exchanged: "
            f"flag [j, i] of yours is sequence i's position j. The ids were read as "
            "sequence-first, (len, batch), as nn.Transformer's default layout is, and "
            "transposed (ids.T, ids.transpose(0, 1)). In this course ids are batch-first, "
            "(batch, len): (ids != pad_id)[:, None, None, :], no transpose."
        )
    if torch.equal(flags, right.reshape(length, batch)):
        return (
            f"Yours, {shape}, holds the right flags in order, regrouped into {length} groups "
            f"of {batch}: a view or reshape put the batch size ({batch}) where the length "
            f"({length}) belongs (.view(-1, 1, 1, ids.size(0))?). Take each size from the "
            "axis it belongs to, (batch, 1, 1, len) = (ids.shape[0], 1, 1, ids.shape[1]), or "
            "index: (ids != pad_id)[:, None, None, :]."
        )
    return ""


_PAD_INVERTED = (
    "Your mask is True at the pad tokens and False at the real ones: the polarity is inverted. "
    "In this course True means 'may attend' (as in F.scaled_dot_product_attention), so the "
    "mask is `ids != pad_id`. (nn.MultiheadAttention's key_padding_mask uses the opposite "
    "polarity, True = ignore: don't mix the two conventions.)"
)


def _counted_padding_mistakes(ids: torch.Tensor, pad_id: int, expected) -> dict:
    """A mask built from each row's number of real tokens, n, as if the pads sat at one end:
    the first n positions marked real (or the last n). Only where the pads are elsewhere
    does that differ from ids != pad_id, and then it is that computation and nothing else."""
    length = ids.shape[1]
    counts = (ids != pad_id).sum(dim=1, keepdim=True)  # (batch, 1)
    positions = torch.arange(length)[None, :]  # (1, len)
    found = {}
    for where, real in (
        ("end", positions < counts),
        ("start", positions >= length - counts),
    ):
        value = real[:, None, None, :]
        if torch.equal(value, expected):
            continue
        rows = (value != expected).flatten(1).any(dim=1)
        b = int(rows.nonzero()[0])
        found[
            f"Your mask marks the {'first' if where == 'end' else 'last'} n positions of each "
            f"row as real, n = its number of real tokens: that assumes the pads sit at the "
            f"{where}. Sequence {b} here, {ids[b].tolist()}, has its pads elsewhere. Mark each "
            "position by its own id, (ids != pad_id), wherever the pads are."
        ] = value
    # the length taken as the index of the first pad, argmax(ids == pad_id): a row without
    # any pad has no True to find and argmax gives 0 (blind10g-padmask-length-from-argmax-
    # of-first-pad was only located)
    first_pad = (ids == pad_id).long().argmax(dim=1, keepdim=True)  # (batch, 1)
    value = (positions < first_pad)[:, None, None, :]
    if not torch.equal(value, expected):
        rows = [b for b in range(ids.shape[0]) if not bool((ids[b] == pad_id).any())]
        example = (
            f"sequence {rows[0]} here, {ids[rows[0]].tolist()}, has no pad, and its every token "
            "is hidden"
            if rows
            else "a row that starts with a pad is hidden whole"
        )
        found[
            "Your mask marks the positions before each row's first pad as real, the first pad "
            "found with argmax(ids == pad_id): in a row without any pad there is no True to find "
            f"and argmax returns 0 ({example}). Mark each position by its own id, "
            "(ids != pad_id), wherever the pads are."
        ] = value
    return found


_PAD_ALL_TRUE = "Your mask is True everywhere"


def _pads_moved(ids: torch.Tensor, pad_id: int, *, to_start: bool) -> torch.Tensor:
    """The same sequences with their pads moved to one end, the real tokens kept in order."""
    rows = []
    for row in ids:
        real, pads = row[row != pad_id], row[row == pad_id]
        rows.append(torch.cat([pads, real] if to_start else [real, pads]))
    return torch.stack(rows)  # (batch, len)


def _padding_side_note(padding_mask, ids: torch.Tensor, pad_id: int, got) -> str:
    """A mask wrong exactly for the sequences padded at one end, and right once their pads
    are moved to the other end: it assumes where the pads sit (round 19, blind16d-padmask-
    real-from-first-token-on: (ids != pad_id).cumsum(-1) > 0, right for left padding, was
    told only "True everywhere"). The probe changes nothing but the side of those pads."""
    if not (isinstance(got, torch.Tensor) and got.numel() == ids.numel()):
        return ""
    expected = ids != pad_id  # (batch, len)
    flags = got.detach().cpu().reshape(ids.shape) != 0  # (batch, len)
    at_end, at_start = (_pads_moved(ids, pad_id, to_start=side) for side in (False, True))
    ends = [bool((a == r).all() and (b != r).any()) for r, a, b in zip(ids, at_end, at_start)]
    starts = [bool((b == r).all() and (a != r).any()) for r, a, b in zip(ids, at_end, at_start)]
    wrong = [bool((f != e).any()) for f, e in zip(flags, expected)]
    if not any(wrong):
        return ""
    sides = [
        (here, there, side, moved)
        for here, there, side, moved in (
            ("end", "start", ends, at_start),
            ("start", "end", starts, at_end),
        )
        if all(side[b] for b in range(len(ids)) if wrong[b])
    ]
    if not sides:
        return ""
    here, there, side, moved = sides[0]
    probe = torch.stack([moved[b] if side[b] else ids[b] for b in range(len(ids))])
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            again = padding_mask(probe.clone(), pad_id)
    except Exception:  # the learner's code, on the same sequences padded at the other end
        return ""
    if not (
        isinstance(again, torch.Tensor) and torch.equal(again, ref.padding_mask(probe, pad_id))
    ):
        return ""
    from_first = expected.long().cumsum(-1) > 0  # every position from the first real token on
    up_to_last = expected.flip(-1).long().cumsum(-1).flip(-1) > 0  # up to the last real token
    rows = [b for b in range(len(ids)) if wrong[b]]
    if torch.equal(flags[rows], (from_first if here == "end" else up_to_last)[rows]):
        what = (
            "marks as real every position from a row's first real token on, so the pads after "
            "the last real token count as real (a running count such as (ids != pad_id)"
            ".cumsum(-1) > 0, or cummax, does that)"
            if here == "end"
            else "marks as real every position up to a row's last real token, so the pads "
            "before the first real token count as real (a running count from the end, such as "
            "a flipped cumsum, does that)"
        )
    else:
        what = f"is wrong for the sequences whose pads sit at the {here}"
    sequences = ", ".join(f"{b} {ids[b].tolist()}" for b in rows[:2])
    return (
        f"Your mask {what}: sequence{'s' if len(rows) > 1 else ''} {sequences} here. The same "
        f"sequences with their pads moved to the {there} get the right mask: your code assumes "
        f"the pads sit at the {there}. Mark each position by its own id, (ids != pad_id), "
        "wherever the pads are."
    )


def _complemented_ids_mistake(padding_mask, ids: torch.Tensor, pad_id: int, got) -> dict:
    """~ids == pad_id, "not a pad" written without parentheses (round 18, blind15d-padmask-
    not-before-comparison: told the condition never holds, and by the single-edit
    diagnosis `ids != ids`): ~ binds tighter than ==, so the bitwise complement of each id,
    -id - 1, is compared with pad_id, which (nearly) never holds. Told by a probe: with
    pad_id = ~v = -v - 1 such a mask is True exactly at the ids equal to v, where the
    right mask is True everywhere (no id is negative). {message: got} when it fits."""
    complemented = ((~ids) == pad_id)[:, None, None, :]  # (batch, 1, 1, len)
    if not (isinstance(got, torch.Tensor) and got.dtype == torch.bool):
        return {}
    if got.shape != complemented.shape or not torch.equal(got, complemented):
        return {}
    value = int(ids[ids != pad_id][0]) if bool((ids != pad_id).any()) else int(ids.flatten()[0])
    probe_pad = -value - 1  # ~value
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            probed = padding_mask(ids.clone(), probe_pad)
    except Exception:  # the learner's code, on a negative pad_id
        return {}
    marks = (ids == value)[:, None, None, :]  # (batch, 1, 1, len)
    if not (isinstance(probed, torch.Tensor) and probed.shape == marks.shape):
        return {}
    if not torch.equal(probed.bool(), marks):
        return {}
    return {
        "Your mask is ~ids == pad_id: ~ binds tighter than ==, so it takes the bitwise "
        "complement of the ids (-id - 1) and compares that with pad_id, which holds (almost) "
        f"nowhere. (A probe with pad_id = {probe_pad} = ~{value} marks exactly the ids equal "
        f"to {value}.) Put the parentheses around the comparison, ~(ids == pad_id), or write "
        "ids != pad_id.": got
    }


def _batch_of_one_note(fn, reference, ids: torch.Tensor, pad_id: int, got) -> str:
    """A batch of one that the learner's code treats unlike a larger batch: the same
    sequence in a batch of two (itself twice) gets the right mask (round 13, blind13d-
    padmask-batch-of-one-skipped: a single sentence taken to have no padding). Only the
    batch size differs between the two calls, so the diagnosis holds for any code."""
    if ids.shape[0] != 1:
        return ""
    two = ids.repeat(2, 1)  # (2, len): the same sequence twice
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            again = fn(two.clone(), pad_id)
    except Exception:
        return ""
    if not (isinstance(again, torch.Tensor) and torch.equal(again, reference(two, pad_id))):
        return ""
    pads = [j for j in range(ids.shape[1]) if int(ids[0, j]) == pad_id]
    # (1, 1, len_q, len) -> for each key position, whether any query may attend to it
    open_keys = got.reshape(-1, ids.shape[1]).any(dim=0).tolist()
    real = [j for j in pads if open_keys[j]]
    what = (
        f"lets the queries attend to its {'pad' if len(real) == 1 else 'pads'} (key "
        f"{'position' if len(real) == 1 else 'positions'} {', '.join(map(str, real))}) as if "
        f"{'it were a real token' if len(real) == 1 else 'they were real tokens'}"
        if real
        else "is wrong"
    )
    return (
        f"Your mask for this batch of one, a sequence with {len(pads)} "
        f"{'pad' if len(pads) == 1 else 'pads'}, {what}, but the "
        "same sequence in a batch of two (ids.repeat(2, 1)) gets the right mask: your code "
        "treats a batch of one differently (a special case such as `if ids.shape[0] == 1`, "
        "'a single sentence has no padding'?). A batch of one can hold pads too: left "
        "padding, or a sentence padded to a fixed length. Compute the mask the same way for "
        "every batch size."
    )


def _unpadded_special_case_note(fn, ids: torch.Tensor, pad_id: int, got: torch.Tensor) -> str:
    """A wrong dtype for ids with no pad at all, where the same ids with one pad appended
    give a bool mask: a special case for the unpadded batch (an early return of
    torch.ones(...) without dtype=torch.bool; blind13d-padmask-unpadded-batch-float-ones)."""
    if got.dtype == torch.bool or bool((ids == pad_id).any()):
        return ""
    padded = torch.cat([ids, torch.full_like(ids[:, :1], pad_id)], dim=1)  # (batch, len + 1)
    try:
        with torch.no_grad():
            other = fn(padded, pad_id)
    except Exception:  # the learner's error is reported by the calls the check makes
        return ""
    if not isinstance(other, torch.Tensor) or other.dtype != torch.bool:
        return ""
    return (
        f"Only here, where ids has no pad at all, is it {got.dtype}: the same ids with a pad "
        "appended give a bool mask. A special case for a batch without padding (an early "
        "return of torch.ones(...) without dtype=torch.bool) returns another dtype than the "
        "general case: drop the special case (`ids != pad_id` is right for it too) or give "
        "its tensor dtype=torch.bool."
    )


def _another_id_hidden_note(padding_mask, got, ids: torch.Tensor, pad_id: int) -> str:
    """The pads hidden and, with them, every token of one other id (round 14, blind14d-
    padmask-hides-eos-too: <eos> treated as padding, told only "True at every real
    token"): the id is the one the wrongly hidden tokens share, confirmed on a probe that
    holds it at other positions, next to other ids."""
    if not isinstance(got, torch.Tensor) or got.shape != (*ids.shape[:1], 1, 1, ids.shape[1]):
        return ""
    flags = got.detach().cpu()[:, 0, 0, :] != 0  # (batch, len)
    real = ids != pad_id
    lost = real & ~flags
    if bool((flags & ~real).any()) or not bool(lost.any()):
        return ""
    hidden_ids = set(ids[lost].tolist())
    if len(hidden_ids) != 1:
        return ""
    (other,) = hidden_ids
    probe = _padded_batch(6980, [6, 4], 6, pad_id)  # (2, 6)
    probe[0, 1], probe[0, 4], probe[1, 2] = other, other, other
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        again = padding_mask(probe, pad_id)
        wanted = ((probe != pad_id) & (probe != other))[:, None, None, :]
        if isinstance(again, torch.Tensor) and torch.equal(again.detach().cpu() != 0, wanted):
            names = {tok.BOS_ID: "<bos>", tok.EOS_ID: "<eos>", tok.UNK_ID: "<unk>"}
            special = (
                f" Id {other} is the tokenizer's {names[other]}: a special token, but a real "
                "one, which the model attends to like any other."
                if other in names
                else ""
            )
            return (
                f"Your mask hides the pads and, with them, every token whose id is {other}, "
                f"here and on another batch where {other} stands at other positions: it "
                f"treats id {other} as padding.{special} Only pad_id is padding: ids != pad_id."
            )
    return ""


def check_padding_mask(padding_mask, *, hidden: bool = False) -> None:
    """padding_mask(ids (batch, len) int64, pad_id) -> bool (batch, 1, 1, len), True = real token.

    Required: a bool tensor of exactly that shape, True exactly where ids != pad_id; ids
    left unchanged. Any way of computing it is accepted.
    """
    with Checker("padding_mask", hidden=hidden) as c:
        c.require_callable(padding_mask)
        cases = hidden_padding_cases() if hidden else visible_padding_cases()
        for number, (ids, pad_id) in enumerate(cases):
            batch, length = ids.shape
            what = f"padding_mask(ids, pad_id={pad_id}) with ids = {_ids_repr(ids)}"

            row_right = alone_right(padding_mask, ref.padding_mask, ids, pad_id)

            batch_note = lambda row_right=row_right, batch=batch: row_by_row_note(  # noqa: E731
                row_right, batch, size="ids"
            )
            got = c.call(
                padding_mask,
                ids,
                pad_id,
                call_repr=f"padding_mask(ids, {pad_id})",
                hints=[
                    *row_by_row_hint(row_right, batch, size="ids"),
                    *raised_on_size_one_hint(
                        lambda ids=ids, pad_id=pad_id: torch.equal(
                            padding_mask(grown_size_one(ids), pad_id),
                            ref.padding_mask(grown_size_one(ids), pad_id),
                        ),
                        ids,
                        ("batch", "len"),
                    ),
                ],
                mutation_hint="Build a new tensor (a comparison such as ids != pad_id makes one) "
                "instead of writing into the ids.",
            )
            _expect_mask_tensor(c, got, what)
            expected = ref.padding_mask(ids, pad_id)  # (batch, 1, 1, len)
            c.expect_shape(
                got,
                expected.shape,
                what,
                _and_dtype(
                    _same_flags_reshaped(got, expected, batch)
                    or _batch_axis_moved_note(
                        got,
                        expected,
                        batch,
                        "(ids != pad_id)[:, None, None, :], (batch, 1, 1, len)",
                    )
                    or batch_note()
                    or _shape_or_size_one(got, expected, batch, length),
                    got.dtype,
                ),
            )
            _expect_bool(
                c,
                got,
                what,
                _unpadded_special_case_note(padding_mask, ids, pad_id, got)
                or _ids_dtype_followed(padding_mask, ids, pad_id, got)
                or _FROM_COMPARISON,
                expected=expected,
            )
            if not torch.equal(got, expected) and (
                note := _batch_of_one_note(padding_mask, ref.padding_mask, ids, pad_id, got)
            ):
                c.fail(f"{what} is not the padding mask. {note}")
            mistakes = {
                **_complemented_ids_mistake(padding_mask, ids, pad_id, got),
                _PAD_INVERTED: (ids == pad_id)[:, None, None, :],
            }
            if pad_id != 0:
                mistakes[
                    f"Your mask hides the token id 0, but the pad id here is {pad_id}: compare "
                    "with the `pad_id` argument instead of a hard-coded 0."
                ] = (ids != 0)[:, None, None, :]
            if bool((ids == pad_id).any()):
                mistakes[
                    f"{_PAD_ALL_TRUE}: it lets every query attend to the pads. It "
                    "must be False where ids == pad_id."
                ] = torch.ones_like(expected)
            mistakes.update(_counted_padding_mistakes(ids, pad_id, expected))
            # an order comparison where != belongs: right while pad_id is the smallest (or
            # largest) id, wrong for the real ids on the other side (blind8d-padmask-greater-
            # than-pad-id was only located)
            real, pads = ids != pad_id, ids == pad_id
            for op, side in ((">", "below"), (">=", "below"), ("<", "above"), ("<=", "above")):
                kept = {">": ids > pad_id, ">=": ids >= pad_id, "<": ids < pad_id}.get(
                    op, ids <= pad_id
                )[:, None, None, :]
                if (
                    bool(kept.all())
                    or not bool(kept.any())  # a constant mask has other causes than this
                    or any(torch.equal(kept, value) for value in (expected, *mistakes.values()))
                ):
                    continue
                parts = []
                lost = real & ~kept[:, 0, 0, :]
                if bool(lost.any()):
                    example = int(ids[lost][0])
                    parts.append(
                        f"it hides every real token whose id is {side} pad_id={pad_id} (here "
                        f"id {example})"
                    )
                if bool((pads & kept[:, 0, 0, :]).any()):
                    parts.append("it lets the pads through")
                mistakes[
                    f"Your mask is `ids {op} pad_id`: {' and '.join(parts)}. An order comparison "
                    f"is right only while no real id lies {side} pad_id; only the pads are to be "
                    "hidden: `ids != pad_id`."
                ] = kept

            # one position forced real in every row (a <bos> assumed at position 0, an <eos>
            # at the end, or a guard against fully masked rows): right while no row has a pad
            # there (blind17d-padmask-first-position-always-real was misread)
            for column, where, why in (
                (0, "position 0 (the first)", "a <bos> assumed there"),
                (-1, "the last position", "an <eos> assumed there"),
            ):
                forced = expected.clone()
                forced[..., column] = True
                if not torch.equal(forced, expected) and not any(
                    torch.equal(forced, value) for value in mistakes.values()
                ):
                    rows = [int(b) for b in torch.nonzero(~expected[:, 0, 0, column]).flatten()]
                    mistakes[
                        f"In your mask, {where} is always marked True (real) in every row, "
                        f"whatever it holds ({why}, "
                        f"or a guard against rows with no real token): row {rows[0]} holds the "
                        f"pad id there{' (a left-padded row)' if column == 0 else ''}, and its "
                        "mask must be False there. Decide every position from ids alone: "
                        "`ids != pad_id`; a fully masked row is the attention's to handle."
                    ] = forced

            # the rows with no real token made all True, a guard against fully masked rows
            # (blind12k-padmask-all-pad-rows-unmasked was only located)
            empty = ~expected.flatten(1).any(dim=1)  # (batch,): rows made only of pads
            guarded = torch.where(empty[:, None, None, None], True, expected)
            if bool(empty.any()) and not any(
                torch.equal(guarded, value) for value in mistakes.values()
            ):
                rows = [int(b) for b in empty.nonzero().flatten()]
                mistakes[
                    f"Your mask is right on every row with a real token, but row {rows[0]}, "
                    "made only of pads, comes out all True (attendable) instead of all "
                    "False: a guard against fully masked rows (`mask | ~mask.any(-1, "
                    "keepdim=True)`, a loop that fills empty rows with True?): every query of "
                    "that sequence then reads its pads. Decide "
                    "every position from ids alone: `ids != pad_id`; a fully masked row is "
                    "the attention's to handle (it returns zero weights there)."
                ] = guarded

            # named by their values first; "True everywhere" has other causes too, and the
            # probe tells a mask that assumes the side of the pads from them
            specific = [v for m, v in mistakes.items() if not m.startswith(_PAD_ALL_TRUE)]
            if (
                not torch.equal(got, expected)
                and not any(torch.equal(got, v) for v in specific)
                and (note := _padding_side_note(padding_mask, ids, pad_id, got))
            ):
                c.fail(f"{what} is not the padding mask. {note}")

            def explain(
                got=got,
                ids=ids,
                pad_id=pad_id,
                seed=6000 + 10 * number + hidden,
                batch_note=batch_note,
            ):
                if note := batch_note():
                    return note
                if note := _another_id_hidden_note(padding_mask, got, ids, pad_id):
                    return note
                # what the mask does to attention: the reference attention with *your* mask
                _, weights = _attention(got, ids.shape[0], ids.shape[1], seed)
                leak = _pad_key_leak(weights, ids, pad_id)
                if leak:
                    return leak
                real = (ids != pad_id)[:, None, None, :].expand_as(weights)
                starved = real & (weights == 0)
                b, _, i, j = (int(x) for x in starved.nonzero()[0])
                return (
                    f"With your mask, the real token at key position {j} of sequence {b} (id "
                    f"{int(ids[b, j])}) gets zero weight from query {i}. The padding mask must be "
                    "True at every real token: only pads are hidden."
                )

            c.expect_equal(got, expected, what, hint=explain, mistakes=mistakes)


# --------------------------------------------------------------------- look_ahead_mask
def _look_ahead_mistakes(size: int, picture: str) -> dict[str, torch.Tensor]:
    ones = torch.ones(size, size, dtype=torch.bool)
    mistakes = {
        "Your mask has the diagonal but not the lower triangle: it is the right mask "
        "transposed, as torch.triu instead of torch.tril gives, or the lower triangle turned "
        "over (.T, .transpose(0, 1), j >= i for i <= j): the two cannot be told apart from the "
        "result. Position i would see itself and every *later* position (the future) but "
        "none of the earlier ones. Rows are queries and columns keys: "
        "torch.tril(torch.ones(size, size, dtype=torch.bool)) as it is.": torch.triu(ones),
        "Your mask is True exactly where it should be False: True marks the blocked (future) "
        "positions. That is the polarity of nn.Transformer.generate_square_subsequent_mask and "
        "of nn.MultiheadAttention's bool attn_mask (True = not allowed); in this course True "
        "means 'may attend', so keep the lower triangle *with* the diagonal: "
        "torch.tril(...).": torch.triu(ones, diagonal=1),
        "Your mask leaves out the diagonal (torch.tril(..., diagonal=-1), ~torch.triu(...) "
        "without diagonal=1, or a strict j < i: all three give this mask): a "
        "position must be allowed to attend to itself. Without the diagonal, position 0 has no "
        "key at all: a fully masked row, which gives NaN in a plain softmax.": torch.tril(
            ones, diagonal=-1
        ),
        "Your mask is True everywhere: nothing is hidden, so every position can see the "
        "future. Either the triangle was never cut, or it was cut and the result dropped: "
        "torch.tril(m) and m.tril() return a new tensor and leave m as it was, so write "
        "m = torch.tril(m) (or the in-place m.tril_()).": ones,
    }
    return {message + picture: value for message, value in mistakes.items()}


def _and_dtype(hint: str, dtype: torch.dtype) -> str:
    """A shape hint, with the dtype named too when it is wrong as well (a second mistake in
    the same result, which the dtype check would only report after the shape is fixed)."""
    if dtype == torch.bool:
        return hint
    return (
        f"Two things to change: the shape, and the dtype ({dtype}, where masks are torch.bool: "
        "build it bool, e.g. with a comparison or dtype=torch.bool, or convert with .bool()). "
        + hint
    )


def _look_ahead_shape_hint(
    shape: tuple[int, ...], size: int, dtype=torch.bool, accepted: int = 0
) -> str:
    """``accepted``: the largest size whose mask this run already accepted."""
    hint = _and_dtype(
        "The look-ahead mask is one (len_q, len_k) matrix shared by every sequence and head.",
        dtype,
    )
    if len(shape) == 2 and shape[0] == shape[1] and 0 < accepted <= shape[0] < size:
        # right up to the sizes already checked, cut off here: not an off-by-one (which the
        # first, smallest sizes would have shown)
        hint += (
            f" Yours stops at {shape[0]} positions where {size} were asked: a mask sliced from a "
            f"triangle built once for a maximum size ([:size, :size] of a fixed {shape[0]} x "
            f"{shape[0]} one, like a causal buffer registered for a block_size) cannot serve "
            "longer sequences. Build it for the size asked, every call."
        )
    if shape in {(1, 1, size, size), (1, size, size)}:
        hint += (
            " Return exactly (size, size): broadcasting adds the leading axes when it is "
            "combined with the padding mask or the scores, and nn.MultiheadAttention's attn_mask "
            "(lesson 06, section 6) takes exactly (len_q, len_k). (The Annotated Transformer's "
            "subsequent_mask returns (1, size, size) because its masks carry a batch axis.)"
        )
    return hint


def _positions_compared_flat_note(got: torch.Tensor, size: int) -> str:
    """A 1-D (size,) mask that is a comparison of the positions with themselves, entry by
    entry (all True for <=, all False for <): two 1-D position vectors compared where a
    column and a row were meant; .T leaves a 1-D tensor unchanged (round 20, blind17d-
    lookahead-dot-T-on-1d-arange was told the contract's shape). "" otherwise."""
    if size < 2 or tuple(got.shape) != (size,):
        return ""
    flags = got.detach().cpu() != 0  # (size,)
    if not (bool(flags.all()) or not bool(flags.any())):
        return ""
    return (
        f"Yours is 1-D, ({size},), {'all True' if bool(flags.all()) else 'all False'}: two 1-D "
        "position vectors compared entry by entry, each position with itself, instead of a "
        "grid of every query against every key. .T leaves a 1-D tensor unchanged (it "
        "reverses the axes, and there is only one), so positions <= positions.T is still 1-D. "
        "Make one of them a column: positions[:, None] >= positions[None, :], (size, size), "
        "or torch.tril(torch.ones(size, size, dtype=torch.bool))."
    )


def _look_ahead_size_note(look_ahead_mask, got: torch.Tensor, size: int) -> str:
    """A square mask of the wrong size whose size is size + 1 or size - 1 on every size
    tried (round 20, blind19b-lookahead-one-more-for-bos: built for size + 1 positions, "one
    more for <bos>", was told only the contract's shape), told by probes on other sizes
    (checking.size_sources); "" when no single expression of the size fits."""
    if not (got.dim() == 2 and got.shape[0] == got.shape[1] != size):
        return ""
    sizes, observed = [size, 3, 7], []
    for probe_size in sizes:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                mask = look_ahead_mask(probe_size)
        except Exception:  # a probe: the shape's general hint stays
            return ""
        if not (isinstance(mask, torch.Tensor) and mask.dim() == 2):
            return ""
        observed.append(mask.shape[0])
    names, _ = size_sources(observed, [{"size": n} for n in sizes], exclude=("size",))
    if len(names) != 1:
        return ""
    (source,) = names
    rows = got.shape[0]
    same_triangle = torch.equal(got.detach().cpu() != 0, ref.look_ahead_mask(rows))
    extra = "one row and one column too many" if rows > size else "one row and one column short"
    return (
        f"Your mask has {', '.join(map(str, observed))} rows and columns for the sizes "
        f"{', '.join(map(str, sizes))}: it is built for {source} positions, "
        f"{extra}"
        + (" (otherwise the right triangle)" if same_triangle else "")
        + ". The mask must match the scores, (len_q, len_k) = (size, size): build it for size "
        "positions exactly, torch.tril(torch.ones(size, size, dtype=torch.bool)). A sequence "
        "that starts with <bos> already counts it among its size positions."
    )


def _triangle_indices_note(got: torch.Tensor, size: int) -> str:
    """The (2, n) row and column indices of a triangle (torch.tril_indices or triu_indices)
    returned where the (size, size) mask belongs (blind13d-lookahead-tril-indices)."""
    if got.dim() != 2 or got.shape[0] != 2 or got.dtype.is_complex:
        return ""
    for name, make in (("tril_indices", torch.tril_indices), ("triu_indices", torch.triu_indices)):
        for offset in (0, -1, 1):
            indices = make(size, size, offset)  # (2, number of entries in the triangle)
            if (
                indices.shape[1] > 0  # an empty triangle (size 1, offset +-1) tells nothing
                and got.shape == indices.shape
                and torch.equal(got.to(indices.dtype), indices)
            ):
                call = f"torch.{name}({size}, {size}{f', {offset}' if offset else ''})"
                return (
                    f"Yours is {call}: the row and column indices of the triangle's entries, "
                    f"a (2, {indices.shape[1]}) list of positions, not the ({size}, {size}) bool "
                    "mask that marks them. Build the matrix itself: "
                    "torch.tril(torch.ones(size, size, dtype=torch.bool))."
                )
    return ""


def _band_width(got: torch.Tensor) -> int:
    """w when ``got`` is the causal mask cut to a window of w keys (the query and the w - 1
    before it), 0 otherwise (blind10g-lookahead-sliding-window-of-four was only located)."""
    size = got.shape[0]
    ones = torch.ones(size, size, dtype=torch.bool)
    for width in range(1, size):
        if torch.equal(got, torch.tril(ones) & ~torch.tril(ones, diagonal=-width)):
            return width
    return 0


def _row_zero_everywhere_note(got: torch.Tensor) -> str:
    """Every row the triangle's row 0, key 0 alone visible (round 14, blind14d-lookahead-
    tril-in-place-on-expand, told only that the diagonal was missing): a triangle cut from
    one row that every row shares."""
    if got.dim() != 2 or got.shape[0] < 2:
        return ""
    if not (bool(got[:, 0].all()) and not bool(got[:, 1:].any())):
        return ""
    return (
        "Every row of yours is row 0 of the triangle: each query sees key 0 alone. The "
        "triangle was cut from one row that all rows share: either the square is an expand "
        "of one row (its rows are views of the same elements) and an in-place tril_ (or "
        "masked_fill_, or an assignment) that zeroed entry (0, j) zeroed column j of every "
        "row, or tril was applied to a single row, (1, size), before it was expanded or "
        "broadcast to (size, size). Build a real square first: torch.ones(size, size, "
        "dtype=torch.bool).tril() (or .clone() an expanded tensor before any in-place step)."
    )


def _changing_mask_note(look_ahead_mask, got: torch.Tensor, size: int) -> str:
    """The same call giving other flags when repeated (round 14, blind14d-lookahead-tril-of-
    empty: tril of torch.empty, whose lower triangle is leftover memory): named when a
    repeated call differs, the values inside the triangle only."""
    if got.dim() != 2 or bool((got & ~ref.look_ahead_mask(size)).any()):
        return ""
    if unwritten_tensor_entries(lambda: look_ahead_mask(size), (size, size), torch.bool) is None:
        return ""
    return (
        f"Called again, look_ahead_mask({size}) gives other flags: your mask changes from "
        "call to call, and only inside the triangle (nothing above the diagonal is ever "
        "True). tril cleared the upper triangle, but the lower triangle holds whatever its "
        "input held: a tensor made with torch.empty(...) is not initialised (its values are "
        "leftover memory). Start from torch.ones(size, size, dtype=torch.bool)."
    )


def check_look_ahead_mask(look_ahead_mask, *, hidden: bool = False) -> None:
    """look_ahead_mask(size) -> bool (size, size), True on and below the diagonal.

    Required: exactly that shape and dtype, and those values. Any way of computing it is
    accepted (tril, ~triu(1), triu(1) == 0, arange comparisons, a loop, numpy).
    """
    with Checker("look_ahead_mask", hidden=hidden) as c:
        c.require_callable(look_ahead_mask)
        for number, size in enumerate(HIDDEN_SIZES if hidden else VISIBLE_SIZES):
            what = f"look_ahead_mask({size})"
            got = c.call(look_ahead_mask, size, call_repr=what)
            _expect_mask_tensor(c, got, what)
            expected = ref.look_ahead_mask(size)  # (size, size)
            accepted = max(
                VISIBLE_SIZES[:number] if not hidden else HIDDEN_SIZES[:number], default=0
            )
            c.expect_shape(
                got,
                (size, size),
                what,
                _triangle_indices_note(got, size)
                or _positions_compared_flat_note(got, size)
                or _look_ahead_size_note(look_ahead_mask, got, size)
                or _look_ahead_shape_hint(tuple(got.shape), size, got.dtype, accepted),
            )
            _expect_bool(
                c,
                got,
                what,
                "torch.tril(torch.ones(size, size, dtype=torch.bool)) is bool from the start; "
                "or convert with .bool().",
                expected=expected,
            )
            picture = _side_by_side(got, expected)

            def explain(
                got=got, seed=7000 + 10 * number + hidden, picture=picture, size=size
            ) -> str:
                if note := _row_zero_everywhere_note(got) or _changing_mask_note(
                    look_ahead_mask, got, size
                ):
                    return f"{note}{picture}"
                offset = triangle_offset_note(got, ref.look_ahead_mask(got.shape[0]))
                if offset:
                    return offset + picture
                missing_self = ~got.diagonal()
                if bool(missing_self.any()):
                    i = int(missing_self.nonzero()[0])
                    return (
                        f"Position {i} may not attend to itself (the diagonal must be True). "
                        "Position 0 would then have no key at all: a fully masked row, NaN in a "
                        f"plain softmax.{picture}"
                    )
                leak = _causal_leak(lambda _ids: got, None, got.shape[0], seed, picture)
                if leak:
                    return leak
                band = _band_width(got)
                if band:
                    return (
                        f"Your mask is a band: each query sees itself and the {band - 1} keys "
                        f"before it, and every key {band} or more positions back is hidden (a "
                        "sliding-window, local attention mask, as Mistral's), which only a size "
                        f"above {band} shows. The look-ahead mask hides the future only: every "
                        f"earlier key stays visible, torch.tril(torch.ones(size, size)).{picture}"
                    )
                i, j = (int(x) for x in (got != ref.look_ahead_mask(got.shape[0])).nonzero()[0])
                return (
                    f"Query {i} and key {j}: yours is {bool(got[i, j])}, expected {j <= i}. "
                    "Query i may attend to keys 0..i (on and below the diagonal), never to keys "
                    f"after i.{picture}"
                )

            c.expect_equal(
                got, expected, what, hint=explain, mistakes=_look_ahead_mistakes(size, picture)
            )


# -------------------------------------------------------------- decoder_self_attention_mask
def _decoder_shape_or_size_one(
    got, expected: torch.Tensor, batch: int, length: int, ids: torch.Tensor, pad_id: int
) -> str:
    """The named shapes first (a missing head axis has its own lesson); for any other, axes
    of size 1 lost or added when the flags are right and in order (round 11)."""
    if tuple(got.shape) == (batch, 1, 1, length) and length > 1:
        return _single_query_row_hint(got, ids, pad_id)
    hint = _decoder_shape_hint(tuple(got.shape), batch, length)
    if hint != _DECODER_DEFAULT_SHAPE:
        return hint
    return size_one_axes_note(got, expected) or hint


def _single_query_row_hint(got: torch.Tensor, ids: torch.Tensor, pad_id: int) -> str:
    """A (batch, 1, 1, len) mask, one query row, told apart by its values: the padding mask
    alone, or torch.tril applied to it (tril works on the last two axes, (1, len) there, and
    keeps key 0 alone: round 14, blind14d-decmask-tril-of-padding-mask, was told "the
    padding mask alone"), or neither."""
    pad = ref.padding_mask(ids, pad_id)  # (batch, 1, 1, len)
    mine = got.detach().cpu()
    flags = mine != 0  # (batch, 1, 1, len)
    if torch.equal(flags, pad) or not bool(((mine == 0) | (mine == 1)).all()):
        return _decoder_shape_hint(tuple(got.shape), *ids.shape)
    if torch.equal(flags, torch.tril(pad)):
        return (
            "Yours is torch.tril of the padding mask: tril works on the last two axes, and "
            "the padding mask's are (1, len), a single query row, so tril keeps key 0 alone "
            "and no triangle appears (nor the len query rows). Build the (len, len) triangle "
            "for the length, look_ahead_mask(tgt_ids.shape[1]), and combine it with the "
            "padding mask using &: (batch, 1, 1, len) & (len, len) broadcasts to (batch, 1, "
            "len, len)."
        )
    return (
        "Yours has a single query row per sequence, (batch, 1, 1, len), and it is not the "
        "padding mask: the look-ahead part, a row per query, is missing or was folded into "
        "that one row. Combine the padding mask with the (len, len) look-ahead mask using &: "
        "(batch, 1, 1, len) & (len, len) broadcasts to (batch, 1, len, len)."
    )


def _decoder_shape_hint(shape: tuple[int, ...], batch: int, length: int) -> str:
    if shape == (batch, length, length) and length > 1:
        return (
            "The head axis is missing. Scores are (batch, num_heads, len_q, len_k) and "
            "broadcasting aligns shapes from the right, so (batch, len, len) is read as "
            "(1, batch, len, len): your batch axis would line up with num_heads (an error, or, "
            "when batch == num_heads, silently the wrong sequence's padding). Keep the singleton "
            "head axis: (batch, 1, len, len). (The Annotated Transformer's make_std_mask returns "
            "(batch, len, len) because its attention layer adds the head axis itself; the "
            "attention of this course does not.)"
        )
    if shape == (length, length):
        return (
            "That is the look-ahead mask alone: the padding part is missing. Combine it with the "
            "padding mask (which has a batch axis) using &."
        )
    if shape == (batch, 1, 1, length) and length > 1:
        return (
            "That is the padding mask alone: combine it with the look-ahead mask using &; "
            "broadcasting (batch, 1, 1, len) & (len, len) gives (batch, 1, len, len)."
        )
    if len(shape) == 4 and shape[0] == batch and shape[1] > 1 and shape[2:] == (length, length):
        # blind10d-decmask-expanded-to-eight-heads: .expand(-1, 8, -1, -1)
        return (
            f"Your head axis has {shape[1]} entries, where it must be 1: a mask expanded or "
            f"repeated over {shape[1]} heads fits only an attention with exactly that many "
            "heads. Keep the singleton head axis, (batch, 1, len, len): it broadcasts over any "
            "number of heads by itself."
        )
    return _DECODER_DEFAULT_SHAPE


_DECODER_DEFAULT_SHAPE = "The decoder mask is (batch, 1, len, len): padding mask & look-ahead mask."


_FLAGS_COMPARED_EQUAL = (
    "The padding part of your mask compares the query's and the key's real-token flags for "
    "equality (real[:, :, None] == real[:, None, :], a same-segment mask): every real query "
    "is right, but each pad query may attend to the pads at or before it (pads attend to "
    "each other) and to none of the real tokens. Padding depends on the keys' flags alone: "
    "a pad key is hidden from every query, (tgt_ids != pad_id)[:, None, None, :] & "
    "look_ahead_mask(len)."
)
_PAD_QUERY_ROWS = (
    "Your mask blocks the rows of pad *queries*: the padding part sits on the query axis "
    "(len_q), alone or as well as on the key axis (with the pads at the end of each sequence "
    "the two give the same mask). Padding must hide pad *keys* (columns) only: "
    "(ids != pad_id)[:, None, None, :] & "
    "look_ahead_mask(len). Blocking the rows of pad queries also leaves them with no key at "
    "all (a fully masked row: NaN in a plain softmax, and that NaN spreads to every position "
    "in the next layer)."
)


def _precedence_mistake(fn, ids: torch.Tensor, pad_id: int, got) -> dict[str, torch.Tensor]:
    """``ids[:, None, None, :] != pad_id & look_ahead`` without brackets: & binds tighter
    than !=, so with pad_id 0 only the padding part is left, which leaving the look-ahead
    mask out gives as well. The same ids shifted by one with pad_id 1 tell the two apart
    (blind13d-decmask-comparison-and-precedence)."""
    batch, length = ids.shape
    padding_only = ref.padding_mask(ids, pad_id).expand(batch, 1, length, length)
    if pad_id != 0 or not (isinstance(got, torch.Tensor) and torch.equal(got, padding_only)):
        return {}
    shifted = ids + 1  # (batch, len): the same pattern, pad id 1
    unbracketed = shifted[:, None, None, :] != (1 & ref.look_ahead_mask(length).long())
    if torch.equal(unbracketed, ref.padding_mask(shifted, 1).expand_as(unbracketed)):
        return {}  # this length does not tell the two apart
    try:
        with torch.no_grad():
            other = fn(shifted, 1)
    except Exception:  # the learner's error is reported by the calls the check makes
        return {}
    if not (isinstance(other, torch.Tensor) and torch.equal(other, unbracketed)):
        return {}
    return {
        "Your mask is the padding mask alone here, and with pad_id=1 (the same ids plus one) it "
        "compares the ids with the triangle: an operator-precedence slip, `tgt_ids[:, None, "
        "None, :] != pad_id & look_ahead_mask(len)` without parentheses. & binds tighter than "
        "!=, so Python computes tgt_ids != (pad_id & look_ahead): with pad_id 0 the look-ahead "
        "part vanishes. Put the comparison in brackets: (tgt_ids[:, None, None, :] != pad_id) "
        "& look_ahead_mask(len).": padding_only
    }


def _with_precedence(precedence: dict, mistakes: dict) -> dict[str, torch.Tensor]:
    """``mistakes`` with the precedence slip first, and without the mistakes whose mask it
    gives too (the probe with pad_id 1 told those apart)."""
    if not precedence:
        return mistakes
    (mask,) = precedence.values()
    return {
        **precedence,
        **{
            message: value
            for message, value in mistakes.items()
            if not (value.shape == mask.shape and torch.equal(value, mask))
        },
    }


def _decoder_mistakes(ids: torch.Tensor, pad_id: int, picture: str) -> dict[str, torch.Tensor]:
    batch, length = ids.shape
    pad = ref.padding_mask(ids, pad_id)  # (batch, 1, 1, len)
    causal = ref.look_ahead_mask(length)  # (len, len)
    real = ids != pad_id  # (batch, len)
    full = (batch, 1, length, length)
    tril = torch.ones_like(causal).tril
    mistakes = {
        "Your mask lets a query attend wherever *either* rule allows it, an OR of the two "
        "rules, so every real future token becomes visible: the allowed masks combined with OR "
        "(|), or (the same mask) the blocked masks of the True = blocked convention combined "
        "with & before inverting, ~(pad_blocked & future_blocked), where blocked masks need |. "
        "A key must pass *both* tests (not in the future AND not a pad): padding_mask(...) & "
        "look_ahead_mask(...).": pad | causal,
        _PAD_QUERY_ROWS: real[:, None, :, None] & causal,
        _PAD_QUERY_ROWS + " ": real[:, None, :, None] & pad & causal,  # on both axes
        # the flags of query and key compared with == (blind27a-decmask-padding-flags-
        # compared-equal): pads see pads, real tokens see real tokens
        _FLAGS_COMPARED_EQUAL: (real[:, None, :, None] == pad) & causal,
        "Your mask is the look-ahead mask alone (broadcast to the batch): pad keys are still "
        "visible. Combine it with the padding mask using &.": causal.expand(full),
        "Your mask is the padding mask alone (broadcast over the queries): every query can "
        "see the future. Combine it with the look-ahead mask using &.": pad.expand(full),
        "Your whole mask is inverted, every entry the opposite of the expected one: True "
        "where attention is blocked (the pads and the future keys), False where it is "
        "allowed. In this course True means 'may attend'; nn.Transformer's and "
        "nn.MultiheadAttention's bool masks use the opposite convention, True = blocked. "
        "Return padding_mask(...) & look_ahead_mask(...) without inverting it.": ~(pad & causal),
        # the padding part inverted alone (round 20, blind19b-decmask-padding-read-as-
        # blocked: pad | ~look_ahead, then inverted, was told a pad key's weight)
        "The padding part of your mask is inverted: it allows only the pad keys (in the "
        "past) and blocks every real key, so a query with no pad before it has nothing to "
        "attend to. padding_mask's True means a real token ('may attend'), not a pad. If you "
        "built the blocked mask (True = blocked) as padding_mask(...) | ~look_ahead_mask(...) "
        "and inverted it, the padding part needs its own ~ too; simpler, combine the allowed "
        "masks directly: padding_mask(...) & look_ahead_mask(...).": ~pad & causal,
        "The look-ahead part is the upper triangle: the right look-ahead mask transposed "
        "(.T, .transpose(-2, -1), read as (len_k, len_q)) or built with torch.triu instead "
        "of torch.tril; the result cannot tell the two apart. Each query sees the future "
        "instead of the past. Rows are queries and columns keys: use look_ahead_mask(len) "
        "as it is.": pad & torch.ones_like(causal).triu(),
        "The look-ahead part is inverted (True above the diagonal, the polarity of "
        "nn.Transformer.generate_square_subsequent_mask); here True means 'may attend'.": pad
        & ~causal,
        "The look-ahead part leaves out the diagonal (tril with diagonal=-1?): each position "
        "must be allowed to attend to itself, or position 0 has nothing to attend to.": pad
        & tril(diagonal=-1),
        # the two rules combined with ^ (XOR, read as the logician's AND) or != (round 18,
        # blind15d-decmask-combined-with-xor: only the grids and a pad key's weight)
        "Your mask combines the two rules with ^ (XOR, exclusive or; for bools != computes "
        "the same): a key is allowed where exactly one rule allows it, so the real past keys, "
        "which both rules allow, are blocked, and the real future keys and the past pads "
        "become visible. A key must pass both tests: padding_mask(...) & "
        "look_ahead_mask(...).": pad ^ causal,
    }
    if pad_id != 0:
        mistakes[
            f"Your mask hides the token id 0, but the pad id here is {pad_id}: compare with the "
            "`pad_id` argument instead of a hard-coded 0."
        ] = (ids != 0)[:, None, None, :] & causal
    # the diagonal forced True, a guard against fully masked rows (blind10g-decmask-
    # diagonal-forced-true was only located): a pad key then passes at its own row
    mistakes[
        "Your mask lets every position attend to itself even where it is a pad: the diagonal "
        "is True at the pad positions too (a guard against fully masked rows, `| eye(len)`?), "
        "so a pad key passes at its own query row. The padding hides the pad keys in every "
        "row, the diagonal included; a pad query's row may stay fully masked (the attention "
        "handles it): padding_mask(...) & look_ahead_mask(...), nothing more."
    ] = (pad & causal) | torch.eye(length, dtype=torch.bool)
    # one mistake in each part at once (blind8d-decmask-no-diagonal-and-pad-rows: the
    # diagonal left out *and* the pads on the query rows was told the diagonal only)
    padding_parts = {
        _PAD_QUERY_ROWS: real[:, None, :, None],
        _PAD_QUERY_ROWS + " ": real[:, None, :, None] & pad,
        _FLAGS_COMPARED_EQUAL: real[:, None, :, None] == pad,
        "The padding part is missing: pad keys are still visible.": torch.ones_like(pad),
    }
    if pad_id != 0:
        padding_parts[
            f"The padding part hides the token id 0, but the pad id here is {pad_id}: compare "
            "with the `pad_id` argument instead of a hard-coded 0."
        ] = (ids != 0)[:, None, None, :]
    causal_parts = {
        "The look-ahead part is the upper triangle (the look-ahead mask transposed, or "
        "torch.triu instead of torch.tril): each query sees the future instead of the "
        "past.": torch.ones_like(causal).triu(),
        "The look-ahead part is inverted (True above the diagonal): here True means 'may "
        "attend'.": ~causal,
        "The look-ahead part leaves out the diagonal (tril with diagonal=-1?): each position "
        "must be allowed to attend to itself.": tril(diagonal=-1),
        "The look-ahead part is missing: every query can see the future.": torch.ones_like(causal),
    }
    for first, rows in padding_parts.items():
        for second, triangle in causal_parts.items():
            both = (rows & triangle).expand(full)
            if not any(torch.equal(both, value.expand(full)) for value in mistakes.values()):
                mistakes[two_mistakes(first.rstrip(), second)] = both
    accumulated = _accumulated_pads(ids, pad_id)
    if accumulated is not None:
        value, message = accumulated
        mistakes[message] = value
    return {message.rstrip() + picture: value for message, value in mistakes.items()}


def _explain_decoder(got, ids, pad_id, seed, picture) -> str:
    """Why the learner's decoder mask differs, in terms of what attention does with it."""
    offset = triangle_offset_note(got, ref.decoder_self_attention_mask(ids, pad_id))
    if offset:
        return offset + picture
    _, weights = _attention(got, ids.shape[0], ids.shape[1], seed)
    leak = _pad_key_leak(weights, ids, pad_id)
    if leak:
        return leak + picture
    real = ids != pad_id  # (batch, len)
    blind = real & ~got[:, 0].diagonal(dim1=-2, dim2=-1)  # (batch, len)
    if bool(blind.any()):
        b, i = (int(x) for x in blind.nonzero()[0])
        return (
            f"The real token at position {i} of sequence {b} may not attend to itself. Every "
            f"real query must at least see itself.{picture}"
        )
    expected = ref.decoder_self_attention_mask(ids, pad_id)
    b, _, i, j = (int(x) for x in (got != expected).nonzero()[0])
    if j > i:
        reason = f"key {j} comes after query {i}: position {i} can see the future"
    elif int(ids[b, j]) == pad_id:
        reason = f"key {j} is a pad"
    else:
        reason = f"key {j} is a real token at or before query {i}, which it may read"
    return (
        f"At sequence {b}, query {i}, key {j} your mask is {bool(got[b, 0, i, j])}, expected "
        f"{bool(expected[b, 0, i, j])}: {reason}. The mask is padding_mask & "
        f"look_ahead_mask.{picture}"
    )


_IN_PLACE_COMBINE = (
    "That error comes from an in-place operation (such as mask &= other, or mask.logical_and_"
    "(other)): its result must fit in the tensor on the left, and the (len, len) look-ahead "
    "mask cannot hold the (batch, 1, len, len) combination. Combine out of place: "
    "padding_mask(tgt_ids, pad_id) & look_ahead_mask(len), a new tensor."
)
_EARLIER_ROWS_PADS = (
    "Your mask blocks, in each sequence, the pad columns of every sequence before it as well "
    "(sequence {b} loses key {j}, a pad of an earlier sequence only): the pads accumulate "
    "from row to row, as they do when one mask is modified in place inside a loop over the "
    "batch and reused. Give each sequence its own: padding_mask(tgt_ids, pad_id) & "
    "look_ahead_mask(len) combines them all at once, or .clone() the look-ahead mask per row."
)


def _accumulated_pads(ids: torch.Tensor, pad_id: int) -> tuple[torch.Tensor, str] | None:
    """The mask a loop makes that blocks each row's pads in one shared mask: row b blocks
    the pad keys of rows 0..b. None where no row gains a blocked key from that."""
    batch, length = ids.shape
    causal = ref.look_ahead_mask(length)
    blocked = torch.zeros(length, dtype=torch.bool)
    rows = []
    first = None
    for b in range(batch):
        own = ids[b] == pad_id
        extra = blocked & ~own
        if first is None and bool(extra.any()):
            first = (b, int(extra.nonzero()[0]))
        blocked = blocked | own
        rows.append(causal & ~blocked)
    if first is None:
        return None
    return torch.stack(rows)[:, None], _EARLIER_ROWS_PADS.format(b=first[0], j=first[1])


_DECODER_MUTATION = (
    "Build new tensors (comparisons and & make them) instead of writing into tgt_ids."
)


def _square_batch_hint(decoder_self_attention_mask, ids: torch.Tensor, pad_id: int) -> str:
    """After an error: with as many sequences as positions (batch = len), are the learner's
    masks right? Then the error comes from reading one size for the other."""
    batch, length = ids.shape
    if batch == length:
        return ""
    square = ids[:, :batch] if length > batch else ids[:length]  # (n, n)
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = decoder_self_attention_mask(square.clone(), pad_id)
    expected = ref.decoder_self_attention_mask(square, pad_id)
    n = len(square)
    unaxed = (square != pad_id) & torch.tril(torch.ones(n, n, dtype=torch.bool))  # (n, n)
    if isinstance(probe, torch.Tensor) and probe.shape == (n, n) and torch.equal(probe, unaxed):
        # blind9d-decmask-padding-without-axes: (batch, len) & (len, len)
        return (
            f" With as many sequences as positions ({n} of each) yours returns (len, len) = "
            "(tgt_ids != pad_id) & look_ahead_mask(len): the padding part is (batch, len), "
            "without the heads and query axes, so broadcasting lines its batch axis up with "
            "the queries (and fails when batch != len). Give it those axes, (batch, 1, 1, "
            "len): padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])."
        )
    if not (isinstance(probe, torch.Tensor) and probe.shape == expected.shape):
        return ""
    if not torch.equal(probe.bool(), expected):
        return ""
    if named := _larger_or_smaller_size_note(decoder_self_attention_mask, ids, pad_id):
        return named
    return (
        f" With as many sequences as positions ({len(square)} of each) yours gives the right "
        f"mask, so it reads one size for the other: here the batch size is tgt_ids.shape[0] "
        f"= {batch} and the length tgt_ids.shape[1] = {length}. The look-ahead mask is "
        "(len, len): look_ahead_mask(tgt_ids.shape[1])."
    )


def _larger_or_smaller_size_note(decoder_self_attention_mask, ids: torch.Tensor, pad_id: int):
    """After an error on ids with batch != len, where the square batch came out right: is
    the mask right too with the batch and the length the other way round (fewer sequences
    than positions where this batch has more, or more where it has fewer)? Then the size
    follows the length only while it is the larger (or the smaller) of the two: the length
    taken as max(tgt_ids.shape) (blind16d-decmask-length-from-largest-size, uncaught while
    no input had more sequences than positions) or min(...). "" when the probe says no."""
    batch, length = ids.shape
    if batch > length >= 2:
        other = ids[: length - 1]  # (len - 1, len): fewer sequences than positions
    elif length > batch >= 2:
        other = ids[:, : batch - 1]  # (batch, batch - 1): more sequences than positions
    else:
        return ""
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = decoder_self_attention_mask(other.clone(), pad_id)
    expected = ref.decoder_self_attention_mask(other, pad_id)
    if not (isinstance(probe, torch.Tensor) and probe.shape == expected.shape):
        return ""
    if not torch.equal(probe.bool(), expected):
        return ""
    rows, columns = other.shape
    larger = batch > length
    return (
        f" Yours gives the right mask for {rows} sequences of {columns} positions and for "
        f"as many sequences as positions, and fails here, with {batch} sequences of {length} "
        f"positions, {'more' if larger else 'fewer'} sequences than positions: its length "
        f"follows the {'larger' if larger else 'smaller'} of the two sizes "
        f"({'max' if larger else 'min'}(tgt_ids.shape) or the like), so a batch "
        f"{'larger' if larger else 'smaller'} than the length takes the length's place. The "
        "look-ahead part is (len, len) whatever the batch size: "
        "look_ahead_mask(tgt_ids.shape[1])."
    )


def _off_by_one_length_hint(length: int):
    """A hint for a broadcast error between a tensor of ``length`` positions and one of
    ``length`` - 1 or + 1: a length off by one (the sizes in the error tell it)."""

    def hint(exc: BaseException) -> str:
        found = re.search(
            r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)", str(exc)
        )
        if not found:
            return ""
        sizes = {int(found.group(1)), int(found.group(2))}
        if length not in sizes or not sizes & {length - 1, length + 1}:
            return ""
        (other,) = sizes - {length}
        formula = "len - 1" if other == length - 1 else "len + 1"
        return (
            f"tgt_ids has len = {length} positions, and one of your tensors has {other} "
            f"({formula}): a length off by one. Both parts are built for all len = "
            "tgt_ids.shape[1] positions: look_ahead_mask(tgt_ids.shape[1]) (not shape[1] - 1: "
            "tgt_ids is already the decoder's input, shifted by the caller) and the padding "
            "of every position (no tgt_ids[:, :-1])."
        )

    return hint


#: other (lengths, len, pad_id) on which a broadcast error's wrong size is read again: no
#: two of batch, len, pad_id and their quotients, products and neighbours agree on all three
_SIZE_PROBES = [([4, 2, 6], 6, 3), ([5, 3], 5, 7), ([8, 2, 4, 6], 8, 2)]


def _size_source_hint(fn, length: int, batch: int, pad_id: int):
    """A broadcast error between a tensor of ``length`` positions and one whose size came
    from another quantity (look_ahead_mask(pad_id), the neighbouring argument): the size
    is read again on other inputs and its source named when one agrees on every input
    (checking.size_sources; len - 1 and len + 1 are the off-by-one hint's)."""

    def hint(exc: BaseException) -> str:
        found = broadcast_sizes(str(exc))
        if not found or length not in found or len(set(found)) != 2:
            return ""
        (other,) = set(found) - {length}
        observed = [other]
        sizes = [{"batch": batch, "len": length, "pad_id": pad_id}]
        for number, (lengths, size, pad) in enumerate(_SIZE_PROBES):
            ids = _padded_batch(6900 + number, lengths, size, pad)
            try:
                fn(ids, pad)
            except Exception as again:  # the learner's code, on another input
                pair = broadcast_sizes(str(again))
                if pair and size in pair and len(set(pair)) == 2:
                    (wrong,) = set(pair) - {size}
                    observed.append(wrong)
                    sizes.append({"batch": len(lengths), "len": size, "pad_id": pad})
        return size_source_note(
            observed,
            sizes,
            f"tgt_ids has len = {length} positions, and one of your tensors has {other}",
            "the length len = tgt_ids.shape[1]",
            "Both parts of the mask have len positions: look_ahead_mask(tgt_ids.shape[1]) and "
            "padding_mask(tgt_ids, pad_id).",
            exclude=["len", "len - 1", "len + 1"],
        )

    return hint


#: torch.ones/zeros/full/empty given a first size that is not an int: a shape (torch.Size,
#: tuple, list) or a float, each read as the start of a size sequence
_SIZE_NOT_AN_INT = re.compile(r"\b(ones|zeros|full|empty)\(\) takes 1 positional argument but 2")


def _size_not_an_int_hint(exc: BaseException) -> str:
    """look_ahead_mask(size) given something other than the length (round 18, blind15d-
    decmask-look-ahead-sized-by-whole-shape: look_ahead_mask(tgt_ids.shape), a raw
    "ones() takes 1 positional argument but 2 were given"). The error's text tells that
    torch.ones(size, size) got a size that is not an int; it cannot tell a shape from a
    float, so both are named, the shape first."""
    if not _SIZE_NOT_AN_INT.search(str(exc)):
        return ""
    return (
        "torch.ones(size, size) (or torch.zeros) got a size that is not an int: the "
        "look-ahead part was most likely sized with the whole shape, look_ahead_mask("
        "tgt_ids.shape), a torch.Size (batch, len) where the length belongs (or with a "
        "float, such as a length divided with /). Pass the length, an int: "
        "look_ahead_mask(tgt_ids.shape[1]) (or tgt_ids.size(1))."
    )


def _earlier_call_hint(fn, length: int, pad_id: int, right_lengths: list[int]):
    """A broadcast error between this call's ``length`` and a size that stays the same on
    fresh calls of other lengths, batch sizes and pad_ids: the look-ahead mask kept from an
    earlier call (a mutable default ``_cache={}``, a global built once; round 14, blind14d-
    decmask-look-ahead-cached-first-call, told "a length off by one" and "a constant in
    your code") or a constant; calls cannot tell the two apart, so both are named, the
    earlier call first when the size is the length of one of this check's earlier calls
    that came out right. "" when the sizes do not show it."""

    def hint(exc: BaseException) -> str:
        found = broadcast_sizes(str(exc))
        if not found or length not in found or len(set(found)) != 2:
            return ""
        (other,) = set(found) - {length}
        start = max(length, other) + 2  # no neighbour of other's: not a length off by one
        batches = [n for n in (2, 3, 4) if n != other][:2]
        pads = [n for n in (1, 4, 7) if n != other][:2]
        fresh = []
        for number, (size, batch, pad) in enumerate(zip((start, start + 1), batches, pads)):
            ids = _padded_batch(6950 + number, [size] + [1] * (batch - 1), size, pad)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    fn(ids, pad)
            except Exception as again:  # the learner's code, on a length never used before
                if set(broadcast_sizes(str(again)) or ()) != {size, other}:
                    return ""
            else:
                return ""
            fresh.append(str(size))
        lengths = " and ".join(fresh)
        fix = (
            "Build both parts on every call, for this call's len: padding_mask(tgt_ids, "
            "pad_id) & look_ahead_mask(tgt_ids.shape[1])."
        )
        kept = (
            "keeps its look-ahead mask from an earlier call (cached on the first call: a "
            "mutable default argument such as `_cache={}`, a global or an attribute built "
            f"once), so every later call gets the old ({other}, {other}) triangle whatever "
            "its length"
        )
        if other in right_lengths:
            return (
                f"tgt_ids has len = {length} positions, and one of your tensors has {other}: "
                f"the length of an earlier call in this check (tgt_ids with len = {other}, "
                f"whose mask came out right), and {other} again on fresh calls with len = "
                f"{lengths} (other batch sizes and pad_ids too). Your function {kept}; or "
                f"else {other} is written into your code. {fix}"
            )
        return (
            f"tgt_ids has len = {length} positions, and one of your tensors has {other}, and "
            f"{other} again on fresh calls with len = {lengths} (other batch sizes and pad_ids "
            f"too): a size that follows none of the inputs. Either your function {kept}, or "
            f"the constant {other} is written into your code where len = tgt_ids.shape[1] "
            f"belongs. {fix}"
        )

    return hint


def _first_of(first, *others):
    """One hint: ``first``'s text alone when it has one, else the ``others``' texts."""

    def hint(exc: BaseException) -> str:
        if text := first(exc):
            return text
        return "\n".join(text for text in (other(exc) for other in others) if text)

    return hint


def _expect_causal_kept_without_pads(c, got, ids, pad_id, what, right_lengths) -> None:
    """On a batch that holds no pad, the padding mask alone (all True, (batch, 1, 1, len)
    or broadcast over the queries) after earlier calls on batches with pads came out
    right: the look-ahead part is skipped when there is nothing to pad (blind18b-decmask-
    causal-skipped-without-padding, accepted while every case held a pad)."""
    length = ids.shape[1]
    if not (
        right_lengths
        and length > 1
        and bool((ids != pad_id).all())
        and isinstance(got, torch.Tensor)
        and got.ndim == 4
        and got.shape[0] == ids.shape[0]
        and got.shape[1] == 1
        and got.shape[2] in (1, length)
        and got.shape[3] == length
        and bool((got != 0).all())
    ):
        return
    c.fail(
        f"{what} (a batch with no pad at all) returned a mask that is True everywhere, "
        f"shape {tuple(got.shape)}: no look-ahead part, so every query sees the future "
        "tokens. Your earlier calls, on batches that held pads, came out right: your code "
        "leaves out the look-ahead mask when there is nothing to pad (an early return of "
        "the padding mask, `if not (tgt_ids == pad_id).any(): ...`?). The look-ahead part "
        "does not depend on the padding: the decoder must never see later tokens, padded "
        "batch or not. Always return padding_mask(...) & look_ahead_mask(len)."
    )


def check_decoder_self_attention_mask(decoder_self_attention_mask, *, hidden: bool = False) -> None:
    """decoder_self_attention_mask(tgt_ids (batch, len), pad_id) -> bool (batch, 1, len, len).

    Required: a bool tensor of exactly that shape, True where the key is not after the
    query and is a real token; and, for other token ids, a mask with which changing future
    tokens never changes earlier outputs. Any way of computing it is accepted.
    """
    with Checker("decoder_self_attention_mask", hidden=hidden) as c:
        c.require_callable(decoder_self_attention_mask)
        cases = hidden_decoder_cases() if hidden else visible_decoder_cases()
        right_lengths: list[int] = []  # of the earlier calls whose mask came out right
        for number, (ids, pad_id) in enumerate(cases):
            batch, length = ids.shape
            what = (
                f"decoder_self_attention_mask(tgt_ids, pad_id={pad_id}) with tgt_ids = "
                f"{_ids_repr(ids)}"
            )
            call_repr = f"decoder_self_attention_mask(tgt_ids, {pad_id})"

            row_right = alone_right(
                decoder_self_attention_mask, ref.decoder_self_attention_mask, ids, pad_id
            )

            batch_note = lambda row_right=row_right, batch=batch: row_by_row_note(  # noqa: E731
                row_right, batch, size="tgt_ids"
            )
            try:
                got = c.call(
                    decoder_self_attention_mask,
                    ids,
                    pad_id,
                    call_repr=call_repr,
                    mutation_hint=_DECODER_MUTATION,
                    hints=[
                        (
                            RuntimeError,
                            _first_of(
                                _earlier_call_hint(
                                    decoder_self_attention_mask, length, pad_id, right_lengths
                                ),
                                _off_by_one_length_hint(length),
                                _size_source_hint(
                                    decoder_self_attention_mask, length, batch, pad_id
                                ),
                            ),
                        ),
                        ("doesn't match the broadcast shape", _IN_PLACE_COMBINE),
                        (TypeError, _size_not_an_int_hint),
                        *row_by_row_hint(row_right, batch, size="tgt_ids"),
                    ],
                )
            except CheckFailure as failure:
                if not failure.message.startswith("calling `"):
                    # not an exception in the learner's code (an argument changed in place,
                    # say): no size was confused (round 11: ids.ne_(pad_id) was told it read
                    # the batch size for the length)
                    raise
                sizes = re.search(
                    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)",
                    failure.message,
                )
                if sizes and {int(sizes.group(1)), int(sizes.group(2))} != {batch, length}:
                    raise  # the sizes that clash are not the batch size and the length
                named = _square_batch_hint(decoder_self_attention_mask, ids, pad_id)
                if named:
                    raise failure.with_cause(named) from None
                raise
            _expect_mask_tensor(c, got, what)
            expected = ref.decoder_self_attention_mask(ids, pad_id)  # (batch, 1, len, len)
            _expect_causal_kept_without_pads(c, got, ids, pad_id, what, right_lengths)
            c.expect_shape(
                got,
                expected.shape,
                what,
                _and_dtype(
                    _causal_shaped_like_ids_note(got, ids, pad_id)
                    or _decoder_batch_axis_twice_note(
                        decoder_self_attention_mask, ids, pad_id, got, expected
                    )
                    or _batch_axis_moved_note(
                        got,
                        expected,
                        batch,
                        "padding_mask(tgt_ids, pad_id) & look_ahead_mask(len), (batch, 1, len, len)",
                    )
                    or batch_note()
                    or _decoder_shape_or_size_one(got, expected, batch, length, ids, pad_id),
                    got.dtype,
                ),
            )
            followed = _ids_dtype_followed(decoder_self_attention_mask, ids, pad_id, got)
            _expect_bool(
                c,
                got,
                what,
                followed or _FROM_COMPARISON,
                "" if followed else "To combine two bool masks use & (logical AND), not * or +.",
                expected=expected,
            )
            if not torch.equal(got, expected) and (
                note := _batch_of_one_note(
                    decoder_self_attention_mask, ref.decoder_self_attention_mask, ids, pad_id, got
                )
            ):
                c.fail(f"{what} is not the decoder's mask. {note}")
            differs = (got != expected).flatten(1).any(dim=1)  # (batch,)
            shown = int(differs.nonzero()[0]) if bool(differs.any()) else 0
            picture = _side_by_side(
                got[shown, 0], expected[shown, 0], f"sequence {shown}, ids {ids[shown].tolist()}; "
            )
            seed = 8000 + 10 * number + hidden
            c.expect_equal(
                got,
                expected,
                what,
                hint=lambda got=got, ids=ids, pad_id=pad_id, seed=seed, picture=picture, note=batch_note: (
                    note() or _explain_decoder(got, ids, pad_id, seed, picture)
                ),
                mistakes=_with_precedence(
                    _precedence_mistake(decoder_self_attention_mask, ids, pad_id, got),
                    _decoder_mistakes(ids, pad_id, picture),
                ),
            )

            right_lengths.append(length)

            # The property, for *other* token ids: the mask of the changed batch must still
            # keep every output independent of the tokens after it.
            def mask_for(new_ids, pad_id=pad_id, call_repr=call_repr, shape=expected.shape):
                mask = c.call(
                    decoder_self_attention_mask,
                    new_ids,
                    pad_id,
                    call_repr=call_repr,
                    mutation_hint=_DECODER_MUTATION,
                )
                c.expect_true(
                    isinstance(mask, torch.Tensor) and mask.shape == shape,
                    f"{call_repr} returned a different type or shape for other token ids.",
                )
                return mask

            leak = _causal_leak(mask_for, ids, length, 9000 + 10 * number + hidden, "", pad_id)
            c.expect_true(not leak, f"{what}: {leak}")


# ---------------------------------------------------------------------- concept questions
QUIZ_FULLY_MASKED_ROW = Quiz(
    name="quiz_fully_masked_row",
    answer="b",
    choices={
        "a": "NaN: the softmax of a row of -inf is 0 / 0, and NaN honestly says 'undefined'",
        "b": "all zeros: the query attends to nothing, and its output stays finite",
        "c": "uniform weights, 1/len_k on every key, pads included",
        "d": "weight 1 on the query's own position: every position may at least see itself",
    },
    why={
        "a": "NaN does not stay put: the next layer mixes this position's output into others "
        "(even a zero weight times NaN is NaN), and then the loss and every gradient are NaN.",
        "b": "The row attends to nothing, so it gets no weight anywhere; its output is just the "
        "output projection's bias, finite, and ignored later because it belongs to a pad. "
        "F.scaled_dot_product_attention (PyTorch 2.5 and later) does the same.",
        "c": "Uniform weights are what filling with a large finite number such as -1e9 gives "
        "(every score of the row equal, so the softmax spreads evenly): harmless here (the row "
        "is a pad's and its output is ignored), so the checks accept it with a note, but the "
        "row then reads from exactly the keys it was told to ignore. The course's attention "
        "returns zeros for such a row, not uniform weights.",
        "d": "The mask decides what a query may see, and here it allows nothing, not even the "
        "query's own position: the query's own key is blocked like any other (a pad under the "
        "padding mask masks itself too), and attention makes no exception for the diagonal. "
        "With every key blocked the row gets no weight anywhere, not a one on the diagonal.",
    },
    # the weights' value itself in place of the letter (0 read as choice (a)'s "0 / 0" before)
    meant={
        0: ("b", "0, the weight on every key"),
        float("nan"): ("a", "NaN, the weights' value"),
        1: ("d", "1, a weight of one (on the query's own position)"),
    },
)
check_quiz_fully_masked_row = quiz_check(QUIZ_FULLY_MASKED_ROW)

QUIZ_WHICH_MASK = Quiz(
    name="quiz_which_mask",
    answer="c",
    choices={
        "a": "encoder self-attention: decoder_self_attention_mask(src); decoder "
        "self-attention: padding_mask(tgt); cross-attention: padding_mask(tgt)",
        "b": "encoder self-attention: padding_mask(src); decoder self-attention: "
        "decoder_self_attention_mask(tgt); cross-attention: decoder_self_attention_mask(tgt)",
        "c": "encoder self-attention: padding_mask(src); decoder self-attention: "
        "decoder_self_attention_mask(tgt); cross-attention: padding_mask(src)",
        "d": "encoder self-attention: padding_mask(src); decoder self-attention: "
        "padding_mask(tgt); cross-attention: padding_mask(src) & look_ahead_mask",
    },
    why={
        "a": "The encoder reads the whole source at once, in training and in use: nothing in it "
        "is 'the future', so it needs no look-ahead part. And the decoder's self-attention "
        "without one lets each position read the next token, the answer it is asked for. "
        "Cross-attention's keys are source positions, so the *target* padding is the wrong one.",
        "b": "Cross-attention's keys are the encoder's (source) positions, so it needs the source "
        "padding. The look-ahead rule has nothing to hide there (the whole source is known "
        "before decoding starts), and the shape would not even fit: (batch, 1, len_tgt, "
        "len_tgt) against weights (batch, heads, len_tgt, len_src).",
        "c": "Each mask hides keys: the encoder's keys are source tokens (hide source pads); the "
        "decoder's self-attention keys are target tokens (hide target pads and the future); "
        "cross-attention's keys are source tokens again (hide source pads, nothing else).",
        "d": "Without a look-ahead part, the decoder's self-attention sees the future tokens "
        "during teacher-forced training. Cross-attention needs none: the source is known in "
        "full, and its (len_tgt, len_src) weights have no diagonal to speak of.",
    },
)
check_quiz_which_mask = quiz_check(QUIZ_WHICH_MASK)


# ---------------------------------------------------------------------------- registry
LESSON = "06_masking"
EXERCISES = (
    Exercise(
        "quiz_fully_masked_row",
        check_quiz_fully_masked_row,
        kind="quiz",
        points=1,
        minutes=3,
        level=2,
    ),
    Exercise("padding_mask", check_padding_mask, kind="function", points=2, minutes=10, level=2),
    Exercise(
        "look_ahead_mask", check_look_ahead_mask, kind="function", points=1, minutes=10, level=1
    ),
    Exercise(
        "decoder_self_attention_mask",
        check_decoder_self_attention_mask,
        kind="function",
        points=3,
        minutes=15,
        level=2,
    ),
    Exercise("quiz_which_mask", check_quiz_which_mask, kind="quiz", points=1, minutes=3, level=2),
)
