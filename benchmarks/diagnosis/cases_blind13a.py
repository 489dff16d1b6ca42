"""Held-out wrong answers for lessons 09-10, blind round 13 (helper r13a, 2026-11-27):
mistakes new to the benchmark, written while the checks' mutation-based diagnosis was being
built, and judged before and after it. 24 cases over the nine exercises; eleven transpose a
mistake reported in public (the URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L09, L10 = "09_transformer", "10_training"

# The reports these cases transpose (each read with the search tool for this benchmark).
DECODE_ARGUMENT_ORDER = "https://github.com/harvardnlp/annotated-transformer/issues/134"
FLOAT_MASK_IN_MASKED_FILL = "https://github.com/pytorch/pytorch/issues/89320"
GENERATOR_HAS_NO_LEN = "https://github.com/coddingtonbear/django-mailbox/issues/203"
EOS_NEVER_APPENDED = "https://github.com/ymcui/Chinese-LLaMA-Alpaca/issues/483"
LOGSUMEXP_KEEPDIM = "https://github.com/pytorch/pytorch/issues/8762"
IN_PLACE_ON_LEAF = "https://github.com/NVlabs/VILA/pull/199"
ONE_HOT_WIDTH_FROM_LABELS = "https://github.com/jwcalder/GraphLearning/issues/12"
LOSS_DIVIDED_BY_BATCH_AGAIN = "https://github.com/abduallahmohamed/Social-STGCNN/issues/51"
DUPLICATE_OPTIMIZER_STEP = "https://github.com/mzolfaghari/ECO-pytorch/pull/1"
GRAD_NONE_BEFORE_BACKWARD = "https://github.com/jcjohnson/pytorch-examples/issues/7"
RAGGED_NP_ARRAY = "https://github.com/hpc203/virtual_try_on_use_deep_learning/issues/7"

_c = held_out_authored("blind13a")

BLIND13A: list[Case] = [
    # ------------------------------------------------------------------ 09 Transformer
    _c(
        "tr-positional-encoding-per-side",
        L09,
        "Transformer",
        "creates two PositionalEncoding modules, src_positional_encoding and "
        "tgt_positional_encoding (one per side, as the Annotated Transformer's two embedding "
        "pipelines have), instead of the one positional_encoding the contract names: the "
        "logits are right, but the model has no positional_encoding attribute and its state "
        "dict has other keys, so weights saved under the contract's names do not load.",
        (
            r"src_positional_encoding|tgt_positional_encoding",
            r"(one|single|shared) positional.?encoding",
            r"two positional.?encodings?",
            r"positional_encoding.{0,80}(missing|no attribute|has no|not found)",
            r"(no|missing) (attribute |module )?.?positional_encoding",
        ),
        (
            r"dropout.{0,40}(twice|two times)",
            r"positions? .{0,20}(added )?twice",
            r"no positional encoding on",
            r"sqrt\(d_model\).{0,40}(again|twice|missing)",
        ),
        edits=[
            (
                "self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)",
                "self.src_positional_encoding = PositionalEncoding(d_model, max_len, dropout)\n"
                "        self.tgt_positional_encoding = PositionalEncoding(d_model, max_len, dropout)",
            ),
            (
                "x = self.positional_encoding(self.src_embedding(src_ids))",
                "x = self.src_positional_encoding(self.src_embedding(src_ids))",
            ),
            (
                "y = self.positional_encoding(self.tgt_embedding(tgt_ids))",
                "y = self.tgt_positional_encoding(self.tgt_embedding(tgt_ids))",
            ),
        ],
    ),
    _c(
        "tr-decode-memory-first",
        L09,
        "Transformer",
        "declares decode's parameters in the Annotated Transformer's order, "
        "decode(memory, tgt_ids, src_ids), and calls it that way in forward: forward is "
        "right, but decode called as the contract says, decode(tgt_ids, memory, src_ids) "
        "(as greedy_decode calls it), takes the target ids as memory and the memory as "
        "target ids, and fails.",
        (
            r"decode.{0,80}(argument|parameter)s?.{0,60}(order|swapped|wrong place|other's place)",
            r"(order|signature) of (your )?decode",
            r"decode'?s? (signature|parameters?)",
            r"memory.{0,40}(first|before).{0,40}tgt_ids",
        ),
        (
            r"masks? .{0,30}(swapped|wrong order)",
            r"source (padding )?mask.{0,40}from (the )?(tgt_ids|target)",
            r"(the )?encoder.{0,40}(again|twice|re-?run)",
        ),
        edits=[
            (
                "self, tgt_ids: torch.Tensor, memory: torch.Tensor, src_ids: torch.Tensor",
                "self, memory: torch.Tensor, tgt_ids: torch.Tensor, src_ids: torch.Tensor",
            ),
            (
                "return self.decode(tgt_ids, self.encode(src_ids), src_ids)",
                "return self.decode(self.encode(src_ids), tgt_ids, src_ids)",
            ),
        ],
        source=DECODE_ARGUMENT_ORDER,
    ),
    _c(
        "tr-output-linear-sizes-swapped",
        L09,
        "Transformer",
        "builds the output layer with nn.Linear's two sizes swapped, "
        "nn.Linear(tgt_vocab_size, d_model), as if it went from the vocabulary to d_model: "
        "the layer expects inputs of tgt_vocab_size features and returns d_model, so the "
        "decoder's d_model-wide output does not fit (a shape error unless tgt_vocab_size "
        "equals d_model).",
        (
            r"nn\.Linear\(tgt_vocab_size, ?d_model\)",
            r"output.{0,80}(in_features|out_features|sizes).{0,80}"
            r"(swapped|exchanged|wrong order|other way|reversed)",
            r"output.{0,60}Linear\(d_model, ?tgt_vocab_size\).{0,80}(yours|got|instead|not)",
            r"output layer.{0,80}(in_features|input size|expects).{0,40}"
            r"(tgt_vocab_size|vocabulary)",
        ),
        (
            r"src_vocab_size.{0,40}instead",
            r"(output|logits).{0,40}source vocabulary",
            r"without (its |a )?bias|bias=False",
        ),
        edits=[
            (
                "self.output = nn.Linear(d_model, tgt_vocab_size)",
                "self.output = nn.Linear(tgt_vocab_size, d_model)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 09 count_parameters
    _c(
        "cp-cross-attention-without-kv",
        L09,
        "count_parameters",
        "counts the decoder's cross-attention with w_q and w_o only, leaving out its w_k and "
        "w_v (as if the keys and values came ready-made from the encoder's memory), so "
        "each decoder layer is 2 * (d_model^2 + d_model) short; the rest is right.",
        (
            r"cross.?attention.{0,100}(w_k|w_v|keys? and values?|four projections|4 projections)",
            r"(w_k|w_v).{0,80}cross",
            r"cross.?attention.{0,60}(same|as many|full).{0,40}(parameters|size|projections)",
        ),
        (
            r"one attention (block )?(per|in each) decoder layer",
            r"(forgets|without|missing|leaves out) (the )?(output projection|w_o)",
            r"bias(es)? of the attention",
            r"LayerNorm",
        ),
        edits=[
            (
                "decoder_layer = 2 * attention + feed_forward + 3 * layer_norm",
                "cross_attention = 2 * (d_model * num_heads * d_head + d_model)  # w_q, w_o\n"
                "    decoder_layer = attention + cross_attention + feed_forward + 3 * layer_norm",
            )
        ],
    ),
    _c(
        "cp-returns-tuple",
        L09,
        "count_parameters",
        "returns the four counts as a tuple (embeddings, encoder, decoder, output) instead "
        "of the dict with those four keys that the docstring asks for; every number is "
        "right.",
        (
            r"\btuple\b",
            r"(not|instead of|rather than) a dict",
            r"a dict.{0,60}(not|instead of|rather than)",
        ),
        (r"'embedding'", r"missing (the )?keys?", r"final", r"bias"),
        edits=[
            (
                "return {\n"
                '        "embeddings": table if tie_embeddings else 2 * table,\n'
                '        "encoder": num_layers * encoder_layer + final,\n'
                '        "decoder": num_layers * decoder_layer + final,\n'
                '        "output": vocab_size if tie_embeddings else table + vocab_size,\n'
                "    }",
                "return (\n"
                "        table if tie_embeddings else 2 * table,  # embeddings\n"
                "        num_layers * encoder_layer + final,  # encoder\n"
                "        num_layers * decoder_layer + final,  # decoder\n"
                "        vocab_size if tie_embeddings else table + vocab_size,  # output\n"
                "    )",
            )
        ],
    ),
    # ------------------------------------------------------------------ 09 greedy_decode
    _c(
        "gd-finished-flags-float",
        L09,
        "greedy_decode",
        "creates the finished flags with torch.zeros(batch) and no dtype, a float tensor, so "
        "next_token.masked_fill(finished, pad_id) raises at the first step (masked_fill "
        "takes only a bool mask; older PyTorch silently ignored a float one).",
        (
            r"finished.{0,80}(float|bool|dtype)",
            r"(bool|boolean) masks?.{0,80}(float|dtype)",
            r"masked_fill.{0,80}(bool|boolean)",
            r"dtype=torch\.bool",
        ),
        (
            r"float (token|ids)",
            r"<bos>.{0,40}float",
            r"token ids?.{0,40}(int64|long)",
        ),
        edits=[
            (
                "finished = torch.zeros(batch, dtype=torch.bool)",
                "finished = torch.zeros(batch)",
            )
        ],
        source=FLOAT_MASK_IN_MASKED_FILL,
    ),
    _c(
        "gd-preallocated-buffer-last-slot",
        L09,
        "greedy_decode",
        "fills a preallocated (batch, max_len + 1) buffer of pad ids one column per step and "
        "runs the decoder on the whole buffer, but takes the next token from logits[:, -1], "
        "the buffer's last slot (a pad position), instead of the position of the newest "
        "token, logits[:, step]: every step predicts from the same padded slot.",
        (
            r"last (slot|column|position) of the (buffer|whole|preallocated)",
            r"logits\[:, ?step\]",
            r"(newest|latest|current|last generated) (token|position).{0,80}"
            r"(not|instead of|rather than)",
            r"pad(ded)? (slot|position).{0,80}(logits|predict)",
            r"logits\[:, ?-1\].{0,80}(pad|buffer)",
        ),
        (
            r"first position",
            r"argmax over (the )?positions",
            r"only the last (generated )?token",
            r"keeps? <bos>",
        ),
        code="""
        def greedy_decode(model, src_ids, max_len, bos_id, eos_id):
            with torch.no_grad():
                memory = model.encode(src_ids)
                batch = src_ids.shape[0]
                # the whole target up front: <bos>, then max_len slots of padding
                tokens = torch.full((batch, max_len + 1), model.pad_id, dtype=torch.long)
                tokens[:, 0] = bos_id
                finished = torch.zeros(batch, dtype=torch.bool)
                steps = 0
                for step in range(max_len):
                    logits = model.decode(tokens, memory, src_ids)  # (batch, max_len + 1, vocab)
                    next_token = logits[:, -1].argmax(dim=-1)
                    next_token = next_token.masked_fill(finished, model.pad_id)
                    tokens[:, step + 1] = next_token
                    steps = step + 1
                    finished = finished | (next_token == eos_id)
                    if finished.all():
                        break
            return tokens[:, 1 : steps + 1]
        """,
    ),
    _c(
        "gd-argmax-keepdim",
        L09,
        "greedy_decode",
        "takes the argmax with keepdim=True, so next_token is (batch, 1), and appends it as "
        "it is; masked_fill then broadcasts it against the (batch,) finished flags into a "
        "(batch, batch) tensor, so with more than one row each step appends batch columns "
        "(each row's token repeated) and the flags become (batch, batch): right for a batch "
        "of one only.",
        (
            r"keepdim",
            r"\(batch, ?batch\)",
            r"next.?token.{0,80}\(batch, ?1\)",
            r"broadcast.{0,80}finished",
        ),
        (
            r"row (and|not) (a )?column",
            r"appends? .{0,30}as a row",
            r"shape\[1\]",
            r"\.item\(\)",
        ),
        edits=[
            (
                "next_token = logits[:, -1].argmax(dim=-1)  # (batch,)",
                "next_token = logits[:, -1].argmax(dim=-1, keepdim=True)  # (batch, 1)",
            ),
            (
                "tokens = torch.cat([tokens, next_token[:, None]], dim=1)",
                "tokens = torch.cat([tokens, next_token], dim=1)",
            ),
        ],
    ),
    # ------------------------------------------------------------------ 10 make_batches
    _c(
        "mb-generator-not-list",
        L10,
        "make_batches",
        "writes make_batches as a generator (yield each batch, the data-loader idiom) "
        "instead of returning a list: the batches are right, but len() and indexing fail "
        "and a second pass over the result finds nothing.",
        (
            r"generator",
            r"\byield\b",
            r"(not|instead of|rather than) a list",
            r"(returns?|got) .{0,30}iterator",
        ),
        (
            r"last (partial |smaller )?batch.{0,40}(dropped|missing|lost)",
            r"drop(s|ped)? the last",
            r"order.{0,30}(wrong|differs)",
        ),
        code="""
        def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                         shuffle=False, seed=0):
            order = list(range(len(pairs)))
            if shuffle:
                generator = torch.Generator().manual_seed(seed)
                order = torch.randperm(len(pairs), generator=generator).tolist()
            for start in range(0, len(order), batch_size):
                chunk = [pairs[i] for i in order[start : start + batch_size]]
                src = pad_batch([list(source) for source, _ in chunk], pad_id)
                decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)
                labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)
                yield tuple(torch.from_numpy(a) for a in (src, decoder_input, labels))
        """,
        source=GENERATOR_HAS_NO_LEN,
    ),
    _c(
        "mb-batch-count-plus-one",
        L10,
        "make_batches",
        "counts the batches as len(pairs) // batch_size + 1 (the + 1 for the rest), which is "
        "one too many when batch_size divides the number of pairs: the list then ends with "
        "an extra, empty batch (right whenever there is a remainder).",
        (
            r"empty (last )?batch",
            r"(extra|one too many|one more) batch",
            r"// ?batch_size ?\+ ?1",
            r"divides.{0,80}(extra|empty)",
        ),
        (
            r"drop(s|ped)? the (last|rest)",
            r"last (partial |smaller )?batch.{0,40}(dropped|missing|lost)",
        ),
        edits=[
            (
                "for start in range(0, len(order), batch_size):\n"
                "        chunk = [pairs[i] for i in order[start : start + batch_size]]",
                "num_batches = len(pairs) // batch_size + 1  # + 1 for the rest\n"
                "    for b in range(num_batches):\n"
                "        chunk = [pairs[i] for i in order[b * batch_size : (b + 1) * batch_size]]",
            )
        ],
    ),
    _c(
        "mb-lm-shift-without-eos",
        L10,
        "make_batches",
        "shifts [bos_id] + target the language-model way, decoder_input = sequence[:-1] and "
        "labels = sequence[1:], without ever appending eos_id: the labels are the target "
        "alone (no <eos>, so the model never learns to stop) and the decoder input loses "
        "the target's last token.",
        (
            r"(no|without|missing|never).{0,30}<?eos>?.{0,60}labels?",
            r"labels?.{0,80}(end with|ending in|no|without|missing).{0,20}<?eos",
            r"eos_id.{0,60}(never|not) (appended|added)",
        ),
        (
            r"labels?.{0,40}(start|begin)s? with <?bos",
            r"without <?bos>? in front",
            r"(shifted|shifts) twice",
            r"<eos>.{0,40}after (the )?padding",
        ),
        edits=[
            (
                "decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)",
                "decoder_input = pad_batch([[bos_id, *target][:-1] for _, target in chunk], pad_id)",
            ),
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([[bos_id, *target][1:] for _, target in chunk], pad_id)",
            ),
        ],
        source=EOS_NEVER_APPENDED,
    ),
    # ------------------------------------------------------------------ 10 noam_lr
    _c(
        "noam-warmup-term-without-step",
        L10,
        "noam_lr",
        "leaves step out of the warm-up term, min(step ** -0.5, warmup ** -1.5): that "
        "branch is a constant, so the rate sits at d_model ** -0.5 * warmup ** -1.5 (tiny) "
        "instead of growing linearly, for every step below warmup ** 3.",
        (
            r"step \* warmup",
            r"warm.?up (term|branch|line).{0,80}"
            r"(constant|flat|does not (grow|increase)|missing step|without step)",
            r"(grow|increase|rise)s? linearly.{0,80}(yours|constant|flat)",
        ),
        (
            r"\bmax\b.{0,30}(instead of|not) (the )?min",
            r"warmup \*\* ?-0\.5",
            r"(d_model and warmup|warmup and d_model).{0,30}swapped",
            r"factor (of )?2",
        ),
        edits=[
            (
                "min(step**-0.5, step * warmup**-1.5)",
                "min(step**-0.5, warmup**-1.5)",
            )
        ],
    ),
    _c(
        "noam-integer-square-root",
        L10,
        "noam_lr",
        "divides by math.isqrt(d_model), the integer square root (rounded down), instead of "
        "multiplying by d_model ** -0.5: exact when d_model is a perfect square (64, 256, "
        "1024), a few percent too large otherwise (isqrt(512) = 22, not 22.63).",
        (
            r"isqrt",
            r"integer square root",
            r"(rounded|floor(ed)?|truncated).{0,40}square root",
            r"square root.{0,40}(rounded|floor|integer)",
        ),
        (
            r"factor (of )?2",
            r"(d_model and warmup|warmup and d_model).{0,30}swapped",
            r"hard.?coded",
            r"d_model \*\* ?0\.5.{0,30}(instead of|not)",
        ),
        edits=[
            (
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "return min(step**-0.5, step * warmup**-1.5) / math.isqrt(d_model)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 10 label_smoothed_loss
    _c(
        "ls-logsumexp-without-keepdim",
        L10,
        "label_smoothed_loss",
        "computes the log-probabilities by hand as logits - logits.logsumexp(dim=-1) without "
        "keepdim=True: the (...,) log-normaliser is broadcast against the last axis instead "
        "of each position's row, which raises a size mismatch (or, when the sizes happen to "
        "fit, subtracts another position's normaliser).",
        (
            r"keepdim",
            r"logsumexp.{0,80}(axis|dimension|shape|broadcast)",
            r"broadcast.{0,80}(normali[sz]er|logsumexp)",
        ),
        (
            r"torch\.log\(torch\.softmax",
            r"log\(softmax",
            r"(over|along) (axis 1|the positions)",
        ),
        edits=[
            (
                "log_probs = torch.log_softmax(logits, dim=-1)",
                "log_probs = logits - logits.logsumexp(dim=-1)",
            )
        ],
        source=LOGSUMEXP_KEEPDIM,
    ),
    _c(
        "ls-max-subtracted-in-place",
        L10,
        "label_smoothed_loss",
        "subtracts each row's maximum from the caller's logits in place "
        "(logits -= logits.max(-1, keepdim=True).values, lesson 04's stability trick) before "
        "log_softmax, which does it already: the loss is right, but the caller's logits are "
        "changed, and on logits that are a leaf requiring grad the in-place op raises.",
        (
            r"logits.{0,80}in.?place",
            r"in.?place.{0,80}logits",
            r"(modif|chang|overwr)\w+ .{0,40}(caller's |your |the )?logits",
            r"logits.{0,60}(were|are|was) (modified|changed|overwritten)",
            r"leaf.{0,80}in-place operation",
        ),
        (
            r"labels.{0,60}(modified|changed|overwritten|in place)",
            r"log\(.{0,10}softmax",
        ),
        edits=[
            (
                "log_probs = torch.log_softmax(logits, dim=-1)",
                "logits -= logits.max(dim=-1, keepdim=True).values  # stability (lesson 04)\n"
                "    log_probs = torch.log_softmax(logits, dim=-1)",
            )
        ],
        source=IN_PLACE_ON_LEAF,
    ),
    _c(
        "ls-one-hot-without-num-classes",
        L10,
        "label_smoothed_loss",
        "builds the one-hot target with F.one_hot(labels) without num_classes, which sizes "
        "it by the largest label present (labels.max() + 1) instead of the vocabulary size V: "
        "a size mismatch against the (..., V) log-probabilities unless the batch happens to "
        "contain token V - 1.",
        (
            r"num_classes",
            r"one.?hot.{0,80}(width|size|sized|columns|classes).{0,60}(largest|max|\bV\b|vocab)",
            r"labels\.max\(\) ?\+ ?1",
        ),
        (
            r"V ?- ?1 other",
            r"V ?- ?2",
            r"(sum|summ)\w* .{0,30}instead of (averag|mean)",
            r"pad column",
        ),
        edits=[
            (
                "safe_labels = labels.masked_fill(~keep, 0)",
                "V = logits.shape[-1]\n    safe_labels = labels.masked_fill(~keep, 0)",
            ),
            (
                "target = -log_probs.gather(-1, safe_labels[..., None]).squeeze(-1)"
                "  # (...): -log p[y]",
                "one_hot = torch.nn.functional.one_hot(safe_labels).to(log_probs.dtype)"
                "  # (..., V)",
            ),
            (
                "uniform = -log_probs.mean(dim=-1)  # (...): mean over all V tokens of -log p[j]",
                "q = (1 - smoothing) * one_hot + smoothing / V  # the smoothed target",
            ),
            (
                "loss = (1 - smoothing) * target + smoothing * uniform",
                "loss = -(q * log_probs).sum(dim=-1)",
            ),
        ],
        source=ONE_HOT_WIDTH_FROM_LABELS,
    ),
    # ------------------------------------------------------------------ 10 train_step
    _c(
        "ts-loss-divided-by-batch",
        L10,
        "train_step",
        "divides the loss by the batch size before backward ((loss / len(src)).backward()), "
        "although loss_fn already returns the mean over the real positions: every gradient "
        "is batch times too small (the returned loss is right).",
        (
            r"(divid|scal)\w* .{0,60}(batch size|len\(src\)|number of (rows|sentences|pairs))",
            r"gradients?.{0,60}batch.{0,20}times (too )?small",
            r"already (a |the )?mean",
        ),
        (
            r"clip(s|ped|ping)? (the gradients )?(after|before)",
            r"(never|not) clear(s|ed)? the gradients",
            r"(eval|evaluation) mode",
            r"learning rate",
        ),
        edits=[
            (
                "loss.backward()",
                "(loss / len(src)).backward()  # average over the batch",
            )
        ],
        source=LOSS_DIVIDED_BY_BATCH_AGAIN,
    ),
    _c(
        "ts-two-optimizer-steps-when-clipping",
        L10,
        "train_step",
        "calls optimizer.step() inside the clipping branch as well as after it (an "
        "indentation slip): whenever clip_norm is not None the optimizer takes two steps "
        "with the same clipped gradients; clip_norm=None is right.",
        (
            r"(two|twice|2) (optimizer )?steps",
            r"step\(\) (is )?called twice",
            r"twice.{0,40}(optimizer|step)",
            r"(moved|changed|updated).{0,60}(twice|two times|double)",
        ),
        (
            r"clip(s|ped|ping)? (the gradients )?(after|before)",
            r"(no|without) clipping",
            r"per.?parameter",
            r"(never|not) clear(s|ed)?",
        ),
        edits=[
            (
                "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n"
                "    optimizer.step()",
                "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n"
                "        optimizer.step()\n"
                "    optimizer.step()",
            )
        ],
        source=DUPLICATE_OPTIMIZER_STEP,
    ),
    _c(
        "ts-manual-zero-on-none-grads",
        L10,
        "train_step",
        "clears the gradients by hand at the start, p.grad.zero_() for every parameter, "
        "which raises AttributeError when a gradient is None: on a fresh model's first step, "
        "and after optimizer.zero_grad() (which sets them to None).",
        (
            r"NoneType.{0,60}zero_",
            r"grad(ient)?s? (is|are) None",
            r"p\.grad.{0,40}None",
            r"None.{0,40}(before|until) (the first )?backward",
        ),
        (
            r"(never|not) clear(s|ed)?",
            r"clear(s|ed)? .{0,30}between .{0,20}backward",
            r"(eval|evaluation) mode",
        ),
        edits=[
            (
                "model.train()",
                "for p in model.parameters():  # clear the old gradients first\n"
                "        p.grad.zero_()\n"
                "    model.train()",
            ),
            ("optimizer.step()\n    optimizer.zero_grad()", "optimizer.step()"),
        ],
        source=GRAD_NONE_BEFORE_BACKWARD,
    ),
    # ------------------------------------------------------------------ 10 translation_scores
    _c(
        "tsc-exact-match-pooled-references",
        L10,
        "translation_scores",
        "tests each hypothesis against the references of every sentence pooled together "
        "(h in one set of all references) instead of its own sentence's references: a "
        "hypothesis that equals another sentence's reference counts as an exact match.",
        (
            r"(another|other|different) sentence'?s? references?",
            r"(its|their) own (sentence'?s? )?references",
            r"pooled",
            r"(any|all|every) sentences?'? references",
        ),
        (r"first reference", r"substring", r"(lower|upper).?case", r"percent|0-100"),
        edits=[
            (
                "exact = sum(h in refs for h, refs in zip(hypotheses, references)) / len(hypotheses)",
                "all_references = {r for refs in references for r in refs}\n"
                "    exact = sum(h in all_references for h in hypotheses) / len(hypotheses)",
            )
        ],
    ),
    _c(
        "tsc-streams-from-numpy-transpose",
        L10,
        "translation_scores",
        "transposes the references into streams with np.array(references).T, which only "
        "works when every sentence has the same number of references: with lists of "
        "different lengths numpy refuses the ragged list (ValueError: inhomogeneous shape), "
        "where None-filled streams are needed.",
        (
            r"np\.array|numpy",
            r"ragged|inhomogeneous",
        ),
        (r"\bzip\(\*", r"empty strings?", r"first reference", r"streams? .{0,20}dropped"),
        edits=[
            (
                "exact = sum(",
                "import numpy as np\n\n    exact = sum(",
            ),
            (
                "streams = [[refs[j] if j < len(refs) else None for refs in references] for j in range(width)]",
                "streams = np.array(references).T.tolist()  # stream j: every sentence's j-th",
            ),
        ],
        source=RAGGED_NP_ARRAY,
    ),
    # ------------------------------------------------------------------ 10 beam_search
    _c(
        "bs-scores-broadcast-on-vocab-axis",
        L10,
        "beam_search",
        "adds the hypotheses' scores as a (k,) tensor to the (k, vocab) log-probabilities "
        "without [:, None]: broadcasting lines them up with the vocabulary axis, which works "
        "at the first step (one hypothesis) and raises at the second as soon as the beam "
        "holds more than one (beam_size=1 is right).",
        (
            r"\[:, ?None\]",
            r"unsqueeze",
            r"broadcast.{0,80}(vocab|last axis|columns?)",
            r"\(k,\).{0,60}\(k, ?(1|vocab)\)",
        ),
        (
            r"(not|never) (added|accumulated)",
            r"divmod",
            r"beam_size.{0,40}(instead of|not).{0,20}vocab",
        ),
        edits=[
            (
                "scores = torch.tensor([s for _, s in beam])[:, None] + log_probs",
                "scores = torch.tensor([s for _, s in beam]) + log_probs",
            )
        ],
    ),
    _c(
        "bs-finished-score-without-eos",
        L10,
        "beam_search",
        "gives a finished hypothesis its parent's score, leaving out the log-probability of "
        "the <eos> it ends with (as if only the words counted): finishing costs nothing, so "
        "finished hypotheses score too well, the search stops too early and can prefer "
        "them.",
        (
            r"<eos>.{0,60}log.?prob\w*.{0,60}(left out|missing|not (added|counted|included))",
            r"(without|leav\w+ out|omit\w*|exclud\w+|not includ\w+) .{0,40}<?eos>?'?s? "
            r"(log.?prob|score)",
            r"parent'?s? score",
            r"eos.{0,40}(costs nothing|for free)",
        ),
        (
            r"\b(L|length)\b.{0,40}(without|leaves out|excluding) <?eos",
            r"raw score",
            r"stop(s|ped)? (as soon as|when) (any|the first)",
            r"(not|never) (added|accumulated)",
        ),
        edits=[
            (
                "finished.append(candidate)",
                "finished.append((candidate[0], beam[parent][1]))  # the words' score",
            )
        ],
    ),
    _c(
        "bs-stop-rule-normalises-live",
        L10,
        "beam_search",
        "normalises the best live hypothesis's score too in the stopping rule "
        "(normalised(beam[0]) instead of its raw score beam[0][1]): with length_penalty > 0 "
        "the live score looks better than it is, so the search runs on past the step where "
        "the docstring stops it and can return another hypothesis.",
        (
            r"live.{0,80}(normalis|normaliz).{0,40}(not|instead|should)",
            r"(raw|unnormali[sz]ed|not normali[sz]ed) (score )?of the (best )?live",
            r"stopping rule.{0,80}(normalis|normaliz).{0,40}live",
            r"beam\[0\]\[1\]",
        ),
        (
            r"(finished|answer).{0,40}raw score",
            r"never stops?",
            r"multipl\w+ .{0,30}penalty",
            r"worst live",
        ),
        edits=[
            (
                "if finished and max(map(normalised, finished)) >= beam[0][1]:",
                "if finished and max(map(normalised, finished)) >= normalised(beam[0]):",
            )
        ],
    ),
]
