"""Held-out wrong answers, blind round 29 (helper b29b, 2026-11-29, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 34 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind29b")

# Where these mistakes are reported (each page was read for this batch).
ONE_PASS_VARIANCE = "https://github.com/pytorch/pytorch/issues/51102"
SWISH_FFN = "https://github.com/awslabs/sockeye/pull/229"
DEEPNORM_ALPHA = (
    "https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/145"
)
QUERY_AND_KEY_MASK = "https://github.com/pytorch/pytorch/issues/41508"
GATED_CROSS_ATTENTION = "https://github.com/huggingface/transformers/pull/26839"
REENTRANT_CHECKPOINT = "https://github.com/mlfoundations/open_clip/issues/573"
CAUSAL_ENCODER = "https://github.com/pytorch/tutorials/issues/2478"
MASK_FROM_ZERO_VECTORS = "https://github.com/Kyubyong/transformer/issues/3"
FORCED_EOS = "https://github.com/huggingface/transformers/pull/10087"
T5_START_IS_PAD = "https://github.com/huggingface/transformers/issues/7986"
RANDOM_BATCHES = "https://github.com/karpathy/nanoGPT/issues/294"
Z_LOSS = "https://github.com/huggingface/transformers/pull/18652"
SQUAD_NORMALISED_EM = "https://github.com/deepset-ai/COVID-QA/issues/175"
TWO_K_CANDIDATES = "https://github.com/facebookresearch/fairseq/issues/4901"
TWO_WAY_TIE = "https://github.com/facebookresearch/fairseq/issues/2537"

BLIND29B: list[Case] = [
    # ---- 07 encoder -----------------------------------------------------------------------
    _c(
        "ln-one-pass-variance",
        L07,
        "LayerNorm",
        "computes the variance in one pass as mean(x ** 2) - mean(x) ** 2 (the fused-kernel "
        "shortcut): equal on paper, but in float32 the two large terms cancel catastrophically "
        "for tokens whose mean is large next to their spread (features around 1000 with unit "
        "spread), so those tokens get a wrong (even negative or zero) variance and a badly "
        "scaled or NaN output.",
        (
            r"one[- ]pass|single[- ]pass|two[- ]pass",
            r"e\[x ?\^? ?2\] ?- ?e\[x\] ?\^? ?2|mean\(x ?\*\* ?2\)|mean of (the )?squares? minus",
            r"(catastrophic )?cancell?ation|numerical(ly)? (unstable|instability|precision)",
            r"(large|big|shifted|offset) (mean|offset|values?).{0,80}(variance|precision|nan|wrong)",
        ),
        (
            r"unbiased|n ?- ?1\b|bessel",
            r"eps\w* (is )?(added )?(outside|after) the (square )?root",
            r"(over|along|across) the (batch|positions?|sequence)",
            r"\brms\w*|without (subtracting|centring|centering) the mean",
            r"(weight|gain) and (the )?bias (are )?swapped",
        ),
        code="""
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        mean_of_squares = (x * x).mean(dim=-1, keepdim=True)
        variance = mean_of_squares - mean * mean  # one pass over x
        return self.weight * (x - mean) * torch.rsqrt(variance + self.eps) + self.bias
""",
        source=ONE_PASS_VARIANCE,
    ),
    _c(
        "ffn-swish-activation",
        L07,
        "PositionwiseFeedForward",
        "uses Swish-1 (SiLU, x * sigmoid(x)), reported to beat ReLU in Transformers, as the "
        "hidden activation instead of the paper's ReLU: negative pre-activations give small "
        "negative values instead of 0 and positive ones are damped.",
        (
            r"swish|\bsilu\b|x ?\* ?sigmoid\(x\)|sigmoid",
            r"(activation|non-?linearity).{0,80}(not|isn'?t|instead of|rather than|wrong).{0,40}relu",
            r"relu.{0,60}(replaced|swapped|not used|missing)",
            r"negative (pre-?activations?|hidden|values?).{0,80}(not zero|leak|survive|kept|pass)",
        ),
        (
            r"\bgelu\b",
            r"dropout (is )?(applied )?(after|on the output of|to the output of) w_2",
            r"relu (is )?(applied )?(after|on|to the output of) w_2",
            r"(no|missing|forgot\w*) (the )?(relu|activation)",
            r"\btanh\b|leaky",
        ),
        code="""
class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        h = self.w_1(x)
        h = h * torch.sigmoid(h)  # Swish-1
        return self.w_2(self.dropout(h))
