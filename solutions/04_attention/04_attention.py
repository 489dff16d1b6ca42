# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 04 · Scaled dot-product attention
#
# **Time:** about 2 hours on the core path (66 minutes for the three exercises and
# three questions); the deeper dives add about 30 minutes.
#
# The lesson the whole course turns on. *Attention* is the one operation that lets a
# word's vector take in information from the other words of its sentence; every other
# part of a Transformer works on one position at a time.
#
# **By the end you can** say why attention replaced recurrent networks; compute one row
# of attention by hand; write a softmax that never overflows, and say why the scores are
# divided by $\sqrt{d_k}$ (and what $d_k$ is); mask keys the right way round, including a
# query that may attend to nothing; write `scaled_dot_product_attention` for any number
# of batch dims; and say where queries, keys and values come from in cross-attention.
#
# | section | what happens | graded |
# |---|---|---|
# | 1–3 | why attention; queries, keys, values; the attention matrix | |
# | 4 | softmax without overflow | Exercise 1 `softmax` |
# | 5 | "The black cat drank the milk", one query at a time | Exercise 2 `attention_row` |
# | 6 | why divide by $\sqrt{d_k}$ | Question 1 |
# | 7 | masks | Question 2 |
# | 8 | the whole operation in PyTorch | Exercise 3 `scaled_dot_product_attention` |
# | 9 | cross-attention by hand: "The ball is blue" → "La bola es azul" | Question 3 |
# | 10–12 | **deeper dives**: self-attention by hand, PyTorch's other mask convention, "fast weights" | |
#
# **Core path and deeper dives.** Sections and boxes marked **Deeper dive** add
# background; skip them on a first pass, no exercise depends on them.
#
# **How to work:** replace each `raise NotImplementedError()` under `# YOUR CODE HERE`,
# run the cell, then the test cell under it: it prints `✓ ...` or explains what is
# wrong. Hints open with a click, from a nudge to nearly the answer. Solutions are in
# `solutions/04_attention/`.
#
# **Symbols** (the course glossary): `len_q` queries, `len_k` keys (= values), `d_k` the
# width of each query and key vector, `d_v` the width of each value vector, `d_model` the
# width of the token vectors between layers.

# %% nbgrader={"locked": true, "grade_id": "setup"}
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checks.attention import (
    check_attention_row,
    check_quiz_cross_attention_roles,
    check_quiz_score_scale,
    check_quiz_fully_masked,
    check_scaled_dot_product_attention,
    check_softmax,
)
from transformer_course.data import BALL_IS_BLUE, BLACK_CAT
from transformer_course.plotting import (
    attention_heatmap,
    heatmap,
    interactive_or_static,
    rnn_vs_attention_paths,
)
from transformer_course.reference import attention as ref

torch.set_printoptions(precision=3, sci_mode=False)
np.set_printoptions(precision=3, suppress=True)

# %% [markdown]
# ## 1. Why attention?
#
# Before Transformers, sentences were read by **recurrent networks** (RNNs, LSTMs,
# GRUs). An RNN keeps one state vector $h_t$ of fixed size and updates it word by word,
# $h_t = f(h_{t-1}, x_t)$. That costs three things:
#
# * **long paths**: for word 6 to influence word 1 (or for the gradient of a loss at
#   word 6 to reach word 1), the signal passes through every step in between, and each
#   step can shrink or blow it up, so long-range relations are hard to learn;
# * **no parallelism**: $h_6$ needs $h_5$, which needs $h_4$, ...: $n$ words take $n$
#   steps one after the other, however many processors you have;
# * **a bottleneck**: in the classic encoder-decoder the whole source sentence is
#   squeezed into one final state of fixed size, whether it has 3 words or 60.
#
# Attention removes all three. Every position looks at **every** other position
# **directly**, with a weight that says how relevant it is, and all positions do it at
# once, as a couple of matrix products. The price: $n^2$ pairs, so the cost grows with
# the square of the sentence length.

# %%
fig = rnn_vs_attention_paths(BLACK_CAT.split())
plt.show()

# %% [markdown]
# ## 2. Queries, keys and values
#
# Think of searching for a video. You type a **query**; the search engine compares it
# with the **key** of every video (its title and description) and hands you back the
# matching **values** (the videos). Attention does the same with vectors. Each
# position emits
#
# * a **query** $q_i$: *what am I looking for?*
# * a **key** $k_j$: *what do I offer, as an answer to a query?*
# * a **value** $v_j$: *what do I hand over if I am chosen?*
#
# The match between query $i$ and key $j$ is the dot product $q_i \cdot k_j$. The three
# roles come from three learned linear maps of the same token vectors $X$, shape
# `(len, d_model)`:
#
# $$Q = X W^Q,\qquad K = X W^K,\qquad V = X W^V,\qquad
# W^Q, W^K \in \mathbb{R}^{d_\text{model}\times d_k},\; W^V \in \mathbb{R}^{d_\text{model}\times d_v}.$$
#
# In the paper $d_\text{model} = 512$ and each head uses $d_k = d_v = d_\text{model}/h = 64$:
# the projections map *down* to a smaller width. (One popular explanation writes
# $d_k > d_\text{model}$; it is the other way round.)
#
# <details><summary><b>Deeper dive: where the search analogy breaks</b> (click)</summary>
#
# * A search engine returns the **best** matches. Attention returns a **blend**: a
#   weighted average of *all* the values, with weights that add up to 1. It is a soft,
#   differentiable lookup, which is what lets gradient descent learn it.
# * There is no separate database. In **self-attention** the queries, keys and values
#   all come from the **same** sentence: each word is at the same time a searcher, a
#   title and a video.
# * Nobody types the query. Queries, keys and values are computed with matrices the
#   network **learns**, so what "relevant" means is learned too.
#
# </details>
#
# ### Deeper dive: why three projections, not one?
#
# If we used $X$ itself for queries and keys, the score of $i$ looking at $j$ would be
# $x_i \cdot x_j$, the same as $j$ looking at $i$: the scores would be **symmetric**,
# and every word would match itself best. But relevance is not symmetric: an adjective
# needs its noun more than the noun needs the adjective. Separate $W^Q$ and $W^K$ let a
# word *ask* for something other than what it *offers*; a separate $W^V$ lets it *hand
# over* something else again.

