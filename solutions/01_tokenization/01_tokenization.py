# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 01 · Tokenization: from text to integer ids
#
# A Transformer never sees letters. It sees a sequence of **integer ids**, each one
# the row number of a vector in an embedding table (lesson 02). This lesson builds
# the road from text to ids and back:
#
# 1. a word-level tokenizer, `tokenize`;
# 2. a vocabulary with special tokens, `build_vocab`, and the lookups `encode` / `decode`;
# 3. batches of different-length sentences, `pad_batch`;
# 4. byte-pair encoding (BPE), the subword scheme real models use:
#    `get_pair_counts`, `merge_pair`, `train_bpe`, `bpe_encode`, `bpe_decode`.
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. A test
# cell prints `✓ ...` when your function is right and explains what is wrong when
# it is not. Stuck? The same notebook with solutions is in `solutions/01_tokenization/`.

# %% nbgrader={"locked": true, "grade_id": "setup"}
import matplotlib.pyplot as plt
import numpy as np

from transformer_course.checks.tokenization import (
    check_bpe_decode,
    check_bpe_encode,
    check_build_vocab,
    check_decode,
    check_encode,
    check_get_pair_counts,
    check_merge_pair,
    check_pad_batch,
    check_tokenize,
    check_train_bpe,
)
from transformer_course.data import BALL_IS_BLUE, BLACK_CAT, HELLO, toy_corpus

# %% [markdown]
# ## 1. Words and punctuation
#
# The simplest useful tokenizer splits text into words and punctuation marks. Take
# the sentence `"Hello, I love you!"`. We want
#
# ```
# ['hello', ',', 'i', 'love', 'you', '!']
# ```
#
# Three decisions are hidden in that line:
#
# * **Lower-casing.** `Hello` and `hello` become the same token. That halves the
#   number of distinct words a small model has to learn, at the cost of losing the
#   information that a word started a sentence or was a name.
# * **Punctuation is kept, as tokens of its own.** A comma or question mark
#   changes meaning (*"Let's eat, grandma"*), so it stays, but it should not glue
#   itself to the word before it: `you!` and `you` would otherwise be two unrelated
#   entries in the vocabulary.
# * **Whitespace is a separator**, never a token.
#
# Precisely: a *word* is a maximal run of letters, digits or underscores, in any
# script (what Python's regular expressions call `\w`); every other character that
# is not whitespace is a token on its own. So `"...?!"` is four tokens, and
# `"didn't"` is `didn`, `'`, `t`: crude, and one reason real systems use subwords
# (section 4).
#
# *Hint:* `re.findall` with the pattern `r"\w+|[^\w\s]"` does all of this in one
# line; a loop over characters works too.

# %% nbgrader={"solution": true, "grade_id": "tokenize"}
import re


