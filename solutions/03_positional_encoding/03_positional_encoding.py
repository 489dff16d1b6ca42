# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 03 · Positional encoding: telling attention where each token is
#
# *"Dog bites man"* and *"man bites dog"* contain the same three words. Only their
# order tells you who is in the news. An RNN reads words one after another, so order
# is built into how it works. A Transformer reads all positions **at once**, and its
# attention layers do not know which position is which. This lesson shows that
# blindness, then fixes it the way the original paper did (Vaswani et al. 2017,
# *Attention Is All You Need*, section 3.5): each position gets its own fixed
# vector of sines and cosines, which is **added** to the token's embedding.
#
# *About 1 hour 45 minutes: 71 minutes for the three exercises and two questions, the rest
# for reading and the demos.*
#
# **By the end of this lesson you will be able to**
#
# * show that attention without positions is permutation-equivariant, and explain
#   why that makes "dog bites man" and "man bites dog" look alike to it;
# * compute the paper's sinusoidal table and read its heatmap: which features change
#   fast, which slowly, and what the wavelengths are;
# * prove that a shift by any offset is one fixed rotation matrix, the reason the
#   paper pairs a sine with a cosine;
# * write the `PositionalEncoding` module that adds the table to a batch of
#   embeddings, with dropout where the paper puts it.
#
# | | you build | |
# |---|---|---|
# | Exercise 1 | `positional_encoding(max_len, d_model)` | the table of sinusoids, one row per position |
# | Exercise 2 | `relative_shift(k, d_model)` | the matrix that moves any row of the table by `k` positions |
# | Questions 1 and 2 | | which shifts are linear; how long a row is |
# | Exercise 3 | `PositionalEncoding` | the module that adds the table to a batch of embeddings |
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. A test
# cell prints `✓ ...` when your code is right and explains what is wrong when it is
# not. Hints are folded under each exercise: open them one at a time. Stuck? The
# same notebook with solutions is in `solutions/03_positional_encoding/`.
#
# Symbols (see `transformer_course.glossary`): `batch` sequences of `len` tokens,
# each a vector of `d_model` features; `max_len` is the longest sequence the table
# covers.

# %% nbgrader={"locked": true, "grade_id": "setup"}
import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

from transformer_course.checks.positional_encoding import (
    check_positional_encoding,
    check_PositionalEncoding,
    check_quiz_row_length,
    check_quiz_shift,
    check_relative_shift,
)
from transformer_course.plotting import attention_heatmap, heatmap, interactive_or_static
from transformer_course.reference.multi_head_attention import MultiHeadAttention

# %% [markdown]
# ## 1. Attention cannot see order
#
# Self-attention (lessons 04 and 05) computes, for every query position, a weighted
# average of the value vectors, with weights from dot products between queries and
# keys. Nothing in that recipe mentions a position. Let us check what that means,
# using the course's reference multi-head attention (you will build it yourself in
# lesson 05; here it is just a tool) on three made-up word vectors:

# %%
torch.manual_seed(0)  # the attention layer's weights are random: fix them for this demo
d_model, num_heads = 16, 4
attention = MultiHeadAttention(d_model, num_heads).eval()

words = ["dog", "bites", "man"]
sentences = ("dog bites man", "man bites dog")
word_vectors = torch.randn(3, d_model, generator=torch.Generator().manual_seed(1))  # (3, d_model)
vector_of = dict(zip(words, word_vectors))


def encode_sentence(sentence: str) -> torch.Tensor:
    """Word vectors of a sentence, as a batch of one: (1, len, d_model)."""
    return torch.stack([vector_of[w] for w in sentence.split()]).unsqueeze(0)


with torch.no_grad():
    x1, x2 = encode_sentence("dog bites man"), encode_sentence("man bites dog")  # (1, 3, d_model)
    out1, weights1 = attention(x1, x1, x1)  # (1, 3, d_model), (1, num_heads, 3, 3)
    out2, weights2 = attention(x2, x2, x2)

# "dog" is position 0 of the first sentence and position 2 of the second
print("output for 'dog' in 'dog bites man':", out1[0, 0, :4].numpy().round(4), "...")
print("output for 'dog' in 'man bites dog':", out2[0, 2, :4].numpy().round(4), "...")
print("largest difference:", float((out1[0, 0] - out2[0, 2]).abs().max()))

# %% [markdown]
# The word *dog* gets the same output vector (up to float rounding) whether it bites
# or is bitten. The attention weights tell the same story: the second sentence's
# matrix is the first one with its rows and columns reordered, nothing more.

# %%
fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
for ax, sentence, head_weights in zip(axes, sentences, (weights1, weights2)):
    tokens = sentence.split()
    attention_heatmap(head_weights[0, 0], tokens, tokens, title=f"head 0: '{sentence}'", ax=ax)
fig.tight_layout()
plt.show()

# %% [markdown]
# ### Permutation equivariance
#
# This is no accident of the example. Write a reordering of the `len` positions as
# a permutation matrix $P$ (each row has a single 1), so that $PX$ is the input $X$
# (`(len, d_model)`) with its rows shuffled. Queries, keys and values are computed
# row by row ($PX W^Q = P\,Q$, and so on), and since $P^\top P = I$:
#
# $$
# \operatorname{softmax}\!\left(\frac{(PQ)(PK)^\top}{\sqrt{d_k}}\right) PV
# = P \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) P^\top P V
# = P \operatorname{Attention}(Q, K, V).
# $$
#
# (The softmax works on each row separately, and shuffling the columns of a row
# shuffles its softmax the same way, so $P$ and $P^\top$ can move outside it.)
# The feed-forward layers, residual connections and layer norms also act on each
# position separately. So a whole Transformer encoder without position information
# is **permutation-equivariant**: shuffle the input, and the outputs come back
# shuffled the same way. Here it is for a random permutation of six random vectors:

# %%
x = torch.randn(1, 6, d_model, generator=torch.Generator().manual_seed(2))  # (batch, len, d_model)
perm = torch.tensor([3, 0, 5, 1, 4, 2])
with torch.no_grad():
    out, weights = attention(x, x, x)  # (1, 6, d_model), (1, num_heads, 6, 6)
    out_p, weights_p = attention(x[:, perm], x[:, perm], x[:, perm])
same_outputs = torch.allclose(out_p, out[:, perm], atol=1e-6)
same_weights = torch.allclose(weights_p, weights[:, :, perm][:, :, :, perm], atol=1e-6)
print("outputs:  f(shuffled x) == shuffled f(x)?", same_outputs)
print("weights:  rows and columns shuffled the same way?", same_weights)

# %% [markdown]
# Two remarks, because popular explanations blur them:
#
# * Some write-ups call the Transformer permutation **invariant**. Invariant would
#   mean the output does not change at all when the input is shuffled. That is true
#   only of something pooled over all positions (say, the mean of the outputs). The
#   per-token outputs are **equivariant**: they move along with their tokens. Either
#   way, the model cannot tell *dog bites man* from *man bites dog*.
# * A decoder's causal mask (lesson 06) does break the symmetry: position 3 sees
#   three earlier tokens, position 10 sees ten. Language models trained without any
#   positional encoding can exploit that to recover some sense of position, but the
#   encoder has no such mask, and the paper gives both stacks explicit positions.
#
# ## 2. How to tell a model where a token is
#
# The fix is to make the input vector of a token depend on its position as well as
# on the word. What should the position signal look like?
#
# * **The index itself**, `pos` = 0, 1, 2, ...: grows without bound. Position 500
#   would swamp the word's features, and a model trained on short sentences never
#   saw such values.
# * **A fraction**, `pos / (len - 1)`: bounded, but "0.5" means token 2 in a 5-token
#   sentence and token 50 in a 101-token one: the distance between neighbours
#   depends on the sentence length.
# * **A learned table**: one trainable vector per position, just like word
#   embeddings (BERT and GPT-2 do this). It works well, but it knows nothing about
#   positions beyond the longest training sequence.
# * **A fixed pattern of waves**: the paper's choice. Think of how a binary counter
#   writes numbers: the lowest bit flips at every step, the next every two steps,
#   the next every four. Each position gets a unique pattern of bits, and nearby
#   numbers share their slow bits. Sinusoids do the same thing smoothly: a fast wave
#   distinguishes neighbours, slow waves locate a token coarsely, and all values
#   stay between -1 and 1.
#
# The paper reports that learned position embeddings gave "nearly identical
# results" (its Table 3, row E); it chose sinusoids because they might let the model
# handle sequences longer than any seen in training, and because of a neat
# property you will prove in section 4.
#
# ## 3. The sinusoidal table
#
# The features of a position vector come in **pairs** $(2i, 2i+1)$, for
# $i = 0, 1, \dots$ Pair $i$ holds the sine and the cosine of one angle, which
# grows in proportion to the position:
#
# $$
# PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{\text{model}}}}\right),
# \qquad
# PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{\text{model}}}}\right).
# $$
#
# Write $\omega_i = 1 / 10000^{2i/d_{\text{model}}}$ for the **frequency** of pair
# $i$: the angle is $\omega_i \cdot pos$. Its **wavelength**, the number of
# positions after which the pair repeats, is $2\pi/\omega_i = 2\pi \cdot
# 10000^{2i/d_{\text{model}}}$. As $i$ goes from 0 to $d_{\text{model}}/2 - 1$ the
# exponent $2i/d_{\text{model}}$ climbs from 0 to just under 1, so the wavelengths
# form a geometric progression from $2\pi \approx 6.3$ positions (pair 0) up to
# almost $10000 \cdot 2\pi \approx 63{,}000$ positions (the last pair).
#
# **Worked example**, $d_{\text{model}} = 4$: two pairs, with frequencies
# $\omega_0 = 1$ and $\omega_1 = 1/10000^{2/4} = 1/100$.
#
# | pos | feature 0: $\sin(pos)$ | feature 1: $\cos(pos)$ | feature 2: $\sin(pos/100)$ | feature 3: $\cos(pos/100)$ |
# |---|---|---|---|---|
# | 0 | 0 | 1 | 0 | 1 |
# | 1 | 0.8415 | 0.5403 | 0.0100 | 0.99995 |
# | 2 | 0.9093 | -0.4161 | 0.0200 | 0.9998 |
#
# Row 0 is always $0, 1, 0, 1, \dots$ because $\sin 0 = 0$ and $\cos 0 = 1$.
#
# Read the formula carefully; it is easy to misread:
#
# * $i$ numbers the **pairs of features**, not the positions, and "even" and "odd"
#   refer to **feature** indices $2i$ and $2i+1$. (One well-known explanation says
#   that $i$ "distinguishes between odd and even positions" and that the wavelength
#   depends on the position in the sentence; neither is right. The wavelength
#   depends only on the feature pair; the position sets how far along the wave you
#   are.)
# * The cosine in feature $2i+1$ uses the **same** angle as the sine in feature
#   $2i$: the exponent is $2i/d_{\text{model}}$ for both, not $(2i+1)/d_{\text{model}}$.
# * If your loop runs over the even feature indices (`range(0, d_model, 2)`), the
#   loop variable already **is** $2i$: don't double it again.
# * If $d_{\text{model}}$ is odd, the last feature ($d_{\text{model}} - 1$, an even
#   index) is a sine whose cosine partner would fall outside the vector: it is simply
#   left unpaired.
#
# ### Exercise 1: `positional_encoding`
# *3 points · about 20 min · core*
#
# Return the table as a numpy array of shape `(max_len, d_model)`, row `pos` being
# the encoding of position `pos` (positions start at 0). Any float dtype is fine
# (the reference uses numpy's default, float64; a float32 table gets a note). An odd
# `d_model` must work too. Loops over positions and features are fine, just slower
# than array operations.
#
# <details><summary>Hint 1</summary>
#
# Compute all the angles first, one per (position, pair), then take their sines and
# cosines. How many pairs are there when `d_model` is even, and when it is odd?
#
# </details>
#
# <details><summary>Hint 2</summary>
#
# With broadcasting, a column of positions, shape `(max_len, 1)`, divided by a row
# of denominators $10000^{2i/d_{model}}$, shape `(ceil(d_model / 2),)`, gives every
# angle at once. `np.arange` with a step of 2 produces the even feature indices,
# which are exactly the values $2i$.
#
# </details>
#
# <details><summary>Hint 3</summary>
#
# Start from a table of zeros. Slicing with a step, `[:, start::2]`, selects every
# other column: the even ones for the sines, the odd ones for the cosines. With an
# odd `d_model` there is one odd column fewer than there are angles, so the cosines
# use all but the last angle.
#
# </details>


