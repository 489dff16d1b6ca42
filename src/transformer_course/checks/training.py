"""Checks for lesson 10: batches for teacher forcing, the learning-rate schedule, label
smoothing, one training step, beam search, translation scores, and two questions.

Objects that the learner's code receives (a model, an optimizer, a loss function) are
made with :func:`transformer_course.checking.objects.course_object` and
:func:`~transformer_course.checking.objects.course_function`, and read afterwards only
through ``state_dict()``, ``.training`` and the parameters' ``.grad``. Models have
dropout 0, so every expected value is computed exactly, from the same state, by the
course's reference.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable

import numpy as np
import sacrebleu
import torch
import torch.nn.functional as F

from transformer_course import translation
from transformer_course.checking import Checker, numpy_rng, short, tolerance, torch_generator
from transformer_course.checking.objects import ParametersOf, course_function, course_object
from transformer_course.checking.oracles import label_smoothing_f
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.exercise import Exercise
from transformer_course.reference import training as ref
from transformer_course.reference.transformer import Transformer, greedy_decode

# check functions, and the cases, models and expected values they run (public, so that
# the lesson's tests can prove what the checks rely on)
__all__ = [
    "BEAM_VOCAB",
    "STEP_VOCAB",
    "beam_cases",
    "beam_model",
    "check_beam_search",
    "check_label_smoothed_loss",
    "check_make_batches",
    "check_noam_lr",
    "check_quiz_loss_floor",
    "check_quiz_teacher_forcing",
    "check_train_step",
    "check_translation_scores",
    "copy_model",
    "smoothed_cross_entropy",
    "smoothing_cases",
    "step_batches",
    "step_model",
]


def _spanish_references(count: int, seed: int) -> list[list[str]]:
    """Every correct Spanish translation of ``count`` sentences of the lesson's generated
    corpus (one list per sentence; their lengths differ)."""
    corpus = translation.make_corpus(
        num_train=count, num_validation=0, num_test=0, num_combinations=0, num_longer=0, seed=seed
    )
    return corpus.references_of(corpus.train)


def _is_tensor(value) -> bool:
    return isinstance(value, torch.Tensor)


def _number(c: Checker, value, what: str, hint: str) -> float:
    """A plain real number (a Python or numpy float or int, not a bool, tensor or array)."""
    if _is_tensor(value) or isinstance(value, np.ndarray):
        c.fail(f"{what} returned a {type(value).__name__} ({short(value)}). {hint}")
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        extra = " Did you forget the `return` statement?" if value is None else ""
        c.fail(f"{what} should return a float, but it returned {short(value)}.{extra}")
    c.ok()
    return float(value)


# =================================================================== make_batches
_FIELDS = ("src", "decoder_input", "labels")
_KEYS_HINT = (
    'A batch is a tuple (src, decoder_input, labels) or a dict with exactly the keys "src", '
    '"decoder_input" and "labels" (the training loop reads them by these names).'
)
_NO_SHIFT = (
    "Your labels are the same as your decoder input. Then the token the model must predict "
    "at position t is the very token it reads at position t, which the look-ahead mask lets "
    "it see: it would learn to copy, not to translate. Shift by one: decoder_input = "
    "[<bos>] + target, labels = target + [<eos>], so that position t reads the tokens up to "
    "t and is asked for token t + 1."
)
_SWAPPED = (
    "Your decoder input and labels are swapped: decoder_input should start with <bos> "
    "(it is what the decoder reads, starting from <bos> as at translation time), and labels "
    "should end with <eos> (what it must predict, ending with the signal to stop)."
)
_EOS_AS_START = (
    "Your decoder input starts with <eos> instead of <bos>. Some models (BART, Marian) "
    "do start the decoder with <eos>, but this course's decoders, greedy_decode and "
    "beam_search, start from <bos> (bos_id): train the model the way it will be used."
)
_EOS_FED = (
    "<eos> is fed to the decoder as an input: your decoder input is [<bos>] + target + "
    "[<eos>]. <eos> is the last thing the model outputs; it never needs to read it, since "
    "nothing comes after it. That extra position has no label to predict (or a wrong one), "
    "and every batch carries a useless column. The decoder input is [<bos>] + target "
    "(one token shorter than target + <bos> + <eos>), the labels target + [<eos>]."
)
_NO_EOS_LABEL = (
    "Your labels have no <eos>: labels should be target + [<eos>]. Without <eos> among the "
    "labels the model never learns to stop, and at translation time it rambles on until "
    "max_len."
)
_NO_BOS = (
    "Your decoder input does not start with <bos>: it should be [<bos>] + target. At "
    "translation time the decoder starts from <bos> alone and predicts the first word from "
    "it; in training, the first position must read <bos> and be asked for the first word."
)
MINUS_100 = (
    "Your labels are padded with -100 (Hugging Face's 'ignore this label' value). In this "
    "course the loss skips labels equal to pad_id (label_smoothed_loss(..., pad_id) and "
    "F.cross_entropy(..., ignore_index=pad_id)); -100 is not a valid token id and would "
    "crash the loss. Pad labels with pad_id."
)
_LEFT_PADDED = (
    "Your rows are padded on the left. Pad on the right (lesson 01's pad_batch does): "
    "the positional encoding gives the first word of every sentence position 0, and the "
    "decoder's teacher forcing lines up decoder_input[t] with labels[t] from the start."
)


def _hardcoded(got: list[int], expected: list[int], ids: dict[str, int]) -> str:
    """A note when a row would be right with some of the course's default special ids."""
    defaults = {"pad_id": 0, "bos_id": 2, "eos_id": 3}
    differing = [name for name in ids if ids[name] != defaults[name]]
    for size in range(1, len(differing) + 1):
        for names in itertools.combinations(differing, size):
            swap = {ids[name]: defaults[name] for name in names}
            if [swap.get(t, t) for t in expected] == got:
                passed = ", ".join(f"{n}={ids[n]}" for n in names)
                return (
                    f"It would be right with lesson 01's ids (<pad>=0, <bos>=2, <eos>=3), but "
                    f"this call passed {passed}: use the arguments, not the constants."
                )
    return ""


def _as_batches(c: Checker, got, what: str) -> list[tuple[torch.Tensor, ...]]:
    """The learner's batches as (src, decoder_input, labels) int64 tensors."""
    if got is None:
        c.fail(f"{what} returned None. Did you forget the `return` statement?")
    if isinstance(got, dict) or (
        isinstance(got, tuple) and len(got) == 3 and all(_is_tensor(x) for x in got)
    ):
        c.fail(
            f"{what} returned a single batch; it should return a list of batches (one per "
            "batch_size pairs), even when there is only one."
        )
    if _is_tensor(got) or isinstance(got, np.ndarray | str):
        c.fail(f"{what} should return a list of batches, but it returned {short(got)}.")
    try:
        batches = list(got)
    except TypeError:
        c.fail(f"{what} should return a list of batches, but it returned {short(got)}.")
    if not isinstance(got, list | tuple):
        c.note("make_batches returned an iterator rather than a list; that works here.")
    out = []
    for number, batch in enumerate(batches):
        name = f"batch {number} of {what}"
        if isinstance(batch, dict):
            if set(batch) != set(_FIELDS):
                c.fail(f"{name} is a dict with the keys {sorted(batch)}. {_KEYS_HINT}")
            fields = [batch[key] for key in _FIELDS]
        elif isinstance(batch, tuple | list) and len(batch) == 3:
            fields = list(batch)
        else:
            c.fail(f"{name} is {short(batch, 120)}. {_KEYS_HINT}")
        converted = []
        for field_name, value in zip(_FIELDS, fields):
            label = f"{field_name} of {name}"
            if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.integer):
                value = torch.from_numpy(np.ascontiguousarray(value))
            elif isinstance(value, list):
                c.fail(
                    f"{label} is a list; make it a 2-D tensor padded with pad_id "
                    "(lesson 01's pad_batch, then torch.from_numpy or torch.tensor)."
                )
            if not _is_tensor(value):
                c.fail(f"{label} should be a 2-D integer tensor, but it is {short(value)}.")
            if value.dtype.is_floating_point or value.dtype == torch.bool:
                c.fail(
                    f"{label} has dtype {value.dtype}; token ids are integers "
                    "(torch.int64: create it with dtype=torch.long)."
                )
            if value.dim() != 2:
                c.fail(
                    f"{label} should be 2-D (batch, len), but it has shape {tuple(value.shape)}."
                )
            if value.dtype != torch.int64:
                c.note(
                    f"the fields are {value.dtype}; nn.Embedding and the loss want int64 "
                    "(torch.long), which batch_fields converts to."
                )
            converted.append(value.long())
        out.append(tuple(converted))
    c.ok()
    return out


def _rows(tensor: torch.Tensor) -> list[list[int]]:
    return tensor.tolist()


def _strip(row: list[int], pad_id: int) -> list[int]:
    end = len(row)
    while end and row[end - 1] == pad_id:
        end -= 1
    return row[:end]


def _src_form(row: list[int], source: list[int], bos: int, eos: int) -> str | None:
    forms = {"plain": source, "eos": [*source, eos], "bos+eos": [bos, *source, eos]}
    return next((name for name, form in forms.items() if row == form), None)


