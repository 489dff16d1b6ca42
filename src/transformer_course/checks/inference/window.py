"""Checks for lesson 12's sliding_window_mask, against its definition (j <= i and i - j <
window)."""

import torch

from transformer_course.checking import Checker
from transformer_course.checking.hints import two_mistakes
from transformer_course.checking.mask_forms import additive_mask_note, read_as_bool
from transformer_course.checking.mask_offsets import kept_offsets, offsets_sentence
from transformer_course.checking.stale import earlier_call

from .common import _expect_tensor


def _window(size: int, low: int, high: int) -> torch.Tensor:
    """bool (size, size): True where low <= i - j <= high."""
    offset = torch.arange(size)[:, None] - torch.arange(size)[None, :]  # i - j
    return (offset >= low) & (offset <= high)


def _chunked(size: int, window: int) -> torch.Tensor:
    """bool (size, size): Llama 4's chunked attention, j <= i in the same chunk of window
    positions (i // window == j // window), not a window that slides with the query."""
    chunk = torch.arange(size) // window
    return (chunk[:, None] == chunk[None, :]) & _window(size, 0, size)


_CHUNKED = (
    "Your mask cuts the positions into fixed chunks of window (i // window == j // window, "
    "Llama 4's chunked attention): a query sees only the earlier keys of its own chunk, so "
    "the first query of each chunk sees itself alone. A sliding window moves with the "
    "query: every query sees itself and the window - 1 positions just before it, whatever "
    "chunk they fall in."
)


def _wrapped(size: int, window: int) -> torch.Tensor | None:
    """The window filled by a loop over j in range(i - window + 1, i + 1) with no clamp at
    0: a negative j counts from the end (mask[i, j] with j < 0), so the first queries see
    the last keys (blind9e-sliding-window-negative-index-wraps). None where nothing wraps
    or where such a loop would raise (j < -size)."""
    if window < 2 or window > size + 1:
        return None
    mask = torch.zeros(size, size, dtype=torch.bool)
    for i in range(size):
        for j in range(i - window + 1, i + 1):
            mask[i, j] = True
    return mask


def _rolled(size: int, window: int) -> torch.Tensor:
    """The keys too old taken as the look-ahead mask rolled down window rows (torch.roll
    wraps the last rows around to the top), taken away from the look-ahead mask."""
    causal = torch.ones(size, size, dtype=torch.bool).tril()  # (size, size)
    return causal & ~causal.roll(window, dims=0)


def _wrap_hint(size: int, window: int):
    """An IndexError from a negative key index below -size: the window's start not clamped."""

    def hint(exc: BaseException) -> str:
        if "out of bounds" not in str(exc) or "-" not in str(exc):
            return ""
        return (
            f"A negative key index ran past the start of the row: with window = {window} "
            f"> size = {size}, i - window + 1 is below -size for the first queries. Clamp "
            "the window's first key at 0 (range(max(0, i - window + 1), i + 1)), or build "
            "the mask from comparisons of torch.arange rows and columns."
        )

    return (IndexError, hint)


def _keys_ahead(future: torch.Tensor, size: int) -> str:
    """The future keys allowed, when they are every key up to a fixed distance ahead of
    each query (a band j - i in 1..d, as torch.tril(ones, diagonal=d) keeps), in words;
    "" when they are any other set (the whole future, or scattered entries)."""
    # future: (size, size) bool, True where key j > query i is allowed
    reach = int(future.nonzero().diff(dim=-1).max())
    if reach >= size - 1:
        return ""  # every future key: the look-ahead part left out, told as before
    ones = torch.ones(size, size, dtype=torch.bool)
    if not torch.equal(future, ones.triu(1) & ones.tril(reach)):
        return ""
    if reach == 1:
        return "the next key after it (key i + 1), one position of the future"
    return f"the {reach} keys after it (keys i + 1 to i + {reach}), {reach} positions of the future"


