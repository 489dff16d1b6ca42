"""Checks for lesson 06: padding masks, look-ahead masks and the decoder's combined mask.

Masks are ``torch.bool`` with True = "may attend" (the convention of
``F.scaled_dot_product_attention``). Each check verifies type, shape and dtype
first (with a hint for the classic wrong shapes), then the exact values (with a
diagnosis for the classic wrong masks), then properties of attention computed
with the learner's mask by the *reference* attention: padded keys get exactly
zero weight, changing future tokens never changes earlier outputs, no NaN.
"""

from __future__ import annotations

import math

import torch

from transformer_course.checking import Checker, torch_generator
from transformer_course.reference import masking as ref
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.multi_head_attention import MultiHeadAttention
from transformer_course.registry import Exercise

__all__ = ["check_decoder_self_attention_mask", "check_look_ahead_mask", "check_padding_mask"]

VOCAB_SIZE = 20
D_MODEL, NUM_HEADS = 8, 2


# ----------------------------------------------------------------------------- inputs
def _padded_batch(seed: int, lengths: list[int], length: int, pad_id: int, *, left: bool = False):
    """Random token ids (batch, length), never pad_id except in the padding.

    ``lengths`` gives the number of real tokens per sequence; the rest is padding,
    at the end (``left=False``) or at the start (``left=True``). When pad_id != 0,
    the first token is 0, so that a mask comparing with 0 instead of pad_id shows.
    """
    gen = torch_generator(seed)
    ids = torch.randint(0, VOCAB_SIZE - 1, (len(lengths), length), generator=gen)
    ids = ids + (ids >= pad_id).long()  # skip pad_id: values in [0, VOCAB_SIZE) minus {pad_id}
    if pad_id != 0:
        ids[0, length - lengths[0] if left else 0] = 0
    for row, n in enumerate(lengths):
        if left:
            ids[row, : length - n] = pad_id
        else:
            ids[row, n:] = pad_id
    return ids


def _visible_padding_cases():
    return [
        (torch.tensor([[5, 7, 9, 0, 0], [3, 4, 8, 6, 2], [11, 0, 0, 0, 0]]), 0),
        # pad_id 1: here 0 is an ordinary token (a start token, say)
        (torch.tensor([[0, 4, 7, 1, 1], [0, 9, 1, 1, 1]]), 1),
        # left padding (pads first), and a sequence made only of padding
        (torch.tensor([[0, 0, 6, 2], [0, 0, 0, 0], [4, 0, 0, 0]]), 0),
    ]


def _hidden_padding_cases():
    return [
        (_padded_batch(6101, [7, 3, 0, 5], 7, 0), 0),
        (_padded_batch(6102, [4, 6, 1], 6, 1), 1),
        (_padded_batch(6103, [2, 5, 3], 5, 3, left=True), 3),
        (_padded_batch(6104, [12, 9, 0, 16, 3, 16], 16, 0), 0),
        (_padded_batch(6105, [1], 1, 0), 0),
    ]


def _visible_decoder_cases():
    return [
        # "<bos> i am fine <eos>" and "<bos> hi <eos>", right-padded with pad_id 0
        (torch.tensor([[2, 5, 6, 7, 3, 0], [2, 8, 3, 0, 0, 0]]), 0),
        # left padding (used for batched generation): pads come first
        (torch.tensor([[0, 0, 2, 9, 4], [2, 7, 5, 8, 4]]), 0),
        # a sequence made only of padding, pad_id 1
        (torch.tensor([[0, 4, 1], [1, 1, 1]]), 1),
    ]


def _hidden_decoder_cases():
    return [
        (_padded_batch(6201, [9, 4, 0, 6], 9, 0), 0),
        (_padded_batch(6202, [3, 7, 5], 7, 2, left=True), 2),
        (_padded_batch(6203, [12, 1, 8], 12, 1), 1),
        (_padded_batch(6204, [16, 5, 11, 0, 16], 16, 0), 0),
        (_padded_batch(6205, [1], 1, 0), 0),
    ]