""",
        source=SWISH_FFN,
    ),
    _c(
        "el-deepnorm-residual-up-scaled",
        L07,
        "EncoderLayer",
        "writes the post-LN sub-layers the DeepNet way, norm(alpha * x + dropout(sublayer(x))) "
        "with alpha = (2N) ** 0.25 for the paper's N = 6 layers (about 1.86): the residual "
        "branch is up-scaled before the sum, so every post-LN output differs from norm(x + "
        "sublayer(x)); the pre-LN branch is right.",
        (
            r"deep ?norm|deepnet",
            r"\balpha\b",
            r"(residual|skip|\bx\b)( branch| connection| path)?.{0,60}"
            r"(scaled|multiplied|up-?scaled|weighted|times|factor)",
            r"\(2 ?n\) ?\*\* ?0?\.25|1\.86",
        ),
        (
            r"(residual|skip)( connection)? (is )?(missing|dropped|forgotten|left out)",
            r"norm_first (is )?(ignored|inverted)|pre-?ln.{0,30}post-?ln",
            r"mask (is )?(not passed|ignored|inverted|dropped)",
            r"dropout (is )?(on|applied to) the residual sum",
            r"layer ?scale|gamma",
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
        self.alpha = (2 * 6) ** 0.25  # DeepNorm residual scale for N = 6 layers

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        attended = self.self_attn(x, x, x, mask)[0]
        x = self.norm1(self.alpha * x + self.dropout(attended))
        return self.norm2(self.alpha * x + self.dropout(self.feed_forward(x)))
""",
        source=DEEPNORM_ALPHA,
    ),
    _c(
        "el-pre-ln-sandwich-norm-reused",
        L07,
        "EncoderLayer",
        "in the pre-LN branch normalises each sub-layer's output as well, with the same "
        "LayerNorm as its input (x + dropout(norm1(attn(norm1(x))))), a sandwich norm: the "
        "sub-layer's contribution to the residual stream is re-normalised; post-LN is right.",
        (
            r"sandwich",
            r"(normali[sz]\w*|norm1|norm2|layer ?norm).{0,60}(sub-?layer'?s? )?outputs?"
            r".{0,40}(as well|too|again|also|twice)",
            r"(twice|two times|again).{0,60}(norm1|norm2|layer ?norm)",
            r"norm\w* (applied )?(to|on) (the )?(attention|feed-?forward|sub-?layer)'?s? output",
        ),
        (
            r"(residual|skip)( connection)? (is )?(missing|dropped|forgotten|left out)",
            r"norm_first (is )?(ignored|inverted)",
            r"norm1.{0,40}norm2.{0,40}swapped|norms? (are )?swapped",
            r"(adds?|residual).{0,40}normali[sz]ed (input|copy|stream|x)",
            r"mask (is )?(not passed|ignored|inverted|dropped)",
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
            x = x + self.dropout(self.norm1(self.self_attn(h, h, h, mask)[0]))
            ff = self.feed_forward(self.norm2(x))
            return x + self.dropout(self.norm2(ff))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(x + self.dropout(self.feed_forward(x)))
""",
    ),
    _c(
        "enc-square-padding-mask",
        L07,
        "Encoder",
        "turns the (batch, 1, 1, len) padding mask into a square one, mask & mask.transpose(-1, "
        "-2), so that the pads are masked as queries as well as keys: every padded query row is "
        "fully blocked, its attention is empty (zeros) and the padded positions' outputs are no "
        "longer the layers' outputs; the real positions are right.",
        (
            r"pad(ded|s)? (as )?(query|queries|query rows?|rows?).{0,60}(masked|blocked|empty|zero)"
            r"|(masked|blocked) (as|on) (the )?(query|queries|rows?)",
            r"(square|2-?d|\(len, ?len\)|len ?x ?len|both (axes|dimensions|sides)).{0,40}mask",
            r"transpos\w*.{0,40}mask|mask.{0,40}transpos\w*",
            r"fully (masked|blocked)|(all|every) (key|position)s? (are )?(masked|blocked)",
        ),
        (
            r"(not|never) (passed|given|handed)|without the mask",
            r"mask (is )?inverted|~ ?mask",
            r"final norm",
            r"(not|isn'?t|never) chained|stack'?s input",
            r"(shared|same) (layer|weights)",
        ),
        code="""
class Encoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
                 final_norm=None):
        super().__init__()
        self.layers = nn.ModuleList(
            EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)
            for _ in range(num_layers)
        )
        if final_norm is None:
            final_norm = norm_first
        self.norm = LayerNorm(d_model) if final_norm else None

    def forward(self, x, mask=None):
        if mask is not None:
            # a pad should neither be attended to nor attend: mask queries and keys
            mask = mask & mask.transpose(-1, -2)
        for layer in self.layers:
            x = layer(x, mask)
        if self.norm is not None:
            x = self.norm(x)
        return x
