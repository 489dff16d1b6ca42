# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 05 · Multi-head attention
#
# **Time:** about 1½ hours: 56 minutes for the three exercises and two questions,
# the rest for reading and the demos.
#
# Lesson 04 built one attention: every query row gets **one** set of weights over the
# keys, and its output is **one** weighted average of the values. The Transformer
# never uses attention that way. Each attention layer runs $h$ smaller attentions side
# by side, the **heads**, each with its own projections, and then combines their
# results.
#
# **By the end of this lesson you can**
#
# * say why one attention is not enough (it can only *average*), and what a head is;
# * give the sizes of every matrix in the paper's formula, and what $d_k$ is for $h$
#   heads;
# * cut a `(batch, len, d_model)` tensor into heads and glue it back, without the
#   silent reshape bug (`split_heads`, `merge_heads`);
# * build `MultiHeadAttention` as an `nn.Module`, dropout included, and check it
#   against PyTorch's own `nn.MultiheadAttention`;
# * say where the queries, keys and values of each of the Transformer's three
#   attentions come from (cross-attention included);
# * count what $h$ heads cost (the same as one big head) and read per-head attention
#   maps.
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. A test
# cell prints `✓ ...` when your code is right and explains what is wrong when it is
# not. Stuck? Open the hints under each exercise, one at a time; the same notebook with
# solutions is in `solutions/05_multi_head_attention/`.
#
# Symbols (see `transformer_course.glossary`): `d_model` is the width of every token
# vector (512 in the paper), `num_heads` $= h$ (8 in the paper), `d_head`
# $= d_k = d_v = d_\text{model}/h$ (64 in the paper), `len_q` and `len_k` the numbers
# of queries and keys. Sequences are `(batch, len, d_model)`; attention weights are
# `(batch, num_heads, len_q, len_k)`.

# %% nbgrader={"locked": true, "grade_id": "setup"}

import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from transformer_course.checks.multi_head_attention import (
    check_merge_heads,
    check_MultiHeadAttention,
    check_quiz_cross_attention_shape,
    check_quiz_head_width,
    check_split_heads,
)
from transformer_course.data import BLACK_CAT
from transformer_course.plotting import attention_heads, attention_heatmap, interactive_or_static

# Lesson 04's attention, the reference version: later lessons build on the reference,
# so that a slip in your lesson-04 code cannot break this lesson.
from transformer_course.reference.attention import scaled_dot_product_attention

torch.set_printoptions(precision=3, sci_mode=False)

# %% [markdown]
# ## 1. Why more than one head?
#
# Take *"The black cat drank the milk"*. When the model builds a new vector for
# **drank**, two other words matter: who drank (**cat**) and what was drunk
# (**milk**). One attention can look at both, but only by **splitting** one budget of
# weight between them: its weights for the query *drank* are a single probability
# distribution over the six words. Say it puts 0.5 on *cat* and 0.5 on *milk*. The
# output is then
#
# $$0.5\, v_\text{cat} + 0.5\, v_\text{milk},$$
#
# an **average**: whatever made $v_\text{cat}$ "the subject" and $v_\text{milk}$ "the
# object" is blurred into one vector, and the next layer cannot tell which part came
# from where. The paper puts it this way: with a single head, *averaging inhibits*
# attending to different things at once.
#
# The fix is to run several attentions in parallel. Each **head** has its own learned
# projections, so it can ask its own question (*"who is my subject?"*, *"what is my
# object?"*, *"what came just before me?"*) and spend its **own** budget of weight on
# the answer. Each head writes its result into its own slice of the output vector, so
# the answers stay apart instead of being averaged together.
#
# ## 2. The formula, and the shapes
#
# Recall from lesson 04, for one head:
#
# $$\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\Big(\frac{QK^\top}{\sqrt{d_k}} + M\Big)\,V .$$
#
# Multi-head attention (Vaswani et al. 2017, section 3.2.2) runs $h$ of them on
# different learned projections of the same inputs, concatenates the results, and
# mixes them with one more matrix $W^O$:
#
# $$\operatorname{MultiHead}(Q, K, V) = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\, W^O,
# \qquad \text{head}_i = \operatorname{Attention}(Q W_i^Q,\; K W_i^K,\; V W_i^V),$$
#
# $$W_i^Q, W_i^K \in \mathbb{R}^{d_\text{model}\times d_k},\qquad
# W_i^V \in \mathbb{R}^{d_\text{model}\times d_v},\qquad
# W^O \in \mathbb{R}^{h d_v \times d_\text{model}},\qquad
# d_k = d_v = d_\text{model}/h .$$
#
# Read the shapes carefully, because a popular explanation gets them wrong (it writes
# $W_Q \in \mathbb{R}^{d_k \times d_\text{model}}$ with "$d_k > d_\text{model}$"): each
# head's projection maps a token vector of width $d_\text{model}$ **down** to a query
# of width $d_k = d_\text{model}/h$. In the paper, $512 \to 64$, for each of $h = 8$
# heads. And $d_k$ is the width of a vector, not the length of a sentence.
#
# Here $Q$, $K$, $V$ are the *inputs* of the layer: where they come from decides
# which kind of attention it is (section 4). $W_i^Q$, $W_i^K$, $W_i^V$ are what turns
# them into the queries, keys and values of head $i$; lesson 04 explained why these
# are three different matrices (a word looks for something different from what it
# offers, and hands over something different again).
#
# ### The trick: $h$ thin matrices side by side are one square matrix
#
# Computing $h$ separate products $X W_1^Q, \dots, X W_h^Q$ would be slow and
# clumsy. But put the $h$ matrices side by side,
#
# $$W^Q = \big[\, W_1^Q \;\big|\; W_2^Q \;\big|\; \cdots \;\big|\; W_h^Q \,\big] \in \mathbb{R}^{d_\text{model} \times h d_k} = \mathbb{R}^{d_\text{model}\times d_\text{model}},$$
#
# and **one** product $X W^Q$, shape `(len, d_model)`, holds every head's queries:
# columns $0 \dots d_k-1$ are head 1's, columns $d_k \dots 2d_k-1$ head 2's, and so
# on. That is why an implementation has a single `nn.Linear(d_model, d_model)` for
# the queries (and one each for keys, values and output), and then **cuts the last
# axis** into `num_heads` chunks of `d_head`. (`nn.Linear` stores its weight as
# `(out_features, in_features)`, the transpose of $W^Q$: head $i$'s block is rows
# $i\,d_k \dots (i+1)\,d_k - 1$ of `w_q.weight`.)
#
# Shapes through the layer, for a batch:
#
# | step | tensor | shape |
# |---|---|---|
# | inputs | query; key, value | `(batch, len_q, d_model)`; `(batch, len_k, d_model)` |
# | project | `w_q(query)`, `w_k(key)`, `w_v(value)` | `(batch, len, d_model)` |
# | split into heads | `q`, `k`, `v` | `(batch, num_heads, len, d_head)` |
# | attention, per head | weights | `(batch, num_heads, len_q, len_k)` |
# | | heads' outputs | `(batch, num_heads, len_q, d_head)` |
# | merge (concatenate) | | `(batch, len_q, d_model)` |
# | project with `w_o` | output | `(batch, len_q, d_model)` |
#
# Note what is split: each head still sees **every token**, and each head's projection
# reads the **whole** $d_\text{model}$-wide vector of every token. The heads differ in
# what they compute from it, their slice of the *projected* features.

