"""The check of ``MultiHeadAttention``: the layer built with the check's weights, run on each
case in eval and train mode, its output and weights compared with the reference, and the
mistake named from the diagnoses in ``mha_diagnoses``; dropout's place is checked in
``mha_dropout``.

What is required is what the concept needs; incidental choices are accepted:

* any value that blocks masked positions (-inf, -1e9, ``torch.finfo(dtype).min``, an
  additive 0/-inf mask), and fully masked query rows that come out as zeros, uniform
  weights or another finite distribution (the conventions the shared diagnosis accepts;
  a note says which), the output being checked under the learner's own convention;
* any floating-point dtype for the output and the weights (a note when it is not the
  inputs' float32), compared with the tolerance of float32, the inputs' dtype;
* dropout through ``nn.Dropout``, ``F.dropout(..., training=self.training)`` or
  ``F.scaled_dot_product_attention(dropout_p=...)``; the weights returned in training
  mode may be taken before dropout (the contract) or after it (what
  ``nn.MultiheadAttention`` and the Annotated Transformer return), with a note.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from dataclasses import replace

import torch

from transformer_course.checking import Checker, CheckFailure, tolerance, torch_generator
from transformer_course.checking.attention_weights import (
    TRANSPOSED_WEIGHTS,
    expect_attention_weights,
    with_fully_masked_rows,
)
from transformer_course.checking.batch_rows import row_by_row_hint, row_by_row_note
from transformer_course.checking.graph import INPUT_GRAD_ONLY, graph_needs_input_grad
from transformer_course.checking.keep_probability import rate_read_backwards
from transformer_course.checking.layers import mistake_pairs
from transformer_course.checking.modules import (
    build_module,
    expect_follows_new_weights,
    expect_no_state_between_calls,
    random_state,
)
from transformer_course.checking.oracles import multi_head_attention_f
from transformer_course.checking.returned_order import reordered_return_note
from transformer_course.checking.size_one_axes import size_one_axes_note
from transformer_course.checking.term_factors import term_factors_message
from transformer_course.checking.validity_tests import uneven_refusals
from transformer_course.reference import multi_head_attention as ref

from .common import _batch_of_one_hint
from .mha_cases import (
    _HIDDEN_MHA,
    _VISIBLE_MHA,
    _Case,
    _describe_mask,
    _inputs,
    _keys_hint,
    _kind,
    _state_shapes,
)
from .mha_diagnoses import (
    _BOOL_MASK_ADDED,
    _OUTPUT_MISTAKES,
    _SCALED_AFTER_SOFTMAX,
    _VALUES_MERGED,
    _WEIGHT_MISTAKES,
    _Agreement,
    _bool_mask_added_weights,
    _extra_step_outputs,
    _head_width_projection_hint,
    _heads_mixed,
    _length_mixup_hint,
    _length_mixup_source,
    _mistake_values,
    _only_agreeing,
    _output_shape_hint,
    _pair_unpacked_hint,
    _scale_placement_part,
    _softmax_sum_hint,
    _weights_shape_hint,
    _wrong_scale,
)
from .mha_dropout import (
    _HIDDEN_DROPOUT,
    _VISIBLE_DROPOUT,
    _check_dropout_placement,
    _dropout_rate_note,
    _expect_mask_on_every_path,
    _expect_no_dropout_by_default,
    _mask_by_mode_note,
    _probed_rate_note,
    _renormalised_dropout_note,
    zeroed_scores_cause,
)

_DROPOUT_IN_EVAL = (
    "The module is in eval mode, where dropout must do nothing: use `self.dropout = "
    "nn.Dropout(dropout)` (it follows train()/eval()), or F.dropout(..., "
    "training=self.training)."
)
_DROPOUT_NOT_IN_TRAIN = (
    "In train mode with dropout=1.0 every attention weight is dropped, so each head's output is "
    "0 and the layer's output is just w_o's bias. Yours is what eval mode gives: dropout is "
    "not applied in training, or its result never reaches the output (`self.dropout(weights)` "
    "on a line of its own returns a new tensor and leaves weights as they were; and the heads "
    "that scaled_dot_product_attention returns were computed without dropout, so they must be "
    "recomputed from the dropped-out weights); a dropout called only when `not "
    "self.training` never acts either (nn.Dropout does nothing in eval mode). Apply it, with no "
    "condition, to the attention weights before they multiply the values: "
    "`heads = self.dropout(weights) @ v`."
)
_DROPOUT_AFTER_W_O = (
    "In train mode with dropout=1.0 your output is all zeros: you applied dropout to the "
    "layer's output, after w_o. In multi-head attention, dropout acts on the attention weights "
    "(before they multiply the values), so with dropout=1.0 the output is w_o's bias."
)


def check_MultiHeadAttention(cls, *, hidden: bool = False) -> None:
    """Construct cls(d_model, num_heads, dropout=...), load a state dict, compare forward.

    Required: the state-dict keys w_q/w_k/w_v/w_o .weight/.bias with (d_model, d_model) and
    (d_model,) shapes, forward(query, key, value, mask=None) -> (output (batch, len_q,
    d_model), weights (batch, num_heads, len_q, len_k)) matching the reference within
    float32 tolerance, a gradient path to the parameters, no dropout in eval mode, and in
    train mode: dropout=0.0 equals eval, dropout=1.0 drops every weight (output = w_o's
    bias), 0 < dropout < 1 acts on the weights and backward runs. Accepted: see the module
    docstring.
    """
    with Checker("MultiHeadAttention", hidden=hidden) as c:
        c.require_callable(cls, "MultiHeadAttention")
        cases = _HIDDEN_MHA if hidden else _VISIBLE_MHA
        _expect_valid_sizes_built(c, cls, cases[0])
        _uneven_divisibility_note(c, cls)
        agree = _Agreement(cls, cases)
        for case in cases:
            _check_case(c, cls, case, agree)
        # one module called twice, the first time on other keys and values (blind8d), and
        # the same module and inputs after a weight update: an output kept on self shows
        case = next(case for case in cases if case.kind == "cross" and not case.train)
        other = replace(case, seed=case.seed + 500, len_k=case.len_k + 2)
        first, args = _inputs(other)[:3], tuple(t for t in _inputs(case) if t is not None)
        call = f"mha(query, key, value{', mask' if len(args) > 3 else ''}) [{_kind(case)}"

        def fresh():
            return build_module(
                c,
                cls,
                case.d_model,
                case.num_heads,
                dropout=case.dropout,
                name="MultiHeadAttention",
                state=random_state(_state_shapes(case.d_model), seed=case.seed),
            )[0]

        expect_no_state_between_calls(
            c,
            fresh,
            first,
            args,
            f"{call}, key and value of length {case.len_k}]",
            f"key and value of length {other.len_k}",
        )
        expect_follows_new_weights(c, fresh(), args, f"{call}]")
        _expect_no_mask_kept(c, cls, next(case for case in cases if case.mask != "none"))
        _check_dropout_placement(c, cls, _HIDDEN_DROPOUT if hidden else _VISIBLE_DROPOUT)
        _expect_mask_on_every_path(c, cls)
        _expect_no_dropout_by_default(c, cls)


def _heads_returned_as_weights(output, weights, state, args, num_heads: int) -> str:
    """The tensor returned as the weights is the heads, (dropped-out) weights @ v per head,
    (batch, num_heads, len_q, d_head): the pair (output, weights) of the attention
    unpacked the other way round, weights, heads = ... (blind18b-mha-sdpa-result-unpacked-
    reversed: told its weights were not a softmax). Eval mode or no dropout only: compared
    with the reference heads of the check's weights."""
    query, key, value, mask = args
    b, lq, d = query.shape
    lk, dh = key.shape[1], d // num_heads
    if not isinstance(weights, torch.Tensor) or tuple(weights.shape) != (b, num_heads, lq, dh):
        return ""
    st = {name: tensor.double() for name, tensor in state.items()}
    reference = ref.MultiHeadAttention(d, num_heads).double().eval()
    reference.load_state_dict(st)
    with torch.no_grad():
        _, right = reference(query.double(), key.double(), value.double(), mask)
        v = (value.double() @ st["w_v.weight"].T + st["w_v.bias"]).reshape(b, lk, num_heads, dh)
        heads = right @ v.transpose(1, 2)  # (batch, num_heads, len_q, d_head)
        if not torch.allclose(weights.detach().double(), heads, rtol=1e-4, atol=1e-5):
            return ""
        expected_out, _ = reference(query.double(), key.double(), value.double(), mask)
        output_right = (
            isinstance(output, torch.Tensor)
            and output.shape == expected_out.shape
            and torch.allclose(output.detach().double(), expected_out, rtol=1e-4, atol=1e-5)
        )
    if output_right:
        return (
            "it is the heads, each head's weights @ v, (batch, num_heads, len_q, d_head), not "
            "the attention weights; your output is right. Return the attention weights, "
            "(batch, num_heads, len_q, len_k), the second item scaled_dot_product_attention "
            "returns: return output, weights."
        )
    return (
        "it is the heads, each head's weights @ v, (batch, num_heads, len_q, d_head), not "
        "the attention weights. The pair the attention returns, (output, weights), was "
        "unpacked the other way round (weights, heads = scaled_dot_product_attention(...)), "
        "so the weights were merged and sent through w_o as if they were the heads. "
        "Unpack in the order it returns: heads, weights = scaled_dot_product_attention(q, k, "
        "v, mask)."
    )


