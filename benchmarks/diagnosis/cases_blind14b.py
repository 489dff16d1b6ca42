"""Held-out wrong answers for lessons 11, blind round 14 (helper b14b, 2026-11-27):
mistakes new to the benchmark, written against the checks after round 15's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 24 cases over the
eleven exercises (the nine exercises and both questions); eleven transpose a mistake
reported in public (the URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import MODULE_LIST, Case, held_out_authored

L11 = "11_language_model"

# The reports these cases transpose (each read with the search tool for this benchmark).
TARGETS_FLATTENED = "https://github.com/karpathy/ng-video-lecture/pull/10"
RANDINT_SIZE_INT = "https://github.com/pytorch/pytorch/issues/5874"
BUFFER_NOT_PARAMETER = "https://github.com/BlinkDL/RWKV-LM/pull/213"
POW_ARGUMENTS_REVERSED = "https://github.com/pytorch/pytorch/issues/31623"
ROPE_BASE_DEFAULT = "https://github.com/lyogavin/airllm/pull/369"
LAYERS_IN_FORWARD = (
    "https://discuss.pytorch.org/t/can-i-instantiate-layers-in-forward-function/105054"
)
ROPE_BUFFER_PERSISTENT = "https://github.com/EleutherAI/gpt-neox/pull/1168"
LAYER_RETURNS_TUPLE = "https://github.com/AI-Hypercomputer/maxtext/pull/2777"
TOP_P_ZERO_EMPTY = "https://github.com/google-deepmind/simply/pull/42"
POSITIONAL_INTO_REPLACE = "https://github.com/numpy/numpy/issues/20864"

_c = held_out_authored("blind14b")

BLIND14B: list[Case] = [
    # ------------------------------------------------------------------ next_token_batches
    _c(
        "ntb-targets-flattened",
        L11,
        "next_token_batches",
        "flattens the targets for the loss inside the batcher, tokens[positions + 1].view(-1), "
        "as 'Let's build GPT' reshapes them to (B*T,) before F.cross_entropy: the values are "
        "the right next tokens, but the targets come back 1-D, (batch_size * block_size,), "
        "instead of (batch_size, block_size) like the inputs.",
        (
            r"targets?.{0,80}(flattened|1-?d\b|one-dimensional|view\(-1\)|reshape\(-1\)|flatten)",
            r"targets?.{0,60}shape \(\d+,\)",
            r"shape \(\d+,\).{0,60}targets?",
            r"targets?.{0,80}\(batch_size \* block_size,?\)",
        ),
        (
            r"inputs? and targets? (are |come back )?(swapped|the wrong way)",
            r"not shifted",
            r"global (random|generator|rng|stream)",
            r"(last|final) (valid )?start",
            r"transposed|time-major",
        ),
        edits=[
            (
                "return tokens[positions], tokens[positions + 1]",
                "return tokens[positions], tokens[positions + 1].view(-1)  # (B*T,) for the loss",
            )
        ],
        source=TARGETS_FLATTENED,
    ),
    _c(
        "ntb-randint-size-bare-int",
        L11,
        "next_token_batches",
        "passes torch.randint's size as a bare int, torch.randint(0, len(tokens) - block_size, "
        "batch_size, generator=generator), where PyTorch wants a tuple (batch_size,): the call "
        "raises a raw TypeError (an invalid combination of arguments) on every input, before "
        "any window is gathered.",
        (
            r"size.{0,30}(must|should|needs to|has to) be a tuple",
            r"(bare|plain) int(eger)?",
            r"size .{0,20}(as|is) an int(eger)?\b",
            r"a tuple,? \(batch_size,\)|\(batch_size,\),? (a|as a|not) (tuple|bare|plain)",
            r"not a tuple",
        ),
        (
            r"global (random|generator|rng|stream)",
            r"(last|final) (valid )?start",
            r"randperm",
            r"block_size starts|\(block_size,\) as",
        ),
        edits=[
            (
                "starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)",
                "starts = torch.randint(0, len(tokens) - block_size, batch_size, generator=generator)",
            )
        ],
        source=RANDINT_SIZE_INT,
    ),
    # ------------------------------------------------------------------ RMSNorm
    _c(
        "rms-dim-two-hard-coded",
        L11,
        "RMSNorm",
        "takes the mean square over dim=2, the feature axis of a (batch, len, d_model) input, "
        "instead of the last axis (dim=-1): right for 3-D inputs, but a raw IndexError for a "
        "2-D (len, d_model) input and the wrong axis (the positions) for a 4-D one.",
        (
            r"dim=2\b",
            r"\baxis 2\b|\bdim(ension)? 2\b",
            r"(fixed|hard-?coded) (axis|dim)|(axis|dim)\w* .{0,20}hard-?coded",
            r"third axis",
            r"(last|feature) axis.{0,60}(whatever|any number of|however many).{0,20}(axes|dimensions)",
        ),
        (
            r"(subtract|centr)\w*.{0,30}mean",
            r"eps.{0,30}(outside|after) the (square )?root",
            r"whole tensor",
            r"sum\w* (of )?the squares.{0,30}(instead|not)",
            r"without keepdim|keepdim=True.{0,30}(missing|forgot)",
        ),
        edits=[
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.pow(2).mean(dim=2, keepdim=True)",
            )
        ],
    ),
    _c(
        "rms-gain-registered-as-buffer",
        L11,
        "RMSNorm",
        "registers the gain as a buffer, self.register_buffer('weight', torch.ones(d_model)), "
        "instead of an nn.Parameter: the output and the state dict's weight key are right, "
        "but the gain is not among the module's parameters, gets no gradient and is never "
        "trained.",
        (
            r"buffer",
            r"not an? (nn\.)?Parameter",
            r"(nn\.)?Parameter\b.{0,40}(instead|rather than|not a)",
            r"(weight|gain).{0,60}not .{0,20}parameters\(\)",
            r"parameters\(\).{0,60}(is empty|no |lacks|does not (include|contain|list))",
        ),
        (
            r"not in the state.?dict",
            r"(missing|no) .?weight.? (key|in the state)",
            r"gamma",
            r"(extra|unexpected) (key|bias)",
        ),
        edits=[
            (
                "self.weight = nn.Parameter(torch.ones(d_model))",
                'self.register_buffer("weight", torch.ones(d_model))',
            )
        ],
        source=BUFFER_NOT_PARAMETER,
    ),
    # ------------------------------------------------------------------ rotary_embedding
    _c(
        "rope-pow-arguments-swapped",
        L11,
        "rotary_embedding",
        "swaps torch.pow's two arguments, theta = 1.0 / torch.pow(exponents, base) with "
        "exponents = arange(0, d_head, 2) / d_head, which raises each exponent to the power "
        "base instead of base to each exponent: theta_0 = 1 / 0 is infinite and the others "
        "enormous, so the angles are inf or NaN (0 * inf at position 0).",
        (
            r"pow.{0,60}(arguments?|order|swapped|reversed|other way)",
            r"exponents?.{0,30}(\*\*|to the power( of)?) (the )?base",
            r"base.{0,40}(and|with).{0,20}exponents?.{0,30}(swapped|exchanged|reversed)",
        ),
        (
            r"positions? (start|counted|numbered|from) (at )?1",
            r"factor (of )?2|without the 2",
            r"integer division",
            r"cos and sin (are )?swapped",
            r"\+2i|base \*\* \(\+",
            r"float64",
        ),
        edits=[
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)  # (d_head/2,)",
                "exponents = torch.arange(0, d_head, 2, dtype=torch.float64) / d_head\n"
                "    theta = 1.0 / torch.pow(exponents, base)  # (d_head/2,)",
            )
        ],
        source=POW_ARGUMENTS_REVERSED,
    ),
    _c(
        "rope-tables-leading-axis",
        L11,
        "rotary_embedding",
        "returns the tables with a leading broadcast axis, cos[None] and sin[None] of shape "
        "(1, length, d_head // 2), ready to multiply (batch, len, d_head // 2) halves, instead "
        "of (length, d_head // 2): the values are right, but each table has an extra axis (so "
        "one head's (len, d_head) queries come back from apply_rotary with a batch axis).",
        (
            r"(extra|leading|additional|spare) (broadcast )?(axis|dimension)",
            r"\(1, \d+, \d+\)",
            r"\[None\]|unsqueeze",
            r"three axes|3-?d\b|3 dimensions",
        ),
        (
            r"transposed",
            r"duplicated|repeated|concatenat",
            r"stack(ed)?",
            r"complex",
            r"float64",
        ),
        edits=[
            (
                "return angles.cos().float(), angles.sin().float()",
                "return angles.cos().float()[None], angles.sin().float()[None]  # (1, length, d_head/2)",
            )
        ],
    ),
    _c(
        "rope-default-base-llama3",
        L11,
        "rotary_embedding",
        "gives base the default 500000.0 (Llama 3's RoPE base) in the signature instead of the "
        "contract's 10000.0: a call with an explicit base is right, but rotary_embedding(length, "
        "d_head) without one turns every pair after the first too slowly.",
        (
            r"default.{0,60}(base|500,?000|5e\+?0?5)",
            r"(base|500,?000).{0,60}default",
            r"500,?000|5e\+?0?5|5\.0e\+?0?5",
        ),
        (
            r"ignor\w* (the )?base",
            r"always (uses? )?(base )?10,?000",
            r"positions? (start|from|counted from) 1",
            r"integer division",
            r"factor (of )?2",
        ),
        edits=[
            (
                "length: int, d_head: int, base: float = 10000.0",
                "length: int, d_head: int, base: float = 500000.0",
            )
        ],
        source=ROPE_BASE_DEFAULT,
    ),
    # ------------------------------------------------------------------ apply_rotary
    _c(
        "rot-cos-repeated-on-positions",
        L11,
        "apply_rotary",
        "writes rotate-half as Hugging Face does, x * cos + rotate_half(x) * sin with the "
        "tables doubled to d_head features, but doubles them with cos.repeat(2, 1) (twice the "
        "positions) instead of cos.repeat(1, 2) (twice the features): the (2 * len, "
        "d_head // 2) tables do not broadcast against x, a raw shape error on every input.",
        (
            r"repeat\(2, ?1\)",
            r"repeat\(1, ?2\)",
            r"repeat\w*.{0,60}(wrong|first|positions?|length|rows?) (axis|dim)",
            r"(doubled|repeated|tiled) .{0,40}(positions|length|rows|first axis).{0,40}(instead|not)",
            r"\(2 ?\* ?len",
        ),
        (
            r"(sign|minus).{0,30}(wrong|swapped|other half)",
            r"rotates? (the )?(wrong way|backwards)",
            r"halves (are )?(swapped|in the wrong order)",
            r"upcast|casts?.{0,30}dtype",
            r"in place",
        ),
        code="""
