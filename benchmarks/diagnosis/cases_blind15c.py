"""Held-out wrong answers for lessons 00-02, blind round 15 (helper b15c, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 17's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 24 cases over the
nineteen exercises and questions; nine transpose a mistake reported in public (the URL read
for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L00, L01, L02 = "00_welcome", "01_tokenization", "02_embeddings"

# The reports these cases transpose (each read with the search tool for this benchmark).
MIN_COUNT_DEFAULT_FIVE = "https://github.com/facebookresearch/fastText/issues/83"
UNK_SPELLED_OTHERWISE = "https://github.com/google-research/google-research/issues/134"
OOV_IDS_PAST_VOCAB = "https://github.com/atulkum/pointer_summarizer/issues/8"
LIST_PLUS_EQUALS_STRING = (
    "https://discuss.python.org/t/should-be-the-same-as-but-its-giving-me-error-list/12034"
)
UNIQUE_SORTS = "https://github.com/numpy/numpy/issues/8621"
VECTORIZE_RETURNS_SEQUENCE = "https://github.com/numpy/numpy/issues/13494"
EPS_ADDED_TO_VECTORS = "https://github.com/enoche/ImRec/issues/1"
SCALAR_ZERO_GUARD = "https://github.com/featurebyte/featurebyte/pull/2225"
FUNCTION_WITHOUT_RETURN = "https://github.com/cyberboysumanjay/JioSaavnAPI/issues/32"

_c = held_out_authored("blind15c")

BLIND15C: list[Case] = [
    # ------------------------------------------------------------------ 00 welcome
    _c(
        "center-sum-over-n-minus-one",
        L00,
        "center_rows",
        "computes each row's mean as its sum divided by n - 1 (x.shape[-1] - 1, the "
        "sample-variance correction carried over) instead of n: every row is shifted by "
        "sum / (n - 1), so the rows do not average 0 (and a row of one entry divides by zero).",
        (
            r"n ?- ?1\b",
            r"shape\[-1\] ?- ?1",
            r"bessel|ddof|sample[- ](variance|correction)",
            r"(divid\w*|denominator).{0,60}(one (too )?(few|less|fewer)|minus one|length - 1)",
            r"(sum|total).{0,60}(divided by|over) .{0,30}(one (fewer|less)|n ?- ?1)",
        ),
        (
            r"standard deviation|divides? by (the )?std",
            r"(down|along|over) the columns|axis ?= ?0\b",
            r"in place",
            r"x\.shape\[0\]|number of rows",
            r"wrong sign|mean - x",
            r"floor division|//",
            r"median|minimum",
        ),
        code="""
def center_rows(x):
    n = x.shape[-1]
    return x - x.sum(axis=-1, keepdims=True) / (n - 1)
""",
    ),
    _c(
        "center-transposed-not-back",
        L00,
        "center_rows",
        "subtracts the row means (taken without keepdims) from x.T, so that they broadcast "
        "along x.T's last axis, and returns that without transposing back: a 1-D x is right, "
        "a 2-D x comes back transposed (columns, rows), and a 3-D x raises a broadcasting "
        "error (x.T reverses all three axes).",
        (
            r"transpos",
            r"\.T\b",
            r"(rows and columns|axes) (are )?(swapped|reversed|exchanged)",
            r"revers\w* (all |every )?(the |its )?axes",
        ),
        (
            r"(down|along|over) the columns|axis ?= ?0\b",
            r"in place",
            r"standard deviation",
            r"wrong sign|mean - x",
            r"flatten|reshape\(-1",
        ),
        code="""
def center_rows(x):
    return x.T - x.mean(axis=-1)
""",
    ),
    # ------------------------------------------------------------------ 01 tokenization
    _c(
        "tok-loop-mark-before-word",
        L01,
        "tokenize",
        "a character loop that, at a punctuation mark, appends the mark before flushing the "
        "word it has been collecting: a mark written directly after a word comes out before "
        "that word ('hello,' gives ',', 'hello'); marks after a space, and the words, are "
        "right.",
        (
            r"(marks?|punctuation).{0,60}before (the |its )?(word|preceding)",
            r"(word|preceding word).{0,60}after (the |its )?(mark|punctuation)",
            r"(order|swapped|reversed|wrong place).{0,60}(marks?|punctuation|word)",
            r"(marks?|punctuation|word).{0,60}(swapped|reversed|out of order|wrong order)",
            r"flush",
        ),
        (
            r"glued|one token",
            r"not lower-?cased|does(n't| not) lower-?case",
            r"(dropped|lost|missing) .{0,20}(mark|punctuation)",
            r"last word",
            r"underscore",
        ),
        code="""
