"""Held-out wrong answers, blind round 24 (helper b24b, 2026-11-29, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 26 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind24b")

# Where these mistakes are reported (each page was read for this batch).
FFN_TANH = "https://github.com/OpenNMT/OpenNMT-py/issues/1578"
CLS_POOLING = (
    "https://theneuralbase.com/huggingface-transformers/learn/intermediate/cls-token-pooling/"
)
STALE_STREAM = "https://github.com/strutive07/transformer-tensorflow2.0/issues/14"
LAYERDROP = "https://huggingface.co/spaces/julse/maotao/blob/main/fairseq/modules/layer_drop.py"
SCALE_BEFORE_PE = "https://github.com/keras-team/keras-io/issues/655"
TWELVE_D_SQUARED = "https://learntinker.com/lessons/counting-the-cost"
MAX_LEN_FROM_SOURCE = (
    "https://huggingface.co/spaces/gradio/HuBERT/blob/main/fairseq/sequence_generator.py"
)
TIE_VOCAB = "https://github.com/joeynmt/joeynmt/issues/68"
AUTOREGRESSIVE = "https://ai.stackexchange.com/q/40119"
REVERSED_SOURCE = "https://akshit.org/2025/06/06/establishing-communication/"
PAD_IS_EOS = "https://github.com/mlabonne/llm-course/issues/33"
NOAM_BASE_LR = "https://github.com/espnet/espnet/pull/1519"
SMOOTHED_PREDICTIONS = "https://stevengong.co/notes/Label-Smoothing"
TEACHER_FORCING = (
    "https://mytecharm.com.co/post/understanding-teacher-forcing-in-seq2seq-models-s4r45f"
)
TOKEN_ACCURACY = "https://github.com/OpenNMT/OpenNMT-py/issues/2152"
BEAM_MIN_LENGTH = "https://github.com/facebookresearch/ParlAI/pull/1143"

BLIND24B: list[Case] = [
    # ---- 07 encoder -----------------------------------------------------------------------
    _c(
        "ln-bias-added-before-gain",
        L07,
        "LayerNorm",
        "applies the affine step in the wrong order, (normalised + bias) * weight, adding the "
        "bias before multiplying by the gain instead of weight * normalised + bias: a fresh "
        "layer (gain 1, bias 0) is right, a layer whose gain and bias were both trained or "
        "loaded is not (the bias comes out multiplied by the gain).",
        (
            r"bias (is )?(added|applied) before (the )?(gain|weight|scal\w*|multipl\w*)",
            r"(gain|weight) (also )?(multiplies|scales) the bias",
            r"bias (is |gets )?(multiplied|scaled) by the (gain|weight)",
            r"\(\s*\w*\s*\+\s*(self\.)?bias\s*\)\s*\*",
            r"order of the (gain|weight|scale) and (the )?(bias|shift)",
            r"(multiply|scale) (first|before adding)|(then|and then) add the bias",
        ),
        (
            r"(gain|weight) and (the )?bias (are )?swapped",
            r"unbiased|bessel",
            r"eps (is )?(outside|added to the (std|standard deviation))",
            r"over the (batch|positions)",
            r"(gain|bias) (is )?(never|not) (applied|added|multiplied|used)",
        ),
        edits=(
            (
                "return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
                "return ((x - mean) / torch.sqrt(variance + self.eps) + self.bias) * self.weight",
            ),
        ),
    ),
    _c(
        "quiz-ln-axis-option-number",
        L07,
        "quiz_layer_norm_axis",
        "returns the option's number counted from 1, the int 2, for the second option (b), "
        "instead of its letter, the string 'b'.",
        (
            r"letter",
            r"int(eger)?\b.{0,40}(instead of|not|rather than) (a |the )?(str(ing)?|letter)",
            r"(a |the )?str(ing)?\b.{0,30}(not|instead of) (an? )?(int|number)",
            r"(number|index|position) of the option",
        ),
        (
            r"over the batch|batch ?norm",
            r"over the positions",
            r"whole sentence",
        ),
        code="""
def quiz_layer_norm_axis():
    return 2