def _window_hint(got: torch.Tensor, size: int, window: int) -> str:
    """What a wrong window mask gets wrong, part by part: the future, the diagonal, the
    band's width."""
    got = torch.as_tensor(got).bool()
    rule = "Query i may attend to key j when j <= i and i - j < window."
    future = torch.ones(size, size, dtype=torch.bool).triu(1) & got
    if future.any():
        i, j = (int(v) for v in future.nonzero()[0])
        first = (
            f"Your mask lets a query see keys after it: ({i}, {j}) is True, key {j} > query "
            f"{i}. Combine the window with lesson 06's look_ahead_mask using &."
        )
        ahead = _keys_ahead(future, size)
        if ahead:
            first = (
                f"Your mask lets each query see {ahead}: ({i}, {j}) is True, key {j} > "
                f"query {i}. A causal part built as torch.tril(ones, diagonal=d) keeps j <= "
                "i + d: d must be 0 (or use lesson 06's look_ahead_mask with &); a diagonal "
                "of 1 or more lets that many future keys in."
            )
        # the part on and below the diagonal is a mask of its own: a second mistake there
        # is named too (blind11e-sw-window-plus-one with the look-ahead part left out was
        # told of the future keys alone)
        band = _band_mistake(got & ~torch.ones(size, size, dtype=torch.bool).triu(1), window)
        if band:
            return f"{two_mistakes(first, band)} {rule}"
        return f"{first} {rule}"
    diagonal = ~got.diagonal()
    empty = _empty_rows(got, size, window, rule)
    if empty:
        return empty
    if not got.any():  # said first by the check itself: no entry holds
        return (
            f"Each query sees itself and the window - 1 positions before it, so the diagonal "
            f"at least is True. {rule} Built with torch.triu(ones, diagonal=d) & "
            "look_ahead_mask(size), the band keeps 0 <= i - j <= -d: d must be 1 - window "
            f"(= {1 - window} here); a d of 1 or more (diagonal=1, or 1 + window) keeps "
            "nothing, as yours does."
        )
    if diagonal.any():
        rows = diagonal.nonzero().flatten().tolist()
        i = rows[0]
        which = "" if len(rows) == size else f" (for queries {rows}, not the others)"
        return (
            f"Your mask leaves the query itself out: ({i}, {i}) is False{which}. Each query "
            f"sees itself and the window - 1 positions before it. {rule}"
        )
    pattern = _difference_pattern(got, _window(size, 0, window - 1), window)
    return f"{pattern} {rule}".strip()


def _empty_rows(got: torch.Tensor, size: int, window: int, rule: str) -> str:
    """When some queries (not all) attend to no key at all: which, what the rows they are
    tell (the first window - 1 queries, whose window would start before key 0), and
    whether the other rows are right; "" when no row is empty (a row with keys but without
    the diagonal is another mistake). blind20c-sliding-window-loop-skips-first-rows was
    told "leaves the query itself out", true of an empty row but not what is wrong."""
    rows = [i for i in range(size) if not bool(got[i].any())]
    if not rows or len(rows) == size:
        return ""
    expected = _window(size, 0, window - 1)
    if not all(torch.equal(got[i], expected[i]) for i in range(size) if i not in rows):
        # other rows wrong too: the empty rows may be a consequence (a mask shifted down a
        # row leaves row 0 empty and every query without itself); the diagonal says more
        return ""
    one = len(rows) == 1
    said = (
        f"Your mask's row {rows[0]} is all False: that query attends to no key at all, not "
        "even itself"
        if one
        else f"Your mask's rows {rows} are all False: those queries attend to no key at all, "
        "not even themselves"
    ) + " (every query sees at least itself; attention over no key gives 0 / 0, NaN)"
    if rows == list(range(len(rows))) and len(rows) == min(window, size + 1) - 1:
        said += (
            f". {'It is' if one else 'They are'} exactly the first window - 1 = {window - 1} "
            f"{'query' if one else 'queries'}, the ones with "
            "fewer than window keys before them, whose window would start before key 0 "
            f"(i - window + 1 < 0): those rows were skipped (a loop over rows that starts at "
            "window - 1, range(window - 1, size), or a condition that drops a negative "
            "start) instead of clamping the window's first key at 0: query i sees keys "
            "max(0, i - window + 1) .. i"
        )
    elif rows == list(range(len(rows))):
        said += f". {'It is' if one else 'They are'} the first of the sequence"
    said += ". The other rows are right."
    return f"{said} {rule}"