def _expect_rate_not_backwards(c: Checker, cls, case, state, args, output, what_o) -> None:
    """In train mode with dropout 0.0 or 1.0: a layer that drops every weight when built
    with 0.0 and none when built with 1.0 reads its rate as a keep probability,
    nn.Dropout(1 - dropout) (blind12k-mha-dropout-keep-probability: told only that train
    mode differs from eval mode). The other side is a module built with the other rate."""
    b, lq, d = output.shape if isinstance(output, torch.Tensor) else (0, 0, 0)

    def output_with_rate(rate: float):
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            other = cls(case.d_model, case.num_heads, dropout=rate)
            other.load_state_dict(state)
            other.train()
            torch.manual_seed(case.seed)
            return other(*args)

    backwards = False
    with contextlib.suppress(Exception):  # a probe: the comparisons after it stay
        dropped = state["w_o.bias"].expand(b, lq, d)  # every attention weight dropped
        backwards = rate_read_backwards(output, case.dropout, dropped, output_with_rate)
    c.expect_true(
        not backwards,
        f"{what_o}: built with dropout=0.0, your layer drops every attention weight in train "
        "mode (its output is w_o's bias alone), and built with dropout=1.0 it does not: the "
        "rate works backwards, as if the argument were the probability of keeping a weight "
        "(TensorFlow's keep_prob), nn.Dropout(1 - dropout). PyTorch's rate is the "
        "probability of zeroing each value: self.dropout = nn.Dropout(dropout).",
    )


