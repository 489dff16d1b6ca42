"""Held-out wrong answers, blind round 27 (helper b27c, 2026-11-29, lessons 11-12): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 30 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L11, L12 = "11_language_model", "12_inference"

_c = held_out_authored("blind27c")

# Where these mistakes are reported (each page was read for this batch).
ONE_HOT_TARGETS = (
    "https://discuss.pytorch.org/t/does-nn-crossentropyloss-internally-build-a-one-hot-"
    "encoding-of-the-target/159010"
)
DIM_ONE_OR_LAST = (
    "https://fliphtml5.com/nzipv/ooiz/Build-a-Large-Language-Model-From-Scratch-2024/123"
)
ROPE_FACTOR_TWO = "https://github.com/hkproj/pytorch-llama/issues/3"
SQUEEZE_ALL = "https://openillumi.com/en/en-pytorch-squeeze-unsqueeze-dimension-mastery"
RELU_SQUARED = "https://github.com/Open-Superintelligence-Lab/5-dollar-llm/issues/49"
TRIL_OR_TRIU = "https://github.com/karpathy/nanoGPT/issues/170"
RESIDUAL_AFTER_NORM = "https://github.com/SHI-Labs/Compact-Transformers/issues/25"
VOCAB_PADDED = "https://github.com/RobertRiachi/nanoPALM/pull/6"
TOP_K_NONE = "https://github.com/shiyu-coder/Kronos/pull/351"
VALUE_FROM_KEY = "https://github.com/huggingface/transformers/issues/34232"
CACHE_ACROSS_CALLS = "https://github.com/huggingface/transformers/issues/24841"
INPUT_MUTATION = "https://pytorch.org/docs/stable/generated/exportdb/torch.mutation.html"
NEGATIVE_SLICE = (
    "https://tristarbruise.netlify.app/host-https-stackoverflow.com/revisions/9923354/4"
)
CACHE_GIB = "https://www.eetcode.com/deepml/418"

_SHAPE_ONE = r"(axis|axes|dimension)s? of (size )?(one|1)"

BLIND27C: list[Case] = [
    # ---- 11 language model ---------------------------------------------------------------
    _c(
        "ntb-targets-one-hot",
        L11,
        "next_token_batches",
        "returns the targets one-hot encoded, F.one_hot(tokens[positions + 1]) of shape "
        "(batch_size, block_size, vocab), as for a loss that takes class probabilities, "
        "instead of the int64 token ids (batch_size, block_size) that F.cross_entropy takes.",
        (
            r"one[- ]hot",
            r"(class|token) (indices|ids).{0,40}(not|instead of) (one[- ]hot|probabilit|vectors)",
            r"targets?.{0,60}(extra|third|trailing) (axis|dimension)",
            r"targets?.{0,60}(3-?d|three axes|three dimensions)",
        ),
        (
            r"not shifted|same as the inputs",
            r"global (random )?(generator|stream|rng)",
            r"(last|final) start.{0,40}(never|excluded|drawn)",
            r"time-major|transposed",
        ),
        edits=(
            (
                "return tokens[positions], tokens[positions + 1]",
                "return tokens[positions], F.one_hot(tokens[positions + 1])",
            ),
        ),
        source=ONE_HOT_TARGETS,
    ),
    _c(
        "rms-mean-over-axis-one",
        L11,
        "RMSNorm",
        "takes the mean square over dim=1, written for a 2-D (tokens, d_model) input where "
        "axis 1 is the features, instead of the last axis: right for 2-D inputs, but for a "
        "(batch, len, d_model) input each feature is averaged over the positions instead of "
        "each token over its features.",
        (
            r"dim ?= ?1\b|axis 1\b|second axis",
            r"(over|across) (the )?(positions|sequence|tokens|length)",
            r"(last|feature) axis|dim ?= ?-1",
            r"(2-?d|two axes).{0,80}(3-?d|three axes)",
        ),
        (
            r"sum\w* (of )?(the )?squares.{0,30}(not|instead of) (the )?mean",
            r"eps.{0,30}(outside|after) the (square )?root",
            r"rsqrt.{0,40}divid",
            r"mean (absolute|of the absolute)",
            r"subtract\w* (the |each token's )?mean|layer ?norm",
        ),
        edits=(
            (
                "x.pow(2).mean(dim=-1, keepdim=True)",
                "x.pow(2).mean(dim=1, keepdim=True)",
            ),
        ),
        source=DIM_ONE_OR_LAST,
    ),
    _c(
        "rope-arange-without-step-two",
        L11,
        "rotary_embedding",
        "takes the exponents from torch.arange(0, d_head) / d_head, leaving out the step of 2 "
        "(the factor 2 of -2i / d_head): there is one frequency per feature, so cos and sin "
        "are (length, d_head) instead of (length, d_head // 2), and theta_i = base ** (-i / "
        "d_head) decays half as fast as it should.",
        (
            r"step (of )?2|arange\(0, d_head, 2\)|every other (index|exponent|feature)",
            r"(factor|the) 2\b.{0,40}(missing|left out|dropped|forgotten)",
            r"(one|a) (frequency|angle) (per|for each) feature",
            r"\(length, d_head\).{0,60}\(length, d_head ?// ?2\)",
            r"d_head (columns|frequencies) (instead of|not) d_head ?// ?2",
        ),
        (
            r"positions? (start|count\w*|numbered) (at |from )?1",
            r"(cos|sin)\w*.{0,20}swapped",
            r"base.{0,30}(ignored|hard-?coded)",
            r"duplicat|repeated for both halves|cat\(\[angles, angles\]",
            r"base \*\* \(\+|frequencies grow",
        ),
        edits=(
            (
                "torch.arange(0, d_head, 2, dtype=torch.float64) / d_head",
                "torch.arange(0, d_head, dtype=torch.float64) / d_head",
            ),
        ),
        source=ROPE_FACTOR_TWO,
    ),
    _c(
        "rotary-squeezes-input",
        L11,
        "apply_rotary",
        "starts with x = x.squeeze() to drop a batch axis of one and never restores it: every "
        "axis of size one is removed, so a (1, num_heads, len, d_head) input (or one with a "
        "single head or a single position) comes back with fewer axes than x.",
        (
            r"squeez",
            _SHAPE_ONE + r".{0,60}(dropped|removed|lost|missing)",
            r"(dropped|removed|lost)\w*.{0,40}" + _SHAPE_ONE,
            r"(batch|head|position|length) (axis|dimension) of (size )?(one|1)",
            r"fewer (axes|dimensions)",
        ),
        (
            r"rotat\w* (the )?wrong way|minus sign",
            r"halves? (swapped|in the wrong order)",
            r"(adjacent|interleaved) pairs.{0,40}(halves|mix)",
            r"in place|overwrit",
            r"(float32|upcast)",
        ),
        edits=(
            (
                "half = x.shape[-1] // 2",
                "x = x.squeeze()  # drop the batch axis of one\n    half = x.shape[-1] // 2",
            ),
        ),
        source=SQUEEZE_ALL,
    ),
    _c(
        "swiglu-relu-squared-gate",
        L11,
        "SwiGLU",
        "gates with a squared ReLU (Primer's activation, relu(w1(x)) ** 2) instead of the "
        "SiLU: w2(relu(w1(x)) ** 2 * w3(x)), so negative gate pre-activations give exactly "
        "zero and positive ones grow quadratically.",
        (
            r"relu",
            r"squar",
            r"(gate|activation).{0,60}(silu|swish)",
            r"(silu|swish).{0,60}(gate|activation)",
        ),
        (
            r"gelu",
            r"(gate|value)s?.{0,30}swapped|silu (is )?on w3",
            r"bias",
            r"(added|sum|\+) instead of (multipl|product|\*)",
            r"silu.{0,30}(over|on|to) the product",
        ),
        edits=(
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(F.relu(self.w1(x)) ** 2 * self.w3(x))",
            ),
        ),
        source=RELU_SQUARED,
    ),
    _c(
        "csa-mask-upper-triangle",
        L11,
        "CausalSelfAttention",
        "builds the causal mask itself with torch.triu(ones(len, len)) (the upper triangle, "
        "diagonal included) as the positions that may attend, where torch.tril belongs: "
        "each query attends to itself and every later key instead of itself and the earlier "
        "ones (the look-ahead mask transposed).",
        (
            r"triu|upper[- ]triang",
            r"tril|lower[- ]triang",
            r"transpos\w*.{0,30}mask|mask.{0,30}transpos",
            r"(later|future|following|subsequent) (keys|positions|tokens)",
            r"(sees|attends? to|looks? at|peeks? at) (the )?future",
        ),
        (
            r"mask (is )?(never applied|ignored|missing|dropped)|passes no mask",
            r"(diagonal|itself).{0,40}(masked|hidden|blocked|excluded)",
            r"(no|missing|forg\w*) (the )?scal|sqrt\(d_model\)",
            r"values? (are )?(also )?rotated|rotat\w* the values",
            r"w_o|output projection",
        ),
        edits=(
            (
                "heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))",
                "mask = torch.triu(torch.ones(length, length, dtype=torch.bool))\n"
                "        heads, _ = scaled_dot_product_attention(q, k, v, mask)",
            ),
        ),
        source=TRIL_OR_TRIU,
    ),
    _c(
        "csa-mask-sized-by-features",
        L11,
        "CausalSelfAttention",
        "sizes the look-ahead mask with x.shape[-1] (d_model, the feature axis) instead of "
        "the sequence length x.shape[1]: the (d_model, d_model) mask does not fit the "
        "(len, len) scores, so the call fails unless len happens to equal d_model.",
        (
            r"mask.{0,80}(d_model|features?|feature axis|last axis|x\.shape\[-1\])",
            r"(d_model|feature axis|last axis|x\.shape\[-1\]).{0,80}mask",
            r"look_ahead_mask\((x\.shape\[1\]|length|len)\)",
        ),
        (
            r"rotary (tables?|angles).{0,40}(d_model|wrong)",
            r"triu|transposed mask",
            r"batch axis|x\.shape\[0\]",
            r"(no|missing|forg\w*) (the )?scal",
            r"merg\w* (the )?heads",
        ),
        edits=(
            (
                "look_ahead_mask(length)",
                "look_ahead_mask(x.shape[-1])",
            ),
        ),
    ),
    _c(
        "block-ffn-residual-from-normalised-stream",
        L11,
        "DecoderBlock",
        "overwrites the stream with its normalised form before the second sublayer, "
        "h = norm2(h); return h + feed_forward(h): the feed-forward's residual adds the "
        "normalised stream instead of the raw h, so the block's output is "
        "norm2(h) + feed_forward(norm2(h)).",
        (
            r"residual.{0,80}(normali[sz]ed|norm2\(h\)|after (the )?norm)",
            r"normali[sz]ed (stream|h|input|hidden).{0,80}(residual|added|skip)",
            r"norm2.{0,60}(stream|residual|overwrit|reassign|replac)",
            r"raw (stream|h)\b",
        ),
        (
            r"attention'?s? residual|norm1\(x\) \+",
            r"(feed-forward|ffn).{0,40}(reads|takes) (the block's )?input x|norm2\(x\)",
            r"norms? (are )?swapped",
            r"(no|missing|drops?) (the )?(feed-forward|ffn|second) (sub-?layer'?s? )?residual",
            r"layer ?norm",
        ),
        edits=(
            (
                "return h + self.feed_forward(self.norm2(h))",
                "h = self.norm2(h)\n        return h + self.feed_forward(h)",
            ),
        ),
        source=RESIDUAL_AFTER_NORM,
    ),
    _c(
        "gpt-vocab-padded-to-64",
        L11,
        "GPT",
        "pads the vocabulary up to the next multiple of 64 for speed (nanoGPT's 50304), "
        "nn.Embedding((vocab_size + 63) // 64 * 64, d_model): the embedding has extra rows "
        "and the tied logits have that many columns instead of vocab_size.",
        (
            r"pad\w*.{0,30}vocab|vocab\w*.{0,30}pad",
            r"multiple of (64|8|32)",
            r"(embedding|table|output).{0,60}(more|extra) (rows|tokens|entries|columns)",
            r"(rows|entries|columns|logits).{0,30}(than|instead of) (the )?vocab",
            r"num_embeddings",
        ),
        (
            r"untied|separate output",
            r"(final )?norm (is )?(missing|skipped)",
            r"arguments? (the wrong way|swapped)",
            r"(std|standard deviation)",
            r"padding_idx",
        ),
        edits=(
            (
                "self.embedding = nn.Embedding(vocab_size, d_model)",
                "self.embedding = nn.Embedding((vocab_size + 63) // 64 * 64, d_model)",
            ),
        ),
        source=VOCAB_PADDED,
    ),
    _c(
        "gpt-embedding-std-inverse-sqrt-d-model",
        L11,
        "GPT",
        "initialises the embedding with standard deviation d_model ** -0.5 (1/sqrt(d_model), "
        "a common width-scaled init) instead of GPT-2's 0.02, so the embeddings and the "
        "tied logits start several times too large.",
        (
            r"(std|standard deviation).{0,80}(0\.02|d_model|sqrt)",
            r"1 ?/ ?sqrt\(d_model\)|d_model ?\*\* ?-0\.5",
            r"init\w*.{0,60}(0\.02|too (large|wide|big))",
        ),
        (
            r"N\(0, ?1\)|default (init|initiali[sz]ation)",
            r"mean (of )?0\.02|0\.02 (as|is) the mean",
            r"uniform",
            r"zeros",
            r"untied|separate output",
        ),
        edits=(
            (
                "nn.init.normal_(self.embedding.weight, std=0.02)",
                "nn.init.normal_(self.embedding.weight, std=d_model**-0.5)",
            ),
        ),
    ),
    _c(
        "sample-top-k-compared-with-zero",
        L11,
        "sample",
        "tests the optional top_k with Hugging Face's convention, if top_k > 0 (0 = no "
        "filtering), instead of if top_k is not None: a call with the default top_k=None "
        "raises TypeError ('>' not supported between NoneType and int).",
        (
            r"None\s*>\s*0|'>' not supported|NoneType",
            r"top_k ?= ?None|top_k (is|of) None|None (means|for|keeps) (all|no filter)",
            r"is not None",
            r"(compar|test)\w* top_k (with|against|to) (0|zero)|top_k > 0",
        ),
        (
            r"top_k.{0,30}(plus one|\+ 1|one too many)",
            r"temperature.{0,40}(in place|after)",
            r"top-?p.{0,30}(unsorted|ascending)",
            r"global (random )?(generator|rng|stream)",
        ),
        edits=(("if top_k is not None:", "if top_k > 0:"),),
        source=TOP_K_NONE,
    ),
    # ---- 12 inference --------------------------------------------------------------------
    _c(
        "kv-values-written-from-keys",
        L12,
        "KVCache",
        "copy-paste slip in forward: writes k_new into the values buffer "
        "(self.values[:, :, start:stop] = k_new), so v_new is never stored and the cache "
        "returns the keys as the values.",
        (
            r"values?.{0,40}(hold|store|contain|written with|filled with|get)\w*.{0,20}keys?",
            r"k_new.{0,40}values?",
            r"keys? (instead of|in place of|where) (the )?values?",
            r"v_new.{0,40}(never|not) (stored|used|written)",
            r"values?.{0,40}(equal|identical|the same)\w* (to|as) (the )?keys",
        ),
        (
            r"(one|same|shared|single) (tensor|storage|buffer) for (both|keys and values)",
            r"share (the same )?storage",
            r"length.{0,40}(never|not) advanc",
            r"whole buffers?|max_len positions",
            r"persistent",
        ),
        edits=(
            (
                "self.values[:, :, start:stop] = v_new",
                "self.values[:, :, start:stop] = k_new",
            ),
        ),
        source=VALUE_FROM_KEY,
    ),
    _c(
        "kv-first-sequence-only",
        L12,
        "KVCache",
        "writes only the first sequence of the batch, self.keys[0, :, start:stop] = "
        "k_new[0] (likewise the values), as code written for one prompt does: with a batch "
        "of one it is right, with several sequences the others' keys and values are never "
        "stored and come back as zeros.",
        (
            r"(only|just) (the )?(first|one|a single) (sequence|row|prompt)",
            r"(first|one) (sequence|row) (of the batch )?only",
            r"batch (axis|dimension|size).{0,40}(1|one|ignored|only)",
            r"(other|remaining|later|second) (sequences?|rows?).{0,60}(never|not) "
            r"(stored|written|kept)",
            r"(other|remaining|later|second) (sequences?|rows?).{0,60}zeros?",
        ),
        (
            r"length.{0,40}(never|not) advanc",
            r"whole buffers?|max_len positions",
            r"head axis",
            r"persistent",
            r"keys? (instead of|in place of) (the )?values",
            r"allocat\w*.{0,40}(one sequence|batch (of )?(1|one))",
        ),
        edits=(
            ("self.keys[:, :, start:stop] = k_new", "self.keys[0, :, start:stop] = k_new[0]"),
            ("self.values[:, :, start:stop] = v_new", "self.values[0, :, start:stop] = v_new[0]"),
        ),
    ),
    _c(
        "gen-caches-kept-across-calls",
        L12,
        "generate",
        "makes the caches once and keeps them on the model (model._caches) for later calls: "
        "the first generation is right, but a second call starts with caches that still hold "
        "the first call's keys and values, so it overflows them or attends to the old "
        "sequence.",
        (
            r"(second|later|another|next|repeated) (call|generation)",
            r"(reus|kept|keep|stor|sav)\w* (the )?caches?.{0,40}(across|between|from) "
            r"(calls|generations?)",
            r"(previous|earlier|first) (call|generation)'?s? (caches?|keys)",
            r"(fresh|new|empty) caches? (for|on|at) (each|every) call",
            r"stale",
        ),
        (
            r"(fresh|new) (set of )?caches? (at|for) (each|every) step",
            r"start.{0,40}(same position|never advanc)",
            r"(prefill|prompt).{0,40}without (the )?caches?",
            r"sized for the prompt",
            r"one step late",
        ),
        edits=(
            (
                "caches = model.new_caches(batch, length + max_new_tokens)",
                'if getattr(model, "_caches", None) is None:\n'
                "        model._caches = model.new_caches(batch, length + max_new_tokens)\n"
                "    caches = model._caches",
            ),
        ),
        source=CACHE_ACROSS_CALLS,
    ),
    _c(
        "gqa-output-heads-merged",
        L12,
        "grouped_query_attention",
        "merges the heads before returning (merge_heads(output), as the attention module "
        "does before w_o): the output is (batch, len_q, num_heads * d_v) instead of "
        "(batch, num_heads, len_q, d_v).",
        (
            r"merg\w* (the )?heads|merge_heads",
            r"(join|concatenat|flatten|fold)\w* (the )?heads",
            r"\(batch, len_q, num_heads ?\* ?d_v\)",
            r"heads? (axis )?(merged|joined|flattened|folded) (into|with) (the )?features?",
        ),
        (
            r"tile|\.repeat\(|h % num_kv_heads",
            r"group.{0,30}(inverted|wrong way)",
            r"(no|missing|forg\w*) (the )?scal",
            r"mask (is )?(ignored|inverted|dropped)",
            r"w_o|output projection",
        ),
        edits=(("return output", "return merge_heads(output)"),),
    ),
    _c(
        "online-block-stop-fixed",
        L12,
        "online_softmax",
        "slices each block as x[..., start : block_size] (the stop fixed at block_size "
        "instead of start + block_size): the first block is right, every later block is "
        "empty, so a row longer than block_size fails on the empty block's maximum.",
        (
            r"start ?: ?block_size\b",
            r"(stop|end)s? (fixed )?at block_size|(stop|end) (should be|is not) start \+ block_size",
            r"start \+ block_size",
            r"empty (blocks?|slices?)",
            r"(later|second|other|remaining) blocks?.{0,40}(empty|nothing|no columns)",
        ),
        (
            r"(not|never) rescal",
            r"(last|partial|shorter) block (is )?(dropped|skipped)",
            r"in place|overwrit",
            r"max(imum)? (is )?never updated",
            r"starts? (at )?(zero|0) instead of -inf",
        ),
        edits=(
            (
                "block = x[..., start : start + block_size]",
                "block = x[..., start : block_size]",
            ),
        ),
    ),
    _c(
        "tiled-queries-scaled-in-place",
        L12,
        "tiled_attention",
        "scales the queries once, in place, before the loop (q *= scale) instead of scaling "
        "each block's scores: the output is right, but the caller's q is overwritten with "
        "q / sqrt(d_k).",
        (
            r"in[- ]place",
            r"(modif|overwr|chang|mutat|rescal)\w* (the )?(caller'?s? )?(q|queries|input)",
            r"q \*=|\*=",
            r"caller",
        ),
        (
            r"(no|missing|forg\w*) (the )?scal",
            r"scaled twice|scale.{0,20}(twice|squared)",
            r"(not|never) rescal\w* (the )?(acc|output|sum|running)",
            r"causal",
        ),
        edits=(
            (
                "scale = 1 / math.sqrt(q.shape[-1])",
                "scale = 1 / math.sqrt(q.shape[-1])\n"
                "    q *= scale  # scale the queries once, not every block",
            ),
            (
                "scores = q @ k[..., start:stop, :].transpose(-2, -1) * scale",
                "scores = q @ k[..., start:stop, :].transpose(-2, -1)",
            ),
        ),
        source=INPUT_MUTATION,
    ),
    _c(
        "sw-loop-negative-slice-start",
        L12,
        "sliding_window_mask",
        "fills each query's row in a loop with mask[i, i - window + 1 : i + 1] = True without "
        "clamping the start at 0: for the first window - 1 queries the start is negative, "
        "which Python counts from the end, so their slice is empty and they may attend to "
        "nothing, not even themselves.",
        (
            r"negative (slice |start|index)",
            r"clamp|max\(0",
            r"(start|begin)s? (below|before|under|less than) (0|zero)",
            r"counted from the end|wrap\w*",
            r"(first|early) (rows?|queries|positions).{0,80}(nothing|empty|no keys|"
            r"not even (itself|themselves|the diagonal)|all False)",
        ),
        (
            r"window \+ 1|one (key )?too (many|wide)",
            r"(sees|see|attends? to) (the )?(future|later keys)|not causal",
            r"float|uint8",
            r"transpos",
        ),
        code="""
