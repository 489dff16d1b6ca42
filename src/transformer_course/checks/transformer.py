"""Checks for lesson 09 (the full Transformer): ``Transformer``, ``count_parameters``,
``greedy_decode`` and two concept questions.

Expected values come from :mod:`transformer_course.reference.transformer`, computed in
float64 (the reference is tested against ``nn.Transformer`` plus embeddings, positions
and output layer in ``tests/test_09_transformer.py``). The values that classic mistakes
give are computed by the float64 oracles
:func:`~transformer_course.checking.oracles.transformer_encode_f` and
:func:`~transformer_course.checking.oracles.transformer_decode_f` (through
:func:`case_oracles`), one knob per mistake, so that a wrong answer gets the diagnosis of
the mistake it matches; ``count_parameters`` and ``greedy_decode``'s mistakes come from
``count_parameters_f`` and ``greedy_decode_f``.

The learner's ``Transformer`` is only constructed, read and loaded through its state
dict, switched between train and eval, and called (``encode``, ``decode``, forward),
always through :meth:`Checker.call`. Training mode is checked without a random stream:
with ``dropout=1.0`` every dropout zeroes its input, which gives one deterministic
output; with ``dropout=0.0`` train mode equals eval mode.

What is accepted beyond the reference's own choices:

* the positional encoding's buffers: any name and layout, or none in the state dict (a
  non-persistent buffer, or a table computed on the fly); the checks leave them as the
  learner's module has them and only the outputs show whether the positions are right;
* masks built in any way that gives the same values (lesson 06's functions, inline
  comparisons, masks expanded to full size);
* any exception type for ``tie_embeddings=True`` with two vocabulary sizes;
* any floating dtype for the outputs (a note when it is not float32).

``greedy_decode`` gets a reference ``Transformer`` made with
:func:`~transformer_course.checking.objects.course_object` (so that the sandboxed
grader can rebuild it), with fixed weights chosen so that rows finish at different
steps, all rows finish before ``max_len`` (early stop), or some never do; the
next-token margins are large enough that any correct way of decoding (re-encoding at
every step, one row at a time, softmax before the argmax) gives the same tokens
(``tests/test_09_transformer.py`` proves both).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import torch
from torch import nn

from transformer_course.checking import Checker, CheckFailure, short, tolerance
from transformer_course.checking.inputs import vocab_token_ids
from transformer_course.checking.layers import value_or_none
from transformer_course.checking.localise import diagnose as name_mistakes
from transformer_course.checking.modules import build_module, random_state
from transformer_course.checking.objects import course_object
from transformer_course.checking.oracles import (
    as_float64,
    count_parameters_f,
    greedy_decode_f,
    transformer_decode_f,
    transformer_encode_f,
    uses_final_norm,
)
from transformer_course.checking.quiz import Quiz, quiz_check
from transformer_course.exercise import Exercise
from transformer_course.reference import transformer as ref

__all__ = [
    "check_Transformer",
    "check_count_parameters",
    "check_greedy_decode",
    "check_quiz_autoregression",
    "check_quiz_tie_embeddings",
    "greedy_model",
]

_SRC_TABLE = "src_embedding.embedding.weight"
_TGT_TABLE = "tgt_embedding.embedding.weight"
_OUT_WEIGHT = "output.weight"
_POSITIONS = "positional_encoding."  # buffers only: any layout is accepted


# ================================================================== shared helpers
def _close(got: torch.Tensor, expected: torch.Tensor, tol: Mapping[str, float]) -> bool:
    if tuple(got.shape) != tuple(expected.shape):
        return False
    return torch.allclose(got.detach().double(), expected.double(), **tol, equal_nan=True)


# ================================================================== Transformer
@dataclass(frozen=True)
class _Case:
    seed: int
    src_vocab: int
    tgt_vocab: int
    d_model: int
    num_heads: int
    num_layers: int
    d_ff: int
    src_lengths: tuple[int, ...]
    len_src: int
    tgt_lengths: tuple[int, ...]
    len_tgt: int
    pad_id: int = 0
    left: bool = False  # source padded at the start
    tie: bool = False
    norm_first: bool = False
    final_norm: bool | None = None
    dropout: float = 0.1
    train: bool = False
    max_len: int = 32

    @property
    def kwargs(self) -> dict[str, Any]:
        """The constructor's keyword arguments (the vocabulary sizes are positional)."""
        kwargs = {
            "d_model": self.d_model,
            "num_heads": self.num_heads,
            "num_layers": self.num_layers,
            "d_ff": self.d_ff,
            "dropout": self.dropout,
            "max_len": self.max_len,
            "pad_id": self.pad_id,
        }
        if self.tie:
            kwargs["tie_embeddings"] = True
        if self.norm_first:
            kwargs["norm_first"] = True
        if self.final_norm is not None:
            kwargs["final_norm"] = self.final_norm
        return kwargs

    @property
    def mode(self) -> str:
        return "train" if self.train else "eval"

    def describe(self) -> str:
        parts = [f"len_src={self.len_src}, len_tgt={self.len_tgt}"]
        if self.left:
            parts.append("the source padded at the start")
        parts.append(f"pad_id={self.pad_id}")
        parts.append(f"{self.mode} mode")
        return ", ".join(parts)


# _Case(seed, src_vocab, tgt_vocab, d_model, num_heads, num_layers, d_ff,
#       src_lengths, len_src, tgt_lengths, len_tgt, pad_id, left, tie, norm_first, final_norm)
VISIBLE_TRANSFORMER = [
    # post-LN, untied, two vocabularies, len_src == len_tgt, dropout 0.1 in eval mode
    _Case(1, 11, 13, 8, 2, 2, 16, (6, 4, 5), 6, (6, 6, 3), 6),
    # pre-LN (final norms by default), tied, pad_id 3, left-padded source, len_src != len_tgt
    _Case(2, 12, 12, 8, 2, 2, 16, (7, 4), 7, (5, 3), 5, 3, True, True, True, dropout=0.0),
    # nn.Transformer's configuration: post-LN with final norms
    _Case(3, 10, 10, 12, 3, 1, 20, (5, 3), 5, (4, 4), 4, final_norm=True, pad_id=1),
    # train mode: dropout=1.0 drops everything, dropout=0.0 changes nothing
    _Case(4, 9, 10, 8, 2, 2, 16, (5, 3), 5, (4, 2), 4, dropout=1.0, train=True),
    _Case(
        5, 12, 12, 8, 2, 1, 16, (5, 5), 5, (5, 3), 5, 0, False, True, True, dropout=1.0, train=True
    ),
    _Case(6, 11, 13, 8, 2, 2, 16, (6, 4), 6, (5, 2), 5, dropout=0.0, train=True),
]
HIDDEN_TRANSFORMER = [
    # len_src == len_tgt first, so that the masks' routing shows in the values
    _Case(104, 13, 11, 16, 2, 2, 32, (5, 5), 5, (5, 4), 5, 4, False, False, True, False),
    _Case(101, 17, 14, 16, 4, 3, 24, (9, 2, 7), 9, (6, 6, 1), 6, pad_id=2, left=True),
    _Case(102, 20, 20, 12, 2, 1, 8, (3,), 3, (1,), 1, tie=True),  # len_tgt = 1, batch 1
    _Case(
        103, 15, 15, 8, 4, 2, 16, (4, 6, 6, 2), 6, (7, 3, 7, 5), 7, 5, False, True, final_norm=True
    ),
    _Case(105, 10, 12, 8, 2, 3, 12, (4, 2), 4, (6, 3), 6, 1, dropout=1.0, train=True),
    _Case(
        106, 16, 16, 8, 2, 2, 16, (6, 3), 6, (4, 4), 4, 3, True, True, True, dropout=0.0, train=True
    ),
]


def reference_model(case: _Case, dtype=torch.float64) -> nn.Module:
    """The reference Transformer of a case, with its weights, in the case's mode."""
    model = ref.Transformer(case.src_vocab, case.tgt_vocab, **case.kwargs)
    full = model.state_dict()
    full.update(_case_state(case))
    model.load_state_dict(full)
    model = model.to(dtype)
    return model.train() if case.train else model.eval()


@functools.lru_cache(maxsize=64)
def _parameter_shapes(case: _Case) -> dict[str, tuple[int, ...]]:
    """name -> shape of every state-dict entry of the reference, the positional encoding's
    fixed table left out."""
    model = ref.Transformer(case.src_vocab, case.tgt_vocab, **{**case.kwargs, "max_len": 1})
    return {
        key: tuple(value.shape)
        for key, value in model.state_dict().items()
        if not key.startswith(_POSITIONS)
    }


def _case_state(case: _Case, *, distinct: bool = False) -> dict[str, torch.Tensor]:
    """The check's deterministic weights. Tied: the two tables and the output weight hold
    one matrix, unless ``distinct`` (three different ones, to see whether the learner's
    module ties them)."""
    state = random_state(_parameter_shapes(case), case.seed)
    if case.tie and not distinct:
        state[_TGT_TABLE] = state[_SRC_TABLE]
        state[_OUT_WEIGHT] = state[_SRC_TABLE]
    return state


def case_oracles(
    case: _Case, *, norm_first: bool | None = None
) -> tuple[Callable[..., torch.Tensor], Callable[..., torch.Tensor]]:
    """(encode, decode): the float64 oracles of a case's model (its weights, sizes and mode;
    ``norm_first`` another layout with the same weights). ``encode(src_ids, **knobs)`` ->
    memory (batch, len_src, d_model) and ``decode(tgt_ids, memory, src_ids, **knobs)`` ->
    logits (batch, len_tgt, tgt_vocab_size), the knobs those of
    :func:`~transformer_course.checking.oracles.transformer_encode_f` and
    :func:`~transformer_course.checking.oracles.transformer_decode_f` (what
    :func:`encode_mistakes` and :func:`decode_mistakes` list)."""
    p = as_float64(_case_state(case))
    layout = {
        "norm_first": case.norm_first if norm_first is None else norm_first,
        "final": uses_final_norm(case.norm_first, case.final_norm),
        "drop": case.train and case.dropout == 1.0,  # every dropout zeroes
    }
    sizes = (case.pad_id, case.num_heads, case.num_layers)

    def encode(src_ids: torch.Tensor, **knobs: Any) -> torch.Tensor:
        return transformer_encode_f(src_ids, p, *sizes, **layout, **knobs)

    def decode(tgt_ids, memory, src_ids, **knobs: Any) -> torch.Tensor:
        return transformer_decode_f(tgt_ids, memory, src_ids, p, *sizes, **layout, **knobs)

    return encode, decode