def _check_rows(c: Checker, batch, chunk, ids: dict[str, int], what: str, src_forms: set):
    """One batch against its pairs, row by row, with a diagnosis for each known mistake."""
    pad, bos, eos = ids["pad_id"], ids["bos_id"], ids["eos_id"]
    src, decoder_input, labels = batch
    for field_name, tensor in zip(_FIELDS, batch):
        if tensor.shape[0] != len(chunk):
            c.fail(
                f"{field_name} of {what} has {tensor.shape[0]} rows, but the batch should "
                f"hold {len(chunk)} pairs (one row per pair)."
            )
    if (labels == -100).any():
        c.fail(f"{what}: {MINUS_100}")
    width = max(len(target) for _, target in chunk) + 1
    for i, (source, target) in enumerate(chunk):
        d_raw, l_raw, s_raw = _rows(decoder_input)[i], _rows(labels)[i], _rows(src)[i]
        for name, raw in (("src", s_raw), ("decoder_input", d_raw), ("labels", l_raw)):
            if raw and raw[0] == pad and any(t != pad for t in raw):
                c.fail(f"in {what}, row {i} of {name} is {raw}. {_LEFT_PADDED}")
        d, lab, s = _strip(d_raw, pad), _strip(l_raw, pad), _strip(s_raw, pad)
        want_d, want_l = [bos, *target], [*target, eos]
        shown = f"for the pair (source {list(source)}, target {list(target)})"
        form = _src_form(s, list(source), bos, eos)
        if form is None:
            hint = _hardcoded(s_raw[: len(s)], s, ids) or _hardcoded(s_raw, s_raw, ids)
            c.fail(
                f"in {what}, src row {i} is {s_raw} {shown}. It should hold the source ids, "
                f"padded with pad_id={pad} on the right: {list(source)}, or with markers, "
                f"{[*source, eos]} or {[bos, *source, eos]}. {hint}".strip()
            )
        src_forms.add(form)
        if len(src_forms) > 1:
            c.fail(
                f"in {what}, some source rows carry <bos>/<eos> markers and others do not "
                f"({sorted(src_forms)}): pick one form and use it for every row."
            )
        annotated = d == [*want_d, eos] and len(want_d) < width  # eos where the label is pad
        if lab == want_l and (d == want_d or annotated):
            continue
        pair = f"{shown}, row {i} has decoder_input {d_raw} and labels {l_raw}"
        if d == lab:
            c.fail(f"in {what}, {pair}. {_NO_SHIFT}")
        if d == want_l and lab == want_d:
            c.fail(f"in {what}, {pair}. {_SWAPPED}")
        if d and d[0] == eos and d[1:] == target:
            c.fail(f"in {what}, {pair}. {_EOS_AS_START}")
        if d == [*want_d, eos]:
            c.fail(f"in {what}, {pair}. {_EOS_FED}")
        if d == want_d and lab == list(target):
            c.fail(f"in {what}, {pair}. {_NO_EOS_LABEL}")
        if d in (list(target), [*target, eos]):
            c.fail(f"in {what}, {pair}. {_NO_BOS}")
        hint = _hardcoded(d_raw, [*want_d, *[pad] * (len(d_raw) - len(want_d))], ids)
        hint = hint or _hardcoded(l_raw, [*want_l, *[pad] * (len(l_raw) - len(want_l))], ids)
        c.fail(
            f"in {what}, {pair}; expected decoder_input {want_d} and labels {want_l} "
            f"(then pad_id={pad} up to the batch's longest row). {hint}".strip()
        )
    if decoder_input.shape != labels.shape:
        c.fail(
            f"in {what}, decoder_input has shape {tuple(decoder_input.shape)} and labels "
            f"{tuple(labels.shape)}: they must have the same shape, because labels[:, t] is "
            "what the decoder should predict after reading decoder_input[:, :t + 1]."
        )
    for name, tensor in (("decoder_input", decoder_input), ("labels", labels)):
        extra = tensor.shape[1] - width
        if extra > 0:
            c.note(
                f"{name} is padded {extra} column(s) beyond the batch's longest row; that "
                "works, but each batch needs only its own longest row."
            )
    c.ok()


def _visible_batch_cases():
    standard = {"pad_id": 0, "bos_id": 2, "eos_id": 3}
    pairs = [
        ([4, 5, 6], [7, 8]),
        ([9], [10, 11, 12]),
        ([5, 6], [8]),
        ([4, 4, 9, 5], [7, 12]),
        ([6], [9, 10]),
    ]
    # Unusual special ids; 0, 2 and 3 are ordinary tokens here.
    unusual = {"pad_id": 9, "bos_id": 7, "eos_id": 8}
    pairs_unusual = [([0, 2, 3, 1], [3, 0]), ([5], [2, 1, 4, 0]), ([1, 1], [6])]
    return [(pairs, 2, standard), (pairs_unusual, 3, unusual)]


def _random_pairs(rng: np.random.Generator, n: int, ids: dict[str, int], max_len: int = 9):
    ordinary = [t for t in range(20) if t not in ids.values()]

    def sentence():
        return [int(t) for t in rng.choice(ordinary, size=int(rng.integers(1, max_len + 1)))]

    pairs, seen = [], set()
    while len(pairs) < n:
        pair = (sentence(), sentence())
        key = (tuple(pair[0]), tuple(pair[1]))
        if key not in seen:
            seen.add(key)
            pairs.append(pair)
    return pairs


def _hidden_batch_cases():
    rng = numpy_rng(1001)
    cases = []
    for n, batch_size, ids in (
        (37, 8, {"pad_id": 0, "bos_id": 2, "eos_id": 3}),
        (12, 5, {"pad_id": 4, "bos_id": 11, "eos_id": 1}),
        (6, 10, {"pad_id": 0, "bos_id": 2, "eos_id": 3}),  # one batch, smaller than batch_size
        (5, 1, {"pad_id": 3, "bos_id": 0, "eos_id": 2}),
    ):
        cases.append((_random_pairs(rng, n, ids), batch_size, ids))
    return cases


def _expect_batches(c, make_batches, pairs, batch_size, ids, src_forms, **extra):
    arguments = ", ".join(f"{k}={v}" for k, v in {**ids, **extra}.items())
    what = f"make_batches(pairs, batch_size={batch_size}, {arguments})"
    got = c.call(
        make_batches,
        pairs,
        batch_size,
        call_repr=what,
        mutation_hint="Build new lists ([bos_id, *target], [*target, eos_id]) instead of "
        "calling .append/.insert on the targets you were given.",
        **ids,
        **extra,
    )
    return _as_batches(c, got, what), what


def _check_order_free(c, batches, pairs, batch_size, ids, what, src_forms) -> list[int]:
    """Shuffled batches: every pair exactly once, each row right; returns the pair order."""
    lookup = {(tuple(s), tuple(t)): i for i, (s, t) in enumerate(pairs)}
    order = []
    pad, eos = ids["pad_id"], ids["eos_id"]
    sizes = [batch[0].shape[0] for batch in batches]
    for number, batch in enumerate(batches):
        chunk = []
        for row in range(batch[0].shape[0]):
            labels = _strip(_rows(batch[2])[row], pad)
            target = tuple(labels[:-1]) if labels and labels[-1] == eos else None
            source = _strip(_rows(batch[0])[row], pad)
            for candidate in (source, source[:-1], source[1:-1]):
                if (tuple(candidate), target) in lookup:
                    index = lookup[(tuple(candidate), target)]
                    break
            else:
                c.fail(
                    f"{what}: row {row} of batch {number} (src {source}, labels {labels}) "
                    "is not one of the pairs, in any of the accepted forms. Check the "
                    "batches with shuffle=False first."
                )
            order.append(index)
            chunk.append(pairs[index])
        _check_rows(c, batch, chunk, ids, f"batch {number} of {what}", src_forms)
    if sorted(order) != list(range(len(pairs))):
        missing = len(set(range(len(pairs))) - set(order))
        c.fail(
            f"{what}: with shuffle=True every pair must be used exactly once; "
            f"{missing} pair(s) are missing and {len(order) - len(set(order))} repeated. "
            "Shuffle a list of indices (or a copy of the pairs), then cut it into batches."
        )
    full = len(pairs) // batch_size
    expected = [batch_size] * full + ([len(pairs) % batch_size] if len(pairs) % batch_size else [])
    if sorted(sizes, reverse=True) != expected:
        c.fail(
            f"{what}: the batches hold {sizes} pairs; every batch should hold batch_size="
            f"{batch_size} pairs, except one smaller batch for the rest."
        )
    c.ok()
    return order


