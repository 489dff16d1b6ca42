"""Lesson 09 (the full Transformer): classic mistakes, correct variants, oracles.

The oracles: the reference Transformer against ``nn.Transformer`` plus embeddings,
positions and output layer (weights copied by code written here, not the lesson's
helper), post-LN and pre-LN, with and without final norms, tied and untied, with
padding; ``count_parameters`` against ``sum(p.numel() for p in model.parameters())`` of
real models, the paper's base and big sizes included; ``greedy_decode`` against an
independent one-sentence-at-a-time decoder that re-runs the whole model at every step.
"""

from __future__ import annotations

import functools
import math
import re

import pytest
import torch
import torch.nn.functional as F
from common import Correct, Mistake, lesson_tests
from torch import nn

from transformer_course.checking.inputs import vocab_token_ids
from transformer_course.checking.layers import value_or_none
from transformer_course.checking.objects import recipe_of
from transformer_course.checking.oracles import count_parameters_f, greedy_decode_f
from transformer_course.checks import transformer as checks
from transformer_course.checks.transformer import (
    check_count_parameters,
    check_greedy_decode,
    check_Transformer,
)
from transformer_course.reference import transformer as ref
from transformer_course.reference.decoder import Decoder
from transformer_course.reference.embeddings import TokenEmbedding
from transformer_course.reference.encoder import Encoder
from transformer_course.reference.masking import (
    decoder_self_attention_mask,
    look_ahead_mask,
    padding_mask,
)
from transformer_course.reference.positional_encoding import PositionalEncoding


# ================================================================== Transformer: mistakes
class _Reference(ref.Transformer):
    """The mistakes below change one thing of the reference."""


class TSourceMaskKeptFromTheFirstCall(_Reference):
    """The family 'state kept between calls' (blind20b cached the target mask in decode):
    encode keeps the source padding mask of its first call in a dict keyed by the batch's
    shape, so a later batch of the same shape is masked with the first one's padding."""

    def encode(self, src_ids):
        masks = self.__dict__.setdefault("_masks_by_shape", {})
        src_mask = masks.setdefault(tuple(src_ids.shape), padding_mask(src_ids, self.pad_id))
        x = self.positional_encoding(self.src_embedding(src_ids))  # (batch, len_src, d_model)
        return self.encoder(x, src_mask)  # (batch, len_src, d_model)


class TDecoderOutputScaledUp(_Reference):
    """The family 'a sub-step scaled by a constant' (blind20b rescaled by d_model ** -0.5,
    tied models only): the decoder's output multiplied by sqrt(d_model) before the output
    layer, as if it were an embedding."""

    def decode(self, tgt_ids, memory, src_ids):
        tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)  # (b, 1, len, len)
        src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))  # (batch, len, d_model)
        y = self.decoder(y, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)
        return self.output(y * y.shape[-1] ** 0.5)  # (batch, len_tgt, tgt_vocab)


class TLogitsHalved(_Reference):
    """The same family after the output layer: every logit halved (a temperature of 2)."""

    def decode(self, tgt_ids, memory, src_ids):
        return super().decode(tgt_ids, memory, src_ids) / 2


class TSourceMaskSizedByBatch(_Reference):
    """The family 'a size read from the wrong axis' (blind12h sized the look-ahead mask by
    the batch): the source padding mask's key axis taken from src_ids.shape[0]."""

    def encode(self, src_ids):
        keep = (src_ids != self.pad_id)[:, : src_ids.shape[0]]  # (batch, batch): the slip
        src_mask = keep[:, None, None, :]  # (batch, 1, 1, batch)
        x = self.positional_encoding(self.src_embedding(src_ids))  # (batch, len_src, d_model)
        return self.encoder(x, src_mask)  # (batch, len_src, d_model)


class TSourceMaskUnsqueezedLast(_Reference):
    """encode builds its mask with unsqueeze(1).unsqueeze(-1), (batch, 1, len_src, 1): the
    pads on the query axis (the family of blind22b-tr-source-mask-on-query-axis)."""

    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding(src_ids))
        mask = (src_ids != self.pad_id).unsqueeze(1).unsqueeze(-1)  # (batch, 1, len_src, 1)
        return self.encoder(x, mask)


class TLogitsOfFirstRow(_Reference):
    """Round 32: the first row's logits written over the batch (an edit applied to part of
    the batch): the family 'rows holding another row's values'."""

    def decode(self, tgt_ids, memory, src_ids):
        logits = super().decode(tgt_ids, memory, src_ids)  # (batch, len_tgt, vocab)
        return logits[:1].expand_as(logits).clone()


class TStatesOfFirstRow(_Reference):
    """Round 32: the decoder states of row 0 used for every row before the output layer."""

    def decode(self, tgt_ids, memory, src_ids):
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        y = self.decoder(
            y,
            memory,
            padding_mask(src_ids, self.pad_id),
            decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return self.output(y[:1].expand_as(y))


class TEncodeNormalisedAgain(_Reference):
    """Round 32: the encoder's output normalised once more (F.layer_norm after the stack):
    the family 'one step too many after a right result', read as a relation."""

    def encode(self, src_ids):
        memory = super().encode(src_ids)  # (batch, len_src, d_model)
        return F.layer_norm(memory, memory.shape[-1:])


class TEncodeThroughReLU(_Reference):
    """Round 32: the encoder's output through a ReLU."""

    def encode(self, src_ids):
        return torch.relu(super().encode(src_ids))


class TUnscaled(_Reference):
    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding.embedding(src_ids))
        return self.encoder(x, padding_mask(src_ids, self.pad_id))

    def decode(self, tgt_ids, memory, src_ids):
        y = self.positional_encoding(self.tgt_embedding.embedding(tgt_ids))
        y = self.decoder(
            y,
            memory,
            padding_mask(src_ids, self.pad_id),
            decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return self.output(y)


class TLogitsWithoutBias(_Reference):
    """Round 31: the output layer's weight applied by hand, its bias left out (the family
    'a final linear step through other parameters than its own')."""

    def decode(self, tgt_ids, memory, src_ids):
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        y = self.decoder(
            y,
            memory,
            padding_mask(src_ids, self.pad_id),
            decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return torch.matmul(y, self.output.weight.transpose(0, 1))


class TLogitsFromTargetTableNoBias(_Reference):
    """Round 31: the logits read off the target embedding's table, no bias, tying off."""

    def decode(self, tgt_ids, memory, src_ids):
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        y = self.decoder(
            y,
            memory,
            padding_mask(src_ids, self.pad_id),
            decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return torch.einsum("bld,vd->blv", y, self.tgt_embedding.embedding.weight)


class TTargetScaledAfterPositions(_Reference):
    """Round 25: the target side scaled after the positions were added, by the table's
    width (sqrt(d_model)·(E + P))."""

    def decode(self, tgt_ids, memory, src_ids):
        width = self.tgt_embedding.embedding.embedding_dim
        y = math.sqrt(width) * self.positional_encoding(self.tgt_embedding.embedding(tgt_ids))
        y = self.decoder(
            y,
            memory,
            padding_mask(src_ids, self.pad_id),
            decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return self.output(y)


class TScaledTwice(_Reference):
    """The Annotated Transformer's habit (its Embeddings scales) on top of TokenEmbedding."""

    def encode(self, src_ids):
        d_model = self.src_embedding.embedding.weight.shape[1]
        x = self.positional_encoding(self.src_embedding(src_ids) * math.sqrt(d_model))
        return self.encoder(x, padding_mask(src_ids, self.pad_id))


class TPlainEmbedding(_Reference):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, **kwargs):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kwargs)
        self.src_embedding = nn.Embedding(src_vocab_size, d_model)
        self.tgt_embedding = nn.Embedding(tgt_vocab_size, d_model)


class TNoPositions(_Reference):
    def encode(self, src_ids):
        return self.encoder(self.src_embedding(src_ids), padding_mask(src_ids, self.pad_id))


class TNoTargetPositions(_Reference):
    def decode(self, tgt_ids, memory, src_ids):
        y = self.decoder(
            self.tgt_embedding(tgt_ids),
            memory,
            padding_mask(src_ids, self.pad_id),
            decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return self.output(y)


class TPositionsTwice(_Reference):
    """Adds the positional table itself before self.positional_encoding adds it again."""

    def encode(self, src_ids):
        x = self.src_embedding(src_ids)
        x = x + self.positional_encoding.pe[:, : x.shape[1]]
        return self.encoder(self.positional_encoding(x), padding_mask(src_ids, self.pad_id))


class _Embedded(_Reference):
    """encode and decode through one overridable ``embed(table, ids)``."""

    def embed(self, table, ids):
        return self.positional_encoding(table(ids))

    def encode(self, src_ids):
        x = self.embed(self.src_embedding, src_ids)
        return self.encoder(x, padding_mask(src_ids, self.pad_id))

    def decode(self, tgt_ids, memory, src_ids):
        y = self.embed(self.tgt_embedding, tgt_ids)
        y = self.decoder(
            y,
            memory,
            padding_mask(src_ids, self.pad_id),
            decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return self.output(y)


class TAddsTableWithoutDropout(_Embedded):
    def embed(self, table, ids):
        return table(ids) + self.positional_encoding.pe[:, : ids.shape[1]]


class TPositionalEncodingWithoutDropout(_Embedded):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, **kwargs):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kwargs)
        self.positional_encoding = PositionalEncoding(d_model, kwargs.get("max_len", 512), 0.0)


class TDropoutBeforePositions(_Embedded):
    def embed(self, table, ids):
        pe = self.positional_encoding
        return pe.dropout(table(ids)) + pe.pe[:, : ids.shape[1]]


class TDropoutAlwaysOn(_Embedded):
    def embed(self, table, ids):
        x = table(ids) + self.positional_encoding.pe[:, : ids.shape[1]]
        return F.dropout(x, self.positional_encoding.dropout.p, training=True)


class TDropoutOnDecoderOutput(ref.Transformer):
    """F.dropout on the decoder's output, training left at its default (True): random in
    eval mode, on the decode side only (its look-ahead probe must not read the noise as
    a leak from the future)."""

    def decode(self, tgt_ids, memory, src_ids):
        logits = super().decode(tgt_ids, memory, src_ids)  # (batch, len_tgt, vocab)
        return F.dropout(logits, 0.1)


class TSrcEmbeddingForTarget(_Embedded):
    def decode(self, tgt_ids, memory, src_ids):
        y = self.embed(self.src_embedding, tgt_ids)
        y = self.decoder(
            y,
            memory,
            padding_mask(src_ids, self.pad_id),
            decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return self.output(y)


class _Wired(_Reference):
    """decode through one overridable ``wire(y, memory, src_ids, tgt_ids)``."""

    def decode(self, tgt_ids, memory, src_ids):
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        return self.output(self.wire(y, memory, src_ids, tgt_ids))

    def masks(self, src_ids, tgt_ids):
        return padding_mask(src_ids, self.pad_id), decoder_self_attention_mask(tgt_ids, self.pad_id)


class TNoSourceMask(_Reference):
    def encode(self, src_ids):
        return self.encoder(self.positional_encoding(self.src_embedding(src_ids)))


class TEncoderMaskFromEmbeddedVectors(_Reference):
    """The encoder's mask from the embedded source's non-zero rows (a pad taken for a zero
    vector): with the positions added no row is zero, so it allows every position; no input
    of encode tells it from no mask, and the message says both."""

    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding(src_ids))
        return self.encoder(x, (x != 0).any(-1)[:, None, None, :])


class TInvertedSourceMask(_Reference):
    """nn.Transformer's key_padding_mask convention, True at the pads (blind8a)."""

    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding(src_ids))
        return self.encoder(x, ~padding_mask(src_ids, self.pad_id))


class TInvertedCrossMask(_Wired):
    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, ~src_mask, tgt_mask)


class TInvertedDecoderMasks(_Wired):
    """Both masks with True = blocked, as nn.Transformer's tgt_mask (triu) and
    memory_key_padding_mask."""

    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, ~src_mask, ~tgt_mask)


class TSourceMaskToSelfAttention(_Wired):
    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, _ = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, src_mask, src_mask)


class TNoLookAhead(_Wired):
    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, _ = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, src_mask, padding_mask(tgt_ids, self.pad_id))


class TMaskPartsJoinedByOr(_Wired):
    """Look-ahead | padding where & belongs (blind8a: told only about a future leak)."""

    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, _ = self.masks(src_ids, tgt_ids)
        either = padding_mask(tgt_ids, self.pad_id) | look_ahead_mask(tgt_ids.shape[1])
        return self.decoder(y, memory, src_mask, either)


class TNoTargetPadding(_Wired):
    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, _ = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, src_mask, look_ahead_mask(tgt_ids.shape[1]))


class TLookAheadTransposed(_Wired):
    """The look-ahead part transposed (upper triangle, diagonal included) and'ed with the
    right padding part: each position sees itself and the later tokens, never the past."""

    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, _ = self.masks(src_ids, tgt_ids)
        upper = look_ahead_mask(tgt_ids.shape[1]).T  # (len_tgt, len_tgt)
        return self.decoder(y, memory, src_mask, padding_mask(tgt_ids, self.pad_id) & upper)


class TLookAheadTwoAhead(_Wired):
    """The look-ahead part built from positions with j <= i + 2: each position also sees the
    two tokens after it (round 29's class: a mask some diagonals too wide)."""

    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, _ = self.masks(src_ids, tgt_ids)
        positions = torch.arange(tgt_ids.shape[1])
        ahead = positions[None, :] <= positions[:, None] + 2  # (len_tgt, len_tgt)
        return self.decoder(y, memory, src_mask, padding_mask(tgt_ids, self.pad_id) & ahead)


class TTargetPaddingOnQueryAxis(_Wired):
    """The padding part unsqueezed on the query axis, (batch, 1, len_tgt, 1), and'ed with
    the look-ahead part (blind10a: the generic fallback before)."""

    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, _ = self.masks(src_ids, tgt_ids)
        rows = (tgt_ids != self.pad_id)[:, None, :, None]
        return self.decoder(y, memory, src_mask, look_ahead_mask(tgt_ids.shape[1]) & rows)


class TMasksSwapped(_Wired):
    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, tgt_mask, src_mask)


class TSelfMaskFromSource(_Wired):
    """Blind round 6: decoder_self_attention_mask(src_ids, ...), a copy of the line below
    it (the lengths are equal in the visible case, so no shape error shows it there)."""

    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, _ = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, src_mask, decoder_self_attention_mask(src_ids, self.pad_id))


class TTwoPositionalEncodings(_Reference):
    """Blind round 6 (probe): a second positional encoding for the target side."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, *args, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, num_heads, *args, **kw)
        self.tgt_positional_encoding = PositionalEncoding(d_model, 64, 0.0)


class TPositionalLengthFixed(_Reference):
    """Round 18: the positional table built with a length written in (512, the contract's
    default) instead of the max_len given: the same logits on every short input."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, *args, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, num_heads, *args, **kw)
        self.positional_encoding = PositionalEncoding(d_model, 512, kw.get("dropout", 0.1))


class TPositionalDefaultLength(_Reference):
    """Round 18: PositionalEncoding given d_model and the dropout by keyword, max_len left
    to its default (5000)."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, *args, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, num_heads, *args, **kw)
        self.positional_encoding = PositionalEncoding(d_model=d_model, dropout=kw["dropout"])


class TTiedToTransposeMethod(_Reference):
    """Round 18: the output weight tied to weight.t(), as if nn.Linear stored (d_model,
    vocab_size); nn.Module refuses the plain tensor."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, *args, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, num_heads, *args, **kw)
        if kw.get("tie_embeddings"):
            self.output.weight = self.tgt_embedding.embedding.weight.t()  # x @ W.T


class TTiedToClone(_Reference):
    """Round 18: the output weight given a clone of the shared one (a plain tensor)."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, *args, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, num_heads, *args, **kw)
        if kw.get("tie_embeddings"):
            self.output.weight = self.tgt_embedding.embedding.weight.clone()


class TDropoutTwice(_Embedded):
    """Blind round 6 (probe): another nn.Dropout after self.positional_encoding, which
    already applies one; it passed every check (dropout 1.0 and 0.0 cannot show it)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.dropout = nn.Dropout(kwargs.get("dropout", 0.1))

    def embed(self, table, ids):
        return self.dropout(self.positional_encoding(table(ids)))


class TTargetMaskToCross(_Wired):
    def wire(self, y, memory, src_ids, tgt_ids):
        _, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, tgt_mask, tgt_mask)


class TNoCrossMask(_Wired):
    def wire(self, y, memory, src_ids, tgt_ids):
        _, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, None, tgt_mask)


class TCrossMaskFromTarget(_Wired):
    """The cross-attention's mask built from tgt_ids' padding (the lengths are equal in the
    check's first case, so no error shows it)."""

    def wire(self, y, memory, src_ids, tgt_ids):
        _, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, padding_mask(tgt_ids, self.pad_id), tgt_mask)


class TTieEmbeddingsNotOutput(_Reference):
    def __init__(self, *args, tie_embeddings=False, **kwargs):
        super().__init__(*args, **kwargs)
        if tie_embeddings:
            self.tgt_embedding.embedding.weight = self.src_embedding.embedding.weight


class TMemoryAsQueries(_Wired):
    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(memory, y, src_mask, tgt_mask)


class TIgnoresMemory(_Wired):
    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, y, src_mask, tgt_mask)


class TZeroMemory(_Wired):
    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, torch.zeros_like(memory), src_mask, tgt_mask)


class TPadZero(_Reference):
    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding(src_ids))
        return self.encoder(x, padding_mask(src_ids, 0))

    def decode(self, tgt_ids, memory, src_ids):
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        y = self.decoder(
            y, memory, padding_mask(src_ids, 0), decoder_self_attention_mask(tgt_ids, 0)
        )
        return self.output(y)


class TEncoderOnTarget(_Reference):
    def forward(self, src_ids, tgt_ids):
        return self.decode(tgt_ids, self.encode(tgt_ids), tgt_ids)


class TSharedEmbeddings(_Reference):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, **kwargs):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kwargs)
        self.tgt_embedding = self.src_embedding


class TTieIgnored(_Reference):
    def __init__(self, *args, tie_embeddings=False, **kwargs):
        super().__init__(*args, **kwargs)


