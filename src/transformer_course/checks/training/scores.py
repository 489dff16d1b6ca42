"""Checks for lesson 10's translation_scores: exact match and corpus BLEU."""

from __future__ import annotations

import contextlib
import copy
import io
import math
import numbers
import re
import unicodedata
import warnings
from collections.abc import Sequence

import numpy as np
import sacrebleu

from transformer_course import translation
from transformer_course.checking import Checker, CheckFailure, numpy_rng, short

from .common import plain_float


def _spanish_references(count: int, seed: int) -> list[list[str]]:
    """Every correct Spanish translation of ``count`` sentences of the lesson's generated
    corpus (one list per sentence; their lengths differ)."""
    corpus = translation.make_corpus(
        num_train=count, num_validation=0, num_test=0, num_combinations=0, num_longer=0, seed=seed
    )
    return corpus.references_of(corpus.train)


def _streams(references, fill=None) -> list[list]:
    """Reference lists per sentence -> sacrebleu's reference streams, stream j holding
    every sentence's j-th reference (`fill` where a sentence has fewer)."""
    width = max(len(refs) for refs in references)
    return [[refs[j] if j < len(refs) else fill for refs in references] for j in range(width)]


def _bleu(hypotheses, references, fill=None) -> float:
    return sacrebleu.corpus_bleu(list(hypotheses), _streams(references, fill)).score


def _attempt(score, *args) -> float | None:
    """A mistake's value, or None where the mistake would raise."""
    try:
        return score(*args)
    except Exception:
        return None


#: a hypothesis that differs from its reference in case only: BLEU is case-sensitive by
#: default (lowercase=True gives 100 here), and so is exact match
_CASED_SCORES = (
    ["La mujer come pan con queso", "el gato negro bebe la leche fría"],
    [["la mujer come pan con queso"], ["el gato negro bebe la leche fría", "El gato bebe leche"]],
)

#: a hypothesis equal to *another* sentence's reference (an undertrained model repeating a
#: sentence it has seen): right 1 / 3, but 2 / 3 when every reference is pooled together
_OTHER_SENTENCES_SCORES = (
    ["el perro come", "el perro come", "la casa es grande"],
    [["el perro come"], ["el gato come", "un gato come"], ["la casa es roja"]],
)

#: punctuation written against the words ('grande.', 'leche,'): the default 13a tokenizer
#: splits it off, so BLEU differs from a whitespace split (tokenize='none') or another one
_PUNCTUATED_SCORES = (
    ["la casa es grande.", "el gato bebe leche, y come.", "¿quiere comerlo?"],
    [
        ["la casa es muy grande."],
        ["el gato bebe la leche, y come pan.", "el gato bebe leche y come."],
        ["¿lo quiere comer?"],
    ],
)

#: hypotheses with a reference's words but not its string: the words reordered, a word
#: repeated, a word dropped. Exact match compares whole strings (1 / 4 here); comparing
#: the sets of words counts 3 / 4, the sorted words (a multiset) 2 / 4
_WORD_ORDER_SCORES = (
    ["bebe el gato la leche", "el el perro come", "veo al perro", "la casa es grande"],
    [
        ["el gato bebe la leche"],
        ["el perro come", "un perro come"],
        ["veo al perro", "veo el perro"],
        ["la casa es muy grande"],
    ],
)

#: hypotheses of three words at most: no 4-gram in the whole corpus, so corpus BLEU with
#: the default settings is 0 (its 4-gram precision has nothing to count), which
#: use_effective_order=True (sentence_bleu's setting) replaces by the mean of the orders
#: that have n-grams (44.0 here); the exact match is 1 / 3
_SHORT_SCORES = (
    ["el gato negro", "veo el perro", "la casa"],
    [["el gato negro bebe"], ["veo al perro"], ["la casa es grande"]],
)

#: a model's empty translation ("", a decoder that chose <eos> first) among long ones: it
#: matches nothing and its references still count in the brevity penalty's length, so
#: corpus BLEU is 68.2 here, and 83.3 with that sentence left out
_EMPTY_SCORES = (
    [
        "el gato negro bebe la leche fría",
        "",
        "la mujer come pan con queso",
        "veo al perro grande en la casa",
    ],
    [
        ["el gato negro bebe la leche fría"],
        ["la casa es grande", "la casa es muy grande"],
        ["la mujer come el pan con queso"],
        ["veo al perro grande en la casa"],
    ],
)

_VISIBLE_SCORES = [
    (  # several references per sentence, 1 to 4 of them; matches on later references
        [
            "el gato negro bebe la leche",
            "¿ el gato bebe la leche ?",
            "lo quiere comer",
            "la mujer está cansada",
            "el",
            "veo el perro",
            "unos niños comen la tarta",
        ],
        [
            ["el gato negro bebe la leche"],
            ["¿ bebe el gato la leche ?", "¿ el gato bebe la leche ?"],
            ["quiere comerlo", "lo quiere comer"],
            ["la mujer está cansada"],
            ["la sopa está fría", "la sopa no está caliente"],
            ["veo el perro", "veo al perro", "yo veo el perro", "yo veo al perro"],
            ["unos niños comen el pastel", "unos niños comen la tarta"],
        ],
    ),
    (  # one reference each: the familiar case
        ["la casa es grande", "el pan", "mi libro está debajo de la mesa"],
        [["la casa es grande"], ["el pan es dulce"], ["mi libro está debajo de la mesa roja"]],
    ),
    _CASED_SCORES,
    _OTHER_SENTENCES_SCORES,
    _PUNCTUATED_SCORES,
    _WORD_ORDER_SCORES,
    _SHORT_SCORES,
    _EMPTY_SCORES,
]


def _other_sentences_case(size: int, seed: int) -> tuple[list[str], list[list[str]]]:
    """Generated sentences whose second hypothesis is another sentence's reference (not
    one of its own), the first one right, the others cut short by a word."""
    references = _spanish_references(size, seed=seed)
    borrowed = next(
        refs[0] for k, refs in enumerate(references) if k != 1 and refs[0] not in references[1]
    )
    hypotheses = [references[0][0], borrowed]
    hypotheses += [" ".join(refs[0].split()[:-1]) for refs in references[2:]]
    return hypotheses, references


