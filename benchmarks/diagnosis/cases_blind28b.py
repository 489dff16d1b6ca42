"""Held-out wrong answers, blind round 28 (helper b28b, 2026-11-29, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 32 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind28b")

# Where these mistakes are reported (each page was read for this batch).
GAIN_OFFSET = "https://github.com/huggingface/transformers/pull/40796"
TEST_TIME_HALVING = "https://discuss.pytorch.org/t/confusion-about-dropout/39407"
LAYER_SCALE = "https://github.com/facebookresearch/deit/issues/122"
DROP_PATH = "https://github.com/huggingface/pytorch-image-models/issues/2118"
LAYER_AVERAGE = "https://github.com/krishnap25/mauve/issues/3"
CAUSAL_AT_INFERENCE = "https://ai.stackexchange.com/questions/42116/transformer-decoder-causal-masking-during-inference"
DETR_MEMORY_POSITIONS = "https://github.com/facebookresearch/detr/issues/415"
T5_SHIFT_RIGHT = "https://github.com/patil-suraj/exploring-T5/issues/2"
EMBEDDING_IN_STACKS = "https://github.com/NVIDIA-NeMo/Speech/pull/1611"
SORTED_OUTPUT_ORDER = "https://github.com/facebookresearch/fairseq/issues/2036"
SHARED_GENERATOR = "https://github.com/pytorch/pytorch/issues/80119"
SMOOTHING_SOFT_TARGETS = "https://github.com/ayrna/dlordinal/issues/58"
LOSS_TIMES_NTOKENS = "https://github.com/guevara/read-it-later/issues/12240"
SKIP_ON_LARGE_NORM = "https://github.com/NVIDIA/Megatron-LM/pull/3460"
DOUBLE_BOS = "https://github.com/ml-explore/mlx-examples/issues/1188"

BLIND28B: list[Case] = [
    # ---- 07 encoder -----------------------------------------------------------------------
    _c(
        "ln-gain-offset-from-one",
        L07,
        "LayerNorm",
        "multiplies the normalised vector by (1 + weight), the offset-from-one gain of "
        "Gemma/Qwen3.5-style norms, while still initialising weight to ones: a fresh "
        "LayerNorm scales every normalised feature by 2 instead of 1, and a trained gain g "
        "acts as g + 1.",
        (
            r"1 ?\+ ?(self\.)?weight|weight ?\+ ?1",
            r"offset[- ]from[- ]one|one[- ]cent(e|re)d",
            r"(gain|weight)\w*.{0,60}(plus|\+) ?(one|1)\b",
            r"doubl\w*|twice (as (large|big)|the (size|value))|(times|factor of|scaled by) 2\b",
        ),
        (
            r"unbiased|n ?- ?1\b|bessel",
            r"eps\w* (is )?(added )?(outside|after) the (square )?root|to the standard deviation",
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
        mean = x.mean(dim=-1, keepdim=True)
        variance = x.var(dim=-1, keepdim=True, unbiased=False)
        normalised = (x - mean) / torch.sqrt(variance + self.eps)
        return normalised * (1 + self.weight) + self.bias
""",
        source=GAIN_OFFSET,
    ),
    _c(
        "ffn-eval-scaled-by-keep-probability",
        L07,
        "PositionwiseFeedForward",
        "writes the dropout the way the original dropout paper describes it at test time: in "
        "training it calls nn.Dropout (which already rescales the kept units by 1 / (1 - p)), "
        "and in eval mode it multiplies the hidden activations by the keep probability "
        "1 - p, so with dropout > 0 every eval-mode output is computed from hidden units "
        "shrunk by 1 - p (nn.Dropout is the identity in eval mode).",
        (
            r"(eval|evaluation|inference|test)[- ]?(mode|time)?.{0,100}"
            r"(scal\w*|multipl\w*|shrunk|shrink\w*|1 ?- ?p|keep[- ]prob\w*|\(1 ?- ?dropout\))",
            r"(scal\w*|multipl\w*|shrunk|shrink\w*).{0,80}(eval|evaluation|inference|test)",
            r"inverted dropout",
            r"(nn\.)?dropout (already|itself) (re)?scales",
            r"identity in eval",
        ),
        (
            r"dropout (is )?(applied )?(after|on the output of|to the output of) w_2",
            r"dropout (is )?(applied )?(to|on) the input",
            r"relu (is )?(applied )?(after|on|to the output of) w_2",
            r"(never|not|no) (drops?|dropout) in train",
        ),
        code="""
class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        hidden = torch.relu(self.w_1(x))
        if self.training:
            hidden = self.dropout(hidden)
        else:
            # test time: every unit is present, so scale by the keep probability
            hidden = hidden * (1 - self.dropout.p)
        return self.w_2(hidden)
""",
        source=TEST_TIME_HALVING,
    ),
    _c(
        "el-layer-scale-on-sublayers",
        L07,
        "EncoderLayer",
        "adds CaiT's LayerScale to both sub-layers: each sub-layer's output is multiplied by a "
        "learned per-feature gain (gamma_1, gamma_2) initialised to 1e-4 before it is added "
        "to the residual, so a fresh layer is almost the identity (post-LN: almost norm(x)) "
        "and the layer has two parameters the contract does not have.",
        (
            r"layer ?scale",
            r"gamma_?[12]",
            r"(scal\w*|multipl\w*|shrink\w*|tiny|small) .{0,40}sub-?layer'?s? outputs?",
            r"sub-?layer'?s? outputs? .{0,40}(scaled|multiplied|shrunk|tiny|almost zero|too small)",
            r"(unexpected|extra|additional) (learned )?(parameters?|gains?|state[- ]dict keys?|keys?)",
        ),
        (
            r"(residual|skip)( connection)? (is )?(missing|dropped|forgotten|left out)",
            r"(no|without|missing) residual",
            r"norm_first (is )?(ignored|inverted)|pre-?ln.{0,30}post-?ln",
            r"mask (is )?(not passed|ignored|inverted|dropped)",
            r"dropout (is )?(on|applied to) the residual sum",
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
        # LayerScale (CaiT): a small learned gain on each residual branch
        self.gamma_1 = nn.Parameter(1e-4 * torch.ones(d_model))
        self.gamma_2 = nn.Parameter(1e-4 * torch.ones(d_model))

    def forward(self, x, mask=None):
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.gamma_1 * self.dropout(self.self_attn(h, h, h, mask)[0])
            return x + self.gamma_2 * self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.gamma_1 * self.dropout(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(x + self.gamma_2 * self.dropout(self.feed_forward(x)))
""",
        source=LAYER_SCALE,
    ),
    _c(
        "el-drop-path-for-residual-dropout",
        L07,
        "EncoderLayer",
        "replaces the residual dropout with stochastic depth (timm's DropPath): in training "
        "each sentence's whole sub-layer output is kept or zeroed with one draw per sentence "
        "(and rescaled by 1 / (1 - p)), instead of dropping individual elements of it; eval "
        "mode and dropout 0 are unaffected.",
        (
            r"drop ?path|stochastic depth",
            r"(whole|entire|complete) (sub-?layer|branch|sentence|sample|row|example|output)",
            r"one (dropout |random )?(draw|mask|coin|decision|value) per (sentence|sample|example|row)",
            r"per[- ](sentence|sample|example|row) (mask|dropout|drop)",
            r"(instead of|not) (individual|single|separate) (elements|entries|units|values)",
        ),
        (
            r"dropout (is )?(on|applied to) the residual sum",
            r"dropout (is )?(on|applied to) the (sub-?layer'?s? )?input",
            r"(no|without|never) (residual )?dropout",
            r"functional dropout",
            r"mask (is )?(not passed|ignored|inverted)",
        ),
        code="""
def drop_path(x, p, training):
    if p == 0.0 or not training:
        return x
    shape = (x.shape[0],) + (1,) * (x.dim() - 1)  # one draw per sentence
    keep = (torch.rand(shape, device=x.device) >= p).to(x.dtype)
    return x * keep / (1 - p)


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
        p = self.dropout.p
        if self.norm_first:
            h = self.norm1(x)
            x = x + drop_path(self.self_attn(h, h, h, mask)[0], p, self.training)
            return x + drop_path(self.feed_forward(self.norm2(x)), p, self.training)
        x = self.norm1(x + drop_path(self.self_attn(x, x, x, mask)[0], p, self.training))
        return self.norm2(x + drop_path(self.feed_forward(x), p, self.training))
""",
        source=DROP_PATH,
    ),
    _c(
        "enc-averages-every-layer-output",
        L07,
        "Encoder",
        "chains the layers correctly but returns the mean of every layer's output (the "
        "'average the hidden states of all layers' pooling) instead of the last layer's "
        "output, so with more than one layer the earlier layers' outputs are mixed into "
        "the result.",
        (
            r"(averag\w*|mean) (of |over |across )?(the |all |every |each )?(layers?|layer outputs?|stack)",
            r"(every|each|all) layers?'? outputs?.{0,60}(averag\w*|mean|combin\w*|mix\w*)",
            r"(only|just) the last layer'?s? output",
            r"last layer'?s? output (alone|only)",
            r"(earlier|previous|intermediate) layers?'? outputs?.{0,40}(mixed|included|averaged|added)",
        ),
        (
            r"(not|never) chained|(each|every) layer (reads|gets|is fed) the (stack'?s )?input",
            r"final (layer ?)?norm",
            r"shar\w* (one set of )?weights|same (layer )?object",
            r"mask (is )?(not passed|dropped|ignored)",
            r"residual (connection )?around",
        ),
        edits=(
            (
                "        for layer in self.layers:\n"
                "            x = layer(x, mask)  # (batch, len, d_model)\n",
                "        outputs = []\n"
                "        for layer in self.layers:\n"
                "            x = layer(x, mask)\n"
                "            outputs.append(x)\n"
                "        x = torch.stack(outputs).mean(dim=0)  # every layer contributes\n",
            ),
        ),
        source=LAYER_AVERAGE,
    ),
    # ---- 08 decoder -----------------------------------------------------------------------
    _c(
        "dl-look-ahead-only-in-training",
        L08,
        "DecoderLayer",
        "drops tgt_mask in eval mode (if not self.training: tgt_mask = None), believing the "
        "look-ahead mask only matters in training because at inference no future token "
        "exists yet: in eval mode the self-attention of a full target sequence sees the later "
        "positions (and the target padding).",
        (
            r"(eval|evaluation|inference|test)[- ]?(mode|time)?.{0,100}"
            r"(tgt_mask|look-?ahead|causal|target mask|future|later positions)",
            r"(tgt_mask|look-?ahead|causal|target mask).{0,80}(only|just) (in|during|when) train",
            r"self\.training",
            r"(ignor\w*|drop\w*|not appl\w*|never appl\w*|without) (the )?"
            r"(tgt_mask|target mask|look-?ahead)",
        ),
        (
            r"cross-?attention.{0,40}tgt_mask|src_mask.{0,40}self-?attention",
            r"masks? (are )?swapped|in (pytorch'?s|the wrong) order",
            r"(tgt_mask|mask) (is )?(inverted|transposed)",
            r"(cross-?attention).{0,40}(without|no|ignores?) (the )?src_mask",
        ),
        edits=(
            (
                "        if self.norm_first:\n",
                "        if not self.training:\n"
                "            tgt_mask = None  # at inference there are no future tokens to hide\n"
                "        if self.norm_first:\n",
            ),
        ),
        source=CAUSAL_AT_INFERENCE,
    ),
    _c(
        "dec-look-ahead-first-layer-only",
        L08,
        "Decoder",
        "passes tgt_mask to the first layer only (layer(x, memory, src_mask, tgt_mask if i == "
        "0 else None)), believing that once the first layer is causal its outputs carry no "
        "future information: from layers[1] on, every position attends to the later "
        "positions (and the target padding).",
        (
            r"tgt_mask.{0,80}(first layer|layers\[0\]|only once|one layer)",
            r"(first|one) layer only",
            r"(later|other|remaining|subsequent|second|deeper|following) layers?.{0,80}"
            r"(without|no|never|ignor\w*|see|attend|look|future)",
            r"(every|each|all) layers?.{0,40}(needs?|must get|must receive|gets?) (the )?"
            r"(tgt_mask|look-?ahead|target mask)",
        ),
        (
            r"src_mask.{0,60}(first layer|dropped|only once)",
            r"masks? (are )?(swapped|in the wrong order|in pytorch'?s order)",
            r"(not|never) chained|stack'?s input",
            r"final (layer ?)?norm",
        ),
        code="""
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
        for i, layer in enumerate(self.layers):
            # the first layer is causal, so what follows has no future in it
            x = layer(x, memory, src_mask, tgt_mask if i == 0 else None)
        return x if self.norm is None else self.norm(x)
""",
    ),
    # ---- 09 transformer -------------------------------------------------------------------
    _c(
        "tr-positions-added-to-memory",
        L09,
        "Transformer",
        "adds the positional encoding to the encoder's output as well, in decode (memory = "
        "positional_encoding(memory) before the decoder), as DETR adds positions to the "
        "memory for the cross-attention: the sinusoids, already added to the source "
        "embeddings, are added a second time to every memory vector.",
        (
            r"(positional encoding|positions|sinusoids?|\bpe)\b.{0,60}(added|applied|twice|again|to)"
            r".{0,60}(memory|encoder'?s? output)",
            r"(memory|encoder'?s? output).{0,60}(positional encoding|sinusoid\w*|positions (added|again))",
        ),
        (
            r"(no|without|missing) positional encoding",
            r"positional encoding (is )?(added )?twice on the target|target side.{0,40}twice",
            r"memory (is )?(the )?embedded source|encoder'?s? input",
            r"(source|target) embedding (table )?(used )?for the (target|source)",
            r"look-?ahead|causal",
        ),
        edits=(
            (
                "        y = self.decoder(y, memory, src_mask, tgt_mask)",
                "        memory = self.positional_encoding(memory)  # positions for the cross-attention\n"
                "        y = self.decoder(y, memory, src_mask, tgt_mask)",
            ),
        ),
        source=DETR_MEMORY_POSITIONS,
    ),
    _c(
        "tr-forward-shifts-target-right",
        L09,
        "Transformer",
        "shifts the target right inside forward, as T5 and BART build decoder_input_ids from "
        "the labels (cat of tgt_ids[:, :1] and tgt_ids[:, :-1]), although tgt_ids is already "
        "the decoder input ([<bos>] + target): the decoder reads every token one position "
        "late, <bos> twice, and never its last token.",
        (
            r"shift\w* (the )?(target|tgt_ids|decoder input|input ids)",
            r"(target|tgt_ids|decoder input)\w*.{0,40}(shifted|one position (late|behind|to the right))",
            r"(already|again|twice) shifted|shift\w* (again|twice)",
            r"<bos> twice|bos.{0,20}(twice|repeated|duplicated)",
            r"one position (late|behind|off|to the right)",
        ),
        (
            r"look-?ahead|causal",
            r"positional encoding",
            r"(drops?|cuts?|slices?) the last (position|logit)s?",
            r"(source|target) embedding",
            r"log[-_ ]?softmax|probabilit",
        ),
        edits=(
            (
                "        return self.decode(tgt_ids, self.encode(src_ids), src_ids)",
                "        # shift right, T5-style: the decoder predicts tgt_ids from the tokens before\n"
                "        decoder_input = torch.cat([tgt_ids[:, :1], tgt_ids[:, :-1]], dim=1)\n"
                "        return self.decode(decoder_input, self.encode(src_ids), src_ids)",
            ),
        ),
        source=T5_SHIFT_RIGHT,
    ),
    _c(
        "cp-embedding-tables-inside-stacks",
        L09,
        "count_parameters",
        "counts each embedding table inside the stack that uses it, as modules whose "
        "encoder and decoder own their embed_tokens are counted: the source table goes "
        "under 'encoder', the target table (none when tied) under 'decoder', and "
        "'embeddings' is 0.",
        (
            r"embedding\w*.{0,80}(under|in|into|inside|with|to) (the )?['\"]?(encoder|decoder)",
            r"(encoder|decoder)['\"]?.{0,80}(includ\w*|contain\w*|holds?|counts?).{0,40}"
            r"(embedding|table)",
            r"['\"]embeddings['\"].{0,30}\b0\b|embeddings? (count|entry) (is )?(0|zero)",
            r"no embedding (parameters|count)",
        ),
        (
            r"positional (table|embedding)",
            r"tied.{0,60}(twice|two tables)|two (embedding )?tables .{0,30}tied",
            r"final (layer ?)?norm",
            r"output (layer'?s? )?bias",
            r"(w_o|output projection)",
        ),
        code="""
def count_parameters(vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings,
                     final_norm=False):
    d_head = d_model // num_heads
    attention = 4 * (d_model * num_heads * d_head + d_model)
    feed_forward = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)
    layer_norm = 2 * d_model
    final = layer_norm if final_norm else 0
    table = vocab_size * d_model
    # each stack owns its token embedding (encoder.embed_tokens, decoder.embed_tokens)
    encoder = table + num_layers * (attention + feed_forward + 2 * layer_norm) + final
    decoder_table = 0 if tie_embeddings else table
    decoder = decoder_table + num_layers * (2 * attention + feed_forward + 3 * layer_norm) + final
    output = vocab_size if tie_embeddings else table + vocab_size
    return {"embeddings": 0, "encoder": encoder, "decoder": decoder, "output": output}
""",
        source=EMBEDDING_IN_STACKS,
    ),
    _c(
        "gd-rows-sorted-by-source-length",
        L09,
        "greedy_decode",
        "sorts the batch by source length, longest first (to decode with less padding, as "
        "fairseq-generate does), and returns the rows in that sorted order without putting "
        "them back: row i of the result is the translation of another sentence whenever the "
        "sources are not already longest-first.",
        (
            r"(sort\w*|reorder\w*|permut\w*).{0,80}(order|rows?|sentences?|restor\w*|back)",
            r"(rows?|sentences?|translations?).{0,60}(sort\w*|reorder\w*|permut\w*|out of order)",
            r"(wrong|different|another|original) (row |sentence )?order",
            r"(belongs?|corresponds?) to (another|a different) (sentence|row|source)",
            r"restor\w* the (original )?order",
        ),
        (
            r"(first|row 0)'?s? token (for|to) every row|batch[- ]of[- ]one",
            r"(stops?|break\w*) (as soon as|when) (any|one|the first)",
            r"pad\w* (after|once).{0,20}eos|keeps? generating after",
            r"<bos>|start token",
            r"(first|last) position'?s? logits",
        ),
        code="""
def greedy_decode(model, src_ids, max_len, bos_id, eos_id):
    with torch.no_grad():
        lengths = (src_ids != model.pad_id).sum(dim=1)
        order = lengths.argsort(descending=True, stable=True)  # longest first: less padding
        src_ids = src_ids[order]
        memory = model.encode(src_ids)
        batch = src_ids.shape[0]
        tokens = torch.full((batch, 1), bos_id, dtype=torch.long)
        finished = torch.zeros(batch, dtype=torch.bool)
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)
            next_token = logits[:, -1].argmax(dim=-1)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished = finished | (next_token == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]
""",
        source=SORTED_OUTPUT_ORDER,
    ),
    # ---- 10 training ----------------------------------------------------------------------
    _c(
        "mb-generator-seeded-once-per-session",
        L10,
        "make_batches",
        "keeps one torch.Generator at module level and seeds it only on the first call, so "
        "every later call continues that generator's stream: the first shuffle is right, but "
        "a second call with the same seed gives another order (and the seed argument of later "
        "calls is never used).",
        (
            r"(second|another|repeated|later|next|each) call.{0,100}"
            r"(order|shuffl\w*|permutation|different|seed)",
            r"same seed.{0,100}(different|another|not the same|chang\w*|differ\w*)",
            r"(generator|rng|random (state|stream)).{0,100}"
            r"(once|shared|module|kept|reused|between calls|across calls|re-?seed\w*|persist\w*)",
            r"(not|never) (re-?)?seeded|re-?seed\w*",
            r"(not|isn'?t|never) (deterministic|reproducible)",
        ),
        (
            r"(drops?|loses?) the last batch",
            r"(sources?|targets?) (and (the )?(targets?|sources?) )?(are )?"
            r"(shuffled|permuted) separately",
            r"pad\w* (on|to) the left",
            r"(in place|caller'?s list)",
        ),
        code="""
_GENERATOR = torch.Generator()
_SEEDED = []


def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                 shuffle=False, seed=0):
    order = list(range(len(pairs)))
    if shuffle:
        if not _SEEDED:  # seed the generator once
            _GENERATOR.manual_seed(seed)
            _SEEDED.append(seed)
        order = torch.randperm(len(pairs), generator=_GENERATOR).tolist()
    batches = []
    for start in range(0, len(order), batch_size):
        chunk = [pairs[i] for i in order[start : start + batch_size]]
        src = pad_batch([list(source) for source, _ in chunk], pad_id)
        decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)
        labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)
        batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, labels)))
    return batches
