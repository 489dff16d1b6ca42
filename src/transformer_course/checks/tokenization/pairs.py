"""The checks of ``get_pair_counts`` and ``merge_pair``: overlapping pair counts in the
order of first occurrence, and non-overlapping merges.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections import Counter

from transformer_course.checking import Checker, numpy_rng
from transformer_course.reference import tokenization as ref

from .common import _CLASSIC, _expect_not_accumulated, _ids


def _pairs_non_overlapping(ids):
    counts: dict[tuple[int, int], int] = {}
    i = 0
    while i + 1 < len(ids):
        pair = (ids[i], ids[i + 1])
        counts[pair] = counts.get(pair, 0) + 1
        i += 2 if ids[i] == ids[i + 1] else 1
    return counts


def _random_ids(seed: int, n: int, high: int = 4) -> list[int]:
    return [int(i) for i in numpy_rng(seed).integers(0, high, size=n)]


def _packed_pairs(ids: list[int], base: int) -> dict | None:
    """What packing each pair into one integer, a * base + b, and unpacking it with
    divmod(key, base) gives; None when every id is below ``base`` (then it is right)."""
    if all(0 <= i < base for i in ids):
        return None
    packed: dict[int, int] = {}
    for a, b in zip(ids, ids[1:], strict=False):
        packed[a * base + b] = packed.get(a * base + b, 0) + 1
    return {divmod(key, base): count for key, count in packed.items()}


def _packed_pair_models(ids: list[int]) -> dict:
    """One message per base a pair may be packed in (one integer key per pair, as for two
    bytes): right while every id is below the base, wrong once a merged id reaches it."""
    return {
        f"Your pairs are wrong only where an id is {base} or more (a merged token, such as "
        f"256 after the first merge): you packed each pair into one integer key, "
        f"a * {base} + b, and unpacked it with divmod(key, {base}). That only works while "
        f"every id is below {base}; a merged id overflows into the first id, so the pair "
        f"unpacks as another one (1 * {base} + {base} is 2 * {base} + 0) and different pairs "
        "collide. Key the counts by the pair itself, the tuple (ids[i], ids[i + 1]).": (
            _packed_pairs(ids, base)
        )
        for base in (256, 1000, 10000)
    }


def check_get_pair_counts(get_pair_counts, *, hidden: bool = False) -> None:
    """Check ``get_pair_counts(ids)``: overlapping counts, pairs in the order of their
    first occurrence (train_bpe's tie rule relies on it); any dict (a Counter) is accepted."""
    with Checker("get_pair_counts", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(get_pair_counts)
        if hidden:
            cases = [_random_ids(seed, n) for seed, n in ((51, 12), (52, 30), (53, 2))] + [[7], []]
            cases.append([300, 2, 258, 1, 300, 2])  # merged ids, as train_bpe counts them
        else:
            cases = [list(_CLASSIC.encode()), [1, 1, 1], [5, 6, 5, 6], [1, 2, 3, 3, 3, 3], [7]]
            # merged ids (256 and up) as train_bpe counts them after its first merges:
            # (1, 256) and (2, 0) are other pairs although 1 * 256 + 256 == 2 * 256 + 0
            cases.append([1, 256, 2, 0, 1, 256, 97])
        for ids in cases:
            what = f"get_pair_counts({ids})"
            got = c.call(get_pair_counts, list(ids), hints=[_PAST_THE_END_HINT])
            c.expect_type(got, dict, what, "Return a dict {(a, b): count}.")
            first = dict(got)  # a copy: a dict kept between calls changes under the next one
            again = c.call(get_pair_counts, list(ids))
            c.expect_true(
                not isinstance(again, dict) or dict(again) == first,
                f"{what} returned {first} the first time and {dict(again)} the second time, "
                "on the same ids: your function keeps its counts from one call to the next. A "
                "dict created once, as a default argument (def get_pair_counts(ids, counts={})) "
                "or outside the function, is shared by every call. Create a new dict inside the "
                "function at each call (counts = {} in the body, or counts=None with `if counts "
                "is None: counts = {}`).",
            )
            expected = ref.get_pair_counts(ids)
            c.expect_equal(
                dict(got),
                expected,
                what,
                hint=(
                    _pairs_difference(ids, dict(got), expected)
                    + " Count every adjacent pair ids[i], ids[i+1] for i = 0 .. len(ids)-2."
                ).strip(),
                mistakes={
                    "Only the first pair was counted, once: your loop ends after its first "
                    "step, as a `return` inside the loop (indented one level too deep) or a "
                    "break there does. Go through every position, and return the counts "
                    "after the loop, at the function's own indentation.": (
                        {(ids[0], ids[1]): 1} if len(ids) > 2 else None
                    ),
                    "Pairs overlap: in [1, 1, 1] the pair (1, 1) occurs twice (positions 0 and 1). "
                    "Don't skip ahead after counting a pair.": _pairs_non_overlapping(ids),
                    "You counted only the pairs that start at an even position: "
                    "zip(ids[::2], ids[1::2]) (or a step of 2) pairs the ids two by two, so "
                    "(ids[1], ids[2]), (ids[3], ids[4]), ... are never counted. Every position "
                    "starts a pair: zip(ids, ids[1:]).": (
                        dict(Counter(zip(ids[::2], ids[1::2]))) if len(ids) > 2 else None
                    ),
                    "Your pairs are backwards, (ids[i + 1], ids[i]): a pair is an id and the "
                    "one after it, (ids[i], ids[i + 1]), in that order (zip(ids, ids[1:])).": (
                        dict(Counter(zip(ids[1:], ids)))
                    ),
                    "You paired each id with the one two places on, (ids[i], ids[i + 2]), one "
                    "too far: neighbours are one place apart, zip(ids, ids[1:]).": (
                        dict(Counter(zip(ids, ids[2:]))) if len(ids) > 2 else None
                    ),
                    "The last pair is missing: loop up to len(ids) - 1, not len(ids) - 2.": (
                        ref.get_pair_counts(ids[:-1]) if len(ids) > 2 else None
                    ),
                    "You counted the ids one by one, not the pairs: Counter(ids) counts each "
                    "id. Count the adjacent pairs, Counter(zip(ids, ids[1:])).": (
                        dict(Counter(ids)) if ids else None
                    ),
                    **_packed_pair_models(ids),
                    "Every count is 1, also for pairs that occur several times: a pair seen "
                    "again was not counted again (counts[pair] = 1 where 1 is to be added, "
                    "setdefault(pair, 1), or `if pair not in counts` with no else). Add 1 each "
                    "time the pair occurs: counts[pair] = counts.get(pair, 0) + 1.": (
                        dict.fromkeys(expected, 1)
                        if max(expected.values(), default=1) > 1
                        else None
                    ),
                },
            )
            c.expect_equal(
                list(got),
                list(expected),
                f"the order of the keys of {what}",
                hint="The counts are right, but list the pairs in the order they first occur (a "
                "plain dict or a Counter does that when you count left to right; a set or a sort "
                "does not): train_bpe breaks ties by first occurrence.",
                mistakes=_key_order_models(expected),
            )


def _reads_next_id(exc: BaseException) -> bool:
    """An IndexError raised on a line of the learner's that reads the next id (x[i + 1])."""
    if not isinstance(exc, IndexError):
        return False
    from transformer_course.checking.failure import learner_frames

    return re.search(r"\[\s*\w+\s*\+\s*1\s*\]", learner_frames(exc)) is not None


#: (matches, text) for c.call: the loop that reads ids[i + 1] at the last id
_PAST_THE_END_HINT = (
    _reads_next_id,
    "Your loop reads the next id, ids[i + 1], at the last position too: there i + 1 is past "
    "the end. i runs one step too far (range(len(ids)) where range(len(ids) - 1) belongs): "
    "the last id starts no pair. zip(ids, ids[1:]) stops in time by itself.",
)


def _key_order_models(expected: dict) -> dict:
    """{message: keys in a wrong order} for the orders a sort gives: by the pairs' ids
    (np.unique, sorted) and by count (most_common)."""
    first_seen = list(expected)
    by_ids = sorted(first_seen)
    by_count = [pair for pair, _ in Counter(expected).most_common()]
    return {
        "The counts are right, but your pairs come sorted by their ids, in ascending "
        "order, not in the order they first occur: np.unique(..., axis=0, "
        "return_counts=True) returns its pairs sorted (so do sorted(...) and a sort of the "
        "keys). Count left to right into a dict or a Counter, which keep first occurrence: "
        "train_bpe breaks ties by it.": by_ids if by_ids != first_seen else None,
        "The counts are right, but your pairs come sorted by count, the most frequent first "
        "(as Counter.most_common() or a sort by count gives), not in the order they first "
        "occur: return the dict or Counter itself, which keeps first occurrence; train_bpe "
        "breaks ties by it.": by_count if by_count not in (first_seen, by_ids) else None,
    }


def _pairs_difference(ids, got: dict, expected: dict) -> str:
    """What the learner's counts have that the adjacent pairs do not (pairs that never
    occur side by side, the wrap-around pair named), or lack, or count differently; ""
    for string keys, which the check's own relation names (keys_as_strings)."""
    if got and all(isinstance(key, str) for key in got):
        return ""
    unordered = Counter()
    for (a, b), n in expected.items():
        unordered[min(a, b), max(a, b)] += n
    if dict(got) == dict(unordered) and unordered != Counter(expected):
        flipped = next(p for p in expected if p[0] > p[1])
        return (
            f"Your pairs are stored smaller id first: {flipped} is counted as "
            f"{flipped[::-1]}, together with the pair written that way. A pair is ordered: "
            "(a, b) means a then b, and (b, a) is another pair (sorted(pair), min/max or a "
            "frozenset loses that). Keep (ids[i], ids[i + 1]) as it is."
        )
    equal = [p for p in expected if p[0] == p[1]]
    if equal and dict(got) == {p: n for p, n in expected.items() if p[0] != p[1]}:
        return (
            f"Every pair of two equal ids is missing ({', '.join(str(p) for p in equal[:3])}), "
            "every other count is right: a test such as ids[i] != ids[i + 1] (or pair[0] != "
            "pair[1]) skips them, as if a repeated id made no pair. (a, a) is a pair like any "
            "other, often the most frequent one ('aa' in 'aaab')."
        )
    parts = []
    extra = [pair for pair in got if pair not in expected]
    if extra:
        shown = ", ".join(str(p) for p in extra[:4]) + (", ..." if len(extra) > 4 else "")
        parts.append(f"Your counts hold pairs that are never side by side in ids: {shown}.")
        if len(ids) and (ids[-1], ids[0]) in extra:
            parts.append(
                f"{(ids[-1], ids[0])} is (last id, first id): your pairs wrap around from the "
                "end to the start (a rotated copy such as ids[1:] + ids[:1] or np.roll, or "
                "ids[(i + 1) % len(ids)]). The last id starts no pair."
            )
    missing = [pair for pair in expected if pair not in got]
    if missing:
        parts.append(f"Missing pairs: {', '.join(str(p) for p in missing[:4])}.")
    miscounted = [p for p in expected if p in got and got[p] != expected[p]]
    if miscounted and not extra:
        p = miscounted[0]
        parts.append(f"{p} occurs {expected[p]} time(s), your count is {got[p]}.")
    return " ".join(parts)


def _merge_double(ids, pair, new_id):
    """What forgetting to skip the second id of a merged pair gives."""
    out = []
    for i, token in enumerate(ids):
        if i + 1 < len(ids) and (token, ids[i + 1]) == pair:
            out.append(new_id)
        elif i > 0 and (ids[i - 1], token) == pair:
            continue
        else:
            out.append(token)
    return out


def _merge_as_text(ids, pair, new_id) -> dict:
    """The merge made on the ids written as text (str.replace on " ".join(map(str, ids)),
    or on str(ids) with ", "; both give the same ids): the pair's digits also match inside
    longer numbers. {message: model}, {} when that gives the right result here."""
    a, b = pair
    text = " ".join(map(str, ids)).replace(f"{a} {b}", str(new_id))
    try:
        model = [int(t) for t in text.split()]
    except ValueError:
        return {}
    if model == ref.merge_pair(ids, pair, new_id):
        return {}
    return {
        f'You merged on the ids written as text (" ".join(map(str, ids)) or str(ids), then '
        f"str.replace of '{a} {b}'): the text of the pair also occurs across the digits of "
        f"bigger ids (here '{a} {b}' is found inside '{' '.join(map(str, ids))}' where no "
        "such pair of ids stands). Compare ids, not text: scan the list and test "
        "(ids[i], ids[i + 1]) == pair.": model
    }


def _overlap_message(ids, pair, new_id) -> str:
    """What _merge_double's answer did, told on the input's first two occurrences of the
    pair that share an id (the only places where it differs from the left-to-right scan)."""
    pair = tuple(pair)
    starts = [i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == pair]
    shared = next((i for i in starts if i + 1 in starts), None)
    where = (
        f" Here ids[{shared}:{shared + 3}] = {list(ids[shared : shared + 3])} holds the pair "
        f"{pair} twice, at {shared} and {shared + 1}, sharing the id at {shared + 1}: yours "
        f"turned both into {new_id}."
        if shared is not None
        else ""
    )
    return (
        f"You merged overlapping occurrences of the pair: every place where it starts became "
        f"new_id, even one whose first id was already used up by the merge before it.{where} "
        "Once a pair is merged both of its ids are used up: after a merge, skip both (i += 2) "
        "and test the pair again from the id after them, so [1, 1, 1] with (1, 1) becomes "
        "[X, 1], not [X, X] or [X]."
    )


def _merge_stops_after_first(ids, pair, new_id):
    """The ids up to the first occurrence, new_id, and nothing after it: what a loop that
    ends at the first merge (a return or break inside it) or a skip flag that is set but
    never reset (every later id skipped) gives."""
    for i in range(len(ids) - 1):
        if (ids[i], ids[i + 1]) == pair:
            return [*ids[:i], new_id]
    return None


def _merge_with_previous(ids, pair, new_id):
    """The scan that tests (ids[i], ids[i - 1]), the id before i (i - 1 where i + 1
    belongs; at i = 0, ids[-1] is the last id)."""
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i - 1]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _merge_right_to_left(ids, pair, new_id):
    """The scan run from the right end (and the result reversed): in a run [a, a, a] the
    last two ids merge, [a, aa] instead of [aa, a]."""
    out, i = [], len(ids) - 1
    while i >= 0:
        if i >= 1 and (ids[i - 1], ids[i]) == tuple(pair):
            out.append(new_id)
            i -= 2
        else:
            out.append(ids[i])
            i -= 1
    return out[::-1]


def _merge_last_pair_missed(ids, pair, new_id):
    """The scan whose pair test stops one position early (i + 2 < len(ids)): a pair
    whose second id is the last id is never merged."""
    out, i = [], 0
    while i < len(ids):
        if i + 2 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _merge_last_id_appended(ids, pair, new_id):
    """The scan over the first len(ids) - 1 positions, then ids[-1] appended whatever
    happened: when the last two ids were merged, the last id comes back after new_id
    (None where the last pair is not merged: it changes nothing there)."""
    if len(ids) < 2 or (ids[-2], ids[-1]) != tuple(pair):
        return None
    out, i = [], 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return [*out, ids[-1]]


def _merge_scan_steps(ids, pair, new_id, start=0, step_merge=2, step_else=1, negate=False):
    """The left-to-right scan with one of its steps changed: where it starts, how far it
    moves after a merge and after no merge, or the pair test inverted."""
    out, i = [], start
    while i < len(ids):
        if i + 1 < len(ids) and ((ids[i], ids[i + 1]) == tuple(pair)) != negate:
            out.append(new_id)
            i += step_merge
        else:
            out.append(ids[i])
            i += step_else
    return out


def _merge_fixed_steps_of_two(ids, pair, new_id):
    """The list walked two ids at a time: each chunk ids[i:i + 2] at an even i merged when
    it is the pair, copied otherwise."""
    out = []
    for i in range(0, len(ids), 2):
        chunk = list(ids[i : i + 2])
        out += [new_id] if tuple(chunk) == tuple(pair) else chunk
    return out


_MERGE_SKIPS_THREE = (
    "After a merge you moved on by three ids, so the id right after each merged pair is "
    "lost: skip exactly the two merged ids (i += 2)."
)
_MERGE_RUN_COLLAPSED = (
    "Your merge swallows a whole run: three equal ids merged by a pair (a, a) become one "
    "new id, [a, a, a] -> [X], where the left-to-right scan gives [X, a] (the first two "
    "merge, the third is left over); elsewhere the id after a merged pair is kept. The "
    "run's third id was dropped as if it belonged to another occurrence overlapping the "
    "merged one (marking every position where the pair starts, overlapping ones included, "
    "and dropping the id after each mark does this). An occurrence whose first id was used "
    "up by a merge is not one: after a merge at i, look for the pair again at i + 2."
)
#: after each merge a different id, and a run of three: skipping three ids loses the 6
#: and the 8; the collapsed run keeps them and loses the run's third 5
_RUN_PROBE = ([5, 5, 6, 7, 5, 5, 5, 8], (5, 5), 9)


def _merge_run_collapsed(ids, pair, new_id):
    """Every start of the pair marked, overlapping ones included, each marked start
    emitted as new_id unless it is itself a marked start's second id, and every such
    second id dropped: a run of three equal ids merged by (a, a) becomes one new id."""
    starts = {i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == tuple(pair)}
    seconds = {i + 1 for i in starts}
    return [
        new_id if i in starts else token
        for i, token in enumerate(ids)
        if i not in seconds or (i in starts and i not in seconds)
    ]


def _merge_step_mistakes(ids, pair, new_id) -> dict:
    """Each step of the scan changed alone: {diagnosis: its result}."""
    return {
        "Your scan starts at index 1: ids[0] is never looked at, so it is missing from your "
        "result (and a pair that starts there is not merged). Start at i = 0.": (
            _merge_scan_steps(ids, pair, new_id, start=1) if ids else None
        ),
        _MERGE_SKIPS_THREE: _merge_scan_steps(ids, pair, new_id, step_merge=3),
        "Where no merge happens you moved on by two ids, so the id after each unmerged one "
        "is skipped: move on by one there (i += 1); only a merge uses up two ids.": (
            _merge_scan_steps(ids, pair, new_id, step_else=2)
        ),
        "Your pair test is inverted: you merged every adjacent pair except the one given "
        "(!= where == belongs), and kept the pair itself. Merge where (ids[i], ids[i + 1]) "
        "== pair.": _merge_scan_steps(ids, pair, new_id, negate=True),
        "You walked the list in fixed steps of two (range(0, len(ids), 2)), testing only "
        "the pairs that start at an even position: an occurrence at an odd position, "
        "(ids[1], ids[2]) say, is never merged. Scan one id at a time, and skip two only "
        "after a merge.": _merge_fixed_steps_of_two(ids, pair, new_id),
        "You merged the pair in either order: the pair read backwards, (pair[1], pair[0]), "
        "was replaced by new_id too, as if a pair were unordered ((ids[i], ids[i + 1]) in "
        "(pair, pair[::-1]), or a set of the two ids compared). A pair is ordered: (a, b) "
        "is a followed by b. Merge only where (ids[i], ids[i + 1]) == pair.": (
            _merge_scan(ids, new_id, lambda a, b: (a, b) in (tuple(pair), tuple(pair)[::-1]))
        ),
        "The last id came back after the merge at the very end: you append ids[-1] after "
        "the loop whatever happened, but when the last two ids were merged it is already "
        "inside new_id. Append it only when the loop did not use it up (or let the loop "
        "run to the last index, while i < len(ids)).": _merge_last_id_appended(ids, pair, new_id),
    }


#: inputs that tell apart candidates that agree on a check's input: (ids, pair, new_id)
#: and the learner's result under each. [1, 2, 1, 2, 1]: the right-to-left scan merges
#: both pairs, the test (ids[i], ids[i - 1]) only the one read backwards; [3, 4, 5, 3, 4]:
#: a string replacement merges the last pair, a pair test that stops one position early
#: does not.
_BACKWARDS_PROBE = ([1, 2, 1, 2, 1], (1, 2), 9)
_END_PROBE = ([3, 4, 5, 3, 4], (3, 4), 9)


def _probe_verdict(merge_pair, probe, models: dict[str, object], call=None) -> str | None:
    """The name of the one model whose result the learner's merge_pair gives on
    ``probe``; None when it fails, or gives no model's result, or several models'.
    ``call`` (Checker.probe) records the probe, so that the single-edit search must
    reproduce it too."""
    ids, pair, new_id = probe
    try:
        run = call if call is not None else lambda fn, *args: fn(*args)
        got = [int(i) for i in run(merge_pair, list(ids), pair, new_id)]
    except IndexError:  # a read past the end: the model that reads there too, if one does
        got = IndexError
    except Exception:  # any other failure: no verdict, the candidates stay named together
        return None
    matching = [
        name for name, model in models.items() if _model_outcome(model, ids, pair, new_id) == got
    ]
    return matching[0] if len(matching) == 1 else None


def _model_outcome(model, ids, pair, new_id):
    """A model's result on the input, or IndexError when it reads past the end."""
    try:
        return model(list(ids), pair, new_id)
    except IndexError:
        return IndexError


def _model_value(model, ids, pair, new_id):
    """A model's result on the input, None where it raises (no result to compare)."""
    outcome = _model_outcome(model, ids, pair, new_id)
    return None if outcome is IndexError else outcome


_MERGE_BACKWARDS = (
    "You compared ids[i] with the id *before* it, (ids[i], ids[i - 1]) == pair: the offset "
    "has the wrong sign, i - 1 where i + 1 belongs (and at i = 0, ids[-1] is the last id). "
    "The pair starts at i: compare (ids[i], ids[i + 1]) == pair."
)
_MERGE_RIGHT_TO_LEFT = (
    "You scanned from the right end: in a run such as [1, 1, 1] with (1, 1) that merges the "
    "last two ids, [1, X], where the left-to-right scan merges the first two, [X, 1]. Scan "
    "from the left (i from 0 up), and after a merge at i look for the pair again at i + 2."
)
_MERGE_BACK_TO_BACK = (
    "An occurrence that starts right where a merged one ended was not merged (separate "
    "occurrences were). Merging by string replacement (str.replace) on the joined ids does "
    "that: one match uses up the separator that the next one needs. So does a scan that, "
    "after a merge, appends the next id without testing it (its else: missing, with a guard "
    "for the end of the list). Scan the list with an index, and after a merge at i look for "
    "the pair again at i + 2 (the single-id step under else:)."
)
_MERGE_NEXT_UNCHECKED = (
    "After a merge, the next id was appended without being tested: the step for a single "
    "id (append ids[i], move one) runs after a merge too, as when its else: is missing. So "
    "a pair that starts right after a merged one is never merged, and where a merged pair "
    "ends the list, reading the id after it raises IndexError: on [3, 4, 5, 3, 4] with "
    "(3, 4) yours raises. Put the single-id step under else:, so that a merge (append "
    "new_id, i += 2) is all that happens at a pair."
)
_MERGE_LAST_PAIR = (
    "The pair at the very end of the list was not merged: your test for a pair stops one "
    "position early (i + 2 < len(ids), or a range(len(ids) - 2)), so a pair whose second "
    "id is the last id is never seen. Test every i with i + 1 < len(ids)."
)


def _told_apart(
    merge_pair, ids, pair, new_id, got, models: dict[str, object], probe, call=None
) -> dict:
    """``models`` (message -> model) as mistakes for expect_equal: where several give
    ``got`` on this input, the learner's merge_pair on ``probe`` decides which one to name
    (all of them stay named when it cannot); ``call``: see _probe_verdict."""
    values = {message: _model_value(model, ids, pair, new_id) for message, model in models.items()}
    agreeing = [message for message, value in values.items() if value is not None and value == got]
    if len(agreeing) > 1:
        verdict = _probe_verdict(merge_pair, probe, {m: models[m] for m in agreeing}, call)
        if verdict is not None:
            return {verdict: values[verdict]}
    return values


def _merge_first_only(ids, pair, new_id):
    for i in range(len(ids) - 1):
        if (ids[i], ids[i + 1]) == pair:
            return [*ids[:i], new_id, *ids[i + 2 :]]
    return list(ids)


def _merge_from_first_left_id(ids, pair, new_id):
    """Merges while the first id equal to pair[0] starts the pair, and stops at the first
    one that does not (what ``ids.index(pair[0])`` in a loop, or a scan that breaks at a
    pair[0] not followed by pair[1], gives): every occurrence after that one stays."""
    merged = list(ids)
    while pair[0] in merged:
        i = merged.index(pair[0])
        if i + 1 >= len(merged) or merged[i + 1] != pair[1]:
            break
        merged[i : i + 2] = [new_id]
    return merged


#: [5, 1, 3, 1, 2] with (1, 2): its first 1 is followed by 3, so a merge_pair that stops at
#: the first pair[0] not followed by pair[1] merges nothing, where merging only the first
#: occurrence (and the right answer) merge the (1, 2) at the end. [1, 2, 1, 3, 1, 2]: it
#: merges the first (1, 2) and stops at the next 1, which a merge_pair that never merges,
#: or the right one, does not give.
_FIRST_LEFT_ID_PROBE = ([5, 1, 3, 1, 2], (1, 2), 9)
_FIRST_LEFT_ID_MERGES_PROBE = ([1, 2, 1, 3, 1, 2], (1, 2), 9)


def _stops_at_first_left_id(merge_pair) -> bool:
    """Whether the learner's merge_pair gives, on both probes, what stopping at the first
    pair[0] not followed by pair[1] gives (and neither 'first occurrence only', nor 'never
    merges', nor the right answer)."""
    for probe_ids, probe_pair, probe_id in (_FIRST_LEFT_ID_PROBE, _FIRST_LEFT_ID_MERGES_PROBE):
        try:
            got = [int(i) for i in merge_pair(list(probe_ids), probe_pair, probe_id)]
        except Exception:  # any failure: no verdict, the other messages stay
            return False
        if got != _merge_from_first_left_id(probe_ids, probe_pair, probe_id):
            return False
    return True


def _first_left_id_message() -> str:
    probe_ids, probe_pair, probe_id = _FIRST_LEFT_ID_PROBE
    probe_expected = ref.merge_pair(probe_ids, probe_pair, probe_id)
    return (
        "Your merge_pair stops at the first id equal to pair[0] that is not followed by "
        f"pair[1]: the occurrences after it are never merged. merge_pair({probe_ids}, "
        f"{probe_pair}, {probe_id}) returned the ids unchanged, where {probe_expected} is "
        "right: its first 1 is followed by 3. Looking the pair up with ids.index(pair[0]) "
        "finds the first pair[0] only (or a loop breaks there). Scan every position i: "
        "where (ids[i], ids[i + 1]) == pair, append new_id and skip two, otherwise append "
        "ids[i] and move one."
    )


def _merge_next_id_unchecked(ids, pair, new_id):
    """The scan with its else: missing: after a merge, the next id is appended without
    being tested (and read past the end, IndexError, when the pair ends the list)."""
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair):
            out.append(new_id)
            i += 2
        out.append(ids[i])
        i += 1
    return out


