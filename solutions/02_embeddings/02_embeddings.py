# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 02 · Embeddings: from token ids to vectors
#
# *About 80 minutes: 45 minutes for the four exercises and two questions, the rest for
# reading and the demos.*
#
# Lesson 01 turned text into integer ids. A Transformer cannot compute with an id
# directly: the very first thing it does (the box *Input Embedding* at the bottom of
# the paper's Figure 1) is replace every id by a vector of `d_model` numbers, taken
# from a table it learns during training.
#
# **By the end of this lesson you will be able to**
#
# * explain why an id must become a vector, and why a one-hot vector is the
#   "no assumptions" choice;
# * look up embeddings for a whole batch of ids, and show that the lookup is the
#   matrix product `one_hot(ids) @ table`, which is why it trains like any layer;
# * measure how similar two word vectors are with cosine similarity, and say what
#   that similarity does and does not mean;
# * write the Transformer's `TokenEmbedding` layer in PyTorch, with the paper's
#   $\sqrt{d_{model}}$ scale, and say why the scale is there.
#
# | | you build | |
# |---|---|---|
# | Exercise 1 | `one_hot` | the id as a vector with a single 1 |
# | Exercise 2 | `embed` | the lookup: one row of a table per id |
# | Questions 1 and 2 | | the lookup as a linear layer; which rows learn |
# | Exercise 3 | `cosine_similarity` | how alike two vectors point |
# | Exercise 4 | `TokenEmbedding` | the PyTorch layer a Transformer uses |
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. A test
# cell prints `✓ ...` when your answer is right and explains what is wrong when it
# is not. Hints are folded under each exercise: open them one at a time.
#
# Symbols (the same in every lesson): `vocab_size` is the number of distinct token
# ids, `d_model` the width of every token vector (512 in the paper), `batch` the
# number of sentences processed together and `len` the number of tokens in each.

# %% nbgrader={"locked": true, "grade_id": "setup"}
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

from transformer_course.checks.embeddings import (
    check_cosine_similarity,
    check_embed,
    check_one_hot,
    check_quiz_gradient_rows,
    check_quiz_linear_layer,
    check_TokenEmbedding,
)
from transformer_course.data import BLACK_CAT, WORD_GROUPS
from transformer_course.plotting import heatmap

# %% [markdown]
# ## 1. Why an id is not enough
#
# Suppose our vocabulary gives `cat` the id 12, `dog` the id 13 and `milk` the id 27.
# Those numbers are **labels, not quantities**. They come from counting words in a
# corpus; nothing about a cat makes it "one less than a dog". If we fed the ids to a
# network as numbers, it would read meaning into accidents:
#
# * it would treat `dog` as *between* `cat` and whatever has id 14;
# * "twice `cat`" (24) would be some unrelated word;
# * any weight multiplying the id would scale all words along one single line.
#
# We want the opposite: a representation that makes **no false claims** about how
# tokens relate, yet has **room to learn true ones** (that `cat` and `dog` are used
# alike and `cat` and `blue` are not). Two steps get us there: one-hot vectors
# (section 2) remove the false claims, and an embedding table (section 3) adds the
# room to learn.

# %% [markdown]
# ## 2. One-hot vectors
#
# The **one-hot vector** of id $i$ in a vocabulary of size $V$ (`vocab_size`) is the
# $i$-th standard basis vector of $\mathbb{R}^{V}$: all zeros except a single 1 in
# position $i$ (counting from 0):
#
# $$\mathbf{e}_i = (0, \dots, 0, \underbrace{1}_{\text{position } i}, 0, \dots, 0) \in \mathbb{R}^{V}.$$
#
# With `vocab_size = 5`, id 2 becomes `[0, 0, 1, 0, 0]`. Every pair of different
# tokens is now treated exactly alike: the dot product of two different one-hot
# vectors is 0 and their distance is always $\sqrt 2$. No false order, no false
# similarity. But also no *true* similarity, and the vectors are huge: the paper's
# English-German model used a vocabulary of about 37 000 byte-pair tokens, so each
# one-hot vector would have 37 000 entries, all but one of them zero.
#
# For a whole sentence (or a batch of sentences) we one-hot every id and keep the
# ids' shape: ids of shape `(batch, len)` give an array `(batch, len, vocab_size)`.