""",
    ),
    _c(
        "ffn-tanh-activation",
        L07,
        "PositionwiseFeedForward",
        "uses tanh as the hidden activation (torch.tanh(w_1(x))) instead of the paper's ReLU: "
        "negative pre-activations are squashed towards -1 instead of zeroed, and positive "
        "ones are capped below 1.",
        (
            r"tanh",
            r"(activation|non-?linearity) (is|should be) (not )?(a )?relu",
            r"instead of (the )?relu|relu (is )?(missing|replaced|expected)",
            r"max\(0,|clamp\(min=0\)",
        ),
        (
            r"dropout (is )?(after|on the output|applied to the output)",
            r"gelu",
            r"relu (after|on) (w_2|the output)",
            r"no (activation|non-?linearity)",
            r"residual",
        ),
        edits=(("hidden = torch.relu(self.w_1(x))", "hidden = torch.tanh(self.w_1(x))"),),
        source=FFN_TANH,
    ),
    _c(
        "enc-layer-post-ln-ffn-reads-raw-sum",
        L07,
        "EncoderLayer",
        "post-LN: keeps the attention sub-layer's residual sum in s, normalises it into x, but "
        "feeds the feed-forward block the un-normalised sum s (feed_forward(s)) while the "
        "second residual adds the normalised x: the feed-forward's input skips norm1.",
        (
            r"feed[- ]forward\w* (reads|gets|receives|is fed|takes|input is) .{0,50}"
            r"(un-?normali[sz]ed|before (norm1|the (first )?(layer ?norm|norm)))",
            r"(un-?normali[sz]ed|raw) (residual )?sum",
            r"(feed[- ]forward|second sub-?layer)('s)? input .{0,40}(norm1|normali[sz]ed)",
            r"norm1('s)? output .{0,40}feed[- ]forward",
        ),
        (
            r"no residual|residual (connection )?(is )?missing",
            r"pre-?ln|norm_first (is )?(ignored|inverted)",
            r"mask (is )?(not passed|missing|inverted|ignored)",
            r"dropout (on|after) the (residual|sum|norm)",
            r"norm1 (is )?(used|reused) (twice|again)|norm2 (is )?(never|not) used",
        ),
        edits=(
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))\n"
                "        return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "s = x + self.dropout(self.self_attn(x, x, x, mask)[0])\n"
                "        x = self.norm1(s)\n"
                "        return self.norm2(x + self.dropout(self.feed_forward(s)))",
            ),
        ),
    ),
    _c(
        "enc-returns-first-position-only",
        L07,
        "Encoder",
        "returns only the first position's vector, x[:, 0] (the [CLS]-token pooling of "
        "sentence encoders), shape (batch, d_model), instead of every position's vector "
        "(batch, len, d_model), which the decoder's cross-attention needs.",
        (
            r"first (position|token)",
            r"\[?cls\]?\b",
            r"x\[:, ?0\]",
            r"(every|all|each) position",
            r"\(batch, d_model\)",
        ),
        (
            r"mean[- ]pool|averag",
            r"final (layer ?)?norm",
            r"mask (is )?(not passed|missing|dropped)",
            r"not chained|same input",
        ),
        edits=(
            (
                "return x if self.norm is None else self.norm(x)",
                "x = x if self.norm is None else self.norm(x)\n        return x[:, 0]",
            ),
        ),
        source=CLS_POOLING,
    ),
    # ---- 08 decoder -----------------------------------------------------------------------
    _c(
        "dec-layer-pre-ln-cross-result-dropped",
        L08,
        "DecoderLayer",
        "pre-LN: writes the cross-attention sub-layer's result to a new name (y = x + "
        "dropout(cross_attn(...))) but the feed-forward line still reads and adds the stale x, "
        "so the cross-attention's output is discarded: a pre-LN layer never uses memory "
        "(post-LN is right).",
        (
            r"cross[- ]attention\w*('s)? (output|result|sub-?layer) (is )?(discarded|lost|thrown "
            r"away|never (used|added)|unused|ignored|dropped)",
            r"(stale|old|previous) (x|stream|value|variable)",
            r"feed[- ]forward .{0,50}(before|without) the cross[- ]attention",
            r"(output|result) (does not|doesn't|never) (depend|change) (on|with) (the )?memory",
            r"memory (is )?(never|not) (used|read)|ignores memory",
        ),
        (
            r"memory (is )?normali[sz]ed",
            r"(cross[- ]attention('s)?|the) queries .{0,30}un-?normali[sz]ed",
            r"src_mask (is )?(missing|not passed)|source (padding )?mask (is )?(missing|not "
            r"passed)",
            r"norm[123] (is )?(missing|swapped)",
            r"look-?ahead|tgt_mask",
        ),
        edits=(
            (
                "x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "y = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
            ),
        ),
        source=STALE_STREAM,
    ),
    _c(
        "dec-layer-src-mask-of-first-sentence",
        L08,
        "DecoderLayer",
        "starts forward with src_mask = src_mask[0] (to drop what it takes for a leading "
        "axis), which keeps the first sentence's source padding mask, (1, 1, len_src), and "
        "broadcasts it to every sentence: with a batch whose sentences have different "
        "padding, the cross-attention of the others attends to their pads or skips real "
        "tokens.",
        (
            r"first (sentence|example|row|sequence)('s)? (source )?(padding )?mask",
            r"src_mask\[0\]",
            r"(every|each|all|other) (sentence|example|row)s? .{0,50}(same|one|first) mask",
            r"batch (axis|dimension) .{0,40}(dropped|lost|indexed|removed)",
        ),
        (
            r"look-?ahead|tgt_mask (in|for|to) the cross",
            r"(mask|src_mask) (is )?(inverted|missing|not passed)",
            r"query axis",
            r"memory (is )?normali[sz]ed",
        ),
        edits=(
            (
                "        if self.norm_first:\n            h = self.norm1(x)",
                "        if src_mask is not None:\n"
                "            src_mask = src_mask[0]  # (1, 1, len_src)\n"
                "        if self.norm_first:\n            h = self.norm1(x)",
            ),
        ),
    ),
    _c(
        "dec-layerdrop-with-dropout-rate",
        L08,
        "Decoder",
        "adds fairseq's LayerDrop: in training mode each layer is skipped at random with "
        "probability dropout (a `continue` in the loop), so in training only some of the "
        "num_layers layers run; eval mode and dropout 0 hide it.",
        (
            r"layer ?drop",
            r"skip\w* (whole |entire |some |random )?layers?",
            r"layers? (are |is )?(randomly )?(skipped|dropped|left out|not run)",
            r"not (every|all) (the )?layers? (run|are applied|is applied)",
            r"random\w* .{0,30}layers?",
        ),
        (
            r"dropout (is )?(on|between|after) (each|every) layer('s)? output",
            r"final (layer ?)?norm",
            r"(src_|tgt_)?mask (is )?(not passed|missing|swapped)",
            r"not chained|same input",
        ),
        edits=(
            (
                "use_final_norm = norm_first if final_norm is None else final_norm",
                "self.layerdrop = dropout\n"
                "        use_final_norm = norm_first if final_norm is None else final_norm",
            ),
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "if self.training and torch.rand(()).item() < self.layerdrop:\n"
                "                continue\n"
                "            x = layer(x, memory, src_mask, tgt_mask)",
            ),
        ),
        source=LAYERDROP,
    ),
    # ---- 09 transformer -------------------------------------------------------------------
    _c(
        "tr-scaled-after-positions",
        L09,
        "Transformer",
        "looks the ids up in the inner tables (src_embedding.embedding, "
        "tgt_embedding.embedding), adds the positional encoding, and only then multiplies by "
        "sqrt(d_model), so the sinusoids are scaled by sqrt(d_model) as well as the "
        "embeddings, on both sides.",
        (
            r"(scal\w*|multipl\w*) .{0,40}after (adding )?(the )?(positional|positions|sinusoid)",
            r"(positional encoding|positions|sinusoids?) .{0,40}(are |is )?(also |too )?"
            r"(scaled|multiplied)",
            r"sqrt\(d_model\) .{0,60}(positional|positions|sinusoid)",
            r"scal\w* (the )?(embeddings? )?before adding",
        ),
        (
            r"scaled twice",
            r"(not|never|without) scal\w*|unscaled",
            r"no positional encoding|positions (are )?missing",
            r"(padding|look-?ahead) mask",
            r"tie|tied",
        ),
        edits=(
            (
                "x = self.positional_encoding(self.src_embedding(src_ids))",
                "d = self.src_embedding.d_model\n"
                "        x = self.positional_encoding(self.src_embedding.embedding(src_ids)) * d**0.5",
            ),
            (
                "y = self.positional_encoding(self.tgt_embedding(tgt_ids))",
                "d = self.tgt_embedding.d_model\n"
                "        y = self.positional_encoding(self.tgt_embedding.embedding(tgt_ids)) * d**0.5",
            ),
        ),
        source=SCALE_BEFORE_PE,
    ),
    _c(
        "cp-weight-matrices-only",
        L09,
        "count_parameters",
        "counts the weight matrices only, the 12·L·d² rule of thumb's convention: no bias of "
        "any linear layer (attention projections, feed-forward, output layer) and no "
        "LayerNorm gain or bias (neither the layers' nor the final norms), so every entry "
        "but the embeddings is too small.",
        (
            r"(no|without|forg[eo]t\w*|missing|leaves? out|ignor\w*|omit\w*) .{0,40}bias",
            r"bias(es)? .{0,40}(missing|not counted|left out|forgotten)",
            r"weights? (matrices )?only",
            r"bias(es)? and (the )?layer ?norm",
        ),
        (
            r"tied|tie_embeddings",
            r"cross[- ]attention",
            r"num_heads|per head",
            r"positional",
        ),
        code="""
