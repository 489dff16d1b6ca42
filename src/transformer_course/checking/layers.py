"""The module helpers that the layer checks of lessons 07-11 share: building a learner's
module with the contract's keys, state-dict hints, result checks, and the values each
classic mistake gives. The float64 oracles those values come from live in
:mod:`transformer_course.checking.oracles`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from transformer_course.checking.axis_reductions import dropped_axis_note
from transformer_course.checking.checker import Checker
from transformer_course.checking.dropout_rates import confirmed_wrong_rates, wrong_rates_sentence
from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.graph import INPUT_GRAD_ONLY, graph_needs_input_grad
from transformer_course.checking.hints import two_mistakes
from transformer_course.checking.localise import diagnose, record_calls
from transformer_course.checking.mode_paths import MaskProbe, Mode, changed_at, masks_by_mode
from transformer_course.checking.modules import build_module, random_state, state_shapes
from transformer_course.checking.skipped_layers import layers_skipped_in_training
from transformer_course.checking.unused_parameters import (
    parameters_without_effect,
    unused_parameters_sentence,
)

__all__ = [
    "LAYER_HINTS",
    "build",
    "describe_mask",
    "dropout_hint",
    "dropout_rate_problem",
    "expect_composite",
    "expect_deterministic_in_eval",
    "expect_dropout_default_in_train",
    "expect_positional_order",
    "expect_tensor_result",
    "mistake_pairs",
    "mistake_values",
    "only_dropout_mistakes",
    "state_hint",
    "sublayer_inputs_agree",
    "two_mistakes",
    "value_or_none",
]


def describe_mask(mask: torch.Tensor | None, kind: str = "") -> str:
    if mask is None:
        return "None"
    return f"bool {tuple(mask.shape)}" + (f" ({kind})" if kind else "")


def mistake_values(
    compute: Callable[..., torch.Tensor], table: Mapping[str, Mapping[str, Any]]
) -> dict[str, Callable[[], torch.Tensor | None]]:
    """{message: zero-argument callable giving what that mistake computes, or None when
    the mistake cannot happen with these shapes}."""

    return {
        message: (lambda knobs=knobs: value_or_none(lambda: compute(**knobs)))
        for message, knobs in table.items()
    }


def only_dropout_mistakes(
    table: Mapping[str, Mapping[str, Any]],
    module: torch.nn.Module,
    args: tuple,
    eval_expected: torch.Tensor,
) -> dict[str, Mapping[str, Any]]:
    """For a train-mode case with dropout=1.0: when the learner's module, switched to eval
    mode on the same inputs, gives the reference's eval-mode result, no structural mistake
    can be what it made (each would show in eval mode too), so only the entries about
    dropout (knobs ``drop``/``dropout_at``) stay candidates. Otherwise ``table`` as it is."""
    was_training = module.training
    out = None
    try:
        module.eval()
        with torch.no_grad():
            out = module(*args)
    except Exception:
        out = None
    finally:
        module.train(was_training)
    if not (isinstance(out, torch.Tensor) and out.shape == eval_expected.shape):
        return dict(table)
    if not torch.allclose(out.double(), eval_expected, rtol=1e-4, atol=1e-5):
        return dict(table)
    return {
        m: k
        for m, k in table.items()
        if set(k) <= {"drop", "dropout_at", "no_dropout", "dropout_places"}
    }


def sublayer_inputs_agree(
    table: Mapping[str, Mapping[str, Any]],
    module: torch.nn.Module,
    call: Callable[[], Any],
    got: Any,
    compute: Callable[..., torch.Tensor],
    parts: Mapping[str, str],
    norms: Mapping[str, str],
) -> dict[str, Mapping[str, Any]]:
    """Of the entries of ``table`` that give the learner's output ``got``, those whose
    stream before each sub-layer (the oracle ``compute`` run over the sub-layers before it,
    ``order`` and ``norms`` cut there) is what that sub-layer of ``module`` received: a
    post-LN layer whose stream is zeroed (a dropout at rate 1 on a residual sum or on a
    norm's result) gives the same output wherever the zeroing sits, and only the streams in
    between tell which sub-layer's line it is. ``parts``: {oracle part: attribute},
    ``norms``: {part: its norm}. ``table`` as it is when fewer than two entries give the
    output, when the calls cannot be recorded (a module that differs from call to call),
    or when no entry would be left; entries with their own ``order`` or ``norms`` stay."""
    if not isinstance(got, torch.Tensor):
        return dict(table)

    def gives(knobs) -> bool:
        value = value_or_none(lambda: compute(**knobs))
        return (
            isinstance(value, torch.Tensor)
            and value.shape == got.shape
            and torch.allclose(got.detach().double(), value, rtol=1e-4, atol=1e-5)
        )

    matching = [m for m, knobs in table.items() if gives(knobs)]
    if len(matching) < 2:
        return dict(table)
    try:
        _, records = record_calls(module, list(parts.values()), call)
    except Exception:  # not reproducible, or the learner's module raised under hooks
        return dict(table)
    received = {}  # attribute -> the first input of its first call
    for name, first_input, _ in records:
        received.setdefault(name, first_input)
    order, norm_names = list(parts), [norms[part] for part in parts]

    def streams_agree(knobs) -> bool:
        if "order" in knobs or "norms" in knobs:
            return True
        for j in range(1, len(order)):
            seen = received.get(parts[order[j]])
            if not isinstance(seen, torch.Tensor):
                continue
            before = value_or_none(
                lambda j=j: compute(**knobs, order=tuple(order[:j]), norms=tuple(norm_names[:j]))
            )
            if not isinstance(before, torch.Tensor) or before.shape != seen.shape:
                continue
            if not torch.allclose(seen.detach().double(), before, rtol=1e-4, atol=1e-5):
                return False
        return True

    kept = [m for m in matching if streams_agree(table[m])]
    if not kept or len(kept) == len(matching):
        return dict(table)
    dropped = set(matching) - set(kept)
    return {m: knobs for m, knobs in table.items() if m not in dropped}


def mistake_pairs(
    compute: Callable[..., torch.Tensor], table: Mapping[str, Mapping[str, Any]]
) -> dict[str, Callable[[], torch.Tensor | None]]:
    """Two mistakes of ``table`` made at once: {both messages: zero-argument callable
    giving what they compute together}, for every two entries that turn different knobs
    (entries that set the same knob are alternatives, not a pair)."""
    items = list(table.items())
    out: dict[str, Callable[[], torch.Tensor | None]] = {}
    for index, (first, knobs) in enumerate(items):
        for second, more in items[index + 1 :]:
            if set(knobs) & set(more):
                continue
            joined = {**knobs, **more}
            out[two_mistakes(first, second)] = lambda joined=joined: value_or_none(
                lambda: compute(**joined)
            )
    return out


def value_or_none(compute: Callable[[], torch.Tensor | None]) -> torch.Tensor | None:
    """What a mistake computes, or None when it cannot happen with these shapes."""
    try:
        return compute()
    except (RuntimeError, IndexError, ValueError):
        return None


def _attention_weights_like(item: Any) -> bool:
    """A tensor of three axes or more, as attention weights (..., len_q, len_k) are (a
    loss is a number, a cache or a mask something else)."""
    return isinstance(item, torch.Tensor) and item.dim() >= 3


def _intermediate(pair: tuple) -> bool:
    """A pair (output, t) where t has the output's leading axes and another last one: an
    intermediate such as a feed-forward block's d_ff-wide hidden activations (round 12:
    such a pair was told it returned attention weights)."""
    out, other = pair
    return (
        isinstance(out, torch.Tensor)
        and isinstance(other, torch.Tensor)
        and other.dim() == out.dim()
        and other.shape[:-1] == out.shape[:-1]
        and other.shape[-1] != out.shape[-1]
    )


def expect_tensor_result(
    c: Checker,
    got: Any,
    shape: tuple,
    what: str,
    *,
    shape_hint: str = "",
    inputs: Mapping[str, torch.Tensor] | None = None,
    expected: Callable[[], torch.Tensor] | None = None,
    axis_names: Sequence[str] | None = None,
    module: Any = None,
    rerun: Callable[[], Any] | None = None,
) -> None:
    """Type, shape, floating dtype and a gradient path, before any value is compared.
    ``module`` and ``rerun`` (the call again): a result cut off from the parameters is
    told whether the parameters have any effect on it at all.
    ``inputs``: the call's tensors by name; a result cut off from the parameters that is
    one of them, unchanged, is said to be that input (blind8d-decoder-discards-layer-
    outputs, a stack returning its input, was told about torch.no_grad and .detach).
    ``expected``: the right result (computed only when the shape is wrong), whose axes
    ``axis_names`` names: a result with one axis fewer that is the right one pooled or
    indexed over that axis is said to be so (checking.axis_reductions)."""
    if expected is not None and isinstance(got, torch.Tensor) and tuple(got.shape) != tuple(shape):
        try:
            pooled = dropped_axis_note(got, expected(), axis_names)
        except Exception:  # a probe: the plain shape message stands
            pooled = ""
        shape_hint = f"{shape_hint} {pooled}".strip()
    pair = (
        f" Yours returns a tuple of {len(got)} ("
        + ", ".join(type(item).__name__ for item in got)
        + (
            "): return the output alone, not the attention weights with it (a sub-layer's "
            "(output, weights) pair is indexed [0] before it goes on)."
            if len(got) == 2 and _attention_weights_like(got[1]) and not _intermediate(got)
            else f"): return the output alone, not an intermediate with it (the second item, "
            f"{tuple(got[1].shape)}, has the output's leading axes and another width: a "
            "hidden activation kept for inspection?)."
            if len(got) == 2 and _intermediate(got)
            else "): return the output alone (a (logits, loss) pair, as nanoGPT's forward "
            "returns, or anything else beside the output, is not this contract's)."
        )
        if isinstance(got, tuple)
        else ""
    )
    c.expect_type(
        got, torch.Tensor, what, f"forward should return one tensor (return x at the end).{pair}"
    )
    c.expect_shape(got, shape, what, shape_hint)
    c.expect_floating(got, what, preferred=torch.float32)
    if not got.requires_grad:
        for name, given in (inputs or {}).items():
            if (
                isinstance(given, torch.Tensor)
                and given.shape == got.shape
                and torch.equal(given.detach(), got.detach())
            ):
                # blind24b-dec-layerdrop-with-dropout-rate: every layer skipped in training
                skipped = (
                    layers_skipped_in_training(module, rerun)
                    if module is not None and rerun is not None
                    else ""
                )
                if skipped:
                    c.fail(f"{what} is its input `{name}` itself, unchanged. {skipped}")
                c.fail(
                    f"{what} is its input `{name}` itself, unchanged: nothing your module "
                    "computes reaches what it returns. Did forward return its input instead "
                    "of the result, or call each layer (sub-layer) without keeping what it "
                    f"returns, `layer({name}, ...)` where `{name} = layer({name}, ...)` "
                    "belongs?"
                )
    if not got.requires_grad and module is not None and rerun is not None:
        if unused := unused_parameters_sentence(module, rerun):
            c.fail(f"{what} does not depend on the module's parameters. {unused}")
    if not got.requires_grad and (input_grad := _input_grad_only(c, got)):
        c.fail(
            f"{what} is cut off from the module's parameters (requires_grad is False). {input_grad}"
        )
    c.expect_true(
        got.requires_grad,
        f"{what} is cut off from the module's parameters (requires_grad is False). Did you "
        "use torch.no_grad(), .detach(), or go through numpy, or store a weight as a plain "
        "tensor or buffer instead of an nn.Parameter? Training needs the gradient to reach "
        "every weight.",
    )


def _input_grad_only(c: Checker, got: torch.Tensor) -> str:
    """For a result cut off from the parameters: the graph built only when an input
    requires grad (checking.graph.graph_needs_input_grad), tried on the check's last call
    of a module built from the answer, made again with its inputs requiring grad; "" when
    that call is not at hand (keyword arguments, no module) or the probe does not show it."""
    record = c.recorded[-1] if c.recorded else None
    if record is None or record.constructed or record.target is None or record.kwargs:
        return ""
    if not hasattr(record.target, "state_dict"):
        return ""  # a function answer: no parameters of its own
    result = record.result
    if not isinstance(result, torch.Tensor) or tuple(result.shape) != tuple(got.shape):
        return ""  # not the call whose result this is
    return INPUT_GRAD_ONLY if graph_needs_input_grad(record.target, record.args) else ""


def stacked_layers_hint(got: Any, shape: tuple, num_layers: int, default: str) -> str:
    """A stack's result with a leading axis of num_layers: every layer's output kept and
    stacked (blind10g-encoder-returns-every-layer-output: the contract's shape restated)."""
    if num_layers > 1 and tuple(getattr(got, "shape", ())) == (num_layers, *shape):
        return (
            f"Yours has one axis more, in front, of size {num_layers} = num_layers: every "
            "layer's output, stacked (as output_hidden_states keeps them). The stack returns "
            "the last layer's output alone (through the final norm when there is one), shaped "
            "as x."
        )
    return default


def expect_composite(
    c: Checker,
    got: torch.Tensor,
    expected: torch.Tensor,
    what: str,
    *,
    rtol: float,
    atol: float,
    mistakes: Mapping[str, Any],
    localise: Callable[[], str] | None = None,
    hint: str | Callable[[], str] = "",
) -> None:
    """A composite module's output against the reference: when it differs, the one
    structural mistake that matches is named (all of them when several match on these
    inputs), else ``localise()`` says which sub-result first departs, else ``hint``."""
    c.expect_close(
        got,
        expected,
        what,
        rtol=rtol,
        atol=atol,
        explain=lambda: diagnose(got, mistakes, rtol=rtol, atol=atol, localise=localise),
        hint=hint,
    )


_TUPLE_HINT = (
    "MultiHeadAttention (lesson 05) returns a pair, (output, weights): take the output, "
    "`self.self_attn(q, k, v, mask)[0]`."
)
_FOUR_AXES_HINT = (
    "The stream x is (batch, len, d_model), three axes; it met a tensor with four. In a "
    "layer that is the attention weights (batch, num_heads, len_q, len_k), taken where the "
    "attention's output belongs (MultiHeadAttention returns (output, weights): the residual "
    "adds [0], not [1]), or a mask added to the stream (masks go into the attention only)."
)
#: hints for errors a learner's layer or stack raises (on top of the generic ones)
LAYER_HINTS = [
    (
        lambda exc: "tuple" in str(exc) and ("Tensor" in str(exc) or "'tuple'" in str(exc)),
        _TUPLE_HINT,
    ),
    (
        lambda exc: (
            isinstance(exc, RuntimeError)
            and "must match the size of tensor" in str(exc)
            and "non-singleton dimension 3" in str(exc)
        ),
        _FOUR_AXES_HINT,
    ),
    (
        # blind10g-enc-layer-mask-in-value-slot: self_attn(x, x, mask) was the raw error only
        "must be Tensor, not NoneType",
        "A None reached a layer where a tensor goes. In a layer that is usually an argument "
        "left out of a call: self_attn(x, x, mask) puts the mask in the value slot (None when "
        "there is no mask), where MultiHeadAttention takes four, (query, key, value, mask); or "
        "a helper of yours that has no `return`. Count the arguments on the line shown below.",
    ),
    (
        lambda exc: "Bool and Float" in str(exc) or "Float and Bool" in str(exc),
        "A bool tensor, a mask, reached a matrix product where the stream goes: a mask in the "
        "wrong argument slot, such as self_attn(x, x, mask), which puts the mask where value "
        "goes (MultiHeadAttention takes four, (query, key, value, mask)), or masks passed in "
        "another order than the signature's. Count the arguments on the line shown below.",
    ),
    (
        "cannot assign 'list' as child module",
        "A Python list cannot replace a submodule, and a plain list attribute does not register "
        "its modules at all: use nn.ModuleList([...]).",
    ),
]


def dropout_hint(case_dropout: float, mode: str) -> str:
    if mode == "eval" and case_dropout > 0:
        return (
            f"The module was built with dropout={case_dropout} and switched to eval(), where "
            "dropout must do nothing: use nn.Dropout modules (they follow train()/eval()), or "
            "F.dropout(..., training=self.training)."
        )
    return ""


def _output(module: Any, args: tuple) -> torch.Tensor | None:
    """The module's (first) output for ``args`` without a graph, or None."""
    out = module(*args)
    out = out[0] if isinstance(out, tuple) and out else out
    return out.detach() if isinstance(out, torch.Tensor) else None


def _calls_agree(module: Any, args: tuple) -> bool:
    """Two calls of a train-mode module on the same inputs give the same result."""
    first, second = _output(module, args), _output(module, args)
    return (
        first is not None
        and second is not None
        and first.shape == second.shape
        and torch.allclose(first.double(), second.double(), rtol=0, atol=1e-12)
    )


def _owner(module: Any) -> str:
    return f"your {type(module).__name__}"


def _nan_only_in_train(module: Any, args: tuple, got: torch.Tensor) -> str:
    """For a train-mode case with dropout=1.0: a result with NaN or inf that the same
    module in eval mode does not give comes from a dropout written by hand that divides
    what it keeps by 1 - p, 0 at p = 1 (nn.Dropout returns zeros there); "" otherwise."""
    if not isinstance(got, torch.Tensor) or bool(torch.isfinite(got.detach()).all()):
        return ""
    try:
        module.eval()
        evaluated = _output(module, args)
    except Exception:
        return ""
    finally:
        module.train()
    if evaluated is None or not bool(torch.isfinite(evaluated).all()):
        return ""
    return (
        "In train mode with dropout=1.0 yours gives NaN or inf, and in eval mode it gives "
        "finite values: a dropout written by hand divides what it keeps by 1 - p, which is "
        "0 at p = 1 (x * keep / (1 - p) with keep all zeros is 0 / 0). nn.Dropout(p) handles "
        "p = 1 (it returns zeros): use nn.Dropout(dropout) on each sub-layer's output, "
        "which drops single elements, instead of a dropout function of your own."
    )


def dropout_rate_problem(module: Any, args: tuple, got: torch.Tensor, case_dropout: float) -> str:
    """For a train-mode case with dropout=1.0 or 0.0, where every dropout zeroes or keeps its
    whole input and the result is the same at every call: a second call that gives another
    result means a dropout with another rate runs (built from a fixed rate, not the
    argument); with dropout=1.0, a result equal to the module's eval-mode one means no
    dropout acts at all. "" when the second call agrees, raises, or the case is another."""
    if case_dropout not in (0.0, 1.0) or not module.training:
        return ""
    if case_dropout == 1.0:
        divided = _nan_only_in_train(module, args, got)
        if divided:
            return divided
    try:
        with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            again = module(*args)
    except Exception:
        return ""
    again = again[0] if isinstance(again, tuple) and again else again
    if not isinstance(again, torch.Tensor) or again.shape != got.shape:
        return ""
    if torch.allclose(
        again.detach().double(), got.detach().double(), rtol=0, atol=1e-12, equal_nan=True
    ):  # NaN at the same places at every call is no change (0 / (1 - p) at p = 1)
        if case_dropout == 0.0:
            return ""
        try:  # the same at every call: no dropout acting at all is the other case
            module.eval()
            with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
                evaluated = module(*args)
        except Exception:
            return ""
        finally:
            module.train()
        evaluated = evaluated[0] if isinstance(evaluated, tuple) and evaluated else evaluated
        if (
            isinstance(evaluated, torch.Tensor)
            and evaluated.shape == got.shape
            and torch.allclose(evaluated.detach().double(), got.detach().double(), atol=1e-9)
        ):
            wrong = confirmed_wrong_rates(
                module,
                case_dropout,
                lambda: (
                    _output(module, args) is not None
                    and not torch.allclose(_output(module, args).double(), got.double(), atol=1e-9)
                ),
            )
            if wrong:
                return wrong_rates_sentence(module, wrong, case_dropout, _owner(module))
            return (
                "In train mode with dropout=1.0 yours gives exactly what it gives in eval mode: "
                "no dropout acts anywhere. Every dropout is built from the dropout argument: "
                "pass dropout on to every sub-module you build (a layer built without it gets "
                "the default, 0.0)."
            )
        return ""
    effect = "zeroes all it gets" if case_dropout == 1.0 else "keeps all it gets"
    wrong = confirmed_wrong_rates(module, case_dropout, lambda: _calls_agree(module, args))
    if wrong:
        return (
            f"In train mode with dropout={case_dropout} every dropout {effect}, so the result "
            "is the same at every call; yours changes from one call to the next. "
            + wrong_rates_sentence(module, wrong, case_dropout, _owner(module))
        )
    return (
        f"In train mode with dropout={case_dropout} every dropout {effect}, so the result is "
        "the same at every call; yours changes from one call to the next: a dropout with another "
        "rate runs (an nn.Dropout built with a fixed rate such as 0.1 instead of the dropout "
        "argument). Build every dropout from the argument, nn.Dropout(dropout), and pass "
        "dropout on to every sub-module you build."
    )


def expect_deterministic_in_eval(
    c: Checker, module: Any, args: tuple, got: torch.Tensor, call: str, case_dropout: float
) -> None:
    """An eval-mode module built with dropout > 0 must give the same result twice: when a
    second call on the same inputs gives another, dropout is still active, whatever else
    may be wrong (the one cause of randomness in these modules)."""
    again = c.call(module, *args, call_repr=f"{call}, a second time")
    same = (
        isinstance(again, torch.Tensor)
        and again.shape == got.shape
        and torch.allclose(again.detach().double(), got.detach().double(), rtol=0, atol=1e-12)
    )
    c.expect_true(
        same,
        f"{call} gave two different results for the same input in eval mode: dropout is still "
        f"active (the module was built with dropout={case_dropout}, then switched to eval()). "
        "nn.Dropout modules follow train()/eval(); the functional F.dropout(h, p) defaults to "
        "training=True, so pass training=self.training, or call the module's self.dropout.",
    )


def expect_sublayers_dropped(
    c: Checker,
    module: Any,
    parts: Mapping[str, tuple[tuple, str, str]],
    state: Mapping[str, torch.Tensor],
    call: str,
) -> None:
    """Train mode, dropout=1.0: every dropout zeroes its input, so each sub-layer built with
    the layer's dropout returns its last Linear's bias alone (the attention weights, or
    the hidden activations, all dropped). A sub-layer that still attends or computes was
    built without that dropout, which the layer's own output cannot show: its residual
    dropout zeroes the whole sub-layer (blind10g-enc-layer-attention-without-dropout was
    accepted). ``parts``: attribute -> (its call's arguments, the state key of that bias,
    the constructor the contract names)."""
    for name, (args, bias_key, constructor) in parts.items():
        sub = getattr(module, name, None)
        if not callable(sub) or bias_key not in state:
            continue  # a missing sub-layer is said by the state-dict check
        out = c.call(sub, *args, call_repr=f"layer.{name}(...) in {call}")
        out = out[0] if isinstance(out, tuple) and out else out
        bias = state[bias_key].detach().double()
        dropped = (
            isinstance(out, torch.Tensor)
            and out.shape[-1:] == bias.shape
            and torch.allclose(out.detach().double(), bias.expand(out.shape), rtol=0, atol=1e-5)
        )
        if not dropped:
            wrong = confirmed_wrong_rates(
                module,
                1.0,
                lambda sub=sub, args=args, bias=bias: _returns_bias(sub, args, bias),
                name,
            )
            c.expect_true(
                not wrong,
                f"In {call}, every dropout zeroes its input, so `layer.{name}` called alone "
                f"should return only the bias of its last Linear ({bias_key}), and yours does "
                "not. " + wrong_rates_sentence(module, wrong, 1.0, _owner(module)),
            )
        c.expect_true(
            dropped,
            f"In {call}, every dropout zeroes its input, so `layer.{name}` called alone should "
            f"return only the bias of its last Linear ({bias_key}): everything before it "
            "dropped. Yours does not: the sub-layer was not built with the layer's dropout (no "
            "rate, or another one). The layer's output cannot show it, since its residual "
            f"dropout zeroes the whole sub-layer, but training would: build it as {constructor}.",
        )


def _returns_bias(sub: Any, args: tuple, bias: torch.Tensor) -> bool:
    """``sub(*args)`` is its last Linear's ``bias`` alone, broadcast over the positions."""
    out = _output(sub, args)
    return (
        out is not None
        and out.shape[-1:] == bias.shape
        and torch.allclose(out.double(), bias.expand(out.shape), rtol=0, atol=1e-5)
    )


def _layers_elsewhere_hint(found: Mapping[str, tuple], expected: Mapping[str, tuple]) -> str:
    """No `layers.*` key: say where the layers' weights are (another name, one layer only)
    or, when no layer's weights are registered anywhere, that a plain list hides them."""
    one_layer = {key.split(".", 2)[2] for key in expected if key.startswith("layers.0.")}
    num_layers = len({key.split(".")[1] for key in expected if key.startswith("layers.")})
    holders: dict[str, set[str]] = {}
    for key in set(found) - set(expected):
        for suffix in one_layer:
            if key.endswith("." + suffix):
                holders.setdefault(key[: -len(suffix) - 1], set()).add(suffix)
    whole = sorted(prefix for prefix, suffixes in holders.items() if suffixes == one_layer)
    if len(whole) == 1 and num_layers > 1:
        return (
            f"Your stack registers the weights of one layer only, under `{whole[0]}.*`, where "
            f"the contract has {num_layers} independent layers, `layers.0.*` ... "
            f"`layers.{num_layers - 1}.*`: a single layer object (applied once, or reused at "
            "every step, which makes all the steps share one set of weights). Build num_layers "
            "layers: self.layers = nn.ModuleList([... for _ in range(num_layers)])."
        )
    if whole:
        shown = ", ".join(f"`{prefix}`" for prefix in whole[:4])
        return (
            f"Your layers are registered, but under other names ({shown}): the contract names "
            "them `layers.0`, `layers.1`, ...: self.layers = nn.ModuleList([...])."
        )
    return (
        "No `layers.*` keys at all: a plain Python list does not register its modules "
        "with PyTorch (their weights are invisible to state_dict, .parameters() and the "
        "optimizer). Use nn.ModuleList([...]) and name it `self.layers`."
    )


def state_hint(found: Mapping[str, tuple], expected: Mapping[str, tuple]) -> str:
    """Explain a state dict whose keys or shapes differ from the contract's."""
    missing = set(expected) - set(found)
    hints = []
    if any(key.startswith("layers.") for key in expected) and not any(
        key.startswith("layers.") for key in found
    ):
        hints.append(_layers_elsewhere_hint(found, expected))
    layer_numbers = {int(key.split(".")[1]) for key in expected if key.startswith("layers.")}
    found_numbers = {
        int(key.split(".")[1])
        for key in found
        if key.startswith("layers.") and key.split(".")[1].isdigit()
    }
    if found_numbers and found_numbers != layer_numbers:
        hints.append(
            f"Your stack has {len(found_numbers)} layer{'s' if len(found_numbers) != 1 else ''}, the contract {len(layer_numbers)}: "
            "create num_layers layers (range(num_layers))."
        )
    if "norm.weight" in found and "norm.weight" not in expected:
        hints.append(
            "It has a final LayerNorm `norm` that this configuration must not have: with "
            "final_norm=None the stack gets one only when norm_first=True (pre-LN), and with "
            "final_norm=False never. Set self.norm = None otherwise."
        )
    if "norm.weight" in missing:
        hints.append(
            "It lacks the final LayerNorm `norm`: with final_norm=True, or with final_norm=None "
            "and norm_first=True (pre-LN), the stack ends with self.norm = LayerNorm(d_model)."
        )
    if any(".in_proj_weight" in key for key in found):
        hints.append(
            "nn.MultiheadAttention fuses q, k, v into `in_proj_weight`; use lesson 05's "
            "MultiHeadAttention (imported in the setup cell), whose projections are w_q, w_k, "
            "w_v, w_o."
        )
    if any(key.split(".")[-2] in {"linear1", "linear2"} for key in found if "." in key):
        hints.append(
            "`linear1`/`linear2` are nn.TransformerEncoderLayer's names; here the feed-forward "
            "block is `feed_forward` = PositionwiseFeedForward(...), with w_1 and w_2 inside."
        )
    if any(key.split(".")[0] in {"a_2", "b_2", "gamma", "beta"} for key in found):
        hints.append(
            "The gain and bias are called `weight` and `bias` here (nn.LayerNorm's names; the "
            "Annotated Transformer calls them a_2 and b_2)."
            if any(key.split(".")[-1] == "bias" for key in expected)
            else "The gain is called `weight` here (nn.RMSNorm's name), and there is no bias."
        )
    numbered = sorted(key for key in found if any(part.isdigit() for part in key.split(".")))
    if numbered and not any(key.startswith("layers.") for key in found):
        hints.append(
            f"Keys such as {numbered[0]!r} come from nn.Sequential, which names its parts by "
            "position. The maths is the same, but the weights are loaded by name: keep the two "
            "nn.Linear as attributes `w_1` and `w_2`."
        )
    for key, shape in expected.items():
        if key in found and found[key] != tuple(shape) and key.endswith("w_1.weight"):
            d_ff, d_model = shape
            if found[key] == (4 * d_model, d_model):
                hints.append(
                    f"w_1 is {4 * d_model} wide, 4 * d_model, but d_ff={d_ff} was asked for: the "
                    "hidden width is the d_ff argument (the paper's 2048 = 4 * 512 is a choice "
                    "passed in, not a rule)."
                )
            else:
                hints.append("w_1 is nn.Linear(d_model, d_ff) and w_2 nn.Linear(d_ff, d_model).")
    return " ".join(dict.fromkeys(hints))


#: a state dict whose keys differ from the contract's by the final norm alone
_ONLY_FINAL_NORM = re.compile(
    r"missing: (none|\['norm\.bias', 'norm\.weight'\]), "
    r"unexpected: (none|\['norm\.bias', 'norm\.weight'\])\."
)


def _final_norm_unused(
    failure: CheckFailure, cls, case: Any, inputs: Callable[[], tuple]
) -> CheckFailure | None:
    """A stack that builds a final LayerNorm `norm` this configuration must not have, and
    never applies it: the decision kept in a flag that forward reads, the norm built all
    the same (blind14g-enc-norm-always-built). Its values are right; what is wrong is the
    module attribute that the contract says is None. Found by building the learner's stack
    as the case asks and changing `norm`'s parameters: the output does not move. None when
    the norm is used (the usual message, "a final LayerNorm it must not have", stands)."""
    kwargs = {"dropout": case.dropout, "norm_first": case.norm_first}
    if case.final_norm is not None:
        kwargs["final_norm"] = case.final_norm
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            torch.manual_seed(case.seed)
            module = cls(case.num_layers, case.d_model, case.num_heads, case.d_ff, **kwargs)
            module.eval()
            args = inputs()
    except Exception:
        return None
    norm_names = [name for name, _ in module.named_parameters() if name.startswith("norm.")]
    if not norm_names:
        return None
    unused = parameters_without_effect(module, lambda: module(*args))
    if not set(norm_names) <= set(unused):
        return None
    built, _, _ = failure.message.partition(" should have the state-dict keys")
    keys = ", ".join(norm_names)
    return CheckFailure(
        failure.exercise,
        f"{built} has a final LayerNorm `norm` that it never applies: changing its "
        f"parameters ({keys}) leaves the output exactly as it was, so the values are right, "
        "but this configuration has no final norm at all (final_norm=False, or None with "
        "norm_first=False), and then the contract's `norm` is None, as in "
        f"nn.Transformer{failure.exercise}(norm=None): a LayerNorm built all the same and kept aside "
        f"behind a flag adds the unexpected state-dict keys {keys}, which the checks and "
        "the later lessons' checkpoints do not have. Build it only when it is used: "
        "self.norm = LayerNorm(d_model) if <the stack has a final norm> else None, and in "
        "forward apply it `if self.norm is not None`.",
        failure.learner_traceback,
    )


def also_wrong_besides_final_norm(
    failure: CheckFailure,
    cls,
    case: Any,
    check_case: Callable[..., None],
    inputs: Callable[[], tuple] | None = None,
) -> CheckFailure:
    """``failure`` (a stack whose only wrong keys are the final norm's), with what else is
    wrong: the stack checked again in the configuration whose final norm the learner's
    stack has (final_norm=True when it has one, False when not), so that a second mistake
    (layers not chained, a mask not passed on) is named too, not hidden behind the first.
    ``check_case(c, cls, case, probe=True)`` is the stack's check of one case; ``inputs()``:
    the arguments of the stack's forward, to ask whether an unwanted norm is applied at all
    (:func:`_final_norm_unused`)."""
    if not _ONLY_FINAL_NORM.search(failure.message):
        return failure
    has_norm = "must not have" in failure.message
    if (
        has_norm
        and inputs is not None
        and (unused := _final_norm_unused(failure, cls, case, inputs))
    ):
        return unused
    probe = Checker(failure.exercise)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            check_case(probe, cls, dataclasses.replace(case, final_norm=has_norm), probe=True)
    except CheckFailure as second:
        if _ONLY_FINAL_NORM.search(second.message) or "state-dict keys" in second.message:
            return failure
        return CheckFailure(
            failure.exercise,
            f"{failure.message}\nA second mistake: checked again with final_norm={has_norm}, "
            f"where your stack's final norm is right, {second.message}",
            failure.learner_traceback or second.learner_traceback,
        )
    except Exception:  # the probe itself broke: the first finding stands alone
        return failure
    return failure


def build(
    c: Checker, cls, *args, name: str, reference: torch.nn.Module, seed: int, mode: str, **kw
):
    """Build the learner's module with the reference's state-dict keys and the check's
    deterministic weights; returns (module, constructor text, float32 state)."""
    expected = state_shapes(reference)
    state = random_state(expected, seed)
    module, built = build_module(
        c,
        cls,
        *args,
        name=name,
        expected_shapes=expected,
        keys_hint=lambda found: state_hint(found, expected),
        state=state,
        mode=mode,
        **kw,
    )
    return module, built, state


def _seeded_outputs(
    cls: Any, args: tuple, builds: list[dict[str, Any]], inputs: tuple, mode: str, seed: int
) -> list[torch.Tensor]:
    """The first output of cls(*args, *positional, **keywords), for each build {"positional":
    (...), "keywords": {...}}, every one holding the same random parameters (those of the
    first build; a parameter another build lacks or shapes otherwise keeps its own) and run
    in ``mode`` under the same seed, so that dropout at one rate draws the same masks."""
    outputs = []
    state = None
    with contextlib.redirect_stdout(io.StringIO()):
        for spec in builds:
            torch.manual_seed(seed)  # what the state leaves to the module's own init
            module = cls(*args, *spec.get("positional", ()), **spec.get("keywords", {}))
            if state is None:
                state = random_state(state_shapes(module), seed)
            own = dict(module.named_parameters(remove_duplicate=False))
            fits = {k: v for k, v in state.items() if k in own and own[k].shape == v.shape}
            module.load_state_dict(fits, strict=False)
            getattr(module, mode)()
            torch.manual_seed(seed)
            with torch.no_grad():
                out = module(*inputs)
            out = out[0] if isinstance(out, tuple) else out
            if not isinstance(out, torch.Tensor):
                raise TypeError(type(out).__name__)
            outputs.append(out.detach().double())
    return outputs


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)


