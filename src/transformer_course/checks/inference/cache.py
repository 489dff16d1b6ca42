"""Checks for lesson 12's KVCache: keys and values stored after the positions already held."""

import contextlib
import re
import weakref

import torch

from transformer_course.checking import Checker, short, tolerance
from transformer_course.checking.concatenated import concatenation_of
from transformer_course.checking.counters import matching_updates
from transformer_course.checking.hints import shape_mismatch_hint
from transformer_course.checking.inputs import randn
from transformer_course.checking.kept_outside import rounded_up
from transformer_course.checking.rearranged import slice_order, slice_sources
from transformer_course.checking.state_keys import counters_kept_as_tensors

from .common import _expect_tensor

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
_ONLY_NEW = (
    "It returned only the new positions. The cache exists to give the new queries the keys "
    "and values of *every* earlier position: return all positions stored so far."
)


def _new_positions_again(got, expected, new, what: str, length: int) -> str:
    """A result of length + 2n positions that is the right one with the new positions
    joined to it once more (after it, or before it), named; "" otherwise. On a first call
    (nothing stored before) the two orders are the same tensor, and both are said."""
    n = new.shape[-2]
    joined = concatenation_of(got, {"stored": expected, "new": new})
    if joined is None or joined[2] != 2:
        return ""
    after = torch.allclose(got.double(), torch.cat([expected, new], dim=2).double())
    before = torch.allclose(got.double(), torch.cat([new, expected], dim=2).double())
    name = "k_new" if what == "keys" else "v_new"
    line = f"torch.cat([self.{what}[:, :, :stop], {name}], dim=2)"
    where = (
        f"{name} joined once more after them, as {line} does, or before them: on a first "
        "call the two orders give the same tensor"
        if after and before
        else f"{name} joined once more after the stored positions, as {line} does"
        if after
        else f"{name} joined once more in front of the stored positions"
    )
    return (
        f"Its {got.shape[2]} positions are the {length + n} stored ones and the {n} new ones "
        f"again ({where}): the new positions come back twice. Once written at [length, "
        f"length + n), they are already in the buffer, so self.{what}[:, :, :length + n] "
        "is the whole result: return that slice, with nothing joined to it."
    )


def _written_at(got_k, k_new, length: int) -> int | None:
    """The first position at which the keys returned hold k_new's n rows, when that is not
    ``length`` (where they belong); None when they are nowhere or where they belong."""
    n, stored = k_new.shape[-2], got_k.shape[-2]
    for start in range(0, stored - n + 1):
        if start != length and torch.equal(got_k[:, :, start : start + n], k_new):
            return start
    return None


def _written_in_buffers(cache, k_new, length: int) -> str:
    """Where the learner's own buffers hold k_new, when the keys returned do not show it
    and it is not at [length, length + n) (blind round 10: a length advanced before the
    write was asked whether the write position was off by one): the state after the call,
    read from the cache."""
    n = k_new.shape[-2]
    for name, buffer in getattr(cache, "_buffers", {}).items():
        if not isinstance(buffer, torch.Tensor) or buffer.dim() != 4:
            continue
        if buffer.shape[:2] != k_new.shape[:2] or buffer.shape[-1] != k_new.shape[-1]:
            continue
        for start in range(0, buffer.shape[-2] - n + 1):
            if start != length and torch.equal(buffer[:, :, start : start + n], k_new):
                before = (
                    f" That is length + n: self.length was advanced before the write, which "
                    f"must use the length before this call ([{length}, {length + n}), then "
                    "self.length = length + n)."
                    if start == length + n
                    else ""
                )
                off = " (an off-by-one)" if abs(start - length) == 1 else ""
                return (
                    f"Your buffer {name} holds the {n} new keys at [{start}, {start + n}), "
                    f"{start - length:+d} from where they belong{off}: {length} positions were "
                    f"stored before this call, so they go to [{length}, {length + n}).{before}"
                )
    return ""


def _share_storage(cache) -> bool | None:
    """Whether the cache's keys and values are one tensor's memory (the same zeros
    registered as both buffers, or self.keys = self.values = ...); None when the two are
    not both tensors."""
    keys, values = getattr(cache, "keys", None), getattr(cache, "values", None)
    if not isinstance(keys, torch.Tensor) or not isinstance(values, torch.Tensor):
        return None
    return keys.data_ptr() == values.data_ptr()


def _one_written_twice(cache, returned: str, other: str) -> str:
    """The {returned} came back equal to the {other}: one buffer written with the other's
    new positions, or the two buffers one tensor (blind11l-kv-one-tensor-both-buffers was
    told the first); the buffers' memory tells them apart."""
    new = {"keys": "k_new", "values": "v_new"}
    shared = _share_storage(cache)
    if shared:
        return (
            f"The {returned} returned are the {other}: your keys and values buffers are one "
            "tensor (they share the same storage), so each write of one overwrites the "
            "other. The same zeros tensor registered as both buffers, or self.keys = "
            "self.values = torch.zeros(...), does this. Give each its own tensor: "
            'self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False) '
            "and a second torch.zeros(...) for values."
        )
    if shared is None:
        return (
            f"The {returned} returned are the {other}: either the {returned} buffer was "
            f"written with {new[other]} (self.{returned}[...] = {new[other]}?), or the keys "
            "and values are one tensor, so that writing one overwrites the other. Write "
            f"{new[returned]} into its own buffer, made with its own torch.zeros(...)."
        )
    return (
        f"The {returned} returned are the {other}: {new[returned]} is never stored, the "
        f"{returned} buffer was written with {new[other]} (self.{returned}[...] = "
        f"{new[other]}?). Write {new[returned]} into the {returned}."
    )


def _calls_never_stored(cls, dtype) -> str:
    """Which calls of a fresh cache never reach its buffers, when the others do: chunks
    of 6, 1 and 2 positions (distinct values), each call's positions then read back from
    what the last call returns. A cache that skips the write on its first call (``if
    self.length:``, a write reached only once something is stored) and one that skips
    calls of one position give different patterns; an off-by-one write position leaves
    no call's positions wholly zero where they belong but its values elsewhere. The
    sentence that says which calls were not stored, or "" when every call or no call was
    stored, or the probe fails (blind23c-kv-first-call-never-stored was asked whether
    the write position was off by one)."""
    if cls is None:
        return ""
    batch, heads, d_head = _PROBE_SIZES
    try:
        cache = cls(batch, heads, 64, d_head, dtype)
        chunks, start = [], 0
        for number, n in enumerate(_PROBE_CHUNKS):
            # (batch, heads, n, d_head): nonzero values, distinct per call
            chunk = torch.arange(1, 1 + batch * heads * n * d_head, dtype=dtype)
            chunk = chunk.reshape(batch, heads, n, d_head) + 100 * (number + 1)
            chunks.append((start, chunk))
            got_k, _ = cache(chunk, chunk.clone())
            start += n
        got_k = torch.as_tensor(got_k)
    except Exception:  # the learner's cache refused part-way: no evidence
        return ""
    if tuple(got_k.shape) != (batch, heads, start, d_head):
        return ""
    stored, missing = [], []
    for number, (at, chunk) in enumerate(chunks):
        held = got_k[:, :, at : at + chunk.shape[-2]]
        if torch.equal(held, chunk):
            stored.append(number)
        elif bool((held == 0).all()):
            missing.append(number)
        else:
            return ""
    if not stored or not missing:
        return ""
    sizes = list(_PROBE_CHUNKS)

    def calls(numbers: list[int]) -> str:
        named = [f"{n + 1} ({sizes[n]} position{'s' if sizes[n] > 1 else ''})" for n in numbers]
        return ("call " if len(named) == 1 else "calls ") + " and ".join(named)

    told = (
        f"A fresh KVCache({batch}, {heads}, 64, {d_head}) fed chunks of "
        f"{', '.join(map(str, sizes[:-1]))} and {sizes[-1]} positions, one call each, then "
        f"returns zeros where {calls(missing)} belong and the right keys for {calls(stored)}: "
        f"{'that call never wrote its' if len(missing) == 1 else 'those calls never wrote their'} "
        "positions into the buffers"
    )
    if missing == [0]:
        return (
            f"{told}. Only the first call, into the empty cache (self.length == 0), is "
            "not stored: the write is skipped when nothing is stored yet (as a write "
            "under `if self.length:`, or one reached only once the cache holds "
            "something, would be), so the prompt's positions stay zeros on every later "
            "call. Write k_new and v_new on every call, the first included."
        )
    if all(sizes[n] == 1 for n in missing) and all(sizes[n] > 1 for n in stored):
        return (
            f"{told}: the calls of one position are not stored, those of several are. "
            "Write k_new and v_new on every call, whatever its number of positions."
        )
    return f"{told}. Write k_new and v_new on every call."