def _values_only_note(output, state, args) -> str:
    """An output of len_k rows that is w_o of the projected values alone (the values merged
    instead of the heads): told apart from queries taken from `key` by its values."""
    _, key, value, _ = args
    if not isinstance(output, torch.Tensor) or output.shape != value.shape:
        return ""
    st = {name: tensor.double() for name, tensor in state.items()}
    with torch.no_grad():
        values = value.double() @ st["w_v.weight"].T + st["w_v.bias"]  # (batch, len_k, d)
        alone = values @ st["w_o.weight"].T + st["w_o.bias"]
        if not torch.allclose(output.detach().double(), alone, rtol=1e-4, atol=1e-5):
            return ""
    return f"You have one output row per *key* ({key.shape[1]} rows). {_VALUES_MERGED}"


def _heads_for_weights_probe(cls) -> str:
    """Where the call raises: on a self-attention input with len = d_head, where heads
    and weights have the same shape, a layer that returns the heads as the weights (the
    attention's pair unpacked the other way round) runs, and that is said."""
    d, h, length = 8, 2, 4  # d_head = 4 = len
    state = random_state(_state_shapes(d), seed=995)
    x = torch.randn(2, length, d, generator=torch_generator(996))  # (batch, len, d_model)
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            module = cls(d, h, dropout=0.0)
            module.load_state_dict(state)
            module.eval()
            output, weights = module(x, x, x)
    except Exception:  # a probe: the error's own message stays
        return ""
    found = _heads_returned_as_weights(output, weights, state, (x, x, x, None), h)
    if not found:
        return ""
    return (
        f"On a self-attention input with len = d_head = {length} (MultiHeadAttention({d}, "
        f"{h})), where the two have the same shape, your layer runs, and the tensor it "
        f"returns as the weights {found.removeprefix('it ')}"
    )


def _expect_no_mask_kept(c: Checker, cls, case) -> None:
    """One module called with a mask, then on the same inputs with mask=None, must give
    what a fresh module gives unmasked: a mask kept on self and reused when a later call
    passes none (blind12k-mha-mask-remembered-across-calls) was accepted, since the call
    twice above passes its mask to the second call only. Eval mode, no gradients."""

    def build():
        module = cls(case.d_model, case.num_heads, dropout=case.dropout)
        module.load_state_dict(random_state(_state_shapes(case.d_model), seed=case.seed))
        return module.eval()

    query, key, value, mask = _inputs(case)

    def first(result):
        return result[0] if isinstance(result, tuple | list) else result

    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            unmasked = first(build()(query, key, value))
            used = build()
            masked = first(used(query, key, value, mask))
            again = first(used(query, key, value))
    except Exception:  # the cases above say what is wrong with one call
        return
    if not all(isinstance(t, torch.Tensor) for t in (unmasked, masked, again)):
        return
    if again.shape == unmasked.shape and torch.allclose(
        again.double(), unmasked.double(), rtol=1e-5, atol=1e-6
    ):
        return
    call = f"mha(query, key, value) [{_kind(case)}, mask=None]"
    if again.shape == masked.shape and torch.allclose(
        again.double(), masked.double(), rtol=1e-5, atol=1e-6
    ):
        c.fail(
            f"{call} on a module called just before on the same inputs with mask=bool "
            f"{tuple(mask.shape)} gives the masked output again, where a fresh module with the "
            "same weights gives the unmasked one: the earlier call's mask was kept on the "
            "module (self.mask = mask, or a stored default) and applied when this call passed "
            "mask=None. forward must use the mask of each call only: `if mask is not None:` "
            "on the argument, nothing stored on self."
        )
    c.fail(
        f"{call} on a module called just before on the same inputs with mask=bool "
        f"{tuple(mask.shape)} gives another result than a fresh module with the same weights: "
        "your module keeps something from the masked call (the mask or a tensor computed "
        "from it, stored on self) and reuses it. forward must compute everything from the "
        "arguments of each call."
    )


def _state_shape_list(module) -> list[tuple[int, ...]]:
    """The shapes of a module's state dict, sorted (whatever the keys are called)."""
    return sorted(tuple(tensor.shape) for tensor in module.state_dict().values())


def _argument_order_note(cls, d: int, h: int) -> str:
    """The constructor's first two parameters in the other order, num_heads before d_model
    (the Annotated Transformer's MultiHeadedAttention(h, d_model)): built as cls(h, d), it
    has the weights of a d-wide layer, which cls(d, h) has not (round 14, blind14d-mha-init-
    heads-before-d-model). "" when the probe does not show it."""
    expected = sorted(_state_shapes(d).values())
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            swapped = _state_shape_list(cls(h, d, dropout=0.0))
    except Exception:
        return ""
    if swapped != expected:
        return ""
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        if _state_shape_list(cls(d, h, dropout=0.0)) == expected:
            return ""
    return (
        f"Built as MultiHeadAttention({h}, {d}) instead, your layer has the weights of a "
        f"layer of width {d}, (d_model, d_model) = ({d}, {d}): your __init__ takes its first two "
        "arguments in the other order, num_heads before d_model (the Annotated Transformer's "
        "MultiHeadedAttention(h, d_model)). The contract, and every caller in this course, "
        "passes d_model first: def __init__(self, d_model, num_heads, dropout=0.0)."
    )


