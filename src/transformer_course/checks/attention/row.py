"""The check of ``attention_row``: one query's weights (scaled, then softmax) and the
weighted sum of the value rows, and the mistakes it names.
"""

from __future__ import annotations

import math
import re
import traceback
from functools import partial

import numpy as np

from transformer_course.checking import (
    Checker,
    numpy_rng,
    tolerance,
)
from transformer_course.checking.failure import _is_learner_frame, innermost_learner_traceback
from transformer_course.checking.gates import elementwise_gates
from transformer_course.checking.hints import two_mistakes
from transformer_course.checking.rounding import rounded_variants
from transformer_course.checking.size_one_axes import flat_vector_broadcast
from transformer_course.checking.stand_ins import ignored_arguments, stand_in_sentence, stand_ins
from transformer_course.checking.temperature import (
    COMMON_FACTORS,
    confirmed_scales,
    fitted_temperature,
    named_factors,
    precedence_scales,
)
from transformer_course.reference import attention as ref

from .common import _SCALED_AFTER_SOFTMAX, _SOFTMAX_OVERFLOW, _output_tolerance
from .softmax import _overflows_like_no_max

_ROW_NO_SOFTMAX = (
    "Your weights are the scores themselves, without the softmax. Scaling and softmax are "
    "not optional details (one popular explanation leaves them out): raw scores can be "
    "negative and do not add up to 1, so the output would not be a weighted average of the "
    "values. Turn the scaled scores into weights with your softmax."
)


_ROW_SUM_NORMALISED = (
    "Your weights are the scaled scores divided by their sum. That is not a softmax: "
    "negative scores give negative weights, and a sum near 0 blows the weights up. "
    "Exponentiate first (your softmax does it)."
)
_ROW_NOT_NORMALISED = (
    "Your weights are the exponentials of the scaled scores without dividing by their sum, "
    "so they do not add up to 1. Use your softmax, which normalises."
)
_ROW_ARGMAX = (
    "Your weights put everything on the best-matching key (a one-hot vector): that is a "
    "hard lookup, argmax, not attention. The softmax gives every key a share, larger for "
    "larger scores, so the output blends the values."
)
_ROW_NEGATED = (
    "Your weights are the softmax of the negated scores, softmax(-(keys @ query) / √d_k): "
    "the sign of the scores flipped on the way (max - scores instead of scores - max, or "
    "the query or the keys negated), so the key most similar to the query gets the "
    "smallest weight. The weights grow with the scores: softmax(keys @ query / √d_k)."
)
_ROW_OUTPUT_UNWEIGHTED = (
    "Your output is the plain {how} of the value rows: the weights are not used. Output = "
    "sum over j of weights[j] * values[j], i.e. weights @ values."
)
_ROW_OUTPUT_WEIGHTED_MEAN = (
    "Your output is the weighted sum divided by len_k = {len_k}: a mean over the keys "
    "((weights[:, None] * values).mean(axis=0)). The weights already add up to 1, so the "
    "weighted sum is the average: weights @ values, or np.sum(weights[:, None] * values, "
    "axis=0)."
)
_ROW_OUTPUT_FROM_SCORES = (
    "Your output mixes the values with the scores instead of the weights. Use the weights "
    "(after the softmax), so that the output is a weighted average of the value rows."
)


_ROW_EACH_SCORE_ALONE = (
    "Every one of your weights is 1: each score was normalised on its own (weights @ "
    "values is then the plain sum of the value rows). That is a softmax over an axis of size 1, e.g. "
    "the scores kept as a (len_k, 1) column (keys @ query[:, None]) with the softmax along "
    "its last axis (or exp(s) / exp(s) entry by entry). The softmax runs over the keys: "
    "softmax(keys @ query / √d_k) on the 1-D (len_k,) scores."
)
_ROW_SOFTMAX_TWICE = (
    "Your weights are the softmax of the softmax: your softmax was applied twice (to the "
    "scores, then to its own weights), which flattens them towards uniform. Apply it "
    "once, to the scaled scores."
)


def _row_scales(query, keys, values) -> list[tuple[float, str]]:
    """(a wrong scale, its diagnosis): the numbers the scores may be divided by instead of
    √d_k, in a fixed order (the right one may be among them on some inputs)."""
    d_k, len_k, d_v = query.shape[-1], keys.shape[-2], values.shape[-1]
    root = math.sqrt(d_k)
    candidates = [
        (
            1.0,
            f"Your weights match softmax(keys @ query) with no scaling: the scores were not "
            "divided, or divided by the square root of a d_k that is 1. These inputs cannot "
            "tell the two apart, and for one query vector 1 is what query.ndim (or "
            "len(query.shape)) gives: the number of its axes, not its length. d_k is the "
            f"width of the query and key vectors, query.shape[-1] = len(query) = {d_k} here: "
            f"divide the scores by √d_k = √{d_k} before the softmax.",
        ),
        (
            1.0 / root,
            f"Your weights match scores multiplied by sqrt(d_k) = √{d_k} instead of divided "
            "by it: the scale shrinks the scores, scores = keys @ query / sqrt(d_k).",
        ),
        (
            float(d_k),
            f"Your weights match scores divided by d_k = {d_k} instead of by sqrt(d_k) = "
            f"√{d_k} = {root:.4g}. Either the square root is missing (/ d_k), or √d_k was "
            "applied twice: query and keys each divided by √d_k (their product then shrinks "
            "by d_k), or the scores divided twice. Divide once, the scores by "
            "math.sqrt(d_k).",
        ),
        (
            float(len_k),
            f"Your weights match scores divided by {len_k}, the number of keys (words). d_k is "
            f"not the number of words in the sentence (a popular explanation says so): it is "
            f"the width of each query and key vector, here {d_k}, and the scale is √d_k.",
        ),
        (
            math.sqrt(len_k),
            f"Your weights match scores divided by √{len_k}, the square root of the number of "
            f"keys. d_k is the width of each query and key vector (here {d_k}), not a length; "
            "it does not change when the sentence gets longer.",
        ),
        (
            math.sqrt(d_v),
            f"Your weights match scores divided by √d_v = √{d_v}: you took the width of the "
            f"values. The scale is √d_k, the width of the queries and keys (here {d_k}).",
        ),
    ]
    return candidates