_NOT_SCALED = (
    "The embeddings are not multiplied by sqrt(d_model) (paper, section 3.4). Lesson 02's "
    "TokenEmbedding does that for you: call the module itself, `self.src_embedding(ids)`, "
    "rather than the table inside it (`.embedding`)."
)
_SCALED_TWICE = (
    "The embeddings are multiplied by sqrt(d_model) twice: TokenEmbedding (lesson 02) already "
    "scales its lookup, so do not multiply its output again."
)
_NO_POSITIONS = {
    "src": "The source gets no positional encoding: without it the encoder cannot tell one "
    "word order from another (lesson 03). Pass the embeddings through "
    "self.positional_encoding before the encoder.",
    "tgt": "The target gets no positional encoding: the decoder needs positions as much as "
    "the encoder does. Pass the target's embeddings through self.positional_encoding too "
    "(one module serves both sides).",
}
_POSITIONS_TWICE = (
    "The positional encoding is added twice: self.positional_encoding already adds the table "
    "(lesson 03), so do not add it again, before or after it."
)
_DROPOUT_MISSING = (
    "In train mode with dropout=1.0 the sum of embeddings and positions must be dropped "
    "entirely before the first layer, but yours reached the layers: there is no dropout on "
    "it. The paper (section 5.4) applies dropout to the sums of the embeddings and the "
    "positional encodings, on both sides; self.positional_encoding adds the table and then "
    "applies dropout, with the model's dropout rate (did you add the table yourself, or "
    "build PositionalEncoding with dropout 0?)."
)
_DROPOUT_BEFORE_POSITIONS = (
    "In train mode with dropout=1.0 the positions survived the dropout: you applied dropout to "
    "the embeddings and added the positions afterwards. Dropout goes on the sum, "
    "embeddings + positions (paper, section 5.4): self.positional_encoding does both, in "
    "that order."
)
_WRONG_TABLE = {
    "src": "The source ids were looked up in the target's table: the encoder's input comes "
    "from self.src_embedding.",
    "tgt": "The target ids were looked up in the source's table: the decoder's input comes "
    "from self.tgt_embedding.",
}
_ENCODER_NO_MASK = (
    "The encoder ignores the padding of the source: its self-attention gives weight to "
    "<pad> positions. Pass padding_mask(src_ids, self.pad_id) to self.encoder."
)


def _pad0(pad_id: int) -> str:
    return (
        f"Your masks treat id 0 as <pad>, but this model's pad_id is {pad_id}: build every mask "
        "with self.pad_id (the constructor's pad_id argument), never a hard-coded 0."
    )


_NO_LOOK_AHEAD = (
    "The decoder's self-attention has no look-ahead mask: each target position sees the "
    "tokens after it, which at inference do not exist yet. Use "
    "decoder_self_attention_mask(tgt_ids, self.pad_id) (look-ahead AND target padding), not "
    "only padding_mask(tgt_ids, ...)."
)
_NO_TARGET_PADDING = (
    "The decoder's self-attention has the look-ahead mask but ignores the target's padding: "
    "use decoder_self_attention_mask(tgt_ids, self.pad_id), which combines both."
)
_SOURCE_MASK_TO_SELF = (
    "The decoder's self-attention got the source padding mask. Its queries and keys are "
    "target positions: it needs decoder_self_attention_mask(tgt_ids, self.pad_id); the "
    "source padding mask belongs to the cross-attention."
)
_SELF_MASK_FROM_SOURCE = (
    "The decoder's self-attention mask was built from src_ids: "
    "decoder_self_attention_mask(src_ids, ...) has the look-ahead part, but the source's "
    "padding and the source's length (with len_src != len_tgt it does not even fit). Its "
    "queries and keys are target positions: decoder_self_attention_mask(tgt_ids, self.pad_id)."
)
_MASKS_SWAPPED = (
    "The two decoder masks are swapped: the target mask went to the cross-attention and the "
    "source padding mask to the self-attention. The decoder's signature is "
    "decoder(x, memory, src_mask, tgt_mask): the source mask comes first."
)
_TARGET_MASK_TO_CROSS = (
    "The cross-attention got the target mask. Its keys are the source positions (memory), so "
    "it needs the source padding mask, padding_mask(src_ids, self.pad_id), passed as the "
    "decoder's src_mask."
)
_NO_CROSS_MASK = (
    "The cross-attention ignores the padding of the source: the decoder reads <pad> positions "
    "of memory. Pass padding_mask(src_ids, self.pad_id) as the decoder's src_mask."
)
_MEMORY_AS_QUERIES = (
    "You called the decoder with memory first and the target second. The decoder's input x "
    "is the target (it supplies the queries, one output row per target position); memory is "
    "the second argument, the keys and values of the cross-attention: "
    "decoder(y, memory, src_mask, tgt_mask)."
)
_IGNORES_MEMORY = (
    "decode's logits do not depend on `memory`: the cross-attention must read the encoder "
    "output passed in (decoder(y, memory, ...)), not the target and not a memory computed "
    "anew."
)
_SOFTMAX = (
    "decode returns probabilities (a softmax over the vocabulary): the contract is logits, "
    "the output layer's raw scores. The loss (F.cross_entropy, and lesson 10's) applies "
    "log-softmax itself, and greedy decoding only needs an argmax; return self.output(...) "
    "as it is."
)
_LOG_SOFTMAX = (
    "decode returns log-probabilities (log_softmax over the vocabulary), the way the "
    "Annotated Transformer's Generator does (it trains with a KL-divergence loss on them). "
    "This course's model returns logits, the output layer's raw scores; the loss and the "
    "decoders of lesson 10 apply (log-)softmax themselves. Return self.output(...) as it is."
)
_SOFTMAX_POSITIONS = (
    "decode applies a softmax over the positions (dim=1): it compares different positions' "
    "scores for one word, which means nothing. The model returns logits, with no softmax; "
    "where probabilities are needed, the softmax is over the vocabulary, the last axis."
)
_ENCODER_ON_TARGET = (
    "forward ran the encoder on the target: memory is the encoder's reading of the SOURCE, "
    "memory = self.encode(src_ids), and the decoder reads the target. forward(src_ids, "
    "tgt_ids) = decode(tgt_ids, encode(src_ids), src_ids)."
)
_NORM_FIRST_IGNORED = {
    True: "Your layers are post-LN where this model asked for pre-LN (norm_first=True): pass "
    "norm_first on to Encoder and Decoder.",
    False: "Your layers are pre-LN where this model asked for post-LN (norm_first=False): pass "
    "norm_first on to Encoder and Decoder unchanged.",
}
_CROSS_MASK_FROM_TARGET = (
    "Your cross-attention's mask is the padding mask of tgt_ids: the cross-attention's keys "
    "are the SOURCE positions, so its mask is padding_mask(src_ids, self.pad_id)."
)
_FUTURE_LEAK = (
    "Changing the LAST target token changed the logits at earlier positions: position t "
    "sees the target tokens after it. The decoder's self-attention needs the look-ahead "
    "mask, decoder_self_attention_mask(tgt_ids, self.pad_id)."
)


def _embedding_mistakes(side: str, case: _Case) -> list[tuple[str, dict[str, Any]]]:
    """(message, knobs) of the mistakes of one side's input."""
    table = [
        (_NOT_SCALED, {"scale": 0}),
        (_SCALED_TWICE, {"scale": 2}),
        (_NO_POSITIONS[side], {"positions": "tgt" if side == "src" else "src"}),
        (_POSITIONS_TWICE, {"pe_times": 2}),
    ]
    if case.train and case.dropout == 1.0:
        table += [
            (_DROPOUT_MISSING, {"emb_dropout": "missing"}),
            (_DROPOUT_BEFORE_POSITIONS, {"emb_dropout": "before"}),
        ]
    table.append((_WRONG_TABLE[side], {"table": "other"}))
    return table


def encode_mistakes(case: _Case) -> list[tuple[str, dict[str, Any]]]:
    table = _embedding_mistakes("src", case)
    table.append((_ENCODER_NO_MASK, {"mask": "none"}))
    inverted = (
        "The encoder's source padding mask is inverted: True at the <pad> positions, as "
        "nn.Transformer's key_padding_mask (True = blocked). This course's masks are True "
        "where attention is ALLOWED, so yours lets each position attend only to padding. "
        "Use padding_mask(src_ids, self.pad_id), (src_ids != pad_id)[:, None, None, :]."
    )
    table.append((inverted, {"mask": "inverted"}))
    if case.pad_id != 0:
        table.append((_pad0(case.pad_id), {"mask": "pad0"}))
    return table


