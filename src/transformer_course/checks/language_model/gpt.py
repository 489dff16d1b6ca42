"""Checks for lesson 11's GPT (tied embedding, final norm, logits), against ``gpt_f``."""

from __future__ import annotations

import functools
import math
import re

import torch

from transformer_course.checking import Checker
from transformer_course.checking.graph import call_gradients
from transformer_course.checking.init_statistics import init_shape
from transformer_course.checking.inlined_blocks import inlined_departure
from transformer_course.checking.layers import expect_tensor_result
from transformer_course.checking.localise import localise_stack
from transformer_course.checking.modules import build_module, random_state, state_shapes
from transformer_course.checking.oracles import (
    as_float64,
    decoder_block_f,
    gpt_f,
    rms_norm_f,
)
from transformer_course.checking.oracles.state import sub
from transformer_course.checking.output_functions import output_function
from transformer_course.reference import language_model as ref

from .attention import (
    _HIDDEN_ATTENTION,
    _VISIBLE_ATTENTION,
    _attention_hints,
    _expect_oracle_and_causal,
    _ModelCase,
    _right_at,
)
from .common import (
    _plain_generator,
    _same_in_train_mode,
    expect_layers_in_init,
    expect_weights_kept,
    persistent_buffers,
)

_UNTIED = (
    "Your output layer is not tied to the embedding: its weight is a separate matrix. Use "
    "the embedding's weight for the logits (x @ self.embedding.weight.T), or make the "
    "output layer share it (self.output.weight = self.embedding.weight)."
)
_NO_FINAL_NORM = (
    "Your GPT has no final norm before the logits: a pre-norm stack ends with "
    "self.norm(x) (RMSNorm), since nothing else normalises the residual stream."
)
_SCALED = (
    "You multiplied the embeddings by sqrt(d_model), as the 2017 Transformer does before "
    "adding its positional encoding. This GPT has no positional encoding to balance: use "
    "self.embedding(ids) as it is."
)
_PROBS = (
    "Your GPT returns probabilities (a softmax over the vocabulary): return the logits; "
    "the cross-entropy and sample take logits."
)
_GPT_FUTURE = (
    "Changing the last token changed the logits at earlier positions: the model can see the "
    "future. Every attention must be causal."
)
_GPT_NOT_CAUSAL = (
    "Your GPT's logits at a position depend on the tokens after it: its attention is not "
    "causal, every query sees every key. A language model must predict each token from the "
    "tokens before it only: every block's attention masks the future with "
    "look_ahead_mask(len) (True = may attend), as your CausalSelfAttention does."
)
_GPT_MISTAKES = {  # {message: gpt_f's knobs for that mistake}
    _NO_FINAL_NORM: {"final_norm": False},
    _SCALED: {"scale_embedding": True},
    _PROBS: {"softmax": True},
    _GPT_NOT_CAUSAL: {"causal": False},
}


_GPT_BLOCK_EPS = (
    "Your blocks ignore the eps the GPT was given: they normalise with the default 1e-5 "
    "(the final norm uses the right one). Pass it on when you build them, "
    "DecoderBlock(d_model, num_heads, d_ff, eps)."
)
_GPT_FINAL_EPS = (
    "Your final norm ignores the eps the GPT was given: it normalises with the default 1e-5 "
    "(the blocks use the right one). Build it with RMSNorm(d_model, eps)."
)
_GPT_NO_EPS = (
    "Your GPT ignores the eps it was given: its blocks and its final norm normalise with the "
    "default 1e-5. Pass it on, DecoderBlock(d_model, num_heads, d_ff, eps) and "
    "RMSNorm(d_model, eps)."
)


def _eps_mistakes(eps: float | None) -> dict:
    """The GPT's table plus, for a case given an eps, the eps not passed on to the blocks,
    the final norm, or both (blind8b-gpt-blocks-default-eps passed every case before:
    none gave an eps)."""
    if eps is None:
        return _GPT_MISTAKES
    return {
        **_GPT_MISTAKES,
        _GPT_BLOCK_EPS: {"block_eps": 1e-5},
        _GPT_FINAL_EPS: {"final_eps": 1e-5},
        _GPT_NO_EPS: {"block_eps": 1e-5, "final_eps": 1e-5},
    }


