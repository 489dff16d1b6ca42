"""Held-out wrong answers for lessons 09-10, blind round 16 (helper b16a, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 18's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 20 cases over the
nine coded exercises and one question, all the author's (no public report was read in
the time given).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L09, L10 = "09_transformer", "10_training"

_c = held_out_authored("blind16a")

BLIND16A: list[Case] = [
    # ------------------------------------------------------------------ 09 Transformer
    _c(
        "tr-decode-embeds-with-source-table",
        L09,
        "Transformer",
        "decode looks the target ids up in the source embedding (self.src_embedding(tgt_ids)) "
        "instead of self.tgt_embedding: the target table is never used, which shows when the "
        "model is not tied (wrong logits, and an index error when tgt ids reach past "
        "src_vocab_size).",
        (
            r"src_embedding\b.{0,80}(target|tgt)",
            r"(target|tgt)[ _](ids|tokens).{0,60}(source|src)[ _]embedding",
            r"tgt_embedding.{0,40}(never|not) (used|called)",
            r"source (embedding|table) (for|on) the target",
        ),
        (r"sqrt\(d_model\)", r"positional encoding (is )?(missing|not added)", r"look-ahead"),
        edits=(
            (
                "y = self.positional_encoding(self.tgt_embedding(tgt_ids))",
                "y = self.positional_encoding(self.src_embedding(tgt_ids))",
            ),
        ),
    ),
    _c(
        "tr-decoder-side-without-positions",
        L09,
        "Transformer",
        "adds no positional encoding on the decoder side: decode embeds the target and hands it "
        "to the decoder without self.positional_encoding (the encoder side has it), so the "
        "decoder's self-attention cannot tell the target positions apart.",
        (
            r"(no|without|missing|skips?|leaves? out)( the)? position(al encoding|s)?.{0,60}(decod|target|tgt)",
            r"(decod|target|tgt).{0,60}(no|without|missing|skips?)( the)? position",
            r"positional_encoding.{0,60}(target|tgt|decode)",
        ),
        (r"sqrt\(d_model\)", r"look-ahead", r"encoder side.{0,30}(no|without) position"),
        edits=(
            (
                "y = self.positional_encoding(self.tgt_embedding(tgt_ids))",
                "y = self.tgt_embedding(tgt_ids)",
            ),
        ),
    ),
    _c(
        "tr-ties-output-to-target-only",
        L09,
        "Transformer",
        "ties only the output layer to the target embedding (the GPT-style two-way tie, "
        "self.output.weight = self.tgt_embedding.embedding.weight) and leaves src_embedding "
        "with its own matrix: with tie_embeddings=True the model has two matrices where the "
        "paper shares one in three places.",
        (
            r"src_embedding.{0,80}(not|never|own|separate|isn't|is not) (tied|shared|the same)",
            r"source embedding.{0,60}(not|never) (tied|shared)",
            r"(two|2) (separate |distinct )?matri(x|ces).{0,40}(instead of|not) one",
            r"(three|all three) (places|modules).{0,60}(src_embedding|source)",
        ),
        (r"(copy|clone)", r"vocab(ulary)? sizes?.{0,30}(differ|ValueError)", r"transpos"),
        edits=(
            (
                "self.tgt_embedding.embedding.weight = self.src_embedding.embedding.weight\n"
                "            self.output.weight = self.src_embedding.embedding.weight",
                "self.output.weight = self.tgt_embedding.embedding.weight",
            ),
        ),
    ),
    # ------------------------------------------------------------ 09 count_parameters
    _c(
        "cp-output-bias-sized-d-model",
        L09,
        "count_parameters",
        "sizes the output layer's bias as d_model instead of vocab_size (the bias of "
        "nn.Linear(d_model, vocab_size) has out_features = vocab_size entries): 'output' is "
        "off by vocab_size - d_model, tied or not.",
        (
            r"output.{0,80}bias.{0,60}(vocab_size|out_features)",
            r"bias.{0,40}(vocab_size|out_features).{0,40}(not|instead of) d_model",
            r"bias.{0,30}(has|of) vocab_size",
        ),
        (
            r"counted twice",
            r"weight.{0,30}(again|twice)",
            r"LayerNorm.{0,30}(bias|gain|forg)",
            r"attention.{0,30}(bias|one head)",
        ),
        edits=(
            (
                '"output": vocab_size if tie_embeddings else table + vocab_size,',
                '"output": d_model if tie_embeddings else table + d_model,',
            ),
        ),
    ),
    _c(
        "cp-attention-bias-per-head",
        L09,
        "count_parameters",
        "counts each attention projection's bias as d_head entries (one head's share) while "
        "its weight is d_model x d_model: the four biases are d_model each, so every "
        "attention is 4 * (d_model - d_head) short.",
        (
            r"bias.{0,60}d_head",
            r"attention.{0,80}bias(es)?.{0,40}d_model",
            r"bias(es)? of (the )?(w_q|projections?).{0,40}d_model",
        ),
        (
            r"LayerNorm.{0,30}(bias|gain|forg)",
            r"feed-forward.{0,30}(bias|forg)",
            r"output (layer|bias).{0,30}(vocab|d_model|twice)",
            r"num_heads times",
        ),
        edits=(
            (
                "attention = 4 * (d_model * num_heads * d_head + d_model)",
                "attention = 4 * (d_model * num_heads * d_head + d_head)",
            ),
        ),
    ),
    # --------------------------------------------------------------- 09 greedy_decode
    _c(
        "gd-starts-from-eos",
        L09,
        "greedy_decode",
        "fills the start column with eos_id instead of bos_id (the two ids swapped in "
        "torch.full): every row starts from <eos>, so the decoder conditions on the wrong "
        "first token.",
        (
            r"start.{0,60}(<eos>|eos_id)",
            r"(<eos>|eos_id).{0,40}instead of (<bos>|bos_id)",
            r"bos_id and eos_id.{0,30}swapped",
            r"first (token|column).{0,40}(<eos>|eos_id)",
        ),
        (r"pad_id instead", r"last position", r"argmax over"),
        edits=(
            (
                "tokens = torch.full((batch, 1), bos_id, dtype=torch.long)",
                "tokens = torch.full((batch, 1), eos_id, dtype=torch.long)",
            ),
        ),
    ),
    _c(
        "gd-result-cut-at-max-len",
        L09,
        "greedy_decode",
        "returns tokens[:, 1:max_len] to 'keep at most max_len tokens', but tokens has <bos> "
        "in front, so the slice drops the last generated token whenever the loop ran max_len "
        "steps: a row that never writes <eos> gets max_len - 1 tokens.",
        (
            r"max_len - 1",
            r"(one|a) (token|column) (short|too few|missing)",
            r"last (generated )?(token|column).{0,40}(dropped|missing|cut)",
            r"1:max_len",
        ),
        (r"keeps? <bos>", r"no early stop", r"max_len \+ 1"),
        edits=(("return tokens[:, 1:]  # drop <bos>", "return tokens[:, 1:max_len]"),),
    ),
    # ------------------------------------------------------------------ 10 make_batches
    _c(
        "mb-pair-unpacked-target-first",
        L10,
        "make_batches",
        "unpacks each (source, target) pair in the wrong order (for target, source in chunk), "
        "so src holds the targets and decoder_input/labels are built from the sources: the "
        "batches translate in the wrong direction.",
        (
            r"(source|src).{0,40}(target|tgt).{0,20}swapped",
            r"(wrong|reverse|opposite) direction",
            r"src.{0,60}(holds|is|contains) the targets?",
            r"(pair|tuple).{0,40}(wrong order|target first|\(target, source\))",
        ),
        (r"shuffl", r"<bos>.{0,30}labels", r"decoder_input and labels.{0,20}swapped"),
        edits=(
            (
                "src = pad_batch([list(source) for source, _ in chunk], pad_id)",
                "src = pad_batch([list(source) for _, source in chunk], pad_id)",
            ),
            (
                "decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)",
                "decoder_input = pad_batch([[bos_id, *target] for target, _ in chunk], pad_id)",
            ),
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([[*target, eos_id] for target, _ in chunk], pad_id)",
            ),
        ),
    ),
    # blind16a-mb-tensors-int32 left out after the run: int32 tensors are accepted on purpose (integer tensors, numpy integer arrays too); generalisation.py lists it
    # _c(
    #     "mb-tensors-int32",
    #     L10,
    #     "make_batches",
    #     "converts the padded arrays with torch.tensor(a, dtype=torch.int32) instead of "
    #     "torch.from_numpy (int64): every batch tensor is int32 where the contract (and "
    #     "cross-entropy's labels) want int64.",
    #     (
    #         r"int32.{0,60}(int64|torch\.long)",
    #         r"int64.{0,40}(not|instead of) int32",
    #         r"dtype.{0,40}int32",
    #     ),
    #     (r"shuffl", r"<bos>", r"<eos>", r"numpy array"),
    #     edits=(
    #         (
    #             "batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, labels)))",
    #             "batches.append(\n"
    #             "            tuple(torch.tensor(a, dtype=torch.int32) for a in (src, decoder_input, labels))\n"
    #             "        )",
    #         ),
    #     ),
    # ),
    # ----------------------------------------------------------------------- 10 noam_lr
    _c(
        "noam-clamp-with-min",
        L10,
        "noam_lr",
        "guards step 0 with min(step, 1) instead of max(step, 1): every step becomes step 1 "
        "(or 0), so the rate is the same tiny value at every step (or a ZeroDivisionError at "
        "step 0) instead of the warm-up and decay.",
        (
            r"min\(step, 1\)",
            r"max\(step, 1\)",
            r"(every|each) step.{0,40}(step 1|the same|constant)",
            r"clamp",
        ),
        (r"warmup \*\* -0\.5", r"d_model \*\* 0\.5", r"swapped"),
        edits=(("step = max(step, 1)", "step = min(step, 1)"),),
    ),
    _c(
        "noam-warmup-term-step-and-warmup-swapped",
        L10,
        "noam_lr",
        "writes the warm-up term as warmup * step ** -1.5 instead of step * warmup ** -1.5: "
        "before warmup that term is larger than step ** -0.5, so min() always picks the decay "
        "and the rate falls from step 1 with no warm-up (both terms meet at step = warmup).",
        (
            r"warmup \* step \*\* -1\.5",
            r"step \* warmup \*\* -1\.5",
            r"(no|without( a)?|missing) warm-?up",
            r"step and warmup.{0,30}swapped",
        ),
        (r"d_model and warmup", r"d_model \*\* 0\.5", r"factor"),
        edits=(
            (
                "min(step**-0.5, step * warmup**-1.5)",
                "min(step**-0.5, warmup * step**-1.5)",
            ),
        ),
    ),
    # --------------------------------------------------------- 10 label_smoothed_loss
    _c(
        "ls-mean-of-row-means",
        L10,
        "label_smoothed_loss",
        "averages the loss over each row's real positions and then over the rows (a mean of "
        "per-sentence means) instead of one mean over all real positions: rows with more "
        "padding weigh more, which shows when the rows have different numbers of pads.",
        (
            r"mean of (per-?(row|sentence) )?means",
            r"per-?(row|sentence) (mean|average)",
            r"(one|a single) mean over (all )?(the )?(real|non-pad)",
            r"rows? with (more|fewer) (pad|real)",
        ),
        (r"smoothing / \(?V - 1", r"log_softmax", r"sum.{0,20}instead of.{0,20}mean"),
        edits=(
            (
                "return loss[keep].mean()",
                "per_row = (loss * keep).sum(dim=-1) / keep.sum(dim=-1)\n    return per_row.mean()",
            ),
        ),
    ),
    _c(
        "ls-smoothing-term-summed",
        L10,
        "label_smoothed_loss",
        "sums -log p[j] over the vocabulary in the smoothing term (-log_probs.sum(dim=-1)) "
        "instead of taking its mean: the smoothing term is V times too large.",
        (
            r"sum.{0,60}instead of.{0,20}mean",
            r"mean over (the |all )?(V|vocab)",
            r"\bV times",
            r"(divide|/).{0,20}\bV\b",
        ),
        (r"V - 1", r"weights? swapped", r"pad (positions?|labels?) (counted|included)"),
        edits=(
            (
                "uniform = -log_probs.mean(dim=-1)",
                "uniform = -log_probs.sum(dim=-1)",
            ),
        ),
    ),
    # ----------------------------------------------------------------- 10 quiz_loss_floor
    _c(
        "qlf-answer-in-bits",
        L10,
        "quiz_loss_floor",
        "computes the floor (the entropy of the smoothed target) with base-2 logarithms and "
        "answers 0.722 bits instead of 0.500 nats.",
        (
            r"natural log",
            r"\bnats?\b",
            r"log(arithm)?s? (base|in base) 2",
            r"\bbits?\b",
            r"log2",
            r"\bln\b",
        ),
        (r"\b0\.0\b.{0,30}(floor|one-hot)", r"3 decimals"),
        edits=(("return 0.500", "return 0.722"),),
    ),
    # --------------------------------------------------------------------- 10 train_step
    _c(
        "ts-logits-detached",
        L10,
        "train_step",
        "detaches the model's output (logits = model(src, decoder_input).detach(), to save "
        "memory) before the loss: the loss has no graph back to the parameters, so "
        "loss.backward() raises (it does not require grad) and nothing is trained.",
        (
            r"detach",
            r"(no|without( a)?) graph",
            r"(cut|break)s? the graph",
        ),
        (r"no_grad", r"eval mode", r"zero_grad", r"returns? (a|the) (loss )?tensor"),
        edits=(
            (
                "logits = model(src, decoder_input)  # (batch, len_tgt, tgt_vocab_size)",
                "logits = model(src, decoder_input).detach()",
            ),
        ),
    ),
    _c(
        "ts-zero-grad-only-when-clipping",
        L10,
        "train_step",
        "clears the gradients inside the clipping branch (an indentation slip): with "
        "clip_norm=None optimizer.zero_grad() is never called, so each step adds the previous "
        "steps' gradients; only the second step on shows it.",
        (
            r"zero_grad.{0,80}(clip_norm=None|clip_norm is None|only when clip)",
            r"(clip_norm=None|clip_norm is None|without clipping).{0,80}(accumulat|not cleared|never cleared|zero_grad)",
            r"gradients? (accumulat|add up|are not cleared|never cleared)",
        ),
        (r"clip.{0,30}(after|before) (backward|step)", r"eval mode", r"clip_grad_value"),
        edits=(
            (
                "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n"
                "    optimizer.step()\n"
                "    optimizer.zero_grad()",
                "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n"
                "        optimizer.step()\n"
                "        optimizer.zero_grad()\n"
                "    else:\n"
                "        optimizer.step()",
            ),
        ),
    ),
    # ------------------------------------------------------------- 10 translation_scores
    # blind16a-tsc-holes-filled-with-first-reference left out after the run: a right answer (BLEU does not change); generalisation.py lists it
    # _c(
    #     "tsc-holes-filled-with-first-reference",
    #     L10,
    #     "translation_scores",
    #     "fills the holes of the reference streams with the sentence's first reference "
    #     "(refs[0]) instead of None: a sentence with fewer references gets its first one "
    #     "again as an extra reference, which changes BLEU when the reference lists differ "
    #     "in length.",
    #     (
    #         r"hole.{0,60}None",
    #         r"None.{0,60}(hole|missing|fewer)",
    #         r"(first|repeated|duplicat).{0,40}reference.{0,40}(hole|missing|fewer|again)",
    #     ),
    #     (r"empty string", r"zip\(", r"lowercase", r"exact_match"),
    #     edits=(("refs[j] if j < len(refs) else None", "refs[j] if j < len(refs) else refs[0]"),),
    # ),
    _c(
        "tsc-bleu-on-one-joined-sentence",
        L10,
        "translation_scores",
        "joins all hypotheses into one string and each reference stream into one string "
        "before corpus_bleu (one 'sentence' for the whole corpus): n-grams then cross "
        "sentence boundaries and the brevity penalty is computed once, so BLEU differs from "
        "sacrebleu's corpus BLEU over the sentences.",
        (
            r"join",
            r"one (long )?(sentence|string)",
            r"(sentence|segment) boundar",
            r"(each|one) hypothesis per sentence",
        ),
        (r"sentence_bleu", r"average", r"streams? (not )?transpos", r"lowercase"),
        edits=(
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                "joined = [[' '.join(r for r in stream if r is not None)] for stream in streams]\n"
                "    bleu = sacrebleu.corpus_bleu([' '.join(hypotheses)], joined).score",
            ),
        ),
    ),
    # -------------------------------------------------------------------- 10 beam_search
    _c(
        "bs-answer-prefers-live-beam",
        L10,
        "beam_search",
        "picks the answer from max(beam or finished, ...) instead of max(finished or beam, "
        "...): the live hypotheses (without <eos>) win whenever any is left, so a finished "
        "translation is returned only when the beam is empty.",
        (
            r"finished or beam",
            r"beam or finished",
            r"(live|unfinished).{0,60}(instead of|over|before) (the )?finished",
            r"finished hypothes[ie]s.{0,40}(ignored|never (chosen|returned))",
        ),
        (r"length penalty", r"min\(", r"log_softmax over", r"instead of (model\.)?pad_id"),
        edits=(
            (
                "results.append(max(finished or beam, key=normalised)[0])",
                "results.append(max(beam or finished, key=normalised)[0])",
            ),
        ),
    ),
    _c(
        "bs-output-padded-with-eos",
        L10,
        "beam_search",
        "fills the output buffer with eos_id instead of model.pad_id, so shorter rows end "
        "with repeated <eos> ids after their own <eos> instead of pad ids.",
        (
            r"eos_id.{0,40}instead of.{0,20}pad",
            r"pad(_id| ids?).{0,40}(not|instead of).{0,20}(<eos>|eos_id)",
            r"(filled|padded) with (<eos>|eos_id)",
        ),
        (r"\b0 instead", r"float", r"batch_first"),
        edits=(
            (
                "out = torch.full((len(results), width), model.pad_id, dtype=torch.long)",
                "out = torch.full((len(results), width), eos_id, dtype=torch.long)",
            ),
        ),
    ),
]