def _row_scale_mistakes(query, keys, values, make, confirmed=None) -> dict[str, np.ndarray]:
    """Diagnoses for a wrong scale, each mapped to the weights it gives (``make(scale)``),
    or to a callable giving them only when ``confirmed(index)`` (a second input agrees)."""
    root = math.sqrt(query.shape[-1])
    return {
        message: make(scale) if confirmed is None else partial(_when, confirmed, index, make, scale)
        for index, (scale, message) in enumerate(_row_scales(query, keys, values))
        if not math.isclose(scale, root)
    }


def _when(confirmed, index: int, make, scale):
    """``make(scale)`` when ``confirmed(index)``, else None (the matcher skips it)."""
    return make(scale) if confirmed(index) else None


#: the input a wrong scale is confirmed on: every named scale (1, 1/√d_k, d_k, len_k,
#: √len_k, √d_v) differs there from the others, from √d_k = 3 and from 2 (√d_v = 2 on
#: the drank input: a learner dividing by a constant 2 matched it)
_ROW_PROBE = (
    numpy_rng(4343).normal(size=9),
    numpy_rng(4344).normal(size=(7, 9)),
    numpy_rng(4345).normal(size=(7, 2)),
)


def _row_scale_confirmed(probe_weights, index: int) -> bool:
    """Whether the learner's weights on :data:`_ROW_PROBE` (``probe_weights()``, None when
    that call failed) are the ones the ``index``-th scale of :func:`_row_scales` gives."""
    weights = probe_weights()
    if weights is None:
        return False
    q, k, v = _ROW_PROBE
    scale = _row_scales(q, k, v)[index][0]
    value = ref.softmax(k @ q / scale)
    return np.shape(weights) == value.shape and bool(
        np.allclose(np.asarray(weights, dtype=np.float64), value, rtol=1e-4, atol=1e-6)
    )


def _row_probe_weights(c, attention_row):
    """The learner's weights on :data:`_ROW_PROBE`, computed on the first request and kept;
    None when the call fails or returns no pair."""
    kept: list = []

    def weights():
        if not kept:
            q, k, v = _ROW_PROBE
            try:
                result = c.call(attention_row, q.copy(), k.copy(), v.copy())
                first = result[0] if isinstance(result, tuple | list) and len(result) == 2 else None
            except Exception:  # CheckFailure included: the main inputs give the message
                first = None
            kept.append(first if isinstance(first, np.ndarray) else None)
        return kept[0]

    return weights


_ROW_COSINE = (
    "Your weights match a softmax of cosine similarities: {which} divided by {their} length "
    "before the dot product{scaled}. Attention compares raw dot products, keys @ query / "
    "√d_k: a key's length is part of how strongly it matches (cosine similarity is lesson "
    "02's measure of how alike two vectors point, not attention's score)."
)


def _cosine_scores(q: np.ndarray, k: np.ndarray, which: str) -> np.ndarray:
    """keys @ query with the keys, the query, or both divided by their lengths (floored
    at a tiny number: a zero vector stays zero, as lesson 02's cosine_similarity has it;
    a plain division's 0 / 0 is :func:`_row_nan_scores_hint`'s)."""
    if which in ("both", "keys"):
        k = k / np.maximum(np.linalg.norm(k, axis=-1, keepdims=True), 1e-12)
    if which in ("both", "query"):
        q = q / max(float(np.linalg.norm(q)), 1e-12)
    return k @ q


def _row_cosine_mistakes(q: np.ndarray, k: np.ndarray) -> dict[str, np.ndarray]:
    """The weights of scores made from unit vectors (cosines), scaled by √d_k or not."""
    mistakes = {}
    root = math.sqrt(q.shape[-1])
    for which, text, their in (
        ("both", "the query and every key", "their"),
        ("keys", "every key (not the query)", "its"),
    ):
        cosines = _cosine_scores(q, k, which)
        with np.errstate(all="ignore"):
            for scale, scaled in ((root, ", then scaled by √d_k"), (1.0, ", with no √d_k")):
                message = _ROW_COSINE.format(which=text, their=their, scaled=scaled)
                mistakes[message] = ref.softmax(cosines / scale)
    return mistakes


def _row_nan_scores_hint(c, attention_row, weights, query, keys, values) -> str:
    """Weights that are all 0 (or NaN) where a key is a zero vector: the scores held a
    NaN (0 / 0), and a softmax gives 0 or NaN for a slice holding one. A probe without
    the zero keys tells whether the scores are cosines; "" when the weights are not so."""
    w = np.asarray(weights, dtype=np.float64)
    zero_keys = np.linalg.norm(keys, axis=-1) == 0
    if not zero_keys.any() or zero_keys.all() or not (np.all(w == 0) or np.isnan(w).all()):
        return ""
    listed = ", ".join(str(int(i)) for i in np.flatnonzero(zero_keys))
    fact = (
        f"Your weights are all {'NaN' if np.isnan(w).all() else '0'}: a softmax gives that "
        f"for scores that hold a NaN. Keys {listed} are zero vectors here, and dividing by "
        "a key's length gives 0 / 0 = NaN for them."
    )
    kept = ~zero_keys
    try:
        probe = c.call(attention_row, query.copy(), keys[kept].copy(), values[kept].copy())
        got = np.asarray(probe[0], dtype=np.float64)
    except Exception:  # the main check reports the learner's errors
        got = None
    q, k = query.astype(np.float64), keys[kept].astype(np.float64)
    if got is not None and got.shape == (int(kept.sum()),):
        for message, wrong in _row_cosine_mistakes(q, k).items():
            if np.allclose(got, wrong, rtol=1e-4, atol=1e-6):
                return f"{fact} Without those keys: {message}"
    return (
        f"{fact} Did you divide by the keys' lengths (normalising them, a cosine similarity)? "
        "Attention uses the raw dot products, keys @ query / √d_k, which need no division "
        "but the scale."
    )


