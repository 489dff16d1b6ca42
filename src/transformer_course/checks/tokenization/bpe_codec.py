"""The checks of ``bpe_encode`` and ``bpe_decode``: merges applied by rank, and the joined
bytes decoded once.
"""

from __future__ import annotations

import contextlib
import io
import re
import traceback
import unicodedata

from transformer_course.checking import Checker, CheckFailure, short
from transformer_course.checking.failure import _is_learner_frame
from transformer_course.checking.time_limit import TimeLimitExceeded, time_limit
from transformer_course.reference import tokenization as ref

from .common import _CLASSIC, _expect_not_accumulated, _ids

_HIDDEN_BPE_TEXTS = [
    "the cat sat on the mat",
    "naïve café, déjà vu — 東京 🙂",
    "aaaaaaa",
    "",
]
# Merges learned elsewhere, applied to a text where the later merge's pair is the more
# frequent one: bpe_encode must follow the merges' rank, not the counts in this text.
_RANKED_MERGES = {(98, 99): 256, (97, 98): 257}
# Two merges whose pairs overlap ("abc"), the earlier one the more frequent in "ababc":
# applying the latest-learned merge first differs from the rank order, counting does not.
_OVERLAPPING_MERGES = {(97, 98): 256, (98, 99): 257}


def _encode_by_count(text, merges):
    """What merging the most frequent known pair of *this* text first gives."""
    ids = list(text.encode("utf-8"))
    while True:
        counts = {p: n for p, n in ref.get_pair_counts(ids).items() if p in merges}
        if not counts:
            return ids
        pair = max(counts, key=counts.get)
        ids = ref.merge_pair(ids, pair, merges[pair])


def _encode_left_to_right(text, merges):
    """What merging greedily as the bytes come gives: whenever the last two ids on a
    stack form a learned pair, they are merged (rank order ignored)."""
    out: list[int] = []
    for token in text.encode("utf-8"):
        out.append(token)
        while len(out) >= 2 and (out[-2], out[-1]) in merges:
            right, left = out.pop(), out.pop()
            out.append(merges[(left, right)])
    return out


def _encode_leftmost_first(text, merges):
    """What merging the leftmost pair present that has a merge (present[0]) first gives,
    whatever its rank."""
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        present = [p for p in ref.get_pair_counts(ids) if p in merges]
        if not present:
            break
        ids = ref.merge_pair(ids, present[0], merges[present[0]])
    return ids


def _encode_longest_match(text, merges):
    """What greedy longest match gives (WordPiece's way): at each position, the longest
    token whose bytes start there."""
    pieces = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        if a in pieces and b in pieces:
            pieces[new_id] = pieces[a] + pieces[b]
    table = {piece: token for token, piece in pieces.items()}
    longest = max(len(piece) for piece in table)
    data, ids, start = text.encode("utf-8"), [], 0
    while start < len(data):
        stop = next(
            stop
            for stop in range(min(len(data), start + longest), start, -1)
            if data[start:stop] in table
        )
        ids.append(table[data[start:stop]])
        start = stop
    return ids


# Inputs on which three ways of merging "as the text comes" part: merging on a stack as
# the bytes arrive, the leftmost pair present first, and the longest match. On "acacab"
# the stack (and the longest match) merge (a, c) and then (257, a) at once, the leftmost
# pair first does not; on "bbbbc" the longest match takes "bbb" (258) at once, the stack
# builds 257 = (256, b); the rank order gives neither.
_STACK_VS_LEFTMOST = ("acacab", {(97, 98): 256, (97, 99): 257, (257, 97): 258})
_STACK_VS_LONGEST = ("bbbbc", {(98, 98): 256, (256, 98): 257, (98, 256): 258})


def _encode_latest_first(text, merges):
    """What applying the latest-learned merge present (the highest new id) first gives."""
    ids = list(text.encode("utf-8"))
    while True:
        present = [p for p in ref.get_pair_counts(ids) if p in merges]
        if not present:
            return ids
        pair = max(present, key=merges.get)
        ids = ref.merge_pair(ids, pair, merges[pair])


def _encode_smallest_pair_first(text, merges):
    """What min(present) without key=merges.get gives: the smallest pair of ids first
    (tuples compared element by element), whatever its rank."""
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        present = [p for p in ref.get_pair_counts(ids) if p in merges]
        if not present:
            break
        pair = min(present)
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


# "ca" is the earlier merge and comes first, "ab" the smaller pair of ids: merging the
# smallest pair first differs from the rank order and from merging greedily from the left
_SMALLEST_PAIR_MERGES = {(99, 97): 256, (97, 98): 257}


