"""The check of ``tokenize``: lower-cased words and punctuation, and the splitting mistakes
it names.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import itertools
import re
import string
import unicodedata

from transformer_course.checking import Checker, short
from transformer_course.checking.hints import two_mistakes
from transformer_course.checking.split_words import split_words
from transformer_course.reference import tokenization as ref

from .common import _expect_not_accumulated, _tokens

_VISIBLE_TEXTS = [
    "Hello, I love you!",
    "The ball is blue.",
    "Hi   how are you?",
    "Wait... what?!",
    "Déjà vu:\t2 snake_case\nwords",
    "She didn't.",
    'A well-known "quote" (really).',
    "",
    # tells apart stripped accents, ASCII folding and case folding; letters and digits
    "Straße: λόγος mp3",
    # marks between digits are tokens too: '3', '.', '50'
    "It costs $3.50, or 1,000 yen.",
    # marks outside ASCII are marks too: a fixed list such as string.punctuation misses them
    "Il dit «oui» — puis… non",
    # a run of letters of any script is one word, CJK ideographs included: '任务' is one
    # token (a rule that treats one script apart cuts it)
    "任务：Tokenize 文本。",
    # 'İ' lower-cases to 'i' and a combining dot (U+0307), not a word character: lower-casing
    # the text first splits 'İzmir' in three, lower-casing each token after the split does not
    "İzmir, İstanbul",
]
_HIDDEN_TEXTS = [
    "The black cat drank the milk... didn't it?!",
    "La bola es azul; ¿verdad?",
    "Ünïcödé wörds, 42 numbers & snake_case",
    "  tabs\tand\nnewlines  ",
    "(nested [brackets]) -- dashes",
    "Größe ΣΟΦΊΑ b2b",
    "pi = 3.14159; 50,000 people",
    "Привет, 世界! 2024年, 東京タワー",
    "Bir İnci: İyi",
]

#: a word's inner marks left glued (whitespace split, marks peeled off the ends): named only
#: when every run agrees, since one text alone cannot tell it from a word pattern that
#: admits that mark ([\w-]+, [\w']+)
_GLUED_INSIDE = (
    "A mark inside a word stays glued in it ('well-known', 'didn't'): you split on "
    "whitespace and peeled the marks off the two ends of each chunk only. Every mark is a "
    "token, wherever it stands: 'well-known' is 'well', '-', 'known'. re.findall(r'\\w+|"
    "[^\\w\\s]', text) finds them all."
)


_TOKENIZE_HINTS = [
    (
        "'list' object has no attribute 'lower'",
        "re.findall (or split) returns a list, which has no .lower(): lower-case the text "
        "before you split it, re.findall(pattern, text.lower()).",
    ),
    (
        "got 'builtin_function_or_method'",
        "A method was passed where its result belongs: text.lower without parentheses is the "
        "method itself. Call it: text.lower().",
    ),
]


#: a text of three lines, two sentences on the first: one list per line, or per sentence?
_LINES_PROBE = "One cat. Two cats\nthree\nfour dogs"


def _one_list_per_line(tokenize) -> str:
    """Why tokenize returns a list of lists, from a text of three lines whose first holds
    two sentences: one list per line (text.splitlines()), per sentence, or "" when neither
    fits."""
    with contextlib.redirect_stdout(io.StringIO()):
        parts = tokenize(_LINES_PROBE)
    sizes = [len(part) for part in parts] if isinstance(parts, list | tuple) else []
    lines = [ref.tokenize(line) for line in _LINES_PROBE.splitlines()]
    if [list(p) for p in parts] == lines:
        return (
            f": on a text of 3 lines, {_LINES_PROBE!r}, yours gives {len(sizes)} lists, "
            "one per line, so you tokenise line by line (text.splitlines()) and keep each "
            "line's tokens apart"
        )
    if len(sizes) == 3 and sizes == [len(line) for line in lines]:
        return ": one list per line of the text (text.splitlines())"
    return ""


def check_tokenize(tokenize, *, hidden: bool = False) -> None:
    """Check ``tokenize(text)``: lower-cased words (runs of ``\\w``) and single
    punctuation marks, whitespace dropped; a list or a tuple of str is accepted."""
    with Checker("tokenize", hidden=hidden, explain_shapes=True) as c:
        c.require_callable(tokenize)
        runs = []
        for text in _HIDDEN_TEXTS if hidden else _VISIBLE_TEXTS:
            what = f"tokenize({text!r})"
            got = _tokens(
                c,
                c.call(tokenize, text, hints=_TOKENIZE_HINTS),
                what,
                "Return a list of strings.",
                nested_why=lambda: _one_list_per_line(tokenize),
            )
            runs.append((text, what, got))
        # A mistake (or a pair) is named first when it agrees with every text run, not just
        # the first wrong one (on a text without capitals, "no lower-casing" is invisible).
        singles = [_tokenize_mistakes(text) for text, _, _ in runs]
        pairs = [_tokenize_pairs(text) for text, _, _ in runs]

        def agreeing(tables):
            return [
                m for m in tables[0] if all(t[m] == got for t, (_, _, got) in zip(tables, runs))
            ]

        every_single, every_pair = agreeing(singles), agreeing(pairs)
        if _GLUED_INSIDE not in every_single:  # one text alone cannot tell it
            for table in singles:
                table.pop(_GLUED_INSIDE, None)
        # a known mistake that would have changed a text your code got right is refuted by
        # it ([a-z] would have cut 'déjà' too): never named from another text it fits
        right = [k for k, (text, _, got) in enumerate(runs) if list(got) == ref.tokenize(text)]
        for tables in (singles, pairs):
            refuted = {m for m in tables[0] if any(tables[k][m] != list(runs[k][2]) for k in right)}
            for table in tables:
                for m in refuted:
                    table.pop(m, None)
        # marks deleted from the text before the split, shown by every run: named before
        # a known mistake that only one run agrees with (punctuation dropped, say)
        removed = _removed_before_split(runs) or _whitespace_removed_before_split(runs)
        repeats = _repeats_removed(runs)
        for (text, what, got), single, pair in zip(runs, singles, pairs, strict=True):
            if every_single:
                single, pair = {m: single[m] for m in every_single}, None
            elif len(every_pair) == 1:
                single, pair = {}, {every_pair[0]: pair[every_pair[0]]}
            elif removed:
                single, pair = {}, None
            _expect_not_accumulated(
                c, what, lambda text=text: tokenize(text), got, ref.tokenize(text)
            )
            if repeats and list(got) != ref.tokenize(text):
                c.fail(
                    f"{what} returned {short(list(got))}, expected {short(ref.tokenize(text))}. {repeats}"
                )
            c.expect_equal(
                got,
                ref.tokenize(text),
                what,
                hint=lambda got=got, text=text: (
                    removed
                    or _structure_hint(got, ref.tokenize(text), runs, tokenize)
                    or "Words are runs of letters, digits or '_' (re's \\w); every other "
                    "non-space character is a token on its own; everything is lower-cased."
                ),
                mistakes=single,
                pairs=pair,
            )


def _repeats_removed(runs) -> str:
    """Repeated tokens removed, told apart on every run: each token kept once wherever its
    repeats are (a set, dict.fromkeys), or only the repeats in a row (groupby, a test
    against the previous token). One text whose repeats are all in a row cannot tell them
    apart; the runs together can. "" unless exactly one of the two gives every run's
    tokens and some run is wrong."""
    try:
        outputs = [(list(got), ref.tokenize(text)) for text, _, got in runs]
        if all(got == expected for got, expected in outputs):
            return ""
        once = all(got == list(dict.fromkeys(expected)) for got, expected in outputs)
        in_a_row = all(
            got == [t for t, _ in itertools.groupby(expected)] for got, expected in outputs
        )
    except Exception:
        return ""
    if once and not in_a_row:
        return (
            "On every text, your tokens are the right ones with each token kept once, at its "
            "first place, wherever its repeats are (a set, or dict.fromkeys, removes them): a "
            "sentence is a sequence, and tokenize keeps every token, repeats included, in the "
            "order of the text."
        )
    if in_a_row and not once:
        return (
            "On every text, your tokens are the right ones with each run of the same token in "
            "a row kept once (itertools.groupby, or a test against the previous token), "
            "while repeats apart are kept: tokenize keeps every token, '...' is three '.'."
        )
    return ""


_MARK = re.compile(r"[^\w\s]")


def _marks_always_dropped(runs) -> tuple[list[str], set[str]] | None:
    """The marks that every run dropped wherever they occur, every other token kept, and
    the marks kept: what a hand-written list of marks gives. None when the runs show
    anything else (a mark dropped in one run and kept in another, another token lost)."""
    if not all(isinstance(t, str) for _, _, got in runs for t in got):
        return None
    kept = {t for _, _, got in runs for t in got if _MARK.fullmatch(t)}
    dropped = list(
        dict.fromkeys(t for text, _, _ in runs for t in ref.tokenize(text) if _MARK.fullmatch(t))
    )
    dropped = [t for t in dropped if t not in kept]
    if not dropped or not kept:
        return None
    for text, _, got in runs:
        if [t for t in ref.tokenize(text) if t not in dropped] != list(got):
            return None
    return dropped, kept


def _kind(ch: str) -> str:
    """The class of a non-space character, as the rule for words sees it."""
    if ch == "_":
        return "the underscore '_'"
    if ch.isdigit():
        return "digits"
    if ch.isalpha():
        return "letters outside ASCII" if not ch.isascii() else "ASCII letters"
    return "punctuation marks"


def _lost_kinds(runs) -> dict[str, list[str]]:
    """{class: characters} of the non-space characters that every run's tokens lack where
    the reference's have them (compared without case), when each such class is lost
    wherever it occurs and every other character is kept; {} otherwise."""
    lost: dict[str, list[str]] = {}
    kept: set[str] = set()
    for text, _, got in runs:
        want = "".join(ref.tokenize(text))
        have = "".join(got).lower()
        i = 0
        for ch in want:  # a subsequence walk: which characters of the reference are missing
            if i < len(have) and have[i] == ch:
                i += 1
                kept.add(_kind(ch))
            else:
                lost.setdefault(_kind(ch), []).append(ch)
        if i != len(have):  # yours holds characters the reference does not: not a loss
            return {}
    if not lost or set(lost) & kept:
        return {}
    return {kind: list(dict.fromkeys(chars)) for kind, chars in lost.items()}


#: a word between two backspace characters: what a plain-string "\b" matches
_BACKSPACED = "\bok\b !"


def _backspace_hint(runs, tokenize) -> str:
    """When no word character came back in any run (only marks, or nothing): the message
    for a pattern written as a plain string, whose "\\b" is Python's backspace escape, if
    a call on a word between backspace characters returns that word with a backspace in
    its token (a pattern without a word alternative returns the backspaces as marks); ""
    otherwise, or when the calls cannot tell."""
    if tokenize is None or not any(re.search(r"\w", text) for text, _, _ in runs):
        return ""
    if any(not isinstance(t, str) or re.search(r"\w", t) for _, _, got in runs for t in got):
        return ""
    try:
        probed = tokenize(_BACKSPACED)
    except Exception:  # no verdict from the probe
        return ""
    if not isinstance(probed, list | tuple) or not any(
        isinstance(t, str) and "\b" in t and re.search(r"\w", t) for t in probed
    ):
        return ""
    return (
        "Every word disappeared: no token holds a letter, digit or '_'. Given a word between "
        f"two backspace characters, tokenize({_BACKSPACED!r}) returned {short(list(probed))}: "
        "a backspace came back inside the word's token, so your pattern matches the "
        "backspace character ('\\x08') next to \\w+ where you meant a word boundary. In a "
        'plain string, "\\b" is Python\'s escape for the backspace; only a raw string, '
        'r"\\b", hands re the two characters \\b that mean a word boundary. Write the pattern '
        'as a raw string, r"\\w+|[^\\w\\s]" (\\w+ already takes whole words: no \\b is needed).'
    )


def _marks_before_their_words(got: list[str], expected: list[str]) -> tuple[str, str] | None:
    """(word, mark) when ``got`` is ``expected`` with one or more (word, mark) neighbours
    swapped, the mark first, and nothing else changed; None otherwise."""
    if len(got) != len(expected) or got == expected:
        return None
    first, i = None, 0
    while i < len(expected):
        if got[i] == expected[i]:
            i += 1
            continue
        word, mark = expected[i], expected[i + 1] if i + 1 < len(expected) else ""
        if not (
            got[i : i + 2] == [mark, word]
            and re.fullmatch(r"\w+", word)
            and re.fullmatch(r"[^\w\s]", mark)
        ):
            return None
        first = first or (word, mark)
        i += 2
    return first


def _whitespace_in_tokens_hint(spaced: list[str]) -> str:
    r"""The message for tokens that hold whitespace (``spaced``: those tokens): each token
    led by one space before its word (a pattern with an optional space in front, GPT-2's
    r' ?\w+'), each followed by the whitespace after it (\w+\s*), or whitespace
    elsewhere (a split at word boundaries, \b)."""
    kinds = {ch for t in spaced for ch in t if ch.isspace()}
    named = "spaces" if kinds == {" "} else "spaces, tabs or newlines"
    fix = (
        r"Whitespace only separates tokens: no token contains any, "
        r"re.findall(r'\w+|[^\w\s]', ...)."
    )
    inner = [t for t in spaced if any(ch.isspace() for ch in t.strip())]
    if not inner and all(t[0] == " " and not t[1].isspace() and t == t.rstrip() for t in spaced):
        return (
            f"Your token {spaced[0]!r} starts with the space before it: the space in front "
            "of a word stayed in its token, as its first character (a token at the start of "
            "the text or right after a mark comes out bare). A pattern with an optional space "
            r"in front of the word, r' ?\w+' (GPT-2's pre-tokenizer keeps the space so that "
            f"its byte-level BPE can encode it), does that. {fix}"
        )
    if not inner and all(t == t.lstrip() for t in spaced):
        return (
            f"Your token {spaced[0]!r} ends with the {named} after it: the whitespace that "
            r"follows a word or mark stayed attached to it (a pattern such as r'\w+\s*', or "
            r"a split at word boundaries, \b, keeps it). " + fix
        )
    return (
        f"Your token {spaced[0]!r} holds whitespace: the {named} next to a word or mark "
        r"stayed attached to it (splitting at word boundaries, \b, or on a pattern that "
        f"does not consume the whitespace, keeps it). {fix}"
    )


def _tokens_family_hint(got: list[str], expected: list[str], runs=(), tokenize=None) -> str:
    """Families of tokenising mistakes told by the tokens alone: whitespace inside tokens,
    the right tokens reordered or deduplicated (a set, a sort), words cut into pieces (each
    character of one script alone: checking.split_words), and whole classes of
    characters lost in every run (digits, letters outside ASCII, '_'), every word lost to
    a plain-string "\b" (told by one more call of ``tokenize``); "" otherwise."""
    spaced = [t for t in got if any(ch.isspace() for ch in t) and t.strip()]
    if spaced:
        return _whitespace_in_tokens_hint(spaced)
    lowered = [t.lower() for t in got]
    swapped = _marks_before_their_words(lowered, expected)
    if swapped:
        word, mark = swapped
        return (
            f"Your tokens are the right ones, but a mark that follows a word comes out before "
            f"that word: {mark!r} before {word!r}, where the text has {word!r} then {mark!r}. "
            "A character loop does that when, at a punctuation mark, it appends the mark "
            "before the word it has been collecting: append (flush) the collected word "
            "first, then the mark."
        )
    if lowered != expected and sorted(set(lowered)) == sorted(set(expected)):
        if len(lowered) < len(expected) and len(set(lowered)) == len(lowered):
            how = "each token once (a set, or dict.fromkeys, removes the repeats)"
        else:
            how = "in another order"
        if lowered == sorted(lowered):
            how += ", sorted"
        return (
            f"Your tokens are the right ones, but {how}: a sentence is a sequence, and "
            "tokenize keeps every token, repeats included, in the order of the text. Do not "
            "put them through a set or sorted()."
        )
    split = split_words([(list(got), ref.tokenize(text)) for text, _, got in runs])
    if split:
        return split
    edited = _normalised_hint(runs) or _dropped_words_hint(runs) or _placeholder_hint(runs)
    if edited:
        return edited
    backspace = _backspace_hint(runs, tokenize)
    if backspace:
        return backspace
    lost = _lost_kinds(runs)
    if lost:
        said = "; ".join(
            f"{kind} ({', '.join(map(repr, chars[:4]))})" for kind, chars in lost.items()
        )
        return (
            f"Whole classes of characters disappeared from your tokens, wherever they occur: "
            f"{said}. Your pattern matches them in neither alternative, so re.findall skips "
            "them. Words are runs of \\w (letters of any script, digits and '_'), and every "
            "other non-space character is a mark, [^\\w\\s]: between them they cover every "
            "character but whitespace."
        )
    return ""


def _token_edits(expected: list[str], got: list[str]) -> list[tuple[str, list[str], list[str]]]:
    """The edits that turn the reference's tokens into yours: (kind, theirs, yours) for
    each span that differs, kind "delete", "insert" or "replace" (difflib's opcodes)."""
    matcher = difflib.SequenceMatcher(None, expected, got, autojunk=False)
    return [
        (kind, expected[i1:i2], got[j1:j2])
        for kind, i1, i2, j1, j2 in matcher.get_opcodes()
        if kind != "equal"
    ]


#: common function words, as stop-word lists (NLTK's, scikit-learn's) hold them
_FUNCTION_WORDS = frozenset(
    "a an the and or but if of to in on at for with by as is are was were be been am do "
    "does did i me my we our you your he him his she her it its they them their this that "
    "these those so not no what which who how there here".split()
)


def _dropped_words_hint(runs) -> str:
    """When, in every run, your tokens are the reference's with whole words left out (and
    nothing else changed), each left-out word missing wherever it occurs and never kept:
    words filtered out after the split. Its cause is told by the words: function words
    (a stop-word list), or the shortest words (a length filter), both named when the
    runs cannot tell them apart; "" otherwise."""
    dropped: list[str] = []
    kept: set[str] = set()
    for text, _, got in runs:
        expected = ref.tokenize(text)
        edits = _token_edits(expected, list(got))
        if any(kind != "delete" for kind, _, _ in edits):
            return ""
        dropped += [token for _, theirs, _ in edits for token in theirs]
        kept.update(got)
    dropped = list(dict.fromkeys(dropped))
    if not dropped or kept & set(dropped):
        return ""
    if not all(re.fullmatch(r"\w+", token) for token in dropped) or all(
        token.isdigit() for token in dropped
    ):
        return ""  # marks or numbers alone lost: other hints tell those
    kept_words = [token for token in kept if re.fullmatch(r"\w+", token)]
    if not kept_words:
        return ""  # every word lost: not a filter on some of them
    longest = max(map(len, dropped))
    shortest_only = bool(kept_words) and longest < min(map(len, kept_words))
    causes = []
    if set(dropped) <= _FUNCTION_WORDS:
        causes.append(
            "a stop-word list (the common function words: 'the', 'a', 'i', 'you', 'is', ...), "
            "as text classification removes them"
        )
    if shortest_only:
        chars = f"{longest} character{'s' if longest > 1 else ''}"
        causes.append(f"a filter on length that drops words of {chars} or fewer")
    cause = (
        f"Your function {'may drop' if shortest_only else 'drops'} words after splitting: "
        f"{' or '.join(causes)}."
        if causes
        else "Something removes these words after the split (a test on each token)."
    )
    if shortest_only:  # the split itself gives the same tokens
        needed = longest + 1
        pattern = r"\w\w+" if needed == 2 else rf"\w{{{needed},}}"
        cause += (
            f" Or the split itself skips them: a word pattern that needs at least {needed} "
            f"word characters ({pattern}, as scikit-learn CountVectorizer's default "
            r"token_pattern does) matches no shorter word. The word pattern is \w+."
        )
    return (
        f"Some words are missing from your tokens, wherever they occur: "
        f"{', '.join(map(repr, dropped[:8]))}; every other token is right and in order. "
        f"{cause} tokenize keeps every word of "
        "the text: the model reads and predicts them all, the most common ones included."
    )


#: the Unicode normal forms, each with what it does to a text
_NORMAL_FORMS = {
    "NFKC": "compatibility characters rewritten ('…' as '...', 'ﬁ' as 'fi', '²' as '2', "
    "full-width letters as ASCII), then composed",
    "NFKD": "compatibility characters rewritten and accented letters split into a letter "
    "and a combining accent",
    "NFC": "letters and combining accents composed into single characters",
    "NFD": "accented letters split into a letter and a combining accent",
}


def _normalised_hint(runs) -> str:
    """When every run's tokens are the reference's tokens of the text put through one
    Unicode normal form (unicodedata.normalize), and some run shows it: the forms that
    fit, named together when the texts cannot tell them apart; "" otherwise."""
    fitting = []
    for form in _NORMAL_FORMS:
        shown = False
        for text, _, got in runs:
            normalised = ref.tokenize(unicodedata.normalize(form, text))
            if list(got) != normalised:
                break
            shown = shown or normalised != ref.tokenize(text)
        else:
            if shown:
                fitting.append(form)
    if not fitting:
        return ""
    forms = " or ".join(f"{form} ({_NORMAL_FORMS[form]})" for form in fitting)
    return (
        "Your tokens are those of the text after Unicode normalisation, "
        f"unicodedata.normalize with {forms}: the characters are not kept as written. "
        "tokenize keeps the text's own characters: lower-case it and split it, with no "
        "normalisation first."
    )


def _placeholder_hint(runs) -> str:
    """When your tokens hold one token that is in none of the texts (such as '<num>'), put
    where the reference has other tokens (every other token right): those were replaced by
    a placeholder before or after the split. Named as numbers when each replaced span
    holds digits; "" otherwise."""
    placeholders: set[str] = set()
    replaced: list[str] = []
    for text, _, got in runs:
        lowered = text.lower()
        for kind, theirs, yours in _token_edits(ref.tokenize(text), list(got)):
            foreign = [token for token in yours if token not in lowered and token not in text]
            if kind == "delete" or not foreign:
                return ""
            placeholders.update(foreign)
            replaced.append("".join(theirs))
    if len(placeholders) != 1 or not replaced:
        return ""
    (placeholder,) = placeholders
    shown = ", ".join(map(repr, dict.fromkeys(replaced)))
    if all(re.search(r"\d", span) for span in replaced):
        pattern = re.escape(placeholder) + r"|\w+|[^\w\s]"
        every_run_of_digits = all(
            re.findall(pattern, re.sub(r"\d+", placeholder, text.lower())) == list(got)
            for text, _, got in runs
        )
        how = f" (re.sub(r'\\d+', {placeholder!r}, text))" if every_run_of_digits else ""
        cut = [span for span in replaced if re.search(r"[^\W\d]", span)]
        what = (
            f"the numbers are replaced by the placeholder {placeholder!r}{how}, a "
            "normalisation that keeps numbers out of the vocabulary, so the digits never "
            "come back as tokens"
            + (f" and a word holding digits ({cut[0]!r}) is cut around it" if cut else "")
        )
    else:
        what = f"those parts of the text are replaced by the placeholder {placeholder!r}"
    return (
        f"Your tokens hold {placeholder!r}, which is nowhere in the text: it stands where the "
        f"text has {shown}. Your function rewrites the text first: {what}. tokenize keeps "
        "the text's own characters: lower-case it, then split it into words (\\w+) and "
        "single marks ([^\\w\\s]), with no other substitution."
    )


def _removed_before_split(runs) -> str:
    """When every run's tokens are the reference's tokens of the text with some characters
    deleted (those missing from every run's tokens, each kept nowhere): those characters
    were removed from the text before the split, so the words on both sides of one
    became one token ("didn't" -> 'didnt'); "" otherwise, or when no word was joined."""
    if not all(isinstance(t, str) for _, _, got in runs for t in got):
        return ""
    kept = {ch for _, _, got in runs for t in got for ch in t}
    wanted = {ch for text, _, _ in runs for t in ref.tokenize(text) for ch in t}
    removed = sorted(wanted - kept)
    if not removed:
        return ""
    table = str.maketrans("", "", "".join(removed))
    joined = []  # (a piece of the text, the one token yours made of its words)
    for text, _, got in runs:
        if ref.tokenize(text.translate(table)) != list(got):
            return ""
        for chunk in text.lower().split():
            words = [t for t in ref.tokenize(chunk) if re.fullmatch(r"\w+", t)]
            after = [t for t in ref.tokenize(chunk.translate(table)) if re.fullmatch(r"\w+", t)]
            if len(words) >= 2 and 1 <= len(after) < len(words):  # words joined
                piece = _MARK.sub("", chunk[:1]) + chunk[1:].rstrip(".,!?;:)\"'")
                joined.append((piece, after, text))
    if not joined:
        return ""
    piece, tokens, text = joined[0]
    how = (
        f".replace({removed[0]!r}, '')"
        if len(removed) == 1
        else "str.translate, a .replace for each"
    )
    named = (
        "the apostrophes (')"
        if removed == ["'"]
        else f"the characters {', '.join(map(repr, removed))}"
    )
    return (
        f"You removed {named} from the text before splitting it: {piece!r} (in "
        f"tokenize({text!r})) became {tokens!r}, the words on both sides of a removed character joined into one token "
        f"(a {how}, or a clean-up such as re.sub before findall). Split the text as it is: "
        f"every mark is a token of its own, so {piece!r} gives {ref.tokenize(piece)!r}."
    )


#: whitespace characters other than the space, each named as a learner writes it
_WHITESPACE_NAMES = {"\n": "newline", "\t": "tab", "\r": "carriage return", " ": "space"}


def _whitespace_removed_before_split(runs) -> str:
    """When every run's tokens are the reference's tokens of the text with one kind of
    whitespace deleted (and one run at least shows it): that whitespace was removed
    before the split, so the words on its two sides became one token ('end\nstart' ->
    'endstart'); "" otherwise."""
    if not runs or not all(isinstance(t, str) for _, _, got in runs for t in got):
        return ""
    for ch, name in _WHITESPACE_NAMES.items():
        if not all(ref.tokenize(text.replace(ch, "")) == list(got) for text, _, got in runs):
            continue
        for text, _, got in runs:
            if ch not in text or ref.tokenize(text) == list(got):
                continue
            lowered = text.lower()
            at = next(
                (
                    k
                    for k in range(len(lowered))
                    if lowered[k] == ch
                    and re.search(r"\w\Z", lowered[:k])
                    and re.match(r"\w", lowered[k:].lstrip(ch))
                ),
                None,
            )
            if at is None:
                continue
            before = re.findall(r"\w+", lowered[:at])[-1]
            after = re.findall(r"\w+", lowered[at:])[0]
            return (
                f"Your tokens are those of the text with every {name} ({ch!r}) deleted: in "
                f"tokenize({text!r}) the last word before a {name}, {before!r}, and the first "
                f"word after it, {after!r}, were glued across the {name} into one token, "
                f"{before + after!r}. Each {name} is removed before splitting (a "
                f".replace({ch!r}, ''), or a clean-up that deletes them), but a {name} is "
                f"whitespace: it separates tokens, like a space. Split the text as it is "
                f"(re.findall(r'\\w+|[^\\w\\s]', text.lower())), or replace the {name}s "
                "by spaces."
            )
    return ""


#: a number written with a decimal point or a thousands separator ('3.50', '1,000')
_NUMBER_WITH_MARKS = re.compile(r"\d+(?:[.,]\d+)+")
#: the Penn Treebank's clitics, split off a word with their apostrophe ("did", "n't")
_CLITICS = {"n't", "'s", "'m", "'d", "'ll", "'re", "'ve"}


def _glued_tokens(runs) -> list[str]:
    """Every token of every run that joins a mark to word characters where the reference
    keeps them apart."""
    glued = []
    for text, _, got in runs:
        expected = ref.tokenize(text)
        glued += [
            t
            for t in got
            if isinstance(t, str) and t not in expected and _MARK.search(t) and re.search(r"\w", t)
        ]
    return glued


def _kept_together_hint(got: list[str], runs) -> str:
    r"""Marks joined to word characters in one context only, in every run: numbers with
    their decimal point or thousands separator ('3.50'), or the Treebank's contractions
    ('did', "n't"); where a word pattern that admits the mark ([\w.]+) would glue it
    everywhere. "" when the glued tokens of the runs are not all of one such kind."""
    glued = _glued_tokens(runs)
    if not glued:
        return ""
    ours = [t for t in got if t in glued]
    if ours and all(_NUMBER_WITH_MARKS.fullmatch(t) for t in glued):
        token = ours[0]
        parts = ", ".join(map(repr, re.findall(r"\w+|[^\w\s]", token)))
        return (
            f"Your token {token!r} keeps a number whole, its decimal point or thousands "
            "separator inside it: your pattern has an alternative for numbers, such as "
            "\\d+(?:[.,]\\d+)*, as word tokenizers do for '3.14' or '50,000', and every "
            "mark outside numbers is split off right. In this lesson's rule a mark is a "
            f"token of its own between digits too: {token!r} is {parts}. Words are runs of "
            "\\w only; match each other non-space character alone, [^\\w\\s]."
        )
    if "n't" in got and all(t in _CLITICS for t in glued):
        at = got.index("n't")
        word = (got[at - 1] if at else "") + "n't"
        parts = ", ".join(map(repr, re.findall(r"\w+|[^\w\s]", word)))
        return (
            f"Your tokens split {word!r} as the Penn Treebank's contraction rules do (NLTK's "
            f'TreebankWordTokenizer, word_tokenize): {word[:-3]!r}, "n\'t", the clitic kept '
            'whole with its apostrophe (those rules split "\'s", "\'ll", ... off too). In this '
            "lesson's rule the apostrophe is a mark like any other, a token of its own: "
            f"{word!r} is {parts}. Words "
            "are runs of \\w only; match each other non-space character alone, [^\\w\\s]."
        )
    return ""


def _structure_hint(got: list[str], expected: list[str], runs=(), tokenize=None) -> str:
    """What the learner's tokens show against the reference's, when no known mistake
    matches: empty tokens, some marks dropped (in every run) while others are kept, or a
    token that joins a mark to word characters (with the mark where it sits in that
    token); "" otherwise."""
    if not all(isinstance(token, str) for token in got):
        return ""
    if "" in got:
        return (
            "Empty strings ('') came back as tokens: either your pattern can match nothing (a "
            "* where + belongs, \\w* for \\w+), and re.findall returns each empty match, or "
            "re.split left '' between two adjacent separators or at an end of the text. A word "
            "is one or more word characters, \\w+; '' is no token."
        )
    shown = _tokens_family_hint(got, expected, runs, tokenize)
    if shown:
        return shown
    kept_together = _kept_together_hint(got, runs)
    if kept_together:
        return kept_together
    marks = _marks_always_dropped(runs)
    if marks:
        dropped, kept_marks = marks
        return (
            f"These marks disappeared: {', '.join(map(repr, dropped))}, while others "
            f"({', '.join(map(repr, sorted(kept_marks)))}) were kept: your punctuation "
            "alternative matches only some marks (a hand-written list such as [.,!?]). Every "
            "character that is neither a word character nor whitespace is a token of its own: "
            "[^\\w\\s] matches them all."
        )
    for token in got:
        if token not in expected and len(token) > 1 and all(map(_MARK.fullmatch, token)):
            return (
                f"Your token {token!r} groups several marks into one: each mark is a token of "
                f"its own. Either your word pattern admits {token[0]!r} (as [\\w{token[0]}]+ "
                "does, which groups it like letters), or your mark pattern repeats ([^\\w\\s]+). "
                "Words are runs of \\w only; match each other non-space character alone, "
                "[^\\w\\s]."
            )
        if token in expected or not (_MARK.search(token) and re.search(r"\w", token)):
            continue
        mark = _MARK.search(token).group()
        if re.fullmatch(r"\w+(?:[^\w\s]+\w+)+", token):
            where = f"inside a word: your word pattern admits {mark!r} (as [\\w{mark}]+ does)"
        elif _MARK.match(token):
            where = (
                "to the word characters after it: your pattern lets a mark start a token "
                "that goes on with letters (as \\S\\w* does)"
            )
        else:
            where = "to the word characters before it"
        return (
            f"Your token {token!r} joins the mark {mark!r} {where}. A mark is always a token of "
            "its own, even inside or next to a word: words are runs of \\w only, and each "
            "other non-space character is matched alone, [^\\w\\s]."
        )
    return ""


_NO_LOWER = "It looks like you did not lower-case the text first."
#: (diagnosis, (how, pattern)): each splitting mistake, applied to the lower-cased text;
#: how is "findall" (re.findall), "split" (re.split), "split_kept" (re.split, empty
#: strings dropped) or "str" (str.split)
_SPLIT_MISTAKES: dict[str, tuple[str, str]] = {
    "It looks like you split on whitespace only: punctuation must become tokens "
    "of its own ('hello,' should be 'hello' and ',').": ("str", ""),
    "Punctuation disappeared: it must be kept, as tokens of its own.": ("findall", r"\w+"),
    "Runs of punctuation ('...', '?!') must be split into one token per character.": (
        "findall",
        r"\w+|[^\w\s]+",
    ),
    "Empty strings slipped in: splitting on a pattern leaves '' between adjacent "
    "separators; drop them.": ("split", r"\s+|(?=[^\w\s])|(?<=[^\w\s])"),
    "You split on runs of non-word characters (re.split(r'\\W+', ...)): the marks went "
    "with the spaces, and a mark at an end of the text leaves an empty string ''. A mark "
    "is a token of its own: re.findall(r'\\w+|[^\\w\\s]', text.lower()).": ("split", r"\W+"),
    "Words are made of letters of any script, digits and underscores ('déjà', "
    "'2', 'snake_case' are one token each): [a-z] matches only the 26 ASCII "
    "letters, while \\w matches them all.": ("findall", r"[a-z]+|[^a-z\s]"),
    "Letters outside ASCII ('é', 'à', 'ü') are letters too: 'déjà' is one word. "
    "[a-z0-9_] misses them, while \\w matches every script.": ("findall", r"[a-z0-9_]+|[^\w\s]"),
    "Digits were dropped (and '_' split words): your word pattern matches letters only "
    "(of any script, as [^\\W\\d_]+ does), and the punctuation class [^\\w\\s] excludes "
    "digits too, so '2' matches neither alternative. Words are runs of letters, digits "
    "or '_': \\w+.": ("findall", r"[^\W\d_]+|[^\w\s]"),
    "Letters outside ASCII ('é', 'à', 'ü') came out as tokens of their own, each one "
    "splitting its word ('déjà' becomes 'd', 'é', 'j', 'à'): your word class is ASCII-only "
    "(the re.ASCII flag, (?a), or [a-zA-Z0-9_]+ with every other character a mark), so "
    "they fell to the punctuation alternative. Without the ASCII flag \\w matches the "
    "letters of every script.": ("findall", r"(?a)\w+|[^\w\s]"),
    "'_' is a word character ('snake_case' is one token), but yours split it off as a "
    "token of its own: your word rule leaves the underscore out (str.isalnum() is False "
    "for '_', and [^\\W_] excludes it). Words are runs of \\w, which includes '_' (in a "
    "loop over the characters: ch.isalnum() or ch == '_').": ("findall", r"[^\W_]+|[^\w\s]|_"),
    "Your words stop where letters meet digits ('mp3' becomes 'mp', '3'), and '_' came out "
    "as a token of its own: runs of letters and runs of digits are separate classes in your "
    "rule (GPT-2's pre-tokenizer splits \\p{L}+ from \\p{N}+ this way, and [^\\W\\d_]+|\\d+ "
    "does it with re). Here a word is one run of \\w: letters, digits and '_' together, "
    "\\w+.": ("findall", r"[^\W\d_]+|\d+|[^\w\s]|_"),
    "Your words stop where letters meet digits ('mp3' becomes 'mp', '3'): runs of letters "
    "and runs of digits are separate alternatives in your rule ([^\\W\\d]+|\\d+, the way "
    "GPT-2's pre-tokenizer splits \\p{L}+ from \\p{N}+). Here a word is one run of \\w, "
    "letters and digits together: \\w+.": ("findall", r"[^\W\d]+|\d+|[^\w\s]"),
    "An apostrophe is punctuation like any other: 'didn't' is 'didn', \"'\", 't' "
    "(crude, and one reason real tokenizers use subwords).": ("findall", r"[\w']+|[^\w\s]"),
    "Only the 32 ASCII marks of string.punctuation were split off (each replaced by itself "
    "between spaces, then a split on whitespace): a mark outside that list ('«', '—', '…', "
    "'¿', a curly apostrophe) stays glued to the word beside it, and '_', which the list "
    "holds, was cut out of words ('snake_case' became 'snake', '_', 'case'). A mark is any "
    "character that is neither a word character nor whitespace, in any script: "
    "re.findall(r'\\w+|[^\\w\\s]', text.lower()).": ("ascii_marks", string.punctuation),
    "Only ASCII marks were split off (a fixed list of marks, such as string.punctuation "
    "without '_'): a mark outside that list ('«', '—', '…', '¿', a curly apostrophe) stays "
    "glued to the word beside it. A mark is any character that is neither a word "
    "character nor whitespace, in any script: re.findall(r'\\w+|[^\\w\\s]', "
    "text.lower()).": ("ascii_marks", string.punctuation.replace("_", "")),
    _GLUED_INSIDE: ("edges", ""),
    "Tabs and newlines are whitespace too: they separate tokens and never are "
    "tokens (\\s matches every kind of whitespace; ' ' only the space).": (
        "findall",
        r"\w+|[^\w ]",
    ),
    "The spaces came back as tokens (' '): splitting on every non-word character with a "
    "capturing group, re.split(r'(\\W)', ...), keeps each separator, spaces included (so "
    "does a mark alternative that admits whitespace, re.findall(r'\\w+|\\W', ...)). "
    "Whitespace separates tokens and is never one: drop it (or use re.findall(r'\\w+|"
    "[^\\w\\s]', ...)).": ("split_kept", r"(\W)"),
    "Spaces (' ') and empty strings ('') came back as tokens: re.split(r'(\\W)', ...) keeps "
    "each separator its capturing group matched, spaces included, and leaves '' between "
    "two adjacent separators and at the ends. Whitespace separates tokens and is never one, "
    "and '' is no token: drop both (or use re.findall(r'\\w+|[^\\w\\s]', ...)).": (
        "split",
        r"(\W)",
    ),
}


def _peel_ends(text: str) -> list[str]:
    """Split on whitespace, then peel the marks off the two ends of each chunk, one token
    each: a mark inside a chunk ("didn't", "well-known", "3.14") stays in it."""
    tokens = []
    for chunk in text.split():
        lead = re.match(r"[^\w\s]*", chunk).group()
        rest = chunk[len(lead) :]
        trail = re.search(r"[^\w\s]*\Z", rest).group()
        core = rest[: len(rest) - len(trail)]
        tokens += [*lead, *([core] if core else []), *trail]
    return tokens


def _split(rule: tuple[str, str], text: str) -> list[str]:
    how, pattern = rule
    if how == "str":
        return text.split()
    if how == "edges":
        return _peel_ends(text)
    if how == "ascii_marks":  # each listed mark spaced out, then a whitespace split
        for mark in pattern:
            text = text.replace(mark, f" {mark} ")
        return text.split()
    if how == "split_kept":  # the separators kept, empty strings dropped
        return [piece for piece in re.split(pattern, text) if piece]
    return re.split(pattern, text) if how == "split" else re.findall(pattern, text)


def _without_marks(text: str) -> str:
    """text with its accents removed: canonical decomposition (NFD), combining marks
    (category Mn) dropped."""
    return "".join(
        ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) != "Mn"
    )


