"""Checks for lesson 09's ``Transformer``: each case's encode, decode and forward
against the reference in float64, train and eval modes, dropout, and the gradient."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from traceback import walk_tb
from typing import Any

import torch
from torch import nn

from transformer_course.checking import Checker, tolerance
from transformer_course.checking.combinations import describe_weights, fit_weights
from transformer_course.checking.inputs import vocab_token_ids
from transformer_course.checking.layers import value_or_none
from transformer_course.checking.localise import arguments_received, record_calls
from transformer_course.checking.localise import diagnose as name_mistakes
from transformer_course.checking.mask_relations import mask_relation
from transformer_course.checking.mask_sources import (
    NO_MASK,
    OTHER_IDS,
    PAD_ZERO,
    VECTORS,
    agreeing_sources,
    key_mask_sources,
    probes,
)
from transformer_course.checking.mode_paths import right_in_eval, train_only_sentence
from transformer_course.checking.modules import build_module, expect_contract_defaults
from transformer_course.checking.partial_slices import rows_filled_at
from transformer_course.checking.position_indexing import indexing_reading, rows_added
from transformer_course.checking.projection_sources import projection_sentence
from transformer_course.reference import transformer as ref
from transformer_course.reference.masking import (
    decoder_self_attention_mask,
    look_ahead_mask,
    padding_mask,
)

from .common import _POSITIONS, _close
from .model_build import _CALL_HINTS, _build, _expect_vocab_check, _length_hint
from .model_cases import (
    _CROSS_MASK_FROM_MEMORY,
    _CROSS_MASK_FROM_TARGET,
    _ENCODER_ON_TARGET,
    _FUTURE_LEAK,
    _IGNORES_MEMORY,
    _MEMORY_AS_QUERIES,
    _MEMORY_RECOMPUTED,
    _NO_CROSS_MASK,
    _NORM_FIRST_IGNORED,
    HIDDEN_TRANSFORMER,
    VISIBLE_TRANSFORMER,
    _Case,
    _case_state,
    _cross_pad0,
    case_oracles,
    decode_mistakes,
    encode_mistakes,
    reference_model,
)

_INVERTED_LOOK_AHEAD = (
    "Changing the LAST target token changed the logits at earlier positions, and changing "
    "the FIRST one left the logits of every later position unchanged: position t sees the "
    "tokens after it, never those before it. The look-ahead part of your mask is "
    "inverted: True above the diagonal, at the later tokens (torch.triu(ones, diagonal=1), "
    "or ~look_ahead_mask), which is nn.Transformer's convention (True = blocked); this "
    "course's masks are True where attention is ALLOWED, the past and the position itself "
    "(torch.tril). Use decoder_self_attention_mask(tgt_ids, self.pad_id)."
)


def _limited_reach(change: torch.Tensor, case) -> str:
    """The change of the logits at the positions before the last (rows, len_tgt - 1,
    vocab) when only the LAST target token was changed. Each layer's self-attention
    carries a token's change back as far as the mask lets a position look ahead, so after
    num_layers layers it reaches back num_layers x that far. When only the last few
    positions changed (a contiguous run ending just before the last, the first position
    untouched) and their number is a multiple of num_layers, the mask lets each position
    see that many tokens ahead: named, with the look-ahead part that gives it. "" otherwise
    (no mask at all, or a pattern this does not explain)."""
    if case.train or change is None:
        return ""  # dropout's draws change with every call: no clean pattern
    moved = change.detach().abs().amax(dim=(0, 2)) > 1e-4  # (len_tgt - 1,)
    length = moved.shape[0] + 1  # len_tgt
    if not bool(moved.any()) or bool(moved[0]):
        return ""
    first = int(moved.nonzero()[0, 0])  # the earliest position the change reached
    if not bool(moved[first:].all()):
        return ""
    reach = length - 1 - first  # positions back from the last token
    if reach % case.num_layers:
        return ""
    ahead = reach // case.num_layers
    later = "the next token" if ahead == 1 else f"the next {ahead} tokens"
    return (
        f"Changing the LAST target token (position {length - 1}) changed the logits of the "
        f"{reach} position(s) just before it ({first} .. {length - 2}) and of none earlier: "
        f"with {case.num_layers} layer(s), each letting a change travel back as far as a "
        f"position may look ahead, every position sees {later} after it as well as the past. "
        f"The look-ahead part of your mask is {ahead} diagonal(s) too wide: it allows key j "
        f"when j <= i + {ahead} (torch.tril(ones, diagonal={ahead}), or an index comparison "
        f"off by {ahead}), where it should allow j <= i only: torch.tril(ones, diagonal=0). Use "
        "decoder_self_attention_mask(tgt_ids, self.pad_id)."
    )


# ----------------------------------------------------------- comparing
def _expect_attached(c, got, call: str, method: str, parts: str) -> None:
    """The family 'a right result cut off from the parameters': a method whose values are
    right but whose result has requires_grad False (a .detach() or torch.no_grad() in it),
    named for the method, since training sends the gradient back through it."""
    c.expect_true(
        not isinstance(got, torch.Tensor) or got.requires_grad,
        f"{call} gives the right values, but they are cut off from the model's parameters "
        f"(requires_grad is False): a .detach() or torch.no_grad() in {method}. The loss's "
        f"gradients then never reach {parts}, which never learn (lesson 10 trains through "
        f"{method}).",
    )


def _shifted_target_rows(tgt, src, pad_id: int, decode_f, encode_f) -> dict:
    """The family 'the target shifted again inside forward' (blind28b-tr-forward-shifts-
    target-right, told only the largest difference): tgt_ids is already the decoder's
    input, [<bos>] + target, yet forward shifts it one step right (its first token
    repeated, or a pad put in front) or one step left; each named with what it does."""
    # tgt: (batch, len_tgt)
    pad = torch.full_like(tgt[:, :1], pad_id)  # (batch, 1)
    shifts = {
        "one step to the right with its first token repeated, cat([tgt_ids[:, :1], "
        "tgt_ids[:, :-1]]), so the decoder reads <bos> twice": torch.cat(
            [tgt[:, :1], tgt[:, :-1]], dim=1
        ),
        "one step to the right with a pad in front, cat([pad, tgt_ids[:, :-1]])": torch.cat(
            [pad, tgt[:, :-1]], dim=1
        ),
        "one step to the left, cat([tgt_ids[:, 1:], pad]), so <bos> is never read": torch.cat(
            [tgt[:, 1:], pad], dim=1
        ),
    }
    return {
        f"forward shifts the target before decoding it, {how}: every position reads the "
        "token one position off from the one it was given. tgt_ids is already the "
        "decoder's input, [<bos>] + target (make_batches made the teacher-forcing shift): "
        "forward(src_ids, tgt_ids) = decode(tgt_ids, encode(src_ids), src_ids), with "
        "tgt_ids as it is.": lambda shifted=shifted: decode_f(shifted, encode_f(src), src)
        for how, shifted in shifts.items()
    }


def _expect_result(
    c: Checker,
    got: Any,
    expected: torch.Tensor,
    what: str,
    *,
    shape_hint: str,
    mistakes: dict[str, Callable[[], torch.Tensor | None]],
    properties: tuple[Callable[[], str | None], ...] = (),
    hint: str = "",
    train_only: Callable[[], str] | None = None,
) -> None:
    """``train_only``: for a train-mode call at dropout 0.0, a sentence when the same model
    in eval mode is right (checking.mode_paths), added to the diagnosis: a mistake on the
    train-only path, whose fix 'pass the mask' eval mode would otherwise refute."""
    c.expect_type(got, torch.Tensor, what, "Return one tensor.")
    c.expect_shape(got, expected.shape, what, shape_hint)
    c.expect_floating(got, what.split(" [")[0].split("(")[0], preferred=torch.float32)
    tol = tolerance(got.dtype, torch.float32)
    if not _close(got, expected, tol):
        only = train_only() if train_only is not None else ""
        also = f" {only}" if only else ""
        named = name_mistakes(
            got, {m: lambda f=f: value_or_none(f) for m, f in mistakes.items()}, **tol
        )
        if named:
            c.fail(f"{what} is not what the reference gives. {named}{also}")
        for diagnose in properties:
            message = diagnose()
            if message:
                c.fail(f"{what} is not what the reference gives. {message}{also}")
        hint = f"{hint}{also}".strip()
    c.expect_close(got, expected, what, **tol, hint=hint)


def _train_only(module, case: _Case, run: Callable[[], Any], expected, method: str):
    """``_expect_result``'s train_only for a train-mode case at dropout 0.0."""
    if not (case.train and case.dropout == 0.0):
        return None

    def sentence() -> str:
        tol = {"rtol": 1e-4, "atol": 1e-5}
        return train_only_sentence(method) if right_in_eval(module, run, expected, **tol) else ""

    return sentence


