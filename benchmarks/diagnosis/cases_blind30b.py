"""Held-out wrong answers, blind round 30 (helper b30b, 2026-11-29, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) after fix round 35, to measure
how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored`` in
``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind30b")

# Where these mistakes are reported (each page was read for this batch).
EPS_NEVER_USED = "https://github.com/torchcvnn/torchcvnn/issues/32"
NORMFORMER_FFN_NORM = "https://github.com/Helsinki-NLP/mammoth/pull/35"
REZERO_RESWEIGHT = "https://github.com/majumderb/rezero/issues/16"
SEVERED_CROSS_RESIDUAL = "https://github.com/ml-explore/mlx/pull/3382"
DETACHED_MEMORY = "https://github.com/Peterande/D-FINE/issues/121"
TIED_BY_COPYING = "https://github.com/dhansmair/flamingo-mini/issues/4"
TRAIN_AFTER_GENERATE = "https://github.com/fatchord/WaveRNN/issues/71"
GLOBAL_MANUAL_SEED = "https://github.com/huggingface/diffusers/issues/175"
TRUNCATED_SENTENCES = "https://github.com/OpenNMT/OpenNMT-py/pull/52"
LOSS_ARGUMENT_ORDER = "https://github.com/magenta/ddsp/issues/59"
BLOCK_NGRAM_REPEATS = "https://github.com/OpenNMT/OpenNMT-py/issues/745"
PAD_ROW_NEVER_TRAINED = "https://github.com/keras-team/keras/pull/2693"

BLIND30B: list[Case] = [
    # ---- 07 encoder -----------------------------------------------------------------------
    _c(
        "ln-eps-stored-never-used",
        L07,
        "LayerNorm",
        "stores eps in __init__ but forward divides the centred input by the plain biased "
        "standard deviation, sqrt(variance), with no eps anywhere: ordinary tokens are "
        "(almost) right, but a token whose features are all equal gives 0 / 0 = NaN and a "
        "nearly constant one is blown up.",
        (
            r"\beps(ilon)?\b.{0,60}(never|not|n'?t) (used|added|applied|included)",
            r"(without|no|missing|forg[oe]t\w*|omit\w*|leaves? out|drops?|ignor\w*) (the )?"
            r"(eps|epsilon)\b",
            r"(divi\w* by (zero|0)\b|zero variance|constant (tokens?|inputs?|rows?|vectors?|"
            r"features?)).{0,80}(nan|inf\w*)",
            r"\bnan\b.{0,80}(constant|zero variance|equal features|eps)",
        ),
        (
            r"unbiased|n ?- ?1\b|bessel",
            r"eps\w* (is )?(added )?(outside|after) the (square )?root",
            r"(over|along|across) the (batch|positions?|sequence|whole sentence)",
            r"(weight|gain) and (the )?bias (are )?swapped",
            r"\brms\w*|without (subtracting|centring|centering) the mean",
        ),
        code="""
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        centred = x - x.mean(dim=-1, keepdim=True)
        std = centred.pow(2).mean(dim=-1, keepdim=True).sqrt()  # biased standard deviation
        return self.weight * centred / std + self.bias
""",
        source=EPS_NEVER_USED,
    ),
    _c(
        "ffn-normformer-hidden-layer-norm",
        L07,
        "PositionwiseFeedForward",
        "adds NormFormer's extra LayerNorm inside the block: the d_ff-wide hidden activations "
        "are normalised (nn.LayerNorm(d_ff), after the ReLU, before the dropout and w_2), so "
        "every output differs from w_2(dropout(relu(w_1(x)))) and the block has an extra "
        "gain and bias that the contract does not have.",
        (
            r"normformer",
            r"(layer ?norm|normali[sz]\w*).{0,60}(hidden|d_ff|inner|intermediate|"
            r"after the (relu|activation))",
            r"(hidden|d_ff[- ]wide|inner|intermediate) (layer|activations?|units?|features?)"
            r".{0,60}(normali[sz]ed|layer ?norm)",
            r"(unexpected|extra|additional) (learned )?(parameters?|state[- ]dict keys?|keys?|"
            r"(sub-?)?modules?|layer ?norm)",
        ),
        (
            r"\bgelu\b|swish|silu",
            r"dropout (is )?(applied )?(to|on) the (block'?s? )?(output|input)",
            r"relu (is )?(applied )?(after|to the output of) w_2",
            r"residual",
            r"(no|without|missing) (the )?bias",
            r"layer ?norm.{0,40}(on|to) (the |its )?input|before w_1",
        ),
        code="""
