"""Held-out wrong answers, blind round 22 (helper b22b, 2026-11-28, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 24 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind22b")

# Where these mistakes are reported (each page was read for this batch).
SHARED_NORM = "https://github.com/allenai/OLMo/issues/222"
WRONG_NORM = "https://github.com/ml-explore/mlx/issues/1636"
LABELS_EQUAL_INPUT = "https://github.com/huggingface/transformers/issues/11977"
LEFT_PAD_SOURCE = "https://github.com/facebookresearch/fairseq/issues/141"
CLIP_EACH = "https://github.com/carpedm20/MemN2N-tensorflow/issues/19"
LOSS_PER_SENTENCE = "https://github.com/awni/speech/issues/18"
NORM_COUNT = "https://github.com/NVIDIA/Megatron-LM/pull/2434"
BLEU_REFERENCES = "https://github.com/mjpost/sacrebleu/issues/28"
START_TOKEN = "https://github.com/OpenNMT/CTranslate2/pull/791"
NO_ACTIVATION = "https://github.com/d2l-ai/d2l-en/issues/1564"
ZERO_GAIN = "https://github.com/ecmwf/anemoi-core/issues/633"
NORMALISED_RUNNING_SCORE = "https://github.com/nlpyang/PreSumm/issues/58"
LEFT_PAD_TARGET = "https://github.com/huggingface/transformers/issues/19581"
STOP_RULE_SCORE = "https://github.com/huggingface/transformers/pull/20901"
TIED_LM_HEAD = "https://github.com/karpathy/nanoGPT/pull/21"

BLIND22B: list[Case] = [
    # ---- 07 encoder -----------------------------------------------------------------------
    _c(
        "ln-gain-initialised-to-zeros",
        L07,
        "LayerNorm",
        "initialises the gain `weight` with zeros instead of ones, so a new LayerNorm "
        "outputs its bias (all zeros) for every input instead of the normalised features.",
        (
            r"weight.{0,60}(zeros|ones)",
            r"gain.{0,60}(zeros|ones|initiali[sz])",
            r"(initiali[sz]\w*).{0,60}(ones|zeros)",
            r"(always|every input).{0,40}(zero|the bias)",
        ),
        (
            r"(weight|gain) and bias (are )?swapped",
            r"bias.{0,30}(ones|never added)",
            r"unbiased|bessel",
            r"eps.{0,40}(outside|inside|ignored)",
        ),
        edits=(
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.weight = nn.Parameter(torch.zeros(d_model))",
            ),
        ),
        source=ZERO_GAIN,
    ),
    _c(
        "ffn-no-activation",
        L07,
        "PositionwiseFeedForward",
        "applies w_2 straight to the dropout of w_1(x), with no ReLU between the two "
        "linear layers, so the network is one affine map.",
        (
            r"relu",
            r"(activation|non-?linearit)",
            r"(one|single) (affine|linear) (map|layer|transformation)",
        ),
        (
            r"dropout.{0,40}(after|before|missing|twice)",
            r"w_1.{0,40}w_2.{0,40}swapped|in_features.{0,30}out_features",
            r"bias",
            r"residual",
        ),
        edits=(
            (
                "hidden = torch.relu(self.w_1(x))",
                "hidden = self.w_1(x)",
            ),
        ),
        source=NO_ACTIVATION,
    ),
    _c(
        "enc-mask-inverted-for-layers",
        L07,
        "Encoder",
        "inverts the mask (~mask, PyTorch's True = blocked convention) before passing it to "
        "the layers, though EncoderLayer takes True = may attend, so every layer attends "
        "only to the pads and never to the real tokens.",
        (
            r"invert\w*|~ ?mask|logical_not",
            r"True (=|means) (blocked|may attend)",
            r"(pytorch|torch)'?s? (mask )?convention",
            r"(only|just) (to )?the pads",
        ),
        (
            r"final[_ ]norm",
            r"(one|same|single) layer",
            r"mask.{0,40}(first|only one) layer",
            r"mask (is )?(dropped|not passed|ignored)",
        ),
        edits=(
            (
                "x = layer(x, mask)  # (batch, len, d_model)",
                "x = layer(x, None if mask is None else ~mask)  # (batch, len, d_model)",
            ),
        ),
    ),
    _c(
        "el-pre-ln-ffn-normalised-with-norm1",
        L07,
        "EncoderLayer",
        "in the pre-LN branch the feed-forward sub-layer's input is normalised with norm1 "
        "(the attention's LayerNorm) instead of norm2, so norm2's gain and bias are never "
        "used and norm1's are shared by both sub-layers.",
        (
            r"norm2.{0,80}(never|not|unused|ignored)",
            r"norm1.{0,80}(feed[- ]forward|ffn|second sub-?layer|both)",
            r"(same|one|shared|single) (layer ?norm|norm).{0,40}(both|twice|two)",
            r"(feed[- ]forward|ffn).{0,60}norm1",
        ),
        (
            r"residual.{0,40}(normali[sz]ed|from the normali[sz]ed)",
            r"(post-ln|post-norm) (order|branch).{0,40}(pre-ln|instead)",
            r"mask (is )?(dropped|ignored|not passed)",
            r"dropout.{0,40}(missing|never applied)",
        ),
        edits=(
            (
                "return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "return x + self.dropout(self.feed_forward(self.norm1(x)))",
            ),
        ),
        source=SHARED_NORM,
    ),
    # ---- 08 decoder -----------------------------------------------------------------------
    _c(
        "dl-pre-ln-ffn-normalised-with-norm2",
        L08,
        "DecoderLayer",
        "in the pre-LN branch the feed-forward sub-layer's input is normalised with norm2 "
        "(the cross-attention's LayerNorm) instead of norm3, so norm3 is never used.",
        (
            r"norm3.{0,80}(never|not|unused|ignored)",
            r"norm2.{0,80}(feed[- ]forward|ffn|third sub-?layer|twice)",
            r"(feed[- ]forward|ffn).{0,60}norm2",
            r"(wrong|another) (layer ?norm|norm).{0,60}(feed[- ]forward|ffn)",
        ),
        (
            r"memory.{0,40}normali[sz]ed",
            r"cross[- ]attention.{0,60}(keys?|values?).{0,40}(decoder|x)\b",
            r"(src|source)[_ ]mask.{0,40}(tgt|target)[_ ]mask|masks? (are )?swapped",
            r"residual.{0,40}normali[sz]ed",
        ),
        edits=(
            (
                "return x + self.dropout(self.feed_forward(self.norm3(x)))",
                "return x + self.dropout(self.feed_forward(self.norm2(x)))",
            ),
        ),
        source=WRONG_NORM,
    ),
    _c(
        "dec-residual-around-each-layer",
        L08,
        "Decoder",
        "adds each decoder layer's input back to its output (x = x + layer(x, memory, ...)), "
        "a second residual around every whole layer on top of the residuals inside it.",
        (
            r"x \+ layer|x = x \+",
            r"(extra|additional|second|another) (residual|skip)",
            r"residual.{0,60}(around|over) (each|every|the) (whole )?layer",
            r"(adds?|added) (the|each) layer'?s? input",
        ),
        (
            r"(one|same|single) layer (reused|applied|object)",
            r"final norm",
            r"masks? (are )?swapped|(src|source)[_ ]mask.{0,30}(tgt|target)",
            r"memory.{0,40}(normali[sz]ed|replaced|updated)",
        ),
        edits=(
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = x + layer(x, memory, src_mask, tgt_mask)",
            ),
        ),
    ),
    # ---- 09 transformer -------------------------------------------------------------------
    _c(
        "tr-ties-output-to-source-only",
        L09,
        "Transformer",
        "with tie_embeddings=True it ties the output layer's weight to the source embedding "
        "but leaves the target embedding its own matrix, so two matrices remain instead of "
        "one shared by src_embedding, tgt_embedding and output.",
        (
            r"tgt_embedding.{0,80}(not|never|own|separate|untied|independent)",
            r"target embedding.{0,80}(not|never|own|separate|untied|independent)",
            r"(two|2) (separate )?(matrices|tables|weights?)",
            r"(three|all) .{0,40}(share|same|one) (matrix|weight)",
        ),
        (
            r"(copied|copy|clone)",
            r"transpos",
            r"(vocab|vocabulary) (size )?check|ValueError",
            r"output.{0,30}bias",
        ),
        edits=(
            (
                "self.tgt_embedding.embedding.weight = self.src_embedding.embedding.weight\n",
                "",
            ),
        ),
        source=TIED_LM_HEAD,
    ),
    _c(
        "tr-source-mask-on-query-axis",
        L09,
        "Transformer",
        "in encode, builds the encoder's source padding mask with the pads on the query "
        "axis, (batch, 1, len_src, 1), instead of the key axis (batch, 1, 1, len_src): in the "
        "encoder's self-attention real tokens still attend to the source pads, and the pad "
        "positions' own rows are blocked (decode's masks are right).",
        (
            r"query (axis|rows?|positions?)",
            r"key (axis|columns?|positions?)",
            r"\(batch, 1, len_src, 1\)|len_src, 1\)",
            r"(transposed|wrong axis).{0,60}(source|src|padding) mask",
            r"(source|src|padding) mask.{0,60}(transposed|wrong axis)",
        ),
        (
            r"look[- ]ahead",
            r"pad_id.{0,30}(hard-?coded|0 instead)",
            r"(tgt|target) (padding )?mask.{0,40}(source|src)",
            r"(inverted|True (means|=) blocked)",
        ),
        edits=(
            (
                "src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)\n"
                "        x = ",
                "src_mask = padding_mask(src_ids, self.pad_id).transpose(-1, -2)\n        x = ",
            ),
        ),
    ),
    _c(
        "cp-layer-norm-gain-only",
        L09,
        "count_parameters",
        "counts each LayerNorm as d_model parameters (the gain only, as for an RMSNorm) "
        "instead of 2 * d_model (gain and bias).",
        (
            r"bias.{0,60}(layer ?norm|norm)",
            r"(layer ?norm|norm).{0,80}(bias|2 ?\* ?d_model|two vectors|gain and bias)",
            r"2 ?\* ?d_model",
            r"rms ?norm",
        ),
        (
            r"tied|tie_embeddings",
            r"final[_ ]norm.{0,40}(ignored|missing|counted)",
            r"(w_o|output projection).{0,40}(missing|not counted)",
            r"feed[- ]forward.{0,40}bias",
        ),
        edits=(("layer_norm = 2 * d_model", "layer_norm = d_model"),),
        source=NORM_COUNT,
    ),
    _c(
        "cp-encoder-layer-three-norms",
        L09,
        "count_parameters",
        "counts three LayerNorms in every encoder layer, as in a decoder layer, though an "
        "encoder layer has two sub-layers and so two LayerNorms.",
        (
            r"encoder.{0,80}(three|3) (layer ?norms?|norms?)",
            r"encoder.{0,80}(two|2) (layer ?norms?|norms?)",
            r"(extra|one too many|third) (layer ?norm|norm).{0,40}encoder",
            r"encoder layer.{0,60}(norm)",
        ),
        (
            r"cross[- ]attention",
            r"tied|tie_embeddings",
            r"final[_ ]norm",
            r"decoder.{0,40}(two|2) (layer ?norms?|norms?)",
        ),
        edits=(
            (
                "encoder_layer = attention + feed_forward + 2 * layer_norm",
                "encoder_layer = attention + feed_forward + 3 * layer_norm",
            ),
        ),
    ),
    _c(
        "gd-returns-bos-column",
        L09,
        "greedy_decode",
        "returns the whole token buffer, <bos> column included, instead of dropping it "
        "(tokens[:, 1:]): every row starts with bos_id and is one token longer.",
        (
            r"<bos>|bos_id|start (token|symbol)",
            r"(first|leading) (column|token).{0,60}(drop|remove|strip|cut)",
            r"tokens\[:, ?1:\]",
            r"one (token|column) (too )?long",
        ),
        (
            r"one step (too many|short)|max_len ?- ?1",
            r"finished.{0,40}(pad|eos)",
            r"argmax.{0,40}(axis|dim|position)",
            r"(stops?|break).{0,40}(any|first) row",
        ),
        edits=(("return tokens[:, 1:]  # drop <bos>", "return tokens"),),
        source=START_TOKEN,
    ),
    _c(
        "quiz-autoregression-mask-off-at-inference",
        L09,
        "quiz_autoregression",
        "answers a): believes the look-ahead mask is switched off at inference, when the "
        "real reason is that no reference translation exists then, so the input of step "
        "t + 1 is only known once step t has produced its token.",
        (
            r"look-?ahead mask.{0,80}(still|also|stays|kept|same|on|applies|used)",
            r"(mask|masking).{0,60}(not|never|isn'?t) (switched|turned) off",
            r"no reference (translation)?|there is no (reference|target)",
            r"(only known|not known|depends on).{0,60}(produced|output|previous step)",
        ),
        (
            r"encoder.{0,60}(again|re-?run|every (new )?token|once per)",
            r"slower|faster|speed",
        ),
        code='def quiz_autoregression() -> str:\n    return "a"\n',
    ),
    # ---- 10 training ----------------------------------------------------------------------
    _c(
        "mb-labels-equal-decoder-input",
        L10,
        "make_batches",
        "builds labels exactly like decoder_input ([bos_id] + target), not shifted one "
        "position left (target + [eos_id]), so each position is trained to predict the "
        "token it already sees and <eos> is never a label.",
        (
            r"labels?.{0,60}(same|equal|identical|copy).{0,40}decoder[_ ]input",
            r"decoder[_ ]input.{0,60}(same|equal|identical).{0,40}labels?",
            r"(not |un)shifted|shift",
            r"target \+ \[eos|\[\*target, eos",
        ),
        (
            r"input (and|&) labels (are )?swapped",
            r"pad\w* (on )?the left",
            r"(shuffl|seed)",
            r"float|int32",
        ),
        edits=(
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)",
            ),
        ),
        source=LABELS_EQUAL_INPUT,
    ),
    _c(
        "mb-source-padded-on-the-left",
        L10,
        "make_batches",
        "pads the source rows on the left ([pad_id] * (width - len) + source) instead of "
        "on the right, so shorter sentences start with pads.",
        (
            r"(pad\w*|pads?) (on|at) the (left|start|front|beginning)",
            r"left[- ]pad",
            r"(on|at) the right",
            r"(before|ahead of) the (source )?tokens",
        ),
        (
            r"labels?.{0,40}(shift|decoder[_ ]input)",
            r"(shuffl|seed)",
            r"pad_id.{0,40}(0|zero) instead",
            r"sequence[- ]first|transposed",
        ),
        edits=(
            (
                "src = pad_batch([list(source) for source, _ in chunk], pad_id)",
                "width = max(len(source) for source, _ in chunk)\n"
                "        src = pad_batch(\n"
                "            [[pad_id] * (width - len(source)) + list(source) for source, _ in chunk],\n"
                "            pad_id,\n"
                "        )",
            ),
        ),
        source=LEFT_PAD_SOURCE,
    ),
    _c(
        "mb-target-rows-padded-on-the-left",
        L10,
        "make_batches",
        "pads decoder_input and labels on the left, so a shorter target's <bos> and "
        "tokens are pushed right behind leading pads instead of starting at position 0, "
        "and the pads come before the sentence in both fields.",
        (
            r"(pad\w*|pads?) (on|at) the (left|start|front|beginning)",
            r"left[- ]pad",
            r"(on|at) the right",
            r"<bos>.{0,60}(first|position 0|start)",
        ),
        (
            r"labels?.{0,40}(not |un)shifted|labels?.{0,40}(same|equal).{0,30}decoder[_ ]input",
            r"(shuffl|seed)",
            r"pad_id.{0,40}(0|zero) instead",
            r"<eos>.{0,40}(missing|after (the )?padding)",
        ),
        edits=(
            (
                "decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)\n"
                "        labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "width = max(len(target) for _, target in chunk)\n"
                "        lead = [[pad_id] * (width - len(target)) for _, target in chunk]\n"
                "        decoder_input = pad_batch(\n"
                "            [[*pads, bos_id, *t] for pads, (_, t) in zip(lead, chunk)], pad_id\n"
                "        )\n"
                "        labels = pad_batch([[*pads, *t, eos_id] for pads, (_, t) in zip(lead, chunk)], pad_id)",
            ),
        ),
        source=LEFT_PAD_TARGET,
    ),
    _c(
        "noam-warmup-term-read-as-ratio-power",
        L10,
        "noam_lr",
        "reads the warm-up term step * warmup ** -1.5 as (step / warmup) ** 1.5 * "
        "warmup ** -0.5, so during warm-up the rate grows like step ** 1.5 instead of "
        "linearly (it still meets the decay branch at step == warmup).",
        (
            r"linear\w*",
            r"step ?\* ?warmup ?\*\* ?\(?-1\.5",
            r"\(step ?/ ?warmup\) ?\*\* ?1\.5",
            r"step ?\*\* ?1\.5",
            r"warm-?up (term|branch|phase|part).{0,60}(wrong|grows|too (slow|small))",
        ),
        (
            r"decay (term|branch).{0,40}(wrong|missing)|no decay",
            r"d_model.{0,40}(exponent|power|\*\* ?0\.5)",
            r"step ?(=|==) ?0|step zero|ZeroDivisionError",
            r"shift\w* (by )?one|step \+ 1",
        ),
        edits=(
            (
                "min(step**-0.5, step * warmup**-1.5)",
                "min(step**-0.5, (step / warmup) ** 1.5 * warmup**-0.5)",
            ),
        ),
    ),
    _c(
        "ls-sum-divided-by-sentences",
        L10,
        "label_smoothed_loss",
        "sums the per-position losses of the non-pad positions and divides by the number "
        "of sentences (labels.shape[0]) instead of the number of non-pad positions, so "
        "the loss grows with the sentences' length.",
        (
            r"(number|count) of (sentences|rows|sequences)|batch size",
            r"(number|count) of (non-pad|real|kept|counted) (positions|tokens|labels)",
            r"shape\[0\]",
            r"(grows|scales) with.{0,30}length",
            r"divid\w* by.{0,40}(sentences|rows|batch)",
        ),
        (
            r"pad\w* (positions )?(are )?(not excluded|included|counted)",
            r"smoothing.{0,40}(v ?- ?1|other tokens)",
            r"log[_ ]softmax.{0,40}(axis|dim)",
            r"kl[- ]?div",
        ),
        edits=(("return loss[keep].mean()", "return loss[keep].sum() / labels.shape[0]"),),
        source=LOSS_PER_SENTENCE,
    ),
    _c(
        "ts-clips-each-parameter-separately",
        L10,
        "train_step",
        "calls clip_grad_norm_ once per parameter, so each parameter's gradient is clipped "
        "to clip_norm on its own, instead of once over all parameters together (the total "
        "2-norm).",
        (
            r"(each|every|per) parameter",
            r"(all|every) parameters? together|together|global|total (2-)?norm",
            r"(separately|individually|one at a time|on its own)",
        ),
        (
            r"clip\w*.{0,40}(after|before) (the )?(optimizer\.)?step",
            r"clip\w*.{0,30}by value|clip_grad_value",
            r"zero_grad",
            r"(l1|1-|inf\w*)[- ]norm",
        ),
        edits=(
            (
                "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
                "for parameter in model.parameters():\n"
                "            torch.nn.utils.clip_grad_norm_(parameter, clip_norm)",
            ),
        ),
        source=CLIP_EACH,
    ),
    _c(
        "tsc-bleu-averaged-over-reference-streams",
        L10,
        "translation_scores",
        "computes corpus BLEU once per reference stream (each against that single stream) "
        "and averages the scores, instead of one corpus_bleu call with every stream as a "
        "multi-reference set.",
        (
            r"(average|mean)\w*.{0,60}(stream|reference|bleu)",
            r"(one|single|once) (corpus_bleu )?call",
            r"(every|all) (the )?(reference )?streams.{0,40}(together|at once|one call)",
            r"multi-?reference",
        ),
        (
            r"exact[_ ]match",
            r"sentence_bleu|sentence[- ]level",
            r"(holes?|None).{0,40}(empty|dropped)",
            r"(transpos|streams? (not|never))",
        ),
        edits=(
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                "bleu = sum(\n"
                "        sacrebleu.corpus_bleu(\n"
                "            [h for h, r in zip(hypotheses, stream) if r is not None],\n"
                "            [[r for r in stream if r is not None]],\n"
                "        ).score\n"
                "        for stream in streams\n"
                "    ) / len(streams)",
            ),
        ),
        source=BLEU_REFERENCES,
    ),
    _c(
        "bs-probabilities-added",
        L10,
        "beam_search",
        "scores hypotheses by adding softmax probabilities (torch.softmax) step by step "
        "instead of adding log-probabilities (log_softmax).",
        (
            r"log[_ -]?(softmax|probabilit)",
            r"(adds?|sums?|summ\w*) (of )?(the )?probabilities",
            r"softmax.{0,40}instead of.{0,20}log",
        ),
        (
            r"length[_ ]penalty",
            r"(stop|break).{0,40}(rule|early|condition)",
            r"<eos>.{0,60}(beam|slot|place)",
            r"(per|each) hypothesis.{0,30}top",
        ),
        edits=(
            (
                "log_probs = torch.log_softmax(logits[:, -1], dim=-1)",
                "log_probs = torch.softmax(logits[:, -1], dim=-1)",
            ),
        ),
    ),
    _c(
        "bs-running-score-length-normalised",
        L10,
        "beam_search",
        "stores each live hypothesis's score already divided by lp(L) and adds the next "
        "log-probability to that normalised score, so with length_penalty > 0 the running "
        "scores are no longer sums of log-probabilities (the normalisation should only "
        "rank finished hypotheses).",
        (
            r"(normali[sz]ed|divided).{0,80}(running|accumulated|stored|live|cumulative) score",
            r"(running|accumulated|stored|live|cumulative) score.{0,80}(normali[sz]ed|divided|lp)",
            r"sum of (the )?log-?probabilit",
            r"(un-?normali[sz]|raw score)",
        ),
        (
            r"(stop|break).{0,40}(rule|early|condition)",
            r"<eos>.{0,60}(beam|slot|place)",
            r"(length|L) .{0,30}(count|includ).{0,30}(<eos>|<bos>)",
            r"\*\* ?length_penalty.{0,30}(times|multipl)",
        ),
        edits=(
            (
                "candidate = (beam[parent][0] + [token], scores[parent, token].item())",
                "candidate = beam[parent][0] + [token], scores[parent, token].item()\n"
                "                    if token != eos_id:\n"
                "                        candidate = (candidate[0], normalised(candidate))",
            ),
        ),
        source=NORMALISED_RUNNING_SCORE,
    ),
    _c(
        "bs-stop-rule-with-raw-finished-score",
        L10,
        "beam_search",
        "the stopping test compares the best finished hypothesis's raw sum of "
        "log-probabilities (not its length-normalised score) with the best live score, so "
        "with length_penalty > 0 the search runs on past the step where the reference "
        "stops and can end on another answer.",
        (
            r"(stop|break)\w*.{0,80}(normali[sz]ed|length[_ ]penalty|lp\()",
            r"(normali[sz]ed|length[- ]penali[sz]ed) score.{0,80}(finished|stop)",
            r"raw (score|sum).{0,60}finished",
        ),
        (
            r"<eos>.{0,60}(beam|slot|place)",
            r"(length|L) .{0,30}(count|includ).{0,30}(<eos>|<bos>)",
            r"(per|each) hypothesis.{0,30}top",
            r"log[_ ]softmax.{0,30}(missing|instead)",
        ),
        edits=(
            (
                "if finished and max(map(normalised, finished)) >= beam[0][1]:",
                "if finished and max(score for _, score in finished) >= beam[0][1]:",
            ),
        ),
        source=STOP_RULE_SCORE,
    ),
]