def _expect_valid_sizes_built(c: Checker, cls, case: _Case) -> None:
    """Build the layer once with sizes that divide: a ValueError there is the learner's
    own validity test refusing a valid layer (blind13d: num_heads % d_model), or the
    arguments taken in the other order (blind14d), told apart by building it with the
    sizes exchanged; a layer that builds with the other order's weights is said so too."""
    d, h = case.d_model, case.num_heads

    def other_order(exc: BaseException) -> str:
        return "" if d % h else _argument_order_note(cls, d, h)

    def refused(exc: BaseException) -> str:
        if d % h or not re.search(r"divisib|multiple|%", str(exc)):
            return ""
        if _argument_order_note(cls, d, h):
            return ""  # other_order's
        return (
            f"d_model={d} is divisible by num_heads={h} ({d} % {h} == 0), but your constructor "
            "raised its ValueError even though this layer is valid: the divisibility test is "
            "the wrong way round. Raise only when d_model % num_heads != 0; `num_heads % "
            "d_model` (the operands swapped) or `== 0` for `!= 0` rejects valid layers like "
            "this one."
        )

    built = f"MultiHeadAttention({d}, {h}, dropout={case.dropout})"
    module = c.call(
        cls,
        d,
        h,
        dropout=case.dropout,
        call_repr=built,
        hints=[(ValueError, other_order), (AssertionError, other_order), (ValueError, refused)],
    )
    note = ""
    with contextlib.suppress(Exception):
        if _state_shape_list(module) != sorted(_state_shapes(d).values()):
            note = _argument_order_note(cls, d, h)
    if note:
        c.fail(f"{built} does not have the weights of a layer of width d_model = {d}. {note}")


#: (d_model, num_heads) pairs where num_heads does not divide d_model: smaller, equal
#: quotient 1 and larger ones, so that a test on the quotient or on the order of the sizes
#: refuses some and not others
_INDIVISIBLE_SIZES = [(2, 4), (3, 4), (10, 4), (7, 2), (9, 4)]
#: conditions a divisibility test may compute instead of d_model % num_heads != 0
_DIVISIBILITY_CONDITIONS = [
    ("`d_model // num_heads == 0` (floor division)", lambda d, h: d // h == 0),
    ("`d_model < num_heads`", lambda d, h: d < h),
    ("`num_heads % d_model != 0` (the operands swapped)", lambda d, h: h % d != 0),
    ("`d_model % num_heads > 1`", lambda d, h: d % h > 1),
]


def _uneven_divisibility_note(c: Checker, cls) -> None:
    """A note, not a failure: a constructor whose own divisibility test refuses some sizes
    num_heads does not divide and builds others (blind18b-mha-divisibility-floor-division:
    `if d_model // num_heads == 0`) is told which sizes it lets through, and the condition it
    computes when one (or several that agree here) fits. The lesson makes divisibility a
    precondition and asks for no test, so what a constructor does with sizes outside it is
    not graded; a constructor with no test at all refuses none and hears nothing."""
    found = uneven_refusals(
        lambda d, h: cls(d, h, dropout=0.0), _INDIVISIBLE_SIZES, _DIVISIBILITY_CONDITIONS
    )
    if found is None:
        return
    refused, accepted, named = found
    shown = ", ".join(f"({d}, {h})" for d, h in accepted)
    refused_shown = ", ".join(f"({d}, {h})" for d, h in refused)
    reading = (
        f" Your test computes {' or '.join(named)}, which is true on exactly the sizes it "
        "refused here."
        if named
        else ""
    )
    c.note(
        f"MultiHeadAttention(d_model, num_heads) with (d_model, num_heads) = {refused_shown} "
        f"{'raise' if len(refused) > 1 else 'raises'} your error, but {shown} "
        f"{'build' if len(accepted) > 1 else 'builds'} without one, although num_heads does "
        f"not divide d_model there either ({', '.join(f'{d} % {h} = {d % h}' for d, h in accepted)}): "
        f"your divisibility test lets some invalid layers through.{reading} Test the "
        "remainder: `if d_model % num_heads != 0: raise ValueError(...)`. (Not graded: the "
        "lesson asks for no test of the sizes.)"
    )


def _masks_in_eval(module, args, mask) -> bool:
    """Whether the module, in eval mode on ``args``, gives no weight to a blocked key."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            module.eval()
            _, weights = module(*args)
        blocked = ~mask.expand(weights.shape)
        return bool((weights.detach()[blocked].abs() < 1e-6).all())
    except Exception:
        return False
    finally:
        module.train()


def _scores_dropped_note(weights, dropped_entirely: bool, module, args, mask) -> str:
    """With dropout=1.0 in train mode, weights uniform over every key, the blocked ones
    included: the masked scores went through dropout before the softmax (every score,
    -inf included, became 0). The eval cases, which ran before, applied the mask: "the
    mask is not applied" would be the wrong cause (round 12, blind12d-mha-inline-dropout-
    on-scores, masked with -1e9)."""
    if not dropped_entirely or not isinstance(weights, torch.Tensor) or mask is None:
        return ""
    lk = weights.shape[-1]
    uniform = torch.full_like(weights.detach().double(), 1 / lk)
    if not torch.allclose(weights.detach().double(), uniform) or not _masks_in_eval(
        module, args, mask
    ):
        return ""
    return (
        f"With dropout=1.0 in train mode every weight of yours is 1/len_k = 1/{lk}, the keys "
        "the mask forbids included, and in eval mode your mask works: you applied dropout to "
        "the scores before the softmax, after masking them (every score, the blocked ones "
        "included, dropped to 0, and a softmax of equal scores is uniform). Dropout acts on "
        "the weights after the softmax, where the values are mixed: "
        "heads = self.dropout(weights) @ v."
    )


def _leaks(weights, mask) -> bool:
    """Whether finite ``weights`` put weight on a key ``mask`` blocks, in a query row that
    may attend to some key (fully masked rows follow their own conventions)."""
    if mask is None or not isinstance(weights, torch.Tensor) or weights.dim() != 4:
        return False
    w = weights.detach().double()
    try:
        allowed = mask.expand(w.shape)
    except RuntimeError:
        return False
    if not bool(torch.isfinite(w).all()):
        return False
    live = allowed.any(dim=-1, keepdim=True)  # (..., len_q, 1)
    return bool(((w > 1e-6) & ~allowed & live).any())


def _runs_in_eval(module, args) -> bool:
    """Whether the module, switched to eval mode, runs on ``args`` without an error (it
    is switched back to train mode after)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            module.eval()
            module(*args)
        return True
    except Exception:
        return False
    finally:
        module.train()