""",
        source=SHARED_GENERATOR,
    ),
    _c(
        "mb-range-stops-one-pair-early",
        L10,
        "make_batches",
        "walks the batch starts with range(0, len(pairs) - 1, batch_size), a reflex '- 1' "
        "that drops the last pair whenever it would start a batch of its own (len(pairs) % "
        "batch_size == 1, or a single pair): that pair is in no batch.",
        (
            r"(last|final) (pair|sentence|example|batch).{0,80}"
            r"(dropped|missing|lost|left out|never|not (used|included))",
            r"(drops?|loses?|misses|skips?|leaves? out) the (last|final) (pair|batch|sentence|example)",
            r"len\(pairs\) ?- ?1",
            r"off[- ]by[- ]one",
            r"(pair|sentence|example)s? (is |are )?(missing|not used|never used|in no batch)",
        ),
        (
            r"(ignores?|without) (the )?seed|global (random )?generator",
            r"pad\w* (on|to) the left",
            r"(labels?|decoder_input).{0,40}(shift\w*|<bos>|<eos>)",
        ),
        code="""
def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                 shuffle=False, seed=0):
    order = list(range(len(pairs)))
    if shuffle:
        generator = torch.Generator().manual_seed(seed)
        order = torch.randperm(len(pairs), generator=generator).tolist()
    batches = []
    for start in range(0, len(order) - 1, batch_size):
        chunk = [pairs[i] for i in order[start : start + batch_size]]
        src = pad_batch([list(source) for source, _ in chunk], pad_id)
        decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)
        labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)
        batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, labels)))
    return batches
