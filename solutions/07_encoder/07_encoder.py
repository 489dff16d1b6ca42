# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 07 · The encoder
#
# **Time:** about 2 hours: 81 minutes for the four exercises and two questions,
# the rest for reading and the demos.
#
# Lessons 04 to 06 built the Transformer's one new idea, attention, with its heads and
# its masks. An encoder layer of "Attention Is All You Need" wraps multi-head
# self-attention in three older, humbler pieces, and they are what makes it possible to
# stack six such layers (or, in today's models, a hundred) and still train them:
#
# * a **LayerNorm**, which rescales every token vector to a standard size;
# * a **position-wise feed-forward network**, a small two-layer network applied to every
#   token on its own;
# * **residual connections**, which add each sub-layer's result to its input instead of
#   replacing it.
#
# In this lesson you build each of them, assemble the encoder layer and the encoder
# (a stack of `num_layers` layers), and then prove that your modules compute exactly
# what PyTorch's own `nn.LayerNorm`, `nn.TransformerEncoderLayer` and
# `nn.TransformerEncoder` compute, given the same weights.
#
# **By the end of this lesson you can**
#
# * normalise each token's features with a LayerNorm you wrote, and say why a
#   Transformer normalises over the features of each token and not over the batch;
# * build the position-wise feed-forward block, and show that it treats every position
#   on its own;
# * wrap a sub-layer in a residual connection and a LayerNorm in both orders, post-LN
#   (the paper) and pre-LN (most models since), and say where dropout goes;
# * stack independent layers into an encoder, with or without a final LayerNorm, and
#   match `nn.TransformerEncoder` to float precision.
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. A test cell
# prints `✓ ...` when your code is right and explains what is wrong when it is not; the
# hints under each exercise open one at a time. Demos that only illustrate an idea use
# the course's *reference* modules, so that they work whatever state your code is in;
# the demos that compare your modules with PyTorch's use yours.
#
# Symbols (`transformer_course.glossary`): `batch`, `len` (tokens per padded sequence),
# `d_model` (the width of every token vector, 512 in the paper), `num_heads` ($h$, 8),
# `d_ff` (the feed-forward block's inner width, 2048), `num_layers` ($N$, 6), `eps`
# (LayerNorm's small constant). A sequence is `(batch, len, d_model)` everywhere in this
# lesson; a padding mask is bool `(batch, 1, 1, len)`, True = may attend (lesson 06).

# %% nbgrader={"locked": true, "grade_id": "setup"}
import matplotlib.pyplot as plt
import torch
from torch import nn

from transformer_course.checks.encoder import (
    check_Encoder,
    check_EncoderLayer,
    check_LayerNorm,
    check_PositionwiseFeedForward,
    check_quiz_final_norm,
    check_quiz_layer_norm_axis,
)
from transformer_course.plotting import heatmap, normalisation_axes
from transformer_course.reference import encoder as ref
from transformer_course.reference.masking import padding_mask

# Lesson 05's attention layer, the reference version: later lessons build on the
# reference, so that a slip in your lesson-05 code cannot break this lesson.
from transformer_course.reference.multi_head_attention import MultiHeadAttention

torch.set_printoptions(precision=3, sci_mode=False)

# %% [markdown]
# ## 1. One encoder layer, from the outside
#
# An encoder layer takes a sequence of token vectors and returns a sequence of the same
# shape, `(batch, len, d_model)` in, `(batch, len, d_model)` out. That is what lets
# layers be stacked: the output of one is a valid input to the next. Inside, there are
# two **sub-layers**, and each is wrapped the same way (the paper's Figure 1, left):
#
# ```
#  x ─────────────────────┐                         (batch, len, d_model)
#  │                      │
#  └─► multi-head self-attention (with the padding mask) ─► dropout
#                         │
#                   add ◄─┘      x + ...            (batch, len, d_model)
#                    │
#                LayerNorm (norm1)
#                    │
#  x' ────────────────────┐
#  │                      │
#  └─► feed-forward: d_model → d_ff → d_model ─► dropout
#                         │
#                   add ◄─┘      x' + ...
#                    │
#                LayerNorm (norm2) ─► output        (batch, len, d_model)
# ```
#
# In the paper's words, the output of each sub-layer is
# $\operatorname{LayerNorm}(x + \operatorname{Sublayer}(x))$. The two sub-layers do
# different jobs: self-attention **moves information between positions** (each token
# gathers from the others), the feed-forward network **processes each position on its
# own** (it never looks at another token). The residual connection and the LayerNorm
# are the plumbing that makes a deep stack of them trainable.
#
# Every sub-layer's output has width `d_model`, so that it can be added to its input.
# We build the pieces bottom-up: the LayerNorm (section 2), the feed-forward block
# (section 3), the layer (section 4), the stack (section 5).

# %% [markdown]
# ## 2. LayerNorm: a standard size for every token vector
#
# ### Why normalise at all
#
# Each layer adds something to the token vectors, and each layer's weights change
# during training. Without a guard, the typical size of the vectors drifts from layer to
# layer and from one training step to the next; every layer then has to keep adapting to
# inputs whose scale keeps moving, and training becomes slow and fragile.
# **Layer normalisation** (Ba, Kiros and Hinton, 2016) removes that drift at the source:
# it shifts and rescales each vector so that its entries have mean 0 and variance 1,
# and then lets the model choose, with learned parameters, the scale and offset it
# actually wants.
#
# ### The formula, for one token
#
# Take one token's vector $x = (x_1, \dots, x_d)$, $d = d_\text{model}$:
#
# $$\mu = \frac{1}{d}\sum_{i=1}^{d} x_i, \qquad
# \sigma^2 = \frac{1}{d}\sum_{i=1}^{d} (x_i - \mu)^2, \qquad
# y_i = \gamma_i\,\frac{x_i - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta_i .$$
#
# Four details, each of which the check tests, and each of which a well-known
# implementation gets wrong somewhere:
#
# 1. **The variance is the biased one**: divide by $d$, not $d - 1$. The unbiased
#    $d - 1$ version estimates the variance of a population from a sample; here there is
#    no population, just these $d$ numbers. Careful: `torch.var` and `torch.std` divide
#    by $d - 1$ *unless you ask otherwise*.
# 2. **$\varepsilon$ goes inside the square root.** It keeps the division defined when
#    all features of a token are equal ($\sigma^2 = 0$: think of an all-zero `<pad>`
#    vector). Adding it to the standard deviation instead, $(x - \mu)/(\sigma + \varepsilon)$,
#    is a different function, and the difference shows when $\sigma^2$ is small.
#    PyTorch's default is $\varepsilon = 10^{-5}$.
# 3. **The gain $\gamma$ and the bias $\beta$ are learned**, one of each per feature:
#    `d_model` numbers each, called `weight` and `bias` (as in `nn.LayerNorm`).
#    They start at 1 and 0, so that a fresh LayerNorm is pure normalisation.
# 4. **The statistics are per token.** That deserves a picture.
#
# ### Over which axis?
#
# A batch of token vectors is a 3-D tensor `(batch, len, d_model)`. There are several
# ways to take "a mean and a variance" of it, and two famous ones:

# %%
normalisation_axes(lengths=(5, 3, 4), d_model=6, token=(0, 2), feature=1)
plt.show()

# %% [markdown]
# * **LayerNorm** (left) computes one mean and one variance **per token**, from that
#   token's own `d_model` features, and normalises that token with them. A token's
#   result depends on nothing but the token itself.
# * **BatchNorm** (right), the normalisation that made deep convolutional networks
#   trainable, computes one mean and one variance **per feature**, over every sentence
#   and every position of the batch.
#
# You may have read that LayerNorm normalises "across channels and spatial dims". That
# is how it is drawn for *images*, where one example is a `(channels, height, width)`
# block and LayerNorm averages over all of it. Carried over to a Transformer it would
# mean normalising over a whole sentence (all its positions and features together), and
# that is **not** what a Transformer does: `nn.LayerNorm(d_model)` normalises the last
# axis only, so every token, at every position, is normalised on its own.
#
# Why does the axis matter so much for text? Because text comes in **padded batches of
# different lengths**:
#
# * with BatchNorm, a sentence's result depends on *which other sentences share its
#   batch* and on how much `<pad>` they bring (the pads take part in the statistics of
#   every feature), and a sentence processed alone at inference would be normalised
#   differently from the same sentence in training (BatchNorm keeps running averages to
#   paper over this);
# * with LayerNorm, every token is normalised with its own statistics: the batch, the
#   padding and the sentence length cannot change the result.
#
# After the exercise you will test this on a real batch.

# %% [markdown]
# ### Exercise 1: `LayerNorm`
# *2 points · about 20 min · core*
#
# Write the module as its docstring says: two learned parameters in `__init__`, and the
# formula above in `forward`, for an input of any number of leading axes, `(..., d_model)`.
#
# <details><summary>Hint 1</summary>
#
# Every statistic you compute should have one number per token: shape `(..., 1)`. Take
# it over the last axis and keep that axis (`keepdim=True`), so that it broadcasts
# against `x` when you subtract and divide.
# </details>
#
# <details><summary>Hint 2</summary>
#
# `torch.var` (and `Tensor.var`) divides by $n - 1$ by default; it has an argument that
# makes it divide by $n$. Or compute the mean of the squared deviations yourself.
# </details>
#
# <details><summary>Hint 3</summary>
#
# A learned parameter is an `nn.Parameter` wrapped around its initial tensor, assigned
# to an attribute: the attribute's name becomes its state-dict key. The constant `eps`
# is not learned: keep it as a plain attribute.
# </details>


# %% nbgrader={"solution": true, "grade_id": "LayerNorm"}
class LayerNorm(nn.Module):
    """Layer normalisation of each token's feature vector (Ba et al. 2016).

    LayerNorm(d_model, eps=1e-5) has a learned gain `weight` (d_model,), initialised
    to ones, and a learned bias `bias` (d_model,), initialised to zeros: the same
    state-dict keys as nn.LayerNorm.

    forward(x): x (..., d_model) -> (..., d_model). For every token separately, over
    its d_model features: subtract their mean, divide by sqrt(their biased variance
    + eps), then multiply by `weight` and add `bias`. Nothing is averaged over the
    batch or over the positions of a sequence. A float64 x gives a float64 result
    (the float32 parameters promote; nothing casts x down to float32).
    """

    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        ### BEGIN SOLUTION
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))  # gain
        self.bias = nn.Parameter(torch.zeros(d_model))
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        mean = x.mean(dim=-1, keepdim=True)  # (..., 1): one mean per token
        variance = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1), biased
        return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_LayerNorm", "points": 2}