def _explain_cache(
    got_k,
    got_v,
    expected_k,
    expected_v,
    batch: int,
    k_new=None,
    length=0,
    cache=None,
    probe_calls=None,
) -> str:
    """Why the keys differ, in terms of a cache's classic mistakes ("" when none fits):
    named before any re-arrangement of the values is (a write one position too far is
    also a shift, but the zeros left behind say where it went wrong)."""
    keys_right = torch.allclose(got_k.double(), expected_k.double())
    values_right = torch.allclose(got_v.double(), expected_v.double())
    if torch.allclose(got_k.double(), expected_v.double()) and torch.allclose(
        got_v.double(), expected_k.double()
    ):
        return "Keys and values are swapped."
    if keys_right and torch.allclose(got_v.double(), expected_k.double()):
        return _one_written_twice(cache, "values", "keys")
    if values_right and torch.allclose(got_k.double(), expected_v.double()):
        return _one_written_twice(cache, "keys", "values")
    reordered = _positions_reordered(got_k, got_v, expected_k, expected_v, length)
    if reordered:
        return reordered
    repeated = _positions_repeated(got_k, got_v, expected_k, expected_v, k_new, length)
    if repeated:
        return repeated
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
    if batch > 1 and got_k.shape == expected_k.shape:
        empty = (got_k == 0).flatten(1).all(dim=1)  # (batch,): a sequence holding only zeros
        rest = ~empty
        if (
            bool(empty.any())
            and bool(rest.any())
            and not bool((expected_k == 0).flatten(1).all(dim=1).any())
        ):
            if torch.allclose(got_k[rest].double(), expected_k[rest].double()):
                rows = empty.nonzero().flatten().tolist()
                kept = rest.nonzero().flatten().tolist()
                if kept == [0]:
                    # blind27c: self.keys[0, :, start:stop] = k_new[0], code for one prompt
                    return (
                        "Only the first sequence of the batch (index 0) holds its keys: the "
                        f"other sequence(s) {rows} were never stored and hold only zeros. "
                        "The new keys were written for k_new[0] alone (index 0 on the batch "
                        "axis), as code written for a single prompt does. Write all of "
                        "k_new's batch rows: self.keys[:, :, start:stop] = k_new."
                    )
                return (
                    f"Sequence(s) {rows} of the batch hold only zeros, the others are right: "
                    f"the new keys were written for sequence(s) {kept} only, the other "
                    "sequences were never stored. Write all of k_new's batch rows: "
                    "self.keys[:, :, start:stop] = k_new."
                )
    if k_new is not None and cache is not None and _written_at(got_k, k_new, -1) is None:
        found = _written_in_buffers(cache, k_new, length)
        if found:
            return found
    zero_rows = (got_k == 0).all(dim=-1).all(dim=1).all(dim=0)  # (length,)
    if bool(zero_rows.any()) and not bool((expected_k == 0).all(dim=-1).all(dim=1).any()):
        p = int(zero_rows.nonzero()[0])
        partial = _new_positions_partly_written(zero_rows, got_k, expected_k, k_new, length)
        if partial:
            return partial
        skipped = probe_calls() if probe_calls is not None else ""
        if skipped:
            return skipped
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


def _positions_reordered(got_k, got_v, expected_k, expected_v, length: int) -> str:
    """When the keys and values returned hold exactly the right positions, each once, but
    in another order (the same for both): the order, in words: the new positions in front
    of the stored ones (torch.cat([k_new, old])), the whole sequence reversed, or listed;
    "" otherwise (blind24c-kv-new-positions-put-first was told the new ones were written
    over position 0)."""
    order = slice_order(got_k, expected_k, -2)
    if order is None or slice_order(got_v, expected_v, -2) != order:
        return ""
    stored = len(order)
    listed = (
        f"Your keys and values hold every position, each once, but in the order {order} "
        f"where they belong in the order 0 .. {stored - 1}"
    )
    n = stored - length
    if 0 < length < stored and order == [*range(length, stored), *range(length)]:
        return (
            f"{listed}: newest first, this call's {n} new position"
            f"{'s' if n > 1 else ''} in front of the {length} already stored, as torch.cat([k_new, old]) (new before "
            "old), or a write at the start after moving the stored ones up, gives. The cache "
            "keeps positions in the order they came: the new ones go after those stored, at "
            "[self.length, self.length + n) (torch.cat([old, k_new]) if you concatenate)."
        )
    if order == list(range(stored))[::-1]:
        return (
            f"{listed}: the sequence comes back reversed, newest first (a flip, or each "
            "write put in front of the others). The cache keeps positions in the order they "
            "came: position p at index p."
        )
    return (
        f"{listed} (entry p of the list says which position is at index p). The cache keeps "
        "positions in the order they came: position p at index p, the new ones written at "
        "[self.length, self.length + n)."
    )


def _positions_named(positions: list[int]) -> str:
    """'position 3' or 'positions 1, 2'."""
    listed = ", ".join(str(p) for p in positions)
    return f"position {listed}" if len(positions) == 1 else f"positions {listed}"


def _positions_repeated(got_k, got_v, expected_k, expected_v, k_new, length: int) -> str:
    """When every position the cache returns is one of the right positions, the same one
    for keys and values, but some come twice and others never: the list, and the cause
    when this call's new slots [length, stop) all hold one new position (a write of
    k_new[:, :, :1], broadcast over the slots); "" otherwise."""
    sources = slice_sources(got_k, expected_k, -2)
    if sources is None or slice_sources(got_v, expected_v, -2) != sources:
        return ""
    if sorted(sources) == list(range(len(sources))):
        return ""  # each once: a reordering, told by _positions_reordered
    stored = len(sources)
    twice = sorted({p for p in sources if sources.count(p) > 1})
    never = [p for p in range(stored) if p not in sources]
    listed = (
        f"Your keys and values hold the positions {sources} (entry p says whose keys and "
        f"values are at index p), where they belong in the order 0 .. {stored - 1}: "
        f"{_positions_named(twice)} come{'' if len(twice) > 1 else 's'} more than once and "
        f"{_positions_named(never)} never."
    )
    n = k_new.shape[-2] if isinstance(k_new, torch.Tensor) and k_new.dim() >= 2 else 0
    new_slots = sources[length:]
    if n > 1 and len(new_slots) == n and sources[:length] == list(range(length)):
        for which, position, written in (
            ("first", length, "k_new[:, :, :1] (or k_new[:, :, 0:1], k_new[..., 0, None, :])"),
            ("last", length + n - 1, "k_new[:, :, -1:]"),
        ):
            if new_slots == [position] * n:
                return (
                    f"{listed} This call brought {n} new positions, and all {n} of its slots "
                    f"[{length}, {length + n}) hold the {which} of them, position {position}: "
                    f"one position of k_new was broadcast over the slots, as writing "
                    f"{written} into self.keys[:, :, start:stop] does. One-token steps are "
                    "then right, but a prefill of several positions is not. Write every new "
                    "position: self.keys[:, :, start:stop] = k_new, and the values likewise."
                )
    return (
        f"{listed} The cache keeps each position once, in the order they came: position p "
        "at index p, each call's new ones written at [self.length, self.length + n)."
    )


def _new_positions_partly_written(zero_rows, got_k, expected_k, k_new, length: int) -> str:
    """When every position the cache returns is right except some of this call's new
    ones, which hold zeros: which of the n new positions were written (the first p only,
    or another subset), and the write that covers all of them; "" otherwise.
    ``zero_rows``: (stored,), the positions holding zeros in every sequence and head."""
    if k_new is None or k_new.shape[-2] < 2 or got_k.shape != expected_k.shape:
        return ""
    n = k_new.shape[-2]
    stop = length + n
    if stop != zero_rows.shape[0]:
        return ""
    new_zero = zero_rows[length:stop]  # (n,)
    if bool(zero_rows[:length].any()) or bool(new_zero.all()):
        return ""
    kept = ~zero_rows  # (stored,): the positions written
    if not torch.allclose(got_k[:, :, kept].double(), expected_k[:, :, kept].double()):
        return ""
    written = [length + i for i in range(n) if not bool(new_zero[i])]
    if written == list(range(length, length + len(written))):
        p = len(written)
        what = (
            f"only the first {'one' if p == 1 else p} of the {n} new positions {'was' if p == 1 else 'were'} "
            f"stored (position{'s' if p > 1 else ''} {written[0]}"
            + (f" .. {written[-1]}" if p > 1 else "")
            + f"); positions {length + p} .. {stop - 1} hold zeros"
        )
    else:
        what = (
            f"of the {n} new positions only {written} were stored; the others, up to "
            f"{stop - 1}, hold zeros"
        )
    return (
        f"This call brought {n} new positions (stored at [{length}, {stop})), and {what}, "
        "while everything else returned is right and the length advanced by all of them. "
        f"The write covers fewer positions than k_new has (as self.keys[:, :, start : start "
        "+ 1] = k_new[:, :, :1] would): one-token steps are then right, but a prefill of "
        "several positions loses all but what was written. Write every new position: "
        "self.keys[:, :, start:stop] = k_new (stop = start + k_new.shape[-2]), and the "
        "values likewise."
    )