""",
    ),
    _c(
        "noam-warmup-fraction-times-decay",
        L10,
        "noam_lr",
        "writes the schedule as the warm-up fraction times the decay term, d_model ** -0.5 * "
        "min(1, step / warmup) * step ** -0.5: after the warm-up it is right, but during it "
        "the rate grows like sqrt(step) / warmup instead of linearly (step * warmup ** -1.5), "
        "so every warm-up rate is too high by sqrt(warmup / step).",
        (
            r"warm-?up.{0,100}(sqrt|square root|√|not linear|isn'?t linear|too (high|large|big))",
            r"(grows?|rises?|increas\w*) (like|as|with) (the )?(sqrt|square root|√)",
            r"(not|isn'?t|never) linear",
            r"step ?\* ?warmup ?\*\* ?-1\.5|step ?/ ?warmup ?\*\* ?1\.5",
            r"(too (high|large|big)|overshoot\w*).{0,60}(warm-?up|before (the )?peak|early steps)",
        ),
        (
            r"peak (is |comes )?(too early|one step|shifted)|off[- ]by[- ]one",
            r"(d_model|warmup) (and|&) (warmup|d_model) (are )?swapped",
            r"\bmax\b.{0,20}instead of min|min.{0,20}instead of max",
            r"d_model ?\*\* ?-?0\.5 (is )?(missing|left out)",
            r"returns? a (0-d )?tensor|not a (python )?float",
        ),
        code="""