check_LayerNorm(LayerNorm)
### BEGIN HIDDEN TESTS
check_LayerNorm(LayerNorm, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# What it does, on six tokens whose vectors have very different offsets and spreads
# (the reference `LayerNorm`, fresh: gain 1, bias 0). Each row of the left map is one
# token; after normalisation (right) every row has mean 0 and variance 1:

# %%
gen = torch.Generator().manual_seed(0)
offsets = torch.tensor([[-4.0], [-1.0], [0.0], [0.5], [3.0], [6.0]])  # (len=6, 1)
spreads = torch.tensor([[0.3], [2.0], [1.0], [4.0], [0.5], [1.5]])
tokens = offsets + spreads * torch.randn(6, 12, generator=gen)  # (len, d_model=12)
with torch.no_grad():
    normalised = ref.LayerNorm(12)(tokens)  # (len, d_model)

fig, axes = plt.subplots(1, 2, figsize=(11, 3.2))
heatmap(
    tokens,
    ax=axes[0],
    title="before: each token its own offset and spread",
    xlabel="feature",
    ylabel="token",
    cmap="RdBu_r",
    vmin=-8,
    vmax=8,
)
heatmap(
    normalised,
    ax=axes[1],
    title="after LayerNorm: every row mean 0, variance 1",
    xlabel="feature",
    ylabel="token",
    cmap="RdBu_r",
    vmin=-3,
    vmax=3,
)
plt.tight_layout()
plt.show()
print("per-token mean:    ", normalised.mean(dim=-1))
print("per-token variance:", normalised.var(dim=-1, unbiased=False))

# %% [markdown]
# **Your LayerNorm is PyTorch's.** Give yours and `nn.LayerNorm` the same gain and
# bias, feed both the same batch, and compare:

# %%
try:
    d_model = 16
    yours, theirs = LayerNorm(d_model), nn.LayerNorm(d_model)
    with torch.no_grad():
        yours.weight.copy_(1 + 0.3 * torch.randn(d_model, generator=gen))  # some learned gain
        yours.bias.copy_(0.3 * torch.randn(d_model, generator=gen))  # and bias
        theirs.load_state_dict(yours.state_dict())  # same names: weight, bias
        x = 3 * torch.randn(4, 7, d_model, generator=gen) + 1  # (batch, len, d_model)
        difference = (yours(x) - theirs(x)).abs().max().item()
    print(f"largest difference from nn.LayerNorm: {difference:.1e}")
except NotImplementedError:
    print("LayerNorm is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# ### Padding cannot change a LayerNorm
#
# **Predict first.** Sentence `s` has 4 tokens. Put it in a batch with a short sentence
# (so that `s` needs no padding and the other gets 2 pads), then in a batch with a long
# sentence (so that `s` itself gets 3 pads). Normalise both batches, once with
# BatchNorm statistics (per feature, over the batch, as in training) and once with
# LayerNorm. For each of the two, will `s`'s four normalised vectors be the same in both
# batches? Decide, then run the cell. (It uses the reference LayerNorm, and PyTorch's
# `nn.BatchNorm1d`, which wants the features on axis 1.)

# %%
d_model = 8
gen = torch.Generator().manual_seed(1)
s = torch.randn(4, d_model, generator=gen)  # (len=4, d_model): the sentence we follow
short = torch.randn(2, d_model, generator=gen)
long = torch.randn(7, d_model, generator=gen)


def pad_to(sentence, length):
    """(len, d_model) -> (length, d_model): <pad> positions are zero vectors."""
    return torch.cat([sentence, torch.zeros(length - len(sentence), d_model)])


batch_a = torch.stack([s, pad_to(short, 4)])  # (batch=2, len=4, d_model)
batch_b = torch.stack([pad_to(s, 7), long])  # (batch=2, len=7, d_model)

batch_norm = nn.BatchNorm1d(d_model, affine=False)  # train mode: statistics of this batch
layer_norm = ref.LayerNorm(d_model)
with torch.no_grad():
    for name, norm in [
        ("BatchNorm", lambda b: batch_norm(b.transpose(1, 2)).transpose(1, 2)),
        ("LayerNorm", layer_norm),
    ]:
        in_a = norm(batch_a)[0, :4]  # s's 4 real tokens, normalised in batch A
        in_b = norm(batch_b)[0, :4]  # ... and in batch B
        print(
            f"{name}: largest change of s's outputs between the two batches = "
            f"{(in_a - in_b).abs().max().item():.3f}"
        )

# %% [markdown]
# With BatchNorm, `s`'s normalised vectors change by up to about 1 (as large as the
# values themselves), just because of its neighbours and the padding. With LayerNorm
# they do not change at all. This is the main reason a
# Transformer, which sees padded batches of every length and is run on single sentences
# at inference, uses LayerNorm.

# %% [markdown]
# ### Question 1: which axis?
# *1 point · about 3 min · warm-up*
#
# In a Transformer, the input of a LayerNorm is `(batch, len, d_model)`. Over what does
# it compute its means and variances? Make `quiz_layer_norm_axis` return the letter.
#
# * (a) over the batch: each feature, across all sentences in the batch
# * (b) over the features of each token: one mean and variance per (sentence, position)
# * (c) over the positions of each sentence: each feature, across the tokens of one sentence
# * (d) over the whole sentence: all positions and all features together


# %% nbgrader={"solution": true, "grade_id": "quiz_layer_norm_axis"}
def quiz_layer_norm_axis() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_layer_norm_axis", "points": 1}
check_quiz_layer_norm_axis(quiz_layer_norm_axis)
### BEGIN HIDDEN TESTS
check_quiz_layer_norm_axis(quiz_layer_norm_axis, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 3. The position-wise feed-forward network
#
# The second sub-layer is a plain two-layer network (paper, section 3.3):
#
# $$\operatorname{FFN}(x) = \max(0,\; x W_1 + b_1)\, W_2 + b_2,
# \qquad W_1 \in \mathbb{R}^{d_\text{model}\times d_\text{ff}},\quad
# W_2 \in \mathbb{R}^{d_\text{ff}\times d_\text{model}} .$$
#
# It widens each token vector from `d_model` to `d_ff`, applies a ReLU, and narrows it
# back. The paper uses $d_\text{ff} = 2048 = 4 \cdot d_\text{model}$; "four times wider"
# has stuck as a rule of thumb, but it is a choice, passed in as `d_ff`.
#
# **Position-wise** means: the same $W_1, b_1, W_2, b_2$ are applied to every position,
# and each position separately. Token 3's output depends on token 3's vector and on
# nothing else. (The paper also describes it as two convolutions with kernel size 1.)
# This is the division of labour inside a layer: attention mixes information *across*
# positions, the feed-forward block transforms what each position now holds. It is
# also where most of the layer's parameters are; we count them below.
#
# Without the ReLU, the two linear maps would multiply into a single linear map
# $W_1 W_2$, and the block would add nothing a single linear layer could not do: the
# non-linearity is the point.
#
# **Dropout** inside this block sits on the `d_ff`-wide hidden activations, between the
# ReLU and $W_2$, as in `nn.TransformerEncoderLayer`. The paper does not have it: its
# section 5.4 names only the dropout on each sub-layer's output (section 4) and on the
# embeddings. This one comes from the authors' code, tensor2tensor (its
# `relu_dropout`), and PyTorch's `nn.TransformerEncoderLayer` has it too.
#
# | step | tensor | shape |
# |---|---|---|
# | input | `x` | `(batch, len, d_model)` |
# | `w_1`, ReLU, dropout | hidden | `(batch, len, d_ff)` |
# | `w_2` | output | `(batch, len, d_model)` |

# %% [markdown]
# ### Exercise 2: `PositionwiseFeedForward`
# *1 point · about 10 min · warm-up*
#
# Write the module as its docstring says. The two linear layers must be called `w_1` and
# `w_2` (the checks, and lessons 08 and 09, load weights by these names). If you like
# `nn.Sequential`, mind the names: it calls its parts `0`, `1`, `2`, ... (state-dict
# keys such as `net.0.weight`), unless you give it an `OrderedDict` of names.
#
# <details><summary>Hint 1</summary>
#
# `nn.Linear` acts on the last axis of its input and leaves the others alone, so it is
# already position-wise: `(batch, len, d_model)` in, `(batch, len, d_ff)` out.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Read the forward formula in the docstring from the inside out: `w_1` first, then the
# ReLU, then the dropout, then `w_2`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "PositionwiseFeedForward"}
class PositionwiseFeedForward(nn.Module):
    """The position-wise feed-forward network (paper, section 3.3).

    PositionwiseFeedForward(d_model, d_ff, dropout=0.0): two nn.Linear layers named
    `w_1` (d_model -> d_ff) and `w_2` (d_ff -> d_model), with biases, and
    nn.Dropout(dropout).

    forward(x): x (batch, len, d_model) -> w_2(dropout(relu(w_1(x)))), shape
    (batch, len, d_model). The same weights act on every position separately.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        ### BEGIN SOLUTION
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        hidden = torch.relu(self.w_1(x))  # (batch, len, d_ff)
        return self.w_2(self.dropout(hidden))  # (batch, len, d_model)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_PositionwiseFeedForward", "points": 1}
check_PositionwiseFeedForward(PositionwiseFeedForward)
### BEGIN HIDDEN TESTS
check_PositionwiseFeedForward(PositionwiseFeedForward, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### One token at a time: seeing it
#
# **Predict first.** We change the vector of token 2 only, and run it through a
# feed-forward block and through a self-attention layer (reference modules). Which
# output positions change in each case? And if we *shuffle* the positions of the input
# instead, what happens to the outputs?

# %%
d_model, length = 8, 5
gen = torch.Generator().manual_seed(2)
x = torch.randn(1, length, d_model, generator=gen)  # (batch=1, len, d_model)
x_changed = x.clone()
x_changed[0, 2] += torch.randn(d_model, generator=gen)  # only token 2 differs

torch.manual_seed(0)
ffn, attention = ref.PositionwiseFeedForward(d_model, 32), MultiHeadAttention(d_model, 2)
with torch.no_grad():
    moved_ffn = (ffn(x_changed) - ffn(x)).abs().amax(dim=-1)[0]  # (len,)
    moved_att = (
        (attention(x_changed, x_changed, x_changed)[0] - attention(x, x, x)[0])
        .abs()
        .amax(dim=-1)[0]
    )
print("largest change per output position")
print("  feed-forward:  ", moved_ffn)
print("  self-attention:", moved_att)

order = torch.tensor([3, 0, 4, 1, 2])  # a shuffle of the 5 positions
with torch.no_grad():
    same = torch.allclose(ffn(x[:, order]), ffn(x)[:, order])
print("feed-forward of the shuffled input == shuffled feed-forward output:", same)

# %% [markdown]
# The feed-forward block changed only position 2: it is a function of one token at a
# time, the same function at every position, so shuffling its input just shuffles its
# output. Self-attention changed every position, because every token reads token 2.
# (Self-attention without positions is *also* unchanged by a shuffle, up to the same
# shuffle, as lesson 03 showed: what differs is that its output at one position reads
# all the others.)
#
# **Where the parameters are.** Per layer, with the paper's sizes:

# %%
d_model, num_heads, d_ff = 512, 8, 2048
counts = {
    "self-attention (4 projections)": MultiHeadAttention(d_model, num_heads),
    "feed-forward (w_1, w_2)": ref.PositionwiseFeedForward(d_model, d_ff),
    "two LayerNorms": nn.ModuleList([ref.LayerNorm(d_model), ref.LayerNorm(d_model)]),
}
for part, module in counts.items():
    print(f"{part:32} {sum(p.numel() for p in module.parameters()):>10,}")

# %% [markdown]
# $2 \cdot 512 \cdot 2048 + 2048 + 512 = 2\,099\,712$ for the feed-forward block, twice
# the attention's $4 \cdot 512^2 + 4 \cdot 512 = 1\,050\,624$: two thirds of an encoder
# layer's weights are in the part that never looks at another token. The LayerNorms are
# tiny ($4 \cdot 512$).

# %% [markdown]
# ## 4. Residual connections, and where the LayerNorm goes
#
# ### The residual connection
#
# A sub-layer does not *replace* its input; its output is **added** to it:
# $x + \operatorname{Sublayer}(x)$. Two things follow.
#
# * Each sub-layer only has to learn a *correction* to what is already there. A
#   sub-layer that has learned nothing useful can output values close to zero and leave
#   its input almost untouched, so adding layers does not easily make a model worse.
# * The gradient has a direct route back: the derivative of $x + F(x)$ with respect to
#   $x$ is $I + F'(x)$, and the $I$ carries the signal from the top of the stack to the
#   bottom without passing through every sub-layer's weights.
#
# The running sum that the sub-layers read from and write into is often called the
# **residual stream**.
#
# ### Post-LN and pre-LN
#
# Where does the LayerNorm go? The paper puts it **after** the sum:
#
# $$\text{post-LN (the paper):}\qquad x \leftarrow \operatorname{LayerNorm}\big(x + \operatorname{Dropout}(\operatorname{Sublayer}(x))\big)$$
#
# Almost every large model since GPT-2 puts it **before** the sub-layer, on the copy the
# sub-layer reads, and leaves the residual stream itself un-normalised:
#
# $$\text{pre-LN:}\qquad x \leftarrow x + \operatorname{Dropout}\big(\operatorname{Sublayer}(\operatorname{LayerNorm}(x))\big)$$
#
# Same parameters, same cost, different model. The difference is what the identity
# path looks like. In pre-LN, the output of layer $L$ is literally
# $x_0 + \sum_{l} F_l(\cdot)$: an unbroken sum from the input to the output, so the
# gradient reaches every layer along the identity. In post-LN, every step of that path
# passes through a LayerNorm, which rescales the signal (and its gradient) each time.
# Xiong et al. (2020) analysed what this does at initialisation: in post-LN the
# gradients of the layers near the output are large, which is why the paper's training
# needs a **learning-rate warm-up** (4000 steps of slowly increasing learning rate,
# section 5.3); pre-LN stacks train stably without one, often faster, and deeper stacks
# become practical. The price: pre-LN's residual stream grows layer by layer and is never
# normalised, so a pre-LN stack needs **one final LayerNorm** at its end (section 5).
#
# ### Where dropout goes
#
# The paper (section 5.4) applies dropout "to the output of each sub-layer, before it is
# added to the sub-layer input and normalized", with $P_\text{drop} = 0.1$ for the base
# model; in pre-LN it sits in the same place, just before the addition. The other
# dropouts of the model live elsewhere: on the sum of embeddings and positional
# encodings (lesson 03, also in section 5.4 of the paper), on the attention weights
# (lesson 05) and on the feed-forward block's hidden activations (section 3). The last
# two are not in the paper: they come from tensor2tensor, the authors' code
# (`attention_dropout`, `relu_dropout`), and PyTorch's `nn.MultiheadAttention` and
# `nn.TransformerEncoderLayer` have both. Dropout never touches the residual path
# itself: what is added back is always the whole $x$.

# %% [markdown]
# ### Exercise 3: `EncoderLayer`
# *3 points · about 30 min · challenging*
#
# Write the encoder layer as its docstring says, with both orders selected by
# `norm_first`. The sub-module names are part of the contract (`self_attn`,
# `feed_forward`, `norm1`, `norm2`): lesson 09 and the checks load weights by them.
# Use the `MultiHeadAttention` imported in the setup cell (lesson 05's reference) and
# your `LayerNorm` and `PositionwiseFeedForward`.
#
# The check also runs your layer in train mode with `dropout=1.0`, where every dropout
# zeroes its input: then a post-LN layer must give exactly `norm2(norm1(x))` and a
# pre-LN layer exactly `x`. Work out why before you start: it tells you where dropout
# must (and must not) be.
#
# <details><summary>Hint 1</summary>
#
# `MultiHeadAttention.forward(query, key, value, mask)` returns a pair,
# `(output, weights)`. In self-attention all three inputs are the same tensor.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Write two branches on `self.norm_first`, each with one line per sub-layer. One
# `nn.Dropout` module can serve both sub-layers: it has no weights.
# </details>
#
# <details><summary>Hint 3</summary>
#
# Post-LN: the sum comes first, then the norm; the sub-layer reads the un-normalised
# `x`. Pre-LN: the norm comes first, but only the sub-layer sees the normalised copy;
# what is added back is the original `x`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "EncoderLayer"}
class EncoderLayer(nn.Module):
    """One encoder layer: self-attention, then the feed-forward network, each wrapped
    in a residual connection and a LayerNorm.

    EncoderLayer(d_model, num_heads, d_ff, dropout=0.0, norm_first=False) has
    `self_attn` = MultiHeadAttention(d_model, num_heads, dropout) (lesson 05),
    `feed_forward` = PositionwiseFeedForward(d_model, d_ff, dropout),
    `norm1`, `norm2` = LayerNorm(d_model), and dropout (p = dropout) on the output
    of each sub-layer before it is added to the residual.

    forward(x, mask=None): x (batch, len, d_model); mask: None or bool, broadcastable
    to (batch, num_heads, len, len), True = may attend (the source padding mask).
    Post-LN (norm_first=False, the paper):
        x = norm1(x + dropout(self_attn(x, x, x, mask)))
        x = norm2(x + dropout(feed_forward(x)))
    Pre-LN (norm_first=True):
        x = x + dropout(self_attn(norm1(x), norm1(x), norm1(x), mask))
        x = x + dropout(feed_forward(norm2(x)))
    Returns (batch, len, d_model).
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
    ):
        super().__init__()
        ### BEGIN SOLUTION
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        ### BEGIN SOLUTION
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, mask)[0])
            return x + self.dropout(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))
        return self.norm2(x + self.dropout(self.feed_forward(x)))  # (batch, len, d_model)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_EncoderLayer", "points": 3}