def _merge_back_to_back_missed(ids, pair, new_id):
    """Merges every occurrence except one that starts right where a merged one ended (what
    a string replacement on the space-joined ids does: one match uses up the separator
    the next one needs)."""
    out, i, just_merged = [], 0, False
    while i < len(ids):
        if not just_merged and i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(new_id)
            i += 2
            just_merged = True
        else:
            out.append(ids[i])
            i += 1
            just_merged = False
    return out


def _merge_chained_matches_dropped(ids, pair, new_id):
    """Every occurrence found at once, then each one that starts right after *another
    occurrence* dropped (kept or not, as np.diff over all the starts does), where only one
    right after a *kept* occurrence overlaps: in a run of equal ids only the first pair is
    merged. None where that changes nothing."""
    starts = [i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == pair]
    kept = {s for k, s in enumerate(starts) if k == 0 or s - starts[k - 1] > 1}
    out, i = [], 0
    while i < len(ids):
        if i in kept:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return None if out == ref.merge_pair(ids, pair, new_id) else out


def _chained_matches_message(ids, pair) -> str:
    """The message of :func:`_merge_chained_matches_dropped`, its run of equal ids shown."""
    starts = [i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == pair]
    run_start = next(s for k, s in enumerate(starts[1:]) if s - starts[k] == 1) - 1
    run_end = run_start
    while run_end + 1 < len(ids) and ids[run_end + 1] == ids[run_start]:
        run_end += 1
    run = ids[run_start : run_end + 1]
    return (
        f"In the run of {len(run)} equal ids {run} (positions {run_start} to {run_end}), only "
        f"the first pair was merged: the next non-overlapping occurrence was not merged (it "
        f"starts at position {run_start + 2}). The occurrences of {pair} in this run start at "
        f"every position, each overlapping the one before: you dropped each occurrence that "
        f"starts right after another occurrence (np.diff(starts) > 1, or a test on the "
        f"previous match), also after one that was itself dropped. merge_pair replaces every "
        f"non-overlapping occurrence: one is skipped only when it overlaps an occurrence you "
        f"merged. Scan left to right, and after a merge move two positions on."
    )


