"""Held-out wrong answers for lessons 01-04, 09 and 12, blind round 18 (helper b18c,
2026-11-28): mistakes new to the benchmark, written blind (no check module, no message
read) while a fix round changed the checks, to measure how the diagnoses generalise to
mistakes nobody here has seen (``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L04, L09, L12 = "04_attention", "09_transformer", "12_inference"

_c = held_out_authored("blind18c")

BLIND18C: list[Case] = [
    # ---------------------------------------------------------------- 01_tokenization
    _c(
        "encode-source-reversed",
        L01,
        "encode",
        "encodes the tokens in reverse order (reversed(tokens)), the source-reversal trick of "
        "LSTM sequence-to-sequence models: every id is right but the sentence comes back "
        "backwards.",
        (
            r"revers",
            r"backwards?",
            r"\[::-1\]",
            r"(opposite|inverted) order",
        ),
        (
            r"<unk>.{0,40}(instead|not|rather)",
            r"lower-?cas",
            r"adds? (<bos>|<eos>)|wrap\w* .{0,20}<bos>",
            r"set\(",
            r"(skipp|dropp)\w* .{0,20}unknown",
        ),
        edits=(
            (
                "return [vocab.get(token, unk) for token in tokens]",
                "return [vocab.get(token, unk) for token in reversed(tokens)]",
            ),
        ),
    ),
    _c(
        "pairs-skip-equal-ids",
        L01,
        "get_pair_counts",
        "skips the pairs of two equal ids (if pair[0] != pair[1]), as if a repeated id made no "
        "pair: (a, a) is never counted, so [1, 1, 1, 2] gives {(1, 2): 1}.",
        (
            r"(two )?equal ids",
            r"same id (twice|repeated)|(the )?same ids?\b.{0,30}(pair|twice)",
            r"repeated (id|byte|token)s?",
            r"identical (ids|neighbou?rs|elements)",
            r"!=",
        ),
        (
            r"overlapping",
            r"first occurrence",
            r"last (adjacent )?pair",
            r"(one|1) too (many|few|high|low)",
            r"sorted|most_common",
        ),
        edits=(
            (
                "        counts[pair] = counts.get(pair, 0) + 1",
                "        if pair[0] != pair[1]:  # a repeated id is not a pair\n"
                "            counts[pair] = counts.get(pair, 0) + 1",
            ),
        ),
    ),
    _c(
        "bpe-decode-table-from-ids-only",
        L01,
        "bpe_decode",
        "starts the table with the single bytes that occur in ids only ({i: bytes([i]) for i in "
        "ids if i < 256}) instead of all 256 bytes: building the table then raises KeyError at "
        "any merge whose part is a byte the ids do not hold on their own, even a merge the "
        "ids never use; only ids holding every byte of every merge decode.",
        (
            r"(all|every|each of the) 256 (single )?bytes",
            r"range\(256\)",
            r"bytes? (that )?(do(es)?n't|do(es)? not|never) (occur|appear)",
            r"only (the )?(bytes|ids) (in|of|that occur in) (the )?ids",
        ),
        (
            r"bytes\(\[a, ?b\]\)|as (two )?raw bytes",
            r"latin",
            r"table\[a\] \+ table\[a\]",
            r"each token separately",
            r"\{new_id: ?pair\}|inverted",
            r"sort(ed|ing)\b|learned order",
        ),
        edits=(
            (
                "    table = {i: bytes([i]) for i in range(256)}",
                "    table = {i: bytes([i]) for i in ids if i < 256}  # only the bytes needed",
            ),
        ),
    ),
    _c(
        "pad-extra-column-for-eos",
        L01,
        "pad_batch",
        "makes the batch one column wider than the longest sequence (max_len + 1, 'room for an "
        "<eos>'): every row, the longest included, ends with an extra pad_id.",
        (
            r"one (column|position|entry|place) too (many|wide|long)",
            r"max_len ?\+ ?1|\+ ?1\b",
            r"(width|columns?|row length|max_len) (is )?(one|1) (more|too|larger|longer)",
            r"extra (pad|column|position)",
            r"wider than (the )?longest",
            r"longest (sequence|row) .{0,20}(padded|a pad)",
        ),
        (
            r"pads? (on the )?left|left-pad",
            r"first sequence",
            r"mean length",
            r"zeros? instead of (the )?pad",
            r"float",
        ),
        edits=(
            (
                "    max_len = max((len(seq) for seq in sequences), default=0)",
                "    max_len = max((len(seq) for seq in sequences), default=0) + 1  # room for <eos>",
            ),
        ),
    ),
    # ---------------------------------------------------------------- 02_embeddings
    _c(
        "embed-rows-unit-length",
        L02,
        "embed",
        "divides each looked-up vector by its length (unit-length rows, as for cosine "
        "similarity): the directions are right but each row is table[id] / |table[id]| instead "
        "of table[id].",
        (
            r"normali[sz]",
            r"unit[- ](length|norm|vectors?)",
            r"(divid\w*|scal\w*) by (its|their|the rows?'?s?|each row'?s) (own )?(length|norm)",
            r"norms? (of )?(1|one)\b",
        ),
        (
            r"sqrt\(d_model\)",
            r"transpos",
            r"one-?based|id ?- ?1",
            r"flatten",
            r"in place|modif\w* .{0,20}table",
        ),
        edits=(
            (
                "    return np.asarray(table)[np.asarray(ids)]",
                "    rows = np.asarray(table)[np.asarray(ids)]\n"
                "    return rows / np.linalg.norm(rows, axis=-1, keepdims=True)  # unit vectors",
            ),
        ),
    ),
    _c(
        "cos-self-similarity-zeroed",
        L02,
        "cosine_similarity",
        "zeroes the diagonal (np.fill_diagonal(sim, 0)) so that a vector is not its own nearest "
        "neighbour, a habit of nearest-neighbour code: every entry (i, i) is 0 instead of the "
        "cosine of a[i] and b[i] (1 when a is b).",
        (
            r"diagonal",
            r"\(i, ?i\)|\[i, ?i\]",
            r"own (nearest )?neighbou?r",
            r"self-similarit",
        ),
        (
            r"transpos",
            r"distance",
            r"absolute|np\.abs",
            r"clip",
            r"zero (vector|row)s?|NaN",
            r"rescal|\(cos ?\+ ?1\)",
        ),
        edits=(
            (
                "    return a_unit @ b_unit.T  # (n, m)",
                "    sim = a_unit @ b_unit.T  # (n, m)\n"
                "    np.fill_diagonal(sim, 0.0)  # a vector is not its own neighbour\n"
                "    return sim",
            ),
        ),
    ),
    _c(
        "tokemb-padding-idx-zero",
        L02,
        "TokenEmbedding",
        "builds the table with nn.Embedding(vocab_size, d_model, padding_idx=0), as seq2seq "
        "tutorials do for <pad>: row 0 starts as zeros and never receives a gradient, where the "
        "lesson's layer is a plain learnable table.",
        (
            r"padding_idx",
            r"row 0\b.{0,60}(zeros?|no gradient|frozen|never (updated|learn|train))",
            r"(id|token|row) 0 .{0,30}(gets|receives|has) no gradient",
        ),
        (
            r"sqrt\(vocab",
            r"divid\w* by sqrt",
            r"no_grad|detach",
            r"from_pretrained|freeze=",
            r"max_norm",
            r"swapped",
        ),
        edits=(
            (
                "        self.embedding = nn.Embedding(vocab_size, d_model)",
                "        self.embedding = nn.Embedding(vocab_size, d_model, padding_idx=0)  # <pad>",
            ),
        ),
        source="https://github.com/ibalazevic/TuckER/issues/17",
    ),
    _c(
        "onehot-ids-cast-uint8",
        L02,
        "one_hot",
        "casts the ids to uint8 to save memory before indexing the identity: ids of 256 or more "
        "wrap round modulo 256, so with a vocabulary above 256 a large id gets the vector of "
        "id % 256; smaller vocabularies are right.",
        (
            r"uint8|8-bit",
            r"wrap",
            r"modulo|% ?256",
            r"overflow",
        ),
        (
            r"max\(\)? ?\+ ?1|largest id",
            r"\bbool",
            r"transpos",
            r"flatten|ravel",
            r"label.?smooth",
        ),
        edits=(
            (
                "    return np.eye(vocab_size, dtype=np.float64)[np.asarray(ids)]",
                "    ids = np.asarray(ids).astype(np.uint8)  # small ids: save memory\n"
                "    return np.eye(vocab_size, dtype=np.float64)[ids]",
            ),
        ),
    ),
    # ---------------------------------------------------------------- 03_positional_encoding
    _c(
        "pe-exponents-linspace-to-one",
        L03,
        "positional_encoding",
        "spreads the exponents with np.linspace(0, 1, number of pairs), which ends at 1: pair i "
        "gets the exponent i / (pairs - 1) instead of 2i / d_model, so every pair after the "
        "first has too low a frequency (the last one 1/10000).",
        (
            r"linspace",
            r"exponents?.{0,60}(should|must) be 2i ?/ ?d_model",
            r"exponents?.{0,40}(ends?|reach\w*|go\w* up) (at|to) (exactly )?1\b",
            r"exponent of the last pair",
        ),
        (
            r"positions? (from|start\w* at) 1",
            r"(sin|cos)\w*.{0,20}swapped",
            r"log10|log base",
            r"floor.?div",
            r"2i ?\+ ?1",
            r"doubl\w* .{0,20}(index|2i)",
        ),
        edits=(
            (
                "    angles = positions / np.power(10000.0, two_i / d_model)",
                "    angles = positions / np.power(10000.0, np.linspace(0, 1, len(two_i)))",
            ),
        ),
    ),
    _c(
        "rs-zero-shift-identity-before-odd-check",
        L03,
        "relative_shift",
        "returns the identity for k == 0 as a shortcut placed before the odd-d_model check: "
        "relative_shift(0, odd d_model) returns np.eye instead of raising ValueError; every "
        "other call is right.",
        (
            r"k ?(=|==) ?0\b.{0,100}(odd|ValueError|rais)",
            r"(odd|ValueError|rais\w*).{0,100}k ?(=|==) ?0\b",
            r"(shortcut|early return|returns? (the )?identity).{0,60}(before|skips?).{0,40}(check|odd)",
        ),
        (
            r"abs\(k\)|absolute",
            r"-k\b|backwards",
            r"integer",
            r"transpos",
            r"(sin|cos)\w*.{0,20}swapped",
        ),
        edits=(
            (
                "    if d_model % 2:\n",
                "    if k == 0:\n"
                "        return np.eye(d_model)  # no shift: the identity\n"
                "    if d_model % 2:\n",
            ),
        ),
    ),
    _c(
        "PE-long-input-truncated",
        L03,
        "PositionalEncoding",
        "cuts a sequence longer than max_len to its first max_len positions (silent truncation, "
        "as a tokenizer's truncation=True) instead of raising ValueError: the output is shorter "
        "than the input.",
        (
            r"truncat",
            r"\bcut",
            r"(shorter|fewer positions) than (the|its) input",
            r"silently",
            r"instead of raising|(did|does)(n't| not) raise|should raise|must raise",
        ),
        (
            r">=",
            r"in place",
            r"dropout (is )?(applied|twice|in eval|only)",
            r"float64",
            r"nn\.Parameter|trainable",
        ),
        edits=(
            (
                '            raise ValueError(f"sequence length {length} exceeds '
                'max_len={self.pe.shape[1]}")',
                "            x, length = x[:, : self.pe.shape[1]], self.pe.shape[1]  # truncate",
            ),
        ),
    ),
    # ---------------------------------------------------------------- 04_attention
    _c(
        "softmax-cast-float32",
        L04,
        "softmax",
        "returns the weights cast to float32 (astype(np.float32), 'weights do not need double "
        "precision') whatever the input's dtype: a float64 input comes back as float32, with "
        "errors of about 1e-8.",
        (
            r"float32.{0,60}(instead of|not|rather than|expected).{0,20}float64",
            r"float64.{0,60}(comes? back|returned|returns?|became|becomes|as) .{0,20}float32",
            r"astype",
            r"(dtype|precision) (is )?(changed|lost|reduced)|los\w* precision",
        ),
        (
            r"global max|whole array",
            r"axis (argument )?ignored|hard-?cod\w* axis",
            r"in place",
            r"round",
            r"keepdims",
        ),
        edits=(
            (
                "    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)",
                "    weights = np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)\n"
                "    return weights.astype(np.float32)  # no need for double precision",
            ),
        ),
    ),
    _c(
        "ar-scale-numpy-size",
        L04,
        "attention_row",
        "takes d_k from keys.size, which for a numpy array is its number of entries (len_k * "
        "d_k), not its width (torch's tensor.size(-1) habit): the scores are divided by "
        "sqrt(len_k * d_k), so the weights are too flat.",
        (
            r"keys?\.size",
            r"number of (entries|elements)",
            r"len_k ?\* ?d_k|d_k ?\* ?len_k",
        ),
        (
            r"d_v|values'? width",
            r"no scal|forg\w* (the )?scal|unscaled",
            r"query @ keys",
            r"sqrt\(len_k\)",
            r"divid\w* by d_k\b(?! ?\*)",
        ),
        edits=(
            (
                "    d_k = query.shape[-1]\n    scores = keys @ query",
                "    d_k = keys.size  # the key width\n    scores = keys @ query",
            ),
        ),
    ),
    _c(
        "sdpa-d-k-from-dim-3",
        L04,
        "scaled_dot_product_attention",
        "reads d_k as q.size(3), assuming 4-D (batch, heads, len, d_k) inputs: right for a "
        "multi-head batch, but a 2-D or 3-D call raises IndexError (dimension out of range).",
        (
            r"size\(3\)|shape\[3\]",
            r"(axis|dim(ension)?) 3\b(?! but)",
            r"(assum\w*|only (works|handles)|hard-?cod\w*).{0,40}4-?D",
            r"instead of (q\.)?(size|shape)\(?\[?-1",
        ),
        (
            r"transpose\(1, ?2\)",
            r"\.T\b",
            r"d_v",
            r"sqrt\(len_k\)",
            r"mask.{0,20}(inverted|flipped)",
        ),
        edits=(
            (
                "    d_k = q.shape[-1]\n    scores = q @ k.transpose(-2, -1)",
                "    d_k = q.size(3)  # (batch, heads, len, d_k)\n"
                "    scores = q @ k.transpose(-2, -1)",
            ),
        ),
        source="https://github.com/waybarrios/vllm-mlx/pull/144",
    ),
    # ---------------------------------------------------------------- 09_transformer
    _c(
        "gd-finished-operator-precedence",
        L09,
        "greedy_decode",
        "writes finished = finished | next_token == eos_id without parentheses: | binds tighter "
        "than ==, so it computes (finished | next_token) == eos_id, which forgets rows that "
        "had finished: the step after its <eos> is padded, then the row is unfinished again "
        "and goes on generating.",
        (
            r"precedence",
            r"parenthes[ie]s",
            r"binds tighter",
            r"finished (flag|rows?|mask).{0,60}(reset|forgot\w*|cleared|lost|not kept|"
            r"un-?set|false again)",
            r"(un-?finish\w*|not finished) again",
        ),
        (
            r"finished\.any\(\)|any row",
            r"keepdim",
            r"max_len ?- ?1|one step short",
            r"sampl|multinomial",
            r"first position|logits\[:, ?0\]",
            r"before (padding|replacing)",
        ),
        edits=(
            (
                "            finished = finished | (next_token == eos_id)",
                "            finished = finished | next_token == eos_id",
            ),
        ),
        source="https://github.com/python/cpython/issues/116094",
    ),
    _c(
        "cp-w1-bias-sized-d-model",
        L09,
        "count_parameters",
        "sizes the first feed-forward layer's bias (w_1's) as d_model entries instead of d_ff: "
        "each layer's count is off by d_ff - d_model.",
        (
            r"w_?1'?s? bias",
            r"(first|inner|expanding) (linear|layer|feed-forward layer|projection)'?s? bias",
            r"bias .{0,40}(w_?1|first (linear|layer)).{0,40}d_ff",
            r"bias.{0,30}\bd_ff (entries|values|parameters|elements)",
        ),
        (
            r"w_?2'?s? bias",
            r"layer ?norm",
            r"attention (bias|projection)",
            r"tie_embeddings|tied",
            r"final (layer ?)?norm",
        ),
        edits=(
            (
                "    feed_forward = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)",
                "    feed_forward = (d_model * d_ff + d_model) + (d_ff * d_model + d_model)",
            ),
        ),
    ),
    _c(
        "tr-decoder-built-as-encoder",
        L09,
        "Transformer",
        "copy-paste slip in __init__: builds the decoder stack with the Encoder class "
        "(self.decoder = Encoder(*layers)), so it has no cross-attention and calling it with the "
        "memory and two masks raises TypeError.",
        (
            r"Encoder\(\*?layers\)|decoder\b.{0,40}\bEncoder\b",
            r"(no|without|lacks?) cross-?attention",
            r"decoder (is|was) (built|made|an?) .{0,20}encoder",
        ),
        (
            r"masks? .{0,20}swapped",
            r"tie|tied",
            r"log_?softmax",
            r"pad_?id",
            r"positional",
        ),
        edits=(
            ("        self.decoder = Decoder(*layers)", "        self.decoder = Encoder(*layers)"),
        ),
    ),
    # ---------------------------------------------------------------- 12_inference
    _c(
        "kv-write-ellipsis-last-axis",
        L12,
        "KVCache",
        "writes the new positions with self.keys[..., start:stop]: the ellipsis makes start:stop "
        "slice the last axis (d_head), not the positions, so the write raises a shape error (or, "
        "when the sizes happen to fit, writes features instead of positions).",
        (
            r"\.\.\.|ellipsis",
            r"last (axis|dim)|d_head axis|feature axis",
            r"(slic|index|writ)\w* .{0,30}(axis|dim) (-1|3)\b",
            r"positions? axis \(?(dim )?(2|-2)",
        ),
        (
            r"length (is )?(advanced|off)",
            r"whole buffer",
            r"dtype",
            r"batch axis",
            r"persistent",
        ),
        edits=(
            (
                "        self.keys[:, :, start:stop] = k_new",
                "        self.keys[..., start:stop] = k_new",
            ),
            (
                "        self.values[:, :, start:stop] = v_new",
                "        self.values[..., start:stop] = v_new",
            ),
        ),
    ),
    _c(
        "sw-masks-cached-by-size",
        L12,
        "sliding_window_mask",
        "caches the masks in a dict keyed by size alone (a mutable default argument, to build "
        "each mask once): a second call with the same size and another window returns the first "
        "call's mask.",
        (
            r"cach",
            r"(second|earlier|previous|first) call",
            r"(keyed|key) (only )?by size",
            r"stale",
            r"mutable default",
        ),
        (
            r"window ?\+ ?1|one too (wide|many)",
            r"one too (narrow|few)",
            r"both sides|symmetric",
            r"\bor\b.{0,20}instead of\b.{0,10}\band\b",
            r"float",
        ),
        edits=(
            (
                "def sliding_window_mask(size: int, window: int) -> torch.Tensor:",
                "def sliding_window_mask(size: int, window: int, _masks={}) -> torch.Tensor:",
            ),
            (
                "    recent = torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1 - window)\n"
                "    return look_ahead_mask(size) & recent  # (size, size)",
                "    if size not in _masks:  # build each mask once\n"
                "        ones = torch.ones(size, size, dtype=torch.bool)\n"
                "        _masks[size] = look_ahead_mask(size) & torch.triu(ones, diagonal=1 - window)\n"
                "    return _masks[size]  # (size, size)",
            ),
        ),
    ),
    _c(
        "gen-prefill-last-batch-row",
        L12,
        "generate",
        "takes the prefill's logits with [-1] instead of [:, -1]: that indexes the batch axis, "
        "giving the last sequence's logits at every prompt position, (len, vocab), instead of "
        "each sequence's at its last position; the concatenation then fails (only a batch of "
        "one with a one-token prompt is right).",
        (
            r"\[-1\].{0,40}(instead of|not|rather than).{0,10}\[:, ?-1\]",
            r"batch axis",
            r"last (sequence|batch (row|entry|element))",
            r"(index\w*|picks?|takes?) .{0,30}(first|batch) (axis|dim)",
        ),
        (
            r"first position|\[:, ?0\]",
            r"start ?=",
            r"cache.{0,20}(too small|sized)",
            r"probabilit|softmax",
            r"torch\.stack",
        ),
        edits=(
            (
                "    logits = model(prompt, caches=caches, start=0)[:, -1]",
                "    logits = model(prompt, caches=caches, start=0)[-1]",
            ),
        ),
    ),
    _c(
        "tiled-query-positions-len-k",
        L12,
        "tiled_attention",
        "builds the causal test's query positions with torch.arange(len_k) instead of len_q: "
        "right when len_q == len_k or causal=False, but with causal=True and len_q != len_k "
        "the (len_k, block) mask does not fit the (len_q, block) scores and masked_fill raises.",
        (
            r"arange\(len_k\)",
            r"query positions.{0,60}len_k",
            r"len_k.{0,40}instead of.{0,10}len_q",
        ),
        (
            r"bottom.?right",
            r">=|diagonal",
            r"block-?local|local to the block",
            r"d_v",
            r"scal\w* by",
        ),
        edits=(
            (
                "    query_positions = torch.arange(len_q)[:, None]",
                "    query_positions = torch.arange(len_k)[:, None]",
            ),
        ),
    ),
]
