"""The check of ``train_bpe``: recounting after every merge, first-occurrence tie-breaking,
new ids 256 + i, and early stopping.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re

from transformer_course.checking import Checker, CheckFailure, short
from transformer_course.reference import tokenization as ref

from .common import _CLASSIC, _is_int


def _train(ids, num_merges, choose, min_count=1):
    """BPE training over `ids` with a rule `choose(counts)` for the pair to merge."""
    merges = {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        best = choose(counts)
        if counts[best] < min_count:
            break
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


def _train_on_words(text: str, num_merges: int) -> dict[tuple[int, int], int]:
    """The merges learned on the words of ``text`` (text.split()) one by one, their pair
    counts summed: the spaces dropped, and no merge across two words."""
    words = [list(word.encode("utf-8")) for word in text.split()]
    merges: dict[tuple[int, int], int] = {}
    for step in range(num_merges):
        counts: dict[tuple[int, int], int] = {}
        for word in words:
            for pair, count in ref.get_pair_counts(word).items():
                counts[pair] = counts.get(pair, 0) + count
        if not counts:
            break
        best = _first_of_max(counts)
        words = [ref.merge_pair(word, best, 256 + step) for word in words]
        merges[best] = 256 + step
    return merges


def _ids_from_max(ids: list[int], num_merges: int) -> list[int] | None:
    """The sorted new ids of training that numbers each merge max(ids) + 1 (None when
    that gives 256 + i anyway)."""
    ids, new_ids = list(ids), []
    for _ in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        new_id = max(ids) + 1
        ids = ref.merge_pair(ids, _first_of_max(counts), new_id)
        new_ids.append(new_id)
    return None if new_ids == [256 + i for i in range(len(new_ids))] else sorted(new_ids)


def _first_of_max(counts):
    return max(counts, key=counts.get)


def _last_of_max(counts):
    return sorted(counts, key=counts.get)[-1]


def _train_several_per_count(ids, num_merges: int, per_count: int) -> dict:
    """Training that merges the ``per_count`` most frequent pairs of one count, one after
    the other, before counting again: every merge but the first of a count is chosen
    from counts taken before the previous merge."""
    merges: dict[tuple[int, int], int] = {}
    while len(merges) < num_merges:
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        for pair in sorted(counts, key=counts.get, reverse=True)[:per_count]:
            if len(merges) == num_merges:
                break
            ids = ref.merge_pair(ids, pair, 256 + len(merges))
            merges[pair] = 256 + len(merges)
    return merges


_STALE_COUNTS = (
    "Your merges are those of a loop that merges the {k} most frequent pairs of one count "
    "before counting again: every merge but the first of a count is chosen from counts taken "
    "before the previous merge, stale counts that still hold the pairs that merge removed and "
    "lack the pairs it created. Count the pairs again on the current ids before every "
    "merge, and merge only the single most frequent pair of each count."
)
_TIE_LAST = (
    "A tie was broken the wrong way: among equally frequent pairs, pick the one that occurs "
    "first (max() over the ordered dict does that; sorted(...)[-1] does not)."
)
#: a text and a number of merges on which the pair-choosing mistakes all differ
_CHOICE_PROBE = ("hello hello world", 4)


def _choice_mistakes(train_bpe, ids: list[int], num_merges: int, got: dict) -> dict:
    """{message: merges as a list of items} for the ways of choosing each merge's pair
    wrongly (ties to the last pair, several pairs merged per count); where several give
    ``got`` here, the learner's train_bpe on _CHOICE_PROBE keeps the one it agrees with
    there (all stay when it agrees with none, or fails)."""
    models = {
        _TIE_LAST: lambda ids, n: _train(ids, n, _last_of_max),
        **{
            _STALE_COUNTS.format(k=k): lambda ids, n, k=k: _train_several_per_count(ids, n, k)
            for k in (2, 3)
        },
    }
    values = {
        message: list(model(list(ids), num_merges).items()) for message, model in models.items()
    }
    mine = sorted(got.items(), key=lambda item: item[1]) if isinstance(got, dict) else None
    agreeing = [message for message, value in values.items() if value == mine]
    if len(agreeing) < 2:
        return values
    text, steps = _CHOICE_PROBE
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            probed = dict(train_bpe(text, steps))
    except Exception:  # the probe tells nothing: every agreeing mistake stays named
        return values
    probe_ids = list(text.encode("utf-8"))
    kept = [m for m in agreeing if models[m](list(probe_ids), steps) == probed]
    if len(kept) != 1:
        return values
    return {
        message: value
        for message, value in values.items()
        if message not in agreeing or message in kept
    }


def _count_as_pair_hint(got: dict, what: str) -> str:
    """When the keys are single ints and the first is the largest pair count of the text's
    bytes: max(counts.values()), a count, was taken for the pair."""
    text = re.match(r"train_bpe\((.*), \d+\)$", what)
    if not got or not text:
        return ""
    counts = ref.get_pair_counts(list(ast.literal_eval(text.group(1)).encode("utf-8")))
    first = next(iter(got))
    if (  # ((a, b), count): an item of counts.items(), the pair with its count
        isinstance(first, tuple)
        and len(first) == 2
        and isinstance(first[0], tuple)
        and first[0] in counts
        and _is_int(first[1])
        and first[1] == counts[first[0]]
    ):
        return (
            f" Your first key, {first}, is the pair {first[0]} with its count {first[1]}: an "
            "item of counts.items(). max(counts.items(), key=...) returns such a (pair, count) "
            "item, and used as the pair it never matches two ids, so nothing is merged. Take "
            "the pair itself: max(counts, key=counts.get) (or the item's [0])."
        )
    if not all(_is_int(k) for k in got):
        return ""
    if not counts or next(iter(got)) != max(counts.values()):
        return ""
    return (
        f" Your first key, {next(iter(got))}, is the largest pair count of the text, not a "
        "pair: max(counts.values()) gives the count. The most frequent pair is "
        "max(counts, key=counts.get)."
    )


def _vocab_returned_hint(got: dict) -> str:
    """When the dict maps ids to bytes, {id: bytes}: the vocabulary built next to the
    merges (minbpe's train builds both) was returned instead of them; "" otherwise."""
    if not got or not all(_is_int(k) and isinstance(v, bytes) for k, v in got.items()):
        return ""
    singles = sum(1 for k, v in got.items() if 0 <= k < 256 and v == bytes([k]))
    made = [k for k in got if k >= 256]
    held = [f"{singles} single bytes"] * bool(singles) + [
        f"the bytes of {len(made)} merged ids"
    ] * bool(made)
    return (
        f" That is a vocabulary, {{id: bytes}}, holding {' and '.join(held)}: the table built "
        "next to the merges (minbpe's train builds both, vocab[256 + "
        "step] = vocab[a] + vocab[b]). You returned it instead of the merges: return the "
        "dict {pair: new_id} (merges[best] = 256 + step), from which bpe_decode builds that "
        "table itself."
    )


def _merges(c: Checker, got, what: str) -> dict[tuple[int, int], int]:
    """A dict {(a, b): new_id} of ints, in the learner's order."""
    c.expect_type(got, dict, what, "Return a dict {(a, b): new_id} in the order learned.")
    inverted = bool(got) and all(
        _is_int(k) and isinstance(v, tuple) and len(v) == 2 and all(map(_is_int, v))
        for k, v in got.items()
    )
    c.expect_true(
        not inverted,
        f"{what} holds {short(dict(list(got.items())[:3]), 120)}...: the dict is the wrong "
        "way round, {new_id: pair}, the direction of a vocabulary (id -> bytes). train_bpe "
        "returns the merges {pair: new_id}: merges[best] = 256 + step, so that bpe_encode can "
        "look a pair up and find its new id (and its rank).",
    )
    c.expect_true(
        all(
            isinstance(pair, tuple) and len(pair) == 2 and all(map(_is_int, pair)) and _is_int(v)
            for pair, v in got.items()
        ),
        f"{what} should map pairs of ids (tuples of two ints) to new ids (ints), but it holds "
        f"{short(dict(list(got.items())[:3]), 120)}..."
        + (_vocab_returned_hint(got) or _count_as_pair_hint(got, what)),
    )
    return {(int(a), int(b)): int(v) for (a, b), v in got.items()}


_EARLY_STOP_HINT = (
    "When fewer than two ids remain there is no pair left to merge: stop early (train_bpe learns "
    "*up to* num_merges merges) instead of asking max() for the best of no pairs."
)
# max() of nothing says so in different words across Python versions.
_EARLY_STOP_HINTS = [
    ("arg is an empty sequence", _EARLY_STOP_HINT),
    ("iterable argument is empty", _EARLY_STOP_HINT),
]


def _counted_once(ids: list[int], num_merges: int) -> dict[tuple[int, int], int]:
    """The merges when the pairs are counted once, before the loop (never recounted)."""
    counts = dict(ref.get_pair_counts(ids))
    merges = {}
    for step in range(num_merges):
        if not counts:
            break
        best = max(counts, key=counts.get)
        del counts[best]
        merges[best] = 256 + step
    return merges


def _counts_kept(ids: list[int], num_merges: int, drop_merged: bool):
    """BPE training whose pair counts are one dict kept across the steps, each step's
    counts of the current ids *added* to it (never reset): the merged pair keeps its old
    total (chosen again, its dict entry overwritten) unless ``drop_merged`` deletes it.
    Returns (merges, the first step whose choice differs from fresh counts' (step,
    chosen pair, its running total, its count now, fresh choice, its count, whether the
    chosen pair was merged before), or None)."""
    counts: dict[tuple[int, int], int] = {}
    merges: dict[tuple[int, int], int] = {}
    first = None
    for step in range(num_merges):
        if len(ids) < 2:
            break
        fresh = ref.get_pair_counts(ids)
        for pair, n in fresh.items():
            counts[pair] = counts.get(pair, 0) + n
        if not counts:
            break
        best = max(counts, key=counts.get)
        right = max(fresh, key=fresh.get)
        if first is None and best != right:
            first = (
                step,
                best,
                counts[best],
                fresh.get(best, 0),
                right,
                fresh[right],
                best in merges,
            )
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
        if drop_merged:
            del counts[best]
    return merges, first


def _counts_kept_hint(ids: list[int], num_merges: int, got: dict) -> str:
    """Name pair counts kept across the merge steps (a running total, never reset) when the
    learner's merges are exactly what that training gives, with the first step whose
    choice it changes; "" otherwise."""
    for drop_merged in (False, True):
        merges, first = _counts_kept(list(ids), num_merges, drop_merged)
        if first is None or got != merges:
            continue
        step, pair, total, now, right, right_now, again = first
        overwritten = (
            f" {pair} was merged before, so it is chosen again and its dict entry "
            f"overwritten with id {256 + step}: a merge lost, and its id skipped."
            if again
            else ""
        )
        return (
            f"Your merges are those of pair counts kept across the steps: one counts dict "
            "made before the loop, each step's counts of the current ids added to it "
            "(counts[pair] = counts.get(pair, 0) + n, or Counter.update), never reset. At "
            f"step {step} its running total for {pair} is {total}, summed over the steps "
            f"so far, while {pair} occurs {now} times in the current ids, and the most "
            f"frequent pair there is {right} ({right_now} times).{overwritten} Count "
            "afresh at every step, counts = get_pair_counts(ids), inside the loop."
        )
    return ""


#: ids a loop may merge with instead of the ids it records, 256 + i (i counts merges)
_MERGED_WITH = {
    "256 every time": lambda i: 256,
    "256 - i": lambda i: 256 - i,
    "255 + i": lambda i: 255 + i,
    "257 + i": lambda i: 257 + i,
}


def _ids_merged_with(text: str, merges: dict[tuple[int, int], int]) -> str:
    """When the learner's pairs follow the rule exactly if the ids were merged with another
    id than the one recorded (merge_pair(ids, pair, 256) but merges[pair] = 256 + i, say):
    that, said only when exactly one such id scheme explains every pair; "" otherwise."""
    ordered = sorted(merges.items(), key=lambda item: item[1])
    recorded = [new_id for _, new_id in ordered]
    found = []
    for name, merged_with in _MERGED_WITH.items():
        used = [merged_with(i) for i in range(len(ordered))]
        if used == recorded:
            continue
        ids = list(text.encode("utf-8"))
        for i, (pair, _) in enumerate(ordered):
            counts = ref.get_pair_counts(ids)
            if not counts or pair != max(counts, key=counts.get):
                break
            ids = ref.merge_pair(ids, pair, used[i])
        else:
            found.append((name, used))
    if len(found) != 1:
        return ""
    name, used = found[0]
    later = (
        " The ids merged into the text are one higher than the ids recorded: an id computed "
        "from a count that grows, such as 256 + len(merges), read once for the dict and once "
        "more after the dict has grown (merges[pair] = 256 + len(merges) written before "
        "merge_pair(ids, pair, 256 + len(merges))). Compute the new id once, before both."
        if name == "257 + i"
        else ""
    )
    return (
        f"Your pairs are exactly the rule's if your loop merged with the id {name} "
        f"({used}) while it recorded {recorded}: merge_pair and the dict must use the same "
        f"new id, 256 + i.{later}"
    )


def _merged_least_frequent(text: str, merges: dict[tuple[int, int], int]) -> bool:
    """True when the learner's merges are exactly those of the training loop with min in
    max's place (the least frequent pair, first on a tie, at every step)."""
    ids = list(text.encode("utf-8"))
    least: dict[tuple[int, int], int] = {}
    for step in range(len(merges)):
        counts = ref.get_pair_counts(ids)
        if not counts:
            break
        pair = min(counts, key=counts.get)
        least[pair] = 256 + step
        ids = ref.merge_pair(ids, pair, 256 + step)
    return bool(merges) and least == dict(merges)


def _replay_merges(text: str, merges: dict[tuple[int, int], int]) -> str:
    """Replay the learner's merges (in the order of their new ids) on the text's bytes and
    name the first decision that differs from the rule (the most frequent pair of the
    current ids, ties to the first occurrence); "" when none does."""
    ids = list(text.encode("utf-8"))
    original = ref.get_pair_counts(ids)
    taken: list[tuple[int, int]] = []
    merges_made: list[int] = []
    for step, (pair, new_id) in enumerate(sorted(merges.items(), key=lambda item: item[1])):
        counts = ref.get_pair_counts(ids)
        if not counts:
            return (
                f"Merge {step} (id {new_id}) should not exist: after {step} merges fewer than "
                "two ids remain, so training stops there."
            )
        best = max(counts, key=counts.get)
        if pair != best or new_id != 256 + step:
            mine = counts.get(pair, 0)
            said = (
                f"Merge {step} (id {new_id}) is the first that departs from the rule: you "
                f"merged {pair}, which occurs {mine} times in the ids at that point, but the "
                f"most frequent pair there is {best} ({counts[best]} times)."
            )
            remaining = {p: n for p, n in original.items() if p not in taken}
            if pair == best:
                return f"Merge {step} merged {pair} but gave it id {new_id}, not {256 + step}."
            if _merged_least_frequent(text, merges):
                return (
                    f"{said} Every one of your merges is the least frequent pair of the ids at "
                    "its step (the first of them on a tie): your loop takes the least frequent "
                    "pair, min(counts, key=counts.get) (or the first of a sort by count, "
                    "ascending), where the rule takes the most frequent one, max(counts, "
                    "key=counts.get). (min belongs to bpe_encode, which picks the pair with "
                    "the lowest merge rank.)"
                )
            causes = []
            if mine == counts[best]:
                causes.append(
                    "a tie broken the wrong way (both occur "
                    f"{mine} times here; ties go to the pair that occurs first in the ids)"
                )
            if remaining and pair == max(remaining, key=remaining.get):
                causes.append(
                    "pairs counted once, on the original bytes, before the loop (your choice "
                    "is the most frequent pair there): count them again on the current ids "
                    "after every merge"
                )
            if len(causes) == 1:
                return f"{said} The cause: {causes[0]}."
            if causes:
                return (
                    f"{said} This step agrees with two causes, which it cannot tell apart: "
                    + "; or ".join(causes)
                    + "."
                )
            if mine == 0:
                used = _ids_merged_with(text, merges)
                if used:
                    return f"{said} {used}"
                unknown = sorted({t for t in pair if t >= 256 and t not in merges_made})
                if unknown:
                    return (
                        f"{said} Your pair does not occur in the current ids: it holds id "
                        f"{unknown[0]}, which no earlier merge created (so far: "
                        f"{sorted(merges_made) or 'none'}). The ids you merged with and the "
                        "ids you recorded in the dict must be the same, 256 + i."
                    )
                return f"{said} Your pair does not occur in the current ids at all."
            return said
        ids = ref.merge_pair(ids, pair, new_id)
        taken.append(pair)
        merges_made.append(new_id)
    return ""


def _merged_from_original(ids: list[int], num_merges: int) -> dict[tuple[int, int], int]:
    """The merges when every step merges into the *original* bytes (ids = merge_pair(
    original, pair, new_id)): each step then sees the bytes with only its predecessor's
    merge, and a pair chosen again overwrites its entry with the later id."""
    original, current, merges = list(ids), list(ids), {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(current)
        if not counts:
            break
        best = max(counts, key=counts.get)
        merges[best] = 256 + step
        current = ref.merge_pair(original, best, 256 + step)
    return merges


_FROM_ORIGINAL = (
    "Each of your steps merged into the original bytes, not into the ids of the step before: "
    "the pair is counted on the last result, but merge_pair is given the text's bytes again "
    "(ids = merge_pair(original_ids, ...), or a second variable that is never updated), so "
    "a merge that needs an earlier one's id finds nothing, and the first pair comes back "
    "and overwrites its entry. Merge into the current ids and keep the result: ids = "
    "merge_pair(ids, pair, new_id)."
)


def _vocab_size_hint(train_bpe, learned: int, num_merges: int, expected: int) -> str:
    """Too few merges: if they are num_merges - 256, and a call with num_merges = 258
    (where the two readings differ) learns 2, num_merges was read as a vocabulary size."""
    if learned != max(0, min(expected, num_merges - 256)):
        return ""
    probe = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        probe = train_bpe(_CLASSIC, 258)
    if not isinstance(probe, dict) or len(probe) != 2:
        return ""
    return (
        f" You learned num_merges - 256 merges ({learned} here, and 2 for "
        f"train_bpe({_CLASSIC!r}, 258)): num_merges is the number of merges itself, not the "
        "size of the vocabulary (minbpe's train takes vocab_size and learns vocab_size - 256 "
        "merges). Loop for step in range(num_merges)."
    )


def _ids_offset(got: dict, learned: int) -> dict:
    """Consecutive new ids that start somewhere else than 256 (257 has its own message):
    {message: model}."""
    ids = sorted(got.values())
    if len(ids) != learned or not ids or ids != list(range(ids[0], ids[0] + len(ids))):
        return {}
    start = ids[0]
    if start in (256, 257):
        return {}
    off = start - 256
    return {
        f"Your new ids start at {start}, {abs(off)} too {'high' if off > 0 else 'low'}: the "
        f"first merge (step 0) gets 256 and the i-th 256 + i, the first id above the 256 "
        f"byte values (an id of {start} = 256 {'+' if off > 0 else '-'} {abs(off)} comes "
        "from another start, such as 255 + step or len(merges) + 255).": ids
    }


# The stop tests a training loop may use instead of "no pair left" (fewer than two ids):
# {what the test is: stop(ids, counts)}. A learner's merges name one only when it alone, of
# these, gives them on the call's text.
_STOP_TESTS = {
    "a test on the number of distinct pairs (len(counts) < 2, or len(counts) <= 1): one "
    "kind of pair left, even one that occurs several times, is still a pair to merge; stop "
    "only when counts is empty": lambda ids, counts: len(counts) < 2,
    "a test on the number of ids that fires while two ids remain (len(ids) <= 2 where "
    "len(ids) < 2 belongs)": lambda ids, counts: len(ids) <= 2,
    "a threshold on the count that is too high (max count < 3: a pair that occurs twice is "
    "still merged; even the accepted rule only stops when no pair occurs twice)": (
        lambda ids, counts: max(counts.values()) < 3
    ),
}


def _train_stopping(ids, num_merges, stop) -> dict[tuple[int, int], int]:
    """The reference's training with one more stop test, ``stop(ids, counts)``, tried
    before each merge."""
    merges = {}
    for step in range(num_merges):
        counts = ref.get_pair_counts(ids)
        if not counts or stop(ids, counts):
            break
        best = _first_of_max(counts)
        ids = ref.merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges


# texts on which the stop tests of _STOP_TESTS, and the reference, all learn different merges
_STOP_PROBES = (("aaaa", 4), ("aaabdaaabac", 3), ("abcabc", 4))


def _stop_test_confirmed(train_bpe, stop) -> bool:
    """Whether the learner's train_bpe gives the merges of the stop test ``stop`` on every
    text of :data:`_STOP_PROBES` (any failure: not confirmed)."""
    for text, num_merges in _STOP_PROBES:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                got = train_bpe(text, num_merges)
            if dict(got) != _train_stopping(list(text.encode("utf-8")), num_merges, stop):
                return False
        except Exception:
            return False
    return True


def _stop_test_named(hint: str) -> bool:
    """Whether a hint of :func:`_stopped_early_hint` names one stop test, confirmed on
    every probe text."""
    return "whose stop test is" in hint


def _stopped_early_hint(text: str, got: dict, expected: dict, train_bpe=None) -> str:
    """Too few merges, every one of them right: where training stopped, and what was left
    to merge there (the ids, and the most frequent pair with its count); the stop test,
    when exactly one of :data:`_STOP_TESTS` gives these merges (and the learner's
    train_bpe gives that test's merges on every probe text, :func:`_stop_test_named`).
    "" when the learner's merges are not the reference's first ones."""
    learned = len(got)
    if not 0 <= learned < len(expected) or list(got.items()) != list(expected.items())[:learned]:
        return ""
    ids = list(text.encode("utf-8"))
    for pair, new_id in list(expected.items())[:learned]:
        ids = ref.merge_pair(ids, pair, new_id)
    counts = ref.get_pair_counts(ids)
    best = max(counts, key=counts.get)
    more = (
        ", still more than once (even the accepted rule, stop when no pair occurs twice, goes on)"
        if counts[best] >= 2
        else ""
    )
    byte_ids = list(text.encode("utf-8"))
    agree = [
        test
        for test, stop in _STOP_TESTS.items()
        if _train_stopping(byte_ids, len(expected), stop) == got
        and train_bpe is not None
        and _stop_test_confirmed(train_bpe, stop)
    ]
    where = (
        f"Your {learned} merge(s) are right, then you stopped: after merge {learned - 1} (id "
        f"{255 + learned})"
        if learned
        else "You stopped before the first merge:"
    )
    left = (
        f" the ids still held {len(ids)} ids, {len(counts)} distinct pair(s), and the most "
        f"frequent pair, {best}, occurred {counts[best]} times{more}."
    )
    if len(agree) == 1:
        return (
            f" {where}{left} Your merges are exactly those of a loop whose stop test is {agree[0]}."
        )
    return (
        f" {where}{left} Your stop test fires too early (a threshold on the count such as "
        f"count < {counts[best] + 1}, a test on the number of distinct pairs, on the number "
        "of ids or on the loop counter). Stop only when fewer than two ids remain."
    )


def _renumbered_pairs_note(text: str, num_merges: int, got: dict) -> str:
    """For merges numbered from 257: what is wrong with their pairs too, once renumbered
    from 256 ("" when the pairs are right then): a known pair mistake, or the first merge
    that departs."""
    renumbered = {
        tuple(v - 1 if v > 256 else v for v in pair): new_id - 1 for pair, new_id in got.items()
    }
    expected = ref.train_bpe(text, num_merges)
    if renumbered == expected:
        return ""
    byte_ids = list(text.encode("utf-8"))
    known = {
        "the pairs were counted once, on the original bytes, before the loop (count them "
        "again after every merge)": _counted_once(byte_ids, num_merges),
        "a tie was broken the wrong way (among equally frequent pairs, pick the one that "
        "occurs first)": _train(byte_ids, num_merges, _last_of_max),
    }
    said = [message for message, value in known.items() if value == renumbered]
    detail = f"{said[0]}." if len(said) == 1 else _replay_merges(text, renumbered)
    return f" Your pairs are wrong as well, once renumbered from 256: {detail}" if detail else ""


_STATE_PROBE = ("zzz", 1)  # learns (122, 122) -> 256, a pair no other text here has


def _expect_no_state_between_calls(c, train_bpe, got, text, num_merges, what) -> None:
    """Merges whose pair never occurs in this text's bytes or in what the merges make: kept
    from an earlier call (a dict that outlives the call) if a probe call's pair then shows
    up in a repeat of this call."""
    expected = ref.train_bpe(text, num_merges)
    if got == expected or set(got) <= set(expected):
        return
    probe_text, probe_merges = _STATE_PROBE
    try:
        c.call(train_bpe, probe_text, probe_merges, call_repr=f"train_bpe({probe_text!r}, 1)")
        again = c.call(train_bpe, text, num_merges)
    except CheckFailure:  # no verdict from the probe: the values are compared as usual
        return
    if isinstance(again, dict) and (122, 122) in again and (122, 122) not in expected:
        c.fail(
            f"{what} returned merges that this text does not give, and after a call "
            f"train_bpe({probe_text!r}, 1) the same call holds that call's pair (122, 122) "
            "too: your merges are kept from one call to the next. A dict created once, as a "
            "default argument (def train_bpe(text, num_merges, merges={})) or at module level, "
            "is shared by every call. Create the merges dict inside the function at each call "
            "(merges = {} in the body)."
        )


def _normalised_text_mistakes(text: str, num_merges: int) -> dict:
    """The merges learned on the text changed before its bytes were taken (lower-cased,
    upper-cased, stripped of its outer whitespace), each only where that changes the text:
    {message: the merges as a list of items}."""
    changes = {
        "lower-cased (text.lower(), or casefold()): the capitals' own bytes were replaced "
        "by those of small letters": text.lower(),
        "upper-cased (text.upper()): the small letters' bytes were replaced by those of "
        "capitals": text.upper(),
        "stripped of the whitespace at its ends (text.strip()): those spaces' bytes are "
        "missing": text.strip(),
    }
    return {
        f"Your merges are the ones learned on the text {how}, so other pairs became the "
        "most frequent. train_bpe learns on the UTF-8 bytes of the text exactly as it is "
        "given, list(text.encode('utf-8')): normalising it is not part of BPE (bpe_encode "
        "takes the bytes of the text as they are, and the merges must fit them).": list(
            ref.train_bpe(changed, num_merges).items()
        )
        for how, changed in changes.items()
        if changed != text
    }


def _merge_order_named(got: dict) -> str:
    """Which order the learner's dict follows when it holds the right merges in another
    order: sorted by pair, by new id from the top, or sorted by pair from the top; "" for
    any other order."""
    items = list(got.items())
    orders = {
        "sorted by pair (sorted(merges.items()), or dict(sorted(...)))": sorted(items),
        "sorted by pair from the largest (sorted(..., reverse=True))": sorted(items, reverse=True),
        "latest learned first (new ids from the top: reversed, or sorted by id with "
        "reverse=True)": sorted(items, key=lambda item: -item[1]),
    }
    if items == sorted(items, key=lambda item: item[1]):
        return ""
    # on one input two orders can coincide (sorted by pair from the top is often latest
    # first): every order that fits is named
    fits = [name for name, order in orders.items() if items == order]
    if not fits:
        return ""
    either = "either " if len(fits) > 1 else ""
    return f"Your dict is {either}{' or '.join(fits)}, not in learned order. "


def check_train_bpe(train_bpe, *, hidden: bool = False) -> None:
    """Check ``train_bpe(text, num_merges)``: merges over UTF-8 bytes, the most frequent
    pair first (ties: first occurrence), new ids 256 + i, in the order learned. Stopping
    when no pair occurs more than once is accepted too (with a note)."""
    with Checker("train_bpe", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(train_bpe)
        if hidden:
            cases = [
                ("the cat sat on the mat; the cat ate the rat", 10),
                ("abababab cdcdcd", 6),
                ("héllo wörld, héllo wörld", 8),
                ("ab", 5),
                ("", 3),
                ("xxxxxx", 3),  # one kind of pair, several times: still merged
                (" The Cat sat. THE CAT! ", 6),
            ]
        else:
            # "to be or not to be": its third merge, (257, 98) = "to b", crosses a space
            # "Hello hello HELLO": capitals are bytes of their own (a lower-cased text
            # learns (h, e) first, its own bytes (e, l))
            cases = [
                (_CLASSIC, 3),
                ("aaaa", 4),
                ("héllo héllo", 3),
                ("to be or not to be", 3),
                ("Hello hello HELLO", 3),
                # its fifth merge, (256, 32) -> 260, sorts before (257, 101) -> 258: learned
                # order is not sorted order
                ("the cat sat on the mat", 5),
            ]
        for text, num_merges in cases:
            what = f"train_bpe({text!r}, {num_merges})"
            got = _merges(
                c,
                c.call(train_bpe, text, num_merges, hints=_EARLY_STOP_HINTS),
                what,
            )
            got = dict(got)  # a copy: a dict kept between calls changes under the next one
            _expect_no_state_between_calls(c, train_bpe, got, text, num_merges, what)
            byte_ids = list(text.encode("utf-8"))
            expected = ref.train_bpe(text, num_merges)
            stopped = _train(byte_ids, num_merges, _first_of_max, min_count=2)
            if got == stopped and got != expected:
                c.note(
                    "you stop as soon as no pair occurs more than once (as subword-nmt does by "
                    "default). That is accepted; the reference goes on merging pairs that occur "
                    "once, up to num_merges, and the rest of the lesson uses its merges."
                )
                expected = stopped
            count_hint = ""
            if len(got) < len(expected):
                count_hint = _vocab_size_hint(
                    train_bpe, len(got), num_merges, len(expected)
                ) or _stopped_early_hint(text, got, expected, train_bpe)
            if _stop_test_named(count_hint):
                # a stop test confirmed on every probe text: the first wrong decision, said
                # before any relation of the values (a list cut short has many causes)
                c.fail(
                    f"the new ids of {what} returned {short(sorted(got.values()))}, expected "
                    f"{short(list(expected.values()))}.{count_hint}"
                )
            kept = _counts_kept_hint(byte_ids, num_merges, got) if got != expected else ""
            if kept:
                c.fail(f"{what} returned {short(got)}, expected {short(expected)}. {kept}")
            learned = len(expected)
            first_counts = ref.get_pair_counts(byte_ids)
            # ids never updated (merge_pair's result dropped): every step finds the same
            # pair, and the dict keeps it once, with the last step's id
            stuck = (
                {max(first_counts, key=first_counts.get): 256 + num_merges - 1}
                if first_counts and num_merges > 1
                else None
            )
            c.expect_equal(
                sorted(got.values()),
                list(expected.values()),
                f"the new ids of {what}",
                hint=count_hint.strip()
                or "The i-th merge (counting from 0) gets id 256 + i; stop early when fewer "
                "than two ids remain.",
                mistakes={
                    "Every merge got the same id, 256: the step is not added. The i-th merge "
                    "(counting from 0) gets 256 + i, a new id each time.": (
                        [256] * len(got) if len(got) > 1 and set(got.values()) == {256} else None
                    ),
                    f"One merge came back, the first step's pair with the last step's id "
                    f"{256 + num_merges - 1}: every step found the same pair again, so the ids "
                    "were never updated. merge_pair returns a new list and leaves its input "
                    "alone: assign its result (ids = merge_pair(ids, pair, new_id)) before the "
                    "next step counts the pairs.": (
                        list(stuck.values()) if stuck and got == stuck else None
                    ),
                    f"You learned {learned + 1} merges, one more than num_merges = "
                    f"{num_merges}: the loop makes one step too many (range(num_merges + 1), or "
                    "a <= in the loop's test). Make exactly num_merges steps, for step in "
                    "range(num_merges).": (
                        [256 + i for i in range(learned + 1)] if learned == num_merges else None
                    ),
                    f"You learned {learned - 1} merges, one fewer than the {learned} expected: "
                    "the loop stops one step early: range(num_merges - 1), or a stop test "
                    "that fires while two ids remain (len(ids) <= 2 where len(ids) < 2 "
                    "belongs). Make num_merges steps, for step in range(num_merges), stopping "
                    "early only when fewer than two ids remain.": (
                        [256 + i for i in range(learned - 1)] if learned > 1 else None
                    ),
                    # the whole dict must be this loop's, not only its ids
                    _FROM_ORIGINAL: (
                        sorted(got.values())
                        if got == _merged_from_original(byte_ids, num_merges)
                        else None
                    ),
                    "Each new id of yours is max(ids) + 1, one above the largest id in the "
                    "current ids: on text whose bytes are small that id is a byte value "
                    "already (a letter's own id). The i-th merge (counting from 0) gets "
                    "256 + i, above every byte.": _ids_from_max(byte_ids, num_merges),
                    "Your ids start at 257, one too high: the first merge (i = 0) gets 256 "
                    "and the i-th 256 + i (did you count the steps from 1?)."
                    + (
                        _renumbered_pairs_note(text, num_merges, got)
                        if sorted(got.values()) == [257 + i for i in range(learned)]
                        else ""
                    ): [257 + i for i in range(learned)],
                    **_ids_offset(got, learned),
                    "The ids you recorded count down, 256 - i (the step subtracted): the i-th "
                    "merge (counting from 0) gets 256 + i, a new id above every id in use. "
                    "Use the same 256 + step where you merge and where you record it.": (
                        sorted(256 - i for i in range(learned)) if learned > 1 else None
                    ),
                },
            )
            by_id = dict(sorted(got.items(), key=lambda item: item[1]))
            c.expect_equal(
                list(by_id.items()),
                list(expected.items()),
                what,
                hint=lambda got=got, text=text: (
                    _replay_merges(text, got)
                    or "Each step: count pairs on the *current* ids, merge the most frequent "
                    "pair (ties: the pair that occurs first), then repeat."
                ),
                mistakes={
                    "The pairs were counted once, on the original bytes, before the loop: "
                    "each merge creates new pairs (with the new id) and removes others, so "
                    "count them again on the current ids after every merge.": list(
                        _counted_once(byte_ids, num_merges).items()
                    ),
                    **_choice_mistakes(train_bpe, byte_ids, num_merges, got),
                    "Start from the UTF-8 bytes of the text (text.encode('utf-8')), not from "
                    "characters: ord(ch) (or a latin-1 encoding, which gives the same numbers) "
                    "is not a byte of UTF-8 for anything outside ASCII ('é' is two "
                    "bytes).": list(
                        _train([ord(ch) for ch in text], num_merges, _first_of_max).items()
                    )
                    if any(ord(ch) > 127 for ch in text)
                    else None,
                    **_normalised_text_mistakes(text, num_merges),
                    "No merge of yours contains a space (32): you split the text into words "
                    "(text.split()) and learned the merges on each word, so the spaces are gone "
                    "and no merge crosses two words. train_bpe learns on the bytes of the whole "
                    "text, spaces included.": (
                        list(_train_on_words(text, num_merges).items()) if " " in text else None
                    ),
                },
            )
            c.expect_equal(
                list(got.items()),
                list(by_id.items()),
                f"the order of the merges in {what}",
                hint=_merge_order_named(got)
                + "The merges are right, but the dict must list them in the order they were "
                "learned (new ids 256, 257, ...): decoding builds its table by walking the dict, "
                "and a merge may use an id that an earlier one created.",
            )