def _output_from_other_weights(output, query, keys, values) -> str:
    """The returned weights are right, but the output is the weighted sum of the value
    rows under the weights of a known weight mistake (a second softmax of the unscaled
    scores, say): those weights named, all that fit; "" otherwise."""
    try:
        got = np.asarray(output, np.float64)  # (d_v,)
        v = np.asarray(values, np.float64)  # (len_k, d_v)
        q, k = np.asarray(query, np.float64), np.asarray(keys, np.float64)
        right = ref.softmax(k @ q / math.sqrt(q.shape[-1]))  # (len_k,) the right weights
    except Exception:  # values the probe cannot read: no verdict
        return ""
    fitting = []
    with np.errstate(all="ignore"):
        for why, weights in _row_weight_mistakes(query, keys, values).items():
            weights = np.asarray(weights, np.float64)
            if weights.shape != right.shape or not np.all(np.isfinite(weights)):
                continue
            if np.allclose(weights, right, rtol=1e-6, atol=1e-9):
                continue
            mixed = weights @ v  # (d_v,)
            if mixed.shape == got.shape and np.allclose(got, mixed, rtol=1e-5, atol=1e-7):
                fitting.append(why.replace("Your weights", "Those weights", 1))
    if not fitting:
        return ""
    return (
        "Your returned weights are right, but your output is not weights @ values: it is the "
        "weighted sum of the value rows under other weights, computed apart from the ones "
        "you return. " + " Or: ".join(fitting) + " Compute the output from the weights you "
        "return: output = weights @ values."
    )


def _row_weight_mistakes(query, keys, values, probe_weights=None) -> dict[str, np.ndarray]:
    """Diagnosis -> the weights that mistake gives; with ``probe_weights`` (the learner's
    weights on :data:`_ROW_PROBE`, on demand) a wrong scale is kept only when it gives
    the learner's weights there too."""
    q, k = np.asarray(query, np.float64), np.asarray(keys, np.float64)
    scores = k @ q  # (len_k,)
    scaled = scores / math.sqrt(q.shape[-1])
    mistakes = _row_scale_mistakes(
        q,
        k,
        values,
        lambda scale: ref.softmax(scores / scale),
        None if probe_weights is None else partial(_row_scale_confirmed, probe_weights),
    )
    mistakes.update(_row_cosine_mistakes(q, k))
    mistakes[_ROW_NO_SOFTMAX] = scaled
    root = math.sqrt(q.shape[-1])
    mistakes[
        _SCALED_AFTER_SOFTMAX.format(d_k=q.shape[-1], total=1 / root, scores="keys @ query")
    ] = ref.softmax(scores) / root
    mistakes[_ROW_NO_SOFTMAX.replace("the scores themselves", "the raw scores")] = scores
    with np.errstate(all="ignore"):
        mistakes[_ROW_SUM_NORMALISED] = scaled / scaled.sum()
        mistakes[_ROW_NOT_NORMALISED] = np.exp(scaled)
        shifted = _ROW_NOT_NORMALISED.replace("exponentials", "shifted exponentials")
        mistakes[shifted] = np.exp(scaled - scaled.max())
    mistakes.update(elementwise_gates(scaled, what="the scaled scores", axis_name="keys"))
    mistakes[_ROW_NEGATED] = ref.softmax(-scaled)
    mistakes[_ROW_SOFTMAX_TWICE] = ref.softmax(ref.softmax(scaled))
    one_hot = np.zeros_like(scores)
    one_hot[int(np.argmax(scores))] = 1.0
    mistakes[_ROW_ARGMAX] = one_hot
    mistakes[_ROW_EACH_SCORE_ALONE] = np.ones_like(scores)
    return mistakes


def _row_precedence(t: float, d_k: int, probe_weights) -> str:
    """The scale t is one of the square root's precedence slips (``d_k ** 1 / 2``): named
    when the learner's weights on :data:`_ROW_PROBE` (d_k = 9) have that scale too, where
    no other size of the call has the same value."""
    if not confirmed_scales([(t, d_k)], precedence_scales):
        return ""
    found = [(t, d_k)]
    weights = probe_weights() if probe_weights is not None else None
    if weights is not None:
        q, k, _ = _ROW_PROBE
        t_probe = fitted_temperature(np.asarray(weights, np.float64), k @ q)
        if t_probe is not None:
            found.append((t_probe, q.shape[-1]))
    names = confirmed_scales(found, precedence_scales)
    if len(found) < 2 or len(names) != 1:
        return ""
    return f" That is {names[0]}."