def tokenize(text):
    tokens, word = [], ""
    for char in text.lower():
        if char.isalnum() or char == "_":
            word += char
        else:
            if not char.isspace():
                tokens.append(char)
            if word:
                tokens.append(word)
                word = ""
    if word:
        tokens.append(word)
    return tokens
""",
    ),
    _c(
        "tok-gpt2-space-before-word",
        L01,
        "tokenize",
        "borrows GPT-2's space-before-word alternative (r' ?\\w+|[^\\w\\s]'), so every word that "
        "follows a space keeps that space as its first character (' love', ' you'): only a "
        "word at the start of the text or right after a mark comes out bare.",
        (
            r"(leading|preceding) (space|whitespace)",
            r"space (before|in front of|at the start of) (each|the|every|a) word",
            r"(keeps?|kept|includes?|including|with) (the |a )?(space|whitespace)",
            r"(words?|tokens?) (start|begin)s? with a space",
            r"gpt-?2|pre-?tokeni[sz]",
        ),
        (
            r"punctuation (runs?|marks?) .{0,30}(glued|one token)",
            r"not lower-?cased|does(n't| not) lower-?case",
            r"tabs|newlines",
            r"empty[- ]strings?",
        ),
        code=r"""
def tokenize(text):
    return re.findall(r" ?\w+|[^\w\s]", text.lower())
""",
    ),
    _c(
        "vocab-default-min-freq-five",
        L01,
        "build_vocab",
        "gives min_freq a default of 5 (the minCount of fastText and word2vec) instead of 1: "
        "called with an explicit min_freq it is right, but called without one it leaves out "
        "every token seen fewer than 5 times.",
        (
            r"default.{0,60}(min_freq|\b5\b)",
            r"min_freq.{0,40}(default|not given|omitted|left out)",
            r"without (a |an |the )?(explicit )?min_freq",
        ),
        (
            r"strictly|> ?min_freq|more than min_freq",
            r"ties?\b.{0,40}(alphabetical|first[- ]seen|order)",
            r"special tokens?.{0,30}(missing|left out)",
            r"document frequency|once per sentence",
            r"most_common\(min_freq\)",
        ),
        code="""
def build_vocab(token_lists, min_freq=5):
    counts = Counter(token for tokens in token_lists for token in tokens)
    vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab
""",
        source=MIN_COUNT_DEFAULT_FIVE,
    ),
    _c(
        "encode-unk-spelled-bert-style",
        L01,
        "encode",
        "looks the unknown token's id up under BERT's spelling, vocab['[UNK]'], where the "
        "course's vocabulary names it '<unk>': every call raises KeyError: '[UNK]', even "
        "when every token is known.",
        (
            r"\[UNK\].{0,80}(not (a key|in the vocab)|no such key|spell|<unk>)",
            r"<unk>.{0,80}\[UNK\]",
            r"KeyError.{0,10}\[UNK\]",
        ),
        (
            r"vocab\[token\]",
            r"unknown tokens? .{0,40}(raises?|KeyError).{0,40}instead of",
            r"hard-?coded",
            r"(adds?|wraps?) .{0,30}<bos>",
        ),
        code="""
def encode(tokens, vocab):
    unk = vocab["[UNK]"]
    return [vocab.get(token, unk) for token in tokens]
""",
        source=UNK_SPELLED_OTHERWISE,
    ),
    _c(
        "encode-unknown-id-past-vocab",
        L01,
        "encode",
        "maps each unknown token to len(vocab), a new id one past the last, instead of the "
        "id of '<unk>': known tokens are right, but an unknown token gets an id that no "
        "vocabulary entry (and no embedding row) has.",
        (
            r"len\(vocab\)",
            r"(one past|past the|beyond the|outside the) (last|end|vocab)",
            r"(size of the vocabulary|vocabulary'?s? size|vocab size|number of entries)",
            r"no (vocabulary )?(entry|token|row) has",
        ),
        (
            r"(as|to) (the id of )?<pad>|hard-?coded 0",
            r"\bNone\b.{0,30}(instead|default)",
            r"KeyError",
            r"(adds?|wraps?) .{0,30}<bos>",
            r"(str|string) '<unk>'",
        ),
        code="""
