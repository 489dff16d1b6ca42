"""The checks of ``encode`` and ``decode``: tokens to ids through the vocabulary (``<unk>``
for unknown tokens) and back.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections import Counter
from itertools import combinations

import numpy as np

from transformer_course.checking import Checker, CheckFailure, numpy_rng, short
from transformer_course.reference import tokenization as ref

from .common import _expect_not_accumulated, _ids, _random_token_lists, _tokens

# ----------------------------------------------------------------------------- encode
_VOCAB = ref.build_vocab([["the", "cat", "drank", "the", "milk", "."]])

# A vocabulary whose words keep their capitals (build_vocab keeps what it is given; the
# specials keep their fixed ids): encode looks every token up as it is.
_CASED = (
    ref.build_vocab([["the", "cat", "drank", "in", "Paris", "."], ["Paris", "."]]),
    ["the", "cat", "drank", "milk", "in", "Paris", ".", "<pad>"],
)
_CASED_HIDDEN = (
    ref.build_vocab([["a", "dog", "in", "London"], ["London", "a", "dog", "a"]]),
    ["a", "dog", "<pad>", "in", "London", "a", "yak"],
)


def _align_unknown_spans(tokens, vocab, got) -> list[list[int]] | None:
    """The ids each unknown token of ``tokens`` became in ``got``, when every known token
    kept exactly its own id, in order, and only the unknown ones took another number of ids
    (none, or several): one list of ids per unknown token, in order; None when no such
    alignment exists (the first one found, from the longest spans)."""
    got = list(got)
    dead_ends: set[tuple[int, int]] = set()  # (token, start) pairs that cannot finish

    def spans(k: int, start: int) -> list[list[int]] | None:
        if (k, start) in dead_ends:
            return None
        found = finish(k, start)
        if found is None:
            dead_ends.add((k, start))
        return found

    def finish(k: int, start: int) -> list[list[int]] | None:
        if k == len(tokens):
            return [] if start == len(got) else None
        token = tokens[k]
        if token in vocab:
            if start < len(got) and got[start] == vocab[token]:
                return spans(k + 1, start + 1)
            return None
        for end in range(len(got), start - 1, -1):
            rest = spans(k + 1, end)
            if rest is not None:
                return [got[start:end], *rest]
        return None

    if len(got) > 4 * len(tokens) + 64:
        return None  # far too long to align cheaply: no diagnosis
    return spans(0, 0)


def _unknown_token_spans_hint(tokens, vocab, got) -> str:
    """Every known token right and the unknown ones turned into several ids (or none): say
    what each unknown token became, and name character fallback when each unknown token's
    ids are those of its characters; "" otherwise."""
    if len(got) == len(tokens):
        return ""
    unknown = [t for t in tokens if t not in vocab]
    aligned = _align_unknown_spans(tokens, vocab, got) if unknown else None
    if not aligned:
        return ""
    unk = vocab["<unk>"]
    shown = "; ".join(
        f"{token!r} became {ids} ({len(ids)} ids)" for token, ids in zip(unknown, aligned)
    )
    per_character = [[vocab.get(ch, unk) for ch in token] for token in unknown]
    if aligned == per_character and any(len(t) > 1 for t in unknown):
        cause = (
            "you spelled each unknown token out, one id per character (each character "
            "looked up, <unk> for a missing one), as byte or character fallback does. "
            "encode has no fallback: a token missing from the vocabulary becomes one <unk> "
            f"id ({unk})"
        )
    elif all(len(ids) == len(t) for ids, t in zip(aligned, unknown)):
        cause = (
            "each unknown token became one id per character (split into its letters): a "
            f"token missing from the vocabulary becomes one <unk> id ({unk})"
        )
    else:
        cause = (
            "the known tokens are right, but a token missing from the vocabulary must become "
            f"exactly one id, the id of <unk> ({unk})"
        )
    return (
        f"Your ids are {len(got)} for {len(tokens)} tokens: {shown}. So {cause}: "
        'vocab.get(token, vocab["<unk>"]), one id per token.'
    )


def _unknown_token_ids_hint(tokens, vocab, got, encode_again=None) -> str:
    """Every known token right and the unknown ones given ids other than <unk>'s, one id
    per token: say what each became, and whether those ids lie past the end of the
    vocabulary (no row in the embedding table); "" otherwise."""
    if not isinstance(got, list | tuple) or len(got) != len(tokens):
        return ""
    unk = vocab["<unk>"]
    pairs = list(zip(tokens, got, strict=True))
    if any(t in vocab and i != vocab[t] for t, i in pairs):
        return ""
    wrong = {t: i for t, i in pairs if t not in vocab and i != unk}
    if not wrong or not all(isinstance(i, int) for i in wrong.values()):
        return ""
    shown = ", ".join(f"{t!r} became {i}" for t, i in list(wrong.items())[:4])
    past_end = [i for i in wrong.values() if i >= len(vocab) or i < 0]
    where = (
        f" {'They lie' if len(past_end) == len(wrong) else 'Some lie'} outside the vocabulary "
        f"(its ids are 0..{len(vocab) - 1}): the embedding table has no row for such an id."
        if past_end
        else " Those are ids of other tokens of the vocabulary."
    )
    distinct = len(set(wrong.values())) == len(set(wrong)) > 1
    if (
        distinct
        and past_end
        and sorted(wrong.values()) == list(range(len(vocab), len(vocab) + len(wrong)))
    ):
        how = (
            " Each unknown token got a new id of its own, counted on from len(vocab): the "
            "vocabulary was grown (on a copy) instead of sending them to <unk>."
        )
    elif distinct and not _same_when_called_again(encode_again, got):
        how = (
            " Each unknown token got an id of its own, and a second call with the same "
            "tokens gave other ids: they are drawn at random, not looked up."
        )
    elif distinct:
        how = (
            " Each unknown token got an id of its own, computed from the token (a hashed "
            "out-of-vocabulary bucket, len(vocab) + hash(token) % n, does that), instead of "
            "one shared id."
        )
    else:
        how = ""
    return (
        f"Your known tokens are right, but the unknown tokens were not given the id of "
        f"'<unk>' ({unk}): {shown}.{where}{how} Every token missing from the vocabulary maps "
        f"to the id of '<unk>': vocab.get(token, vocab[\"<unk>\"])."
    )


def _same_when_called_again(encode_again, got) -> bool:
    """Whether a second call returns got again (True when it cannot be made)."""
    if encode_again is None:
        return True
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            again = encode_again()
    except Exception:  # a second call that fails tells nothing about the first
        return True
    return list(again) == list(got) if isinstance(again, list | tuple) else True


def _encode_cased_mistakes(tokens, vocab) -> dict:
    """What only this run shows: each token lower-cased before the lookup, and the id 0
    (falsy) replaced by <unk>'s (vocab.get(token) or unk)."""
    capital = [t for t in tokens if t in vocab and t != t.lower()]
    unk = vocab["<unk>"]
    zero = [t for t in tokens if vocab.get(t) == 0]
    out = {}
    if zero:
        out[
            f"{zero[0]!r} has the id 0, and yours gave it <unk>'s id: 0 is falsy, so "
            "vocab.get(token) or unk replaces it. Give the default to get instead: "
            'vocab.get(token, vocab["<unk>"]).'
        ] = [vocab.get(t) or unk for t in tokens]
    if not capital:
        return out
    return {
        **out,
        f"{capital[0]!r} is in this vocabulary with its capital letter, but yours gave it "
        "another id: you lower-cased (or case-folded) each token before the lookup. "
        "Normalising the text is tokenize's job; encode looks each token up exactly as it "
        "is given (a vocabulary need not be lower-cased).": [
            vocab.get(t.lower(), vocab["<unk>"]) for t in tokens
        ],
    }