# %% nbgrader={"solution": true, "grade_id": "positional_encoding"}
def positional_encoding(max_len: int, d_model: int) -> np.ndarray:
    """The sinusoidal position table of the paper (section 3.5).

    Returns a numpy array of shape (max_len, d_model) where, for
    pos = 0 .. max_len-1 and each pair index i:
        PE[pos, 2i]   = sin(pos / 10000^(2i / d_model))
        PE[pos, 2i+1] = cos(pos / 10000^(2i / d_model))
    Works for odd d_model too: the last feature is then a sine without a cosine partner.
    The reference returns float64; any float dtype is accepted (float32 with a note).
    """
    ### BEGIN SOLUTION
    positions = np.arange(max_len, dtype=np.float64)[:, None]  # (max_len, 1)
    two_i = np.arange(0, d_model, 2, dtype=np.float64)  # (ceil(d_model / 2),)
    angles = positions / np.power(10000.0, two_i / d_model)  # (max_len, ceil(d_model / 2))
    pe = np.zeros((max_len, d_model))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])  # an odd d_model has one cosine fewer
    return pe
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_positional_encoding", "points": 3}
check_positional_encoding(positional_encoding)
### BEGIN HIDDEN TESTS
check_positional_encoding(positional_encoding, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Looking at the table
#
# The next cell draws your table for 100 positions and $d_{\text{model}} = 64$ as a
# heatmap: positions down, features across, blue for +1 and red for −1.
#
# **Predict, then check.** Before you run it: will the left columns (pair 0, 1, ...)
# or the right columns change faster as you go down the positions? What will the
# right half look like, given that its wavelengths are thousands of positions long?
# And what does row 0 look like?

# %%
pe_style = {"cmap": "RdBu", "vmin": -1, "vmax": 1, "ylabel": "position"}  # blue +1, red -1
try:
    table = positional_encoding(100, 64)  # (max_len, d_model)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    heatmap(
        table,
        ax=ax,
        title="PE: 100 positions × 64 features",
        xlabel="feature (0 = sin of pair 0, 1 = cos of pair 0, 2 = sin of pair 1, ...)",
        **pe_style,
    )
    plt.show()