_EMBEDDING_STD = 0.02  # GPT-2's initialisation of the embedding, part of the contract
_INIT_SIZES = (512, 64, 2, 32, 1)  # vocab, d_model, heads, d_ff, layers: 32,768 weights


def _init_shape_cause(weight: torch.Tensor, d_model: int) -> str:
    """Round 37 (blind29c-gpt-embedding-truncated-at-one-std, told "or another standard
    deviation was used"): the distribution the weights were drawn from, read off them
    (checking.init_statistics), and what it says about the call that drew them."""
    shape = init_shape(weight)
    if shape is None:
        return ""
    linear = 1 / math.sqrt(d_model)
    if shape.kind == "truncated normal":
        meant = abs(shape.scale - _EMBEDDING_STD) < 0.05 * _EMBEDDING_STD
        return (
            f"Yours are a normal distribution cut at ±{shape.bound:.3g}: every weight lies "
            f"within it, and they spread as a normal of standard deviation {shape.scale:.3g} "
            f"truncated at {shape.cut_in_stds:.2g} of its standard deviations, which leaves "
            f"{shape.std:.3g}. "
            + (
                "nn.init.trunc_normal_'s a and b are absolute bounds, not multiples of std: "
                f"a={-shape.bound:.2g}, b={shape.bound:.2g} with std={_EMBEDDING_STD} cuts "
                "the normal at "
                + (
                    "one standard deviation"
                    if round(shape.cut_in_stds, 1) == 1
                    else f"{shape.cut_in_stds:.2g} standard deviations"
                )
                + ". Write nn.init.normal_(self.embedding.weight, std=0.02); to cut the tails, "
                "give bounds a few standard deviations out (a=-0.04, b=0.04 cuts at two)."
                if meant
                else "Draw from a normal of standard deviation 0.02: "
                "nn.init.normal_(self.embedding.weight, std=0.02)."
            )
        )
    if shape.kind == "uniform":
        linear_default = abs(shape.bound - linear) < 0.02 * linear
        return (
            f"Yours are uniform on [-{shape.bound:.3g}, {shape.bound:.3g}], not normal"
            + (
                f": ±1/sqrt(d_model) = ±{linear:.3g} is nn.Linear's default initialisation, "
                "so the embedding ends up holding an nn.Linear's weights (a tie written the "
                "other way round, self.embedding.weight = self.output.weight, after "
                "initialising the embedding)"
                if linear_default
                else " (a uniform_ initialisation)"
            )
            + ". Draw the embedding from a normal of standard deviation 0.02, "
            "nn.init.normal_(self.embedding.weight, std=0.02), and tie the output to it."
        )
    if shape.kind == "constant":
        return (
            f"Every one of yours is {float(weight.flatten()[0]):.3g}: a constant "
            "initialisation (zeros_ or fill_) where nn.init.normal_(self.embedding.weight, "
            "std=0.02) belongs."
        )
    return ""


def _check_embedding_init(c: Checker, cls, seed: int) -> None:
    """A newly built GPT's embedding weights have the contract's standard deviation: with
    the output tied to the embedding, nn.Embedding's default (1) makes the first logits
    about sqrt(d_model) times too large, and training from there ends far above the
    lesson's loss although the model computes the right function."""
    built = f"GPT{_INIT_SIZES}"
    torch.manual_seed(seed)  # the Checker puts the global stream back afterwards
    module = c.call(cls, *_INIT_SIZES, call_repr=built)
    state = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    weight = state.get("embedding.weight")
    c.expect_true(weight is not None, f"{built} has no state-dict key embedding.weight.")
    std = float(weight.detach().double().std())
    if 0.015 <= std <= 0.025:  # 32,768 draws: a correct init lands within 1% of 0.02
        _check_norm_gains(c, built, state)
        return
    if 0.8 <= std <= 1.2:
        # the mean tells the two apart only roughly (0.02 against a standard error of
        # about 0.006 over 32,768 draws): both candidates are named, the mean shown
        mean = float(weight.detach().double().mean())
        cause = (
            f"A standard deviation of 1 (their mean is {mean:.3f}) comes from either "
            "nn.Embedding's default initialisation left in place, or 0.02 passed as "
            "normal_'s second positional argument, which is the mean: "
            "nn.init.normal_(w, 0.02) draws with mean 0.02 and standard deviation 1. Write "
            "nn.init.normal_(self.embedding.weight, std=0.02), the keyword, after creating it."
        )
    elif shape := _init_shape_cause(weight, _INIT_SIZES[1]):
        cause = shape
    else:
        cause = (
            "Is the initialisation applied to the tensor the model ends up with? For example, "
            "tying with self.embedding.weight = self.output.weight after initialising the "
            "embedding replaces it with the nn.Linear's initial weights; or another standard "
            "deviation was used."
        )
    _check_norm_gains(c, built, state)
    c.fail(
        f"A newly built {built} has embedding weights with standard deviation {std:.3g}; the "
        f"contract asks for a normal initialisation with standard deviation {_EMBEDDING_STD} "
        "(GPT-2's). "
        + (
            "The output layer is tied to the embedding, so larger weights make the first "
            "logits far too large: the model computes the right function, but training "
            "starts from a huge loss and ends well above the lesson's. "
            if std > _EMBEDDING_STD
            else "The output layer is tied to the embedding, so this scale sets both the "
            "embeddings and the first logits: the model computes the right function, but "
            "trains from another start than the lesson's. "
        )
        + cause
    )


