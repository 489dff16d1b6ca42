"""Checks for lesson 12: the KV cache, generation with it, grouped-query attention, the
online softmax, tiled (flash-style) attention and the sliding-window mask.

Oracles: generation with a cache is compared with the reference generation *without*
one (the definition of a correct cache: the same tokens, the same logits to float
tolerance), on lesson 11's architecture: a ``CachedGPT`` (lesson 11's GPT with a
cache-aware forward, whose uncached forward is GPT.forward itself) with small random
weights, whose counter of processed positions shows whether the loop feeds one token
per step. Grouped-query attention is compared with lesson 04's
attention on heads repeated group-wise (tests/test_12_inference.py compares it with
``F.scaled_dot_product_attention(..., enable_gqa=True)``); the online softmax with
``torch.softmax``; tiled attention with lesson 04's attention (and, in the tests, with
PyTorch's); the sliding-window mask with its definition (j <= i and i - j < window).

Decided per case: any float dtype for results (a note when it differs), any way of
computing (a growing cache made with torch.cat passes as well as preallocated buffers;
a prefill token by token passes; feeding the last generated token too passes), and any
exception type when a cache overflows. The mask is bool, True = may attend (lesson 06).
"""

from __future__ import annotations

import math
import re

import torch

from transformer_course.checking import Checker, short, tolerance, torch_generator
from transformer_course.checking.hints import shape_mismatch_hint
from transformer_course.checking.inputs import randn
from transformer_course.checking.objects import course_object
from transformer_course.checking.oracles import (
    online_softmax_f,
    scaled_dot_product_attention_f,
    tiled_attention_f,
)
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.exercise import Exercise
from transformer_course.reference import inference as ref
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.masking import look_ahead_mask

# check functions, and the cases, models and expected values they run (public, so that
# the lesson's tests can prove what the checks rely on)
__all__ = [
    "cached_generation",
    "check_KVCache",
    "check_generate",
    "check_grouped_query_attention",
    "check_online_softmax",
    "check_quiz_cache_memory",
    "check_sliding_window_mask",
    "check_tiled_attention",
    "gqa_expected",
]


def _expect_tensor(c: Checker, got, what: str) -> None:
    c.expect_type(got, torch.Tensor, what, "Return a torch.Tensor.")


# =============================================================================== KVCache
_VISIBLE_CACHE = [  # (batch, num_heads, max_len, d_head, chunk sizes, dtype)
    (2, 2, 8, 4, (3, 1, 1, 2), torch.float32),
    (1, 3, 4, 2, (1, 1, 1, 1), torch.float32),
    (2, 1, 5, 3, (2, 3), torch.float64),  # the dtype argument is used
]
_HIDDEN_CACHE = [
    (3, 4, 10, 4, (5, 1, 2, 1, 1), torch.float32),
    (2, 1, 6, 8, (2, 2, 2), torch.float64),
    (4, 2, 3, 3, (3,), torch.float32),
]

_BEFORE_APPENDING = (
    "It returned what the cache held *before* this call: the new positions are missing. The "
    "attention reads what the cache returns, so a new token could not attend to itself (nor "
    "the prompt's last token to the rest of the prompt). Write the new keys and values first, "
    "then return everything stored, the new positions included."
)
_CACHE_SHAPES = [
    shape_mismatch_hint(
        ("batch", "num_heads", "positions", "d_head"),
        "The buffers are (batch, num_heads, max_len, d_head), one slot per sequence of the "
        "batch; k_new and v_new are (batch, num_heads, n, d_head). Write them at "
        "[:, :, length : length + n] (positions are axis 2, dim=-2), or, in a cache that "
        "grows, torch.cat along dim=-2.",
    )
]
_GQA_SHAPES = [
    shape_mismatch_hint(
        ("batch", "heads", "positions", "features"),
        "q is (batch, num_heads, len_q, d_head); k and v are (batch, num_kv_heads, len_k, ·). "
        "Repeat each key/value head group = num_heads // num_kv_heads times along the head "
        "axis (dim=1): k.repeat_interleave(group, dim=1), so that query head h meets "
        "key/value head h // group.",
    ),
    (
        "repeat_interleave() received an invalid combination of arguments - got (float",
        "The number of repeats is a float: the group size is an int, num_heads // "
        "num_kv_heads (floor division, //), not num_heads / num_kv_heads.",
    ),
]
_ONLY_NEW = (
    "It returned only the new positions. The cache exists to give the new queries the keys "
    "and values of *every* earlier position: return all positions stored so far."
)


def _written_at(got_k, k_new, length: int) -> int | None:
    """The first position at which the keys returned hold k_new's n rows, when that is not
    ``length`` (where they belong); None when they are nowhere or where they belong."""
    n, stored = k_new.shape[-2], got_k.shape[-2]
    for start in range(0, stored - n + 1):
        if start != length and torch.equal(got_k[:, :, start : start + n], k_new):
            return start
    return None


def _explain_cache(got_k, got_v, expected_k, expected_v, batch: int, k_new=None, length=0) -> str:
    """Why the keys differ, in terms of a cache's classic mistakes ("" when none fits):
    named before any re-arrangement of the values is (a write one position too far is
    also a shift, but the zeros left behind say where it went wrong)."""
    if torch.allclose(got_k.double(), expected_v.double()) and torch.allclose(
        got_v.double(), expected_k.double()
    ):
        return "Keys and values are swapped."
    if k_new is not None and length > 0:
        start = _written_at(got_k, k_new, length)
        if start is not None:
            n = k_new.shape[-2]
            where = (
                "over the first positions, as if nothing were stored yet"
                if start == 0
                else f"{start - length:+d} from where they belong"
            )
            return (
                f"The {n} new position(s) were written at [{start}, {start + n}), {where}: "
                f"{length} positions were already stored, so they go to [{length}, "
                f"{length + n}) (self.length, the number stored so far, is the write position)."
            )
    zero_rows = (got_k == 0).all(dim=-1).all(dim=1).any(dim=0)  # (length,)
    if bool(zero_rows.any()) and not bool((expected_k == 0).all(dim=-1).all(dim=1).any()):
        p = int(zero_rows.nonzero()[0])
        return (
            f"Position {p} holds zeros: nothing was written there. Is the write position off "
            "by one (the new positions go to [length, length + n), where length is the "
            "number already stored)?"
        )
    if batch > 1 and torch.allclose(got_k.double(), expected_k[:1].expand_as(expected_k).double()):
        return (
            "Every sequence of the batch got the keys of sequence 0: the cache is shared across "
            "the batch. Each sequence needs its own slot: buffers (batch, num_heads, max_len, "
            "d_head), written with all of k_new's batch rows."
        )
    return ""


def _fits_hint(stored: int, max_len: int):
    """A ValueError from a call whose positions fit: the learner's own overflow test is
    wrong (the check never asks for more than max_len positions)."""

    def raised_on_fit(exc: BaseException) -> bool:
        return isinstance(exc, ValueError) and "unpack" not in str(exc)

    full = (
        f" This call fills the cache exactly ({stored} = max_len): is your test "
        "stop >= max_len where it should be stop > max_len?"
        if stored == max_len
        else ""
    )
    return (
        raised_on_fit,
        f"The {stored} positions stored after this call fit in max_len={max_len}: raise "
        f"ValueError only when more than max_len positions would be stored.{full}",
    )


_CACHE_RULE = "Each call must store k_new and v_new after the positions already held, in order."
_AXIS_NAMES = ("batch", "num_heads", "n", "d_head")


def _other_axes(size: int, shape: tuple[int, ...]) -> str:
    """Which axes of k_new other than the positions' (axis 2) have ``size``: "k_new.shape[1]
    (num_heads)", several joined with "or", or "" when none has it."""
    axes = [
        f"k_new.shape[{axis}] ({_AXIS_NAMES[axis]})"
        for axis in (0, 1, 3)
        if axis < len(shape) and shape[axis] == size
    ]
    return " or ".join(axes)


def _slot_hint(shape: tuple[int, ...], length: int):
    """A write into a slot of the wrong length: say what the slot's length equals (n - 1 or
    n + 1: off by one; the size of another axis of k_new: stop computed from that axis),
    every candidate that fits."""
    sizes = re.compile(
        r"expanded size of the tensor \((\d+)\) must match the existing size \((\d+)\)"
    )

    def hint(exc: BaseException) -> str:
        found = sizes.search(str(exc))
        if not found or len(shape) != 4:
            return ""
        slot, n = int(found[1]), int(found[2])
        if n != shape[2] or slot == n:
            return ""
        axes = _other_axes(slot, shape)
        off = {n - 1: "n - 1 (one too few)", n + 1: "n + 1 (one too many)"}.get(slot, "")
        if not axes and not off:
            return ""
        which = " or ".join(cause for cause in (off, axes) if cause)
        question = " or ".join(
            q for q, found in (("computed from another axis", axes), ("off by one", off)) if found
        )
        return (
            f"The slot you wrote k_new into holds {slot} positions, but k_new has n = {n} "
            f"new ones (k_new.shape[2], dim=-2); {slot} is {which}. Is stop = length + n "
            f"{question}? The new positions go to [length, length + n) = [{length}, "
            f"{length + n}): stop = self.length + k_new.shape[-2]."
        )

    return (RuntimeError, hint)


