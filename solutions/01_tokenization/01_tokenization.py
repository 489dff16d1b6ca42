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
# *About 2½ hours: 1 hour for sections 1–3 (words, vocabularies, padding), 1½ hours
# for section 4 (byte-pair encoding); 128 minutes for the ten exercises and two
# questions. Between the two sections is a good place for a break.*
#
# After this lesson you will be able to
#
# * split text into word and punctuation tokens, and say what each choice costs;
# * build a vocabulary with special tokens, and map tokens to ids and back;
# * measure what `<unk>` costs when new text meets a fixed vocabulary;
# * pad sentences of different lengths into one batch, and say why padding will
#   need a mask;
# * train byte-pair encoding on raw bytes, encode new text with it and decode it
#   again, and explain why real tokenizers split text into words first.
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
# Two concept questions check the ideas along the way. Fill in each cell marked
# `# YOUR CODE HERE` (delete the `raise NotImplementedError()`), run it, then run
# the test cell under it.

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
    check_quiz_merge_order,
    check_quiz_unk,
    check_tokenize,
    check_train_bpe,
)
from transformer_course.data import BALL_IS_BLUE, BLACK_CAT, HELLO, long_tail_corpus, toy_corpus
from transformer_course.plotting import interactive_or_static, padded_batch

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
# * **Whitespace is a separator**, never a token: spaces, tabs and newlines alike.
#
# Precisely: a *word* is a maximal run of letters, digits or underscores, in any
# script (what Python's regular expressions call `\w`: `déjà`, `42` and `snake_case`
# are one word each); every other character that is not whitespace is a token on
# its own. So `"...?!"` is four tokens, and `"didn't"` is `didn`, `'`, `t`: crude,
# and one reason real systems use subwords (section 4).
#
# ### Exercise 1: `tokenize`
# *2 points · about 10 min · warm-up*
#
# Write `tokenize(text)` as its docstring says.
#
# <details><summary>Hint 1</summary>
#
# Python's `re` module has a function that returns every non-overlapping match of a
# pattern in a string, as a list. What should one match be?
# </details>
#
# <details><summary>Hint 2</summary>
#
# One pattern with two alternatives does it: *one or more word characters*, or
# *exactly one character that is neither a word character nor whitespace*
# (regular expressions have a class for each: word characters, and whitespace).
# Lower-case the text first. A loop over the characters, collecting word characters
# into the current word, works too.
# </details>

# %% nbgrader={"solution": true, "grade_id": "tokenize"}
import re


def tokenize(text: str) -> list[str]:
    """Lower-case `text` and split it into words and single punctuation marks.

    A word is a maximal run of letters, digits or underscores (any script);
    every other non-space character is a token of its own; whitespace is dropped.
    Returns a list of str (a tuple is accepted too).

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
try:
    for sentence in (HELLO, *BALL_IS_BLUE, BLACK_CAT):
        print(f"{sentence!r:35} -> {tokenize(sentence)}")
except NotImplementedError:
    print("tokenize is not written yet: this cell shows it at work once it is.")

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
# vocabulary, whatever order Python happens to iterate in. Some corpora already
# contain a special token as text (the Penn Treebank writes `<unk>` for rare
# words): such a token keeps its special id.
#
# Dropping rare tokens (`min_freq > 1`) keeps the table small, but every dropped
# token becomes `<unk>` later. What that costs is measured in section 3.
#
# ### Exercise 2: `build_vocab`
# *2 points · about 15 min · core*
#
# <details><summary>Hint 1</summary>
#
# Count first, then order. The standard library has a dict subclass made for
# counting things.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Start the dict with the four special tokens. Sort the (token, count) items with a
# key that puts larger counts first and, among equal counts, the alphabetically
# smaller token first: a tuple key does both at once (negate the count). Then give
# each token that is frequent enough, and not in the dict yet, the next free id,
# which is the dict's current size.
# </details>

# %% nbgrader={"solution": true, "grade_id": "build_vocab"}
from collections import Counter

SPECIAL_TOKENS = ("<pad>", "<unk>", "<bos>", "<eos>")
PAD_ID, UNK_ID, BOS_ID, EOS_ID = range(4)  # their ids


def build_vocab(token_lists: list[list[str]], min_freq: int = 1) -> dict[str, int]:
    """Map each token to an integer id.

    The special tokens come first: <pad>=0, <unk>=1, <bos>=2, <eos>=3. Then every
    token seen at least `min_freq` times in `token_lists`, by descending count,
    ties in alphabetical order. A token that is also a special token keeps its
    special id. Ids are 0, 1, 2, ... without gaps. Any dict is accepted (a
    Counter or an OrderedDict too); the order of its keys does not matter.
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
# functions of this lesson (`ref.tokenize`, `ref.build_vocab`, `ref.encode`, ...), so
# that a slip in one exercise cannot spoil the next one. Your own versions are
# graded by the test cells.

