"""The check of ``build_vocab``: the special tokens first, then the tokens by frequency
(ties alphabetical), and the ordering mistakes it names.
"""

from __future__ import annotations

from collections import Counter

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking.hints import two_mistakes
from transformer_course.reference import tokenization as ref

from .common import _random_token_lists


def _vocab_after(ranked, min_freq):
    vocab = {token: index for index, token in enumerate(ref.SPECIAL_TOKENS)}
    for token, count in ranked:
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab


def _vocab_first_seen(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    return _vocab_after(counts.most_common(), min_freq)  # ties in order of first appearance


def _vocab_top_min_freq(token_lists, min_freq=1):
    """The min_freq most frequent tokens (Counter.most_common(min_freq)), in the ranked
    order (None when that is the right vocabulary, or when a tie at the cut makes which
    tokens are the top ones depend on the tie rule)."""
    counts = Counter(t for tokens in token_lists for t in tokens)
    ranked = counts.most_common()
    if len(ranked) > min_freq and ranked[min_freq - 1][1] == ranked[min_freq][1]:
        return None
    top = dict(ranked[:min_freq])
    vocab = _vocab_after(sorted(top.items(), key=lambda item: (-item[1], item[0])), 1)
    return None if vocab == ref.build_vocab(token_lists, min_freq) else vocab


def _vocab_ascending(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    return _vocab_after(sorted(counts.items(), key=lambda item: (item[1], item[0])), min_freq)


def _vocab_in_order_seen(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    return _vocab_after(counts.items(), min_freq)  # Counter keeps first-appearance order


def _vocab_ties_reversed(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    ranked = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    return _vocab_after(ranked, min_freq)


def _vocab_alphabetical(token_lists, min_freq=1):
    counts = Counter(t for tokens in token_lists for t in tokens)
    return _vocab_after(sorted(counts.items()), min_freq)


def _vocab_once_per_list(token_lists, min_freq=1):
    """Counts each token once per token list (set(tokens)): None where no list repeats
    a token (it cannot show there)."""
    if all(len(set(tokens)) == len(tokens) for tokens in token_lists):
        return None
    counts = Counter(t for tokens in token_lists for t in set(tokens))
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return _vocab_after(ordered, min_freq)


def _vocab_min_freq_per_list(token_lists, min_freq=1, order_by_total=False):
    """min_freq applied to each token list's own counts (Counter(tokens) per list): a token
    is kept if some list holds it min_freq times, ranked by the counts of those lists (or,
    ``order_by_total``, by its count over all lists). None where that gives the right
    vocabulary."""
    kept = Counter()
    for tokens in token_lists:
        for token, count in Counter(tokens).items():
            if count >= min_freq:
                kept[token] += count
    if order_by_total:
        total = Counter(t for tokens in token_lists for t in tokens)
        kept = Counter({token: total[token] for token in kept})
    vocab = _vocab_after(sorted(kept.items(), key=lambda item: (-item[1], item[0])), 1)
    return None if vocab == ref.build_vocab(token_lists, min_freq) else vocab


def _vocab_stops_at_special(token_lists, min_freq):
    """The loop over the ranked tokens ends at the first data token that is also a special
    token (break where continue was meant): the reference wherever the data holds none."""
    counts = Counter(t for tokens in token_lists for t in tokens)
    vocab = {token: index for index, token in enumerate(ref.SPECIAL_TOKENS)}
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if token in vocab:
            break
        if count >= min_freq:
            vocab[token] = len(vocab)
    return vocab


_VOCAB_STOPS_AT_SPECIAL = (
    "Your vocabulary stops at the first data token that is also a special token (this "
    "data holds one): every token ranked after it is missing, however often it occurs. "
    "That token is to be skipped, since it keeps its special id, but your loop ends there: "
    "a break where continue was meant. Skip it with continue (or add a token only if it is "
    "not in the vocabulary yet, token not in vocab), so that the loop goes on to the next "
    "token."
)


def _cut_short_of(got, expected: dict) -> bool:
    """Whether ``got`` is ``expected`` or its first entries in id order, nothing else."""
    if not isinstance(got, dict) or len(got) > len(expected):
        return False
    return dict(got) == {token: i for token, i in expected.items() if i < len(got)}


def _stopped_early_hint(got, token_lists, min_freq, others=()) -> str:
    """When ``got`` is the expected vocabulary cut short (its first entries, in id order,
    and nothing else): where it stops and the candidates that end a loop early; "" when it
    is anything else, or when one of ``others`` (the learner's (result, (token_lists,
    min_freq)) on the check's other inputs) is wrong in another way than a cut (then no
    loop that ends early explains them all: counts taken once per list, say, can drop a
    token that ranks last on one input and reorder the tokens on another)."""
    expected = ref.build_vocab(token_lists, min_freq)
    if not isinstance(got, dict) or not len(ref.SPECIAL_TOKENS) <= len(got) < len(expected):
        return ""
    if not _cut_short_of(got, expected):
        return ""
    if not all(_cut_short_of(mine, ref.build_vocab(*case)) for mine, case in others):
        return ""
    counts = Counter(t for tokens in token_lists for t in tokens)
    by_id = sorted(expected, key=expected.get)
    last_kept, first_missing = by_id[len(got) - 1], by_id[len(got)]
    later = len(expected) - len(got) - 1
    # the data's tokens the loop met between the last one it added and the first missing
    ranked = [t for t, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
    start = ranked.index(last_kept) + 1 if len(got) > len(ref.SPECIAL_TOKENS) else 0
    met = [t for t in ranked[start : ranked.index(first_missing)] if t in ref.SPECIAL_TOKENS]
    where = (
        f", right where the data's {met[0]!r}, a special token that keeps its special id, "
        "comes in the ranked order"
        if met
        else ""
    )
    strict = ", a strict bound (count > min_freq)" if counts[first_missing] == min_freq else ""
    return (
        f"Your vocabulary is the expected one cut short: it stops after {last_kept!r} (id "
        f"{expected[last_kept]}){where}. {first_missing!r}, seen {counts[first_missing]} "
        f"time(s) with min_freq={min_freq}, is missing"
        + (f", and so are the {later} token(s) ranked after it" if later else "")
        + ". The loop over the ranked tokens ended early: a break where continue was meant, "
        f"a return inside the loop (indented one level too deep){strict}, or another stop "
        "test that fires too soon. Go through every token, and skip (continue) only the ones "
        "that do not belong."
    )


_VOCAB_ORDER_HINT = (
    "After the specials: tokens seen at least min_freq times, most frequent first, ties in "
    "alphabetical order."
)


_VOCAB_STRICT = (
    "A token seen exactly min_freq times belongs in the vocabulary (count >= min_freq, not >)."
)


_VOCAB_IGNORED = "min_freq was ignored: drop tokens seen fewer than min_freq times."


#: {why the left-out tokens are missing: the test that kept the others}: a vocabulary
#: built from the tokens of one kind only (blind19a-vocab-word-tokens-only kept
#: token.isalnum() ones), every token of the other kinds left to become <unk>
_TOKEN_KINDS_KEPT = {
    "Your vocabulary leaves out every token that is not made of letters and digits: the "
    "punctuation marks ('.', ',', ...) are missing, however often they occur, as a test "
    "such as token.isalnum() (or re.fullmatch(r'\\w+', token)) leaves them out. A mark "
    "is a token like any other, and one missing from the vocabulary is encoded as <unk> "
    "wherever it occurs: keep every token seen at least min_freq times, whatever its "
    "characters.": str.isalnum,
    "Your vocabulary leaves out every token that is not made of letters only: the numbers "
    "and the punctuation marks are missing, however often they occur, as a test such as "
    "token.isalpha() leaves them out. They are tokens like any other, and one missing from "
    "the vocabulary is encoded as <unk> wherever it occurs: keep every token seen at least "
    "min_freq times, whatever its characters.": str.isalpha,
    "Your vocabulary leaves out every token of one character (len(token) > 1, or a "
    "test that skips short tokens): '.', ',', 'a' and every other single character are "
    "missing, however often they occur, and would be encoded as <unk>. Keep every token "
    "seen at least min_freq times, whatever its length.": lambda token: len(token) > 1,
}


def _vocab_kinds_kept(token_lists, min_freq) -> dict:
    """{diagnosis: the vocabulary of the tokens of one kind only} for each kind whose
    test leaves out a token the right vocabulary holds (None otherwise)."""
    expected = ref.build_vocab(token_lists, min_freq)
    out = {}
    for message, keeps in _TOKEN_KINDS_KEPT.items():
        model = ref.build_vocab(
            [[t for t in tokens if keeps(t)] for tokens in token_lists], min_freq
        )
        out[message] = None if model == expected else model
    return out


def _vocab_mistakes(token_lists, min_freq) -> dict:
    """{diagnosis: the vocabulary that mistake builds (None where it cannot show)}, then
    each ordering or counting mistake together with a strict min_freq, or with min_freq
    ignored (two at once; with min_freq=1, where ignoring it changes nothing, the second
    mistake alone)."""
    single = _vocab_single_mistakes(token_lists, min_freq)
    strict_too = _vocab_single_mistakes(token_lists, min_freq + 1)
    ignored_too = _vocab_single_mistakes(token_lists, 1)
    cased = any(t != t.lower() for tokens in token_lists for t in tokens)
    return {
        "You lower-cased the tokens while counting: build_vocab counts each token exactly "
        "as it is given ('Cat' and 'cat' are two tokens here). Normalising the text is "
        "tokenize's job; a vocabulary built from other tokens must keep their case.": (
            ref.build_vocab([[t.lower() for t in tokens] for tokens in token_lists], min_freq)
            if cased
            else None
        ),
        "You kept only the min_freq most frequent tokens: Counter.most_common(min_freq) "
        "returns the top min_freq (token, count) pairs (with min_freq=1, a single token), "
        "not the tokens seen at least min_freq times. Go over every count (counts.items(), "
        "or most_common() with no argument) and keep a token when count >= min_freq.": (
            _vocab_top_min_freq(token_lists, min_freq)
        ),
        **single,
        **_vocab_kinds_kept(token_lists, min_freq),
        **{
            two_mistakes(_VOCAB_STRICT, message): value
            for message, value in strict_too.items()
            if message not in (_VOCAB_STRICT, _VOCAB_IGNORED)
        },
        **{
            two_mistakes(_VOCAB_IGNORED, message): value
            for message, value in ignored_too.items()
            if message not in (_VOCAB_STRICT, _VOCAB_IGNORED)
        },
    }


def _vocab_single_mistakes(token_lists, min_freq) -> dict:
    return {
        "Ties must be broken alphabetically; yours keep the order of first appearance "
        "(Counter.most_common does that).": _vocab_first_seen(token_lists, min_freq),
        "Your ids follow the order in which the tokens first appear (as a dict filled "
        "while reading the data does): sort them by descending count first, ties "
        "alphabetical.": _vocab_in_order_seen(token_lists, min_freq),
        "Most frequent tokens come first: sort by descending count, and use the alphabet "
        "only to break ties.": _vocab_ascending(token_lists, min_freq),
        "Order by frequency first (descending) and use the alphabet only to break ties.": (
            _vocab_alphabetical(token_lists, min_freq)
        ),
        "Ties come in reverse alphabetical order: sorting by (count, token) with "
        "reverse=True reverses the tie-break too. Sort by (-count, token) without "
        "reverse: key=lambda item: (-item[1], item[0]).": _vocab_ties_reversed(
            token_lists, min_freq
        ),
        "Your order is the right one reversed: least frequent first, ties in reverse "
        "alphabetical order. The key (-count, token) already puts large counts first: sort "
        "with it and without reverse=True.": _vocab_after(
            sorted(
                Counter(t for tokens in token_lists for t in tokens).items(),
                key=lambda item: (-item[1], item[0]),
                reverse=True,
            ),
            min_freq,
        ),
        _VOCAB_STRICT: ref.build_vocab(token_lists, min_freq + 1),
        _VOCAB_STOPS_AT_SPECIAL: _vocab_stops_at_special(token_lists, min_freq),
        "Your counts take each token once per token list (as set(tokens) does): count "
        "every occurrence, so a token repeated within one list counts each time.": (
            _vocab_once_per_list(token_lists, min_freq)
        ),
        _VOCAB_IGNORED: ref.build_vocab(token_lists, 1) if min_freq > 1 else None,
        "You applied min_freq to each token list's own counts, one sentence at a time (a "
        "Counter per list, Counter(tokens), tested against min_freq): a token that occurs "
        "once in each of several sentences never reaches a min_freq of 2 or more there. "
        "Count over all the lists (the whole corpus) first, "
        "then keep the tokens whose total count is at least min_freq.": (
            _vocab_min_freq_per_list(token_lists, min_freq) if min_freq > 1 else None
        ),
        "You kept only the tokens that some token list holds min_freq times on its own (a "
        "Counter per list, Counter(tokens), tested against min_freq), then ranked them by "
        "their total counts: a token that occurs once in each of several lists never "
        "qualifies. Keep the tokens whose count over all the lists is at least min_freq.": (
            _vocab_min_freq_per_list(token_lists, min_freq, order_by_total=True)
            if min_freq > 1
            and _vocab_min_freq_per_list(token_lists, min_freq, order_by_total=True)
            != _vocab_min_freq_per_list(token_lists, min_freq)
            else None  # the same cause: named once where the two orders agree
        ),
        "Every token was counted once, however often it occurs: your counts come from a set "
        "of the tokens (Counter(set(...)), or a membership test before counting), so every "
        "count is 1, the order is alphabetical, and a min_freq above 1 drops every token. "
        "Count every occurrence: Counter(t for tokens in token_lists for t in tokens).": (
            _vocab_after(
                sorted(Counter({t for tokens in token_lists for t in tokens}).items()), min_freq
            )
        ),
        "Tokens seen min_freq - 1 times were kept: your bound is one too low (count >= "
        "min_freq - 1, or count > min_freq - 2). Keep a token when count >= min_freq.": (
            ref.build_vocab(token_lists, min_freq - 1) if min_freq > 1 else None
        ),
        "Only the last token list was counted: your counts start over for every list (a "
        "Counter created inside the loop, counts = Counter(tokens), replaces the one "
        "before). Create the counts once, before the loop, and add every list to them "
        "(counts.update(tokens)), or count all lists in one go.": (
            ref.build_vocab(token_lists[-1:], min_freq) if len(token_lists) > 1 else None
        ),
        "Only the first token list was counted: the loop over the lists ends after the "
        "first one (a return or break inside it). Count every list, then build the "
        "vocabulary after the loop.": (
            ref.build_vocab(token_lists[:1], min_freq) if len(token_lists) > 1 else None
        ),
    }


def _expect_no_state_between_calls(c, build_vocab, got, token_lists, min_freq, what) -> None:
    """Tokens that are not in this call's data: kept from an earlier call (a dict that
    outlives the call) if a probe call's token then shows up in a repeat of this call."""
    seen = {t for tokens in token_lists for t in tokens} | set(ref.SPECIAL_TOKENS)
    foreign = [t for t in got if t not in seen]
    if not foreign:
        return
    probe = "<probe-token>"
    c.call(build_vocab, [[probe]], min_freq=1, call_repr=f"build_vocab([[{probe!r}]])")
    again = c.call(build_vocab, [list(t) for t in token_lists], min_freq=min_freq)
    shown = ", ".join(repr(t) for t in foreign[:5]) + (", ..." if len(foreign) > 5 else "")
    if isinstance(again, dict) and probe in again:
        c.fail(
            f"{what} returned tokens that are not in its input ({shown}), and after a call "
            f"build_vocab([[{probe!r}]]) the same call returns {probe!r} too: your vocabulary "
            "keeps the tokens of earlier calls. The dict you add to outlives the call (a "
            "module-level dict of the specials, or a default argument, updated without a "
            "copy). Start every call from a new dict: "
            "{token: i for i, token in enumerate(SPECIAL_TOKENS)}, or dict(...) / .copy()."
        )
    words = {t for tokens in token_lists for t in tokens} - set(ref.SPECIAL_TOKENS)
    characters = {ch for t in words for ch in t}
    if all(len(t) == 1 and t in characters for t in foreign) and not any(
        t in got for t in words if len(t) > 1
    ):
        c.fail(
            f"{what} returned single characters of the tokens ({shown}) and none of the "
            "tokens longer than one character: your counting split each token into its "
            "characters (Counter.update(token), Counter(token) or a loop over a token goes "
            "through a string's characters). Count whole tokens: counts.update(tokens) with "
            "a sentence's list, or Counter(t for tokens in token_lists for t in tokens)."
        )
    c.fail(
        f"{what} returned tokens that are not in its input: {shown}. The vocabulary holds "
        "the four special tokens and the tokens of token_lists, nothing else."
    )


_LIST_AS_KEY_HINT = (
    "A list was used as a dict key or counted as one item (Counter(token_lists) counts the "
    "token lists themselves): token_lists holds lists of tokens. Count the tokens inside "
    "them: Counter(t for tokens in token_lists for t in tokens), or counts.update(tokens) "
    "for each list."
)


def _is_id(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_SET_ORDER = (
    "a set ({'<pad>', '<unk>', ...}, or set(SPECIAL_TOKENS)), whose order follows the "
    "strings' hashes, not the order written, and changes from one Python run to the next"
)


def _specials_order_hint(got: dict) -> str:
    """When the special tokens have the ids 0-3 but in another order: which ones are
    exchanged, and the causes the order tells apart: sorted() (alphabetical order), a
    list written in this order or a set, whose order one run cannot tell from a list's
    ("" otherwise)."""
    ids = {t: got.get(t) for t in ref.SPECIAL_TOKENS}
    right = {t: i for i, t in enumerate(ref.SPECIAL_TOKENS)}
    if sorted(map(str, ids.values())) != ["0", "1", "2", "3"] or ids == right:
        return ""
    order = sorted(ids, key=lambda t: ids[t])
    listed = ", ".join(f"{t}={ids[t]}" for t in order)
    if order == sorted(ref.SPECIAL_TOKENS):
        return (
            f"Your special tokens have the ids 0-3 in alphabetical order ({listed}): they "
            "went through sorted() (or a sorted set of them) before they were numbered (a "
            "set, unsorted, gives this order too, by chance). Number them from the list "
            "SPECIAL_TOKENS as it is. "
        )
    wrong = [t for t in ref.SPECIAL_TOKENS if ids[t] != right[t]]
    swapped = f": {wrong[0]} and {wrong[1]} are swapped" if len(wrong) == 2 else ""
    torchtext = (
        " (torchtext's old vocabularies put <unk> first)"
        if ids["<unk>"] == 0 and ids["<pad>"] == 1
        else ""
    )
    return (
        f"Your special tokens have the ids 0-3 in another order ({listed}){swapped}. Either "
        f"you listed them in this order{torchtext}, or you numbered them from {_SET_ORDER}: "
        "number them from the list SPECIAL_TOKENS, whose order is fixed. "
    )


def _zero_count_specials_hint(got, token_lists, min_freq, cases, results) -> str:
    """When the special tokens lost their ids only where min_freq <= 0 lets a count of 0
    through: every call with min_freq >= 1 right, and here each special token's id after
    every data token's. Only a special token left in the counts with count 0 passes that
    test and comes back after the words, counted ones all ranked before it ("" otherwise)."""
    if min_freq > 0 or not isinstance(got, dict):
        return ""
    others = [(case, r) for case, r in zip(cases, results) if case[1] > 0]
    if not others or any(
        not isinstance(r, dict) or dict(r) != ref.build_vocab(*case) for case, r in others
    ):
        return ""
    specials = [got.get(t) for t in ref.SPECIAL_TOKENS]
    data = [i for t, i in got.items() if t not in ref.SPECIAL_TOKENS]
    if not all(_is_id(i) for i in specials + data) or not data:
        return ""
    if min(specials) <= max(data) or specials == list(range(4)):
        return ""
    shown = ", ".join(f"{t}={got[t]}" for t in ref.SPECIAL_TOKENS)
    return (
        f"With min_freq={min_freq} your special tokens come back after every data token "
        f"({shown}), while every call with min_freq >= 1 is right: they are still in your "
        "counts with count 0 (Counter.subtract, or counts[token] = 0, leaves the key in "
        f"place instead of deleting it), a count of 0 passes count >= {min_freq}, and they "
        "are added again with new ids. Delete them from the counts (del counts[token], or "
        "counts.pop(token, None)), or skip a token that is already in the vocabulary. "
    )


def _expect_min_freq_default(c, build_vocab) -> None:
    """build_vocab(token_lists) without min_freq: the contract's default is 1. A default
    of k > 1 is named when the result is the vocabulary of min_freq = k."""
    token_lists = [["a", "a", "a", "b", "b", "c"]]
    what = f"build_vocab({token_lists!r}) (min_freq left to its default)"
    got = c.call(
        build_vocab,
        [list(t) for t in token_lists],
        hints=[
            (
                "missing 1 required positional argument: 'min_freq'",
                "min_freq has no default in your signature: the contract's is 1, "
                "def build_vocab(token_lists, min_freq=1).",
            )
        ],
    )
    c.expect_type(got, dict, what, "Return a dict mapping each token to its id.")
    defaults = {
        k: ref.build_vocab(token_lists, k)
        for k in (0, 2, 3, 4)
        if ref.build_vocab(token_lists, k) != ref.build_vocab(token_lists, 1)
    }
    c.expect_equal(
        dict(got),
        ref.build_vocab(token_lists, 1),
        what,
        hint="Called without min_freq, build_vocab keeps every token: the default is min_freq=1.",
        mistakes={
            f"Your default for min_freq is not 1: called without it, yours keeps only the "
            f"tokens seen at least {k} times (min_freq={k}"
            + (", one more than 1" if k == 2 else ", one less than 1" if k == 0 else "")
            + "). The contract's default is 1, def build_vocab(token_lists, min_freq=1).": value
            for k, value in defaults.items()
        },
    )


def _same_id_hint(got) -> str:
    """When every data token (two or more) got one and the same id: the next id never
    advanced; "" otherwise."""
    data_ids = [i for token, i in got.items() if token not in ref.SPECIAL_TOKENS]
    if len(data_ids) < 2 or len(set(data_ids)) != 1:
        return ""
    return (
        f"Every data token got the same id, {data_ids[0]}: your next id never advances (it "
        "is taken once, next_id = len(vocab) before the loop, and never incremented, or it "
        f"is a fixed number such as len(SPECIAL_TOKENS)), so all {len(data_ids)} data tokens "
        "share it. Give each new token the next free id: "
        "vocab[token] = len(vocab) inside the loop (or next_id += 1 after each one). "
    )


def check_build_vocab(build_vocab, *, hidden: bool = False) -> None:
    """Check ``build_vocab(token_lists, min_freq)``; any dict (a Counter, an OrderedDict)
    is accepted, its key order is not compared."""
    with Checker("build_vocab", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(build_vocab)
        if hidden:
            cases = [(_random_token_lists(seed), m) for seed, m in ((11, 1), (12, 2), (13, 3))]
            cases.append(([["<unk>", "cat", "cat"], ["<pad>", "dog"]], 1))
            cases.append(([], 1))
            cases.append(([["The", "cat", "the"], ["Cat", "THE"]], 1))  # counted as given
            cases.append(([["a", "dog", "!", "!"], ["the", "7", "dogs", "?"]], 1))  # marks too
            cases.append(([["b", "<eos>", "a", "b"], ["c"]], 0))  # min_freq=0 keeps every token
        else:
            cases = [
                ([["the", "cat", "sat"], ["the", "dog", "sat"], ["the", "end"]], 1),
                ([["b", "a", "b"], ["a", "c"], ["d"]], 2),
                # Some corpora already contain "<unk>" (the Penn Treebank's text does).
                ([["the", "<unk>", "cat"], ["the", "<unk>", "sat"]], 1),
                # ties above min_freq + 1, first seen in neither alphabetical order: a strict
                # min_freq and each tie rule tell apart
                ([["c", "b", "a", "e", "b", "c", "a", "e", "b", "d"]], 1),
                # min_freq=3 keeps "a" only: min_freq ignored keeps all three, a bound one
                # too low keeps "b" too, a strict bound keeps nothing
                ([["a", "a", "b", "a", "b", "c"]], 3),
                # capitals: a token is counted exactly as given ('Cat' is not 'cat')
                ([["The", "cat", "the", "Cat", "cat"]], 1),
                # marks and a number are tokens too: a vocabulary of words only leaves
                # them out (isalnum keeps '2', isalpha does not; both keep 'a')
                ([["the", "cat", "sat", "."], ["2", "cats", ",", "a", "cat", "."]], 1),
                # min_freq=0 keeps every token seen, as 1 does: a special token left in the
                # counts with count 0 passes count >= 0 and comes back after the words
                ([["the", "cat", "the"], ["a", "dog"]], 0),
            ]
        # Every call first (a call that raises ends the list): a known ordering mistake
        # is named only if it agrees with every result collected, not just the wrong one.
        results, pending = [], None
        for token_lists, min_freq in cases:
            try:
                results.append(
                    c.call(
                        build_vocab,
                        [list(t) for t in token_lists],
                        min_freq=min_freq,
                        hints=[("unhashable type: 'list'", _LIST_AS_KEY_HINT)],
                    )
                )
            except CheckFailure as failure:
                pending = failure
                break
        agreeing = {
            message
            for message in _vocab_mistakes(*cases[0])
            if all(
                isinstance(got, dict)
                and ((value := _vocab_mistakes(*case)[message]) is None or dict(got) == value)
                for case, got in zip(cases, results)
            )
        }
        for (token_lists, min_freq), got in zip(cases, results):
            what = f"build_vocab({token_lists!r}, min_freq={min_freq})"
            c.expect_type(got, dict, what, "Return a dict mapping each token to its id.")
            c.expect_true(
                not got or not all(_is_id(k) and isinstance(v, str) for k, v in got.items()),
                f"{what} returned a dict from ids to tokens, "
                f"{dict(list(got.items())[:5])}...: the mapping the other way round. "
                "build_vocab maps each token to its id, {token: id} ({'<pad>': 0, '<unk>': "
                "1, ...}); an {id: token} table is what decode builds from it.",
            )
            expected = ref.build_vocab(token_lists, min_freq)
            in_data = sorted(
                {t for tokens in token_lists for t in tokens} & set(ref.SPECIAL_TOKENS)
            )
            c.expect_equal(
                {t: got.get(t) for t in ref.SPECIAL_TOKENS},
                {t: i for i, t in enumerate(ref.SPECIAL_TOKENS)},
                f"the special tokens in {what}",
                hint=_zero_count_specials_hint(got, token_lists, min_freq, cases, results)
                + _specials_order_hint(got)
                + "They come first, in this order: <pad>=0, <unk>=1, <bos>=2, <eos>=3, "
                "whatever the data contains."
                + (
                    f" The data contains {', '.join(in_data)}: a data token that is also a "
                    "special token keeps its special id (skip it when you add the data tokens)."
                    if in_data
                    else ""
                ),
            )
            c.expect_equal(
                sorted(got.values()),
                list(range(len(got))),
                f"the ids of {what}",
                hint=lambda got=got: (
                    _same_id_hint(got)
                    + "Ids must be 0, 1, 2, ... with no gaps or repeats (use len(vocab) as the next "
                    "id, and skip a token that is already in the vocabulary without using up an id)."
                ),
            )
            _expect_no_state_between_calls(c, build_vocab, got, token_lists, min_freq, what)
            c.expect_equal(
                dict(got),
                expected,
                what,
                hint=lambda got=got, token_lists=token_lists, min_freq=min_freq: (
                    _stopped_early_hint(
                        got, token_lists, min_freq, list(zip(results, cases, strict=False))
                    )
                    or _VOCAB_ORDER_HINT
                ),
                mistakes={
                    message: value
                    for message, value in _vocab_mistakes(token_lists, min_freq).items()
                    if message in agreeing
                },
            )
        if pending is not None:
            raise pending
        _expect_min_freq_default(c, build_vocab)