def count_parameters(vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings,
                     final_norm=False):
    attention = 4 * d_model * d_model  # w_q, w_k, w_v, w_o
    feed_forward = 2 * d_model * d_ff  # w_1, w_2
    table = vocab_size * d_model
    return {
        "embeddings": table if tie_embeddings else 2 * table,
        "encoder": num_layers * (attention + feed_forward),
        "decoder": num_layers * (2 * attention + feed_forward),
        "output": 0 if tie_embeddings else table,
    }
""",
        source=TWELVE_D_SQUARED,
    ),
    _c(
        "cp-decoder-layer-without-feed-forward",
        L09,
        "count_parameters",
        "counts a decoder layer as its two attentions and three LayerNorms only, leaving out "
        "its feed-forward network (2 * d_model * d_ff + d_ff + d_model), so 'decoder' is "
        "num_layers feed-forward blocks short; the encoder is right.",
        (
            r"(decoder|each decoder layer).{0,60}feed[- ]forward",
            r"feed[- ]forward .{0,60}(decoder|missing|left out|forgot)",
            r"w_1|w_2|d_ff",
        ),
        (
            r"cross[- ]attention",
            r"(two|three) layer ?norms? (instead|rather|too many|too few)",
            r"bias",
            r"tied|tie_embeddings",
        ),
        edits=(
            (
                "decoder_layer = 2 * attention + feed_forward + 3 * layer_norm",
                "decoder_layer = 2 * attention + 3 * layer_norm",
            ),
        ),
    ),
    _c(
        "gd-length-limit-from-source",
        L09,
        "greedy_decode",
        "ignores max_len and bounds the output by the source length instead (fairseq's "
        "max_len_a * src_len + max_len_b with a = 1, b = 10: range(src_ids.shape[1] + 10)), so "
        "rows that do not finish get len_src + 10 tokens instead of at most max_len.",
        (
            r"max_len (is )?(ignored|never used|not used|not respected)",
            r"(ignores|without) (the )?max_len",
            r"(more|longer) than max_len|exceeds? max_len|at most max_len",
            r"(source|src)[- ]length|len_src|src_ids\.shape\[1\]",
        ),
        (
            r"one (step|token) (short|too many)",
            r"pad\w* after <eos>|keeps? generating after",
            r"first position",
            r"argmax over",
            r"<bos>",
        ),
        edits=(
            (
                "for _ in range(max_len):",
                "limit = src_ids.shape[1] + 10  # max_len_a * src_len + max_len_b\n"
                "        for _ in range(limit):",
            ),
        ),
        source=MAX_LEN_FROM_SOURCE,
    ),
    _c(
        "quiz-tie-same-d-model-enough",
        L09,
        "quiz_tie_embeddings",
        "answers (d), that tying only needs the same d_model on both sides, although the three "
        "modules share one (vocab_size, d_model) matrix row by row: id i must be the same "
        "token in the source, the target and the output, which needs one shared vocabulary "
        "(a).",
        (
            r"(shared|same|one|single|joint|common) vocabular",
            r"(row|id) i .{0,60}(same|one) token",
            r"d_model (alone )?(is )?not enough",
            r"\(vocab_size, d_model\)",
        ),
        (
            r"look-?ahead",
            r"autoregress",
            r"positional",
        ),
        code="""
