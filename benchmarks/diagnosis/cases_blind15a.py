"""Held-out wrong answers for lessons 09-10, blind round 15 (helper b15a, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 17's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 22 cases over the
nine coded exercises and one question; ten transpose a mistake reported in public (the URL
read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L09, L10 = "09_transformer", "10_training"

# The reports these cases transpose (each read with the search tool for this benchmark).
LINEAR_WEIGHT_SHAPE_FOR_TYING = (
    "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/195"
)
POSITIONAL_MAX_LEN = "https://github.com/SamLynnEvans/Transformer/issues/14"
SQUEEZE_BATCH_OF_ONE = "https://github.com/NVIDIA/tacotron2/pull/303"
SOFTMAX_OVER_BATCH = "https://github.com/mrdbourke/pytorch-deep-learning/issues/163"
LENGTH_TO_THE_POWER_ALPHA = "https://github.com/rwth-i6/returnn/pull/494"
INDEX_INSTEAD_OF_GATHER = (
    "https://github.com/shivamsaboo17/Overcoming-Catastrophic-forgetting-in-Neural-Networks/pull/5"
)
IN_PLACE_ON_SAVED_OUTPUT = "https://github.com/pytorch/pytorch/issues/9391"
VALIDATION_SHUFFLED = "https://github.com/orobix/quadra/pull/116"
FORWARD_KEYWORD_NAMES = "https://github.com/HHousen/TransformerSum/issues/74"
SACREBLEU_EXTRA_LIST = "https://github.com/mjpost/sacrebleu/issues/28"

_c = held_out_authored("blind15a")

BLIND15A: list[Case] = [
    # ------------------------------------------------------------------ 09 Transformer
    _c(
        "tr-tied-output-weight-transposed",
        L09,
        "Transformer",
        "ties the output layer to the transpose of the shared matrix "
        "(self.output.weight = self.src_embedding.embedding.weight.T), as if "
        "nn.Linear(d_model, vocab_size) stored its weight as (d_model, vocab_size): "
        "nn.Linear already stores (out_features, in_features) = (vocab_size, d_model), the "
        "embedding's own shape, and the transpose is a plain tensor, so the assignment "
        "raises TypeError (a Parameter or None expected) whenever tie_embeddings=True.",
        (
            r"transpos",
            r"\.T\b",
            r"weight\.t\(\)",
            r"(no|without( a)?|needs? no|does not need( a)?) transpos",
            r"(already|same) (shape|layout).{0,60}(\(vocab_size, d_model\)|embedding)",
            r"\(out_features, in_features\)",
        ),
        (
            r"(copy|clone|separate|new) (nn\.)?Parameters?",
            r"(never|not) tie[sd]?\b",
            r"vocab(ulary)? sizes? .{0,30}(differ|ValueError)",
            r"\.data\b",
            r"(output layer|output\.weight).{0,40}(not tied|its own|left out)",
        ),
        edits=[
            (
                "self.output.weight = self.src_embedding.embedding.weight",
                "self.output.weight = self.src_embedding.embedding.weight.T  # x @ W.T",
            )
        ],
        source=LINEAR_WEIGHT_SHAPE_FOR_TYING,
    ),
    _c(
        "tr-forward-drops-last-position",
        L09,
        "Transformer",
        "slices the logits in forward, self.decode(...)[:, :-1], as if the model itself had "
        "to make the teacher-forcing shift (the last target position 'predicts past the "
        "end'): forward returns (batch, len_tgt - 1, tgt_vocab_size) instead of one row of "
        "logits per target position (decode on its own is right).",
        (
            r"(last|final) (target )?(position|column|row).{0,60}"
            r"(dropped|missing|cut|removed|sliced|left out)",
            r"len_tgt ?- ?1",
            r"one (position|column|row|step) (short|too few|fewer|missing)",
            r"\[:, ?:-1\]",
            r"shift\w*.{0,60}(inside|in) (the )?(model|forward)",
            r"forward.{0,60}(slic\w*|cuts?|trims?|drops?)",
        ),
        (
            r"(applies|applied|returns?) (a )?(log_)?softmax",
            r"(first|<bos>) position.{0,30}(dropped|missing)",
            r"(memory|src_ids).{0,30}(swapped|wrong order)",
            r"positional encoding.{0,30}(missing|twice)",
        ),
        edits=[
            (
                "return self.decode(tgt_ids, self.encode(src_ids), src_ids)",
                "logits = self.decode(tgt_ids, self.encode(src_ids), src_ids)\n"
                "        return logits[:, :-1]  # the last position predicts past the end",
            )
        ],
    ),
    _c(
        "tr-positional-max-len-not-passed",
        L09,
        "Transformer",
        "builds the positional encoding as PositionalEncoding(d_model, dropout=dropout), "
        "leaving out max_len, so the table takes the module's default length (5000) "
        "whatever max_len the model was given: the logits are the same, but the "
        "positional table (a buffer in the state dict) has the wrong length, and targets or "
        "sources longer than max_len are accepted instead of failing.",
        (
            r"max_len.{0,80}(not passed|default|5000|ignored|missing|never (passed|given)|"
            r"left out)",
            r"5000",
            r"(table|buffer|pe\b).{0,80}(length|rows?|size).{0,60}max_len",
            r"max_len.{0,60}(table|buffer|pe\b).{0,40}(length|rows?|size)",
        ),
        (
            r"dropout.{0,40}(not passed|default|0\.1\b)",
            r"(argument|tutorial'?s?) order",
            r"(twice|a second time)",
            r"(one|two) positional encodings?.{0,30}(per side|each side)",
        ),
        edits=[
            (
                "self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)",
                "self.positional_encoding = PositionalEncoding(d_model, dropout=dropout)",
            )
        ],
        source=POSITIONAL_MAX_LEN,
    ),
    # ------------------------------------------------------------------ 09 count_parameters
    _c(
        "cp-attention-bias-outside-parentheses",
        L09,
        "count_parameters",
        "writes one attention as 4 * d_model * num_heads * d_head + d_model, the "
        "parentheses of 4 * (... + d_model) left out, so only one d_model bias is counted "
        "instead of one per projection: every attention is 3 * d_model short (once per "
        "encoder layer, twice per decoder layer).",
        (
            r"parenthes",
            r"precedence",
            r"(one|a single) (d_model )?bias (instead of|not|rather than) (four|4)",
            r"(three|3) (of the (four )?)?(projection |attention )?bias(es)?.{0,40}"
            r"(missing|forgotten|short|not counted)",
            r"3 ?\* ?d_model.{0,40}(short|missing|too few) .{0,40}attention",
            r"attention.{0,60}3 ?\* ?d_model (short|missing|too few)",
            r"bias(es)?.{0,60}(only once|counted once|once instead of)",
        ),
        (
            r"(w_o|output projection).{0,40}(missing|forgot|left out)",
            r"all (four )?(attention )?biases .{0,20}(missing|forgotten)",
            r"LayerNorm.{0,40}(missing|short|one parameter|gain only)",
            r"(feed.?forward|w_2).{0,30}bias.{0,30}(missing|forgot)",
        ),
        edits=[
            (
                "attention = 4 * (d_model * num_heads * d_head + d_model)",
                "attention = 4 * d_model * num_heads * d_head + d_model",
            )
        ],
    ),
    _c(
        "cp-layers-summed-from-one",
        L09,
        "count_parameters",
        "adds the layers up in a loop over range(1, num_layers), which runs num_layers - 1 "
        "times: each stack is one layer short (an encoder layer and a decoder layer "
        "missing), and a one-layer model gets no layer at all.",
        (
            r"num_layers ?- ?1",
            r"one layer (short|too few|missing|fewer|less)",
            r"range\(1",
            r"off.by.one.{0,40}layers?",
            r"(last|first|one) (encoder |decoder )?layer.{0,30}(missing|not counted|left out)",
        ),
        (
            r"final (LayerNorm|norm).{0,40}(missing|not counted|ignored|per layer)",
            r"decoder.{0,30}one (layer|attention) (instead|only)",
            r"(one|a single) decoder layer",
            r"LayerNorms?.{0,30}(two|three) instead",
        ),
        edits=[
            (
                "table = vocab_size * d_model\n",
                "table = vocab_size * d_model\n"
                "    encoder, decoder = final, final\n"
                "    for _ in range(1, num_layers):  # one term per layer\n"
                "        encoder += encoder_layer\n"
                "        decoder += decoder_layer\n",
            ),
            (
                '"encoder": num_layers * encoder_layer + final,\n'
                '        "decoder": num_layers * decoder_layer + final,',
                '"encoder": encoder,\n        "decoder": decoder,',
            ),
        ],
    ),
    # ------------------------------------------------------------------ 09 greedy_decode
    _c(
        "gd-result-squeezed",
        L09,
        "greedy_decode",
        "returns tokens[:, 1:].squeeze() to give a 'clean' result: squeeze() drops every "
        "axis of size 1, so a batch of one sentence comes back 1-D (n,) and a batch that "
        "finishes after one step comes back (batch,), instead of (batch, n).",
        (
            r"squeez",
            r"(keep|kept|lost|loses?|drop\w*|remov\w*) (the )?(batch|row|first|size-?1) "
            r"(axis|dimension)",
            r"(batch|row) (axis|dimension).{0,40}(dropped|lost|removed|missing|gone)",
            r"size-?1 (axis|axes|dimensions?)",
        ),
        (
            r"\(steps, batch\)|transpos",
            r"keeps? (the )?<bos>|with <bos> in front",
            r"python list",
            r"(one|a) (column|step) (short|too few)",
        ),
        edits=[("return tokens[:, 1:]", "return tokens[:, 1:].squeeze()")],
        source=SQUEEZE_BATCH_OF_ONE,
    ),
    _c(
        "gd-softmax-over-batch-before-argmax",
        L09,
        "greedy_decode",
        "turns the last position's logits into probabilities with softmax(dim=0) before the "
        "argmax: dim 0 of the (batch, vocab) logits is the batch, so each word's scores are "
        "normalised across the sentences instead of each sentence's across the vocabulary; "
        "with one sentence every entry is 1 and the argmax is always token 0, and with "
        "several the chosen tokens depend on the other rows.",
        (
            r"softmax.{0,60}(dim=0|axis 0|dim 0|batch (axis|dimension)|over (the )?"
            r"(batch|rows|sentences))",
            r"(over|across) (the )?(batch|sentences|rows).{0,60}(instead of|not|rather than) "
            r"(over )?(the )?vocab",
            r"normali[sz]\w* (across|over) (the )?(batch|sentences|rows)",
            r"depends? on the other (rows|sentences)",
        ),
        (
            r"(over|across) (the )?positions",
            r"first position",
            r"(row 0|first row)'?s? tokens?",
            r"argmax\(\) without (a )?dim|flattened",
            r"sampl\w*|multinomial",
        ),
        edits=[
            (
                "next_token = logits[:, -1].argmax(dim=-1)",
                "next_token = logits[:, -1].softmax(dim=0).argmax(dim=-1)",
            )
        ],
        source=SOFTMAX_OVER_BATCH,
    ),
    # ------------------------------------------------------------------ 10 beam_search
    _c(
        "bs-answer-min-score",
        L10,
        "beam_search",
        "picks the answer with min(finished or beam, key=normalised), as if the scores were "
        "losses where lower is better: the scores are log-probabilities (negative, higher "
        "is better), so each sentence gets its least probable finished hypothesis.",
        (
            r"\bmin\b.{0,60}(instead of|not|rather than) (the )?max",
            r"(lowest|worst|least probable|smallest) (normali[sz]ed )?(score|log-?prob\w*|"
            r"hypothes\w*)",
            r"(higher|larger) is better",
            r"picks? the worst",
        ),
        (
            r"ascending|sort\w* .{0,20}(wrong|reverse)",
            r"raw score",
            r"last finished",
            r"(answer|pick\w*) .{0,30}(among|from) .{0,20}live",
            r"stop\w* .{0,40}(worst|first finished)",
        ),
        edits=[
            (
                "results.append(max(finished or beam, key=normalised)[0])",
                "results.append(min(finished or beam, key=normalised)[0])",
            )
        ],
    ),
    _c(
        "bs-output-width-from-first-row",
        L10,
        "beam_search",
        "sizes the output tensor by the first sentence's answer (width = len(results[0])) "
        "instead of the longest: right when the first row is the longest, but a later, "
        "longer answer does not fit its row and the copy raises (a shape mismatch).",
        (
            r"(first|row 0|sentence 0)('s)? (row|sentence|answer|hypothesis).{0,80}"
            r"(width|length|columns?|size)",
            r"results\[0\]",
            r"width.{0,60}(first|row 0|sentence 0)",
            r"(width|columns?).{0,60}(instead of|not) (the )?(longest|max)",
        ),
        (
            r"torch\.stack",
            r"pad(ded|s)? with 0\b|0 (written|hard.?coded)",
            r"finished.{0,30}shared",
            r"(one|a) batch (memory|for every)",
        ),
        edits=[
            (
                "width = max(len(tokens) for tokens in results)",
                "width = len(results[0])  # every row as wide as the first",
            )
        ],
    ),
    _c(
        "bs-length-normalised-by-length-power",
        L10,
        "beam_search",
        "normalises a finished hypothesis by its length to the power alpha, "
        "score / len(tokens) ** length_penalty (fairseq's lenpen), instead of GNMT's "
        "lp(L) = ((5 + L) / 6) ** length_penalty that the docstring gives: the same with "
        "length_penalty=0, another ranking of finished hypotheses (and another stopping "
        "step) otherwise.",
        (
            r"\bL ?\*\* ?(α|alpha|length_penalty)",
            r"len\(tokens\) ?\*\* ?length_penalty",
            r"length (alone|itself|to the power).{0,60}(instead of|not|rather than)",
            r"without (the )?(5 ?\+|\+ ?5|/ ?6)",
            r"(plain|simple|raw) length (normali[sz]ation|penalty)",
            r"fairseq",
        ),
        (
            r"<bos>",
            r"without (its |the )?<eos>|len\(tokens\) ?- ?1",
            r"multipl\w* (by )?(the )?(length )?penalty",
            r"precedence|parenthes",
            r"normali[sz]\w* (the )?live",
        ),
        edits=[
            (
                "return score / ((5 + len(tokens)) / 6) ** length_penalty",
                "return score / len(tokens) ** length_penalty",
            )
        ],
        source=LENGTH_TO_THE_POWER_ALPHA,
    ),
    # ------------------------------------------------------------------ 10 label_smoothed_loss
    _c(
        "ls-labels-as-index-not-gather",
        L10,
        "label_smoothed_loss",
        "picks -log p[y] by indexing, -log_probs[..., safe_labels], instead of gather: "
        "advanced indexing takes every label's column at every position ((N, N) for 2-D "
        "logits, (batch, len, batch, len) for 3-D), so the target term averages -log p of "
        "all the batch's labels at each position, not its own label's.",
        (
            r"(instead of|rather than|not) (torch\.)?gather|gather.{0,30}instead",
            r"(advanced|fancy) index",
            r"\[\.\.\., ?(safe_)?labels\]",
            r"every label at every position|(all|every) (the )?labels?.{0,40}(each|every) "
            r"position",
            r"\(N, ?N\)",
        ),
        (
            r"log\(.{0,10}softmax|log of (the )?softmax",
            r"pad(ding)? .{0,30}(not excluded|included)",
            r"unsqueeze\(1\)",
            r"squeeze\(\) without",
            r"one_hot",
        ),
        edits=[
            (
                "target = -log_probs.gather(-1, safe_labels[..., None]).squeeze(-1)",
                "target = -log_probs[..., safe_labels]",
            )
        ],
        source=INDEX_INSTEAD_OF_GATHER,
    ),
    _c(
        "ls-log-probs-negated-in-place",
        L10,
        "label_smoothed_loss",
        "negates the log-probabilities in place (log_probs.neg_()) to work with -log p "
        "afterwards: the value is right, but log_softmax's backward needs its own output, "
        "which the in-place op has changed, so backward raises RuntimeError (modified by an "
        "inplace operation).",
        (
            r"in.?place",
            r"neg_\(\)",
            r"(log_softmax|its) output.{0,60}(modified|changed|overwritten)",
        ),
        (
            r"no_grad",
            r"\.item\(\)|(a )?python float",
            r"\.detach\(\)|detached",
            r"sign.{0,30}(wrong|flipped)|negative loss",
        ),
        edits=[
            (
                "log_probs = torch.log_softmax(logits, dim=-1)  # (..., V), stable",
                "log_probs = torch.log_softmax(logits, dim=-1)  # (..., V), stable\n"
                "    log_probs.neg_()  # -log p from here on",
            ),
            ("target = -log_probs.gather(", "target = log_probs.gather("),
            ("uniform = -log_probs.mean(dim=-1)", "uniform = log_probs.mean(dim=-1)"),
        ],
        source=IN_PLACE_ON_SAVED_OUTPUT,
    ),
    _c(
        "ls-gathered-not-squeezed",
        L10,
        "label_smoothed_loss",
        "keeps the gathered -log p[y] as (..., 1), without .squeeze(-1), and adds it to the "
        "(...,) uniform term: broadcasting pairs the trailing axis of size 1 with the "
        "positions, so (N, V) logits give an (N, N) loss matrix and a wrong mean, and 3-D "
        "logits raise unless the sizes happen to line up.",
        (
            r"squeeze\(-1\)|squeeze\(dim=-1\)",
            r"(trailing|last|extra) (axis|dimension) of (size|length) 1",
            r"\(\.\.\., ?1\)",
            r"(without|no|missing|forgot\w*) (the )?squeeze",
            r"size-?1 (axis|dimension).{0,40}(gather|kept|left)",
        ),
        (
            r"squeeze\(\) without",
            r"unsqueeze\(1\)",
            r"pad(ding)? .{0,30}(not excluded|included)",
            r"(advanced|fancy) index",
        ),
        edits=[
            (
                "target = -log_probs.gather(-1, safe_labels[..., None]).squeeze(-1)",
                "target = -log_probs.gather(-1, safe_labels[..., None])",
            )
        ],
    ),
    # ------------------------------------------------------------------ 10 make_batches
    _c(
        "mb-shuffles-when-not-asked",
        L10,
        "make_batches",
        "draws the seeded permutation whatever shuffle says (the if shuffle: test left "
        "out), so shuffle=False also returns the pairs in a random order instead of "
        "pairs[0:batch_size], the next batch_size pairs, and so on (shuffle=True is right).",
        (
            r"shuffle=False.{0,80}(shuffled|random order|permut\w*|randperm)",
            r"(always|even with shuffle=False|even when shuffle (is )?False|whatever shuffle)"
            r".{0,40}(shuffl|permut|random)",
            r"shuffle (flag|argument|parameter).{0,40}(ignored|not used|never (used|read))",
            r"(ignores?|ignoring) (the )?shuffle\b",
        ),
        (
            r"sort\w* (the pairs )?by length",
            r"seed.{0,40}(ignored|fixed|global|0 written)",
            r"drop\w* (the )?last",
            r"global (random|generator|stream)",
        ),
        edits=[
            (
                "order = list(range(len(pairs)))\n"
                "    if shuffle:\n"
                "        generator = torch.Generator().manual_seed(seed)\n"
                "        order = torch.randperm(len(pairs), generator=generator).tolist()",
                "generator = torch.Generator().manual_seed(seed)\n"
                "    order = torch.randperm(len(pairs), generator=generator).tolist()",
            )
        ],
        source=VALIDATION_SHUFFLED,
    ),
    _c(
        "mb-pairs-unpacked-target-first",
        L10,
        "make_batches",
        "unpacks each pair as (target, source) instead of (source, target): src holds the "
        "target ids, and decoder_input and labels are built from the source, so the model "
        "would learn to translate Spanish into English.",
        (
            r"(source|src) and (the )?target.{0,60}(swapped|exchanged|each other'?s?|"
            r"reversed|the other way)",
            r"(target|tgt)( ids)? (in|as|for) (the )?(src|source)",
            r"\(target, source\)",
            r"src (holds|has|contains|is) (the )?targets?",
            r"(decoder_input|labels).{0,60}(built )?from (the )?source",
        ),
        (
            r"decoder_input and labels.{0,40}(swapped|exchanged)",
            r"(labels|decoder_input).{0,30}shift\w*",
            r"left.?pad",
            r"<bos>.{0,30}(missing|not in front)",
        ),
        edits=[
            (
                "src = pad_batch([list(source) for source, _ in chunk], pad_id)",
                "sources = [list(source) for target, source in chunk]\n"
                "        targets = [list(target) for target, source in chunk]\n"
                "        src = pad_batch(sources, pad_id)",
            ),
            (
                "decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)",
                "decoder_input = pad_batch([[bos_id, *t] for t in targets], pad_id)",
            ),
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([[*t, eos_id] for t in targets], pad_id)",
            ),
        ],
    ),
    # ------------------------------------------------------------------ 10 noam_lr
    _c(
        "noam-warmup-exponent-positive",
        L10,
        "noam_lr",
        "writes the warm-up term as step * warmup ** 1.5 (the minus sign of the exponent "
        "lost): that term is then larger than step ** -0.5 at every step, so the min always "
        "takes the decay branch and the rate falls from step 1 on, with no warm-up at all.",
        (
            r"warmup ?\*\* ?1\.5",
            r"(sign|positive|minus).{0,40}(exponent|power|1\.5)",
            r"(exponent|power).{0,40}(\+ ?1\.5|positive|sign)",
            r"warm.?up (branch|term|line).{0,60}(never|not) (wins|chosen|taken|used|"
            r"the smaller|smaller)",
            r"no warm.?up",
        ),
        (
            r"warmup ?\*\* ?-0\.5",
            r"(max|maximum) (instead of|of the two|rather than)",
            r"(no|without|missing) (the )?d_model",
            r"step ?\*\* ?0\.5",
            r"one step (late|early)|shifted",
        ),
        edits=[
            (
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "return d_model**-0.5 * min(step**-0.5, step * warmup**1.5)",
            )
        ],
    ),
    _c(
        "noam-decay-like-one-over-step",
        L10,
        "noam_lr",
        "writes the schedule as the peak times min(step / warmup, warmup / step), "
        "forgetting the square root of the decay ratio ((warmup / step) ** 0.5): the "
        "warm-up line and the peak are right, but after warmup the rate decays like "
        "1 / step instead of 1 / sqrt(step).",
        (
            r"(decays?|decay\w*|falls?) (like|as|with) 1 ?/ ?step\b(?! ?\*)",
            r"warmup ?/ ?step.{0,60}(square root|sqrt|\*\* ?0\.5)",
            r"(square root|sqrt).{0,40}(missing|forgot\w*|left out)",
            r"step ?\*\* ?-1\b",
            r"(decays?|after (the )?warm.?up).{0,60}(too fast|inverse(ly)? (proportional )?"
            r"(to|of) (the )?step)",
        ),
        (
            r"no decay|stays at (its|the) peak",
            r"one step (late|early)|shifted",
            r"d_model.{0,40}(missing|decay branch only|only in)",
            r"warmup ?\*\* ?-0\.5 instead",
            r"(max|maximum) (instead of|rather than)",
        ),
        edits=[
            (
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "peak = (d_model * warmup) ** -0.5\n"
                "    return peak * min(step / warmup, warmup / step)  # up, then down",
            )
        ],
    ),
    # ------------------------------------------------------------------ 10 train_step
    _c(
        "ts-clip-named-parameters",
        L10,
        "train_step",
        "hands clip_grad_norm_ model.named_parameters() instead of model.parameters(): "
        "it yields (name, parameter) tuples, so the clipping raises AttributeError "
        "('tuple' object has no attribute 'grad') whenever clip_norm is not None; "
        "clip_norm=None is right.",
        (
            r"named_parameters",
            r"\(name, ?(parameter|param|p)\)",
            r"tuples?.{0,60}(names?|pairs?)",
            r"names? (and|with) (their |the )?parameters",
        ),
        (
            r"clip\w* (after|before) (the )?(optimizer\.)?(step|backward)",
            r"clip_grad_value_|by value",
            r"(exhausted|generator).{0,40}(empty|used up|exhausted)",
            r"hard.?coded|1\.0 written",
            r"clip\w* .{0,30}(when|with) clip_norm (is )?None",
        ),
        edits=[
            (
                "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
                "torch.nn.utils.clip_grad_norm_(model.named_parameters(), clip_norm)",
            )
        ],
    ),
    _c(
        "ts-model-called-with-keywords",
        L10,
        "train_step",
        "calls the model with keyword names of its own, model(src=src, tgt=decoder_input) "
        "(the names of another tutorial's forward), but the Transformer's forward takes "
        "src_ids and tgt_ids: the call raises TypeError (an unexpected keyword argument "
        "'src') before anything is trained.",
        (
            r"unexpected keyword",
            r"keyword.{0,60}\b(src|tgt)\b",
            r"(src_ids|tgt_ids).{0,60}(parameter|argument|keyword) names?",
            r"names? .{0,40}(src_ids|tgt_ids)",
            r"(positional(ly)?|by position).{0,60}(model|forward)",
        ),
        (
            r"(arguments?|inputs?) .{0,30}(swapped|wrong order)",
            r"(labels).{0,40}(instead of decoder_input|to the decoder)",
            r"batch.{0,30}(dict|by key)",
            r"unpack\w*.{0,30}(order|wrong)",
        ),
        edits=[
            (
                "logits = model(src, decoder_input)",
                "logits = model(src=src, tgt=decoder_input)",
            )
        ],
        source=FORWARD_KEYWORD_NAMES,
    ),
    # ------------------------------------------------------------------ 10 translation_scores
    _c(
        "tsc-streams-wrapped-again",
        L10,
        "translation_scores",
        "builds the reference streams correctly and then wraps them in one more list, "
        "sacrebleu.corpus_bleu(hypotheses, [streams]) (the README's [refs] for a single "
        "stream): sacrebleu then sees one stream whose entries are lists, not strings, and "
        "raises TypeError.",
        (
            r"\[streams\]",
            r"(extra|one more|another|too many|additional) (list|level|pair of brackets|"
            r"brackets|nesting)",
            r"wrapp\w*.{0,60}(again|twice|extra|(another|a further|one more|a second) list)",
            r"(nested|nesting) (one level )?too deep",
            r"(list of )?streams.{0,40}already (a )?list",
        ),
        (
            r"hypotheses.{0,40}(wrapped|in a list)",
            r"(not|never) transposed|one list per sentence|per-sentence lists?",
            r"split\w* .{0,30}words|list of words",
            r"arguments? .{0,20}swapped",
            r"empty strings?",
        ),
        edits=[
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                "bleu = sacrebleu.corpus_bleu(hypotheses, [streams]).score",
            )
        ],
        source=SACREBLEU_EXTRA_LIST,
    ),
    _c(
        "tsc-bleu-rounded",
        L10,
        "translation_scores",
        "returns BLEU rounded to one decimal, round(bleu, 1), the way scores are reported in "
        "tables: the value is off by up to 0.05 from sacrebleu's score, which the contract "
        "returns as it is.",
        (
            r"round",
            r"(decimals?|digits?).{0,40}(dropped|cut|lost|truncated)",
            r"(precision|exact value|full value).{0,40}(lost|keep|as it is)",
            r"as it is.{0,40}(not|without) round",
        ),
        (
            r"(0-1|0 to 1) (scale|fraction)|divided by 100|/ ?100",
            r"lowercase|case.?insensitive",
            r"sentence_bleu|mean of (per-)?sentence",
            r"BLEUScore|\.score (missing|left out)|an object",
            r"streams?.{0,40}(holes?|None|transpos)",
        ),
        edits=[
            (
                'return {"exact_match": exact, "bleu": bleu}',
                'return {"exact_match": exact, "bleu": round(bleu, 1)}',
            )
        ],
    ),
    # ------------------------------------------------------------------ 10 quiz_loss_floor
    _c(
        "qlf-zero-floor",
        L10,
        "quiz_loss_floor",
        "answers 0.0, the floor of the plain (one-hot) cross-entropy, as if a model certain "
        "of the right token could still bring the smoothed loss to 0: with the smoothed "
        "target q the loss is at least the entropy of q (0.500 for V = 10, eps = 0.1), "
        "reached when p = q.",
        (
            r"entropy of (the )?(smoothed |target )?(q\b|distribution|target)",
            r"(cannot|can't|never|does not|doesn't) (reach|go (down )?to|be|fall to) "
            r"(0|zero)",
            r"(0|zero) is (the )?(floor|minimum|lowest).{0,40}(plain|unsmoothed|one-hot)",
            r"(plain|one-hot|unsmoothed) cross.?entropy.{0,80}(0|zero)",
            r"p ?= ?q\b",
        ),
        (
            r"log(arithm)? (base )?2|bits",
            r"fairseq|V ?- ?1",
            r"(decimals|rounding|3 decimals)",
            r"(numeric )?string",
        ),
        edits=[("return 0.500", "return 0.0")],
    ),
]
