"""Held-out wrong answers, blind round 19 (helper b19d, 2026-11-28): mistakes new to the
benchmark, written blind (no check module, no message read) while fix round 21 changed the
checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

# Where these mistakes are reported (each URL was read for this batch).
NORMALIZE_IN_PLACE = "https://github.com/pytorch/vision/pull/520"
FREQS_OVERFLOW = "https://github.com/tinygrad/tinygrad/pull/4587"
ROTARY_IN_PLACE_HAZARD = "https://github.com/flagos-ai/FlagGems/issues/5142"
SWISH_NOT_FOUND = "https://github.com/NVIDIA-NeMo/Speech/pull/2239"
SWISH_BETA = "https://github.com/katsura-jp/efficientnet-pytorch/issues/4"
ROTARY_HEAD_AXIS = "https://github.com/mlfoundations/open_lm/issues/4"
BATCH_SEQ_AXES = "https://github.com/IBM/TabFormer/pull/14"
MAX_LENGTH_TOTAL = "https://github.com/01-ai/Yi/issues/46"
QKV_ORDER = "https://github.com/feinanshan/TDNet/issues/17"
SCALE_AFTER_SOFTMAX = "https://github.com/FrancescoSaverioZuppichini/ViT/issues/2"
SINK_WINDOW = "https://github.com/meta-pytorch/attention-gym/pull/148"

_c = held_out_authored("blind19d")

_GENERATE_LOOP = (
    "    for step in range(max_new_tokens):\n"
    "        steps.append(logits)\n"
    "        next_id = logits.argmax(dim=-1, keepdim=True)  # (batch, 1)\n"
    "        ids = torch.cat([ids, next_id], dim=1)\n"
    "        if step + 1 < max_new_tokens:\n"
    "            logits = model(next_id, caches=caches, start=length + step)[:, -1]\n"
)

BLIND19D: list[Case] = [
    # ------------------------------------------------------------ 11: next_token_batches
    _c(
        "ntb-offsets-added-to-token-ids",
        L11,
        "next_token_batches",
        "closes the index bracket too early, tokens[starts][:, None] + torch.arange(block_size) "
        "(and tokens[starts + 1][:, None] + ... for the targets): the offsets are added to the "
        "ids of the start tokens instead of to the start positions, so each window is its first "
        "token's id counting up, not the tokens of the stream.",
        (
            r"offsets? .{0,60}(added|adds?) to the (token )?(ids|values)",
            r"(token )?(ids|values) (rather|instead) (of|than) (to )?(the )?(positions|starts)",
            r"tokens\[starts\]\[:, None\]",
            r"add\w* .{0,40}arange.{0,40}(to|onto) the (token )?(ids|values)",
            r"(bracket|index)\w* .{0,30}(too early|closed early|in the wrong place)",
            r"(counting|counts) up",
            r"consecutive (ids|values|integers)",
        ),
        (
            r"global (random )?(generator|stream)",
            r"(last|final) (valid )?start",
            r"randperm|without replacement",
            r"transpos",
        ),
        edits=(
            (
                "    positions = starts[:, None] + torch.arange(block_size)  # (batch_size, block_size)\n"
                "    return tokens[positions], tokens[positions + 1]",
                "    inputs = tokens[starts][:, None] + torch.arange(block_size)\n"
                "    targets = tokens[starts + 1][:, None] + torch.arange(block_size)\n"
                "    return inputs, targets",
            ),
        ),
    ),
    _c(
        "ntb-size-parameters-declared-swapped",
        L11,
        "next_token_batches",
        "declares the parameters as (tokens, batch_size, block_size, generator), the two sizes "
        "in the other order: called as the contract says, it draws block_size windows of "
        "batch_size tokens, tables of shape (block_size, batch_size); right only when the two "
        "sizes are equal.",
        (
            r"(parameters?|arguments?) .{0,40}(order|swapped|exchanged|wrong way)",
            r"(batch_size|block_size) and (block_size|batch_size) (are )?"
            r"(swapped|exchanged|the wrong way|mixed up)",
            r"signature",
        ),
        (
            r"transpos\w* (the )?(table|positions|result|windows)",
            r"time.major",
            r"arange\(batch_size\)",
            r"global (random )?(generator|stream)",
        ),
        edits=(
            (
                "tokens: torch.Tensor, block_size: int, batch_size: int, generator: torch.Generator",
                "tokens: torch.Tensor, batch_size: int, block_size: int, generator: torch.Generator",
            ),
        ),
    ),
    # ------------------------------------------------------------------- 11: RMSNorm
    _c(
        "rms-squares-input-in-place",
        L11,
        "RMSNorm",
        "takes the mean square with the in-place x.pow_(2): the caller's tensor is overwritten "
        "with its squares, and the output is then computed from those squares, x**2 / rms, "
        "instead of x (and a tensor that requires grad raises).",
        (
            r"pow_",
            r"in.place",
            r"(overwrit|modifi|chang)\w* (the )?(caller's |input |given )?(x|input|tensor)",
            r"squares? .{0,40}(instead of|rather than|in place of) x\b",
        ),
        (
            r"eps.{0,30}outside",
            r"(square )?root (is )?missing|without (the )?square root",
            r"l2 norm",
            r"subtract\w* (the )?mean",
        ),
        source=NORMALIZE_IN_PLACE,
        edits=(
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.pow_(2).mean(dim=-1, keepdim=True)",
            ),
        ),
    ),
    _c(
        "rms-gain-applied-with-matmul",
        L11,
        "RMSNorm",
        "applies the gain with @ instead of *, x * rsqrt(mean_square + eps) @ weight: the "
        "product with the (d_model,) vector sums each token's normalised features into one "
        "number, so the output is (...) instead of (..., d_model).",
        (
            r"@",
            r"matrix (product|multiplication)|matmul",
            r"element.?wise",
            r"dot product",
        ),
        (
            r"keepdim",
            r"l2 norm",
            r"mean over (the )?(whole|all)",
            r"(gain|weight) (is )?(missing|never (used|applied))",
        ),
        edits=(
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return x * torch.rsqrt(mean_square + self.eps) @ self.weight",
            ),
        ),
    ),
    # ---------------------------------------------------------- 11: rotary_embedding
    _c(
        "rope-power-before-root-overflows",
        L11,
        "rotary_embedding",
        "computes theta_i as 1 / (base ** (2i)) ** (1 / d_head) in float32, raising the base to "
        "the whole even index before taking the d_head-th root: base ** (2i) overflows to inf "
        "from 2i = 10 on (1e40 is past float32's 3.4e38), so every pair from the sixth on gets "
        "theta = 0 and is never rotated; heads of d_head <= 10 are right.",
        (
            r"overflow",
            r"\binf\b|infinit",
            r"(theta|frequenc\w*) .{0,40}(zero|\b0\b)",
            r"later pairs .{0,30}(never|not) rotated",
            r"float32 .{0,40}(range|too large|exceed)",
        ),
        (
            r"factor (of )?(2|two)|without (the )?two|i / d_head",
            r"base (is )?(ignored|inverted)",
            r"positions? (start|from) (at )?1",
            r"integer division|//",
            r"float64",
        ),
        source=FREQS_OVERFLOW,
        edits=(
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = 1 / (base ** torch.arange(0, d_head, 2, dtype=torch.float32)) ** (1 / d_head)",
            ),
        ),
    ),
    # --------------------------------------------------------------- 11: apply_rotary
    _c(
        "rot-second-half-from-rotated-view",
        L11,
        "apply_rotary",
        "clones x and writes the two rotated halves into the clone one after the other, but a "
        "and b are views of that clone: when the second half is computed, a already holds the "
        "rotated first half, so the second half is wrong at every position but 0 (x itself is "
        "not modified).",
        (
            r"\bviews?\b",
            r"already (been )?(rotated|overwritten|updated|written)",
            r"(overwrit|modif)\w* .{0,40}before .{0,40}(second|other) half",
            r"(second|other) half .{0,60}(rotated|new|updated) (first half|values)",
            r"in.place .{0,60}(\ba\b|first half)",
        ),
        (
            r"(caller's|input) (x|queries|keys|tensor) (is |are )?(modified|overwritten)",
            r"minus sign|wrong sign",
            r"rotat\w* (the )?wrong way|backwards",
            r"cos and sin (are )?swapped",
            r"halves? (are )?(swapped|in the wrong order)",
        ),
        source=ROTARY_IN_PLACE_HAZARD,
        edits=(
            (
                "    a, b = x[..., :half], x[..., half:]  # (..., len, d_head/2) each\n"
                "    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "    out = x.clone()\n"
                "    a, b = out[..., :half], out[..., half:]  # (..., len, d_head/2) each\n"
                "    out[..., :half] = a * cos - b * sin\n"
                "    out[..., half:] = a * sin + b * cos\n"
                "    return out",
            ),
        ),
    ),
    # ----------------------------------------------------------- 11: quiz_rope_values
    _c(
        "quiz-rope-values-answer-text",
        L11,
        "quiz_rope_values",
        "returns the answer's words, 'queries and keys only', instead of its letter 'c'.",
        (
            r"(not|isn't) (a|one of the) (single )?letters?",
            r"(return|give|answer with) (only |just )?(the |a )?(single )?letter",
            r"letter,? not (the |its )?(text|words|sentence)",
            r"one of .{0,6}a.{0,6}b.{0,6}c.{0,6}d\b",
        ),
        (
            r"rotat\w* the values|values (are )?rotated",
            r"embeddings",
            r"attention weights",
            r"print",
        ),
        edits=(('return "c"', 'return "queries and keys only"'),),
    ),
    # --------------------------------------------------------------------- 11: SwiGLU
    _c(
        "swiglu-hardswish-gate",
        L11,
        "SwiGLU",
        "gates with F.hardswish (MobileNetV3's piecewise approximation, found when looking for "
        "'swish') instead of F.silu: the gate is wrong wherever |w1(x)| < 3.",
        (
            r"hard.?swish",
            r"piece.?wise (linear )?(approximation|version|swish)",
        ),
        (
            r"\bgelu\b",
            r"\brelu\b(?!6)",
            r"\bselu\b",
            r"plain sigmoid|\bglu\b",
            r"silu (applied )?(to|on) (the )?value",
        ),
        source=SWISH_NOT_FOUND,
        edits=(("F.silu(self.w1(x))", "F.hardswish(self.w1(x))"),),
    ),
    _c(
        "swiglu-trainable-swish-beta",
        L11,
        "SwiGLU",
        "writes the gate as the Swish paper's z * sigmoid(beta * z) with a learned beta, "
        "nn.Parameter(torch.ones(1)): the values are right while beta is 1, but the module has a "
        "fourth parameter and an extra state-dict key beta that the contract's SwiGLU (SiLU, "
        "beta fixed at 1) has not.",
        (
            r"\bbeta\b",
            r"learn\w* (slope|scale|factor) (in|inside) the sigmoid",
        ),
        (
            r"\bbias(es)?\b",
            r"w13|fused",
            r"gate_proj|hugging face",
            r"dropout",
        ),
        source=SWISH_BETA,
        edits=(
            (
                "self.w2 = nn.Linear(d_ff, d_model, bias=False)",
                "self.w2 = nn.Linear(d_ff, d_model, bias=False)\n"
                "        self.beta = nn.Parameter(torch.ones(1))  # Swish's learned slope",
            ),
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "gate = self.w1(x)\n"
                "        return self.w2(gate * torch.sigmoid(self.beta * gate) * self.w3(x))",
            ),
        ),
    ),
    # -------------------------------------------------------- 11: CausalSelfAttention
    _c(
        "csa-residual-added-inside",
        L11,
        "CausalSelfAttention",
        "adds the input back inside the attention, x + w_o(merge_heads(heads)), as if the "
        "attention owned its residual connection: the output is the attention plus x, and the "
        "block adds x a second time.",
        (
            r"residual",
            r"adds? (the )?(input|x) (back|again|to (the|its) output)",
            r"x \+ self\.w_o",
            r"(input|x) (is )?added",
        ),
        (
            r"(no|missing|without) (the )?(output )?projection|w_o (is )?(missing|never)",
            r"(no|missing|without) (the )?(causal )?mask",
            r"sees? the future",
            r"rotat\w* (the )?values",
            r"\bscal(e|ing) (is )?(missing|wrong)",
        ),
        edits=(
            (
                "return self.w_o(merge_heads(heads))  # (batch, len, d_model)",
                "return x + self.w_o(merge_heads(heads))  # (batch, len, d_model)",
            ),
        ),
    ),
    _c(
        "csa-rotates-before-heads-transposed",
        L11,
        "CausalSelfAttention",
        "views the queries and keys as (batch, len, num_heads, d_head) and rotates them in that "
        "layout, transposing to (batch, num_heads, len, d_head) only afterwards: apply_rotary "
        "reads the second-last axis as the positions, so the tables meet the heads axis (a raw "
        "shape error unless num_heads equals len or 1, each head rotated by its head index "
        "when it does).",
        (
            r"(before|prior to) (the )?(heads? (are |is )?)?transpos",
            r"heads? axis .{0,40}(as|for|taken as|read as) (the )?positions?",
            r"positions? .{0,40}(on|along|meet|against) the heads? axis",
            r"\(batch, len, num_heads, d_head\)",
        ),
        (
            r"rotat\w* (the )?values",
            r"d_model",
            r"adjacent|interleav|rotate.half",
            r"\bbase\b",
        ),
        source=ROTARY_HEAD_AXIS,
        edits=(
            (
                "        q = split_heads(self.w_q(x), self.num_heads)  # (batch, num_heads, len, d_head)\n"
                "        k = split_heads(self.w_k(x), self.num_heads)  # (batch, num_heads, len, d_head)\n",
                "        q = self.w_q(x).view(x.shape[0], length, self.num_heads, self.d_head)\n"
                "        k = self.w_k(x).view(x.shape[0], length, self.num_heads, self.d_head)\n",
            ),
            (
                "        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)\n",
                "        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)\n"
                "        q, k = q.transpose(1, 2), k.transpose(1, 2)  # (batch, num_heads, len, d_head)\n",
            ),
        ),
    ),
    # -------------------------------------------------------------- 11: DecoderBlock
    _c(
        "block-norm2-given-d-ff-as-eps",
        L11,
        "DecoderBlock",
        "builds norm2 as RMSNorm(d_model, d_ff), the feed-forward's width where eps belongs: "
        "the norm in front of the feed-forward adds d_ff (e.g. 64) under the square root, so "
        "its output is far too small and the feed-forward barely contributes.",
        (
            r"RMSNorm\(d_model, d_ff\)",
            r"d_ff .{0,40}(as|for|in place of|where) (the )?eps",
            r"eps (of|=|is) ?\d{2,}",
            r"eps .{0,30}(d_ff|too large|huge)",
        ),
        (
            r"RMSNorm\(d_ff",
            r"norm2 (is )?(never used|missing|skipped)",
            r"norms? (are )?swapped",
            r"shared norm|one norm",
        ),
        edits=(("self.norm2 = RMSNorm(d_model, eps)", "self.norm2 = RMSNorm(d_model, d_ff)"),),
    ),
    # ----------------------------------------------------------------------- 11: GPT
    _c(
        "gpt-ids-made-sequence-first",
        L11,
        "GPT",
        "transposes the ids to sequence-first, embedding(ids.T), as for nn.Transformer's "
        "default layout, and the logits back at the end, although the blocks take (batch, len, "
        "d_model): every block attends along the batch axis, so the sequences of a batch mix "
        "and no position sees the earlier positions of its own sequence.",
        (
            r"sequence.first|seq.first|time.major",
            r"(ids|input)\.T\b",
            r"transpos\w* (the )?(ids|input)",
            r"(attends?|attention|mix\w*) (along|across|over) (the )?batch",
            r"batch axis .{0,40}(as|for) (the )?(positions|sequence|length)",
        ),
        (
            r"(sees?|leak\w*) (the )?future|not causal",
            r"final norm (is )?(missing|skipped|applied twice)",
            r"\buntied|not tied",
            r"position(al)? embedding",
        ),
        source=BATCH_SEQ_AXES,
        edits=(
            (
                "        x = self.embedding(ids)  # (batch, len, d_model)\n",
                "        x = self.embedding(ids.T)  # (len, batch, d_model): sequence first\n",
            ),
            (
                "return self.norm(x) @ self.embedding.weight.T  # (batch, len, vocab)",
                "return (self.norm(x) @ self.embedding.weight.T).transpose(0, 1)",
            ),
        ),
    ),
    # --------------------------------------------------------------------- 11: sample
    _c(
        "sample-temperature-floor-division",
        L11,
        "sample",
        "divides the logits by the temperature with floor division, logits // temperature, "
        "which rounds every tempered logit down to a whole number: close logits become ties "
        "and the distribution is wrong at every temperature (greedy, temperature 0, is right).",
        (
            r"//",
            r"floor",
            r"round\w* (down|to (a )?whole|to integers?)",
            r"integer division",
        ),
        (
            r"in.place",
            r"multipl\w* (the logits )?by (the )?temperature",
            r"temperature (applied )?(to|on) (the )?probabilit",
            r"global (random )?generator",
        ),
        edits=(
            (
                "logits = logits / temperature  # (batch, vocab)",
                "logits = logits // temperature  # (batch, vocab)",
            ),
        ),
    ),
    # ----------------------------------------------------------- 11: quiz_temperature
    _c(
        "quiz-temperature-letter-with-reason",
        L11,
        "quiz_temperature",
        "returns the letter followed by its reason, 'b: multinomial renormalises', instead of "
        "the letter alone.",
        (
            r"letter alone|only the letter|just the letter|single letter",
            r"(extra|additional) (text|words|characters)",
            r"(not|isn't) (a|one of the) (single )?letters?",
            r"one of .{0,6}a.{0,6}b.{0,6}c.{0,6}d\b",
        ),
        (
            r"sharpen",
            r"flatten",
            r"raises",
            r"print",
        ),
        edits=(('return "b"', 'return "b: multinomial renormalises"'),),
    ),
    # -------------------------------------------------------------------- 12: KVCache
    _c(
        "kv-max-len-never-stored",
        L12,
        "KVCache",
        "tests the capacity against self.max_len, an attribute the constructor never sets (it "
        "keeps max_len only in the buffers' shape): every call raises a raw AttributeError "
        "before anything is stored.",
        (
            r"max_len.{0,60}(never|not) (set|stored|saved|assigned|kept)",
            r"(store|save|keep|set) (self\.)?max_len (in|inside) (the )?(constructor|__init__)",
            r"__init__ .{0,60}(never|does not|doesn't) (set|store|save|assign)\w* .{0,20}max_len",
            r"self\.max_len = max_len",
            r"shape\[-2\]",
        ),
        (
            r"(must|should) raise (a )?ValueError",
            r"persistent",
            r"ignores? the dtype",
            r"length (is )?(never|not) advanced",
        ),
        edits=(("if stop > self.keys.shape[-2]:", "if stop > self.max_len:"),),
    ),
    _c(
        "kv-length-kept-as-persistent-buffer",
        L12,
        "KVCache",
        "keeps the count of stored positions as a registered tensor, register_buffer('length', "
        "torch.tensor(0)), persistent by default, and advances it in place: the positions "
        "returned are right, but the cache's state_dict holds a key length (a cache is state, "
        "not weights) and self.length is a tensor, not the plain int.",
        (
            r"\blength\b.{0,30}(is |as )?(a )?(registered |persistent )?buffer",
            r"state.?dict.{0,80}['\"]?\blength\b",
            r"self\.length .{0,30}(a |is a )?tensor",
            r"(plain|python) int",
        ),
        (
            r"(keys|values) (buffers? )?(are |is )?(registered )?persistent|persistent=True",
            r"ignores? the dtype",
            r"(writes?|stored?) at (position )?0",
            r"returns? (only )?the new",
        ),
        edits=(
            (
                "        self.length = 0\n",
                '        self.register_buffer("length", torch.tensor(0))\n',
            ),
            ("        self.length = stop\n", "        self.length += k_new.shape[-2]\n"),
        ),
    ),
    # ------------------------------------------------------------------- 12: generate
    _c(
        "gen-feeds-token-before-appending",
        L12,
        "generate",
        "runs each step's forward on ids[:, -1:] before appending the token just chosen: every "
        "step feeds the token before it (the prompt's last token again, at position len, on the "
        "first step), so from the second new token on the model continues another text; "
        "max_new_tokens = 1 is right.",
        (
            r"before (it is |being )?(append|concatenat|add)\w*",
            r"(previous|stale|old) token",
            r"(feeds?|fed) .{0,40}(previous|old|stale|wrong|last prompt) token",
            r"(last )?prompt('s)? (last )?token .{0,30}(again|twice)",
            r"one (token|step) behind",
            r"order of (the )?(statements|lines)",
        ),
        (
            r"start (is )?(wrong|off)|one position too far",
            r"logits? .{0,30}one step late",
            r"(prompt|prefill) (is )?(run )?without (the )?caches?",
            r"(fresh|new) caches? (at )?(each|every) step",
        ),
        edits=(
            (
                _GENERATE_LOOP,
                "    for step in range(max_new_tokens):\n"
                "        steps.append(logits)\n"
                "        next_id = logits.argmax(dim=-1, keepdim=True)  # (batch, 1)\n"
                "        if step + 1 < max_new_tokens:\n"
                "            logits = model(ids[:, -1:], caches=caches, start=length + step)[:, -1]\n"
                "        ids = torch.cat([ids, next_id], dim=1)\n",
            ),
        ),
    ),
    _c(
        "gen-max-new-tokens-read-as-total-length",
        L12,
        "generate",
        "reads max_new_tokens as the total length to reach, prompt included (Hugging Face's "
        "max_length), and loops while ids has fewer than max_new_tokens tokens: it generates "
        "max_new_tokens - len tokens, and none (a raw error from torch.stack) when the prompt "
        "is that long already.",
        (
            r"total length",
            r"prompt (length )?included|includ\w* the prompt",
            r"max_length",
            r"max_new_tokens - len|minus the prompt",
            r"count\w* the prompt",
        ),
        (
            r"one (token )?(too few|short)",
            r"one (token )?too many",
            r"start (is )?(wrong|off)",
            r"one step late",
        ),
        source=MAX_LENGTH_TOTAL,
        edits=(
            (
                _GENERATE_LOOP,
                "    step = 0\n"
                "    while ids.shape[1] < max_new_tokens:\n"
                "        steps.append(logits)\n"
                "        next_id = logits.argmax(dim=-1, keepdim=True)  # (batch, 1)\n"
                "        ids = torch.cat([ids, next_id], dim=1)\n"
                "        if ids.shape[1] < max_new_tokens:\n"
                "            logits = model(next_id, caches=caches, start=length + step)[:, -1]\n"
                "        step += 1\n",
            ),
        ),
    ),
    # ---------------------------------------------------- 12: grouped_query_attention
    _c(
        "gqa-keys-and-values-swapped-in-call",
        L12,
        "grouped_query_attention",
        "passes the repeated keys and values to the attention in the wrong order, "
        "scaled_dot_product_attention(q, v, k, mask): the scores are taken against the values "
        "and the keys are averaged (a raw shape error when d_v != d_head).",
        (
            r"(keys|\bk\b) and (the )?(values|\bv\b) (are )?"
            r"(swapped|exchanged|the wrong way|in the wrong order)",
            r"(values|\bv\b) and (the )?(keys|\bk\b) (are )?"
            r"(swapped|exchanged|the wrong way|in the wrong order)",
            r"\(q, v, k",
            r"scores? .{0,40}(against|with|from) the values",
            r"argument order",
        ),
        (
            r"\btil(e|es|ing)\b|\[k0, k1",
            r"repeat\w* .{0,30}(length|position|batch) axis",
            r"values? (are )?not repeated",
            r"values? (built )?from (the )?keys",
            r"mask (is )?(ignored|inverted|dropped)",
        ),
        source=QKV_ORDER,
        edits=(
            (
                "output, _ = scaled_dot_product_attention(q, k, v, mask)",
                "output, _ = scaled_dot_product_attention(q, v, k, mask)",
            ),
        ),
    ),
    _c(
        "gqa-mask-squeezed",
        L12,
        "grouped_query_attention",
        "squeezes the mask (mask.squeeze()) to drop its axes of size one: a (batch, 1, 1, "
        "len_k) padding mask becomes (batch, len_k), whose batch axis then lines up with the "
        "queries' axis: right for a batch of one or a mask without size-one axes, wrong (or a "
        "raw shape error) otherwise.",
        (
            r"squeez",
            r"batch axis .{0,40}(lines? up|aligned|broadcast\w*) .{0,30}quer",
            r"(axes|dimensions) of size (one|1) .{0,30}(dropped|removed)",
        ),
        (
            r"mask (is )?(ignored|never (used|applied|passed))",
            r"invert\w*|polarity",
            r"repeat\w* the mask",
            r"\btil(e|es|ing)\b|\[k0, k1",
        ),
        edits=(
            (
                "    output, _ = scaled_dot_product_attention(q, k, v, mask)",
                "    if mask is not None:\n"
                "        mask = mask.squeeze()  # drop the broadcast axes\n"
                "    output, _ = scaled_dot_product_attention(q, k, v, mask)",
            ),
        ),
    ),
    # ---------------------------------------------------------- 12: quiz_cache_memory
    _c(
        "quiz-cache-memory-answers-the-saving",
        L12,
        "quiz_cache_memory",
        "answers what grouped-query attention saves, the cache of 32 key/value heads minus "
        "that of 8 (576 MiB), reading the question's title, instead of the cache's size with "
        "8 key/value heads (192 MiB).",
        (
            r"(amount|memory) (saved|it saves)|the saving\b",
            r"savings? (instead of|rather than|not) (the )?(size|cache)",
            r"(difference|minus|subtract\w*) .{0,60}(multi-head|32 (key/value|query) heads)",
            r"(size|cache) itself,? not (the )?sav",
        ),
        (
            r"counts? (the )?32 query heads|query heads instead of",
            r"(factor|keys and values).{0,20}\b(2|two)\b",
            r"10\*\*6|megabytes",
            r"\bGiB\b",
        ),
        edits=(
            (
                "return 2 * 48 * 8 * 128 * 1024 * 2 / 2**20",
                "return (2 * 48 * 32 * 128 * 1024 * 2 - 2 * 48 * 8 * 128 * 1024 * 2) / 2**20",
            ),
        ),
    ),
    # ------------------------------------------------------------- 12: online_softmax
    _c(
        "online-correction-on-new-block-sum",
        L12,
        "online_softmax",
        "puts the rescaling factor on the new block's sum instead of the old running sum, "
        "total + exp(m - m') * sum(exp(block - m')): the first block's sum is multiplied by "
        "exp(-inf) = 0 and lost, and the old sum is never rescaled when the maximum grows, so "
        "the rows do not sum to 1 (inf or NaN when one block covers the row).",
        (
            r"(factor|correction|rescal\w*) .{0,60}(new|current|block's) (block|sum|terms)",
            r"(old|running|previous) (running )?sum.{0,40}(not|never) (rescaled|multiplied)",
            r"wrong (term|side|sum)",
            r"first block.{0,40}(lost|zero|dropped)",
        ),
        (
            r"(factor|correction) (is )?inverted|exp\(new_max - running_max\)",
            r"(last|shorter) block (is )?(skipped|dropped)",
            r"(starts?|initiali[sz]ed) at (0|zero)",
            r"in.place",
        ),
        edits=(
            (
                "total = total * torch.exp(running_max - new_max) + torch.exp(",
                "total = total + torch.exp(running_max - new_max) * torch.exp(",
            ),
        ),
    ),
    # ------------------------------------------------------------ 12: tiled_attention
    _c(
        "tiled-scale-on-value-block",
        L12,
        "tiled_attention",
        "multiplies each value block by 1/sqrt(d_k) instead of the scores: the softmax is "
        "taken over unscaled scores and the output comes out 1/sqrt(d_k) times too small (the "
        "same as scaling the weights after the softmax).",
        (
            r"scal\w* .{0,40}(values?|v block|value block)",
            r"values? .{0,40}(scaled|multiplied by (the )?scale)",
            r"after the (softmax|exp)",
            r"(output|result) .{0,40}(too small|scaled down)",
        ),
        (
            r"forg[eo]t\w* (the |to )?scal",
            r"1 ?/ ?d_k\b|muP",
            r"(acc|output|running output) (is )?(not|never) rescaled",
            r"(causal|mask)\w* .{0,20}(wrong|bottom.right|diagonal)",
        ),
        source=SCALE_AFTER_SOFTMAX,
        edits=(
            (
                "scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale",
                "scores = q @ k[..., start:stop, :].transpose(-2, -1)",
            ),
            (
                "weights @ v[..., start:stop, :]",
                "weights @ (v[..., start:stop, :] * scale)",
            ),
        ),
    ),
    # -------------------------------------------------------- 12: sliding_window_mask
    _c(
        "sliding-window-with-attention-sink",
        L12,
        "sliding_window_mask",
        "adds an attention sink (StreamingLLM, from section 8's outlook): every query may "
        "also attend to key 0, the first token, even when it is more than window - 1 positions "
        "back; right for the first window rows and when window >= size.",
        (
            r"\bsinks?\b",
            r"(key|column|position|token) 0\b",
            r"first (key|token|column|position)",
            r"(always|every query) .{0,30}(sees?|attend\w*) .{0,20}(the )?first",
        ),
        (
            r"window \+ 1|one too (wide|many)",
            r"not causal|the future",
            r"transpos",
            r"(both|two) sides|symmetric",
        ),
        source=SINK_WINDOW,
        edits=(
            (
                "    return look_ahead_mask(size) & recent  # (size, size)",
                "    recent[:, 0] = True  # attention sink: every query keeps the first token\n"
                "    return look_ahead_mask(size) & recent  # (size, size)",
            ),
        ),
    ),
]