def _train_only_note(message: str, case: _Case) -> str:
    """Where to look when forward raises in train mode only; a broadcast of the heads
    against the batch (a 3-D tensor met the 4-D weights) names the values not split."""
    note = (
        "Your forward runs on these inputs in eval mode and raises in train mode: the line "
        "that runs only in training (recomputing the heads from the dropped-out weights) is "
        "the one that fails."
    )
    sizes = re.search(
        r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\)", message
    )
    if sizes and {int(sizes.group(1)), int(sizes.group(2))} == {case.num_heads, case.batch}:
        note += (
            " Its error pairs num_heads with batch: a 3-D tensor (batch, len_k, d_model) met the "
            "4-D weights (batch, num_heads, len_q, len_k), values never split into heads: "
            "@ value (or w_v(value) unsplit) instead of @ v. Write heads = "
            "self.dropout(weights) @ v, with v the projected values split into heads."
        )
    return note


def _random_in_eval(module, args) -> bool:
    """Whether two more calls of the (eval-mode) module on the same inputs disagree."""
    outputs = []
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        with torch.no_grad():
            for _ in range(2):
                outputs.append(torch.as_tensor(module(*args)[0]).detach().double())
    return len(outputs) == 2 and not torch.allclose(outputs[0], outputs[1], atol=1e-9)


def _runs_without_mask(module, query, key, value) -> bool:
    """Whether the module returns a pair on these inputs when no mask is passed."""
    with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
        with torch.no_grad():
            result = module(query, key, value)
        return isinstance(result, tuple | list) and len(result) == 2
    return False


def _row_right(module, state, case: _Case, inputs):
    """``row_right(i)``: whether the (eval-mode) module is right on sequence i alone, a batch
    of one (its mask sliced when it has a batch axis), output and weights (checking.
    batch_rows)."""
    query, key, value, mask = inputs

    def row_right(i: int) -> bool:
        one = slice(i, i + 1)
        row_mask = mask
        if mask is not None and mask.ndim == 4 and mask.shape[0] == case.batch:
            row_mask = mask[one]
        call = (query[one], key[one], value[one])
        with torch.no_grad():
            got = module(*call) if row_mask is None else module(*call, row_mask)
            out, weights = multi_head_attention_f(state, *call, row_mask, case.num_heads)
        return (
            isinstance(got, tuple | list)
            and len(got) == 2
            and all(isinstance(t, torch.Tensor) for t in got)
            and got[0].shape == out.shape
            and got[1].shape == weights.shape
            and torch.allclose(got[0].double(), out, atol=1e-4, rtol=1e-3)
            and torch.allclose(got[1].double(), torch.nan_to_num(weights), atol=1e-4, rtol=1e-3)
        )

    return row_right


def _fits_heads(weights, state, inputs, k: int) -> bool:
    """Whether ``weights`` are the float64 oracle's weights with ``k`` heads."""
    query, key, value, mask = inputs
    if k < 1 or query.shape[-1] % k:
        return False
    with contextlib.suppress(Exception):
        expected = multi_head_attention_f(state, query, key, value, mask, k)[1]
        got = weights.detach().double()
        return got.shape == expected.shape and torch.allclose(got, expected, atol=1e-4)
    return False


def _shape_notes(output, weights, state, case: _Case, inputs) -> tuple[str, str]:
    """Notes for an output or weights of the wrong shape whose numbers are the reference's:
    axes of size 1 lost or added (a bare .squeeze() on a batch of one), or the heads averaged
    with keepdim=True. Stated only when the values agree (round 11: the averaged weights
    (batch, 1, len_q, len_k) were named as a head count fixed to 1)."""
    b, h, lq, lk = case.batch, case.num_heads, case.len_q, case.len_k
    query, key, value, mask = inputs
    with torch.no_grad():
        expected_out, expected_weights = multi_head_attention_f(state, query, key, value, mask, h)
    tol = {"rtol": 1e-3, "atol": 1e-4}
    output_note = size_one_axes_note(output, expected_out, **tol)
    weights_note = size_one_axes_note(weights, expected_weights, **tol)
    if tuple(weights.shape) == (b, h, lk, lq) and torch.allclose(
        weights.detach().double().transpose(-1, -2), expected_weights, **tol
    ):
        weights_note = TRANSPOSED_WEIGHTS
    if tuple(weights.shape) == (b, lq, lk) and h > 1:  # one matrix per sequence: which?
        got = weights.detach().double()
        found = [
            text
            for text, value in (
                (
                    "Those are weights averaged over the heads (what nn.MultiheadAttention "
                    "returns by default)",
                    expected_weights.mean(dim=1),
                ),
                ("Those are the heads' weights summed", expected_weights.sum(dim=1)),
                *(
                    (f"Those are head {i}'s weights alone", expected_weights[:, i])
                    for i in range(h)
                ),
            )
            if torch.allclose(got, value, **tol)
        ]
        weights_note = (
            f"{' / '.join(found) if found else 'Yours holds one weight matrix per sequence'}: "
            "return every head's weights, (batch, num_heads, len_q, len_k)."
        )
    if tuple(weights.shape) == (b, 1, lq, lk) and h > 1:
        averaged = expected_weights.mean(dim=1, keepdim=True)
        if torch.allclose(weights.detach().double(), averaged, **tol):
            weights_note = (
                "Those are the weights averaged over the heads, kept as one head (mean(dim=1, "
                "keepdim=True), or nn.MultiheadAttention's default average_attn_weights=True): "
                "return every head's weights, (batch, num_heads, len_q, len_k)."
            )
    return output_note, weights_note