def _encode_unknown_as(tokens, vocab, got) -> dict:
    """When every unknown token got one same id other than <unk>'s, 0 and len(vocab) (which
    have messages of their own): that mistake, named with the token that id stands for."""
    unknown = [k for k, t in enumerate(tokens) if t not in vocab]
    if not unknown or not isinstance(got, list | tuple) or len(got) != len(tokens):
        return {}
    values = {got[k] for k in unknown}
    if len(values) != 1:
        return {}
    value = values.pop()
    if value in (vocab["<unk>"], 0, len(vocab)) or not isinstance(value, int):
        return {}
    unk = vocab["<unk>"]
    if value == ref.UNK_ID and unk != ref.UNK_ID:  # earlier runs, <unk> = 1, were right
        return {
            f"Unknown tokens must become the id of <unk> in the vocabulary given, here {unk}; "
            f"yours became {value}, the id <unk> has in the vocabularies build_vocab makes "
            "(UNK_ID), which in this one belongs to another token. Your encode uses a fixed "
            f"id for <unk> (UNK_ID, or a literal {value}) instead of looking it up: right only "
            "while a vocabulary numbers its special tokens as ours does, and a vocabulary "
            "made elsewhere may not. Look it up in the vocabulary you are given: "
            'vocab.get(token, vocab["<unk>"]).': [vocab.get(t, value) for t in tokens]
        }
    names = [t for t, i in vocab.items() if i == value]
    known = f" (the id of {names[0]})" if names else ""
    if value >= len(vocab) or value < 0:
        known = (
            f", an id outside the vocabulary (its ids are 0..{len(vocab) - 1}): the embedding "
            "table has no row for it"
        )
    return {
        f"Unknown tokens must become the id of <unk> ({vocab['<unk>']}), not {value}{known}: "
        'vocab.get(token, vocab["<unk>"]).': [vocab.get(t, value) for t in tokens]
    }


def _encode_key_hints(tokens, vocab) -> list:
    """For a KeyError inside the learner's encode: the token that was looked up with
    vocab[token] although the vocabulary lacks it, or an unknown-token key spelled another
    way than "<unk>" (each named only when the key is one of these)."""

    def key(exc: BaseException):
        return exc.args[0] if isinstance(exc, KeyError) and exc.args else None

    def unknown(exc: BaseException) -> bool:
        k = key(exc)
        return isinstance(k, str) and k in tokens and k not in vocab

    def unk_spelling(exc: BaseException) -> bool:
        k = key(exc)
        return (
            isinstance(k, str)
            and k not in tokens
            and k not in vocab
            and re.sub(r"[^a-z]", "", k.lower()) in ("unk", "unknown")
        )

    return [
        (
            unknown,
            lambda exc: (
                f"vocab[token] raised KeyError for {key(exc)!r}, a token that is not in the "
                "vocabulary: a plain lookup fails on every unknown token. Unknown tokens map "
                'to the id of <unk>: vocab.get(token, vocab["<unk>"]).'
            ),
        ),
        (
            unk_spelling,
            lambda exc: (
                f"The vocabulary has no key {key(exc)!r}: its unknown token is spelled "
                '"<unk>" (with the angle brackets, lower case), vocab["<unk>"].'
            ),
        ),
    ]


