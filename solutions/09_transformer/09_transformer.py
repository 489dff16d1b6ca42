# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 09 · The full Transformer
#
# (Draft master: the answer cells hold the contract of lesson 09; the lesson's prose,
# checks and demos are written around them.)

# %% nbgrader={"locked": true, "grade_id": "setup"}
import torch
from torch import nn

# Earlier lessons' building blocks, the reference versions.
from transformer_course.reference.decoder import Decoder
from transformer_course.reference.embeddings import TokenEmbedding
from transformer_course.reference.encoder import Encoder
from transformer_course.reference.masking import decoder_self_attention_mask, padding_mask
from transformer_course.reference.positional_encoding import PositionalEncoding


# %% nbgrader={"solution": true, "grade_id": "Transformer"}
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
    src_vocab_size == tgt_vocab_size (a shared vocabulary). final_norm=True gives
    each stack a final LayerNorm, as nn.Transformer has.

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
        ### BEGIN SOLUTION
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
        ### END SOLUTION

    def encode(self, src_ids: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)
        x = self.positional_encoding(self.src_embedding(src_ids))  # (batch, len_src, d_model)
        return self.encoder(x, src_mask)  # (batch, len_src, d_model)
        ### END SOLUTION

    def decode(
        self, tgt_ids: torch.Tensor, memory: torch.Tensor, src_ids: torch.Tensor
    ) -> torch.Tensor:
        ### BEGIN SOLUTION
        tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)  # (b, 1, len_tgt, len_tgt)
        src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))  # (batch, len_tgt, d_model)
        y = self.decoder(y, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)
        return self.output(y)  # (batch, len_tgt, tgt_vocab_size)
        ### END SOLUTION

    def forward(self, src_ids: torch.Tensor, tgt_ids: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)
        ### END SOLUTION


# %% nbgrader={"solution": true, "grade_id": "greedy_decode"}
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
    ### BEGIN SOLUTION
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
    ### END SOLUTION