def _merge_scan(ids, new_id, matches, step_after_merge=2):
    """The left-to-right scan with another test for 'the pair is here' (``matches(a, b)``)
    or another step after a merge: the merge_pair that a mistake in either gives."""
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and matches(ids[i], ids[i + 1]):
            out.append(new_id)
            i += step_after_merge
        else:
            out.append(ids[i])
            i += 1
    return out


#: a pair of two different ids, and the learner's merge_pair on it under each candidate:
#: only the first id compared, only the second, or one id compared with both halves
_PROBE = ([5, 6, 5, 7, 4, 6], (5, 6), 9)
_PROBE_VERDICTS = {
    (9, 9, 4, 6): "first",
    (9, 5, 7, 9): "second",
    (5, 6, 5, 7, 4, 6): "twice",
}


def _one_id_twice_message(pair, which: str) -> str:
    probe_ids, probe_pair, probe_id = _PROBE
    return (
        f"You compared one id with both halves of the pair, ({which}, {which}) == pair: the "
        f"other index is missing. On {pair}, whose two ids are equal, that merges every "
        f"{pair[0]} whatever is next to it; on a pair of two different ids it never merges: "
        f"merge_pair({probe_ids}, {probe_pair}, {probe_id}) returned the ids unchanged. "
        "Compare both ids, (ids[i], ids[i + 1]) == pair."
    )