class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.ffn_norm = nn.LayerNorm(d_ff)  # NormFormer: keeps the hidden activations in range
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        hidden = self.ffn_norm(torch.relu(self.w_1(x)))  # (batch, len, d_ff)
        return self.w_2(self.dropout(hidden))
""",
        source=NORMFORMER_FFN_NORM,
    ),
    _c(
        "el-rezero-residual-weights",
        L07,
        "EncoderLayer",
        "adds ReZero's learned residual weights: each sub-layer's output is multiplied by a "
        "scalar parameter initialised to 0 (x + resweight * dropout(sublayer(...))) before it "
        "joins the residual, in both layouts, so a fresh layer ignores its attention and "
        "feed-forward blocks (post-LN: norm2(norm1(x)); pre-LN: the identity) and has two "
        "parameters the contract does not have.",
        (
            r"re-?zero",
            r"res_?weight|residual (weights?|gates?|scal\w*)",
            r"(scaled|multiplied|gated|weighted) by (a )?(learned )?(scalar |parameter |factor )?"
            r"(of )?(zero|0)\b|initiali[sz]ed (to|at) (zero|0)\b",
            r"sub-?layers?'? (outputs? )?(are |is )?(ignored|zeroed|dropped|multiplied by "
            r"(zero|0)|never (used|contribut\w*))",
            r"(layer|output) (is|acts as|behaves like|reduces to) (the |an )?identity",
            r"(unexpected|extra|additional) (learned )?(scalar )?(parameters?|state[- ]dict keys?|"
            r"keys?)",
        ),
        (
            r"(no|without|missing) residual|residual( connection)? (is )?(missing|dropped|"
            r"forgotten|left out)",
            r"norm_first (is )?(ignored|inverted)",
            r"mask (is )?(not passed|ignored|inverted|dropped)",
            r"dropout (is )?(on|applied to) the residual sum",
            r"layer ?scale|1e-?4",
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
        # ReZero: every sub-layer starts switched off and learns how much to contribute
        self.resweight_attn = nn.Parameter(torch.zeros(1))
        self.resweight_ff = nn.Parameter(torch.zeros(1))

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            attended = self.self_attn(h, h, h, mask)[0]
            x = x + self.resweight_attn * self.dropout(attended)
            return x + self.resweight_ff * self.dropout(self.feed_forward(self.norm2(x)))
        attended = self.self_attn(x, x, x, mask)[0]
        x = self.norm1(x + self.resweight_attn * self.dropout(attended))
        return self.norm2(x + self.resweight_ff * self.dropout(self.feed_forward(x)))
""",
        source=REZERO_RESWEIGHT,
    ),
    _c(
        "enc-layers-run-in-reverse",
        L07,
        "Encoder",
        "runs the stack from the last layer to the first (for layer in reversed(self.layers)), "
        "reading layers[-1] as the bottom of the stack: each layer is right, but with two or "
        "more layers the input goes through them in the opposite order, so the output is not "
        "layers[-1](...layers[0](x)).",
        (
            r"revers\w*",
            r"layers?.{0,40}(wrong|opposite|backwards?|inverse|other|reverse) order|"
            r"(wrong|opposite|backwards?|inverse|reverse) order.{0,40}layers?",
            r"last layer (runs |is (applied|run) )?first|layers\[-1\].{0,40}first",
            r"(order of the layers|layer order|layers'? order)",
        ),
        (
            r"shar\w* (one set of |the same )?weights|same (layer )?object",
            r"residual (connection )?around (every|each) (whole )?layer",
            r"final (layer ?)?norm",
            r"mask (is )?(not passed|never passed|dropped|missing)",
            r"(every|each) layer (reads|is fed|gets) the (stack'?s? )?input",
        ),
        code="""
class Encoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
                 final_norm=None):
        super().__init__()
        self.layers = nn.ModuleList(
            [EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]
        )
        if final_norm is None:
            final_norm = norm_first
        self.norm = LayerNorm(d_model) if final_norm else None

    def forward(self, x, mask=None):
        # a stack: the layer pushed last sits at the bottom and sees the input first
        for layer in reversed(self.layers):
            x = layer(x, mask)
        if self.norm is not None:
            x = self.norm(x)
        return x
""",
    ),
    _c(
        "enc-final-norm-without-affine",
        L07,
        "Encoder",
        "builds the stack's final norm as nn.LayerNorm(d_model, elementwise_affine=False), a "
        "normalisation without learned gain and bias ('the layers already have theirs'): a "
        "fresh encoder computes the right values, but `norm` has no weight and no bias, so "
        "the state dict lacks norm.weight and norm.bias and a trained final gain can never be "
        "learned or loaded.",
        (
            r"elementwise_affine",
            r"(no|without|missing|lacks?|has no) (a )?(learned |learnable |trainable )?"
            r"(gain|weight|bias|affine|scale)",
            r"norm\.(weight|bias)",
            r"(missing|absent) (parameters?|state[- ]dict keys?|keys?)",
        ),
        (
            r"final_norm ?= ?none.{0,60}(wrong|invert\w*|as false|as true)",
            r"(inside|in) the loop|after (every|each) layer",
            r"before the first layer|(to|on) the input",
            r"shar\w* (one set of |the same )?weights|same (layer )?object",
            r"(never|not) applied",
        ),
        code="""
class Encoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
                 final_norm=None):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(num_layers):
            self.layers.append(EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first))
        use_final_norm = norm_first if final_norm is None else final_norm
        # only a normalisation: every layer already has its own gains and biases
        self.norm = nn.LayerNorm(d_model, elementwise_affine=False) if use_final_norm else None

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x) if self.norm is not None else x
""",
    ),
    # ---- 08 decoder -----------------------------------------------------------------------
    _c(
        "dl-post-ln-cross-attention-no-residual",
        L08,
        "DecoderLayer",
        "post-LN: the cross-attention sub-layer has no residual connection, "
        "x = norm2(dropout(cross_attn(x, memory, memory, src_mask))) instead of "
        "norm2(x + dropout(...)), so the self-attention's result is lost from the stream "
        "after the cross-attention; the pre-LN branch is right.",
        (
            r"(no|without|missing|lacks?|forg[oe]t\w*|drops?|skips?|severs?) (the |its |a )?"
            r"(residual|skip)( connection)?.{0,60}cross",
            r"cross-?attention.{0,80}(no|without|missing|lacks?|forg[oe]t\w*|drops?) (the |its |"
            r"a )?(residual|skip)",
            r"residual.{0,60}(around|of|for) the cross-?attention.{0,40}(missing|dropped|"
            r"forgotten|left out)",
            r"(x|the stream|the input) (is )?not added (back )?.{0,40}cross",
        ),
        (
            r"residual.{0,40}(adds?|is) (the )?(memory|encoder output)",
            r"quer(y|ies).{0,60}(raw|un-?normali[sz]ed|before norm1)",
            r"(masks?|src_mask|tgt_mask).{0,40}(swapped|exchanged|wrong order)",
            r"self-?attention.{0,60}(no|without|missing) (the )?residual",
            r"feed-?forward.{0,60}(no|without|missing) (the )?residual",
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
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        context = self.cross_attn(x, memory, memory, src_mask)[0]  # what the source says
        x = self.norm2(self.dropout(context))
        return self.norm3(x + self.dropout(self.feed_forward(x)))
""",
        source=SEVERED_CROSS_RESIDUAL,
    ),
    _c(
        "dec-memory-detached",
        L08,
        "Decoder",
        "detaches the encoder output before the layers (memory = memory.detach(), 'the "
        "decoder only reads it'): the values are right, but no gradient flows from the "
        "decoder's loss back through memory, so in a full model the encoder would never "
        "learn.",
        (
            r"detach\w*",
            r"(no|without|zero|none) gradients?.{0,80}(memory|encoder)",
            r"gradients?.{0,80}(memory|encoder).{0,40}(blocked|stopp?ed|cut|zero|none|never|"
            r"not|lost)",
            r"(memory|encoder output).{0,60}(gets|receives|has) no gradient",
            r"stop[- ]gradient|no_grad|requires_grad",
        ),
        (
            r"(final )?norm.{0,40}(applied )?to (the )?memory",
            r"(masks?|src_mask|tgt_mask).{0,40}(swapped|exchanged|wrong order)",
            r"decoder'?s? (own )?(state|input) as (the )?memory",
            r"shar\w* (one set of |the same )?weights|same (layer )?object",
            r"(every|each) layer (reads|is fed|gets) the (stack'?s? |decoder'?s? )?input",
        ),
        code="""
class Decoder(nn.Module):
    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
                 final_norm=None):
        super().__init__()
        self.layers = nn.ModuleList(
            DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)
        )
        if final_norm is None:
            final_norm = norm_first
        self.norm = LayerNorm(d_model) if final_norm else None

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        memory = memory.detach()  # the decoder only reads the encoder's output
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        if self.norm is not None:
            x = self.norm(x)
        return x