def _score_cases(hidden: bool):
    if not hidden:
        return _VISIBLE_SCORES
    rng = numpy_rng(8001)
    cases = []
    for size, seed in ((25, 8001), (9, 8002)):
        references = _spanish_references(size, seed=seed)
        hypotheses = []
        several = next(i for i, refs in enumerate(references) if len(refs) > 1)
        for i, refs in enumerate(references):
            if i == several:  # right, with the first of several references
                hypotheses.append(refs[0])
                continue
            words = refs[int(rng.integers(len(refs)))].split()  # any of the references
            roll = rng.random()
            if roll < 0.25:
                words = words[: max(1, len(words) - int(rng.integers(1, 3)))]
            elif roll < 0.45:
                words[int(rng.integers(len(words)))] = "gato"
            elif roll < 0.5:
                words = words[:1]  # very short: where padding with "" changes BLEU
            hypotheses.append(" ".join(words))
        cases.append((hypotheses, references))
    return [
        *cases,
        _CASED_SCORES,
        _other_sentences_case(6, seed=8003),
        _PUNCTUATED_SCORES,
        _words_rearranged_case(5, seed=8004),
        _SHORT_SCORES,
        _EMPTY_SCORES,
    ]


def _words_rearranged_case(size: int, seed: int) -> tuple[list[str], list[list[str]]]:
    """Generated sentences whose hypotheses hold a reference's words but not its string:
    the first two words swapped, the first word repeated, one right, the rest cut short."""
    references = _spanish_references(size, seed=seed)
    hypotheses = []
    for i, refs in enumerate(references):
        words = refs[0].split()
        if i == 0 and len(words) > 1 and words[0] != words[1]:
            words[0], words[1] = words[1], words[0]
        elif i == 1:
            words = [words[0], *words]
        elif i > 2:
            words = words[:-1] or words
        hypotheses.append(" ".join(words))
    return hypotheses, references


_ONE_STREAM_HINT = (
    "sacrebleu.corpus_bleu(hypotheses, streams) takes reference *streams*: stream j holds "
    "the j-th reference of every sentence (None where a sentence has fewer), so "
    "references[i] (the list for sentence i) must be regrouped first."
)
#: sacrebleu's TypeError for a list of lists of lists: two calls give it, and the error
#: does not tell them apart (round 18, blind15a-tsc-streams-wrapped-again: only the first
#: was named, which sent a learner whose streams were right to regroup them again)
_NESTED_TOO_DEEP_HINT = (
    "sacrebleu found a reference that is not a string: its second argument is a list of "
    "streams, each a list of strings (stream j = the j-th reference of every sentence). A "
    "list of lists of lists gives this error, and two calls pass one: the per-sentence "
    "lists wrapped once more ([references], not regrouped into streams), or the streams, "
    "once built, wrapped in one more list ([streams], as sacrebleu's README writes [refs] "
    "for a single stream). Pass the list of streams itself, sacrebleu.corpus_bleu("
    "hypotheses, streams), with references[i] (the list for sentence i) regrouped first: "
    "stream j holds the j-th reference of every sentence (None where a sentence has fewer)."
)
_BLEU_MISTAKES = {
    "first": "BLEU counts only the first reference of each sentence (zip(*references) "
    "does that too when a sentence has just one: it stops at the shortest list). Every "
    "correct translation counts: an n-gram matches if it occurs in any of the references; "
    "itertools.zip_longest(*references) fills the missing ones with None.",
    "width_first": "Your streams stop at the first sentence's number of references (a "
    "width taken from references[0]): a later sentence with more references than the first "
    "loses its extra ones, and they never count. The number of streams is the largest "
    "count, max(len(refs) for refs in references) (itertools.zip_longest(*references) "
    "gives as many), each stream None where a sentence has fewer.",
    "empty": 'The streams are padded with "" where a sentence has fewer references: '
    'sacrebleu 2 drops None but keeps "" as a reference of length 0, and the brevity '
    "penalty then compares a short hypothesis with that empty reference. Pad with None.",
    "sentence_mean": "This is the mean of sentence-level BLEU scores. BLEU is a corpus-level "
    "measure: it adds up the n-gram matches and lengths of all sentences first, then "
    "computes one score (sacrebleu.corpus_bleu). A mean of sentence scores is dominated "
    "by short sentences, where one missing 4-gram gives 0.",
    "swapped": "The hypotheses and the references are swapped: corpus_bleu(hypotheses, "
    "streams). BLEU is not symmetric (its brevity penalty punishes hypotheses shorter "
    "than the references).",
    "lowercase": "That is case-insensitive BLEU (lowercase=True), which counts 'La' and "
    "'la' as one word; the contract asks for sacrebleu.corpus_bleu's default settings, "
    "which are case-sensitive: leave lowercase (and the other options) at their defaults.",
    "fraction": "That is BLEU on a 0-1 scale; sacrebleu's score (.score) is on 0-100, which "
    "the contract asks for.",
    "per_sentence_lists": "The references were passed as they came, one list per sentence; "
    + _ONE_STREAM_HINT,
    "compacted": "The reference streams leave the holes out instead of holding None there: "
    "stream j must have one entry per sentence, references[i][j], or None where sentence i "
    "has fewer references. Without the None the later streams are shorter, and their "
    "references slide onto other sentences (sacrebleu pairs stream entries with hypotheses "
    "by position): [refs[j] if j < len(refs) else None for refs in references].",
    "joined": "You scored the whole corpus as ONE sentence: the hypotheses joined into one "
    "string (' '.join(hypotheses)) and each reference stream joined into one. The n-grams "
    "then run across sentence boundaries, a sentence's words can match another sentence's "
    "references, and the reference length is chosen once for the corpus instead of per "
    "sentence. corpus_bleu takes one "
    "hypothesis per sentence and adds up their n-gram counts itself: "
    "sacrebleu.corpus_bleu(hypotheses, streams), each stream one entry per sentence.",
    "stream_mean": "You scored each reference stream on its own (one corpus_bleu call per "
    "stream, against that stream alone) and averaged the scores. BLEU with several "
    "references is not a mean of single-reference BLEUs: an n-gram counts as matched when "
    "it occurs in ANY of a sentence's references, so all the streams go into one call "
    "together, as a multi-reference set: sacrebleu.corpus_bleu(hypotheses, streams).",
    "stream_max": "You scored each reference stream on its own (one corpus_bleu call per "
    "stream, against that stream alone) and kept the best score. BLEU with several "
    "references is not the best of single-reference BLEUs: an n-gram counts as matched "
    "when it occurs in ANY of a sentence's references, so all the streams go into one "
    "call together, as a multi-reference set: sacrebleu.corpus_bleu(hypotheses, streams).",
    "empty_left_out": "Your BLEU leaves out the sentences whose translation is empty "
    "(hypothesis ''), with their references: it is corpus BLEU over the non-empty "
    "translations only, and comes out higher. Every sentence counts: an empty translation "
    "matches no n-gram, and its references' length still goes into the brevity penalty "
    "(the corpus is that much shorter than its references), which is what a model that "
    "translates nothing deserves. Pass every hypothesis, empty or not: "
    "sacrebleu.corpus_bleu(hypotheses, streams).",
    "empty_hypotheses_dropped": "Your BLEU leaves the empty translations (hypothesis '') "
    "out of the hypotheses but keeps every sentence's references: from the first empty one "
    "on, each hypothesis is scored against the next sentence's references (sacrebleu "
    "pairs them by position, and does not check the lengths). Every sentence counts, empty "
    "or not: sacrebleu.corpus_bleu(hypotheses, streams), each stream one entry per "
    "hypothesis.",
    "flat": "The references were given as a flat list of strings, one per sentence "
    "(references[i][0]), not as a list of streams: sacrebleu then reads each string as a "
    "stream of its own. corpus_bleu's second argument is a list of streams, "
    "[stream_0, stream_1, ...]; and every reference counts, not only the first: "
    + _ONE_STREAM_HINT,
}