def apply_rotary(x, cos, sin):
    half = x.shape[-1] // 2
    cos = cos.to(x.dtype).repeat(2, 1)  # doubled to d_head features, as HF stores them
    sin = sin.to(x.dtype).repeat(2, 1)
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)  # rotate_half(x)
    return x * cos + rotated * sin
""",
    ),
    _c(
        "rot-half-from-table-length",
        L11,
        "apply_rotary",
        "reads half from the tables' first axis, half = cos.shape[0], which is the number of "
        "positions, instead of d_head // 2 (x.shape[-1] // 2, or cos.shape[-1]): right only "
        "when len == d_head // 2; otherwise x is cut at the wrong feature and the products "
        "raise a raw shape error.",
        (
            r"cos\.shape\[0\]",
            r"shape\[0\]",
            r"(number of )?positions.{0,40}(as|instead of|for) .{0,20}(half|d_head ?// ?2|features)",
            r"half.{0,60}(the length|len\b|positions|first axis)",
            r"(split|cut) .{0,40}(at|after) (len|the length|the number of positions)",
        ),
        (
            r"axis 1\b|shape\[1\]",
            r"four axes|4 axes",
            r"true division",
            r"chunk.{0,30}without dim",
            r"adjacent pairs",
            r"halves (are )?swapped",
        ),
        edits=[("half = x.shape[-1] // 2", "half = cos.shape[0]  # the tables' size")],
    ),
    # ------------------------------------------------------------------ quiz_rope_values
    _c(
        "quiz-rope-values-rotated",
        L11,
        "quiz_rope_values",
        "answers (b), that queries, keys and values are all rotated so that the output "
        "carries the position too: RoPE rotates only the queries and keys (c); the values "
        "carry content, and the position reaches the output through the scores alone.",
        (
            r"values? (are|is) not rotated",
            r"not the values",
            r"(only|just) (the )?quer(y|ies) and (the )?keys",
            r"values?.{0,40}(carry|hold|keep) (only )?(the )?content",
            r"rotat\w* the values.{0,60}(would|wrong|not|breaks?)",
        ),
        (
            r"after the softmax",
            r"token embeddings|before the first layer",
            r"brackets|full stop|upper.?case",
        ),
        code="""
