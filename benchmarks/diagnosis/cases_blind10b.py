"""Held-out wrong answers for lessons 11, blind round 10 (helper b10b, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Most transpose a mistake described in a public issue thread (the URL read for this
benchmark with the search tool) to the course's exercise; the others are the author's.
Kinds favoured: two mistakes at once, mistakes that only show on some inputs (one head
or three axes, another length, train mode, top_p small, batch > 1), wrong shapes, types
and dtypes returned, raw exceptions from the learner's own code, and copies where a
shared tensor was asked for.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11 = "11_language_model"

# The reports these cases transpose (each read with the search tool for this benchmark).
NARROW_TOKEN_DTYPE = "https://github.com/ServiceNow/Fast-LLM/pull/540"
RMS_WITH_VARIANCE = "https://github.com/huggingface/pytorch-image-models/issues/2380"
ZERO_GAIN_INIT = "https://github.com/pytorch/torchtitan/pull/4489"
INTERLEAVED_ANGLES_HALF_ROTATION = "https://github.com/raiyanyahya/how-to-train-your-gpt/issues/6"
COS_SIN_LAYOUT = "https://github.com/rasbt/LLMs-from-scratch/issues/411"
DROPOUT_TRAIN_MODE = "https://github.com/huggingface/transformers/issues/2627"
SCALE_D_MODEL = "https://github.com/Graylab/DL4Proteins-notebooks/issues/12"
MASK_FILL_TINY = "https://github.com/hyunwoongko/transformer/issues/10"
ROPE_TABLE_NOT_SLICED = "https://github.com/TattaBio/gLM2/pull/3"
VIEW_NOT_CONTIGUOUS = "https://github.com/facebookresearch/fairseq/issues/2598"
LAYERNORM_FOR_RMSNORM = "https://github.com/ggml-org/llama.cpp/issues/173"
WPE_WITH_ROPE = "https://github.com/OpenBioML/protein-lm-scaling/issues/65"
TOP_P_MASKS_ALL = "https://github.com/ml-explore/mlx-lm/pull/1912"

_case = held_out_authored("blind10b")

_CSA_INIT = """
class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be divisible by num_heads")
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)
        self.w_v = nn.Linear(d_model, d_model, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)
