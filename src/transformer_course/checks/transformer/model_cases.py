"""``Transformer``'s cases, their reference models and weights, the float64 oracles'
values for each case (:func:`case_oracles`) and the classic mistakes with their
diagnoses (:func:`encode_mistakes`, :func:`decode_mistakes`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from transformer_course.checking.modules import random_state
from transformer_course.checking.oracles import (
    as_float64,
    transformer_decode_f,
    transformer_encode_f,
    uses_final_norm,
)
from transformer_course.reference import transformer as ref

from .common import _OUT_WEIGHT, _POSITIONS, _SRC_TABLE, _TGT_TABLE


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
    # one vocabulary size on both sides, untied: nothing may be shared (blind10j: a model
    # that tied whenever the sizes were equal passed the hidden run)
    _Case(107, 14, 14, 8, 2, 1, 16, (5, 3), 5, (4, 2), 4, pad_id=2),
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


@functools.lru_cache(maxsize=64)
def _drawn_state(case: _Case) -> dict[str, torch.Tensor]:
    """The case's seeded draws, made once (a check builds several models from them);
    never handed out: :func:`_case_state` gives copies."""
    return random_state(_parameter_shapes(case), case.seed)


def _case_state(case: _Case, *, distinct: bool = False) -> dict[str, torch.Tensor]:
    """The check's deterministic weights. Tied: the two tables and the output weight hold
    one matrix, unless ``distinct`` (three different ones, to see whether the learner's
    module ties them)."""
    state = {key: value.clone() for key, value in _drawn_state(case).items()}
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
    "The encoder runs without the source padding mask, or with one that allows every "
    "position (a mask built from the vectors, x.abs().sum(-1) != 0, allows them all: with "
    "the positions added, no vector is zero at a <pad>; encode's only input, src_ids, cannot "
    "tell these two apart): its self-attention gives weight to <pad> positions. Pass "
    "padding_mask(src_ids, self.pad_id) to self.encoder."
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
    "of memory, whatever memory and src_ids hold (also given a memory whose rows at the <pad> "
    "positions are zero): no mask reaches it, or one that allows every position. Pass "
    "padding_mask(src_ids, self.pad_id) as the decoder's src_mask."
)
_CROSS_MASK_FROM_MEMORY = (
    "Your cross-attention's mask is built from memory, not from src_ids: it blocks the "
    "source positions whose memory vector is all zero (memory.abs().sum(-1) != 0, 'a pad is "
    "a zero vector'). Given a memory whose rows at the <pad> positions are exactly zero, your "
    "decode is right; but the encoder's outputs at the <pad> positions are not zero (the "
    "positions are added to the embeddings, and every layer mixes the positions), so on "
    "encode's memory your mask allows every position and the decoder reads the <pad> "
    "positions. Which positions are padding is known from the ids: pass "
    "padding_mask(src_ids, self.pad_id) as the decoder's src_mask."
)


def _cross_pad0(pad_id: int) -> str:
    return (
        f"Your cross-attention's mask treats id 0 as <pad> (src_ids != 0), but this model's "
        f"pad_id is {pad_id}: it lets the decoder read the <pad> positions of memory and hides "
        "the source's real tokens with id 0. Build it with the model's pad id: "
        "padding_mask(src_ids, self.pad_id)."
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
_MEMORY_RECOMPUTED = (
    "Given another memory, decode returned the logits of the memory that encode(src_ids) "
    "gives: it ignores its memory argument and uses encode's memory instead, computed again "
    "inside decode (self.encode(src_ids)) or kept from the last encode call (self.memory). "
    "decode reads the memory it is given, decoder(y, memory, src_mask, tgt_mask): greedy "
    "decoding and beam search encode once and hand that memory to every decode call."
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
_NORM_FIRST_PLACE = (
    " If you pass it, check its place: Encoder and Decoder take (num_layers, d_model, "
    "num_heads, d_ff, dropout, norm_first, final_norm), and norm_first given in another "
    "argument's place (swapped with final_norm, say) is lost; pass both by keyword."
)
_NORM_FIRST_IGNORED = {
    True: "Your layers are post-LN where this model asked for pre-LN (norm_first=True): pass "
    "norm_first on to Encoder and Decoder." + _NORM_FIRST_PLACE,
    False: "Your layers are pre-LN where this model asked for post-LN (norm_first=False): pass "
    "norm_first on to Encoder and Decoder unchanged." + _NORM_FIRST_PLACE,
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
            "Your decoder self-attention mask has its target padding part on the QUERY axis: "
            "(batch, 1, len_tgt, 1), as (tgt_ids != pad_id)[:, None, :, None] or an "
            "unsqueeze(3) gives, so it blanks the ROWS of the padded positions (they attend to "
            "nothing) instead of the COLUMNS of padded keys. The padding part is (batch, 1, 1, "
            "len_tgt), [:, None, None, :], as decoder_self_attention_mask(tgt_ids, "
            "self.pad_id) builds it.",
            {"self_mask": "causal_pad_queries"},
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