def check_KVCache(cls, *, hidden: bool = False) -> None:
    """KVCache(batch, num_heads, max_len, d_head, dtype); forward(k_new, v_new) appends the
    new positions and returns (keys, values), all positions so far."""
    with Checker("KVCache", hidden=hidden) as c:
        c.require_callable(cls)
        cases = _HIDDEN_CACHE if hidden else _VISIBLE_CACHE
        for number, (batch, heads, max_len, d_head, chunks, dtype) in enumerate(cases):
            built = f"KVCache({batch}, {heads}, {max_len}, {d_head}, dtype={dtype})"
            cache = c.call(cls, batch, heads, max_len, d_head, dtype, call_repr=built)
            c.expect_type(
                cache,
                torch.nn.Module,
                built,
                "Make KVCache a subclass of nn.Module and call super().__init__() first.",
            )
            # Preallocated buffers (max_len positions) must stay out of the state dict; an
            # empty growing buffer (0 positions, Hugging Face's style) costs nothing there.
            parameters = [name for name, _ in cache.named_parameters()]
            c.expect_true(
                not parameters,
                f"{built} has parameters {parameters}: the keys and values were made "
                "nn.Parameter, but they are state that each call writes, not weights to train. "
                "A Parameter requires grad (so writing into it in place fails outside "
                "torch.no_grad), is saved in the state dict and would be trained by the "
                'optimizer: register them with self.register_buffer("keys", torch.zeros(shape, '
                "dtype=dtype), persistent=False) (and the same for values).",
            )
            saved = [
                key
                for key, value in cache.state_dict().items()
                if isinstance(value, torch.Tensor) and value.dim() >= 3 and value.shape[-2] > 0
            ]
            c.expect_true(
                not saved,
                f"{built}.state_dict() holds {saved}: register the buffers with "
                "persistent=False. A cache is scratch space for one generation; persistent "
                "buffers would be saved with (and loaded into) the model's weights.",
            )
            for name in ("keys", "values"):
                buffer = getattr(cache, name, None)
                if isinstance(buffer, torch.Tensor) and buffer.dtype != dtype:
                    c.fail(
                        f"{built}: the buffer {name} has dtype {buffer.dtype}, not {dtype}: "
                        "allocate the buffers with dtype=dtype (torch.zeros(shape, "
                        "dtype=dtype)); the dtype argument is the model's."
                    )
            seed = 1200 + 10 * number + 100 * hidden
            all_k = randn((batch, heads, sum(chunks), d_head), seed, dtype=dtype)
            all_v = randn((batch, heads, sum(chunks), d_head), seed + 1, dtype=dtype)
            length = 0
            for n in chunks:
                k_new = all_k[:, :, length : length + n].clone()
                v_new = all_v[:, :, length : length + n].clone()
                call = f"{built} after {length} positions, called with {n} new"
                got = c.call(
                    cache,
                    k_new,
                    v_new,
                    call_repr=f"cache(k_new, v_new) ({call})",
                    mutation_hint="Copy k_new and v_new into the buffers; do not change them.",
                    hints=[
                        _slot_hint(tuple(k_new.shape), length),
                        *_CACHE_SHAPES,
                        _fits_hint(length + n, max_len),
                    ],
                )
                c.expect_type(got, tuple, f"{call}: the result", "Return a tuple (keys, values).")
                c.expect_true(
                    len(got) == 2,
                    f"{call}: the result has {len(got)} items; return (keys, values).",
                )
                got_k, got_v = got
                _expect_tensor(c, got_k, f"{call}: keys")
                _expect_tensor(c, got_v, f"{call}: values")
                stored = length + n
                counter = getattr(cache, "length", None)
                if isinstance(counter, int) and not isinstance(counter, bool) and counter != stored:
                    never = counter == 0 or (counter == n and length > 0)
                    step = counter - length
                    axes = _other_axes(step, tuple(k_new.shape))
                    if not never and step != n and axes:
                        # on this one call an off-by-one can give the same count: say both
                        off = {n - 1: "n - 1, one too few", n + 1: "n + 1, one too many"}
                        which = " or ".join(
                            ([f"{off[step]} (an off-by-one)"] if step in off else []) + [axes]
                        )
                        c.fail(
                            f"{call}: self.length is {counter} afterwards, but the cache now "
                            f"holds {stored} positions: it advanced by {step}, which is "
                            f"{which}, instead of by n = {n}, the new positions "
                            "(k_new.shape[-2], axis 2). Set self.length = length + "
                            "k_new.shape[-2]."
                        )
                    c.fail(
                        f"{call}: self.length is {counter} afterwards, but the cache now holds "
                        f"{stored} positions. "
                        + (
                            "self.length never advances, so every chunk is written at the "
                            "same place (position 0) and overwrites the one before. "
                            if never
                            else "It counts the stored positions wrongly, so the next chunk "
                            "is written over (or after a gap from) the last ones. "
                        )
                        + "After writing n new positions at [length, length + n), set "
                        "self.length = length + n."
                    )
                for tensor, what in ((got_k, "keys"), (got_v, "values")):
                    found = tuple(tensor.shape)
                    hint = ""
                    if found[:2] == (batch, heads) and found[3:] == (d_head,):
                        if found[2] == length:  # on the first call: nothing (0 positions)
                            hint = _BEFORE_APPENDING
                        elif found[2] == n and length > 0:
                            hint = _ONLY_NEW
                        elif found[2] == max_len:
                            hint = (
                                "It returned the whole buffer, unused positions included: "
                                "attention would read zeros there. Return [:, :, :length]."
                            )
                    c.expect_shape(tensor, (batch, heads, stored, d_head), f"{call}: {what}", hint)
                    c.expect_floating(tensor, f"{call}: {what}", preferred=dtype)
                expected_k = all_k[:, :, :stored]
                expected_v = all_v[:, :, :stored]
                for tensor, expected, what in (
                    (got_k, expected_k, "keys"),
                    (got_v, expected_v, "values"),
                ):
                    c.expect_close(
                        tensor,
                        expected,
                        f"{call}: {what}",
                        **tolerance(tensor.dtype, dtype),
                        explain=lambda gk=got_k, gv=got_v, ek=expected_k, ev=expected_v, b=batch, kn=k_new, at=length: (
                            _explain_cache(gk, gv, ek, ev, b, kn, at)
                        ),
                        hint=_CACHE_RULE,
                    )
                length = stored
            # Full: one more position must raise, not silently drop or overwrite.
            if length == max_len:
                extra = randn((batch, heads, 1, d_head), seed + 2, dtype=dtype)
                try:
                    c.call(cache, extra, extra.clone(), call_repr="cache(k_new, v_new)")
                except Exception:  # any error is fine: the cache refused
                    c.ok()
                else:
                    c.fail(
                        f"{built} already held {max_len} positions, and storing one more did not "
                        "raise an error. The cache must refuse (raise ValueError) instead of "
                        "silently dropping or overwriting positions."
                    )
        # Two caches must not share storage.
        first = c.call(cls, 1, 1, 4, 2, torch.float32, call_repr="KVCache(1, 1, 4, 2)")
        second = c.call(cls, 1, 1, 4, 2, torch.float32, call_repr="KVCache(1, 1, 4, 2)")
        c.call(first, torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2), call_repr="first(k, v)")
        got = c.call(
            second, torch.zeros(1, 1, 1, 2), torch.zeros(1, 1, 1, 2), call_repr="second(k, v)"
        )
        c.expect_true(
            isinstance(got, tuple) and len(got) == 2 and tuple(got[0].shape) == (1, 1, 1, 2),
            "A second KVCache, fresh, returned "
            f"{short(got[0]) if isinstance(got, tuple) and got else short(got)} after one "
            "call with one position: it saw the first cache's positions. Each instance needs "
            "its own buffers and its own length (made in __init__ with self.; not class "
            "attributes or module-level lists).",
        )


# ============================================================================== generate
_VISIBLE_GENERATE = [  # (seed, batch, prompt length, new tokens, model sizes)
    (11, 2, 5, 6, {}),
    (12, 1, 1, 4, {}),
    (13, 3, 3, 1, {}),
]
_HIDDEN_GENERATE = [
    (21, 2, 7, 9, {"d_model": 48, "num_heads": 2, "num_layers": 3, "vocab_size": 40}),
    (22, 4, 2, 5, {}),
    (23, 1, 6, 3, {"num_heads": 8}),
]


def _model(seed: int, sizes: dict):
    return course_object(ref.make_cached_gpt, seed, **sizes)


@torch.no_grad()
def cached_generation(
    model,
    prompt: torch.Tensor,
    max_new_tokens: int,
    *,
    caches=None,
    offset: int = 0,
    fixed_start: int | None = None,
    last_row: bool | int = True,
    shared: bool = False,
    token_by_token: bool = False,
    feed_last: bool = False,
    prompt_room: bool = True,
):
    """Greedy generation with a cache: right with the defaults. The knobs are classic
    mistakes (positions off by ``offset``, ``fixed_start`` for every step, the prefill's
    first row instead of its last, or row ``last_row`` when an int, the batch's sequences one by one through one
    ``shared`` set of caches) or correct variants (a prefill ``token_by_token``,
    ``feed_last``: the last chosen token fed too; ``prompt_room`` False: caches with no
    room for the prompt, a mistake)."""
    batch, length = prompt.shape
    if shared:
        caches = model.new_caches(1, batch * (length + max_new_tokens))
        rows = [
            cached_generation(model, row[None], max_new_tokens, caches=caches) for row in prompt
        ]
        return torch.cat([r[0] for r in rows]), torch.cat([r[1] for r in rows])
    if caches is None:
        caches = model.new_caches(batch, length * prompt_room + max_new_tokens + feed_last)
    if token_by_token:
        for position in range(length):
            logits = model(prompt[:, position : position + 1], caches=caches, start=position)
    else:
        logits = model(prompt, caches=caches, start=0)  # (batch, len, vocab)
    row = last_row if not isinstance(last_row, bool) else -1 if last_row else 0
    logits = logits[:, row]  # (batch, vocab)
    ids, steps = prompt, []
    for step in range(max_new_tokens):
        steps.append(logits)
        next_id = logits.argmax(dim=-1, keepdim=True)  # (batch, 1)
        ids = torch.cat([ids, next_id], dim=1)
        if step + 1 < max_new_tokens or feed_last:
            start = length + step + offset if fixed_start is None else fixed_start
            logits = model(next_id, caches=caches, start=start)[:, -1]
    return ids, torch.stack(steps, dim=1)


