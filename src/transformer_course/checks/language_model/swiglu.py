# ruff: noqa: B023  (each lambda and closure is called in the loop iteration that made it)
"""Checks for lesson 11's SwiGLU feed-forward block, against ``swiglu_f``."""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.elementwise_forms import fitted_form, form_text
from transformer_course.checking.elementwise_functions import (
    described_function,
    row_scaled_function,
)
from transformer_course.checking.extra_steps import extra_activation_outputs
from transformer_course.checking.hooks import inputs_received, skipped_layers_hint
from transformer_course.checking.inputs import randn
from transformer_course.checking.layers import (
    build,
    expect_tensor_result,
    mistake_values,
)
from transformer_course.checking.oracles import linear, swiglu_f
from transformer_course.checking.oracles.feed_forward import SWISH_BETAS
from transformer_course.checking.repeated_calls import repeated_calls
from transformer_course.reference import language_model as ref

from .common import _same_in_train_mode, expect_layers_in_init

_SWAP = (
    "Your gate and value are swapped: the SiLU goes on w1(x) (the gate), which then "
    "multiplies w3(x): w2(silu(w1(x)) * w3(x))."
)
_RELU = "You used ReLU: SwiGLU's gate is the SiLU, F.silu(z) = z * sigmoid(z)."
_GELU = "You used GELU (that is GeGLU): SwiGLU's gate is the SiLU, F.silu."
_SIGMOID = (
    "You used a plain sigmoid as the gate (that is the original GLU): SwiGLU uses the SiLU, "
    "z * sigmoid(z) (F.silu)."
)
#: b12b: other activations a slip or a habit puts in the SiLU's place (F.selu is one
#: letter away from F.silu), each named when its values fit
_OTHER_ACTIVATIONS = ("selu", "elu", "celu", "mish", "softplus", "tanh", "leaky_relu", "hardswish")
_OTHER_ACTIVATION = (
    "Your gate is F.{name}, not the SiLU: SwiGLU's gate is F.silu(z) = z * sigmoid(z) "
    "(silu, with an i; {name} is another activation)."
)
#: round 25: the gate's activation left out, or another of the sigmoid family in the
#: SiLU's place (blind21c-swiglu-no-activation-bilinear, blind12i-swiglu-quick-gelu-gate)
_NO_ACTIVATION = (
    "Your gate has no activation: your result is w2(w1(x) * w3(x)), the two projections "
    "multiplied as they are (the bilinear GLU variant), so the block is a quadratic form of "
    "x. Apply the SiLU to the gate before the product: w2(F.silu(w1(x)) * w3(x))."
)
_GELU_TANH = (
    "Your gate is GELU's tanh approximation, F.gelu(z, approximate='tanh') (that is "
    "GeGLU): SwiGLU's gate is the SiLU, F.silu(z) = z * sigmoid(z)."
)
_SWISH_BETA = (
    "Your gate is z * sigmoid({beta:g} * z){known}: a Swish with slope beta = {beta:g} inside "
    "the sigmoid. The SiLU has slope 1, z * sigmoid(z) (F.silu(z))."
)
_NO_GATE = (
    "Your block has no gate: your result is w2(silu(w1(x))), a plain SiLU feed-forward, "
    "so w3 has no effect (its output is never multiplied in). Multiply silu(w1(x)) by "
    "the value w3(x) before w2: w2(silu(w1(x)) * w3(x))."
)
_AFTER = "You applied the SiLU after the product: it goes on w1(x) alone, silu(w1(x)) * w3(x)."
_SWIGLU_KEYS = (
    "SwiGLU has three bias-free nn.Linear named w1, w2, w3 (Llama's names): "
    "nn.Linear(d_model, d_ff, bias=False) for w1 and w3, nn.Linear(d_ff, d_model, bias=False) for w2."
)


_SIGN = (
    "Your gate is z * sigmoid(-z) = z / (1 + exp(z)): the sign inside the exponential is "
    "flipped. The SiLU is z * sigmoid(z) = z / (1 + exp(-z)) (F.silu(z))."
)
_VALUE_FROM_W1 = (
    "Your value is w1(x), not w3(x) (a copy-paste slip: silu(self.w1(x)) * self.w1(x)), so "
    "w3 is never used: w2(silu(w1(x)) * w3(x))."
)
_GATE_FROM_W3 = (
    "Your gate is silu(w3(x)), not silu(w1(x)) (a copy-paste slip: silu(self.w3(x)) * "
    "self.w3(x)), so w1 is never used: w2(silu(w1(x)) * w3(x))."
)
_COMBINE = {  # how the gate g = silu(w1(x)) and the value v = w3(x) were combined instead
    "divided": (
        "You divided the gate by the value, silu(w1(x)) / w3(x): they are multiplied, "
        "w2(silu(w1(x)) * w3(x))."
    ),
    "added": (
        "You added the gate and the value, silu(w1(x)) + w3(x): they are multiplied, "
        "w2(silu(w1(x)) * w3(x))."
    ),
    "w2 first": (
        "You applied w2 to the gate alone and multiplied by the value afterwards, "
        "w2(silu(w1(x))) * w3(x): the product happens in the d_ff features, and w2 maps "
        "it back, w2(silu(w1(x)) * w3(x))."
    ),
}


