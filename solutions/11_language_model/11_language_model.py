# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 11 · A GPT of your own
#
# **Time:** about 3½ hours: 171 minutes for the nine exercises and two questions, the
# rest for reading, a five-minute training run and the experiments.
#
# Lessons 00–10 built the Transformer of 2017, an encoder and a decoder that translate.
# The language models you use every day are **decoder-only**: one stack of causal
# self-attention layers that reads a text and predicts its next token, over and over.
# They keep the 2017 design almost whole; what changed is a handful of parts, each of
# which you build here and check against a trusted reference:
#
# * **RMSNorm** instead of LayerNorm (Zhang and Sennrich, 2019): no mean, no bias;
# * **rotary position embeddings** (RoPE, Su et al., 2021) instead of sinusoids added to
#   the input: queries and keys are *rotated* by an angle that grows with the position;
# * the **SwiGLU** feed-forward block (Shazeer, 2020) instead of ReLU;
# * **pre-norm** residual blocks, a final norm, and an output layer **tied** to the
#   token embedding (as in GPT-2, Gemma and Llama 3.2 1B/3B; Llama 1 and 2 and Llama 3
#   8B/70B keep a separate output matrix);
# * and, to turn predictions into text, **sampling** with a temperature, top-k and top-p.
#
# Then the model trains on real text that is already on your computer, Python's own
# standard library, compresses Python it has never seen better than gzip, and writes
# some Python of its own.
#
# **By the end of this lesson you can**
#
# * cut a token stream into inputs and next-token targets (`next_token_batches`);
# * write RMSNorm and say how it differs from LayerNorm (`RMSNorm`);
# * compute RoPE's angles and rotate queries and keys with them, and prove that the
#   attention score then depends only on the distance between two tokens
#   (`rotary_embedding`, `apply_rotary`);
# * build the SwiGLU block, a causal self-attention with RoPE, a pre-norm decoder block
#   and a whole GPT, and prove that it cannot see the future (`SwiGLU`,
#   `CausalSelfAttention`, `DecoderBlock`, `GPT`);
# * sample from a model with temperature, top-k and top-p (`sample`), and read what a
#   small trained model attends to;
# * measure a language model as a compressor, in bits per byte, against gzip, bz2 and xz.
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. A test cell
# prints `✓ ...` when your code is right and explains what is wrong when it is not; the
# hints under each exercise open one at a time. Demos use the course's *reference*
# modules, so that they work whatever state your code is in; lessons 04–06's attention
# and masks are the reference versions too.
#
# Symbols (`transformer_course.glossary`): `batch`, `len` (tokens per sequence),
# `vocab` (the vocabulary size), `d_model`, `num_heads`, `d_head` (= `d_model //
# num_heads`), `d_ff`, `num_layers`, `block_size` (the training context length).

# %% nbgrader={"locked": true, "grade_id": "setup"}
import math
import time

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course import stdlib_corpus
from transformer_course.checkpoints import language_model as shipped_model
from transformer_course.checks.language_model import (
    check_apply_rotary,
    check_CausalSelfAttention,
    check_DecoderBlock,
    check_GPT,
    check_next_token_batches,
    check_quiz_rope_values,
    check_quiz_temperature,
    check_rotary_embedding,
    check_RMSNorm,
    check_sample,
    check_SwiGLU,
)
from transformer_course.plotting import attention_heads, heatmap, running_headless

# Earlier lessons, the reference versions: attention (04), heads (05), the causal
# mask (06) and lesson 10's progress bar.
from transformer_course.reference import language_model as ref
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.masking import look_ahead_mask
from transformer_course.reference.multi_head_attention import merge_heads, split_heads
from transformer_course.reference.training import progress_bar

torch.set_printoptions(precision=3, sci_mode=False)
torch.set_num_threads(1)  # small models run fastest on one thread (lesson 10, section 7)

# %% [markdown]
# ## 1. A language model predicts the next token
#
# A language model reads tokens $x_1, \dots, x_t$ and gives a probability to every
# possible next token $x_{t+1}$. Trained on a long text, it learns
# $p(x_{t+1} \mid x_1, \dots, x_t)$ by **minimising the cross-entropy** of the token that
# actually came next, at every position at once: a causal model's output at position
# $t$ may only depend on tokens $1..t$, so one forward pass over a block of
# `block_size` tokens gives `block_size` predictions, each a training example.
#
# The data is one long stream of token ids. A training batch is `batch_size` windows of
# `block_size` tokens starting at random places (the **inputs**) and the same windows
# moved one token to the right (the **targets**):
#
# ```
# stream:   t0  t1  t2  t3  t4  t5  t6  t7  t8 ...
# window at start s = 2, block_size = 4:
# inputs:          t2  t3  t4  t5
# targets:             t3  t4  t5  t6      targets[i] = inputs[i + 1], the next token
# ```
#
# A window starting at `s` needs the tokens up to `s + block_size` (its last target), so
# the last valid start is `len(tokens) - block_size - 1`.

# %% [markdown]
# ### Exercise 1: `next_token_batches`
# *2 points · about 15 min · warm-up*
#
# Draw the starts with `torch.randint` and the `generator` you are given (never the
# global random stream, so that a training run is reproducible whatever else runs),
# then gather the windows.
#
# <details><summary>Hint 1</summary>
#
# `torch.randint(low, high, size, generator=generator)` draws from `low` to `high - 1`.
# Which `high` makes `len(tokens) - block_size - 1` the largest start?
# </details>
#
# <details><summary>Hint 2</summary>
#
# `starts[:, None] + torch.arange(block_size)` is a `(batch_size, block_size)` table of
# positions; indexing `tokens` with it gathers every window at once (a loop with
# `torch.stack` is fine too).
# </details>