def expect_dropout_default_in_train(
    c: Checker, cls: Any, args: tuple, inputs: tuple, name: str, *, seed: int = 0
) -> None:
    """``cls(*args)`` in train mode must compute what ``cls(*args, dropout=0.0)`` computes
    (the same weights, the same seed): the defaults are compared in eval mode, where a
    default dropout rate of 0.1 (the paper's, blind15g-enc-dropout-default-paper-rate) acts
    as 0 and was accepted. The rate at fault is named when building with it explicitly
    reproduces the default build's draws. Constructors that raise are left alone."""
    given = ", ".join(map(repr, args))
    try:
        explicit, implicit = _seeded_outputs(
            cls, args, [{"keywords": {"dropout": 0.0}}, {}], inputs, "train", seed
        )
    except Exception:  # said by the checks that build it with every keyword
        return
    if _same(explicit, implicit):
        return
    rate = ""
    for candidate in (0.1, 0.2, 0.3, 0.5):
        try:
            (with_rate,) = _seeded_outputs(
                cls, args, [{"keywords": {"dropout": candidate}}], inputs, "train", seed
            )
        except Exception:
            continue
        if _same(with_rate, implicit):
            rate = f" Yours is {candidate} (built with dropout={candidate}, it draws the same)."
            break
    c.fail(
        f"{name}({given}), built with its default dropout, gives another result in train "
        f"mode than {name}({given}, dropout=0.0), with the same weights and the same random "
        f"seed: your default dropout rate is not 0.0, the contract's.{rate} Make it "
        "`dropout: float = 0.0`: a model that wants the paper's 0.1 passes it explicitly, and "
        "a caller that leaves it out expects no dropout at all."
    )


