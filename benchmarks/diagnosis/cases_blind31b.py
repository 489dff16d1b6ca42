"""Held-out wrong answers, blind round 31 (helper b31b, 2026-11-30, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) after fix round 36, to measure
how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored`` in
``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind31b")

# Where these mistakes are reported (each page was read for this batch).
FFN_MULTIPLE_OF = "https://github.com/meta-llama/llama/issues/1019"
PRE_LN_NORM_UNUSED = "https://github.com/ml-explore/mlx/pull/210"
LAYERDROP = "https://github.com/facebookresearch/fairseq/issues/1667"
PRE_NORM_FIRST_INPUT_ONLY = "https://github.com/facebookresearch/xformers/pull/233"
FINAL_NORM_ALWAYS = "https://github.com/pytorch/pytorch/issues/50086"
POSITIONS_ALONG_BATCH = "https://github.com/songyangco/GETNext/issues/2"
MIN_LENGTH_BLOCKS_EOS = "https://github.com/huggingface/transformers/issues/5674"
EOS_AS_DECODER_START = "https://github.com/facebookresearch/fairseq/issues/4897"
MAX_LENGTH_COUNTS_START = "https://github.com/huggingface/transformers/issues/9855"
CLIP_SCALED_GRADIENTS = "https://github.com/rwth-i6/returnn/issues/1590"
OFF_TARGET_MASS = "https://github.com/paiml/aprender/pull/2199"

BLIND31B: list[Case] = [
    # ---- 07 encoder -----------------------------------------------------------------------
    _c(
        "ffn-hidden-width-rounded-to-multiple",
        L07,
        "PositionwiseFeedForward",
        "rounds the hidden width up to a multiple of 64 (LLaMA's multiple_of, 'for faster "
        "matrix products') before building w_1 and w_2, so any d_ff that is not a multiple "
        "of 64 (40, 100...) gets a wider hidden layer than asked: w_1 is (64, d_model) "
        "instead of (d_ff, d_model), and weights of the contract's shapes no longer load.",
        (
            r"multiple of|multiple_of|round\w* (up|d_ff|the (hidden )?width)",
            r"(hidden|inner|intermediate) (width|size|dim\w*|layer)\w*.{0,80}(not|isn.t|"
            r"instead of|rather than) (d_ff|the given|the requested)",
            r"(w_1|w_2|hidden)\b.{0,80}(wider|larger|bigger) than (d_ff|asked|requested)",
            r"\b64\b.{0,60}(d_ff|hidden)|(d_ff|hidden).{0,60}\b64\b",
        ),
        (
            r"(in|out)_features.{0,40}swapped|transpos",
            r"without (a )?bias|bias=False",
            r"(relu|activation) (is )?missing|no (relu|activation)",
            r"dropout (is )?(after|on the output|on the input)",
            r"hard-?coded (2048|4 ?\* ?d_model)|four times d_model",
        ),
        code="""
class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0, multiple_of=64):
        super().__init__()
        # keep the hidden width a multiple of 64, as LLaMA does: faster matrix products
        hidden = multiple_of * ((d_ff + multiple_of - 1) // multiple_of)
        self.w_1 = nn.Linear(d_model, hidden)
        self.w_2 = nn.Linear(hidden, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(torch.relu(self.w_1(x))))
""",
        source=FFN_MULTIPLE_OF,
    ),
    _c(
        "el-pre-ln-norm2-computed-not-used",
        L07,
        "EncoderLayer",
        "pre-LN: computes h = norm2(x) for the feed-forward sub-layer but then calls "
        "feed_forward(x) on the un-normalised stream, so norm2 is a no-op and the "
        "feed-forward block reads the raw residual stream (the attention sub-layer and "
        "post-LN are right).",
        (
            r"feed.?forward.{0,100}(un-?normali[sz]ed|raw|not normali[sz]ed|without (the )?"
            r"(norm|layer ?norm)|skips? norm2)",
            r"norm2.{0,100}(never used|not used|unused|discarded|thrown away|no-?op|ignored|"
            r"has no effect|is computed but)",
            r"(normali[sz]ed|norm2).{0,60}(not|never) (passed|fed|given) to the feed.?forward",
        ),
        (
            r"norm1.{0,40}(instead of|in place of) norm2",
            r"residual.{0,60}(normali[sz]ed|norm2\(x\))",
            r"(layer'?s? )?(original )?input.{0,60}(feed.?forward|second sub-?layer)",
            r"dropout.{0,60}(missing|on the residual|after the (sum|norm))",
            r"post-?ln.{0,40}(wrong|mistake)|norm(ali[sz]e)? the output",
        ),
        code="""
class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.feed_forward(x))
            return x
        attended = self.self_attn(x, x, x, mask)[0]
        x = self.norm1(x + self.dropout(attended))
        return self.norm2(x + self.dropout(self.feed_forward(x)))
