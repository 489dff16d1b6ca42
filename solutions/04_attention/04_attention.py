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
# This is the lesson the whole course turns on. *Attention* is the one operation
# that lets a word's vector take in information from the other words of its
# sentence. Every other part of a Transformer (embeddings, positional encodings,
# feed-forward layers, normalisation) works on one position at a time. In this
# lesson you
#
# 1. see **why** attention replaced recurrent networks;
# 2. meet **queries, keys and values** and read the attention matrix row by row;
# 3. write a numerically stable **`softmax`** (graded);
# 4. see **why the scores are divided by √d_k**, with a figure;
# 5. work a small example **by hand** ("The ball is blue"), predicting who attends
#    to whom before the computer tells you;
# 6. learn how **masks** block positions, and which way round a mask's `True` goes;
# 7. write **`scaled_dot_product_attention`** in PyTorch (graded), checked against
#    PyTorch's own `F.scaled_dot_product_attention`.
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. A test
# cell prints `✓ ...` when your function is right and explains what is wrong when
# it is not. The same notebook with solutions is in `solutions/04_attention/`.
#
# **Symbols** (the course glossary): `len_q` is the number of queries, `len_k` the
# number of keys (= number of values), `d_k` the width of each query and key vector,
# `d_v` the width of each value vector, `d_model` the width of the token vectors
# between layers. Sequences are `(batch, len, d_model)`; attention weights are
# `(batch, num_heads, len_q, len_k)`; this lesson's function accepts any number of
# leading batch dims in front of `(len_q, len_k)`.

# %% nbgrader={"locked": true, "grade_id": "setup"}
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checks.attention import (
    check_scaled_dot_product_attention,
    check_softmax,
)
from transformer_course.data import BALL_IS_BLUE, BLACK_CAT
from transformer_course.plotting import attention_heatmap

torch.set_printoptions(precision=3, sci_mode=False)
np.set_printoptions(precision=3, suppress=True)

# %% [markdown]
# ## 1. Why attention?
#
# Before Transformers, sequences were read by **recurrent networks** (RNNs, LSTMs,
# GRUs). An RNN keeps one fixed-size state vector $h_t$ and updates it word by word:
# $h_t = f(h_{t-1}, x_t)$. That design has three costs.
#
# * **Long paths.** For word 20 to influence word 1's representation (or for the
#   gradient of a loss at word 20 to reach word 1), the signal must pass through
#   19 applications of $f$. Each step can shrink or blow up the signal, so long-range
#   relationships are hard to learn.
# * **No parallelism.** $h_{20}$ needs $h_{19}$, which needs $h_{18}$... A sentence of
#   $n$ words takes $n$ sequential steps, however many processors you have.
# * **A bottleneck.** In the classic encoder-decoder, the whole source sentence is
#   squeezed into the final state, one vector of fixed size, whether the sentence
#   has 3 words or 60.
#
# Attention removes all three. Every position looks at **every** other position
# **directly**, in one step, with a weight that says how relevant it is; and all
# positions do this at once, as a couple of matrix products. The path between any two
# words has length 1, the whole sequence is processed in parallel, and nothing is
# squeezed through a single vector. The price: $n^2$ pairs of positions, so the cost
# grows quadratically with the length of the sequence.