def quiz_tie_embeddings():
    return "d"
""",
        source=TIE_VOCAB,
    ),
    _c(
        "quiz-autoregression-speed",
        L09,
        "quiz_autoregression",
        "answers (c), that one pass per token is chosen because a single pass over the whole "
        "target would be slower, reading autoregressive decoding as an efficiency choice: "
        "the reason is that no reference exists at inference, so step t + 1's input is only "
        "known once step t has produced its token.",
        (
            r"no reference",
            r"(only|not) known (until|before|once)",
            r"depends on (the )?(output|token|prediction)",
            r"(not|isn't|is not) (about |a matter of )?(speed|slower|faster|efficien\w*)",
        ),
        (
            r"look-?ahead mask (is )?(switched|turned) off",
            r"encoder .{0,30}(again|re-?run)",
        ),
        code="""
def quiz_autoregression():
    return "c"
""",
        source=AUTOREGRESSIVE,
    ),
    # ---- 10 training ----------------------------------------------------------------------
    _c(
        "mb-source-reversed",
        L10,
        "make_batches",
        "reverses each source sentence (source[::-1], the reversed-source trick of LSTM "
        "seq2seq) before padding it, so src holds the source ids in reverse order, which is "
        "none of the accepted forms.",
        (
            r"revers",
            r"backwards?|right[- ]to[- ]left|\[::-1\]",
            r"(source|src) .{0,40}(order|in reverse)",
        ),
        (
            r"left[- ]pad|pad\w* on the left",
            r"shuffl",
            r"<eos>|eos_id",
            r"int64|float",
        ),
        edits=(
            (
                "src = pad_batch([list(source) for source, _ in chunk], pad_id)",
                "src = pad_batch([list(source)[::-1] for source, _ in chunk], pad_id)",
            ),
        ),
        source=REVERSED_SOURCE,
    ),
    _c(
        "mb-labels-padded-with-eos",
        L10,
        "make_batches",
        "pads the labels with eos_id instead of pad_id (the pad = eos habit of "
        "tokenizer.pad_token = tokenizer.eos_token), so every padded position of a shorter "
        "row is labelled <eos> and the loss, which skips only pad_id, trains on it.",
        (
            r"pad\w* (the )?labels with (<eos>|eos(_id)?)",
            r"(<eos>|eos_id|eos) (as|for) (the )?(padding|pad)",
            r"labels.{0,60}(pad_id|<pad>) (expected|instead)",
            r"pad(ding)? (positions? )?of (the )?labels",
        ),
        (
            r"-100",
            r"left[- ]pad|pad\w* on the left",
            r"decoder_input .{0,30}pad",
            r"shift\w* (twice|again)",
        ),
        edits=(
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], eos_id)",
            ),
        ),
        source=PAD_IS_EOS,
    ),
    _c(
        "noam-times-base-lr",
        L10,
        "noam_lr",
        "multiplies the schedule by a base learning rate of 1e-3 (Adam's default lr, as a "
        "LambdaLR factor or ESPnet's optimizer.lr * ... would), so every rate is 1000 times "
        "smaller than the paper's.",
        (
            r"(extra|constant|spurious|additional) (factor|multiplier)",
            r"1e-?3|0\.001",
            r"base (learning )?rate|optimi[sz]er'?s? (default )?(lr|learning rate)",
            r"(1000|thousand) times (too )?(small|low)",
        ),
        (
            r"warmup \*\* ?-?0\.5",
            r"step \+ ?1|off by one|zero-indexed",
            r"max\b.{0,20}instead of min",
            r"d_model \*\* ?0\.5|sqrt\(d_model\) (instead|rather)",
        ),
        edits=(
            (
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "return 1e-3 * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
            ),
        ),
        source=NOAM_BASE_LR,
    ),
    _c(
        "noam-branches-swapped",
        L10,
        "noam_lr",
        "writes the min as an if/else on step < warmup with the two branches in each other's "
        "place: d_model ** -0.5 * step ** -0.5 during warm-up (decaying from the first step) "
        "and d_model ** -0.5 * step * warmup ** -1.5 after it (growing without end).",
        (
            r"branch\w* (are )?(swapped|exchanged|reversed|in each other)",
            r"(warm-?up|decay) (branch|term|phase|formula) .{0,50}(swapped|other|wrong|reversed)",
            r"(decreas|decay)\w* during (the )?warm-?up|(grow|increas)\w* after (the )?warm-?up",
            r"never decays|keeps? (growing|increasing)",
        ),
        (
            r"max\b.{0,20}instead of min",
            r"warmup \*\* ?-0\.5 instead",
            r"d_model \*\* ?0\.5|missing (the )?d_model",
            r"step \+ ?1|off by one|zero-indexed",
        ),
        edits=(
            (
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "if step < warmup:\n"
                "        return d_model**-0.5 * step**-0.5\n"
                "    return d_model**-0.5 * step * warmup**-1.5",
            ),
        ),
    ),
    _c(
        "ls-smooths-predictions",
        L10,
        "label_smoothed_loss",
        "smooths the model's probabilities instead of the target: p' = (1 - smoothing) * "
        "softmax(logits) + smoothing / V, and the loss is -log p'[y] against the one-hot "
        "label, rather than the cross-entropy of p with the smoothed target q.",
        (
            r"(smooth\w*|mix\w*) (the )?(model'?s? )?(predict\w*|probabilit\w*|output|softmax)",
            r"target (distribution )?(is )?(not|never) smoothed",
            r"smoothing (belongs|goes|applies|should apply) (to|on) the (target|labels?)",
            r"one-hot (target|label)",
        ),
        (
            r"pad\w* (positions? )?(are )?(included|counted)",
            r"V ?- ?1|other tokens",
            r"\bkl\b|kl[- ]?div",
            r"log\(softmax|log of (the )?softmax",
        ),
        code="""
