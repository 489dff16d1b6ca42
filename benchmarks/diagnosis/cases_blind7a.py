"""Held-out wrong answers for lessons 01-04, blind round 7 (helper b7a, 2026-11-27).

Written blind: without reading the checks of lessons 01-04 or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Most of them transpose a mistake reported in a public issue thread or Q&A page (the
URL read for this benchmark) to the course's exercise; the others are the author's. Kinds
favoured this round: mistakes that only show on some inputs (an axis other than the last,
float64 inputs, four-dimensional inputs, a second call), state kept between calls, dtypes
and layouts of what is returned, exceptions raised by the learner's own code, and two
mistakes at once.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03, L04 = (
    "01_tokenization",
    "02_embeddings",
    "03_positional_encoding",
    "04_attention",
)

# The reports these cases transpose (each read with the search tool for this benchmark).
CONTRACTIONS = "https://deutschina.hatenablog.com/entry/20130419/1366326265"
HF_SPECIAL_TOKENS = "https://github.com/huggingface/transformers/issues/22935"
TIME_FIRST = "https://github.com/pytorch/pytorch/issues/1176"
MUTABLE_DEFAULT = (
    "https://deploy-preview-1516--pydis-static.netlify.app/pages/tags/mutable-default-args"
)
MINBPE_TIES = "https://github.com/karpathy/minbpe/pull/90"
COSINE_DISTANCE = "https://example-a.com/answer/50960151"
T2T_TIMESCALES = "https://github.com/tensorflow/tensor2tensor/issues/1423"
HALF_SPLIT_PAIRS = "https://github.com/karpathy/nanochat/issues/264"
FUNCTIONAL_DROPOUT = "https://github.com/rixwew/pytorch-fm/issues/21"
SOFTMAX_UPCAST = "https://github.com/pytorch/pytorch/pull/18334"
MASK_UNSQUEEZE = "https://github.com/bentrevett/pytorch-seq2seq/issues/119"
BMM_3D = "https://github.com/SHI-Labs/NATTEN/pull/87"


_c = held_out_authored("blind7a")


BLIND7A: list[Case] = [
    # ------------------------------------------------------------------ 01 tokenization
    _c(
        "tok-apostrophes-inside-words",
        L01,
        "tokenize",
        "the word pattern admits apostrophes ([\\w']+), so a contraction such as \"don't\" "
        "stays one token instead of a word, the apostrophe and a word.",
        (
            r"apostroph",
            r"contraction",
            r"don'?t",
            r"\[\\w'\]",
            r"\"'\" .{0,40}(separate|own) token",
        ),
        (r"lower-?case", r"whitespace|spaces? kept"),
        edits=[('r"\\w+|[^\\w\\s]"', 'r"[\\w\']+|[^\\w\\s]"')],
        source=CONTRACTIONS,
    ),
    _c(
        "encode-wraps-bos-eos",
        L01,
        "encode",
        "encode wraps every sequence in <bos> ... <eos> (as a library tokenizer's "
        "add_special_tokens does), so it returns two ids more than there are tokens.",
        (r"<bos>|<eos>|\bbos\b|\beos\b", r"(add|adds|added|wrap)\w*.{0,60}(special|start|end)"),
        (r"<unk>|unknown", r"<pad>"),
        edits=[
            (
                "return [vocab.get(token, unk) for token in tokens]",
                'return [vocab["<bos>"]] + [vocab.get(token, unk) for token in tokens] '
                '+ [vocab["<eos>"]]',
            )
        ],
        source=HF_SPECIAL_TOKENS,
    ),
    _c(
        "pad-batch-time-first",
        L01,
        "pad_batch",
        "pads with torch's pad_sequence without batch_first=True, so the array comes back "
        "(max_len, batch), time first, instead of (batch, max_len).",
        (
            r"transpos",
            r"batch_first",
            r"\(max_len, batch\)|\(len(gth)?, batch\)",
            r"(rows|axes).{0,40}(swap|exchang|column)",
            r"time[- ]first|length first|sequence axis first",
        ),
        (r"left|front|start of", r"pad_id|zeros? instead"),
        code="import torch\n"
        "from torch.nn.utils.rnn import pad_sequence\n\n"
        "def pad_batch(sequences, pad_id):\n"
        "    if not sequences:\n"
        "        return np.zeros((0, 0), dtype=np.int64)\n"
        "    tensors = [torch.tensor(list(seq), dtype=torch.int64) for seq in sequences]\n"
        "    return pad_sequence(tensors, padding_value=pad_id).numpy()\n",
        source=TIME_FIRST,
    ),
    _c(
        "pairs-mutable-default-counts",
        L01,
        "get_pair_counts",
        "the counts dict is a mutable default argument (counts={}), created once, so every "
        "call adds its pairs to the counts of all the calls before it.",
        (
            r"mutable default",
            r"default argument",
            r"(earlier|previous|former|first|other) calls?",
            r"between calls|across calls|from one call to the next",
            r"accumulat|carr(y|ies) over|kept from|state",
            r"(new|fresh|empty) dict.{0,40}(each|every) call",
        ),
        (r"last pair|overlap", r"zip"),
        code="def get_pair_counts(ids, counts={}):\n"
        "    for pair in zip(ids, ids[1:]):\n"
        "        counts[pair] = counts.get(pair, 0) + 1\n"
        "    return counts\n",
        source=MUTABLE_DEFAULT,
    ),
    _c(
        "train-ties-largest-pair",
        L01,
        "train_bpe",
        "ties between equally frequent pairs go to the lexicographically largest pair (a "
        "tie-break taken from another implementation), not to the pair seen first.",
        (
            r"\bties?\b",
            r"equal(ly)? (count|frequen)",
            r"(seen|encountered|occurs?|appears?) first|first (seen|encountered|occurrence)",
            r"lexicograph|largest pair|greatest pair",
        ),
        (r"ids? (start|from) (at )?0|256", r"counts? (taken )?once"),
        edits=[
            (
                "best = max(counts, key=counts.get)",
                "best = max(counts, key=lambda p: (counts[p], p))",
            )
        ],
        source=MINBPE_TIES,
    ),
    # "bpe-decode-strict-utf8" (https://github.com/karpathy/minbpe/issues/96) (strict UTF-8 decoding) was written here and measured in its batch's commit; read afterwards, it is an answer
    # the lesson accepts on purpose (check_bpe_decode's docstring), so it is left out here and
    # in the generalisation record, with that reason.
    _c(
        "vocab-strict-min-freq-and-ties-by-count-only",
        L01,
        "build_vocab",
        "two mistakes at once: tokens need a count strictly above min_freq (> instead of "
        ">=), and ties are left in first-seen order (Counter.most_common) instead of "
        "alphabetical.",
        (
            r"(?s)(min_freq|>=|at least|strictly).*(\bties?\b|alphabet)",
            r"(?s)(\bties?\b|alphabet).*(min_freq|>=|at least|strictly)",
        ),
        (r"special", r"document"),
        code="from collections import Counter\n\n"
        "def build_vocab(token_lists, min_freq=1):\n"
        "    counts = Counter(token for tokens in token_lists for token in tokens)\n"
        "    vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}\n"
        "    for token, count in counts.most_common():\n"
        "        if count > min_freq and token not in vocab:\n"
        "            vocab[token] = len(vocab)\n"
        "    return vocab\n",
    ),
    _c(
        "merge-steps-one-after-merge",
        L01,
        "merge_pair",
        "after writing new_id the loop advances by one position instead of two, so the "
        "pair's second element is copied into the output as well.",
        (
            r"i \+= ?2|by two|two positions|skip(s|ping)? (over )?(the )?(second|both)",
            r"second (element|id|item|token) (of the pair )?(is )?(kept|copied|left|still)",
        ),
        (r"in place", r"tuple"),
        edits=[
            (
                "merged.append(new_id)\n            i += 2",
                "merged.append(new_id)\n            i += 1",
            )
        ],
    ),
    # ------------------------------------------------------------------ 02 embeddings
    # "onehot-int64" (https://runebook.dev/en/docs/pytorch/generated/torch.nn.functional.one_hot) (integer one-hot rows) was written here and measured in its batch's commit; read afterwards, it is an answer
    # one_hot's contract accepts (integer zeros and ones), so it is left out here and in the
    # generalisation record, with that reason.
    _c(
        "cos-returns-distance",
        L02,
        "cosine_similarity",
        "returns the cosine distance, 1 - similarity (scipy's cosine), instead of the similarity.",
        (
            r"distance",
            r"1 ?- ?(the )?(cos|similar)",
            r"one minus|1 minus",
            r"(flip|revers|negat).{0,30}sign",
        ),
        (r"transpos", r"norm"),
        edits=[("return a_unit @ b_unit.T", "return 1.0 - a_unit @ b_unit.T")],
        source=COSINE_DISTANCE,
    ),
    _c(
        "embed-ids-flattened",
        L02,
        "embed",
        "looks up the rows one id at a time over the flattened ids, so a (batch, len) "
        "batch of ids comes back as (batch * len, d) and loses its shape.",
        (
            r"flatten|ravel",
            r"(keep|lost|lose)s? (the )?(shape|axes)",
            r"shape of (the )?ids",
            r"ids'? shape",
            r"\(batch \* len",
        ),
        (r"transpos", r"column"),
        code="def embed(ids, table):\n"
        "    table = np.asarray(table)\n"
        "    return np.stack([table[i] for i in np.asarray(ids).ravel()])\n",
    ),
    _c(
        "tokemb-detached-table",
        L02,
        "TokenEmbedding",
        "looks the ids up in a detached copy of the table (F.embedding on weight.detach()), "
        "so no gradient reaches the embedding and it never trains.",
        (r"detach", r"gradient", r"autograd", r"train(able|s)?\b", r"requires_grad"),
        (r"sqrt|scale", r"vocab_size"),
        edits=[
            (
                "return self.embedding(ids) * math.sqrt(self.d_model)",
                "return nn.functional.embedding(ids, self.embedding.weight.detach()) "
                "* math.sqrt(self.d_model)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 03 positional encoding
    _c(
        "pe-timescales-minus-one",
        L03,
        "positional_encoding",
        "spreads the frequencies as tensor2tensor does, exponent 2i / (d_model - 2) "
        "(num_timescales - 1 in the denominator), so the last pair reaches 1/10000 and "
        "every frequency but the first is too low.",
        (
            r"d_model\s*-\s*2",
            r"num_timescales",
            r"denominator",
            r"(exponent|frequenc).{0,80}(spac|spread|range|d_model|last pair)",
        ),
        (r"sin.{0,30}cos.{0,30}(swap|exchang)", r"positions? (start|from) (at )?1", r"base|1000\b"),
        edits=[("two_i / d_model", "two_i / (d_model - 2)")],
        source=T2T_TIMESCALES,
    ),
    _c(
        "shift-half-split-pairs",
        L03,
        "relative_shift",
        "rotates the features in half-split pairs (i, i + d_model/2), the rotate_half "
        "layout, instead of the table's adjacent pairs (2i, 2i+1).",
        (
            r"half|halves",
            r"adjacent",
            r"interleav",
            r"\(2i, ?2i ?\+ ?1\)",
            r"pair(s|ing)? .{0,40}(layout|order|permut)",
            r"permut",
        ),
        (r"transpos", r"negative k|-k\b|sign of k"),
        code="def relative_shift(k, d_model):\n"
        "    if d_model % 2:\n"
        '        raise ValueError(f"relative_shift needs an even d_model, got {d_model}")\n'
        "    half = d_model // 2\n"
        "    first = np.arange(half)\n"
        "    second = first + half\n"
        "    theta = k / np.power(10000.0, 2 * first / d_model)\n"
        "    m = np.zeros((d_model, d_model))\n"
        "    m[first, first] = np.cos(theta)\n"
        "    m[second, first] = np.sin(theta)\n"
        "    m[first, second] = -np.sin(theta)\n"
        "    m[second, second] = np.cos(theta)\n"
        "    return m\n",
        source=HALF_SPLIT_PAIRS,
    ),
    _c(
        "posenc-dropout-hardcoded",
        L03,
        "PositionalEncoding",
        "creates nn.Dropout(0.1) whatever dropout the caller passes, so the dropout "
        "argument is ignored.",
        (
            r"dropout.{0,80}(argument|parameter|\bp\b|0\.1|hard-?coded|ignor|fixed|passed|given)",
            r"(ignor|hard-?cod).{0,60}dropout",
        ),
        (r"before|order|on the table|on x", r"in place"),
        edits=[("self.dropout = nn.Dropout(dropout)", "self.dropout = nn.Dropout(0.1)")],
    ),
    _c(
        "posenc-slice-by-d-model",
        L03,
        "PositionalEncoding",
        "slices the table with x.size(-1), the feature width, instead of x.size(1), the "
        "sequence length: right only when len == d_model, otherwise a shape error.",
        (
            r"size\(-1\)|shape\[-1\]",
            r"d_model.{0,60}(instead of|not|rather than).{0,30}(len|length)",
            r"(len|length).{0,60}(instead of|not|rather than).{0,30}d_model",
            r"(last|feature) (axis|dim).{0,60}(len|length|rows)",
        ),
        (r"batch", r"seq(uence)?[- ]first"),
        edits=[("length = x.shape[1]", "length = x.shape[-1]")],
    ),
    # ------------------------------------------------------------------ 04 attention
    _c(
        "sdpa-functional-dropout",
        L04,
        "scaled_dot_product_attention",
        "applies F.dropout(weights, p=0.1) to the attention weights, whose training flag "
        "defaults to True, so weights are zeroed and rescaled at random on every call.",
        (
            r"dropout",
            r"random",
            r"(differ|change)s? (from|between) (one )?calls?|not deterministic|nondeterministic",
        ),
        (r"mask", r"scale|sqrt"),
        edits=[
            (
                "output = weights @ v",
                "weights = torch.nn.functional.dropout(weights, p=0.1)\n    output = weights @ v",
            )
        ],
        source=FUNCTIONAL_DROPOUT,
    ),
    _c(
        "sdpa-softmax-float32-not-cast-back",
        L04,
        "scaled_dot_product_attention",
        "takes the softmax of scores.float() for stability and never casts back, so "
        "float64 inputs give float32 weights and the product with v fails on the dtypes.",
        (r"float32|float64|double", r"dtype", r"\.float\(\)", r"type_as|cast"),
        (r"mask", r"transpos"),
        edits=[
            (
                "weights = torch.softmax(scores, dim=-1)",
                "weights = torch.softmax(scores.float(), dim=-1)",
            )
        ],
        source=SOFTMAX_UPCAST,
    ),
    _c(
        "sdpa-mask-unsqueezed-for-heads",
        L04,
        "scaled_dot_product_attention",
        "unsqueezes the mask at dim 1 for a heads axis, as multi-head code does, so a mask "
        "that already matches the scores gains an axis and broadcasts wrongly (or fails).",
        (
            r"unsqueeze",
            r"(extra|additional|new) (axis|dim)",
            r"mask.{0,80}(broadcast|rank|number of dim|ndim)",
            r"heads? axis",
        ),
        (r"invert|~mask|polarity", r"after (the )?softmax"),
        edits=[
            (
                'scores = scores.masked_fill(~mask, float("-inf"))',
                "mask = mask.unsqueeze(1)\n"
                '        scores = scores.masked_fill(~mask, float("-inf"))',
            )
        ],
        source=MASK_UNSQUEEZE,
    ),
    # "sdpa-finite-fill-no-zero-rows" (https://github.com/EleutherAI/gpt-neox/pull/966) (uniform weights for a fully masked query) was written here and measured in its batch's commit; read afterwards, it is an answer
    # the lesson accepts on purpose (section 7), so it is left out here and in the
    # generalisation record, with that reason.
    _c(
        "sdpa-bmm-three-dims-only",
        L04,
        "scaled_dot_product_attention",
        "uses torch.bmm for both products, which accepts only 3-D tensors, so inputs with "
        "a heads axis (4-D) or a single unbatched sentence (2-D) fail.",
        (
            r"\bbmm\b",
            r"3-?D|three[- ]dim",
            r"(any|other) number of (batch|leading) (dims|axes|dimensions)",
            r"\b4-?D\b|four[- ]dim|heads axis",
            r"torch\.matmul|\s@\s",
        ),
        (r"mask", r"scale|sqrt"),
        edits=[
            (
                "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                "scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)",
            ),
            ("output = weights @ v", "output = torch.bmm(weights, v)"),
        ],
        source=BMM_3D,
    ),
    _c(
        "softmax-sum-over-last-axis",
        L04,
        "softmax",
        "subtracts the max along the requested axis but sums along the last axis, so the "
        "result is normalised along the wrong axis whenever axis is not -1.",
        (
            r"(sum|total|normali[sz]).{0,60}(last axis|axis=-1|wrong axis|axis -1)",
            r"(last axis|axis=-1).{0,60}(sum|total|normali[sz])",
            r"(sum|total).{0,40}(along|over) .{0,20}axis",
        ),
        (r"overflow|subtract(ed)? the max|no max", r"keepdims", r"in place"),
        edits=[
            (
                "total = np.sum(exps, axis=axis, keepdims=True)",
                "total = np.sum(exps, axis=-1, keepdims=True)",
            )
        ],
    ),
    _c(
        "row-softmax-without-max",
        L04,
        "attention_row",
        "computes the weights inline as exp(scores) / sum(exp(scores)) without subtracting "
        "the largest score, so large scores overflow to inf and the weights become NaN.",
        (
            r"overflow",
            r"(subtract|minus).{0,40}(max|largest)",
            r"(max|largest).{0,40}subtract",
            r"stab",
        ),
        (r"sqrt|scale", r"keys.{0,20}values|values.{0,20}keys"),
        edits=[
            (
                "weights = softmax(scores)",
                "weights = np.exp(scores) / np.sum(np.exp(scores))",
            )
        ],
    ),
]
