"""Checks for lesson 11's sample, by its distribution (temperature, top-k, top-p)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from transformer_course.checking import Checker
from transformer_course.checking.formatting import clip
from transformer_course.checking.generators import generator_ignored
from transformer_course.checking.hints import two_mistakes
from transformer_course.checking.oracles import sample_probabilities_f

from .common import GENERATOR_BY_KEYWORD, _generator, _plain_generator


@dataclass(frozen=True)
class _SampleCase:
    logits: tuple[float, ...]
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float | None = None
    draws: int = 4000
    seed: int = 0


# probabilities at temperature 1, in the row's order: about .14 .46 .02 .25 .04 .07 .01
# (not sorted, so that a sorted order mapped back the wrong way shows)
_ROW = (0.8, 2.0, -1.1, 1.4, -0.4, 0.1, -1.7)
# flatter: top-k's renormalisation changes which tokens top-p keeps
_FLAT = (0.9, 0.2, 1.2, 0.6, -0.3, 0.75, 0.0, 0.4)
_VISIBLE_SAMPLE = [
    _SampleCase(_ROW, seed=1),
    _SampleCase(_ROW, temperature=0.5, seed=2),
    _SampleCase(_ROW, temperature=2.0, seed=3),
    _SampleCase(_ROW, top_k=3, seed=4),
    _SampleCase(_ROW, top_p=0.8, seed=5),
    _SampleCase(_ROW, temperature=2.0, top_p=0.8, seed=8),  # top-p after the temperature
    _SampleCase(_ROW, temperature=0.7, top_k=5, top_p=0.9, seed=6),
    _SampleCase(_FLAT, top_k=5, top_p=0.7, seed=9),  # top-k, then top-p
    _SampleCase((1.0, 3.0, 2.0, 2.0, 0.0), top_k=2, seed=7),  # a tie at the k-th logit
    _SampleCase((1.0, 3.0, 2.0, 2.0, 0.0), top_k=8, seed=10),  # top_k beyond the vocabulary
    # the most probable token alone (.46) reaches top_p: the nucleus is that one token
    _SampleCase(_ROW, top_p=0.2, seed=11),
    # top-k at a temperature other than 1: the k-th largest of the tempered logits (one
    # taken before the temperature keeps only the 2.0 here, blind21c)
    _SampleCase(_ROW, temperature=2.0, top_k=3, seed=12),
]
_ROW2 = (-0.5, 0.3, 1.9, -2.0, 1.1, 0.2, -0.8, 2.3, 0.0, -1.4, 0.7)
_FLAT2 = (0.5, 1.5, -0.2, 1.0, 0.3, 1.2, -1.0, 0.8, 0.0)
_HIDDEN_SAMPLE = [
    _SampleCase(_ROW2, seed=101),
    _SampleCase(_ROW2, temperature=1.5, top_k=4, seed=103),
    _SampleCase(_ROW2, temperature=2.5, top_p=0.8, seed=107),  # top-p after the temperature
    _SampleCase(_ROW2, temperature=0.6, top_p=0.7, seed=102),
    _SampleCase(_ROW2, top_k=6, top_p=0.5, seed=104),
    _SampleCase(_FLAT2, top_k=4, top_p=0.6, seed=106),
    _SampleCase((0.0, 5.0, 1.0, 5.0, 5.0, 2.0), top_k=2, seed=105),
    _SampleCase(_FLAT2, top_k=12, top_p=0.9, seed=108),  # top_k beyond the vocabulary
    # the most probable token alone (.37) reaches top_p: the nucleus is that one token
    _SampleCase(_ROW2, temperature=1.0, top_p=0.25, seed=109),
]

_TEMPERATURE_PROBS = (
    "Your samples follow softmax(logits), whatever the temperature: the temperature has no "
    "effect here. Either it never reaches the logits, or you divided the probabilities by "
    "it, and renormalising (which torch.multinomial does) undoes that. Divide the logits, "
    "before the softmax: softmax(logits / temperature)."
)
_TEMPERATURE_TIMES = (
    "You multiplied the logits by the temperature: divide them, logits / temperature."
)
_TOP_P_BEFORE_TEMPERATURE = (
    "Your top-p chose its tokens from the probabilities at temperature 1, and the "
    "temperature came afterwards: top-p works on the probabilities after the temperature, "
    "softmax(logits / temperature). Divide the logits first, then top-k, then top-p."
)
#: top-p before top-k, and top-p after top-k on the probabilities top-k zeroed without
#: renormalising them (b12b), keep the same tokens on every input: top-k keeps the most
#: probable tokens, so the running total over them is the whole distribution's either way.
#: No input parts them, so the message names both.
_TOP_P_BEFORE_TOP_K = (
    "Your top-p measured its running total on probabilities that top-k had not "
    "renormalised: you applied top-p before top-k, or after it on the probabilities top-k "
    "zeroed (or masked) without renormalising them (the two keep the same tokens on every "
    "input). Top-p must work on the probabilities of the tokens top-k kept, renormalised "
    "(a softmax over the logits with the others at -inf), which are larger, so that top-p "
    "keeps fewer tokens. The order is temperature, top-k, top-p."
)
_TOP_K_FROM_SMALLEST = (
    "Your top-k keeps the vocab - top_k + 1 largest logits, not the top_k largest: its "
    "threshold is the k-th *smallest* logit. torch.kthvalue counts from the smallest (as an "
    "ascending sort does); take the k-th largest, torch.topk(logits, top_k).values[..., -1:] "
    "(or torch.kthvalue(logits, vocab - top_k + 1))."
)
_TOP_P_GATHER = (
    "Your top-p removes the wrong tokens: the decisions made in sorted order were mapped "
    "back to the vocabulary with gather (which applies the inverse permutation). Put them "
    "back with scatter: remove = remove_sorted.scatter(-1, order, remove_sorted), so that "
    "the token at sorted position i, order[i], gets decision i."
)
_TOP_P_FEW = (
    "Your top-p keeps one token too few: the token that makes the running total reach "
    "top_p (the one that crosses it) must be kept (remove a token when the total *before* "
    "it already reaches top_p)."
)
_TOP_K_FEWER = (
    "Your top-k keeps k - 1 tokens, one too few. Two slips do that, and these inputs cannot "
    "tell them apart: the k-th largest logit removed itself (logits <= kth), or the "
    "threshold taken one place early (torch.topk(logits, top_k - 1), or .values[..., -2]). "
    "Keep the logits >= the k-th largest: kth = torch.topk(logits, top_k).values[..., -1:], "
    "remove logits < kth."
)
_TOP_K_ONE = (
    "Your top-k keeps one token, the most probable (greedy), where top_k={k} keeps {k}: the "
    "threshold is the largest logit, not the k-th largest. torch.topk sorts its values in "
    "descending order, so .values[..., :1] (or [..., 0]) is the largest and .values[..., "
    "-1:] the k-th (the same draws come from torch.topk(logits, 1), top_k never used). "
    "kth = torch.topk(logits, top_k).values[..., -1:]; remove the logits < kth."
)
_TOP_K_MORE = (
    "Your top-k keeps k + 1 tokens, one too many: the threshold is the k-th largest logit, "
    "torch.topk(logits, top_k).values[..., -1:]; keep the logits >= it."
)
_TOP_K_UNTEMPERED = (
    "Your top-k threshold is the k-th largest of the logits before the temperature, "
    "compared with the logits after it (divided by temperature={temperature}): the cut "
    "falls at kth * temperature in the logits' own scale, so more or fewer than top_k "
    "tokens survive as the threshold is negative or positive (none at all when every "
    "tempered logit falls below it). Divide by the temperature first, then take the k-th "
    "largest of the tempered logits: logits = logits / temperature; kth = "
    "torch.topk(logits, top_k).values[..., -1:]."
)
_TOP_P_UNSORTED = (
    "Your top-p runs its total over the tokens in vocabulary order: sort the probabilities "
    "first (most probable first), accumulate in that order, then map the decisions back to "
    "the vocabulary with scatter."
)
_UNIFORM = (
    "Every token you keep is drawn about equally often: your probabilities do not depend on "
    "the logits. The likely cause: a softmax over the wrong axis (dim=0 or -2, across the "
    "batch: here the rows are copies of one row, so every entry becomes 1 / batch); take it "
    "over the vocabulary, torch.softmax(logits, dim=-1). (Or weights drawn from something "
    "other than the probabilities.)"
)
_ALWAYS_ARGMAX = (
    "Your samples are always the most probable token (the argmax), whatever the "
    "temperature: with temperature > 0, draw at random from the probabilities, "
    "torch.multinomial(probs, 1, generator=generator); only temperature == 0 is greedy."
)
_TOP_P_COMPLEMENT = (
    "Your top-p set is cut at 1 - top_p, not at top_p: it keeps the most probable tokens "
    "while the mass before them is below 1 - top_p (too few tokens when top_p > 0.5, too "
    "many below). Remove a token when the mass before it reaches top_p itself: "
    "cumsum - probs >= top_p."
)
_TOP_P_MANY = (
    "Your top-p keeps one token too many: keep the smallest set of the most probable tokens "
    "whose total reaches top_p, and no more."
)
_TIES = (
    "With a tie at the k-th largest logit, your top-k keeps fewer than k tokens: keep every "
    "logit >= the k-th largest (or exactly k of them), not only those strictly above it."
)
_RENORMALISE = (
    "The tokens you keep are drawn in the wrong proportions, although the right tokens "
    "appear: after removing tokens, renormalise what is kept (a softmax over the logits "
    "with the removed ones set to -inf does it)."
)
_GREEDY = (
    "With temperature 0, sample must return the argmax of each row (greedy decoding), "
    "without dividing by zero."
)
_SAMPLE_GENERATOR = (
    "Two calls with generators seeded alike gave different tokens: pass the generator to "
    "the random draw (torch.multinomial(probs, 1, generator=generator)), never use the "
    "global random stream."
)
_TOP_P_FIRST_ROW = (
    "Only the first row of the batch drew tokens outside its top-p set; the other rows "
    "never did. Did you keep the most probable token with drop[0] = False? On a (batch, "
    "vocab) mask that keeps every token of row 0; the first column of every row is "
    "drop[..., 0] = False (or drop[:, 0])."
)
_RANKS = (
    "Your tokens are ranks, not vocabulary ids: token r was drawn as often as the r-th most "
    "probable token should be (0 the most probable). You drew from the sorted (or "
    "torch.topk) values and returned the position drawn there; map it back to the "
    "vocabulary id with the indices the sort or topk returned (indices.gather(-1, choice))."
)
_ROWS_MIX = (
    "the same row of logits draws from one distribution in a batch of one and from another "
    "in a batch of {rows} copies of it: your rows are not independent. Something runs "
    "across the batch axis (a softmax, sort, cumsum or topk over dim=0, or one threshold for "
    "the whole batch); every step of the filters works on each row alone, along the last "
    "axis (dim=-1)."
)
_ALL_REMOVED = (
    "With top_p={top_p}, below the probability of the most probable token ({top:.2f}), the "
    "nucleus is that token alone; your top-p removed every token of the row (a softmax over "
    "logits that are all -inf is NaN). The most probable token is always kept: remove a "
    "token only when the mass *before* it reaches top_p, and keep the first sorted column "
    "(remove_sorted[..., 0] = False)."
)
_TOP_P_ROWS = (
    "Each row of logits is a sequence of its own: its top-p set comes from its own "
    "probabilities (sort, cumsum and scatter along the last axis, dim=-1)."
)

_TOP_P_KEEPS_COLUMN = (
    "Your top-p always keeps the {nth} token, whatever top_p: the guard "
    "that keeps at least one token is on sorted column {column} "
    "(remove_sorted[..., {column}] = False), not on the first{also}. Keep the first sorted "
    "column, the most probable token: remove_sorted[..., 0] = False."
)


_TOP_P_SKIPPED = (
    "Your top-p has no effect: your samples follow the distribution after the temperature "
    "and top-k alone, as if top_p were None, so no token is ever removed. The samples "
    "cannot tell which of two causes: the removal's result is discarded (masked_fill, like "
    "most tensor methods, returns a new tensor and leaves its own unchanged: logits = "
    "logits.masked_fill(remove, float('-inf')); masked_fill_ works in place), or the mask "
    "of tokens to remove is never true, because the cumulative sum is not of probabilities "
    "(a cumsum of log-probabilities or of logits never crosses top_p): take the cumsum of "
    "the sorted softmax probabilities, which grows to 1."
)
_TOP_K_SKIPPED = (
    "Your top-k has no effect: your samples follow the distribution without it, as if "
    "top_k were None. These copies of one row cannot tell which of two causes: its result "
    "is discarded (masked_fill returns a new tensor and leaves its own unchanged: logits = "
    "logits.masked_fill(logits < kth, float('-inf'))), or its threshold is taken across "
    "the batch axis (torch.topk(logits, k, dim=0), or a sort or max over dim=0: on copies "
    "of one row each token is then its own column's k-th largest, and nothing is removed). "
    "Take the k-th largest of each row, along the last axis: torch.topk(logits, k, "
    "dim=-1).values[..., -1:]."
)

_FILL_FINITE = (
    "The tokens your filters remove are still drawn, as often as a logit of 0 would be: "
    "they were filled with 0 (or a number close to it), or the logits multiplied by a 0/1 "
    "mask, instead of -inf, which keeps them in the softmax. Fill them with float('-inf'), whose exp is 0: logits.masked_fill(remove, "
    "float('-inf'))."
)

#: a filter's mask inverted (blind30c): the tokens drawn are exactly the ones it should
#: remove, in their softmax proportions (masked_fill(keep, -inf) where keep marks the
#: tokens to keep, or the complement of top-p's removal zeroed)
_TOP_K_INVERTED = (
    "Your top-k removes the top_k most probable tokens and keeps all the others: its mask "
    "is inverted. Only tokens outside the k largest logits were drawn, and none of those "
    "k. A mask that is True at the k largest (topk's indices scattered into zeros, or "
    "logits >= kth) marks the tokens to keep, so fill where it is False: "
    "logits.masked_fill(~keep, float('-inf')) (or fill the removed ones directly, "
    "logits.masked_fill(logits < kth, float('-inf')))."
)
_TOP_P_INVERTED = (
    "Your top-p removes the nucleus and keeps the tokens past it: its mask is inverted. "
    "Only tokens outside the nucleus (the most probable tokens whose total first reaches "
    "top_p) were drawn, and none inside it. The nucleus is what top-p keeps: remove a "
    "token when the mass *before* it already reaches top_p (in sorted order, cumsum - "
    "probs >= top_p) and keep the others; filling or zeroing where that removal mask is "
    "False (or where a keep mask is True) removes the nucleus instead (and leaves nothing "
    "to draw on a row whose nucleus is the whole vocabulary)."
)

_SAMPLE_MISTAKES = {  # {message: sample_probabilities_f's knobs for that mistake}
    _TOP_K_INVERTED: {"inverted": "top_k"},
    _TOP_P_INVERTED: {"inverted": "top_p"},
    _TEMPERATURE_PROBS: {"temperature_at": "probs"},
    _TEMPERATURE_TIMES: {"temperature_at": "multiplied"},
    _TOP_P_BEFORE_TEMPERATURE: {"temperature_at": "after_top_p"},
    _TOP_P_BEFORE_TOP_K: {"order": "top_p_first"},
    _TOP_P_GATHER: {"top_p_map": "gather"},
    _TOP_P_FEW: {"top_p_rule": "one_too_few"},
    _TOP_P_MANY: {"top_p_rule": "one_too_many"},
    _TOP_P_COMPLEMENT: {"top_p_rule": "complement"},
    _TIES: {"ties": "strict"},
    _TOP_K_MORE: {"top_k_extra": 1},
    _TOP_P_UNSORTED: {"top_p_sorted": False},
    _ALWAYS_ARGMAX: {"greedy": True},
    _UNIFORM: {"softmax_dim": "batch"},
    _FILL_FINITE: {"fill": 0.0},
    # two top-p slips at once: the cut at 1 - top_p, and the crossing token dropped or one
    # token too many
    two_mistakes(_TOP_P_COMPLEMENT, _TOP_P_FEW): {
        "top_p_cut": "one_minus",
        "top_p_rule": "one_too_few",
    },
    two_mistakes(_TOP_P_COMPLEMENT, _TOP_P_MANY): {
        "top_p_cut": "one_minus",
        "top_p_rule": "one_too_many",
    },
}


def _top_p_temperature_twice(temperature: float) -> str:
    return (
        f"Your top-p chose its tokens from the probabilities at temperature t ** 2 = "
        f"{temperature * temperature:g} (t = {temperature:g}), while the draw follows t: "
        "the logits were divided by the temperature again inside top-p (softmax(logits / "
        "temperature) on logits already divided). Divide once, before top-k and top-p; "
        "top-p takes the softmax of the logits as they come: torch.softmax(logits, dim=-1)."
    )


def _nucleus_at_t_squared(row: torch.Tensor, case: _SampleCase) -> torch.Tensor:
    """What sample draws from when top-p chooses its tokens at temperature t ** 2 (the
    logits divided again inside top-p) and the draw keeps temperature t."""
    t, options = case.temperature, dict(top_k=case.top_k, top_p=case.top_p)
    kept = sample_probabilities_f(row, temperature=t * t, **options) > 0
    probs = torch.softmax(row.double() / t, -1) * kept
    return probs / probs.sum()


def _temperature_in_branch(sample, case: _SampleCase) -> str:
    """For samples that ignore the temperature: whether they follow it when a filter that
    removes nothing is given (top_k = vocab, or top_p = 1.0), which puts the division
    inside that filter's branch (b15b-sample-temperature-inside-top-k was told "you divided
    the probabilities"). "" when neither does (or the probe raises)."""
    vocab = len(case.logits)
    row = torch.tensor(case.logits, dtype=torch.float32)
    logits = row.expand(case.draws, -1).contiguous()  # (draws, vocab)
    probes = []
    if case.top_k is None:
        probes.append(("top_k", vocab, f"top_k={vocab}, the whole vocabulary"))
    if case.top_p is None:
        probes.append(("top_p", 1.0, "top_p=1.0"))
    for name, value, shown in probes:
        options = dict(temperature=case.temperature, top_k=case.top_k, top_p=case.top_p)
        options[name] = value
        kwargs = {k: v for k, v in options.items() if v is not None}
        try:
            got = sample(logits, **kwargs, generator=_generator(case.seed + 70))
            frequencies = _frequencies(got, vocab)
        except Exception:
            continue
        probs = sample_probabilities_f(row, **options)
        bound = 6 * (probs * (1 - probs) / case.draws).sqrt() + 1e-3
        if bool(((frequencies - probs).abs() <= bound).all()):
            what = name.replace("_", "-")
            return (
                f"Your samples follow softmax(logits), whatever the temperature, when no "
                f"{what} is given; with {shown} (which removes nothing) they follow "
                f"temperature {case.temperature:g}: the division by the temperature runs "
                f"only inside the `if {name} is not None:` branch (an indentation slip?). "
                "Divide the logits first, whatever the filters: logits = logits / "
                "temperature, then top-k, then top-p."
            )
    return ""