def expect_positional_order(
    c: Checker,
    cls: Any,
    args: tuple,
    keywords: Mapping[str, Any],
    inputs: tuple,
    name: str,
    *,
    seed: int = 0,
    caller: str = "",
) -> None:
    """``cls(*args, *keywords.values())`` must compute what ``cls(*args, **keywords)``
    computes (eval mode, the same weights: deterministic, also where the learner's code runs
    in another process and a seed set here does not reach it): ``keywords`` in the
    contract's order, with values that tell the parameters apart. The checks pass them by keyword, so a signature with two
    of them in the other order (blind15g-enc-signature-norm-first-final-norm-swapped) was
    accepted, while a later lesson passes them positionally. The two exchanged are named
    when passing them by keyword in each other's place reproduces the positional build."""
    given = ", ".join(map(repr, args))
    try:
        by_keyword, by_position = _seeded_outputs(
            cls,
            args,
            [{"keywords": dict(keywords)}, {"positional": tuple(keywords.values())}],
            inputs,
            "eval",
            seed,
        )
    except Exception:  # said by the checks that build it by keyword
        return
    if _same(by_keyword, by_position):
        return
    names = list(keywords)
    # a second set of values (each flag flipped): a rotation of three parameters can match
    # one exchange on the first set by truthiness alone; an exchange must match on both
    flipped = {k: (not v if isinstance(v, bool) else v) for k, v in keywords.items()}

    def exchange_matches(first: str, second: str) -> bool:
        for values in (keywords, flipped):
            exchanged = {**values, first: values[second], second: values[first]}
            # the keyword build first: its parameters, as in the positional build
            _, by_position, got = _seeded_outputs(
                cls,
                args,
                [
                    {"keywords": dict(values)},
                    {"positional": tuple(values.values())},
                    {"keywords": exchanged},
                ],
                inputs,
                "eval",
                seed,
            )
            if not _same(got, by_position):
                return False
        return True

    swapped = ""
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            try:
                matches = exchange_matches(first, second)
            except Exception:
                continue
            if matches:
                swapped = (
                    f" Passed by position, your {first} and {second} are exchanged: "
                    f"{name}({given}, {', '.join(map(repr, keywords.values()))}) computes "
                    f"what {first}={keywords[second]!r}, {second}={keywords[first]!r} "
                    "computes, so your signature has these two parameters in each other's "
                    "places."
                )
                break
        if swapped:
            break
    contract = ", ".join(f"{key}={value!r}" for key, value in keywords.items())
    c.fail(
        f"{name}({given}, {', '.join(map(repr, keywords.values()))}), its arguments passed by "
        f"position, gives another result (eval mode, the same weights) than {name}({given}, "
        f"{contract}) by keyword: the parameters of your __init__ are not in the contract's "
        f"order, ({', '.join(names)}) after the sizes.{swapped}" + (f" {caller}" if caller else "")
    )


