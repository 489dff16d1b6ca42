"""Checks for lesson 11's pre-norm DecoderBlock, against ``decoder_block_f``."""

from __future__ import annotations

import functools
import re

import torch
from torch import nn

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.graph import call_gradients
from transformer_course.checking.inputs import randn
from transformer_course.checking.layer_mistakes import (
    add_new,
    norm_choice_mistakes,
    residual_mistakes,
)
from transformer_course.checking.layers import build
from transformer_course.checking.norm_eps import rms_norm_eps_problem
from transformer_course.checking.oracles import (
    causal_self_attention_f,
    decoder_block_f,
    rms_norm_f,
    swiglu_f,
)
from transformer_course.checking.oracles.state import sub
from transformer_course.reference import language_model as ref

from .attention import (
    _BLOCK_NORMS,
    _BLOCK_PARTS,
    _HIDDEN_ATTENTION,
    _NO_ROPE,
    _NOT_CAUSAL,
    _VISIBLE_ATTENTION,
    _check_layer,
    _localise_block,
    _ModelCase,
)

#: a visible block whose d_ff is not d_model too: a feed-forward built as SwiGLU(d_ff,
#: d_model) builds the same shapes when the two are equal (blind10b, hidden only before)
_VISIBLE_BLOCK = [*_VISIBLE_ATTENTION, _ModelCase(4, 2, 5, 16, 2, d_ff=24)]

_POST = (
    "Your block is post-norm (norm(x + sublayer(x)), the 2017 layout). A decoder-only block "
    "is pre-norm: h = x + attn(norm1(x)), then h + feed_forward(norm2(h))."
)
_NO_RESIDUAL = "Your block has no residual connections: add each sub-layer's result to its input."
_FROM_NORMED = (
    "Your residual starts from the normalised x: h = x + attn(norm1(x)) adds to x itself, "
    "so that the residual stream is never normalised."
)
_SWAPPED_NORMS = "norm1 goes before the attention and norm2 before the feed-forward block."
_PARALLEL = (
    "Both of your sub-layers read the block's input (the 'parallel' block of GPT-J/PaLM). "
    "Here the feed-forward block reads h = x + attn(norm1(x)), the result of the attention."
)


_BLOCK_EPS = (
    "Your block's norms ignore the eps it was given: they compute with RMSNorm's default "
    "1e-5. Pass it on when you build them, RMSNorm(d_model, eps) for norm1 and norm2 (and "
    "if you do, your RMSNorm itself ignores its eps argument: its own test cell says so)."
)


_ONE_NORM_EPS = (
    "Your {wrong} ignores the eps the block was given: it computes with RMSNorm's default "
    "1e-5, while {right} uses the block's. Pass it on to both: RMSNorm(d_model, eps) for "
    "norm1 and for norm2."
)


_BLOCK_MISTAKES = {  # {message: decoder_block_f's knobs for that mistake}
    _POST: {"layout": "post"},
    _NO_RESIDUAL: {"layout": "no_residual"},
    _FROM_NORMED: {"layout": "residual_from_normed"},
    _SWAPPED_NORMS: {"layout": "swapped_norms"},
    _PARALLEL: {"layout": "parallel"},
    _NO_ROPE: {"attention": {"rope": False}},
    _NOT_CAUSAL: {"attention": {"causal": False}},
    _BLOCK_EPS: {"eps": 1e-5},  # (the same as the right result where the case's eps is the default)
    # one norm built without it: the other right (b11b)
    **{
        _ONE_NORM_EPS.format(wrong=wrong, right=right): {"default_eps": (wrong,)}
        for wrong, right in (("norm1", "norm2"), ("norm2", "norm1"))
    },
}
add_new(_BLOCK_MISTAKES, residual_mistakes(_BLOCK_PARTS, _BLOCK_NORMS, True, dropout=False))
add_new(_BLOCK_MISTAKES, norm_choice_mistakes(_BLOCK_PARTS, _BLOCK_NORMS))