_TOP_P_ASCENDING = (
    "Your top-p keeps the least probable tokens: the probabilities were sorted in "
    "ascending order (torch.sort's default). Sort them most probable first, "
    "sort(dim=-1, descending=True), so that the running total starts from the top."
)


def _ascending_top_p(row: torch.Tensor, case: _SampleCase) -> torch.Tensor:
    """What the reference draws from when top-p sorts in ascending order (float64)."""
    z = row.double() / case.temperature
    if case.top_k is not None:
        kth = torch.topk(z, min(case.top_k, len(z))).values[-1]
        z = z.masked_fill(z < kth, float("-inf"))
    probs, order = torch.softmax(z, -1).sort()
    remove = probs.cumsum(-1) - probs >= case.top_p
    remove[0] = False
    return torch.softmax(z.masked_fill(remove.scatter(-1, order, remove), float("-inf")), -1)


_TOP_P_MIN_P = (
    "Your top-p keeps the tokens whose probability is at least top_p times the most "
    "probable token's: that is min-p, a threshold relative to the top token, not top-p. "
    "Top-p keeps the smallest set of the most probable tokens whose cumulative probability "
    "reaches top_p: sort the probabilities (descending), take the mass before each token, "
    "sorted_probs.cumsum(dim=-1) - sorted_probs, and remove a token when it is >= top_p."
)
_TOP_P_ABSOLUTE = (
    "Your top-p keeps the tokens whose own probability is at least {cut}: a threshold on "
    "each token's probability, not top-p. Top-p keeps the smallest set of the most probable "
    "tokens whose cumulative probability reaches top_p: sort the probabilities "
    "(descending), take the mass before each token, sorted_probs.cumsum(dim=-1) - "
    "sorted_probs, and remove a token when it is >= top_p."
)
_TOP_P_THRESHOLDS = {  # {message: the probability below which a token is removed}
    _TOP_P_MIN_P: lambda probs, top_p: top_p * probs.max(),
    _TOP_P_ABSOLUTE.format(cut="top_p"): lambda probs, top_p: top_p,
    _TOP_P_ABSOLUTE.format(cut="1 - top_p"): lambda probs, top_p: 1.0 - top_p,
}


def _thresholded(row: torch.Tensor, case: _SampleCase, threshold) -> torch.Tensor:
    """What sample draws from when top-p removes the tokens (after the temperature and
    top-k) whose probability is below ``threshold(probs, top_p)``, the most probable
    kept (float64, (vocab,))."""
    probs = sample_probabilities_f(row, temperature=case.temperature, top_k=case.top_k)
    remove = probs < threshold(probs, case.top_p)
    remove[probs.argmax()] = False
    kept = probs.masked_fill(remove, 0.0)
    return kept / kept.sum()


_TOP_P_LOGITS = (
    "Your top-p adds up the logits, not the probabilities: the nucleus is cut where the "
    "running total of the sorted logits reaches top_p. Sort and add up the probabilities "
    "(after the temperature and top-k): torch.softmax(logits, dim=-1).sort(dim=-1, "
    "descending=True)."
)


def _logits_top_p(row: torch.Tensor, case: _SampleCase) -> torch.Tensor:
    """What the reference draws from when top-p adds up the sorted logits themselves
    instead of the probabilities (blind10h-sample-top-p-on-logits; float64)."""
    z = row.double() / case.temperature
    if case.top_k is not None:
        kth = torch.topk(z, min(case.top_k, len(z))).values[-1]
        z = z.masked_fill(z < kth, float("-inf"))
    ordered, order = z.sort(descending=True)
    remove = ordered.cumsum(-1) - ordered >= case.top_p
    remove[0] = False
    return torch.softmax(z.masked_fill(remove.scatter(-1, order, remove), float("-inf")), -1)


def _frequencies(tokens: torch.Tensor, vocab: int) -> torch.Tensor:
    return (
        torch.bincount(tokens.flatten().long().clamp(0, vocab - 1), minlength=vocab).double()
        / tokens.numel()
    )


_ONE_TOKEN = (
    " Yours is one token for the whole batch{which}: torch.multinomial(probs, 1) gives "
    "(batch, 1), one draw per row, and {index} on it takes its {row} row, where [:, 0] (or "
    ".squeeze(-1)) takes its column. (A single draw for the batch, from probs{index} or the "
    "flattened probabilities, gives one token too.)"
)


