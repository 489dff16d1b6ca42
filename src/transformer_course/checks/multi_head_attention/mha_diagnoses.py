"""``MultiHeadAttention``'s diagnoses: the known mistakes (as knobs of the float64 oracle
:func:`~transformer_course.checking.oracles.multi_head_attention_f`), the ones that agree
with the learner's module on every case it runs, and the explanations of a wrong shape, a
length mix-up in cross-attention, a wrong scale and heads paired with the wrong heads.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from typing import Any

import torch

from transformer_course.checking.extra_steps import extra_output_steps
from transformer_course.checking.inputs import randn
from transformer_course.checking.layers import mistake_pairs, value_or_none
from transformer_course.checking.modules import random_state
from transformer_course.checking.oracles import multi_head_attention_f
from transformer_course.checking.scale_placement import scaled_before_projection

from .mha_cases import _Case, _inputs, _state_shapes

_TRANSPOSED = (
    "nn.Linear keeps its weight as (out_features, in_features) and computes x @ weight.T + "
    "bias: call the layer, self.{0}(x), rather than multiplying by self.{0}.weight yourself "
    "(or multiply by its transpose, .T)."
)

_KV_FROM_QUERY = (
    "Your keys and values come from `query`: in cross-attention they come from `key` and "
    "`value`, the encoder output, and only the queries come from `query`, the decoder. "
    "Project `key` with w_k and `value` with w_v."
)
_Q_FROM_KEY = (
    "Your queries come from `key`, the encoder output. In cross-attention the queries come "
    "from `query` (the decoder), the keys and values from `key`/`value` (the encoder output); "
    "some popular explanations get this backwards."
)

_SCALED_AFTER_SOFTMAX = (
    "You divided by sqrt(d_head) after the softmax (softmax(scores) / sqrt(d_head)): your "
    "weights are those of the unscaled scores, and each row sums to 1 / sqrt(d_head), not 1. "
    "Scale the scores before the softmax: softmax(q k^T / sqrt(d_head))."
)
# A bool mask added to the scores as if it were an additive float mask (round 18,
# blind15d-mha-inline-bool-mask-added; before: told the mask is not applied).
_BOOL_MASK_ADDED = (
    "You added the bool mask to the scores (scores + mask): True counts as 1 and False as "
    "0, so the keys the mask allows get a bonus of +1 and the ones it forbids are not "
    "blocked. The course's mask is bool, True = may attend, not an additive mask of 0 and "
    "-inf: block with it, scores.masked_fill(~mask, float('-inf')), before the softmax."
)


def _bool_mask_added_weights(args: tuple) -> torch.Tensor | None:
    """The weights of softmax(scores + mask), the bool mask counted as 1 and 0: the
    unmasked weights times e^mask, renormalised over the keys (float64)."""
    mask = args[4]
    if mask is None:
        return None
    unmasked = multi_head_attention_f(*args, mask_mode="none")[1]  # (b, h, len_q, len_k)
    boosted = unmasked * torch.exp(mask.double())  # the mask broadcasts to the weights
    return boosted / boosted.sum(dim=-1, keepdim=True)


# (knobs of multi_head_attention_f, diagnosis): mistakes visible in the attention weights ...
_WEIGHT_MISTAKES = [
    (
        {"scale": "sqrt_d_model"},
        "You divided the scores by sqrt(d_model); the scale is sqrt(d_k) with d_k = d_head = "
        "d_model / num_heads, the width of the vectors whose dot products you take.",
    ),
    (
        {"scale": "none"},
        "You did not scale the scores: divide q k^T by sqrt(d_head) before the softmax. (If "
        "your code does divide, its result is thrown away: `scores / math.sqrt(d_head)` or "
        "`scores.div(...)` on a line of its own returns a new tensor and leaves scores as they "
        "were; assign it, scores = scores / math.sqrt(d_head).)",
    ),
    (
        {"scale": "d_head"},
        "You divided the scores by d_head; the paper divides by its square root, sqrt(d_head). "
        "(Scaled twice? scaled_dot_product_attention already divides by sqrt(d_head): queries "
        "or scores scaled by you before the call are scaled again.)",
    ),
    (
        {"transposed": ("w_q", "w_k", "w_v")},
        "Your queries, keys and values are x @ w.weight + w.bias, the stored weights applied "
        "untransposed. " + _TRANSPOSED.format("w_q"),
    ),
    (
        {"transposed": ("w_q", "w_k")},
        "Your queries and keys are x @ w.weight + w.bias, the stored weights applied "
        "untransposed. " + _TRANSPOSED.format("w_q"),
    ),
    ({"q_from": "key"}, _Q_FROM_KEY),
    ({"q_from": "value"}, "Your queries come from the `value` input: project `query` with w_q."),
    ({"k_from": "query"}, _KV_FROM_QUERY),
    ({"k_proj": "w_q"}, "Your keys look like `key` projected with w_q: project the keys with w_k."),
    ({"k_proj": "w_v"}, "Your keys look like `key` projected with w_v: project the keys with w_k."),
    (
        {"split": "no_transpose"},
        "Your heads are not the ones split_heads makes: after the projections, reshape to "
        "(batch, len, num_heads, d_head) and then transpose(1, 2); a direct reshape to "
        "(batch, num_heads, len, d_head) mixes tokens into each head.",
    ),
    (
        {"softmax_dim": -2},
        "You took the softmax over the queries (dim=-2); each query's weights must sum to 1 "
        "over the keys: softmax over the last axis.",
    ),
    (
        {"mask_mode": "none"},
        "Your attention ignores the mask: keys the mask forbids get weight, exactly as with no "
        "mask. Either the mask never reaches the scores (pass it on to the attention), or the "
        "masking step's result is thrown away: scores.masked_fill(~mask, ...) returns a new "
        "tensor and leaves scores as they were, so assign it (scores = scores.masked_fill(~mask, "
        "float('-inf'))) or use the in-place masked_fill_. Blocked scores become -inf or a "
        "large negative number before the softmax; the mask broadcasts to (batch, num_heads, "
        "len_q, len_k).",
    ),
    (
        {"fill": 0.0},
        "Your blocked scores become 0 or practically 0 (the scores multiplied by the mask, "
        "masked_fill with 0, or a fill value close to 0 such as -1e-9, a typo for -1e9: the "
        "weights cannot tell these apart), not -inf: a score of about 0 is an ordinary score, "
        "so the softmax still gives the keys the mask forbids weight. Fill them with -inf (or "
        "a large negative number such as -1e9) before the softmax: "
        "scores.masked_fill(~mask, float('-inf')).",
    ),
    (
        {"mask_mode": "after"},
        "You applied the mask after the softmax (the weights multiplied by it): the keys the "
        "mask forbids get 0, but the remaining weights of those rows no longer add up to 1. "
        "Apply it to the scaled scores before the softmax (blocked scores become -inf or a "
        "large negative number), so that the softmax renormalises over the allowed keys.",
    ),
]
# A causal triangle of the layer's own on every call, nanoGPT's CausalSelfAttention habit
# (round 14, blind14d-mha-always-causal: told only "the weights differ").
_WEIGHT_MISTAKES.append(
    (
        {"is_causal": True},
        "Your attention applies a causal (look-ahead) triangle of its own on every call: "
        "query i sees only keys 0 .. i even with mask=None or a padding mask, as if the "
        "look-ahead mask were always given (nanoGPT's CausalSelfAttention builds it in). "
        "MultiHeadAttention also serves the encoder's self-attention and the cross-attention, "
        "which may attend to later keys: apply only the mask it is given (the decoder passes "
        "the look-ahead mask itself).",
    )
)
# The projections family: one slot of q/k/v/o given another slot's weights, and the keys'
# and values exchanged (their inputs, or inputs and projections: attention(q, v, k)).
_WEIGHT_MISTAKES += [
    (
        {"k_proj": "w_o"},
        "Your keys look like `key` projected with w_o: project the keys with w_k.",
    ),
    (
        {"k_from": "value", "k_proj": "w_v", "v_from": "key", "v_proj": "w_k"},
        "Your keys and values are exchanged: your scores use the projected values (w_v of "
        "`value`) as keys, and your heads mix the projected keys (w_k of `key`), as "
        "scaled_dot_product_attention(q, v, k) computes. The order is (q, k, v): the keys "
        "decide the weights, the values are what gets mixed.",
    ),
    (
        {"k_from": "value", "v_from": "key"},
        "Your keys come from `value` and your values from `key`: the two inputs are "
        "exchanged. Project `key` with w_k and `value` with w_v.",
    ),
    (
        {"q_proj": "w_k", "k_proj": "w_q"},
        "Your queries are projected with w_k and your keys with w_q: the two projections "
        "are exchanged (self.w_k(query), self.w_q(key)), which turns every head's scores "
        "into k qᵀ, the transpose of q kᵀ (when query and key are one tensor, computing "
        "the scores as k @ q.transpose(-2, -1) gives the same numbers). Project query with "
        "w_q and key with w_k: scores = q @ k.transpose(-2, -1).",
    ),
    (
        {"q_proj": "w_k"},
        "Your queries look like `query` projected with w_k: project the queries with w_q.",
    ),
    (
        {"q_proj": "w_v"},
        "Your queries look like `query` projected with w_v: project the queries with w_q.",
    ),
]
# A projection applied without its bias (F.linear(x, w.weight), x @ w.weight.T): the
# queries' shows in the weights (the keys' never does: a bias on every key adds one
# constant to each query's scores, which the softmax removes), the values' in the output.
_NO_BIAS = (
    "{who} went through {names} without {its} bias: F.linear(x, w.weight) (or x @ "
    "w.weight.T) leaves it out. Call the layer itself, {call}, which adds its bias (the "
    "state dict holds w_q.bias, w_k.bias, w_v.bias and w_o.bias)."
)
_WEIGHT_MISTAKES += [
    (
        {"no_bias": ("w_q",)},
        _NO_BIAS.format(who="Your queries", names="w_q", its="its", call="self.w_q(query)"),
    ),
    (
        {"no_bias": ("w_q", "w_k", "w_v")},
        _NO_BIAS.format(
            who="Your queries, keys and values",
            names="w_q, w_k, w_v",
            its="their",
            call="self.w_q(query), self.w_k(key), self.w_v(value)",
        ),
    ),
]
# ... and mistakes that only the output shows.
_OUTPUT_MISTAKES = [
    (
        {"use_w_o": False},
        "You left out the output projection: the concatenated heads still go through w_o.",
    ),
    (
        {"merge": "no_transpose"},
        "You merged the heads with a reshape but without transpose(1, 2) first, so each output "
        "token is cut out of one head's block of numbers.",
    ),
    (
        {"transposed": ("w_v",)},
        "Your values are value @ w_v.weight + w_v.bias, the stored weight applied untransposed. "
        + _TRANSPOSED.format("w_v"),
    ),
    (
        {"transposed": ("w_o",)},
        "Your output projection is heads @ w_o.weight + w_o.bias, the stored weight applied "
        "untransposed. " + _TRANSPOSED.format("w_o"),
    ),
    (
        {"v_proj": "w_k"},
        "Your values look like `value` projected with w_k: project the values with w_v.",
    ),
    (
        {"v_proj": "w_q"},
        "Your values look like `value` projected with w_q: project the values with w_v.",
    ),
    (
        {"v_proj": None},
        "Your values are not projected: apply w_v to `value` before splitting into heads.",
    ),
    (
        {"v_proj": "w_o"},
        "Your values look like `value` projected with w_o: project the values with w_v.",
    ),
    *(
        (
            {"o_proj": name},
            f"Your output projection is {name}: the merged heads go through self.{name} "
            "where self.w_o belongs (a copied line?). Project the merged heads with w_o.",
        )
        for name in ("w_q", "w_k", "w_v")
    ),
    (
        {"v_from": "key"},
        "Your values come from the `key` input: the values are `value` projected with w_v.",
    ),
    (
        {"v_from": "query"},
        "Your values come from the `query` input: the values are `value` projected with w_v. "
        "In cross-attention the values come from the encoder output, like the keys.",
    ),
]
_OUTPUT_MISTAKES.append(
    (
        {"no_bias": ("w_v",)},
        _NO_BIAS.format(who="Your values", names="w_v", its="its", call="self.w_v(value)"),
    )
)


def _mistake_values(table, part: int, args: tuple) -> dict:
    """{message: zero-argument callable giving the output (part 0) or weights (part 1)}."""

    def value(knobs):
        try:
            return multi_head_attention_f(*args, **knobs)[part]
        except RuntimeError:  # a mistake that cannot happen with these shapes
            return None

    return {message: (lambda knobs=knobs: value(knobs)) for knobs, message in table}


def _weights_shape_hint(
    got: tuple,
    batch: int,
    num_heads: int,
    len_q: int,
    len_k: int,
    d_model: int = 0,
    fits=None,
) -> str:
    """``fits(k)``: whether the learner's weights are those of k heads (the float64 oracle's);
    a head count other than num_heads is named as the cause only when they are."""
    d_head = d_model // num_heads
    if d_model and d_head != num_heads and tuple(got) == (batch, d_head, len_q, len_k):
        return (
            f"Your weights have {d_head} heads, d_head = d_model // num_heads = {d_model} // "
            f"{num_heads}, instead of num_heads = {num_heads}: either the number of heads and "
            "the width of a head are swapped (split_heads(x, num_heads) takes the number "
            "of heads; it computes d_head itself), or a head count written as a number that "
            f"is {d_head} here: use the num_heads the module was built with."
        )
    hints = {
        (batch, len_q, len_k): "Those are weights averaged over the heads (what "
        "nn.MultiheadAttention returns by default); return every head's weights, "
        "(batch, num_heads, len_q, len_k).",
        (batch, num_heads, len_k, len_q): "Your scores are transposed: compute q @ k^T, one row "
        "per query and one column per key.",
    }
    if len_q != len_k:
        hints[(batch, num_heads, len_k, len_k)] = f"You have one row per *key*. {_Q_FROM_KEY}"
        hints[(batch, num_heads, len_q, len_q)] = (
            f"You have one column per *query*. {_KV_FROM_QUERY}"
        )
    got = tuple(got)
    if (
        got not in hints
        and len(got) == 4
        and (got[0], got[2], got[3]) == (batch, len_q, len_k)
        and got[1] != num_heads
    ):  # blind9d-mha-num-heads-hardcoded-8
        if fits is not None and not fits(got[1]):
            return (
                f"Your weights have {got[1]} heads where this MultiHeadAttention was built with "
                f"num_heads = {num_heads}, and they are not the weights of {got[1]} heads either: "
                "return every head's weights, (batch, num_heads, len_q, len_k)."
            )
        return (
            f"Your weights have {got[1]} heads where this MultiHeadAttention was built with "
            f"num_heads = {num_heads}: the heads are split with another number than the "
            f"argument (a fixed {got[1]}?). Split with self.num_heads, the value "
            "given to __init__."
        )
    return hints.get(got, "")


_MAT_SHAPES = re.compile(r"\((\d+)x(\d+) and (\d+)x(\d+)\)")
_RESHAPE_REQUEST = re.compile(r"shape '\[([-\d, ]+)\]' is invalid for input of size (\d+)")


def _heads_axis_kept_in_merge(case: _Case, positions, width, rows, cols) -> str:
    """w_o given batch * num_heads rows of len_q * d_head numbers: the merged tensor is
    (batch, num_heads, len_q * d_head), the heads axis left second. merge_heads received
    heads already transposed to (batch, len_q, num_heads, d_head) and transposed them again
    (reading len_q as the number of heads), or the merge reshaped without moving the heads
    axis; these shapes cannot tell the two apart, so both are named. "" otherwise."""
    d_head = case.d_model // case.num_heads
    if positions is None or case.num_heads == case.len_q:
        return ""
    if (positions, width, rows, cols) != (
        case.batch * case.num_heads,
        case.len_q * d_head,
        case.d_model,
        case.d_model,
    ):
        return ""
    return (
        f"w_o received {positions} rows of {width} numbers: batch * num_heads = "
        f"{case.batch} * {case.num_heads} rows, each len_q * d_head = {case.len_q} * {d_head} "
        f"wide, so the merged heads are (batch, num_heads, len_q * d_head) = ({case.batch}, "
        f"{case.num_heads}, {width}) where (batch, len_q, d_model) = ({case.batch}, "
        f"{case.len_q}, {case.d_model}) belongs: the heads axis is still second after the "
        "merge. Either the heads were transposed to (batch, len_q, num_heads, d_head) before "
        "merge_heads, which transposes them itself (transposed twice: it then reads len_q as "
        "the number of heads), or the merge reshaped without moving the heads axis "
        "(reshape(batch, num_heads, -1)). Pass merge_heads the heads as attention returns "
        "them, (batch, num_heads, len_q, d_head), and let it move the axis once: "
        "x.transpose(1, 2).reshape(batch, len_q, num_heads * d_head)."
    )


def _head_width_projection_hint(case: _Case) -> list:
    """A d_model -> d_model projection given one head's d_head-wide vectors (blind10g-mha-
    output-projection-before-merge, w_o before merge_heads: only the generic matmul advice,
    whose 'usual cause' is a transpose). Which projection the line shown names; the shapes
    alone tell that it acted on split heads."""
    d_head = case.d_model // case.num_heads

    def text(exc: BaseException) -> str:
        found = _MAT_SHAPES.search(str(exc))
        request = _RESHAPE_REQUEST.search(str(exc))
        if case.num_heads == 1 or not (found or request):
            return ""
        positions = None  # the rows mat1 had: batch * (whatever stood as the length)
        if found:
            positions, width, rows, cols = (int(n) for n in found.groups())
        else:  # the merge's reshape refused heads d_model wide: as many numbers as w_o's
            width, rows, cols = 0, 0, 0
            numbers = int(request.group(2))
            if numbers == case.batch * case.num_heads * case.len_q * case.d_model:
                width, rows, cols = case.num_heads * case.d_model, case.d_model, case.d_model
        merged_twice = _heads_axis_kept_in_merge(case, positions, width, rows, cols)
        if merged_twice:
            return merged_twice
        if (width, rows, cols) == (case.num_heads * case.d_model, case.d_model, case.d_model) and (
            positions in (None, case.batch * case.len_q)
        ):
            # heads d_model wide: values never split into heads (round 12, blind12d-mha-
            # dropout-heads-from-raw-value: self.dropout(weights) @ value in training)
            where = (
                " In train mode, check first the line that recomputes the heads from the "
                "dropped-out weights: heads = self.dropout(weights) @ v."
                if case.train
                else " Write heads = weights @ v."
            )
            return (
                f"The merged heads are {width} wide per position, num_heads * d_model (w_o "
                f"takes {case.d_model}): each head came out d_model wide instead of d_head, so "
                "the weights "
                "multiplied values that were never split into heads: @ value (the layer's input, "
                "(batch, len_k, d_model)) or w_v(value) unsplit, instead of @ v, the projected "
                f"values split into heads (batch, num_heads, len_k, d_head).{where}"
            )
        if (width, rows, cols) != (d_head, case.d_model, case.d_model):
            return ""
        return (
            f"A d_model -> d_model projection (in_features {case.d_model}) received vectors "
            f"{d_head} wide, one head's d_head: it ran on the split heads. The projections act "
            "on d_model-wide vectors: w_q, w_k and w_v before split_heads, w_o after "
            "merge_heads, on the concatenated heads: self.w_o(merge_heads(heads))."
        )

    return [
        ("mat1 and mat2 shapes cannot be multiplied", text),
        ("is invalid for input of size", text),
    ]


def _output_shape_hint(got: tuple, case: _Case) -> str:
    b, h, lq, lk, d = case.batch, case.num_heads, case.len_q, case.len_k, case.d_model
    hints = {
        (b, h, lq, d // h): "That is still split into heads: merge them "
        "(batch, len_q, num_heads * d_head) and apply w_o.",
        (b, lq, h, d // h): "Flatten the last two axes: (batch, len_q, d_model).",
    }
    if lq != lk:
        hints[(b, lk, d)] = f"You have one output row per *key*. {_Q_FROM_KEY}"
    return hints.get(tuple(got), "There is one output row per query: (batch, len_q, d_model).")


def _length_mixup_hint(case: _Case):
    """A hint for a shape error that mixes len_q and len_k in cross-attention."""
    lq, lk = case.len_q, case.len_k

    def mixes_lengths(exc: BaseException) -> bool:
        numbers = {int(n) for n in re.findall(r"\d+", str(exc))}
        return isinstance(exc, RuntimeError) and {lq, lk} <= numbers

    advice = (
        f"Here len_q = {lq} (the decoder's queries) and len_k = {lk} (the encoder's keys), and "
        "the error mixes exactly these two lengths: the scores must be (batch, num_heads, "
        "len_q, len_k) and the values (batch, num_heads, len_k, d_head). Most likely your keys "
        "or your values come from `query`: in cross-attention they come from `key` and "
        "`value`, the encoder output, and only the queries come from `query`, the decoder."
    )
    if lq == lk or case.kind == "self":
        return []
    b, d = case.batch, case.d_model

    def reshaped(exc: BaseException) -> tuple[list[int], int] | None:
        """(the shape asked for, the number of elements) of a failed view/reshape."""
        found = re.search(r"shape '\[([-\d, ]+)\]' is invalid for input of size (\d+)", str(exc))
        if not isinstance(exc, RuntimeError) or found is None:
            return None
        return [int(n) for n in found.group(1).split(",")], int(found.group(2))

    def with_length(numbers: int, length: int):
        def hit(exc: BaseException) -> bool:
            got = reshaped(exc)
            return got is not None and got[1] == numbers and length in got[0][1:2]

        return hit

    # only a key or value projection holds b * len_k * d_model numbers (len_q != len_k), and
    # only the query projection b * len_q * d_model: a view of one of them with the other's
    # length is that mistake, whatever the code around it
    kv_with_len_q = (
        f"The tensor your code reshapes holds batch * len_k * d_model = {b * lk * d} numbers, a "
        f"key or value projection (len_k = {lk}, the encoder's length), but the shape asks for "
        f"len_q = {lq} positions, the query's length: split the keys and values with their own "
        "length, key.shape[1] (or -1 in that place), not the query's (split_heads(self.w_k(key), "
        "num_heads) does that)."
    )

    def q_with_len_k(exc: BaseException) -> str:
        # len_q positions: the query projection, split into heads (a 4-D shape asked for),
        # or the attention's output, merged back (a 3-D one): blind17d-mha-inline-merge-
        # with-key-length was told to split the queries
        asked = reshaped(exc)
        merged = asked is not None and len(asked[0]) == 3
        start = (
            f"The tensor your code reshapes holds batch * len_q * d_model = {b * lq * d} "
            f"numbers, but the shape asks for len_k = {lk} positions, the keys' length. "
        )
        if merged:
            return start + (
                "It is the attention's output, merged back to (batch, len, d_model): the "
                "output has one row per query, so merge with the queries' length, "
                "query.shape[1] (or -1 there), not key.shape[1] (merge_heads does that)."
            )
        return start + (
            f"It is the query projection (len_q = {lq}), split into heads: split the queries "
            "with their own length, query.shape[1] (or -1 there)."
        )

    specific = [with_length(b * lk * d, lq), with_length(b * lq * d, lk)]

    def other_mixup(exc: BaseException) -> bool:
        return mixes_lengths(exc) and not any(hit(exc) for hit in specific)

    return [
        (specific[0], kv_with_len_q),
        (specific[1], q_with_len_k),
        (other_mixup, advice),
    ]


_FROM_QUERY = {
    "keys": ({"k_from": "query"}, "Your keys come from `query` (w_k(query))"),
    "values": ({"v_from": "query"}, "Your values come from `query` (w_v(query))"),
    "keys and values": (
        {"k_from": "query", "v_from": "query"},
        "Your keys and your values both come from `query`",
    ),
    # the inputs read in another order: each of the three from another argument
    "queries and values swapped": (
        {"q_from": "value", "v_from": "query"},
        "Your queries come from `value` and your values from `query`, the argument order "
        "(value, key, query): a signature forward(self, value, key, query, mask=None), as "
        "in the TensorFlow tutorial's call(v, k, q, mask), or the two names exchanged in "
        "the body. The exercise's order is forward(self, query, key, value, mask=None)",
    ),
    "queries and keys swapped": (
        {"q_from": "key", "k_from": "query"},
        "Your queries come from `key` and your keys from `query`, the argument order "
        "(key, query, value): the first two parameters exchanged in the signature or in "
        "the body. The exercise's order is forward(self, query, key, value, mask=None)",
    ),
    "rotated (key, value, query)": (
        {"q_from": "key", "k_from": "value", "v_from": "query"},
        "Your queries come from `key`, your keys from `value` and your values from `query`: "
        "the arguments are read in another order than forward(self, query, key, value, "
        "mask=None)",
    ),
    "rotated (value, query, key)": (
        {"q_from": "value", "k_from": "query", "v_from": "key"},
        "Your queries come from `value`, your keys from `query` and your values from `key`: "
        "the arguments are read in another order than forward(self, query, key, value, "
        "mask=None)",
    ),
}


def _length_mixup_source(module, state, case: _Case) -> str:
    """After a shape error that mixes len_q and len_k: rerun with len_k = len_q and key,
    value, query all different, where reading `query` for the keys, the values or both
    gives three different results, and name the one the learner's output agrees with."""
    b, h, lq, d = case.batch, case.num_heads, case.len_q, case.d_model
    query = randn((b, lq, d), case.seed + 7)
    key = randn((b, lq, d), case.seed + 8)
    value = randn((b, lq, d), case.seed + 9)
    result = None
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        result = module(query, key, value)
    if not (isinstance(result, tuple | list) and len(result) == 2):
        return ""
    output = result[0]
    if not isinstance(output, torch.Tensor) or tuple(output.shape) != (b, lq, d):
        return ""
    found = []
    for knobs, said in _FROM_QUERY.values():
        wrong = multi_head_attention_f(state, query, key, value, None, h, **knobs)[0]
        if torch.allclose(output.detach().double(), wrong, rtol=1e-4, atol=1e-5):
            found.append(said)
    if len(found) != 1:
        return ""
    return (
        f"Run again with len_k = len_q (and query, key, value all different), yours gives "
        f"exactly what this gives: {found[0]}. In cross-attention the keys and values come "
        "from `key` and `value`, the encoder output, and only the queries from `query`: "
        "k = split_heads(self.w_k(key), ...), v = split_heads(self.w_v(value), ...)."
    )