def _merge_scan_mistakes(ids, pair, new_id, got=None, probe=None) -> dict[str, list]:
    """Each half of the pair test alone, and a step of one after a merge. Where the two
    halves give the same list on this input, one message names both. On a pair of two
    equal ids, "only pair[0] compared" and "ids[i] compared with both halves" merge the
    same ids: ``probe()`` (the learner's merge_pair on :data:`_PROBE`, a pair of two
    different ids, or None when it fails), called only when ``got`` is one of the two, tells
    them apart; without a verdict, both are named."""
    first = _merge_scan(ids, new_id, lambda a, b: a == pair[0])
    second = _merge_scan(ids, new_id, lambda a, b: b == pair[1])
    step_one = {
        "After a merge you moved on by one id instead of two, so the second id of a merged "
        "pair starts another pair (overlapping merges): [1, 1, 1] with (1, 1) becomes [X, 1], "
        "not [X, X]. Skip both merged ids (i += 2).": _merge_scan(
            ids, new_id, lambda a, b: (a, b) == tuple(pair), step_after_merge=1
        )
    }
    verdict = None
    if pair[0] == pair[1] and first != second and probe is not None and got in (first, second):
        verdict = _PROBE_VERDICTS.get(tuple(probe() or ()), "unknown")
    if verdict == "twice":
        return {
            _one_id_twice_message(pair, "ids[i]"): first,
            _one_id_twice_message(pair, "ids[i + 1]"): second,
            **step_one,
        }
    if verdict == "unknown":
        return {
            f"You merged wherever ids[i] == {pair[0]}, whatever follows it. On {pair}, a pair "
            "of two equal ids, two mistakes give that: comparing only the first id "
            "(ids[i] == pair[0]), or comparing ids[i] with both halves ((ids[i], ids[i]) == "
            "pair, the index i + 1 missing). Compare both ids, (ids[i], ids[i + 1]) == "
            "pair.": first,
            f"You merged wherever ids[i + 1] == {pair[1]}, whatever comes before it. On "
            f"{pair}, a pair of two equal ids, two mistakes give that: comparing only the "
            "second id (ids[i + 1] == pair[1]), or comparing ids[i + 1] with both halves. "
            "Compare both ids, (ids[i], ids[i + 1]) == pair.": second,
            **step_one,
        }
    if first == second:
        return {
            "You merged where only one id of the pair matches (ids[i] == pair[0], or "
            "ids[i + 1] == pair[1]: on this input both give your result): compare both "
            "ids, (ids[i], ids[i + 1]) == pair.": first,
            "After a merge you moved on by one id instead of two, so the second id of a "
            "merged pair starts another pair (overlapping merges): [1, 1, 1] with (1, 1) "
            "becomes [X, 1], not [X, X]. Skip both merged ids (i += 2).": _merge_scan(
                ids, new_id, lambda a, b: (a, b) == tuple(pair), step_after_merge=1
            ),
        }
    return {
        f"You merged wherever the *first* id matches pair[0] = {pair[0]}, whatever follows "
        "it: only the first id is compared (ids[i] == pair[0]), the second never (ids[i + 1] "
        "== pair[1] is missing). Compare both ids, (ids[i], ids[i + 1]) == pair.": _merge_scan(
            ids, new_id, lambda a, b: a == pair[0]
        ),
        f"You merged wherever the *second* id matches pair[1] = {pair[1]}, whatever comes "
        "before it: only the second id is compared (ids[i + 1] == pair[1]), the first never "
        "(ids[i] == pair[0] is missing). Compare both ids, (ids[i], ids[i + 1]) == "
        "pair.": _merge_scan(ids, new_id, lambda a, b: b == pair[1]),
        "After a merge you moved on by one id instead of two, so the second id of a merged "
        "pair starts another pair (overlapping merges): [1, 1, 1] with (1, 1) becomes [X, 1], "
        "not [X, X]. Skip both merged ids (i += 2).": _merge_scan(
            ids, new_id, lambda a, b: (a, b) == tuple(pair), step_after_merge=1
        ),
    }