def _row_rounded_scores(weights, query, keys, probe_weights) -> str:
    """Weights that are the softmax of the scaled scores rounded to whole numbers (``//``
    for ``/``, a cast to int, round): named when the learner's weights on
    :data:`_ROW_PROBE` agree with the same rounding; "" when none fits."""

    def fits(w, q, k) -> set[str]:
        if w is None:
            return set()
        w = np.asarray(w, dtype=np.float64)
        q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)
        scaled = k @ q / math.sqrt(q.shape[-1])
        return {
            name
            for name, rounded in rounded_variants(scaled).items()
            if w.shape == rounded.shape
            and not np.allclose(rounded, scaled)
            and np.allclose(w, ref.softmax(rounded), rtol=1e-4, atol=1e-6)
        }

    here = fits(weights, query, keys)
    if not here:
        return ""
    probe_q, probe_k, _ = _ROW_PROBE
    names = sorted(here & fits(probe_weights(), probe_q, probe_k))
    if not names:
        return ""
    return (
        "Your weights are the softmax of the scaled scores "
        + " or ".join(names)
        + ": keys @ query / √d_k, then softmax, with nothing rounded."
    )


def _size_scales(query, keys) -> dict[str, float]:
    """The factors t (weights = softmax(t · keys @ query)) of a divisor taken from another
    size than d_k, keyed by a description without numbers (a probe of other sizes is
    matched against the same keys)."""
    len_k, d_k = keys.shape
    return {
        "√(len_k · d_k) = √keys.size: numpy's .size is the number of entries of the whole "
        "array (len_k · d_k), not its width as torch's size(-1) is; d_k = keys.shape[-1]": (
            1 / math.sqrt(len_k * d_k)
        ),
        "√len_k, the number of keys (keys.shape[0] or len(keys)); d_k is the width, "
        "keys.shape[-1]": 1 / math.sqrt(len_k),
        "the query's length (np.linalg.norm(query)), where the fixed √d_k belongs": (
            1 / float(np.linalg.norm(query))
        ),
    }


def _row_size_scale(t: float, query, keys, probe_weights) -> str:
    """The divisor read as a wrong size (keys.size, len_k, the query's norm): the names
    that fit t on the call, kept only if they fit the probe too (when it runs)."""
    scales = _size_scales(query, keys)
    here = [name for name, value in scales.items() if math.isclose(t, value, rel_tol=1e-4)]
    if not here:
        return ""
    weights = probe_weights() if probe_weights is not None else None
    if weights is not None:
        q, k, _ = _ROW_PROBE
        t_probe = fitted_temperature(np.asarray(weights, np.float64), k @ q)
        if t_probe is not None:
            probe = _size_scales(q, k)
            here = [name for name in here if math.isclose(t_probe, probe[name], rel_tol=1e-4)]
    if len(here) == 1:
        return f" You divided by {here[0]}."
    if here:
        return " You divided by one of: " + "; or ".join(here) + "."
    return ""


def _row_temperature(weights, query, keys, probe_weights=None) -> str:
    """Weights that are softmax(t · keys @ query) for another t than 1/√d_k (the family of
    a wrong scale of the scores, a temperature, another base of the exponential): the
    factor measured from the learner's weights, and its name when the ratio t·√d_k is a
    known one (2 ** x for e ** x, the scores halved, ...). "" when no t fits."""
    q, k = np.asarray(query, np.float64), np.asarray(keys, np.float64)
    d_k = q.shape[-1]
    t = fitted_temperature(np.asarray(weights, np.float64), k @ q)
    if t is None or abs(t) < 1e-3 or math.isclose(t, 1 / math.sqrt(d_k), rel_tol=1e-4):
        return ""
    ratio = t * math.sqrt(d_k)
    names = named_factors(ratio, COMMON_FACTORS)
    named = f": the scaled scores times {' or '.join(names)}" if names else ""
    precedence = _row_precedence(t, d_k, probe_weights) or _row_size_scale(t, q, k, probe_weights)
    return (
        f"Your weights are softmax(keys @ query × {t:.4g}): the scores are multiplied by "
        f"{t:.4g} (divided by {1 / t:.4g}) where 1/√d_k = 1/√{d_k} = {1 / math.sqrt(d_k):.4g} "
        "belongs (a factor "
        f"{ratio:.4g} off){named}.{precedence} Weights = softmax(keys @ query / √d_k), with "
        "np.exp."
    )


def _row_weight_pairs(query, keys, values) -> dict[str, np.ndarray]:
    """Two mistakes at once: a wrong scale with weights that are not a softmax (no
    softmax, no division by the sum, a division by the sum of the scores). Named only
    when exactly one pair fits (expect_close)."""
    q, k = np.asarray(query, np.float64), np.asarray(keys, np.float64)
    scores = k @ q  # (len_k,)
    pairs = {}
    with np.errstate(all="ignore"):
        for scale_text, scaled in _row_scale_mistakes(q, k, values, lambda c: scores / c).items():
            for text, wrong in (
                (_ROW_NO_SOFTMAX, scaled),
                (_ROW_NOT_NORMALISED, np.exp(scaled)),
                (
                    _ROW_NOT_NORMALISED.replace("exponentials", "shifted exponentials"),
                    np.exp(scaled - scaled.max()),
                ),
                (_ROW_SUM_NORMALISED, scaled / scaled.sum()),
            ):
                if np.isfinite(wrong).all():
                    head = scale_text.replace("Your weights match", "Your weights are")
                    pairs[two_mistakes(head, text)] = wrong
    return pairs