# %%
from transformer_course.reference import tokenization as ref

corpus = toy_corpus(400, seed=0)
corpus_tokens = [ref.tokenize(sentence) for sentence in corpus]
vocab = ref.build_vocab(corpus_tokens)
print(f"{len(corpus)} sentences, {sum(map(len, corpus_tokens))} tokens, vocabulary of {len(vocab)}")
print("first ids:", list(vocab.items())[:12])

# %% [markdown]
# ### Zipf's law: a few tokens everywhere, most of them rare
#
# Token counts in real text are wildly uneven. **Zipf's law** says the count of the
# r-th most frequent word is roughly proportional to 1/r: the second word occurs
# about half as often as the first, the tenth a tenth as often. On **log–log axes**
# (both axes logarithmic) such counts fall on a straight line of slope −1.
#
# The figure compares two small corpora. Our toy grammar picks each word uniformly
# from short lists, so its curve is a flat plateau that simply stops after about 50
# tokens: it has no rare words at all. `long_tail_corpus` uses the same sentence
# patterns but draws the words from long lists with Zipf's frequencies, imitating
# real text. Past the handful of words every sentence pattern needs (`the`, `.`,
# `is`, `saw`), its counts fall along a roughly straight line, a little steeper than
# the dashed 1/rank guide (each of its word lists ends somewhere), down to the many
# words seen only once or twice.

# %%
tail_corpus = long_tail_corpus(600, seed=0)
tail_tokens = [ref.tokenize(sentence) for sentence in tail_corpus]

fig, ax = plt.subplots(figsize=(7, 3.8))
for label, token_lists in (
    ("toy corpus (words picked uniformly)", corpus_tokens),
    ("long-tail corpus (words picked by Zipf's law)", tail_tokens),
):
    ranked = sorted(Counter(t for tokens in token_lists for t in tokens).values(), reverse=True)
    ax.loglog(range(1, len(ranked) + 1), ranked, marker=".", linestyle="none", label=label)
ranks = np.arange(1, 300)
ax.loglog(ranks, 1000 / ranks, "k--", linewidth=1, label="count ∝ 1 / rank (Zipf's law)")
ax.set_xlabel("rank of the token (1 = most frequent), log scale")
ax.set_ylabel("count, log scale")
ax.set_title("token counts against rank, on log–log axes")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 3. Encoding, decoding and padding
#
# `encode` turns tokens into ids with the vocabulary; a token the vocabulary does
# not know becomes `<unk>`. `encode` works with whatever vocabulary it is given, and
# one made elsewhere may number its special tokens otherwise (fairseq's puts `<unk>`
# at 3, SentencePiece's at 0): read the id of `<unk>` from that vocabulary,
# `vocab["<unk>"]`, rather than assuming our `UNK_ID`. `decode` goes back. They do *not* add `<bos>`/`<eos>`:
# that is the decoder's business (the decoder lesson), and keeping `encode`
# one-id-per-token makes it easy to reason about.
#
# ### Exercise 3: `encode`
# *1 point · about 5 min · warm-up*
#
# <details><summary>Hint 1</summary>
#
# One dict lookup per token; the only question is what to do when the token is
# missing.
# </details>
#
# <details><summary>Hint 2</summary>
#
# A dict's `get` method takes a second argument: the value to return when the key is
# missing. Look up the id of `"<unk>"` in the vocabulary once, and use it as that
# default.
# </details>


# %% nbgrader={"solution": true, "grade_id": "encode"}
def encode(tokens: list[str], vocab: dict[str, int]) -> list[int]:
    """Map tokens to ids, one id per token; a token missing from `vocab` becomes the
    id of "<unk>" in `vocab` (vocab["<unk>"], which need not be UNK_ID). Returns a list
    of ints (a tuple or a 1-D integer array is accepted)."""
    ### BEGIN SOLUTION
    unk = vocab["<unk>"]
    return [vocab.get(token, unk) for token in tokens]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_encode", "points": 1}