_MERGE_INDEX_HINT = (
    "Your loop read past the end of ids: at the last position i = len(ids) - 1 there is no "
    "ids[i + 1], so the pair test must not look there. Guard it with i + 1 < len(ids) "
    "(strictly less): a bound that is true at the last position (i + 1 <= len(ids), "
    "i - 1 < len(ids), i < len(ids)) reads ids[len(ids)]."
)


def _merge_first_divergence(ids, pair, new_id, got) -> str:
    """Where the learner's result first departs from the left-to-right scan, told in
    terms of the input: a pair merged that does not match, an occurrence left unmerged,
    or the end of the result. "" when the results agree."""
    src = []  # (input position, merged) of each id of the reference's result
    i = 0
    while i < len(ids):
        merged = i + 1 < len(ids) and (ids[i], ids[i + 1]) == tuple(pair)
        src.append((i, merged))
        i += 2 if merged else 1
    expected = ref.merge_pair(ids, pair, new_id)
    for k, ((i, merged), want) in enumerate(zip(src, expected)):
        if k >= len(got):
            return (
                f"Your result stops after {len(got)} ids: the input from position {i} on, "
                f"{list(ids[i:])}, is missing from it."
            )
        if got[k] == want:
            continue
        if got[k] == new_id and not merged:
            here = f"ids {ids[i]}, {ids[i + 1]}" if i + 1 < len(ids) else f"the last id {ids[i]}"
            return (
                f"The first difference is at input position {i}: {here} there are not the pair "
                f"{tuple(pair)}, but your result has {new_id} in their place: a pair merged "
                "that does not match. Both ids must equal the pair's, ids[i] == pair[0] and "
                "ids[i + 1] == pair[1]."
            )
        if merged:
            return (
                f"The first difference is at input position {i}: ids {ids[i]}, {ids[i + 1]} "
                f"there are the pair, but your result has {got[k]} in their place instead "
                f"of {new_id}: that occurrence was not merged."
            )
        return (
            f"The first difference is at input position {i} (id {ids[i]}, not merged): your "
            f"result has {got[k]} there, where {want} belongs."
        )
    if len(got) > len(expected):
        return f"Your result has {len(got) - len(expected)} id(s) too many at its end: {got[len(expected) :]}."
    return ""


