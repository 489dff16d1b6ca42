"""Held-out wrong answers for lessons 05-06, blind round 17 (helper b17d, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 19's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen (``held_out_authored``
in ``cases.py`` makes each case). 21 cases over the ten exercises and questions; seven
transpose a mistake reported in public (``source=``), the rest are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06 = "05_multi_head_attention", "06_masking"

_c = held_out_authored("blind17d")

# Where these mistakes are reported (each page was read for this batch).
SEQ_FIRST = "https://github.com/pytorch/pytorch/issues/63560"
BMM_3D = "http://www.lryc.cn/news/287819.html"
W_O_IN_FEATURES = "https://github.com/elith-co-jp/book-llm-from-scratch/issues/28"
FIRST_TOKEN_REAL = "https://github.com/StarlightSearch/EmbedAnything/issues/213"
ONE_D_TRANSPOSE = (
    "https://stomioka.github.io/deeplearning/docs/011-a-note-on-python-numpy-vectors.html"
)
BLOCKED_POLARITY = "https://github.com/pytorch/pytorch/pull/120668"
TRIL_DOC = "https://docs.pytorch.org/docs/2.7/generated/torch.tril.html"

BLIND17D: list[Case] = [
    # ------------------------------------------------------------ 05 quiz_head_width
    _c(
        "q-head-width-multiplied",
        L05,
        "quiz_head_width",
        "answers 9216, 768 * 12: multiplies d_model by the number of heads instead of dividing "
        "it, as if each head added its own 768 features; d_k = d_model / h = 768 / 12 = 64.",
        (
            r"9216.{0,80}(multipl|times|\*)",
            r"multipl(y|ied|ies).{0,60}(instead of|rather than|not) divid",
            r"768 \* 12",
        ),
        (r"sentence length|20 tokens", r"square root", r"8 heads|paper's 8"),
        code='''
def quiz_head_width() -> int:
    """Your answer to Question 1: d_k, as a number."""
    return 768 * 12
''',
    ),
    # ------------------------------------------------------------------ 05 split_heads
    _c(
        "split-transpose-one-and-three",
        L05,
        "split_heads",
        "cuts the features correctly into (batch, len, num_heads, d_head) and then swaps axes "
        "1 and 3 (transpose(1, 3), a typo for transpose(1, 2)): the result is (batch, d_head, "
        "num_heads, len), the length on the last axis and d_head on the heads axis.",
        (
            r"transpose\(1, ?3\)",
            r"(axes|dims?) 1 and 3",
            r"\(batch, d_head, num_heads, len",
            r"d_head.{0,40}(on|in) the heads axis",
        ),
        (
            r"reshape (alone|without|straight)",
            r"interleav",
            r"\.mT\b",
            r"(heads|num_heads) before the batch",
        ),
        edits=(
            (
                "d_model // num_heads).transpose(1, 2)",
                "d_model // num_heads).transpose(1, 3)",
            ),
        ),
    ),
    _c(
        "split-chunks-on-batch-then-viewed",
        L05,
        "split_heads",
        "cuts the features into num_heads chunks, concatenates them along the batch axis "
        "(torch.cat(x.chunk(num_heads, -1), dim=0), head-major) and views the result as "
        "(batch, num_heads, len, d_head): right for a batch of one, but with batch > 1 the "
        "view pairs the wrong sequences with the wrong heads (sequence 0's two heads are head 0 "
        "of sequence 0 and head 0 of sequence 1).",
        (
            r"(cat|concatenat)\w*.{0,60}batch (axis|dim)",
            r"head-major",
            r"(mix|swap|exchang|confus)\w*.{0,60}(sequences|batch).{0,40}heads",
            r"heads.{0,40}(of|from) (other|another|different) sequences?",
        ),
        (r"reshape (alone|without|straight)", r"interleav", r"transpose\(1, ?3\)"),
        edits=(
            (
                "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "pieces = torch.cat(x.chunk(num_heads, dim=-1), dim=0)\n"
                "    return pieces.view(batch, num_heads, length, d_model // num_heads)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 05 merge_heads
    _c(
        "merge-sequence-first-output",
        L05,
        "merge_heads",
        "returns the merged heads sequence-first, (len, batch, num_heads * d_head) "
        "(x.permute(2, 0, 1, 3), nn.MultiheadAttention's default batch_first=False layout), "
        "instead of batch-first (batch, len, num_heads * d_head).",
        (
            r"sequence[- ]first",
            r"batch_first",
            r"\(len(gth)?, batch, ",
            r"(batch and (the )?len(gth)?|len(gth)? and (the )?batch).{0,40}(swapped|exchanged|transposed)",
        ),
        (r"interleav", r"reshape (alone|without)", r"not contiguous|\.view"),
        edits=(
            (
                "return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "return x.permute(2, 0, 1, 3).reshape(length, batch, num_heads * d_head)",
            ),
        ),
        source=SEQ_FIRST,
    ),
    _c(
        "merge-no-return",
        L05,
        "merge_heads",
        "computes the merged tensor into a variable and never returns it (no return "
        "statement): the function returns None.",
        (
            r"returns? None",
            r"(no|missing|forgot\w*) return",
            r"return (statement|the result)",
        ),
        (r"interleav", r"transpose\b.{0,30}(missing|forgot)", r"not contiguous"),
        edits=(
            (
                "return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "merged = x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
            ),
        ),
    ),
    # -------------------------------------------------- 05 quiz_cross_attention_shape
    _c(
        "q-cross-shape-none-of-the-options",
        L05,
        "quiz_cross_attention_shape",
        "decides that none of the four options is right (it expects the layout before the "
        "heads are moved, (batch, len_q, num_heads, len_k) = (2, 5, 8, 7)) and returns "
        "'none', where the function must return one of the letters, here 'b' (2, 8, 5, 7).",
        (
            r"one of .{0,5}a.{0,10}b.{0,10}c.{0,10}d",
            r"letter",
            r"none.{0,60}(not|isn't|is not) (a|an) (answer|option|letter)",
        ),
        (r"(rows|row).{0,40}(keys|source)", r"averaged over the heads", r"self-attention"),
        code='''
def quiz_cross_attention_shape() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return "none"
''',
    ),
    # ----------------------------------------------------------- 05 MultiHeadAttention
    _c(
        "mha-merges-values-not-heads",
        L05,
        "MultiHeadAttention",
        "merges the projected values v instead of the attention's output heads "
        "(self.w_o(merge_heads(v))): the attention weights never reach the output, which is "
        "w_o of the values alone, and has len_k rows instead of len_q in cross-attention.",
        (
            r"merge\w*.{0,40}\bv\b.{0,40}(instead of|not).{0,30}(heads|attention output)",
            r"(weights|attention).{0,60}(never|not|do not|don't) (reach|used|affect|applied).{0,40}output",
            r"output.{0,60}(ignores|independent of|without) the (attention )?weights",
            r"values? (themselves|alone|directly).{0,60}(instead of|not|without).{0,40}(weight|attention)",
        ),
        (
            r"w_v\(key\)|values? from key",
            r"dropout (on|applied to) the (values|output)",
            r"mask.{0,30}(ignored|dropped|never)",
            r"sqrt\(d_model\)",
        ),
        edits=(
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return self.w_o(merge_heads(v)), weights",
            ),
        ),
    ),
    _c(
        "mha-queries-keys-swapped-in-call",
        L05,
        "MultiHeadAttention",
        "passes the keys in the queries' place and the queries in the keys' "
        "(scaled_dot_product_attention(k, q, v, mask)): the weights are (len_k, len_q), "
        "transposed, and in cross-attention (len_q != len_k) they cannot multiply v.",
        (
            r"(q|queries) and (k|keys)\b.{0,40}(swapped|exchanged|the wrong way|reversed)",
            r"(k|keys) in the (q|queries)('|’)? place",
            r"\(k, q, v",
            r"scaled_dot_product_attention\(k, q",
        ),
        (
            r"(k|keys) and (v|values).{0,30}(swapped|exchanged)",
            r"values? from key",
            r"sqrt\(d_model\)",
            r"transpos\w* the mask",
        ),
        edits=(
            (
                "heads, weights = scaled_dot_product_attention(q, k, v, mask)",
                "heads, weights = scaled_dot_product_attention(k, q, v, mask)",
            ),
        ),
    ),
    _c(
        "mha-eval-zeroes-dropout-rate",
        L05,
        "MultiHeadAttention",
        "switches dropout off for evaluation by setting self.dropout.p = 0.0 whenever it runs "
        "in eval mode, which changes the module for good: after one eval() call a layer built "
        "with dropout > 0 no longer drops anything in training mode (first training call "
        "right, training after an eval call wrong).",
        (
            r"(sets?|changes?|overwrit\w*|zero\w*).{0,40}(dropout\.p|dropout rate|\bp\b).{0,60}(eval|for good|permanent|later)",
            r"after (an |one )?eval.{0,80}(no longer|never|does not|doesn't) drop",
            r"dropout\.p = 0",
            r"(state|rate).{0,30}(kept|stays|remains).{0,40}(0|zero|off)",
        ),
        (
            r"never applied|built but",
            r"after w_o|on the output",
            r"hard-coded (rate|0\.1)|nn\.Dropout\(0\.1\)",
            r"keep prob",
        ),
        edits=(
            (
                "if self.training and self.dropout.p > 0:",
                "if not self.training:\n"
                "            self.dropout.p = 0.0\n"
                "        if self.training and self.dropout.p > 0:",
            ),
        ),
    ),
    _c(
        "mha-w-o-in-features-times-heads",
        L05,
        "MultiHeadAttention",
        "builds the output projection as nn.Linear(num_heads * d_model, d_model), reading the "
        "paper's W^O (h·d_v × d_model) with d_v = d_model: the merged heads are only "
        "num_heads * d_head = d_model wide, so w_o raises a shape error (and its weight is "
        "not the contract's (d_model, d_model)) unless num_heads == 1.",
        (
            r"w_o.{0,80}(num_heads \* d_model|in_features|input size|\(d_model, d_model\))",
            r"num_heads \* d_model",
            r"w_o.{0,60}(built|sized|created).{0,40}wrong",
            r"h ?[·*x] ?d_v.{0,40}d_v ?= ?d_head",
        ),
        (
            r"before merg",
            r"w_q instead of w_o|through w_q",
            r"fused|in_proj",
            r"no w_o|without (the )?(output projection|w_o)",
        ),
        edits=(
            (
                "self.w_o = nn.Linear(d_model, d_model)",
                "self.w_o = nn.Linear(num_heads * d_model, d_model)",
            ),
        ),
        source=W_O_IN_FEATURES,
    ),
    _c(
        "mha-inline-bmm-on-heads",
        L05,
        "MultiHeadAttention",
        "writes the attention inline with torch.bmm, which multiplies 3-D batches only, on the "
        "4-D (batch, num_heads, len, d_head) heads: it raises inside the learner's line "
        "('batch1 must be a 3D tensor'); @ / torch.matmul broadcasts over both leading axes.",
        (
            r"bmm.{0,120}(3-?D|three).{0,120}(4-?D|four|heads)",
            r"bmm.{0,120}(instead|use|rather).{0,40}(@|matmul)",
            r"(@|matmul).{0,60}(instead of|not|rather than).{0,20}(torch\.)?bmm",
            r"(4-?D|four-dimensional).{0,80}bmm",
        ),
        (r"sqrt\(d_model\)", r"\.T\b", r"softmax over", r"transpos\w* (the )?(keys|k)\b"),
        edits=(
            (
                "heads, weights = scaled_dot_product_attention(q, k, v, mask)",
                "scores = torch.bmm(q, k.transpose(-2, -1)) / q.shape[-1] ** 0.5\n"
                "        if mask is not None:\n"
                "            scores = scores.masked_fill(~mask, float('-inf'))\n"
                "        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)\n"
                "        heads = torch.bmm(weights, v)",
            ),
        ),
        source=BMM_3D,
    ),
    _c(
        "mha-inline-merge-with-key-length",
        L05,
        "MultiHeadAttention",
        "merges the heads inline with the keys' length, heads.transpose(1, 2).reshape(batch, "
        "key.shape[1], d_model): right in self-attention, a RuntimeError inside the learner's "
        "reshape in cross-attention, where the output has len_q rows, not len_k.",
        (
            r"(key|len_k)('s)? length.{0,80}(merg|reshape|output)",
            r"(merg|reshape)\w*.{0,80}(len_k|key\.shape\[1\]|keys'? length)",
            r"output.{0,40}len_q (rows|positions).{0,40}not len_k",
        ),
        (
            r"values? from key|w_v\(key\)",
            r"keys? (and values? )?from query",
            r"split\w*.{0,40}query('s)? length",
        ),
        edits=(
            (
                "return self.w_o(merge_heads(heads)), weights",
                "batch, len_k = key.shape[0], key.shape[1]\n"
                "        merged = heads.transpose(1, 2).reshape(batch, len_k, self.d_model)\n"
                "        return self.w_o(merged), weights",
            ),
        ),
    ),
    _c(
        "mha-returns-first-head-weights",
        L05,
        "MultiHeadAttention",
        "returns only the first head's weights, weights[:, 0], (batch, len_q, len_k), "
        "instead of every head's (batch, num_heads, len_q, len_k): right in value for that "
        "head, but the heads axis is gone and the other heads' weights are lost.",
        (
            r"(first|one|single) head('s)? (weights|only)",
            r"weights\[:, ?0\]",
            r"head 0('s)? weights",
            r"only head 0",
        ),
        (r"averag|mean", r"keepdim", r"squeez", r"weights first|\(weights, output\)"),
        edits=(
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return self.w_o(merge_heads(heads)), weights[:, 0]",
            ),
        ),
    ),
    # ---------------------------------------------------- 06 quiz_fully_masked_row
    _c(
        "q-fully-masked-letter-with-reason",
        L06,
        "quiz_fully_masked_row",
        "returns the right letter together with its reason, ('b', 'the query attends to "
        "nothing'), a tuple, where the function must return the letter 'b' alone.",
        (
            r"tuple",
            r"(letter|'b') alone",
            r"(only|just) the letter",
            r"a (single )?string",
        ),
        (r"\bNaN\b.{0,40}(wrong|not)", r"uniform", r"own position"),
        code='''
def quiz_fully_masked_row() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return ("b", "the query attends to nothing")
''',
    ),
    # ---------------------------------------------------------------- 06 padding_mask
    _c(
        "padmask-first-position-always-real",
        L06,
        "padding_mask",
        "marks position 0 of every row as real whatever it holds (mask[:, 0] = True, assuming "
        "each row starts with <bos> and to avoid fully masked rows): right for right padding, "
        "but a left-padded row's first pad (and an all-pad row's first position) is marked "
        "True.",
        (
            r"(position|column|token|index) 0.{0,80}(always|forced|marked).{0,30}(True|real)",
            r"(first|leading) (position|column|token|pad).{0,80}(always|marked|forced).{0,30}(True|real)",
            r"left[- ]pad\w*.{0,80}(first|position 0).{0,40}(True|real)",
        ),
        (
            r"pad_id.{0,30}(0|zero|hard)",
            r"query axis",
            r"invert|== pad_id",
            r"(all|every) position.{0,30}all-pad",
        ),
        edits=(
            (
                "return (ids != pad_id)[:, None, None, :]",
                "real = ids != pad_id\n    real[:, 0] = True\n    return real[:, None, None, :]",
            ),
        ),
        source=FIRST_TOKEN_REAL,
    ),
    _c(
        "padmask-five-axes",
        L06,
        "padding_mask",
        "indexes with one None too many, [:, None, None, None, :], giving a 5-D "
        "(batch, 1, 1, 1, len) mask instead of (batch, 1, 1, len).",
        (
            r"5-?D|five (axes|dim)",
            r"one (axis|None|dim\w*) too many",
            r"\(batch, 1, 1, 1, len",
            r"(extra|third) (axis|None)",
        ),
        (
            r"query axis",
            r"invert",
            r"expanded to \(batch, 1, len, len\)",
            r"3-?D|head axis (is )?missing",
        ),
        edits=(
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return (ids != pad_id)[:, None, None, None, :]",
            ),
        ),
    ),
    # ------------------------------------------------------------- 06 look_ahead_mask
    _c(
        "lookahead-dot-T-on-1d-arange",
        L06,
        "look_ahead_mask",
        "compares torch.arange(size) <= torch.arange(size).T, expecting .T to turn the 1-D "
        "positions into a column: .T leaves a 1-D tensor unchanged, so the comparison is "
        "element-wise and returns a 1-D (size,) vector of True instead of the (size, size) "
        "triangle.",
        (
            r"\.T\b.{0,80}(1-?D|one-dimensional|no effect|unchanged|does nothing|not a column)",
            r"(1-?D|one-dimensional).{0,80}(\.T|column)",
            r"column.{0,60}(unsqueeze|\[:, ?None\])",
        ),
        (r"triu|upper", r"diagonal", r"float (mask|tensor|ones)", r"leading axis|\(1, size"),
        edits=(
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))  # (size, size)",
                "positions = torch.arange(size)\n    return positions <= positions.T",
            ),
        ),
        source=ONE_D_TRANSPOSE,
    ),
    _c(
        "lookahead-tril-result-dropped",
        L06,
        "look_ahead_mask",
        "calls torch.tril(mask) on a line of its own and returns mask: torch.tril returns a "
        "new tensor (it is not in place), so the all-True square comes back unchanged and "
        "every query sees every key.",
        (
            r"tril.{0,80}(not in[- ]place|returns a new|result (is )?(dropped|discarded|not kept|never kept))",
            r"(result|return value) of .{0,20}tril.{0,40}(dropped|discarded|not (kept|assigned|used))",
            r"tril_\(\)|mask = torch\.tril",
        ),
        (
            r"diagonal=|second argument",
            r"triu|upper",
            r"float (mask|tensor|ones)",
            r"torch\.empty|uninitiali",
        ),
        edits=(
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))  # (size, size)",
                "mask = torch.ones(size, size, dtype=torch.bool)\n    torch.tril(mask)\n    return mask",
            ),
        ),
        source=TRIL_DOC,
    ),
    # -------------------------------------------------- 06 decoder_self_attention_mask
    _c(
        "decmask-returned-blocked-polarity",
        L06,
        "decoder_self_attention_mask",
        "combines the two masks correctly and then inverts the result, "
        "~(padding & look-ahead), to hand nn.Transformer its True = blocked convention: every "
        "entry is the opposite of the course's True = may attend (pads and future keys True, "
        "allowed past keys False).",
        (
            r"(invert|negat|opposite|flipped|~).{0,80}(whole|combined|result|entire|every entry)",
            r"True ?= ?(blocked|not allowed|masked)",
            r"(polarity|convention).{0,40}(invert|opposite|reversed)",
            r"nn\.Transformer('s)?.{0,40}(convention|polarity)",
        ),
        (
            r"\|.{0,20}instead of &|\bor\b.{0,20}instead",
            r"query axis|pad (rows|queries)",
            r"look-ahead (part )?(only )?inverted",
            r"xor",
        ),
        edits=(
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "return ~(padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1]))",
            ),
        ),
        source=BLOCKED_POLARITY,
    ),
    _c(
        "decmask-matmul-instead-of-and",
        L06,
        "decoder_self_attention_mask",
        "combines the two masks with @ (matrix product) instead of & (element-wise AND): "
        "matmul is not implemented for bool tensors, so it raises a RuntimeError "
        "('addmm_impl_cpu_' not implemented for 'Bool') in the learner's line.",
        (
            r"@.{0,60}(instead of|not|rather than).{0,20}&",
            r"matri(x|ces) (product|multipl)\w*.{0,60}(instead of|not|rather than).{0,40}(&|element-?wise|AND)",
            r"(use|needs?) & .{0,40}element-?wise",
        ),
        (
            r"\|.{0,20}instead of &",
            r"\band\b.{0,20}instead of &|python('s)? and",
            r"xor|\^",
            r"float (triangle|mask)",
        ),
        edits=(
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "return padding_mask(tgt_ids, pad_id) @ look_ahead_mask(tgt_ids.shape[1])",
            ),
        ),
    ),
    # -------------------------------------------------------------- 06 quiz_which_mask
    _c(
        "q-which-mask-returns-dict",
        L06,
        "quiz_which_mask",
        "returns a dict mapping each layer to its mask ({'encoder': 'padding_mask(src)', "
        "'decoder': 'decoder_self_attention_mask(tgt)', 'cross': 'padding_mask(src)'}), the "
        "right masks, instead of the letter of that option, 'c'.",
        (
            r"\bdict",
            r"letter",
            r"one of .{0,5}a.{0,10}b.{0,10}c.{0,10}d",
        ),
        (r"cross-attention.{0,60}(target|tgt)", r"look-ahead.{0,40}(encoder|cross)"),
        code='''
def quiz_which_mask() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return {
        "encoder": "padding_mask(src)",
        "decoder": "decoder_self_attention_mask(tgt)",
        "cross": "padding_mask(src)",
    }
''',
    ),
]
