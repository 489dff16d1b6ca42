"""Checks for lesson 12's online_softmax, against the float64 oracle and its mistakes."""

import contextlib
import io
import re

import torch

from transformer_course.checking import Checker, short, tolerance
from transformer_course.checking.exponent_bases import bases_sentence, mixed_bases
from transformer_course.checking.hints import mistake_pairs
from transformer_course.checking.inputs import randn
from transformer_course.checking.leading_axes import yielding_to_front_counted
from transformer_course.checking.normaliser_counts import segment_constants, term_counts
from transformer_course.checking.oracles import (
    online_softmax_f,
)
from transformer_course.checking.partial_slices import match_partial_slices
from transformer_course.checking.temperature import confirmed_temperature, temperature_sentence

from .common import (
    _BROADCAST,
    _all_nan_candidates,
    _arranged_or_related,
    _empty_block_hint,
    _expect_tensor,
    _informative,
    _localise_blocks,
    _raises_empty,
    _runs,
    _zero_denominator,
)

_FINAL_BLOCK_MAX = (
    "Your final exp(x - m) uses the last block's own maximum, not the running maximum: the "
    "sum was accumulated relative to the largest value seen, so divide exp(x - m) by it "
    "with that same m (running_max after the loop)."
)


def _no_maximum(x: torch.Tensor) -> torch.Tensor:
    """exp(x) / sum(exp(x)), no maximum subtracted: inf / inf = NaN for large x."""
    e = torch.exp(x)
    return e / e.sum(dim=-1, keepdim=True)


def _stale_numerators(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """Online softmax whose numerators are each block's exp(x - m) against the running
    maximum of that moment, kept and never rescaled (the sum is): earlier blocks come out
    exp(m_final - m_then) times too large."""
    x = x.double()
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    pieces = []
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        exps = torch.exp(block - new_max[..., None])
        total = total * torch.exp(running_max - new_max) + exps.sum(dim=-1)
        running_max = new_max
        pieces.append(exps)
    return torch.cat(pieces, dim=-1) / total[..., None]


def _added_before_rescale(x: torch.Tensor, block_size: int, old_max: bool) -> torch.Tensor:
    """Online softmax whose running sum adds each block's terms *before* the rescale,
    total = (total + terms) * exp(m_old - m_new), so the factor multiplies the new terms
    too (0 on the first block: exp(-inf - m)); ``old_max``: the terms taken against the old
    maximum, exp(block - m_old), inf on the first block, so NaN everywhere
    (blind10e-online-block-summed-against-old-max)."""
    x = x.double()
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(dim=-1))
        terms = torch.exp(block - (m if old_max else new)[..., None]).sum(dim=-1)
        total = (total + terms) * torch.exp(m - new)
        m = new
    return torch.exp(x - m[..., None]) / total[..., None]


def _factor_on_new_terms(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """Online softmax whose factor exp(m_old - m_new) multiplies the new block's sum
    instead of the running sum, total = total + exp(m_old - m_new) * terms: the first
    block's terms are multiplied by exp(-inf) = 0, and the old sum is never rescaled (the
    factor's other wrong place; on both is :func:`_added_before_rescale`)."""
    x = x.double()
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(dim=-1))
        terms = torch.exp(block - new[..., None]).sum(dim=-1)
        total = total + torch.exp(m - new) * terms
        m = new
    return torch.exp(x - m[..., None]) / total[..., None]


_FACTOR_ON_NEW_TERMS = (
    "Your factor exp(m_old - m_new) multiplies the new block's sum instead of the running "
    "sum, total = total + exp(m_old - m_new) * exp(block - m_new).sum(dim=-1): on the first "
    "block the factor is exp(-inf - m) = 0, so the first block's terms are lost, and the old "
    "sum is never brought to the new maximum when it grows. The factor belongs on the sum "
    "so far: total = total * exp(m_old - m_new) + exp(block - m_new).sum(dim=-1)."
)

_ADDED_BEFORE_RESCALE = (
    "Your running sum is rescaled after adding each block's terms instead of before, total "
    "= (total + exp(block - m_new).sum()) * exp(m_old - m_new): the factor then multiplies the new "
    "terms too, which were already taken against the new maximum (on the first block the "
    "factor is exp(-inf - m) = 0 and wipes them out). Rescale what was summed before, then "
    "add: total = total * exp(m_old - m_new) + exp(block - m_new).sum(dim=-1)."
)


_STALE_NUMERATORS = (
    "Your numerators are each block's exp(x - m) taken with the maximum of that moment and "
    "kept: when a later block raises the maximum, the running sum is rescaled but the stored "
    "numerators of the earlier blocks are not, so those columns come out exp(m_final - "
    "m_then) times too large. Rescale the stored blocks too, or compute the numerators "
    "once at the end, exp(x - running_max) / total, with the final maximum."
)