def sliding_window_mask(size, window):
    mask = torch.zeros(size, size, dtype=torch.bool)
    for i in range(size):
        mask[i, i - window + 1 : i + 1] = True
    return mask
""",
        source=NEGATIVE_SLICE,
    ),
    _c(
        "sw-wide-window-shortcut-all-true",
        L12,
        "sliding_window_mask",
        "short-cuts a window of size or more, which needs no window, with "
        "torch.ones(size, size, dtype=torch.bool): that drops the causal part too, so every "
        "query sees every later key instead of getting look_ahead_mask(size).",
        (
            r"window.{0,40}(>= ?|at least |larger than |as large as |greater than or equal to )"
            r"(the )?size",
            r"(all|every(thing)?) (True|keys)|ones\(size",
            r"(not causal|future|later keys).{0,80}(window|size)",
            r"(window|size).{0,80}(not causal|future|later keys)",
            r"look_ahead_mask\(size\)",
        ),
        (
            r"window \+ 1|one (key )?too (many|wide)",
            r"(diagonal|itself).{0,30}(excluded|masked|left out)",
            r"float|uint8",
            r"transpos",
            r"both sides|two-?sided",
        ),
        edits=(
            (
                "recent = torch.triu(",
                "if window >= size:\n"
                "        return torch.ones(size, size, dtype=torch.bool)\n"
                "    recent = torch.triu(",
            ),
        ),
    ),
    _c(
        "quiz-cache-in-gib",
        L12,
        "quiz_cache_memory",
        "divides the bytes by 2**30 and answers the size in GiB (0.1875) instead of in MiB "
        "(192), as a calculator that reports gigabytes does.",
        (
            r"GiB|gibibyte|gigabyte|\bGB\b",
            r"2 ?\*\* ?30",
            r"1024 (times|×|x) too small|factor (of )?1024",
        ),
        (
            r"query heads|32 heads",
            r"decimal|10 ?\*\* ?6",
            r"(one|single) layer",
            r"keys (alone|only)|factor (of )?2 for",
            r"bits",
        ),
        code="""
def quiz_cache_memory():
    return 2 * 48 * 8 * 128 * 1024 * 2 / 2**30
""",
        source=CACHE_GIB,
    ),
]
