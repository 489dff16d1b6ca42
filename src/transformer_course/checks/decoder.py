"""Checks for lesson 08: ``DecoderLayer``, ``Decoder`` and the lesson's two concept
questions.

Built on the layer checks' helpers (:mod:`transformer_course.checking.layers`). The
expected values come from the float64 oracles ``decoder_layer_f`` / ``decoder_f`` of
:mod:`transformer_course.checking.oracles`, one knob per classic mistake, so that a
wrong answer is told which mistake it matches; ``tests/test_oracles.py`` proves them
equal to ``nn.TransformerDecoderLayer`` / ``nn.TransformerDecoder``.

Two properties are checked on top of the values, because they are what the masks are
for: the output at target position t does not change when only target positions after
t change (the look-ahead mask), and it does not change when the encoder output changes
at padded source positions (the source padding mask).

The first case of each run has len_src == len_tgt, so that a mask given to the wrong
attention, or a swap of where cross-attention's queries, keys and values come from, is
computed and named rather than ending in a shape error; the other cases have
len_src != len_tgt.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.hooks import inputs_received
from transformer_course.checking.input_gradients import (
    cut_off_text,
    inputs_without_gradient,
    parameters_without_gradient,
    submodules_named,
)
from transformer_course.checking.inputs import PAD, randn, token_ids
from transformer_course.checking.keep_probability import KEEP_PROBABILITY, rate_read_backwards
from transformer_course.checking.layer_flow import FALLS_THROUGH, stream_dropped_entry
from transformer_course.checking.layer_mistakes import (
    PADDING_WORDS,
    add_new,
    discarded_mistakes,
    dropout_missing_mistakes,
    dropout_place_mistakes,
    layer_mistakes,
    norm_choice_mistakes,
    placement_mistakes,
    post_pre,
    residual_mistakes,
    source_mask,
    stack_description,
    stack_mistakes,
)
from transformer_course.checking.layers import (
    LAYER_HINTS,
    also_wrong_besides_final_norm,
    build,
    describe_mask,
    dropout_rate_problem,
    expect_composite,
    expect_dropout_default_in_train,
    expect_masks_on_every_path,
    expect_masks_on_train_path,
    expect_positional_order,
    expect_sublayers_dropped,
    expect_tensor_result,
    mistake_values,
    only_dropout_mistakes,
    stacked_layers_hint,
    sublayer_inputs_agree,
    value_or_none,
)
from transformer_course.checking.localise import (
    arguments_received,
    called_submodules,
    localise_layer,
    localise_stack,
    mask_arrival_hint,
    mask_reaches_part,
    stack_input_hint,
)
from transformer_course.checking.mask_rows import one_mask_for_all
from transformer_course.checking.modules import expect_contract_defaults, state_shapes
from transformer_course.checking.norm_eps import norm_eps_problem
from transformer_course.checking.oracles import (
    as_float64,
    decoder_f,
    decoder_layer_f,
    uses_final_norm,
)
from transformer_course.checking.oracles.norms import layer_norm_f
from transformer_course.checking.oracles.state import sub
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.checking.rearranged import arrival_hint
from transformer_course.checking.residual_draws import residual_draw_problem, undropped_note
from transformer_course.checking.sequence_slices import position_slice_note
from transformer_course.checking.size_sources import size_source_note
from transformer_course.checking.skipped_calls import skipped_by_none
from transformer_course.checking.skipped_layers import layers_skipped_in_training
from transformer_course.checking.state_keys import (
    built_keys,
    layer_count_note,
    norms_without_affine,
)
from transformer_course.checking.swapped_arguments import attention_arguments_swapped
from transformer_course.checking.unregistered import unregistered_dropouts
from transformer_course.exercise import Exercise
from transformer_course.reference import decoder as ref
from transformer_course.reference.masking import decoder_self_attention_mask, look_ahead_mask

__all__ = [
    "check_Decoder",
    "check_DecoderLayer",
    "check_quiz_cross_attention_norm",
    "check_quiz_decoder_masks",
]


# ===================================================================== cases and inputs
@dataclass(frozen=True)
class _DecCase:
    seed: int
    batch: int
    len_tgt: int
    len_src: int
    d_model: int
    num_heads: int
    d_ff: int
    norm_first: bool = False
    src_padding: str = "right"  # "none", "right", "left", "both"
    tgt_mask: str = "combined"  # "combined" (look-ahead & target padding), "look_ahead", "none"
    dropout: float = 0.0
    mode: str = "eval"
    num_layers: int = 1  # for the stack
    final_norm: bool | None = None  # for the stack
    later_calls: bool = False  # one more call on the same module; no masks (the stack)


_VISIBLE_LAYER = [
    _DecCase(41, 2, 4, 4, 8, 2, 16, later_calls=True),
    _DecCase(42, 2, 3, 6, 8, 2, 16, src_padding="left", tgt_mask="look_ahead", dropout=0.2),
    _DecCase(43, 2, 5, 5, 8, 2, 12, norm_first=True),
    _DecCase(44, 2, 4, 6, 8, 2, 16, dropout=1.0, mode="train"),
    _DecCase(45, 1, 3, 4, 8, 2, 16, norm_first=True, dropout=1.0, mode="train"),
]
_HIDDEN_LAYER = [
    _DecCase(141, 3, 5, 5, 12, 3, 20, src_padding="both", later_calls=True),
    _DecCase(142, 2, 4, 4, 16, 4, 32, norm_first=True, dropout=0.1),
    _DecCase(143, 2, 6, 3, 8, 2, 16, tgt_mask="look_ahead"),
    _DecCase(144, 2, 4, 7, 12, 3, 12, dropout=0.0, mode="train"),
    _DecCase(145, 1, 5, 3, 8, 4, 8, dropout=1.0, mode="train"),
    _DecCase(146, 2, 3, 5, 8, 2, 16, norm_first=True, dropout=1.0, mode="train"),
    _DecCase(147, 2, 2, 6, 8, 2, 16, norm_first=True, src_padding="left"),
]
_VISIBLE_STACK = [
    # three layers: a return inside the loop and a loop one layer short differ
    _DecCase(51, 2, 4, 4, 8, 2, 16, num_layers=3, later_calls=True),
    # final_norm=True on a post-LN stack before any pre-LN stack: layers that follow
    # final_norm instead of norm_first (the one in the other's slot) show here alone
    _DecCase(53, 1, 4, 6, 8, 2, 12, dropout=0.1, num_layers=3, final_norm=True),
    _DecCase(52, 2, 3, 5, 8, 2, 16, norm_first=True, src_padding="left", num_layers=2),
    _DecCase(54, 2, 4, 5, 8, 2, 16, dropout=1.0, mode="train", num_layers=2),
    # an explicit final_norm=False on a pre-LN stack: no final norm (not `or norm_first`)
    _DecCase(55, 2, 3, 4, 8, 2, 16, norm_first=True, num_layers=2, final_norm=False),
]
_HIDDEN_STACK = [
    _DecCase(
        151, 2, 5, 5, 12, 3, 20, src_padding="both", num_layers=3, norm_first=True, later_calls=True
    ),
    _DecCase(152, 3, 4, 6, 8, 2, 16, num_layers=1, final_norm=True, tgt_mask="look_ahead"),
    _DecCase(153, 2, 6, 3, 16, 4, 32, num_layers=4),
    _DecCase(154, 1, 3, 5, 8, 4, 8, norm_first=True, dropout=1.0, mode="train", num_layers=2),
    _DecCase(155, 2, 5, 4, 12, 3, 12, dropout=0.0, mode="train", num_layers=2, final_norm=False),
    _DecCase(156, 1, 4, 5, 8, 2, 16, norm_first=True, num_layers=2, final_norm=False),
]


@dataclass
class _Inputs:
    x: torch.Tensor  # (batch, len_tgt, d_model)
    memory: torch.Tensor  # (batch, len_src, d_model)
    src_mask: torch.Tensor | None  # (batch, 1, 1, len_src)
    tgt_mask: torch.Tensor | None  # (batch, 1, len_tgt, len_tgt) or (len_tgt, len_tgt)
    src_real: torch.Tensor | None  # bool (batch, len_src): which source positions are real

    def args(self) -> tuple:
        """forward's positional arguments, (x, memory, src_mask, tgt_mask), trailing Nones off."""
        args = [self.x, self.memory, self.src_mask, self.tgt_mask]
        while args[-1] is None:
            args.pop()
        return tuple(args)


def _inputs(case: _DecCase) -> _Inputs:
    x = randn((case.batch, case.len_tgt, case.d_model), case.seed + 1)
    memory = randn((case.batch, case.len_src, case.d_model), case.seed + 2)
    src_ids, src_mask = source_mask(case.batch, case.len_src, case.src_padding, case.seed + 3)
    if case.tgt_mask == "combined":  # the last target sequence is padded at the end
        lengths = [case.len_tgt] * (case.batch - 1) + [max(case.len_tgt - 1, 1)]
        tgt_ids = token_ids(lengths, case.len_tgt, case.seed + 4)
        tgt_mask = decoder_self_attention_mask(tgt_ids, PAD)  # (batch, 1, len_tgt, len_tgt)
    elif case.tgt_mask == "look_ahead":
        tgt_mask = look_ahead_mask(case.len_tgt)  # (len_tgt, len_tgt)
    else:
        tgt_mask = None
    src_real = None if src_ids is None else src_ids != PAD
    return _Inputs(x, memory, src_mask, tgt_mask, src_real)


def _call_text(name: str, inputs: _Inputs, case: _DecCase, built: str) -> str:
    src_kind = PADDING_WORDS[case.src_padding] and f"source {PADDING_WORDS[case.src_padding]}"
    tgt_kind = {
        "combined": "look-ahead and target padding",
        "look_ahead": "look-ahead",
        "none": "",
    }[case.tgt_mask]
    return (
        f"{name}(x {tuple(inputs.x.shape)}, memory {tuple(inputs.memory.shape)}, "
        f"src_mask={describe_mask(inputs.src_mask, src_kind)}, "
        f"tgt_mask={describe_mask(inputs.tgt_mask, tgt_kind)}) [{built}]"
    )


def _mask_hints(module, inputs: _Inputs) -> list:
    """For an exception: an attention whose mask arrives with another shape than the
    mask it belongs to (tgt_mask for the self-attention, src_mask for the cross-attention)."""
    return [
        *mask_arrival_hint(
            module,
            lambda: module(*inputs.args()),
            {
                "self_attn": ("tgt_mask", inputs.tgt_mask),
                "cross_attn": ("src_mask", inputs.src_mask),
            },
        ),
        *arrival_hint(
            module,
            lambda: module(*inputs.args()),
            {"memory": inputs.memory, "x": inputs.x},
            ("self_attn", "cross_attn"),
        ),
    ]