def _unknown_tokens_stored(given_vocab: dict, tokens, vocab: dict) -> str:
    """When the vocabulary the learner's encode was given now holds exactly the call's
    unknown tokens as new keys, each with <unk>'s id, the rest unchanged: the lookup wrote
    them in (setdefault). "" otherwise."""
    unknown = [t for t in dict.fromkeys(tokens) if t not in vocab]
    added = {k: v for k, v in given_vocab.items() if k not in vocab}
    unk = vocab["<unk>"]
    kept = all(given_vocab.get(k, None) == v for k, v in vocab.items())
    if not unknown or not kept or set(added) != set(unknown):
        return ""
    if any(v != unk for v in added.values()):
        return ""
    return (
        f"Your encode added the unknown tokens {unknown[:4]} to the caller's vocabulary, each "
        f"with <unk>'s id ({unk}): vocab.setdefault(token, unk) (or vocab[token] = unk for a "
        "missing token) writes the key into the dict it reads. The ids are right, but the "
        "vocabulary changed, and it must not: look up without writing, "
        'vocab.get(token, vocab["<unk>"]).'
    )


def _encode_order_hint(tokens, got: list[int], expected: list[int]) -> str:
    """The right ids in another order (reversed, sorted, shuffled), or each id once (the
    repeats of a token dropped, in the sentence's order or not): told by the ids alone,
    since each token's id is known. "" otherwise."""
    if got == expected or not got:
        return ""
    if sorted(got) == sorted(expected):
        if got == expected[::-1]:
            how = (
                "in reverse order: the last token's id comes first (reversed(tokens), "
                "tokens[::-1], or each id inserted at the front)"
            )
        elif got == sorted(got):
            how = "sorted by value (sorted(...) put them in increasing order)"
        else:
            how = (
                "in another order than the tokens (a loop over a set of the tokens, or over "
                "the tokens sorted, reorders them)"
            )
        return (
            f"Your ids are the right ones, but {how}. encode keeps the order of the "
            "tokens: ids[k] is the id of tokens[k], for k = 0 .. len(tokens) - 1."
        )
    repeated = [t for t, n in Counter(tokens).items() if n > 1]
    if not (
        repeated
        and len(got) < len(expected)
        and len(set(got)) == len(got)
        and set(got) == set(expected)
    ):
        return ""
    token = repeated[0]
    once = (
        f"Each id comes once in yours: {token!r} occurs {tokens.count(token)} times in the "
        f"tokens, but its id appears once, so the result has {len(got)} ids for "
        f"{len(tokens)} tokens."
    )
    first_seen = list(dict.fromkeys(expected))
    if got == first_seen:
        why = (
            " A token already seen was dropped (dict.fromkeys(tokens), a test against the "
            "tokens or ids seen so far, or a set(tokens) whose order happened to match)."
        )
    else:
        why = (
            " The ids are not in the tokens' order either: that is what looping over a set "
            "of the tokens gives (set(tokens), or sorted(set(tokens)), np.unique), each "
            "token once, in the set's own order or sorted."
        )
    return (
        f"{once}{why} encode returns one id per token, repeats included and in the order of "
        "the tokens: loop over tokens itself."
    )


_RENUMBERED = "another vocab (the same tokens, numbered in reverse order after the specials)"


def _renumbered(vocab: dict[str, int]) -> dict[str, int]:
    """``vocab`` with the ids of its ordinary tokens reversed (the special tokens keep theirs)."""
    ordinary = sorted((token for token in vocab if vocab[token] >= 4), key=vocab.get)
    renumbered = {token: index for token, index in vocab.items() if index < 4}
    renumbered.update({token: 4 + index for index, token in enumerate(reversed(ordinary))})
    return renumbered


#: special tokens numbered as another library does (the course's own layout is <pad> 0,
#: <unk> 1, <bos> 2, <eos> 3): fairseq's order for the visible run; for the hidden one,
#: SentencePiece's default ids for <unk>, <bos> and <eos> (0, 1, 2), with <pad> (which
#: SentencePiece leaves disabled unless a pad id is set) at the next free id. encode reads <unk>'s id from the vocabulary it is given. The keys are
#: stored out of id order, <unk> not second: an id read off a position among the keys
#: (list(vocab.values())[1]) is not the fixed id 1 here.
_OTHER_LAYOUT = {"<pad>": 1, "<eos>": 2, "<bos>": 0, "<unk>": 3}
_OTHER_LAYOUT_HIDDEN = {"<eos>": 2, "<pad>": 3, "<unk>": 0, "<bos>": 1}


def _specials_renumbered(vocab: dict[str, int], layout: dict[str, int]) -> dict[str, int]:
    """``vocab`` with its special tokens numbered by ``layout`` (the others keep theirs)."""
    return {**layout, **{t: i for t, i in vocab.items() if t not in layout}}


def _layout_named(layout: dict[str, int]) -> str:
    ids = ", ".join(f"{t}={i}" for t, i in sorted(layout.items(), key=lambda item: item[1]))
    return f"a vocab from elsewhere, its special tokens numbered {ids}"