def _compacted(references) -> list[list[str]]:
    """The streams with their holes left out (no None): the later streams are shorter."""
    width = max(len(refs) for refs in references)
    return [[refs[j] for refs in references if j < len(refs)] for j in range(width)]


def _corpus(hypotheses, streams) -> float:
    return sacrebleu.corpus_bleu(list(hypotheses), streams).score


def _per_stream_scores(hypotheses, references) -> list[float]:
    """corpus_bleu against each reference stream alone, over the sentences that have a
    reference in it (the family of blind22b-tsc-bleu-averaged-over-reference-streams)."""
    scores = []
    for stream in _streams(references):
        kept = [(h, ref) for h, ref in zip(hypotheses, stream, strict=True) if ref is not None]
        scores.append(_corpus([h for h, _ in kept], [[ref for _, ref in kept]]))
    return scores


def _kept(hypotheses, references, keep_references=False):
    """The hypotheses that are not empty (after strip()), with the references of their
    sentences, or with every sentence's references (``keep_references``)."""
    kept = [i for i, h in enumerate(hypotheses) if h.strip()]
    return [hypotheses[i] for i in kept], (
        references if keep_references else [references[i] for i in kept]
    )


#: the family 'another sacrebleu metric than BLEU': name -> (its call, what it measures)
_OTHER_METRICS = {
    "corpus_chrf": (
        lambda h, r: sacrebleu.corpus_chrf(list(h), _streams(r)).score,
        "chrF, an F-score of character n-grams",
    ),
    "corpus_chrf(..., word_order=2)": (
        lambda h, r: sacrebleu.corpus_chrf(list(h), _streams(r), word_order=2).score,
        "chrF++, an F-score of character n-grams and word bigrams",
    ),
    "corpus_ter": (
        lambda h, r: sacrebleu.corpus_ter(list(h), _streams(r)).score,
        "TER, the translation edit rate (lower is better)",
    ),
}

#: each known mistake's BLEU, (hypotheses, references) -> score
_BLEU_MODELS = {
    _BLEU_MISTAKES["first"]: lambda h, r: _bleu(h, [[refs[0]] for refs in r]),
    _BLEU_MISTAKES["width_first"]: lambda h, r: _corpus(
        h, [[refs[j] if j < len(refs) else None for refs in r] for j in range(len(r[0]))]
    ),
    _BLEU_MISTAKES["empty"]: lambda h, r: _bleu(h, r, ""),
    _BLEU_MISTAKES["sentence_mean"]: lambda h, r: float(
        np.mean([sacrebleu.sentence_bleu(a, list(b)).score for a, b in zip(h, r)])
    ),
    _BLEU_MISTAKES["swapped"]: lambda h, r: _bleu([refs[0] for refs in r], [[a] for a in h]),
    _BLEU_MISTAKES["fraction"]: lambda h, r: _bleu(h, r) / 100,
    _BLEU_MISTAKES["lowercase"]: lambda h, r: (
        sacrebleu.corpus_bleu(list(h), _streams(r), lowercase=True).score
    ),
    _BLEU_MISTAKES["per_sentence_lists"]: lambda h, r: _corpus(h, r),
    _BLEU_MISTAKES["compacted"]: lambda h, r: _corpus(h, _compacted(r)),
    _BLEU_MISTAKES["flat"]: lambda h, r: _corpus(h, [refs[0] for refs in r]),
    _BLEU_MISTAKES["stream_mean"]: lambda h, r: float(np.mean(_per_stream_scores(h, r))),
    _BLEU_MISTAKES["stream_max"]: lambda h, r: max(_per_stream_scores(h, r)),
    _BLEU_MISTAKES["empty_left_out"]: lambda h, r: _bleu(*_kept(h, r)),
    _BLEU_MISTAKES["empty_hypotheses_dropped"]: lambda h, r: _bleu(*_kept(h, r, True)),
    **{
        f"That is sacrebleu.{call}: {what}, not BLEU (corpus_bleu is not called). The "
        "contract's 'bleu' entry is sacrebleu.corpus_bleu(hypotheses, streams).score.": model
        for call, (model, what) in _OTHER_METRICS.items()
    },
    _BLEU_MISTAKES["joined"]: lambda h, r: _corpus(
        [" ".join(h)], [[" ".join(x for x in stream if x is not None)] for stream in _streams(r)]
    ),
}

# the family 'another number of the BLEU object than .score': the n-gram precisions it
# holds (their mean, the unigram one)
_BLEU_MODELS[
    "That is the mean of the four n-gram precisions (bleu.precisions), not the BLEU score: "
    "BLEU is their geometric mean times the brevity penalty. Return "
    "sacrebleu.corpus_bleu(hypotheses, streams).score."
] = lambda h, r: float(np.mean(sacrebleu.corpus_bleu(list(h), _streams(r)).precisions))
_BLEU_MODELS[
    "That is the unigram precision (bleu.precisions[0], the share of the hypotheses' words "
    "found in a reference), not the BLEU score, which combines the 1- to 4-gram precisions "
    "with a brevity penalty. Return sacrebleu.corpus_bleu(hypotheses, streams).score."
] = lambda h, r: float(sacrebleu.corpus_bleu(list(h), _streams(r)).precisions[0])
# ... and a sentence's references joined into one string, in one stream (a list of strings
# per sentence made into the one string sacrebleu seemed to want)
_BLEU_MODELS[
    "Each sentence's references were joined into one string (' '.join(references[i])) "
    "and given as a single stream: sacrebleu reads that as ONE long reference, whose "
    "n-grams run across the translations and whose length is the sum of theirs. Give each "
    "reference its own stream: stream j holds the j-th reference of every sentence, None "
    "where a sentence has fewer (itertools.zip_longest(*references))."
] = lambda h, r: _corpus(h, [[" ".join(refs) for refs in r]])