def _expanded_src_mask_hint(module, inputs: _Inputs) -> list:
    """For a size clash: when `cross_attn` receives src_mask broadcast along its size-1
    query axis to a number of rows that is not len_tgt (found with a pre-hook), that
    expansion, and len_src = memory.size(1) as its likely source when the rows are that
    many (blind13g-dl-src-mask-expanded-to-len-src was given the size clash and the
    candidates)."""
    wanted, len_tgt = inputs.src_mask, inputs.x.shape[1]
    len_src = inputs.memory.shape[1]

    def hit(_exc: BaseException) -> str:
        if not isinstance(wanted, torch.Tensor) or wanted.dim() != 4 or wanted.shape[2] != 1:
            return ""
        calls = inputs_received(module, ("cross_attn",), lambda: module(*inputs.args()))
        for name, _role, args, kwargs in calls:
            mask = kwargs.get("mask", args[3] if len(args) > 3 else None)
            if not isinstance(mask, torch.Tensor) or mask.dim() != 4:
                continue
            rows = mask.shape[2]
            if rows in (1, len_tgt) or tuple(mask.shape) != (*wanted.shape[:2], rows, len_src):
                continue
            if not torch.equal(mask.to(wanted.dtype), wanted.expand(mask.shape)):
                continue
            source = (
                f" {rows} is len_src, the source's length (memory.size(1)): the expansion "
                "used the length of the keys where the queries' belongs."
                if rows == len_src
                else ""
            )
            shown = name if "." in name else f"self.{name}"
            return (
                f"`{shown}` gets src_mask expanded along its query axis (axis 2) to {rows} rows, "
                f"shape {tuple(mask.shape)}, while the cross-attention's scores have one row per "
                f"target position, len_tgt = {len_tgt} (x.size(1)).{source} Pass src_mask on as "
                "it is: its size-1 query axis broadcasts to any number of queries (or expand to "
                "x.size(1))."
            )
        return ""

    return [("must match the size of tensor", hit)]


def _hints(case: _DecCase) -> list:
    if case.len_src == case.len_tgt:
        return LAYER_HINTS
    text = (
        f"Here the target and the source differ in length (len_tgt={case.len_tgt}, "
        f"len_src={case.len_src}). A size clash usually means a tensor met the wrong partner: "
        "the cross-attention takes its queries from x (len_tgt rows) and its keys and values from "
        "memory (len_src rows); tgt_mask (len_tgt x len_tgt) goes to the self-attention and "
        "src_mask (x len_src) to the cross-attention. Check the order of forward's parameters "
        "too: (x, memory, src_mask, tgt_mask)."
    )
    return [*LAYER_HINTS, ("must match the size of tensor", text)]


# ================================================================== the two properties
_SEES_THE_FUTURE = (
    "The output at target position {t} changed when only the decoder inputs after position {t} "
    "changed: your decoder looks into the future, which it cannot do while generating. The "
    "self-attention must get tgt_mask (the look-ahead mask, combined with the target padding): "
    "self_attn(x, x, x, tgt_mask)."
)
_SEES_SOURCE_PADDING = (
    "Changing the encoder output at padded source positions changed your decoder's output: the "
    "cross-attention gives weight to <pad> positions. Pass src_mask to the cross-attention: "
    "cross_attn(x, memory, memory, src_mask)."
)


_EVAL_NOT_DETERMINISTIC = (
    "In eval mode your output changes from one call to the next: dropout is still active. Use "
    "nn.Dropout modules (they follow train()/eval()), or F.dropout(..., training=self.training)."
)


def _mask_reshaped(module, inputs: _Inputs) -> str:
    """An attention that receives its mask with the axes rearranged (a squeeze, an
    unsqueeze) or the other mask: what breaks a mask property then, said before the
    property's own diagnosis (which would tell the learner to pass a mask already passed)."""
    (_, hit), *_ = _mask_hints(module, inputs)
    return hit(None)


def _property_problem(c: Checker, module, inputs: _Inputs, case: _DecCase, call: str, got):
    """The first mask property that the learner's module breaks, as a message, or ""."""
    if case.mode == "train" and (
        wrong := dropout_rate_problem(module, inputs.args(), got, case.dropout)
    ):
        return wrong  # two calls differ: what the properties compare below means nothing
    if case.mode != "eval" and case.dropout > 0:
        return ""
    if case.dropout > 0:
        again = c.call(
            module, *inputs.args(), call_repr=f"{call}, a second time", hints=_hints(case)
        )
        if not _same(got, again):
            unregistered = unregistered_dropouts(module, lambda: module(*inputs.args()))
            if unregistered:  # not the functional dropout's flag (blind13g-el-dropouts-...)
                return f"In eval mode your output changes from one call to the next: {unregistered}"
            return _EVAL_NOT_DETERMINISTIC
    if inputs.tgt_mask is not None and case.len_tgt > 1:
        t = (case.len_tgt - 1) // 2
        later = inputs.x.clone()
        later[:, t + 1 :] += randn(later[:, t + 1 :].shape, case.seed + 5, scale=3.0)
        changed = _Inputs(later, inputs.memory, inputs.src_mask, inputs.tgt_mask, inputs.src_real)
        other = c.call(
            module,
            *changed.args(),
            call_repr=f"{call}, with x changed after position {t}",
            hints=_hints(case),
        )
        if not _same(got[:, : t + 1], other[:, : t + 1]):
            return (
                _mask_reshaped(module, inputs)
                or _future_by_another_path(module, inputs, t)
                or mask_reaches_part(
                    module,
                    lambda: module(*inputs.args()),
                    {"self_attn": ("tgt_mask", inputs.tgt_mask)},
                )
                or _SEES_THE_FUTURE.format(t=t)
            )
    if inputs.src_real is not None and not bool(inputs.src_real.all()):
        noisy = inputs.memory.clone()
        noise = randn(noisy.shape, case.seed + 6, scale=5.0)
        noisy[~inputs.src_real] += noise[~inputs.src_real]
        changed = _Inputs(inputs.x, noisy, inputs.src_mask, inputs.tgt_mask, inputs.src_real)
        other = c.call(
            module,
            *changed.args(),
            call_repr=f"{call}, with memory changed at the padded source positions",
            hints=_hints(case),
        )
        if not _same(got, other):
            if wrong := _mask_reshaped(module, inputs):
                return wrong  # the mask arrives, reshaped: "pass src_mask" would be wrong
            if cut := _memory_cut(module, inputs):
                return cut  # keys and values a slice of memory: "pass src_mask" says too little
            if _cross_attention_ignores_padding(module, inputs):
                return _SOURCE_PADDING_BYPASSES_ATTENTION
            return _layers_without_src_mask(module, inputs) or _SEES_SOURCE_PADDING
    return ""


def _layers_without_src_mask(module, inputs: _Inputs) -> str:
    """For a stack whose output sees the source padding: when some layers' cross-attention
    gets src_mask and the others' none (src_mask set to None after the first layer:
    blind17g-dec-src-mask-dropped-after-first-layer was told to pass src_mask, which its
    first layer got), which; "" otherwise."""
    calls = _attention_calls(module, "cross_attn", inputs) or []
    if len(calls) < 2:
        return ""
    masks = []
    for name, given in calls:
        values = list(given.values())
        masks.append((name, given.get("mask", values[3] if len(values) > 3 else None)))
    got = [name for name, mask in masks if _same_mask(mask, inputs.src_mask)]
    none = [name for name, mask in masks if mask is None]
    if not got or not none or len(got) + len(none) != len(calls):
        return ""
    when = "after the first layer" if got == [masks[0][0]] else "for some layers"
    return (
        "Changing the encoder output at padded source positions changed your decoder's "
        f"output: {', '.join(f'`{name}`' for name in none)} get{'s' if len(none) == 1 else ''} "
        f"no mask, while {', '.join(f'`{name}`' for name in got)} "
        f"get{'s' if len(got) == 1 else ''} src_mask: it is set to None (or not passed on) "
        f"{when}, so those layers attend to the <pad> positions. Pass src_mask unchanged "
        "to every layer: for layer in self.layers: x = layer(x, memory, src_mask, tgt_mask)."
    )


def _same_mask(a: Any, b: Any) -> bool:
    """Whether two masks allow the same positions once broadcast (None only equals None)."""
    if a is None or b is None:
        return a is None and b is None
    if not (torch.is_tensor(a) and torch.is_tensor(b)):
        return False
    try:
        shape = torch.broadcast_shapes(a.shape, b.shape)
        return bool(torch.equal(a.bool().expand(shape), b.bool().expand(shape)))
    except RuntimeError:
        return False


def _attention_calls(module, role: str, inputs: _Inputs) -> list[tuple[str, dict[str, Any]]] | None:
    """[(name, its arguments by name)] for every submodule of ``module`` called ``role``
    (``self_attn``, ``cross_attn``: the layer's own, or each layer's in a stack), observed
    on the base inputs; None when one of them cannot be observed."""
    found = []
    for name, child in module.named_modules():
        if name.rsplit(".", 1)[-1] != role:
            continue
        given = arguments_received(child, lambda: module(*inputs.args()))
        if given is None:
            return None
        found.append((name, dict(given)))
    return found


def _future_by_another_path(module, inputs: _Inputs, t: int) -> str:
    """When the output at position t depends on later target inputs although EVERY
    self-attention receives tgt_mask itself: the path the later positions take (a
    cross-attention whose keys are not memory), or that the self-attention's mask is not
    the cause. "" when some self-attention does not get tgt_mask (the usual message holds)
    or the calls cannot be observed."""
    selfs = _attention_calls(module, "self_attn", inputs)
    if not selfs:
        return ""
    for _, given in selfs:
        values = list(given.values())
        mask = given.get("mask", values[3] if len(values) > 3 else None)
        if not _same_mask(mask, inputs.tgt_mask):
            return ""
    head = (
        f"The output at target position {t} changed when only the decoder inputs after position "
        f"{t} changed: your decoder looks into the future, although every self-attention gets "
        "tgt_mask as it should"
    )
    memory = inputs.memory.detach().double()
    for name, given in _attention_calls(module, "cross_attn", inputs) or []:
        key = given.get("key")
        if not torch.is_tensor(key):
            continue
        key = key.detach().double()
        if key.shape == memory.shape and torch.allclose(key, memory):
            continue
        shown = f"`{name}`" if "." in name else "`self.cross_attn`"
        return (
            f"{head}: {shown} gets keys and values that are not memory (decoder states, which "
            f"carry the later target positions), so position {t} reads them there. Every "
            "cross-attention reads the encoder output as it was given: "
            "cross_attn(x, memory, memory, src_mask), with the stack's memory passed unchanged "
            "to every layer."
        )
    return (
        f"{head}: the later positions reach position {t} by another path than the "
        "self-attention (a sub-layer fed the whole target, or a mask changed on the way)."
    )