def _row_cases(hidden: bool) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """(label, query (d_k,), keys (len_k, d_k), values (len_k, d_v)) with d_k != d_v."""
    words = ref.CAT_WORDS
    q_drank, q_cat = ref.CAT_QUERIES[words.index("drank")], ref.CAT_QUERIES[words.index("cat")]

    def random_case(seed, len_k, d_k, d_v, dtype=np.float64, scale=1.0):
        rng = numpy_rng(seed)
        query = rng.normal(size=d_k) * scale  # (d_k,)
        keys = rng.normal(size=(len_k, d_k))  # (len_k, d_k)
        values = rng.normal(size=(len_k, d_v))  # (len_k, d_v)
        return query.astype(dtype), keys.astype(dtype), values.astype(dtype)

    sentence = f'"{" ".join(ref.CAT_WORDS).capitalize()}"'
    if not hidden:
        return [
            (f'the query of "drank" over {sentence}', q_drank, ref.CAT_KEYS, ref.CAT_VALUES),
            (f'the query of "cat" over {sentence}', q_cat, ref.CAT_KEYS, ref.CAT_VALUES),
            (
                f'the query of "drank" times 1000 (large scores) over {sentence}',
                q_drank * 1000,
                ref.CAT_KEYS,
                ref.CAT_VALUES,
            ),
            ("random float32 inputs", *random_case(60, len_k=4, d_k=5, d_v=3, dtype=np.float32)),
            ("random inputs with one value feature (d_v = 1)", *random_case(66, 3, 4, 1)),
        ]
    return [
        ("random inputs", *random_case(61, len_k=7, d_k=6, d_v=2)),
        ("random inputs with large scores", *random_case(62, len_k=5, d_k=9, d_v=4, scale=2000.0)),
        ("a single key", *random_case(63, len_k=1, d_k=3, d_v=5)),
        ("a query of zeros (every score 0)", np.zeros(4), *random_case(64, 6, 4, 3)[1:]),
        ("random float32 inputs", *random_case(65, len_k=8, d_k=2, d_v=6, dtype=np.float32)),
        ("one value feature (d_v = 1)", *random_case(67, len_k=5, d_k=3, d_v=1)),
    ]


def _squeezed_hint(shape: tuple, name: str, size: str, fix: str) -> str:
    """The hint for a 0-d array where a 1-D one of one entry belongs (the axis ``size``
    is 1 on this input): a squeeze with no axis dropped it; "" for another shape."""
    if shape != ():
        return ""
    return (
        f"Your {name} is a 0-d array (shape ()), here where {size} = 1: a squeeze with no "
        "axis (np.squeeze(x), x.squeeze()) drops every axis of size 1, this one too, so "
        f"it is right only while {size} > 1. Squeeze only the axis you added "
        f"(np.squeeze(x, axis=0)), or {fix}. "
    )


def _one_result_hint(result, len_k: int, d_v: int) -> str:
    """The hint for a result that is not a pair: one array, which of the two it is."""
    shape = getattr(result, "shape", None)
    alone = {(d_v,): "the output", (len_k,): "the weights"}
    if shape in alone and len_k != d_v:
        return (
            f"You returned one array of shape {shape}: {alone[shape]} alone. Return both, "
            "as a pair: return weights, output."
        )
    return "Return the pair (weights, output)."


_ROW_PRODUCT_SHAPES = (
    "Check the shapes of your matrix products: the scores are keys @ query, "
    "(len_k, d_k) @ (d_k,) -> (len_k,); the output is weights @ values, "
    "(len_k,) @ (len_k, d_v) -> (d_v,)."
)


#: (query (4,), keys (5, 4), values (5, 4)) twice: keys and values of one shape, so that
#: either fits where the other belongs and the results show which one the code read
_ROW_SAME_SHAPE_PROBES = [
    tuple(rng.normal(size=shape) for shape in ((4,), (5, 4), (5, 4)))
    for rng in (numpy_rng(7070), numpy_rng(7071))
]
#: (query, keys, values) the shape of the lesson's sentence, (3,), (6, 3), (6, 4), and other
#: values of each: a code that reads a global array there runs on them
_ROW_SENTENCE_PROBE, _ROW_SENTENCE_OTHERS = (
    tuple(rng.normal(size=shape) for shape in ((3,), (6, 3), (6, 4)))
    for rng in (numpy_rng(7171), numpy_rng(7172))
)
_ROW_GLOBALS = {"query": "CAT_QUERIES[...]", "keys": "CAT_KEYS", "values": "CAT_VALUES"}
_ROW_USES = {"query": "keys @ query", "keys": "keys @ query", "values": "weights @ values"}


def _row_stand_in(attention_row) -> str:
    """The message for a function that reads one argument where another belongs (round 13,
    blind13f-ar-scores-from-values: values @ query) or never reads one (round 20,
    blind19b-ar-scores-from-global-cat-keys: the notebook's CAT_KEYS), found by probes
    (checking.stand_ins); "" when neither fits."""
    names = ("query", "keys", "values")
    pairs = stand_ins(attention_row, ref.attention_row, _ROW_SAME_SHAPE_PROBES, names)
    if pairs:
        found = stand_in_sentence(pairs, lambda arg, other: _ROW_USES[arg].replace(arg, other))
        return (
            "On inputs where the keys and the values have one shape, (5, 4), so that either "
            f"fits where the other belongs, {found}. Here, with d_k != d_v, that breaks a "
            "product. The scores come from the keys, keys @ query; the values only enter the "
            "output, weights @ values."
        )
    ignored = ignored_arguments(
        attention_row, ref.attention_row, _ROW_SENTENCE_PROBE, _ROW_SENTENCE_OTHERS, names
    )
    if len(ignored) != 1:
        return ""
    (name,) = ignored
    return (
        f"On inputs shaped like the lesson's sentence (query (3,), keys (6, 3), values "
        f"(6, 4)), your results stay the same when only the `{name}` argument changes: your "
        f"code never reads its `{name}`. It uses another array in its place, such as the "
        f"notebook's global {_ROW_GLOBALS[name]} left from trying the example, which fits only "
        f"that sentence. Use the function's own argument `{name}`."
    )