def _fitted_divisor(weights, state, query, key, mask, num_heads: int) -> float | None:
    """The number the learner's scores were divided by, when the weights are exactly the
    softmax of the reference's per-head scores q kᵀ divided by some positive number
    (fitted on the allowed keys whose weights are not vanishingly small, then checked on
    all of them), else None."""
    w = weights.detach().double()
    d_model = query.shape[-1]
    d_head = d_model // num_heads

    def heads(x, name):  # (batch, num_heads, len, d_head)
        projected = x.double() @ state[f"{name}.weight"].double().T + state[f"{name}.bias"].double()
        return projected.reshape(*x.shape[:2], num_heads, d_head).transpose(1, 2)

    s = heads(query, "w_q") @ heads(key, "w_k").transpose(-2, -1)  # unscaled scores
    if s.shape != w.shape:
        return None
    allowed = torch.ones_like(w, dtype=torch.bool) if mask is None else mask.expand(w.shape)
    use = allowed & (w > 1e-8)  # weights whose logarithm is well determined
    rows = use.sum(dim=-1, keepdim=True)  # (..., len_q, 1)
    use = use & (rows >= 2)
    if not use.any():
        return None

    def centred(t):
        mean = (t * use).sum(dim=-1, keepdim=True) / rows.clamp_min(1)
        return (t - mean) * use

    x, y = centred(s), centred(torch.log(w.clamp_min(1e-300)))
    denominator = float((x * x).sum())
    factor = float((x * y).sum()) / denominator if denominator > 0 else 0.0
    if factor <= 0:
        return None
    guess = torch.softmax(s.masked_fill(~allowed, float("-inf")) * factor, dim=-1)
    live = allowed.any(dim=-1)
    if not torch.allclose(w[live], guess[live], rtol=1e-4, atol=1e-5):
        return None
    return 1.0 / factor