def _generate_mistakes(seed, sizes, prompt, new) -> dict[str, object]:
    def variant(**knobs):
        return lambda: cached_generation(ref.make_cached_gpt(seed, **sizes), prompt, new, **knobs)[
            1
        ]

    length = prompt.shape[1]
    rows = {
        f"The first new token was chosen from the prefill's row {row} (of rows 0 .. "
        f"{length - 1}: logits[:, {row - length}], the prediction after prompt position "
        f"{row}): the token after the prompt is predicted by its last position, "
        "logits[:, -1].": variant(last_row=row)
        for row in range(1, length - 1)
    }
    return {
        **rows,
        "The logits of the steps after the prefill are those of tokens one position too far "
        "(start = len + t + 1): RoPE rotates each query and key by its absolute position, "
        "and the token chosen at step t sits at position len + t (count from 0).": variant(
            offset=1
        ),
        "The logits of the steps after the prefill are those of tokens one position too "
        "early (start = len + t - 1): the token chosen at step t sits at position len + t, "
        "right after the prompt's last position len - 1.": variant(offset=-1),
        "Every new token was fed with start=0: RoPE then rotates it as if it were the first "
        "token. Pass its absolute position, start = len + t.": variant(fixed_start=0),
        "The first new token was chosen from the prefill's *first* row: the next token after "
        "the prompt is predicted by the last position, logits[:, -1].": variant(last_row=False),
        "The sequences of the batch were generated one after another through one shared set "
        "of caches, so each later sequence attended to the earlier ones' keys. Give each run "
        "its own caches (one set for the whole batch: model.new_caches(batch, ...)).": variant(
            shared=True
        ),
    }


class _CallTrace:
    """Records every call of the model during the learner's generate: the ids' shape, the
    ``start``, which caches (by identity) and how many positions each held before the call.
    A forward pre-hook: the learner's code runs exactly as it would without it."""

    def __init__(self, model):
        self.calls: list[dict] = []
        self._handle = model.register_forward_pre_hook(self._record, with_kwargs=True)

    def _record(self, module, args, kwargs):
        names = ("ids", "caches", "start")
        bound = dict(zip(names, args, strict=False)) | {
            k: v for k, v in kwargs.items() if k in names
        }
        caches = bound.get("caches")
        ids = bound.get("ids")
        self.calls.append(
            {
                "shape": tuple(ids.shape) if isinstance(ids, torch.Tensor) else None,
                "start": bound.get("start", 0),
                # the objects themselves (kept alive while the check runs): an id() of a
                # cache the learner dropped may be reused by the next one
                "caches": None if caches is None else list(caches),
                "held": None
                if caches is None
                else [getattr(cache, "length", None) for cache in caches],
            }
        )

    def remove(self) -> None:
        self._handle.remove()


def _refed(calls: list[dict], length: int) -> str:
    """The first call after the whole prompt is in the caches that feeds more than one
    position (the sequence so far fed again), named; "" when none does."""
    for number, call in enumerate(calls):
        held = call["held"][0] if call["held"] else None
        n = call["shape"][1] if call["shape"] and len(call["shape"]) == 2 else None
        if number == 0 or not isinstance(held, int) or held < length or not n or n < 2:
            continue
        what = (
            f"the whole sequence so far ({n} positions, start={call['start']})"
            if n == held + 1
            else f"{n} positions at once (start={call['start']})"
        )
        return (
            f"Call {number + 1} of the model fed {what}, although the caches already held "
            f"{held} positions, the prompt's {length} included: the caches store every "
            "position fed, so the earlier positions were stored a second time. After the "
            "prefill, feed only the newest token, ids of shape (batch, 1), with start = its "
            "position (the number of positions the caches hold)."
        )
    return ""


def _room(calls: list[dict]) -> int | None:
    """How many positions the caches of the last call can hold (the reference KVCache's
    max_len), or None when that cannot be read."""
    caches = calls[-1]["caches"] if calls else None
    keys = getattr(caches[0], "keys", None) if caches else None
    return keys.shape[-2] if isinstance(keys, torch.Tensor) and keys.dim() == 4 else None


def _cache_overflow_hint(calls: list[dict], length: int, new: int) -> str:
    """Why the reference KVCache refused to store more positions: the loop fed positions a
    second time (when the caches had room for len + max_new_tokens), or the caches were
    made too small."""
    room = _room(calls)
    if room is not None and room >= length + new:
        refed = _refed(calls, length)
        if refed:
            return (
                f"The caches had room for {room} positions (len + max_new_tokens = "
                f"{length + new}: enough), but your loop fed more positions than that. {refed}"
            )
    return _CACHE_TOO_SMALL


def _diagnose_calls(calls: list[dict], length: int) -> str:
    """The first call of the model that departs from generation with a cache (the prompt
    with fresh caches at start 0, or token by token; then each new token with the same
    caches and start = the number of positions they hold), named; "" when none does."""
    seen: list = []  # every cache object the earlier calls used
    position = 0  # positions fed through the caches so far
    for number, call in enumerate(calls):
        which = (
            "the prompt's call (the prefill)"
            if number == 0
            else f"call {number + 1} of the model (the token at position {position})"
        )
        n = call["shape"][1] if call["shape"] and len(call["shape"]) == 2 else None
        if call["caches"] is None:
            if number == 0:
                return (
                    "The prompt ran through the model without the caches (caches=None): they "
                    "stay empty, so the new tokens attend to nothing of the prompt. Pass the "
                    "caches to the prefill call too: model(prompt, caches=caches, start=0)."
                )
            return (
                f"{which.capitalize()} ran without the caches (caches=None): a new token "
                "must go through the same caches as the prompt, with start = its position."
            )
        fresh = not any(cache is old for cache in call["caches"] for old in seen)
        if number > 0 and fresh:
            return (
                f"{which.capitalize()} got new, empty caches instead of the ones the earlier "
                "calls filled: the caches are made anew at every step, so each new token "
                "attends to itself only. Make them once, before the prefill "
                "(model.new_caches(batch, len + max_new_tokens)), and pass the same list to "
                "every call."
            )
        held = call["held"][0] if call["held"] else None
        if number > 0 and isinstance(held, int) and held >= length and n and n > 1:
            return _refed(calls, length)
        if number == 0 and held == 0 and isinstance(call["start"], int) and call["start"] > 0:
            return (
                f"The first call of the model ran {n if n is not None else 'the'} token(s) "
                f"from position {call['start']} into empty caches: positions 0 .. "
                f"{call['start'] - 1} of the prompt never ran, so the caches never hold them "
                "and the new tokens cannot attend to them. Run the whole prompt first, "
                "model(prompt, caches=caches, start=0) (or token by token from position 0)."
            )
        if isinstance(held, int) and call["start"] != held:
            if number > 0 and call["start"] == calls[number - 1]["start"]:
                return (
                    f"{which.capitalize()} ran with start={call['start']}, the same start as "
                    f"the call before: start never advances. The caches held {held} positions, "
                    f"so this token sits at position {held}: pass start={held} (len + t)."
                )
            return (
                f"{which.capitalize()} ran with start={call['start']}, but the caches held "
                f"{held} positions, so its first token sits at position {held}: start is the "
                "absolute position of ids[:, 0] (len + t for the token chosen at step t), "
                "which RoPE rotates by."
            )
        seen.extend(call["caches"])
        position = (held if isinstance(held, int) else position) + (n or 0)
    return ""


def _shifted_logits(got: torch.Tensor, expected: torch.Tensor) -> str:
    """Whether the learner's logits are the reference's one step late or early."""
    new = expected.shape[1]
    if new < 2:
        return ""
    got, expected = got.detach().double(), expected.double()
    late = torch.allclose(got[:, :-1], expected[:, 1:], rtol=1e-4, atol=1e-4)
    early = torch.allclose(got[:, 1:], expected[:, :-1], rtol=1e-4, atol=1e-4)
    if late:
        return (
            "Your logits are recorded one step late: logits[:, t] holds the logits computed "
            "after token t was appended (those that chose token t + 1). Record each step's "
            "logits before running the model on the token they chose."
        )
    if early:
        return (
            "Your logits are recorded one step early: logits[:, t] holds the logits that chose "
            "token t - 1."
        )
    return ""


def _first_wrong_step(got: torch.Tensor, expected: torch.Tensor, length: int) -> str:
    wrong = ~torch.isclose(got.detach().double(), expected.double(), rtol=1e-4, atol=1e-4)
    steps = wrong.flatten(2).any(-1).any(0).nonzero().flatten().tolist()
    if not steps:
        return ""
    t = steps[0]
    where = "the prefill's last position" if t == 0 else f"the token at position {length + t - 1}"
    return f"The logits first differ at step {t} (those computed from {where})."


def _stale_logits(got: torch.Tensor, expected: torch.Tensor, calls: list[dict]) -> str:
    """Whether the first wrong step's logits repeat the step before's (the model was not
    run on the token chosen at the step before)."""
    got, expected = got.detach().double(), expected.double()
    close = lambda a, b: torch.allclose(a, b, rtol=1e-4, atol=1e-4)  # noqa: E731
    for t in range(1, expected.shape[1]):
        if close(got[:, t], expected[:, t]):
            continue
        if close(got[:, t], got[:, t - 1]) and not close(expected[:, t], expected[:, t - 1]):
            return (
                f"Your logits at step {t} repeat those of step {t - 1}: the model was not run "
                f"on the token chosen at step {t - 1} before step {t} recorded its logits "
                f"(your function called the model {len(calls)} times; with a cache it runs "
                f"the prompt once, then each new token but the last: {expected.shape[1]} "
                "calls)."
            )
        return ""
    return ""