"""

_CSA_BY_HAND = """
    def forward(self, x):
        batch, length, d_model = x.shape
        q = split_heads(self.w_q(x), self.num_heads)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        cos, sin = rotary_embedding(length, self.d_head, self.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        scores = q @ k.transpose(-2, -1) / math.sqrt({scale})
        scores = scores.masked_fill(~look_ahead_mask(length), {fill})
        heads = torch.softmax(scores, dim=-1) @ v
        return self.w_o(merge_heads(heads))
"""

BLIND10B: list[Case] = [
    # ------------------------------------------------------------ next_token_batches
    _case(
        "batches-float-table",
        L11,
        "next_token_batches",
        "preallocates the windows with torch.zeros(batch_size, block_size), whose dtype is "
        "float32, and fills them in a loop, so inputs and targets come back as float32 "
        "instead of int64 token ids (an nn.Embedding refuses them).",
        (r"int64", r"float32", r"dtype", r"torch\.long", r"\blong\b"),
        (r"global (random|generator|stream)", r"not shifted", r"last (valid )?start"),
        code="""
def next_token_batches(tokens, block_size, batch_size, generator):
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    inputs = torch.zeros(batch_size, block_size)
    targets = torch.zeros(batch_size, block_size)
    for row, start in enumerate(starts.tolist()):
        inputs[row] = tokens[start : start + block_size]
        targets[row] = tokens[start + 1 : start + block_size + 1]
    return inputs, targets
""",
        source=NARROW_TOKEN_DTYPE,
    ),
    _case(
        "batches-randperm-starts",
        L11,
        "next_token_batches",
        "draws distinct starts with torch.randperm(len(tokens) - block_size, "
        "generator=generator)[:batch_size] (without replacement) instead of the contract's "
        "torch.randint draw, so the same generator gives other windows (and fewer rows "
        "than batch_size when there are fewer starts than that).",
        (r"randint", r"randperm", r"without replacement"),
        (r"global (random|generator|stream)", r"off[- ]by[- ]one", r"not shifted"),
        edits=(
            (
                "starts = torch.randint(0, len(tokens) - block_size, (batch_size,), "
                "generator=generator)",
                "starts = torch.randperm(len(tokens) - block_size, "
                "generator=generator)[:batch_size]",
            ),
        ),
    ),
    # ------------------------------------------------------------ RMSNorm
    _case(
        "rms-variance-statistic",
        L11,
        "RMSNorm",
        "divides by the square root of the variance (x.var over the last axis: centred "
        "and unbiased) instead of the mean of the squares, so x is divided by its "
        "standard deviation rather than its root mean square (x itself is not centred).",
        (
            r"\bvar(iance)?\b",
            r"standard deviation",
            r"\bstd\b",
            r"unbiased",
            r"mean of (the )?squares",
            r"x\.pow\(2\)\.mean",
        ),
        (r"eps.{0,30}outside", r"sequence axis", r"no weight|without (the )?(gain|weight)"),
        edits=(("x.pow(2).mean(dim=-1, keepdim=True)", "x.var(dim=-1, keepdim=True)"),),
        source=RMS_WITH_VARIANCE,
    ),
    _case(
        "rms-gain-zeros",
        L11,
        "RMSNorm",
        "initialises the gain with torch.zeros (the init of Gemma's (1 + weight) "
        "convention) while multiplying by weight itself, so a freshly built RMSNorm "
        "returns all zeros.",
        (r"zeros?\b", r"ones", r"initiali[sz]\w*"),
        (
            r"no weight|without (the )?(gain|weight)|forg\w* .{0,20}(gain|weight)",
            r"1 \+ weight|offset",
            r"subtract",
        ),
        edits=(("nn.Parameter(torch.ones(d_model))", "nn.Parameter(torch.zeros(d_model))"),),
        source=ZERO_GAIN_INIT,
    ),
    _case(
        "rms-mean-over-whole-tensor",
        L11,
        "RMSNorm",
        "takes the mean square over the whole tensor (x.pow(2).mean() without dim), so "
        "every token of every row is divided by one statistic shared by the batch, not by "
        "its own: right only for a single token.",
        (
            r"per token",
            r"(whole|entire) (tensor|batch|input)",
            r"(every|all|several|other) tokens",
            r"dim=-1",
            r"(last|feature) axis",
            r"one statistic",
        ),
        (r"eps.{0,30}(outside|inside)", r"subtract", r"no weight|without (the )?(gain|weight)"),
        edits=(("x.pow(2).mean(dim=-1, keepdim=True)", "x.pow(2).mean()"),),
    ),
    # ------------------------------------------------------------ rotary_embedding
    _case(
        "rope-exponent-parentheses-dropped",
        L11,
        "rotary_embedding",
        "drops the parentheses around the exponent, 1.0 / (base ** torch.arange(0, d_head, "
        "2) / d_head), which computes d_head / base ** (2i) instead of base ** (-2i / "
        "d_head): every frequency but the first is far too low, the first is d_head.",
        (
            r"parenthes",
            r"precedence",
            r"2 ?i ?/ ?d_head",
            r"exponent",
            r"base ?\*\* ?\(-",
        ),
        (
            r"positions? (start|from) 1",
            r"transpos",
            r"swap",
            r"base.{0,30}ignor",
            r"factor (of )?(two|2)",
        ),
        code="""
def rotary_embedding(length, d_head, base=10000.0):
    theta = 1.0 / (base ** torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    angles = torch.arange(length, dtype=torch.float64)[:, None] * theta
    return angles.cos().float(), angles.sin().float()
""",
    ),
    _case(
        "rope-exponent-floor-division",
        L11,
        "rotary_embedding",
        "divides the integer exponents with // (torch.arange(0, d_head, 2) // d_head), "
        "which is 0 for every pair, so every theta_i is 1: all pairs turn at the first "
        "pair's frequency.",
        (
            r"//",
            r"floor",
            r"integer division",
            r"exponent",
            r"(every|all) (the )?(pairs?|frequenc\w+|thetas?).{0,50}(same|equal|1\b|one)",
        ),
        (r"positions? (start|from) 1", r"transpos", r"swap", r"base.{0,30}ignor"),
        code="""
def rotary_embedding(length, d_head, base=10000.0):
    theta = base ** (-(torch.arange(0, d_head, 2) // d_head))
    angles = torch.arange(length, dtype=torch.float64)[:, None] * theta
    return angles.cos().float(), angles.sin().float()
""",
    ),
    # ------------------------------------------------------------ apply_rotary
    _case(
        "rotary-interleaved-angles-rotate-half",
        L11,
        "apply_rotary",
        "mixes the two layouts: expands the angles for adjacent pairs "
        "(repeat_interleave: theta_0, theta_0, theta_1, ...) but rotates halves "
        "(rotate-half pairs feature i with i + d_head/2), so the two features of a pair "
        "turn by different angles.",
        (
            r"repeat_interleave",
            r"(mix|combin)\w*.{0,40}(layouts?|conventions?|pairings?)",
            r"adjacent.{0,80}(half|halves)",
            r"(half|halves).{0,80}adjacent",
            r"interleav",
            r"different angles",
        ),
        (r"\bsign\b", r"in[- ]place", r"dtype", r"halves.{0,30}(swap|order)"),
        code="""
def apply_rotary(x, cos, sin):
    cos = cos.repeat_interleave(2, dim=-1).to(x.dtype)  # (len, d_head)
    sin = sin.repeat_interleave(2, dim=-1).to(x.dtype)
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + rotated * sin
""",
        source=INTERLEAVED_ANGLES_HALF_ROTATION,
    ),
    _case(
        "rotary-tables-unsqueezed-for-seq-first",
        L11,
        "apply_rotary",
        "inserts a head axis after the positions (cos[:, None, :], the unsqueeze of the "
        "(batch, len, heads, d_head) layout), so the (len, 1, d_head/2) tables line the "
        "positions up with the head axis of (batch, num_heads, len, d_head) inputs: a "
        "shape error, or a (len, len, ...) result for one head's (len, d_head).",
        (
            r"broadcast",
            r"unsqueeze",
            r"\[:, ?None",
            r"head axis",
            r"\b(cos|sin)\b.{0,60}(shape|axes|axis)",
        ),
        (r"\bsign\b", r"dtype", r"in[- ]place", r"adjacent", r"halves.{0,30}(swap|order)"),
        edits=(
            (
                "cos, sin = cos.to(x.dtype), sin.to(x.dtype)",
                "cos, sin = cos.to(x.dtype)[:, None, :], sin.to(x.dtype)[:, None, :]",
            ),
        ),
        source=COS_SIN_LAYOUT,
    ),
    _case(
        "rotary-four-axes-hard-coded",
        L11,
        "apply_rotary",
        "unpacks x.shape into four names (batch, heads, length, d_head) and slices "
        "x[:, :, :, :half], so an input with another number of axes (one head's (len, "
        "d_head), or (batch, len, d_head)) raises, although the contract allows any "
        "leading axes.",
        (
            r"(any|other|another) number of (leading )?(axes|dimensions)",
            r"\b(2|3|two|three)[- ]?(d\b|axes|dimensional)",
            r"leading (axes|dimensions)",
            r"unpack",
            r"(four|4) (axes|dimensions)|\b4-?d\b",
        ),
        (r"\bsign\b", r"dtype", r"adjacent", r"halves.{0,30}(swap|order)"),
        code="""
def apply_rotary(x, cos, sin):
    batch, heads, length, d_head = x.shape
    half = d_head // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[:, :, :, :half], x[:, :, :, half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
""",
    ),
    # ------------------------------------------------------------ SwiGLU
    _case(
        "swiglu-silu-by-hand-sign",
        L11,
        "SwiGLU",
        "writes the SiLU by hand with the wrong sign in the exponential, z / (1 + exp(z)) "
        "= z * sigmoid(-z), instead of z / (1 + exp(-z)).",
        (
            r"\bsign\b",
            r"exp\(-",
            r"sigmoid\(-",
            r"not (the |a )?silu",
            r"silu.{0,40}(by hand|wrong|incorrect)",
            r"(gate|activation).{0,60}(not|isn't|differs).{0,30}silu",
        ),
        (
            r"(gate|value).{0,30}swap",
            r"silu.{0,30}(on|to) (the )?(value|w3|product)",
            r"\brelu\b",
            r"\bgelu\b",
            r"bias",
        ),
        edits=(("F.silu(self.w1(x))", "self.w1(x) / (1 + torch.exp(self.w1(x)))"),),
    ),
    _case(
        "swiglu-dropout-train-mode",
        L11,
        "SwiGLU",
        "adds dropout (p = 0.1) after w2, as nanoGPT's MLP does; the lesson's block has "
        "none, so a freshly built module (train mode) returns a different random output "
        "on every call (right only in eval mode).",
        (
            r"dropout",
            r"train(ing)? mode",
            r"\beval\b",
            r"random",
            r"(two|second|each|every|repeated) calls?",
            r"nondetermin|not deterministic",
        ),
        (r"bias", r"(gate|value).{0,30}swap", r"\b(relu|gelu|sigmoid)\b"),
        code="""
class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.w2(F.silu(self.w1(x)) * self.w3(x)))
""",
        source=DROPOUT_TRAIN_MODE,
    ),
    # ------------------------------------------------------------ CausalSelfAttention
    _case(
        "csa-scale-d-model",
        L11,
        "CausalSelfAttention",
        "writes the attention by hand and divides the scores by sqrt(d_model) instead of "
        "sqrt(d_head), so every head's weights are too flat (by a factor num_heads in "
        "the exponent's scale).",
        (
            r"sqrt\(d_model\)",
            r"d_model.{0,40}(instead|rather than|not).{0,20}d_head",
            r"sqrt\(d_head\)",
            r"scal(e|ing).{0,60}(d_head|head width|per[- ]head)",
        ),
        (
            r"no scal|without (the )?scal|forg\w* (to )?(the )?scal",
            r"no mask|without (a |the )?mask",
            r"rotat\w* (the )?values",
        ),
        code=_CSA_INIT + _CSA_BY_HAND.format(scale="d_model", fill='float("-inf")'),
        source=SCALE_D_MODEL,
    ),
    _case(
        "csa-mask-fill-tiny-negative",
        L11,
        "CausalSelfAttention",
        "writes the attention by hand and fills the blocked scores with -1e-12 (about "
        "0) instead of -inf, so the future keys keep a weight of about exp(0) and every "
        "position attends to later positions.",
        (
            r"-inf",
            r"-1e-12",
            r"fill(ed)? value|value (it|you) fill",
            r"(blocked|masked) (keys?|scores?|positions?).{0,60}(weight|not zero|nonzero|non-zero|keep)",
            r"(large|big) negative",
        ),
        (
            r"no mask|without (a |the )?mask|passes no mask",
            r"scal(e|ing)",
            r"rotat",
            r"(mask|triu).{0,30}(invert|flipp|reversed|wrong way)",
        ),
        code=_CSA_INIT + _CSA_BY_HAND.format(scale="self.d_head", fill="-1e-12"),
        source=MASK_FILL_TINY,
    ),
    _case(
        "csa-rope-tables-not-sliced",
        L11,
        "CausalSelfAttention",
        "precomputes the cos and sin tables for max_len = 512 positions in __init__ and "
        "never slices them to the input's length ([:length]), so apply_rotary fails with "
        "a shape error for every other length.",
        (
            r"\[:\s*(len|length|seq)",
            r"slic",
            r"max_len",
            r"\b512\b",
            r"precomput",
            r"\b(tables?|cos|sin)\b.{0,60}(length|positions).{0,40}(input|sequence|not)",
        ),
        (r"\bsign\b", r"dtype", r"rotat\w* (the )?values", r"no mask|without (a |the )?mask"),
        code=_CSA_INIT
        + """
        cos, sin = rotary_embedding(512, self.d_head, base)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, x):
        q = split_heads(self.w_q(x), self.num_heads)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        q, k = apply_rotary(q, self.cos, self.sin), apply_rotary(k, self.cos, self.sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(x.shape[1]))
        return self.w_o(merge_heads(heads))
""",
        source=ROPE_TABLE_NOT_SLICED,
    ),
    _case(
        "csa-merge-view-not-contiguous",
        L11,
        "CausalSelfAttention",
        "merges the heads with heads.transpose(1, 2).view(batch, length, -1), without "
        ".contiguous() (or reshape), so the view of the transposed tensor raises a raw "
        "RuntimeError about sizes and strides.",
        (r"contiguous", r"reshape", r"merge_heads", r"view.{0,40}(transpos|stride)"),
        (
            r"no mask|without (a |the )?mask",
            r"rotat",
            r"scal(e|ing)",
            r"(heads?|positions?) (are )?(mixed|interleaved|scrambled)",
        ),
        edits=(
            (
                "return self.w_o(merge_heads(heads))",
                "return self.w_o(heads.transpose(1, 2).view(x.shape[0], length, -1))",
            ),
        ),
        source=VIEW_NOT_CONTIGUOUS,
    ),
    # ------------------------------------------------------------ DecoderBlock
    _case(
        "block-layernorm-norms",
        L11,
        "DecoderBlock",
        "builds norm1 and norm2 as nn.LayerNorm (lesson 07's block) instead of RMSNorm, "
        "so each norm subtracts the mean and carries a bias (extra state-dict keys "
        "norm1.bias and norm2.bias).",
        (
            r"layer ?norm",
            r"\bbias",
            r"subtract\w*.{0,30}mean",
            r"(norm1|norm2|norms?).{0,40}(not|isn't|must be).{0,20}RMSNorm",
        ),
        (r"post[- ]?norm", r"residual", r"swap", r"\beps\b"),
        edits=(
            ("self.norm1 = RMSNorm(d_model, eps)", "self.norm1 = nn.LayerNorm(d_model, eps)"),
            ("self.norm2 = RMSNorm(d_model, eps)", "self.norm2 = nn.LayerNorm(d_model, eps)"),
        ),
        source=LAYERNORM_FOR_RMSNORM,
    ),
    _case(
        "block-swiglu-arguments-swapped",
        L11,
        "DecoderBlock",
        "passes SwiGLU's arguments the wrong way round, SwiGLU(d_ff, d_model), so the "
        "feed-forward expects d_ff input features: a shape error whenever d_ff != "
        "d_model, and a block that cannot run.",
        (
            r"SwiGLU\(d_ff, ?d_model\)",
            r"(arguments?|order).{0,40}(swap|wrong|reversed)",
            r"swap\w*.{0,40}(d_ff|d_model)",
            r"(d_ff|d_model).{0,40}swap",
            r"feed_forward.{0,60}(shape|size|built|d_ff)",
        ),
        (r"\beps\b", r"residual", r"post[- ]?norm", r"norms? (are )?(swapped|shared)"),
        edits=(("SwiGLU(d_model, d_ff)", "SwiGLU(d_ff, d_model)"),),
    ),
    # ------------------------------------------------------------ GPT
    _case(
        "gpt-learned-positions-added",
        L11,
        "GPT",
        "also adds a learned absolute position embedding (GPT-2's wpe, nn.Embedding("
        "1024, d_model)) to the token embeddings although RoPE already gives the "
        "positions: an extra parameter (position.weight) and different logits.",
        (
            r"position(al)? embedding",
            r"absolute position",
            r"\bwpe\b",
            r"position\.weight",
            r"positions? (are )?(added|given) twice",
        ),
        (r"final norm", r"untied|not tied", r"sqrt\(d_model\)", r"chain"),
        code="""
class GPT(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5, block_size=1024):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.position = nn.Embedding(block_size, d_model)
        nn.init.normal_(self.position.weight, std=0.02)
        self.layers = nn.ModuleList(
            [DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]
        )
        self.norm = RMSNorm(d_model, eps)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1])
        x = self.embedding(ids) + self.position(positions)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T