def _output_terms_note(output, variant_args, tol: dict) -> str:
    """The output as a weighted sum of w_o's two terms, the merged heads through its weight
    and its bias (:mod:`~transformer_course.checking.term_factors`): a bias left out, added
    twice, or a term scaled; "" when no such weighting fits."""
    state = variant_args[0]
    if "w_o.bias" not in state:
        return ""
    merged = multi_head_attention_f(*variant_args, use_w_o=False)[0]  # (batch, len_q, d_model)
    return term_factors_message(
        output,
        {
            "merged heads @ w_o.weight.T": merged @ state["w_o.weight"].double().T,
            "w_o.bias": state["w_o.bias"].double(),
        },
        **tol,
        where=" w_o is one nn.Linear: self.w_o(merge_heads(heads)) adds its bias once.",
    )


def _input_read_as_mask_hint(args) -> list:
    """``~`` raised on a float tensor while the call passed mask=None: the only float
    tensors passed are query, key and value, so forward read one of them as its mask (a
    forward(self, x, mask=None) written for self-attention gets `key` in mask's place).
    [(matcher, text)] for ``c.call``; empty when a mask was passed (a bool mask turned
    into floats inside forward fits the error as well: the generic advice stands)."""
    mask = args[3] if len(args) > 3 else None
    if mask is not None:
        return []
    given = "mask=None"
    return [
        (
            lambda exc: isinstance(exc, TypeError) and "operator.invert" in str(exc),
            f"~ met a float tensor, and this call passed {given}: the only float tensors it "
            "passed are query, key and value, so your forward took one of them for its mask. "
            "forward's parameters are (query, key, value, mask=None), in that order (a "
            "forward(self, x, mask=None) written for self-attention receives `key` where the "
            "mask goes); self-attention calls it as mha(x, x, x, mask).",
        )
    ]