def check_make_batches(make_batches, *, hidden: bool = False) -> None:
    """make_batches(pairs, batch_size, *, pad_id, bos_id, eos_id, shuffle, seed) -> batches."""
    with Checker("make_batches", hidden=hidden) as c:
        c.require_callable(make_batches)
        cases = _hidden_batch_cases() if hidden else _visible_batch_cases()
        src_forms: set = set()
        for pairs, batch_size, ids in cases:
            batches, what = _expect_batches(
                c, make_batches, pairs, batch_size, ids, src_forms, shuffle=False
            )
            expected = [pairs[i : i + batch_size] for i in range(0, len(pairs), batch_size)]
            if len(batches) != len(expected):
                used = sum(batch[0].shape[0] for batch in batches)
                if len(batches) == len(expected) - 1 and used == batch_size * len(batches):
                    c.fail(
                        f"{what} returned {len(batches)} batches for {len(pairs)} pairs: the "
                        f"last {len(pairs) - used} pairs are missing. Keep the last, smaller "
                        "batch (range(0, len(pairs), batch_size) visits every start)."
                    )
                c.fail(
                    f"{what} returned {len(batches)} batches (holding {used} pairs); "
                    f"{len(pairs)} pairs in batches of {batch_size} make {len(expected)}."
                )
            rows = [_strip(r, ids["pad_id"]) for batch in batches for r in _rows(batch[2])]
            wanted = [[*t, ids["eos_id"]] for _, t in pairs]
            if sorted(map(tuple, rows)) == sorted(map(tuple, wanted)) and rows != wanted:
                c.fail(
                    f"{what}: the batches hold the right pairs, in another order. With "
                    "shuffle=False keep the order of `pairs`: batch 0 holds the first "
                    "batch_size pairs, and so on (no sorting by length)."
                )
            for number, (batch, chunk) in enumerate(zip(batches, expected)):
                _check_rows(c, batch, chunk, ids, f"batch {number} of {what}", src_forms)
        # Shuffling: any order, each pair once; the same seed gives the same order.
        rng = numpy_rng(2002 if hidden else 2001)
        ids = {"pad_id": 0, "bos_id": 2, "eos_id": 3}
        pairs = _random_pairs(rng, 41 if hidden else 23, ids)
        batch_size = 6 if hidden else 5
        seeds = (11, 12) if hidden else (3, 4)
        orders = []
        for seed in (seeds[0], seeds[0], seeds[1]):
            batches, what = _expect_batches(
                c, make_batches, pairs, batch_size, ids, src_forms, shuffle=True, seed=seed
            )
            orders.append(_check_order_free(c, batches, pairs, batch_size, ids, what, src_forms))
        if orders[0] == list(range(len(pairs))):
            c.fail(
                f"make_batches(..., shuffle=True, seed={seeds[0]}) kept the pairs in their "
                "original order: shuffle=True should put them in a random order first, so "
                "that every epoch sees the batches in a different order and mix."
            )
        if orders[0] != orders[1]:
            c.fail(
                f"two calls of make_batches(..., shuffle=True, seed={seeds[0]}) gave different "
                "orders. The same seed must give the same order: draw the order from a "
                "generator seeded with `seed` (torch.Generator().manual_seed(seed), "
                "random.Random(seed) or np.random.default_rng(seed)), not from the global "
                "random stream."
            )
        if orders[0] == orders[2]:
            c.fail(
                f"seed={seeds[0]} and seed={seeds[1]} gave the same order: the order must "
                "depend on `seed` (the training loop passes a new seed every epoch, so that "
                "each epoch sees the data in a new order)."
            )
        c.ok()


# ========================================================================= noam_lr
def _noam(step, d_model, warmup):
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


_NOAM_MISTAKES: dict[str, Callable[[int, int, int], float]] = {
    "You used warmup ** -0.5 in the warm-up branch; the paper has step * warmup ** -1.5, "
    "which is what makes the two branches meet at step == warmup.": lambda s, d, w: (
        d**-0.5 * min(s**-0.5, s * w**-0.5)
    ),
    "You took the max of the two branches; the paper takes the min: the rate is the "
    "rising line while step < warmup and the falling 1/sqrt(step) curve after it.": lambda s, d, w: (
        d**-0.5 * max(s**-0.5, s * w**-1.5)
    ),
    "The factor d_model ** -0.5 is missing (the rates are sqrt(d_model) times too "
    "large).": lambda s, d, w: min(s**-0.5, s * w**-1.5),
    "You multiplied by d_model ** 0.5 instead of d_model ** -0.5: a wider model gets a "
    "smaller learning rate, not a larger one.": lambda s, d, w: d**0.5 * min(s**-0.5, s * w**-1.5),
    "Your values are the paper's for step + 1: steps count from 1 (the first optimizer "
    "step is step 1), so do not add 1 to `step`.": lambda s, d, w: _noam(s + 1, d, w),
    "Your values are the paper's for step - 1: steps already count from 1.": lambda s, d, w: _noam(
        max(s - 1, 1), d, w
    ),
    "There is no warm-up: the rate starts at its largest value and only decays. For the "
    "first `warmup` steps it should grow linearly, step * warmup ** -1.5.": lambda s, d, w: (
        d**-0.5 * s**-0.5
    ),
}


def check_noam_lr(noam_lr, *, hidden: bool = False) -> None:
    """noam_lr(step, d_model, warmup) -> float, the schedule of section 5.3."""
    with Checker("noam_lr", hidden=hidden) as c:
        c.require_callable(noam_lr)
        if hidden:
            rng = numpy_rng(3001)
            cases = [
                (int(d), int(w), sorted({1, int(w), int(w) + 1, *rng.integers(1, 50 * w, 6)}))
                for d, w in ((256, 1000), (96, 50), (1024, 8000), (20, 3))
            ]
        else:
            cases = [
                (512, 4000, [1, 2, 100, 3999, 4000, 4001, 10_000, 100_000]),
                (64, 200, [1, 50, 199, 200, 201, 1_000, 5_000]),
            ]
        for d_model, warmup, steps in cases:
            got = []
            for step in steps:
                value = c.call(noam_lr, step, d_model, warmup)
                got.append(
                    _number(
                        c,
                        value,
                        f"noam_lr({step}, {d_model}, {warmup})",
                        "Return a Python float (float(x) or x.item()): the training loop sets "
                        "the optimizer's learning rate to it.",
                    )
                )
            what = f"noam_lr(step, d_model={d_model}, warmup={warmup}) for step in {steps}"
            c.expect_close(
                np.array(got),
                np.array([_noam(s, d_model, warmup) for s in steps]),
                what,
                rtol=1e-6,
                atol=1e-12,
                mistakes={
                    message: np.array([wrong(s, d_model, warmup) for s in steps])
                    for message, wrong in _NOAM_MISTAKES.items()
                },
                hint="lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5).",
            )
            # Step 0: before the first step. 0.0 (the formula's limit) or lr(1) are accepted.
            what = f"noam_lr(0, {d_model}, {warmup})"
            value = c.call(
                noam_lr,
                0,
                d_model,
                warmup,
                call_repr=what,
                hints={
                    "ZeroDivisionError": "At step 0, 0 ** -0.5 divides by zero. Steps count "
                    "from 1, but the function should not crash before the first step: return "
                    "0.0 there (or the value of step 1, using max(step, 1))."
                },
            )
            value = _number(c, value, what, "Return a Python float.")
            first = _noam(1, d_model, warmup)
            if not (
                value == 0.0 or (math.isfinite(value) and math.isclose(value, first, rel_tol=1e-6))
            ):
                c.fail(
                    f"{what} returned {short(value)}. Before the first step, return 0.0 or the value "
                    f"of step 1 ({first:.6g}); the formula itself gives 0 ** -0.5 = inf there."
                )
            c.ok()


# ============================================================ label_smoothed_loss
def smoothed_cross_entropy(logits, labels, pad_id, smoothing=0.1):
    """The course's loss for checks that need one: PyTorch's own, on any leading shape.

    A module-level function, so that a check can hand it to learner code as a course
    object (course_function) that the sandboxed grader can rebuild.
    """
    return F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]),
        labels.reshape(-1),
        ignore_index=pad_id,
        label_smoothing=smoothing,
    )


_SMOOTHING_MESSAGES = {
    "fairseq": "You put 1 - ε on the target and spread ε over the V - 1 other tokens (ε/(V-1) "
    "each; fairseq's definition). The contract is PyTorch's (F.cross_entropy's "
    "label_smoothing): ε is spread over all V tokens, the target included, so the target "
    "gets 1 - ε + ε/V and every other token ε/V.",
    "annotated_kl": "This is the Annotated Transformer's LabelSmoothing: a KL divergence, "
    "with ε/(V-2) on every token except the target and <pad> (whose column is zeroed). The "
    "contract is PyTorch's definition: the cross-entropy, with ε spread over all V tokens "
    "(the target included, <pad> too): q = (1 - ε)·one_hot(y) + ε/V.",
    "annotated_ce": "You spread ε over V - 2 tokens (all but the target and <pad>), as the "
    "Annotated Transformer and OpenNMT do. The contract is PyTorch's: ε spread over all V "
    "tokens, the target (and <pad>) included: q = (1 - ε)·one_hot(y) + ε/V.",
    "kl": "You computed the KL divergence KL(q ‖ p) instead of the cross-entropy "
    "-Σ q log p. They differ by the entropy of q, a constant: same gradients, different "
    "value (the KL can reach 0, the cross-entropy cannot). The contract, like "
    "F.cross_entropy, asks for the cross-entropy.",
    "no_smoothing": "This is the plain cross-entropy: the smoothing is missing. Mix the "
    "target's -log p[y] with the mean of -log p over all V tokens: "
    "(1 - ε)·(-log p[y]) + ε·mean_j(-log p[j]).",
    "others_only": "You spread ε/V over the other tokens only and gave the target 1 - ε: "
    "that target distribution sums to 1 - ε/V, not 1. In PyTorch's definition the target "
    "gets its share too: q[y] = 1 - ε + ε/V.",
    "target_only": "Only the (1 - ε)·(-log p[y]) part is there: the ε·mean_j(-log p[j]) part, "
    "which is what pulls the model away from over-confidence, is missing.",
    "pad_denominator": "You left the pad positions out of the sum but not out of the "
    "count: the mean divides by every position, pad included (as "
    "loss.masked_fill(pad, 0).mean() does), so the more padding a batch has, the smaller "
    "its loss. Divide by the number of positions whose label is not pad_id.",
    "with_pad": "The padding is not ignored: your mean includes the positions whose label is "
    "pad_id. Average only over the positions where labels != pad_id.",
    "sum": "You summed over the tokens; the contract asks for the mean over the non-pad "
    "positions (so that the loss does not grow with the batch size or the sentence length).",
    "per_batch": "You divided the sum by the number of sentences (the batch size); divide by "
    "the number of non-pad tokens instead: the mean over the positions whose label is not "
    "pad_id.",
    "mean_of_means": "You averaged each sentence's tokens, then the sentences: short sentences "
    "then weigh as much as long ones. Take one mean over all non-pad positions of the batch.",
    "pad_zero": "You skipped the positions whose label is 0, not those equal to pad_id: use "
    "the pad_id argument (here it is not 0, and 0 is an ordinary token).",
}