def _per_row_hint(sample, got: Any, rows: int) -> str:
    """The hint for a result of shape (batch,) that has another shape: "One token per row",
    and, for one token where rows > 1 (b16b: the first row of multinomial's (batch, 1)
    draws, [0] for [:, 0]), which row's token it is, read from a probe whose rows each
    allow one token only."""
    hint = "One token per row of logits: (batch,), not (batch, 1)."
    if not (isinstance(got, torch.Tensor) and tuple(got.shape) == (1,) and rows > 1):
        return hint
    logits = torch.full((3, 5), -1e4)  # row r allows token r + 1 only
    logits[torch.arange(3), torch.arange(1, 4)] = 0.0
    try:
        with torch.no_grad():
            probe = sample(logits, temperature=1.0, generator=_generator(0))
        token = int(probe.flatten()[0]) if tuple(probe.shape) == (1,) else None
    except Exception:  # a probe: any failure means no answer
        token = None
    which, index, row = {
        1: (", the first row's", "[0]", "first"),
        3: (", the last row's", "[-1]", "last"),
    }.get(token, ("", "[0]", "first"))
    return "One token per row of logits: (batch,)." + _ONE_TOKEN.format(
        which=which, index=index, row=row
    )


def _beyond_vocabulary(sample, top_k: int, rows: int, vocab: int) -> str:
    """torch.topk refused a top_k beyond the vocabulary: a probe with fewer rows than
    top_k tells a clamp to the number of rows (min(top_k, logits.shape[0]),
    blind17b-sample-top-k-clamped-to-batch, was told "not clamped") from none at all."""
    said = (
        f"top_k={top_k} is larger than the vocabulary ({vocab} tokens), and torch.topk "
        "refuses a k larger than the axis: then every token is kept. "
    )
    fix = "Clamp it, torch.topk(logits, min(top_k, logits.shape[-1]))."
    few = min(top_k, vocab) - 1  # fewer rows than top_k and than the vocabulary
    if rows <= few or few < 1:
        return said + fix
    try:
        with torch.no_grad():
            sample(torch.zeros(few, vocab), temperature=1.0, top_k=top_k, generator=_generator(3))
    except Exception:  # the probe raises too: top_k is not clamped at all
        return said + fix
    return (
        said + f"Yours does clamp, but to the number of rows: with {few} rows the same top_k runs, "
        f"with {rows} it does not, so the clamp is min(top_k, logits.shape[0]) (or "
        "len(logits)), the batch, where the vocabulary belongs; with fewer rows than top_k "
        "it also keeps too few tokens. " + fix
    )


def _sample_call(c: Checker, sample, logits, case: _SampleCase, seed: int):
    kwargs: dict[str, Any] = {"temperature": case.temperature}
    if case.top_k is not None:
        kwargs["top_k"] = case.top_k
    if case.top_p is not None:
        kwargs["top_p"] = case.top_p
    shown = ", ".join(f"{k}={v}" for k, v in kwargs.items())
    call = f"sample(logits ({logits.shape[0]}, {logits.shape[1]}), {shown}, generator=...)"
    vocab = logits.shape[-1]
    beyond = (
        lambda exc: case.top_k is not None and case.top_k > vocab and "out of range" in str(exc),
        lambda exc: _beyond_vocabulary(sample, case.top_k, logits.shape[0], vocab),
    )
    rows = logits.shape[0]
    sizes = {f"({rows})", f"({case.top_k})"}
    over_rows = (
        lambda exc: (
            case.top_k is not None
            and case.top_k != rows
            and isinstance(exc, RuntimeError)
            and all(size in str(exc) for size in sizes)
            and "must match" in str(exc)
        ),
        f"The sizes {rows} and {case.top_k} are the number of rows and top_k: did torch.topk "
        "run over the rows (dim=0 or dim=-2) instead of the vocabulary (or were sorted "
        "logits cut along the rows, values[:top_k] where values[..., :top_k] belongs)? "
        "Take the k largest "
        "logits of each row, torch.topk(logits, k, dim=-1).values[..., -1:], one threshold "
        "per row.",
    )
    clash = {f"({rows})", f"({vocab})"}
    threshold_axis = (
        lambda exc: (
            case.top_k is not None
            and rows != vocab
            and isinstance(exc, RuntimeError)
            and "must match" in str(exc)
            and all(size in str(exc) for size in clash)
        ),
        f"The sizes {vocab} and {rows} are the vocabulary and the number of rows: a per-row "
        "value of shape (batch,) met the (batch, vocab) logits. The likely cause: the k-th "
        "largest logit taken without its axis, torch.topk(...).values[..., -1] (one number "
        "per row, (batch,)); keep the axis, .values[..., -1:] (or keepdim=True), so that the "
        "threshold is (batch, 1) and lines up with its own row. (With a batch of one row the "
        "two happen to agree.)",
    )
    top = float(torch.softmax(logits[0].double(), -1).max())
    threshold_columns = (
        lambda exc: (
            case.top_k is not None
            and isinstance(exc, RuntimeError)
            and _columns_met(exc, vocab) not in (None, 1, rows, vocab)
        ),
        lambda exc: _THRESHOLD_COLUMNS.format(
            k=case.top_k,
            m=_columns_met(exc, vocab),
            vocab=vocab,
            rows=rows,
            whole=", or all k of them, .values" if _columns_met(exc, vocab) == case.top_k else "",
        ),
    )
    all_removed = (
        lambda exc: (
            case.top_p is not None
            and case.temperature == 1.0
            and case.top_k is None
            and case.top_p <= top
            and "probability tensor contains" in str(exc)
        ),
        _ALL_REMOVED.format(top_p=case.top_p, top=top),
    )
    shift_dependent = (
        lambda exc: (
            case.top_k is not None
            and case.top_p is None
            and "probability tensor contains" in str(exc)
        ),
        lambda exc: _top_k_shift_probe(sample, logits[0], case),
    )
    got = c.call(
        sample,
        logits,
        **kwargs,
        generator=_generator(seed),
        call_repr=call,
        hints=[
            beyond,
            over_rows,
            threshold_axis,
            threshold_columns,
            all_removed,
            shift_dependent,
            *_DRAW_HINTS,
            GENERATOR_BY_KEYWORD,
        ],
    )
    return got, call


_THRESHOLD_COLUMNS = (
    "The sizes {vocab} and {m} met on the last axis: a tensor with {m} columns was compared "
    "with (or applied to) the ({rows}, {vocab}) logits, in a call with top_k={k}. The likely "
    "cause: the top-k threshold taken as a slice of {m} of the k largest logits (such as "
    ".values[..., -{m}:]{whole}) instead of the k-th largest alone, one column per row: "
    "kth = torch.topk(logits, k, dim=-1).values[..., -1:], shape (batch, 1); remove the "
    "logits < kth."
)


def _columns_met(exc: BaseException, vocab: int) -> int | None:
    """The other size of a broadcast error between a tensor and the (batch, vocab)
    logits along the last axis ("The size of tensor a (vocab) must match the size of
    tensor b (m) at non-singleton dimension 1"); None for another error."""
    found = re.search(
        r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
        r"non-singleton dimension (\d+)",
        str(exc),
    )
    if not found:
        return None
    a, b, axis = map(int, found.groups())
    if axis != 1 or vocab not in (a, b):
        return None
    return b if a == vocab else a


#: errors of the draw itself: torch.multinomial(probs, 1) returns (batch, 1)
_DRAW_HINTS = (
    (
        "not enough non-negative category",
        "torch.multinomial(probs, n) draws n different tokens (without replacement), and "
        "here fewer tokens are left after the filters: draw one, torch.multinomial(probs, "
        "1, generator=generator)[:, 0].",
    ),
    (
        "out of bounds for dimension 1 with size 1",
        "An index ran past an axis of size 1. The likely one: torch.multinomial(probs, 1, "
        "...) returns (batch, 1), whose only column is [:, 0].",
    ),
)


def _rows_mix(c: Checker, sample, case: _SampleCase, frequencies: torch.Tensor) -> bool:
    """Whether one row alone draws from another distribution than a batch of copies of
    it does (the rows are then not independent); False when the batch of one cannot be
    read (an error, another shape: other checks tell those)."""
    row = torch.tensor([case.logits], dtype=torch.float32)
    vocab, calls = row.shape[1], 400
    kwargs: dict[str, Any] = {"temperature": case.temperature}
    if case.top_k is not None:
        kwargs["top_k"] = case.top_k
    if case.top_p is not None:
        kwargs["top_p"] = case.top_p
    alone = []
    for number in range(calls):
        try:
            got = sample(row.clone(), **kwargs, generator=_generator(case.seed + 1000 + number))
        except Exception:
            return False
        if not isinstance(got, torch.Tensor) or tuple(got.shape) != (1,):
            return False
        alone.append(int(got[0]))
    single = _frequencies(torch.tensor(alone), vocab)
    spread = frequencies.clamp(1e-3, 1 - 1e-3)
    bound = (
        6 * (spread * (1 - spread) / calls).sqrt() + 6 * (spread * (1 - spread) / case.draws).sqrt()
    )
    return bool(((single - frequencies).abs() > bound + 0.02).any())


def _applies(knobs: Mapping[str, Any], case: _SampleCase) -> bool:
    """Whether a mistake can show in this case (it changes nothing otherwise)."""
    if knobs.get("greedy"):
        # always the argmax is told only where nothing filters the tokens: with top-k or
        # top-p, a filter that keeps one token looks the same (and the first case, with
        # neither, has caught a sampler that is always greedy)
        return case.top_k is None and case.top_p is None
    if knobs.get("temperature_at") in ("probs", "multiplied") and case.temperature == 1.0:
        return False
    if knobs.get("temperature_at") == "after_top_p":
        return case.temperature != 1.0 and case.top_p is not None
    if "order" in knobs:
        return case.top_k is not None and case.top_p is not None
    if knobs.get("inverted") == "top_k":
        return case.top_k is not None
    if knobs.get("inverted") == "top_p":
        return case.top_p is not None
    if "top_k_extra" in knobs or "ties" in knobs:
        return case.top_k is not None
    if "top_p_sorted" in knobs or "top_p_rule" in knobs or "top_p_map" in knobs:
        return case.top_p is not None
    return True


