"""Words that came apart: a word tokenizer's tokens that are the right ones except that
some words were cut into pieces, told by where the cuts fall.

A word rule that keeps "a maximal run of letters, any script" whole goes wrong as one
family when a script is treated apart: every character of one script a token of its own
(BERT's ``tokenize_chinese_chars`` spaces out each CJK ideograph; a pattern alternative
``[\\u4e00-\\u9fff]`` before ``\\w+`` does the same), or a cut wherever the script
changes (``'2024年'`` as ``'2024'``, ``'年'``). :func:`split_words` reads the cuts off every
compared (got, expected) pair and states the rule only when the cuts of every pair agree
with it, and no other part of the tokens differs; where no rule fits, it says which word
was cut and into what pieces, without a cause; "" when the tokens differ otherwise.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

__all__ = ["script_of", "split_words", "word_pieces"]

#: scripts named for a learner: what the Unicode character names start with -> the words
_SCRIPT_NAMES = {
    "CJK": "CJK ideograph (a Chinese character, a Japanese kanji)",
    "IDEOGRAPHIC": "CJK ideograph (a Chinese character, a Japanese kanji)",
    "HIRAGANA": "hiragana character",
    "KATAKANA": "katakana character",
    "HANGUL": "Hangul syllable",
    "LATIN": "Latin letter",
    "GREEK": "Greek letter",
    "CYRILLIC": "Cyrillic letter",
    "ARABIC": "Arabic letter",
    "HEBREW": "Hebrew letter",
    "THAI": "Thai character",
    "DEVANAGARI": "Devanagari character",
}


def script_of(ch: str) -> str:
    """The script of a word character, as its Unicode name starts ('CJK', 'LATIN',
    'GREEK', ...); 'DIGIT' for a digit, 'UNDERSCORE' for '_'; ASCII letters are 'LATIN'."""
    if ch == "_":
        return "UNDERSCORE"
    if ch.isdigit():
        return "DIGIT"
    name = unicodedata.name(ch, "")
    if name.startswith("CJK") or name.startswith("IDEOGRAPHIC"):
        return "CJK"
    first = re.split(r"[ -]", name, maxsplit=1)[0] if name else "OTHER"
    return first or "OTHER"


def _named(script: str) -> str:
    if script in _SCRIPT_NAMES:
        return _SCRIPT_NAMES[script]
    if script == "DIGIT":
        return "digit"
    return f"{script.lower()} character"


def word_pieces(got: Sequence, expected: Sequence[str]) -> list[tuple[str, list[str]]] | None:
    """[(word, pieces)] for each of ``expected``'s words that ``got`` holds cut into two
    pieces or more, in order, when every other token is the same; None when the tokens
    differ in any other way (or are not strings)."""
    if not all(isinstance(t, str) for t in got):
        return None
    cut, j = [], 0
    for token in expected:
        if j < len(got) and got[j] == token:
            j += 1
            continue
        if not re.fullmatch(r"\w+", token):
            return None
        pieces, built = [], ""
        while j < len(got) and got[j] and token.startswith(built + got[j]) and built != token:
            built += got[j]
            pieces.append(got[j])
            j += 1
        if built != token or len(pieces) < 2:
            return None
        cut.append((token, pieces))
    return cut if j == len(got) else None


def _cuts(word: str, pieces: list[str]) -> set[int]:
    """The positions in ``word`` before which a piece starts (0 excluded)."""
    at, out = 0, set()
    for piece in pieces[:-1]:
        at += len(piece)
        out.add(at)
    return out


def split_words(pairs: Sequence[tuple[Sequence, Sequence[str]]]) -> str:
    """What every (got, expected) pair shows when some pair's tokens are the expected ones
    with words cut into pieces, and nothing else differs in any pair: the rule behind the
    cuts when one fits every word of every pair (each character of one script alone; a
    cut wherever the script changes; both named when they cannot be told apart), else the
    word and its pieces alone; "" otherwise."""
    splits: list[list[tuple[str, list[str]]]] = []
    for got, expected in pairs:
        found = word_pieces(list(got), list(expected))
        if found is None:
            return ""
        splits.append(found)
    cut_words = [item for found in splits for item in found]
    if not cut_words:
        return ""
    cut_of = {word: _cuts(word, pieces) for word, pieces in cut_words}
    words = [w for _, expected in pairs for w in expected if re.fullmatch(r"\w+", w)]
    uncut = [w for w in words if w not in cut_of]

    def boundaries(word: str) -> set[int]:
        return {k for k in range(1, len(word)) if script_of(word[k]) != script_of(word[k - 1])}

    def alone(script: str, word: str) -> set[int]:
        return {
            k
            for k in range(1, len(word))
            if script_of(word[k]) == script or script_of(word[k - 1]) == script
        }

    def apart(script: str, word: str) -> set[int]:
        return {
            k
            for k in range(1, len(word))
            if (script_of(word[k]) == script) != (script_of(word[k - 1]) == script)
        }

    def fits(rule) -> bool:
        return all(cut_of.get(w, set()) == rule(w) for w in words)

    scripts = sorted({script_of(ch) for w in cut_of for ch in w})
    by_script = fits(boundaries)
    word, pieces = cut_words[0]
    shown = f"{word!r} came back as {', '.join(map(repr, pieces))}"
    rules = []
    for script in scripts:
        # each character alone is told from a run cut off whole only by a word that holds
        # two of them side by side
        side_by_side = any(
            script_of(a) == script_of(b) == script for w in cut_of for a, b in zip(w, w[1:])
        )
        others = [w for w in uncut if len(w) > 1 and all(script_of(ch) != script for ch in w)]
        example = next((w for w in others if not w.isascii()), others[0] if others else "")
        whole = f", while words without one stay whole ({example!r})" if example else ""
        if side_by_side and fits(lambda w, s=script: alone(s, w)):
            rule = f"every {_named(script)} became a token of its own, wherever it stands{whole}"
            if script == "CJK":
                rule += (
                    ": BERT's tokenize_chinese_chars step does that (a space put around every "
                    "CJK character before the split), and on words that start with one, so does "
                    "a pattern alternative that matches one ideograph ([\\u4e00-\\u9fff]) "
                    "tried before \\w+"
                )
            rules.append(rule)
        elif fits(lambda w, s=script: apart(s, w)) and not (by_script and len(scripts) == 2):
            rules.append(
                f"each run of {_named(script)}s was cut off from the rest of its word{whole}"
            )
    if by_script:
        rules.append(
            "your words are cut wherever the script changes (letters of one script, then "
            "another, or digits), so a word that mixes them comes apart"
        )
    rule = "; or ".join(rules)
    if len(rules) > 1:
        rule += " (these words cannot tell them apart)"
    if rule:
        return (
            f"{shown}: {rule}. Every other token is right. In this lesson's rule a word is a "
            f"maximal run of letters, digits or '_' of any script, mixed or not: {word!r} is "
            "one token, as \\w+ gives."
        )
    return (
        f"{shown}: your tokens cut this word into pieces, where the rule keeps it whole; "
        "every other token is right. A word is a maximal run of letters, digits or '_' of "
        f"any script: {word!r} is one token, as \\w+ gives."
    )