def _shape_hint(got: Any, case: _Case, kind: str) -> str:
    shape = tuple(getattr(got, "shape", ()))
    b, ls, lt, d = len(case.src_lengths), case.len_src, case.len_tgt, case.d_model
    if kind == "memory":
        hints = {
            (b, ls, case.src_vocab): "encode returns the encoder's output, memory, "
            "(batch, len_src, d_model): no output layer here."
        }
        return hints.get(shape, "memory has one d_model-wide vector per source position.")
    hints = {
        (b, lt, d): "That is the decoder's output: apply the output layer, self.output, which "
        "maps d_model to tgt_vocab_size.",
        (b, lt, case.src_vocab): f"The last axis has src_vocab_size = {case.src_vocab}: the "
        "output layer scores the TARGET vocabulary, nn.Linear(d_model, tgt_vocab_size).",
    }
    dtype = getattr(got, "dtype", None)
    if shape == (b, lt) and dtype is not None and not getattr(dtype, "is_floating_point", True):
        return (
            f"Yours is (batch, len_tgt) of {str(dtype).removeprefix('torch.')}: token ids, "
            "the predicted (most likely) token at each position, the argmax over the "
            "vocabulary, instead of the logits. Return the logits themselves, (batch, "
            "len_tgt, tgt_vocab_size): the loss needs every token's score, and choosing a "
            "token is greedy_decode's job."
        )
    method = "decode" if kind == "decode" else "forward"
    if lt > 1 and shape == (b, lt - 1, case.tgt_vocab):
        return (
            f"Yours has len_tgt - 1 = {lt - 1} positions: one target position is dropped "
            f"(a slice such as [:, :-1] on the logits in {method}, as if the model had to "
            "make the teacher-forcing shift itself). The shift is made on the data "
            f"(make_batches' decoder_input and labels); {method} returns one row of logits "
            "per target position it is given, (batch, len_tgt, tgt_vocab_size)."
        )
    if ls != lt:
        hints[(b, ls, case.tgt_vocab)] = (
            "One row per SOURCE position: " + _MEMORY_AS_QUERIES
            if kind == "decode"
            else "One row per SOURCE position: forward returns one row of logits per target "
            "position, decode(tgt_ids, encode(src_ids), src_ids)."
        )
    return hints.get(shape, "The logits are (batch, len_tgt, tgt_vocab_size).")


_RANDOM_IN_EVAL = (
    "Two calls with the same inputs gave different results in eval mode: something random is "
    "still active. In eval() dropout must do nothing: use nn.Dropout modules (the reference "
    "modules do), which follow train()/eval(), never F.dropout(...) without "
    "training=self.training (its training argument defaults to True, so it drops in eval "
    "mode too)."
)


_RANDOM_AT_FULL_DROPOUT = (
    "In train mode with dropout=1.0 every dropout zeroes its whole input, so two calls with "
    "the same inputs give the same result; yours differ from one call to the next: some "
    "dropout in your model does not use the model's rate. PositionalEncoding built without "
    "it, PositionalEncoding(d_model, max_len), drops at its default rate (0.1): build it "
    "with the model's, PositionalEncoding(d_model, max_len, dropout), and pass dropout on to "
    "Encoder and Decoder too."
)


def _stack_dropout_missing(stack: str) -> str:
    """The message for a stack (encoder or decoder) built without the model's dropout."""
    cls = stack.capitalize()
    return (
        f"In train mode with dropout=1.0 yours equals the reference whose {cls} layers have "
        "dropout 0.0 (the positional encoding's dropout works): your "
        f"{cls} was built without the model's dropout, so its layers took {cls}'s default, "
        "0.0 (or were given 0), and their residual, attention and feed-forward dropout is "
        f"off. Pass dropout on to the stacks: {cls}(num_layers, d_model, num_heads, d_ff, "
        "dropout, norm_first, final_norm), the same for both."
    )


def _without_stack_dropout(case: _Case, stack: str) -> nn.Module:
    """The case's reference model (float64, its mode) whose ``stack`` (encoder or decoder)
    has every dropout at p = 0: what a model gives that built that stack without the
    model's dropout (blind14a-tr-stacks-dropout-not-passed, told only where dropout goes)."""
    model = reference_model(case)
    for module in getattr(model, stack).modules():
        if isinstance(module, nn.Dropout):
            module.p = 0.0
    return model


def _dropout_hint(case: _Case) -> str:
    if not case.train:
        return (
            "Follow the figure of section 1 arrow by arrow: scaled embeddings plus positions "
            "(self.positional_encoding), the encoder with the source padding mask, the decoder "
            "with both masks, then self.output."
        )
    if case.train and case.dropout == 0.0:
        return "In train mode with dropout=0.0 the model must compute exactly what eval gives."
    if case.train:
        return (
            "In train mode with dropout=1.0 every dropout zeroes its input, which leaves one "
            "deterministic result. Dropout belongs on the sum of embeddings and positions "
            "(self.positional_encoding) and inside the layers (the reference modules), "
            "nowhere else: no dropout on the logits."
        )
    return ""


def check_Transformer(cls, *, hidden: bool = False) -> None:
    """Construct cls(src_vocab_size, tgt_vocab_size, ...), check its state dict and its
    tying, load deterministic weights, and compare encode, decode and forward with the
    reference in eval and train mode. Accepted: see the module docstring."""
    with Checker("Transformer", hidden=hidden) as c:
        c.require_callable(cls, "Transformer")
        cases = HIDDEN_TRANSFORMER if hidden else VISIBLE_TRANSFORMER
        for case in cases:
            _check_case(c, cls, case)
        _expect_vocab_check(c, cls, cases[1])
        _expect_one_dropout(c, cls, _DROPOUT_PROBE[hidden])
        _expect_contract_defaults(c, cls, hidden)