VISIBLE_SIZES = [4, 6, 2]
HIDDEN_SIZES = [5, 9, 3, 16, 1]


# ---------------------------------------------------------------------------- helpers
def _ids_repr(ids: torch.Tensor) -> str:
    if ids.numel() <= 24:
        return str(ids.tolist())
    return f"a random ({ids.shape[0]}, {ids.shape[1]}) batch"


def _grid(mask2d: torch.Tensor) -> list[str]:
    return [" ".join("1" if bool(v) else "0" for v in row) for row in mask2d]


def _side_by_side(got2d: torch.Tensor, expected2d: torch.Tensor) -> str:
    """Yours | expected, as 0/1 grids (rows = queries, columns = keys), for small masks."""
    if got2d.shape[-1] > 9:
        return ""
    left, right = _grid(got2d), _grid(expected2d)
    width = max(len(left[0]) if left else 0, len("yours"))
    lines = [
        f"{'yours':<{width}}   expected",
        *(f"{a:<{width}}   {b}" for a, b in zip(left, right, strict=True)),
    ]
    return "\n(1 = may attend; rows are queries, columns are keys)\n" + "\n".join(lines)


def _expect_tensor(c: Checker, got, what: str) -> None:
    if not isinstance(got, torch.Tensor):
        hint = "Return a torch.Tensor of dtype torch.bool."
        if type(got).__module__ == "numpy":
            hint += " You returned a numpy array: wrap it with torch.from_numpy(...)."
        elif got is None:
            hint += " Did you forget the `return` statement?"
        c.fail(
            f"{what} should return a torch.Tensor, but it returned a {type(got).__name__}. {hint}"
        )
    c.ok()


def _expect_bool(
    c: Checker, got: torch.Tensor, what: str, source_hint: str, extra: str = ""
) -> None:
    if got.dtype == torch.bool:
        c.ok()
        return
    if got.dtype.is_floating_point and bool(torch.isinf(got).any()):
        c.fail(
            f"{what} returned a float mask with -inf in it (dtype {got.dtype}): that is the "
            "*additive* form (0 where allowed, -inf where blocked), the one "
            "nn.Transformer.generate_square_subsequent_mask returns. In this course masks "
            "are bool, True = may attend; the attention function turns them into -inf "
            "itself (scores.masked_fill(~mask, float('-inf')))."
        )
    c.fail(
        f"{what} should have dtype torch.bool, but it has dtype {got.dtype}. Masks in this "
        f"course are bool (True = may attend). {source_hint} Numbers do not work as masks: "
        "`~` on an integer tensor is a bitwise NOT (~1 == -2, not 0), and masked_fill "
        f"requires a bool mask. {extra}".strip()
    )


def _expect_unchanged(c: Checker, ids: torch.Tensor, original: torch.Tensor, what: str) -> None:
    if not torch.equal(ids, original):
        c.fail(
            f"{what} changed its input tensor in place (it now holds {_ids_repr(ids)}). Build "
            "a new tensor (ids != pad_id) instead of writing into the ids."
        )
    c.ok()


def _match_mistakes(c: Checker, got: torch.Tensor, what: str, mistakes: dict[str, torch.Tensor],
                    picture: str) -> None:  # fmt: skip
    for message, wrong in mistakes.items():
        if wrong is not None and wrong.shape == got.shape and torch.equal(got, wrong):
            c.fail(f"{what} is not right. {message}{picture}")


def _attention(mask: torch.Tensor, batch: int, length: int, seed: int):
    """Reference attention on random q, k, v (batch, NUM_HEADS, length, d_k) with ``mask``.

    Returns output (batch, NUM_HEADS, length, d_k) and weights (batch, NUM_HEADS, length, length).
    """
    gen = torch_generator(seed)
    q, k, v = (torch.randn(batch, NUM_HEADS, length, 4, generator=gen) for _ in range(3))
    return scaled_dot_product_attention(q, k, v, mask)