_RESIDUAL = (
    "Your result is the block's output plus its input, x + w2(silu(w1(x)) * w3(x)): the "
    "residual connection belongs to the decoder block (x + feed_forward(norm2(x))), not to "
    "SwiGLU, and added here it is added twice. SwiGLU returns w2(silu(w1(x)) * w3(x)) alone."
)
#: where the block's input x takes a projection's place (b15b: a hand-written SiLU took
#: the sigmoid of x, w1(x) * sigmoid(x)); each a shape clash when d_ff != d_model
_INPUT_FOR = {
    "value": (
        "the value is x itself, not its projection: silu(w1(x)) * x where silu(w1(x)) * "
        "w3(x) belongs"
    ),
    "sigmoid": (
        "the SiLU written by hand takes the sigmoid of the block's input x instead of the "
        "gate's pre-activation z = w1(x): w1(x) * sigmoid(x) where z * sigmoid(z), "
        "F.silu(w1(x)), belongs"
    ),
    "gate": "the gate is silu(x), without w1: silu(x) * w3(x) where silu(w1(x)) * w3(x) belongs",
}


def _input_mistakes(x, state) -> dict[str, torch.Tensor | None]:
    """{the _INPUT_FOR key: the result} of x put where a projection belongs (None where
    the widths differ: those raise)."""
    z, value = linear(x, state, "w1"), linear(x, state, "w3")
    if z.shape != x.shape:
        return dict.fromkeys(_INPUT_FOR)
    xd = x.double()
    return {
        "value": linear(torch.nn.functional.silu(z) * xd, state, "w2"),
        "sigmoid": linear(z * torch.sigmoid(xd) * value, state, "w2"),
        "gate": linear(torch.nn.functional.silu(xd) * value, state, "w2"),
    }


def _combine_mistakes(x, state) -> dict[str, object]:
    """The gate and value combined by another operation, or w2 applied too early."""
    gate, value = torch.nn.functional.silu(linear(x, state, "w1")), linear(x, state, "w3")
    z = linear(x, state, "w1")
    values = {
        _SIGN: lambda: linear(z * torch.sigmoid(-z) * value, state, "w2"),
        _VALUE_FROM_W1: lambda: linear(gate * z, state, "w2"),
        _GATE_FROM_W3: lambda: linear(torch.nn.functional.silu(value) * value, state, "w2"),
        _COMBINE["divided"]: lambda: linear(gate / value, state, "w2"),
        _COMBINE["added"]: lambda: linear(gate + value, state, "w2"),
        _COMBINE["w2 first"]: lambda: (
            linear(gate, state, "w2") * value if gate.shape == x.shape else None
        ),
        _RESIDUAL: lambda: swiglu_f(x, state) + x.double(),
        **_activated_value_mistakes(z, value, state),
        **{
            f"Your block puts x where a projection belongs: {_INPUT_FOR[key]}. "
            "SwiGLU: w2(silu(w1(x)) * w3(x)).": (lambda key=key: _input_mistakes(x, state)[key])
            for key in _INPUT_FOR
        },
    }
    return values


#: the activations a gated unit's branches may be put through, by how they are written
_BRANCH_ACTIVATIONS = {
    "silu": F.silu,
    "relu": torch.relu,
    "gelu": F.gelu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
}


def _activated_value_mistakes(z, value, state) -> dict[str, object]:
    """{message: result} for the value branch w3(x) put through an activation as well
    (blind25c: silu on both branches), the gate through silu, another activation or none:
    each pair of activations on the two branches but those the activation table names."""
    mistakes: dict[str, object] = {}
    gates = {"": lambda t: t, **_BRANCH_ACTIVATIONS}
    for gate_name, gate_fn in gates.items():
        for value_name, value_fn in _BRANCH_ACTIVATIONS.items():
            if gate_name == "" and value_name == "silu":
                continue  # silu on w3 alone: the gate and value swapped, told by _SWAP
            gate_written = f"{gate_name}(w1(x))" if gate_name else "w1(x)"
            both = (
                f"both branches go through {value_name}"
                if gate_name == value_name
                else f"the gate goes through {gate_name or 'no activation'} and the value "
                f"through {value_name}"
            )
            told = (
                f"Your hidden layer is {gate_written} * {value_name}(w3(x)): {both}. Only "
                "the gate is activated, with silu; the value w3(x) enters the product "
                "linearly, without an activation: self.w2(F.silu(self.w1(x)) * self.w3(x))."
            )
            mistakes[told] = lambda gate_fn=gate_fn, value_fn=value_fn: linear(
                gate_fn(z) * value_fn(value), state, "w2"
            )
    return mistakes