# %% [markdown]
# ## 2. Queries, keys and values
#
# ### The retrieval analogy
#
# Think of searching for a video. You type a **query**; the search engine compares it
# with the **key** of every stored video (its title, description); it hands you back
# the best-matching **values** (the videos themselves). Attention does the same with
# vectors:
#
# * each position emits a **query** $q_i$: *what am I looking for?*
# * each position emits a **key** $k_j$: *what do I contain, as an answer to a query?*
# * each position emits a **value** $v_j$: *what do I hand over if I am chosen?*
#
# The match between query $i$ and key $j$ is the dot product $q_i \cdot k_j$.
#
# The analogy is useful, and it also breaks in instructive places:
#
# * A search engine returns the **best** matches. Attention returns a **blend**: a
#   weighted average of *all* the values, with weights that add up to 1. It is a soft,
#   differentiable retrieval, which is what lets gradient descent learn it.
# * There is no separate database. In **self-attention** the queries, keys and values
#   all come from the **same** rows: each word of the sentence is at the same time a
#   searcher, a title and a video.
# * Nobody types the query. Queries, keys and values are computed by the network,
#   with matrices it **learns**, so what "relevant" means is learned too.
#
# ### Three projections of the same rows
#
# Given the token vectors of a sentence $X$, shape `(len, d_model)`, the three roles
# come from three learned linear maps:
#
# $$Q = X W^Q,\qquad K = X W^K,\qquad V = X W^V,\qquad
# W^Q, W^K \in \mathbb{R}^{d_\text{model}\times d_k},\; W^V \in \mathbb{R}^{d_\text{model}\times d_v}.$$
#
# In the paper $d_\text{model} = 512$ and each head uses $d_k = d_v = d_\text{model}/h = 64$:
# the projections map *down* from $d_\text{model}$ to a smaller $d_k$ (one popular
# explanation writes $d_k > d_\text{model}$; it is the other way round).
#
# **Why three, and not just $X$ itself?** If we used $X$ for queries and keys, the score
# of $i$ looking at $j$ would be $x_i \cdot x_j$, which equals $j$ looking at $i$:
# the matrix of scores would be **symmetric**. But relevance is not symmetric. An
# adjective needs its noun more than the noun needs that adjective; "it" needs to
# find what it refers to, not the other way round. And a vector tends to match itself
# best, so every word would mostly attend to itself. Separate $W^Q$ and $W^K$ let a
# word *ask* for something different from what it *offers*, and a separate $W^V$ lets
# it *hand over* something different again. The cell below shows the symmetry.

# %%
rng = np.random.default_rng(0)
X = rng.normal(size=(4, 6))  # (len, d_model): 4 tokens, d_model = 6
W_q, W_k = rng.normal(size=(6, 3)), rng.normal(size=(6, 3))  # (d_model, d_k), d_k = 3
same = X @ X.T  # (len, len): queries = keys = X
projected = (X @ W_q) @ (X @ W_k).T  # (len, len): Q K^T
print("X X^T symmetric?      ", np.allclose(same, same.T))
print("(X W_q)(X W_k)^T symmetric?", np.allclose(projected, projected.T))

# %% [markdown]
# ## 3. The attention matrix, row by row
#
# Here is the whole operation, from the paper (Vaswani et al., 2017, eq. 1):
#
# $$\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V
# \qquad Q: (\text{len}_q, d_k),\; K: (\text{len}_k, d_k),\; V: (\text{len}_k, d_v).$$
#
# Read it from the inside out.
#
# 1. **Scores.** $S = Q K^\top$ has shape `(len_q, len_k)`. Entry $(i, j)$ is the
#    dot product $q_i \cdot k_j$: **row $i$ belongs to query $i$, column $j$ to key $j$.**
# 2. **Scale.** Divide by $\sqrt{d_k}$ (section 5 shows why).
# 3. **Softmax, row by row.** Each row becomes a probability distribution over the
#    keys: $w_{ij} \ge 0$ and $\sum_j w_{ij} = 1$. This is the **attention matrix** $W$.
# 4. **Mix the values.** Output row $i$ is $\sum_j w_{ij}\, v_j$: a weighted average of
#    the value rows, with query $i$'s weights. Shape `(len_q, d_v)`.
#
# Notice that `len_q` and `len_k` need not be equal. In *self-attention* both come from
# the same sentence, so they are; in *cross-attention* (lesson 07) the decoder's words ask
# the encoder's words, e.g. the 3 words of "I am fine" asking the 4 words of
# "Hi how are you", and the attention matrix is $3\times 4$.
#
# ### Why does a dot product measure relevance?
#
# A dot product multiplies the two vectors feature by feature and adds up. A feature
# where both numbers have the **same sign** adds to the sum; opposite signs subtract.
# So two vectors that agree on many features get a large score. Take
# "The black cat drank the milk" with made-up 3-feature vectors
# (*drinkable*, *animal*, *colour*). The query of "drank" asks for something drinkable,
# preferably with an animal around, and not for a colour:

# %%
words = BLACK_CAT.lower().split()  # ['the', 'black', 'cat', 'drank', 'the', 'milk']
features = ["drinkable", "animal", "colour"]
keys = np.array(
    [
        [0.0, 0.0, 0.0],  # the
        [-1.0, 0.0, 2.0],  # black
        [0.0, 2.0, 0.5],  # cat
        [0.5, 0.5, 0.0],  # drank
        [0.0, 0.0, 0.0],  # the
        [2.0, 0.0, 0.5],  # milk
    ]
)  # (len_k, d_k) = (6, 3)
query_drank = np.array([2.0, 1.0, -1.0])  # (d_k,): what "drank" looks for
for word, key in zip(words, keys, strict=True):
    products = query_drank * key + 0.0  # feature by feature (+ 0.0 turns -0.0 into 0.0)
    terms = " + ".join(f"{p:5.1f}" for p in products)
    print(f"drank · {word:<5} = {terms} = {products.sum():5.1f}")

# %% [markdown]
# "milk" agrees with the query where it matters (both positive on *drinkable*) and wins;
# "cat" gets a smaller positive score from *animal*; "black" disagrees on both
# *drinkable* and *colour* and ends up strongly negative. In a real model nobody
# chooses these features: training adjusts the embeddings and $W^Q$, $W^K$ until words
# that should attend to each other produce aligned query and key vectors.
#
# > **Scaling and softmax are not optional details.** One popular explanation leaves
# > them out as "just changing the numbers". Without the softmax the raw scores above
# > (−4, 1.5, 3.5, ...) would be used as weights: negative weights, weights that do not
# > add up to 1, an output whose size grows with the length of the sentence. The
# > softmax is what turns scores into a *distribution* over the keys, and the scaling
# > (section 5) is what keeps that distribution from collapsing onto one key.

# %% [markdown]
# ## 4. Softmax, and how to compute it without overflowing
#
# For a vector of scores $s = (s_1, \dots, s_n)$,
#
# $$\operatorname{softmax}(s)_j = \frac{e^{s_j}}{\sum_{j'} e^{s_{j'}}}.$$
#
# Every output is positive, they add up to 1, larger scores get larger weights, and
# only **differences** between scores matter: adding the same constant $c$ to every
# $s_j$ multiplies numerator and denominator by $e^{c}$, which cancels,
#
# $$\operatorname{softmax}(s - c) = \operatorname{softmax}(s).$$
#
# That identity is the key to computing softmax safely. `np.exp(710.0)` is already
# `inf` in float64 (in float32 the limit is about 88), and `inf / inf` is `NaN`. Scores
# of a few hundred are not exotic (un-scaled scores with a large $d_k$, section 5). So
# we subtract the **maximum of each slice** first: the largest exponent becomes
# $e^0 = 1$, nothing overflows, and the result is unchanged.
#
# Two more cases matter for attention, because masks (section 7) write $-\infty$
# into the scores:
#
# * an entry equal to $-\infty$ gets weight exactly 0, since $e^{-\infty} = 0$;
# * a slice where **every** entry is $-\infty$ has nothing to give weight to. The
#   formula gives $0/0$. Our convention, the same as PyTorch's
#   `F.scaled_dot_product_attention` for a query that may attend to nothing: such a
#   slice comes back as **all zeros**. (Note that its maximum is $-\infty$, and
#   $-\infty - (-\infty)$ is `NaN`, so the max trick needs care there.)
#
# ### Exercise 1: `softmax` (numpy)
#
# Write `softmax(x, axis=-1)` for a numpy array of any shape, normalising along
# `axis`. Requirements:
#
# * subtract the maximum of each slice (`np.max(x, axis=axis, keepdims=True)`), so
#   that large logits do not overflow;
# * keep the input's dtype (float32 in, float32 out) and shape;
# * an all $-\infty$ slice gives zeros, not `NaN`;
# * don't modify `x` in place.
#
# *Hints:* `keepdims=True` keeps the reduced axis with size 1, so the maxima and the
# sums broadcast against `x` along the right axis. `np.where(cond, a, b)` and
# `np.divide(a, b, out=..., where=...)` handle the special cases without warnings.