def _memory_label(value: torch.Tensor, memory: torch.Tensor, len_tgt: int, rate: float) -> str:
    """What ``value`` (float64) is, when it is memory cut along its length or memory after
    a dropout of ``rate`` (every entry zeroed or scaled by 1 / (1 - rate)); "" otherwise."""
    if value.dim() == 3 and value.shape[::2] == memory.shape[::2]:
        n = value.shape[1]
        if 0 < n < memory.shape[1]:
            for cut, text in ((memory[:, :n], f"[:, :{n}]"), (memory[:, -n:], f"[:, -{n}:]")):
                if torch.allclose(value, cut, rtol=1e-4, atol=1e-5):
                    first = "first" if text.startswith("[:, :") else "last"
                    if n == 1:  # blind26b-dl-cross-attends-last-source-position
                        return (
                            f"memory cut to its {first} source position alone (memory{text}): "
                            "a single key and value, so the softmax gives it all the weight "
                            "and every target position reads the same vector, that "
                            f"position's (a <pad> where a sentence is padded at the "
                            f"{'end' if first == 'last' else 'start'}); the other "
                            f"{memory.shape[1] - 1} source positions are never read. The "
                            "cross-attention attends to every source position, under src_mask"
                        )
                    return (
                        f"memory cut to its {first} {n} positions (memory{text}"
                        + (", the target's length" if n == len_tgt else "")
                        + f"): the other {memory.shape[1] - n} source positions are never "
                        "read, and a source longer than the target loses its end"
                    )
    if rate > 0 and value.shape == memory.shape:
        kept = value != 0
        scaled = memory / (1 - rate) if rate < 1 else memory
        dropped_whole = rate == 1.0 and not kept.any()
        dropped_some = (
            rate < 1
            and not kept.all()
            and torch.allclose(value[kept], scaled[kept], rtol=1e-4, atol=1e-5)
        )
        if dropped_whole or dropped_some:
            return (
                f"dropout(memory) (train mode, dropout={rate}: entries zeroed, the rest "
                "scaled by 1 / (1 - p)): the layer's dropout acts on each sub-layer's "
                "output, never on memory"
            )
    return ""


def _memory_cut(module, inputs: _Inputs) -> str:
    """When the layer's one cross-attention call gets, as its keys and values, memory cut
    along its length (:func:`_memory_label`): that, as a message; "" otherwise."""
    calls = _attention_calls(module, "cross_attn", inputs)
    if not calls or len(calls) != 1:
        return ""
    memory = inputs.memory.detach().double()
    labels = set()
    for slot in ("key", "value"):
        value = calls[0][1].get(slot)
        if not torch.is_tensor(value):
            return ""
        labels.add(_memory_label(value.detach().double(), memory, inputs.x.shape[1], 0.0))
    if len(labels) != 1 or not (label := labels.pop()):
        return ""
    return (
        f"The keys and values of `self.cross_attn` are {label}: "
        "cross_attn(query, memory, memory, src_mask)."
    )


def _cross_attention_sources(module, inputs: _Inputs, p, rate: float = 0.0) -> str:
    """The cross-attention's keys and values when they are not memory as given (each
    sub-result of the layer being right on the learner's own values, the localiser says
    nothing of them): normalised by one of the layer's norms, cut along its length, after
    a dropout of ``rate`` (train mode), or another tensor. "" when they are memory, or the
    call cannot be observed."""
    calls = _attention_calls(module, "cross_attn", inputs)
    if not calls or len(calls) != 1:
        return ""
    given = calls[0][1]
    memory = inputs.memory.detach().double()
    labels = {}
    for slot in ("key", "value"):
        value = given.get(slot)
        if not torch.is_tensor(value):
            return ""
        value = value.detach().double()
        if value.shape == memory.shape and torch.allclose(value, memory, rtol=1e-4, atol=1e-5):
            continue
        label = _memory_label(value, memory, inputs.x.shape[1], rate)
        if label:
            labels[slot] = label
            continue
        label = "another tensor than memory"
        for norm in ("norm1", "norm2", "norm3"):
            params = sub(p, norm)
            if params and value.shape == memory.shape:
                normed = layer_norm_f(memory, params)
                if torch.allclose(value, normed, rtol=1e-4, atol=1e-5):
                    label = f"{norm}(memory)"
                    break
        if label == "another tensor than memory" and value.shape != memory.shape:
            label = f"a tensor of shape {tuple(value.shape)} (memory's is {tuple(memory.shape)})"
        labels[slot] = label
    if not labels:
        return ""
    if set(labels) == {"key", "value"} and labels["key"] == labels["value"]:
        said = f"The keys and values of `self.cross_attn` are {labels['key']}"
    else:
        said = "In `self.cross_attn`, " + "; ".join(
            f"the {slot}s are {label}" for slot, label in labels.items()
        )
    if any(label.startswith(("memory ", "dropout(")) for label in labels.values()):
        return (
            f"{said}. The cross-attention reads the encoder output as given: "
            "cross_attn(query, memory, memory, src_mask)."
        )
    return (
        f"{said}, not memory as given: the cross-attention reads the encoder output unchanged, "
        "cross_attn(query, memory, memory, src_mask) (the layer's norms belong to the "
        "decoder's own stream; the encoder normalised memory already)."
    )


_SOURCE_PADDING_BYPASSES_ATTENTION = (
    "Changing the encoder output at padded source positions changed your decoder's output, "
    "although your cross-attention gives those positions no weight (its weights there are 0): "
    "memory reaches the output by another path than the cross-attention's keys and values. "
    "memory should enter the layer only as cross_attn(x, memory, memory, src_mask); the residual "
    "around the cross-attention adds x, the decoder stream, not memory: "
    "x = norm2(x + dropout(cross_attn(x, memory, memory, src_mask)))."
)


def _cross_attention_ignores_padding(module, inputs: _Inputs) -> bool:
    """Whether the learner's ``cross_attn`` (when it has one and returns its weights) gives
    the padded source positions no weight on these inputs: then the output's dependence on
    memory there comes from outside the attention (blind7b-dec-cross-residual-from-memory:
    a residual that adds memory was told to pass src_mask)."""
    crosses = [
        sub
        for name, sub in module.named_modules()
        if name.rsplit(".", 1)[-1] == "cross_attn" and isinstance(sub, torch.nn.Module)
    ]  # the layer's own, or every layer's in a stack
    if not crosses or inputs.src_real is None:
        return False
    seen: list = []
    handles = [
        cross.register_forward_hook(lambda _m, _a, out: seen.append(out)) for cross in crosses
    ]
    try:
        with torch.no_grad():
            module(*inputs.args())
    except Exception:  # the message about the property stays as it was
        return False
    finally:
        for handle in handles:
            handle.remove()
    pads = ~inputs.src_real  # (batch, len_src)
    for out in seen:
        weights = out[1] if isinstance(out, tuple) and len(out) == 2 else None
        if not isinstance(weights, torch.Tensor) or weights.dim() != 4:
            return False
        if weights.shape[0] != pads.shape[0] or weights.shape[-1] != pads.shape[-1]:
            return False
        at_pads = weights.detach().double().abs() * pads[:, None, None, :]
        if float(at_pads.max()) > 1e-6:
            return False
    return bool(seen)


def _src_mask_one_row(
    c: Checker, module, inputs: _Inputs, oracle: Callable[[torch.Tensor | None], torch.Tensor]
) -> str:
    """One sentence's source padding mask given to every sentence (src_mask[0]): the
    module run again on a probe src_mask whose sentences are all padded, differently."""
    if inputs.src_mask is None:
        return ""
    batch, len_src = inputs.memory.shape[0], inputs.memory.shape[1]

    def run(mask: torch.Tensor):  # mask: bool (batch, 1, 1, len_src)
        # recorded: the single-edit search must reproduce this output too
        with torch.no_grad():
            return c.probe(module, inputs.x, inputs.memory, mask, inputs.tgt_mask)

    return one_mask_for_all(
        run, oracle, batch, len_src, name="src_mask", attention="the cross-attention"
    )


def _same(a, b) -> bool:
    if not isinstance(b, torch.Tensor) or a.shape != b.shape:
        return False
    return torch.allclose(a.detach().double(), b.detach().double(), **tolerance(a.dtype))


def _expect_properties(c: Checker, module, inputs: _Inputs, case: _DecCase, call: str, got):
    problem = _property_problem(c, module, inputs, case, call, got)
    c.expect_true(not problem, f"{call}: {problem}")


# ================================================================== later calls, no masks
_KEPT_SAID = "Compute from forward's arguments only; nothing of one call is kept for the next."


def _close64(got, expected: torch.Tensor) -> bool:
    return (
        isinstance(got, torch.Tensor)
        and got.shape == expected.shape
        and torch.allclose(got.detach().double(), expected, rtol=1e-4, atol=1e-5)
    )


def _expect_fresh_each_call(
    c: Checker, module, inputs: _Inputs, case: _DecCase, name: str, built: str, oracle, rebuild
) -> None:
    """One more call on a module whose calls so far were right (the case's own, eval mode,
    dropout 0), with new x and memory of the same shapes and the same masks:
    ``oracle(x, memory, src_mask, tgt_mask)`` gives its expected float64 output,
    ``rebuild()`` a fresh module with the same weights. A result computed from something
    an earlier call left on the module (``self.memory`` stored on the first call and read
    instead of the argument: blind13g-dl-memory-kept-from-first-call was accepted, every
    call of a case having the same memory) is wrong here while a fresh module is right on
    the same inputs; what was kept is named when the result is the one it gives."""
    again = _Inputs(
        randn(inputs.x.shape, case.seed + 7),  # (batch, len_tgt, d_model)
        randn(inputs.memory.shape, case.seed + 8),  # (batch, len_src, d_model)
        inputs.src_mask,
        inputs.tgt_mask,
        inputs.src_real,
    )
    text = _call_text(name, again, case, built)
    call = f"{text}, called after the calls above on the same module"
    # called through a wrapper, not recorded for the single-edit diagnosis: no edit of the
    # reference (a fresh instance per call) reproduces a result kept from an earlier call,
    # and searching for one took seconds
    got = c.call(lambda *a: module(*a), *again.args(), call_repr=call, hints=_hints(case))
    expected = oracle(again.x, again.memory, again.src_mask, again.tgt_mask)
    if _close64(got, expected):
        return
    fresh = rebuild()
    fresh_out = c.call(fresh, *again.args(), call_repr=f"{text} on a freshly built module")
    if not _close64(fresh_out, expected):
        c.fail(f"the output of {text} is not what the reference gives.")
    said = (
        f"{call}: yours gives another result than the reference, although its first call was "
        "right and a freshly built module with the same weights gives the right result on "
        "these same inputs: the result depends on state kept on the module from an earlier call"
    )
    if _close64(got, oracle(again.x, inputs.memory, again.src_mask, again.tgt_mask)):
        c.fail(
            f"{said}. It is what the memory of the first call gives: your module stores the "
            "memory of its first call (self.memory = memory, say, since the encoder output "
            "does not change while decoding one batch) and reads that stale memory in every "
            "later call, where each call must cross-attend to the memory it is given (another "
            f"batch brings another memory). {_KEPT_SAID}"
        )
    if _close64(got, oracle(inputs.x, inputs.memory, inputs.src_mask, inputs.tgt_mask)):
        c.fail(
            f"{said}. It is the first call's result: your module keeps its first result (or "
            f"its first inputs) and returns it again. {_KEPT_SAID}"
        )
    c.fail(f"{said} (a tensor stored on self in forward and read again later). {_KEPT_SAID}")