def quiz_rope_values():
    return "b"
""",
    ),
    # ------------------------------------------------------------------ quiz_temperature
    _c(
        "quiz-temperature-sharpens",
        L11,
        "quiz_temperature",
        "answers (a), that dividing the probabilities by the temperature sharpens them as "
        "intended: dividing every probability by the same T changes no ratio and "
        "torch.multinomial renormalises, so every temperature samples from softmax(logits) "
        "(b).",
        (
            r"renormali[sz]",
            r"(same|common|constant) factor",
            r"(ratios?|proportions?).{0,30}(unchanged|the same|do not change|does not change)",
            r"(no|has no|without any) effect",
            r"divid\w* the logits,? not the probabilit",
        ),
        (
            r"it flattens",
            r"sum to 2|raises? an error",
            r"brackets|full stop|upper.?case",
        ),
        code="""
def quiz_temperature():
    return "a"
""",
    ),
    # ------------------------------------------------------------------ SwiGLU
    _c(
        "swiglu-gate-and-value-one-layer",
        L11,
        "SwiGLU",
        "builds the gate and the value as one layer, self.w1 = self.w3 = nn.Linear(d_model, "
        "d_ff, bias=False): the state dict has both keys, but they hold the same tensor, so "
        "the block computes silu(h) * h with h = w1(x), and the gate and the value can never "
        "differ.",
        (
            r"same (tensor|layer|module|object|weights?|parameter|nn\.Linear)",
            r"shar(e|es|ed|ing) .{0,30}(weight|layer|tensor|parameter|module)",
            r"one (layer|nn\.Linear|module)",
            r"w1 (is|and) (self\.)?w3 (are )?(the same|one|identical|alias)",
            r"self\.w1 = self\.w3|w1 = w3",
            r"\b(tied|aliased)\b",
        ),
        (
            r"value .{0,30}from w1",
            r"w3 (is )?never (used|called)",
            r"gate (and|&) (the )?value.{0,30}swapped",
            r"silu.{0,30}(on|to) (the )?(product|value)",
            r"\.bias|with (a |their )?bias",
        ),
        edits=[
            (
                "self.w1 = nn.Linear(d_model, d_ff, bias=False)\n"
                "        self.w3 = nn.Linear(d_model, d_ff, bias=False)",
                "self.w1 = self.w3 = nn.Linear(d_model, d_ff, bias=False)",
            )
        ],
    ),
    _c(
        "swiglu-layers-built-in-forward",
        L11,
        "SwiGLU",
        "builds w1, w3 and w2 inside forward (self.w1 = nn.Linear(...) on every call) instead "
        "of __init__, which only stores the sizes: a fresh SwiGLU has no parameters and an "
        "empty state dict, and every call replaces the layers with new random ones, so the "
        "output changes from call to call and nothing can be trained or loaded.",
        (
            r"(inside|in) (the )?forward",
            r"(no|zero|empty|has no) (parameters|state.?dict|weights)",
            r"state.?dict.{0,30}(is )?empty",
            r"in __init__|to __init__|from __init__",
            r"(new|fresh|re-?created|rebuilt) (random )?(layers|weights|linear).{0,40}(every|each) call",
            r"(every|each) call.{0,60}(new|fresh|different) (random )?(layers|weights)",
        ),
        (
            r"drop(s|out) .{0,30}(train|random)",
            r"(gate|value).{0,20}swapped",
            r"\.bias|with (a |their )?bias",
        ),
        code="""
