"""Held-out wrong answers for lessons 12, blind round 13 (helper r13e, 2026-11-27):
mistakes new to the benchmark, written while the checks' mutation-based diagnosis was being
built, and judged before and after it. 24 cases over the seven exercises; eleven transpose
a mistake reported in public (the URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L12 = "12_inference"

# The reports these cases transpose (each read with the search tool for this benchmark).
KV_LAYOUT_SEQ_SECOND = "https://github.com/ByteDance-Seed/VeOmni/pull/162"
SQUEEZE_BATCH_OF_ONE = "https://github.com/NVIDIA/DeepLearningExamples/pull/765"
CAT_DEFAULT_DIM = "https://github.com/torch/DEPRECEATED-torch7-distro/issues/128"
SOFTMAX_IMPLICIT_DIM = "https://github.com/lucasjinreal/pytorch_chatbot/issues/4"
KV_SIZE_EXTRA_HEADS = "https://github.com/jranaraki/vllm-fit/issues/2"
WHY_NOT_CACHE_QUERIES = "https://abhinav.maoverse.xyz/blog/llm-kv-cache-why-not-query"
IF_ON_TENSOR = "https://github.com/nerfstudio-project/nerfstudio/pull/1891"
FLAG_NONE_VS_FALSE = "https://github.com/slothy-optimizer/slothy/pull/8"
MASK_BOOLEAN_INDEX = "https://github.com/lishaoxu1994/DiffStyler/issues/2"
CHUNK_COUNT_NOT_SIZE = "https://github.com/pytorch/pytorch/pull/61097"
AND_ON_TENSORS = "https://github.com/Atcold/pytorch-CortexNet/issues/10"

_c = held_out_authored("blind13e")

BLIND13E: list[Case] = [
    # ------------------------------------------------------------------ KVCache
    _c(
        "kv-buffers-named-k-cache",
        L12,
        "KVCache",
        "registers the two buffers as k_cache and v_cache (gpt-fast's names) instead of keys "
        "and values: everything it returns is right, but the cache has no keys or values "
        "buffer for the code that reads them (the lesson's memory cell sums c.keys.nbytes).",
        (
            r"k_cache",
            r"(no|without|missing|lacks?)\W{0,3}(a )?['`]?keys['`]?.{0,40}buffer",
            r"buffers?.{0,40}(named|called|names?).{0,20}['`]?keys",
            r"no attribute '?keys",
        ),
        (r"persistent=True|land in the state.?dict", r"ignor\w* (the )?dtype", r"Parameter"),
        code="""
        class KVCache(nn.Module):
            def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
                super().__init__()
                shape = (batch, num_heads, max_len, d_head)
                self.register_buffer("k_cache", torch.zeros(shape, dtype=dtype), persistent=False)
                self.register_buffer("v_cache", torch.zeros(shape, dtype=dtype), persistent=False)
                self.length = 0

            def forward(self, k_new, v_new):
                start, stop = self.length, self.length + k_new.shape[-2]
                if stop > self.k_cache.shape[-2]:
                    raise ValueError(f"the cache holds {self.k_cache.shape[-2]} positions")
                self.k_cache[:, :, start:stop] = k_new
                self.v_cache[:, :, start:stop] = v_new
                self.length = stop
                return self.k_cache[:, :, :stop], self.v_cache[:, :, :stop]
        """,
    ),
    _c(
        "kv-input-transposed-as-seq-second",
        L12,
        "KVCache",
        "takes k_new and v_new to be (batch, n, num_heads, d_head), the projections' layout "
        "before the heads are split, and transposes them (transpose(1, 2)) before storing: "
        "with the contract's (batch, num_heads, n, d_head) the heads and positions axes are "
        "exchanged, so the length advances by num_heads per call and the stored keys mix heads "
        "and positions (a shape error unless n is 1 or num_heads).",
        (
            r"transpos",
            r"(heads?|positions?) (and|with) (the )?(positions?|heads?) (axes )?(swapped|exchanged)",
            r"\(batch, n, num_heads, d_head\)",
            r"(heads|positions)-second",
        ),
        (r"k_new\.shape\[1\]", r"never advanc", r"returns? the whole buffer"),
        edits=[
            (
                "        start, stop = self.length, self.length + k_new.shape[-2]\n",
                "        k_new, v_new = k_new.transpose(1, 2), v_new.transpose(1, 2)\n"
                "        start, stop = self.length, self.length + k_new.shape[-2]\n",
            )
        ],
        source=KV_LAYOUT_SEQ_SECOND,
    ),
    _c(
        "kv-positions-kept-in-python-list",
        L12,
        "KVCache",
        "keeps the new positions in Python lists and returns their torch.cat along the "
        "positions, leaving the registered keys and values buffers all zeros: the returned "
        "keys and values are right, but nothing is ever written into the buffers (and the "
        "cache keeps references to the caller's tensors, not copies).",
        (
            r"buffers?.{0,80}(never|not|still|stay|remain)\w* (written|filled|updated|hold|"
            r"contain|stored|zeros?)",
            r"(all )?zeros?.{0,40}(in|of) (the |its )?buffers?",
            r"python list",
            r"nothing (is )?(written|stored) (in|into) (the )?buffer",
        ),
        (r"returns? the whole buffer", r"persistent", r"never advanc"),
        code="""
        class KVCache(nn.Module):
            def __init__(self, batch, num_heads, max_len, d_head, dtype=torch.float32):
                super().__init__()
                shape = (batch, num_heads, max_len, d_head)
                self.register_buffer("keys", torch.zeros(shape, dtype=dtype), persistent=False)
                self.register_buffer("values", torch.zeros(shape, dtype=dtype), persistent=False)
                self.length = 0
                self.stored_keys, self.stored_values = [], []

            def forward(self, k_new, v_new):
                stop = self.length + k_new.shape[-2]
                if stop > self.keys.shape[-2]:
                    raise ValueError(f"the cache holds {self.keys.shape[-2]} positions")
                self.stored_keys.append(k_new)
                self.stored_values.append(v_new)
                self.length = stop
                return torch.cat(self.stored_keys, dim=2), torch.cat(self.stored_values, dim=2)
        """,
    ),
    # ------------------------------------------------------------------ generate
    _c(
        "gen-step-logits-squeezed",
        L12,
        "generate",
        "drops the length axis of each step's logits with .squeeze() instead of [:, -1]: with "
        "several sequences that gives (batch, vocab), but with a batch of one the batch axis "
        "goes too, (vocab,), so the argmax is a (1,) tensor and the concatenation with ids "
        "raises (one new token, which needs no step, is right).",
        (
            r"squeeze",
            r"(drops?|removes?|loses?|squeezes? away) the batch (axis|dimension)",
            r"batch (axis|dimension).{0,40}(dropped|removed|lost|squeezed)",
        ),
        (r"keepdim", r"\bstart=", r"\[:, ?-1:\]"),
        edits=[
            (
                "logits = model(next_id, caches=caches, start=length + step)[:, -1]",
                "logits = model(next_id, caches=caches, start=length + step).squeeze()",
            )
        ],
        source=SQUEEZE_BATCH_OF_ONE,
    ),
    _c(
        "gen-returns-logits-then-ids",
        L12,
        "generate",
        "returns the pair in the wrong order, (logits, ids) instead of (ids, logits): the "
        "tokens and logits are right, but a caller that unpacks ids, logits gets the float "
        "logits as ids.",
        (
            r"(wrong|reverse[d]?|swapped|other) order",
            r"\(logits, ids\)",
            r"(ids|tokens).{0,40}logits.{0,40}(swapped|exchanged|the other way)",
            r"logits (first|before (the )?ids)",
        ),
        (
            r"without the prompt|prompt (is )?(missing|left out)",
            r"probabilit",
            r"(stack|axis) 0|\(max_new_tokens, batch",
        ),
        edits=[("return ids, torch.stack(steps, dim=1)", "return torch.stack(steps, dim=1), ids")],
    ),
    _c(
        "gen-new-caches-arguments-swapped",
        L12,
        "generate",
        "calls model.new_caches(length + max_new_tokens, batch), the two arguments swapped: "
        "the caches are made for len + max_new_tokens sequences of `batch` positions, so the "
        "prefill overflows them (ValueError) or fails in the cache's write.",
        (
            r"new_caches.{0,80}(order|swapped|exchanged|the wrong way|other's place)",
            r"(batch|max_len).{0,60}(swapped|exchanged|other's place|wrong order)",
            r"new_caches\(\s*(len|length) ?\+ ?max_new_tokens, ?batch\)",
        ),
        (
            r"(sized|room) for the prompt only|prompt's length only",
            r"max_new_tokens only|forgetting the prompt",
            r"batch (of )?1\b|one sequence",
        ),
        edits=[
            (
                "caches = model.new_caches(batch, length + max_new_tokens)",
                "caches = model.new_caches(length + max_new_tokens, batch)",
            )
        ],
    ),
    _c(
        "gen-cat-without-dim",
        L12,
        "generate",
        "appends each new token with torch.cat([ids, next_id]), without dim=1: torch.cat "
        "joins along dim 0 (the batch), which raises for any prompt longer than one token "
        "and stacks the tokens as new rows for a one-token prompt.",
        (
            r"torch\.cat.{0,80}(dim=1|dim ?1\b|axis 1|without dim|default dim|no dim)",
            r"(concatenat|cat\b|joins?)\w*.{0,60}(batch axis|dim(ension)? 0|axis 0|as new rows)",
        ),
        (r"keepdim", r"\bsqueeze", r"unsqueeze"),
        edits=[("ids = torch.cat([ids, next_id], dim=1)", "ids = torch.cat([ids, next_id])")],
        source=CAT_DEFAULT_DIM,
    ),
    # ------------------------------------------------------------------ grouped_query_attention
    _c(
        "gqa-repeat-interleave-without-dim",
        L12,
        "grouped_query_attention",
        "calls k.repeat_interleave(group) and v.repeat_interleave(group) without dim=1: "
        "without a dim repeat_interleave flattens the tensor, so the keys and values become "
        "1-D and the attention fails (even when the group is 1).",
        (
            r"repeat_interleave.{0,80}(dim|axis)",
            r"flatten",
            r"\b1-?D\b|one-dimensional",
        ),
        (r"\.repeat\(|\btiles?\b|h % num_kv_heads", r"(position|length) axis|dim=2", r"dim=0"),
        edits=[
            ("k = k.repeat_interleave(group, dim=1)", "k = k.repeat_interleave(group)"),
            ("v = v.repeat_interleave(group, dim=1)", "v = v.repeat_interleave(group)"),
        ],
    ),
    _c(
        "gqa-softmax-implicit-dim",
        L12,
        "grouped_query_attention",
        "writes the attention by hand and calls F.softmax(scores) without dim: on a 4-D "
        "tensor PyTorch's implicit choice is dim=1, the heads axis, so each score is "
        "normalised across the heads instead of across the keys.",
        (
            r"softmax.{0,60}(without|no|missing|implicit).{0,20}dim",
            r"softmax.{0,80}(over|across|along) (the )?heads",
            r"softmax.{0,60}dim=1\b",
            r"implicit dim",
        ),
        (
            r"(query|queries) axis|dim=-2",
            r"not (divided|scaled) by|no scale|missing.{0,20}sqrt",
            r"mask.{0,40}(invert|ignored|never applied)",
        ),
        code="""
        import torch.nn.functional as F


        def grouped_query_attention(q, k, v, mask=None):
            group = q.shape[1] // k.shape[1]
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            weights = F.softmax(scores)
            return weights @ v
        """,
        source=SOFTMAX_IMPLICIT_DIM,
    ),
    _c(
        "gqa-per-head-loop-mask-indexed-by-head",
        L12,
        "grouped_query_attention",
        "loops over the query heads and takes each head's mask as mask[:, head], as if the "
        "mask always had num_heads heads: right without a mask or with a full (batch, "
        "num_heads, len_q, len_k) mask, but a mask whose head axis is 1 (broadcast) raises an "
        "IndexError from head 1 on, and a 2-D (len_q, len_k) mask's [:, head] picks a column.",
        (
            r"mask\[:, ?h(ead)?\]",
            r"index\w* the mask.{0,40}head",
            r"mask.{0,60}head axis.{0,40}(of )?(size )?1",
        ),
        (
            r"mask.{0,40}(ignored|never applied|dropped|not passed)",
            r"invert",
            r"repeat\w*.{0,20}(the )?mask",
        ),
        code="""
        def grouped_query_attention(q, k, v, mask=None):
            group = q.shape[1] // k.shape[1]
            outputs = []
            for head in range(q.shape[1]):
                head_mask = None if mask is None else mask[:, head]
                output, _ = scaled_dot_product_attention(
                    q[:, head], k[:, head // group], v[:, head // group], head_mask
                )
                outputs.append(output)
            return torch.stack(outputs, dim=1)
        """,
    ),
    _c(
        "gqa-mask-head-axis-always-inserted",
        L12,
        "grouped_query_attention",
        "always inserts a head axis into the mask (mask.unsqueeze(1)), as for a (batch, "
        "len_q, len_k) mask: a 4-D mask becomes 5-D, which broadcasts the output to 5-D, and "
        "a 2-D (len_q, len_k) mask becomes (len_q, 1, len_k), its query axis against the "
        "heads (an error, or the wrong rows masked); right without a mask.",
        (
            r"unsqueeze",
            r"(extra|added|inserts?|new) (head )?(axis|dimension).{0,40}mask",
            r"mask.{0,60}(5-?D|five dimensions|extra axis|added axis)",
        ),
        (
            r"mask.{0,40}(ignored|never applied|dropped|not passed)",
            r"invert",
            r"padding mask|\(batch, len_k\)",
            r"repeat\w*.{0,20}(the )?mask",
        ),
        edits=[
            (
                "output, _ = scaled_dot_product_attention(q, k, v, mask)",
                "output, _ = scaled_dot_product_attention(\n"
                "        q, k, v, None if mask is None else mask.unsqueeze(1)\n"
                "    )",
            )
        ],
    ),
    # ------------------------------------------------------------------ quiz_cache_memory
    _c(
        "quiz-kv-heads-times-model-width",
        L12,
        "quiz_cache_memory",
        "multiplies the 8 key/value heads by the model's width, 32 · 128 = 4096, instead of "
        "d_head = 128 (an extra factor of the 32 query heads): 6144 MiB, 32 times the cache.",
        (
            r"d_model|model'?s? width|hidden size",
            r"4096",
            r"extra factor (of )?32",
            r"(both|and) the (32 )?query heads.{0,40}(and|as well as) the (8 )?key",
        ),
        (
            r"query heads instead of",
            r"10\*\*6|decimal|megabytes",
            r"bits|16 bytes",
            r"GiB|KiB",
        ),
        edits=[("2 * 48 * 8 * 128 * 1024 * 2", "2 * 48 * 8 * (32 * 128) * 1024 * 2")],
        source=KV_SIZE_EXTRA_HEADS,
    ),
    _c(
        "quiz-queries-cached-too",
        L12,
        "quiz_cache_memory",
        "caches the queries as well as the keys and values (32 query heads plus 8 key heads "
        "plus 8 value heads, instead of 2 × 8): 576 MiB, three times the cache.",
        (
            r"quer(y|ies).{0,60}(are )?(not|never) cached",
            r"(cach|stor)\w* (the )?quer(y|ies)",
            r"only (the )?keys and values",
        ),
        (
            r"query heads instead of",
            r"factor (of )?2.{0,40}(missing|forgot|left out)",
            r"bits|megabytes|GiB|KiB",
        ),
        edits=[("2 * 48 * 8 * 128 * 1024 * 2", "(32 + 8 + 8) * 48 * 128 * 1024 * 2")],
        source=WHY_NOT_CACHE_QUERIES,
    ),
    _c(
        "quiz-string-with-unit",
        L12,
        "quiz_cache_memory",
        "returns the answer as a string with its unit, '192 MiB', instead of the number 192.",
        (
            r"\bstr(ing)?\b",
            r"not a number|a number, not",
            r"(drop|without|leave out) the unit",
        ),
        (r"GiB|KiB|megabytes|bits", r"query heads"),
        code="""
        def quiz_cache_memory():
            return "192 MiB"
        """,
    ),
    # ------------------------------------------------------------------ online_softmax
    _c(
        "os-block-rebinds-x",
        L12,
        "online_softmax",
        "reuses the name x for each block (x = x[..., start : start + block_size]): from the "
        "second block on it slices the previous block instead of the input (an empty block, on "
        "which amax raises), and the final exp(x - m) covers the last block only: right only "
        "when one block covers the row.",
        (
            r"\bx\b.{0,40}(overwrit|reassign|rebound|rebind|shadow|replaced)",
            r"(overwrit|reassign|rebind|shadow)\w*.{0,40}\bx\b",
            r"slic\w* the previous block",
        ),
        (
            r"stop (is )?not offset|start ?: ?block_size\]",
            r"(last|partial|shorter) block.{0,40}(dropped|skipped|never)",
            r"blocks? over (the )?(first axis|rows)",
        ),
        code="""
        def online_softmax(x, block_size):
            running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
            total = torch.zeros(x.shape[:-1], dtype=x.dtype)
            for start in range(0, x.shape[-1], block_size):
                x = x[..., start : start + block_size]  # this block
                new_max = torch.maximum(running_max, x.amax(dim=-1))
                total = total * torch.exp(running_max - new_max) + torch.exp(
                    x - new_max[..., None]
                ).sum(dim=-1)
                running_max = new_max
            return torch.exp(x - running_max[..., None]) / total[..., None]
        """,
    ),
    _c(
        "os-accumulators-shaped-like-x",
        L12,
        "online_softmax",
        "allocates the running maximum and sum like x itself (torch.full_like(x, -inf), "
        "torch.zeros_like(x)), shape (..., n), instead of one number per row (x.shape[:-1]): "
        "the per-row maxima and sums broadcast against the column axis, so a 1-D x comes back "
        "(n, n) and rows raise a shape error (or are wrong when rows == columns).",
        (
            r"full_like|zeros_like",
            r"(running|accumulat)\w*.{0,60}(shape|shaped|sized) (like|as) (x|the input)",
            r"x\.shape\[:-1\]",
            r"one (number|value) per row",
        ),
        (
            r"\[\.\.\., ?None\]|unsqueez",
            r"keepdim",
            r"\.sum\(\)|sum\w* without dim",
        ),
        edits=[
            (
                'running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)',
                'running_max = torch.full_like(x, float("-inf"))',
            ),
            ("total = torch.zeros(x.shape[:-1], dtype=x.dtype)", "total = torch.zeros_like(x)"),
        ],
    ),
    _c(
        "os-rescale-under-python-if",
        L12,
        "online_softmax",
        "rescales only when the maximum grew, tested with a Python if (if block_max > "
        "running_max:): right for a 1-D x, where the comparison is one number, but for "
        "several rows the comparison is a tensor of booleans and `if` raises RuntimeError.",
        (
            r"python (if|bool)",
            r"\bif\b[^.]{0,40}(on|of|with) a (bool(ean)? )?tensor",
            r"torch\.where",
            r"(per|each) row.{0,60}\bif\b|\bif\b.{0,60}(per|each) row",
        ),
        (
            r"math\.exp",
            r"blocks? over (the )?(rows|first axis)",
            r"hard-?cod\w* (a )?[12]-?D",
        ),
        code="""
        def online_softmax(x, block_size):
            running_max = torch.full(x.shape[:-1], float("-inf"), dtype=x.dtype)
            total = torch.zeros(x.shape[:-1], dtype=x.dtype)
            for start in range(0, x.shape[-1], block_size):
                block = x[..., start : start + block_size]
                block_max = block.amax(dim=-1)
                if block_max > running_max:  # the maximum grew: rescale what was summed
                    total = total * torch.exp(running_max - block_max)
                    running_max = block_max
                total = total + torch.exp(block - running_max[..., None]).sum(dim=-1)
            return torch.exp(x - running_max[..., None]) / total[..., None]
        """,
        source=IF_ON_TENSOR,
    ),
    # ------------------------------------------------------------------ tiled_attention
    _c(
        "tiled-causal-flag-tested-is-not-none",
        L12,
        "tiled_attention",
        "tests the flag with `if causal is not None:` instead of `if causal:`, so causal=False "
        "(the default) is masked too: every call computes causal attention.",
        (
            r"is not None",
            r"(masks?|masked|causal mask).{0,60}(even|also) (when|with) causal=False",
            r"causal=False.{0,60}(is|was|gets?|still) (masked|causal)",
            r"(always|every call).{0,40}(causal|masks?)",
        ),
        (
            r"bottom.right|len_k - len_q",
            r"block-?local|local to the block",
            r"diagonal|j >= i",
        ),
        edits=[("        if causal:\n", "        if causal is not None:\n")],
        source=FLAG_NONE_VS_FALSE,
    ),
    _c(
        "tiled-values-sliced-on-last-axis",
        L12,
        "tiled_attention",
        "slices the value block as v[..., start:stop], which cuts the last axis (d_v) instead "
        "of the key axis (v[..., start:stop, :]): the product with the weights fails as soon "
        "as there is more than one block (and is right only when one block covers every key "
        "and d_v <= len_k).",
        (
            r"v\[\.\.\., ?start ?: ?stop\]",
            r"(value|\bv\b)\w*.{0,60}(last axis|d_v axis|feature axis)",
            r"slic\w*.{0,60}(d_v|last axis)",
        ),
        (
            r"first axis|k\[start",
            r"zeros_like\(v\)|sized d_k",
            r"keys as values|weights @ k",
        ),
        edits=[("weights @ v[..., start:stop, :]", "weights @ v[..., start:stop]")],
    ),
    _c(
        "tiled-mask-by-boolean-index",
        L12,
        "tiled_attention",
        "masks the future with boolean indexing, scores[future] = -inf: the (len_q, block) "
        "mask indexes the leading axes of scores, so 2-D inputs are right but batched "
        "(..., len_q, d_k) inputs raise an IndexError (masked_fill, or scores[..., future], "
        "broadcasts over the leading axes).",
        (
            r"scores\[future\]",
            r"boolean index",
            r"mask.{0,60}(leading|batch|first) (axes|dimensions)",
            r"(leading|batch|first) (axes|dimensions).{0,60}mask",
        ),
        (
            r"not in place|result (is )?(dropped|discarded|not assigned)",
            r"bottom.right",
            r"block-?local",
            r"fills? (with )?(0|zero)",
        ),
        edits=[
            (
                'scores = scores.masked_fill(future, float("-inf"))',
                'scores[future] = float("-inf")',
            )
        ],
        source=MASK_BOOLEAN_INDEX,
    ),
    _c(
        "tiled-block-size-read-as-count",
        L12,
        "tiled_attention",
        "reads block_size as the number of blocks (as torch.chunk's argument) and walks the "
        "keys in steps of len_k // block_size: the output is right while block_size <= len_k, "
        "but the blocks are not block_size keys long (their memory grows with len_k), and "
        "block_size > len_k gives a step of 0, on which range raises ValueError.",
        (
            r"number of blocks",
            r"len_k ?// ?block_size",
            r"block_size.{0,40}(as|is|taken for) (a|the) (count|number)",
        ),
        (
            r"(last|partial|shorter) block.{0,40}(dropped|skipped|never)",
            r"range\(0, len_q",
            r"start \+ block_size",
        ),
        edits=[
            (
                "    for start in range(0, len_k, block_size):\n"
                "        stop = min(start + block_size, len_k)\n",
                "    step = len_k // block_size  # block_size blocks\n"
                "    for start in range(0, len_k, step):\n"
                "        stop = min(start + step, len_k)\n",
            )
        ],
        source=CHUNK_COUNT_NOT_SIZE,
    ),
    # ------------------------------------------------------------------ sliding_window_mask
    _c(
        "sw-python-and",
        L12,
        "sliding_window_mask",
        "combines the two masks with Python's `and` instead of the element-wise `&`: for a "
        "1×1 mask it returns the band (right), for any larger size `and` asks for the truth "
        "value of a whole tensor and raises RuntimeError.",
        (
            r"\band\b['`]? (instead of|rather than|in place of)",
            r"python'?s? ['`]?and\b",
            r"&.{0,40}(instead of|not|rather than).{0,10}['`]?\band\b",
            r"`and`",
        ),
        (r"float", r"numpy", r"`-`|subtract"),
        code="""
        def sliding_window_mask(size, window):
            recent = torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1 - window)
            return look_ahead_mask(size) and recent
        """,
        source=AND_ON_TENSORS,
    ),
    _c(
        "sw-positions-not-broadcast",
        L12,
        "sliding_window_mask",
        "compares query and key positions made by two torch.arange(size) without turning one "
        "into a column ([:, None]): the comparison runs element by element, so it returns a "
        "(size,) vector (each query against itself only) instead of the (size, size) mask.",
        (
            r"\[:, ?None\]",
            r"unsqueeze",
            r"broadcast",
            r"(as )?a column( vector)?",
        ),
        (r"numpy", r"float", r"4-?D|leading axes"),
        code="""
        def sliding_window_mask(size, window):
            i = torch.arange(size)  # query positions
            j = torch.arange(size)  # key positions
            return (j <= i) & (i - j < window)
        """,
    ),
    _c(
        "sw-window-clamped-to-size-minus-one",
        L12,
        "sliding_window_mask",
        "clamps the window to size - 1 (window = min(window, size - 1)), taking the largest "
        "offset for the largest window: right for window < size, but a window of size or more "
        "loses the oldest key of the last query (and a 1×1 mask comes back empty) instead of "
        "giving lesson 06's look-ahead mask.",
        (
            r"size ?- ?1",
            r"clamp",
            r"min\(window",
        ),
        (
            r"all True|torch\.ones|not causal|the future",
            r"one too (few|narrow)|window - 1 keys",
            r"one too (many|wide)",
        ),
        edits=[
            (
                "    recent = torch.triu(",
                "    window = min(window, size - 1)\n    recent = torch.triu(",
            )
        ],
    ),
]