""",
        source=QUERY_AND_KEY_MASK,
    ),
    # ---- 08 decoder -----------------------------------------------------------------------
    _c(
        "dl-cross-attention-before-self-attention",
        L08,
        "DecoderLayer",
        "runs the cross-attention sub-layer first and the masked self-attention second (then "
        "the feed-forward), in both layouts: the queries of the cross-attention come from the "
        "layer's input instead of the self-attention's result, so every output differs.",
        (
            r"(order|sequence) of (the )?(sub-?layers|attentions)",
            r"cross-?attention.{0,60}(before|first|ahead of).{0,40}self-?attention",
            r"self-?attention.{0,60}(after|second|last).{0,40}cross-?attention",
            r"(sub-?layers|attentions) (are )?(swapped|in the (wrong|other) order|reversed)",
        ),
        (
            r"feed-?forward (runs |is )?(before|first)",
            r"(memory|encoder output).{0,40}(as|for) (the )?quer",
            r"masks? (are )?swapped|src_mask.{0,30}self-?attention",
            r"(no|missing|without) (the )?residual",
            r"norm[123].{0,40}(reused|twice|instead)",
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
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        # first look at the source, then at the target so far
        x = self.norm1(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        x = self.norm2(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))
""",
    ),
    _c(
        "dl-tanh-gated-cross-attention",
        L08,
        "DecoderLayer",
        "adds a Flamingo/Idefics-style learned gate to the cross-attention: its output is "
        "multiplied by tanh(self.cross_gate), a parameter initialised to 0, before the "
        "residual sum, so a fresh layer ignores the encoder output entirely (the "
        "cross-attention sub-layer contributes nothing) and the layer has one parameter the "
        "contract does not have.",
        (
            r"\bgate\w*|\btanh\b",
            r"cross-?attention.{0,80}(zero|nothing|no effect|ignored|scaled|multiplied|gated)",
            r"(memory|encoder output|source).{0,60}(ignored|never (used|reaches)|no effect|unused)",
            r"(unexpected|extra|additional) (learned )?(parameters?|state[- ]dict keys?|keys?)",
        ),
        (
            r"(memory|encoder output).{0,40}(as|for) (the )?quer",
            r"masks? (are )?swapped|tgt_mask.{0,30}cross",
            r"(no|missing|without) (the )?residual",
            r"src_mask (is )?(not passed|missing|dropped)",
            r"pre-?ln|norm_first",
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
        # learned gate, starts closed so training begins from the plain decoder
        self.cross_gate = nn.Parameter(torch.zeros(1))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        gate = torch.tanh(self.cross_gate)
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)
            x = x + gate * self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        crossed = self.cross_attn(x, memory, memory, src_mask)[0]
        x = self.norm2(x + gate * self.dropout(crossed))
        return self.norm3(x + self.dropout(self.feed_forward(x)))
""",
        source=GATED_CROSS_ATTENTION,
    ),
    _c(
        "dec-reentrant-checkpoint-inputs-without-grad",
        L08,
        "Decoder",
        "wraps every layer in torch.utils.checkpoint.checkpoint(..., use_reentrant=True) to save "
        "memory: the values are right, but the reentrant checkpoint only builds a graph when "
        "one of its tensor inputs requires grad, so for an input x and memory that do not (a "
        "plain tensor) the output has no grad_fn and the layers' parameters get no gradient "
        "(backward fails).",
        (
            r"checkpoint\w*",
            r"reentrant",
            r"recomput\w*",
        ),
        (
            r"no_grad",
            r"detach\w*",
            r"(not|isn'?t|never) chained|stack'?s input",
            r"masks? (are )?swapped",
            r"plain (python )?list|not registered",
        ),
        code="""
from torch.utils.checkpoint import checkpoint


class Decoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
                 final_norm=None):
        super().__init__()
        self.layers = nn.ModuleList(
            [DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]
        )
        use_final_norm = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use_final_norm else None

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            if torch.is_grad_enabled():  # recompute activations in backward to save memory
                x = checkpoint(layer, x, memory, src_mask, tgt_mask, use_reentrant=True)
            else:
                x = layer(x, memory, src_mask, tgt_mask)
        return x if self.norm is None else self.norm(x)