class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.d_model, self.d_ff = d_model, d_ff

    def forward(self, x):
        self.w1 = nn.Linear(self.d_model, self.d_ff, bias=False)
        self.w3 = nn.Linear(self.d_model, self.d_ff, bias=False)
        self.w2 = nn.Linear(self.d_ff, self.d_model, bias=False)
        return self.w2(F.silu(self.w1(x)) * self.w3(x))
""",
        source=LAYERS_IN_FORWARD,
    ),
    _c(
        "swiglu-no-output-projection",
        L11,
        "SwiGLU",
        "returns the gated hidden layer, silu(w1(x)) * w3(x), without the output projection "
        "w2: the output has d_ff features instead of d_model (w2 is built but never used).",
        (
            r"w2.{0,40}(never|not (used|applied|called)|missing|unused|left out|forgot|skipp)",
            r"without (the )?(output projection|w2)",
            r"(no|missing) (output projection|w2)",
            r"d_ff.{0,40}(instead of|not).{0,20}d_model",
            r"d_ff (features|wide)",
        ),
        (
            r"w2.{0,30}(wrong shape|nn\.Linear\(d_model, ?d_ff\))",
            r"w2 (applied )?(to|on) the gate",
            r"value branch",
            r"gate (and|&) (the )?value.{0,20}swapped",
            r"two.?thirds|2 ?\* ?d_ff ?/ ?3",
        ),
        edits=[
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., d_ff) inside",
                "return F.silu(self.w1(x)) * self.w3(x)  # (..., d_ff)",
            )
        ],
    ),
    # ------------------------------------------------------------------ CausalSelfAttention
    _c(
        "csa-rotary-tables-swapped-in-call",
        L11,
        "CausalSelfAttention",
        "passes the tables to apply_rotary in the wrong order, apply_rotary(q, sin, cos) and "
        "apply_rotary(k, sin, cos): every pair is turned by pi/2 - angle instead of the angle, "
        "so the scores depend on the offset with its sign reversed and position 0 is turned by "
        "a quarter turn.",
        (
            r"\((q|k|queries|keys), sin, cos\)|sin, cos\)",
            r"(cos and sin|sin and cos|the tables).{0,40}(swapped|wrong order|exchanged|other way)",
            r"order of (the )?(tables|cos and sin|arguments to apply_rotary)",
        ),
        (
            r"keys? (are )?not rotated",
            r"values? (are )?rotated|rotat\w* (the )?values",
            r"ignor\w* .{0,20}base|without self\.base",
            r"(no|without) (the )?(causal |look-ahead )?mask",
            r"sqrt\(d_model\)",
            r"rotat\w* (the )?(wrong way|backwards)",
        ),
        edits=[
            (
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)\n"
                "        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
                "q, k = apply_rotary(q, sin, cos), apply_rotary(k, sin, cos)\n"
                "        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
            )
        ],
    ),
    _c(
        "csa-rope-tables-persistent-buffers",
        L11,
        "CausalSelfAttention",
        "precomputes the RoPE tables for 4096 positions in __init__ and stores them with "
        "register_buffer's default persistent=True (slicing them to the input's length in "
        "forward): the outputs are right, but the state dict gains cos and sin entries (two "
        "extra keys per attention) that a checkpoint with the contract's keys lacks.",
        (
            r"persistent",
            r"buffer",
            r"(extra|unexpected) (state.?dict )?keys?.{0,60}\b(cos|sin)\b",
            r"\bcos\b.{0,20}\bsin\b.{0,40}(state.?dict|keys?)",
            r"state.?dict.{0,60}\b(cos|sin)\b",
        ),
        (
            r"not sliced|slic\w* .{0,30}(length|len\b)",
            r"longer (sequence|input)",
            r"w_[qkvo]\.bias|with (a |their )?bias",
            r"(first|earlier) call",
        ),
        edits=[
            (
                "self.w_o = nn.Linear(d_model, d_model, bias=False)",
                "self.w_o = nn.Linear(d_model, d_model, bias=False)\n"
                "        cos, sin = rotary_embedding(4096, self.d_head, base)  # every length needed\n"
                '        self.register_buffer("cos", cos)\n'
                '        self.register_buffer("sin", sin)',
            ),
            (
                "cos, sin = rotary_embedding(length, self.d_head, self.base)  # (len, d_head/2)",
                "cos, sin = self.cos[:length], self.sin[:length]  # (len, d_head/2)",
            ),
        ],
        source=ROPE_BUFFER_PERSISTENT,
    ),
    # ------------------------------------------------------------------ DecoderBlock
    _c(
        "block-returns-one-tuple",
        L11,
        "DecoderBlock",
        "returns a one-element tuple, (h + feed_forward(norm2(h)),), as Hugging Face's "
        "decoder layers return (hidden_states, ...), instead of the tensor itself: the values "
        "are right, but a caller that chains blocks (the GPT's loop) hands a tuple to the "
        "next block.",
        (
            r"tuple",
            r"one-element|1-element|\(out,\)",
        ),
        (
            r"returns? h\b|feed-?forward.{0,40}never reaches",
            r"residual.{0,40}(twice|missing|dropped)",
            r"(self_attn|ffn)\b.{0,40}names?",
        ),
        edits=[
            (
                "return h + self.feed_forward(self.norm2(h))",
                "return (h + self.feed_forward(self.norm2(h)),)  # (hidden_states,), as HF layers",
            )
        ],
        source=LAYER_RETURNS_TUPLE,
    ),
    _c(
        "block-rmsnorm-arguments-swapped",
        L11,
        "DecoderBlock",
        "passes RMSNorm's arguments the wrong way round, RMSNorm(eps, d_model), for both "
        "norms: the gain is created with torch.ones(eps), which raises a raw TypeError (size "
        "must be a tuple of ints, not float) while the block is being built.",
        (
            r"RMSNorm\(eps, ?d_model\)",
            r"RMSNorm.{0,80}(arguments?|order).{0,40}(swapped|wrong|reversed|other way)",
            r"(eps|1e-0?5).{0,40}(as|for|in place of) (the )?(size|d_model)",
            r"d_model.{0,30}as (the )?eps",
        ),
        (
            r"LayerNorm",
            r"eps.{0,30}not passed|without (the )?(block'?s )?eps",
            r"eps.{0,30}(as|for) (the )?(rope |rotary )?base",
            r"SwiGLU\(d_ff",
        ),
        edits=[
            ("self.norm1 = RMSNorm(d_model, eps)", "self.norm1 = RMSNorm(eps, d_model)"),
            ("self.norm2 = RMSNorm(d_model, eps)", "self.norm2 = RMSNorm(eps, d_model)"),
        ],
    ),
    # ------------------------------------------------------------------ GPT
    _c(
        "gpt-module-list-called",
        L11,
        "GPT",
        "calls the nn.ModuleList itself, x = self.layers(x), as if it were an nn.Sequential: a "
        "ModuleList has no forward, so every call raises a raw NotImplementedError (Module "
        '[ModuleList] is missing the required "forward" function) instead of running the '
        "blocks in turn.",
        (
            r"ModuleList.{0,80}(no forward|not callable|cannot be called|has no|"
            r"missing the required|is not a Sequential|Sequential)",
            r"(loop|iterate) over (the )?(self\.)?(layers|blocks)|for layer in",
            r"self\.layers\(x\)",
            r"nn\.Sequential",
        ),
        (
            r"plain (python )?list",
            r"(one|same) block.{0,30}(repeated|shared)",
            r"not chained",
            r"(skips|without|no|missing) (the )?final (rms)?norm",
        ),
        edits=[
            (
                "for layer in self.layers:\n            x = layer(x)\n        return self.norm(x)",
                "x = self.layers(x)  # run all the blocks\n        return self.norm(x)",
            )
        ],
        source=MODULE_LIST,
    ),
    _c(
        "gpt-f-linear-transposed-twice",
        L11,
        "GPT",
        "ties the output with F.linear(norm(x), embedding.weight.T), transposing the weight "
        "although F.linear already multiplies by its weight's transpose: it needs the "
        "(vocab_size, d_model) embedding matrix as it is and gets (d_model, vocab_size), a "
        "raw shape error unless vocab_size == d_model (and wrong logits then).",
        (
            r"F\.linear.{0,80}(already|itself|transposes|\.T\b|transpose)",
            r"(twice|double|two) transpos",
            r"transpos\w* twice",
            r"\.T\b.{0,40}(not needed|extra|too many|unnecessary)",
            r"without (the )?\.T\b",
        ),
        (
            r"untied|separate output",
            r"embedding.{0,30}arguments? (swapped|the wrong way)",
            r"nn\.Embedding\(d_model, ?vocab_size\)",
            r"(skips|without|no|missing) (the )?final (rms)?norm",
            r"(flattened|transposed) (for|logits).{0,30}cross",
        ),
        edits=[
            (
                "return self.norm(x) @ self.embedding.weight.T  # (batch, len, vocab)",
                "return F.linear(self.norm(x), self.embedding.weight.T)  # (batch, len, vocab)",
            )
        ],
    ),
    _c(
        "gpt-embedding-initialised-in-forward",
        L11,
        "GPT",
        "initialises the embedding in forward, nn.init.normal_(self.embedding.weight, "
        "std=0.02) at the start of every call, instead of once in __init__: each call redraws "
        "the embedding, so two calls on the same ids give different logits, and weights that "
        "were trained or loaded are overwritten by the next forward.",
        (
            r"(in|inside) (the )?forward.{0,60}(init|normal_|redraw|re-?initiali)",
            r"(init|normal_|re-?initiali)\w*.{0,60}(every|each) (call|forward)",
            r"(every|each) (call|forward).{0,60}(redraw|re-?initiali|overwrit|new random)",
            r"(loaded|trained) (weights|embedding).{0,60}overwrit",
            r"overwrit\w* .{0,40}(loaded|trained)",
        ),
        (
            r"drop(s|out) .{0,30}(train|random)",
            r"default (n\(0, ?1\)|initiali)",
            r"mean (of )?0\.02",
            r"(every|all) parameters?.{0,40}re-?initiali",
        ),
        edits=[
            (
                "nn.init.normal_(self.embedding.weight, std=0.02)\n        self.layers = nn.ModuleList(",
                "self.layers = nn.ModuleList(",
            ),
            (
                "x = self.embedding(ids)  # (batch, len, d_model)",
                "nn.init.normal_(self.embedding.weight, std=0.02)  # the contract's init\n"
                "        x = self.embedding(ids)  # (batch, len, d_model)",
            ),
        ],
    ),
    # ------------------------------------------------------------------ sample
    _c(
        "sample-top-p-without-guard",
        L11,
        "sample",
        "leaves out the guard that keeps the most probable token (remove_sorted[..., 0] = "
        "False): with top_p = 0.0 the first sorted token's mass before it (0) already reaches "
        "top_p, so every token is removed, the probabilities are NaN and torch.multinomial "
        "raises, instead of returning the most probable token.",
        (
            r"(at least one|most probable|first sorted|top|first) token.{0,60}"
            r"(kept|keep|guard|removed|dropped|never|masked)",
            r"guard",
            r"(every|all) tokens?.{0,40}(removed|masked|dropped|filtered out)",
            r"(empty|no token).{0,30}(nucleus|left|kept|remains)",
            r"remove_sorted\[\.\.\., ?0\]",
        ),
        (
            r"if top_p:|falsy|truth",
            r"crossing token.{0,30}(dropped|removed)|(drops?|removes?) the crossing token",
            r"gather",
            r"ascending",
            r"guard.{0,30}(first|whole) row|row 0",
        ),
        edits=[
            (
                "        remove_sorted[..., 0] = False  # always keep the most probable token\n",
                "",
            )
        ],
        source=TOP_P_ZERO_EMPTY,
    ),
    _c(
        "sample-returns-item",
        L11,
        "sample",
        "returns the drawn token with .item(), as a generation loop for one sequence does: a "
        "Python int instead of an int64 (batch,) tensor for a batch of one, and a raw "
        "RuntimeError (a Tensor with N elements cannot be converted to Scalar) for a batch of "
        "several rows.",
        (
            r"\.item\(\)",
            r"python (int|integer|number|scalar)",
            r"(returned|returns|got) (an? )?(plain )?int\b(?!64)",
        ),
        (
            r"squeeze",
            r"\(batch, ?1\)|column",
            r"int32",
            r"keepdim",
        ),
        edits=[
            (
                "return torch.multinomial(probs, 1, generator=generator)[:, 0]",
                "return torch.multinomial(probs, 1, generator=generator).item()",
            )
        ],
    ),
    _c(
        "sample-generator-positional",
        L11,
        "sample",
        "passes the generator to torch.multinomial positionally, torch.multinomial(probs, 1, "
        "generator), where the third positional parameter is replacement: a raw TypeError "
        "(argument 'replacement' must be bool, not Generator or NoneType) on every sampled "
        "call (temperature 0 still works).",
        (
            r"keyword",
            r"replacement",
            r"positional(ly)?",
            r"third (positional )?argument",
        ),
        (
            r"global (random|generator|rng|stream)",
            r"fresh generator|seeded (with )?0",
            r"multinomial on (the )?logits|without (the )?softmax",
        ),
        edits=[
            (
                "return torch.multinomial(probs, 1, generator=generator)[:, 0]",
                "return torch.multinomial(probs, 1, generator)[:, 0]",
            )
        ],
        source=POSITIONAL_INTO_REPLACE,
    ),
]