check_EncoderLayer(EncoderLayer)
### BEGIN HIDDEN TESTS
check_EncoderLayer(EncoderLayer, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Your layer is PyTorch's
#
# `nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, batch_first=True,
# norm_first=...)` is the same layer (ReLU, LayerNorm eps $10^{-5}$), with other names
# for the same weights: `linear1`/`linear2` for `w_1`/`w_2`, and one fused
# `in_proj_weight` holding $W^Q, W^K, W^V$ stacked (lesson 05). The helpers below copy
# a layer of ours into PyTorch's; they also serve lessons 08 and 09.


# %% export=true
def copy_attention_into(ours: nn.Module, theirs: nn.MultiheadAttention) -> None:
    """Copy lesson 05's MultiHeadAttention (w_q, w_k, w_v, w_o) into nn.MultiheadAttention,
    which keeps the three input projections in one (3·d_model, d_model) in_proj_weight."""
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        theirs.out_proj.weight.copy_(ours.w_o.weight)
        theirs.out_proj.bias.copy_(ours.w_o.bias)


def copy_feed_forward_into(ours: nn.Module, theirs: nn.Module) -> None:
    """Copy a PositionwiseFeedForward (w_1, w_2) into PyTorch's layer (linear1, linear2)."""
    theirs.linear1.load_state_dict(ours.w_1.state_dict())
    theirs.linear2.load_state_dict(ours.w_2.state_dict())


def torch_encoder_layer(ours: nn.Module, norm_first: bool = False) -> nn.TransformerEncoderLayer:
    """An nn.TransformerEncoderLayer (batch_first, ReLU, dropout 0, eval mode) holding the
    weights of our EncoderLayer `ours`."""
    d_model, d_ff = ours.feed_forward.w_1.in_features, ours.feed_forward.w_1.out_features
    theirs = nn.TransformerEncoderLayer(
        d_model,
        ours.self_attn.num_heads,
        d_ff,
        dropout=0.0,
        batch_first=True,
        norm_first=norm_first,
    )
    copy_attention_into(ours.self_attn, theirs.self_attn)
    copy_feed_forward_into(ours.feed_forward, theirs)
    theirs.norm1.load_state_dict(ours.norm1.state_dict())
    theirs.norm2.load_state_dict(ours.norm2.state_dict())
    return theirs.eval()


# %% [markdown]
# In eval mode, PyTorch's Transformer modules may take a fused "fast path" that packs a
# padded batch into nested tensors and returns zeros at the `<pad>` positions instead of
# computing them; we switch it off, so that every position, pads included, is the plain
# computation and can be compared.

# %%
try:
    torch.backends.mha.set_fastpath_enabled(False)

    d_model, num_heads, d_ff = 16, 4, 40
    ids = torch.tensor([[5, 6, 7, 8, 0, 0], [3, 4, 5, 6, 7, 8]])  # (batch, len), <pad> = 0
    mask = padding_mask(ids, pad_id=0)  # (batch, 1, 1, len), True = may attend
    x = torch.randn(
        2, 6, d_model, generator=torch.Generator().manual_seed(3)
    )  # (batch, len, d_model)
    for norm_first in (False, True):
        torch.manual_seed(4)
        yours = EncoderLayer(d_model, num_heads, d_ff, dropout=0.0, norm_first=norm_first).eval()
        with torch.no_grad():
            for p in yours.parameters():  # move every weight away from its initial value
                p.add_(0.2 * torch.randn(p.shape))
            theirs = torch_encoder_layer(yours, norm_first)
            # nn's key padding mask is True at the pads: the opposite of ours (lesson 06)
            difference = (yours(x, mask) - theirs(x, src_key_padding_mask=ids == 0)).abs().max()
        name = "pre-LN " if norm_first else "post-LN"
        print(
            f"{name}: largest difference from nn.TransformerEncoderLayer = {difference.item():.1e}"
        )
except NotImplementedError:
    print("EncoderLayer is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# ### Post-LN and pre-LN at initialisation
#
# **Predict first.** We build two 16-layer encoders with the same random weights, one
# post-LN and one pre-LN, send a batch through, put a classifier with a cross-entropy
# loss on top, and backpropagate. (1) How big is the residual stream (the average length
# of a token vector) after each layer, in each stack? (2) How big is the gradient of
# each layer's weights? Sketch your two guesses, then run it (reference modules).

# %%
num_layers, d_model, num_heads, d_ff, vocab = 16, 64, 4, 256, 50
gen = torch.Generator().manual_seed(5)
x = torch.randn(8, 16, d_model, generator=gen)  # (batch, len, d_model)
labels = torch.randint(0, vocab, (8, 16), generator=gen)

fig, (ax_stream, ax_grad) = plt.subplots(1, 2, figsize=(11, 3.6))
for norm_first, colour in [(False, "tab:blue"), (True, "tab:orange")]:
    torch.manual_seed(6)  # the same initial weights for both stacks
    stack = ref.Encoder(num_layers, d_model, num_heads, d_ff, norm_first=norm_first)
    classifier = nn.Linear(d_model, vocab)
    h, sizes = x, []
    for layer in stack.layers:
        h = layer(h)  # (batch, len, d_model)
        sizes.append(h.norm(dim=-1).mean().item())  # average length of a token vector
    logits = classifier(h if stack.norm is None else stack.norm(h))  # (batch, len, vocab)
    loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), labels.reshape(-1))
    loss.backward()
    grads = [
        torch.cat([p.grad.flatten() for p in layer.parameters()]).norm().item()
        for layer in stack.layers
    ]
    label = "pre-LN (+ final norm)" if norm_first else "post-LN (the paper)"
    layers = range(1, num_layers + 1)
    ax_stream.plot(layers, sizes, "o-", color=colour, label=label)
    ax_grad.plot(layers, grads, "o-", color=colour, label=label)