def check_encode(encode, *, hidden: bool = False) -> None:
    """Check ``encode(tokens, vocab)``: one id per token, <unk>'s id for unknown tokens."""
    with Checker("encode", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(encode)
        if hidden:
            vocab = ref.build_vocab(_random_token_lists(21))
            cases = [[*tokens, "zebra"] for tokens in _random_token_lists(22)] + [[]]
            cased = _CASED_HIDDEN
        else:
            vocab = _VOCAB
            cases = [["the", "cat", "drank", "the", "milk", "."], ["the", "dog", "drank", "tea"]]
            cased = _CASED
        runs = [(tokens, vocab, "vocab") for tokens in cases]
        runs.append((cased[1], cased[0], f"vocab={cased[0]}"))
        # The first case again, with the same token -> id mapping stored with its keys in
        # alphabetical order (not id order): any dict is a valid vocabulary.
        runs.append((cases[0], dict(sorted(vocab.items())), _ALPHABETICAL))
        # The first case once more, with another vocabulary (the same tokens, their ids in
        # reverse order): the ids come from the vocab of each call, never from an earlier one.
        runs.append((cases[0], _renumbered(vocab), _RENUMBERED))
        # Tokens with an unknown one, looked up in a vocabulary whose special tokens are
        # numbered otherwise (<unk> is not 1): <unk>'s id comes from the vocab given.
        layout = _OTHER_LAYOUT_HIDDEN if hidden else _OTHER_LAYOUT
        with_unknown = next(t for t in cases if any(token not in vocab for token in t))
        runs.append((with_unknown, _specials_renumbered(vocab, layout), _layout_named(layout)))
        for tokens, vocab, named in runs:
            unk = vocab["<unk>"]
            what = f"encode({tokens!r}, {named})"
            given_vocab = dict(vocab)
            try:
                got = c.call(
                    encode,
                    list(tokens),
                    given_vocab,
                    hints=_encode_key_hints(tokens, vocab),
                    mutation_hint="encode must not grow the vocabulary: it is fixed (so is the "
                    "embedding table), and unknown tokens map to the id of <unk>.",
                )
            except CheckFailure as failure:
                cause = _unknown_tokens_stored(given_vocab, tokens, vocab)
                if cause:
                    raise CheckFailure(
                        failure.exercise, f"{failure.message}\n{cause}", failure.learner_traceback
                    ) from None
                raise
            if isinstance(got, list | tuple) and None in got:
                unknown = [t for t in tokens if t not in vocab]
                at_unknown = (
                    len(got) == len(tokens)
                    and [t for t, i in zip(tokens, got, strict=True) if i is None] == unknown
                )
                c.fail(
                    f"{what} returned {short(list(got))}: None where an id belongs"
                    + (
                        f", exactly for the tokens missing from the vocabulary {unknown[:3]}. "
                        "vocab.get(token) returns None when the token is not a key: give it a "
                        'default, the id of <unk>: vocab.get(token, vocab["<unk>"]).'
                        if unknown and at_unknown
                        else ". Return an int id for every token."
                    )
                )
            if isinstance(got, list | tuple) and "<unk>" in got:
                c.fail(
                    f"{what} returned {short(list(got)[:8])}: the string '<unk>' where an id "
                    f"belongs. Unknown tokens become the *id* of <unk>, vocab['<unk>'] ({unk}), "
                    'not the token itself: vocab.get(token, vocab["<unk>"]).'
                )
            got = _ids(c, got, what)
            expected = ref.encode(tokens, vocab)
            _expect_not_all_unk(c, encode, tokens, vocab, got, what)
            _expect_not_accumulated(
                c,
                what,
                lambda tokens=tokens, vocab=vocab: encode(list(tokens), dict(vocab)),
                got,
                expected,
            )
            c.expect_equal(
                got,
                expected,
                what,
                hint=lambda tokens=tokens, vocab=vocab, got=got, expected=expected, named=named: (
                    (_KEY_ORDER_OBSERVED if named == _ALPHABETICAL else "")
                    or _encode_order_hint(tokens, got, expected)
                    or _unknown_token_spans_hint(tokens, vocab, got)
                    or _unknown_token_ids_hint(
                        tokens, vocab, got, lambda: encode(list(tokens), dict(vocab))
                    )
                    or f"Look each token up in vocab (vocab is {dict(list(vocab.items())[:8])}...)."
                ),
                mistakes={
                    f"Unknown tokens must become the id of <unk> ({unk}), not be skipped.": [
                        vocab[t] for t in tokens if t in vocab
                    ],
                    f"Unknown tokens must become the id of <unk> ({unk}), not "
                    + ("<pad> (0)." if vocab.get("<pad>") == 0 else "a hard-coded 0."): [
                        vocab.get(t, 0) for t in tokens
                    ],
                    f"Unknown tokens must become the id of <unk> ({unk}), not a new id "
                    "(len(vocab)): the vocabulary is fixed, and that id has no row in the "
                    "embedding table.": [vocab.get(t, len(vocab)) for t in tokens],
                    **_encode_cased_mistakes(tokens, vocab),
                    **_encode_unknown_as(tokens, vocab, got),
                    "Your ids are one too high: each is its token's id + 1. Use the "
                    "vocabulary's id itself, vocab[token] (or vocab.get(token, unk)).": [
                        i + 1 for i in expected
                    ],
                    "Your ids are one too low: each is its token's id - 1. Use the "
                    "vocabulary's id itself, vocab[token] (or vocab.get(token, unk)).": [
                        i - 1 for i in expected
                    ],
                    "The last token's id is missing: encode returns one id for every token, "
                    "the last one included.": expected[:-1] if expected else None,
                    "The first token's id is missing: encode returns one id for every token, "
                    "the first one included (a [1:], or a loop that starts at 1, drops "
                    "it).": expected[1:] if expected else None,
                    "Don't add <bos>/<eos> here: encode maps exactly one id per token.": [
                        ref.BOS_ID,
                        *expected,
                        ref.EOS_ID,
                    ],
                    **_encode_one_special_added(expected, vocab),
                    **(_encode_key_order_models(tokens, vocab) if named == _ALPHABETICAL else {}),
                },
            )


_ALPHABETICAL = "vocab with its keys in alphabetical order (the same token -> id mapping)"


def _encode_key_order_models(tokens, vocab) -> dict:
    """For the run whose vocabulary stores its keys alphabetically (the same mapping as a
    run the answer already got right): each token's position among the keys, and, whatever
    else the ids are, the observation that they depend on the order of the keys alone."""
    keys = list(vocab)
    unk = vocab["<unk>"]
    by_position = [keys.index(t) if t in vocab else unk for t in tokens]
    fix = (
        "Look the id up in the mapping itself, whatever the order of the keys: "
        'vocab.get(token, vocab["<unk>"]).'
    )
    return {
        "These tokens got the right ids from the same vocabulary with its keys in id order: "
        "only the order in which the dict stores its keys changed, so your ids depend on that "
        "order. With the keys stored alphabetically each id is the token's position among the "
        "dict's keys (list(vocab).index(token), or an enumerate over vocab): that equals the "
        "id only while the keys happen to be stored in id order, and a vocabulary may store "
        f"them in any order (the order of its keys does not matter). {fix}": by_position,
    }


_KEY_ORDER_OBSERVED = (
    "These tokens got the right ids from the same vocabulary with its keys in id order: only "
    "the order in which the dict stores its keys changed, so your ids depend on that order, "
    "which carries no meaning (only the token -> id mapping does). Look the id up in the "
    'mapping itself: vocab.get(token, vocab["<unk>"]).'
)


def _expect_not_all_unk(c, encode, tokens, vocab, got, what) -> None:
    """Every id is <unk>'s although some tokens are known: one more call, with the known
    tokens alone, tells an unknown token that turns the whole sequence into <unk> (a try
    around the whole lookup) from a lookup that finds no token at all."""
    unk = vocab["<unk>"]
    known = [t for t in tokens if t in vocab and vocab[t] != unk]
    if not known or len(got) != len(tokens) or any(i != unk for i in got):
        return
    shown = f"{known[0]!r} is {vocab[known[0]]}"
    unknown = [t for t in tokens if t not in vocab]
    try:
        alone = encode(list(known), dict(vocab))
    except Exception:
        alone = None
    if unknown and alone == [vocab[t] for t in known]:
        c.fail(
            f"{what} returned {got}: every token became <unk> ({unk}), the known ones too "
            f"({shown}), while encode({known!r}, vocab), without the unknown token(s) "
            f"{unknown[:3]}, gives the right ids. One unknown token turned the whole "
            "sequence into <unk>: a try around the whole lookup whose except returns "
            "[vocab['<unk>']] * len(tokens) (or a test such as all(t in vocab for t in "
            "tokens)). Only the unknown token becomes <unk>: look each token up on its own, "
            'vocab.get(token, vocab["<unk>"]).'
        )
    c.fail(
        f"{what} returned {got}: every token became <unk> ({unk}), the known ones too "
        f"({shown}), and encode({known!r}, vocab), with known tokens only, does not give "
        f"their ids either (it returned {alone!r}). Your lookup finds no token in vocab: "
        "check the key you look up (the token itself, as it is given) and the dict you look "
        'it up in (the vocab argument): vocab.get(token, vocab["<unk>"]).'
    )


def _encode_one_special_added(expected: list[int], vocab) -> dict:
    """<bos> in front only, or <eos> at the end only (both at once has its own message):
    {message: model}."""
    bos, eos = vocab.get("<bos>"), vocab.get("<eos>")
    out = {}
    for token, model in (("<bos>", [bos, *expected]), ("<eos>", [*expected, eos])):
        where = "in front of" if token == "<bos>" else "after"
        out[
            f"You added {token} ({vocab.get(token)}) {where} the tokens' ids: encode maps "
            "exactly one id per token, no special token added (a model's input gets its "
            "<bos>/<eos> later, where the decoder needs them)."
        ] = model
    return out


def _decode_some_specials_dropped(decode, vocab, expected: list[str]) -> dict:
    """Some of the special tokens dropped, the others kept (each subset that is not all of
    them, which has its own message): {message: model}, for the subsets that also agree
    with the learner's decode of [w, special, v] for each special present (a special
    between two words tells dropping it from stopping there)."""
    present = [t for t in ref.SPECIAL_TOKENS if t in expected]
    probes = {t: _after_eos_probe(decode, vocab, t) for t in present}
    if any(probe is None for probe in probes.values()):
        return {}
    out = {}
    for size in range(1, len(present)):
        for dropped in combinations(present, size):
            kept = [t for t in present if t not in dropped]
            agrees = all(
                probe[1]()
                == [t for t in ref.decode(probe[0], vocab) if t != special or t not in dropped]
                for special, probe in probes.items()
            )
            if not agrees:
                continue
            out[
                f"You dropped {', '.join(dropped)} and kept {', '.join(kept)}: decode maps "
                "every id to its token, special tokens included (removing them is the "
                "caller's choice, as skip_special_tokens is in other libraries, not "
                "decode's)."
            ] = [t for t in expected if t not in dropped]
    return out


# ----------------------------------------------------------------------------- decode
_KEY_ORDER_HINT = (
    "Your decode reads the tokens by their position among the dict's keys (list(vocab)[id], "
    "or an enumerate over vocab): that holds only while the keys happen to be stored in id "
    "order. Here they are in alphabetical order, a vocab as valid as any other (build_vocab "
    "may return any dict; the order of its keys does not matter). Invert the mapping by its "
    "values: {{index: token for token, index in vocab.items()}}."
)


_DECODE_TYPE_HINT = (
    "ids come either as a list of ints or as a 1-D integer numpy array (a row of a padded "
    "batch): write decode for both. A list has no .tolist() and a Python int no .item(); "
    "iterate over ids directly and turn each id into a Python int with int(i)."
)
_DECODE_HINTS = [
    (
        "truth value of an array",
        "A truth test on the ids (`if not ids`, `if ids`, `ids or ...`) raises this when "
        "they come as a numpy array, a row of a padded batch: an array with several entries "
        "has no single truth value. Test the length instead (`if len(ids) == 0`), or let the "
        "loop handle an empty input: it returns [] by itself.",
    ),
    ("'list' object has no attribute", _DECODE_TYPE_HINT),
    ("'int' object has no attribute 'item'", _DECODE_TYPE_HINT),
]


def _every_id_missing(decode, vocab) -> bool:
    """Whether decode raises KeyError, on that very id, for each of the vocabulary's first,
    second and last ids alone: no id at all is a key of the learner's table."""
    for index in sorted({0, 1, max(vocab.values())}):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                decode([index], dict(vocab))
        except KeyError as exc:
            if not exc.args or exc.args[0] != index:
                return False
        except Exception:
            return False
        else:
            return False
    return True


def _keyed_by_tokens_hint(vocab, decode):
    """A KeyError on an id that the vocabulary has as a value, and the same for each id
    tried alone: the id was looked up in a dict keyed by tokens (the vocabulary itself, or
    a copy that was never inverted)."""

    def hint(exc: BaseException) -> str:
        key = exc.args[0] if exc.args else None
        try:
            key = int(key)
        except (TypeError, ValueError):
            return ""
        if key not in set(vocab.values()) or key in vocab or not _every_id_missing(decode, vocab):
            return ""
        token = {index: token for token, index in vocab.items()}[key]
        return (
            f"{key} is an id of this vocabulary (the id of {token!r}), yet looking it up "
            "failed, and so does every id tried alone (decode([0], vocab), decode([1], "
            "vocab), ...): you looked the id up in a dict whose keys are tokens, the vocabulary "
            "itself or a copy whose keys and values were not swapped ({token: index for "
            "token, index in vocab.items()} copies it). Swap them: id_to_token = {index: "
            "token for token, index in vocab.items()}, then id_to_token[int(i)]."
        )

    return hint


#: a vocabulary no check call uses elsewhere: its word exists nowhere else
_FRESH_VOCAB = {"<pad>": 0, "<unk>": 1, "<bos>": 2, "<eos>": 3, "probe-word": 4}


def _decode_kept_from_earlier_call(decode) -> str:
    """When decode([4], a vocabulary never used before whose id 4 is 'probe-word') returns
    another token: the inverse table came from an earlier call's vocabulary and was kept
    (a module-level dict filled once, a cache, a default argument). "" otherwise."""
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        got = decode([4], dict(_FRESH_VOCAB))
        if isinstance(got, list | tuple) and len(got) == 1 and got[0] not in _FRESH_VOCAB:
            return (
                f"On a vocabulary your decode had never seen, decode([4], {_FRESH_VOCAB}) "
                f"returned {list(got)!r}, not ['probe-word']: a token this vocabulary does not "
                "even hold, from a vocabulary of an earlier call. Your inverse table id -> token was built "
                "once and kept between calls (a module-level or global dict filled on the "
                "first call, a cache, a mutable default argument). Build it from each call's "
                "own vocab, inside decode: {index: token for token, index in vocab.items()}."
            )
    return ""


def _stale_inverse_hint(vocab, decode):
    """A KeyError on an id this vocabulary has: the probe of
    :func:`_decode_kept_from_earlier_call` tells a table kept from an earlier call."""

    def hint(exc: BaseException) -> str:
        key = exc.args[0] if exc.args else None
        try:
            key = int(key)
        except (TypeError, ValueError):
            return ""
        if key not in set(vocab.values()):
            return ""
        return _decode_kept_from_earlier_call(decode)

    return hint


def _decode_shifted(ids, vocab, shift: int):
    """The tokens of id + shift (None when one of those ids is not in the vocabulary)."""
    inverse = {i: t for t, i in vocab.items()}
    shifted = [int(i) + shift for i in ids]
    return [inverse[i] for i in shifted] if all(i in inverse for i in shifted) else None


def _stopped_at_pad(ids, vocab):
    """The tokens up to the first <pad> (the rest dropped); None without a <pad>."""
    tokens = ref.decode(ids, vocab)
    return tokens[: tokens.index("<pad>")] if "<pad>" in tokens else None


def _after_eos_probe(decode, vocab, special="<eos>"):
    """(probe ids [w, special, v] (special: <eos> unless told), a zero-argument function
    giving the learner's decode of them, computed once; None when it fails), or None
    without two plain words."""
    words = [i for t, i in vocab.items() if t not in ref.SPECIAL_TOKENS][:2]
    if len(words) < 2:
        return None
    probe_ids = [words[0], vocab[special], words[1]]
    cache: list = []

    def result():
        if not cache:
            try:
                cache.append([str(t) for t in decode(list(probe_ids), dict(vocab))])
            except Exception:  # no verdict from the probe
                cache.append(None)
        return cache[0]

    return probe_ids, result


def _end_models(decode, ids, vocab, probe) -> dict:
    """The mistakes that drop the end of a row (everything from the first <eos> or
    <pad>, or the <pad> / <eos> tokens): on a row where only <pad> follows <eos> several
    give the same result, so each is named only when the learner's decode on a probe
    where a word follows <eos> (decode([w, <eos>, v])) agrees with it. Lazy: the probe
    runs only when the result is wrong."""
    tokens = ref.decode(ids, vocab)

    def when(probe_expected, value):
        if probe is None:
            return value

        def lazy():
            if probe[1]() != probe_expected:
                return None
            return value() if callable(value) else value  # a <pad> probe's model is lazy too

        return lazy

    # A <pad> with a word after it tells stopping at the first <pad> from dropping every
    # <pad>: on a row padded at its end both give the same tokens.
    pad_probe = _after_eos_probe(decode, vocab, "<pad>")

    def when_pad(kept, value):
        if pad_probe is None:
            return value
        ids_, result = pad_probe
        expected = [ref.decode(ids_, vocab)[i] for i in kept]
        return lambda: value if result() == expected else None

    models = {
        "You stopped at the first <pad>: decode maps every id, padding included "
        "(removing the padding is the caller's choice, not decode's).": when_pad(
            [0], _stopped_at_pad(ids, vocab)
        ),
        "The <pad> tokens were dropped: decode maps every id back to its token, <pad> "
        "included (decode is the exact inverse of encode).": when_pad(
            [0, 2], [t for t in tokens if t != "<pad>"]
        ),
    }
    if probe is None:
        return models
    probe_ids = probe[0]
    full = ref.decode(probe_ids, vocab)
    out = {message: when(full, value) for message, value in models.items()}
    if "<eos>" not in tokens or tokens.index("<eos>") == len(tokens) - 1:
        return out
    cut = tokens.index("<eos>")
    first, both = full[:1], [full[0], full[2]]
    out.update(
        {
            "You stopped at the first <eos>: it and every id after it were left out (here "
            f"{tokens[cut:]}), and decode({probe_ids}) gave {first}, without the word after "
            "<eos>. Generation code cuts its output there, but decode maps every id, <eos> "
            "and what follows included.": when(first, tokens[:cut]),
            "You stopped right after the first <eos>: every id after it was left out (here "
            f"{tokens[cut + 1 :]}), and decode({probe_ids}) gave {full[:2]}, without the "
            "word after <eos>. decode maps every id, what follows <eos> included.": when(
                full[:2], tokens[: cut + 1]
            ),
            f"You dropped the <eos> and <pad> tokens (decode({probe_ids}) gave {both}): "
            "decode maps every id back to its token, special tokens included (removing them "
            "is the caller's choice).": when(
                both, [t for t in tokens if t not in ("<eos>", "<pad>")]
            ),
        }
    )
    return out


def _decode_split_into_characters(ids, vocab) -> dict:
    """{message: the right tokens split into their characters}, when some token has more
    than one character (the result of tokens += token on a list)."""
    tokens = ref.decode(ids, vocab)
    longest = max(tokens, key=len, default="")
    if len(longest) < 2:
        return {}
    return {
        f"Every token came back split into its characters ({longest!r} as "
        f"{', '.join(map(repr, longest))}): tokens += token (or tokens.extend(token)) on a "
        "list adds a string's characters one by one, a str being a sequence of characters. "
        "Add each token whole: tokens.append(token), or [id_to_token[int(i)] for i in "
        "ids].": [ch for token in tokens for ch in token]
    }


def _single_id_lost(decode, vocab) -> str:
    """The message for a single id decoded to no token: which end of a list the learner's
    decode cuts off, told by one call on four ids ([1:], [:-1] or [1:-1]); the candidates
    when that call does not tell."""
    probe = sorted(vocab.values())[:4]  # four ids of the vocabulary
    expected = ref.decode(probe, vocab)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            got = list(decode(list(probe), dict(vocab)))
    except Exception:  # no verdict from the probe
        got = None
    shown = f"decode({probe}, vocab) gives {got}"
    if got == expected[1:-1]:
        return (
            f"The first and the last token are missing: {shown}, and here a single id gave "
            "no token at all. Your decode cuts off both ends ([1:-1], as if every row were "
            "wrapped in <bos> ... <eos>); decode maps every id, the ends included."
        )
    if got == expected[1:]:
        return (
            f"The first token is missing: {shown}, and here a single id gave no token at all "
            "(a [1:], or a loop that starts at 1, drops it). decode maps every id, the first "
            "one included."
        )
    if got == expected[:-1]:
        return (
            f"The last token is missing: {shown}, and here a single id gave no token at all "
            "(a [:-1], or a loop that stops one early, drops it). decode maps every id, the "
            "last one included."
        )
    return (
        "Your decode returned no token for a single id: an end of the list was cut off "
        "([1:], [:-1] or [1:-1], a loop that starts at 1 or stops one early). decode maps "
        "every id, the first and the last included."
    )


def check_decode(decode, *, hidden: bool = False) -> None:
    """Check ``decode(ids, vocab)``; ids come as a list or as a 1-D integer array (a row
    of a padded batch); a list or a tuple of str is accepted back. The last case's vocab
    lists its keys alphabetically (not in id order)."""
    with Checker("decode", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(decode)
        if hidden:
            vocab = ref.build_vocab(_random_token_lists(31))
            rng = numpy_rng(32)
            cases = [list(rng.integers(0, len(vocab), size=n)) for n in (1, 5, 9)]
            cases.append(np.array([2, 5, 3, 0, 0], dtype=np.int64))
            cases.append([])
        else:
            vocab = _VOCAB
            cases = [[4, 5, 6, 4, 7, 8], [2, 4, 1, 3, 0], np.array([2, 4, 5, 6, 3, 0, 0])]
        runs = [(ids, dict(vocab), "vocab") for ids in cases]
        alphabetical = dict(sorted(vocab.items()))
        runs.append(
            (list(cases[0]) or [4], alphabetical, "vocab with its keys in alphabetical order")
        )
        # another vocabulary, after those: a table kept from an earlier call shows here
        runs.append(([2, 4, 3], dict(_FRESH_VOCAB), f"{_FRESH_VOCAB}"))
        for ids, vocab, named in runs:
            probe = _after_eos_probe(decode, vocab)
            kind = "array " if isinstance(ids, np.ndarray) else ""
            what = f"decode({kind}{[int(i) for i in ids]}, {named})"
            got = c.call(
                decode,
                ids.copy() if kind else list(ids),
                dict(vocab),
                hints=[
                    *_DECODE_HINTS,
                    (KeyError, _keyed_by_tokens_hint(vocab, decode)),
                    (KeyError, _stale_inverse_hint(vocab, decode)),
                ],
            )
            got = _tokens(c, got, what, "Return a list of token strings.")
            _expect_not_accumulated(
                c,
                what,
                lambda ids=ids, vocab=vocab: decode(list(ids), dict(vocab)),
                got,
                ref.decode(ids, vocab),
            )
            keys = list(vocab)
            c.expect_equal(
                got,
                ref.decode(ids, vocab),
                what,
                hint=lambda: (
                    _decode_kept_from_earlier_call(decode)
                    or "Invert the vocab ({id: token}) and look each id up; keep special tokens."
                ),
                mistakes={
                    "Special tokens (<pad>, <unk>, <bos>, <eos>) must be decoded too, not dropped: "
                    "decode is the exact inverse of encode.": [
                        t for t in ref.decode(ids, vocab) if t not in ref.SPECIAL_TOKENS
                    ],
                    _KEY_ORDER_HINT.format(): (
                        [keys[int(i)] for i in ids] if keys != sorted(keys, key=vocab.get) else None
                    ),
                    "Your tokens are one id off: each is the token of its id - 1. Look up "
                    "the id itself, id_to_token[int(i)].": _decode_shifted(ids, vocab, -1),
                    "Your tokens are one id off: each is the token of its id + 1. Look up "
                    "the id itself, id_to_token[int(i)].": _decode_shifted(ids, vocab, 1),
                    "The first token is missing: decode maps every id, the first one "
                    "included (a [1:], or a loop that starts at 1, drops it).": (
                        ref.decode(ids, vocab)[1:] if len(ids) > 1 else None
                    ),
                    # (the probe call only when a single id gave nothing)
                    **({_single_id_lost(decode, vocab): []} if len(ids) == 1 and got == [] else {}),
                    "The first and the last token are missing: your decode cuts off both "
                    "ends ([1:-1], as if every row were wrapped in <bos> ... <eos>). decode "
                    "maps every id, the ends included: the ids need not be wrapped, and "
                    "<bos>/<eos> are decoded like any other token.": (
                        ref.decode(ids, vocab)[1:-1] if len(ids) > 2 else None
                    ),
                    "Your tokens come in reverse order: decode keeps the order of the ids, "
                    "the first id's token first.": (
                        ref.decode(ids, vocab)[::-1] if len(ids) > 1 else None
                    ),
                    **_end_models(decode, ids, vocab, probe),
                    "You looked each token up by its position in ids (0, 1, 2, ..., as "
                    "range(len(ids)) or enumerate gives) instead of by the id at that "
                    "position: that returns the vocabulary's first len(ids) tokens whatever "
                    "the ids are. Look up the id itself: [id_to_token[int(i)] for i in ids].": (
                        [{v: k for k, v in vocab.items()}[k] for k in range(len(ids))]
                        if len(ids) <= len(vocab)
                        else None
                    ),
                    "You kept the tokens of the vocabulary whose id is among the ids (a scan "
                    "of vocab with `if index in ids`): that gives each token once, in the "
                    "vocabulary's order, so a repeated id or another order is lost. Look each "
                    "id up in turn, one token per id: [id_to_token[int(i)] for i in ids] with "
                    "id_to_token = {index: token for token, index in vocab.items()}.": [
                        token for token, index in vocab.items() if index in {int(i) for i in ids}
                    ],
                    **_decode_some_specials_dropped(decode, vocab, ref.decode(ids, vocab)),
                    **_decode_split_into_characters(ids, vocab),
                    "Only the first token came back: the loop ends after the first id. A "
                    "return indented inside the for loop (or a break) returns the list as "
                    "soon as it holds one token; put the return after the loop, at the "
                    "function's level.": (
                        # a first <eos> or <pad> could also be where a stop rule ends
                        ref.decode(ids, vocab)[:1]
                        if len(ids) > 1 and ref.decode(ids, vocab)[0] not in ("<eos>", "<pad>")
                        else None
                    ),
                },
            )
