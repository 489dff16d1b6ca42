"""Held-out wrong answers for lesson 11, blind round 11 (helper r11b, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Twelve of the 24 transpose a mistake reported in a public issue thread (the URL read
for this benchmark) to the course's exercise; the others are the author's. Kinds favoured
this round: mistakes that show only on some inputs (float32 against float64, a batch of
one, a non-default base or eps, num_heads of one, weights that are not all ones), a size-1
axis lost, axes permuted or broadcast on the wrong axis, in-place writes into the caller's
tensor, two arguments of a formula swapped, Python's list multiplication sharing one
module, and a wrong shape returned.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11 = "11_language_model"

# The reports these cases transpose (each read with the search tool for this benchmark).
LAST_START_EXCLUDED = "https://github.com/karpathy/ng-video-lecture/issues/56"
RMS_DIVIDES_BY_RSQRT = "https://github.com/mosaicml/llm-foundry/issues/371"
RMS_IN_PLACE = "https://github.com/GeeeekExplorer/nano-vllm/issues/170"
ROPE_NO_FACTOR_TWO = "https://github.com/rasbt/LLMs-from-scratch/issues/410"
ROPE_PAIRING_MISMATCH = "https://github.com/raiyanyahya/how-to-train-your-gpt/issues/6"
ROPE_WRONG_AXIS = "https://github.com/mlfoundations/open_lm/issues/4"
SWIGLU_SILU_OUTSIDE = "https://github.com/Nijikadesu/breakdown-minimind/issues/3"
SWIGLU_ORDER = "https://github.com/ml-explore/mlx-lm/pull/767"
MERGE_WITHOUT_PERMUTE = "https://github.com/ajhalthor/Transformer-Neural-Network/pull/4"
MODULE_LIST_MULTIPLIED = "https://github.com/zalandoresearch/pytorch-vq-vae/issues/2"
TOP_P_DROPS_CROSSING = "https://github.com/fishaudio/fish-speech/pull/1171"
TOP_P_GATHER = "https://github.com/lucidrains/routing-transformer/pull/2"

_c = held_out_authored("blind11b")

BLIND11B: list[Case] = [
    # ------------------------------------------------------------------ next_token_batches
    _c(
        "ntb-last-start-excluded",
        L11,
        "next_token_batches",
        "draws the starts with torch.randint(0, len(tokens) - block_size - 1, ...), one "
        "short: the last valid start, len(tokens) - block_size - 1, is never drawn, and "
        "with the same generator every start of the batch differs from the reference's "
        "draws.",
        (
            r"len\(tokens\) - block_size - 1.{0,80}(never|not|excluded|exclusive|high)",
            r"(last|largest) (valid )?start.{0,60}(never|not|excluded|missing)",
            r"randint.{0,80}(high|upper).{0,60}(one|1) (too )?(short|small|low)",
            r"off.by.one.{0,60}(randint|start|high)",
        ),
        (r"global (random )?stream", r"targets?.{0,40}(shift|not moved|same as)", r"transpos"),
        edits=[
            (
                "torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)",
                "torch.randint(0, len(tokens) - block_size - 1, (batch_size,), "
                "generator=generator)",
            )
        ],
        source=LAST_START_EXCLUDED,
    ),
    _c(
        "ntb-positions-transposed",
        L11,
        "next_token_batches",
        "builds the position table as torch.arange(block_size)[:, None] + starts, "
        "(block_size, batch_size), so inputs and targets come back transposed: each "
        "column, not each row, is a window (right values, axes swapped; equal shapes only "
        "when batch_size == block_size).",
        (
            r"transpos",
            r"\(block_size, batch_size\)",
            r"(axes|dimensions) (swapped|permuted|in the wrong order)",
            r"columns?.{0,40}(instead of|not) rows?",
        ),
        (r"randint", r"global (random )?stream", r"targets?.{0,40}(shift|one)"),
        edits=[
            (
                "positions = starts[:, None] + torch.arange(block_size)",
                "positions = torch.arange(block_size)[:, None] + starts",
            )
        ],
    ),
    _c(
        "ntb-targets-rolled",
        L11,
        "next_token_batches",
        "makes the targets by rolling the inputs one place left (inputs.roll(-1, dims=1)), "
        "so every target is right but the last of each window, which wraps round to the "
        "window's first token instead of the token after the window.",
        (
            r"\broll",
            r"wrap",
            r"last (target|column|position).{0,80}(first|wrong|instead|should be)",
            r"tokens\[s ?\+ ?block_size\]|token after the window",
        ),
        (r"randint", r"global (random )?stream", r"transpos"),
        edits=[
            (
                "return tokens[positions], tokens[positions + 1]",
                "inputs = tokens[positions]\n    return inputs, inputs.roll(-1, dims=1)",
            )
        ],
    ),
    # ------------------------------------------------------------------ RMSNorm
    _c(
        "rms-divides-by-rsqrt",
        L11,
        "RMSNorm",
        "divides by torch.rsqrt(mean_square + eps) instead of multiplying by it, so each "
        "token is multiplied by its root mean square instead of divided by it.",
        (
            r"rsqrt.{0,80}(divid|multipl)",
            r"multipl\w* by (the |its )?(root mean square|rms)|rms (squared|times)",
            r"(divid\w*|/) .{0,30}rsqrt",
            r"instead of divid",
        ),
        (r"eps.{0,40}(outside|inside)", r"mean.{0,30}subtract", r"keepdim", r"axis|dim=0"),
        edits=[
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return x / torch.rsqrt(mean_square + self.eps) * self.weight",
            )
        ],
        source=RMS_DIVIDES_BY_RSQRT,
    ),
    _c(
        "rms-in-place-float",
        L11,
        "RMSNorm",
        "casts x with x.float() and scales it in place (mul_): for a float32 input "
        "x.float() is x itself, so the caller's tensor is overwritten (the output is "
        "right); for a float64 input the output comes back float32.",
        (
            r"in[- ]place|mul_|modif\w+ (the |its |your )?input|overwr",
            r"(the )?(input|x).{0,40}(was |is )?(changed|modified)",
        ),
        (r"eps.{0,40}(outside|inside)", r"mean.{0,30}subtract", r"rsqrt.{0,40}divid"),
        edits=[
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "x = x.float()\n"
                "        x.mul_(torch.rsqrt(mean_square + self.eps))\n"
                "        return x * self.weight",
            )
        ],
        source=RMS_IN_PLACE,
    ),
    _c(
        "rms-mean-without-keepdim",
        L11,
        "RMSNorm",
        "takes the mean square without keepdim=True, (...,) instead of (..., 1): against "
        "x (..., d_model) it broadcasts on the wrong axis (an error unless the last axes "
        "happen to match, wrong values when len == d_model).",
        (
            r"keepdim",
            r"\(\.\.\., 1\)",
            r"(size-1|singleton|trailing|last) (axis|dimension).{0,40}(lost|missing|dropped)",
            r"broadcast.{0,60}(wrong|last) axis",
        ),
        (r"eps.{0,40}(outside|inside)", r"mean.{0,30}subtract", r"rsqrt.{0,40}divid"),
        edits=[
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.pow(2).mean(dim=-1)",
            )
        ],
    ),
    # ------------------------------------------------------------------ rotary_embedding
    _c(
        "rope-exponent-without-two",
        L11,
        "rotary_embedding",
        "uses torch.arange(d_head // 2) / d_head as the exponent, i / d_head instead of "
        "2i / d_head: every theta_i = base ** (-i / d_head) is too large (frequencies "
        "decay half as fast), only pair 0 is right.",
        (
            r"2 ?i ?/ ?d_head|factor (of )?(2|two)",
            r"i ?/ ?d_head",
            r"arange\(0, d_head, 2\)",
            r"exponent.{0,60}(half|twice|missing)",
        ),
        (r"positions? (start|from) (at )?1", r"sin.{0,20}cos.{0,20}swap", r"\bbase\b.{0,30}ignor"),
        edits=[
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = base ** (-torch.arange(d_head // 2, dtype=torch.float64) / d_head)",
            )
        ],
        source=ROPE_NO_FACTOR_TWO,
    ),
    _c(
        "rope-integer-division",
        L11,
        "rotary_embedding",
        "computes the exponents with integer division, torch.arange(0, d_head, 2) // "
        "d_head, which is 0 for every pair: every theta_i is 1, so every pair turns by m "
        "radians at position m.",
        (
            r"integer division|//",
            r"(every|all) (theta|frequenc\w*|pairs?).{0,60}(1|one|same|equal)",
            r"exponents?.{0,40}(all )?(zero|0)",
        ),
        (r"positions? (start|from) (at )?1", r"sin.{0,20}cos.{0,20}swap", r"factor (of )?(2|two)"),
        edits=[
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = 1.0 / base ** (torch.arange(0, d_head, 2) // d_head)",
            )
        ],
    ),
    _c(
        "rope-angles-duplicated",
        L11,
        "rotary_embedding",
        "returns the angles repeated for both halves, as Hugging Face's rotate-half code "
        "stores them (torch.cat([angles, angles], -1)): cos and sin of shape (length, "
        "d_head) instead of (length, d_head // 2), with the right values in each half.",
        (
            r"\(length, d_head // 2\)|d_head // 2",
            r"(repeat|duplicat|twice|both halves|cat)",
            r"\(length, d_head\)",
        ),
        (r"positions? (start|from) (at )?1", r"factor (of )?(2|two)", r"\bbase\b.{0,30}ignor"),
        edits=[
            (
                "return angles.cos().float(), angles.sin().float()",
                "angles = torch.cat([angles, angles], dim=-1)\n"
                "    return angles.cos().float(), angles.sin().float()",
            )
        ],
    ),
    # ------------------------------------------------------------------ apply_rotary
    _c(
        "rot-halves-in-pairs-out",
        L11,
        "apply_rotary",
        "takes the pairs as halves (x[..., :half], x[..., half:]) but writes the rotated "
        "pairs back interleaved (torch.stack([...], -1).flatten(-2)), mixing the two "
        "conventions: the rotated values land in the wrong features.",
        (
            r"(mix|mismatch|inconsistent|two conventions|different convention)",
            r"interleav\w*.{0,80}(halves|half)|(halves|half).{0,80}interleav",
            r"(read|split|take)\w*.{0,60}(halves|half).{0,80}(writ|put|stack|back).{0,60}"
            r"(adjacent|pairs|interleav)",
        ),
        (r"sign", r"cos.{0,20}sin.{0,20}swap", r"in[- ]place", r"inverse"),
        edits=[
            (
                "return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "return torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)",
            )
        ],
        source=ROPE_PAIRING_MISMATCH,
    ),
    _c(
        "rot-angles-on-heads-axis",
        L11,
        "apply_rotary",
        "reshapes cos and sin to (len, 1, d_head // 2), Meta's layout for x of shape "
        "(batch, len, heads, d_head), but this x is (..., len, d_head): the positions "
        "broadcast on the axis before len (the heads), which raises or gives a tensor of "
        "the wrong shape.",
        (
            r"\(len, 1, d_head ?// ?2\)|cos\[:, None(, :)?\]",
            r"(heads|wrong) axis|axis (before|of the heads)",
            r"broadcast.{0,80}(wrong|heads|len|position)",
            r"\(batch, len, heads, d_head\)|layout",
        ),
        (r"sign", r"in[- ]place", r"inverse", r"mix|interleav"),
        edits=[
            (
                "cos, sin = cos.to(x.dtype), sin.to(x.dtype)",
                "cos, sin = cos.to(x.dtype)[:, None, :], sin.to(x.dtype)[:, None, :]",
            )
        ],
        source=ROPE_WRONG_AXIS,
    ),
    _c(
        "rot-writes-into-x",
        L11,
        "apply_rotary",
        "assigns the rotated halves back into x's slices and returns x: the values are "
        "right, but the caller's queries or keys are overwritten in place.",
        (
            r"in[- ]place",
            r"modif\w*.{0,40}(x|input|argument)|(x|input).{0,40}(modified|overwritten|changed)",
            r"clone",
        ),
        (r"sign", r"inverse", r"mix|interleav", r"heads axis"),
        edits=[
            (
                "return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "x[..., :half], x[..., half:] = a * cos - b * sin, a * sin + b * cos\n    return x",
            )
        ],
    ),
    # ------------------------------------------------------------------ SwiGLU
    _c(
        "swiglu-silu-outside-product",
        L11,
        "SwiGLU",
        "applies the SiLU to the product, silu(w1(x) * w3(x)), instead of to the gate "
        "alone, silu(w1(x)) * w3(x).",
        (
            r"silu\(w1\(x\) ?\* ?w3\(x\)\)",
            r"silu.{0,60}(product|after (the )?multipl|outside)",
            r"(product|both).{0,40}(through|inside) (the )?silu",
        ),
        (r"\bbias", r"w3.{0,40}gate|gate.{0,40}w3|swapp", r"relu|gelu|sigmoid"),
        edits=[
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(F.silu(self.w1(x) * self.w3(x)))",
            )
        ],
        source=SWIGLU_SILU_OUTSIDE,
    ),
    _c(
        "swiglu-gate-on-w3",
        L11,
        "SwiGLU",
        "puts the SiLU on w3 and uses w1 as the value, silu(w3(x)) * w1(x): the gate and "
        "the value projections are swapped.",
        (
            r"swap",
            r"silu\(w3",
            r"(gate|silu).{0,60}(w3|wrong projection).{0,40}(instead|not)",
            r"w1.{0,40}(is|as) the gate",
        ),
        (r"\bbias", r"(product|after (the )?multipl).{0,30}silu|silu.{0,30}product", r"relu"),
        edits=[
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(F.silu(self.w3(x)) * self.w1(x))",
            )
        ],
        source=SWIGLU_ORDER,
    ),
    # ------------------------------------------------------------------ CausalSelfAttention
    _c(
        "csa-base-not-passed",
        L11,
        "CausalSelfAttention",
        "calls rotary_embedding(length, self.d_head) without self.base, so the angles "
        "always use the default base 10000: right for the default, wrong for any other "
        "base given to the constructor.",
        (
            r"\bbase\b.{0,80}(not passed|ignored|never used|default|missing|forg)",
            r"self\.base",
            r"(default|10000).{0,60}(instead|whatever|always)",
        ),
        (r"d_model.{0,30}(instead of|not) d_head", r"values?.{0,30}rotat", r"transpos", r"mask"),
        edits=[
            (
                "cos, sin = rotary_embedding(length, self.d_head, self.base)",
                "cos, sin = rotary_embedding(length, self.d_head)",
            )
        ],
    ),
    _c(
        "csa-merge-without-transpose",
        L11,
        "CausalSelfAttention",
        "merges the heads with heads.reshape(batch, length, -1) straight from (batch, "
        "num_heads, len, d_head), without moving the heads axis next to d_head first: "
        "each output row mixes several positions of one head (right only for one head or "
        "one position).",
        (
            r"transpos|permut",
            r"reshape.{0,80}(without|before)",
            r"merge_heads",
            r"(heads|positions).{0,60}(mixed|scrambled|interleaved)",
        ),
        (r"\bbase\b", r"values?.{0,30}rotat", r"mask", r"d_model.{0,30}(instead of|not) d_head"),
        edits=[
            (
                "return self.w_o(merge_heads(heads))",
                "return self.w_o(heads.reshape(x.shape[0], length, -1))",
            )
        ],
        source=MERGE_WITHOUT_PERMUTE,
    ),
    _c(
        "csa-rotates-values",
        L11,
        "CausalSelfAttention",
        "rotates the values as well as the queries and keys (v = apply_rotary(v, cos, "
        "sin)): the scores are right, but each value carries its position's rotation into "
        "the output.",
        (
            r"values?.{0,60}(rotat|apply_rotary)",
            r"(rotat|apply_rotary).{0,60}values?",
            r"\bv\b.{0,30}(rotat|apply_rotary)",
        ),
        (r"\bbase\b", r"transpos|permut", r"mask", r"d_model.{0,30}(instead of|not) d_head"),
        edits=[
            (
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)",
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)\n"
                "        v = apply_rotary(v, cos, sin)",
            )
        ],
    ),
    # ------------------------------------------------------------------ DecoderBlock
    _c(
        "block-second-residual-from-x",
        L11,
        "DecoderBlock",
        "adds the feed-forward output to the block's input x instead of to h, "
        "x + feed_forward(norm2(h)): the attention's contribution is dropped from the "
        "output's residual stream.",
        (
            r"(x|input) \+ (self\.)?feed_forward|residual.{0,80}(x|input).{0,40}instead of h",
            r"second residual.{0,60}(x|input)",
            r"h \+ (self\.)?feed_forward",
            r"attention('s)? (output|contribution).{0,60}(dropped|lost|missing)",
        ),
        (r"post-?norm", r"\beps\b", r"norm1.{0,30}norm2|shared", r"norm2\(x\)"),
        edits=[
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return x + self.feed_forward(self.norm2(h))",
            )
        ],
    ),
    _c(
        "block-one-norm-shared",
        L11,
        "DecoderBlock",
        "sets self.norm2 = self.norm1, one RMSNorm used twice: both norms share a single "
        "weight, which is right at initialisation (ones) but not once the weights differ, "
        "and the state dict's norm2.weight is the same tensor as norm1.weight.",
        (
            r"(same|shared|one|single) (RMSNorm|norm|module|weight|Parameter)",
            r"norm2.{0,40}(is|=) (self\.)?norm1",
            r"share",
        ),
        (r"post-?norm", r"\beps\b", r"residual", r"feed_forward\(x\)"),
        edits=[
            (
                "self.norm2 = RMSNorm(d_model, eps)",
                "self.norm2 = self.norm1",
            )
        ],
    ),
    # ------------------------------------------------------------------ GPT
    _c(
        "gpt-blocks-list-multiplied",
        L11,
        "GPT",
        "builds the layers with nn.ModuleList([DecoderBlock(...)] * num_layers): Python's "
        "list multiplication repeats one block, so every layer shares the same weights "
        "(the parameter count is that of one block).",
        (
            r"(same|one|single|shared) (block|DecoderBlock|module|object)",
            r"\* num_layers|list multiplication",
            r"shar\w* (the same )?weights|weights.{0,30}shared",
            r"(new|distinct|separate) (DecoderBlock|block)s?",
        ),
        (r"\btied?\b", r"final norm|self\.norm", r"0\.02|std", r"ModuleList.{0,30}(list|missing)"),
        edits=[
            (
                "[DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]",
                "[DecoderBlock(d_model, num_heads, d_ff, eps)] * num_layers",
            )
        ],
        source=MODULE_LIST_MULTIPLIED,
    ),
    _c(
        "gpt-tied-the-other-way",
        L11,
        "GPT",
        "initialises the embedding with std 0.02, then creates an nn.Linear output and "
        "ties by assigning self.embedding.weight = self.output.weight: the shared matrix "
        "is the Linear's, with nn.Linear's uniform initialisation instead of std 0.02.",
        (
            r"0\.02",
            r"(initiali[sz]\w*|std|standard deviation).{0,80}(overwr|replac|Linear|lost|after)",
            r"(tie|tied|assign\w*).{0,60}(after|before|other way|overwr)",
            r"nn\.Linear('s)? (init|uniform)",
        ),
        (r"final norm|self\.norm", r"(same|one) block|\* num_layers", r"not tied|untied"),
        edits=[
            (
                "self.norm = RMSNorm(d_model, eps)",
                "self.norm = RMSNorm(d_model, eps)\n"
                "        self.output = nn.Linear(d_model, vocab_size, bias=False)\n"
                "        self.embedding.weight = self.output.weight",
            ),
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.output(self.norm(x))",
            ),
        ],
    ),
    # ------------------------------------------------------------------ sample
    _c(
        "sample-top-p-drops-crossing",
        L11,
        "sample",
        "removes a token when the cumulative probability including it exceeds top_p "
        "(cumsum > top_p) instead of the mass before it: the token that crosses top_p is "
        "dropped, so the kept set sums to less than top_p.",
        (
            r"cross\w*.{0,60}(token|threshold).{0,60}(dropped|removed|not kept|excluded|kept)",
            r"(mass|probabilit\w*) before",
            r"cumsum\(?.{0,30}- ?sorted_probs|cumulative - sorted_probs",
            r"(sums?|total) to less than",
        ),
        (r"scatter|gather", r"temperature", r"top.?k", r"1 - top_p"),
        edits=[
            (
                "before = sorted_probs.cumsum(dim=-1) - sorted_probs",
                "before = sorted_probs.cumsum(dim=-1)",
            )
        ],
        source=TOP_P_DROPS_CROSSING,
    ),
    _c(
        "sample-top-p-gather",
        L11,
        "sample",
        "maps the top-p decisions back to vocabulary order with gather(-1, order) instead "
        "of scatter: the removal mask lands on the wrong tokens whenever the sort is not "
        "its own inverse.",
        (
            r"gather.{0,60}(instead of|not|rather than) scatter|scatter.{0,60}not gather",
            r"scatter",
            r"(wrong|other) tokens?.{0,60}(order|sort)|back to (the )?vocabulary order",
        ),
        (r"cross\w*", r"temperature", r"top.?k", r"(mass|probabilit\w*) before"),
        edits=[
            (
                "remove = remove_sorted.scatter(-1, order, remove_sorted)",
                "remove = remove_sorted.gather(-1, order)",
            )
        ],
        source=TOP_P_GATHER,
    ),
    _c(
        "sample-top-k-threshold-per-batch",
        L11,
        "sample",
        "takes the k-th largest logit as .values[:, -1], shape (batch,), without keeping "
        "its axis: against logits (batch, vocab) it broadcasts along the vocabulary, "
        "right for a batch of one, an error or another row's threshold for more.",
        (
            r"keepdim|\[\.\.\., -1:\]|\[:, -1:\]|\(batch, 1\)",
            r"(batch of one|one row).{0,80}(only|right)|(several|more) rows?",
            r"broadcast",
            r"(other|another|wrong) row('s)? (threshold|k-th)",
        ),
        (r"cross\w*", r"temperature", r"scatter|gather", r"ties?"),
        edits=[
            (
                "kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]",
                "kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[:, -1]",
            )
        ],
    ),
]