def masks_by_mode_note(
    cls, name: str, ctor_args: tuple, d_model: int, *, decoder: bool, seed: int
) -> str:
    """A layer or stack of lessons 07-08 whose masks hold in some modes and not in others
    (checking.mode_paths): a training branch that drops the mask (``if self.training:
    mask = None``), or an eval branch that does. Built as ``cls(*ctor_args, dropout=...,
    norm_first=False)`` per mode (seeded alike), called as the contract calls it with a
    padding mask (the encoder's) or a source padding mask and a look-ahead mask (the
    decoder's); "" when no mask splits the modes."""
    stack = len(ctor_args) == 4  # (num_layers, d_model, num_heads, d_ff)
    gen = torch.Generator().manual_seed(seed)
    lengths = torch.tensor([[5], [3]])
    padding = (torch.arange(5) < lengths)[:, None, None, :]  # (2, 1, 1, 5)
    padded = ~padding[:, 0, 0, :]  # (2, 5)
    if not decoder:
        x = torch.randn(2, 5, d_model, generator=gen)
        changed = changed_at(x, padded, seed=seed + 1)
        to = "every layer" if stack else "the self-attention"
        call = "layer(x, mask)" if stack else "self.self_attn(x, x, x, mask)"
        probes = [
            MaskProbe(
                (x, padding),
                (changed, padding),
                padding[:, 0, 0, :, None],  # (2, 5, 1): the real positions' rows
                "the output at the real positions changes when x changes at the padded ones: "
                "the mask is ignored there",
                f"Pass the mask to {to} on every path: {call}.",
            )
        ]
        masks = f"a padding mask, bool {tuple(padding.shape)}"
    else:
        x = torch.randn(2, 4, d_model, generator=gen)
        memory = torch.randn(2, 5, d_model, generator=gen)
        tgt = torch.tril(torch.ones(4, 4, dtype=torch.bool)).expand(2, 1, 4, 4)
        last = torch.zeros(2, 4, dtype=torch.bool)
        last[:, -1] = True
        earlier = ~last[0][None, :, None]  # (1, 4, 1): the rows before the last
        src_call = (
            "layer(x, memory, src_mask, tgt_mask)"
            if stack
            else "self.cross_attn(x, memory, memory, src_mask)"
        )
        tgt_call = (
            "layer(x, memory, src_mask, tgt_mask)" if stack else "self.self_attn(x, x, x, tgt_mask)"
        )
        src_to = "every layer" if stack else "the cross-attention"
        tgt_to = "every layer" if stack else "the self-attention"
        probes = [
            MaskProbe(
                (x, memory, padding, tgt),
                (x, changed_at(memory, padded, seed=seed + 1), padding, tgt),
                None,
                "the output changes when memory changes at the source positions src_mask "
                "blocks: src_mask is ignored there",
                f"Pass src_mask to {src_to} on every path: {src_call}.",
            ),
            MaskProbe(
                (x, memory, padding, tgt),
                (changed_at(x, last, seed=seed + 2), memory, padding, tgt),
                earlier,
                "the output at the earlier target positions changes when x changes at the "
                "last one: tgt_mask (the look-ahead) is ignored there",
                f"Pass tgt_mask to {tgt_to} on every path: {tgt_call}.",
            ),
        ]
        masks = (
            f"src_mask, bool {tuple(padding.shape)} (source padding), and tgt_mask, bool "
            f"{tuple(tgt.shape)} (look-ahead)"
        )

    def build(mode: Mode):
        with contextlib.redirect_stdout(io.StringIO()):
            torch.manual_seed(seed)
            module = cls(*ctor_args, dropout=mode.dropout, norm_first=False)
        module.train(mode.train)
        return module

    found = masks_by_mode(build, probes, seed=seed)
    if not found:
        return ""
    built = f"{name}({', '.join(map(str, ctor_args))}, norm_first=False)"
    return f"Run again in two modes ({built}, with {masks}). {found}"