# %% [markdown]
# ### Exercise 1: `one_hot`
# *1 point · about 5 min · warm-up*
#
# Write `one_hot(ids, vocab_size)`.
#
# * `ids` is an integer array of any shape `(...)`; the result has shape
#   `(..., vocab_size)`: the new axis goes **last**.
# * The entries are numbers, 0.0 and 1.0. The reference returns float64, numpy's
#   default; another float dtype (or integer zeros and ones) is accepted with a note.
#   Booleans are not: numpy adds them up as logic, not as numbers.
# * The width comes from the `vocab_size` argument, never from the largest id: a
#   batch need not contain the largest id.
#
# <details><summary>Hint 1</summary>
#
# Which familiar matrix has, as its rows, exactly the one-hot vectors of the ids
# 0, 1, ..., `vocab_size - 1`?
#
# </details>
#
# <details><summary>Hint 2</summary>
#
# It is the identity matrix, `np.eye(vocab_size)`: row `i` is the one-hot vector of
# id `i`. numpy lets you index the rows of a matrix with an *array* of row numbers,
# of any shape, and the result keeps that shape plus the row's own axis. (Another
# way: compare the ids, with a new axis at the end, against `np.arange(vocab_size)`
# and let broadcasting do the rest; then turn the booleans into floats.)
#
# </details>