def _explain_generation(got, expected, calls, length: int) -> str:
    """The first wrong step, and the first call of the model that departs from generation
    with a cache (or logits recorded a step off, or a step's logits repeating the step
    before's); when none explains it, the first wrong step alone."""
    cause = (
        _diagnose_calls(calls, length)
        or _shifted_logits(got, expected)
        or _stale_logits(got, expected, calls)
    )
    first = _first_wrong_step(got, expected, length)
    if cause:
        return f"{first} {cause}".strip()
    return (
        f"{first} The logits must be those of generation without a cache "
        "(ref.generate_without_cache): check what that step fed to the model."
        if first
        else ""
    )


_CACHE_TOO_SMALL = (
    "The caches are too small for the positions your loop feeds: the reference KVCache "
    "refuses to store more than the max_len it was made with. Every position fed to the "
    "model is stored, the prompt's and each new token's: make them with "
    "model.new_caches(batch, len + max_new_tokens)."
)
_GENERATE_HINTS = [  # the first entry is replaced by _cache_overflow_hint in check_generate
    ("the cache holds", _CACHE_TOO_SMALL),
    (
        "Tensors must have same number of dimensions",
        "torch.cat met tensors with different numbers of axes: ids are (batch, len), so the "
        "tokens appended at each step must be a column (batch, 1): "
        "logits.argmax(dim=-1, keepdim=True) (an argmax without keepdim=True gives (batch,); "
        "or next_id[:, None]).",
    ),
    (
        "Dimension size must be non-negative",
        "The caches were made with a negative size: model.new_caches(batch, max_len) needs "
        "max_len = the positions they will hold, len + max_new_tokens.",
    ),
    shape_mismatch_hint(
        ("batch", "positions"),
        "ids are (batch, len): each step appends one token per row, "
        "logits.argmax(dim=-1, keepdim=True), of shape (batch, 1), along dim=1; an argmax "
        "over another axis than the vocabulary (the last) gives a tensor of another shape. "
        "The caches hold one slot per sequence: model.new_caches(batch, len + "
        "max_new_tokens) with the prompt's batch.",
    ),
]


_RECORDED_PROBS = (
    "Your logits are probabilities: each row is the softmax of the right logits (it sums to "
    "1). Record the model's output itself, logits[:, t] before any softmax; the argmax, "
    "and so the tokens, are the same either way."
)
_RECORDED_LOG_PROBS = (
    "Your logits are log-probabilities: each row is the right logits minus one constant "
    "(log_softmax). Record the model's output itself, before any normalisation."
)


def _expect_greedy_choices(c: Checker, ids, logits, expected_logits, length: int, call: str):
    """Each appended token is the argmax of the logits recorded for its step: the first
    step where it is not, while the logits up to that step are right, is named (a token
    drawn by sampling, or chosen from another row or axis)."""
    chosen = ids[:, length:].long()
    greedy = logits.detach().argmax(dim=-1)
    steps = (chosen != greedy).any(dim=0).nonzero().flatten().tolist()
    if not steps:
        return
    t = steps[0]
    right = torch.allclose(
        logits[:, : t + 1].detach().double(), expected_logits[:, : t + 1].double(), 1e-4, 1e-4
    )
    if right:
        c.fail(
            f"{call}: the logits up to step {t} are right, but the token appended at step {t} "
            f"(ids[:, len + {t}]) is not the argmax of that step's logits in every row: greedy "
            "generation appends logits.argmax(dim=-1, keepdim=True), no sampling (no "
            "torch.multinomial, no temperature), and every later step depends on that token."
        )


def check_generate(generate, *, hidden: bool = False) -> None:
    """generate(model, prompt, max_new_tokens) -> (ids, logits), equal to
    generate_without_cache, running each position through the model once."""
    with Checker("generate", hidden=hidden) as c:
        c.require_callable(generate)
        for seed, batch, length, new, sizes in _HIDDEN_GENERATE if hidden else _VISIBLE_GENERATE:
            seed = seed + 1000 * hidden
            model = _model(seed, sizes)
            vocab = model.embedding.num_embeddings
            prompt = torch.randint(0, vocab, (batch, length), generator=torch_generator(seed))
            call = f"generate(model, prompt ({batch}, {length}), {new})"
            trace = _CallTrace(model)
            row_column = (
                lambda exc, b=batch: (
                    b > 1
                    and "must match except in dimension 1" in str(exc)
                    and f"Expected size {b} but got size 1" in str(exc)
                ),
                f"The new tokens you appended have 1 row, not batch = {batch}: either a "
                "(1, batch) tensor, as .unsqueeze(0), .view(1, -1) or [None] make from the "
                "argmax's (batch,) (right only for a batch of one sequence), or an argmax over "
                "the batch axis (dim=0, keepdim=True), which is (1, vocab). Make it a column, "
                "(batch, 1): logits.argmax(dim=-1, keepdim=True) (or [:, None]).",
            )
            overflow = (
                "the cache holds",
                lambda _exc, calls=trace.calls, n=length, m=new: _cache_overflow_hint(calls, n, m),
            )
            try:
                got = c.call(
                    generate,
                    model,
                    prompt,
                    new,
                    call_repr=call,
                    hints=[row_column, overflow, *_GENERATE_HINTS[1:]],
                )
            finally:
                trace.remove()
            expected_ids, expected_logits = ref.generate_without_cache(
                ref.make_cached_gpt(seed, **sizes), prompt, new
            )
            c.expect_type(got, tuple, call, "Return a tuple (ids, logits).")
            c.expect_true(len(got) == 2, f"{call} returned {len(got)} items; return (ids, logits).")
            ids, logits = got
            _expect_tensor(c, ids, f"{call}: ids")
            _expect_tensor(c, logits, f"{call}: logits")
            c.expect_shape(
                ids,
                (batch, length + new),
                f"{call}: ids",
                "ids are the prompt followed by the new tokens.",
            )
            c.expect_integer_dtype(ids, f"{call}: ids")
            c.expect_shape(
                logits,
                (batch, new, vocab),
                f"{call}: logits",
                "One row of logits per generated token: logits[:, t] chose ids[:, len + t].",
            )
            c.expect_floating(logits, f"{call}: logits", preferred=torch.float32)
            c.expect_equal(
                ids[:, :length], prompt, f"{call}: ids[:, :len]", "The ids start with the prompt."
            )
            _expect_greedy_choices(c, ids, logits, expected_logits, length, call)
            c.expect_close(
                logits,
                expected_logits,
                f"{call}: logits",
                rtol=1e-4,
                atol=1e-4,
                mistakes={
                    **_generate_mistakes(seed, sizes, prompt, new),
                    _RECORDED_PROBS: expected_logits.softmax(dim=-1),
                    _RECORDED_LOG_PROBS: expected_logits.log_softmax(dim=-1),
                },
                explain=lambda got=logits, want=expected_logits, calls=trace.calls, n=length: (
                    _explain_generation(got, want, calls, n)
                ),
                hint="The logits must be those of generation without a cache "
                "(ref.generate_without_cache).",
            )
            c.expect_equal(
                ids,
                expected_ids,
                f"{call}: ids",
                "The logits are right but the tokens are not: each token is the argmax of its "
                "row of logits, appended in order.",
            )
            ran = int(model.state_dict()["positions_processed"])
            once = batch * (length + new - 1)
            uncached = batch * sum(length + t for t in range(new))
            if ran not in (once, once + batch):
                why = (
                    "that is generation without a cache: the whole sequence at every step."
                    if ran >= uncached and new > 1
                    else "each position should run once: the prompt, then one token per step."
                )
                c.fail(
                    f"{call} ran {ran} token positions through the model; with a cache it runs "
                    f"{once} ({batch} x ({length} + {new} - 1)). The results are right, but "
                    f"{why} Feed the prompt once (with the caches), then only the newest token "
                    "with start = its position."
                )
            c.ok()


# =============================================================== grouped_query_attention
def gqa_expected(q, k, v, mask, *, tile: bool = False, scale: float | None = None):
    """Grouped-query attention by the reference: each of k's and v's num_kv_heads heads
    (dim 1) repeated for its group of num_heads / num_kv_heads query heads, then
    scaled_dot_product_attention. ``tile``: the heads repeated as a whole block
    (``repeat``) instead of each in place (``repeat_interleave``), a classic mistake;
    ``scale``: the scores scaled by ``scale`` instead of 1 / sqrt(d_head)."""
    group = q.shape[1] // k.shape[1]
    if tile:
        k, v = k.repeat(1, group, 1, 1), v.repeat(1, group, 1, 1)
    else:
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    if scale is not None:
        q = q * scale * math.sqrt(q.shape[-1])
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    return output


def _gqa_query_softmax(q, k, v, mask):
    """The softmax taken over the queries (dim=-2) instead of the keys."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, dim=-2)) @ v.double()


def _gqa_cases(hidden: bool):
    def case(seed, batch, heads, kv, len_q, len_k, d, d_v=None, mask=None):
        q = randn((batch, heads, len_q, d), seed)
        k = randn((batch, kv, len_k, d), seed + 1)
        v = randn((batch, kv, len_k, d_v or d), seed + 2)
        return q, k, v, mask

    causal = look_ahead_mask(5)  # (len, len)
    padding = torch.tensor([[True] * 6, [True, True, True, True, False, False]])[:, None, None]
    if not hidden:
        return [
            case(1201, 2, 4, 2, 3, 5, 4, d_v=6),  # values of another width than the keys
            case(1202, 1, 4, 1, 5, 5, 4, mask=causal),  # multi-query
            case(1203, 2, 2, 2, 2, 3, 3),  # ordinary multi-head attention
        ]
    return [
        case(2201, 2, 6, 3, 4, 6, 4, d_v=5, mask=padding),
        case(2202, 1, 8, 2, 5, 5, 8, mask=causal),
        case(2203, 3, 4, 4, 3, 7, 2),
        case(2204, 2, 3, 1, 1, 4, 6),
    ]


_BROADCAST = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
    r"non-singleton dimension (\d+)"
)


def _gqa_heads_hint(heads: int, kv: int):
    """For a clash along the head axis between num_heads and another count: how many heads
    the learner's keys or values had, and the steps that give that count."""
    group = heads // kv

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or int(found.group(3)) != 1:
            return ""
        sizes = {int(found.group(1)), int(found.group(2))}
        if heads not in sizes or len(sizes) != 2:
            return ""
        (other,) = sizes - {heads}
        rule = (
            f"group = num_heads // num_kv_heads = q.shape[1] // k.shape[1] = {group}, and "
            "k.repeat_interleave(group, dim=1) (likewise v)."
        )
        if other == kv:
            return (
                f"Your keys or values reached the attention with num_kv_heads = {kv} heads, "
                f"not num_heads = {heads}: they were not repeated along the head axis: "
                "either not repeated at all, or repeated along another axis than dim=1, or "
                "the group size came out 1 (read from other axes than q.shape[1] and "
                "k.shape[1]). " + rule
            )
        if other % kv == 0:
            return (
                f"Your keys or values reached the attention with {other} heads: each of the "
                f"{kv} key/value heads was repeated {other // kv} times, not {group} (the "
                "group size read from other axes than q.shape[1] and k.shape[1]?). " + rule
            )
        return ""

    return lambda exc: isinstance(exc, RuntimeError), text


