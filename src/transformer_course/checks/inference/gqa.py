"""Checks for lesson 12's grouped_query_attention, against lesson 04's attention on heads
repeated group-wise."""

import math
import re

import torch

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.hints import (
    mistake_pairs,
    shape_mismatch_hint,
    uses_dot_t,
)
from transformer_course.checking.inputs import randn
from transformer_course.checking.key_ranges import attended_key_range, key_range_text
from transformer_course.checking.mask_relations import unasked_masks
from transformer_course.checking.oracles import (
    scaled_dot_product_attention_f,
)
from transformer_course.checking.rearranged import copied_along
from transformer_course.checking.temperature import COMMON_FACTORS, fitted_scale, named_factors
from transformer_course.checking.unapplied import never_applied
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.masking import look_ahead_mask

from .common import (
    _BROADCAST,
    _LOWER_PRECISION,
    _MASK_FILLED_ZERO,
    _arranged_or_related,
    _expect_tensor,
    _localise_blocks,
    _lower_precision_hint,
)

_GQA_SHAPES = [
    shape_mismatch_hint(
        ("batch", "heads", "positions", "features"),
        "q is (batch, num_heads, len_q, d_head); k and v are (batch, num_kv_heads, len_k, ·). "
        "Repeat each key/value head group = num_heads // num_kv_heads times along the head "
        "axis (dim=1): k.repeat_interleave(group, dim=1), so that query head h meets "
        "key/value head h // group.",
    ),
    (
        "repeat_interleave() received an invalid combination of arguments - got (float",
        "The number of repeats is a float: the group size is an int, num_heads // "
        "num_kv_heads (floor division, //), not num_heads / num_kv_heads.",
    ),
]


def gqa_expected(q, k, v, mask, *, tile: bool = False, scale: float | None = None):
    """Grouped-query attention by the reference: each of k's and v's num_kv_heads heads
    (dim 1) repeated for its group of num_heads / num_kv_heads query heads, then
    scaled_dot_product_attention. ``tile``: the heads repeated as a whole block
    (``repeat``) instead of each in place (``repeat_interleave``), a classic mistake;
    ``scale``: the scores scaled by ``scale`` instead of 1 / sqrt(d_head)."""
    group = q.shape[1] // k.shape[1]
    if tile:
        k, v = k.repeat(1, group, 1, 1), v.repeat(1, group, 1, 1)
    else:
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    if scale is not None:
        q = q * scale * math.sqrt(q.shape[-1])
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    return output


def _gqa_scale_named(got, q, k, v, mask) -> str:
    """When the output is grouped attention with the scores times another t than
    1/sqrt(d_head), measured: t and what it is, where it is sqrt(d_head) (the scale's
    inverse: divided by d_head ** -0.5 where multiplied belongs, blind12l-gqa-scale-
    divided-by-inverse was only located) or another exponential's base; "" otherwise."""
    d_head = q.shape[-1]
    try:
        t = fitted_scale(
            got.detach().double(),
            lambda scale: gqa_expected(q.double(), k.double(), v.double(), mask, scale=scale),
        )
    except Exception:  # values from a sandbox, a mask the oracle refuses: say nothing
        return ""
    right = 1 / math.sqrt(d_head)
    if t is None or math.isclose(t, right, rel_tol=1e-3) or d_head == 1:
        return ""
    names = {
        f"sqrt(d_head) = sqrt({d_head}) = {math.sqrt(d_head):.4g}, the inverse of the "
        "scale: the scores are multiplied by sqrt(d_head) where they are divided by it, d_head "
        "times too large (a scale = d_head ** -0.5 the scores were divided by instead of "
        "multiplied by, or q kᵀ * math.sqrt(d_head)). Divide by math.sqrt(d_head), or "
        "multiply by d_head ** -0.5": math.sqrt(d_head),
        **{f"1/sqrt(d_head) times {text}": right * value for text, value in COMMON_FACTORS.items()},
    }
    found = named_factors(t, names, rtol=1e-3)
    if len(found) != 1:
        return ""
    return (
        f"Your scores are multiplied by {t:.4g} where 1/sqrt(d_head) = 1/sqrt({d_head}) = "
        f"{right:.4g} belongs (the output is exactly grouped attention with softmax(t · q kᵀ) "
        f"and t = {t:.4g}): {t:.4g} is {found[0]}."
    )


def _gqa_pairs(q, k, v, mask) -> dict:
    """Two mistakes at once, from two different families (the heads' pairing, the scale,
    the mask): each pair's output, tried after the single mistakes and named only when
    exactly one pair gives the learner's (the heads tiled and the scores divided by
    sqrt(d_v) were only located)."""
    heads, kv, d = q.shape[1], k.shape[1], q.shape[-1]
    families = {
        "pairing": [
            (
                "The heads are paired wrongly: k.repeat(1, group, 1, 1) tiles [k0, k1, k0, "
                "k1]; query head h must use key/value head h // group (repeat_interleave).",
                {"tile": True},
            )
        ]
        if 1 < kv < heads
        else [],
        "scale": [
            (text, {"scale": scale})
            for text, scale, applies in (
                ("The scores are not divided by sqrt(d_head).", 1.0, True),
                ("The scores are divided by d_head instead of sqrt(d_head).", 1 / d, True),
                (
                    "The scores are divided by sqrt(d_v), the values' width (v.shape[-1]), "
                    "instead of sqrt(d_head).",
                    1 / math.sqrt(v.shape[-1]),
                    v.shape[-1] != d,
                ),
            )
            if applies
        ],
        "mask": []
        if mask is None
        else [
            ("The mask was ignored: blocked keys got weight.", {"mask": None}),
            (
                "The mask is read the wrong way round: True means *may attend*.",
                {"mask": ~mask},
            ),
        ],
    }

    def value(knobs: dict):
        knobs = {"mask": mask, **knobs}
        given = knobs.pop("mask")
        return gqa_expected(q, k, v, given, **knobs)

    return mistake_pairs(families, value)


def _gqa_query_softmax(q, k, v, mask):
    """The softmax taken over the queries (dim=-2) instead of the keys."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, dim=-2)) @ v.double()


def _gqa_heads_softmax(q, k, v, mask):
    """The softmax taken over the heads (dim=1), PyTorch's implicit choice for a 4-D tensor
    when softmax is called without dim (blind13e-gqa-softmax-implicit-dim was only located
    in "the attention itself"); None with one head, where it is all ones either way."""
    if q.shape[1] < 2:
        return None
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=1) @ v.double()


_IMPLICIT_SOFTMAX = "Implicit dimension choice for softmax"


def _gqa_scaled_after_softmax(q, k, v, mask, divide: bool):
    """The 1/sqrt(d_head) scale moved after the softmax (onto the weights): divided
    (blind12e-gqa-scaled-after-softmax) or multiplied by sqrt(d_head), the softmax then
    taken of the unscaled scores."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q.double() @ k.double().transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    factor = math.sqrt(q.shape[-1])
    weights = weights / factor if divide else weights * factor
    return torch.nan_to_num(weights) @ v.double()


