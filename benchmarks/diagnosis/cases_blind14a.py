"""Held-out wrong answers for lessons 09-10, blind round 14 (helper b14a, 2026-11-27):
mistakes new to the benchmark, written against the checks after round 15's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 24 cases over the
nine exercises; eleven transpose a mistake reported in public (the URL read for this
benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L09, L10 = "09_transformer", "10_training"

# The reports these cases transpose (each read with the search tool for this benchmark).
STACK_DROPOUT_NEVER_PASSED = "https://github.com/layer6ai-labs/TabDPT-inference/issues/4"
TRIU_MASK_TRUE_MEANS_ATTEND = "https://github.com/rasbt/LLMs-from-scratch/issues/1061"
MUTABLE_DEFAULT_CACHE = "https://github.com/rsennrich/subword-nmt/issues/27"
GATHER_IGNORE_INDEX_OUT_OF_BOUNDS = "https://github.com/frgfm/holocron/issues/211"
NO_GRAD_FOR_LOSS = "https://github.com/rasbt/LLMs-from-scratch/pull/119"
TENSOR_OF_UNPADDED_ROWS = "https://github.com/JiaweiSheng/CasEE/issues/3"
SAMPLER_PADS_BY_REPEATING = "https://github.com/pytorch/pytorch/issues/25162"
TARGET_SLICED_FOR_TEACHER_FORCING = (
    "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/76"
)
SACREBLEU_TOKENIZED_HYPOTHESES = "https://github.com/mjpost/sacrebleu/issues/244"
BATCH_FIRST_FORGOTTEN = "https://github.com/threelittlemonkeys/seq2seq-pytorch/issues/2"
BEAM_WITHOUT_LOG_SOFTMAX = (
    "https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning/issues/38"
)

_c = held_out_authored("blind14a")

BLIND14A: list[Case] = [
    # ------------------------------------------------------------------ 09 Transformer
    _c(
        "tr-stacks-dropout-not-passed",
        L09,
        "Transformer",
        "builds Encoder and Decoder with keywords for norm_first and final_norm but leaves "
        "out dropout, so the stacks take their own default (0.0): the layers' residual and "
        "feed-forward dropout is off whatever dropout the model was given (the positional "
        "encoding still gets it); it only shows in training mode with dropout > 0.",
        (
            r"dropout.{0,80}(encoder|decoder|stacks?|layers?).{0,60}"
            r"(not passed|never (passed|given)|missing|default|0\.0|zero|off)",
            r"(encoder|decoder|stacks?|layers?).{0,80}"
            r"(without|no|never get|don't get|do not get|get no) .{0,20}dropout",
            r"pass(ed|es)? .{0,20}dropout .{0,40}(to )?(the )?(Encoder|Decoder|stacks?)",
            r"(Encoder|Decoder)\(.{0,80}dropout.{0,40}(missing|left out|not passed)",
        ),
        (
            r"dropout.{0,40}(twice|two times|applied again|a second time)",
            r"PositionalEncoding.{0,60}dropout.{0,40}(not passed|default|missing)",
            r"(norm_first|final_norm).{0,40}(not passed|ignored|missing|dropped)",
            r"(heads?|d_ff).{0,40}swapped",
        ),
        edits=[
            (
                "layers = (num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)\n"
                "        self.encoder = Encoder(*layers)\n"
                "        self.decoder = Decoder(*layers)",
                "self.encoder = Encoder(\n"
                "            num_layers, d_model, num_heads, d_ff, norm_first=norm_first, "
                "final_norm=final_norm\n"
                "        )\n"
                "        self.decoder = Decoder(\n"
                "            num_layers, d_model, num_heads, d_ff, norm_first=norm_first, "
                "final_norm=final_norm\n"
                "        )",
            )
        ],
        source=STACK_DROPOUT_NEVER_PASSED,
    ),
    _c(
        "tr-own-look-ahead-from-triu",
        L09,
        "Transformer",
        "builds the decoder's self-attention mask itself from "
        "torch.triu(ones, diagonal=1).bool() and the target padding: triu is True above the "
        "diagonal, at the later tokens, which is nn.Transformer's 'blocked' convention, so "
        "with the course's True = may attend each position sees only the tokens after it and "
        "never itself or the past (the last position sees nothing at all).",
        (
            r"(look.?ahead|causal|future).{0,80}"
            r"(inverted|reversed|flipped|upside|opposite|wrong way|transposed)",
            r"triu|upper triangle|above the diagonal",
            r"(attends?|sees?|see) .{0,30}(only )?(to )?(the )?(future|later)( tokens| positions)?"
            r".{0,40}(instead of|not|rather than).{0,30}(past|earlier|previous)",
            r"look.?ahead.{0,100}True.{0,20}(=|means|marks?|for).{0,10}(blocked|masked|future)",
            r"(blocks?|hides?|masks?) .{0,30}(the )?(past|earlier (tokens|positions)|"
            r"previous (tokens|positions)|itself|the diagonal)",
        ),
        (
            r"(no|without (the )?) look.?ahead|look.?ahead.{0,20}(missing|left out)",
            r"padding.{0,40}(query axis|on the rows)",
            r"\| instead of &|(or|\|) instead of (and|&)",
            r"masks? .{0,30}(swapped|wrong order)",
            r"(from|built from) (the )?src_ids",
        ),
        edits=[
            (
                "tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)  "
                "# (b, 1, len_tgt, len_tgt)",
                "len_tgt = tgt_ids.shape[1]\n"
                "        future = torch.triu(torch.ones(len_tgt, len_tgt), diagonal=1).bool()\n"
                "        tgt_mask = padding_mask(tgt_ids, self.pad_id) & future  "
                "# (b, 1, len_tgt, len_tgt)",
            )
        ],
        source=TRIU_MASK_TRUE_MEANS_ATTEND,
    ),
    _c(
        "tr-decoder-called-with-pytorch-keywords",
        L09,
        "Transformer",
        "calls the decoder with nn.TransformerDecoder's keyword names, "
        "decoder(y, memory, tgt_mask=tgt_mask, memory_mask=src_mask), but the course's "
        "Decoder's parameters are src_mask and tgt_mask: decode raises TypeError (an "
        "unexpected keyword argument 'memory_mask').",
        (
            r"memory_mask",
            r"unexpected keyword",
            r"keyword.{0,40}(names?|arguments?).{0,60}(nn\.Transformer|PyTorch|src_mask)",
            r"decoder\b.{0,60}(takes|signature|expects|parameters? (is|are)).{0,40}src_mask",
        ),
        (
            r"masks? .{0,30}(swapped|wrong order|other's place)",
            r"(arguments?|memory).{0,40}(swapped|wrong order).{0,40}decoder",
            r"(no|without) (the )?source mask",
            r"decode'?s? (signature|parameters?)",
        ),
        edits=[
            (
                "y = self.decoder(y, memory, src_mask, tgt_mask)",
                "y = self.decoder(y, memory, tgt_mask=tgt_mask, memory_mask=src_mask)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 09 count_parameters
    _c(
        "cp-final-norm-tested-against-none",
        L09,
        "count_parameters",
        "tests final_norm with `is not None` (as if the Transformer's None default were the "
        "'no final norm' value), but count_parameters' default is False: final_norm=False "
        "counts the two final LayerNorms (2 * d_model in each stack) all the same; "
        "final_norm=True is right.",
        (
            r"final (LayerNorm|norm)s?.{0,80}(counted|included|added).{0,60}"
            r"(final_norm=False|False|not asked|without)",
            r"(counts?|counted|includ\w+|adds?) .{0,40}final (LayerNorm|norm)s?.{0,80}"
            r"(final_norm=False|False|even when|although|not asked)",
            r"is not None",
            r"False (is not|isn't) None",
            r"(treats?|reads?) final_norm=False .{0,30}(as|like) True",
        ),
        (
            r"final (LayerNorm|norm).{0,60}(per layer|every layer|num_layers times)",
            r"final (LayerNorm|norm).{0,40}encoder only",
            r"(never|not) count\w* .{0,30}final (LayerNorm|norm)",
            r"final (LayerNorm|norm)s? (is |are )?(missing|forgotten|left out)",
            r"LayerNorm.{0,30}(d_model parameters|without (its )?bias|gain only)",
        ),
        edits=[
            (
                "final = layer_norm if final_norm else 0",
                "final = layer_norm if final_norm is not None else 0",
            )
        ],
    ),
    _c(
        "cp-tied-matrix-under-output",
        L09,
        "count_parameters",
        "when tie_embeddings is True, counts the shared matrix under 'output' (its weight "
        "plus bias) and 0 under 'embeddings', as if the embeddings borrowed the output "
        "layer's weight: the total is right, but the split is not (the contract counts the "
        "shared matrix under 'embeddings' and only the bias under 'output').",
        (
            r"(shared|tied) (matrix|table|weight).{0,100}(under|in|belongs (to|in)) .{0,10}"
            r".?embeddings",
            r"embeddings.{0,60}(0|zero|nothing).{0,80}(shared|tied)",
            r"(counted|counts?) .{0,40}(shared|tied) (matrix|table|weight).{0,40}"
            r"(under|in|as) .{0,10}.?output",
            r"output.{0,60}(only|just) (its |the )?bias.{0,60}(tied|shared)",
        ),
        (
            r"(counted|counts?) .{0,30}twice|double.?count",
            r"(forg[eo]t\w*|missing|left out) .{0,30}(output )?bias",
            r"(untied|separate) output (layer'?s? )?weight.{0,40}under .?embeddings",
            r"three (tables|matrices|times)",
            r"ignor\w* tie_embeddings",
        ),
        edits=[
            (
                '"embeddings": table if tie_embeddings else 2 * table,',
                '"embeddings": 0 if tie_embeddings else 2 * table,',
            ),
            (
                '"output": vocab_size if tie_embeddings else table + vocab_size,',
                '"output": table + vocab_size,',
            ),
        ],
    ),
    # ------------------------------------------------------------------ 09 greedy_decode
    _c(
        "gd-where-branches-swapped",
        L09,
        "greedy_decode",
        "pads the finished rows with torch.where(finished, next_token, model.pad_id), the "
        "two branches in each other's place: rows that have not finished get pad_id and "
        "finished rows keep the prediction, so from the first step every row writes pad "
        "ids and (unless pad_id is eos_id) no row ever finishes.",
        (
            r"torch\.where.{0,80}(swapped|order|other way|reversed|branches|arguments)",
            r"(unfinished|live|running|still (going|generating)|not (yet )?finished) rows?"
            r".{0,60}(get|given|receive|filled with|replaced by) .{0,20}(pad|pad_id|<pad>)",
            r"pad.{0,40}(to|on|for|into) (the )?(rows?|sentences?) that "
            r"(have not|haven't|are not|aren't) (yet )?finished",
            r"(finished|done) rows? (keep|get) .{0,60}(unfinished|others?) .{0,20}pad",
        ),
        (
            r"start\w* .{0,30}with (pad|<pad>|pad_id)",
            r"(finished|<eos>).{0,60}(before|marked before) .{0,30}pad",
            r"never stops early|no early stop",
            r"(pad|fill)\w* .{0,30}with (eos|<eos>|0 instead)",
        ),
        edits=[
            (
                "next_token = next_token.masked_fill(finished, model.pad_id)",
                "next_token = torch.where(finished, next_token, model.pad_id)",
            )
        ],
    ),
    _c(
        "gd-start-from-source-first-token",
        L09,
        "greedy_decode",
        "starts every target from the source's first column, src_ids[:, :1], assuming "
        "that every source begins with <bos>, instead of a column of bos_id: right when "
        "the sources start with bos_id, wrong for sources without the marker (or another "
        "bos_id), whose decoding starts from a word of the source.",
        (
            r"src_ids\[:, ?:1\]|source'?s? first (token|column|id)",
            r"(start|begin)\w* .{0,40}(from|with) .{0,20}(the )?source",
            r"bos_id.{0,60}(ignored|never used|not used|unused)",
            r"(not|never) (start|begin)\w* .{0,30}(with|from) .{0,10}(bos_id|<bos>)",
        ),
        (
            r"start\w* .{0,30}with (pad|<pad>|pad_id)",
            r"keeps? (the )?<bos>|with <bos> in front",
            r"(float|floating).{0,30}(ids|tokens|bos)",
        ),
        edits=[
            (
                "tokens = torch.full((batch, 1), bos_id, dtype=torch.long)  # (batch, 1): <bos>",
                "tokens = src_ids[:, :1].clone()  # (batch, 1): the sources start with <bos>",
            )
        ],
    ),
    _c(
        "gd-memory-cached-in-mutable-default",
        L09,
        "greedy_decode",
        "caches the encoder's output in a mutable default argument (a dict keyed by "
        "id(model)) so as to encode once: the dict outlives the call, so a second call "
        "with the same model and another source batch decodes against the first call's "
        "memory (wrong translations, or a shape error when the batch size differs).",
        (
            r"(cache|cached|caches|reuses?|kept|stored).{0,80}(memory|encoder'?s? output|encode)",
            r"(memory|encoder'?s? output).{0,80}(previous|earlier|first|last|other) call",
            r"mutable default|default argument",
            r"(second|later|next) call.{0,80}(memory|source|src_ids)",
        ),
        (
            r"(re-?runs?|calls?) .{0,20}(the )?encoder .{0,20}(again|every step|at each step)",
            r"(source|src) mask .{0,40}(from|built from) .{0,20}(the )?(generated )?tokens",
            r"batch.{0,30}(from )?shape\[1\]",
            r"last token only|only the last (generated )?token",
        ),
        edits=[
            (
                "bos_id: int, eos_id: int\n) -> torch.Tensor:",
                "bos_id: int, eos_id: int,\n    _memories: dict = {},  # noqa: B006\n"
                ") -> torch.Tensor:",
            ),
            (
                "memory = model.encode(src_ids)  # (batch, len_src, d_model), computed once",
                "if id(model) not in _memories:  # encode once, reuse afterwards\n"
                "            _memories[id(model)] = model.encode(src_ids)\n"
                "        memory = _memories[id(model)]  # (batch, len_src, d_model)",
            ),
        ],
        source=MUTABLE_DEFAULT_CACHE,
    ),
    # ------------------------------------------------------------------ 10 make_batches
    _c(
        "mb-rows-not-padded",
        L10,
        "make_batches",
        "builds each field with torch.tensor(rows) and never pads: right when every row of "
        "a batch has the same length (a batch of one, or equal lengths), but "
        "torch.tensor raises ValueError (expected sequence of length ...) as soon as two "
        "rows of a batch differ in length.",
        (
            r"(never|not|no|without|forgot\w*( to)?) (pad|padd\w+)",
            r"pad_batch",
            r"(rows?|sequences?) of (different|unequal) lengths.{0,80}(pad|tensor)",
        ),
        (
            r"left.?pad|pad\w* on the left",
            r"float|torch\.Tensor\(",
            r"(drop|lost|missing) (the )?last batch",
            r"pad\w* (with|to) (the )?(longest|same length) (in|of) (the )?(corpus|all)",
        ),
        edits=[
            (
                "src = pad_batch([list(source) for source, _ in chunk], pad_id)  # (batch, len_src)\n"
                "        decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], "
                "pad_id)\n"
                "        labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)  "
                "# same shape\n"
                "        batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, "
                "labels)))",
                "src = torch.tensor([list(source) for source, _ in chunk])  # (batch, len_src)\n"
                "        decoder_input = torch.tensor([[bos_id, *target] for _, target in chunk])\n"
                "        labels = torch.tensor([[*target, eos_id] for _, target in chunk])\n"
                "        batches.append((src, decoder_input, labels))",
            )
        ],
        source=TENSOR_OF_UNPADDED_ROWS,
    ),
    _c(
        "mb-last-batch-filled-from-start",
        L10,
        "make_batches",
        "fills the last, smaller batch up to batch_size with pairs from the start of the "
        "order (as DistributedSampler pads its indices by repeating them), so when "
        "batch_size does not divide the number of pairs some pairs are used twice, where "
        "the docstring keeps the last batch smaller and uses every pair exactly once.",
        (
            r"(repeat\w*|duplicat\w*|reus\w*|twice|more than once).{0,80}(pairs?|rows?|examples?)",
            r"(pairs?|rows?).{0,60}(used|appear\w*|comes?|occurs?) (twice|more than once|again)",
            r"last batch.{0,80}(filled|padded|topped) up",
            r"(wrap\w*|cycl\w*) around",
        ),
        (
            r"(drop\w*|lost|missing) (the )?last batch",
            r"(one|an) (extra|empty) batch",
            r"sorted|bucket",
            r"seed|global random",
        ),
        edits=[
            (
                "chunk = [pairs[i] for i in order[start : start + batch_size]]",
                "indices = order[start : start + batch_size]\n"
                "        indices += order[: batch_size - len(indices)]  # keep every batch full\n"
                "        chunk = [pairs[i] for i in indices]",
            )
        ],
        source=SAMPLER_PADS_BY_REPEATING,
    ),
    _c(
        "mb-return-inside-loop",
        L10,
        "make_batches",
        "indents `return batches` into the loop (one level too deep), so the function "
        "returns after building the first batch: right when all pairs fit in one batch, "
        "but every later batch is missing otherwise.",
        (
            r"return\w*.{0,40}(inside|in) the (for )?loop",
            r"(only|just) (the )?(first|one) batch",
            r"(stops?|returns?) after (the )?first batch",
            r"indent\w*",
        ),
        (
            r"(drop\w*|lost|missing) (the )?last (partial |smaller )?batch",
            r"slice|order\[start:batch_size\]",
            r"generator|yield",
        ),
        edits=[
            (
                "labels)))\n    return batches",
                "labels)))\n        return batches",
            )
        ],
    ),
    # ------------------------------------------------------------------ 10 noam_lr
    _c(
        "noam-bare-return-at-step-zero",
        L10,
        "noam_lr",
        "handles step 0 with a bare `return` (no value), so noam_lr(0, ...) returns None "
        "instead of 0.0 or the rate of step 1; every step from 1 on is right.",
        (
            r"(returned|returns|gave|got|is) None",
            r"None .{0,40}(step 0|step=0|noam_lr\(0)",
            r"bare return|return without a value|no return value",
        ),
        (
            r"ZeroDivisionError|divid\w* by zero|raises? at step 0",
            r"(peak|warmup).{0,40}at step 0",
            r"tensor (instead|rather)",
        ),
        edits=[
            (
                "step = max(step, 1)",
                "if step == 0:\n        return  # no rate before the first step",
            )
        ],
    ),
    _c(
        "noam-warmup-fraction-floor-division",
        L10,
        "noam_lr",
        "writes the warm-up term as the fraction of warm-up done times the peak's "
        "warmup ** -0.5, but with floor division, (step // warmup) * warmup ** -0.5: the "
        "fraction is 0 for every step before warmup, so the rate is 0 through the whole "
        "warm-up (right from step == warmup on).",
        (
            r"//|floor division|integer division",
            r"warm.?up.{0,80}(0|zero)( |\.|,).{0,60}(every|all|each) step",
            r"(rate|lr|learning rate) (is |stays |of )?(0|zero)\b.{0,60}"
            r"(during|before|through(out)?) (the )?warm.?up",
            r"step ?/ ?warmup .{0,40}(round\w*|truncat\w*|floor\w*)",
        ),
        (
            r"step - 1|one step (late|early)|shifted",
            r"warmup ?\*\* ?-0\.5 instead",
            r"(no|without) (the )?d_model",
            r"(min|cap\w*)\(step, warmup\)|no decay",
        ),
        edits=[
            (
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "return d_model**-0.5 * min(step**-0.5, (step // warmup) * warmup**-0.5)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 10 label_smoothed_loss
    # blind14a-ls-gather-on-pad-labels left out after the run: gathering at the pad labels
    # before masking is right for every pad_id inside the vocabulary, as in every use in the
    # course; generalisation.py lists it with the reason.
    # _c(
    #     "ls-gather-on-pad-labels",
    #     L10,
    #     "label_smoothed_loss",
    #     "gathers -log p[y] with the labels as they are, pad positions included, and drops "
    #     "the pads only afterwards: right while pad_id is a valid token index (0 <= pad_id "
    #     "< V), but gather raises (index out of bounds) for a pad_id outside the "
    #     "vocabulary, such as -100 or V.",
    #     (
    #         r"(pad_id|pad labels?|padding labels?|pad positions?).{0,80}"
    #         r"(out of range|out of bounds|not a valid index|invalid index|outside)",
    #         r"gather.{0,80}(pad|pad_id|-100|negative)",
    #         r"(gather|pad).{0,120}out of bounds|out of bounds.{0,120}(gather|pad)",
    #         r"(replace|substitute|mask)\w* .{0,30}pad (labels?|ids?).{0,60}"
    #         r"(valid index|0|before (the )?gather)",
    #     ),
    #     (
    #         r"pad(ding)? .{0,30}(not excluded|included in the mean|counted)",
    #         r"(labels?|pad ids?).{0,40}(in place|overwritten|modified)",
    #         r"0.{0,20}(hard.?coded|written in)",
    #     ),
    #     edits=[
    #         (
    #             "safe_labels = labels.masked_fill(~keep, 0)  # any valid index where the label "
    #             "is pad\n"
    #             "    target = -log_probs.gather(-1, safe_labels[..., None]).squeeze(-1)",
    #             "target = -log_probs.gather(-1, labels[..., None]).squeeze(-1)",
    #         )
    #     ],
    #     source=GATHER_IGNORE_INDEX_OUT_OF_BOUNDS,
    # ),
    _c(
        "ls-fill-mask-not-inverted",
        L10,
        "label_smoothed_loss",
        "replaces the labels with labels.masked_fill(keep, 0) instead of masked_fill(~keep, "
        "0): the real labels become 0 and the pad labels stay, so the target term scores "
        "token 0 at every real position instead of the right token.",
        (
            r"masked_fill\(keep|~keep",
            r"(real|non-?pad|actual) (labels?|positions?).{0,60}"
            r"(replaced|overwritten|set|turned|become) .{0,20}(by |to |with )?(0|zero|token 0)",
            r"(scores?|loss|log.?prob\w*) .{0,40}(token|id|class) 0 .{0,40}"
            r"(instead of|rather than) (the )?(right|true|correct) (token|label)",
        ),
        (
            r"mean .{0,40}(over )?(the )?pad positions",
            r"pad(ding)? .{0,30}(not excluded|included in the mean|counted)",
            r"smoothing .{0,40}(V - 1|other tokens)",
            r"(labels?).{0,40}(in place|overwritten in the caller)",
        ),
        edits=[
            (
                "safe_labels = labels.masked_fill(~keep, 0)",
                "safe_labels = labels.masked_fill(keep, 0)",
            )
        ],
    ),
    _c(
        "ls-log-probs-under-no-grad",
        L10,
        "label_smoothed_loss",
        "computes the log-probabilities inside torch.no_grad() (as evaluation code does, "
        "'the loss is only a number'): the value is right, but the returned loss has no "
        "grad_fn, so backward raises and nothing trains.",
        (
            r"no_grad",
            r"(no|without|does not have a|doesn't have a) grad_fn",
            r"(gradients?|backward) .{0,40}(cannot|can't|do(es)? not|don't|never) "
            r"(flow|reach|go through|pass)",
            r"detach\w*|not (attached|connected) to (the )?(graph|logits)",
            r"requires_grad.{0,20}False",
        ),
        (
            r"\.item\(\)|(a )?(Python )?float (instead|rather)",
            r"log\(softmax|log of (the )?softmax",
            r"in place",
        ),
        edits=[
            (
                "log_probs = torch.log_softmax(logits, dim=-1)  # (..., V), stable",
                "with torch.no_grad():  # the loss is only a number to report\n"
                "        log_probs = torch.log_softmax(logits, dim=-1)  # (..., V), stable",
            )
        ],
        source=NO_GRAD_FOR_LOSS,
    ),
    # ------------------------------------------------------------------ 10 train_step
    _c(
        "ts-batch-shifted-again",
        L10,
        "train_step",
        "shifts the target a second time inside the step, as tutorials do with an "
        "unshifted target (model(src, decoder_input[:, :-1]) and loss against "
        "labels[:, 1:]), although make_batches already shifted it: each position is trained "
        "to predict the token two places ahead, and the last column is never read.",
        (
            r"shift\w* .{0,40}(again|twice|a second time)",
            r"already .{0,40}shift",
            r"decoder_input\[:, ?:-1\]|labels\[:, ?1:\]",
            r"(two|2) (positions?|places?|tokens?) ahead|token after the next",
            r"(slic\w*|cut\w*|drop\w*) .{0,40}(decoder_input|labels|last (token|column)|"
            r"first (token|column))",
        ),
        (
            r"labels? .{0,30}(as|into|to) (the )?decoder",
            r"(against|compar\w* with) (the )?decoder_input",
            r"unpack\w*|order of the batch",
            r"model\(decoder_input, src\)|arguments? .{0,20}swapped",
        ),
        edits=[
            (
                "logits = model(src, decoder_input)  # (batch, len_tgt, tgt_vocab_size)\n"
                "    loss = loss_fn(logits, labels)",
                "logits = model(src, decoder_input[:, :-1])  # teacher forcing: all but the last\n"
                "    loss = loss_fn(logits, labels[:, 1:])  # each position predicts the next",
            )
        ],
        source=TARGET_SLICED_FOR_TEACHER_FORCING,
    ),
    _c(
        "ts-returns-item-method",
        L10,
        "train_step",
        "returns loss.item without calling it: the step itself is right, but the function "
        "returns a bound method, not the Python float loss.item() gives.",
        (
            r"(bound )?method",
            r"item\b.{0,30}(without|no|missing) (the )?(parentheses|brackets|call|\(\))",
            r"(not|never) called|forgot\w* to call",
        ),
        (
            r"(0-d |a )?tensor (instead|rather)",
            r"(after|recomputed after) (the )?(optimizer )?step",
            r"detach",
        ),
        edits=[("return loss.item()", "return loss.item  # the loss as a number")],
    ),
    _c(
        "ts-manual-clip-sum-of-norms",
        L10,
        "train_step",
        "clips by hand with the sum of the parameters' gradient 2-norms as the total norm "
        "(sum(g.norm() for g in grads)) instead of the 2-norm of all gradients together "
        "(the square root of the sum of their squared norms): the total is overestimated, "
        "so the gradients are scaled down too much, and also when they are within "
        "clip_norm.",
        (
            r"sum of (the )?(per.?parameter |each parameter'?s? |individual |their )?"
            r"(gradient )?(2-)?norms",
            r"(add|sum)\w* (up )?(the )?(per.?parameter |individual )?norms",
            r"sqrt.{0,40}(sum of squares|squared norms)|root of the sum of (the )?squares",
            r"norm of (the )?norms",
        ),
        (
            r"(clip\w*|rescal\w*|scal\w*) each parameter('s gradient)? "
            r"(on its own|separately|individually)",
            r"1-norm|L1|norm_type",
            r"clip_grad_value_|(clamp\w*|clip\w*) (each|every) (gradient )?(entry|value|element)",
            r"scales? up|without min",
        ),
        edits=[
            (
                "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
                "grads = [p.grad for p in model.parameters() if p.grad is not None]\n"
                "        total = sum(g.norm() for g in grads)  # the total norm of the gradients\n"
                "        scale = min(1.0, clip_norm / (float(total) + 1e-6))\n"
                "        for g in grads:\n"
                "            g.mul_(scale)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 10 translation_scores
    _c(
        "tsc-hypotheses-split-into-words",
        L10,
        "translation_scores",
        "splits each hypothesis into a list of words before corpus_bleu (the input NLTK's "
        "BLEU wants), but sacrebleu takes whole strings and tokenises them itself: "
        "corpus_bleu raises TypeError (each element of hyps should be a string).",
        (
            r"lists? of (words|tokens)|split\(\)|tokeni[sz]ed",
            r"(strings?|str)\b.{0,60}(not|instead of|rather than) (lists?|tokens)",
            r"Each element of .?hyps.? should be a string",
            r"nltk",
        ),
        (
            r"streams?.{0,40}(not transposed|per sentence|as they come)",
            r"(wrapped|wrap) .{0,20}in a list",
            r"lowercase",
            r"sentence_bleu|mean of (per-)?sentence",
        ),
        edits=[
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                "words = [h.split() for h in hypotheses]  # BLEU counts words\n"
                "    bleu = sacrebleu.corpus_bleu(words, streams).score",
            )
        ],
        source=SACREBLEU_TOKENIZED_HYPOTHESES,
    ),
    # ------------------------------------------------------------------ 10 beam_search
    _c(
        "bs-pad-sequence-without-batch-first",
        L10,
        "beam_search",
        "pads the chosen token lists with torch.nn.utils.rnn.pad_sequence(rows, "
        "padding_value=model.pad_id) without batch_first=True: pad_sequence's default is "
        "sequence-first, so the result is (n, batch), the transpose of greedy_decode's "
        "(batch, n).",
        (
            r"batch_first",
            r"transposed|\(n, batch\)|\(length, batch\)|sequence.?first|"
            r"(rows|axes|dimensions) .{0,20}swapped",
            r"pad_sequence",
        ),
        (
            r"torch\.stack",
            r"pad\w* with 0 (instead|rather)",
            r"(without|drops?) (the )?<eos>",
        ),
        edits=[
            (
                "width = max(len(tokens) for tokens in results)\n"
                "    out = torch.full((len(results), width), model.pad_id, dtype=torch.long)\n"
                "    for row, tokens in enumerate(results):\n"
                "        out[row, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)\n"
                "    return out",
                "rows = [torch.tensor(tokens, dtype=torch.long) for tokens in results]\n"
                "    return torch.nn.utils.rnn.pad_sequence(rows, padding_value=model.pad_id)",
            )
        ],
        source=BATCH_FIRST_FORGOTTEN,
    ),
    _c(
        "bs-raw-logits-as-scores",
        L10,
        "beam_search",
        "adds the raw logits of the last position to the hypotheses' scores instead of "
        "their log_softmax: logits are not normalised per hypothesis, so candidates from "
        "different parents are compared on different scales and the scores are not "
        "log-probabilities (the beam, the stopping rule and the answer change).",
        (
            r"log_softmax",
            r"(raw )?logits.{0,60}(instead of|not|rather than) .{0,20}log.?"
            r"(probabilities|probs|softmax)",
            r"(not |un)normali[sz]ed.{0,40}(logits|scores)",
            r"log.?probabilit\w+.{0,40}(missing|not computed|never)",
        ),
        (
            r"(sum|add)\w* (of )?probabilities|softmax (instead|rather)",
            r"(product|multipl\w*) .{0,20}probabilities",
            r"not accumulated|last token'?s? (log.?prob\w*|score) (alone|only)",
            r"log_softmax.{0,40}(axis|dim)\s*(=\s*)?0|over the beam",
        ),
        edits=[
            (
                "log_probs = torch.log_softmax(logits[:, -1], dim=-1)  # (k, vocab)",
                "log_probs = logits[:, -1]  # (k, vocab): the next token's scores",
            )
        ],
        source=BEAM_WITHOUT_LOG_SOFTMAX,
    ),
    _c(
        "bs-hypotheses-fed-without-bos",
        L10,
        "beam_search",
        "stacks the live hypotheses into the decoder's input without <bos> in front "
        "(torch.tensor([t for t, _ in beam])): at the first step the only hypothesis is "
        "empty, so the input is a (1, 0) float tensor and decode fails; the decoder must "
        "read <bos> followed by the tokens so far.",
        (
            r"<bos>.{0,60}(missing|not (in front|prepended|added)|left out|forg[eo]t)",
            r"(without|no) (the )?<bos>|bos_id.{0,40}(never used|not used|ignored)",
            r"(empty|no tokens?|length 0|zero.?length).{0,60}(decoder|decode|hypothes\w+|input)",
        ),
        (
            r"first position|logits\[:, ?0\]",
            r"(start\w* from|starts with) (beam_size|k) copies",
            r"dtype=torch\.long|(float|floating).{0,30}(ids|tokens)",
        ),
        edits=[
            (
                "tokens = torch.tensor([[bos_id, *t] for t, _ in beam])",
                "tokens = torch.tensor([t for t, _ in beam])",
            )
        ],
    ),
    _c(
        "bs-float-output-buffer",
        L10,
        "beam_search",
        "builds the output as torch.ones(batch, width) * model.pad_id, a float32 tensor, "
        "and writes the chosen tokens into it: the ids and the padding are right, but the "
        "result is float32 instead of the int64 tensor greedy_decode returns.",
        (
            r"float(32)?.{0,60}(instead of|not|rather than) .{0,10}(int64|long|integer)",
            r"dtype.{0,40}(float|torch\.float32)",
            r"torch\.ones\(|(int64|long|integer) (tensor|dtype).{0,40}(expected|asked|required)",
        ),
        (
            r"pad\w* with 0",
            r"torch\.stack",
            r"(python )?list (instead|rather)",
        ),
        edits=[
            (
                "out = torch.full((len(results), width), model.pad_id, dtype=torch.long)",
                "out = torch.ones(len(results), width) * model.pad_id  # padding first",
            )
        ],
    ),
]