def _raises_index_error(merge_pair, ids: list[int], pair, new_id: int) -> bool | None:
    """True if merge_pair raises IndexError on these ids, False if it returns, None if it
    raises anything else."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            merge_pair(list(ids), pair, new_id)
    except IndexError:
        return True
    except Exception:
        return None
    return False


def _merge_index_hint(merge_pair):
    """The text for an IndexError: a read past the end (the pair test at the last
    position), or, told apart by two probes, a list that shrinks under a loop whose range
    was fixed before it (del / pop while iterating)."""

    def text(exc: BaseException) -> str:
        # [5, 1]: the first id of the pair at the very end, nothing merged: a test that
        # reads ids[i + 1] at the last position raises; a loop over range(len(ids) - 1)
        # does not. [1, 2, 5, 1]: one merge at the start: a list shortened under a range
        # fixed before the loop runs past its end.
        reads_past_end = _raises_index_error(merge_pair, [5, 1], (1, 2), 9)
        shrinks = _raises_index_error(merge_pair, [1, 2, 5, 1], (1, 2), 9)
        # [5, 1, 2]: a merge that ends the list; reading the id after it raises
        after_last_merge = _raises_index_error(merge_pair, [5, 1, 2], (1, 2), 9)
        if reads_past_end is False and shrinks is False and after_last_merge is True:
            return (
                "Your loop reads the id after a merge even where the merged pair ends the "
                "list: on [5, 1, 2] with (1, 2) yours raises IndexError, on [5, 1] and "
                "[1, 2, 5, 1] it does not. After a merge, the step for a single id (append "
                "ids[i], move one) runs too, as when its else: is missing, so the id after "
                "every merged pair is appended without being tested. Put the single-id step "
                "under else:, so that a merge (append new_id, i += 2) is all that happens at "
                "a pair."
            )
        if reads_past_end is False and shrinks is True:
            return (
                "Your list gets shorter while the loop runs: on [5, 1] (nothing to merge) "
                "yours returns, on [1, 2, 5, 1] (one merge) it raises IndexError. A merge "
                "made in the list itself (del or pop while iterating) removes an id, but "
                "range(len(...)) was computed once, before the loop, so the loop runs past "
                "the shortened list's end. Build a new list instead: append new_id and skip "
                "two ids at a pair, append ids[i] and move one otherwise."
            )
        return _MERGE_INDEX_HINT

    return text


def _expect_no_pair_for_new_id(c: Checker, what: str, got, pair, new_id, expected) -> None:
    """Fail, naming the cause, when the result holds the pair itself (a tuple or list of its
    two ids) in exactly the places where ``expected`` holds new_id."""
    if not isinstance(got, list | tuple):
        return

    def is_pair(item) -> bool:
        return isinstance(item, tuple | list) and list(item) == list(pair)

    if not any(is_pair(item) for item in got):
        return
    if [new_id if is_pair(item) else item for item in got] != list(expected):
        return
    c.fail(
        f"{what} returned a list with the pair {tuple(pair)} itself in each merged place, "
        f"where new_id ({new_id}) belongs: you appended the pair instead of new_id, and "
        f"new_id never appears. Where ids[i], ids[i + 1] equal the pair, append new_id (one "
        "integer id) and skip both ids."
    )


def _probe_merge(merge_pair, ids: list[int], pair: tuple[int, int], new_id: int):
    """The learner's merge_pair on a small input, as a list of ints (None if it fails)."""
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        return [int(i) for i in merge_pair(list(ids), pair, new_id)]
    return None