def noam_lr(step, d_model, warmup):
    step = max(step, 1)
    # linear warm-up factor times the inverse-square-root decay
    return d_model ** -0.5 * min(1.0, step / warmup) * step ** -0.5
""",
    ),
    _c(
        "ls-smoothed-target-smoothed-again",
        L10,
        "label_smoothed_loss",
        "builds the smoothed target distribution q itself and hands it to F.cross_entropy "
        "together with label_smoothing=smoothing: with probability targets PyTorch smooths "
        "them once more, (1 - s) * q + s / V, so the smoothing is applied twice (the right "
        "token gets (1 - s)^2 + ... instead of 1 - s + s / V).",
        (
            r"smooth\w* (is |are )?(applied )?twice|twice.{0,40}smooth",
            r"double[- ]smooth\w*|smooth\w* (again|a second time|on top)",
            r"(already[- ]smoothed|smoothed (target|distribution)|soft target|probabilit\w* "
            r"targets?).{0,100}label_smoothing",
            r"label_smoothing.{0,100}(already|again|smoothed|soft|probabilit)",
        ),
        (
            r"\bV ?- ?1\b|other tokens",
            r"\bkl\b|kullback",
            r"pad\w* (positions? )?(included|counted|not (excluded|ignored))",
            r"(returns?|gives?) the sum|summed over|instead of the mean",
            r"log\(softmax|log of (the )?softmax",
        ),
        code="""