# %% nbgrader={"solution": true, "grade_id": "softmax"}
def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax of `x` along `axis`.

    x: a float numpy array of any shape (float32 or float64); it is not modified.
    Returns an array of the same shape and dtype whose slices along `axis` are
    non-negative and add up to 1. Entries equal to -inf get weight 0; a slice in
    which every entry is -inf comes back as all zeros (not NaN).
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
# Your softmax at work on the scores of "drank" from section 3, and on the same
# scores multiplied by 100 (a naive `exp` would overflow there):

# %%
scores_drank = keys @ query_drank  # (len_k,) = (6,)
for label, s in [("scores", scores_drank), ("scores x 100", 100 * scores_drank)]:
    pairs = ", ".join(f"{w} {p:.3f}" for w, p in zip(words, softmax(s), strict=True))
    print(f"{label:>12}: {pairs}")

# %% [markdown]
# Multiplying the scores by 100 made the softmax put (almost) all of the weight on
# "milk": the bigger the differences between scores, the closer softmax gets to a
# hard `argmax`. That is the problem the next section is about.

# %% [markdown]
# ## 5. Why divide by √d_k?
#
# Suppose the entries of a query and a key are independent, with mean 0 and variance 1
# (roughly what a well-initialised network produces). Then their dot product
#
# $$q \cdot k = \sum_{m=1}^{d_k} q_m k_m$$
#
# is a sum of $d_k$ independent terms, each with mean 0 and variance 1, so it has
# mean 0 and **variance $d_k$**: its typical size grows like $\sqrt{d_k}$. With
# $d_k = 64$ the scores are typically around ±8; differences of that size push the
# softmax towards a one-hot vector. A saturated softmax is a problem for learning: its
# gradient, $\partial w_i / \partial s_j = w_i(\delta_{ij} - w_j)$, is nearly zero when
# one weight is close to 1 and the rest close to 0, so the scores stop learning.
#
# Dividing by $\sqrt{d_k}$ brings the variance back to 1 whatever the width, which
# keeps the softmax in its responsive range. The figure measures both effects.
#
# > **What is $d_k$?** The width of each query/key vector, `q.shape[-1]`: 64 per head
# > in the paper. It is **not** the number of words in the sentence (one popular
# > explanation says so). The scale does not change when the sentence gets longer;
# > it is fixed by the architecture.
#
# The demo uses the reference softmax (`transformer_course.reference.attention`) rather
# than yours, so that the figure is right even if your softmax is still being fixed.

# %%
from transformer_course.reference import attention as ref

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

# %% [markdown]
# Left: the raw scores spread like $\sqrt{d_k}$; the scaled ones stay at 1. Middle:
# without scaling, each query's largest weight creeps towards 1 as $d_k$ grows (the
# softmax becomes an `argmax`); with scaling it stays put. Right: the gradient
# flowing back through the softmax shrinks as it saturates; the scaled version keeps it.

# %% [markdown]
# ## 6. A worked example: "The ball is blue"
#
# Time to run attention by hand on one sentence, in numpy. We choose 4 **features**
# that a word can *offer* (its key) or *look for* (its query):
#
# | feature | meaning |
# |---|---|
# | 0 | a thing (noun) |
# | 1 | a property (adjective) |
# | 2 | a determiner ("the") |
# | 3 | a linking verb ("is") |
#
# Each key says what its word **is**; each query says what its word **wants**:
#
# * "the" introduces a noun, so it looks for a *thing*;
# * "ball" looks for a *property* that describes it;
# * "is" links a subject to a predicate, so it looks for a *thing* and a *property*
#   equally;
# * "blue" looks for the *thing* it describes.

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
# **Predict before you compute.** For each query word, which key word will get the
# largest weight? Is any row split between two words? How large, roughly, is the top
# weight, given that a score difference of 3 after scaling means a factor
# $e^3 \approx 20$? Write your guesses in the dict below (replace each `"?"`), then run
# the next two cells. This is not graded: it is for you.