def _fits_hint(stored: int, max_len: int, sizes: tuple[int, ...] = (), cache=None):
    """A ValueError from a call whose positions fit: the learner's own overflow test is
    wrong (the check never asks for more than max_len positions). ``sizes`` (batch,
    num_heads, max_len, d_head): the buffer axes smaller than ``stored`` are named, a test
    that reads max_len from one of them refuses this call (mutant KVCache-10, shape[-3])."""

    def raised_on_fit(exc: BaseException) -> bool:
        return isinstance(exc, ValueError) and "unpack" not in str(exc)

    full = (
        f" This call fills the cache exactly ({stored} = max_len): is your test "
        "stop >= max_len where it should be stop > max_len?"
        if stored == max_len
        else ""
    )
    names = ("shape[0] (batch", "shape[1] (num_heads", None, "shape[3] (d_head")
    axes = [
        f"self.keys.{name} = {size})"
        for name, size in zip(names, sizes, strict=False)
        if name is not None and size < stored
    ]
    axis = (
        f" The buffers' axes smaller than {stored} are {' and '.join(axes)}: does your test "
        "read max_len from one of them instead of self.keys.shape[2] (max_len, dim=-2)?"
        if axes and stored < max_len
        else ""
    )
    rule = (
        f"The {stored} positions stored after this call fit in max_len={max_len}: raise "
        "ValueError only when more than max_len positions would be stored."
    )

    def text(exc: BaseException) -> str:
        # the buffers no longer hold max_len positions: an earlier call replaced them (a
        # concatenation or a slice assigned to self.keys), and a test against their length
        # refuses what fits (blind10k-kv-cat-replaces-buffers was asked about batch/heads)
        keys = getattr(cache, "keys", None)
        replaced = isinstance(keys, torch.Tensor) and keys.dim() == 4 and keys.shape[-2] != max_len
        if replaced and stored == max_len and cache is not None and sizes:
            # a cache that grows (torch.cat: buffers as long as what they hold, the course's
            # GrowingCache) refused only the call that fills it exactly: a test stop >=
            # max_len fits as well as a replaced buffer; a fresh cache fed two single
            # positions far below max_len tells them apart (a test against the replaced
            # buffer's length refuses the second)
            refuses = _refuses_small_calls(type(cache), sizes)
            if refuses is False:
                return f"{rule}{full}"
            if refuses is None:
                return (
                    f"{rule}{full} (Or, since your buffer keys now holds {keys.shape[-2]} "
                    f"positions, not max_len = {max_len}: a test against self.keys.shape[-2] "
                    "after an earlier call replaced the buffer.)"
                )
        if replaced:
            return (
                f"{rule} Your buffer keys now holds {keys.shape[-2]} positions, not max_len = "
                f"{max_len}: an earlier call replaced it (self.keys = torch.cat(...) or a "
                "slice of it) instead of writing into it, so a test against "
                "self.keys.shape[-2] refuses positions that fit. Write into the buffers in "
                "place, self.keys[:, :, start:stop] = k_new, so that they keep their "
                "(batch, num_heads, max_len, d_head) shape."
            )
        counted = _counted_sentence(type(cache), sizes) if cache is not None and sizes else ""
        if counted:  # a fixed count of new positions, measured: no axis to ask about
            return f"{rule} Measured on fresh caches, {counted}."
        return f"{rule}{full}{axis}"

    return (raised_on_fit, text)


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


def _stop_slips(slot: int, n: int, length: int, max_len: int) -> list[str]:
    """The slips of stop = length + n whose slice [length:stop] of max_len positions holds
    ``slot`` positions (mutants KVCache-11 and 12: stop = length - n, stop = length)."""
    positions = range(max_len)
    slips = {
        "stop = length - n (a minus where + belongs; a negative stop counts from the end "
        "of the buffer)": length - n,
        "stop = length, n missing (the slice [length:length] is empty)": length,
    }
    return [slip for slip, stop in slips.items() if len(positions[length:stop]) == slot]


def _slice_slips(slot: int, n: int, length: int, max_len: int) -> list[str]:
    """The write slices with a bound left out whose slot of max_len positions holds
    ``slot`` positions (blind12e-kv-write-through-end: [start:], through the end)."""
    positions = range(max_len)
    slices = {
        "[:, :, length:], stop left out, a slot that runs through the end of the buffer": (
            positions[length:]
        ),
        "[:, :, :stop], start left out, a slot that starts at position 0": positions[: length + n],
        "[:, :, :], the whole buffer": positions[:],
    }
    return [slip for slip, kept in slices.items() if len(kept) == slot]


_EXPANDED = re.compile(
    r"expanded size of the tensor \((\d+)\) must match the existing size \((\d+)\)"
)


def _refuses_small_calls(cls, sizes: tuple) -> bool | None:
    """Whether a fresh cache of ``cls`` with room for max(max_len, 4) positions refuses
    (ValueError) the second of two calls of one position each; None when the probe fails
    otherwise."""
    batch, heads, max_len, d_head = sizes
    try:
        cache = cls(batch, heads, max(max_len, 4), d_head)
        one = torch.zeros(batch, heads, 1, d_head)
        cache(one, one.clone())
    except Exception:  # the probe tells nothing
        return None
    try:
        cache(one.clone(), one.clone())
    except ValueError:
        return True
    except Exception:  # another error: not a refusal
        return None
    return False


def _probe_slot(cls, sizes: tuple, dtype) -> int | None:
    """The slot size a fresh cache of ``sizes`` writes 2 positions into after 1 (from its
    RuntimeError), or None when that write raises nothing or something else."""
    batch, heads, max_len, d_head = sizes
    if max_len < 4:
        return None
    try:
        cache = cls(batch, heads, max_len, d_head, dtype)
        one = torch.zeros(batch, heads, 1, d_head, dtype=dtype)
        cache(one, one.clone())
    except Exception:  # the probe tells nothing
        return None
    two = torch.zeros(batch, heads, 2, d_head, dtype=dtype)
    try:
        cache(two, two.clone())
    except RuntimeError as exc:
        found = _EXPANDED.search(str(exc))
        return int(found[1]) if found and int(found[2]) == 2 else None
    except Exception:  # another error: no slot size to read
        return None
    return None


_WRITTEN = re.compile(r"Tensor sizes: \[([\d, ]+)\]")


def _transposed_input(written: tuple[int, ...], shape: tuple[int, ...]) -> str:
    """When the tensor written into the buffer is k_new (``shape``, (batch, num_heads, n,
    d_head)) with its heads and positions axes exchanged: k_new was taken to be (batch, n,
    num_heads, d_head) and transposed on the way in; "" otherwise."""
    batch, heads, n, d_head = shape
    if heads == n or written != (batch, n, heads, d_head):
        return ""
    return (
        f"The tensor you wrote into the buffer is {written}: k_new {shape} with its "
        f"heads and positions axes exchanged (n = {n} positions on axis 1, the {heads} "
        "heads on axis 2). k_new was transposed (transpose(1, 2)) as if it were (batch, n, "
        "num_heads, d_head), the projections' layout before the heads are split; it "
        "already is (batch, num_heads, n, d_head), the buffers' own layout. Write it as it "
        "is, self.keys[:, :, length : length + n] = k_new, with n = k_new.shape[-2]."
    )


def _slot_hint(shape: tuple[int, ...], length: int, max_len: int | None = None, probe=None):
    """A write into a slot of the wrong length: say what the slot's length equals (n - 1 or
    n + 1: off by one; the size of another axis of k_new: stop computed from that axis; the
    slice of stop = length - n or stop = length), every candidate that fits."""
    sizes = re.compile(
        r"expanded size of the tensor \((\d+)\) must match the existing size \((\d+)\)"
    )

    def hint(exc: BaseException) -> str:
        found = sizes.search(str(exc))
        if not found or len(shape) != 4:
            return ""
        written = _WRITTEN.search(str(exc))
        written_shape = (
            tuple(int(size) for size in written[1].split(",")) if written else tuple(shape)
        )
        if written_shape != tuple(shape):
            # the tensor written is not k_new as it came: the slot's length says nothing
            # about stop (blind13e-kv-input-transposed-as-seq-second was asked about stop)
            return _transposed_input(written_shape, tuple(shape))
        slot, n = int(found[1]), int(found[2])
        if n != shape[2] or slot == n:
            return ""
        axes = _other_axes(slot, shape)
        off = {n - 1: "n - 1 (one too few)", n + 1: "n + 1 (one too many)"}.get(slot, "")
        slips = (
            _stop_slips(slot, n, length, max_len) + _slice_slips(slot, n, length, max_len)
            if max_len is not None
            else []
        )
        if len(slips) > 1 and probe is not None and not axes and not off:
            # one call cannot tell these slices apart: a write of 2 after 1 can
            probed = probe()
            if probed is not None:
                agree = [
                    slip
                    for slip in _stop_slips(probed, 2, 1, max_len)
                    + _slice_slips(probed, 2, 1, max_len)
                    if slip in slips
                ]
                if agree:
                    slips = agree
        if slips and not axes and not off:
            return (
                f"The slot you wrote k_new into holds {slot} positions, but k_new has n = {n} "
                f"new ones: [length:stop] with {' or '.join(slips)}. The new positions go to "
                f"[length, length + n) = [{length}, {length + n}): stop = self.length + "
                "k_new.shape[-2]."
            )
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