def _band_mistake(lower: torch.Tensor, window: int) -> str:
    """What the part of a mask on and below the diagonal (j <= i) gets wrong against the
    window, in words: a band one key wider or narrower, no window at all, the diagonal
    left out, or the pattern of :func:`_difference_pattern`; "" when that part is right."""
    size = lower.shape[0]
    expected = _window(size, 0, window - 1)
    if torch.equal(lower, expected):
        return ""
    known = [
        (
            "on and below the diagonal, each query sees window + 1 keys (i - j <= window), one "
            "too many: itself and the window - 1 positions before it make window",
            0,
            window,
        ),
        ("on and below the diagonal, each query sees window - 1 keys, one too few", 0, window - 2),
        ("on and below the diagonal there is no window at all: every earlier key is kept", 0, size),
        ("the query itself is left out (the diagonal is False)", 1, window - 1),
    ]
    for words, low, high in known:
        if high >= low and torch.equal(lower, _window(size, low, high)):
            return words[0].upper() + words[1:] + "."
    if 1 < window < size and torch.equal(lower, _chunked(size, window)):
        return "On and below the diagonal: " + _CHUNKED[0].lower() + _CHUNKED[1:]
    return _difference_pattern(lower, expected, window)


def _window_models(size: int, window: int) -> list[tuple[str, torch.Tensor | None]]:
    """The known mistakes' masks for (size, window), each with its message (None where the
    mistake does not apply or would raise)."""
    return [
        (
            "Each query sees window + 1 keys (i - j <= window). Here the window counts "
            "the query itself: itself and the window - 1 positions before it. (Mistral's "
            "paper words it as 'W tokens'; conventions differ by one, the docstring "
            "fixes this one.)",
            _window(size, 0, window),
        ),
        (
            "Each query sees only window - 1 keys: itself and window - 1 earlier ones make window.",
            _window(size, 0, window - 2) if window > 1 else None,
        ),
        (
            "The mask is not causal: it lets each query see the window - 1 next keys too. "
            "Two mistakes give exactly this mask here: a band on both sides (|i - j| < "
            "window), or a causal part built with a diagonal above 0 (torch.tril(ones, "
            "diagonal=d) keeps j <= i + d, here d = window - 1; d must be 0). Combine the "
            "window with lesson 06's look_ahead_mask using &.",
            _window(size, 1 - window, window - 1),
        ),
        (
            "Your mask is just lesson 06's look-ahead mask, whatever the window: older "
            "keys are never cut, query i still sees every key j <= i. Its window part has "
            "no effect, as a condition j - i < window (i and j the wrong way round) or a "
            "band on the wrong side of the diagonal gives: torch.tril(ones, "
            "diagonal=window - 1) instead of torch.triu(ones, diagonal=1 - window) bounds "
            "the keys ahead of the query, which the look-ahead mask blocks anyway, not the "
            "keys behind it. The window is i - j < window: query i sees itself and the "
            "window - 1 keys before it.",
            _window(size, 0, size) if window < size else None,
        ),
        (
            "The mask is inverted: True where attention is blocked. In this course "
            "True means 'may attend'.",
            ~_window(size, 0, window - 1),
        ),
        (
            "The window is at the wrong end: query i sees the keys after it (j >= i) "
            "instead of before it. Your mask is the right one transposed: rows and "
            "columns swapped, as .T or a condition with i and j exchanged gives.",
            _window(size, 1 - window, 0),
        ),
        (
            "For the first queries your window wraps around to the last keys: a key "
            "index i - window + 1 below 0 counts from the end of the row (Python's "
            "negative indexing), so query i < window - 1 also sees keys "
            "size - (window - 1 - i) .. size - 1, in the future. Clamp the window's "
            "first key at 0: range(max(0, i - window + 1), i + 1).",
            _wrapped(size, window),
        ),
        (
            "Your mask is all True: a window that covers every key (window >= size) "
            "still leaves the mask causal, so it is then lesson 06's "
            "look_ahead_mask(size), not torch.ones (a shortcut for wide windows that "
            "forgets j <= i?).",
            torch.ones(size, size, dtype=torch.bool) if window >= size > 1 else None,
        ),
        (
            # blind15e-sw-or-instead-of-and (told "two mistakes at once" before): the
            # union of the two parts is everything, since the band holds every later key
            "Your mask is True everywhere, whatever the window: every query sees every "
            "key, past and future. The look-ahead mask and the band of recent keys "
            "combined with | instead of & give exactly that (their union, not their "
            "intersection), since the band torch.triu(ones, diagonal=1 - window) (i - j < "
            "window) already holds every later key; so does a condition that always "
            "holds. Keep the keys that pass both: look_ahead_mask(size) & band.",
            torch.ones(size, size, dtype=torch.bool) if 1 <= window < size else None,
        ),
        (
            # blind13e-sw-window-clamped-to-size-minus-one (its band width alone before)
            f"Your window is clamped to size - 1 = {size - 1} (window = min(window, size - "
            "1)): the last query loses its oldest key, key 0. The window counts keys, the "
            "offsets i - j = 0 .. window - 1, so the largest offset size - 1 needs a window of "
            "size; a window of size or more keeps every key j <= i, lesson 06's "
            "look_ahead_mask(size). Clamp to size, min(window, size), or not at all.",
            _window(size, 0, size - 2) if window >= size else None,
        ),
        (
            # blind14e-sw-chunked-not-sliding (its band widths alone before)
            _CHUNKED,
            _chunked(size, window) if 1 < window < size else None,
        ),
        (
            # blind15e-sw-roll-wraps-around (told "leaves the query itself out")
            f"Your first {window} queries see nothing at all, not even themselves, while the "
            f"rows from query {window} on are right: the keys too old were found by shifting "
            f"the look-ahead mask down {window} rows with torch.roll, which wraps its last "
            "rows (all True) around to the top instead of shifting in rows of False, so "
            "those queries lose every key. Shift without wrap-around: old = "
            "torch.tril(ones, diagonal=-window) (or i - j >= window), then "
            "look_ahead_mask(size) & ~old.",
            _rolled(size, window) if 0 < window < size else None,
        ),
        # the family "a window anchored at fixed positions, not at each query"
        # (blind20d-sw-window-counted-from-sequence-end was told "leaves the query itself
        # out"): the last window keys of the whole sequence, or the first window keys
        (
            f"Your mask keeps the same keys for every query, the last window = {window} "
            f"positions of the whole sequence (keys {size - window} .. {size - 1}, as a "
            "rotating cache holds at the end of generation), with the causal part on top: "
            "only the last query is right, earlier ones lose their own recent keys and "
            f"queries 0 .. {size - window - 1} see nothing. The window is measured from "
            "each query, not from the end: query i sees keys i - window + 1 .. i.",
            (_window(size, 0, size) & (torch.arange(size)[None, :] >= size - window))
            if 0 < window < size
            else None,
        ),
        (
            f"Your mask keeps the same keys for every query, the first window = {window} "
            f"positions of the sequence (keys 0 .. {window - 1}: a condition j < window on "
            "the key alone), with the causal part on top: the first window queries are "
            "right, later ones lose their own recent keys. The window is counted from each "
            "query, not from the start of the sequence: query i sees keys i - window + 1 .. "
            "i (i - j < window).",
            (_window(size, 0, size) & (torch.arange(size)[None, :] < window))
            if 0 < window < size - 1
            else None,
        ),
        (
            # blind24c-sw-look-ahead-mask-negated (told "two mistakes at once"): the
            # look-ahead part negated; the band holds every later key, so the window
            # changes nothing
            "Your mask keeps exactly the keys after each query (j > i), whatever the "
            "window, and no query sees itself or any earlier key: it is lesson 06's "
            "look_ahead_mask(size) negated, as ~look_ahead_mask(size) & band (or "
            "~look_ahead_mask(size) alone) gives, since the band i - j < window holds every "
            "later key. look_ahead_mask is True where attention is allowed (j <= i), not a "
            "mask of the blocked future keys: combine it as it is, look_ahead_mask(size) & "
            "band.",
            _window(size, -size, -1) if size > 1 else None,
        ),
        (
            # blind14e-sw-old-keys-without-negation (told "leaves the query itself out")
            "Your mask keeps exactly the keys outside the window, those too old (i - j >= "
            "window), and drops the window itself: the old keys (torch.tril(ones, "
            "diagonal=-window), or i - j >= window) were combined with the look-ahead mask "
            "without negating them. The window is what is left once they are taken away: "
            "look_ahead_mask(size) & ~old.",
            _window(size, window, size) if window < size else None,
        ),
    ]