#: a residual brought inside attention: the output (d_v,) met the query (d_k,)
_ROW_QUERY_ADDED = (
    "Attention's output is weights @ values alone, (d_v,): nothing of the query's size "
    "(d_k) enters it after the scores. If you added the query to it (output + query, a "
    "residual connection), drop that: the residual x + sublayer(x) belongs to the layer "
    "around attention, not inside it (and it needs d_v == d_model)."
)


def _accumulator_of_query_size(exc: BaseException, d_k: int, d_v: int) -> str:
    """The raising line adds into an array (`name += ...`) that has d_k entries, the
    query's size, where the output has d_v: the accumulator was made like the query
    (round 20, blind12m-ar-output-zeros-like-query: np.zeros_like(query), told about a
    residual); "" otherwise."""
    import linecache

    found = innermost_learner_traceback(exc)
    if found is None:
        return ""
    line = linecache.getline(found.tb_frame.f_code.co_filename, found.tb_lineno)
    target = re.match(r"\s*(\w+)\s*[-+*/]=", line)
    value = found.tb_frame.f_locals.get(target[1]) if target else None
    if not (isinstance(value, np.ndarray) and value.shape == (d_k,)):
        return ""
    return (
        f"Your accumulator `{target[1]}` has d_k = {d_k} entries, the query's shape (made "
        f"with np.zeros_like(query), or np.zeros(d_k)?), where the output has d_v = {d_v}, "
        "one per feature of the values: adding weights[j] * values[j], a (d_v,) row, into it "
        "fails whenever d_v != d_k. Make it the values' width, np.zeros(values.shape[-1]), "
        "or compute the output at once: weights @ values."
    )


def _row_d_v_met_d_k(exc: BaseException, d_v: int, d_k: int) -> str:
    """The hint for a broadcast error between a (d_v,) and a (d_k,) vector: the output
    combined element-wise with the query (or a key); "" for other shapes."""
    found = re.search(r"broadcast together with shapes \((\d+),\) \((\d+),\)", str(exc))
    if d_v == d_k or not found or {int(found[1]), int(found[2])} != {d_v, d_k}:
        return ""
    if accumulator := _accumulator_of_query_size(exc, d_k, d_v):
        return accumulator
    return (
        f"A vector of {d_v} entries (d_v: the output, weights @ values) met one of {d_k} "
        "(d_k: the query, or a key) element-wise. " + _ROW_QUERY_ADDED
    )


#: float products added into an integer array: numpy refuses the cast (UFuncTypeError)
_INTEGER_ACCUMULATOR = re.compile(
    r"Cannot cast ufunc '\w+' output from dtype\('float\d*'\) to dtype\('u?int"
)
_ROW_INTEGER_ACCUMULATOR = (
    "Float results were written into an integer array: an accumulator made with an "
    "integer dtype (np.zeros(d_v, dtype=int), np.zeros_like of an integer array, or a "
    "np.array of integer literals) cannot hold weights[j] * values[j], and numpy refuses to "
    "cast the floats to integers in +=. Create it as floats: np.zeros(d_v) (float64 by "
    "default) or np.zeros(d_v, dtype=values.dtype), or compute weights @ values directly."
)


def _product_sizes(exc: BaseException) -> tuple[int, int] | None:
    """(entries of the left operand, rows of the right one) of a failed numpy product,
    read from its error text (np.matmul / @, np.dot); None when it is not one."""
    if found := re.search(r"size (\d+) is different from (\d+)", str(exc)):
        return int(found.group(2)), int(found.group(1))
    if found := re.search(r"shapes \(([\d, ]*)\) and \(([\d, ]*)\) not aligned", str(exc)):
        left, right = ([int(n) for n in group.split(",") if n.strip()] for group in found.groups())
        if left and right:
            return left[-1], right[-2] if len(right) > 1 else right[0]
    return None


def _row_per_feature_hint(exc: BaseException, len_k: int, d_k: int) -> str:
    """A vector of d_k entries met a matrix of len_k rows (told apart only when d_k !=
    len_k): the failing line tells which product it was, the weights' (values in it) or
    the scores' (keys in it); "" otherwise."""
    if len_k == d_k or _product_sizes(exc) != (d_k, len_k):
        return ""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_learner_frame(f.filename)]
    line = (frames[-1].line or "") if frames else ""
    scores_axis = (
        "Each score is query · key_i, a sum over the d_k features of one key: keys @ query, "
        "or (keys * query).sum(axis=-1)."
    )
    if "values" in line and "keys" not in line:
        return (
            f"The vector multiplied by the values has d_k = {d_k} entries, one per feature, "
            f"where the weights have one per key (len_k = {len_k}): your scores were summed "
            "over the keys (axis 0) instead of over the features, which gives one number per "
            f"feature, shape (d_k,) instead of (len_k,). {scores_axis}"
        )
    if "keys" in line and "values" not in line:
        return (
            f"The failing product puts a vector of d_k = {d_k} entries before the keys, "
            f"(len_k, d_k) = ({len_k}, {d_k}): query @ keys pairs the query's features with "
            f"the keys' rows. {scores_axis}"
        )
    return (
        f"A vector of d_k = {d_k} entries, one per feature, met a matrix of len_k = {len_k} "
        "rows: either the scores were summed over the keys (axis 0) instead of over the "
        "features (then the weights have d_k entries), or the query was put before the keys "
        f"(query @ keys). {scores_axis}"
    )