# %%
rng = np.random.default_rng(0)
X = rng.normal(size=(4, 6))  # (len, d_model): 4 tokens, d_model = 6
W_q, W_k = rng.normal(size=(6, 3)), rng.normal(size=(6, 3))  # (d_model, d_k), d_k = 3
same = X @ X.T  # (len, len): queries = keys = X
projected = (X @ W_q) @ (X @ W_k).T  # (len, len): Q K^T
print("X X^T symmetric?           ", np.allclose(same, same.T))
print("(X W_q)(X W_k)^T symmetric?", np.allclose(projected, projected.T))

# %% [markdown]
# ## 3. The attention matrix, row by row
#
# Here is the whole operation (Vaswani et al., 2017, equation 1):
#
# $$\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V
# \qquad Q: (\text{len}_q, d_k),\; K: (\text{len}_k, d_k),\; V: (\text{len}_k, d_v).$$
#
# Read it from the inside out.
#
# 1. **Scores.** $S = Q K^\top$, shape `(len_q, len_k)`. Entry $(i, j)$ is
#    $q_i \cdot k_j$: **row $i$ belongs to query $i$, column $j$ to key $j$.**
# 2. **Scale.** Divide by $\sqrt{d_k}$ (section 6 shows why).
# 3. **Softmax, row by row.** Each row becomes weights $w_{ij} \ge 0$ with
#    $\sum_j w_{ij} = 1$: the **attention matrix** $W$.
# 4. **Mix the values.** Output row $i$ is $\sum_j w_{ij}\, v_j$, a weighted average of
#    the value rows with query $i$'s weights. Shape `(len_q, d_v)`.
#
# `len_q` and `len_k` need not be equal. In *self-attention* queries and keys come from
# the same sentence, so they are; in *cross-attention* (section 9 below, then lesson 05
# §4 and lesson 06 §5) the words of the translation ask the words of the source, e.g.
# the 3 words of "I am fine" asking the 4 words of "Hi how are you": a $3\times 4$
# matrix.

# %% [markdown]
# ## 4. Softmax without overflow
#
# For a vector of scores $s = (s_1, \dots, s_n)$,
#
# $$\operatorname{softmax}(s)_j = \frac{e^{s_j}}{\sum_{j'} e^{s_{j'}}}.$$
#
# Every output is positive, they add up to 1, larger scores get larger weights, and only
# **differences** between scores matter: adding the same $c$ to every $s_j$ multiplies
# numerator and denominator by $e^{c}$, which cancels,
# $\operatorname{softmax}(s - c) = \operatorname{softmax}(s)$.
#
# That identity makes softmax safe to compute. `np.exp(710.0)` is already `inf` in
# float64 (in float32 the limit is about 88), and `inf / inf` is `NaN`; scores of a few
# hundred are not exotic. Subtract the **maximum of each slice** first: the largest
# exponent becomes $e^0 = 1$, nothing overflows, and the result does not change.
#
# Masks (section 7) write $-\infty$ into scores, so two more cases matter:
#
# * an entry equal to $-\infty$ gets weight exactly 0, since $e^{-\infty} = 0$;
# * a slice where **every** entry is $-\infty$ has nothing to give weight to: the
#   formula gives $0/0$. **All zeros** ("nothing to attend to, take in nothing") is what
#   the reference returns, as `F.scaled_dot_product_attention` returns for a fully masked
#   query (PyTorch 2.5 and later). **Uniform weights** $1/n$ are the limit of a softmax
#   of $n$ equal entries as they go to $-\infty$. The checks accept both; `NaN`, which
#   spreads into everything computed from it, never. (The max trick needs care here:
#   $-\infty - (-\infty)$ is `NaN`.)
#
# ### Exercise 1: `softmax`
# *2 points · about 15 min · core*
#
# Write `softmax(x, axis=-1)` for a numpy array of any shape (a 1-D vector of scores
# too), normalising along `axis`: stable for large entries, $-\infty$ entries get weight
# 0, an all $-\infty$ slice gives zeros (or uniform weights), never `NaN`. Return a new
# array of the same shape; leave `x` unchanged.
#
# <details><summary>Hint 1</summary>
#
# Three steps for every slice along `axis`: shift, exponentiate, normalise. The numpy
# reductions `np.max` and `np.sum` take an `axis`, and can keep the reduced axis with
# size 1 so that the result broadcasts back against `x`.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Take the maximum of each slice with `keepdims=True` and subtract it from `x`; apply
# `np.exp`; divide by the sum of each slice, again with `keepdims=True`. Without
# `keepdims`, numpy lines the sums up with the wrong axis (or refuses to).
# </details>
#
# <details><summary>Hint 3: the all −∞ slice</summary>
#
# Its maximum is $-\infty$: replace a maximum that is not finite by 0 before subtracting
# (`np.isfinite` tells which). Then all the exponentials of that slice are 0, and so is
# their sum: divide only where the sum is positive and leave zeros elsewhere
# (`np.where`, or the `where=` and `out=` arguments of `np.divide`, do that without a
# warning).
# </details>


