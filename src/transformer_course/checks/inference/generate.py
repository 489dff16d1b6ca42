"""Checks for lesson 12's generate: generation with a cache against the reference generation
without one, on a CachedGPT with small random weights."""

import contextlib
import re
import weakref
from collections.abc import Callable

import torch

from transformer_course.checking import Checker, short, torch_generator
from transformer_course.checking.call_replay import (
    CallTrace,
    advance_rules,
    first_departure,
    repeated_positions,
)
from transformer_course.checking.hints import shape_mismatch_hint
from transformer_course.checking.objects import course_object
from transformer_course.checking.row_shifts import row_shift_note
from transformer_course.reference import inference as ref

from .common import _expect_tensor

#: a model whose logits are nearly flat (the final norm's gains times 0.05): a token drawn
#: at random is the argmax about one time in vocab_size, so a generate that samples
#: instead of taking the argmax is told apart from greedy generation on the visible run
#: (on the others' peaked logits a draw is often the argmax: blind8b-gen-samples-not-greedy
#: was caught by the hidden run only)
_FLAT = {"logit_scale": 0.05}
_VISIBLE_GENERATE = [  # (seed, batch, prompt length, new tokens, model sizes)
    (11, 2, 5, 6, {}),
    (12, 1, 1, 4, {}),
    (13, 3, 3, 1, {}),
    (14, 2, 3, 5, _FLAT),
    # a greedy path that changes token after a repeat (29, 26, 26, 3 in row 1): the other
    # visible models repeat one token from the first step on, so a next_id computed once
    # (a stale token) passed them and failed the hidden run only
    (29, 2, 3, 4, {}),
    # a greedy path that reaches token 0 after another (16, 0, 0, 0): a loop that stops
    # at token 0 (an end-of-text test, blind15e-gen-stops-at-token-zero) passed the others
    (121, 1, 3, 4, {}),
]
_HIDDEN_GENERATE = [
    (21, 2, 7, 9, {"d_model": 48, "num_heads": 2, "num_layers": 3, "vocab_size": 40}),
    (22, 4, 2, 5, {}),
    (23, 1, 6, 3, {"num_heads": 8}),
    (24, 3, 2, 4, _FLAT),
    (50, 1, 2, 3, {}),  # greedy tokens 0, 0, 0 (seed 1050)
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
        "Your decode steps pass a start one position too far, start = len + t + 1 where "
        "len + t belongs: the logits of the steps after the prefill are those of tokens one "
        "position too far. RoPE rotates each query and key by its absolute position, and the "
        "token chosen at step t sits at position len + t (count from 0).": variant(offset=1),
        "Your decode steps pass a start one position too early, start = len + t - 1 where "
        "len + t belongs: the logits of the steps after the prefill are those of tokens one "
        "position too early. The token chosen at step t sits at position len + t, right "
        "after the prompt's last position len - 1. (Or the prompt ran one position too far, "
        "its first token at start=1 with the decode steps right: RoPE sees only the distance "
        "between positions, so the two give the same logits. The prompt starts at "
        "0.)": variant(offset=-1),
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


def _misplaced(caches, start) -> str:
    """When the model got a number in the caches' place and the caches (a list) in start's:
    the two passed positionally in the wrong order (blind12e-gen-step-arguments-positional-
    swapped); any other value of the wrong kind in either place is said too; "" when both
    are of their kind."""
    caches_ok = caches is None or isinstance(caches, list | tuple)
    start_ok = isinstance(start, int) and not isinstance(start, bool)
    if caches_ok and start_ok:
        return ""
    if isinstance(start, list | tuple) and not caches_ok:
        return (
            f"The model was called with caches={short(caches)} and "
            f"start={type(start).__name__} of {len(start)}: the two were passed in each other's "
            "place, positionally in the wrong order (model(ids, start, caches)) or with the "
            "keywords exchanged, while its signature is "
            "forward(ids, caches=None, start=0). Pass them by keyword: model(next_id, "
            "caches=caches, start=length + step)."
        )
    return (
        f"The model was called with caches of type {type(caches).__name__} and start of type "
        f"{type(start).__name__}: forward(ids, caches=None, start=0) takes the list of caches "
        "and an int position. Pass them by keyword: model(ids, caches=caches, start=...)."
    )


def _CallTrace(model) -> CallTrace:
    """Records every call of the model during the learner's generate (checking.call_replay:
    the ids fed, the start, the caches by identity and the positions they held before and
    after the call). Hooks only: the learner's code runs exactly as it would without them."""
    return CallTrace(model, describe_arguments=_misplaced)


def _positions_repeated(calls: list[dict], length: int) -> str:
    """From the recorded model calls: the positions of the sequence fed more than once,
    and the calls that fed them (a call with caches covers start .. start + its length; one
    without covers 0 .. its length, the way the model numbers them). "" when the calls
    cannot be read (no tensor ids) or no position was fed twice. ``length``: the prompt's,
    named as such when the positions fed again are exactly its own."""
    counts = repeated_positions(calls)  # position -> the calls (0-based) that fed it
    if not counts:
        return ""
    counts = {p: [number + 1 for number in fed_by] for p, fed_by in counts.items()}
    again = list(counts)
    covered = []  # (call number, first, stop, cached), as repeated_positions reads them
    for number, call in enumerate(calls, 1):
        cached = call["caches"] is not None
        start = call["start"] if cached and isinstance(call["start"], int) else 0
        covered.append((number, start, start + call["shape"][1], cached))
    # the runs of positions fed by the same calls, in order
    groups: list[tuple[list[int], list[int]]] = []
    for position in again:
        if groups and groups[-1][1] == counts[position] and groups[-1][0][-1] == position - 1:
            groups[-1][0].append(position)
        else:
            groups.append(([position], counts[position]))

    def described(number: int) -> str:
        _, first, stop, cached = covered[number - 1]
        caches = f"with the caches, start={first}" if cached else "without caches"
        return f"call {number} (ids of {stop - first} positions, {caches})"

    parts = []
    for positions, fed_by in groups[:3]:
        span = (
            f"position {positions[0]}"
            if len(positions) == 1
            else f"positions {positions[0]} .. {positions[-1]}"
        )
        times = "twice" if len(fed_by) == 2 else f"{len(fed_by)} times"
        what = (
            f"the prompt ran {times} ({span})"
            if positions == list(range(length))
            else f"{span} ran {times}"
        )
        parts.append(f"{what}, in " + " and ".join(described(number) for number in fed_by))
    return (
        " Your model calls, read position by position: "
        + "; ".join(parts)
        + ". A position already in the caches is never fed again: take the logits of the "
        "call that fills the caches (its last position's row) instead of a second call."
    )


def _refed(calls: list[dict], length: int) -> str:
    """The first call after the whole prompt is in the caches that feeds more than one
    position (the sequence so far fed again), named; "" when none does."""
    for number, call in enumerate(calls):
        held = call["held"][0] if call["held"] else None
        n = call["shape"][1] if call["shape"] and len(call["shape"]) == 2 else None
        if number == 0 or not isinstance(held, int) or held < length or not n or n < 2:
            continue
        batch = calls[0]["shape"][0] if calls[0]["shape"] else None
        if call["shape"][0] == 1 and batch == n and n > 1:
            # blind-style: the argmax's (batch,) made a row, (1, batch), not a column
            return (
                f"Call {number + 1} of the model fed ids of shape (1, {n}): a row holding the "
                f"{n} sequences' new tokens side by side, which the model reads as one "
                f"sequence of {n} positions (stored after the caches' {held} positions, in "
                "every sequence's cache), not one new token per sequence. The token to feed is "
                f"a column, (batch, 1) = ({n}, 1): logits.argmax(dim=-1, keepdim=True), not "
                "argmax(dim=-1)[None] or .unsqueeze(0) (that makes the row)."
            )
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


def _shape_unpacked_swapped(calls: list[dict], batch: int, length: int, new: int) -> str:
    """When the caches were made for ``length`` sequences of batch + max_new_tokens
    positions: the prompt's shape was unpacked the wrong way round (length, batch =
    prompt.shape: blind12e-gen-shape-unpacked-swapped), which also makes every start
    batch + step; "" otherwise (or when batch == length: nothing to tell)."""
    if batch == length or not calls or not calls[0]["caches"]:
        return ""
    keys = getattr(calls[0]["caches"][0], "keys", None)
    if not isinstance(keys, torch.Tensor) or keys.dim() != 4:
        return ""
    if (keys.shape[0], keys.shape[-2]) != (length, batch + new):
        return ""
    return (
        f"Your caches were made for {length} sequences (the prompt's length) of {batch} + "
        f"{new} positions (its batch + max_new_tokens): the prompt's shape was unpacked the "
        "wrong way round, length, batch = prompt.shape, where prompt is (batch, len). Unpack "
        "batch, length = prompt.shape (then the caches are new_caches(batch, length + "
        "max_new_tokens) and each new token's start is length + step)."
    )


def _shared_cache(calls: list[dict]) -> str:
    """When the model was handed one cache object for several layers (a list made by
    multiplication, [KVCache(...)] * num_layers, blind15e-gen-one-cache-for-every-layer,
    told its caches were too small), read from the caches the model received; "" when
    every layer had its own."""
    for number, call in enumerate(calls):
        caches = call["caches"]
        if not caches or len(caches) < 2:
            continue
        distinct = len({id(cache) for cache in caches})
        if distinct == len(caches):
            continue
        return (
            f"Call {number + 1} of the model got {len(caches)} caches but only {distinct} "
            f"distinct cache object{'s' if distinct > 1 else ''}: several layers share one "
            "cache (caches[0] is caches[1]), as a list made by multiplication, "
            "[KVCache(...)] * num_layers, holds the same object num_layers times. Each layer "
            "then stores its keys and values after the other layers' (the cache overflows, "
            "or attends to another layer's keys). Make one cache per layer: "
            "model.new_caches(batch, len + max_new_tokens), or [KVCache(...) for _ in "
            "range(num_layers)]."
        )
    return ""


def _cache_overflow_hint(calls: list[dict], length: int, new: int) -> str:
    """Why the reference KVCache refused to store more positions: one cache shared by the
    layers, the loop fed positions a second time (when the caches had room for len +
    max_new_tokens), or the caches were made too small."""
    shared = _shared_cache(calls)
    if shared:
        return shared
    room = _room(calls)
    if room is not None and room >= length + new:
        refed = _refed(calls, length)
        if refed:
            return (
                f"The caches had room for {room} positions (len + max_new_tokens = "
                f"{length + new}: enough), but your loop fed more positions than that. {refed}"
            )
    caches = calls[-1]["caches"] if calls else None
    keys = getattr(caches[0], "keys", None) if caches else None
    if (
        room is not None
        and isinstance(keys, torch.Tensor)
        and keys.dim() == 4
        and keys.shape[0] == length + new
        and room == (calls[0]["shape"] or (None,))[0]
    ):
        return (
            f"Your caches have room for {room} positions of {keys.shape[0]} sequences: the "
            "arguments of new_caches are swapped, new_caches(len + max_new_tokens, batch). "
            "The order is model.new_caches(batch, max_len): one slot per sequence of the "
            "batch, max_len = len + max_new_tokens positions each."
        )
    if room is not None and room < length + new:
        # which term the size left out, read from the room the caches have (mutant
        # generate-15, new_caches(batch, len), was told only that they were too small)
        sizes = (
            (length, f"the prompt's len = {length} only, max_new_tokens left out"),
            (new, f"max_new_tokens = {new} only, the prompt's len left out"),
            (
                length + new - 1,
                "len + max_new_tokens - 1, enough only if the last chosen token is not fed, "
                "and yours feeds it",
            ),
        )
        which = [text for size, text in sizes if size == room]
        if room == length + new - 1 and len(calls) > new:
            # blind16e-gen-feeds-last-token-caches-one-short: the two halves of one
            # choice, each of which alone would be right
            return (
                f"Your caches have room for {room} positions, len + max_new_tokens - 1, "
                f"and your loop ran the model {len(calls)} times: the prompt, then each of "
                f"the {new} chosen tokens: the last chosen token was fed to the model too, "
                "a useless call (its logits choose no token) whose position does not fit. "
                "Either skip "
                "it, feeding the model after a step only if step + 1 < max_new_tokens (then "
                "len + max_new_tokens - 1 positions are enough), or make the caches "
                "model.new_caches(batch, len + max_new_tokens)."
            )
        if which:
            return (
                f"Your caches have room for {room} positions: {' or '.join(which)}. "
                + _CACHE_TOO_SMALL
            )
    return _CACHE_TOO_SMALL


def _refed_last(call: dict, held: int, ids, step0_wrong: bool) -> bool:
    """Whether a one-token call fed again the token already stored at position held - 1
    (start = held - 1): a token other than the one the learner's ids hold at position
    held, or the same one (a model repeating its token) while the step-0 logits are not
    the prefill's (the first call's logits unused, so this call chose the first token)."""
    fed = call.get("ids")
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2 or not isinstance(fed, torch.Tensor):
        return False
    if fed.dim() != 2 or fed.shape != (ids.shape[0], 1) or held < 1 or held >= ids.shape[1]:
        return False
    again = ids[:, held - 1 : held].long()
    return torch.equal(fed.long(), again) and (
        step0_wrong or not torch.equal(fed.long(), ids[:, held : held + 1].long())
    )


#: how a learner's own position counter (the start it passes) may advance between two
#: calls after the prefill, in words: what it adds after each call instead of the one
#: position that call fed
_START_UPDATES = {
    "sequence": "the length of the whole sequence so far (ids.shape[1], the prompt and the "
    "tokens generated) instead of the one position that call fed",
    "prompt": "the prompt's length len instead of the one position that call fed",
    "fed + 1": "2, one more than the one position that call fed: it runs one further "
    "ahead at every step",
    "sequence before": "the length of the whole sequence so far, read before the step's "
    "new token was appended (ids.shape[1] taken before the torch.cat), instead of the one "
    "position that call fed",
    "generated": "the number of tokens generated so far (the step count, or ids.shape[1] - "
    "len) instead of the one position that call fed",
    "batch": "the batch's size (ids.shape[0], prompt.shape[0]: the rows, not the positions) "
    "instead of the one position that call fed",
}


_UNPACKING = (
    "the model returns the logits tensor alone, (batch, len, vocab), not a pair such as "
    "nanoGPT's (logits, loss): unpacking it into two names, logits, _ = model(...), or "
    "taking its item [0] as if it were a pair, splits the tensor along its first axis, the "
    "batch (unpacking raises unless the batch holds two sequences; then, as with [0], logits "
    "is the first sequence's table). Take the tensor itself: "
    "logits = model(ids, caches=caches, start=...)[:, -1]."
)


def _unpacked_output_hint(exc: BaseException, outputs: list) -> str:
    """The model's output unpacked as if it were a pair: a ValueError of unpacking right
    after a call of the model, or a name in the learner's frames holding one sequence of
    an output of the model (output[i], as unpacking gives) where the batch belongs."""
    from transformer_course.checking.failure import _is_learner_frame, learner_lines

    if not outputs:
        return ""
    unpacking = isinstance(exc, ValueError) and "values to unpack" in str(exc)
    if unpacking and re.search(r"\w+\s*,\s*[\w*]+\s*=\s*\w+\(", learner_lines(exc)):
        return f"Unpacking failed right after a call of the model: {_UNPACKING}"
    learner_locals = []
    frames = exc.__traceback__
    while frames is not None:
        if _is_learner_frame(frames.tb_frame.f_code.co_filename):
            learner_locals += [
                (name, value)
                for name, value in frames.tb_frame.f_locals.items()
                if isinstance(value, torch.Tensor) and value.is_floating_point()
            ]
        frames = frames.tb_next
    whole = [
        piece
        for output in outputs
        if isinstance(output, torch.Tensor) and output.dim() == 3
        for piece in (output, output[:, -1])
    ]
    if any(value.shape == piece.shape for _, value in learner_locals for piece in whole):
        return ""  # the batch is held whole somewhere: a sequence taken from it on purpose
    for name, value in learner_locals:
        for output in outputs:
            if not isinstance(output, torch.Tensor) or output.dim() != 3 or output.shape[0] < 2:
                continue
            # one sequence's table, or a row or column of it (its [-1] or [:, -1])
            found = next(
                (
                    (i, part)
                    for i in range(output.shape[0])
                    for part, piece in (
                        ("", output[i]),
                        ("[-1]", output[i][-1]),
                        ("[:, -1]", output[i][:, -1]),
                    )
                    if value.shape == piece.shape and torch.equal(value, piece)
                ),
                None,
            )
            if found is not None:
                row, part = found
                return (
                    f"Your `{name}` {tuple(value.shape)} is output[{row}]{part}, from one "
                    f"sequence of a call of the model that returned {tuple(output.shape)}: "
                    f"{_UNPACKING}"
                )
    return ""


def _one_row_hint(exc: BaseException, calls: list[dict]) -> str:
    """An index past position 0 of the logits of a call that fed one token (mutant
    generate-18, [:, -2] after each new token, got the raw IndexError alone)."""
    found = re.search(r"index (-?\d+) is out of bounds", str(exc))
    last = calls[-1] if calls else None
    if not found or not last or not last["shape"] or last["shape"][1:] != (1,):
        return ""
    index = int(found[1])
    first = calls[0]["shape"] if calls[0]["shape"] else ()
    prompt_last = (
        f" Index {index} is len - 1 = {first[1]} - 1, the prompt's last position: right for "
        "the prefill, whose logits have a row per prompt token, but a one-token call has "
        "only row 0. Read [:, -1] instead of [:, len - 1] (or [:, length - 1])."
        if len(first) == 2 and first[1] > 1 and index == first[1] - 1
        else ""
    )
    return (
        f"Call {len(calls)} of the model fed one token, so its logits are (batch, 1, vocab): "
        f"[:, {found[1]}] reads a row that only a call of several tokens (the prefill) has. "
        "The logits that choose the next token are the last row, [:, -1], on every call."
        + prompt_last
    )


def _one_dimensional_ids_hint(calls: list[dict], batch: int) -> str:
    """A call after the prefill that fed the model a 1-D (batch,) vector of tokens, without
    the length axis (blind14e-gen-new-token-fed-one-dimensional, ids[:, -1], got the raw
    error of split_heads alone); "" when no call did."""
    for number, call in enumerate(calls):
        if call["shape"] != (batch,):
            continue
        if number == 0:  # the prompt fed token by token, each token as prompt[:, i]
            made, column = "prompt[:, i] makes", "prompt[:, i : i + 1]"
        else:
            made = "ids[:, -1] or logits.argmax(dim=-1) without keepdim make"
            column = "ids[:, -1:] or next_id = logits.argmax(dim=-1, keepdim=True)"
        return (
            f"Call {number + 1} of the model fed ids of shape ({batch},): a 1-D (batch,) "
            f"vector, one token per sequence without the length axis, as {made}. The model "
            "takes ids of shape (batch, n): without the length axis its embedding gives "
            "(batch, d_model) where its layers expect (batch, n, d_model). Feed the token as "
            f"a column, (batch, 1): {column}."
        )
    return ""


def _start_counts_tokens(calls: list[dict]) -> str:
    """When every call's start is (batch size) × the positions its caches held, plus one
    constant (tokens counted before this generate call), and that is not the position
    itself: a counter of the tokens the model processed, over every sequence of the batch
    and not reset between calls, passed as the start; "" when no such factor and offset fit
    every call of the run (three at least) or the factor and offset are 1 and 0."""
    pairs = []  # (start, held, batch) of each call
    for call in calls:
        held = call["held"][0] if call["held"] else None
        start = call["start"]
        shape = call["shape"]
        if not isinstance(held, int) or not isinstance(start, int) or isinstance(start, bool):
            return ""
        if not shape or len(shape) != 2:
            return ""
        pairs.append((start, held, shape[0]))
    batches = {batch for _, _, batch in pairs}
    if len(pairs) < 3 or len(batches) != 1:
        return ""
    batch = batches.pop()
    for factor in dict.fromkeys((batch, 1)):
        offset = pairs[0][0] - factor * pairs[0][1]
        if (factor, offset) == (1, 0) or offset < 0:
            continue
        if all(start == factor * held + offset for start, held, _ in pairs):
            counted = (
                f"{factor} × the positions the caches held, the tokens of all {factor} "
                "sequences of the batch (batch × (len + t) for step t)"
                if factor > 1
                else "the positions the caches held"
            )
            before = (
                f", plus {offset} counted before this generate call (a counter never reset)"
                if offset
                else ""
            )
            return (
                f" Over every call your start is {counted}{before}: starts "
                f"{[start for start, _, _ in pairs]} where the caches held "
                f"{[held for _, held, _ in pairs]}. That is a count of the tokens the model "
                "has processed (as a counter kept on the model, such as positions_processed, "
                "gives: it counts every sequence of the batch and every earlier call), not a "
                "position. start is the position of ids[:, 0] within one sequence: the number "
                "of positions this generate call's caches hold (0 for the prompt, len + t for "
                "the token chosen at step t)."
            )
    return ""


def _start_constant_ahead(calls: list[dict], length: int) -> str:
    """When every call after the prefill ran with start = (the positions its caches held)
    + one constant c != 0, over three calls at least: the start is right in how it
    advances but off by c from the prefill on; c = len is the prompt's length counted twice
    (a counter started at len and then advanced by the prompt again). "" otherwise."""
    offsets = set()
    for call in calls[1:]:
        held = call["held"][0] if call["held"] else None
        start = call["start"]
        if not isinstance(held, int) or not isinstance(start, int) or isinstance(start, bool):
            return ""
        offsets.add(start - held)
    if len(calls) < 4 or len(offsets) != 1:
        return ""
    offset = offsets.pop()
    if offset == 0:
        return ""
    starts = [call["start"] for call in calls[1:]]
    helds = [call["held"][0] for call in calls[1:]]
    said = (
        f" Over the calls after the prefill your starts are {starts}, where the caches held "
        f"{helds} positions: each start is {abs(offset)} "
        f"{'more' if offset > 0 else 'less'} than the positions held, at every call, so it "
        "advances right but starts from the wrong place."
    )
    if offset == length:
        return said + (
            f" {offset} is the prompt's length len: it is counted twice, start = 2·len + t "
            "instead of len + t for step t (a position that starts at len and then adds the "
            "prompt's length again after the prefill). Count the prompt once."
        )
    prefill = calls[0]["shape"]
    fed = prefill[1] if prefill and len(prefill) == 2 else None
    if offset > 0:
        late = (
            f" Every token after the prefill is rotated {offset} position"
            f"{'s' if offset > 1 else ''} too far, leaving a gap after position {helds[0] - 1}"
            f" (position{'s' if offset > 1 else ''} {helds[0]}"
            + (f" .. {helds[0] + offset - 1}" if offset > 1 else "")
            + " never used)."
        )
    else:
        late = f" Every token after the prefill is rotated {-offset} position(s) too early."
    if fed == length - 1 and offset == 1:
        # blind24c-gen-last-prompt-token-one-position-late: the prefill stops one token
        # short and the prompt's last token runs on its own at start=len
        return (
            said
            + late
            + f" Your prefill fed the prompt's first len - 1 = {length - 1} tokens, so the "
            f"prompt's last token, fed on its own next, sits at position len - 1 = "
            f"{length - 1}, not len = {length}: its start is len - 1, and each generated "
            "token's start one more (the positions the caches hold before the call)."
        )
    return said + late + " start is the number of positions the caches hold before the call."


def _start_rule(calls: list[dict], length: int) -> str:
    """The one wrong rule by which the learner's start advances from call to call after
    the prefill, read over every such call of the run (each start against the positions
    the caches held): what it adds after each call (the whole sequence's length, the
    prompt's length, one too many), in words; "" when no such rule or more than one fits
    every call, a call is not one token through the same caches, or fewer than two steps
    follow the first call after the prefill (one step cannot tell the rules apart)."""
    starts, quantities = [], []
    for number, call in enumerate(calls[1:], 1):
        held = call["held"][0] if call["held"] else None
        start = call["start"]
        fed = call["shape"][1] if call["shape"] and len(call["shape"]) == 2 else None
        if not isinstance(held, int) or not isinstance(start, int) or isinstance(start, bool):
            return ""
        if fed != 1:
            return ""
        if number > 1:
            batch = call["shape"][0]
            quantities.append(
                {
                    "fed": 1,
                    "sequence": held,
                    "prompt": length,
                    "fed + 1": 2,
                    "generated": held - length,
                    # ids.shape[1] read before the step's token was appended
                    "sequence before": held - 1,
                }
                # the batch's size, where it differs from the 1 and 2 above
                | ({"batch": batch} if batch > 2 else {})
            )
        starts.append(start)
    if len(starts) < 3:
        return ""
    names = advance_rules(starts, quantities)
    if len(names) != 1 or names[0] not in _START_UPDATES:
        return ""
    helds = [call["held"][0] for call in calls[1:]]
    advance = _START_UPDATES[names[0]]
    shape = calls[1]["shape"]
    if names[0] == "fed + 1" and shape and shape[0] == 2:
        # with two sequences an advance of 2 is also the batch's count of new tokens (a
        # start from ids.numel(), every sequence's tokens counted): both named
        advance = (
            "2: one more than the one position that call fed, or the batch's 2 sequences' "
            "new tokens together (a start counted over every sequence of the batch, as "
            "ids.numel() counts; the two agree with a batch of 2)"
        )
    return (
        f" Over the calls after the prefill your starts are {starts}, where the caches held "
        f"{helds} positions: after each call your start advances by "
        f"{advance}. Advance it by the positions each call feeds, so that "
        "start is always the number of positions the caches hold (len + t for the token "
        "chosen at step t)."
    )


def _departure_message(departure, calls: list[dict], which: str, length: int) -> str:
    """What the first call whose caches depart from the protocol did (checking.call_replay's
    Departure), in words; "" for a departure of its start (told by the callers, who read
    how the start advanced)."""
    kind, number = departure.kind, departure.call
    if kind == "stateless" and number == 0:
        later = departure.later
        if later and later.get("held") == 0:
            k = later["call"]
            prompt_calls = (
                "the prompt's call of the model got caches=None (model(prompt)), so it "
                "stored nothing"
                if k == 1
                else f"the prompt's calls of the model (calls 1 .. {k}) got caches=None, so "
                "they stored nothing"
            )
            return (
                f"The prefill ran without the caches: {prompt_calls}, and the caches were still "
                f"empty when call {k + 1}, the first new token's, used them (0 positions held, "
                f"where the prompt's {length} belong). Every new token then attends only to "
                "the tokens generated after the prompt, never to the prompt itself; the first "
                "token, chosen from the prefill's own logits, is the only right one. Pass the "
                "caches to the prefill: model(prompt, caches=caches, start=0), then feed each "
                "new token through the same caches."
            )
        return (
            "The prompt ran through the model without the caches (caches=None): they "
            "stay empty, so the new tokens attend to nothing of the prompt. Pass the "
            "caches to the prefill call too: model(prompt, caches=caches, start=0)."
        )
    if kind == "stateless":
        return (
            f"{which.capitalize()} ran without the caches (caches=None): a new token "
            "must go through the same caches as the prompt, with start = its position."
        )
    if kind == "not empty":
        return _kept_caches_message(departure, second=False)
    if kind == "new state" and departure.held:
        left = calls[number - 1].get("after") if number > 0 else None
        left = left[0] if left else None
        holding = (
            f", holding the {left} positions the call before left in its own"
            if left == departure.held
            else f", already holding {departure.held} positions"
            + (f" where the call before left {left}" if isinstance(left, int) else "")
        )
        return (
            f"{which.capitalize()} got other cache objects than the ones the call before "
            f"used{holding}: copies of the caches (copy.deepcopy, or new caches filled from "
            "the old), so "
            "what a call stores goes into a copy and the caches the next call reads never "
            "hold it. Pass the same cache objects, made once before the prefill, to every call."
        )
    if kind == "new state":
        ours = calls[number]["caches"] or []
        kept_after = number + 1 < len(calls) and any(
            cache is mine for cache in calls[number + 1]["caches"] or [] for mine in ours
        )
        how = (
            "a second set was made after the earlier calls and used from then on, so from "
            "this call on the new tokens never attend to the positions stored before it (the "
            "prompt's)"
            if kept_after
            else "the caches are made anew at every step, so each new token attends to itself only"
        )
        return (
            f"{which.capitalize()} got new, empty caches instead of the ones the earlier "
            f"calls filled: {how}. Make them once, before the prefill "
            "(model.new_caches(batch, len + max_new_tokens)), and pass the same list to "
            "every call."
        )
    if kind == "reordered":
        order = departure.later.get("order", [])
        reversed_ = " (reversed)" if order == list(range(len(order)))[::-1] else ""
        return (
            f"{which.capitalize()} got the same caches as the call before, but in another "
            f"order: its list is the call before's caches[j] for j in {order}{reversed_}, "
            "so each layer reads and extends another layer's keys and values. Pass "
            "the list as new_caches made it, in the same order at every call (not reversed, "
            "sorted or rebuilt)."
        )
    if kind == "changed":
        held, left = departure.held, departure.expected
        how = (
            "emptied between the two calls (their length set back to 0)"
            if held == 0
            else f"set back by {left - held} position{'s' if left - held != 1 else ''}"
            if held < left
            else f"moved on by {held - left} position{'s' if held - left != 1 else ''}"
        )
        return (
            f"The caches changed between call {number} and call {number + 1} of the model, "
            f"outside it: call {number} left them holding {left} positions, and call "
            f"{number + 1} found {held}: {how}. Only the model's calls change the caches: "
            "each stores its positions after the ones held, and every later token attends to "
            "all of them. Do not reset or edit the caches in the loop (no cache.length = "
            "..., no reset between steps); pass the same caches, as the last call left them."
        )
    return ""


def _kept_caches_message(departure, *, second: bool) -> str:
    """Caches that were not empty when a generate call began (departure "not empty"):
    ``second`` when this is the second generate call on a model whose first one filled
    them."""
    held = departure.held
    whose = (
        "the first generate call's keys and values, in the same cache objects"
        if second
        else "the keys and values of an earlier generate call, in the same cache objects"
        if departure.outlived
        else "positions stored before this generate's first call of the model"
    )
    where = "The second generate call on this model" if second else "This generate"
    return (
        f"{where} started with caches that were not empty: its first call of the model, the "
        f"prompt's, found them already holding {held} position{'s' if held != 1 else ''}, "
        f"{whose}. The caches outlive the call that filled them (kept on the model, in a "
        "global, in a default argument or an attribute): this prompt is stored after the "
        "old positions and attends to them, or the caches overflow (or do not fit this "
        "prompt's batch at all). Make fresh caches "
        "inside generate at every call, caches = model.new_caches(batch, len + "
        "max_new_tokens) as a local variable, never kept from one call to the next."
    )


def _diagnose_calls(
    calls: list[dict], length: int, ids=None, step0_wrong: bool = False, earlier=()
) -> str:
    """The first call of the model that departs from generation with a cache (the prompt
    with fresh caches at start 0, or token by token; then each new token with the same
    caches and start = the number of positions they hold), named; "" when none does."""
    seen: list = []  # every cache object the earlier calls used
    position = 0  # positions fed through the caches so far
    # the replay (checking.call_replay): the first call whose caches depart from the
    # protocol (none passed, new ones, not empty at the start, changed between calls),
    # named at that call; the positions and tokens fed are read below, call by call
    departure = first_departure(calls, earlier)
    for number, call in enumerate(calls):
        n = call["shape"][1] if call["shape"] and len(call["shape"]) == 2 else None
        # a call after the first that feeds positions of the prompt: a chunked (or token
        # by token) prefill, whose start is the count of prompt positions fed before it
        chunk = number > 0 and position < length and bool(n)
        which = (
            "the prompt's call (the prefill)"
            if number == 0
            else f"call {number + 1} of the model (a chunk of the prompt, positions "
            f"{position} .. {position + n - 1})"
            if chunk and n > 1
            else f"call {number + 1} of the model (the prompt's token at position {position})"
            if chunk
            else f"call {number + 1} of the model (the token at position {position})"
        )
        if departure is not None and departure.call == number:
            named = _departure_message(departure, calls, which, length)
            if named:
                return named
        held = call["held"][0] if call["held"] else None
        if number == 0 and isinstance(held, int) and held > 0:
            # caches not empty before the prompt went in, said by _departure_message (a
            # start that matches the old positions is no position mistake)
            return ""
        held = call["held"][0] if call["held"] else None
        if number > 0 and isinstance(held, int) and held >= length and n and n > 1:
            return _refed(calls, length)
        if number == 0 and held == 0 and isinstance(call["start"], int) and call["start"] > 0:
            if n == length:
                # the whole prompt ran, at the wrong positions (told, before, that positions
                # 0 .. start - 1 of the prompt never ran)
                return (
                    f"The prompt's call (the prefill) fed all {length} prompt tokens, but with "
                    f"start={call['start']}: RoPE rotated them as positions {call['start']} .. "
                    f"{call['start'] + length - 1} instead of 0 .. {length - 1}. start is the "
                    "absolute position of ids[:, 0], 0 for the prompt: model(prompt, "
                    "caches=caches, start=0); the new tokens follow at len + t."
                )
            return (
                f"The first call of the model ran {n if n is not None else 'the'} token(s) "
                f"from position {call['start']} into empty caches: positions 0 .. "
                f"{call['start'] - 1} of the prompt never ran, so the caches never hold them "
                "and the new tokens cannot attend to them. Run the whole prompt first, "
                "model(prompt, caches=caches, start=0) (or token by token from position 0)."
            )
        if isinstance(held, int) and call["start"] != held:
            if (
                number > 0
                and n == 1
                and call["start"] == held - 1
                and _refed_last(call, held, ids, step0_wrong and number == 1)
            ):
                # (blind10k-gen-last-prompt-token-fed-twice was told only its start)
                return (
                    f"{which.capitalize()} fed the token at position {held - 1} again "
                    f"(start={held - 1})"
                    + (", the prompt's last token," if held == length else "")
                    + " which the call before already stored: that position is now twice in "
                    "the caches, and every later token attends to it twice. The logits of the "
                    "call that stored it already choose the next token: append their argmax "
                    f"and feed that token, at start = {held} (the positions the caches hold)."
                )
            if number > 0 and call["start"] == calls[number - 1]["start"]:
                return (
                    f"{which.capitalize()} ran with start={call['start']}, the same start as "
                    f"the call before: start never advances. The caches held {held} "
                    f"position{'' if held == 1 else 's'}, so "
                    f"{'its first token' if n and n > 1 else 'this token'} sits at position "
                    f"{held}: pass start={held} "
                    + (
                        "(len + t)."
                        if held >= length
                        else "(its position in the prompt, fed token by token)."
                        if n == 1
                        else "(the position of this chunk's first token in the prompt)."
                    )
                )
            step = held - length  # the step whose token this call feeds
            counted = (
                f" Your start={call['start']} counts the new tokens only (t or t + 1 for "
                f"step t = {step}), without the prompt's len = {length} positions before "
                "them: add the prompt's length."
                if number > 0 and length > 1 and call["start"] in (step, step + 1)
                else f" Your start={call['start']} is len - t for step t = {step}: it falls "
                "by one at each step where it should rise (a minus where + belongs): start = "
                "len + t."
                if number > 0 and step > 0 and call["start"] == length - step
                else _start_counts_tokens(calls)
                or _start_constant_ahead(calls, length)
                or _start_rule(calls, length)
            )
            if held < length and number > 0 and not counted:
                # a piece of the prompt fed after the first call (blind30c-gen-chunked-
                # prefill-offset-counted-twice was told len + t, the rule of the new tokens)
                twice = (
                    f" Your start={call['start']} is twice the {held} positions fed before "
                    "it: that count was added twice (as start=processed + begin does, where "
                    "processed already counts the positions before begin)."
                    if held > 0 and call["start"] == 2 * held
                    else ""
                )
                return (
                    f"{which.capitalize()} ran with start={call['start']}, but the caches held "
                    f"{held} positions, so its first token sits at position {held}: start is "
                    "the absolute position of ids[:, 0], which RoPE rotates by; for a piece "
                    "of the prompt, the number of prompt positions fed before it (the "
                    "caches' length), whatever the size of the pieces."
                    f"{twice} The new tokens then follow at len + t."
                )
            gap = call["start"] - held if isinstance(call["start"], int) else 0
            off = (
                f" (start={call['start']} is {abs(gap)} too {'large' if gap > 0 else 'small'})"
                if gap
                else ""
            )
            return (
                f"{which.capitalize()} ran with start={call['start']}, but the caches held "
                f"{held} positions, so its first token sits at position {held}{off}: start is "
                "the absolute position of ids[:, 0] (len + t for the token chosen at step t), "
                f"which RoPE rotates by.{counted}"
            )
        seen.extend(call["caches"])
        position = (held if isinstance(held, int) else position) + (n or 0)
    return ""


def _fed_other_tokens(calls: list[dict], ids, length: int) -> str:
    """The first call after the prefill that fed other tokens than the ones the learner's
    own ids hold at those positions, named with what was fed instead (the first generated
    token again, or the token of the step before); "" when every call fed its own tokens.
    A replay of the learner's decisions: blind10e-gen-feeds-first-token-every-step, a
    next_id computed once and fed at every step while ids got each step's argmax, was told
    only the first wrong step."""
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2:
        return ""
    for number, call in enumerate(calls):
        fed, held = call.get("ids"), call["held"][0] if call["held"] else None
        if number == 0 or not isinstance(fed, torch.Tensor) or fed.dim() != 2:
            continue
        if not isinstance(held, int) or held < length or fed.shape[0] != ids.shape[0]:
            continue
        n = fed.shape[1]
        if held + n > ids.shape[1]:
            continue
        want = ids[:, held : held + n]
        if torch.equal(fed.long(), want.long()):
            continue
        row = int((fed.long() != want.long()).any(dim=1).nonzero()[0])
        step = held - length
        if n == 1 and held > length and torch.equal(fed.long(), ids[:, length : length + 1]):
            which = (
                " It is the first generated token again, fed at every step (ids[:, len]): a "
                "next_id computed once, after the prefill, while ids got each step's own "
                "argmax."
            )
        elif n == 1 and torch.equal(fed.long(), ids[:, held - 1 : held].long()):
            which = (
                " It is the token of the position before: the token is fed one step late, "
                "as when the model reads ids[:, -1:] before appending the token just chosen "
                "to ids (the torch.cat after the model call), or a variable that "
                "still holds the previous step's token."
            )
        else:
            which = ""
        return (
            f"Call {number + 1} of the model fed {fed[row].tolist()} (row {row}) at position "
            f"{held}, but your own ids hold {want[row].tolist()} there, the token your loop "
            f"chose at step {step}.{which} Feed the model the token just appended to ids "
            "(next_id = logits.argmax(dim=-1, keepdim=True), then model(next_id, ...))."
        )
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
            if len(calls) == expected.shape[1]:
                # as many calls as generation with a cache makes, each feeding the tokens
                # and positions it should (the call checks before this one passed): the
                # model ran on the new token, and what it returned was not used
                return (
                    f"Your logits at step {t} repeat those of step {t - 1}, although your "
                    f"function ran the model {len(calls)} times, as it should, on the right "
                    f"tokens: the step's new logits are discarded, never read after the "
                    f"model returns them (assigned to another name than the one the argmax "
                    f"and the record read?), so each step reuses the logits of step {t - 1}. "
                    "Assign the model's output to the logits each step reads: logits = "
                    "model(next_id, caches=caches, start=...)[:, -1]."
                )
            return (
                f"Your logits at step {t} repeat those of step {t - 1}: the model was not run "
                f"on the token chosen at step {t - 1} before step {t} recorded its logits "
                f"(your function called the model {len(calls)} times; with a cache it runs "
                f"the prompt once, then each new token but the last: {expected.shape[1]} "
                "calls)."
            )
        return ""
    return ""


def _scaled_logits(got: torch.Tensor, expected: torch.Tensor) -> str:
    """Whether the learner's logits are the right ones times one constant (divided by a
    temperature, say)."""
    got, expected = got.detach().double(), expected.double()
    big = expected.abs() > 1e-3
    if not bool(big.any()):
        return ""
    # the constant by least squares, then every logit against it with the logits' own
    # tolerance (a ratio of two float32 logits near 0 is far less precise than either)
    c = float((got[big] * expected[big]).sum() / (expected[big] ** 2).sum())
    if abs(c - 1) < 1e-3 or not torch.allclose(got, c * expected, rtol=1e-4, atol=1e-4 * abs(c)):
        return ""
    return (
        f"Your logits are the model's logits times {c:.4g} (divided by {1 / c:.4g}: a "
        "temperature?): greedy generation records the model's output itself, logits[:, t] "
        "as the model returned it; the argmax, and so the tokens, are the same either way."
    )


def _changed_at_seen_ids(got, expected, ids, length: int) -> str:
    """Whether the first recorded logits (the prefill's, where the reference's are the
    model's own output) differ from the model's only at the ids of the prompt's tokens:
    the logits were changed after the model, for the tokens already in the sequence (a
    repetition penalty, a ban on repeats, ...), and how: each changed logit divided by c
    where positive and multiplied by c where negative (CTRL's penalty), set to -inf, or
    lowered by one constant. "" when other ids changed too, or nothing fits
    (blind23c-gen-repetition-penalty was told only the step)."""
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2 or got.dim() != 3:
        return ""
    if got.shape != expected.shape or ids.shape[0] != got.shape[0] or length < 1:
        return ""
    mine, model = got[:, 0].detach().double(), expected[:, 0].double()  # (batch, vocab)
    changed = ~torch.isclose(mine, model, rtol=1e-4, atol=1e-4)  # (batch, vocab)
    if not bool(changed.any()):
        return ""
    prompt = ids[:, :length].long()  # (batch, length)
    if bool(prompt.min() < 0) or bool(prompt.max() >= got.shape[-1]):
        return ""
    seen = torch.zeros_like(changed).scatter(1, prompt, True)  # (batch, vocab)
    if bool((changed & ~seen).any()):
        return ""
    what = "changed"
    before, after = model[changed], mine[changed]  # (changed,)
    if bool(torch.isneginf(after).all()):
        what = "set to -inf (those tokens forbidden)"
    elif bool(torch.isfinite(after).all()):
        positive, negative = before > 0, before < 0
        factors = torch.cat(
            [before[positive] / after[positive], after[negative] / before[negative]]
        )
        lowered = before - after
        if factors.numel() and torch.allclose(
            factors, factors.mean().expand_as(factors), rtol=1e-3
        ):
            c = float(factors.mean())
            what = (
                f"divided by {c:.4g} where positive and multiplied by {c:.4g} where negative: a "
                f"repetition penalty (CTRL's, as generate(repetition_penalty={c:.4g}) applies)"
            )
        elif torch.allclose(lowered, lowered.mean().expand_as(lowered), rtol=1e-3):
            what = f"lowered by {float(lowered.mean()):.4g} (a penalty on repeats)"
    shown = sorted(set(prompt[0].tolist()))
    return (
        "Your first logits differ from the model's only at the ids of tokens already in the "
        f"sequence (the prompt's, {shown} for sequence 0), where they were {what}. The model "
        "ran right; its logits were changed afterwards for the tokens seen so far. Greedy "
        "generation takes the argmax of the model's logits unchanged and records them as the "
        "model returned them: remove that change."
    )


def _step0_wrong(got, expected) -> bool:
    """Whether the first recorded logits (those the prefill gives) are wrong."""
    if not isinstance(got, torch.Tensor) or got.shape != expected.shape or got.dim() != 3:
        return False
    return not torch.allclose(got[:, 0].double(), expected[:, 0].double(), rtol=1e-4, atol=1e-4)


def _explain_generation(got, expected, calls, length: int, ids=None) -> str:
    """The first wrong step, and the first call of the model that departs from generation
    with a cache (or feeds other tokens than the learner's own ids hold, or logits
    recorded a step off, or a step's logits repeating the step before's); when none
    explains it, the first wrong step alone."""
    cause = (
        _shared_cache(calls)
        or _diagnose_calls(calls, length, ids, _step0_wrong(got, expected))
        or _fed_other_tokens(calls, ids, length)
        or _changed_at_seen_ids(got, expected, ids, length)
        or _scaled_logits(got, expected)
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


def _three_axes_hint(calls: list[dict], batch: int, new: int) -> str:
    """torch.cat met a 3-axis tensor. When every call fed the model what it should (the
    prompt, then a (batch, 1) column per step, all of them), the tokens were right columns
    and the third axis was made when they were joined: torch.stack of columns
    (blind12e-gen-new-tokens-stacked), whatever its dim. Otherwise a token tensor fed to
    the model already had 3 axes: the argmax of logits that kept their position axis."""
    steps = calls[1:]
    columns = (
        len(calls) == new
        and calls[0]["shape"] is not None
        and len(calls[0]["shape"]) == 2
        and all(call["shape"] == (batch, 1) for call in steps)
    )
    if columns:
        return (
            f"All {new} calls of the model ran, each step feeding a (batch, 1) = ({batch}, 1) "
            "column, the right tokens' shape: the tensor with 3 axes was made afterwards, "
            "when the new tokens were joined. torch.stack of (batch, 1) columns adds an "
            "axis, (batch, max_new_tokens, 1) with dim=1; join them with torch.cat(columns, "
            "dim=1), (batch, max_new_tokens), or append each to ids as it is chosen."
        )
    return _GENERATE_HINTS[1][1]


_CACHE_TOO_SMALL = (
    "The caches are too small for the positions your loop feeds: the reference KVCache "
    "refuses to store more than the max_len it was made with. Every position fed to the "
    "model is stored, the prompt's and each new token's: make them with "
    "model.new_caches(batch, len + max_new_tokens)."
)
_CAT_SIZES = re.compile(r"Expected size (\d+) but got size (\d+) for tensor number 1")


def _batch_axis_indexed_hint(exc: BaseException, batch: int, length: int) -> str:
    """When the token appended to ids (batch, len) has len rows where batch belong: the
    prefill's logits (batch, len, vocab) were indexed on the batch axis, one sequence's
    (len, vocab) (blind18c-gen-prefill-last-batch-row was told the cat's rule alone); ""
    otherwise (batch == len cannot tell)."""
    found = _CAT_SIZES.search(str(exc))
    if not found or batch == length:
        return ""
    if (int(found.group(1)), int(found.group(2))) != (batch, length):
        return ""
    return (
        f"The token you appended has len = {length} rows where batch = {batch} belong: it "
        f"came from logits of shape (len, vocab) = ({length}, vocab), one sequence's logits "
        "at every prompt position. The prefill's output (batch, len, vocab) was indexed on "
        "its first axis, the batch axis ([-1] picks the last sequence, [0] the first), "
        "instead of [:, -1], each sequence's last position: logits = model(prompt, ...)[:, "
        "-1], (batch, vocab)."
    )


_GENERATE_HINTS = [  # the first two are replaced in check_generate (overflow, three_axes)
    ("the cache holds", _CACHE_TOO_SMALL),
    (
        "Tensors must have same number of dimensions: got 2 and 3",
        "The tokens you appended have 3 axes: the argmax was taken over logits with a "
        "position axis, (batch, len, vocab), as the prefill's output is before its last "
        "row is taken (or a [:, -1:] slice that keeps the axis). Keep the last position's row, "
        "logits = model(...)[:, -1], (batch, vocab); its argmax(dim=-1, keepdim=True) is the "
        "(batch, 1) column to append.",
    ),
    (
        "Tensors must have same number of dimensions: got 2 and 1",
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


_BATCH_OF_ONE_DROPPED = (
    "Your generate runs with a batch of 2 sequences (this prompt twice) and fails with this "
    "batch of one: an axis of size 1 is dropped, and with one sequence that is the batch "
    "axis too. A .squeeze() with no dim removes every axis of size 1: a step's logits "
    "(1, 1, vocab) become (vocab,), not (batch, vocab) = (1, vocab), and the token chosen "
    "from them is then no (batch, 1) column. Take the last position with logits[:, -1] "
    "(or .squeeze(1), naming the axis), which keeps the batch axis whatever its size."
)


def _columns_hint(generate, seed: int, sizes: dict, prompt: torch.Tensor, new: int):
    """torch.cat met ids (batch, len) and a 1-axis tensor of new tokens. With several
    sequences: an argmax without keepdim. With one, a batch of two tells the causes apart
    (blind13e-gen-step-logits-squeezed, a .squeeze() of the step's logits that took the
    batch axis of 1 with it, was told to keep the argmax's axis): an answer that runs on
    two sequences drops an axis of size 1, one that fails the same way loses the column
    whatever the batch; both candidates are named when the probe tells nothing."""

    def hint(_exc: BaseException) -> str:
        if prompt.shape[0] != 1:
            return _GENERATE_HINTS[2][1]
        two = prompt.expand(2, -1).clone()  # (2, len): the same prompt twice
        try:
            ids, _ = generate(_model(seed, sizes), two, new)
            runs = isinstance(ids, torch.Tensor) and tuple(ids.shape) == (2, two.shape[1] + new)
            same_error = False
        except Exception as exc:  # the learner's code: how it fails is the evidence
            runs = False
            same_error = "same number of dimensions: got 2 and 1" in str(exc)
        if runs:
            return _BATCH_OF_ONE_DROPPED
        if same_error:
            return _GENERATE_HINTS[2][1]
        return (
            "torch.cat met tensors with different numbers of axes: ids are (batch, len), so "
            "the tokens appended at each step must be a column (batch, 1). Two slips give "
            "this: an argmax that drops its axis (logits.argmax(dim=-1) gives (batch,); keep "
            "it with keepdim=True or next_id[:, None]), or, with one sequence, a .squeeze() "
            "with no dim that drops the batch axis of size 1 (logits (1, 1, vocab) become "
            "(vocab,); take logits[:, -1] instead)."
        )

    return ("Tensors must have same number of dimensions: got 2 and 1", hint)


def _log_probs_message(expected) -> str:
    """The log-probabilities' message; where the logits are so peaked that log_softmax and
    the row's maximum subtracted agree to the check's tolerance, both are named (the
    numbers cannot tell them apart)."""
    log_probs = expected.double().log_softmax(dim=-1)
    less_max = expected.double() - expected.double().amax(dim=-1, keepdim=True)
    if not torch.allclose(less_max, log_probs, rtol=1e-4, atol=1e-4):  # as expect_close
        return _RECORDED_LOG_PROBS
    return (
        "Your logits are the right ones minus one constant per row: log-probabilities "
        "(log_softmax), or the row's maximum subtracted (logits - logits.max(dim=-1, "
        "keepdim=True).values); on these peaked logits the two agree. Record the model's "
        "output itself, before any normalisation."
    )


def _shifted_rows(got, want) -> str:
    """Logits that are the right ones shifted by a constant per row (per sequence and step):
    a normalisation applied before recording (checking.row_shifts names which); "" otherwise.
    The argmax, and so every token, is the same: only what is recorded differs."""
    if not (isinstance(got, torch.Tensor) and got.shape == want.shape and got.dim() == 3):
        return ""
    shifted = row_shift_note(got, want)
    return (
        f"Your recorded logits are not the model's output: {shifted} Record logits[:, t] as "
        "the model returned it; the argmax, and so the tokens, are the same either way."
        if shifted
        else ""
    )


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
    rows = (chosen[:, t] != greedy[:, t]).nonzero().flatten()
    if right and t > 0 and torch.equal(chosen[rows, t], chosen[rows, t - 1]):
        c.fail(
            f"{call}: the logits up to step {t} are right, but the token appended at step {t} "
            f"(ids[:, len + {t}]) repeats the one of step {t - 1} where that step's argmax "
            "differs: next_id is not recomputed from each step's logits (computed once, "
            "before the loop, or kept from an earlier step). At every step append "
            "logits.argmax(dim=-1, keepdim=True) of that step's logits, and feed that token."
        )
    batch = chosen.shape[0]
    shared = [r for r in range(batch) if bool((chosen[:, t] == greedy[r, t]).all())]
    if right and batch > 1 and shared and not bool((greedy[:, t] == greedy[0, t]).all()):
        # every row got one row's token (blind10k-gen-first-token-from-first-row, the
        # argmax of logits[0] given to the batch, was told only "not the argmax")
        c.fail(
            f"{call}: the logits up to step {t} are right, but at step {t} every sequence of "
            f"the batch got the same token, {int(chosen[0, t])}, the argmax of row "
            f"{shared[0]}'s logits, although the rows' argmaxes differ "
            f"({greedy[:, t].tolist()}): the token was chosen from one row's logits (such as "
            "logits[0].argmax()) and given to every row. Take the argmax of each row: "
            "logits.argmax(dim=-1, keepdim=True), (batch, 1)."
        )
    if right:
        c.fail(
            f"{call}: the logits up to step {t} are right, but the token appended at step {t} "
            f"(ids[:, len + {t}]) is not the argmax of that step's logits in every row: greedy "
            "generation appends logits.argmax(dim=-1, keepdim=True), no sampling (no "
            "torch.multinomial, no temperature), and every later step depends on that token."
        )


def _stopped_at_token_zero(ids, expected_ids, length: int, new: int) -> str:
    """When ids hold fewer new tokens than max_new_tokens, all of them right, and the
    loop stopped at the first step whose tokens are all 0 (kept or not): an end-of-text
    stop (blind15e-gen-stops-at-token-zero passed every model that never chose 0); ""
    otherwise."""
    if not isinstance(expected_ids, torch.Tensor) or ids.dtype != expected_ids.dtype:
        return ""
    kept = ids.shape[1] - length  # the new tokens in ids
    if not 0 <= kept < new or not torch.equal(ids[:, length:], expected_ids[:, length:][:, :kept]):
        return ""
    zero = [  # the steps whose tokens are all 0
        step for step in range(new) if bool((expected_ids[:, length + step] == 0).all())
    ]
    if not zero or zero[0] not in (kept - 1, kept):
        return ""
    where = "the last one kept" if zero[0] == kept - 1 else "the next one, not kept"
    fewer = " (the loop ran one step too few gives this count too)" if kept == new - 1 else ""
    return (
        f"It holds {kept} new token{'s' if kept != 1 else ''}, not max_new_tokens = {new}, "
        f"and your loop stopped where every sequence's token is 0 (step {zero[0] + 1}'s, "
        f"{where}){fewer}: a stop at token 0, as an end-of-text test (if (next_id == "
        "0).all(): break) does. generate makes exactly max_new_tokens tokens, whatever "
        "they are: no early stop."
    )


#: the probe that tells a loop that ran once from one run to a total length: a prompt of
#: _PROBE_LENGTH tokens and _PROBE_NEW new ones (once: 1 new token; a total length: 3)
_PROBE_LENGTH, _PROBE_NEW = 2, 5


def _new_tokens_made(generate, seed: int, sizes: dict, batch: int) -> int | None:
    """How many new tokens the learner's generate appends to a prompt of _PROBE_LENGTH
    tokens asked for _PROBE_NEW (None: it failed or returned no (batch, n) ids)."""
    model = _model(seed, sizes)
    vocab = model.embedding.num_embeddings
    prompt = torch.randint(0, vocab, (batch, _PROBE_LENGTH), generator=torch_generator(seed))
    try:
        got = generate(model, prompt, _PROBE_NEW)
        ids = got[0]
    except Exception:  # the learner's code: a probe that fails tells nothing
        return None
    if not isinstance(ids, torch.Tensor) or ids.dim() != 2 or ids.shape[0] != batch:
        return None
    return ids.shape[1] - _PROBE_LENGTH


def _ran_once_hint(length: int, new: int, made: int | None) -> str:
    """ids of len + 1 positions and logits of one step, where max_new_tokens > 1: the loop
    stopped after its first pass (a return or break indented into its body), unless
    len + 1 == max_new_tokens, where a loop run to a total length of max_new_tokens gives
    the same; the probe (``made`` new tokens for _PROBE_NEW asked after _PROBE_LENGTH)
    tells them apart, and both are named when it tells nothing."""
    once = (
        "the loop stopped after its first pass: a return (or a break) indented into the "
        "loop's body ends generate at its first step; put the return after the loop, at "
        "the function's level, so that all max_new_tokens steps run"
    )
    total = (
        "max_new_tokens was taken for the total length (a loop while ids.shape[1] < "
        "max_new_tokens): it counts the new tokens only, so ids hold len + max_new_tokens "
        "positions"
    )
    found = f"It holds the prompt and one new token, and your logits one step ({new} asked)"
    if length + 1 != new or made == 1:
        probe = (
            ""
            if length + 1 != new
            else f" (asked for {_PROBE_NEW} after a prompt of {_PROBE_LENGTH}, it makes 1 "
            "new token too, so this is no total length)"
        )
        return f"{found}{probe}: {once}."
    if made == _PROBE_NEW - _PROBE_LENGTH:
        return ""  # a total length: the caller's own message
    return f"{found}: here len + 1 = max_new_tokens, so two slips give this: {once}; or {total}."


def _ids_shape_hint(
    ids, prompt, new: int, expected_ids=None, logits=None, made: Callable | None = None
) -> str:
    """What a wrong shape of ids says: one token too few or too many (the loop's count),
    the new tokens alone, max_new_tokens positions in all (taken for the total length),
    the prompt and the last new token only (ids rebuilt from the prompt at each step: told
    apart from the total length by the logits, which have every step), the prompt and one
    new token with one step of logits (a loop that stopped after one pass: told apart
    from the total length by ``made()``, a probe of another prompt length)."""
    rule = "ids are the prompt followed by the new tokens."
    found = tuple(ids.shape)
    batch, length = prompt.shape
    if len(found) == 3 and found[:2] == (batch, new) and ids.is_floating_point():
        return (
            "That is the shape of the logits, (batch, max_new_tokens, vocab): the two results "
            "are returned in the wrong order. Return (ids, logits)."
        )
    if len(found) != 2 or found[0] != batch:
        return rule
    starts_with_prompt = found[1] >= length and torch.equal(ids[:, :length], prompt)
    stopped = _stopped_at_token_zero(ids, expected_ids, length, new) if starts_with_prompt else ""
    if stopped:
        return f"{stopped} {rule}"
    if (
        found[1] == length + 1
        and new > 1
        and starts_with_prompt
        and isinstance(expected_ids, torch.Tensor)
        and torch.equal(ids[:, length], expected_ids[:, -1])
        and isinstance(logits, torch.Tensor)
        and logits.dim() == 3
        and logits.shape[:2] == (batch, new)
    ):
        # blind15e-gen-appends-to-prompt was told it took max_new_tokens for the total
        # length: its logits show all max_new_tokens steps, so the loop ran them all
        return (
            f"It holds the prompt and one new token, the last step's, although your logits "
            f"have all {new} steps: the loop ran max_new_tokens times, but the earlier new "
            "tokens were all dropped: ids rebuilt from the prompt at each step "
            "(torch.cat([prompt, next_id], dim=1)), or each new token kept in place of the "
            "one before (next_id overwritten at each step, and the torch.cat run once, after "
            "the loop), instead of appending it to the ids so far, in the loop: ids = "
            "torch.cat([ids, next_id], dim=1). " + rule
        )
    if (
        found[1] == length + 1
        and new > 1
        and starts_with_prompt
        and isinstance(logits, torch.Tensor)
        and logits.dim() == 3
        and logits.shape[:2] == (batch, 1)
    ):
        once = _ran_once_hint(length, new, made() if made is not None else None)
        if once:
            return f"{once} {rule}"
    if found[1] == new and starts_with_prompt:
        return (
            f"It holds max_new_tokens = {new} positions in all, the prompt's {length} "
            "included: max_new_tokens counts the new tokens only, so ids hold len + "
            "max_new_tokens positions (a loop while ids.shape[1] < max_new_tokens takes it "
            "for the total length). " + rule
        )
    if found[1] == length + new - 1:
        return (
            f"It holds one new token too few ({new - 1}, not max_new_tokens = {new}): the loop "
            "must append a token at every one of its max_new_tokens steps, "
            "range(max_new_tokens) (not range(max_new_tokens - 1), nor a loop that stops a "
            "step early). " + rule
        )
    if found[1] == length + new + 1:
        return (
            f"It holds one new token too many ({new + 1}, not max_new_tokens = {new}): the "
            "loop runs one step too many. " + rule
        )
    if found[1] == new and not starts_with_prompt:
        return f"It holds the new tokens only, without the prompt in front. {rule}"
    return rule


def _logits_shape_hint(
    found: tuple, batch: int, new: int, vocab: int, logits=None, expected=None, length: int = 0
) -> str:
    """What a wrong shape of the recorded logits says: the prompt's positions recorded too
    (told by the values: the last max_new_tokens rows are the expected ones), the steps
    joined with torch.cat instead of stacked, stacked along another axis, one step too few."""
    rule = "One row of logits per generated token: logits[:, t] chose ids[:, len + t]."
    extra = length - 1
    if (
        extra > 0
        and found == (batch, extra + new, vocab)
        and isinstance(logits, torch.Tensor)
        and isinstance(expected, torch.Tensor)
        and logits.is_floating_point()
        and torch.allclose(logits[:, extra:].float(), expected.float(), rtol=1e-4, atol=1e-4)
    ):
        # blind14e-gen-prompt-logits-recorded: the prompt fed token by token, every call's
        # logits kept (was told the shape alone)
        return (
            f"That is len - 1 + max_new_tokens = {length} - 1 + {new} rows, and its last {new} "
            f"rows are the right logits: the logits of the prompt's positions before its last "
            f"({extra} of them) were recorded too (every call's logits kept while the prompt "
            "was fed, or the prefill's whole (batch, len, vocab) output kept). Those rows "
            "choose no token: record the prompt's last row, then one row per step. " + rule
        )
    stack = (
        "torch.stack(steps, dim=1) of the (batch, vocab) rows gives (batch, max_new_tokens, vocab)."
    )
    if found == (batch, new * vocab) and new > 1:
        return (
            f"That is ({batch}, {new} x {vocab}): the steps' (batch, vocab) rows were joined "
            "with torch.cat(steps, dim=1), which concatenates them end to end into one long "
            f"row per sequence, not stacked along a new axis. {stack}"
        )
    if found == (batch * new, vocab) and batch > 1 and new > 1:
        return (
            f"That is ({batch} x {new}, {vocab}): the steps' rows were joined with "
            f"torch.cat(steps, dim=0), one under the other. {stack}"
        )
    if len(found) == 3 and sorted(found) == sorted((batch, new, vocab)):
        axes = {
            (new, batch, vocab): "torch.stack(steps) stacks along dim=0 by default",
            (batch, vocab, new): "the steps were stacked along the last axis (dim=2 or -1)",
        }
        sizes = (batch, new, vocab)
        if len(set(sizes)) == 3 and found in axes:
            return f"Its axes are in another order: {axes[found]}. {stack}"
    if len(found) == 3 and found[0] == batch and found[2] == vocab and found[1] == new - 1:
        return (
            f"It holds one step too few ({new - 1}, not max_new_tokens = {new}): record the "
            "logits of every one of the max_new_tokens steps. " + rule
        )
    return rule


def _kept_caches(calls: list[dict], earlier, *, second: bool = False) -> str:
    """Caches that were not empty when this generate's calls began (the replay's "not
    empty" departure: kept from an earlier call, whose caches ``earlier`` lists), named;
    else the same cache objects as an earlier call's, named (_reused_caches); "" when
    neither."""
    departure = first_departure(calls, list(earlier))
    if departure is not None and departure.kind == "not empty" and departure.call == 0:
        return _kept_caches_message(departure, second=second)
    return ""


def _reused_caches(calls: list[dict], first_calls: int, earlier: list | None = None) -> str:
    """Whether a later generate call fed the model through a cache object of an earlier
    call (the caches kept on the model, in a global or a default argument), named; ""
    otherwise. ``earlier``: the caches of earlier generate calls on other models (a global
    or a default argument outlives the model)."""
    if earlier is not None:
        return _reused_from_other_calls(calls, earlier)
    earlier = [cache for call in calls[:first_calls] for cache in call["caches"] or []]
    for call in calls[first_calls:]:
        for cache in call["caches"] or []:
            if any(cache is old for old in earlier):
                held = call["held"][0] if call["held"] else None
                return (
                    "The second generate on this model fed it through the caches of the first "
                    "one (the same cache objects"
                    + (f", still holding its {held} positions" if isinstance(held, int) else "")
                    + "): the second prompt is stored after the first generation's positions "
                    "and attends to them, and the caches overflow. Make fresh caches inside "
                    "generate at every call, caches = model.new_caches(batch, len + "
                    "max_new_tokens) as a local variable: not kept on the model, in a global "
                    "or in a default argument."
                )
    return ""


#: every cache a generate under check fed its model, over all the checks of this process
#: (the visible run's caches, kept in a global, reach the hidden run's first call); weak
#: references, so that a cache dropped is never taken for a new one
_CACHES_FED: weakref.WeakSet = weakref.WeakSet()


def _reused_from_other_calls(calls: list[dict], earlier: list) -> str:
    """The caches of an earlier generate call (on another model) fed to this one, named;
    "" otherwise. Only state kept outside generate (a global, a default argument, a class
    attribute) survives from one call to the next."""
    for call in calls:
        for cache in call["caches"] or []:
            if any(cache is old for old in earlier):
                held = call["held"][0] if call["held"] else None
                return (
                    "This generate fed the model through cache objects made during an earlier "
                    "generate call (on another model"
                    + (
                        f"; they held {held} positions before this call"
                        if isinstance(held, int)
                        else ""
                    )
                    + "): the caches outlive the call that made them (kept in a global, a "
                    "default argument or an attribute). Their sizes and contents belong to "
                    "the earlier prompt, so this one's keys and values go after the old ones, "
                    "or do not fit. Make fresh caches inside generate at every call, caches = "
                    "model.new_caches(batch, len + max_new_tokens) as a local variable."
                )
    return ""


def _expect_fresh_state_per_call(c: Checker, generate, hidden: bool) -> None:
    """Two generate calls on the same model: the second must be what a fresh run gives
    (blind10e-gen-caches-kept-on-model, caches made once and kept on the model, passed
    every single call)."""
    seed = 31 + 1000 * hidden
    model = _model(seed, {})
    vocab = model.embedding.num_embeddings
    generator = torch_generator(seed)
    first = torch.randint(0, vocab, (2, 4), generator=generator)
    second = torch.randint(0, vocab, (2, 3), generator=generator)
    call = "generate(model, prompt (2, 3), 4), called after generate(model, prompt (2, 4), 3)"
    trace = _CallTrace(model)
    ran: dict[str, int] = {}

    def reused(_exc=None) -> str:
        first_calls = ran.get("first", 0)
        before = [cache for call in trace.calls[:first_calls] for cache in call["caches"] or []]
        return _kept_caches(trace.calls[first_calls:], before, second=True) or _reused_caches(
            trace.calls, first_calls
        )

    try:
        c.call(generate, model, first, 3, call_repr="generate(model, prompt (2, 4), 3)")
        ran["first"] = len(trace.calls)
        got = c.call(
            generate,
            model,
            second,
            4,
            call_repr=f"{call} on the same model",
            hints=[("the cache holds", lambda exc: reused(exc) or _CACHE_TOO_SMALL)],
        )
    finally:
        trace.remove()
    expected_ids, expected_logits = ref.generate_without_cache(ref.make_cached_gpt(seed), second, 4)
    c.expect_true(
        isinstance(got, tuple) and len(got) == 2, f"{call} returned {got!r}: return (ids, logits)."
    )
    ids, logits = got
    c.expect_close(
        logits,
        expected_logits,
        f"{call}: logits",
        rtol=1e-4,
        atol=1e-4,
        explain=lambda: (
            reused()
            or "Every generate above, each the first call on its model, gave the right logits, "
            "so something your generate keeps from one call to the next changed this second "
            "one: state kept on the model, in a global or in a default argument. Make "
            "everything a generation needs (the caches above all) inside generate, at every call."
        ),
    )
    c.expect_equal(ids, expected_ids, f"{call}: ids")


_WITH_AUTOGRAD = (
    "the logits you returned require grad, although their values and the tokens are right "
    "on every input: "
    "the model ran with autograd on, so every forward recorded a graph for a backward pass "
    "that never comes, and the returned logits keep the graphs of the whole generation "
    "alive (every step's activations, the caches): memory that grows with every step. The "
    "likely cause: the "
    "@torch.no_grad() given above def generate was removed, or no_grad is never in effect "
    "(torch.no_grad() on a line of its own does nothing; it works as a decorator or in a "
    "with block). Keep @torch.no_grad() on generate (or run the loop inside with "
    "torch.no_grad():). A .detach() on the result would hide the symptom, not the cost."
)


def check_generate(generate, *, hidden: bool = False) -> None:
    """generate(model, prompt, max_new_tokens) -> (ids, logits), equal to
    generate_without_cache, running each position through the model once."""
    with Checker("generate", hidden=hidden) as c:
        c.require_callable(generate)
        earlier_caches = _CACHES_FED  # every cache fed to the models of the calls before
        with_autograd = None  # the first call whose logits require grad
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
                "argmax's (batch,) (right only for a batch of one sequence); or an argmax over "
                "the batch axis (dim=0, keepdim=True), which is (1, vocab); or one token for "
                "the whole batch, as logits.argmax().item() wrapped in torch.tensor([[...]]) "
                "makes (.item() and a Python int hold one number: the argmax of the flattened "
                "logits, right only for a batch of one). Make it a column, (batch, 1): "
                "logits.argmax(dim=-1, keepdim=True) (or [:, None]).",
            )
            one_dimensional = (
                Exception,
                lambda _exc, calls=trace.calls, b=batch: _one_dimensional_ids_hint(calls, b),
            )
            one_row = (
                "out of bounds for dimension 1 with size 1",
                lambda exc, calls=trace.calls: _one_row_hint(exc, calls),
            )
            misplaced = (
                lambda exc: isinstance(exc, TypeError),
                lambda _exc, calls=trace.calls: next(
                    (call["misplaced"] for call in calls if call["misplaced"]), ""
                ),
            )
            unpacked = (
                lambda exc: isinstance(exc, RuntimeError),
                lambda _exc, calls=trace.calls, b=batch, n=length, m=new: _shape_unpacked_swapped(
                    calls, b, n, m
                ),
            )
            three_axes = (
                "Tensors must have same number of dimensions: got 2 and 3",
                lambda _exc, calls=trace.calls, b=batch, m=new: _three_axes_hint(calls, b, m),
            )
            overflow = (
                "the cache holds",
                lambda _exc, calls=trace.calls, n=length, m=new: _cache_overflow_hint(calls, n, m),
            )
            batch_indexed = (
                "Sizes of tensors must match except in dimension 1",
                lambda exc, b=batch, n=length: _batch_axis_indexed_hint(exc, b, n),
            )
            kept = (
                Exception,
                lambda _exc, calls=trace.calls, old=earlier_caches: (
                    _kept_caches(calls, old) or _reused_caches(calls, 0, old)
                ),
            )
            # a generate that draws with the global stream draws the same tokens every run
            # (the Checker puts the stream back afterwards)
            torch.manual_seed(seed)
            try:
                got = c.call(
                    generate,
                    model,
                    prompt,
                    new,
                    call_repr=call,
                    hints=[
                        (
                            Exception,
                            lambda exc, outputs=trace.outputs: _unpacked_output_hint(exc, outputs),
                        ),
                        kept,
                        one_dimensional,
                        unpacked,
                        row_column,
                        one_row,
                        misplaced,
                        three_axes,
                        overflow,
                        batch_indexed,
                        _columns_hint(generate, seed, sizes, prompt, new),
                        *_GENERATE_HINTS[3:],
                    ],
                )
            finally:
                trace.remove()
            kept_from_before = _kept_caches(trace.calls, earlier_caches) or _reused_caches(
                trace.calls, 0, list(earlier_caches)
            )
            for cache in (cache for call in trace.calls for cache in call["caches"] or []):
                with contextlib.suppress(TypeError):  # an object that takes no weak reference
                    earlier_caches.add(cache)
            expected_ids, expected_logits = ref.generate_without_cache(
                ref.make_cached_gpt(seed, **sizes), prompt, new
            )
            c.expect_type(got, tuple, call, "Return a tuple (ids, logits).")
            c.expect_true(len(got) == 2, f"{call} returned {len(got)} items; return (ids, logits).")
            ids, logits = got
            _expect_tensor(c, ids, f"{call}: ids")
            _expect_tensor(
                c,
                logits,
                f"{call}: logits",
                "torch.stack(steps, dim=1), (batch, max_new_tokens, vocab_size): the steps "
                "along axis 1",
            )
            c.expect_shape(
                ids,
                (batch, length + new),
                f"{call}: ids",
                _ids_shape_hint(
                    ids,
                    prompt,
                    new,
                    expected_ids,
                    logits,
                    lambda s=seed, z=sizes, b=batch: _new_tokens_made(generate, s, z, b),
                ),
            )
            c.expect_integer_dtype(ids, f"{call}: ids")
            c.expect_shape(
                logits,
                (batch, new, vocab),
                f"{call}: logits",
                _logits_shape_hint(
                    tuple(logits.shape), batch, new, vocab, logits, expected_logits, length
                ),
            )
            c.expect_floating(logits, f"{call}: logits", preferred=torch.float32)
            before = (
                " Your ids end with the prompt: the new tokens were put in front of it "
                "(torch.cat([next_id, ids], dim=1)); append them after it, "
                "torch.cat([ids, next_id], dim=1)."
                if torch.equal(ids[:, new:], prompt)
                else ""
            )
            c.expect_equal(
                ids[:, :length],
                prompt,
                f"{call}: ids[:, :len]",
                "The ids start with the prompt." + before,
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
                    _log_probs_message(expected_logits): expected_logits.log_softmax(dim=-1),
                },
                explain=lambda got=logits, want=expected_logits, calls=trace.calls, n=length, i=ids, kept=kept_from_before: (
                    kept or _shifted_rows(got, want) or _explain_generation(got, want, calls, n, i)
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
                repeats = (
                    "" if ran >= uncached and new > 1 else _positions_repeated(trace.calls, length)
                )
                c.fail(
                    f"{call} ran {ran} token positions through the model; with a cache it runs "
                    f"{once} ({batch} x ({length} + {new} - 1)). The results are right, but "
                    f"{why}{repeats} Feed the prompt once (with the caches), then only the "
                    "newest token with start = its position."
                )
            # the model's weights require grad: logits that do too were computed with
            # autograd on (blind30c-gen-without-no-grad passed every value check); told
            # once every case's values are right, so that a wrong value is named first
            if logits.requires_grad and with_autograd is None:
                with_autograd = call
            c.ok()
        _expect_fresh_state_per_call(c, generate, hidden)
        if with_autograd is not None:
            c.fail(f"{with_autograd}: {_WITH_AUTOGRAD}")


# =============================================================== grouped_query_attention