def _expect_pad_keys_ignored(c: Checker, weights: torch.Tensor, ids: torch.Tensor, pad_id: int,
                             what: str) -> None:  # fmt: skip
    """Property: every pad key gets exactly zero weight from every query."""
    is_pad = (ids == pad_id)[:, None, None, :].expand_as(weights)
    leaked = (weights != 0) & is_pad
    if bool(leaked.any()):
        b, h, i, j = (int(x) for x in leaked.nonzero()[0])
        c.fail(
            f"{what}: with your mask, the reference attention gives the pad key at position {j} "
            f"of sequence {b} a weight of {float(weights[b, h, i, j]):.3g} (query {i}). Padded "
            "keys must receive exactly zero weight, so the mask must be False at every pad key."
        )
    c.ok()


def _expect_finite(c: Checker, output: torch.Tensor, what: str) -> None:
    if not bool(torch.isfinite(output).all()):
        c.fail(f"{what}: with your mask, the reference attention output contains NaN or inf.")
    c.ok()


# ------------------------------------------------------------------------ padding_mask
_FROM_COMPARISON = (
    "A comparison such as `ids != pad_id` is already bool: drop any .int(), .long() or .float()."
)
_PAD_SHAPE_HINTS = {
    "flat": "The values may be right, but the mask needs two singleton axes: (batch, 1, 1, len). "
    "Attention scores are (batch, num_heads, len_q, len_k); the 1s line up with num_heads and "
    "len_q, so one row of key flags broadcasts to every head and every query. Use "
    "`mask[:, None, None, :]` or `mask.unsqueeze(1).unsqueeze(2)`.",
    "query": "Your len axis is in the query position (len_q), so the mask would broadcast over the "
    "keys instead of over the queries: it would blank out whole rows for pad *queries* while "
    "every real token could still attend to the pads. Padding must hide pad *keys*: put the len "
    "axis last, (batch, 1, 1, len).",
    "expanded": "You expanded the mask over the query axis. The contract is the compact "
    "(batch, 1, 1, len): broadcasting does the expansion for free inside attention, and the "
    "same mask then also serves cross-attention, where the number of queries (len_q) differs "
    "from len.",
    "three": "One singleton axis is missing. Broadcasting aligns shapes from the right, so a 3-D "
    "(batch, 1, len) mask against 4-D scores (batch, num_heads, len_q, len_k) is read as "
    "(1, batch, 1, len): your batch axis would line up with num_heads. Use (batch, 1, 1, len).",
}


def _padding_shape_hint(shape: tuple[int, ...], batch: int, length: int) -> str:
    if shape == (batch, length):
        return _PAD_SHAPE_HINTS["flat"]
    if length > 1 and shape in {(batch, 1, length, 1), (batch, length, 1)}:
        return _PAD_SHAPE_HINTS["query"]
    if length > 1 and shape == (batch, 1, length):
        return _PAD_SHAPE_HINTS["three"]
    if shape == (batch, 1, length, length):
        return _PAD_SHAPE_HINTS["expanded"]
    if length > 1 and shape == (batch, length, 1, 1):
        return (
            "Your len axis is in the num_heads position, (batch, len, 1, 1): against scores "
            "(batch, num_heads, len_q, len_k) it would pair position j with head j. The flags "
            "belong on the last (key) axis: (batch, 1, 1, len)."
        )
    return "The padding mask has one flag per key: (batch, 1, 1, len)."


