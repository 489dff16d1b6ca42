"""Held-out wrong answers for lessons 00-01, blind round 10 (helper b10c, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. More than half transpose a mistake reported in a public issue thread, Q&A page or
tutorial (the URL read for this benchmark) to the course's exercise; the others are the
author's. Kinds favoured this round: mistakes that only show on some inputs (a 1-D or 3-D
array, text that ends with a word, underscores or accented letters, an empty batch, a
longest sequence that is not the lexicographically largest, a vocabulary whose <unk> is not
1, a pair at the very end, ids that hold part of a character), a second call with the same
merges (an input edited in place), a Python-scalar path that breaks on more than one row,
exceptions raised inside the learner's code, and wrong types returned.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L00, L01 = "00_welcome", "01_tokenization"

# The reports these cases transpose (each read with the search tool for this benchmark).
AXIS_ONE_IS_NOT_ROWS = (
    "https://aiwithcloud.com/2022/09/19/summary_of_the_usage_of_the_axis_of_python_numpy_array/"
)
FLOAT_OF_ARRAY = "https://stevenlohrenz.com/only-size-1-arrays-can-be-converted-to-python-scalars"
RE_ASCII_FLAG = (
    "https://www.pythonlore.com/impact-of-re-unicode-flag-on-regular-expression-processing"
)
LAST_WORD_AFTER_LOOP = (
    "https://web-offline.shuffle-on.com/content/stackoverflow.com_en_all_nopic_2022-07/"
    "questions/57231680/how-to-reverse-words-in-string-using-python-using-for-loop"
)
ISALNUM_UNDERSCORE = (
    "https://askai.glarity.app/search/"
    "What-is-the--isalnum----method-in-Python--and-how-does-it-work"
)
UNK_FIRST_PAD_SECOND = "https://github.com/pytorch/text/issues/165"
UNK_ID_HARD_CODED = "https://github.com/yongyehuang/zhihu-text-classification/issues/2"
CUT_AT_EOS = "https://github.com/EleutherAI/lm-evaluation-harness/pull/2512"
TOLIST_ON_LIST = "https://github.com/msmbuilder/msmbuilder-legacy/issues/73"
MAX_OF_LISTS = "http://www.brokencontrollers.com/faq/34050113.shtml"
EMPTY_ARRAY_FLOAT = "https://deepvcode.com/guides/8fb484c8"
MERGES_AS_LIST = "https://github.com/rsennrich/subword-nmt/issues/84"
PRETOKENIZED_NO_CROSS_MERGES = "https://github.com/huggingface/tokenizers/issues/745"
BPE_SPLITS_CHARACTER = "https://github.com/facebookresearch/pytext/pull/1179"


_c = held_out_authored("blind10c")

_NOT_IN_PLACE = r"in[- ]place|modif(y|ies|ied) (your|the) (input|argument|x)"
_TOK_OTHER = (r"lower[- ]?cas", r"(tabs?|newlines?) (are|become|kept)")

BLIND10C: list[Case] = [
    # ------------------------------------------------------------------ 00 center_rows
    _c(
        "center-transpose-axis-one",
        L00,
        "center_rows",
        "averages along axis=1 and subtracts through transposes, (x.T - x.mean(axis=1)).T, "
        "which fits a 2-D x only: a 1-D x raises AxisError (it has no axis 1), and for a 3-D "
        "x the means are taken across positions and x.T reverses all three axes, so they "
        "do not line up.",
        (
            r"axis ?=? ?1\b|axis 1\b|second axis|middle axis",
            r"axis ?=? ?-1|last axis",
            r"AxisError|out of bounds",
            r"\.T\b|transpos",
            r"(only|just) (for |on |works for )?(a )?2-?D|two-dimensional only",
        ),
        (r"axis ?=? ?0\b|columns?\b|first axis", _NOT_IN_PLACE, r"std|standard deviation"),
        code="def center_rows(x):\n    return (x.T - x.mean(axis=1)).T\n",
        source=AXIS_ONE_IS_NOT_ROWS,
    ),
    _c(
        "center-divides-by-std",
        L00,
        "center_rows",
        "standardises each row instead of only centring it: after subtracting the row's "
        "mean it also divides by the row's standard deviation.",
        (
            r"std|standard deviation|variance",
            r"divid\w*|scal(ed|es|ing)\b|standardi[sz]",
        ),
        (r"axis ?=? ?0\b|columns?\b", _NOT_IN_PLACE, r"keepdims"),
        code="def center_rows(x):\n"
        "    centred = x - x.mean(axis=-1, keepdims=True)\n"
        "    return centred / x.std(axis=-1, keepdims=True)\n",
    ),
    _c(
        "center-loop-over-first-axis",
        L00,
        "center_rows",
        "loops over x's first axis and centres each x[i] by its own mean, which is right "
        "for a 2-D x only: for a 1-D x each x[i] is one number (every entry becomes 0), and "
        "for a 3-D x each x[i] is a matrix centred by the mean of the whole matrix.",
        (
            r"(only|just) (for |on |works for )?(a )?2-?D|two-dimensional only",
            r"(1-?D|one-dimensional|single row).{0,120}(zeros?|itself|each entry|every entry)",
            r"(3-?D|three-dimensional).{0,120}(whole|matri|slice|x\[i\]|all of)",
            r"x\[i\]|shape\[0\]",
        ),
        (r"axis ?=? ?0\b|columns?\b|down the columns", _NOT_IN_PLACE, r"keepdims"),
        code="def center_rows(x):\n"
        "    out = x.copy()\n"
        "    for i in range(x.shape[0]):\n"
        "        out[i] = x[i] - x[i].mean()\n"
        "    return out\n",
    ),
    _c(
        "center-float-of-means",
        L00,
        "center_rows",
        "turns the row means into one Python number with float(...), which works when x "
        "has a single row (1-D) but raises TypeError as soon as there are several rows.",
        (
            r"float\(|\.item\(|Python (float|scalar|number)|a single (number|scalar|float)",
            r"(only|single|one) (a )?(1-?D|row)\b.{0,60}(work|ok|right)|several rows|more than one row",
            r"TypeError.{0,120}(float|scalar|size[- ]1|length[- ]1|0-d)",
        ),
        (r"axis ?=? ?0\b|columns?\b", _NOT_IN_PLACE, r"keepdims"),
        code="def center_rows(x):\n    mean = float(x.mean(axis=-1))\n    return x - mean\n",
        source=FLOAT_OF_ARRAY,
    ),
    # ------------------------------------------------------------------ 01 tokenize
    _c(
        "tok-re-ascii-flag",
        L01,
        "tokenize",
        "passes flags=re.ASCII, so \\w matches ASCII letters only: each accented or "
        "non-Latin letter ('é', 'ü', Greek, ...) becomes a one-character punctuation token "
        "and splits its word ('déjà' -> 'd', 'é', 'j', 'à').",
        (
            r"re\.A(SCII)?\b|ASCII",
            r"(accent\w*|non-?ASCII|unicode|any script|other scripts?|non-Latin)"
            r".{0,100}(split|separate|own token|broken|punctuation|one token)",
        ),
        (*_TOK_OTHER, r"dropp\w*|missing"),
        edits=[("text.lower())", "text.lower(), flags=re.ASCII)")],
        source=RE_ASCII_FLAG,
    ),
    _c(
        "tok-loop-loses-last-word",
        L01,
        "tokenize",
        "a character loop that emits the current word only when a non-word character "
        "follows it: a text that ends with a word (no final punctuation) loses that last "
        "word, because the word is never emitted after the loop.",
        (
            r"last (word|token)",
            r"end of (the )?(text|string|input)",
            r"(final|trailing) (word|token)",
            r"after the loop",
        ),
        (*_TOK_OTHER, r"punctuation.{0,40}(dropped|missing)", r"underscore"),
        code="def tokenize(text):\n"
        "    tokens, word = [], ''\n"
        "    for ch in text.lower():\n"
        "        if ch.isalnum() or ch == '_':\n"
        "            word += ch\n"
        "        else:\n"
        "            if word:\n"
        "                tokens.append(word)\n"
        "                word = ''\n"
        "            if not ch.isspace():\n"
        "                tokens.append(ch)\n"
        "    return tokens\n",
        source=LAST_WORD_AFTER_LOOP,
    ),
    _c(
        "tok-isalnum-splits-underscore",
        L01,
        "tokenize",
        "a character loop that collects word characters with str.isalnum(), which is False "
        "for the underscore: 'snake_case' becomes 'snake', '_', 'case' instead of one word.",
        (r"underscore", r"snake_case", r"isalnum", r"'_'"),
        (*_TOK_OTHER, r"last (word|token)"),
        code="def tokenize(text):\n"
        "    tokens, word = [], ''\n"
        "    for ch in text.lower():\n"
        "        if ch.isalnum():\n"
        "            word += ch\n"
        "            continue\n"
        "        if word:\n"
        "            tokens.append(word)\n"
        "            word = ''\n"
        "        if not ch.isspace():\n"
        "            tokens.append(ch)\n"
        "    if word:\n"
        "        tokens.append(word)\n"
        "    return tokens\n",
        source=ISALNUM_UNDERSCORE,
    ),
    # ------------------------------------------------------------------ 01 build_vocab
    _c(
        "vocab-unk-before-pad",
        L01,
        "build_vocab",
        "lists the special tokens in torchtext's legacy order, <unk> first, so <unk> gets "
        "id 0 and <pad> id 1 instead of <pad>=0 and <unk>=1.",
        (
            r"(swap|exchang|switch|wrong order|order of the special)\w*"
            r".{0,80}(<pad>|<unk>|special)",
            r"(<pad>|<unk>).{0,80}(swapped|exchanged|switched|other'?s? (place|id))",
            r"<pad>.{0,40}(must|should|is to) (be|have|get) (id )?0",
            r"<unk>.{0,40}(must|should|is to) (be|have|get) (id )?1",
        ),
        (r"ties?\b|alphabetic", r"min_freq", r"count(ed|s)? (each|once)"),
        code="def build_vocab(token_lists, min_freq=1):\n"
        "    counts = Counter(t for tokens in token_lists for t in tokens)\n"
        "    specials = ('<unk>', '<pad>', '<bos>', '<eos>')\n"
        "    vocab = {token: i for i, token in enumerate(specials)}\n"
        "    for token, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):\n"
        "        if count >= min_freq and token not in vocab:\n"
        "            vocab[token] = len(vocab)\n"
        "    return vocab\n",
        source=UNK_FIRST_PAD_SECOND,
    ),
    _c(
        "vocab-counter-update-characters",
        L01,
        "build_vocab",
        "feeds each token to Counter.update one at a time; update iterates over a string, "
        "so it counts the token's characters, and the vocabulary holds letters instead of "
        "tokens (single-character tokens still come out right).",
        (
            r"(counts?|counted|counting) (its |their |the )?(characters|letters)",
            r"characters (of|in) (each|the|every) token|(characters|letters) instead of",
            r"update\(",
            r"(each|every) (character|letter)",
        ),
        (r"ties?\b|alphabetic", r"min_freq", r"special"),
        code="def build_vocab(token_lists, min_freq=1):\n"
        "    counts = Counter()\n"
        "    for tokens in token_lists:\n"
        "        for token in tokens:\n"
        "            counts.update(token)\n"
        "    vocab = {token: i for i, token in enumerate(SPECIAL_TOKENS)}\n"
        "    for token, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):\n"
        "        if count >= min_freq and token not in vocab:\n"
        "            vocab[token] = len(vocab)\n"
        "    return vocab\n",
    ),
    _c(
        "vocab-returns-id-to-token",
        L01,
        "build_vocab",
        "returns the mapping the other way round, {id: token} (an index-to-string table, "
        "itos), instead of {token: id}.",
        (
            r"invert|other way|wrong way|\{id: token\}|itos",
            r"id ?(→|->|to) ?token",
            r"keys? (are|must be|should be) (the )?(tokens?|str)",
            r"(ints?|integers?|ids?) as (its )?keys",
        ),
        (r"ties?\b|alphabetic", r"min_freq", r"special tokens? (are )?missing"),
        edits=[
            ("    return vocab\n", "    return {index: token for token, index in vocab.items()}\n")
        ],
    ),
    # ------------------------------------------------------------------ 01 encode
    _c(
        "encode-lowercases-tokens",
        L01,
        "encode",
        "lower-cases each token before the lookup (a normalisation that belongs to "
        "tokenize, as a tokenizer's do_lower_case does), so a token the vocabulary holds "
        "with capital letters ('Paris', '<UNK>'-style entries) is not found and becomes "
        "<unk>, or maps to its lower-case namesake's id.",
        (
            r"lower[- ]?cas\w*|\.lower\(",
            r"capital|upper[- ]?case|case[- ]sensitive",
        ),
        (r"KeyError", r"<pad>", r"None", r"dropp|skipp"),
        code="def encode(tokens, vocab):\n"
        "    unk = vocab['<unk>']\n"
        "    return [vocab.get(t.lower(), unk) for t in tokens]\n",
    ),
    # blind10c-encode-unk-id-hard-coded left out after the run: <unk> is 1 in every course
    # vocabulary and the lesson names it UNK_ID, so writing 1 is accepted (as
    # blind9c-encode-unk-id-hard-coded was); generalisation.py lists it with the reason.
    # _c(
    #     "encode-unk-id-hard-coded",
    #     L01,
    #     "encode",
    #     "uses the lesson's constant UNK_ID (1) for unknown tokens instead of the id of "
    #     "'<unk>' in the vocabulary it was given, which is wrong for a vocabulary whose "
    #     "<unk> has another id.",
    #     (
    #         r"hard-?cod|constant|UNK_ID",
    #         r"vocab\[.<unk>.\]",
    #         r"(the|this|given) vocab\w*'?s? (own )?(id (of|for) )?<unk>",
    #         r"<unk> (has|is) (id )?\d+ (in|here)",
    #     ),
    #     (r"KeyError", r"<pad>", r"None", r"dropp|skipp"),
    #     code="def encode(tokens, vocab):\n    return [vocab.get(t, UNK_ID) for t in tokens]\n",
    #     source=UNK_ID_HARD_CODED,
    # ),
    # ------------------------------------------------------------------ 01 decode
    _c(
        "decode-stops-at-eos",
        L01,
        "decode",
        "stops at the first <eos> (as generation code cuts its output there): <eos> and "
        "every id after it are left out, so a row with <eos> before its end (followed by "
        "padding) is cut short.",
        (
            r"<eos>.{0,80}(stop|break|cut|truncat|end)",
            r"(stop|break|cut|truncat)\w*.{0,60}<eos>",
            r"after (the )?(first )?<eos>",
        ),
        (r"drops? (the )?special", r"order|position", r"<pad>.{0,40}(dropped|missing)"),
        code="def decode(ids, vocab):\n"
        "    id_to_token = {i: t for t, i in vocab.items()}\n"
        "    tokens = []\n"
        "    for i in ids:\n"
        "        token = id_to_token[int(i)]\n"
        "        if token == '<eos>':\n"
        "            break\n"
        "        tokens.append(token)\n"
        "    return tokens\n",
        source=CUT_AT_EOS,
    ),
    _c(
        "decode-tolist-array-only",
        L01,
        "decode",
        "calls ids.tolist() first, which exists on a numpy array but not on a list: a plain "
        "list of ids raises AttributeError.",
        (
            r"tolist",
            r"AttributeError",
            r"\blist\b.{0,60}(and|or|as well as).{0,30}array|(list|array).{0,40}(both|either)",
        ),
        (r"special", r"order|position", r"join"),
        code="def decode(ids, vocab):\n"
        "    id_to_token = {i: t for t, i in vocab.items()}\n"
        "    return [id_to_token[i] for i in ids.tolist()]\n",
        source=TOLIST_ON_LIST,
    ),
    # ------------------------------------------------------------------ 01 pad_batch
    _c(
        "pad-max-of-lists",
        L01,
        "pad_batch",
        "takes the width as len(max(sequences)): max compares the lists lexicographically, "
        "so the width is the length of the largest list, not the longest, and copying a "
        "longer sequence into its row raises ValueError.",
        (
            r"lexicograph",
            r"max\(sequences\)|key=len",
            r"(largest|greatest|biggest) (list|sequence).{0,60}(not|rather than|instead of).{0,20}longest",
            r"compar\w+ (the )?(lists|sequences)",
        ),
        (r"\bleft\b", r"dtype|float", r"first sequence"),
        code="def pad_batch(sequences, pad_id):\n"
        "    max_len = len(max(sequences)) if sequences else 0\n"
        "    batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)\n"
        "    for row, seq in enumerate(sequences):\n"
        "        batch[row, : len(seq)] = seq\n"
        "    return batch\n",
        source=MAX_OF_LISTS,
    ),
    # blind10c-pad-list-comprehension-empty-float left out after the run: its code is the tests'
    # correct variant pad_default_dtype: no check gives pad_batch an empty batch, so that
    # torch's pad_sequence passes; generalisation.py lists it with the reason.
    # _c(
    #     "pad-list-comprehension-empty-float",
    #     L01,
    #     "pad_batch",
    #     "builds the batch with np.array over padded lists and no dtype: right for non-empty "
    #     "rows, but an empty batch gives a float64 array of shape (0,) and a batch of empty "
    #     "sequences a float64 array of shape (n, 0).",
    #     (
    #         r"empty.{0,160}(float|shape|dtype|ndim|2-?D)",
    #         r"(float|shape \(0,\)|dtype).{0,160}empty",
    #         r"np\.array\(\[\]\)",
    #     ),
    #     (r"\bleft\b", r"lexicograph|longest", r"zeros? instead"),
    #     code="def pad_batch(sequences, pad_id):\n"
    #     "    max_len = max((len(s) for s in sequences), default=0)\n"
    #     "    return np.array([list(s) + [pad_id] * (max_len - len(s)) for s in sequences])\n",
    #     source=EMPTY_ARRAY_FLOAT,
    # ),
    # ------------------------------------------------------------------ 01 get_pair_counts
    _c(
        "pairs-never-incremented",
        L01,
        "get_pair_counts",
        "records each pair with count 1 when first seen and never increments it, so every "
        "count is 1 however often the pair occurs.",
        (
            r"(every|each|all) (the )?(counts?|pairs?) (is|are|=|of) ?1\b",
            r"never (increment|incremented|add|grow|goes above)",
            r"counted (only )?once",
            r"\+= ?1",
            r"(repeat\w*|second|later) (pair|occurrence)s?.{0,60}(not|never) counted",
        ),
        (r"overlap", r"order", r"last pair"),
        code="def get_pair_counts(ids):\n"
        "    counts = {}\n"
        "    for pair in zip(ids, ids[1:]):\n"
        "        if pair not in counts:\n"
        "            counts[pair] = 1\n"
        "    return counts\n",
    ),
    # ------------------------------------------------------------------ 01 merge_pair
    _c(
        "merge-no-bounds-check",
        L01,
        "merge_pair",
        "compares ids[i + 1] without checking that a next id exists, so a list whose last "
        "id equals pair[0] (and is not merged) raises IndexError.",
        (
            r"IndexError",
            r"last (id|element|position|item)",
            r"i ?\+ ?1 ?< ?len|bounds?\b|past the end|end of the list|out of range",
        ),
        (r"overlap", _NOT_IN_PLACE, r"first occurrence"),
        edits=[
            (
                "if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:",
                "if ids[i] == pair[0] and ids[i + 1] == pair[1]:",
            )
        ],
    ),
    _c(
        "merge-last-id-appended-always",
        L01,
        "merge_pair",
        "loops over the first len(ids) - 1 positions and then always appends ids[-1], so "
        "when the last two ids were merged their second id comes back after new_id "
        "([1, 2] with pair (1, 2) gives [9, 2]); an empty list raises IndexError.",
        (
            r"last (id|element|item).{0,100}(twice|again|duplicat|kept|extra|appended|copied)",
            r"(pair|merge) at the (very )?end",
            r"(duplicat|extra|repeated|spurious).{0,60}(last|final|end)",
        ),
        (r"overlap", _NOT_IN_PLACE, r"first occurrence"),
        code="def merge_pair(ids, pair, new_id):\n"
        "    merged, skip = [], False\n"
        "    for i in range(len(ids) - 1):\n"
        "        if skip:\n"
        "            skip = False\n"
        "            continue\n"
        "        if (ids[i], ids[i + 1]) == pair:\n"
        "            merged.append(new_id)\n"
        "            skip = True\n"
        "        else:\n"
        "            merged.append(ids[i])\n"
        "    merged.append(ids[-1])\n"
        "    return merged\n",
    ),
    # ------------------------------------------------------------------ 01 train_bpe
    _c(
        "train-ids-from-257",
        L01,
        "train_bpe",
        "counts the steps from 1 (range(1, num_merges + 1)), so the first merge gets id 257 "
        "instead of 256 and every new id is one too high.",
        (
            r"\b257\b",
            r"256 ?\+ ?(i|step)\b|(start|begin)\w* (at|from|with) 256",
            r"off[- ]by[- ]one|one too (high|large)|(shifted|offset) by one",
        ),
        (r"from 0\b|\b0 instead", r"ties?\b", r"most frequent"),
        edits=[
            ("for step in range(num_merges):", "for step in range(1, num_merges + 1):"),
        ],
    ),
    _c(
        "train-merges-as-list",
        L01,
        "train_bpe",
        "returns the merges as a list of pairs in learned order (the format of subword-nmt's "
        "codes file) instead of a dict {pair: new_id}.",
        (
            r"\blist\b.{0,80}dict|dict.{0,80}\blist\b",
            r"\{pair: new_id\}|pair ?(→|->|:) ?new_id",
            r"(no|without|missing) (the )?new ids?",
        ),
        (r"ties?\b", r"257|from 0\b", r"invert|other way"),
        code="def train_bpe(text, num_merges):\n"
        "    ids = list(text.encode('utf-8'))\n"
        "    merges = []\n"
        "    for step in range(num_merges):\n"
        "        counts = get_pair_counts(ids)\n"
        "        if not counts:\n"
        "            break\n"
        "        best = max(counts, key=counts.get)\n"
        "        ids = merge_pair(ids, best, 256 + step)\n"
        "        merges.append(best)\n"
        "    return merges\n",
        source=MERGES_AS_LIST,
    ),
    # ------------------------------------------------------------------ 01 bpe_encode
    _c(
        "encode-pops-used-merges",
        L01,
        "bpe_encode",
        "takes each applied merge out of the merges dict (merges.pop(pair)): the first call "
        "is right, but the caller's merges shrink, so a second call with the same merges "
        "applies fewer of them.",
        (
            r"(modif|chang|mutat|pop|delet|remov|empt|shr[iau]nk)\w*.{0,60}merges",
            r"merges.{0,60}(modified|changed|mutated|popped|deleted|removed|emptied|shr[au]nk|smaller)",
            r"second call|(call|run)\w* (it )?(again|twice)|in[- ]place",
        ),
        (r"earliest|smallest new id|most frequent|latest", r"code points?|UTF-8", r"one pass"),
        edits=[("merge_pair(ids, pair, merges[pair])", "merge_pair(ids, pair, merges.pop(pair))")],
    ),
    _c(
        "encode-words-separately",
        L01,
        "bpe_encode",
        "pre-tokenises first and encodes each chunk (a word or run of punctuation with the "
        "space before it) separately, as real tokenizers do, so a learned merge that crosses "
        "a chunk boundary ('e t' in 'the t...', a space after a word) is never applied.",
        (
            r"(chunk|word|pre-?tokeni[sz])\w*.{0,100}(separately|boundar|cross|across|apart)",
            r"(cross|across|span)\w*.{0,60}(word|chunk|boundar|spaces?)",
        ),
        (r"earliest|smallest new id|most frequent|latest", r"code points?", r"one pass"),
        code="def bpe_encode(text, merges):\n"
        "    result = []\n"
        "    for chunk in re.findall(r' ?\\w+| ?[^\\w\\s]+|\\s+(?!\\S)|\\s+', text):\n"
        "        ids = list(chunk.encode('utf-8'))\n"
        "        while len(ids) >= 2:\n"
        "            present = [p for p in get_pair_counts(ids) if p in merges]\n"
        "            if not present:\n"
        "                break\n"
        "            pair = min(present, key=merges.get)\n"
        "            ids = merge_pair(ids, pair, merges[pair])\n"
        "        result.extend(ids)\n"
        "    return result\n",
        source=PRETOKENIZED_NO_CROSS_MERGES,
    ),
    # ------------------------------------------------------------------ 01 bpe_decode
    # blind10c-bpe-decode-strict-utf8 left out after the run: bpe_decode's ids come from
    # bpe_encode, whose ids always decode: strict decoding and errors='replace' both pass on
    # purpose; generalisation.py lists it with the reason.
    # _c(
    #     "bpe-decode-strict-utf8",
    #     L01,
    #     "bpe_decode",
    #     "decodes the joined bytes with the default errors='strict', so ids that hold only "
    #     "part of a multi-byte character (one token of 'é', a single byte id above 127) "
    #     "raise UnicodeDecodeError instead of giving '\\ufffd'.",
    #     (
    #         r"errors ?= ?.?replace",
    #         r"UnicodeDecodeError",
    #         r"(part|half|piece|some) of a (multi-?byte )?character|invalid (UTF-8|byte)|incomplete",
    #     ),
    #     (r"latin|code points?", r"separately|each token", r"spaces? between"),
    #     edits=[('.decode("utf-8", errors="replace")', '.decode("utf-8")')],
    #     source=BPE_SPLITS_CHARACTER,
    # ),
]