def _sample_distribution(c: Checker, sample, case: _SampleCase) -> None:
    """One row of logits copied case.draws times: the frequencies against the exact
    probabilities, the classic mistakes named when exactly one of them fits."""
    logits = torch.tensor(case.logits, dtype=torch.float32).expand(case.draws, -1).contiguous()
    vocab = logits.shape[1]
    got, call = _sample_call(c, sample, logits, case, case.seed)
    c.expect_type(got, torch.Tensor, call, "Return a tensor of token ids, one per row.")
    c.expect_shape(got, (case.draws,), call, _per_row_hint(sample, got, case.draws))
    c.expect_true(
        got.dtype == torch.int64, f"{call} should return int64 token ids, not {got.dtype}."
    )
    again, _ = _sample_call(c, sample, logits, case, case.seed)
    c.expect_true(torch.equal(again, got), _SAMPLE_GENERATOR)
    row = torch.tensor(case.logits)
    options = dict(temperature=case.temperature, top_k=case.top_k, top_p=case.top_p)
    expected = sample_probabilities_f(row, **options)
    frequencies = _frequencies(got, vocab)
    allowed = expected > 0
    tol = 6 * (expected * (1 - expected) / case.draws).sqrt() + 1e-3

    def matches(probs: torch.Tensor) -> bool:
        if torch.isnan(probs).any():
            return False
        bound = 6 * (probs * (1 - probs) / case.draws).sqrt() + 1e-3
        return bool(((frequencies - probs).abs() <= bound).all())

    if matches(expected):
        c.ok()
        return
    tie = case.top_k is not None and bool(
        (row == torch.topk(row, min(case.top_k, len(row))).values[-1]).sum() > 1
    )
    models = _models(case, tie)
    fitting = [message for message, model in models.items() if matches(model(row))]
    noisy = set(_noise_models(case))
    if fitting and (case.top_p is not None or len(fitting) > 1 or noisy & set(fitting)):
        # one row can make two top-p slips look alike (the running total of the sorted
        # logits and the cut at 1 - top_p keep one token alike at top_p=0.8 here): the
        # model must also fit a flat row, where those keep different numbers of tokens
        fitting = _confirmed(c, sample, case, fitting, models, everywhere=noisy)
    if fitting and _UNIFORM not in fitting and _rows_mix(c, sample, case, frequencies):
        # every model here draws each row on its own: a batch of one row drawing from
        # another distribution refutes them all (a top-p over the batch axis keeps every
        # token of 4000 copies, as a top-p with no effect would)
        c.fail(f"{call}: " + _ROWS_MIX.format(rows=case.draws))
    if fitting == [_TEMPERATURE_PROBS] and (branch := _temperature_in_branch(sample, case)):
        c.fail(f"{call}: {branch}")
    if fitting == [_TOP_P_FEW]:
        c.fail(f"{call}: {_TOP_P_FEW}{_top_token_removed(sample, case)}")
    if fitting == [_TOP_P_SKIPPED] and (overlap := _overlapping_shift(sample, case)):
        c.fail(f"{call}: {overlap}")
    if len(fitting) == 1:
        c.fail(f"{call}: {fitting[0]}")
    if fitting:
        c.fail(
            f"{call}: your samples fit more than one classic mistake here:\n* "
            + "\n* ".join(fitting)
        )
    if _rows_mix(c, sample, case, frequencies):
        c.fail(f"{call}: " + _ROWS_MIX.format(rows=case.draws))
    fitted = _effective_temperature(row, case, matches)
    if fitted is not None:
        c.fail(f"{call}: {fitted}")
    outside = frequencies[~allowed].sum()
    if outside > 0 and case.top_p is not None and (fixed := _fixed_id_kept(sample, case)):
        c.fail(f"{call}: {fixed}")
    if outside > 0 and int(allowed.sum()) == 1 and case.top_p is not None:
        top = int(expected.argmax())
        tempered = torch.softmax(row.double() / case.temperature, -1)
        order = tempered.sort(descending=True).indices.tolist()
        extra = torch.nonzero(frequencies * ~allowed).flatten().tolist()
        ranks = ", ".join(
            f"{t} (the {_ordinal(order.index(t) + 1)} most probable)" for t in extra[:4]
        )
        c.fail(
            f"{call}: only token {top} may be drawn here: top_p={case.top_p} is below its "
            f"probability ({tempered[top]:.2f}), so the nucleus is that one token. Yours also "
            f"drew {ranks}. Keep a token only while the mass *before* it is below top_p: "
            "the first sorted column is always kept, and nothing else here."
        )
    if outside > 0:
        sets = _kept_sets_fitting(row, case, frequencies)
        inverted = [message for message in sets if message in _INVERSIONS]
        if inverted:
            # the tokens drawn are exactly the ones a filter should remove; the
            # proportions among them fit no model, so something else is off too
            after = (
                " (The proportions among the tokens drawn are off as well: once the mask is "
                "fixed, check what the draw follows.)"
            )
            if len(inverted) == 1:
                c.fail(f"{call}: {inverted[0]}{after}")
            c.fail(
                f"{call}: the tokens drawn fit more than one inverted mask here:\n* "
                + "\n* ".join(inverted)
                + f"\n{after.strip()}"
            )
        given = [name for name, v in (("top-k", case.top_k), ("top-p", case.top_p)) if v]
        check = " and ".join(given) if given else "top-k and top-p"
        mapped = (
            " (computed on the probabilities sorted in descending order, its decision is "
            "mapped back to vocabulary order along the last axis: scatter(-1, order, ...))"
            if _WRONG_ORDER in sets
            else ""
        )
        c.fail(
            f"{call} drew tokens that must never be drawn here "
            f"(ids {torch.nonzero(frequencies * ~allowed).flatten().tolist()}; only "
            f"{torch.nonzero(allowed).flatten().tolist()} may be): check {check}, the "
            f"filter{'s' if len(given) > 1 else ''} given here{mapped}."
        )
    if (frequencies[allowed] == 0).any() and not (expected[frequencies == 0] < 1e-3).all():
        top = int(expected.argmax())
        if case.top_p is not None and frequencies[top] == 0:
            which = "top-p" if case.top_k is None else "top-k or top-p"
            c.fail(
                f"{call} never drew token {top}, the most probable one (expected "
                f"{expected[top]:.3f} of the time), although no filter given here removes "
                f"it: your {which} removes the most probable token. Top-k keeps the largest "
                "logits; top-p always keeps the first column of the sorted probabilities "
                "(remove_sorted[..., 0] = False) and removes a token only when the mass "
                "*before* it already reaches top_p."
            )
        drawn, kept = int((frequencies > 0).sum()), int(allowed.sum())
        c.fail(
            f"{call} never drew some tokens that should be drawn ({drawn} different tokens "
            f"drawn; {kept} may be): "
            + (
                "check "
                + " and ".join(
                    name for name, v in (("top-k", case.top_k), ("top-p", case.top_p)) if v
                )
                + ", the filters given here."
                if case.top_k is not None or case.top_p is not None
                else "no filter is given here, so every token may be drawn; check the "
                "temperature and the draw."
            )
        )
    worst = int(((frequencies - expected).abs() - tol).argmax())
    if case.top_k is None and case.top_p is None:
        # no filter removes a token here: renormalising what is kept cannot be the cause
        c.fail(
            f"{call}: token {worst} was drawn {frequencies[worst]:.3f} of the time, expected "
            f"{expected[worst]:.3f}. No filter is given here, so the draw itself is off: "
            "the tokens must be drawn in the proportions softmax(logits / temperature), "
            "with torch.multinomial(probs, 1, generator=generator) (or, for the "
            "Gumbel-max trick, the argmax of log(probs) - log(-log(u)))."
        )
    c.fail(
        f"{call}: token {worst} was drawn {frequencies[worst]:.3f} of the time, expected "
        f"{expected[worst]:.3f}. {_RENORMALISE}"
    )


#: top-p's sorted decisions applied in another order than the sorted one's (mapped back
#: with gather, or never mapped back): the drawn set is a nucleus, of the wrong tokens
_WRONG_ORDER = "the nucleus of the wrong order"
_INVERSIONS = (_TOP_K_INVERTED, _TOP_P_INVERTED)


def _kept_sets_fitting(row: torch.Tensor, case: _SampleCase, frequencies: torch.Tensor):
    """Which filter mistakes keep exactly the tokens drawn, whatever the proportions among
    them (for samples that fit no distribution): a filter's mask inverted, or top-p's
    decisions put back in the wrong order (:data:`_WRONG_ORDER`). A set fits when at most
    0.5% of the draws fall outside it and every token it keeps with probability 1% or more
    was drawn."""
    options = dict(temperature=case.temperature, top_k=case.top_k, top_p=case.top_p)
    candidates: dict[str, list[dict[str, str]]] = {}
    if case.top_k is not None:
        candidates[_TOP_K_INVERTED] = [{"inverted": "top_k"}]
    if case.top_p is not None:
        candidates[_TOP_P_INVERTED] = [{"inverted": "top_p"}]
        candidates[_WRONG_ORDER] = [{"top_p_map": "gather"}, {"top_p_map": "none"}]
    fitting = []
    for told, variants in candidates.items():
        for knobs in variants:
            probs = sample_probabilities_f(row, **options, **knobs)
            if torch.isnan(probs).any():
                continue
            kept = probs > 0
            if float(frequencies[~kept].sum()) <= 0.005 and bool(
                (frequencies[probs >= 0.01] > 0).all()
            ):
                fitting.append(told)
                break
    return fitting


#: the noise a Gumbel-max draw may add, {name: (the formula, how to draw it from u)}:
#: argmax(log(probs) + noise) follows probs only for Gumbel noise, -log(-log(u))
_NOISES = {
    "gumbel": ("-log(-log(u))", lambda u: -torch.log(-torch.log(u))),
    "exponential": ("-log(u) (exponential noise: one log, not two)", lambda u: -torch.log(u)),
    "log": ("log(u) (the argmax of probs * u)", torch.log),
    "uniform": ("u itself (uniform noise, no log)", lambda u: u),
    "negated gumbel": (
        "log(-log(u)) (Gumbel noise with its sign flipped)",
        lambda u: torch.log(-torch.log(u)),
    ),
}
#: the scores the noise is added to: {name: (how it is written, from the log-probabilities)}
_NOISE_BASES = {
    "log": ("the log-probabilities log(probs) (or logits / temperature)", lambda lp: lp),
    "probs": ("the probabilities probs themselves", torch.exp),
}
#: draws of each noise model (the models' own sampling error is then below 0.002, far
#: inside the 6-sigma bound of the learner's 4000 draws)
_NOISE_DRAWS = 100_000


def _noise_models(case: _SampleCase) -> dict[str, Any]:
    """{message: distribution} for samplers that add noise to scores and take the argmax
    (the Gumbel-max trick), every noise of :data:`_NOISES` on every base of
    :data:`_NOISE_BASES` but the right pair, the distribution estimated by drawing."""
    options = dict(temperature=case.temperature, top_k=case.top_k, top_p=case.top_p)
    models: dict[str, Any] = {}
    for noise, (formula, _) in _NOISES.items():
        for base, (written, _) in _NOISE_BASES.items():
            if (noise, base) == ("gumbel", "log"):
                continue  # the right Gumbel-max draw: the reference's distribution
            if base == "log":
                told = (
                    f"Your draws fit argmax(log(probs) + noise) with the noise {formula}: the "
                    "Gumbel-max trick draws from probs only with Gumbel noise, -log(-log(u)) "
                    "for u uniform in (0, 1), added to the log-probabilities (or simply use "
                    "torch.multinomial(probs, 1, generator=generator))."
                )
            elif noise == "gumbel":
                told = (
                    "Your draws fit the Gumbel-max trick with the Gumbel noise -log(-log(u)) "
                    f"added to {written}, not to their logarithms: the probabilities lie in "
                    "[0, 1], so the noise swamps them and the draws are far too flat. Add "
                    "it to log(probs) (or to logits / temperature), or use "
                    "torch.multinomial(probs, 1, generator=generator)."
                )
            else:
                told = (
                    f"Your draws fit argmax(probs + noise) with the noise {formula}, added to "
                    f"{written}: the Gumbel-max trick adds -log(-log(u)) to log(probs) (or "
                    "to logits / temperature); or use "
                    "torch.multinomial(probs, 1, generator=generator)."
                )
            models[told] = lambda row, noise=noise, base=base: _noise_distribution(
                sample_probabilities_f(row, **options), noise, base
            )
    return models


@functools.lru_cache(maxsize=32)
def _noise_values(noise: str, vocab: int) -> torch.Tensor:
    """The noise ``noise`` drawn (_NOISE_DRAWS, vocab), float64, the same on every call."""
    generator = torch.Generator().manual_seed(0)
    # (draws, vocab): u in (0, 1), away from both ends so that every log is finite
    u = torch.rand((_NOISE_DRAWS, vocab), generator=generator, dtype=torch.float64)
    return _NOISES[noise][1](u.clamp(1e-12, 1 - 1e-12))


def _noise_distribution(probs: torch.Tensor, noise: str, base: str) -> torch.Tensor:
    """How often each token wins argmax(base(probs) + noise) (vocab,), by drawing."""
    values = _noise_values(noise, len(probs))  # (draws, vocab)
    log_probs = probs.double().log()  # (vocab,), -inf where a filter removed the token
    scores = _NOISE_BASES[base][1](log_probs) + values  # (draws, vocab)
    winners = scores.argmax(dim=-1)
    return torch.bincount(winners, minlength=len(probs)).double() / _NOISE_DRAWS


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


#: a flat row (the most probable token about .15): the cut at 1 - top_p keeps two tokens,
#: a running total of the logits instead of the probabilities about five, the right one six
_CONFIRM_ROW = (0.3, -0.2, 0.1, 0.25, -0.3, 0.0, 0.15, -0.1)
#: a peaked row (the most probable token about .85): top-p alone keeps that one token
_PEAKED_ROW = (4.0, 1.0, 0.5, 0.0, -0.5, -1.0, 0.2, 0.8)
#: sixteen nearly equal logits: top-p keeps more tokens than any top_k of the cases
_WIDE_ROW = tuple(round(0.3 - 0.02 * i, 2) for i in range(16))