class TSourceMaskOneAxis(_Reference):
    """The source padding mask (batch, 1, len_src): the batch axis meets the heads axis
    (blind10a: told only that two tensors of different sizes met)."""

    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding(src_ids))
        return self.encoder(x, (src_ids != self.pad_id)[:, None, :])


class TDecodeUsesStoredMemory(_Reference):
    """encode keeps its memory on the module and decode uses it: the same logits as encoding
    again inside decode, on the check's calls; both are named."""

    def encode(self, src_ids):
        self.memory = super().encode(src_ids)
        return self.memory

    def decode(self, tgt_ids, memory, src_ids):
        return super().decode(tgt_ids, self.memory, src_ids)


class VocabMismatchError(ValueError):
    """a project's own error class, a ValueError: accepted"""


class TVocabRefusedWithValueErrorSubclass(ref.Transformer):
    def __init__(self, src_vocab_size, tgt_vocab_size, *args, tie_embeddings=False, **kwargs):
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise VocabMismatchError(f"{src_vocab_size} != {tgt_vocab_size}")
        super().__init__(
            src_vocab_size, tgt_vocab_size, *args, tie_embeddings=tie_embeddings, **kwargs
        )


class TDecoderStackFromEncoderClass(ref.Transformer):
    """copy-paste slip: the decoder stack built with the Encoder class (no cross-attention)"""

    def __init__(
        self,
        src_vocab_size,
        tgt_vocab_size,
        d_model=512,
        num_heads=8,
        num_layers=6,
        d_ff=2048,
        dropout=0.1,
        **kwargs,
    ):
        super().__init__(
            src_vocab_size,
            tgt_vocab_size,
            d_model,
            num_heads,
            num_layers,
            d_ff,
            dropout,
            **kwargs,
        )
        self.decoder = Encoder(num_layers, d_model, num_heads, d_ff, dropout)


class TTiedByNewParameter(ref.Transformer):
    """nn.Parameter(table) for the other two: new Parameter objects over one storage."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *args, tie_embeddings=False, **kwargs):
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError("tie_embeddings needs one vocabulary")
        super().__init__(src_vocab_size, tgt_vocab_size, *args, **kwargs)
        if tie_embeddings:
            table = self.src_embedding.embedding.weight
            self.tgt_embedding.embedding.weight = nn.Parameter(table)
            self.output.weight = nn.Parameter(table)


class TCausalEncoder(_Reference):
    """The encoder given decoder_self_attention_mask(src_ids) (b10a's probe: the generic
    fallback)."""

    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding(src_ids))
        return self.encoder(x, decoder_self_attention_mask(src_ids, self.pad_id))


class TEncoderInputDoubled(_Reference):
    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding(src_ids)) * 2
        return self.encoder(x, padding_mask(src_ids, self.pad_id))


class TForwardTargetAsSource(_Reference):
    """forward gives decode tgt_ids where src_ids belongs (decode itself is right)."""

    def forward(self, src_ids, tgt_ids):
        return self.decode(tgt_ids, self.encode(src_ids), tgt_ids)


class TPositionsOnMemory(_Reference):
    """decode adds the positions to memory too (b10a's probe: the generic fallback)."""

    def decode(self, tgt_ids, memory, src_ids):
        return super().decode(tgt_ids, self.positional_encoding(memory), src_ids)


class TMemoryScaledLikeEmbeddings(_Reference):
    """The family of blind28b-tr-positions-added-to-memory (a known change of the memory
    inside decode): memory multiplied by sqrt(d_model), as the embeddings are."""

    def decode(self, tgt_ids, memory, src_ids):
        return super().decode(tgt_ids, memory * memory.shape[-1] ** 0.5, src_ids)


class TForwardShiftsWithPad(_Reference):
    """The family of blind28b-tr-forward-shifts-target-right: forward shifts the decoder
    input again, a pad put in front and the last token dropped."""

    def forward(self, src_ids, tgt_ids):
        pad = torch.full_like(tgt_ids[:, :1], self.pad_id)  # (batch, 1)
        shifted = torch.cat([pad, tgt_ids[:, :-1]], dim=1)  # (batch, len_tgt)
        return self.decode(shifted, self.encode(src_ids), src_ids)


class TCrossMaskPadZero(_Wired):
    """Only the cross-attention's mask built with pad id 0 (b10a's probe: the generic
    fallback; the table has 0 in both masks; round 35: named by checking.mask_sources)."""

    def wire(self, y, memory, src_ids, tgt_ids):
        _, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, padding_mask(src_ids, 0), tgt_mask)


class TCrossMaskFromNonZeroMemory(_Wired):
    """The family 'the cross-attention's mask built from the wrong quantity' (blind29b: a
    mask from memory's zero rows was told that no mask was passed): the positions whose
    memory vector has any non-zero entry, as one bool per source position."""

    def wire(self, y, memory, src_ids, tgt_ids):
        _, tgt_mask = self.masks(src_ids, tgt_ids)
        nonzero = memory.ne(0).any(dim=2)  # (batch, len_src)
        return self.decoder(y, memory, nonzero.unsqueeze(1).unsqueeze(2), tgt_mask)


class TCrossMaskFromSourceEmbeddings(_Wired):
    """Its sibling: a mask from vectors that are not zero at the pads (the source's
    embeddings, re-looked-up in decode), which allows every position whatever memory holds:
    no probe tells it from no mask at all, so both are said."""

    def wire(self, y, memory, src_ids, tgt_ids):
        _, tgt_mask = self.masks(src_ids, tgt_ids)
        vectors = self.src_embedding(src_ids)  # (batch, len_src, d_model)
        keep = (vectors.norm(dim=-1) > 0)[:, None, None, :]
        return self.decoder(y, memory, keep, tgt_mask)


class TDecodeEncodesAgain(_Wired):
    """decode ignores its memory and runs the encoder on src_ids again (blind10a: accepted,
    since the check handed decode encode's own memory)."""

    def wire(self, y, memory, src_ids, tgt_ids):
        src_mask, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, self.encode(src_ids), src_mask, tgt_mask)


class TTiedThroughData(ref.Transformer):
    """Tied by assigning .data: one storage, three Parameter objects (blind10a: accepted
    before, since the three always hold the same values)."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *args, tie_embeddings=False, **kwargs):
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError("tie_embeddings needs one vocabulary")
        super().__init__(src_vocab_size, tgt_vocab_size, *args, **kwargs)
        if tie_embeddings:
            table = self.src_embedding.embedding.weight
            self.tgt_embedding.embedding.weight.data = table.data
            self.output.weight.data = table.data


class TTieOutputOnly(_Reference):
    def __init__(self, *args, tie_embeddings=False, **kwargs):
        super().__init__(*args, **kwargs)
        if tie_embeddings:
            self.output.weight = self.tgt_embedding.embedding.weight


class TTiesWhenSizesEqual(ref.Transformer):
    """blind10j: ties whenever the two vocabularies have one size, tie_embeddings or not
    (the hidden run, with no untied model of one size, passed it)."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *args, tie_embeddings=False, **kwargs):
        tie = tie_embeddings or src_vocab_size == tgt_vocab_size
        super().__init__(src_vocab_size, tgt_vocab_size, *args, tie_embeddings=tie, **kwargs)


class TTieWithoutVocabularyCheck(_Reference):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, *, tie_embeddings=False, **kw):
        super().__init__(src_vocab_size, src_vocab_size, d_model, **kw)
        self.output = nn.Linear(d_model, tgt_vocab_size)
        self.tgt_embedding = TokenEmbedding(tgt_vocab_size, d_model)
        if tie_embeddings:
            self.tgt_embedding.embedding.weight = self.src_embedding.embedding.weight
            self.output.weight = self.src_embedding.embedding.weight


class TSoftmax(_Reference):
    def decode(self, tgt_ids, memory, src_ids):
        return torch.softmax(super().decode(tgt_ids, memory, src_ids), dim=-1)


class TAnnotatedGenerator(_Reference):
    """The Annotated Transformer's Generator: log_softmax(proj(x))."""

    def decode(self, tgt_ids, memory, src_ids):
        return F.log_softmax(super().decode(tgt_ids, memory, src_ids), dim=-1)


class TSoftmaxOverPositions(_Reference):
    def decode(self, tgt_ids, memory, src_ids):
        return torch.softmax(super().decode(tgt_ids, memory, src_ids), dim=1)


class TNoOutputLayer(_Wired):
    def decode(self, tgt_ids, memory, src_ids):
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        src_mask, tgt_mask = self.masks(src_ids, tgt_ids)
        return self.decoder(y, memory, src_mask, tgt_mask)


class TOutputSourceVocabulary(_Reference):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, **kwargs):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kwargs)
        self.output = nn.Linear(d_model, src_vocab_size)


class TOutputWithoutBias(_Reference):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, **kwargs):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kwargs)
        self.output = nn.Linear(d_model, tgt_vocab_size, bias=False)
        if kwargs.get("tie_embeddings"):
            self.output.weight = self.src_embedding.embedding.weight


class TFinalNormIgnored(_Reference):
    def __init__(self, *args, final_norm=None, **kwargs):
        super().__init__(*args, **kwargs)


class TNormFirstIgnored(_Reference):
    def __init__(self, *args, norm_first=False, **kwargs):
        final_norm = kwargs.pop("final_norm", None)
        if final_norm is None:
            final_norm = norm_first  # keeps the state-dict keys: only the layers are wrong
        super().__init__(*args, final_norm=final_norm, **kwargs)


class TReturnsMemoryToo(_Reference):
    def forward(self, src_ids, tgt_ids):
        memory = self.encode(src_ids)
        return self.decode(tgt_ids, memory, src_ids), memory


class TNoGradForward(_Reference):
    def forward(self, src_ids, tgt_ids):
        with torch.no_grad():
            return super().forward(src_ids, tgt_ids)


class TEncodeDetached(_Reference):
    """encode's memory detached: right values, no gradient to the encoder (blind10j)."""

    def encode(self, src_ids):
        return super().encode(src_ids).detach()


class TForwardMemoryEmbedded(_Reference):
    """forward hands decode the embedded source, the encoder's input (blind12a)."""

    def forward(self, src_ids, tgt_ids):
        memory = self.positional_encoding(self.src_embedding(src_ids))
        return self.decode(tgt_ids, memory, src_ids)


class TForwardMemoryEmbeddingsOnly(_Reference):
    """The same family, in no case: the source embeddings alone as memory."""

    def forward(self, src_ids, tgt_ids):
        return self.decode(tgt_ids, self.src_embedding(src_ids), src_ids)


class TDecodeNoGrad(_Reference):
    """decode under torch.no_grad(): right logits, no gradient to the decoder."""

    def decode(self, tgt_ids, memory, src_ids):
        with torch.no_grad():
            return super().decode(tgt_ids, memory, src_ids)


class TStubbedEncode(_Reference):
    """encode left as the stub, forward written inline."""

    def encode(self, src_ids):
        raise NotImplementedError()


# ================================================================== Transformer: correct
def _subsequent_mask(size):
    """The Annotated Transformer's subsequent_mask: (1, size, size), True = may attend."""
    return torch.triu(torch.ones(1, size, size), diagonal=1).type(torch.uint8) == 0


class TAnnotatedStyle(nn.Module):
    """The Annotated Transformer's make_model wiring (EncoderDecoder), with the contract's
    names and logits out (its Generator's projection without the log_softmax)."""

    def __init__(
        self,
        src_vocab_size,
        tgt_vocab_size,
        d_model=512,
        num_heads=8,
        num_layers=6,
        d_ff=2048,
        dropout=0.1,
        max_len=512,
        pad_id=0,
        tie_embeddings=False,
        norm_first=False,
        final_norm=None,
    ):
        super().__init__()
        if tie_embeddings:
            assert src_vocab_size == tgt_vocab_size, "tying needs one vocabulary"
        self.pad_id = pad_id
        self.encoder = Encoder(
            num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm
        )
        self.decoder = Decoder(
            num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm
        )
        self.src_embedding = TokenEmbedding(src_vocab_size, d_model)
        self.tgt_embedding = TokenEmbedding(tgt_vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)
        self.output = nn.Linear(d_model, tgt_vocab_size)
        if tie_embeddings:
            self.src_embedding.embedding.weight = self.output.weight
            self.tgt_embedding.embedding.weight = self.output.weight

    def src_mask(self, src):
        return (src != self.pad_id).unsqueeze(-2).unsqueeze(1)  # (batch, 1, 1, len_src)

    def tgt_mask(self, tgt):
        mask = (tgt != self.pad_id).unsqueeze(-2)  # (batch, 1, len_tgt)
        return (mask & _subsequent_mask(tgt.size(-1))).unsqueeze(1)  # (batch, 1, len, len)

    def encode(self, src_ids):
        src = self.positional_encoding(self.src_embedding(src_ids))
        return self.encoder(src, self.src_mask(src_ids))

    def decode(self, tgt_ids, memory, src_ids):
        tgt = self.positional_encoding(self.tgt_embedding(tgt_ids))
        out = self.decoder(tgt, memory, self.src_mask(src_ids), self.tgt_mask(tgt_ids))
        return self.output(out)

    def forward(self, src_ids, tgt_ids):
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)


class THelperMethod(ref.Transformer):
    """One helper for both sides' inputs, and masks from a helper."""

    def _inputs(self, embedding, ids):
        return self.positional_encoding(embedding(ids))

    def _masks(self, src_ids, tgt_ids=None):
        src = padding_mask(src_ids, self.pad_id)
        return src if tgt_ids is None else (src, decoder_self_attention_mask(tgt_ids, self.pad_id))

    def encode(self, src_ids):
        return self.encoder(self._inputs(self.src_embedding, src_ids), self._masks(src_ids))

    def decode(self, tgt_ids, memory, src_ids):
        src_mask, tgt_mask = self._masks(src_ids, tgt_ids)
        y = self.decoder(self._inputs(self.tgt_embedding, tgt_ids), memory, src_mask, tgt_mask)
        return self.output(y)


class TAddModuleLoop(nn.Module):
    """Submodules registered by name from a dict; the tying checked with an if."""

    def __init__(
        self,
        src_vocab_size,
        tgt_vocab_size,
        d_model=512,
        num_heads=8,
        num_layers=6,
        d_ff=2048,
        dropout=0.1,
        max_len=512,
        pad_id=0,
        tie_embeddings=False,
        norm_first=False,
        final_norm=None,
    ):
        super().__init__()
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError("a shared vocabulary is needed")
        stack = {
            "num_layers": num_layers,
            "d_model": d_model,
            "num_heads": num_heads,
            "d_ff": d_ff,
            "dropout": dropout,
            "norm_first": norm_first,
            "final_norm": final_norm,
        }
        parts = {
            "src_embedding": TokenEmbedding(src_vocab_size, d_model),
            "tgt_embedding": TokenEmbedding(tgt_vocab_size, d_model),
            "positional_encoding": PositionalEncoding(d_model, max_len, dropout),
            "encoder": Encoder(**stack),
            "decoder": Decoder(**stack),
            "output": nn.Linear(d_model, tgt_vocab_size),
        }
        for name, module in parts.items():
            self.add_module(name, module)
        self.pad_id = pad_id
        if tie_embeddings:  # share the module itself, and its matrix with the output
            self.tgt_embedding = self.src_embedding
            self.output.weight = self.src_embedding.embedding.weight

    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding(src_ids))
        return self.encoder(x, mask=padding_mask(src_ids, self.pad_id))

    def decode(self, tgt_ids, memory, src_ids):
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        y = self.decoder(
            y,
            memory,
            src_mask=padding_mask(src_ids, self.pad_id),
            tgt_mask=decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return self.output(y)

    def forward(self, src_ids, tgt_ids):
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)


class TInlineMasks(ref.Transformer):
    """Masks computed inline with the same values; the cross-attention mask expanded to its
    full (batch, 1, len_tgt, len_src) size; forward written out without encode/decode."""

    def forward(self, src_ids, tgt_ids):
        len_tgt, len_src = tgt_ids.shape[1], src_ids.shape[1]
        src_real = (src_ids != self.pad_id)[:, None, None, :]
        causal = torch.ones(len_tgt, len_tgt, dtype=torch.bool).tril()
        tgt_mask = (tgt_ids != self.pad_id)[:, None, None, :] & causal
        memory = self.encoder(self.positional_encoding(self.src_embedding(src_ids)), src_real)
        cross = src_real.expand(-1, 1, len_tgt, len_src)
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        return self.output(self.decoder(y, memory, cross, tgt_mask))


class _Sinusoids(nn.Module):
    """A positional encoding computed on the fly (no buffer in the state dict)."""

    def __init__(self, d_model, dropout):
        super().__init__()
        self.d_model = d_model
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        position = torch.arange(x.shape[1], dtype=torch.float32)[:, None]
        rates = torch.exp(
            torch.arange(0, self.d_model, 2).float() * (-math.log(10000.0) / self.d_model)
        )
        pe = torch.zeros(x.shape[1], self.d_model)
        pe[:, 0::2] = torch.sin(position * rates)
        pe[:, 1::2] = torch.cos(position * rates)
        return self.dropout(x + pe.to(x.dtype))


class TSinusoidsOnTheFly(ref.Transformer):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, **kwargs):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kwargs)
        self.positional_encoding = _Sinusoids(d_model, kwargs.get("dropout", 0.1))


class _FlatTable(nn.Module):
    """A positional encoding with a (max_len, d_model) buffer named `table`."""

    def __init__(self, d_model, max_len, dropout):
        super().__init__()
        self.register_buffer("table", PositionalEncoding(d_model, max_len, 0.0).pe[0].clone())
        self.p = dropout

    def forward(self, x):
        return F.dropout(x + self.table[: x.shape[1]], self.p, self.training)


class TFlatPositionTable(ref.Transformer):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, **kwargs):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kwargs)
        self.positional_encoding = _FlatTable(
            d_model, kwargs.get("max_len", 512), kwargs.get("dropout", 0.1)
        )