def _localise_gpt(module, ids: torch.Tensor, state, case: _ModelCase, pairing: str) -> str:
    """Which step of the learner's GPT first departs: the blocks' chaining (each fed the
    previous block's output, the first the embeddings), each block's result, the final
    norm before the tied output layer."""
    p = as_float64(state)
    embedding = p["embedding.weight"]  # (vocab_size, d_model)

    eps = 1e-5 if case.eps is None else case.eps

    def block(h, i):
        return decoder_block_f(h, sub(p, f"layers.{i}"), case.num_heads, eps, pairing=pairing)

    return localise_stack(
        module,
        lambda: module(ids),
        embedding[ids],
        case.num_layers,
        final=lambda t: rms_norm_f(t, sub(p, "norm"), eps) @ embedding.T,
        unnormed=lambda t: t @ embedding.T,
        norm=lambda t: rms_norm_f(t, sub(p, "norm"), eps),
        layer_oracle=block,
        input_name="the embeddings of the ids",
        output_rows=("embedding.weight", embedding),
    ) or inlined_departure(  # blind30c-gpt-parallel-residual: the blocks' parts called
        module,
        lambda: module(ids),
        embedding[ids],
        case.num_layers,
        branches=(("norm1", "attn"), ("norm2", "feed_forward")),
        final="norm",
        input_name="the embeddings of the ids",
    )


_LAST_POSITION_ONLY = (
    "one row of logits per sequence, not one per position (batch, len, vocab_size). "
    "Did you keep only the last position (x[:, [-1]], generation's shortcut)? Training "
    "needs the logits of every position: logits[:, t] predicts the token after ids[:, t]."
)


def _one_position_short(what: str, got: torch.Tensor, ids: torch.Tensor, state, case) -> str:
    """Logits of len - 1 positions (b13b): which end was cut when the values tell, the
    shift to next-token targets done inside the model."""
    eps = 1e-5 if case.eps is None else case.eps
    expected = gpt_f(ids, state, case.num_heads, case.num_layers, eps)  # (batch, len, vocab)
    yours = got.detach().double()  # (batch, len - 1, vocab)
    ends = {
        "the last position's": expected[:, :-1],
        "the first position's": expected[:, 1:],
    }
    cut = [end for end, kept in ends.items() if torch.allclose(yours, kept, atol=1e-4)]
    dropped = (
        f"{cut[0]} logits are dropped ({'[:, :-1]' if 'last' in cut[0] else '[:, 1:]'} "
        "inside the model)"
        if len(cut) == 1
        else "one position is dropped"
    )
    return (
        f"{what} should have shape {(case.batch, case.length, case.vocab)}, but it has shape "
        f"{tuple(got.shape)}: len - 1 positions, {dropped}. The model returns the logits of "
        "every position, logits[:, t] predicting the token after ids[:, t]; the shift to "
        "next-token targets is next_token_batches' job (its targets are the ids one place "
        "on), not the model's."
    )