ax_stream.set(
    xlabel="layer",
    ylabel="mean length of a token vector",
    title="the residual stream after each layer",
)
ax_grad.set(
    xlabel="layer",
    ylabel="gradient norm of the layer's weights",
    title="gradients at initialisation",
)
for ax in (ax_stream, ax_grad):
    ax.legend()
    ax.set_ylim(bottom=0)
plt.tight_layout()
plt.show()

# %% [markdown]
# Left: every post-LN layer ends with a LayerNorm, so its output always has length
# about $\sqrt{d_\text{model}} = 8$ (mean 0 and variance 1 over 64 features). The pre-LN
# stream is never normalised: each layer adds to it, and it keeps growing. That is why a
# pre-LN stack needs a final LayerNorm before anything reads its output.
#
# Right: in the post-LN stack, the gradients grow towards the top (the layers nearest
# the output); in the pre-LN stack they are flatter and, if anything, shrink towards the
# top, because each layer's contribution is a smaller share of a growing stream. This is
# a small model at initialisation, so the effect is mild; Xiong et al.'s analysis shows
# the gap widening with depth, and the large gradients near the output of a post-LN
# model are what makes large learning rates unstable there without a warm-up. Pre-LN
# pays with a stream that no one normalises along the way: some studies (Liu et al.,
# 2020) find post-LN slightly better *when* it trains well, which is one reason the
# paper's layout is still taught, and PyTorch offers both.