def _length_rule(cls, dtype) -> str | None:
    """How a learner's cache advances self.length, read from a probe whose sizes all
    differ (batch 2, 3 heads, d_head 5; chunks of 2 then 1): "stop" when it adds the new
    length (self.length += stop), "axis" when it adds a fixed axis size, None when
    neither fits or the probe fails."""
    try:
        cache = cls(2, 3, 16, 5, dtype)
        counts = []
        for n in (2, 1):
            chunk = torch.zeros(2, 3, n, 5, dtype=dtype)
            cache(chunk, chunk.clone())
            counts.append(getattr(cache, "length", None))
    except Exception:  # the learner's cache refused: no evidence either way
        return None
    if counts == [2, 2 + 3]:  # += stop: 0 + 2, then 2 + (2 + 1)
        return "stop"
    if counts in ([2, 4], [3, 6], [5, 10]):  # += batch, num_heads or d_head
        return "axis"
    return None


#: how a learner's self.length may advance per call, in words (the quantities of
#: _length_update)
_LENGTH_UPDATES = {
    "0": "never advances (it stays where it was), so every chunk is written at the same "
    "place and overwrites the one before",
    "n - 1": "advances by n - 1, one too few (an off-by-one)",
    "n + 1": "advances by n + 1, one too many (an off-by-one)",
    "2n": "advances by 2n: the positions of the keys and of the values both counted",
    "stop": "adds the new length stop = length + n (self.length += stop) where it should be "
    "set to it",
}
_LENGTH_SETS = {
    "n": "is set to the n positions of the last call (self.length = n) instead of advanced by them",
}
_PROBE_SIZES = (3, 4, 5)  # batch, num_heads, d_head: all different, none 1 or 2
_PROBE_CHUNKS = (6, 1, 2)


def _length_update(cls, dtype) -> str:
    """How the learner's cache advances self.length, read from a probe whose sizes all
    differ (batch 3, 4 heads, d_head 5; chunks of 6, 1 and 2 positions, room for 64): the
    update rule of :func:`checking.counters.matching_updates` that reproduces every value
    its self.length took, in words, or the same step on every call whatever n (1, or an
    axis's size); "" when no rule or more than one fits, or the probe fails before its
    second call (one call cannot tell the rules apart)."""
    batch, heads, d_head = _PROBE_SIZES
    observed: list[int] = []
    quantities: list[dict[str, int]] = []
    try:
        cache = cls(batch, heads, 64, d_head, dtype)
        for n in _PROBE_CHUNKS:
            before = observed[-1] if observed else 0
            quantities.append(
                {
                    "0": 0,
                    "n - 1": n - 1,
                    "n + 1": n + 1,
                    "2n": 2 * n,
                    "stop": before + n,
                    "first step": quantities[0]["first step"] if quantities else -1,
                    "n": n,
                }
            )
            chunk = torch.zeros(batch, heads, n, d_head, dtype=dtype)
            cache(chunk, chunk.clone())
            counter = getattr(cache, "length", None)
            if not isinstance(counter, int) or isinstance(counter, bool):
                return ""
            observed.append(counter)
            if len(observed) == 1:  # the step of the first call, tried as a constant
                quantities[0]["first step"] = counter
    except Exception:  # the learner's cache refused part-way: judge what was observed
        pass
    if len(observed) < 2:
        return ""
    rules = matching_updates(observed, quantities[: len(observed)])
    words = []
    for kind, name in rules:
        if kind == "add" and name == "first step" and observed[0] not in (0,):
            step = observed[0]
            axes = [
                axis
                for axis, size in zip(
                    (
                        "k_new.shape[0] (batch)",
                        "k_new.shape[1] (num_heads)",
                        "k_new.shape[3] (d_head)",
                    ),
                    _PROBE_SIZES,
                    strict=True,
                )
                if size == step
            ]
            words.append(
                f"advances by {step}, whatever the number n of positions written"
                + (f": {step} is {axes[0]}, not n" if axes else f" (self.length += {step})")
            )
        elif kind == "add" and name in _LENGTH_UPDATES:
            words.append(_LENGTH_UPDATES[name])
        elif kind == "set" and name in _LENGTH_SETS:
            words.append(_LENGTH_SETS[name])
    if len(words) != 1:
        return ""
    chunks = ", ".join(str(n) for n in _PROBE_CHUNKS[: len(observed)])
    stored = [sum(_PROBE_CHUNKS[: i + 1]) for i in range(len(observed))]
    return (
        f"A fresh KVCache({batch}, {heads}, 64, {d_head}) fed chunks of {chunks} positions "
        f"(sizes that all differ) ends with self.length = {observed}, where the positions "
        f"stored are {stored}: on every call self.length {words[0]}. "
    )


def _restarts_on_chunks(cls, dtype) -> str:
    """Whether the learner's cache sets self.length back to 0 on every call that brings
    several positions (as if each were a new prompt) while a one-position call advances it:
    a fresh cache fed chunks of 6, 1 and 2 positions (room for 64) then counts 6, 7, 2
    where 6, 7, 9 are stored. The sentence that says so, or "" when the counts differ or
    the probe fails."""
    batch, heads, d_head = _PROBE_SIZES
    observed: list[int] = []
    try:
        cache = cls(batch, heads, 64, d_head, dtype)
        for n in _PROBE_CHUNKS:
            chunk = torch.zeros(batch, heads, n, d_head, dtype=dtype)
            cache(chunk, chunk.clone())
            observed.append(getattr(cache, "length", None))
    except Exception:  # the learner's cache refused part-way: no evidence
        return ""
    first, single, several = _PROBE_CHUNKS  # 6, 1, 2
    if observed != [first, first + single, several]:
        return ""
    return (
        f"A fresh KVCache({batch}, {heads}, 64, {d_head}) fed chunks of {first}, {single} and "
        f"{several} positions ends with self.length = {observed}, where the positions stored "
        f"are {[first, first + single, first + single + several]}: a call of one position "
        "advances it, but each call of several positions starts over from 0, as if it "
        "brought a new prompt, and overwrites the positions stored. A call of several "
        "positions may continue the sequence (a prompt fed in chunks, or a draft of several "
        "tokens); only a new KVCache starts empty. "
    )


_SIZE_NAMES = ("batch", "num_heads", "max_len", "d_head")


def _parameters_reordered(cls, name: str, shape: tuple, sizes: tuple, dtype) -> str:
    """When a cache built with keywords has the right buffer ``name`` while the positional
    one (the contract's order, as new_caches calls it) has ``shape``: __init__ declares its
    parameters in another order (blind12e-kv-constructor-arguments-swapped, told "positions
    second", a layout that a transpose on the way in and out keeps right); "" otherwise."""
    try:
        keyword = cls(**dict(zip(_SIZE_NAMES, sizes, strict=True)), dtype=dtype)
    except Exception:  # other parameter names: the probe tells nothing
        return ""
    buffer = getattr(keyword, name, None)
    if not isinstance(buffer, torch.Tensor) or tuple(buffer.shape) != sizes:
        return ""
    moved = [_SIZE_NAMES[axis] for axis in range(4) if shape[axis] != sizes[axis]]
    which = f" ({' and '.join(moved)} swapped)" if len(moved) == 2 else ""
    keywords = ", ".join(f"{key}={value}" for key, value in zip(_SIZE_NAMES, sizes, strict=True))
    return (
        f" Built with keywords, KVCache({keywords}) has the right {name}, {sizes}: so your "
        f"__init__ declares its parameters in another order than the contract's{which}, and "
        "a positional call (the model's new_caches makes every cache that way) puts the sizes "
        "in the wrong places. Declare __init__(self, batch, num_heads, max_len, d_head, "
        "dtype=torch.float32)."
    )


#: (cache, buffer) weak references for every cache whose buffers a check read, over the
#: process: a buffer of a new cache in the memory of an earlier cache's is shared state
_BUFFERS_SEEN: list = []


