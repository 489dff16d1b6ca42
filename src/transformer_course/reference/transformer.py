"""Reference implementation: lesson 09 · The full Transformer

Generated from the lesson master `solutions/09_transformer/09_transformer.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import torch
from torch import nn

from transformer_course.reference.decoder import Decoder, torch_decoder_layer
from transformer_course.reference.embeddings import TokenEmbedding
from transformer_course.reference.encoder import Encoder, torch_encoder_layer
from transformer_course.reference.masking import (
    decoder_self_attention_mask,
    look_ahead_mask,
    padding_mask,
)
from transformer_course.reference.positional_encoding import PositionalEncoding


def quiz_tie_embeddings() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "a"


class Transformer(nn.Module):
    """The encoder-decoder Transformer of "Attention Is All You Need".

    Transformer(src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8,
    num_layers=6, d_ff=2048, dropout=0.1, max_len=512, pad_id=0,
    tie_embeddings=False, norm_first=False, final_norm=None) has
        src_embedding, tgt_embedding: TokenEmbedding(vocab_size, d_model) (lesson 02:
            a lookup scaled by sqrt(d_model));
        positional_encoding: PositionalEncoding(d_model, max_len, dropout) (lesson 03:
            adds the sinusoids, then dropout), used for both sides;
        encoder: Encoder(num_layers, d_model, num_heads, d_ff, dropout, norm_first,
            final_norm); decoder: Decoder(the same);
        output: nn.Linear(d_model, tgt_vocab_size), the pre-softmax projection;
        pad_id: the id of <pad>, from which every mask is built.
    tie_embeddings=True (paper, section 3.4) makes src_embedding, tgt_embedding and
    output share one weight matrix (vocab_size, d_model); it needs
    src_vocab_size == tgt_vocab_size (a shared vocabulary) and raises an error
    otherwise: a ValueError preferably, an assert (AssertionError) accepted too.
    final_norm=True gives each stack a final LayerNorm, as nn.Transformer
    has; None follows norm_first (the paper's post-LN stacks have none).

    encode(src_ids (batch, len_src) int64) -> memory (batch, len_src, d_model), with
        the source padding mask.
    decode(tgt_ids (batch, len_tgt) int64, memory, src_ids) -> logits
        (batch, len_tgt, tgt_vocab_size): self-attention with the look-ahead and
        target padding mask, cross-attention with the source padding mask.
    forward(src_ids, tgt_ids) = decode(tgt_ids, encode(src_ids), src_ids).
    Logits are unnormalised scores: softmax over the last axis gives the
    probabilities of the next token at every target position.
    """

    def __init__(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        d_model: int = 512,
        num_heads: int = 8,
        num_layers: int = 6,
        d_ff: int = 2048,
        dropout: float = 0.1,
        max_len: int = 512,
        pad_id: int = 0,
        tie_embeddings: bool = False,
        norm_first: bool = False,
        final_norm: bool | None = None,
    ):
        super().__init__()
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError(
                "tie_embeddings needs a shared vocabulary: src_vocab_size "
                f"{src_vocab_size} != tgt_vocab_size {tgt_vocab_size}"
            )
        self.pad_id = pad_id
        self.src_embedding = TokenEmbedding(src_vocab_size, d_model)
        self.tgt_embedding = TokenEmbedding(tgt_vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)
        layers = (num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.encoder = Encoder(*layers)
        self.decoder = Decoder(*layers)
        self.output = nn.Linear(d_model, tgt_vocab_size)
        if tie_embeddings:  # one (vocab_size, d_model) matrix in three places
            self.tgt_embedding.embedding.weight = self.src_embedding.embedding.weight
            self.output.weight = self.src_embedding.embedding.weight

    def encode(self, src_ids: torch.Tensor) -> torch.Tensor:
        src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)
        x = self.positional_encoding(self.src_embedding(src_ids))  # (batch, len_src, d_model)
        return self.encoder(x, src_mask)  # (batch, len_src, d_model)

    def decode(
        self, tgt_ids: torch.Tensor, memory: torch.Tensor, src_ids: torch.Tensor
    ) -> torch.Tensor:
        tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)  # (b, 1, len_tgt, len_tgt)
        src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))  # (batch, len_tgt, d_model)
        y = self.decoder(y, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)
        return self.output(y)  # (batch, len_tgt, tgt_vocab_size)

    def forward(self, src_ids: torch.Tensor, tgt_ids: torch.Tensor) -> torch.Tensor:
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)


def torch_transformer(ours: nn.Module) -> nn.Transformer:
    """An nn.Transformer (batch_first, ReLU, dropout 0, eval mode) holding the weights of
    the stacks of our Transformer `ours`, with a final LayerNorm in each stack exactly
    when `ours` has one (nn.Transformer's default stacks always have it)."""
    first = ours.encoder.layers[0]
    norm_first = first.norm_first
    d_model, d_ff = first.feed_forward.w_1.in_features, first.feed_forward.w_1.out_features

    def final(norm: nn.Module | None) -> nn.LayerNorm | None:
        if norm is None:
            return None
        layer_norm = nn.LayerNorm(d_model)
        layer_norm.load_state_dict(norm.state_dict())
        return layer_norm

    num_layers = len(ours.encoder.layers)
    encoder = nn.TransformerEncoder(
        torch_encoder_layer(first, norm_first),
        num_layers,
        final(ours.encoder.norm),
        enable_nested_tensor=False,
    )
    decoder = nn.TransformerDecoder(
        torch_decoder_layer(ours.decoder.layers[0], norm_first),
        num_layers,
        final(ours.decoder.norm),
    )
    theirs = nn.Transformer(
        d_model,
        first.self_attn.num_heads,
        dim_feedforward=d_ff,
        dropout=0.0,
        custom_encoder=encoder,
        custom_decoder=decoder,
        batch_first=True,
        norm_first=norm_first,
    )
    # nn.Transformer's constructor re-initialises every weight matrix of its stacks, custom
    # ones included: put our layers in after it.
    theirs.encoder.layers = nn.ModuleList(
        [torch_encoder_layer(layer, norm_first) for layer in ours.encoder.layers]
    )
    theirs.decoder.layers = nn.ModuleList(
        [torch_decoder_layer(layer, norm_first) for layer in ours.decoder.layers]
    )
    return theirs.eval()


def torch_transformer_logits(
    ours: nn.Module, theirs: nn.Transformer, src_ids: torch.Tensor, tgt_ids: torch.Tensor
) -> torch.Tensor:
    """Logits (batch, len_tgt, tgt_vocab_size): our embeddings and positions, PyTorch's
    stacks, our output layer. PyTorch's bool masks mean True = blocked."""
    src_pads, tgt_pads = src_ids == ours.pad_id, tgt_ids == ours.pad_id  # True at <pad>
    future = ~look_ahead_mask(tgt_ids.shape[1])  # (len_tgt, len_tgt), True = a later token
    vectors = theirs(
        ours.positional_encoding(ours.src_embedding(src_ids)),  # (batch, len_src, d_model)
        ours.positional_encoding(ours.tgt_embedding(tgt_ids)),  # (batch, len_tgt, d_model)
        tgt_mask=future,
        src_key_padding_mask=src_pads,
        tgt_key_padding_mask=tgt_pads,
        memory_key_padding_mask=src_pads,
    )  # (batch, len_tgt, d_model)
    return ours.output(vectors)


def count_parameters(
    vocab_size: int,
    d_model: int,
    num_heads: int,
    num_layers: int,
    d_ff: int,
    tie_embeddings: bool,
    final_norm: bool = False,
) -> dict[str, int]:
    """The number of parameters of Transformer(vocab_size, vocab_size, d_model, num_heads,
    num_layers, d_ff, tie_embeddings=tie_embeddings, final_norm=final_norm), a post-LN
    model with a shared vocabulary, from the shapes alone.

    Returns {"embeddings": ..., "encoder": ..., "decoder": ..., "output": ...} (ints):
    the embedding tables (one shared matrix when tie_embeddings, else two); the encoder
    and the decoder stacks (with their final LayerNorms when final_norm); the output
    layer (its bias only when tie_embeddings: the weight is the shared matrix). The sum
    is sum(p.numel() for p in model.parameters()).
    """
    d_head = d_model // num_heads
    attention = 4 * (d_model * num_heads * d_head + d_model)  # w_q, w_k, w_v, w_o
    feed_forward = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)  # w_1, w_2
    layer_norm = 2 * d_model  # gain and bias
    encoder_layer = attention + feed_forward + 2 * layer_norm
    decoder_layer = 2 * attention + feed_forward + 3 * layer_norm
    final = layer_norm if final_norm else 0
    table = vocab_size * d_model
    return {
        "embeddings": table if tie_embeddings else 2 * table,
        "encoder": num_layers * encoder_layer + final,
        "decoder": num_layers * decoder_layer + final,
        "output": vocab_size if tie_embeddings else table + vocab_size,
    }


def quiz_autoregression() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return "b"


def greedy_decode(
    model: nn.Module, src_ids: torch.Tensor, max_len: int, bos_id: int, eos_id: int
) -> torch.Tensor:
    """Translate a batch greedily, one token at a time.

    model: a Transformer (encode, decode, pad_id), used as it is (put it in eval()
    mode first: dropout would make decoding random). src_ids: (batch, len_src) int64.
    Starts every target with <bos> (bos_id), then repeatedly feeds the tokens
    generated so far to model.decode and appends the most probable next token
    (argmax of the last position's logits). A row is finished once it has produced
    <eos>; after that it gets model.pad_id. Stops after max_len new tokens, or as soon
    as every row has finished.
    Returns an int64 tensor (batch, n), n <= max_len: each row the generated tokens
    without <bos>, up to and including <eos>, then pad ids.
    """
    with torch.no_grad():
        memory = model.encode(src_ids)  # (batch, len_src, d_model), computed once
        batch = src_ids.shape[0]
        tokens = torch.full((batch, 1), bos_id, dtype=torch.long)  # (batch, 1): <bos>
        finished = torch.zeros(batch, dtype=torch.bool)
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)  # (batch, len_so_far, vocab)
            next_token = logits[:, -1].argmax(dim=-1)  # (batch,)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished = finished | (next_token == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]  # drop <bos>