_COUNTS = {"keep": "the non-pad positions", "all": "every position, pad included"}


def _loss_grid(logits, labels, pad_id, eps) -> dict[str, torch.Tensor]:
    """Every way of masking and averaging the two terms of the smoothed loss, each with
    what it does: the target term (1 - ε)·(-log p[y]) and the smoothing term
    ε·mean_j(-log p[j]), each summed over the non-pad positions or every position and
    divided by the number of non-pad positions, of all positions, or the batch size (the
    contract's own choice left out). With ε = 0 only the target term is there."""
    x = logits.detach().double()
    logp = torch.log_softmax(x, dim=-1)
    keep = labels != pad_id
    nll = -logp.gather(-1, labels[..., None]).squeeze(-1)  # pad labels are valid indices
    uniform = -logp.mean(dim=-1)
    masks = {"keep": keep, "all": torch.ones_like(keep)}
    counts = {
        "the number of non-pad positions": keep.sum(),
        "the number of all positions (pad included)": keep.numel(),
        "the batch size": x.shape[0] if x.dim() > 2 else 1,
    }
    right = ("keep", "the number of non-pad positions")
    grid = {}
    for (t_mask, t_count), (u_mask, u_count) in itertools.product(
        itertools.product(masks, counts), repeat=2
    ):
        if (t_mask, t_count) == right and (u_mask, u_count) == right:
            continue
        if eps == 0 and (u_mask, u_count) != (t_mask, t_count):
            continue
        value = (1 - eps) * nll[masks[t_mask]].sum() / counts[t_count] + eps * uniform[
            masks[u_mask]
        ].sum() / counts[u_count]
        if (t_mask, t_count) == (u_mask, u_count):
            what = f"the loss summed over {_COUNTS[t_mask]} and divided by {t_count}"
        else:
            what = (
                f"the target term (1 - ε)·(-log p[y]) summed over {_COUNTS[t_mask]} and "
                f"divided by {t_count}, but the smoothing term ε·mean_j(-log p[j]) summed "
                f"over {_COUNTS[u_mask]} and divided by {u_count}"
            )
        grid[what] = value
    return grid


def _explain_loss(got, logits, labels, pad_id, eps, rtol, atol) -> str:
    """Which masks and denominators give the learner's value (all of them, when several
    do); or softmax applied before F.cross_entropy; "" when none does."""
    value = float(got.detach().double())
    x = logits.detach().double()
    twice = F.cross_entropy(
        torch.softmax(x, -1).reshape(-1, x.shape[-1]),
        labels.reshape(-1),
        ignore_index=pad_id,
        label_smoothing=eps,
    )
    if math.isclose(value, float(twice), rel_tol=max(rtol, 1e-4), abs_tol=max(atol, 1e-5)):
        return (
            "Your value is F.cross_entropy applied to probabilities: softmax was taken "
            "before F.cross_entropy, which applies log_softmax itself. Give it the logits, "
            "not the probabilities (or compute log_softmax once, yourself)."
        )
    if not math.isfinite(value):
        logp = torch.log(torch.softmax(logits.detach(), -1))
        if not bool(torch.isfinite(logp).all()):
            return (
                "log(softmax(x)) gives log 0 = -inf for large logits (a probability that "
                "underflows to 0): use torch.log_softmax, which computes it stably."
            )
        return ""
    found = [
        parts
        for parts, wrong in _loss_grid(logits, labels, pad_id, eps).items()
        if math.isclose(value, float(wrong), rel_tol=max(rtol, 1e-4), abs_tol=max(atol, 1e-5))
    ]
    if not found:
        return ""
    head = (
        "Your value is what this masking gives"
        if len(found) == 1
        else ("Your value is what each of these maskings gives (this input cannot tell them apart)")
    )
    return (
        f"{head}: " + "; or ".join(found) + ". The contract: both terms over the non-pad "
        "positions only, divided by the number of non-pad positions (the mean over the "
        "positions whose label is not pad_id)."
    )


def smoothing_cases(hidden: bool):
    """The label-smoothed loss's (logits, labels, pad_id, eps) cases, visible or hidden."""
    gen = torch_generator(4002 if hidden else 4001)
    cases = []

    def logits(*shape, scale=2.0):
        return (torch.randn(*shape, generator=gen) * scale).requires_grad_(True)

    if not hidden:
        cases.append((logits(2, 4, 5), torch.tensor([[1, 3, 2, 0], [4, 4, 0, 0]]), 0, 0.1))
        # <pad> is 2 here, and 0 an ordinary token
        cases.append(
            (
                logits(3, 3, 6),
                torch.tensor([[0, 4, 2], [5, 2, 2], [1, 0, 3]]),
                2,
                0.3,
            )
        )
        cases.append((logits(6, 4), torch.tensor([3, 0, 1, 1, 2, 0]), 0, 0.2))  # (N, V)
        cases.append(
            (logits(2, 3, 7, scale=60.0), torch.tensor([[6, 1, 0], [2, 5, 4]]), 0, 0.1)
        )  # large logits
        cases.append((logits(2, 3, 5), torch.tensor([[1, 2, 0], [3, 4, 4]]), 0, 0.0))
    else:
        for shape, pad_id, eps, scale in (
            ((4, 9, 11), 0, 0.1, 3.0),
            ((3, 5, 8), 3, 0.25, 2.0),
            ((17, 6), 1, 0.15, 1.0),
            ((2, 6, 40), 0, 0.1, 80.0),
            ((5, 2, 4, 7), 2, 0.4, 2.0),
        ):
            x = logits(*shape, scale=scale)
            labels = torch.randint(0, shape[-1], shape[:-1], generator=gen)
            labels = labels.masked_fill(torch.rand(shape[:-1], generator=gen) < 0.3, pad_id)
            labels.view(-1)[0] = (pad_id + 1) % shape[-1]  # at least one real position
            cases.append((x, labels, pad_id, eps))
    return cases


def check_label_smoothed_loss(label_smoothed_loss, *, hidden: bool = False) -> None:
    """label_smoothed_loss(logits, labels, pad_id, smoothing) -> 0-d tensor (PyTorch's)."""
    with Checker("label_smoothed_loss", hidden=hidden) as c:
        c.require_callable(label_smoothed_loss)
        for logits, labels, pad_id, eps in smoothing_cases(hidden):
            what = (
                f"label_smoothed_loss(logits {tuple(logits.shape)}, labels "
                f"{labels.tolist() if labels.numel() <= 12 else tuple(labels.shape)}, "
                f"pad_id={pad_id}, smoothing={eps})"
            )
            got = c.call(
                label_smoothed_loss,
                logits,
                labels,
                pad_id,
                eps,
                call_repr=what,
                hints={
                    "one_hot": "F.one_hot needs int64 labels in [0, V); pad labels are in range "
                    "here, so check the shape you pass.",
                },
            )
            if isinstance(got, numbers.Real) and not isinstance(got, bool):
                c.fail(
                    f"{what} returned a Python number ({short(got)}); return the 0-d tensor itself. "
                    "The training step calls loss.backward() on it, which a float (.item()) "
                    "cannot do."
                )
            c.expect_type(got, torch.Tensor, what)
            if got.dim() != 0:
                c.fail(
                    f"{what} returned shape {tuple(got.shape)}; the loss is one number, a 0-d "
                    "tensor: take the mean over the non-pad positions (no keepdim, no [None])."
                )
            c.ok()
            c.expect_floating(got, what, preferred=logits.dtype)
            if not got.requires_grad:
                c.fail(
                    f"{what} returned a tensor that gradients cannot flow through "
                    "(requires_grad is False): compute it from `logits` with torch operations "
                    "only, without .item(), .detach(), .numpy() or torch.tensor(...) on the way."
                )
            c.ok()
            variants = label_smoothing_f(logits, labels, pad_id, eps)
            tol = tolerance(got.dtype)
            expected = smoothed_cross_entropy(logits.detach().double(), labels, pad_id, eps)
            c.expect_close(
                got.detach(),
                expected,
                what,
                **tolerance(got.dtype),
                mistakes={
                    _SMOOTHING_MESSAGES[name]: variants[name]
                    for name in _SMOOTHING_MESSAGES
                    if eps > 0
                    or name
                    in {
                        "with_pad",
                        "pad_denominator",
                        "sum",
                        "per_batch",
                        "mean_of_means",
                        "pad_zero",
                    }
                },
                explain=lambda got=got, x=logits, y=labels, p=pad_id, e=eps, t=tol: _explain_loss(
                    got, x, y, p, e, t["rtol"], t["atol"]
                ),
                hint="Compute log-probabilities with torch.log_softmax (stable for large "
                "logits: log(softmax(x)) gives log 0 = -inf), then (1 - ε)·(-log p[y]) + "
                "ε·mean over all V tokens of -log p, averaged over the non-pad positions.",
            )