# %% [markdown]
# ## 5. The encoder: a stack of independent layers
#
# The encoder is `num_layers` encoder layers in a row ($N = 6$ in the paper), each
# reading the previous one's output, all with the **same mask** (the source padding
# mask: the padding does not move between layers).
#
# **Independent** means each layer has its own weights. The classic bug is to create one
# layer and put *the same object* in the list $N$ times (`[layer] * N`, or appending one
# object in a loop): the model then has one layer's weights, applied $N$ times. That is
# a different model (a weight-shared, "universal" Transformer) with $1/N$ of the
# parameters, and every optimiser step changes all "$N$" layers at once. The Annotated
# Transformer builds its stack with `copy.deepcopy` of one layer: that is fine, because a
# deep copy has its own tensors. A plain Python list is the other classic bug: modules
# held in it are invisible to PyTorch (no parameters, no state dict, not moved by
# `.to(device)`); `nn.ModuleList` registers them.
#
# **The final LayerNorm.** The paper's post-LN encoder has none: each layer already ends
# with a LayerNorm. A pre-LN encoder needs one (section 4's figure). PyTorch's
# `nn.Transformer` adds a final LayerNorm to its encoder **and** its decoder *in both
# modes*, post-LN included, unlike the paper. (In post-LN it is a second LayerNorm right
# after the last layer's own: at initialisation it changes almost nothing, but it has
# its own gain and bias, and a different function to learn.) So that the course's
# modules can be exactly the paper's *and* exactly PyTorch's, `Encoder` has an option:
#
# | `final_norm` | final LayerNorm `norm` | the same as |
# |---|---|---|
# | `None` (default) | if and only if `norm_first` | the paper (post-LN); common pre-LN practice |
# | `True` | yes | `nn.TransformerEncoder(layer, N, norm=nn.LayerNorm(d_model))`, as in `nn.Transformer` |
# | `False` | no | `nn.TransformerEncoder(layer, N, norm=None)` |
#
# Shapes: `x` `(batch, len, d_model)` and `mask` `(batch, 1, 1, len)` go in; every layer
# keeps `(batch, len, d_model)`; the output is `(batch, len, d_model)`, the **memory**
# that the decoder (lesson 08) reads.