def _layer_count(found, num_layers: int) -> str:
    """How many blocks the state dict holds, when that is not num_layers: "" otherwise."""
    indices = {int(key.split(".")[1]) for key in found if re.match(r"layers\.\d+\.", key)}
    if not indices or len(indices) == num_layers:
        return ""
    return (
        f"Your GPT holds {len(indices)} blocks (layers.{min(indices)} .. "
        f"layers.{max(indices)}), and it was given num_layers = {num_layers}: build exactly "
        "num_layers of them, [DecoderBlock(...) for _ in range(num_layers)]."
    )


#: {rule: (the number of blocks it builds for num_layers, what it likely is)}
_BLOCK_COUNT_RULES = {
    "num_layers - 1, one block fewer than asked": (
        lambda n: n - 1,
        "range(num_layers - 1), or a range that starts at 1: range(1, num_layers)",
    ),
    "num_layers + 1, one block more than asked": (
        lambda n: n + 1,
        "range(num_layers + 1), or range(0, num_layers + 1) written for an inclusive end",
    ),
    "2 * num_layers, twice as many as asked": (
        lambda n: 2 * n,
        "two blocks per layer (an attention block and a feed-forward block each counted as "
        "one), or the list built twice",
    ),
}


def _block_count_rule(cls, args: tuple, num_layers: int) -> str:
    """How the number of blocks follows num_layers, read from builds with num_layers 3 and
    5 besides the check's (blind12i-gpt-one-layer-short: range(num_layers - 1) was told
    only the count, which a fixed number of blocks gives too at num_layers = 2): the rule
    that fits all three, a fixed number when the count never changes, "" otherwise."""
    counts = {}
    for layers in (num_layers, 3, 5):
        try:
            with torch.random.fork_rng():
                found = cls(*args[:4], layers, *args[5:]).state_dict()
        except Exception:  # a probe: the check's own builds tell errors
            return ""
        counts[layers] = len(
            {int(key.split(".")[1]) for key in found if re.match(r"layers\.\d+\.", key)}
        )
    shown = ", ".join(f"{count} for num_layers = {layers}" for layers, count in counts.items())
    rules = [
        (rule, likely)
        for rule, (count, likely) in _BLOCK_COUNT_RULES.items()
        if all(count(layers) == got for layers, got in counts.items())
    ]
    if len(rules) == 1:
        return f" Your block counts are {shown}: {rules[0][0]} ({rules[0][1]}?)."
    if len(set(counts.values())) == 1:
        return (
            f" Your block counts are {shown}: a fixed number, whatever num_layers (is "
            "num_layers used at all?)."
        )
    return ""


def _blocks_follow_num_heads(cls, vocab: int, d_ff: int) -> str:
    """Whether the number of blocks follows num_heads rather than num_layers (b16b:
    DecoderBlock(d_model, num_layers, ...) for _ in range(num_heads), right whenever the
    two are equal, as in the visible case): two builds with the two exchanged, each block
    count read from the state dict; the message, or "" (also when a build fails)."""
    d_model = 16
    counts = []
    for num_heads, num_layers in ((4, 2), (2, 4)):
        try:
            with torch.random.fork_rng():
                found = cls(vocab, d_model, num_heads, d_ff, num_layers).state_dict()
        except Exception:  # a probe: the check's own builds tell errors
            return ""
        indices = {int(key.split(".")[1]) for key in found if re.match(r"layers\.\d+\.", key)}
        counts.append(len(indices))
    if counts != [4, 2]:
        return ""
    return (
        f"GPT({vocab}, {d_model}, 4, {d_ff}, 2) holds 4 blocks and GPT({vocab}, {d_model}, 2, "
        f"{d_ff}, 4) holds 2: your number of blocks is num_heads, not num_layers, so "
        "num_heads and num_layers are swapped (right only when the two are equal): "
        "range(num_heads) where range(num_layers) belongs, and then each block's heads are "
        "likely num_layers, DecoderBlock(d_model, num_layers, ...), or the two parameters "
        "exchanged in __init__'s signature. The order is GPT(vocab_size, d_model, num_heads, "
        "d_ff, num_layers): [DecoderBlock(d_model, num_heads, d_ff, eps) for _ in "
        "range(num_layers)]."
    )