# ===================================================================== train_step
_STEP_MODEL = {"d_model": 16, "num_heads": 2, "num_layers": 1, "d_ff": 32, "max_len": 16}
STEP_VOCAB = 13  # the vocabulary size of train_step's models and batches


def _deterministic_state(model: torch.nn.Module, seed: int) -> dict[str, torch.Tensor]:
    """N(0, 1/fan_in) weights for every parameter (LayerNorm gains near 1); buffers (the
    positional-encoding table) as they are."""
    gen = torch_generator(seed)
    state = {}
    parameters = dict(model.named_parameters())
    for name, tensor in model.state_dict().items():
        if name not in parameters:
            state[name] = tensor.clone()
            continue
        values = torch.randn(tensor.shape, generator=gen, dtype=torch.float64)
        if tensor.dim() >= 2:
            values = values * tensor.shape[-1] ** -0.5 * 2.0
        elif name.endswith("bias"):
            values = values * 0.1
        else:
            values = 1.0 + values * 0.1
        state[name] = values.to(tensor.dtype)
    return state


def step_model(vocab: int, pad_id: int, seed: int, config: dict = _STEP_MODEL):
    """A small reference Transformer (a course object) with deterministic weights."""
    model = course_object(Transformer, vocab, vocab, dropout=0.0, pad_id=pad_id, **config)
    model.load_state_dict(_deterministic_state(model, seed))
    model.eval()  # the learner's train_step must switch it to training mode
    return model


def copy_model(model, vocab, pad_id, config: dict = _STEP_MODEL):
    """A twin of ``model`` (a reference Transformer built with ``config``): the same
    weights, copied, in a separate module."""
    twin = Transformer(vocab, vocab, dropout=0.0, pad_id=pad_id, **config)
    twin.load_state_dict({k: v.detach().clone() for k, v in model.state_dict().items()})
    return twin


def _sgd_variant(
    start_state,
    vocab,
    pad_id,
    batch,
    lr,
    loss_fn,
    *,
    clip,
    mode="norm",
    steps=1,
    feed_labels=False,
    stale_grads=None,
):
    """The state after a (possibly mistaken) SGD step from ``start_state``;
    ``stale_grads`` (name -> tensor) are gradients left over from an earlier step."""
    model = Transformer(vocab, vocab, dropout=0.0, pad_id=pad_id, **_STEP_MODEL)
    model.load_state_dict(start_state)
    model.train()
    for name, p in model.named_parameters():
        if stale_grads and name in stale_grads:
            p.grad = stale_grads[name].detach().clone()
    src, decoder_input, labels = batch
    for _ in range(steps):
        logits = model(src, labels if feed_labels else decoder_input)
        loss = loss_fn(logits, labels)
        loss.backward()
        if clip is not None and mode == "norm":
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        elif clip is not None and mode == "value":
            torch.nn.utils.clip_grad_value_(model.parameters(), clip)
        elif clip is not None and mode == "each":
            for p in model.parameters():
                torch.nn.utils.clip_grad_norm_([p], clip)
        with torch.no_grad():
            for p in model.parameters():
                if p.grad is not None:
                    p -= lr * p.grad
                    p.grad = None
    return model.state_dict(), loss.item()


def step_batches(pad_id: int, bos_id: int, eos_id: int, seed: int, count: int):
    """``count`` deterministic batches (each ``make_batches``'s first batch of four random
    pairs over ``STEP_VOCAB`` token ids) for the train_step checks."""
    rng = numpy_rng(seed)
    ids = {"pad_id": pad_id, "bos_id": bos_id, "eos_id": eos_id}
    ordinary = [t for t in range(STEP_VOCAB) if t not in ids.values()]
    batches = []
    for _ in range(count):
        pairs = [
            (
                [int(t) for t in rng.choice(ordinary, int(rng.integers(2, 7)))],
                [int(t) for t in rng.choice(ordinary, int(rng.integers(1, 6)))],
            )
            for _ in range(4)
        ]
        batches.append(ref.make_batches(pairs, len(pairs), **ids)[0])
    return batches


def _max_difference(a: dict, b: dict) -> tuple[float, str]:
    worst, where = 0.0, ""
    for key, value in a.items():
        diff = float((value.detach().double() - b[key].detach().double()).abs().max())
        if diff > worst:
            worst, where = diff, key
    return worst, where


def _same_state(a: dict, b: dict, atol: float = 2e-5) -> bool:
    return _max_difference(a, b)[0] <= atol


def _diagnose_step(
    c, what, state, start, expected_model, clip, batch, pad_id, lr, loss_fn, stale=None
):
    """Fail with the most likely cause of weights that differ from one reference step;
    ``stale``: the gradients the model held when the call began (None: none)."""
    if stale:
        wrong, _ = _sgd_variant(
            start, STEP_VOCAB, pad_id, batch, lr, loss_fn, clip=clip, stale_grads=stale
        )
        if _same_state(state, wrong):
            c.fail(
                f"after {what}, the weights are not what one step gives: the gradients "
                "of the previous call were still in the model and were added to this "
                "step's (PyTorch accumulates gradients). Clear them once per step with "
                "optimizer.zero_grad(): after optimizer.step() (the contract's order) or "
                "at the start, before loss.backward() (the common PyTorch idiom)."
            )
    if _same_state(state, start, atol=0.0):
        c.fail(
            f"after {what}, the model's weights have not changed. Call "
            "loss.backward() (to compute the gradients) and then optimizer.step() "
            "(to apply them), in that order."
        )
    mistakes = {
        "The gradients were not clipped by their total norm: no clipping, clipping "
        "after the optimizer step (too late), or clip_grad_value_ (which caps single "
        "entries, and here none was large enough) all leave them like this. Clip "
        "between loss.backward() and optimizer.step(): "
        "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm).": dict(clip=None),
        "You clipped each gradient entry to [-clip_norm, clip_norm] "
        "(clip_grad_value_); the contract clips the total 2-norm of all gradients "
        "together, which keeps their direction: clip_grad_norm_.": dict(clip=clip, mode="value"),
        "You clipped each parameter's gradient norm on its own; the contract clips "
        "the norm of all gradients together (one call, clip_grad_norm_("
        "model.parameters(), clip_norm)).": dict(clip=clip, mode="each"),
        "You clipped with 1.0 whatever clip_norm was passed: use the argument.": dict(clip=1.0),
        "The optimizer stepped twice (or the step was repeated): one forward, one "
        "backward, one optimizer.step() per call.": dict(clip=clip, steps=2),
        "The update was computed with the labels fed to the decoder: "
        "model(src, decoder_input) is the forward pass.": dict(clip=clip, feed_labels=True),
    }
    if clip is None:
        mistakes = {
            "clip_norm=None should mean no clipping, but the gradients were clipped "
            "(to 1.0?).": dict(clip=1.0),
            **{k: v for k, v in mistakes.items() if v.get("steps") or v.get("feed_labels")},
        }
    for message, change in mistakes.items():
        if change.get("clip") == clip and "mode" not in change and len(change) == 1:
            continue  # the same as the expected step
        wrong, _ = _sgd_variant(start, STEP_VOCAB, pad_id, batch, lr, loss_fn, **change)
        if _same_state(state, wrong):
            c.fail(f"after {what}, the weights are not what one step gives. {message}")
    worst, where = _max_difference(state, expected_model.state_dict())
    c.fail(
        f"after {what}, the weights differ from one reference step from the same "
        f"state (largest difference {worst:.3g}, in {where}). The steps, in order: "
        "model.train(); logits = model(src, decoder_input); loss = loss_fn(logits, "
        "labels); loss.backward(); clip_grad_norm_(model.parameters(), clip_norm) "
        "unless clip_norm is None; optimizer.step(); optimizer.zero_grad()."
    )