_TOP_K_KEPT_ALIKE = (
    "Your top-k keeps the right tokens, but draws uniformly among the kept tokens (about "
    "1 / top_k each): the kept logits are all set to one value, so their own "
    "probabilities are lost (torch.where(logits < kth, -inf, 1.0), say, or the keep mask "
    "itself used as the weights, where the kept logits must stay as they were). Set only "
    "the removed ones to -inf: logits = logits.masked_fill(logits < kth, float('-inf'))."
)


def _models(case: _SampleCase, tie: bool) -> dict[str, Any]:
    """{message: the distribution that mistake draws from, as a function of the row}."""
    options = dict(temperature=case.temperature, top_k=case.top_k, top_p=case.top_p)
    models: dict[str, Any] = {}
    for message, knobs in _SAMPLE_MISTAKES.items():
        if _applies(knobs, case):
            told = _TOP_K_FEWER if message == _TIES and not tie else message
            models[told] = lambda row, knobs=knobs: sample_probabilities_f(row, **options, **knobs)
    # a filter whose result is discarded: the distribution without it
    if case.top_p is not None:
        models[_TOP_P_SKIPPED] = lambda row: sample_probabilities_f(
            row, temperature=case.temperature, top_k=case.top_k
        )
    if case.top_k is not None:
        models[_TOP_K_SKIPPED] = lambda row: sample_probabilities_f(
            row, temperature=case.temperature, top_p=case.top_p
        )
    if case.top_k is not None:
        # b12b: the threshold counted from the smallest logit (torch.kthvalue, or an
        # ascending sort): the vocab - top_k + 1 largest logits kept
        def from_smallest(row):
            kept = len(row) - min(case.top_k, len(row)) + 1
            return sample_probabilities_f(row, **options, top_k_extra=kept - case.top_k)

        models[_TOP_K_FROM_SMALLEST] = from_smallest
    if case.top_k is not None and case.top_p is None:
        # blind26c-sample-top-k-kept-logits-set-to-one: the kept tokens drawn alike
        def kept_alike(row):
            kept = (sample_probabilities_f(row, **options) > 0).double()  # (vocab,)
            return kept / kept.sum()

        models[_TOP_K_KEPT_ALIKE] = kept_alike
    if case.top_k is not None and case.temperature not in (0.0, 1.0):
        # blind21c: the k-th largest taken before the temperature, compared after it
        models[_TOP_K_UNTEMPERED.format(temperature=case.temperature)] = lambda row: (
            _untempered_top_k(row, case)
        )
    if case.top_k is not None and case.top_k > 1:
        # b16b: the threshold read from the first of topk's values, the largest
        models[_TOP_K_ONE.format(k=case.top_k)] = lambda row: sample_probabilities_f(
            row, temperature=case.temperature, top_k=1, top_p=case.top_p
        )
    if case.top_p is not None and case.temperature != 1.0:
        # b15b: the temperature applied again inside top-p
        models[_top_p_temperature_twice(case.temperature)] = lambda row: _nucleus_at_t_squared(
            row, case
        )
    if case.top_p is not None:
        # a threshold on each token's own probability in place of the cumulative set:
        # relative to the most probable token (min-p) or absolute (at least top_p, or at
        # least 1 - top_p), the most probable token always kept
        for told, threshold in _TOP_P_THRESHOLDS.items():
            models[told] = lambda row, threshold=threshold: _thresholded(row, case, threshold)
        models[_TOP_P_ASCENDING] = lambda row: _ascending_top_p(row, case)
        models[_TOP_P_LOGITS] = lambda row: _logits_top_p(row, case)
        # the guard that keeps one token put on another sorted column, counted from the
        # first or from the last (the two agree on one row and part on a row of another
        # length, as _confirmed's), each a candidate
        vocab = len(case.logits)
        for column in (*range(1, vocab), *range(-1, -vocab, -1)):
            nth = (
                f"{_ordinal(column + 1)} most probable"
                if column > 0
                else "least probable"
                if column == -1
                else f"{_ordinal(-column)} least probable"
            )
            also = (
                " (or at least two tokens kept, remove_sorted[..., :2] = False: the same draws)"
                if column == 1
                else ""
            )
            told = _TOP_P_KEEPS_COLUMN.format(nth=nth, column=column, also=also)
            models[told] = lambda row, column=column: _guard_on_column(row, options, column)

    def ranked(row):
        probs = sample_probabilities_f(row, **options)
        return probs.sort(descending=True).values if not _sorted(probs) else probs * float("nan")

    models[_RANKS] = ranked  # entry r: the r-th most probable's probability
    models.update(_noise_models(case))
    return models


def _guard_on_column(row: torch.Tensor, options: dict, column: int) -> torch.Tensor:
    """What sample draws from when top-p's guard keeps sorted column ``column`` instead
    of the first (NaN where the row has no such column: that learner would raise)."""
    if not -len(row) <= column < len(row):
        return torch.full(row.shape, float("nan"), dtype=torch.float64)
    return sample_probabilities_f(row, **options, top_p_keep=column)


def _sorted(probs: torch.Tensor) -> bool:
    return bool(torch.equal(probs.sort(descending=True).values, probs))


#: the flat row one lower: every logit negative, so a top-k threshold taken before the
#: temperature keeps more than top_k tokens at a temperature above 1 (where the flat row
#: keeps top_k - 1 with it, as the strict threshold does)
_NEGATIVE_ROW = tuple(round(value - 1.0, 2) for value in _CONFIRM_ROW)


#: two tokens, one nearly certain: noise added to the probabilities (1 and 0) wins the
#: other token 0.27 of the time if Gumbel, 0.18 if exponential (the wide rows part none)
_TWO_TOKEN_ROW = (6.0, 0.0)


def _untempered_top_k(row: torch.Tensor, case: _SampleCase) -> torch.Tensor:
    """The distribution of a top-k whose threshold, the k-th largest logit, is taken before
    the temperature and compared with the tempered logits (then top-p, as given)."""
    row = row.double()
    kth = torch.topk(row, min(case.top_k, len(row))).values[-1]
    kept = row / case.temperature >= kth
    if not kept.any():
        return torch.full_like(row, float("nan"))
    return sample_probabilities_f(
        row.masked_fill(~kept, float("-inf")), temperature=case.temperature, top_p=case.top_p
    )


def _confirmed(
    c: Checker,
    sample,
    case: _SampleCase,
    fitting: list[str],
    models,
    everywhere: set[str] = frozenset(),
) -> list[str]:
    """The messages of ``fitting`` whose models also fit the learner's samples for
    :data:`_CONFIRM_ROW` with the same arguments (blind10h: the running total of the
    logits and the cut at 1 - top_p both fit one row; the flat row parts them), and, when
    several still fit, for :data:`_PEAKED_ROW` and :data:`_WIDE_ROW` too (b11b: top-p
    before top-k and a top-k with no effect keep the same tokens of the case's row and the
    flat one, where top-p keeps no more than k tokens). A message of ``everywhere`` is
    kept only if it fits every row, :data:`_TWO_TOKEN_ROW` included where no top-k is
    given."""
    rows = [_CONFIRM_ROW, _PEAKED_ROW, _WIDE_ROW]
    if case.top_k is None:
        rows.append(_TWO_TOKEN_ROW)
    if any(message.startswith(_TOP_K_UNTEMPERED[:40]) for message in fitting):
        rows = [_NEGATIVE_ROW, *rows]
    parting = _threshold_row(case) if set(fitting) & set(_TOP_P_THRESHOLDS) else None
    for number, row in enumerate(rows if parting is None else [parting, *rows]):
        # a model of ``everywhere`` (the noise models, whose flat draws other flattening
        # slips can mimic on one row: probabilities smoothed by adding a constant) must
        # fit every row, even alone
        if number and len(fitting) < 2 and not set(fitting) & everywhere:
            break
        confirm = _SampleCase(
            row, case.temperature, case.top_k, case.top_p, seed=case.seed + 50 + number
        )
        logits = torch.tensor(confirm.logits).expand(confirm.draws, -1).contiguous()
        got, _ = _sample_call(c, sample, logits, confirm, confirm.seed)
        if not isinstance(got, torch.Tensor) or tuple(got.shape) != (confirm.draws,):
            return fitting
        frequencies = _frequencies(got, len(row))

        def fits(message: str, row=row, frequencies=frequencies, draws=confirm.draws) -> bool:
            probs = models[message](torch.tensor(row))
            if torch.isnan(probs).any():
                return False
            bound = 6 * (probs * (1 - probs) / draws).sqrt() + 1e-3
            return bool(((frequencies - probs).abs() <= bound).all())

        fitting = [message for message in fitting if fits(message)]
    return fitting