def _denominator_named(got: torch.Tensor, x: torch.Tensor, block_size: int | None) -> str:
    """When each row is exp(x - m) over a denominator the row's own values tell: 1 (never
    divided), or a sum that counts every column several times (once per block: the whole
    row's terms added for each block; or as often as the overlapping blocks of a loop with
    no step cover it). The family "the denominator is not the row's sum": the constant of
    each row, measured, against each candidate denominator's; "" when none fits."""
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))  # (..., n): the right numerators
    n = x.shape[-1]
    denominators = {
        "Your rows are the unnormalised exponentials exp(x - m), each row's largest entry "
        "1: they were never divided by the running sum (the rows sum to {sums} instead of "
        "1). Return exp(x - running_max[..., None]) / total[..., None].": torch.ones_like(
            e[..., :1]
        ),
    }
    if block_size is not None and 0 < block_size < n:
        blocks = -(-n // block_size)
        denominators[
            f"Your running sum counts every column {blocks} times, once per block ({blocks} "
            "blocks of block_size): each block added the terms of the whole row, exp(x - "
            "m_new).sum(dim=-1), instead of its own, exp(block - m_new).sum(dim=-1); the "
            f"rows sum to 1/{blocks}. Sum only the block's columns."
        ] = blocks * e.sum(dim=-1, keepdim=True)
        covered = torch.tensor(
            [min(j + 1, block_size) for j in range(n)], dtype=e.dtype
        )  # (n,): how many of the starts 0, 1, ..., n - 1 cover column j
        denominators[
            "Your running sum counts columns several times: column j is counted min(j + 1, "
            "block_size) times, as blocks that overlap give, one starting at every column "
            "(range(0, n) with no step, slicing block_size columns from each start). Step "
            "the loop by block_size: range(0, x.shape[-1], block_size), so that every column "
            "is summed once."
        ] = (covered * e).sum(dim=-1, keepdim=True)
    got = got.detach().double()
    found = [
        text
        for text, denominator in denominators.items()
        if torch.allclose(got, e.double() / denominator.double(), rtol=1e-4, atol=1e-12)
    ]
    if len(found) != 1:
        return ""
    sums = got.sum(dim=-1).flatten()
    return found[0].replace("{sums}", f"{float(sums[0]):.4g}, ...")


def _counted_columns(online_softmax, block_size: int, n: int) -> str:
    """When the rows are proportional to the right ones: the learner's online_softmax on
    many random rows of the same width and blocks, and how often its running sum counts
    each column (and a stray exp(0 - m) term, a score of 0), measured on every row; the
    columns counted other than once are named, with the slip that gives the pattern. ""
    when the counts are not whole numbers (a sum rescaled wrongly: not a count)."""
    if n < 2:
        return ""
    probe = randn((2 * n + 8, n), 4321, scale=2.0, dtype=torch.float64)  # (rows, n)
    try:
        got = online_softmax(probe.clone(), block_size)  # (rows, n)
    except Exception:  # the learner's code: no measurement, the old message stays
        return ""
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(probe.shape):
        return ""
    m = probe.amax(dim=-1, keepdim=True)  # (rows, 1)
    counts = term_counts(got, torch.exp(probe - m), torch.exp(-m[:, 0]))
    if counts is None or any(count < 0 for count in counts):
        return ""
    *columns, stray = counts
    if stray == 0 and all(count == 1 for count in columns):
        return ""
    wrong = [(j, count) for j, count in enumerate(columns) if count != 1]
    times = {0: "never", 1: "once", 2: "twice"}

    def listing(js: list[int]) -> str:
        return f"column {js[0]}" if len(js) == 1 else "columns " + ", ".join(map(str, js))

    by_count: dict[int, list[int]] = {}
    for j, count in wrong:
        by_count.setdefault(count, []).append(j)
    observed = "; ".join(
        f"{listing(js)} {times.get(count, f'{count} times')}"
        for count, js in sorted(by_count.items())
    )
    if stray:
        observed += ("; " if observed else "") + (
            f"plus {stray} × exp(0 - m), the term of a score of 0 that is not in x"
        )
    text = (
        f"On {probe.shape[0]} random rows of {n} columns (block_size={block_size}) your rows "
        "are the right softmax divided by a wrong sum, and that sum is the same mistake on "
        "every row: it is the sum of exp(x_j - m) over the columns with "
        f"{observed} (every other column once), where every column belongs once. "
    )
    first_block = list(range(min(block_size, n)))
    if not stray and list(by_count) == [2] and by_count[2] == [0]:
        return text + (
            "The first element is counted twice: the running state starts from it, as the "
            "element-by-element algorithm does (running maximum x[..., 0] and a sum of 1 for "
            "its exp(0)), while the loop over the blocks still starts at column 0 and adds it "
            "again. Start from the empty state (running maximum -inf, sum 0), or start the "
            "loop after the columns already counted."
        )
    if not stray and list(by_count) == [2] and by_count[2] == first_block:
        return text + (
            "The first block is counted twice: its terms are in the running sum before the "
            "loop (the state started from the first block) and the loop still starts at "
            "column 0. Start from the empty state (running maximum -inf, sum 0), or start "
            "the loop at the second block."
        )
    last_start = (n - 1) // block_size * block_size
    if not stray and list(by_count) == [0] and by_count[0] == list(range(last_start)):
        # two slips sum the last block alone and cannot be told apart by any input: the
        # old sum dropped, or the running maximum never carried (-inf at every pass, so
        # exp(m_old - m_new) = 0 wipes the sum out)
        return text + (
            "Only the last block is counted: the running sum starts over at every block. "
            "Two slips give exactly this (no input tells them apart): the old sum left out "
            "of the update (total = exp(block - new_max).sum(...) instead of total * "
            "exp(running_max - new_max) + ...); or the running maximum never carried from "
            "one block to the next (running_max = new_max dedented after the loop), so that "
            "it is still -inf at every pass and exp(running_max - "
            "new_max) = 0 wipes the sum out. Update both at every pass, inside the loop."
        )
    if stray and not wrong:
        return text + (
            "The running sum did not start empty: it started at 1 (torch.ones) while the "
            "running maximum started at 0, so a term exp(0 - m) stays in it. Start the sum "
            "at 0 and the maximum at -inf (or at the first block's own values)."
        )
    return text + (
        "Check which columns each block reads (x[..., start : start + block_size] for "
        "start in range(0, n, block_size)) and what the running state starts from."
    )


def _blocks_alone(got: torch.Tensor, x: torch.Tensor, block_size: int) -> str:
    """When every block of columns of the learner's result is the right softmax times a
    constant of its own and every block sums to the same value on every row: each block
    was normalised alone (its own maximum and sum) and the blocks put side by side."""
    n = x.shape[-1]
    bounds = [(start, min(start + block_size, n)) for start in range(0, n, block_size)]
    if len(bounds) < 2:
        return ""
    sums = segment_constants(got, torch.softmax(x.double(), dim=-1), bounds)  # (blocks, rows)
    if sums is None:
        return ""
    value = float(sums.flatten()[0])
    if not torch.allclose(sums, torch.full_like(sums, value), rtol=1e-4, atol=1e-6):
        return ""
    row_sum = float(got.detach().double().sum(dim=-1).flatten()[0])
    scaled = "" if abs(value - 1) < 1e-4 else f", times {value:.4g}"
    return (
        f"Each block of {block_size} columns of yours sums to {value:.4g} on every row (a "
        f"row sums to {row_sum:.4g}, with {len(bounds)} blocks), and within each block the "
        "values are the right ones up to a factor of the block's own: each block was "
        f"normalised on its own, exp(block - its own max) / its own sum{scaled}, and the "
        "blocks were put side by side, with no running maximum or sum carried from one "
        "block to the next. Carry the running maximum and sum across the blocks and "
        "normalise every column once at the end, by the final ones: "
        "exp(x - running_max[..., None]) / total[..., None]."
    )


def _proportional_rows(
    got: torch.Tensor, x: torch.Tensor, block_size: int | None = None, counted=lambda: ""
) -> str:
    """When every row of the learner's result is the right softmax times a constant of its
    own (finite, positive) but the rows do not sum to 1: the numerators and the running sum
    disagree. A final exp(x) with no maximum, over a right sum, is named; otherwise the two
    candidates are (mutants online_softmax-7, 8, 9 got the restated rule)."""
    got = got.detach().double()
    if not bool(torch.isfinite(got).all()) or not bool((got > 0).all()):
        return ""
    x = x.double()
    right = torch.softmax(x, dim=-1)
    ratio = got / right  # (..., n): constant along each row when the rows are proportional
    if not torch.allclose(ratio, ratio[..., :1].expand_as(ratio), rtol=1e-4, atol=0):
        return ""
    sums = got.sum(dim=-1)
    if torch.allclose(sums, torch.ones_like(sums), rtol=1e-4, atol=1e-6):
        return ""
    constants = ratio[..., 0].flatten()  # each row's own constant
    if constants.numel() > 1 and abs(float(constants.sum()) - 1) < 1e-4:
        return (
            "Each row of yours is the right softmax times its running sum divided by the sum "
            "of every row's (the constants add up to 1 over the rows): each row was divided "
            "by one total for the whole tensor, as total.sum() (no dim) gives. Divide each "
            "row by its own running sum: total[..., None]."
        )
    named = _denominator_named(got, x, block_size)
    if named:
        return named
    m = x.amax(dim=-1, keepdim=True)
    total = torch.exp(x - m).sum(dim=-1, keepdim=True)  # the right running sum at the end
    if torch.allclose(got, torch.exp(x) / total, rtol=1e-4, atol=1e-12):
        return (
            "Your final numerator is exp(x), with no maximum subtracted, while the running sum "
            "holds exp(x - m) terms: divide exp(x - running_max[..., None]) by it, the same "
            "m in both."
        )
    counts = counted()
    if counts:
        return counts
    return (
        "Each row of yours is the right softmax times a constant of its own (the rows sum to "
        f"{float(sums.flatten()[0]):.4g}, ... instead of 1): the final numerator exp(x - m) "
        "and the running sum disagree. Either the running sum was rescaled wrongly along the "
        "way (the factor is exp(m_old - m_new): old maximum minus new, inside one exp), or a "
        "block's terms were taken against another maximum than the running one, or the final "
        "exp uses another maximum than the one the sum was kept relative to."
    )


_TERMS_OWN_MAX = (
    "Your running maximum and rescaling are right, but each block's terms are added as "
    "exp(block - the block's own maximum) instead of exp(block - m_new), the new running "
    "maximum: a block whose maximum is below the running one adds too much. The sum is kept "
    "relative to the running maximum: total = total * exp(m_old - m_new) + "
    "exp(block - m_new[..., None]).sum(dim=-1)."
)

_INVERTED_RESCALE = (
    "The running sum is rescaled the wrong way round: the factor is exp(m_old - m_new) (at "
    "most 1), not exp(m_new - m_old)."
)


def _online_pairs(x: torch.Tensor, block_size: int) -> dict:
    """Two known mistakes at once, one from each of two families (the rescale, the
    running maximum's start, the last short block, the maximum the terms or the final
    exp use), each pair the oracle with both knobs: tried only when no single mistake
    matches, named only when exactly one pair does (round 34: a rescale left out together
    with a loop that stops before the last block got a hedged reading)."""
    several = x.shape[-1] > block_size
    families = {
        "rescale": [
            (
                "The running sum is not rescaled when the maximum grows: multiply it by "
                "exp(m_old - m_new) before the new block's terms are added.",
                {"rescale": "none"},
            ),
            (_INVERTED_RESCALE, {"rescale": "inverted"}),
        ]
        if several
        else [],
        "start": [
            (
                "The running maximum starts at 0 instead of -inf.",
                {"start": 0.0},
            )
        ],
        "last": [
            (
                "The last, shorter block is skipped: the loop must visit every column, "
                "range(0, n, block_size).",
                {"skip_last": True},
            )
        ]
        if x.shape[-1] % block_size and several
        else [],
        "maxima": [
            (_FINAL_BLOCK_MAX, {"final_max": "last_block"}),
            (_TERMS_OWN_MAX, {"terms_max": "block"}),
        ]
        if several
        else [],
    }
    return mistake_pairs(families, lambda knobs: online_softmax_f(x, block_size, **knobs))


def _falling(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """x with its first block of columns raised by 200 and the next lowered by 100: a
    maximum that is each block's own falls by about 300 there, and exp overflows."""
    x = x.clone()
    x[..., :block_size] += 200.0
    x[..., block_size : 2 * block_size] -= 100.0
    return x


def _shared_max(x: torch.Tensor, block_size: int) -> torch.Tensor | None:
    """Online softmax whose maxima are taken over the whole tensor (block.max(), no dim),
    in x's dtype: every row shares one maximum, so a row far below the others underflows
    to 0 / 0 (blind9e-online-global-max); None for a single row, where the two agree."""
    if x.dim() < 2 or x[..., 0].numel() < 2:
        return None
    running = torch.tensor(float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running, block.max())
        total = total * torch.exp(running - new_max) + torch.exp(block - new_max).sum(dim=-1)
        running = new_max
    return torch.exp(x - running) / total[..., None]


_SHARED_MAX = (
    "Your maximum is one number for the whole tensor (block.max() or x.max() with no dim), "
    "shared by every row: a row whose values are far below another row's (as here) has "
    "every exp(x - m) underflow to 0, and 0 / 0 is NaN. Each row needs its own running "
    "maximum: block.amax(dim=-1), one per row (x.shape[:-1])."
)


def _reduced_over_rows_hint(x: torch.Tensor, block_size: int, columns_kept=lambda: False):
    """A per-row tensor against a block's width: a block reduced over the rows (amax or
    sum with dim=-2) instead of its columns (mutant online_softmax-10); silent when
    ``columns_kept()``: running tensors shaped like x (:func:`_sum_not_column_hint`)."""
    widths = {min(block_size, x.shape[-1] - start) for start in range(0, x.shape[-1], block_size)}

    def hint(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or x.dim() < 2:
            return ""
        rows = x.shape[-2]
        pair = {int(found[1]), int(found[2])}
        if rows not in pair or len(pair) != 2 or not (pair - {rows}) <= widths:
            return ""
        if x.shape[-1] in pair and columns_kept():
            return ""
        return (
            f"A per-row tensor ({rows} rows) met one of a block's width ({(pair - {rows}).pop()} "
            "columns). Two slips give exactly this error: a block's maximum or sum taken "
            "over the rows (dim=-2) instead of over its columns (each row's statistics "
            "reduce the last axis: block.amax(dim=-1), .sum(dim=-1)); or a per-row tensor, "
            "the maximum or the sum, used against the block without [..., None], which "
            "lines the rows up with the block's columns (block - new_max[..., None]). The "
            "line of yours that raised tells which."
        )

    return (RuntimeError, hint)


_PROBE_1D = (5, 2)  # (n, block_size) of the 1-D probe: several blocks, one row


def _column_axis_probe(online_softmax):
    """Whether the learner's online_softmax returns (n, n) for a 1-D x of n values: its
    running maximum or sum is shaped like x, (..., n), one entry per column, instead of
    x.shape[:-1] (blind13e-os-accumulators-shaped-like-x, torch.full_like(x, -inf), was
    asked about a missing [..., None]: on 1-D inputs a missing [..., None] is harmless, a
    per-row tensor there being a single number). Run once, on demand."""
    found: dict[str, bool] = {}

    def kept() -> bool:
        if "kept" not in found:
            n, block_size = _PROBE_1D
            try:
                got = online_softmax(randn((n,), 4321), block_size)
                found["kept"] = isinstance(got, torch.Tensor) and tuple(got.shape) == (n, n)
            except Exception:  # the learner's code: an error is no (n, n) result
                found["kept"] = False
        return found["kept"]

    return kept


def _shaped_like_x(clash: str = "") -> str:
    n, block_size = _PROBE_1D
    return (
        f"On a 1-D x of {n} values (blocks of {block_size}) your online_softmax returns "
        f"shape ({n}, {n}), not ({n},): your running maximum or sum is shaped like x, "
        "(..., n), one entry per column (torch.full_like(x, float('-inf')), "
        "torch.zeros_like(x)), instead of one number per row, x.shape[:-1]. Each row's "
        f"maximum and sum then meet the column axis{clash}. Make them "
        "torch.full(x.shape[:-1], float('-inf'), dtype=x.dtype) and "
        "torch.zeros(x.shape[:-1], dtype=x.dtype)."
    )


def _sum_not_column_hint(x: torch.Tensor, columns_kept=lambda: False):
    """The final division by the running sum without [..., None]: (..., n) divided by
    (...,) lines the rows up with the columns; or, when ``columns_kept()`` (the 1-D
    probe returned (n, n)), running tensors shaped like x."""

    def hint(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or x.dim() < 2:
            return ""
        n, rows = x.shape[-1], x.shape[-2]
        if n == rows or {int(found[1]), int(found[2])} != {n, rows}:
            return ""
        if columns_kept():
            return _shaped_like_x(
                f" (here the sizes {found[1]} and {found[2]}, the columns and the rows)"
            )
        return (
            f"The sizes {found[1]} and {found[2]} are the number of columns and of rows: was "
            "exp(x - m) (..., n) divided by the running sum (...,) without [..., None], or "
            "x minus the running maximum without it? Broadcasting lines a per-row tensor up "
            "with the columns; make it a column: total[..., None], running_max[..., None]."
        )

    return (RuntimeError, hint)


def _exp_of_block_sums(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """The running sum adding exp(sum of the block - m) instead of the sum of exp(block -
    m)."""
    x = x.double()
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(dim=-1))
        total = total * torch.exp(m - new) + torch.exp(block.sum(dim=-1) - new)
        m = new
    return torch.exp(x - m[..., None]) / total[..., None]


def _unpack_hint(x: torch.Tensor):
    """A shape unpacked into a fixed number of names (rows, n = x.shape) on an input with
    another number of axes (blind9e-online-rows-hardcoded-2d got the raw ValueError)."""
    pattern = re.compile(r"(too many|not enough) values to unpack \(expected (\d+)")

    def hint(exc: BaseException) -> str:
        found = pattern.search(str(exc))
        if not found or int(found[2]) == x.dim():
            return ""
        return (
            f"x has {x.dim()} axes here, shape {tuple(x.shape)}: a line such as "
            f"rows, n = x.shape assumes exactly {found[2]}. The softmax runs over the last "
            "axis of an input with any number of leading axes: make the running maximum and "
            "sum with x.shape[:-1], read the number of columns as x.shape[-1], and slice the "
            "blocks as x[..., start : start + block_size]."
        )

    return (ValueError, hint)


def _view_blocks_hint(x: torch.Tensor, block_size: int):
    """x cut into blocks by a view or reshape to (..., -1, block_size) (or unflatten): an
    error on a row whose length block_size does not divide (blind15e-online-blocks-by-view
    got the raw error only)."""
    n = x.shape[-1]
    viewed = re.compile(r"shape '\[([-\d, ]+)\]' is invalid for input of size (\d+)")
    unflattened = re.compile(r"sizes \[([-\d, ]+)\] don't multiply up to the size of dim")

    def hint(exc: BaseException) -> str:
        if n % block_size == 0:
            return ""
        found = viewed.search(str(exc))
        if found and int(found[2]) != x.numel():
            found = None
        found = found or unflattened.search(str(exc))
        if not found or [int(s) for s in found[1].split(",")][-2:] != [-1, block_size]:
            return ""
        return (
            f"x was cut into blocks by a view (or reshape, unflatten) to (..., -1, "
            f"block_size) = [{found[1]}]: that needs block_size to divide the row's length, "
            f"but here n = {n} and block_size = {block_size}, so the last block is shorter: "
            f"{n % block_size} of {block_size}. Walk the blocks by slicing, x[..., start : start + "
            "block_size] for start in range(0, n, block_size): the last slice is simply "
            "shorter."
        )

    return (RuntimeError, hint)


def _softmax_cases(hidden: bool):
    if not hidden:
        return [
            (randn((2, 7), 1301), 3),
            (
                torch.tensor(
                    [[1000.0, 999.0, 1001.0, -5.0, 998.0], [-1000.0, -999.0, 0.0, 3.0, 2.0]]
                ),
                2,
            ),
            (randn((2, 3, 5), 1302, scale=3.0), 5),
            (randn((4, 6), 1303, scale=2.0), 1),
            (randn((2, 6), 1304) - 1000.0, 4),  # every value far below 0 (after large ones)
            (randn((2, 5), 1306, dtype=torch.float64), 2),  # the output keeps x's dtype
            (_falling(randn((2, 6), 1305), 2), 2),  # a later block far below an earlier one
            # one row with its axis of size 1: the shape (1, n) comes back (x.squeeze(),
            # blind15e-online-squeezes-input, passed every input without such an axis)
            (randn((1, 6), 1308), 4),
            (randn((7,), 1307), 3),  # 1-D: x's shape (n,) comes back, no leading axis added
        ]
    return [
        (randn((3, 11), 2301, scale=4.0), 4),
        (randn((2, 2, 9), 2302, scale=50.0), 2),
        (randn((5, 4), 2303, dtype=torch.float64), 10),
        (torch.arange(12.0).reshape(2, 6) * 200.0, 5),
        # after large values, which tell a missing maximum apart from these two:
        (randn((3, 7), 2304, scale=2.0) - 700.0, 3),
        (_falling(randn((3, 2, 9), 2305), 3), 3),  # leading axes that do not broadcast
        (randn((6, 5), 2306), 2),  # more rows than block_size
        (randn((3, 1, 5), 2308), 2),  # an axis of size 1 kept
        (randn((9,), 2307, scale=3.0), 4),  # 1-D, last among the cases (see _ONE_ROW_KEPT)
    ]


_ONE_ROW_KEPT = (
    "On inputs with leading axes your shapes were right, so a 1-D x of n values is "
    "handled as one row, (1, n) (x.unsqueeze(0), x.view(1, -1), x.reshape(-1, n)), and "
    "that extra leading axis is never taken off again: the contract returns a tensor of "
    "x's shape, so squeeze it back (result.squeeze(0), or reshape(x.shape)) or write the "
    "loop with x[..., start : start + block_size] and x.shape[:-1], which need no row "
    "axis."
)


def _with_counts(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """exp(x) / sum_j counts[j] exp(x_j) over the last axis (float64, stable): the softmax
    whose running sum saw column j counts[j] times."""
    x = x.double()
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    return e / (e * counts.double()).sum(dim=-1, keepdim=True)


def _coverage_mistakes(x: torch.Tensor, block_size: int) -> dict[str, torch.Tensor]:
    """The running sum built over other columns than each exactly once: the loop stopping
    early (only a first part of the columns), or blocks one column too long or too short
    (overlapping, or leaving a column out between blocks)."""
    n = x.shape[-1]
    out = {}
    for width in (block_size + 1, block_size - 1):
        if width < 1 or n <= block_size:
            continue
        counts = torch.zeros(n)
        for start in range(0, n, block_size):
            counts[start : start + width] += 1
        longer = width > block_size
        out[
            f"Your blocks are one column too {'long' if longer else 'short'}: each reads "
            f"x[..., start : start + block_size {'+' if longer else '-'} 1], so "
            + (
                "neighbouring blocks overlap and the first column of each later block is "
                "counted twice in the running sum"
                if longer
                else "the last column of each block is never counted in the running sum"
            )
            + ". A block is x[..., start : start + block_size]."
        ] = _with_counts(x, counts)
    for m in range(1, n):
        counts = (torch.arange(n) < m).double()
        # the bounds a loop range(0, bound, block_size) that covers m columns may have had
        # (blind10k-online-blocks-over-len, range(0, len(x), ...), was told only "early")
        bounds = []
        if (
            x.dim() > 1
            and x.shape[0] != n
            and min(n, -(-x.shape[0] // block_size) * block_size) == m
        ):
            bounds.append(f"len(x) = x.shape[0] = {x.shape[0]}, the number of rows")
        if m == block_size:
            bounds.append(
                "block_size (one block only), or the return indented into the loop's body, "
                "which ends the function after its first block"
            )
        bound = f" Your loop's bound looks like {', or '.join(bounds)}." if bounds else ""
        out[
            f"Your running sum covers only the first {m} of the {n} columns (a loop that "
            "stops early): the loop runs over every column, range(0, x.shape[-1], "
            f"block_size), x.shape[-1] being the number of columns.{bound}"
        ] = _with_counts(x, counts)
    # a loop that starts late: the first columns never reach the running sum (the
    # family's other end; a range(1, n, block_size) was told "rescaled wrongly, or another
    # maximum")
    for first in range(1, min(block_size, n - 1) + 1):
        counts = (torch.arange(n) >= first).double()
        if first == block_size:
            # blind24c-online-first-block-never-summed: a maximum started from the first
            # block and a loop from the second, with the running sum started at zero
            out[
                f"Your running sum leaves out the whole first block (columns 0 .. "
                f"{block_size - 1} of the {n}): its exponentials are never added to the "
                "running sum, while the final exp(x - m) covers every column, so each row "
                "sums to more than 1. A loop that starts at the second block, "
                "range(block_size, x.shape[-1], block_size), after taking the running maximum "
                "from the first block, must start the running sum from the first block too "
                "(total = exp(x[..., :block_size] - m[..., None]).sum(dim=-1), not zeros); or "
                "loop over every block from 0 with the maximum started at -inf."
            ] = _with_counts(x, counts)
            continue
        out[
            f"Your running sum leaves out the first {first} column{'s' if first > 1 else ''} "
            f"of the {n}: a loop that starts at column {first}, range({first}, x.shape[-1], "
            "block_size)"
            + (", one column too late (an off-by-one)" if first == 1 else "")
            + ", while the final exp(x - m) covers every column. The blocks start at 0: "
            "range(0, x.shape[-1], block_size)."
        ] = _with_counts(x, counts)
    return out


def _row_shape_hint(x: torch.Tensor):
    """For a size clash along the last axis of x.shape[:-1] between the sizes of x's
    last two leading axes: a running statistic made with one axis too few."""
    rows = tuple(x.shape[:-1])

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or len(rows) < 2 or int(found.group(3)) != len(rows) - 1:
            return ""
        if {int(found.group(1)), int(found.group(2))} != {rows[-2], rows[-1]}:
            return ""
        return (
            f"A per-row tensor of yours has shape x.shape[:-2] = {rows[:-1]}, one axis too "
            f"few, where x.shape[:-1] = {rows} is needed: the running maximum and sum (and "
            "each block's maximum and sum) hold one value per row "
            "(torch.full(x.shape[:-1], float('-inf')), torch.zeros(x.shape[:-1]))."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


_MAX_FROM_ZERO = (
    "Your running maximum is 0 on a row whose values are all far below 0 (as here), where "
    "it should be the row's largest value: it starts at 0 instead of -inf, or it is taken "
    "against a quantity that is 0 or more there (the running sum in place of the running "
    "maximum, say); every exp(s - 0) then underflows to 0, and the sum is 0. Start it at "
    "-inf (torch.full(..., float('-inf')); exp(-inf) = 0 handles the first block) and "
    "update it from the values alone: m_new = max(m, block max)."
)
_BLOCK_OWN_MAX = (
    "Your maximum is each block's own, not the largest value seen so far: when a later "
    "block's values are far below an earlier one's (as here), exp(m_old - m_new) "
    "overflows. The running maximum only grows: m_new = max(m, block max)."
)


def _blocks_over_rows(x: torch.Tensor, block_size: int) -> torch.Tensor | None:
    """Online softmax whose blocks walk the first axis (x[start : start + block_size],
    range over x.shape[0]) instead of the last, computed as such code does (None where it
    raises): right for a 1-D x, or when every row fits in one block."""
    if x.dim() < 2 or x.shape[0] <= block_size:
        return None
    x = x.double()
    try:
        running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
        total = torch.zeros(x.shape[:-1], dtype=x.dtype)
        for start in range(0, x.shape[0], block_size):
            block = x[start : start + block_size]
            new_max = torch.maximum(running_max, block.amax(dim=-1))
            total = total * torch.exp(running_max - new_max) + torch.exp(
                block - new_max[..., None]
            ).sum(dim=-1)
            running_max = new_max
        result = torch.exp(x - running_max[..., None]) / total[..., None]
    except RuntimeError:
        return None
    return result if result.shape == x.shape else None


_BLOCKS_RULE = (
    "softmax is over the last axis, so the blocks are columns, x[..., start : start + "
    "block_size] over range(0, x.shape[-1], block_size). (With one row, or with every row "
    "in one block, the two agree; here there are more rows than block_size.)"
)
_BLOCKS_OVER_ROWS = (
    "Your blocks walk the first axis (the rows, x[start : start + block_size] over "
    f"range(0, x.shape[0], block_size)), not the last: {_BLOCKS_RULE}"
)


def _rows_hint(x: torch.Tensor, block_size: int, columns_kept=lambda: False):
    """A size mismatch between x's number of rows and a block's: blocks over the rows
    (silent when ``columns_kept()``: running tensors shaped like x)."""
    sizes = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)")
    blocks = {block_size, x.shape[0] % block_size} - {0} if x.dim() >= 2 else set()

    def hint(exc: BaseException) -> str:
        found = sizes.search(str(exc))
        if not found or x.dim() < 2 or x.shape[0] <= block_size:
            return ""
        pair = {int(found[1]), int(found[2])}
        if x.shape[0] not in pair or not (pair - {x.shape[0]}) <= blocks:
            return ""
        if x.shape[-1] in pair and columns_kept():
            return ""
        return (
            f"The sizes {found[1]} and {found[2]} are x's number of rows ({x.shape[0]}) and a "
            f"block's ({block_size}): do your blocks walk the first axis (the rows)? "
            + _BLOCKS_RULE[0].upper()
            + _BLOCKS_RULE[1:]
        )

    return (RuntimeError, hint)


_SOFTMAX_LOWER_PRECISION = (
    "{what} returned {got} for a float64 input: your online_softmax computes in a lower "
    "precision (x.float(), or running tensors made without dtype=x.dtype) and never casts "
    "back. Return x's dtype: make the running maximum and sum with dtype=x.dtype, or cast "
    "the result back with .to(x.dtype)."
)


def _online_temperature(online_softmax, got: torch.Tensor, x: torch.Tensor) -> str:
    """A result that is softmax(t·x) for one factor t other than 1, the same t on a second
    input of several blocks each raising the maximum: every exp of the algorithm taken in
    another base (torch.exp2 without log2(e)) or x scaled throughout. "" otherwise."""
    probe = randn((3, 7), 4311, scale=2.0)  # (3, 7): three blocks of 3 at block_size=3

    def rerun(scores: torch.Tensor) -> torch.Tensor:
        with contextlib.redirect_stdout(io.StringIO()):
            return online_softmax(scores.clone(), 3)

    t = confirmed_temperature(got, x, rerun, probe)
    if t is None:
        return ""
    return (
        temperature_sentence(t)
        + " The blocks combine right (the same factor on every input), so the slip is in "
        "every exponential alike: each exp of the algorithm (the block's terms, the rescale "
        "factor exp(m_old - m_new), the final exp(x - m)) must be torch.exp of its argument "
        "as it is; torch.exp2 gives the same only with its argument multiplied by "
        "log2(e) = 1.4427."
    )


def _mixed_bases(got: torch.Tensor, x: torch.Tensor) -> str:
    """Round 37 (blind29c-online-exp2-numerator-without-log2e, localised to "every block"
    alone): the final numerator and the running sum in different exponential bases."""
    found = mixed_bases(got, x)
    if found is None:
        return ""
    return bases_sentence(*found, "final numerator", "running sum")


def _localise_online(online_softmax, x: torch.Tensor, block_size: int) -> str:
    """When no known mistake matches: the learner's online_softmax on a single block, on
    several blocks whose first holds each row's maximum, and on several blocks each
    raising it; the part of the algorithm the first wrong one points to. First, the failing
    input's own rows: right on some and copies of a right one (or zeros) on the others is
    a step applied to part of the rows, which the probes would only call wrong."""
    with contextlib.suppress(Exception):  # a probe of the learner's code: never in the way
        got = online_softmax(x.clone(), block_size)
        found = match_partial_slices(
            got.detach(),
            torch.softmax(x.double(), dim=-1),
            rtol=1e-4,
            atol=1e-6,
            noun="result",
            fillers=("copy",),  # a row of zeros is an overflow's, not a row left out
        )
        if found is not None:
            return found.message
    falling = randn((2, 9), 4302, scale=2.0).sort(dim=-1, descending=True).values
    probes = [
        ("a single block (n <= block_size)", randn((2, 5), 4301, scale=2.0), 8),
        ("several blocks, the first holding each row's maximum (nothing to rescale)", falling, 3),
        ("several blocks, each raising the maximum", falling.flip(-1), 3),
    ]
    features = [f"dtype {x.dtype}"] if x.dtype != torch.float32 else []
    if x.dim() != 2:
        features.append(f"{x.dim()} axes")
    if x.shape[-1] % block_size:
        features.append("a last block shorter than block_size")
    if float(x.abs().max()) > 50:
        features.append(f"values up to {float(x.abs().max()):.4g}, where exp overflows")
    if x.shape[-1] <= block_size:
        features.append("a single block")
    return _localise_blocks(
        lambda probe, size: online_softmax(probe.clone(), size),
        [
            (text, (probe, size), torch.softmax(probe.double(), dim=-1))
            for text, probe, size in probes
        ],
        {
            (False, False, False): "Already a single block is wrong, so the mistake is in what "
            "every block does (its maximum, its exp(x - m), its sum) or in the final "
            "exp(x - m) / total, not in how the blocks are combined.",
            (True, False, False): "A single block is right but several are not, even where the "
            "maximum never changes: the mistake is in how the blocks are combined, which "
            "columns each block reads (x[..., start : start + block_size], every column once) "
            "or how their sums are added up.",
            (True, True, False): "The blocks combine right while the maximum stays and go "
            "wrong when a later block raises it: the mistake is in the rescaling, the factor "
            "exp(m_old - m_new), what it multiplies (the sum so far, before the new terms are "
            "added) and when m is updated.",
        },
        "All three are right, so the mistake shows only on inputs like this one"
        + (f" ({', '.join(features)})" if features else "")
        + ": compare your steps with the reference's on it.",
    )


def _online_variant(x: torch.Tensor, block_size: int, *, shared_sum=False, in_loop=False):
    """The online softmax with one slip: each block's exponentials summed over the whole
    tensor (.sum() with no dim: one total shared by every row, blind12e-online-block-sum-
    without-dim), or each block's output written inside the loop with the running maximum
    and sum of that moment (blind12e-online-normalised-inside-loop)."""
    x = x.double()
    m = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    out = torch.empty_like(x)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new = torch.maximum(m, block.amax(dim=-1))
        terms = torch.exp(block - new[..., None])
        total = total * torch.exp(m - new) + (terms.sum() if shared_sum else terms.sum(dim=-1))
        m = new
        if in_loop:
            out[..., start : start + block_size] = (
                torch.exp(block - m[..., None]) / total[..., None]
            )
    if in_loop:
        return out
    return torch.exp(x - m[..., None]) / total[..., None]


_SHARED_SUM = (
    "Your running sum is one number shared by every row: each block's exponentials were "
    "summed over the whole tensor (.sum() with no dim) instead of per row, so every row is "
    "divided by the sum of all rows' terms. Sum over the block's columns only: "
    "torch.exp(block - m_new[..., None]).sum(dim=-1), one sum per row."
)
_NORMALISED_IN_LOOP = (
    "Each block of your output was normalised inside the loop, with the running maximum "
    "and sum of that moment: only the last block saw the final ones, the earlier blocks are "
    "divided by a partial sum (and measured against a maximum that may still grow). Finish "
    "the pass first, then normalise every column once: torch.exp(x - m[..., None]) / "
    "total[..., None]."
)
_ROWS_TWICE = (
    " Its leading axes come twice: a tensor with a kept axis of 1 (a maximum or sum taken "
    "with keepdim=True, (..., 1)) met one without it (the running maximum or sum, (...)), "
    "and broadcasting made a (rows, rows) table. Reduce without keepdim, block.amax(dim=-1), "
    "so that every running tensor is x.shape[:-1]; add [..., None] only where it meets the "
    "columns."
)


def _right_on(online_softmax, x: torch.Tensor, block_size: int) -> bool:
    """Whether the learner's online_softmax gives softmax(x) on this input (an error or
    another shape counts as wrong)."""
    try:
        got = online_softmax(x.clone(), block_size)
    except Exception:  # the learner's code: any error is "not right"
        return False
    if not isinstance(got, torch.Tensor) or got.shape != x.shape:
        return False
    expected = torch.softmax(x.double(), dim=-1)
    return bool(torch.allclose(got.double(), expected, atol=1e-5, rtol=1e-4))


def _overflow_only(online_softmax, got: torch.Tensor, x: torch.Tensor, block_size: int) -> str:
    """A result that is NaN or inf where the scores are large (or far below 0), from an
    answer that is right on moderate scores of the same shape and blocks: the algorithm is
    right and some exp is taken of a raw score, which overflows (or underflows to 0 / 0)
    where exp of a difference would not. One block, where no rescale factor is needed,
    tells the factor written as a ratio of exps, exp(m_old) / exp(m_new)
    (blind12e-online-factor-ratio-of-exps), from an exp of the scores themselves (no
    maximum subtracted, or exp(x) / exp(m)). Every candidate of the all-NaN list is wrong
    on moderate scores too, so none of them is named here; "" when the probes do not
    agree."""
    if bool(torch.isfinite(got).all()) or x.shape[-1] <= block_size:
        return ""
    moderate = randn(tuple(x.shape), 4311, dtype=x.dtype)
    if not _right_on(online_softmax, moderate, block_size):
        return ""
    if _right_on(online_softmax, x, x.shape[-1]):
        return (
            "Your answer is right on moderate scores of the same shape and blocks, and on "
            "these large ones in a single block, where no rescale factor is needed; with "
            f"several blocks of {block_size} it gives NaN or inf. So the rescale factor is "
            "what overflows: it is computed from exps of the maxima themselves, as "
            "exp(m_old) / exp(m_new) (inf / inf, or 0 / 0 far below 0), instead of "
            "exp(m_old - m_new), one exp of the difference, which is at most 1."
        )
    return (
        "Your answer is right on moderate scores of the same shape and blocks, but NaN or "
        "inf on these large ones, even in a single block: an exp is taken of the raw "
        "scores, which overflows (exp(1000) = inf) or underflows (0 / 0): either no maximum "
        "is subtracted, or the subtraction is written as a ratio of exps, exp(x) / exp(m). "
        "Subtract inside one exp: exp(x - m), and exp(m_old - m_new) for the factor."
    )


def check_online_softmax(online_softmax, *, hidden: bool = False) -> None:
    """online_softmax(x, block_size) -> softmax(x) over the last axis."""
    with Checker("online_softmax", hidden=hidden) as c:
        c.require_callable(online_softmax)
        columns_kept = _column_axis_probe(online_softmax)
        for x, block_size in _softmax_cases(hidden):
            what = f"online_softmax(x {tuple(x.shape)} = {short(x, 80)}, block_size={block_size})"
            got = c.call(
                online_softmax,
                x,
                block_size,
                call_repr=what,
                hints=yielding_to_front_counted(
                    [
                        _view_blocks_hint(x, block_size),
                        _rows_hint(x, block_size, columns_kept),
                        _row_shape_hint(x),
                        _unpack_hint(x),
                        _reduced_over_rows_hint(x, block_size, columns_kept),
                        _sum_not_column_hint(x, columns_kept),
                        _empty_block_hint(
                            "x[..., start : start + block_size]",
                            lambda size=block_size: _raises_empty(
                                lambda: online_softmax(randn((2, size), 4303), size)
                            ),
                            lambda: _runs(lambda: online_softmax(randn((2, 5), 4308), 2)),
                        ),
                    ],
                    -1,
                    "the columns",
                    (x,),
                ),
            )
            _expect_tensor(c, got, what)
            rows = tuple(x.shape[:-1])
            twice = tuple(got.shape) in {rows + rows + tuple(x.shape[-1:]), (1, *x.shape)}
            shape_hint = _ROWS_TWICE if twice and rows != (1,) else ""
            if x.dim() == 1 and tuple(got.shape) == (1, *x.shape):
                # the 1-D case comes after every case with leading axes (_softmax_cases),
                # whose shapes were then right: no keepdim (that gives (rows, rows, n))
                shape_hint = _ONE_ROW_KEPT
            squeezed = tuple(size for size in x.shape if size != 1)
            if tuple(got.shape) == squeezed != tuple(x.shape):
                shape_hint = (
                    f"Your output is x's shape with its axes of size 1 dropped: x.squeeze() "
                    f"(or a squeeze of the result) turned {tuple(x.shape)} into {squeezed}, "
                    "and the shape was never restored. The contract returns x's shape; work "
                    "on x as it is (x[..., start : start + block_size] and the statistics "
                    "over dim=-1 need no squeeze), or reshape the result to x.shape."
                )
            if tuple(got.shape) == (*x.shape, x.shape[-1]) and columns_kept():
                shape_hint = _shaped_like_x()  # (..., n, n): a column axis kept twice
            c.expect_shape(got, x.shape, what, shape_hint)
            c.expect_floating(got, what, preferred=x.dtype)
            if x.dtype == torch.float64 and got.dtype != torch.float64:
                c.fail(_SOFTMAX_LOWER_PRECISION.format(what=what, got=got.dtype))
            several_blocks = x.shape[-1] > block_size
            nan_causes = {
                "the rescale factor inverted, exp(m_new - m_old) instead of exp(m_old - m_new)": (
                    online_softmax_f(x, block_size, rescale="inverted_raw")
                ),
                "the running maximum never updated after a block (running_max = new_max "
                "missing)": online_softmax_f(x, block_size, update=False),
                "no maximum subtracted inside exp (exp overflows)": _no_maximum(x),
                "a running minimum in place of the maximum (amin, torch.minimum, started "
                "at +inf)": online_softmax_f(x, block_size, extreme="min", start=float("inf")),
                "each block's terms taken against the old running maximum, exp(block - m_old) "
                "(-inf on the first block), and added before the rescale": (
                    _added_before_rescale(x, block_size, old_max=True)
                ),
                "each block's terms added to the running sum before the rescale, so the first "
                "block's factor exp(-inf - m) = 0 wipes them out": (
                    _added_before_rescale(x, block_size, old_max=False)
                ),
            }
            expected = torch.softmax(x.double(), dim=-1).to(x.dtype)
            c.expect_close(
                got,
                expected,
                what,
                **tolerance(got.dtype, x.dtype),
                pairs=lambda x=x, b=block_size: _online_pairs(x, b),
                mistakes={
                    "The running sum is not rescaled when the maximum grows: terms summed as "
                    "exp(s - m_old) must be multiplied by exp(m_old - m_new) before the new "
                    "block's terms are added.": (
                        online_softmax_f(x, block_size, rescale="none") if several_blocks else None
                    ),
                    _INVERTED_RESCALE: (
                        online_softmax_f(x, block_size, rescale="inverted")
                        if several_blocks
                        else None
                    ),
                    _MAX_FROM_ZERO: online_softmax_f(x, block_size, start=0.0),
                    _SHARED_MAX: _shared_max(x, block_size),
                    _SHARED_SUM: (
                        _online_variant(x, block_size, shared_sum=True).to(x.dtype)
                        if x.dim() > 1 and x[..., 0].numel() > 1
                        else None
                    ),
                    _NORMALISED_IN_LOOP: (
                        _online_variant(x, block_size, in_loop=True).to(x.dtype)
                        if several_blocks
                        else None
                    ),
                    "Your running sum adds exp(sum of the block's scores - m), one exp of the "
                    "block's sum, instead of the sum of the exps, exp(block - m).sum(dim=-1): "
                    "exponentiate each score first, then sum.": (
                        _exp_of_block_sums(x, block_size) if block_size > 1 else None
                    ),
                    _BLOCKS_OVER_ROWS: _blocks_over_rows(x, block_size),
                    _ADDED_BEFORE_RESCALE: (
                        _informative(_added_before_rescale(x, block_size, old_max=False))
                        if several_blocks
                        else None
                    ),
                    _FACTOR_ON_NEW_TERMS: (
                        _informative(_factor_on_new_terms(x, block_size))
                        if several_blocks
                        else None
                    ),
                    _STALE_NUMERATORS: (
                        _stale_numerators(x, block_size) if several_blocks else None
                    ),
                    _FINAL_BLOCK_MAX: (
                        online_softmax_f(x, block_size, final_max="last_block")
                        if several_blocks
                        else None
                    ),
                    _BLOCK_OWN_MAX: (
                        online_softmax_f(x, block_size, running=False) if several_blocks else None
                    ),
                    _TERMS_OWN_MAX: (
                        online_softmax_f(x, block_size, terms_max="block")
                        if several_blocks
                        else None
                    ),
                    _INVERTED_RESCALE + " (Here exp(m_new - m_old) with m_old = -inf on the "
                    "first block is exp(+inf) = inf, and 0 · inf = NaN.)": (
                        _informative(online_softmax_f(x, block_size, rescale="inverted_raw"))
                    ),
                    "The running maximum is never updated (running_max = new_max is missing): "
                    "every exp is then taken against the initial -inf, which gives inf and "
                    "NaN. After each block, keep the new maximum for the next one.": (
                        _informative(online_softmax_f(x, block_size, update=False))
                    ),
                    "The last, shorter block is skipped: when n is not a multiple of "
                    "block_size, the loop must still visit the last columns (range(0, n, "
                    "block_size) with x[..., start : start + block_size]).": (
                        online_softmax_f(x, block_size, skip_last=True)
                        if x.shape[-1] % block_size
                        else None
                    ),
                    **_coverage_mistakes(x, block_size),
                    "No maximum is subtracted: exp(x) overflows to inf for large x (here "
                    f"up to {float(x.abs().max()):.4g}), and inf / inf is NaN. Subtract the "
                    "running maximum inside every exp.": (
                        _informative(_no_maximum(x))
                        if not torch.isfinite(torch.exp(x)).all()
                        else None
                    ),
                },
                explain=lambda got=got, causes=nan_causes, x=x, e=expected, b=block_size: (
                    _overflow_only(online_softmax, got, x, b)
                    or _zero_denominator(
                        got,
                        e,
                        "exp(x - m) with the running maximum m",
                        "running sum",
                        "the block's exp(block - m_new).sum(dim=-1)",
                    )
                    or _all_nan_candidates(got, causes)
                    or _online_temperature(online_softmax, got, x)
                    or _mixed_bases(got, x)
                    or _proportional_rows(
                        got, x, b, lambda b=b, n=x.shape[-1]: _counted_columns(online_softmax, b, n)
                    )
                    or _blocks_alone(got, x, b)
                    or (
                        ""
                        if _arranged_or_related(got, e)
                        else _localise_online(online_softmax, x, b)
                    )
                ),
                hint="Subtract the running maximum inside every exp (large scores overflow "
                "otherwise), rescale the running sum by exp(m_old - m_new) whenever the "
                "maximum grows, and normalise with exp(x - m) / sum at the end.",
            )


# ======================================================================== tiled_attention