def _layer_not_called_hint():
    """For a layer multiplied where its output belongs (b13b: self.w3 for self.w3(x)):
    `tensor * module` raises this TypeError; silu(self.w1) would fail inside the SiLU
    before any product, so the module in the product is the value branch."""

    def applies(exc: BaseException) -> bool:
        text = str(exc)
        return (
            isinstance(exc, TypeError)
            and "unsupported operand" in text
            and "'Linear'" in text
            and "'Tensor'" in text
        )

    return (
        applies,
        "A layer itself met a tensor in an arithmetic operation: self.w3 is the nn.Linear "
        "module, self.w3(x) its output. The value branch is the layer called on x, "
        "w2(silu(w1(x)) * w3(x)): call w3 (and any other layer in the product) on x.",
    )


def _swapped_w2_w3(c: Checker, cls, d_model: int, d_ff: int) -> None:
    """Before the state-dict shapes are compared: w2 with w3's shape and w3 with w2's
    (b13b: Llama's two names exchanged), said as the names' swap rather than as one
    layer's two sizes."""
    try:
        shapes = {k: tuple(v.shape) for k, v in cls(d_model, d_ff).state_dict().items()}
    except Exception:  # said by build() below
        return
    if d_model == d_ff or shapes.get("w2.weight") != (d_ff, d_model):
        return
    if shapes.get("w3.weight") != (d_model, d_ff):
        return
    c.fail(
        f"SwiGLU({d_model}, {d_ff}): w2.weight has shape {(d_ff, d_model)} and w3.weight "
        f"{(d_model, d_ff)}: the names w2 and w3 are swapped (each has the other's shape). "
        "In Llama's names, w3 is the value projection, nn.Linear(d_model, d_ff, bias=False), "
        "and w2 the output projection back to d_model, nn.Linear(d_ff, d_model, bias=False): "
        "w2(silu(w1(x)) * w3(x)). The names are the state dict's keys, so a checkpoint "
        "loads only with these."
    )


def _equal_width_probe(cls, d_model: int, x: torch.Tensor) -> str:
    """Which one of the candidates for a d_model/d_ff clash the learner's block computes
    when it is built with d_ff = d_model, where none of them raises (b15b: the sigmoid of
    x in a hand-written SiLU was told "w2 first, or x in the product"); "" when none or
    several fit, or the probe cannot run."""
    try:
        with torch.random.fork_rng():
            torch.manual_seed(0)
            module = cls(d_model, d_model).eval()
        state = {k: v.detach() for k, v in module.state_dict().items()}
        with torch.no_grad():
            got = module(x)  # (..., d_model)
        gate, value = torch.nn.functional.silu(linear(x, state, "w1")), linear(x, state, "w3")
        candidates = {
            "w2 applied to the gate before the product: w2(silu(w1(x))) * w3(x) where "
            "w2(silu(w1(x)) * w3(x)) belongs": linear(gate, state, "w2") * value,
            **{_INPUT_FOR[k]: v for k, v in _input_mistakes(x, state).items()},
        }
        if not isinstance(got, torch.Tensor) or got.shape != x.shape:
            return ""
        fit = [
            what
            for what, expected in candidates.items()
            if torch.allclose(got.double(), expected, rtol=1e-4, atol=1e-5)
        ]
    except Exception:
        return ""
    if len(fit) != 1:
        return ""
    return (
        f"Built with d_ff = d_model = {d_model}, where nothing clashes, your block computes "
        f"exactly what this mistake gives: {fit[0]}. The gate silu(w1(x)) and the value "
        "w3(x) are multiplied in the d_ff features, then w2 maps the product back: "
        "w2(silu(w1(x)) * w3(x))."
    )


def _chained_mistakes(x: torch.Tensor, state) -> dict[str, torch.Tensor]:
    """{what: the result} of a projection that reads x given another projection's output,
    the layers chained where they work side by side (b16b: w2(w3(silu(w1(x))))); each a
    matrix-shape clash when d_ff != d_model, so computed at equal widths."""

    def w(name: str, t: torch.Tensor) -> torch.Tensor:  # (..., d_model) -> (..., d_model)
        return linear(t, state, name)

    z, value = w("w1", x), w("w3", x)
    gate = torch.nn.functional.silu(z)
    silu = torch.nn.functional.silu
    return {
        "w3 reads the gate instead of x, chained after it with no product: "
        "w2(w3(silu(w1(x)))) where w2(silu(w1(x)) * w3(x)) belongs": w("w2", w("w3", gate)),
        "w3 reads the gate instead of x: silu(w1(x)) * w3(silu(w1(x))) where silu(w1(x)) * "
        "w3(x) belongs": w("w2", gate * w("w3", gate)),
        "w3 reads w1's output instead of x: silu(w1(x)) * w3(w1(x)) where silu(w1(x)) * "
        "w3(x) belongs": w("w2", gate * w("w3", z)),
        "w1 reads the value w3(x) instead of x, chained after it with no product: "
        "w2(silu(w1(w3(x)))) where w2(silu(w1(x)) * w3(x)) belongs": w("w2", silu(w("w1", value))),
        "w1 reads the value w3(x) instead of x: silu(w1(w3(x))) * w3(x) where silu(w1(x)) * "
        "w3(x) belongs": w("w2", silu(w("w1", value)) * value),
    }