except NotImplementedError:
    print("positional_encoding is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# Each column is one wave sampled at the integer positions. On the left, pair 0
# oscillates with a period of about 6 positions, so neighbouring rows look
# different; moving right, the waves slow down, and in the right half they barely
# move over 100 positions: the sines stay near 0 and the cosines near 1, which gives
# the vertical stripes. Row 0 alternates 0, 1, 0, 1. The left columns pin down a
# position finely; the right columns locate it coarsely on a long scale.
#
# ### Explore the table
#
# Pick a position and a feature. The figure marks them on the table (here drawn by
# the course's reference `positional_encoding`, so that it works whatever state your
# exercise is in), then plots that feature's wave over all positions and the whole
# vector of that position. Try feature 0 against feature 40 with the position
# slider: one wave races, the other barely moves. In JupyterLab the sliders are
# live; a graded or headless run draws one static figure.

# %%
from transformer_course.reference import positional_encoding as ref

explorer_table = ref.positional_encoding(100, 64)  # (max_len, d_model)


def draw_explorer(position: int, feature: int) -> None:
    """The table with one position and one feature marked, and their two slices."""
    pair = feature // 2
    wavelength = 2 * np.pi * 10000 ** (2 * pair / 64)
    kind = "sin" if feature % 2 == 0 else "cos"
    fig, (left, middle, right) = plt.subplots(
        1, 3, figsize=(14, 3.8), gridspec_kw={"width_ratios": [5, 4, 4]}
    )
    heatmap(explorer_table, ax=left, title="PE (d_model = 64)", xlabel="feature", **pe_style)
    left.axhline(position, color="gold", linewidth=1.5)
    left.axvline(feature, color="gold", linewidth=1.5)
    middle.plot(explorer_table[:, feature], color="C0")
    middle.plot(position, explorer_table[position, feature], "o", color="black")
    middle.set_ylim(-1.1, 1.1)
    middle.set_xlabel("position")
    middle.set_ylabel(f"PE[pos, {feature}]")
    middle.set_title(f"feature {feature} = {kind} of pair {pair}, wavelength {wavelength:,.1f}")
    right.bar(np.arange(64), explorer_table[position], color="C1")
    right.axvline(feature, color="black", linewidth=1)
    right.set_ylim(-1.1, 1.1)
    right.set_xlabel("feature")
    right.set_ylabel(f"PE[{position}, feature]")
    right.set_title(f"the vector of position {position}")
    fig.tight_layout()


interactive_or_static(
    draw_explorer,
    {"position": 10, "feature": 6},
    position=(0, 99, 1),
    feature=(0, 63, 1),
)

# %% [markdown]
# The same thing one column at a time, and the wavelengths of all pairs. Some
# explanations label such column slices as different model "layers" or "depths";
# they are not. All 64 columns belong to **one** vector, the input to the first
# layer; "depth" there just means the feature index.

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.4))
for feature in (4, 11, 20, 40):  # sin of pair 2, cos of pair 5, sin of pair 10, sin of pair 20
    left.plot(explorer_table[:, feature], label=f"feature {feature}")  # the reference's table
left.set_xlabel("position")
left.set_ylabel("PE[pos, feature]")
left.set_title("a few columns of the table")
left.set_ylim(-1.1, 1.5)
left.legend(fontsize=8, loc="upper center", ncol=4)