# Normalisations of the text before it is split, each a mistake when the text has what it
# changes: {diagnosis: text -> normalised text (lower-cased as the reference does)}.
_NORMALISE_MISTAKES = {
    "You removed the accents (unicodedata.normalize('NFD', ...) and dropped the combining "
    "marks, as BERT's uncased tokenizer does with strip_accents): 'déjà' must stay 'déjà'. "
    "Lower-case the text and split it; leave every letter as it is.": (
        lambda text: _without_marks(text.lower())
    ),
    "You turned the text into ASCII (NFKD, then .encode('ascii', 'ignore')): accents "
    "vanish and letters outside ASCII are dropped. Lower-case the text and split it; leave "
    "every letter as it is.": (
        lambda text: (
            unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore").decode("ascii")
        )
    ),
    "You case-folded the text (str.casefold(), which also turns 'ß' into 'ss' and "
    "ligatures such as 'ﬁ' into 'fi') instead of lower-casing it: use text.lower().": (
        lambda text: text.casefold()
    ),
}


def _tokenize_mistakes(text: str) -> dict[str, list[str]]:
    """Each known tokenising mistake alone: {diagnosis: the tokens it gives for text}."""
    out = {_NO_LOWER: re.findall(r"\w+|[^\w\s]", text)}
    out["You upper-cased the text: lower-case it, text.lower()."] = re.findall(
        r"\w+|[^\w\s]", text.upper()
    )
    out[
        "Each word character came out as a token of its own: the word alternative needs a +, "
        "\\w+ (one or more word characters), not \\w."
    ] = re.findall(r"\w|[^\w\s]", text.lower())
    out[
        "The last token is missing: every token of the text belongs in the list (a [:-1], or "
        "a loop that stops one token early, drops it)."
    ] = ref.tokenize(text)[:-1]
    out[
        "The punctuation marks at the very start and end of the whole text are missing, and "
        "only those (marks inside it are kept): the text was stripped of punctuation at its "
        "ends before it was split (text.strip(string.punctuation), a clean-up habit from word "
        "counting). Every mark is a token, wherever it stands: split the text as it is."
    ] = ref.tokenize(text.strip(string.punctuation))
    out[_LOWERED_AFTER_SPLIT] = [t.lower() for t in re.findall(r"\w+|[^\w\s]", text)]
    tokens = ref.tokenize(text)
    out[_LAST_WORD_NOT_FLUSHED] = _unflushed(tokens, text)
    out.update({message: _split(rule, text.lower()) for message, rule in _SPLIT_MISTAKES.items()})
    out.update(
        {
            message: re.findall(r"\w+|[^\w\s]", normalise(text))
            for message, normalise in _NORMALISE_MISTAKES.items()
        }
    )
    return out