def _chained_probe(cls, d_model: int, x: torch.Tensor) -> str:
    """Which chaining of the projections the learner's block computes when it is built with
    d_ff = d_model, where nothing clashes; "" when none or several fit."""
    try:
        with torch.random.fork_rng():
            torch.manual_seed(0)
            module = cls(d_model, d_model).eval()
        state = {k: v.detach() for k, v in module.state_dict().items()}
        with torch.no_grad():
            got = module(x)  # (..., d_model)
        if not isinstance(got, torch.Tensor) or got.shape != x.shape:
            return ""
        fit = [
            what
            for what, expected in _chained_mistakes(x, state).items()
            if torch.allclose(got.double(), expected, rtol=1e-4, atol=1e-5)
        ]
    except Exception:  # a probe: any failure means no answer
        return ""
    return fit[0] if len(fit) == 1 else ""


def _chained_hint(d_model: int, d_ff: int, cls=None, x: torch.Tensor | None = None):
    """For a matrix-shape clash where a layer that reads d_model features (w1 or w3) got
    d_ff of them (b16b: w2(w3(silu(w1(x)))) was given the generic transpose note): the
    chaining the block computes at equal widths when exactly one fits, else the
    candidates."""
    clash = re.compile(r"shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")

    def applies(exc: BaseException) -> bool:
        found = clash.search(str(exc))
        return (
            d_model != d_ff
            and isinstance(exc, RuntimeError)
            and found is not None
            and tuple(int(n) for n in found.groups()[1:]) == (d_ff, d_model, d_ff)
        )

    def advice(exc: BaseException) -> str:
        sizes = (
            f"A layer that reads the block's input, d_model = {d_model} features (w1 or w3, "
            f"nn.Linear(d_model, d_ff)), was given {d_ff} = d_ff features: the output of w1 "
            "or w3 (or the gate silu(w1(x))). "
        )
        named = _chained_probe(cls, d_model, x) if cls is not None and x is not None else ""
        if named:
            return sizes + (
                f"Built with d_ff = d_model = {d_model}, where nothing clashes, your block "
                f"computes exactly what this gives: {named}. "
                "w1 and w3 both read x, side by side; their outputs are multiplied, and w2 "
                "maps the product back: w2(silu(w1(x)) * w3(x))."
            )
        return sizes + (
            "The projections are chained where they work side by side: w1 and w3 both read "
            "x, the gate silu(w1(x)) and the value w3(x) are multiplied, and only w2 reads "
            "d_ff features: w2(silu(w1(x)) * w3(x))."
        )

    return (applies, advice)


def _w2_first_hint(d_model: int, d_ff: int, cls=None, x: torch.Tensor | None = None):
    """For a size clash of d_model with d_ff in an element-wise product: the candidate
    the block computes at equal widths, when exactly one fits; otherwise the candidates."""

    def applies(exc: BaseException) -> bool:
        text = str(exc)
        return (
            d_model != d_ff
            and isinstance(exc, RuntimeError)
            and "must match" in text
            and f"({d_model})" in text
            and f"({d_ff})" in text
        )

    def advice(exc: BaseException) -> str:
        sizes = (
            f"The sizes {d_model} and {d_ff} are d_model and d_ff: something with d_model "
            "features met something with d_ff (w1's or w3's output). "
        )
        named = _equal_width_probe(cls, d_model, x) if cls is not None else ""
        if named:
            return sizes + named
        return sizes + (
            "Likely causes: w2 applied to the gate before the product, w2(silu(w1(x))) * "
            "w3(x); or x itself where a projection belongs: in the product, silu(w1(x)) * x; "
            "or inside a hand-written SiLU, w1(x) * sigmoid(x) where z * sigmoid(z) with z "
            "= w1(x) belongs. The gate and the value w3(x) are multiplied first, in the d_ff "
            "features, then w2 maps the product back: w2(silu(w1(x)) * w3(x))."
        )

    return (applies, advice)


@dataclass(frozen=True)
class _FfnCase:
    seed: int
    shape: tuple[int, ...]
    d_ff: int