def _shared_with_earlier_cache(buffer, cache) -> bool:
    """Whether ``buffer`` (of ``cache``) is in the memory of a buffer of another cache built
    before it (the same tensor, or a view of it); False on anything unexpected."""
    try:
        memory = buffer.untyped_storage().data_ptr()
        for cache_ref, buffer_ref in _BUFFERS_SEEN[-64:]:
            other, seen = cache_ref(), buffer_ref()
            # the earlier cache may be gone while its buffer lives on (kept on the class)
            if seen is None or other is cache or seen.numel() == 0:
                continue
            if seen.untyped_storage().data_ptr() == memory:
                return True
    except Exception:  # values from the grader, or a buffer that is not a tensor
        return False
    return False


def _spare_slots(cls, name: str, shape: tuple, sizes: tuple) -> str:
    """A buffer whose positions axis holds max_len + j (j = 1 to 3: spare slots "to be
    safe", or max_len + 1 from counting the slots as positions 0 .. max_len), named, with
    what a fresh cache of the same sizes does once full: refuse one more position (the
    capacity test reads max_len) or accept it (the test reads the buffer's own length, so
    the spare slot is filled instead of refused); "" for another shape."""
    batch, heads, max_len, d_head = sizes
    extra = shape[2] - max_len
    if (shape[0], shape[1], shape[3]) != (batch, heads, d_head) or not 1 <= extra <= 3:
        return ""
    slots = "one spare slot" if extra == 1 else f"{extra} spare slots"
    said = (
        f" Its positions axis holds {shape[2]} = max_len + {extra}: {slots} past the "
        f"max_len = {max_len} positions the cache is made for."
    )
    if cls is not None and _accepts_one_past_full(cls, sizes):
        # two more after full: refused by the learner's own test (one that reads the
        # buffer's length), or failing in the write (no test that reads max_len at all)
        two = _error_past_full(cls, sizes, 2)
        why = (
            "your capacity test compares with the buffer's own length (self.keys.shape[2]), "
            "which the spare slot makes larger than max_len"
            if two is not None and not isinstance(two, RuntimeError)
            else "the spare slot is filled where the cache must refuse"
        )
        said += (
            f" And a cache filled with its {max_len} positions accepts one more instead of "
            f"raising ValueError: {why}."
        )
    return said + (
        " The cache holds exactly max_len positions and refuses more: allocate (batch, "
        "num_heads, max_len, d_head) and raise ValueError when length + n > max_len."
    )


def _kept_or_rounded(name: str, shape: tuple, sizes: tuple, shared: bool) -> str:
    """A buffer of the wrong shape in the memory of an earlier cache's buffer (kept on the
    class or in a global and handed to every cache), or whose positions axis is max_len
    rounded up, named; "" otherwise."""
    if shared:
        return (
            f" Your {name} buffer is the very tensor of a cache built earlier (the same "
            "memory), made for that cache's sizes: your caches share one buffer (kept on "
            "the class, in a global or in a default argument), so a new cache starts with "
            "another's sizes and positions. Allocate the buffers in __init__ for this "
            "cache's own sizes (self.register_buffer(...)), each cache its own."
        )
    same_elsewhere = all(shape[axis] == sizes[axis] for axis in (0, 1, 3))
    rounding = rounded_up(shape[2], sizes[2]) if same_elsewhere else ""
    if rounding:
        return (
            f" Its positions axis holds {shape[2]}: max_len = {sizes[2]} rounded up to "
            f"{rounding}. The cache holds exactly max_len positions (and refuses more): "
            "allocate (batch, num_heads, max_len, d_head) as asked."
        )
    return ""


def _expect_layout(
    c: Checker, buffer, name: str, built: str, sizes: tuple, cls=None, dtype=None, cache=None
) -> None:
    """A buffer ``keys`` or ``values`` has the layout (batch, num_heads, positions, d_head):
    max_len positions, or fewer in a cache that grows (blind8b-kv-buffers-positions-second,
    positions second and transposed on the way in and out, passed before)."""
    if not isinstance(buffer, torch.Tensor) or buffer.dim() != 4:
        return
    batch, heads, max_len, d_head = sizes
    shape = tuple(buffer.shape)
    shared = _shared_with_earlier_cache(buffer, cache)
    if cache is not None:
        with contextlib.suppress(TypeError):  # a stand-in that takes no weak reference
            _BUFFERS_SEEN.append((weakref.ref(cache), weakref.ref(buffer)))
    if (shape[0], shape[1], shape[3]) == (batch, heads, d_head) and shape[2] <= max_len:
        return
    reordered = "" if cls is None else _parameters_reordered(cls, name, shape, sizes, dtype)
    hint = (
        reordered
        or _kept_or_rounded(name, shape, sizes, shared)
        or ("" if shared else _spare_slots(cls, name, shape, sizes))
        or (
            " That is positions second, (batch, max_len, num_heads, d_head), the layout before "
            "split_heads' transpose."
            if shape == (batch, max_len, heads, d_head)
            # blind16e-kv-values-buffer-shaped-d-v-from-keys (its shape alone before)
            else f" Your {name} buffer is transposed: (batch, num_heads, d_head, max_len), the "
            "right layout with its last two axes swapped, as for a product such as q @ kᵀ, with "
            "each position a column. Store them as they come and transpose where the product "
            "needs it, if anywhere."
            if shape == (batch, heads, d_head, max_len) and d_head != max_len
            else ""
        )
    )
    c.fail(
        f"{built}: the buffer {name} has shape {shape}, not (batch, num_heads, max_len, "
        f"d_head) = {sizes}.{hint} The buffers keep the layout of the keys and values they "
        "store, (batch, num_heads, positions, d_head), so that k_new is written without a "
        "transpose at [:, :, length : length + n] and the attention reads them as they are."
    )


def _expect_starts_empty(c: Checker, cls, args: tuple, built: str, stored_before: int) -> None:
    """A cache just built holds nothing: self.length is 0. One whose count moves when
    another cache stores a position shares its count with the others
    (blind8b-kv-length-on-the-class, a KVCache.length class attribute, was told its overflow
    test was wrong)."""
    cache = c.call(cls, *args, call_repr=built)
    counter = getattr(cache, "length", None)
    if not isinstance(counter, int) or isinstance(counter, bool) or counter == 0:
        return
    batch, heads, _, d_head, dtype = args
    moved = None
    try:  # another cache (with room) stores one position: does this one's count move too?
        other = cls(batch, heads, counter + 8, d_head, dtype)
        one = torch.zeros(batch, heads, 1, d_head, dtype=dtype)
        other(one, one.clone())
        moved = getattr(cache, "length", None)
    except Exception:  # the learner's cache refused: no evidence either way
        pass
    if isinstance(moved, int) and moved == counter + 1:
        cause = (
            f" When another new cache stored one position, this one's self.length became "
            f"{moved}: the count is shared between caches (a class attribute such as "
            "KVCache.length, or a global), not kept by each one"
            + (
                f"; the caches built before it in this check stored {stored_before} positions"
                if stored_before
                else ""
            )
            + "."
        )
    else:
        cause = ""
    c.fail(
        f"{built} has self.length = {counter} before its first call, not 0: a new cache "
        f"starts empty.{cause} Set self.length = 0 in __init__ and advance it with "
        "self.length = ... in forward, so that every cache counts its own positions."
    )


def _refuses_one_past_full(cls, sizes: tuple) -> bool:
    """Whether a fresh cache filled exactly refuses one more position (with any error)."""
    batch, heads, max_len, d_head = sizes
    try:
        cache = cls(batch, heads, max_len, d_head, torch.float32)
        full = torch.zeros(batch, heads, max_len, d_head)
        cache(full, full.clone())
    except Exception:
        return False
    try:
        one = torch.zeros(batch, heads, 1, d_head)
        cache(one, one.clone())
    except Exception:
        return True
    return False


def _accepts_one_past_full(cls, sizes: tuple) -> bool:
    """Whether a fresh cache filled exactly stores one more position without an error
    (False when filling it fails, or it refuses)."""
    batch, heads, max_len, d_head = sizes
    try:
        cache = cls(batch, heads, max_len, d_head, torch.float32)
        full = torch.zeros(batch, heads, max_len, d_head)
        cache(full, full.clone())
    except Exception:  # the learner's code: filling what fits must work to tell anything
        return False
    try:
        one = torch.zeros(batch, heads, 1, d_head)
        cache(one, one.clone())
    except Exception:  # refused (with any error)
        return False
    return True


def _error_past_full(cls, sizes: tuple, n: int) -> BaseException | None:
    """The error a fresh cache filled exactly raises when given ``n`` more positions (None
    when it raises none, or filling it already failed)."""
    batch, heads, max_len, d_head = sizes
    try:
        cache = cls(batch, heads, max_len, d_head, torch.float32)
        full = torch.zeros(batch, heads, max_len, d_head)
        cache(full, full.clone())
    except Exception:
        return None
    try:
        more = torch.zeros(batch, heads, n, d_head)
        cache(more, more.clone())
    except Exception as exc:  # the learner's code: which error it raises is the answer
        return exc
    return None