def _layer_masks(module, inputs: _Inputs) -> list[tuple[str, Any, Any]] | None:
    """(name, src_mask, tgt_mask) that each layer of the stack (``layers.<i>``) receives
    when the stack is called with x and memory alone; None when no layer call is seen."""
    roles = {
        name.rsplit(".", 1)[-1]
        for name, _ in module.named_modules()
        if name.startswith("layers.") and name.count(".") == 1
    }
    seen = inputs_received(module, roles, lambda: module(inputs.x, inputs.memory))
    found = []
    for name, _, args, kwargs in seen:
        if not (name.startswith("layers.") and name.count(".") == 1):
            continue
        src = kwargs.get("src_mask", args[2] if len(args) > 2 else None)
        tgt = kwargs.get("tgt_mask", args[3] if len(args) > 3 else None)
        found.append((name, src, tgt))
    return found or None


def _expect_no_masks_passed_on(
    c: Checker, module, inputs: _Inputs, case: _DecCase, built: str, oracle
) -> None:
    """The stack called with x and memory alone: both masks None, which means no mask (as
    MultiHeadAttention's mask=None), passed unchanged to every layer (the lesson's
    contract). A stack that builds a look-ahead mask of its own when tgt_mask is None
    (blind13g-dec-causal-mask-when-none was accepted, every case giving a tgt_mask) gives
    its layers a mask they were not given. Judged by what the layers receive: a layer that
    builds the look-ahead mask itself (d2l's decoder block) is the DecoderLayer's choice,
    which its own check accepts."""
    shapes = f"x {tuple(inputs.x.shape)}, memory {tuple(inputs.memory.shape)}"
    call = f"decoder({shapes}) [{built}], both masks left to their default, None"
    got = c.call(
        module,
        inputs.x,
        inputs.memory,
        call_repr=call,
        hints=[
            (
                "NoneType",
                "src_mask=None and tgt_mask=None (forward's defaults) mean no mask: pass each "
                "on to the layers as it is, None included.",
            )
        ],
    )
    if _close64(got, oracle(inputs.x, inputs.memory, None, None)):
        _expect_default_src_mask_fits_memory(c, module, case, built, oracle)
        return
    received = _layer_masks(module, inputs) or []
    built_tgt = [(n, t) for n, _, t in received if t is not None]
    built_src = [n for n, s, _ in received if s is not None]
    if not (built_tgt or built_src):
        return  # the layers got no mask: what they do with None is the DecoderLayer's
    causal = look_ahead_mask(case.len_tgt)  # (len_tgt, len_tgt)
    if built_tgt and not built_src and all(_same_mask(t, causal) for _, t in built_tgt):
        c.fail(
            f"{call}: yours gives what the look-ahead mask gives, although tgt_mask=None means "
            "no mask (every target position may attend to every other): your Decoder builds "
            "its own look-ahead mask when tgt_mask is None and hands it to its layers. The "
            "stack passes both masks to every layer unchanged; the caller decides them (the "
            "Transformer passes decoder_self_attention_mask(...), which holds the look-ahead "
            "part already): use tgt_mask as it comes, None included."
        )
    names = ", ".join(f"`{n}`" for n in dict.fromkeys([*(n for n, _ in built_tgt), *built_src]))
    c.fail(
        f"{call}: yours gives another result than the reference, and {names} received a mask "
        "although the stack was given none. src_mask=None and tgt_mask=None mean no mask: "
        "pass both on to every layer unchanged, layer(x, memory, src_mask, tgt_mask)."
    )


#: (len_tgt, len_src) of the probes without masks whose lengths differ: a mask the stack
#: builds itself fits the target or the source, and two inputs tell which size it took
_UNEQUAL_LENGTHS = ((0, 1), (1, 3))


def _expect_default_src_mask_fits_memory(
    c: Checker, module, case: _DecCase, built: str, oracle
) -> None:
    """The stack called with both masks None on a source longer than the target. A stack
    that builds an all-True source mask when src_mask is None is right while the mask fits
    memory; one sized with the target's length, x.size(1), is right whenever the two
    lengths are equal, and every case with no masks had them equal
    (blind19c-dec-default-src-mask-target-length was accepted). The size the layers
    received is matched against the call's sizes on two such inputs (size_sources), and
    named only when one source agrees on both."""
    probes = []
    for extra_tgt, extra_src in _UNEQUAL_LENGTHS:
        len_tgt, len_src = case.len_tgt + extra_tgt, case.len_tgt + extra_src
        x = randn((case.batch, len_tgt, case.d_model), case.seed + 5 + extra_tgt)
        memory = randn((case.batch, len_src, case.d_model), case.seed + 6 + extra_src)
        probes.append((x, memory))  # (batch, len_tgt, d_model), (batch, len_src, d_model)
    x, memory = probes[0]
    call = (
        f"decoder(x {tuple(x.shape)}, memory {tuple(memory.shape)}) [{built}], both masks "
        "left to their default, None (source and target of different lengths)"
    )
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            with torch.no_grad():
                got = module(x, memory)
            if _close64(got, oracle(x, memory, None, None)):
                return
            outcome = "gives another result than the reference"
        except Exception as error:  # the learner's code: any error it raises
            outcome = f"raised {type(error).__name__}: {str(error).splitlines()[0]}"
    observed, sizes, first = [], [], None
    for x, memory in probes:
        dummy = _Inputs(x, memory, None, None, None)
        masks = [src for _, src, _ in _layer_masks(module, dummy) or [] if torch.is_tensor(src)]
        if not masks:
            break
        first = masks[0] if first is None else first
        observed.append(masks[0].shape[-1])
        sizes.append(
            {"x.size(1)": x.shape[1], "memory.size(1)": memory.shape[1], "x.size(0)": x.shape[0]}
        )
    if first is None or len(observed) < len(probes):
        # nothing the layers received explains it: the call's own failure, said plainly
        got = c.call(module, *probes[0], call_repr=call)
        c.expect_true(_close64(got, oracle(*probes[0], None, None)), f"{call}: {outcome}.")
        return
    said = (
        f"{call} {outcome}. Its layers received a src_mask of shape {tuple(first.shape)} "
        "although the stack was given none: your Decoder builds a source mask of its own when "
        "src_mask is None."
    )
    sized = size_source_note(
        observed,
        sizes,
        f" Its last axis (the keys, one per source position) is {observed[0]}",
        "memory.size(1), the source length,",
        "",
        exclude=("memory.size(1)",),
    )
    c.fail(
        f"{said} {sized} The cross-attention's".replace("  ", " ")
        + " keys are memory's positions: a source mask is "
        "(batch, 1, 1, len_src), len_src = memory.size(1). Simplest: pass src_mask on as it "
        "is, None included (MultiHeadAttention takes mask=None as no mask)."
    )


# ================================================================== decoder-layer mistakes
_CROSS_SOURCES = {
    ("x", "x", "x"): (
        "Your cross-attention never reads memory: its queries, keys and values all come from x, "
        "so it is a second self-attention. Keys and values come from the encoder output: "
        "cross_attn(x, memory, memory, src_mask)."
    ),
    ("memory", "memory", "x"): (
        "Your cross-attention takes its queries and keys from the encoder output (memory) and its "
        "values from the decoder (x), as one popular illustrated guide describes it. That is "
        "backwards: the queries come from the decoder (one output row per target position), the "
        "keys and values from the encoder output: cross_attn(x, memory, memory, src_mask)."
    ),
    ("memory", "x", "x"): (
        "Your cross-attention takes its queries from the encoder output and its keys and values "
        "from the decoder: the roles are reversed. The decoder asks (queries from x, one output "
        "row per target position) and the source answers (keys and values from memory)."
    ),
    ("x", "x", "memory"): (
        "Your cross-attention's keys come from x (the decoder) and its values from memory. Keys "
        "and values come in pairs, from the same sequence: both from the encoder output, "
        "cross_attn(x, memory, memory, src_mask)."
    ),
    ("x", "memory", "x"): (
        "Your cross-attention's keys come from memory but its values from x (the decoder). Keys "
        "and values come in pairs, from the same sequence: both from the encoder output, "
        "cross_attn(x, memory, memory, src_mask)."
    ),
    ("memory", "x", "memory"): (
        "Your cross-attention takes its queries from memory and its keys from x: those two are "
        "swapped. Queries from the decoder (x), keys and values from the encoder output: "
        "cross_attn(x, memory, memory, src_mask)."
    ),
    ("memory", "memory", "memory"): (
        "Your cross-attention never reads x: its queries, keys and values all come from memory, "
        "an attention of the source over itself. The queries come from the decoder: "
        "cross_attn(x, memory, memory, src_mask)."
    ),
}
_MASKS = {
    ("src", "tgt"): (
        "The masks go to the wrong attentions: tgt_mask (look-ahead and target padding) belongs "
        "to the self-attention, src_mask (source padding) to the cross-attention. Check the order "
        "of forward's parameters too: (x, memory, src_mask, tgt_mask)."
    ),
    ("none", "src"): (
        "Your self-attention ignores tgt_mask: without the look-ahead mask each target position "
        "sees the positions after it. Pass it on: self_attn(x, x, x, tgt_mask)."
    ),
    ("tgt", "none"): (
        "Your cross-attention ignores src_mask: padded source positions get weight. Pass it on: "
        "cross_attn(x, memory, memory, src_mask)."
    ),
    ("none", "none"): (
        "Your layer ignores both masks: the self-attention needs tgt_mask (look-ahead), the "
        "cross-attention src_mask (source padding)."
    ),
    ("src", "src"): (
        "Your self-attention gets src_mask, the source padding mask; it needs tgt_mask (look-ahead "
        "and target padding). src_mask belongs to the cross-attention only."
    ),
    ("tgt", "tgt"): (
        "Your cross-attention gets tgt_mask; it needs src_mask, the source padding mask (the "
        "cross-attention's keys are source positions)."
    ),
    ("causal", "src"): (
        "Your self-attention builds a look-ahead mask of its own and ignores tgt_mask, so the "
        "target padding it holds is lost (it shows in the outputs at the padded target "
        "positions). Use the tgt_mask you are given: it already combines the look-ahead mask and "
        "the target padding (lesson 06's decoder_self_attention_mask)."
    ),
    ("src", "none"): (
        "The masks go to the wrong attentions: the self-attention gets src_mask and the "
        "cross-attention none. tgt_mask goes to the self-attention, src_mask to the "
        "cross-attention."
    ),
    ("none", "tgt"): (
        "Two masks in the wrong places: your self-attention gets no mask (so it sees the "
        "positions after each target position) and your cross-attention gets tgt_mask. "
        "tgt_mask (look-ahead and target padding) goes to the self-attention, "
        "self_attn(x, x, x, tgt_mask); src_mask to the cross-attention, "
        "cross_attn(x, memory, memory, src_mask)."
    ),
}
_MEMORY_NORMALISED = (
    "In your pre-LN layer the memory is normalised too (norm2(memory)). Only the decoder side "
    "is normalised before each sub-layer; the cross-attention reads the memory as it comes "
    "(the encoder's final LayerNorm has normalised it already): "
    "cross_attn(norm2(x), memory, memory, src_mask)."
)
_SELF_READS_MEMORY = (
    "Your self-attention takes its keys and values from memory: the first attention of the "
    "decoder layer is a self-attention over the target, self_attn(x, x, x, tgt_mask); the "
    "memory is read by the second one."
)
_CROSS_FIRST = (
    "Your layer runs the cross-attention before the self-attention. The order is: masked "
    "self-attention (norm1), cross-attention (norm2), feed-forward (norm3)."
)
_NORMS_ORDER = (
    "Your layer uses its LayerNorms in the wrong places: norm1 belongs to the self-attention, "
    "norm2 to the cross-attention, norm3 to the feed-forward block (the weights are loaded by "
    "these names)."
)
_ONE_NORM = (
    "Your layer uses norm1 for every sub-layer: norm2 and norm3 each have their own gain and "
    "bias, for the cross-attention and the feed-forward block."
)
_LAYER_BUILT_ON = (
    "DecoderLayer builds on lesson 07's LayerNorm and PositionwiseFeedForward and lesson 05's "
    "MultiHeadAttention (the reference versions, imported in the setup cell). Check the order of "
    "the steps against the docstring."
)