""",
        source=PRE_LN_NORM_UNUSED,
    ),
    _c(
        "el-post-ln-ffn-residual-from-raw-sum",
        L07,
        "EncoderLayer",
        "post-LN: keeps the first sum x + dropout(attention) in a variable and feeds "
        "norm1 of it to the feed-forward block, but adds the un-normalised sum (not "
        "norm1's output) as the feed-forward sub-layer's residual: norm2(s + ffn(norm1(s))) "
        "instead of norm2(norm1(s) + ffn(norm1(s))). Pre-LN is right.",
        (
            r"residual.{0,120}(un-?normali[sz]ed (first )?sum|sum before norm1|before (norm1|the "
            r"first (layer ?)?norm))",
            r"(un-?normali[sz]ed|raw) (first )?sum.{0,80}(residual|added|add)",
            r"(adds?|added).{0,60}(x ?\+ ?(dropout\()?attn|the sum).{0,60}(instead of|rather "
            r"than|not) (norm1|the normali[sz]ed)",
            r"norm1'?s? (output|result).{0,60}(not|never) (added|used as the residual)",
        ),
        (
            r"(layer'?s? )?original input.{0,60}residual|residual.{0,60}(layer'?s? )?"
            r"(original )?input x\b",
            r"feed.?forward.{0,60}(reads|gets|takes).{0,40}(raw|attention output|attended)",
            r"norm(s)? (are )?swapped|norm1.{0,30}(twice|reused)",
            r"pre-?ln",
            r"dropout.{0,60}(missing|on the residual)",
        ),
        code="""
class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        summed = x + self.dropout(self.self_attn(x, x, x, mask)[0])
        normed = self.norm1(summed)
        return self.norm2(summed + self.dropout(self.feed_forward(normed)))
""",
    ),
    _c(
        "enc-layerdrop-at-dropout-rate",
        L07,
        "Encoder",
        "adds LayerDrop (fairseq's encoder_layerdrop) with the encoder's dropout as its "
        "rate: in training mode each layer is skipped at random with probability dropout "
        "(x passes through unchanged), so a train-mode encoder with dropout > 0 runs a "
        "random subset of its layers (none at all with dropout=1.0); eval mode and "
        "dropout=0 hide it.",
        (
            r"layer ?drop|drop(s|ping)? (whole |entire )?layers",
            r"skip(s|ped|ping)? .{0,40}layers?.{0,60}(random|at random|probability|training)",
            r"layers?.{0,60}(skipped|bypassed|not run).{0,60}(random|training|dropout)",
            r"random (subset|number) of (the )?layers",
        ),
        (
            r"dropout.{0,40}(not (passed|forwarded)|left out|missing|0\b)",
            r"(same|one|shared) layer (object )?.{0,30}(n|num_layers|several) times",
            r"final (layer ?)?norm",
            r"mask.{0,40}(not passed|dropped|first layer)",
            r"(last|one) layer (is )?(skipped|missing)|off-by-one",
        ),
        code="""
class Encoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
                 final_norm=None):
        super().__init__()
        self.layers = nn.ModuleList(
            EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)
        )
        if final_norm is None:
            final_norm = norm_first
        self.norm = LayerNorm(d_model) if final_norm else None
        self.layerdrop = dropout  # LayerDrop (Fan et al. 2019): regularise the depth too

    def forward(self, x, mask=None):
        for layer in self.layers:
            if self.training and torch.rand(()).item() < self.layerdrop:
                continue  # this layer is dropped for this batch
            x = layer(x, mask)
        if self.norm is not None:
            x = self.norm(x)
        return x
""",
        source=LAYERDROP,
    ),
    # ---- 08 decoder -----------------------------------------------------------------------
    _c(
        "dl-pre-ln-self-attention-query-only-normalised",
        L08,
        "DecoderLayer",
        "pre-LN: normalises only the query of the masked self-attention, "
        "self_attn(norm1(x), x, x, tgt_mask): its keys and values are the un-normalised "
        "stream x (the pre-norm wrapper that normalises its first input only). The "
        "cross-attention, the feed-forward sub-layer and post-LN are right.",
        (
            r"(keys?|values?).{0,80}(un-?normali[sz]ed|raw|not normali[sz]ed|without norm1)",
            r"(only|just) the quer(y|ies).{0,60}normali[sz]ed",
            r"norm1.{0,80}(only|just) (to|on) the quer(y|ies)",
            r"self.?attention.{0,80}(keys?|values?).{0,40}(x\b|the stream|un-?normali[sz]ed)",
        ),
        (
            r"memory.{0,60}normali[sz]ed|norm2\(memory\)",
            r"cross.?attention.{0,60}quer(y|ies).{0,40}(un-?normali[sz]ed|raw)",
            r"residual.{0,60}normali[sz]ed",
            r"(masks?|tgt_mask|src_mask).{0,40}(swapped|wrong|missing)",
            r"feed.?forward.{0,60}(un-?normali[sz]ed|norm2)",
        ),
        code="""
class DecoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            query = self.norm1(x)
            x = x + self.dropout(self.self_attn(query, x, x, tgt_mask)[0])
            query = self.norm2(x)
            x = x + self.dropout(self.cross_attn(query, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))
""",
        source=PRE_NORM_FIRST_INPUT_ONLY,
    ),
    _c(
        "dl-cross-attention-built-without-dropout",
        L08,
        "DecoderLayer",
        "builds the cross-attention as MultiHeadAttention(d_model, num_heads), leaving the "
        "dropout argument out (the self-attention line has it), so the cross-attention's "
        "weights are never dropped in training; eval mode, dropout=0 and dropout=1.0 "
        "(where the residual dropout zeroes the whole sub-layer anyway) hide it.",
        (
            r"cross.?attention.{0,100}(without|no|missing|lacks?) (its |the |attention )?dropout",
            r"cross.?attention.{0,100}dropout.{0,40}(not passed|left out|missing|never|0\b|"
            r"default)",
            r"dropout.{0,80}(not passed|left out|missing).{0,60}cross.?attention",
            r"cross_attn.{0,60}MultiHeadAttention\(d_model, num_heads\)",
        ),
        (
            r"feed.?forward.{0,60}(without|no|missing) (its )?dropout",
            r"residual dropout.{0,60}(missing|on the residual|default)",
            r"dropout.{0,40}(on|to) (the )?memory",
            r"self.?attention.{0,60}(without|no|missing) (its )?dropout",
            r"(masks?|src_mask|tgt_mask).{0,40}(swapped|wrong|missing)",
        ),
        code="""
class DecoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=False):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1, self.norm2, self.norm3 = LayerNorm(d_model), LayerNorm(d_model), LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))
""",
    ),
    _c(
        "dec-final-norm-none-means-always",
        L08,
        "Decoder",
        "reads final_norm=None as 'like nn.Transformer', which always ends its stacks with "
        "a LayerNorm: with the default final_norm=None a post-LN decoder gets a final norm "
        "too (a second LayerNorm right after the last layer's norm3, and `norm` is not "
        "None), where None should follow norm_first (no final norm for post-LN).",
        (
            r"final_norm=None.{0,120}(always|true|as if|treated|read)",
            r"(post-?ln|norm_first=False).{0,120}(final (layer ?)?norm|extra (layer ?)?norm|"
            r"norm (is )?not none)",
            r"none.{0,60}(should|must) follow norm_first|(not|instead of) follow(ing)? "
            r"norm_first",
            r"(second|extra|additional|two) (consecutive )?(layer ?)?norm",
        ),
        (
            r"final norm.{0,60}(every|each) layer",
            r"final norm.{0,60}(never|not) (applied|built)",
            r"(before|on the input).{0,30}(loop|layers)",
            r"memory.{0,40}normali[sz]ed",
            r"norm_first.{0,40}(not (passed|forwarded)|ignored)",
            r"masks?.{0,40}(swapped|order)",
        ),
        code="""
class Decoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
                 final_norm=None):
        super().__init__()
        self.layers = nn.ModuleList(
            [DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]
        )
        if final_norm is None:
            final_norm = True  # nn.Transformer ends both of its stacks with a LayerNorm
        self.norm = LayerNorm(d_model) if final_norm else None

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        if self.norm is not None:
            x = self.norm(x)
        return x
""",
        source=FINAL_NORM_ALWAYS,
    ),
    # ---- 09 transformer -------------------------------------------------------------------
    _c(
        "tr-embedding-added-to-positional-output",
        L09,
        "Transformer",
        "treats PositionalEncoding as if it returned the positions only and writes "
        "x = emb + self.positional_encoding(emb) on both sides: the module already returns "
        "dropout(emb + pe), so every token's scaled embedding is counted twice "
        "(2 * emb + pe in eval mode).",
        (
            r"(embedding|emb)s?.{0,80}(twice|two times|doubled|added (again|twice)|counted twice)",
            r"positional.?encoding.{0,120}(already (adds|includes|returns)|returns? .{0,30}"
            r"(emb\w* ?\+|x ?\+|the sum))",
            r"2 ?\* ?(the )?emb|2x the embedding|x ?\+ ?(self\.)?positional_encoding\(x\)",
        ),
        (
            r"positions?.{0,40}(twice|two times|added again)|positional encoding.{0,30}"
            r"(applied )?twice",
            r"(scaled|sqrt\(d_model\)|sqrt d_model).{0,40}(twice|missing|not)",
            r"dropout.{0,40}(twice|missing|not passed)",
            r"(mask|masks).{0,40}(swapped|wrong|missing)",
            r"no positions|positional encoding (is )?missing",
        ),
        code="""