def check_grouped_query_attention(grouped_query_attention, *, hidden: bool = False) -> None:
    """grouped_query_attention(q, k, v, mask=None) -> output (batch, num_heads, len_q, d_v)."""
    with (
        Checker("grouped_query_attention", hidden=hidden) as c,
    ):
        c.require_callable(grouped_query_attention)
        for q, k, v, mask in _gqa_cases(hidden):
            batch, heads, len_q, _ = q.shape
            kv = k.shape[1]
            what = (
                f"grouped_query_attention(q {tuple(q.shape)}, k {tuple(k.shape)}, "
                f"v {tuple(v.shape)}, mask={'None' if mask is None else tuple(mask.shape)})"
            )
            got = c.call(
                grouped_query_attention,
                q,
                k,
                v,
                mask,
                call_repr=what,
                hints=[_gqa_heads_hint(heads, kv), *_GQA_SHAPES],
            )
            if isinstance(got, tuple) and got:
                c.fail(
                    f"{what} returned a tuple of {len(got)}; return only the output tensor "
                    "(batch, num_heads, len_q, d_v)."
                )
            _expect_tensor(c, got, what)
            hint = ""
            if tuple(got.shape) == (batch, kv, len_q, v.shape[-1]) and kv != heads:
                hint = (
                    "Your output has num_kv_heads heads: every query head needs its own output, "
                    "so the key/value heads are shared (repeated), not the query heads reduced."
                )
            c.expect_shape(got, (batch, heads, len_q, v.shape[-1]), what, hint)
            c.expect_floating(got, what, preferred=q.dtype)
            mistakes = {
                "The heads are paired wrongly: query head h must use key/value head "
                "h // group (heads 0..group-1 share the first), but yours uses h % num_kv_heads. "
                "k.repeat(1, group, 1, 1) tiles [k0, k1, k0, k1]; repeat_interleave gives "
                "[k0, k0, k1, k1].": (
                    gqa_expected(q, k, v, mask, tile=True) if 1 < kv < heads else None
                ),
                "The scores are not divided by sqrt(d_head).": gqa_expected(q, k, v, mask, scale=1),
                "The scores are divided by d_head instead of sqrt(d_head).": gqa_expected(
                    q, k, v, mask, scale=1 / q.shape[-1]
                ),
                "The scores are divided by sqrt(d_v), the values' width (v.shape[-1]), instead "
                "of sqrt(d_head), the width of the queries and keys (q.shape[-1]): the two "
                "differ here.": (
                    gqa_expected(q, k, v, mask, scale=1 / math.sqrt(v.shape[-1]))
                    if v.shape[-1] != q.shape[-1]
                    else None
                ),
                "The mask was ignored: blocked keys got weight.": (
                    None if mask is None else gqa_expected(q, k, v, None)
                ),
                "The mask is read the wrong way round: True means *may attend* (as in "
                "lesson 06), so blocked positions are where the mask is False "
                "(masked_fill(~mask, -inf)).": (
                    None if mask is None else gqa_expected(q, k, v, ~mask)
                ),
                "Your softmax runs over the queries (dim=-2): each query's weights over the "
                "keys must sum to 1, so take the softmax over the last axis (dim=-1).": (
                    _gqa_query_softmax(q, k, v, mask)
                ),
                _MASK_FILLED_ZERO: (
                    None
                    if mask is None
                    else scaled_dot_product_attention_f(q, k, v, mask, fill=0.0, enable_gqa=True)[0]
                ),
            }
            c.expect_close(
                got,
                gqa_expected(q, k, v, mask),
                what,
                **tolerance(got.dtype),
                mistakes=mistakes,
                hint="Query head h attends with key and value head h // (num_heads // "
                "num_kv_heads), as softmax(q kᵀ / sqrt(d_head), masked) v.",
            )


# ========================================================================= online_softmax
def _informative(value: torch.Tensor) -> torch.Tensor | None:
    """A mistake's value, or None when it is NaN or inf everywhere: every such mistake
    gives the same value, so matching it would tell them apart no better than chance."""
    return value if bool(torch.isfinite(value).any()) else None


def _all_nan_candidates(got: torch.Tensor, candidates: dict[str, torch.Tensor | None]) -> str:
    """When the learner's value is NaN or inf everywhere: the causes that give exactly that
    on this input, all of them (one such input cannot tell them apart); "" otherwise."""
    if bool(torch.isfinite(got).any()):
        return ""
    agree = [
        cause
        for cause, value in candidates.items()
        if value is not None and not bool(torch.isfinite(value).any())
    ]
    if not agree:
        return ""
    return (
        "Your result is NaN or inf everywhere. On this input that is what each of these "
        "mistakes gives (one of them, or several, is yours): " + "; ".join(agree) + "."
    )


_FINAL_BLOCK_MAX = (
    "Your final exp(x - m) uses the last block's own maximum, not the running maximum: the "
    "sum was accumulated relative to the largest value seen, so divide exp(x - m) by it "
    "with that same m (running_max after the loop)."
)


def _no_maximum(x: torch.Tensor) -> torch.Tensor:
    """exp(x) / sum(exp(x)), no maximum subtracted: inf / inf = NaN for large x."""
    e = torch.exp(x)
    return e / e.sum(dim=-1, keepdim=True)


_INVERTED_RESCALE = (
    "The running sum is rescaled the wrong way round: the factor is exp(m_old - m_new) (at "
    "most 1), not exp(m_new - m_old)."
)