def _unrefuted(size: int, window: int, ran: list[tuple[int, int]]) -> dict:
    """The known mistakes for (size, window), less those that would have got an earlier
    call of this run wrong: the learner's mask was right there (the check stops at the
    first wrong one), so a mistake that predicts otherwise is not theirs (a shortcut for
    window >= size, blind10k-sliding-window-big-window-all-ones, was told "not causal" or
    "wraps around", both of which get sliding_window_mask(6, 3) wrong)."""
    refuted = {
        number
        for earlier_size, earlier_window in ran
        for number, (_, model) in enumerate(_window_models(earlier_size, earlier_window))
        if model is not None
        and not torch.equal(model, _window(earlier_size, 0, earlier_window - 1))
    }
    return {
        message: model
        for number, (message, model) in enumerate(_window_models(size, window))
        if number not in refuted
    }


def _difference_pattern(got: torch.Tensor, expected: torch.Tensor, window: int) -> str:
    """Where a causal mask with its diagonal differs from the window, described as a
    pattern (one column, one diagonal, each row a band of another width) rather than the
    first wrong entry alone (a first key kept for every query, or a band whose width is
    not window, got only the rule)."""
    extra, missing = got & ~expected, ~got & expected
    if extra.any() and not missing.any():
        where = extra.nonzero().tolist()
        columns = {j for _, j in where}
        if len(columns) == 1:
            (j,) = columns
            rows = sorted(i for i, _ in where)
            return (
                f"Every entry of yours that should be False is in column {j}: key {j} is also "
                f"allowed for queries {rows}, outside their window (a key kept for every "
                "query, as an attention sink of section 8 would be). The window alone is asked "
                "here."
            )
    size = got.shape[0]
    widths = got.sum(dim=1).tolist()
    banded = all(
        bool(got[i, max(0, i - w + 1) : i + 1].all()) and int(got[i].sum()) == w
        for i, w in enumerate(widths)
        if w > 0
    )
    if banded:
        wanted = [min(i + 1, window) for i in range(size)]
        return (
            f"Each row of yours is a band of keys ending at the query itself, but its rows "
            f"hold {widths} keys where the window asks for {wanted} (min(i + 1, window) = "
            f"min(i + 1, {window})): the width of your band is not the window argument."
        )
    # a mask built from the offset i - j alone, keeping other offsets than 0 .. window - 1:
    # a dilated window (blind29c-sw-dilated-every-other-key got the rule alone)
    offsets = kept_offsets(got)
    if offsets is not None:
        return offsets_sentence(offsets, 0, window - 1, size)
    return ""