""",
        source=REENTRANT_CHECKPOINT,
    ),
    # ---- 09 transformer -------------------------------------------------------------------
    _c(
        "tr-encoder-causal-mask",
        L09,
        "Transformer",
        "gives the encoder a look-ahead mask as well (padding_mask(src_ids) & "
        "look_ahead_mask(len_src), the language-model tutorial's src_mask), so each source "
        "position sees only the source tokens up to itself instead of the whole sentence: "
        "the memory, hence every logit, differs.",
        (
            r"encoder.{0,80}(causal|look-?ahead|subsequent|triangular|future)",
            r"(causal|look-?ahead|subsequent|triangular) mask.{0,80}(encoder|source|encode)",
            r"source.{0,60}(only|cannot).{0,40}(earlier|previous|see|later|future|whole)",
            r"encoder (is )?(made )?(causal|unidirectional)",
        ),
        (
            r"(no|without|missing) (the )?(source )?padding mask",
            r"(decoder|target).{0,40}(no|without|missing) (look-?ahead|causal)",
            r"masks? (are )?swapped",
            r"pad_?id.{0,30}(0|zero|hard-?coded)",
            r"(positional|positions?).{0,40}(missing|twice)",
        ),
        code="""
class Transformer(nn.Module):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_layers=6,
                 d_ff=2048, dropout=0.1, max_len=512, pad_id=0, tie_embeddings=False,
                 norm_first=False, final_norm=None):
        super().__init__()
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError("tie_embeddings needs one shared vocabulary")
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
        src_mask = padding_mask(src_ids, self.pad_id) & look_ahead_mask(src_ids.shape[1])
        x = self.positional_encoding(self.src_embedding(src_ids))
        return self.encoder(x, src_mask)

    def decode(self, tgt_ids, memory, src_ids):
        tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)
        src_mask = padding_mask(src_ids, self.pad_id)
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        return self.output(self.decoder(y, memory, src_mask, tgt_mask))

    def forward(self, src_ids, tgt_ids):
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)
""",
        source=CAUSAL_ENCODER,
    ),
    _c(
        "tr-source-mask-from-zero-memory-vectors",
        L09,
        "Transformer",
        "in decode builds the cross-attention's source mask from the memory itself, "
        "memory.abs().sum(-1) != 0 (a pad is 'a zero vector'), instead of from src_ids: the "
        "encoder's outputs at the pads are not zero (positions are added, the layers mix), so "
        "the mask lets every target position attend to the source padding.",
        (
            r"(mask|padding).{0,80}(from|on) (the )?(memory|encoder output)",
            r"zero vectors?|(sum|norm|abs)\w*.{0,40}(of |over )?(the )?(memory|encoder output)",
            r"src_ids.{0,60}(ignored|not used|unused)",
        ),
        (
            r"encoder.{0,40}(no|without|missing) (the )?(source )?padding mask",
            r"(decoder|cross-?attention).{0,40}(no|without) (the )?(source|src)[_ ]mask",
            r"(target|tgt).{0,40}padding.{0,40}(cross|source)",
            r"masks? (are )?swapped",
            r"look-?ahead",
            r"pad_?id.{0,30}(0|zero|hard-?coded)",
        ),
        code="""