def check_padding_mask(padding_mask, *, hidden: bool = False) -> None:
    """padding_mask(ids (batch, len) int64, pad_id) -> bool (batch, 1, 1, len), True = real token."""
    with Checker("padding_mask", hidden=hidden) as c:
        c.require_callable(padding_mask)
        cases = _hidden_padding_cases() if hidden else _visible_padding_cases()
        for number, (ids, pad_id) in enumerate(cases):
            batch, length = ids.shape
            what = f"padding_mask(ids, pad_id={pad_id}) with ids = {_ids_repr(ids)}"
            original = ids.clone()
            got = c.call(padding_mask, ids, pad_id, call_repr=f"padding_mask(ids, {pad_id})")
            _expect_unchanged(c, ids, original, what)
            _expect_tensor(c, got, what)
            expected = ref.padding_mask(ids, pad_id)  # (batch, 1, 1, len)
            c.expect_shape(
                got, expected.shape, what, _padding_shape_hint(tuple(got.shape), batch, length)
            )
            _expect_bool(c, got, what, _FROM_COMPARISON)
            mistakes = {
                "Your mask is True at the pad tokens and False at the real ones: the polarity is "
                "inverted. In this course True means 'may attend' (as in "
                "F.scaled_dot_product_attention), so the mask is `ids != pad_id`. "
                "(nn.MultiheadAttention's key_padding_mask uses the opposite polarity, True = "
                "ignore: don't mix the two conventions.)": (ids == pad_id)[:, None, None, :],
            }
            if pad_id != 0:
                mistakes[
                    f"Your mask hides the token id 0, but the pad id here is {pad_id}: compare "
                    "with the `pad_id` argument instead of a hard-coded 0."
                ] = (ids != 0)[:, None, None, :]
            mistakes["Your mask is True everywhere: it lets every query attend to the pads. It "
                     "must be False where ids == pad_id."] = torch.ones_like(expected)  # fmt: skip
            if not torch.equal(got, expected):
                _match_mistakes(c, got, what, mistakes, "")
            # Properties, with the reference attention and *your* mask.
            output, weights = _attention(got, batch, length, seed=6000 + 10 * number + hidden)
            _expect_pad_keys_ignored(c, weights, ids, pad_id, what)
            real = (ids != pad_id)[:, None, None, :].expand_as(weights)
            starved = real & (weights == 0)
            if bool(starved.any()):
                b, _, i, j = (int(x) for x in starved.nonzero()[0])
                c.fail(
                    f"{what}: with your mask, the real token at key position {j} of sequence {b} "
                    f"(id {int(ids[b, j])}) gets zero weight from query {i}. The padding mask must "
                    "be True at every real token: only pads are hidden."
                )
            c.ok()
            _expect_finite(c, output, what)
            if not torch.equal(got, expected):
                b, _, _, j = (int(x) for x in (got != expected).nonzero()[0])
                c.fail(
                    f"{what}: at sequence {b}, key position {j} (token id {int(ids[b, j])}) your "
                    f"mask is {bool(got[b, 0, 0, j])}, expected {bool(expected[b, 0, 0, j])}. "
                    "The mask is True exactly where ids != pad_id."
                )
            c.ok()


# --------------------------------------------------------------------- look_ahead_mask
def _look_ahead_mistakes(size: int) -> dict[str, torch.Tensor]:
    ones = torch.ones(size, size, dtype=torch.bool)
    return {
        "Your mask has the diagonal but not the lower triangle: did you use torch.triu instead of "
        "torch.tril? Position i would see itself and every *later* position (the future) but "
        "none of the earlier ones.": torch.triu(ones),
        "Your mask is True exactly where it should be False: True marks the blocked (future) "
        "positions. That is the polarity of nn.Transformer.generate_square_subsequent_mask and "
        "of nn.MultiheadAttention's bool attn_mask (True = not allowed); in this course True "
        "means 'may attend', so keep the lower triangle *with* the diagonal: "
        "torch.tril(...).": torch.triu(ones, diagonal=1),
        "Your mask leaves out the diagonal (did you use torch.tril(..., diagonal=-1)?): a "
        "position must be allowed to attend to itself. Without the diagonal, position 0 has no "
        "key at all: a fully masked row, which gives NaN in a plain softmax.": torch.tril(
            ones, diagonal=-1
        ),
        "Your mask is True everywhere: nothing is hidden, so every position can see the "
        "future.": ones,
    }