def check_train_step(train_step, *, hidden: bool = False) -> None:
    """train_step(model, batch, optimizer, loss_fn, clip_norm=1.0) -> float."""
    with Checker("train_step", hidden=hidden) as c:
        c.require_callable(train_step)
        if hidden:
            pad_id, bos_id, eos_id, seed, lr = 1, 4, 2, 5102, 0.3
            clips = [("default", 1.0), (0.4, 0.4), (None, None), (2.5, 2.5)]
        else:
            pad_id, bos_id, eos_id, seed, lr = 0, 2, 3, 5101, 0.5
            clips = [("default", 1.0), (0.3, 0.3), (None, None)]
        batches = step_batches(pad_id, bos_id, eos_id, seed, len(clips))
        model = step_model(STEP_VOCAB, pad_id, seed)
        optimizer = course_object(torch.optim.SGD, ParametersOf(model), lr=lr)
        loss_fn = course_function(smoothed_cross_entropy, pad_id=pad_id, smoothing=0.1)
        expected_model = copy_model(model, STEP_VOCAB, pad_id)
        expected_optimizer = torch.optim.SGD(expected_model.parameters(), lr=lr)
        for number, ((given, clip), batch) in enumerate(zip(clips, batches)):
            start = {k: v.detach().clone() for k, v in model.state_dict().items()}
            stale = {  # gradients left by the previous call (the idiom that clears first)
                name: p.grad.detach().clone()
                for name, p in model.named_parameters()
                if p.grad is not None and bool(p.grad.detach().abs().max() > 0)
            }
            what = (
                f"train_step(model, batch, optimizer, loss_fn"
                f"{'' if given == 'default' else f', clip_norm={given}'})"
                f" (call {number + 1}: SGD, lr={lr})"
            )
            got = c.call(
                train_step,
                model,
                batch,
                optimizer,
                loss_fn,
                **({} if given == "default" else {"clip_norm": given}),
                call_repr=what,
                hints={
                    "'NoneType' and 'float'": "clip_norm=None means: do not clip at all. "
                    "Test `if clip_norm is not None:` before clipping.",
                    "unsupported operand type(s) for": "clip_norm=None means: do not clip at "
                    "all. Test `if clip_norm is not None:` before clipping.",
                    "element 0 of tensors does not require grad": "The loss has no graph to "
                    "back-propagate through: call loss_fn on the model's logits directly "
                    "(no torch.no_grad(), no .detach()).",
                    "Trying to backward through the graph a second time": "backward() was "
                    "called twice on the same loss: call it once per step.",
                },
                mutation_hint="The batch must stay as it is: it is reused by the training loop.",
            )
            expected_loss = ref.train_step(expected_model, batch, expected_optimizer, loss_fn, clip)
            if _is_tensor(got) and got.numel() == 1:
                c.fail(
                    f"{what} returned a tensor ({short(got)}); return a Python float, "
                    "loss.item(). A tensor that is still attached to the graph keeps every "
                    "intermediate result of the step in memory, for every step you store."
                )
            value = _number(c, got, what, "Return loss.item(), a Python float.")
            c.ok()
            if not model.training:
                c.fail(
                    f"after {what}, the model is in eval mode (model.training is False). "
                    "train_step must put it in training mode (model.train()) before the "
                    "forward pass, so that dropout is active while it learns, and leave it "
                    "so: the model here arrived in eval mode."
                )
            c.ok()
            state = model.state_dict()
            if not _same_state(state, expected_model.state_dict()):
                _diagnose_step(
                    c, what, state, start, expected_model, clip, batch, pad_id, lr, loss_fn, stale
                )
            c.ok()
            if not math.isclose(value, expected_loss, rel_tol=1e-4, abs_tol=1e-5):
                _, after_loss = _sgd_variant(
                    expected_model.state_dict(), STEP_VOCAB, pad_id, batch, 0.0, loss_fn, clip=None
                )
                _, fed_labels = _sgd_variant(
                    start, STEP_VOCAB, pad_id, batch, 0.0, loss_fn, clip=None, feed_labels=True
                )
                if math.isclose(value, after_loss, rel_tol=1e-4, abs_tol=1e-5):
                    c.fail(
                        f"{what} returned {value:.6g}, the loss *after* the update; return "
                        f"the loss computed before the step ({expected_loss:.6g}): the one "
                        "whose gradients made the update."
                    )
                if math.isclose(value, fed_labels, rel_tol=1e-4, abs_tol=1e-5):
                    c.fail(
                        f"{what} returned {value:.6g}: the decoder was fed the labels. The "
                        "decoder reads decoder_input (<bos> + target) and is scored against "
                        "the labels (target + <eos>): model(src, decoder_input)."
                    )
                c.fail(
                    f"{what} returned the loss {value:.6g}; expected {expected_loss:.6g}, "
                    "loss_fn(model(src, decoder_input), labels) before the step."
                )
            c.ok()


# ==================================================================== beam_search
_BEAM_MODEL = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16, "max_len": 24}
BEAM_VOCAB = 8  # the vocabulary size of beam search's tiny models


def beam_model(seed: int, pad_id: int, bos_id: int, eos_id: int, eos_bias: float):
    """A tiny reference Transformer with fixed weights; <pad> and <bos> never win, <eos>
    is made more or less likely with ``eos_bias``."""
    model = course_object(
        Transformer, BEAM_VOCAB, BEAM_VOCAB, dropout=0.0, pad_id=pad_id, **_BEAM_MODEL
    )
    state = _deterministic_state(model, seed)
    state["output.bias"] = state["output.bias"].clone()
    state["output.bias"][pad_id] = -30.0
    state["output.bias"][bos_id] = -30.0
    state["output.bias"][eos_id] += eos_bias
    model.load_state_dict(state)
    model.eval()
    return model


def _search(model, src_row, beam_size, max_len, bos_id, eos_id, alpha, variant=""):
    """The reference search for one source row, or a known variant of it."""

    def penalty(length):
        if variant == "no_normalisation":
            return 1.0
        if variant == "no_eos_in_length":
            length -= 1
        if variant == "hf_penalty":
            return length**alpha
        return ((5 + length) / 6) ** alpha

    def normalised(hypothesis):
        if variant == "multiplied_penalty":
            return hypothesis[1] * penalty(len(hypothesis[0]))
        return hypothesis[1] / penalty(len(hypothesis[0]))

    with torch.no_grad():
        src = src_row[None]
        memory = model.encode(src)
        beam, finished = [([], 0.0)], []
        for _ in range(max_len):
            tokens = torch.tensor([[bos_id, *t] for t, _ in beam])
            k = tokens.shape[0]
            logits = model.decode(tokens, memory.expand(k, -1, -1), src.expand(k, -1))
            if variant == "raw_logits":
                step = logits[:, -1]
            elif variant == "probabilities":
                step = torch.softmax(logits[:, -1], -1)
            else:
                step = torch.log_softmax(logits[:, -1], -1)
            scores = torch.tensor([s for _, s in beam])[:, None] + step
            order = scores.flatten().argsort(descending=True, stable=True).tolist()
            new_beam = []
            if variant in ("shrinking", "finished_in_beam"):
                # shrinking: each finished hypothesis costs the beam one place for good;
                # finished_in_beam: finished candidates take places in this step's beam
                width = beam_size - len(finished) if variant == "shrinking" else beam_size
                for index in order[: max(width, 0)]:
                    parent, token = divmod(index, scores.shape[1])
                    item = (beam[parent][0] + [token], float(scores[parent, token]))
                    (finished if token == eos_id else new_beam).append(item)
            else:
                for index in order:
                    parent, token = divmod(index, scores.shape[1])
                    item = (beam[parent][0] + [token], float(scores[parent, token]))
                    if token == eos_id:
                        finished.append(item)
                    else:
                        new_beam.append(item)
                        if len(new_beam) == beam_size:
                            break
            beam = new_beam
            if not beam:
                break
            if variant == "first_finished":
                stop = bool(finished)
            elif variant == "count_rule":
                stop = len(finished) >= beam_size
            elif variant == "to_max_len":
                stop = False
            elif variant == "raw_stop":
                stop = bool(finished) and max(score for _, score in finished) >= beam[0][1]
            else:
                stop = bool(finished) and max(map(normalised, finished)) >= beam[0][1]
            if stop:
                break
        pool = finished + beam if variant == "live_joins" else (finished or beam)
        if variant == "last_collected":
            return pool[-1][0]
        return max(pool, key=normalised)[0]


_BEAM_MESSAGES = {
    "raw_logits": "Your scores add up raw logits. A hypothesis's score is the sum of the "
    "log-probabilities of its tokens: take torch.log_softmax of the last position's logits "
    "first (logits of different steps are not on the same scale).",
    "probabilities": "Your scores add up probabilities (softmax), not log-probabilities: a "
    "sum of probabilities favours long hypotheses and is not the hypothesis's probability. "
    "Add torch.log_softmax of the last position's logits.",
    "multiplied_penalty": "You multiplied the score by the length penalty; divide it: "
    "score / ((5 + L) / 6) ** α (the scores are negative, so multiplying favours short "
    "hypotheses instead of long ones).",
    "last_collected": "You returned the last hypothesis collected (finished[-1]) rather "
    "than the best one: pick max(finished, key=normalised score).",
    "no_normalisation": "The length penalty is not applied: with length_penalty = α, the "
    "finished hypotheses are compared by score / ((5 + L) / 6) ** α, L counting <eos>.",
    "no_eos_in_length": "Your length penalty counts the tokens without <eos>; in this "
    "contract L counts <eos> too (it is a generated token): lp(L) = ((5 + L) / 6) ** α.",
    "hf_penalty": "You divided by L ** α (Hugging Face's length_penalty); this contract uses "
    "GNMT's lp(L) = ((5 + L) / 6) ** α.",
    "finished_in_beam": "Finished hypotheses take up places in your beam, so fewer live "
    "hypotheses go on. Set a finished hypothesis aside and keep walking down the sorted "
    "candidates until the new beam again holds beam_size live ones (a fixed beam width).",
    "shrinking": "Your beam shrinks by one every time a hypothesis finishes. In this contract "
    "the width stays beam_size: finished hypotheses are set aside and the beam is refilled "
    "from the next-best candidates.",
    "first_finished": "You stopped at the first finished hypothesis, although a live "
    "hypothesis still scored better. Stop only once the best finished hypothesis's normalised "
    "score is at least the best live hypothesis's score (or after max_len steps).",
    "count_rule": "You stopped once beam_size hypotheses had finished. A confident model "
    "finishes several unlikely hypotheses early (each ends with an unlikely <eos>) while the "
    "likely one is still live: the count is reached before the best answer finishes. Stop "
    "when the best finished hypothesis's normalised score is at least the best live score.",
    "to_max_len": "You kept searching after no live hypothesis could win any more. Stop "
    "after the step at which the best finished hypothesis's normalised score is at least the "
    "best live hypothesis's score (not normalised), or after max_len steps.",
    "raw_stop": "Your stopping rule compares the best finished hypothesis's raw score "
    "with the best live score; the contract compares its *normalised* score, "
    "score / ((5 + L) / 6) ** α, with the best live score.",
    "live_joins": "You let unfinished hypotheses compete with finished ones at the end. A "
    "live hypothesis is chosen only when none has finished at all.",
}