def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    vocab = logits.shape[-1]
    keep = labels != pad_id
    rows = logits[keep]  # (n, V): the positions that count
    target = torch.full_like(rows, smoothing / vocab)  # q = smoothing / V everywhere ...
    target.scatter_add_(1, labels[keep][:, None], torch.full_like(rows[:, :1], 1 - smoothing))
    return torch.nn.functional.cross_entropy(rows, target, label_smoothing=smoothing)
""",
        source=SMOOTHING_SOFT_TARGETS,
    ),
    _c(
        "ts-returns-loss-times-token-count",
        L10,
        "train_step",
        "returns the loss multiplied by the number of non-pad tokens of the batch (the "
        "annotated Transformer's SimpleLossCompute returns loss * norm for the epoch's "
        "running total) instead of the mean loss the step computed: the step itself is "
        "right, the returned float is the summed loss.",
        (
            r"(multipl\w*|times|scaled?) (by )?(the )?(number of )?(tokens|ntokens|non-?pad|real)",
            r"(total|summed|sum of the) loss|loss (summed|total)",
            r"(not|isn'?t|instead of) the (mean|average)( loss)?",
            r"per[- ]token (mean|average)",
            r"(tokens|non-?pad).{0,40}(count|number).{0,40}(returned|return|loss)",
        ),
        (
            r"(computed|recomputed) after (the )?(optimizer )?step",
            r"(returns?|is) a (0-d )?tensor",
            r"grad(ient)?s?'? (total )?norm",
            r"eval(uation)? mode|model\.train",
            r"(never|not) clear\w* (the )?grad",
        ),
        code="""