_NORMS_ON_OUTPUTS = (
    "Your norms act on the sub-layers' outputs, not on their inputs: your block computes "
    "x + norm1(attn(x)), then h + norm2(feed_forward(h)) (Swin V2's placement), so "
    "the attention and the feed-forward read the raw, unnormalised stream. Pre-norm "
    "normalises each sub-layer's input: h = x + attn(norm1(x)), then h + "
    "feed_forward(norm2(h))."
)
_FFN_UNNORMALISED = (
    "Your feed-forward reads the raw, unnormalised stream h, without norm2 (norm2 has no "
    "effect on your result): h = x + attn(norm1(x)) is right, then h + "
    "feed_forward(norm2(h))."
)
_ATTN_UNNORMALISED = (
    "Your attention reads the raw, unnormalised stream x, without norm1 (norm1 has no "
    "effect on your result): h = x + attn(norm1(x)), then h + feed_forward(norm2(h))."
)

_OUTPUT_NORMED = (
    "Your block normalises its output too: it returns {norm}(h + feed_forward(norm2(h))) "
    "instead of the sum h + feed_forward(norm2(h)) itself (a post-norm habit). In a "
    "pre-norm block only the sub-layers' inputs are normalised; the stream leaves the block "
    "as the residual sum, and the one final RMSNorm is GPT's own `norm`, after the last "
    "block."
)


def _norm_placement_mistakes(x, state, case: _ModelCase) -> dict:
    """A sub-layer that reads the raw stream (its norm left out, or moved onto its
    output): {message: f(pairing)} in float64 (b13b: "`self.attn` reads x itself" alone)."""
    eps = 1e-5 if case.eps is None else case.eps
    x = x.double()  # (batch, len, d_model)

    def parts(pairing):
        def attn(t):
            return causal_self_attention_f(t, sub(state, "attn"), case.num_heads, pairing=pairing)

        def ffn(t):
            return swiglu_f(t, sub(state, "feed_forward"))

        def norm(name, t):
            return rms_norm_f(t, sub(state, name), eps)

        return attn, ffn, norm

    def on_outputs(pairing):
        attn, ffn, norm = parts(pairing)
        h = x + norm("norm1", attn(x))
        return h + norm("norm2", ffn(h))

    def ffn_raw(pairing):
        attn, ffn, norm = parts(pairing)
        h = x + attn(norm("norm1", x))
        return h + ffn(h)

    def attn_raw(pairing):
        attn, ffn, norm = parts(pairing)
        h = x + attn(x)
        return h + ffn(norm("norm2", h))

    def output_normed(name):
        def block(pairing):
            attn, ffn, norm = parts(pairing)
            h = x + attn(norm("norm1", x))
            return norm(name, h + ffn(norm("norm2", h)))

        return block

    return {
        _NORMS_ON_OUTPUTS: on_outputs,
        _FFN_UNNORMALISED: ffn_raw,
        _ATTN_UNNORMALISED: attn_raw,
        # blind18d-block-output-normalised was told the final norm is a LayerNorm of an
        # Encoder's or Decoder's (the shared text of lessons 07-08)
        **{_OUTPUT_NORMED.format(norm=name): output_normed(name) for name in ("norm1", "norm2")},
    }