def encode(tokens, vocab):
    return [vocab.get(token, len(vocab)) for token in tokens]
""",
        source=OOV_IDS_PAST_VOCAB,
    ),
    _c(
        "decode-plus-equals-characters",
        L01,
        "decode",
        "adds each token to the list with tokens += token: += on a list extends it by the "
        "string's characters, so every token comes back split into its characters ('<pad>' "
        "as '<', 'p', 'a', 'd', '>'); one-character tokens are right.",
        (
            r"(split|broken|cut) (up )?into (its |their )?(single |separate )?(characters|letters)",
            r"(one|each|single|separate) (character|letter)s? (per|as)",
            r"characters? of (each|the|every) token",
            r"\+=",
            r"extend",
            r"append",
        ),
        (
            r"(skip|drop)\w* (the )?special",
            r"<pad>.{0,30}(dropped|removed|left out|stripped)",
            r"key order|position in (the )?vocab",
            r"(joined|join) .{0,30}(string|spaces)",
        ),
        code="""
def decode(ids, vocab):
    id_to_token = {index: token for token, index in vocab.items()}
    tokens = []
    for index in ids:
        tokens += id_to_token[int(index)]
    return tokens
""",
        source=LIST_PLUS_EQUALS_STRING,
    ),
    _c(
        "pad-zeros-then-replaced",
        L01,
        "pad_batch",
        "pads with zeros and then replaces every 0 in the batch by pad_id (batch[batch == 0] "
        "= pad_id): the padding is right, but a real id 0 inside a sequence also becomes "
        "pad_id whenever pad_id is not 0.",
        (
            r"(real|genuine|actual) (id )?0\b",
            r"(id|token) 0 (inside|in|within) (a |the |its )?(sequence|row)",
            r"(every|all|each) (0|zero)s?\b.{0,60}(replac|pad_id|became|turned)",
            r"batch ?== ?0",
            r"(id|token) 0\b.{0,60}(became|turned into|replaced|overwritten).{0,30}pad",
        ),
        (
            r"(fills?|filled|pads?|padded) with (0|zeros?).{0,30}(instead|rather|ignor)",
            r"ignores? pad_id|never uses pad_id",
            r"on the left|left[- ]pad",
            r"float",
        ),
        code="""
