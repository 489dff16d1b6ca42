"""A third batch of held-out wrong answers for lessons 01-06 (issue 22, 2026-11-26).

Written blind: by an engineer who had read neither the checks of lessons 01-06 nor any
message they print, nor the judging patterns of the earlier cases (only their ids, to
avoid repeating one), from the exercises' reference solutions alone. Each case's cause,
source and judging criteria (``named_if``, ``misnamed_if``) were written before any of
them was run; the figures over them (``heldout=True``) measure how the diagnoses
generalise to mistakes nobody tuned them on. The code is our own, written as a learner
would; ``source`` is where learners report the mistake (read for this benchmark), or
"author: ...".
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

# Where these mistakes are reported (each page was read for this batch).
PAD_EMPTY_MAX = "https://github.com/huggingface/transfer-learning-conv-ai/issues/76"
CODE_POINTS = "https://github.com/google/sentencepiece/issues/455"
MINBPE_ENCODE_LOOP = "https://github.com/karpathy/minbpe/issues/87"
TAKE_AXIS = "https://data-apis.org/array-api/latest/API_specification/generated/array_api.take.html"
COSINE_SQUARED = "https://github.com/iit-cs579/main/issues/478"
PE_ODD = "https://github.com/codertimo/BERT-pytorch/issues/78"
PE_PARAMETER = "https://github.com/henry9zhr/QANet-pytorch/issues/3"
GLOBAL_MAX = (
    "https://gitea.ethanmartin.site/gitea/infio-copilot-dev/raw/commit/"
    "c8bf0d263cda696741ae28e7293257a881a3be47/example_notes/"
    "Math%20block%20test%20%28softmax%20math%20function%29.md"
)
ALL_INF_ROW = "https://github.com/pytorch/pytorch/pull/131060"
FULLY_MASKED_NAN = "https://github.com/tracel-ai/burn/pull/4697"
TRANSPOSE_HARDCODED = "https://github.com/rasbt/LLMs-from-scratch/pull/521"
PERMUTE_ORDER = "https://github.com/bentrevett/pytorch-seq2seq/issues/148"
MERGE_PERMUTE = "https://github.com/ajhalthor/Transformer-Neural-Network/pull/4"
FUNCTIONAL_DROPOUT = "https://github.com/BogiHsu/Tacotron2-PyTorch/issues/8"
DIAGONAL = "https://github.com/TransformerLensOrg/TransformerLens/issues/284"
MASK_HEADS_AXIS = "https://github.com/ArcInstitute/state/pull/213"
AUTHOR = "author: written for this benchmark, no public report cited"

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

BLIND: list[Case] = [
    # ------------------------------------------------------------------ 01 tokenization
    Case(
        "blind-tok-punctuation-runs",
        L01,
        "tokenize",
        "the punctuation pattern has a + ([^\\w\\s]+), so a run of marks ('...', '?!') "
        "becomes one token instead of one token per mark.",
        AUTHOR,
        (
            r"(run|sequence|group)s? of (punctuation|marks)",
            r"(each|every|single|one) (punctuation )?mark.{0,40}(own|separate|one token)",
            r"one token per (punctuation )?mark",
            r"\[\^\\w\\s\]\+",
        ),
        (r"lower-?cas", r"whitespace"),
        edits=((r'r"\w+|[^\w\s]"', r'r"\w+|[^\w\s]+"'),),
        heldout=True,
    ),
    Case(
        "blind-tok-ascii-words",
        L01,
        "tokenize",
        "the word pattern is ASCII-only ([a-z0-9_]+), so letters outside a-z (accented, "
        "other scripts) are dropped.",
        AUTHOR,
        (
            r"non-?ascii|\bascii\b|accent|diacritic|any script|unicode",
            r"other (scripts|alphabets|languages)",
            r"letters? (outside|beyond|other than) (a-z|\[a-z\]|english)",
        ),
        (r"lower-?cas", r"whitespace"),
        edits=((r'r"\w+|[^\w\s]"', r'r"[a-z0-9_]+|[^\w\s]"'),),
        heldout=True,
    ),
    Case(
        "blind-vocab-document-frequency",
        L01,
        "build_vocab",
        "counts each token once per sentence (set(tokens)), not every occurrence.",
        AUTHOR,
        (
            r"once per (sentence|list|sequence|document)",
            r"set\(",
            r"document frequency",
            r"(repeated|repeats|twice|more than once) (with)?in (a|one|the same) "
            r"(sentence|list|sequence)",
            r"(every|each|all) occurrences?",
        ),
        (r"min_freq", r"ties? (are )?(broken|in the wrong order)"),
        edits=(("for token in tokens)", "for token in set(tokens))"),),
        heldout=True,
    ),
    Case(
        "blind-vocab-special-overwritten",
        L01,
        "build_vocab",
        "a token of the data that is also a special token ('<unk>') is given a new id, "
        "overwriting its special id and leaving a gap.",
        AUTHOR,
        (
            r"special (token|id)s?.{0,60}(keep|new id|overwrit|reassign|again|twice|own id)",
            r"keeps? (its|their) special id",
            r"overwrit",
            r"already in (the )?vocab",
            r"\bgaps?\b",
        ),
        (r"special tokens? (are )?missing|no special",),
        edits=(("if count >= min_freq and token not in vocab:", "if count >= min_freq:"),),
        heldout=True,
    ),
    Case(
        "blind-vocab-alphabetical-only",
        L01,
        "build_vocab",
        "orders the tokens alphabetically only, ignoring their counts.",
        AUTHOR,
        (
            r"(descending|by|highest) (count|frequenc)",
            r"ignor\w* (the |their )?(count|frequenc)",
            r"alphabetical(ly)? only|only alphabetical",
            r"most (frequent|common) first",
        ),
        (r"min_freq",),
        edits=(("key=lambda item: (-item[1], item[0])", "key=lambda item: item[0]"),),
        heldout=True,
    ),
    Case(
        "blind-encode-unknown-as-pad",
        L01,
        "encode",
        "maps unknown tokens to a hard-coded 0 (the id of <pad>) instead of the id of <unk>.",
        AUTHOR,
        (r"<unk>", r"\bunk\b", r"<pad>|\bpad\b|hard-?coded 0"),
        (r"KeyError",),
        edits=(("vocab.get(token, unk)", "vocab.get(token, 0)"),),
        heldout=True,
    ),
    Case(
        "blind-decode-drops-specials",
        L01,
        "decode",
        "drops the special tokens (<pad>, <bos>, <eos>, <unk>) instead of returning them.",
        AUTHOR,
        (
            r"special tokens?.{0,60}(dropp|missing|skipp|removed|left out|omitt|includ|kept|"
            r"keep)",
            r"(dropp|skipp|removed|left out|omitt)\w*.{0,40}special",
        ),
        (),
        edits=(
            (
                "return [id_to_token[int(index)] for index in ids]",
                "return [id_to_token[int(index)] for index in ids "
                "if id_to_token[int(index)] not in SPECIAL_TOKENS]",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind-pad-first-length",
        L01,
        "pad_batch",
        "takes the width from the first sequence instead of the longest one.",
        AUTHOR,
        (r"longest", r"first (sequence|row)", r"sequences\[0\]"),
        (r"left|right-pad",),
        edits=(
            (
                "max_len = max((len(seq) for seq in sequences), default=0)",
                "max_len = len(sequences[0]) if sequences else 0",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind-pairs-by-count",
        L01,
        "get_pair_counts",
        "returns the pairs ordered by count (most_common), not by first occurrence.",
        AUTHOR,
        (
            r"first occurrence",
            r"order(ed)? (of|by) (their )?first",
            r"most_common",
            r"sorted by count|ordered by count|by descending count",
        ),
        (r"overlap",),
        code="from collections import Counter\n\n"
        "def get_pair_counts(ids):\n"
        "    return dict(Counter(zip(ids, ids[1:])).most_common())\n",
        heldout=True,
    ),
    Case(
        "blind-merge-in-place",
        L01,
        "merge_pair",
        "replaces the pairs inside the input list (slice assignment), modifying the caller's list.",
        AUTHOR,
        (r"in[- ]place", r"modif(y|ies|ied)", r"mutat", r"input list (was |is )?(changed|altered)"),
        (r"overlap",),
        code="def merge_pair(ids, pair, new_id):\n"
        "    i = 0\n"
        "    while i < len(ids) - 1:\n"
        "        if (ids[i], ids[i + 1]) == pair:\n"
        "            ids[i : i + 2] = [new_id]\n"
        "        i += 1\n"
        "    return ids\n",
        heldout=True,
    ),
    Case(
        "blind-merge-drops-last",
        L01,
        "merge_pair",
        "the loop stops one id early, so a last id that is not merged is dropped.",
        AUTHOR,
        (
            r"last (id|element|token|item|byte)",
            r"final (id|element|token)",
            r"one (id|element) short|too short|missing (at the end|the last)",
        ),
        (r"overlap",),
        edits=(("while i < len(ids):", "while i < len(ids) - 1:"),),
        heldout=True,
    ),
    Case(
        "blind-train-code-points",
        L01,
        "train_bpe",
        "starts from Unicode code points (ord) instead of the UTF-8 bytes, so non-ASCII text "
        "is wrong.",
        CODE_POINTS,
        (r"utf-?8", r"\bbytes?\b", r"code ?points?", r"\bord\b"),
        (r"ties? (go|are broken)",),
        edits=(('ids = list(text.encode("utf-8"))', "ids = [ord(ch) for ch in text]"),),
        heldout=True,
    ),
    Case(
        "blind-encode-no-stop",
        L01,
        "bpe_encode",
        "never stops when no learned merge applies any more, so merges[pair] raises KeyError.",
        MINBPE_ENCODE_LOOP,
        (
            r"no (learned |known )?merge",
            r"none of the (remaining )?pairs",
            r"not in (the )?merges",
            r"stop (when|once|if)",
            r"KeyError.{0,80}(merge|stop|pair)",
        ),
        (r"earliest|latest",),
        code="def bpe_encode(text, merges):\n"
        '    ids = list(text.encode("utf-8"))\n'
        "    while len(ids) >= 2:\n"
        "        counts = get_pair_counts(ids)\n"
        '        pair = min(counts, key=lambda p: merges.get(p, float("inf")))\n'
        "        ids = merge_pair(ids, pair, merges[pair])\n"
        "    return ids\n",
        heldout=True,
    ),
    # ------------------------------------------------------------------ 02 embeddings
    Case(
        "blind-onehot-1d-only",
        L02,
        "one_hot",
        "assumes 1-D ids (np.zeros((len(ids), vocab_size))), so ids of shape (batch, len) fail.",
        AUTHOR,
        (
            r"any shape",
            r"2-?d\b|two-?dimensional|\(batch, ?len\)|multi-?dim",
            r"1-?d only|only 1-?d|one-dimensional",
        ),
        (r"transpos",),
        code="import numpy as np\n\n"
        "def one_hot(ids, vocab_size):\n"
        "    ids = np.asarray(ids)\n"
        "    out = np.zeros((len(ids), vocab_size))\n"
        "    out[np.arange(len(ids)), ids] = 1.0\n"
        "    return out\n",
        heldout=True,
    ),
    Case(
        "blind-embed-take-flat",
        L02,
        "embed",
        "np.take without axis=0 indexes the flattened table, giving one number per id "
        "instead of its row.",
        TAKE_AXIS,
        (
            r"axis ?= ?0",
            r"flatten",
            r"np\.take",
            r"(entries|numbers|scalars|elements) instead of (rows|vectors)",
        ),
        (r"transpos",),
        edits=(
            (
                "return np.asarray(table)[np.asarray(ids)]",
                "return np.take(np.asarray(table), np.asarray(ids))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind-cos-squared-norms",
        L02,
        "cosine_similarity",
        "divides by the squared norms (sums of squares, no square root).",
        COSINE_SQUARED,
        (r"squar", r"sqrt", r"root"),
        (r"axis",),
        code="import numpy as np\n\n"
        "def cosine_similarity(a, b):\n"
        "    a = np.asarray(a, dtype=np.float64)\n"
        "    b = np.asarray(b, dtype=np.float64)\n"
        "    na = np.sum(a * a, axis=-1, keepdims=True)\n"
        "    nb = np.sum(b * b, axis=-1, keepdims=True)\n"
        "    return (a @ b.T) / np.maximum(na * nb.T, 1e-12)\n",
        heldout=True,
    ),
    Case(
        "blind-cos-rowwise",
        L02,
        "cosine_similarity",
        "computes a[i]·b[i] for matching rows instead of every pair (i, j).",
        AUTHOR,
        (
            r"every pair|all pairs|each pair",
            r"pairwise",
            r"\(n, ?m\)",
            r"matching rows|row by row|a\[i\].{0,10}b\[i\]",
        ),
        (r"norm.{0,30}axis",),
        code="import numpy as np\n\n"
        "def cosine_similarity(a, b):\n"
        "    a = np.asarray(a, dtype=np.float64)\n"
        "    b = np.asarray(b, dtype=np.float64)\n"
        "    a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)\n"
        "    b_unit = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)\n"
        "    return np.sum(a_unit * b_unit, axis=-1)\n",
        heldout=True,
    ),
    Case(
        "blind-emb-scale-vocab",
        L02,
        "TokenEmbedding",
        "scales by sqrt(vocab_size) instead of sqrt(d_model).",
        AUTHOR,
        (r"vocab_size|vocabulary size|num_embeddings",),
        (r"no scal|not scaled|missing (the )?scal|divid",),
        edits=(("math.sqrt(self.d_model)", "math.sqrt(self.embedding.num_embeddings)"),),
        heldout=True,
    ),
    Case(
        "blind-emb-fresh-each-call",
        L02,
        "TokenEmbedding",
        "creates a new nn.Embedding inside forward on every call, so the table is not a "
        "parameter of the module and changes from call to call.",
        AUTHOR,
        (
            r"__init__",
            r"(every|each) call",
            r"new (nn\.)?Embedding",
            r"no (learnable )?parameters?|not (a )?(registered|learnable)",
            r"state[_ ]dict.{0,40}(empty|missing)",
        ),
        (),
        code="import math\n\nfrom torch import nn\n\n"
        "class TokenEmbedding(nn.Module):\n"
        "    def __init__(self, vocab_size, d_model):\n"
        "        super().__init__()\n"
        "        self.vocab_size, self.d_model = vocab_size, d_model\n\n"
        "    def forward(self, ids):\n"
        "        embedding = nn.Embedding(self.vocab_size, self.d_model)\n"
        "        return embedding(ids) * math.sqrt(self.d_model)\n",
        heldout=True,
    ),
    # ------------------------------------------------------------------ 03 positional encoding
    Case(
        "blind-pe-odd-d-model",
        L03,
        "positional_encoding",
        "assigns all ceil(d_model/2) cosines to the floor(d_model/2) odd columns, which fails "
        "for an odd d_model.",
        PE_ODD,
        (r"\bodd\b",),
        (),
        edits=(("np.cos(angles[:, : d_model // 2])", "np.cos(angles)"),),
        heldout=True,
    ),
    Case(
        "blind-pe-multiplied",
        L03,
        "positional_encoding",
        "multiplies the position by 10000^(2i/d_model) instead of dividing by it.",
        AUTHOR,
        (
            r"multipl\w* (by|instead)",
            r"instead of divid",
            r"inverse|reciprocal|inverted",
            r"frequenc\w* (grow|increase)",
        ),
        (r"sin.{0,20}cos.{0,20}swap", r"positions? (start|from) (at )?1"),
        edits=(("positions / np.power(", "positions * np.power("),),
        heldout=True,
    ),
    Case(
        "blind-shift-odd-not-rejected",
        L03,
        "relative_shift",
        "does not raise ValueError for an odd d_model (it fails later with an IndexError).",
        AUTHOR,
        (r"\bodd\b", r"ValueError"),
        (),
        edits=(
            (
                'raise ValueError(f"relative_shift needs an even d_model, got {d_model}")',
                "pass",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind-shift-ignores-k",
        L03,
        "relative_shift",
        "the angle leaves out k, so every matrix is the shift by one position.",
        AUTHOR,
        (
            r"k ?= ?1\b",
            r"ignor\w* k\b|k is (ignored|not used|unused)|does not depend on k|independent of k",
            r"same (matrix )?for every k",
            r"times k\b|multipl\w* by k\b|w_i ?\* ?k|k ?\* ?w",
        ),
        (r"transpos", r"negative k|sign"),
        edits=(("theta = k / np.power(", "theta = 1 / np.power("),),
        heldout=True,
    ),
    Case(
        "blind-posenc-parameter",
        L03,
        "PositionalEncoding",
        "stores the table as a trainable nn.Parameter instead of a fixed buffer.",
        PE_PARAMETER,
        (
            r"Parameter",
            r"trainable|learnable|requires_grad|gradient",
            r"register_buffer|\bbuffer\b",
        ),
        (r"plain attribute",),
        edits=(
            (
                'self.register_buffer("pe", table.unsqueeze(0))',
                "self.pe = nn.Parameter(table.unsqueeze(0))",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind-posenc-dropout-on-table",
        L03,
        "PositionalEncoding",
        "applies dropout to the encoding alone and adds x afterwards, instead of dropout on "
        "the sum x + PE.",
        AUTHOR,
        (
            r"dropout.{0,60}(sum|x \+ (pe|PE)|after adding|to the encoding|"
            r"only (to|on) the (encoding|table|pe))",
            r"(encoding|table|pe|PE) (alone|only)",
            r"dropout\(x \+",
        ),
        (r"no dropout|dropout (is )?missing|never appl", r"before adding|dropout first"),
        edits=(
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return x + self.dropout(self.pe[:, :length])",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 04 attention
    Case(
        "blind-softmax-global-max",
        L04,
        "softmax",
        "subtracts one global max instead of each slice's own, so a slice far below the "
        "global max underflows to zeros.",
        GLOBAL_MAX,
        (
            r"global|whole array|entire array|overall max",
            r"(each|every|per) slice'?s? (own )?max",
            r"one max per|max\w* per (slice|row)",
            r"max\w* (of|over) (the )?(whole|entire|all)",
            r"max\w* along (the )?axis",
        ),
        (r"no max|without (subtracting )?(the )?max|overflow",),
        edits=(("peak = np.max(x, axis=axis, keepdims=True)", "peak = np.max(x)"),),
        heldout=True,
    ),
    Case(
        "blind-softmax-all-inf-nan",
        L04,
        "softmax",
        "the textbook stable softmax: a slice whose entries are all -inf gives NaN "
        "(-inf - -inf, then 0/0).",
        ALL_INF_ROW,
        (
            r"all[- ]?-?inf|every entry (is )?-inf|entirely -inf|fully masked",
            r"all entries (are )?-inf",
            r"-?inf - -?inf|inf − inf",
            r"0 ?/ ?0",
        ),
        (r"overflow",),
        code="import numpy as np\n\n"
        "def softmax(x, axis=-1):\n"
        "    exps = np.exp(x - np.max(x, axis=axis, keepdims=True))\n"
        "    return exps / np.sum(exps, axis=axis, keepdims=True)\n",
        heldout=True,
    ),
    Case(
        "blind-row-scales-query-in-place",
        L04,
        "attention_row",
        "scales the caller's query array in place (query /= sqrt(d_k)).",
        AUTHOR,
        (r"in[- ]place", r"modif", r"mutat", r"(changed|altered) (the )?(input|query)"),
        (),
        edits=(
            (
                "scores = keys @ query / math.sqrt(d_k)",
                "query /= math.sqrt(d_k)\n    scores = keys @ query",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind-row-sum-over-features",
        L04,
        "attention_row",
        "sums the weighted values over the feature axis instead of over the keys.",
        AUTHOR,
        (
            r"(sum|add)\w* over (the )?(wrong axis|features|the value|d_v|axis ?=? ?1)",
            r"over the keys|over j\b|axis ?= ?0",
        ),
        (r"not summed|no sum",),
        edits=(
            ("output = weights @ values", "output = np.sum(weights[:, None] * values, axis=1)"),
        ),
        heldout=True,
    ),
    Case(
        "blind-sdpa-transpose-2-3",
        L04,
        "scaled_dot_product_attention",
        "hard-codes k.transpose(2, 3), which only works with exactly two leading dims.",
        TRANSPOSE_HARDCODED,
        (
            r"-2, ?-1",
            r"last two (axes|dims|dimensions)",
            r"leading (batch )?(dims|dimensions|axes)",
            r"any number of",
            r"hard-?cod",
            r"transpose\(2, ?3\)",
        ),
        (),
        edits=(("k.transpose(-2, -1)", "k.transpose(2, 3)"),),
        heldout=True,
    ),
    Case(
        "blind-sdpa-scale-d-v",
        L04,
        "scaled_dot_product_attention",
        "scales by sqrt of the value width d_v instead of d_k.",
        AUTHOR,
        (r"d_v", r"v\.shape", r"values?'? (width|dim|size)"),
        (r"len(gth)?_?k|sequence length|d_model", r"no scal|not scaled|missing (the )?scal"),
        edits=(("d_k = q.shape[-1]", "d_k = v.shape[-1]"),),
        heldout=True,
    ),
    Case(
        "blind-sdpa-nan-rows",
        L04,
        "scaled_dot_product_attention",
        "leaves the NaN weights of a query row whose keys are all blocked (softmax over all -inf).",
        FULLY_MASKED_NAN,
        (
            r"no allowed key|every key (is )?blocked|fully (masked|blocked)",
            r"all (the )?keys? (are )?(masked|blocked)|nothing (is )?allowed|entirely masked",
            r"all[- ]-?inf",
        ),
        (r"(mask (is )?(not )?inverted|polarity)", r"after (the )?softmax"),
        edits=(("weights = weights.masked_fill(nothing_allowed, 0.0)", "pass"),),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 05 multi-head attention
    Case(
        "blind-split-permute-order",
        L05,
        "split_heads",
        "permute(0, 2, 3, 1) puts d_head before len: (batch, num_heads, d_head, len).",
        PERMUTE_ORDER,
        (
            r"permute\(0, ?2, ?1, ?3\)",
            r"(len|length) and d_head (are )?(swapped|transposed)",
            r"d_head (before|ahead of) len",
            r"\(batch, ?num_heads, ?d_head, ?len\)",
            r"last two (axes|dims) (are )?(swapped|transposed)",
        ),
        (r"no transpose|without (a )?transpose", r"strided|interleav"),
        edits=((".transpose(1, 2)", ".permute(0, 2, 3, 1)"),),
        heldout=True,
    ),
    Case(
        "blind-merge-cat-on-length",
        L05,
        "merge_heads",
        "concatenates the heads along the time axis (dim=1) instead of the feature axis.",
        AUTHOR,
        (
            r"(time|position|length|len|sequence) axis",
            r"dim ?= ?(-1|2)\b",
            r"(feature|last) axis",
            r"along (the )?(len|length|positions|time)",
        ),
        (r"no transpose|without (a )?transpose",),
        code="import torch\n\ndef merge_heads(x):\n    return torch.cat(x.unbind(1), dim=1)\n",
        heldout=True,
    ),
    Case(
        "blind-mha-no-bias",
        L05,
        "MultiHeadAttention",
        "builds the four Linear layers with bias=False.",
        AUTHOR,
        (r"bias",),
        (),
        edits=tuple(
            (
                f"self.{name} = nn.Linear(d_model, d_model)",
                f"self.{name} = nn.Linear(d_model, d_model, bias=False)",
            )
            for name in ("w_q", "w_k", "w_v", "w_o")
        ),
        heldout=True,
    ),
    Case(
        "blind-mha-functional-dropout",
        L05,
        "MultiHeadAttention",
        "uses F.dropout(weights, p), whose training=True default keeps dropout on in eval mode.",
        FUNCTIONAL_DROPOUT,
        (
            r"dropout\w*.{0,60}(eval|not training|training=)",
            r"(eval|inference)\w*.{0,60}dropout",
            r"F\.dropout|functional dropout|self\.training",
        ),
        (r"dropout (on|applied to) the output",),
        edits=(
            ("if self.training and self.dropout.p > 0:", "if self.dropout.p > 0:"),
            (
                "heads = self.dropout(weights) @ v",
                "heads = torch.nn.functional.dropout(weights, self.dropout.p) @ v",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind-mha-merge-no-transpose",
        L05,
        "MultiHeadAttention",
        "merges the heads with a plain reshape (no transpose back), mixing heads and positions.",
        MERGE_PERMUTE,
        (
            r"transpose",
            r"merge_heads",
            r"heads? (and|with) positions|mix\w* (heads|positions)",
            r"plain reshape",
        ),
        (r"(no|missing|without) (the )?(w_o|output projection)", r"scal"),
        edits=(
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return self.w_o(heads.reshape(query.shape[0], query.shape[1], "
                "self.d_model)), weights",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 06 masking
    Case(
        "blind-padmask-expanded",
        L06,
        "padding_mask",
        "expands the mask to (batch, 1, len, len) instead of keeping (batch, 1, 1, len).",
        AUTHOR,
        (
            r"expand",
            r"\(batch, ?1, ?1, ?len\)",
            r"broadcast",
            r"len_q axis (must|should) be 1|size 1 on the (len_q|query) axis",
        ),
        (r"pads? (on|over) (the )?quer",),
        code="def padding_mask(ids, pad_id):\n"
        "    keep = (ids != pad_id)[:, None, None, :]\n"
        "    return keep.expand(-1, 1, ids.shape[1], -1)\n",
        heldout=True,
    ),
    Case(
        "blind-lookahead-one-ahead",
        L06,
        "look_ahead_mask",
        "tril(..., diagonal=1) lets each query see the next key too.",
        DIAGONAL,
        (
            r"next (key|position|token)",
            r"one (step|position|key) (ahead|into the future)",
            r"diagonal ?= ?1",
            r"above the diagonal|superdiagonal|j ?= ?i ?\+ ?1",
            r"(sees?|attend\w*) (to )?(a |the )?future",
        ),
        (r"upper triangle|triu|transpos", r"diagonal (is )?(missing|excluded)"),
        edits=(
            (
                "torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=1)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind-decmask-no-heads-axis",
        L06,
        "decoder_self_attention_mask",
        "returns (batch, len, len): the num_heads axis is missing.",
        MASK_HEADS_AXIS,
        (
            r"num_heads|heads? axis",
            r"\(batch, ?1, ?len, ?len\)",
            r"4-?d\b|four (axes|dims|dimensions)",
        ),
        (r"pad\w* on (the )?quer",),
        code="def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    keys = (tgt_ids != pad_id)[:, None, :]\n"
        "    return keys & look_ahead_mask(tgt_ids.shape[1])\n",
        heldout=True,
    ),
    Case(
        "blind-decmask-float-causal",
        L06,
        "decoder_self_attention_mask",
        "combines the bool padding mask with a float causal matrix (torch.tril of ones), "
        "and & is not defined for floats.",
        MASK_HEADS_AXIS,
        (r"float", r"bitwise_and"),
        (),
        code="import torch\n\n"
        "def decoder_self_attention_mask(tgt_ids, pad_id):\n"
        "    n = tgt_ids.shape[1]\n"
        "    return padding_mask(tgt_ids, pad_id) & torch.tril(torch.ones(n, n))\n",
        heldout=True,
    ),
]