def _second_id_against_first(merge_pair) -> str:
    """When probes show that the learner's merge_pair merges (pair[0], pair[0]) for a pair
    of two different ids, and nothing else (its second id compared with pair[0]): that
    named, with a bound one place short if another probe shows it too; "" otherwise."""
    # (3, 3) merged for the pair (3, 4), and a 3 followed by another id left alone (which
    # "only ids[i] == pair[0] compared" would merge)
    if _probe_merge(merge_pair, [3, 3, 4, 1], (3, 4), 9) != [9, 4, 1] or _probe_merge(
        merge_pair, [3, 5, 1], (3, 4), 9
    ) != [3, 5, 1]:
        return ""
    said = (
        "Your test compares the second id with pair[0] again "
        "(ids[i + 1] == pair[0], a copy-paste slip), so only a pair of two equal ids, "
        "(pair[0], pair[0]), ever merges: merge_pair([3, 3, 4, 1], (3, 4), 9) gave "
        "[9, 4, 1], the (3, 3) merged, where the answer is [3, 9, 1]. Compare ids[i + 1] "
        "with pair[1]: (ids[i], ids[i + 1]) == pair."
    )
    if _probe_merge(merge_pair, [1, 3, 3], (3, 3), 9) == [1, 3, 3]:
        said += (
            " Your loop also never merges a pair in the last two places: "
            "merge_pair([1, 3, 3], (3, 3), 9) gave [1, 3, 3], not [1, 9]. Its bound stops "
            "one place short (i + 2 < len(ids), or range(len(ids) - 2)); a pair starting "
            "at i needs only i + 1 < len(ids)."
        )
    return said


