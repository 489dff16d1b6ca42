"""Held-out wrong answers for lessons 11, blind round 13 (helper r13b, 2026-11-27):
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

L11 = "11_language_model"

# The reports these cases transpose (each read with the search tool for this benchmark).
RESEED_EVERY_CALL = "https://github.com/mrdbourke/pytorch-deep-learning/issues/245"
STATISTIC_DETACHED = "https://github.com/abhiskk/ladder/issues/2"
ROPE_HALF_DENOMINATOR = "https://github.com/rasbt/LLMs-from-scratch/issues/410"
ROPE_BFLOAT16 = "https://github.com/huggingface/transformers/pull/29285"
VIEW_NOT_CONTIGUOUS = "https://github.com/vllm-project/vllm/issues/13054"
SOFTMAX_WRONG_AXIS = "https://github.com/karpathy/ng-video-lecture/issues/42"
SCALED_TWICE = "https://github.com/huggingface/transformers/pull/38290"
PADDING_IDX_FROZEN = "https://github.com/ibalazevic/TuckER/issues/17"
TOP_K_TINY_FILL = "https://github.com/karpathy/minGPT/issues/10"
MULTINOMIAL_LOGITS = "https://runebook.dev/en/docs/pytorch/generated/torch.tensor.multinomial"
SHIFT_WITHOUT_CLONE = "https://github.com/pytorch/pytorch/issues/197829"

_c = held_out_authored("blind13b")

BLIND13B: list[Case] = [
    # ------------------------------------------------------------------ next_token_batches
    _c(
        "ntb-one-start-for-the-batch",
        L11,
        "next_token_batches",
        "draws a single start (torch.randint(..., (1,), generator=generator)) and repeats its "
        "window for every row: all batch_size rows are the same window, right only for a "
        "batch of one.",
        (
            r"(every|all|each) (rows?|windows?).{0,60}(same|identical)",
            r"(same|identical|one) (window|start).{0,40}(for )?(every|each|all) rows?",
            r"(only )?one start.{0,60}(batch|rows|repeated)",
            r"\(1,\).{0,40}(instead of|not|rather than).{0,30}batch_size",
        ),
        (
            r"global (random )?(stream|generator|state)",
            r"last (valid )?start",
            r"transposed|time-major",
            r"targets?.{0,30}not shifted",
        ),
        edits=[
            (
                "starts = torch.randint(0, len(tokens) - block_size, (batch_size,), "
                "generator=generator)",
                "starts = torch.randint(0, len(tokens) - block_size, (1,), "
                "generator=generator).expand(batch_size)",
            )
        ],
    ),
    _c(
        "ntb-generator-reseeded",
        L11,
        "next_token_batches",
        "reseeds the caller's generator inside the function (generator.manual_seed(0)) "
        "before drawing, to make the batches reproducible: every call returns the same "
        "windows whatever state the generator was in (right only for a first call on a "
        "generator seeded 0), and the caller's generator is reset.",
        (
            r"manual_seed",
            r"re-?seed",
            r"reset\w* (the |your |its )?generator",
            r"same (windows|batch|starts).{0,60}(every|each|second|later|next) call",
            r"generator.{0,40}(state|seed).{0,40}(reset|overwritten|replaced)",
        ),
        (
            r"global (random )?(stream|generator|state)",
            r"last (valid )?start",
            r"randperm",
            r"sorted",
        ),
        edits=[
            (
                "starts = torch.randint(",
                "generator.manual_seed(0)\n    starts = torch.randint(",
            )
        ],
        source=RESEED_EVERY_CALL,
    ),
    _c(
        "ntb-slices-with-starts-tensor",
        L11,
        "next_token_batches",
        "slices the stream with the whole starts tensor, tokens[starts : starts + "
        "block_size]: a raw TypeError (only integer tensors of a single element can be "
        "converted to an index) for a batch of several rows, and a 1-D (block_size,) "
        "window instead of (1, block_size) for a batch of one.",
        (
            r"tokens\[starts",
            r"slic\w* .{0,40}(with|by) (the )?(whole|all|a tensor|several|many|the starts)",
            r"(each|every|one) start (separately|at a time|in a loop)",
            r"(table|grid) of positions.{0,60}(instead of|not|rather than).{0,20}slic",
        ),
        (
            r"global (random )?(stream|generator)",
            r"transposed|time-major",
            r"last (valid )?start",
            r"float32",
        ),
        code="""
        def next_token_batches(tokens, block_size, batch_size, generator):
            starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
            inputs = tokens[starts : starts + block_size]
            targets = tokens[starts + 1 : starts + block_size + 1]
            return inputs, targets
        """,
    ),
    # ------------------------------------------------------------------ RMSNorm
    _c(
        "rms-statistic-detached",
        L11,
        "RMSNorm",
        "computes the mean square from x.detach(), so the forward values are right but no "
        "gradient flows through the statistic: the gradient with respect to x is wrong, as "
        "if the root mean square were a constant.",
        (
            r"detach",
            r"no_grad",
            r"gradient.{0,80}(statistic|mean square|root mean square|\brms\b|denominator)",
            r"(statistic|mean square|root mean square|\brms\b).{0,80}(gradient|backward|constant)",
            r"(values?|outputs?|forward).{0,60}right.{0,80}gradient",
        ),
        (
            r"eps.{0,30}(outside|after the square root)",
            r"subtract\w* (the |each token's )?mean",
            r"in[ -]place",
            r"gain.{0,40}(before|not registered|plain tensor)",
        ),
        edits=[
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.detach().pow(2).mean(dim=-1, keepdim=True)",
            )
        ],
        source=STATISTIC_DETACHED,
    ),
    _c(
        "rms-divides-by-len-x",
        L11,
        "RMSNorm",
        "divides the sum of the squares by len(x), the size of x's first axis (the batch), "
        "instead of d_model: right only when x.shape[0] == d_model.",
        (
            r"len\(x\)",
            r"(first|batch|leading) (axis|dimension)'?s? (size|length)",
            r"x\.shape\[0\]",
            r"divid\w* by.{0,40}(the batch|first axis|shape\[0\]|number of rows)",
            r"(instead of|not|rather than) (by )?d_model.{0,40}(batch|first)",
        ),
        (
            r"sum(s|med)? (of the squares )?(instead of|not|rather than) (the )?mean",
            r"L2 norm",
            r"over the (sequence|positions)",
            r"subtract\w* (the |each token's )?mean",
        ),
        edits=[
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.pow(2).sum(dim=-1, keepdim=True) / len(x)",
            )
        ],
    ),
    # ------------------------------------------------------------------ rotary_embedding
    _c(
        "rope-even-exponents-over-half",
        L11,
        "rotary_embedding",
        "divides the even exponents torch.arange(0, d_head, 2) by d_head // 2 instead of "
        "d_head (mixing arange(0, d_head, 2) / d_head with arange(d_head // 2) / "
        "(d_head // 2)): theta_i = base ** (-4i / d_head), so every pair after the first "
        "turns too slowly (the exponent is doubled).",
        (
            r"4 ?i ?/ ?d",
            r"d_head ?// ?2",
            r"(denominator|divid\w* by).{0,40}(half|d_head ?/ ?2)",
            r"exponents?.{0,60}(doubled|twice|two times|too large)",
            r"(extra|additional) factor (of )?(2|two)",
        ),
        (
            r"without (the )?(factor )?(2|two)\b",
            r"factor (of )?(2|two).{0,20}missing",
            r"positions? (start|from) (at )?1|one position late",
            r"cos.{0,20}sin.{0,20}swapped",
            r"base.{0,30}(ignored|inverted|not used)",
        ),
        edits=[
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / (d_head // 2))",
            )
        ],
        source=ROPE_HALF_DENOMINATOR,
    ),
    _c(
        "rope-angles-in-bfloat16",
        L11,
        "rotary_embedding",
        "computes the frequencies, positions and angles in bfloat16 (as a model cast to half "
        "precision does) and casts only cos and sin to float32: bfloat16's 8-bit mantissa "
        "rounds every angle, so cos and sin are off by hundredths (and positions past 256 "
        "are not even whole numbers).",
        (
            r"bfloat16|\bbf16\b",
            r"(half|low|reduced) precision",
            r"precision.{0,60}(angles?|positions?|theta|frequenc)",
            r"(rounded|rounding).{0,60}(angles?|positions?|theta|frequenc)",
            r"comput\w* (the angles )?in float(32|64)",
        ),
        (
            r"returns? (cos and sin (as |in )?)?float64|float64 instead of float32",
            r"positions? (start|from) (at )?1|one position late",
            r"without (the )?(factor )?(2|two)\b",
            r"base.{0,30}(ignored|default|inverted)",
        ),
        edits=[
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.bfloat16) / d_head)",
            ),
            (
                "angles = torch.arange(length, dtype=torch.float64)[:, None] * theta",
                "angles = torch.arange(length, dtype=torch.bfloat16)[:, None] * theta",
            ),
        ],
        source=ROPE_BFLOAT16,
    ),
    # ------------------------------------------------------------------ apply_rotary
    _c(
        "rot-view-flattens-leading-axes",
        L11,
        "apply_rotary",
        "flattens the leading axes with x.view(-1, len, d_head) (and views the result back), "
        "which raises a raw RuntimeError (view size is not compatible with input tensor's "
        "size and stride) on non-contiguous queries and keys such as split_heads' transposed "
        "output: right for contiguous inputs only (reshape was needed).",
        (
            r"\.view\(",
            r"non-?contiguous",
            r"contiguous\(\)",
            r"reshape.{0,40}(instead of|not|rather than).{0,20}view",
            r"strides?.{0,60}view|view.{0,60}strides?",
        ),
        (
            r"(modif\w*|overwrit\w*|writes? into) (the caller's )?(x|queries|keys)",
            r"(returns?|comes? back) (as )?float32|upcast",
            r"(four|4) axes",
            r"adjacent.{0,40}halves|halves.{0,40}adjacent",
        ),
        code="""
        def apply_rotary(x, cos, sin):
            shape = x.shape
            half = shape[-1] // 2
            cos, sin = cos.to(x.dtype), sin.to(x.dtype)
            flat = x.view(-1, shape[-2], shape[-1])  # (everything before, len, d_head)
            a, b = flat[..., :half], flat[..., half:]
            rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
            return rotated.view(shape)
        """,
        source=VIEW_NOT_CONTIGUOUS,
    ),
    _c(
        "rot-split-size-two",
        L11,
        "apply_rotary",
        "splits the features with x.split(2, dim=-1), whose argument is the size of each "
        "chunk, not the number of chunks (chunk(2, dim=-1)): right only for d_head = 4, a "
        "raw ValueError (too many values to unpack) for any other head size.",
        (
            r"split\(2",
            r"chunk size|size of each (chunk|piece|part)",
            r"number of (chunks|pieces|parts)",
            r"chunk\(2",
            r"split\((half|d_head ?// ?2)",
        ),
        (
            r"(four|4) axes",
            r"true division",
            r"adjacent.{0,40}halves|halves.{0,40}adjacent",
            r"(modif\w*|overwrit\w*|writes? into) (the caller's )?(x|queries|keys)",
        ),
        edits=[("a, b = x[..., :half], x[..., half:]", "a, b = x.split(2, dim=-1)")],
    ),
    # ------------------------------------------------------------------ SwiGLU
    _c(
        "swiglu-no-value-branch",
        L11,
        "SwiGLU",
        "leaves out the value branch: returns w2(silu(w1(x))), a plain SiLU feed-forward, so "
        "w3 is built but never used and nothing is gated.",
        (
            r"w3.{0,60}(never|not|unused|no effect|ignored)",
            r"(without|no|missing) (the )?(value|gating|w3)\b",
            r"plain (SiLU )?(feed-?forward|MLP)",
            r"(not|never) (gated|multiplied)",
        ),
        (
            r"\brelu\b",
            r"sigmoid",
            r"gate.{0,30}value.{0,30}swapped|silu on (the )?(value|w3)",
            r"\bbias",
            r"silu.{0,40}product",
        ),
        edits=[
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(F.silu(self.w1(x)))",
            )
        ],
    ),
    _c(
        "swiglu-w3-not-called",
        L11,
        "SwiGLU",
        "multiplies the gate by the layer w3 itself instead of its output (self.w3 instead "
        "of self.w3(x)): a raw TypeError (unsupported operand type(s) for *: 'Tensor' and "
        "'Linear') on every call.",
        (
            r"w3\(x\)",
            r"(layer|module|Linear) (itself|object).{0,40}(instead of|not|rather than)",
            r"(call|apply) (self\.)?w3",
            r"w3.{0,40}(not called|never called|without calling)",
        ),
        (r"matrix product|matmul", r"shape error", r"\bsilu on", r"\bbias"),
        edits=[("F.silu(self.w1(x)) * self.w3(x)", "F.silu(self.w1(x)) * self.w3")],
    ),
    _c(
        "swiglu-w2-w3-names-swapped",
        L11,
        "SwiGLU",
        "names the value projection w2 and the output projection w3 (Llama's two names "
        "swapped): the computation is SwiGLU's, but the state dict's w2.weight is "
        "(d_ff, d_model) and w3.weight (d_model, d_ff), so a checkpoint with the contract's "
        "names does not load.",
        (
            r"w2.{0,80}w3.{0,60}(swapped|exchanged|other's|the other way)",
            r"w3.{0,80}w2.{0,60}(swapped|exchanged|other's|the other way)",
            r"names?.{0,40}(swapped|exchanged)",
            r"w2 (is|should be|must be).{0,40}(d_ff ?(->|→|to) ?d_model|the output|back to d_model)",
        ),
        (
            r"gate.{0,40}value.{0,40}swapped",
            r"\bbias",
            r"2 ?\* ?d_ff ?/ ?3|two-thirds",
            r"fused|w13",
        ),
        edits=[
            (
                "self.w3 = nn.Linear(d_model, d_ff, bias=False)",
                "self.w2 = nn.Linear(d_model, d_ff, bias=False)",
            ),
            (
                "self.w2 = nn.Linear(d_ff, d_model, bias=False)",
                "self.w3 = nn.Linear(d_ff, d_model, bias=False)",
            ),
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w3(F.silu(self.w1(x)) * self.w2(x))",
            ),
        ],
    ),
    # ------------------------------------------------------------------ CausalSelfAttention
    _c(
        "csa-softmax-over-queries",
        L11,
        "CausalSelfAttention",
        "writes the attention by hand and takes the softmax over the queries axis (dim=-2) "
        "instead of the keys (dim=-1): each key's column is normalised across the queries, "
        "so a query's weights do not sum to 1 and depend on later queries' scores (the "
        "future leaks in).",
        (
            r"dim=-2",
            r"softmax.{0,60}(quer(y|ies) axis|wrong axis|columns?|over the queries|axis -2)",
            r"(columns?|keys?).{0,40}sum to 1.{0,40}(instead|not|rather)",
            r"normali[sz]\w* (over|across) (the )?quer",
        ),
        (
            r"no (causal )?mask|mask.{0,20}(missing|not applied|inverted)",
            r"sqrt\(d_model\)|(no|missing|wrong) scal(e|ing)",
            r"values? (are )?rotated",
            r"after (the )?softmax",
        ),
        edits=[
            (
                "heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
                "scores = q @ k.transpose(-2, -1) / self.d_head**0.5\n"
                '        scores = scores.masked_fill(~look_ahead_mask(length), float("-inf"))\n'
                "        heads = torch.softmax(scores, dim=-2) @ v",
            )
        ],
        source=SOFTMAX_WRONG_AXIS,
    ),
    _c(
        "csa-queries-prescaled",
        L11,
        "CausalSelfAttention",
        "pre-scales the queries by d_head ** -0.5 (as fairseq's and OPT's attentions do) "
        "and then calls the course's scaled_dot_product_attention, which divides by "
        "sqrt(d_head) again: the scores are divided by d_head instead of sqrt(d_head), so "
        "every head's weights are too flat.",
        (
            r"twice",
            r"scal\w*.{0,40}(again|double|two times)",
            r"divided by d_head\b(?! ?\*)",
            r"d_head.{0,30}(instead of|not|rather than).{0,20}sqrt",
            r"pre-?scal",
        ),
        (
            r"sqrt\(d_model\)|by d_model",
            r"no scal|without (the )?scal|forgets? (to )?scal",
            r"values? (are )?rotated",
            r"keys? (are )?not rotated",
        ),
        edits=[
            (
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)",
                "q, k = apply_rotary(q, cos, sin) * self.d_head**-0.5, apply_rotary(k, cos, sin)",
            )
        ],
        source=SCALED_TWICE,
    ),
    _c(
        "csa-projections-with-bias",
        L11,
        "CausalSelfAttention",
        "builds w_q, w_k, w_v and w_o with nn.Linear's default bias (lesson 05's "
        "projections), which this attention has none of: extra state-dict keys w_q.bias to "
        "w_o.bias, and an offset in every projection.",
        (
            r"\.bias\b",
            r"bias=False",
            r"(has|have|with|extra|unexpected|keeps?|default) .{0,30}bias",
            r"bias(es)?.{0,40}(none|extra|unexpected|should not|must not|not allowed)",
        ),
        (
            r"no output projection|without w_o",
            r"keys? from w_q|w_k (is )?never used",
            r"values? (are )?rotated",
            r"no (causal )?mask",
        ),
        edits=[
            (
                f"self.{name} = nn.Linear(d_model, d_model, bias=False)",
                f"self.{name} = nn.Linear(d_model, d_model)",
            )
            for name in ("w_q", "w_k", "w_v", "w_o")
        ],
    ),
    # ------------------------------------------------------------------ DecoderBlock
    _c(
        "block-norms-on-sublayer-outputs",
        L11,
        "DecoderBlock",
        "normalises each sub-layer's output instead of its input, x + norm1(attn(x)) and "
        "h + norm2(feed_forward(h)) (Swin V2's res-post-norm): the attention and the "
        "feed-forward read the raw stream.",
        (
            r"norm\w* (the |each )?(sub-?layer's |attention's |feed-?forward's )?outputs?",
            r"norm1\((self\.)?attn",
            r"(reads?|sees?|gets?) (the )?(raw|un-?normali[sz]ed) (stream|input)",
            r"norm\w* .{0,30}(input|before).{0,40}(not|instead of|rather than).{0,30}output",
        ),
        (
            r"after (the )?residual (addition|sum)|\bpost-?norm",
            r"norms? swapped|norm2 before the attention",
            r"shared norm|norm1 (used )?(for|in) both",
            r"residual.{0,40}(missing|dropped|from x)",
        ),
        edits=[
            ("h = x + self.attn(self.norm1(x))", "h = x + self.norm1(self.attn(x))"),
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return h + self.norm2(self.feed_forward(h))",
            ),
        ],
    ),
    _c(
        "block-feed-forward-unnormalised",
        L11,
        "DecoderBlock",
        "feeds the feed-forward the raw stream h without norm2, h + feed_forward(h): norm2 "
        "is built but never used.",
        (
            r"norm2.{0,60}(never|not|unused|no effect|ignored)",
            r"(without|no|missing|skips?) (the )?(norm2|second norm|norm before the feed-?forward)",
            r"feed-?forward.{0,60}(un-?normali[sz]ed|raw|without (a |its )?norm)",
        ),
        (
            r"norm1 (used )?(for|in|before) both|shared norm",
            r"norms? swapped",
            r"residual.{0,40}(missing|dropped|from x|twice)",
            r"\bpost-?norm",
            r"reads? (the )?(block's )?input x",
        ),
        edits=[
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return h + self.feed_forward(h)",
            )
        ],
    ),
    # ------------------------------------------------------------------ GPT
    _c(
        "gpt-embedding-padding-idx",
        L11,
        "GPT",
        "builds the embedding with padding_idx=0 (a translation model's pad id; a language "
        "model has no padding): the forward is right after the normal initialisation, but "
        "the lookup of token 0 never passes a gradient to its row, so token 0's embedding "
        "learns only through the tied output.",
        (
            r"padding_idx",
            r"(token|row|id) 0.{0,80}(gradient|never (trained|updated|learns))",
            r"gradient.{0,60}(token|row|id) 0\b",
            r"pad(ding)? (id|token|row)",
        ),
        (
            r"initiali[sz]\w*.{0,40}(std|standard deviation|N\(0, ?1\))",
            r"untied|not tied|cop(y|ied)",
            r"final norm",
            r"shared block|same weights",
        ),
        edits=[
            (
                "self.embedding = nn.Embedding(vocab_size, d_model)",
                "self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=0)",
            )
        ],
        source=PADDING_IDX_FROZEN,
    ),
    _c(
        "gpt-drops-last-position",
        L11,
        "GPT",
        "drops the last position's logits ([:, :-1]), as if the shift to next-token targets "
        "belonged inside the model: the logits are (batch, len - 1, vocab) instead of one "
        "row per position (the shift is next_token_batches' job).",
        (
            r"\[:, ?:-1\]",
            r"last position.{0,60}(dropped|missing|cut|removed|left out)",
            r"len ?- ?1",
            r"one (position|row) (short|too few|fewer)",
            r"shift\w*.{0,60}(inside|in) the model",
        ),
        (
            r"last position only",
            r"flattened|view\(-1",
            r"transpos",
            r"probabilit|softmax",
            r"\(logits, ?(None|loss)\)|tuple",
        ),
        edits=[
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return (self.norm(x) @ self.embedding.weight.T)[:, :-1]",
            )
        ],
    ),
    _c(
        "gpt-extra-residual-around-blocks",
        L11,
        "GPT",
        "wraps every block in another residual connection, x = x + layer(x), although "
        "DecoderBlock already adds its own residuals: each block's output is added to its "
        "input again, so the stream roughly doubles at every layer.",
        (
            r"x ?\+ ?layer\(x\)",
            r"(extra|another|second|additional|double|twice).{0,30}residual",
            r"residual.{0,60}(twice|again|already)",
            r"(stream|input).{0,40}(doubl|added (twice|again))",
        ),
        (
            r"not chained|every block (reads|gets) the embeddings",
            r"final norm.{0,30}(missing|twice|every|after each)",
            r"shared (block|weights)|same weights",
            r"scal\w* (the )?embedding|sqrt\(d_model\)",
        ),
        edits=[("x = layer(x)", "x = x + layer(x)")],
    ),
    # ------------------------------------------------------------------ sample
    _c(
        "sample-top-k-fills-tiny",
        L11,
        "sample",
        "fills the logits top-k removes with 1e-10 (about 0) instead of -inf: removed tokens "
        "keep a logit of about 0, so they can still be drawn (more often than kept tokens "
        "with negative logits).",
        (
            r"1e-10",
            r"-inf.{0,40}(instead of|not|rather than)",
            r"(instead of|not|rather than) -?inf",
            r"removed tokens?.{0,60}(still|can be) (drawn|sampled|chosen)",
            r"(still|can be) (drawn|sampled|chosen).{0,60}(removed|filtered|outside the top)",
        ),
        (
            r"top_k ?\+ ?1|one too (many|few)|<= ?the k-?th|strict",
            r"kthvalue|smallest",
            r"threshold.{0,40}(first row|row 0)",
            r"not assigned|discarded|not in place",
        ),
        edits=[
            (
                'logits = logits.masked_fill(logits < kth, float("-inf"))',
                "logits = logits.masked_fill(logits < kth, 1e-10)",
            )
        ],
        source=TOP_K_TINY_FILL,
    ),
    _c(
        "sample-multinomial-on-logits",
        L11,
        "sample",
        "hands the (tempered, filtered) logits straight to torch.multinomial without the "
        "softmax: multinomial takes non-negative weights, so negative or -inf logits raise a "
        "raw RuntimeError (invalid multinomial distribution), and positive logits would be "
        "drawn in proportion to the logits instead of their exponentials.",
        (
            r"without (the |a )?softmax",
            r"softmax.{0,40}(missing|forgotten|left out|before (torch\.)?multinomial)",
            r"multinomial.{0,60}(logits|negative|weights)",
            r"logits.{0,40}(to|into) (torch\.)?multinomial",
            r"(instead of|not|rather than) (the )?probabilit",
        ),
        (
            r"temperature.{0,40}(probabilit|after the softmax)",
            r"softmax.{0,30}(batch axis|dim=0|over the batch)",
            r"global (generator|random)|fresh generator",
            r"divides? by (zero|0)",
        ),
        edits=[("probs = torch.softmax(logits, dim=-1)", "probs = logits")],
        source=MULTINOMIAL_LOGITS,
    ),
    _c(
        "sample-top-p-shift-without-clone",
        L11,
        "sample",
        "marks the tokens past top_p with cumsum > top_p and shifts that mask one place "
        "right in place, remove_sorted[..., 1:] = remove_sorted[..., :-1], without .clone(): "
        "the two slices overlap in memory, so for a batch of one PyTorch raises a raw "
        "RuntimeError (a single memory location; clone() the tensor), and for larger "
        "batches the copy reads its own output, every row's mask becomes its first entry "
        "and top-p keeps every token unless the most probable one alone passes top_p.",
        (
            r"clone",
            r"overlap",
            r"single memory location",
            r"in[ -]place.{0,60}(shift|slice)",
            r"shift\w*.{0,60}in[ -]place",
            r"(cop(y|ies)|shift\w*).{0,60}(its )?own (output|result)",
        ),
        (
            r"\bgather\b",
            r"ascending",
            r"drops? the crossing|crossing token.{0,40}(dropped|removed)",
            r"guard.{0,40}(row 0|first row)",
            r"batch axis",
        ),
        edits=[
            (
                "remove_sorted = before >= top_p",
                "remove_sorted = sorted_probs.cumsum(dim=-1) > top_p\n"
                "        remove_sorted[..., 1:] = remove_sorted[..., :-1]",
            )
        ],
        source=SHIFT_WITHOUT_CLONE,
    ),
    _c(
        "sample-top-p-as-elif",
        L11,
        "sample",
        "writes the top-p test as elif after the top-k block (elif top_p is not None), as if "
        "the two filters were alternatives: each alone is right, but when both top_k and "
        "top_p are given top-p is skipped.",
        (
            r"\belif\b",
            r"(top-?p|top_p).{0,80}(skipped|ignored|not applied|never applied|no effect)"
            r".{0,80}(top-?k|top_k|both)",
            r"(both|together|top_k and top_p).{0,80}(top-?p|top_p).{0,40}"
            r"(skipped|ignored|not applied|no effect)",
            r"alternatives?.{0,40}(top|filter)|(top|filter).{0,40}alternatives?",
        ),
        (
            r"before top-?k|(top-?p|top_p) (is applied )?first",
            r"renormali[sz]",
            r"(top-?p|top_p).{0,40}on (the )?logits",
            r"temperature.{0,40}after",
        ),
        edits=[("    if top_p is not None:", "    elif top_p is not None:")],
    ),
]