def _positions_counted(cls, sizes: tuple) -> dict[int, int] | None:
    """How many new positions the learner's capacity test counts for a chunk of n = 1, 2,
    3: with L positions stored, a test that counts c refuses the chunk exactly when
    L + c > max_len, so the smallest refused L tells c = max_len - L + 1 (the right test
    counts c = n). A refusal is an error of the learner's own (not PyTorch's RuntimeError
    from a write cut short). None when filling a fresh cache fails, or some chunk is
    never refused."""
    batch, heads, max_len, d_head = sizes
    counted = {}
    for n in (1, 2, 3):
        for stored in range(max_len + 1):
            try:
                cache = cls(batch, heads, max_len, d_head, torch.float32)
                if stored:
                    first = torch.zeros(batch, heads, stored, d_head)
                    cache(first, first.clone())
            except Exception:  # the learner's code: filling what fits must work
                return None
            try:
                more = torch.ones(batch, heads, n, d_head)  # (batch, heads, n, d_head)
                cache(more, more.clone())
            except RuntimeError:
                continue  # PyTorch's own error, or one the test shares with it: not told
            except Exception:  # the learner's refusal
                counted[n] = max_len - stored + 1
                break
        else:
            return None
    return counted


def _counted_sentence(cls, sizes: tuple) -> str:
    """Words for a capacity test that counts a fixed number of new positions whatever the
    chunk holds (measured by :func:`_positions_counted`): one (self.length + 1 > max_len,
    the same test as self.length >= max_len), or the size of another axis of k_new. ""
    when the count follows n, or cannot be measured."""
    try:
        counted = _positions_counted(cls, sizes)
    except Exception:  # a probe of learner code: any failure leaves the old message
        return ""
    if counted is None or len(set(counted.values())) != 1:
        return ""
    fixed = counted[1]
    batch, heads, max_len, d_head = sizes
    refused_from = max_len - fixed + 1
    measured = (
        f"your capacity test counts {fixed} new position{'s' if fixed != 1 else ''} whatever "
        f"k_new holds: chunks of 1, 2 and 3 positions are all refused from length "
        f"{refused_from} on (the right test refuses them from {max_len}, {max_len - 1} and "
        f"{max_len - 2} on)"
    )
    axes = [
        f"k_new.shape[{index}] ({name}, {size} here)"
        for index, name, size in (
            (0, "batch", batch),
            (1, "num_heads", heads),
            (3, "d_head", d_head),
        )
        if size == fixed
    ]
    other_axis = (
        " or ".join(axes) + " where the number of new positions k_new.shape[-2] belongs"
        if axes
        else ""
    )
    if fixed == 1:
        return (
            f"{measured}, so it is self.length + 1 > max_len (the same test as self.length "
            ">= max_len, or == max_len: a test of the length before this chunk)"
            + (f", or it counts {other_axis}" if other_axis else "")
            + ": the number of new positions, k_new.shape[-2], is not counted, and a chunk of "
            "several positions (the prefill) passes it and overflows"
        )
    return f"{measured}: it counts " + (
        other_axis or "a fixed number, where the number of new positions k_new.shape[-2] belongs"
    )


def _refusal_order(cls, sizes: tuple) -> str:
    """Why a cache that refuses one more position once full lets a chunk that straddles
    the end reach the write: its test reads the length before the chunk (then two more
    positions after a full cache are refused with its ValueError too), or its test comes
    after the write (then those two fail in the write, a slice of 0 positions, while one
    position is broadcast into it silently and only then refused); "" when the cache does
    not refuse one more position."""
    one = _error_past_full(cls, sizes, 1)
    if one is None:
        return ""
    two = _error_past_full(cls, sizes, 2)
    if isinstance(one, ValueError) and isinstance(two, RuntimeError):
        return (
            "(your cache refuses one more position once it is full, with its ValueError, "
            "but two more positions then fail in the write with this same shape error: it "
            "writes the new positions before its capacity check, and the write fails first "
            "whenever the chunk runs past the end; a single position is written into the empty slice [max_len, "
            "max_len + 1) by broadcasting and only then refused)"
        )
    counted = _counted_sentence(cls, sizes)
    if counted:
        return f"({counted})"
    if isinstance(two, ValueError):
        return (
            "(your cache refuses one and two more positions once it is full, with its "
            "ValueError, so its test looks at the length before this chunk, self.length >= "
            "max_len, instead of the length after it)"
        )
    return (
        "(your cache does refuse one more position once it is full, so either its test "
        "looks at the length before this chunk, self.length >= max_len, instead of the "
        "length after it, or the test comes after the write, which fails first)"
    )


def _expect_straddle_refused(c: Checker, cls, hidden: bool):
    """A chunk that starts inside the cache but runs past its end must be refused, as a
    chunk after a full cache is (any error: gpt-fast's index_copy_ raises IndexError). A
    cache whose test reads the length before the chunk (length >= max_len) stores it.
    Returns the check that the refusal left the cache as it was, run last (after the
    check that two caches do not share storage, a cause that also shows there)."""
    sizes = (1, 2, 4, 3) if hidden else (2, 3, 5, 4)
    batch, heads, max_len, d_head = sizes
    first_n = max_len - 2
    built = f"KVCache({batch}, {heads}, {max_len}, {d_head}, dtype=torch.float32)"
    cache = c.call(cls, *sizes, torch.float32, call_repr=built)
    first = randn((batch, heads, first_n, d_head), 1290 + hidden)
    c.call(
        cache,
        first,
        first.clone(),
        call_repr=f"cache(k_new, v_new) ({built}, called with {first_n} new)",
    )
    second = randn((batch, heads, 3, d_head), 1291 + hidden)
    try:
        cache(second, second.clone())
    except Exception as exc:  # the cache refused: with the right error?
        # blind18d-kv-writes-before-capacity-check was told the first alone, then both:
        # two more positions after a full cache tell them apart
        before = _refusal_order(cls, sizes)
        problem = _refusal_problem(
            exc, f"{built}, after {first_n} positions, called with 3 new,", before
        )
        if problem:
            c.fail(problem)
        c.ok()
        return lambda: _expect_refusal_changes_nothing(
            c, cache, built, first, first_n, max_len, hidden
        )
    counted = _counted_sentence(cls, sizes)
    why = (
        f" Measured on fresh caches, {counted}."
        if counted
        else " Your cache does refuse one more position once it is full, so its test looks at "
        "the length before this chunk (self.length >= max_len, or start >= max_len) instead "
        "of the length after it."
        if _refuses_one_past_full(cls, sizes)
        else ""
    )
    c.fail(
        f"{built} after {first_n} positions, called with 3 new ({first_n + 3} > max_len = "
        f"{max_len} positions would be stored): no error was raised. The chunk starts inside "
        f"the cache (at position {first_n} < {max_len}) but runs past its end.{why} Test, "
        "before writing, whether the length after the write fits: if self.length + "
        "k_new.shape[-2] > max_len: raise ValueError(...)."
    )


def _expect_refusal_changes_nothing(
    c: Checker, cache, built: str, first, first_n: int, max_len: int, hidden: bool
) -> None:
    """After a refused chunk, the cache holds what it held before: the chunk of the 2
    positions left must be stored after the first ones (blind15e-kv-length-advanced-
    before-capacity-check: self.length += n before the test, so the refused call counted
    positions it never stored)."""
    counter = getattr(cache, "length", None)
    moved = (
        f" Your self.length is {counter} after the refused call, not {first_n}: it was "
        "advanced before the capacity test raised."
        if isinstance(counter, int) and not isinstance(counter, bool) and counter != first_n
        else ""
    )
    rest = max_len - first_n
    batch, heads, _, d_head = first.shape
    fits = randn((batch, heads, rest, d_head), 1292 + hidden)
    # (batch, num_heads, rest, d_head): exactly the positions left
    call = (
        f"{built} after {first_n} positions and a refused chunk of 3, called with the "
        f"{rest} that fit"
    )
    rule = (
        f"A refused call must leave the cache as it was ({first_n} positions stored).{moved} "
        "Test the capacity first, before changing anything: stop = self.length + "
        "k_new.shape[-2]; if stop > max_len: raise ValueError(...); then write and set "
        "self.length = stop."
    )
    try:
        got = cache(fits, fits.clone())
    except Exception as exc:  # the cache refuses positions that fit
        c.fail(f"{call}: raised {type(exc).__name__}: {exc}. {rule}")
    expected = torch.cat([first, fits], dim=-2)  # (batch, num_heads, max_len, d_head)
    keys = got[0] if isinstance(got, tuple) and got else None
    right = (
        isinstance(keys, torch.Tensor)
        and keys.shape == expected.shape
        and torch.allclose(keys.double(), expected.double())
    )
    c.expect_true(
        right,
        f"{call}: returned keys "
        f"{tuple(keys.shape) if isinstance(keys, torch.Tensor) else short(keys)}, not the "
        f"{max_len} positions stored (the first {first_n}, then these {rest}). {rule}",
    )