class TExplicitDropout(ref.Transformer):
    """PositionalEncoding without dropout, then F.dropout(training=self.training): the same."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, **kwargs):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kwargs)
        self.p = kwargs.get("dropout", 0.1)
        self.positional_encoding = PositionalEncoding(d_model, kwargs.get("max_len", 512), 0.0)

    def encode(self, src_ids):
        x = F.dropout(self.positional_encoding(self.src_embedding(src_ids)), self.p, self.training)
        return self.encoder(x, padding_mask(src_ids, self.pad_id))

    def decode(self, tgt_ids, memory, src_ids):
        y = F.dropout(self.positional_encoding(self.tgt_embedding(tgt_ids)), self.p, self.training)
        y = self.decoder(
            y,
            memory,
            padding_mask(src_ids, self.pad_id),
            decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return self.output(y)


class TTiedTheOtherWay(ref.Transformer):
    """Tied by assigning the output layer's matrix to both embeddings."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, *, tie_embeddings=False, **kw):
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise AssertionError("tie_embeddings needs src_vocab_size == tgt_vocab_size")
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kw)
        if tie_embeddings:
            self.src_embedding.embedding.weight = self.output.weight
            self.tgt_embedding.embedding.weight = self.output.weight


class TTieDefaultTrue(ref.Transformer):
    """tie_embeddings defaults to True: a call that does not pass it, with two vocabulary
    sizes, is refused."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *args, tie_embeddings=True, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, *args, tie_embeddings=tie_embeddings, **kw)


class TTieTestInverted(ref.Transformer):
    """Refuses tie_embeddings=True when the vocabularies are equal (== for !=)."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *args, tie_embeddings=False, **kw):
        if tie_embeddings and src_vocab_size == tgt_vocab_size:
            raise ValueError("tie_embeddings needs a shared vocabulary")
        super().__init__(src_vocab_size, tgt_vocab_size, *args, **kw)


class TNumLayersDefault(ref.Transformer):
    """Mechanical mutant Transformer-9's kind: the signature's num_layers default is not the
    contract's 6 (every case writes num_layers out, so only a build with the defaults shows
    it)."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *args, num_layers=4, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, *args, num_layers=num_layers, **kw)


class TPadIdDefault(ref.Transformer):
    """Mechanical mutant Transformer-8's kind: pad_id defaults to 1, not 0."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *args, pad_id=1, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, *args, pad_id=pad_id, **kw)


class TDffDefault(ref.Transformer):
    """Mechanical mutant Transformer-5's kind: d_ff defaults to 2049, another weight shape."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *args, d_ff=2049, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, *args, d_ff=d_ff, **kw)


class TLayersAndDffSwapped(ref.Transformer):
    """num_layers and d_ff in each other's places: d_ff layers of num_layers-wide
    feed-forwards (told only "Each stack has num_layers layers" before)."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *, num_layers=6, d_ff=2048, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, num_layers=d_ff, d_ff=num_layers, **kw)


class TModelAndHeadsSwapped(ref.Transformer):
    """d_model and num_heads in each other's places: the attention refuses d_model=2 with
    num_heads=8, a refusal that is not the learner's."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *, d_model=512, num_heads=8, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model=num_heads, num_heads=d_model, **kw)


class TForwardMaxIndices(ref.Transformer):
    """forward returns torch.max(...).indices, the predicted tokens, not the logits."""

    def forward(self, src_ids, tgt_ids):
        return torch.max(super().forward(src_ids, tgt_ids), dim=-1).indices


class TForwardDropsFirstPosition(ref.Transformer):
    """forward cuts the first position's logits ([:, 1:]): len_tgt - 1 rows."""

    def forward(self, src_ids, tgt_ids):
        return super().forward(src_ids, tgt_ids)[:, 1:]


class TMaxLenDefault(ref.Transformer):
    """A larger table by default (the Annotated Transformer's max_len=5000): the same
    model on every input shorter than 512, accepted."""

    def __init__(self, src_vocab_size, tgt_vocab_size, *args, max_len=5000, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, *args, max_len=max_len, **kw)


class TPositionalTutorialOrder(ref.Transformer):
    """Blind round 9: PositionalEncoding(d_model, dropout, max_len), the PyTorch tutorial's
    order: nn.Dropout refuses max_len as a probability (the message blamed the learner's
    tie_embeddings test)."""

    def __init__(
        self,
        src_vocab_size,
        tgt_vocab_size,
        d_model=512,
        num_heads=8,
        num_layers=6,
        d_ff=2048,
        dropout=0.1,
        max_len=512,
        **kw,
    ):
        super().__init__(
            src_vocab_size,
            tgt_vocab_size,
            d_model,
            num_heads,
            num_layers,
            d_ff,
            dropout,
            max_len,
            **kw,
        )
        self.positional_encoding = PositionalEncoding(d_model, dropout, max_len)


class TNormOptionsSwapped(ref.Transformer):
    """Blind round 9: norm_first and final_norm passed to the stacks in each other's place."""

    def __init__(
        self,
        src_vocab_size,
        tgt_vocab_size,
        d_model=512,
        num_heads=8,
        num_layers=6,
        d_ff=2048,
        dropout=0.1,
        max_len=512,
        pad_id=0,
        tie_embeddings=False,
        norm_first=False,
        final_norm=None,
    ):
        super().__init__(
            src_vocab_size,
            tgt_vocab_size,
            d_model,
            num_heads,
            num_layers,
            d_ff,
            dropout,
            max_len,
            pad_id,
            tie_embeddings,
        )
        layers = (num_layers, d_model, num_heads, d_ff, dropout, final_norm, norm_first)
        self.encoder = Encoder(*layers)
        self.decoder = Decoder(*layers)


class TPositionalDropoutDefault(ref.Transformer):
    """Blind round 9: PositionalEncoding(d_model, max_len), the model's dropout left out, so
    the positions drop at the default 0.1 whatever dropout the model was given."""

    def __init__(
        self,
        src_vocab_size,
        tgt_vocab_size,
        d_model=512,
        num_heads=8,
        num_layers=6,
        d_ff=2048,
        dropout=0.1,
        max_len=512,
        **kw,
    ):
        super().__init__(
            src_vocab_size,
            tgt_vocab_size,
            d_model,
            num_heads,
            num_layers,
            d_ff,
            dropout,
            max_len,
            **kw,
        )
        self.positional_encoding = PositionalEncoding(d_model, max_len)


class TDecoderDropoutLeftOut(ref.Transformer):
    """The encoder gets the model's dropout, the decoder is built from a tuple that leaves
    it out and names the layout by keyword: its layers drop at Decoder's default, 0.0."""

    def __init__(
        self,
        src_vocab_size,
        tgt_vocab_size,
        d_model=512,
        num_heads=8,
        num_layers=6,
        d_ff=2048,
        dropout=0.1,
        max_len=512,
        pad_id=0,
        tie_embeddings=False,
        norm_first=False,
        final_norm=None,
    ):
        super().__init__(
            src_vocab_size,
            tgt_vocab_size,
            d_model,
            num_heads,
            num_layers,
            d_ff,
            dropout,
            max_len,
            pad_id,
            tie_embeddings,
            norm_first,
            final_norm,
        )
        sizes = (num_layers, d_model, num_heads, d_ff)
        self.decoder = Decoder(*sizes, norm_first=norm_first, final_norm=final_norm)


class _FirstDrawKeepsAll(nn.Module):
    """Dropout at 0.1 whose first draw in train mode happens to drop nothing (a draw of 64
    or so entries at 0.1 can): the kept entries are scaled by 1 / 0.9 and nothing is zeroed,
    which per token is what no dropout gives after a LayerNorm."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        if not self.training:
            return x
        self.calls += 1
        return x / 0.9 if self.calls == 1 else F.dropout(x, 0.1, True)


class TPositionalDropoutDefaultLuckyDraw(TPositionalDropoutDefault):
    """TPositionalDropoutDefault whose first train-mode call drops nothing: the model's
    randomness, not that one draw, decides the message (it used to follow the draw, and a
    draw like this one named "there is no dropout on it")."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.positional_encoding.dropout = _FirstDrawKeepsAll()


class TTiedByCopy(ref.Transformer):
    """Blind round 4: 'tied' by copying the source table into two new Parameters."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, *, tie_embeddings=False, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kw)
        if tie_embeddings:
            table = self.src_embedding.embedding.weight.detach()
            self.tgt_embedding.embedding.weight = nn.Parameter(table.clone())
            self.output.weight = nn.Parameter(table.clone())


class TOutputFromVocabulary(ref.Transformer):
    """The output layer built from the vocabulary to d_model, its two sizes swapped."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, **kw):
        super().__init__(src_vocab_size, tgt_vocab_size, d_model, **kw)
        self.output = nn.Linear(in_features=tgt_vocab_size, out_features=d_model)


class TDecodeMemoryFirst(ref.Transformer):
    """decode(memory, tgt, src), the Annotated Transformer's order, used so by forward."""

    def decode(self, memory, tgt, src):
        return super().decode(tgt, memory, src)

    def forward(self, src, tgt):
        return self.decode(self.encode(src), tgt, src)


def _greedy_stop_slip(slip):
    """Greedy decoding whose stop test slips: "break_outside" (the break below the if, not
    inside it: always taken), "inverted" (a row finished once its token is NOT eos_id)."""

    def greedy_decode(model, src_ids, max_len, bos_id, eos_id):
        memory = model.encode(src_ids)
        batch = src_ids.shape[0]
        tokens = torch.full((batch, 1), bos_id, dtype=torch.long)  # (batch, 1)
        finished = torch.zeros(batch, dtype=torch.bool)
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)  # (batch, len, vocab)
            next_token = logits[:, -1].argmax(dim=-1)  # (batch,)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            if slip == "inverted":
                finished = finished | (next_token != eos_id)
            else:
                finished = finished | (next_token == eos_id)
            if finished.all():
                pass
            if slip == "inverted" and finished.all():
                break
            if slip == "break_outside":
                break
        return tokens[:, 1:]

    return greedy_decode