def check_look_ahead_mask(look_ahead_mask, *, hidden: bool = False) -> None:
    """look_ahead_mask(size) -> bool (size, size), True on and below the diagonal."""
    with Checker("look_ahead_mask", hidden=hidden) as c:
        c.require_callable(look_ahead_mask)
        for number, size in enumerate(HIDDEN_SIZES if hidden else VISIBLE_SIZES):
            what = f"look_ahead_mask({size})"
            got = c.call(look_ahead_mask, size, call_repr=what)
            _expect_tensor(c, got, what)
            expected = ref.look_ahead_mask(size)  # (size, size)
            hint = "The look-ahead mask is one (len_q, len_k) matrix shared by every sequence and head."
            if tuple(got.shape) in {(1, 1, size, size), (1, size, size)}:
                hint += (
                    " Return exactly (size, size): broadcasting adds the leading axes when it is "
                    "combined with the padding mask or the scores."
                )
            c.expect_shape(got, (size, size), what, hint)
            _expect_bool(
                c, got, what,
                "torch.tril(torch.ones(size, size, dtype=torch.bool)) is bool from the start; "
                "or convert with .bool().",
            )  # fmt: skip
            picture = _side_by_side(got, expected)
            if not torch.equal(got, expected):
                _match_mistakes(c, got, what, _look_ahead_mistakes(size), picture)
            # Properties, with the reference attention and *your* mask.
            missing_self = ~got.diagonal()
            if bool(missing_self.any()):
                i = int(missing_self.nonzero()[0])
                c.fail(
                    f"{what}: position {i} may not attend to itself (the diagonal must be True). "
                    "Position 0 would then have no key at all: a fully masked row, NaN in a plain "
                    f"softmax.{picture}"
                )
            c.ok()
            _expect_causal(
                c, lambda _ids, m=got: m, None, size, 7000 + 10 * number + hidden, what, picture
            )
            if not torch.equal(got, expected):
                i, j = (int(x) for x in (got != expected).nonzero()[0])
                c.fail(
                    f"{what}: query {i} and key {j}: yours is {bool(got[i, j])}, expected "
                    f"{bool(expected[i, j])}. Query i may attend to keys 0..i (on and below the "
                    f"diagonal), never to keys after i.{picture}"
                )
            c.ok()


def _expect_causal(c: Checker, mask_for, ids: torch.Tensor | None, length: int, seed: int,
                   what: str, picture: str = "", pad_id: int = 0) -> None:  # fmt: skip
    """Property: with the mask, changing the tokens after position i leaves outputs 0..i unchanged.

    ``mask_for(ids)`` returns the mask for a batch of ids (or ignores them). A
    reference multi-head attention layer with fixed weights plays the decoder's
    self-attention; its output at each position is compared before and after
    the future tokens change.
    """
    gen = torch_generator(seed)
    with torch.random.fork_rng(devices=[]):  # nn.Linear's init must not move the global stream
        layer = MultiHeadAttention(D_MODEL, NUM_HEADS)
    layer.load_state_dict({
        name: torch.randn(p.shape, generator=gen) / math.sqrt(D_MODEL)
        for name, p in layer.state_dict().items()
    })  # fmt: skip
    table = torch.randn(VOCAB_SIZE, D_MODEL, generator=gen)  # a fixed embedding table
    keep_pads = ids is not None
    if ids is None:  # a single sequence of distinct random tokens
        ids = torch.randint(0, VOCAB_SIZE, (1, length), generator=gen)
    mask = mask_for(ids)
    with torch.no_grad():
        base, _ = layer(table[ids], table[ids], table[ids], mask)  # (batch, len, d_model)
        for i in range(length - 1):
            changed = ids.clone()
            future = changed[:, i + 1 :]
            # a different real token at every real future position; pads stay pads
            new = (
                future + 1 + torch.randint(0, VOCAB_SIZE - 2, future.shape, generator=gen)
            ) % VOCAB_SIZE
            new = torch.where(new == pad_id, (new + 1) % VOCAB_SIZE, new)
            if keep_pads:
                new = torch.where(future == pad_id, future, new)
            changed[:, i + 1 :] = new
            new_mask = mask_for(changed)
            x = table[changed]  # (batch, len, d_model)
            out, _ = layer(x, x, x, new_mask)  # (batch, len, d_model)
            diff = (out[:, : i + 1] - base[:, : i + 1]).abs()
            if bool((diff > 1e-5).any()):
                b, j, _ = (int(x) for x in (diff > 1e-5).nonzero()[0])
                seq = f" of sequence {b}" if ids.shape[0] > 1 else ""
                c.fail(
                    f"{what}: with your mask, changing the tokens after position {i} changed "
                    f"the attention output at position {j}{seq} (by up to "
                    f"{float(diff[b, j].max()):.3g}). Position {j} can see the future: the mask "
                    f"must be False for every key after the query.{picture}"
                )
    c.ok()