# %% [markdown]
# ### Question 1: how wide is one head?
# *1 point · about 3 min · warm-up*
#
# BERT-base, a widely used Transformer encoder, has `d_model = 768` and `h = 12` heads
# in every attention layer. It reads a sentence of 20 tokens. What is $d_k$, the width
# of each head's queries and keys? Make `quiz_head_width` return that number; the test cell
# tells you whether it is right, and why.


# %% nbgrader={"solution": true, "grade_id": "quiz_head_width"}
def quiz_head_width() -> int:
    """Your answer to Question 1: d_k, as a number."""
    ### BEGIN SOLUTION
    return 64
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_head_width", "points": 1}
check_quiz_head_width(quiz_head_width)
### BEGIN HIDDEN TESTS
check_quiz_head_width(quiz_head_width, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Splitting into heads, without scrambling
#
# `split_heads` turns `(batch, len, d_model)` into `(batch, num_heads, len, d_head)`.
# The heads axis goes in front of `len` so that lesson 04's attention, which works on
# the last two axes and treats everything before them as batch dims, runs all heads at
# once.
#
# It is tempting to do that with one `reshape`. It is wrong, and it is one of the most
# common bugs in hand-written Transformers, because it runs without any error. A
# `reshape` never moves a number: it reads the tensor in memory order (last axis
# fastest) and pours the numbers into the new shape. Take one sentence of `len = 3`
# tokens, `d_model = 4`, numbered so that `13` is token 1, feature 3:


# %%
x = torch.tensor(
    [[[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23]]]
)  # (batch=1, len=3, d_model=4)
print(x.reshape(1, 2, 3, 2))  # (batch, num_heads=2, len, d_head=2)? No!

# %% [markdown]
# "Head 0" of that reshape holds `0 1 | 2 3 | 10 11`: all of token 0 and half of token
# 1. What we want is that head 0 holds features 0 and 1 **of every token**, and head 1
# features 2 and 3:
#
# ```
# head 0: [[ 0,  1],      head 1: [[ 2,  3],
#          [10, 11],               [12, 13],
#          [20, 21]]               [22, 23]]
# ```
#
# Look at the axis that has to move: in the input, the three tokens are the *outer*
# axis and the features the inner one; in the picture above, the heads are outer and
# the tokens inner. A reshape cannot exchange two axes; only a transpose (or a
# permute) can.
#
# ### Exercise 1: `split_heads`
# *1 point · about 10 min · core*
#
# Write `split_heads` as its docstring says. It must give exactly the picture above on
# the numbered example.
#
# <details><summary>Hint 1</summary>
#
# Do it in two steps. A reshape that only cuts *one* axis into two, keeping the order
# of everything else, is safe: it does not mix tokens. Which axis can you cut that way,
# and into which two sizes?
# </details>
#
# <details><summary>Hint 2</summary>
#
# Cut the last axis into `(num_heads, d_head)`, giving `(batch, len, num_heads,
# d_head)`, then swap the `len` axis (1) with the `num_heads` axis (2). Use `.reshape`
# (or `.view`) for the first step and `.transpose` for the second.
# </details>


# %% nbgrader={"solution": true, "grade_id": "split_heads"}
def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Cut the features of every token into `num_heads` heads.

    x: (batch, len, d_model), with d_model divisible by num_heads.
    Returns (batch, num_heads, len, d_head), d_head = d_model // num_heads, where
    head i holds features i*d_head ... (i+1)*d_head - 1 of every token:
    result[b, i, t, j] == x[b, t, i * d_head + j]. Same dtype as x; x is not modified.
    """
    ### BEGIN SOLUTION
    batch, length, d_model = x.shape
    return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_split_heads", "points": 1}
check_split_heads(split_heads)
### BEGIN HIDDEN TESTS
check_split_heads(split_heads, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Your `split_heads` on the numbered example (compare with the picture above):

# %%
try:
    print(split_heads(x, num_heads=2))  # (batch=1, num_heads=2, len=3, d_head=2)
except NotImplementedError:
    print("split_heads is not written yet: this cell prints its heads once it is.")

# %% [markdown]
# ### Exercise 2: `merge_heads`
# *1 point · about 10 min · core*
#
# After attention, each head has produced one vector of width `d_head` per query:
# `(batch, num_heads, len, d_head)`. `merge_heads` concatenates the heads of each token
# back into one vector of width `num_heads * d_head = d_model`: the $\operatorname{Concat}$
# of the formula. It is the exact inverse of `split_heads`, and it has the mirror-image
# trap: a reshape alone runs without error and glues the wrong numbers together.
#
# One more thing can bite here. A transpose does not move any data, it only changes
# the order in which the axes are read, so its result is not laid out row by row in
# memory ("not contiguous"). `.view` refuses to regroup such a tensor; `.reshape` copies
# when it has to. Either use `.reshape`, or call `.contiguous()` before `.view`.
#
# <details><summary>Hint 1</summary>
#
# Undo `split_heads` in reverse order: first bring the tokens back to the outer
# position, then glue each token's heads into one vector.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Transpose axes 1 and 2 to get `(batch, len, num_heads, d_head)`, then reshape the
# last two axes into one of size `num_heads * d_head`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "merge_heads"}
def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """Concatenate the heads of every token: the inverse of `split_heads`.

    x: (batch, num_heads, len, d_head). Returns (batch, len, num_heads * d_head) with
    head 0's d_head features first, then head 1's, ...:
    result[b, t, i * d_head + j] == x[b, i, t, j]. Same dtype as x; x is not modified.
    """
    ### BEGIN SOLUTION
    batch, num_heads, length, d_head = x.shape
    return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_merge_heads", "points": 1}
check_merge_heads(merge_heads)
### BEGIN HIDDEN TESTS
check_merge_heads(merge_heads, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# The round trip gives back exactly what went in, for any `num_heads` that divides
# `d_model`:

# %%
try:
    tokens = torch.randn(
        2, 5, 12, generator=torch.Generator().manual_seed(0)
    )  # (batch, len, d_model)
    for h in (1, 2, 3, 4, 6, 12):
        same = torch.equal(merge_heads(split_heads(tokens, h)), tokens)
        print(f"num_heads={h:2}: split then merge gives back the input: {same}")
except NotImplementedError:
    print(
        "split_heads or merge_heads is not written yet: this cell checks that merge_heads undoes split_heads once both are."
    )

# %% [markdown]
# ## 4. Where attention is used, and what goes into `query`, `key`, `value`
#
# A layer `MultiHeadAttention` takes three inputs, `forward(query, key, value, mask)`.
# The queries come from `query`; the keys from `key`; the values from `value`. The
# encoder-decoder Transformer uses the layer in three places, which differ only in what
# is passed in. Two of them are **self-attention**, where all three inputs are the same
# sequence:
#
# * in the **encoder**, every source token attends to every source token
#   (`query = key = value = x`, with a padding mask);
# * in the **decoder**, every target token attends to the target tokens before it
#   (`query = key = value = y`, with a look-ahead mask, lesson 06).
#
# The third is **cross-attention** (the paper calls it encoder-decoder attention), the
# one place where the two halves of the model meet: the decoder, while it writes the
# translation, reads the encoder's output `memory` for the source sentence.

# %% [markdown]
# ### Question 2: the shape of cross-attention's weights
# *1 point · about 3 min · warm-up*
#
# A batch of 2 sentence pairs goes through a layer with 8 heads. The English sources
# are padded to 7 tokens, the Spanish targets the decoder is writing to 5. The
# decoder's cross-attention returns its per-head weights: what is their shape? Make
# `quiz_cross_attention_shape` return the letter of your answer.
#
# * (a) `(2, 8, 7, 5)`
# * (b) `(2, 8, 5, 7)`
# * (c) `(2, 8, 5, 5)`
# * (d) `(2, 5, 7)`
#
# A clue: the weights have one row per **query** and one column per **key**.


# %% nbgrader={"solution": true, "grade_id": "quiz_cross_attention_shape"}
def quiz_cross_attention_shape() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_cross_attention_shape", "points": 1}
check_quiz_cross_attention_shape(quiz_cross_attention_shape)
### BEGIN HIDDEN TESTS
check_quiz_cross_attention_shape(quiz_cross_attention_shape, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# In **cross-attention** the **queries come from the decoder**, and the **keys and
# values come from the encoder output**. Each target word being generated asks a
# question ("which source words matter for me?") and reads the answer out of the source
# sentence. One widely read illustrated guide says it the other way round (queries and
# keys from the encoder, values from the decoder); that cannot work, because the output
# has one row per query, and the decoder needs one row per *target* word. The shapes
# settle it: the weights are `(len_q, len_k)` = (target length, source length), so the
# two sentences need not have the same length (another claim you may have read), and
# here they usually do not.
#
# | where | `query` | `key` = `value` | mask | lengths |
# |---|---|---|---|---|
# | encoder self-attention | encoder tokens `x` | the same `x` | padding mask | `len_q = len_k` |
# | masked decoder self-attention | decoder tokens `y` | the same `y` | look-ahead & padding | `len_q = len_k` |
# | encoder-decoder (cross) attention | decoder tokens `y` | encoder output `memory` | padding mask of the source | `len_q` ≠ `len_k` in general |
#
# The mask follows lesson 04's convention: a bool tensor, **`True` = may attend**,
# broadcastable to `(batch, num_heads, len_q, len_k)`. A padding mask
# `(batch, 1, 1, len_k)` and a look-ahead mask `(len_q, len_k)` both broadcast; so does
# a per-head mask. A query row with no key it may attend to gets all-zero weights.
#
# ## 5. The layer
#
# Now the whole layer, as an `nn.Module`. The contract (the checks load weights by
# these names, and later lessons rely on them):
#
# * `__init__(d_model, num_heads, dropout=0.0)` creates four separate
#   `nn.Linear(d_model, d_model)` layers, with bias, named **`self.w_q`, `self.w_k`,
#   `self.w_v`, `self.w_o`**, and dropout with rate `dropout`. Its state dict therefore
#   has exactly the keys `w_q.weight, w_q.bias, ..., w_o.bias`. (PyTorch's own
#   `nn.MultiheadAttention` fuses the first three into one `(3·d_model, d_model)`
#   matrix, `in_proj_weight`, and the Annotated Transformer keeps its four layers in a
#   numbered list. Both compute the same thing; neither meets this contract.)
# * `forward(query, key, value, mask=None)` returns `(output, weights)`: `output`
#   `(batch, len_q, d_model)` and the **per-head** weights `(batch, num_heads, len_q, len_k)`
#   (not averaged over the heads, which is what `nn.MultiheadAttention` returns by
#   default).
# * Dropout, when training, applies to the attention weights before they multiply the
#   values (as in `nn.MultiheadAttention` and the paper's reference code). In `eval()`
#   mode it does nothing. The weights you return are best taken *before* dropout: they
#   are then the attention distribution itself. (Returning them after dropout, as
#   `nn.MultiheadAttention` does in training, is accepted too; in eval mode, where
#   weights are looked at, the two agree.)
#
# How you block masked keys is up to you: `-inf`, a large negative number such as
# `-1e9`, or `torch.finfo(dtype).min` all give the same weights on every row that has at
# least one allowed key. (A row with none comes out as zeros or as uniform weights; both
# are accepted, with a note.)
#
# ### Exercise 3: `MultiHeadAttention`
# *3 points · about 30 min · challenging*
#
# The steps: project `query`, `key`, `value`; split each into heads; attend; merge the
# heads; project with `w_o`. Scale by $\sqrt{d_\text{head}}$, not
# $\sqrt{d_\text{model}}$. You may use your `split_heads` and `merge_heads`, and the
# lesson-04 `scaled_dot_product_attention` imported in the setup cell.
#
# <details><summary>Hint 1</summary>
#
# `scaled_dot_product_attention(q, k, v, mask)` works on any number of leading dims,
# so it runs all heads of all sequences at once on `(batch, num_heads, len, d_head)`
# tensors, and returns `(output, weights)`. The mask broadcasts as it is.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Keys come from `key` through `w_k`, values from `value` through `w_v`: in
# cross-attention `key`/`value` are longer or shorter than `query`, which is how the
# checks notice a mix-up.
# </details>
#
# <details><summary>Hint 3</summary>
#
# Dropout: the lesson-04 function returns the heads' outputs *without* dropout. While
# training (`self.training`), recompute them from the dropped-out weights and `v`; an
# `nn.Dropout` module switches itself off in `eval()` mode, so it needs no `if`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "MultiHeadAttention"}
class MultiHeadAttention(nn.Module):
    """Multi-head attention (Vaswani et al. 2017, section 3.2.2).

    __init__(d_model, num_heads, dropout=0.0): four nn.Linear(d_model, d_model) with
    bias, named w_q, w_k, w_v, w_o (state-dict keys w_q.weight, w_q.bias, ...,
    w_o.bias; a fused q/k/v Linear does not meet this contract), and dropout.
    d_model must be divisible by num_heads; d_head = d_model // num_heads.

    forward(query, key, value, mask=None):
        query (batch, len_q, d_model): where the queries come from (the decoder, in
            cross-attention); key (batch, len_k, d_model) and value (batch, len_k,
            d_model): where keys and values come from (the encoder output, in
            cross-attention).
        mask: None, or bool broadcastable to (batch, num_heads, len_q, len_k),
            True = may attend. Any blocking value is fine (-inf, -1e9, finfo.min);
            a query row with no allowed key gets all-zero (or uniform) weights.
    Returns (output (batch, len_q, d_model), weights (batch, num_heads, len_q, len_k)),
    the weights per head, before dropout (after dropout is accepted too). Dropout
    (training only) applies to the weights that multiply the values.
    """

    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        ### BEGIN SOLUTION
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.num_heads = d_model, num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, query, key, value, mask=None):
        ### BEGIN SOLUTION
        q = split_heads(self.w_q(query), self.num_heads)  # (batch, num_heads, len_q, d_head)
        k = split_heads(self.w_k(key), self.num_heads)  # (batch, num_heads, len_k, d_head)
        v = split_heads(self.w_v(value), self.num_heads)  # (batch, num_heads, len_k, d_head)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)  # weights (b, h, len_q, len_k)
        if self.training and self.dropout.p > 0:
            heads = self.dropout(weights) @ v  # (batch, num_heads, len_q, d_head)
        return self.w_o(merge_heads(heads)), weights  # (batch, len_q, d_model)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_MultiHeadAttention", "points": 3}
check_MultiHeadAttention(MultiHeadAttention)
### BEGIN HIDDEN TESTS
check_MultiHeadAttention(MultiHeadAttention, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Your layer against PyTorch's
#
# The checks compared your layer with the course's reference. Here is a comparison
# you can read line by line, against something nobody in this course wrote:
# `nn.MultiheadAttention`, with the same weights copied in. Two translations are
# needed: its `in_proj_weight` is `w_q`, `w_k`, `w_v` stacked (the fused form), and its
# bool masks mean the opposite of ours (`True` = blocked, lesson 04), so we pass `~mask`.
# This is cross-attention: 3 decoder tokens look at 5 encoder tokens, with the last two
# encoder positions padding.

# %%
try:
    d_model, num_heads = 16, 4
    ours = MultiHeadAttention(d_model, num_heads)
    theirs = nn.MultiheadAttention(d_model, num_heads, batch_first=True)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        theirs.out_proj.weight.copy_(ours.w_o.weight)
        theirs.out_proj.bias.copy_(ours.w_o.bias)

    gen = torch.Generator().manual_seed(1)
    decoder_tokens = torch.randn(2, 3, d_model, generator=gen)  # (batch, len_q, d_model)
    memory = torch.randn(2, 5, d_model, generator=gen)  # (batch, len_k, d_model): encoder output
    source_is_real = torch.tensor([[True] * 5, [True, True, True, False, False]])  # (batch, len_k)
    mask = source_is_real[:, None, None, :]  # (batch, 1, 1, len_k), True = may attend

    with torch.no_grad():
        out, weights = ours(decoder_tokens, memory, memory, mask)
        pads = ~source_is_real  # nn.MultiheadAttention's key_padding_mask: True = a pad
        out_t, weights_t = theirs(
            decoder_tokens, memory, memory, key_padding_mask=pads, average_attn_weights=False
        )
    print("output shape :", tuple(out.shape), " weights shape:", tuple(weights.shape))
    print("same output as nn.MultiheadAttention: ", torch.allclose(out, out_t, atol=1e-6))
    print("same per-head weights:                ", torch.allclose(weights, weights_t, atol=1e-6))
    print("weights on the two padding positions: ", weights[1, :, :, 3:].abs().max().item())
except NotImplementedError:
    print(
        "MultiHeadAttention is not written yet: this cell compares it with nn.MultiheadAttention once it is."
    )

# %% [markdown]
# ## 6. What it costs: $h$ heads of $d_\text{model}/h$ = one head of $d_\text{model}$
#
# Does running 8 attentions cost 8 times as much as one? No, and the reason is the
# trick of section 2: the heads share the work of four $d_\text{model}\times d_\text{model}$
# matrices instead of each having their own.
#
# **Parameters.** $W^Q, W^K, W^V, W^O$ are each $d_\text{model}\times d_\text{model}$
# plus a bias of $d_\text{model}$, whatever $h$ is:
#
# $$\#\text{params} = 4\,d_\text{model}^2 + 4\,d_\text{model} \quad(= 1\,050\,624 \text{ for } d_\text{model} = 512).$$
#
# More heads means *thinner* heads, not more weights.
#
# **Arithmetic** (multiply-adds) for `len_q` queries and `len_k` keys:
#
# * projections: $(\text{len}_q + 2\,\text{len}_k)\,d_\text{model}^2$ for $Q, K, V$ and
#   $\text{len}_q\, d_\text{model}^2$ for $W^O$: independent of $h$;
# * scores $QK^\top$: each of $h$ heads does $\text{len}_q\cdot\text{len}_k$ dot products
#   of length $d_k = d_\text{model}/h$, so $h \cdot \text{len}_q \text{len}_k \cdot d_\text{model}/h
#   = \text{len}_q\,\text{len}_k\, d_\text{model}$: **the $h$ cancels**;
# * weights times values: the same, $\text{len}_q\,\text{len}_k\,d_\text{model}$.
#
# What does grow with $h$ is small: the number of softmax entries and the size of the
# weight tensor, $h\cdot\text{len}_q\cdot\text{len}_k$ numbers, which is $d_k = 64$ times
# less than the multiply-adds of the scores. (For very long sequences that weight
# tensor's *memory* becomes the bottleneck; that is what fused kernels such as
# FlashAttention avoid by never storing it.)
#
# Let us count rather than believe. PyTorch's `FlopCounterMode` counts the floating
# point operations of every matrix product that actually runs (2 per multiply-add). We
# use the reference layer here, so the numbers do not depend on your implementation:

# %%
from transformer_course.reference import multi_head_attention as ref

d_model, length = 512, 50
x = torch.randn(1, length, d_model, generator=torch.Generator().manual_seed(0))  # (1, len, d_model)
predicted = 2 * (4 * length * d_model**2 + 2 * length * length * d_model)  # self-attention
columns = ["num_heads", "d_head", "parameters", "matmul FLOPs", "predicted", "weights"]
print("".join(f"{name:>13}" for name in columns))
for h in (1, 2, 4, 8, 16):
    layer = ref.MultiHeadAttention(d_model, h)
    params = sum(p.numel() for p in layer.parameters())
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        _, w = layer(x, x, x)  # w (1, h, len, len)
    row = [h, d_model // h, params, counter.get_total_flops(), predicted, w.numel()]
    print("".join(f"{value:>13,}" for value in row))

# %% [markdown]
# Parameters and matrix-product FLOPs are identical in every row; only the last
# column, the number of attention weights, grows with $h$. This is the paper's remark
# that "due to the reduced dimension of each head, the total computational cost is
# similar to that of single-head attention with full dimensionality". What $h$ buys
# is not more computation but a different **shape** of it: $h$ independent softmaxes,
# each free to focus on something else.
#
# (The FLOPs on real hardware are not the whole story: many small heads use a GPU a
# little less efficiently than one big one. But the amount of work is the same.)

# %% [markdown]
# ## 7. Looking at the heads
#
# Attention weights can be drawn: one heatmap per head, query words down the side,
# key words along the top, row $i$ showing where query $i$ looks. First, honestly:
# this is what the heads of an **untrained** layer do, with random weights, on a
# sentence whose tokens are one-hot vectors (position and word):

# %%
english = BLACK_CAT.lower().split()  # the black cat drank the milk
spanish = "el gato negro bebió la leche".split()
vocab = {word: i for i, word in enumerate(dict.fromkeys(english + spanish))}
D_MODEL, NUM_HEADS, D_HEAD = 64, 4, 16
POSITION, WORD = 0, 16  # features 0-15: one-hot position; 16-31: one-hot word; the rest 0


def one_hot_tokens(words):
    """(1, len, d_model): position one-hot plus word one-hot for each word."""
    x = torch.zeros(1, len(words), D_MODEL)
    for pos, word in enumerate(words):
        x[0, pos, POSITION + pos] = 1.0
        x[0, pos, WORD + vocab[word]] = 1.0
    return x


x_en, x_es = one_hot_tokens(english), one_hot_tokens(spanish)  # (1, 6, d_model) each
torch.manual_seed(0)
untrained = ref.MultiHeadAttention(D_MODEL, NUM_HEADS)
with torch.no_grad():
    _, w = untrained(x_en, x_en, x_en)  # (1, num_heads, len, len)
attention_heads(w[0], english, english, title="untrained: random weights, random patterns")
plt.show()

# %% [markdown]
# Nothing to see: with random projections every score is small, and each row is close
# to uniform. Trained models do develop recognisable heads (heads that look at the
# previous token, heads that look at the first token, heads that track syntax or
# coreference), alongside many messier ones. Training a model is for later lessons;
# here we **set the weights by hand** to make four heads with four different jobs, and
# watch one layer run them all at once. Each head is a block of `D_HEAD` columns of
# $W^Q$ and $W^K$ (section 2). With a query $\beta e_a$ and a key $\beta e_b$ (one-hot
# vectors, scaled), the score is $\beta^2/\sqrt{d_k}$ if $a = b$ and 0 otherwise, so a
# head attends to the keys whose code matches its query's code:
#
# * **previous**: the query of position $p$ is the code of position $p-1$ (position 0,
#   which has no predecessor, asks for itself); keys are their own positions;
# * **same position**: query and key are both the position;
# * **first**: every query (through the bias) asks for position 0;
# * **words**: queries and keys are word codes; the query of word $w$ asks for a chosen
#   list of words, e.g. *drank* asks for *cat* and *milk*.

# %%
BETA = 4.0  # query/key scale: score = BETA**2 / sqrt(d_head) = 4 for a match


JOBS = ["previous", "same position", "first", "words"]


def show_heads(weights, query_words, key_words, title):
    """attention_heads, with each panel titled by its head's job."""
    titles = [f"head {i}: {job}" for i, job in enumerate(JOBS)]
    attention_heads(weights, query_words, key_words, title=title, head_titles=titles)
    plt.show()


def handcrafted_layer(heads):
    """A reference MultiHeadAttention whose head i does the job heads[i]."""
    w_q = torch.zeros(D_MODEL, D_MODEL)  # paper convention: q = x @ w_q + b_q
    w_k = torch.zeros(D_MODEL, D_MODEL)
    b_q = torch.zeros(D_MODEL)
    for i, job in enumerate(heads):
        cols = slice(i * D_HEAD, (i + 1) * D_HEAD)  # this head's block of columns
        q_block, k_block = w_q[:, cols], w_k[:, cols]  # views: writing them fills w_q, w_k
        if job in ("previous", "same position"):
            for pos in range(D_HEAD):
                wanted = max(pos - 1, 0) if job == "previous" else pos
                q_block[POSITION + pos, wanted] = BETA
                k_block[POSITION + pos, pos] = BETA
        elif job == "first":
            b_q[i * D_HEAD] = BETA  # every query asks for code 0 ...
            k_block[POSITION + 0, 0] = BETA  # ... which only position 0 offers
        else:  # a dict {query word: [key words it looks for]}
            for word, index in vocab.items():
                k_block[WORD + index, index] = BETA
                for target in job.get(word, [word]):
                    q_block[WORD + index, vocab[target]] = BETA
    layer = ref.MultiHeadAttention(D_MODEL, len(heads))
    with torch.no_grad():  # nn.Linear stores the transpose: weight (out, in)
        layer.w_q.weight.copy_(w_q.T)
        layer.w_q.bias.copy_(b_q)
        layer.w_k.weight.copy_(w_k.T)
        layer.w_k.bias.zero_()
    return layer


grammar = {"black": ["cat"], "cat": ["drank"], "drank": ["cat", "milk"], "milk": ["drank"]}
encoder_layer = handcrafted_layer(["previous", "same position", "first", grammar])

# %% [markdown]
# **Predict, then check.** Before you run the next cell, sketch the four 6 × 6 maps of
# this encoder layer on paper (rows: the query words; columns: the key words). Where
# is the weight of the row *black* in the *previous* head? Which column lights up in
# the *first* head? In the *words* head, how does *drank* share its weight, and what
# do the two *the*s do, given that this head sees only which word a token is?

# %%
with torch.no_grad():
    _, w = encoder_layer(x_en, x_en, x_en)  # (1, num_heads, len, len)
show_heads(w[0], english, english, "encoder self-attention, hand-made heads")

# %% [markdown]
# One layer, one call, four different patterns: the lower diagonal of *previous*, the
# diagonal of *same position*, the first column of *first*, and the *words* head where
# **drank** splits its weight between **cat** and **milk**. Two things to notice in
# that last head. First, it is exactly the averaging problem of section 1, confined to
# one head: another head is free to do something else with *drank*. Second, both
# **the**s attend equally to both **the**s: a head that looks only at word identity
# cannot tell them apart. Positions (lesson 03) are what lets the other heads do so.
#
# **Masked decoder self-attention** is the same computation with a look-ahead mask: no
# query may look at a later key. Same kinds of heads, on the Spanish sentence.
#
# **Predict, then check.** Which cells of every map must now be exactly zero? In the
# *words* head, **gato** looks for its verb **bebió**, which comes *later* in the
# sentence: where will its weight go instead?

# %%
look_ahead = torch.tril(torch.ones(len(spanish), len(spanish), dtype=torch.bool))  # (len_q, len_k)
decoder_grammar = {"gato": ["bebió"], "negro": ["gato"], "bebió": ["gato", "leche"]}
decoder_layer = handcrafted_layer(["previous", "same position", "first", decoder_grammar])
with torch.no_grad():
    _, w = decoder_layer(x_es, x_es, x_es, look_ahead)  # (1, num_heads, len, len)
show_heads(w[0], spanish, spanish, "masked decoder self-attention, same kinds of heads")

# %% [markdown]
# Everything above the diagonal is now zero. The *words* head shows what the mask
# costs: **gato** looks for its verb **bebió**, which comes later and is hidden, so
# with nothing it wants in sight its weight spreads evenly over what it may see (*el*,
# *gato*); **bebió** still finds **gato**, but not **leche**, which is in its future.
# While generating, the decoder cannot look ahead, and the mask makes training obey
# the same rule.
#
# **Cross-attention**: the Spanish decoder asks, the English encoder output answers.
# `query` is the Spanish sentence, `key` and `value` the English one, so the weights
# are `(len_q, len_k)` = (Spanish words, English words). The *words* head is now a
# small dictionary:

# %%
dictionary = {
    "el": ["the"],
    "gato": ["cat"],
    "negro": ["black"],
    "bebió": ["drank"],
    "la": ["the"],
    "leche": ["milk"],
}
cross_layer = handcrafted_layer(["previous", "same position", "first", dictionary])
with torch.no_grad():
    _, w = cross_layer(x_es, x_en, x_en)  # query: decoder; key = value: encoder output
show_heads(w[0], spanish, english, "cross-attention: Spanish queries, English keys")

# %% [markdown]
# Rows are Spanish words, columns English words. The *same position* head draws a
# diagonal: a word-by-word alignment, which is right for *el → the* and wrong for
# **gato** and **negro**, because Spanish puts the adjective after the noun. The
# *words* head follows content, not position: **gato** finds **cat** at position 2 and
# **negro** finds **black** at position 1, crossing the diagonal. (For *"The ball is
# blue" → "La bola es azul"* both heads would agree: that pair happens to align word for
# word.) Again, these weights were written by hand to show what heads *can* compute; a
# trained translation model learns alignments like the *words* head's from data, and
# its heads are rarely this clean.
#
# ### Explore: one head at a time
#
# Pick one of the three attentions and one head to see its weights large, with the
# number in every cell. Try the *first* head in the decoder (does the mask change it?),
# and the *words* head in all three.

# %%
ATTENTIONS = {  # name: (layer, query input, key = value input, mask, query words, key words)
    "encoder self-attention": (encoder_layer, x_en, x_en, None, english, english),
    "masked decoder self-attention": (decoder_layer, x_es, x_es, look_ahead, spanish, spanish),
    "cross-attention": (cross_layer, x_es, x_en, None, spanish, english),
}


def draw_head(attention, head):
    """One head of one of the three hand-made layers, as an annotated heatmap."""
    layer, queries, keys, mask, query_words, key_words = ATTENTIONS[attention]
    with torch.no_grad():
        _, weights = layer(queries, keys, keys, mask)  # (1, num_heads, len_q, len_k)
    index = JOBS.index(head)
    attention_heatmap(
        weights[0, index], query_words, key_words, title=f"{attention}, head {index}: {head}"
    )


interactive_or_static(
    draw_head,
    {"attention": "cross-attention", "head": "words"},
    attention=list(ATTENTIONS),
    head=JOBS,
)

# %% [markdown]
# ## Common misconceptions
#
# * *"Each head looks at a part of the sentence."* Each head sees every token. What
#   it gets is its own **projection** of every token's full vector, of width $d_k$.
# * *"The heads split the input embedding into chunks."* The split happens **after**
#   the projections: head $i$'s queries are a learned function of all $d_\text{model}$
#   input features.
# * *"More heads, more parameters and more compute."* Same parameters
#   ($4d_\text{model}^2 + 4d_\text{model}$) and the same matrix-product FLOPs for any $h$
#   that divides $d_\text{model}$ (section 6).
# * *"$W^Q \in \mathbb{R}^{d_k\times d_\text{model}}$ with $d_k > d_\text{model}$."* Each
#   head's $W_i^Q$ maps $d_\text{model} \to d_k$, and $d_k = d_\text{model}/h$ is smaller
#   (64 vs 512).
# * *"$d_k$ is the number of words in the sentence."* It is the width of one head's
#   query and key vectors, $d_\text{model}/h$, whatever the sentence length.
# * *"In the decoder's second attention, queries and keys come from the encoder."* The
#   queries come from the decoder; the keys **and values** from the encoder output.
# * *"Encoder and decoder inputs must have the same length."* Cross-attention weights
#   are `(len_q, len_k)`; each side is padded within its own batch.
# * *"A reshape can split into heads."* Only together with a transpose; a bare reshape
#   runs without error and mixes tokens into heads.
# * *"Per-head attention maps explain what the model does."* They are a useful view,
#   not an explanation: the values and $W^O$ decide what is done with the weights.
#
# ## Summary
#
# * Multi-head attention runs $h$ attentions in parallel on different learned
#   projections, $\text{head}_i = \operatorname{Attention}(QW_i^Q, KW_i^K, VW_i^V)$,
#   concatenates them and projects with $W^O$. Paper: $d_\text{model} = 512$, $h = 8$,
#   $d_k = d_v = 64$.
# * One `nn.Linear(d_model, d_model)` computes the projections of all heads at once;
#   `split_heads` (reshape to `(batch, len, num_heads, d_head)`, then transpose) and
#   `merge_heads` (transpose back, then reshape) move between the two layouts.
# * Parameters and FLOPs do not depend on $h$; what $h$ changes is how many separate
#   softmaxes, each with its own budget of weight, the layer has.
# * Attention appears three times in the Transformer: encoder self-attention, masked
#   decoder self-attention, and cross-attention with queries from the decoder and keys
#   and values from the encoder output.
# * Different heads can attend to different things (previous word, same position,
#   related words, a translation); plotting the heads side by side shows it.
#
# ## Further reading
#
# * Vaswani et al., ["Attention Is All You Need"](https://arxiv.org/abs/1706.03762)
#   (2017), section 3.2.2 (multi-head attention, with the sizes 512, 8 and 64) and
#   section 3.2.3 (the three places attention is used). One page; read it now that
#   every symbol in it has a tensor in your code.
# * Rush et al., ["The Annotated Transformer"](https://nlp.seas.harvard.edu/annotated-transformer/)
#   (Harvard NLP): the paper's text with a complete PyTorch implementation woven in.
#   Its `MultiHeadedAttention` is this lesson's layer in thirty lines; compare its
#   choices with ours (a list of four layers, `-1e9` for masked keys, weights kept
#   after dropout).
# * Jay Alammar, ["The Illustrated Transformer"](https://jalammar.github.io/illustrated-transformer/):
#   the clearest pictures of how the heads are split, run side by side and glued back,
#   and of two heads attending to different words of one sentence.
# * Zhang et al., [Dive into Deep Learning](https://d2l.ai), section "Multi-Head
#   Attention": the same layer written with the trick of folding the heads into the
#   batch axis (`transpose_qkv`), with exercises on its cost.
# * PyTorch's [`nn.MultiheadAttention`](https://pytorch.org/docs/stable/generated/torch.nn.MultiheadAttention.html)
#   documentation: the fused `in_proj_weight`, `average_attn_weights`, and masks where
#   `True` means *blocked*; what to translate before using it in place of your layer.
# * Clark et al., ["What Does BERT Look At?"](https://arxiv.org/abs/1906.04341) (2019):
#   what the heads of a *trained* model do: heads for the previous token, for
#   separators, for syntax and coreference, like the hand-made heads of section 7 but
#   learned.
#
# **Next:** lesson 06 builds the masks (padding and look-ahead) that every one of these
# attentions needs.