_SIGNATURE_MASKS_SWAPPED = (
    "Your forward's signature takes the masks in the other order, forward(x, memory, "
    "tgt_mask, src_mask) (nn.TransformerDecoderLayer's order): called by keyword, "
    "src_mask=..., tgt_mask=..., your layer is right, but called positionally as the contract "
    "says, layer(x, memory, src_mask, tgt_mask) (as Decoder does), the two masks are "
    "exchanged: the self-attention gets src_mask and the cross-attention tgt_mask. Declare "
    "forward(self, x, memory, src_mask=None, tgt_mask=None)."
)
_BODY_MASKS_SWAPPED = (
    "The masks go to the wrong attentions inside forward: the self-attention gets src_mask and "
    "the cross-attention tgt_mask, the two exchanged (called by keyword too, src_mask=..., "
    "tgt_mask=..., so not the order of forward's parameters). tgt_mask (look-ahead and target "
    "padding) belongs to the self-attention, self_attn(x, x, x, tgt_mask), and src_mask "
    "(source padding) to the cross-attention, cross_attn(x, memory, memory, src_mask)."
)


def _masks_swapped_where(module, inputs: _Inputs, got, expected) -> str:
    """For an output that the two masks exchanged explain: the layer called by keyword
    (src_mask=..., tgt_mask=...) gives the reference's output when only the order of
    forward's parameters is wrong, and the same wrong output when its body swaps them.
    "" when it cannot be told (the keyword call raises, or gives a third result)."""
    try:
        with torch.no_grad():
            out = module(
                inputs.x, inputs.memory, src_mask=inputs.src_mask, tgt_mask=inputs.tgt_mask
            )
    except Exception:
        return ""
    out = out[0] if isinstance(out, tuple) and out else out
    if not torch.is_tensor(out) or out.shape != got.shape:
        return ""
    out, got = out.detach().double(), got.detach().double()
    expected = torch.as_tensor(expected).double()
    if out.shape == expected.shape and torch.allclose(out, expected, rtol=1e-4, atol=1e-5):
        return _SIGNATURE_MASKS_SWAPPED
    if torch.allclose(out, got, rtol=1e-6, atol=1e-7):
        return _BODY_MASKS_SWAPPED
    return ""


def _layer_table(
    case: _DecCase, inputs: _Inputs, drop: bool, called: set[str] | None = None
) -> dict[str, dict[str, Any]]:
    table = layer_mistakes(case.norm_first, drop)
    table |= {message: {"cross_from": sources} for sources, message in _CROSS_SOURCES.items()}
    if inputs.src_mask is not None or inputs.tgt_mask is not None:
        for (self_mask, cross_mask), message in _MASKS.items():
            table[message] = {"self_mask": self_mask, "cross_mask": cross_mask}
    if case.norm_first:
        table[_MEMORY_NORMALISED] = {"memory_norm": True}
    table[_SELF_READS_MEMORY] = {"self_kv": "memory"}
    table[_CROSS_FIRST] = {"order": ("cross", "self", "ffn")}
    for norms in (
        ("norm2", "norm1", "norm3"),
        ("norm1", "norm3", "norm2"),
        ("norm3", "norm2", "norm1"),
        ("norm2", "norm3", "norm1"),
        ("norm3", "norm1", "norm2"),
    ):
        yours = "Yours uses {} for the self-attention, {} for the cross-attention, {} for the feed-forward block.".format(
            *norms
        )
        table[f"{_NORMS_ORDER} {yours}"] = {"norms": norms}
    table[_ONE_NORM] = {"norms": ("norm1", "norm1", "norm1")}
    add_new(table, residual_mistakes(_PARTS, _PART_NORMS, case.norm_first))
    if drop:
        add_new(table, dropout_missing_mistakes(_PARTS, _PART_NORMS, case.norm_first))
        add_new(table, dropout_place_mistakes(_PARTS, _PART_NORMS, case.norm_first))
    add_new(table, discarded_mistakes(_PARTS, _PART_NORMS, case.norm_first, called))
    add_new(table, norm_choice_mistakes(_PARTS, _PART_NORMS))
    add_new(table, placement_mistakes(_PARTS, _PART_NORMS, case.norm_first))
    return table


_PARTS = {"self": "self_attn", "cross": "cross_attn", "ffn": "feed_forward"}
_PART_NORMS = {"self": "norm1", "cross": "norm2", "ffn": "norm3"}


# the contract's order matters: lesson 09 builds the stacks positionally (Decoder(*layers))
_BY_POSITION = (
    "Lesson 09's Transformer passes these arguments by position, Decoder(num_layers, "
    "d_model, num_heads, d_ff, dropout, norm_first, final_norm), and so do callers that "
    "follow the contract: declare them in the contract's order."
)


def check_DecoderLayer(cls, *, hidden: bool = False) -> None:
    """DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first): masked self-attention,
    cross-attention, feed-forward, each with a residual connection and a LayerNorm."""
    with Checker("DecoderLayer", hidden=hidden) as c:
        c.require_callable(cls, "DecoderLayer")
        torch.manual_seed(0)  # whatever the learner's code draws, it draws the same each time
        for case in _HIDDEN_LAYER if hidden else _VISIBLE_LAYER:
            try:
                _check_layer_case(c, cls, case)
            except CheckFailure as failure:
                raise _with_undropped(c, cls, case, failure) from None
        x, memory = randn((2, 4, 8), 65 + 100 * hidden), randn((2, 5, 8), 66 + 100 * hidden)
        defaults = {"dropout": 0.0, "norm_first": False}
        expect_contract_defaults(c, cls, (8, 2, 16), defaults, (x, memory), "DecoderLayer", seed=67)
        inputs = (x, memory)
        expect_dropout_default_in_train(c, cls, (8, 2, 16), inputs, "DecoderLayer", seed=67)
        order = {"dropout": 0.0, "norm_first": True}
        expect_positional_order(
            c, cls, (8, 2, 16), order, inputs, "DecoderLayer", seed=67, caller=_BY_POSITION
        )
        expect_masks_on_every_path(c, cls, "DecoderLayer", (8, 2, 16), 8, decoder=True, seed=73)
        _expect_residual_draws(c, cls, seed=77 + 100 * hidden)


def _layer_draw_problem(
    c: Checker, cls, norm_first: bool, seed: int, *, shape_only: bool = False
) -> tuple[str, str]:
    """The layer built with dropout=0.5 in train mode and called once on a batch of 8
    sentences: (what is wrong with the draw of its residual dropout, the call in words),
    by :func:`~transformer_course.checking.residual_draws.residual_draw_problem`; ("", "")
    when it looks like nn.Dropout's or the layer cannot be built."""
    try:
        module, built, _ = build(
            c,
            cls,
            8,
            2,
            16,
            name="DecoderLayer",
            reference=ref.DecoderLayer(8, 2, 16, 0.5, norm_first),
            seed=seed,
            mode="train",
            dropout=0.5,
            norm_first=norm_first,
        )
    except CheckFailure:
        return "", ""
    x, memory = randn((8, 5, 8), seed + 1), randn((8, 6, 8), seed + 2)
    torch.manual_seed(seed)
    problem = residual_draw_problem(
        module,
        lambda: module(x, memory),
        x,
        0.5,
        sublayers=list(_PARTS.values()),
        norms={_PARTS[k]: v for k, v in _PART_NORMS.items()},
        norm_first=norm_first,
        shape_only=shape_only,
    )
    return (
        problem,
        f"layer(x {tuple(x.shape)}, memory {tuple(memory.shape)}) [layer = {built}, train mode]",
    )


def _expect_residual_draws(c: Checker, cls, seed: int) -> None:
    """In train mode at dropout=0.5, each sub-layer's output must be dropped entry by
    entry: the value cases run in train mode only at rates 0 and 1, where a draw per
    sentence (stochastic depth) gives nn.Dropout's values."""
    for norm_first in (False, True):
        problem, call = _layer_draw_problem(c, cls, norm_first, seed)
        c.expect_true(
            not problem, f"the output of {call} is not what the reference gives. {problem}"
        )


def _with_undropped(c: Checker, cls, case: _DecCase, failure: CheckFailure) -> CheckFailure:
    """``failure`` of a case where dropout cannot show (eval mode, or rate 0), with a
    second mistake added when the layer built with dropout=1.0 in train mode adds a
    sub-layer's output undropped (:func:`~transformer_course.checking.residual_draws.
    undropped_note`): two mistakes at once are both named."""
    if case.mode == "train" and case.dropout > 0:
        return failure
    try:
        module, _, _ = build(
            c,
            cls,
            8,
            2,
            16,
            name="DecoderLayer",
            reference=ref.DecoderLayer(8, 2, 16, 1.0, case.norm_first),
            seed=case.seed + 7,
            mode="train",
            dropout=1.0,
            norm_first=case.norm_first,
        )
    except CheckFailure:
        return failure
    x, memory = randn((2, 4, 8), case.seed + 8), randn((2, 5, 8), case.seed + 9)
    note = undropped_note(
        failure.message,
        module,
        lambda: module(x, memory),
        x,
        sublayers=list(_PARTS.values()),
        norms={_PARTS[k]: v for k, v in _PART_NORMS.items()},
        norm_first=case.norm_first,
    )
    if not note:
        return failure
    return CheckFailure(failure.exercise, failure.message + note, failure.learner_traceback)