def expect_masks_on_every_path(
    c: Checker, cls, name: str, ctor_args: tuple, d_model: int, *, decoder: bool, seed: int
) -> None:
    """The masks must hold in eval and in train mode: the train cases run at dropout 1.0
    (the sub-layers' outputs dropped whole) or without the padding that would show it, so
    a branch that drops a mask while training passed (:func:`masks_by_mode_note`)."""
    if note := masks_by_mode_note(cls, name, ctor_args, d_model, decoder=decoder, seed=seed):
        c.fail(note)


def expect_masks_on_train_path(
    c: Checker,
    got: Any,
    expected: torch.Tensor,
    what: str,
    train: bool,
    cls,
    name: str,
    ctor_args: tuple,
    d_model: int,
    *,
    decoder: bool,
    seed: int,
) -> None:
    """Before a train-mode case's mistake tables: a wrong output from a module whose mask
    holds in eval mode and not in train mode is told so (:func:`masks_by_mode_note`); the
    tables would name the mask dropped (or never passed on) outright, which eval mode
    refutes (the family of blind29a-mha-mask-dropped-in-dropout-path)."""
    if not train or not isinstance(got, torch.Tensor) or got.shape != expected.shape:
        return
    if torch.allclose(got.detach().double(), expected.double(), rtol=1e-4, atol=1e-5):
        return
    if note := masks_by_mode_note(cls, name, ctor_args, d_model, decoder=decoder, seed=seed):
        c.fail(f"{what} is not what the reference gives. {note}")