# ================================================================== count_parameters
def count_paper_style(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Matrix by matrix, the way one reads the shapes off the modules."""
    linear = lambda n_in, n_out: n_in * n_out + n_out  # noqa: E731
    attention = 4 * linear(d_model, d_model)
    ffn = linear(d_model, d_ff) + linear(d_ff, d_model)
    norm = 2 * d_model
    encoder = num_layers * (attention + ffn + 2 * norm) + (norm if final_norm else 0)
    decoder = num_layers * (2 * attention + ffn + 3 * norm) + (norm if final_norm else 0)
    table = vocab_size * d_model
    if tie_embeddings:
        return {"embeddings": table, "encoder": encoder, "decoder": decoder, "output": vocab_size}
    return {
        "embeddings": 2 * table,
        "encoder": encoder,
        "decoder": decoder,
        "output": linear(d_model, vocab_size),
    }


def count_final_norm_in_every_layer(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Blind round 6: the final LayerNorm inside the num_layers product."""
    counts = count_paper_style(vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings)
    if final_norm:
        counts["encoder"] += num_layers * 2 * d_model
        counts["decoder"] += num_layers * 2 * d_model
    return counts


def count_final_norm_doubled(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """The final LayerNorm counted as two LayerNorms (4 * d_model) in each stack: with
    num_layers=2 it agrees with the final norm counted per layer, nearby calls split them."""
    counts = count_paper_style(vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings)
    final_norms = 4 * d_model if final_norm else 0
    counts["encoder"] += final_norms
    counts["decoder"] += final_norms
    return counts


def count_two_attention_biases(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """One attention's biases counted twice where there are four (query and key only)."""
    counts = ref.count_parameters(
        vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm
    )
    counts["encoder"] -= num_layers * 2 * d_model
    counts["decoder"] -= num_layers * 2 * 2 * d_model
    return counts


def count_one_layer_too_many(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """The layers summed over range(num_layers + 1): one layer per stack too many."""
    more = count_paper_style(
        vocab_size, d_model, num_heads, num_layers + 1, d_ff, tie_embeddings, final_norm
    )
    return {
        **ref.count_parameters(
            vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm
        ),
        "encoder": more["encoder"],
        "decoder": more["decoder"],
    }


def count_output_weight_in_embeddings(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """blind10j: the untied output weight counted under 'embeddings' (the total right)."""
    args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
    counts = ref.count_parameters(*args)
    if not tie_embeddings:
        counts["embeddings"] += vocab_size * d_model
        counts["output"] -= vocab_size * d_model
    return counts


def count_tied_output_weight(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """blind11a: tied, 'output' still counts the weight (the shared matrix counted twice),
    'embeddings' right: no whole mistake gives the four entries, the per-entry family does."""
    args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
    counts = ref.count_parameters(*args)
    counts["output"] = vocab_size * d_model + vocab_size
    return counts


def count_two_entry_mistakes(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Two mistakes in two entries at once: the attention biases left out of both stacks,
    and the untied output layer's bias left out (each a known mistake on its own)."""
    args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
    counts = count_parameters_f(*args, attention_biases=False)
    counts["output"] = count_parameters_f(*args, untied_output_bias=False)["output"]
    return counts


def count_encoder_norm_and_output_bias(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """One LayerNorm per encoder layer and the untied output bias left out: in 'encoder',
    w_2's bias subtracted gives the same count but would also move 'decoder', which is
    right, so only the LayerNorm is named."""
    args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
    counts = count_parameters_f(*args, encoder_norms=1)
    counts["output"] = count_parameters_f(*args, untied_output_bias=False)["output"]
    return counts


def count_decoder_norms_in_encoder(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Every decoder LayerNorm counted under 'encoder' (the total right)."""
    args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
    counts = ref.count_parameters(*args)
    norms = 3 * 2 * d_model * num_layers
    counts["encoder"] += norms
    counts["decoder"] -= norms
    return counts


def count_encoder_final_norm_under_embeddings(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """The encoder's final LayerNorm counted with the embeddings (the total right)."""
    args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
    counts = ref.count_parameters(*args)
    if final_norm:
        counts["encoder"] -= 2 * d_model
        counts["embeddings"] += 2 * d_model
    return counts


def count_output_bias_under_decoder(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """The output layer's bias counted with the decoder (the total right)."""
    args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
    counts = ref.count_parameters(*args)
    counts["decoder"] += vocab_size
    counts["output"] -= vocab_size
    return counts


def count_numpy_ints(*args, **kwargs):
    import numpy as np

    return {key: np.int64(value) for key, value in ref.count_parameters(*args, **kwargs).items()}


def count_floats(*args, **kwargs):
    """Every count converted with float(...): whole numbers, but floats (was accepted with a
    note until the contract's ints were required, round 27)."""
    return {key: float(value) for key, value in ref.count_parameters(*args, **kwargs).items()}


def count_heads_by_true_division(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """blind21b-cp-head-size-true-division written another way: each head's projections
    counted per head, with the head's width taken by /, so the attention (and the two
    stacks built from it) are whole-number floats, np.float32 here."""
    import numpy as np

    width = np.float32(d_model / num_heads)  # a true division: 64.0, not 64
    per_head = 3 * (d_model * width + width)  # its query, key and value columns
    attention = num_heads * per_head + (d_model * d_model + d_model)  # + w_o
    feed_forward = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)
    norm = 2 * d_model
    final = norm if final_norm else 0
    table = vocab_size * d_model
    return {
        "embeddings": table if tie_embeddings else 2 * table,
        "encoder": num_layers * (attention + feed_forward + 2 * norm) + final,
        "decoder": num_layers * (2 * attention + feed_forward + 3 * norm) + final,
        "output": vocab_size if tie_embeddings else table + vocab_size,
    }


def _count_mistake(**knobs):
    def count(vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False):
        args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
        return checks.mistaken_counts(args, knobs)

    count.__name__ = "count_" + "_".join(f"{k}_{v}" for k, v in knobs.items())
    return count


def count_ffn_unbiased_and_norms_halved(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Round 25: two mistakes together, the feed-forward's biases left out and each
    LayerNorm counted as one vector of d_model (its gain) instead of two."""
    attention = 4 * (d_model * d_model + d_model)
    feed_forward = 2 * d_model * d_ff
    norm = d_model
    final = norm if final_norm else 0
    table = vocab_size * d_model
    return {
        "embeddings": table if tie_embeddings else 2 * table,
        "encoder": num_layers * (attention + feed_forward + 2 * norm) + final,
        "decoder": num_layers * (2 * attention + feed_forward + 3 * norm) + final,
        "output": vocab_size + (0 if tie_embeddings else table),
    }


def _count_by_hand(*, attention_bias="d_model", output_bias="vocab_size"):
    """A count written out from the layers' shapes, with one bias width switchable:
    the attention projections' (d_head, one head's share) or the output layer's
    (d_model, its in_features)."""

    def count_parameters(
        vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
    ):
        widths = {"d_model": d_model, "d_head": d_model // num_heads, "vocab_size": vocab_size}
        attention = 4 * (d_model * d_model + widths[attention_bias])
        feed_forward = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)
        norm = 2 * d_model
        final = norm if final_norm else 0
        output_weight = 0 if tie_embeddings else vocab_size * d_model
        return {
            "embeddings": (1 if tie_embeddings else 2) * vocab_size * d_model,
            "encoder": num_layers * (attention + feed_forward + 2 * norm) + final,
            "decoder": num_layers * (2 * attention + feed_forward + 3 * norm) + final,
            "output": output_weight + widths[output_bias],
        }

    count_parameters.__name__ = f"count_by_hand_{attention_bias}_{output_bias}"
    return count_parameters


def count_w1_bias_d_model(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """w_1's bias counted as d_model numbers instead of d_ff: in no table."""
    counts = ref.count_parameters(
        vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm
    )
    off = num_layers * (d_ff - d_model)
    return {**counts, "encoder": counts["encoder"] - off, "decoder": counts["decoder"] - off}


def count_no_attention_bias_when_one_layer(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Wrong only for one layer, where it equals the attention-biases mistake: that cause
    does not give these counts on the other configurations, so it must not be stated."""
    args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
    if num_layers == 1:
        return count_parameters_f(*args, attention_biases=False)
    return ref.count_parameters(*args)


def count_tied_table_with_the_output(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Tied, the shared table booked to the output layer (whose weight it is), with the
    output's bias: the total is right, the split is not."""
    counts = ref.count_parameters(
        vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm
    )
    if tie_embeddings:
        shared = vocab_size * d_model
        counts = {**counts, "embeddings": 0, "output": shared + vocab_size}
    return counts


def count_three_decoder_attentions(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Three attentions per decoder layer: named by the per-layer family (one sub-layer
    too many or too few, round 11), which was told only "one attention per layer"."""
    args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
    return count_parameters_f(*args, decoder_attentions=3)


def count_decoder_without_ffn(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """The decoder layer's feed-forward left out: in no table."""
    counts = ref.count_parameters(
        vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm
    )
    ffn = 2 * d_model * d_ff + d_ff + d_model
    return {**counts, "decoder": counts["decoder"] - num_layers * ffn}


def count_total_only(*args, **kwargs):
    return sum(ref.count_parameters(*args, **kwargs).values())


def count_with_total(*args, **kwargs):
    counts = ref.count_parameters(*args, **kwargs)
    return {**counts, "total": sum(counts.values())}


def count_per_head_width(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Heads of width d_model (not d_model / num_heads): a classic over-count."""
    counts = ref.count_parameters(
        vocab_size, d_model, 1, num_layers, d_ff, tie_embeddings, final_norm
    )
    extra = 4 * d_model * d_model * (num_heads - 1)
    counts["encoder"] += num_layers * extra
    counts["decoder"] += num_layers * 2 * extra
    return counts


def count_positional_table(*args, **kwargs):
    """A learned-looking positional table (512 x d_model) counted among the embeddings,
    although the sinusoids are a buffer (blind8a)."""
    counts = ref.count_parameters(*args, **kwargs)
    d_model = kwargs["d_model"] if "d_model" in kwargs else args[1]
    return {**counts, "embeddings": counts["embeddings"] + 512 * d_model}


def count_norms_divided(*args, **kwargs):
    """2 / layer_norm where 2 * layer_norm belongs: a fractional count (mutant
    count_parameters-7 of round 8 got only "a whole number")."""
    counts = ref.count_parameters(*args, **kwargs)
    d_model = kwargs["d_model"] if "d_model" in kwargs else args[1]
    layers = kwargs["num_layers"] if "num_layers" in kwargs else args[3]
    norms = 2 * (2 * d_model) - 2 / (2 * d_model)
    return {**counts, "encoder": counts["encoder"] - layers * norms}


def count_tables_one_row_short(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Every vocabulary matrix counted with vocab_size - 1 rows (the family 'a table with
    the wrong number of rows', next to blind20d's vocab_size + 1)."""
    counts = ref.count_parameters(
        vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm
    )
    counts["embeddings"] -= d_model * (1 if tie_embeddings else 2)
    if not tie_embeddings:
        counts["output"] -= d_model
    return counts


def count_embedding_bias_d_model(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """Each embedding table given a bias of d_model numbers, as if it were nn.Linear."""
    counts = ref.count_parameters(
        vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm
    )
    counts["embeddings"] += d_model * (1 if tie_embeddings else 2)
    return counts


def count_w_q_without_bias(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """w_q counted as a weight alone, its bias left out (w_k, w_v and w_o keep theirs)."""
    counts = ref.count_parameters(
        vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm
    )
    counts["encoder"] -= num_layers * d_model
    counts["decoder"] -= num_layers * 2 * d_model
    return counts


# ================================================================== greedy_decode
def count_final_term_one(
    vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False
):
    """1 added once per stack where final_norm is False (mutant count_parameters-13)."""
    counts = ref.count_parameters(
        vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm
    )
    if not final_norm:
        counts["encoder"] += 1
        counts["decoder"] += 1
    return counts


def greedy_bos_never_chosen(model, src_ids, max_len, bos_id, eos_id):
    """The family 'the logits changed before the argmax' (blind20b suppressed <pad> and
    <bos> with -inf): <bos> pushed far down by subtracting a large number."""
    with torch.no_grad():
        memory = model.encode(src_ids)  # (batch, len_src, d_model)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)[:, -1].clone()  # (batch, vocab)
            logits[:, bos_id] -= 1e4  # "<bos> only ever starts a sentence"
            next_token = logits.argmax(-1).masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished |= next_token == eos_id
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_no_repeat_ban(model, src_ids, max_len, bos_id, eos_id):
    """The same family: every token a row has generated is banned (no_repeat_ngram_size=1)
    except <eos>, which ends the row."""
    with torch.no_grad():
        memory = model.encode(src_ids)  # (batch, len_src, d_model)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)[:, -1].clone()  # (batch, vocab)
            banned = torch.zeros_like(logits, dtype=torch.bool).scatter(1, tokens[:, 1:], True)
            banned[:, eos_id] = False
            next_token = logits.masked_fill(banned, float("-inf")).argmax(-1)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished |= next_token == eos_id
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_source_as_int_mask(model, src_ids, max_len, bos_id, eos_id):
    """The family 'decode handed something else than src_ids' (blind19c passed the bool
    mask): the mask as 0/1 integers, which decode compares with pad_id again."""
    src_mask = (src_ids != model.pad_id).long()  # (batch, len_src): 1 = a real token
    with torch.no_grad():
        memory = model.encode(src_ids)  # (batch, len_src, d_model)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            next_token = model.decode(tokens, memory, src_mask)[:, -1].argmax(-1)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished |= next_token == eos_id
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_padded_to_full_width(model, src_ids, max_len, bos_id, eos_id):
    """The family 'the logits read at the wrong position' (blind13a filled a preallocated
    buffer): the tokens so far padded to max_len + 1 columns before every decode, and the
    last column's logits read, a padded position."""
    with torch.no_grad():
        memory = model.encode(src_ids)  # (batch, len_src, d_model)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            width = max_len + 1 - tokens.shape[1]
            padded = F.pad(tokens, (0, width), value=model.pad_id)  # (batch, max_len + 1)
            next_token = model.decode(padded, memory, src_ids)[:, -1].argmax(-1)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished |= next_token == eos_id
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_memory_first(model, src_ids, max_len, bos_id, eos_id):
    """decode given the encoder's output first and the prefix second."""
    with torch.no_grad():
        enc_out = model.encode(src_ids)
        ys = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        for _ in range(max_len):
            best = model.decode(enc_out, ys, src_ids)[:, -1].argmax(-1)
            ys = torch.cat([ys, best[:, None]], dim=1)
    return ys[:, 1:]


def greedy_batch_reversed(model, src_ids, max_len, bos_id, eos_id):
    """The batch decoded in reverse order (the last sentence first) and never put back."""
    return greedy_decode_f(model, src_ids.flip(0), max_len, bos_id, eos_id)


def greedy_batch_axis_squeezed(model, src_ids, max_len, bos_id, eos_id):
    """The batch axis squeezed away at the end: a batch of one comes back 1-D."""
    return greedy_decode_f(model, src_ids, max_len, bos_id, eos_id).squeeze(0)


def greedy_finished_flags_start_true(model, src_ids, max_len, bos_id, eos_id):
    """The finished flags made with torch.ones: every row is padded from the first step."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.ones(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            best = model.decode(tokens, memory, src_ids)[:, -1].argmax(-1)
            best = best.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, best[:, None]], dim=1)
            finished = finished | (best == eos_id)
    return tokens[:, 1:]


def greedy_first_sentence_logits(model, src_ids, max_len, bos_id, eos_id):
    """The next token from scores[0], the first sentence's (steps, vocab) logits."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        done = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            scores = model.decode(tokens, memory, src_ids)
            chosen = scores[0].argmax(dim=-1)
            chosen = torch.where(done, model.pad_id, chosen)
            tokens = torch.cat([tokens, chosen[:, None]], dim=1)
            done = done | (chosen == eos_id)
    return tokens[:, 1:]


def greedy_starts_from_source_column(model, src_ids, max_len, bos_id, eos_id):
    """The target started from the source's first token (src_ids[:, [0]])."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = src_ids[:, [0]]
        done = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            chosen = model.decode(tokens, memory, src_ids)[:, -1].argmax(dim=-1)
            chosen = chosen.masked_fill(done, model.pad_id)
            tokens = torch.cat([tokens, chosen[:, None]], dim=1)
            done = done | (chosen == eos_id)
            if bool(done.all()):
                break
    return tokens[:, 1:]


def greedy_stop_test_before_update(model, src_ids, max_len, bos_id, eos_id):
    """The all-finished test made before the flags take the new token in: one step late."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        done = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            chosen = model.decode(tokens, memory, src_ids)[:, -1].argmax(dim=-1)
            chosen = chosen.masked_fill(done, model.pad_id)
            tokens = torch.cat([tokens, chosen[:, None]], dim=1)
            if bool(done.all()):
                break
            done = done | (chosen == eos_id)
    return tokens[:, 1:]


def greedy_log_softmax_over_rows(model, src_ids, max_len, bos_id, eos_id):
    """log_softmax over the rows (dim=0) of the last position's logits before the argmax."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        done = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            last = model.decode(tokens, memory, src_ids)[:, -1]
            chosen = F.log_softmax(last, dim=0).argmax(dim=-1).masked_fill(done, model.pad_id)
            tokens = torch.cat([tokens, chosen[:, None]], dim=1)
            done = done | (chosen == eos_id)
            if bool(done.all()):
                break
    return tokens[:, 1:]


def greedy_reencode(model, src_ids, max_len, bos_id, eos_id):
    """Runs the whole model (encoder included) at every step: slower, same result."""
    tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
    done = torch.zeros(src_ids.shape[0], dtype=torch.bool)
    with torch.no_grad():
        for _ in range(max_len):
            next_token = model(src_ids, tokens)[:, -1, :].argmax(-1)
            next_token = torch.where(done, torch.full_like(next_token, model.pad_id), next_token)
            tokens = torch.cat([tokens, next_token.unsqueeze(1)], 1)
            done |= next_token == eos_id
            if bool(done.all()):
                break
    return tokens[:, 1:]


def greedy_one_sentence_at_a_time(model, src_ids, max_len, bos_id, eos_id):
    """The Annotated Transformer's greedy_decode, once per sentence, then padded."""
    rows = []
    for src in src_ids:
        src = src.unsqueeze(0)
        memory = model.encode(src)
        ys = torch.full((1, 1), bos_id, dtype=src.dtype)
        for _ in range(max_len):
            prob = torch.softmax(model.decode(ys, memory, src)[:, -1], dim=-1)
            next_word = torch.max(prob, dim=1).indices
            ys = torch.cat([ys, next_word.view(1, 1)], dim=1)
            if next_word.item() == eos_id:
                break
        rows.append(ys[0, 1:].tolist())
    width = max(len(row) for row in rows)
    return torch.tensor([row + [model.pad_id] * (width - len(row)) for row in rows])


def greedy_preallocated(model, src_ids, max_len, bos_id, eos_id):
    """The output tensor allocated up front, filled with pad, cut at the last step."""
    batch = src_ids.shape[0]
    out = torch.full((batch, max_len), model.pad_id, dtype=torch.long)
    memory = model.encode(src_ids)
    prefix = torch.full((batch, 1), bos_id, dtype=torch.long)
    alive = torch.ones(batch, dtype=torch.bool)
    steps = 0
    for t in range(max_len):
        if not alive.any():
            break
        logits = model.decode(prefix, memory, src_ids)
        log_probs = torch.log_softmax(logits[:, -1], dim=-1)
        token = log_probs.argmax(-1)
        out[alive, t] = token[alive]
        prefix = torch.cat([prefix, out[:, t : t + 1]], dim=1)
        alive &= token != eos_id
        steps = t + 1
    return out[:, :steps].detach()


def greedy_python_lists(model, src_ids, max_len, bos_id, eos_id):
    """Tokens collected step by step in a list, stacked at the end; model.eval() called."""
    model.eval()
    memory = model.encode(src_ids)
    generated = []
    finished = [False] * len(src_ids)
    for _ in range(max_len):
        prefix = torch.stack(
            [torch.full((len(src_ids),), bos_id, dtype=torch.long), *generated], dim=1
        )
        best = model.decode(prefix, memory, src_ids)[:, -1].argmax(dim=-1).tolist()
        step = [model.pad_id if done else token for token, done in zip(best, finished)]
        finished = [done or token == eos_id for token, done in zip(step, finished)]
        generated.append(torch.tensor(step))
        if all(finished):
            break
    return torch.stack(generated, dim=1)


def _greedy_mistake(**knobs):
    def greedy(model, src_ids, max_len, bos_id, eos_id):
        return greedy_decode_f(model, src_ids, max_len, bos_id, eos_id, **knobs)

    greedy.__name__ = "greedy_" + "_".join(f"{k}_{v}" for k, v in knobs.items())
    return greedy


def greedy_one_step_more(model, src_ids, max_len, bos_id, eos_id):
    return greedy_decode_f(model, src_ids, max_len, bos_id, eos_id, steps=max_len + 1)


def greedy_sampling(model, src_ids, max_len, bos_id, eos_id):
    """blind10j: each next token drawn with torch.multinomial from the softmax (told only
    the first step that departs before)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)[:, -1]
            nxt = torch.multinomial(torch.softmax(logits, dim=-1), 1)[:, 0]
            nxt = nxt.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, nxt[:, None]], dim=1)
            finished |= nxt == eos_id
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_wipes_finished_rows(model, src_ids, max_len, bos_id, eos_id):
    """blind10j: a finished row padded as a whole (tokens[finished] = pad_id), which erases
    what it generated (told "row 0 has not produced <eos>" before)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            nxt = model.decode(tokens, memory, src_ids)[:, -1].argmax(dim=-1)
            nxt = nxt.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, nxt[:, None]], dim=1)
            finished |= nxt == eos_id
            tokens[finished] = model.pad_id
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_token_kept_as_a_column(model, src_ids, max_len, bos_id, eos_id):
    """max(dim=-1, keepdim=True): a (batch, 1) token meets the (batch,) flags in
    torch.where and broadcasts to (batch, batch)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        done = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            best = model.decode(tokens, memory, src_ids)[:, -1].max(dim=-1, keepdim=True)
            step = torch.where(done, model.pad_id, best.indices)  # (batch, batch)
            tokens = torch.cat([tokens, step], dim=1)
            done = done | (step[:, -1] == eos_id)
            if done.all():
                break
    return tokens[:, 1:]


def greedy_one_step_less(model, src_ids, max_len, bos_id, eos_id):
    return greedy_decode_f(model, src_ids, max_len, bos_id, eos_id, steps=max_len - 1)


_TOKENS_BY_SOURCE: dict = {}


def greedy_cached_by_source(model, src_ids, max_len, bos_id, eos_id):
    """Round 32: the tokens kept in a dict keyed by the source ids' values (state kept
    across calls): the same source with another model returns the old tokens."""
    key = (tuple(src_ids.flatten().tolist()), max_len)
    if key not in _TOKENS_BY_SOURCE:
        _TOKENS_BY_SOURCE[key] = greedy_decode_f(model, src_ids, max_len, bos_id, eos_id)
    return _TOKENS_BY_SOURCE[key].clone()


def greedy_memory_kept_on_the_model(model, src_ids, max_len, bos_id, eos_id):
    """The memory kept on the model after its first call (a cached attribute): a second
    call with another source decodes the first one's memory."""
    if not hasattr(model, "_cached_memory"):
        model._cached_memory = model.encode(src_ids)
    return greedy_decode_f(
        _MemoryFixed(model, model._cached_memory), src_ids, max_len, bos_id, eos_id
    )


class _MemoryFixed:
    """A model whose encode returns one memory whatever the source."""

    def __init__(self, model, memory):
        self.model, self.memory = model, memory

    def encode(self, src_ids):
        return self.memory

    def __getattr__(self, name):
        return getattr(self.model, name)


def _greedy_variant(
    *,
    start=None,
    softmax_positions=False,
    stop_on_any=False,
    position=-1,
    break_first=False,
    update="or",
    cut_last=False,
    stop_test=None,
):
    """The reference loop with one decision changed (no knob of greedy_decode_f);
    ``break_first``: the stop test before the step's column is appended; ``stop_test``:
    another stop test, given ``finished`` and the step's tokens."""

    def greedy(model, src_ids, max_len, bos_id, eos_id):
        with torch.no_grad():
            memory = model.encode(src_ids)
            batch = src_ids.shape[0]
            first = {"pad": model.pad_id, "eos": eos_id, "zeros": 0}.get(start, bos_id)
            rows = src_ids.shape[1] if start == "len_src_rows" else batch
            tokens = torch.full((rows, 2 if start == "two" else 1), first, dtype=torch.long)
            finished = torch.zeros(batch, dtype=torch.bool)
            for _ in range(max_len):
                logits = model.decode(tokens, memory, src_ids)
                if softmax_positions:
                    logits = torch.softmax(logits, dim=1)
                token = logits[:, position].argmax(-1).masked_fill(finished, model.pad_id)
                if not break_first:
                    tokens = torch.cat([tokens, token[:, None]], dim=1)
                if update == "or":
                    finished = finished | (token == eos_id)
                elif update == "and":  # blind12a: stays False
                    finished = finished & (token == eos_id)
                if stop_test is not None:
                    if stop_test(finished, token):
                        break
                elif finished.any() if stop_on_any else finished.all():
                    break
                if break_first:
                    tokens = torch.cat([tokens, token[:, None]], dim=1)
        # cut_last: "at most max_len tokens" sliced off a tensor that has <bos> in front
        return tokens[:, 1:max_len] if cut_last else tokens[:, 1:]

    return greedy


def greedy_tensor_of_step_tensors(model, src_ids, max_len, bos_id, eos_id):
    """The steps' (batch,) tensors joined with torch.tensor (blind12a: a raw TypeError)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        generated = []
        for _ in range(max_len):
            next_token = model.decode(tokens, memory, src_ids)[:, -1].argmax(-1)
            generated.append(next_token)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
    return torch.tensor(generated).T


def greedy_long_tensor_of_rows(model, src_ids, max_len, bos_id, eos_id):
    """The same family, in no case: the rows (tensors) joined with torch.LongTensor."""
    out = ref.greedy_decode(model, src_ids, max_len, bos_id, eos_id)
    return torch.LongTensor([row for row in out])


def greedy_appends_a_row(model, src_ids, max_len, bos_id, eos_id):
    """The new tokens appended as a (1, batch) row (blind10a: the raw torch.cat error)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        for _ in range(max_len):
            next_token = model.decode(tokens, memory, src_ids)[:, -1].argmax(-1)
            tokens = torch.cat([tokens, next_token[None]], dim=1)
    return tokens[:, 1:]


def greedy_drops_the_first_row(model, src_ids, max_len, bos_id, eos_id):
    """tokens[1:] where tokens[:, 1:] belongs (blind10a: told only the shapes)."""
    tokens = ref.greedy_decode(model, src_ids, max_len, bos_id, eos_id)
    return torch.cat([torch.full((src_ids.shape[0], 1), bos_id), tokens], dim=1)[1:]


def greedy_finished_from_last_token(model, src_ids, max_len, bos_id, eos_id):
    """Rows taken for finished only while their last token is <eos> (b10a's probe: told the
    rows interfere, which they do not)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        for _ in range(max_len):
            next_token = model.decode(tokens, memory, src_ids)[:, -1].argmax(-1)
            next_token = next_token.masked_fill(tokens[:, -1] == eos_id, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            if (tokens == eos_id).any(dim=1).all():
                break
    return tokens[:, 1:]


def greedy_returns_list(model, src_ids, max_len, bos_id, eos_id):
    return ref.greedy_decode(model, src_ids, max_len, bos_id, eos_id).tolist()


def greedy_int32(model, src_ids, max_len, bos_id, eos_id):
    return ref.greedy_decode(model, src_ids, max_len, bos_id, eos_id).int()


def greedy_float(model, src_ids, max_len, bos_id, eos_id):
    return ref.greedy_decode(model, src_ids, max_len, bos_id, eos_id).float()


def greedy_float_bos(model, src_ids, max_len, bos_id, eos_id):
    """The <bos> column built without a dtype: float ids reach the embedding (blind4c)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), float(bos_id))
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)
            tokens = torch.cat([tokens, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    return tokens[:, 1:]


def _greedy_squeezing(squeeze):
    """greedy_decode with the decoder's logits passed through ``squeeze`` before
    logits[:, -1]: a size-1 axis lost at the first step (len 1) or for a batch of one."""

    def greedy(model, src_ids, max_len, bos_id, eos_id):
        with torch.no_grad():
            memory = model.encode(src_ids)
            batch = src_ids.shape[0]
            tokens = torch.full((batch, 1), bos_id, dtype=torch.long)
            finished = torch.zeros(batch, dtype=torch.bool)
            for _ in range(max_len):
                logits = squeeze(model.decode(tokens, memory, src_ids))
                next_token = logits[:, -1].argmax(dim=-1).expand(batch)
                next_token = next_token.masked_fill(finished, model.pad_id)
                tokens = torch.cat([tokens, next_token[:, None]], dim=1)
                finished = finished | (next_token == eos_id)
                if finished.all():
                    break
        return tokens[:, 1:]

    return greedy


def greedy_max_values(model, src_ids, max_len, bos_id, eos_id):
    """torch.max's (values, indices) unpacked the wrong way round: the largest logit is
    appended as the token (blind8a): float ids reach the embedding at step 2."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        for _ in range(max_len):
            next_token, _ = model.decode(tokens, memory, src_ids)[:, -1].max(dim=-1)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
    return tokens[:, 1:]


def greedy_argmax_without_dim(model, src_ids, max_len, bos_id, eos_id):
    """argmax() without dim (blind9a): one flattened index for the whole batch, past the
    vocabulary once a later row holds the maximum (the message blamed the embeddings)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            step = model.decode(tokens, memory, src_ids)[:, -1].argmax()
            step = step.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, step[:, None]], dim=1)
            finished = finished | (step == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_argmax_over_batch(model, src_ids, max_len, bos_id, eos_id):
    """argmax(dim=-2) of logits[:, -1]: one token per vocabulary entry (mutant
    greedy_decode-9 of round 8 was told how model.decode's sizes must agree)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            next_token = model.decode(tokens, memory, src_ids)[:, -1].argmax(dim=-2)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished = finished | (next_token == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_finished_inverted(model, src_ids, max_len, bos_id, eos_id):
    """finished | (next != eos): every row that did NOT write <eos> counts as finished, so
    the loop stops after one right step (mutant greedy_decode-7)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            next_token = model.decode(tokens, memory, src_ids)[:, -1].argmax(dim=-1)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished = finished | (next_token != eos_id)
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_switches_to_train(model, src_ids, max_len, bos_id, eos_id):
    model.train()
    return ref.greedy_decode(model, src_ids, max_len, bos_id, eos_id)


def greedy_first_sentence_only(model, src_ids, max_len, bos_id, eos_id):
    return ref.greedy_decode(model, src_ids[:1], max_len, bos_id, eos_id)[0]


def greedy_tokens_as_source(model, src_ids, max_len, bos_id, eos_id):
    """Blind round 4: the generated tokens passed as decode's third argument (src_ids)."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            step = model.decode(tokens, memory, tokens)[:, -1].argmax(-1)
            step = step.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, step[:, None]], dim=1)
            finished = finished | (step == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_row_0_for_every_row(model, src_ids, max_len, bos_id, eos_id):
    """Blind round 6: the batch-of-one habit (next_word.data[0]): row 0's argmax is
    appended to every row."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        batch = src_ids.shape[0]
        tokens = torch.full((batch, 1), bos_id, dtype=torch.long)
        finished = torch.zeros(batch, dtype=torch.bool)
        for _ in range(max_len):
            best = model.decode(tokens, memory, src_ids)[:, -1].argmax(-1)
            step = torch.full((batch,), best[0].item(), dtype=torch.long)
            step = step.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, step[:, None]], dim=1)
            finished = finished | (step == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_memory_of(sentence: int):
    """Every row decoded from one sentence's memory and source ids."""

    def greedy_decode(model, src_ids, max_len, bos_id, eos_id):
        return _greedy_from_one_sentence(model, src_ids, max_len, bos_id, eos_id, sentence)

    greedy_decode.__name__ = f"greedy_memory_of_sentence_{sentence}"
    return greedy_decode


def _greedy_from_one_sentence(model, src_ids, max_len, bos_id, eos_id, sentence):
    with torch.no_grad():
        batch = src_ids.shape[0]
        one = src_ids[sentence:][:1].expand(batch, -1)
        memory = model.encode(one)
        tokens = torch.full((batch, 1), bos_id, dtype=torch.long)
        finished = torch.zeros(batch, dtype=torch.bool)
        for _ in range(max_len):
            step = model.decode(tokens, memory, one)[:, -1].argmax(-1)
            step = step.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, step[:, None]], dim=1)
            finished = finished | (step == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]


def greedy_stacked_steps_first(model, src_ids, max_len, bos_id, eos_id):
    """Blind round 6: the per-step tokens stacked with torch.stack's default dim=0."""
    return ref.greedy_decode(model, src_ids, max_len, bos_id, eos_id).T


# ================================================================== the lists
MISTAKES = [
    Mistake(
        check_Transformer,
        TLogitsWithoutBias,
        r"y @ self\.output\.weight\.T reproduces decode's logits exactly.*self\.output\.bias "
        r"is never used",
    ),
    Mistake(
        check_Transformer,
        TLogitsFromTargetTableNoBias,
        r"y @ self\.tgt_embedding\.embedding\.weight\.T reproduces .*self\.output\.weight "
        r"and self\.output\.bias are never used.*tie_embeddings=False",
    ),
    Mistake(
        check_Transformer,
        TDecoderStackFromEncoderClass,
        r"missing: \['decoder\.layers\.0\.cross_attn.*Your decoder's layers have no "
        r"cross-attention .* built from the encoder's classes",
    ),
    Mistake(
        check_Transformer,
        TTiesWhenSizesEqual,
        r"tie_embeddings=False, but src_embedding and tgt_embedding share one table",
    ),
    Mistake(
        check_greedy_decode,
        greedy_wipes_finished_rows,
        r"your loop fed the decoder .* tokens were overwritten after they were generated",
    ),
    Mistake(
        check_greedy_decode,
        greedy_token_kept_as_a_column,
        r"each step appended a \(batch, batch\) tensor.*keepdim=True",
    ),
    Mistake(
        check_count_parameters,
        count_output_weight_in_embeddings,
        r"Your total is right on every configuration checked, but .*'embeddings' has too many, "
        r"'output' too few\. The difference is vocab_size x d_model, the output layer's weight",
    ),
    Mistake(
        check_count_parameters,
        count_decoder_norms_in_encoder,
        r"Your total is right .*'encoder' has too many, 'decoder' too few\. The amount moved "
        r"is, on every configuration checked, exactly the LayerNorms of the decoder's layers "
        r"\(num_layers x 3 x 2 \* d_model\): it is counted under 'encoder' but belongs to "
        r"'decoder'",
    ),
    # round 29 (blind26b): a part filed under another key, named from its size on every
    # configuration and on nearby ones (the final LayerNorm: only with final_norm=True)
    Mistake(
        check_count_parameters,
        count_encoder_final_norm_under_embeddings,
        r"exactly the encoder's final LayerNorm \(2 \* d_model, only with final_norm=True\): "
        r"it is counted under 'embeddings' but belongs to 'encoder'",
    ),
    Mistake(
        check_count_parameters,
        count_output_bias_under_decoder,
        r"exactly the output layer's bias \(vocab_size\): it is counted under 'decoder' but "
        r"belongs to 'output'",
    ),
    # round 29 (blind26b): the stop test holds at the first step, told apart from an
    # inverted finished test by the same call with eos_id set to one row's first token
    Mistake(
        check_greedy_decode,
        _greedy_stop_slip("break_outside"),
        r"stops after the first step too, although some rows are still open\. Your loop's "
        r"stop test holds whatever the rows",
    ),
    Mistake(
        check_greedy_decode,
        _greedy_stop_slip("inverted"),
        r"yours goes on past the first step: the rows that produced <eos> kept the loop open\. "
        r"Your finished test is inverted",
    ),
    Mistake(
        check_greedy_decode,
        greedy_sampling,
        r"Two more calls on the same inputs gave other tokens: your decoding draws at random",
    ),
    Mistake(check_Transformer, TUnscaled, r"not multiplied by sqrt\(d_model\)"),
    Mistake(
        check_Transformer,
        TLogitsOfFirstRow,
        r"(hold the expected values of row 0|are copies of index 0's right result).*their "
        r"padding or mask",
    ),
    Mistake(check_Transformer, TEncodeNormalisedAgain, r"reference's normalised once more"),
    Mistake(check_Transformer, TEncodeThroughReLU, r"reference's passed through a ReLU"),
    Mistake(
        check_Transformer,
        TStatesOfFirstRow,
        r"(hold the expected values of row 0|are copies of index 0's right result).*their "
        r"padding or mask",
    ),
    # round 25 (blind24b): the input taken apart as a·E + b·P
    Mistake(
        check_Transformer,
        TTargetScaledAfterPositions,
        r"decode handed the decoder other target vectors.*Taken apart as a·E \+ b·P.*yours "
        r"is (2\.828 \(sqrt\(8\)\)|4)·E \+ (2\.828 \(sqrt\(8\)\)|4)·P.*the positional "
        r"encoding is scaled by sqrt\(d_model\) as well",
    ),
    Mistake(
        check_Transformer,
        TSourceMaskUnsqueezedLast,
        r"^(?![\s\S]*look-ahead)[\s\S]*pads sit on the query axis",
    ),
    Mistake(
        check_greedy_decode,
        greedy_padded_to_full_width,
        r"you take logits\[:, -1\], the buffer's LAST slot, a padded position",
    ),
    Mistake(
        check_greedy_decode,
        greedy_source_as_int_mask,
        r"Your function hands model\.decode a third argument of shape \(\d+, \d+\) and dtype "
        r"torch\.int64 that is not src_ids",
    ),
    Mistake(
        check_Transformer,
        TSourceMaskSizedByBatch,
        r"The error meets \d+, the batch size \(ids\.shape\[0\]\), and \d+, (len_src "
        r"\(src_ids\.shape\[1\]\)|the length of both sequences .*): something was sized by "
        r"the batch axis where the length belongs, such as (a mask built from src_ids\.shape"
        r"\[0\]|.*a padding mask of src_ids\.shape\[0\] columns)",
    ),
    Mistake(
        check_Transformer,
        TDecoderOutputScaledUp,
        r"with the decoder's output multiplied by sqrt\(d_model\) before the output layer",
    ),
    Mistake(
        check_Transformer,
        TLogitsHalved,
        r"Your logits are the reference's multiplied by 0\.5, bias included",
    ),
    Mistake(
        check_greedy_decode,
        greedy_bos_never_chosen,
        r"the only tokens ranked above yours are <pad> \(\d+\) or <bos> \(\d+\): your argmax "
        r"leaves them out",
    ),
    Mistake(
        check_greedy_decode,
        greedy_no_repeat_ban,
        r"the only tokens ranked above yours are tokens the row had already generated.*a "
        r"repetition penalty, or a ban on repeated tokens",
    ),
    Mistake(
        check_Transformer,
        TSourceMaskKeptFromTheFirstCall,
        r"a second batch of the same shape .* is wrong after the model has run on the first "
        r"batch, and right when a freshly built model gets it first: your model keeps "
        r"something from an earlier call",
    ),
    Mistake(
        check_count_parameters,
        count_tables_one_row_short,
        r"every vocabulary matrix with vocab_size - 1 rows, one row short",
    ),
    Mistake(
        check_count_parameters,
        count_embedding_bias_d_model,
        r"each embedding table a bias of d_model numbers, as if nn\.Embedding were an nn\.Linear",
    ),
    Mistake(
        check_count_parameters,
        count_w_q_without_bias,
        r"three biases of d_model numbers per attention .*counted as its weight alone",
    ),
    # the learner's own ValueError, raw, before
    Mistake(
        check_Transformer,
        TTieDefaultTrue,
        r"raised ValueError on a valid call .*default of tie_embeddings in your __init__ is True",
    ),
    Mistake(
        check_Transformer,
        TTieTestInverted,
        r"raised ValueError on a valid call .*refuses equal vocabulary sizes",
    ),
    Mistake(
        check_count_parameters,
        count_final_norm_in_every_layer,
        r"counted the final LayerNorm once per layer",
    ),
    Mistake(
        check_count_parameters,
        count_final_norm_doubled,
        r"added the final LayerNorms of both stacks .* to each stack's count",
    ),
    Mistake(
        check_count_parameters,
        count_two_attention_biases,
        r"counted two biases of d_model numbers per attention instead of four",
    ),
    Mistake(check_count_parameters, count_one_layer_too_many, r"counts num_layers \+ 1 layers"),
    Mistake(check_greedy_decode, greedy_memory_first, r"memory and the tokens are swapped"),
    # round 33's family 'the batch reordered and not put back': each row another sentence's
    # translation, which "the rows interfere" does not describe
    Mistake(
        check_greedy_decode,
        greedy_batch_reversed,
        r"rows are the right ones in another order \(row 0 holds row [23]'s.*not put "
        r"back[^:]*: undo the sort[^:]*$",
    ),
    Mistake(
        check_greedy_decode,
        greedy_log_softmax_over_rows,
        r"Your softmax runs over the batch \(dim=0 of the last position's",
    ),
    Mistake(
        check_greedy_decode,
        greedy_stop_test_before_update,
        r"Your extra column is all pad_id: .* saw it one step late",
    ),
    Mistake(
        check_greedy_decode,
        greedy_starts_from_source_column,
        r"they are the source's first column, src_ids\[:, :1\]",
    ),
    Mistake(
        check_greedy_decode,
        greedy_first_sentence_logits,
        r"`chosen` has 2 entries, one per position .* such as scores\[-1\] .* or scores\[0\]",
    ),
    Mistake(
        check_greedy_decode,
        greedy_finished_flags_start_true,
        r"unfinished rows get pad_id\. Either the padding's condition is inverted .* or the "
        r"finished flags start True",
    ),
    Mistake(
        check_greedy_decode,
        greedy_batch_axis_squeezed,
        r"Your tokens are the expected ones\. That is the expected shape with its axis 0 of "
        r"length 1 dropped",
        hidden_only=True,
    ),
    Mistake(check_Transformer, TNumLayersDefault, r"your default for num_layers is not 6"),
    Mistake(
        check_Transformer, TForwardMaxIndices, r"of int64: token ids, .* instead of the logits"
    ),
    Mistake(
        check_Transformer,
        TForwardDropsFirstPosition,
        r"Yours has len_tgt - 1 = \d+ positions: one target position is dropped",
    ),
    Mistake(
        check_Transformer,
        TLayersAndDffSwapped,
        r"yours have \d+, which is d_ff in this call: d_ff went where num_layers belongs",
    ),
    Mistake(
        check_Transformer,
        TModelAndHeadsSwapped,
        r"built with d_model = \d+, not this call's d_model = \d+\. \d+ is num_heads",
    ),
    Mistake(check_Transformer, TPadIdDefault, r"your default for pad_id is not 0"),
    Mistake(check_Transformer, TDffDefault, r"your default for d_ff is not 2048"),
    Mistake(check_Transformer, TScaledTwice, r"sqrt\(d_model\) twice"),
    Mistake(check_Transformer, TPlainEmbedding, r"plain nn\.Embedding.*TokenEmbedding"),
    Mistake(check_Transformer, TNoPositions, r"source gets no positional encoding"),
    Mistake(check_Transformer, TPositionsTwice, r"positional encoding is added twice"),
    Mistake(check_Transformer, TNoTargetPositions, r"target gets no positional encoding"),
    Mistake(check_Transformer, TAddsTableWithoutDropout, r"there is no dropout on it"),
    Mistake(check_Transformer, TPositionalEncodingWithoutDropout, r"there is no dropout on it"),
    Mistake(check_Transformer, TDropoutBeforePositions, r"positions survived the dropout"),
    Mistake(check_Transformer, TDropoutAlwaysOn, r"something random is still active"),
    Mistake(check_Transformer, TDropoutOnDecoderOutput, r"something random is still active"),
    Mistake(
        check_Transformer,
        TOutputFromVocabulary,
        r"so output must be nn\.Linear\(\d+, \d+\); yours is",
    ),
    Mistake(check_Transformer, TDecodeMemoryFirst, r"Your decode takes memory first"),
    Mistake(check_Transformer, TTiedByCopy, r"they were copied .* rather than shared"),
    Mistake(
        check_Transformer,
        TSrcEmbeddingForTarget,
        r"(?s)target ids were looked up in the "
        r"source's table|index out of range.*target ids through tgt_embedding",
    ),
    Mistake(check_Transformer, TNoSourceMask, r"encoder runs without the source padding mask"),
    Mistake(
        check_Transformer,
        TEncoderMaskFromEmbeddedVectors,
        r"without the source padding mask, or with one that allows every position",
    ),
    # was "differs from the reference" (blind8a-tr-padding-mask-true-blocks)
    Mistake(check_Transformer, TMaskPartsJoinedByOr, r"with \| \(either one allows\)"),
    Mistake(check_Transformer, TInvertedSourceMask, r"encoder's source padding mask is inverted"),
    Mistake(check_Transformer, TInvertedCrossMask, r"cross-attention's source padding mask is inv"),
    Mistake(check_Transformer, TInvertedDecoderMasks, r"Both decoder masks are inverted"),
    Mistake(
        check_Transformer,
        TSourceMaskToSelfAttention,
        r"self-attention got the source padding mask",
    ),
    Mistake(check_Transformer, TSelfMaskFromSource, r"self-attention mask was built from src_ids"),
    Mistake(check_Transformer, TNoLookAhead, r"no look-ahead mask"),
    Mistake(
        check_Transformer,
        TLookAheadTwoAhead,
        r"every position sees the next 2 tokens after it as well as the past\. The look-ahead "
        r"part of your mask is 2 diagonal\(s\) too wide",
    ),
    # the look-ahead part alone inverted: a probe of the first token tells it from a
    # missing mask (blind14a: told the look-ahead mask was needed)
    Mistake(
        check_Transformer,
        TLookAheadTransposed,
        r"changing the FIRST one left the logits of every later position unchanged: position "
        r"t sees the tokens after it, never those before it\. The look-ahead part of your "
        r"mask is inverted",
    ),
    Mistake(check_Transformer, TDropoutTwice, r"dropout ran twice on that sum"),
    Mistake(check_Transformer, TTwoPositionalEncodings, r"You built a second positional encoding"),
    Mistake(
        check_Transformer,
        TTiedToTransposeMethod,
        r"output layer was given the TRANSPOSE of the shared \(\d+, \d+\) Parameter.*No "
        r"transpose is needed",
    ),
    Mistake(
        check_Transformer,
        TTiedToClone,
        r"output layer was given a plain tensor where a Parameter belongs: a tensor computed "
        r"from the shared one",
    ),
    Mistake(
        check_Transformer,
        TPositionalLengthFixed,
        r"positional table positional_encoding\.pe has shape \(1, 512, \d+\), 512 positions, but "
        r"the model was given max_len=32: max_len was not passed on",
    ),
    Mistake(
        check_Transformer,
        TPositionalDefaultLength,
        r"5000 positions, but the model was given max_len=32: 5000 is PositionalEncoding's "
        r"default max_len",
    ),
    Mistake(check_Transformer, TNoTargetPadding, r"ignores the target's padding"),
    Mistake(check_Transformer, TTargetPaddingOnQueryAxis, r"padding part on the QUERY axis"),
    Mistake(check_Transformer, TDecodeEncodesAgain, r"computed again inside decode"),
    Mistake(
        check_Transformer,
        TPositionsOnMemory,
        r"handed the decoder another memory than the one decode was given, with the "
        r"positional encoding added to it \(self\.positional_encoding\(memory\)\)",
    ),
    Mistake(
        check_Transformer,
        TForwardShiftsWithPad,
        r"forward shifts the target before decoding it, one step to the right with a pad in "
        r"front",
    ),
    Mistake(
        check_Transformer,
        TMemoryScaledLikeEmbeddings,
        r"another memory than the one decode was given, multiplied by sqrt\(d_model\)",
    ),
    Mistake(check_Transformer, TForwardTargetAsSource, r"forward passes tgt_ids as decode's third"),
    Mistake(check_Transformer, TCausalEncoder, r"encode handed the encoder a mask that is not"),
    Mistake(check_Transformer, TEncoderInputDoubled, r"other source vectors .*\(yours are 2 times"),
    Mistake(
        check_Transformer,
        TCrossMaskPadZero,
        r"cross-attention's mask treats id 0 as <pad> \(src_ids != 0\).*pad_id is \d",
    ),
    Mistake(check_Transformer, TDecodeUsesStoredMemory, r"kept from the last encode call"),
    Mistake(check_Transformer, TTiedByNewParameter, r"wrapping the matrix in a new Parameter"),
    Mistake(
        check_Transformer,
        TSourceMaskOneAxis,
        r"raise when the source padding mask is \(batch, 1, len\), one new axis where two",
    ),
    Mistake(check_Transformer, TTiedThroughData, r"different Parameter objects over one storage"),
    Mistake(check_Transformer, TMasksSwapped, r"two decoder masks are swapped"),
    Mistake(check_Transformer, TTargetMaskToCross, r"cross-attention got the target mask"),
    Mistake(check_Transformer, TNoCrossMask, r"cross-attention ignores the padding"),
    Mistake(
        check_Transformer,
        TCrossMaskFromNonZeroMemory,
        r"cross-attention's mask is built from memory, not from src_ids",
    ),
    Mistake(
        check_Transformer,
        TCrossMaskFromSourceEmbeddings,
        r"no mask reaches it, or one that allows every position",
    ),
    Mistake(check_Transformer, TMemoryAsQueries, r"memory first and the target second"),
    Mistake(check_Transformer, TIgnoresMemory, r"do not depend on `memory`"),
    Mistake(check_Transformer, TZeroMemory, r"do not depend on `memory`"),
    Mistake(check_Transformer, TPadZero, r"treat id 0 as <pad>.*self\.pad_id"),
    Mistake(
        check_Transformer,
        TEncoderOnTarget,
        r"(?s)ran the encoder on the target|"
        r"index out of range.*encoder reads the\s+source",
    ),
    Mistake(
        check_Transformer,
        TSharedEmbeddings,
        r"source vocabulary's shape.*the source's module "
        r"itself, shared|share one\s+table",
    ),
    # blind8a: an output layer sized with src_vocab_size was asked only whether the
    # source's module was shared
    Mistake(
        check_Transformer,
        TOutputSourceVocabulary,
        r"output\.weight has the source vocabulary's shape.*built with src_vocab_size",
    ),
    Mistake(check_Transformer, TTieIgnored, r"tie_embeddings is ignored"),
    Mistake(
        check_Transformer,
        TTieOutputOnly,
        r"only some of the three matrices are shared \(src_embedding is not shared: it keeps its "
        r"own matrix\)",
    ),
    Mistake(
        check_Transformer,
        TTieEmbeddingsNotOutput,
        r"only some of the three matrices are shared \(output is not shared: it keeps its own "
        r"matrix\)",
    ),
    Mistake(
        check_Transformer,
        TCrossMaskFromTarget,
        r"(?s)^(?!.*LAST target token).*cross-attention's mask is the padding mask of tgt_ids",
    ),
    Mistake(check_Transformer, TTieWithoutVocabularyCheck, r"built without complaint.*ValueError"),
    Mistake(check_Transformer, TSoftmax, r"returns probabilities"),
    Mistake(check_Transformer, TAnnotatedGenerator, r"Annotated Transformer's Generator.*logits"),
    Mistake(check_Transformer, TSoftmaxOverPositions, r"softmax over the positions"),
    Mistake(check_Transformer, TNoOutputLayer, r"decoder's output: apply the output layer"),
    Mistake(check_Transformer, TOutputWithoutBias, r"missing: \['output\.bias'\].*with its bias"),
    Mistake(
        check_Transformer,
        TFinalNormIgnored,
        r"lack their final LayerNorm|final LayerNorm this configuration must not have",
    ),
    Mistake(
        check_Transformer,
        TNormFirstIgnored,
        r"post-LN where this model asked for pre-LN|"
        r"pre-LN where this model asked for post-LN",
    ),
    Mistake(check_Transformer, TReturnsMemoryToo, r"should be a Tensor, but it is a tuple"),
    Mistake(check_Transformer, TNoGradForward, r"cut off from the model's parameters"),
    # the family 'a right result cut off from the parameters', named for each method
    Mistake(
        check_Transformer,
        TEncodeDetached,
        r"model\.encode\(src_ids \(\d+, \d+\)\) gives the right values, but they are cut off "
        r".*\.detach\(\) or torch\.no_grad\(\) in encode",
    ),
    Mistake(
        check_Transformer,
        TDecodeNoGrad,
        r"model\.decode\(.*gives the right values, but they are cut off .* in decode",
    ),
    Mistake(check_Transformer, TStubbedEncode, r"not implemented yet"),
    # blind12a: told only "follow the figure"
    Mistake(
        check_Transformer,
        TForwardMemoryEmbedded,
        r"forward hands decode the encoder's INPUT as memory, the embedded source",
    ),
    Mistake(
        check_Transformer,
        TForwardMemoryEmbeddingsOnly,
        r"forward hands decode the encoder's INPUT as memory, the source embeddings",
    ),
    # count_parameters
    *[
        Mistake(check_count_parameters, _count_mistake(**knobs), re.escape(message[:60]))
        for knobs, message in checks.COUNT_MISTAKES
    ],
    Mistake(check_count_parameters, count_total_only, r"returned a int.*single number"),
    # round 25 (blind24b): two count mistakes made together are named together
    Mistake(
        check_count_parameters,
        count_ffn_unbiased_and_norms_halved,
        r"Two mistakes made together give exactly your counts.*\(a\) You left out the "
        r"feed-forward network's biases.*\(b\) Each LayerNorm has TWO vectors",
    ),
    # blind16a: a bias sized by the wrong width outside the feed-forward was told the
    # restated rule ('output') or a breakdown of the layer ('encoder')
    Mistake(
        check_count_parameters,
        _count_by_hand(attention_bias="d_head"),
        r"each attention projection's bias as d_head numbers",
    ),
    Mistake(
        check_count_parameters,
        _count_by_hand(output_bias="d_model"),
        r"output layer's bias as d_model numbers: nn\.Linear\(d_model, vocab_size\)",
    ),
    # tied, the shared matrix under 'output': named (the keys alone, before)
    Mistake(
        check_count_parameters,
        count_tied_table_with_the_output,
        r"on tied configurations only: the shared matrix is counted under 'output' \(as the "
        r"output layer's weight\) instead of under 'embeddings'",
    ),
    # each wrong entry explained on its own (blind11a): was the restated rule for 'output'
    Mistake(
        check_count_parameters,
        count_tied_output_weight,
        r"In 'output': With tie_embeddings=True the matrix is ONE parameter, shared: count "
        r"it once",
    ),
    Mistake(
        check_count_parameters,
        count_encoder_norm_and_output_bias,
        r"In 'encoder': Your encoder layer counts 1 LayerNorm, one fewer(?!.*subtracted).*"
        r"In 'output': Untied, you left out the output layer's bias",
    ),
    Mistake(
        check_count_parameters,
        count_two_entry_mistakes,
        r"In 'encoder': You left out the attention's biases.*In 'decoder': You left out the "
        r"attention's biases.*In 'output': Untied, you left out the output layer's bias",
    ),
    # mutant count_parameters-13 (final = ... else 1): told "1 more ... in the layer"
    Mistake(
        check_count_parameters,
        count_final_term_one,
        r"With final_norm=False, yours is 1 more .* counted once per stack, not per layer",
    ),
    Mistake(check_count_parameters, count_with_total, r"expected exactly"),
    Mistake(check_count_parameters, count_per_head_width, r"multiplied the attention's matrices"),
    Mistake(
        check_count_parameters,
        count_norms_divided,
        r"is [\d.]+: a number of parameters is a whole number\. .*a / where \* belongs",
    ),
    # was the restated rule "... or one shared table when tied" (blind8a)
    Mistake(
        check_count_parameters,
        count_positional_table,
        r"Yours is 512 x d_model more .*If it is a positional table",
    ),
    Mistake(
        check_count_parameters,
        count_w1_bias_d_model,
        r"You counted w_1's bias as d_model numbers \(like w_2's\)\. An nn\.Linear\(n_in, "
        r"n_out\) has a bias of n_out numbers",
    ),
    Mistake(
        check_count_parameters,
        count_three_decoder_attentions,
        r"Your decoder layer counts 3 attentions, one more than it has",
    ),
    Mistake(
        check_count_parameters,
        count_decoder_without_ffn,
        r"[\d,]+ fewer than the reference[^.]*\. On every configuration checked the "
        r"difference is exactly one feed-forward per layer",
    ),
    Mistake(
        check_count_parameters,
        count_no_attention_bias_when_one_layer,
        r"\['encoder'\] returned [\d,]+, expected [\d,]+\. (?!.*You left out).*Yours is "
        r"[\d,]+ fewer",
    ),
    # round 27: the contract's ints are required, whole-number floats included
    Mistake(
        check_count_parameters,
        count_floats,
        r"returned floats: 'embeddings': [\d.]+, 'encoder'.*'output': [\d.]+\. A number of "
        r"parameters is an int, as the docstring says.*a float\(\.\.\.\) around a count",
    ),
    Mistake(
        check_count_parameters,
        count_heads_by_true_division,
        r"returned floats: 'encoder': [\d.]+ \(a numpy\.float32\), 'decoder': [\d.]+ \(a "
        r"numpy\.float32\) \('embeddings', 'output' are ints\).*most likely the head size, d_head = d_model / num_heads: use integer "
        r"division, d_model // num_heads",
    ),
    # greedy_decode
    *[
        Mistake(check_greedy_decode, _greedy_mistake(**knobs), re.escape(message[:60]))
        for knobs, message in checks.GREEDY_MISTAKES
    ],
    Mistake(
        check_greedy_decode,
        greedy_one_step_more,
        r"You generated \d+ tokens: your loop runs one step too many",
    ),
    Mistake(check_greedy_decode, greedy_one_step_less, r"Your rows stop at \d+ tokens: max_len"),
    Mistake(
        check_greedy_decode,
        greedy_cached_by_source,
        r"returns without running the model at all \(none of its layers is called\)",
    ),
    Mistake(
        check_greedy_decode,
        greedy_memory_kept_on_the_model,
        r"(?s)Called twice on the same model.*Something from the first call was kept",
    ),
    Mistake(check_greedy_decode, greedy_returns_list, r"returned a list"),
    Mistake(
        check_greedy_decode,
        greedy_finished_from_last_token,
        r"(?s)^(?!.*rows interfere).*had produced <eos> before step .*stays True once set",
    ),
    Mistake(check_greedy_decode, greedy_drops_the_first_row, r"drops the first ROW"),
    # blind12a: the family 'a tensor built from a list of tensors', raw errors before
    Mistake(
        check_greedy_decode,
        greedy_tensor_of_step_tensors,
        r"Your line `return torch\.tensor\(generated\)\.T` builds a tensor from a list whose "
        r"elements are tensors .*torch\.stack",
    ),
    Mistake(
        check_greedy_decode,
        greedy_long_tensor_of_rows,
        r"Your line `return torch\.LongTensor\(.*\)` builds a tensor from a list whose elements",
    ),
    # blind12a: finished updated with & (never True) was told "rows go on generating" (a
    # row that never finishes hides the missing early stop): the other cases part them;
    # the same family, finished never updated at all, is in no case
    Mistake(
        check_greedy_decode,
        _greedy_variant(update="and"),
        r"No row is ever marked finished: .* AND the loop never stops early",
    ),
    Mistake(
        check_greedy_decode,
        _greedy_variant(update="never"),
        r"No row is ever marked finished: .* AND the loop never stops early",
    ),
    Mistake(check_greedy_decode, greedy_appends_a_row, r"tensor with ONE row: .* as a row"),
    # PyTorch's raw IndexError before
    Mistake(check_greedy_decode, _greedy_variant(position=-2), r"<bos> alone .*logits\[:, -1\]"),
    Mistake(
        check_greedy_decode,
        _greedy_variant(start="len_src_rows"),
        r"with \d+ rows met the batch of \d+ sentences: \d+ is len_src, src_ids\.shape\[1\]",
    ),
    Mistake(
        check_greedy_decode,
        _greedy_variant(start="two"),
        r"start with <bos>, and the tokens after it differ too: .*one more <bos> than needed",
    ),
    Mistake(
        check_greedy_decode,
        _greedy_variant(start="pad"),
        r"decoder input starts with model\.pad_id, not <bos>",
    ),
    # blind16a: a start column of another id was only located (the first departing
    # decision); the first target the decoder read tells what it held
    Mistake(
        check_greedy_decode,
        _greedy_variant(start="eos"),
        r"decoder input starts with eos_id, not <bos>: its first column holds \d+",
    ),
    Mistake(
        check_greedy_decode,
        _greedy_variant(start="zeros"),
        r"decoder input starts with (0 \(torch\.zeros\)|model\.pad_id), not <bos>",
    ),
    # blind16a: the loop ran max_len steps, the result's slice cut the last column; told
    # the loop stopped one step short (the width of the decoder's last input parts them)
    Mistake(
        check_greedy_decode,
        _greedy_variant(cut_last=True),
        r"the last generated token \(column\) was cut off afterwards",
    ),
    Mistake(
        check_greedy_decode,
        _greedy_variant(softmax_positions=True),
        r"softmax runs over the positions \(dim=1\) before the argmax",
    ),
    Mistake(
        check_greedy_decode,
        _greedy_variant(stop_on_any=True),
        r"stops after \d steps, although row \d had not .*stops as soon as one row has "
        r"produced <eos> \(finished\.any\(\)",
    ),
    # the family of blind25b's `next_token[0] == eos_id`: a stop decided by the wrong rows,
    # told apart by decoding the same sentences reordered or fewer (checking/stop_rules.py)
    Mistake(
        check_greedy_decode,
        _greedy_variant(stop_test=lambda finished, token: bool(finished[-1])),
        r"stops as soon as row \d \(the last row\) has produced <eos>.*finished\[-1\]",
    ),
    Mistake(
        check_greedy_decode,
        _greedy_variant(stop_test=lambda finished, token: int(finished.sum()) >= 2),
        r"stops as soon as 2 rows have produced <eos> \(a count like finished\.sum\(\) >= 2",
    ),
    # the stop test before the step's column is appended: the final <eos> column is lost
    # (blind10a): it was told it stops when some rows had finished, which it does not
    Mistake(
        check_greedy_decode,
        _greedy_variant(break_first=True),
        r"broke before appending the step's tokens",
    ),
    Mistake(check_greedy_decode, greedy_int32, r"torch\.int32.*int64"),
    # any size-1 axis squeezed out of the logits (blind11a: squeeze(); squeeze(1) is the
    # same family): it was "Your rows start with <bos>", the first decision equalling bos_id
    Mistake(
        check_greedy_decode,
        _greedy_squeezing(lambda logits: logits.squeeze()),
        r"lost a size-1 axis before the argmax: squeeze\(\)",
    ),
    Mistake(
        check_greedy_decode,
        _greedy_squeezing(lambda logits: logits.squeeze(1)),
        r"lost a size-1 axis before the argmax: squeeze\(\)",
    ),
    Mistake(check_greedy_decode, greedy_float, r"torch\.float32 values: token ids are integers"),
    Mistake(check_greedy_decode, greedy_float_bos, r"ids that reached an embedding are floats"),
    Mistake(check_greedy_decode, greedy_float_bos, r"the <bos> column itself is float"),
    # the float ids are the first step's largest logits: torch.max's values, named (it
    # was "the <bos> column ... or a torch.cat with a float tensor")
    Mistake(check_greedy_decode, greedy_max_values, r"is the LARGEST LOGIT itself.*\(values,"),
    Mistake(
        check_greedy_decode,
        greedy_argmax_over_batch,
        r"vocab_size = \d+ entries met the batch of \d+ rows.*argmax ran over the batch axis",
    ),
    # one right step, then a stop: it was named "the FIRST position's logits", which on
    # <bos> alone decide as the last position does
    Mistake(
        check_greedy_decode,
        greedy_finished_inverted,
        r"stops after the first step .*no row had produced <eos>.*yours goes on past the first "
        r"step.*Your finished test is inverted.*equals eos_id",
    ),
    Mistake(check_greedy_decode, greedy_switches_to_train, r"left the model in training mode"),
    Mistake(check_greedy_decode, greedy_first_sentence_only, r"One row per sentence"),
    Mistake(
        check_greedy_decode,
        greedy_tokens_as_source,
        r"third argument must be the source ids themselves",
    ),
    Mistake(check_greedy_decode, greedy_row_0_for_every_row, r"Every row gets row 0's next token"),
    # the first sentence's memory for every row gives row 0's tokens everywhere, as the
    # batch-of-one argmax does: both are named
    Mistake(check_greedy_decode, greedy_memory_of(0), r"or every row was decoded from the first"),
    # the last sentence's: no known rule; each sentence decoded alone is right
    Mistake(check_greedy_decode, greedy_memory_of(-1), r"so the rows interfere"),
    Mistake(
        check_greedy_decode, greedy_stacked_steps_first, r"the expected one transposed: \(steps"
    ),
    Mistake(check_greedy_decode, greedy_argmax_without_dim, r"argmax\(\) was called without dim"),
    Mistake(check_Transformer, TPositionalDropoutDefault, r"yours differ from one call to the"),
    # a stack built without the model's dropout: the model whose stack drops nothing is
    # named (where dropout goes, before)
    Mistake(
        check_Transformer,
        TDecoderDropoutLeftOut,
        r"yours equals the reference whose Decoder layers have dropout 0\.0 .*your Decoder was "
        r"built without the model's dropout",
    ),
    Mistake(
        check_Transformer, TPositionalDropoutDefaultLuckyDraw, r"yours differ from one call to the"
    ),
    Mistake(
        check_Transformer, TNormOptionsSwapped, r"swapped with final_norm, say|the two swapped"
    ),
    Mistake(
        check_Transformer,
        TPositionalTutorialOrder,
        r"that is max_len.*passed where the dropout rate belongs",
    ),
]


# ------------------------------------------------------- round 34: families, not instances
def _greedy_choosing(choose):
    """The reference loop whose next token is ``choose(logits)`` ((batch, len, vocab) ->
    (batch,)): the family 'the decision taken on the wrong quantity'."""

    def greedy(model, src_ids, max_len, bos_id, eos_id):
        with torch.no_grad():
            memory = model.encode(src_ids)
            tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
            finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
            for _ in range(max_len):
                logits = model.decode(tokens, memory, src_ids)  # (batch, len, vocab)
                nxt = choose(logits).masked_fill(finished, model.pad_id)
                tokens = torch.cat([tokens, nxt[:, None]], dim=1)
                finished |= nxt == eos_id
                if finished.all():
                    break
        return tokens[:, 1:]

    return greedy


def greedy_mean_over_positions(model, src_ids, max_len, bos_id, eos_id):
    """Every position votes: logits.mean(1) (on one visible case it gave exactly the tokens
    of "one decoder pass", and was told so: a cause contradicted by the other cases)."""
    return _greedy_choosing(lambda logits: logits.mean(1).argmax(-1))(
        model, src_ids, max_len, bos_id, eos_id
    )


def greedy_max_over_positions(model, src_ids, max_len, bos_id, eos_id):
    return _greedy_choosing(lambda logits: logits.max(dim=1).values.argmax(-1))(
        model, src_ids, max_len, bos_id, eos_id
    )


def greedy_second_best(model, src_ids, max_len, bos_id, eos_id):
    """topk(2) read at index 1: the second most probable token at every step."""
    return _greedy_choosing(lambda logits: logits[:, -1].topk(2, dim=-1).indices[:, 1])(
        model, src_ids, max_len, bos_id, eos_id
    )


def greedy_sorted_ascending(model, src_ids, max_len, bos_id, eos_id):
    """torch.sort's default order is ascending: its first index is the least probable."""
    return _greedy_choosing(lambda logits: logits[:, -1].sort(dim=-1).indices[:, 0])(
        model, src_ids, max_len, bos_id, eos_id
    )


def _count_moved(moves):
    """The reference counts with ``moves(args)`` = {key: change} applied (the total kept):
    parts filed under another key."""

    def count(vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm=False):
        args = (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings, final_norm)
        counts = dict(ref.count_parameters(*args))
        for key, change in moves(*args).items():
            counts[key] += change
        return counts

    return count


def count_final_norms_under_output(*args, **kwargs):
    """Both stacks' final LayerNorms counted with the output layer (they sit just before
    it): two parts moved from two keys to one (told only which keys before)."""
    return _count_moved(
        lambda v, d, h, n, f, tie, final: (
            {"encoder": -2 * d, "decoder": -2 * d, "output": 4 * d} if final else {}
        )
    )(*args, **kwargs)


def count_final_norms_under_embeddings(*args, **kwargs):
    return _count_moved(
        lambda v, d, h, n, f, tie, final: (
            {"encoder": -2 * d, "decoder": -2 * d, "embeddings": 4 * d} if final else {}
        )
    )(*args, **kwargs)


def count_half_norms_under_output(*args, **kwargs):
    """d_model from each stack to 'output' (no part of the model is d_model alone): the
    sibling whose amounts no part explains; the keys are said, no part is named."""
    return _count_moved(
        lambda v, d, h, n, f, tie, final: {"encoder": -d, "decoder": -d, "output": 2 * d}
    )(*args, **kwargs)


class TDropoutOnLogits(_Reference):
    """The positional encoding's dropout applied once more, to the logits: all 0 in train
    mode with dropout=1.0 (told 'the logits multiplied by 0, rescaled' before)."""

    def decode(self, tgt_ids, memory, src_ids):
        return self.positional_encoding.dropout(super().decode(tgt_ids, memory, src_ids))


class TFunctionalDropoutOnLogits(_Reference):
    """The same family through F.dropout with the model's own rate, read off a module."""

    def decode(self, tgt_ids, memory, src_ids):
        logits = super().decode(tgt_ids, memory, src_ids)
        rate = self.positional_encoding.dropout.p
        return F.dropout(logits, rate, training=self.training)


class TMemoryPadRowsZeroed(_Reference):
    """encode multiplies its memory by the padding mask: right at the real positions, 0 at
    the pads (an edit made at the masked positions only; told 'differs' before)."""

    def encode(self, src_ids):
        memory = super().encode(src_ids)  # (batch, len_src, d_model)
        return memory * (src_ids != self.pad_id)[..., None]


class TLogitsMaskedAtPads(_Reference):
    """decode writes -inf into the logits at the target's <pad> positions: the same family
    on the other result, with another filler."""

    def decode(self, tgt_ids, memory, src_ids):
        logits = super().decode(tgt_ids, memory, src_ids)  # (batch, len_tgt, vocab)
        return logits.masked_fill((tgt_ids == self.pad_id)[..., None], float("-inf"))


class TLookAheadOnlyAndNoCrossMask(_Reference):
    """Two slips at once in decode: the self-attention gets the look-ahead mask alone (no
    target padding) and the cross-attention no mask at all. Both masks are read off the
    decoder's call and both are said (one was, before)."""

    def decode(self, tgt_ids, memory, src_ids):
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))  # (batch, len_tgt, d_model)
        y = self.decoder(y, memory, None, look_ahead_mask(tgt_ids.shape[1]))
        return self.output(y)


R34_MISTAKES = [
    Mistake(
        check_Transformer,
        TLookAheadOnlyAndNoCrossMask,
        r"a src_mask \(the cross-attention's mask\) that is not padding_mask.*you passed None "
        r"\(no mask\) AND a tgt_mask \(the self-attention's mask\) that is not "
        r"decoder_self_attention_mask|ignores the target's padding",
    ),
    Mistake(
        check_Transformer,
        TMemoryPadRowsZeroed,
        r"Your memory is the encoder's output with every row at a source <pad> position set "
        r"to 0",
    ),
    Mistake(
        check_Transformer,
        TLogitsMaskedAtPads,
        r"Your logits are right at every real target position and set to -inf at every "
        r"target <pad> position",
    ),
    Mistake(
        check_Transformer,
        TDropoutOnLogits,
        r"^(?![\s\S]*rescaled)[\s\S]*Every logit is 0 in train mode with dropout=1\.0.*a dropout "
        r"acts on the logits, after the output layer",
    ),
    Mistake(
        check_Transformer,
        TFunctionalDropoutOnLogits,
        r"a dropout acts on the logits, after the output layer",
    ),
    Mistake(
        check_count_parameters,
        count_final_norms_under_output,
        r"all counted under 'output': the encoder's final LayerNorm .*from 'encoder'; the "
        r"decoder's final LayerNorm .*from 'decoder'",
    ),
    Mistake(
        check_count_parameters,
        count_final_norms_under_embeddings,
        r"all counted under 'embeddings': the encoder's final LayerNorm",
    ),
    Mistake(
        check_count_parameters,
        count_half_norms_under_output,
        r"^(?![\s\S]*amounts? moved)[\s\S]*counted under the wrong key: 'output' has too many, "
        r"'encoder', 'decoder' too few\.",
    ),
    Mistake(
        check_greedy_decode,
        greedy_mean_over_positions,
        r"^(?![\s\S]*ONE decoder pass)[\s\S]*logits pooled over the positions \(their mean or "
        r"sum over dim=1",
    ),
    Mistake(check_greedy_decode, greedy_max_over_positions, r"logits' maximum over the positions"),
    Mistake(
        check_greedy_decode,
        greedy_second_best,
        r"at every decision yours is the token ranked 2 of \d+ by its logit",
    ),
    Mistake(
        check_greedy_decode,
        greedy_sorted_ascending,
        r"at every decision yours is the LEAST probable token",
    ),
]

CORRECT = [
    Correct(check_Transformer, TAnnotatedStyle),
    Correct(check_Transformer, TVocabRefusedWithValueErrorSubclass),
    Correct(check_Transformer, TMaxLenDefault),
    Correct(check_Transformer, THelperMethod),
    Correct(check_Transformer, TAddModuleLoop),
    Correct(check_Transformer, TInlineMasks),
    Correct(check_Transformer, TSinusoidsOnTheFly),
    Correct(check_Transformer, TFlatPositionTable),
    Correct(check_Transformer, TExplicitDropout),
    Correct(check_Transformer, TTiedTheOtherWay),
    Correct(check_count_parameters, count_paper_style),
    Correct(check_count_parameters, _count_by_hand()),
    Correct(check_count_parameters, count_numpy_ints),
    Correct(check_greedy_decode, greedy_reencode),
    Correct(check_greedy_decode, greedy_one_sentence_at_a_time),
    Correct(check_greedy_decode, greedy_preallocated),
    Correct(check_greedy_decode, greedy_python_lists),
]


# ----------------------------------------- round 35: a mistake on the train-only path
class EncodeUnmaskedWhileTraining(ref.Transformer):
    """The source padding mask built in eval mode only (the family of blind29a-mha-mask-
    dropped-in-dropout-path: told 'pass padding_mask to self.encoder', which it does in
    eval mode)."""

    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding(src_ids))
        return self.encoder(x, None if self.training else padding_mask(src_ids, self.pad_id))


class DecodeCrossUnmaskedWhileTraining(ref.Transformer):
    """The same on the decoder side: the cross-attention's source mask left out in train
    mode."""

    def decode(self, tgt_ids, memory, src_ids):
        tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)
        src_mask = None if self.training else padding_mask(src_ids, self.pad_id)
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        return self.output(self.decoder(y, memory, src_mask, tgt_mask))


_TRAIN_ONLY = (
    r"This is train mode with dropout=0\.0, where dropout changes nothing, and the same model "
    r"in eval mode, on the same inputs, gives the right {}: so the lines that run only in "
    r"train mode \(under `if self\.training:`\) are at fault"
)
R35_MISTAKES = [
    Mistake(
        check_Transformer,
        EncodeUnmaskedWhileTraining,
        r"model\.encode[\s\S]*train mode\][\s\S]*" + _TRAIN_ONLY.format("memory"),
    ),
    Mistake(
        check_Transformer,
        DecodeCrossUnmaskedWhileTraining,
        r"model\.decode[\s\S]*train mode\][\s\S]*" + _TRAIN_ONLY.format("logits"),
    ),
]


def greedy_cut_rows_closed_with_eos(model, src_ids, max_len, bos_id, eos_id):
    """The family of 'a token the model never chose' (blind29b forced <eos> at the last
    step): after the loop, every row that never finished has its last token replaced by
    <eos>, "so that every translation is closed"."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            next_token = model.decode(tokens, memory, src_ids)[:, -1].argmax(-1)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished = finished | (next_token == eos_id)
            if finished.all():
                break
        out = tokens[:, 1:].clone()
        if out.shape[1] == max_len:
            out[~finished, -1] = eos_id
    return out


def greedy_eos_when_second_best(model, src_ids, max_len, bos_id, eos_id):
    """A sibling: <eos> written whenever it is among the two most probable tokens (an
    "early stop" heuristic): an <eos> the model never chose, but not at the length limit."""
    with torch.no_grad():
        memory = model.encode(src_ids)
        tokens = torch.full((src_ids.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src_ids.shape[0], dtype=torch.bool)
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)[:, -1]
            top2 = logits.topk(2, dim=-1).indices  # (batch, 2)
            next_token = torch.where((top2 == eos_id).any(-1), eos_id, top2[:, 0])
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished = finished | (next_token == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]


R37C_MISTAKES = [
    Mistake(
        check_greedy_decode,
        greedy_cut_rows_closed_with_eos,
        r"except at the last step max_len=\d+ allows.*Yours forces <eos> when the length "
        r"limit is reached",
    ),
    Mistake(
        check_greedy_decode,
        greedy_eos_when_second_best,
        r"^(?![\s\S]*length limit)[\s\S]*Replaying your steps",
    ),
]

test_classic_mistake, test_correct_variant = lesson_tests(
    [*MISTAKES, *R34_MISTAKES, *R35_MISTAKES, *R37C_MISTAKES], CORRECT
)


# ================================================================== oracles: nn.Transformer
@pytest.fixture
def plain_pytorch():
    """PyTorch's own layers without their eval-mode fast path (nested tensors, which return
    zeros at padded positions): the plain formulas, which is what we compare with."""
    before = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    yield
    torch.backends.mha.set_fastpath_enabled(before)


def _randomize(module: nn.Module, seed: int) -> None:
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * 0.3)


def _copy_attention(ours, theirs):
    theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
    theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
    theirs.out_proj.weight.copy_(ours.w_o.weight)
    theirs.out_proj.bias.copy_(ours.w_o.bias)


def _copy_layer(ours, theirs, decoder: bool) -> None:
    _copy_attention(ours.self_attn, theirs.self_attn)
    if decoder:
        _copy_attention(ours.cross_attn, theirs.multihead_attn)
    theirs.linear1.weight.copy_(ours.feed_forward.w_1.weight)
    theirs.linear1.bias.copy_(ours.feed_forward.w_1.bias)
    theirs.linear2.weight.copy_(ours.feed_forward.w_2.weight)
    theirs.linear2.bias.copy_(ours.feed_forward.w_2.bias)
    for name in ("norm1", "norm2", "norm3") if decoder else ("norm1", "norm2"):
        getattr(theirs, name).weight.copy_(getattr(ours, name).weight)
        getattr(theirs, name).bias.copy_(getattr(ours, name).bias)


def _pytorch_model(ours, d_model, num_heads, num_layers, d_ff, norm_first, final):
    """nn.Transformer with our weights; ``final`` False: stacks without a final LayerNorm
    (handed to nn.Transformer as custom_encoder / custom_decoder)."""
    kwargs = {"dropout": 0.0, "batch_first": True, "norm_first": norm_first}
    if final:
        theirs = nn.Transformer(d_model, num_heads, num_layers, num_layers, d_ff, **kwargs)
    else:
        encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d_model, num_heads, d_ff, **kwargs),
            num_layers,
            enable_nested_tensor=False,
        )
        decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(d_model, num_heads, d_ff, **kwargs), num_layers
        )
        theirs = nn.Transformer(
            d_model, num_heads, custom_encoder=encoder, custom_decoder=decoder, **kwargs
        )
    with torch.no_grad():
        for o, t in zip(ours.encoder.layers, theirs.encoder.layers, strict=True):
            _copy_layer(o, t, decoder=False)
        for o, t in zip(ours.decoder.layers, theirs.decoder.layers, strict=True):
            _copy_layer(o, t, decoder=True)
        if final:
            for o, t in (
                (ours.encoder.norm, theirs.encoder.norm),
                (ours.decoder.norm, theirs.decoder.norm),
            ):
                t.weight.copy_(o.weight)
                t.bias.copy_(o.bias)
    return theirs.eval()


def _pytorch_logits(ours, theirs, src, tgt, pad_id):
    """nn.Transformer between our embeddings + positions and our output layer. Bool masks:
    True = blocked in PyTorch."""
    causal = torch.triu(torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool), diagonal=1)
    out = theirs(
        ours.positional_encoding(ours.src_embedding(src)),
        ours.positional_encoding(ours.tgt_embedding(tgt)),
        tgt_mask=causal,
        src_key_padding_mask=src == pad_id,
        tgt_key_padding_mask=tgt == pad_id,
        memory_key_padding_mask=src == pad_id,
    )
    return ours.output(out)


#: (norm_first, final_norm, tie_embeddings, pad_id, left-padded source)
ORACLE_CONFIGS = [
    (False, True, False, 0, False),  # nn.Transformer's default: post-LN with final norms
    (True, None, False, 0, False),  # pre-LN, final norms by default
    (False, None, False, 0, False),  # the paper: post-LN, no final norm
    (False, True, True, 3, True),  # tied, pad_id 3, the source padded at the start
    (True, True, True, 1, False),
]
MAX_DIFFERENCES = {}


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize(("norm_first", "final_norm", "tie", "pad_id", "left"), ORACLE_CONFIGS)
def test_reference_equals_nn_transformer(plain_pytorch, norm_first, final_norm, tie, pad_id, left):
    vocab, d_model, num_heads, num_layers, d_ff = 23, 16, 4, 2, 32
    ours = ref.Transformer(
        vocab,
        vocab,
        d_model,
        num_heads,
        num_layers,
        d_ff,
        dropout=0.0,
        max_len=50,
        pad_id=pad_id,
        tie_embeddings=tie,
        norm_first=norm_first,
        final_norm=final_norm,
    )
    _randomize(ours, seed=7)
    ours.eval()
    final = norm_first if final_norm is None else final_norm
    theirs = _pytorch_model(ours, d_model, num_heads, num_layers, d_ff, norm_first, final)
    src = vocab_token_ids((7, 5, 3), 7, vocab, pad_id, seed=1, left=left)
    tgt = vocab_token_ids((5, 2, 4), 5, vocab, pad_id, seed=2)
    with torch.no_grad():
        got = ours(src, tgt)
        expected = _pytorch_logits(ours, theirs, src, tgt, pad_id)
        helper = ref.torch_transformer_logits(ours, ref.torch_transformer(ours), src, tgt)
    difference = (got - expected).abs().max().item()
    MAX_DIFFERENCES[(norm_first, final_norm, tie)] = difference
    assert got.shape == (3, 5, vocab)
    assert difference < 1e-5, difference
    # the lesson's helper builds the same PyTorch model
    torch.testing.assert_close(helper, expected, rtol=0, atol=1e-6)


def test_decode_of_encode_is_forward_and_padding_changes_nothing():
    torch.manual_seed(0)
    model = ref.Transformer(15, 17, 16, 4, 2, 32, dropout=0.0, pad_id=0).eval()
    src = torch.tensor([[3, 4, 5, 0, 0], [6, 7, 8, 9, 10]])
    tgt = torch.tensor([[1, 11, 12, 13], [1, 14, 0, 0]])
    with torch.no_grad():
        logits = model(src, tgt)
        torch.testing.assert_close(model.decode(tgt, model.encode(src), src), logits)
        # extra source padding changes nothing at the real positions
        wider = torch.cat([src, torch.zeros(2, 3, dtype=torch.long)], dim=1)
        torch.testing.assert_close(model(wider, tgt), logits, rtol=0, atol=1e-5)
        # the look-ahead mask: later target tokens do not change earlier logits
        changed = tgt.clone()
        changed[:, -1] = 16
        torch.testing.assert_close(model(src, changed)[:, :-1], logits[:, :-1], rtol=0, atol=1e-6)


def test_the_fast_path_returns_zeros_at_padded_positions():
    """The reason the lesson switches PyTorch's fast path off before comparing."""
    torch.manual_seed(0)
    encoder = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True), 2
    ).eval()
    x = torch.randn(2, 6, 16)
    pads = torch.tensor([[False] * 4 + [True] * 2, [False] * 6])
    before = torch.backends.mha.get_fastpath_enabled()
    try:
        with torch.no_grad(), pytest.warns(UserWarning, match="nested tensors"):
            torch.backends.mha.set_fastpath_enabled(True)
            fast = encoder(x, src_key_padding_mask=pads)
        torch.backends.mha.set_fastpath_enabled(False)
        with torch.no_grad():
            plain = encoder(x, src_key_padding_mask=pads)
    finally:
        torch.backends.mha.set_fastpath_enabled(before)
    assert fast[0, 4:].abs().max() == 0 and plain[0, 4:].abs().max() > 0
    torch.testing.assert_close(fast[0, :4], plain[0, :4], rtol=0, atol=1e-5)


