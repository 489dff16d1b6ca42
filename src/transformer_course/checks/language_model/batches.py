"""Checks for lesson 11's next_token_batches: windows of a token stream, targets one step ahead."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from transformer_course.checking import Checker, CheckFailure
from transformer_course.checking.arguments import arguments_swapped
from transformer_course.checking.generators import generator_ignored
from transformer_course.checking.hints import outer_axis_hint
from transformer_course.checking.returned_order import reordered_values_note
from transformer_course.reference import language_model as ref

from .common import GENERATOR_BY_KEYWORD, RANDINT_SIZE_INT, _generator, _plain_generator


@dataclass(frozen=True)
class _BatchCase:
    seed: int
    num_tokens: int
    block_size: int
    batch_size: int


# b15b: a batch of one (and windows of one token) must keep both axes: a .squeeze() on the
# result passed every batch of several rows
_VISIBLE_BATCH = [_BatchCase(1, 12, 4, 400), _BatchCase(2, 50, 8, 6), _BatchCase(3, 10, 3, 1)]
_HIDDEN_BATCH = [
    _BatchCase(101, 9, 3, 500),
    _BatchCase(102, 200, 16, 12),
    _BatchCase(103, 6, 5, 50),
    _BatchCase(104, 8, 1, 5),
    _BatchCase(105, 7, 2, 1),
]

_TARGETS_SAME = (
    "Your targets are the inputs themselves. The target at each position is the token that "
    "comes next: tokens[s + 1 : s + block_size + 1]."
)
_TARGETS_BEFORE = (
    "Your targets are shifted the wrong way (the token before, not after). The target of "
    "inputs[b, i] = tokens[s + i] is tokens[s + i + 1]."
)
_TARGETS_BEFORE_OR_ORDER = (
    "Your targets are the token before each input, not after. Either the targets are "
    "shifted the wrong way (tokens[positions - 1]), or the pair comes back in the other "
    "order, (targets, inputs): your windows are not the contract's draw, so these batches "
    "cannot tell which. The target of inputs[b, i] = tokens[s + i] is tokens[s + i + 1], "
    "and the function returns (inputs, targets)."
)
_LAST_START = (
    "The last valid start, num_tokens - block_size - 1, never occurs in many draws: "
    "torch.randint's `high` is exclusive, so draw from 0 to num_tokens - block_size "
    "(torch.randint(0, len(tokens) - block_size, ...))."
)
_GENERATOR = (
    "Two calls with generators seeded alike gave different batches: draw the starts with "
    "the generator you were given (torch.randint(..., generator=generator)), never the "
    "global random stream, so that training is reproducible."
)


_WINDOW_PAST_END = (
    "An index ran past the end of the stream: a window or its targets reach beyond the last "
    "token. The window tokens[s : s + block_size] and its targets tokens[s + 1 : s + "
    "block_size + 1] must both fit, so every start s < num_tokens - block_size: "
    "torch.randint(0, num_tokens - block_size, (batch_size,), generator=generator)."
)


def _windows_shifted(next_token_batches, block_size: int) -> str:
    """When the learner's windows run past the end of the stream: their rows on a long
    stream (tokens 0, 1, 2, ... so that each id is its position), against the starts the
    contract draws from the same generator; the constant by which every window (and its
    targets) begins after its start, in words, or "" when no probe runs or no constant
    fits every row (blind24c-ntb-window-offsets-from-one was told the bound of the draw)."""
    num_tokens = 40 * (block_size + 1)
    tokens = torch.arange(num_tokens)  # (num_tokens,): token id == position
    rows_count = _STEP_PROBE_ROWS
    for seed in (11, 12, 13):
        try:
            inputs, targets = next_token_batches(tokens, block_size, rows_count, _generator(seed))
            rows, after = inputs.tolist(), targets.tolist()  # (rows, block_size) ints each
        except Exception:  # the learner's code may fail in any way here; try another draw
            continue
        high = num_tokens - block_size
        drawn = torch.randint(0, high, (rows_count,), generator=_plain_generator(seed)).tolist()
        if len(rows) != rows_count or any(len(row) != block_size for row in rows):
            return ""
        if any(row != list(range(row[0], row[0] + block_size)) for row in rows):
            return ""
        shifts = {row[0] - s for row, s in zip(rows, drawn, strict=True)}
        if len(shifts) != 1 or (shift := shifts.pop()) <= 0:
            return ""
        targets_right = all(t == [x + 1 for x in row] for t, row in zip(after, rows, strict=True))
        window = f"tokens[s + {shift} : s + {shift} + block_size]"
        return (
            f"Every window begins {shift} token{'s' if shift > 1 else ''} after its drawn start "
            f"s: on a longer stream (tokens 0, 1, 2, ..., each id its position) your rows are "
            f"{window}"
            + (" (with their targets one further)" if targets_right else "")
            + ", s being the start the generator draws, where they belong at tokens[s : s + "
            f"block_size]; so the largest start reaches "
            f"{shift} token{'s' if shift > 1 else ''} past the end of the stream. Either the "
            f"window's offsets start at {shift} (torch.arange({shift}, block_size + {shift}) "
            f"instead of torch.arange(block_size)), or {shift} is added to the starts, or the "
            f"starts are drawn from {shift} (torch.randint({shift}, num_tokens - block_size + "
            f"{shift}, ...), the same numbers): the window is tokens[s : s + block_size] for "
            "s = torch.randint(0, num_tokens - block_size, (batch_size,), generator=generator), "
            "positions = s[:, None] + torch.arange(block_size)."
        )
    return ""


def _window_past_end_hint(next_token_batches, case):
    """An index past the end of the stream: windows shifted after their starts, when the
    probe shows it; otherwise the bound every start must keep."""

    def hint(exc: BaseException) -> str:
        return _windows_shifted(next_token_batches, case.block_size) or _WINDOW_PAST_END

    return hint


def _padded_window(row: list[int], ids: list[int] | None, targets_row: list[int] | None) -> str:
    """When a window's foreign tokens (-1) are all at its front or all at its end and the
    rest are consecutive stream positions: the window shifted by as many places, with
    ids that are not in the stream put in (a start-of-sequence token prepended, or an
    end token appended), and what that does to the targets when they were left as
    tokens[s + 1 : s + block_size + 1] (blind23c-ntb-bos-prepended-targets-two-ahead was
    told the positions alone); "" otherwise."""
    foreign = [i for i, p in enumerate(row) if p == -1]
    count, length = len(foreign), len(row)
    if count == length:
        return ""
    at_front = foreign == list(range(count))
    at_end = foreign == list(range(length - count, length))
    stream = [p for p in row if p != -1]
    if not (at_front or at_end) or stream != list(range(stream[0], stream[0] + len(stream))):
        return ""
    made_up = f" (id {ids[foreign[0]]})" if ids is not None and count == 1 else ""
    if at_end:
        return (
            f": its first {length - count} tokens are consecutive, then {count} made-up "
            f"token{'s' if count > 1 else ''}{made_up} not from the stream at the end (an "
            "end token appended to the window)"
        )
    first = (
        f"its first {count} tokens are made-up ids"
        if count > 1
        else "its first token is a made-up id"
    )
    told = (
        f": {first}{made_up} not from the stream, then tokens at "
        f"consecutive positions {stream[0]} to {stream[-1]}: the window is shifted right by "
        f"{count} place{'s' if count > 1 else ''}, with a token prepended (a "
        "start-of-sequence (bos) or padding id) and the window's last token dropped"
    )
    if targets_row is not None and targets_row[count:] == [p + count + 1 for p in stream]:
        told += (
            f". Your targets were not shifted with it: after the prepended token each "
            f"target is {count + 1} tokens ahead of its input (inputs[b, t] is tokens[s + t "
            f"- {count}], its target tokens[s + t + 1]), where the target is the very next "
            "token. The lesson's windows have no bos token: inputs tokens[s : s + "
            "block_size], targets tokens[s + 1 : s + block_size + 1]"
        )
    return told


_TARGETS_WRAP = (
    " inputs[{b}] ends at the stream's last token (positions {row}), and its targets wrap "
    "round to the stream's first token (positions {got}, of a stream of {n} tokens): the "
    "stream is read as circular (positions taken modulo len(tokens), or a negative "
    "index, or a roll), and this start is drawn too high. The windows do not wrap: draw "
    "every start below num_tokens - block_size, torch.randint(0, num_tokens - block_size, "
    "(batch_size,), generator=generator), so that a window's targets, one token further, "
    "fit in the stream too."
)


def _window_message(
    call: str,
    b: int,
    row: list[int],
    num_tokens: int,
    ids: list[int] | None = None,
    *,
    ids_in_row: list[int] | None = None,
    targets_row: list[int] | None = None,
) -> str:
    """What inputs[b] holds, told by the stream positions of its tokens (``row``; -1:
    a token that is not in the stream) and its values (``ids``): a window that runs
    backwards or steps by more than one, or ids counting up, is named."""
    shown = f"{call}: inputs[{b}] holds the tokens at stream positions {row}"
    rule = "Each row must be tokens[s : s + block_size] for one start s"
    start, length = row[0], len(row)
    if ids is not None and len(ids) > 1 and ids == list(range(ids[0], ids[0] + len(ids))):
        # blind19d-ntb-offsets-added-to-token-ids: tokens[starts][:, None] + arange
        return (
            f"{shown}: its values are consecutive integers, {ids}, counting up from the "
            f"first token's id {ids[0]}: the offsets torch.arange(block_size) were added "
            "to the token ids instead of to the start positions (an index bracket closed "
            "too early, tokens[starts][:, None] + torch.arange(block_size)). Add the offsets "
            "to the starts, then index: positions = starts[:, None] + "
            f"torch.arange(block_size), tokens[positions]. {rule}."
        )
    if -1 in row:
        padded = _padded_window(row, ids_in_row, targets_row)
        return f"{shown} (-1: a token that is not in the stream){padded}. {rule}."
    if start + length > num_tokens and row == [(start + i) % num_tokens for i in range(length)]:
        # blind26c-ntb-windows-wrap-around-stream: positions % len(tokens), word2vec's ring
        return (
            f"{shown}: your window runs past the end of the stream and wraps round to its "
            f"first tokens. It starts at {start}, and a window of {length} tokens from there "
            f"needs positions up to {start + length - 1}, but the stream has {num_tokens} "
            f"(positions 0 to {num_tokens - 1}): the stream is read as circular (positions "
            "taken modulo len(tokens), or a negative index, or a roll), and your starts are "
            "drawn too high. The windows do not wrap: draw every start below num_tokens - "
            "block_size, torch.randint(0, num_tokens - block_size, (batch_size,), "
            "generator=generator), so that a window and its targets, one token further, "
            f"fit in the stream. {rule}."
        )
    for step in (-1, *range(2, length + 1), *range(-length, -1)):
        if row == [(start + step * i) % num_tokens for i in range(length)]:
            if step == -1:
                return (
                    f"{shown}: your window runs backwards (positions s - i: the offsets "
                    "are subtracted from the start instead of added, or the window is "
                    f"reversed). "
                    f"{rule}: positions s + torch.arange(block_size)."
                )
            return (
                f"{shown}: your window steps by {step} positions, not 1 (positions s + "
                f"{step}·i). {rule}: positions s + torch.arange(block_size)."
            )
    return f"{shown}, not consecutive ones. {rule}."


def _time_major(value: torch.Tensor, shape: tuple[int, int], position: dict[int, int]) -> str:
    """The hint for a result of shape (block_size, batch_size) whose columns are the
    windows (time-major, as a seq-first iterator makes); "" otherwise."""
    if value.dim() != 2 or tuple(value.shape) != shape[::-1] or shape[0] == shape[1]:
        return ""
    for column in value.T:
        row = [position.get(int(t), -1) for t in column]
        if row != list(range(row[0], row[0] + len(row))):
            return ""
    return (
        "It is the transpose of what is asked, (block_size, batch_size), time-major: each "
        "window is a column. The windows are the rows, (batch_size, block_size): stack them "
        "along dim 0 (or drop the .T / transpose)."
    )


def _axis_of_one_dropped(value: torch.Tensor, shape: tuple[int, int]) -> str:
    """The hint for a table that lost its axis of size one (batch_size = 1 or block_size =
    1) and kept the others: squeezed (b15b-ntb-squeezed-batch-of-one got the shape alone)."""
    sizes = [n for n in shape if n != 1]
    if value.dim() >= 2 or 1 not in shape or list(value.shape) != sizes:
        return ""
    which = "batch_size = 1" if shape[0] == 1 else "block_size = 1"
    lost = "batch axis" if shape[0] == 1 else "window axis"
    return (
        f"With {which} the {lost} is gone: something removed the axes of size one (a "
        ".squeeze() on the tables, or an index [0] / .squeeze(0) meant for another shape). "
        "The tables are (batch_size, block_size) for every size, a batch of one included "
        "(the model takes (batch, len)): return tokens[positions] and tokens[positions + 1] "
        "as they are."
    )


def _long_by_one(value: torch.Tensor, shape: tuple[int, int], name: str) -> str:
    """The hint for windows one position too long (batch_size, block_size + 1): the window
    and the token after it, returned whole (b15b-ntb-inputs-keep-the-extra-token got the
    shape alone)."""
    if value.dim() != 2 or tuple(value.shape) != (shape[0], shape[1] + 1):
        return ""
    fix = (
        "the inputs are its first block_size tokens, chunks[:, :-1], the targets its last "
        "block_size, chunks[:, 1:]"
    )
    return (
        f"Your {name} are one position too long: block_size + 1 tokens per row, the window "
        "and the token after it (positions starts[:, None] + torch.arange(block_size + 1), "
        "or tokens[s : s + block_size + 1]), returned whole. Such a chunk holds both tables: "
        f"{fix}."
    )


def _short_by_one(value: torch.Tensor, shape: tuple[int, int]) -> str:
    """The hint for windows one position short (batch_size, block_size - 1): both
    candidates that give it (blind8b-batches-shift-inside-window got the shape alone)."""
    if value.dim() == 2 and tuple(value.shape) == (shape[0], 1) and shape[1] > 2:
        return (
            "Each window holds one token: the positions are the starts alone (starts[:, None]) "
            "without the offsets. positions = starts[:, None] + torch.arange(block_size) "
            "gives the block_size positions of every window."
        )
    if value.dim() != 2 or tuple(value.shape) != (shape[0], shape[1] - 1):
        return ""
    return (
        "It is one position short: windows of block_size tokens shifted inside the window "
        "(inputs = w[:, :-1], targets = w[:, 1:]) come out block_size - 1 long, as do "
        "windows of block_size - 1 tokens. Each window of the stream spans block_size + 1 "
        "tokens: inputs = tokens[positions], targets = tokens[positions + 1], with positions "
        "= starts[:, None] + torch.arange(block_size)."
    )


def _targets_relation(
    c: Checker,
    call: str,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    position: dict[int, int],
    last: int,
) -> None:
    """Targets that are wrong in the same way in every row: the token ids plus one (the
    + 1 put on the values instead of the positions), or the tokens k > 1 positions ahead
    (with the starts' range, when it is also short: two mistakes at once)."""
    rows = [[position.get(int(t), -1) for t in row] for row in inputs]
    after = [[position.get(int(t), -2) for t in row] for row in targets]
    if all(a == [i + 1 for i in r] for r, a in zip(rows, after, strict=True)):
        return
    if torch.equal(targets, inputs + 1):
        c.fail(
            f"{call}: every target is its input's token id plus one (targets = "
            "tokens[positions] + 1): the + 1 belongs to the positions, not to the ids. "
            "targets = tokens[positions + 1], the token that comes next in the stream."
        )
    length = len(rows[0]) if rows else 0
    for k in range(2, length + 2):
        if all(a == [i + k for i in r] for r, a in zip(rows, after, strict=True)):
            starts = [r[0] for r in rows]
            short = (
                f" Also, no window starts at the last valid start {last} (the largest is "
                f"{max(starts)}): draw the starts with torch.randint(0, len(tokens) - "
                "block_size, ...), whose high is exclusive."
                if _missing_starts(starts, last) == _LAST_START
                else ""
            )
            c.fail(
                f"{call}: your targets are {k} tokens ahead of the inputs (tokens[positions "
                f"+ {k}]), {k - 1} too far: the target is the very next token, "
                f"tokens[positions + 1].{short}"
            )
    by_column = _targets_by_column(call, rows, after)
    if by_column:
        c.fail(by_column)


def _column_offsets(rows: list[list[int]], after: list[list[int]]) -> list[int | None] | None:
    """For targets that follow the same rule in every row: the offset d_j from its window's
    start s of the stream token that column j of the targets holds (target[b, j] =
    tokens[s_b + d_j] in every row b; None: a column of tokens that are not in the
    stream); None when some column holds different offsets in different rows."""
    offsets: list[int | None] = []
    for j in range(len(after[0]) if after else 0):
        seen = {a[j] - r[0] if a[j] >= 0 else None for r, a in zip(rows, after, strict=True)}
        if len(seen) != 1:
            return None
        offsets.append(seen.pop())
    return offsets


def _targets_by_column(call: str, rows: list[list[int]], after: list[list[int]]) -> str:
    """The message for targets right in some columns and wrong in others, the same in every
    row (the inputs right): each candidate that builds the targets from the inputs (a roll,
    the last input repeated, a padding value) predicts the offset of every column, and one
    is named only when it agrees with every column; otherwise the wrong columns are told by
    what they hold. Targets whose rows are windows of their own from other starts (a second
    draw) are told too. "" when the targets are right or follow no such rule."""
    length = len(rows[0]) if rows else 0
    if not length or any(r != list(range(r[0], r[0] + length)) for r in rows):
        return ""
    offsets = _column_offsets(rows, after)
    if offsets is None:
        windows = all(a[0] >= 0 and a == list(range(a[0], a[0] + length)) for a in after)
        if not windows:
            return ""
        other = sum(a[0] != r[0] + 1 for r, a in zip(rows, after, strict=True))
        return (
            f"{call}: every row of your targets is a window of the stream, but {other} of "
            f"{len(rows)} start elsewhere than their inputs' window plus one: targets[b] "
            "must be the same window moved one token, tokens[s + 1 : s + block_size + 1] "
            "with the same start s as inputs[b]. Were the targets' starts drawn separately, "
            "by a second draw (torch.randint called again)? Draw the starts once and use them for both: inputs = "
            "tokens[positions], targets = tokens[positions + 1]."
        )
    expected = list(range(1, length + 1))
    wrong = [j for j in range(length) if offsets[j] != expected[j]]
    if not wrong or (None not in offsets and len({d - j for j, d in enumerate(offsets)}) == 1):
        return ""  # right, or one shift for every column: told by its own message
    fix = (
        "The target of the last input is the token after the window, tokens[s + block_size], "
        "which the inputs do not hold: take the targets from the stream, targets = "
        "tokens[positions + 1] (or tokens[s + 1 : s + block_size + 1])."
    )
    candidates = {
        "wraps round to the window's own first token, tokens[s], as rolling the inputs "
        "(inputs.roll(-1, dims=1), or torch.cat([inputs[:, 1:], inputs[:, :1]], 1)) gives": [
            *expected[:-1],
            0,
        ],
        "repeats the last input, tokens[s + block_size - 1], as filling the last column "
        "from the inputs (torch.cat([inputs[:, 1:], inputs[:, -1:]], 1)) gives": [
            *expected[:-1],
            length - 1,
        ],
        "is not a token of the stream (a padding value put where the next token belongs)": [
            *expected[:-1],
            None,
        ],
    }
    for what, predicted in candidates.items():
        if offsets == predicted:
            return f"{call}: every target is right but the last of each row, which {what}. {fix}"
    right = length - len(wrong)

    def held(j: int) -> str:
        d = offsets[j]
        if d is None:
            return "a token that is not in the stream"
        return f"tokens[s{f' + {d}' if d > 0 else f' - {-d}' if d < 0 else ''}]"

    shown = "; ".join(
        f"targets[:, {j}] holds {held(j)} where tokens[s + {j + 1}] belongs" for j in wrong[:3]
    )
    return (
        f"{call}: {right} of the {length} columns of your targets are right, the same in "
        f"every row (s: the row's start); {shown}{'; ...' if len(wrong) > 3 else ''}. "
        "The target of inputs[b, i] = tokens[s + i] is tokens[s + i + 1]."
    )


def _each_start_once(value: torch.Tensor, shape: tuple[int, int], num_tokens: int) -> str:
    """Fewer rows than batch_size, exactly as many as there are starts: each start drawn
    at most once (blind10b: torch.randperm(...)[:batch_size] got the shapes alone)."""
    starts = num_tokens - shape[1]
    if (
        not isinstance(value, torch.Tensor)
        or value.dim() != 2
        or value.shape[1] != shape[1]
        or value.shape[0] != starts
        or starts >= shape[0]
    ):
        return ""
    return (
        f"Yours has {starts} rows, exactly the number of possible starts (len(tokens) - "
        f"block_size = {starts}): each start was drawn at most once (torch.randperm(...)"
        "[:batch_size], or another draw without replacement), so a batch larger than that "
        "runs out. Draw batch_size starts with replacement: torch.randint(0, len(tokens) - "
        "block_size, (batch_size,), generator=generator)."
    )


def _rows_not_batch_size(value: torch.Tensor, shape: tuple[int, int], num_tokens: int) -> str:
    """Windows of the right length but another number of rows than batch_size: said in
    the contract's names, block_size rows named (blind10h-batches-block-size-starts:
    randint's size (block_size,) got the shapes alone)."""
    if (
        not isinstance(value, torch.Tensor)
        or value.dim() != 2
        or value.shape[1] != shape[1]
        or value.shape[0] == shape[0]
        or value.shape[0] == num_tokens - shape[1]  # each start once: said by its own hint
    ):
        return ""
    rows = value.shape[0]
    which = (
        f"block_size ({rows}) rows: was the number of starts drawn block_size, "
        "torch.randint(..., (block_size,), ...)?"
        if rows == shape[1]
        else f"{rows} rows."
    )
    return (
        f"Each window has the right length, block_size = {shape[1]}, but there is one row per "
        f"start and batch_size = {shape[0]} starts: (batch_size, block_size). Yours has "
        f"{which} Draw batch_size starts: torch.randint(0, len(tokens) - block_size, "
        "(batch_size,), generator=generator)."
    )


#: -log of the chance below which a pattern in the seeded draws is taken as the code's, not
#: luck (about one in a million)
_UNLIKELY = math.log(1e6)


def _repeated_starts(call: str, starts: list[int], starts_possible: int) -> str:
    """The rows' windows repeat: fewer starts were drawn than there are rows, and their
    windows repeated (blind13b: one start drawn for the whole batch was told the last
    valid start never occurs). Every row alike, the first k rows tiled (.repeat), or each
    start repeated k times in a row (.repeat_interleave); each said only where independent
    draws give that pattern with a chance under one in a million. "" otherwise."""
    batch = len(starts)
    surprise = math.log(starts_possible)  # -log of the chance that a draw repeats a given one
    if batch < 2 or starts_possible < 2:
        return ""
    fix = (
        "Each row needs a start of its own: draw batch_size starts, torch.randint(0, "
        "len(tokens) - block_size, (batch_size,), generator=generator), and take row b's "
        "window from starts[b]."
    )
    if len(set(starts)) == 1 and (batch - 1) * surprise > _UNLIKELY:
        return (
            f"{call}: every row is the same window (start {starts[0]}, all {batch} rows): one "
            "start was drawn for the whole batch and its window repeated (a draw of size "
            "(1,) expanded to the batch, or starts[0] used for every row). " + fix
        )
    for period in range(2, batch // 2 + 1):
        tiled = all(starts[b] == starts[b - period] for b in range(period, batch))
        if tiled and (batch - period) * surprise > _UNLIKELY:
            return (
                f"{call}: the rows repeat the first {period} windows over and over (row b is "
                f"row b - {period}'s window): only {period} starts "
                "were drawn for the batch and tiled (.repeat). " + fix
            )
    for run in range(batch // 2, 1, -1):
        runs = all(starts[b] == starts[b - b % run] for b in range(batch))
        if runs and (batch - math.ceil(batch / run)) * surprise > _UNLIKELY:
            return (
                f"{call}: each window comes {run} times in a row (rows 0 .. {run - 1} alike, "
                f"then the next {run}, ...): only one start was drawn per {run} rows and "
                "repeated (.repeat_interleave, or a start reused across rows). " + fix
            )
    return ""


def _missing_starts(starts: list[int], last: int) -> str:
    """Valid starts (0 .. last) that never occur, said only when the draws are so many that
    each start occurs with a chance above 1 - 1e-6: the last alone (randint's high taken
    as inclusive), 0 alone (drawn from 1), or which ones. "" when every start occurs or
    the draws are too few to tell."""
    possible = last + 1
    if possible * math.exp(-len(starts) / possible) > 1e-6:
        return ""
    missing = sorted(set(range(possible)) - set(starts))
    if not missing:
        return ""
    if missing == [last]:
        return _LAST_START
    if missing == [0]:
        return (
            "the start 0 never occurs in many draws: are the starts drawn from 1 instead of "
            "0? torch.randint(0, len(tokens) - block_size, ...) draws every start from 0 to "
            "len(tokens) - block_size - 1."
        )
    shown = ", ".join(map(str, missing[:6])) + (", ..." if len(missing) > 6 else "")
    return (
        f"in {len(starts)} draws the starts {shown} never occur, although every start from 0 "
        f"to num_tokens - block_size - 1 = {last} is valid and should come up: draw from the "
        "whole range, torch.randint(0, len(tokens) - block_size, (batch_size,), "
        "generator=generator)."
    )


def _contract_starts(case: _BatchCase) -> list[int]:
    """The starts the contract's draw gives with the check's generator."""
    high = case.num_tokens - case.block_size
    generator = _plain_generator(case.seed)
    return torch.randint(0, high, (case.batch_size,), generator=generator).tolist()


def _other_draws(case: _BatchCase) -> dict[str, list[int]]:
    """The starts that other ways of drawing from the same generator give: each would pass
    every test of range, spread and reproducibility (blind17b-ntb-starts-from-scaled-rand)."""
    high, size = case.num_tokens - case.block_size, (case.batch_size,)

    def draw(how) -> list[int]:
        return how(_plain_generator(case.seed)).tolist()

    return {
        "uniform floats scaled and truncated, (torch.rand(batch_size, generator=generator) "
        "* high).long()": draw(lambda g: (torch.rand(size, generator=g) * high).long()),
        "a permutation's first entries, torch.randperm(high, generator=generator)"
        "[:batch_size] (which also never repeats a start)": draw(
            lambda g: torch.randperm(high, generator=g)[: case.batch_size]
        ),
        "torch.randint with high one smaller, torch.randint(0, num_tokens - block_size - 1, "
        "...)": draw(lambda g: torch.randint(0, high - 1, size, generator=g)),
        "torch.randint with high one larger, torch.randint(0, num_tokens - block_size + 1, "
        "...)": draw(lambda g: torch.randint(0, high + 1, size, generator=g)),
        "torch.randint from 1, torch.randint(1, num_tokens - block_size, ...)": draw(
            lambda g: torch.randint(1, high, size, generator=g)
        ),
    }


def _draws_skipped(starts: list[int], case: _BatchCase, most: int = 16) -> int:
    """How many numbers of the generator's stream came before the learner's starts, when
    they are the contract's draw continued (a first draw whose numbers are not the starts
    consumed them; round 34); 0 when no count up to ``most`` gives them."""
    high = case.num_tokens - case.block_size
    longer = torch.randint(
        0, high, (case.batch_size + most,), generator=_plain_generator(case.seed)
    ).tolist()
    for skipped in range(1, most + 1):
        if longer[skipped : skipped + case.batch_size] == starts:
            return skipped
    return 0


def _other_draw(call: str, starts: list[int], case: _BatchCase) -> str:
    """The message for valid windows drawn otherwise than the contract's
    torch.randint(0, num_tokens - block_size, (batch_size,), generator=generator): the
    lesson's training run reproduces the reference's batches (and the shipped record) only
    with that draw. "" when the starts are the contract's."""
    expected = _contract_starts(case)
    if starts == expected:
        return ""

    def head(values: list[int], shown: int = 8) -> str:
        return (
            "[" + ", ".join(map(str, values[:shown])) + (", ...]" if len(values) > shown else "]")
        )

    said = (
        f"{call}: your windows are valid windows, drawn with the generator, but not the ones "
        f"the contract's draw gives: yours start at {head(starts)}, torch.randint(0, "
        f"num_tokens - block_size, (batch_size,), generator=generator) gives {head(expected)}."
    )
    matching = [how for how, other in _other_draws(case).items() if other == starts]
    if sorted(starts) == sorted(expected):
        # blind12i-ntb-starts-sorted: the contract's starts, put in order afterwards
        order = (
            "sorted in increasing order"
            if starts == sorted(starts)
            else "sorted in decreasing order"
            if starts == sorted(starts, reverse=True)
            else "in another order"
        )
        said += (
            f" They are the same starts as the contract's draw, {order}: the rows' order "
            "was changed after the draw (a sort of the starts, or of the windows). Keep the "
            "starts in the order torch.randint draws them: the batches' order is part of "
            "what the same seed must reproduce."
        )
    elif len(matching) == 1:
        said += f" Yours are the starts of {matching[0]}."
    elif skipped := _draws_skipped(starts, case):
        numbers = f"{skipped} number{'s' if skipped > 1 else ''}"
        said += (
            f" Yours are the contract's draw moved on by {numbers}: {numbers} of the "
            f"generator's stream went to another draw first (a call with "
            "generator=generator before this one, such as a torch.randint or torch.rand "
            "whose result is not the starts). Draw the starts first, and only once."
        )
    else:
        said += (
            " Another random function (torch.rand scaled, torch.randperm, "
            "torch.multinomial), another low or high bound, or another draw from the "
            "generator before this one gives such starts."
        )
    return (
        f"{said} Draw exactly so: the same seed must give the reference's batches, which "
        "the lesson's training run (and its shipped record) is compared with."
    )


def _one_tensor(got, case: _BatchCase) -> str:
    """A tensor where the pair belongs: the two tables stacked into one, (2, batch_size,
    block_size) (blind16b-ntb-returns-one-stacked-tensor was told only "not a tuple"), or
    another single tensor; "" for anything else."""
    if not isinstance(got, torch.Tensor):
        return ""
    if tuple(got.shape) == (2, case.batch_size, case.block_size):
        return (
            f"It is one tensor of shape {tuple(got.shape)}: the inputs and the targets "
            "stacked (torch.stack([inputs, targets])) into a single tensor instead of "
            "returned as a tuple of two tensors. Unpacking it happens to work, but the "
            "contract returns the tuple: return inputs, targets. "
        )
    return f"It is one tensor of shape {tuple(got.shape)}, not a tuple of two tensors. "


def _not_stacked(value, shape: tuple[int, int]) -> str:
    """A list or tuple of the windows (blind17b-ntb-returns-lists-of-windows was told only
    "a list"): what it holds, and the stack that makes the (batch_size, block_size)
    tensor."""
    if not isinstance(value, list | tuple) or not value:
        return ""
    kinds = {
        tuple(item.shape) if isinstance(item, torch.Tensor) else type(item).__name__
        for item in value
    }
    if kinds != {(shape[1],)}:
        return ""
    return (
        f"It is a Python {type(value).__name__} of {len(value)} windows of shape "
        f"({shape[1]},), one per sequence: join them into one (batch_size, block_size) = "
        f"{shape} tensor with torch.stack(windows) (or index the stream with a "
        "(batch_size, block_size) tensor of positions, which gives it in one step)."
    )


def _targets_after(inputs, tokens: torch.Tensor, position: dict) -> torch.Tensor | None:
    """The ids that follow each of the learner's inputs in tokens, (batch_size,
    block_size) int64; None when the inputs are not ids of tokens with a next one."""
    try:
        ids = inputs.detach().long().tolist()  # (batch_size, block_size)
        after = [[position[i] + 1 for i in row] for row in ids]
        if any(p >= len(tokens) for row in after for p in row):
            return None
        return tokens[torch.tensor(after)]  # (batch_size, block_size)
    except Exception:  # not a 2-D tensor of the tokens' ids
        return None


def check_next_token_batches(next_token_batches, *, hidden: bool = False) -> None:
    with Checker("next_token_batches", hidden=hidden) as c:
        c.require_callable(next_token_batches)
        for case in _HIDDEN_BATCH if hidden else _VISIBLE_BATCH:
            try:
                _check_batch_case(c, next_token_batches, case)
            except CheckFailure as failure:
                found = (
                    _sizes_swapped(next_token_batches, case)
                    or _window_length_follows_batch_size(next_token_batches, case)
                    or _starts_in_step(next_token_batches, case)
                )
                if not found:
                    raise
                raise CheckFailure(failure.exercise, found) from None


def _check_batch_case(c: Checker, next_token_batches, case: _BatchCase) -> None:
    """One case of check_next_token_batches."""
    # distinct values, so that every token's position is known
    tokens = torch.randperm(case.num_tokens, generator=_plain_generator(case.seed)) + 3
    position = {int(t): i for i, t in enumerate(tokens)}
    call = f"next_token_batches(tokens ({case.num_tokens},), {case.block_size}, {case.batch_size}, generator)"
    args = (tokens, case.block_size, case.batch_size)
    got = c.call(
        next_token_batches,
        *args,
        _generator(case.seed),
        call_repr=call,
        hints=[
            ("out of bounds for dimension 0", _window_past_end_hint(next_token_batches, case)),
            # a slice past the end is cut short, so the same shift surfaces in torch.stack
            (
                "stack expects each tensor to be equal size",
                lambda exc: _windows_shifted(next_token_batches, case.block_size),
            ),
            GENERATOR_BY_KEYWORD,
            RANDINT_SIZE_INT,
            outer_axis_hint(
                ("batch_size", case.batch_size),
                ("block_size", case.block_size),
                "positions = starts[:, None] + torch.arange(block_size), (batch_size, block_size)",
            ),
        ],
    )
    again = c.call(next_token_batches, *args, _generator(case.seed), call_repr=call)
    c.expect_type(got, tuple, call, _one_tensor(got, case) + "Return a pair (inputs, targets).")
    c.expect_true(len(got) == 2, f"{call} should return a pair (inputs, targets).")
    # the contract's pair in the other order: both of one shape, so only the values tell
    # (round 34: `return targets, inputs` was told its targets were shifted the wrong way)
    contract = ref.next_token_batches(
        tokens, case.block_size, case.batch_size, _plain_generator(case.seed)
    )
    reordered = reordered_values_note(
        got,
        contract,
        ("inputs", "targets"),
        # round 37 (blind10h-batches-inputs-targets-swapped): what the swap teaches
        "Unpacked as inputs, targets = ..., your targets are the tokens one place before "
        "the inputs, so a model trained on them learns to predict the previous token, not "
        "the next.",
    )
    c.expect_true(not reordered, f"{call}: {reordered}")
    inputs, targets = got
    shape = (case.batch_size, case.block_size)
    for name, value in (("inputs", inputs), ("targets", targets)):
        c.expect_type(value, torch.Tensor, f"{call}: {name}", _not_stacked(value, shape))
        c.expect_shape(
            value,
            shape,
            f"{call}: {name}",
            _time_major(value, shape, position)
            or _axis_of_one_dropped(value, shape)
            or _long_by_one(value, shape, name)
            or _short_by_one(value, shape)
            or _each_start_once(value, shape, case.num_tokens)
            or _rows_not_batch_size(value, shape, case.num_tokens),
            # the targets that follow the learner's own inputs: an encoding of them (one-hot,
            # blind27c-ntb-targets-one-hot) is said from its values
            expected=_targets_after(inputs, tokens, position) if name == "targets" else None,
        )
        c.expect_true(
            value.dtype == torch.int64,
            f"{call}: {name} should be int64 token ids, not {value.dtype}.",
        )
    last = case.num_tokens - case.block_size - 1
    _targets_relation(c, call, inputs, targets, position, last)
    regrouped = _windows_regrouped(inputs, position, case)
    c.expect_true(not regrouped, f"{call}: {regrouped}")
    starts = []
    rows = inputs.tolist()
    # every row's ids counting up by one: the offsets added to the ids, not the positions
    every_row_counts = all(r == list(range(r[0], r[0] + len(r))) for r in rows)
    for b in range(case.batch_size):
        counting_up = rows[b] if every_row_counts else None
        row = [position.get(int(t), -1) for t in inputs[b]]
        start = row[0]
        consecutive = row == list(range(start, start + case.block_size))
        c.expect_true(
            consecutive,
            ""
            if consecutive
            else _window_message(
                call,
                b,
                row,
                case.num_tokens,
                counting_up,
                ids_in_row=rows[b],
                targets_row=[position.get(int(t), -1) for t in targets[b]],
            ),
        )
        starts.append(start)
        got_next = [position.get(int(t), -2) for t in targets[b]]
        if got_next == row:
            c.fail(f"{call}: {_TARGETS_SAME}")
        if got_next == [i - 1 for i in row]:
            # the inputs at the contract's starts tell a shift from a pair returned in the
            # other order (each also drawn otherwise): else both are said
            drawn = [position.get(int(r[0]), -1) for r in rows] == _contract_starts(case)
            c.fail(f"{call}: {_TARGETS_BEFORE if drawn else _TARGETS_BEFORE_OR_ORDER}")
        wraps = row[-1] + 1 >= case.num_tokens and got_next == [
            (i + 1) % case.num_tokens for i in row
        ]
        c.expect_true(
            got_next == [i + 1 for i in row],
            f"{call}: targets[{b}] should be tokens[s + 1 : s + block_size + 1], the "
            "inputs moved one token to the right."
            + (
                _TARGETS_WRAP.format(b=b, row=row, got=got_next, n=case.num_tokens) if wraps else ""
            ),
        )
    c.expect_true(
        max(starts) <= last and min(starts) >= 0,
        f"{call}: a window starts at {max(starts)}, past the last valid start {last}.",
    )
    repeated = _repeated_starts(call, starts, last + 1)
    c.expect_true(not repeated, repeated)
    missing = _missing_starts(starts, last)
    c.expect_true(not missing, f"{call}: {missing}")
    c.expect_true(torch.equal(again[0], inputs) and torch.equal(again[1], targets), _GENERATOR)
    # b12b: a generator of the learner's own (or the given one re-seeded) passes the
    # test above; another seed must give other windows, where two seeds drawing the
    # same starts is next to impossible (several starts possible, many rows)
    starts_possible = case.num_tokens - case.block_size
    if case.batch_size * math.log(starts_possible) > 20:
        other = c.call(next_token_batches, *args, _generator(case.seed + 1), call_repr=call)
        ignored = generator_ignored(
            call, "batches", (inputs, targets), other, (case.seed, case.seed + 1)
        )
        c.expect_true(not ignored, ignored)
    drawn = _other_draw(call, starts, case)
    c.expect_true(not drawn, drawn)


#: layouts whose entries, regrouped by a reshape, give the learner's (batch_size,
#: block_size) inputs: {what was done: how to undo it, (batch, block) -> the windows}
_REGROUPINGS = {
    "built time-major, (block_size, batch_size) with one window per column, then reshaped "
    "(or viewed) to (batch_size, block_size) instead of transposed": (
        lambda p, batch, block: p.reshape(block, batch).T
    ),
    "reshaped (or viewed) from (batch_size, block_size) to (block_size, batch_size), then "
    "transposed back: the reshape regroups, it does not move the windows to the columns": (
        lambda p, batch, block: p.T.reshape(batch, block)
    ),
}


def _windows_regrouped(inputs: torch.Tensor, position: dict[int, int], case: _BatchCase) -> str:
    """When the inputs' rows are not windows but undoing a reshape that regroups them
    gives rows that are all windows of consecutive positions (blind25c: positions built
    time-major and reshaped instead of transposed): what was reshaped, with the rows' own
    mixed positions shown; "" otherwise (and when a size of 1 makes the reshape harmless)."""
    batch, block = case.batch_size, case.block_size
    if batch == 1 or block == 1:
        return ""
    # (batch, block): each input token's stream position, -1 where it is not in the stream
    positions = torch.tensor([[position.get(int(t), -1) for t in row] for row in inputs])

    def windows(rows: torch.Tensor) -> bool:
        return bool((rows >= 0).all() and (rows[:, 1:] - rows[:, :-1] == 1).all())

    if windows(positions):
        return ""
    found = [told for told, undo in _REGROUPINGS.items() if windows(undo(positions, batch, block))]
    if len(found) != 1:
        return ""
    return (
        f"inputs[0] holds the tokens at stream positions {positions[0].tolist()}, not "
        "consecutive ones: each of your rows mixes positions of several windows. Your "
        f"windows are all there, but {found[0]}. A reshape keeps the entries in memory "
        "order, so the rows it makes are not contiguous windows. Build the rows directly, "
        "positions = starts[:, None] + torch.arange(block_size), (batch_size, block_size), "
        "or transpose (.T) where the axes must be exchanged."
    )


def _sizes_swapped(next_token_batches, case: _BatchCase) -> str:
    """When a case failed: the parameters declared in another order, or the two sizes
    used in each other's places, told by calls with keywords and with the sizes exchanged
    (blind19d-ntb-size-parameters-declared-swapped got a raw error and a guessed edit)."""
    if case.block_size == case.batch_size:
        return ""
    tokens = torch.randperm(case.num_tokens, generator=_plain_generator(case.seed)) + 3
    expected = ref.next_token_batches(
        tokens, case.block_size, case.batch_size, _generator(case.seed)
    )

    def with_fresh_generator(*args, **kwargs):
        return next_token_batches(*args, **kwargs, generator=_generator(case.seed))

    def is_right(got) -> bool:
        return (
            isinstance(got, tuple)
            and len(got) == 2
            and all(
                isinstance(value, torch.Tensor)
                and value.dtype == right.dtype
                and torch.equal(value, right)
                for value, right in zip(got, expected, strict=True)
            )
        )

    found = arguments_swapped(
        with_fresh_generator,
        (tokens, case.block_size, case.batch_size),
        ("tokens", "block_size", "batch_size"),
        is_right,
        name="next_token_batches",
    )
    return found.replace(repr(tokens), f"tokens ({case.num_tokens},)") if found else ""


#: rows of the probe of :func:`_starts_in_step`: enough that evenly spaced starts are no
#: accident of independent draws
_STEP_PROBE_ROWS = 8


def _probe_starts(next_token_batches, block_size: int, seed: int) -> list[int] | None:
    """The starts of the learner's rows on a stream long enough for any spacing of 8
    windows up to a few block_sizes apart (tokens 0, 1, 2, ... so that each id is its
    position); None when the call raises or its rows are not windows of the stream."""
    num_tokens = 3 * _STEP_PROBE_ROWS * (block_size + 1) + 64
    tokens = torch.arange(num_tokens)  # (num_tokens,): token id == position
    try:
        got = next_token_batches(tokens, block_size, _STEP_PROBE_ROWS, _generator(seed))
        inputs = got[0]
        if not isinstance(inputs, torch.Tensor) or tuple(inputs.shape) != (
            _STEP_PROBE_ROWS,
            block_size,
        ):
            return None
        if inputs.is_floating_point() or inputs.is_complex():
            return None
        rows = inputs.tolist()  # (rows, block_size) ints
        if any(row != list(range(row[0], row[0] + block_size)) for row in rows):
            return None
    except Exception:  # the learner's code may fail in any way here
        return None
    return [row[0] for row in rows]


def _starts_in_step(next_token_batches, case: _BatchCase) -> str:
    """When a case failed: the rows' starts evenly spaced, one start and then a fixed step
    (blind21c-batches-one-offset-consecutive-windows: d2l's sequential partition, offset +
    arange(batch_size) * block_size, was told its windows ran past the end and to pass the
    generator). Read from 8 rows on a long stream of ids equal to their positions, with two
    seeds: independent draws are never evenly spaced there, so the spacing is named, and
    whether the first start moves with the seed (one random offset) or not."""
    if case.block_size < 1:
        return ""
    first, second = (_probe_starts(next_token_batches, case.block_size, s) for s in (11, 12))
    if first is None or second is None:
        return ""
    steps = {b - a for a, b in zip(first, first[1:], strict=False)}
    if len(steps) != 1 or steps != {b - a for a, b in zip(second, second[1:], strict=False)}:
        return ""
    (step,) = steps
    if step == 0:  # one window repeated: told by the cases' own checks of repeated starts
        return ""
    shown = ", ".join(str(s) for s in first[:4])
    spacing = {
        case.block_size: (
            f"consecutive windows, each starting block_size = {case.block_size} tokens after "
            "the one before, where the previous one ends (starts = offset + "
            "torch.arange(batch_size) * block_size: the stream partitioned sequentially)"
        ),
        1: "windows one token apart, each the one before shifted by a token (starts = "
        "offset + torch.arange(batch_size))",
    }.get(step, f"evenly spaced windows, {step} tokens apart")
    origin = (
        f"from one random offset ({first[0]} with one seed, {second[0]} with another)"
        if first[0] != second[0]
        else f"from the same first start {first[0]} whatever the seed"
    )
    return (
        f"Your rows are not independent random windows: on a stream of ids 0, 1, 2, ... with "
        f"block_size = {case.block_size} and batch_size = {_STEP_PROBE_ROWS}, their starts "
        f"were {shown}, ...: {spacing}, {origin}. Each row needs its own random start, "
        "batch_size starts drawn independently: starts = torch.randint(0, len(tokens) - "
        "block_size, (batch_size,), ...), then positions = starts[:, None] + "
        "torch.arange(block_size)."
    )


def _window_length_follows_batch_size(next_token_batches, case: _BatchCase) -> str:
    """When a case failed: the windows as long as batch_size, whatever block_size is
    (blind12i-ntb-window-length-batch-size: torch.arange(batch_size) in the positions got a
    raw IndexError). Two calls on a long stream with batch sizes other than block_size (and
    each other): the rows' length follows batch_size in both, never block_size."""
    block_size = case.block_size
    batch_sizes = [b for b in (5, 6, 7, 9) if b != block_size][:2]
    num_tokens = 4 * (max(batch_sizes) + block_size) + 64
    tokens = torch.arange(num_tokens)  # (num_tokens,): token id == position
    widths = []
    for batch_size in batch_sizes:
        try:
            inputs = next_token_batches(tokens, block_size, batch_size, _generator(7))[0]
            widths.append(tuple(inputs.shape))  # (rows, window length) when right
        except Exception:  # the learner's code may fail in any way here
            return ""
    if widths != [(b, b) for b in batch_sizes]:
        return ""
    return (
        f"Your windows are batch_size tokens long, not block_size: with block_size = "
        f"{block_size}, batch_size = {batch_sizes[0]} gave inputs of shape {widths[0]} and "
        f"batch_size = {batch_sizes[1]} gave {widths[1]}. The window's length comes from batch_size "
        "where block_size belongs (the two sizes confused: torch.arange(batch_size) in the "
        "positions, or a slice s : s + batch_size): positions = starts[:, None] + torch.arange(block_size), (batch_size, "
        "block_size)."
    )