check_encode(encode)
### BEGIN HIDDEN TESTS
check_encode(encode, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 4: `decode`
# *1 point · about 5 min · warm-up*
#
# `ids` may be a list or a row of a padded batch (a 1-D integer numpy array).
#
# <details><summary>Hint 1</summary>
#
# The vocabulary maps tokens to ids; you need the opposite direction.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Build the inverse dict (id → token) once, with a comprehension over the
# vocabulary's items, then look each id up in it. Special tokens are decoded like
# any other token.
# </details>


# %% nbgrader={"solution": true, "grade_id": "decode"}
def decode(ids: list[int], vocab: dict[str, int]) -> list[str]:
    """Map ids (a list, or a 1-D integer array) back to their tokens, special tokens
    included. Returns a list of str (a tuple is accepted too)."""
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
# The toy corpus is too kind for this question: each of its few dozen words occurs
# dozens of times, so every word of a new sentence is already in the vocabulary.
# Real text is not like that, and neither is `long_tail_corpus`. We build the
# vocabulary from its first 400 sentences (the *training split*) and encode the other
# 200 (*held out*, like the new text a model meets once it is deployed), for several
# values of `min_freq`.
#
# **Predict, then check:** with `min_freq=1` every word of the training split is in
# the vocabulary. Will the held-out sentences still contain `<unk>`? And as
# `min_freq` grows to 20, what happens to the size of the vocabulary, and to the
# share of held-out tokens that become `<unk>`? Decide, then run the cell.

# %%
tail_train, tail_held_out = tail_tokens[:400], tail_tokens[400:]
held_out_size = sum(map(len, tail_held_out))
MIN_FREQS = (1, 2, 3, 5, 10, 20)
unk_cost = {}  # min_freq -> (vocabulary size, share of <unk> tokens, share of sentences with one)
print("min_freq  vocabulary  <unk> tokens (of held-out)  sentences with an <unk>")
for min_freq in MIN_FREQS:
    small_vocab = ref.build_vocab(tail_train, min_freq=min_freq)
    encoded = [ref.encode(tokens, small_vocab) for tokens in tail_held_out]
    unknown = sum(token_id == ref.UNK_ID for ids in encoded for token_id in ids)
    with_unk = sum(ref.UNK_ID in ids for ids in encoded)
    unk_cost[min_freq] = (len(small_vocab), unknown / held_out_size, with_unk / len(encoded))
    print(
        f"{min_freq:8}  {len(small_vocab):10}  {unknown:5} of {held_out_size} = "
        f"{unknown / held_out_size:5.1%}  {with_unk:9} of {len(encoded)}"
    )

# %% [markdown]
# Even keeping every word of the training split (`min_freq=1`, 214 entries), 0.9 %
# of the held-out tokens are `<unk>`, and 15 of the 200 held-out sentences contain at
# least one: new text brings new words. Raising `min_freq` to 10 shrinks the
# vocabulary four-fold (to 50 entries), and then 15.5 % of the held-out tokens are
# `<unk>`, in 160 of the 200 sentences. The round trip through the ids loses every
# one of those words. Move the slider to see which words go (headless, the figure is
# drawn for `min_freq=3`):


# %%
def show_unk_cost(min_freq):
    small_vocab = ref.build_vocab(tail_train, min_freq=min_freq)
    fig, ax = plt.subplots(figsize=(6, 3.2))
    sizes = [unk_cost[m][0] for m in MIN_FREQS]
    rates = [100 * unk_cost[m][1] for m in MIN_FREQS]
    ax.plot(sizes, rates, marker="o")
    for m, size, rate in zip(MIN_FREQS, sizes, rates, strict=True):
        ax.annotate(f"min_freq={m}", (size, rate), textcoords="offset points", xytext=(5, 3))
    ax.margins(x=0.2, y=0.15)
    unknown = sum(
        token_id == ref.UNK_ID
        for tokens in tail_held_out
        for token_id in ref.encode(tokens, small_vocab)
    )
    ax.plot(len(small_vocab), 100 * unknown / held_out_size, "r*", markersize=14)
    ax.set_xlabel("vocabulary size (entries, specials included)")
    ax.set_ylabel("held-out tokens that are <unk> (%)")
    ax.set_title(f"smaller vocabulary, more <unk> (★: min_freq={min_freq})")
    fig.tight_layout()
    for tokens in tail_held_out[:4]:
        decoded = ref.decode(ref.encode(tokens, small_vocab), small_vocab)
        print(f"{' '.join(tokens)}\n  -> {' '.join(decoded)}")


interactive_or_static(show_unk_cost, static={"min_freq": 3}, min_freq=(1, 20, 1))

# %% [markdown]
# Every unknown word collapses into the same id: the model cannot tell an otter from
# a yak, and a translation of "the otter" can at best be "the `<unk>`".
#
# ### Question 1: why `<unk>` exists
# *1 point · about 3 min · warm-up*
#
# A word-level vocabulary is fixed once it is built. Why does it need an `<unk>`
# token at all?
#
# * (a) To mark where a sentence ends, so that the decoder knows when to stop.
# * (b) Because every id is a row of the embedding table, which is fixed before
#   training, while new text keeps bringing words the vocabulary has never seen:
#   each of them still needs some id.
# * (c) To fill up short sentences, so that a batch is a rectangular array.
# * (d) So that the model can learn the meaning of each rare word separately.
#
# Answer by making `quiz_unk()` return the letter of your choice.


# %% nbgrader={"solution": true, "grade_id": "quiz_unk"}
def quiz_unk() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_unk", "points": 1}
check_quiz_unk(quiz_unk)
### BEGIN HIDDEN TESTS
check_quiz_unk(quiz_unk, hidden=True)
### END HIDDEN TESTS

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
#
# ### Exercise 5: `pad_batch`
# *1 point · about 10 min · core*
#
# <details><summary>Hint 1</summary>
#
# First find the length of the longest sequence. A batch of empty sequences, or no
# sequences at all, has a longest length of 0: Python's `max` has an argument for
# the empty case.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Create the whole `(batch, max_len)` array in one call, already filled with
# `pad_id` and with an integer dtype; then copy each sequence into the start of its
# row with a slice. (numpy's `np.pad` can pad each row instead, if you prefer.)
# </details>


# %% nbgrader={"solution": true, "grade_id": "pad_batch"}
def pad_batch(sequences: list[list[int]], pad_id: int) -> np.ndarray:
    """Right-pad id sequences with `pad_id` into one integer array of shape
    (batch, max_len), where max_len is the length of the longest sequence
    (0 if every sequence is empty; no sequences at all give shape (0, 0)).

    Any integer dtype is accepted (int64, int32, ...), and a torch tensor as well as
    a numpy array.
    """
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
# Here is a padded batch of eight sentences from the corpus, made with the reference
# `ref.pad_batch`. Every white cell is `<pad>`: it is *not* part of any sentence.
# If we let attention look at those positions, a sentence's meaning would depend on
# how long its batch-mates were. **That is why padding needs a mask later** (lesson
# 06): a boolean array that says which positions are real, so attention gives pad
# positions exactly zero weight.

# %%
batch = ref.pad_batch([ref.encode(tokens, vocab) for tokens in corpus_tokens[:8]], ref.PAD_ID)
print("batch shape (batch, len):", batch.shape)
padded_batch(batch, ref.PAD_ID)
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
#
# ### Exercise 6: `get_pair_counts`
# *1 point · about 10 min · warm-up*
#
# <details><summary>Hint 1</summary>
#
# The neighbours are `ids[i]` and `ids[i + 1]`. Python can walk two sequences side
# by side, and the second one can be the same list shifted by one.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Count into a plain dict (look the pair up with a default of 0, add 1) or into a
# `Counter`. Both keep their keys in the order they were first inserted, which is
# the order the docstring asks for, as long as you count from left to right.
# </details>


# %% nbgrader={"solution": true, "grade_id": "get_pair_counts"}
def get_pair_counts(ids: list[int]) -> dict[tuple[int, int], int]:
    """Count each adjacent pair (ids[i], ids[i+1]), overlapping pairs included.

    The returned dict (a Counter is fine) lists pairs in the order of their first
    occurrence: train_bpe breaks ties with it.
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

# %% [markdown]
# ### Exercise 7: `merge_pair`
# *1 point · about 15 min · core*
#
# <details><summary>Hint 1</summary>
#
# A `for` loop moves one step at a time, but after a merge you must jump two
# places: walk with an index you move yourself.
# </details>
#
# <details><summary>Hint 2</summary>
#
# At position `i`: if there is a next id and the two ids at `i` and `i + 1` form the
# pair, append `new_id` to a new list and move on by 2; otherwise append `ids[i]`
# and move on by 1. Never change `ids` itself.
# </details>


# %% nbgrader={"solution": true, "grade_id": "merge_pair"}
def merge_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Return a new list where each occurrence of `pair` is replaced by `new_id`,
    scanning left to right without overlap. The input list is not modified.
    (A tuple is accepted as the result too.)

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
# Now training. Start from the UTF-8 bytes of the text, as a list of ints. At step
# `i` (counting from 0), count the pairs of the *current* ids, take the most
# frequent one (ties: the one that occurs first), merge it into the new id `256 + i`,
# and record the merge. Stop early if fewer than two ids remain.
#
# ### Exercise 8: `train_bpe`
# *2 points · about 20 min · challenging*
#
# <details><summary>Hint 1</summary>
#
# Your `get_pair_counts` and `merge_pair` do the real work: `train_bpe` is a loop
# around them.
# </details>
#
# <details><summary>Hint 2</summary>
#
# For the tie rule you need nothing special: your counts are in first-occurrence
# order, and Python's `max`, given a `key` function, returns the *first* of several
# equal maxima. When the counts are empty, there is nothing left to merge: stop.
# Record each merge in a dict as you go: dicts remember insertion order, so the
# merges stay in the order they were learned.
# </details>


# %% nbgrader={"solution": true, "grade_id": "train_bpe"}
def train_bpe(text: str, num_merges: int) -> dict[tuple[int, int], int]:
    """Learn up to `num_merges` merges over the UTF-8 bytes of `text`.

    Returns {pair: new_id} in the order the merges were learned; the i-th merge
    gets new_id 256 + i. Training stops early when fewer than two ids remain
    (stopping as soon as no pair occurs twice is accepted too).
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
# (smallest new id), wherever it occurs. The counts in the new text play no part:
# the merges and their order were fixed by training. (Applying every merge once, in
# learned order, gives the same result: can you see why?)
#
# ### Question 2: which merge comes first?
# *1 point · about 5 min · core*
#
# Training learned two merges, in this order: `(a, a) → 256` (the token `aa`), then
# `(256, a) → 257` (the token `aaa`). What does `bpe_encode("aaaaa", merges)`
# return? Work it out by hand with the rule above.
#
# * (a) `[257, 256]`
# * (b) `[256, 257]`
# * (c) `[256, 256, 97]`
# * (d) `[257, 257]`
#
# Answer by making `quiz_merge_order()` return the letter of your choice.


# %% nbgrader={"solution": true, "grade_id": "quiz_merge_order"}
def quiz_merge_order() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_merge_order", "points": 1}
check_quiz_merge_order(quiz_merge_order)
### BEGIN HIDDEN TESTS
check_quiz_merge_order(quiz_merge_order, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 9: `bpe_encode`
# *2 points · about 20 min · challenging*
#
# <details><summary>Hint 1</summary>
#
# Start exactly as in training, from the bytes. Then loop: which adjacent pairs of
# the current ids have a merge?
# </details>
#
# <details><summary>Hint 2</summary>
#
# Among the adjacent pairs of the current ids that are keys of `merges`, take the one
# with the smallest new id, merge it with `merge_pair`, and repeat until no adjacent
# pair is in `merges` (or fewer than two ids remain).
# </details>


# %% nbgrader={"solution": true, "grade_id": "bpe_encode"}
def bpe_encode(text: str, merges: dict[tuple[int, int], int]) -> list[int]:
    """Encode `text`: its UTF-8 bytes, then the learned merges, earliest-learned first.
    Returns a list of ints (a tuple or a 1-D integer array is accepted)."""
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

# %% [markdown]
# **Decoding** is a table lookup: bytes 0–255 stand for themselves; a merge
# `(a, b) -> new_id` stands for the bytes of `a` followed by the bytes of `b`. Join
# the bytes of all tokens and decode them as UTF-8 *once, at the end*: a character
# like `é` is two bytes, which may sit in different tokens. Not every list of ids
# is valid UTF-8 (a model can emit half of a character), so decode with
# `errors="replace"`: such bytes become the replacement character `�`, not an error.
#
# ### Exercise 10: `bpe_decode`
# *1 point · about 10 min · core*
#
# <details><summary>Hint 1</summary>
#
# Build a table from every id to the bytes it stands for, then use it.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Ids 0–255 are single bytes (`bytes([i])`). Walk the merges in the order they were
# learned: each new id's bytes are its two parts' bytes, concatenated (both parts
# are already in the table). Join the bytes of the ids, then decode as UTF-8
# (`.decode("utf-8", errors="replace")`).
# </details>


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
# We train on the toy corpus with the reference `ref.train_bpe`, then measure how
# many tokens each byte of text needs as the merges accumulate.
#
# **Predict, then check:** after 120 merges, will the text need more or fewer than
# half a token per byte? And will a sentence with words, accents and an emoji the
# tokenizer has never seen come back exactly?

# %%
training_text = " ".join(corpus)
merges = ref.train_bpe(training_text, 120)


def pieces(ids, merges):
    """The text each id stands for ('�' where a token holds part of a character)."""
    return [ref.bpe_decode([token_id], merges) for token_id in ids]


print("last merges learned:", pieces(list(merges.values())[-8:], merges))

checkpoints = [0, 10, 20, 40, 60, 80, 100, 120]
sample = " ".join(corpus[:50])
lengths = [len(ref.bpe_encode(sample, dict(list(merges.items())[:n]))) for n in checkpoints]
fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(checkpoints, [n / len(sample.encode()) for n in lengths], marker="o")
ax.set_xlabel("number of merges learned")
ax.set_ylabel("tokens per byte of text")
ax.set_title("BPE compresses the text as the vocabulary grows")
fig.tight_layout()
plt.show()

unseen = "The brown cow drank lemonade in Zürich 🙂"
unseen_ids = ref.bpe_encode(unseen, merges)
print(unseen_ids)
print(pieces(unseen_ids, merges))
print("round trip exact:", ref.bpe_decode(unseen_ids, merges) == unseen)

# %% [markdown]
# After 120 merges the sample needs about 0.2 tokens per byte, five times fewer
# than bytes, and the unseen sentence comes back exactly, accents and emoji
# included: they are cut into single bytes (shown as `�` when a token holds only
# part of a character), never into `<unk>`.

# %% [markdown]
# ### Words first: how real tokenizers keep merges inside words
#
# Look at the last merges learned above: pieces like `'er gave the '` span several
# words. Our `train_bpe` sees the corpus as one long string of bytes, so a frequent
# *phrase* becomes a token as readily as a frequent word, and the same word is cut
# differently depending on its neighbours.
#
# Real tokenizers prevent this. Before learning merges, they split the text into
# chunks (words, runs of punctuation, runs of spaces) and count pairs only *inside*
# each chunk, so that no merge crosses a chunk boundary. Sennrich et al.'s original
# subword BPE (2016) learned merges inside words, from a list of word counts. GPT-2
# splits with a regular expression,
# `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
# (contractions, letters, digits, other symbols, spaces); Hugging Face's `tokenizers`
# library calls this step *pre-tokenization*. Each chunk keeps the space *before*
# its word (`' cat'`), so joining the chunks gives back the text exactly, and the
# merges still learn where words start.
#
# The two helpers below (given code, not an exercise) do this with the reference
# functions. `pretokenize` uses a simplified form of GPT-2's pattern; training
# counts each distinct chunk once, weighted by how often it occurs, as
# Sennrich et al. and Hugging Face do.


# %% export=true
PRETOKENIZE_PATTERN = r" ?\w+| ?[^\w\s]+|\s+(?!\S)|\s+"


def pretokenize(text: str) -> list[str]:
    """Split text into the chunks that merges may not cross: a word, or a run of
    punctuation, each with the space before it, and runs of whitespace.

    A simplified form of GPT-2's pattern; "".join(pretokenize(text)) == text.
    """
    return re.findall(PRETOKENIZE_PATTERN, text)


def train_bpe_pretokenized(text: str, num_merges: int) -> dict[tuple[int, int], int]:
    """train_bpe with merges kept inside the chunks of pretokenize(text).

    Pairs are counted inside each distinct chunk, times the number of times the
    chunk occurs; ties go to the pair that occurs first, new ids are 256 + i.
    """
    chunk_counts = Counter(pretokenize(text))
    chunks = [(list(chunk.encode("utf-8")), count) for chunk, count in chunk_counts.items()]
    merges = {}
    for step in range(num_merges):
        counts: dict[tuple[int, int], int] = {}
        for ids, count in chunks:
            for pair, n in ref.get_pair_counts(ids).items():
                counts[pair] = counts.get(pair, 0) + n * count
        if not counts:
            break
        best = max(counts, key=counts.get)
        chunks = [(ref.merge_pair(ids, best, 256 + step), count) for ids, count in chunks]
        merges[best] = 256 + step
    return merges


def bpe_encode_pretokenized(text: str, merges: dict[tuple[int, int], int]) -> list[int]:
    """bpe_encode applied to each chunk of pretokenize(text) separately."""
    return [token_id for chunk in pretokenize(text) for token_id in ref.bpe_encode(chunk, merges)]


# %% [markdown]
# **Predict, then check:** we learn 120 merges from the same text both ways. How
# many of the 120 tokens will cross a word boundary (hold a space after their first
# character) in each case? Which of the two will compress new text (100 sentences it
# was not trained on) better?

# %%
print("chunks:", pretokenize("The cat drank, didn't it?"))
presplit_merges = train_bpe_pretokenized(training_text, 120)
new_text = " ".join(toy_corpus(100, seed=1))
sentence = "the brown cow drank the lemonade ."
for name, learned, encode_text in (
    ("whole text", merges, ref.bpe_encode),
    ("words first", presplit_merges, bpe_encode_pretokenized),
):
    tokens = pieces(learned.values(), learned)
    across = [token for token in tokens if " " in token[1:]]  # a space after the first character
    per_byte = len(encode_text(new_text, learned)) / len(new_text.encode())
    print(f"\n{name}: {len(across)} of {len(tokens)} tokens cross a word boundary {across[:4]}")
    print("  longest tokens:", sorted(tokens, key=len, reverse=True)[:6])
    print(f"  new text: {per_byte:.3f} tokens per byte")
    print("  ", pieces(encode_text(sentence, learned), learned))

# %% [markdown]
# Learned on the whole text, 47 of the 120 tokens cross a word boundary
# (`' near the '`, `'er gave the '`), and `drank` is cut into `'dr'`, `'an'`, `'k'` because its
# letters were spent on phrases. Learned words first, no token crosses one, the
# longest tokens are whole words with their space (`' kitchen'`, `' garden'`), and
# `' drank'` is one token. On our repetitive toy grammar the whole-text merges even
# compress new text a little better (0.230 against 0.265 tokens per byte), because
# its sentences repeat whole phrases; on real text, where phrases rarely repeat, the
# vocabulary is better spent on words and word pieces, which every sentence reuses.
# Note also `'t'`, `'he'` at the start of the sentence: without a space before it,
# `the` is a different chunk from `' the'` (GPT-2's tokens have the same quirk).

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
#   "the zebra" becomes "the `<unk>`". The measurement in section 3 shows that even a
#   vocabulary holding every training word meets unknown words in new text, and that
#   a smaller one turns a sizeable share of the text into `<unk>`.
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
#   shorter sequences than characters, smaller vocabularies than words. Encoding
#   replays the merges by rank; real tokenizers learn and apply them inside words.
#
# ## Further reading
#
# * Sennrich, Haddow & Birch, ["Neural Machine Translation of Rare Words with Subword
#   Units"](https://aclanthology.org/P16-1162/) (ACL 2016): where BPE for language
#   comes from. Section 3.2 gives the learning algorithm in a dozen lines of Python;
#   good for the motivation (translating words never seen in training).
# * Vaswani et al., ["Attention Is All You Need"](https://arxiv.org/abs/1706.03762),
#   section 5.1: the Transformer's own data, byte-pair encoded with a shared
#   source–target vocabulary of about 37,000 tokens, and batched by approximate
#   length (which keeps padding small).
# * Andrej Karpathy's [minbpe](https://github.com/karpathy/minbpe) and his lecture
#   "Let's build the GPT Tokenizer": the functions of this lesson in a small real
#   code base, then GPT-2's and GPT-4's split patterns and special tokens. Good for
#   the step from this lesson to a production tokenizer.
# * The Hugging Face LLM course, [chapter 6](https://huggingface.co/learn/llm-course/chapter6/1):
#   normalization, pre-tokenization, and BPE, WordPiece and Unigram side by side, with
#   the `tokenizers` library. Good for comparing the algorithms real models use.
# * Radford et al., ["Language Models are Unsupervised Multitask
#   Learners"](https://cdn.openai.com/better-language-models/language_models_are_unsupervised_multitask_learners.pdf)
#   (GPT-2, 2019), section 2.2: why byte-level BPE, and why merges are kept from
#   crossing character categories.
#
# Next, lesson 02 turns each id into a vector: the embedding.