def test_dropout_one_is_deterministic():
    """What the train-mode checks rely on: p=1 zeroes everything, whatever the stream."""
    dropout = nn.Dropout(1.0).train()
    x = torch.randn(4, 5)
    torch.manual_seed(1)
    first = dropout(x)
    torch.manual_seed(2)
    assert torch.equal(first, torch.zeros_like(x)) and torch.equal(dropout(x), first)


def test_tied_model_shares_one_parameter():
    model = ref.Transformer(30, 30, 8, 2, 1, 16, tie_embeddings=True)
    state = model.state_dict()
    table = state["src_embedding.embedding.weight"]
    assert state["tgt_embedding.embedding.weight"].data_ptr() == table.data_ptr()
    assert state["output.weight"].data_ptr() == table.data_ptr()
    assert sum(p is model.output.weight for p in model.parameters()) == 1
    with pytest.raises(ValueError, match="shared vocabulary"):
        ref.Transformer(30, 31, 8, 2, 1, 16, tie_embeddings=True)


# ================================================================== oracles: parameter counts
def _unique_count(*modules: nn.Module, exclude: set[int] = frozenset()) -> int:
    seen = {}
    for module in modules:
        for p in module.parameters():
            if id(p) not in exclude:
                seen[id(p)] = p.numel()
    return sum(seen.values())