def _residual_dropout_from_num_heads(c: Checker, cls, case: _DecCase, message: str) -> str:
    """For a build whose nn.Dropout refused the rate num_heads: which dropout got it. Built
    again with one head (nn.Dropout(1) is allowed) and dropout=0.0, in train mode, a layer
    whose residual dropouts got num_heads drops every sub-layer's output whole, and gives
    what every dropout at p=1 gives; one whose attention or feed-forward got it does not
    (their dropouts act inside the block). blind16g-dl-dropout-built-with-num-heads was
    given the three candidates; "" when the probe does not single this one out."""
    first = message.split("\n")[0]
    if case.num_heads == 1 or not (
        "probability" in first and re.search(rf"got {case.num_heads}\b", first)
    ):
        return ""
    try:
        module, _, state = build(
            c,
            cls,
            case.d_model,
            1,
            case.d_ff,
            name="DecoderLayer",
            reference=ref.DecoderLayer(case.d_model, 1, case.d_ff, 0.0, case.norm_first),
            seed=case.seed,
            mode="train",
            dropout=0.0,
            norm_first=case.norm_first,
        )
        inputs = _inputs(case)
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            got = module(*inputs.args())  # (batch, len_tgt, d_model)
    except Exception:  # CheckFailure included: no evidence either way
        return ""
    got = got[0] if isinstance(got, tuple) and got else got
    every_output_dropped = decoder_layer_f(
        inputs.x,
        inputs.memory,
        as_float64(state),
        inputs.src_mask,
        inputs.tgt_mask,
        1,
        norm_first=case.norm_first,
        drop=True,
    )
    if not _close64(got, every_output_dropped):
        return ""
    return (
        f"\nThe rate {case.num_heads} is num_heads. Built with num_heads=1 and dropout=0.0 "
        "instead, your layer in train mode drops every sub-layer's output whole, as "
        "nn.Dropout(1) does: the dropout on the sub-layers' outputs is given num_heads, "
        "nn.Dropout(num_heads) where nn.Dropout(dropout) belongs."
    )


def _check_layer_case(c: Checker, cls, case: _DecCase) -> None:
    args = (case.d_model, case.num_heads, case.d_ff)

    def build_layer():
        """The case's layer, built, checked and loaded with the check's weights."""
        return build(
            c,
            cls,
            *args,
            name="DecoderLayer",
            reference=ref.DecoderLayer(*args, case.dropout, case.norm_first),
            seed=case.seed,
            mode=case.mode,
            dropout=case.dropout,
            norm_first=case.norm_first,
        )

    try:
        module, built, state = build_layer()
    except CheckFailure as failure:
        where = "one of the attentions (self_attn or cross_attn)"
        if (swapped := attention_arguments_swapped(cls, case, failure.message, where)) is not None:
            raise failure.with_cause(swapped) from None
        if rate := _residual_dropout_from_num_heads(c, cls, case, failure.message):
            raise failure.with_cause(rate) from None
        # norms built without their gain and bias (elementwise_affine=False), read off the
        # keys of the layer constructed again
        found = (
            built_keys(lambda: cls(*args, dropout=case.dropout, norm_first=case.norm_first))
            if "state-dict keys" in failure.message.split("\n")[0]
            else None
        )
        expected = state_shapes(ref.DecoderLayer(*args, case.dropout, case.norm_first))
        if found is not None and (affine := norms_without_affine(found, expected)):
            raise CheckFailure(
                failure.exercise, failure.message + affine, failure.learner_traceback
            ) from None
        raise
    inputs = _inputs(case)
    built = f"{built}, {post_pre(case.norm_first)}, {case.mode} mode, holding the check's weights"
    call = _call_text("layer", inputs, case, built)
    got = c.call(
        module,
        *inputs.args(),
        call_repr=call,
        hints=[
            *_expanded_src_mask_hint(module, inputs),
            *_mask_hints(module, inputs),
            *_hints(case),
        ],
    )
    what = f"the output of {call}"
    expect_tensor_result(
        c,
        got,
        inputs.x.shape,
        what,
        shape_hint=_output_shape_hint(got, case),
        inputs={"x": inputs.x, "memory": inputs.memory},
    )
    p = as_float64(state)
    drop = case.mode == "train" and case.dropout == 1.0

    def compute(x=inputs.x, **knobs):
        knobs = {"norm_first": case.norm_first, "drop": drop, **knobs}
        return decoder_layer_f(
            x, inputs.memory, p, inputs.src_mask, inputs.tgt_mask, case.num_heads, **knobs
        )

    def compute_with_src(src_mask):  # the right output for another src_mask (None: none)
        knobs = {"norm_first": case.norm_first, "drop": drop}
        return decoder_layer_f(
            inputs.x, inputs.memory, p, src_mask, inputs.tgt_mask, case.num_heads, **knobs
        )

    called = (
        None
        if case.mode == "train" and case.dropout > 0
        else called_submodules(module, list(_PARTS.values()), lambda: module(*inputs.args()))
    )
    table = _layer_table(case, inputs, drop, called)
    if drop:  # what eval mode rules out is no candidate (a missing residual, say)
        filtered = only_dropout_mistakes(table, module, inputs.args(), compute(drop=False))
        # right in eval mode: the stream zeroed is a dropout on it (blind14g)
        table = {**filtered, **stream_dropped_entry(table, filtered)}
        # post-LN, where the stream was zeroed: the sub-layers' inputs tell (the output
        # cannot); each sub-layer reads the stream itself there
        if not case.norm_first:
            table = sublayer_inputs_agree(
                table, module, lambda: module(*inputs.args()), got, compute, _PARTS, _PART_NORMS
            )
    swapped = _MASKS[("src", "tgt")]
    if swapped in table and inputs.src_mask is not None and inputs.tgt_mask is not None:
        # the same output from a signature in PyTorch's order and from a body that swaps the
        # masks: a call by keyword tells them apart (right by keyword: the signature); made
        # only for an output that the exchanged masks give
        exchanged = value_or_none(lambda: compute(**table[swapped]))
        if (
            isinstance(got, torch.Tensor)
            and exchanged is not None
            and got.shape == exchanged.shape
            and torch.allclose(got.detach().double(), exchanged, rtol=1e-4, atol=1e-5)
        ):
            where = _masks_swapped_where(module, inputs, got, compute())
            if where:
                table = {(where if m == swapped else m): knobs for m, knobs in table.items()}

    def built_with_rate(rate: float):  # the same layer built with another rate, train mode
        other, other_built, _ = build(
            c,
            cls,
            *args,
            name="DecoderLayer",
            reference=ref.DecoderLayer(*args, rate, case.norm_first),
            seed=case.seed,
            mode="train",
            dropout=rate,
            norm_first=case.norm_first,
        )
        return c.call(other, *inputs.args(), call_repr=f"layer(...) [{other_built}, train mode]")

    if case.mode == "train" and rate_read_backwards(
        got, case.dropout, compute(drop=True), built_with_rate
    ):
        c.fail(f"{what} is not what the reference gives. {KEEP_PROBABILITY}")

    def localise():
        return (
            _property_problem(c, module, inputs, case, call, got)
            # a norm built with another eps (the dropout rate as LayerNorm's eps)
            or norm_eps_problem(
                module,
                lambda: module(*inputs.args()),
                list(_PART_NORMS.values()),
                state,
                case.dropout,
            )
            or localise_layer(
                module,
                lambda: module(*inputs.args()),
                inputs.x,
                sublayers=list(_PARTS.values()),
                norms={_PARTS[k]: v for k, v in _PART_NORMS.items()},
                norm_first=case.norm_first,
            )
            or _cross_attention_sources(module, inputs, p)
        )

    if not (case.mode == "train" and case.dropout > 0) and not _close64(got, compute()):
        # the first sentence's src_mask for all: unpadded in the check's masks, it reads as
        # no mask at all (blind24b-dec-layer-src-mask-of-first-sentence)
        one_row = _src_mask_one_row(c, module, inputs, compute_with_src)
        if one_row:
            c.fail(f"{what} is not what the reference gives. {one_row}")

    expect_masks_on_train_path(
        c,
        got,
        compute(),
        what,
        case.mode == "train",
        cls,
        "DecoderLayer",
        (8, 2, 16),
        8,
        decoder=True,
        seed=73,
    )
    expect_composite(
        c,
        got,
        compute(),
        what,
        **tolerance(got.dtype),
        mistakes={
            **mistake_values(compute, table),
            # the pre-LN branch without its return: the post-LN layer runs on its result
            **(
                {FALLS_THROUGH: lambda: compute(x=compute(), norm_first=False)}
                if case.norm_first
                else {}
            ),
        },
        localise=lambda: (
            (
                _layer_draw_problem(c, cls, case.norm_first, case.seed, shape_only=True)[0]
                if case.mode == "train" and case.dropout > 0
                else ""
            )
            or dropout_rate_problem(module, inputs.args(), got, case.dropout)
            or ("" if case.mode == "train" and case.dropout > 0 else localise())
        ),
        hint=lambda: _property_problem(c, module, inputs, case, call, got) or _LAYER_BUILT_ON,
    )
    if case.mode == "train" and case.dropout > 0:
        # a dropout on memory: the output can hide it (at dropout=1.0 the cross-attention's
        # output is dropped whole), the cross-attention's keys and values cannot
        sources = _cross_attention_sources(module, inputs, p, case.dropout)
        if sources:
            c.fail(f"In {call}: {sources}")
    _expect_properties(c, module, inputs, case, call, got)
    if case.later_calls:
        _expect_fresh_each_call(
            c,
            module,
            inputs,
            case,
            "layer",
            built,
            lambda x, memory, src_mask, tgt_mask: decoder_layer_f(
                x, memory, p, src_mask, tgt_mask, case.num_heads, norm_first=case.norm_first
            ),
            lambda: build_layer()[0],
        )
        _expect_runs_without_masks(c, module, inputs, case, built, p)
        _expect_gradient_reaches_inputs(c, module, inputs, call, got)
    if drop:
        x, memory = inputs.x, inputs.memory
        attention = "MultiHeadAttention(d_model, num_heads, dropout)"
        parts = {
            "self_attn": ((x, x, x), "self_attn.w_o.bias", attention),
            "cross_attn": ((x, memory, memory), "cross_attn.w_o.bias", attention),
            "feed_forward": (
                (x,),
                "feed_forward.w_2.bias",
                "PositionwiseFeedForward(d_model, d_ff, dropout)",
            ),
        }
        expect_sublayers_dropped(c, module, parts, state, f"train mode with dropout={case.dropout}")


