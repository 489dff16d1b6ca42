"""Held-out wrong answers for lessons 12, blind round 15 (helper b15e, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 17's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 22 cases over the
seven exercises; ten transpose a mistake reported in public (the URL read for this
benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L12 = "12_inference"

# The reports these cases transpose (each read with the search tool for this benchmark).
DTYPE_PASSED_POSITIONALLY = "https://github.com/dask/dask/issues/6275"
STOP_AT_EOS = "https://github.com/google/gemma_pytorch/pull/57"
LIST_MULTIPLICATION_ALIASES = "https://github.com/yaoppeng/U-Net_v2/issues/10"
IF_TENSOR_AMBIGUOUS = (
    "https://github.com/ExplorerFreda/Structured-Self-Attentive-Sentence-Embedding/issues/8"
)
PRINTS_INSTEAD_OF_RETURNING = "https://quick-geek.imtqy.com/answers/591469/index.html"
MAXIMUM_OF_PYTHON_FLOAT = "https://github.com/flagos-ai/FlagGems/issues/300"
RESHAPE_NEEDS_MULTIPLE_OF_BLOCK = "https://github.com/lucidrains/flash-attention-jax/issues/14"
SCALE_BY_WRONG_DIMENSION = "https://github.com/lucidrains/vit-pytorch/issues/65"
FULL_SCORES_PER_BLOCK = "https://github.com/Dao-AILab/flash-attention/issues/941"
WINDOW_MASKS_OR_AND = "https://github.com/lucidrains/local-attention/issues/5"

_c = held_out_authored("blind15e")

BLIND15E: list[Case] = [
    # ------------------------------------------------------------------ KVCache
    _c(
        "kv-keys-registered-twice",
        L12,
        "KVCache",
        "copy-paste slip in the constructor: the second register_buffer call keeps the name "
        "'keys' (register_buffer('keys', values_zeros, ...)), so the keys buffer is replaced "
        "and no values buffer exists: forward raises AttributeError at self.values.",
        (
            r"values.{0,60}(buffer|register\w*).{0,60}(missing|never|not registered|no such)",
            r"no (values buffer|buffer (named |called )?'?values)",
            r"has no attribute '?values",
            r"'?keys'?.{0,60}(registered )?(twice|two times|a second time)",
            r"values.{0,30}(is|was) never registered",
        ),
        (
            r"(buffers?|keys and values) .{0,40}(share|same) (storage|tensor|memory)",
            r"values.{0,40}(are|were|hold|equal) the keys",
            r"dtype.{0,40}(ignored|dropped|not used|always float32)",
            r"super\(\)\.__init__",
        ),
        edits=[
            (
                'self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)',
                'self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)',
            )
        ],
    ),
    _c(
        "kv-length-advanced-before-capacity-check",
        L12,
        "KVCache",
        "advances self.length before the capacity check (self.length += n, then raise "
        "ValueError if it passes max_len): the ValueError is raised, but the refused call has "
        "already moved the length, so afterwards the cache counts positions it never stored "
        "and refuses (or misplaces) chunks that would fit.",
        (
            r"(refused|rejected|failed|overflowing|raising) (call|chunk).{0,100}"
            r"(length|advance\w*|moved|changed|state|counts?)",
            r"length.{0,80}(before|ahead of) .{0,40}(check|ValueError|capacity|rais\w+)",
            r"after (the |a |its )?ValueError.{0,100}(length|cache|state)",
            r"(ValueError|refus\w+).{0,80}(leaves?|left|corrupt\w*) .{0,40}(length|cache|state)",
        ),
        (
            r"(no|never raises?( a)?) ValueError",
            r">=|one too (early|soon)|exactly (fill|full)",
            r"(length|advances?) by (the number of )?heads",
            r"returns? only the new",
            r"AssertionError|assert\b",
        ),
        edits=[
            (
                "start, stop = self.length, self.length + k_new.shape[-2]",
                "start = self.length\n"
                "        self.length += k_new.shape[-2]\n"
                "        stop = self.length",
            ),
            ("self.length = stop", "pass"),
        ],
    ),
    _c(
        "kv-zeros-dtype-positional",
        L12,
        "KVCache",
        "passes the dtype to torch.zeros positionally (torch.zeros(shape, dtype)), as "
        "NumPy allows; torch.zeros takes the dtype only as a keyword, so the constructor "
        "raises TypeError ('zeros() takes 1 positional argument but 2 were given').",
        (
            r"dtype=dtype|keyword (argument )?dtype",
            r"dtype.{0,60}(keyword|positional\w*)",
            r"(positional\w*).{0,60}dtype",
            r"zeros\(\) takes 1 positional argument",
        ),
        (
            r"dtype.{0,40}(ignored|dropped|not used|always float32)",
            r"super\(\)\.__init__",
            r"register_buffer.{0,40}(before|already|attribute)",
            r"persistent",
        ),
        edits=[
            (
                'self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)',
                'self.register_buffer("keys", torch.zeros(shape, dtype), persistent=False)',
            ),
            (
                'self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)',
                'self.register_buffer("values", torch.zeros(shape, dtype), persistent=False)',
            ),
        ],
        source=DTYPE_PASSED_POSITIONALLY,
    ),
    # ------------------------------------------------------------------ generate
    _c(
        "gen-stops-at-token-zero",
        L12,
        "generate",
        "adds an early stop from sampling loops: it breaks out of the loop as soon as every "
        "sequence's chosen token is 0 (taken as the end-of-text id), so whenever the greedy "
        "tokens are all 0 it returns fewer than max_new_tokens tokens and steps of logits; "
        "the contract asks for exactly max_new_tokens.",
        (
            r"(stop\w*|break\w*|end\w*)( generating| the loop)? .{0,40}"
            r"(early|as soon as|once|when).{0,60}(token 0|\b0\b|eos|end.of)",
            r"\beos\b|end.of.(text|sequence)|stop(ping)? token",
            r"max_new_tokens.{0,80}(whatever|regardless|even (if|when|after)).{0,60}"
            r"(token|generated|chosen)",
            r"token 0.{0,60}(stop|end|break)",
        ),
        (
            r"range\(max_new_tokens - 1\)|one (token )?too few|one step short",
            r"(logits|ids).{0,40}(one step (late|early)|shifted)",
            r"argmax.{0,40}(batch axis|dim=0)",
            r"sampl\w+ .{0,30}(instead of|not) (greedy|argmax)",
        ),
        edits=[
            (
                "ids = torch.cat([ids, next_id], dim=1)",
                "ids = torch.cat([ids, next_id], dim=1)\n"
                "        if (next_id == 0).all():  # end of text\n"
                "            break",
            )
        ],
        source=STOP_AT_EOS,
    ),
    _c(
        "gen-one-cache-for-every-layer",
        L12,
        "generate",
        "makes the caches itself with list multiplication, [KVCache(...)] * len(model.layers): "
        "the list holds one cache object len(layers) times, so every layer appends its keys "
        "and values to the same cache (the second layer's prefill lands after the first's), "
        "and each layer attends to the other layers' keys; the caches overflow or the logits "
        "are wrong.",
        (
            r"(same|one|single|shared) (cache|KVCache)( object)?.{0,80}(every|all|each|both) "
            r"(of the )?layers?",
            r"(layers?|caches).{0,60}(share|same object|one object|alias\w*|is caches)",
            r"list multiplication|\[\w*\] \* ",
            r"caches?\[0\] is caches?\[1\]",
        ),
        (
            r"(sized|room) for (the )?(prompt|new tokens) only",
            r"new_caches\(.{0,40}(swapped|wrong order)",
            r"fresh (set of )?caches? (at )?(every|each) step",
            r"start.{0,40}(wrong|off by|too far)",
        ),
        edits=[
            (
                "caches = model.new_caches(batch, length + max_new_tokens)",
                "attn = model.layers[0].attn\n"
                "    cache = KVCache(batch, attn.num_heads, length + max_new_tokens, attn.d_head)\n"
                "    caches = [cache] * len(model.layers)",
            )
        ],
        source=LIST_MULTIPLICATION_ALIASES,
    ),
    _c(
        "gen-appends-to-prompt",
        L12,
        "generate",
        "variable slip when appending: ids = torch.cat([prompt, next_id], dim=1) instead of "
        "[ids, next_id], so every step rebuilds ids from the prompt and keeps only the latest "
        "token: the model is fed the right tokens and the logits are right, but the ids come "
        "back (batch, len + 1) with only the last generated token (right for one new token).",
        (
            r"(only|just) (the )?(last|latest|newest) (generated |new )?token",
            r"cat.{0,40}prompt.{0,40}(instead of|not|rather than) .{0,10}ids",
            r"(earlier|previous|other) (generated |new )?tokens.{0,60}"
            r"(lost|dropped|missing|overwritten|discarded|replaced)",
            r"(from|to) the prompt (again|each step|every step)",
        ),
        (
            r"one (token )?too (few|many)|range\(max_new_tokens - 1\)",
            r"(only|just) the (generated|new) tokens.{0,40}(without|no) (the )?prompt",
            r"prepended|in front of",
            r"(logits|ids).{0,40}(one step (late|early)|shifted)",
        ),
        edits=[
            (
                "ids = torch.cat([ids, next_id], dim=1)",
                "ids = torch.cat([prompt, next_id], dim=1)",
            )
        ],
    ),
    # ------------------------------------------------------------------ grouped_query_attention
    _c(
        "gqa-if-mask-truthiness",
        L12,
        "grouped_query_attention",
        "tests the optional mask with `if mask:` instead of `if mask is not None:`: without a "
        "mask it is right, but a mask of more than one element has no truth value and the "
        "call raises RuntimeError ('Boolean value of Tensor with more than one value is "
        "ambiguous').",
        (
            r"if mask\b",
            r"mask is not None",
            r"truth.?value|truthiness",
        ),
        (
            r"mask.{0,40}(ignored|dropped|never applied|not passed)",
            r"mask.{0,40}(inverted|wrong way|True.{0,20}blocked)",
            r"\.repeat\(|tiles?\b",
            r"2-D mask.{0,40}padding",
        ),
        edits=[
            (
                "output, _ = scaled_dot_product_attention(q, k, v, mask)",
                "if mask:\n"
                "        output, _ = scaled_dot_product_attention(q, k, v, mask)\n"
                "    else:\n"
                "        output, _ = scaled_dot_product_attention(q, k, v)",
            )
        ],
        source=IF_TENSOR_AMBIGUOUS,
    ),
    _c(
        "gqa-group-by-modulo",
        L12,
        "grouped_query_attention",
        "computes the group size with % instead of // (q.shape[1] % k.shape[1]): num_heads is "
        "a multiple of num_kv_heads, so the remainder is 0, every key/value head is repeated "
        "0 times and the attention gets no key/value heads at all (a shape error for every "
        "input).",
        (
            r"%|modulo|remainder",
            r"group( size)?.{0,40}(is |=|of )0\b|zero group|repeated 0 times|zero times",
            r"(no|0|zero) (key|value|key/value) heads",
        ),
        (
            r"num_kv_heads // num_heads|(group|ratio).{0,40}(inverted|wrong way round)",
            r"true division|float (count|group)",
            r"hard.?coded",
            r"\.repeat\(|tiles?\b",
        ),
        edits=[
            (
                "group = q.shape[1] // k.shape[1]",
                "group = q.shape[1] % k.shape[1]",
            )
        ],
    ),
    _c(
        "gqa-group-loop-whole-mask",
        L12,
        "grouped_query_attention",
        "loops over the key/value heads, attending with each group's query heads "
        "q[:, g * group : (g + 1) * group] against k[:, g : g + 1], but passes every group "
        "the whole mask: a mask without heads or with one broadcast head is right, a mask "
        "with one slice per query head, (batch, num_heads, len_q, len_k), does not "
        "broadcast against the group's heads (an error unless there is a single group).",
        (
            r"mask.{0,80}(not|never) (sliced|split|cut|indexed).{0,60}(group|heads?)",
            r"(per.head|num_heads heads|one slice per (query )?head|head axis of num_heads)"
            r".{0,100}(group|slice|sliced|not (cut|split))",
            r"mask\[:, .{0,40}group",
            r"(each|every) group.{0,60}(whole|full|entire) mask",
        ),
        (
            r"mask.{0,40}(ignored|dropped|never applied|not passed)",
            r"mask.{0,40}(inverted|True.{0,20}blocked)",
            r"\.repeat\(|tiles?\b|h % num_kv_heads",
            r"mask\[:, head\]|indexed by (the )?head",
        ),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    num_heads, num_kv_heads = q.shape[1], k.shape[1]
    group = num_heads // num_kv_heads
    outputs = []
    for g in range(num_kv_heads):  # one key/value head and its group of query heads
        queries = q[:, g * group : (g + 1) * group]  # (batch, group, len_q, d_head)
        output, _ = scaled_dot_product_attention(
            queries, k[:, g : g + 1], v[:, g : g + 1], mask
        )
        outputs.append(output)
    return torch.cat(outputs, dim=1)  # (batch, num_heads, len_q, d_v)
""",
    ),
    _c(
        "gqa-keys-transposed-on-head-axis",
        L12,
        "grouped_query_attention",
        "writes the attention by hand and transposes the repeated keys with "
        "k.transpose(1, 2), the axes split_heads swaps, instead of the last two "
        "(transpose(-2, -1)): the keys become (batch, len_k, num_heads, d_head) and q @ k "
        "fails with a shape error (or mixes heads and positions when the sizes happen to "
        "agree).",
        (
            r"transpose\(1, ?2\)",
            r"transpose\(-2, ?-1\)|transpose\(2, ?3\)|last two (axes|dimensions)",
            r"(keys?|\bk\b).{0,40}transpos\w+ .{0,60}(heads? and (positions|length)|"
            r"wrong (axes|dims|dimensions))",
        ),
        (
            r"\.repeat\(|tiles?\b",
            r"sqrt\(d_v\)|scale.{0,30}(missing|d_v|after)",
            r"softmax.{0,40}(dim|axis)",
            r"values? (not|never) repeated",
        ),
        code="""
def grouped_query_attention(q, k, v, mask=None):
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)  # (batch, num_heads, len_k, d_head)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v  # (batch, num_heads, len_q, d_v)
""",
    ),
    # ------------------------------------------------------------------ quiz_cache_memory
    _c(
        "quiz-section-3-layers-reused",
        L12,
        "quiz_cache_memory",
        "computes the answer from the notebook variables of section 3's Llama-2-7B cell "
        "(layers = 32, d_head, element_bytes) instead of the question's numbers: the 32 "
        "layers there replace the question's 48, so it answers 128 MiB instead of 192 "
        "(two thirds).",
        (
            r"\b32 layers|layers ?= ?32\b|\b32\b.{0,40}instead of (the )?48|"
            r"48 layers.{0,40}(not|instead of) (the )?32",
            r"(section 3|Llama.?2|7B).{0,80}(variable|layers|32)",
            r"(global|notebook|earlier cell'?s?) variables?",
            r"two.thirds|2/3",
        ),
        (
            r"query heads|32 (query )?heads",
            r"(factor|times) (of )?2.{0,40}(keys and values|missing|left out)",
            r"bits|4 bytes|float32",
            r"10\*\*6|megabytes|GiB|KiB",
        ),
        code="""
layers, heads, d_head, context, element_bytes = 32, 32, 128, 4096, 2  # section 3's cell


def quiz_cache_memory():
    return 2 * layers * 8 * d_head * 1024 * element_bytes / 2**20
""",
    ),
    _c(
        "quiz-prints-instead-of-returning",
        L12,
        "quiz_cache_memory",
        "prints the right number (192.0) instead of returning it, so the function returns None.",
        (
            r"\bNone\b.{0,80}(return|print)",
            r"print(s|ed)?\b.{0,60}(instead of|not|rather than) return",
            r"(no|without a|missing|forgot\w*) (the )?return( statement)?",
            r"returns? None|returned None",
        ),
        (
            r"\bstr(ing)?\b.{0,30}unit",
            r"10\*\*6|megabytes|GiB|KiB",
            r"query heads",
            r"bits",
        ),
        code="""
def quiz_cache_memory():
    print(2 * 48 * 8 * 128 * 1024 * 2 / 2**20)
""",
        source=PRINTS_INSTEAD_OF_RETURNING,
    ),
    # ------------------------------------------------------------------ online_softmax
    _c(
        "online-running-max-python-float",
        L12,
        "online_softmax",
        "starts the running maximum as a Python number, float('-inf'), instead of a tensor of "
        "-inf per row: torch.maximum takes tensors only, so the first block raises TypeError "
        "('argument 'input' (position 1) must be Tensor, not float').",
        (
            r"python (float|number|scalar)",
            r"float\(.-inf.\)",
            r"(running max\w*|running_max).{0,80}(not a tensor|a float\b|tensor of -inf)",
            r"torch\.full\(",
            r"one -inf per row",
        ),
        (
            r"starts? at 0\b|initiali[sz]ed? (to|at|with) 0\b",
            r"namedtuple|\.values\b",
            r"block'?s? own max",
            r"math\.exp",
        ),
        edits=[
            (
                'running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
                'running_max = float("-inf")',
            )
        ],
        source=MAXIMUM_OF_PYTHON_FLOAT,
    ),
    _c(
        "online-blocks-by-view",
        L12,
        "online_softmax",
        "cuts the row into blocks with x.view(*x.shape[:-1], -1, block_size) and loops over "
        "them: right when block_size divides the row's length, but otherwise (the last block "
        "shorter) the view raises a RuntimeError (as it does for a non-contiguous x).",
        (
            r"(not )?(a )?multiple of block_size|block_size (does not|doesn't|do not) divide|"
            r"divisible",
            r"\b(view|reshape)\b.{0,80}(blocks?|shorter|divid\w+|multiple)",
            r"(last|final),? (shorter|partial|incomplete) block.{0,80}(view|reshape|raise|error)",
        ),
        (
            r"(skipp\w*|dropp\w*|never visit\w*|left out|missing|ignor\w*).{0,40}"
            r"(last|partial|shorter) block",
            r"modif(y|ies|ied) .{0,20}(x|input)|in place",
            r"softmax.{0,30}(called|forbidden|off limits)",
        ),
        code="""
def online_softmax(x, block_size):
    blocks = x.view(*x.shape[:-1], -1, block_size)  # (..., num_blocks, block_size)
    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
    total = torch.zeros(x.shape[:-1], dtype=x.dtype)
    for number in range(blocks.shape[-2]):
        block = blocks[..., number, :]  # (..., block_size)
        new_max = torch.maximum(running_max, block.amax(dim=-1))
        total = total * torch.exp(running_max - new_max) + torch.exp(
            block - new_max[..., None]
        ).sum(dim=-1)
        running_max = new_max
    return torch.exp(x - running_max[..., None]) / total[..., None]
""",
        source=RESHAPE_NEEDS_MULTIPLE_OF_BLOCK,
    ),
    _c(
        "online-new-axis-after-first",
        L12,
        "online_softmax",
        "adds the column axis with [:, None] instead of [..., None] when subtracting the "
        "maximum and dividing by the sum: for rows of a matrix it is the same, but for a 1-D "
        "x the per-row numbers are 0-D and [:, None] raises IndexError, and for 3-D x the "
        "new axis lands in the middle ((a, 1, b) against (a, b, n): a shape error or wrong "
        "values).",
        (
            r"\[:, ?None\]",
            r"\[\.\.\., ?None\]",
            r"(only|just) (for |with )?(2-D|two-dimensional|matri(x|ces))",
            r"(middle|second) axis.{0,60}(None|new axis|unsqueez\w*)",
        ),
        (
            r"hard.?cod\w+ (a )?2-D|x\.shape\[0\]",
            r"keepdim",
            r"(global|whole.tensor) max",
            r"blocks? over (the )?(rows|first axis)",
        ),
        edits=[
            ("block - new_max[..., None]", "block - new_max[:, None]"),
            (
                "return torch.exp(x - running_max[..., None]) / total[..., None]",
                "return torch.exp(x - running_max[:, None]) / total[:, None]",
            ),
        ],
    ),
    _c(
        "online-squeezes-input",
        L12,
        "online_softmax",
        "starts with x = x.squeeze() (to treat a (1, n) row as a vector) and never restores "
        "the shape: inputs without an axis of size 1 are right, but a (1, n) input comes "
        "back (n,), and a last axis of size 1 is squeezed away so the softmax runs across "
        "the rows instead of over each one-element row.",
        (
            r"squeez\w*",
            r"(axis|axes|dimension|dim)s? of (size|length) (1|one).{0,80}"
            r"(dropped|removed|lost|gone|squeezed)",
            r"(size.1|length.1|singleton) (axis|axes|dimension)s?.{0,60}"
            r"(dropped|removed|lost|gone)",
        ),
        (
            r"unsqueeze\(0\)|left as (one|a) row",
            r"hard.?cod\w+",
            r"without \[\.\.\., ?None\]",
            r"blocks? over (the )?(rows|first axis)",
        ),
        edits=[
            (
                'running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
                "x = x.squeeze()  # (1, n) -> (n,)\n"
                '    running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
            )
        ],
    ),
    # ------------------------------------------------------------------ tiled_attention
    _c(
        "tiled-d-k-from-axis-1",
        L12,
        "tiled_attention",
        "reads d_k as q.shape[1] (scale = 1 / sqrt(q.shape[1])) instead of q.shape[-1]: for "
        "2-D (len_q, d_k) inputs it is d_k, but for batched (batch, heads, len_q, d_k) inputs "
        "it is the number of heads (or of queries), so the scores are scaled wrongly.",
        (
            r"shape\[1\]",
            r"shape\[-1\]|last axis",
            r"(scale|sqrt).{0,80}(heads|num_heads|len_q|second axis|axis 1)",
            r"(only|just) (for |with )?2-D.{0,80}(scale|sqrt)",
        ),
        (
            r"len_k|number of keys|k\.shape\[-2\]",
            r"d_v|v\.shape\[-1\]",
            r"1/d_k\b|1 / d_k\b|without (the )?sqrt",
            r"(no|without( the)?) scal(e|ing)|not (scaled|multiplied)",
        ),
        edits=[
            (
                "scale = 1 / math.sqrt(q.shape[-1])",
                "scale = 1 / math.sqrt(q.shape[1])",
            )
        ],
        source=SCALE_BY_WRONG_DIMENSION,
    ),
    _c(
        "tiled-causal-default-true",
        L12,
        "tiled_attention",
        "declares the flag's default as causal=True instead of False: a call that passes "
        "causal explicitly is right, but a call that leaves it out (the non-causal default "
        "of the contract) computes causal attention.",
        (
            r"default.{0,60}(causal|True)",
            r"causal.{0,40}(defaults?|default value|=True\b)",
            r"(without|no|omit\w*|leav\w+ out) (the )?causal( argument| flag)?.{0,80}"
            r"(causal|masked|True|future)",
        ),
        (
            r"is not None",
            r"bottom.right",
            r"masked_fill.{0,60}(not assigned|discarded|result (dropped|unused))",
            r">=|diagonal",
        ),
        edits=[("block_size: int, causal: bool = False", "block_size: int, causal: bool = True")],
    ),
    _c(
        "tiled-full-score-table",
        L12,
        "tiled_attention",
        "computes the whole (len_q, len_k) table of scores once before the loop "
        "(q @ k.transpose(-2, -1) * scale, masked) and walks blocks of its columns: the "
        "output is exact, but the table the exercise avoids is built anyway, so its memory "
        "grows with len_q * len_k, not with the block.",
        (
            r"(whole|full|entire|complete) .{0,20}(table|matrix) of scores",
            r"\(len_q, ?len_k\) (scores|table|matrix)",
            r"(peak |extra )?memory.{0,100}(quadratic|len_q ?\* ?len_k|square|whole table)",
            r"(scores|q @ k).{0,60}(before|outside) the (loop|blocks)",
        ),
        (
            r"softmax.{0,40}(called|forbidden|off limits)",
            r"F\.scaled_dot_product_attention",
            r"(acc|output|sum|total).{0,40}not rescaled",
            r"block_size.{0,40}(number of blocks|count)",
        ),
        code="""
def tiled_attention(q, k, v, block_size, causal=False):
    len_q, len_k = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    all_scores = q @ k.transpose(-2, -1) * scale  # (..., len_q, len_k)
    if causal:
        future = torch.arange(len_k)[None, :] > torch.arange(len_q)[:, None]
        all_scores = all_scores.masked_fill(future, float("-inf"))
    running_max = torch.full(q.shape[:-1], float("-inf"), dtype=q.dtype)
    total = torch.zeros(q.shape[:-1], dtype=q.dtype)
    acc = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype)
    for start in range(0, len_k, block_size):
        stop = min(start + block_size, len_k)
        scores = all_scores[..., start:stop]  # (..., len_q, block)
        new_max = torch.maximum(running_max, scores.amax(dim=-1))
        correction = torch.exp(running_max - new_max)
        weights = torch.exp(scores - new_max[..., None])
        total = total * correction + weights.sum(dim=-1)
        acc = acc * correction[..., None] + weights @ v[..., start:stop, :]
        running_max = new_max
    return acc / total[..., None]
""",
        source=FULL_SCORES_PER_BLOCK,
    ),
    _c(
        "tiled-query-tiles-local-positions",
        L12,
        "tiled_attention",
        "tiles the queries too (FlashAttention's outer loop, blocks of block_size queries), "
        "but builds the causal mask from the query's index inside its tile "
        "(torch.arange(q_stop - q_start)) instead of its absolute position: the first tile "
        "is right, every later tile's queries are masked as if they were the first queries "
        "and see too few keys; causal=False, or len_q <= block_size, is right.",
        (
            r"quer(y|ies).{0,60}(block|tile)s?.{0,100}(local|from 0|starts? at 0|own index|"
            r"offset|absolute)",
            r"(local|block.local|tile.local) (query )?(positions|indices|index).{0,60}quer",
            r"q_start|query (block|tile)'?s? (start|offset)",
            r"(later|second|other) (query )?(blocks|tiles) of queries",
        ),
        (
            r"(key|keys)'? (positions|indices).{0,40}(local|from 0)|block.local key",
            r"bottom.right",
            r">=|hides? the diagonal",
            r"(acc|output).{0,30}not rescaled",
        ),
        code="""
def tiled_attention(q, k, v, block_size, causal=False):
    len_q, len_k = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    outputs = []
    for q_start in range(0, len_q, block_size):  # tiles of queries
        q_stop = min(q_start + block_size, len_q)
        q_tile = q[..., q_start:q_stop, :]  # (..., tile, d_k)
        running_max = torch.full(q_tile.shape[:-1], float("-inf"), dtype=q.dtype)
        total = torch.zeros(q_tile.shape[:-1], dtype=q.dtype)
        acc = torch.zeros((*q_tile.shape[:-1], v.shape[-1]), dtype=q.dtype)
        query_positions = torch.arange(q_stop - q_start)[:, None]  # (tile, 1)
        for start in range(0, len_k, block_size):
            stop = min(start + block_size, len_k)
            scores = q_tile @ k[..., start:stop, :].transpose(-2, -1) * scale
            if causal:
                future = torch.arange(start, stop)[None, :] > query_positions
                scores = scores.masked_fill(future, float("-inf"))
            new_max = torch.maximum(running_max, scores.amax(dim=-1))
            correction = torch.exp(running_max - new_max)
            weights = torch.exp(scores - new_max[..., None])
            total = total * correction + weights.sum(dim=-1)
            acc = acc * correction[..., None] + weights @ v[..., start:stop, :]
            running_max = new_max
        outputs.append(acc / total[..., None])
    return torch.cat(outputs, dim=-2)  # (..., len_q, d_v)
""",
    ),
    # ------------------------------------------------------------------ sliding_window_mask
    _c(
        "sw-or-instead-of-and",
        L12,
        "sliding_window_mask",
        "combines the look-ahead mask and the band of recent keys with | instead of &: the "
        "band triu(ones, 1 - window) already holds every later key, so their union is all "
        "True and every query sees every key, past and future, whatever the window.",
        (
            r"\|.{0,40}(instead of|not|rather than).{0,10}&",
            r"\bor\b.{0,40}(instead of|not|rather than).{0,10}\band\b",
            r"union.{0,60}(instead of|not|rather than).{0,30}intersection",
            r"(both|the two) masks.{0,60}(&|\band\b|intersect\w*)",
        ),
        (
            r"(no|without|forgot\w*|missing) (the )?(look.?ahead|causal)( mask| part)?",
            r"python'?s? .?and|`and`",
            r"transposed|\.T\b",
            r"both sides|symmetric|two.sided",
        ),
        edits=[("return look_ahead_mask(size) & recent", "return look_ahead_mask(size) | recent")],
        source=WINDOW_MASKS_OR_AND,
    ),
    _c(
        "sw-roll-wraps-around",
        L12,
        "sliding_window_mask",
        "shifts the look-ahead mask down by window rows with torch.roll to get the keys that "
        "are too old (look_ahead_mask(size) & ~look_ahead_mask(size).roll(window, dims=0)): "
        "roll wraps the last rows around to the top instead of shifting in zeros, so the "
        "rows from window on are right but the first window queries see nothing at all "
        "(and window == size gives an empty mask).",
        (
            r"\broll\w*",
            r"wrap(s|ped|ping)? (a)?round",
            r"(shift\w*) .{0,40}(instead of|not) .{0,20}(roll\w*|wrap\w*)",
        ),
        (
            r"one too (few|narrow|many|wide)|window ?[+-] ?1\b",
            r"leaves? out (the query )?itself|no diagonal",
            r"transposed|\.T\b",
            r"(sees?|lets? through|attends? to) .{0,20}(the )?future|not causal",
        ),
        code="""
def sliding_window_mask(size, window):
    causal = look_ahead_mask(size)  # (size, size)
    too_old = causal.roll(window, dims=0)  # row i: the keys j <= i - window
    return causal & ~too_old
""",
    ),
]