def _past_size_hint(size: int, window: int):
    """A window wider than the mask makes a size computed as size - d (one diagonal per
    offset d < window) or size - window negative (blind12e-sliding-window-diagonals-past-
    size: torch.diag(torch.ones(size - d), -d))."""

    def hint(exc: BaseException) -> str:
        if window <= size or "negative dimension" not in str(exc):
            return ""
        return (
            f"The window ({window}) is larger than the mask (size = {size}): a size of yours "
            f"went negative, as size - d does for the offsets d = {size} .. {window - 1} of "
            "a loop over range(window) (one diagonal torch.diag(torch.ones(size - d), -d) "
            "per offset), or size - window. Only the offsets d < size exist: loop over "
            "range(min(window, size)), or build the band by comparing torch.arange rows and "
            "columns, which needs no special case."
        )

    return (RuntimeError, hint)


#: band widths as functions of the window that a learner may build (the off-by-ones are
#: the known models' own messages)
_WIDTH_RULES = {
    "window // 2 keys (half the window: the window read as a span around the query, "
    "Longformer's w/2 on each side)": lambda w: w // 2,
    "itself and window // 2 keys before it (window // 2 + 1 keys: the window read as a "
    "span around the query, Longformer's w/2 on each side, keeping only the side before "
    "it)": lambda w: w // 2 + 1,
    "(window + 1) // 2 keys (half the window, rounded up)": lambda w: (w + 1) // 2,
    "2 * window keys (twice the window)": lambda w: 2 * w,
    "window - 2 keys (two too few)": lambda w: max(w - 2, 0),
}
_PROBE_SIZE, _PROBE_WINDOWS = 12, (1, 2, 3, 4, 5, 6)