def beam_cases(hidden: bool):
    """(model, src_ids, [(beam_size, max_len, alpha)], ids) cases; the seeds were chosen
    (tests/test_10_training.py proves it) so that greedy and beam search disagree, the
    length penalty changes the answer, and every variant above is caught."""
    if hidden:
        settings = [(1, 8, 0.0), (1, 6, 1.5), (3, 8, 0.0), (4, 8, 1.0), (2, 6, 2.0), (5, 8, 0.6)]
        specs = [(7202, 5, 6, 1, 1.0, settings), (7263, 3, 0, 7, 1.0, settings)]
    else:
        settings = [(1, 7, 0.0), (1, 7, 1.0), (3, 7, 0.0), (3, 7, 1.0), (2, 6, 2.0), (4, 8, 0.6)]
        specs = [(7100, 0, 2, 3, 3.0, settings), (7160, 4, 5, 6, 2.0, settings)]
    cases = []
    for seed, pad_id, bos_id, eos_id, eos_bias, case_settings in specs:
        model = beam_model(seed, pad_id, bos_id, eos_id, eos_bias)
        rng = numpy_rng(seed)
        ordinary = [t for t in range(BEAM_VOCAB) if t not in (pad_id, bos_id, eos_id)]
        rows = [[int(t) for t in rng.choice(ordinary, n)] for n in (4, 2, 5)]
        width = max(map(len, rows))
        src = torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])
        cases.append((model, src, case_settings, {"bos_id": bos_id, "eos_id": eos_id}, pad_id))
    return cases


def _beam_rows(
    c: Checker, got, batch: int, max_len: int, pad_id: int, eos_id: int, bos_id: int, what: str
) -> list[list[int]]:
    """The learner's output as one token list per row (up to and including <eos>)."""
    if isinstance(got, list) and got and isinstance(got[0], list | torch.Tensor):
        c.fail(
            f"{what} returned a list; return an int64 tensor (batch, n) padded with "
            "model.pad_id, as greedy_decode does (torch.full(..., model.pad_id) and fill "
            "each row)."
        )
    c.expect_type(got, torch.Tensor, what)
    if got.dtype != torch.int64:
        c.fail(f"{what} has dtype {got.dtype}; token ids are int64 (dtype=torch.long).")
    if got.dim() != 2 or got.shape[0] != batch:
        c.fail(
            f"{what} has shape {tuple(got.shape)}; expected (batch={batch}, n): one row per "
            "source sentence."
        )
    if got.shape[1] > max_len + 1:
        c.fail(f"{what} has {got.shape[1]} columns, more than max_len={max_len} tokens.")
    rows = []
    for i, row in enumerate(got.tolist()):
        if row and row[0] == bos_id:
            c.fail(
                f"row {i} of {what} starts with <bos> ({bos_id}): return the generated tokens "
                "only, without <bos>, as greedy_decode does."
            )
        if eos_id in row:
            end = row.index(eos_id) + 1
            tail = row[end:]
            if any(t != pad_id for t in tail):
                hint = (
                    " You padded with 0: use model.pad_id."
                    if all(t == 0 for t in tail) and pad_id != 0
                    else " Tokens follow its <eos>: a hypothesis went on after <eos>. A "
                    "candidate that ends in <eos> is finished: set it aside (it takes no place "
                    "in the beam and is never extended), and after <eos> a row holds only "
                    "model.pad_id."
                )
                c.fail(f"row {i} of {what} is {row}.{hint}")
            rows.append(row[:end])
        else:
            rows.append(row)
    c.ok()
    return rows


def _same_row(row: list[int], expected: list[int], pad_id: int) -> bool:
    return row[: len(expected)] == expected and all(t == pad_id for t in row[len(expected) :])


def check_beam_search(beam_search, *, hidden: bool = False) -> None:
    """beam_search(model, src_ids, beam_size, max_len, bos_id, eos_id, length_penalty)."""
    with Checker("beam_search", hidden=hidden) as c:
        c.require_callable(beam_search)
        observations = []  # (model, source row, setting, ids, pad_id, row, expected, what, i)
        for model, src, settings, ids, pad_id in beam_cases(hidden):
            bos_id, eos_id = ids["bos_id"], ids["eos_id"]
            for beam_size, max_len, alpha in settings:
                what = (
                    f"beam_search(model, src_ids {src.tolist()}, beam_size={beam_size}, "
                    f"max_len={max_len}, bos_id={bos_id}, eos_id={eos_id}, "
                    f"length_penalty={alpha}) (model.pad_id={pad_id})"
                )
                got = c.call(
                    beam_search,
                    model,
                    src,
                    beam_size,
                    max_len,
                    bos_id,
                    eos_id,
                    alpha,
                    call_repr=what,
                    hints={
                        "must match the size": "The memory and the source ids must have one "
                        "row per hypothesis: expand them to the number of live hypotheses "
                        "(memory.expand(k, -1, -1), src.expand(k, -1)).",
                    },
                )
                rows = _beam_rows(c, got, src.shape[0], max_len, pad_id, eos_id, bos_id, what)
                setting = (beam_size, max_len, bos_id, eos_id, alpha)
                for i, row in enumerate(rows):
                    expected = _search(model, src[i], *setting)
                    observations.append((model, src[i], setting, pad_id, row, expected, what, i))
        wrong = [o for o in observations if not _same_row(o[4], o[5], o[3])]
        if not wrong:
            c.ok()
            return
        model, source, setting, pad_id, row, expected, what, i = wrong[0]
        shown = f"for source row {i}, {what} chose {row}, expected {expected}"
        # A cause is stated only when its predictions agree with every answer (every row of
        # every call, the right ones included); when several do, all of them are named.
        agree = [
            variant
            for variant in _BEAM_MESSAGES
            if all(
                _same_row(o_row, _search(o_model, o_source, *o_setting, variant), o_pad)
                for o_model, o_source, o_setting, o_pad, o_row, *_ in observations
            )
        ]
        if len(agree) == 1:
            c.fail(f"{shown}. {_BEAM_MESSAGES[agree[0]]}")
        if agree:
            c.fail(
                f"{shown}. Your answers agree, on every input here, with each of these "
                "mistakes (they cannot be told apart on these inputs): "
                + " / ".join(_BEAM_MESSAGES[v] for v in agree)
            )
        if setting[0] == 1:
            greedy = greedy_decode(model, source[None], setting[1], setting[2], setting[3])
            c.fail(
                f"{shown}. With beam_size=1 beam search must give greedy_decode's answer "
                f"({greedy[0].tolist()}) whatever the length_penalty: one live hypothesis, "
                "extended by its best token at each step."
            )
        c.fail(
            f"{shown}. {_compare_hypotheses(model, source, setting, row, expected)} None of "
            "the known mistakes explains all your answers. Walk through the contract step by "
            "step on this row: the candidates' scores are sums of log-probabilities; finished "
            "ones are set aside and the beam refilled to beam_size live ones; stop once the "
            "best finished normalised score is at least the best live score (or after "
            "max_len steps); return the finished hypothesis with the best score / ((5 + L) / "
            "6) ** length_penalty."
        )


def _log_probability(model, source: torch.Tensor, tokens: list[int], bos_id: int) -> float:
    """The sum of the log-probabilities the model gives ``tokens`` after <bos>."""
    if not tokens:
        return 0.0
    with torch.no_grad():
        src = source[None]
        inputs = torch.tensor([[bos_id, *tokens[:-1]]])
        logits = model.decode(inputs, model.encode(src), src)
        logp = torch.log_softmax(logits[0].double(), dim=-1)
        return float(logp[torch.arange(len(tokens)), torch.tensor(tokens)].sum())


def _compare_hypotheses(model, source, setting, row, expected) -> str:
    """What the learner's answer and the expected one score: the symptom, precisely."""
    _, _, bos_id, eos_id, alpha = setting
    if any(t >= BEAM_VOCAB or t < 0 for t in row):
        return ""

    def described(tokens):
        score = _log_probability(model, source, tokens, bos_id)
        norm = score / ((5 + len(tokens)) / 6) ** alpha
        state = "finished" if tokens and tokens[-1] == eos_id else "not finished"
        return score, norm, f"log-probability {score:.4f}, normalised {norm:.4f}, {state}"

    _, mine, mine_text = described(row)
    _, theirs, theirs_text = described(expected)
    if mine < theirs - 1e-9:
        verdict = (
            "The contract's search finds a hypothesis that scores better than yours: yours "
            "lost it on the way (which candidates were kept, or when the search stopped) or "
            "did not pick the best at the end."
        )
    elif mine > theirs + 1e-9:
        verdict = (
            "Yours scores better than the contract's answer: your search went on (or kept "
            "candidates) past where the contract's rules stop; the answer is the one those "
            "rules give, not the best possible."
        )
    else:
        verdict = "Both score the same: break ties as the contract's order does."
    return f"Yours: {mine_text}; expected: {theirs_text}. {verdict}"