#: the signature's defaults, written out (d_model and num_heads are given small, so that
#: the model the defaults build stays cheap)
_CONTRACT_DEFAULTS = {
    "num_layers": 6,
    "d_ff": 2048,
    "dropout": 0.1,
    "max_len": 512,
    "pad_id": 0,
    "tie_embeddings": False,
    "norm_first": False,
    "final_norm": None,
}


def _expect_contract_defaults(c: Checker, cls, hidden: bool) -> None:
    """Transformer(src_vocab_size, tgt_vocab_size, 16, 2) with every other keyword left to
    its default computes what it computes with the contract's defaults written out: lesson
    10 builds it so (mutants that change the default num_layers or pad_id passed every case,
    which writes each keyword out). The ids end in padding (id 0), so pad_id's default
    shows."""
    src_vocab, tgt_vocab = (13, 11) if hidden else (9, 10)
    src = vocab_token_ids((5, 3), 5, src_vocab, 0, 71 + 100 * hidden)
    tgt = vocab_token_ids((4, 2), 4, tgt_vocab, 0, 72 + 100 * hidden)
    expect_contract_defaults(
        c,
        cls,
        (src_vocab, tgt_vocab, 16, 2),
        _CONTRACT_DEFAULTS,
        (src, tgt),
        "Transformer",
        seed=73 + 100 * hidden,
    )


#: pre-LN, no final norm, one layer, dropout 0.5 in train mode: with every sub-layer's
#: weights zero, encode returns the dropped sum of embeddings and positions itself
_DROPOUT_PROBE = {
    False: _Case(7, 9, 9, 8, 2, 1, 16, (5, 3), 5, (4, 2), 4, norm_first=True, final_norm=False),
    True: _Case(107, 11, 11, 8, 2, 2, 16, (6, 4), 6, (3, 3), 3, 2, norm_first=True),
}
_DROPOUT_P = 0.5


def _expect_one_dropout(c: Checker, cls, case: _Case) -> None:
    """The sum of embeddings and positions is dropped out once: with p = 0.5 every entry
    that survives is scaled by 1 / (1 - p) = 2, whatever the random draws. The layers'
    sub-layers get zero weights, so that (pre-LN, no final norm) encode returns that sum
    as it is; a dropout applied twice scales the survivors by 4."""
    case = replace(case, final_norm=False, dropout=_DROPOUT_P, train=True)
    module, built = build_module(
        c, cls, case.src_vocab, case.tgt_vocab, name="Transformer", mode="train", **case.kwargs
    )
    state = _case_state(case)
    for key, value in state.items():
        if key.startswith("encoder.layers.") and ".norm" not in key:
            state[key] = torch.zeros_like(value)
    own = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    buffers = {k: v for k, v in own.items() if k.startswith(_POSITIONS)}
    c.call(module.load_state_dict, {**state, **buffers}, call_repr=f"{built}.load_state_dict(...)")
    src = vocab_token_ids(
        case.src_lengths, case.len_src, case.src_vocab, case.pad_id, case.seed, left=case.left
    )
    reference = ref.Transformer(case.src_vocab, case.tgt_vocab, **case.kwargs)
    reference.load_state_dict({**reference.state_dict(), **state})
    with torch.no_grad():
        summed = reference.eval().encode(src).double()  # no dropout: the sum itself
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(case.seed)
        got = c.call(module.encode, src.clone(), call_repr="model.encode(src_ids)")
    if not isinstance(got, torch.Tensor) or got.shape != summed.shape:
        return  # the cases above judged the shapes
    kept = summed.abs() > 1e-6
    scales = (got.detach().double()[kept] / summed[kept]).flatten()
    survivors = scales[scales.abs() > 1e-6]
    expected = 1 / (1 - _DROPOUT_P)
    if survivors.numel() and bool(((survivors - expected**2).abs() < 1e-3).all()):
        c.fail(
            f"{built} in train mode, its layers' sub-layers given zero weights (so that encode "
            "returns the sum of embeddings and positions as the first layer receives it): "
            f"the entries that survive dropout are scaled by {expected**2:g} = 1 / (1 - p)^2, "
            f"not {expected:g} = 1 / (1 - p): dropout ran twice on that sum. "
            "self.positional_encoding already applies dropout after adding the positions "
            "(lesson 03); do not apply another nn.Dropout to its output."
        )
    c.ok()


#: padding masks of other layouts than (batch, 1, 1, len), each a learner's slip
_MASK_LAYOUTS = {
    "(batch, 1, len), one new axis where two belong": lambda real: real[:, None, :],
    "(batch, len), without the two new axes": lambda real: real,
    "(batch, len, 1, 1), the new axes at the end": lambda real: real[:, :, None, None],
}


def _mask_layout_hint(m, src: torch.Tensor, tgt: torch.Tensor, pad_id: int):
    """For an exception raised inside the stacks: the padding-mask layouts (and where the
    mask goes: the encoder, the cross-attention, the decoder's self-attention) with which
    the reference model's stacks raise the very same exception; all of them named."""

    def replays():
        with torch.no_grad():
            x = m.positional_encoding(m.src_embedding(src))
            memory = m.encoder(x, padding_mask(src, pad_id))
            y = m.positional_encoding(m.tgt_embedding(tgt))
            causal = look_ahead_mask(tgt.shape[1])
            for layout, build in _MASK_LAYOUTS.items():
                yield (
                    f"the source padding mask is {layout}",
                    lambda b=build: m.encoder(x, b(src != pad_id)),
                )
                yield (
                    f"the cross-attention's source mask is {layout}",
                    lambda b=build: m.decoder(
                        y, memory, b(src != pad_id), decoder_self_attention_mask(tgt, pad_id)
                    ),
                )
                yield (
                    f"the target padding part is {layout}",
                    lambda b=build: m.decoder(
                        y, memory, padding_mask(src, pad_id), b(tgt != pad_id) & causal
                    ),
                )

    def text(exc: BaseException) -> str:
        # which stack raised: the reference's encoder.py or decoder.py in the traceback
        files = {Path(frame.f_code.co_filename).name for frame, _ in walk_tb(exc.__traceback__)}
        in_decoder = "decoder.py" in files  # a decoder layer may use encoder.py's parts
        stacks = {"encoder": "encoder.py" in files and not in_decoder, "decoder": in_decoder}
        found = []
        for said, run in replays():
            if not stacks["encoder" if said.startswith("the source padding") else "decoder"]:
                continue
            try:
                run()
            except Exception as error:
                if type(error) is type(exc) and str(error) == str(exc):
                    found.append(said)
        if not found:
            return ""
        which = found[0] if len(found) == 1 else "; or ".join(found)
        return (
            f"This is the error the reference stacks raise when {which}. Attention scores "
            "are (batch, heads, len_q, len_k), and a mask broadcasts against them from the "
            "right: a padding mask is (batch, 1, 1, len), (ids != pad_id)[:, None, None, :], "
            "as padding_mask(ids, self.pad_id) builds it (decoder_self_attention_mask for "
            "the decoder's self-attention)."
        )

    return (lambda exc: isinstance(exc, RuntimeError) and "size" in str(exc)), text


