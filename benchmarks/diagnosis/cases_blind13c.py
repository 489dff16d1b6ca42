"""Held-out wrong answers for lessons 00-02, blind round 13 (helper r13c, 2026-11-27):
mistakes new to the benchmark, written while the checks' mutation-based diagnosis was being
built, and judged before and after it. 24 cases over the fifteen exercises; ten transpose a
mistake reported in public (the URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L00, L01, L02 = "00_welcome", "01_tokenization", "02_embeddings"

# The reports these cases transpose (each read with the search tool for this benchmark).
TORCH_DIM_NOT_AXIS = "https://github.com/ufal/npfl138/pull/5"
REGEX_NOT_RAW = (
    "https://developmentality.wordpress.com/2011/09/22/"
    "python-gotcha-word-boundaries-in-regular-expressions/"
)
SPECIALS_UNK_PAD = "https://github.com/pytorch/text/issues/1016"
ARRAY_TRUTH_VALUE = "https://github.com/LorenFrankLab/spyglass/pull/184"
DELETE_WHILE_ITERATING = (
    "https://www.learnpythonwithrune.org/deleting-elements-of-a-python-list-while-iterating/"
)
MERGES_OFF_BY_ONE = "https://github.com/rasbt/LLMs-from-scratch/issues/619"
TUPLE_INDEX_ADVICE = "https://github.com/numpy/numpy/issues/11411"
COSINE_ZERO_GUARD = "https://github.com/HKUDS/LightRAG/pull/3421"
EMBEDDING_DROPOUT = "https://github.com/bentrevett/pytorch-sentiment-analysis/issues/74"
MODEL_DOUBLE = "https://github.com/cornellius-gp/gpytorch/issues/2003"

_c = held_out_authored("blind13c")

BLIND13C: list[Case] = [
    # ------------------------------------------------------------------ 00 center_rows
    _c(
        "center-torch-dim-keepdim",
        L00,
        "center_rows",
        "writes the PyTorch spelling of the reduction's keywords, x.mean(dim=-1, "
        "keepdim=True), on a numpy array, whose mean takes axis= and keepdims=: every call "
        "raises TypeError (unexpected keyword argument 'dim').",
        (
            r"\bdim\b.{0,80}\baxis\b",
            r"\baxis\b.{0,80}\bdim\b",
            r"keepdim\b.{0,80}keepdims",
            r"(PyTorch|torch)('s)? (keyword|argument|spelling|name)",
        ),
        (r"columns|axis=0", r"(whole|entire) array", r"in place", r"standard deviation"),
        edits=[("x.mean(axis=-1, keepdims=True)", "x.mean(dim=-1, keepdim=True)")],
        source=TORCH_DIM_NOT_AXIS,
    ),
    _c(
        "center-axis-ndim",
        L00,
        "center_rows",
        "averages along axis=x.ndim, one past the last axis (whose number is x.ndim - 1, or "
        "-1): numpy raises AxisError for every input.",
        (
            r"axis=x\.ndim",
            r"ndim\s*-\s*1",
            r"one past the last axis",
            r"(off|out) by one.{0,40}axis",
            r"axis.{0,40}out of bounds.{0,120}(-1|last axis)",
        ),
        (r"columns|axis=0", r"(whole|entire) array", r"in place", r"float\("),
        edits=[("x.mean(axis=-1, keepdims=True)", "x.mean(axis=x.ndim, keepdims=True)")],
    ),
    # ------------------------------------------------------------------ 01 tokenize
    _c(
        "tok-word-boundaries-not-raw",
        L01,
        "tokenize",
        'adds word boundaries to the pattern but writes it as a plain string, "\\b\\w+\\b|'
        '[^\\w\\s]": Python turns each \\b into a backspace character, so the word '
        "alternative never matches and every word is lost; only the punctuation marks come "
        "back.",
        (r"raw string", r"backspace", r"\br(-| )?prefix", r"\\x08"),
        (
            r"punctuation.{0,40}(dropped|missing|lost|removed)",
            r"(not|never) lower-?case",
            r"ASCII",
            r"runs? of punctuation",
        ),
        edits=[(r'r"\w+|[^\w\s]"', r'"\b\w+\b|[^\w\s]"')],
        source=REGEX_NOT_RAW,
    ),
    # ------------------------------------------------------------------ 01 build_vocab
    _c(
        "vocab-pad-unk-only",
        L01,
        "build_vocab",
        "starts the vocabulary with two special tokens only, <pad>=0 and <unk>=1 (a text "
        "classifier's specials), leaving out <bos> and <eos>: the data's tokens are numbered "
        "from 2 instead of 4.",
        (
            r"<bos>.{0,80}<eos>.{0,80}(missing|absent|left out|not in|lacks)",
            r"(missing|lacks|without|no|left out).{0,40}<bos>",
            r"<eos>.{0,40}(missing|absent|left out)",
            r"(only )?two special tokens",
            r"(numbered|ids?) (start(s|ing)? )?(from|at) 2\b",
        ),
        (
            r"\bties?\b",
            r"min_freq.{0,40}(ignored|not applied|strict)",
            r"alphabetical(ly)? only",
            r"<unk>.{0,20}(before|first).{0,20}<pad>",
            r"specials? (appended )?(last|after)",
        ),
        edits=[("enumerate(SPECIAL_TOKENS)", 'enumerate(("<pad>", "<unk>"))')],
        source=SPECIALS_UNK_PAD,
    ),
    _c(
        "vocab-break-on-special",
        L01,
        "build_vocab",
        "skips a token already in the vocabulary with break instead of continue: a data "
        "token equal to a special token ('<unk>' in Penn Treebank text) ends the loop, so "
        "every less frequent token after it is left out.",
        (
            r"\bbreak\b",
            r"(ends|stops|leaves) the loop",
            r"(every|all) (later|following|remaining|subsequent|less frequent) tokens?.{0,80}"
            r"(dropped|missing|left out|lost)",
            r"instead of continu",
        ),
        (
            r"(special|<unk>).{0,60}(new id|overwrit|renumber|reassign|gets? (a|another) id)",
            r"min_freq.{0,40}(ignored|not applied|strict)",
            r"\bties?\b",
            r"once per sentence",
        ),
        edits=[
            (
                "        if count >= min_freq and token not in vocab:\n"
                "            vocab[token] = len(vocab)",
                "        if token in vocab:\n"
                "            break\n"
                "        if count >= min_freq:\n"
                "            vocab[token] = len(vocab)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 01 encode
    _c(
        "encode-setdefault",
        L01,
        "encode",
        "looks tokens up with vocab.setdefault(token, unk) instead of vocab.get(token, unk): "
        "the ids are right, but every unknown token is written into the caller's vocabulary "
        "(with <unk>'s id).",
        (
            r"setdefault",
            r"(adds?|added|inserts?|inserted|writes?|wrote|stores?|stored) .{0,60}"
            r"(unknown|missing|new|unseen) tokens?.{0,40}(in|into|to) (the |your |its )?"
            r"(caller's )?vocab",
            r"vocab(ulary)? (was|is|has been) (changed|modified|mutated|grown)",
            r"(changes|changed|modifies|modified|mutates|mutated) the (caller's |given )?vocab",
        ),
        (
            r"KeyError",
            r"(as|to|becomes?) (the id of )?<pad>",
            r"hard-?coded 0",
            r"wraps?.{0,30}<bos>",
            r"(fresh|next free) ids?",
        ),
        edits=[("vocab.get(token, unk)", "vocab.setdefault(token, unk)")],
    ),
    # ------------------------------------------------------------------ 01 decode
    _c(
        "decode-empty-guard-and-return-in-loop",
        L01,
        "decode",
        "two mistakes at once: an emptiness guard `if not ids`, which raises ValueError (the "
        "truth value of an array is ambiguous) for a padded row given as a numpy array, and "
        "a return indented inside the loop, so a list of ids comes back as its first token "
        "only (and an empty list as []).",
        (
            r"truth value",
            r"if not ids",
            r"return.{0,40}inside (the )?(for )?loop",
            r"indent",
            r"(only|just) (the )?first (token|id)",
        ),
        (
            r"special tokens?.{0,40}(dropped|skipped|removed|left out)",
            r"(cut|stops?) at.{0,20}<eos>",
            r"position.{0,30}instead of",
            r"tolist",
            r"joined|one string",
        ),
        code="""
        def decode(ids, vocab):
            if not ids:
                return []
            id_to_token = {index: token for token, index in vocab.items()}
            tokens = []
            for index in ids:
                tokens.append(id_to_token[int(index)])
                return tokens
        """,
        source=ARRAY_TRUTH_VALUE,
    ),
    # ------------------------------------------------------------------ 01 pad_batch
    _c(
        "pad-row-without-slice",
        L01,
        "pad_batch",
        "copies each sequence into its whole row (batch[row] = seq) instead of the row's "
        "first len(seq) places: a sequence as long as the longest fits, one of length 1 is "
        "broadcast over its whole row, and any other shorter one raises ValueError (could "
        "not broadcast).",
        (
            r"batch\[row\] ?=",
            r"whole row",
            r"(without|no|missing) (a |the )?slice",
            r":\s*len\(seq\)",
            r"(first|leading) len\(seq\)",
        ),
        (
            r"pad_id.{0,40}(ignored|never used)",
            r"zeros? instead of pad_id",
            r"pads? (on )?the left|left-pad",
            r"float (dtype|array) (instead|rather)",
            r"(first|mean) (sequence's )?length",
            r"max\(\).{0,40}(empty|default)",
        ),
        edits=[("batch[row, : len(seq)] = seq", "batch[row] = seq")],
    ),
    # blind13c-pad-empty-batch-one-axis left out after the run: pad_batch accepts on purpose shape
    # (0,) for no sequences, with a note; generalisation.py lists it with the reason.
    # _c(
    #     "pad-empty-batch-one-axis",
    #     L01,
    #     "pad_batch",
    #     "pads each sequence as a list and converts the rows with np.array(rows, "
    #     "dtype=np.int64): right whenever there is a sequence (empty ones included), but no "
    #     "sequences at all give np.array([]), of shape (0,) instead of (0, 0).",
    #     (r"\(0,\)", r"np\.array\(\[\]", r"(no sequences|empty batch).{0,80}\(0, ?0\)"),
    #     (r"max\(\).{0,60}(empty|default)", r"ValueError", r"float (dtype|array) (instead|rather)"),
    #     code="""
    #     def pad_batch(sequences, pad_id):
    #         max_len = max((len(seq) for seq in sequences), default=0)
    #         rows = [list(seq) + [pad_id] * (max_len - len(seq)) for seq in sequences]
    #         return np.array(rows, dtype=np.int64)
    #     """,
    # ),
    # ------------------------------------------------------------------ 01 get_pair_counts
    _c(
        "pairs-slice-as-key",
        L01,
        "get_pair_counts",
        "uses the slice ids[i:i + 2] as the dict key: a slice of a list is a list, which "
        "cannot be a dict key (TypeError: unhashable type: 'list'); it works only when ids "
        "is a tuple.",
        (
            r"unhashable",
            r"slice.{0,60}(is a list|not a tuple|tuple\()",
            r"tuple\(ids\[i ?: ?i ?\+ ?2\]\)",
            r"(keys?|pairs?) must be (a )?tuples?",
        ),
        (r"last pair", r"first occurrence|by count", r"overlap", r"wrap"),
        code="""
        def get_pair_counts(ids):
            counts = {}
            for i in range(len(ids) - 1):
                pair = ids[i : i + 2]
                counts[pair] = counts.get(pair, 0) + 1
            return counts
        """,
    ),
    _c(
        "pairs-two-apart",
        L01,
        "get_pair_counts",
        "pairs each id with the one two places on (zip(ids, ids[2:])) instead of its "
        "neighbour: it counts (ids[i], ids[i + 2]), which are not adjacent, and misses "
        "every real pair.",
        (
            r"ids\[2:\]",
            r"(two|2) (places|positions|apart|steps)",
            r"ids\[i ?\+ ?2\]",
            r"skips? (one|an|the middle|every other) id",
        ),
        (r"last pair", r"wrap", r"swapped|reversed", r"even positions", r"non-?overlapping"),
        edits=[("zip(ids, ids[1:])", "zip(ids, ids[2:])")],
    ),
    # ------------------------------------------------------------------ 01 merge_pair
    _c(
        "merge-del-while-iterating",
        L01,
        "merge_pair",
        "copies the list, then merges inside the copy with del while a for loop runs over "
        "range(len(merged) - 1), fixed before the loop: each merge shortens the list, so the "
        "loop runs past its end (IndexError) unless the only merge is at the very end.",
        (
            r"(delet|remov|\bdel\b)\w*.{0,80}while (iterating|looping|the loop)",
            r"range\(len.{0,60}(fixed|computed|evaluated|taken) (once|before)",
            r"(list|copy) (gets |becomes )?shorter.{0,80}(loop|range|index)",
            r"shrinks?",
        ),
        (
            r"(changes|changed|modifies|modified) (the )?(caller|input)",
            r"overlap",
            r"bounds check|(a |the )?next id exists",
            r"(first|one) (occurrence|match) only",
        ),
        code="""
        def merge_pair(ids, pair, new_id):
            merged = list(ids)
            for i in range(len(merged) - 1):
                if (merged[i], merged[i + 1]) == pair:
                    merged[i] = new_id
                    del merged[i + 1]
            return merged
        """,
        source=DELETE_WHILE_ITERATING,
    ),
    _c(
        "merge-appends-pair",
        L01,
        "merge_pair",
        "appends the pair itself instead of new_id where a pair is merged: the list comes "
        "back with an (a, b) tuple in each merged place, and new_id never appears.",
        (
            r"append(s|ed|ing)? (the )?pair",
            r"new_id.{0,40}(never|not) (used|appended|appears)",
            r"(tuple|pair).{0,40}(in place of|instead of) (the )?new_id",
            r"(pair|tuple) itself",
        ),
        (
            r"in place",
            r"overlap",
            r"drops? the last",
            r"(first|second) (id|element) only",
            r"\bor\b instead of \band\b",
        ),
        edits=[("merged.append(new_id)", "merged.append(pair)")],
    ),
    # ------------------------------------------------------------------ 01 train_bpe
    _c(
        "train-one-merge-short",
        L01,
        "train_bpe",
        "loops over range(num_merges - 1), an off-by-one (as if one id were kept back for a "
        "special token), so training learns one merge fewer than asked whenever the text has "
        "enough pairs.",
        (
            r"num_merges ?- ?1",
            r"one (merge )?(too )?few",
            r"one merge (short|fewer|less|missing|too few)",
            r"(last|final) merge.{0,40}(missing|never learned|not learned)",
            r"off[- ]by[- ]one",
        ),
        (
            r"stop(s|ped)? early.{0,60}(no pair|fewer than two|twice)",
            r"vocab(ulary)? size",
            r"\bties?\b",
            r"(never|not) (recount|updated)",
            r"(from|at) 257",
        ),
        edits=[("for step in range(num_merges):", "for step in range(num_merges - 1):")],
        source=MERGES_OFF_BY_ONE,
    ),
    _c(
        "train-returns-merges-and-ids",
        L01,
        "train_bpe",
        "returns (merges, ids), the merges and the merged training ids together, instead of "
        "the merges dict alone.",
        (
            r"\btuple\b",
            r"(two|2) (values|things|objects|items)",
            r"\(merges, ?ids\)",
            r"(merges|dict) (and|together with|plus) (the )?(ids|training ids|merged ids)",
        ),
        (r"list of (pairs|merges)", r"\{new_id: ?pair\}|inverted", r"\(pair, count\)"),
        edits=[("return merges", "return merges, ids")],
    ),
    # ------------------------------------------------------------------ 01 bpe_encode
    _c(
        "bpe-encode-if-not-while",
        L01,
        "bpe_encode",
        "writes the merge step under an if instead of a while loop: only the earliest-learned "
        "merge present is applied (everywhere it occurs), once, and the merges that follow "
        "it are never tried.",
        (
            r"\bif\b.{0,40}(instead of|not|rather than) (a )?while",
            r"(only|just) (one|a single|the (first|earliest)(-learned)?) merge",
            r"(no|missing|without a) loop",
            r"stops? after (one|the first) merge",
            r"(never|not) (repeat|loop)",
        ),
        (
            r"latest|highest new id",
            r"most frequent",
            r"leftmost",
            r"bytes object",
            r"KeyError",
            r"(single|one) pass",
        ),
        code="""
        def bpe_encode(text, merges):
            ids = list(text.encode("utf-8"))
            if len(ids) >= 2:
                present = [pair for pair in get_pair_counts(ids) if pair in merges]
                if present:
                    pair = min(present, key=merges.get)
                    ids = merge_pair(ids, pair, merges[pair])
            return ids
        """,
    ),
    # ------------------------------------------------------------------ 01 bpe_decode
    # blind13c-bpe-decode-parts-reversed left out after the run: its code is one of the tests' own
    # mistakes (test_01 bpe_decode_parts_swapped); generalisation.py lists it with the reason.
    # _c(
    #     "bpe-decode-parts-reversed",
    #     L01,
    #     "bpe_decode",
    #     "builds each merged token's bytes as table[b] + table[a], its two parts in the wrong "
    #     "order: every token whose parts differ comes back with its halves swapped ('th' as "
    #     "'ht').",
    #     (
    #         r"table\[b\] ?\+ ?table\[a\]",
    #         r"(order|parts?|halves).{0,40}(swapped|reversed|exchanged|wrong order|other way)",
    #         r"(second|right) part (first|before)",
    #         r"(swapped|reversed) (order|halves|parts)",
    #     ),
    #     (
    #         r"latin-?1",
    #         r"bytes\(\[a, ?b\]\)",
    #         r"(each|every) token (separately|on its own)",
    #         r"space",
    #         r"chr\(",
    #         r"bytes\(i\)",
    #     ),
    #     edits=[("table[a] + table[b]", "table[b] + table[a]")],
    # ),
    _c(
        "bpe-decode-256-as-byte",
        L01,
        "bpe_decode",
        "expands ids recursively but takes every id up to and including 256 as a raw byte "
        "(if i <= 256): the first merge's id 256 goes to bytes([256]), which raises "
        "ValueError (bytes must be in range(0, 256)), so any text whose ids include 256 "
        "fails.",
        (
            r"<= ?256",
            r"256.{0,60}(is|as) (a |the first )?(merge|merged|new) id",
            r"(first|lowest) (merged?|new) id.{0,60}256",
            r"off[- ]by[- ]one",
            r"\bi < 256\b",
        ),
        (
            r"bytes\(\[a, ?b\]\)",
            r"(two|both) parts? as (raw )?bytes",
            r"latin",
            r"bytes\(i\)",
            r"cached|first call",
        ),
        code="""
        def bpe_decode(ids, merges):
            parts = {new_id: pair for pair, new_id in merges.items()}

            def expand(i):
                if i <= 256:
                    return bytes([i])
                a, b = parts[i]
                return expand(a) + expand(b)

            return b"".join(expand(i) for i in ids).decode("utf-8", errors="replace")
        """,
    ),
    # ------------------------------------------------------------------ 02 one_hot
    _c(
        "onehot-shape-plus-int",
        L02,
        "one_hot",
        "builds the output shape as ids.shape + vocab_size, adding an int to a tuple, where "
        "the shape needs ids.shape + (vocab_size,): every call raises TypeError (can only "
        'concatenate tuple (not "int") to tuple).',
        (
            r"\(vocab_size,\)",
            r"tuple.{0,40}\+.{0,20}(int|vocab_size)",
            r"shape \+ vocab_size",
            r"concatenat\w+ (a )?tuple",
        ),
        (
            r"width.{0,40}(max|largest)",
            r"bool",
            r"(1-D|one-dimensional) ids? only",
            r"transpos",
            r"flatten",
        ),
        code="""
        def one_hot(ids, vocab_size):
            ids = np.asarray(ids)
            out = np.zeros(ids.shape + vocab_size)
            np.put_along_axis(out, ids[..., None], 1.0, axis=-1)
            return out
        """,
    ),
    # ------------------------------------------------------------------ 02 embed
    _c(
        "embed-tuple-index",
        L02,
        "embed",
        "indexes the table with tuple(ids) (numpy's arr[tuple(seq)] advice applied to the "
        "ids): a tuple is read as one index per axis, so two ids pick the single entry "
        "table[i, j], more than two raise IndexError (too many indices), instead of one row "
        "per id.",
        (
            r"tuple\(ids\)",
            r"tuple.{0,80}(one index per (axis|dimension)|multi-?dimensional|"
            r"(row|first) and (column|second))",
            r"(each|every) id.{0,40}(separate|different|its own|next) (axis|dimension)",
            r"too many indices.{0,80}tuple",
        ),
        (
            r"table\[:, ?ids\]|transposed",
            r"flatten",
            r"squeez",
            r"np\.take",
            r"one-based|id ?- ?1",
        ),
        edits=[("np.asarray(table)[np.asarray(ids)]", "np.asarray(table)[tuple(ids)]")],
        source=TUPLE_INDEX_ADVICE,
    ),
    # ------------------------------------------------------------------ 02 cosine_similarity
    _c(
        "cos-any-zero-returns-zeros",
        L02,
        "cosine_similarity",
        "guards zero vectors with one early return: as soon as any row of a or b is zero it "
        "returns an all-zero (n, m) matrix, so the similarities of every other pair of rows "
        "are lost too.",
        (
            r"(all|every|whole).{0,40}(zero|0).{0,80}(any|one|a single) (zero )?(row|vector)",
            r"(any|one|a single) zero (row|vector).{0,80}(whole|entire|all|every)",
            r"early return",
            r"(other|non-?zero) (rows|pairs|vectors).{0,60}(also |too )?(zero|0|lost)",
        ),
        (
            r"(gives?|returns?|is) NaN",
            r"(floor|maximum).{0,30}\b1(\.0)?\b",
            r"clip",
            r"absolute",
        ),
        code="""
        def cosine_similarity(a, b):
            a = np.asarray(a, dtype=np.float64)
            b = np.asarray(b, dtype=np.float64)
            a_norm = np.linalg.norm(a, axis=-1, keepdims=True)
            b_norm = np.linalg.norm(b, axis=-1, keepdims=True)
            if np.any(a_norm == 0) or np.any(b_norm == 0):
                return np.zeros((a.shape[0], b.shape[0]))
            return (a / a_norm) @ (b / b_norm).T
        """,
        source=COSINE_ZERO_GUARD,
    ),
    _c(
        "cos-a-with-itself",
        L02,
        "cosine_similarity",
        "a copy-paste slip returns a_unit @ a_unit.T, the similarities of a's rows with each "
        "other, instead of a_unit @ b_unit.T: b is normalised but never used, and the result "
        "is (n, n), right only when b is a.",
        (
            r"a_unit ?@ ?a_unit",
            r"\ba\b.{0,20}(with|against) itself",
            r"\bb\b.{0,30}(never|not) used",
            r"ignores? (the second argument|b\b)",
            r"\(n, ?n\).{0,40}instead of.{0,20}\(n, ?m\)",
        ),
        (r"transpos", r"row[- ]?wise|row by row|matching rows", r"axis ?0", r"distance"),
        edits=[("a_unit @ b_unit.T", "a_unit @ a_unit.T")],
    ),
    # ------------------------------------------------------------------ 02 TokenEmbedding
    _c(
        "tokemb-dropout-inside",
        L02,
        "TokenEmbedding",
        "applies dropout (nn.Dropout(0.1)) to the scaled embeddings inside the module, as "
        "sentiment-analysis models do: in training mode, a new module's default, about a "
        "tenth of the entries are zeroed and the rest scaled by 1/0.9, so the output differs "
        "from call to call; only in eval mode is it right.",
        (
            r"\bdropout\b",
            r"training mode.{0,80}(random|differ|zero)",
            r"(differs?|changes?) (from|between) (one )?calls?.{0,80}(dropout|training)",
        ),
        (
            r"(new|fresh) (nn\.Embedding|table|embedding)",
            r"max_norm",
            r"(scales?|multiplies).{0,40}(weights|table).{0,30}(in place|every call|again)",
            r"LayerNorm",
        ),
        edits=[
            (
                "self.embedding = nn.Embedding(vocab_size, d_model)",
                "self.embedding = nn.Embedding(vocab_size, d_model)\n"
                "        self.dropout = nn.Dropout(0.1)",
            ),
            (
                "return self.embedding(ids) * math.sqrt(self.d_model)",
                "return self.dropout(self.embedding(ids) * math.sqrt(self.d_model))",
            ),
        ],
        source=EMBEDDING_DROPOUT,
    ),
    _c(
        "tokemb-double-table",
        L02,
        "TokenEmbedding",
        "converts the table to float64 (nn.Embedding(...).double(), the fix suggested for a "
        "Float/Double mismatch): the values are right but the output is float64 instead of "
        "the float32 the next layers expect.",
        (r"float64", r"\bdouble\b", r"dtype.{0,60}float32"),
        (
            r"from_pretrained",
            r"requires_grad|frozen|freeze",
            r"no_grad|detach",
            r"(new|fresh) (nn\.Embedding|table)",
        ),
        edits=[
            (
                "self.embedding = nn.Embedding(vocab_size, d_model)",
                "self.embedding = nn.Embedding(vocab_size, d_model).double()",
            )
        ],
        source=MODEL_DOUBLE,
    ),
]
