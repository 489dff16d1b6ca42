"""Held-out wrong answers for lessons 00-02, blind round 14 (helper b14c, 2026-11-27):
mistakes new to the benchmark, written against the checks after round 15's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 24 cases over the
fifteen code exercises (the quizzes have none); ten transpose a mistake reported in public
(the URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L00, L01, L02 = "00_welcome", "01_tokenization", "02_embeddings"

# The reports these cases transpose (each read with the search tool for this benchmark).
REGEX_STAR_MATCHES_EMPTY = (
    "https://errorhandle.ai/does-have-side-effect-in-python-regular-expression-matching"
)
DICT_ITERATES_KEYS = (
    "http://stackoverflow.com/questions/3744568/"
    "why-do-you-have-to-call-iteritems-when-iterating-over-a-dictionary-in-python"
)
NP_EMPTY_UNINITIALISED = "https://stackoverflow.com/questions/54725478/are-the-values-returned-by-numpy-empty-random-or-not"
COUNT_KEYERROR = "https://tarikbilla.com/check-if-a-given-key-already-exists-in-a-dictionary/"
MERGES_STORED_IN_ORDER = "https://github.com/google/sentencepiece/issues/890"
IN_CONSUMES_ITERATOR = "https://errorhandle.ai/is-in-operator-lazy-in-python"
BYTES_OF_ITERABLE = "https://www.askpython.com/python/built-in-methods/python-bytes"
INT_ARRAY_TRUNCATES = "https://errorhandle.ai/python-numpy-arrays-staying-integers"
NP_MAX_VS_MAXIMUM = "https://stackoverflow.com/questions/33569668/numpy-max-vs-amax-vs-maximum"
TORCH_SQRT_OF_NUMBER = "https://github.com/pytorch/pytorch/issues/1985"

_c = held_out_authored("blind14c")

BLIND14C: list[Case] = [
    # ------------------------------------------------------------------ 00 welcome
    _c(
        "center-row-minimum",
        L00,
        "center_rows",
        "subtracts each row's minimum (x.min(axis=-1, keepdims=True), the first step of "
        "min-max scaling) instead of its mean: every row is shifted to start at 0, so its "
        "entries are all >= 0 and the row does not average 0.",
        (
            r"\bmin(imum)?\b(?! ?-?max)",
            r"x\.min\(",
            r"(smallest|lowest) (entry|value|element)",
            r"start(s)? at 0",
        ),
        (
            r"axis ?= ?0",
            r"down the columns",
            r"in place",
            r"standard deviation",
            r"\bsign\b|wrong way round|mean - x",
            r"median",
        ),
        code="""
        def center_rows(x):
            return x - x.min(axis=-1, keepdims=True)
        """,
    ),
    _c(
        "center-keepdims-positional",
        L00,
        "center_rows",
        "passes keepdims positionally, np.mean(x, -1, True): np.mean's third parameter is "
        "dtype, not keepdims, so True is read as a dtype and every call raises TypeError "
        "(Cannot interpret 'True' as a data type).",
        (
            r"keepdims ?= ?True",
            r"(third|3rd) (positional )?(argument|parameter).{0,60}dtype",
            r"True.{0,40}(as|is) (a |the )?dtype",
            r"keepdims.{0,60}(by name|as a keyword|keyword argument|positional)",
            r"positional.{0,60}keepdims",
        ),
        (
            r"axis ?= ?0",
            r"down the columns",
            r"in place",
            r"standard deviation",
            r"dim=|PyTorch spelling",
        ),
        code="""
        def center_rows(x):
            return x - np.mean(x, -1, True)
        """,
    ),
    # ------------------------------------------------------------------ 01 tokenization
    _c(
        "tok-word-star-empty-matches",
        L01,
        "tokenize",
        "writes the word alternative with * instead of + (r'\\w*|[^\\w\\s]'): \\w* also "
        "matches the empty string, so re.findall returns an empty-string token at every space "
        "and at the end of the text, between the real tokens.",
        (
            r"empty.?string",
            r"empty (tokens?|matches?)",
            r"\\w\*",
            r"\* instead of \+|\+ instead of \*",
            r"zero or more",
        ),
        (
            r"(all|every) punctuation marks? (are |is )?(dropped|missing|lost)",
            r"runs? of (punctuation|marks)",
            r"spaces? (are |is )?(kept|returned) as tokens",
            r"not lower.?cased",
            r"split into (single )?characters",
        ),
        code="""
        def tokenize(text):
            return re.findall(r"\\w*|[^\\w\\s]", text.lower())
        """,
        source=REGEX_STAR_MATCHES_EMPTY,
    ),
    _c(
        "tok-strips-edge-punctuation",
        L01,
        "tokenize",
        "strips punctuation from both ends of the whole text first "
        "(text.strip(string.punctuation), a clean-up habit from word counting): marks at the "
        "very start or end of the text ('Hello, I love you!' loses its '!') are dropped; marks "
        "inside it are kept.",
        (
            r"strip",
            r"(first|last|final|leading|trailing) (punctuation )?marks?.{0,60}"
            r"(dropped|missing|lost|removed|left out)",
            r"(start|end|beginning|edges?|ends) of the (whole )?text",
            r"(marks?|punctuation) at the (very )?(start|end|beginning)",
        ),
        (
            r"(all|every) punctuation marks? (are |is )?(dropped|missing|lost)",
            r"not lower.?cased",
            r"runs? of (punctuation|marks)",
            r"fixed (set|list) of (punctuation|marks)",
        ),
        code="""
        import string


        def tokenize(text):
            cleaned = text.lower().strip(string.punctuation)
            return re.findall(r"\\w+|[^\\w\\s]", cleaned)
        """,
    ),
    _c(
        "vocab-most-common-min-freq",
        L01,
        "build_vocab",
        "passes min_freq to Counter.most_common(min_freq), which keeps the min_freq most "
        "frequent tokens, not the tokens seen at least min_freq times: with the default "
        "min_freq=1 the vocabulary holds the four specials and a single token.",
        (
            r"most_common\(min_freq\)",
            r"most_common.{0,80}(top|most frequent|first) .{0,30}min_freq",
            r"min_freq (most frequent|tokens)",
            r"(keeps?|kept) only (the )?(first |top )?min_freq",
        ),
        (
            r"count > min_freq|strictly (above|more than|greater)",
            r"(once|counted) per sentence",
            r"special tokens? (missing|left out)",
        ),
        code="""
        def build_vocab(token_lists, min_freq=1):
            counts = Counter(token for tokens in token_lists for token in tokens)
            vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}
            kept = counts.most_common(min_freq)
            for token, count in sorted(kept, key=lambda item: (-item[1], item[0])):
                if token not in vocab:
                    vocab[token] = len(vocab)
            return vocab
        """,
    ),
    _c(
        "vocab-next-id-never-advances",
        L01,
        "build_vocab",
        "takes the next free id once, before the loop (next_id = len(vocab)), and never "
        "increments it: every data token gets id 4, so one id is shared by all of them and "
        "ids 5 and up are never used.",
        (
            r"(same|a single) id.{0,60}(every|all|several|more than one|different) (data |corpus )?tokens",
            r"ids? (is |are |was |were )?(repeated|reused|shared|duplicated|used (twice|more than once))",
            r"never (incremented|increases|advances|grows|changes)",
            r"(every|all) (data |corpus )?tokens? (get|gets|got|have|has|share) (the )?(same )?id 4",
            r"(two|several|different|distinct) tokens.{0,60}same id",
        ),
        (
            r"(start|starts|starting|numbered) (the ids )?(at|from) 1\b",
            r"special tokens?.{0,40}(overwritten|new id|renumbered|reassigned)",
            r"\{id: token\}|other way round",
        ),
        code="""
        def build_vocab(token_lists, min_freq=1):
            counts = Counter(token for tokens in token_lists for token in tokens)
            vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}
            next_id = len(vocab)
            for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
                if count >= min_freq and token not in vocab:
                    vocab[token] = next_id
            return vocab
        """,
    ),
    _c(
        "encode-unknown-skipped",
        L01,
        "encode",
        "catches the KeyError of an unknown token and skips it (except KeyError: continue) "
        "instead of appending the id of <unk>: unknown tokens vanish, so the ids are fewer "
        "than the tokens.",
        (
            r"(skip|skips|skipped|drop|drops|dropped|left out|leaves out|omit\w*|lost|vanish\w*)"
            r".{0,60}unknown",
            r"unknown tokens?.{0,60}(skipped|dropped|left out|omitted|missing|vanish\w*|no id|lost)",
            r"(fewer|too few) ids",
            r"ids? (is |are )?shorter",
        ),
        (
            r"id of <pad>|hard-?coded 0",
            r"raises? KeyError",
            r"\bNone\b",
            r"(adds?|wraps?).{0,30}<bos>",
            r"lower.?cas",
        ),
        code="""
        def encode(tokens, vocab):
            ids = []
            for token in tokens:
                try:
                    ids.append(vocab[token])
                except KeyError:
                    continue
            return ids
        """,
    ),
    _c(
        "decode-inverse-without-items",
        L01,
        "decode",
        "builds the inverse dict from `for token, index in vocab`, without .items(): iterating "
        "a dict gives its keys only, so each token string is unpacked into two names, and a "
        "token of more than two characters such as '<pad>' raises ValueError (too many values "
        "to unpack).",
        (
            r"\.items\(\)",
            r"(iterat|loop)\w* (over )?(a |the )?(dict|vocab)\w*.{0,80}keys",
            r"keys only|only (its |the )?keys",
        ),
        (
            r"not (swapped|inverted)",
            r"(position|key order|list\(vocab\))",
            r"tolist",
            r"special tokens? (dropped|skipped|left out)",
        ),
        code="""
        def decode(ids, vocab):
            id_to_token = {index: token for token, index in vocab}
            return [id_to_token[int(index)] for index in ids]
        """,
        source=DICT_ITERATES_KEYS,
    ),
    _c(
        "pad-np-empty",
        L01,
        "pad_batch",
        "creates the batch with np.empty, which leaves its entries uninitialised, copies the "
        "sequences in and never writes pad_id: the padding positions hold whatever was in "
        "memory (sometimes 0) instead of pad_id.",
        (
            r"np\.empty",
            r"uninitiali[sz]ed",
            r"(padding|pad) (positions?|cells?|entries).{0,80}"
            r"(never (written|filled|set)|not (filled|set|written)|garbage|arbitrary|leftover)",
            r"never (write|fill|set)s? .{0,30}pad_id",
            r"(garbage|arbitrary|leftover|uninitiali[sz]ed) values",
        ),
        (
            r"np\.zeros",
            r"(on|to) the left",
            r"(is|as|returned) (a )?float",
            r"sorted|reorder",
        ),
        code="""
        def pad_batch(sequences, pad_id):
            max_len = max((len(seq) for seq in sequences), default=0)
            batch = np.empty((len(sequences), max_len), dtype=np.int64)
            for row, seq in enumerate(sequences):
                batch[row, : len(seq)] = seq
            return batch
        """,
        source=NP_EMPTY_UNINITIALISED,
    ),
    _c(
        "pad-width-is-longest-list",
        L01,
        "pad_batch",
        "takes the width as max(sequences, key=len, default=[]), which returns the longest "
        "sequence itself rather than its length, and passes that list to np.full as the "
        "width: every call raises TypeError ('list' object cannot be interpreted as an "
        "integer); len(...) of it was meant.",
        (
            r"len\(max\(",
            r"(longest )?(sequence|list) itself",
            r"(width|max_len|shape).{0,60}(is|was) a list",
            r"(a |the )?(list|sequence) (as|for) (the )?(width|max_len|shape|length)",
            r"max\(.{0,40}key=len.{0,80}(sequence|list)",
        ),
        (
            r"lexicographic",
            r"first sequence",
            r"mean length",
            r"(on|to) the left",
        ),
        code="""
        def pad_batch(sequences, pad_id):
            max_len = max(sequences, key=len, default=[])
            batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)
            for row, seq in enumerate(sequences):
                batch[row, : len(seq)] = seq
            return batch
        """,
    ),
    _c(
        "pairs-plain-dict-increment",
        L01,
        "get_pair_counts",
        "counts into a plain dict with counts[pair] += 1, which reads a pair's count before it "
        "exists: the first pair raises KeyError (counts.get(pair, 0) + 1, a defaultdict(int) "
        "or a Counter was meant); only lists with fewer than two ids, which have no pair, work.",
        (
            r"defaultdict",
            r"Counter\(",
            r"\.get\(\w+, ?0\)",
            r"(key|pair) (is )?(not|never) (yet )?in the dict",
            r"(before|not yet) (it )?(exists|initiali[sz]ed|in the dict|been (seen|counted))",
            r"\+= ?1 on a (plain )?dict",
            r"(new|first|unseen) pair.{0,60}(KeyError|no entry|not in the dict)",
        ),
        (
            r"overlap",
            r"last pair",
            r"sorted by count|most_common",
            r"mutable default",
        ),
        code="""
        def get_pair_counts(ids):
            counts = {}
            for pair in zip(ids, ids[1:]):
                counts[pair] += 1
            return counts
        """,
        source=COUNT_KEYERROR,
    ),
    _c(
        "pairs-range-past-end",
        L01,
        "get_pair_counts",
        "loops i over range(len(ids)), one step too far: at the last id, ids[i + 1] is past "
        "the end and raises IndexError, so every non-empty list fails (range(len(ids) - 1) "
        "was meant).",
        (
            r"range\(len\(ids\)\)",
            r"range\(len\(ids\) ?- ?1\)",
            r"(last|final) (id|position|index).{0,80}"
            r"(no (next|neighbou?r|following)|past the end|i ?\+ ?1)",
            r"one (step|index|position|iteration) too (far|many)",
            r"ids\[i ?\+ ?1\].{0,80}(past|beyond|out of range|end)",
        ),
        (
            r"(misses|missed|never counts?) the last pair",
            r"wrap",
            r"two (places )?apart",
            r"even positions?",
        ),
        code="""
        def get_pair_counts(ids):
            counts = {}
            for i in range(len(ids)):
                pair = (ids[i], ids[i + 1])
                counts[pair] = counts.get(pair, 0) + 1
            return counts
        """,
    ),
    _c(
        "merge-index-of-first-id",
        L01,
        "merge_pair",
        "finds each occurrence with merged.index(pair[0]), which returns the first pair[0] "
        "only, and stops when that one is not followed by pair[1]: in [5, 1, 3, 1, 2] with "
        "pair (1, 2) nothing is merged, because the first 1 is followed by 3 (right whenever "
        "the first pair[0] starts an occurrence).",
        (
            r"\.index\(",
            r"first pair\[0\]",
            r"(first|earlier) (id equal to |occurrence of )?(pair\[0\]|the pair'?s first id)"
            r".{0,80}not followed",
            r"(occurrences?|pairs?) after.{0,80}(not|never|left) (merged|unmerged)",
            r"later occurrences? (are |were )?(not|never|left)",
        ),
        (
            r"only the first occurrence|first occurrence only",
            r"overlap",
            r"in place|modif(y|ies|ied) (the |your )?input",
            r"steps? of two|even positions?",
            r"bounds",
        ),
        code="""
        def merge_pair(ids, pair, new_id):
            merged = list(ids)
            while pair[0] in merged:
                i = merged.index(pair[0])
                if i + 1 < len(merged) and merged[i + 1] == pair[1]:
                    merged[i : i + 2] = [new_id]
                else:
                    break
            return merged
        """,
    ),
    _c(
        "train-counts-pairs-of-text",
        L01,
        "train_bpe",
        "counts the pairs of the text's characters (get_pair_counts(text)) instead of the "
        "current ids: the best pair is a pair of one-character strings, which merge_pair never "
        "finds among the int ids, so nothing is ever merged and the merges dict holds pairs of "
        "characters.",
        (
            r"get_pair_counts\(text\)",
            r"pairs? of (one-character )?strings|strings? (pairs|keys)",
            r"characters?.{0,40}(instead of|not) (the )?(current )?(ids|bytes|ints)",
            r"(text|str) instead of (the )?(current )?ids",
        ),
        (
            r"never (updated|reassigned)|(result|return value).{0,30}(discarded|thrown away)",
            r"code points|ord\(",
            r"count(s|ed)? (the pairs )?once",
            r"ties?",
        ),
        code="""
        def train_bpe(text, num_merges):
            ids = list(text.encode("utf-8"))
            merges = {}
            for step in range(num_merges):
                counts = get_pair_counts(text)
                if not counts:
                    break
                best = max(counts, key=counts.get)
                ids = merge_pair(ids, best, 256 + step)
                merges[best] = 256 + step
            return merges
        """,
    ),
    _c(
        "train-merges-sorted-by-pair",
        L01,
        "train_bpe",
        "returns the merges sorted by pair (dict(sorted(merges.items()))) instead of in the "
        "order they were learned: every pair and id is right, but the dict's order no longer "
        "follows the new ids 256, 257, ..., which replaying or decoding the merges in order "
        "relies on.",
        (
            r"(sorted|order(ed)?) by (the )?pairs?",
            r"(not|isn't|aren't) in (the )?(order|learned order)",
            r"(learned|learning|training) order",
            r"sorted\(",
            r"order of (the )?(keys|merges|items|entries).{0,80}(learned|new id|256)",
        ),
        (
            r"ties?\b",
            r"inverted|\{new_id: pair\}",
            r"(ids?|numbered) from (0|257)",
            r"list of pairs",
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
                ids = merge_pair(ids, best, 256 + step)
                merges[best] = 256 + step
            return dict(sorted(merges.items()))
        """,
        source=MERGES_STORED_IN_ORDER,
    ),
    _c(
        "bpe-encode-zip-iterator-consumed",
        L01,
        "bpe_encode",
        "tests each merge against zip(ids, ids[1:]), an iterator that every `in` test "
        "consumes: a merge that is not found exhausts it, so every later merge looks absent "
        "too, and encoding stops as soon as the earliest-learned merge not yet applied no "
        "longer occurs (bpe_encode('aaaaa') with (a, a) -> 256, (256, a) -> 257 gives "
        "[256, 256, 97]).",
        (
            r"zip.{0,80}(iterator|consumed|exhausted|used up|one-shot)",
            r"(iterator|generator).{0,60}(consumed|exhausted|used up)",
            r"list\(zip",
        ),
        (
            r"(counted|collected|computed) once",
            r"\bif\b (instead of|rather than) (a )?while",
            r"leftmost",
            r"most frequent",
            r"latest|highest new id",
        ),
        code="""
        def bpe_encode(text, merges):
            ids = list(text.encode("utf-8"))
            while len(ids) >= 2:
                pairs = zip(ids, ids[1:])
                present = [pair for pair in merges if pair in pairs]
                if not present:
                    break
                pair = min(present, key=merges.get)
                ids = merge_pair(ids, pair, merges[pair])
            return ids
        """,
        source=IN_CONSUMES_ITERATOR,
    ),
    _c(
        "bpe-encode-min-over-all-merges",
        L01,
        "bpe_encode",
        "checks that some learned pair is present but then takes the earliest merge of all, "
        "min(merges, key=merges.get), instead of the earliest among the pairs present: once "
        "the first merge no longer occurs, merge_pair changes nothing and the loop never ends "
        "(a text where it never occurs hangs at once).",
        (
            r"min\(merges",
            r"(over|among|of) all (the )?(learned )?merges.{0,60}(not|instead of|rather than)"
            r".{0,40}(present|in the text|occur)",
            r"(not|never) (restricted|limited) to (the )?(pairs )?(present|that occur)",
            r"(merge|pair) (that is |which is )?(not|no longer) (present|in the text|occurring)"
            r".{0,80}(again|forever|repeated)",
        ),
        (
            r"leftmost",
            r"most frequent",
            r"latest|highest new id",
            r"KeyError",
            r"fewer than two|len\(ids\) ?> ?2",
        ),
        code="""
        def bpe_encode(text, merges):
            ids = list(text.encode("utf-8"))
            while len(ids) >= 2:
                present = [pair for pair in get_pair_counts(ids) if pair in merges]
                if not present:
                    break
                pair = min(merges, key=merges.get)
                ids = merge_pair(ids, pair, merges[pair])
            return ids
        """,
    ),
    _c(
        "bpe-decode-bytes-of-pieces",
        L01,
        "bpe_decode",
        "joins the tokens' bytes with bytes(...) over a generator of bytes objects instead of "
        "b''.join(...): bytes() takes an iterable of ints, so any non-empty ids raise "
        "TypeError ('bytes' object cannot be interpreted as an integer).",
        (
            r"b(\"\"|'')\.join",
            r"bytes\(\).{0,80}(ints?|integers)",
            r"bytes\(.{0,60}\).{0,80}(iterable|sequence|generator) of (ints?|integers)",
            r"join (the )?(tokens'? |pieces'? )?bytes",
            r"(generator|iterable) of bytes( objects)?",
        ),
        (
            r"latin-?1",
            r"separately",
            r"bytes\(i\)|zero bytes",
            r"bytes\(\[a, ?b\]\)",
            r"joined with (a )?spaces?|spaces? between",
        ),
        code="""
        def bpe_decode(ids, merges):
            table = {i: bytes([i]) for i in range(256)}
            for (a, b), new_id in merges.items():
                table[new_id] = table[a] + table[b]
            return bytes(table[i] for i in ids).decode("utf-8", errors="replace")
        """,
        source=BYTES_OF_ITERABLE,
    ),
    _c(
        "bpe-decode-first-part-twice",
        L01,
        "bpe_decode",
        "a copy-paste slip builds each merged token from its first part twice "
        "(table[a] + table[a]) instead of table[a] + table[b]: merges of two equal parts, such "
        "as (a, a), decode right, every other merged token comes back wrong.",
        (
            r"table\[a\] ?\+ ?table\[a\]",
            r"(first|left) part twice",
            r"twice.{0,40}(first|left) part",
            r"(second|right) part.{0,60}(never used|ignored|replaced|missing|lost|left out)",
            r"(instead of|not) (its |the )?(second|right) part",
            r"same part twice",
        ),
        (
            r"bytes\(\[a, ?b\]\)|raw bytes",
            r"latin-?1",
            r"separately",
            r"(reversed|swapped|wrong order|b before a)",
            r"cached|first call",
        ),
        code="""
        def bpe_decode(ids, merges):
            table = {i: bytes([i]) for i in range(256)}
            for (a, b), new_id in merges.items():
                table[new_id] = table[a] + table[a]
            return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")
        """,
    ),
    # ------------------------------------------------------------------ 02 embeddings
    _c(
        "onehot-width-from-len-ids",
        L02,
        "one_hot",
        "sizes the identity by the number of ids, np.eye(len(ids)), instead of vocab_size: "
        "the vectors are len(ids) wide (the batch size for a 2-D batch), and an id at least "
        "len(ids) raises IndexError.",
        (
            r"len\(ids\)",
            r"number of (ids|tokens|positions|rows|sequences)",
            r"(width|size|columns?).{0,60}(from|is|was|equals?) (the )?(number|count|length) of "
            r"(the )?ids",
            r"(length|len) of (the )?ids",
        ),
        (
            r"ids\.max\(\)|largest id|max\(ids\)",
            r"vocab_size ?\+ ?1",
            r"distinct|unique",
            r"bool",
        ),
        code="""
        def one_hot(ids, vocab_size):
            return np.eye(len(ids))[np.asarray(ids)]
        """,
    ),
    _c(
        "embed-output-in-ids-dtype",
        L02,
        "embed",
        "allocates the output with the ids' integer dtype (np.zeros(..., dtype=ids.dtype)) and "
        "copies the rows into it: numpy truncates every float to a whole number, so the vectors "
        "lose their fractions (entries between -1 and 1 become 0).",
        (
            r"truncat",
            r"dtype ?= ?ids\.dtype",
            r"ids'? (integer )?dtype",
            r"(integer|int64|int32|int) (dtype|output|array|result).{0,80}"
            r"(whole|fraction|rounded|decimals?)",
            r"int(8|16|32|64)?\b.{0,60}(instead of|not|expected).{0,40}(float|the table'?s dtype)",
            r"(rounded|cut) (down |toward zero )?to (whole numbers|integers?)",
        ),
        (
            r"transpos|columns",
            r"squeez",
            r"one-based|id ?- ?1",
            r"scaled|sqrt",
            r"torch",
        ),
        code="""
        def embed(ids, table):
            ids = np.asarray(ids)
            table = np.asarray(table)
            out = np.zeros(ids.shape + (table.shape[1],), dtype=ids.dtype)
            for index in np.ndindex(ids.shape):
                out[index] = table[ids[index]]
            return out
        """,
        source=INT_ARRAY_TRUNCATES,
    ),
    _c(
        "cos-np-max-as-floor",
        L02,
        "cosine_similarity",
        "guards the norms with np.max(norm, 1e-12) instead of np.maximum(norm, 1e-12): np.max "
        "reduces one array and reads its second argument as the axis, so every call raises "
        "TypeError ('float' object cannot be interpreted as an integer).",
        (
            r"np\.maximum",
            r"np\.max\b.{0,80}(axis|reduc)",
            r"(second argument|1e-12).{0,60}(as|is) (the |an )?axis",
            r"element-?wise (maximum|max)",
        ),
        (
            r"squared norms?|sum of squares",
            r"axis ?= ?0",
            r"(gives?|returns?|contains?) NaN",
            r"transpos",
            r"(floor|maximum\(norm,) ?(of )?1(\.0)?\b",
        ),
        code="""
        def cosine_similarity(a, b):
            a = np.asarray(a, dtype=np.float64)
            b = np.asarray(b, dtype=np.float64)
            a_unit = a / np.max(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)
            b_unit = b / np.max(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)
            return a_unit @ b_unit.T
        """,
        source=NP_MAX_VS_MAXIMUM,
    ),
    _c(
        "tokemb-torch-sqrt-of-int",
        L02,
        "TokenEmbedding",
        "computes the scale with torch.sqrt(self.d_model) on the int d_model: torch.sqrt takes "
        "a tensor only, so every forward raises TypeError (argument 'input' must be Tensor, "
        "not int); math.sqrt(d_model) or d_model ** 0.5 was meant.",
        (
            r"torch\.sqrt",
            r"math\.sqrt",
            r"\*\* ?0\.5",
            r"(python |an? )?(int|number|scalar).{0,60}(not a|isn't a|instead of a|is not a) tensor",
            r"must be Tensor, not int",
        ),
        (
            r"divid",
            r"vocab_size",
            r"no_grad|detach",
            r"sequence length|ids\.shape",
            r"super\(\)",
        ),
        code="""
        class TokenEmbedding(nn.Module):
            def __init__(self, vocab_size, d_model):
                super().__init__()
                self.d_model = d_model
                self.embedding = nn.Embedding(vocab_size, d_model)

            def forward(self, ids):
                return self.embedding(ids) * torch.sqrt(self.d_model)
        """,
        source=TORCH_SQRT_OF_NUMBER,
    ),
    _c(
        "tokemb-square-root-twice",
        L02,
        "TokenEmbedding",
        "stores d_model already square-rooted in __init__ (self.d_model = math.sqrt(d_model)) "
        "and takes the square root again in forward: the embeddings are multiplied by "
        "d_model ** 0.25 instead of sqrt(d_model).",
        (
            r"(square root|sqrt).{0,60}twice",
            r"twice.{0,40}(square root|sqrt)",
            r"d_model ?\*\* ?\(?0?\.25|fourth root|d_model ?\^ ?\(?1/4|\*\* ?\(1 ?/ ?4\)",
            r"sqrt\(sqrt",
            r"(square root|sqrt) of (the )?(square root|sqrt)",
        ),
        (
            r"divid",
            r"vocab_size",
            r"int\(|rounded|integer",
            r"(forgot|missing|without|no) (the )?(sqrt|scale|scaling)",
            r"512",
        ),
        code="""
        class TokenEmbedding(nn.Module):
            def __init__(self, vocab_size, d_model):
                super().__init__()
                self.d_model = math.sqrt(d_model)
                self.embedding = nn.Embedding(vocab_size, d_model)

            def forward(self, ids):
                return self.embedding(ids) * math.sqrt(self.d_model)
        """,
    ),
]