# ============================================================= translation_scores
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
]


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
    return cases


_ONE_STREAM_HINT = (
    "sacrebleu.corpus_bleu(hypotheses, streams) takes reference *streams*: stream j holds "
    "the j-th reference of every sentence (None where a sentence has fewer), so "
    "references[i] (the list for sentence i) must be regrouped first."
)
_BLEU_MISTAKES = {
    "first": "BLEU counts only the first reference of each sentence (zip(*references) "
    "does that too when a sentence has just one: it stops at the shortest list). Every "
    "correct translation counts: an n-gram matches if it occurs in any of the references; "
    "itertools.zip_longest(*references) fills the missing ones with None.",
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
    "fraction": "That is BLEU on a 0-1 scale; sacrebleu's score (.score) is on 0-100, which "
    "the contract asks for.",
    "per_sentence_lists": "The references were passed as they came, one list per sentence; "
    + _ONE_STREAM_HINT,
}


def _bleu_mistakes(hypotheses, references) -> dict[str, float | None]:
    first = [refs[0] for refs in references]
    return {
        _BLEU_MISTAKES["first"]: _attempt(_bleu, hypotheses, [[r] for r in first]),
        _BLEU_MISTAKES["empty"]: _attempt(_bleu, hypotheses, references, ""),
        _BLEU_MISTAKES["sentence_mean"]: float(
            np.mean(
                [sacrebleu.sentence_bleu(h, list(r)).score for h, r in zip(hypotheses, references)]
            )
        ),
        _BLEU_MISTAKES["swapped"]: _attempt(_bleu, first, [[h] for h in hypotheses]),
        _BLEU_MISTAKES["fraction"]: _bleu(hypotheses, references) / 100,
        _BLEU_MISTAKES["per_sentence_lists"]: _attempt(
            lambda h, r: sacrebleu.corpus_bleu(h, r).score, list(hypotheses), references
        ),
    }


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
                    "Reference sentence": _ONE_STREAM_HINT,
                    "does not match": _ONE_STREAM_HINT,
                    "NoneType": "A None in the streams is fine for sacrebleu; it must not "
                    "reach your own code (exact match compares against the real references).",
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
            _check_exact_match(c, got, hypotheses, references, what)
            bleu = _number(c, got["bleu"], f'{what}["bleu"]', "Return a float: .score.")
            expected = _bleu(hypotheses, references)
            if not math.isclose(bleu, expected, rel_tol=1e-6, abs_tol=1e-6):
                for message, value in _bleu_mistakes(hypotheses, references).items():
                    if value is not None and math.isclose(bleu, value, rel_tol=1e-6, abs_tol=1e-9):
                        c.fail(f'{what}["bleu"] is {bleu:.4g}, expected {expected:.4g}. {message}')
                c.fail(
                    f'{what}["bleu"] is {bleu:.4g}, expected {expected:.4g}: '
                    "sacrebleu.corpus_bleu(hypotheses, streams).score with default settings, "
                    "stream j holding every sentence's j-th reference (None where it has fewer)."
                )
            c.ok()


def _check_exact_match(c: Checker, got, hypotheses, references, what: str) -> None:
    n = len(hypotheses)
    exact = sum(h in refs for h, refs in zip(hypotheses, references)) / n
    value = _number(c, got["exact_match"], f'{what}["exact_match"]', "Return a float.")
    if math.isclose(value, 100 * exact) and exact > 0:
        c.fail(
            f'{what}["exact_match"] is {value:g}, a percentage; the contract asks for the '
            f"fraction, {exact:g} (0 to 1)."
        )
    if math.isclose(value, exact, abs_tol=1e-9):
        c.ok()
        return
    matches = round(exact * n)
    first = sum(h == refs[0] for h, refs in zip(hypotheses, references)) / n
    every = sum(all(h == r for r in refs) for h, refs in zip(hypotheses, references)) / n
    if math.isclose(value, first, abs_tol=1e-9):
        c.fail(
            f'{what}["exact_match"] is {value:g}: only hypotheses equal to the *first* '
            f"reference counted. A hypothesis is right when it equals any of its references: "
            f"{matches} of {n} do, {exact:g}."
        )
    if math.isclose(value, every, abs_tol=1e-9):
        c.fail(
            f'{what}["exact_match"] is {value:g}: a hypothesis counted only if it equals '
            "*every* reference of its sentence, which no sentence with two different correct "
            f"translations can pass. It is right when it equals any one: {matches} of {n}, "
            f"{exact:g}."
        )
    c.fail(
        f'{what}["exact_match"] is {value:g}; {matches} of the {n} hypotheses equal one of '
        f"their references: {exact:g}. Compare whole strings, hypothesis i with the "
        "references of sentence i (`hypothesis in references[i]`)."
    )


# ============================================================== concept questions
QUIZ_TEACHER_FORCING = Quiz(
    name="quiz_teacher_forcing",
    answer="a",
    choices={
        "a": "(i) <bos> el gato negro   (ii) <bos> el gato blanco",
        "b": "(i) <bos> el gato blanco   (ii) <bos> el gato blanco",
        "c": "(i) <bos> el gato negro   (ii) <bos> el gato negro",
        "d": "(i) el gato negro bebe   (ii) <bos> el gato blanco",
    },
    why={
        "a": "With teacher forcing the decoder always reads the reference (shifted right by "
        "one), whatever it would have predicted: its mistake costs loss at that position, "
        "but does not change what later positions read. When it translates, it can only "
        "read what it produced itself, mistakes included. That gap (exposure bias) is why "
        "a model can do better in training than when it decodes.",
        "b": "That describes decoding in both cases. In training, teacher forcing feeds the "
        "reference tokens, not the model's own predictions: all positions are computed in "
        "one parallel pass, which needs the inputs known in advance.",
        "c": "At translation time there is no reference to read: the decoder is fed its own "
        "output, so its mistake ('blanco') is what it reads next.",
        "d": "That decoder input has been shifted the wrong way: it is the labels. Position t "
        "must not read the token it is asked to predict; the input starts with <bos>.",
    },
)
check_quiz_teacher_forcing = quiz_check(QUIZ_TEACHER_FORCING)

_Q = 0.9 + 0.1 / 10  # the target's share with eps = 0.1, V = 10
QUIZ_LOSS_FLOOR = Quiz(
    name="quiz_loss_floor",
    answer=-(_Q * math.log(_Q) + 9 * 0.01 * math.log(0.01)),
    rel_tol=0.01,
    why={
        -(_Q * math.log(_Q) + 9 * 0.01 * math.log(0.01)): "The cross-entropy -Σ q log p is "
        "smallest when p = q, and then it equals the entropy of q: -(0.91 ln 0.91 + 9 × "
        "0.01 ln 0.01) ≈ 0.500. A model that is right every time still has a loss of about "
        "0.5 per token, which is why a label-smoothed loss curve levels off well above 0.",
        0: "A perfect one-hot prediction (p[y] = 1) is not the minimum: the ε/V part of the "
        "loss contains -log p[j] for every other token j, which is infinite when p[j] = 0. "
        "The loss is smallest when p equals the smoothed target q.",
        -math.log(_Q): "-ln 0.91 ≈ 0.094 is what the target's share alone costs when "
        "p = q; the other nine tokens add 9 × 0.01 × (-ln 0.01) ≈ 0.414.",
        -math.log(0.9): "-ln 0.9 ≈ 0.105 leaves out the other tokens' part, and the target "
        "gets 0.91 (1 - ε + ε/V) in PyTorch's definition, not 0.9.",
        -(0.9 * math.log(0.9) + 0.1 * math.log(0.1 / 9)): "≈ 0.545 is the floor for the "
        "ε/(V-1) definition (0.9 on the target, 0.1/9 on each other token); this question "
        "uses PyTorch's, ε/V on every token, the target included.",
    },
)
check_quiz_loss_floor = quiz_check(QUIZ_LOSS_FLOOR)


# ------------------------------------------------------------------------ registry
LESSON = "10_training"
EXERCISES = (
    Exercise("make_batches", check_make_batches, kind="function", points=3, minutes=25, level=2),
    Exercise(
        "quiz_teacher_forcing",
        check_quiz_teacher_forcing,
        kind="quiz",
        points=1,
        minutes=3,
        level=1,
    ),
    Exercise("noam_lr", check_noam_lr, kind="function", points=2, minutes=10, level=1),
    Exercise(
        "label_smoothed_loss",
        check_label_smoothed_loss,
        kind="function",
        points=3,
        minutes=25,
        level=2,
        forbidden=("torch.nn.functional.cross_entropy", "torch.nn.CrossEntropyLoss"),
    ),
    Exercise("quiz_loss_floor", check_quiz_loss_floor, kind="quiz", points=1, minutes=5, level=2),
    Exercise("train_step", check_train_step, kind="function", points=3, minutes=15, level=2),
    Exercise(
        "translation_scores",
        check_translation_scores,
        kind="function",
        points=2,
        minutes=15,
        level=1,
    ),
    Exercise("beam_search", check_beam_search, kind="function", points=4, minutes=75, level=3),
)