# the family 'a size capped': a fixed number of reference streams (streams[:k]), which
# on an input whose first sentence has k references gives what the width read off the
# first sentence gives (both are named then)
for _count in (2, 3):
    _BLEU_MODELS[
        f"Your BLEU counts only the first {_count} references of each sentence (the first "
        f"{_count} reference streams, streams[:{_count}], or a fixed number of streams): a "
        f"sentence with more than {_count} correct translations loses the others, and an "
        "n-gram that only they hold no longer matches. Every reference counts: one stream "
        "per reference, as many as the largest count, max(len(refs) for refs in references)."
    ] = lambda h, r, k=_count: _corpus(h, _streams(r)[:k])

# the family 'an option of corpus_bleu changed from its default': each other smoothing
# (blind19c-tsc-bleu-floor-smoothing was told only the expected score)
for _method in ("floor", "add-k", "none"):
    _BLEU_MODELS[
        f"That is corpus_bleu with smooth_method={_method!r}; the contract asks for "
        "corpus_bleu's default settings, whose smoothing is 'exp': the smoothing changes "
        "the score only when some n-gram order has no match at all (as here), so it can "
        "look right on other inputs. Leave smooth_method (and the other options) at their "
        "defaults."
    ] = lambda h, r, m=_method: sacrebleu.corpus_bleu(list(h), _streams(r), smooth_method=m).score
# ... and the effective order (sentence_bleu's setting), which counts only the n-gram
# orders the hypotheses have (blind26b-tsc-bleu-effective-order was not caught: every
# case had 4-grams)
_BLEU_MODELS[
    "That is corpus_bleu with use_effective_order=True (sentence_bleu's setting); the "
    "contract asks for corpus_bleu's default settings. No hypothesis here has 4 words, so "
    "the corpus has no 4-grams: the default counts that order anyway (its precision has "
    "nothing to match, and the score is 0), while the effective order leaves every n-gram "
    "order without any n-gram out of the geometric mean. The score differs only when the "
    "hypotheses are that short, so it can look right on other inputs. Leave "
    "use_effective_order (and the other options) at their defaults."
] = lambda h, r: sacrebleu.corpus_bleu(list(h), _streams(r), use_effective_order=True).score
# ... and each other tokenizer (blind21b-tsc-bleu-tokenize-none was not caught: no
# punctuation in the sentences, so every tokenizer split them alike)
for _tokenizer in ("none", "char", "intl"):
    _BLEU_MODELS[
        f"That is corpus_bleu with tokenize={_tokenizer!r}; the contract asks for "
        "corpus_bleu's default settings, whose tokenizer is '13a': it splits punctuation "
        "off the words ('grande.' becomes 'grande' and '.'), which "
        + (
            "a whitespace split (tokenize='none') does not, so a word with punctuation "
            "attached matches only the very same word with the very same punctuation"
            if _tokenizer == "none"
            else "this tokenizer does differently"
        )
        + ". The score differs only on sentences with punctuation, so it can look right "
        "on others. Leave tokenize (and the other options) at their defaults."
    ] = lambda h, r, t=_tokenizer: sacrebleu.corpus_bleu(list(h), _streams(r), tokenize=t).score
# the family 'the score rounded' (blind15a-tsc-bleu-rounded was told only the expected)
for _places in range(4):
    _BLEU_MODELS[
        f"Your BLEU is sacrebleu's score rounded to {_places} decimal place"
        f"{'s' if _places != 1 else ''} (round(bleu, {_places})), the way scores are "
        "reported in tables: the contract returns the score as it is. Round only where you "
        "print it."
    ] = lambda h, r, k=_places: round(_bleu(h, r), k)


# the family 'the texts re-encoded before scoring' (a normalisation applied to the
# hypotheses, to the references, or to both, before corpus_bleu): each edit, each side
def _without_punctuation(text: str) -> str:
    """The words without their punctuation ('¿quiere comerlo?' -> 'quiere comerlo')."""
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def _marks_deleted(text: str) -> str:
    """The text with its punctuation marks deleted where they stand, the spaces around them
    kept ('grande , muy' -> 'grande  muy'), the ends stripped."""
    return re.sub(r"[^\w\s]", "", text).strip()


def _without_accents(text: str) -> str:
    """The text with its accents and tildes taken off ('está' -> 'esta', 'niño' -> 'nino')."""
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _without_final_punctuation(text: str) -> str:
    """The text without the punctuation at its end ('grande.' -> 'grande')."""
    return text.rstrip(" .?!,;:")