def train_step(model, batch, optimizer, loss_fn, clip_norm=1.0):
    model.train()
    src, decoder_input, labels = batch
    logits = model(src, decoder_input)
    loss = loss_fn(logits, labels)
    loss.backward()
    if clip_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    optimizer.step()
    optimizer.zero_grad()
    ntokens = int((labels != PAD_ID).sum())
    return loss.item() * ntokens  # the batch's total, as SimpleLossCompute reports it
""",
        source=LOSS_TIMES_NTOKENS,
    ),
    _c(
        "ts-skips-step-above-clip-norm",
        L10,
        "train_step",
        "treats clip_norm as a threshold for skipping: it measures the gradients' total 2-norm "
        "and takes no optimizer step at all when it exceeds clip_norm (Megatron's "
        "grad_norm_skip_threshold) instead of rescaling the gradients to clip_norm and "
        "stepping, so a batch with large gradients leaves the model unchanged.",
        (
            r"(skip\w*|no|never takes?|without|misses) (the |an |any )?(optimizer )?(step|update)",
            r"(parameters?|weights?|model) (are |is |were |was )?(left )?"
            r"(unchanged|not (updated|changed)|never (updated|changed))",
            r"(rescal\w*|scal\w*|clip\w*) (the )?grad\w*.{0,60}(instead|rather|and (then )?step)",
            r"(above|exceed\w*|larger than|over|greater than) (the )?clip_norm.{0,100}"
            r"(unchanged|no step|skip\w*|not updat\w*|no update)",
        ),
        (
            r"clip\w* after (the )?(optimizer )?step",
            r"clip\w* (each|every) (parameter|entry|value)|clip_grad_value",
            r"(never|not) clear\w* (the )?grad",
            r"eval(uation)? mode",
            r"(returns?|is) a tensor",
        ),
        code="""