# %%
my_guess = {"the": "?", "ball": "?", "is": "?", "blue": "?"}

# %%
d_k = Q_ball.shape[-1]
scores_ball = Q_ball @ K_ball.T / math.sqrt(d_k)  # (len_q, len_k): scaled scores
weights_ball = ref.softmax(scores_ball, axis=-1)  # (len_q, len_k): each row sums to 1
print("scaled scores (rows = queries, columns = keys):")
print(scores_ball)
for word, row in zip(tokens, weights_ball, strict=True):
    top = tokens[int(row.argmax())]
    print(f"{word:>5} attends most to {top!r:7} (weight {row.max():.2f}); ", end="")
    print(f"you guessed {my_guess[word]!r}")
attention_heatmap(weights_ball, tokens, tokens, title="The ball is blue: hand-made Q and K")
plt.show()

# %% [markdown]
# Things to notice in the heatmap:
#
# * **Rows are queries, columns are keys**, and every row sums to 1.
# * The matrix is **not symmetric**: "the" attends to "ball", but "ball" does not attend
#   to "the". Separate queries and keys made that possible.
# * "is" asked for two features equally and got a **split** row (0.41 / 0.41 and a
#   little for the rest). Softmax never gives exactly zero to a finite score: the
#   unrelated words keep about 0.09 each.
# * The words attend to *other* words, not to themselves: nothing forces the diagonal
#   to dominate once queries and keys differ.
#
# The last step mixes the values. With one-hot values (value row $j$ = "word $j$"),
# output row $i$ says how much of each word query $i$ took in: it is exactly row $i$ of
# the weights. With real value vectors, "ball"'s output becomes mostly "blue"'s value:
# the vector for *ball* now carries the information that it is blue.

# %%
V_ball = np.eye(4)  # (len_k, d_v): value of word j = one-hot "word j"
output_ball = weights_ball @ V_ball  # (len_q, d_v)
print(np.allclose(output_ball, weights_ball))

# %% [markdown]
# ## 7. Masks: forbidding some keys
#
# Sometimes a query must not look at some keys:
#
# * **padding**: sentences in a batch are padded to the same length with `<pad>` tokens
#   (lesson 01), and no one should attend to a `<pad>`;
# * **the future**: a decoder that generates text word by word must not peek at the
#   words it has yet to produce (lesson 06).
#
# A **mask** says, for each (query, key) pair, whether attention is allowed. In this
# course a mask is a **boolean** tensor, broadcastable to `(..., len_q, len_k)`, with
#
# $$\texttt{True} = \text{may attend},\qquad \texttt{False} = \text{blocked},$$
#
# the convention of PyTorch's `F.scaled_dot_product_attention`. (PyTorch's older
# `nn.MultiheadAttention` uses the **opposite** convention; section 9 shows it.)
#
# ### Where the mask goes
#
# Blocked positions get a score of $-\infty$ **after scaling and before the softmax**:
#
# $$W = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}} + M\right),\qquad
# M_{ij} = \begin{cases} 0 & \text{if query } i \text{ may attend to key } j\\
# -\infty & \text{otherwise.}\end{cases}$$
#
# In code that is `scores.masked_fill(~mask, float("-inf"))`. Since $e^{-\infty} = 0$,
# blocked keys get weight exactly 0, and the softmax **renormalises** over the allowed
# keys, so each row still adds up to 1.
#
# Three variations you may meet:
#
# * **Mask added before the division by $\sqrt{d_k}$.** One popular explanation writes
#   $\operatorname{softmax}((QK^\top + M)/\sqrt{d_k})$. For a 0/$-\infty$ mask this is
#   the same thing ($-\infty/\sqrt{d_k} = -\infty$, $0/\sqrt{d_k} = 0$). It stops being
#   the same as soon as $M$ holds finite numbers, such as the learned or distance-based
#   biases some later models add to the scores: then the bias would be shrunk by
#   $\sqrt{d_k}$ too. The paper and every implementation add the mask to the
#   **scaled** scores; do the same.
# * **Mask applied after the softmax** (multiplying the weights by the mask). That is
#   wrong: blocked keys get 0, but the row no longer adds up to 1, because the softmax
#   already gave them their share.
# * **A large finite number instead of $-\infty$** (often $-10^9$). For a row with at
#   least one allowed key this gives the same weights ($e^{-10^9}$ underflows to 0).
#   For a row with **no** allowed key it does not: all its scores become equal, and the
#   softmax spreads the weight uniformly over keys the query may not see.
#
# ### A query with nothing to attend to
#
# With $-\infty$, a fully masked row is all $-\infty$, and its softmax is $0/0 =$ `NaN`,
# which then spreads into everything computed from it. The convention here (PyTorch's
# `F.scaled_dot_product_attention` does the same) is: such a row gets **all-zero
# weights**, hence a zero output. Zero the rows whose mask has no `True` after the
# softmax, e.g. `weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)`.