# %% nbgrader={"solution": true, "grade_id": "softmax"}
def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax of `x` along `axis`.

    x: a float numpy array of any shape; it is not modified.
    Returns a new array of the same shape whose slices along `axis` are non-negative and
    add up to 1. Entries equal to -inf get weight 0. A slice in which every entry is
    -inf comes back as all zeros (uniform weights, 1/n each, are accepted too; NaN is
    not). Any float dtype is accepted for the result; this one keeps the input's.
    """
    ### BEGIN SOLUTION
    peak = np.max(x, axis=axis, keepdims=True)  # (..., 1, ...): one max per slice
    peak = np.where(np.isfinite(peak), peak, 0.0)  # an all -inf slice: subtract nothing
    exps = np.exp(x - peak)  # largest entry of each slice is exp(0) = 1
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_softmax", "points": 2}
check_softmax(softmax)
### BEGIN HIDDEN TESTS
check_softmax(softmax, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. One query at a time: "The black cat drank the milk"
#
# ### Why does a dot product measure relevance?
#
# A dot product multiplies two vectors feature by feature and adds up. A feature where
# both numbers have the **same sign** adds to the sum; opposite signs subtract. So
# vectors that agree on many features get a large score. Here is "The black cat drank
# the milk" with hand-made vectors: queries and keys have 3 features (*drinkable*,
# *animal*, *colour*), values have 4 (*liquid*, *animal*, *dark*, *action*). The course's
# checks use the same numbers.

# %% export=true
# "The black cat drank the milk" with hand-made vectors (a trained model learns its own).
CAT_WORDS = ["the", "black", "cat", "drank", "the", "milk"]  # BLACK_CAT, word by word
CAT_QUERIES = np.array(  # (len_q, d_k) = (6, 3): drinkable, animal, colour
    [
        [0.0, 1.0, 0.0],  # the:   looks for the animal it introduces
        [0.0, 2.0, 0.0],  # black: looks for the thing it colours
        [1.0, 0.0, 1.0],  # cat:   looks for what it drinks and its colour
        [2.0, 1.0, -1.0],  # drank: something drinkable, an animal, not a colour
        [1.0, 0.0, 0.0],  # the:   looks for the drinkable thing it introduces
        [0.0, 1.0, 0.0],  # milk:  looks for who drank it
    ]
)
CAT_KEYS = np.array(  # (len_k, d_k) = (6, 3): what each word offers
    [
        [0.0, 0.0, 0.0],  # the
        [-1.0, 0.0, 2.0],  # black
        [0.0, 2.0, 0.5],  # cat
        [0.5, 0.5, 0.0],  # drank
        [0.0, 0.0, 0.0],  # the
        [2.0, 0.0, 0.5],  # milk
    ]
)
CAT_VALUES = np.array(  # (len_k, d_v) = (6, 4): liquid, animal, dark, action
    [
        [0.0, 0.0, 0.0, 0.0],  # the
        [0.0, 0.0, 1.0, 0.0],  # black
        [0.0, 1.0, 0.0, 0.0],  # cat
        [0.0, 0.0, 0.0, 1.0],  # drank
        [0.0, 0.0, 0.0, 0.0],  # the
        [1.0, 0.0, 0.0, 0.0],  # milk
    ]
)

# %%
query_drank = CAT_QUERIES[3]  # (d_k,): what "drank" looks for
for word, key in zip(CAT_WORDS, CAT_KEYS, strict=True):
    products = query_drank * key + 0.0  # feature by feature (+ 0.0 turns -0.0 into 0.0)
    terms = " + ".join(f"{p:5.1f}" for p in products)
    print(f"drank · {word:<5} = {terms} = {products.sum():5.1f}")

# %% [markdown]
# "milk" agrees with the query where it matters (both positive on *drinkable*) and wins;
# "cat" scores from *animal*; "black" disagrees on *drinkable* and *colour* and ends up
# strongly negative. In a real model nobody chooses these features: training adjusts
# the embeddings and $W^Q$, $W^K$ until words that should attend to each other produce
# aligned queries and keys.
#
# > **Scaling and softmax are not optional.** One popular explanation leaves them out as
# > "just changing the numbers". Used as weights, the raw scores above (−4, 1.5, 3.5, ...)
# > would be negative, would not add up to 1, and would give an output whose size grows
# > with the length of the sentence. The softmax turns scores into a *distribution* over
# > the keys; the scaling (section 6) keeps that distribution from collapsing onto one key.

# %% [markdown]
# Your softmax on the scores of "drank", and on the same scores times 100 (a naive `exp`
# would overflow there):

# %%
try:
    scores_drank = CAT_KEYS @ query_drank  # (len_k,) = (6,)
    for label, s in [("scores", scores_drank), ("scores x 100", 100 * scores_drank)]:
        pairs = ", ".join(f"{w} {p:.3f}" for w, p in zip(CAT_WORDS, softmax(s), strict=True))
        print(f"{label:>12}: {pairs}")
except NotImplementedError:
    print("softmax is not written yet: this cell prints its weights once it is.")

# %% [markdown]
# Multiplying the scores by 100 put (almost) all the weight on "milk": the bigger the
# differences between scores, the closer softmax gets to a hard `argmax`. Section 6 is
# about that.

# %% [markdown]
# ### One row of the attention matrix
#
# Before the whole matrix, one row of it. For a single query $q$ (one word) and the keys
# and values of the sentence:
#
# $$s_j = \frac{k_j \cdot q}{\sqrt{d_k}},\qquad w = \operatorname{softmax}(s),\qquad
# \text{output} = \sum_j w_j\, v_j .$$
#
# The output is a vector of width $d_v$: what the word takes in from the sentence.
#
# ### Exercise 2: `attention_row`
# *2 points · about 15 min · warm-up*
#
# Write `attention_row(query, keys, values)` for one query, in numpy. It returns the
# pair `(weights, output)`: the weights of the query over the keys (shape `(len_k,)`)
# and the output (shape `(d_v,)`). Use your `softmax` from Exercise 1. The checks run it
# on "drank" and "cat" with the vectors of section 3, then on other inputs.
#
# <details><summary>Hint 1</summary>
#
# Follow the formula above: one score per key, scaled, turned into weights, then a
# weighted sum of the value rows.
# </details>
#
# <details><summary>Hint 2</summary>
#
# A matrix-vector product of the keys with the query gives all the scores at once,
# shape `(len_k,)`. $d_k$ is the length of the query vector, not the number of keys
# (one popular explanation calls it "the number of words": it is not).
# </details>
#
# <details><summary>Hint 3</summary>
#
# The weighted sum of the value rows is a vector-matrix product of the weights with the
# values: `(len_k,)` times `(len_k, d_v)` gives `(d_v,)`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "attention_row"}
def attention_row(
    query: np.ndarray, keys: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Attention of one query over a sentence, in numpy.

    query:  (d_k,)        what one word looks for
    keys:   (len_k, d_k)  what each word offers
    values: (len_k, d_v)  what each word hands over

    Returns (weights, output):
    weights: (len_k,)  softmax(keys @ query / sqrt(d_k)): non-negative, adding up to 1
    output:  (d_v,)    sum over j of weights[j] * values[j]
    The inputs are not modified. Any float dtype is accepted for the results.
    """
    ### BEGIN SOLUTION
    d_k = query.shape[-1]
    scores = keys @ query / math.sqrt(d_k)  # (len_k,): one score per key
    weights = softmax(scores)  # (len_k,): adds up to 1
    output = weights @ values  # (d_v,): weighted sum of the value rows
    return weights, output
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_attention_row", "points": 2}
check_attention_row(attention_row)
### BEGIN HIDDEN TESTS
check_attention_row(attention_row, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Every word of the sentence, one row at a time, with your function. Stacked, the rows
# are the attention matrix; the output of "drank" says what it took in (value features
# *liquid*, *animal*, *dark*, *action*).

# %%
try:
    rows = [attention_row(q_word, CAT_KEYS, CAT_VALUES) for q_word in CAT_QUERIES]
    weights_cat = np.stack([w for w, _ in rows])  # (len_q, len_k) = (6, 6)
    outputs_cat = np.stack([o for _, o in rows])  # (len_q, d_v) = (6, 4)
    print("output of 'drank' (liquid, animal, dark, action):", outputs_cat[3].round(2))
    matrix_form = ref.softmax(CAT_QUERIES @ CAT_KEYS.T / math.sqrt(3)) @ CAT_VALUES  # (6, 4)
    print("row by row == softmax(Q K^T / sqrt(d_k)) V:", np.allclose(outputs_cat, matrix_form))
    attention_heatmap(weights_cat, CAT_WORDS, CAT_WORDS, title="The black cat drank the milk")
    plt.show()
except NotImplementedError:
    print("attention_row is not written yet: this cell draws its weights once it is.")

# %% [markdown]
# "drank" takes about half of its input from "milk" and a sixth each from "cat" and
# itself, so its output is mostly *liquid*, with some *animal* and *action*: the verb's
# vector now carries what was drunk and who drank. "black" looks mostly at "cat" (0.64),
# but "cat" looks mostly at "milk": the matrix is not symmetric. The matrix form in the
# cell above is the same computation for all queries at once, which is what Exercise 3
# builds in PyTorch.

# %% [markdown]
# ## 6. Why divide by √d_k?
#
# Suppose the entries of a query and a key are independent, with mean 0 and variance 1
# (roughly what a freshly initialised network produces). Their dot product
#
# $$q \cdot k = \sum_{m=1}^{d_k} q_m k_m$$
#
# is a sum of $d_k$ independent terms of variance 1, so it has **variance $d_k$**: its
# typical size grows like $\sqrt{d_k}$. With $d_k = 64$ the scores are typically around
# ±8, and differences of that size push the softmax towards a one-hot vector. A
# saturated softmax stops learning: its gradient
# $\partial w_i / \partial s_j = w_i(\delta_{ij} - w_j)$ is nearly zero when one weight
# is close to 1 and the rest close to 0. Dividing by $\sqrt{d_k}$ brings the variance
# back to 1 whatever the width.
#
# > **What is $d_k$?** The width of each query and key vector, `q.shape[-1]`: 64 per head
# > in the paper. It is **not** the number of words in the sentence (one popular
# > explanation says so). The scale does not change when the sentence gets longer.
#
# **Predict, then check.** As $d_k$ grows from 1 to 512, with random unit-variance
# queries and keys and 10 keys per query:
#
# 1. how does the spread (standard deviation) of the raw scores $q \cdot k$ grow?
# 2. without scaling, what happens to the largest weight in a row?
# 3. and with scaling?
#
# Write your guesses below (not graded), then run the figure. It uses the reference
# softmax, so it is right even while yours is being fixed.

# %%
my_predictions = {"spread of q·k": "?", "largest weight, raw": "?", "largest weight, scaled": "?"}

# %%
rng = np.random.default_rng(1)
widths = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
len_k = 10
std_raw, std_scaled, top_raw, top_scaled, grad_raw, grad_scaled = [], [], [], [], [], []
for d_k in widths:
    q = rng.normal(size=(500, 1, d_k))  # (samples, len_q = 1, d_k)
    k = rng.normal(size=(500, len_k, d_k))  # (samples, len_k, d_k)
    s = (q @ k.transpose(0, 2, 1))[:, 0, :]  # (samples, len_k): raw scores
    for scores, stds, tops, grads in [
        (s, std_raw, top_raw, grad_raw),
        (s / math.sqrt(d_k), std_scaled, top_scaled, grad_scaled),
    ]:
        w = ref.softmax(scores, axis=-1)  # (samples, len_k)
        stds.append(scores.std())
        tops.append(w.max(axis=-1).mean())
        # size of the softmax Jacobian dw_i/ds_j = w_i (delta_ij - w_j), averaged
        jac = w[:, :, None] * (np.eye(len_k) - w[:, None, :])  # (samples, len_k, len_k)
        grads.append(np.abs(jac).sum(axis=(1, 2)).mean())

fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
axes[0].loglog(widths, std_raw, "o-", label="q·k")
axes[0].loglog(widths, std_scaled, "s-", label="q·k / √d_k")
axes[0].set(title="spread of the scores", xlabel="d_k", ylabel="standard deviation")
axes[1].semilogx(widths, top_raw, "o-", label="q·k")
axes[1].semilogx(widths, top_scaled, "s-", label="q·k / √d_k")
axes[1].axhline(1 / len_k, color="grey", ls=":", label="uniform (1/len_k)")
axes[1].set(title=f"largest weight in a row (len_k={len_k})", xlabel="d_k", ylim=(0, 1.05))
axes[2].semilogx(widths, grad_raw, "o-", label="q·k")
axes[2].semilogx(widths, grad_scaled, "s-", label="q·k / √d_k")
axes[2].set(title="size of the softmax gradient", xlabel="d_k", ylabel="Σ |∂w_i/∂s_j|")
for ax in axes:
    ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
print("your predictions:", my_predictions)

# %% [markdown]
# Left: the raw scores spread like $\sqrt{d_k}$ (a straight line of slope ½ on log-log
# axes); the scaled ones stay at 1. Middle: without scaling, the largest weight creeps
# towards 1 as $d_k$ grows (the softmax becomes an `argmax`); with scaling it stays put.
# Right: the gradient through the softmax shrinks as it saturates; scaling keeps it.
#
# **Play with it.** One query against 8 keys, with random unit-variance entries of
# width `d_k`. The sliders set `d_k` and a **temperature** $T$ that divides the scores
# before the softmax, $\operatorname{softmax}(s / T)$: a small $T$ sharpens the weights
# towards the top key, a large one flattens them. Dividing by $\sqrt{d_k}$ is a
# temperature chosen to cancel the growth of the scores.


# %%
def draw_softmax(d_k: int = 256, temperature: float = 1.0) -> None:
    """Weights of one random query over 8 random keys, raw and scaled, at a temperature."""
    gen = np.random.default_rng(3)
    q, k = gen.normal(size=d_k), gen.normal(size=(8, d_k))  # (d_k,), (len_k, d_k)
    scores = k @ q  # (len_k,)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3), sharey=True)
    for ax, s, name in [(axes[0], scores, "q·k"), (axes[1], scores / math.sqrt(d_k), "q·k/√d_k")]:
        ax.bar(range(8), ref.softmax(s / temperature), color="tab:blue")
        ax.set(title=f"softmax({name} / T), scores spread {s.std():.1f}", xlabel="key", ylim=(0, 1))
    axes[0].set_ylabel("weight")
    fig.suptitle(f"d_k = {d_k}, temperature T = {temperature:g}")
    fig.tight_layout()


interactive_or_static(
    draw_softmax, {"d_k": 256, "temperature": 1.0}, d_k=(1, 512), temperature=(0.1, 5.0, 0.1)
)

# %% [markdown]
# ### Question 1: what is `d_k`?
# *1 point · about 2 min · warm-up*
#
# In $\operatorname{softmax}(QK^\top/\sqrt{d_k})$, what is $d_k$? Make `quiz_score_scale` return
# the letter of your answer.
#
# * (a) the number of words in the sentence
# * (b) d_model, the width of the token vectors between layers
# * (c) the width of each query and key vector, q.shape[-1] (64 per head in the paper)
# * (d) the number of attention heads


# %% nbgrader={"solution": true, "grade_id": "quiz_score_scale"}
def quiz_score_scale() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "c"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_score_scale", "points": 1}
check_quiz_score_scale(quiz_score_scale)
### BEGIN HIDDEN TESTS
check_quiz_score_scale(quiz_score_scale, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 7. Masks: forbidding some keys
#
# Sometimes a query must not look at some keys:
#
# * **padding**: sentences in a batch are padded to one length with `<pad>` tokens
#   (lesson 01), and nobody should attend to a `<pad>`;
# * **the future**: a decoder that writes a sentence word by word must not peek at the
#   words it has yet to produce (lesson 06).
#
# A **mask** says, for each (query, key) pair, whether attention is allowed. In this
# course a mask is a **boolean** tensor, broadcastable to `(..., len_q, len_k)`, with
#
# $$\texttt{True} = \text{may attend},\qquad \texttt{False} = \text{blocked},$$
#
# the convention of PyTorch's `F.scaled_dot_product_attention`. (`nn.MultiheadAttention`
# uses the **opposite** one: section 11.)
#
# **Where the mask goes.** Blocked positions get a score of $-\infty$ **after the scaling
# and before the softmax**:
#
# $$W = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}} + M\right),\qquad
# M_{ij} = \begin{cases} 0 & \text{if query } i \text{ may attend to key } j\\
# -\infty & \text{otherwise.}\end{cases}$$
#
# Since $e^{-\infty} = 0$, a blocked key gets weight exactly 0, and the softmax
# **renormalises** over the allowed keys: each row still adds up to 1. A large finite
# negative number ($-10^9$, or the dtype's most negative number) does the same for
# every row that allows at least one key; the checks accept any of them.
#
# **A query with nothing to attend to** (a query in a sequence that is all padding, say).
# With $-\infty$ its row is $0/0$, `NaN`, which spreads into the loss and the gradients.
# With $-10^9$ its scores are all equal and the weights come out **uniform**, over keys
# the query may not see. The convention here, as in `F.scaled_dot_product_attention`
# (PyTorch 2.5 and later): **all-zero weights**, hence a zero output. The checks accept
# uniform weights too (the row belongs to padding, its output is ignored later), never
# `NaN`.
#
# <details><summary><b>Deeper dive: three variations you may meet</b> (click)</summary>
#
# * **The mask added before the division by $\sqrt{d_k}$.** One popular explanation
#   writes $\operatorname{softmax}((QK^\top + M)/\sqrt{d_k})$. For a $0/-\infty$ mask that
#   is the same thing ($-\infty/\sqrt{d_k} = -\infty$). It stops being the same as soon
#   as $M$ holds finite numbers, such as the learned or distance-based biases some later
#   models add to the scores: they would be shrunk by $\sqrt{d_k}$ too. The paper and
#   every implementation add the mask to the **scaled** scores; do the same.
# * **The mask applied after the softmax** (weights times the mask). Wrong: blocked keys
#   get 0, but the row no longer adds up to 1, because the softmax already gave them
#   their share.
# * **Blocked scores set to 0** ("zero out the masked positions"). Wrong: $e^0 = 1$, so
#   the blocked keys keep their weight.
#
# </details>
#
# ### Question 2: a query with nothing to attend to
# *1 point · about 2 min · warm-up*
#
# A batch holds one sentence that is all `<pad>`, so with its padding mask one query
# row may attend to no key at all. What does this lesson's `scaled_dot_product_attention`
# return as that row's weights? Make `quiz_fully_masked` return the letter.
#
# * (a) NaN, so that the problem shows
# * (b) all-zero weights, so the query takes in nothing and its output is zero
# * (c) the softmax of its scores as if there were no mask
# * (d) weight 1 on the first key


# %% nbgrader={"solution": true, "grade_id": "quiz_fully_masked"}
def quiz_fully_masked() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_fully_masked", "points": 1}
check_quiz_fully_masked(quiz_fully_masked)
### BEGIN HIDDEN TESTS
check_quiz_fully_masked(quiz_fully_masked, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. The whole operation in PyTorch
#
# ### Exercise 3: `scaled_dot_product_attention`
# *3 points · about 30 min · challenging*
#
# Now all queries at once, on torch tensors with any number of leading batch dims: the
# same code must handle one sentence `(len, d)`, a batch `(batch, len, d)`, and the
# multi-head layout `(batch, num_heads, len, d)` of the next lesson. Matrix products in
# PyTorch (`@`, `torch.matmul`) broadcast over the leading dims, so this costs nothing
# extra. Apply the mask when one is given, give fully masked rows zero weights, and
# return `(output, weights)`. Stay in PyTorch (no `.numpy()`), and don't modify `q`, `k`,
# `v` or `mask`: later lessons train through this function.
#
# <details><summary>Hint 1</summary>
#
# The steps of `attention_row`, for all queries at once: a matrix of scores
# `(..., len_q, len_k)`, scaled; blocked scores set to $-\infty$; a softmax along the
# keys; a matrix product with `v`.
# </details>
#
# <details><summary>Hint 2: transposing k</summary>
#
# The scores need $K^\top$ with the batch dims left where they are: swap only the
# **last two** dims of `k`, counting from the end, so any number of batch dims works.
# `k.T` reverses *all* dims (fine for one 2-D sentence, wrong for a batch), and
# `transpose(1, 2)` is right only for 3-D tensors. $d_k$ is the last dim of `q`.
# </details>
#
# <details><summary>Hint 3: masking</summary>
#
# `Tensor.masked_fill` and `torch.where` both broadcast the mask to the shape of the
# scores (boolean indexing, `scores[...] = ...`, does not). You want $-\infty$ where the
# mask is **False**; `~mask` flips a bool tensor. The softmax goes along `dim=-1`, the
# keys.
# </details>
#
# <details><summary>Hint 4: fully masked rows</summary>
#
# After the softmax, the rows that had no allowed key are `NaN`. Find them with a
# reduction of the mask over the keys that keeps that dim (is any key allowed?), and
# give those rows zero weights (`masked_fill` again, or `torch.where`); replacing NaN by
# 0 also works. Compute the output from these final weights.
# </details>


# %% nbgrader={"solution": true, "grade_id": "scaled_dot_product_attention"}
def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q kᵀ / sqrt(d_k) + mask) v, for any number of leading batch dims.

    q:    (..., len_q, d_k)   queries
    k:    (..., len_k, d_k)   keys
    v:    (..., len_k, d_v)   values
    mask: None, or a bool tensor broadcastable to (..., len_q, len_k);
          True = this query may attend to this key, False = blocked.

    Returns (output, weights):
    output:  (..., len_q, d_v)    row i = sum over j of weights[..., i, j] * v[..., j, :]
    weights: (..., len_q, len_k)  each row sums to 1 over the keys it may attend to;
             a query row with no allowed key gets all-zero weights (and a zero output).
    q, k, v and mask are not modified. Accepted too: any value that blocks a key (-inf,
    -1e9, torch.finfo(dtype).min, an additive mask), uniform weights for a row with no
    allowed key (never NaN), results in another float dtype.
    """
    ### BEGIN SOLUTION
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., len_q, len_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # blocked keys: -inf
    weights = torch.softmax(scores, dim=-1)  # (..., len_q, len_k): over the keys
    if mask is not None:
        nothing_allowed = ~mask.any(dim=-1, keepdim=True)  # (..., len_q, 1)
        if nothing_allowed.any():  # a causal or padding mask has none: skip the copy
            weights = weights.masked_fill(nothing_allowed, 0.0)  # NaN rows -> 0
    output = weights @ v  # (..., len_q, d_v)
    return output, weights
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_scaled_dot_product_attention", "points": 3}
check_scaled_dot_product_attention(scaled_dot_product_attention)
### BEGIN HIDDEN TESTS
check_scaled_dot_product_attention(scaled_dot_product_attention, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Your attention against PyTorch's
#
# PyTorch ships the same operation as `F.scaled_dot_product_attention` (it returns only
# the output; its bool `attn_mask` uses the same True = may attend convention). On a
# batch shaped like the next lesson's, `(batch, num_heads, len, d)`, with
# `len_q != len_k`, a padding mask, and one sequence made entirely of padding:

# %%
try:
    g = torch.Generator().manual_seed(4)
    q = torch.randn(2, 3, 5, 8, generator=g)  # (batch, num_heads, len_q, d_k)
    k = torch.randn(2, 3, 7, 8, generator=g)  # (batch, num_heads, len_k, d_k)
    v = torch.randn(2, 3, 7, 6, generator=g)  # (batch, num_heads, len_k, d_v)
    real_keys = torch.tensor([[True] * 5 + [False] * 2, [False] * 7])  # (batch, len_k)
    mask = real_keys[:, None, None, :]  # (batch, 1, 1, len_k): broadcast over heads and queries
    mine, weights = scaled_dot_product_attention(q, k, v, mask)
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    print("output shape", tuple(mine.shape), "weights shape", tuple(weights.shape))
    print("same as F.scaled_dot_product_attention:", torch.allclose(mine, theirs, atol=1e-6))
    print("sequence 1 is all padding, its output is zero:", bool((mine[1] == 0).all()))
except NotImplementedError:
    print(
        "scaled_dot_product_attention is not written yet: this cell compares it with F.scaled_dot_product_attention once it is."
    )

# %% [markdown]
# ### A padded sentence
#
# "The black cat drank the milk" padded with two `<pad>` tokens whose queries and keys
# are zero vectors, through the reference (so the figure is right even while your
# function is being fixed). Left, the mask; middle, attention without it: the pads get
# the same share as "the", whose key is also zero. Right, with the mask: the pad
# columns get exactly zero, and the real words share their attention among real words.
# (The pad *rows* still attend to the real words; their outputs are ignored later.)

# %%
padded = [*CAT_WORDS, "<pad>", "<pad>"]  # len = 8
Q_pad = torch.zeros(8, 3, dtype=torch.float64)  # (len, d_k): pads ask for nothing
K_pad = torch.zeros(8, 3, dtype=torch.float64)  # (len, d_k): pads offer nothing
Q_pad[:6], K_pad[:6] = torch.from_numpy(CAT_QUERIES), torch.from_numpy(CAT_KEYS)
is_real = torch.tensor([True] * 6 + [False] * 2)  # (len_k,): True = may attend
fig, axes = plt.subplots(1, 3, figsize=(16, 4.6))
heatmap(
    is_real.expand(8, 8).double(),
    row_labels=padded,
    col_labels=padded,
    ax=axes[0],
    title="mask: yellow = may attend (True)",
    xlabel="key",
    ylabel="query",
    vmin=0,
    vmax=1,
)
for ax, m, title in [(axes[1], None, "no mask"), (axes[2], is_real, "padding mask")]:
    _, w = ref.scaled_dot_product_attention(Q_pad, K_pad, Q_pad, m)  # w: (len_q, len_k)
    attention_heatmap(w, padded, padded, title=title, ax=ax, annotate=False)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 9. Cross-attention by hand: "The ball is blue" → "La bola es azul"
#
# So far queries, keys and values came from one sentence (self-attention). A
# translation model also needs the decoder, which writes the Spanish sentence, to read
# the English one. That is **cross-attention**:
#
# * the **queries** come from the **decoder**: each Spanish word asks "which English
#   words matter for me?";
# * the **keys and values** come from the **encoder's output**: the English words
#   answer, and hand over what they carry.
#
# The weights are `(len_q, len_k)` = (Spanish length, English length), one output row
# per Spanish word. (A widely read illustrated guide takes the queries and keys from the
# encoder and the values from the decoder. That cannot work: the output has one row per
# query, and the decoder needs one row per word it writes.)
#
# Hand-made vectors with 4 features (*article*, *the object*, *linking verb*, *colour*).
# The English keys say what each word is; the Spanish queries say what each word
# needs: "la" is an article and, being feminine, also glances at the noun it must agree
# with; "bola" needs the object; "es" the verb; "azul" the colour. The values are
# one-hot: value $j$ = "English word $j$", so an output row says how much of each
# English word a Spanish word took in.
#
# **By hand, the row of "la".** Its query is $(2, 1, 0, 0)$ and the keys are
# $2\times$ the unit vectors, so the dot products are $(4, 2, 0, 0)$; divided by
# $\sqrt{d_k} = \sqrt 4 = 2$: $(2, 1, 0, 0)$. The exponentials are
# $(e^2, e^1, e^0, e^0) \approx (7.39, 2.72, 1, 1)$, adding up to $12.11$, so the
# weights are $\approx (0.61, 0.22, 0.08, 0.08)$: "la" reads mostly "the", some "ball".
# Work out the row of "bola" yourself, then check it below.

# %%
english, spanish = BALL_IS_BLUE[0].lower().split(), BALL_IS_BLUE[1].lower().split()
encoder_keys = 2.0 * torch.eye(4, dtype=torch.float64)  # (len_k, d_k): the, ball, is, blue
encoder_values = torch.eye(4, dtype=torch.float64)  # (len_k, d_v): value j = English word j
decoder_queries = torch.tensor(
    [
        [2.0, 1.0, 0.0, 0.0],  # la:   an article; glances at the noun for its gender
        [0.0, 2.0, 0.0, 0.0],  # bola: the object
        [0.0, 0.0, 2.0, 0.0],  # es:   the linking verb
        [0.0, 0.0, 0.0, 2.0],  # azul: the colour
    ],
    dtype=torch.float64,
)  # (len_q, d_k)
out, w = ref.scaled_dot_product_attention(decoder_queries, encoder_keys, encoder_values)
print("scaled scores of 'la':", (decoder_queries[0] @ encoder_keys.T / 2).numpy())
for word, row in zip(spanish, w, strict=True):
    print(f"{word:>5} reads: " + ", ".join(f"{e} {x:.2f}" for e, x in zip(english, row)))
attention_heatmap(w, spanish, english, title="cross-attention: Spanish queries, English keys")
plt.show()

# %% [markdown]
# While it translates, the decoder has only written part of the sentence: after "la bola
# es" it has 3 queries, and the weights are $3 \times 4$. The lengths of the two sentences
# are independent, which is why `len_q` and `len_k` are separate symbols (lesson 06 §5
# builds the masks for this layer, lesson 05 §4 the layer itself).

# %%
_, w_partial = ref.scaled_dot_product_attention(decoder_queries[:3], encoder_keys, encoder_values)
print("after 'la bola es': weights of shape", tuple(w_partial.shape), "= (len_q, len_k)")

# %% [markdown]
# ### Question 3: cross-attention
# *1 point · about 2 min · warm-up*
#
# In the decoder's cross-attention, where do the queries, keys and values come from?
# Make `quiz_cross_attention_roles` return the letter.
#
# * (a) queries, keys and values all from the decoder's own words
# * (b) queries from the decoder, keys and values from the encoder's output
# * (c) queries and keys from the encoder's output, values from the decoder
# * (d) queries from the encoder's output, keys and values from the decoder


# %% nbgrader={"solution": true, "grade_id": "quiz_cross_attention_roles"}
def quiz_cross_attention_roles() -> str:
    """Your answer to Question 3: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_cross_attention_roles", "points": 1}
check_quiz_cross_attention_roles(quiz_cross_attention_roles)
### BEGIN HIDDEN TESTS
check_quiz_cross_attention_roles(quiz_cross_attention_roles, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 10. Deeper dive: self-attention by hand, "The ball is blue"
#
# One more worked example, this time with predictions. Four features that a word can
# *offer* (its key) or *look for* (its query): 0 a thing (noun), 1 a property
# (adjective), 2 a determiner ("the"), 3 a linking verb ("is"). "the" introduces a noun,
# so it looks for a *thing*; "ball" looks for a *property*; "is" links a subject to a
# predicate, so it looks for a *thing* and a *property* equally; "blue" looks for the
# *thing* it describes.

# %%
tokens = BALL_IS_BLUE[0].lower().split()  # ['the', 'ball', 'is', 'blue']
K_ball = np.array(
    [
        [0.0, 0.0, 3.0, 0.0],  # the:  a determiner
        [3.0, 0.0, 0.0, 0.0],  # ball: a thing
        [0.0, 0.0, 0.0, 3.0],  # is:   a linking verb
        [0.0, 3.0, 0.0, 0.0],  # blue: a property
    ]
)  # (len_k, d_k) = (4, 4)
Q_ball = np.array(
    [
        [2.0, 0.0, 0.0, 0.0],  # the:  wants a thing
        [0.0, 2.0, 0.0, 0.0],  # ball: wants a property
        [1.0, 1.0, 0.0, 0.0],  # is:   wants a thing and a property
        [2.0, 0.0, 0.0, 0.0],  # blue: wants a thing
    ]
)  # (len_q, d_k) = (4, 4)

# %% [markdown]
# **Predict before you compute.** For each query word, which key word gets the largest
# weight? Is any row split between two words? Roughly how large is the top weight,
# given that a scaled score difference of 3 means a factor $e^3 \approx 20$? Replace each
# `"?"` below, then run the next cell (not graded).

# %%
my_guess = {"the": "?", "ball": "?", "is": "?", "blue": "?"}

# %%
scores_ball = Q_ball @ K_ball.T / math.sqrt(Q_ball.shape[-1])  # (len_q, len_k): scaled
weights_ball = ref.softmax(scores_ball, axis=-1)  # (len_q, len_k): each row sums to 1
for word, row in zip(tokens, weights_ball, strict=True):
    top = tokens[int(row.argmax())]
    print(f"{word:>5} attends most to {top!r:7} (weight {row.max():.2f}); ", end="")
    print(f"you guessed {my_guess[word]!r}")
attention_heatmap(weights_ball, tokens, tokens, title="The ball is blue: hand-made Q and K")
plt.show()

# %% [markdown]
# * The matrix is **not symmetric**: "the" attends to "ball", but "ball" does not attend
#   to "the".
# * "is" asked for two features equally and got a **split** row (0.41 / 0.41). Softmax
#   never gives exactly zero to a finite score: the unrelated words keep about 0.09 each.
# * Nothing forces the diagonal to dominate once queries and keys differ.

# %% [markdown]
# ## 11. Deeper dive: `nn.MultiheadAttention` reads a bool mask the other way round
#
# PyTorch's `nn.MultiheadAttention` (and `nn.Transformer`) predate
# `F.scaled_dot_product_attention`, and for them a bool `attn_mask` or
# `key_padding_mask` marks positions that are **not** allowed: `True` = blocked. Hand
# one of them a course mask and it silently does the opposite. Below, an
# `nn.MultiheadAttention` with one head and identity projections (so it computes plain
# attention on `(x, x, x)`) and a look-ahead mask, where query $i$ may attend to keys
# $0..i$:

# %%
d_model, length = 4, 5
mha = nn.MultiheadAttention(d_model, num_heads=1, bias=False, batch_first=True)
with torch.no_grad():  # identity projections: W_Q = W_K = W_V = W_O = I
    mha.in_proj_weight.copy_(torch.eye(d_model).repeat(3, 1))  # (3 * d_model, d_model)
    mha.out_proj.weight.copy_(torch.eye(d_model))
x = torch.randn(1, length, d_model, generator=torch.Generator().manual_seed(0))  # (1, len, d_model)
# (len_q, len_k): query i may attend to keys 0..i (True = allowed)
may_attend = torch.tril(torch.ones(length, length, dtype=torch.bool))

ours, ours_w = ref.scaled_dot_product_attention(x, x, x, may_attend)
with torch.no_grad():
    _, mha_w_wrong = mha(x, x, x, attn_mask=may_attend)  # course mask passed as is: wrong
    mha_out, mha_w = mha(x, x, x, attn_mask=~may_attend)  # inverted: True = blocked
print("weights, course mask passed straight to nn.MultiheadAttention:")
print(mha_w_wrong[0])
print("with ~mask, same as ours:", torch.allclose(mha_out, ours, atol=1e-6))

# %% [markdown]
# Passed straight in, the look-ahead mask makes every word attend **only to the
# future**, and the last word, which may see everything under our convention, sees
# nothing and comes out as `NaN`. Whenever you move a mask between APIs, check which way
# round its `True` goes.

# %% [markdown]
# ## 12. Deeper dive: "fast weights"
#
# A linear layer $y = xW$ has a weight matrix that changes only slowly, a little at each
# step of gradient descent, and applies the **same** $W$ to every input. The attention
# matrix is different: it is **computed from the input**, every time. The learned, slow
# parameters are $W^Q, W^K, W^V$; the weights that actually mix the words are recomputed
# for each sentence. Two sentences through the same (random, untrained) projections:

# %%
gen = torch.Generator().manual_seed(7)
d_model, d_k = 8, 4
W_Q = torch.randn(d_model, d_k, generator=gen) / math.sqrt(d_model)  # (d_model, d_k): slow
W_K = torch.randn(d_model, d_k, generator=gen) / math.sqrt(d_model)  # (d_model, d_k): slow
fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for ax, sentence in zip(axes, [BALL_IS_BLUE[0], BLACK_CAT], strict=True):
    toks = sentence.lower().split()
    X_s = torch.randn(len(toks), d_model, generator=gen)  # (len, d_model): stand-in embeddings
    _, w = ref.scaled_dot_product_attention(X_s @ W_Q, X_s @ W_K, X_s)  # (len, len)
    attention_heatmap(w, toks, toks, ax=ax, title=f"same W_Q, W_K: {sentence!r}")
fig.tight_layout()
plt.show()

# %% [markdown]
# Same parameters, different weight matrices, even different **sizes** (4×4 and 6×6).
# *What* to relate is decided by content, at run time.

# %% [markdown]
# ## Common misconceptions
#
# * *"$d_k$ is the sentence length."* No: it is the width of each query and key vector
#   (`q.shape[-1]`), fixed by the architecture (64 per head in the paper).
# * *"Scaling and softmax don't matter, the dot products are what counts."* Without the
#   softmax the weights are not a distribution; without the scaling the softmax
#   saturates as $d_k$ grows and stops passing gradients.
# * *"The mask can be applied to the weights afterwards."* Then the rows no longer add
#   up to 1. Put $-\infty$ into the scaled scores, before the softmax.
# * *"A bool mask's True means masked out."* It depends on the API. Here and in
#   `F.scaled_dot_product_attention`: True = may attend. In `nn.MultiheadAttention`:
#   True = blocked.
# * *"Queries and keys must come from sequences of the same length."* No: the weights
#   are `(len_q, len_k)`, and cross-attention uses exactly that freedom.
# * *"In cross-attention the values come from the decoder."* No: queries from the
#   decoder, keys **and** values from the encoder's output.
# * *"Attention weights are learned parameters."* The projections are learned; the
#   weights are recomputed from every input.
#
# ## Summary
#
# * $\operatorname{softmax}(QK^\top/\sqrt{d_k} + M)\,V$: every position reads from every
#   other in one step. $Q, K, V$ are learned projections: what a word looks for, offers,
#   hands over.
# * Score $(i, j)$ is $q_i \cdot k_j$; the softmax turns each query's row into weights
#   that add up to 1; output row $i$ is the weighted average of the value rows.
# * Dividing by $\sqrt{d_k}$ (the query/key width) keeps the softmax out of saturation;
#   a stable softmax subtracts each slice's maximum.
# * Masks (True = may attend) put $-\infty$ into the scaled scores before the softmax; a
#   query with nothing to attend to gets zero weights, never NaN.
# * Cross-attention: queries from the decoder, keys and values from the encoder.
#
# ## Further reading
#
# * Vaswani et al. (2017), [*Attention Is All You Need*](https://arxiv.org/abs/1706.03762),
#   §3.2.1 "Scaled Dot-Product Attention" and footnote 4: the definition and the variance
#   argument for $\sqrt{d_k}$, in one page. Figure 2 shows where the mask goes.
# * Jay Alammar, [*The Illustrated Transformer*](https://jalammar.github.io/illustrated-transformer/):
#   pictures of the query, key and value vectors of each word and of the matrix form;
#   the best place to build the visual intuition.
# * Harvard NLP, [*The Annotated Transformer*](https://nlp.seas.harvard.edu/annotated-transformer/):
#   the paper with working PyTorch code beside each paragraph; its `attention()` is the
#   function of Exercise 3 (with $-10^9$ instead of $-\infty$).
# * Zhang, Lipton, Li and Smola, [*Dive into Deep Learning*, chapter 11](https://d2l.ai/chapter_attention-mechanisms-and-transformers/index.html):
#   a textbook treatment with exercises; §11.3 covers the masked softmax and scaled
#   dot-product attention, §11.1 the queries-keys-values view.
#
# **Next:** lesson 05 runs several of these attentions side by side, each in its own
# smaller subspace: multi-head attention.
