"""Held-out wrong answers for lesson 11, blind round 12 (helper r12b, 2026-11-27):
mistakes new to the benchmark.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.

Eleven of the 24 transpose a mistake reported in a public issue thread (the URL read for
this benchmark) to the course's exercise; the others are the author's. Kinds favoured: the
standard library idiom misused (torch.tensor of a list of tensors, torch.cat without dim,
in-place unsqueeze_ on an argument, kthvalue for topk, F.dropout's training default,
nn.SiLU called like a function), arguments swapped (rotary_embedding, split_heads,
nn.Embedding, CausalSelfAttention), a constant replaced (log10 for ln, eps's default),
wrong shapes and names in the state dict, stateful draws (a second randint draw, a fresh
generator), and top-k and top-p interacting.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11 = "11_language_model"

# The reports these cases transpose (each read with the search tool for this benchmark).
TENSOR_OF_TENSORS = "https://github.com/avishkarsaha/translating-images-into-maps/issues/12"
RMS_EPS_DEFAULT = "https://github.com/Lightning-AI/lit-llama/pull/339"
LOG_OF_BASE = "https://github.com/pytorch/tutorials/issues/1778"
FUSED_GATE_UP = "https://github.com/sgl-project/sglang/pull/9661"
FUNCTIONAL_DROPOUT_EVAL = "https://github.com/pytorch/pytorch/issues/26338"
LOGITS_FLATTENED = "https://github.com/karpathy/ng-video-lecture/pull/10"
EMBEDDING_ARGUMENTS = "https://github.com/THUDM/GraphSGAN/issues/1"
TIED_LOGIT_SCALE = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/138"
KTHVALUE_SMALLEST = "https://github.com/pytorch/pytorch/issues/2134"
SOFTMAX_WRONG_DIM = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/52"

_c = held_out_authored("blind12b")

BLIND12B: list[Case] = [
    # ------------------------------------------------------------ next_token_batches
    _c(
        "nb-torch-tensor-of-slices",
        L11,
        "next_token_batches",
        "builds the batch with torch.tensor([tokens[s : s + block_size] for s in starts]), "
        "torch.tensor of a list of tensors, which raises 'only one element tensors can be "
        "converted to Python scalars' instead of stacking the windows (torch.stack).",
        (
            r"torch\.tensor\(.{0,60}(list|tensors)",
            r"torch\.stack",
            r"list of tensors",
        ),
        (r"global random", r"last (valid )?start", r"not shifted", r"time-major|transposed"),
        code="""
        def next_token_batches(tokens, block_size, batch_size, generator):
            starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
            inputs = torch.tensor([tokens[s : s + block_size] for s in starts])
            targets = torch.tensor([tokens[s + 1 : s + block_size + 1] for s in starts])
            return inputs, targets
        """,
        source=TENSOR_OF_TENSORS,
    ),
    _c(
        "nb-targets-second-draw",
        L11,
        "next_token_batches",
        "draws the starts twice, once for the inputs and again (a second torch.randint call "
        "on the same generator) for the targets: the inputs are the contract's windows, but "
        "the targets come from other windows, not the inputs shifted by one.",
        (
            r"(second|another|new|separate) (draw|call to (torch\.)?randint|set of starts)",
            r"(draw[sn]?|drew|calls? (torch\.)?randint) (the starts )?twice",
            r"targets.{0,80}(other|different|their own) (windows|starts|draws?)",
        ),
        (r"global random", r"last (valid )?start", r"ids? plus one|\+ 1 to the (token )?ids"),
        code="""
        def next_token_batches(tokens, block_size, batch_size, generator):
            def windows(offset):
                starts = torch.randint(
                    0, len(tokens) - block_size, (batch_size,), generator=generator
                )
                return tokens[starts[:, None] + torch.arange(block_size) + offset]

            return windows(0), windows(1)
        """,
    ),
    # ------------------------------------------------------------------------ RMSNorm
    _c(
        "rms-default-eps-1e-6",
        L11,
        "RMSNorm",
        "gives eps the default 1e-6 (Llama 1's checkpoints) instead of the contract's 1e-5 "
        "in the signature: an RMSNorm built with an explicit eps is right, one built with the "
        "default normalises with 1e-6.",
        (
            r"default.{0,60}(eps|epsilon).{0,60}1e-0?6",
            r"(eps|epsilon).{0,40}default.{0,40}(1e-0?6|1e-0?5)",
            r"1e-0?6.{0,60}(instead of|not|rather than).{0,20}1e-0?5",
        ),
        (
            r"eps (is )?(added )?(outside|after) the (square root|sqrt)",
            r"ignores? (the )?eps",
            r"hard-?coded",
            r"subtracts? (the|each token's) mean",
        ),
        edits=[
            (
                "def __init__(self, d_model: int, eps: float = 1e-5):",
                "def __init__(self, d_model: int, eps: float = 1e-6):",
            )
        ],
        source=RMS_EPS_DEFAULT,
    ),
    _c(
        "rms-scalar-gain",
        L11,
        "RMSNorm",
        "creates the gain as one number, nn.Parameter(torch.ones(1)), instead of one gain "
        "per feature (d_model,): the output is right while the gain is all ones, but the "
        "state dict's weight has shape (1,) and every feature shares one scale.",
        (
            r"weight.{0,60}shape.{0,40}\(1,?\)",
            r"(one|single|scalar) (gain|weight|number)",
            r"torch\.ones\(1\)",
            r"(gain|weight).{0,40}(one per feature|per feature|\(d_model,\)).{0,40}"
            r"(not|instead)",
        ),
        (r"no (learned )?gain|forgets? .{0,20}(weight|gain)", r"plain tensor", r"gamma", r"bias"),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.weight = nn.Parameter(torch.ones(1))",
            )
        ],
    ),
    _c(
        "rms-extra-bias",
        L11,
        "RMSNorm",
        "adds a learned bias (nn.Parameter(torch.zeros(d_model))) after the gain, as "
        "LayerNorm has: the output is right while the bias is zero, but the state dict has "
        "an extra key bias and a trained bias shifts every token.",
        (
            r"(extra|unexpected|additional) (state[- ]dict )?(key|parameter)s?.{0,40}bias",
            r"RMSNorm has no bias",
            r"bias.{0,60}(should not|must not|not part|has no|no bias)",
            r"'bias'",
        ),
        (r"subtracts? (the|each token's) mean", r"eps (is )?(outside|after)", r"gamma"),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                "self.weight = nn.Parameter(torch.ones(d_model))\n"
                "        self.bias = nn.Parameter(torch.zeros(d_model))",
            ),
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight + self.bias",
            ),
        ],
    ),
    # --------------------------------------------------------------- rotary_embedding
    _c(
        "rope-log10-of-base",
        L11,
        "rotary_embedding",
        "computes theta_i in log space with the base-10 logarithm, exp(-2i/d_head * "
        "log10(base)), instead of the natural one (ln base): every theta_i after the first "
        "is too large, as if the base were e**4 (about 54.6) instead of 10000.",
        (
            r"log10|log_?10|base-10 log|common log",
            r"natural log",
            r"(ln|math\.log)\(base\)",
            r"e ?\*\* ?4|54\.6",
        ),
        (
            r"without (the )?(factor )?(of )?2",
            r"positions? (start|from|count\w*) (at |from )?1",
            r"ignores? (the )?base|base.{0,20}(hard-?coded|ignored)",
            r"floor|integer division",
        ),
        edits=[
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = torch.exp(-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head "
                "* math.log10(base))",
            )
        ],
        source=LOG_OF_BASE,
    ),
    _c(
        "rope-arange-half-step-two",
        L11,
        "rotary_embedding",
        "takes the pair indices from torch.arange(0, d_head // 2, 2) (both the half and the "
        "step of two), so there are d_head // 4 frequencies: cos and sin are (length, "
        "d_head // 4), with the right values for the first d_head // 4 pairs.",
        (
            r"d_head ?// ?4",
            r"arange\(0, d_head ?// ?2, 2",
            r"(half|too few) (of )?(the )?(pairs|frequencies|columns)",
        ),
        (r"duplicat|concatenat", r"transposed", r"without (the )?(factor )?(of )?2"),
        edits=[
            (
                "torch.arange(0, d_head, 2, dtype=torch.float64) / d_head",
                "torch.arange(0, d_head // 2, 2, dtype=torch.float64) / d_head",
            )
        ],
    ),
    # ------------------------------------------------------------------- apply_rotary
    _c(
        "rot-cat-without-dim",
        L11,
        "apply_rotary",
        "puts the rotated halves back with torch.cat([...]) without dim=-1, so they are "
        "concatenated along the first axis: (2 * batch, ..., d_head // 2) instead of x's "
        "shape (the values are right, on the wrong axis).",
        (
            r"dim ?= ?-1",
            r"(concatenat|cat)\w*.{0,60}(first|leading|batch|0) (axis|dim)",
            r"torch\.cat.{0,40}without (a |the )?dim",
            r"along (axis|dim) 0",
        ),
        (r"halves (are )?swapped|wrong order", r"adjacent", r"in place|overwrit"),
        edits=[
            (
                "return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "return torch.cat([a * cos - b * sin, a * sin + b * cos])",
            )
        ],
    ),
    _c(
        "rot-unsqueeze-in-place-tables",
        L11,
        "apply_rotary",
        "adds an axis to cos and sin with the in-place cos.unsqueeze_(0) and "
        "sin.unsqueeze_(0): the caller's tables change shape, so an input with fewer than "
        "three axes comes back with an extra leading axis, and every later call with the "
        "same tables adds another.",
        (
            r"unsqueeze_",
            r"(modif|chang|overwr|reshap)\w* (the caller's |your )?(cos|sin|tables?)",
            r"(cos|sin|tables?).{0,40}(modified|changed|reshaped) in place",
            r"in[- ]place.{0,60}(cos|sin|tables?)",
        ),
        (
            r"(x|queries|keys).{0,30}(overwritten|modified) in place",
            r"upcast",
            r"halves (are )?swapped",
        ),
        edits=[
            (
                "cos, sin = cos.to(x.dtype), sin.to(x.dtype)",
                "cos.unsqueeze_(0)\n    sin.unsqueeze_(0)\n"
                "    cos, sin = cos.to(x.dtype), sin.to(x.dtype)",
            )
        ],
    ),
    # ------------------------------------------------------------------------ SwiGLU
    _c(
        "swiglu-fused-w13",
        L11,
        "SwiGLU",
        "fuses the gate and the value into one nn.Linear(d_model, 2 * d_ff) named w13 and "
        "chunks its output: the computation is SwiGLU's, but the state dict has w13.weight "
        "instead of the contract's w1.weight and w3.weight.",
        (
            r"w13",
            r"fused|one (nn\.)?Linear.{0,60}(both|gate and (the )?value|2 \* d_ff)",
            r"(missing|no) (keys? )?w1(\.weight)? and w3",
            r"w1 and w3.{0,40}(missing|not found)",
        ),
        (r"silu.{0,30}(on|to) (the )?(value|w3|product)", r"\bbias", r"relu|sigmoid|gelu"),
        code="""
        class SwiGLU(nn.Module):
            def __init__(self, d_model, d_ff):
                super().__init__()
                self.w13 = nn.Linear(d_model, 2 * d_ff, bias=False)
                self.w2 = nn.Linear(d_ff, d_model, bias=False)

            def forward(self, x):
                gate, value = self.w13(x).chunk(2, dim=-1)
                return self.w2(F.silu(gate) * value)
        """,
        source=FUSED_GATE_UP,
    ),
    _c(
        "swiglu-nn-silu-as-function",
        L11,
        "SwiGLU",
        "calls the module class as if it were the function, nn.SiLU(self.w1(x)): that "
        "builds a SiLU layer (with the tensor as its inplace flag) instead of applying it, "
        "and multiplying the layer by w3(x) raises a TypeError.",
        (
            r"nn\.SiLU\(.{0,40}\).{0,40}(builds|creates|constructs|makes|returns) (a|the) "
            r"(module|layer)",
            r"(module|layer|class),? not (a|the|its) (function|tensor|output)",
            r"F\.silu|nn\.SiLU\(\)\(",
            r"instantiat",
        ),
        (r"gate.{0,20}(swapped|on w3)", r"\brelu\b|sigmoid", r"\bbias"),
        edits=[
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(nn.SiLU(self.w1(x)) * self.w3(x))",
            )
        ],
    ),
    _c(
        "swiglu-selu-typo",
        L11,
        "SwiGLU",
        "a one-letter slip: F.selu (the scaled exponential linear unit) instead of F.silu, "
        "so the gate is selu(w1(x)).",
        (r"\bselu\b",),
        (r"\brelu\b", r"sigmoid", r"\bgelu\b", r"(gate|value).{0,20}swapped"),
        edits=[("F.silu(self.w1(x))", "F.selu(self.w1(x))")],
    ),
    # ----------------------------------------------------------- CausalSelfAttention
    _c(
        "csa-rotary-arguments-swapped",
        L11,
        "CausalSelfAttention",
        "calls rotary_embedding(self.d_head, length, self.base), the length and d_head "
        "arguments in the wrong order: the tables are (d_head, length // 2) instead of "
        "(length, d_head // 2), a shape error unless length == d_head.",
        (
            r"(arguments?|length and d_head).{0,40}(swapped|wrong order|other way)",
            r"rotary_embedding\((self\.)?d_head, (length|len)",
        ),
        (
            r"base.{0,30}(not passed|ignored|default)",
            r"rotat\w* (the )?values",
            r"keys? (are )?not rotated",
        ),
        edits=[
            (
                "cos, sin = rotary_embedding(length, self.d_head, self.base)",
                "cos, sin = rotary_embedding(self.d_head, length, self.base)",
            )
        ],
    ),
    _c(
        "csa-split-heads-by-d-head",
        L11,
        "CausalSelfAttention",
        "passes self.d_head where split_heads expects the number of heads "
        "(split_heads(self.w_q(x), self.d_head)), so the projections are cut into d_head "
        "heads of num_heads features: right only when num_heads == d_head.",
        (
            r"split_heads\(.{0,40}d_head",
            r"d_head (heads|where num_heads|instead of num_heads|as the number of heads)",
            r"(num_heads and d_head|heads and features).{0,30}swapped",
        ),
        (
            r"merge.{0,40}(without|no) transpose",
            r"view.{0,30}without.{0,20}transpose",
            r"(four|4) heads|hard-?coded",
            r"sqrt\(d_model\)",
        ),
        edits=[
            ("split_heads(self.w_q(x), self.num_heads)", "split_heads(self.w_q(x), self.d_head)"),
            ("split_heads(self.w_k(x), self.num_heads)", "split_heads(self.w_k(x), self.d_head)"),
            ("split_heads(self.w_v(x), self.num_heads)", "split_heads(self.w_v(x), self.d_head)"),
        ],
    ),
    _c(
        "csa-functional-dropout-in-eval",
        L11,
        "CausalSelfAttention",
        "writes the attention by hand and drops attention weights with F.dropout(weights, "
        "p=0.1), whose training argument defaults to True: the weights are dropped even in "
        "eval mode, so the output is random on every call (and the lesson has no dropout).",
        (
            r"F\.dropout.{0,80}training",
            r"training ?= ?self\.training",
            r"dropout.{0,60}(even|also|still) in eval",
            r"eval(uation)? mode.{0,60}(still|random|dropout)",
        ),
        (
            r"no mask|sees? the future|mask.{0,20}(missing|inverted)",
            r"sqrt\(d_model\)",
            r"rotat\w* (the )?values",
        ),
        edits=[
            (
                "heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
                "scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)\n"
                "        scores = scores.masked_fill(~look_ahead_mask(length), float('-inf'))\n"
                "        weights = F.dropout(torch.softmax(scores, dim=-1), p=0.1)\n"
                "        heads = weights @ v",
            )
        ],
        source=FUNCTIONAL_DROPOUT_EVAL,
    ),
    # ----------------------------------------------------------------- DecoderBlock
    _c(
        "block-attention-given-d-ff",
        L11,
        "DecoderBlock",
        "builds the attention with d_ff where num_heads belongs, CausalSelfAttention(d_model, "
        "d_ff): the constructor raises (d_model is not divisible by d_ff) for the usual d_ff "
        "> d_model, and builds an attention with d_ff heads when d_ff divides d_model.",
        (
            r"CausalSelfAttention\(d_model, d_ff\)",
            r"d_ff.{0,40}(as|for|in place of|instead of|where) (the )?(num_heads|number of heads)",
            r"num_heads.{0,40}(given|passed|got) d_ff",
        ),
        (
            r"SwiGLU\(d_ff, d_model\)|swiglu.{0,30}swapped",
            r"eps.{0,30}(as|given as|passed as) (the )?base",
            r"4 \* d_model",
        ),
        edits=[
            (
                "self.attn = CausalSelfAttention(d_model, num_heads)",
                "self.attn = CausalSelfAttention(d_model, d_ff)",
            )
        ],
    ),
    _c(
        "block-lesson-07-names",
        L11,
        "DecoderBlock",
        "names the sub-layers as lesson 07's layer or Hugging Face do, self_attn and ffn, "
        "instead of the contract's attn and feed_forward: the computation is right, but the "
        "state dict's keys are self_attn.* and ffn.* (a checkpoint or lesson 12's cache "
        "cannot find them).",
        (
            r"self_attn",
            r"\bffn\b",
            r"(missing|expected|unexpected) (state[- ]dict )?(keys?|attributes?).{0,60}"
            r"(attn\.|feed_forward)",
        ),
        (r"post-?norm", r"no residual|residual (is )?(missing|dropped)", r"norms? (are )?swapped"),
        edits=[
            ("self.attn = CausalSelfAttention", "self.self_attn = CausalSelfAttention"),
            ("self.feed_forward = SwiGLU", "self.ffn = SwiGLU"),
            ("h = x + self.attn(self.norm1(x))", "h = x + self.self_attn(self.norm1(x))"),
            ("return h + self.feed_forward(self.norm2(h))", "return h + self.ffn(self.norm2(h))"),
        ],
    ),
    # -------------------------------------------------------------------------- GPT
    _c(
        "gpt-logits-flattened",
        L11,
        "GPT",
        "returns the logits flattened for the cross-entropy, .view(-1, vocab_size), as the "
        "bigram model of 'Let's build GPT' does: (batch * len, vocab) instead of (batch, "
        "len, vocab) (the values are right).",
        (
            r"flatten",
            r"\(batch ?\* ?len(gth)?, vocab",
            r"view\(-1",
            r"(batch and (len|position|sequence)) (axes )?(merged|flattened)",
        ),
        (r"last position only", r"tuple|\(logits, (loss|None)\)", r"softmax|probabilities"),
        edits=[
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return (self.norm(x) @ self.embedding.weight.T).view(-1, "
                "self.embedding.num_embeddings)",
            )
        ],
        source=LOGITS_FLATTENED,
    ),
    _c(
        "gpt-embedding-arguments-swapped",
        L11,
        "GPT",
        "builds the embedding as nn.Embedding(d_model, vocab_size), its two arguments the "
        "wrong way round: a table of d_model rows of vocab_size features, so an id of "
        "d_model or more raises an index error and the blocks get vocab_size features.",
        (
            r"nn\.Embedding\(d_model, vocab(_size)?\)",
            r"(arguments?|vocab_size and d_model).{0,40}(swapped|wrong order|other way)",
            r"embedding.{0,60}\(d_model, vocab(_size)?\).{0,40}(instead|not)",
        ),
        (
            r"\btied?\b.{0,30}(not|copy|untied)",
            r"(initiali[sz]|std).{0,30}(0\.02|of 1\b)",
            r"position (embedding|encoding)",
        ),
        edits=[
            (
                "self.embedding = nn.Embedding(vocab_size, d_model)",
                "self.embedding = nn.Embedding(d_model, vocab_size)",
            )
        ],
        source=EMBEDDING_ARGUMENTS,
    ),
    _c(
        "gpt-tied-logits-rescaled",
        L11,
        "GPT",
        "multiplies the tied logits by d_model ** -0.5 (T5's and some Transformer ports' "
        "rescaling of the output when the embedding is shared), which this GPT does not do: "
        "every logit is sqrt(d_model) times too small.",
        (
            r"d_model ?\*\* ?-0\.5",
            r"logits.{0,60}(divided|scaled|multiplied).{0,40}(sqrt|d_model)",
            r"(divid|rescal|scal)\w* the logits",
            r"\bT5\b",
        ),
        (
            r"final norm.{0,30}(missing|skipped)",
            r"embeddings?.{0,30}(scaled|multipl).{0,30}sqrt",
            r"softmax|probabilit",
            r"init",
        ),
        edits=[
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.norm(x) @ self.embedding.weight.T * "
                "self.embedding.embedding_dim ** -0.5",
            )
        ],
        source=TIED_LOGIT_SCALE,
    ),
    # ------------------------------------------------------------------------ sample
    _c(
        "sample-top-k-kthvalue",
        L11,
        "sample",
        "takes the top-k threshold from torch.kthvalue(logits, top_k), which returns the "
        "k-th SMALLEST value (topk's k-th largest was meant): top-k keeps the "
        "vocab - top_k + 1 largest logits instead of top_k.",
        (r"kthvalue", r"(k-?th|kth) smallest", r"smallest.{0,40}(instead of|not).{0,20}largest"),
        (
            r"top_k \+ 1|one (token )?too many",
            r"strict|<=",
            r"batch axis|first row",
            r"keepdim",
        ),
        edits=[
            (
                "kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]",
                "kth = torch.kthvalue(logits, min(top_k, logits.shape[-1]), dim=-1, "
                "keepdim=True).values",
            )
        ],
        source=KTHVALUE_SMALLEST,
    ),
    _c(
        "sample-softmax-over-batch",
        L11,
        "sample",
        "takes the final softmax over the batch axis, torch.softmax(logits, dim=0), instead "
        "of over each row's vocabulary: each column is normalised across the rows (a batch "
        "of one gives every token probability 1, a uniform draw).",
        (
            r"softmax.{0,60}(batch axis|dim ?= ?0|axis 0|over the batch|across (the )?rows)",
            r"(normalis|normaliz)\w*.{0,40}(columns|down the batch|across the batch)",
        ),
        (
            r"cumsum.{0,30}batch",
            r"temperature.{0,30}(multipl|after)",
            r"global (random|generator)",
        ),
        edits=[("probs = torch.softmax(logits, dim=-1)", "probs = torch.softmax(logits, dim=0)")],
        source=SOFTMAX_WRONG_DIM,
    ),
    _c(
        "sample-fresh-generator",
        L11,
        "sample",
        "draws with a new generator seeded 0 on every call, torch.multinomial(probs, 1, "
        "generator=torch.Generator().manual_seed(0)), instead of the generator given: every "
        "call repeats the same uniform draw, whatever state the caller's generator is in.",
        (
            r"(new|fresh|its own) generator",
            r"manual_seed",
            r"(generator|draws?).{0,40}(re-?seeded|reset)",
            r"same (token|draw|sample) (on|at|in) every call",
        ),
        (r"global (random )?(stream|generator|state)", r"argmax", r"temperature.{0,30}multipl"),
        edits=[
            (
                "torch.multinomial(probs, 1, generator=generator)",
                "torch.multinomial(probs, 1, generator=torch.Generator().manual_seed(0))",
            )
        ],
    ),
    _c(
        "sample-top-p-not-renormalised-after-top-k",
        L11,
        "sample",
        "works on probabilities and zeroes the tokens top-k drops without renormalising "
        "before top-p: the nucleus is measured against a total below 1, so with both "
        "filters top-p keeps more tokens than it should (each filter alone is right).",
        (
            r"renormali[sz]\w*.{0,60}(before|after) top-?k",
            r"top-?p.{0,80}(not renormali[sz]ed|unnormali[sz]ed|before renormali[sz])",
            r"(not|never) renormali[sz]ed.{0,60}(top-?k|top-?p)",
        ),
        (
            r"top-?p (applied )?before top-?k",
            r"temperature (applied )?after",
            r"crossing token",
            r"gather",
        ),
        code="""
        def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
            if temperature == 0:
                return logits.argmax(dim=-1)
            probs = torch.softmax(logits / temperature, dim=-1)
            if top_k is not None:
                kth = torch.topk(probs, min(top_k, probs.shape[-1]), dim=-1).values[..., -1:]
                probs = probs.masked_fill(probs < kth, 0.0)
            if top_p is not None:
                sorted_probs, order = probs.sort(dim=-1, descending=True)
                before = sorted_probs.cumsum(dim=-1) - sorted_probs
                remove_sorted = before >= top_p
                remove_sorted[..., 0] = False
                remove = remove_sorted.scatter(-1, order, remove_sorted)
                probs = probs.masked_fill(remove, 0.0)
            return torch.multinomial(probs, 1, generator=generator)[:, 0]
        """,
    ),
]