def tokenize(text: str) -> list[str]:
    """Lower-case `text` and split it into words and single punctuation marks.

    A word is a maximal run of letters, digits or underscores (any script);
    every other non-space character is a token of its own; whitespace is dropped.

    >>> tokenize("Hello, I love you!")
    ['hello', ',', 'i', 'love', 'you', '!']
    """
    ### BEGIN SOLUTION
    return re.findall(r"\w+|[^\w\s]", text.lower())
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_tokenize", "points": 2}
check_tokenize(tokenize)
### BEGIN HIDDEN TESTS
check_tokenize(tokenize, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Your tokenizer on the sentences the course keeps coming back to:

# %%
for sentence in (HELLO, *BALL_IS_BLUE, BLACK_CAT):
    print(f"{sentence!r:35} -> {tokenize(sentence)}")

# %% [markdown]
# ### A sequence, not a bag
#
# After tokenization, a sentence is a *list*: order matters to us. It will not
# automatically matter to a Transformer. Attention (lesson 04) compares every token
# with every other token and does not care where they sit: shuffle the input and
# the outputs shuffle the same way. That is why lesson 03 adds *positional
# encodings* to the token vectors. Keep that in mind: the ids you produce here carry
# *what* each token is, not *where* it is.

# %% [markdown]
# ## 2. A vocabulary, and the special tokens
#
# A model's embedding table has one row per token id, so we need a fixed mapping
# token → id: the **vocabulary**. Ours starts with four **special tokens**, whose
# ids every later lesson relies on:
#
# | token | id | used for |
# |---|---|---|
# | `<pad>` | 0 | filling short sentences up to the batch length (section 3) |
# | `<unk>` | 1 | any token that is not in the vocabulary |
# | `<bos>` | 2 | "beginning of sequence": the first input of the decoder |
# | `<eos>` | 3 | "end of sequence": the decoder emits it to say it is done |
#
# After them come the tokens of the training data that occur at least `min_freq`
# times, **most frequent first, ties broken alphabetically**. Ordering by frequency
# is a convention (it makes small ids common tokens, which is handy to read); the
# tie rule makes the result deterministic: the same data always gives the same
# vocabulary, whatever order Python happens to iterate in.
#
# Dropping rare tokens (`min_freq > 1`) keeps the table small, but every dropped
# token becomes `<unk>` later. What that costs is measured below.

# %% nbgrader={"solution": true, "grade_id": "build_vocab"}
from collections import Counter

SPECIAL_TOKENS = ("<pad>", "<unk>", "<bos>", "<eos>")
PAD_ID, UNK_ID, BOS_ID, EOS_ID = range(4)  # their ids


def build_vocab(token_lists: list[list[str]], min_freq: int = 1) -> dict[str, int]:
    """Map each token to an integer id.

    The special tokens come first: <pad>=0, <unk>=1, <bos>=2, <eos>=3. Then every
    token seen at least `min_freq` times in `token_lists`, by descending count,
    ties in alphabetical order. A token that is also a special token keeps its
    special id. Ids are 0, 1, 2, ... without gaps.
    """
    ### BEGIN SOLUTION
    counts = Counter(token for tokens in token_lists for token in tokens)
    vocab = {token: index for index, token in enumerate(SPECIAL_TOKENS)}
    for token, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        if count >= min_freq and token not in vocab:
            vocab[token] = len(vocab)
    return vocab
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_build_vocab", "points": 2}
check_build_vocab(build_vocab)
### BEGIN HIDDEN TESTS
check_build_vocab(build_vocab, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# From here on, the demos use the course's **reference implementation** of the
# functions above (`ref.tokenize`, `ref.build_vocab`, ...), so that a slip in one
# exercise cannot spoil the next one. Your own versions are graded by the test cells.

# %%
from transformer_course.reference import tokenization as ref

corpus = toy_corpus(400, seed=0)
corpus_tokens = [ref.tokenize(sentence) for sentence in corpus]
vocab = ref.build_vocab(corpus_tokens)
print(f"{len(corpus)} sentences, {sum(map(len, corpus_tokens))} tokens, vocabulary of {len(vocab)}")
print("first ids:", list(vocab.items())[:12])

# %% [markdown]
# Token counts in any corpus are wildly uneven: a few tokens (`the`, `.`) are
# everywhere, most are rare. On a log scale, count against rank is close to a
# straight line (Zipf's law); our toy grammar is flatter than real text, but the
# head is already visible:

# %%
counts = Counter(token for tokens in corpus_tokens for token in tokens)
ranked = counts.most_common()
fig, ax = plt.subplots(figsize=(7, 3))
ax.bar(range(len(ranked)), [n for _, n in ranked])
ax.set_xticks(range(len(ranked))[::4], [t for t, _ in ranked][::4], rotation=60)
ax.set_yscale("log")
ax.set_title("token counts in the toy corpus, by rank")
ax.set_ylabel("count (log scale)")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 3. Encoding, decoding and padding
#
# `encode` turns tokens into ids with the vocabulary; a token the vocabulary does
# not know becomes `<unk>`. `decode` goes back. They do *not* add `<bos>`/`<eos>`:
# that is the decoder's business (the decoder lesson), and keeping `encode` one-id-per-token
# makes it easy to reason about.


# %% nbgrader={"solution": true, "grade_id": "encode"}
def encode(tokens: list[str], vocab: dict[str, int]) -> list[int]:
    """Map tokens to ids; a token missing from `vocab` becomes the id of "<unk>"."""
    ### BEGIN SOLUTION
    unk = vocab["<unk>"]
    return [vocab.get(token, unk) for token in tokens]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_encode", "points": 1}
check_encode(encode)
### BEGIN HIDDEN TESTS
check_encode(encode, hidden=True)
### END HIDDEN TESTS


# %% nbgrader={"solution": true, "grade_id": "decode"}
def decode(ids: list[int], vocab: dict[str, int]) -> list[str]:
    """Map ids back to their tokens (special tokens included)."""
    ### BEGIN SOLUTION
    id_to_token = {index: token for token, index in vocab.items()}
    return [id_to_token[int(index)] for index in ids]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_decode", "points": 1}
check_decode(decode)
### BEGIN HIDDEN TESTS
check_decode(decode, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### What `<unk>` costs
#
# Build the vocabulary from half the corpus with `min_freq=3`, and encode a
# sentence with words it has never seen. The round trip is lossy: every unknown
# word comes back as the same `<unk>`, and nothing downstream can tell a zebra from
# a giraffe.

# %%
small_vocab = ref.build_vocab(corpus_tokens[:200], min_freq=3)
sentence = ref.tokenize("The black zebra drank the lemonade.")
ids = encode(sentence, small_vocab)
print(sentence, "\n->", ids, "\n->", decode(ids, small_vocab))
unknown = sum(
    i == small_vocab["<unk>"] for toks in corpus_tokens[200:] for i in encode(toks, small_vocab)
)
print(
    f"held-out half of the corpus: {unknown} of {sum(map(len, corpus_tokens[200:]))} tokens are <unk>"
)

# %% [markdown]
# ### Batches and `<pad>`
#
# Models process many sentences at once, as one rectangular array of shape
# `(batch, len)`. Sentences have different lengths, so shorter ones are filled up,
# on the right, with the `<pad>` id. The array's dtype is an integer type: these
# are ids, not quantities.
#
# ```
# [[5, 6, 7],            [[5, 6, 7],
#  [8],          ->       [8, 0, 0],
#  [9, 10]]               [9, 10, 0]]     shape (3, 3), pad_id = 0
# ```


# %% nbgrader={"solution": true, "grade_id": "pad_batch"}
def pad_batch(sequences: list[list[int]], pad_id: int) -> np.ndarray:
    """Right-pad id sequences with `pad_id` into one integer array of shape
    (batch, max_len), where max_len is the length of the longest sequence
    (0 if every sequence is empty)."""
    ### BEGIN SOLUTION
    max_len = max((len(seq) for seq in sequences), default=0)
    batch = np.full((len(sequences), max_len), pad_id, dtype=np.int64)
    for row, seq in enumerate(sequences):
        batch[row, : len(seq)] = seq
    return batch
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_pad_batch", "points": 1}
check_pad_batch(pad_batch)
### BEGIN HIDDEN TESTS
check_pad_batch(pad_batch, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Here is a padded batch of eight sentences from the corpus. Every dark cell is
# `<pad>`: it is *not* part of any sentence. If we let attention look at those
# positions, a sentence's meaning would depend on how long its batch-mates were.
# **That is why padding needs a mask later** (lesson 06): a boolean array that says
# which positions are real, so attention gives pad positions exactly zero weight.

# %%
batch = pad_batch([ref.encode(toks, vocab) for toks in corpus_tokens[:8]], vocab["<pad>"])
print("batch shape (batch, len):", batch.shape)
fig, ax = plt.subplots(figsize=(7, 2.6))
ax.imshow(batch != vocab["<pad>"], cmap="Greens", aspect="auto")
for (row, col), token_id in np.ndenumerate(batch):
    colour = "black" if token_id == vocab["<pad>"] else "white"
    ax.text(col, row, str(token_id), ha="center", va="center", fontsize=7, color=colour)
ax.set_title("token ids; white cells are <pad> (id 0)")
ax.set_xlabel("position")
ax.set_ylabel("sentence")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 4. Byte-pair encoding
#
# Word-level vocabularies have two problems: they are huge for real text (every
# name, typo and inflection is a new entry), and whatever they miss becomes `<unk>`.
# Characters have the opposite problem: no unknowns, but sequences get long, and
# attention's cost grows with the *square* of the length.
#
# **Byte-pair encoding** sits in between. Start from the UTF-8 *bytes* of the text
# (256 possible values: no text is ever unknown), then repeatedly find the most
# frequent adjacent pair of ids and replace it everywhere by a new id. Each merge
# adds one entry to the vocabulary and shortens the sequence. Frequent words end up
# as single tokens, rare words as a few subword pieces, and nothing is `<unk>`.
#
# The classic worked example is `aaabdaaabac`:
#
# | step | ids (as letters) | most frequent pair | new id |
# |---|---|---|---|
# | 0 | a a a b d a a a b a c | (a, a): 4 times | 256 = "aa" |
# | 1 | aa a b d aa a b a c | (aa, a) and (a, b): 2 times each; (aa, a) occurs first | 257 = "aaa" |
# | 2 | aaa b d aaa b a c | (aaa, b): 2 times | 258 = "aaab" |
# | 3 | aaab d aaab a c | | |
#
# Eleven bytes became five tokens. (Wikipedia's version of this example merges
# `ab` second: it breaks the tie differently. Tie-breaking is a convention; ours is
# *first occurrence*, so that training is deterministic.)
#
# Two details matter for the exercises:
#
# * **Pairs overlap when counting.** `[a, a, a]` contains the pair `(a, a)` twice,
#   at positions 0 and 1.
# * **Merges don't.** Replacing `(a, a)` in `[a, a, a]`, scanning left to right,
#   gives `[aa, a]`: once a pair is merged, both of its ids are used up.


# %% nbgrader={"solution": true, "grade_id": "get_pair_counts"}
def get_pair_counts(ids: list[int]) -> dict[tuple[int, int], int]:
    """Count each adjacent pair (ids[i], ids[i+1]), overlapping pairs included.

    The returned dict lists pairs in the order of their first occurrence.
    >>> get_pair_counts([1, 1, 1, 2])
    {(1, 1): 2, (1, 2): 1}
    """
    ### BEGIN SOLUTION
    counts: dict[tuple[int, int], int] = {}
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_get_pair_counts", "points": 1}
check_get_pair_counts(get_pair_counts)
### BEGIN HIDDEN TESTS
check_get_pair_counts(get_pair_counts, hidden=True)
### END HIDDEN TESTS


# %% nbgrader={"solution": true, "grade_id": "merge_pair"}
def merge_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Return a new list where each occurrence of `pair` is replaced by `new_id`,
    scanning left to right without overlap. The input list is not modified.

    >>> merge_pair([1, 1, 1, 2], (1, 1), 9)
    [9, 1, 2]
    """
    ### BEGIN SOLUTION
    merged = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_merge_pair", "points": 1}
check_merge_pair(merge_pair)
### BEGIN HIDDEN TESTS
check_merge_pair(merge_pair, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Now training: start from `list(text.encode("utf-8"))`; at step `i` (counting from
# 0) count the pairs of the *current* ids, take the most frequent one (ties: the one
# that occurs first; `max(counts, key=counts.get)` does exactly that, because `max`
# keeps the first of equal elements and your dict is in first-occurrence order),
# merge it into id `256 + i`, and record it. Stop early if fewer than two ids remain.


# %% nbgrader={"solution": true, "grade_id": "train_bpe"}
def train_bpe(text: str, num_merges: int) -> dict[tuple[int, int], int]:
    """Learn up to `num_merges` merges over the UTF-8 bytes of `text`.

    Returns {pair: new_id} in the order the merges were learned; the i-th merge
    gets new_id 256 + i.
    """
    ### BEGIN SOLUTION
    ids = list(text.encode("utf-8"))
    merges = {}
    for step in range(num_merges):
        counts = get_pair_counts(ids)
        if not counts:
            break
        best = max(counts, key=counts.get)
        ids = merge_pair(ids, best, 256 + step)
        merges[best] = 256 + step
    return merges
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_train_bpe", "points": 2}
check_train_bpe(train_bpe)
### BEGIN HIDDEN TESTS
check_train_bpe(train_bpe, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# **Encoding new text** replays the merges: start from the bytes, and as long as
# some adjacent pair is in `merges`, merge the pair that was *learned earliest*
# (smallest new id). (Applying every merge once, in learned order, gives the same
# result: can you see why?)
#
# **Decoding** is a table lookup: bytes 0–255 stand for themselves; merge
# `(a, b) -> new_id` stands for `table[a] + table[b]`. Join the bytes and decode
# them as UTF-8 *once, at the end*: a character like `é` is two bytes, which may sit
# in different tokens.


# %% nbgrader={"solution": true, "grade_id": "bpe_encode"}
def bpe_encode(text: str, merges: dict[tuple[int, int], int]) -> list[int]:
    """Encode `text`: its UTF-8 bytes, then the learned merges, earliest-learned first."""
    ### BEGIN SOLUTION
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        present = [pair for pair in get_pair_counts(ids) if pair in merges]
        if not present:
            break
        pair = min(present, key=merges.get)
        ids = merge_pair(ids, pair, merges[pair])
    return ids
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_bpe_encode", "points": 2}
check_bpe_encode(bpe_encode)
### BEGIN HIDDEN TESTS
check_bpe_encode(bpe_encode, hidden=True)
### END HIDDEN TESTS


# %% nbgrader={"solution": true, "grade_id": "bpe_decode"}
def bpe_decode(ids: list[int], merges: dict[tuple[int, int], int]) -> str:
    """Turn BPE ids back into text (the inverse of bpe_encode)."""
    ### BEGIN SOLUTION
    table = {i: bytes([i]) for i in range(256)}
    for (a, b), new_id in merges.items():
        table[new_id] = table[a] + table[b]
    return b"".join(table[i] for i in ids).decode("utf-8", errors="replace")
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_bpe_decode", "points": 1}
check_bpe_decode(bpe_decode)
### BEGIN HIDDEN TESTS
check_bpe_decode(bpe_decode, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### BPE at work
#
# Train on the toy corpus and watch the sequence shrink as merges accumulate. With
# a few hundred merges, frequent words are single tokens; text the tokenizer has
# never seen, accents and emoji included, still round-trips exactly: no `<unk>`.

# %%
training_text = " ".join(corpus)
merges = ref.train_bpe(training_text, 120)
table = {i: bytes([i]) for i in range(256)}
for (a, b), new_id in merges.items():
    table[new_id] = table[a] + table[b]
print(
    "last merges learned:",
    [table[i].decode("utf-8", "replace") for i in list(merges.values())[-8:]],
)

checkpoints = [0, 10, 20, 40, 60, 80, 100, 120]
sample = " ".join(corpus[:50])
lengths = [len(ref.bpe_encode(sample, dict(list(merges.items())[:n]))) for n in checkpoints]
fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(checkpoints, [n / len(sample.encode()) for n in lengths], marker="o")
ax.set_xlabel("number of merges")
ax.set_ylabel("tokens per byte")
ax.set_title("BPE compresses the text as the vocabulary grows")
fig.tight_layout()
plt.show()

unseen = "The brown cow drank lemonade in Zürich 🙂"
unseen_ids = ref.bpe_encode(unseen, merges)
print(unseen_ids)
print([table[i].decode("utf-8", "replace") for i in unseen_ids])
print("round trip exact:", ref.bpe_decode(unseen_ids, merges) == unseen)

# %% [markdown]
# ## Why it matters
#
# * **Why subwords.** A word vocabulary must choose between being enormous and
#   mapping many words to `<unk>`. Byte-level BPE never produces `<unk>`, keeps
#   frequent words whole, and splits rare words into reusable pieces
#   (`drank` and `drink` can share `dr`), so the model can still say something about
#   a word it has never seen whole.
# * **What `<unk>` costs.** Every unknown word collapses into one id: the model
#   cannot tell them apart, cannot copy them into an output, and a translation of
#   "the zebra" becomes "the `<unk>`". The measurement above shows how quickly that
#   adds up when the vocabulary is small.
# * **Why padding needs a mask later.** Padding makes a rectangular batch, but pad
#   positions are not words. Attention compares every position with every other
#   one, so without a mask the pads would receive weight and change the result
#   depending on what else was in the batch. Lesson 06 builds the padding mask that
#   sets their weight to exactly zero.
#
# ## Summary
#
# * Text → tokens → ids: `tokenize`, `build_vocab`, `encode`, `decode`.
# * Special tokens with fixed ids: `<pad>`=0, `<unk>`=1, `<bos>`=2, `<eos>`=3.
# * Batches are `(batch, len)` integer arrays, right-padded with `<pad>`.
# * BPE learns merges of frequent adjacent pairs over bytes: no unknown tokens,
#   shorter sequences than characters, smaller vocabularies than words.
#
# Next, lesson 02 turns each id into a vector: the embedding.