# %% [markdown]
# ### Exercise 4: `Encoder`
# *2 points · about 15 min · core*
#
# Write the stack as its docstring says: `layers` (an `nn.ModuleList` of new
# `EncoderLayer`s) and `norm` (a `LayerNorm`, or `None`).
#
# <details><summary>Hint 1</summary>
#
# A list comprehension that calls `EncoderLayer(...)` once per iteration creates a new
# layer (with new weights) each time; wrap the list in `nn.ModuleList`.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Decide whether there is a final norm from `final_norm` and, when it is `None`, from
# `norm_first`; store `None` when there is none, and test for it in `forward`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "Encoder"}
class Encoder(nn.Module):
    """A stack of `num_layers` independent EncoderLayers.

    Encoder(num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
    final_norm=None): `layers` is an nn.ModuleList of num_layers new EncoderLayer
    objects (each with its own weights); when final_norm is True there is one more
    LayerNorm, `norm`, applied to the output of the last layer. final_norm=None means
    "the same as norm_first": the paper's post-LN stack has none (every layer already
    ends with a LayerNorm), a pre-LN stack needs one. nn.Transformer always adds it:
    Encoder(..., final_norm=True) is its encoder. Without a final norm, `norm` is None.

    forward(x, mask=None): x (batch, len, d_model) through every layer in order, with
    the same mask; returns (batch, len, d_model).
    """

    def __init__(
        self,
        num_layers: int,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
        final_norm: bool | None = None,
    ):
        super().__init__()
        ### BEGIN SOLUTION
        self.layers = nn.ModuleList(
            [EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]
        )
        use_final_norm = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use_final_norm else None
        ### END SOLUTION

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        ### BEGIN SOLUTION
        for layer in self.layers:
            x = layer(x, mask)  # (batch, len, d_model)
        return x if self.norm is None else self.norm(x)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_Encoder", "points": 2}