def _scale_suspects(divisor: float, d_model: int, num_heads: int) -> set[str]:
    """The usual divisors that ``divisor`` equals (two can coincide, num_heads == d_head)."""
    d_head = d_model // num_heads
    suspects = {
        "sqrt(d_head)": d_head**0.5,
        "sqrt(num_heads)": num_heads**0.5,
        "sqrt(d_model)": d_model**0.5,
        "d_head": float(d_head),
        "d_model": float(d_model),
        "num_heads": float(num_heads),
        "1 (no scaling)": 1.0,
        "d_head ** 0.25 (the square root taken twice)": d_head**0.25,
        "d_head / 2 (d_head ** 1/2 is read as (d_head ** 1) / 2: write d_head ** 0.5)": d_head / 2,
        # round 14, blind14d-mha-inline-divides-by-inverse-scale: scale = d_head ** -0.5
        "1 / sqrt(d_head), the factor to multiply by (d_head ** -0.5), used as the divisor: "
        "the scores are multiplied by sqrt(d_head) instead of divided (multiply by that "
        "factor, or divide by d_head ** 0.5)": d_head**-0.5,
    }
    return {name for name, value in suspects.items() if math.isclose(divisor, value, rel_tol=1e-3)}


def _wrong_scale(weights, state, query, key, mask, num_heads: int, agree=None) -> str:
    """A wrong scale, whatever it is (blind7b-mha-inline-scale-sqrt-num-heads divided by
    sqrt(num_heads)): the divisor the weights show, named by the usual suspects it equals
    on *every* case the module runs (``agree.scale_suspects()``), so that a scale that
    changes with the input is not given a name one input contradicts."""
    divisor = _fitted_divisor(weights, state, query, key, mask, num_heads)
    d_head = query.shape[-1] // num_heads
    if divisor is None or math.isclose(divisor, d_head**0.5, rel_tol=1e-3):
        return ""
    names = _scale_suspects(divisor, query.shape[-1], num_heads)
    if agree is not None:
        names &= agree.scale_suspects()
    if not names:
        return _unnamed_divisors(agree)
    return (
        f"Your weights are the softmax of the right scores q kᵀ divided by {divisor:.4g} = "
        f"{' or '.join(sorted(names))} here (on every input the check ran), not by "
        f"sqrt(d_head) = sqrt({d_head}) = {d_head**0.5:.4g}: the scale is 1/sqrt(d_k), d_k the "
        "width of each head's queries and keys, d_head = d_model // num_heads."
    )


