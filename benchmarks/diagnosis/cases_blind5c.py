"""Held-out wrong answers for lessons 09-10, blind round 4 (helper b5c, 2026-11-26).

Written blind: without reading the checks of lessons 09-10 or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Half of them transpose a mistake reported in a public issue thread (the URL read for
this benchmark) to the course's exercise; the others are the author's.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out

AUTHOR = "author: written for this benchmark, no public report cited"

L09, L10 = "09_transformer", "10_training"

# The reports these cases transpose (each read with the search tool for this benchmark).
DECODE_ARGS = "https://github.com/harvardnlp/annotated-transformer/issues/134"
LR_ZERO_FIRST = "https://github.com/karpathy/nanoGPT/pull/578"
LR_SHIFTED = "https://github.com/tugstugi/pytorch-saltnet/issues/7"
DOUBLE_SHIFT = "https://github.com/huggingface/transformers/issues/46901"
LABELS_MINUS_100 = "https://github.com/huggingface/transformers/issues/9909"
PAD_COLUMN = "https://github.com/harvardnlp/annotated-transformer/issues/39"
KL_LOSS = "https://github.com/chenjunyi1999/Translator-Transformer/issues/1"
UNSHIFTED_TARGET = "https://github.com/Project-MONAI/GenerativeModels/issues/314"
REFS_TRANSPOSED = "https://github.com/mjpost/sacrebleu/issues/220"
REFS_UNWRAPPED = "https://github.com/mjpost/sacrebleu/issues/272"


def _c(id_, lesson, exercise, cause, named, misnamed=(), edits=(), source=AUTHOR):
    return _held_out(id_, lesson, exercise, cause, source, named, misnamed, edits)


_held_out = held_out("blind5c")


BLIND5C: list[Case] = [
    # ---- lesson 09: Transformer
    _c(
        "tr-decoder-args-swapped",
        L09,
        "Transformer",
        "decode passes the decoder its arguments in the wrong order: the encoder's memory "
        "as the target stream and the target embeddings as the memory.",
        (
            r"memory.{0,80}(target|decoder input|\by\b|swap|order)",
            r"(swap|order|exchang).{0,60}(argument|memory)",
            r"argument order",
            r"first argument",
        ),
        (r"look-?ahead", r"positional encoding", r"\btie"),
        edits=[
            (
                "y = self.decoder(y, memory, src_mask, tgt_mask)",
                "y = self.decoder(memory, y, src_mask, tgt_mask)",
            )
        ],
        source=DECODE_ARGS,
    ),
    _c(
        "tr-tie-no-vocab-check",
        L09,
        "Transformer",
        "never raises ValueError when tie_embeddings is asked for with two different "
        "vocabulary sizes.",
        (r"ValueError", r"(vocab|vocabular).{0,60}(differ|same|shared|equal|!=)", r"raise"),
        (r"positional", r"mask"),
        edits=[
            (
                "raise ValueError(\n"
                '                "tie_embeddings needs a shared vocabulary: src_vocab_size "\n'
                '                f"{src_vocab_size} != tgt_vocab_size {tgt_vocab_size}"\n'
                "            )",
                "pass",
            )
        ],
    ),
    # ---- lesson 09: count_parameters
    _c(
        "count-heads-full-width",
        L09,
        "count_parameters",
        "counts each head's projection as a full d_model x d_model matrix (d_model * "
        "d_model * num_heads) instead of d_model x d_head.",
        (r"head", r"d_head", r"d_model ?// ?num_heads", r"attention"),
        (r"bias", r"LayerNorm", r"tied|tie_embeddings"),
        edits=[
            (
                "attention = 4 * (d_model * num_heads * d_head + d_model)",
                "attention = 4 * (d_model * d_model * num_heads + d_model)",
            )
        ],
    ),
    _c(
        "count-decoder-two-norms",
        L09,
        "count_parameters",
        "gives a decoder layer two LayerNorms, like an encoder layer, instead of three "
        "(one per sub-layer).",
        (
            r"(three|3).{0,40}(LayerNorm|norm)",
            r"(LayerNorm|norm).{0,60}decoder",
            r"decoder.{0,80}(LayerNorm|norm)",
        ),
        (r"bias of the attention", r"w_o", r"tied|tie_embeddings"),
        edits=[
            (
                "decoder_layer = 2 * attention + feed_forward + 3 * layer_norm",
                "decoder_layer = 2 * attention + feed_forward + 2 * layer_norm",
            )
        ],
    ),
    _c(
        "count-tied-output-nothing",
        L09,
        "count_parameters",
        "counts nothing for the output layer when the embeddings are tied, forgetting "
        "its bias (vocab_size), which is not shared.",
        (r"bias", r"output.{0,60}(tied|tie)"),
        (r"LayerNorm", r"head"),
        edits=[('"output": vocab_size if tie_embeddings', '"output": 0 if tie_embeddings')],
    ),
    # ---- lesson 09: greedy_decode
    _c(
        "greedy-eos-overwritten",
        L09,
        "greedy_decode",
        "updates `finished` before padding, so the <eos> a row has just produced is itself "
        "replaced by pad_id and never appears in the output.",
        (
            r"<?eos>?.{0,80}(pad|replac|overwrit|missing|lost|dropp)",
            r"(include|keep).{0,40}<?eos",
            r"up to and including",
        ),
        (r"first position", r"<bos>", r"stops? the (whole )?batch"),
        edits=[
            (
                "next_token = next_token.masked_fill(finished, model.pad_id)\n"
                "            tokens = torch.cat([tokens, next_token[:, None]], dim=1)\n"
                "            finished = finished | (next_token == eos_id)",
                "finished = finished | (next_token == eos_id)\n"
                "            next_token = next_token.masked_fill(finished, model.pad_id)\n"
                "            tokens = torch.cat([tokens, next_token[:, None]], dim=1)",
            )
        ],
    ),
    _c(
        "greedy-last-token-only",
        L09,
        "greedy_decode",
        "feeds the decoder only the last generated token at each step (an RNN habit) "
        "instead of the whole prefix generated so far.",
        (
            r"(only|just) the (last|latest|previous|newest) token",
            r"whole (prefix|sequence)",
            r"(every|all) (the )?tokens? (generated )?so far",
            r"prefix",
        ),
        (r"<bos>", r"argmax over", r"first position"),
        edits=[
            (
                "logits = model.decode(tokens, memory, src_ids)",
                "logits = model.decode(tokens[:, -1:], memory, src_ids)",
            )
        ],
    ),
    _c(
        "greedy-float-bos",
        L09,
        "greedy_decode",
        "builds the <bos> column with torch.full and no dtype, so the token ids are floats "
        "(the embedding refuses them or the output is float).",
        (r"float", r"dtype", r"int64", r"\blong\b", r"integer"),
        (r"<bos>.{0,30}(missing|pad)", r"argmax"),
        edits=[
            (
                "tokens = torch.full((batch, 1), bos_id, dtype=torch.long)",
                "tokens = torch.full((batch, 1), float(bos_id))",
            )
        ],
    ),
    # ---- lesson 10: make_batches
    _c(
        "batches-labels-double-shift",
        L10,
        "make_batches",
        "shifts the labels twice: labels = target[1:] + [eos], so each position is trained "
        "to predict the token after the next one (the first target token is never a label).",
        (
            r"shift",
            r"(skip|drop|miss|lose|lost).{0,40}(first|token)",
            r"one (position|token|step) (too far|ahead|early|late)",
            r"off[- ]by[- ]one",
            r"target ids \+ \[eos",
        ),
        (r"<bos>.{0,30}labels", r"left", r"drop(ped|s)? the last batch"),
        edits=[
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([[*target[1:], eos_id] for _, target in chunk], pad_id)",
            )
        ],
        source=DOUBLE_SHIFT,
    ),
    _c(
        "batches-labels-pad-minus-100",
        L10,
        "make_batches",
        "pads the labels with -100 (Hugging Face's ignore_index convention) instead of pad_id.",
        (r"-100", r"pad_id", r"ignore_index", r"padd(ed|ing) (value|with)"),
        (r"left", r"<bos>", r"shift"),
        edits=[
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], -100)",
            )
        ],
        source=LABELS_MINUS_100,
    ),
    _c(
        "batches-shuffle-in-place",
        L10,
        "make_batches",
        "shuffles the caller's list of pairs in place with random.Random(seed).shuffle, "
        "which the docstring forbids.",
        (r"modif", r"mutat", r"in[- ]place", r"caller", r"changed the (list|pairs)"),
        (r"global random", r"seed.{0,30}ignor"),
        edits=[
            (
                "order = torch.randperm(len(pairs), generator=generator).tolist()",
                "import random\n\n        random.Random(seed).shuffle(pairs)",
            )
        ],
    ),
    # ---- lesson 10: noam_lr
    _c(
        "noam-zero-at-first-step",
        L10,
        "noam_lr",
        "the warm-up branch uses (step - 1), so the first optimizer step (step 1) gets a "
        "learning rate of 0 and the ramp lags one step.",
        (
            r"step 1",
            r"first (optimizer )?step",
            r"off[- ]by[- ]one",
            r"step ?- ?1",
            r"one step (late|behind)",
        ),
        (r"d_model", r"\bmax\b", r"warmup ?\*\* ?-?0\.5"),
        edits=[("step * warmup**-1.5", "(step - 1) * warmup**-1.5")],
        source=LR_ZERO_FIRST,
    ),
    _c(
        "noam-shifted-one-step",
        L10,
        "noam_lr",
        "shifts the schedule by one step (uses max(step - 1, 1)), so steps 1 and 2 get "
        "the same rate and the peak comes one step late.",
        (
            r"off[- ]by[- ]one",
            r"one step (late|behind|later)",
            r"shift",
            r"step ?- ?1",
            r"steps? (count|start)s? from",
        ),
        (r"d_model", r"\bmax of\b", r"warmup ?\*\* ?-?0\.5"),
        edits=[("step = max(step, 1)", "step = max(step - 1, 1)")],
        source=LR_SHIFTED,
    ),
    # ---- lesson 10: label_smoothed_loss
    _c(
        "loss-pad-column-excluded",
        L10,
        "label_smoothed_loss",
        "spreads the smoothing over V - 2 tokens, leaving out the pad column and the right "
        "token (the Annotated Transformer's LabelSmoothing), instead of over all V tokens.",
        (
            r"V ?- ?2",
            r"pad.{0,40}(column|class|entry|token'?s? probability)",
            r"all V tokens",
            r"(every|all) (the )?V",
        ),
        (r"denominator", r"softmax (twice|before)", r"\.item"),
        edits=[
            (
                "uniform = -log_probs.mean(dim=-1)  # (...): mean over all V tokens of -log p[j]",
                "others = -log_probs.sum(dim=-1) + log_probs[..., pad_id] - target\n"
                "    uniform = others / (log_probs.shape[-1] - 2)",
            )
        ],
        source=PAD_COLUMN,
    ),
    _c(
        "loss-kl-not-cross-entropy",
        L10,
        "label_smoothed_loss",
        "returns the KL divergence to the smoothed distribution (the Annotated "
        "Transformer's KLDivLoss), which is the cross-entropy minus the target's "
        "entropy: off by a constant.",
        (r"\bKL\b", r"entropy of", r"constant", r"offset", r"KLDiv"),
        (r"denominator", r"V ?- ?1", r"\.item"),
        edits=[
            (
                "return loss[keep].mean()",
                "V = log_probs.shape[-1]\n"
                "    q_y = torch.tensor(1 - smoothing + smoothing / V)\n"
                "    q_j = torch.tensor(smoothing / V)\n"
                "    entropy = -(torch.xlogy(q_y, q_y) + (V - 1) * torch.xlogy(q_j, q_j))\n"
                "    return loss[keep].mean() - entropy",
            )
        ],
        source=KL_LOSS,
    ),
    # ---- lesson 10: train_step
    _c(
        "step-labels-as-decoder-input",
        L10,
        "train_step",
        "feeds the labels to the decoder instead of decoder_input, so at every position "
        "the model sees the very token it must predict.",
        (
            r"decoder_input",
            r"labels.{0,60}(decoder|input)",
            r"teacher forcing",
            r"(sees?|reads?) the (token|answer)",
        ),
        (r"zero_grad", r"clip", r"train\(\)|training mode"),
        edits=[
            (
                "logits = model(src, decoder_input)",
                "logits = model(src, labels)",
            )
        ],
        source=UNSHIFTED_TARGET,
    ),
    _c(
        "step-clip-before-backward",
        L10,
        "train_step",
        "clips the gradients before loss.backward(), when they are still zero, so the "
        "clipping does nothing to the step's gradients.",
        (
            r"clip.{0,60}before.{0,30}backward",
            r"backward.{0,60}(before|then).{0,30}clip",
            r"clip.{0,80}(order|after backward)",
        ),
        (r"after (the )?optimizer\.step", r"clip_grad_value", r"per[- ]parameter"),
        edits=[
            (
                "loss.backward()\n"
                "    if clip_norm is not None:\n"
                "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
                "if clip_norm is not None:\n"
                "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n"
                "    loss.backward()",
            )
        ],
    ),
    # ---- lesson 10: translation_scores
    _c(
        "scores-references-not-transposed",
        L10,
        "translation_scores",
        "passes the references to sacrebleu as they come (one list per sentence) instead "
        "of reference streams (the j-th reference of every sentence).",
        (r"stream", r"transpos", r"j-th reference", r"one list per sentence", r"per sentence"),
        (r"0-100|0 to 100|scale", r"exact"),
        edits=[
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                "bleu = sacrebleu.corpus_bleu(hypotheses, references).score",
            )
        ],
        source=REFS_TRANSPOSED,
    ),
    _c(
        "scores-single-stream-unwrapped",
        L10,
        "translation_scores",
        "gives sacrebleu the first reference of each sentence as a flat list of strings, "
        "not wrapped in a list of streams (and leaves out the other references).",
        (
            r"stream",
            r"(wrap|list of lists|\[refs\])",
            r"(every|all|other) references?",
            r"first reference",
        ),
        (r"0-100|0 to 100|scale", r"exact"),
        edits=[
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                "bleu = sacrebleu.corpus_bleu(hypotheses, [refs[0] for refs in references]).score",
            )
        ],
        source=REFS_UNWRAPPED,
    ),
    _c(
        "scores-exact-first-reference",
        L10,
        "translation_scores",
        "counts an exact match only against each sentence's first reference, not against "
        "any of its references.",
        (
            r"(any|at least one|one of) (of )?(its |the |their )?references",
            r"first reference",
            r"(every|all|other) references",
            r"refs\[0\]",
        ),
        (r"0-100|0 to 100|scale", r"stream"),
        edits=[
            (
                "exact = sum(h in refs for h, refs in zip(hypotheses, references))",
                "exact = sum(h == refs[0] for h, refs in zip(hypotheses, references))",
            )
        ],
    ),
]