def pad_batch(sequences, pad_id):
    max_len = max((len(seq) for seq in sequences), default=0)
    batch = np.zeros((len(sequences), max_len), dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    batch[batch == 0] = pad_id
    return batch
""",
    ),
    _c(
        "pairs-np-unique-sorted",
        L01,
        "get_pair_counts",
        "counts the pairs with np.unique(..., axis=0, return_counts=True), which returns them "
        "sorted by value: the counts are right, but the dict lists the pairs in sorted order, "
        "not in the order of their first occurrence that train_bpe's tie rule relies on.",
        (
            r"sorted (by|in) .{0,20}(value|ids?|pairs?)",
            r"(ascending|numerical|numeric|sorted) order",
            r"np\.unique",
            r"(pairs|keys) (come|are) (back )?sorted",
        ),
        (
            r"(ordered|sorted) by (their )?counts?|most_common|most frequent (pair )?first",
            r"overlap",
            r"last pair",
            r"reversed|\(b, a\)",
        ),
        code="""
def get_pair_counts(ids):
    arr = np.asarray(ids, dtype=np.int64).reshape(-1)
    pairs = np.stack([arr[:-1], arr[1:]], axis=1)
    unique, counts = np.unique(pairs, axis=0, return_counts=True)
    return {(int(a), int(b)): int(c) for (a, b), c in zip(unique, counts)}
""",
        source=UNIQUE_SORTS,
    ),
    _c(
        "merge-second-id-against-first-and-end-bound",
        L01,
        "merge_pair",
        "two mistakes in one test: the second id is compared with pair[0] again (a copy-paste "
        "slip: ids[i + 1] == pair[0]), so only pairs of two equal ids (pair[0], pair[0]) "
        "ever merge, and the bound is i + 2 < len(ids) instead of i + 1, so an occurrence in "
        "the last two places is never merged.",
        (
            r"pair\[0\].{0,60}(twice|both|second|again)",
            r"second (id|element|half|entry).{0,60}(pair\[0\]|first (id|element|half) of the pair)",
            r"(compar|test|check)\w* .{0,40}(against|with|to) pair\[0\]",
            r"(last two (ids|places|positions)|at the (very )?end)",
            r"i ?\+ ?2",
        ),
        (
            r"in place|modif\w* (the )?(input|caller)",
            r"overlap",
            r"(first|only) occurrence",
            r"(appends?|append) (the )?pair",
            r"right to left",
        ),
        code="""
def merge_pair(ids, pair, new_id):
    merged = []
    i = 0
    while i < len(ids):
        if i + 2 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[0]:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged
""",
    ),
    _c(
        "train-least-frequent-pair",
        L01,
        "train_bpe",
        "picks the pair to merge with min(counts, key=counts.get), the least frequent pair "
        "(bpe_encode's min carried over), instead of max, the most frequent one.",
        (
            r"least (frequent|common)",
            r"\bmin\(",
            r"fewest|rarest|smallest count|lowest count",
        ),
        (
            r"ties?\b",
            r"(smallest|largest) pair|compared as tuples",
            r"never recount|counts? (the pairs )?once",
            r"(ids?|result) (is )?(never|not) (updated|kept)",
            r"code points|ord\(",
        ),
        code="""
def train_bpe(text, num_merges):
    ids = list(text.encode("utf-8"))
    merges = {}
    for step in range(num_merges):
        counts = get_pair_counts(ids)
        if not counts:
            break
        best = min(counts, key=counts.get)
        ids = merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges
""",
    ),
    _c(
        "train-text-always-merged-into-256",
        L01,
        "train_bpe",
        "writes every merge into the ids as the hard-coded id 256 (merge_pair(ids, best, 256)) "
        "while recording it as 256 + step: the first merge is right, but from the second step "
        "on every merged token in the text reads 256, so a later pair that contains a merged "
        "token names 256 instead of that token's own id.",
        (
            r"(always|every (step|merge)|each (step|merge)|all merges?).{0,60}\b256\b",
            r"\b256\b.{0,40}(hard-?coded|at every step|every time|for every merge|each time)",
            r"hard-?coded",
            r"(text|ids).{0,60}(256 \+ step|recorded id|new_id).{0,40}(instead|not)",
            r"(merged into|replaced by|written as) .{0,40}(differ|not the same|other than)",
        ),
        (
            r"(from|start at) 257|one too high",
            r"(ids?|result) (is )?(never|not) (updated|kept)|thrown away|discarded",
            r"ties?\b",
            r"least frequent",
            r"recorded before",
        ),
        code="""
def train_bpe(text, num_merges):
    ids = list(text.encode("utf-8"))
    merges = {}
    for step in range(num_merges):
        counts = get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = merge_pair(ids, best, 256)
        merges[best] = 256 + step
    return merges
""",
    ),
    _c(
        "bpe-encode-missing-pairs-rank-zero",
        L01,
        "bpe_encode",
        "ranks the adjacent pairs with merges.get(pair, 0), so a pair that has no merge gets "
        "rank 0, lower than every learned id, where float('inf') was meant: as soon as the "
        "text has an adjacent pair without a merge, min picks it and the loop stops, so "
        "merges that apply are never made.",
        (
            r"float\(.inf.\)|infinity|\binf\b",
            r"(default|rank).{0,40}\b0\b.{0,60}(lower|smaller|before|first|wins)",
            r"get\(p(air)?, ?0\)",
            r"(pairs? )?(without|with no|that has no) (a )?merge.{0,80}(chosen|picked|smallest|rank)",
        ),
        (
            r"(latest|highest|last)[- ](learned|id)",
            r"leftmost",
            r"most frequent",
            r"> ?2\b|two ids",
            r"code points|ord\(",
        ),
        code="""
def bpe_encode(text, merges):
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        pair = min(get_pair_counts(ids), key=lambda p: merges.get(p, 0))
        if pair not in merges:
            break
        ids = merge_pair(ids, pair, merges[pair])
    return ids
""",
    ),
    _c(
        "bpe-decode-strips-text",
        L01,
        "bpe_decode",
        "tidies the decoded text with .strip(), which removes the whitespace at its two "
        "ends: a text that starts or ends with a space, tab or newline does not come back "
        "exactly; every other text is right.",
        (
            r"strip",
            r"(leading|trailing) (spaces?|whitespace|newlines?)",
            r"(spaces?|whitespace|newlines?) at (the |its )?(start|end|beginning|edges|two ends)",
        ),
        (
            r"latin-?1",
            r"bytes\(\[a, b\]\)|raw bytes",
            r"cache",
            r"each token separately",
            r"joined with (a )?spaces?|b\" \"\.join",
            r"first part twice",
        ),
        code="""
def bpe_decode(ids, merges):
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace").strip()
""",
    ),
    _c(
        "quiz-unk-is-padding",
        L01,
        "quiz_unk",
        "answers (c), confusing <unk> with <pad>: filling short sentences up to the batch "
        "length is <pad>'s job; <unk> exists because new text brings words that a fixed "
        "vocabulary has no id for.",
        (
            r"<pad>|padding",
            r"(new|unseen|unknown) words?.{0,60}(id|row|vocabulary)",
        ),
        (r"<eos>|end of (a |the )?sentence",),
        code="""
def quiz_unk():
    return "c"
""",
    ),
    _c(
        "quiz-merge-order-longest-first",
        L01,
        "quiz_merge_order",
        "answers (a) [257, 256], encoding greedily from the left with the longest known token "
        "('aaa' first) instead of replaying the merges earliest-learned first: (a, a) "
        "everywhere gives [256, 256, 97], then (256, a) gives [256, 257].",
        (
            r"earliest|learned first|smallest (new )?id",
            r"longest|greedy|greedily",
            r"\[256, 256, 97\]",
        ),
        (r"most frequent", r"latest|last learned"),
        code="""
def quiz_merge_order():
    return "a"
""",
    ),
    # ------------------------------------------------------------------ 02 embeddings
    _c(
        "onehot-columns-then-transposed",
        L02,
        "one_hot",
        "picks the identity's columns (np.eye(vocab_size)[:, ids]) and turns them back with "
        ".T, which reverses every axis: right for 1-D ids, but ids of shape (batch, len) give "
        "(len, batch, vocab_size) instead of (batch, len, vocab_size).",
        (
            r"\.T\b",
            r"revers\w* (all |every )?(the )?axes|all (the )?axes (are )?reversed",
            r"(batch and len(gth)?|first two axes|leading axes).{0,40}"
            r"(swapped|exchanged|transposed|reversed)",
            r"\(len, batch",
        ),
        (
            r"flatten|ravel|batch \* len",
            r"width .{0,20}(from|of) .{0,20}(largest|max)|ids\.max\(\)",
            r"bool",
            r"vocab_size \+ 1",
            r"squeez",
        ),
        code="""
def one_hot(ids, vocab_size):
    return np.eye(vocab_size)[:, np.asarray(ids)].T
""",
    ),
    _c(
        "embed-np-vectorize-rows",
        L02,
        "embed",
        "looks each id up through np.vectorize(lambda i: table[i]), which expects the "
        "function to return one number per element: each call returns a whole row, so numpy "
        "raises ValueError (setting an array element with a sequence) for any ids.",
        (
            r"vectorize.{0,80}(scalar|one number|single (number|value)|signature|rows?|vector)",
            r"(np\.)?vectorize.{0,60}(expects|assumes|only|cannot|can't)",
            r"(scalar|number)s? per (id|element).{0,60}(row|vector)",
        ),
        (
            r"columns?|table\[:, ?ids\]",
            r"flatten|ravel",
            r"transpos",
            r"integer dtype|truncat",
            r"one-based|id - 1",
        ),
        code="""
def embed(ids, table):
    table = np.asarray(table)
    return np.vectorize(lambda i: table[i])(np.asarray(ids))
""",
        source=VECTORIZE_RETURNS_SEQUENCE,
    ),
    _c(
        "quiz-linear-weight-not-transposed",
        L02,
        "quiz_linear_layer",
        "answers (b), weight E, forgetting that nn.Linear stores its weight as "
        "(out_features, in_features) and computes x @ weight.T: the weight must be E.T, of "
        "shape (d_model, vocab_size).",
        (
            r"\(out_features, in_features\)",
            r"weight\.T|x @ weight",
            r"transpos",
            r"E\.T",
        ),
        (r"(adds?|with) (a|its) bias",),
        code="""
def quiz_linear_layer():
    return "b"
""",
    ),
    _c(
        "quiz-gradient-rows-counts-positions",
        L02,
        "quiz_gradient_rows",
        "answers 6, counting the six positions of the batch, where only the rows of the five "
        "distinct ids receive a gradient (id 1's two positions add into one row).",
        (
            r"twice|two positions|both positions|repeated|appears? (two|2) times",
            r"distinct",
            r"(positions|tokens) .{0,30}(not|rather than|instead of) .{0,20}(rows|distinct)",
            r"one row .{0,40}(sum|add)",
        ),
        (r"all (10|ten) rows|every row of the table",),
        code="""
def quiz_gradient_rows():
    return 6
""",
    ),
    _c(
        "cos-eps-added-to-vectors",
        L02,
        "cosine_similarity",
        "guards against zero vectors by adding a tiny eps (1e-8) to every entry of a and b "
        "instead of flooring their lengths: a nonzero vector barely changes, but a zero "
        "vector becomes the all-eps vector, which has a direction, so its similarities are "
        "the other vector's entry sum over its length (1 with another zero vector) instead "
        "of 0.",
        (
            r"(eps|epsilon|1e-0?8).{0,40}(to|into) (the |every |each )?"
            r"(vectors?|entries|entry|rows?|inputs?|a and b)\b",
            r"(vectors?|entries|rows?) .{0,20}(plus|\+) ?(eps|1e-0?8)",
            r"(zero vector|zero row).{0,80}(direction|(all|every)[- ]eps|constant vector|"
            r"no longer zero|not zero any ?more)",
        ),
        (
            r"(gives?|returns?|produces?) NaN",
            r"clamp\w* .{0,20}(at|to) 1\b|maximum\(norm, 1\.?0?\)",
            r"whole matri(x|ces)|without axis",
            r"matching rows|row by row",
            r"centred|centered|pearson",
        ),
        code="""
def cosine_similarity(a, b):
    a = np.asarray(a, dtype=np.float64) + 1e-8
    b = np.asarray(b, dtype=np.float64) + 1e-8
    a_unit = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b_unit = b / np.linalg.norm(b, axis=-1, keepdims=True)
    return a_unit @ b_unit.T
""",
        source=EPS_ADDED_TO_VECTORS,
    ),
    _c(
        "cos-scalar-if-zero-guard",
        L02,
        "cosine_similarity",
        "guards zero vectors with a Python if on the norm arrays (if norm_a == 0 or norm_b "
        "== 0), written as for single vectors: with more than one row the comparison is an "
        "array and the if raises ValueError (the truth value of an array with more than one "
        "element is ambiguous); single rows work.",
        (
            r"truth value",
            r"ambiguous",
            r"\bif\b.{0,60}(arrays?|norms?)",
            r"(np\.where|np\.maximum|elementwise|per row).{0,60}instead of (an? |the )?if",
        ),
        (
            r"(gives?|returns?|produces?) NaN|no (zero[- ])?guard",
            r"whole matri(x|ces)|without axis",
            r"clamp|maximum\(norm, 1",
            r"transpos",
        ),
        code="""
def cosine_similarity(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    norm_a = np.linalg.norm(a, axis=-1, keepdims=True)
    norm_b = np.linalg.norm(b, axis=-1, keepdims=True)
    if norm_a == 0 or norm_b == 0:
        return np.zeros((a.shape[0], b.shape[0]))
    return (a / norm_a) @ (b / norm_b).T
""",
        source=SCALAR_ZERO_GUARD,
    ),
    _c(
        "tokemb-forward-without-return",
        L02,
        "TokenEmbedding",
        "computes the scaled lookup in forward but never returns it (no return statement), "
        "so calling the module gives None.",
        (
            r"returned None|returns None|gave None|got None|is None|was None",
            r"(no|missing|without a|forgot\w*( the| to)?) return",
            r"return (statement|the result|it)\b",
        ),
        (
            r"no_grad|detach",
            r"(missing|forgets?|without) (the )?(sqrt|scale)",
            r"divid",
            r"(parameter|table).{0,30}(missing|not registered)",
        ),
        code="""
class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)

    def forward(self, ids):
        out = self.embedding(ids) * math.sqrt(self.d_model)  # noqa: F841
""",
        source=FUNCTION_WITHOUT_RETURN,
    ),
]