# -------------------------------------------------------------- decoder_self_attention_mask
def _mask_maker(c: Checker, fn, pad_id: int, call_repr: str, shape: torch.Size):
    """ids -> the learner's mask for them (for the property checks on changed tokens)."""

    def mask_for(new_ids: torch.Tensor) -> torch.Tensor:
        mask = c.call(fn, new_ids, pad_id, call_repr=call_repr)
        if not isinstance(mask, torch.Tensor) or mask.shape != shape:
            c.fail(f"{call_repr} returned a different type or shape for other token ids.")
        return mask

    return mask_for


def _decoder_shape_hint(shape: tuple[int, ...], batch: int, length: int) -> str:
    if shape == (batch, length, length) and length > 1:
        return (
            "The head axis is missing. Scores are (batch, num_heads, len_q, len_k) and "
            "broadcasting aligns shapes from the right, so (batch, len, len) is read as "
            "(1, batch, len, len): your batch axis would line up with num_heads (an error, or, "
            "when batch == num_heads, silently the wrong sequence's padding). Keep the singleton "
            "head axis: (batch, 1, len, len)."
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
    return "The decoder mask is (batch, 1, len, len): padding mask & look-ahead mask."


def _decoder_mistakes(ids: torch.Tensor, pad_id: int) -> dict[str, torch.Tensor]:
    batch, length = ids.shape
    pad = ref.padding_mask(ids, pad_id)  # (batch, 1, 1, len)
    causal = ref.look_ahead_mask(length)  # (len, len)
    real = ids != pad_id  # (batch, len)
    full = (batch, 1, length, length)
    return {
        "You combined the masks with OR (|): then a query may attend wherever *either* mask "
        "allows it, so every real future token becomes visible. A key must pass *both* tests "
        "(not in the future AND not a pad): use &.": pad | causal,
        "Your mask blocks the rows of pad *queries*: the padding part sits on the query axis "
        "(len_q). Padding must hide pad *keys* (columns): (ids != pad_id)[:, None, None, :] & "
        "look_ahead_mask(len). Blocking the rows of pad queries also leaves them with no key at "
        "all (a fully masked row: NaN in a plain softmax, and that NaN spreads to every "
        "position in the next layer).": real[:, None, :, None] & causal,
        "Your mask is the look-ahead mask alone (broadcast to the batch): pad keys are still "
        "visible. Combine it with the padding mask using &.": causal.expand(full),
        "Your mask is the padding mask alone (broadcast over the queries): every query can "
        "see the future. Combine it with the look-ahead mask using &.": pad.expand(full),
        "Your mask is inverted: True where attention is blocked. In this course True means "
        "'may attend' (nn.MultiheadAttention's bool masks use the opposite polarity).": ~(
            pad & causal
        ),
        "The look-ahead part uses the upper triangle (torch.triu instead of torch.tril?): each "
        "query sees the future instead of the past.": pad & torch.triu(torch.ones_like(causal)),
        "The look-ahead part is inverted (True above the diagonal, the polarity of "
        "nn.Transformer.generate_square_subsequent_mask); here True means 'may attend'.": pad
        & ~causal,
        "Your mask hides the token id 0, but the pad id here is "
        f"{pad_id}: compare with the `pad_id` argument instead of a hard-coded 0.": (
            (ids != 0)[:, None, None, :] & causal if pad_id != 0 else None
        ),
        "The look-ahead part leaves out the diagonal (tril with diagonal=-1?): each position "
        "must be allowed to attend to itself, or position 0 has nothing to attend to.": pad
        & torch.tril(torch.ones_like(causal), diagonal=-1),
    }


def _first_decoder_difference(got, expected, ids, pad_id) -> str:
    b, _, i, j = (int(x) for x in (got != expected).nonzero()[0])
    if j > i:
        reason = f"key {j} comes after query {i} (the future)"
    elif int(ids[b, j]) == pad_id:
        reason = f"key {j} is a pad"
    else:
        reason = f"key {j} is a real token at or before query {i}"
    return (
        f"at sequence {b}, query {i}, key {j} your mask is {bool(got[b, 0, i, j])}, expected "
        f"{bool(expected[b, 0, i, j])}: {reason}"
    )


def check_decoder_self_attention_mask(decoder_self_attention_mask, *, hidden: bool = False) -> None:
    """decoder_self_attention_mask(tgt_ids (batch, len), pad_id) -> bool (batch, 1, len, len)."""
    with Checker("decoder_self_attention_mask", hidden=hidden) as c:
        c.require_callable(decoder_self_attention_mask)
        cases = _hidden_decoder_cases() if hidden else _visible_decoder_cases()
        for number, (ids, pad_id) in enumerate(cases):
            batch, length = ids.shape
            what = f"decoder_self_attention_mask(tgt_ids, pad_id={pad_id}) with tgt_ids = {_ids_repr(ids)}"
            call_repr = f"decoder_self_attention_mask(tgt_ids, {pad_id})"
            original = ids.clone()
            got = c.call(decoder_self_attention_mask, ids, pad_id, call_repr=call_repr)
            _expect_unchanged(c, ids, original, what)
            _expect_tensor(c, got, what)
            expected = ref.decoder_self_attention_mask(ids, pad_id)  # (batch, 1, len, len)
            c.expect_shape(
                got, expected.shape, what, _decoder_shape_hint(tuple(got.shape), batch, length)
            )
            _expect_bool(
                c, got, what, _FROM_COMPARISON,
                "To combine two bool masks use & (logical AND), not * or +.",
            )  # fmt: skip
            differs = (got != expected).flatten(1).any(dim=1)  # (batch,)
            shown = int(differs.nonzero()[0]) if bool(differs.any()) else 0
            picture = _side_by_side(got[shown, 0], expected[shown, 0]).replace(
                "(1 = may attend;", f"(sequence {shown}, ids {ids[shown].tolist()}; 1 = may attend;"
            )
            if not torch.equal(got, expected):
                _match_mistakes(c, got, what, _decoder_mistakes(ids, pad_id), picture)
            # Properties, with the reference attention and *your* mask.
            output, weights = _attention(got, batch, length, seed=8000 + 10 * number + hidden)
            _expect_pad_keys_ignored(c, weights, ids, pad_id, what)
            _expect_finite(c, output, what)
            real = ids != pad_id  # (batch, len)
            attends_self = got[:, 0].diagonal(dim1=-2, dim2=-1)  # (batch, len)
            blind = real & ~attends_self
            if bool(blind.any()):
                b, i = (int(x) for x in blind.nonzero()[0])
                c.fail(
                    f"{what}: the real token at position {i} of sequence {b} may not attend to "
                    f"itself. Every real query must at least see itself.{picture}"
                )
            c.ok()

            mask_for = _mask_maker(
                c, decoder_self_attention_mask, pad_id, call_repr, expected.shape
            )

            _expect_causal(
                c, mask_for, ids, length, 9000 + 10 * number + hidden, what, picture, pad_id
            )
            if not torch.equal(got, expected):
                c.fail(
                    f"{what}: {_first_decoder_difference(got, expected, ids, pad_id)}. The mask is "
                    f"padding_mask & look_ahead_mask.{picture}"
                )
            c.ok()


# ---------------------------------------------------------------------------- registry
LESSON = "06_masking"
EXERCISES = (
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
)