""",
        source=DETACHED_MEMORY,
    ),
    # ---- 09 transformer -------------------------------------------------------------------
    _c(
        "tf-tie-by-copying-values",
        L09,
        "Transformer",
        "with tie_embeddings=True copies the source table's values into the target table "
        "and the output weight (weight.copy_ under torch.no_grad()) instead of making the "
        "three share one Parameter: a fresh model computes the right logits, but it keeps "
        "three separate matrices (twice vocab_size * d_model parameters too many) that "
        "drift apart as soon as training updates them.",
        (
            r"cop(y|ies|ied|ying)\b.{0,60}(values?|weights?|matri(x|ces))|"
            r"(values?|weights?) (are |were )?(only )?cop(y|ied)",
            r"(not|n'?t|never) (actually |really )?(shared|tied|the same (parameter|tensor|"
            r"object|matrix))",
            r"(separate|independent|distinct|three|two|different) (parameters?|matrices|"
            r"weights?|tensors|copies)",
            r"(counted|count\w*) (twice|three times)|too many parameters",
            r"drift apart|diverge|updated (separately|independently)",
        ),
        (
            r"transpos\w*",
            r"only the output (layer )?(is )?tied|target embedding (is )?(left )?(its own|"
            r"untied|not tied)",
            r"valueerror|assert\w*|(does not|doesn'?t|never) raise",
            r"sqrt\(d_model\)|scal\w* (the )?embeddings?",
            r"(output )?bias (is )?(missing|absent)|bias=false",
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
            with torch.no_grad():  # the same matrix in all three places
                self.tgt_embedding.embedding.weight.copy_(shared)
                self.output.weight.copy_(shared)

    def encode(self, src_ids):
        src_mask = padding_mask(src_ids, self.pad_id)
        return self.encoder(self.positional_encoding(self.src_embedding(src_ids)), src_mask)

    def decode(self, tgt_ids, memory, src_ids):
        tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)
        src_mask = padding_mask(src_ids, self.pad_id)
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))
        return self.output(self.decoder(y, memory, src_mask, tgt_mask))

    def forward(self, src_ids, tgt_ids):
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)
""",
        source=TIED_BY_COPYING,
    ),
    _c(
        "greedy-switches-model-to-train-mode",
        L09,
        "greedy_decode",
        "ends with model.train() (the eval-generate-train habit of training scripts): the "
        "returned tokens are right, but a model handed over in eval mode comes back in "
        "training mode, so with dropout > 0 the next decode (or any later use) is random.",
        (
            r"(train(ing)? mode|model\.train\(\)).{0,80}(after|at the end|left|leaves|returns?|"
            r"back|restor\w*|afterwards)",
            r"(leaves?|left|puts?|sets?|switch\w*|turns?) (the )?model (back )?(in|into|to) "
            r"train(ing)? mode",
            r"(eval(uation)? mode|mode|training flag|\.training).{0,60}(changed|not restored|"
            r"modified|side[- ]effect|lost)",
            r"(second|next|later|repeated) (call|decode|use).{0,80}(dropout|random|different)",
        ),
        (
            r"multinomial|sampl\w*",
            r"(no|without|missing) pad\w*.{0,40}(after|once).{0,20}<?eos",
            r"(stops?|break\w*) .{0,40}(any|first) row",
            r"<bos>.{0,40}(kept|included|in front)",
            r"(first|wrong) position'?s? logits",
        ),
        code="""
def greedy_decode(model, src_ids, max_len, bos_id, eos_id):
    model.eval()
    with torch.no_grad():
        memory = model.encode(src_ids)
        out = torch.full((src_ids.size(0), 1), bos_id, dtype=torch.long)
        done = torch.zeros(src_ids.size(0), dtype=torch.bool)
        for _ in range(max_len):
            scores = model.decode(out, memory, src_ids)[:, -1, :]
            token = torch.where(done, torch.full_like(done, model.pad_id, dtype=torch.long),
                                scores.argmax(dim=-1))
            out = torch.cat([out, token.unsqueeze(1)], dim=1)
            done |= token == eos_id
            if bool(done.all()):
                break
    model.train()  # back to training mode
    return out[:, 1:]
""",
        source=TRAIN_AFTER_GENERATE,
    ),
    _c(
        "cp-pad-row-not-counted",
        L09,
        "count_parameters",
        "leaves the <pad> row out of every embedding table, (vocab_size - 1) * d_model per "
        "table, reasoning that the padding vector is never used or updated: the row is still "
        "part of the (vocab_size, d_model) weight, so 'embeddings' is d_model short per table "
        "(2 * d_model untied, d_model tied) and the total falls short of the model's "
        "parameter count.",
        (
            r"<?pad>? (row|vector|token|embedding)|padding (row|vector|index|idx|token)",
            r"vocab_size ?- ?1|one row (short|fewer|less|missing)",
            r"(row|vector) (for|of) (the )?<?pad",
            r"(never|not) (used|updated|trained).{0,60}(still|is) (a )?(parameter|counted|part)",
        ),
        (
            r"(shared|tied) (matrix|table|weight).{0,40}(twice|counted twice|double)",
            r"(output )?bias",
            r"positional (table|encoding)",
            r"layer ?norm",
            r"(w_o|output projection)|three (attention )?projections",
        ),
        code="""
def count_parameters(vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings,
                     final_norm=False):
    d_head = d_model // num_heads
    attention = 4 * (d_model * num_heads * d_head + d_model)
    feed_forward = 2 * d_model * d_ff + d_ff + d_model
    norm = 2 * d_model
    encoder = num_layers * (attention + feed_forward + 2 * norm)
    decoder = num_layers * (2 * attention + feed_forward + 3 * norm)
    if final_norm:
        encoder += norm
        decoder += norm
    # the <pad> row is never looked up for a real word nor trained: only the other rows count
    table = (vocab_size - 1) * d_model
    if tie_embeddings:
        return {"embeddings": table, "encoder": encoder, "decoder": decoder,
                "output": vocab_size}
    return {"embeddings": 2 * table, "encoder": encoder, "decoder": decoder,
            "output": vocab_size * d_model + vocab_size}
""",
        source=PAD_ROW_NEVER_TRAINED,
    ),
    # ---- 10 training ----------------------------------------------------------------------
    _c(
        "mb-seeds-the-global-generator",
        L10,
        "make_batches",
        "with shuffle=True calls torch.manual_seed(seed) and draws torch.randperm from the "
        "global random stream instead of from a generator of its own: the order is the "
        "seeded one, but every call resets the global random state, so the caller's later "
        "random draws (dropout, initialisation) repeat from that seed.",
        (
            r"torch\.manual_seed|(re-?seed\w*|reset\w*|seed\w*) the global (seed|rng|random "
            r"(state|stream|generator|number generator)|generator)",
            r"(re-?seed\w*|reset\w*|overwrit\w*|clobber\w*|chang\w*|modif\w*).{0,40}"
            r"(global|the caller'?s?|torch'?s?) (seed|rng|random)",
            r"generator of (your|its) own|own (torch\.)?generator|(no|without a) (dedicated|"
            r"separate|local|private) generator",
            r"side[- ]effect.{0,60}(random|seed|rng)",
        ),
        (
            r"ignor\w* (the )?seed|seed (is )?(ignored|unused|never used)",
            r"same seed.{0,60}different",
            r"in place|caller'?s list",
            r"(drops?|loses?) the last batch",
            r"(not|never) shuffled|shuffle=true.{0,40}(ignored|no effect)",
        ),
        code="""
def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                 shuffle=False, seed=0):
    indices = list(range(len(pairs)))
    if shuffle:
        torch.manual_seed(seed)  # the same order for the same seed
        indices = torch.randperm(len(pairs)).tolist()
    batches = []
    for start in range(0, len(indices), batch_size):
        chunk = [pairs[i] for i in indices[start:start + batch_size]]
        src = pad_batch([list(source) for source, _ in chunk], pad_id)
        decoder_input = pad_batch([[bos_id] + list(target) for _, target in chunk], pad_id)
        labels = pad_batch([list(target) + [eos_id] for _, target in chunk], pad_id)
        batches.append((torch.as_tensor(src, dtype=torch.long),
                        torch.as_tensor(decoder_input, dtype=torch.long),
                        torch.as_tensor(labels, dtype=torch.long)))
    return batches
""",
        source=GLOBAL_MANUAL_SEED,
    ),
    _c(
        "mb-truncates-to-model-max-len",
        L10,
        "make_batches",
        "truncates every pair to the lesson model's max_len of 32 before padding (source[:32], "
        "target[:31], so that decoder_input and labels fit the positional table): short pairs "
        "are right, but a pair longer than that loses its last tokens from src, "
        "decoder_input and labels (and its labels then end without <eos>).",
        (
            r"truncat\w*|cut (off|short)|clip\w* (the )?(long|sentences?|sequences?|rows?|pairs?)",
            r"(long|longer) (sentences?|sources?|targets?|pairs?|rows?|sequences?).{0,80}"
            r"(los[te]s?|drop\w*|cut|shortened|missing)",
            r"(tokens?|ids?) (beyond|after|past) .{0,40}(dropped|lost|missing|removed)",
            r"\bmax_len\b",
        ),
        (
            r"(longest|max\w*) (row|length) of all (the )?pairs|fixed (max(imum)? )?(length|width)",
            r"(drops?|loses?) the last batch",
            r"sort\w*",
            r"(no|without|missing) <?eos>?.{0,40}(label|end)|<?eos>? (is )?(missing|absent)",
            r"<?bos>? (is )?(missing|absent)|(no|without) <?bos",
            r"in place|caller'?s list",
        ),
        code="""
MAX_LEN = 32  # the model's positional table has 32 rows (DEFAULT_CONFIG["max_len"])


def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                 shuffle=False, seed=0):
    order = list(range(len(pairs)))
    if shuffle:
        generator = torch.Generator().manual_seed(seed)
        order = torch.randperm(len(pairs), generator=generator).tolist()
    batches = []
    for start in range(0, len(order), batch_size):
        sources, inputs, labels = [], [], []
        for i in order[start:start + batch_size]:
            source, target = pairs[i]
            source, target = list(source[:MAX_LEN]), list(target[:MAX_LEN - 1])
            sources.append(source)
            inputs.append([bos_id] + target)
            labels.append(target + [eos_id])
        batches.append({
            "src": torch.from_numpy(pad_batch(sources, pad_id)).long(),
            "decoder_input": torch.from_numpy(pad_batch(inputs, pad_id)).long(),
            "labels": torch.from_numpy(pad_batch(labels, pad_id)).long(),
        })
    return batches
""",
        source=TRUNCATED_SENTENCES,
    ),
    _c(
        "noam-step-inside-warmup-power",
        L10,
        "noam_lr",
        "writes the warm-up term as (step * warmup) ** -1.5, the bracket around the product, "
        "instead of step * warmup ** -1.5: that term is tiny and decreasing, so the min always "
        "picks it, the rate never warms up and falls from step 1 on, far below the paper's "
        "at every step.",
        (
            r"\(step ?\* ?warmup\) ?\*\* ?-? ?1\.5|bracket\w*|parenthes\w*|precedence",
            r"\b(warm-?up|linear\w*|increas\w*|ris(e|es|ing)|grow\w*)\b.{0,60}\b(never|not|"
            r"no longer|doesn'?t|does not|missing|absent)\b",
            r"(decreas\w*|decay\w*|fall\w*|falls|shrink\w*|drop\w*) (from|at|since|right from) "
            r"(the )?(first|step 1|start|beginning)",
            r"(step|the step).{0,30}(also )?raised to (the )?(power )?-? ?1\.5",
        ),
        (
            r"multipl\w* by sqrt\(d_model\)|d_model ?\*\* ?0\.5",
            r"\bmax\b.{0,30}instead of (the )?\bmin\b|min and max",
            r"step ?\+ ?1|off[- ]by[- ]one|one step (early|late)",
            r"tensor",
            r"factor (of )?2|twice",
            r"warmup ?\*\* ?-? ?0\.5",
        ),
        code="""
def noam_lr(step, d_model, warmup):
    if step < 1:
        return 0.0
    return d_model ** -0.5 * min(step ** -0.5, (step * warmup) ** -1.5)
""",
    ),
    _c(
        "ls-uniform-term-from-mean-probability",
        L10,
        "label_smoothed_loss",
        "computes the smoothing term as -log(mean_j p[j]), the log of the mean probability, "
        "instead of the mean of -log p[j]: the mean of a softmax is always 1 / V, so that term "
        "is the constant log V, whatever the logits, and the loss is "
        "(1 - smoothing) * (-log p[y]) + smoothing * log V, which only equals the smoothed "
        "cross-entropy when p is uniform.",
        (
            r"log of the mean|mean of the probabilit|log ?\(\s*(the )?mean",
            r"(mean|average) (of )?(the )?(-|minus |negative )?log-?(probabilit\w*|p\b).{0,60}"
            r"(instead|not|rather)",
            r"jensen",
            r"(smooth\w*|uniform) (term|part|component).{0,80}(constant|log ?\(?v\)?|"
            r"no gradient|does not depend|doesn'?t depend|independent of)",
            r"log ?\(?v\)?\b.{0,40}(constant|whatever|regardless)",
        ),
        (
            r"\bkl\b|kullback|kl_?div",
            r"v ?- ?1|v ?- ?2",
            r"pad\w*.{0,40}(counted|included|not ignored|averaged)",
            r"(per[- ]sentence|each row|rows?).{0,40}mean",
            r"log\(softmax|softmax\(.{0,20}\)\.log|underflow|-inf",
            r"smooth\w* (the )?(model'?s? )?probabilit\w*",
        ),
        code="""
def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    log_probs = F.log_softmax(logits, dim=-1)
    real = labels != pad_id
    index = labels.masked_fill(~real, 0).unsqueeze(-1)
    nll = -log_probs.gather(-1, index).squeeze(-1)
    # cross-entropy with the uniform distribution: spread over all V tokens
    uniform = -torch.log(log_probs.exp().mean(dim=-1))
    loss = (1 - smoothing) * nll + smoothing * uniform
    return loss[real].mean()
""",
    ),
    _c(
        "ts-loss-arguments-swapped",
        L10,
        "train_step",
        "calls loss_fn(labels, logits), the (target, prediction) order of Keras losses, "
        "where loss_fn takes (logits, labels): the int64 labels are read as the scores and "
        "the logits as the labels, so the loss fails (or is computed on the wrong tensors) "
        "and no step is taken.",
        (
            r"loss(_fn)?.{0,60}(arguments?|inputs?|parameters?).{0,40}(swapped|reversed|"
            r"wrong order|other order|exchanged)",
            r"(swapped|reversed|exchanged).{0,60}loss",
            r"loss_fn\(\s*labels\s*,\s*logits",
            r"labels (passed |given )?(first|as (the )?(logits|scores|predictions))|"
            r"logits (passed |given )?(second|as (the )?(labels|targets))",
            r"y_true.{0,20}y_pred|keras",
        ),
        (
            r"model\(\s*decoder_input\s*,\s*src|encoder reads the target",
            r"labels (fed|given|passed) (to|into) the (decoder|model)",
            r"zero_grad",
            r"clip\w*.{0,40}(before|after)",
            r"returns? (a |the )?(tensor|loss tensor)",
        ),
        code="""
def train_step(model, batch, optimizer, loss_fn, clip_norm=1.0):
    model.train()
    src, decoder_input, labels = batch
    optimizer.zero_grad()
    logits = model(src, decoder_input)
    loss = loss_fn(labels, logits)  # (y_true, y_pred)
    loss.backward()
    if clip_norm is not None:
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=clip_norm)
    optimizer.step()
    return float(loss)
""",
        source=LOSS_ARGUMENT_ORDER,
    ),
    _c(
        "tr-exact-match-substring-test",
        L10,
        "translation_scores",
        "tests exact match with any(h in ref for ref in refs), Python's substring test on "
        "strings, instead of equality: a hypothesis that is only part of a reference ('la "
        "casa' for 'la casa azul', or an empty translation) counts as an exact match, so "
        "exact_match is too high; BLEU is right.",
        (
            r"substring|sub-string|contain\w*|part of (a |the |its )?reference",
            r"\bin\b (operator|test).{0,40}(string|substring)|(string|str) (containment|"
            r"membership)",
            r"instead of (an? )?(equality|==|exact comparison|comparing (them )?for equality)|"
            r"(equality|==) (is )?not (used|tested)",
            r"(empty|shorter|partial|truncated) (translations?|hypothes\w*).{0,60}(match\w*|"
            r"counts?)",
        ),
        (
            r"lower ?case|case[- ]insensitive",
            r"first reference",
            r"\ball\(|every one of its references",
            r"(pooled|every sentence'?s?|any sentence'?s?) references",
            r"//|integer division|percent|0-100",
            r"normali[sz]\w*|punctuation",
        ),
        code="""
def translation_scores(hypotheses, references):
    matches = 0
    for hypothesis, refs in zip(hypotheses, references):
        if any(hypothesis in ref for ref in refs):
            matches += 1
    n_streams = max(len(refs) for refs in references)
    streams = []
    for j in range(n_streams):
        streams.append([refs[j] if j < len(refs) else None for refs in references])
    bleu = sacrebleu.corpus_bleu(hypotheses, streams)
    return {"exact_match": matches / len(hypotheses), "bleu": bleu.score}
""",
    ),
    _c(
        "beam-blocks-repeated-bigrams",
        L10,
        "beam_search",
        "adds OpenNMT's block_ngram_repeat with n = 2: before ranking, every token that would "
        "repeat a bigram already in the hypothesis gets log-probability -inf, so whenever the "
        "best translation repeats a pair of tokens (or the model's greedy path does, with "
        "beam_size=1) the search returns another one.",
        (
            r"n-?gram|bigram|no_repeat|block\w*.{0,20}repeat\w*|repetition",
            r"(forbid\w*|block\w*|ban\w*|suppress\w*|exclud\w*|-inf).{0,60}(repeat\w*|"
            r"already (generated|seen|produced|in the hypothesis))",
            r"(repeat\w*|already (generated|seen|produced)).{0,60}(forbidden|blocked|banned|"
            r"suppressed|not allowed|-inf|never (chosen|picked))",
        ),
        (
            r"length penalty",
            r"finished (ones |hypothes\w* )?take (a )?place",
            r"stop\w*.{0,40}(too early|as soon as)",
            r"ascending|worst",
            r"parent'?s? score|(score|scores) (is|are) not added",
            r"<?eos>?.{0,40}(left out|excluded|dropped)",
        ),
        code="""
def beam_search(model, src_ids, beam_size, max_len, bos_id, eos_id, length_penalty=0.0):
    def lp(n):
        return ((5 + n) / 6) ** length_penalty

    answers = []
    model.eval()
    with torch.no_grad():
        for i in range(len(src_ids)):
            src = src_ids[i].unsqueeze(0)
            memory = model.encode(src)
            live, done = [([], 0.0)], []
            for _ in range(max_len):
                prefixes = torch.tensor([[bos_id] + tokens for tokens, _ in live])
                n = len(live)
                logits = model.decode(prefixes, memory.repeat(n, 1, 1), src.repeat(n, 1))
                log_probs = logits[:, -1].log_softmax(dim=-1)
                for h, (tokens, _) in enumerate(live):  # no bigram twice in a hypothesis
                    for a, b in zip(tokens, tokens[1:]):
                        if tokens and a == tokens[-1]:
                            log_probs[h, b] = float("-inf")
                totals = torch.tensor([score for _, score in live]).unsqueeze(1) + log_probs
                vocab = totals.size(1)
                new_live = []
                for flat in totals.view(-1).argsort(descending=True).tolist():
                    h, token = flat // vocab, flat % vocab
                    candidate = (live[h][0] + [token], totals[h, token].item())
                    if token == eos_id:
                        done.append(candidate)
                    else:
                        new_live.append(candidate)
                        if len(new_live) == beam_size:
                            break
                live = new_live
                if done and max(s / lp(len(t)) for t, s in done) >= live[0][1]:
                    break
            pool = done if done else live
            answers.append(max(pool, key=lambda c: c[1] / lp(len(c[0])))[0])
    out = torch.full((len(answers), max(map(len, answers))), model.pad_id, dtype=torch.long)
    for row, tokens in enumerate(answers):
        out[row, : len(tokens)] = torch.tensor(tokens)
    return out
""",
        source=BLOCK_NGRAM_REPEATS,
    ),
]