_VISIBLE_FFN = [_FfnCase(1, (2, 3, 8), 12)]
_HIDDEN_FFN = [_FfnCase(101, (4, 16), 40), _FfnCase(102, (1, 2, 5, 6), 6)]


def _converted_widths(d_model: int, d_ff: int, width: int) -> str:
    """How ``width`` follows from the conversions of a hidden width that Llama's
    FeedForward makes, from d_ff or from 4 * d_model: two thirds, then rounded up to a
    multiple of multiple_of (blind19f-swiglu-llama-hidden-width-conversion got "256
    features, not d_ff" alone); every start that gives it is named, "" when none does."""
    starts = []
    for start, named in ((d_ff, "d_ff"), (4 * d_model, "4 * d_model")):
        shrunk = int(2 * start / 3)
        starts += [(shrunk, f"int(2 * {named} / 3) = {shrunk}"), (start, named)]
    exact = [how for size, how in starts if size == width and how.startswith("int(")]
    if exact:
        return " or ".join(exact)
    fits = []
    for multiple in (8, 16, 32, 64, 128, 256, 512, 1024):
        rounded = [
            how
            for size, how in starts
            if size != width and multiple * ((size + multiple - 1) // multiple) == width
        ]
        if rounded:
            fits.append(f"of {multiple} from {' or '.join(rounded)}")
    if fits:
        return "a width rounded up to a multiple of multiple_of (Llama's): " + "; or ".join(fits)
    return ""


def _hidden_width_hint(c: Checker, cls, d_model: int, d_ff: int) -> None:
    """Before the state-dict shapes are compared: a hidden width other than d_ff, named
    with Llama's 2/3 rule when it is that one (blind8b-swiglu-two-thirds-hidden got
    "w1.weight has shape (8, 8), expected (12, 8)" alone)."""
    try:
        module = cls(d_model, d_ff)
        w1 = module.state_dict().get("w1.weight")
    except Exception:  # said by build() below
        return
    if not hasattr(w1, "shape") or len(w1.shape) != 2 or w1.shape[1] != d_model:
        return
    width = int(w1.shape[0])
    if width == d_ff:
        return
    related = _width_relations(module, d_model, d_ff, width)
    sources = _converted_widths(d_model, d_ff, width)
    if related and not sources.startswith("int("):
        # a width that is exactly d_ff // 2, 2 * d_ff, ... is not read as a rounding
        sources = ""
    llama = (
        f" That is {sources}: Llama's FeedForward converts its "
        "hidden width (two thirds of 4 * d_model, to keep the parameter count of a "
        "two-matrix block, then rounded up to a multiple of multiple_of); here d_ff is "
        "already the hidden width, use it as it is."
        if sources
        else ""
    )
    related = "" if sources else related
    c.fail(
        f"SwiGLU({d_model}, {d_ff}): w1 maps d_model to {width} features, not to d_ff = "
        f"{d_ff}.{llama}{related} w1 and w3 are nn.Linear(d_model, d_ff, bias=False), w2 "
        "nn.Linear(d_ff, d_model, bias=False)."
    )


#: {how a hidden width follows from the arguments: (its size, what it means)}
_WIDTH_RELATIONS = {
    "half of d_ff, d_ff // 2": (
        lambda d_model, d_ff: d_ff // 2,
        "the gate and the value share the d_ff features between them, as a fused SwiGLU "
        "does that makes both with one projection and chunks it in two (proj(x).chunk(2, "
        "dim=-1)); here w1 and w3 are separate, and each has all d_ff outputs",
    ),
    "2 * d_ff": (
        lambda d_model, d_ff: 2 * d_ff,
        "the width of a fused projection that makes the gate and the value at once; here w1 "
        "and w3 are separate, each with d_ff outputs",
    ),
    "d_model": (
        lambda d_model, d_ff: d_model,
        "d_ff is never used: the hidden features are d_model wide",
    ),
    "4 * d_model": (
        lambda d_model, d_ff: 4 * d_model,
        "the classic feed-forward width, in place of the d_ff given",
    ),
}


def _width_relations(module, d_model: int, d_ff: int, width: int) -> str:
    """How a wrong hidden width follows from d_model and d_ff (d_ff // 2, the split of a
    fused SwiGLU: blind20c-swiglu-d-ff-split-between-gate-and-value got "6 features, not
    d_ff" alone; 2 * d_ff; d_model; 4 * d_model), with the other weights' widths: every
    relation that gives it is named, "" when none does."""
    fits = [
        (how, meaning)
        for how, (size, meaning) in _WIDTH_RELATIONS.items()
        if size(d_model, d_ff) == width and size(d_model, d_ff) != d_ff
    ]
    if not fits:
        return ""
    state = module.state_dict()
    widths = {
        name: tuple(state[f"{name}.weight"].shape)
        for name in ("w1", "w3", "w2")
        if hasattr(state.get(f"{name}.weight"), "shape")
    }
    shown = ", ".join(f"{name}.weight {shape}" for name, shape in widths.items())
    said = " or ".join(f"{how} = {width}: {meaning}" for how, meaning in fits)
    return f" Your hidden width is {said} ({shown}). The hidden width is d_ff itself."


def check_SwiGLU(cls, *, hidden: bool = False) -> None:
    with Checker("SwiGLU", hidden=hidden) as c:
        c.require_callable(cls)
        for case in _HIDDEN_FFN if hidden else _VISIBLE_FFN:
            d_model = case.shape[-1]
            x = randn(case.shape, case.seed, scale=2.0)
            reference = ref.SwiGLU(d_model, case.d_ff)
            expect_layers_in_init(c, cls, (d_model, case.d_ff), x, reference, "SwiGLU")
            _hidden_width_hint(c, cls, d_model, case.d_ff)
            _swapped_w2_w3(c, cls, d_model, case.d_ff)
            module, built, state = build(
                c,
                cls,
                d_model,
                case.d_ff,
                name="SwiGLU",
                reference=reference,
                seed=case.seed,
                mode="eval",
            )
            what = f"{built}(x {tuple(x.shape)})"
            got = c.call(
                module,
                x,
                call_repr=what,
                hints=[
                    _w2_first_hint(d_model, case.d_ff, cls, x),
                    _chained_hint(d_model, case.d_ff, cls, x),
                    _layer_not_called_hint(),
                    skipped_layers_hint(module, lambda: module(x), reference, lambda: reference(x)),
                ],
            )
            unprojected = _without_w2(got, x, state, d_model, case.d_ff)
            c.expect_true(not unprojected, f"{what}: {unprojected}")
            expect_tensor_result(c, got, tuple(x.shape), what)
            table = {
                _SWAP: {"swap": True},
                _RELU: {"activation": "relu"},
                _GELU: {"activation": "gelu"},
                _SIGMOID: {"activation": "sigmoid"},
                **{_OTHER_ACTIVATION.format(name=n): {"activation": n} for n in _OTHER_ACTIVATIONS},
                _NO_GATE: {"gate": False},
                _AFTER: {"after": True},
                _NO_ACTIVATION: {"activation": "identity"},
                _GELU_TANH: {"activation": "gelu_tanh"},
                **{
                    _SWISH_BETA.format(
                        beta=beta,
                        known=" (CLIP's QuickGELU, a sigmoid approximation of GELU)"
                        if beta == 1.702
                        else "",
                    ): {"activation": f"swish_{beta:g}"}
                    for beta in SWISH_BETAS
                },
            }
            c.expect_close(
                got,
                swiglu_f(x, state),
                what,
                **tolerance(got.dtype),
                mistakes={
                    **mistake_values(lambda **k: swiglu_f(x, state, **k), table),
                    **_combine_mistakes(x, state),
                    # an activation after w2: on the right output, or moved there from
                    # the gate (the gate then has none)
                    **extra_activation_outputs(
                        {
                            "the right output": swiglu_f(x, state),
                            "the gate has no activation of its own, w2(w1(x) * w3(x)): the "
                            "activation was moved from the gate to the output; SwiGLU "
                            "applies it to the gate, self.w2(F.silu(self.w1(x)) * "
                            "self.w3(x))": swiglu_f(x, state, activation="identity"),
                        },
                        layer="SwiGLU",
                        last="self.w2",
                    ),
                },
                explain=lambda: _inside_swiglu(module, x, state),
            )
        last = (_HIDDEN_FFN if hidden else _VISIBLE_FFN)[-1]
        x = randn((2, 5, last.shape[-1]), 7, scale=2.0)
        _same_in_train_mode(c, cls, (last.shape[-1], last.d_ff), x, "SwiGLU")


def _without_w2(got, x: torch.Tensor, state, d_model: int, d_ff: int) -> str:
    """The result d_ff wide where d_model belongs and equal to the block's hidden layer
    before w2, with the right or another gate (blind14b-swiglu-no-output-projection was told
    the shape and an edit): w2 never applied. "" for anything else."""
    if not torch.is_tensor(got) or d_ff == d_model or got.shape[-1:] != (d_ff,):
        return ""
    if tuple(got.shape[:-1]) != tuple(x.shape[:-1]):
        return ""
    z, value = linear(x, state, "w1"), linear(x, state, "w3")  # (..., d_ff) each
    forms = {
        "silu(w1(x)) * w3(x)": F.silu(z) * value,
        "w1(x) * w3(x), with no activation either": z * value,
        "silu(w1(x)), with no value either": F.silu(z),
    }
    found = next(
        (
            form
            for form, hidden in forms.items()
            if torch.allclose(got.detach().double(), hidden, rtol=1e-4, atol=1e-5)
        ),
        None,
    )
    if found is None:
        return ""
    return (
        f"your result has d_ff = {d_ff} features, not d_model = {d_model}: it is the hidden "
        f"layer {found}, and w2 is never applied (built, but left out of forward), so "
        f"nothing maps the {d_ff} features back to {d_model}. Finish with the output "
        "projection: self.w2(F.silu(self.w1(x)) * self.w3(x))."
    )


#: what an activation applied where it does not belong turns a layer's input into
_INPUT_ACTIVATIONS = {
    "silu": F.silu,
    "relu": torch.relu,
    "gelu": F.gelu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
}


def _same_values(a, b: torch.Tensor) -> bool:
    return (
        torch.is_tensor(a)
        and a.shape == b.shape
        and bool(torch.allclose(a.detach().double(), b.double(), rtol=1e-4, atol=1e-5))
    )


def _swish_slope(hidden: torch.Tensor, gate: torch.Tensor, value: torch.Tensor) -> str:
    """w2's input as Swish with one slope beta other than SiLU's 1, gate * sigmoid(beta *
    gate) * value, beta measured from the values (blind26c-swiglu-swish-random-beta: a
    beta drawn by torch.randn(1)); "" when no single beta fits."""
    if hidden.shape != gate.shape:
        return ""
    usable = (gate.abs() > 0.1) & (value.abs() > 0.1)  # (..., d_ff)
    ratio = hidden[usable] / (gate[usable] * value[usable])  # sigmoid(beta * gate)
    inside = (ratio > 1e-4) & (ratio < 1 - 1e-4)
    if int(inside.sum()) < 8:
        return ""
    betas = torch.logit(ratio[inside]) / gate[usable][inside]
    beta = float(betas.median())
    if not _same_values(hidden, gate * torch.sigmoid(beta * gate) * value) or abs(beta - 1) < 1e-3:
        return ""
    return (
        f"What your w2 receives is gate * sigmoid(beta * gate) * w3(x) with gate = w1(x) and "
        f"beta = {beta:.4g}: your gate is Swish with a slope beta = {beta:.4g}, not SiLU, "
        "whose slope is 1. A slope that is not a fixed 1 (a number drawn with "
        "torch.randn, say, or a constant of another activation) changes the gate; SwiGLU "
        "uses silu(z) = z * sigmoid(z): self.w2(F.silu(self.w1(x)) * self.w3(x))."
    )


def _gate_activation(hidden: torch.Tensor, gate: torch.Tensor, value: torch.Tensor) -> str:
    """w2's input as f(w1(x)) * w3(x) with an activation f other than the SiLU, f read off
    the values (what w2 receives divided by w3(x), against w1(x)) and named, or described
    when no known function fits (blind27c-swiglu-relu-squared-gate, a squared ReLU, was
    told "largest difference"); "" when the hidden layer is not a gate times w3(x)."""
    if hidden.shape != gate.shape:
        return ""
    usable = value.abs() > 0.1  # (..., d_ff): where dividing by the value is safe
    described = described_function(
        gate[usable], hidden[usable] / value[usable], right="F.silu(z) = z * sigmoid(z)"
    )
    if not described:
        return _gate_normalised(hidden, gate, value)
    return (
        "What your w2 receives, divided by the value w3(x), is your gate's activation f of z "
        f"= w1(x), and {described}: your gate is not the SiLU, F.silu(z) = z * "
        "sigmoid(z), which is slightly negative for negative z and close to z for large "
        "positive z. Gate with the SiLU: self.w2(F.silu(self.w1(x)) * self.w3(x))."
    )


def _gate_normalised(hidden: torch.Tensor, gate: torch.Tensor, value: torch.Tensor) -> str:
    """w2's input as g * w3(x) with a gate g that is, token by token, one activation of z =
    w1(x) scaled by one number per token (row_scaled_function): a softmax over the d_ff
    features, or an activation divided by its sum or norm over them
    (blind30c-swiglu-softmax-gate, a mixture-of-experts router's softmax for the SiLU, was
    told "largest difference"); "" otherwise. Every entry of a token is needed (the sum
    runs over all of them): nothing is said when a value is too close to 0 to divide by."""
    if value.dim() < 2 or bool((value.abs() < 1e-6).any()):
        return ""
    width = int(gate.shape[-1])
    rows = row_scaled_function(gate.reshape(-1, width), (hidden / value).reshape(-1, width))
    if rows is None:
        return ""
    formula, scaling = rows
    softmax = (
        " (a softmax over the hidden features, torch.softmax(w1(x), dim=-1))"
        if formula == "torch.exp(z)" and scaling.startswith("divided by its sum")
        else ""
    )
    summed = (
        ": each token's gates sum to 1, and each depends on every other hidden unit of its token"
        if scaling.startswith("divided by its sum")
        else ": each gate depends on every other hidden unit of its token"
    )
    return (
        "What your w2 receives, divided by the value w3(x), is your gate, and it is, token "
        f"by token, {formula} of z = w1(x), {scaling}{softmax}{summed}. SwiGLU's gate is "
        "elementwise, each hidden unit's own: F.silu(z) = z * sigmoid(z), whatever the "
        "other features hold. Gate with the SiLU: self.w2(F.silu(self.w1(x)) * self.w3(x))."
    )


def _inside_swiglu(module, x: torch.Tensor, state) -> str:
    """What the learner's SwiGLU's layers receive, recorded with hooks during one call: the
    first of w1, w3 (which must receive x) and w2 (which must receive silu(w1(x)) * w3(x))
    whose input is wrong, and that input as a known function of the right operands when
    one fits (blind23c: silu(x) fed to w1, and silu(w1(x)) * (w3(x) + 1), were told only
    "largest difference"); "" when the layers are not called as nn.Linear-like children or
    nothing fits."""
    try:
        seen = inputs_received(module, {"w1", "w3", "w2"}, lambda: module(x))
        gate = linear(x.double(), state, "w1")  # (..., d_ff)
        value = linear(x.double(), state, "w3")  # (..., d_ff)
        known = {
            "x": x.double(),
            "silu(w1(x)) * w3(x)": F.silu(gate) * value,
            "silu(w1(x))": F.silu(gate),
            "w3(x)": value,
            "w1(x)": gate,
            "silu(w3(x))": F.silu(value),
        }
        if twice := repeated_calls(seen, ("w1", "w3", "w2"), known):
            # round 30: w2(silu(w1(x))) * w2(w3(x)) was told "differs from the reference"
            return (
                f"{twice} In SwiGLU w1 and w3 each read x once, and w2 reads their "
                "combination once: self.w2(F.silu(self.w1(x)) * self.w3(x))."
            )
        received = {}
        for _name, role, args, _kwargs in seen:
            if args and role not in received:
                received[role] = args[0]
        if set(received) != {"w1", "w3", "w2"}:
            return ""
        x64 = x.double()
        for layer in ("w1", "w3"):
            given = received[layer]
            if _same_values(given, x64):
                continue
            for name, act in _INPUT_ACTIVATIONS.items():
                if _same_values(given, act(x64)):
                    where = "the gate projection w1" if layer == "w1" else "the value projection w3"
                    return (
                        f"{layer} receives {name}(x), not the block's input x: the "
                        f"{'SiLU' if name == 'silu' else name} is applied to x before "
                        f"{where}, so the block computes {layer}({name}(x)). The activation "
                        "belongs on the gate projection's output, after w1: "
                        "self.w2(F.silu(self.w1(x)) * self.w3(x))."
                    )
            return ""
        gate = linear(x64, state, "w1")  # (..., d_ff)
        value = linear(x64, state, "w3")  # (..., d_ff)
        hidden = received["w2"]
        if not torch.is_tensor(hidden) or _same_values(hidden, F.silu(gate) * value):
            return ""
        if slope := _swish_slope(hidden.detach().double(), gate, value):
            return slope
        terms = {
            "silu(w1(x)) * w3(x)": F.silu(gate) * value,
            "silu(w1(x))": F.silu(gate),
            "w3(x)": value,
            "w1(x)": gate,
            "w1(x) * w3(x)": gate * value,
            "silu(w3(x)) * w1(x)": F.silu(value) * gate,
            "silu(w1(x) * w3(x))": F.silu(gate * value),
        }
        form = fitted_form(hidden, terms)
        if form is None or len(form) < 2 or form[0][0] != "silu(w1(x)) * w3(x)":
            # a single other term: the activation checks name those; another activation of
            # the gate, read off the values
            return _gate_activation(hidden.detach().double(), gate, value)
        extra = form_text(form[1:]).lstrip("-")
        sign = "minus" if form[1][1] < 0 else "plus"
        factored = ""
        if [n for n, _ in form] == ["silu(w1(x)) * w3(x)", "silu(w1(x))"] and abs(
            form[0][1] - 1
        ) < 1e-3:
            factored = (
                f", that is silu(w1(x)) * (w3(x) {'+' if form[1][1] > 0 else '-'} "
                f"{abs(form[1][1]):g})"
            )
        return (
            "What your w2 receives (the hidden layer) is not silu(w1(x)) * w3(x) but "
            f"{form_text(form)}{factored}: the gated product {sign} an extra term, {extra}"
            + (
                " (an extra copy of the activated gate added to it, as a fused multiply-add "
                "such as torch.addcmul(gate, gate, value) does)"
                if extra.endswith("silu(w1(x))") and "*" not in extra
                else ""
            )
            + ". The hidden layer is the product alone: self.w2(F.silu(self.w1(x)) * "
            "self.w3(x))."
        )
    except Exception:  # a diagnosis: anything unexpected leaves the old message
        return ""