def _check_norm_gains(c: Checker, built: str, state) -> None:
    """Every parameter a newly built reference GPT holds at ones (the RMSNorm gains) is at
    ones in the learner's newly built GPT too (blind10h-gpt-init-every-parameter: every
    parameter re-drawn from N(0, 0.02), the gains included, was uncaught: the checks load
    their own weights)."""
    reference = ref.GPT(*_INIT_SIZES).state_dict()
    ones = [k for k, v in reference.items() if v.dim() == 1 and bool((v == 1).all())]
    wrong = [
        k
        for k in ones
        if isinstance(state.get(k), torch.Tensor)
        and state[k].shape == reference[k].shape
        and not bool((state[k] == 1).all())
    ]
    if not wrong:
        return
    first = state[wrong[0]].detach().double()
    constant = bool((first == first[0]).all())
    cause = (
        f"Every entry is {float(first[0]):g}: does your RMSNorm start its weight there? It "
        "is nn.Parameter(torch.ones(d_model))."
        if constant
        else "They were drawn at random: initialise the embedding alone, "
        "nn.init.normal_(self.embedding.weight, std=0.02); a loop over self.parameters() "
        "(or a self.apply whose init also reaches the norms) redraws the gains too."
    )
    c.fail(
        f"A newly built {built} has {len(wrong)} of its {len(ones)} norm gains not at ones "
        f"({wrong[0]}: mean {float(first.mean()):.3g}, standard deviation "
        f"{float(first.std()):.3g}). An RMSNorm's weight starts at ones, so that the "
        "untrained norms only normalise; far from 1 they rescale every sub-layer's input "
        f"(and the logits) from the first step. {cause}"
    )


_PRODUCT_SHAPES = re.compile(
    r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)"
)


def _untransposed_embedding_hint(rows: int, d_model: int, vocab: int):
    """A hint for the logits' product with the embedding matrix as stored, (vocab,
    d_model), where its transpose belongs: PyTorch names (batch·len x d_model) and (vocab x
    d_model)."""

    def when(exc: BaseException) -> bool:
        found = _PRODUCT_SHAPES.search(str(exc))
        return bool(found) and tuple(map(int, found.groups())) == (rows, d_model, vocab, d_model)

    text = (
        f"The right operand is ({vocab}, {d_model}) = (vocab, d_model): the embedding matrix "
        "as it is stored, one row per token, met the (batch·len, d_model) vectors. The "
        "logits need its transpose, x @ self.embedding.weight.T (or F.linear(x, "
        "self.embedding.weight), which transposes for you). Or, with an output layer, was it "
        "built with its sizes swapped? nn.Linear(d_model, vocab_size) stores a (vocab, "
        "d_model) weight, the embedding's shape, so that the two can be one tensor."
    )
    return when, text


_LOGITS_CUT = (
    "{what} does not require grad: your forward takes the logits out of autograd (a "
    ".detach(), .data, torch.no_grad() or a round trip through NumPy), so training could "
    "not update the model. Compute with tensor operations all the way."
)


def _oracle_gradients(ids, upstream, state, case: _ModelCase, eps: float, pairing: str):
    """The float64 oracle's gradients of (logits * upstream).sum() for every state-dict
    entry, and the embedding's two parts: {key: gradient}, (through the lookup, through
    the tied output layer), each (vocab_size, d_model)."""
    p = {key: value.double().requires_grad_(True) for key, value in state.items()}
    embedding = p["embedding.weight"]  # (vocab_size, d_model)
    looked_up = embedding.detach()[ids].requires_grad_(True)  # (batch, len, d_model)
    h = looked_up
    for i in range(case.num_layers):
        h = decoder_block_f(h, sub(p, f"layers.{i}"), case.num_heads, eps, pairing=pairing)
    logits = rms_norm_f(h, sub(p, "norm"), eps) @ embedding.T  # (batch, len, vocab_size)
    grads = torch.autograd.grad((logits * upstream.double()).sum(), [looked_up, *p.values()])
    expected = dict(zip(p, grads[1:], strict=True))
    through_output = expected["embedding.weight"]
    through_lookup = torch.zeros_like(through_output).index_add_(
        0, ids.flatten(), grads[0].reshape(-1, embedding.shape[1])
    )
    expected["embedding.weight"] = through_output + through_lookup
    return expected, (through_lookup, through_output)