def _first_mask_difference(mine, right: torch.Tensor, keys=None, pad_id=None) -> str:
    """Where a mask the learner passed departs from the right one (after broadcasting both
    to one shape), as 'entry (b, i, j): yours True, should be False'; '' when they agree."""
    if mine is None:
        return "you passed None (no mask)"
    if not isinstance(mine, torch.Tensor):
        return f"you passed a {type(mine).__name__}, not a bool tensor"
    try:
        a, b = torch.broadcast_tensors(mine.detach().bool(), right)
    except RuntimeError:
        return f"yours has shape {tuple(mine.shape)}, which does not broadcast like {tuple(right.shape)}"
    a = a.amax(dim=1) if a.dim() == 4 else a  # one entry per (batch, query, key)
    b = b.amax(dim=1) if b.dim() == 4 else b
    wrong = (a != b).nonzero()
    if not len(wrong):
        return ""
    where = tuple(int(i) for i in wrong[0])
    key = ""
    if keys is not None and len(where) == 3:
        token = int(keys[where[0], where[2]])
        kind = "<pad>" if token == pad_id else "a real token"
        key = f"; that key holds id {token}, {kind} for pad_id={pad_id}"
    return (
        f"{len(wrong)} entries differ, the first at (batch, query, key) = {where}: yours "
        f"{bool(a[where])}, the right mask {bool(b[where])}{key}"
    )


def _memory_changed_by(received: torch.Tensor, memory: torch.Tensor, m) -> str:
    """What decode did to the memory it handed the decoder, when exactly one known change
    of decode's `memory` (batch, len_src, d_model) gives it: ", the positional encoding
    added to it again, ..."; "" otherwise."""
    try:
        with torch.no_grad():
            d_model = memory.shape[-1]
            changes = {
                ", with the positional encoding added to it "
                "(self.positional_encoding(memory)): the sinusoids, already in the source "
                "embeddings the encoder read, are added to the memory a second time": (
                    m.positional_encoding(memory.clone())
                ),
                ", multiplied by sqrt(d_model) as the embeddings are": memory * d_model**0.5,
            }
            fits = [
                text for text, value in changes.items() if _close(received, value.double(), _LOOSE)
            ]
    except Exception:  # an explanation only
        return ""
    return fits[0] if len(fits) == 1 else ""


def _localise_decode(module, m, tgt, memory, src, pad_id: int) -> str | None:
    """Run the learner's decode with a hook on its decoder (the course's Decoder) and say
    which of the decoder's inputs first departs from what decode should hand it: the target
    vectors, memory, the source mask or the target mask."""
    from transformer_course.reference.decoder import Decoder as _Decoder

    decoder = getattr(module, "decoder", None)
    if not isinstance(decoder, _Decoder):
        return None
    given = arguments_received(
        decoder, lambda: module.decode(tgt.clone(), memory.clone(), src.clone())
    )
    if given is None:
        return None
    with torch.no_grad():
        y = m.positional_encoding(m.tgt_embedding(tgt))
    said = "decode handed the decoder"
    x = given.get("x")
    if isinstance(x, torch.Tensor) and x.shape == y.shape and not _close(x, y, _LOOSE):
        mix = _embedding_mix(x, m, m.tgt_embedding, tgt, "tgt")
        return (
            f"{said} other target vectors than self.positional_encoding(self.tgt_embedding("
            "tgt_ids)): the target side's input is off (the masks and memory are checked "
            f"after it).{mix}"
        )
    mem = given.get("memory")
    if isinstance(mem, torch.Tensor) and mem.shape == memory.shape:
        if not _close(mem, memory.double(), _LOOSE):
            return (
                f"{said} another memory than the one decode was given"
                f"{_memory_changed_by(mem, memory, m)}: the second argument of "
                "decoder(y, memory, src_mask, tgt_mask) is decode's `memory` as it is (no "
                "positions, no norm, no dropout added to it; the encoder already produced it)."
            )
    wrong = []
    for name, right, rule, keys in (
        ("src_mask", padding_mask(src, pad_id), "padding_mask(src_ids, self.pad_id)", src),
        (
            "tgt_mask",
            decoder_self_attention_mask(tgt, pad_id),
            "decoder_self_attention_mask(tgt_ids, self.pad_id)",
            tgt,
        ),
    ):
        where = _first_mask_difference(given.get(name), right, keys, pad_id)
        if how := mask_relation(given.get(name), right, name, from_ids=True):
            where = f"{where}; {how}"
        if where:
            role = "the cross-attention's" if name == "src_mask" else "the self-attention's"
            wrong.append(f"a {name} ({role} mask) that is not {rule}: {where}")
    if wrong:
        # both masks wrong at once: both said (two slips, each its own fix)
        both = " AND ".join(wrong)
        return (
            f"{said} {both}. The decoder is called as decoder(y, memory, src_mask, tgt_mask), "
            "with the model's own pad_id."
        )
    return _logits_projection(module, m, lambda: module.decode(tgt.clone(), memory.clone(), src))


def _logits_projection(module, m, call: Callable[[], Any]) -> str | None:
    """The learner's logits against the decoder's output (in the learner's own run) mapped
    through each of the model's fitting matrices and biases: which the last step used, when
    that is not self.output's own weight and bias (an embedding's matrix with tying off)."""
    try:
        logits, records = record_calls(module, ["decoder"], call)
    except Exception:  # a probe: the usual message stands
        return None
    outputs = [out for name, _, out in records if name == "decoder"]
    if len(outputs) != 1:
        return None
    found = projection_sentence(
        module, "output", outputs[0], logits, result="decode's logits", hidden_name="y"
    )
    if found is None:
        return None
    sentence, (weight, _) = found
    tied = m.output.weight is m.tgt_embedding.embedding.weight
    if "embedding" in weight and not tied:
        sentence += (
            " Taking the logits from an embedding's matrix is weight tying (GPT-2's shared "
            "output projection), which is this model's choice only when tie_embeddings=True, "
            "where self.output.weight IS that matrix; this model was built with "
            "tie_embeddings=False, so use self.output(y)."
        )
    return sentence


_LOOSE = {"rtol": 1e-4, "atol": 1e-5}