class Transformer(nn.Module):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_layers=6,
                 d_ff=2048, dropout=0.1, max_len=512, pad_id=0, tie_embeddings=False,
                 norm_first=False, final_norm=None):
        super().__init__()
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError("tie_embeddings needs one shared vocabulary")
        self.pad_id = pad_id
        self.src_embedding = TokenEmbedding(src_vocab_size, d_model)
        self.tgt_embedding = TokenEmbedding(tgt_vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)
        stack = (num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.encoder = Encoder(*stack)
        self.decoder = Decoder(*stack)
        self.output = nn.Linear(d_model, tgt_vocab_size)
        if tie_embeddings:
            self.tgt_embedding.embedding.weight = self.src_embedding.embedding.weight
            self.output.weight = self.src_embedding.embedding.weight

    def encode(self, src_ids):
        x = self.positional_encoding(self.src_embedding(src_ids))
        return self.encoder(x, padding_mask(src_ids, self.pad_id))

    def decode(self, tgt_ids, memory, src_ids):
        tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)
        # a padded source position is a zero vector: mask the memory rows that sum to 0
        memory_mask = (memory.abs().sum(dim=-1) != 0)[:, None, None, :]
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        return self.output(self.decoder(y, memory, memory_mask, tgt_mask))

    def forward(self, src_ids, tgt_ids):
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)
""",
        source=MASK_FROM_ZERO_VECTORS,
    ),
    _c(
        "quiz-tie-two-way-tie-enough",
        L09,
        "quiz_tie_embeddings",
        "answers (c), separate English and German vocabularies of different sizes, reading "
        "tie_embeddings as the two-way tie of the target embedding and the output layer "
        "(fairseq's --share-decoder-input-output-embed), which works with a target "
        "vocabulary of its own: but tie_embeddings also shares the source embedding, one "
        "(vocab_size, d_model) matrix for both languages, so it needs one shared vocabulary "
        "(a).",
        (
            r"two[- ]way|share[-_]decoder[-_]input[-_]output",
            r"(target|decoder)(-side)? (input )?embedding and (the )?output( layer)?"
            r".{0,80}(only|alone|not (the )?source)",
            r"(source|encoder|english)(-side)? (embedding|table).{0,60}(too|also|as well|shared|tied)",
            r"all three|three (modules|places|tables)",
        ),
        (
            r"(same|equal) (size|number of tokens)",
            r"d_model",
            r"faster|speed",
            r"(two|separate) vocabular(y|ies) of (exactly )?(the )?same size",
        ),
        code="""
def quiz_tie_embeddings():
    # the output layer and the target embedding both cover the German vocabulary
    return "c"
""",
        source=TWO_WAY_TIE,
    ),
    _c(
        "cp-cross-attention-keys-values-under-encoder",
        L09,
        "count_parameters",
        "files the decoder's cross-attention key and value projections (w_k and w_v, weights "
        "and biases: 2 * (d_model ** 2 + d_model) per layer) under 'encoder', reasoning that "
        "they only ever read the encoder's output: the total is right, but 'encoder' is too "
        "large and 'decoder' too small by that amount times num_layers.",
        (
            r"cross-?attention.{0,100}(encoder|filed|counted|moved|attributed)",
            r"(w_k|w_v|keys?|values?).{0,80}(encoder|wrong (stack|entry|key))",
            r"(encoder|decoder).{0,60}(too (large|big|small|many|few)|over-?counted|under-?counted)"
            r".{0,80}(same|equal|by the same)",
        ),
        (
            r"(one|single) attention (block )?(per|in each) decoder",
            r"(forgets?|without|missing) (the )?bias",
            r"final (layer ?)?norm",
            r"tied|tie_embeddings",
            r"(two|2) layer ?norms?|three layer ?norms?",
            r"output.{0,40}(under|in) (the )?decoder",
        ),
        code="""
def count_parameters(vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings,
                     final_norm=False):
    linear = d_model * d_model + d_model  # one d_model x d_model projection with its bias
    attention = 4 * linear
    feed_forward = d_model * d_ff + d_ff + d_ff * d_model + d_model
    norm = 2 * d_model
    encoder_layer = attention + feed_forward + 2 * norm
    # the cross-attention's w_k and w_v only ever read the encoder output: count them there
    memory_projections = 2 * linear
    decoder_layer = attention + (attention - memory_projections) + feed_forward + 3 * norm
    encoder = num_layers * (encoder_layer + memory_projections)
    decoder = num_layers * decoder_layer
    if final_norm:
        encoder += norm
        decoder += norm
    table = vocab_size * d_model
    return {
        "embeddings": table if tie_embeddings else 2 * table,
        "encoder": encoder,
        "decoder": decoder,
        "output": vocab_size if tie_embeddings else table + vocab_size,
    }
""",
    ),
    _c(
        "gd-forced-eos-at-max-len",
        L09,
        "greedy_decode",
        "forces <eos> as the last token when the length limit is reached (Hugging Face's "
        "forced_eos_token_id): at the max_len-th step every row that has not finished gets "
        "eos_id instead of its argmax, so a translation cut by max_len ends with an <eos> the "
        "model never chose.",
        (
            r"forc\w*.{0,60}(eos|<eos>|end)",
            r"(last|final|max_len-?th) (token|step|position).{0,80}(eos|<eos>)",
            r"(eos|<eos>).{0,80}(instead of|rather than|not) (the )?(argmax|most probable|model'?s)",
            r"(unfinished|cut|truncated) (rows?|translations?).{0,80}(eos|<eos>)",
        ),
        (
            r"(keeps? generating|no pad\w*) after (the )?<?eos",
            r"(stops?|breaks?) .{0,40}(first|any) row",
            r"(keeps?|with) <?bos>?",
            r"one step (short|too few)|max_len ?- ?1",
            r"first position",
        ),
        code="""