def _ascii_only(text: str) -> str:
    """The text's ASCII characters, accented letters decomposed first ('¿está?' -> 'esta?')."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


#: edit -> (what it does to a text, how the learner's code may have done it)
_TEXT_EDITS = {
    "punctuation": (
        _without_punctuation,
        "their punctuation removed (re.sub(r'[^\\w\\s]', '', ...) or str.translate with "
        "string.punctuation)",
    ),
    "final_punctuation": (
        _without_final_punctuation,
        "the punctuation at their end taken off (the final '.' or '?': .rstrip('.?!'), or "
        "the marks replaced by '')",
    ),
    "ascii": (
        _ascii_only,
        "their accents taken off and every other character outside ASCII dropped "
        "(unicodedata.normalize('NFKD', ...).encode('ascii', 'ignore'): 'está' -> 'esta', "
        "and the '¿' and '¡' gone)",
    ),
    "ascii_dropped": (
        lambda text: text.encode("ascii", "ignore").decode(),
        "every character outside ASCII dropped, accented letters included "
        "(.encode('ascii', 'ignore'): 'está' -> 'est', and the '¿' and '¡' gone)",
    ),
    "accents": (
        _without_accents,
        "their accents removed (unicodedata.normalize('NFD', ...) without the combining "
        "marks, 'está' -> 'esta')",
    ),
    "lower": (str.lower, "their letters lowercased (.lower())"),
}
_TEXT_SIDES = {
    "hypotheses": lambda edit, h, r: (
        [edit(x) for x in h],
        r,
    ),
    "references": lambda edit, h, r: (
        list(h),
        [[edit(x) for x in refs] for refs in r],
    ),
    "both": lambda edit, h, r: (
        [edit(x) for x in h],
        [[edit(x) for x in refs] for refs in r],
    ),
}


def _text_edit_message(side: str, how: str) -> str:
    texts = {"hypotheses": "the hypotheses", "references": "the references"}.get(
        side, "the hypotheses and the references"
    )
    alone = (
        f" ({'the references' if side == 'hypotheses' else 'the hypotheses'} as they came)"
        if side != "both"
        else ""
    )
    return (
        f"That is corpus BLEU over {texts} with {how}{alone}: the texts were changed before "
        "scoring. The contract scores the strings as they come, with corpus_bleu's default "
        "settings (its '13a' tokenizer already splits punctuation off the words, and it is "
        "case- and accent-sensitive): sacrebleu.corpus_bleu(hypotheses, streams), neither "
        "list edited."
    )


#: the messages of the text edits: on the checked inputs several edits can drop the same
#: token (a final '?' stripped, a '¿' dropped as non-ASCII), so each is confirmed on
#: TEXT_EDIT_PROBE, where every edit on every side gives its own score
_TEXT_EDIT_MESSAGES = set()
for _edit_name, (_edit, _how) in _TEXT_EDITS.items():
    for _side, _apply in _TEXT_SIDES.items():
        if _edit_name == "lower" and _side == "both":
            continue  # lowercase=True's own message says it
        _TEXT_EDIT_MESSAGES.add(_text_edit_message(_side, _how))
        _BLEU_MODELS[_text_edit_message(_side, _how)] = lambda h, r, e=_edit, a=_apply: _bleu(
            *a(e, h, r)
        )

#: accents, '¿', final and inner punctuation and capitals, on both sides: every text edit
#: on every side gives another score here (tests/test_10_training.py checks it)
TEXT_EDIT_PROBE = (
    [
        "¿ Dónde está el niño ?",
        "la casa es grande, muy grande.",
        "el gato bebe leche fría",
        "Mañana vamos al río.",
        "el perro come pan y nada mas",
    ],
    [
        ["¿ dónde está el niño ?"],
        ["la casa es grande , muy grande", "La casa es grande, muy grande"],
        ["el gato bebe la leche fria."],
        ["mañana vamos al rio"],
        ["El perro come pan y nada más."],
    ],
)


def _confirmed_text_edits(translation_scores, found: list[str]) -> list[str]:
    """The mistakes of ``found`` that also give the learner's BLEU on
    :data:`TEXT_EDIT_PROBE`, when ``found`` holds a text edit; where none does, or the probe
    cannot run, ``found`` without its text edits (never an unconfirmed one)."""
    if not _TEXT_EDIT_MESSAGES.intersection(found):
        return found
    try:
        probe = float(
            translation_scores(*(copy.deepcopy(part) for part in TEXT_EDIT_PROBE))["bleu"]
        )
    except Exception:  # unconfirmed: no text edit is named
        return [message for message in found if message not in _TEXT_EDIT_MESSAGES]
    confirmed = [
        message
        for message in found
        if (value := _attempt(_BLEU_MODELS[message], *TEXT_EDIT_PROBE)) is not None
        and math.isclose(probe, value, rel_tol=1e-6, abs_tol=1e-9)
    ]
    return confirmed or [message for message in found if message not in _TEXT_EDIT_MESSAGES]


#: an input on which the mistakes that can tie on the checked ones part: the reference
#: lists as they came and the streams without their holes (both 100 on the first visible
#: case) give 50.8 and 100 here (tests/test_10_training.py checks that every pair of
#: models that can tie differs here)
BLEU_PROBE = (
    ["el gato negro bebe la leche fria", "veo el perro grande", "la mujer come pan"],
    [
        ["el gato negro bebe leche fria", "el gato negro bebe la leche fria"],
        ["veo al perro grande"],
        ["la mujer come el pan", "la mujer come pan", "una mujer come pan"],
    ],
)


def _bleu_mistakes(hypotheses, references) -> dict[str, float | None]:
    return {m: _attempt(model, hypotheses, references) for m, model in _BLEU_MODELS.items()}


def _matching_bleu_mistakes(translation_scores, bleu, hypotheses, references):
    """The known mistakes that give the learner's BLEU; where several do, the ones that
    also give the learner's BLEU on :data:`BLEU_PROBE` (all of them if the probe cannot
    tell: a failing call, or no model left)."""
    found = [
        message
        for message, value in _bleu_mistakes(hypotheses, references).items()
        if value is not None and math.isclose(bleu, value, rel_tol=1e-6, abs_tol=1e-9)
    ]
    found = _confirmed_text_edits(translation_scores, found)
    if len(found) < 2:
        return found
    try:
        probe = translation_scores(*(copy.deepcopy(part) for part in BLEU_PROBE))["bleu"]
        probe = float(probe)
    except Exception:  # the probe is only a tie-break: without it, every candidate
        return found
    kept = [
        message
        for message in found
        if (value := _attempt(_BLEU_MODELS[message], *BLEU_PROBE)) is not None
        and math.isclose(probe, value, rel_tol=1e-6, abs_tol=1e-9)
    ]
    return kept or found


def _bleu_wrong_too(translation_scores, bleu, hypotheses, references) -> str:
    """When the exact match is wrong: what is wrong with the BLEU of the same call too
    (its value, the expected one, and the mistake that gives it when the known ones tell),
    so that two slips at once are both said; "" when the BLEU is right or not a number."""
    if not isinstance(bleu, numbers.Real) or isinstance(bleu, bool):
        return ""
    expected = _bleu(hypotheses, references)
    bleu = float(bleu)
    if not math.isfinite(bleu) or math.isclose(bleu, expected, rel_tol=1e-6, abs_tol=1e-6):
        return ""
    found = _matching_bleu_mistakes(translation_scores, bleu, hypotheses, references)
    said = f"{bleu:.4g}, expected {expected:.4g}."
    if len(found) == 1:
        return f"{said} {found[0]}"
    if found:
        return f"{said} On these inputs {len(found)} mistakes give exactly this value: " + " ".join(
            f"({i}) {m}" for i, m in enumerate(found, 1)
        )
    return f"{said} It is sacrebleu.corpus_bleu(hypotheses, streams).score."


_NOT_STRINGS = (
    "sacrebleu found a hypothesis that is not a string: corpus_bleu's first argument is the "
    "hypotheses as they come, a flat list of strings, one per sentence; only the references "
    "are grouped, into a list of streams."
)


def _received_hypotheses(exc: BaseException):
    """What sacrebleu received as its hypotheses (``hyps``, the argument it checks), read
    from its own frame in the error's traceback; None when it cannot be read."""
    received, tb = None, exc.__traceback__
    while tb is not None:
        if "sacrebleu" in tb.tb_frame.f_code.co_filename and "hyps" in tb.tb_frame.f_locals:
            received = tb.tb_frame.f_locals["hyps"]
        tb = tb.tb_next
    return received


