"""Held-out wrong answers for lesson 11, blind round 17 (helper b17b, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 19's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored``
in ``cases.py`` makes each case). 20 cases over the nine coded exercises and one question;
five transpose a mistake reported in public (``source=``), the others are the author's.

Written blind: without reading the checks of this lesson or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for this
lesson (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11 = "11_language_model"

FLAMINGO_MASKED_FILL = "https://github.com/lucidrains/flamingo-pytorch/issues/10"
LABML_ROPE_SLICE = (
    "https://github.com/labmlai/annotated_deep_learning_paper_implementations/pull/249"
)
HF_ROPE_ONE_TOO_MANY = "https://github.com/huggingface/transformers/issues/35219"
GPT_FAST_KEYS = "https://github.com/meta-pytorch/gpt-fast/issues/211"
D2L_UNIFORM_INIT = "https://github.com/d2l-ai/d2l-en/pull/1130"

_c = held_out_authored("blind17b")

_REF_RETURN_NTB = "    return tokens[positions], tokens[positions + 1]"
_REF_STARTS = (
    "    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)"
)
_REF_RMS_MEAN = (
    "        mean_square = x.pow(2).mean(dim=-1, keepdim=True)  # (..., 1): one per token"
)
_REF_RMS_RETURN = "        return x * torch.rsqrt(mean_square + self.eps) * self.weight"
_REF_THETA = (
    "    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)  # (d_head/2,)"
)
_REF_ROPE_RETURN = "    return angles.cos().float(), angles.sin().float()"
_REF_ROT_RETURN = (
    "    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)  # (..., len, d_head)"
)
_REF_ROT_CAST = "    cos, sin = cos.to(x.dtype), sin.to(x.dtype)  # (len, d_head/2)"
_REF_SWIGLU_FORWARD = (
    "        return self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., d_ff) inside"
)
_REF_CSA_ATTENTION = (
    "        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))"
)

BLIND17B: list[Case] = [
    # ------------------------------------------------------------ next_token_batches
    _c(
        "ntb-returns-lists-of-windows",
        L11,
        "next_token_batches",
        "gathers the windows with a list comprehension over the starts and returns the two "
        "Python lists of 1-D tensors, forgetting torch.stack: inputs and targets are lists of "
        "batch_size (block_size,) tensors instead of int64 (batch_size, block_size) tensors.",
        (
            r"\blist\b.{0,60}(tensor|stack|instead)",
            r"torch\.stack",
            r"(python )?list (of|instead of)",
        ),
        (
            r"off by one|last (valid )?start",
            r"global (random|generator|stream)",
            r"not shifted|no shift",
            r"float32 instead",
        ),
        edits=(
            (
                _REF_RETURN_NTB,
                "    inputs = [tokens[s : s + block_size] for s in starts]\n"
                "    targets = [tokens[s + 1 : s + block_size + 1] for s in starts]\n"
                "    return inputs, targets",
            ),
        ),
    ),
    _c(
        "ntb-starts-from-scaled-rand",
        L11,
        "next_token_batches",
        "draws the starts as uniform floats scaled and truncated, (torch.rand(batch_size, "
        "generator=generator) * (len(tokens) - block_size)).long(), instead of the contract's "
        "torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator): every "
        "start is in range and uses the generator, but the same generator gives other windows.",
        (
            r"torch\.rand\b",
            r"(not|instead of|rather than) (with )?(the contract's |a )?(torch\.)?randint",
            r"randint\(0, ?(len\(tokens\)|num_tokens) ?- ?block_size.{0,80}(not|instead|other)",
            r"(scaled|uniform) floats?",
        ),
        (
            r"global (random|generator|stream)",
            r"off by one|last (valid )?start (is )?never",
            r"reseed|manual_seed",
            r"sort(ed|s) the starts",
        ),
        edits=(
            (
                _REF_STARTS,
                "    starts = (torch.rand(batch_size, generator=generator)"
                " * (len(tokens) - block_size)).long()",
            ),
        ),
    ),
    # ----------------------------------------------------------------------- RMSNorm
    _c(
        "rms-mean-square-over-d-minus-one",
        L11,
        "RMSNorm",
        "averages the squares with Bessel's correction, dividing their sum by d_model - 1 "
        "instead of d_model (x.pow(2).sum(-1, keepdim=True) / (x.shape[-1] - 1)): the "
        "statistic is d_model / (d_model - 1) times too large and every output slightly too "
        "small.",
        (
            r"d_model ?- ?1",
            r"\bn ?- ?1\b",
            r"bessel",
            r"unbiased",
            r"(divid|denominator).{0,40}\b(d|features?) ?- ?1",
        ),
        (
            r"eps (is )?(outside|added after)",
            r"subtract.{0,20}mean",
            r"sum(s)? (of the squares )?instead of (the |their )?mean",
            r"L2 norm",
            r"sqrt\(d_model\) times",
        ),
        edits=(
            (
                _REF_RMS_MEAN,
                "        mean_square = x.pow(2).sum(dim=-1, keepdim=True) / (x.shape[-1] - 1)",
            ),
        ),
    ),
    _c(
        "rms-gain-added-not-multiplied",
        L11,
        "RMSNorm",
        "adds the gain to the normalised tokens instead of multiplying by it, "
        "x * rsqrt(mean_square + eps) + weight: the gain acts as a bias (every output is "
        "shifted by 1 at initialisation) instead of scaling each feature.",
        (
            r"add(s|ed|ing)? (the )?(gain|weight)",
            r"\+ ?(self\.)?weight",
            r"(gain|weight).{0,40}(added|as a bias|instead of (being )?multipl)",
        ),
        (
            r"subtract.{0,20}mean",
            r"(no|missing|forgets?|without) (the )?(learned )?(gain|weight)",
            r"eps.{0,20}outside",
            r"(1 ?\+ ?weight|gemma)",
        ),
        edits=(
            (
                _REF_RMS_RETURN,
                "        return x * torch.rsqrt(mean_square + self.eps) + self.weight",
            ),
        ),
    ),
    # -------------------------------------------------------------- rotary_embedding
    _c(
        "rope-one-frequency-too-many",
        L11,
        "rotary_embedding",
        "takes the pair indices from torch.arange(0, d_head + 1, 2) (an inclusive upper "
        "bound), which yields d_head // 2 + 1 frequencies: cos and sin are "
        "(length, d_head // 2 + 1), one column too many for the pairs.",
        (
            r"d_head ?// ?2 ?\+ ?1",
            r"one (frequency|column|pair|angle) too many",
            r"(an )?(extra|one more) (frequency|column|pair|angle)",
            r"arange\(0, ?d_head ?\+ ?1",
        ),
        (
            r"transpos",
            r"duplicat|repeated for both halves",
            r"without (the )?(factor )?(of )?(two|2)",
            r"positions? (start|from|counted from) (at )?1",
            r"step (of )?two.{0,20}half",
        ),
        edits=(
            (
                _REF_THETA,
                "    theta = base ** (-torch.arange(0, d_head + 1, 2, dtype=torch.float64)"
                " / d_head)",
            ),
        ),
        source=HF_ROPE_ONE_TOO_MANY,
    ),
    _c(
        "rope-numpy-tables",
        L11,
        "rotary_embedding",
        "takes the cosines and sines with NumPy, np.cos(angles.numpy()).astype(np.float32), "
        "and returns two NumPy arrays instead of two float32 torch tensors.",
        (r"numpy", r"ndarray", r"(not|instead of) (a |two )?(torch )?tensors?"),
        (r"float64", r"transpos", r"swapp", r"duplicat"),
        edits=(
            (
                _REF_ROPE_RETURN,
                "    import numpy as np\n\n"
                "    cos = np.cos(angles.numpy()).astype(np.float32)\n"
                "    return cos, np.sin(angles.numpy()).astype(np.float32)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ apply_rotary
    _c(
        "rot-returns-halves-as-tuple",
        L11,
        "apply_rotary",
        "returns the two rotated halves as a tuple, (a * cos - b * sin, a * sin + b * cos), "
        "without torch.cat to join them back into one (..., len, d_head) tensor.",
        (
            r"tuple",
            r"torch\.cat",
            r"(two|both) (rotated )?halves.{0,60}(not|never|without).{0,20}(concatenat|join|put back)",
            r"(concatenat|join).{0,40}halves",
        ),
        (r"\bsign\b", r"in place", r"swapp", r"adjacent pairs.{0,40}(halves|concatenat)"),
        edits=((_REF_ROT_RETURN, "    return a * cos - b * sin, a * sin + b * cos"),),
    ),
    _c(
        "rot-tables-sliced-to-first-axis",
        L11,
        "apply_rotary",
        "slices the tables to x.shape[0] positions (cos[: x.shape[0]]), the length of a "
        "seq-first (len, ...) input: right for a (len, d_head) input, but for "
        "(batch, num_heads, len, d_head) it keeps `batch` rows, a shape error when "
        "1 < batch < len and position 0's angles everywhere for a batch of one.",
        (
            r"x\.shape\[0\]",
            r"(first|batch) ax(is|es).{0,60}(slic|positions|length|rows)",
            r"slic.{0,60}(batch|first axis|shape\[0\])",
            r"(len|length|positions) (from|read from) (the )?(first|batch)",
        ),
        (r"four axes|4-d only", r"unsqueez", r"in place", r"half = "),
        edits=(
            (
                _REF_ROT_CAST,
                "    cos, sin = cos[: x.shape[0]].to(x.dtype), sin[: x.shape[0]].to(x.dtype)",
            ),
        ),
        source=LABML_ROPE_SLICE,
    ),
    # ------------------------------------------------------------- quiz_rope_values
    _c(
        "quiz-rope-values-printed",
        L11,
        "quiz_rope_values",
        "prints the right letter, print('c'), instead of returning it, so the function "
        "returns None.",
        (r"print", r"returns? None", r"(no|without a|missing) return"),
        (r"wrong (letter|answer|option)", r"rotat(es|ed) the values", r"embeddings"),
        edits=(('    return "c"', '    print("c")'),),
    ),
    # ------------------------------------------------------------------------ SwiGLU
    _c(
        "swiglu-weights-untransposed",
        L11,
        "SwiGLU",
        "applies the layers' weights by hand without transposing them, x @ self.w1.weight "
        "(and w3, w2) instead of self.w1(x) = x @ w1.weight.T: a shape error whenever d_ff != "
        "d_model, transposed weights (wrong values) when they are equal.",
        (
            r"transpos",
            r"weight\.T\b",
            r"F\.linear",
            r"(call|use) (the )?(layers?|self\.w1)",
        ),
        (
            r"gate.{0,30}(value|w3).{0,20}swap",
            r"silu (on|to) (the )?(value|w3)",
            r"\bbias",
            r"nn\.Linear\(d_model, d_ff\).{0,30}w2",
        ),
        edits=(
            (
                _REF_SWIGLU_FORWARD,
                "        gate = F.silu(x @ self.w1.weight)\n"
                "        return (gate * (x @ self.w3.weight)) @ self.w2.weight",
            ),
        ),
    ),
    _c(
        "swiglu-hugging-face-names",
        L11,
        "SwiGLU",
        "names the three projections as Hugging Face's Llama does, gate_proj, up_proj and "
        "down_proj, instead of the contract's w1, w3 and w2: the computation is SwiGLU's, but "
        "the state dict has none of the keys w1.weight, w3.weight, w2.weight.",
        (
            r"gate_proj",
            r"up_proj|down_proj",
            r"(names?|keys?).{0,60}w1.{0,30}w3.{0,30}w2",
            r"hugging face'?s? (llama )?names",
        ),
        (r"\bbias", r"fused|w13", r"swapp", r"plain (python )?dict"),
        edits=(
            (
                "        self.w1 = nn.Linear(d_model, d_ff, bias=False)\n"
                "        self.w3 = nn.Linear(d_model, d_ff, bias=False)\n"
                "        self.w2 = nn.Linear(d_ff, d_model, bias=False)",
                "        self.gate_proj = nn.Linear(d_model, d_ff, bias=False)\n"
                "        self.up_proj = nn.Linear(d_model, d_ff, bias=False)\n"
                "        self.down_proj = nn.Linear(d_ff, d_model, bias=False)",
            ),
            (
                _REF_SWIGLU_FORWARD,
                "        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))",
            ),
        ),
        source=GPT_FAST_KEYS,
    ),
    # ----------------------------------------------------------- CausalSelfAttention
    _c(
        "csa-masked-fill-result-discarded",
        L11,
        "CausalSelfAttention",
        "writes the attention by hand and calls scores.masked_fill(~mask, -inf) without "
        "assigning the result (masked_fill is not in place): the causal mask has no effect, "
        "so every position attends to later positions.",
        (
            r"masked_fill\b.{0,80}(not in.place|returns? a new|never assigned|discarded|result)",
            r"masked_fill_",
            r"(result|return value) of (the )?masked_fill",
            r"not in.place",
        ),
        (
            r"-1e-?\d+|tiny negative",
            r"after (the )?softmax",
            r"triu|inverted mask",
            r"diagonal",
            r"float mask",
        ),
        edits=(
            (
                _REF_CSA_ATTENTION,
                "        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)\n"
                '        scores.masked_fill(~look_ahead_mask(length), float("-inf"))\n'
                "        heads = torch.softmax(scores, dim=-1) @ v",
            ),
        ),
        source=FLAMINGO_MASKED_FILL,
    ),
    _c(
        "csa-scale-power-precedence",
        L11,
        "CausalSelfAttention",
        "writes the attention by hand and scales the scores by (self.d_head ** 1 / 2), which "
        "Python reads as d_head / 2 (** binds tighter than /), not sqrt(d_head): right only "
        "for d_head = 4, the weights too flat for wider heads.",
        (
            r"precedence",
            r"\*\* ?1 ?/ ?2",
            r"d_head ?/ ?2\b",
            r"half (of )?d_head",
        ),
        (
            r"sqrt\(d_model\)",
            r"(no|without|forgets?( to)?) (the )?scal",
            r"prescal|twice",
            r"softmax over (the )?quer",
        ),
        edits=(
            (
                _REF_CSA_ATTENTION,
                "        scores = q @ k.transpose(-2, -1) / (self.d_head ** 1 / 2)\n"
                '        scores = scores.masked_fill(~look_ahead_mask(length), float("-inf"))\n'
                "        heads = torch.softmax(scores, dim=-1) @ v",
            ),
        ),
    ),
    # ------------------------------------------------------------------ DecoderBlock
    _c(
        "block-d-head-given-as-num-heads",
        L11,
        "DecoderBlock",
        "builds the attention with the head width where the number of heads belongs, "
        "CausalSelfAttention(d_model, d_model // num_heads): right only when "
        "num_heads ** 2 == d_model, otherwise the attention has d_head heads of num_heads "
        "features.",
        (
            r"d_model ?// ?num_heads",
            r"d_head.{0,40}(as|for|instead of|where).{0,30}(num_heads|number of heads)",
            r"(number of heads|num_heads).{0,40}(given|passed) (as )?d_head",
        ),
        (r"eps.{0,30}base", r"\bd_ff\b.{0,30}(heads|attention)", r"(arguments?|order).{0,20}swapp"),
        edits=(
            (
                "        self.attn = CausalSelfAttention(d_model, num_heads)",
                "        self.attn = CausalSelfAttention(d_model, d_model // num_heads)",
            ),
        ),
    ),
    _c(
        "block-forward-requires-mask",
        L11,
        "DecoderBlock",
        "keeps lesson 07's layer signature, forward(self, x, mask), with a required mask "
        "argument it never uses: the block called as block(x) raises a raw TypeError "
        "(missing argument 'mask') instead of running.",
        (
            r"(extra|second|required) (positional )?(argument|parameter).{0,30}mask",
            r"mask.{0,30}(extra|second|required) (positional )?(argument|parameter)",
            r"forward.{0,40}(only|just|alone).{0,10}\bx\b",
            r"(takes|accepts?) (only )?x\b",
        ),
        (r"norms? (are )?swapp", r"residual", r"post-norm", r"d_ff"),
        edits=(
            (
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
                "        h = x + self.attn(self.norm1(x))",
                "    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:\n"
                "        h = x + self.attn(self.norm1(x))",
            ),
        ),
    ),
    # --------------------------------------------------------------------------- GPT
    _c(
        "gpt-output-through-weight-data",
        L11,
        "GPT",
        "computes the tied logits with embedding.weight.data.T: the values are right, but "
        ".data is outside autograd, so the output layer sends no gradient to the shared "
        "matrix (it learns from the input lookup only).",
        (
            r"\.data\b",
            r"detach",
            r"no gradient.{0,80}(output|tied|logits|embedding)",
            r"(output|tied|logits).{0,60}(no|without|never).{0,20}gradient",
        ),
        (
            r"(copy|clone)",
            r"std|standard deviation|initiali[sz]",
            r"(final )?norm (is )?(missing|skipped)",
            r"no_grad",
        ),
        edits=(
            (
                "        return self.norm(x) @ self.embedding.weight.T  # (batch, len, vocab)",
                "        return self.norm(x) @ self.embedding.weight.data.T",
            ),
        ),
    ),
    _c(
        "gpt-embedding-uniform-init",
        L11,
        "GPT",
        "initialises the embedding with nn.init.uniform_(weight, -0.02, 0.02) instead of a "
        "normal distribution with standard deviation 0.02: the standard deviation is "
        "0.02 / sqrt(3), about 0.0115.",
        (r"uniform", r"0\.011\d*", r"not (a |from a )?normal"),
        (r"mean (of )?0\.02", r"N\(0, ?1\)|default init", r"padding"),
        edits=(
            (
                "        nn.init.normal_(self.embedding.weight, std=0.02)",
                "        nn.init.uniform_(self.embedding.weight, -0.02, 0.02)",
            ),
        ),
        source=D2L_UNIFORM_INIT,
    ),
    # ------------------------------------------------------------------------ sample
    _c(
        "sample-top-p-strict-greater",
        L11,
        "sample",
        "removes a sorted token only when the mass before it exceeds top_p strictly "
        "(before > top_p instead of >=): when the tokens before it sum to exactly top_p the "
        "set already reaches top_p, but one more token is kept.",
        (
            r"(>=|≥|at least).{0,60}(strict|\s>\s)",
            r"strict(ly)?",
            r"exactly top_p",
            r"(reaches|equal to) top_p.{0,60}(kept|keeps|not removed)",
        ),
        (
            r"drops? the (token that )?cross",
            r"gather|scatter",
            r"ascending",
            r"before top-k|after top-p",
        ),
        edits=(
            ("        remove_sorted = before >= top_p", "        remove_sorted = before > top_p"),
        ),
    ),
    _c(
        "sample-top-k-clamped-to-batch",
        L11,
        "sample",
        "clamps top_k with the batch size instead of the vocabulary size, "
        "min(top_k, logits.shape[0]): right while the batch has at least top_k rows, "
        "otherwise top-k keeps only `batch` tokens.",
        (
            r"shape\[0\]",
            r"(batch|number of rows).{0,60}(clamp|min\b|instead of (the )?vocab)",
            r"clamp.{0,60}batch",
        ),
        (
            r"k-th smallest|kthvalue",
            r"top_k \+ 1|one too many",
            r"top_k - 1|strict",
            r"beyond (the )?vocab",
        ),
        edits=(("min(top_k, logits.shape[-1])", "min(top_k, logits.shape[0])"),),
    ),
    _c(
        "sample-temperature-is-zero",
        L11,
        "sample",
        "tests the greedy case with identity, `if temperature is 0:`, which holds for the int "
        "0 but not for 0.0: sample(logits, 0.0) divides by zero, the probabilities are NaN and "
        "torch.multinomial raises, instead of returning the argmax.",
        (
            r"\bis 0\b",
            r"`is`",
            r"identity",
            r"0\.0.{0,60}(but|while|whereas|not).{0,40}\b0\b",
            r"(int(eger)? 0|float 0\.0)",
        ),
        (
            r"argmin",
            r"multipl(y|ies) (the logits )?by (the )?temperature",
            r"in place",
        ),
        edits=(("    if temperature == 0:", "    if temperature is 0:"),),
    ),
]
