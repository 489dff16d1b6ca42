"""Held-out wrong answers for lessons 01-06 (issue 22, round of 2026-11-26).

Written, with their causes, sources and judging criteria, before any check of this round
was changed and before any of them was run: the figures over them (``heldout=True``)
measure how the diagnoses generalise to mistakes the checks were not tuned on. None is one
of the mistake tables in tests/ (tests/test_diagnosis_benchmark.py checks it), and none
repeats a case of cases.py. The code is our own, written as a learner would; ``source``
is where learners report the mistake (read for this benchmark), or "author: ...".
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

# Where these mistakes are reported (each page was read for this benchmark).
MINBPE_WIKI = "https://github.com/karpathy/minbpe/issues/93"
BPE_MERGE_COUNT = "https://github.com/rsennrich/subword-nmt/issues/7"
BPE_VECTORISED_MERGE = "https://github.com/karpathy/minbpe/pull/38"
PLAIN_ATTRIBUTE = "https://github.com/lyuwenyu/RT-DETR/issues/677"
PE_SCALE_INSIDE = "https://github.com/intro-llm/intro-llm.github.io/issues/34"
PE_SAME_ANGLES = "https://github.com/Kyubyong/transformer/issues/137"
SOFTMAX_FORUM = "https://discuss.pytorch.org/t/softmax-implementation/118049"
MASK_AFTER_SOFTMAX = "https://github.com/huggingface/pytorch-image-models/pull/2236"
BOOL_MASK_ADDED = "https://github.com/huggingface/transformers/pull/41443"
HEADS_AVERAGED = "https://github.com/pytorch/pytorch/issues/34537"
VIEW_AFTER_PERMUTE = (
    "https://michaelgethers.com/posts/mechanics-of-reshaping-in-multi-head-attention"
)
MASK_PERMUTE = "https://github.com/sooftware/attentions/issues/4"
SUBSEQUENT_MASK = "https://github.com/harvardnlp/annotated-transformer/issues/27"
FLIPPED_MASK = "https://github.com/pytorch/examples/issues/649"
TARGET_PAD_QUERY = "https://github.com/bentrevett/pytorch-seq2seq/issues/73"
AUTHOR = "author: written for this benchmark, no public report cited"

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

HELD_OUT: list[Case] = [
    # ------------------------------------------------------------------ 01 tokenization
    Case(
        "h-tok-spaces-kept",
        L01,
        "tokenize",
        "splits on every non-word character and keeps the separators, so the spaces come "
        "back as tokens of their own.",
        AUTHOR,
        (r"' '|space(s)? (as|are) (a )?tokens?|whitespace.{0,40}(kept|token)",),
        (r"did not lower-case", r"Punctuation disappeared"),
        code="import re\n\n"
        "def tokenize(text):\n"
        "    return [piece for piece in re.split(r'(\\W)', text.lower()) if piece]\n",
        heldout=True,
    ),
    Case(
        "h-vocab-ties-reversed",
        L01,
        "build_vocab",
        "sorts by (count, token) with reverse=True, so tokens with the same count come in "
        "reverse alphabetical order.",
        AUTHOR,
        (r"revers|z to a|descending alphabetical|reverse=True",),
        (r"order of first appearance|first appear",),
        edits=(
            (
                "sorted(counts.items(), key=lambda item: (-item[1], item[0]))",
                "sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-decode-key-order",
        L01,
        "decode",
        "indexes list(vocab) by id, which assumes the dict's keys are stored in id order.",
        AUTHOR,
        (r"insertion order|order of (its|the) keys|dict order|key order|list\(vocab\)",),
        (r"off by one|table\[i - 1\]",),
        code="def decode(ids, vocab):\n"
        "    tokens = list(vocab)\n"
        "    return [tokens[int(index)] for index in ids]\n",
        heldout=True,
    ),
    Case(
        "h-merge-first-only",
        L01,
        "merge_pair",
        "returns after replacing the first occurrence of the pair, leaving the later ones.",
        BPE_VECTORISED_MERGE,
        (r"first occurrence|only (the )?first|one occurrence|every occurrence|all occurrences",),
        (r"skip \*both\*|overlap",),
        code="def merge_pair(ids, pair, new_id):\n"
        "    for i in range(len(ids) - 1):\n"
        "        if (ids[i], ids[i + 1]) == pair:\n"
        "            return list(ids[:i]) + [new_id] + list(ids[i + 2:])\n"
        "    return list(ids)\n",
        heldout=True,
    ),
    Case(
        "h-train-vocab-size",
        L01,
        "train_bpe",
        "treats num_merges as the vocabulary size (minbpe's vocab_size) and learns only "
        "num_merges - 256 merges.",
        BPE_MERGE_COUNT,
        (r"vocab(ulary)?[_ ]size|num_merges - 256|- 256 merges",),
        (r"gets id 256 \+ i", r"tie"),
        edits=(("for step in range(num_merges):", "for step in range(num_merges - 256):"),),
        heldout=True,
    ),
    Case(
        "h-encode-latest-first",
        L01,
        "bpe_encode",
        "applies the latest-learned merge present (the highest new id) first instead of "
        "the earliest-learned.",
        MINBPE_WIKI,
        (r"latest|last[- ]learned|highest (new )?id|largest (new )?id|newest|max\(",),
        (r"most frequent", r"text order|left to right", r"not characters"),
        edits=(("pair = min(present, key=merges.get)", "pair = max(present, key=merges.get)"),),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 02 embeddings
    Case(
        "h-onehot-squeeze",
        L02,
        "one_hot",
        "squeezes the result, so ids of shape (1,) or (1, n) lose their axes of size 1.",
        AUTHOR,
        (r"squeez|axes of size 1|axis of size 1",),
        (r"transposed", r"flattened"),
        edits=(("[np.asarray(ids)]", "[np.asarray(ids)].squeeze()"),),
        heldout=True,
    ),
    Case(
        "h-embed-width-from-columns",
        L02,
        "embed",
        "one-hot encodes with width table.shape[1] (d_model) instead of the vocabulary "
        "size table.shape[0], then multiplies by the table.",
        AUTHOR,
        (r"shape\[0\]|vocab(ulary)?[_ ]size|number of rows",),
        (r"indexed the columns|transpos",),
        code="import numpy as np\n\n"
        "def embed(ids, table):\n"
        "    table = np.asarray(table)\n"
        "    return np.eye(table.shape[1])[np.asarray(ids)] @ table\n",
        heldout=True,
    ),
    Case(
        "h-cos-b-axis0",
        L02,
        "cosine_similarity",
        "takes b's norms over axis 0 (one norm per feature) instead of one per row.",
        AUTHOR,
        (r"axis 0|axis=0|wrong axis|per (feature|column)|each row's own",),
        (r"Only `a` was divided", r"Only `b` was divided", r"whole matrix"),
        edits=(
            (
                "np.linalg.norm(b, axis=-1, keepdims=True)",
                "np.linalg.norm(b, axis=0, keepdims=True)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-cos-norms-not-outer",
        L02,
        "cosine_similarity",
        "divides a @ b.T by the elementwise product of the two norm vectors instead of "
        "their outer product (n x m).",
        AUTHOR,
        (r"outer|\[:, None\]|\[None, :\]|keepdims|every pair of norms",),
        (r"elementwise|plain dot product",),
        code="import numpy as np\n\n"
        "def cosine_similarity(a, b):\n"
        "    a = np.asarray(a, dtype=np.float64)\n"
        "    b = np.asarray(b, dtype=np.float64)\n"
        "    return a @ b.T / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))\n",
        heldout=True,
    ),
    Case(
        "h-emb-scale-by-length",
        L02,
        "TokenEmbedding",
        "multiplies by sqrt of the sequence length (ids.shape[-1]) instead of sqrt(d_model).",
        AUTHOR,
        (r"sequence length|sqrt\(len|ids\.shape|length of the (sequence|input)",),
        (r"forgot the scale", r"divided"),
        edits=(
            (
                "self.embedding(ids) * math.sqrt(self.d_model)",
                "self.embedding(ids) * math.sqrt(ids.shape[-1])",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------ 03 positional encoding
    Case(
        "h-pe-sin-twice",
        L03,
        "positional_encoding",
        "writes sin on the odd columns too (a copy-paste of the even line): no cosine at all.",
        PE_SAME_ANGLES,
        (r"odd (columns|features).{0,80}cos|cos(ine)?s? (is |are )?missing|no cos",),
        (r"swapped", r"concatenat", r"exponent"),
        edits=(
            (
                "pe[:, 1::2] = np.cos(angles[:, :d_model // 2])",
                "pe[:, 1::2] = np.sin(angles[:, :d_model // 2])",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-shift-negative-k",
        L03,
        "relative_shift",
        "rotates by -k (theta = -k * w_i), which shifts backwards.",
        AUTHOR,
        (r"sign|-k|backward|transpos|inverse|direction",),
        (r"same angle k", r"shift for k = 1"),
        edits=(
            (
                "theta = k / np.power(10000.0, two_i / d_model)",
                "theta = -k / np.power(10000.0, two_i / d_model)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-posenc-args-swapped",
        L03,
        "PositionalEncoding",
        "calls positional_encoding(d_model, max_len) with the two arguments swapped.",
        AUTHOR,
        (r"swapped|argument order|positional_encoding\(max_len, d_model\)",),
        (r"transposed", r"sequence-first"),
        edits=(("positional_encoding(max_len, d_model)", "positional_encoding(d_model, max_len)"),),
        heldout=True,
    ),
    Case(
        "h-posenc-scales-x",
        L03,
        "PositionalEncoding",
        "multiplies x by sqrt(d_model) before adding the table (the embedding's scale, "
        "applied a second time here).",
        PE_SCALE_INSIDE,
        (r"sqrt\(d_model\)|scal(ed|es|ing) x|multipl(ied|ies) x",),
        (r"dropout", r"returned x unchanged"),
        edits=(
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x * x.shape[-1] ** 0.5 + self.pe[:, :length])",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-posenc-dropout-first",
        L03,
        "PositionalEncoding",
        "applies dropout to x before adding the table instead of to the sum.",
        AUTHOR,
        (r"dropout.{0,80}(sum|after add|x \+ PE)|(sum|after adding).{0,60}dropout",),
        (r"never appl|not applied|eval mode",),
        edits=(
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x) + self.pe[:, :length]",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-posenc-numpy-attribute",
        L03,
        "PositionalEncoding",
        "keeps the table as a plain numpy attribute and converts it in forward: it is no "
        "buffer (not in the state dict, not moved by .to()).",
        PLAIN_ATTRIBUTE,
        (r"buffer|register",),
        (r"dropout", r"dtype"),
        edits=(
            ("self.register_buffer('pe', table.unsqueeze(0))", "self.table = table.numpy()"),
            (
                "length = x.shape[1]",
                "length = x.shape[1]\n        self.pe = torch.from_numpy(self.table)[None]",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 04 attention
    Case(
        "h-softmax-inplace",
        L04,
        "softmax",
        "subtracts the maximum in place (x -= peak), changing the caller's array.",
        SOFTMAX_FORUM,
        (r"in place|modif|changed its argument",),
        (r"overflow", r"keepdims"),
        edits=(("exps = np.exp(x - peak)", "x -= peak\n    exps = np.exp(x)"),),
        heldout=True,
    ),
    Case(
        "h-softmax-peak-no-keepdims",
        L04,
        "softmax",
        "takes the maximum without keepdims, so x - peak broadcasts against the wrong axis.",
        SOFTMAX_FORUM,
        (r"keepdims|broadcast",),
        (r"overflow", r"whole array"),
        edits=(
            (
                "peak = np.max(x, axis=axis, keepdims=True)",
                "peak = np.max(x, axis=axis)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-row-scale-len-k",
        L04,
        "attention_row",
        "divides the scores by sqrt(len_k), the number of keys, instead of sqrt(d_k).",
        AUTHOR,
        (r"len_k|number of keys|keys\.shape\[0\]|sqrt\(6\)|√6",),
        (r"divided by d_k = ", r"not scaled|forgot the scal"),
        edits=(
            (
                "scores = keys @ query / math.sqrt(d_k)",
                "scores = keys @ query / math.sqrt(keys.shape[0])",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-row-no-sum",
        L04,
        "attention_row",
        "multiplies each value row by its weight but never sums over the keys, returning "
        "(len_k, d_v).",
        AUTHOR,
        (r"sum over|summ|weights @ values|\(d_v,\)",),
        (r"order|swap",),
        edits=(("output = weights @ values", "output = weights[:, None] * values"),),
        heldout=True,
    ),
    Case(
        "h-sdpa-mask-after-softmax",
        L04,
        "scaled_dot_product_attention",
        "zeroes the blocked weights after the softmax instead of blocking the scores "
        "before it, so the rows no longer sum to 1.",
        MASK_AFTER_SOFTMAX,
        (r"after the softmax|before the softmax|renormali|re-normali",),
        (r"invert|True = may attend", r"fills? .{0,20}with 0 instead of -inf"),
        code="import math\n\nimport torch\n\n"
        "def scaled_dot_product_attention(q, k, v, mask=None):\n"
        "    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n"
        "    weights = torch.softmax(scores, dim=-1)\n"
        "    if mask is not None:\n"
        "        weights = weights.masked_fill(~mask, 0.0)\n"
        "    return weights @ v, weights\n",
        heldout=True,
    ),
    Case(
        "h-sdpa-bool-mask-added",
        L04,
        "scaled_dot_product_attention",
        "adds the boolean mask to the scores (+1 where allowed) instead of blocking with -inf.",
        BOOL_MASK_ADDED,
        (r"add(s|ed|ing)? the (bool|mask)|\+ mask|bool(ean)? mask.{0,40}add|\+1|plus 1",),
        (r"invert|True = may attend", r"softmax over"),
        code="import math\n\nimport torch\n\n"
        "def scaled_dot_product_attention(q, k, v, mask=None):\n"
        "    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n"
        "    if mask is not None:\n"
        "        scores = scores + mask\n"
        "    weights = torch.softmax(scores, dim=-1)\n"
        "    return weights @ v, weights\n",
        heldout=True,
    ),
    # ---------------------------------------------------------- 05 multi-head attention
    Case(
        "h-split-strided-heads",
        L05,
        "split_heads",
        "reshapes to (batch, len, d_head, num_heads) and permutes, so head i takes every "
        "num_heads-th feature instead of a contiguous block.",
        AUTHOR,
        (
            r"interleav|strided|every num_heads|every \d+(th|nd|rd|st) feature|contiguous block"
            r"|\(batch, len, d_head, num_heads\)",
        ),
        (r"no transpose|without a transpose|Add `\.transpose\(1, 2\)`",),
        edits=(
            (
                "x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "x.reshape(batch, length, d_model // num_heads, num_heads).permute(0, 3, 1, 2)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-merge-permute-view",
        L05,
        "merge_heads",
        "calls .view after the permute, which fails on the non-contiguous tensor (needs "
        ".contiguous() or .reshape).",
        VIEW_AFTER_PERMUTE,
        (r"contiguous|\.reshape",),
        (r"without a transpose",),
        edits=(
            (
                "x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "x.permute(0, 2, 1, 3).view(batch, length, num_heads * d_head)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-mha-mask-dropped",
        L05,
        "MultiHeadAttention",
        "never passes the mask on to scaled_dot_product_attention.",
        MASK_PERMUTE,
        (
            r"mask.{0,40}(not|never) (passed|used|applied)|ignor(ed|es) the mask|pass the mask"
            r"|mask=None|without the mask",
        ),
        (r"invert|polarity", r"w_o|output projection"),
        edits=(
            (
                "scaled_dot_product_attention(q, k, v, mask)",
                "scaled_dot_product_attention(q, k, v)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-mha-keys-from-query",
        L05,
        "MultiHeadAttention",
        "projects the keys from `query` instead of `key` (self-attention hides it; "
        "cross-attention does not).",
        AUTHOR,
        (r"w_k\(query\)|keys? (from|of) (the )?`?query|`?query`? (for|as) (the )?keys?",),
        (r"w_v|values", r"w_o"),
        edits=(
            (
                "split_heads(self.w_k(key), self.num_heads)",
                "split_heads(self.w_k(query), self.num_heads)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-mha-weights-averaged",
        L05,
        "MultiHeadAttention",
        "returns the weights averaged over the heads (nn.MultiheadAttention's default) "
        "instead of per head.",
        HEADS_AVERAGED,
        (r"average|mean over|per head|each head's|heads axis|num_heads axis",),
        (r"tuple|two values",),
        edits=(
            (
                "return (self.w_o(merge_heads(heads)), weights)",
                "return (self.w_o(merge_heads(heads)), weights.mean(dim=1))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-mha-dropout-on-output",
        L05,
        "MultiHeadAttention",
        "applies dropout to the layer's output instead of to the attention weights.",
        AUTHOR,
        (r"dropout.{0,80}(attention )?weights|weights.{0,40}dropout|output.{0,40}dropout",),
        (r"Yours is what eval mode gives|not applied in train",),
        edits=(
            (
                "return (self.w_o(merge_heads(heads)), weights)",
                "return (self.dropout(self.w_o(merge_heads(heads))), weights)",
            ),
            ("if self.training and self.dropout.p > 0:", "if False:"),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 06 masking
    Case(
        "h-padmask-zero-hardcoded",
        L06,
        "padding_mask",
        "compares with 0 instead of pad_id.",
        AUTHOR,
        (r"pad_id|hard-coded|hardcoded",),
        (r"invert|polarity",),
        edits=(("ids != pad_id", "ids != 0"),),
        heldout=True,
    ),
    Case(
        "h-lookahead-blocked-polarity",
        L06,
        "look_ahead_mask",
        "returns triu(diagonal=1): True marks the blocked future (nn.Transformer's "
        "polarity), not the allowed keys.",
        FLIPPED_MASK,
        (r"polarity|invert|True = may attend|True means|opposite|~",),
        (r"diagonal is (missing|excluded)|cannot attend to itself|transpos",),
        edits=(
            (
                "torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-lookahead-leading-axis",
        L06,
        "look_ahead_mask",
        "returns shape (1, size, size), as the annotated Transformer's subsequent_mask does.",
        SUBSEQUENT_MASK,
        (r"\(1, size, size\)|extra (leading )?axis|leading axis|unsqueeze|\(size, size\)",),
        (r"triu|polarity|diagonal",),
        edits=(
            (
                "torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "torch.tril(torch.ones(1, size, size, dtype=torch.bool))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "h-decmask-pad-on-queries",
        L06,
        "decoder_self_attention_mask",
        "puts the padding on the query axis ([:, None, :, None]) instead of the keys.",
        TARGET_PAD_QUERY,
        (r"quer(y|ies)|keys? only|key axis|last axis",),
        (r"\bor\b|\|", r"look-ahead"),
        code="import torch\n\n"
        "def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    real = (tgt_ids != pad_id)[:, None, :, None]\n"
        "    return real & look_ahead_mask(tgt_ids.shape[1])\n",
        heldout=True,
    ),
    Case(
        "h-decmask-batch-size",
        L06,
        "decoder_self_attention_mask",
        "builds the look-ahead mask from tgt_ids.shape[0], the batch size, instead of the length.",
        AUTHOR,
        (r"shape\[0\]|batch size|shape\[1\]|the length",),
        (r"padding", r"\bor\b"),
        edits=(("look_ahead_mask(tgt_ids.shape[1])", "look_ahead_mask(tgt_ids.shape[0])"),),
        heldout=True,
    ),
]