_LOWERED_AFTER_SPLIT = (
    "You split the text first and lower-cased each token afterwards: the contract lower-cases "
    "the text, then splits it. The order matters where lower-casing changes what is a word "
    "character: 'İ' (capital I with a dot) lower-cases to 'i' plus a combining dot (U+0307), "
    "which is not a word character, so the lower-cased text splits 'İzmir' into 'i', the dot "
    "and 'zmir', while your order keeps it whole. Lower-case first: "
    "re.findall(r'\\w+|[^\\w\\s]', text.lower())."
)


_LAST_WORD_NOT_FLUSHED = (
    "The last word is missing where the text ends with a word (not where a mark or a "
    "space ends it): a loop over the characters that emits a word only when a non-word "
    "character follows it never emits the word still being built at the end. After the "
    "loop, append the current word if it is not empty."
)


def _unflushed(tokens: list[str], text: str) -> list[str]:
    """``tokens`` as a character loop that never emits its last word gives them: the last
    one dropped where the text ends with a word character."""
    return tokens[:-1] if tokens and re.search(r"\w\Z", text) else tokens


def _tokenize_pairs(text: str) -> dict[str, list[str]]:
    """Two mistakes at once (independent knobs): no lower-casing and one wrong splitting
    rule; or a wrong splitting rule inside a character loop that never emits its last word
    (the loop's word test, isalnum or isalpha, is the rule; the missing flush, a step after
    it). Without lower-casing, an ASCII letter class [a-z] is taken as [A-Za-z], the
    letters a learner who keeps the case writes."""
    pairs = {
        two_mistakes(_NO_LOWER, message): _split((how, pattern.replace("a-z", "A-Za-z")), text)
        for message, (how, pattern) in _SPLIT_MISTAKES.items()
    }
    lower = text.lower()
    for message, rule in _SPLIT_MISTAKES.items():  # every text gets the same keys
        if rule[0] == "findall":
            pairs[two_mistakes(message, _LAST_WORD_NOT_FLUSHED)] = _unflushed(
                _split(rule, lower), lower
            )
    return pairs
