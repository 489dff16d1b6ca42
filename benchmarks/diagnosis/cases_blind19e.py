"""Held-out wrong answers, blind round 19 (helper b19e, 2026-11-28): mistakes new to the
benchmark, written blind (no check module, no message read) while fix round 21 changed the
checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L01, L02, L03 = "01_tokenization", "02_embeddings", "03_positional_encoding"
L07, L08 = "07_encoder", "08_decoder"

_c = held_out_authored("blind19e")

NLTK_TREEBANK = "https://www.nltk.org/api/nltk.tokenize.TreebankWordTokenizer.html"
NLTK_NUMBERS = "https://gist.github.com/1506443"
TUPLE_COMPREHENSION = "http://www.kouhan.cn/en/article/00026398"
PARLAI_EMPTY = "https://github.com/facebookresearch/ParlAI/pull/1166"
APPEND_EXTEND = (
    "https://www.delftstack.com/howto/python/what-is-the-difference-between-list-methods-"
    "append-and-extend/"
)
MINBPE_BASIC = "https://github.com/karpathy/minbpe/blob/master/minbpe/basic.py"
SKLEARN_ONE_ARGUMENT = "https://huggingface.co/datasets/nvidia/Nemotron-CC-Math-v1"
COSINE_OUTER = (
    "https://kiwix.lema.org/stackoverflow.com_en_all_2023-11/questions/33160949/"
    "cosine-distance-between-two-matrices"
)
EMBEDDING_FLOAT_IDS = "https://runebook.dev/ru/docs/pytorch/generated/torch.nn.functional.embedding"
INPLACE_BACKWARD = "http://discuss.pytorch.org/t/in-place-operation-and-resnet/10724"
EQUINOX_LAYERNORM = "https://github.com/patrick-kidger/equinox/pull/471"
ENCODER_WITH_EMBEDDINGS = "https://github.com/yangyZJU/Transformer- (paramters.py)"
SHIFTED_RIGHT = (
    "https://datascience.stackexchange.com/questions/88981/what-are-the-inputs-to-the-first-"
    "decoder-layer-in-a-transformer-model-during-the"
)
RESIDUAL_SQRT2 = "https://github.com/j40903272/mlds_2018spring (hw3/Components/Residual.py)"

# Phrases that name the other likely causes, shared by several cases.
_TOKENIZE_OTHERS = (
    r"(not|never|forg[eo]t\w* to|without) lower-?cas",
    r"punctuation (marks? )?(are |is )?(dropped|removed|missing|lost)",
    r"runs? of (punctuation|marks)",
    r"whitespace (kept|tokens?)|spaces? (kept|come back|as tokens?)",
)
_PAD_OTHERS = (
    r"pad\w* (on )?the left|left-pad",
    r"float (dtype|array|ids)",
    r"(ignores|never uses|without) pad_id|pad\w* with (0|zeros?) instead",
    r"truncat",
)

BLIND19E: list[Case] = [
    _c(
        "tok-treebank-contractions",
        L01,
        "tokenize",
        "borrows the Penn Treebank's contraction rules (NLTK's TreebankWordTokenizer) with the "
        "pattern \\w+(?=n't)|n't|'\\w+|\\w+|[^\\w\\s]: \"don't\" becomes 'do', \"n't\" and "
        "\"it's\" becomes 'it', \"'s\", so an apostrophe is glued to the letters around it "
        "instead of being a token of its own ('don', \"'\", 't').",
        (
            r"contraction",
            r"clitic",
            r"treebank",
            r"apostrophe.{0,60}(kept|glued|attached|joined|together|one token|same token|part of)",
            r"(kept|glued|attached|joined).{0,40}apostrophe",
            r"n't.{0,40}(one|single|same) token",
        ),
        _TOKENIZE_OTHERS,
        edits=(
            (
                r"""return re.findall(r"\w+|[^\w\s]", text.lower())""",
                r"""return re.findall(r"\w+(?=n't)|n't|'\w+|\w+|[^\w\s]", text.lower())""",
            ),
        ),
        source=NLTK_TREEBANK,
    ),
    _c(
        "tok-decimal-numbers-one-token",
        L01,
        "tokenize",
        "adds an alternative for numbers written with a decimal point or a thousands "
        "separator, \\d+(?:[.,]\\d+)+, as word tokenizers do ('$366.88', '50,000'): '3.14' "
        "and '50,000' stay one token each, where the lesson's rule makes the '.' or ',' "
        "between digits a token of its own ('3', '.', '14').",
        (
            r"decimal",
            r"numbers?.{0,60}(one|single|same) token",
            r"(point|comma|period|dot|separator|mark)s?.{0,40}(between|inside|within|in) "
            r"(the )?(digits|numbers)",
            r"thousands",
            r"\d[.,]\d.{0,40}(one|single) token",
        ),
        _TOKENIZE_OTHERS,
        edits=(
            (
                r"""return re.findall(r"\w+|[^\w\s]", text.lower())""",
                r"""return re.findall(r"\d+(?:[.,]\d+)+|\w+|[^\w\s]", text.lower())""",
            ),
        ),
        source=NLTK_NUMBERS,
    ),
    _c(
        "encode-generator-expression",
        L01,
        "encode",
        "writes the lookup between parentheses, (vocab.get(token, unk) for token in tokens), "
        "as if that were a tuple comprehension: it is a generator expression, so encode "
        "returns a lazy generator object, not a list (or tuple) of ids.",
        (
            r"generator",
            r"lazy",
            r"tuple comprehension",
            r"parenthes[ie]s.{0,60}(list|brackets|tuple)",
        ),
        (
            r"\ba set\b|set comprehension|braces",
            r"<unk>.{0,40}(hard-coded|instead of|wrong id)",
            r"KeyError",
            r"adds? (a )?<bos>|wraps? .{0,30}<bos>",
        ),
        edits=(
            (
                "return [vocab.get(token, unk) for token in tokens]",
                "return (vocab.get(token, unk) for token in tokens)",
            ),
        ),
        source=TUPLE_COMPREHENSION,
    ),
    _c(
        "pad-width-at-least-one",
        L01,
        "pad_batch",
        "makes the batch at least one column wide, max(longest length, 1) (the 'expand empty "
        "inputs to one pad' fix of ParlAI's padding helper): when every sequence is empty the "
        "batch is (batch, 1) of pad_id instead of (batch, 0), and no sequences at all give "
        "(0, 1) instead of (0, 0); every other batch is right.",
        (
            r"at least (one|1) (column|position|pad)",
            r"max\(.{0,40}, ?1\)",
            r"(width|max_len|columns?|longest length) (of |is |=)?(at least )?(1|one)\b.{0,40}"
            r"(instead of|where|but|should)",
            r"(should|must) (be|have) (0|zero|no) columns",
            r"(0|zero) columns",
            r"(one|1|an) (extra|column too many|pad column)",
            r"every sequence (is )?empty.{0,80}(width|max_len|columns?|wide)",
        ),
        _PAD_OTHERS,
        edits=(
            (
                "max_len = max((len(seq) for seq in sequences), default=0)",
                "max_len = max(max((len(seq) for seq in sequences), default=0), 1)",
            ),
        ),
        source=PARLAI_EMPTY,
    ),
    _c(
        "pad-every-row-written",
        L01,
        "pad_batch",
        "copies each sequence with batch[:, :len(seq)] = seq, a colon where the row index "
        "belongs: every sequence is written into every row, so all rows end up holding the "
        "same ids (each sequence's prefix over the last one's); a batch of one sequence is "
        "right.",
        (
            r"every row",
            r"all (the )?rows",
            r"batch\[:, ",
            r"rows? (are |were )?(all )?(the same|identical)",
            r"(same|identical) rows",
            r"row (index|axis).{0,40}(colon|slice|:)",
            r"(colon|:) (in place of|instead of|where) (the )?row",
        ),
        (*_PAD_OTHERS, r"(longest|width).{0,40}first sequence", r"sorted"),
        edits=(("batch[row, : len(seq)] = seq", "batch[:, : len(seq)] = seq"),),
    ),
    _c(
        "pairs-id-paired-with-itself",
        L01,
        "get_pair_counts",
        "a copy-paste slip in an index loop builds each pair as (ids[i], ids[i]) instead of "
        "(ids[i], ids[i + 1]): every position counts its id paired with itself, so "
        "[1, 1, 1, 2] gives {(1, 1): 3} instead of {(1, 1): 2, (1, 2): 1}.",
        (
            r"ids\[i\], ids\[i\]",
            r"(same id|an id|each id|the id) (twice|with itself|paired with itself)",
            r"paired with itself|pairs? .{0,20}with itself",
            r"ids\[i ?\+ ?1\]",
            r"second (id|element|item) .{0,40}(same|copy|repeat)",
        ),
        (
            r"overlap",
            r"last pair",
            r"(first[- ]occurrence|insertion) order|ordered by count",
            r"reversed|swapped",
            r"two apart|ids\[i ?\+ ?2\]",
        ),
        edits=(
            (
                "    for pair in zip(ids, ids[1:]):\n        counts[pair] = counts.get(pair, 0) + 1",
                "    for i in range(len(ids) - 1):\n"
                "        pair = (ids[i], ids[i])\n"
                "        counts[pair] = counts.get(pair, 0) + 1",
            ),
        ),
    ),
    _c(
        "merge-extend-new-id",
        L01,
        "merge_pair",
        "adds the new id with merged.extend(new_id) instead of merged.append(new_id): extend "
        "needs an iterable, so as soon as the pair occurs it raises TypeError ('int' object "
        "is not iterable); lists where the pair never occurs come back right.",
        (
            r"extend\w*.{0,60}(instead of|rather than|not|use) .{0,10}append",
            r"append.{0,30}(instead of|rather than|not) .{0,10}extend",
            r"use .?append",
            r"extend\w* .{0,40}(iterable|iterates)",
        ),
        (
            r"overlap",
            r"(modifies|changes|edits) the (input|caller'?s?) list|in[- ]place (on|in) the input",
            r"(bounds|index) check",
            r"last id",
        ),
        edits=(("            merged.append(new_id)", "            merged.extend(new_id)"),),
        source=APPEND_EXTEND,
    ),
    _c(
        "train-returns-vocab",
        L01,
        "train_bpe",
        "follows minbpe's train, which builds both the merges and the vocabulary {id: bytes}, "
        "and returns the vocabulary instead of the merges: the dict maps 0..255 and each new "
        "id to its bytes, where {pair: new_id} was asked.",
        (
            r"\{?(int|id|new_id)s?:? ?bytes\}?",
            r"(ints?|ids?|integers?) (to|->|→) (their )?bytes",
            r"bytes (values|objects)",
            r"(returns?|returned|gave|got) .{0,40}(vocab\b|vocabulary|byte table|table of bytes)",
            r"keys? .{0,30}(are )?(ints|integers|ids).{0,40}(instead of|not|where).{0,30}pairs?",
        ),
        (
            r"vocab(ulary)?[ _]size",
            r"num_merges ?- ?256",
            r"\{new_id: pair\}|new_id ?(->|to) ?pair",
            r"list of pairs",
            r"\bties?\b",
        ),
        edits=(
            ("    merges = {}", "    merges = {}\n    vocab = {i: bytes([i]) for i in range(256)}"),
            (
                "        merges[best] = 256 + step",
                "        merges[best] = 256 + step\n"
                "        vocab[256 + step] = vocab[best[0]] + vocab[best[1]]",
            ),
            ("    return merges", "    return vocab"),
        ),
        source=MINBPE_BASIC,
    ),
    _c(
        "bpe-decode-ascii-byte-table",
        L01,
        "bpe_decode",
        "starts the table with the 128 ASCII bytes only, {i: bytes([i]) for i in range(128)}, "
        "as if a byte were an ASCII character: every byte 128-255 (each byte of a non-ASCII "
        "character's UTF-8 encoding) is missing, so building the table or looking an id up "
        "raises KeyError as soon as the text or a merge holds one; ASCII text is right.",
        (
            r"range\(128\)",
            r"\b128\b.{0,60}(bytes?|entries|ids)",
            r"ascii (bytes|only|table)",
            r"(bytes|ids) 128(-| to |\.\.)255",
            r"(all|every one of the) 256 (single )?bytes",
        ),
        (
            r"bytes\(\[a, b\]\)|raw bytes",
            r"latin",
            r"cached|module-level",
            r"strip",
            r"replacement char",
            r"chr\(",
        ),
        edits=(
            (
                "table = {i: bytes([i]) for i in range(256)}",
                "table = {i: bytes([i]) for i in range(128)}",
            ),
        ),
    ),
    _c(
        "onehot-put-along-axis-without-new-axis",
        L02,
        "one_hot",
        "fills zeros of shape ids.shape + (vocab_size,) with np.put_along_axis(out, ids, 1, "
        "axis=-1), passing the ids without the extra last axis it needs (ids[..., None]): "
        "put_along_axis wants indices with as many dimensions as the array, so every call "
        "raises ValueError.",
        (
            r"ids\[\.\.\., ?None\]|ids\[:, ?None\]",
            r"expand_dims",
            r"(add|give|needs?|missing) (the )?ids (a|an|its|one) (last|trailing|extra|new) axis",
            r"(last|trailing|extra|new) axis (on|to|for|of) (the )?ids",
            r"ids (need|needs|must have) (a|an|one) (last|trailing|extra|new) axis",
        ),
        (
            r"width .{0,40}(max|largest)|ids\.max\(\)",
            r"flatten|ravel",
            r"transpos",
            r"\bbool",
            r"columns? (for|of) the (present|distinct) ids",
        ),
        edits=(
            (
                "    return np.eye(vocab_size, dtype=np.float64)[np.asarray(ids)]",
                "    ids = np.asarray(ids)\n"
                "    out = np.zeros(ids.shape + (vocab_size,))\n"
                "    np.put_along_axis(out, ids, 1, axis=-1)\n"
                "    return out",
            ),
        ),
    ),
    _c(
        "cos-np-outer-of-unit-rows",
        L02,
        "cosine_similarity",
        "remembers that the denominator is an outer product and applies np.outer to the "
        "unit rows themselves, np.outer(a_unit, b_unit), instead of a_unit @ b_unit.T: "
        "np.outer flattens both arrays, so the result is every entry times every entry, "
        "shape (n * d, m * d), not the (n, m) cosines.",
        (
            r"np\.outer|outer product",
            r"flatten\w*.{0,40}(rows|inputs|arrays|both)",
            r"\(n ?\* ?d, m ?\* ?d\)",
            r"every (entry|element|number|feature) (with|times) every",
        ),
        (
            r"transpos",
            r"norm (over|along) (axis 0|the wrong axis)|(whole|entire) matrix",
            r"without keepdims",
            r"row-?wise|matching rows|row i with row i",
            r"(returns?|gives?) (the )?(cosine )?distance",
        ),
        edits=(
            (
                "return a_unit @ b_unit.T  # (n, m)",
                "return np.outer(a_unit, b_unit)  # (n, m)",
            ),
        ),
        source=COSINE_OUTER,
    ),
    _c(
        "cos-one-stacked-argument",
        L02,
        "cosine_similarity",
        "computes the similarities the way scikit-learn's cosine_similarity(X) does with one "
        "argument: it stacks a and b into one array and returns the cosine of every stacked "
        "row with every other, shape (n + m, n + m), a's rows against each other included, "
        "instead of the (n, m) block of a's rows against b's.",
        (
            r"stack\w*|concatenat\w*|vstack",
            r"\(n ?\+ ?m, n ?\+ ?m\)",
            r"(a|b)'?s? rows (with|against) (each other|themselves)",
            r"(one|single) (stacked|combined|joined) (array|matrix)",
        ),
        (
            r"transpos",
            r"np\.outer|outer product",
            r"row-?wise|matching rows|row i with row i",
            r"(returns?|gives?) (the )?(cosine )?distance",
            r"(whole|entire) matrix",
        ),
        edits=(
            (
                "    a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)  # (n, d)\n"
                "    b_unit = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)  # (m, d)\n"
                "    return a_unit @ b_unit.T  # (n, m)",
                "    x = np.concatenate([a, b])  # (n + m, d)\n"
                "    x_unit = x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)\n"
                "    return x_unit @ x_unit.T",
            ),
        ),
        source=SKLEARN_ONE_ARGUMENT,
    ),
    _c(
        "tokemb-ids-cast-to-float",
        L02,
        "TokenEmbedding",
        "converts the ids to float before the lookup (self.embedding(ids.float())), to match "
        "the float32 output: nn.Embedding takes integer indices only, so every forward raises "
        "RuntimeError (expected Long or Int indices, got FloatTensor).",
        (
            r"\.float\(\)",
            r"(casts?|converts?|turns?|changes?) (the )?ids (to|into) (a )?float",
            r"float ids|ids (as|to|are) floats?",
            r"ids .{0,40}(must|should) (stay|be|remain) (integers?|int64|long)",
        ),
        (
            r"(forgot|missing|without|never applies) (the )?(sqrt|scale)",
            r"divid\w+ by sqrt",
            r"transpos",
            r"(arguments|sizes) (are )?swapped",
            r"padding_idx",
        ),
        edits=(
            (
                "return self.embedding(ids) * math.sqrt(self.d_model)",
                "return self.embedding(ids.float()) * math.sqrt(self.d_model)",
            ),
        ),
        source=EMBEDDING_FLOAT_IDS,
    ),
    _c(
        "posenc-dropout-baked-into-table",
        L03,
        "PositionalEncoding",
        "also passes the table through the module's dropout in __init__ before registering it "
        "(self.dropout(table)): the module is in training mode when built, so with "
        "dropout > 0 the stored buffer has a fixed random set of entries zeroed and the rest "
        "scaled by 1 / (1 - p), in eval as in training; with dropout=0 it is right.",
        (
            r"__init__.{0,60}dropout|dropout.{0,60}(__init__|construct|when (it is )?built|once)",
            r"(table|buffer|pe\b).{0,60}(dropped|zeroed|scaled|damaged|corrupt)",
            r"(fixed|frozen|permanent|stored) (random )?(dropout )?mask",
            r"dropout .{0,30}(applied )?to the (stored )?(table|buffer)",
        ),
        (
            r"(plain|not a registered|not registered).{0,20}(attribute|buffer)",
            r"float64 (buffer|table)|table (is |stored as )?float64",
            r"trainable|nn\.Parameter",
            r"(never applies|no) dropout",
            r"dropout (before the addition|on x alone|to x alone)",
            r"adds? .{0,20}in[- ]place|x \+=",
        ),
        edits=(
            (
                'self.register_buffer("pe", table.unsqueeze(0))',
                'self.register_buffer("pe", self.dropout(table).unsqueeze(0))',
            ),
        ),
    ),
    _c(
        "rs-odd-rows-own-frequency",
        L03,
        "relative_shift",
        "gives the lower row of each 2x2 block (the cosine feature 2i+1) an angle of its own, "
        "k / 10000^((2i+1)/d_model), as if each feature had its own frequency: the block's "
        "two rows turn by different angles, so it is no rotation and PE[pos] @ M is not "
        "PE[pos + k]; k = 0 is right (the identity).",
        (
            r"(own|separate|different|another) (frequency|angle|omega|w_i)",
            r"(odd|cosine|second|lower) (rows?|features?|entries).{0,60}(own|another|different|"
            r"wrong) (frequency|angle)",
            r"(both|all four) entries .{0,40}same angle",
            r"one angle per pair",
            r"same (frequency|angle) (for|in) (both|the whole|each) (rows?|block|pair)",
        ),
        (
            r"transpos",
            r"without k|ignores k|k (is )?left out",
            r"minus sign",
            r"exponent .{0,20}\bi\b|2i.{0,20}(instead of|not) i",
            r"degrees|radians",
        ),
        edits=(
            (
                "    theta = k / np.power(10000.0, two_i / d_model)  # the rotation angle of each pair",
                "    theta = k / np.power(10000.0, two_i / d_model)  # the rotation angle of each pair\n"
                "    theta_odd = k / np.power(10000.0, (two_i + 1) / d_model)",
            ),
            ("m[two_i + 1, two_i] = np.sin(theta)", "m[two_i + 1, two_i] = np.sin(theta_odd)"),
            (
                "m[two_i + 1, two_i + 1] = np.cos(theta)",
                "m[two_i + 1, two_i + 1] = np.cos(theta_odd)",
            ),
        ),
    ),
    _c(
        "quiz-row-length-precedence",
        L03,
        "quiz_row_length",
        "means sqrt(128 / 2) but writes 128 / 2 ** 0.5: ** binds tighter than /, so it "
        "computes 128 / sqrt(2), about 90.5, instead of 8.",
        (
            r"precedence",
            r"\*\* (binds|is evaluated|applies|comes) .{0,20}(first|before|tighter)",
            r"2 \*\* 0\.5",
            r"\(128 / 2\) ?\*\* ?0\.5",
            r"128 ?/ ?sqrt\(2\)",
        ),
        (
            r"squared length|forgot the square root|\b64\b",
            r"unit (vector|length)",
            r"d_model ?= ?512",
            r"sqrt\(128\) ?/ ?2|5\.66",
            r"\bNone\b",
        ),
        edits=(("    return 8.0", "    return 128 / 2 ** 0.5"),),
    ),
    _c(
        "ffn-dropout-inplace",
        L07,
        "PositionwiseFeedForward",
        "builds the dropout with nn.Dropout(dropout, inplace=True) to save memory: it "
        "overwrites the ReLU's output, which ReLU's backward needs, so in training with "
        "dropout > 0 the backward pass raises RuntimeError (a variable needed for gradient "
        "computation was modified in place); forward values, eval mode and dropout=0 are "
        "right.",
        (
            r"inplace ?= ?True",
            r"in-place dropout|dropout (is |applied |works )?in[- ]place",
            r"nn\.Dropout\(.{0,30}inplace",
            r"(overwrit\w+|modif\w+) the relu'?s? output",
        ),
        (
            r"dropout (is )?(applied )?(after|to the output of|on the output of) w_2",
            r"functional dropout|F\.dropout",
            r"(always on|stays on) in eval",
            r"relu (after|on the output of) w_2",
            r"residual (inside|added)|adds? (the )?input back",
        ),
        edits=(
            (
                "self.dropout = nn.Dropout(dropout)",
                "self.dropout = nn.Dropout(dropout, inplace=True)",
            ),
        ),
        source=INPLACE_BACKWARD,
    ),
    _c(
        "ln-functional-normalized-shape-all-but-batch",
        L07,
        "LayerNorm",
        "calls F.layer_norm(x, x.shape[1:], self.weight, self.bias, self.eps), reading "
        "normalized_shape as 'everything but the batch axis': right for a 2-D (tokens, "
        "d_model) input, but for (batch, len, d_model) it asks to normalise over positions "
        "and features together and raises RuntimeError, the (d_model,) weight not matching "
        "(len, d_model).",
        (
            r"x\.shape\[1:\]",
            r"normali[sz]ed_shape .{0,60}(should|must|needs to) be .{0,30}"
            r"(\(d_model,?\)|last|x\.shape\[-1:\]|d_model)",
            r"(only|just) the last (axis|dimension)",
            r"(everything|all axes) (but|except) the batch",
            r"(positions|sequence|len) and (the )?features together",
        ),
        (
            r"unbiased|\bd ?- ?1\b",
            r"eps (outside|added to the std)",
            r"keepdim",
            r"batch axis .{0,20}(statistics|mean)|dim=0",
            r"gain and bias (are )?swapped",
        ),
        edits=(
            (
                "        mean = x.mean(dim=-1, keepdim=True)  # (..., 1): one mean per token\n"
                "        variance = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1), biased\n"
                "        return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
                "        return torch.nn.functional.layer_norm(\n"
                "            x, x.shape[1:], self.weight, self.bias, self.eps\n"
                "        )",
            ),
        ),
        source=EQUINOX_LAYERNORM,
    ),
    _c(
        "enc-positional-encoding-inside",
        L07,
        "Encoder",
        "puts the positional encoding inside the encoder, as implementations whose Encoder "
        "holds its own embeddings do: forward adds a PositionalEncoding(d_model, dropout) to "
        "x before the first layer, although x arrives already embedded with positions, so "
        "every output is shifted (and the state dict has an extra pos_enc.pe buffer).",
        (
            r"positional (encoding|encodings|table)",
            r"pos_enc|PositionalEncoding",
            r"adds? (the )?positions",
            r"position(al)? (information|signal|table) .{0,30}(added|twice|again)",
        ),
        (
            r"residual (connection )?around",
            r"final (layer ?)?norm (is )?(missing|always|never|applied when|should)",
            r"shared|same layer object",
            r"not chained|stack's input",
            r"sqrt\(d_model\)|scal(es|ed) (the )?input",
        ),
        edits=(
            (
                "        self.norm = LayerNorm(d_model) if use_final_norm else None",
                "        self.norm = LayerNorm(d_model) if use_final_norm else None\n"
                "        from transformer_course.reference.positional_encoding import "
                "PositionalEncoding\n\n"
                "        self.pos_enc = PositionalEncoding(d_model, dropout=dropout)",
            ),
            (
                "        for layer in self.layers:\n            x = layer(x, mask)",
                "        x = self.pos_enc(x)\n"
                "        for layer in self.layers:\n            x = layer(x, mask)",
            ),
        ),
        source=ENCODER_WITH_EMBEDDINGS,
    ),
    _c(
        "dec-target-shifted-inside",
        L08,
        "Decoder",
        "shifts the target inside the decoder (x[:, :-1], and tgt_mask cut to match), "
        "reading 'outputs (shifted right)' as the decoder's job, although the caller already "
        "gives it the shifted input: the output has len_tgt - 1 positions, the last one lost.",
        (
            r"shift",
            r"(drops?|cuts?|removes?|loses?|lost) the last (position|token|row)",
            r"x\[:, ?:-1\]",
            r"one (position|token) (short|too few|fewer|missing)",
            r"len_tgt ?- ?1",
        ),
        (
            r"masks? (are )?swapped|torch'?s? order",
            r"not chained|decoder's input",
            r"(only|returns) the last position",
            r"final (layer ?)?norm (is )?(missing|always|never|applied when|should)",
            r"skips? the first layer|first layer (never|is skipped)",
        ),
        edits=(
            (
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)",
                "        x = x[:, :-1]\n"
                "        if tgt_mask is not None:\n"
                "            tgt_mask = tgt_mask[..., : x.size(1), : x.size(1)]\n"
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)",
            ),
        ),
        source=SHIFTED_RIGHT,
    ),
    _c(
        "dl-residual-scaled-by-sqrt-half",
        L08,
        "DecoderLayer",
        "scales every residual sum by sqrt(0.5), (x + sublayer) * 0.5 ** 0.5 (the variance-"
        "keeping residual of convolutional seq2seq code), in both layouts: post-LN hides it "
        "(the LayerNorm that follows undoes the scale, up to eps), but the pre-LN stream "
        "shrinks by sqrt(2) at each of the three sub-layers.",
        (
            r"sqrt\(0\.5\)|0\.5 ?\*\* ?0\.5|1 ?/ ?sqrt\(2\)|sqrt\(2\)|0\.707",
            r"(scal\w+|multipl\w+|divid\w+|shrink\w*) (the )?residual",
            r"residual (sums? |stream )?.{0,40}(scaled|multiplied|divided|shrunk)",
        ),
        (
            r"(no|missing|without) (the )?residual",
            r"norm[123] .{0,20}(swapped|twice|reused)",
            r"masks? (are )?swapped|tgt_mask .{0,30}cross",
            r"memory .{0,30}normali[sz]ed",
            r"dropout on the (residual|stream)",
        ),
        edits=(
            (
                "            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])",
                "            x = (x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])) * 0.5**0.5",
            ),
            (
                "            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])",
                "            x = (x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])) "
                "* 0.5**0.5",
            ),
            (
                "            return x + self.dropout(self.feed_forward(self.norm3(x)))",
                "            return (x + self.dropout(self.feed_forward(self.norm3(x)))) * 0.5**0.5",
            ),
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
                "x = self.norm1((x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0])) * 0.5**0.5)",
            ),
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm2(\n"
                "            (x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0])) * 0.5**0.5\n"
                "        )",
            ),
            (
                "return self.norm3(x + self.dropout(self.feed_forward(x)))",
                "return self.norm3((x + self.dropout(self.feed_forward(x))) * 0.5**0.5)",
            ),
        ),
        source=RESIDUAL_SQRT2,
    ),
]