d_model_paper = 512
pairs = np.arange(d_model_paper // 2)
wavelengths = 2 * np.pi * 10000.0 ** (2 * pairs / d_model_paper)
right.semilogy(pairs, wavelengths)
right.axhline(2 * np.pi, color="gray", linestyle=":")
right.axhline(10000 * 2 * np.pi, color="gray", linestyle=":")
right.set_xlabel("pair index i")
right.set_ylabel("wavelength (positions)")
right.set_title(f"wavelengths for d_model = {d_model_paper}: 2π ... almost 10000·2π")
fig.tight_layout()
plt.show()
print(f"shortest wavelength {wavelengths[0]:.2f} positions, longest {wavelengths[-1]:,.0f}")
print(f"(for comparison, 10000·2π = {10000 * 2 * np.pi:,.0f})")

# %% [markdown]
# A straight line on a log scale: each pair's wavelength is a fixed factor
# ($10000^{2/d_{\text{model}}} \approx 1.036$ for 512 features) longer than the last.
#
# ## 4. Why sines *and* cosines: shifting is a rotation
#
# The paper justifies its choice in one sentence: *"for any fixed offset $k$,
# $PE_{pos+k}$ can be represented as a linear function of $PE_{pos}$."* Here is what
# that means and why it holds.
#
# Take one pair, with angle $a = \omega_i \cdot pos$. Moving $k$ positions adds
# $b = \omega_i \cdot k$ to the angle, and the angle-addition formulas say
#
# $$
# \sin(a + b) = \sin a \cos b + \cos a \sin b, \qquad
# \cos(a + b) = \cos a \cos b - \sin a \sin b.
# $$
#
# The right-hand sides are **linear** in $(\sin a, \cos a)$, with coefficients that
# depend on $b$ only, that is on the offset $k$ and not on $pos$. In matrix form,
# $[\sin(a+b),\ \cos(a+b)] = [\sin a,\ \cos a]\, B$ for a $2 \times 2$ matrix $B$: a
# rotation of the pair by the angle $\omega_i k$, like moving the hand of a clock.
# Each pair has its own clock, running at its own speed $\omega_i$.
#
# Stack the $d_{\text{model}}/2$ rotations along the diagonal of a
# $d_{\text{model}} \times d_{\text{model}}$ matrix $M$ (zeros elsewhere), and
# $PE_{pos+k} = PE_{pos}\, M$ for **every** position at once. The same $M$ works at
# position 3 and at position 3000. That is what makes offsets easy for attention
# to use: a query vector is a linear map of its input, so a head can learn a
# projection that, in effect, asks "what is 2 positions to my left?" the same way
# everywhere in the sentence.
#
# This needs both functions. With the sine alone, $\sin(a+b)$ is not even determined
# by $\sin a$: the angles $a$ and $\pi - a$ have the same sine, but after adding $b$
# their sines differ. The cosine carries the missing information, and with it the
# shift becomes linear.
#
# ### Exercise 2: `relative_shift`
# *2 points · about 25 min · challenging*
#
# Build $M$ for a shift by `k` positions (`k` may be negative or zero). Mind the
# conventions: a row of the table is a **row vector** multiplied from the left,
# `PE[pos] @ M`, and within pair $i$ the sine comes first (feature $2i$), then the
# cosine (feature $2i+1$). An odd `d_model` leaves a sine without its cosine, and no
# matrix can shift it (you would need $\cos a$, which is not in the vector): raise a
# `ValueError` that says so. Any float dtype is fine (float64 is the reference's).
#
# <details><summary>Hint 1</summary>
#
# Work on one pair first, on paper. The row vector is $[\sin a,\ \cos a]$ and the
# product $[\sin a,\ \cos a]\,B$ must be $[\sin(a+b),\ \cos(a+b)]$. Column 0 of $B$
# produces the first output entry, column 1 the second.
#
# </details>
#
# <details><summary>Hint 2</summary>
#
# Matching $\sin(a+b) = \sin a \cos b + \cos a \sin b$ with column 0 gives
# $B_{00} = \cos b$ and $B_{10} = \sin b$; the cosine formula fills column 1 the
# same way, one entry with a minus sign. Here $b = \omega_i k$, a different angle
# for every pair.
#
# </details>
#
# <details><summary>Hint 3</summary>
#
# Start from a `(d_model, d_model)` matrix of zeros and write the four entries of
# each pair's block at rows and columns $2i$ and $2i+1$: in a loop over the pairs, or
# all at once by indexing with an array of the even indices (and that array plus 1).
#
# </details>


# %% nbgrader={"solution": true, "grade_id": "relative_shift"}
def relative_shift(k: int, d_model: int) -> np.ndarray:
    """The matrix M (d_model, d_model) with PE[pos + k] = PE[pos] @ M for every pos.

    Block diagonal: the 2x2 block on features (2i, 2i+1) rotates pair i by the angle
    w_i * k, where w_i = 1 / 10000^(2i / d_model); every entry outside these blocks is 0.
    k is any integer (negative k shifts backwards). Raises ValueError if d_model is odd.
    The reference returns float64; any float dtype is accepted (float32 with a note).
    """
    ### BEGIN SOLUTION
    if d_model % 2:
        raise ValueError(f"relative_shift needs an even d_model, got {d_model}")
    two_i = np.arange(0, d_model, 2)  # (d_model / 2,)
    theta = k / np.power(10000.0, two_i / d_model)  # the rotation angle of each pair
    m = np.zeros((d_model, d_model))
    m[two_i, two_i] = np.cos(theta)  # sin a -> sin a cos b ...
    m[two_i + 1, two_i] = np.sin(theta)  # ... + cos a sin b
    m[two_i, two_i + 1] = -np.sin(theta)  # cos a -> -sin a sin b ...
    m[two_i + 1, two_i + 1] = np.cos(theta)  # ... + cos a cos b
    return m
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_relative_shift", "points": 2}
check_relative_shift(relative_shift)
### BEGIN HIDDEN TESTS
check_relative_shift(relative_shift, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### The shift in action
#
# From here on the demos use the course's **reference implementation**
# (`transformer_course.reference.positional_encoding`, imported as `ref` above) rather
# than your functions, so that a slip in an exercise cannot spoil the pictures. Your
# own versions are graded by the test cells above.
#
# First, the property itself, for many positions and offsets at once: one matrix
# per offset moves every row of the table.

# %%
pe = ref.positional_encoding(200, 32)  # (max_len, d_model)
for k in (1, 5, -3, 40):
    m = ref.relative_shift(k, 32)  # (d_model, d_model)
    rows = np.arange(max(0, -k), 200 - max(0, k))  # positions where pos + k is in the table
    error = np.abs(pe[rows] @ m - pe[rows + k]).max()
    print(f"k = {k:+3d}: max |PE[pos] @ M - PE[pos + k]| over {len(rows)} positions = {error:.1e}")

# %% [markdown]
# ### Question 1: which shifts are linear?
# *1 point · about 3 min · core*
#
# The paper says that "for any fixed offset $k$, $PE_{pos+k}$ can be represented as
# a linear function of $PE_{pos}$". For which offsets `k` is there a matrix $M$
# with $PE_{pos+k} = PE_{pos}\, M$, and what does that matrix depend on?
#
# * **a)** Only $k = 1$: one step is a rotation, but a longer shift needs a
#   non-linear map.
# * **b)** Every $k > 0$, but not $k < 0$: moving backwards cannot be a rotation.
# * **c)** Every integer $k$ (positive, negative or zero), with one matrix per $k$
#   that works at every position.
# * **d)** Every $k$, but the matrix depends on `pos` as well, so each position
#   needs its own.
#
# Make `quiz_shift` return your letter.


# %% nbgrader={"solution": true, "grade_id": "quiz_shift"}
def quiz_shift() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "c"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_shift", "points": 1}
check_quiz_shift(quiz_shift)
### BEGIN HIDDEN TESTS
check_quiz_shift(quiz_shift, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Each pair is a point on the unit circle (cosine across, sine up). Every step
# forward in position turns pair $i$ by the same angle $\omega_i$: pair 0 by one
# radian (about 57°), so it laps the circle in about 6 steps; pair 1 of a
# 16-feature table by $1/10000^{2/16} \approx 0.32$ radians (18°), so after 12
# steps it has gone just over half way round. Shifting by $k$ turns every clock hand
# by $k$ of its own steps: that is the matrix $M$.

# %%
pe16 = ref.positional_encoding(13, 16)  # (max_len, d_model)
fig, axes = plt.subplots(1, 2, figsize=(9.5, 4), layout="constrained")
circle = np.linspace(0, 2 * np.pi, 200)
for ax, pair in zip(axes, (0, 1)):
    sin, cos = pe16[:, 2 * pair], pe16[:, 2 * pair + 1]  # (max_len,) each
    ax.plot(np.cos(circle), np.sin(circle), color="lightgray")
    points = ax.scatter(cos, sin, c=np.arange(13), cmap="viridis", zorder=3)
    for pos in (0, 1, 2, 3, 12):
        label_at = (cos[pos], sin[pos])
        ax.annotate(f"pos {pos}", label_at, fontsize=8, xytext=(5, 3), textcoords="offset points")
    ax.set_aspect("equal")
    ax.set_xlabel(f"feature {2 * pair + 1} (cos)")
    ax.set_ylabel(f"feature {2 * pair} (sin)")
    ax.set_title(f"pair {pair}: {np.degrees(1 / 10000 ** (2 * pair / 16)):.0f}° per position")
fig.colorbar(points, ax=axes, label="position", fraction=0.03)
plt.show()

# %% [markdown]
# ### Question 2: how long is a row?
# *1 point · about 3 min · core*
#
# Every entry of the table lies between −1 and 1. What is the **length** (the
# Euclidean norm, `np.linalg.norm`) of one row of the table when
# $d_{\text{model}} = 128$? Does it depend on the position? Make `quiz_row_length`
# return the number (think it through before you compute it).


# %% nbgrader={"solution": true, "grade_id": "quiz_row_length"}
def quiz_row_length() -> float:
    """Your answer to Question 2: the length of a row of the table for d_model = 128."""
    ### BEGIN SOLUTION
    return 8.0
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_row_length", "points": 1}
check_quiz_row_length(quiz_row_length)
### BEGIN HIDDEN TESTS
check_quiz_row_length(quiz_row_length, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Similar positions, similar vectors
#
# The dot product of two rows depends only on how far apart they are. Pair by
# pair, $\sin a \sin a' + \cos a \cos a' = \cos(a - a')$, so
#
# $$
# PE_{p} \cdot PE_{q} = \sum_i \cos\big(\omega_i\,(p - q)\big).
# $$
#
# At distance 0 every term is 1, so every row has the same squared length,
# $d_{\text{model}}/2$. As the distance grows, the fast pairs fall out of step
# first and the sum drops; the slow pairs stay in step for a long time.
#
# **Predict, then check.** The next figure shows all dot products `PE[p] · PE[q]` for
# 100 positions, and the curve `PE[0] · PE[k]` against `k`. What value will the
# diagonal $p = q$ have for $d_{\text{model}} = 64$? Will the curve fall smoothly to
# zero, or not?

# %%
pe64 = ref.positional_encoding(100, 64)  # (max_len, d_model)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
heatmap(
    pe64 @ pe64.T,
    ax=left,
    title="PE[p] · PE[q]  (d_model = 64)",
    xlabel="position q",
    ylabel="position p",
    cmap="viridis",
)
offsets = np.arange(100)
right.plot(offsets, pe64[0] @ pe64.T, label="PE[0] · PE[k]")
right.plot(offsets, pe64[50] @ pe64.T, label="PE[50] · PE[k]", alpha=0.7)
right.set_xlabel("position k")
right.set_ylabel("dot product")
right.set_title("dot products fall off with distance")
right.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# The diagonal is 32 everywhere ($d_{\text{model}}/2$: each pair adds $\cos 0 = 1$).
# The decline is gradual, with ripples rather than a clean decay, and it does not
# reach zero within 100 positions: the slow pairs are still almost in step and keep
# adding nearly 1 each. The heatmap is constant along each diagonal, the signature
# of a quantity that depends on $p - q$ only.
#
# Notice also that the curve for position 50 is symmetric: the dot product cannot tell
# "3 to the left" from "3 to the right", because cosine is an even function. The
# attention *score* between positions $p$ and $q$ is not a bare dot product,
# though: it goes through the learned projections, $PE_p W^Q (PE_q W^K)^\top$, and
# a suitable $W^Q {W^K}^\top$ mixes sines with cosines and produces terms like
# $\sin(\omega_i (p - q))$, which *do* have a sign. The model can learn directions.
#
# ## 5. Adding the encoding to the embeddings
#
# The encoder and decoder both start the same way: look up the token embeddings
# (lesson 02), **add** the positional encoding, apply dropout. Several details:
#
# * **Added, not concatenated.** Concatenating would widen every vector and every
#   weight matrix of the model. In a space of $d_{\text{model}} = 512$ dimensions the
#   model can learn to keep word and position information in nearly separate
#   directions even when they are summed; the paper adds, and so does nearly every
#   implementation since.
# * **Scale.** Each entry of the table lies in $[-1, 1]$, and every row has length
#   $\sqrt{d_{\text{model}}/2}$ (16 for $d_{\text{model}} = 512$). That is not small:
#   an embedding initialised with entries of size about $1/\sqrt{d_{\text{model}}}$
#   has length about 1. The paper multiplies the embeddings by
#   $\sqrt{d_{\text{model}}}$ (section 3.4; our `TokenEmbedding` from lesson 02 does
#   it), which puts words and positions on a comparable footing. That scaling
#   belongs to the embedding, not to this module.
# * **A buffer, not a parameter.** The table is fixed. Registering it as a *buffer*
#   (`nn.Module.register_buffer`) makes it part of the module (it moves with
#   `.to(device)` and is saved in the state dict) without handing it to the
#   optimiser. An `nn.Parameter` would be trained. (`register_buffer(...,
#   persistent=False)` keeps it out of the state dict, since `__init__` rebuilds it
#   from the formula anyway; that is accepted too.)
# * **Computed once, sliced per batch.** The table is built for `max_len` positions
#   in `__init__`; a batch of length `len` uses its first `len` rows. Stored with a
#   batch axis of size 1, `(1, max_len, d_model)`, its first `len` rows form a
#   `(1, len, d_model)` block that broadcasts over the batch. (Older PyTorch
#   tutorials store it as `(max_len, 1, d_model)` because they keep sequences as
#   `(len, batch, d_model)`; this course is batch-first everywhere.)
# * **Dropout on the sum.** The paper applies dropout "to the sums of the embeddings
#   and the positional encodings" (section 5.4, with $P_{drop} = 0.1$): dropout acts
#   on `x + pe`, not on `x` before the addition.
#
# ### Exercise 3: `PositionalEncoding`
# *2 points · about 20 min · core*
#
# Write the module. Build the table in `__init__` with **your own**
# `positional_encoding` from exercise 1 (so do exercise 1 first: if the table comes
# out wrong, the check says which mistake of exercise 1 it looks like). Keep it as a
# float32 tensor in a buffer; `(1, max_len, d_model)` under the name `pe` is the
# course's layout, and any layout that broadcasts correctly works. In `forward`, add
# the first `len` rows to `x` and apply dropout to the sum. Don't modify `x` in place.
# A plain attribute (`self.pe = table`) is not a buffer: `.to(device)`, `.half()` and
# `state_dict()` do not see it, and the check converts your module with
# `.to(torch.bfloat16)` to tell the two apart.
#
# The check runs your module with dropout off, then with `dropout=0.5` in eval mode
# (nothing may be dropped), `dropout=0.0` in training mode (the same as eval) and
# `dropout=1.0` in training mode (everything dropped): checks that do not depend on
# which entries a random draw happens to drop.
#
# <details><summary>Hint 1</summary>
#
# `positional_encoding` returns a numpy array; `torch.tensor(array, dtype=...)` turns
# it into a tensor of the dtype you ask for, and `.unsqueeze(0)` adds an axis of
# size 1 in front.
#
# </details>
#
# <details><summary>Hint 2</summary>
#
# `x.shape[1]` (or `x.size(1)`) is `len`. Slicing the stored table along its
# *position* axis, the second one of a `(1, max_len, d_model)` tensor, leaves its
# batch axis of size 1, which broadcasts over the batch.
#
# </details>
#
# <details><summary>Hint 3</summary>
#
# Create the `nn.Dropout(dropout)` module in `__init__` and call it on `x + rows` in
# `forward`. A module, unlike the function `F.dropout`, follows `model.train()` and
# `model.eval()` by itself.
#
# </details>


# %% nbgrader={"solution": true, "grade_id": "PositionalEncoding"}
class PositionalEncoding(nn.Module):
    """Adds the sinusoidal encoding to a batch of embeddings, then applies dropout.

    forward(x): x (batch, len, d_model), len <= max_len  ->  dropout(x + PE[:len]),
    shape (batch, len, d_model), in x's dtype. The table PE (max_len, d_model) is
    built once in __init__ with positional_encoding (exercise 1) and kept fixed: in
    the course's layout, a float32 buffer named `pe` of shape (1, max_len, d_model)
    (register_buffer: converted by .to() and saved with the module, never trained;
    register_buffer(..., persistent=False), left out of state_dict, is accepted too,
    as the table is rebuilt from the formula in __init__).
    Other names and layouts that broadcast correctly, such as (max_len, d_model), are
    accepted too; a plain attribute (self.pe = table) is not, as .to() leaves it behind.
    """

    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.1):
        super().__init__()
        ### BEGIN SOLUTION
        self.dropout = nn.Dropout(dropout)
        table = torch.tensor(positional_encoding(max_len, d_model), dtype=torch.float32)
        self.register_buffer("pe", table.unsqueeze(0))  # (1, max_len, d_model)
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        length = x.shape[1]
        if length > self.pe.shape[1]:
            raise ValueError(f"sequence length {length} exceeds max_len={self.pe.shape[1]}")
        return self.dropout(x + self.pe[:, :length])  # (batch, len, d_model)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_PositionalEncoding", "points": 2}
check_PositionalEncoding(PositionalEncoding)
### BEGIN HIDDEN TESTS
check_PositionalEncoding(PositionalEncoding, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Order, restored
#
# Back to the experiment of section 1, with the same attention layer and the same
# word vectors, but now the reference `PositionalEncoding` adds each position's
# vector first (dropout off). The word vectors here are random with entries of size
# about 1, already on the scale of the encoding.
#
# **Predict, then check.** Will *dog* now get the same output in both sentences?
# Will the shuffled sentence still give shuffled outputs?

# %%
add_positions = ref.PositionalEncoding(d_model, max_len=50, dropout=0.0).eval()
with torch.no_grad():
    p1, p2 = add_positions(x1), add_positions(x2)  # (1, 3, d_model): words + positions
    out1, weights1 = attention(p1, p1, p1)
    out2, weights2 = attention(p2, p2, p2)
dog_difference = float((out1[0, 0] - out2[0, 2]).abs().max())
print("'dog' in 'dog bites man' vs in 'man bites dog', largest difference:", dog_difference)

with torch.no_grad():
    xp = add_positions(x)  # the six tokens in their original order, plus positions
    xp_shuffled = add_positions(x[:, perm])  # the shuffled tokens, plus positions 0..5
    out, _ = attention(xp, xp, xp)
    out_p, _ = attention(xp_shuffled, xp_shuffled, xp_shuffled)
print("f(shuffled x + PE) == shuffled f(x + PE)?", torch.allclose(out_p, out[:, perm], atol=1e-6))

fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
for ax, sentence, head_weights in zip(axes, sentences, (weights1, weights2)):
    tokens = sentence.split()
    title = f"with positions: '{sentence}'"
    attention_heatmap(head_weights[0, 0], tokens, tokens, title=title, ax=ax)
fig.tight_layout()
plt.show()

# %% [markdown]
# Now *dog* gets a different output depending on where it stands, and the two
# weight matrices are no longer reorderings of each other. Positions are part of
# the input: a shuffled sentence is a different sentence.
#
# ## Common misconceptions
#
# * *"The Transformer is permutation invariant."* Without positions, its per-token
#   outputs are permutation-**equivariant**: they shuffle along with the input.
#   Either way it cannot use word order, which is why positions are added.
# * *"$i$ is the position" / "even and odd positions get sine and cosine."* $i$
#   numbers feature pairs; even and odd refer to features. The position is `pos`.
# * *"The cosine feature $2i+1$ uses exponent $(2i+1)/d_{\text{model}}$."* Both
#   members of a pair share the exponent $2i/d_{\text{model}}$: one angle, two
#   functions of it.
# * *"The columns of the heatmap are layers."* They are the features of a single
#   vector that enters the first layer.
# * *"The sin block then the cos block is the same thing."* Concatenating all sines
#   and then all cosines (as tensor2tensor does) is a fixed reordering of the
#   features: it carries the same information and works as well, but it is not the
#   paper's interleaved layout, and it gives different numbers.
# * *"Positional encodings are small constants."* The entries are bounded by 1, but
#   each row has length $\sqrt{d_{\text{model}}/2}$; that is why the embeddings are
#   scaled by $\sqrt{d_{\text{model}}}$.
# * *"Sinusoids let a Transformer handle any length."* The table can be computed for
#   any length, but models trained on short sequences still tend to do poorly on
#   much longer ones. Later schemes address this: relative position biases (ALiBi),
#   and rotary embeddings (RoPE), which apply exactly your `relative_shift`
#   rotations to the queries and keys inside each attention layer.
#
# ## Summary
#
# * Attention by itself ignores order: shuffle the tokens and the outputs shuffle
#   along (permutation equivariance).
# * The paper adds a fixed vector to each token:
#   $PE_{(pos,2i)} = \sin(pos/10000^{2i/d_{\text{model}}})$ and
#   $PE_{(pos,2i+1)} = \cos(pos/10000^{2i/d_{\text{model}}})$, with wavelengths in a
#   geometric progression from $2\pi$ to almost $10000 \cdot 2\pi$.
# * Sine and cosine together make a shift by $k$ positions a rotation of each pair
#   by $\omega_i k$: one fixed matrix $M$ with $PE_{pos+k} = PE_{pos} M$ for every
#   position. Dot products between positions depend only on their distance.
# * `PositionalEncoding` stores the table as a float32 buffer `(1, max_len,
#   d_model)`, adds its first `len` rows to the scaled embeddings, and applies dropout
#   to the sum.
#
# ## Further reading
#
# * Vaswani et al., [*Attention Is All You Need*](https://arxiv.org/abs/1706.03762),
#   section 3.5 "Positional Encoding" (the formula and the one-sentence reason for
#   it), section 3.4 (the $\sqrt{d_{model}}$ scaling of the embeddings it is added
#   to), section 5.4 (dropout on the sums) and Table 3, row E (learned positions
#   do as well).
# * Amirhossein Kazemnejad, [*Transformer Architecture: The Positional
#   Encoding*](https://kazemnejad.com/blog/transformer_architecture_positional_encoding/):
#   the intuition (the binary-counter analogy) and the proof of the rotation
#   property, written out step by step; the best companion to section 4.
# * Zhang et al., *Dive into Deep Learning*, [section "Self-Attention and Positional
#   Encoding"](https://d2l.ai/chapter_attention-mechanisms-and-transformers/self-attention-and-positional-encoding.html):
#   the same table with runnable code and plots, plus a comparison of CNNs, RNNs and
#   self-attention (path lengths, parallelism).
# * Rush et al., [*The Annotated Transformer*](https://nlp.seas.harvard.edu/annotated-transformer/),
#   "Positional Encoding": the module as the reference PyTorch implementation writes
#   it (the exp/log form of the frequencies, the buffer, dropout on the sum).
# * Su et al., [*RoFormer: Enhanced Transformer with Rotary Position
#   Embedding*](https://arxiv.org/abs/2104.09864): rotary embeddings, which apply
#   your `relative_shift` rotations to queries and keys; and Press et al., [*Train
#   Short, Test Long* (ALiBi)](https://arxiv.org/abs/2108.12409), on why sinusoids
#   alone do not make models work on longer inputs.
#
# Next, lesson 04 builds the attention that these position-aware vectors feed into.