def _hypotheses_hint(hypotheses: Sequence[str], references: Sequence[Sequence[str]]):
    """The hint for hypotheses sacrebleu refused: which of the three calls that give this
    error it was, told by what sacrebleu received (all three named when that is unknown)."""

    def hint(exc: BaseException) -> str:
        got = _received_hypotheses(exc)
        items = list(got) if isinstance(got, list | tuple) else []
        words = len(items) == len(hypotheses) > 1 and all(
            isinstance(item, list | tuple)
            and all(isinstance(w, str) for w in item)
            and list(item) == hypotheses[i].split()
            for i, item in enumerate(items)
        )
        if words:
            return (
                f"{_NOT_STRINGS} Yours received each hypothesis split into words, a list of "
                f"tokens ({short(items[0], 80)}), the input NLTK's BLEU wants; sacrebleu "
                "takes whole strings and tokenises them itself. Pass the hypotheses as they "
                "come: sacrebleu.corpus_bleu(hypotheses, streams)."
            )
        if len(items) == 1 and isinstance(items[0], list | tuple):
            if list(items[0]) == list(hypotheses):
                return (
                    f"{_NOT_STRINGS} Yours received the hypotheses wrapped in a list, "
                    "[hypotheses]: only the references are wrapped. Call "
                    "sacrebleu.corpus_bleu(hypotheses, streams)."
                )
        if (
            items
            and isinstance(items[0], list | tuple)
            and list(items[0])[:1] == [references[0][0]]
        ):
            return (
                f"{_NOT_STRINGS} Yours received the reference streams first: the two "
                "arguments are swapped. Call sacrebleu.corpus_bleu(hypotheses, streams)."
            )
        return (
            f"{_NOT_STRINGS} Three calls give this error: the hypotheses wrapped in a list "
            "([hypotheses]), the two arguments swapped (the streams first), or hypotheses "
            "split into words. Call sacrebleu.corpus_bleu(hypotheses, streams)."
        )

    return hint


def check_translation_scores(translation_scores, *, hidden: bool = False) -> None:
    """translation_scores(hypotheses, references) -> {"exact_match", "bleu"}, with a list
    of every correct translation per sentence."""
    with Checker("translation_scores", hidden=hidden) as c:
        c.require_callable(translation_scores)
        for hypotheses, references in _score_cases(hidden):
            counts = sorted({len(refs) for refs in references})
            what = (
                f"translation_scores({len(hypotheses)} hypotheses, {len(references)} lists of "
                f"references with {', '.join(map(str, counts))} references each)"
            )
            got = c.call(
                translation_scores,
                list(hypotheses),
                [list(refs) for refs in references],
                call_repr=what,
                hints={
                    "should be a sequence of sequence of strings": _NESTED_TOO_DEEP_HINT,
                    "Each element of `hyps` should be a string": _hypotheses_hint(
                        hypotheses, references
                    ),
                    "Reference sentence": _ONE_STREAM_HINT,
                    "does not match": _ONE_STREAM_HINT,
                    "NoneType": "A None in the streams is fine for sacrebleu; it must not "
                    "reach your own code (exact match compares against the real references).",
                    "list index out of range": "An index ran past the end of a list. Here the "
                    "sentences have different numbers of references: reference stream j "
                    "holds references[i][j] only where j < len(references[i]) (None "
                    "elsewhere), for j in range(the largest number of references).",
                },
            )
            if isinstance(got, tuple | list):
                c.fail(
                    f"{what} returned a {type(got).__name__}; return a dict "
                    '{"exact_match": ..., "bleu": ...}.'
                )
            c.expect_type(got, dict, what)
            if set(got) != {"exact_match", "bleu"}:
                c.fail(f'{what} has the keys {sorted(got)}; expected "exact_match" and "bleu".')
            c.ok()
            try:
                _check_exact_match(c, got, hypotheses, references, what, translation_scores)
            except CheckFailure as failure:  # two mistakes at once: both are said
                also = _bleu_wrong_too(translation_scores, got["bleu"], hypotheses, references)
                if not also:
                    raise
                raise CheckFailure(
                    failure.exercise,
                    f'{failure.message}\nAnd ["bleu"] of the same call is wrong too: {also}',
                    failure.learner_traceback,
                ) from None
            bleu = plain_float(c, got["bleu"], f'{what}["bleu"]', "Return a float: .score.")
            expected = _bleu(hypotheses, references)
            if not math.isclose(bleu, expected, rel_tol=1e-6, abs_tol=1e-6):
                found = _matching_bleu_mistakes(translation_scores, bleu, hypotheses, references)
                said = f'{what}["bleu"] is {bleu:.4g}, expected {expected:.4g}.'
                if len(found) == 1:
                    c.fail(f"{said} {found[0]}")
                if found:
                    c.fail(
                        f"{said} On these inputs {len(found)} mistakes give exactly this value: "
                        + " ".join(f"({i}) {m}" for i, m in enumerate(found, 1))
                    )
                c.fail(
                    f'{what}["bleu"] is {bleu:.4g}, expected {expected:.4g}: '
                    "sacrebleu.corpus_bleu(hypotheses, streams).score with default settings, "
                    "stream j holding every sentence's j-th reference (None where it has fewer)."
                )
            c.ok()


#: an input on which the exact-match mistakes part (yours must give 3 / 5 = 0.6 here):
#: counting gives 3, a count times n 15, a percentage 60, only the first reference 0.4,
#: every reference 0.2, a substring test 0.8, a string compared with a list 0
EXACT_PROBE = (
    ["el gato come", "veo al perro", "la casa", "el niño bebe agua", "mi libro"],
    [
        ["el gato come", "un gato come"],
        ["veo el perro", "veo al perro"],
        ["la casa es grande"],
        ["un niño bebe agua"],
        ["mi libro"],
    ],
)
#: an input where every hypothesis matches (yours must give 1.0 here): a count divided
#: with // gives 1, a string compared with a list 0, a division by the number of
#: references 2 / 3
ALL_MATCH_PROBE = (
    ["el perro", "la casa"],
    [["el perro"], ["una casa", "la casa"]],
)
#: an input where case matters (yours must give 1 / 4 here; in lower case 3 / 4)
CASE_PROBE = (
    ["La casa", "El perro come", "veo al gato", "mi libro"],
    [["la casa"], ["el perro come"], ["veo el gato"], ["mi libro"]],
)