def _unnamed_divisors(agree) -> str:
    """A scale no usual formula gives on every input, shown as the divisor the weights
    show on each input the check ran, next to sqrt(d_head): the learner sees how theirs
    grows with d_head (round 10: d_head ** 1/2, read as d_head / 2, was left unnamed)."""
    if agree is None:
        return ""
    fitted = agree.fitted_divisors()
    if not fitted or any(divisor is None for _, _, divisor in fitted):
        return ""
    if all(math.isclose(divisor, d_head**0.5, rel_tol=1e-3) for d_head, _, divisor in fitted):
        return ""
    shown = "; ".join(
        f"d_head = {d_head} (num_heads = {h}): yours {divisor:.4g}, sqrt(d_head) {d_head**0.5:.4g}"
        for d_head, h, divisor in sorted(set((d, h, round(v, 6)) for d, h, v in fitted))
    )
    return (
        "Your weights are the softmax of the right scores q kᵀ divided by a number other than "
        f"sqrt(d_head) on the inputs the check ran ({shown}): the scale is 1/sqrt(d_k), d_k "
        "the width of each head's queries and keys. Compute it as d_head ** 0.5 or "
        "math.sqrt(d_head)."
    )


def _heads_mixed(weights, state, query, key, mask, num_heads: int) -> str:
    """Localise a weights mistake by head: which of the reference's per-head queries and
    keys give each of the learner's heads? Named when every head has exactly one such
    pair and they are not head i's own (e.g. every head reusing head 0's queries)."""
    w = weights.detach().double()
    d_model = query.shape[-1]
    d_head = d_model // num_heads

    def heads(x, name):  # (batch, num_heads, len, d_head)
        projected = x.double() @ state[f"{name}.weight"].double().T + state[f"{name}.bias"].double()
        return projected.reshape(*x.shape[:2], num_heads, d_head).transpose(1, 2)

    q, k = heads(query, "w_q"), heads(key, "w_k")
    allowed = None if mask is None else mask.expand(w.shape)
    found = []
    for i in range(num_heads):
        matches = []
        for a in range(num_heads):
            for b in range(num_heads):
                scores = q[:, a] @ k[:, b].transpose(-2, -1) / d_head**0.5
                if allowed is not None:
                    scores = scores.masked_fill(~allowed[:, i], float("-inf"))
                guess = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
                if torch.allclose(w[:, i], guess, rtol=1e-4, atol=1e-5):
                    matches.append((a, b))
        if len(matches) != 1:
            return ""
        found.append(matches[0])
    if all(pair == (i, i) for i, pair in enumerate(found)):
        return ""
    q_heads, k_heads = [a for a, _ in found], [b for _, b in found]
    own = list(range(num_heads))
    if k_heads == own and len(set(q_heads)) == 1:
        return (
            f"Every head uses the queries of head {q_heads[0]} (features "
            f"{q_heads[0] * d_head}..{(q_heads[0] + 1) * d_head - 1} of w_q(query)) with its "
            "own keys: the queries are not split into heads the way the keys are. Split all "
            "three the same way: split_heads(self.w_q(query), num_heads), and likewise k, v."
        )
    if q_heads == own and len(set(k_heads)) == 1:
        return (
            f"Every head uses the keys of head {k_heads[0]} with its own queries: the keys "
            "are not split into heads the way the queries are. Split all three the same "
            "way: split_heads(self.w_k(key), num_heads)."
        )
    listed = "; ".join(
        f"head {i}: queries of head {a}, keys of head {b}" for i, (a, b) in enumerate(found)
    )
    return (
        f"Your heads mix the reference's heads ({listed}): head i must pair the queries and "
        "keys of the same d_head features, i*d_head ... (i+1)*d_head - 1."
    )


