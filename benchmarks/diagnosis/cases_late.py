"""Held-out wrong answers for lessons 07, 08, 09, 11 and 12 (issue 22, second round).

Written, with their causes and judging criteria, before any check was run on them and
before any check of this round was changed: the figures over them measure how the
diagnoses generalise. Each is a learner's answer written for this benchmark (edits of the
course's reference, or code of our own); nothing is copied from a public repository. The
URLs are the threads read for this benchmark where learners (or maintainers) report the
mistake; "author: ..." where no report was found in the time given.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

L07, L08, L09 = "07_encoder", "08_decoder", "09_transformer"
L11, L12 = "11_language_model", "12_inference"

# Where these mistakes are reported (each URL was read for this benchmark).
PRENORM_RESIDUAL = "https://github.com/Howuhh/faster-trajectory-transformer/issues/3"
PRENORM_RESIDUAL_2 = "https://github.com/lbcb-sci/RiNALMo/issues/9"
PRENORM_INSIDE = "https://github.com/probml/pml-book/issues/709"
CROSS_QUERY_UNNORMED = "https://github.com/ml-explore/mlx/pull/210"
CROSS_QUERY_ROUTING = "https://github.com/ml-explore/mlx/pull/3382"
CROSS_MEMORY_NORMED = "https://github.com/apple/ml-cvnets/pull/82"
CROSS_MASK = "https://github.com/Kamichanw/SeekDeeper/issues/3"
NORM_OVER_SEQUENCE = "https://github.com/bkitano/llama-from-scratch/issues/4"
RMS_RSQRT = "https://github.com/mosaicml/llm-foundry/issues/371"
RMS_L2 = "https://github.com/allenai/OLMo/issues/281"
GET_BATCH_BOUND = "https://github.com/karpathy/ng-video-lecture/issues/56"
TEMPERATURE_ORDER = "https://github.com/fishaudio/fish-speech/pull/1150"
TOPK_TOPP_ORDER = "https://github.com/EleutherAI/gpt-neox/issues/1250"
GQA_EXPAND = "https://github.com/vllm-project/vllm-ascend/pull/2758"
GQA_TILE = "https://github.com/ekzhang/jax-js/pull/180"
ROPE_OFFSET = "https://github.com/skyzh/tiny-llm/pull/46"
HEADS_RESHAPE = "https://github.com/jsbaan/transformer-from-scratch/pull/6"
ONLINE_SOFTMAX = "https://github.com/PaddleJitLab/CUDATutorial/issues/69"
TIED_HEAD = "https://github.com/karpathy/nanoGPT/pull/21"
MODULE_LIST = (
    "https://discuss.pytorch.org/t/when-should-i-use-nn-modulelist-and-when-should-i-use-"
    "nn-sequential/5463"
)
GREEDY = "https://crackedaicode.com/problems/encoder-decoder-greedy-decode"
AUTHOR = "author: written for this benchmark, no public report cited"

CASES: list[Case] = [
    # ------------------------------------------------------------------ 07 encoder
    Case(
        "ho-ln-no-keepdim",
        L07,
        "LayerNorm",
        "takes the mean and the variance without keepdim=True, so they do not broadcast "
        "against x's feature axis.",
        AUTHOR,
        (r"keepdim",),
        edits=(
            ("mean = x.mean(dim=-1, keepdim=True)", "mean = x.mean(dim=-1)"),
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = x.var(dim=-1, unbiased=False)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-ln-gain-bias-swapped",
        L07,
        "LayerNorm",
        "multiplies by the bias and adds the gain: weight and bias are swapped.",
        AUTHOR,
        (r"(weight|gain).{0,60}bias.{0,60}(swap|exchang|wrong way|other way)|swap",),
        (r"unbiased|axis|eps",),
        edits=(
            (
                "return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
                "return self.bias * (x - mean) / torch.sqrt(variance + self.eps) + self.weight",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-ln-over-sequence",
        L07,
        "LayerNorm",
        "normalises over the positions and the features together (dims -2 and -1), one "
        "mean per sequence instead of per token.",
        NORM_OVER_SEQUENCE,
        (r"position|sequence|per token|each token|dim=\(-2, -1\)|two axes",),
        (r"batch axis",),
        edits=(
            ("mean = x.mean(dim=-1, keepdim=True)", "mean = x.mean(dim=(-2, -1), keepdim=True)"),
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = x.var(dim=(-2, -1), keepdim=True, unbiased=False)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-ffn-gelu",
        L07,
        "PositionwiseFeedForward",
        "uses GELU (as BERT and GPT do) instead of the paper's ReLU.",
        AUTHOR,
        (r"gelu|relu",),
        edits=(
            ("hidden = torch.relu(self.w_1(x))", "hidden = torch.nn.functional.gelu(self.w_1(x))"),
        ),
        heldout=True,
    ),
    Case(
        "ho-ffn-dropout-on-output",
        L07,
        "PositionwiseFeedForward",
        "applies the dropout to the output of w_2 instead of to the hidden activations.",
        AUTHOR,
        (r"dropout.{0,80}(hidden|between|w_2|relu)|(hidden|relu).{0,60}dropout",),
        edits=(
            (
                "return self.w_2(self.dropout(hidden))",
                "return self.dropout(self.w_2(hidden))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-enc-prenorm-residual-normed",
        L07,
        "EncoderLayer",
        "in the pre-LN path the attention's residual adds the normalised input norm1(x) "
        "instead of x itself.",
        PRENORM_RESIDUAL,
        (r"residual.{0,100}(norm1\(x\)|normali[sz]ed|un-?normali[sz]ed)|norm1\(x\) \+",),
        (r"post.?norm|norm_first is ignored",),
        edits=(
            (
                "x = x + self.dropout(self.self_attn(h, h, h, mask)[0])",
                "x = h + self.dropout(self.self_attn(h, h, h, mask)[0])",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-enc-no-mask",
        L07,
        "EncoderLayer",
        "never passes the padding mask to the self-attention.",
        AUTHOR,
        (r"mask",),
        edits=(
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x)[0]))",
            ),
            (
                "x = x + self.dropout(self.self_attn(h, h, h, mask)[0])",
                "x = x + self.dropout(self.self_attn(h, h, h)[0])",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-enc-shared-layer",
        L07,
        "Encoder",
        "builds the stack as [EncoderLayer(...)] * num_layers: one layer object, the same "
        "weights, repeated.",
        MODULE_LIST,
        (r"same (layer|object|module|weights)|shared|independent|\* num_layers|distinct",),
        edits=(
            (
                "[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]",
                "[EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)] * num_layers",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-enc-final-norm-never",
        L07,
        "Encoder",
        "reads final_norm=None as 'no final norm', so a pre-LN stack (norm_first=True) gets none.",
        AUTHOR,
        (r"final (layer)?norm",),
        edits=(
            (
                "use_final_norm = norm_first if final_norm is None else final_norm",
                "use_final_norm = bool(final_norm)",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 08 decoder
    Case(
        "ho-dec-prenorm-cross-query-unnormed",
        L08,
        "DecoderLayer",
        "in the pre-LN path the cross-attention's queries are x instead of norm2(x) "
        "(norm2 computed but unused).",
        CROSS_QUERY_UNNORMED,
        (r"norm2|quer(y|ies).{0,80}normali[sz]ed|un-?normali[sz]ed.{0,40}quer",),
        (r"memory.{0,40}norm",),
        edits=(
            (
                "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "x = x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0])",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-dec-prenorm-memory-normed",
        L08,
        "DecoderLayer",
        "in the pre-LN path the memory is normalised too (norm2(memory) as keys and values).",
        CROSS_MEMORY_NORMED,
        (r"memory.{0,80}(norm|normali[sz]ed)|(norm|normali[sz]).{0,60}memory",),
        edits=(
            (
                "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "m = self.norm2(memory)\n"
                "            x = x + self.dropout(self.cross_attn(h, m, m, src_mask)[0])",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-dec-cross-query-sublayer-output",
        L08,
        "DecoderLayer",
        "in the post-LN path the cross-attention's queries are the self-attention's raw "
        "output, not the normalised residual sum norm1(x + ...).",
        CROSS_QUERY_ROUTING,
        (
            r"quer(y|ies).{0,100}(self.attention|norm1|residual)"
            r"|self.attention.{0,60}(output|result).{0,60}quer",
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
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        y = self.dropout(self.self_attn(x, x, x, tgt_mask)[0])
        x = self.norm1(x + y)
        y = self.dropout(self.cross_attn(y, memory, memory, src_mask)[0])
        x = self.norm2(x + y)
        return self.norm3(x + self.dropout(self.feed_forward(x)))
""",
        heldout=True,
    ),
    Case(
        "ho-dec-cross-tgt-mask",
        L08,
        "DecoderLayer",
        "passes the target mask (look-ahead) to the cross-attention instead of the source "
        "padding mask.",
        CROSS_MASK,
        (r"src_mask|source (padding )?mask",),
        edits=(
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, tgt_mask)[0]))",
            ),
            (
                "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "x = x + self.dropout(self.cross_attn(h, memory, memory, tgt_mask)[0])",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-dec-no-self-residual",
        L08,
        "DecoderLayer",
        "the masked self-attention sublayer has no residual connection (post-LN path).",
        AUTHOR,
        (r"residual|skip connection",),
        edits=(
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
                "x = self.norm1(self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-dec-ffn-before-cross",
        L08,
        "DecoderLayer",
        "runs the feed-forward sublayer before the cross-attention (post-LN path).",
        AUTHOR,
        (r"order|before|after",),
        edits=(
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))\n"
                "        return self.norm3(x + self.dropout(self.feed_forward(x)))",
                "x = self.norm3(x + self.dropout(self.feed_forward(x)))\n"
                "        return self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-dec-final-norm-every-layer",
        L08,
        "Decoder",
        "applies the final norm after every layer (inside the loop) instead of once at the end.",
        AUTHOR,
        (r"final (layer)?norm.{0,100}(every|each|once|inside|loop)|after (every|each) layer",),
        edits=(
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(x, memory, src_mask, tgt_mask)\n"
                "            if self.norm is not None:\n"
                "                x = self.norm(x)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-dec-self-as-memory",
        L08,
        "Decoder",
        "passes the decoder's own state as the memory of every layer instead of the encoder "
        "output.",
        AUTHOR,
        (r"memory",),
        edits=(
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(x, x, src_mask, tgt_mask)",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 09 transformer
    Case(
        "ho-tr-cross-unmasked",
        L09,
        "Transformer",
        "passes no source mask to the decoder, so the cross-attention attends to the "
        "source's padding.",
        CROSS_MASK,
        (r"src_mask|source (padding )?mask|cross.attention.{0,60}(mask|pad)",),
        edits=(
            (
                "y = self.decoder(y, memory, src_mask, tgt_mask)",
                "y = self.decoder(y, memory, None, tgt_mask)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-tr-encoder-unmasked",
        L09,
        "Transformer",
        "runs the encoder without the source padding mask.",
        AUTHOR,
        (r"encoder.{0,80}mask|src_mask|source (padding )?mask",),
        edits=(("return self.encoder(x, src_mask)", "return self.encoder(x)"),),
        heldout=True,
    ),
    Case(
        "ho-tr-positions-twice",
        L09,
        "Transformer",
        "adds the positional encoding twice on the target side.",
        AUTHOR,
        (r"twice|two times|more than once|again",),
        edits=(
            (
                "y = self.positional_encoding(self.tgt_embedding(tgt_ids))",
                "y = self.positional_encoding(self.positional_encoding(self.tgt_embedding(tgt_ids)))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-tr-tie-embeddings-not-output",
        L09,
        "Transformer",
        "ties the two embeddings to each other but leaves the output layer's weight its own.",
        TIED_HEAD,
        (r"output",),
        edits=(("self.output.weight = self.src_embedding.embedding.weight", "pass"),),
        heldout=True,
    ),
    Case(
        "ho-count-ffn-no-bias",
        L09,
        "count_parameters",
        "forgets the biases of the feed-forward network's two linear layers.",
        AUTHOR,
        (r"bias.{0,80}(feed.forward|w_1|w_2)|(feed.forward|w_1|w_2).{0,80}bias",),
        (r"attention",),
        edits=(
            (
                "feed_forward = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)",
                "feed_forward = d_model * d_ff + d_ff * d_model",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-count-attention-no-wo",
        L09,
        "count_parameters",
        "counts three attention projections (w_q, w_k, w_v) and forgets the output projection w_o.",
        AUTHOR,
        (r"w_o|output projection|four projections|4 \*",),
        (r"bias",),
        edits=(
            (
                "attention = 4 * (d_model * num_heads * d_head + d_model)",
                "attention = 3 * (d_model * num_heads * d_head + d_model)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-count-final-norm-encoder-only",
        L09,
        "count_parameters",
        "adds the final LayerNorm to the encoder only, not to the decoder.",
        AUTHOR,
        (r"final.{0,80}decoder|decoder.{0,80}final",),
        edits=(
            (
                "'decoder': num_layers * decoder_layer + final",
                "'decoder': num_layers * decoder_layer",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-count-tied-two-tables",
        L09,
        "count_parameters",
        "counts two embedding tables even when they are tied (shared).",
        AUTHOR,
        (r"tied|shared|tie",),
        edits=(
            (
                "'embeddings': table if tie_embeddings else 2 * table",
                "'embeddings': 2 * table",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-greedy-finished-forgotten",
        L09,
        "greedy_decode",
        "recomputes `finished` from the current token only (no |), so a row that produced "
        "<eos> starts generating again on the next step.",
        GREEDY,
        (r"after <eos>|finished|stay|once a row|pad_id after|remember",),
        edits=(
            (
                "finished = finished | (next_token == eos_id)",
                "finished = next_token == eos_id",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-greedy-one-step-short",
        L09,
        "greedy_decode",
        "loops max_len - 1 times, so at most max_len - 1 tokens are generated.",
        AUTHOR,
        (r"max_len|one (token|step) (too few|short)|too short|stops? early",),
        edits=(("for _ in range(max_len):", "for _ in range(max_len - 1):"),),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 11 language model
    Case(
        "ho-ntb-last-start-excluded",
        L11,
        "next_token_batches",
        "draws starts from 0 to num_tokens - block_size - 2 (one bound too small), so the "
        "last window is never drawn.",
        GET_BATCH_BOUND,
        (
            r"last (start|window)|never drawn|num_tokens - block_size - 1|every start|one too (few|small)",
        ),
        edits=(
            (
                "torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)",
                "torch.randint(0, len(tokens) - block_size - 1, (batch_size,), generator=generator)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-rms-divides-by-rsqrt",
        L11,
        "RMSNorm",
        "divides by torch.rsqrt(...) (already the reciprocal) instead of multiplying.",
        RMS_RSQRT,
        (r"rsqrt|reciprocal|multipl|inverse",),
        edits=(
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return x / torch.rsqrt(mean_square + self.eps) * self.weight",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-rms-l2-norm",
        L11,
        "RMSNorm",
        "divides by the L2 norm of the features (x.norm(dim=-1)), forgetting the mean: off "
        "by sqrt(d_model).",
        RMS_L2,
        (r"sqrt\(d_model\)|L2 norm|\bmean\b.{0,40}(square|not the sum)|sum of squares|root mean",),
        (r"subtract|eps",),
        edits=(
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.pow(2).sum(dim=-1, keepdim=True)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-rope-angles-transposed",
        L11,
        "rotary_embedding",
        "builds the angle table as theta[:, None] * positions: (d_head // 2, length), transposed.",
        AUTHOR,
        (r"transpos|\(length, d_head // 2\)|swapped axes|shape",),
        edits=(
            (
                "angles = torch.arange(length, dtype=torch.float64)[:, None] * theta",
                "angles = theta[:, None] * torch.arange(length, dtype=torch.float64)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-rotary-no-minus",
        L11,
        "apply_rotary",
        "forgets the minus sign: the first half becomes a*cos + b*sin (not a rotation).",
        AUTHOR,
        (r"sign|minus|rotation matrix|not a rotation",),
        edits=(
            (
                "return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "return torch.cat([a * cos + b * sin, a * sin + b * cos], dim=-1)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-rotary-adjacent-written-as-halves",
        L11,
        "apply_rotary",
        "rotates adjacent pairs (x[2i], x[2i+1]) but writes the results back as halves "
        "(first components, then second ones): a layout mismatch.",
        AUTHOR,
        (r"adjacent|interleav|halves|layout|pairs.{0,60}(written|back|order)",),
        code="""
def apply_rotary(x, cos, sin):
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
""",
        heldout=True,
    ),
    Case(
        "ho-swiglu-silu-on-product",
        L11,
        "SwiGLU",
        "applies silu to the product w1(x) * w3(x) instead of to the gate w1(x) alone.",
        AUTHOR,
        (r"silu.{0,80}(gate|w1\(x\) alone|only)|gate.{0,60}silu|product",),
        edits=(
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(F.silu(self.w1(x) * self.w3(x)))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-csa-rope-before-split",
        L11,
        "CausalSelfAttention",
        "rotates the queries and keys over the whole d_model before splitting the heads, "
        "with angles for d_model instead of d_head.",
        HEADS_RESHAPE,
        (r"d_head|per head|each head|before split|split.{0,40}(first|before)",),
        code="""
class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__()
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)
        self.w_v = nn.Linear(d_model, d_model, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        length, d_model = x.shape[1], x.shape[2]
        cos, sin = rotary_embedding(length, d_model, self.base)
        q = split_heads(apply_rotary(self.w_q(x), cos, sin), self.num_heads)
        k = split_heads(apply_rotary(self.w_k(x), cos, sin), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))
""",
        heldout=True,
    ),
    Case(
        "ho-csa-no-scale",
        L11,
        "CausalSelfAttention",
        "writes the attention by hand and forgets to divide the scores by sqrt(d_head).",
        AUTHOR,
        (r"sqrt|scal",),
        edits=(
            (
                "heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
                "scores = (q @ k.transpose(-2, -1)).masked_fill(~look_ahead_mask(length), float('-inf'))\n"
                "        heads = torch.softmax(scores, dim=-1) @ v",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-block-residual-normed",
        L11,
        "DecoderBlock",
        "the attention's residual adds the normalised input norm1(x) instead of x.",
        PRENORM_RESIDUAL_2,
        (r"residual.{0,100}(norm1\(x\)|normali[sz]ed)|norm1\(x\) \+",),
        (r"post.?norm",),
        edits=(
            (
                "h = x + self.attn(self.norm1(x))",
                "n = self.norm1(x)\n        h = n + self.attn(n)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-block-ffn-reads-input",
        L11,
        "DecoderBlock",
        "the feed-forward reads norm2(x), the block's input, instead of norm2(h), the "
        "attention sublayer's output.",
        AUTHOR,
        (
            r"norm2\(h\)|norm2\(x\)|block's input|attention (sublayer's )?output|not chained|receives",
        ),
        edits=(
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return h + self.feed_forward(self.norm2(x))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-gpt-embedding-scaled",
        L11,
        "GPT",
        "multiplies the embeddings by sqrt(d_model), as lesson 02's TokenEmbedding did; "
        "the GPT does not.",
        AUTHOR,
        (r"sqrt\(d_model\)|scal",),
        edits=(
            (
                "x = self.embedding(ids)",
                "x = self.embedding(ids) * math.sqrt(self.embedding.embedding_dim)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-gpt-final-norm-per-layer",
        L11,
        "GPT",
        "applies the final norm after every block (inside the loop) instead of once before "
        "the output.",
        AUTHOR,
        (
            r"final (rms)?norm.{0,100}(every|each|once|inside|loop)|after (every|each) (block|layer)",
        ),
        edits=(
            (
                "x = layer(x)\n        return self.norm(x) @ self.embedding.weight.T",
                "x = self.norm(layer(x))\n        return x @ self.embedding.weight.T",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-sample-temperature-after-top-p",
        L11,
        "sample",
        "applies top-p on the untempered probabilities and divides by the temperature only "
        "afterwards.",
        TEMPERATURE_ORDER,
        (r"temperature.{0,100}(before|first|after|order)|(before|after|order).{0,60}temperature",),
        (r"one token too few|crosses",),
        code="""
def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        before = probs.cumsum(dim=-1) - probs
        drop = before >= top_p
        drop[..., 0] = False
        logits = logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
    probs = torch.softmax(logits / temperature, dim=-1)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
""",
        heldout=True,
    ),
    Case(
        "ho-sample-top-k-strict",
        L11,
        "sample",
        "removes logits <= the k-th largest (not <), so only top_k - 1 tokens are kept.",
        AUTHOR,
        (r"top_k - 1|k - 1|one too few|k-th|kth",),
        edits=(
            (
                "logits = logits.masked_fill(logits < kth, float('-inf'))",
                "logits = logits.masked_fill(logits <= kth, float('-inf'))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-sample-top-p-before-top-k",
        L11,
        "sample",
        "applies top-p before top-k, on the probabilities not yet restricted to the top k.",
        TOPK_TOPP_ORDER,
        (r"top.k.{0,80}(before|first|after|order)|order",),
        code="""
def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    if top_p is not None:
        probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        before = probs.cumsum(dim=-1) - probs
        drop = before >= top_p
        drop[..., 0] = False
        logits = logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
""",
        heldout=True,
    ),
    Case(
        "ho-sample-temperature-zero-divides",
        L11,
        "sample",
        "has no special case for temperature == 0: it divides by zero instead of taking the "
        "argmax.",
        AUTHOR,
        (r"temperature (== ?|=)0|temperature 0|greedy|argmax",),
        edits=(("if temperature == 0:\n        return logits.argmax(dim=-1)\n", "pass\n"),),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 12 inference
    Case(
        "ho-kv-write-head-axis",
        L12,
        "KVCache",
        "writes the new keys and values at [:, start:stop] (the head axis) instead of "
        "[:, :, start:stop] (the position axis).",
        AUTHOR,
        (r"position axis|head axis|axis 2|dim(ension)? 2|\[:, :, start",),
        edits=(
            ("self.keys[:, :, start:stop] = k_new", "self.keys[:, start:stop] = k_new"),
            ("self.values[:, :, start:stop] = v_new", "self.values[:, start:stop] = v_new"),
        ),
        heldout=True,
    ),
    Case(
        "ho-kv-returns-new-only",
        L12,
        "KVCache",
        "returns only the new keys and values (k_new, v_new), not every position stored so far.",
        AUTHOR,
        (r"only the new|stored so far|every (position|stored)",),
        edits=(
            (
                "return self.keys[:, :, :stop], self.values[:, :, :stop]",
                "return k_new, v_new",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-kv-length-not-accumulated",
        L12,
        "KVCache",
        "sets self.length to the chunk's size instead of adding it, so the next chunk "
        "overwrites earlier positions.",
        ROPE_OFFSET,
        (r"self\.length|length.{0,60}(add|advance|accumul|\+=)|overwrit",),
        edits=(("self.length = stop", "self.length = k_new.shape[-2]"),),
        heldout=True,
    ),
    Case(
        "ho-gen-prefill-last-token",
        L12,
        "generate",
        "runs only the prompt's last token as the prefill, so the caches never hold the "
        "rest of the prompt.",
        AUTHOR,
        (r"prompt.{0,80}(whole|every|all|one call|prefill|only)|prefill",),
        edits=(
            (
                "logits = model(prompt, caches=caches, start=0)[:, -1]",
                "logits = model(prompt[:, -1:], caches=caches, start=length - 1)[:, -1]",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-gen-start-zero",
        L12,
        "generate",
        "runs every new token with start=0, so its rotation is that of position 0.",
        ROPE_OFFSET,
        (r"start",),
        edits=(
            (
                "logits = model(next_id, caches=caches, start=length + step)[:, -1]",
                "logits = model(next_id, caches=caches)[:, -1]",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-gqa-expand-tiles",
        L12,
        "grouped_query_attention",
        "repeats the key/value heads with expand on a new leading axis and a reshape, which "
        "tiles them (h % num_kv_heads) instead of grouping (h // group).",
        GQA_EXPAND,
        (r"tile|interleav|h // |h % |group",),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    b, kv, length, d = k.shape
    k = k[:, None].expand(b, group, kv, length, d).reshape(b, group * kv, length, d)
    v = v[:, None].expand(b, group, kv, length, v.shape[-1]).reshape(b, group * kv, length, -1)
    output, _ = scaled_dot_product_attention(q, k, v, mask)
    return output
""",
        heldout=True,
    ),
    Case(
        "ho-gqa-values-not-repeated",
        L12,
        "grouped_query_attention",
        "repeats the keys but not the values.",
        AUTHOR,
        (r"\bv\b|values",),
        edits=(("v = v.repeat_interleave(group, dim=1)", "pass"),),
        heldout=True,
    ),
    Case(
        "ho-gqa-mask-fills-zero",
        L12,
        "grouped_query_attention",
        "writes the attention by hand and fills the masked scores with 0 instead of -inf.",
        AUTHOR,
        (r"-inf|zero|with 0|\b0\b.{0,40}(instead|not)",),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, 0.0)
    return torch.softmax(scores, dim=-1) @ v
""",
        heldout=True,
    ),
    Case(
        "ho-online-max-updated-first",
        L12,
        "online_softmax",
        "updates running_max before computing the rescale factor, so the factor is always "
        "1 and the old sum is never rescaled.",
        ONLINE_SOFTMAX,
        (r"rescal|correction|never rescaled|old (running )?(sum|max)|previous max",),
        code="""
def online_softmax(x, block_size):
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        running_max = new_max
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(dim=-1)
    return torch.exp(x - running_max[..., None]) / total[..., None]
""",
        heldout=True,
    ),
    Case(
        "ho-tiled-mask-fills-zero",
        L12,
        "tiled_attention",
        "fills the causal mask's future scores with 0 instead of -inf.",
        AUTHOR,
        (r"-inf|zero|with 0",),
        edits=(
            (
                "scores = scores.masked_fill(future, float('-inf'))",
                "scores = scores.masked_fill(future, 0.0)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-tiled-max-block-only",
        L12,
        "tiled_attention",
        "takes the new maximum from the block's scores alone, forgetting the running maximum.",
        AUTHOR,
        (r"running max|max\(m|maximum of (the )?(running|old)|block('s)? max(imum)? alone",),
        edits=(
            (
                "new_max = torch.maximum(running_max, scores.amax(dim=-1))",
                "new_max = scores.amax(dim=-1)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-sliding-window-one-too-many",
        L12,
        "sliding_window_mask",
        "lets each query see window + 1 keys (itself and window before it): the band is one "
        "too wide.",
        AUTHOR,
        (r"one (key|position) too many|window \+ 1|too wide|i - j < window|off by one",),
        edits=(
            (
                "torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1 - window)",
                "torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=-window)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho-sliding-window-not-causal",
        L12,
        "sliding_window_mask",
        "keeps the band of recent keys but forgets the look-ahead part, so queries see the future.",
        AUTHOR,
        (r"future|look.ahead|causal|j <= i",),
        edits=(("return look_ahead_mask(size) & recent", "return recent"),),
        heldout=True,
    ),
]

# A second batch, written after this round's fixes and before any run of it: it measures
# the fixed checks on mistakes they were not tuned on (the first batch above was used to
# find what to fix). Criteria written before any run, as for the first.
CASES += [
    Case(
        "ho2-ln-divides-by-rsqrt",
        L07,
        "LayerNorm",
        "divides (x - mean) by torch.rsqrt(var + eps) instead of multiplying by it.",
        RMS_RSQRT,
        (r"rsqrt|reciprocal|multipl|inverse",),
        edits=(
            (
                "return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
                "return self.weight * (x - mean) / torch.rsqrt(variance + self.eps) + self.bias",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho2-enc-prenorm-ffn-reads-input",
        L07,
        "EncoderLayer",
        "in the pre-LN path the feed-forward reads norm2 of the layer's input, not of the "
        "stream after the attention's residual.",
        PRENORM_INSIDE,
        (r"feed_forward.{0,120}(input|stream|norm2\(x\)|after)|parallel",),
        edits=(
            (
                "h = self.norm1(x)\n            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])\n"
                "            return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "h = self.norm1(x)\n            y = x + self.dropout(self.self_attn(h, h, h, mask)[0])\n"
                "            return y + self.dropout(self.feed_forward(self.norm2(x)))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho2-dec-prenorm-ffn-unnormed",
        L08,
        "DecoderLayer",
        "in the pre-LN path the feed-forward reads x, not norm3(x).",
        AUTHOR,
        (r"norm3",),
        edits=(
            (
                "return x + self.dropout(self.feed_forward(self.norm3(x)))",
                "return x + self.dropout(self.feed_forward(x))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho2-decoder-norm-before-loop",
        L08,
        "Decoder",
        "applies the final norm to the stack's input, before the loop, instead of after it.",
        AUTHOR,
        (r"final (layer)?norm.{0,100}(after|before|input|once)",),
        edits=(
            (
                "for layer in self.layers:\n            x = layer(x, memory, src_mask, tgt_mask)",
                "if self.norm is not None:\n            x = self.norm(x)\n"
                "        for layer in self.layers:\n            x = layer(x, memory, src_mask, tgt_mask)",
            ),
            ("return x if self.norm is None else self.norm(x)", "return x"),
        ),
        heldout=True,
    ),
    Case(
        "ho2-tr-src-mask-from-tgt",
        L09,
        "Transformer",
        "builds the cross-attention's source mask from tgt_ids instead of src_ids in decode.",
        CROSS_MASK,
        (r"src_ids|source (padding )?mask|src_mask",),
        edits=(
            (
                "src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)\n"
                "        y = self.positional_encoding",
                "src_mask = padding_mask(tgt_ids, self.pad_id)\n        y = self.positional_encoding",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho2-count-untied-output-no-bias",
        L09,
        "count_parameters",
        "counts the untied output layer's weight but not its bias.",
        AUTHOR,
        (r"bias",),
        edits=(
            (
                "'output': vocab_size if tie_embeddings else table + vocab_size",
                "'output': vocab_size if tie_embeddings else table",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho2-rms-over-sequence-and-features",
        L11,
        "RMSNorm",
        "takes the mean square over the positions and the features together (dims -2, -1).",
        NORM_OVER_SEQUENCE,
        (r"axis|per token|each token|dim=\(-2, -1\)|position|sequence",),
        edits=(
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.pow(2).mean(dim=(-2, -1), keepdim=True)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho2-gpt-no-transpose",
        L11,
        "GPT",
        "multiplies by embedding.weight without the transpose (.T) for the tied output.",
        TIED_HEAD,
        (r"transpose|\.T\b|weight\.T",),
        edits=(
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.norm(x) @ self.embedding.weight",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho2-kv-writes-at-zero",
        L12,
        "KVCache",
        "always writes the new keys and values at positions 0 .. n - 1 (start ignored), "
        "although the length advances.",
        ROPE_OFFSET,
        (r"overwrit|start|self\.length|position 0|after the positions",),
        edits=(
            ("self.keys[:, :, start:stop] = k_new", "self.keys[:, :, : stop - start] = k_new"),
            ("self.values[:, :, start:stop] = v_new", "self.values[:, :, : stop - start] = v_new"),
        ),
        heldout=True,
    ),
    Case(
        "ho2-online-final-block-max",
        L12,
        "online_softmax",
        "normalises at the end with the last block's maximum instead of the running maximum.",
        ONLINE_SOFTMAX,
        (r"running max|last block|block's max|final|at the end",),
        code="""
def online_softmax(x, block_size):
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    block_max = running_max
    for start in range(0, x.shape[-1], block_size):
        block = x[..., start : start + block_size]
        block_max = block.amax(dim=-1)
        new_max = torch.maximum(running_max, block_max)
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(dim=-1)
        running_max = new_max
    return torch.exp(x - block_max[..., None]) / total[..., None]
""",
        heldout=True,
    ),
    Case(
        "ho2-sliding-window-no-diagonal",
        L12,
        "sliding_window_mask",
        "leaves the query itself out: each query sees the window keys before it, not itself.",
        AUTHOR,
        (r"itself|diagonal|j <= i|j < i",),
        edits=(
            (
                "return look_ahead_mask(size) & recent",
                "return look_ahead_mask(size) & recent & ~torch.eye(size, dtype=torch.bool)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "ho2-gen-caches-from-prompt-batch-one",
        L12,
        "generate",
        "makes the caches for one sequence (batch 1) instead of the prompt's batch.",
        AUTHOR,
        (r"batch",),
        edits=(
            (
                "caches = model.new_caches(batch, length + max_new_tokens)",
                "caches = model.new_caches(1, length + max_new_tokens)",
            ),
        ),
        heldout=True,
    ),
]