def _expect_gradient_reaches_inputs(
    c: Checker, module, inputs: _Inputs, call: str, right: torch.Tensor, *, stack: bool = False
) -> None:
    """The output's gradient reaches x and memory: a right output cut off from an input
    (memory.detach(), torch.no_grad() around the cross-attention, .data, a numpy round
    trip) trains nothing before it; lesson 10's encoder learns only through memory. For
    the stack as for one layer (blind30b-dec-memory-detached: a Decoder that detaches
    memory before its layers)."""
    cut = inputs_without_gradient(
        c.call,
        module,
        inputs.args(),
        {0: "x", 1: "memory"},
        right,
        randn(tuple(right.shape), 68),
        call,
    )
    if cut is None:
        return  # not the checked (right) output again: said by the checks of the output
    if not cut:
        c.ok()
        return
    name, gradient = next(iter(cut.items()))
    if stack and set(cut) == {"x", "memory"}:
        upstream = randn(tuple(right.shape), 68)
        frozen = parameters_without_gradient(c.call, module, inputs.args(), upstream, call)
        layers = [s for s in submodules_named(frozen or []) if s.startswith("layers.")]
        if layers:
            c.fail(
                f"The output of {call} is right, but no gradient flows back from it into x "
                f"or memory, nor into the weights of {', '.join(f'`{s}`' for s in layers)}: "
                "the layers run cut off from the graph. Did you use torch.no_grad() around "
                "the loop over the layers (or detach their output)? Only what follows them "
                "could then learn. Call the layers without torch.no_grad(): the weights "
                "must get their gradient in training."
            )
    if stack and (blamed := _layer_cuts_input(c, module, inputs, name, call)):
        c.fail(blamed)
    if stack:
        enters = "the layers"
        cure = {
            "memory": "The encoder then never learns from the decoder's loss: hand memory "
            "itself to every layer, layer(x, memory, src_mask, tgt_mask).",
            "x": "Nothing before the decoder (the target embeddings) then learns: feed x "
            "itself to the first layer.",
        }[name]
    else:
        enters = "the cross-attention's keys and values" if name == "memory" else "the layer"
        cure = {
            "memory": "The encoder then never learns from the decoder's loss: the "
            "cross-attention must read memory itself, cross_attn(x, memory, memory, "
            "src_mask).",
            "x": "Nothing before this layer then learns: compute on x itself.",
        }[name]
    c.fail(f"{cut_off_text(call, name, gradient, enters)} {cure}")


def _layer_cuts_input(c: Checker, module, inputs: _Inputs, name: str, call: str) -> str:
    """For a stack whose right output gives ``name`` (x or memory) no gradient: the same
    question asked of its first layer alone, ``layers[0]`` called with the stack's inputs.
    When the layer itself cuts that input off, the fault is the DecoderLayer's (the stack
    stacks the learner's layer), not the stack's: say so, rather than telling a right
    Decoder to hand memory on. "" when the layer passes the gradient on (or is not there
    to ask)."""
    layers = getattr(module, "layers", None)
    try:
        layer = layers[0]
    except Exception:
        return ""
    if not isinstance(layer, torch.nn.Module):
        return ""
    args = inputs.args()
    layer_call = f"{call.split('(', 1)[0]}.layers[0]({', '.join(('x', 'memory', 'src_mask', 'tgt_mask')[: len(args)])})"
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            alone = layer(*args)
    except Exception:
        return ""
    if not isinstance(alone, torch.Tensor) or not alone.is_floating_point():
        return ""
    try:
        cut = inputs_without_gradient(
            c.call,
            layer,
            args,
            {0: "x", 1: "memory"},
            alone,
            randn(tuple(alone.shape), 69),
            layer_call,
        )
    except CheckFailure:
        return ""
    if not cut or name not in cut:
        return ""
    where = (
        "its cross-attention must read memory itself, cross_attn(x, memory, memory, "
        "src_mask), with no .detach(), .data or torch.no_grad() on the way"
        if name == "memory"
        else "it must compute on x itself, with no .detach(), .data or torch.no_grad()"
    )
    return (
        f"The output of {call} is right, but no gradient flows back from it into `{name}` "
        f"(its gradient is {cut[name]}), and the cut is in your DecoderLayer, not in the "
        f"stack: `layers[0]` alone, called with the same x, memory and masks, gives `{name}` "
        f"no gradient either. Your Decoder is built on your DecoderLayer, so fix the layer "
        f"(its own check says so too): {where}. "
        + (
            "Otherwise the encoder never learns from the decoder's loss."
            if name == "memory"
            else "Otherwise nothing before the decoder learns."
        )
    )


_NONE_MEANS_NO_MASK = (
    "Your layer was right with both masks given and fails with both left to "
    "their default, None: forward(x, memory, src_mask=None, tgt_mask=None) makes the masks "
    "optional, and None means no mask (the lesson calls layer(x, memory, None, mask)). A "
    "mask is used on the way without a test for None (mask.bool(), ~mask, "
    "mask.unsqueeze(...), mask.to(...)): test `if src_mask is not None` first, or pass each "
    "mask to its attention as it is (MultiHeadAttention takes mask=None as no mask)."
)


def _expect_runs_without_masks(
    c: Checker, module, inputs: _Inputs, case: _DecCase, built: str, p
) -> None:
    """The layer called with x and memory alone, both masks left to their default, None
    (the contract's "no mask"; the lesson calls a layer with src_mask=None): a layer that
    uses a mask without testing for None (src_mask.bool() at the top of forward:
    blind16g-dl-masks-cast-to-bool-when-none was accepted, every call giving both masks)
    raises here. What the layer computes for tgt_mask=None may be no mask or a look-ahead
    mask of its own (d2l's decoder block builds one): both are accepted."""
    shapes = f"x {tuple(inputs.x.shape)}, memory {tuple(inputs.memory.shape)}"
    call = f"layer({shapes}) [{built}], both masks left to their default, None"
    got = c.call(
        module, inputs.x, inputs.memory, call_repr=call, hints=[(Exception, _NONE_MEANS_NO_MASK)]
    )
    what = f"the output of {call}"
    expect_tensor_result(
        c, got, inputs.x.shape, what, inputs={"x": inputs.x, "memory": inputs.memory}
    )

    def oracle(tgt_mask):  # (batch, len_tgt, d_model), float64
        return decoder_layer_f(
            inputs.x, inputs.memory, p, None, tgt_mask, case.num_heads, norm_first=case.norm_first
        )

    if _close64(got, oracle(None)) or _close64(got, oracle(look_ahead_mask(case.len_tgt))):
        return
    if skipped := _sublayers_skipped_without_masks(module, inputs):
        c.fail(
            f"{what} is not what the reference gives, although the same layer was right "
            f"with both masks given. {skipped}"
        )
    c.fail(
        f"{what} is not what the reference gives, although the same layer was right with both "
        "masks given: src_mask=None and tgt_mask=None mean no mask (every position may attend "
        "to every other), the same as passing mask=None to MultiHeadAttention. Look at what "
        "forward does when a mask is None."
    )


def _sublayers_skipped_without_masks(module, inputs: _Inputs) -> str:
    """When leaving a mask to None makes the layer skip a whole sub-layer (checking.
    skipped_calls, one mask at a time): which sub-layer, under which mask; "" otherwise."""
    given = {"src_mask": inputs.src_mask, "tgt_mask": inputs.tgt_mask}
    if any(mask is None for mask in given.values()):
        return ""
    try:
        skipped = skipped_by_none(
            module,
            ("self_attn", "cross_attn", "feed_forward"),
            lambda masks: module(inputs.x, inputs.memory, masks["src_mask"], masks["tgt_mask"]),
            given,
        )
    except Exception:  # a probe: the plain message stands
        return ""
    if not skipped:
        return ""
    said = "; ".join(
        f"with {' or '.join(f'{mask}=None' for mask in masks)}, `self.{child}` never runs"
        for child, masks in skipped.items()
    )
    guards = sorted({mask for masks in skipped.values() for mask in masks})
    return (
        f"Your forward skips a sub-layer when a mask is None ({said}; with the masks given, "
        "it does run): the whole sub-layer sits under a test such as `if "
        f"{guards[0]} is not None:`, meant for the mask alone, so the decoder "
        f"{'never reads the memory' if 'cross_attn' in skipped else 'loses that sub-layer'} "
        "when no mask is given. Run every sub-layer always and hand the mask on as it is: "
        "MultiHeadAttention takes mask=None as no mask."
    )


def _sliced_output_note(got, shape: torch.Size, expected: Callable[[], torch.Tensor]) -> str:
    """For an output of the wrong shape (the stack's): whether it is the right output
    (``expected()``, (batch, len_tgt, d_model)) with positions cut or indexed away
    (checking.sequence_slices); "" otherwise."""
    if not isinstance(got, torch.Tensor) or got.shape == shape:
        return ""
    return position_slice_note(got, expected())


def _output_shape_hint(got, case: _DecCase) -> str:
    # got may be anything here: the type is checked after (blind8d: a tuple crashed the check)
    if tuple(getattr(got, "shape", ()))[1:2] == (case.len_src,) and case.len_src != case.len_tgt:
        return (
            "Your output has one row per *source* position: the cross-attention's queries come "
            "from memory. The queries come from the decoder (x), so the output has one row per "
            "target position, (batch, len_tgt, d_model); keys and values come from memory."
        )
    return "One output row per target position: (batch, len_tgt, d_model), as x."


# ======================================================================== Decoder stack
_STACK_NO_SRC = (
    "Your stack does not pass src_mask on to its layers: every layer's cross-attention needs it."
)
_STACK_NO_TGT = (
    "Your stack does not pass tgt_mask on to its layers: every layer's self-attention needs the "
    "look-ahead mask."
)
_STACK_NO_MASKS = "Your stack passes neither mask on: layer(x, memory, src_mask, tgt_mask)."
_STACK_SWAPPED = (
    "Your stack hands the masks to its layers in the wrong order: DecoderLayer.forward takes "
    "(x, memory, src_mask, tgt_mask). (nn.TransformerDecoderLayer's order, tgt_mask first, is "
    "different.)"
)
_STACK_MEMORY = (
    "Your stack does not give its layers the encoder output: each layer reads the same memory, "
    "layer(x, memory, src_mask, tgt_mask), not its own input."
)
_STACK_BUILT_ON = (
    "Decoder stacks your DecoderLayer (exercise 1): make sure its test cell passes first."
)


def check_Decoder(cls, *, hidden: bool = False) -> None:
    """Decoder(num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)."""
    with Checker("Decoder", hidden=hidden) as c:
        c.require_callable(cls, "Decoder")
        torch.manual_seed(0)
        for case in _HIDDEN_STACK if hidden else _VISIBLE_STACK:
            _check_stack_case(c, cls, case)
        x, memory = randn((2, 4, 8), 68 + 100 * hidden), randn((2, 5, 8), 69 + 100 * hidden)
        defaults = {"dropout": 0.0, "norm_first": False, "final_norm": None}
        expect_contract_defaults(c, cls, (2, 8, 2, 16), defaults, (x, memory), "Decoder", seed=70)
        inputs = (x, memory)
        expect_dropout_default_in_train(c, cls, (2, 8, 2, 16), inputs, "Decoder", seed=70)
        order = {"dropout": 0.0, "norm_first": True, "final_norm": False}
        expect_positional_order(
            c, cls, (2, 8, 2, 16), order, inputs, "Decoder", seed=70, caller=_BY_POSITION
        )
        expect_masks_on_every_path(c, cls, "Decoder", (2, 8, 2, 16), 8, decoder=True, seed=74)


#: an encoder layer's submodules; a decoder layer has cross_attn and norm3 besides
_DECODER_ONLY = ("cross_attn", "norm3")