""",
        source=WPE_WITH_ROPE,
    ),
    _case(
        "gpt-tied-by-copy",
        L11,
        "GPT",
        "ties the output by copying: a separate nn.Linear whose weight is "
        "nn.Parameter(embedding.weight.detach().clone()), so the two matrices start equal "
        "but are two tensors that drift apart as soon as either is trained.",
        (
            r"clone|cop(y|ied|ies)",
            r"(same|one) (tensor|parameter|matrix)",
            r"separate (tensor|matrix|parameter)",
            r"not (the same|shared)",
            r"\bshar(e|ed|ing)\b",
            r"\b(tied|tying|tie)\b",
        ),
        (r"final norm", r"position", r"std|0\.02", r"transpos"),
        code="""
class GPT(nn.Module):
    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.layers = nn.ModuleList(
            [DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]
        )
        self.norm = RMSNorm(d_model, eps)
        self.output = nn.Linear(d_model, vocab_size, bias=False)
        self.output.weight = nn.Parameter(self.embedding.weight.detach().clone())

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer(x)
        return self.output(self.norm(x))
""",
    ),
    _case(
        "gpt-returns-logits-and-loss",
        L11,
        "GPT",
        "returns (logits, None), as nanoGPT's forward returns (logits, loss), instead of "
        "the logits tensor itself.",
        (r"tuple", r"\(logits, ?(loss|None)\)", r"not a tensor", r"a (single )?tensor"),
        (r"final norm", r"\b(tied|tie|untied)\b", r"softmax|probabilit", r"last position"),
        edits=(
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.norm(x) @ self.embedding.weight.T, None",
            ),
        ),
    ),
    # ------------------------------------------------------------ sample
    _case(
        "sample-top-k-position-not-id",
        L11,
        "sample",
        "keeps only torch.topk's values, a (batch, k) table, samples from it and returns "
        "the position drawn within the top k instead of mapping it back to the "
        "vocabulary id (indices.gather(-1, choice)).",
        (
            r"position.{0,40}(within|among|in) the top",
            r"(map|gather|index)\w*.{0,40}back",
            r"vocabulary (ids?|index|indices)",
            r"indices.{0,30}topk|topk.{0,40}indices",
            r"rank",
        ),
        (r"temperature", r"strict", r"top_k ?\+ ?1|one too many", r"global"),
        code="""