def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    V = logits.shape[-1]
    probs = torch.softmax(logits, dim=-1)  # (..., V)
    smoothed = (1 - smoothing) * probs + smoothing / V  # never 0, so the log is safe
    keep = labels != pad_id
    safe_labels = labels.masked_fill(~keep, 0)
    nll = -torch.log(smoothed.gather(-1, safe_labels[..., None]).squeeze(-1))
    return nll[keep].mean()
""",
        source=SMOOTHED_PREDICTIONS,
    ),
    _c(
        "quiz-loss-floor-minus-log-point-nine",
        L10,
        "quiz_loss_floor",
        "answers 0.105, -log(0.9), the loss of a model that gives the right token probability "
        "1 - ε against a one-hot target, instead of the floor of the smoothed loss, the "
        "entropy of the smoothed target q (0.91 on the right token, 0.01 on each of the 9 "
        "others): 0.500.",
        (
            r"entropy",
            r"0\.91|0\.01 on (each|every)",
            r"smoothed target .{0,40}(not|isn't) one-hot",
            r"p ?= ?q|predicts? q|equals? (the )?(smoothed )?target",
        ),
        (
            r"bits|base[- ]?2",
            r"V ?- ?1|nine others",
            r"(can|could) reach (0|zero)",
        ),
        code="""
