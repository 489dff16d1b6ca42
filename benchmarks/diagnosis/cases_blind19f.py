"""Held-out wrong answers, blind round 19 (helper b19f, 2026-11-28): mistakes new to the
benchmark, written blind (no check module, no message read) while fix round 21 changed the
checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L09, L10 = "09_transformer", "10_training"
L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind19f")

# Where these mistakes are reported (each URL was read for this batch).
ANNOTATED_DECODE_ARGS = "https://github.com/harvardnlp/annotated-transformer/issues/134"
NP_MIN_AS_MINIMUM = "https://github.com/aeon-toolkit/aeon/issues/2143"
CROSS_ENTROPY_CLASS_AXIS = (
    "https://whosebug.com/question/6539086/How-to-compute-Cross-Entropy-Loss-for-sequences"
)
TRAINING_FLAG_BY_HAND = "https://github.com/pytorch/pytorch/issues/5908"
RMSNORM_GAMMA_KEY = "https://github.com/stanford-cs336/assignment1-basics/issues/93"
ROPE_BASE_HARD_CODED = "https://github.com/NVIDIA/TransformerEngine/issues/849"
HF_ROTATE_HALF_TABLES = "https://github.com/huggingface/transformers/pull/21955"
LLAMA_FFN_HIDDEN_DIM = "https://github.com/meta-llama/llama/blob/main/llama/model.py"
ROPE_RESULT_DISCARDED = "https://github.com/bytedance-iaas/vllm/pull/59"
GEMMA_EMBEDDING_NORMALIZER = "https://github.com/google/gemma_pytorch/issues/29"
CACHE_SIZED_BY_PROMPT = "https://github.com/huggingface/transformers/issues/37269"
MAX_RETURNS_NAMEDTUPLE = "https://github.com/fferflo/einx/issues/26"
INT32_TOKEN_BATCHES = "https://github.com/karpathy/nanoGPT/issues/373"
MISTRAL_ADDITIVE_MASK = "https://github.com/mistralai/mistral-src/blob/main/one_file_ref.py"

BLIND19F: list[Case] = [
    # ----- lesson 09 -----
    _c(
        "tr-forward-target-ids-as-source-ids",
        L09,
        "Transformer",
        "forward hands decode the target ids as its third argument, decode(tgt_ids, "
        "encode(src_ids), tgt_ids), so the cross-attention's padding mask is built from the "
        "target instead of the source: a shape error when len_src != len_tgt, the wrong keys "
        "hidden when the lengths agree; decode called on its own is right.",
        (
            r"forward.{0,80}(tgt_ids|target ids?).{0,60}(third|src_ids|source)",
            r"(source|src|cross-attention'?s?) (padding )?mask.{0,40}(built |made )?from the "
            r"target",
            r"padding_mask\(tgt_ids",
            r"decode\(tgt_ids, [^)]*, tgt_ids\)",
            r"(passes|hands|gives) (decode )?the target(?: ids)? (as|for|where) (the )?"
            r"(source|src_ids)",
        ),
        (
            r"decoder\(y, memory, tgt_mask, src_mask\)",
            r"masks? (to the decoder )?(are |were )?(swapped|in the wrong order)",
            r"look-ahead (mask )?(is )?(missing|never applied)",
            r"hard-?coded (pad|0)",
        ),
        edits=(
            (
                "return self.decode(tgt_ids, self.encode(src_ids), src_ids)",
                "return self.decode(tgt_ids, self.encode(src_ids), tgt_ids)",
            ),
        ),
        source=ANNOTATED_DECODE_ARGS,
    ),
    _c(
        "cp-both-final-norms-in-each-stack",
        L09,
        "count_parameters",
        "with final_norm=True adds the final LayerNorms of both stacks (2 * 2 * d_model) to "
        "each stack's count instead of one per stack: the encoder and the decoder each come "
        "out 2 * d_model too large; final_norm=False is right.",
        (
            r"final (layer ?norms?|norms?).{0,80}(twice|double|both stacks)",
            r"(two|2) final (layer ?norms?|norms?) (in|per|for) (each|every) stack",
            r"one final (layer ?norm|norm) (per|in each|for each) stack",
            r"4 \* d_model|2 \* 2 \* d_model",
        ),
        (
            r"final (layer ?norm|norm).{0,40}(ignored|never counted|missing|forg[eo]t)",
            r"encoder only|only (in|to) the encoder",
            r"final (layer ?norm|norm)s? (counted )?(once )?per layer|inside the num_layers",
            r"(w_1|w_2)'?s? bias",
        ),
        edits=(
            (
                "final = layer_norm if final_norm else 0",
                "final = 2 * layer_norm if final_norm else 0  # the two stacks' final norms",
            ),
        ),
    ),
    _c(
        "gd-decode-memory-and-tokens-swapped",
        L09,
        "greedy_decode",
        "calls model.decode(memory, tokens, src_ids), the encoder's output and the tokens so "
        "far in each other's place (decode takes the target ids first): the target embedding "
        "is asked to look up the float memory, which raises inside decode at the first step.",
        (
            r"decode\(memory, tokens",
            r"(memory|encoder'?s output) and (the )?(tokens|target|prefix).{0,40}(swapped|"
            r"wrong order|each other'?s place|exchanged)",
            r"(tokens|target|prefix)( ids)? and (the )?memory.{0,40}(swapped|wrong order|"
            r"each other'?s place|exchanged)",
            r"arguments? (of|to) (model\.)?decode.{0,40}(order|swapped)",
            r"decode'?s first argument.{0,60}(memory|float|target ids|tokens)",
        ),
        (
            r"re-?(runs?|encod\w*) (the )?(encoder|source)",
            r"torch\.full.{0,40}(float|dtype)",
            r"argmax over (the )?(positions|axis 1)",
            r"(bos|<bos>) (column )?(is )?float",
        ),
        edits=(
            (
                "logits = model.decode(tokens, memory, src_ids)",
                "logits = model.decode(memory, tokens, src_ids)",
            ),
        ),
        source=ANNOTATED_DECODE_ARGS,
    ),
    _c(
        "quiz-autoregression-encoder-rerun",
        L09,
        "quiz_autoregression",
        "answers (d), that decoding runs once per token because the encoder has to run again "
        "for every new token: the source does not change, so memory is computed once; "
        "decoding is autoregressive because the token at step t is only known once the model "
        "has produced it (b).",
        (
            r"encoder.{0,60}(runs? once|computed once|does not change|doesn't change|"
            r"not (re-?run|run again)|only once)",
            r"memory.{0,40}(computed once|once|does not change|doesn't change)",
            r"source (does not|doesn't|never) change",
        ),
        (
            r"look-ahead mask.{0,40}(switched off|off at inference|still (on|applies))",
            r"(slower|faster).{0,40}one pass",
        ),
        code='def quiz_autoregression() -> str:\n    return "d"\n',
    ),
    # ----- lesson 10 -----
    _c(
        "mb-row-lists-made-before-the-loop",
        L10,
        "make_batches",
        "creates the three lists of rows once, before the loop over the batches, and appends "
        "to them in every batch: each batch holds every earlier batch's rows as well as its "
        "own (batch k has (k + 1) * batch_size rows), right only when all pairs fit in one "
        "batch.",
        (
            r"(lists?|rows?).{0,60}(before|outside) the loop",
            r"accumulat\w*|keeps? growing|never (reset|emptied|cleared)",
            r"(earlier|previous) batch(es)?'?s? rows",
            r"(each|every) batch (also )?(holds|contains|repeats) (the rows of )?(every |all )?"
            r"(the )?(earlier|previous)",
        ),
        (
            r"last batch.{0,30}(dropped|missing)",
            r"shuffl\w* (the caller|in place)",
            r"array_split",
            r"(number|count) of (batches|pieces)",
        ),
        edits=(
            (
                "        chunk = [pairs[i] for i in order[start : start + batch_size]]\n",
                "        for i in order[start : start + batch_size]:\n"
                "            source, target = pairs[i]\n"
                "            src_rows.append(list(source))\n"
                "            input_rows.append([bos_id, *target])\n"
                "            label_rows.append([*target, eos_id])\n",
            ),
            (
                "src = pad_batch([list(source) for source, _ in chunk], pad_id)",
                "src = pad_batch(src_rows, pad_id)",
            ),
            (
                "decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)",
                "decoder_input = pad_batch(input_rows, pad_id)",
            ),
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch(label_rows, pad_id)",
            ),
            (
                "    batches = []\n",
                "    batches = []\n    src_rows, input_rows, label_rows = [], [], []\n",
            ),
        ),
    ),
    _c(
        "noam-np-min-of-two-numbers",
        L10,
        "noam_lr",
        "takes the minimum with np.min(a, b) instead of min(a, b) (or np.minimum): np.min "
        "reduces one array and reads its second argument as the axis, so every call raises a "
        "TypeError (a float given as the axis).",
        (
            r"np\.min\b",
            r"numpy'?s min\b",
            r"second argument.{0,40}axis",
            r"np\.minimum|built-?in min\b|python'?s min\b",
        ),
        (
            r"zero ?division|divides? by zero|0 \*\* -0\.5",
            r"\bmax\b instead of (the )?min",
            r"returns? a (tensor|numpy)",
        ),
        edits=(
            (
                "return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)",
                "import numpy as np\n\n"
                "    return d_model**-0.5 * np.min(step**-0.5, step * warmup**-1.5)",
            ),
        ),
        source=NP_MIN_AS_MINIMUM,
    ),
    _c(
        "ls-mean-by-floor-division",
        L10,
        "label_smoothed_loss",
        "divides the summed loss by the number of real positions with // (floor division) "
        "instead of /: the mean is rounded down to a whole number (2.37 becomes 2.0), and "
        "backward raises, as floor division has no derivative.",
        (
            r"//",
            r"floor(ed)?[ -](division|divide|divided)",
            r"rounds? (it |the (loss|mean) )?(down|to a whole)",
            r"whole number|integer (division|value)",
        ),
        (
            r"(includes?|counts?) (the )?pad",
            r"\bsum\b instead of (the )?mean|not divided",
            r"(V|vocab\w*) ?- ?1\b",
            r"\bKL\b",
        ),
        edits=(("return loss[keep].mean()", "return loss[keep].sum() // keep.sum()"),),
    ),
    _c(
        "ts-logits-transposed-for-cross-entropy",
        L10,
        "train_step",
        "transposes the logits to (batch, vocab, len) before loss_fn, as nn.CrossEntropyLoss "
        "wants the class axis second, but the loss function it is given takes (..., V) logits "
        "with the vocabulary last: the loss is computed over the wrong axis (an index error "
        "or a wrong loss).",
        (
            r"transpos\w*.{0,60}(logits|class axis|vocab)",
            r"logits.{0,60}transpos",
            r"(class|vocab\w*) axis (second|in the middle|at dim(ension)? 1)",
            r"\(batch, (V|vocab\w*), len",
            r"CrossEntropyLoss'?s? (layout|convention|shape)",
        ),
        (
            r"zero_grad",
            r"clip\w* (before|after|per|every|each)",
            r"(left|stays?|still) in eval mode|model\.train\(\) (is )?(never|not) called",
            r"decoder_input.{0,30}instead of (the )?labels",
        ),
        edits=(
            (
                "loss = loss_fn(logits, labels)",
                "loss = loss_fn(logits.transpose(1, 2), labels)  # (batch, V, len)",
            ),
        ),
        source=CROSS_ENTROPY_CLASS_AXIS,
    ),
    _c(
        "ts-training-flag-set-by-hand",
        L10,
        "train_step",
        "sets model.training = True instead of calling model.train(): the flag changes on the "
        "top module only, its submodules (the dropout layers) stay in eval mode, so a model "
        "handed over in eval mode trains without dropout.",
        (
            r"\.training = True",
            r"(sets?|assign\w*) (only )?the (top(-level)?|outer) module'?s? (flag|attribute)",
            r"submodules?.{0,60}(eval|not (switched|set|put) (to|in)|stay)",
            r"(only|just) (the )?(top|outer)(-level)? module",
        ),
        (
            r"model\.train (without|is not called|no) parenthes",
            r"after the forward",
            r"zero_grad",
            r"clip\w* (before|after|per|every|each)",
        ),
        edits=(("model.train()", "model.training = True"),),
        source=TRAINING_FLAG_BY_HAND,
    ),
    # ----- lesson 11 -----
    _c(
        "ntb-windows-cast-to-int32",
        L11,
        "next_token_batches",
        "casts the token stream to int32 before gathering the windows (to halve the memory of "
        "int64 batches), so inputs and targets come back int32 instead of the int64 the "
        "contract asks for: the ids are right, but F.cross_entropy refuses int32 targets.",
        (
            r"int32.{0,60}(int64|long)|(int64|long).{0,60}int32",
            r"(should|must) be int64|expected int64|instead of int64|not int64",
        ),
        (
            r"float(32)? (table|windows?|tensor)",
            r"(without|ignores?|not using) (the )?generator|global (random )?stream",
            r"shift\w* (the wrong way|by two)|two (tokens )?ahead",
            r"transposed",
        ),
        edits=(
            (
                "return tokens[positions], tokens[positions + 1]",
                "windows = tokens.to(torch.int32)  # half the memory of int64\n"
                "    return windows[positions], windows[positions + 1]",
            ),
        ),
        source=INT32_TOKEN_BATCHES,
    ),
    _c(
        "rms-gain-named-gamma",
        L11,
        "RMSNorm",
        "names the gain gamma (self.gamma, the paper's symbol) instead of weight: the output "
        "is right, but the state dict's key is gamma, so weights saved from (or for) "
        "nn.RMSNorm and the course's models do not load.",
        (
            r"\bgamma\b",
            r"(key|name|attribute)s? .{0,40}\bweight\b.{0,40}(missing|instead|expected)",
            r"state[_ ]dict.{0,60}keys?.{0,40}(weight|gamma)",
        ),
        (
            r"(extra|learned) bias",
            r"scalar gain|one number",
            r"registered as a buffer",
            r"subtract\w* the mean",
        ),
        edits=(
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.gamma = nn.Parameter(torch.ones(d_model))",
            ),
            ("* self.weight", "* self.gamma"),
        ),
        source=RMSNORM_GAMMA_KEY,
    ),
    _c(
        "rope-base-hard-coded",
        L11,
        "rotary_embedding",
        "writes 10000 into the formula instead of the base argument, theta_i = 10000 ** "
        "(-2i / d_head): right for the default base, wrong for any other (Llama 3's 500000, "
        "a long-context model's 1e6).",
        (
            r"\bbase\b.{0,60}(ignored|not used|never used|hard-?coded|unused)",
            r"(hard-?coded|always) 10000|10000 (hard-?coded|written in|instead of (the )?base)",
            r"ignor\w* (the )?base",
        ),
        (
            r"factor (of )?2\b|without (the )?two",
            r"positions? (start|from|count) (at |from )?1",
            r"returns? float64",
            r"(cos|sin)\b.{0,20}swapped",
        ),
        edits=(("theta = base ** (", "theta = 10000.0 ** ("),),
        source=ROPE_BASE_HARD_CODED,
    ),
    _c(
        "rot-hugging-face-formula-half-tables",
        L11,
        "apply_rotary",
        "applies Hugging Face's formula x * cos + rotate_half(x) * sin to the lesson's "
        "half-width tables: Hugging Face's cos and sin are (len, d_head), the angles repeated "
        "for both halves, these are (len, d_head // 2), so the products do not broadcast (a "
        "shape error for every d_head above 2).",
        (
            r"rotate_half",
            r"(half-width|d_head ?// ?2|d_head ?/ ?2).{0,80}(tables?|cos|sin).{0,80}"
            r"(full|repeat|both halves|duplicat|\(len, d_head\))",
            r"(tables?|cos|sin).{0,60}(repeat|duplicat)\w*.{0,40}(both halves|twice)",
            r"x \* cos",
        ),
        (
            r"\bsigns?\b",
            r"adjacent pairs?|interleav",
            r"in place|overwrit",
            r"(float32|dtype) (is )?(returned|comes back)",
        ),
        edits=(
            (
                "    a, b = x[..., :half], x[..., half:]  # (..., len, d_head/2) each\n"
                "    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)  # rotate_half\n"
                "    return x * cos + rotated * sin",
            ),
        ),
        source=HF_ROTATE_HALF_TABLES,
    ),
    _c(
        "swiglu-llama-hidden-width-conversion",
        L11,
        "SwiGLU",
        "copies Llama's FeedForward conversion of the hidden width, d_ff = int(2 * d_ff / 3) "
        "rounded up to a multiple of 256, although the lesson's SwiGLU takes d_ff as the width "
        "itself: the three matrices have the wrong hidden size (256 for d_ff = 64).",
        (
            r"2 \* d_ff / 3|2/3|two.thirds",
            r"multiple(_of| of 256)",
            r"(hidden|inner) (width|size|dimension).{0,60}(256|not d_ff|instead of d_ff|"
            r"changed|rounded)",
            r"d_ff.{0,40}(rounded|converted|recomputed|rescaled|changed)",
        ),
        (
            r"biases? (added|present)|bias=True",
            r"gelu|sigmoid",
            r"gate.{0,30}(w3|swapped)",
            r"(w2|w3).{0,20}names? swapped",
        ),
        edits=(
            (
                "self.w1 = nn.Linear(d_model, d_ff, bias=False)",
                "d_ff = int(2 * d_ff / 3)\n"
                "        d_ff = 256 * ((d_ff + 255) // 256)  # Llama's multiple_of\n"
                "        self.w1 = nn.Linear(d_model, d_ff, bias=False)",
            ),
        ),
        source=LLAMA_FFN_HIDDEN_DIM,
    ),
    _c(
        "csa-rotation-results-discarded",
        L11,
        "CausalSelfAttention",
        "calls apply_rotary(q, cos, sin) and apply_rotary(k, cos, sin) without assigning their "
        "results, as if the rotation were in place: apply_rotary returns new tensors, so the "
        "queries and keys are never rotated and the attention has no position information.",
        (
            r"(results?|return values?|outputs?) (of apply_rotary )?(is |are )?(discarded|"
            r"dropped|ignored|never (assigned|used)|not assigned)",
            r"apply_rotary.{0,60}(not in place|returns? (a )?new|without assign)",
            r"(never|not) rotated|no (rotation|rope)\b|without (rope|rotation)",
        ),
        (
            r"values? (are |is )?(also )?rotated|rotat\w* (the )?values",
            r"\bbase\b.{0,30}(ignored|not passed)",
            r"d_model.{0,30}(angles|tables)",
            r"masked_fill",
        ),
        edits=(
            (
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)",
                "apply_rotary(q, cos, sin)  # rotates the queries and keys in place\n"
                "        apply_rotary(k, cos, sin)",
            ),
        ),
        source=ROPE_RESULT_DISCARDED,
    ),
    _c(
        "gpt-embeddings-scaled-by-sqrt-d-model",
        L11,
        "GPT",
        "multiplies the token embeddings by sqrt(d_model) (Gemma's normalizer, lesson 02's "
        "TokenEmbedding) before the blocks: the contract's GPT uses the embedding rows as they "
        "are, so every layer reads an input sqrt(d_model) times too large.",
        (
            r"sqrt\(d_model\)|d_model ?\*\* ?0\.5|√d_model|square root of d_model",
            r"(embeddings?|embedded tokens?|token vectors?).{0,40}(scaled|multiplied|rescaled)",
            r"gemma",
        ),
        (
            r"logits?.{0,40}(scaled|rescaled|multiplied)",
            r"initiali[sz]\w* (is |was )?wrong|(standard deviation|std) (is |of )?(not|wrong)",
            r"final norm.{0,30}(missing|twice)",
            r"position(al)? embedding",
        ),
        edits=(
            (
                "x = self.embedding(ids)  # (batch, len, d_model)",
                "x = self.embedding(ids) * self.embedding.embedding_dim**0.5  # normalizer",
            ),
        ),
        source=GEMMA_EMBEDDING_NORMALIZER,
    ),
    # ----- lesson 12 -----
    _c(
        "gen-caches-sized-for-prompt",
        L12,
        "generate",
        "makes the caches with room for the prompt only, model.new_caches(batch, len), as a "
        "cache sized by the first forward pass is: the first generated token already "
        "overflows them (a ValueError from the cache), right only for max_new_tokens = 1.",
        (
            r"new_caches\(batch, (len|length)\)",
            r"(caches?|room).{0,60}(prompt only|only (for )?the prompt|too small|not (big|large) "
            r"enough)",
            r"(len|length) \+ max_new_tokens",
            r"max_len.{0,40}(caches?).{0,40}(too small|prompt)",
        ),
        (
            r"\bstart\b.{0,30}(wrong|off by|should be)",
            r"re-?feeds?|whole sequence",
            r"prefill without (the )?caches?",
            r"new caches? (every|each|at every) step",
        ),
        edits=(
            (
                "caches = model.new_caches(batch, length + max_new_tokens)",
                "caches = model.new_caches(batch, length)  # room for the prompt",
            ),
        ),
        source=CACHE_SIZED_BY_PROMPT,
    ),
    _c(
        "gqa-values-not-repeated",
        L12,
        "grouped_query_attention",
        "repeats the keys to the query heads but not the values: with a group above one and "
        "more than one key/value head the product of the weights with v has num_kv_heads "
        "heads against num_heads (a shape error); multi-query (one key/value head) and group "
        "1 are right by broadcasting.",
        (
            r"values? (are |is )?(not|never) (repeated|expanded|copied)",
            r"(only|just) the keys",
            r"(repeat|cop)\w* (only )?the keys?.{0,40}(not|but not) (the )?values?",
            r"\bv\b.{0,30}(not|never) (repeated|expanded)",
        ),
        (
            r"\.repeat\(|\[k0, k1, k0, k1\]|interleav\w* order|wrong pairing",
            r"dim=2|length axis",
            r"mask.{0,30}repeat",
            r"keys and values (are )?swapped",
        ),
        edits=(
            ("    v = v.repeat_interleave(group, dim=1)  # (batch, num_heads, len_k, d_v)\n", ""),
        ),
    ),
    _c(
        "os-block-max-pair-into-maximum",
        L12,
        "online_softmax",
        "takes each block's maximum with block.max(dim=-1), which returns a (values, indices) "
        "pair, and hands the pair to torch.maximum: a TypeError on every call (.amax(dim=-1) "
        "or .max(dim=-1).values is the tensor of maxima).",
        (
            r"\(values, indices\)|values and indices|named ?tuple",
            r"\.max\(dim=-1\)(?!\.values)",
            r"\.values\b",
            r"\bamax\b",
        ),
        (
            r"starts? at 0|initiali[sz]\w* (at|to|with) 0",
            r"block'?s own max",
            r"inverted|exp\(m' - m\)",
            r"without dim|over the whole tensor",
        ),
        edits=(
            (
                "new_max = torch.maximum(running_max, block.amax(dim=-1))",
                "new_max = torch.maximum(running_max, block.max(dim=-1))",
            ),
        ),
        source=MAX_RETURNS_NAMEDTUPLE,
    ),
    _c(
        "tiled-output-accumulator-like-queries",
        L12,
        "tiled_attention",
        "allocates the running output with torch.zeros_like(q), (..., len_q, d_k), instead of "
        "(..., len_q, d_v): right whenever d_v == d_k, a shape error when the values are "
        "narrower or wider than the keys.",
        (
            r"zeros_like\(q\)",
            r"(running |accumulated )?(output|acc\w*).{0,60}(d_k|quer(y|ies)'?s? (shape|width))"
            r".{0,40}(instead of|not) (d_v|the values?)",
            r"(shaped|sized) like (the )?quer(y|ies)",
        ),
        (
            r"zeros_like\(v\)",
            r"scal\w* (by|with) .{0,20}(d_v|v\.shape)",
            r"keys? (block )?(as|instead of) (the )?values",
            r"v\[\.\.\., start:stop\]",
        ),
        edits=(
            (
                "acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)",
                "acc = torch.zeros_like(q)",
            ),
        ),
    ),
    _c(
        "sw-additive-log-mask",
        L12,
        "sliding_window_mask",
        "returns Mistral's additive mask, torch.log of the 0/1 band (0.0 where a query may "
        "attend, -inf where it may not), a float tensor to add to the scores, instead of the "
        "course's bool mask with True = may attend.",
        (
            r"additive",
            r"-inf",
            r"torch\.log|log of",
            r"float (mask|tensor).{0,60}(0\.0|add)",
        ),
        (
            r"one too (many|few|wide|narrow)|window \+ 1 (keys|positions)",
            r"not causal|(sees?|attends? to) (the )?(future|later keys)",
            r"transposed",
            r"0\.0?/1\.0?|0\.? and 1\.?\b|ones and zeros",
        ),
        edits=(
            (
                "    return look_ahead_mask(size) & recent  # (size, size)",
                "    band = (look_ahead_mask(size) & recent).float()\n"
                "    return torch.log(band)  # 0 where allowed, -inf where blocked",
            ),
        ),
        source=MISTRAL_ADDITIVE_MASK,
    ),
]