def _embedding_mix(x, m, embedding, ids, side: str) -> str:
    """The learner's input vectors ``x`` (batch, len, d_model) taken apart as a·E + b·P,
    E the embedding table's rows for ``ids`` and P the positional encoding, when some
    weights reproduce them exactly: which weight is off, and the readings of the usual
    pairs (sqrt(d_model) applied after the positions were added, not applied, applied
    twice, the positions left out or added twice); "" when no such weights fit."""
    try:
        with torch.no_grad():
            rows = embedding.embedding(ids)  # (batch, len, d_model): the table's rows
            positions = m.positional_encoding(torch.zeros_like(rows))  # (batch, len, d_model)
        scale = float(embedding.d_model) ** 0.5
    except (AttributeError, RuntimeError, TypeError):
        return ""
    found = fit_weights(x, {"E": rows, "P": positions}, **_LOOSE)
    if found is None:
        return _positions_misindexed(x, m, rows, scale, side)
    a, b = found["E"], found["P"]

    def near(value: float, target: float) -> bool:
        return math.isclose(value, target, rel_tol=1e-3, abs_tol=1e-4)

    readings = {
        (scale, scale): "the positional encoding is scaled by sqrt(d_model) as well: the "
        "multiplication by sqrt(d_model) comes after the positions were added, "
        "(E + P) * sqrt(d_model), where only the embeddings are scaled before adding",
        (1.0, 1.0): "the embeddings are not multiplied by sqrt(d_model)",
        (scale * scale, 1.0): "the embeddings are multiplied by sqrt(d_model) twice (the "
        f"{side} embedding module already scales its lookup)",
        (scale, 0.0): "the positional encoding is missing",
        (scale, 2.0): "the positional encoding is added twice",
        # blind31b: emb + self.positional_encoding(emb), the module taken to return the
        # positions alone: it already returns emb + pe, so the scaled embedding counts twice
        (2 * scale, 1.0): "the scaled embeddings are added twice: self.positional_encoding(x) "
        "already returns x + PE (dropout(x + PE), not PE alone), so adding the embeddings to "
        "its output, emb + self.positional_encoding(emb), counts every token's embedding "
        "twice (2·sqrt(d_model)·E + P)",
        (2 * scale, 2.0): "the whole input is counted twice, 2·(sqrt(d_model)·E + P): the "
        "positional encoding's output added to itself (or to x + PE again)",
        (1 / scale, 1.0): "the embeddings are divided by sqrt(d_model) where they are multiplied",
    }
    reading = next((text for (ea, eb), text in readings.items() if near(a, ea) and near(b, eb)), "")
    parts = describe_weights(found, {"E": scale, "P": 1.0})
    table = "src_embedding" if side == "src" else "tgt_embedding"
    return (
        f" Taken apart as a·E + b·P, E = self.{table}.embedding({side}_ids) (the table's "
        f"rows) and P = the positional encoding, {parts} (sqrt(d_model) = {scale:.4g})"
        + (f": {reading}." if reading else ".")
        + f" Use self.positional_encoding(self.{table}({side}_ids)): the embedding module "
        "scales, the positional encoding adds."
    )


def _positions_misindexed(x, m, rows, scale: float, side: str) -> str:
    """When ``x`` is the embeddings (scaled by sqrt(d_model)) plus, at each token, some row
    of the positional table that is not the one of its position: which rows, and the index
    rule they follow (checking.position_indexing); "" otherwise."""
    try:
        table = m.positional_encoding.pe.detach().double().reshape(-1, rows.shape[-1])
    except (AttributeError, RuntimeError):
        return ""
    got = rows_added(x.detach().double() - scale * rows.double(), table, atol=1e-4)
    if got is None:
        return ""
    reading = indexing_reading(got)
    if not reading:
        return ""
    table_name = "src_embedding" if side == "src" else "tgt_embedding"
    b, t = next(
        ((i, j) for i in range(got.shape[0]) for j in range(got.shape[1]) if int(got[i, j]) != j),
        (0, 0),
    )
    return (
        f" The embeddings are right, and each token got one row of the positional table "
        f"added, but not its own: the token at position {t} of sentence {b} got pe[{int(got[b, t])}] "
        f"where pe[{t}] belongs. Yours adds {reading}. Handed the (batch, len, d_model) "
        "embeddings as they are, the course's PositionalEncoding adds pe[t] at position t "
        f"itself: self.positional_encoding(self.{table_name}({side}_ids))."
    )


def _localise_encode(module, m, src, pad_id: int) -> str | None:
    """Run the learner's encode with a hook on its encoder (the course's Encoder) and say
    which of the encoder's inputs departs: the source vectors or the mask."""
    from transformer_course.reference.encoder import Encoder as _Encoder

    encoder = getattr(module, "encoder", None)
    if not isinstance(encoder, _Encoder):
        return None
    given = arguments_received(encoder, lambda: module.encode(src.clone()))
    if given is None:
        return None
    with torch.no_grad():
        x_right = m.positional_encoding(m.src_embedding(src))
    x = given.get("x")
    if isinstance(x, torch.Tensor) and x.shape == x_right.shape and not _close(x, x_right, _LOOSE):
        ratio = float((x.double() * x_right).sum() / (x_right * x_right).sum())
        scaled = (
            f" (yours are {ratio:.4g} times them)"
            if _close(x, ratio * x_right, _LOOSE) and abs(ratio - 1) > 1e-3
            else ""
        )
        mix = _embedding_mix(x, m, m.src_embedding, src, "src")
        return (
            "encode handed the encoder other source vectors than "
            f"self.positional_encoding(self.src_embedding(src_ids)){scaled}: the source side's "
            f"input is off, before any layer runs (the mask is checked after it).{mix}"
        )
    right_mask = padding_mask(src, pad_id)  # (batch, 1, 1, len_src)
    where = _first_mask_difference(given.get("mask"), right_mask, src, pad_id)
    if not where:
        return None
    said = (
        f"encode handed the encoder a mask that is not padding_mask(src_ids, self.pad_id): {where}"
    )
    if how := mask_relation(given.get("mask"), right_mask, from_ids=True):
        return f"{said}; {how}"
    if _blocks_the_future(given.get("mask")):
        return (
            f"{said}. Your mask blocks the later keys too: the encoder's self-attention hides "
            "only the source's <pad> keys, with no look-ahead part (the encoder reads the "
            "whole source at once)."
        )
    return f"{said}. The encoder's self-attention hides only the source's <pad> keys."
    return None


def _blocks_the_future(mask) -> bool:
    """Whether a mask the learner passed blocks every key after its query (a look-ahead
    part): its last two axes square and more than one long, False above the diagonal."""
    if not isinstance(mask, torch.Tensor) or mask.dim() < 2 or mask.dtype != torch.bool:
        return False
    n = mask.shape[-1]
    if n < 2 or mask.shape[-2] != n:
        return False
    above = torch.ones(n, n, dtype=torch.bool).triu(1)  # (len, len): the later keys
    return not bool(mask.detach()[..., above].any())


def _decode_order_hint(module, case: _Case, tgt, memory, src, expected) -> Callable:
    """For an error raised by decode(tgt_ids, memory, src_ids): whether the learner's decode
    takes its first two parameters the other way round, decode(memory, tgt_ids, src_ids),
    told by calling it so: it then runs and gives the (batch, len_tgt, V) logits (the
    reference's, in eval mode)."""

    def text(exc: BaseException) -> str:
        try:
            with torch.no_grad():
                swapped = module.decode(memory.clone(), tgt.clone(), src.clone())
        except Exception:
            return ""
        if not isinstance(swapped, torch.Tensor) or swapped.shape != expected.shape:
            return ""
        if not case.train and not _close(swapped, expected, tolerance(torch.float32)):
            return ""
        return (
            "Your decode takes memory first: called as decode(memory, tgt_ids, src_ids) it "
            "runs and gives the right logits. Its parameters are in the Annotated "
            "Transformer's order (decode(memory, src_mask, tgt, tgt_mask)); this course's "
            "contract, which lesson 10's greedy_decode calls, is decode(tgt_ids, memory, "
            "src_ids): declare them in that order (and call it so in forward)."
        )

    return text