def _rows_close(got: torch.Tensor, expected: torch.Tensor, atol: float) -> torch.Tensor:
    """Which rows of two (vocab_size, d_model) gradients agree: bool (vocab_size,)."""
    return ((got.double() - expected).abs() <= atol + 1e-3 * expected.abs()).all(dim=-1)


def _embedding_gradient_cause(got: torch.Tensor, ids: torch.Tensor, parts, atol: float) -> str:
    """Why the embedding's gradient is wrong, when its rows say it: some tokens' rows
    missing the lookup's contribution (padding_idx), or every row missing the tied output
    layer's; "" otherwise."""
    through_lookup, through_output = parts
    expected = through_lookup + through_output
    wrong = (~_rows_close(got, expected, atol)).nonzero().flatten().tolist()
    present = sorted(set(ids.flatten().tolist()))
    if wrong and bool(_rows_close(got[wrong], through_output[wrong], atol).all()):
        if wrong == [0]:
            return (
                "The logits are right, but token 0's embedding row gets no gradient from the "
                "lookup (only from the tied output layer), while every other row's is right: "
                "that is nn.Embedding(..., padding_idx=0), which freezes the pad id's row in "
                "a translation model. A language model has no padding, and token 0 is a "
                "token like any other: build nn.Embedding(vocab_size, d_model) without "
                "padding_idx."
            )
        if wrong == present:
            return (
                "The logits are right, but no gradient reaches the embedding through the "
                "lookup, only through the tied output layer: the embeddings of the ids are "
                "detached (self.embedding(ids).detach(), .data, or computed under "
                "torch.no_grad()). Look them up as they are, x = self.embedding(ids)."
            )
        return (
            f"The logits are right, but the embedding rows of the tokens {wrong[:6]} get no "
            "gradient from the lookup, only from the tied output layer (the other tokens' "
            "rows are right): nn.Embedding's padding_idx freezes one row so; a language "
            "model has no padding. Build nn.Embedding(vocab_size, d_model) without it."
        )
    if bool(_rows_close(got, through_lookup, atol).all()):
        return (
            "The logits are right, but the tied output layer passes no gradient to the "
            "embedding, only the lookup does: the logits use a detached copy of its weight "
            "(self.embedding.weight.detach() or .data). Use the parameter itself, x @ "
            "self.embedding.weight.T, so that both uses train it."
        )
    return ""


def _expect_gradients(c: Checker, build, case: _ModelCase, state, eps: float) -> None:
    """The gradients of a GPT whose logits are right, for every state-dict entry, with
    token 0 among the ids (blind13b: nn.Embedding(..., padding_idx=0) passed, its forward
    right, token 0's row never trained through the lookup)."""
    module, built = build()
    ids = torch.randint(
        1, case.vocab, (case.batch, case.length), generator=_plain_generator(case.seed + 29)
    )
    ids[0, 1] = ids[-1, -1] = 0  # token 0, twice
    upstream = torch.randn(
        (case.batch, case.length, case.vocab), generator=_plain_generator(case.seed + 31)
    )  # dLoss/dlogits, (batch, len, vocab_size)
    what = f"{built}(ids {tuple(ids.shape)} holding token 0)"
    logits = c.call(module, ids, call_repr=what)
    if not isinstance(logits, torch.Tensor) or tuple(logits.shape) != tuple(upstream.shape):
        return  # the value checks said what is wrong
    if not logits.requires_grad:
        c.fail(_LOGITS_CUT.format(what=what))
    oracle = functools.partial(gpt_f, ids, state, case.num_heads, case.num_layers, eps)
    pairing = next(  # the learner's RoPE pairing (its logits are right in one of them)
        (
            way
            for way in ("half", "adjacent")
            if torch.allclose(logits.detach().double(), oracle(pairing=way), rtol=1e-4, atol=1e-4)
        ),
        "half",
    )
    parameters = c.call(
        module.state_dict, keep_vars=True, call_repr=f"{built}.state_dict(keep_vars=True)"
    )
    loss = f"({what} * upstream).sum()"
    # d loss / d each parameter, by every name, where the call ran (the grader: its sandbox)
    gradients = c.call(
        call_gradients, module, (ids,), upstream, "parameters", call_repr=f"{loss}.backward()"
    )
    expected, parts = _oracle_gradients(ids, upstream, state, case, eps, pairing)
    for key, right in expected.items():
        parameter = parameters.get(key)
        if not isinstance(parameter, torch.Tensor):
            continue  # the state-dict checks said what is wrong
        got_grad = gradients.get(key)
        c.expect_true(
            got_grad is not None,
            f"{loss}.backward() left {key} without a gradient, although the logits are "
            "right: it is used detached in forward (.data, .detach(), torch.no_grad()) or "
            "has requires_grad off, so training never changes it.",
        )
        scale = float(right.abs().max())
        atol = 1e-4 * max(scale, 1e-3)
        explain = (
            (lambda got=got_grad, atol=atol: _embedding_gradient_cause(got, ids, parts, atol))
            if key == "embedding.weight"
            else None
        )
        c.expect_close(
            got_grad,
            right,
            f"The gradient of {loss} with respect to {key}",
            rtol=1e-3,
            atol=atol,
            explain=explain,
        )


