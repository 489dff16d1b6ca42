"""Held-out wrong answers for lessons 11, blind round 16 (helper b16b, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 18's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 22 cases over the
nine coded exercises and the two questions; five transpose a mistake reported in public
(the URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11 = "11_language_model"

# The reports these cases transpose (each read with the search tool for this benchmark).
RMS_FROM_L2_NORM = "https://github.com/allenai/OLMo/issues/281"
ROPE_CACHE_KEY = "https://github.com/lucidrains/rotary-embedding-torch/issues/11"
MODULES_IN_DICT = "https://github.com/pytorch/pytorch/issues/632"
ATTENTION_RETURNS_TUPLE = "https://github.com/sksq96/pytorch-summary/pull/191"
TOP_P_NOT_UNSORTED = "https://github.com/lucidrains/PaLM-rlhf-pytorch/issues/60"


_c = held_out_authored("blind16b")

BLIND16B: list[Case] = [
    # ------------------------------------------------------------------ next_token_batches
    _c(
        "ntb-returns-one-stacked-tensor",
        L11,
        "next_token_batches",
        "returns one stacked tensor, torch.stack([inputs, targets]) of shape (2, batch_size, "
        "block_size), instead of the tuple (inputs, targets): the values are right and "
        "unpacking it by iteration works, but it is not a tuple of two tensors.",
        (
            r"stack(ed)?\b.{0,60}(tensor|inputs|\(2,)",
            r"(one|a single) (stacked )?tensor",
            r"not a tuple",
            r"tuple of two",
            r"\(2, ?\d+, ?\d+\)",
        ),
        (
            r"(inputs and targets|the two tables) (are )?(swapped|the wrong way)",
            r"(transposed|time.major)",
            r"global random",
            r"not shifted",
        ),
        edits=[
            (
                "return tokens[positions], tokens[positions + 1]",
                "return torch.stack([tokens[positions], tokens[positions + 1]])  # (2, B, T)",
            )
        ],
    ),
    _c(
        "ntb-starts-not-a-column",
        L11,
        "next_token_batches",
        "adds the offsets to the starts without making the starts a column, starts + "
        "torch.arange(block_size) instead of starts[:, None] + ...: a raw broadcasting error "
        "unless batch_size is 1 or equals block_size, and then a 1-D (block_size,) table "
        "(start_i + i, not a window per row).",
        (
            r"\[:, ?None\]",
            r"unsqueeze",
            r"starts.{0,80}(column|own axis|new axis|extra axis)",
            r"column of starts",
            r"outer (sum|product|addition)",
            r"(add|broadcast)\w* .{0,40}(along|on) (one|the same) axis",
        ),
        (
            r"block_size starts",
            r"(inputs and targets|two tables) (are )?swapped",
            r"global random",
            r"(transposed|time.major)",
            r"arange\(batch_size\)",
        ),
        edits=[
            (
                "positions = starts[:, None] + torch.arange(block_size)",
                "positions = starts + torch.arange(block_size)",
            )
        ],
    ),
    # ------------------------------------------------------------------ RMSNorm
    _c(
        "rms-l2-norm-over-d-model",
        L11,
        "RMSNorm",
        "computes the root mean square from the L2 norm but divides it by d_model instead "
        "of sqrt(d_model) (x.norm(dim=-1) / d_model), so the statistic is sqrt(d_model) "
        "times too small and every output sqrt(d_model) times too large.",
        (
            r"sqrt\(d_model\) times too (large|big)",
            r"too (large|big) by (a factor (of )?)?sqrt\(d_model\)",
            r"d_model (instead of|rather than|not) (its |the )?(square root|sqrt)",
            r"(square root|sqrt) of d_model",
            r"d_model \*\* ?\(?-?(0\.5|1 ?/ ?2)",
        ),
        (
            r"(sum|L2 norm)\w* .{0,40}(instead of|not|rather than) (the |a )?mean",
            r"eps .{0,30}(outside|after the square root)",
            r"subtract\w* (the |each token's )?mean",
            r"(wrong|sequence) axis",
            r"divid\w* by (torch\.)?rsqrt",
            r"sqrt\(d_model\) times too small",
        ),
        edits=[
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)  # (..., 1): one per token",
                "mean_square = (x.norm(dim=-1, keepdim=True) / x.shape[-1]).pow(2)  # (..., 1)",
            )
        ],
        source=RMS_FROM_L2_NORM,
    ),
    _c(
        "rms-forward-without-return",
        L11,
        "RMSNorm",
        "computes the normalised tokens into a variable and never returns them (no return "
        "statement), so forward returns None.",
        (
            r"returns? None",
            r"(no|missing|forg[eo]t\w*( the| a)?|without( a)?) return",
            r"return statement",
        ),
        (
            r"in.place",
            r"(weight|gain).{0,30}(missing|never|forgot)",
            r"dtype (is )?wrong",
        ),
        edits=[
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "out = x * torch.rsqrt(mean_square + self.eps) * self.weight",
            )
        ],
    ),
    # ------------------------------------------------------------------ rotary_embedding
    _c(
        "rope-cache-keyed-by-length",
        L11,
        "rotary_embedding",
        "memoises the tables in a mutable default argument (_cache={}) keyed by length "
        "only: the first call for a length fixes its tables, so a later call with the same "
        "length and another d_head or base returns the stale tables of the first call.",
        (
            r"cache",
            r"memo",
            r"(mutable|shared) default",
            r"(first|earlier|previous) call",
            r"(second|later|next) call",
            r"stale",
        ),
        (
            r"positions? (start|from|counted from) (at )?1",
            r"(factor|the) 2\b.{0,30}(missing|left out)",
            r"(sin, cos|cos and sin) .{0,20}swapped",
            r"(always uses|hard-?coded).{0,30}10000",
            r"float64",
        ),
        edits=[
            (
                "length: int, d_head: int, base: float = 10000.0\n",
                "length: int, d_head: int, base: float = 10000.0, _cache: dict = {}\n",
            ),
            (
                "    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "    if length in _cache:  # computed once per length\n"
                "        return _cache[length]\n"
                "    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
            ),
            (
                "    return angles.cos().float(), angles.sin().float()",
                "    _cache[length] = angles.cos().float(), angles.sin().float()\n"
                "    return _cache[length]",
            ),
        ],
        source=ROPE_CACHE_KEY,
    ),
    _c(
        "rope-positions-divided-by-length",
        L11,
        "rotary_embedding",
        "normalises the positions to [0, 1), torch.arange(length) / length, as a "
        "continuous position would be, instead of the integer positions 0 .. length - 1: "
        "every angle but position 0's is length times too small.",
        (
            r"/ ?length",
            r"divid\w* .{0,40}positions? .{0,30}by (the )?length",
            r"positions? .{0,60}(normalis|normaliz|scaled|fraction|between 0 and 1|0 to 1|"
            r"\[0, ?1\))",
            r"length times too small",
            r"(whole|integer) positions",
        ),
        (
            r"positions? (start|from|counted from) (at )?1",
            r"linspace",
            r"(factor|the) 2\b.{0,30}(missing|left out)",
            r"transposed",
            r"base.{0,40}(ignored|default|10000)",
        ),
        edits=[
            (
                "angles = torch.arange(length, dtype=torch.float64)[:, None] * theta",
                "angles = (torch.arange(length, dtype=torch.float64) / length)[:, None] * theta",
            )
        ],
    ),
    # ------------------------------------------------------------------ apply_rotary
    _c(
        "rot-rotate-half-formula-tables-not-doubled",
        L11,
        "apply_rotary",
        "writes Hugging Face's form x * cos + rotate_half(x) * sin on the whole d_head "
        "features but with the (len, d_head // 2) tables as given, not doubled to d_head "
        "features (torch.cat([cos, cos], -1)): a raw broadcasting error for every d_head "
        "above 2.",
        (
            r"cat\(\[cos, ?cos\]",
            r"(doubl|repeat)\w* (the )?(tables|cos|angles)",
            r"(tables|cos and sin|cos|angles) (are |must be |need to be )?(doubled|repeated|"
            r"twice)",
            r"(tables?|cos and sin) (have|has|of) (only )?(d_head ?// ?2|half the)",
            r"rotate_half\(x\) ?\* ?sin",
        ),
        (
            r"(pairing|layout|convention)s? .{0,30}mixed",
            r"(sign|minus).{0,30}(wrong|missing)",
            r"(cos and sin|sin and cos) (are )?(swapped|exchanged)",
            r"heads? axis",
            r"writes? .{0,20}into x",
        ),
        edits=[
            (
                "    a, b = x[..., :half], x[..., half:]  # (..., len, d_head/2) each\n"
                "    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)  # rotate_half\n"
                "    return x * cos + rotated * sin",
            )
        ],
    ),
    _c(
        "rot-view-as-real-not-flattened",
        L11,
        "apply_rotary",
        "rotates adjacent pairs as complex numbers (view_as_complex, multiplied by "
        "torch.complex(cos, sin)) but returns torch.view_as_real(...) without .flatten(-2): "
        "the result has an extra trailing axis of size 2, (..., len, d_head // 2, 2), "
        "instead of x's shape.",
        (
            r"flatten",
            r"(extra|trailing|additional|last) axis of (size |length )?2",
            r"view_as_real.{0,80}(axis|pairs|, ?2\))",
            r"d_head ?// ?2, ?2\)",
        ),
        (
            r"(pairing|layout|convention)s? .{0,30}mixed",
            r"rotat\w* (the )?wrong way",
            r"(sign|minus).{0,30}(wrong|missing)",
            r"cat\w* .{0,30}(first|wrong) axis",
        ),
        edits=[
            (
                "    a, b = x[..., :half], x[..., half:]  # (..., len, d_head/2) each\n"
                "    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], half, 2))\n"
                "    return torch.view_as_real(pairs * torch.complex(cos, sin))",
            )
        ],
    ),
    # ------------------------------------------------------------------ quiz_rope_values
    _c(
        "quiz-rope-values-attention-weights",
        L11,
        "quiz_rope_values",
        "answers (d), that RoPE rotates the attention weights after the softmax: it rotates "
        "the queries and keys, after the heads are split and before their dot product, in "
        "every layer (c); the weights are probabilities and are never rotated.",
        (
            r"(weights|softmax).{0,80}(not|never|nothing).{0,30}rotat",
            r"rotat\w* .{0,60}before (the|their) (dot product|scores|softmax)",
            r"(queries|q) and (keys|k).{0,60}before",
            r"after the softmax.{0,80}(no|not|never|nothing|too late)",
        ),
        (
            r"(token )?embeddings.{0,40}(once|before the first layer)",
            r"values? (are|is) (also |too )?rotated",
            r"values?.{0,40}carry",
        ),
        edits=[('return "c"', 'return "d"')],
    ),
    # ------------------------------------------------------------------ SwiGLU
    _c(
        "swiglu-layers-in-plain-dict",
        L11,
        "SwiGLU",
        "keeps the three projections in a plain Python dict, self.proj = {'w1': ..., "
        "'w3': ..., 'w2': ...}, which nn.Module does not register: the module has no "
        "parameters and an empty state dict (no w1.weight, w3.weight, w2.weight), so nothing "
        "is trained, moved or loaded.",
        (
            r"(python|plain|ordinary) dict",
            r"(in|inside|into) a dict",
            r"ModuleDict",
            r"(not|never|aren't|are not|isn't|is not) registered",
            r"no (parameters|learnable)",
            r"state.dict (is )?empty",
            r"empty state.dict",
        ),
        (
            r"(with|extra|default) bias",
            r"names? .{0,20}swapped",
            r"built (in|inside) forward",
            r"fused",
        ),
        edits=[
            (
                "        self.w1 = nn.Linear(d_model, d_ff, bias=False)\n"
                "        self.w3 = nn.Linear(d_model, d_ff, bias=False)\n"
                "        self.w2 = nn.Linear(d_ff, d_model, bias=False)",
                "        self.proj = {\n"
                '            "w1": nn.Linear(d_model, d_ff, bias=False),\n'
                '            "w3": nn.Linear(d_model, d_ff, bias=False),\n'
                '            "w2": nn.Linear(d_ff, d_model, bias=False),\n'
                "        }",
            ),
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                'p = self.proj\n        return p["w2"](F.silu(p["w1"](x)) * p["w3"](x))',
            ),
        ],
        source=MODULES_IN_DICT,
    ),
    _c(
        "swiglu-value-chained-after-gate",
        L11,
        "SwiGLU",
        "chains the value projection after the gate instead of multiplying them, "
        "w2(w3(silu(w1(x)))): w3 reads the d_ff gate instead of x, a raw shape error "
        "whenever d_ff != d_model (and no gating at all when they are equal).",
        (
            r"w3\(\w*\.?silu",
            r"w3 .{0,40}(applied to|reads|takes|gets) (the )?(gate|silu|w1|hidden)",
            r"(no|without|never|missing) (the )?(elementwise |element-wise )?(product|multipl)",
            r"(chain\w*|in series|one after (the )?other|stack\w*) .{0,30}(w3|projection|layers)",
            r"w3 .{0,30}(should|must) (read|take|see|be applied to) (the input )?x",
        ),
        (
            r"w2.{0,40}(wrong shape|nn\.Linear\(d_model, d_ff\))",
            r"gate and (the )?value (are )?swapped",
            r"silu (on|applied to|over) (the )?(product|value)",
            r"matrix product",
            r"(added|adds|sum) instead of",
        ),
        edits=[
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(self.w3(F.silu(self.w1(x))))",
            )
        ],
    ),
    # ------------------------------------------------------------------ CausalSelfAttention
    _c(
        "csa-rope-tables-for-d-model",
        L11,
        "CausalSelfAttention",
        "builds the rotation tables for the model's width, rotary_embedding(length, "
        "x.shape[-1], self.base), instead of one head's d_head: the (len, d_model // 2) "
        "tables do not fit the (batch, num_heads, len, d_head // 2) halves, a raw shape "
        "error for every num_heads > 1.",
        (
            r"rotary_embedding\([^)]*(d_model|x\.shape\[-1\])",
            r"(tables?|angles) (for|of|built for|computed for|with) (the )?d_model",
            r"d_model (instead of|rather than|not) (self\.)?d_head",
            r"(width|features) d_model ?// ?2",
            r"x\.shape\[-1\]",
        ),
        (
            r"before (splitting|the split)",
            r"(length|len) from (the )?(batch|wrong) axis",
            r"arguments? .{0,20}(swapped|wrong order)",
            r"base.{0,30}(not passed|default|ignored)",
            r"(never |not )?sliced",
        ),
        edits=[
            (
                "rotary_embedding(length, self.d_head, self.base)",
                "rotary_embedding(length, x.shape[-1], self.base)",
            )
        ],
    ),
    _c(
        "csa-one-linear-for-q-k-v",
        L11,
        "CausalSelfAttention",
        "builds the three input projections with one chained assignment, self.w_q = "
        "self.w_k = self.w_v = nn.Linear(...): the state dict has the three keys, but they "
        "hold one tensor, so queries, keys and values are the same projection and can "
        "never differ.",
        (
            r"same (layer|module|tensor|weight|Linear|object|matrix|projection)",
            r"\bshar\w*",
            r"(one|a single) (layer|Linear|projection|weight|matrix|nn\.Linear)",
            r"chained assignment",
            r"w_q is w_k|is the same (object|tensor|layer) as",
        ),
        (
            r"keys? (are |is )?(projected|computed) with w_q",
            r"w_k (is )?never used",
            r"w_v (is )?never used",
            r"(values?|v) (are |is )?(un|not )projected",
            r"(with|extra|default) bias",
        ),
        edits=[
            (
                "        self.w_q = nn.Linear(d_model, d_model, bias=False)\n"
                "        self.w_k = nn.Linear(d_model, d_model, bias=False)\n"
                "        self.w_v = nn.Linear(d_model, d_model, bias=False)",
                "        self.w_q = self.w_k = self.w_v = nn.Linear(d_model, d_model, bias=False)",
            )
        ],
    ),
    _c(
        "csa-returns-output-and-weights",
        L11,
        "CausalSelfAttention",
        "returns the attention weights with the output, (w_o(merge_heads(heads)), "
        "weights), as nn.MultiheadAttention does, instead of the (batch, len, d_model) "
        "tensor alone.",
        (
            r"returns? a tuple",
            r"tuple (of|with) (two|\(output|the output)",
            r"(output|result),? (and|with|plus) (the )?(attention )?weights",
            r"weights (too|as well|also)",
            r"\(output, ?weights\)",
        ),
        (
            r"unpack\w*.{0,40}(wrong way|swapped)",
            r"(weights|tuple).{0,30}(merged|projected) instead",
            r"merg\w* (the )?weights",
        ),
        edits=[
            (
                "heads, _ = scaled_dot_product_attention(",
                "heads, weights = scaled_dot_product_attention(",
            ),
            (
                "return self.w_o(merge_heads(heads))",
                "return self.w_o(merge_heads(heads)), weights",
            ),
        ],
        source=ATTENTION_RETURNS_TUPLE,
    ),
    # ------------------------------------------------------------------ DecoderBlock
    _c(
        "block-attention-num-heads-not-passed",
        L11,
        "DecoderBlock",
        "builds the attention without its number of heads, CausalSelfAttention(d_model): "
        "the block cannot be built (a raw TypeError, num_heads missing).",
        (
            r"num_heads.{0,60}(not passed|left out|never (passed|given)|forgot|omit)",
            r"(pass|give|forgot\w*|forget|add) (it |in )?(the )?num_heads",
            r"without (its |the )?num_heads",
            r"CausalSelfAttention\(d_model\)",
        ),
        (
            r"arguments? .{0,30}(swapped|wrong order|wrong way)",
            r"d_ff.{0,30}(where|as|instead of) num_heads",
            r"not divisible",
            r"eps .{0,30}(as|where) .{0,10}base",
        ),
        edits=[
            (
                "self.attn = CausalSelfAttention(d_model, num_heads)",
                "self.attn = CausalSelfAttention(d_model)",
            )
        ],
    ),
    _c(
        "block-attention-reads-raw-stream",
        L11,
        "DecoderBlock",
        "feeds the attention the raw stream x without norm1, h = x + attn(x): norm1 is "
        "built but never used (the feed-forward half is right).",
        (
            r"norm1.{0,60}(never|not|unused|skipped|missing|left out)",
            r"(attention|attn).{0,60}(raw|unnormali[sz]ed|without (the )?(norm1|norm|"
            r"normali))",
            r"attn\(x\)",
        ),
        (
            r"feed.?forward.{0,60}(raw|unnormali|without norm2)",
            r"post.?norm",
            r"norms? .{0,20}swapped",
            r"residual.{0,40}(normali[sz]ed|from norm)",
            r"norm2.{0,60}(never|not|unused)",
        ),
        edits=[("h = x + self.attn(self.norm1(x))", "h = x + self.attn(x)")],
    ),
    # ------------------------------------------------------------------ GPT
    _c(
        "gpt-output-through-embedding-lookup",
        L11,
        "GPT",
        "ties the output by calling the embedding module again, self.embedding(norm(x)), "
        "as if the lookup could be run backwards: nn.Embedding takes integer ids, so the "
        "float vectors raise a raw error, instead of a product with the transposed matrix "
        "(norm(x) @ embedding.weight.T).",
        (
            r"embedding\.weight\.T",
            r"(call\w*|run\w*|pass\w*) .{0,30}(embedding|self\.embedding) .{0,40}"
            r"(on|with|float|vectors|hidden|normali)",
            r"(lookup|look.up).{0,60}(not|instead of|rather than)",
            r"F\.linear",
            r"transposed (embedding )?matrix",
        ),
        (
            r"(without|missing|forgot\w*) (the )?transpose",
            r"(separate|untied) output",
            r"final norm.{0,30}(missing|skipped|twice)",
            r"(ids|int64).{0,30}(float|dtype)",
        ),
        edits=[
            (
                "return self.norm(x) @ self.embedding.weight.T  # (batch, len, vocab)",
                "return self.embedding(self.norm(x))  # tied: the same module reads and writes",
            )
        ],
    ),
    _c(
        "gpt-num-heads-num-layers-swapped",
        L11,
        "GPT",
        "mixes up num_heads and num_layers: builds num_heads blocks of num_layers heads, "
        "DecoderBlock(d_model, num_layers, d_ff, eps) for _ in range(num_heads): right only "
        "when the two are equal (otherwise the wrong number of blocks and heads, or a "
        "constructor error when d_model is not divisible by num_layers).",
        (
            r"num_heads.{0,60}num_layers.{0,40}(swapped|exchanged|mixed|wrong way|confused)",
            r"num_layers.{0,60}num_heads.{0,40}(swapped|exchanged|mixed|wrong way|confused)",
            r"(swapped|exchanged|mixed up|confused) num_(heads|layers) (and|with) "
            r"num_(layers|heads)",
            r"num_layers (heads|as the number of heads)",
            r"num_heads (blocks|layers)",
        ),
        (
            r"one (block|layer) (repeated|shared)",
            r"num_layers ?- ?1",
            r"one (block|layer) (short|fewer|missing)",
            r"default eps",
        ),
        edits=[
            (
                "[DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]",
                "[DecoderBlock(d_model, num_layers, d_ff, eps) for _ in range(num_heads)]",
            )
        ],
    ),
    # ------------------------------------------------------------------ sample
    _c(
        "sample-first-row-not-first-column",
        L11,
        "sample",
        "takes the first ROW of torch.multinomial's (batch, 1) draws, [0], instead of the "
        "first column, [:, 0]: a (1,) tensor holding row 0's token whatever the batch "
        "(right only for a batch of one).",
        (
            r"\[0\] (instead of|not|rather than) \[:, ?0\]",
            r"\[:, ?0\]",
            r"first row",
            r"(only|just) (row 0|the first row)",
            r"(one|a single) (token|draw|sample) (for the batch|instead of one per row)",
        ),
        (
            r"squeeze",
            r"\.item\(\)",
            r"\(batch, ?1\) column",
            r"guard",
            r"(greedy|argmax) branch",
        ),
        edits=[
            (
                "return torch.multinomial(probs, 1, generator=generator)[:, 0]",
                "return torch.multinomial(probs, 1, generator=generator)[0]",
            )
        ],
    ),
    _c(
        "sample-top-k-threshold-largest",
        L11,
        "sample",
        "takes the top-k threshold from the first of topk's values, .values[..., :1], the "
        "largest logit, instead of the last, the k-th largest ([..., -1:]): topk sorts in "
        "descending order, so top-k keeps only the most probable token (greedy) whatever "
        "top_k is.",
        (
            r"(largest|first|top|maximum|highest) (value|logit) (instead of|not|rather than) "
            r"(the )?k-?th",
            r"\[\.\.\., ?:1\]",
            r"topk.{0,60}descending|descending.{0,60}topk",
            r"(only|just) (the )?(one|single|most probable|largest|top) (token|logit)",
            r"(last|-1:?\]).{0,40}k-?th",
        ),
        (
            r"top_k ?\+ ?1|one (token )?too many",
            r"top_k ?- ?1|one (token )?too few",
            r"<=|strict",
            r"kthvalue|smallest",
            r"clamp",
        ),
        edits=[(".values[..., -1:]", ".values[..., :1]")],
    ),
    _c(
        "sample-top-p-mask-not-unsorted",
        L11,
        "sample",
        "never maps the top-p decisions back to vocabulary order: the mask computed in "
        "sorted order (remove_sorted) is applied to the logits as they are, so the tokens "
        "removed are those at the sorted positions' indices, not the least probable ones.",
        (
            r"scatter",
            r"sorted order.{0,80}(vocabulary|original) order",
            r"(back|map\w*) .{0,30}(to )?(the )?(vocabulary|original|unsorted) order",
            r"order.{0,30}(never|not) (used|applied)",
            r"(not|never) (mapped|put|scattered) back",
        ),
        (
            r"gather(ed)?\b.{0,40}instead of scatter",
            r"(permutation|sort) applied twice",
            r"ascending",
            r"(crossing|boundary) token",
            r"cumsum.{0,30}batch",
        ),
        edits=[
            (
                "remove = remove_sorted.scatter(-1, order, remove_sorted)  # back to vocabulary order",
                "remove = remove_sorted  # (batch, vocab): the tokens to remove",
            )
        ],
        source=TOP_P_NOT_UNSORTED,
    ),
    # ------------------------------------------------------------------ quiz_temperature
    _c(
        "quiz-temperature-flattens",
        L11,
        "quiz_temperature",
        "answers (c), that dividing the probabilities by 0.5 flattens the distribution: "
        "every probability is doubled, no ratio changes and torch.multinomial renormalises, "
        "so nothing changes (b); temperature must divide the logits before the softmax.",
        (
            r"renormali[sz]",
            r"(no|every|each|same) ratios?",
            r"nothing changes|changes nothing|no effect",
            r"logits.{0,40}before (the )?softmax",
        ),
        (
            r"sharpen\w* .{0,20}as intended",
            r"sums? to 2.{0,30}raise",
        ),
        edits=[('return "b"', 'return "c"')],
    ),
]