def _exact_models(hypotheses, references) -> dict[str, float]:
    """Each known exact-match mistake's value on these inputs, by its name."""
    n = len(hypotheses)
    pairs = list(zip(hypotheses, references))
    matches = sum(h in refs for h, refs in pairs)
    return {
        "percent": 100 * matches / n,
        "count": float(matches),
        "count_times_n": float(matches * n),
        "never": 0.0,
        "first": sum(h == refs[0] for h, refs in pairs) / n,
        "every": sum(all(h == r for r in refs) for h, refs in pairs) / n,
        "substring": sum(any(h in r for r in refs) for h, refs in pairs) / n,
        # the strings compared in lower case
        "lowercase": sum(h.lower() in [r.lower() for r in refs] for h, refs in pairs) / n,
        # each hypothesis tested against the references of every sentence together
        "pooled": sum(h in {r for refs in references for r in refs} for h in hypotheses) / n,
        # the same words as a reference, in any order: as sets, or as sorted lists
        "word_set": sum(any(set(h.split()) == set(r.split()) for r in refs) for h, refs in pairs)
        / n,
        "word_bag": sum(
            any(sorted(h.split()) == sorted(r.split()) for r in refs) for h, refs in pairs
        )
        / n,
        # the family 'texts re-encoded before comparing': both sides edited first
        **{
            f"edited_{name}": sum(edit(h) in [edit(r) for r in refs] for h, refs in pairs) / n
            for name, (edit, _) in _TEXT_EDITS.items()
            if name != "lower"  # "lowercase" above
        },
        # ... the marks deleted where they stand (a space around one stays)
        "edited_marks_deleted": sum(
            _marks_deleted(h) in [_marks_deleted(r) for r in refs] for h, refs in pairs
        )
        / n,
        # the family 'elements filtered out': the empty translations left out of the count
        "non_empty": (
            sum(h in refs for h, refs in pairs if h.strip()) / kept
            if (kept := sum(bool(h.strip()) for h in hypotheses))
            else math.nan
        ),
        # the count divided with // (0 unless every hypothesis matches)
        "floor": float(matches // n),
        # the count divided by the number of references, not of hypotheses
        "over_references": matches / sum(len(refs) for refs in references),
    }


def _exact_mistakes(translation_scores, value, hypotheses, references) -> list[str]:
    """The known exact-match mistakes that give the learner's value here and differ from
    the right one, kept only where they also give the learner's value on the probes
    (:data:`EXACT_PROBE`, :data:`CASE_PROBE`): one agreement on one input is not enough to
    name a cause (a count of 1 match and a fraction of 1 look alike). If a probe cannot
    be run, the candidates stay as they are."""
    exact = sum(h in refs for h, refs in zip(hypotheses, references)) / len(hypotheses)
    found = [
        name
        for name, model in _exact_models(hypotheses, references).items()
        if not math.isclose(model, exact, abs_tol=1e-9) and math.isclose(value, model, abs_tol=1e-9)
    ]
    if not found:
        return found
    for probe_input in (
        EXACT_PROBE,
        CASE_PROBE,
        ALL_MATCH_PROBE,
        _WORD_ORDER_SCORES,
        TEXT_EDIT_PROBE,
        _EMPTY_SCORES,
    ):
        try:
            probe = float(translation_scores(*copy.deepcopy(probe_input))["exact_match"])
        except Exception:  # the probes only confirm
            return found
        models = _exact_models(*probe_input)
        found = [name for name in found if math.isclose(probe, models[name], abs_tol=1e-9)]
    return found


def _rearranged_example(hypotheses, references, words) -> str:
    """' (such as 'b a' for 'a b')': the first hypothesis that equals none of its
    references but has the same ``words`` (set, sorted) as one of them."""
    for h, refs in zip(hypotheses, references):
        same = [r for r in refs if words(h.split()) == words(r.split())]
        if same and h not in refs:
            return f" (such as '{h}' for '{same[0]}')"
    return ""


#: one-pair probes, each a hypothesis and a reference that differ in one respect only
#: (name: (hypothesis, reference, edit that makes them equal, what the learner's code ignores))
_NORMALISATION_PROBES = {
    "case": ("the cat sat", "The cat sat", str.lower, "case ('The cat sat' for 'the cat sat')"),
    "punctuation": (
        "the cat sat",
        "the cat, sat.",
        _without_punctuation,
        "punctuation ('the cat, sat.' for 'the cat sat')",
    ),
    "articles": (
        "a cat sat",
        "the cat sat",
        lambda text: re.sub(r"\b(a|an|the)\b", " ", text),
        "the articles a, an and the ('a cat sat' for 'the cat sat')",
    ),
    "accents": ("esta casa", "está casa", _without_accents, "accents ('está' for 'esta')"),
}


def _normalisation_note(
    translation_scores, value, hypotheses, references, *, at_least: int = 1
) -> str:
    """The respects in which the learner's exact match ignores differences, probed one pair
    at a time (:data:`_NORMALISATION_PROBES`), when applying those normalisations together
    before comparing gives the learner's value on the check's input (SQuAD's answer
    normalisation, blind29b-tsc-exact-match-squad-normalised, was told only "compare
    whole strings"). "" when no probe matches, a different pair matches too, or the
    normalisations found do not give the value."""

    def score(h: str, r: str) -> float | None:
        try:
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return float(translation_scores([h], [[r]])["exact_match"])
        except Exception:
            return None

    if score("the cat sat", "a dog ran") != 0.0:
        return ""  # unrelated strings counted (or no answer): the probes mean nothing
    found = [name for name, (h, r, *_) in _NORMALISATION_PROBES.items() if score(h, r) == 1.0]
    if len(found) < at_least:
        return ""

    def normalise(text: str) -> str:
        for name in found:
            text = _NORMALISATION_PROBES[name][2](text)
        return " ".join(text.split())

    n = len(hypotheses)
    model = sum(
        normalise(h) in [normalise(r) for r in refs] for h, refs in zip(hypotheses, references)
    )
    if not math.isclose(value, model / n, abs_tol=1e-9):
        return ""
    ignored = [_NORMALISATION_PROBES[name][3] for name in found]
    listed = ignored[0] if len(ignored) == 1 else f"{', '.join(ignored[:-1])} and {ignored[-1]}"
    squad = (
        " That is an answer normalisation applied before comparing, as SQuAD's "
        "normalize_answer does (lower case, punctuation and articles removed, whitespace "
        "collapsed)."
        if len(found) > 1
        else " A normalisation is applied before comparing."
    )
    return (
        f"your comparison ignores {listed}: tried one pair at a time, a hypothesis counted as "
        "matching a reference that differs from it only there, and with those differences "
        f"ignored the check's sentences give your value, {model} of {n}.{squad}"
    )


def _check_exact_match(
    c: Checker, got, hypotheses, references, what: str, translation_scores=None
) -> None:
    n = len(hypotheses)
    exact = sum(h in refs for h, refs in zip(hypotheses, references)) / n
    value = plain_float(c, got["exact_match"], f'{what}["exact_match"]', "Return a float.")
    if math.isclose(value, exact, abs_tol=1e-9):
        c.ok()
        return
    matches = round(exact * n)
    found = (
        _exact_mistakes(translation_scores, value, hypotheses, references)
        if translation_scores is not None
        else [
            name
            for name, model in _exact_models(hypotheses, references).items()
            if math.isclose(value, model, abs_tol=1e-9)
        ]
    )
    said = {
        "percent": f'{what}["exact_match"] is {value:g}, a percentage; the contract asks for '
        f"the fraction, {exact:g} (0 to 1).",
        "count": f'{what}["exact_match"] is {value:g}, the number of hypotheses that equal one '
        f"of their references; the contract asks for their fraction: divide by the number "
        f"of hypotheses, {matches} / {n} = {exact:g}.",
        "count_times_n": f'{what}["exact_match"] is {value:g}, the number of matches '
        f"({matches}) times the number of hypotheses ({n}); divide instead: {matches} / {n} "
        f"= {exact:g}.",
        "never": f'{what}["exact_match"] is 0: no hypothesis counted, though {matches} of the '
        f"{n} equal one of their references. 0 is what comparing a hypothesis with its whole "
        "list of references gives (`hypothesis == references[i]`: a string never equals "
        "a list); test membership, `hypothesis in references[i]`.",
        "first": f'{what}["exact_match"] is {value:g}: only hypotheses equal to the *first* '
        f"reference counted. A hypothesis is right when it equals any of its references: "
        f"{matches} of {n} do, {exact:g}.",
        "every": f'{what}["exact_match"] is {value:g}: a hypothesis counted only if it equals '
        "every one of its references (all(...) where any(...) belongs), which no sentence "
        "with two different correct translations can pass. It is right when it equals any "
        f"one of its references: {matches} of {n}, {exact:g}.",
        "lowercase": f'{what}["exact_match"] is {value:g}: a hypothesis that differs from its '
        "reference only in case (such as 'La casa' for 'la casa') counted as a match, as "
        "comparing in lower case (.lower()) does. Exact match compares the strings as they "
        f"are, case included: {matches} of {n}, {exact:g}.",
        "substring": f'{what}["exact_match"] is {value:g}: a hypothesis that is only part of a '
        "reference (such as its first words) counted as a match, as a substring test does "
        "(`hypothesis in some_string`, for example in the references joined into one "
        f"string). Only whole strings match: `hypothesis in references[i]`, a list, gives "
        f"{matches} of {n}, {exact:g}.",
        "pooled": f'{what}["exact_match"] is {value:g}: a hypothesis that equals another '
        "sentence's reference, but none of its own, counted as a match, as testing each "
        "hypothesis against the references of every sentence pooled together does (one set "
        "or list of all the references). A translation is right only for its own sentence: "
        "compare hypothesis i with references[i] alone, zip(hypotheses, references), "
        f"`hypothesis in refs`: {matches} of {n}, {exact:g}.",
    }
    said["floor"] = (
        f'{what}["exact_match"] is {value:g}: the number of matches ({matches}) divided '
        f"by the number of hypotheses ({n}) with // (floor division), which rounds the "
        "fraction down to a whole number: 0 unless every hypothesis matches (an int, not a "
        f"fraction between 0 and 1). Divide with /: {matches} / {n} = {exact:g}."
    )
    said["word_set"] = (
        f'{what}["exact_match"] is {value:g}: a hypothesis with the same SET of words as a '
        f"reference counted as a match{_rearranged_example(hypotheses, references, set)}, "
        "as comparing set(hypothesis.split()) with set(reference.split()) does: a set "
        "forgets the word order and how often each word occurs. Exact match compares whole "
        f"strings, `hypothesis in references[i]`: {matches} of {n}, {exact:g}."
    )
    said["word_bag"] = (
        f'{what}["exact_match"] is {value:g}: a hypothesis with the same words as a '
        f"reference in another order counted as a match"
        f"{_rearranged_example(hypotheses, references, sorted)}, as comparing the sorted "
        "words (or a Counter of them) does, which forgets the word order. Exact match "
        f"compares whole strings, `hypothesis in references[i]`: {matches} of {n}, {exact:g}."
    )
    for name, (_, how) in _TEXT_EDITS.items():
        said[f"edited_{name}"] = (
            f'{what}["exact_match"] is {value:g}: the hypotheses and the references were '
            f"compared with {how}, so a hypothesis that differs from its reference only "
            "there counted as a match. Exact match compares the strings as they are: "
            f"`hypothesis in references[i]`, {matches} of {n}, {exact:g}."
        )
    said["edited_marks_deleted"] = said["edited_punctuation"]
    empty = sum(not h.strip() for h in hypotheses)
    said["non_empty"] = (
        f'{what}["exact_match"] is {value:g}: the {empty} empty translation'
        f"{'s were' if empty != 1 else ' was'} left out of the count, so the fraction is "
        f"taken over the {n - empty} non-empty ones. An empty translation is a wrong one: "
        f"every hypothesis counts, {matches} / {n} = {exact:g}."
    )
    refs = sum(len(r) for r in references)
    said["over_references"] = (
        f'{what}["exact_match"] is {value:g}: the number of matches ({matches}) divided by '
        f"the number of references of all the sentences ({refs}) instead of the number of "
        f"hypotheses ({n}). Each hypothesis counts once, whatever its number of "
        f"references: {matches} / {n} = {exact:g}."
    )
    # several normalisations at once (lower case and the articles dropped, say): a single
    # one, fitting this input, would name part of the mistake only
    if (
        translation_scores is not None
        and found
        and (
            normalised := _normalisation_note(
                translation_scores, value, hypotheses, references, at_least=2
            )
        )
    ):
        c.fail(
            f'{what}["exact_match"] is {value:g}: {normalised} Exact match compares the '
            f"strings as they are: `hypothesis in references[i]`, {matches} of {n}, "
            f"{exact:g}."
        )
    texts = {said[name]: name for name in reversed(found)}  # one name per text, the first
    found = [name for name in found if texts[said[name]] == name]
    if len(found) == 1:
        c.fail(said[found[0]])
    if found:
        c.fail(
            f'{what}["exact_match"] is {value:g}, expected {exact:g}. On these inputs '
            f"{len(found)} mistakes give exactly this value: "
            + " ".join(f"({i}) {said[name]}" for i, name in enumerate(found, 1))
        )
    if translation_scores is not None and (
        normalised := _normalisation_note(translation_scores, value, hypotheses, references)
    ):
        c.fail(
            f'{what}["exact_match"] is {value:g}: {normalised} Exact match compares the '
            f"strings as they are: `hypothesis in references[i]`, {matches} of {n}, "
            f"{exact:g}."
        )
    c.fail(
        f'{what}["exact_match"] is {value:g}; {matches} of the {n} hypotheses equal one of '
        f"their references: {exact:g}. Compare whole strings, hypothesis i with the "
        "references of sentence i (`hypothesis in references[i]`)."
    )