def _norm_over_vocabulary(c: Checker, cls, args: tuple, vocab: int, d_model: int) -> None:
    """Before the state-dict shapes are compared: a final norm built over vocab_size
    features, which fits only the logits (b15b-gpt-final-norm-on-logits got its shape
    alone, not where such a norm goes)."""
    try:
        gain = cls(*args).state_dict().get("norm.weight")
    except Exception:  # build_module says what went wrong
        return
    if vocab == d_model or tuple(getattr(gain, "shape", ())) != (vocab,):
        return
    c.fail(
        f"GPT{args}: norm.weight has shape ({vocab},), vocab_size features, expected "
        f"({d_model},), d_model: a final norm over the vocabulary fits only the logits "
        "(batch, len, vocab_size), after the tied output. The final norm normalises the "
        "blocks' output, the stream, before the output: self.norm = RMSNorm(d_model, eps) "
        "and logits = self.norm(x) @ self.embedding.weight.T."
    )


def check_GPT(cls, *, hidden: bool = False) -> None:
    with Checker("GPT", hidden=hidden) as c:
        c.require_callable(cls)
        for index, case in enumerate(_HIDDEN_ATTENTION if hidden else _VISIBLE_ATTENTION):
            sizes = (case.vocab, case.d_model, case.num_heads, case.d_ff, case.num_layers)
            args = sizes if case.eps is None else (*sizes, case.eps)
            reference = ref.GPT(*sizes)
            expected = state_shapes(reference)
            state = random_state(expected, case.seed)
            state["embedding.weight"] = state["embedding.weight"] * 3.0  # larger logits
            probe_ids = torch.randint(
                0, case.vocab, (case.batch, case.length), generator=_plain_generator(case.seed)
            )
            expect_layers_in_init(c, cls, args, probe_ids, reference, "GPT")
            count = functools.partial(_layer_count, num_layers=case.num_layers)
            try:  # the number of blocks first, before a long list of keys
                blocks = count(cls(*args).state_dict())
            except Exception:  # build_module below says what went wrong
                blocks = ""
            if index == 0 or blocks:
                swapped = _blocks_follow_num_heads(cls, case.vocab, case.d_ff)
                c.expect_true(not swapped, swapped)
            if blocks:
                c.fail(f"GPT{args}: {blocks}{_block_count_rule(cls, args, case.num_layers)}")
            _norm_over_vocabulary(c, cls, args, case.vocab, case.d_model)
            build = functools.partial(
                build_module,
                c,
                cls,
                *args,
                name="GPT",
                expected_shapes=expected,
                keys_hint=count,
                state=state,
                mode="eval",
                allow_extra_keys=True,
            )
            module, built = build()
            loaded = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
            extra = set(loaded) - set(expected)
            unexpected = sorted(extra - {"output.weight", "lm_head.weight"})
            if unexpected and all(
                key.endswith(".bias") and key[: -len("bias")] + "weight" in extra
                for key in unexpected
            ):
                c.fail(
                    f"{built}: your output layer has a bias ({', '.join(unexpected)}): the tied "
                    "output is x @ embedding.weight.T, with no bias. Build it with "
                    "nn.Linear(d_model, vocab_size, bias=False), or compute "
                    "x @ self.embedding.weight.T."
                )
            buffers = persistent_buffers(
                module, [*expected, *(set(extra) - set(unexpected))], built
            )
            c.expect_true(not buffers, buffers)
            c.expect_true(
                not unexpected,
                f"{built} has unexpected state-dict keys {unexpected}: the contract's keys are "
                "embedding.weight, layers.*, norm.weight (and output.weight if tied). "
                + count(loaded),
            )
            for key in extra:
                c.expect_true(
                    torch.equal(loaded[key], loaded["embedding.weight"]), f"{built}: {_UNTIED}"
                )
            ids = torch.randint(
                0, case.vocab, (case.batch, case.length), generator=_plain_generator(case.seed)
            )
            what = f"{built}(ids {tuple(ids.shape)})"
            hints = [
                *_attention_hints(case.batch, case.length, case.d_model, case.num_heads),
                _untransposed_embedding_hint(case.batch * case.length, case.d_model, case.vocab),
                (
                    "Module [ModuleList] is missing the required",
                    "An nn.ModuleList only holds the blocks (so that their weights are "
                    "registered); it has no forward of its own and cannot be called, as an "
                    "nn.Sequential could. Run the blocks in turn: for layer in self.layers: "
                    "x = layer(x).",
                ),
            ]
            got = c.call(module, ids, call_repr=what, hints=hints)
            if (
                isinstance(got, torch.Tensor)
                and case.length > 1
                and tuple(got.shape) == (case.batch, 1, case.vocab)
            ):
                c.fail(f"{what} has shape {tuple(got.shape)}: {_LAST_POSITION_ONLY}")
            if (
                isinstance(got, torch.Tensor)
                and case.length > 1
                and tuple(got.shape) == (case.batch, case.length - 1, case.vocab)
            ):
                c.fail(_one_position_short(what, got, ids, state, case))
            expect_tensor_result(c, got, (case.batch, case.length, case.vocab), what)
            expect_weights_kept(c, module, state, what, looked_up={"embedding.weight": ids})
            eps = 1e-5 if case.eps is None else case.eps
            oracle = functools.partial(gpt_f, ids, state, case.num_heads, case.num_layers, eps)
            localise = functools.partial(_localise_gpt, module, ids, state, case)

            # round 37 (blind29c-gpt-final-logit-softcap, blamed on the final norm): a step
            # applied to the logits after the tied output layer, read off got and expected
            def where(pairing, got=got, oracle=oracle, localise=localise):
                after = output_function(
                    got, oracle(pairing=pairing), "logits", ("shift", "soft-cap", "clamp")
                )
                if after:
                    return (
                        f"{after} The blocks and the final norm are right; the model returns "
                        "the tied output layer's logits as they are, norm(x) @ "
                        "self.embedding.weight.T, with nothing applied after it."
                    )
                return localise(pairing)

            _expect_oracle_and_causal(
                c, module, ids, got, oracle, what, _eps_mistakes(case.eps), _GPT_FUTURE, where
            )
            if index == 0:
                _expect_gradients(c, build, case, state, eps)
            longer = torch.randint(
                0,
                case.vocab,
                (case.batch, case.length + 5),
                generator=_plain_generator(case.seed + 17),
            )
            later = functools.partial(gpt_f, longer, state, case.num_heads, case.num_layers, eps)
            if not _right_at(module, longer, lambda pairing, later=later: later(pairing=pairing)):
                # blind10h: something kept from the first call (CausalSelfAttention's own
                # check says which when it is the attention)
                fresh, _ = build()
                call = f"{built}(ids {tuple(longer.shape)})"
                c.expect_true(
                    not _right_at(
                        fresh, longer, lambda pairing, later=later: later(pairing=pairing)
                    ),
                    f"{call} is right on a fresh model but not when the same model was called "
                    f"first on a shorter sequence (length {case.length}, then "
                    f"{case.length + 5}): your model keeps something from its first call (a "
                    "rotation table, a mask or a length stored on self) and reuses it. Compute "
                    "what depends on the length in every call, or rebuild it when the length "
                    "grows.",
                )
                c.fail(
                    f"{call} is not what the reference gives, although length {case.length} "
                    "was right: something in your model depends on the length (a table or "
                    "mask built for a fixed number of positions?)."
                )
        _check_embedding_init(c, cls, seed=101 if hidden else 1)
        _same_in_train_mode(c, cls, args, ids, "GPT")