class Transformer(nn.Module):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_layers=6,
                 d_ff=2048, dropout=0.1, max_len=512, pad_id=0, tie_embeddings=False,
                 norm_first=False, final_norm=None):
        super().__init__()
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError("tie_embeddings needs src_vocab_size == tgt_vocab_size")
        self.pad_id = pad_id
        self.src_embedding = TokenEmbedding(src_vocab_size, d_model)
        self.tgt_embedding = TokenEmbedding(tgt_vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)
        self.encoder = Encoder(num_layers, d_model, num_heads, d_ff, dropout, norm_first,
                               final_norm)
        self.decoder = Decoder(num_layers, d_model, num_heads, d_ff, dropout, norm_first,
                               final_norm)
        self.output = nn.Linear(d_model, tgt_vocab_size)
        if tie_embeddings:
            shared = self.src_embedding.embedding.weight
            self.tgt_embedding.embedding.weight = shared
            self.output.weight = shared

    def encode(self, src_ids):
        x = self.src_embedding(src_ids)
        x = x + self.positional_encoding(x)  # add the position vectors
        return self.encoder(x, padding_mask(src_ids, self.pad_id))

    def decode(self, tgt_ids, memory, src_ids):
        y = self.tgt_embedding(tgt_ids)
        y = y + self.positional_encoding(y)
        y = self.decoder(
            y,
            memory,
            padding_mask(src_ids, self.pad_id),
            decoder_self_attention_mask(tgt_ids, self.pad_id),
        )
        return self.output(y)

    def forward(self, src_ids, tgt_ids):
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)
""",
    ),
    _c(
        "tr-positions-added-along-batch-axis",
        L09,
        "Transformer",
        "transposes the embeddings to the (len, batch, d_model) layout of PyTorch's "
        "tutorial before the positional encoding and back after it, on both sides: the "
        "course's PositionalEncoding reads axis 1 as the positions, so it adds pe[b] to "
        "every token of sentence b (one vector per sentence, indexed by its place in the "
        "batch) instead of pe[t] to the token at position t.",
        (
            r"(positions?|positional encoding).{0,100}(batch (axis|dim\w*|index)|along the batch|"
            r"by (its|the) (place|index|row) in the batch)",
            r"(same|one) (positional )?(vector|encoding|position).{0,60}(every|all) (tokens?|"
            r"positions?) of (a|each|the) sentence",
            r"transpos\w*.{0,60}(before|around|for) the positional encoding|\(?len, ?batch, ?"
            r"d_model\)?|seq(uence)?[- ]first",
            r"pe\[b\]|sentence b\b",
        ),
        (
            r"positions?.{0,40}(twice|added again)|positional encoding.{0,30}twice",
            r"(scaled|sqrt\(d_model\)).{0,40}(twice|missing)",
            r"(no|missing) positions?|positional encoding (is )?missing",
            r"(masks?).{0,40}(swapped|wrong|missing|transposed)",
            r"dropout.{0,40}(twice|missing|not passed)",
        ),
        code="""
class Transformer(nn.Module):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_layers=6,
                 d_ff=2048, dropout=0.1, max_len=512, pad_id=0, tie_embeddings=False,
                 norm_first=False, final_norm=None):
        super().__init__()
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError("tied embeddings need one shared vocabulary")
        self.pad_id = pad_id
        self.src_embedding = TokenEmbedding(src_vocab_size, d_model)
        self.tgt_embedding = TokenEmbedding(tgt_vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)
        stack = dict(dropout=dropout, norm_first=norm_first, final_norm=final_norm)
        self.encoder = Encoder(num_layers, d_model, num_heads, d_ff, **stack)
        self.decoder = Decoder(num_layers, d_model, num_heads, d_ff, **stack)
        self.output = nn.Linear(d_model, tgt_vocab_size)
        if tie_embeddings:
            self.tgt_embedding.embedding.weight = self.src_embedding.embedding.weight
            self.output.weight = self.src_embedding.embedding.weight

    def _embed(self, embedding, ids):
        x = embedding(ids).transpose(0, 1)  # (len, batch, d_model), as in the tutorial
        return self.positional_encoding(x).transpose(0, 1)  # back to (batch, len, d_model)

    def encode(self, src_ids):
        src_mask = padding_mask(src_ids, self.pad_id)
        return self.encoder(self._embed(self.src_embedding, src_ids), src_mask)

    def decode(self, tgt_ids, memory, src_ids):
        tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)
        src_mask = padding_mask(src_ids, self.pad_id)
        y = self.decoder(self._embed(self.tgt_embedding, tgt_ids), memory, src_mask, tgt_mask)
        return self.output(y)

    def forward(self, src_ids, tgt_ids):
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)
""",
        source=POSITIONS_ALONG_BATCH,
    ),
    _c(
        "gd-eos-blocked-at-first-step",
        L09,
        "greedy_decode",
        "forbids <eos> at the first step (sets its logit to -inf there, a min_length of 1 "
        "'so that no translation is empty'): a row whose most probable first token is "
        "<eos> gets its runner-up instead, and goes on generating where greedy decoding "
        "would have stopped it at once.",
        (
            r"(<eos>|eos).{0,80}(blocked|forbidden|suppressed|masked|banned|-inf|not allowed|"
            r"never (chosen|picked|allowed)).{0,60}first",
            r"first (step|token|position).{0,80}(<eos>|eos).{0,40}(blocked|forbidden|"
            r"suppressed|masked|-inf|not allowed|excluded)",
            r"min(imum)?[_ ]length|empty translation",
        ),
        (
            r"(stops?|break).{0,40}(any|first) row",
            r"pad(ded|s)? with (<eos>|eos)|eos_id instead of (model\.)?pad_id",
            r"(<pad>|<bos>|pad and bos).{0,40}(suppressed|blocked|masked)",
            r"(one step|max_len ?[-+] ?1|off-by-one)",
            r"finished.{0,60}(before|reassigned|forgotten)",
        ),
        code="""