@pytest.mark.parametrize(
    "config",
    [
        (50, 8, 2, 1, 16, False, False),
        (50, 8, 2, 3, 12, True, False),
        (200, 12, 3, 2, 40, False, True),
        (200, 12, 1, 2, 40, True, True),
        (7, 4, 4, 1, 3, True, False),
    ],
)
def test_count_parameters_matches_the_modules(config):
    vocab, d_model, num_heads, num_layers, d_ff, tie, final = config
    model = ref.Transformer(
        vocab, vocab, d_model, num_heads, num_layers, d_ff, tie_embeddings=tie, final_norm=final
    )
    tables = {id(p) for p in (*model.src_embedding.parameters(), *model.tgt_embedding.parameters())}
    measured = {
        "embeddings": _unique_count(model.src_embedding, model.tgt_embedding),
        "encoder": _unique_count(model.encoder),
        "decoder": _unique_count(model.decoder),
        "output": _unique_count(model.output, exclude=tables),
    }
    assert ref.count_parameters(*config) == measured
    assert sum(measured.values()) == sum(p.numel() for p in model.parameters())


def test_the_paper_sizes():
    """Table 3's base and big models with 37,000 tied tokens, built (on the meta device:
    no memory) and counted by PyTorch; and the numbers the lesson quotes."""
    with torch.device("meta"):
        base = ref.Transformer(37000, 37000, tie_embeddings=True)
        big = ref.Transformer(37000, 37000, 1024, 16, 6, 4096, tie_embeddings=True)
        base_final = ref.Transformer(37000, 37000, tie_embeddings=True, final_norm=True)
    assert sum(p.numel() for p in base.parameters()) == 63_119_496
    assert sum(p.numel() for p in big.parameters()) == 214_282_376
    assert sum(p.numel() for p in base_final.parameters()) == 63_119_496 + 2_048
    assert sum(ref.count_parameters(37000, 512, 8, 6, 2048, True).values()) == 63_119_496
    assert sum(ref.count_parameters(37000, 1024, 16, 6, 4096, True).values()) == 214_282_376
    counts = ref.count_parameters(37000, 512, 8, 6, 2048, True)
    untied = ref.count_parameters(37000, 512, 8, 6, 2048, False)
    total, untied_total = sum(counts.values()), sum(untied.values())
    assert round(untied_total / 1e6) == 101
    assert round(counts["embeddings"] / total, 2) == 0.30
    assert round(counts["decoder"] / counts["encoder"], 2) == 1.33
    assert (untied["embeddings"] + untied["output"]) / untied_total > 0.5
    # each 1,000 tokens: 513,000 parameters; 65M needs about 40,700; the big model then 218M
    per_token = 512 + 1
    assert sum(ref.count_parameters(38000, 512, 8, 6, 2048, True).values()) - total == 1000 * 513
    tokens = 37000 + (65_000_000 - total) / per_token
    assert round(tokens, -2) == 40_700
    big_then = sum(ref.count_parameters(round(tokens), 1024, 16, 6, 4096, True).values())
    assert round(big_then / 1e6) == 218
    # attention biases: 4 * d_model per attention, 18 attentions in the base model
    assert 4 * 512 * (6 + 2 * 6) == 36_864