def decode_mistakes(case: _Case) -> list[tuple[str, dict[str, Any]]]:
    table = [
        (_SOFTMAX, {"output": "softmax"}),
        (_LOG_SOFTMAX, {"output": "log_softmax"}),
        (_SOFTMAX_POSITIONS, {"output": "softmax_positions"}),
        *_embedding_mistakes("tgt", case),
        (_NO_LOOK_AHEAD, {"self_mask": "pad"}),
        (_NO_TARGET_PADDING, {"self_mask": "causal"}),
        (_MASKS_SWAPPED, {"self_mask": "src_pad", "cross_mask": "tgt"}),
        (_SOURCE_MASK_TO_SELF, {"self_mask": "src_pad"}),
        # only where the two lengths agree; elsewhere the shapes clash (_length_hint)
        *(
            [(_SELF_MASK_FROM_SOURCE, {"self_mask": "src_causal_pad"})]
            if case.len_src == case.len_tgt
            else []
        ),
        (_TARGET_MASK_TO_CROSS, {"cross_mask": "tgt"}),
        (_NO_CROSS_MASK, {"cross_mask": "none"}),
        (_CROSS_MASK_FROM_TARGET, {"cross_mask": "tgt_pad"}),
        (_MEMORY_AS_QUERIES, {"reads": "swap"}),
        (_IGNORES_MEMORY, {"reads": "self"}),
    ]
    if case.pad_id != 0:
        table.append((_pad0(case.pad_id), {"self_mask": "pad0", "cross_mask": "pad0"}))
    convention = (
        "nn.Transformer's convention (True = blocked); this course's masks are True where "
        "attention is ALLOWED"
    )
    table += [
        (
            f"The cross-attention's source padding mask is inverted: True at the <pad> "
            f"positions, {convention}, so the decoder reads only the source's padding. Use "
            "padding_mask(src_ids, self.pad_id), (src_ids != pad_id)[:, None, None, :].",
            {"cross_mask": "inverted"},
        ),
        (
            "Your decoder self-attention mask joins the look-ahead part and the target "
            "padding part with | (either one allows), so every non-pad position is visible, "
            "the future ones included: join them with & (both must allow), as "
            "decoder_self_attention_mask(tgt_ids, self.pad_id) does.",
            {"self_mask": "pad_or_causal"},
        ),
        (
            f"The decoder's self-attention mask is inverted: True at the future and <pad> "
            f"positions, {convention}. Use decoder_self_attention_mask(tgt_ids, self.pad_id).",
            {"self_mask": "inverted"},
        ),
        (
            f"Both decoder masks are inverted (True at the positions to block), {convention}: "
            "use decoder_self_attention_mask(tgt_ids, self.pad_id) and padding_mask(src_ids, "
            "self.pad_id) as they are.",
            {"self_mask": "inverted", "cross_mask": "inverted"},
        ),
    ]
    return table


# ----------------------------------------------------------- hints
def _length_hint(case: _Case) -> list:
    """A hint for an error that mixes the source's and the target's lengths."""
    ls, lt = case.len_src, case.len_tgt

    def mixes(exc: BaseException) -> bool:
        numbers = {int(n) for n in re.findall(r"\d+", str(exc))}
        return isinstance(exc, RuntimeError) and {ls, lt} <= numbers

    advice = (
        f"Here len_src = {ls} and len_tgt = {lt}, and the error mixes exactly these two "
        "lengths: something built from one sequence met the other. The decoder's "
        "self-attention mask comes from tgt_ids, (batch, 1, len_tgt, len_tgt); the "
        "cross-attention mask from src_ids, (batch, 1, 1, len_src); and the decoder is "
        "called as decoder(target vectors, memory, src_mask, tgt_mask), in that order."
    )
    return [(mixes, advice)] if ls != lt else []


_INDEX_HINT = (
    "An id was larger than a table: source ids go through src_embedding (src_vocab_size "
    "rows), target ids through tgt_embedding (tgt_vocab_size rows). The encoder reads the "
    "source, encode(src_ids); the decoder reads the target."
)
_DECODE_SIZES_HINT = (
    "In greedy decoding the sizes that must agree are those of model.decode(tokens, memory, "
    "src_ids): tokens are the target so far (batch, steps), memory comes from "
    "model.encode(src_ids) (batch, len_src, d_model), and the third argument must be the "
    "source ids themselves, from which the cross-attention's padding mask is built (len_src "
    "long; the generated tokens do not fit there). Pass the same src_ids to encode and to "
    "every decode call, with one row per sentence."
)
_TUPLE_HINT = (
    "The encoder and the decoder (lessons 07 and 08) each return one tensor; lesson 05's "
    "MultiHeadAttention returns a pair, but you do not call it directly here."
)
_CALL_HINTS = [
    ("index out of range", _INDEX_HINT),
    (lambda exc: "tuple" in str(exc) and "Tensor" in str(exc), _TUPLE_HINT),
]


def _keys_hint(found: Mapping[str, tuple], expected: Mapping[str, tuple], case: _Case) -> str:
    hints = []
    if "src_embedding.weight" in found or "tgt_embedding.weight" in found:
        hints.append(
            "`src_embedding.weight` is the key of a plain nn.Embedding: use lesson 02's "
            "TokenEmbedding (imported in the setup cell), which keeps its table as "
            "`.embedding` and multiplies the lookup by sqrt(d_model)."
        )
    for key in (_TGT_TABLE, _OUT_WEIGHT):
        if key in found and key in expected and found[key] != expected[key]:
            if found[key] == expected[_SRC_TABLE]:
                hints.append(
                    f"{key} has the source vocabulary's shape {found[key]}: the target side "
                    f"(tgt_embedding and output) has tgt_vocab_size = {case.tgt_vocab} rows. "
                    "Either it was built with src_vocab_size (write tgt_vocab_size there), "
                    "or it is the source's module itself, shared."
                )
    missing = set(expected) - set(found)
    extra = set(found) - set(expected)
    if {"encoder.norm.weight", "decoder.norm.weight"} & missing:
        hints.append(
            "Your stacks lack their final LayerNorm `norm`: pass norm_first and final_norm on "
            "to Encoder and Decoder (with final_norm=True, or norm_first=True and "
            "final_norm=None, they add one)."
        )
    if {"encoder.norm.weight", "decoder.norm.weight"} & extra:
        hints.append(
            "Your stacks have a final LayerNorm this configuration must not have: pass "
            "norm_first and final_norm on to Encoder and Decoder unchanged (final_norm=None "
            "adds one only for pre-LN)."
        )
    positional = [key for key in extra if "positional" in key and not key.startswith(_POSITIONS)]
    if positional:
        hints.append(
            f"You built a second positional encoding ({', '.join(positional)}): the contract has "
            "ONE, positional_encoding, used for both sides (the sinusoids do not depend on the "
            "language; only the positions matter)."
        )
    if "output.bias" in missing and _OUT_WEIGHT in found:
        hints.append("The output layer is nn.Linear(d_model, tgt_vocab_size), with its bias.")
    if not any(key.startswith("output.") for key in found):
        hints.append(
            "There is no `output` layer: the decoder's vectors go through "
            "self.output = nn.Linear(d_model, tgt_vocab_size) (the Annotated Transformer "
            "calls it generator.proj; this course calls it output)."
        )
    layers = {
        key.split(".")[2] for key in found if key.startswith(("encoder.layers.", "decoder.layers."))
    }
    wanted = {key.split(".")[2] for key in expected if key.startswith("encoder.layers.")}
    if layers and layers != wanted:
        hints.append(f"Each stack has num_layers = {case.num_layers} layers.")
    return " ".join(dict.fromkeys(hints))


# ----------------------------------------------------------- building and loading
def _refused_valid(cls, case: _Case, error: ValueError) -> str:
    """Why a ValueError from constructing ``case`` (a valid combination) is the learner's
    own refusal misfiring, with the slips that agree with this call (when the error is
    about tying or the vocabularies); a call with tie_embeddings=False passed explicitly
    tells a default of True from a test that ignores tie_embeddings."""
    same = case.src_vocab == case.tgt_vocab
    about = bool(re.search(r"tie|vocab", str(error), re.IGNORECASE))
    slip = ""
    if case.tie:
        passed = "tie_embeddings=True with one shared vocabulary"
        if same and about:
            slip = (
                "your test refuses equal vocabulary sizes: its comparison is inverted (== "
                "where != belongs), or it refuses every tie_embeddings=True"
            )
    else:
        passed = "tie_embeddings not passed: its default, False, ties nothing"
        if not same and about:
            try:
                cls(case.src_vocab, case.tgt_vocab, **case.kwargs, tie_embeddings=False)
            except Exception:
                slip = (
                    "your test refuses two vocabulary sizes even with tie_embeddings=False "
                    "(it does not look at tie_embeddings)"
                )
            else:
                slip = (
                    "with tie_embeddings=False passed it builds, so the default of "
                    "tie_embeddings in your __init__ is True, not False"
                )
    return (
        f"\nYour Transformer raised ValueError on a valid call ({passed}). Refuse only "
        "tie_embeddings=True with two different vocabulary sizes"
        + (f"; here {slip}." if slip else ".")
    )


def _build(c: Checker, cls, case: _Case) -> tuple[nn.Module, str]:
    """Construct, check the state-dict keys and shapes, check the tying, load the case's
    weights (leaving the learner's positional-encoding buffers as they are), set the mode."""
    try:
        module, built = build_module(
            c,
            cls,
            case.src_vocab,
            case.tgt_vocab,
            name="Transformer",
            mode=case.mode,
            **case.kwargs,
        )
    except CheckFailure as failure:
        if isinstance(failure.__cause__, ValueError):
            raise failure.with_cause(
                _refused_valid(cls, case, failure.__cause__)
            ) from failure.__cause__
        raise
    expected = _parameter_shapes(case)
    own = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    found = {key: tuple(value.shape) for key, value in own.items()}
    keys = {key for key in found if not key.startswith(_POSITIONS)}
    if keys != set(expected):
        missing = sorted(set(expected) - keys)
        extra = sorted(keys - set(expected))
        c.fail(
            f"{built} should have the state-dict keys of the contract (besides the positional "
            f"encoding's table); missing: {missing or 'none'}, unexpected: {extra or 'none'}. "
            "The checks (and lesson 10) load weights by these names, so the submodules must be "
            "called src_embedding, tgt_embedding, positional_encoding, encoder, decoder and "
            f"output. {_keys_hint(found, expected, case)}".strip()
        )
    for key, shape in expected.items():
        if found[key] != shape:
            c.fail(
                f"{built}: {key} has shape {found[key]}, expected {shape}. "
                f"{_keys_hint(found, expected, case)}".strip()
            )
    c.ok()
    buffers = {
        key: value.detach().clone() for key, value in own.items() if key.startswith(_POSITIONS)
    }
    _check_sharing(c, module, built, case, buffers)
    c.call(
        module.load_state_dict,
        {**_case_state(case), **buffers},
        call_repr=f"{built}.load_state_dict(...)",
    )
    return module, built