def _heads_sources(d_model: int, num_heads: int, d_ff: int) -> dict[str, int]:
    """{the block's argument (or size) a learner may pass where num_heads belongs: its value}."""
    return {"d_ff": d_ff, "d_model": d_model, "d_model // num_heads": d_model // num_heads}


#: a second block whose d_model, d_ff and d_head all differ (and d_ff divides d_model, so
#: that an attention given d_ff can be built): it parts the sources the case's sizes confuse
_PARTING_BLOCK = (24, 2, 8)


def _heads_source(module: nn.Module, heads: int, case: _ModelCase) -> str:
    """Which of the block's arguments the attention's head count came from (b12b: d_ff
    passed where num_heads belongs, told apart from d_model on a block where they differ);
    "" when none or several still fit."""
    sources = _heads_sources(case.d_model, case.num_heads, case.d_ff)
    fits = [name for name, value in sources.items() if value == heads]
    parted = ""
    if len(fits) > 1:
        try:
            other_heads = type(module)(*_PARTING_BLOCK).attn.num_heads
        except Exception:  # the learner's constructor refused these sizes: no parting
            other_heads = None
        parting = _heads_sources(*_PARTING_BLOCK)
        fits = [name for name in fits if parting[name] == other_heads]
        parted = (
            f" (DecoderBlock{_PARTING_BLOCK} gets {other_heads} heads: its {fits[0]})"
            if len(fits) == 1
            else ""
        )
    if len(fits) != 1:
        return ""
    return (
        f"That is the block's {fits[0]} passed where num_heads belongs, "
        f"CausalSelfAttention(d_model, {fits[0]}){parted}. "
    )


def _inspect_block(c: Checker, module: nn.Module, built: str, case: _ModelCase) -> None:
    """The block's attention has the block's number of heads (its weights' shapes cannot
    tell: every head count gives (d_model, d_model) projections) and RoPE's default base
    (not the block's eps passed in its place)."""
    heads = getattr(getattr(module, "attn", None), "num_heads", None)
    if isinstance(heads, int) and heads != case.num_heads:
        c.fail(
            f"{built}: its attention has num_heads={heads}, but the block was given "
            f"num_heads={case.num_heads}. "
            + _heads_source(module, heads, case)
            + "Build it with the block's arguments, CausalSelfAttention(d_model, num_heads)."
        )
    eps = 1e-5 if case.eps is None else case.eps
    x = randn((case.batch, case.length, case.d_model), case.seed, scale=2.0)
    with torch.no_grad():
        wrong_eps = rms_norm_eps_problem(
            module,
            lambda: module(x),
            ("norm1", "norm2"),
            eps,
            {"d_model": case.d_model, "num_heads": case.num_heads, "d_ff": case.d_ff},
        )
    c.expect_true(not wrong_eps, f"{built}: {wrong_eps}")
    base = getattr(getattr(module, "attn", None), "base", None)
    if isinstance(base, int | float) and base != 10000.0:
        given = (
            f": that is the block's eps ({eps}), given to the attention's third argument, "
            "which is RoPE's base"
            if base == eps
            else ""
        )
        c.fail(
            f"{built}: its attention rotates with base={base}, not RoPE's 10000{given}. The "
            "block's attention is CausalSelfAttention(d_model, num_heads) (its default base); "
            "eps goes to the two RMSNorms."
        )


def _norm_arguments_swapped(cls, args: tuple) -> str:
    """For a block whose construction raised a TypeError: whether its norms take eps where
    their size belongs, RMSNorm(eps, d_model) (b14b: torch.ones(eps) refusing a float was
    all it said). A probe with an int eps, a size no other argument has, builds: its norms'
    gains then have that many entries."""
    d_model = args[0]
    size = next(n for n in range(7, 100) if n not in args)
    try:
        state = cls(d_model, *args[1:3], size).state_dict()
    except Exception:  # the probe says nothing: the error is told as raised
        return ""
    norms = sorted(
        key
        for key, tensor in state.items()
        if key.split(".")[0] in ("norm1", "norm2") and tuple(tensor.shape) == (size,)
    )
    if not norms:
        return ""
    return (
        f"With an int eps, DecoderBlock{(d_model, *args[1:3], size)}, it builds, and the gains "
        f"{', '.join(norms)} have {size} entries, the eps given, not d_model = {d_model}: "
        "RMSNorm's arguments are swapped, RMSNorm(eps, d_model), so the float eps reached "
        "torch.ones as its size. RMSNorm takes (d_model, eps): norm1 = RMSNorm(d_model, "
        "eps), norm2 = RMSNorm(d_model, eps)."
    )


def _block_width(c: Checker, cls, case: _ModelCase) -> None:
    """Before the state-dict shapes are compared: a feed-forward whose hidden width is not
    the block's d_ff (blind9b-block-d-ff-hardcoded got "feed_forward.w1.weight has shape
    (64, 16), expected (16, 16)" alone)."""
    args = (case.d_model, case.num_heads, case.d_ff) + (() if case.eps is None else (case.eps,))
    try:
        w1 = cls(*args).state_dict().get("feed_forward.w1.weight")
    except ValueError as exc:
        # b12b: the attention's own check refused a head count that is another of the
        # block's sizes (CausalSelfAttention(d_model, d_ff): d_model not divisible by d_ff)
        found = re.search(r"not divisible by num_heads=(\d+)", str(exc))
        sources = _heads_sources(case.d_model, case.num_heads, case.d_ff)
        fits = [n for n, v in sources.items() if found and v == int(found.group(1))]
        if len(fits) == 1 and int(found.group(1)) != case.num_heads:
            c.fail(
                f"DecoderBlock{args} raised ValueError: {exc}. {found.group(1)} is the block's "
                f"{fits[0]}, passed to the attention where num_heads belongs, "
                f"CausalSelfAttention(d_model, {fits[0]}): build it with the block's arguments, "
                "CausalSelfAttention(d_model, num_heads)."
            )
        return  # said by build()
    except TypeError as exc:
        swapped = _norm_arguments_swapped(cls, args)
        if swapped:
            c.fail(f"DecoderBlock{args} raised TypeError: {exc}. {swapped}")
        return  # said by build()
    except Exception:  # said by build()
        return
    if not hasattr(w1, "shape") or len(w1.shape) != 2 or w1.shape[1] != case.d_model:
        return
    width = int(w1.shape[0])
    if width == case.d_ff:
        return
    known = {4 * case.d_model: "4 * d_model", case.d_model: "d_model"}
    told = f" = {known[width]}" if width in known else ""
    c.fail(
        f"DecoderBlock{args}: its feed-forward's hidden width is {width}{told}, not the d_ff = "
        f"{case.d_ff} the block was given: build it with the block's argument, "
        "SwiGLU(d_model, d_ff), whatever the usual ratio."
    )


_GRADIENT_PATHS = (
    "The forward values are right, but {cause}. Training follows this gradient, so the "
    "layers before the block would learn from a wrong signal. Compute both residual sums "
    "with the tensors themselves, h = x + attn(norm1(x)) and h + feed_forward(norm2(h)), "
    "without .detach(), .data or torch.no_grad()."
)
_CUT_PATHS = {  # {what is cut from autograd: where it is cut}, each a mistake of its own
    "the first residual path carries no gradient: the x added to the attention's output "
    "is cut from autograd (x.detach() + attn(norm1(x)), or x.data)": ("x",),
    "the second residual path carries no gradient: the h added to the feed-forward's "
    "output is cut from autograd (h.detach() + feed_forward(norm2(h)), or h.data)": ("h",),
    "no gradient flows through the attention: what it reads or returns is cut from "
    "autograd (norm1(x).detach(), or its result detached)": ("attn",),
    "no gradient flows through the feed-forward: what it reads or returns is cut from "
    "autograd (norm2(h).detach(), or its result detached)": ("ffn",),
    "neither residual path carries a gradient: the stream added to each sub-layer's output "
    "is cut from autograd": ("x", "h"),
}


def _block_gradient(x, state, case: _ModelCase, pairing: str, cut: tuple[str, ...] = ()):
    """d(sum(block(x) * upstream))/dx in float64 with the paths in ``cut`` detached ("x",
    "h": a residual's stream; "attn", "ffn": a sub-layer's branch); ``upstream`` is
    x's seeded companion (seed + 1)."""
    eps = 1e-5 if case.eps is None else case.eps
    x64 = x.detach().double().requires_grad_(True)  # (batch, len, d_model)
    upstream = randn(tuple(x.shape), case.seed + 1).double()

    def keep(name, t):
        return t.detach() if name in cut else t

    normed = rms_norm_f(x64, sub(state, "norm1"), eps)
    attended = causal_self_attention_f(normed, sub(state, "attn"), case.num_heads, pairing=pairing)
    h = keep("x", x64) + keep("attn", attended)
    fed = swiglu_f(rms_norm_f(h, sub(state, "norm2"), eps), sub(state, "feed_forward"))
    out = keep("h", h) + keep("ffn", fed)
    (grad,) = torch.autograd.grad((out * upstream).sum(), (x64,))
    return out.detach(), grad


def _expect_block_gradient(c: Checker, cls, case: _ModelCase) -> None:
    """The gradient with respect to the block's input, whose forward values are right
    (blind18d-block-residual-detached: x.detach() + attn(norm1(x)) passed): for the sum
    of the output times a seeded upstream gradient, against the float64 oracle's, each
    path cut from autograd a mistake of its own."""
    args = (case.d_model, case.num_heads, case.d_ff) + (() if case.eps is None else (case.eps,))
    module, built, state = build(
        c,
        cls,
        *args,
        name="DecoderBlock",
        reference=ref.DecoderBlock(*args),
        seed=case.seed,
        mode="eval",
    )
    x = randn((case.batch, case.length, case.d_model), case.seed, scale=2.0)
    x.requires_grad_(True)  # (batch, len, d_model), a leaf
    upstream = randn(tuple(x.shape), case.seed + 1)  # dLoss/dout, (batch, len, d_model)
    what = f"{built}(x {tuple(x.shape)})"
    out = c.call(module, x, call_repr=what)
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != tuple(x.shape):
        return  # the value checks said what is wrong
    pairing = next(
        (
            p
            for p in ("half", "adjacent")
            if torch.allclose(
                out.detach().double(), _block_gradient(x, state, case, p)[0], rtol=1e-4, atol=1e-4
            )
        ),
        None,
    )
    if pairing is None:
        return  # the value checks said what is wrong
    if not out.requires_grad:
        c.fail(
            f"{what} does not require grad: your forward takes its result out of autograd (a "
            ".detach(), .data, torch.no_grad() or a round trip through NumPy), so training "
            "could not update anything in or before the block."
        )
    loss = f"({what} * upstream).sum()"
    # d loss / d x, where the call ran (the grader: its sandbox)
    (got_grad_x,) = c.call(call_gradients, module, (x,), upstream, call_repr=f"{loss}.backward()")
    if got_grad_x is None:
        c.fail(
            f"{loss}.backward() left x without a gradient although the result requires grad: "
            "in your forward, x is cut from autograd wherever it is used (x.detach(), x.data), "
            "so the layers before the block would never learn. Compute with x itself."
        )
    c.expect_close(
        got_grad_x,
        _block_gradient(x, state, case, pairing)[1],
        f"The gradient of {loss} with respect to x",
        **tolerance(torch.float32),
        mistakes={
            _GRADIENT_PATHS.format(cause=cause): (_block_gradient(x, state, case, pairing, cut)[1])
            for cause, cut in _CUT_PATHS.items()
        },
        hint="The forward values are right, so something in your forward is cut from "
        "autograd (.detach(), .data, torch.no_grad(), a copy made with torch.tensor(...)) "
        "or computed outside it.",
    )


def check_DecoderBlock(cls, *, hidden: bool = False) -> None:
    _check_layer(
        cls,
        hidden,
        "DecoderBlock",
        lambda case: (
            (case.d_model, case.num_heads, case.d_ff) + (() if case.eps is None else (case.eps,))
        ),
        decoder_block_f,
        _BLOCK_MISTAKES,
        scale=2.0,
        oracle_options=lambda case: {} if case.eps is None else {"eps": case.eps},
        localise=lambda module, x, case: functools.partial(_localise_block, module, x),
        cases=(_VISIBLE_BLOCK, _HIDDEN_ATTENTION),
        inspect=_inspect_block,
        before=_block_width,
        more_mistakes=_norm_placement_mistakes,
        after=_expect_block_gradient,
    )