def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    if top_k is not None:
        logits, _ = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1)  # (batch, k)
    if top_p is not None:
        sorted_probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        before = sorted_probs.cumsum(dim=-1) - sorted_probs
        remove_sorted = before >= top_p
        remove_sorted[..., 0] = False
        remove = remove_sorted.scatter(-1, order, remove_sorted)
        logits = logits.masked_fill(remove, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
""",
    ),
    _case(
        "sample-top-p-cumsum-batch-axis",
        L11,
        "sample",
        "accumulates the sorted probabilities down the batch axis (cumsum(dim=0)) "
        "instead of along each row, so each row's nucleus is measured with the other "
        "rows' probabilities (and a batch of one keeps every token).",
        (
            r"(cumsum|cumulative|accumulat)\w*.{0,60}(batch|rows|dim=0|axis 0|wrong axis)",
            r"batch axis",
            r"dim=0",
            r"across (the )?(rows|batch)",
            r"other rows?",
        ),
        (r"ascending", r"crossing", r"temperature", r"gather", r"1 ?- ?top_p|complement"),
        edits=(
            (
                "before = sorted_probs.cumsum(dim=-1) - sorted_probs",
                "before = sorted_probs.cumsum(dim=0) - sorted_probs",
            ),
        ),
    ),
    _case(
        "sample-top-p-inclusive-no-guard",
        L11,
        "sample",
        "two mistakes at once: removes a token once the cumulative mass up to and "
        "including it reaches top_p (the crossing token is dropped) and drops the guard "
        "that keeps the most probable token, so a row whose top token alone reaches "
        "top_p loses every token (NaN probabilities, multinomial raises).",
        (
            r"crossing",
            r"(at least|keep\w*) (one|the most probable|the top)",
            r"mass before",
            r"inclusive",
            r"every token (is )?removed|no token (is )?(left|kept)|all tokens? (are )?removed",
        ),
        (r"ascending", r"temperature", r"gather", r"1 ?- ?top_p|complement", r"batch axis"),
        edits=(
            (
                "before = sorted_probs.cumsum(dim=-1) - sorted_probs",
                "before = sorted_probs.cumsum(dim=-1)",
            ),
            ("remove_sorted[..., 0] = False", "pass"),
        ),
        source=TOP_P_MASKS_ALL,
    ),
    _case(
        "sample-greedy-keepdim",
        L11,
        "sample",
        "the greedy branch returns logits.argmax(dim=-1, keepdim=True), a (batch, 1) "
        "column instead of one token per row, shape (batch,).",
        (r"\(batch, ?1\)", r"keepdim", r"shape", r"\(batch,\)"),
        (r"argmin", r"temperature.{0,30}(divid|multipl)", r"global"),
        edits=(("return logits.argmax(dim=-1)", "return logits.argmax(dim=-1, keepdim=True)"),),
    ),
]