def _cross_mask_sources(
    module, case: _Case, tgt, memory64, src, got, decode_f
) -> dict[str, Callable[[], torch.Tensor | None]]:
    """{message: value} for the sources a cross-attention's mask may be built from
    (checking.mask_sources: no mask, memory's non-zero rows, tgt_ids' padding, a written-in
    0), each value the logits that source gives on the check's input, or None unless the
    learner's decode agrees with that source on the check's input AND on probes that split
    the family (memory zero at the pads, a real id 0). One mask from memory and no mask at
    all give the same logits on encode's memory (its rows at the pads are not zero), which
    only the probes tell apart (blind29b-tr-source-mask-from-zero-memory-vectors was told
    that no mask was passed)."""
    pad = case.pad_id
    inputs = {"src_ids": src, "memory": memory64, "tgt_ids": tgt}
    sources = key_mask_sources(ids="src_ids", pad_id=pad, vectors="memory", other_ids="tgt_ids")
    messages = {
        NO_MASK: _NO_CROSS_MASK,
        VECTORS: _CROSS_MASK_FROM_MEMORY,
        OTHER_IDS: _CROSS_MASK_FROM_TARGET,
        PAD_ZERO: _cross_pad0(pad),
    }
    if case.train and case.dropout != 0.0:
        return {}  # every attention weight dropped: the masks do not show in the logits

    def run(x):
        return module.decode(x["tgt_ids"].clone(), x["memory"].float(), x["src_ids"].clone())

    def predict(x, mask):
        return decode_f(x["tgt_ids"], x["memory"], x["src_ids"], cross_mask=mask[:, None, None, :])

    @functools.cache
    def agreeing() -> tuple[str, ...]:
        tried = probes(inputs, ids="src_ids", pad_id=pad, vectors="memory")
        return tuple(agreeing_sources(run, predict, inputs, got, sources, tried))

    def value(source):
        if source.name not in agreeing():
            return None
        return predict(inputs, source.mask(inputs))

    return {messages[s.name]: (lambda s=s: value(s)) for s in sources}