def check_merge_pair(merge_pair, *, hidden: bool = False) -> None:
    """Check ``merge_pair(ids, pair, new_id)``: a new list (or tuple), non-overlapping
    merges from the left, the input left alone."""
    with Checker("merge_pair", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(merge_pair)
        if hidden:
            cases = []
            for seed in (61, 62, 63):
                ids = _random_ids(seed, 20, high=3)
                cases.append((ids, (ids[3], ids[4]), 300 + seed))
            cases += [([1, 1, 1, 1, 1], (1, 1), 9), ([2], (2, 2), 9), ([], (1, 2), 9)]
            cases.append(([4, 5, 6, 4, 5], (4, 5), 9))  # a pair that ends the list
            cases.append(([12, 3, 2, 3, 1, 2, 3], (2, 3), 9))  # "2 3" inside "12 3" as text
            cases.append(([3, 3, 3, 3, 3, 0, 3, 3], (3, 3), 9))  # a run of five, then a pair
        else:
            a = list(_CLASSIC.encode())
            cases = [
                (a, (97, 97), 256),
                ([1, 1, 1], (1, 1), 4),
                ([5, 6, 7], (6, 5), 8),
                ([3, 4, 3, 4], (3, 4), 9),
                ([], (1, 2), 9),
                # "1 2" also occurs inside "11 2": merging on the ids written as text
                # replaces it there too
                ([11, 2, 1, 2], (1, 2), 9),
                # a run of five equal ids: the pairs at 0 and 2 are merged, not only 0
                ([1, 1, 1, 1, 1, 2, 1, 1], (1, 1), 4),
            ]
        first_only_ruled_out = False  # an earlier input merged a later occurrence too
        passed = []  # the inputs answered right so far: a step mistake that shows on one is ruled out

        def probe():  # merge_pair on a pair of two different ids (see _merge_scan_mistakes)
            probe_ids, probe_pair, probe_id = _PROBE
            try:
                return [int(i) for i in merge_pair(list(probe_ids), probe_pair, probe_id)]
            except Exception:  # any failure: the two candidates stay named
                return None

        for ids, pair, new_id in cases:
            what = f"merge_pair({ids}, {pair}, {new_id})"
            got = c.call(
                merge_pair,
                list(ids),
                pair,
                new_id,
                hints=[(lambda exc: isinstance(exc, IndexError), _merge_index_hint(merge_pair))],
                mutation_hint="Build the result in a new list; `ids[i:i + 2] = [new_id]`, "
                "`ids.pop(...)` or `ids[:] = ...` change the caller's list.",
            )
            expected = ref.merge_pair(ids, pair, new_id)
            _expect_no_pair_for_new_id(c, what, got, pair, new_id, expected)
            got = _ids(c, got, what, "Return a new list of ids.")
            first_only = _merge_first_only(ids, pair, new_id)
            back_to_back = _merge_back_to_back_missed(ids, pair, new_id)
            later_missed = {}
            if first_only == back_to_back and not first_only_ruled_out:
                later_missed[
                    "Only the first occurrence of the pair was replaced, or an occurrence that "
                    "starts right where a merged one ended was skipped (on this input the two "
                    "look alike): after a merge, keep scanning from the id after the pair and "
                    "replace every later, non-overlapping occurrence, including one that "
                    "follows directly."
                ] = first_only
            else:
                if not first_only_ruled_out:
                    later_missed[
                        "Only the first occurrence of the pair was replaced: after a merge, "
                        "keep scanning (from the id after the pair) and replace every later, "
                        "non-overlapping occurrence too."
                    ] = first_only
                later_missed.update(
                    _told_apart(
                        merge_pair,
                        ids,
                        pair,
                        new_id,
                        got,
                        {
                            _MERGE_BACK_TO_BACK: _merge_back_to_back_missed,
                            _MERGE_LAST_PAIR: _merge_last_pair_missed,
                            _MERGE_NEXT_UNCHECKED: _merge_next_id_unchecked,
                        },
                        _END_PROBE,
                        c.probe,
                    )
                )
            _expect_not_accumulated(
                c,
                what,
                lambda ids=ids, pair=pair, new_id=new_id: merge_pair(list(ids), pair, new_id),
                got,
                expected,
            )
            if (
                got != expected
                and got == _merge_from_first_left_id(ids, pair, new_id)
                and _stops_at_first_left_id(merge_pair)
            ):
                c.fail(f"{what} returned {got}, expected {expected}. {_first_left_id_message()}")
            # probes tell a second id compared with pair[0] from the other ways to merge
            # nothing (or the wrong pairs) of a pair of two different ids
            second_twice = (
                _second_id_against_first(merge_pair)
                if list(got) != list(expected) and pair[0] != pair[1]
                else ""
            )
            c.expect_equal(
                got,
                expected,
                what,
                hint=(
                    _merge_first_divergence(ids, pair, new_id, got)
                    + " Scan left to right; where ids[i], ids[i+1] equal the pair, emit new_id "
                    "and skip two positions, otherwise emit ids[i] and move one."
                ).strip(),
                mistakes=(
                    {second_twice: got}
                    if second_twice
                    else {
                        _overlap_message(ids, pair, new_id): _merge_double(ids, pair, new_id),
                        **_merge_as_text(ids, pair, new_id),
                        **_told_apart(
                            merge_pair,
                            ids,
                            pair,
                            new_id,
                            got,
                            {
                                _MERGE_BACKWARDS: _merge_with_previous,
                                _MERGE_RIGHT_TO_LEFT: _merge_right_to_left,
                            },
                            _BACKWARDS_PROBE,
                        ),
                        "Nothing after the first merge was kept: the result ends with its new_id. "
                        "Either the loop stops there (a return or break inside it), or a flag that "
                        "skips the pair's second id is set but never reset, so every later id is "
                        "skipped too. Keep scanning to the end, and skip exactly one id after a "
                        "merge (i += 2, or reset the flag once it has skipped).": (
                            _merge_stops_after_first(ids, pair, new_id)
                        ),
                        **{
                            f"Your merged pairs became {new_id + shift} (new_id "
                            f"{'+' if shift > 0 else '-'} 1), not new_id={new_id}: write the new_id "
                            "you were given.": ref.merge_pair(ids, pair, new_id + shift)
                            for shift in (-1, 1)
                            if pair in zip(ids, ids[1:])
                        },
                        "The last id went missing: when no merge happens at the final position, it "
                        "still has to be copied.": expected[:-1] if expected else None,
                        **later_missed,
                        **(
                            {
                                _chained_matches_message(ids, pair): chained
                                for chained in [_merge_chained_matches_dropped(ids, pair, new_id)]
                                if chained is not None
                                and (chained != first_only or first_only_ruled_out)
                            }
                        ),
                        "Nothing was merged: you returned the ids unchanged although the pair "
                        "occurs in them, so your test for the pair is never true. A list slice "
                        "never equals the tuple pair (ids[i:i + 2] == pair compares [a, b] with "
                        "(a, b), always False); one id compared with both halves, (ids[i], "
                        "ids[i]) == pair, is never true either when the pair's two ids differ. "
                        "Compare (ids[i], ids[i + 1]) == pair, or tuple(ids[i:i + 2]) == pair. "
                        "(Or the input list was returned instead of the new one.)": list(ids),
                        **_merge_scan_mistakes(ids, pair, new_id, got, probe),
                        # the two agree wherever each merged pair is followed by the pair's
                        # first id (blind23a-b23a-merge-run-collapsed was told the first)
                        **(
                            run_told := _told_apart(
                                merge_pair,
                                ids,
                                pair,
                                new_id,
                                got,
                                {
                                    _MERGE_SKIPS_THREE: lambda i, p, n: _merge_scan_steps(
                                        i, p, n, step_merge=3
                                    ),
                                    _MERGE_RUN_COLLAPSED: _merge_run_collapsed,
                                },
                                _RUN_PROBE,
                                c.probe,
                            )
                        ),
                        **{
                            message: model
                            for message, model in _merge_step_mistakes(ids, pair, new_id).items()
                            if (message != _MERGE_SKIPS_THREE or message in run_told)
                            and not any(
                                _merge_step_mistakes(*earlier)[message] not in (None, right)
                                for earlier, right in passed
                            )
                        },
                    }
                ),
            )
            # this input passed: if only the first occurrence had been merged, it would not have
            first_only_ruled_out = first_only_ruled_out or first_only != expected
            passed.append(((ids, pair, new_id), expected))