# ================================================================== oracles: greedy decoding
def _rebuilt(model: nn.Module) -> nn.Module:
    """What the sandboxed grader does: the model rebuilt from its recipe and state dict."""
    import importlib

    recipe = recipe_of(model)
    module, _, name = recipe.factory.partition(":")
    factory = getattr(importlib.import_module(module), name)
    twin = factory(*recipe.args, **recipe.kwargs)
    twin.load_state_dict(model.state_dict())
    return twin.train(model.training)


ALL_GREEDY = checks.VISIBLE_GREEDY + checks.HIDDEN_GREEDY


def _finish_steps(out: torch.Tensor, eos_id: int) -> list[int | None]:
    return [row.index(eos_id) + 1 if eos_id in row else None for row in out.tolist()]


def _told_apart_elsewhere(first: str, second: str, cases) -> bool:
    """Two mistakes that look alike on one case are told apart by the check when another
    visible case gives them different outputs (the check runs the learner on the others)."""
    knobs = {message: k for k, message in checks.GREEDY_MISTAKES}
    if first not in knobs or second not in knobs:
        return False
    for case in cases:
        model, src = case.model(), case.src()
        a, b = (
            greedy_decode_f(model, src, case.max_len, case.bos_id, case.eos_id, **knobs[m])
            for m in (first, second)
        )
        if not (a.shape == b.shape and torch.equal(a, b)):
            return True
    return False