def greedy_decode(model, src_ids, max_len, bos_id, eos_id):
    with torch.no_grad():
        memory = model.encode(src_ids)
        batch = src_ids.size(0)
        ys = torch.full((batch, 1), bos_id, dtype=torch.long)
        done = torch.zeros(batch, dtype=torch.bool)
        for step in range(max_len):
            logits = model.decode(ys, memory, src_ids)
            next_token = logits[:, -1, :].argmax(dim=-1)
            if step == max_len - 1:  # length limit reached: close every open sentence
                next_token = torch.full_like(next_token, eos_id)
            next_token = torch.where(done, torch.full_like(next_token, model.pad_id), next_token)
            ys = torch.cat([ys, next_token.unsqueeze(1)], dim=1)
            done |= next_token == eos_id
            if bool(done.all()):
                break
    return ys[:, 1:]
""",
        source=FORCED_EOS,
    ),
    # ---- 10 training ----------------------------------------------------------------------
    _c(
        "mb-decoder-start-is-pad",
        L10,
        "make_batches",
        "starts every decoder input with pad_id instead of bos_id (T5's decoder_start_token_id "
        "is its pad id): decoder_input is [pad_id] + target, so the first position is a pad "
        "that the target padding mask hides from every query (the first query attends to "
        "nothing) and the model never sees <bos>.",
        (
            r"(starts?|begins?|first (token|column|position)).{0,80}(pad|<pad>)",
            r"(pad|<pad>).{0,60}(instead of|rather than|in place of) (the )?<?bos",
            r"decoder_start|t5",
            r"(no|missing|without) <?bos>?.{0,60}decoder_input|decoder_input.{0,60}(no|missing|without) <?bos",
        ),
        (
            r"labels?.{0,40}(start|begin)s? with <?bos",
            r"(drops?|loses?) the last batch",
            r"pad\w* (on|to) the left",
            r"(ignores?|without) (the )?seed|global (random )?generator",
            r"<?eos>?.{0,40}(missing|not appended|forgot)",
        ),
        code="""
def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                 shuffle=False, seed=0):
    indices = list(range(len(pairs)))
    if shuffle:
        g = torch.Generator().manual_seed(seed)
        indices = torch.randperm(len(pairs), generator=g).tolist()
    decoder_start = pad_id  # the decoder starts from the pad token, as in T5
    batches = []
    for i in range(0, len(indices), batch_size):
        group = [pairs[j] for j in indices[i : i + batch_size]]
        src = pad_batch([list(s) for s, _ in group], pad_id)
        dec_in = pad_batch([[decoder_start] + list(t) for _, t in group], pad_id)
        labels = pad_batch([list(t) + [eos_id] for _, t in group], pad_id)
        batches.append(
            (torch.from_numpy(src), torch.from_numpy(dec_in), torch.from_numpy(labels))
        )
    return batches
""",
        source=T5_START_IS_PAD,
    ),
    _c(
        "mb-shuffle-draws-each-batch-at-random",
        L10,
        "make_batches",
        "with shuffle=True fills each batch with batch_size indices drawn at random "
        "(torch.randint with the seeded generator, nanoGPT's get_batch) instead of cutting "
        "one permutation: pairs are drawn with replacement, so some pairs appear twice and "
        "others in no batch.",
        (
            r"with replacement|randint",
            r"(some |a )?pairs?.{0,60}(twice|more than once|repeated|duplicat\w*)",
            r"(some |a )?pairs?.{0,60}(never|not) (used|included|appear)|in no batch|missing pairs?",
            r"(exactly once|every pair once|not a permutation)",
        ),
        (
            r"(ignores?|without) (the )?seed|global (random )?generator",
            r"(drops?|loses?) the last batch",
            r"pad\w* (on|to) the left",
            r"(sources?|targets?) .{0,30}shuffled separately",
            r"in place|caller'?s list",
        ),
        code="""
def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                 shuffle=False, seed=0):
    n = len(pairs)
    generator = torch.Generator().manual_seed(seed)
    batches = []
    for start in range(0, n, batch_size):
        size = min(batch_size, n - start)
        if shuffle:
            picks = torch.randint(n, (size,), generator=generator).tolist()
        else:
            picks = list(range(start, start + size))
        chunk = [pairs[i] for i in picks]
        src = pad_batch([list(source) for source, _ in chunk], pad_id)
        decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)
        labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)
        batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, labels)))
    return batches