check_Encoder(Encoder)
### BEGIN HIDDEN TESTS
check_Encoder(Encoder, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Your encoder is PyTorch's
#
# `nn.TransformerEncoder(layer, num_layers, norm)` deep-copies `layer` `num_layers` times
# (independent layers, like yours) and applies `norm` at the end if it is given. Load
# your layers' weights into its copies; first with `final_norm=True` (the configuration of
# `nn.Transformer`), then the paper's post-LN stack without a final norm. The batch has
# padding at the end of one sentence and at the start of another.

# %%
try:
    d_model, num_heads, d_ff, num_layers = 16, 4, 32, 3
    ids = torch.tensor([[5, 6, 7, 8, 0, 0], [0, 0, 0, 3, 4, 5]])  # right and left padding
    mask = padding_mask(ids, pad_id=0)  # (batch, 1, 1, len)
    x = torch.randn(2, 6, d_model, generator=torch.Generator().manual_seed(7))
    for final_norm in (True, None):
        torch.manual_seed(8)
        yours = Encoder(num_layers, d_model, num_heads, d_ff, final_norm=final_norm).eval()
        layer = nn.TransformerEncoderLayer(d_model, num_heads, d_ff, 0.0, batch_first=True)
        final = nn.LayerNorm(d_model) if final_norm else None
        theirs = nn.TransformerEncoder(layer, num_layers, norm=final, enable_nested_tensor=False)
        with torch.no_grad():
            for ours_i, theirs_i in zip(yours.layers, theirs.layers, strict=True):
                theirs_i.load_state_dict(torch_encoder_layer(ours_i).state_dict())
            if final_norm:
                theirs.norm.load_state_dict(yours.norm.state_dict())
            difference = (
                (yours(x, mask) - theirs.eval()(x, src_key_padding_mask=ids == 0)).abs().max()
            )
        print(
            f"final_norm={final_norm!s:5}: largest difference from nn.TransformerEncoder = "
            f"{difference.item():.1e}"
        )
except NotImplementedError:
    print("Encoder is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# And the point of the padding mask, through the whole stack (a reference encoder):
# whatever sits at the padded positions (here, we overwrite them with large random
# vectors), the outputs at the real positions do not change, for padding at the end and
# at the start alike.

# %%
torch.manual_seed(9)
encoder = ref.Encoder(num_layers, d_model, num_heads, d_ff).eval()
noisy = x.clone()
noisy[ids == 0] = 10 * torch.randn(int((ids == 0).sum()), d_model)  # garbage at the pads
with torch.no_grad():
    out, out_noisy = encoder(x, mask), encoder(noisy, mask)  # (batch, len, d_model) each
real = ids != 0
print("largest change at real positions:", (out - out_noisy)[real].abs().max().item())
print("largest change at the pads:      ", (out - out_noisy)[~real].abs().max().item())

# %% [markdown]
# The pads' own outputs change (they are computed from garbage), which is harmless: the
# padding mask keeps every real token from reading them, in every layer, and the loss
# of lesson 10 ignores them.
#
# Finally, the shared-object bug in numbers: a "stack" built from one layer object has
# one layer's parameters.

# %%
shared_layer = ref.EncoderLayer(512, 8, 2048)
shared = nn.ModuleList([shared_layer] * 6)  # one object, six times: the bug
independent = ref.Encoder(6, 512, 8, 2048)
print(f"one layer object six times: {sum(p.numel() for p in shared.parameters()):>12,} parameters")
print(
    f"six independent layers:     {sum(p.numel() for p in independent.parameters()):>12,} parameters"
)

# %% [markdown]
# ### Question 2: the final LayerNorm
# *1 point · about 3 min · core*
#
# Which encoder needs a final LayerNorm after its last layer, and why? Make
# `quiz_final_norm` return the letter.
#
# * (a) a post-LN encoder, because its residual stream grows without bound
# * (b) neither: a final LayerNorm only slows training down
# * (c) a pre-LN encoder, because its last layer ends with a residual sum that no
#   LayerNorm follows
# * (d) both need one, which is why the paper's Figure 1 shows it


# %% nbgrader={"solution": true, "grade_id": "quiz_final_norm"}
def quiz_final_norm() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "c"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_final_norm", "points": 1}
check_quiz_final_norm(quiz_final_norm)
### BEGIN HIDDEN TESTS
check_quiz_final_norm(quiz_final_norm, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Common misconceptions
#
# * *"LayerNorm normalises across channels and spatial dimensions."* For an image, yes;
#   in a Transformer, `nn.LayerNorm(d_model)` normalises each token's `d_model` features
#   on their own. Positions and sentences never share statistics.
# * *"LayerNorm is BatchNorm applied along another axis, so either would do."* BatchNorm's
#   statistics depend on the rest of the batch and on its padding, and need running
#   averages at inference; LayerNorm's do not. Section 2's demo measures the difference.
# * *"`x.std(-1)` is the standard deviation LayerNorm uses."* It is the unbiased one
#   (divided by $d - 1$); LayerNorm's is the biased one. And $\varepsilon$ belongs inside
#   the square root, not added to the standard deviation.
# * *"The feed-forward block mixes the tokens."* It never looks at another token:
#   changing one token changes only its own output.
# * *"Dropout is applied to the residual stream."* It is applied to each sub-layer's
#   output before the addition; the residual path always carries all of $x$.
# * *"`[EncoderLayer(...)] * 6` makes six layers."* It makes one layer, referenced six
#   times; use a comprehension inside `nn.ModuleList` (or `copy.deepcopy`).
# * *"The paper's encoder ends with a LayerNorm."* Its post-LN encoder does not need one;
#   `nn.Transformer` adds one anyway, which is why `Encoder` has `final_norm`.
#
# ## Summary
#
# * An encoder layer maps `(batch, len, d_model)` to `(batch, len, d_model)`:
#   self-attention (mixes positions) and a position-wise feed-forward block (each
#   position alone), each wrapped in a residual connection, dropout and a LayerNorm.
# * LayerNorm: per token, mean and **biased** variance over the `d_model` features,
#   $(x - \mu)/\sqrt{\sigma^2 + \varepsilon}$, then a learned gain and bias. Not BatchNorm:
#   nothing depends on the batch or on padding.
# * Feed-forward: $\max(0, xW_1 + b_1)W_2 + b_2$, `d_model → d_ff → d_model`
#   ($512 \to 2048 \to 512$); two thirds of a layer's parameters.
# * Post-LN (paper): `norm(x + dropout(sublayer(x)))`; pre-LN (most models since):
#   `x + dropout(sublayer(norm(x)))`, an unbroken residual path, stable training without
#   warm-up, and a final LayerNorm at the end of the stack.
# * The encoder stacks `num_layers` independent layers with one padding mask; with
#   `final_norm=True` it is exactly `nn.TransformerEncoder(..., norm=nn.LayerNorm(d_model))`.
#
# ## Further reading
#
# * Vaswani et al., ["Attention Is All You Need"](https://arxiv.org/abs/1706.03762)
#   (2017): section 3.1 (the stacks, residual connections and LayerNorm, in one
#   paragraph), section 3.3 (the feed-forward block and its sizes), section 5.4 (the
#   residual dropout and its rate). Short, and worth reading against your code.
# * Ba, Kiros and Hinton, ["Layer Normalization"](https://arxiv.org/abs/1607.06450)
#   (2016): where LayerNorm comes from, and its comparison with BatchNorm for recurrent
#   networks, which have the same variable-length problem as Transformers.
# * Xiong et al., ["On Layer Normalization in the Transformer Architecture"](https://arxiv.org/abs/2002.04745)
#   (2020): post-LN versus pre-LN, the gradients at initialisation, and why pre-LN needs
#   no warm-up. Its figures show at scale what section 4 showed in miniature.
# * Liu et al., ["Understanding the Difficulty of Training Transformers"](https://arxiv.org/abs/2004.08249)
#   (2020): the other side of the argument, why post-LN is harder to train and how to
#   keep its benefits; read it after Xiong et al.
# * Rush et al., ["The Annotated Transformer"](https://nlp.seas.harvard.edu/annotated-transformer/):
#   the whole model in PyTorch, line by line. Its `SublayerConnection` is pre-LN (note
#   the comment there), and its `LayerNorm` uses the unbiased `std` with $\varepsilon$
#   outside the square root: now you can say how that differs from `nn.LayerNorm`.
# * Zhang et al., [Dive into Deep Learning](https://d2l.ai), section "The Transformer
#   Architecture": `AddNorm`, `PositionWiseFFN` and `TransformerEncoderBlock`, a post-LN
#   encoder written a little differently; good for a second view of the same pieces.
# * PyTorch's [`nn.TransformerEncoderLayer`](https://pytorch.org/docs/stable/generated/torch.nn.TransformerEncoderLayer.html)
#   and [`nn.TransformerEncoder`](https://pytorch.org/docs/stable/generated/torch.nn.TransformerEncoder.html)
#   documentation: the arguments you matched here (`norm_first`, `norm`,
#   `enable_nested_tensor`, the fast path).
#
# **Next:** lesson 08 builds the decoder, whose layers add a third sub-layer,
# cross-attention, that reads this encoder's output.