# %% nbgrader={"solution": true, "grade_id": "next_token_batches"}
def next_token_batches(
    tokens: torch.Tensor, block_size: int, batch_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random training windows from a token stream, and their next-token targets.

    tokens: int64 (num_tokens,), num_tokens > block_size. Draws batch_size starts with
    torch.randint(0, num_tokens - block_size, (batch_size,), generator=generator) (every
    start from 0 to num_tokens - block_size - 1 is possible) and returns
    (inputs, targets), each int64 (batch_size, block_size):
    inputs[b] = tokens[s_b : s_b + block_size], targets[b] = tokens[s_b + 1 : s_b + block_size + 1].
    Only `generator` supplies randomness; `tokens` is not modified.
    """
    ### BEGIN SOLUTION
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size)  # (batch_size, block_size)
    return tokens[positions], tokens[positions + 1]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_next_token_batches", "points": 2}
check_next_token_batches(next_token_batches)
### BEGIN HIDDEN TESTS
check_next_token_batches(next_token_batches, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 2. RMSNorm
#
# Lesson 07's LayerNorm subtracts each token's mean and divides by its standard
# deviation, then applies a gain and a bias. Zhang and Sennrich (2019) found that the
# re-centring does little: dividing by the **root mean square** is enough,
#
# $$\operatorname{RMSNorm}(x)_i = \frac{x_i}{\sqrt{\frac{1}{d}\sum_{j=1}^{d} x_j^2 + \varepsilon}}\;\gamma_i ,$$
#
# with one learned gain $\gamma$ (`weight`, initialised to ones) and no bias. It is
# cheaper (one statistic instead of two), and Llama, Mistral, Gemma and most models
# since use it. As in LayerNorm, the statistic is **per token**, over its `d_model`
# features, and $\varepsilon$ sits inside the square root.

# %% [markdown]
# ### Exercise 2: `RMSNorm`
# *2 points · about 15 min · core*
#
# Write the module as its docstring says (not with `nn.RMSNorm` or `F.rms_norm`, which
# is what it must equal).
#
# <details><summary>Hint 1</summary>
#
# `x.pow(2).mean(dim=-1, keepdim=True)` is one mean square per token, `(..., 1)`.
# </details>
#
# <details><summary>Hint 2</summary>
#
# `torch.rsqrt(t)` is `1 / torch.sqrt(t)`. Nothing is subtracted: that would be
# LayerNorm.
# </details>


# %% nbgrader={"solution": true, "grade_id": "RMSNorm"}
class RMSNorm(nn.Module):
    """Root-mean-square normalisation of each token's features (Zhang and Sennrich 2019).

    RMSNorm(d_model, eps=1e-5): a learned gain `weight` (d_model,) initialised to ones,
    no bias (state-dict key: weight only). forward(x): x (..., d_model) ->
    (..., d_model), x / sqrt(mean(x**2 over the last axis) + eps) * weight: equal to
    nn.RMSNorm(d_model, eps=eps) with the same weight.
    """

    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        ### BEGIN SOLUTION
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        mean_square = x.pow(2).mean(dim=-1, keepdim=True)  # (..., 1): one per token
        return x * torch.rsqrt(mean_square + self.eps) * self.weight
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_RMSNorm", "points": 2}
check_RMSNorm(RMSNorm)
### BEGIN HIDDEN TESTS
check_RMSNorm(RMSNorm, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Yours against PyTorch's, with the same gain:

# %%
gen = torch.Generator().manual_seed(0)
try:
    yours, theirs = RMSNorm(16), nn.RMSNorm(16, eps=1e-5)
    with torch.no_grad():
        yours.weight.copy_(1 + 0.3 * torch.randn(16, generator=gen))
        theirs.load_state_dict(yours.state_dict())
        x = 3 * torch.randn(4, 7, 16, generator=gen) + 1  # (batch, len, d_model)
        difference = (yours(x) - theirs(x)).abs().max().item()
    print(f"largest difference from nn.RMSNorm: {difference:.1e}")
except NotImplementedError:
    print("RMSNorm is not written yet: this cell compares it with nn.RMSNorm once it is.")

# %% [markdown]
# ## 3. Rotary position embeddings (RoPE)
#
# Lesson 03 *added* a sinusoid to each token's embedding. RoPE instead **rotates** the
# query and the key of every head, just before their dot product, by an angle
# proportional to the position. Cut a head's `d_head` features into `d_head / 2` pairs;
# pair $i$ of the vector at position $m$ turns by the angle $m\,\theta_i$, with
#
# $$\theta_i = \text{base}^{-2i/d_\text{head}}, \qquad i = 0, 1, \dots, d_\text{head}/2 - 1,
# \quad \text{base} = 10000 ,$$
#
# the same frequencies as lesson 03's sinusoids. Positions start at **0**: the first
# token is not rotated at all.
#
# Why rotate? A rotation by $m\theta$ followed by the dot product with a vector rotated
# by $n\theta$ is the dot product of the originals with a rotation by $(n - m)\theta$:
# $\langle R_m q, R_n k\rangle = \langle q, R_{n-m} k\rangle$. So the attention score
# of a query at $m$ and a key at $n$ depends on their **offset** $m - n$, never on where
# they sit in the text: the model learns relative positions for free, and the values
# (which are not rotated) carry content only.
#
# Two exercises: the angles (`rotary_embedding` returns their cosines and sines, one
# per position and pair), and the rotation (`apply_rotary`). Which two features form
# "pair $i$"? The paper (RoFormer) pairs neighbours, $(x_{2i}, x_{2i+1})$, and so does
# Meta's own Llama code, which views each neighbouring pair as one complex number and
# multiplies it by $e^{i m \theta_i}$. GPT-NeoX pairs feature $i$ with feature
# $i + d_\text{head}/2$ ("rotate half"), and so does Hugging Face's port of Llama, which
# permutes the rows of the query and key weights when it converts Meta's checkpoints so
# that rotate-half computes the same scores. It is the same rotation of a permuted
# vector, and faster to write with slicing. Both are correct, **as long as queries and
# keys use the same one**: this lesson's reference uses rotate-half, and the checks
# accept both (with a note).

# %% [markdown]
# ### Exercise 3: `rotary_embedding`
# *2 points · about 15 min · core*
#
# <details><summary>Hint 1</summary>
#
# `torch.arange(0, d_head, 2) / d_head` is $2i/d_\text{head}$ for every pair; the
# positions are `torch.arange(length)`. An outer product gives every angle.
# </details>


# %% nbgrader={"solution": true, "grade_id": "rotary_embedding"}
def rotary_embedding(
    length: int, d_head: int, base: float = 10000.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """RoPE's rotation angles for positions 0 .. length - 1.

    Returns (cos, sin), each float32 (length, d_head // 2): angle[m, i] = m * theta_i
    with theta_i = base ** (-2 i / d_head), i = 0 .. d_head // 2 - 1; d_head is even.
    """
    ### BEGIN SOLUTION
    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)  # (d_head/2,)
    angles = torch.arange(length, dtype=torch.float64)[:, None] * theta  # (length, d_head/2)
    return angles.cos().float(), angles.sin().float()
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_rotary_embedding", "points": 2}
check_rotary_embedding(rotary_embedding)
### BEGIN HIDDEN TESTS
check_rotary_embedding(rotary_embedding, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 4: `apply_rotary`
# *3 points · about 25 min · core*
#
# Rotate pair $i$ of the vector at position $m$, $(a, b)$, into
# $(a\cos m\theta_i - b\sin m\theta_i,\; a\sin m\theta_i + b\cos m\theta_i)$.
# The input has any number of leading axes; its last two are `(len, d_head)`, matching
# `cos` and `sin`.
#
# <details><summary>Hint 1</summary>
#
# Rotate-half: `a = x[..., : d_head // 2]`, `b = x[..., d_head // 2 :]`, and the result
# is `torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)`... almost: check that
# the shapes broadcast.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Adjacent pairs: `x[..., 0::2]` and `x[..., 1::2]`, rotated the same way, then
# interleaved back with `torch.stack([...], dim=-1).flatten(-2)`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "apply_rotary"}
def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate the feature pairs of x by RoPE's angles.

    x: (..., len, d_head) queries or keys (one head or many: (batch, num_heads, len,
    d_head)); cos, sin: (len, d_head // 2) from rotary_embedding. Pair i is
    (x[..., i], x[..., i + d_head // 2]) ("rotate half", as in GPT-NeoX and Hugging
    Face's Llama; adjacent pairs (x[..., 2i], x[..., 2i + 1]), as in the RoFormer paper
    and Meta's Llama code, are accepted too). Returns a tensor of x's shape and dtype; x
    is not modified.
    """
    ### BEGIN SOLUTION
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)  # (len, d_head/2)
    a, b = x[..., :half], x[..., half:]  # (..., len, d_head/2) each
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)  # (..., len, d_head)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_apply_rotary", "points": 3}
check_apply_rotary(apply_rotary)
### BEGIN HIDDEN TESTS
check_apply_rotary(apply_rotary, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# **Predict first.** Take one query vector and one key vector. Put the query at
# position $m$ and the key at $n$, rotate both, and take their dot product, for every
# $m$ and $n$ from 0 to 15. What does the $16 \times 16$ table of scores look like?

# %%
gen = torch.Generator().manual_seed(3)
d_head, length = 16, 16
q, k = torch.randn(d_head, generator=gen), torch.randn(d_head, generator=gen)
cos, sin = ref.rotary_embedding(length, d_head)  # (len, d_head/2) each
rotated_q = ref.apply_rotary(q.expand(length, d_head), cos, sin)  # q at every position m
rotated_k = ref.apply_rotary(k.expand(length, d_head), cos, sin)  # k at every position n
scores = rotated_q @ rotated_k.T  # (m, n)
ax = heatmap(
    scores,
    title="q·k after RoPE: constant along each diagonal",
    xlabel="key position n",
    ylabel="query position m",
    cmap="RdBu_r",
)
ax.images[-1].colorbar.set_label("score q·k (rotated)")
plt.show()
offsets = torch.arange(length)[:, None] - torch.arange(length)  # m - n
spread = max(
    (scores[offsets == d].max() - scores[offsets == d].min()).item() for d in range(-15, 16)
)
print(f"largest spread of the scores along one diagonal (same m - n): {spread:.1e}")

# %% [markdown]
# Every diagonal is constant: the score depends on $m - n$ only (the spread is float32
# rounding). Without RoPE the same table would be one number everywhere: the model
# could not tell near from far.

# %% [markdown]
# ### Question 1: what does RoPE rotate?
# *1 point · about 3 min · core*
#
# In a causal self-attention with RoPE, which vectors are rotated? Make
# `quiz_rope_values` return the letter.
#
# * (a) the token embeddings, before the first layer, as lesson 03's encoding is added
# * (b) queries, keys and values, so that the output carries the position too
# * (c) queries and keys only, after the heads are split, in every layer
# * (d) the attention weights, after the softmax


# %% nbgrader={"solution": true, "grade_id": "quiz_rope_values"}
def quiz_rope_values() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "c"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_rope_values", "points": 1}
check_quiz_rope_values(quiz_rope_values)
### BEGIN HIDDEN TESTS
check_quiz_rope_values(quiz_rope_values, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 4. The SwiGLU feed-forward block
#
# Lesson 07's block was $\max(0, xW_1 + b_1)W_2 + b_2$. Shazeer (2020) replaced the
# ReLU by a **gated linear unit**: two projections of $x$, one passed through the SiLU
# ($\operatorname{silu}(z) = z\,\sigma(z)$, also called swish) acting as a gate on the
# other,
#
# $$\operatorname{SwiGLU}(x) = W_2\big(\operatorname{silu}(W_1 x) \odot W_3 x\big),$$
#
# without biases (Llama's names: `w1` the gate, `w3` the value, `w2` back to
# `d_model`). Three matrices instead of two, so models shrink `d_ff` to about
# $\tfrac{8}{3}\,d_\text{model}$ to keep the parameter count.

# %% [markdown]
# ### Exercise 5: `SwiGLU`
# *2 points · about 15 min · core*
#
# <details><summary>Hint 1</summary>
#
# `F.silu` is the SiLU. Which of the two projections goes through it matters: the
# gate is `w1`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "SwiGLU"}
class SwiGLU(nn.Module):
    """The SwiGLU feed-forward block (Shazeer 2020; Llama's layout).

    SwiGLU(d_model, d_ff): three nn.Linear without bias, w1 (d_model -> d_ff, the gate),
    w3 (d_model -> d_ff, the value) and w2 (d_ff -> d_model). forward(x):
    x (..., d_model) -> w2(silu(w1(x)) * w3(x)), (..., d_model).
    """

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        ### BEGIN SOLUTION
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        return self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., d_ff) inside
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_SwiGLU", "points": 2}
check_SwiGLU(SwiGLU)
### BEGIN HIDDEN TESTS
check_SwiGLU(SwiGLU, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. Causal self-attention with RoPE
#
# The attention of a decoder-only model is lesson 05's multi-head self-attention with
# lesson 06's look-ahead mask, and two changes: the projections have **no bias** (as
# in Llama), and **RoPE** rotates the queries and keys of every head *after* the heads
# are split (the angles are those of `d_head`, not `d_model`), before the scores.
#
# ```
# x (batch, len, d_model) ─► w_q, w_k, w_v ─► split_heads ─► (batch, num_heads, len, d_head)
#                          q, k ─► apply_rotary(·, cos, sin)        v unchanged
#   scaled_dot_product_attention(q, k, v, look_ahead_mask(len)) ─► merge_heads ─► w_o
# ```
#
# Use the reference `split_heads`, `merge_heads` (lesson 05),
# `scaled_dot_product_attention` (lesson 04) and `look_ahead_mask` (lesson 06), all
# imported in the setup cell, and your `rotary_embedding` and `apply_rotary`.
#
# What is allowed, plainly: the course's `scaled_dot_product_attention`, the one the setup
# cell imports from `transformer_course.reference.attention` (your lesson-04 function),
# **is allowed**. PyTorch's own `F.scaled_dot_product_attention` (in any spelling:
# `torch.nn.functional.scaled_dot_product_attention`, an import alias, `torch._C._nn` or
# `torch.ops.aten`) and `nn.MultiheadAttention` are **not allowed** in
# `CausalSelfAttention`, `DecoderBlock` and `GPT` (lesson 04 had you build what they
# compute): the test cells below reject an answer that calls them, and the course's
# grader scores it 0. A call costs only the exercise whose answer cell holds it: one in
# `CausalSelfAttention` does not cost `DecoderBlock` and `GPT`, which use your attention.
# The projection names are part of the contract (lesson 12 adds a cache of the rotated
# keys and the values around them).

# %% [markdown]
# ### Exercise 6: `CausalSelfAttention`
# *3 points · about 20 min · core*
#
# <details><summary>Hint 1</summary>
#
# `rotary_embedding(len, self.d_head, self.base)` gives `(len, d_head // 2)` tables,
# which broadcast against `(batch, num_heads, len, d_head // 2)` halves.
# </details>


# %% nbgrader={"solution": true, "grade_id": "CausalSelfAttention"}
class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention with rotary position embeddings.

    CausalSelfAttention(d_model, num_heads, base=10000.0): four nn.Linear(d_model,
    d_model, bias=False) named w_q, w_k, w_v, w_o; d_head = d_model // num_heads.
    forward(x): x (batch, len, d_model) -> (batch, len, d_model). The queries and keys
    of every head, (batch, num_heads, len, d_head), are rotated with
    rotary_embedding(len, d_head, base) and apply_rotary (positions 0 .. len - 1); the
    values are not. Query i attends to keys 0 .. i only (look_ahead_mask).
    """

    def __init__(self, d_model: int, num_heads: int, base: float = 10000.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        ### BEGIN SOLUTION
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)
        self.w_v = nn.Linear(d_model, d_model, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        length = x.shape[1]
        q = split_heads(self.w_q(x), self.num_heads)  # (batch, num_heads, len, d_head)
        k = split_heads(self.w_k(x), self.num_heads)  # (batch, num_heads, len, d_head)
        v = split_heads(self.w_v(x), self.num_heads)  # (batch, num_heads, len, d_head)
        cos, sin = rotary_embedding(length, self.d_head, self.base)  # (len, d_head/2)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))  # (batch, len, d_model)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_CausalSelfAttention", "points": 3}
check_CausalSelfAttention(CausalSelfAttention)
### BEGIN HIDDEN TESTS
check_CausalSelfAttention(CausalSelfAttention, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. The decoder block and the GPT
#
# A block is lesson 07's pre-LN layer with the new parts, and no cross-attention:
#
# ```
# x ─► norm1 (RMSNorm) ─► attn (CausalSelfAttention) ─► + x ─► h
# h ─► norm2 (RMSNorm) ─► feed_forward (SwiGLU)      ─► + h ─► output
# ```
#
# The **GPT** embeds the token ids (`embedding`, an `nn.Embedding(vocab, d_model)`
# initialised with a standard deviation of 0.02; no position embedding: RoPE does that
# job inside every attention), runs `num_layers` blocks (`layers`), a final RMSNorm
# (`norm`: the pre-norm stream is never normalised otherwise), and turns each vector
# into `vocab` logits with the **transposed embedding matrix** (weight tying, Press and
# Wolf 2017): the same matrix reads tokens in and writes them out, which saves
# `vocab × d_model` parameters and helps small models. Tie it either by computing
# `x @ self.embedding.weight.T` (or `F.linear(x, self.embedding.weight)`), or with an
# `nn.Linear` whose weight *is* the embedding's (`self.output.weight =
# self.embedding.weight`; nanoGPT assigns the other way round, then initialises the
# shared matrix).
#
# No dropout: the default run reads its training text only a few times over (section 8
# prints how many) and its validation loss is still falling when it stops, far from
# overfitting, where dropout would mostly slow learning (large models such as PaLM are
# pretrained without it too).

# %% [markdown]
# ### Exercise 7: `DecoderBlock`
# *2 points · about 10 min · core*


# %% nbgrader={"solution": true, "grade_id": "DecoderBlock"}
class DecoderBlock(nn.Module):
    """One pre-norm decoder-only block.

    DecoderBlock(d_model, num_heads, d_ff, eps=1e-5): norm1 = RMSNorm(d_model, eps),
    attn = CausalSelfAttention(d_model, num_heads), norm2 = RMSNorm(d_model, eps),
    feed_forward = SwiGLU(d_model, d_ff). forward(x): x (batch, len, d_model) ->
    h = x + attn(norm1(x)); returns h + feed_forward(norm2(h)), (batch, len, d_model).
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int, eps: float = 1e-5):
        super().__init__()
        ### BEGIN SOLUTION
        self.norm1 = RMSNorm(d_model, eps)
        self.attn = CausalSelfAttention(d_model, num_heads)
        self.norm2 = RMSNorm(d_model, eps)
        self.feed_forward = SwiGLU(d_model, d_ff)
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        h = x + self.attn(self.norm1(x))  # (batch, len, d_model)
        return h + self.feed_forward(self.norm2(h))
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_DecoderBlock", "points": 2}
check_DecoderBlock(DecoderBlock)
### BEGIN HIDDEN TESTS
check_DecoderBlock(DecoderBlock, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 8: `GPT`
# *3 points · about 20 min · core*
#
# <details><summary>Hint 1</summary>
#
# The contract's initialisation, `nn.init.normal_(self.embedding.weight, std=0.02)`
# (GPT-2's), replaces `nn.Embedding`'s standard deviation of 1: with tied weights, 1
# would make the first logits huge, and training from there ends far above the loss a
# 0.02 start reaches. The check builds a fresh GPT and measures it.
# </details>


# %% nbgrader={"solution": true, "grade_id": "GPT"}
class GPT(nn.Module):
    """A decoder-only language model.

    GPT(vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5): embedding =
    nn.Embedding(vocab_size, d_model), its weight initialised from a normal distribution
    with standard deviation 0.02 (GPT-2's); layers = nn.ModuleList of num_layers new
    DecoderBlock(d_model, num_heads, d_ff, eps), one constructor call each, so that every
    block starts from its own random weights (copies of one block would all start
    alike); norm = RMSNorm(d_model, eps). The
    output layer is tied to the embedding: logits = norm(...) @ embedding.weight.T
    (an extra key output.weight is fine if it is the same tensor).
    forward(ids): int64 (batch, len) -> logits (batch, len, vocab_size), where
    logits[:, t] depends on ids[:, : t + 1] only.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        num_heads: int,
        d_ff: int,
        num_layers: int,
        eps: float = 1e-5,
    ):
        super().__init__()
        ### BEGIN SOLUTION
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.layers = nn.ModuleList(
            [DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]
        )
        self.norm = RMSNorm(d_model, eps)
        ### END SOLUTION

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        x = self.embedding(ids)  # (batch, len, d_model)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T  # (batch, len, vocab)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_GPT", "points": 3}
check_GPT(GPT)
### BEGIN HIDDEN TESTS
check_GPT(GPT, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# **The causal property, by experiment.** Change the last token of a sequence: the
# logits of every earlier position must stay exactly as they were (a reference GPT).

# %%
torch.manual_seed(0)
model = ref.GPT(vocab_size=50, d_model=32, num_heads=4, d_ff=64, num_layers=2).eval()
ids = torch.randint(0, 50, (1, 10))
changed = ids.clone()
changed[0, -1] = (ids[0, -1] + 1) % 50
with torch.no_grad():
    change = (model(ids) - model(changed)).abs().amax(dim=-1)[0]  # (len,)
print("largest change of the logits at each position:", change)

# %% [markdown]
# ## 7. Sampling
#
# The model gives logits $z$ for the next token. Turning them into text means choosing
# a token, appending it, and asking again. Choosing the most likely token every time
# (greedy decoding, lesson 09) makes dull, repetitive text; **sampling** from
# $\operatorname{softmax}(z)$ makes varied text but sometimes picks a token from the
# long tail of unlikely ones, and one bad token derails the rest. Three controls:
#
# * **temperature** $T$: sample from $\operatorname{softmax}(z / T)$. $T < 1$ sharpens
#   the distribution towards the likeliest tokens, $T > 1$ flattens it. $T$ divides the
#   *logits*, before the softmax; $T = 0$ is the limit, greedy decoding (the argmax);
# * **top-k**: keep the $k$ largest logits, set the others to $-\infty$ (a token tied
#   with the $k$-th largest may be kept too: both conventions are accepted);
# * **top-p** (nucleus sampling, Holtzman et al. 2020): sort the probabilities
#   (after the temperature) in decreasing order and keep the **smallest** set of
#   tokens whose total reaches $p$: the token that crosses $p$ is kept, the next is
#   not. At least one token is always kept, in every row of the batch. A tie at the
#   threshold (the crossing token has the same probability as the next one) is rare:
#   the reference then keeps as many tokens as it needs, and which of the tied tokens
#   those are depends on the sort; keeping every tied token is accepted too. So is
#   one more token when the tokens before it sum to exactly $p$ (removing a token
#   only when the mass before it is strictly above $p$, as Hugging Face's recipe
#   does).
#
# Then renormalise what is kept and draw, with the `generator` given (for example
# `torch.multinomial(probs, 1, generator=generator)`). **The order matters**:
# temperature first, then top-k, then top-p on the probabilities of the tokens top-k
# kept, renormalised (a softmax over the logits with the others at $-\infty$). Both
# filters then see the distribution the draw will use: top-p before the temperature
# would keep the tokens of another distribution, and top-p before top-k can keep more
# tokens than it should. The checks use inputs where each wrong order gives another
# result.

# %% [markdown]
# ### Exercise 9: `sample`
# *4 points · about 30 min · challenging*
#
# <details><summary>Hint 1</summary>
#
# Top-p: `sorted_probs, order = probs.sort(descending=True)`; with
# `cumulative = sorted_probs.cumsum(-1)`, a token is removed when the tokens *before* it
# already reach $p$: `cumulative - sorted_probs >= p`. Scatter the decision back to the
# original order with `order` (`scatter`, not `gather`: the token at sorted position `i`
# is `order[..., i]`). Every row is a sequence of its own: work along the last axis.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Work on logits: set removed tokens to `-inf` and take one softmax at the end, which
# renormalises for you. Temperature 0 is a special case: return the argmax.
# </details>


# %% nbgrader={"solution": true, "grade_id": "sample"}
def sample(
    logits: torch.Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Draw one next token per row of logits (batch, vocab).

    temperature > 0: sample from softmax(logits / temperature); temperature == 0:
    the argmax (greedy). top_k (None: all): keep only the top_k largest logits (ties
    with the k-th may be kept; a top_k of the vocabulary size or more keeps all). top_p (None: all): then, on the probabilities after the
    temperature and top-k (renormalised), keep the smallest set of the most probable
    tokens whose probabilities sum to at least top_p (the token that crosses top_p is
    kept; at least one token per row; when the tokens before one sum to exactly top_p,
    keeping it too, as a strict test before > top_p does, is accepted). What is kept
    is renormalised. Random draws use `generator`. Returns int64 (batch,); logits is
    not modified.
    """
    ### BEGIN SOLUTION
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature  # (batch, vocab)
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        sorted_probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        before = sorted_probs.cumsum(dim=-1) - sorted_probs  # (batch, vocab): mass before each
        remove_sorted = before >= top_p
        remove_sorted[..., 0] = False  # always keep the most probable token
        remove = remove_sorted.scatter(-1, order, remove_sorted)  # back to vocabulary order
        logits = logits.masked_fill(remove, float("-inf"))
    probs = torch.softmax(logits, dim=-1)  # (batch, vocab), renormalised
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_sample", "points": 4}
check_sample(sample)
### BEGIN HIDDEN TESTS
check_sample(sample, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Question 2: temperature
# *1 point · about 3 min · core*
#
# A learner writes `probs = torch.softmax(logits, -1) / temperature` and then draws
# with `torch.multinomial(probs, 1)`. What does temperature 0.5 do to the samples?
#
# * (a) it sharpens the distribution, as intended
# * (b) nothing: multinomial renormalises, so every temperature samples from softmax(logits)
# * (c) it flattens the distribution
# * (d) it raises an error, because the probabilities sum to 2


# %% nbgrader={"solution": true, "grade_id": "quiz_temperature"}
def quiz_temperature() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_temperature", "points": 1}
check_quiz_temperature(quiz_temperature)
### BEGIN HIDDEN TESTS
check_quiz_temperature(quiz_temperature, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 8. Training on Python's standard library
#
# Real text, nothing downloaded: every Python installation holds the source of its
# standard library. `transformer_course.stdlib_corpus` reads a fixed list of modules
# (`stdlib_corpus.MODULES`) from `sysconfig.get_paths()["stdlib"]` and splits them **by
# module** (every fifth of the sorted list is validation), so that validation text is
# code the model has never seen. It is tokenised with lesson 01's byte-pair encoding
# (the 256 bytes plus `num_merges` merges, chunks as in lesson 01's `pretokenize`); the
# merges are learned with an incremental version of lesson 01's trainer, which recounts
# only the chunks a merge touched: lesson 01's trainer recounts every chunk after every
# merge, which is exact but far too slow for megabytes of text. The corpus cell below
# prints the sizes and how long reading and tokenising took.
#
# The training loop below is the course's own (its tests retrain the shipped model with
# exactly this code): AdamW with a short warm-up and a cosine decay, gradient clipping,
# and one CPU thread (lesson 10, section 7, says why).

# %% export=true
DEFAULT_CONFIG = {
    "d_model": 128,
    "num_heads": 4,
    "d_ff": 352,  # about 8/3 * d_model, a multiple of 32
    "num_layers": 3,
    "block_size": 128,
    "batch_size": 32,
    "steps": 640,
    "lr": 3e-3,
    "warmup": 50,
    "weight_decay": 0.1,
    "clip_norm": 1.0,
    "seed": 0,
    "num_threads": 1,
    "eval_batches": 20,
}


def build_language_model(vocab_size: int, config: dict) -> GPT:
    """A GPT of the config's size (weights from the global stream: seed it first)."""
    return GPT(
        vocab_size,
        config["d_model"],
        config["num_heads"],
        config["d_ff"],
        config["num_layers"],
    )


def cosine_lr(step: int, config: dict) -> float:
    """Linear warm-up to config["lr"], then a cosine decay to a tenth of it."""
    if step <= config["warmup"]:
        return config["lr"] * step / config["warmup"]
    progress = (step - config["warmup"]) / max(1, config["steps"] - config["warmup"])
    return config["lr"] * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


@torch.no_grad()
def estimate_loss(model: nn.Module, tokens: torch.Tensor, config: dict, seed: int = 1234) -> float:
    """Mean next-token cross-entropy (nats per token) over config["eval_batches"] random
    windows of the stream, the same windows for every model (a fixed seed)."""
    was_training = model.training
    model.eval()
    generator = torch.Generator().manual_seed(seed)
    total = 0.0
    for _ in range(config["eval_batches"]):
        inputs, targets = next_token_batches(
            tokens, config["block_size"], config["batch_size"], generator
        )
        logits = model(inputs)  # (batch, block_size, vocab)
        total += F.cross_entropy(logits.flatten(0, 1), targets.flatten()).item()
    model.train(was_training)
    return total / config["eval_batches"]


def ngram_baselines(corpus, config: dict, smoothing: float = 0.1) -> dict[str, float]:
    """The validation loss of a unigram and a bigram model counted on the training
    split (add-`smoothing` counts), on the same windows as estimate_loss."""
    vocab = corpus.vocab_size
    unigram = torch.bincount(corpus.train, minlength=vocab).double() + smoothing
    pairs = corpus.train[:-1] * vocab + corpus.train[1:]
    bigram = torch.bincount(pairs, minlength=vocab * vocab).double().view(vocab, vocab)
    bigram = bigram + smoothing
    log_unigram = (unigram / unigram.sum()).log()  # (vocab,)
    log_bigram = (bigram / bigram.sum(dim=1, keepdim=True)).log()  # (vocab, vocab): row = previous
    generator = torch.Generator().manual_seed(1234)  # estimate_loss's windows
    totals = {"unigram": 0.0, "bigram": 0.0}
    for _ in range(config["eval_batches"]):
        inputs, targets = next_token_batches(
            corpus.validation, config["block_size"], config["batch_size"], generator
        )
        totals["unigram"] -= log_unigram[targets].mean().item()
        totals["bigram"] -= log_bigram[inputs, targets].mean().item()
    return {name: total / config["eval_batches"] for name, total in totals.items()}


@torch.no_grad()
def bits_per_byte(model: nn.Module, tokens: torch.Tensor, num_bytes: int, block_size: int) -> float:
    """The model as a compressor: the bits an arithmetic coder driven by its predictions
    would spend on the whole stream `tokens` (which spells `num_bytes` bytes of text), per
    byte. The stream is read in consecutive windows of block_size predictions, so every
    token after the first is predicted once, from the 1 to block_size tokens before it
    in its window; the first token costs log2(vocab) bits (a uniform guess)."""
    was_training = model.training
    model.eval()
    starts = list(range(0, len(tokens) - 1, block_size))
    nats = 0.0
    for first in range(0, len(starts), 32):  # 32 windows per forward pass
        windows = [tokens[s : s + block_size + 1] for s in starts[first : first + 32]]
        for size in sorted({len(w) for w in windows}):  # the last window may be shorter
            batch = torch.stack([w for w in windows if len(w) == size])  # (n, size)
            logits = model(batch[:, :-1])  # (n, size - 1, vocab)
            loss = F.cross_entropy(logits.flatten(0, 1), batch[:, 1:].flatten(), reduction="sum")
            nats += loss.item()
    model.train(was_training)
    vocab = logits.shape[-1]
    return (nats / math.log(2) + math.log2(vocab)) / num_bytes


def compressor_bits_per_byte(data: bytes, context: bytes = b"") -> dict[str, float]:
    """Bits per byte of `data` under the standard library's compressors at their strongest
    settings: gzip -9, bz2 -9, and xz -9e given `context` first (the size of `context`
    compressed alone is subtracted), as the model was given its training text. A
    compressor this Python was built without is left out."""
    import gzip

    results = {"gzip -9": 8 * len(gzip.compress(data, compresslevel=9)) / len(data)}
    try:
        import bz2

        results["bz2 -9"] = 8 * len(bz2.compress(data, compresslevel=9)) / len(data)
    except ImportError:
        pass
    try:
        import lzma

        def xz(text: bytes) -> int:
            return len(lzma.compress(text, preset=9 | lzma.PRESET_EXTREME))

        with_context = xz(context + data) - (xz(context) if context else 0)
        results["xz -9e" + (", given the training text" if context else "")] = (
            8 * with_context / len(data)
        )
    except ImportError:
        pass
    return results


def train_language_model(corpus, config=None, *, max_steps=None, progress=True):
    """Train a GPT on corpus.train. Returns (model, history): the loss and learning rate
    of every step, the validation loss every 100 steps and at the end
    (val_steps, val_loss), the training time in seconds (evaluation excluded; wall clock,
    and the process's CPU time, which is the wall time of a machine running nothing
    else), tokens per second and the config. `max_steps` stops early (a short
    demonstration run)."""
    config = {**DEFAULT_CONFIG, **(config or {})}
    total = config["steps"] if max_steps is None else min(max_steps, config["steps"])
    history = {"config": config, "loss": [], "lr": [], "val_steps": [], "val_loss": []}
    threads = torch.get_num_threads()
    torch.set_num_threads(config["num_threads"] or threads)
    try:
        with torch.random.fork_rng(devices=[]):  # the global stream is left as it was
            torch.manual_seed(config["seed"])
            model = build_language_model(corpus.vocab_size, config)
            optimizer = torch.optim.AdamW(
                model.parameters(), lr=0.0, betas=(0.9, 0.95), weight_decay=config["weight_decay"]
            )
            generator = torch.Generator().manual_seed(config["seed"])
            seconds = cpu_seconds = 0.0
            bar = progress_bar(total, "training", progress)
            for step in range(1, total + 1):
                start, cpu_start = time.perf_counter(), time.process_time()
                lr = cosine_lr(step, config)
                for group in optimizer.param_groups:
                    group["lr"] = lr
                inputs, targets = next_token_batches(
                    corpus.train, config["block_size"], config["batch_size"], generator
                )
                logits = model(inputs)  # (batch, block_size, vocab)
                loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), config["clip_norm"])
                optimizer.step()
                seconds += time.perf_counter() - start
                cpu_seconds += time.process_time() - cpu_start
                history["loss"].append(loss.item())
                history["lr"].append(lr)
                tokens_per_s = step * config["batch_size"] * config["block_size"] / seconds
                bar.set_postfix(
                    loss=f"{loss.item():.3f}", tokens_per_s=f"{tokens_per_s:,.0f}", refresh=False
                )
                bar.update(1)
                if step % 100 == 0 or step == total:
                    history["val_steps"].append(step)
                    history["val_loss"].append(estimate_loss(model, corpus.validation, config))
                    model.train()
            bar.close()
    finally:
        torch.set_num_threads(threads)
    history["seconds"], history["cpu_seconds"] = seconds, cpu_seconds
    history["tokens_per_second"] = total * config["batch_size"] * config["block_size"] / seconds
    model.eval()
    return model, history


@torch.no_grad()
def generate(
    model: nn.Module,
    ids: torch.Tensor,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    block_size: int | None = None,
) -> torch.Tensor:
    """Append max_new_tokens sampled tokens to ids (batch, len), running the whole
    sequence (its last block_size tokens, if given) through the model at every step:
    no cache (lesson 12 adds one). Returns int64 (batch, len + max_new_tokens)."""
    for _ in range(max_new_tokens):
        context = ids if block_size is None else ids[:, -block_size:]
        logits = model(context)[:, -1]  # (batch, vocab): the next token's logits
        next_id = sample(logits, temperature, top_k, top_p, generator)  # (batch,)
        ids = torch.cat([ids, next_id[:, None]], dim=1)
    return ids


# %% [markdown]
# The corpus. When the notebook is graded or tested, it uses the shipped checkpoint's
# merges rather than learning them again, and the rest of the lesson uses the course's
# reference versions of the functions above, so that the trained model's losses,
# samples and attention show even while an exercise is unanswered. When you run it
# yourself, the functions above run, built on your answers.

# %%
TRAIN_LIVE = not running_headless()
if not TRAIN_LIVE:  # graded or tested: the reference versions
    train_language_model, estimate_loss = ref.train_language_model, ref.estimate_loss
    ngram_baselines, generate = ref.ngram_baselines, ref.generate
shipped = shipped_model.load_record()
start = time.perf_counter()
corpus = stdlib_corpus.load_corpus(merges=None if TRAIN_LIVE else shipped_model.merges(shipped))
print(f"{len(stdlib_corpus.MODULES)} modules listed; {corpus.summary()}")
print(
    f"read and tokenised in {time.perf_counter() - start:.1f} s "
    + ("(merges learned here)" if TRAIN_LIVE else "(with the shipped model's merges)")
)
print(repr(corpus.decode(corpus.train[1000:1040])))

# %% [markdown]
# **Baselines first.** A model that ignores the context can do no better than the
# **unigram** loss (the entropy of the token frequencies); one that looks at the
# previous token only, the **bigram** loss. Both are counted on the training split and
# measured on the validation windows the GPT is measured on:

# %%
baselines = ngram_baselines(corpus, DEFAULT_CONFIG)
print(f"uniform guess: {math.log(corpus.vocab_size):.3f} nats per token")
print(f"unigram: {baselines['unigram']:.3f}, bigram: {baselines['bigram']:.3f} nats per token")

# %% [markdown]
# **Train it.** With `TRAIN_LIVE` (the default when you run the notebook yourself) the
# cell trains the default model (`DEFAULT_CONFIG`) from scratch on your CPU; it prints
# the size of the run and how long the shipped run took on a small machine shared with
# other jobs (yours may well be faster). When the notebook is graded or tested, it makes
# a 5-step demonstration run and loads the shipped checkpoint, made by this same code
# with `python -m transformer_course.checkpoints.language_model`.

# %%
predictions = DEFAULT_CONFIG["steps"] * DEFAULT_CONFIG["batch_size"] * DEFAULT_CONFIG["block_size"]
print(
    f"{DEFAULT_CONFIG['steps']} steps of {DEFAULT_CONFIG['batch_size']} windows of "
    f"{DEFAULT_CONFIG['block_size']} tokens: {predictions:,} predictions over "
    f"{len(corpus.train):,} training tokens, {predictions / len(corpus.train):.1f} passes"
)
shipped_run = shipped["training"]
print(
    f"the shipped run trained in {shipped_run['cpu_seconds'] / 60:.1f} minutes of CPU time on "
    f"one thread ({shipped_run['seconds'] / 60:.1f} minutes of wall-clock time on "
    f"{shipped['machine']['note']}, load average {shipped_run['load_average'][0]} at the start, "
    f"{shipped_run['load_average'][1]} at the end)"
)
if TRAIN_LIVE:
    model, history = train_language_model(corpus)
else:
    # a 5-step demonstration that the loop runs (validated on 2 batches); results: below
    _, short_run = train_language_model(corpus, {"eval_batches": 2}, max_steps=5)
    model = shipped_model.load_model(shipped)
    history = shipped["training"]
validation_loss = estimate_loss(model, corpus.validation, DEFAULT_CONFIG)
print(
    f"training time {history['cpu_seconds']:.0f} s of CPU, {history['seconds']:.0f} s wall clock "
    f"({history['tokens_per_second']:,.0f} tokens/s); "
    f"validation loss {validation_loss:.3f} against bigram {baselines['bigram']:.3f} and "
    f"unigram {baselines['unigram']:.3f} nats per token"
)

# %%
fig, ax = plt.subplots(figsize=(8, 3.6))
ax.plot(range(1, len(history["loss"]) + 1), history["loss"], linewidth=0.7, label="training batch")
ax.plot(history["val_steps"], history["val_loss"], "o-", label="validation")
ax.axhline(baselines["bigram"], color="black", linestyle="--", linewidth=1, label="bigram")
ax.axhline(baselines["unigram"], color="0.5", linestyle=":", linewidth=1, label="unigram")
ax.set(
    xlabel="step",
    ylabel="cross-entropy (nats per token)",
    title="a GPT learns Python",
    ylim=(0, math.log(corpus.vocab_size) + 0.5),
)
ax.legend()
plt.show()

# %% [markdown]
# ## 9. Language modelling is compression
#
# A model that gives the token that actually comes next a probability $p$ can be turned
# into a compressor: an arithmetic coder spends $-\log_2 p$ bits on that token (plus at
# most two bits for the whole text), and a decoder that runs the same model recovers
# the token from those bits. So the cross-entropy *is* a compressed size: $L$ nats per
# token are $L / \ln 2$ bits per token, and divided by the bytes each token spells,
# **bits per byte**, the unit in which compressors are compared, and one that does not
# depend on the tokenizer. `bits_per_byte` measures the model over the whole validation
# split, every token once; `compressor_bits_per_byte` runs the standard library's three
# compressors at their strongest settings on the same bytes (xz is first given the
# training modules, as the model was).
#
# **Predict first.** Does a 5-minute GPT compress Python it has never seen better than
# gzip? Than bz2?

# %%
validation_bytes = corpus.split_bytes("validation")
if TRAIN_LIVE:  # about 10 s: every validation token through the model
    model_bits = bits_per_byte(
        model, corpus.validation, len(validation_bytes), DEFAULT_CONFIG["block_size"]
    )
else:  # graded or tested: measured by the run that made the checkpoint, on these weights
    model_bits = shipped["validation_bits_per_byte"]
compressors = compressor_bits_per_byte(validation_bytes, context=corpus.split_bytes("train"))
bytes_per_token = len(validation_bytes) / len(corpus.validation)
print(
    f"validation split: {len(validation_bytes):,} bytes, {len(corpus.validation):,} tokens, "
    f"{bytes_per_token:.2f} bytes per token"
)
print(f"  this GPT:  {model_bits:.3f} bits per byte")
for name, bits in compressors.items():
    nats_per_token = bits * bytes_per_token * math.log(2)  # the loss that would equal it
    print(
        f"  {name + ':':<36}{bits:.3f} bits per byte (= {nats_per_token:.2f} nats per token; "
        f"the GPT is {model_bits - bits:+.3f} bits per byte from it)"
    )

# %% [markdown]
# The nats-per-token column translates each compressor into the validation loss the
# GPT would need to match it, and the last column is how far the GPT stands from it. Two things to keep in mind. A compressor's decoder is a
# few kilobytes of code; this model's is its weights, over a megabyte: to send *this*
# file, the weights would cost more than they save. What the comparison measures is how
# well each one predicts text it has not seen. And the compressors are not weak: xz
# finds repeated strings anywhere in a window of 64 MiB (the training text included),
# bz2 sorts blocks of 900 kB so that text with the same context lines up, while the
# GPT sees at most `block_size` tokens of context and trains for a few minutes.
#
# What would close the gap? The course's runs (`benchmarks/language_model_budget.py`;
# CPU time is what the run costs on a machine with nothing else to do):

# %%
for name, run in shipped_model.load_budget().items():
    cpu = f"{run['cpu_seconds']:.0f} s of CPU" if run["cpu_seconds"] else "CPU time not recorded"
    print(
        f"{name + ':':<30}{run['validation_loss']:.3f} nats per token, "
        f"{run['validation_bits_per_byte']:.3f} bits per byte, {run['passes']:.1f} passes, {cpu}"
    )
print(
    f"{'the shipped default:':<30}{shipped['validation_loss']:.3f} nats per token, "
    f"{shipped['validation_bits_per_byte']:.3f} bits per byte, "
    f"{shipped['training']['passes']:.1f} passes, {shipped['training']['cpu_seconds']:.0f} s of CPU"
)

# %% [markdown]
# Read the seeds first: the same run with other random initial weights and batches
# lands a few hundredths of a nat away, so only a gap larger than theirs is evidence.
# More **steps** help most: the validation loss is still falling when the run stops
# (the curve above), going from 400 to 560 steps lowered it by several times the seeds'
# spread, and 640 steps by about that spread again. A doubled learning rate (700 steps
# at 6e-3) ended within the seeds' spread of the default: no evidence either way. A
# larger model learns more per step but costs more per step (not tried here); and the
# corpus, under a million tokens read a few times over, is small. With much more
# **data**, **steps** and **size**, language models compress text far better than any
# of these compressors (Delétang et al., 2024, measured large ones against gzip and
# LZMA2, xz's algorithm).

# %% [markdown]
# ## 10. What it writes
#
# **Predict first.** The same prompt, three temperatures: 0 (greedy), 0.8, and 1.2.
# Which output repeats itself, and which drifts into nonsense?

# %%
prompt = "def __init__(self"
prompt_ids = torch.tensor([stdlib_corpus.encode(prompt, corpus.merges)])  # (1, len)
for temperature in (0.0, 0.8, 1.2):
    generator = torch.Generator().manual_seed(0)
    out = generate(
        model,
        prompt_ids,
        60,
        temperature=temperature,
        top_p=0.95,
        generator=generator,
        block_size=DEFAULT_CONFIG["block_size"],
    )
    print(f"--- temperature {temperature}:\n{corpus.decode(out[0])}\n")

# %% [markdown]
# ## 11. What it attends to
#
# The attention weights of the trained model for one line of Python with nested
# brackets (recomputed from each block's input with the reference functions): the four
# heads of the last block as maps, and, for every head, the key each token attends to
# most, printed as `query→key`. Look for heads that attend to the previous token (a
# bright diagonal just below the main one), heads that stay on the first token (a
# "sink" for attention with nothing useful to read), and heads that send a closing
# bracket to its opening one: the last lines count, for every head of every block, the
# closing brackets whose strongest key is their own opening bracket.


# %% export=true
@torch.no_grad()
def attention_maps(model: GPT, ids: torch.Tensor) -> list[torch.Tensor]:
    """The attention weights of every block for ids (1, len): one (num_heads, len, len)
    tensor per block, computed from the block's input and its attention's weights."""
    maps = []
    x = model.embedding(ids)  # (1, len, d_model)
    for layer in model.layers:
        attn = layer.attn
        h = layer.norm1(x)
        q = split_heads(attn.w_q(h), attn.num_heads)  # (1, num_heads, len, d_head)
        k = split_heads(attn.w_k(h), attn.num_heads)
        cos, sin = rotary_embedding(ids.shape[1], attn.d_head, attn.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        _, weights = scaled_dot_product_attention(q, k, q, look_ahead_mask(ids.shape[1]))
        maps.append(weights[0])  # (num_heads, len, len)
        x = layer(x)
    return maps


# %%
line = "    return {k: f(v[0]) for k, v in items(d)}\n"
line_ids = torch.tensor([stdlib_corpus.encode(line, corpus.merges)])  # (1, len)
texts = [corpus.decode([i]) for i in line_ids[0]]
labels = [repr(text)[1:-1].replace(" ", "·") for text in texts]  # · marks a space
maps = (attention_maps if TRAIN_LIVE else ref.attention_maps)(model, line_ids)
last = len(maps) - 1
fig = attention_heads(
    maps[last],  # (num_heads, len, len)
    labels,
    labels,
    max_cols=2,
    title=f"what the trained model attends to: block {last} of 0-{last}",
)
fig.set_size_inches(12, 11)  # room for every token's label
for ax in fig.axes[:-1]:  # the panels, not the colour bar
    ax.tick_params(labelsize=8)
plt.show()


def strongest(weights, rows, columns):
    """For each row token, the column token with the largest weight: 'row→column'."""
    return "  ".join(f"{r}→{columns[int(i)]}" for r, i in zip(rows, weights.argmax(-1)))


for head, weights in enumerate(maps[last]):
    print(f"block {last}, head {head}:", strongest(weights, labels, labels))


def matching_openers(texts):
    """{index of a token that is one closing bracket: index of its opening bracket's token}."""
    pairs, stack = {}, []
    for index, text in enumerate(texts):
        for character in text:
            if character in "([{":
                stack.append(index)
            elif character in ")]}" and stack:
                opener = stack.pop()
                if text == character:
                    pairs[index] = opener
    return pairs


pairs = matching_openers(texts)
print(
    f"\nclosing brackets: {', '.join(f'{texts[i]} (opened by {texts[j]})' for i, j in pairs.items())}"
)
for block, block_maps in enumerate(maps):
    found = [sum(int(w[i].argmax()) == j for i, j in pairs.items()) for w in block_maps]
    print(
        f"block {block}, heads 0-{len(found) - 1}: "
        + ", ".join(f"{n} of {len(pairs)}" for n in found)
        + " closing brackets attend most to their opening bracket"
    )

# %% [markdown]
# ## Common misconceptions
#
# * *"RMSNorm is LayerNorm without the bias."* It also skips the mean: nothing is
#   subtracted, so a token's offset is kept.
# * *"RoPE adds a position vector."* It multiplies (rotates) the queries and keys only,
#   in every layer; the values and the residual stream carry no position at all.
# * *"Rotate-half is a different RoPE."* It rotates the same pairs of a permuted vector;
#   a model trained with one pairing must be run with the same one.
# * *"Temperature scales the probabilities."* It divides the logits before the softmax;
#   dividing the probabilities changes nothing once they are renormalised.
# * *"Top-p keeps the tokens whose probability is above p."* It keeps the most
#   probable tokens until their *total* reaches p, the crossing token included.
#
# ## Summary
#
# * A decoder-only model: embedding, `num_layers` pre-norm blocks (RMSNorm, causal
#   self-attention with RoPE, RMSNorm, SwiGLU), a final RMSNorm, and logits through the
#   tied embedding matrix; trained on next-token cross-entropy over random windows.
# * RoPE rotates each head's query and key pairs by $m\,\theta_i$; their dot product then
#   depends on the offset only.
# * Sampling: temperature on the logits, then top-k, then top-p, renormalise, draw.
# * A language model is a compressor: its cross-entropy, in bits per byte of text, is
#   the size an arithmetic coder driven by it would reach.

# %% [markdown]
# ## Beyond this lesson: what larger models add
#
# The GPT of this lesson has the parts of a 2026 open model; the large ones add a few
# more. Each paragraph names the paper or model where it comes from.
#
# **Perplexity.** Papers often report a language model's **perplexity**, $e^{\text{loss}}$
# with the loss in nats per token: the model is, on average, as unsure as a uniform
# choice among that many tokens. A uniform guess over the vocabulary has exactly the
# vocabulary's size:

# %%
print(
    f"perplexity e^loss: this GPT {math.exp(validation_loss):.1f}, "
    f"bigram {math.exp(baselines['bigram']):.1f}, unigram {math.exp(baselines['unigram']):.1f}, "
    f"uniform guess {math.exp(math.log(corpus.vocab_size)):.0f} (the vocabulary: {corpus.vocab_size})"
)

# %% [markdown]
# **QK-norm.** OLMo 2 (["2 OLMo 2 Furious"](https://arxiv.org/abs/2501.00656), 2024)
# normalises the queries and the keys with an RMSNorm before their dot product, one of the
# changes it made for a stabler training; Gemma 3 replaced Gemma 2's soft-capping with
# it. A score can then no longer grow just because the queries and keys grow.
#
# **RoPE's base and long contexts.** Pair $i$ turns by $\theta_i = \text{base}^{-2i/d_\text{head}}$
# per position, so it comes back to where it started after $2\pi / \theta_i$ positions,
# its wavelength. A model only learns the angles its training windows contain.
# Llama 3 (["The Llama 3 Herd of Models"](https://arxiv.org/abs/2407.21783), 2024) raised
# the base from 10,000 to 500,000, which stretches every wavelength but the first:

# %%
for base in (10_000.0, 500_000.0):
    cos, sin = ref.rotary_embedding(2, 128, base)  # angle[1, i] = theta_i: d_head 128
    theta = torch.atan2(sin[1].double(), cos[1].double())  # (64,): one angle per pair
    print(
        f"base {base:9,.0f}, d_head 128: wavelengths from {2 * math.pi / theta[0]:.1f} to "
        f"{2 * math.pi / theta[-1]:,.0f} positions"
    )

# %% [markdown]
# To run a model on texts longer than its training windows, **Position Interpolation**
# (Chen et al., ["Extending Context Window of Large Language Models via Positional
# Interpolation"](https://arxiv.org/abs/2306.15595), 2023) divides every position by the
# extension factor, so that the angles stay in the trained range, then fine-tunes
# briefly. **YaRN** (Peng et al., ["YaRN"](https://arxiv.org/abs/2309.00071), 2023)
# interpolates only the pairs with long wavelengths, leaves the fast ones that tell
# neighbouring tokens apart as they are, and rescales the attention scores. Llama 3.1's
# rope scaling, in Meta's code, is of the same kind: it divides $\theta_i$ by 8 for the
# pairs whose wavelength is longer than 8192 positions (Llama 3's original context),
# keeps those shorter than 8192 / 4 = 2048, and blends the two in between.
#
# **Mixture of experts.** A layer can hold several feed-forward blocks ("experts") and a
# router, a linear layer that scores the experts for each token; each token goes through
# its top-$k$ experts only, and their outputs are added, weighted by the router. The
# parameters grow with the number of experts, the computation per token only with $k$.
# The Switch Transformer (Fedus et al., ["Switch
# Transformers"](https://arxiv.org/abs/2101.03961), 2021) routes each token to one
# expert; Mixtral 8x7B (Jiang et al., ["Mixtral of Experts"](https://arxiv.org/abs/2401.04088),
# 2024) has 8 SwiGLU experts per layer and routes each token to 2 of them (weighted by a
# softmax over those two scores), so that "each token has access to 47B parameters, but
# only uses 13B active parameters during inference".

# %% [markdown]
# ## Further reading
#
# * Radford et al., "Language Models are Unsupervised Multitask Learners" (GPT-2,
#   2019): the decoder-only model and pre-norm, at scale.
# * Su et al., ["RoFormer: Enhanced Transformer with Rotary Position Embedding"](https://arxiv.org/abs/2104.09864)
#   (2021): section 3.4, the derivation of the relative-position property you plotted.
# * Zhang and Sennrich, ["Root Mean Square Layer Normalization"](https://arxiv.org/abs/1910.07467) (2019).
# * Shazeer, ["GLU Variants Improve Transformer"](https://arxiv.org/abs/2002.05202) (2020):
#   SwiGLU and its cousins, with their measured gains, in four pages.
# * Holtzman et al., ["The Curious Case of Neural Text Degeneration"](https://arxiv.org/abs/1904.09751)
#   (2020): why greedy text repeats itself, and nucleus sampling.
# * Delétang et al., ["Language Modeling Is Compression"](https://arxiv.org/abs/2309.10668)
#   (2024): arithmetic coding with a language model, measured against gzip and LZMA2.
# * Karpathy, ["Let's build GPT"](https://www.youtube.com/watch?v=kCc8FmEb1nY) and
#   nanoGPT: the same model written from scratch, with training at larger scale.
#
# **Next:** lesson 12 makes generation fast: a cache of keys and values, grouped-query
# attention, and flash attention's tiled softmax.