def _threshold_row(case: _SampleCase) -> tuple[float, ...] | None:
    """A row on which top-p (3 tokens), min-p (2) and a running total that adds each
    token's own probability, cumsum + probs (1), keep different numbers of tokens at the
    case's top_p and temperature: after the temperature its probabilities are 0.52 top_p,
    0.45 top_p, then equal pieces below 0.5 top_p ** 2, in reverse (blind20c-sample-top-p-as-min-p: the
    edit cumsum + probs fitted every input the check ran). None where no such row exists
    here (top_p outside [0.3, 0.86], or a top-k that would cut the row)."""
    q = case.top_p
    if q is None or not 0.3 <= q <= 0.86:
        return None
    rest = 1.0 - 0.97 * q
    pieces = int(rest // (0.5 * q * q)) + 1
    probs = [0.52 * q, 0.45 * q] + [rest / pieces] * pieces
    if case.top_k is not None and case.top_k < len(probs):
        return None
    # least probable first: sorted order is not vocabulary order (order.cumsum parts too)
    return tuple(round(case.temperature * float(torch.tensor(p).log()), 4) for p in probs[::-1])


def _effective_temperature(row: torch.Tensor, case: _SampleCase, matches) -> str | None:
    """The temperature whose distribution (with this case's top-k, if any) the samples
    follow, when it is not the one given (the temperature applied twice, or in another
    way); None when none fits, the given one does, or top-p is given."""
    t = case.temperature
    if t == 1.0 or case.top_p is not None:
        # with top-p, a low temperature and a top-p slip can both keep one token alone
        return None

    def at(value: float) -> torch.Tensor:
        return sample_probabilities_f(row, temperature=value, top_k=case.top_k, top_p=case.top_p)

    if matches(at(t * t)):
        return (
            f"your samples follow the temperature t ** 2 = {t * t:g} (t = {t:g}): the logits "
            "were divided by the temperature twice. Divide them once, before the softmax "
            "(and before top-k and top-p): softmax(logits / temperature)."
        )
    fits = [v for v in (round(0.05 * k, 2) for k in range(1, 201)) if matches(at(v))]
    if fits and all(abs(v - t) > 0.05 for v in fits):
        span = f"{fits[0]:g}" if len(fits) == 1 else f"between {fits[0]:g} and {fits[-1]:g}"
        return (
            f"your samples follow a temperature {span}, not the one given, {t:g}: the "
            "temperature reaches the logits in another way than one division before the "
            "softmax, softmax(logits / temperature)."
        )
    return None


def _overlapping_shift(sample, case: _SampleCase) -> str:
    """For a top-p with no effect: whether its mask is shifted in place over overlapping
    slices (remove[..., 1:] = remove[..., :-1], no .clone()), told by one row alone, where
    PyTorch refuses that copy ("... refer to a single memory location"); on several rows
    the copy reads its own output, and every column gets the first one's False."""
    row = torch.tensor([case.logits], dtype=torch.float32)  # (1, vocab)
    try:
        sample(row, temperature=case.temperature, top_p=case.top_p, generator=_generator(1))
    except RuntimeError as exc:
        if "single memory location" not in str(exc):
            return ""
        return (
            "Your top-p has no effect on a batch of rows, and on one row alone it raises "
            f"PyTorch's RuntimeError ({clip(str(exc), 120)}): the shift of the removal mask "
            "one column to the right is done in place over overlapping slices, "
            "remove[..., 1:] = remove[..., :-1], which reads what it has just written, so "
            "every column gets the first one's False and nothing is removed. Shift a copy: "
            "remove[..., 1:] = remove[..., :-1].clone(), or compare the mass before each "
            "token, (cumsum - probs) >= top_p."
        )
    except Exception:
        return ""
    return ""


# Rows where one nucleus token, the most probable, is all that top_p=0.01 keeps, and where
# the first and the last vocabulary ids are neither the most probable nor of one rank: a
# guard that protects a vocabulary id (drop[..., 0] = False after the mask is scattered
# back to vocabulary order) keeps that id in every row, whatever its rank.
_FIXED_ID_ROWS = (
    (1.0, 2.0, 1.8, 1.5, 0.5, 0.0, -0.5),  # id 0 the 4th most probable, id 6 the last
    (0.5, 1.6, 1.7, 2.0, 1.9, 1.8, 1.5),  # id 0 the least probable, id 6 the 6th
    (1.7, 1.0, 0.8, 0.6, 2.0, 0.4, 1.6),  # id 0 the 2nd, id 6 the 3rd
)
_FIXED_ID_DRAWS = 400


def _fixed_id_kept(sample, case: _SampleCase) -> str:
    """When the tokens drawn outside the nucleus may come from a guard on a vocabulary id:
    with top_p=0.01 (the most probable token alone) on rows where that id has another rank
    in each, whether the learner's sample draws exactly the most probable token and one
    fixed id in every row (blind31c-sample-top-p-guard-on-token-zero: told only which
    token was drawn); the message, or "" when the draws show no such id."""
    rows = torch.tensor(_FIXED_ID_ROWS, dtype=torch.float32)  # (3, V)
    batch = rows.repeat_interleave(_FIXED_ID_DRAWS, dim=0)  # (3 * draws, V)
    try:
        with torch.no_grad():
            got = sample(
                batch.clone(), temperature=1.0, top_p=0.01, generator=_generator(case.seed + 11)
            )
        got = torch.as_tensor(got).reshape(len(rows), _FIXED_ID_DRAWS)
    except Exception:  # a probe: the check's own calls tell errors
        return ""
    extra_ids: set[int] | None = None
    ranks = []
    for row, drawn in zip(rows, got, strict=True):
        top = int(row.argmax())
        seen = set(drawn.tolist())
        if top not in seen:
            return ""
        extra = seen - {top}
        extra_ids = extra if extra_ids is None else extra_ids & extra
        if len(extra) != 1:
            return ""
        ranks.append(row.argsort(descending=True).tolist())
    if not extra_ids or len(extra_ids) != 1:
        return ""
    fixed = extra_ids.pop()
    vocab = rows.shape[-1]
    said = ", ".join(_ordinal(order.index(fixed) + 1) for order in ranks)
    index = "0" if fixed == 0 else "-1" if fixed == vocab - 1 else str(fixed)
    return (
        f"with top_p=0.01 only the most probable token of each row may be drawn, but "
        f"yours also draws token {fixed} in every row of a probe, whatever its rank there "
        f"(the {said} most probable in three rows): the guard that keeps one token protects "
        f"the token whose id is {fixed}, not the first sorted (most probable) one, so top-p "
        f"never removes token {fixed}. A guard written on the mask in vocabulary order, "
        f"drop[..., {index}] = False after scattering it back (or logits[..., {index}] read "
        "as the largest), indexes the vocabulary, not the sorted order: set it on the "
        "sorted mask before scattering, remove_sorted[..., 0] = False."
    )


def _top_token_removed(sample, case: _SampleCase) -> str:
    """A second mistake, with one-too-few top-p's: " Also ..." when a top_p below the most
    probable token's probability removes every token (raises or draws another token)."""
    row = torch.tensor([case.logits], dtype=torch.float32).expand(64, -1).contiguous()
    probs = torch.softmax(row[0].double() / case.temperature, -1)
    top_p = round(float(probs.max()) / 2, 3)
    kwargs: dict[str, Any] = {"temperature": case.temperature, "top_p": top_p}
    try:
        got = sample(row, **kwargs, generator=_generator(case.seed + 7))
        wrong = not isinstance(got, torch.Tensor) or bool((got != probs.argmax()).any())
    except Exception:  # the learner's error: what it says is below
        wrong = True
    if not wrong:
        return ""
    return (
        f" Also: with top_p={top_p}, below the most probable token's own probability "
        f"({float(probs.max()):.2f}), your sample does not return that token alone (it "
        "removes every token, or draws others): the most probable token is always kept, "
        "remove_sorted[..., 0] = False after the rule above."
    )


@dataclass(frozen=True)
class _RowsCase:
    seed: int
    rows: int
    tail: int  # tokens after the two most probable ones
    calls: int
    top_p: float = 0.4


# Two likely tokens (about .3 and .15) and a long tail (about .55): top_p=0.4 keeps the
# two; a row that is not filtered draws from the tail more than half of the time.
_VISIBLE_ROWS = _RowsCase(31, rows=6, tail=30, calls=20)
_HIDDEN_ROWS = _RowsCase(131, rows=9, tail=45, calls=24)


def _sample_rows(c: Checker, sample, case: _RowsCase) -> None:
    """top-p on a batch of different rows (each a permutation of one row): every draw of
    every row within that row's own top-p set, the first row included."""
    tail = torch.linspace(-0.5, 0.5, case.tail)
    likely = torch.tensor([0.3, 0.15]) / 0.55 * case.tail  # tail logits about 0: e^0 each
    base = torch.cat([likely.log(), tail])  # (vocab,)
    generator = _plain_generator(case.seed)
    order = torch.stack([torch.randperm(len(base), generator=generator) for _ in range(case.rows)])
    logits = base[order]  # (rows, vocab): row r holds base[order[r, j]] at column j
    allowed = torch.stack([sample_probabilities_f(row, top_p=case.top_p) > 0 for row in logits])
    call = f"sample(logits ({case.rows}, {len(base)}), top_p={case.top_p}, generator=...)"
    outside: dict[int, list[int]] = {}
    emptied = (
        "probability tensor contains",
        lambda exc: _rows_empty_each_other(sample, logits, allowed, case.top_p),
    )
    for number in range(case.calls):
        got = c.call(
            sample,
            logits,
            top_p=case.top_p,
            generator=_generator(case.seed + number),
            call_repr=call,
            hints=[emptied],
        )
        c.expect_type(got, torch.Tensor, call, "Return a tensor of token ids, one per row.")
        c.expect_shape(got, (case.rows,), call, _per_row_hint(sample, got, case.rows))
        for r in range(case.rows):
            token = int(got[r])
            if not (0 <= token < len(base) and allowed[r, token]):
                outside.setdefault(r, []).append(token)
    if set(outside) == {0}:
        c.fail(f"{call}, {case.calls} calls: {_TOP_P_FIRST_ROW}")
    for r, tokens in outside.items():
        kept = torch.nonzero(allowed[r]).flatten().tolist()
        c.fail(
            f"{call}: row {r} drew token {tokens[0]}, outside its top-p set {kept} (the rows "
            f"are different orders of one row of logits). {_TOP_P_ROWS}"
        )
    c.ok()


_ROW_ZERO_THRESHOLD = (
    "Row 0 drew only from its own top {k} tokens, but the other rows drew outside theirs, "
    "every draw above row 0's k-th largest logit: one threshold, the first row's, for the "
    "whole batch (an .item() or values[0, -1] gives one number). The rows here are shifted by different constants "
    "(which change no probability, so each row keeps the same tokens): each row needs its "
    "own k-th largest logit, torch.topk(logits, k, dim=-1).values[..., -1:], shape "
    "(batch, 1)."
)


_ROW_EMPTIED = (
    "On this batch of different rows, each shifted by its own constant (which changes no "
    "probability: every row keeps its own top {k}), some row lost every token, so its "
    "softmax is NaN, although copies of one row and a batch of one passed. Was one "
    "threshold applied to every row (one row's k-th largest logit as a number, an .item(), "
    "or the whole batch's)? Each row needs its own: torch.topk(logits, k, "
    "dim=-1).values[..., -1:], shape (batch, 1)."
)


def _sample_rows_top_k(c: Checker, sample, case: _RowsCase, top_k: int = 2) -> None:
    """top-k on a batch of different rows whose logits are also shifted by a different
    constant each (row r by 3 r): the softmax and the top-k set of each row do not
    change, but a threshold taken from one row, as a number, fits no other row
    (blind10h-sample-top-k-threshold-row-zero: the rows of every other batch were copies
    or permutations of one row, where one number is every row's threshold)."""
    tail = torch.linspace(-0.5, 0.5, case.tail)
    likely = torch.tensor([0.3, 0.15]) / 0.55 * case.tail
    base = torch.cat([likely.log(), tail])  # (vocab,)
    generator = _plain_generator(case.seed + 7)
    order = torch.stack([torch.randperm(len(base), generator=generator) for _ in range(case.rows)])
    logits = base[order] + 3.0 * torch.arange(case.rows, dtype=torch.float32)[:, None]
    allowed = torch.stack([sample_probabilities_f(row, top_k=top_k) > 0 for row in logits])
    kth0 = torch.topk(logits[0], top_k).values[-1]
    row_zero = logits >= kth0  # (rows, vocab): what row 0's threshold keeps in every row
    call = f"sample(logits ({case.rows}, {len(base)}), top_k={top_k}, generator=...)"
    outside: dict[int, list[int]] = {}
    shared = True
    for number in range(case.calls):
        got = c.call(
            sample,
            logits,
            top_k=top_k,
            generator=_generator(case.seed + 500 + number),
            call_repr=call,
            hints={"probability tensor contains": _ROW_EMPTIED.format(k=top_k)},
        )
        c.expect_type(got, torch.Tensor, call, "Return a tensor of token ids, one per row.")
        c.expect_shape(got, (case.rows,), call, _per_row_hint(sample, got, case.rows))
        for r in range(case.rows):
            token = int(got[r])
            inside = 0 <= token < len(base)
            if not (inside and allowed[r, token]):
                outside.setdefault(r, []).append(token)
            if not (inside and row_zero[r, token]):
                shared = False
    if outside and 0 not in outside and shared:
        c.fail(f"{call}, {case.calls} calls: " + _ROW_ZERO_THRESHOLD.format(k=top_k))
    for r, tokens in outside.items():
        kept = torch.nonzero(allowed[r]).flatten().tolist()
        c.fail(
            f"{call}: row {r} drew token {tokens[0]}, outside its top-{top_k} set {kept} (the "
            "rows are different orders of one row of logits, each shifted by its own "
            "constant). Each row keeps its own top_k largest logits: the k-th largest of each "
            "row, torch.topk(logits, k, dim=-1).values[..., -1:]."
        )
    c.ok()


def _greedy_text(sample, rows: torch.Tensor) -> str:
    """temperature=0.0 divided by zero: whether the int 0 is greedy (blind17b-sample-
    temperature-is-zero: `if temperature is 0:`, an identity test that holds for the int
    only), told by a probe with the int."""
    try:
        with torch.no_grad():
            got = sample(rows.clone(), temperature=0, generator=_generator(1))
        greedy_int = isinstance(got, torch.Tensor) and torch.equal(
            got.long().flatten(), rows.argmax(-1)
        )
    except Exception:  # the probe raises too: the greedy case is missing for both
        greedy_int = False
    if not greedy_int:
        return _GREEDY
    return (
        "With temperature=0, the int, yours returns the argmax, but with 0.0 it divides by "
        "zero: your test of the greedy case holds for the int 0 only. `temperature is 0` "
        "compares identity (the same object), which the float 0.0 is not (nor is a "
        "type test such as isinstance(temperature, int)); compare the value: "
        "`if temperature == 0:`."
    )


#: a (3, 5) probe whose one-number readings all differ: the flattened argmax 8 (row 1,
#: column 3), the argmax of the last column's entries 2 (row 2's 3.0), the first row's
#: argmax 1 and the last row's 0
_SCALAR_PROBE = torch.tensor(
    [[0.0, 5.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 9.0, 2.0], [4.0, 0.0, 0.0, 0.0, 3.0]]
)
_SCALAR_READINGS = {  # {cause: the one number it returns for (batch, vocab) logits}
    (
        " It is the argmax of the flattened logits (the whole batch at once): argmax without "
        "dim (or an .item()) gives one number for the whole batch; take one per row, "
        "logits.argmax(dim=-1)."
    ): lambda logits: logits.argmax(),
    (
        " It is the row whose last vocabulary entry is largest: logits[:, -1] (the last "
        "position's slice, as if sample received the model's (batch, len, vocab) output) "
        "kept only each row's last vocabulary entry, and the argmax ran over the batch. The "
        "logits sample receives are already (batch, vocab), the last position's: take that "
        "slice in the generation loop, and here logits.argmax(dim=-1)."
    ): lambda logits: logits[:, -1].argmax(),
    (
        " It is the first row's token alone: take one per row, logits.argmax(dim=-1) (not "
        "[0] of it, nor an .item())."
    ): lambda logits: logits.argmax(-1)[0],
    (
        " It is the last row's token alone: take one per row, logits.argmax(dim=-1) (not "
        "[-1] of it)."
    ): lambda logits: logits.argmax(-1)[-1],
}


def _one_greedy_number(sample, rows: torch.Tensor, got: torch.Tensor) -> str:
    """Which one-number reading of the (batch, vocab) logits a greedy sample that returned
    a 0-d tensor gives, told on the check's rows and on :data:`_SCALAR_PROBE`, where the
    readings all differ (blind20c-sample-slices-last-position, logits[:, -1] then argmax,
    was told "the argmax of the flattened logits", which the check's two rows could not
    tell apart); every reading that fits both when several do, none when the probe fails."""
    fitting = [
        cause for cause, reading in _SCALAR_READINGS.items() if int(reading(rows)) == int(got)
    ]
    if fitting:
        try:
            with torch.no_grad():
                probe = sample(_SCALAR_PROBE.clone(), temperature=0.0, generator=_generator(1))
            number = int(probe) if isinstance(probe, torch.Tensor) and probe.numel() == 1 else None
        except Exception:  # a probe: any failure means no answer
            number = None
        fitting = [c for c in fitting if int(_SCALAR_READINGS[c](_SCALAR_PROBE)) == number]
    if len(fitting) == 1:
        return fitting[0]
    return (
        " Yours is one number for the whole batch (an argmax without dim, an .item(), or a "
        "slice that dropped the batch axis); take one per row, logits.argmax(dim=-1)."
    )


def check_sample(sample, *, hidden: bool = False) -> None:
    with Checker("sample", hidden=hidden) as c:
        c.require_callable(sample)
        cases = _HIDDEN_SAMPLE if hidden else _VISIBLE_SAMPLE
        # greedy: temperature 0 is the argmax of every row
        rows = torch.tensor([cases[0].logits, tuple(reversed(cases[0].logits))])
        call = f"sample(logits {tuple(rows.shape)}, temperature=0.0, generator=...)"
        got = c.call(
            sample,
            rows,
            temperature=0.0,
            generator=_generator(1),
            call_repr=call,
            hints={
                "probability tensor contains": lambda exc, rows=rows: _greedy_text(sample, rows),
                "division by zero": lambda exc, rows=rows: _greedy_text(sample, rows),
            },
        )
        c.expect_type(got, torch.Tensor, call, "Return a tensor of token ids, one per row.")
        over_batch = (
            " Yours has one entry per vocabulary token: the argmax ran over the batch axis "
            "(dim=0 or dim=-2), not over the vocabulary, logits.argmax(dim=-1)."
            if isinstance(got, torch.Tensor) and tuple(got.shape) == (rows.shape[1],)
            else ""
        )
        if isinstance(got, torch.Tensor) and got.dim() == 0:
            over_batch = _one_greedy_number(sample, rows, got)
        c.expect_shape(got, (2,), call, "One token per row of logits: (batch,)." + over_batch)
        c.expect_equal(got.long(), rows.argmax(-1), call, _GREEDY)
        for case in cases:
            _sample_distribution(c, sample, case)
        _sample_generator_used(c, sample, cases[0].logits)
        _sample_rows(c, sample, _HIDDEN_ROWS if hidden else _VISIBLE_ROWS)
        _sample_rows_top_k(c, sample, _HIDDEN_ROWS if hidden else _VISIBLE_ROWS)
        _sample_one_row(c, sample, cases[0].logits)
        _sample_top_p_zero(c, sample, _FLAT2 if hidden else _FLAT, seed=141 if hidden else 41)
        for number, row in enumerate(_TOP_P_ONE_HIDDEN if hidden else _TOP_P_ONE_VISIBLE):
            _sample_top_p_one(c, sample, row, seed=(142 if hidden else 42) + number)
        _sample_large_logits(c, sample, cases[0].logits, seed=151 if hidden else 51)


def _sample_generator_used(c: Checker, sample, row: tuple[float, ...]) -> None:
    """b12b: draws that follow the right distribution and repeat with generators seeded
    alike, but do not change with the generator's seed (a generator of the learner's own,
    or the given one re-seeded inside sample)."""
    logits = torch.tensor([row]).expand(64, -1).contiguous()
    call = f"sample(logits (64, {len(row)}), temperature=1.0, generator=...)"
    first = c.call(sample, logits, temperature=1.0, generator=_generator(31), call_repr=call)
    second = c.call(sample, logits, temperature=1.0, generator=_generator(32), call_repr=call)
    ignored = generator_ignored(call, "tokens", first, second, (31, 32))
    c.expect_true(not ignored, ignored)


_ONE_ROW = (
    "One token per row of logits, a batch of one included: (1,). Yours lost the batch axis: "
    "a .squeeze() removes every axis of size 1, the batch's too when there is one row (an "
    ".item(), or an argmax without dim, gives one number too); {fix}."
)
_ONE_ROW_FIX = {
    0.0: "the greedy branch is logits.argmax(dim=-1)",
    1.0: "take torch.multinomial(...)[:, 0] (or .squeeze(-1))",
}


def _sample_one_row(c: Checker, sample, row: tuple[float, ...]) -> None:
    """A batch of one row, greedy and sampled: the result keeps its batch axis, (1,)."""
    logits = torch.tensor([row])
    for temperature in (0.0, 1.0):
        call = f"sample(logits (1, {len(row)}), temperature={temperature}, generator=...)"
        got = c.call(
            sample, logits, temperature=temperature, generator=_generator(3), call_repr=call
        )
        c.expect_type(got, torch.Tensor, call, "Return a tensor of token ids, one per row.")
        lost = isinstance(got, torch.Tensor) and got.dim() == 0
        c.expect_shape(
            got,
            (1,),
            call,
            _ONE_ROW.format(fix=_ONE_ROW_FIX[temperature]) if lost else "One token per row: (1,).",
        )


_TOP_P_ZERO_EMPTIED = (
    "With top_p=0.0 the nucleus is the most probable token alone (at least one token is "
    "kept in every row), but your top-p removed every token of the row: the mass before "
    "the first sorted token, 0, already reaches top_p=0.0, and a softmax over logits that "
    "are all -inf is NaN. The guard that keeps the most probable token is missing: after "
    "remove_sorted = before >= top_p, keep the first sorted column, "
    "remove_sorted[..., 0] = False."
)
_TOP_P_ZERO_SKIPPED = (
    "With top_p=0.0 the nucleus is the most probable token alone, but your sample drew "
    "exactly what it draws with top_p=None (the same generator seed): top_p=0.0 was taken "
    "for no top-p. `if top_p:` is False for 0.0 as for None: test `if top_p is not None:`."
)
_TOP_P_ZERO_OTHERS = (
    "With top_p=0.0 the nucleus is the most probable token alone (at least one token is "
    "kept in every row), so every row must give its argmax; yours gave token {token} in row "
    "{row}, whose argmax is {top}. Remove a token only when the mass *before* it reaches "
    "top_p, and always keep the first sorted column, the most probable token "
    "(remove_sorted[..., 0] = False)."
)


def _sample_top_p_zero(c: Checker, sample, row: tuple[float, ...], seed: int) -> None:
    """top_p=0.0: the smallest set whose mass reaches 0 is empty, and the contract keeps
    at least one token, the most probable (b14b: without the guard remove_sorted[..., 0] =
    False every token is removed there, and only there: the mass before the first sorted
    token is 0, below any top_p > 0)."""
    base = torch.tensor(row, dtype=torch.float32)  # (vocab,)
    rows = 16
    logits = torch.stack([base.roll(r) for r in range(rows)])  # (rows, vocab): argmax moves
    call = f"sample(logits ({rows}, {len(row)}), temperature=1.0, top_p=0.0, generator=...)"
    got = c.call(
        sample,
        logits,
        temperature=1.0,
        top_p=0.0,
        generator=_generator(seed),
        call_repr=call,
        hints={"probability tensor contains": _TOP_P_ZERO_EMPTIED},
    )
    c.expect_type(got, torch.Tensor, call, "Return a tensor of token ids, one per row.")
    c.expect_shape(got, (rows,), call, _per_row_hint(sample, got, rows))
    expected = logits.argmax(-1)  # (rows,)
    wrong = torch.nonzero(got.long() != expected).flatten().tolist()
    if not wrong:
        c.ok()
        return
    try:
        unfiltered = sample(logits, temperature=1.0, generator=_generator(seed))
        skipped = isinstance(unfiltered, torch.Tensor) and torch.equal(unfiltered, got)
    except Exception:  # the learner's error: the message below does not rely on it
        skipped = False
    r = wrong[0]
    c.fail(
        f"{call}: "
        + (
            _TOP_P_ZERO_SKIPPED
            if skipped
            else _TOP_P_ZERO_OTHERS.format(token=int(got[r]), row=r, top=int(expected[r]))
        )
    )


# top_p=1.0 on rows whose float32 total of sorted probabilities is exactly 1.0, and just
# below it (0.99999994): a cut that needs a total above (or at) top_p misses on one of them
_TOP_P_ONE_VISIBLE = [_ROW, (0.8, 2.0, -1.1, 1.4, -0.4, 0.1)]
_TOP_P_ONE_HIDDEN = [_FLAT2, (0.9, 0.2, 1.2, 0.6, -0.3, 0.75, 0.0)]

_TOP_P_ONE = (
    "With top_p=1.0 the nucleus is the whole vocabulary (only every token's mass together "
    "reaches 1.0), so nothing is removed and the draws must follow softmax(logits): token "
    "{top}, the most probable, about {top_share:.0%} of the time. {observed} {cause}"
)
_TOP_P_ONE_GREEDY = (
    "Yours drew token {top} in all {draws} draws: at top_p=1.0 only the most probable token "
    "is kept, as if sampling were greedy (while your top_p < 1 cases keep the right tokens)."
)
_TOP_P_ONE_ARGMAX = (
    "A cut found as the first sorted position where a comparison with top_p holds does this, "
    "such as last = (cumsum > top_p).argmax(dim=-1): no cumulative sum exceeds 1.0 (the last "
    "one is 1.0, or just below it after rounding), the comparison is False at every "
    "position, and the argmax of an all-False row is 0, the first position, so only the "
    "most probable token is kept. Decide per token from the mass before it instead: remove "
    "a token when cumsum - sorted_probs >= top_p (and keep the first sorted column), which "
    "needs no index of the cut."
)


def _sample_top_p_one(c: Checker, sample, row: tuple[float, ...], seed: int) -> None:
    """top_p=1.0: the whole vocabulary is the nucleus, so the draws follow softmax(logits)
    (blind23c-sample-top-p-cutoff-from-argmax: the cut taken as (cumsum > top_p).argmax(),
    0 where no cumulative sum exceeds top_p, turned top_p=1.0 greedy and passed)."""
    draws = 4000
    logits = torch.tensor([row], dtype=torch.float32).expand(draws, -1).contiguous()
    call = f"sample(logits {tuple(logits.shape)}, temperature=1.0, top_p=1.0, generator=...)"
    got = c.call(
        sample, logits, temperature=1.0, top_p=1.0, generator=_generator(seed), call_repr=call
    )
    c.expect_type(got, torch.Tensor, call, "Return a tensor of token ids, one per row.")
    c.expect_shape(got, (draws,), call, _per_row_hint(sample, got, draws))
    probs = torch.softmax(logits[0].double(), -1)  # (vocab,)
    frequencies = _frequencies(got, len(row))  # (vocab,)
    gap = (frequencies - probs).abs()
    if bool((gap < 0.04).all()):
        c.ok()
        return
    top = int(probs.argmax())
    drawn = sorted(set(got.flatten().long().tolist()))
    if drawn == [top]:
        observed, cause = _TOP_P_ONE_GREEDY.format(top=top, draws=draws), _TOP_P_ONE_ARGMAX
    else:
        shown = ", ".join(f"{v:.3f}" for v in frequencies.tolist())
        expected = ", ".join(f"{v:.3f}" for v in probs.tolist())
        never = [t for t in range(len(row)) if float(frequencies[t]) == 0.0]
        observed = (
            f"Your draws' frequencies per token are [{shown}], softmax(logits) is "
            f"[{expected}]"
            + (f"; tokens {never} were never drawn, so top_p=1.0 removed them." if never else ".")
        )
        cause = "Check what your top-p removes when top_p is 1.0: it must remove nothing."
    c.fail(
        f"{call}: "
        + _TOP_P_ONE.format(top=top, top_share=float(probs[top]), observed=observed, cause=cause)
    )


#: constants added to every logit by the shift probe: softmax, and so top-k's kept set,
#: does not change with them
_PROBE_SHIFTS = (-10.0, 0.0, 10.0)
#: one more shift puts the k-th largest logit here: below every probability (all kept if
#: compared with them) but above some log-probabilities, which tells those two apart
_KTH_BETWEEN_SCALES = -1.5


def _kept_tokens(sample, row: torch.Tensor, case: _SampleCase, shift: float):
    """The tokens sample draws from row + shift with the case's top-k (a probe of 2000
    rows at temperature 1): a sorted list, or None when it raised."""
    logits = (row.double() + shift).float()[None].expand(2000, -1).contiguous()  # (2000, vocab)
    try:
        with torch.no_grad():
            drawn = sample(logits, temperature=1.0, top_k=case.top_k, generator=_generator(7))
        return sorted(set(torch.as_tensor(drawn).flatten().long().tolist()))
    except Exception:  # a probe: the learner's error means nothing was kept
        return None


def _top_k_shift_probe(sample, row: torch.Tensor, case: _SampleCase) -> str:
    """When top-k removed every token (torch.multinomial's NaN error): whether the tokens
    kept change when one constant is added to every logit, which softmax ignores (the k-th
    largest logit compared with the probabilities, blind23c-sample-top-k-probabilities-
    against-logit, was told an edit that uses top_k as the threshold). The probabilities
    against the logit threshold are named only when they predict every shift's kept set;
    "" when the kept set does not depend on the shift."""
    vocab = row.shape[-1]
    k = min(case.top_k, vocab)
    kth_given = float(torch.topk(row.double(), k).values[-1])
    shifts = sorted({*_PROBE_SHIFTS, round(_KTH_BETWEEN_SCALES - kth_given, 3)})
    kept = {shift: _kept_tokens(sample, row, case, shift) for shift in shifts}
    if len({None if v is None else tuple(v) for v in kept.values()}) < 2:
        return ""

    def said(shift: float) -> str:
        tokens = kept[shift]
        if tokens is None:
            return "removed every token (this error)"
        if len(tokens) == vocab:
            return f"kept all {vocab} tokens"
        return f"kept tokens {tokens}"

    observed = "; ".join(f"with logits {shift:+g} it {said(shift)}" for shift in shifts)
    predicted = {}
    for shift in shifts:
        logits = row.double() + shift
        kth = torch.topk(logits, k).values[-1]
        kept_by_probs = (torch.softmax(logits, -1) >= kth).nonzero().flatten().tolist()
        predicted[shift] = kept_by_probs or None
    mixed = all(predicted[s] == kept[s] for s in shifts)
    return (
        "Adding one constant to every logit changes nothing in softmax(logits), so the "
        f"tokens top-k keeps must not change with it either; yours do: {observed}. "
        + (
            "That is what comparing the probabilities softmax(logits) with the k-th largest "
            "logit gives: a threshold taken on the logits' scale, compared on the "
            "probabilities' (a negative k-th logit keeps every token, one above 1 removes "
            "them all). Compare the logits with it: logits < kth, kth = torch.topk(logits, "
            "k, dim=-1).values[..., -1:]."
            if mixed
            else "Your threshold and what it is compared with are not on the same scale "
            "(a logit and a probability, say): compare the logits with the k-th largest "
            "logit, logits < kth."
        )
    )


def _rows_empty_each_other(
    sample, logits: torch.Tensor, allowed: torch.Tensor, top_p: float
) -> str:
    """When top-p on a batch of different rows removed every token of some row (the NaN
    error) although each row given alone (a batch of one) keeps only its own top-p set:
    the rows are not filtered independently; and when the union of every row's removed
    tokens would leave some row nothing, that union is named as what fits
    (blind21c-sample-top-p-removal-shared-by-rows, logits[:, order[remove_sorted]], was
    told the error alone); "" when a row alone is wrong too."""
    rows = logits.shape[0]
    try:
        with torch.no_grad():
            for r in range(rows):
                for number in range(4):
                    drawn = sample(logits[r : r + 1], top_p=top_p, generator=_generator(number))
                    token = int(torch.as_tensor(drawn).flatten()[0])
                    if not (0 <= token < logits.shape[1] and bool(allowed[r, token])):
                        return ""
    except Exception:  # a row alone fails too: not a batch problem
        return ""
    removed_anywhere = (~allowed).any(dim=0)  # (vocab,): removed by some row
    left = (allowed & ~removed_anywhere).any(dim=-1)  # (rows,): kept by the union rule
    union = (
        " The union of the batch's removed tokens fits: here it covers every token some row "
        f"keeps (row {int((~left).nonzero()[0])} keeps {allowed[int((~left).nonzero()[0])].nonzero().flatten().tolist()}), "
        "so that row is left with nothing. Indexing with one flat list of every row's "
        "removed ids does this, such as logits[:, order[remove_sorted]] = -inf "
        "(order[remove_sorted] flattens the rows), right only for a batch of one."
        if not bool(left.all())
        else ""
    )
    return (
        "Each row given alone (a batch of one, logits[r:r+1]) keeps its own top-p set, but "
        f"with these {rows} different rows together some row lost every token: the rows "
        "are not filtered independently, a row loses tokens other rows remove."
        + union
        + " Map each row's removal back to its own row: remove_sorted.scatter(-1, order, "
        "remove_sorted), then masked_fill."
    )


#: added to every logit of a row that sample already draws right: a softmax ignores it,
#: but exp(logit) overflows float32 (exp(88.7) is about 3.4e38, its largest number)
_LARGE_SHIFT = 100.0
#: a shift whose exponentials still fit float32 (exp(52) is about 4e22): right here and
#: wrong at _LARGE_SHIFT tells an overflow from a mistake of any size
_FITTING_SHIFT = 50.0
_LARGE_OVERFLOW = (
    "{call}: every logit is {shift:g} larger than in a row your sample draws right. A "
    "softmax ignores a constant added to a whole row, softmax(z + c) = softmax(z), so the "
    "draws must follow the same probabilities, {expected}, but {observed}. Shifted by "
    "{fits:g} instead (largest logit {fits_top:.1f}) your draws are right: an exponential "
    "of large logits overflows. exp(z) is inf in float32 once z passes about 88.7, and "
    "inf / inf is NaN. Probabilities computed by hand as exp(z) / exp(z).sum() (in the "
    "final draw or in the top-p filter) do this; subtract each row's maximum first, "
    "z - z.max(dim=-1, keepdim=True).values, or use torch.softmax(z, dim=-1), which does."
)
_LARGE_OTHER = (
    "{call}: every logit is {shift:g} larger than in a row your sample draws right. A "
    "softmax ignores a constant added to a whole row, softmax(z + c) = softmax(z), so the "
    "draws must follow the same probabilities, {expected}, but {observed}. Your "
    "probabilities depend on the size of the logits, not only on their differences: "
    "compute them with torch.softmax(z, dim=-1) on the tempered, filtered logits."
)


def _large_logits_draw(sample, logits: torch.Tensor, top_p: float | None, seed: int):
    """The learner's draws on logits (rows, vocab), or the exception they raised."""
    try:
        return sample(logits, temperature=1.0, top_p=top_p, generator=_generator(seed))
    except Exception as exc:  # the learner's error, reported by the caller
        return exc


def _drawn_right(got: Any, expected: torch.Tensor, draws: int) -> bool:
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != (draws,):
        return False
    if got.is_floating_point() or got.min() < 0 or got.max() >= len(expected):
        return False
    bound = 6 * (expected * (1 - expected) / draws).sqrt() + 1e-3
    return bool(((_frequencies(got, len(expected)) - expected).abs() <= bound).all())


def _sample_large_logits(c: Checker, sample, row: tuple[float, ...], seed: int) -> None:
    """A row the checks above drew right, every logit raised by _LARGE_SHIFT: the draws
    follow the same distribution (blind26c: exp(logits) / exp(logits).sum() by hand is
    inf / inf = NaN once a logit passes about 88.7, where torch.softmax subtracts the
    row's maximum). A fit at _FITTING_SHIFT tells the overflow apart."""
    draws = 2000
    base = torch.tensor(row, dtype=torch.float32)  # (vocab,)
    for top_p in (None, 0.8):
        expected = sample_probabilities_f(base, temperature=1.0, top_k=None, top_p=top_p)
        knobs = "" if top_p is None else f", top_p={top_p}"
        call = (
            f"sample(logits ({draws}, {len(row)}) all between "
            f"{float(base.min()) + _LARGE_SHIFT:.1f} and {float(base.max()) + _LARGE_SHIFT:.1f}, "
            f"temperature=1.0{knobs}, generator=...)"
        )
        large = (base + _LARGE_SHIFT).expand(draws, -1).contiguous()  # (draws, vocab)
        got = _large_logits_draw(sample, large, top_p, seed)
        if _drawn_right(got, expected, draws):
            continue
        fitting = (base + _FITTING_SHIFT).expand(draws, -1).contiguous()  # (draws, vocab)
        fits = _drawn_right(_large_logits_draw(sample, fitting, top_p, seed), expected, draws)
        if isinstance(got, Exception):
            observed = f"your sample raised {type(got).__name__}: {clip(str(got), 160)}"
        elif isinstance(got, torch.Tensor) and tuple(got.shape) == (draws,):
            observed = "yours are drawn in the proportions " + _proportions(
                _frequencies(got, len(row))
            )
        else:
            observed = f"yours returned {clip(repr(got), 80)}"
        text = _LARGE_OVERFLOW if fits else _LARGE_OTHER
        c.fail(
            text.format(
                call=call,
                shift=_LARGE_SHIFT,
                expected=_proportions(expected),
                observed=observed,
                fits=_FITTING_SHIFT,
                fits_top=float(base.max()) + _FITTING_SHIFT,
            )
        )
        return
    c.ok()


def _proportions(probs: torch.Tensor) -> str:
    return "[" + ", ".join(f"{float(p):.2f}" for p in probs) + "]"