def greedy_decode(model, src_ids, max_len, bos_id, eos_id):
    batch = src_ids.size(0)
    with torch.no_grad():
        memory = model.encode(src_ids)
        out = torch.full((batch, 1), bos_id, dtype=torch.long)
        done = torch.zeros(batch, dtype=torch.bool)
        for step in range(max_len):
            scores = model.decode(out, memory, src_ids)[:, -1, :]
            if step == 0:
                scores[:, eos_id] = float("-inf")  # min length 1: no empty translations
            token = scores.argmax(dim=-1)
            token = torch.where(done, torch.full_like(token, model.pad_id), token)
            out = torch.cat([out, token.unsqueeze(1)], dim=1)
            done = done | (token == eos_id)
            if bool(done.all()):
                break
    return out[:, 1:]
""",
        source=MIN_LENGTH_BLOCKS_EOS,
    ),
    # ---- 10 training ----------------------------------------------------------------------
    _c(
        "mb-decoder-input-starts-with-eos",
        L10,
        "make_batches",
        "builds decoder_input the fairseq way, by moving the <eos> of target + [eos_id] to "
        "the front: every decoder_input row starts with <eos> instead of <bos> "
        "([eos_id] + target; bos_id is never used), while the labels are right.",
        (
            r"(decoder.?input|decoder's input).{0,100}(starts?|begins?) with (<eos>|eos)",
            r"(<eos>|eos).{0,60}(instead of|in place of|rather than) (<bos>|bos)",
            r"(<bos>|bos_id|bos).{0,60}(never used|missing|not used|absent)",
            r"(moves?|rotat\w*|roll\w*) (the )?(<eos>|eos) to the (front|start|beginning)",
        ),
        (
            r"labels?.{0,60}(start|begin) with (<bos>|bos)|labels?.{0,40}(keep|include) (<bos>|bos)",
            r"(decoder.?input|input).{0,40}(ends?|keeps?) .{0,20}(<eos>|eos)",
            r"(input|decoder.?input) and labels? (are )?swapped",
            r"pad(ded|ding)? on the left|left.?pad",
            r"(<pad>|pad_id).{0,40}(start|front)",
        ),
        code="""
def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                 shuffle=False, seed=0):
    order = list(range(len(pairs)))
    if shuffle:
        rng = torch.Generator().manual_seed(seed)
        order = torch.randperm(len(pairs), generator=rng).tolist()
    batches = []
    for start in range(0, len(pairs), batch_size):
        chunk = [pairs[i] for i in order[start:start + batch_size]]
        labels = [[*target, eos_id] for _, target in chunk]
        # teacher forcing: shift right by moving the last token (<eos>) to the front
        decoder_input = [[row[-1], *row[:-1]] for row in labels]
        batches.append({
            "src": torch.from_numpy(pad_batch([list(src) for src, _ in chunk], pad_id)),
            "decoder_input": torch.from_numpy(pad_batch(decoder_input, pad_id)),
            "labels": torch.from_numpy(pad_batch(labels, pad_id)),
        })
    return batches