@pytest.mark.parametrize("case", ALL_GREEDY, ids=[f"seed{c.seed}" for c in ALL_GREEDY])
def test_greedy_cases_are_well_posed(case):
    """Every next-token choice wins by a margin (so any correct way of decoding agrees), the
    model survives the grader's round trip, and no two mistakes look alike."""
    model = case.model()
    assert recipe_of(model) is not None and not model.training
    src = case.src()
    out = ref.greedy_decode(model, src, case.max_len, case.bos_id, case.eos_id)
    assert out.dtype == torch.int64 and out.shape[1] <= case.max_len
    assert torch.equal(
        ref.greedy_decode(_rebuilt(model), src, case.max_len, case.bos_id, case.eos_id), out
    )
    with torch.no_grad():
        memory = model.encode(src)
        tokens = torch.full((len(src), 1), case.bos_id)
        finished = torch.zeros(len(src), dtype=torch.bool)
        for t in range(out.shape[1]):
            top = model.decode(tokens, memory, src)[:, -1].topk(2, dim=-1).values
            assert ((top[:, 0] - top[:, 1])[~finished] > 1e-3).all()
            tokens = torch.cat([tokens, out[:, t : t + 1]], dim=1)
            finished |= out[:, t] == case.eos_id
    assert (out != case.bos_id).all()
    assert not (out[:, :1] == model.pad_id).any()
    variants = {}
    for knobs, message in [*checks.GREEDY_MISTAKES, *checks.off_by_one_mistakes(case.max_len)]:
        wrong = greedy_decode_f(model, src, case.max_len, case.bos_id, case.eos_id, **knobs)
        if not (wrong.shape == out.shape and torch.equal(wrong, out)):
            for other, seen in variants.items():
                assert not (seen.shape == wrong.shape and torch.equal(seen, wrong)) or (
                    _told_apart_elsewhere(
                        message,
                        other,
                        checks.HIDDEN_GREEDY
                        if case in checks.HIDDEN_GREEDY
                        else checks.VISIBLE_GREEDY,
                    )
                ), (message, other)
            variants[message] = wrong


def test_greedy_cases_cover_what_the_lesson_promises():
    outputs = {
        c.seed: ref.greedy_decode(c.model(), c.src(), c.max_len, c.bos_id, c.eos_id)
        for c in ALL_GREEDY
    }
    ends = {c.seed: _finish_steps(outputs[c.seed], c.eos_id) for c in ALL_GREEDY}
    widths = {seed: out.shape[1] for seed, out in outputs.items()}
    first, early, other_pad = checks.VISIBLE_GREEDY
    # rows finishing at different steps, one never: the result is max_len wide
    assert None in ends[first.seed] and widths[first.seed] == first.max_len
    finished = [e for e in ends[first.seed] if e]
    assert len(finished) == len(set(finished)) >= 2
    # every row finishes before max_len: an early stop
    assert None not in ends[early.seed] and widths[early.seed] == max(ends[early.seed])
    assert widths[early.seed] < early.max_len
    # a pad id that is not 0, after a row that finished early
    assert other_pad.pad_id != 0 and any(
        e and e < widths[other_pad.seed] for e in ends[other_pad.seed]
    )
    # the hidden cases: max_len reached, an early stop with pad_id != 0, max_len = 1
    hidden = checks.HIDDEN_GREEDY
    assert any(None in ends[c.seed] and widths[c.seed] == c.max_len for c in hidden)
    assert any(c.pad_id != 0 and widths[c.seed] < c.max_len for c in hidden)
    assert any(c.max_len == 1 for c in hidden)


def test_greedy_decode_agrees_with_one_sentence_at_a_time():
    """An independent decoder (the whole model re-run on one sentence at a time) on a
    larger random model gives the reference's tokens."""
    torch.manual_seed(5)
    model = ref.Transformer(20, 20, 32, 4, 2, 64, dropout=0.0, pad_id=0).eval()
    with torch.no_grad():
        model.output.bias[:3] = -50.0  # <pad>, <unk>, <bos> never win
        model.output.bias[3] += 1.0  # <eos> = 3 a little more likely
    src = vocab_token_ids((6, 4, 5, 2), 6, 20, 0, seed=3)
    expected = ref.greedy_decode(model, src, 9, 2, 3)
    with torch.no_grad():
        assert torch.equal(greedy_one_sentence_at_a_time(model, src, 9, 2, 3), expected)
        assert torch.equal(greedy_reencode(model, src, 9, 2, 3), expected)


# ================================================================== the rest
def test_whole_number_float_counts_fail_naming_true_division():
    """The contract returns ints: 3072.0 is refused (blind21b-cp-head-size-true-division),
    and numpy's and Python's ints still pass."""
    with pytest.raises(AssertionError, match=r"true division /"):
        check_count_parameters(count_floats)
    check_count_parameters(count_numpy_ints)


def test_what_the_lesson_says_about_log_softmax():
    z = torch.tensor([0.0, 120.0])
    assert torch.log(torch.softmax(z, dim=-1))[0] == float("-inf")
    assert torch.log_softmax(z, dim=-1)[0].item() == -120.0
    logits = torch.randn(4, 7)
    labels = torch.tensor([0, 3, 6, 2])
    torch.testing.assert_close(
        F.cross_entropy(logits, labels), F.nll_loss(F.log_softmax(logits, dim=-1), labels)
    )
    # argmax is the same before and after the softmax; shifting the logits changes nothing
    assert torch.equal(logits.argmax(-1), torch.softmax(logits, -1).argmax(-1))
    torch.testing.assert_close(torch.softmax(logits + 5.0, -1), torch.softmax(logits, -1))


def test_the_transformer_check_runs_every_mistake_computation():
    """Each mistake the Transformer check knows gives a value that differs from the right
    one in some visible case (so that no diagnosis is dead code)."""
    seen_encode, seen_decode = set(), set()
    for case in checks.VISIBLE_TRANSFORMER:
        m = checks.reference_model(case)
        src = vocab_token_ids(
            case.src_lengths, case.len_src, case.src_vocab, case.pad_id, case.seed, left=case.left
        )
        tgt = vocab_token_ids(
            case.tgt_lengths, case.len_tgt, case.tgt_vocab, case.pad_id, case.seed + 50
        )
        encode_f, decode_f = checks.case_oracles(case)
        with torch.no_grad():
            memory = m.encode(src)
            logits = m.decode(tgt, memory, src)
            for message, knobs in checks.encode_mistakes(case):
                value = value_or_none(functools.partial(encode_f, src, **knobs))
                if value is not None and (value - memory).abs().max() > 1e-3:
                    seen_encode.add(message)
            for message, knobs in checks.decode_mistakes(case):
                value = value_or_none(functools.partial(decode_f, tgt, memory, src, **knobs))
                if value is not None and (value - logits).abs().max() > 1e-3:
                    seen_decode.add(message)
    assert {
        message
        for case in checks.VISIBLE_TRANSFORMER
        for message, _ in checks.encode_mistakes(case)
    } == seen_encode
    assert {
        message
        for case in checks.VISIBLE_TRANSFORMER
        for message, _ in checks.decode_mistakes(case)
    } == seen_decode


def test_the_number_of_heads_changes_no_parameter_count():
    """The lesson: "8 heads of 64 or 16 heads of 32 use the same d_model x d_model
    matrices" (d_model = 512 either way)."""
    counts = [
        sum(ref.count_parameters(37000, 512, heads, 6, 2048, True).values()) for heads in (8, 16)
    ]
    assert counts[0] == counts[1] == 63_119_496