def _check_case(c: Checker, cls, case: _Case) -> None:
    module, built = _build(c, cls, case)
    src = vocab_token_ids(
        case.src_lengths, case.len_src, case.src_vocab, case.pad_id, case.seed, left=case.left
    )
    tgt = vocab_token_ids(
        case.tgt_lengths, case.len_tgt, case.tgt_vocab, case.pad_id, case.seed + 50
    )
    m = reference_model(case)
    encode_f, decode_f = case_oracles(case)
    flip_encode, flip_decode = case_oracles(case, norm_first=not case.norm_first)
    ignored = _NORM_FIRST_IGNORED[case.norm_first]
    with torch.no_grad():
        memory64 = m.encode(src)
        logits64 = m.decode(tgt, memory64, src)
    where = f"[model = {built} holding the check's weights; {case.describe()}]"
    hints = [*_CALL_HINTS, *_length_hint(case), _mask_layout_hint(m, src, tgt, case.pad_id)]
    pad = case.pad_id

    def random_in_eval(method, call: str, *args) -> Callable[[], str | None]:
        def diagnose() -> str | None:
            if case.train:  # in eval mode nothing may be random, whatever the dropout
                return None
            first = c.call(method, *(a.clone() for a in args), call_repr=call, hints=hints)
            second = c.call(method, *(a.clone() for a in args), call_repr=call, hints=hints)
            return None if torch.equal(first.detach(), second.detach()) else _RANDOM_IN_EVAL

        return diagnose

    def random_at_full_dropout(method, call: str, *args) -> Callable[[], str | None]:
        @functools.cache  # asked before the mistake table and again as a property
        def diagnose() -> str | None:
            if not case.train or case.dropout != 1.0:
                return None
            first = c.call(method, *(a.clone() for a in args), call_repr=call, hints=hints)
            second = c.call(method, *(a.clone() for a in args), call_repr=call, hints=hints)
            same = torch.equal(first.detach(), second.detach())
            return None if same else _RANDOM_AT_FULL_DROPOUT

        return diagnose

    def table(compute, rows):
        return {message: (lambda knobs=knobs: compute(knobs)) for message, knobs in rows}

    def deterministic_only(rows, random_at_full: Callable[[], str | None]):
        """The mistake rows, less the input-dropout ones when two calls at dropout=1.0
        differ: a missing or misplaced dropout predicts the same result on every call, so
        a random one contradicts them (whatever one draw happens to look like)."""
        if not (case.train and case.dropout == 1.0) or random_at_full() is None:
            return rows
        return [(message, knobs) for message, knobs in rows if "emb_dropout" not in knobs]

    # encode
    what = f"model.encode(src_ids {tuple(src.shape)}) {where}"
    encode_call = f"model.encode(src_ids {tuple(src.shape)})"
    got = c.call(module.encode, src.clone(), call_repr=encode_call, hints=hints)
    encode_random = random_at_full_dropout(module.encode, encode_call, src)
    with torch.no_grad():
        encode_rows = deterministic_only(encode_mistakes(case), encode_random)
        encode_values = table(lambda k: encode_f(src, **k), encode_rows)
        encode_values[ignored] = lambda: flip_encode(src)
        if case.train and case.dropout == 1.0:
            encode_values[_stack_dropout_missing("encoder")] = lambda: _without_stack_dropout(
                case, "encoder"
            ).encode(src)
        _expect_result(
            c,
            got,
            memory64,
            what,
            shape_hint=_shape_hint(got, case, "memory"),
            mistakes=encode_values,
            properties=(
                random_in_eval(module.encode, encode_call, src),
                encode_random,
                lambda: _pad_rows_filled(got, memory64, src, case.pad_id, "memory"),
                lambda: None if case.train else _localise_encode(module, m, src, case.pad_id),
            ),
            hint=_dropout_hint(case),
            train_only=_train_only(
                module, case, lambda: module.encode(src.clone()), memory64, "memory"
            ),
        )
    _expect_attached(c, got, encode_call, "encode", "the encoder and the source embedding")

    # decode, given the reference's memory
    memory = memory64.float()
    what = (
        f"model.decode(tgt_ids {tuple(tgt.shape)}, memory {tuple(memory.shape)}, src_ids) {where}"
    )
    call = f"model.decode(tgt_ids {tuple(tgt.shape)}, memory, src_ids)"
    got = c.call(
        module.decode,
        tgt.clone(),
        memory.clone(),
        src.clone(),
        call_repr=call,
        hints=[(Exception, _decode_order_hint(module, case, tgt, memory, src, logits64)), *hints],
    )

    def ignores_memory() -> str | None:
        other = memory.flip(1) * 0.5 + 0.3  # any other memory must change the logits
        again = c.call(module.decode, tgt.clone(), other, src.clone(), call_repr=call, hints=hints)
        same = isinstance(again, torch.Tensor) and again.shape == got.shape
        return _IGNORES_MEMORY if same and torch.equal(again.detach(), got.detach()) else None

    def sees_the_future() -> str | None:
        if case.len_tgt < 2 or (case.train and case.dropout == 1.0):
            return None
        # only rows whose last token is not <pad>, changed to another token that is not
        # <pad>: the padding is the same, so only a look at the future can change the rest
        rows = tgt[:, -1] != pad
        if not rows.any():
            return None
        changed = tgt.clone()
        last = (tgt[:, -1] + 1) % case.tgt_vocab
        last = torch.where(last == pad, (last + 1) % case.tgt_vocab, last)
        changed[:, -1] = torch.where(rows, last, tgt[:, -1])
        again = c.call(
            module.decode, changed, memory.clone(), src.clone(), call_repr=call, hints=hints
        )
        if not (isinstance(again, torch.Tensor) and again.shape == got.shape):
            return None
        earlier = (again[rows, :-1] - got[rows, :-1]).detach().abs().max().item()
        if earlier <= 1e-4:
            return None
        if past_hidden():
            return _INVERTED_LOOK_AHEAD
        return (
            _limited_reach(again[rows, :-1] - got[rows, :-1], case)
            or _limited_reach(longer_target_change(), case)
            or _FUTURE_LEAK
        )

    def longer_target_change() -> torch.Tensor | None:
        """On a target longer than the case's (no <pad>, batch row 0's memory and source),
        the change of the logits before the last position when the last token changes
        (1, length - 1, vocab): a reach the case's short target hides shows there."""
        length = min(case.max_len, 16)
        if length <= case.len_tgt:
            return None
        tokens = (torch.arange(length) * 5 + 1) % case.tgt_vocab  # (length,)
        tokens = torch.where(tokens == pad, (tokens + 1) % case.tgt_vocab, tokens)[None]
        changed = tokens.clone()
        last = (tokens[0, -1] + 1) % case.tgt_vocab
        changed[0, -1] = (last + 1) % case.tgt_vocab if last == pad else last
        outputs = []
        for target in (tokens, changed):
            try:  # a probe only: when the learner's code cannot take it, nothing is learnt
                with torch.no_grad():
                    out = module.decode(target, memory[:1].clone(), src[:1].clone())
            except Exception:
                return None
            if not (isinstance(out, torch.Tensor) and out.shape[:2] == (1, length)):
                return None
            outputs.append(out)
        return outputs[1][:, :-1] - outputs[0][:, :-1]  # (1, length - 1, vocab)

    def past_hidden() -> bool:
        """Whether changing the FIRST target token (rows where it and its replacement are
        not <pad>) leaves every later position's logits unchanged: no position sees the
        tokens before it, the look-ahead part inverted (True above the diagonal:
        blind14a-tr-own-look-ahead-from-triu, told only that the mask was missing)."""
        rows = tgt[:, 0] != pad
        if not rows.any() or not torch.isfinite(got[rows, 1:]).all():
            return False
        changed = tgt.clone()
        first = (tgt[:, 0] + 1) % case.tgt_vocab
        first = torch.where(first == pad, (first + 1) % case.tgt_vocab, first)
        changed[:, 0] = torch.where(rows, first, tgt[:, 0])
        again = c.call(
            module.decode, changed, memory.clone(), src.clone(), call_repr=call, hints=hints
        )
        if not (isinstance(again, torch.Tensor) and again.shape == got.shape):
            return False
        later = (again[rows, 1:] - got[rows, 1:]).detach().abs().max().item()
        return later <= 1e-6

    decode_random = random_at_full_dropout(module.decode, call, tgt, memory, src)
    cross_sources = _cross_mask_sources(module, case, tgt, memory64, src, got, decode_f)
    with torch.no_grad():
        decode_rows = deterministic_only(decode_mistakes(case), decode_random)
        decode_values = table(lambda k: decode_f(tgt, memory64, src, **k), decode_rows)
        decode_values[ignored] = lambda: flip_decode(tgt, memory64, src)
        if case.train and case.dropout == 1.0:
            decode_values[_stack_dropout_missing("decoder")] = lambda: _without_stack_dropout(
                case, "decoder"
            ).decode(tgt, memory64, src)
        _expect_result(
            c,
            got,
            logits64,
            what,
            shape_hint=_shape_hint(got, case, "decode"),
            # the family 'the cross-attention's mask built from the wrong quantity', each
            # named only when probes leave it alone (checking.mask_sources)
            mistakes={**decode_values, **cross_sources},
            properties=(
                # first: a random result makes every probe that changes one input and
                # compares the output (ignores_memory, sees_the_future) see a change
                random_in_eval(module.decode, call, tgt, memory, src),
                lambda: _output_scaled(got, logits64, case),
                lambda: _pad_rows_filled(got, logits64, tgt, case.pad_id, "logits"),
                ignores_memory,
                sees_the_future,
                decode_random,
                lambda: (
                    None
                    if case.train
                    else _localise_decode(module, m, tgt, memory, src, case.pad_id)
                ),
            ),
            hint=_dropout_hint(case),
            train_only=_train_only(
                module,
                case,
                lambda: module.decode(tgt.clone(), memory.clone(), src.clone()),
                logits64,
                "logits",
            ),
        )
    _expect_attached(
        c, got, call, "decode", "the decoder, the target embedding and the output layer"
    )

    # decode, given another memory: the result must follow it (a decode that computes its
    # own memory, self.encode(src_ids), agrees with the reference on encode's memory alone)
    if not case.train:
        other = memory.flip(1) * 0.5 + 0.3
        what = (
            f"model.decode(tgt_ids {tuple(tgt.shape)}, memory {tuple(other.shape)} (another "
            f"memory than encode's), src_ids) {where}"
        )
        again = c.call(
            module.decode, tgt.clone(), other.clone(), src.clone(), call_repr=call, hints=hints
        )
        with torch.no_grad():
            _expect_result(
                c,
                again,
                decode_f(tgt, other.double(), src),
                what,
                shape_hint=_shape_hint(again, case, "decode"),
                mistakes={_MEMORY_RECOMPUTED: lambda: logits64},
            )

    # forward
    call = f"model(src_ids {tuple(src.shape)}, tgt_ids {tuple(tgt.shape)})"
    what = f"{call} {where}"
    got = c.call(module, src.clone(), tgt.clone(), call_repr=call, hints=hints)
    with torch.no_grad():
        forward_values = {
            _ENCODER_ON_TARGET: lambda: decode_f(tgt, encode_f(tgt), tgt),
            # decode passed on its own: forward's own wiring, which gives what decode's
            # cross-attention mask built from tgt_ids gives (both are then named)
            "forward passes tgt_ids as decode's third argument, decode(tgt_ids, memory, "
            "tgt_ids): that argument is src_ids, from which the cross-attention's mask is "
            "built (its keys are the source positions); forward(src_ids, tgt_ids) = "
            "decode(tgt_ids, encode(src_ids), src_ids).": lambda: decode_f(tgt, encode_f(src), tgt),
            **decode_values,
            ignored: lambda: flip_decode(tgt, flip_encode(src), src),
            **_shifted_target_rows(tgt, src, case.pad_id, decode_f, encode_f),
        }
        if not case.train or case.dropout == 0.0:
            # the family 'the input taken where a sub-result belongs': memory is the
            # encoder's output, not what goes into it (with or without the positions)
            for given, described in (
                (
                    lambda: m.positional_encoding(m.src_embedding(src)),
                    "the embedded source "
                    "(embeddings plus positions, what encode feeds the encoder)",
                ),
                (
                    lambda: m.src_embedding(src),
                    "the source embeddings (without even the positions)",
                ),
            ):
                forward_values[
                    f"forward hands decode the encoder's INPUT as memory, {described}: the "
                    "encoder is never run in forward. memory is the encoder's OUTPUT: "
                    "forward(src_ids, tgt_ids) = decode(tgt_ids, encode(src_ids), src_ids)."
                ] = lambda given=given: decode_f(tgt, given().double(), src)
        _expect_result(
            c,
            got,
            logits64,
            what,
            shape_hint=_shape_hint(got, case, "forward"),
            mistakes=forward_values,
            hint=_dropout_hint(case),
            train_only=_train_only(
                module, case, lambda: module(src.clone(), tgt.clone()), logits64, "logits"
            ),
        )
    if not case.train:
        _expect_no_state_between_calls(c, cls, case, module, m, src, tgt, where, hints)
    c.expect_true(
        got.requires_grad,
        f"{call} is cut off from the model's parameters (requires_grad is False): no "
        "torch.no_grad() or .detach() in forward, encode or decode. Training (lesson 10) "
        "needs the gradient to reach every weight.",
    )