# %% nbgrader={"solution": true, "grade_id": "one_hot"}
def one_hot(ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """One-hot encode integer token ids.

    ids: integer array of any shape (...), every entry in [0, vocab_size).
    Returns an array of shape (..., vocab_size) whose vector for each id i is all
    zeros except a 1 in position i. The reference returns float64; any float dtype,
    or integer zeros and ones, is accepted (booleans are not).

    >>> one_hot(np.array([2, 0]), 4)
    array([[0., 0., 1., 0.],
           [1., 0., 0., 0.]])
    """
    ### BEGIN SOLUTION
    return np.eye(vocab_size, dtype=np.float64)[np.asarray(ids)]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_one_hot", "points": 1}
check_one_hot(one_hot)
### BEGIN HIDDEN TESTS
check_one_hot(one_hot, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Here is your function on "the black cat drank the milk", with a tiny vocabulary of
# just the words in that sentence. Each row is one token and has a single lit cell;
# both occurrences of "the" light the same column.

# %%
try:
    sentence = BLACK_CAT.lower().split()  # ['the', 'black', 'cat', 'drank', 'the', 'milk']
    tiny_vocab = {word: index for index, word in enumerate(dict.fromkeys(sentence))}
    sentence_ids = np.array([tiny_vocab[word] for word in sentence])  # (len,)
    print("ids:", sentence_ids)
    heatmap(
        one_hot(sentence_ids, len(tiny_vocab)),  # (len, vocab_size)
        row_labels=sentence,
        col_labels=list(tiny_vocab),
        title="one_hot(ids): one row per token, one column per vocabulary entry",
        xlabel="vocabulary entry (id)",
        ylabel="position in the sentence",
        cmap="Greys",
        vmin=0.0,
        vmax=1.0,
    )
    plt.show()
except NotImplementedError:
    print("one_hot is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# ## 3. An embedding table is a lookup table
#
# An **embedding table** is a matrix $E$ with one row per token:
#
# $$E \in \mathbb{R}^{V \times d_{model}}, \qquad \text{the vector of token } i \text{ is row } E_{i,:}.$$
#
# Embedding a sequence of ids just means reading the rows out, in order:
# ids `(len,)` become vectors `(len, d_model)`, ids `(batch, len)` become
# `(batch, len, d_model)`. Nothing is computed; the rows are **looked up**.
#
# The entries of $E$ are not designed by anyone. They start random and are **learned**
# by gradient descent along with every other weight of the model: if moving the
# vector of `milk` a little makes the model's predictions better, training moves it.
# Words that play similar roles in the training data get pushed in similar
# directions, which is why similar words end up close together (section 6). Each
# token has `d_model` numbers to do this with (512 in the paper), far fewer than the
# 37 000 of a one-hot vector.

# %% [markdown]
# ### Exercise 2: `embed`
# *1 point · about 5 min · warm-up*
#
# Write `embed(ids, table)`: for integer ids of any shape `(...)` and a table
# `(vocab_size, d_model)`, return the rows, shape `(..., d_model)`. It fits on one
# line. Pick **rows**, not columns, and leave the table as it is: a lookup only
# reads it.
#
# <details><summary>Hint 1</summary>
#
# The trick of exercise 1 works for any matrix, not only the identity.
#
# </details>
#
# <details><summary>Hint 2</summary>
#
# Indexing the table's first axis with the whole array of ids returns one row per
# id, arranged in the ids' shape. Indexing its second axis would pick columns: a
# different thing, with a different shape.
#
# </details>


# %% nbgrader={"solution": true, "grade_id": "embed"}
def embed(ids: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Look up the embedding vector of each id.

    ids: integer array of any shape (...), entries in [0, vocab_size).
    table: float array (vocab_size, d_model); row i is the vector of token i.
    Returns an array (..., d_model) with result[..., :] = table[id], in the table's
    dtype (another float dtype passes with a note). The table is only read, never
    modified.
    """
    ### BEGIN SOLUTION
    return np.asarray(table)[np.asarray(ids)]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_embed", "points": 1}
check_embed(embed)
### BEGIN HIDDEN TESTS
check_embed(embed, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. The lookup *is* a matrix product: `one_hot(ids) @ table`
#
# Multiply the one-hot vector of id $i$ with the table. Entry $j$ of the product is
#
# $$(\mathbf{e}_i E)_j = \sum_{k=0}^{V-1} (\mathbf{e}_i)_k \, E_{k,j} = E_{i,j},$$
#
# because $(\mathbf{e}_i)_k$ is 1 when $k = i$ and 0 otherwise: every term of the sum
# vanishes except the one from row $i$. So $\mathbf{e}_i E = E_{i,:}$, and for a whole
# batch, `one_hot(ids) @ table == embed(ids, table)`.
#
# **Predict, then check.** The next cell multiplies the one-hot vectors of a
# `(batch, len) = (2, 3)` array of ids with a random `(6, 4)` table. Before you run
# it, write down the shape of the product and whether it will equal the lookup.

# %%
try:
    demo_rng = np.random.default_rng(0)
    demo_table = demo_rng.normal(size=(6, 4))  # (vocab_size, d_model)
    demo_ids = np.array([[3, 0, 5], [1, 1, 2]])  # (batch, len)
    via_product = (
        one_hot(demo_ids, 6) @ demo_table
    )  # (batch, len, vocab_size) @ (vocab_size, d_model)
    via_lookup = embed(demo_ids, demo_table)  # (batch, len, d_model)
    print("shapes:", via_product.shape, via_lookup.shape)
    print("same values:", np.allclose(via_product, via_lookup))
except NotImplementedError:
    print("one_hot or embed is not written yet: this cell shows them at work once they are.")

# %% [markdown]
# `(2, 3, 4)` both times, and the same numbers. The figure shows why: each lit cell
# of the one-hot matrix selects one row of the table, and that row is copied into
# the output. (This and later figures use the course's reference implementation,
# `transformer_course.reference`, so that they draw correctly whatever state your
# own functions are in.)

# %%
from transformer_course.reference import embeddings as ref

fig, axes = plt.subplots(1, 3, figsize=(13, 3.2), gridspec_kw={"width_ratios": [6, 4, 4]})
ids_row = demo_ids[0]  # (len,)
id_labels = [f"id {i}" for i in ids_row]
heatmap(
    ref.one_hot(ids_row, 6),  # (len, vocab_size)
    ax=axes[0],
    title="one_hot(ids)  (len, vocab_size)",
    xlabel="vocabulary id",
    ylabel="token of the sentence",
    row_labels=id_labels,
    cmap="Greys",
    vmin=0.0,
    vmax=1.0,
)
heatmap(
    demo_table,  # (vocab_size, d_model)
    ax=axes[1],
    title="table  (vocab_size, d_model)",
    xlabel="feature",
    ylabel="row of the table",
    row_labels=[f"row {i}" for i in range(6)],
    cmap="coolwarm",
    vmin=-2.5,
    vmax=2.5,
)
heatmap(
    ref.embed(ids_row, demo_table),  # (len, d_model)
    ax=axes[2],
    title="= rows 3, 0, 5  (len, d_model)",
    xlabel="feature",
    ylabel="token of the sentence",
    row_labels=id_labels,
    cmap="coolwarm",
    vmin=-2.5,
    vmax=2.5,
)
fig.tight_layout()
plt.show()

# %% [markdown]
# **An embedding layer is a linear layer.** The product form says that an embedding
# layer is a linear layer *without bias* applied to one-hot inputs. PyTorch's
# `nn.Linear(in_features, out_features)` stores its weight as a matrix of shape
# `(out_features, in_features)` and computes `x @ weight.T + bias`.

# %% [markdown]
# ### Question 1: an embedding as a linear layer
# *1 point · about 3 min · core*
#
# `E` is the table `(vocab_size, d_model)` of an `nn.Embedding(vocab_size, d_model)`.
# Which layer, applied to `one_hot(ids)` (as a float tensor), gives exactly the same
# vectors as the embedding layer applied to `ids`?
#
# * **a)** `nn.Linear(vocab_size, d_model, bias=False)` whose weight is `E.T`
# * **b)** `nn.Linear(vocab_size, d_model, bias=False)` whose weight is `E`
# * **c)** `nn.Linear(d_model, vocab_size, bias=False)` whose weight is `E`
# * **d)** `nn.Linear(vocab_size, d_model)` (with its bias) whose weight is `E.T`
#
# Make `quiz_linear_layer` return your letter. The test cell explains the answer.


# %% nbgrader={"solution": true, "grade_id": "quiz_linear_layer"}
def quiz_linear_layer() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "a"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_linear_layer", "points": 1}
check_quiz_linear_layer(quiz_linear_layer)
### BEGIN HIDDEN TESTS
check_quiz_linear_layer(quiz_linear_layer, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Why this matters
#
# **Same result, very different cost.** The product does `len × vocab_size × d_model`
# multiply-adds, almost all of them multiplications by zero; the lookup copies
# `len × d_model` numbers. With the paper's sizes (37 000 tokens, `d_model = 512`)
# that is 37 000 times less work per token. That is why every framework implements
# an embedding layer as a lookup (`nn.Embedding` in PyTorch) and never builds the
# one-hot vectors.
#
# **It trains like any other layer.** Because the lookup is a linear layer on one-hot
# inputs, it learns by backpropagation like any weight matrix. Write $X$ for the
# one-hot matrix `(len, vocab_size)` of a sentence, so the output is $Y = XE$. The
# gradient of the loss $L$ with respect to the table is
#
# $$\frac{\partial L}{\partial E} = X^\top \frac{\partial L}{\partial Y},$$
#
# and row $i$ of $X^\top$ is nonzero only at the positions that hold token $i$.

# %% [markdown]
# ### Question 2: which rows learn?
# *1 point · about 2 min · warm-up*
#
# A table of `vocab_size = 10` rows embeds the batch of ids `[[3, 0, 5], [1, 1, 2]]`,
# and the loss is backpropagated. **How many rows** of the table receive a gradient
# that is not zero? Make `quiz_gradient_rows` return the number; the cell after the
# test cell lets PyTorch count them.


# %% nbgrader={"solution": true, "grade_id": "quiz_gradient_rows"}
def quiz_gradient_rows() -> int:
    """Your answer to Question 2: a number of rows."""
    ### BEGIN SOLUTION
    return 5
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_gradient_rows", "points": 1}
check_quiz_gradient_rows(quiz_gradient_rows)
### BEGIN HIDDEN TESTS
check_quiz_gradient_rows(quiz_gradient_rows, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# PyTorch agrees: **only the rows of tokens that occur in the batch receive a
# gradient**, each the sum of the output gradients at its positions. A word that
# never appears in training keeps its random initial vector.

# %%
lookup = nn.Embedding(10, 4)  # a (vocab_size=10, d_model=4) table
out = lookup(torch.tensor([[3, 0, 5], [1, 1, 2]]))  # (batch, len, d_model)
out.sum().backward()
print(
    "rows that received a gradient:",
    lookup.weight.grad.abs().sum(dim=1).nonzero().flatten().tolist(),
)
print("gradient rows (row 1 appears twice, so its gradient counts twice):")
print(lookup.weight.grad)

# %% [markdown]
# ## 5. How similar are two vectors? Cosine similarity
#
# Once words are vectors, "similar words" can mean "vectors pointing in similar
# directions". The standard measure is the cosine of the angle $\theta$ between them:
#
# $$\cos(\mathbf{a}, \mathbf{b}) = \frac{\mathbf{a} \cdot \mathbf{b}}{\lVert \mathbf{a} \rVert \, \lVert \mathbf{b} \rVert}
# = \frac{\sum_k a_k b_k}{\sqrt{\sum_k a_k^2}\,\sqrt{\sum_k b_k^2}} \in [-1, 1].$$
#
# It is 1 for vectors pointing the same way, 0 for orthogonal ones (every pair of
# one-hot vectors!) and −1 for opposite ones. Worked example: $\mathbf{a} = (1, 0)$,
# $\mathbf{b} = (1, 1)$ give $\frac{1}{1 \cdot \sqrt 2} \approx 0.707$, the cosine of
# 45°; and $(1, 0)$ against $(-1, -1)$ gives $-0.707$.
#
# **Why divide by the lengths?** The plain dot product $\mathbf{a} \cdot \mathbf{b}$
# grows when the signs of matching entries agree (that is what makes it a similarity),
# but it also grows with the vectors' lengths, and lengths of word vectors vary for
# reasons unrelated to meaning (in count-based vectors, for instance, with how often
# a word occurs). Dividing by both lengths keeps only the direction. Doubling a
# vector does not change its cosine with anything.
#
# **Pairwise, all at once.** We usually want every vector of one set against every
# vector of another: $\mathbf{a}$ of shape `(n, d)`, $\mathbf{b}$ of shape `(m, d)`,
# result `(n, m)` with entry $(i, j) = \cos(\mathbf{a}_i, \mathbf{b}_j)$. Divide each
# *row* by its own length, then one matrix product computes all $n \cdot m$ dot
# products: $\hat A \hat B^\top$.
#
# **Zero vectors.** A zero vector has no direction, and $0/0$ is undefined. Our
# convention, the same as PyTorch's and scikit-learn's: a zero vector has similarity
# 0 with everything. The alternative, NaN, spreads: `np.argmax` treats a NaN as the
# largest value, and any sum or mean that touches a NaN is NaN. You will meet real
# zero vectors in section 6.
#
# > **Not to be confused with attention scores.** Attention (lesson 04) also compares
# > vectors with dot products, but it does **not** divide by the vectors' lengths: it
# > divides the raw dot product by $\sqrt{d_k}$, a constant, the width of each key
# > vector. One popular explanation says that $d_k$ is "the number of words in a
# > sentence"; it is not: it is a vector width, fixed by the architecture and
# > independent of how long the sentence is.

# %% [markdown]
# ### Exercise 3: `cosine_similarity`
# *2 points · about 15 min · core*
#
# Write `cosine_similarity(a, b)`: `a (n, d)` and `b (m, d)` to the `(n, m)` matrix of
# cosines, vectorised (no Python loops needed), with 0 wherever a zero vector is
# involved (and never NaN).
#
# <details><summary>Hint 1</summary>
#
# Split the job in two: first make every row of `a` and of `b` a vector of length 1,
# then compute all the dot products between the rows of the two results.
#
# </details>
#
# <details><summary>Hint 2</summary>
#
# `np.linalg.norm` takes an `axis` (the axis to sum the squares over: the last one,
# for row vectors) and `keepdims=True` (so the lengths, shape `(n, 1)`, divide the
# rows by broadcasting). A product of an `(n, d)` matrix with a `(d, m)` one gives
# all `n · m` dot products; `b` is `(m, d)`, so it needs a transpose first.
#
# </details>
#
# <details><summary>Hint 3</summary>
#
# For zero vectors, divide by the larger of each length and a tiny number such as
# `1e-12` (`np.maximum` works elementwise): a zero row then stays a zero row, and its
# dot products are 0. Do not clamp at a large number such as 1: short vectors must
# still be normalised.
#
# </details>


# %% nbgrader={"solution": true, "grade_id": "cosine_similarity"}
def cosine_similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise cosine similarity of the rows of a and the rows of b.

    a: float array (n, d); b: float array (m, d).
    Returns a float array (n, m) with entry (i, j) = a[i]·b[j] / (|a[i]| |b[j]|).
    A zero vector has similarity 0 with everything (no NaN). Any float dtype is
    accepted, and so is a small eps in the denominator (PyTorch uses 1e-8).
    """
    ### BEGIN SOLUTION
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a_unit = a / np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-12)  # (n, d)
    b_unit = b / np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), 1e-12)  # (m, d)
    return a_unit @ b_unit.T  # (n, m)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_cosine_similarity", "points": 2}
check_cosine_similarity(cosine_similarity)
### BEGIN HIDDEN TESTS
check_cosine_similarity(cosine_similarity, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Your function on the worked example, and on one-hot vectors (every different pair
# is orthogonal, so the matrix is the identity):

# %%
try:
    print(
        cosine_similarity(np.array([[1.0, 0.0]]), np.array([[1.0, 1.0], [-1.0, -1.0], [5.0, 0.0]]))
    )
    print(cosine_similarity(one_hot(np.arange(4), 4), one_hot(np.arange(4), 4)))
except NotImplementedError:
    print(
        "one_hot or cosine_similarity is not written yet: this cell shows them at work once they are."
    )

# %% [markdown]
# ## 6. Exploring a small table of word vectors
#
# To see similar words land close together, we need a table that has learned
# something. Training a Transformer takes longer than this lesson should, so we
# compute one instead, from the course's toy corpus: a few hundred sentences like
# *"the black cat drank the milk ."* generated from a small grammar in which animals,
# foods, colours and places each appear in their own kinds of slots.
#
# **An honest caveat.** These vectors are *count-based*, not learned by gradient
# descent. `transformer_course.wordvectors.word_vectors` counts how often each word
# appears within two positions of each other word, reweights the counts (positive
# pointwise mutual information, which stops "the" and "." from dominating) and
# compresses each word's row of counts to `d_model = 8` numbers with a singular value
# decomposition. A Transformer's table is learned by gradient descent, for the task
# the model is trained on. What carries over is the geometry: in both, words that
# are used in the same contexts ("you shall know a word by the company it keeps", as
# the linguist J. R. Firth put it) end up with vectors pointing in similar directions.
#
# The vocabulary is lesson 01's, built with the reference `build_vocab`, so ids 0 to
# 3 are the special tokens `<pad>`, `<unk>`, `<bos>`, `<eos>`.

# %%
try:
    from transformer_course.wordvectors import project_2d, word_vectors

    vocab, word_table = word_vectors()  # word_table: (vocab_size, d_model)
    words = list(vocab)  # words[i] is the token with id i
    print(f"vocab_size = {len(vocab)}, d_model = {word_table.shape[1]}")
    print("the vector of 'cat':", np.round(embed(np.array(vocab["cat"]), word_table), 2))
except NotImplementedError:
    print("embed is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# **Nearest neighbours.** For a query word, compute its cosine with every row of the
# table and sort (your `cosine_similarity` and `embed` at work):


# %%
def nearest(word: str, k: int = 5) -> list[tuple[str, float]]:
    """The k tokens whose vectors have the highest cosine with `word`'s vector."""
    query = embed(np.array([vocab[word]]), word_table)  # (1, d_model)
    similarity = cosine_similarity(query, word_table)[0]  # (vocab_size,)
    order = [i for i in np.argsort(-similarity) if i != vocab[word]][:k]
    return [(words[i], round(float(similarity[i]), 2)) for i in order]


try:
    for word in ("cat", "milk", "red", "garden", "drank", "she"):
        print(f"{word:>7} -> {nearest(word)}")
except NotImplementedError:
    print(
        "embed or cosine_similarity is not written yet: this cell shows them at work once they are."
    )

# %% [markdown]
# Animals find animals, foods find foods, colours colours, places places; even the
# verbs (`drank`, `spilled`, `wanted`) and the people (`she`, `he`, `teacher`) group
# up. Nobody told the computation which word is an animal: it read it off the
# contexts. The heatmap of all pairwise cosines between the 24 group words shows the
# same thing as four bright blocks on the diagonal:

# %%
group_words = [word for group in WORD_GROUPS.values() for word in group]
group_vectors = ref.embed(np.array([vocab[w] for w in group_words]), word_table)  # (24, d_model)
heatmap(
    ref.cosine_similarity(group_vectors, group_vectors),  # (24, 24)
    row_labels=group_words,
    col_labels=group_words,
    title="cosine similarity between word vectors",
    xlabel="word",
    ylabel="word",
    cmap="coolwarm",
    vmin=-1.0,
    vmax=1.0,
)
plt.show()

# %% [markdown]
# **A 2-D view.** Eight dimensions cannot be drawn, so we project the vectors onto the
# two directions along which they vary most (principal component analysis,
# `project_2d`). The projection squashes distances, but the clusters survive:

# %%
points = project_2d(group_vectors)  # (24, 2)
fig, ax = plt.subplots(figsize=(7, 5.5))
for (group, members), colour in zip(WORD_GROUPS.items(), ["C0", "C1", "C2", "C3"], strict=True):
    rows = sorted((group_words.index(w) for w in members), key=lambda r: -points[r, 1])
    ax.scatter(points[rows, 0], points[rows, 1], color=colour, label=group, s=40)
    side = 1 if points[rows, 0].mean() < 1.0 else -1  # labels fan out sideways, inwards
    for k, row in enumerate(rows):  # fan the labels out so that close points stay readable
        ax.annotate(
            group_words[row],
            points[row],
            textcoords="offset points",
            xytext=(side * 45, 12 * (2.5 - k)),
            fontsize=8,
            color=colour,
            ha="left" if side > 0 else "right",
            va="center",
            arrowprops={"arrowstyle": "-", "color": "0.7", "lw": 0.6},
        )
ax.set_title("word vectors projected to 2-D (first two principal components)")
ax.set_xlabel("component 1")
ax.set_ylabel("component 2")
ax.margins(x=0.15, y=0.2)
ax.legend(loc="lower center")
plt.show()

# %% [markdown]
# ### What this similarity does and does not mean
#
# **Predict, then check.** In "the black cat drank the milk", *drank* and *milk*
# belong together: the milk is what was drunk. Will `cos(drank, milk)` be high (near
# 1), or will `cos(cat, milk)` be higher? Decide, then run the cell.

# %%
for first, second in (("cat", "milk"), ("drank", "milk"), ("cat", "dog"), ("<pad>", "cat")):
    pair = ref.embed(np.array([vocab[first], vocab[second]]), word_table)  # (2, d_model)
    print(f"cos({first}, {second}) = {ref.cosine_similarity(pair[:1], pair[1:])[0, 0]:+.2f}")

# %% [markdown]
# * `cat` and `dog` are nearly parallel: they can replace each other in a sentence.
# * `cat` and `milk` are fairly similar (about 0.7): both are nouns that follow "the",
#   so they share part of their contexts, though not all of them.
# * `drank` and `milk` are close to orthogonal, even though in the sentence they
#   belong together. Embedding similarity measures **"used in the same kind of
#   place"**, not **"related in this sentence"**. Finding that `milk` is what was
#   `drank` is the job of attention, which compares *projections* of the vectors
#   (queries and keys, lesson 04). Those learned projections can line up the query
#   of `drank` with the key of `milk` even when the embeddings themselves are not
#   alike; that is one reason attention has them.
# * `<pad>` never occurs in the corpus, so its row of counts, and its vector, is all
#   zeros, and its cosine with everything is 0: the zero-vector convention of
#   exercise 3 in action. (In a learned table it would keep its random initial vector
#   instead, since no gradient reaches a row that is never used; Question 2.)

# %% [markdown]
# ## 7. `TokenEmbedding`: the layer a Transformer uses
#
# In PyTorch the table is an `nn.Embedding(vocab_size, d_model)`: a learnable weight
# of shape `(vocab_size, d_model)` whose forward pass is the lookup of section 3. It
# takes a tensor of int64 ids `(batch, len)` and returns `(batch, len, d_model)`.
#
# The paper adds one detail (section 3.4, *Embeddings and Softmax*): "In the embedding
# layers, we multiply those weights by $\sqrt{d_{model}}$." So the Transformer's
# token embedding is
#
# $$\text{TokenEmbedding}(\text{ids}) = E[\text{ids}] \cdot \sqrt{d_{model}}.$$
#
# **Why the factor?** The paper does not say. The usual reading: the same paper
# *shares* this weight matrix with the final layer that turns vectors into scores
# over the vocabulary, and implementations that do this initialise it with small
# entries (standard deviation $1/\sqrt{d_{model}}$, so each row has length about 1).
# The next step adds a positional encoding (lesson 03) whose entries are sines and
# cosines between −1 and 1, each row of length $\sqrt{d_{model}/2}$. Without the
# factor the positions would drown out the words; with it, both have entries of size
# about 1. Note what follows: the factor only makes sense together with the
# initialisation. PyTorch's `nn.Embedding` starts from standard-normal entries (rows
# of length about $\sqrt{d_{model}}$ already), so scaling those gives rows of length
# about $d_{model}$, dozens of times longer than the positional signal. The numbers
# after the exercise show both cases for `d_model = 512`.
#
# **Not the same as attention's scaling.** Attention *divides* scores by $\sqrt{d_k}$
# to keep the softmax out of saturation (lesson 04). Here we *multiply* the
# embeddings by $\sqrt{d_{model}}$. Different place, different purpose, opposite
# direction.

# %% [markdown]
# ### Exercise 4: `TokenEmbedding`
# *2 points · about 15 min · core*
#
# Write the module `TokenEmbedding(vocab_size, d_model)`.
#
# * In `__init__`, keep the table as `self.embedding = nn.Embedding(vocab_size,
#   d_model)`, the name the course's own modules use (the checks load their weights
#   into it; another name passes with a note). It should be the module's only
#   parameter.
# * `forward(ids)`: ids `(batch, len)` (int64) to `(batch, len, d_model)`: the lookup,
#   times $\sqrt{d_{model}}$, in the table's dtype (float32).
# * Keep it inside autograd (no `.detach()`, no `torch.no_grad()`, no numpy): the table
#   must be trainable.
#
# <details><summary>Hint 1</summary>
#
# An `nn.Module` is called like a function: `self.embedding(ids)` does the lookup of
# exercise 2, for a whole batch of ids at once.
#
# </details>
#
# <details><summary>Hint 2</summary>
#
# `forward` needs `d_model` to compute the scale: store it on `self` in `__init__`.
# A Python float such as `math.sqrt(d_model)` keeps the result float32.
#
# </details>


# %% nbgrader={"solution": true, "grade_id": "TokenEmbedding"}
class TokenEmbedding(nn.Module):
    """Token embedding of the Transformer, scaled by sqrt(d_model) (paper, section 3.4).

    TokenEmbedding(vocab_size, d_model) holds one learnable table,
    self.embedding = nn.Embedding(vocab_size, d_model), so its state dict is
    {"embedding.weight": (vocab_size, d_model)} (another attribute name passes with a
    note; extra buffers such as a stored scale are allowed). nn.Embedding(vocab_size,
    d_model, padding_idx=0), as seq2seq tutorials write it for <pad>, is accepted too:
    row 0 then starts at zero and gets no gradient; every other row is unchanged.
    forward(ids): int64 ids (batch, len) -> float32 (batch, len, d_model) equal to
    self.embedding(ids) * sqrt(d_model).
    """

    def __init__(self, vocab_size: int, d_model: int):
        super().__init__()
        ### BEGIN SOLUTION
        self.d_model = d_model
        self.embedding = nn.Embedding(vocab_size, d_model)
        ### END SOLUTION

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        return self.embedding(ids) * math.sqrt(self.d_model)  # (batch, len, d_model)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_TokenEmbedding", "points": 2}
check_TokenEmbedding(TokenEmbedding)
### BEGIN HIDDEN TESTS
check_TokenEmbedding(TokenEmbedding, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Your layer on a real batch: two sentences, encoded with the toy vocabulary and padded
# to the same length with lesson 01's reference `pad_batch` (id 0 is `<pad>`).

# %%
try:
    from transformer_course.reference.tokenization import PAD_ID, encode, pad_batch, tokenize

    sentences = [BLACK_CAT, "the dog is brown ."]
    token_lists = [encode(tokenize(s), vocab) for s in sentences]
    batch_ids = torch.from_numpy(pad_batch(token_lists, PAD_ID))  # (batch, len)
    token_embedding = TokenEmbedding(len(vocab), 8)
    vectors = token_embedding(batch_ids)  # (batch, len, d_model)
    print("ids", tuple(batch_ids.shape), "->", "vectors", tuple(vectors.shape))
    print(batch_ids)
except NotImplementedError:
    print("TokenEmbedding is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# The sizes of the vectors that meet in lesson 03, with the paper's `d_model = 512`:
# the average length of a scaled embedding row under two initialisations, and of a row
# of the sinusoidal positional encoding (computed here with lesson 03's reference).

# %%
from transformer_course.reference.positional_encoding import positional_encoding

d_model = 512
torch.manual_seed(0)
default_init = ref.TokenEmbedding(1000, d_model)  # nn.Embedding's default: N(0, 1)
small_init = ref.TokenEmbedding(1000, d_model)
nn.init.normal_(small_init.embedding.weight, std=d_model**-0.5)  # the tied-weights convention
all_ids = torch.arange(1000)[None, :]  # (1, vocab_size): every token once
with torch.no_grad():
    for name, layer in (("N(0, 1) init", default_init), ("N(0, 1/d_model) init", small_init)):
        length = layer(all_ids).norm(dim=-1).mean()  # mean over tokens of |row| * sqrt(d_model)
        print(f"scaled embedding, {name:<22}: mean row length {length:7.1f}")
pe_rows = positional_encoding(50, d_model)  # (max_len, d_model)
pe_length = np.linalg.norm(pe_rows, axis=-1).mean()
print(f"positional encoding row length          : {pe_length:7.1f}")

# %% [markdown]
# With small initial entries, the scaled embeddings (length about
# $\sqrt{512} \approx 22.6$) and the positional encodings (length
# $\sqrt{256} = 16$) are of the same size; with PyTorch's default initialisation the
# scaled embeddings have length about 512, 32 times the positional encoding's, and
# would drown it. Training changes the table afterwards, of course; the scale matters
# most at the start.

# %% [markdown]
# ## Summary
#
# * Token ids are labels. A network needs vectors, and vectors that make no false
#   claims (one-hot) yet can learn true ones (an embedding table).
# * An embedding layer is a **learned lookup table** $E$ of shape
#   `(vocab_size, d_model)`: ids `(batch, len)` become `(batch, len, d_model)` by
#   reading rows.
# * The lookup equals `one_hot(ids) @ E`: an embedding is a bias-free linear layer on
#   one-hot inputs (an `nn.Linear` whose weight is $E^\top$), trained by
#   backpropagation like any other, but computed as a lookup because that is vastly
#   cheaper. Only rows of tokens that occur get a gradient.
# * **Cosine similarity** compares directions, not lengths; computed pairwise as
#   $\hat A \hat B^\top$ after normalising each row; zero vectors get 0, never NaN.
# * Trained or counted, embedding tables put words used in similar contexts close
#   together. That similarity means "interchangeable", not "related in this
#   sentence"; relating words is attention's job.
# * The Transformer multiplies its embeddings by $\sqrt{d_{model}}$ (paper, section
#   3.4), which makes sense together with a small initialisation and the positional
#   encoding added next; it is not attention's $1/\sqrt{d_k}$.
#
# **Common misconceptions**
#
# * *"An embedding layer computes something from the id."* It only reads a row; all
#   the knowledge is in the learned table.
# * *"The order of ids in the vocabulary matters to the model."* It does not: permuting
#   the rows of the table together with the ids changes nothing.
# * *"Cosine similarity is what attention computes."* Attention uses raw dot products of
#   projected vectors, divided by $\sqrt{d_k}$ (a vector width, not a sentence length).
#
# ## Further reading
#
# * Vaswani et al., [*Attention Is All You Need*](https://arxiv.org/abs/1706.03762),
#   section 3.4 "Embeddings and Softmax": the one paragraph behind exercise 4, with the
#   $\sqrt{d_{model}}$ factor and the weight shared with the output layer.
# * Press and Wolf, [*Using the Output Embedding to Improve Language
#   Models*](https://arxiv.org/abs/1608.05859): the weight tying the paper cites, and why
#   it helps; good if you wonder where the shared matrix comes from.
# * Rush et al., [*The Annotated Transformer*](https://nlp.seas.harvard.edu/annotated-transformer/),
#   the "Embeddings and Softmax" part: the whole model as runnable PyTorch; its
#   `Embeddings` class is your `TokenEmbedding` (its table is called `lut`, lookup table).
# * Jurafsky and Martin, [*Speech and Language Processing*](https://web.stanford.edu/~jurafsky/slp3/),
#   the chapter "Vector Semantics and Embeddings": cosine similarity, PPMI and
#   count-based vectors (what section 6 computed) next to word2vec, explained from
#   the ground up.
# * Zhang et al., *Dive into Deep Learning*, [section "Word Embedding
#   (word2vec)"](https://d2l.ai/chapter_natural-language-processing-pretraining/word2vec.html):
#   how a table is *learned* from raw text, with code; good after this lesson.
# * PyTorch's [`nn.Embedding`](https://pytorch.org/docs/stable/generated/torch.nn.Embedding.html)
#   reference: `padding_idx`, `max_norm` and sparse gradients, the options this lesson
#   left out.
#
# **Next:** every occurrence of `the` got exactly the same vector above, whether it
# was the first word or the fifth. A lookup knows *what* a token is, not *where* it
# is. Lesson 03 adds the position.