""",
        source=EOS_AS_DECODER_START,
    ),
    _c(
        "bs-max-len-counts-bos",
        L10,
        "beam_search",
        "counts the start token in max_len, as Hugging Face's generate() does with "
        "max_length (cur_len starts at 1 for <bos>): the search runs at most max_len - 1 "
        "steps, so a hypothesis is never longer than max_len - 1 tokens, and a search that "
        "does not stop early returns one token fewer than allowed (nothing at all for "
        "max_len=1).",
        (
            r"max_len ?- ?1|one (step|token) (fewer|less|short)|one step too few",
            r"(counts?|includ\w*).{0,40}(<bos>|bos|start token).{0,60}(max_len|length limit)",
            r"max_len.{0,80}(counts?|includ\w*).{0,30}(<bos>|bos|start token)",
            r"off.by.one.{0,80}(steps?|max_len|length)",
        ),
        (
            r"max_len ?\+ ?1|one (step|token) too many",
            r"length penalty.{0,80}(<bos>|bos|without (<eos>|eos))",
            r"(stop|stopping) rule|stops? (too )?early",
            r"(<eos>|eos).{0,40}(takes|slot|place in the beam)",
            r"(best|worst) (live|finished)",
        ),
        code="""
def beam_search(model, src_ids, beam_size, max_len, bos_id, eos_id, length_penalty=0.0):
    def normalised(hyp):
        tokens, score = hyp
        return score / ((5 + len(tokens)) / 6) ** length_penalty

    answers = []
    with torch.no_grad():
        for row in range(src_ids.size(0)):
            src = src_ids[row:row + 1]
            memory = model.encode(src)
            beam, finished = [([], 0.0)], []
            cur_len = 1  # the <bos> already counts towards max_len, as in generate()
            while cur_len < max_len:
                k = len(beam)
                tokens = torch.tensor([[bos_id, *t] for t, _ in beam])
                logits = model.decode(tokens, memory.expand(k, -1, -1), src.expand(k, -1))
                log_probs = torch.log_softmax(logits[:, -1], dim=-1)
                scores = torch.tensor([s for _, s in beam]).unsqueeze(1) + log_probs
                vocab = scores.size(1)
                new_beam = []
                for index in scores.flatten().argsort(descending=True, stable=True).tolist():
                    parent, token = divmod(index, vocab)
                    hyp = (beam[parent][0] + [token], scores[parent, token].item())
                    if token == eos_id:
                        finished.append(hyp)
                    else:
                        new_beam.append(hyp)
                        if len(new_beam) == beam_size:
                            break
                beam = new_beam
                cur_len += 1
                if finished and max(normalised(h) for h in finished) >= beam[0][1]:
                    break
            answers.append(max(finished or beam, key=normalised)[0])
    width = max(len(a) for a in answers)
    out = torch.full((len(answers), width), model.pad_id, dtype=torch.long)
    for row, tokens in enumerate(answers):
        out[row, :len(tokens)] = torch.tensor(tokens, dtype=torch.long)
    return out
""",
        source=MAX_LENGTH_COUNTS_START,
    ),
    _c(
        "ts-clips-scaled-gradients",
        L10,
        "train_step",
        "adds loss scaling with a torch.amp.GradScaler (scaler.scale(loss).backward(), "
        "scaler.step(optimizer)) but clips the gradients while they are still scaled, "
        "without scaler.unscale_(optimizer) first: the clip compares clip_norm with a norm "
        "65536 times too large, and once the scaler divides the clipped gradients by the "
        "scale, the step is about 65536 times too small whenever clip_norm is set (with "
        "clip_norm=None the step is right).",
        (
            r"unscale",
            r"(clip\w*).{0,100}(scaled|still scaled|before (un-?scal|dividing))",
            r"(grad(ient)?[ _]?scaler|loss scal\w*|amp\b).{0,120}clip",
            r"65536|2 ?\*\* ?16|(by|with) the (loss )?scale\b",
        ),
        (
            r"clip\w*.{0,40}after (the )?(optimi[sz]er'?s? )?step",
            r"clip\w*.{0,40}before (the )?backward",
            r"clip_grad_value|clip\w* (by|each) (value|parameter)",
            r"zero_grad.{0,60}(missing|never|before (the )?step)",
            r"(eval|train)\(\).{0,40}(missing|not called)|training mode",
        ),
        code="""