def train_step(model, batch, optimizer, loss_fn, clip_norm=1.0):
    model.train()
    src, decoder_input, labels = batch
    logits = model(src, decoder_input)
    loss = loss_fn(logits, labels)
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total_norm = torch.norm(torch.stack([g.norm() for g in grads]))
    if clip_norm is None or total_norm <= clip_norm:  # skip the update on a gradient spike
        optimizer.step()
    optimizer.zero_grad()
    return loss.item()
""",
        source=SKIP_ON_LARGE_NORM,
    ),
    _c(
        "tsc-exact-match-all-references",
        L10,
        "translation_scores",
        "counts a hypothesis as an exact match only when it equals every one of its "
        "references (all(...) where any(...) belongs), so a sentence with two different "
        "correct translations can never match.",
        (
            r"\ball\b.{0,40}\bany\b|\bany\b.{0,40}\ball\b",
            r"(every|all) (of )?(its |the )?references",
            r"(at least one|one of|any of) (its |the )?references",
            r"(several|more than one|two|multiple) (different )?(correct )?"
            r"(references|translations).{0,80}(never|cannot|can'?t|no) match",
        ),
        (
            r"first reference (only)?",
            r"(divid\w*|fraction).{0,40}(references|total number of references)",
            r"exact_match (is |as )?(a )?percent\w*|(multipl\w*|times) (by )?100",
            r"lower-?case|case-insensitive",
            r"pooled|every sentence'?s references",
        ),
        code="""