def _also_ignores_dtype(cls, sizes: tuple) -> str:
    """When another check is about to fail: whether the learner's cache also ignores the
    dtype argument, read from a float64 cache built apart (blind10e-kv-persistent-and-float32
    was told the persistent buffers only: the first cases are float32)."""
    try:
        probe = cls(*sizes, torch.float64)
    except Exception:  # no evidence either way
        return ""
    found = [
        f"{name} {buffer.dtype}"
        for name in ("keys", "values")
        if isinstance(buffer := getattr(probe, name, None), torch.Tensor)
        and buffer.dtype != torch.float64
    ]
    if not found:
        return ""
    return (
        f" A second slip: KVCache({', '.join(map(str, sizes))}, dtype=torch.float64) has the "
        f"buffers {' and '.join(found)}, not float64: allocate them with dtype=dtype "
        "(torch.zeros(shape, dtype=dtype)); the dtype argument is the model's."
    )


def _four_axis_buffers(module) -> list[str]:
    return [name for name, buffer in module.named_buffers() if buffer.dim() == 4]


def _expect_allocated_up_front(c: Checker, cls, cache, built: str, sizes: tuple, dtype) -> None:
    """A cache with no (batch, heads, positions, d_head) buffer right after construction,
    but one after its first call, allocates its buffers lazily (blind12e-kv-buffers-
    allocated-lazily: registered as None, made on the first call; or registered on the
    first call): the contract allocates them in __init__. Any buffer names are fine here
    (:func:`_expect_contract_names` asks for keys and values next), and so is a growing
    cache's empty buffer (0 positions)."""
    if _four_axis_buffers(cache):
        return
    plain = [
        name
        for name in ("keys", "values")
        if isinstance(getattr(cache, name, None), torch.Tensor)
        and name not in dict(cache.named_buffers())
    ]
    if plain:
        # blind12l-kv-plain-attributes-not-buffers passed: its values are right
        c.fail(
            f"{built}: {' and '.join(plain)} {'is a' if len(plain) == 1 else 'are'} plain "
            f"tensor attribute{'' if len(plain) == 1 else 's'} (self.keys = torch.zeros(...)), "
            "not registered as buffers: the module's buffers() do not hold them, so "
            "model.to(device), .to(dtype) or .cuda() leave them behind (the cache stays on "
            "the CPU while the model moves to the GPU). Register them: "
            'self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False) '
            "(and the same for values)."
        )
    batch, heads, _, d_head = sizes
    try:
        probe = cls(*sizes, dtype)
        one = torch.zeros(batch, heads, 1, d_head, dtype=dtype)
        probe(one, one.clone())
    except Exception:  # the probe tells nothing
        return
    made = _four_axis_buffers(probe)
    if not made:
        return
    empty = [name for name, buffer in cache._buffers.items() if buffer is None]
    registered = f" ({', '.join(empty)} registered as None)" if empty else ""
    c.fail(
        f"{built}: right after construction the cache has no key/value buffers{registered}; "
        f"they exist only after its first call ({', '.join(made)}): they are allocated "
        "lazily, on the first call. Allocate both in __init__, room for max_len positions: "
        'self.register_buffer("keys", torch.zeros((batch, num_heads, max_len, d_head), '
        "dtype=dtype), persistent=False) (and values): the cache's memory is then reserved, "
        "and its size known, before generation starts."
    )


def _expect_contract_names(c: Checker, cache, built: str) -> None:
    """A cache with (batch, heads, positions, d_head) buffers, none of them named keys or
    values: the contract names the two buffers (blind13e-kv-buffers-named-k-cache, gpt-
    fast's k_cache and v_cache, passed: everything it returns is right)."""
    buffers = dict(cache.named_buffers())
    missing = [name for name in ("keys", "values") if name not in buffers]
    found = [name for name, buffer in buffers.items() if buffer.dim() == 4]
    others = [name for name in found if name not in ("keys", "values")]
    if not missing or not others:
        return
    c.fail(
        f"{built} registers its buffers as {' and '.join(repr(name) for name in others)}, "
        f"none named {' and '.join(repr(name) for name in missing)}: the contract "
        "names the two buffers keys and values, and code that reads a cache looks them up "
        "by these names (section 3 measures a cache's memory as c.keys.nbytes + "
        "c.values.nbytes). Register them as "
        'self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False) '
        "and the same for values."
    )


def _expect_buffers_hold(c: Checker, cache, call: str, expected: dict, stored: int) -> None:
    """After a call whose returned keys and values are right: the buffers keys and values
    hold them at [0, stored) (blind13e-kv-positions-kept-in-python-list returned a
    concatenation of Python lists and left its buffers all zeros). ``expected``: name ->
    the (batch, num_heads, stored, d_head) tensor that buffer must hold."""
    buffers = dict(cache.named_buffers())
    empty, other = [], []
    for name, want in expected.items():
        buffer = buffers.get(name)
        if not isinstance(buffer, torch.Tensor) or buffer.dim() != 4:
            continue
        if buffer.shape[:2] != want.shape[:2] or buffer.shape[-1] != want.shape[-1]:
            continue
        if buffer.shape[-2] < stored:
            continue
        held = buffer[:, :, :stored].detach()  # (batch, num_heads, stored, d_head)
        close = torch.isclose(held.double(), want.double(), **tolerance(held.dtype, want.dtype))
        right = close.all(dim=-1).all(dim=1).all(dim=0)  # (stored,): a position held right
        if bool(right.all()):
            continue
        if bool((held == 0).all()):
            empty.append(name)
        else:
            other.append((name, int((~right).nonzero()[0])))
    if empty:
        c.fail(
            f"{call}: the keys and values returned are right, but your buffer(s) "
            f"{' and '.join(empty)} still hold only zeros at positions [0, {stored}): nothing "
            "is written into the buffers. The positions are kept somewhere else (a Python "
            "list, or another tensor, joined at each call?), while the buffers, the memory "
            "the cache reserves, stay empty. Write each chunk into them, "
            "self.keys[:, :, start:stop] = k_new (and values), and return slices of them, "
            "self.keys[:, :, :stop]."
        )
    if other:
        name, position = other[0]
        c.fail(
            f"{call}: the keys and values returned are right, but your buffer {name} does "
            f"not hold them: its position {position} differs from the one returned. The "
            "positions are kept somewhere else than the buffers, or written into them "
            "elsewhere. Write each chunk into the buffers, self.keys[:, :, start:stop] = "
            "k_new, and return slices of them, self.keys[:, :, :stop]."
        )


_ASSERTED = (
    "{what} raised AssertionError: the capacity test is an assert. Raise ValueError "
    "instead (if stop > max_len: raise ValueError(...)): an assert states what the code "
    "itself guarantees, and Python removes asserts altogether when run with -O, so the "
    "cache would then overwrite or drop positions silently."
)


_TORCH_SHAPE_ERROR = re.compile(
    r"expanded size of the tensor|must match the (existing )?size|shape mismatch"
)


def _refusal_problem(exc: BaseException, what: str, why: str = "") -> str:
    """What is wrong with the error a cache raised to refuse positions past max_len, or ""
    when it is a fine refusal: ValueError (the contract's), or IndexError (an index past
    the end, as gpt-fast's index_copy_ raises). Any other type is named (blind16e-kv-
    overflow-raises-runtime-error, RuntimeError, was accepted), and torch's own shape
    error from the write tells that no capacity test stopped the chunk (``why``: what
    tells why, when a probe knows)."""
    if isinstance(exc, AssertionError):
        return _ASSERTED.format(what=what)
    if isinstance(exc, ValueError | IndexError):
        return ""
    name, text = type(exc).__name__, str(exc)
    text = text if len(text) <= 120 else text[:117] + "..."
    if isinstance(exc, RuntimeError) and _TORCH_SHAPE_ERROR.search(str(exc)):
        return (
            f"{what} raised PyTorch's shape error ({name}: {text}), not a "
            "refusal of your own: no capacity test stopped the chunk "
            + (why or "(there is none, or it lets this chunk through)")
            + ", and the write failed only because the slice [length:stop] is cut short at "
            "the end of the buffer. Test, before writing, "
            "whether the positions fit: if self.length + k_new.shape[-2] > max_len: raise "
            "ValueError(...)."
        )
    return (
        f"{what} raised {name} ({text}), not the ValueError the contract "
        "names: the cache does refuse, the error's type is what is wrong. A caller "
        "tells a full cache from a bug by the error's type (except ValueError: shorten the "
        f"prompt), and {name} is "
        + (
            "what PyTorch raises for any shape, dtype or device error, so catching it would "
            "also hide real bugs."
            if isinstance(exc, RuntimeError)
            else "not the type a caller catches for it."
        )
        + " Raise ValueError(...) (IndexError, an index past the end, is also accepted)."
    )