def quiz_loss_floor():
    return 0.105
""",
    ),
    _c(
        "quiz-teacher-forcing-own-prediction",
        L10,
        "quiz_teacher_forcing",
        "answers (b), that in a teacher-forced training step the decoder also reads its own "
        "mistaken prediction (<bos> el gato blanco), although teacher forcing feeds the "
        "reference prefix (<bos> el gato negro) in training; only greedy_decode reads its "
        "own output.",
        (
            r"teacher forcing .{0,80}(reference|gold|true|correct|ground)",
            r"(reads|feeds?|fed|gets) (the )?(reference|gold|correct|true)",
            r"negro",
            r"own (prediction|output)s? .{0,40}(only|at inference|when decoding|greedy)",
        ),
        (
            r"el gato negro bebe",
            r"shifted left|labels",
        ),
        code="""
def quiz_teacher_forcing():
    return "b"
""",
        source=TEACHER_FORCING,
    ),
    _c(
        "ts-loss-clamped-not-gradients",
        L10,
        "train_step",
        "clips the loss instead of the gradients: loss = loss.clamp(max=clip_norm) before "
        "backward, and no clip_grad_norm_, so a loss above clip_norm gives zero gradients "
        "(nothing is learnt) and is returned clamped, while large gradients are never "
        "rescaled.",
        (
            r"clamp\w* (the )?loss|loss (is |was )?(clamp|clipp)\w*|clips? the loss",
            r"(instead of|not) (the )?gradients?'? (total )?(2-)?norm",
            r"clip_grad_norm_? (is )?(never|not) (called|used)",
            r"gradients? (are |were )?(never|not) (clipped|rescaled)",
        ),
        (
            r"clip_grad_value",
            r"per[- ]parameter|each parameter",
            r"(after|before) (the )?optimi[sz]er\.?step",
            r"zero_grad",
            r"train\(\)|training mode",
        ),
        edits=(
            (
                "    loss.backward()\n"
                "    if clip_norm is not None:\n"
                "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n",
                "    if clip_norm is not None:\n"
                "        loss = loss.clamp(max=clip_norm)\n"
                "    loss.backward()\n",
            ),
        ),
    ),
    _c(
        "tsc-exact-match-as-word-accuracy",
        L10,
        "translation_scores",
        "computes 'exact_match' as a word-level accuracy: the words of each hypothesis that "
        "equal the word at the same position of its best-matching reference, pooled over "
        "the corpus and divided by those references' word counts, so a partly right "
        "translation earns partial credit instead of counting 0.",
        (
            r"\btokens?[- ]level|per[- ](token|word)|\bword[- ]level|word[- ]by[- ]word",
            r"partial (match|credit)|partly (right|correct)",
            r"(whole|entire|complete) (sentence|translation|string|hypothes)",
            r"position by position|matching words",
        ),
        (
            r"first reference",
            r"percent|0-100 scale|times 100",
            r"lower-?case",
            r"(reference )?streams?",
        ),
        code="""