def _check_case(c: Checker, cls, case: _Case, agree=None) -> None:
    b, h, lq, lk, d = case.batch, case.num_heads, case.len_q, case.len_k, case.d_model
    state = random_state(_state_shapes(d), seed=case.seed)
    module, built = build_module(
        c,
        cls,
        d,
        h,
        dropout=case.dropout,
        name="MultiHeadAttention",
        expected_shapes=_state_shapes(d),
        keys_hint=_keys_hint(d, h),
        state=state,
        mode="train" if case.train else "eval",
        forward_args=tuple(t for t in _inputs(case)[:3]),
    )
    query, key, value, mask = _inputs(case)
    mode = "train" if case.train else "eval"
    call = (
        f"mha(query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}, "
        f"mask={_describe_mask(mask)}) [{_kind(case)}; mha = {built} holding the check's "
        f"weights, in {mode} mode]"
    )
    args = (query, key, value) if mask is None else (query, key, value, mask)
    row_right = _row_right(module, state, case, (query, key, value, mask))
    # a softmax whose row sums lost their axis, shown by a probe, is the cause of a size
    # clash between len_q and len_k: the length mix-up's "keys from `query`" is then not
    ((_, softmax_sum),) = _softmax_sum_hint(cls)
    probed: dict[int, str] = {}

    def sums_unkept(exc: BaseException) -> str:
        if id(exc) not in probed:
            probed[id(exc)] = softmax_sum(exc) if isinstance(exc, RuntimeError) else ""
        return probed[id(exc)]

    def unless_sums_unkept(hint):
        return lambda exc: "" if sums_unkept(exc) else (hint(exc) if callable(hint) else hint)

    try:
        result = c.call(
            module,
            *args,
            call_repr=call,
            hints=[
                *_input_read_as_mask_hint(args),
                (RuntimeError, lambda _exc: _heads_for_weights_probe(cls)),
                *((when, unless_sums_unkept(hint)) for when, hint in _length_mixup_hint(case)),
                *_batch_of_one_hint(case.batch),
                *_head_width_projection_hint(case),
                *_pair_unpacked_hint(cls, case),
                (RuntimeError, sums_unkept),
                *(
                    []
                    if case.train
                    else row_by_row_hint(
                        row_right, b, size="query", unless=_batch_of_one_hint(case.batch)
                    )
                ),
            ],
        )
    except CheckFailure as failure:
        mixup = _length_mixup_hint(case) and not any(probed.values())
        named = _length_mixup_source(module, state, case) if mixup else ""
        if named:
            generic = "Most likely your keys or your values come from `query`"
            message = failure.message
            start = message.find(generic)
            if start >= 0:
                stop = message.find("\n", start)
                message = message[:start] + named + (message[stop:] if stop >= 0 else "")
            else:
                message = f"{message}\n{named}"
            raise CheckFailure(failure.exercise, message, failure.learner_traceback) from None
        if (
            case.train
            and "never split into heads" not in failure.message
            and _runs_in_eval(module, args)
        ):
            # round 12 (blind12d-mha-dropout-heads-from-raw-value): a train-only line
            raise CheckFailure(
                failure.exercise,
                f"{failure.message}\n{_train_only_note(failure.message, case)}",
                failure.learner_traceback,
            ) from None
        if mask is not None and _runs_without_mask(module, query, key, value):
            expanded = ""
            if "expanded size" in failure.message and mask.dim() < 4:
                # round 12, blind12d-mha-mask-expanded-assumes-4d: the error is expand's
                expanded = (
                    f"\nThe error is expand's: your mask.expand(...) is written for a 4-D mask, "
                    f"(batch, 1, len_q, len_k), but this one is {mask.dim()}-D, "
                    f"{tuple(mask.shape)} (a look-ahead mask is (len_q, len_k)), and expand "
                    "cannot give -1 for an axis the tensor does not have. No expand is needed: "
                    "every mask the contract allows already broadcasts over the heads."
                )
            raise CheckFailure(
                failure.exercise,
                f"{failure.message}{expanded}\nYour forward runs on these inputs without a mask but "
                f"fails with this one, a bool mask of shape {tuple(mask.shape)}, which "
                f"already broadcasts to the scores (batch, num_heads, len_q, len_k) = "
                f"({b}, {h}, {lq}, {lk}): it already has its heads axis. Pass the mask to "
                "the attention as it is given: no mask.unsqueeze(...), view or expand "
                "(the Annotated Transformer's mask.unsqueeze(1) is for its 3-D masks).",
                failure.learner_traceback,
            ) from None
        raise
    pair = isinstance(result, tuple | list) and len(result) == 2
    length = f" of length {len(result)}" if isinstance(result, tuple | list) else ""
    c.expect_true(
        pair,
        f"{call} returned {type(result).__name__}{length}; forward should return a pair: "
        "(output, weights).",
    )
    output, weights = result
    what_o, what_w = f"the output of {call}", f"the weight tensor returned by {call}"
    reordered = reordered_return_note(result, [(b, lq, d), (b, h, lq, lk)], ["output", "weights"])
    c.expect_true(not reordered, f"{call}: {reordered}")
    c.expect_type(output, torch.Tensor, what_o)
    c.expect_type(weights, torch.Tensor, what_w)
    args4 = (query, key, value, mask)
    if heads_returned := _heads_returned_as_weights(output, weights, state, args4, h):
        c.fail(f"{what_w}: {heads_returned}")
    if tuple(output.shape) != (b, lq, d) or tuple(weights.shape) != (b, h, lq, lk):
        args4 = (query, key, value, mask)
        output_note, weights_note = _shape_notes(output, weights, state, case, args4)
        c.expect_shape(
            output,
            (b, lq, d),
            what_o,
            output_note
            or _values_only_note(output, state, args4)
            or _output_shape_hint(output.shape, case),
        )
        c.expect_shape(
            weights,
            (b, h, lq, lk),
            what_w,
            weights_note
            or _weights_shape_hint(
                weights.shape,
                b,
                h,
                lq,
                lk,
                d,
                fits=lambda k: _fits_heads(weights, state, args4, k),
            ),
        )
    # short names: the note about another float dtype is then printed once, not per case
    c.expect_floating(output, "the output of forward", preferred=query.dtype)
    c.expect_floating(weights, "the weight tensor returned by forward", preferred=query.dtype)
    if not output.requires_grad and graph_needs_input_grad(
        module, args, (torch.ones_like(output.detach()), None)
    ):  # a graph only for inputs that require grad (reentrant checkpointing)
        c.fail(
            f"{what_o} is cut off from the module's parameters (requires_grad is False). "
            f"{INPUT_GRAD_ONLY}"
        )
    c.expect_true(
        output.requires_grad,
        f"{what_o} is cut off from the module's parameters (requires_grad is False): did you "
        "use torch.no_grad(), .detach(), or go through numpy? Training needs the gradient to "
        "flow back to w_q, w_k, w_v and w_o.",
    )

    reference = ref.MultiHeadAttention(d, h).double().eval()
    reference.load_state_dict({name: tensor.double() for name, tensor in state.items()})
    with torch.no_grad():
        expected_out, expected_weights = reference(
            query.double(), key.double(), value.double(), mask
        )
    variant_args = (state, query, key, value, mask, h)
    tol = tolerance(output.dtype, weights.dtype, query.dtype)

    # The weights: before dropout (the contract), or, in training, after it (with a note).
    dropped_entirely = case.train and case.dropout == 1.0
    weight_mistakes = _only_agreeing(_mistake_values(_WEIGHT_MISTAKES, 1, variant_args), agree)
    # softmax of the unscaled scores, divided by sqrt(d_head) afterwards (blind13d)
    weight_mistakes[_SCALED_AFTER_SOFTMAX] = lambda: (
        multi_head_attention_f(*variant_args, scale="none")[1] / math.sqrt(d // h)
    )  # (batch, num_heads, len_q, len_k)
    weight_mistakes[_BOOL_MASK_ADDED] = lambda: _bool_mask_added_weights(variant_args)
    # the scale folded into a projection's input, its bias unscaled (blind31a)
    weight_mistakes.update(_only_agreeing(_scale_placement_part(variant_args, 1), agree))
    convention = None
    if (
        _leaks(weights, mask)
        # dropout on the masked scores (uniform weights at 1.0) has its own, exact reading
        and not (case.train and _scores_dropped_note(weights, dropped_entirely, module, args, mask))
        and (by_mode := _mask_by_mode_note(cls))
    ):
        # the mask ignored in some modes only: before any known mistake, which would name
        # the mask ignored (or never passed) outright (blind29a-mha-mask-dropped-in-dropout-
        # path; the eval-only slip was told "leaves out the argument mask")
        c.fail(f"{what_w} gives weight to keys the mask forbids. {by_mode}")
    if dropped_entirely and bool((weights.detach().abs() < 1e-6).all()):
        c.note(
            "in train mode your layer returns the attention weights after dropout (as "
            "nn.MultiheadAttention and the Annotated Transformer do). That is accepted; the "
            "reference returns them before dropout, the attention distribution itself. In "
            "eval mode, where weights are inspected, the two agree."
        )
    else:
        if dropped_entirely:
            uniform = multi_head_attention_f(*variant_args, uniform_weights=True)[1]
            if isinstance(weights, torch.Tensor) and weights.shape == uniform.shape:
                if torch.allclose(weights.detach().double(), uniform.double(), atol=1e-5):
                    # every score 0: which tensor the dropout zeroed, from a probe at p=0.5
                    weight_mistakes[zeroed_scores_cause(cls)] = uniform
        convention = expect_attention_weights(
            c,
            weights,
            mask,
            what_w,
            expected=expected_weights,
            mistakes=weight_mistakes,
            # pairs with a mistake only the output shows too (the keys and the values both
            # through w_q): the weights show one of the two, the agreement on every case's
            # output and weights keeps the pair that made both
            pairs=_only_agreeing(
                mistake_pairs(
                    lambda **knobs: multi_head_attention_f(*variant_args, **knobs)[1],
                    {message: knobs for knobs, message in (*_WEIGHT_MISTAKES, *_OUTPUT_MISTAKES)},
                ),
                agree,
            ),
            explain=lambda: (
                _heads_mixed(weights, state, query, key, mask, h)
                or _wrong_scale(weights, state, query, key, mask, h, agree)
                or ("" if case.train else row_by_row_note(row_right, b, size="query"))
            ),
            leak_explain=lambda: (
                _scores_dropped_note(weights, dropped_entirely, module, args, mask)
                if case.train
                else row_by_row_note(row_right, b, size="query")
            ),
            **tol,
        )

    # The output.
    if dropped_entirely:
        bias = state["w_o.bias"].double().expand(b, lq, d)  # heads all zero -> w_o(0) = bias
        rate = _dropout_rate_note(output, state, (query, key, value, mask), h, case.dropout, cls)
        right = torch.allclose(output.detach().double(), bias, atol=1e-5)
        if not rate and not right:
            rate = _probed_rate_note(cls, case.dropout)
        c.expect_true(
            rate == "" or right,
            f"{what_o}: {rate}",
        )
        _expect_rate_not_backwards(c, cls, case, state, args, output, what_o)
        if not bool(torch.isfinite(output.detach()).all()) and (
            renormalised := _renormalised_dropout_note(cls, nan=True)
        ):
            c.fail(f"{what_o} contains NaN. {renormalised}")
        c.expect_close(
            output,
            bias,
            what_o,
            **tol,
            hint="With dropout=1.0 in train mode, the output must be w_o's bias in every "
            "position: dropout acts on the attention weights, before they multiply the values.",
            mistakes={
                _DROPOUT_NOT_IN_TRAIN: expected_out,
                _DROPOUT_AFTER_W_O: torch.zeros(b, lq, d),
            },
        )
        return
    if convention not in (None, "zero"):  # the learner's own fully masked rows
        own = with_fully_masked_rows(expected_weights, mask, convention, like=weights)
        expected_out = multi_head_attention_f(*variant_args, weights=own)[0]
    hint = ""
    if case.dropout and not case.train:
        hint = _DROPOUT_IN_EVAL
        if _random_in_eval(module, args):
            c.fail(
                f"{what_o}: two calls on the same inputs, in eval mode, give two different "
                f"outputs, so something random still runs in eval mode. {_DROPOUT_IN_EVAL}"
            )
    elif case.train:
        hint = (
            "In train mode with dropout=0.0, dropout changes nothing: the layer must compute "
            "exactly what it computes in eval mode."
        )

        _expect_rate_not_backwards(c, cls, case, state, args, output, what_o)
        rate = _dropout_rate_note(output, state, (query, key, value, mask), h, case.dropout, cls)
        right = torch.allclose(output.detach().double(), expected_out, atol=1e-5)
        if not rate and not right:
            rate = _probed_rate_note(cls, case.dropout)
        c.expect_true(
            rate == "" or right,
            f"{what_o}: {rate}",
        )
    c.expect_close(
        output,
        expected_out,
        what_o,
        **tol,
        hint=hint,
        explain=lambda: (
            ""
            if case.train
            else row_by_row_note(row_right, b, size="query")
            or _output_terms_note(output, variant_args, tol)
        ),
        mistakes=_only_agreeing(
            {
                **_mistake_values(_OUTPUT_MISTAKES, 0, variant_args),
                **_extra_step_outputs(variant_args),
                **_scale_placement_part(variant_args, 0),
            },
            agree,
        ),
        pairs=_only_agreeing(
            mistake_pairs(
                lambda **knobs: multi_head_attention_f(*variant_args, **knobs)[0],
                {message: knobs for knobs, message in (*_WEIGHT_MISTAKES, *_OUTPUT_MISTAKES)},
            ),
            agree,
        ),
        axes=("batch", "len_q", "d_model"),
        num_heads=h,
    )