def _gqa_grouped_mask_as_given(q, k, v, mask):
    """Query heads grouped, q (batch, num_kv_heads, group, len_q, d_head) against k and v
    with a group axis of 1, and the mask applied to the 5-D scores as given: a 4-D mask
    then lines its axes up one place to the right, its batch axis with the key/value
    heads (blind10k-gqa-grouped-mask-not-regrouped was only located). None where the mask
    is not 4-D or such code would raise."""
    if mask is None or mask.dim() != 4:
        return None
    batch, heads, len_q, d_head = q.shape
    kv = k.shape[1]
    grouped = q.double().reshape(batch, kv, heads // kv, len_q, d_head)
    scores = grouped @ k.double().unsqueeze(2).transpose(-2, -1) / math.sqrt(d_head)
    try:
        scores = scores.masked_fill(~mask, float("-inf"))
    except RuntimeError:
        return None
    out = torch.softmax(scores, dim=-1) @ v.double().unsqueeze(2)
    return out.reshape(batch, heads, len_q, v.shape[-1]).to(q.dtype)


_GROUPED_MASK_AS_GIVEN = (
    "Your grouped query heads look right, but the mask was applied as given to 5-D scores "
    "(q reshaped to (batch, num_kv_heads, group, len_q, d_head)): a 4-D mask (batch, heads "
    "or 1, len_q, len_k) then lines its axes up one place to the right, its batch axis with "
    "the key/value heads. Reshape the mask like the queries (to (batch, num_kv_heads or 1, "
    "group or 1, len_q, len_k), e.g. mask.unsqueeze(2) when its head axis is 1), or repeat "
    "the keys and values instead (repeat_interleave), so that the mask fits as it is."
)


def _gqa_mask_added(q, k, v, mask):
    """The boolean mask added to the scores as a 0/1 bias (scores + mask) instead of
    blocking: masked keys keep their weight (blind9e-gqa-bool-mask-added)."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores + mask.double(), dim=-1) @ v.double()


def _gqa_weights_masked(q, k, v, mask):
    """The mask applied after the softmax: the blocked weights set to 0 (masked_fill(~mask,
    0) or weights * mask), the others left as normalised over every key
    (blind14e-gqa-mask-applied-to-weights was only located)."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)
    return weights @ v.double()  # (batch, num_heads, len_q, d_v)


_WEIGHTS_MASKED = (
    "Your mask is applied after the softmax: the blocked weights are set to 0 "
    "(weights.masked_fill(~mask, 0), or weights * mask), but the softmax had already "
    "normalised each row over every key, so the weights left no longer sum to 1. Fill the "
    "blocked scores with -inf before the softmax, scores.masked_fill(~mask, float('-inf')), "
    "which makes their weights 0 and the rest sum to 1."
)


def _gqa_kv_head_axis_dropped(q, k, v, mask):
    """A loop over the key/value heads that takes each as k[:, j] and v[:, j], which drops
    the head axis: the group's queries (batch, group, len_q, d_head) against keys (batch,
    len_k, d_head) line the batch axis up with the group axis (blind14e-gqa-loop-drops-kv-
    head-axis was only located). None where that would raise, give another shape, or equal
    the right output (a batch of one)."""
    batch, heads = q.shape[:2]
    kv = k.shape[1]
    group = heads // kv
    if batch == 1 or group == 1:
        return None
    outputs = []
    try:
        for j in range(kv):
            queries = q[:, j * group : (j + 1) * group]  # (batch, group, len_q, d_head)
            head_mask = mask
            if mask is not None and mask.dim() == 4 and mask.shape[1] > 1:
                head_mask = mask[:, j * group : (j + 1) * group]
            out, _ = scaled_dot_product_attention(queries, k[:, j], v[:, j], head_mask)
            outputs.append(out)
        got = torch.cat(outputs, dim=1)
    except RuntimeError:
        return None
    return got if got.shape == (*q.shape[:-1], v.shape[-1]) else None


_KV_HEAD_AXIS_DROPPED = (
    "Your output is what a loop over the key/value heads gives when it takes each one as "
    "k[:, head] and v[:, head]: the integer index drops the head axis, so the group's "
    "queries (batch, group, len_q, d_head) meet keys (batch, len_k, d_head), and "
    "broadcasting lines the keys' batch axis up against the queries' group axis: query head "
    "g of a group reads the keys and values of sequence g, not its own (a batch of one "
    "hides it; other sizes raise). Keep the axis: k[:, head : head + 1] and v[:, head : "
    "head + 1] (or k[:, head, None])."
)


def _head_attention(q, k, v, mask, h: int, key_head: int, value_head: int):
    """Query head h's output with key head ``key_head`` and value head ``value_head``."""
    head_mask = None
    if mask is not None:
        full = mask.expand(q.shape[0], q.shape[1], q.shape[2], k.shape[2])
        head_mask = full[:, h]
    out, _ = scaled_dot_product_attention(
        q[:, h].double(), k[:, key_head].double(), v[:, value_head].double(), head_mask
    )
    return out


def _pairing(got, q, k, v, mask) -> list[tuple[int, int]] | None:
    """For each query head h, the (key head, value head) whose attention gives the
    learner's output for h; None when some head matches no pair or several."""
    heads, kv = q.shape[1], k.shape[1]
    got = got.detach().double()
    pairs = []
    for h in range(heads):
        found = [
            (a, b)
            for a in range(kv)
            for b in range(kv)
            if torch.allclose(got[:, h], _head_attention(q, k, v, mask, h, a, b), 1e-4, 1e-5)
        ]
        if len(found) != 1:
            return None
        pairs.append(found[0])
    return pairs


def _head_order(got, expected) -> list[int] | None:
    """When the learner's output heads are the reference's in another order (a
    permutation, not the identity): for each output head h, the query head whose result
    it holds; None otherwise."""
    got, expected = got.detach().double(), expected.double()
    heads = expected.shape[1]
    order = []
    for h in range(heads):
        found = [p for p in range(heads) if torch.allclose(got[:, h], expected[:, p], 1e-4, 1e-5)]
        if len(found) != 1:
            return None
        order.append(found[0])
    return order if sorted(order) == list(range(heads)) and order != list(range(heads)) else None


def _explain_pairing(got, q, k, v, mask) -> str:
    """Which key/value heads each query head used, when every head is some pair's
    attention but not the h // group pairing: the rule each side follows, named when one
    of the usual ones fits (h // group, h % num_kv_heads, h // num_kv_heads)."""
    heads, kv = q.shape[1], k.shape[1]
    if tuple(got.shape[:2]) != (q.shape[0], heads):
        return ""
    order = _head_order(got, gqa_expected(q, k, v, mask))
    if order is not None:
        return (
            f"Your output heads are the right ones in another order: output head h holds "
            f"query head {order}[h]'s result. The heads were regrouped in another order "
            "than they came (a view of (batch, num_kv_heads, group, ...) read back as "
            "(batch, group, num_kv_heads, ...), or a transpose missing or added): keep "
            "query head h at position h, (batch, num_heads, len_q, d_v)."
        )
    if kv < 2:
        return ""
    pairs = _pairing(got, q, k, v, mask)
    group = heads // kv
    right = [h // group for h in range(heads)]
    if pairs is None or ([a for a, _ in pairs] == right and [b for _, b in pairs] == right):
        return ""
    rules = {
        "h // group (right)": right,
        "h % num_kv_heads (the heads tiled, as k.repeat(1, group, 1, 1) does)": [
            h % kv for h in range(heads)
        ],
        "h // num_kv_heads (divided by num_kv_heads instead of the group size num_heads "
        "// num_kv_heads)": [h // kv for h in range(heads)],
    }

    def rule_of(side: list[int]) -> str:
        if side == right:
            return "h // group, right"
        names = [name for name, mapping in rules.items() if mapping == side]
        return " or ".join(names) if names else "no rule of h that the course knows"

    keys, values = [a for a, _ in pairs], [b for _, b in pairs]
    if keys == values:
        return (
            f"Your query heads 0..{heads - 1} used key/value heads {keys}: that is "
            f"{rule_of(keys)}, where query head h uses key/value head h // group = {right} "
            f"(group = num_heads // num_kv_heads = {group})."
        )
    return (
        f"Your query heads 0..{heads - 1} used key heads {keys} ({rule_of(keys)}) but value "
        f"heads {values} ({rule_of(values)}): keys and values must be repeated the same way, "
        f"query head h using key and value head h // group = {right} (group = {group}): "
        "k.repeat_interleave(group, dim=1) and v.repeat_interleave(group, dim=1)."
    )


def _head_dependence(fn, q, k, v, mask) -> dict[str, list[set[int]]] | None:
    """Which input heads each output head of the learner's ``fn`` depends on: for each side
    (query, key, value), the list over output heads h of the heads of that side whose
    change (one head replaced by other values, the rest kept) changes output head h. None
    when a rerun raises or its output is not (batch, num_heads, ...)."""
    base = fn(q.clone(), k.clone(), v.clone(), mask)  # (batch, num_heads, len_q, d_v)
    if not isinstance(base, torch.Tensor) or tuple(base.shape[:2]) != tuple(q.shape[:2]):
        return None
    base = base.detach().double()
    heads = q.shape[1]
    found: dict[str, list[set[int]]] = {}
    for side, tensor in (("query", q), ("key", k), ("value", v)):
        found[side] = [set() for _ in range(heads)]
        for j in range(tensor.shape[1]):
            changed = tensor.clone()
            changed[:, j] = randn(tuple(changed[:, j].shape), 4590 + j, dtype=tensor.dtype)
            args = {"query": q, "key": k, "value": v, side: changed}
            out = fn(args["query"].clone(), args["key"].clone(), args["value"].clone(), mask)
            if not isinstance(out, torch.Tensor) or out.shape != base.shape:
                return None
            out = out.detach().double()
            for h in range(heads):
                if not torch.allclose(out[:, h], base[:, h], 1e-6, 1e-7):
                    found[side][h].add(j)
    return found


def _pooled_attention(q, k, v, mask, key_pool, value_pool):
    """Attention of every query head with keys and values pooled over their heads by
    ``key_pool`` / ``value_pool`` (None: repeated group-wise, the right way)."""
    group = q.shape[1] // k.shape[1]

    def shared(x, pool):  # (batch, kv, len_k, d) -> (batch, num_heads, len_k, d)
        if pool is None:
            return x.double().repeat_interleave(group, dim=1)
        return pool(x.double()).expand(-1, q.shape[1], -1, -1)

    out, _ = scaled_dot_product_attention(
        q.double(), shared(k, key_pool), shared(v, value_pool), mask
    )
    return out


_POOLS = {
    "averaged into one (.mean(dim=1, keepdim=True))": lambda x: x.mean(dim=1, keepdim=True),
    # round 37 (blind29c-gqa-einsum-sums-over-kv-heads): the einsum that sums them too
    "summed into one (.sum(dim=1, keepdim=True), or an einsum that gives the key/value "
    "heads a subscript of their own, 'bhqd,bgkd->bhqk': a subscript missing from the output "
    "is summed over)": lambda x: x.sum(dim=1, keepdim=True),
}


def _explain_head_mixing(fn, got, q, k, v, mask) -> str:
    """When the output heads depend on other input heads than they should (measured by
    changing one head at a time, :func:`_head_dependence`): query head h must depend only
    on query head h and on key/value head h // group. Says which heads each output head
    mixes, and names a pooling of the key/value heads (averaged, summed) when the
    learner's output is exactly attention with it. "" when the dependence is right, or
    when it cannot be measured (a single key/value head, a rerun that raises)."""
    heads, kv = q.shape[1], k.shape[1]
    if kv < 2 or heads % kv or not isinstance(got, torch.Tensor):
        return ""
    try:
        found = _head_dependence(fn, q, k, v, mask)
    except Exception:  # a probe of learner code: any failure leaves the old message
        return ""
    if found is None:
        return ""
    group = heads // kv
    right = {
        "query": [{h} for h in range(heads)],
        "key": [{h // group} for h in range(heads)],
        "value": [{h // group} for h in range(heads)],
    }
    wrong = [side for side in ("query", "key", "value") if found[side] != right[side]]
    if not wrong:
        return ""
    everything = set(range(kv))
    pooled_sides = [s for s in ("key", "value") if all(d == everything for d in found[s])]
    if found["query"] == right["query"] and pooled_sides:
        pools = {None: "repeated right"} | {pool: name for name, pool in _POOLS.items()}
        for key_pool in pools:
            for value_pool in pools:
                if key_pool is None and value_pool is None:
                    continue
                model = _pooled_attention(q, k, v, mask, key_pool, value_pool)
                if model.shape == got.shape and torch.allclose(
                    got.detach().double(), model, 1e-4, 1e-5
                ):
                    said = (
                        f"the key/value heads {pools[key_pool]}"
                        if key_pool is value_pool
                        else f"the key heads {pools[key_pool]} and the value heads "
                        f"{pools[value_pool]}"
                    )
                    return (
                        "Each of your output heads changes when any one key/value head "
                        f"changes: yours is attention with {said}, shared by every query "
                        "head, instead of query head h using only its own key/value head "
                        f"h // group = {[h // group for h in range(heads)]} (group = "
                        f"num_heads // num_kv_heads = {group}). Repeat each key/value head "
                        "for its group: k.repeat_interleave(group, dim=1), the same for v"
                        + (
                            " (with einsum, give the heads one subscript once repeated: "
                            "'bhqd,bhkd->bhqk')."
                            if "einsum" in said
                            else "."
                        )
                    )

    def listing(sets: list[set[int]]) -> str:
        return "[" + ", ".join("{" + ", ".join(map(str, sorted(d))) + "}" for d in sets) + "]"

    said = "; ".join(
        f"output heads 0..{heads - 1} change with {side} heads {listing(found[side])}, "
        f"where they should change with {side} heads {listing(right[side])} only"
        for side in wrong
    )
    return (
        f"Changing one input head at a time shows your heads mixed: {said}. Query head h "
        "must use only query head h and key/value head h // group (group = num_heads // "
        f"num_kv_heads = {group}); look for a step that combines heads (a mean, sum or softmax over "
        "dim=1, a reshape or view that moves features across the head axis)."
    )


def _head_index_hint(heads: int, kv: int):
    """An index past the key/value heads: query head h mapped to a head that does not
    exist (h // num_kv_heads, h itself when num_kv_heads = 1)."""
    pattern = re.compile(r"index (\d+) is out of bounds for dimension \d+ with size (\d+)")
    group = heads // kv

    def hint(exc: BaseException) -> str:
        found = pattern.search(str(exc))
        if not found or int(found[2]) != kv:
            return ""
        return (
            f"A key/value head index reached {found[1]}, but there are only num_kv_heads = "
            f"{kv}: query head h uses key/value head h // group, group = num_heads // "
            f"num_kv_heads = {group} here, so the indices run 0 .. {kv - 1}. An index "
            "h // num_kv_heads (h itself when num_kv_heads = 1), h % group or h runs past "
            "them."
        )

    return (IndexError, hint)


def _mask_reshaped_hint(mask):
    """A view or reshape of the mask to another shape (as if it were (len_q, len_k))."""

    def hint(exc: BaseException) -> str:
        found = re.search(r"shape '\[([\d, ]+)\]' is invalid for input of size (\d+)", str(exc))
        if mask is None or not found or int(found[2]) != mask.numel():
            return ""
        return (
            f"The mask ({tuple(mask.shape)} here, {mask.numel()} entries) was reshaped to "
            f"[{found[1]}]: it need not be (len_q, len_k). It is any bool tensor broadcastable "
            "to (batch, num_heads, len_q, len_k), a padding mask (batch, 1, 1, len_k) too: use "
            "it as it is, masked_fill(~mask, float('-inf')) broadcasts it."
        )

    return (RuntimeError, hint)


def _grouped_mask_hint(mask, heads: int, kv: int):
    """A size clash between a 4-D mask's batch axis and num_kv_heads: scores with the query
    heads grouped, (batch, num_kv_heads, group, len_q, len_k), against the mask as given
    (blind10k-gqa-grouped-mask-not-regrouped was told to repeat the key/value heads)."""

    def hint(exc: BaseException) -> str:
        found = re.search(
            r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
            r"non-singleton dimension 1\b",
            str(exc),
        )
        if mask is None or mask.dim() != 4 or not found or 1 < kv == heads:
            return ""
        batch = mask.shape[0]
        if batch in (1, heads) or {int(found[1]), int(found[2])} != {batch, kv}:
            return ""
        return (
            f"The mask's batch axis ({batch}) met num_kv_heads ({kv}) along axis 1: your "
            "scores have 5 axes, the query heads grouped as (batch, num_kv_heads, group, "
            f"len_q, len_k), and the 4-D mask, {tuple(mask.shape)} here, lines its axes up "
            "one place to the right of them. Reshape the mask like the queries (to (batch, "
            "num_kv_heads or 1, group or 1, len_q, len_k), e.g. mask.unsqueeze(2) when its "
            "head axis is 1), or repeat the keys and values instead (repeat_interleave), so "
            "that the mask fits as it is."
        )

    return (RuntimeError, hint)


def _gqa_cases(hidden: bool):
    def case(seed, batch, heads, kv, len_q, len_k, d, d_v=None, mask=None, dtype=torch.float32):
        q = randn((batch, heads, len_q, d), seed, dtype=dtype)
        k = randn((batch, kv, len_k, d), seed + 1, dtype=dtype)
        v = randn((batch, kv, len_k, d_v or d), seed + 2, dtype=dtype)
        return q, k, v, mask

    causal = look_ahead_mask(5)  # (len, len)
    padding = torch.tensor([[True] * 6, [True, True, True, True, False, False]])[:, None, None]

    def per_head(seed, batch, heads, len_q, len_k):
        """A mask with one slice per query head, (batch, heads, len_q, len_k), each query
        seeing its first key at least."""
        generator = torch.Generator().manual_seed(seed)
        mask = torch.rand(batch, heads, len_q, len_k, generator=generator) > 0.4
        mask[..., 0] = True
        return mask

    if not hidden:
        return [
            case(1201, 2, 4, 2, 3, 5, 4, d_v=6),  # values of another width than the keys
            case(1202, 1, 4, 1, 5, 5, 4, mask=causal),  # multi-query
            case(1203, 2, 2, 2, 2, 3, 3),  # ordinary multi-head attention
            # a padding mask (batch, 1, 1, len_k), not (len_q, len_k): a mask reshaped or
            # given new axes as if it were 2-D was caught by the hidden run only
            case(1204, 2, 4, 2, 3, 4, 4, mask=padding[:, :, :, 2:]),
            # float64 inputs keep their dtype (a softmax computed in float32 and never cast
            # back, blind10e-gqa-softmax-upcast-not-cast-back, passed every float32 input)
            case(1205, 2, 4, 2, 3, 5, 4, d_v=3, mask=causal[2:], dtype=torch.float64),
            # a mask with one slice per query head and several groups (a loop over the
            # groups that passes each the whole mask, blind15e-gqa-group-loop-whole-mask,
            # passed every mask of one head); group 3 != num_kv_heads 2
            case(1206, 1, 6, 2, 3, 4, 4, mask=per_head(1207, 1, 6, 3, 4)),
        ]
    return [
        case(2201, 2, 6, 3, 4, 6, 4, d_v=5, mask=padding),
        case(2202, 1, 8, 2, 5, 5, 8, mask=causal),
        case(2203, 3, 4, 4, 3, 7, 2),
        case(2204, 2, 3, 1, 1, 4, 6),
        case(2205, 1, 6, 2, 4, 4, 3, mask=causal[1:, 1:], dtype=torch.float64),
        case(2206, 2, 6, 3, 2, 5, 4, mask=per_head(2207, 2, 6, 2, 5)),  # group 2 != 3
    ]


def _mask_not_cut_hint(fn, call: tuple):
    """A mask with one slice per query head, (batch, num_heads, len_q, len_k), against
    scores of one group's query heads: a loop over the key/value heads that hands each
    group the whole mask (blind15e-gqa-group-loop-whole-mask). The error's sizes are the
    group and num_heads (the group differs from num_kv_heads on these inputs), and the
    same call with the mask's first head only, which broadcasts, raises nothing."""
    q, k, v, mask = call
    heads, kv = q.shape[1], k.shape[1]
    group = heads // kv

    def hint(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if mask is None or mask.dim() != 4 or mask.shape[1] != heads or group in (1, kv):
            return ""
        if not found or {int(found[1]), int(found[2])} != {group, heads}:
            return ""
        try:
            fn(q.clone(), k.clone(), v.clone(), mask[:, :1].clone())
        except Exception:  # the mask is not what raised
            return ""
        return (
            f"Your mask, {tuple(mask.shape)} with one slice per query head, met the "
            f"{group} query heads of one group: a mask of one head runs, so the scores of a "
            f"group ({group} heads) were given the whole mask, not cut into the group's "
            f"slices. With a loop over the key/value heads, group g needs "
            "mask[:, g * group : (g + 1) * group] when the mask has num_heads heads (a mask "
            "of one head broadcasts as it is); or repeat the keys and values "
            "(repeat_interleave(group, dim=1)) and use the mask as given."
        )

    return (RuntimeError, hint)


def _mask_truth_hint(fn, call: tuple):
    """A tensor's truth value asked for when a mask is given, while the same call without
    the mask runs: the optional mask was tested with `if mask:` (blind15e-gqa-if-mask-
    truthiness got the general advice on `if` and tensors only)."""
    q, k, v, mask = call

    def hint(exc: BaseException) -> str:
        if mask is None or "Boolean value of Tensor" not in str(exc):
            return ""
        try:
            fn(q.clone(), k.clone(), v.clone(), None)
        except Exception:  # the mask is not what raised
            return ""
        return (
            "Without the mask the same call runs: the mask's truth value was asked for, as "
            "`if mask:` (or mask and/or ...) does to test whether a mask was given. A tensor "
            "of several entries has no single truth value; test for the argument instead: "
            "if mask is not None:."
        )

    return (RuntimeError, hint)


def _positions_on_head_axis_hint(call: tuple):
    """A clash along axis 1 between num_heads and len_k (a size no repeat of the key/value
    heads gives): the keys' positions were moved to the head axis, k.transpose(1, 2) where
    q @ kᵀ needs the last two axes swapped (blind15e-gqa-keys-transposed-on-head-axis was
    told to repeat the key/value heads)."""
    q, k = call[0], call[1]
    heads, kv, len_k = q.shape[1], k.shape[1], k.shape[2]

    def hint(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or int(found[3]) != 1 or len_k % kv == 0:
            return ""
        if {int(found[1]), int(found[2])} != {heads, len_k}:
            return ""
        if uses_dot_t(exc):  # k.T: every axis reversed, not k.transpose(1, 2)
            return (
                f"The clash is between num_heads = {heads} and len_k = {len_k}, and your line "
                "uses `.T`: on the 4-axis keys (batch, num_heads, len_k, d_head) k.T reverses "
                "all four axes, (d_head, len_k, num_heads, batch), so the product's leading "
                "axes meet len_k where they expect num_heads. For the scores q @ kᵀ swap the "
                "last two axes only: k.transpose(-2, -1) (or k.mT), (batch, num_heads, d_head, "
                "len_k)."
            )
        return (
            f"The clash is between num_heads = {heads} and len_k = {len_k}: the keys (or "
            "values) reached the product with their positions on the head axis (axis 1), "
            "as k.transpose(1, 2) (the axes split_heads swaps) leaves them, (batch, len_k, "
            "num_heads, d_head). For the scores q @ kᵀ swap the last two axes: "
            "k.transpose(-2, -1), (batch, num_heads, d_head, len_k); the values are used as "
            "they are, weights @ v."
        )

    return (RuntimeError, hint)


def _flattened_hint():
    """An axis that no longer exists: torch.repeat_interleave (or repeat) with no dim
    flattens its input to one axis (got only the generic axis hint)."""

    def hint(exc: BaseException) -> str:
        if "Dimension out of range" not in str(exc):
            return ""
        return (
            "A tensor lost axes before this line: torch.repeat_interleave(k, group) (or "
            "repeat) with no dim flattens k into one long axis, and a sum or max with no dim "
            "reduces a tensor to one number. Repeat along the head axis: "
            "k.repeat_interleave(group, dim=1) (likewise v), which keeps (batch, num_heads, "
            "len_k, d_head)."
        )

    return (IndexError, hint)


def _raises_exactly(error: str, run) -> bool:
    """Whether ``run()`` raises an error whose text is ``error``, word for word."""
    try:
        run()
    except Exception as exc:  # the reference's attention on zeros of the call's shapes
        return str(exc) == error
    return False


_Q_AXES = ("batch", "num_heads", "len_q", "d_head")
_K_AXES = ("batch", "num_kv_heads", "len_k", "d_head")
#: inputs whose sizes tell apart the axes a group size may be read from
#: (q's shape, k's shape): on these three, each expression q.shape[i] // k.shape[j] but
#: batch // batch and d_head // d_head (always 1) gives its own counts, none of them the
#: right group's, and never 1, 1, 1 (no repeat); num_kv_heads > 1 (one key/value head
#: would broadcast unrepeated)
_GROUP_PROBES = (
    ((2, 6, 3, 7), (2, 3, 3, 7)),
    ((2, 4, 7, 5), (2, 2, 9, 5)),
    ((3, 4, 7, 2), (3, 2, 4, 2)),
)


def _group_used(fn, q_shape: tuple, k_shape: tuple) -> int | None:
    """How many times the learner's function repeated each key/value head on zeros of
    these shapes: read from the head-axis clash it raises, or the right group when it
    raises nothing; None when another error tells nothing."""
    q, k = torch.zeros(q_shape), torch.zeros(k_shape)
    try:
        fn(q, k, k.clone())
    except RuntimeError as exc:
        found = _BROADCAST.search(str(exc))
        if not found or int(found.group(3)) != 1:
            return None
        sizes = {int(found.group(1)), int(found.group(2))} - {q_shape[1]}
        if len(sizes) != 1 or next(iter(sizes)) % k_shape[1]:
            return None
        return next(iter(sizes)) // k_shape[1]
    except Exception:  # another error: no count to read
        return None
    return q_shape[1] // k_shape[1]


def _group_from_other_axes(fn, q_shape: tuple, k_shape: tuple, used: int) -> str:
    """The expressions q.shape[i] // k.shape[j] (other than the heads') that give the
    repeat count the learner used, here and on probes whose sizes all differ
    (blind12e-gqa-group-from-length-axis: len_q // len_k): "" unless exactly one agrees
    everywhere."""
    if fn is None:
        return ""
    observed = [(q_shape, k_shape, used)]
    for probe_q, probe_k in _GROUP_PROBES:
        got = _group_used(fn, probe_q, probe_k)
        if got is None:
            return ""
        observed.append((probe_q, probe_k, got))
    agree = [
        (i, j)
        for i in range(4)
        for j in range(4)
        if (i, j) != (1, 1) and all(k[j] and q[i] // k[j] == count for q, k, count in observed)
    ]
    if (
        len(agree) != 1
        or all(count == 1 for *_, count in observed)
        or all(count == 0 for *_, count in observed)
    ):
        # never repeated (count 1 everywhere) is not a group read from other axes, nor
        # is a count 0 everywhere (num_kv_heads // num_heads gives it too)
        return ""
    i, j = agree[0]
    off = [
        f"{name}.shape[{axis}] is off by one from {name}.shape[1]"
        for name, axis in (("q", i), ("k", j))
        if abs(axis - 1) == 1
    ]
    return (
        f"The group size was read from other axes: each key/value head was repeated "
        f"q.shape[{i}] // k.shape[{j}] ({_Q_AXES[i]} // {_K_AXES[j]}"
        + (f"; {' and '.join(off)}" if off else "")
        + f") times, here "
        f"{q_shape[i]} // {k_shape[j]} = {used}, and on three more inputs whose sizes tell "
        f"the axes apart. The group is num_heads // num_kv_heads = q.shape[1] // k.shape[1]."
    )


def _one_unrepeated(fn) -> str | None:
    """ "keys" or "values" when the learner's function repeats only the other one
    (blind11l-gqa-values-not-repeated was told keys or values): on a probe whose keys
    (or values) already have num_heads heads, code that leaves them unrepeated runs and
    code that repeats them clashes; None when neither probe, or both, runs."""
    if fn is None:
        return None
    q = randn((1, 4, 3, 4), 1274)  # (batch, num_heads, len_q, d_head)
    narrow_k, narrow_v = randn((1, 2, 5, 4), 1275), randn((1, 2, 5, 6), 1276)
    wide_k, wide_v = randn((1, 4, 5, 4), 1277), randn((1, 4, 5, 6), 1278)
    runs = {}
    for one, (k, v) in (("keys", (wide_k, narrow_v)), ("values", (narrow_k, wide_v))):
        try:
            got = fn(q, k, v, None)
            runs[one] = isinstance(got, torch.Tensor) and tuple(got.shape) == (1, 4, 3, 6)
        except Exception:  # the learner's code on a probe
            runs[one] = False
    found = [one for one, ran in runs.items() if ran]
    return found[0] if len(found) == 1 else None


def _repeated_on_length(fn) -> bool:
    """Whether the learner's function repeats the keys along the length axis: with one
    key/value head (which needs no repeat to broadcast) and a (len_q, len_k) mask, its
    scores then have group * len_k columns and clash with the mask (blind17e-gqa-repeat-
    interleave-on-length-axis was told three candidates)."""
    if fn is None:
        return False
    q = randn((1, 4, 3, 4), 1271)  # (batch, num_heads, len_q, d_head)
    k = randn((1, 1, 5, 4), 1272)  # (batch, num_kv_heads, len_k, d_head)
    v = randn((1, 1, 5, 4), 1273)
    try:
        fn(q, k, v, torch.ones(3, 5, dtype=torch.bool))
    except Exception as exc:  # the learner's code on a probe
        found = _BROADCAST.search(str(exc))
        return bool(found) and {int(found.group(1)), int(found.group(2))} == {20, 5}
    return False


def _repeated_on_another_axis(fn) -> str:
    """When the learner's output, on a probe with one key/value head (which broadcasts with
    no repeat at all) and no mask, is the right output with each entry copied group times
    along one axis: the keys and values were repeated along that axis instead of the head
    axis (blind20d-gqa-values-repeated-on-features, v repeated with dim=-1, was offered
    "not repeated, or along another axis"); "" otherwise."""
    if fn is None:
        return ""
    q = randn((1, 4, 3, 4), 4531)  # (batch, num_heads, len_q, d_head): group 4
    k, v = randn((1, 1, 5, 4), 4532), randn((1, 1, 5, 6), 4533)  # d_v = 6 != d_head
    try:
        got = fn(q, k, v)
    except Exception:  # the probe tells nothing
        return ""
    right, _ = scaled_dot_product_attention(q, k, v)  # (1, 4, 3, 6)
    found = copied_along(got, right)
    if found is None:
        return ""
    axis, times, how = found
    names = ("the batch axis", "the head axis", "the length axis", "the feature axis, d_v")
    copied = (
        "each value vector's features copied side by side"
        if how == "repeat_interleave"
        else "the value vectors copied whole, one after another"
    )
    if axis == 3:
        return (
            f"Your values were repeated along their last axis (dim=-1, the features) instead "
            f"of the head axis (dim=1): on a probe with one key/value head, 4 query heads and "
            f"d_v = 6, your output is (1, 4, 3, {6 * times}), the right output with "
            f"{copied} {times} times ({how} along dim=-1). The values keep their "
            "num_kv_heads heads, so they clash with the num_heads query heads. Repeat them "
            "like the keys: v.repeat_interleave(group, dim=1)."
        )
    return (
        f"Your keys and values were repeated along {names[axis]} (dim={axis}) instead of the "
        f"head axis (dim=1): on a probe with one key/value head and 4 query heads, your "
        f"output is the right one with each entry copied {times} times along dim={axis} "
        f"({how}). Repeat along dim=1: k.repeat_interleave(group, dim=1) (likewise v)."
    )


def _values_from_keys(fn) -> str:
    """When the learner's output, with as many key/value heads as query heads (nothing to
    repeat) and d_v != d_head, is attention(q, k, k): the values were built from the keys
    (blind12e-gqa-values-from-keys: v = k.repeat_interleave(...), after k was repeated,
    so it is repeated group · group times); "" otherwise."""
    if fn is None:
        return ""
    q, k, v = randn((1, 2, 3, 4), 4521), randn((1, 2, 5, 4), 4522), randn((1, 2, 5, 6), 4523)
    try:
        got = fn(q, k, v)
    except Exception:  # the probe tells nothing
        return ""
    keys_as_values, _ = scaled_dot_product_attention(q, k, k)
    if not isinstance(got, torch.Tensor) or got.shape != keys_as_values.shape:
        return ""
    if not torch.allclose(got, keys_as_values, atol=1e-5):
        return ""
    return (
        "Your values are the keys: with as many key/value heads as query heads (nothing to "
        "repeat) and d_v = 6 != d_head = 4, your output is attention(q, k, k), (1, 2, 3, 4). "
        "v is built from k (v = k.repeat_interleave(...); written after k = "
        "k.repeat_interleave(...), it repeats the already repeated keys again, hence "
        "the head count here). Repeat v itself: v = v.repeat_interleave(group, dim=1)."
    )


def _axes_added_to_mask(fn, call: tuple) -> str:
    """A mask of fewer than 4 axes that raised: the learner's function probed with the same
    mask as (1, 1, len_q, len_k) (or its 4-D form); an output of more than 4 axes shows
    that the code gives every mask new axes, whatever its shape
    (blind13e-gqa-mask-head-axis-always-inserted, mask.unsqueeze(1), was told that the
    key/value heads were repeated len_q times)."""
    q, k, v, mask = call
    four = mask.reshape((1,) * (4 - mask.dim()) + tuple(mask.shape))
    try:
        out = fn(q.clone(), k.clone(), v.clone(), four)
    except Exception:  # the probe tells nothing
        return ""
    if not isinstance(out, torch.Tensor) or out.dim() <= 4:
        return ""
    extra = out.dim() - 4
    lines = (
        f" Your ({', '.join(str(n) for n in mask.shape)}) mask with a new axis at 1 is "
        f"({mask.shape[0]}, 1, {', '.join(str(n) for n in mask.shape[1:])}): its first axis "
        "then lines up with the heads, which raised this error."
        if mask.dim() == 2
        else ""
    )
    return (
        f"Your code inserts {'a new axis' if extra == 1 else f'{extra} new axes'} into the "
        f"mask whatever its shape (mask.unsqueeze(1), as for a (batch, len_q, len_k) mask): "
        f"given the same mask as a 4-D {tuple(four.shape)} one, yours returns a "
        f"{out.dim()}-D output {tuple(out.shape)}.{lines} The mask is used as given: it "
        "is already broadcastable to the scores (batch, num_heads, len_q, len_k), a 2-D "
        "(len_q, len_k) one and a 4-D one alike."
    )


def _zero_group(fn, heads: int, kv: int) -> str:
    """The key/value heads repeated 0 times (they reached the attention with no head),
    when a probe whose axes all have the same size (so that every q.shape[i] // k.shape[j]
    and num_kv_heads // num_heads is 1) repeats them 0 times as well: the group is the
    remainder num_heads % num_kv_heads (blind15e-gqa-group-by-modulo was told the group
    was read from other axes); "" otherwise."""
    if fn is None or _group_used(fn, (3, 3, 3, 3), (3, 3, 3, 3)) != 0:
        return ""
    return (
        f"Your keys or values reached the attention with 0 heads: each of the {kv} "
        f"key/value heads was repeated 0 times, not {heads // kv}. On q and k (3, 3, 3, 3), "
        "where every division of one axis by another is 1, it is 0 as well: the group was "
        "computed with % (num_heads % num_kv_heads, the remainder, 0 whenever num_heads is "
        "a multiple of num_kv_heads) instead of //."
    )


def _gqa_heads_hint(
    heads: int, kv: int, earlier_groups: tuple[int, ...] = (), call: tuple = (), fn=None
):
    """For a clash along the head axis between num_heads and another count: how many heads
    the learner's keys or values had, and the steps that give that count (a group size
    equal to an earlier, passed input's: hard-coded, blind10e-gqa-group-hardcoded). With a
    4-D mask, the keys and values left unrepeated are told apart from the mask repeated
    along the head axis like them by the error each raises, word for word (a mask repeated
    so was told that the keys and values were not)."""
    group = heads // kv

    def text(exc: BaseException) -> str:
        found = _BROADCAST.search(str(exc))
        if not found or int(found.group(3)) != 1:
            return ""
        sizes = {int(found.group(1)), int(found.group(2))}
        if heads not in sizes or len(sizes) != 2:
            return ""
        (other,) = sizes - {heads}
        rule = (
            f"group = num_heads // num_kv_heads = q.shape[1] // k.shape[1] = {group}, and "
            "k.repeat_interleave(group, dim=1) (likewise v)."
        )
        mask = call[3] if len(call) == 4 else None
        if mask is not None and mask.dim() < 4 and fn is not None:
            added = _axes_added_to_mask(fn, call)
            if added:
                return added
        if mask is not None and mask.dim() == 4 and other == mask.shape[1] * group:
            q0, k0, v0 = (torch.zeros(t.shape, dtype=t.dtype) for t in call[:3])
            k1, v1 = k0.repeat_interleave(group, dim=1), v0.repeat_interleave(group, dim=1)
            unrepeated = _raises_exactly(
                str(exc), lambda: scaled_dot_product_attention(q0, k0, v0, mask)
            )
            repeated_mask = _raises_exactly(
                str(exc),
                lambda: scaled_dot_product_attention(
                    q0, k1, v1, mask.repeat_interleave(group, dim=1)
                ),
            )
            on_mask = (
                f"Your mask was repeated along the head axis like the keys and values "
                f"(mask.repeat_interleave(group, dim=1)): its {mask.shape[1]} became "
                f"{other}, which neither is num_heads = {heads} nor broadcasts. The mask is "
                f"used as given: its head axis of {mask.shape[1]} broadcasts over the query "
                "heads; only k and v are repeated."
            )
            if repeated_mask and not unrepeated:
                return on_mask
            if repeated_mask == unrepeated and other == kv:
                return (
                    f"Something reached the attention with {other} heads where num_heads = "
                    f"{heads} are: either the keys or values, not repeated along the head "
                    "axis (" + rule + "), or the mask, repeated like them. " + on_mask
                )
        from_keys = _values_from_keys(fn)
        if from_keys:
            return from_keys
        if other == kv and len(call) >= 2:
            located = _group_from_other_axes(fn, tuple(call[0].shape), tuple(call[1].shape), 1)
            if located:
                return located + " " + rule
        if other == kv and _repeated_on_length(fn):
            return (
                f"Your keys or values reached the attention with num_kv_heads = {kv} heads, "
                f"not num_heads = {heads}: they were repeated along the length axis (dim=2) "
                "instead of the head axis: on a probe with one key/value head and a (len_q, "
                "len_k) mask, yours makes group times len_k keys, which the mask does not fit "
                "(each query head then attends to every key group times). " + rule
            )
        on_axis = _repeated_on_another_axis(fn) if other == kv else ""
        if on_axis:
            return on_axis
        one = _one_unrepeated(fn) if other == kv else None
        if one is not None:
            done = "values" if one == "keys" else "keys"
            return (
                f"Your {one} reached the attention with num_kv_heads = {kv} heads, not "
                f"num_heads = {heads}: your {done} are repeated along the head axis, but "
                f"your {one} are not repeated at all (a probe whose {one} already have num_heads heads runs, "
                f"where its {done} would clash). Repeat both: " + rule
            )
        if other == kv:
            return (
                f"Your keys or values reached the attention with num_kv_heads = {kv} heads, "
                f"not num_heads = {heads}: they were not repeated along the head axis: "
                "either not repeated at all, or repeated along another axis than dim=1, or "
                "the group size came out 1 (read from other axes than q.shape[1] and "
                "k.shape[1]). " + rule
            )
        remainder = _zero_group(fn, heads, kv) if other == 0 else ""
        if remainder:
            return remainder + " " + rule
        if other % kv == 0 and len(call) >= 2:
            located = _group_from_other_axes(
                fn, tuple(call[0].shape), tuple(call[1].shape), other // kv
            )
            if located:
                return located + " " + rule
        if other % kv == 0:
            used = other // kv
            why = (
                f"{used} is the group size of an earlier input, which passed: is the group "
                "size hard-coded? Or read from other axes than q.shape[1] and k.shape[1]?"
                if used in earlier_groups
                else "the group size read from other axes than q.shape[1] and k.shape[1]?"
                + (
                    " Or divided the wrong way round, num_kv_heads // num_heads?"
                    if not used
                    else ""
                )
            )
            return (
                f"Your keys or values reached the attention with {other} heads: each of the "
                f"{kv} key/value heads was repeated {used} times, not {group} ({why}). " + rule
            )
        return ""

    return lambda exc: isinstance(exc, RuntimeError), text


def _full_mask_right(fn, q, k, v, mask) -> bool:
    """Whether the learner's function is right on this input with the mask spelled out to
    (batch, num_heads, len_q, len_k), one slice per query head."""
    full = mask.expand(q.shape[0], q.shape[1], q.shape[2], k.shape[2]).contiguous()
    try:
        out = fn(q.clone(), k.clone(), v.clone(), full)
    except Exception:  # the probe tells nothing
        return False
    expected = gqa_expected(q, k, v, mask)
    return (
        isinstance(out, torch.Tensor)
        and out.shape == expected.shape
        and torch.allclose(out.double(), expected.double(), 1e-4, 1e-5)
    )


def _mask_per_head(fn, q, k, v, mask, raised: str = "it is not") -> str:
    """A mask taken per query head (mask[:, h]) as if it always had num_heads heads: the
    learner's code is right on the same input with the mask spelled out to (batch,
    num_heads, len_q, len_k), wrong (or raising) on the mask as given, with fewer axes or a
    head axis of 1 (blind13e-gqa-per-head-loop-mask-indexed-by-head was only located in
    "how the mask is applied"). "" when the mask already has num_heads heads."""
    if mask is None or (mask.dim() == 4 and mask.shape[1] == q.shape[1]):
        return ""
    if not _full_mask_right(fn, q, k, v, mask):
        return ""
    return _MASK_PER_HEAD.format(
        shape=tuple(mask.shape), full=(*q.shape[:3], k.shape[2]), raised=raised
    )


_MASK_PER_HEAD = (
    "With the same mask spelled out to (batch, num_heads, len_q, len_k) = {full}, one slice "
    "per query head, yours is right; with the mask as given, {shape}, {raised}: your code "
    "indexes the mask along the head axis (mask[:, h] for query head h, as if it always had "
    "num_heads heads). A mask need only broadcast to (batch, num_heads, len_q, len_k): a 2-D "
    "(len_q, len_k) one has no head axis (its [:, h] picks column h), a 4-D one may have a "
    "head axis of size 1. Use the mask as given on all heads at once (masked_fill broadcasts "
    "it), or take each head's slice from the mask broadcast first, "
    "mask.expand(batch, num_heads, len_q, len_k)[:, h]."
)


def _mask_head_index_hint(fn, call: tuple):
    """An index past a mask's head axis of size 1 (mask[:, h] for h >= 1): named when the
    learner's code is right with the mask spelled out to num_heads heads."""
    q, k, v, mask = call
    pattern = re.compile(r"index \d+ is out of bounds for dimension 1 with size 1\b")

    def hint(exc: BaseException) -> str:
        if mask is None or mask.dim() != 4 or mask.shape[1] != 1 or not pattern.search(str(exc)):
            return ""
        return _mask_per_head(fn, q, k, v, mask, "it raises this error")

    return (IndexError, hint)


def _localise_gqa(grouped_query_attention, got, q, k, v, mask) -> str:
    """When no known mistake matches: the learner's function on plain multi-head attention
    (no sharing, no mask), on shared key/value heads (no mask), and on shared heads with a
    mask; the part the first wrong one points to, and which query heads of the failing
    input are right (class 2: locate, instead of "differs from the reference")."""
    q1, q2 = randn((1, 2, 3, 4), 4501), randn((1, 4, 3, 4), 4502)
    k2, v2 = randn((1, 2, 5, 4), 4503), randn((1, 2, 5, 4), 4504)
    later = look_ahead_mask(5)[2:]  # (3, 5): the 3 queries are the last 3 of 5 positions
    probes = [
        ("plain multi-head attention (num_kv_heads == num_heads, no mask)", (q1, k2, v2, None)),
        ("shared key/value heads (4 query heads, 2 key/value heads, no mask)", (q2, k2, v2, None)),
        ("the same with a mask", (q2, k2, v2, later)),
    ]
    features = []
    if q.shape[0] > 1:
        features.append(f"batch {q.shape[0]}")
    if v.shape[-1] != q.shape[-1]:
        features.append("d_v != d_head")
    if mask is not None and mask.dim() == 4:
        features.append(f"a mask of shape {tuple(mask.shape)}")
    if q.dtype != torch.float32:
        features.append(f"dtype {q.dtype}")
    heads = ""
    if isinstance(got, torch.Tensor) and got.shape[:2] == q.shape[:2]:
        expected = gqa_expected(q, k, v, mask)
        right = [
            h
            for h in range(q.shape[1])
            if torch.allclose(got[:, h].double(), expected[:, h].double(), 1e-4, 1e-5)
        ]
        if 0 < len(right) < q.shape[1]:
            heads = f" On this input query heads {right} are right and the others wrong."
    return (
        _localise_blocks(
            lambda *args: grouped_query_attention(
                *(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
            ),
            [(text, args, gqa_expected(*args)) for text, args in probes],
            {
                (False, False, False): "Already plain multi-head attention is wrong, so the "
                "mistake is in the attention itself (scores q kᵀ / sqrt(d_head), the softmax "
                "over the keys, the weights times v, each output head from its own query "
                "head), not in the sharing.",
                (True, False, False): "Plain multi-head attention is right and shared heads "
                "are not: the mistake is in what depends on the group, group = num_heads // "
                "num_kv_heads, each key/value head repeated group times along dim=1 "
                "(repeat_interleave) so that query head h meets key/value head h // group; "
                "nothing else (the scale 1 / sqrt(d_head), the softmax) changes with it.",
                (False, False, True): "With a mask yours is right, and both calls without "
                "one (mask=None) are wrong: the mistake is in what your code does when no mask "
                "is given (a default mask, is_causal, a branch taken only when mask is None). "
                "mask=None means no masking: every query attends to every key.",
                (True, True, False): "Without a mask all is right, with one it is not: the "
                "mistake is in how the mask is applied (blocked where it is False, filled "
                "with -inf before the softmax, used as given: it broadcasts to (batch, "
                "num_heads, len_q, len_k)).",
            },
            "All three are right, so the mistake shows only on inputs like this one"
            + (f" ({', '.join(features)})" if features else "")
            + ": compare your steps with the reference's on it.",
        )
        + heads
    )


def _unasked_mask_mistakes(q, k, v, mask) -> dict:
    """A call without a mask (mask=None) answered with a mask anyway (is_causal=mask is
    None, a causal default): one mistake per default mask these sizes tell apart (blind24c-
    gqa-causal-when-no-mask was located in "the attention itself"). Empty when a mask was
    given."""
    if mask is not None:
        return {}
    return {
        f"This call has mask=None, so every query attends to every key, but yours applies "
        f"{text}. Apply a mask only when one is given (no is_causal, no default mask): "
        "without a mask the scores are not restricted.": gqa_expected(q, k, v, unasked)
        for text, unasked in unasked_masks(q.shape[-2], k.shape[-2]).items()
    }


def _scale_divisors(q, k, v) -> dict[str, float]:
    """The classic wrong divisors of the scores (the right one is sqrt(d_head)), each with
    the sentence that names it."""
    heads, len_q, d = q.shape[1], q.shape[-2], q.shape[-1]
    len_k, d_v = k.shape[-2], v.shape[-1]
    divisors = {
        "The scores are not divided by sqrt(d_head).": 1.0,
        "The scores are divided by d_head instead of sqrt(d_head).": float(d),
        # blind16e-gqa-scale-by-model-width was told "d_head", equal here (num_heads = d_head)
        "The scores are divided by sqrt(num_heads * d_head), the model's width d_model (the "
        "size the projections work in), instead of sqrt(d_head), the width of one head: "
        "each head's scores are a dot product over d_head = q.shape[-1] features.": math.sqrt(
            heads * d
        ),
    }
    if d_v != d:
        divisors[
            "The scores are divided by sqrt(d_v), the values' width (v.shape[-1]), instead "
            "of sqrt(d_head), the width of the queries and keys (q.shape[-1]): the two "
            "differ here."
        ] = math.sqrt(d_v)
    for name, axis, size in (("len_q", "q.shape[-2]", len_q), ("len_k", "k.shape[-2]", len_k)):
        if size != d and (name == "len_q" or len_k != len_q):
            divisors[
                f"The scores are divided by sqrt({name}), the square root of a length "
                f"({axis}), instead of sqrt(d_head) = sqrt(q.shape[-1]): d_head is the "
                "last axis."
            ] = math.sqrt(size)
    return {text: value for text, value in divisors.items() if value != math.sqrt(d)}


def _scale_mistakes(grouped_query_attention, got, q, k, v, mask) -> dict:
    """The wrong scales as ``mistakes`` for expect_close, one entry per distinct divisor.
    Where several candidates share this input's divisor and the output is that divisor's,
    a probe whose sizes give each candidate its own divisor tells which one the code
    uses; when it cannot, the candidates are named together."""
    groups: dict[float, list[str]] = {}
    for text, value in _scale_divisors(q, k, v).items():
        same = next((key for key in groups if math.isclose(key, value)), value)
        groups.setdefault(same, []).append(text)
    mistakes = {}
    for divisor, texts in groups.items():
        expected = gqa_expected(q, k, v, mask, scale=1 / divisor)
        if len(texts) > 1 and got.shape == expected.shape:
            close = torch.allclose(got.double(), expected.double(), atol=1e-4, rtol=1e-4)
            found = _probe_scale(grouped_query_attention, texts) if close else None
            if found:
                texts = [found]
        if len(texts) == 1:
            mistakes[texts[0]] = expected
            continue
        mistakes[
            f"The scores are divided by {divisor:.4g} where sqrt(d_head) belongs; on this "
            "input several classic divisors equal it, so it cannot tell them apart: "
            + " Or: ".join(texts)
        ] = expected
    return mistakes


def _probe_scale(grouped_query_attention, texts: list[str]) -> str | None:
    """Which of ``texts`` (candidates from :func:`_scale_divisors`) the learner's code
    follows on a probe where every candidate has its own divisor (num_heads 4,
    num_kv_heads 2, d_head 3, d_v 5, len_q 7, len_k 8), or None."""
    q = randn((1, 4, 7, 3), 1261)  # (batch, num_heads, len_q, d_head)
    k = randn((1, 2, 8, 3), 1262)  # (batch, num_kv_heads, len_k, d_head)
    v = randn((1, 2, 8, 5), 1263)  # (batch, num_kv_heads, len_k, d_v)
    try:
        got = grouped_query_attention(q, k, v, None)
    except Exception:  # the probe tells nothing
        return None
    if not isinstance(got, torch.Tensor) or got.shape != (1, 4, 7, 5):
        return None
    divisors = _scale_divisors(q, k, v)
    matched = [
        text
        for text in texts
        if text in divisors
        and torch.allclose(
            got.double(),
            gqa_expected(q, k, v, None, scale=1 / divisors[text]).double(),
            atol=1e-4,
            rtol=1e-4,
        )
    ]
    if len(matched) != 1:
        return None
    return (
        f"{matched[0]} (Here the candidate divisors coincide; a probe with num_heads = 4 and "
        "d_head = 3, where each has its own value, tells which one yours uses.)"
    )


def check_grouped_query_attention(grouped_query_attention, *, hidden: bool = False) -> None:
    """grouped_query_attention(q, k, v, mask=None) -> output (batch, num_heads, len_q, d_v)."""
    with (
        Checker("grouped_query_attention", hidden=hidden) as c,
    ):
        c.require_callable(grouped_query_attention)
        earlier_groups: list[int] = []  # the group sizes of the inputs that passed
        for q, k, v, mask in _gqa_cases(hidden):
            batch, heads, len_q, _ = q.shape
            kv = k.shape[1]
            what = (
                f"grouped_query_attention(q {tuple(q.shape)}, k {tuple(k.shape)}, "
                f"v {tuple(v.shape)}, mask={'None' if mask is None else tuple(mask.shape)})"
            )
            got = c.call(
                grouped_query_attention,
                q,
                k,
                v,
                mask,
                call_repr=what,
                hints=[
                    _mask_truth_hint(grouped_query_attention, (q, k, v, mask)),
                    _mask_not_cut_hint(grouped_query_attention, (q, k, v, mask)),
                    _gqa_heads_hint(
                        heads, kv, tuple(earlier_groups), (q, k, v, mask), grouped_query_attention
                    ),
                    _positions_on_head_axis_hint((q, k, v, mask)),
                    _flattened_hint(),
                    _mask_head_index_hint(grouped_query_attention, (q, k, v, mask)),
                    _head_index_hint(heads, kv),
                    _mask_reshaped_hint(mask),
                    _grouped_mask_hint(mask, heads, kv),
                    _lower_precision_hint(q.dtype, "q"),
                    *_GQA_SHAPES,
                ],
            )
            if isinstance(got, tuple) and got:
                c.fail(
                    f"{what} returned a tuple of {len(got)}; return only the output tensor "
                    "(batch, num_heads, len_q, d_v)."
                )
            _expect_tensor(c, got, what)
            hint = ""
            if mask is not None and got.dim() > 4 and tuple(got.shape[-2:]) == (len_q, v.shape[-1]):
                hint = (
                    f"Your output has {got.dim()} axes: the mask, {tuple(mask.shape)} here, got "
                    "new axes (mask[None, None], unsqueeze) as if it were (len_q, len_k). It is "
                    "already broadcastable to (batch, num_heads, len_q, len_k): use it as it "
                    "is."
                )
            if tuple(got.shape) == (batch, len_q, heads, v.shape[-1]) and len_q != heads:
                hint = (
                    "Its heads and positions are swapped, (batch, len_q, num_heads, d_v): a "
                    "transpose(1, 2) too many (the layout merge_heads starts from). Return "
                    "the attention's output as it comes, (batch, num_heads, len_q, d_v)."
                )
            right = gqa_expected(q, k, v, mask)  # (batch, num_heads, len_q, d_v)
            kept = None
            if tuple(got.shape) == (batch, kv, len_q, v.shape[-1]) and kv != heads:
                hint = (
                    "Your output has num_kv_heads heads: every query head needs its own output, "
                    "so the key/value heads are shared (repeated), not the query heads reduced."
                )
                # blind16e-gqa-query-heads-subsampled (told the count alone): the values
                # say which query heads were kept
                kept = next(
                    (
                        first
                        for first in range(heads // kv)
                        if torch.allclose(
                            got.detach().double(),
                            right[:, first :: heads // kv].double(),
                            atol=1e-5,
                        )
                    ),
                    None,
                )
                if kept is not None:
                    kept_heads = list(range(kept, heads, heads // kv))
                    hint = (
                        f"Yours is the right output of query heads {kept_heads} only, one per "
                        f"group: the other query heads were dropped, as q[:, {kept or ''}::group] "
                        "(keeping one query head per group of group = num_heads // "
                        "num_kv_heads) does. Every query head needs its own output: share the "
                        "key/value heads instead, k.repeat_interleave(group, dim=1) (likewise "
                        "v), and keep all the query heads."
                    )
            len_k = v.shape[-2]
            if tuple(got.shape) == (batch, heads, len_q, len_k) and len_k != v.shape[-1]:
                # (blind10k-gqa-returns-weights got the shapes alone)
                hint = (
                    f"Yours is the shape of the attention weights, (batch, num_heads, len_q, "
                    f"len_k) with len_k = {len_k}, not of the output, whose last axis is d_v = "
                    f"v.shape[-1] = {v.shape[-1]}: either lesson 04's pair (output, weights) "
                    "was unpacked the wrong way round (_, output = ...), or the weights were "
                    "never multiplied by the values (weights @ v)."
                )
            if got.shape[-1] == k.shape[-1] != v.shape[-1]:
                hint = _values_from_keys(grouped_query_attention) or hint
            if (
                mask is not None
                and mask.dim() == 2
                and got.dim() == 4
                and tuple(got.shape[1:]) == (heads, len_q, v.shape[-1])
                and got.shape[0] == mask.shape[0] != batch
            ):
                # blind12l-gqa-2d-mask-taken-for-padding (its shape alone before): the
                # batch axis measured against the mask's axes
                hint = (
                    f"Your output's batch axis has {got.shape[0]} entries, the size of the "
                    f"mask's first axis (mask {tuple(mask.shape)}, a (len_q, len_k) mask), "
                    f"not batch = {batch}: the mask reached the attention with its first axis "
                    "on the batch axis, as mask[:, None, None, :] gives, which reads every 2-D "
                    "mask as a (batch, len_k) padding mask; broadcasting then made one output "
                    "per mask row. A (len_q, len_k) mask broadcasts over batch and heads as it "
                    "is (or as mask[None, None]); only a (batch, len_k) padding mask needs "
                    "[:, None, None, :]."
                )
            c.expect_shape(
                got,
                (batch, heads, len_q, v.shape[-1]),
                what,
                hint,
                # the groups' outputs joined on the positions (blind20c-gqa-group-outputs-
                # joined-on-positions: its shape alone before), or some query heads only
                expected=None if kept is not None else right,
                axes=("batch", "num_heads", "len_q", "d_v"),
            )
            c.expect_floating(got, what, preferred=q.dtype)
            if q.dtype == torch.float64 and got.dtype != torch.float64:
                c.fail(
                    _LOWER_PRECISION.format(
                        what=what, got=got.dtype, name="grouped_query_attention", first="q"
                    )
                )
            implicit = any(_IMPLICIT_SOFTMAX in text for text in c.last_warnings)
            heads_softmax = (
                "Your softmax runs over the heads (dim=1), not over the keys: "
                + (
                    "your softmax was called without dim (PyTorch warned of its implicit "
                    "dimension choice), and on a 4-D tensor PyTorch then picks dim=1, the "
                    "heads axis, so each score is normalised across the heads."
                    if implicit
                    else "a softmax called without dim picks dim=1 on a 4-D tensor (PyTorch's "
                    "implicit choice), as does an explicit dim=1."
                )
                + " Each query's weights over the keys must sum to 1: softmax(scores, "
                "dim=-1)."
            )
            mistakes = {
                heads_softmax: _gqa_heads_softmax(q, k, v, mask),
                "The heads are paired wrongly: query head h must use key/value head "
                "h // group (heads 0..group-1 share the first), but yours uses h % num_kv_heads. "
                "k.repeat(1, group, 1, 1) tiles [k0, k1, k0, k1]; repeat_interleave gives "
                "[k0, k0, k1, k1].": (
                    gqa_expected(q, k, v, mask, tile=True) if 1 < kv < heads else None
                ),
                **_scale_mistakes(grouped_query_attention, got, q, k, v, mask),
                "The mask was ignored: blocked keys got weight. "
                + never_applied(
                    "the mask",
                    "scores.masked_fill(~mask, float('-inf'))",
                    "scores = scores.masked_fill(~mask, float('-inf'))",
                    "the mask argument",
                ): (None if mask is None else gqa_expected(q, k, v, None)),
                "The mask is read the wrong way round: True means *may attend* (as in "
                "lesson 06), so blocked positions are where the mask is False "
                "(masked_fill(~mask, -inf)).": (
                    None if mask is None else gqa_expected(q, k, v, ~mask)
                ),
                "Your scale is applied after the softmax, to the weights: the softmax runs "
                "on the unscaled scores q kᵀ and the weights are then divided by sqrt(d_head), "
                "so they no longer sum to 1. Scale the scores before the softmax: "
                "softmax(q kᵀ / sqrt(d_head)).": _gqa_scaled_after_softmax(q, k, v, mask, True),
                "Your scale is applied after the softmax, to the weights (multiplied by "
                "sqrt(d_head)): the softmax runs on the unscaled scores q kᵀ and the weights "
                "no longer sum to 1. Scale the scores before the softmax: "
                "softmax(q kᵀ / sqrt(d_head)).": _gqa_scaled_after_softmax(q, k, v, mask, False),
                "Your softmax runs over the queries (dim=-2): each query's weights over the "
                "keys must sum to 1, so take the softmax over the last axis (dim=-1).": (
                    _gqa_query_softmax(q, k, v, mask)
                ),
                _MASK_FILLED_ZERO: (
                    None
                    if mask is None
                    else scaled_dot_product_attention_f(q, k, v, mask, fill=0.0, enable_gqa=True)[0]
                ),
                _GROUPED_MASK_AS_GIVEN: _gqa_grouped_mask_as_given(q, k, v, mask),
                "Your boolean mask was added to the scores (scores + mask: a bias of 1 on the "
                "keys that may be attended, 0 on the others) instead of blocking: masked keys "
                "keep their weight. Fill the blocked scores with -inf, "
                "scores.masked_fill(~mask, float('-inf')), or pass the mask to lesson 04's "
                "attention.": (None if mask is None else _gqa_mask_added(q, k, v, mask)),
                _WEIGHTS_MASKED: None if mask is None else _gqa_weights_masked(q, k, v, mask),
                _KV_HEAD_AXIS_DROPPED: _gqa_kv_head_axis_dropped(q, k, v, mask),
                **_unasked_mask_mistakes(q, k, v, mask),
            }
            c.expect_close(
                got,
                gqa_expected(q, k, v, mask),
                what,
                # float64 inputs test the dtype kept, not float64 precision: a softmax in
                # float32 cast back (Llama's .float() ... .type_as(q)) is right
                **tolerance(got.dtype, torch.float32),
                mistakes=mistakes,
                pairs=lambda q=q, k=k, v=v, mask=mask: _gqa_pairs(q, k, v, mask),
                explain=lambda got=got, q=q, k=k, v=v, mask=mask: (
                    _gqa_key_range(grouped_query_attention, got, q, k, v, mask)
                    or _explain_pairing(got, q, k, v, mask)
                    or _explain_head_mixing(grouped_query_attention, got, q, k, v, mask)
                    or _mask_per_head(grouped_query_attention, q, k, v, mask)
                    or _gqa_scale_named(got, q, k, v, mask)
                    or (
                        ""
                        if _arranged_or_related(got, gqa_expected(q, k, v, mask))
                        else _localise_gqa(grouped_query_attention, got, q, k, v, mask)
                    )
                ),
                hint="Query head h attends with key and value head h // (num_heads // "
                "num_kv_heads), as softmax(q kᵀ / sqrt(d_head), masked) v.",
            )
            earlier_groups.append(heads // kv)


def _gqa_key_range(grouped_query_attention, got, q, k, v, mask) -> str:
    """Round 30: the output is the right attention over a range of the keys only (k and v
    cut by another length: it was located to "the attention itself" before). Not when the
    call had no mask and a mask that allows every key gives the right result: then the
    keys are dropped by a default for mask=None, which the localisation names."""
    len_k = k.shape[-2]
    if mask is None:
        allowed = torch.ones(q.shape[-2], len_k, dtype=torch.bool)  # (len_q, len_k)
        try:
            with torch.no_grad():
                masked = grouped_query_attention(q.clone(), k.clone(), v.clone(), allowed)
            if isinstance(masked, torch.Tensor) and torch.allclose(
                masked.detach().double(), gqa_expected(q, k, v, None).double(), atol=1e-5
            ):
                return ""
        except Exception:  # a probe of the learner's code: no answer from it
            pass

    def attend(a: int, b: int):
        cut = None if mask is None else mask[..., a:b]
        if cut is not None and not bool(cut.any(dim=-1).all()):
            return None  # a query left with no key: not a range the learner could attend
        return gqa_expected(q, k[..., a:b, :], v[..., a:b, :], cut)

    found = attended_key_range(got, attend, len_k)
    if found is None:
        return ""
    lengths = {"len_q = q.shape[-2]": q.shape[-2], "d_head = q.shape[-1]": q.shape[-1]}
    lengths["num_heads = q.shape[1]"] = q.shape[1]
    return key_range_text(*found, len_k, lengths)


# ========================================================================= online_softmax