def _encode_unlearned_first(text, merges):
    """min over every pair present with merges.get(p, 0): an unlearned pair ranks first,
    and the loop stops at once (right where every pair present is learned)."""
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        pairs = ref.get_pair_counts(ids)
        pair = min(pairs, key=lambda p: merges.get(p, 0))
        if pair not in merges:
            break
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def _encode_stopping_at_two(text, merges):
    """What a loop that stops while two ids are left (``len(ids) > 2``) gives."""
    ids = list(text.encode("utf-8"))
    while len(ids) > 2:
        present = [p for p in ref.get_pair_counts(ids) if p in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


# A merge across a space ("a " then "a b"): it shows an encoder that works on pieces of
# the text (words, or pre-tokenised chunks) and never merges across them; the last merge,
# " b", applies inside a GPT-2 chunk but never to a word split at its spaces.
_ACROSS_SPACES = ("a b a b", {(97, 32): 256, (256, 98): 257, (32, 98): 258})


def _encode_each(pieces: list[str], merges, between: bytes = b"") -> list[int]:
    """Each piece encoded on its own by the reference, ``between``'s bytes in between."""
    out: list[int] = []
    for k, piece in enumerate(pieces):
        if k and between:
            out += list(between)
        out += ref.bpe_encode(piece, merges)
    return out


def _encode_chunks(text, merges):
    """What encoding each pre-tokenised chunk (GPT-2's way: a word with the space before
    it) on its own gives: no merge crosses a chunk."""
    return _encode_each(re.findall(r" ?\w+| ?[^\w\s]+|\s+(?!\S)|\s+", text), merges)


def _encode_words_spaces_kept(text, merges):
    """Each space-separated word encoded on its own, a space byte between two."""
    return _encode_each(text.split(" "), merges, b" ")


def _encode_words_spaces_dropped(text, merges):
    """Each whitespace-separated word encoded on its own, the whitespace dropped."""
    return _encode_each(text.split(), merges)


def _byte_spans(ids, merges) -> list[tuple[int, int, int]] | None:
    """(start, stop, id) of each id over the text's bytes; None for an unknown id."""
    width = {i: 1 for i in range(256)}
    for (a, b), new_id in merges.items():
        if a in width and b in width:
            width[new_id] = width[a] + width[b]
    spans, at = [], 0
    for token in ids:
        if token not in width:
            return None
        spans.append((at, at + width[token], token))
        at += width[token]
    return spans


def _encode_pairs_found_once(text, merges):
    """The merges applied by rank, but only those whose pair occurs in the original bytes
    (the pairs present looked up once, before the first merge)."""
    ids = list(text.encode("utf-8"))
    present = set(zip(ids, ids[1:]))
    for pair in sorted((p for p in present if p in merges), key=merges.get):
        ids = ref.merge_pair(ids, pair, merges[pair])
    return ids


def _replay_encoding(text: str, merges: dict, got: list[int]) -> str:
    """Replay the reference's merges on the text's bytes, one decision at a time, and name
    the first one the learner's result contradicts (a boundary of theirs inside a token the
    reference forms); "" when the result cannot be laid over the bytes."""
    data = text.encode("utf-8")
    mine = _byte_spans(got, merges)
    if mine is None or (mine[-1][1] if mine else 0) != len(data):
        return ""
    cuts = {start for start, _, _ in mine[1:]}
    current = [(k, k + 1, byte) for k, byte in enumerate(data)]
    for step in range(len(merges) * max(len(data), 1) + 1):
        present = [p for p in ref.get_pair_counts([t for _, _, t in current]) if p in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        merged, i = [], 0
        while i < len(current):
            if i + 1 < len(current) and (current[i][2], current[i + 1][2]) == pair:
                start, stop = current[i][0], current[i + 1][1]
                if any(start < cut < stop for cut in cuts):
                    yours = [(t, a, b - 1) for a, b, t in mine if a < stop and b > start]
                    shown = ", ".join(f"{t} (bytes {a}-{b})" for t, a, b in yours)
                    return (
                        f"Replaying the merges: decision {step + 1} merges {pair} -> "
                        f"{merges[pair]} over bytes {start}-{stop - 1} ({data[start:stop]!r}), "
                        "the earliest-learned merge that occurs at that point; your result "
                        f"covers those bytes with {shown}, so that is where your encoding "
                        "first departs. Each step: among the pairs present, take the one "
                        "with the smallest new id, merge it everywhere, repeat."
                    )
                merged.append((start, stop, merges[pair]))
                i += 2
            else:
                merged.append(current[i])
                i += 1
        current = merged
    return ""


_ENCODE_STOP_HINT = (
    "Stop as soon as no adjacent pair has a merge, which includes the case where fewer than "
    "two ids remain ('aa' becomes the single token 256): min() or max() of no pairs fails."
)
_ENCODE_STOP_HINTS = [
    ("arg is an empty sequence", _ENCODE_STOP_HINT),
    ("iterable argument is empty", _ENCODE_STOP_HINT),
]


#: seconds a bpe_encode call of the check may take: the texts are a few dozen bytes
_ENCODE_SECONDS = 5.0


def _finishes(bpe_encode, text: str, merges: dict):
    """The learner's ids for ``text`` when the call ends within a second; None when it
    does not end (or fails)."""
    try:
        with time_limit(1.0), contextlib.redirect_stdout(io.StringIO()):
            return list(bpe_encode(text, dict(merges)))
    except Exception:  # TimeLimitExceeded included: no result
        return None


def _encode_never_ends(bpe_encode) -> str:
    """Why bpe_encode loops for ever, from two probes: "aa" with its one merge, and "ab"
    where only the second-learned merge occurs. A loop that picks its merge among all
    the learned ones (min(merges, key=merges.get)) instead of among the pairs present
    ends on the first and never on the second; a loop whose merges change nothing
    (merge_pair's result not assigned back) never ends on either."""
    first = _finishes(bpe_encode, "aa", {(97, 97): 256})
    second = _finishes(bpe_encode, "ab", {(97, 97): 256, (97, 98): 257})
    loop = (
        f"Your bpe_encode did not finish within {_ENCODE_SECONDS:g} s on a text of a few "
        "bytes: its loop never ends. The loop ends only when no pair present has a merge, "
        "so every pass must merge a pair that is present in ids."
    )
    if first == [256] and second is None:
        return (
            f"{loop} On 'aa' with the one merge (97, 97) yours gives [256], but on 'ab' with "
            "the merges (97, 97) -> 256 and (97, 98) -> 257, where only (97, 98) occurs, "
            "it never ends: you pick the merge among all the learned merges (min(merges, "
            "key=merges.get), the earliest learned overall), not among the pairs present, "
            "so once that merge no longer occurs, merge_pair changes nothing and the loop "
            "repeats for ever. Take min(present, key=merges.get) over the pairs present."
        )
    if first is None:
        return (
            f"{loop} Even 'aa' with its one merge never ends: a pass changes nothing, e.g. "
            "merge_pair's result is never assigned back to ids (ids = merge_pair(ids, pair, "
            "new_id)), or the loop's exit test never holds."
        )
    return loop


def _encode_hints(merges: dict) -> list:
    """_ENCODE_STOP_HINTS, and a KeyError on a pair that is not a learned merge."""

    def unlearned_pair(exc: BaseException) -> bool:
        key = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
        return isinstance(key, tuple) and len(key) == 2 and key not in merges

    def text(exc: BaseException) -> str:
        return (
            f"Your code looked up merges[{exc.args[0]}], a pair that was never learned. "
            "Check `pair in merges` before looking it up: when even the earliest-learned "
            "pair present (min with merges.get(p, inf)) is not in merges, no merge applies "
            "any more and the loop must stop (if pair not in merges: break)."
        )

    return [*_ENCODE_STOP_HINTS, (unlearned_pair, text)]


_MERGES_CHANGED_HINT = (
    "bpe_encode must leave merges as it is: the same merges encode every text, and the next "
    "call needs all of them again. Removing a merge once it is applied (merges.pop(pair), "
    "del merges[pair]) loses it for every later call: keep your own record of what is done, "
    "or work on a copy, dict(merges)."
)


def _encode_one_step(text: str, merges) -> list[int] | None:
    """One round of the replay: the earliest-learned pair present merged, then stop (None
    when that already is the whole encoding)."""
    ids = list(text.encode("utf-8"))
    present = [pair for pair in ref.get_pair_counts(ids) if pair in merges]
    if not present:
        return None
    pair = min(present, key=merges.get)
    once = ref.merge_pair(ids, pair, merges[pair])
    return None if once == ref.bpe_encode(text, merges) else once


def _encode_first_merge_only(text: str, merges) -> list[int] | None:
    """Only the first merge of the dict (the earliest learned) applied, where it occurs,
    and nothing after it: what testing each merge with ``pair in zip(ids, ids[1:])`` gives,
    since a merge that is not found exhausts the iterator (None when that is the whole
    encoding)."""
    ids = list(text.encode("utf-8"))
    first = next(iter(merges), None)
    if first is not None:
        ids = ref.merge_pair(ids, first, merges[first])
    return None if ids == ref.bpe_encode(text, merges) else ids


#: a text whose earliest-learned merge does not occur: applying only that merge leaves the
#: bytes as they are, one round of the replay merges (97, 98) -> 257 and stops, and the
#: right encoding goes on to 258.
_FIRST_MERGE_ABSENT = ("abab", {(120, 121): 256, (97, 98): 257, (257, 257): 258})

_FIRST_MERGE_ABSENT_TEXT, _FIRST_MERGE_ABSENT_MERGES = _FIRST_MERGE_ABSENT
_ENCODE_FIRST_MERGE_ONLY = (
    "Only the earliest-learned merge was ever applied: once it no longer occurs, your test "
    "for the pairs present finds none, so the loop stops. On "
    f"bpe_encode({_FIRST_MERGE_ABSENT_TEXT!r}, merges={_FIRST_MERGE_ABSENT_MERGES}), whose "
    "first merge does not occur, nothing was merged at all. Testing each merge with `pair "
    "in zip(ids, ids[1:])` does that: zip returns an iterator, each `in` consumes it up to "
    "the match, and a merge that is not found exhausts it, so every later merge looks "
    "absent. Make the pairs a list or set once per round (set(zip(ids, ids[1:])), or "
    "get_pair_counts(ids)) before testing the merges."
)


def _first_merge_only_verdict(bpe_encode) -> str | None:
    """ "first merge only" when the learner's bpe_encode leaves the bytes of
    :data:`_FIRST_MERGE_ABSENT` as they are (None: anything else, or it failed)."""
    text, merges = _FIRST_MERGE_ABSENT
    try:
        got = [int(i) for i in bpe_encode(text, dict(merges))]
    except Exception:  # any failure: no verdict
        return None
    return "first merge only" if got == list(text.encode("utf-8")) else None


def _encode_stops_at_absent_merge(text: str, merges) -> list[int] | None:
    """Each merge applied once in learned order, the pass ended at the first merge whose
    pair does not occur at its turn (None when that gives the right encoding here)."""
    ids = list(text.encode("utf-8"))
    for pair, new_id in merges.items():
        if pair not in ref.get_pair_counts(ids):
            break
        ids = ref.merge_pair(ids, pair, new_id)
    return None if ids == ref.bpe_encode(text, merges) else ids


def _encode_reversed_pass(text: str, merges) -> list[int] | None:
    """Each merge applied once, in the reverse of the learned order (None when that gives
    the right encoding here)."""
    ids = list(text.encode("utf-8"))
    for pair, new_id in reversed(list(merges.items())):
        ids = ref.merge_pair(ids, pair, new_id)
    return None if ids == ref.bpe_encode(text, merges) else ids


#: a text no other call uses, and two merges that encode it differently
_FRESH_TEXT = "zqzq"
_FRESH_MERGES = ({(122, 113): 256}, {(113, 122): 256})  # [256, 256] and [122, 256, 113]


def _expect_merges_read_each_call(c: Checker, bpe_encode, what: str, got, earlier, text) -> None:
    """Fail, naming it, when ``got`` (wrong) is what an earlier, right call on the same
    text with other merges returned: the ids depend on the text alone. Two fresh calls
    on a text never used tell a result kept between calls (a cache keyed by the text)
    from a function that ignores its merges on every call."""
    same_text = [(m, ids) for t, m, _, ids in earlier if t == text and ids == got]
    if not same_text:
        return
    first, second = _FRESH_MERGES
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            fresh_first = list(bpe_encode(_FRESH_TEXT, dict(first)))
            fresh_second = list(bpe_encode(_FRESH_TEXT, dict(second)))
    except Exception:  # the probe tells nothing: the usual message follows
        return
    observed = (
        f"{what} returned {got}, the ids your earlier call on the same text returned with "
        f"other merges ({same_text[0][0]}), where they were right: with these merges the "
        "text encodes differently."
    )
    kept = fresh_first == ref.bpe_encode(_FRESH_TEXT, first) and fresh_second == fresh_first
    if kept:
        c.fail(
            f"{observed} On a text it had not seen, {_FRESH_TEXT!r}, your bpe_encode gave the "
            f"right ids {fresh_first} with merges {first}, then the same ids again with "
            f"merges {second} (expected {ref.bpe_encode(_FRESH_TEXT, second)}): the first "
            "call's result is kept and returned again. A cache (a module-level dict, "
            "functools.lru_cache, a default argument) keyed by the text alone ignores the "
            "new merges. Encode from the text and the merges of each call (a cache must be "
            "keyed by both)."
        )
    c.fail(
        f"{observed} Your ids depend on the text alone here: read the merges passed to this "
        "call, not ones kept from an earlier call."
    )


def check_bpe_encode(bpe_encode, *, hidden: bool = False) -> None:
    """Check ``bpe_encode(text, merges)``: UTF-8 bytes, then the merges by rank
    (earliest learned first); a list, tuple or 1-D integer array is accepted."""
    with Checker("bpe_encode", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(bpe_encode)
        if hidden:
            merges = ref.train_bpe("the cat sat on the mat. the cat ate. café déjà", 12)
            cases = [(t, merges) for t in _HIDDEN_BPE_TEXTS]
            cases.append(("abcabc", {(98, 99): 256, (97, 98): 257, (97, 256): 258}))
            cases.append(("xababcx", _OVERLAPPING_MERGES))
            cases.append(("xy", {(120, 121): 256}))  # two ids left: the last merge still applies
            cases.append(("abcbc", _RANKED_MERGES))
            cases.append(("xcabx", _SMALLEST_PAIR_MERGES))
            cases += [_STACK_VS_LEFTMOST, _STACK_VS_LONGEST, _ACROSS_SPACES]
            cases.append(("  The Cat sat ", merges))  # capitals, and spaces at both ends
            # a text encoded before, now with other merges: its ids change with them
            cases.append((_HIDDEN_BPE_TEXTS[0], {(97, 116): 256}))
        else:
            merges = ref.train_bpe(_CLASSIC, 3)
            cases = [(_CLASSIC, merges), ("aaab", merges), ("café", merges), ("aa", merges)]
            cases.append(("ababc", _OVERLAPPING_MERGES))
            cases.append(("ababcab", _RANKED_MERGES))
            # "bc" is the earlier merge and the more frequent pair, but "ab" comes first:
            # counting gets it right, merging greedily from the left does not
            cases.append(("abcbc", _RANKED_MERGES))
            cases.append(("cab", _SMALLEST_PAIR_MERGES))
            cases += [_STACK_VS_LEFTMOST, _STACK_VS_LONGEST, _ACROSS_SPACES]
            # a capital and a space in front: bytes of their own, kept as they are
            cases.append((" Aaaab", merges))
            # a text encoded before, now with other merges: its ids change with them
            cases.append(("aaab", _RANKED_MERGES))
        # Every call first (a call that raises ends the list), then the first wrong result
        # is diagnosed with the known mistakes that agree with *every* result collected:
        # one of them alone on one input proves nothing.
        runs, pending = [], None
        for text, m in cases:
            what = f"bpe_encode({text!r}, merges={m if len(m) <= 3 else '...'})"
            try:
                with time_limit(_ENCODE_SECONDS):  # a loop that never ends, explained
                    result = c.call(
                        bpe_encode,
                        text,
                        dict(m),
                        hints=[
                            *_encode_hints(m),
                            (TimeLimitExceeded, lambda exc: _encode_never_ends(bpe_encode)),
                        ],
                        mutation_hint=_MERGES_CHANGED_HINT,
                    )
                got = _ids(c, result, what)
            except CheckFailure as failure:
                pending = failure
                break
            runs.append((text, m, what, got))
        models = {
            "Start from UTF-8 bytes, not characters: ord(ch) differs from the bytes for "
            "anything outside ASCII.": lambda text, m: (
                [ord(ch) for ch in text] if any(ord(ch) > 127 for ch in text) else None
            ),
            "Apply the merges by rank, the earliest learned first (smallest new id), not by "
            "how often or where a pair occurs in the text being encoded: the merges were "
            "learned on other text, in that order.": _encode_by_count,
            "You merged greedily from the left as the bytes come (whenever the last two ids "
            "form a learned pair, they are merged at once): a pair is merged where it appears "
            "first, not in the order the merges were learned. Apply the merges by rank: among "
            "the pairs present, take the one with the smallest new id, merge it everywhere, "
            "repeat.": _encode_left_to_right,
            "You merged the leftmost pair present that has a merge (the first one found in "
            "the text, present[0]), whatever its rank: apply the merges by rank, the "
            "earliest learned first. Among the pairs present, take the one with the "
            "smallest new id (min(present, key=merges.get)), merge it everywhere, "
            "repeat.": _encode_leftmost_first,
            "You matched the longest known token at each position, from the left (greedy "
            "longest match, as WordPiece does): BPE does not look for the longest token, "
            "it replays the merges in the order they were learned. Among the pairs present, "
            "take the one with the smallest new id, merge it everywhere, repeat.": (
                _encode_longest_match
            ),
            "You applied the latest-learned merge first (the highest new id, max() where "
            "min() belongs): a later merge is built on the earlier ones, so apply them by "
            "rank, the smallest new id first (min(present, key=merges.get)).": (
                _encode_latest_first
            ),
            "You collected the pairs present once, on the original bytes, before merging: a "
            "pair that contains a new id (such as (256, 97)) only appears after an earlier "
            "merge made that id, so it was never merged. Recount the pairs on the current "
            "ids after every merge (get_pair_counts(ids) inside the loop).": (
                _encode_pairs_found_once
            ),
            "You applied the smallest pair of ids first (min(present) without "
            "key=merges.get, or the merges in sorted(merges) order: tuples compare element by "
            "element), not the earliest-learned merge. Apply "
            "the merges by rank: min(present, key=merges.get), the smallest new id.": (
                _encode_smallest_pair_first
            ),
            "Your loop stops while two ids are still left (len(ids) > 2 where len(ids) >= 2 "
            "belongs): the merge of the last two ids is never made. Keep going while at "
            "least two ids remain.": _encode_stopping_at_two,
            "The pairs that were never learned came first: min over the pairs present with "
            "merges.get(p, 0) (a default below every rank) picks an unlearned pair, and the "
            "loop stops before merging what it should. Give unlearned pairs a rank above all, "
            "merges.get(p, float('inf')), or keep only the pairs in merges.": (
                _encode_unlearned_first
            ),
            "Only one merge was applied, and then it stopped: the pair with the smallest new "
            "id was merged, and nothing after it (an if instead of a while, or a return or "
            "break inside the loop). A merge makes new pairs (with its new id) that later merges "
            "build on: repeat, recounting the pairs on the current ids, until no pair present "
            "has a merge.": _encode_one_step,
            _ENCODE_FIRST_MERGE_ONLY: _encode_first_merge_only,
            # every result the raw bytes although a learned pair occurs: the membership
            # test never holds (blind12j-bpe-encode-pairs-tested-against-values was located)
            "No merge was ever applied: your ids are the text's raw UTF-8 bytes, although "
            "learned pairs occur in it. Either your test of which pairs have a merge never "
            "holds (`pair in merges.values()`, the new ids, never a pair, or a lookup in an "
            "inverted dict where `pair in merges` belongs: the dict's keys are the pairs), "
            "or the merges are never applied (no loop over them, a loop that never runs, "
            "or merge_pair's result never assigned back to ids). Among the pairs present "
            "that are keys of merges, merge the earliest-learned merge (the smallest new "
            "id), and repeat.": lambda text, m: (
                list(text.encode("utf-8"))
                if ref.bpe_encode(text, m) != list(text.encode("utf-8"))
                else None
            ),
            "You applied each merge once, latest learned first (reversed(merges), or merges "
            "sorted by new id from the top): a later merge is built on the ids of the earlier "
            "ones, which do not exist yet when it is tried. Apply them earliest learned "
            "first (one pass in learned order works), or by rank in a loop.": (
                _encode_reversed_pass
            ),
            "You went through the merges once in learned order and stopped at the first one "
            "whose pair does not occur in the ids (a break where the loop should go on): "
            "every merge after it was left unapplied, although a later merge does not need "
            "that one (it builds on the bytes, or on other merges). A merge whose pair is "
            "absent changes nothing: skip it (continue) and try the next one; one pass in "
            "learned order, skipping the absent pairs, is the whole encoding.": (
                _encode_stops_at_absent_merge
            ),
            "The bytes of the characters outside ASCII are missing ('é' is two bytes in "
            "UTF-8, and yours has none): text.encode('ascii', errors='ignore') (or a filter "
            "on ord(ch) < 128) drops them. Start from every byte of the UTF-8 encoding, "
            "list(text.encode('utf-8')).": lambda text, m: (
                ref.bpe_encode("".join(ch for ch in text if ord(ch) < 128), m)
                if any(ord(ch) > 127 for ch in text)
                else None
            ),
            **{
                f"You normalised the text to {form} (unicodedata.normalize('{form}', text)) "
                f"before taking its bytes: {effect}, other bytes than the text's own, so "
                "accented text gets other ids and decoding them does not give the text back. "
                "BPE encodes the text exactly as given: list(text.encode('utf-8')).": (
                    lambda text, m, form=form: (
                        ref.bpe_encode(unicodedata.normalize(form, text), m)
                        if unicodedata.normalize(form, text) != text
                        else None
                    )
                )
                for form, effect in (
                    (
                        "NFD",
                        "an accented letter such as 'é' is decomposed into 'e' and a "
                        "combining accent (U+0301)",
                    ),
                    (
                        "NFKD",
                        "an accented letter such as 'é' is decomposed into 'e' and a "
                        "combining accent (U+0301), and compatibility characters are replaced",
                    ),
                    (
                        "NFC",
                        "letters written with a combining accent are composed into one character",
                    ),
                    (
                        "NFKC",
                        "compatibility characters (ligatures such as 'ﬁ', full-width "
                        "letters) are replaced by plain ones",
                    ),
                )
            },
            "You lower-cased the text: BPE encodes the bytes of the text as it is, and a "
            "capital is a byte of its own ('A' is 65, 'a' is 97). Lower-casing is a choice "
            "of the word tokenizer, not of bpe_encode: start from list(text.encode('utf-8')).": (
                lambda text, m: ref.bpe_encode(text.lower(), m)
            ),
            "You stripped the whitespace at the ends of the text (text.strip()): those spaces "
            "are bytes of the text too, and decoding must give them back. Start from "
            "list(text.encode('utf-8')), every byte included.": (
                lambda text, m: ref.bpe_encode(text.strip(), m)
            ),
            "You encoded each pre-tokenised chunk on its own (a word with the space before "
            "it, as GPT-2's tokenizer splits the text first): no merge was applied across two "
            "chunks, but these merges were learned on the whole text and some cross a space "
            "or a word boundary. bpe_encode applies the merges to the bytes of the whole "
            "text.": _encode_chunks,
            "You encoded each word on its own (the text split at its spaces, a space between "
            "two): no merge was applied across a space, but these merges were learned on the "
            "whole text and some contain a space. bpe_encode applies the merges to the bytes "
            "of the whole text.": _encode_words_spaces_kept,
            "You encoded each word on its own and dropped the whitespace (text.split()): the "
            "spaces are gone, and no merge was applied across a word boundary. bpe_encode "
            "applies the merges to the bytes of the whole text, spaces included.": (
                _encode_words_spaces_dropped
            ),
        }
        agreeing = {
            message: model
            for message, model in models.items()
            if all((value := model(text, m)) is None or value == got for text, m, _, got in runs)
        }
        if _ENCODE_FIRST_MERGE_ONLY in agreeing and any(
            _encode_first_merge_only(text, m) is not None for text, m, _, _ in runs
        ):
            # it agrees with one round of the replay wherever the earliest-learned merge
            # occurs, and its message quotes a text where it does not: named only when
            # that text gives what it says
            one_step = [m for m, model in agreeing.items() if model is _encode_one_step]
            if _first_merge_only_verdict(bpe_encode) == "first merge only":
                for message in one_step:
                    del agreeing[message]
            else:
                del agreeing[_ENCODE_FIRST_MERGE_ONLY]
        for index, (text, m, what, got) in enumerate(runs):
            _expect_not_accumulated(
                c,
                what,
                lambda text=text, m=m: bpe_encode(text, dict(m)),
                got,
                ref.bpe_encode(text, m),
            )
            if got != ref.bpe_encode(text, m):
                _expect_merges_read_each_call(c, bpe_encode, what, got, runs[:index], text)
            c.expect_equal(
                got,
                ref.bpe_encode(text, m),
                what,
                hint=lambda got=got, text=text, m=m: (
                    _replay_encoding(text, m, got)
                    or "Start from the UTF-8 bytes (list(text.encode('utf-8'))), then "
                    "repeatedly apply the earliest-learned merge that still occurs."
                ),
                mistakes={message: model(text, m) for message, model in agreeing.items()},
            )
        if pending is not None:
            raise pending


def _decode_per_token(ids, merges, errors="replace"):
    """What decoding each token's bytes on its own, then joining the strings, gives."""
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return "".join(table[i].decode("utf-8", errors=errors) for i in ids)


def _decode_parts_swapped(ids, merges):
    """Each merge's bytes built as table[b] + table[a]."""
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[b] + table[a]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


def _decode_ascii(ids, merges):
    """The joined bytes decoded as ASCII, errors replaced (None for ASCII text)."""
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    data = b"".join(table[i] for i in ids)
    return None if data.isascii() else data.decode("ascii", errors="replace")


def _decode_with_spaces(ids, merges):
    """The tokens' bytes joined with a space (b" ".join): a space between every two."""
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b" ".join(table[i] for i in ids).decode("utf-8", errors="replace")


def _decode_zero_bytes(ids, merges):
    """What building the table with bytes(i) gives: i zero bytes for the byte i."""
    table = {i: bytes(i) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


def _decode_bytes_as_chars(ids, merges):
    """What building the table from chr(byte) gives: one character per byte (Latin-1)."""
    table = {i: chr(i) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return "".join(table[i] for i in ids)


def _gpt2_byte_chars() -> dict[int, str]:
    """GPT-2's bytes_to_unicode: each printable byte stands for itself, every other byte
    (space, newline, control bytes) for a character from 256 on ('Ġ' for the space)."""
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    chars, extra = {b: chr(b) for b in printable}, 0
    for byte in range(256):
        if byte not in chars:
            chars[byte] = chr(256 + extra)
            extra += 1
    return chars


_GPT2_BYTE_CHARS = _gpt2_byte_chars()
#: a space, a character of two bytes and a newline: chr(byte) keeps the space and the
#: newline, GPT-2's stand-ins do not; both split 'é' into 'Ã©'
_BYTE_CHARS_PROBE = " é\n"


def _byte_chars_reading(bpe_decode) -> str | None:
    """How the learner's bpe_decode turns bytes into characters, from one call on
    :data:`_BYTE_CHARS_PROBE` with no merges: "chr" (one character per byte, chr(byte) or
    Latin-1), "gpt2" (GPT-2's printable stand-ins, never mapped back), None (neither, or
    it failed)."""
    data = _BYTE_CHARS_PROBE.encode("utf-8")
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            got = bpe_decode(list(data), {})
    except Exception:  # a probe: any failure is no verdict
        return None
    if got == "".join(chr(b) for b in data):
        return "chr"
    if got == "".join(_GPT2_BYTE_CHARS[b] for b in data):
        return "gpt2"
    return None


def _byte_char_models(ids, merges, reading: str | None) -> dict:
    """The byte-as-character mistake the probe call showed, with what it gives for ids."""
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    data = b"".join(table[i] for i in ids)
    if reading == "chr":
        return {
            "Each id stands for *bytes*, not characters: chr(byte) turns 'é' (two bytes) "
            "into 'Ã©'. Keep bytes in the table (bytes([i])), join them, and decode the "
            "result as UTF-8 once.": _decode_bytes_as_chars(ids, merges)
        }
    if reading == "gpt2":
        return {
            "Your text holds GPT-2's printable stand-ins for the bytes, never mapped back: "
            f"on bpe_decode(ids of {_BYTE_CHARS_PROBE!r}, {{}}) yours gives "
            f"{''.join(_GPT2_BYTE_CHARS[b] for b in _BYTE_CHARS_PROBE.encode())!r}, a space "
            "as 'Ġ', a newline as 'Ċ' and the two bytes of 'é' as 'Ã©'. GPT-2's "
            "byte-to-unicode table (bytes_to_unicode) only makes bytes printable for storing "
            "tokens; decoding joins the bytes themselves and decodes them as UTF-8 once, "
            "b''.join(table[i] for i in ids).decode('utf-8').": (
                "".join(_GPT2_BYTE_CHARS[b] for b in data)
            )
        }
    return {}


_ITEMS_INVERTED_HINT = (
    "merges maps each pair to its new id, {(a, b): new_id}, so merges.items() gives "
    "((a, b), new_id) items: the pair first, then the id. Unpacking them the other way "
    "round, `for new_id, (a, b) in merges.items()` (the {new_id: pair} direction), puts the "
    "pair in new_id and tries to unpack the int id into (a, b), which raises this; so does "
    "`for a, b in merges.values()` (the values are the ids; the pairs are the keys). An "
    "int was unpacked where a pair belongs: write `for (a, b), new_id in merges.items():`."
)

_DECODE_ONCE_HINT = (
    "Decode the joined bytes once at the end: decoding token by token breaks characters whose "
    "UTF-8 bytes ended up in different tokens."
)


_DECODE_ID_AS_BYTE_HINT = (
    "An id of 256 or more was turned into a single byte: ids from 256 up are merges, each "
    "standing for several bytes. Either a merge's table entry was built from its two ids "
    "(bytes([a, b])), although a and b may themselves be merges, or the ids were read as "
    "bytes directly (bytes(ids)). Expand through the table: table[new_id] = table[a] + "
    "table[b], in learned order, then join table[i] for every id."
)

#: bytes([256]), bytes(ids) or bytearray.append(256)
_BYTE_RANGE = re.compile(r"bytes? must be in range\(0, 256\)")

#: (ids, merges, text) of the calls that tell apart which ids were taken for bytes: no
#: merge; the first merge id, 256; a later merge, 257, whose parts are bytes
_ID_AS_BYTE_PROBES = {
    "bytes": ([104, 105], {}, "hi"),
    "first merge": ([256], {(104, 105): 256}, "hi"),
    "later merge": ([257], {(104, 105): 256, (33, 33): 257}, "!!"),
    # a merge listed before the merge it is built on: expanding the ids merge by merge in
    # the dict's order decodes it; a table built from bytes([a, b]) cannot (257 > 255)
    "built on a later merge": ([256], {(97, 257): 256, (98, 99): 257}, "abc"),
    # a merge whose first part only is a merge, then one whose second part only is: a
    # table built from bytes([a, b]) fails on both; a part kept as an id unexpanded
    # (expand(a) + [b], table[a] + bytes([b])) fails on one of them only
    "merge first": ([257], {(104, 105): 256, (256, 33): 257}, "hi!"),
    "merge second": ([257], {(104, 105): 256, (33, 256): 257}, "!hi"),
}


def _id_as_byte_outcome(bpe_decode, ids, merges, text) -> str:
    """'right', 'byte range' (bytes must be in range(0, 256)) or 'other' for one call."""
    try:
        got = bpe_decode(list(ids), dict(merges))
    except ValueError as error:
        return "byte range" if _BYTE_RANGE.search(str(error)) else "other"
    except Exception:
        return "other"
    return "right" if got == text else "other"


def _id_as_byte_hint(bpe_decode):
    """The hint for bytes([i]) with an id of 256 or more, from three more calls: the byte
    table itself past 255 (fails with no merge), 256 alone taken for a byte (i <= 256:
    the first merge id fails, a later one decodes), every merge id taken for a byte
    (bytes(ids): both fail), or only merges made of merges (bytes([a, b]): both decode);
    the candidates when the calls show none of these."""

    def hint(exc: BaseException) -> str:
        outcome = {
            name: _id_as_byte_outcome(bpe_decode, *call)
            for name, call in _ID_AS_BYTE_PROBES.items()
        }
        shown = {
            name: f"bpe_decode({ids}, {merges})"
            for name, (ids, merges, _) in _ID_AS_BYTE_PROBES.items()
        }
        if outcome["bytes"] == "byte range":
            return (
                f"{shown['bytes']}, with no merge at all, raises the same error: your table "
                "of single bytes goes past 255 (range(257), or a bound one too high). A byte "
                "holds 0..255: the 256 single bytes are range(256), and the merges, from 256 "
                "up, get their bytes from their parts, table[a] + table[b]."
            )
        if outcome["bytes"] != "right":
            return _DECODE_ID_AS_BYTE_HINT
        first, later = outcome["first merge"], outcome["later merge"]
        if first == "byte range" and later == "right":
            return (
                f"Id 256 was turned into a single byte: {shown['first merge']} raises the "
                f"same error, while {shown['later merge']} returns '!!', so the merges above "
                "256 are expanded and 256 alone is taken for a byte. Your test for a single "
                "byte is off by one (i <= 256, i < 257, i in range(257)): ids 0..255 are the "
                "bytes, and 256 is the first merge id. An id is a byte when i < 256."
            )
        if first == "byte range" and later == "byte range":
            return (
                f"Every merge id was turned into a single byte: {shown['first merge']} and "
                f"{shown['later merge']} raise the same error, although each merge's parts "
                "are bytes. The ids were read as bytes directly, without the table: "
                "bytes(ids), or bytes([i]) for every id (the default of table.get(i, "
                "bytes([i])) is computed for every id, even one the table holds). Ids from 256 "
                "up are merges, each standing for several bytes. Expand through the table: "
                "table[new_id] = table[a] + table[b], in learned order, then join table[i] for "
                "every id."
            )
        nested = (outcome["merge first"], outcome["merge second"])
        if first == "right" and later == "right" and "right" in nested and nested != ("right",) * 2:
            kept, expanded = ("second", "first") if nested[0] == "right" else ("first", "second")
            fails, works = (
                ("merge second", "merge first")
                if kept == "second"
                else ("merge first", "merge second")
            )
            part, other = ("b", "a") if kept == "second" else ("a", "b")
            return (
                f"A merge's {kept} part was never expanded: where it is itself a merge (an "
                f"id of 256 or more), that id was kept as it is and reached bytes(), which "
                f"needs values in 0..255. {shown[fails]} raises the same error, while "
                f"{shown[works]}, whose merged part comes {expanded}, returns "
                f"{_ID_AS_BYTE_PROBES[works][2]!r}. Only the {expanded} part was expanded "
                f"(recursion into {other} only, e.g. expand({other}) with {part} appended as "
                f"it is, or table[{other}] joined with bytes([{part}])). Expand both parts: "
                "table[new_id] = table[a] + table[b], in learned order (or recurse into a "
                "and into b)."
            )
        if first == "right" and later == "right" and outcome["built on a later merge"] == "right":
            return (
                "An id of 256 or more was left unexpanded: you undo the merges one by one, "
                "replacing each new_id by its pair, but walk them in the order they were "
                "learned. Undoing 256 first leaves unexpanded the 256s that undoing a later "
                "merge built on it, (256, x) -> 257, puts back, so they reach bytes(...). "
                f"{shown['built on a later merge']}, whose merge 256 is built on 257, listed "
                "after it, returns 'abc' with yours: the order decides. Undo the merges in "
                "reverse learned order (newest first), or build a table id -> bytes in "
                "learned order: table[new_id] = table[a] + table[b]."
            )
        if first == "right" and later == "right":
            return (
                "An id of 256 or more was turned into a single byte, but only where a merge's "
                f"parts are merges themselves: {shown['later merge']}, whose parts are "
                "bytes, decodes. A merge's table entry was built from its two ids "
                "(bytes([a, b])), which holds only while a and b are bytes. Build it from "
                "their bytes: table[new_id] = table[a] + table[b], in learned order."
            )
        return _DECODE_ID_AS_BYTE_HINT

    return hint


def _range_past_255(exc: BaseException) -> bool:
    """bytes([i]) failed on the line that builds the byte table over a range: the range
    goes past 255 (range(257), say)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_learner_frame(f.filename)]
    line = (frames[-1].line or "") if frames else ""
    return (
        "bytes must be in range(0, 256)" in str(exc)
        and re.search(r"range\(\s*25[7-9]|range\(\s*2[6-9]\d", line) is not None
    )


_DECODE_RANGE_HINT = (
    "The byte table's range goes past 255 (range(257) goes one too far): a byte holds "
    "0..255, so bytes([256]) fails. "
    "The 256 single bytes are range(256) (ids 0..255); the merges start at 256 and get "
    "their bytes from their parts, table[a] + table[b]."
)
_DECODE_BYTES_SUBTRACTED = (
    "Two bytes objects were subtracted: a merge's bytes are its two parts *joined*, "
    "table[a] + table[b] (+ concatenates bytes; - is not defined for them)."
)


def _decode_first_part_only(ids, merges, part: int):
    """Each merge's entry holds only one of its parts (table[a], or table[b])."""
    table = {i: bytes([i]) for i in range(256)}
    for pair, new_id in merges.items():
        table[new_id] = table[pair[part]]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


def _decode_one_part_twice(ids, merges, part: int):
    """Each merge's entry built from one of its parts twice (table[a] + table[a])."""
    table = {i: bytes([i]) for i in range(256)}
    for pair, new_id in merges.items():
        table[new_id] = table[pair[part]] + table[pair[part]]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


_UNSORTED_MERGES = {(98, 99): 256, (97, 256): 257}


def _decode_with_table_of(ids, merges) -> str | None:
    """The ids decoded with the table of other merges (None where it lacks one of them)."""
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    if not all(i in table for i in ids):
        return None
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")


def _missing_merge_hint(merges: dict):
    """A KeyError on a new id that this call's merges define: the table was not built from
    them, or not in their order. (matches, text) for ``c.call``."""
    new_ids = set(merges.values())

    def matches(exc: BaseException) -> bool:
        return isinstance(exc, KeyError) and bool(exc.args) and exc.args[0] in new_ids

    def text(exc: BaseException) -> str:
        return (
            f"Your table has no entry for {exc.args[0]}, although this call's merges define "
            "it: either the table was built from other merges (kept from an earlier call, in "
            "a dict default argument or a global filled once), or it was built in an order "
            "where a merge's part was not in it yet. Build the table inside the function at "
            "every call, walking merges in the order they were learned (each part is then "
            "already in it)."
        )

    return (matches, text)


def _missing_byte_hint(bpe_decode, merges: dict):
    """A KeyError on a single byte (an int 0..255): the table did not start with all 256
    bytes. Two probes tell which it lacks: the bytes the ids do not hold on their own (a
    table started from the ids' bytes: bpe_decode([97], {(98, 99): 256}) fails on 98), or
    the bytes past ASCII (range(128): bpe_decode([195, 169], {}), 'é', fails on 195).
    (matches, text) for ``c.call``."""

    def matches(exc: BaseException) -> bool:
        return _byte_key(exc) is not None

    def fails_on_a_byte(ids, probe_merges) -> bool:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                bpe_decode(list(ids), dict(probe_merges))
        except Exception as exc:  # the probe's own KeyError is the answer
            return _byte_key(exc) is not None
        return False

    def text(exc: BaseException) -> str:
        byte = exc.args[0]
        users = [(pair, new) for pair, new in merges.items() if byte in pair]
        from_ids = fails_on_a_byte([97], {(98, 99): 256})
        ascii_only = fails_on_a_byte([195, 169], {})
        if from_ids and not ascii_only:
            used = f" (merge {users[0][0]} -> {users[0][1]} is made of {byte})" if users else ""
            why = (
                "your table was started from the bytes that occur in ids: it lacks the bytes "
                "that only occur inside merged tokens"
                + used
                + ", and bpe_decode([97], {(98, 99): 256}) fails on 98 the same way"
            )
        elif ascii_only and not from_ids:
            why = (
                "your table holds fewer than the 256 single bytes: bpe_decode([195, 169], {}), "
                "the two bytes of 'é', fails on 195 too (range(128), the ASCII bytes only?)"
            )
        else:
            why = (
                "the table did not start with every single byte (it was started from the "
                "bytes in ids, or from fewer than 256, range(128) say)"
            )
        return (
            f"Your table has no entry for the byte {byte}: {why}. Start it with every single "
            "byte, {i: bytes([i]) for i in range(256)}, then add the merges in the order "
            "they were learned."
        )

    return (matches, text)


def _byte_key(exc: BaseException) -> int | None:
    """The key of a KeyError when it is a single byte's id (an int 0..255); None otherwise."""
    key = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
    if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < 256:
        return key
    return None


def _decode_bytes_only(ids, merges) -> str | None:
    """The text of the ids below 256 alone (the merged tokens left out), or None when
    every id is a byte."""
    if all(i < 256 for i in ids):
        return None
    return bytes(i for i in ids if i < 256).decode("utf-8", errors="replace")


def _stripped(text: str) -> dict:
    """{message: text} for each way of cutting the whitespace off text's ends that
    changes it (.strip(), .lstrip(), .rstrip())."""
    ends = {
        "strip": "both its ends (the leading and the trailing whitespace)",
        "lstrip": "its start (the leading whitespace)",
        "rstrip": "its end (the trailing whitespace)",
    }
    return {
        f"The whitespace at {where} is missing: your text was tidied with .{method}() (or a "
        f"cut of the spaces and newlines there), but they are bytes of the text like any "
        "other. Return the decoded text exactly as it is.": getattr(text, method)()
        for method, where in ends.items()
        if getattr(text, method)() != text
    }


#: ids of 'hi' followed by 195, the first of the two bytes of 'é' alone: not a whole
#: UTF-8 character, as when a model's output or a single token ends inside one
_CUT_CHARACTER_IDS = [104, 105, 195]


#: the text other ways of decoding bytes that are not valid UTF-8 give, and what each did
_OTHER_HANDLERS = {
    lambda data: data.decode("utf-8", errors="backslashreplace"): (
        "wrote the invalid byte as the escape '\\xc3', four characters: "
        "errors='backslashreplace' (handy to see bad bytes while debugging, but not the "
        "contract's text)."
    ),
    lambda data: data.decode("utf-8", errors="surrogateescape"): (
        "kept the invalid byte as the lone surrogate '\\udcc3': errors='surrogateescape', "
        "which round-trips bytes through str but is not printable text."
    ),
    lambda data: data.decode("latin-1"): (
        "decoded the bytes as Latin-1 or cp1252 (a fallback codec after a "
        "UnicodeDecodeError, or the wrong encoding), which maps every byte to a character: "
        "the byte 195 became 'Ã', a character the ids never stood for."
    ),
    lambda data: data.decode("utf-8", errors="replace").replace("\ufffd", "?"): (
        "marked the invalid byte with '?', not the replacement character: errors='replace' "
        "gives '\\ufffd' itself (a '?' is what *encoding* with errors='replace' writes), "
        "and a '?' cannot be told from a real question mark."
    ),
}


def _check_cut_character(c: Checker, bpe_decode, merges: dict) -> None:
    """Bytes that are not a whole UTF-8 character must become U+FFFD (errors="replace", as
    the lesson asks and the reference does). Fail where strict decoding raises
    UnicodeDecodeError (ids a model emits need not be valid UTF-8, and decoding them must
    not crash), and where another way of handling them is seen: the text of each other
    error handler (and of a fallback codec) is computed from the same bytes and named when
    the learner's text is it (:data:`_OTHER_HANDLERS`)."""
    ids = list(_CUT_CHARACTER_IDS)
    data = bytes(ids)  # every id is a byte: b"hi\xc3"
    try:
        got = bpe_decode(list(ids), dict(merges))
    except UnicodeDecodeError as exc:
        c.fail(
            f"calling `bpe_decode({ids}, merges)` raised UnicodeDecodeError: {exc}. The ids "
            "end with the byte 195, the first of the two bytes of 'é' alone: not valid "
            "UTF-8, which a model's output (or a token cut inside a character) can be. "
            "Your .decode('utf-8') is strict (errors='strict', the default) and raises on "
            "such bytes; decode must still return text: .decode('utf-8', errors='replace') "
            "turns each invalid byte sequence into the replacement character '\\ufffd' (�). "
            f"Expected {data.decode('utf-8', errors='replace')!r}."
        )
    except Exception:
        got = c.call(bpe_decode, list(ids), dict(merges))  # the usual message for it
    what = f"bpe_decode({ids}, merges)"
    expected = data.decode("utf-8", errors="replace")  # 'hi\ufffd'
    if got == data.decode("utf-8", errors="ignore"):
        c.fail(
            f"{what} returned {got!r}, expected {expected!r}. The ids end with the byte 195, "
            "the first of the two bytes of 'é' alone (a token, or a model's output, can end "
            "inside a character), and yours lost it without a trace: the bytes that are not "
            "a whole UTF-8 character were dropped, by errors='ignore' or by removing the "
            "replacement character '\\ufffd' after errors='replace' (.replace('\\ufffd', "
            "''), a filter). Keep a mark for them: .decode('utf-8', errors='replace') shows "
            "each as '\\ufffd' (U+FFFD, printed �), so the text still shows that something "
            "was there."
        )
    for reading, said in _OTHER_HANDLERS.items():
        if got != expected and got == reading(data):
            c.fail(
                f"{what} returned {got!r}, expected {expected!r}. The ids end with the "
                "byte 195, the first of the two bytes of 'é' alone (a token, or a "
                f"model's output, can end inside a character), and yours {said} The "
                "lesson asks for .decode('utf-8', errors='replace'): each byte sequence "
                "that is not valid UTF-8 becomes one replacement character '\\ufffd' "
                "(U+FFFD, printed �), the same mark whatever the bytes were."
            )
    if got == "":
        c.fail(
            f"{what} returned '', expected {expected!r}: the whole text vanished because "
            "its last byte, 195, is only the first of the two bytes of 'é' (a token, or a "
            "model's output, can end inside a character). An except that returns '' on a "
            "UnicodeDecodeError hides the text that did decode. Decode with "
            ".decode('utf-8', errors='replace'): each broken character shows as '\\ufffd' "
            "(U+FFFD, printed �) and the rest of the text stays."
        )


def _quiet_decode(bpe_decode, ids: list[int], merges: dict) -> str | None:
    """The learner's bpe_decode on a copy of ``ids`` and ``merges``, its output hidden;
    None when it raises or returns no str."""
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        got = bpe_decode(list(ids), dict(merges))
        return got if isinstance(got, str) else None
    return None


def _first_wrong_entry_hint(bpe_decode, merges: dict) -> str:
    """Replay the table one entry at a time: decode each merged id alone, in learned order,
    and name the first whose text is wrong while both of its parts decode right alone (only
    entries that are whole UTF-8 characters are compared). When a part is itself a merged
    id, the entry was built without that part's bytes: a one-level lookup of the pair, or a
    table built in another order than the merges were learned. "" when no entry is wrong."""
    for (a, b), new_id in merges.items():
        try:
            want = ref.bpe_decode([new_id], merges).encode("utf-8")
            parts = [ref.bpe_decode([part], merges) for part in (a, b)]
        except Exception:
            return ""
        if "\ufffd" in want.decode("utf-8") or any("\ufffd" in part for part in parts):
            continue  # half a character: the two conventions for it differ
        got = _quiet_decode(bpe_decode, [new_id], merges)
        if got == want.decode("utf-8"):
            continue
        mine = [_quiet_decode(bpe_decode, [part], merges) for part in (a, b)]
        if mine != parts:
            return ""  # a part is wrong as well: the first wrong entry is not this one
        said = (
            f"The first merged id that decodes wrong on its own is {new_id}, the merge of "
            f"{(a, b)}: bpe_decode([{new_id}], merges) gave {short(got)}, but its parts decode "
            f"right alone, [{a}] to {parts[0]!r} and [{b}] to {parts[1]!r}, so {new_id} "
            f"stands for {parts[0] + parts[1]!r}."
        )
        merged = [part for part in (a, b) if part >= 256]
        if not merged:
            return f"{said} Its entry must be table[a] + table[b], the bytes of both parts."
        return (
            f"{said} Its part {merged[0]} is itself a merged id, and your entry for "
            f"{new_id} does not hold that part's bytes: the table entry of a merge must be "
            "built from the entries of its parts, fully expanded. Either the pair was looked "
            "up one level only (a merged part kept as one byte, or an id taken modulo 256), or "
            "the table was built in another order than the merges were learned (sorted, or "
            "reversed), so the part's entry did not exist yet. Walk merges in learned order, "
            "table[new_id] = table[a] + table[b]."
        )
    return ""


def check_bpe_decode(bpe_decode, *, hidden: bool = False) -> None:
    """Check ``bpe_decode(ids, merges)`` on ids that ``bpe_encode`` produced (valid UTF-8),
    then on ids that end inside a character (errors="replace" asked: strict decoding
    raises there)."""
    with Checker("bpe_decode", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(bpe_decode)
        if hidden:
            merges = ref.train_bpe("the cat sat on the mat. café déjà 東京 東京", 15)
            cases = [(text, merges) for text in (*_HIDDEN_BPE_TEXTS, "東京 café")]
            cases.append(("xabcx", _UNSORTED_MERGES))
            cases.append(("  the mat \n", merges))  # whitespace at both ends is text too
        else:
            merges = ref.train_bpe(_CLASSIC, 3)
            cases = [(text, merges) for text in (_CLASSIC, "abcd")]
            # 'é' inside one token (merges learned on "héllo héllo"), then split over two:
            # decoding token by token is right on the first, a wrong codec on neither
            cases += [("héllo", ref.train_bpe("héllo héllo", 3)), ("héllo", merges)]
            # learned order is not sorted order: (97, 256) uses 256, learned before it
            cases.append(("abc", _UNSORTED_MERGES))
            # a text that starts with a space and ends with a newline: both are its bytes
            cases.append((" aaab \n", merges))
        earlier: dict | None = None  # the merges of the first call
        readings: list[str | None] = []

        def reading() -> str | None:  # one probe call, made only once a result is wrong
            if not readings:
                readings.append(_byte_chars_reading(bpe_decode))
            return readings[0]

        for text, merges in cases:
            earlier = merges if earlier is None else earlier
            ids = ref.bpe_encode(text, merges)
            what = f"bpe_decode({ids}, merges)"
            got = c.call(
                bpe_decode,
                list(ids),
                dict(merges),
                hints=[
                    ("cannot unpack non-iterable int object", _ITEMS_INVERTED_HINT),
                    ("can't decode byte", _DECODE_ONCE_HINT),
                    (
                        lambda exc: (
                            _BYTE_RANGE.search(str(exc)) is not None and not _range_past_255(exc)
                        ),
                        _id_as_byte_hint(bpe_decode),
                    ),
                    (_range_past_255, _DECODE_RANGE_HINT),
                    ("unsupported operand type(s) for -: 'bytes'", _DECODE_BYTES_SUBTRACTED),
                    _missing_merge_hint(merges),
                    _missing_byte_hint(bpe_decode, merges),
                    (
                        "'bytes' object cannot be interpreted as an integer",
                        "bytes([...]) takes byte values (ints), but it got bytes objects: "
                        "the table holds bytes, one entry per id, so bytes are joined, never "
                        "put in a list for bytes(): table[a] + table[b] for a merge, "
                        "b''.join(table[i] for i in ids) for the text, then decode once.",
                    ),
                ],
            )
            c.expect_type(got, str, what, "Return the decoded text as a str.")
            c.expect_equal(
                got,
                text,
                what,
                hint=lambda merges=merges: (
                    _first_wrong_entry_hint(bpe_decode, merges)
                    or "Build a table id -> bytes (0..255 are single bytes; each merge (a, b) -> "
                    "new_id is table[a] + table[b], in learned order), join the bytes, then "
                    ".decode('utf-8')."
                ),
                mistakes={
                    _DECODE_ONCE_HINT: _decode_per_token(ids, merges),
                    **{
                        f"{_DECODE_ONCE_HINT} (With errors='{errors}' the bytes of such a "
                        f"character are {effect} instead.)": _decode_per_token(ids, merges, errors)
                        for errors, effect in (
                            ("ignore", "dropped silently"),
                            ("backslashreplace", "written as escapes such as \\xc3"),
                        )
                    },
                    "Each merge's bytes are its first part twice, table[a] + table[a]: its "
                    "second part, b, is never used (a copy-paste slip). A merge (a, b) stands "
                    "for a's bytes followed by b's, table[a] + table[b].": (
                        _decode_one_part_twice(ids, merges, 0)
                    ),
                    "Each merge's bytes are its second part twice, table[b] + table[b]: its "
                    "first part, a, is never used (a copy-paste slip). A merge (a, b) stands "
                    "for a's bytes followed by b's, table[a] + table[b].": (
                        _decode_one_part_twice(ids, merges, 1)
                    ),
                    "Each merge's bytes hold only its first part: table[new_id] = table[a] "
                    "leaves b out (b is missing). A merge (a, b) stands for the bytes of both, "
                    "table[a] + "
                    "table[b].": _decode_first_part_only(ids, merges, 0),
                    "Each merge's bytes hold only its second part: table[new_id] = table[b] "
                    "leaves a out (a is missing). A merge (a, b) stands for the bytes of both, "
                    "table[a] + "
                    "table[b].": _decode_first_part_only(ids, merges, 1),
                    "The last id's bytes are missing: join the bytes of every id, the last "
                    "one included.": (ref.bpe_decode(ids[:-1], merges) if len(ids) > 1 else None),
                    "Each merge's bytes have its two parts in the wrong order, table[b] + "
                    "table[a]: a merge (a, b) stands for a's bytes followed by b's, table[a] + "
                    "table[b].": _decode_parts_swapped(ids, merges),
                    "A space came out between every two tokens: the tokens' bytes were joined "
                    "with a separator (b' '.join, or ' '.join of the decoded pieces). A token "
                    "is a piece of a word, not a word, and the spaces of the text are bytes "
                    "of its own tokens already: join with nothing, b''.join(...).": (
                        _decode_with_spaces(ids, merges)
                    ),
                    "Your text is made of zero bytes ('\\x00'): bytes(i) with an int makes i "
                    "zero bytes (bytes(3) == b'\\x00\\x00\\x00'). The single byte with "
                    "value i is bytes([i]).": _decode_zero_bytes(ids, merges),
                    "You turned the bytes into text with str(...), which writes their repr "
                    "(b'...'), not the text they encode: decode them, .decode('utf-8').": str(
                        ref.bpe_decode(ids, merges).encode("utf-8")
                    ),
                    "You decoded the bytes as ASCII: 'é' and every character outside ASCII "
                    "is more than one byte in UTF-8, which ASCII does not know. Decode the "
                    "joined bytes with .decode('utf-8').": _decode_ascii(ids, merges),
                    "Your text is what the table of your first call, with its merges "
                    f"{dict(list(earlier.items())[:3])}..., gives for these ids: the table "
                    "was built once and kept between calls (a dict default argument, or a "
                    "global filled on the first call), so these merges were never read. "
                    "Build the table inside the function, from the merges of each call.": (
                        _decode_with_table_of(ids, earlier) if earlier != merges else None
                    ),
                    "The merged tokens (ids 256 and up) came out as nothing: your text holds "
                    "only the ids that are single bytes. Your table has the 256 bytes but no "
                    "entry for a merge, or a test such as `if i < 256` skips the others: each "
                    "merge (a, b) -> new_id stands for table[a] + table[b], built in learned "
                    "order, and every id's bytes are joined.": (_decode_bytes_only(ids, merges)),
                    **_stripped(text),
                    **(_byte_char_models(ids, merges, reading()) if got != text else {}),
                },
            )
        # ids that end inside a character (bpe_encode never gives them, a model can)
        _check_cut_character(c, bpe_decode, earlier)