def _expect_no_state_between_calls(c: Checker, cls, case: _Case, module, m, src, tgt, where, hints):
    """The family 'state kept between calls' for a model: a later batch of the SAME shape
    but other padding (the rows rolled by one along the batch axis) must get its own
    masks. A mask cached on the model (self.tgt_mask or self.src_mask built on the first
    call and reused while the shape is the same) is right on the first batch and wrong on
    the next; a fresh model, built the same way and called on that batch first, tells that
    apart from a mistake inside one call (it is then right)."""
    src2, tgt2 = src.roll(1, dims=0), tgt.roll(1, dims=0)  # (batch, len_src), (batch, len_tgt)
    same_padding = torch.equal(src2 == case.pad_id, src == case.pad_id) and torch.equal(
        tgt2 == case.pad_id, tgt == case.pad_id
    )
    if same_padding:
        return
    with torch.no_grad():
        memory64 = m.encode(src2)  # (batch, len_src, d_model)
        expected = m.decode(tgt2, memory64, src2)  # (batch, len_tgt, tgt_vocab)
    call = f"model(src_ids {tuple(src2.shape)}, tgt_ids {tuple(tgt2.shape)})"
    got = c.call(module, src2.clone(), tgt2.clone(), call_repr=call, hints=hints)
    if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
        return  # the shape is checked on the first batch
    tol = tolerance(got.dtype, torch.float32)
    if _close(got, expected, tol):
        return
    fresh, _ = _build(c, cls, case)
    first = c.call(fresh, src2.clone(), tgt2.clone(), call_repr=call, hints=hints)
    fresh_right = isinstance(first, torch.Tensor) and _close(first, expected, tol)
    what = (
        f"{call}, a second batch of the same shape as the first but with other padding (its "
        f"rows are the first batch's rows rolled by one), {where}"
    )
    if fresh_right:
        c.fail(
            f"{what} is wrong after the model has run on the first batch, and right when a "
            "freshly built model gets it first: your model keeps something from an earlier "
            "call. Most likely a mask cached on the model (self.tgt_mask or self.src_mask, "
            "built on the first call and rebuilt only when its shape changes, as PyTorch's "
            "word-language-model example does for its causal mask): these masks hold the "
            "batch's padding, so a later batch of the same shape gets the earlier batch's "
            "padding. Build the masks from the ids in every call "
            "(decoder_self_attention_mask(tgt_ids, self.pad_id), padding_mask(src_ids, "
            "self.pad_id)) and store nothing on self."
        )
    c.expect_close(got, expected, what, **tol)


def _pad_rows_filled(
    got: Any, expected: torch.Tensor, ids: torch.Tensor, pad: int, result: str
) -> str | None:
    """The family 'an edit made at the masked positions only': ``got`` right at every real
    position of ``ids`` and one filler (0, -inf, a constant) at every <pad> position
    (checking.partial_slices.rows_filled_at), said for encode's memory or decode's logits;
    None otherwise."""
    filler = rows_filled_at(got, expected, ids != pad)
    if not filler:
        return None
    if result == "memory":
        return (
            f"Your memory is the encoder's output with every row at a source <pad> position set "
            f"to {filler} (the output multiplied by the padding mask, or a masked_fill), and "
            "right everywhere else. encode returns the encoder's output as it is: the "
            "decoder's cross-attention already ignores those rows through src_mask, and "
            "nothing after it reads them."
        )
    return (
        f"Your logits are right at every real target position and set to {filler} at every "
        "target <pad> position (a masked_fill or a product with the padding mask): decode "
        "returns the output layer's logits at every position, pads included. The pads are "
        "left out later, by the loss (ignore_index=pad_id, lesson 10), not by the model."
    )


def _output_scaled(got: Any, expected: torch.Tensor, case: _Case) -> str | None:
    """The family 'a sub-step scaled by a constant' at the end of decode: the decoder's
    output multiplied by k before the output layer (logits - bias = k * (the reference's
    logits - bias): T5's d_model ** -0.5 for tied embeddings, or sqrt(d_model) applied
    again), or the logits themselves multiplied by k (bias included). Named when one k
    fits every logit; None otherwise."""
    if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
        return None
    if case.train and case.dropout == 1.0 and not bool(got.detach().ne(0).any()):
        # every logit 0 in train mode with dropout=1.0 (and right in eval mode, where this is
        # reached only after the eval cases passed): a dropout acting on the logits, not a
        # factor (F.dropout or self.dropout on self.output(y): "multiplied by 0" before)
        return (
            "Every logit is 0 in train mode with dropout=1.0 (and yours is right in eval "
            "mode): a dropout acts on the logits, after the output layer, and with p=1 it "
            "drops them all. The model's dropouts act inside it (after the positional "
            "encoding, in every sub-layer); decode returns self.output(y) as it is."
        )
    bias = _case_state(case)["output.bias"].double()  # (tgt_vocab,)
    mine, right = got.detach().double(), expected.double()  # (batch, len_tgt, tgt_vocab)
    d_model = case.kwargs.get("d_model", 512)
    tied = " (this model ties its embeddings)" if case.tie else ""
    for before, (a, b) in (
        (True, (mine - bias, right - bias)),
        (False, (mine, right)),
    ):
        if not torch.isfinite(a).all() or float((b * b).sum()) == 0.0:
            return None
        k = float((a * b).sum() / (b * b).sum())
        if abs(k - 1) < 1e-3 or not torch.allclose(a, k * b, rtol=1e-3, atol=1e-4):
            continue
        named = {
            "d_model ** -0.5 = 1 / sqrt(d_model)": d_model**-0.5,
            "sqrt(d_model)": d_model**0.5,
            "1 / d_model": 1 / d_model,
            "d_model": float(d_model),
        }
        which = next((n for n, v in named.items() if abs(k / v - 1) < 1e-3), f"{k:.4g}")
        if before:
            return (
                f"Your logits are what the reference gives with the decoder's output "
                f"multiplied by {which} before the output layer{tied}: self.output(y * k) "
                f"with k = {k:.4g} on every logit (rescaling before a shared projection, as "
                "T5 and mesh-tensorflow do for tied embeddings, shrinks or grows every "
                "logit). This course's decode returns self.output(y) as it is: remove the "
                "scaling."
            )
        return (
            f"Your logits are the reference's multiplied by {which}, bias included, on "
            "every logit: the logits are rescaled after the output layer. decode returns "
            "self.output(y) as it is: remove the scaling."
        )
    return None