def _variant_args(case: _Case):
    state = random_state(_state_shapes(case.d_model), seed=case.seed)
    return (state, *_inputs(case), case.num_heads)


def _extra_steps(args) -> dict[str, Any]:
    """The right output with a step too many after it (checking.extra_steps: a residual
    inside the layer, a LayerNorm, both): {message: callable giving (output, weights)}."""
    query, key, value = args[1:4]
    out, weights = multi_head_attention_f(*args)
    inputs = {"query": query, "key": key, "value": value}
    steps = extra_output_steps(out, inputs, layer="MultiHeadAttention")
    found = {message: (lambda v=v: (v, weights)) for message, v in steps.items()}
    # the projected values merged instead of the heads, w_o(merge_heads(v)) (blind17d-mha-
    # merges-values-not-heads): merge_heads(split_heads(x)) is x, so that is w_o(w_v(value))
    st = {name: tensor.double() for name, tensor in args[0].items()}
    values = value.double() @ st["w_v.weight"].T + st["w_v.bias"]  # (batch, len_k, d_model)
    found[_VALUES_MERGED] = lambda: (values @ st["w_o.weight"].T + st["w_o.bias"], weights)
    return found


_VALUES_MERGED = (
    "Your output is w_o of the projected values alone, w_o(merge_heads(v)): the attention "
    "weights never reach the output (the values were merged where the heads, weights @ v, "
    "belong). Merge the attention's result: w_o(merge_heads(weights @ v))."
)