def train_step(model, batch, optimizer, loss_fn, clip_norm=1.0):
    scaler = torch.amp.GradScaler("cpu")  # loss scaling, as in PyTorch's AMP recipe
    model.train()
    src, decoder_input, labels = batch
    loss = loss_fn(model(src, decoder_input), labels)
    scaler.scale(loss).backward()
    if clip_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss.item()
""",
        source=CLIP_SCALED_GRADIENTS,
    ),
    _c(
        "ls-off-target-mass-one-minus-eps-over-v",
        L10,
        "label_smoothed_loss",
        "spreads (1 - smoothing) / V instead of smoothing / V over the vocabulary when it "
        "builds the soft target, q = (1 - smoothing) * one_hot(y) + (1 - smoothing) / V: "
        "the uniform part gets weight 1 - smoothing (0.9) instead of smoothing (0.1), so q "
        "sums to 2 - 2 * smoothing and the loss is much too large (right only when "
        "smoothing=0.5).",
        (
            r"\(?1 ?- ?(smoothing|eps\w*|ε)\)? ?/ ?V",
            r"(uniform|smooth\w*) (part|term|share|mass).{0,80}(1 ?- ?(smoothing|eps\w*|ε)|0\.9)",
            r"(sums?|adds up) to (2|more than 1|1\.8)|not (a )?(probability )?distribution",
            r"off.?target.{0,60}(mass|share|probabilit\w*).{0,60}(1 ?- ?|wrong|too (large|big))",
        ),
        (
            r"V ?- ?1|V ?- ?2",
            r"(weights?|terms?) (are )?swapped",
            r"kl",
            r"pad\w*.{0,60}(counted|included|not (excluded|ignored|masked))",
            r"log.?softmax.{0,40}(axis|dim)|log of (the )?softmax",
        ),
        code="""
def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    vocab = logits.size(-1)
    log_probs = F.log_softmax(logits, dim=-1)
    real = labels != pad_id
    one_hot = F.one_hot(labels.masked_fill(~real, 0), vocab).to(log_probs.dtype)
    soft_target = (1 - smoothing) * one_hot + (1 - smoothing) / vocab
    loss = -(soft_target * log_probs).sum(dim=-1)
    return loss[real].mean()
""",
        source=OFF_TARGET_MASS,
    ),
    _c(
        "qlf-right-token-keeps-only-one-minus-eps",
        L10,
        "quiz_loss_floor",
        "computes the entropy of a target that gives the right token 1 - eps = 0.9 and "
        "each other token eps / V = 0.01 (forgetting the right token's own eps / V, so q "
        "sums to 0.99): -0.9 ln 0.9 - 9 * 0.01 ln 0.01 = 0.509 instead of 0.500.",
        (
            r"q_?y.{0,40}(1 ?- ?(eps|ε|smoothing) ?\+ ?(eps|ε|smoothing) ?/ ?V|0\.91)",
            r"(right|correct|true) (token|class|label).{0,80}(own|its|also gets) "
            r"(eps|ε|smoothing|share)",
            r"0\.91\b",
            r"sums? to 0\.99|does not sum to (1|one)",
        ),
        (
            r"V ?- ?1|0\.545",
            r"\bbits?\b|log(arithm)? base 2|log2",
            r"\b0\b.{0,30}(kl|minimum)|kl divergence",
            r"log ?\(?V\)?|2\.30",
            r"-? ?ln\(?0\.9\)?|0\.105",
        ),
        code="""
def quiz_loss_floor():
    return 0.509
""",
    ),
]