def _scores_returned_note(weights, output, query, keys, values) -> str:
    """Weights that are the (scaled or raw) scores while the output is right: the softmax
    is computed and used for the output, and the scores are returned in the weights' place
    (round 20, blind17f-ar-returns-scores-as-weights, was told the softmax was left out).
    "" otherwise."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (query, keys, values))
    w64, out64 = (np.asarray(a, dtype=np.float64) for a in (weights, output))
    right_w, right_out = ref.attention_row(q, k, v)
    if out64.shape != right_out.shape or not np.allclose(out64, right_out, rtol=1e-4, atol=1e-5):
        return ""
    scores = k @ q  # (len_k,)
    for name, candidate in (
        ("scaled scores", scores / math.sqrt(q.shape[-1])),
        ("raw scores", scores),
    ):
        if (
            w64.shape == candidate.shape
            and not np.allclose(candidate, right_w, atol=1e-6)
            and np.allclose(w64, candidate, rtol=1e-4, atol=1e-5)
        ):
            return (
                f"Your `weights` are the {name}, the values before the softmax, while your "
                "output is right: your code computes the softmax and mixes the values with "
                "it, but returns the scores in the weights' place instead of the weights. "
                "Return the softmax's result: return weights, output."
            )
    return ""


def _row_scale_moved_to_output(weights, output, query, keys, values) -> str:
    """Weights that are the softmax of the unscaled scores, with an output that is their
    weighted sum divided by √d_k (or d_k): the scale applied after the softmax, to the
    output or to the values, instead of to the scores. "" otherwise."""
    d_k = query.shape[-1]
    q64, k64, v64 = (a.astype(np.float64) for a in (query, keys, values))
    unscaled = ref.softmax(k64 @ q64)  # (len_k,)
    w64, out64 = (np.asarray(a, dtype=np.float64) for a in (weights, output))
    if (
        d_k == 1
        or np.allclose(unscaled, ref.softmax(k64 @ q64 / math.sqrt(d_k)), rtol=1e-4, atol=1e-6)
        or w64.shape != unscaled.shape
        or out64.shape != (values.shape[-1],)
        or not np.allclose(w64, unscaled, rtol=1e-4, atol=1e-6)
    ):
        return ""
    mixed = w64 @ v64  # (d_v,)
    for divisor, shown in ((math.sqrt(d_k), f"√d_k = √{d_k}"), (float(d_k), f"d_k = {d_k}")):
        if np.allclose(out64, mixed / divisor, rtol=1e-4, atol=1e-6):
            return (
                f"Your weights match softmax(keys @ query) with no scaling, and your output is "
                f"weights @ values divided by {shown}: the scale went onto the output (or the "
                "values), not onto the scores. Dividing "
                "the output only shrinks it; dividing the scores is what keeps the softmax "
                "from saturating. Scale the scores: softmax(keys @ query / √d_k), then "
                "weights @ values as it is."
            )
    return ""


def check_attention_row(attention_row, *, hidden: bool = False) -> None:
    """(weights, output) = attention_row(query, keys, values), one query, numpy.

    Required: weights (len_k,) = softmax(keys @ query / √d_k), output (d_v,) = weights @
    values, within a tolerance that fits the dtype; the inputs left unchanged; no
    overflow on large scores. Accepted: any floating dtype; a list or tuple pair.
    """
    with Checker("attention_row", hidden=hidden) as c:
        c.require_callable(attention_row)
        for label, query, keys, values in _row_cases(hidden):
            (d_k,), (len_k, _), (_, d_v) = query.shape, keys.shape, values.shape
            shown = (
                f"attention_row(query {query.shape}, keys {keys.shape}, values {values.shape}, "
                f"{query.dtype!s})"
            )
            result = c.call(
                attention_row,
                query.copy(),
                keys.copy(),
                values.copy(),
                call_repr=shown,
                hints=[
                    (
                        lambda exc: bool(_INTEGER_ACCUMULATOR.search(str(exc))),
                        _ROW_INTEGER_ACCUMULATOR,
                    ),
                    (
                        ValueError,
                        lambda exc, d_v=d_v, d_k=d_k: _row_d_v_met_d_k(exc, d_v, d_k),
                    ),
                    (
                        ValueError,
                        lambda exc, len_k=len_k, d_k=d_k: _row_per_feature_hint(exc, len_k, d_k),
                    ),
                    (
                        lambda exc, len_k=len_k, d_k=d_k: (
                            not _row_per_feature_hint(exc, len_k, d_k)
                            and re.search("mismatch in its core dimension|not aligned", str(exc))
                        ),
                        lambda exc: _row_stand_in(attention_row) or _ROW_PRODUCT_SHAPES,
                    ),
                    (
                        ValueError,
                        lambda exc, len_k=len_k, d_v=d_v, d_k=d_k: (
                            ""  # the output met the query: the hint above says so
                            if _row_d_v_met_d_k(exc, d_v, d_k)
                            else flat_vector_broadcast(
                                exc, {len_k: "len_k, one per key", d_v: "d_v", d_k: "d_k"}
                            )
                        ),
                    ),
                ],
                mutation_hint="For example query /= np.sqrt(d_k) changes the caller's array: "
                "write query = query / np.sqrt(d_k), or scale the scores instead.",
            )
            what = f"On {label}, {shown}"
            c.expect_type(result, tuple | list, what, _one_result_hint(result, len_k, d_v))
            c.expect_true(
                len(result) == 2,
                f"{what} returned {len(result)} items: return exactly (weights, output).",
            )
            weights, output = result
            numpy_hint = "Return numpy arrays (np.exp and @ on the numpy inputs give them)."
            # an output that is a numpy scalar: a sum over every axis, not a type to convert
            scalar = (
                "It is a single number: a sum with no axis (np.sum(weights[:, None] * values)) "
                "adds up every entry. The output is the weighted sum over the keys only, "
                "(d_v,): weights @ values, or np.sum(weights[:, None] * values, axis=0)."
            )
            c.expect_type(weights, np.ndarray, what + ": the weights (first item)", numpy_hint)
            c.expect_type(
                output,
                np.ndarray,
                what + ": the output (second item)",
                scalar if isinstance(output, np.generic) else numpy_hint,
            )
            if weights.shape == (d_v,) and output.shape == (len_k,):
                c.fail(f"{what}: return (weights, output), in that order.")
            if d_v == 1 and output.shape == (d_k,):  # (1,) + (d_k,) broadcasts
                added = np.asarray(output, dtype=np.float64) - query.astype(np.float64)
                exp_out = ref.attention_row(  # (d_v,)
                    query.astype(np.float64), keys.astype(np.float64), values.astype(np.float64)
                )[1]
                if np.allclose(added, exp_out, atol=1e-4):
                    c.fail(
                        f"{what}: the output should have shape ({d_v},), but it has shape "
                        f"({d_k},): it is the right output plus the query, broadcast over "
                        f"d_k = {d_k} entries. " + _ROW_QUERY_ADDED
                    )
            c.expect_shape(
                weights,
                (len_k,),
                what + ": the weights",
                "One weight per key: (len_k,). "
                + (
                    f"Your weights were kept as a ({len_k}, 1) column (len_k, 1), e.g. the "
                    "softmax of scores[:, None] along axis 0 so that they broadcast against "
                    f"the values, instead of a ({len_k},) vector: the output may be right, "
                    "but the weights must come back 1-D. Drop the extra axis (weights[:, 0] "
                    "or softmax(scores) on the 1-D scores). "
                    if weights.shape == (len_k, 1)
                    else _squeezed_hint(
                        weights.shape, "weights", "len_k", "compute softmax(keys @ query / √d_k)"
                    )
                    or "Squeeze the extra dim of size 1. "
                    if weights.size == len_k
                    else ""
                ),
            )
            c.expect_shape(
                output,
                (d_v,),
                what + ": the output",
                "The output mixes the *values*, not the keys: weights @ values, shape (d_v,)."
                if output.shape == (d_k,)
                else _squeezed_hint(output.shape, "output", "d_v", "compute weights @ values")
                + "Output = weights @ values: (len_k,) @ (len_k, d_v) -> (d_v,)."
                if output.shape == () and d_v == 1
                else "Output = weights @ values: (len_k,) @ (len_k, d_v) -> (d_v,); a "
                "weighted sum over the keys, one number per value feature.",
            )
            c.expect_floating(weights, "your weights", preferred=query.dtype)
            c.expect_floating(output, "your output", preferred=query.dtype)
            exp_w, exp_out = ref.attention_row(
                query.astype(np.float64), keys.astype(np.float64), values.astype(np.float64)
            )
            probe_weights = _row_probe_weights(c, attention_row)
            finite = np.isfinite(np.asarray(weights, dtype=np.float64)).all()
            scores = keys.astype(np.float64) @ query.astype(np.float64) / math.sqrt(d_k)
            if not finite and _overflows_like_no_max(
                np.asarray(weights, dtype=np.float64), scores, -1
            ):
                c.fail(
                    f"{what}: your `weights` are exp(scores) / sum(exp(scores)) computed as "
                    "written, NaN exactly where that overflows (the largest score here is "
                    f"{float(scores.max()):.4g}). " + _SOFTMAX_OVERFLOW
                )
            moved = _row_scale_moved_to_output(weights, output, query, keys, values)
            if moved:
                c.fail(f"{what}: your `weights` are not what the reference gives. {moved}")
            nan_scores = _row_nan_scores_hint(c, attention_row, weights, query, keys, values)
            if nan_scores:
                c.fail(f"{what}: your `weights` are not what the reference gives. {nan_scores}")
            if returned := _scores_returned_note(weights, output, query, keys, values):
                c.fail(f"{what}: your `weights` are not what the reference gives. {returned}")
            c.expect_close(
                weights,
                exp_w,
                what + ": your `weights`",
                **tolerance(weights.dtype, query.dtype),
                hint=(
                    "Weights = softmax(keys @ query / √d_k) with d_k = query.shape[-1]."
                    if finite
                    else "These scores are large: " + _SOFTMAX_OVERFLOW
                ),
                mistakes=_row_weight_mistakes(query, keys, values, probe_weights),
                pairs=_row_weight_pairs(query, keys, values),
                explain=lambda weights=weights, query=query, keys=keys, probe_weights=probe_weights: (
                    _row_temperature(weights, query, keys, probe_weights)
                    or _row_rounded_scores(weights, query, keys, probe_weights)
                ),
            )
            v64 = values.astype(np.float64)
            c.expect_close(
                output,
                exp_out,
                what + ": your `output`",
                **_output_tolerance(output.dtype, query.dtype, values=values),
                hint="Your weights are right, so check the last step: output = weights @ values, "
                "the weighted sum of the value rows.",
                explain=lambda output=output, query=query, keys=keys, values=values: (
                    _output_from_other_weights(output, query, keys, values)
                ),
                mistakes={
                    _ROW_OUTPUT_UNWEIGHTED.format(how="mean"): v64.mean(axis=0),
                    _ROW_OUTPUT_UNWEIGHTED.format(how="sum"): v64.sum(axis=0),
                    _ROW_OUTPUT_FROM_SCORES: (keys.astype(np.float64) @ query / math.sqrt(d_k))
                    @ v64,
                    _ROW_OUTPUT_WEIGHTED_MEAN.format(len_k=len_k): (
                        exp_out / len_k if len_k > 1 else None
                    ),
                },
            )