def _band_widths(sliding_window_mask) -> list[int] | None:
    """For windows 1..6 on a 12 x 12 mask, the width of the learner's band when every row
    is a causal band ending at the query itself (width min(i + 1, w) in row i), else None."""
    widths = []
    for window in _PROBE_WINDOWS:
        try:
            got = sliding_window_mask(_PROBE_SIZE, window)
        except Exception:  # the probe tells nothing
            return None
        if not isinstance(got, torch.Tensor) or tuple(got.shape) != (_PROBE_SIZE, _PROBE_SIZE):
            return None
        got = got.bool()
        width = int(got[-1].sum())
        if not torch.equal(got, _window(_PROBE_SIZE, 0, width - 1)):
            return None
        widths.append(width)
    return widths


def _width_rule(sliding_window_mask, size: int, window: int) -> str:
    """When the learner's masks are causal bands whose width is another function of the
    window than the window itself (probed on windows 1..6), that function named
    (blind12e-sliding-window-halved, window // 2, was told "window - 1" on window 3, where
    the two agree); "" for the off-by-ones, which the known models name."""
    widths = _band_widths(sliding_window_mask)
    if widths is None:
        return ""
    rules = [
        rule
        for rule, width in _WIDTH_RULES.items()
        if all(width(w) == got for w, got in zip(_PROBE_WINDOWS, widths, strict=True))
    ]
    if len(rules) != 1:
        return ""
    return (
        f"sliding_window_mask({size}, {window}) is a causal band of the wrong width. Probed "
        f"on a {_PROBE_SIZE} x {_PROBE_SIZE} mask with windows {list(_PROBE_WINDOWS)}, each "
        f"query of yours sees {widths} keys (itself included): {rules[0]}, where the "
        f"window asks for window keys: itself and the window - 1 before it (i - j < window)."
    )


def _swapped(sliding_window_mask, got, size: int, window: int) -> str:
    """A (window, window) mask whose swapped call sliding_window_mask(window, size) is the
    right (size, size) one: the parameters declared as (window, size)
    (blind14e-sw-parameters-declared-swapped, its shape alone before)."""
    if window == size or tuple(got.shape) != (window, window):
        return ""
    try:
        swapped = sliding_window_mask(window, size)
    except Exception:  # the learner's code: the probe tells nothing
        return ""
    right = _window(size, 0, window - 1)
    if not isinstance(swapped, torch.Tensor) or swapped.shape != right.shape:
        return ""
    if not torch.equal(swapped.bool(), right):
        return ""
    return (
        f" Yours is (window, window), and sliding_window_mask({window}, {size}), the two "
        f"arguments exchanged, gives the right ({size}, {size}) mask: your parameters are "
        "declared in the order (window, size). The contract is sliding_window_mask(size, "
        "window), and callers pass the size first."
    )


def _entries_reading(sliding_window_mask, read: torch.Tensor, size: int, window: int, ran) -> str:
    """What a mask's entries (``read``: a mask of another dtype read as bool) get wrong:
    the known mistake they equal, the band's width as another function of the window, or
    the part-by-part reading of :func:`_window_hint`."""
    for message, model in _unrefuted(size, window, ran).items():
        if model is not None and torch.equal(read, model):
            return message
    rule = _width_rule(sliding_window_mask, size, window)
    return rule or _window_hint(read, size, window)


def _expect_nothing_kept(c: Checker, sliding_window_mask, args: tuple, ran: list) -> None:
    """A size asked before, with another window: a mask kept between calls under a key
    without the window (a dict keyed by the size) comes back as the earlier call's."""
    size, window = args
    what = f"sliding_window_mask({size}, {window})"
    got = c.call(sliding_window_mask, size, window)
    _expect_tensor(c, got, what)
    expected = _window(size, 0, window - 1)
    if tuple(got.shape) == (size, size) and not torch.equal(got, expected):
        before = earlier_call(
            got, ran, args, lambda n, w: _window(n, 0, w - 1), lambda a, b: torch.equal(a, b)
        )
        if before is not None:
            c.fail(
                f"{what}, called after sliding_window_mask{before}, returned that earlier "
                "call's mask: your function keeps its masks between calls under a key "
                "without the window (a dict keyed by the size, as a mutable default argument "
                "or a module-level cache), so a second window of the same size gets the "
                "first one's mask. Build the mask on every call (it is cheap), or key a "
                "cache by (size, window)."
            )
    c.expect_equal(got, expected, what)