def _built_from_encoder_layers(cls, case: _DecCase, args, kwargs, message: str) -> str:
    """For a state-dict keys failure: when the stack, constructed again, has every key of
    the reference but the cross-attention's and norm3's in every layer, and nothing else,
    its layers are encoder layers (blind14g-dec-built-from-encoder-layers was given the
    missing keys alone); "" otherwise."""
    if "state-dict keys" not in message.split("\n")[0]:
        return ""
    found = built_keys(lambda: cls(*args, **kwargs))
    if found is None:
        return ""
    expected = set(state_shapes(ref.Decoder(*args, **kwargs)))
    decoder_only = {
        key for key in expected if key.startswith("layers.") and key.split(".")[2] in _DECODER_ONLY
    }
    layers = {key.split(".")[1] for key in decoder_only}
    if found != expected - decoder_only or len(layers) != case.num_layers:
        return ""
    return (
        " Each of your layers has exactly an EncoderLayer's submodules (self_attn, "
        "feed_forward, norm1, norm2) and no cross_attn or norm3: the stack is built from "
        "lesson 07's EncoderLayer (kept from a copied Encoder), not from DecoderLayer. Build "
        "it from DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first): the decoder's "
        "layers also attend to the encoder output, memory."
    )


def _check_stack_case(c: Checker, cls, case: _DecCase, *, probe: bool = False) -> None:
    args = (case.num_layers, case.d_model, case.num_heads, case.d_ff)
    kwargs: dict[str, Any] = {"dropout": case.dropout, "norm_first": case.norm_first}
    if case.final_norm is not None:
        kwargs["final_norm"] = case.final_norm
    try:
        module, built, state = build(
            c,
            cls,
            *args,
            name="Decoder",
            reference=ref.Decoder(*args, **kwargs),
            seed=case.seed,
            mode=case.mode,
            **kwargs,
        )
    except CheckFailure as failure:
        if probe:
            raise
        if encoder_layers := _built_from_encoder_layers(cls, case, args, kwargs, failure.message):
            raise CheckFailure(
                failure.exercise, failure.message + encoder_layers, failure.learner_traceback
            ) from None
        if "Your stack has " in failure.message and (
            counted := layer_count_note(lambda numbers: cls(*numbers, **kwargs), args, "layers")
        ):
            raise CheckFailure(
                failure.exercise, f"{failure.message} {counted}", failure.learner_traceback
            ) from None
        raise also_wrong_besides_final_norm(
            failure, cls, case, _check_stack_case, lambda: _inputs(case).args()
        ) from None
    inputs = _inputs(case)
    call = _call_text("decoder", inputs, case, stack_description(case, built))
    got = c.call(
        module,
        *inputs.args(),
        call_repr=call,
        hints=[
            *_expanded_src_mask_hint(module, inputs),
            *_mask_hints(module, inputs),
            *_hints(case),
            *stack_input_hint(module, lambda: module(*inputs.args()), inputs.x, case.num_layers),
        ],
    )
    what = f"the output of {call}"
    p = as_float64(state)
    drop = case.mode == "train" and case.dropout == 1.0
    final = uses_final_norm(case.norm_first, case.final_norm)

    def compute(**knobs):  # (batch, len_tgt, d_model), float64
        return decoder_f(
            inputs.x,
            inputs.memory,
            p,
            inputs.src_mask,
            inputs.tgt_mask,
            case.num_heads,
            case.num_layers,
            **{"norm_first": case.norm_first, "final": final, "drop": drop, **knobs},
        )

    def compute_with_src(src_mask):  # the right output for another src_mask (None: none)
        return decoder_f(
            inputs.x,
            inputs.memory,
            p,
            src_mask,
            inputs.tgt_mask,
            case.num_heads,
            case.num_layers,
            norm_first=case.norm_first,
            final=final,
            drop=drop,
        )

    sliced = _sliced_output_note(got, inputs.x.shape, lambda: compute(drop=False))
    expect_tensor_result(
        c,
        got,
        inputs.x.shape,
        what,
        shape_hint=stacked_layers_hint(
            got, tuple(inputs.x.shape), case.num_layers, sliced or _output_shape_hint(got, case)
        ),
        inputs={"x": inputs.x, "memory": inputs.memory},
        expected=None if sliced else compute,
        axis_names=("batch", "target position", "d_model"),
        module=module,
        rerun=lambda: module(*inputs.args()),
    )
    if case.mode == "train":
        # whole layers skipped while training (LayerDrop): at dropout=1.0 a pre-LN stack
        # without them gives the same output, the layers that ran tell
        if skipped := layers_skipped_in_training(module, lambda: module(*inputs.args())):
            c.fail(f"While computing {what}: {skipped}")

    table = stack_mistakes(case.norm_first, case.final_norm, drop=drop)
    table |= {
        _STACK_SWAPPED: {"masks_swapped": True},
        _STACK_NO_MASKS: {"src_passed": False, "tgt_passed": False},
        _STACK_NO_SRC: {"src_passed": False},
        _STACK_NO_TGT: {"tgt_passed": False},
        _STACK_MEMORY: {"memory_from": "x"},
    }

    def layer_oracle(h, i):
        return decoder_layer_f(
            h,
            inputs.memory,
            sub(p, f"layers.{i}"),
            inputs.src_mask,
            inputs.tgt_mask,
            case.num_heads,
            norm_first=case.norm_first,
        )

    def localise():
        return _property_problem(c, module, inputs, case, call, got) or localise_stack(
            module,
            lambda: module(*inputs.args()),
            inputs.x,
            case.num_layers,
            final=(lambda t: layer_norm_f(t, sub(p, "norm"))) if final else None,
            layer_oracle=layer_oracle,
            arguments=(
                ("memory", inputs.memory),
                ("src_mask", inputs.src_mask),
                ("tgt_mask", inputs.tgt_mask),
            ),
        )

    if not (case.mode == "train" and case.dropout > 0) and not _close64(got, compute()):
        # one sentence's src_mask for all (src_mask[0] in the stack's forward)
        one_row = _src_mask_one_row(c, module, inputs, lambda src_mask: compute_with_src(src_mask))
        if one_row:
            c.fail(f"{what} is not what the reference gives. {one_row}")

    expect_masks_on_train_path(
        c,
        got,
        compute(),
        what,
        case.mode == "train",
        cls,
        "Decoder",
        (2, 8, 2, 16),
        8,
        decoder=True,
        seed=74,
    )
    expect_composite(
        c,
        got,
        compute(),
        what,
        **tolerance(got.dtype),
        mistakes=mistake_values(compute, table),
        localise=lambda: (
            dropout_rate_problem(module, inputs.args(), got, case.dropout)
            or ("" if case.mode == "train" and case.dropout > 0 else localise())
        ),
        hint=lambda: _property_problem(c, module, inputs, case, call, got) or _STACK_BUILT_ON,
    )
    _expect_properties(c, module, inputs, case, call, got)
    if case.later_calls:

        def oracle(x, memory, src_mask, tgt_mask):
            return decoder_f(
                x,
                memory,
                p,
                src_mask,
                tgt_mask,
                case.num_heads,
                case.num_layers,
                norm_first=case.norm_first,
                final=final,
            )

        description = stack_description(case, built)
        _expect_fresh_each_call(
            c,
            module,
            inputs,
            case,
            "decoder",
            description,
            oracle,
            lambda: build(
                c,
                cls,
                *args,
                name="Decoder",
                reference=ref.Decoder(*args, **kwargs),
                seed=case.seed,
                mode=case.mode,
                **kwargs,
            )[0],
        )
        _expect_no_masks_passed_on(c, module, inputs, case, description, oracle)
        _expect_gradient_reaches_inputs(c, module, inputs, call, got, stack=True)


# ======================================================================= concept questions
QUIZ_CROSS_ATTENTION_NORM = Quiz(
    name="quiz_cross_attention_norm",
    answer="b",
    choices={
        "a": "norm2(x), norm2(memory), norm2(memory)",
        "b": "norm2(x), memory, memory",
        "c": "x, norm2(memory), norm2(memory)",
        "d": "memory, norm2(x), norm2(x)",
    },
    why={
        "a": "norm2 belongs to the decoder's residual stream: it normalises the tensor that "
        "becomes the queries. The memory arrives normalised already (a pre-LN encoder ends "
        "with its final LayerNorm), and running it through the decoder's norm2 as well changes "
        "the keys and values (norm2's gain and bias are not the encoder's).",
        "b": "Pre-LN normalises the input of each sub-layer on the decoder's side, so the "
        "queries are norm2(x); the keys and values are the encoder output as it comes, already "
        "normalised by the encoder's final LayerNorm. PyTorch's nn.TransformerDecoderLayer "
        "does the same.",
        "c": "That normalises the wrong side: pre-LN normalises the sub-layer's input from the "
        "residual stream, which is x, the source of the queries, so the queries must be "
        "normalised: norm2(x), not the raw x, which skips the decoder's LayerNorm. The memory "
        "is normalised already, by the encoder's final LayerNorm, and needs no second one.",
        "d": "That swaps the roles: the queries come from the decoder (one output row per "
        "target position), the keys and values from the encoder output.",
    },
)
check_quiz_cross_attention_norm = quiz_check(QUIZ_CROSS_ATTENTION_NORM)

QUIZ_DECODER_MASKS = Quiz(
    name="quiz_decoder_masks",
    answer="b",
    choices={
        "a": "the look-ahead mask, because the decoder must not see the future",
        "b": "the source padding mask, broadcast over every target position",
        "c": "the look-ahead and target padding masks combined",
        "d": "no mask: the encoder output has no padding left",
    },
    why={
        "a": "The cross-attention's keys are source positions, all of which exist before decoding "
        "starts: the whole source may be read. The look-ahead mask belongs to the self-attention.",
        "b": "Its keys are the source positions, so it must skip the source's <pad> positions: "
        "src_mask (batch, 1, 1, len_src), the same for every head and every target position.",
        "c": "That is the self-attention's mask, (len_tgt x len_tgt); the cross-attention's "
        "weights are (len_tgt x len_src).",
        "d": "The encoder output still has a vector at every padded source position (it is not "
        "zero, and not meaningful): without the mask, the decoder would attend to it.",
    },
)
check_quiz_decoder_masks = quiz_check(QUIZ_DECODER_MASKS)


# ================================================================================ registry
LESSON = "08_decoder"
_FORBIDDEN = (
    "torch.nn.TransformerDecoderLayer",
    "torch.nn.TransformerDecoder",
    "torch.nn.Transformer",
    "torch.nn.MultiheadAttention",
    "torch.nn.LayerNorm",
    "torch.nn.functional.layer_norm",
)
EXERCISES = (
    Exercise(
        "DecoderLayer",
        check_DecoderLayer,
        kind="module",
        points=3,
        minutes=30,
        level=3,
        forbidden=_FORBIDDEN,
    ),
    Exercise(
        "quiz_cross_attention_norm",
        check_quiz_cross_attention_norm,
        kind="quiz",
        points=1,
        minutes=3,
        level=2,
    ),
    Exercise(
        "Decoder", check_Decoder, kind="module", points=2, minutes=15, level=2, forbidden=_FORBIDDEN
    ),
    Exercise(
        "quiz_decoder_masks", check_quiz_decoder_masks, kind="quiz", points=1, minutes=3, level=2
    ),
)