# %% [markdown]
# ## 8. Exercise 2: `scaled_dot_product_attention` (PyTorch)
#
# Now the real thing, on torch tensors with any number of leading batch dims: the
# same code must handle one sentence `(len, d)`, a batch `(batch, len, d)`, and the
# multi-head layout `(batch, num_heads, len, d)` of the next lesson. Matrix products
# in PyTorch (`@`, `torch.matmul`) broadcast over the leading dims, so this costs
# nothing extra; just transpose the **last two** dims of `k`
# (`k.transpose(-2, -1)`, not `k.T`).
#
# Steps:
#
# 1. `d_k = q.shape[-1]`; scores `q @ kᵀ / √d_k`, shape `(..., len_q, len_k)`;
# 2. if a mask is given: blocked scores (mask `False`) become $-\infty$ (`masked_fill`
#    or `torch.where`, which broadcast the mask);
# 3. softmax over the **keys** (`dim=-1`), e.g. `torch.softmax`;
# 4. zero the rows that have no allowed key (only when a mask is given);
# 5. output = weights @ v, shape `(..., len_q, d_v)`; return `(output, weights)`.
#
# Stay in PyTorch (no `.numpy()`), keep the dtype of the inputs, and don't modify
# `q`, `k` or `v` in place: later lessons train through this function.


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
    Both have the dtype of q; q, k and v are not modified.
    """
    ### BEGIN SOLUTION
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., len_q, len_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # blocked keys: -inf
    weights = torch.softmax(scores, dim=-1)  # (..., len_q, len_k): over the keys
    if mask is not None:
        nothing_allowed = ~mask.any(dim=-1, keepdim=True)  # (..., len_q, 1)
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
# batch shaped like the next lesson's, `(batch, num_heads, len_q, len_k)`, with
# `len_q != len_k`, a padding mask, and one sequence made entirely of padding:

# %%
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

# %% [markdown]
# ### "The ball is blue <pad> <pad>"
#
# A padded sentence, with the reference implementation (so this figure is right even
# while your function is being fixed). The padding columns get zero weight, and the
# real words spread their attention over the real words only. (The padding *rows*
# still attend to the real words: nothing is wrong with that, their outputs are simply
# ignored later.)

# %%
padded = [*tokens, "<pad>", "<pad>"]  # len = 6
Q_pad = torch.zeros(6, 4, dtype=torch.float64)  # (len, d_k): pads ask for nothing
K_pad = torch.zeros(6, 4, dtype=torch.float64)  # (len, d_k): pads offer nothing
Q_pad[:4], K_pad[:4] = torch.from_numpy(Q_ball), torch.from_numpy(K_ball)
is_real = torch.tensor([True] * 4 + [False] * 2)  # (len_k,)
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for ax, m, title in [(axes[0], None, "no mask"), (axes[1], is_real, "padding mask")]:
    _, w = ref.scaled_dot_product_attention(Q_pad, K_pad, Q_pad, m)  # w: (len_q, len_k)
    attention_heatmap(w, padded, padded, title=title, ax=ax)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 9. Beware: `nn.MultiheadAttention` reads a bool mask the other way round
#
# PyTorch's `nn.MultiheadAttention` (and `nn.Transformer`) predate
# `F.scaled_dot_product_attention`, and for them a bool `attn_mask` or
# `key_padding_mask` marks positions that are **not** allowed: `True` = blocked. If you
# hand one of them a course mask, it silently does the opposite.
#
# To see it, make an `nn.MultiheadAttention` with one head and identity projections
# (so that it computes plain attention on `(x, x, x)`) and give it a look-ahead mask,
# where query $i$ may attend to keys $0..i$:

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
# nothing and comes out as `NaN`. Whenever you move a mask between APIs, check which
# way round its `True` goes.

# %% [markdown]
# ## 10. "Fast weights": attention is computed from the data
#
# A linear layer $y = xW$ has a weight matrix that changes only slowly, a little at
# each step of gradient descent, and then applies the **same** $W$ to every input.
# The attention matrix is different: it is **computed from the input**, on the fly,
# every time. The learned, slow parameters are $W^Q, W^K, W^V$; the weights that actually
# mix the words are recomputed for each sentence. Two sentences through the same
# (random, untrained) projections:

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
# Same parameters, different weight matrices, even different **sizes** (4×4 and
# 6×6). This is why a Transformer can relate words that it has never seen in that
# combination: *what* to relate is decided by content, at run time.

# %% [markdown]
# ## Common misconceptions
#
# * *"$d_k$ is the sentence length."* No: it is the width of each query/key vector
#   (`q.shape[-1]`), fixed by the architecture (64 per head in the paper).
# * *"Scaling and softmax don't matter, the dot products are what counts."* Without
#   the softmax the weights are not a distribution; without the scaling the softmax
#   saturates as $d_k$ grows and stops passing gradients.
# * *"The mask can be applied to the weights afterwards."* Then the rows no longer add
#   up to 1. Mask the scaled scores with $-\infty$, before the softmax.
# * *"A bool mask's True means masked out."* It depends on the API. Here and in
#   `F.scaled_dot_product_attention`: True = may attend. In `nn.MultiheadAttention`:
#   True = blocked.
# * *"Queries and keys must come from sequences of the same length."* No: the weights
#   are `(len_q, len_k)`, and cross-attention uses exactly that freedom.
# * *"Attention weights are learned parameters."* The projections are learned; the
#   weights are recomputed from every input.
#
# ## Summary
#
# * Attention lets every position read from every other position in one step:
#   $\operatorname{softmax}(QK^\top/\sqrt{d_k} + M)\,V$.
# * $Q, K, V$ are three learned projections of the token vectors: what a word looks
#   for, what it offers, and what it hands over.
# * Entry $(i, j)$ of the scores is $q_i \cdot k_j$, large when the vectors agree in
#   sign feature by feature; the softmax turns each query's row into weights that add
#   up to 1; output row $i$ is the weighted average of the value rows.
# * Dividing by $\sqrt{d_k}$ keeps the scores at unit variance, so the softmax does not
#   saturate.
# * A stable softmax subtracts each slice's maximum; an all $-\infty$ slice gives zeros.
# * Masks (bool, True = may attend) set blocked scores to $-\infty$ after scaling and
#   before the softmax; a query with nothing to attend to gets zero weights.
#
# **Next:** lesson 05 runs several of these attentions side by side, each in its own
# smaller subspace: multi-head attention.