def check_sliding_window_mask(sliding_window_mask, *, hidden: bool = False) -> None:
    """sliding_window_mask(size, window) -> bool (size, size): j <= i and i - j < window."""
    with Checker("sliding_window_mask", hidden=hidden) as c:
        c.require_callable(sliding_window_mask)
        visible = [(6, 3), (5, 1), (4, 4), (4, 10)]
        cases = [(9, 2), (12, 5), (1, 1), (7, 7), (8, 20)] if hidden else visible
        # the sizes asked before (the visible run's too, on the hidden run)
        earlier: list[int] = [size for size, _ in visible] if hidden else []
        ran: list[tuple[int, int]] = []  # the calls of this run, all right so far
        for size, window in cases:
            what = f"sliding_window_mask({size}, {window})"
            got = c.call(
                sliding_window_mask,
                size,
                window,
                hints=[_wrap_hint(size, window), _past_size_hint(size, window)],
            )
            _expect_tensor(c, got, what)
            fixed = (
                f" {tuple(got.shape)} is the size an earlier call (or the visible test) asked "
                "for: is the size "
                "hard-coded? Build the mask from the size argument (torch.ones(size, size), "
                "torch.arange(size), look_ahead_mask(size))."
                if got.dim() == 2 and got.shape[0] == got.shape[1] and got.shape[0] in earlier
                else ""
            )
            padded = (
                f" Yours has {got.dim() - 2} leading axes of size 1 added (mask[None, None] or "
                "unsqueeze, as attention code that takes (batch, heads, len_q, len_k) masks "
                "does): return the (size, size) mask; the attention broadcasts it."
                if got.dim() > 2
                and tuple(got.shape[-2:]) == (size, size)
                and all(n == 1 for n in got.shape[:-2])
                else ""
            )
            # blind13e-sw-positions-not-broadcast (its shape alone before): two
            # torch.arange(size) compared element by element give each query against its own
            # position, all True for any window >= 1
            flat = (
                f" Yours is a ({size},) vector, True everywhere: the query and key positions, "
                "two torch.arange(size), were compared element by element (query i against "
                "key i only). Make the query positions a column so the comparison broadcasts "
                "to (size, size): i = torch.arange(size)[:, None] against j = "
                "torch.arange(size)[None, :]."
                if tuple(got.shape) == (size,) and got.dtype == torch.bool and bool(got.all())
                else ""
            )
            c.expect_shape(
                got,
                (size, size),
                what,
                "(len_q, len_k) = (size, size)."
                + (fixed or _swapped(sliding_window_mask, got, size, window))
                + padded
                + flat,
            )
            earlier.append(size)
            expected = _window(size, 0, window - 1)
            additive = additive_mask_note(got, expected)
            form = "Masks are bool, True = may attend (lesson 06); & of two bool masks stays bool."
            # a mask in another form whose entries are wrong too: both named (was told the
            # form alone, the wrong band found only once the dtype was mended)
            read = read_as_bool(got)
            if read is not None and not torch.equal(read, expected):
                wrong_form = (
                    f"{what} {additive}"
                    if additive
                    else f"{what} has dtype {got.dtype}, not torch.bool. {form}"
                )
                entries = _entries_reading(sliding_window_mask, read, size, window, ran)
                c.fail(
                    two_mistakes(
                        wrong_form,
                        f"Its entries are wrong too, read as the bool mask they stand for "
                        f"({'0' if additive else '1'} = may attend): {entries}",
                    )
                )
            c.expect_true(not additive, f"{what} {additive}")
            c.expect_dtype(got, torch.bool, what, form)
            if not torch.equal(got, expected):
                rule = _width_rule(sliding_window_mask, size, window)
                if rule:
                    c.fail(rule)
            c.expect_equal(
                got,
                expected,
                what,
                hint=lambda got=got, size=size, window=window: _window_hint(got, size, window),
                mistakes=_unrefuted(size, window, ran),
            )
            ran.append((size, window))
        # blind18c-sw-masks-cached-by-size passed: every size came with one window only
        _expect_nothing_kept(c, sliding_window_mask, (9, 4) if hidden else (6, 2), ran)
