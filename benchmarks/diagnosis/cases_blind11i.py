"""Held-out wrong answers for lesson 11, blind round 11, second batch (helper s11i,
2026-11-27), written after round 11's first fixes of these lessons.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Twelve of the 24 transpose a mistake reported in a public issue thread (the URL read
for this benchmark) to the course's exercise; the others are the author's. Kinds favoured:
mistakes that show only on some inputs (tiny activations, a non-default base, a batch of
more than one row, temperature 0), standard idioms misused (list multiplication of a
module, ``view`` for ``transpose``, integer division, ``gather`` for ``scatter``, a
parameter copied instead of shared), in-place writes to the input, and raw exceptions.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11 = "11_language_model"

# The reports these cases transpose (each read with the search tool for this benchmark).
RANDINT_HIGH = "https://github.com/karpathy/ng-video-lecture/issues/56"
RMS_EPS_PLACE = "https://github.com/EleutherAI/gpt-neox/pull/1342"
ROPE_FACTOR_TWO = "https://github.com/hkproj/pytorch-llama/issues/3"
ROPE_PAIRING_MIX = "https://github.com/raiyanyahya/how-to-train-your-gpt/issues/6"
SWIGLU_SILU_OUTSIDE = "https://github.com/Nijikadesu/breakdown-minimind/issues/3"
ROPE_ON_VALUES = "https://github.com/lucidrains/x-transformers/issues/182"
RESIDUAL_FROM_NORM = "https://github.com/Howuhh/faster-trajectory-transformer/issues/3"
MODULE_LIST_REPEATED = "https://github.com/zalandoresearch/pytorch-vq-vae/issues/2"
HEAD_NOT_TIED = "https://github.com/mosaicml/examples/pull/11"
TOP_P_CROSSING = "https://github.com/rasbt/reasoning-from-scratch/issues/164"
TOP_P_GUARD_ROW = "https://github.com/fishaudio/fish-speech/pull/1326"
TOP_P_GATHER = "https://github.com/lucidrains/routing-transformer/issues/1"


_c = held_out_authored("blind11i")

_SAMPLE_OTHER_CAUSES = (
    r"temperature.{0,40}(after|on the probabilities)",
    r"top-?k.{0,40}(after|before) top-?p",
    r"ascending",
)

BLIND11I: list[Case] = [
    # ------------------------------------------------------------------ next_token_batches
    _c(
        "nb-randint-high-minus-one",
        L11,
        "next_token_batches",
        "draws the starts with torch.randint(0, len(tokens) - block_size - 1, ...), the "
        "'fix' a public issue proposes: the last valid start, len(tokens) - block_size - 1, "
        "is never drawn, and with the same generator every start differs from the "
        "contract's draw.",
        (
            r"len\(tokens\) - block_size - 1.{0,80}(never|excluded|not drawn|exclusive)",
            r"(last|largest) (valid )?start.{0,60}(never|not|excluded|missing)",
            r"\bhigh\b.{0,60}(len\(tokens\) - block_size\b|one too (low|small))",
            r"one (start )?too (low|small|few)",
            r"randint\(0, len\(tokens\) - block_size,",
        ),
        (
            r"global (random )?(stream|generator|rng)",
            r"targets?.{0,40}(not shifted|same as (the )?inputs)",
            r"\+ 1 to the (ids|tokens|values)",
        ),
        edits=[
            (
                "torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)",
                "torch.randint(0, len(tokens) - block_size - 1, (batch_size,), "
                "generator=generator)",
            )
        ],
        source=RANDINT_HIGH,
    ),
    _c(
        "nb-global-random-stream",
        L11,
        "next_token_batches",
        "calls torch.randint without generator=generator, so the starts come from the "
        "global random stream: the batches ignore the generator given and change with "
        "whatever else drew random numbers.",
        (
            r"generator=generator",
            r"global (random )?(stream|generator|rng|seed)",
            r"(ignor\w*|not us\w*|without).{0,40}generator",
            r"generator.{0,40}(ignored|not used|unused|never used)",
        ),
        (
            r"(last|largest) (valid )?start",
            r"off[- ]by[- ]one",
            r"targets?.{0,40}(not shifted|shift)",
        ),
        edits=[
            (
                "(batch_size,), generator=generator)",
                "(batch_size,))",
            )
        ],
    ),
    _c(
        "nb-targets-ids-plus-one",
        L11,
        "next_token_batches",
        "writes the targets as tokens[positions] + 1, adding one to each token id, instead "
        "of tokens[positions + 1], the token one place to the right.",
        (
            r"tokens\[positions \+ 1\]",
            r"(add\w*|plus) (one|1) to (the |each )?(token )?(ids?|values)",
            r"(ids?|values?) (\+ ?1|plus one)",
            r"(position|index).{0,40}\+ ?1.{0,40}not.{0,30}(id|value)",
            r"shift\w* (the )?(positions?|index|indices).{0,40}not (the )?(ids|values)",
        ),
        (
            r"generator",
            r"(last|largest) (valid )?start",
            r"off[- ]by[- ]one.{0,40}start",
        ),
        edits=[
            (
                "return tokens[positions], tokens[positions + 1]",
                "return tokens[positions], tokens[positions] + 1",
            )
        ],
    ),
    # ------------------------------------------------------------------ RMSNorm
    _c(
        "rms-eps-outside-sqrt",
        L11,
        "RMSNorm",
        "adds eps to the root mean square instead of under the square root, "
        "x / (sqrt(mean(x**2)) + eps): the same for activations of ordinary size, off for "
        "tiny ones or a large eps.",
        (
            r"eps.{0,60}(inside|under|within) (the )?(square root|sqrt|rsqrt)",
            r"eps.{0,60}(outside|after) (the )?(square root|sqrt)",
            r"(sqrt|square root).{0,40}(before|then).{0,30}(add\w* )?eps",
            r"sqrt\(mean.{0,30}\+ ?eps\)|mean_square \+ self\.eps",
        ),
        (
            r"subtract\w*.{0,30}mean|LayerNorm",
            r"(last|wrong) (axis|dim)",
            r"\bbias\b",
            r"weight.{0,30}(missing|not applied)",
        ),
        edits=[
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return x / (torch.sqrt(mean_square) + self.eps) * self.weight",
            )
        ],
        source=RMS_EPS_PLACE,
    ),
    _c(
        "rms-sum-not-mean",
        L11,
        "RMSNorm",
        "sums the squares over the features instead of averaging them (the L2 norm, not "
        "the root mean square), so every output is sqrt(d_model) times too small.",
        (
            r"sum.{0,40}(instead of|rather than|not).{0,20}mean",
            r"mean.{0,40}(instead of|rather than|not).{0,20}sum",
            r"sqrt\(d_model\)|√ ?d_model|square root of d_model",
            r"L2 norm|\.norm\(",
            r"(divid\w*|average\w*) by d_model",
        ),
        (
            r"eps.{0,40}(inside|outside|sqrt)",
            r"subtract\w*.{0,30}mean|LayerNorm",
            r"keepdim",
        ),
        edits=[
            (
                "mean_square = x.pow(2).mean(dim=-1, keepdim=True)",
                "mean_square = x.pow(2).sum(dim=-1, keepdim=True)",
            )
        ],
    ),
    # ------------------------------------------------------------------ rotary_embedding
    _c(
        "rope-exponent-without-two",
        L11,
        "rotary_embedding",
        "computes theta_i = base ** (-i / d_head) with torch.arange(0, d_head // 2), "
        "leaving out the factor 2 of the exponent -2i / d_head: every pair after the first "
        "turns too fast (the slowest pair at base ** -1/2 instead of about base ** -1).",
        (
            r"2 ?i ?/ ?d_head|-2i",
            r"factor (of )?(2|two)",
            r"arange\(0, d_head, 2\)",
            r"exponent.{0,60}(half|twice|2|two)",
            r"i ?/ ?d_head.{0,30}instead",
        ),
        (
            r"positions? (start|begin)",
            r"(sin|cos).{0,30}(swapped|order)",
            r"float32|float64|dtype",
            r"\bbase\b.{0,30}(ignored|default)",
        ),
        edits=[
            (
                "-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head",
                "-torch.arange(0, d_head // 2, dtype=torch.float64) / d_head",
            )
        ],
        source=ROPE_FACTOR_TWO,
    ),
    _c(
        "rope-positions-from-one",
        L11,
        "rotary_embedding",
        "numbers the positions 1 .. length with torch.arange(1, length + 1) instead of "
        "0 .. length - 1, so the first token is rotated by theta_i and every row of the "
        "tables is one position late.",
        (
            r"positions? (start|begin)s? at (0|zero)",
            r"(start|begin)s? at 1|from 1\b|arange\(1,",
            r"first (token|position|row).{0,60}(not (be )?rotated|angle (of )?0|zero angle|"
            r"cos 1|identity)",
            r"one position (late|off|shifted)",
            r"off[- ]by[- ]one",
        ),
        (
            r"factor (of )?(2|two)|2 ?i ?/ ?d_head",
            r"(sin|cos).{0,30}(swapped|order)",
            r"float32|float64|dtype",
        ),
        edits=[
            (
                "torch.arange(length, dtype=torch.float64)[:, None]",
                "torch.arange(1, length + 1, dtype=torch.float64)[:, None]",
            )
        ],
    ),
    _c(
        "rope-integer-division-exponent",
        L11,
        "rotary_embedding",
        "computes the exponents with integer division, torch.arange(0, d_head, 2) // "
        "d_head, which is 0 for every pair: theta_i = 1 for all i, so every pair turns by "
        "one radian per position.",
        (
            r"integer (division|tensor)|floor division|//",
            r"(every|all) (pairs?|thetas?|frequenc\w*).{0,60}(same|equal|1\b|one)",
            r"theta.{0,40}(all )?(1|one)\b",
            r"(int64|integer|long).{0,40}(exponent|arange)",
        ),
        (
            r"positions? (start|begin)",
            r"(sin|cos).{0,30}(swapped|order)",
            r"factor (of )?(2|two)",
        ),
        edits=[
            (
                "theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)",
                "theta = base ** -(torch.arange(0, d_head, 2) // d_head)",
            )
        ],
    ),
    # ------------------------------------------------------------------ apply_rotary
    _c(
        "rot-adjacent-pairs-concatenated",
        L11,
        "apply_rotary",
        "takes the adjacent pairs, a = x[..., 0::2] and b = x[..., 1::2], but puts the "
        "rotated halves back with torch.cat as rotate-half does instead of interleaving "
        "them: the two pairing conventions are mixed, and the features come back permuted.",
        (
            r"interleav\w*",
            r"stack.{0,40}flatten",
            r"(adjacent|neighbou?r\w*).{0,80}(cat|concatenat\w*|halves|put back|order)",
            r"mix\w*.{0,30}(two )?(conventions|pairings)",
            r"permut\w*",
        ),
        (
            r"\bsign\b|opposite direction|negative angle",
            r"(sin|cos).{0,30}swapped",
            r"dtype",
            r"in[- ]place",
        ),
        edits=[
            (
                "a, b = x[..., :half], x[..., half:]",
                "a, b = x[..., 0::2], x[..., 1::2]",
            )
        ],
        source=ROPE_PAIRING_MIX,
    ),
    _c(
        "rot-rotates-backwards",
        L11,
        "apply_rotary",
        "rotates each pair by minus its angle, (a cos + b sin, b cos - a sin), the "
        "transposed rotation matrix: scores still depend on the offset only, but every "
        "vector turns the wrong way.",
        (
            r"\bsigns?\b",
            r"(negative|minus|opposite|reverse\w*|wrong) (angle|direction|way)|clockwise",
            r"-m ?θ|-m ?theta|by -",
            r"transpos\w* (rotation|matrix)|inverse rotation",
            r"a \* cos - b \* sin",
        ),
        (
            r"interleav\w*|adjacent|rotate[- ]half",
            r"(sin|cos).{0,30}swapped",
            r"dtype",
            r"in[- ]place",
        ),
        edits=[
            (
                "torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "torch.cat([a * cos + b * sin, b * cos - a * sin], dim=-1)",
            )
        ],
    ),
    _c(
        "rot-writes-into-x",
        L11,
        "apply_rotary",
        "writes the rotated halves into x's own slices and returns x: the values are "
        "right, but the caller's queries and keys are overwritten (and a leaf that "
        "requires grad raises).",
        (
            r"in[- ]place",
            r"(modif\w*|overwr\w*|chang\w*|mutat\w*) (the )?(input|x\b|caller)",
            r"x (is|was) (modified|changed|overwritten)",
            r"\bclone\b|new tensor",
        ),
        (
            r"\bsign\b|opposite direction",
            r"interleav\w*|adjacent",
            r"dtype",
        ),
        edits=[
            (
                "return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)",
                "x[..., :half], x[..., half:] = a * cos - b * sin, a * sin + b * cos\n    return x",
            )
        ],
    ),
    # ------------------------------------------------------------------ SwiGLU
    _c(
        "swiglu-silu-over-product",
        L11,
        "SwiGLU",
        "applies the SiLU to the product, w2(silu(w1(x) * w3(x))), instead of to the gate "
        "alone, w2(silu(w1(x)) * w3(x)): the bracket closes in the wrong place.",
        (
            r"silu.{0,60}(product|both|after (the )?multipl\w*|whole)",
            r"(product|multipl\w*).{0,40}(inside|within|under).{0,20}silu",
            r"silu\(w1\(x\)\) \* w3\(x\)|silu\(self\.w1\(x\)\)",
            r"gate (alone|only)|only (to |on )?the gate",
            r"bracket|parenthes",
        ),
        (
            r"(w1|w3).{0,40}(swapped|exchanged)|silu.{0,20}(on|to) w3",
            r"\bbias\b",
            r"gelu|relu|sigmoid",
        ),
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
        "passes w3(x) through the SiLU and multiplies by w1(x), w2(w1(x) * silu(w3(x))): "
        "the gate is w3 instead of w1 (the weights' roles swapped).",
        (
            r"silu.{0,40}w3|w3.{0,40}(through|into) (the )?silu",
            r"gate.{0,40}(is |should be )?w1",
            r"w1.{0,40}w3.{0,40}(swap\w*|exchang\w*|roles)",
            r"(swap\w*|exchang\w*).{0,40}(w1|w3|gate|roles)",
            r"wrong projection",
        ),
        (
            r"silu.{0,40}(product|both)",
            r"\bbias\b",
            r"gelu|relu|sigmoid",
        ),
        edits=[
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(self.w1(x) * F.silu(self.w3(x)))",
            )
        ],
    ),
    # ------------------------------------------------------------------ CausalSelfAttention
    _c(
        "csa-values-rotated",
        L11,
        "CausalSelfAttention",
        "rotates the values with apply_rotary as well as the queries and keys, so each "
        "value carries its position into the output.",
        (
            r"values?.{0,60}(rotated|rotation|RoPE|apply_rotary)",
            r"rotat\w* (the )?values?",
            r"(queries|q) and keys? only",
            r"\bv\b.{0,30}(rotated|apply_rotary)",
        ),
        (
            r"\bd_model\b.{0,40}instead",
            r"look[- ]?ahead|causal mask",
            r"\bbias\b",
            r"\bbase\b",
        ),
        edits=[
            (
                "q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)",
                "q, k, v = (apply_rotary(q, cos, sin), apply_rotary(k, cos, sin), "
                "apply_rotary(v, cos, sin))",
            )
        ],
        source=ROPE_ON_VALUES,
    ),
    _c(
        "csa-base-not-passed",
        L11,
        "CausalSelfAttention",
        "calls rotary_embedding(length, self.d_head) without self.base, so an attention "
        "built with a base other than 10000 still rotates with 10000: right with the "
        "default only.",
        (
            r"\bbase\b.{0,60}(ignored|not passed|default|10000|never used|missing)",
            r"self\.base",
            r"(pass|forward|use)\w* (the )?base",
        ),
        (
            r"values?.{0,40}rotated",
            r"\bd_model\b.{0,40}instead",
            r"look[- ]?ahead|causal mask",
            r"view|transpose",
        ),
        edits=[
            (
                "rotary_embedding(length, self.d_head, self.base)",
                "rotary_embedding(length, self.d_head)",
            )
        ],
    ),
    _c(
        "csa-view-not-transpose",
        L11,
        "CausalSelfAttention",
        "splits the heads itself with .view(batch, num_heads, len, d_head) on the "
        "(batch, len, d_model) projections instead of split_heads (a view to (batch, len, "
        "num_heads, d_head) and a transpose): each 'head' holds a mix of positions and "
        "features.",
        (
            r"\bview\b.{0,80}transpose|transpose.{0,80}\bview\b",
            r"split_heads",
            r"\(batch, len, num_heads, d_head\)",
            r"reshap\w*.{0,60}(without|instead of|before).{0,30}transpos\w*",
            r"heads?.{0,40}(mix|scrambl\w*|wrong split)",
        ),
        (
            r"values?.{0,40}rotated",
            r"\bbase\b",
            r"look[- ]?ahead|causal mask",
            r"\bbias\b",
        ),
        edits=[
            (
                "q = split_heads(self.w_q(x), self.num_heads)",
                "q = self.w_q(x).view(x.shape[0], self.num_heads, length, self.d_head)",
            ),
            (
                "k = split_heads(self.w_k(x), self.num_heads)",
                "k = self.w_k(x).view(x.shape[0], self.num_heads, length, self.d_head)",
            ),
            (
                "v = split_heads(self.w_v(x), self.num_heads)",
                "v = self.w_v(x).view(x.shape[0], self.num_heads, length, self.d_head)",
            ),
        ],
    ),
    # ------------------------------------------------------------------ DecoderBlock
    _c(
        "block-residual-from-normed",
        L11,
        "DecoderBlock",
        "adds the residual to the normalised input instead of the raw one, "
        "h = norm1(x) + attn(norm1(x)) and norm2(h) + feed_forward(norm2(h)): the stream "
        "is renormalised at every sublayer.",
        (
            r"residual.{0,80}(normali[sz]ed|norm1\(x\)|norm2\(h\))",
            r"(add\w*|skip).{0,40}(the )?normali[sz]ed (input|x|stream)",
            r"(un-?normali[sz]ed|raw|original) (input|x\b|stream)",
            r"x \+ (self\.)?attn\((self\.)?norm1\(x\)\)",
            r"h \+ (self\.)?feed_forward",
        ),
        (
            r"post-?norm|norm(ali[sz]\w*)? after",
            r"\beps\b",
            r"feed_forward.{0,30}(missing|skipped)",
            r"\bbase\b",
        ),
        edits=[
            (
                "h = x + self.attn(self.norm1(x))",
                "x = self.norm1(x)\n        h = x + self.attn(x)",
            ),
            (
                "return h + self.feed_forward(self.norm2(h))",
                "h = self.norm2(h)\n        return h + self.feed_forward(h)",
            ),
        ],
        source=RESIDUAL_FROM_NORM,
    ),
    _c(
        "block-eps-given-as-base",
        L11,
        "DecoderBlock",
        "passes eps to the attention as its third argument, CausalSelfAttention(d_model, "
        "num_heads, eps), where the third parameter is RoPE's base: the attention rotates "
        "with base 1e-5 instead of 10000.",
        (
            r"\bbase\b.{0,60}(eps|1e-05|1e-5|0\.00001)",
            r"eps.{0,60}(base|third (argument|parameter)|attention)",
            r"CausalSelfAttention\(d_model, num_heads\)",
        ),
        (
            r"(norm1|norm2|RMSNorm).{0,40}eps.{0,30}(missing|not passed|default)",
            r"residual",
            r"post-?norm",
        ),
        edits=[
            (
                "self.attn = CausalSelfAttention(d_model, num_heads)",
                "self.attn = CausalSelfAttention(d_model, num_heads, eps)",
            )
        ],
    ),
    # ------------------------------------------------------------------ GPT
    _c(
        "gpt-one-block-repeated",
        L11,
        "GPT",
        "builds the layers as nn.ModuleList([DecoderBlock(...)] * num_layers): list "
        "multiplication repeats one block, so every layer shares the same weights "
        "(num_layers - 1 blocks' parameters missing).",
        (
            r"same (block|layer|module|object|DecoderBlock)",
            r"shar\w* (the same )?(weights|parameters)",
            r"\] \* num_layers|list multiplication",
            r"(distinct|separate|independent|new|fresh) (blocks|layers|DecoderBlocks?)",
            r"one block.{0,40}(repeated|reused|num_layers times)",
        ),
        (
            r"\btie\w*|tying",
            r"final (norm|RMSNorm)",
            r"0\.02|std",
        ),
        edits=[
            (
                "[DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]",
                "[DecoderBlock(d_model, num_heads, d_ff, eps)] * num_layers",
            )
        ],
        source=MODULE_LIST_REPEATED,
    ),
    _c(
        "gpt-output-copied-not-tied",
        L11,
        "GPT",
        "makes an output nn.Linear and copies the embedding's values into it "
        "(output.weight.data = embedding.weight.data.clone()): equal at the start, but two "
        "parameters, so the output is not tied and the two drift apart in training.",
        (
            r"(same|one|single|shared) (tensor|parameter|Parameter|matrix)",
            r"\b(copy|copied|clone\w*)\b",
            r"(not|never|isn't) tied|untied|separate (parameter|matrix|weight)",
            r"output\.weight = self\.embedding\.weight",
        ),
        (
            r"0\.02|std",
            r"final (norm|RMSNorm)",
            r"same (block|layer)",
            r"\bbias\b",
        ),
        edits=[
            (
                "nn.init.normal_(self.embedding.weight, std=0.02)",
                "nn.init.normal_(self.embedding.weight, std=0.02)\n"
                "        self.output = nn.Linear(d_model, vocab_size, bias=False)\n"
                "        self.output.weight.data = self.embedding.weight.data.clone()",
            ),
            (
                "return self.norm(x) @ self.embedding.weight.T",
                "return self.output(self.norm(x))",
            ),
        ],
        source=HEAD_NOT_TIED,
    ),
    # ------------------------------------------------------------------ sample
    _c(
        "sample-top-p-drops-crossing-token",
        L11,
        "sample",
        "removes a sorted token when the cumulative sum including it reaches top_p "
        "(cumsum >= top_p) instead of the mass before it: the token that crosses top_p is "
        "dropped, one token too few per row.",
        (
            r"cross\w*",
            r"(mass|total|sum|probability) before",
            r"one token too (few|little)|too few tokens",
            r"cumsum.{0,40}- sorted_probs|exclusive",
            r"(includ\w*|inclusive).{0,40}(itself|own|the token)",
        ),
        (*_SAMPLE_OTHER_CAUSES, r"\bgather\b|\bscatter\b", r"first row|\[0\]"),
        edits=[
            (
                "before = sorted_probs.cumsum(dim=-1) - sorted_probs",
                "before = sorted_probs.cumsum(dim=-1)",
            )
        ],
        source=TOP_P_CROSSING,
    ),
    _c(
        "sample-top-p-guard-on-first-row",
        L11,
        "sample",
        "writes the keep-at-least-one guard as remove_sorted[0] = False, which clears the "
        "whole first row of the batch instead of the first sorted column of every row: "
        "the first row is never filtered by top-p (a batch of one not at all).",
        (
            r"\[\.\.\., 0\]|\[:, 0\]",
            r"(first|whole|entire) row",
            r"row 0|first (sequence|row of the batch)",
            r"row.{0,40}(instead of|not|rather than).{0,30}(column|token)",
            r"top-?p.{0,60}(never|not) (applied|filter\w*)",
        ),
        (*_SAMPLE_OTHER_CAUSES, r"cross\w*", r"\bgather\b"),
        edits=[("remove_sorted[..., 0] = False", "remove_sorted[0] = False")],
        source=TOP_P_GUARD_ROW,
    ),
    _c(
        "sample-top-p-gather-back",
        L11,
        "sample",
        "maps the sorted decisions back with remove_sorted.gather(-1, order) instead of "
        "scatter: gather applies the permutation a second time, so the wrong tokens are "
        "removed.",
        (
            r"\bscatter\b",
            r"\bgather\b",
            r"(vocabulary|original) order",
            r"permut\w*.{0,40}(twice|again|inverse)",
        ),
        (*_SAMPLE_OTHER_CAUSES, r"cross\w*", r"first row"),
        edits=[
            (
                "remove = remove_sorted.scatter(-1, order, remove_sorted)",
                "remove = remove_sorted.gather(-1, order)",
            )
        ],
        source=TOP_P_GATHER,
    ),
    _c(
        "sample-temperature-zero-divides",
        L11,
        "sample",
        "leaves out the temperature == 0 case and divides the logits by 0: infinities and "
        "NaN reach torch.multinomial, which raises, instead of returning the argmax.",
        (
            r"temperature (==|=|of|is) ?0\b",
            r"\bargmax\b|greedy",
            r"divi\w* by (zero|0)",
            r"special case",
        ),
        (
            r"cross\w*",
            r"\bgather\b|\bscatter\b",
            r"top-?k.{0,40}(after|before)",
        ),
        edits=[
            (
                "    if temperature == 0:\n        return logits.argmax(dim=-1)\n",
                "",
            )
        ],
    ),
]