""",
        source=RANDOM_BATCHES,
    ),
    _c(
        "noam-rsqrt-decay-without-warmup-ramp",
        L10,
        "noam_lr",
        "writes the schedule as tensor2tensor's rsqrt_decay alone, d_model ** -0.5 * "
        "max(step, warmup) ** -0.5, leaving out its linear_warmup factor: during the warm-up "
        "the rate sits flat at the peak (d_model * warmup) ** -0.5 instead of growing "
        "linearly from step * d_model ** -0.5 * warmup ** -1.5; after the warm-up it is right.",
        (
            r"(no|without|missing|lacks?) (the )?(linear )?(warm-?up|ramp)",
            r"(flat|constant|peak).{0,80}(during|throughout|in) (the )?warm-?up",
            r"warm-?up.{0,80}(flat|constant|does not grow|not linear|already at (the )?peak)",
            r"max\(step, ?warmup\)|rsqrt",
        ),
        (
            r"d_model ?\*\* ?-?0?\.5.{0,40}(missing|left out|forgot)",
            r"warmup ?\*\* ?-?0?\.5 instead",
            r"\bmax\b.{0,40}instead of.{0,20}\bmin\b",
            r"step 0|divides? by zero",
            r"(returns?|gives?) a tensor",
        ),
        code="""
def noam_lr(step, d_model, warmup):
    step = max(step, 1)
    return float(d_model ** -0.5 * max(step, warmup) ** -0.5)
""",
    ),
    _c(
        "ls-z-loss-added",
        L10,
        "label_smoothed_loss",
        "adds T5X's z-loss to the smoothed cross-entropy, 1e-4 * logsumexp(logits) ** 2 at "
        "every position (the auxiliary term that keeps the softmax normaliser near 1): the "
        "loss is larger than the smoothed cross-entropy by the mean of that term, and its "
        "gradient differs.",
        (
            r"z[- _]?loss",
            r"logsumexp|log[- ]?sum[- ]?exp|normali[sz](er|ing constant)|log ?z",
            r"(extra|additional|auxiliary|added) (term|penalty|regulari[sz]\w*)",
        ),
        (
            r"pad\w*.{0,60}(counted|included|denominator|not (ignored|excluded|masked))",
            r"v ?- ?1\b|other tokens",
            r"kl[- ]?div\w*",
            r"(sum|summed) (instead of|rather than) (the )?mean",
            r"softmax.{0,40}twice|log\(softmax",
        ),
        code="""
import torch.nn.functional as F


def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    vocab = logits.size(-1)
    flat_logits = logits.reshape(-1, vocab)
    flat_labels = labels.reshape(-1)
    keep = flat_labels != pad_id
    log_z = torch.logsumexp(flat_logits, dim=-1)
    log_probs = flat_logits - log_z[:, None]
    nll = -log_probs.gather(1, flat_labels.clamp(min=0)[:, None]).squeeze(1)
    smooth = -log_probs.mean(dim=1)
    loss = (1 - smoothing) * nll + smoothing * smooth
    loss = loss + 1e-4 * log_z ** 2  # z-loss keeps the normaliser close to 1
    return loss[keep].mean()
""",
        source=Z_LOSS,
    ),
    _c(
        "ts-clip-none-means-default-norm",
        L10,
        "train_step",
        "clips with clip_grad_norm_(model.parameters(), clip_norm or 1.0): a falsy clip_norm, "
        "None (no clipping asked for), falls back to a maximum norm of 1.0, so with "
        "clip_norm=None gradients larger than 1 are still clipped.",
        (
            r"none.{0,80}(still )?(clip\w*|max(imum)? norm (of )?1)",
            r"(none|clip_norm).{0,60}(or|defaults? to|falls? back to|replaced by) 1(\.0)?",
            r"clip\w*.{0,60}(even|also|still) (when|if|with) clip_norm (is )?none",
            r"(no clipping|without clipping).{0,60}(still|but).{0,30}clip",
        ),
        (
            r"clip\w* after (the )?(optimizer\.)?step",
            r"clip_grad_value|clamp\w* (every|each) (gradient )?entr",
            r"(no|never|forgot\w*).{0,30}zero_grad",
            r"(eval|evaluation) mode|model\.train",
            r"(returns?|gives?) (a |the )?tensor",
        ),
        code="""
def train_step(model, batch, optimizer, loss_fn, clip_norm=1.0):
    model.train()
    optimizer.zero_grad()
    src, decoder_input, labels = batch
    loss = loss_fn(model(src, decoder_input), labels)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm or 1.0)
    optimizer.step()
    return float(loss.item())