def _falling(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """x with its first block of columns raised by 200 and the next lowered by 100: a
    maximum that is each block's own falls by about 300 there, and exp overflows."""
    x = x.clone()
    x[..., :block_size] += 200.0
    x[..., block_size : 2 * block_size] -= 100.0
    return x


def _softmax_cases(hidden: bool):
    if not hidden:
        return [
            (randn((2, 7), 1301), 3),
            (
                torch.tensor(
                    [[1000.0, 999.0, 1001.0, -5.0, 998.0], [-1000.0, -999.0, 0.0, 3.0, 2.0]]
                ),
                2,
            ),
            (randn((2, 3, 5), 1302, scale=3.0), 5),
            (randn((4, 6), 1303, scale=2.0), 1),
            (randn((2, 6), 1304) - 1000.0, 4),  # every value far below 0 (after large ones)
            (randn((2, 5), 1306, dtype=torch.float64), 2),  # the output keeps x's dtype
            (_falling(randn((2, 6), 1305), 2), 2),  # a later block far below an earlier one
        ]
    return [
        (randn((3, 11), 2301, scale=4.0), 4),
        (randn((2, 2, 9), 2302, scale=50.0), 2),
        (randn((5, 4), 2303, dtype=torch.float64), 10),
        (torch.arange(12.0).reshape(2, 6) * 200.0, 5),
        # after large values, which tell a missing maximum apart from these two:
        (randn((3, 7), 2304, scale=2.0) - 700.0, 3),
        (_falling(randn((3, 2, 9), 2305), 3), 3),  # leading axes that do not broadcast
        (randn((6, 5), 2306), 2),  # more rows than block_size
    ]


def _with_counts(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """exp(x) / sum_j counts[j] exp(x_j) over the last axis (float64, stable): the softmax
    whose running sum saw column j counts[j] times."""
    x = x.double()
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    return e / (e * counts.double()).sum(dim=-1, keepdim=True)


def _coverage_mistakes(x: torch.Tensor, block_size: int) -> dict[str, torch.Tensor]:
    """The running sum built over other columns than each exactly once: the loop stopping
    early (only a first part of the columns), or blocks one column too long or too short
    (overlapping, or leaving a column out between blocks)."""
    n = x.shape[-1]
    out = {}
    for width in (block_size + 1, block_size - 1):
        if width < 1 or n <= block_size:
            continue
        counts = torch.zeros(n)
        for start in range(0, n, block_size):
            counts[start : start + width] += 1
        longer = width > block_size
        out[
            f"Your blocks are one column too {'long' if longer else 'short'}: each reads "
            f"x[..., start : start + block_size {'+' if longer else '-'} 1], so "
            + (
                "neighbouring blocks overlap and the first column of each later block is "
                "counted twice in the running sum"
                if longer
                else "the last column of each block is never counted in the running sum"
            )
            + ". A block is x[..., start : start + block_size]."
        ] = _with_counts(x, counts)
    for m in range(1, n):
        counts = (torch.arange(n) < m).double()
        out[
            f"Your running sum covers only the first {m} of the {n} columns (a loop that "
            "stops early): the loop runs over every column, range(0, x.shape[-1], "
            "block_size), x.shape[-1] being the number of columns."
        ] = _with_counts(x, counts)
    return out


def _row_shape_hint(x: torch.Tensor):
    """For a size clash along the last axis of x.shape[:-1] between the sizes of x's
    last two leading axes: a running statistic made with one axis too few."""
    rows = tuple(x.shape[:-1])

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or len(rows) < 2 or int(found.group(3)) != len(rows) - 1:
            return ""
        if {int(found.group(1)), int(found.group(2))} != {rows[-2], rows[-1]}:
            return ""
        return (
            f"A per-row tensor of yours has shape x.shape[:-2] = {rows[:-1]}, one axis too "
            f"few, where x.shape[:-1] = {rows} is needed: the running maximum and sum (and "
            "each block's maximum and sum) hold one value per row "
            "(torch.full(x.shape[:-1], float('-inf')), torch.zeros(x.shape[:-1]))."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


_MAX_FROM_ZERO = (
    "Your running maximum starts at 0 instead of -inf: on a row whose values are all far "
    "below 0 (as here) it stays 0, every exp(s - 0) underflows to 0, and the sum is 0. "
    "Start it at -inf (torch.full(..., float('-inf'))): exp(-inf) = 0 handles the first "
    "block."
)
_BLOCK_OWN_MAX = (
    "Your maximum is each block's own, not the largest value seen so far: when a later "
    "block's values are far below an earlier one's (as here), exp(m_old - m_new) "
    "overflows. The running maximum only grows: m_new = max(m, block max)."
)


def _blocks_over_rows(x: torch.Tensor, block_size: int) -> torch.Tensor | None:
    """Online softmax whose blocks walk the first axis (x[start : start + block_size],
    range over x.shape[0]) instead of the last, computed as such code does (None where it
    raises): right for a 1-D x, or when every row fits in one block."""
    if x.dim() < 2 or x.shape[0] <= block_size:
        return None
    x = x.double()
    try:
        running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[0], block_size):
            block = x[start : start + block_size]
            new_max = torch.maximum(running_max, block.amax(dim=-1))
            total = total * torch.exp(running_max - new_max) + torch.exp(
                block - new_max[..., None]
            ).sum(dim=-1)
            running_max = new_max
        result = torch.exp(x - running_max[..., None]) / total[..., None]
    except RuntimeError:
        return None
    return result if result.shape == x.shape else None


_BLOCKS_RULE = (
    "softmax is over the last axis, so the blocks are columns, x[..., start : start + "
    "block_size] over range(0, x.shape[-1], block_size). (With one row, or with every row "
    "in one block, the two agree; here there are more rows than block_size.)"
)
_BLOCKS_OVER_ROWS = (
    "Your blocks walk the first axis (the rows, x[start : start + block_size] over "
    f"range(0, x.shape[0], block_size)), not the last: {_BLOCKS_RULE}"
)


def _rows_hint(x: torch.Tensor, block_size: int):
    """A size mismatch between x's number of rows and a block's: blocks over the rows."""
    sizes = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")
    blocks = {block_size, x.shape[0] % block_size} - {0} if x.dim() >= 2 else set()

    def hint(exc: BaseException) -> str:
        found = sizes.search(str(exc))
        if not found or x.dim() < 2 or x.shape[0] <= block_size:
            return ""
        pair = {int(found[1]), int(found[2])}
        if x.shape[0] not in pair or not (pair - {x.shape[0]}) <= blocks:
            return ""
        return (
            f"The sizes {found[1]} and {found[2]} are x's number of rows ({x.shape[0]}) and a "
            f"block's ({block_size}): do your blocks walk the first axis (the rows)? "
            + _BLOCKS_RULE[0].upper()
            + _BLOCKS_RULE[1:]
        )

    return (RuntimeError, hint)


_SOFTMAX_LOWER_PRECISION = (
    "{what} returned {got} for a float64 input: your online_softmax computes in a lower "
    "precision (x.float(), or running tensors made without dtype=x.dtype) and never casts "
    "back. Return x's dtype: make the running maximum and sum with dtype=x.dtype, or cast "
    "the result back with .to(x.dtype)."
)


def check_online_softmax(online_softmax, *, hidden: bool = False) -> None:
    """online_softmax(x, block_size) -> softmax(x) over the last axis."""
    with Checker("online_softmax", hidden=hidden) as c:
        c.require_callable(online_softmax)
        for x, block_size in _softmax_cases(hidden):
            what = f"online_softmax(x {tuple(x.shape)} = {short(x, 80)}, block_size={block_size})"
            got = c.call(
                online_softmax,
                x,
                block_size,
                call_repr=what,
                hints=[_rows_hint(x, block_size), _row_shape_hint(x)],
            )
            _expect_tensor(c, got, what)
            c.expect_shape(got, x.shape, what)
            c.expect_floating(got, what, preferred=x.dtype)
            if x.dtype == torch.float64 and got.dtype != torch.float64:
                c.fail(_SOFTMAX_LOWER_PRECISION.format(what=what, got=got.dtype))
            several_blocks = x.shape[-1] > block_size
            nan_causes = {
                "the rescale factor inverted, exp(m_new - m_old) instead of exp(m_old - m_new)": (
                    online_softmax_f(x, block_size, rescale="inverted_raw")
                ),
                "the running maximum never updated after a block (running_max = new_max "
                "missing)": online_softmax_f(x, block_size, update=False),
                "no maximum subtracted inside exp (exp overflows)": _no_maximum(x),
            }
            c.expect_close(
                got,
                torch.softmax(x.double(), dim=-1).to(x.dtype),
                what,
                **tolerance(got.dtype, x.dtype),
                mistakes={
                    "The running sum is not rescaled when the maximum grows: terms summed as "
                    "exp(s - m_old) must be multiplied by exp(m_old - m_new) before the new "
                    "block's terms are added.": (
                        online_softmax_f(x, block_size, rescale="none") if several_blocks else None
                    ),
                    _INVERTED_RESCALE: (
                        online_softmax_f(x, block_size, rescale="inverted")
                        if several_blocks
                        else None
                    ),
                    _MAX_FROM_ZERO: online_softmax_f(x, block_size, start=0.0),
                    _BLOCKS_OVER_ROWS: _blocks_over_rows(x, block_size),
                    _FINAL_BLOCK_MAX: (
                        online_softmax_f(x, block_size, final_max="last_block")
                        if several_blocks
                        else None
                    ),
                    _BLOCK_OWN_MAX: (
                        online_softmax_f(x, block_size, running=False) if several_blocks else None
                    ),
                    _INVERTED_RESCALE + " (Here exp(m_new - m_old) with m_old = -inf on the "
                    "first block is exp(+inf) = inf, and 0 · inf = NaN.)": (
                        _informative(online_softmax_f(x, block_size, rescale="inverted_raw"))
                    ),
                    "The running maximum is never updated (running_max = new_max is missing): "
                    "every exp is then taken against the initial -inf, which gives inf and "
                    "NaN. After each block, keep the new maximum for the next one.": (
                        _informative(online_softmax_f(x, block_size, update=False))
                    ),
                    "The last, shorter block is skipped: when n is not a multiple of "
                    "block_size, the loop must still visit the last columns (range(0, n, "
                    "block_size) with x[..., start : start + block_size]).": (
                        online_softmax_f(x, block_size, skip_last=True)
                        if x.shape[-1] % block_size
                        else None
                    ),
                    **_coverage_mistakes(x, block_size),
                    "No maximum is subtracted: exp(x) overflows to inf for large x (here "
                    f"up to {float(x.abs().max()):.4g}), and inf / inf is NaN. Subtract the "
                    "running maximum inside every exp.": (
                        _informative(_no_maximum(x))
                        if not torch.isfinite(torch.exp(x)).all()
                        else None
                    ),
                },
                explain=lambda got=got, causes=nan_causes: _all_nan_candidates(got, causes),
                hint="Subtract the running maximum inside every exp (large scores overflow "
                "otherwise), rescale the running sum by exp(m_old - m_new) whenever the "
                "maximum grows, and normalise with exp(x - m) / sum at the end.",
            )


# ======================================================================== tiled_attention
_SCALED_BY_LENGTH = (
    "The scores are divided by sqrt({n}), the square root of a length ({axis}), instead of "
    "sqrt(d_k) = sqrt(q.shape[-1]): d_k is the last axis."
)


def _scaled_by_length(q, k, v, causal: bool) -> dict:
    """The scores divided by the square root of a length (an axis mix-up): one candidate
    when len_q == len_k, where the two cannot be told apart."""
    lengths = {"len_q": ("q.shape[-2]", q.shape[-2]), "len_k": ("k.shape[-2]", k.shape[-2])}
    if q.shape[-2] == k.shape[-2]:
        lengths = {"len_q": ("q.shape[-2], equal to len_k here", q.shape[-2])}
    return {
        _SCALED_BY_LENGTH.format(n=name, axis=axis): _tiled_expected(
            q, k, v, causal, scale=1 / math.sqrt(size)
        )
        for name, (axis, size) in lengths.items()
        if size != q.shape[-1]
    }


def _tiled_expected(q, k, v, causal: bool, *, scale: float | None = None):
    len_q, len_k = q.shape[-2], k.shape[-2]
    mask = torch.ones(len_q, len_k, dtype=torch.bool).tril() if causal else None
    if scale is not None:
        q = q * scale * math.sqrt(q.shape[-1])
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    return output


def _tiled_cases(hidden: bool):
    def case(seed, shape_q, len_k, d_v, block, causal, scale=1.0):
        q = randn(shape_q, seed, scale=scale)
        k = randn((*shape_q[:-2], len_k, shape_q[-1]), seed + 1, scale=scale)
        v = randn((*shape_q[:-2], len_k, d_v), seed + 2)
        return q, k, v, block, causal

    def sink(seed, shape_q, len_k, block, causal):
        """Queries that all match the first block of keys far better than the rest (an
        attention "sink"): the block maxima fall by over 100 after the first block."""
        q, k, v, block, causal = case(seed, shape_q, len_k, shape_q[-1], block, causal)
        q = q * 0.3 + 4.0
        k = k * 0.3
        k[..., :block, :] += 16.0
        return q, k, v, block, causal

    if not hidden:
        return [
            case(1401, (1, 2, 6, 4), 6, 4, 2, False),
            case(1402, (1, 2, 6, 4), 6, 4, 2, True),
            case(1403, (2, 3, 8), 7, 5, 3, False, scale=2.0),
            case(1404, (1, 5, 4), 5, 4, 8, True),
            case(1405, (2, 3, 4), 7, 3, 3, True),  # len_q < len_k
            sink(1406, (1, 4, 4), 6, 2, False),
        ]
    return [
        case(2401, (2, 2, 13, 8), 13, 6, 5, True, scale=2.0),
        case(2402, (3, 4, 4), 9, 3, 4, False),
        case(2403, (1, 1, 4, 4), 10, 4, 3, True),
        case(2404, (2, 7, 2), 7, 2, 1, False, scale=3.0),
        sink(2405, (2, 5, 4), 9, 3, True),
    ]


def causal_lower_right(len_q: int, len_k: int) -> torch.Tensor:
    """bool (len_q, len_k), the causal mask aligned to the bottom right: the queries are
    the last len_q positions, query i sees keys j <= len_k - len_q + i (lesson 12's cache
    mask; torch.nn.attention.bias.causal_lower_right)."""
    return torch.ones(len_q, len_k, dtype=torch.bool).tril(len_k - len_q)


_MASK_FILLED_ZERO = (
    "Your blocked scores are set to 0 instead of -inf: a score of 0 still gets weight "
    "exp(0) / sum after the softmax, so masked keys are attended to. Fill them with "
    "float('-inf') (scores.masked_fill(blocked, float('-inf')))."
)
_BOTTOM_RIGHT = (
    "Your causal mask is aligned to the bottom right: query i sees keys j <= len_k - len_q "
    "+ i, as if the queries were the last len_q positions (section 2's cache mask, "
    "causal_cache_mask). tiled_attention's causal=True is aligned to the top left, as "
    "F.scaled_dot_product_attention(..., is_causal=True): query i sees keys j <= i. The two "
    "agree only when len_q == len_k."
)


_TILED_OWN_MAX = (
    "Your maximum is each block's own, not the largest score seen so far: when a later "
    "block's scores are far below an earlier one's, or all masked (-inf), exp(m_old - "
    "m_new) overflows. The running maximum only grows: m_new = max(m, block max)."
)


_BATCH2 = re.compile(
    r"Expected size for first two dimensions of batch2 tensor to be: \[\d+, (\d+)\] but "
    r"got: \[\d+, (\d+)\]"
)


def _tiled_hints(
    q: torch.Tensor, v: torch.Tensor, block: int, causal: bool, summed_fine: bool
) -> list:
    """For the size clashes of tiled attention's classic slips, what the sizes are: a
    block's weights against its slice of v (the rows differ), a per-query tensor against
    a block's width (a sum over the wrong axis, unless ``summed_fine``: an earlier input
    where that sum would have clashed ran; or a causal mask of the wrong height), the
    accumulated output's last axis against d_v."""
    len_q, len_k, d_v = q.shape[-2], v.shape[-2], v.shape[-1]
    widths = {min(block, len_k - start) for start in range(0, len_k, block)}

    def rows(exc: BaseException) -> str:
        found = _BATCH2.search(str(exc))
        if not found:
            return ""
        keys, got = int(found.group(1)), int(found.group(2))
        if keys not in widths or got == keys:
            return ""
        off = got - keys
        return (
            f"A block's weights cover {keys} keys, but your slice of v has {got} rows"
            + (f" (one row too {'many' if off > 0 else 'few'})" if abs(off) == 1 else "")
            + ": slice v exactly as k, v[..., start:stop, :], so that weights @ v pairs each "
            "key's weight with its own value."
        )

    def clash(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found:
            return ""
        sizes, axis = {int(found.group(1)), int(found.group(2))}, int(found.group(3))
        if axis == q.dim() - 2 and len_q in sizes and len(sizes) == 2:
            (other,) = sizes - {len_q}
            summed = (
                "the block's weights summed over the queries (dim=-2) instead of over the keys "
                "(weights.sum(dim=-1), one sum per query)"
                if other in widths and not summed_fine
                else ""
            )
            mask = (
                "the causal mask built for another number of queries than len_q = "
                "q.shape[-2] (it is (len_q, block): query positions torch.arange(len_q))"
                if causal
                else ""
            )
            found = [cause for cause in (summed, mask) if cause]
            if not found:
                return ""
            return (
                f"A per-query tensor (len_q = {len_q}) met one of size {other} along the "
                "queries' axis: "
                + (" or ".join(found) if len(found) < 2 else f"either {found[0]}, or {found[1]}")
                + "."
            )
        if axis == q.dim() - 1 and d_v in sizes and len(sizes) == 2:
            (other,) = sizes - {d_v}
            names = [
                n for n, size in (("len_k = v.shape[-2]", len_k), ("len_q", len_q)) if size == other
            ]
            return (
                f"The accumulated output's last axis must be d_v = v.shape[-1] = {d_v}, "
                f"but a tensor of yours has {other} there"
                + (f" ({' or '.join(names)})" if names else "")
                + ": acc = torch.zeros((*q.shape[:-1], v.shape[-1]))."
            )
        return ""

    return [
        (lambda exc: isinstance(exc, RuntimeError), rows),
        (lambda exc: isinstance(exc, RuntimeError), clash),
    ]


def _sum_not_column_hint(len_q: int, d_v: int):
    """The final division by the running sum without [..., None]: (..., len_q, d_v) divided
    by (..., len_q) lines len_q up with d_v, which raises unless they are equal."""
    sizes = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")

    def hint(exc: BaseException) -> str:
        found = sizes.search(str(exc))
        if not found or len_q == d_v or {int(found[1]), int(found[2])} != {len_q, d_v}:
            return ""
        return (
            f"The sizes {found[1]} and {found[2]} are d_v and len_q: was the output "
            "(..., len_q, d_v) divided (or multiplied) by a per-query tensor (..., len_q), such "
            "as the running sum or the rescale factor, without [..., None]? Broadcasting "
            "lines its last axis up with d_v; make it a column, total[..., None], so each "
            "query's row uses its own value."
        )

    return (RuntimeError, hint)


def _without_last_block(q, k, v, block: int, causal: bool) -> torch.Tensor | None:
    """Attention over the keys of the whole blocks only (the last, shorter block skipped),
    or None when len_k is a multiple of the block size."""
    cut = k.shape[-2] - k.shape[-2] % block
    if cut == k.shape[-2] or cut == 0:
        return None
    scores = q.double() @ k[..., :cut, :].double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        future = torch.arange(cut)[None, :] > torch.arange(q.shape[-2])[:, None]
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v[..., :cut, :].double()


def _leading_axes_hint(got, expected_shape: tuple[int, ...]) -> str:
    """An output whose last two axes are right but whose leading (batch, head) axes are
    not: something was sliced or reduced along a leading axis."""
    found = tuple(got.shape) if isinstance(got, torch.Tensor) else None
    if not found or len(found) != len(expected_shape) or len(found) < 3:
        return ""
    if found[-2:] != expected_shape[-2:] or found[:-2] == expected_shape[:-2]:
        return ""
    return (
        f"Its last two axes (len_q, d_v) are right, but its leading axes are {found[:-2]}, not "
        f"{expected_shape[:-2]}: were the key and value blocks sliced on the first axis "
        "(k[start:stop]) instead of the key axis, k[..., start:stop, :] and "
        "v[..., start:stop, :]? The inputs may have any number of leading axes."
    )


def check_tiled_attention(tiled_attention, *, hidden: bool = False) -> None:
    """tiled_attention(q, k, v, block_size, causal=False) -> output (..., len_q, d_v)."""
    with (
        Checker("tiled_attention", hidden=hidden) as c,
    ):
        c.require_callable(tiled_attention)
        summed_fine = False  # a call ran where weights summed over dim=-2 would clash
        for q, k, v, block, causal in _tiled_cases(hidden):
            what = (
                f"tiled_attention(q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, "
                f"block_size={block}, causal={causal})"
            )
            got = c.call(
                tiled_attention,
                q,
                k,
                v,
                block,
                causal,
                call_repr=what,
                hints=[
                    *_tiled_hints(q, v, block, causal, summed_fine),
                    _sum_not_column_hint(q.shape[-2], v.shape[-1]),
                ],
            )
            widths = {min(block, k.shape[-2] - start) for start in range(0, k.shape[-2], block)}
            summed_fine = summed_fine or not widths <= {q.shape[-2]}
            if isinstance(got, tuple) and got:
                c.fail(f"{what} returned a tuple; return only the output tensor.")
            _expect_tensor(c, got, what)
            shape = (*q.shape[:-1], v.shape[-1])
            c.expect_shape(got, shape, what, _leading_axes_hint(got, shape))
            c.expect_floating(got, what, preferred=q.dtype)
            several = k.shape[-2] > block
            nan_causes = {
                "the causal mask hiding the diagonal too (j >= i masked: query 0 sees no key)": (
                    tiled_attention_f(q, k, v, block, causal, strict=True) if causal else None
                ),
                "each block's weights exponentiated against the previous maximum (-inf on the "
                "first block) instead of the new one": (
                    tiled_attention_f(q, k, v, block, causal, old_max=True)
                ),
                "the accumulated output divided by the rescale factor exp(m_old - m_new) "
                "instead of multiplied by it (the factor is 0 on the first block: 0 / 0)": (
                    tiled_attention_f(q, k, v, block, causal, inverted="output")
                ),
                "the running sum divided by that factor instead of multiplied by it": (
                    tiled_attention_f(q, k, v, block, causal, inverted="sum")
                ),
            }
            c.expect_close(
                got,
                _tiled_expected(q, k, v, causal),
                what,
                **tolerance(got.dtype),
                mistakes={
                    "The output accumulated over earlier blocks is not rescaled when the "
                    "maximum grows: it was summed with weights exp(s - m_old), so multiply it "
                    "by exp(m_old - m_new) too, as the running sum.": (
                        tiled_attention_f(q, k, v, block, causal, rescale_output=False)
                        if several
                        else None
                    ),
                    "The running sum is not rescaled when the maximum grows (the accumulated "
                    "output is): both were computed with the old maximum.": (
                        tiled_attention_f(q, k, v, block, causal, rescale_sum=False)
                        if several
                        else None
                    ),
                    "The scores are not divided by sqrt(d_k).": _tiled_expected(
                        q, k, v, causal, scale=1
                    ),
                    "The last, shorter block of keys is skipped: when len_k is not a multiple "
                    "of block_size, the loop must still visit the last keys (range(0, len_k, "
                    "block_size), with stop = min(start + block_size, len_k)).": (
                        _without_last_block(q, k, v, block, causal)
                    ),
                    "The scores are divided by d_k instead of sqrt(d_k).": _tiled_expected(
                        q, k, v, causal, scale=1 / q.shape[-1]
                    ),
                    **_scaled_by_length(q, k, v, causal),
                    "The causal mask ignores the keys' block offset or is missing: query i "
                    "may attend to key j exactly when j <= i, with j the key's position in the "
                    "whole sequence (start + its index in the block).": (
                        _tiled_expected(q, k, v, False) if causal else None
                    ),
                    "The causal mask compares the query with the key's index *inside the "
                    "block* instead of its position in the sequence (start + index): later "
                    "blocks are masked as if they began at key 0.": (
                        scaled_dot_product_attention(
                            q,
                            k,
                            v,
                            torch.arange(k.shape[-2])[None, :] % block
                            <= torch.arange(q.shape[-2])[:, None],
                        )[0]
                        if causal and several
                        else None
                    ),
                    "With causal=False nothing may be masked, but yours masks the future.": (
                        None if causal else _tiled_expected(q, k, v, True)
                    ),
                    _MASK_FILLED_ZERO: (
                        scaled_dot_product_attention_f(
                            q,
                            k,
                            v,
                            torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(),
                            fill=0.0,
                        )[0]
                        if causal
                        else None
                    ),
                    _BOTTOM_RIGHT: (
                        scaled_dot_product_attention(
                            q, k, v, causal_lower_right(q.shape[-2], k.shape[-2])
                        )[0]
                        if causal and q.shape[-2] != k.shape[-2]
                        else None
                    ),
                    _TILED_OWN_MAX: (
                        tiled_attention_f(q, k, v, block, causal, running=False)
                        if several
                        else None
                    ),
                    "Your causal mask hides the diagonal too (key j masked when j >= i): a "
                    "query may attend to its own position, so mask only j > i. (Query 0 then "
                    "has no key at all: its row of weights is 0/0 = NaN.)": (
                        _informative(tiled_attention_f(q, k, v, block, causal, strict=True))
                        if causal
                        else None
                    ),
                    "Each block's weights are exponentiated against the previous maximum "
                    "(m_old, -inf on the first block) instead of the new one: compute "
                    "m_new = max(m_old, block max) first, then exp(s - m_new).": (
                        _informative(tiled_attention_f(q, k, v, block, causal, old_max=True))
                    ),
                    "The accumulated output is never divided by the running sum of the "
                    "weights: return acc / total at the end (the softmax's denominator).": (
                        tiled_attention_f(q, k, v, block, causal, divide=False)
                    ),
                },
                explain=lambda got=got, causes=nan_causes: _all_nan_candidates(got, causes),
                hint="For each block: scores, new maximum m' = max(m, block max), rescale the "
                "running sum and the output by exp(m - m'), add exp(s - m') and exp(s - m') v; "
                "divide by the sum at the end."
                + (
                    " With causal=True, query i sees keys j <= i (the diagonal included)."
                    if causal
                    else ""
                ),
            )


# ===================================================================== sliding_window_mask
def _window(size: int, low: int, high: int) -> torch.Tensor:
    """bool (size, size): True where low <= i - j <= high."""
    offset = torch.arange(size)[:, None] - torch.arange(size)[None, :]  # i - j
    return (offset >= low) & (offset <= high)


def _window_hint(got: torch.Tensor, size: int, window: int) -> str:
    """What a wrong window mask gets wrong, part by part: the future, the diagonal, the
    band's width."""
    got = torch.as_tensor(got).bool()
    rule = "Query i may attend to key j when j <= i and i - j < window."
    future = torch.ones(size, size, dtype=torch.bool).triu(1) & got
    if future.any():
        i, j = (int(v) for v in future.nonzero()[0])
        return (
            f"Your mask lets a query see keys after it: ({i}, {j}) is True, key {j} > query "
            f"{i}. Combine the window with lesson 06's look_ahead_mask using &. {rule}"
        )
    diagonal = ~got.diagonal()
    if not got.any():  # said first by the check itself: no entry holds
        return (
            f"Each query sees itself and the window - 1 positions before it, so the diagonal "
            f"at least is True. {rule} Built with torch.triu(ones, diagonal=d) & "
            "look_ahead_mask(size), the band keeps 0 <= i - j <= -d: d must be 1 - window "
            f"(= {1 - window} here); a d of 1 or more (diagonal=1, or 1 + window) keeps "
            "nothing, as yours does."
        )
    if diagonal.any():
        i = int(diagonal.nonzero()[0])
        return (
            f"Your mask leaves the query itself out: ({i}, {i}) is False. Each query sees "
            f"itself and the window - 1 positions before it. {rule}"
        )
    return rule


def check_sliding_window_mask(sliding_window_mask, *, hidden: bool = False) -> None:
    """sliding_window_mask(size, window) -> bool (size, size): j <= i and i - j < window."""
    with Checker("sliding_window_mask", hidden=hidden) as c:
        c.require_callable(sliding_window_mask)
        cases = (
            [(9, 2), (12, 5), (1, 1), (7, 7), (8, 20)]
            if hidden
            else [(6, 3), (5, 1), (4, 4), (4, 10)]
        )
        for size, window in cases:
            what = f"sliding_window_mask({size}, {window})"
            got = c.call(sliding_window_mask, size, window)
            _expect_tensor(c, got, what)
            c.expect_shape(got, (size, size), what, "(len_q, len_k) = (size, size).")
            c.expect_dtype(
                got,
                torch.bool,
                what,
                "Masks are bool, True = may attend (lesson 06); & of two bool masks stays bool.",
            )
            expected = _window(size, 0, window - 1)
            c.expect_equal(
                got,
                expected,
                what,
                hint=lambda got=got, size=size, window=window: _window_hint(got, size, window),
                mistakes={
                    "Each query sees window + 1 keys (i - j <= window). Here the window counts "
                    "the query itself: itself and the window - 1 positions before it. (Mistral's "
                    "paper words it as 'W tokens'; conventions differ by one, the docstring "
                    "fixes this one.)": _window(size, 0, window),
                    "Each query sees only window - 1 keys: itself and window - 1 earlier ones "
                    "make window.": _window(size, 0, window - 2) if window > 1 else None,
                    "The mask is not causal: it lets queries see the next positions too "
                    "(|i - j| < window). Combine the window with lesson 06's look_ahead_mask "
                    "using &.": _window(size, 1 - window, window - 1),
                    "The mask is inverted: True where attention is blocked. In this course "
                    "True means 'may attend'.": ~expected,
                    "The window is at the wrong end: query i sees the keys after it (j >= i) "
                    "instead of before it.": _window(size, 1 - window, 0),
                },
            )


# ======================================================================== concept question
QUIZ_CACHE_MEMORY = Quiz(
    name="quiz_cache_memory",
    answer=192,
    why={
        192: "2 (keys and values) x 48 layers x 8 key/value heads x 128 x 1024 tokens x 2 "
        "bytes = 201,326,592 bytes = 192 MiB. With 32 key/value heads (plain multi-head "
        "attention) it would be four times as much.",
        768: "That counts 32 key/value heads: with grouped-query attention only the 8 shared "
        "key/value heads are cached; the 32 query heads are never stored.",
        96: "That counts keys or values, not both: the cache holds two tensors per layer.",
        384: "That counts 4 bytes per number (float32); bfloat16 takes 2.",
        24: "That counts 1024 positions as 1024 bytes, or divides once too often: recount the "
        "units, bytes / 2**20 = MiB.",
    },
)
check_quiz_cache_memory = quiz_check(QUIZ_CACHE_MEMORY)


# ============================================================================== registry
_ATTENTION_APIS = ("torch.nn.functional.scaled_dot_product_attention",)
_SOFTMAX_APIS = ("torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax")

LESSON = "12_inference"
EXERCISES = (
    Exercise("KVCache", check_KVCache, kind="module", points=3, minutes=15, level=2),
    Exercise("generate", check_generate, kind="function", points=4, minutes=20, level=2),
    Exercise(
        "grouped_query_attention",
        check_grouped_query_attention,
        kind="function",
        points=3,
        minutes=15,
        level=2,
        forbidden=_ATTENTION_APIS,
    ),
    Exercise(
        "quiz_cache_memory", check_quiz_cache_memory, kind="quiz", points=1, minutes=3, level=2
    ),
    Exercise(
        "online_softmax",
        check_online_softmax,
        kind="function",
        points=3,
        minutes=15,
        level=2,
        forbidden=_SOFTMAX_APIS,
    ),
    Exercise(
        "tiled_attention",
        check_tiled_attention,
        kind="function",
        points=4,
        minutes=25,
        level=3,
        forbidden=(*_ATTENTION_APIS, *_SOFTMAX_APIS),
    ),
    Exercise(
        "sliding_window_mask",
        check_sliding_window_mask,
        kind="function",
        points=2,
        minutes=10,
        level=1,
    ),
)