def _scale_placements(args) -> dict[str, Any]:
    """The scale folded into a projection's input instead of its output (checking.
    scale_placement: w_q(query * c), the bias unscaled), the scores then left unscaled:
    {message: callable giving (output, weights)}."""
    state, query, key, value, mask, h = args
    factor = (query.shape[-1] // h) ** -0.5
    rest = (query, key, value, mask, h)
    return {
        message: (lambda st=st: multi_head_attention_f(st, *rest, scale="none"))
        for message, st in scaled_before_projection(state, factor).items()
    }


def _scale_placement_part(args, part: int) -> dict[str, Any]:
    """:func:`_scale_placements`' outputs (part 0) or weights (part 1) alone."""
    return {
        message: (lambda c=compute: c()[part])
        for message, compute in _scale_placements(args).items()
    }


def _extra_step_outputs(args) -> dict[str, Any]:
    """:func:`_extra_steps`' outputs alone: {message: callable giving the output}."""
    return {message: (lambda c=compute: c()[0]) for message, compute in _extra_steps(args).items()}


def _candidates(args) -> dict[str, Any]:
    """Every known mistake, alone and in pairs: {message: callable giving (output, weights)}."""
    singles = {message: knobs for knobs, message in (*_WEIGHT_MISTAKES, *_OUTPUT_MISTAKES)}
    out = {m: (lambda k=k: multi_head_attention_f(*args, **k)) for m, k in singles.items()}
    out.update(mistake_pairs(lambda **knobs: multi_head_attention_f(*args, **knobs), singles))
    out.update(_extra_steps(args))
    out.update(_scale_placements(args))
    return out


class _Agreement:
    """The known mistakes (and pairs) that agree with the learner's module on *every*
    case it runs without error (eval mode, no fully masked rows), computed once, when a
    diagnosis is first needed: a mistake is named only if no input contradicts it."""

    def __init__(self, cls, cases):
        self.cls, self.cases, self._found, self._runs = cls, cases, None, None
        self._scales: set[str] | None = None

    def scale_suspects(self) -> set[str]:
        """The names of the divisor the learner's scores show on every case it runs (empty
        when one case fits no single divisor or another one): see :func:`_wrong_scale`."""
        if self._scales is None:
            if self._found is None:
                self._found = self._compute()
            common: set[str] | None = None
            for args, (_, weights) in self._runs or []:
                state, query, key, _, mask, h = args
                if not isinstance(weights, torch.Tensor):
                    return set()
                divisor = _fitted_divisor(weights, state, query, key, mask, h)
                names = set() if divisor is None else _scale_suspects(divisor, query.shape[-1], h)
                common = names if common is None else common & names
            self._scales = common or set()
        return self._scales

    def fitted_divisors(self) -> list[tuple[int, int, float | None]]:
        """(d_head, num_heads, the divisor the weights show or None) on every case run."""
        if self._found is None:
            self._found = self._compute()
        fitted = []
        for args, (_, weights) in self._runs or []:
            state, query, key, _, mask, h = args
            if not isinstance(weights, torch.Tensor):
                return []
            divisor = _fitted_divisor(weights, state, query, key, mask, h)
            fitted.append((query.shape[-1] // h, h, divisor))
        return fitted

    def __contains__(self, message: str) -> bool:
        if self._found is None:
            self._found = self._compute()
        return self._found is True or message in self._found

    def _compute(self):
        runs = []
        for case in self.cases:
            if case.train or case.mask == "rows":
                continue
            args = _variant_args(case)
            result = None
            with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
                module = self.cls(case.d_model, case.num_heads, dropout=case.dropout)
                module.load_state_dict(args[0])
                module.eval()
                query, key, value, mask = args[1:5]
                call = (query, key, value) if mask is None else (query, key, value, mask)
                result = module(*call)
            if isinstance(result, tuple | list) and len(result) == 2:
                runs.append((args, result))
        self._runs = runs
        if not runs:
            return True  # nothing to compare against: every mistake stays a candidate
        found = None
        for args, (output, weights) in runs:
            agreeing = set()
            for message, compute in _candidates(args).items():
                if found is not None and message not in found:
                    continue
                value = value_or_none(compute)
                if value is None or value[0] is None:
                    continue
                out, w = value
                if (
                    isinstance(output, torch.Tensor)
                    and isinstance(weights, torch.Tensor)
                    and output.shape == out.shape
                    and weights.shape == w.shape
                    and torch.allclose(output.detach().double(), out, rtol=1e-4, atol=1e-5)
                    and torch.allclose(
                        weights.detach().double(),
                        torch.nan_to_num(w, nan=0.0),
                        rtol=1e-4,
                        atol=1e-5,
                    )
                ):
                    agreeing.add(message)
            found = agreeing
        return found


def _only_agreeing(table: dict, agree) -> dict:
    """``table`` ({message: value or callable}) with every mistake some input contradicts
    left out (its value None)."""
    return {
        message: (
            lambda m=message, v=value: (
                (v() if callable(v) else v) if agree is None or m in agree else None
            )
        )
        for message, value in table.items()
    }


def _softmax_sum_hint(cls) -> list:
    """A hand-written softmax whose row sums lost their axis, exp / exp.sum(dim=-1) without
    keepdim=True (round 14, blind14d-mha-inline-softmax-sum-without-keepdim: a raw
    broadcast error): the (batch, num_heads, len_q) sums align with the last three axes
    of the (batch, num_heads, len_q, len_k) exponentials. On a probe where batch =
    num_heads = len_q = len_k = 2 those shapes broadcast, and the weights are compared
    with that computation (plain, or with the row maximum subtracted first)."""

    def text(exc: BaseException) -> str:
        if "must match the size of tensor" not in str(exc):
            return ""
        d, h, dh = 4, 2, 2
        state = random_state(_state_shapes(d), seed=991)
        x = randn((2, 2, d), 992)  # (batch, len, d_model): batch = num_heads = len = 2
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            module = cls(d, h, dropout=0.0)
            module.load_state_dict(state)
            module.eval()
            weights = module(x, x, x)[1]
            st = {name: tensor.double() for name, tensor in state.items()}
            q = (x.double() @ st["w_q.weight"].T + st["w_q.bias"]).reshape(2, 2, h, dh)
            k = (x.double() @ st["w_k.weight"].T + st["w_k.bias"]).reshape(2, 2, h, dh)
            q, k = q.transpose(1, 2), k.transpose(1, 2)  # (batch, num_heads, len, d_head)
            scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (batch, num_heads, len, len)
        for shifted in (scores, scores - scores.amax(dim=-1, keepdim=True)):
            exp = shifted.exp()
            unkept = exp / exp.sum(dim=-1)  # (b, h, lq, lk) / (b, h, lq): the mistake
            if isinstance(weights, torch.Tensor) and weights.shape == unkept.shape:
                if torch.allclose(weights.detach().double(), unkept, rtol=1e-4, atol=1e-6):
                    return (
                        "Your softmax divides by row sums that lost their axis: "
                        "exp.sum(dim=-1) without keepdim=True is (batch, num_heads, len_q), "
                        "and broadcasting aligns it from the right with (batch, num_heads, "
                        "len_q, len_k), so the sums meet the wrong axes (each column divided "
                        "by another row's sum), or the sizes clash as here. On a probe with "
                        "batch = num_heads = len_q = len_k = 2, where the shapes happen to "
                        "broadcast, your weights are exactly exp / exp.sum(dim=-1) so "
                        "aligned, and their rows do not sum to 1. Keep the axis, "
                        "exp.sum(dim=-1, keepdim=True), or use torch.softmax(scores, dim=-1)."
                    )
        return ""

    return [(RuntimeError, text)]


def _pair_unpacked_hint(cls, case: _Case) -> list:
    """A (batch, num_heads, len, d_head) tensor unpacked as a pair, heads, weights = ...,
    which splits it along its batch axis: PyTorch's F.scaled_dot_product_attention
    returns only the output (round 18, blind15d-mha-torch-sdpa-unpacked-as-pair: a raw
    "not enough values to unpack" in the course's merge_heads). Told by probes: the same
    layer raises "too many values to unpack (expected 2)" with a batch of 3 sequences
    and gets past that line with a batch of 2."""
    d, h = case.d_model, case.num_heads

    def raised_pair_error(batch: int) -> bool:
        x = randn((batch, case.len_q, d), 993)  # (batch, len, d_model): self-attention
        module = cls(d, h, dropout=0.0)
        module.load_state_dict(random_state(_state_shapes(d), seed=994))
        module.eval()
        try:
            with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
                module(x, x, x)
        except ValueError as exc:
            return "values to unpack (expected 2" in str(exc)
        except Exception:  # a later step's error: the pair was unpacked
            return False
        return False

    def text(exc: BaseException) -> str:
        with contextlib.suppress(Exception):
            if raised_pair_error(3) and not raised_pair_error(2):
                return (
                    "Your forward unpacks a tensor whose first axis is the batch as a pair "
                    "(a, b = tensor splits it along its batch axis): it gets past that line "
                    "with a batch of 2 sequences and raises 'too many values to unpack' with "
                    "3. Most likely that is heads, weights = F.scaled_dot_product_attention"
                    "(...): PyTorch's F.scaled_dot_product_attention returns only one tensor, "
                    "the output, and no weights. Call the course's scaled_dot_product_attention, "
                    "which returns (output, weights), as the layer must return the weights too."
                )
        return ""

    return [(Exception, text)]