def _check_sharing(c: Checker, module, built: str, case: _Case, buffers: dict) -> None:
    """Load three different matrices into the two tables and the output weight and read
    them back: a tied model keeps one (all three equal), an untied one keeps three."""
    # as built: matrices that start with equal values but are not shared were copied
    initial = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    initial = {key: initial[key].detach().clone() for key in (_SRC_TABLE, _TGT_TABLE, _OUT_WEIGHT)}
    copied = (
        "they start with the same values, so they were copied (clone(), copy_(), "
        "nn.Parameter(weight.clone()), load_state_dict) rather than shared: copies drift "
        "apart at the first optimizer step."
    )
    distinct = _case_state(case, distinct=True)
    c.call(
        module.load_state_dict, {**distinct, **buffers}, call_repr=f"{built}.load_state_dict(...)"
    )
    back = c.call(module.state_dict, call_repr=f"{built}.state_dict()")
    same = {
        (a, b): torch.equal(back[a], back[b])
        for a, b in ((_SRC_TABLE, _TGT_TABLE), (_TGT_TABLE, _OUT_WEIGHT), (_SRC_TABLE, _OUT_WEIGHT))
        if back[a].shape == back[b].shape
    }
    started_equal = {
        pair: initial[pair[0]].shape == initial[pair[1]].shape
        and torch.equal(initial[pair[0]], initial[pair[1]])
        for pair in same
    }
    if case.tie:
        if not any(same.values()):
            how = (
                copied
                if all(started_equal.values())
                else "tie_embeddings is ignored (they do not even start equal)."
            )
            c.fail(
                f"{built}: tie_embeddings=True, but src_embedding, tgt_embedding and output "
                "keep three separate matrices (loading three different ones, each kept its "
                f"own): {how} Make the three share ONE nn.Parameter: "
                "assign self.src_embedding.embedding.weight to "
                "self.tgt_embedding.embedding.weight and to self.output.weight (section 4)."
            )
        if not all(same.values()):
            # equality is transitive: with one pair shared, the third matrix is the one apart
            shared = {name for pair, s in same.items() if s for name in pair}
            apart = sorted(
                {name.split(".")[0] for pair in same for name in pair}
                - {name.split(".")[0] for name in shared}
            )
            apart_copied = all(started_equal.values())
            c.fail(
                f"{built}: tie_embeddings=True, but only some of the three matrices are shared "
                f"({', '.join(apart)} keeps its own).{' T' + copied[1:] if apart_copied else ''} The paper "
                "(section 3.4) shares one matrix between both embeddings AND the output layer: "
                "assign self.src_embedding.embedding.weight to "
                "self.tgt_embedding.embedding.weight and to self.output.weight."
            )
    else:
        if same.get((_SRC_TABLE, _TGT_TABLE)):
            c.fail(
                f"{built}: tie_embeddings=False, but src_embedding and tgt_embedding share one "
                "table (a value loaded into one appeared in the other). Without tying, each "
                "side has its own TokenEmbedding: create two."
            )
        if same.get((_TGT_TABLE, _OUT_WEIGHT)) or same.get((_SRC_TABLE, _OUT_WEIGHT)):
            c.fail(
                f"{built}: tie_embeddings=False, but the output layer shares its weight with an "
                "embedding table. Share only when tie_embeddings is True."
            )
    for key, tensor in distinct.items():
        if key in (_SRC_TABLE, _TGT_TABLE, _OUT_WEIGHT):
            continue
        if not torch.equal(back[key].detach().to(tensor.dtype), tensor):
            c.fail(
                f"after {built}.load_state_dict(...), {key} does not hold the weights loaded "
                "into it: a later key overwrote it. Are two of its submodules one and the same "
                "object? Each needs its own instance."
            )
    c.ok()


def _expect_vocab_check(c: Checker, cls, case: _Case) -> None:
    """tie_embeddings=True with two vocabulary sizes must be refused (any exception)."""
    src_vocab, tgt_vocab = case.src_vocab, case.src_vocab + 3
    built = f"Transformer({src_vocab}, {tgt_vocab}, ..., tie_embeddings=True)"
    try:
        c.call(
            cls, src_vocab, tgt_vocab, **{**case.kwargs, "tie_embeddings": True}, call_repr=built
        )
    except CheckFailure as failure:  # the learner's code raised: the model was refused, good
        if "not implemented yet" in str(failure):
            raise
        c.ok()
        return
    c.fail(
        f"{built} was built without complaint. Tying shares one (vocab_size, d_model) matrix "
        "between both embeddings and the output layer, so it needs one shared vocabulary: "
        "raise a ValueError when src_vocab_size != tgt_vocab_size."
    )