""",
    ),
    _c(
        "tsc-exact-match-squad-normalised",
        L10,
        "translation_scores",
        "compares hypotheses and references after the SQuAD answer normalisation (lower case, "
        "punctuation removed, the English articles a/an/the removed, whitespace collapsed) for "
        "exact_match: a translation that differs from its reference only in case, punctuation "
        "or those words counts as an exact match.",
        (
            r"normali[sz]\w*",
            r"squad",
            r"punctuation|articles?|\bthe\b.{0,20}\ba\b",
        ),
        (
            r"(number|count) of (exact )?matches",
            r"first reference",
            r"stream|transpos\w*",
            r"(0-1|fraction).{0,30}(scale|bleu)",
            r"substring|\bin\b.{0,20}join",
        ),
        code="""
import re
import string

import sacrebleu


def _normalise(text):
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\\b(a|an|the)\\b", " ", text)
    return " ".join(text.split())


def translation_scores(hypotheses, references):
    matches = 0
    for hypothesis, refs in zip(hypotheses, references):
        if any(_normalise(hypothesis) == _normalise(ref) for ref in refs):
            matches += 1
    width = max(len(refs) for refs in references)
    streams = [[refs[j] if j < len(refs) else None for refs in references] for j in range(width)]
    bleu = sacrebleu.corpus_bleu(hypotheses, streams).score
    return {"exact_match": matches / len(hypotheses), "bleu": bleu}
""",
        source=SQUAD_NORMALISED_EM,
    ),
    _c(
        "bs-eos-finished-from-top-2k",
        L10,
        "beam_search",
        "walks the top 2 * beam_size candidates (fairseq's cand_size, 'in case half are EOS') "
        "and sets aside every one ending in <eos> among them, also those ranked after the "
        "point where the new beam was already full: weaker finished hypotheses that should "
        "never have been considered join the finished list and can become the answer.",
        (
            r"2 ?\* ?beam|2 ?k\b|twice (the )?beam",
            r"(after|below|past|beyond) (the )?(point where )?(the )?(new )?beam (is |was )?(already )?full|cut-?off",
            r"(too many|extra|additional) (finished|<?eos>?) (hypotheses|candidates)",
            r"(finished|<?eos>?) (candidates?|hypotheses).{0,80}(should not|never|not) "
            r"(be )?(considered|added|kept)",
        ),
        (
            r"(beam|it) (shrinks|narrows)|finished ones take (a )?place",
            r"length penalty",
            r"(never|not) stops? early|stopping rule",
            r"ascending|worst",
            r"(sum|product) of probabilities",
        ),
        code="""
def beam_search(model, src_ids, beam_size, max_len, bos_id, eos_id, length_penalty=0.0):
    def normalised(hypothesis):
        tokens, score = hypothesis
        return score / ((5 + len(tokens)) / 6) ** length_penalty

    answers = []
    with torch.no_grad():
        for row in range(src_ids.shape[0]):
            src = src_ids[row : row + 1]
            memory = model.encode(src)
            beam, finished = [([], 0.0)], []
            for _ in range(max_len):
                inputs = torch.tensor([[bos_id] + tokens for tokens, _ in beam])
                k = inputs.shape[0]
                logits = model.decode(inputs, memory.expand(k, -1, -1), src.expand(k, -1))
                log_probs = torch.log_softmax(logits[:, -1], dim=-1)
                totals = torch.tensor([score for _, score in beam])[:, None] + log_probs
                vocab = totals.shape[1]
                # 2 x beam size candidates, in case half of them are <eos>
                top = totals.flatten().topk(min(2 * beam_size, totals.numel()))
                new_beam = []
                for score, index in zip(top.values.tolist(), top.indices.tolist()):
                    parent, token = divmod(index, vocab)
                    candidate = (beam[parent][0] + [token], score)
                    if token == eos_id:
                        finished.append(candidate)
                    elif len(new_beam) < beam_size:
                        new_beam.append(candidate)
                beam = new_beam
                if finished and max(map(normalised, finished)) >= beam[0][1]:
                    break
            answers.append(max(finished or beam, key=normalised)[0])
    width = max(len(tokens) for tokens in answers)
    out = torch.full((len(answers), width), model.pad_id, dtype=torch.long)
    for row, tokens in enumerate(answers):
        out[row, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
    return out
""",
        source=TWO_K_CANDIDATES,
    ),
]
