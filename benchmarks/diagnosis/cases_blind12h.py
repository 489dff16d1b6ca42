"""Held-out wrong answers for lessons 09-10, blind round 12, second batch (helper s12h,
2026-11-27): mistakes new to the benchmark, written after round 12's first fixes of these
lessons. 22 cases over the nine exercises; five transpose a mistake reported in public (the
URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L09, L10 = "09_transformer", "10_training"

# The reports these cases transpose (each read with the search tool for this benchmark).
GLOBAL_RNG_FOR_SHUFFLE = "https://github.com/sktime/pytorch-forecasting/pull/2148"
CLIP_NORM_TYPE = "https://github.com/espnet/espnet/pull/2399"
MASK_SIZED_BY_BATCH = "https://github.com/pytorch/pytorch/issues/115472"
ASSERT_NOT_VALUEERROR = "https://github.com/alubbock/thunor/pull/79"
LOSS_WRITTEN_FOR_2D = "https://github.com/fastai/fastai/pull/3189"

_c = held_out_authored("blind12h")

BLIND12H: list[Case] = [
    # ------------------------------------------------------------------ 09 Transformer
    _c(
        "tr-look-ahead-sized-by-batch",
        L09,
        "Transformer",
        "builds its own decoder mask from look_ahead_mask(tgt_ids.shape[0]), the batch size, "
        "instead of tgt_ids.shape[1], the target length (and the padding part): right only "
        "when the batch size equals len_tgt, otherwise the mask has the wrong size.",
        (
            r"shape\[0\]",
            r"batch (size|axis|dimension).{0,60}(instead of|not|rather than).{0,40}"
            r"(len_tgt|length|shape\[1\])",
            r"look-?ahead.{0,80}(size|sized|length).{0,40}batch",
        ),
        (r"source (padding )?mask|src_mask", r"\btied?\b", r"positional", r"\| .{0,20}&"),
        edits=[
            (
                "tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)",
                "tgt_mask = look_ahead_mask(tgt_ids.shape[0]) & padding_mask(tgt_ids, self.pad_id)",
            )
        ],
        source=MASK_SIZED_BY_BATCH,
    ),
    _c(
        "tr-heads-and-d-ff-swapped",
        L09,
        "Transformer",
        "hands Encoder and Decoder num_heads and d_ff in each other's places "
        "((num_layers, d_model, d_ff, num_heads, ...)): each attention gets d_ff heads and "
        "each feed-forward a hidden size of num_heads.",
        (
            r"num_heads.{0,60}d_ff.{0,40}(swapped|exchanged|other's place|wrong order)",
            r"d_ff.{0,60}num_heads.{0,40}(swapped|exchanged|other's place|wrong order)",
            r"(argument|parameter)s?.{0,40}(order|swapped).{0,80}(num_heads|d_ff)",
        ),
        (r"norm_first.{0,40}final_norm.{0,40}swapped", r"\btied?\b", r"mask"),
        edits=[
            (
                "layers = (num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)",
                "layers = (num_layers, d_model, d_ff, num_heads, dropout, norm_first, final_norm)",
            )
        ],
    ),
    _c(
        "tr-vocab-check-assert",
        L09,
        "Transformer",
        "checks the shared vocabulary with assert src_vocab_size == tgt_vocab_size, which "
        "raises AssertionError (and nothing at all under python -O) instead of the "
        "ValueError the docstring asks for.",
        (
            r"AssertionError",
            r"\bassert\b",
            r"ValueError.{0,80}(not|instead of|rather than).{0,40}Assertion",
        ),
        (r"never raises", r"(different|two) vocabular.{0,60}allowed", r"tie_embeddings=False"),
        edits=[
            (
                "        if tie_embeddings and src_vocab_size != tgt_vocab_size:\n"
                "            raise ValueError(\n"
                '                "tie_embeddings needs a shared vocabulary: src_vocab_size "\n'
                '                f"{src_vocab_size} != tgt_vocab_size {tgt_vocab_size}"\n'
                "            )\n",
                "        if tie_embeddings:\n"
                "            assert src_vocab_size == tgt_vocab_size, 'shared vocabulary'\n",
            )
        ],
        source=ASSERT_NOT_VALUEERROR,
    ),
    # ------------------------------------------------------------------ 09 count_parameters
    _c(
        "cp-tie-condition-inverted",
        L09,
        "count_parameters",
        "inverts the tie_embeddings test in both places (if not tie_embeddings): a tied model "
        "gets the untied counts (two tables, the output weight counted) and an untied model "
        "the tied ones.",
        (
            r"(invert|revers|opposite|swapped).{0,60}tie",
            r"tie_embeddings.{0,60}(invert|revers|opposite|the other way|swapped)",
            r"tied.{0,40}untied.{0,60}(swapped|the other way round|exchanged)",
        ),
        (r"ignor(es|ed|ing) tie", r"bias", r"final", r"one head"),
        edits=[
            (
                '"embeddings": table if tie_embeddings else 2 * table',
                '"embeddings": table if not tie_embeddings else 2 * table',
            ),
            (
                '"output": vocab_size if tie_embeddings else table + vocab_size',
                '"output": vocab_size if not tie_embeddings else table + vocab_size',
            ),
        ],
    ),
    _c(
        "cp-key-embedding-singular",
        L09,
        "count_parameters",
        "returns the embeddings' count under the key 'embedding' (singular) instead of "
        "'embeddings'; every number is right.",
        (
            r"'embedding'|\"embedding\"",
            r"key.{0,60}embeddings",
            r"embeddings.{0,40}(key|missing)",
        ),
        (r"tied", r"final", r"bias", r"layer ?norm"),
        edits=[
            (
                '"embeddings": table if tie_embeddings else 2 * table',
                '"embedding": table if tie_embeddings else 2 * table',
            )
        ],
    ),
    _c(
        "cp-output-bias-d-model",
        L09,
        "count_parameters",
        "counts the output layer's bias as d_model entries instead of vocab_size (one per "
        "output, the vocabulary), tied or not.",
        (
            r"output.{0,60}bias.{0,80}(vocab_size|vocabulary)",
            r"bias.{0,60}(vocab_size|vocabulary).{0,40}(not|instead of|rather than).{0,20}"
            r"d_model",
            r"d_model.{0,40}(instead of|not|rather than).{0,30}vocab_size",
        ),
        (r"weight.{0,40}counted (twice|again)", r"final", r"feed-?forward", r"attention"),
        edits=[
            (
                '"output": vocab_size if tie_embeddings else table + vocab_size',
                '"output": d_model if tie_embeddings else table + d_model',
            )
        ],
    ),
    # ------------------------------------------------------------------ 09 greedy_decode
    _c(
        "gd-one-step-too-many",
        L09,
        "greedy_decode",
        "loops range(max_len + 1), so a batch in which some row never writes <eos> gets "
        "max_len + 1 new tokens instead of at most max_len.",
        (
            r"max_len ?\+ ?1",
            r"one (step|token|column) too (many|long)",
            r"more than max_len",
            r"(loop|steps?).{0,60}max_len.{0,40}(\+|more|extra)",
        ),
        (r"<bos>", r"never stops", r"finishe[sd].{0,40}any", r"one step short"),
        edits=[("for _ in range(max_len):", "for _ in range(max_len + 1):")],
    ),
    _c(
        "gd-logits-last-row-of-batch",
        L09,
        "greedy_decode",
        "indexes the logits as logits[-1], the last sentence of the batch (len_so_far, vocab), "
        "instead of logits[:, -1], the last position of every sentence: at the first step of "
        "a batch of one it looks right, then the shapes no longer fit and it raises.",
        (
            r"logits\[-1\]",
            r"last (sentence|row|element) of the batch",
            r"batch axis.{0,60}(instead of|not|rather than).{0,40}position",
            r"logits\[:, ?-1\]",
        ),
        (r"first position", r"argmax over (the )?positions", r"squeeze", r"last vocab"),
        edits=[
            (
                "next_token = logits[:, -1].argmax(dim=-1)",
                "next_token = logits[-1].argmax(dim=-1)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 10 make_batches
    _c(
        "mb-seeds-global-generator",
        L10,
        "make_batches",
        "seeds the global random generator with torch.manual_seed(seed) and draws the "
        "permutation from it: the order is right for each seed, but the call resets "
        "PyTorch's global random stream (every later draw of the caller, dropout included, "
        "is changed).",
        (
            r"manual_seed",
            r"global (random )?(generator|stream|state|rng)",
            r"generator of your own",
        ),
        (r"ignor(es|ing) (the )?seed", r"in place", r"same order.{0,40}every seed"),
        edits=[
            (
                "        generator = torch.Generator().manual_seed(seed)\n"
                "        order = torch.randperm(len(pairs), generator=generator).tolist()",
                "        torch.manual_seed(seed)\n"
                "        order = torch.randperm(len(pairs)).tolist()",
            )
        ],
        source=GLOBAL_RNG_FOR_SHUFFLE,
    ),
    _c(
        "mb-pad-zero-written-in",
        L10,
        "make_batches",
        "pads the three tensors with 0 written in (pad_batch(rows, 0)) instead of pad_id: "
        "right with the default pad_id=0, wrong for any other.",
        (
            r"pad(ded|s)? with 0",
            r"0 (written in|hard-?coded)|hard-?coded 0",
            r"instead of pad_id|not (the )?pad_id|ignor(es|ing) pad_id",
        ),
        (r"-100", r"left", r"longest (row|pair) overall", r"<eos>.{0,30}after"),
        edits=[
            (
                "src = pad_batch([list(source) for source, _ in chunk], pad_id)",
                "src = pad_batch([list(source) for source, _ in chunk], 0)",
            ),
            (
                "decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)",
                "decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], 0)",
            ),
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], 0)",
            ),
        ],
    ),
    _c(
        "mb-slice-end-not-offset",
        L10,
        "make_batches",
        "slices order[start:batch_size] instead of order[start:start + batch_size]: the "
        "first batch is right, every later one is empty (or raises in pad_batch).",
        (
            r"start ?\+ ?batch_size",
            r"\[start ?: ?batch_size\]",
            r"(later|second|other) batch(es)?.{0,40}empty",
            r"slice.{0,60}(end|stop).{0,60}(start|offset)",
        ),
        (r"drop(s|ped)? the last", r"shuffl", r"sorted", r"left"),
        edits=[("order[start : start + batch_size]", "order[start:batch_size]")],
    ),
    # ------------------------------------------------------------------ 10 noam_lr
    _c(
        "noam-step-zero-gives-peak",
        L10,
        "noam_lr",
        "replaces step 0 by warmup (step = step or warmup), so noam_lr(0, ...) returns the "
        "peak rate instead of 0.0 or step 1's rate; every step from 1 on is right.",
        (
            r"step 0.{0,80}(peak|warmup|largest)",
            r"(peak|warmup).{0,60}(at|for) step 0",
            r"step or warmup",
        ),
        (r"ZeroDivision", r"raises", r"one step (late|early)", r"shift"),
        edits=[("step = max(step, 1)", "step = step or warmup")],
    ),
    # ------------------------------------------------------------------ 10 label_smoothed_loss
    _c(
        "ls-labels-unsqueeze-1",
        L10,
        "label_smoothed_loss",
        "gathers with labels.unsqueeze(1) instead of labels[..., None] (unsqueeze(-1)): "
        "the same for (N,) labels of 2-D logits, but for (batch, len) labels the index has "
        "shape (batch, 1, len) and gathers from the wrong positions (or raises).",
        (
            r"unsqueeze\(1\)",
            r"unsqueeze\(-1\)|\[\.\.\., ?None\]",
            r"(new )?axis.{0,60}(1|second).{0,40}(instead of|not|rather than).{0,30}last",
        ),
        (r"log_softmax.{0,40}axis 1", r"vocab(ulary)? size.{0,40}axis 1", r"squeeze\(\)"),
        edits=[("safe_labels[..., None]", "safe_labels.unsqueeze(1)")],
        source=LOSS_WRITTEN_FOR_2D,
    ),
    _c(
        "ls-smoothing-term-on-logits",
        L10,
        "label_smoothed_loss",
        "averages the raw logits in the smoothing term (uniform = -logits.mean(dim=-1)) "
        "instead of the log-probabilities: that term is not a cross-entropy and changes "
        "when a constant is added to every logit.",
        (
            r"(smoothing|uniform) term.{0,80}(logits|log-?probab)",
            r"raw logits",
            r"logits.{0,40}(instead of|not|rather than).{0,30}log-?(probab|softmax)",
            r"shift.{0,40}(constant|logits)",
        ),
        (r"sum(s|med)? .{0,30}instead of averag", r"pad", r"V - 1", r"weight"),
        edits=[
            (
                "uniform = -log_probs.mean(dim=-1)",
                "uniform = -logits.mean(dim=-1)",
            )
        ],
    ),
    _c(
        "ls-keep-mask-inverted",
        L10,
        "label_smoothed_loss",
        "builds the kept positions as labels == pad_id (inverted): the mean is taken over "
        "the pad positions only, and over no position at all (NaN) when there is no padding.",
        (
            r"(invert|revers|opposite).{0,60}(mask|pad|keep)",
            r"labels ?== ?pad_id",
            r"only (the )?pad(ding)? positions",
            r"== .{0,20}instead of !=",
        ),
        (r"pad(ding)? (included|not excluded)", r"divid.{0,40}(all|every) position", r"sum"),
        edits=[("keep = labels != pad_id", "keep = labels == pad_id")],
    ),
    # ------------------------------------------------------------------ 10 train_step
    _c(
        "ts-clip-l1-norm",
        L10,
        "train_step",
        "clips with clip_grad_norm_(..., clip_norm, norm_type=1): the gradients are rescaled "
        "by their total 1-norm instead of their 2-norm, so they are clipped harder than asked "
        "(and whenever the 1-norm exceeds clip_norm).",
        (
            r"norm_type",
            r"1-norm|L1",
            r"2-norm.{0,40}(not|instead)|(not|instead of).{0,40}2-norm",
        ),
        (r"after (optimizer\.)?step", r"clip_grad_value", r"per[- ]parameter", r"before backward"),
        edits=[
            (
                "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
                "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm, norm_type=1)",
            )
        ],
        source=CLIP_NORM_TYPE,
    ),
    _c(
        "ts-batch-read-as-dict",
        L10,
        "train_step",
        "reads the batch by key (batch['src'], batch['decoder_input'], batch['labels']), as "
        "its own make_batches' dicts allow, but train_step is handed a tuple: indexing it "
        "with a string raises TypeError.",
        (
            r"tuple.{0,60}(not a dict|instead of a dict|by (key|name))",
            r"batch\[.src.\]",
            r"(index|key).{0,40}(string|name|key).{0,40}tuple",
            r"unpack",
        ),
        (r"order", r"swapped", r"labels as (the )?decoder"),
        edits=[
            (
                "src, decoder_input, labels = batch",
                'src, decoder_input, labels = batch["src"], batch["decoder_input"], '
                'batch["labels"]',
            )
        ],
    ),
    _c(
        "ts-item-before-backward",
        L10,
        "train_step",
        "takes the float at once (loss = loss_fn(logits, labels).item()) and then calls "
        "loss.backward() on that float, which raises AttributeError: a Python float has no "
        "backward.",
        (
            r"\.item\(\).{0,80}(before|then).{0,40}backward",
            r"float.{0,40}(has no|no attribute).{0,20}backward",
            r"backward.{0,60}(on a|of a) (python )?float",
        ),
        (r"no_grad", r"never calls (loss\.)?backward", r"returns (a|the) (loss )?tensor"),
        edits=[
            ("loss = loss_fn(logits, labels)", "loss = loss_fn(logits, labels).item()"),
            ("return loss.item()", "return loss"),
        ],
    ),
    # ------------------------------------------------------------------ 10 translation_scores
    _c(
        "tsc-width-from-first-sentence",
        L10,
        "translation_scores",
        "takes the number of reference streams from the first sentence (width = "
        "len(references[0])) instead of the largest count: when a later sentence has more "
        "references than the first, its extra ones are dropped and BLEU changes.",
        (
            r"references\[0\]",
            r"first sentence.{0,80}(number|count|how many)",
            r"(largest|most|max).{0,40}(number of )?references.{0,60}(not|instead)",
            r"extra references.{0,40}dropped",
        ),
        (r"zip", r"\"\"|empty string", r"not transposed|per sentence", r"lowercase"),
        edits=[
            (
                "width = max(len(refs) for refs in references)",
                "width = len(references[0])",
            )
        ],
    ),
    _c(
        "tsc-exact-match-over-all-references",
        L10,
        "translation_scores",
        "divides the number of exact matches by the total number of references "
        "(sum(len(refs) for refs in references)) instead of the number of hypotheses, so "
        "exact_match is too small whenever a sentence has more than one reference.",
        (
            r"(number|count) of references.{0,60}(instead of|not|rather than).{0,40}"
            r"(hypothes|sentences)",
            r"divid.{0,60}(all|every|total).{0,30}references",
            r"sum\(len\(refs\)",
        ),
        (r"percent", r"\bcount\b.{0,30}not (a |the )?fraction", r"first reference", r"//"),
        edits=[
            (
                "for h, refs in zip(hypotheses, references)) / len(hypotheses)",
                "for h, refs in zip(hypotheses, references)) / sum(\n"
                "        len(refs) for refs in references\n    )",
            )
        ],
    ),
    # ------------------------------------------------------------------ 10 beam_search
    _c(
        "bs-length-penalty-precedence",
        L10,
        "beam_search",
        "writes the length penalty as (5 + len(tokens)) / 6 ** length_penalty, where ** binds "
        "to 6 alone: with length_penalty=0 every finished score is divided by 5 + L instead "
        "of 1, so the comparison favours long hypotheses and the stopping rule changes.",
        (
            r"precedence|parenthes",
            r"\*\* ?(binds|applies) (to )?6",
            r"6 \*\* length_penalty",
            r"5 ?\+ ?L.{0,40}(not|instead).{0,40}1",
        ),
        (r"<eos>.{0,30}(left out|without)", r"<bos>", r"multipl", r"raw score"),
        edits=[
            (
                "return score / ((5 + len(tokens)) / 6) ** length_penalty",
                "return score / (5 + len(tokens)) / 6**length_penalty",
            )
        ],
    ),
    _c(
        "bs-beam-one-too-wide",
        L10,
        "beam_search",
        "stops filling the new beam when it holds more than beam_size hypotheses (len(new_beam) "
        "> beam_size), so beam_size + 1 stay live: beam_size=1 is no longer greedy_decode.",
        (
            r"beam_size ?\+ ?1",
            r"one (hypothesis )?too (many|wide)",
            r"(more|larger) than beam_size",
            r">.{0,10}instead of ==|> beam_size",
        ),
        (r"shrinks", r"<eos>.{0,40}(place|slot)", r"copies", r"ascending"),
        edits=[("if len(new_beam) == beam_size:", "if len(new_beam) > beam_size:")],
    ),
]