# ----------------------------------------------------------- comparing
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
) -> None:
    c.expect_type(got, torch.Tensor, what, "Return one tensor.")
    c.expect_shape(got, expected.shape, what, shape_hint)
    c.expect_floating(got, what.split(" [")[0].split("(")[0], preferred=torch.float32)
    tol = tolerance(got.dtype, torch.float32)
    if not _close(got, expected, tol):
        named = name_mistakes(
            got, {m: lambda f=f: value_or_none(f) for m, f in mistakes.items()}, **tol
        )
        if named:
            c.fail(f"{what} is not what the reference gives. {named}")
        for diagnose in properties:
            message = diagnose()
            if message:
                c.fail(f"{what} is not what the reference gives. {message}")
    c.expect_close(got, expected, what, **tol, hint=hint)


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
    "still active. The model was built with dropout > 0 and switched to eval(), where dropout "
    "must do nothing: use nn.Dropout modules (the reference modules do), which follow "
    "train()/eval(), never F.dropout(..., training=True)."
)


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
    hints = [*_CALL_HINTS, *_length_hint(case)]
    pad = case.pad_id

    def random_in_eval(method, call: str, *args) -> Callable[[], str | None]:
        def diagnose() -> str | None:
            if case.train or case.dropout == 0.0:
                return None
            first = c.call(method, *(a.clone() for a in args), call_repr=call, hints=hints)
            second = c.call(method, *(a.clone() for a in args), call_repr=call, hints=hints)
            return None if torch.equal(first.detach(), second.detach()) else _RANDOM_IN_EVAL

        return diagnose

    def table(compute, rows):
        return {message: (lambda knobs=knobs: compute(knobs)) for message, knobs in rows}

    # encode
    what = f"model.encode(src_ids {tuple(src.shape)}) {where}"
    encode_call = f"model.encode(src_ids {tuple(src.shape)})"
    got = c.call(module.encode, src.clone(), call_repr=encode_call, hints=hints)
    with torch.no_grad():
        encode_values = table(lambda k: encode_f(src, **k), encode_mistakes(case))
        encode_values[ignored] = lambda: flip_encode(src)
        _expect_result(
            c,
            got,
            memory64,
            what,
            shape_hint=_shape_hint(got, case, "memory"),
            mistakes=encode_values,
            properties=(random_in_eval(module.encode, encode_call, src),),
            hint=_dropout_hint(case),
        )

    # decode, given the reference's memory
    memory = memory64.float()
    what = (
        f"model.decode(tgt_ids {tuple(tgt.shape)}, memory {tuple(memory.shape)}, src_ids) {where}"
    )
    call = f"model.decode(tgt_ids {tuple(tgt.shape)}, memory, src_ids)"
    got = c.call(
        module.decode, tgt.clone(), memory.clone(), src.clone(), call_repr=call, hints=hints
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
        return _FUTURE_LEAK if earlier > 1e-4 else None

    with torch.no_grad():
        decode_values = table(lambda k: decode_f(tgt, memory64, src, **k), decode_mistakes(case))
        decode_values[ignored] = lambda: flip_decode(tgt, memory64, src)
        _expect_result(
            c,
            got,
            logits64,
            what,
            shape_hint=_shape_hint(got, case, "decode"),
            mistakes=decode_values,
            properties=(
                ignores_memory,
                sees_the_future,
                random_in_eval(module.decode, call, tgt, memory, src),
            ),
            hint=_dropout_hint(case),
        )

    # forward
    call = f"model(src_ids {tuple(src.shape)}, tgt_ids {tuple(tgt.shape)})"
    what = f"{call} {where}"
    got = c.call(module, src.clone(), tgt.clone(), call_repr=call, hints=hints)
    with torch.no_grad():
        forward_values = {
            _ENCODER_ON_TARGET: lambda: decode_f(tgt, encode_f(tgt), tgt),
            **decode_values,
            ignored: lambda: flip_decode(tgt, flip_encode(src), src),
        }
        _expect_result(
            c,
            got,
            logits64,
            what,
            shape_hint=_shape_hint(got, case, "forward"),
            mistakes=forward_values,
            hint=_dropout_hint(case),
        )
    c.expect_true(
        got.requires_grad,
        f"{call} is cut off from the model's parameters (requires_grad is False): no "
        "torch.no_grad() or .detach() in forward, encode or decode. Training (lesson 10) "
        "needs the gradient to reach every weight.",
    )


# ================================================================== count_parameters
_COUNT_KEYS = ("embeddings", "encoder", "decoder", "output")
#: (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
VISIBLE_COUNT = [
    (100, 8, 2, 1, 16, False, False),
    (100, 8, 2, 2, 16, True, False),
    (1000, 32, 4, 2, 48, False, True),
    (37000, 512, 8, 6, 2048, True, False),  # the paper's base model
    (37000, 1024, 16, 6, 4096, True, False),  # the paper's big model
]
HIDDEN_COUNT = [
    (5000, 64, 8, 3, 100, False, False),
    (5000, 64, 1, 3, 100, True, True),
    (32000, 512, 8, 6, 2048, True, True),
    (40000, 768, 12, 4, 3072, False, False),
    (7, 4, 4, 1, 3, True, False),
]


COUNT_MISTAKES = [
    (
        {"tied_copies": 3},
        "With tie_embeddings=True the matrix is ONE parameter, shared: count it once, under "
        "'embeddings'; the output layer then adds only its bias (vocab_size). model.parameters() "
        "yields a shared parameter once.",
    ),
    (
        {"tied_copies": 2},
        "With tie_embeddings=True the source and the target embedding are one matrix: "
        "'embeddings' is vocab_size * d_model, not twice that.",
    ),
    (
        {"tied_output_bias": False},
        "Tied, the output layer's weight is the shared matrix, but its bias (vocab_size numbers) "
        "is its own: 'output' is vocab_size.",
    ),
    (
        {"untied_tables": 1},
        "Without tying, source and target each have their own table: 'embeddings' is "
        "2 * vocab_size * d_model.",
    ),
    (
        {"biases": False},
        "You counted the weight matrices but not the biases: every nn.Linear has a bias of "
        "n_out numbers (d_model for w_q, w_k, w_v, w_o and w_2, d_ff for w_1, vocab_size for "
        "the output layer).",
    ),
    (
        {"attention_biases": False},
        "You left out the attention's biases: w_q, w_k, w_v and w_o are each an nn.Linear "
        "with a bias of d_model numbers, so one attention is 4 * (d_model * d_model + d_model).",
    ),
    (
        {"ffn_biases": False},
        "You left out the feed-forward network's biases: w_1 has a bias of d_ff numbers and "
        "w_2 one of d_model, so the feed-forward is (d_model * d_ff + d_ff) + (d_ff * d_model "
        "+ d_model).",
    ),
    (
        {"ffn_omitted": ("w_2.bias",)},
        "You left out w_2's bias (d_model numbers): the feed-forward is (d_model * d_ff + "
        "d_ff) + (d_ff * d_model + d_model), a bias for each of its two nn.Linear layers.",
    ),
    (
        {"ffn_omitted": ("w_1.bias",)},
        "You left out w_1's bias (d_ff numbers): the feed-forward is (d_model * d_ff + d_ff) "
        "+ (d_ff * d_model + d_model), a bias for each of its two nn.Linear layers.",
    ),
    (
        {"ffn_omitted": ("w_2.weight",)},
        "You counted one weight matrix of the feed-forward: it has two, w_1 (d_model x d_ff) "
        "and w_2 (d_ff x d_model), each with its bias: 2 * d_model * d_ff + d_ff + d_model.",
    ),
    (
        {"untied_output_bias": False},
        "Untied, you left out the output layer's bias: nn.Linear(d_model, vocab_size) has a "
        "weight (vocab_size * d_model) and a bias (vocab_size).",
    ),
    (
        {"attention_projections": 3},
        "Each attention has FOUR projections, w_q, w_k, w_v and the output projection w_o "
        "(lesson 05): 4 * (d_model * d_model + d_model); you counted three.",
    ),
    (
        {"decoder_attentions": 1},
        "A decoder layer has TWO attentions, the masked self-attention and the "
        "cross-attention (each 4 * (d_model * d_model + d_model)); you counted one.",
    ),
    (
        {"decoder_norms": 2},
        "A decoder layer has THREE LayerNorms, one per sub-layer (self-attention, "
        "cross-attention, feed-forward); you counted two.",
    ),
    (
        {"final_per_layer": True},
        "You counted the final LayerNorm once per layer (inside num_layers * (...)): each "
        "stack has ONE final LayerNorm, after its last layer, so with final_norm=True a stack "
        "is num_layers * layer + 2 * d_model.",
    ),
    (
        {"final_in": ("encoder",)},
        "With final_norm=True BOTH stacks end with a LayerNorm: the decoder's final norm "
        "(2 * d_model) is missing; you counted only the encoder's.",
    ),
    (
        {"final_in": ("decoder",)},
        "With final_norm=True BOTH stacks end with a LayerNorm: the encoder's final norm "
        "(2 * d_model) is missing; you counted only the decoder's.",
    ),
    (
        {"norms": 0},
        "The LayerNorms are missing: each has a gain and a bias of d_model numbers; an encoder "
        "layer has two, a decoder layer three.",
    ),
    (
        {"norms": 1},
        "Each LayerNorm has TWO vectors of d_model numbers, the gain (weight) and the bias: "
        "2 * d_model, not d_model.",
    ),
    (
        {"heads_multiply": True},
        "You multiplied the attention's matrices by num_heads. The heads SPLIT d_model between "
        "them (each projects to d_model / num_heads), so w_q, w_k, w_v and w_o are d_model x "
        "d_model whatever num_heads is (lesson 05, section 6).",
    ),
    (
        {"qkv_per_head": True},
        "You counted w_q, w_k and w_v as d_model x d_head (one head's share, or num_heads "
        "blocks of d_head x d_head). Each is ONE nn.Linear(d_model, d_model): the heads split "
        "its output between them, they do not shrink it, so each projection is d_model * "
        "d_model + d_model, like w_o (lesson 05).",
    ),
    (
        {"decoder_like_encoder": True},
        "A decoder layer is not an encoder layer: it has a second attention (the "
        "cross-attention) and a third LayerNorm.",
    ),
    (
        {"d_ff_4": True},
        "The feed-forward width is the d_ff argument; 4 * d_model is only the paper's choice "
        "of it.",
    ),
    (
        {"one_layer": True},
        "Each stack has num_layers layers: multiply one layer's count by num_layers.",
    ),
    (
        {"final": "never"},
        "With final_norm=True each stack ends with one more LayerNorm (2 * d_model "
        "parameters), as nn.Transformer's stacks do.",
    ),
    (
        {"final": "always"},
        "With final_norm=False the post-LN stacks have no final LayerNorm: count it only when "
        "final_norm is True.",
    ),
]


def _count_call(args: tuple) -> str:
    v, d, h, n, f, tie, final = args
    return (
        f"count_parameters(vocab_size={v}, d_model={d}, num_heads={h}, num_layers={n}, "
        f"d_ff={f}, tie_embeddings={tie}, final_norm={final})"
    )


def _as_count(c: Checker, value: Any, what: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__int__"):
        c.fail(f"{what} is {short(value)}: each entry is a number of parameters, an int.")
    if hasattr(value, "numel") and value.numel() != 1:
        c.fail(f"{what} is a tensor of {value.numel()} numbers; each entry is one int.")
    number = float(value)
    if math.isfinite(number) and number != int(number):
        c.fail(
            f"{what} is {value!r}: a number of parameters is a whole number. A count only "
            "multiplies and adds whole sizes, so a fraction comes from a division (or a "
            "fractional power): a / where * belongs (n / size where n * size is meant), or "
            "a division by a size that does not divide it. Every term is a product of sizes."
        )
    if not math.isfinite(number):
        c.fail(f"{what} is {value!r}: a number of parameters is a whole number.")
    if isinstance(value, float):
        c.note("your counts are floats; a count is an int (use // or int(...)). Accepted.")
    return int(number)


def check_count_parameters(count_parameters, *, hidden: bool = False) -> None:
    """count_parameters(...) -> {"embeddings", "encoder", "decoder", "output": ints} for the
    paper's and other configurations (reference: ref.count_parameters, itself tested against
    the parameters of real models in tests/test_09_transformer.py)."""
    with Checker("count_parameters", hidden=hidden) as c:
        c.require_callable(count_parameters)
        results = []  # (args, call, counts, expected), every configuration
        for args in HIDDEN_COUNT if hidden else VISIBLE_COUNT:
            v, d, h, n, f, tie, final = args
            call = _count_call(args)
            got = c.call(
                count_parameters,
                vocab_size=v,
                d_model=d,
                num_heads=h,
                num_layers=n,
                d_ff=f,
                tie_embeddings=tie,
                final_norm=final,
                call_repr=call,
            )
            if not isinstance(got, dict):
                extra = (
                    " (a single number: the total?) Return the count of each component; "
                    "their sum is the total."
                    if hasattr(got, "__int__")
                    else ""
                )
                c.fail(
                    f"{call} returned a {type(got).__name__}; it should return a dict with "
                    f"the keys {list(_COUNT_KEYS)}.{extra}"
                )
            if set(got) != set(_COUNT_KEYS):
                c.fail(
                    f"{call} returned the keys {sorted(got)}; expected exactly {list(_COUNT_KEYS)}."
                )
            c.ok()
            counts = {key: _as_count(c, got[key], f"{call}[{key!r}]") for key in _COUNT_KEYS}
            results.append((args, call, counts, ref.count_parameters(v, d, h, n, f, tie, final)))
        wrong_results = [r for r in results if r[2] != r[3]]
        if not wrong_results:
            return
        args, call, counts, expected = wrong_results[0]
        wrong = [key for key in _COUNT_KEYS if counts[key] != expected[key]]
        shown = ", ".join(f"{key!r}: {counts[key]:,} (expected {expected[key]:,})" for key in wrong)
        # a cause is stated only when it gives the learner's counts on every configuration
        # the check ran; when several do, all are named
        found = [
            message
            for knobs, message in COUNT_MISTAKES
            if all(got == count_parameters_f(*a, **knobs) for a, _, got, _ in results)
        ]
        if len(found) == 1:
            c.fail(f"{call} gave {shown}. {found[0]}")
        if found:
            listed = " ".join(f"({i}) {m}" for i, m in enumerate(found, 1))
            c.fail(
                f"{call} gave {shown}. On these configurations {len(found)} different mistakes "
                f"give exactly your counts, so it is one of them: {listed}"
            )
        key = wrong[0]
        c.expect_equal(
            counts[key],
            expected[key],
            f"{call}[{key!r}]",
            hint=_count_hint(key, args, counts, results),
        )


def _count_hint(key: str, args: tuple, counts: dict[str, int], results=()) -> str:
    """The rule for ``key``, and for a stack the learner's count taken apart against the
    components of one layer (so that the part that is off can be found): the parts whose
    size is the difference per layer on every configuration of ``results`` (args, call,
    counts, expected) are named."""
    rule = _count_rule(key)
    if key == "embeddings" and results:
        # (difference, d_model, vocab_size) on every configuration: the same number of
        # extra rows of d_model whatever the vocabulary is a table that is not a parameter
        offs = [(got[key] - want[key], a[1], a[0]) for a, _, got, want in results]
        rows = {off // d for off, d, _v in offs}
        if len(rows) == 1 and all(off > 0 and off % d == 0 and off // d != v for off, d, v in offs):
            extra = rows.pop()
            return (
                f"{rule} Yours is {extra:,} x d_model more than the reference on every "
                f"configuration checked: a table of {extra:,} rows that does not grow with "
                "vocab_size. If it is a positional table (max_len x d_model): the sinusoidal "
                "positional encoding is computed, not learned (a buffer, not a parameter), so "
                "it adds nothing to the count."
            )
    if key not in ("encoder", "decoder"):
        return rule
    _v, d, _h, n, f, _tie, final = args
    attention, ffn, norm = 4 * (d * d + d), 2 * d * f + f + d, 2 * d
    extra = norm if final else 0
    parts = f"one attention {attention:,}, the feed-forward {ffn:,}, one LayerNorm {norm:,}" + (
        f"; the final LayerNorm {norm:,}" if final else ""
    )
    layer = attention + ffn + 2 * norm if key == "encoder" else 2 * attention + ffn + 3 * norm
    off = counts[key] - (n * layer + extra)
    if off % n == 0:
        where = f"Yours is {abs(off):,} {'more' if off > 0 else 'fewer'} than the reference" + (
            f", {abs(off) // n:,} per layer over {n} layers" if n > 1 else " in the layer"
        )
        found = _component_multiples(abs(off) // n, d, f)
        for (_v, d2, _h, n2, f2, _t, _final), _, theirs, expected in results:
            off2 = theirs[key] - expected[key]
            if off2 * off < 0 or off2 % n2:
                found = set()
            else:
                found &= _component_multiples(abs(off2) // n2, d2, f2)
        if found:
            where += (
                f". On every configuration checked the difference is exactly "
                f"{_component_words(found)} per layer"
            )
    else:
        where = (
            f"Yours is {abs(off):,} {'more' if off > 0 else 'fewer'} than the reference, not "
            f"a multiple of num_layers={n}: look at what is counted once per stack"
        )
    return f"{rule} {where}; here {parts}."


def _component_multiples(count: int, d: int, f: int) -> set[tuple[str, int]]:
    """The parts of a layer that hold exactly ``count`` parameters when counted once to
    three times (d = d_model, f = d_ff), as (part, times)."""
    parts = (  # (part, size); parts with the same size are all candidates
        ("attention", 4 * (d * d + d)),
        ("feed-forward", 2 * d * f + f + d),
        ("LayerNorm", 2 * d),
        ("projection with its bias", d * d + d),
        ("projection weight (d_model x d_model)", d * d),
        ("feed-forward weight matrix (d_model x d_ff)", d * f),
        ("bias of d_model numbers (w_q, w_k, w_v, w_o or w_2) or LayerNorm vector", d),
        ("bias of w_1 (d_ff numbers)", f),
    )
    return {
        (part, times)
        for part, size in parts
        for times in ((1,) if size == d else (1, 2, 3))  # two d-vectors: a LayerNorm
        if size * times == count
    }


def _component_words(found: set[tuple[str, int]]) -> str:
    plural = {
        "attention": "attentions",
        "feed-forward": "feed-forwards",
        "LayerNorm": "LayerNorms",
        "projection with its bias": "projections with their biases",
        "projection weight (d_model x d_model)": "projection weights (d_model x d_model)",
        "feed-forward weight matrix (d_model x d_ff)": "weight matrices (d_model x d_ff)",
        "bias of w_1 (d_ff numbers)": "biases of d_ff numbers",
    }
    words = {1: "one", 2: "two", 3: "three"}
    return " or ".join(
        f"{words[times]} {part if times == 1 else plural[part]}"
        for part, times in sorted(found, key=lambda pair: (pair[1], pair[0]))
    )


def _count_rule(key: str) -> str:
    return {
        "embeddings": "One table of vocab_size x d_model per side, or one shared table when tied.",
        "encoder": "num_layers x (attention + feed-forward + 2 LayerNorms), plus a final "
        "LayerNorm when final_norm is True.",
        "decoder": "num_layers x (2 attentions + feed-forward + 3 LayerNorms), plus a final "
        "LayerNorm when final_norm is True.",
        "output": "nn.Linear(d_model, vocab_size): weight and bias, or only the bias when tied.",
    }[key]


# ================================================================== greedy_decode
_GREEDY_SIZES = {"d_model": 16, "num_heads": 2, "num_layers": 2, "d_ff": 32, "max_len": 32}


def greedy_model(
    vocab: int, pad_id: int, bos_id: int, eos_id: int, seed: int, eos_bias: float, dropout: float
) -> nn.Module:
    """A small reference Transformer with fixed weights, in eval mode, as a course object:
    <pad> and <bos> never win, <eos> is made more (or less) likely by ``eos_bias``."""
    model = course_object(
        ref.Transformer, vocab, vocab, dropout=dropout, pad_id=pad_id, **_GREEDY_SIZES
    )
    state = model.state_dict()
    shapes = {k: tuple(v.shape) for k, v in state.items() if not k.startswith(_POSITIONS)}
    state.update(random_state(shapes, seed))
    bias = state["output.bias"].clone()
    bias[pad_id] = bias[bos_id] = -30.0
    bias[eos_id] += eos_bias
    state["output.bias"] = bias
    model.load_state_dict(state)
    return model.eval()


@dataclass(frozen=True)
class _GreedyCase:
    seed: int
    vocab: int
    pad_id: int
    bos_id: int
    eos_id: int
    eos_bias: float
    src_lengths: tuple[int, ...]
    len_src: int
    max_len: int
    dropout: float = 0.0
    left: bool = False

    def model(self) -> nn.Module:
        return greedy_model(
            self.vocab,
            self.pad_id,
            self.bos_id,
            self.eos_id,
            self.seed,
            self.eos_bias,
            self.dropout,
        )

    def src(self) -> torch.Tensor:
        return vocab_token_ids(
            self.src_lengths, self.len_src, self.vocab, self.pad_id, self.seed + 7, left=self.left
        )


# Chosen so that (tests/test_09_transformer.py checks each property): the rows of a case
# finish at different steps; one visible case never finishes a row (max_len reached) and
# one finishes every row early; every next-token margin is at least 1e-3.
VISIBLE_GREEDY = [
    # rows finish at steps 4 and 2, one never does: max_len reached
    _GreedyCase(753, 10, 0, 1, 2, 1.0, (5, 3, 4), 5, 6),
    # rows finish at steps 2, 3 and 4: an early stop, 4 of max_len 8 columns
    _GreedyCase(5, 10, 0, 1, 2, 0.0, (4, 4, 2), 4, 8),
    # pad_id 3 (not 0), <bos> 0, <eos> 1; one row finishes at step 4; dropout 0.1, eval mode
    _GreedyCase(790, 9, 3, 0, 1, 1.0, (6, 2), 6, 5, dropout=0.1),
]
HIDDEN_GREEDY = [
    _GreedyCase(459, 12, 0, 2, 3, 1.0, (7, 7, 3, 5), 7, 7),  # two rows never finish
    _GreedyCase(623, 11, 5, 1, 4, 0.5, (3, 5, 5), 5, 9, left=True),  # early stop, pad_id 5
    _GreedyCase(503, 10, 2, 0, 1, 0.0, (4,), 4, 1),  # max_len 1, batch 1
    _GreedyCase(743, 13, 1, 0, 2, 0.0, (6, 4), 6, 4, dropout=0.1),  # pad_id 1, dropout 0.1
]


GREEDY_MISTAKES = [
    (
        {"keep_bos": True},
        "Every row starts with <bos>: the result holds the generated tokens only, so drop the "
        "<bos> column (tokens[:, 1:]).",
    ),
    (
        {"fill": "eos"},
        "After <eos>, your rows repeat <eos>; a finished row gets model.pad_id from then on.",
    ),
    (
        {"fill": "zero"},
        "After <eos>, your rows get 0, but this model's pad_id is not 0: use model.pad_id.",
    ),
    (
        {"pad_finished": False},
        "Your rows go on generating after their <eos>: once a row has produced <eos> it is "
        "finished, and every later token of it must be model.pad_id (keep a bool tensor of "
        "finished rows, and masked_fill the new tokens of finished rows).",
    ),
    (
        {"early_stop": False},
        "Every row had finished, but your loop went on to max_len, adding columns of padding: "
        "stop as soon as every row has produced <eos> (if finished.all(): break).",
    ),
    (
        {"keep_eos": False},
        "The <eos> tokens are missing, each replaced by a pad id: each row keeps its <eos> "
        "(it says where the sentence ends), followed by pad ids. In the step that produces a "
        "row's <eos>, pad only the rows that had finished before it: mask with the old "
        "`finished`, then update it (finished | (next == eos_id)); updating it first pads "
        "the <eos> itself.",
    ),
    (
        {"position": 0},
        "You took the FIRST position's logits at every step, which only ever sees <bos>, so "
        "every step predicts the same token. The next token is predicted by the LAST position "
        "of the prefix: logits[:, -1].",
    ),
    (
        {"argmax_dim": "positions"},
        "Your argmax ran over the positions (dim=1) instead of the vocabulary: the next token is "
        "the argmax over the last axis of the last position's logits, "
        "logits[:, -1].argmax(dim=-1).",
    ),
    (
        {"feed": "last"},
        "At each step the decoder saw only the last token, not the whole prefix: feed it "
        "everything generated so far, <bos> included (the decoder's self-attention reads the "
        "prefix, and positions count from <bos>).",
    ),
    (
        {"feed": "one_pass"},
        "Your tokens look like ONE decoder pass over a fixed input, the way training runs "
        "(teacher forcing). At inference the next input is only known once the model has "
        "produced it: decode, take the new token, append it, and decode again "
        "(autoregression).",
    ),
]


def off_by_one_mistakes(max_len: int) -> list[tuple[dict, str]]:
    return [
        (
            {"steps": max_len - 1},
            f"Your rows stop at {max_len - 1} tokens: max_len = {max_len} "
            "new tokens may be generated (range(max_len) steps).",
        ),
        (
            {"steps": max_len + 1},
            f"You generated {max_len + 1} tokens: at most max_len = "
            f"{max_len} new tokens, <bos> not counted.",
        ),
    ]


def check_greedy_decode(greedy_decode, *, hidden: bool = False) -> None:
    """greedy_decode(model, src_ids, max_len, bos_id, eos_id) on small models with fixed
    weights: the exact tokens, int64, (batch, n) with n <= max_len, <eos> kept, pad after
    it, no <bos>, an early stop, and the model left as it was (weights and eval mode)."""
    with Checker("greedy_decode", hidden=hidden) as c:
        c.require_callable(greedy_decode)
        for case in HIDDEN_GREEDY if hidden else VISIBLE_GREEDY:
            _check_greedy_case(c, greedy_decode, case)


_SIZES = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
    r"non-singleton dimension 0"
)


def _batch_rows_hint(src: torch.Tensor):
    """For a clash on the batch axis between the batch and len_src: the target's rows
    counted from src_ids.shape[1]."""
    batch, length = src.shape

    def text(exc: BaseException) -> str:
        found = _SIZES.search(str(exc))
        if not found or batch == length:
            return ""
        if {int(found.group(1)), int(found.group(2))} != {batch, length}:
            return ""
        return (
            f"A tensor with {length} rows met the batch of {batch} sentences: {length} is "
            "len_src, src_ids.shape[1]. The target starts with one row per sentence: "
            "torch.full((src_ids.shape[0], 1), bos_id)."
        )

    return lambda exc: isinstance(exc, RuntimeError), text


def _check_greedy_case(c: Checker, greedy_decode, case: _GreedyCase) -> None:
    model = case.model()
    src = case.src()
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    expected = ref.greedy_decode(model, src, case.max_len, case.bos_id, case.eos_id)
    ids = f"bos_id={case.bos_id}, eos_id={case.eos_id}"
    call = (
        f"greedy_decode(model, src_ids {tuple(src.shape)}, max_len={case.max_len}, {ids}) "
        f"[model: a small Transformer with fixed weights in eval mode, pad_id={case.pad_id}]"
    )
    # the target ids of every decode call, to say which ids were floats when the
    # embedding refuses them: the <bos> column, or the tokens appended to it (the model is
    # this case's own: a hook left on it after a failure harms nothing)
    embedded: list[torch.Tensor] = []
    recorder = model.tgt_embedding.register_forward_pre_hook(
        lambda _module, args: embedded.append(args[0].detach().clone())
    )

    def float_ids(_exc: BaseException) -> str:
        if not embedded or not embedded[-1].is_floating_point():
            return ""
        if embedded[0].is_floating_point():
            return (
                f"Your first decode call already got float ids {tuple(embedded[0].shape)}: "
                "the <bos> column itself is float; build it with dtype=torch.long, "
                "torch.full((batch, 1), bos_id, dtype=torch.long)."
            )
        ids = embedded[-1]
        if ids.dim() != 2 or ids.shape[1] < 2 or embedded[0].shape[1] != 1:
            return ""
        with torch.no_grad():
            step_1 = model.decode(embedded[0], model.encode(src), src)[:, -1]  # (batch, vocab)
        values = step_1.max(dim=-1).values.to(ids.dtype)
        if ids.shape[0] == values.shape[0] and torch.allclose(ids[:, 1], values):
            return (
                "Your first decode call got int64 ids, <bos> alone; the next one got floats: "
                "the token you appended at step 1 is the LARGEST LOGIT itself "
                f"({ids[0, 1].item():.4g} in row 0), not its index. torch.max(x, dim=-1) "
                "returns (values, indices): the token is the index, "
                "logits[:, -1].argmax(dim=-1) (an int64 tensor)."
            )
        return (
            "Your first decode call got int64 ids, <bos> alone; a later one got floats: the "
            "tokens you appended are floats (torch.cat then makes the whole prefix float). "
            "Each new token is an index, logits[:, -1].argmax(dim=-1), an int64 tensor."
        )

    def vocab_met_batch(exc: BaseException) -> bool:
        """A clash between the batch and the vocabulary (one entry per vocabulary token
        where one per row belongs), not one inside model.decode."""
        found = _SIZES.search(str(exc))
        sizes = {int(found.group(1)), int(found.group(2))} if found else set()
        return src.shape[0] != case.vocab and sizes == {src.shape[0], case.vocab}

    got = c.call(
        greedy_decode,
        model,
        src,
        case.max_len,
        case.bos_id,
        case.eos_id,
        call_repr=call,
        hints=[
            ("'indices' to have one of the following scalar types", float_ids),
            _batch_rows_hint(src),
            ("index out of range", _INDEX_HINT),
            (
                vocab_met_batch,
                f"A tensor of vocab_size = {case.vocab} entries met the batch of "
                f"{src.shape[0]} rows: your next token holds one number per vocabulary "
                "entry, not one per row. Either the argmax ran over the batch axis of "
                "logits[:, -1] (dim=0 or dim=-2 of its (batch, vocab)), or one row's scores "
                "were taken for the whole batch; the next token is "
                "logits[:, -1].argmax(dim=-1), shape (batch,).",
            ),
            (
                lambda exc: "must match the size" in str(exc) and not vocab_met_batch(exc),
                _DECODE_SIZES_HINT,
            ),
            (
                "is out of bounds for dimension 1 with size 1",
                "At the first step the decoder sees <bos> alone (one position): the next "
                "token is predicted by the last position, logits[:, -1] (another negative "
                "index runs off the front).",
            ),
        ],
    )
    recorder.remove()
    c.expect_true(
        not model.training,
        f"{call} left the model in training mode: use the model as it is given (eval mode); "
        "in training mode dropout makes every run different.",
    )
    after = model.state_dict()
    c.expect_true(
        all(torch.equal(after[k], v) for k, v in weights.items()),
        f"{call} changed the model's weights: decoding only reads the model.",
    )
    if isinstance(got, list | tuple):
        c.fail(
            f"{call} returned a {type(got).__name__}; return one int64 tensor (batch, n), e.g. "
            "the token tensor you built step by step with torch.cat, or torch.tensor(rows) "
            "after padding the rows to one length."
        )
    c.expect_type(got, torch.Tensor, call)
    if got.is_floating_point() or got.dtype == torch.bool:
        c.fail(f"{call} returned {got.dtype} values: token ids are integers, int64.")
    if got.dtype != torch.int64:
        c.fail(
            f"{call} returned {got.dtype}; token ids are int64 in PyTorch (torch.long): "
            "F.cross_entropy wants int64 labels and lesson 10 feeds these ids back into the "
            "model. Create the token tensor with dtype=torch.long."
        )
    c.ok()
    batch = src.shape[0]
    if got.dim() == 2 and got.shape[0] != batch and torch.equal(got.T, expected):
        c.fail(
            f"{call} returned shape {tuple(got.shape)}; expected (batch, n) = ({batch}, n). "
            "Your result is the expected one transposed: (steps, batch), as torch.stack(...) "
            "of the per-step (batch,) tokens gives with its default dim=0. Stack along dim=1 "
            "(or build the tokens by torch.cat along dim 1), so that each row is a sentence."
        )
    if got.dim() != 2 or got.shape[0] != batch:
        hint = (
            " One row per sentence: did you decode a single sentence (the Annotated "
            "Transformer's greedy_decode does), or squeeze the batch away?"
            if got.dim() == 1
            else ""
        )
        c.fail(
            f"{call} returned shape {tuple(got.shape)}; expected (batch, n) = ({batch}, n).{hint}"
        )
    mistakes = {
        message: (
            lambda knobs=knobs: greedy_decode_f(
                model, src, case.max_len, case.bos_id, case.eos_id, **knobs
            )
        )
        for knobs, message in [*GREEDY_MISTAKES, *off_by_one_mistakes(case.max_len)]
    }

    def hint() -> str:
        text = _greedy_hint(got, expected, case, model, src)
        if text.startswith(("Replaying your steps: row", "Row ")):  # located, no cause
            return _rows_interfere(c, greedy_decode, model, src, case, got, expected) + text
        return text

    c.expect_equal(got, expected, call, mistakes=mistakes, hint=hint)


def _stripped(row: list[int], pad_id: int) -> list[int]:
    end = len(row)
    while end and row[end - 1] == pad_id:
        end -= 1
    return row[:end]


def _rows_interfere(c: Checker, greedy_decode, model, src, case: _GreedyCase, got, expected):
    """When every sentence decoded on its own (src[i : i + 1]) gets its right tokens while
    the batch's rows hold other tokens (not only other padding): the rows interfere."""
    batch = src.shape[0]
    pad = case.pad_id
    mine = [_stripped(row, pad) for row in got.tolist()]
    right = [_stripped(row, pad) for row in expected.tolist()]
    if batch < 2 or mine == right:
        return ""
    for i in range(batch):
        try:
            alone = c.call(
                greedy_decode, model, src[i : i + 1], case.max_len, case.bos_id, case.eos_id
            )
        except CheckFailure:
            return ""
        if not isinstance(alone, torch.Tensor) or alone.dim() != 2 or alone.shape[0] != 1:
            return ""
        if _stripped(alone[0].tolist(), pad) != right[i]:
            return ""
    return (
        f"Decoded one at a time (src_ids[i : i + 1]), each of these {batch} sentences gets its "
        f"right tokens from your greedy_decode; in the batch of {batch} they do not, so the "
        "rows interfere: a decision or a state meant for one row is shared by the batch (one "
        "row's argmax used for all, a single finished flag, a break when any row ends). Each "
        "row needs its own next token, logits[:, -1].argmax(dim=-1), and its own finished "
        "flag; stop when finished.all(). "
    )


_REPLAY_RULES = {
    "start": (
        "Your decoder input starts with model.pad_id, not <bos>: every target starts with "
        "bos_id (torch.full((batch, 1), bos_id)); a <pad> first token is masked out as "
        "padding."
    ),
    "softmax_positions": (
        "Your softmax runs over the positions (dim=1) before the argmax: the probabilities of "
        "the next token are a softmax over the vocabulary (dim=-1) of the last position's "
        "logits, logits[:, -1] (and the argmax of the logits alone gives the same token)."
    ),
    "positions": (
        "Your argmax ran over the positions (dim=1) instead of the vocabulary: the next token "
        "is logits[:, -1].argmax(dim=-1)."
    ),
    "first": (
        "You took the FIRST position's logits at every step: the next token is predicted by "
        "the LAST position of the prefix, logits[:, -1]."
    ),
    "row_0": (
        "Every row got row 0's next token: either one decision, row 0's argmax (next_token[0] "
        "or .item(), as in the Annotated Transformer's greedy_decode, which decodes one "
        "sentence), was used for the whole batch, or every row was decoded from the first "
        "sentence (its memory or its src_ids given to all rows); both give these tokens. Each "
        "row has its own source and its own next token: model.decode(tokens, memory, src_ids) "
        "with the whole batch's memory and src_ids, then logits[:, -1].argmax(dim=-1), a "
        "(batch,) tensor."
    ),
}


def _greedy_replay(model, src: torch.Tensor, got: torch.Tensor, case: _GreedyCase) -> str:
    """Replay the learner's decisions: at each step, the prefix the learner's function had
    built (<bos> + its own tokens so far) through the reference's rule. A known wrong rule
    is named when it reproduces EVERY decision of every row; otherwise the first decision
    that departs, and what the reference decides from the same prefix."""
    pad, bos, eos = case.pad_id, case.bos_id, case.eos_id
    batch, steps = got.shape
    with torch.no_grad():
        memory = model.encode(src)
        prefix = torch.full((batch, 1), bos, dtype=torch.long)
        finished = torch.zeros(batch, dtype=torch.bool)
        agrees = dict.fromkeys(_REPLAY_RULES, True)
        # a rule explains nothing where it decides as the reference does at every step
        # replayed (one step from <bos> alone: the first position IS the last)
        departs = dict.fromkeys(_REPLAY_RULES, False)
        first = None  # (step, row, yours, reference's)
        for step in range(steps):
            logits = model.decode(prefix, memory, src)  # (batch, len, vocab)
            padded = torch.cat([torch.full((batch, 1), pad, dtype=torch.long), prefix[:, 1:]], 1)
            rules = {
                "right": logits[:, -1].argmax(-1),
                "start": model.decode(padded, memory, src)[:, -1].argmax(-1),
                "softmax_positions": torch.softmax(logits, dim=1)[:, -1].argmax(-1),
                "positions": logits.argmax(dim=1)[:, -1],
                "first": logits[:, 0].argmax(-1),
                "row_0": logits[0, -1].argmax(-1).expand(batch),
            }
            mine = got[:, step]
            right = rules["right"].masked_fill(finished, pad)
            for name in _REPLAY_RULES:
                decided = rules[name].masked_fill(finished, pad)
                if not torch.equal(decided, mine):
                    agrees[name] = False
                if not torch.equal(decided, right):
                    departs[name] = True
            if first is None and not torch.equal(right, mine):
                row = int((right != mine).nonzero()[0])
                first = (step, row, int(mine[row]), int(right[row]), bool(finished[row]))
            prefix = torch.cat([prefix, mine[:, None]], dim=1)
            finished = finished | (mine == eos)
    found = [_REPLAY_RULES[name] for name, ok in agrees.items() if ok and departs[name]]
    if len(found) == 1:
        return found[0]
    if found:
        return "Replaying your steps, each of these gives every one of your tokens: " + " ".join(
            f"({i}) {m}" for i, m in enumerate(found, 1)
        )
    if first is not None:
        step, row, mine_, right_, done = first
        if done:
            return (
                f"Row {row} had produced <eos> before step {step + 1}, but yours then gives "
                f"{mine_}: a finished row gets model.pad_id ({pad}) from then on."
            )
        if mine_ == pad:
            return (
                f"Row {row} has not produced <eos>, but at step {step + 1} yours gives it "
                f"pad_id ({pad}); from the same prefix the reference decides {right_}. Only a "
                "row that has produced <eos> is padded."
            )
        return (
            f"Replaying your steps: row {row}'s decision at step {step + 1} is the first that "
            f"departs: from the tokens your function had produced so far (<bos> first), the "
            f"argmax of logits[:, -1] is {right_}, yours is {mine_}."
        )
    open_rows = [r for r in range(batch) if not bool(finished[r])]
    if steps < case.max_len and open_rows and bool(finished.any()):
        return (
            f"Your result stops after {steps} steps, when some rows had produced <eos>, "
            f"although row {open_rows[0]} had not: stop only when every row has finished "
            "(if finished.all(): break), or after max_len steps."
        )
    if steps < case.max_len and open_rows:
        return (
            f"Your result stops after {steps} step(s) of max_len = {case.max_len}, although "
            f"no row had produced <eos> (eos_id={eos}): every token so far is right, so the "
            "loop took its rows for finished without their <eos>. Either the finished test "
            "is inverted (a row is finished once its new token equals eos_id: finished = "
            "finished | (next_token == eos_id), not !=), or the break condition is (break "
            "only when finished.all())."
        )
    return ""


def _greedy_hint(
    got: torch.Tensor, expected: torch.Tensor, case: _GreedyCase, model=None, src=None
) -> str:
    """Explain a wrong result that no known mistake gives."""
    if got.shape[1] > case.max_len:
        width = f"The result has {got.shape[1]} columns: at most max_len = {case.max_len}."
        if got.shape[1] == case.max_len + 1 and bool((got[:, 0] == case.bos_id).all()):
            rest = got[:, 1:]
            if rest.shape[1] >= expected.shape[1] and torch.equal(
                rest[:, : expected.shape[1]], expected
            ):
                return f"{width} Your rows start with <bos>: leave it out (tokens[:, 1:])."
            return (
                f"{width} Your rows start with <bos>, and the tokens after it differ too: "
                "does your target start with one more <bos> than needed (torch.full((batch, "
                "2), bos_id))? It starts with one <bos> column, torch.full((batch, 1), "
                "bos_id), and the result leaves it out."
            )
        return width
    if (got[:, 0] == case.bos_id).all():
        return "Your rows start with <bos>: leave it out of the result."
    if model is not None:
        try:
            replay = _greedy_replay(model, src, got, case)
        except Exception:  # ids out of the vocabulary, say: no replay
            replay = ""
        if replay:
            return replay
    for row, (mine, right) in enumerate(zip(got.tolist(), expected.tolist(), strict=True)):
        if case.eos_id in mine:
            after = mine[mine.index(case.eos_id) + 1 :]
            if any(token != case.pad_id for token in after):
                return (
                    f"Row {row} goes on after its <eos> with {after}: every token after <eos> "
                    f"must be model.pad_id ({case.pad_id})."
                )
        for step, (a, b) in enumerate(zip(mine, right, strict=False)):
            if a != b:
                return (
                    f"Row {row} first differs at step {step + 1}: {a} instead of {b}. Each step "
                    "feeds every token so far (<bos> first) to model.decode(tokens, memory, "
                    "src_ids) and appends the argmax of logits[:, -1] over the vocabulary."
                )
    return (
        f"The rows agree as far as they go, but the result has {got.shape[1]} columns and the "
        f"reference {expected.shape[1]}: stop after max_len steps, or as soon as every row has "
        "produced <eos>."
    )


# ================================================================== concept questions
QUIZ_TIE_EMBEDDINGS = Quiz(
    name="quiz_tie_embeddings",
    answer="a",
    choices={
        "a": "English -> German with one shared byte-pair vocabulary of 37,000 tokens",
        "b": "English -> Japanese with two separate vocabularies of 32,000 tokens each",
        "c": "English -> German with separate vocabularies of 30,000 and 40,000 tokens",
        "d": "any of them: tying only needs the same d_model on both sides",
    },
    why={
        "a": "One vocabulary for both languages means id i is the same token on both sides, "
        "so one row can serve as its source embedding, its target embedding and its output "
        "weight. This is the paper's setting (section 3.4, with the shared 37,000-token "
        "vocabulary of section 5.1).",
        "b": "The shapes would fit, (32000, d_model) three times, but row i would be one "
        "English token in the source table and an unrelated Japanese token in the target "
        "table: sharing the row would force two unrelated words to have the same vector. "
        "Equal sizes are not enough; the ids must mean the same tokens.",
        "c": "The matrices do not even have the same shape, (30000, d_model) and (40000, "
        "d_model), so they cannot be one matrix; and the ids mean different tokens anyway. "
        "(Tying only the target embedding with the output layer would still work here.)",
        "d": "Every table has d_model columns, but sharing needs the rows to match too: the "
        "same number of tokens AND the same token behind every id, i.e. one shared vocabulary.",
    },
)
check_quiz_tie_embeddings = quiz_check(QUIZ_TIE_EMBEDDINGS)

QUIZ_AUTOREGRESSION = Quiz(
    name="quiz_autoregression",
    answer="b",
    choices={
        "a": "the look-ahead mask is switched off at inference",
        "b": "there is no reference: the input of step t + 1 is the output of step t",
        "c": "one pass over the whole target would be slower",
        "d": "the encoder has to run again for every new token",
    },
    why={
        "a": "The look-ahead mask is the same at inference; and even with it, one pass cannot "
        "work, because the tokens it would have to read have not been produced yet.",
        "b": "In training the whole target is known, so every position can be fed the right "
        "previous token at once (teacher forcing). At inference token t only exists once the "
        "model has chosen it, so each step needs the previous step's output: autoregression.",
        "c": "One pass would be faster, not slower; it is impossible, not slow, because the "
        "decoder's input is not known in advance.",
        "d": "The source does not change while the target grows: memory is computed once and "
        "reused at every step. Only the decoder runs again.",
    },
)
check_quiz_autoregression = quiz_check(QUIZ_AUTOREGRESSION)


# ================================================================== registry
LESSON = "09_transformer"
EXERCISES = (
    Exercise(
        "quiz_tie_embeddings", check_quiz_tie_embeddings, kind="quiz", points=1, minutes=3, level=1
    ),
    Exercise(
        "Transformer",
        check_Transformer,
        kind="module",
        points=4,
        minutes=40,
        level=3,
        forbidden=(
            "torch.nn.Transformer",
            "torch.nn.TransformerEncoder",
            "torch.nn.TransformerDecoder",
            "torch.nn.TransformerEncoderLayer",
            "torch.nn.TransformerDecoderLayer",
        ),
        methods=("encode", "decode"),
    ),
    Exercise(
        "count_parameters", check_count_parameters, kind="function", points=2, minutes=20, level=2
    ),
    Exercise(
        "quiz_autoregression",
        check_quiz_autoregression,
        kind="quiz",
        points=1,
        minutes=3,
        level=1,
    ),
    Exercise("greedy_decode", check_greedy_decode, kind="function", points=3, minutes=30, level=3),
)