def translation_scores(hypotheses, references):
    correct = total = 0
    for h, refs in zip(hypotheses, references):
        words = h.split()

        def matches(ref):
            return sum(a == b for a, b in zip(words, ref.split()))

        best = max(refs, key=matches)
        correct += matches(best)
        total += len(best.split())
    exact = correct / total
    width = max(len(refs) for refs in references)
    streams = [[refs[j] if j < len(refs) else None for refs in references] for j in range(width)]
    bleu = sacrebleu.corpus_bleu(hypotheses, streams).score
    return {"exact_match": exact, "bleu": bleu}
""",
        source=TOKEN_ACCURACY,
    ),
    _c(
        "bs-eos-blocked-at-first-step",
        L10,
        "beam_search",
        "forbids <eos> at the first step (log_probs[:, eos_id] = -inf while step == 0, a "
        "minimum length of one token so that no translation is empty), so the empty "
        "hypothesis can never finish or be chosen, and the stopping rule sees one "
        "finished hypothesis fewer.",
        (
            r"min(imum)?[- _]?(length|len|tokens)",
            r"(forbid|block|suppress|mask|disallow)\w* (the )?<?eos>?",
            r"empty (translation|hypothesis|answer|output)",
            r"<?eos>? .{0,40}(first step|step 0|at once|-inf)",
        ),
        (
            r"length penalty",
            r"probabilit\w* (added|summed)|not log",
            r"pad\w* with",
            r"sort\w* (in )?ascending",
        ),
        edits=(
            ("for _ in range(max_len):", "for step in range(max_len):"),
            (
                "log_probs = torch.log_softmax(logits[:, -1], dim=-1)",
                "log_probs = torch.log_softmax(logits[:, -1], dim=-1)\n"
                "                if step == 0:  # no empty translation\n"
                "                    log_probs[:, eos_id] = -float('inf')",
            ),
        ),
        source=BEAM_MIN_LENGTH,
    ),
]