def translation_scores(hypotheses, references):
    exact = sum(all(h == r for r in refs) for h, refs in zip(hypotheses, references))
    exact /= len(hypotheses)
    width = max(len(refs) for refs in references)
    streams = [[refs[j] if j < len(refs) else None for refs in references] for j in range(width)]
    bleu = sacrebleu.corpus_bleu(hypotheses, streams).score
    return {"exact_match": exact, "bleu": bleu}
""",
    ),
    _c(
        "bs-bos-fed-twice",
        L10,
        "beam_search",
        "starts every hypothesis from [bos_id] and still puts bos_id in front when it builds "
        "the decoder's input, so the decoder always reads <bos> twice "
        "([<bos>, <bos>, tokens...]); the length penalty and the returned rows leave that "
        "first <bos> out, so only the scores differ.",
        (
            r"(<bos>|\bbos\b|start token).{0,60}(twice|two times|double\w*|repeat\w*|again)",
            r"(two|double|duplicate\w*|extra|second) (<bos>|bos\b|start)",
            r"\[<?bos>?, <?bos>?",
        ),
        (
            r"without <bos>|no <bos>|<bos>.{0,20}(missing|left out)",
            r"length penalty'?s? (L|length)|counts? <bos> in the length",
            r"(returns?|result|rows?) (starts?|begin\w*) with <bos>|keeps? <bos>",
            r"log[-_ ]?softmax (over|along) the (beam|first)",
            r"(not|never) accumulat\w*|last token'?s? log",
        ),
        code="""
def beam_search(model, src_ids, beam_size, max_len, bos_id, eos_id, length_penalty=0.0):
    def normalised(hypothesis):
        tokens, score = hypothesis
        return score / ((5 + len(tokens) - 1) / 6) ** length_penalty  # <bos> not counted

    results = []
    with torch.no_grad():
        for row in range(src_ids.shape[0]):
            src = src_ids[row : row + 1]
            memory = model.encode(src)
            beam, finished = [([bos_id], 0.0)], []  # every hypothesis starts with <bos>
            for _ in range(max_len):
                tokens = torch.tensor([[bos_id, *t] for t, _ in beam])
                k = tokens.shape[0]
                logits = model.decode(tokens, memory.expand(k, -1, -1), src.expand(k, -1))
                log_probs = torch.log_softmax(logits[:, -1], dim=-1)
                scores = torch.tensor([s for _, s in beam])[:, None] + log_probs
                order = scores.flatten().argsort(descending=True, stable=True)
                new_beam = []
                for index in order.tolist():
                    parent, token = divmod(index, scores.shape[1])
                    candidate = (beam[parent][0] + [token], scores[parent, token].item())
                    if token == eos_id:
                        finished.append(candidate)
                    else:
                        new_beam.append(candidate)
                        if len(new_beam) == beam_size:
                            break
                beam = new_beam
                if finished and max(map(normalised, finished)) >= beam[0][1]:
                    break
            results.append(max(finished or beam, key=normalised)[0][1:])  # drop <bos>
    width = max(len(tokens) for tokens in results)
    out = torch.full((len(results), width), model.pad_id, dtype=torch.long)
    for row, tokens in enumerate(results):
        out[row, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
    return out
""",
        source=DOUBLE_BOS,
    ),
]