def _expect_default_dtype(c: Checker, cls, sizes: tuple[int, ...]) -> None:
    """A cache made without a dtype holds float32, the signature's default (blind12l-kv-
    default-dtype-half, dtype=torch.float16 as the default, passed: every call gave one)."""
    built = f"KVCache({', '.join(map(str, sizes))})"
    cache = c.call(
        cls,
        *sizes,
        call_repr=built,
        hints=[
            (
                lambda exc: isinstance(exc, TypeError) and "dtype" in str(exc),
                lambda exc: (
                    "The contract's dtype has a default, torch.float32: def "
                    "__init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32)."
                ),
            )
        ],
    )
    found = {
        name: buffer.dtype
        for name in ("keys", "values")
        if isinstance(buffer := getattr(cache, name, None), torch.Tensor)
        and buffer.dtype != torch.float32
    }
    if found:
        told = ", ".join(f"{name} {dtype}" for name, dtype in found.items())
        c.fail(
            f"{built}, made without a dtype, holds {told}, not float32: the dtype argument's "
            "default is torch.float32 (def __init__(self, batch, num_heads, max_len, d_head, "
            "dtype=torch.float32)), so a cache made without one stores float32; yours has "
            "another default, or a dtype of its own where dtype=dtype belongs."
        )


def check_KVCache(cls, *, hidden: bool = False) -> None:
    """KVCache(batch, num_heads, max_len, d_head, dtype); forward(k_new, v_new) appends the
    new positions and returns (keys, values), all positions so far."""
    with Checker("KVCache", hidden=hidden) as c:
        c.require_callable(cls)
        cases = _HIDDEN_CACHE if hidden else _VISIBLE_CACHE
        stored_before = 0  # positions stored by the caches this check made so far
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
                "buffers would be saved with (and loaded into) the model's weights."
                + (_also_ignores_dtype(cls, (batch, heads, max_len, d_head)) if saved else ""),
            )
            _expect_allocated_up_front(c, cls, cache, built, (batch, heads, max_len, d_head), dtype)
            _expect_contract_names(c, cache, built)
            # the count of stored positions as a tensor: right positions, but a buffer in
            # the state dict (blind19d-kv-length-kept-as-persistent-buffer passed)
            counters = counters_kept_as_tensors(cache, ("length",))
            c.expect_true(not counters, f"{built}: {counters}")
            if number == 0:
                _expect_default_dtype(c, cls, (batch, heads, max_len, d_head))
            for name in ("keys", "values"):
                buffer = getattr(cache, name, None)
                _expect_layout(
                    c, buffer, name, built, (batch, heads, max_len, d_head), cls, dtype, cache
                )
                if isinstance(buffer, torch.Tensor) and buffer.dtype != dtype:
                    c.fail(
                        f"{built}: the buffer {name} has dtype {buffer.dtype}, not {dtype}: "
                        "allocate the buffers with dtype=dtype (torch.zeros(shape, "
                        "dtype=dtype)); the dtype argument is the model's."
                    )
            _expect_starts_empty(
                c, cls, (batch, heads, max_len, d_head, dtype), built, stored_before
            )
            stored_before += sum(chunks)
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
                        _slot_hint(
                            tuple(k_new.shape),
                            length,
                            max_len,
                            probe=lambda sizes=(batch, heads, max_len, d_head), dt=dtype: (
                                _probe_slot(cls, sizes, dt)
                            ),
                        ),
                        *_CACHE_SHAPES,
                        _fits_hint(length + n, max_len, (batch, heads, max_len, d_head), cache),
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
                    if not never and step == stored and length > 0:
                        # self.length += stop: the step is the new length (blind9e-kv-length-
                        # adds-stop, told it advanced by d_head, equal to stop on that call)
                        rule = _length_rule(cls, dtype)
                        if rule == "stop" or not axes:
                            c.fail(
                                f"{call}: self.length is {counter} afterwards, but the cache "
                                f"now holds {stored} positions: it advanced by {step}, the new "
                                f"length stop = length + n = {stored}, so self.length was "
                                "increased by stop (self.length += stop) where it should be "
                                "set to it: self.length = stop (or self.length += n). The "
                                "next chunk would be written after a gap."
                            )
                        if rule is None:
                            axes = f"stop = length + n = {stored} (self.length += stop) or {axes}"
                    if counter == n and n > 1 and length > 0:
                        # set back to 0 by a call of several positions, advanced by a call
                        # of one (blind14e-kv-reset-on-multi-position-call, told it never
                        # advances)
                        restarts = _restarts_on_chunks(cls, dtype)
                        if restarts:
                            c.fail(
                                f"{call}: self.length is {counter} afterwards, but the cache "
                                f"now holds {stored} positions: it went back to 0 before "
                                f"this call's {n} positions were written. {restarts}Set "
                                "self.length = length + n (k_new.shape[-2]) on every call."
                            )
                    # a probe with sizes that all differ tells apart the rules that give
                    # this one count (blind11e-kv-length-plus-one, += 1, was told only that
                    # it counts wrongly; self.length = n was told it never advances)
                    probe = _length_update(cls, dtype)
                    if probe:
                        c.fail(
                            f"{call}: self.length is {counter} afterwards, but the cache now "
                            f"holds {stored} positions. {probe}After writing n new positions "
                            "at [length, length + n), set self.length = length + n "
                            "(k_new.shape[-2])."
                        )
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
                    if counter == length - n and n > 0:
                        c.fail(
                            f"{call}: self.length is {counter} afterwards, but the cache now "
                            f"holds {stored} positions: {counter} is length - n, so stop was "
                            "computed as length - n (a minus where + belongs). The new "
                            "positions go to [length, length + n): stop = self.length + "
                            "k_new.shape[-2], and self.length = stop afterwards."
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
                for tensor, what, fed in ((got_k, "keys", k_new), (got_v, "values", v_new)):
                    found = tuple(tensor.shape)
                    hint = ""
                    if found[:2] == (batch, heads) and found[3:] == (d_head,):
                        if found[2] == length:  # on the first call: nothing (0 positions)
                            hint = _BEFORE_APPENDING
                        elif found[2] == n and length > 0:
                            hint = _ONLY_NEW
                        elif found[2] == stored + n and (
                            again := _new_positions_again(
                                tensor,
                                (all_k if what == "keys" else all_v)[:, :, :stored],
                                fed,
                                what,
                                length,
                            )
                        ):
                            hint = again
                        elif found[2] == max_len:
                            hint = (
                                "It returned the whole buffer, unused positions included: "
                                "attention would read zeros there. Return [:, :, :length]."
                            )
                        elif found[2] == stored + 1:
                            hint = (
                                f"It returned one position too many ({stored + 1}, the "
                                f"{stored} stored and one unwritten slot of zeros after "
                                "them): the slice runs one past the stored positions, as "
                                f"[:, :, :stop + 1] does. Return [:, :, :stop], stop = "
                                "length + n."
                            )
                    if found == (batch, heads, d_head, stored) and d_head != stored:
                        hint = (
                            "Its last two axes are swapped, (batch, num_heads, d_head, "
                            "positions): a transpose(-2, -1) too many. Return the positions on "
                            "axis 2, as they are stored: (batch, num_heads, length, d_head)."
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
                        explain=lambda gk=got_k, gv=got_v, ek=expected_k, ev=expected_v, b=batch, kn=k_new, at=length, cc=cache, dt=dtype: (
                            _explain_cache(
                                gk,
                                gv,
                                ek,
                                ev,
                                b,
                                kn,
                                at,
                                cc,
                                probe_calls=lambda: _calls_never_stored(cls, dt),
                            )
                        ),
                        hint=_CACHE_RULE,
                    )
                _expect_buffers_hold(
                    c, cache, call, {"keys": expected_k, "values": expected_v}, stored
                )
                length = stored
            # Full: one more position must raise, not silently drop or overwrite.
            if length == max_len:
                extra = randn((batch, heads, 1, d_head), seed + 2, dtype=dtype)
                try:
                    c.call(cache, extra, extra.clone(), call_repr="cache(k_new, v_new)")
                except Exception as exc:  # the cache refused: with the right error?
                    problem = _refusal_problem(
                        exc.__cause__ or exc, f"{built}, full, called with 1 more position,"
                    )
                    if problem:
                        c.fail(problem)
                    c.ok()
                else:
                    c.fail(
                        f"{built} already held {max_len} positions, and storing one more did not "
                        "raise an error. The cache must refuse (raise ValueError) instead of "
                        "silently dropping or overwriting positions."
                    )
        after_refusal = _expect_straddle_refused(c, cls, hidden)
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
        if after_refusal is not None:
            after_refusal()


# ============================================================================== generate
