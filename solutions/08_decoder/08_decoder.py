# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 08 · The decoder
#
# **Time:** about 1¾ hours: 51 minutes for the two exercises and two questions,
# the rest for reading and the demos.
#
# The encoder of lesson 07 reads the source sentence once and turns it into
# `memory`, one `d_model`-wide vector per source token. The **decoder** writes the
# target sentence. Its layers look like encoder layers with one extra sub-layer in the
# middle: a **cross-attention** through which every target position reads the
# encoder's memory. Everything else you have already built: attention (lessons 04-05),
# masks (lesson 06), LayerNorm, the feed-forward block and residual connections
# (lesson 07).
#
# **By the end of this lesson you can**
#
# * name what each of the decoder layer's three sub-layers reads, with its shapes, and
#   explain why cross-attention takes its **queries from the decoder** and its **keys
#   and values from the encoder output** (and why the popular version that says
#   otherwise cannot work);
# * route the two masks: the look-ahead and target padding mask to the self-attention,
#   the source padding mask to the cross-attention, built with lesson 06's functions;
# * build `DecoderLayer` and `Decoder`, post-LN and pre-LN, and match PyTorch's
#   `nn.TransformerDecoderLayer` and `nn.TransformerDecoder` to float precision;
# * show the two guarantees the masks give: the output at target position $t$ never
#   depends on target tokens after $t$, and padded source positions change nothing.
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. The hints
# under each exercise open one at a time. Demos that illustrate an idea use the course's
# reference modules (imported below); the demos right after a test cell, which compare
# your module with PyTorch's, use yours.
#
# Symbols (`transformer_course.glossary`): `len_src` and `len_tgt`, the (padded) lengths
# of the source and the target, which are in general **different**; `memory`, the
# encoder's output `(batch, len_src, d_model)`; `d_model`, `num_heads`, `d_ff`,
# `num_layers` as in lesson 07. Masks are bool, **True = may attend** (lesson 06).

# %% nbgrader={"locked": true, "grade_id": "setup"}
import matplotlib.pyplot as plt
import torch
from torch import nn

from transformer_course.checks.decoder import (
    check_Decoder,
    check_DecoderLayer,
    check_quiz_cross_attention_norm,
    check_quiz_decoder_masks,
)
from transformer_course.data import BALL_IS_BLUE
from transformer_course.plotting import attention_panels, heatmap, mask_heatmap
from transformer_course.reference import decoder as ref

# Earlier lessons' building blocks, the reference versions.
from transformer_course.reference.encoder import (
    Encoder,
    EncoderLayer,
    LayerNorm,
    PositionwiseFeedForward,
    copy_attention_into,
    copy_feed_forward_into,
    torch_encoder_layer,
)
from transformer_course.reference.masking import (
    decoder_self_attention_mask,
    look_ahead_mask,
    padding_mask,
)
from transformer_course.reference.multi_head_attention import MultiHeadAttention

torch.set_printoptions(precision=3, sci_mode=False)
torch.backends.mha.set_fastpath_enabled(False)  # compare PyTorch's plain computation (lesson 07)

# %% [markdown]
# ## 1. What the decoder does, and what it reads
#
# Translation, "The ball is blue" → "La bola es azul". The decoder produces the target
# one token at a time: given `<bos>` it should predict `la`; given `<bos> la`, `bola`;
# and so on. In training the whole target is fed in at once, shifted right by one
# (`<bos> la bola es azul` in, `la bola es azul <eos>` as the labels), and the
# look-ahead mask of lesson 06 makes each position behave as if the later ones did not
# exist yet. At every position the decoder has two sources of information:
#
# * the **target tokens so far**, which it reads with a masked self-attention;
# * the **whole source sentence**, as encoded in `memory`, which it reads with
#   cross-attention. The source is known in full before decoding starts, so the
#   cross-attention has no look-ahead mask, only the source's padding mask.
#
# One decoder layer (the paper's Figure 1, right), in post-LN form:
#
# ```
#  x (batch, len_tgt, d_model)          memory (batch, len_src, d_model)
#  │                                          │
#  ├─► masked self-attention(x, x, x, tgt_mask) ─► dropout ─► add to x ─► norm1
#  │                                          │
#  ├─► cross-attention(x, memory, memory, src_mask) ─► dropout ─► add ─► norm2
#  │                          (queries: x;  keys and values: memory)
#  ├─► feed-forward ─► dropout ─► add ─► norm3
#  ▼
#  output (batch, len_tgt, d_model)
# ```
#
# The output has one row per **target** position, like the input `x`; `memory` is only
# read. A decoder is `num_layers` such layers, each reading the *same* memory, and in
# lesson 09 a linear layer turns its output into a score for every word of the target
# vocabulary.

# %% [markdown]
# ## 2. Three attentions, drawn with their real shapes
#
# The whole Transformer uses attention in three places. They are the same operation
# (lesson 05's `MultiHeadAttention`); what differs is where the queries, keys and values
# come from, and which mask is applied:
#
# | attention | queries from | keys and values from | mask | weights |
# |---|---|---|---|---|
# | encoder self-attention | source `x` | source `x` | source padding | `(batch, num_heads, len_src, len_src)` |
# | decoder masked self-attention | target `x` | target `x` | look-ahead & target padding | `(batch, num_heads, len_tgt, len_tgt)` |
# | cross-attention | target `x` | encoder output `memory` | source padding | `(batch, num_heads, len_tgt, len_src)` |
#
# Here they are on a padded batch of two sentence pairs, "the ball is blue" (padded to
# `len_src = 6`) → "la bola es azul" (`len_tgt = 5` with `<bos>`), computed with
# untrained reference layers and random token vectors: the weights themselves mean
# nothing yet, but their *shapes* and their *zeros* are exactly those of a trained
# model. Each panel shows head 0 of the first sentence.

# %%
source = [*BALL_IS_BLUE[0].lower().split(), "<pad>", "<pad>"]  # len_src = 6
target = ["<bos>", *BALL_IS_BLUE[1].lower().split()]  # len_tgt = 5
PAD = 0
src_ids = torch.tensor([[4, 5, 6, 7, PAD, PAD], [8, 9, 10, 11, 12, 13]])  # (batch=2, len_src)
tgt_ids = torch.tensor([[1, 14, 15, 16, 17], [1, 18, 19, 20, PAD]])  # (batch=2, len_tgt)
src_mask = padding_mask(src_ids, PAD)  # (batch, 1, 1, len_src)
tgt_mask = decoder_self_attention_mask(tgt_ids, PAD)  # (batch, 1, len_tgt, len_tgt)

d_model, num_heads, d_ff = 16, 2, 32
gen = torch.Generator().manual_seed(0)
src_vectors = torch.randn(2, 6, d_model, generator=gen)  # (batch, len_src, d_model)
tgt_vectors = torch.randn(2, 5, d_model, generator=gen)  # (batch, len_tgt, d_model)
torch.manual_seed(0)
encoder_layer = EncoderLayer(d_model, num_heads, d_ff).eval()
decoder_layer = ref.DecoderLayer(d_model, num_heads, d_ff).eval()
with torch.no_grad():
    _, w_enc = encoder_layer.self_attn(src_vectors, src_vectors, src_vectors, src_mask)
    memory = encoder_layer(src_vectors, src_mask)  # (batch, len_src, d_model)
    out, w_self = decoder_layer.self_attn(tgt_vectors, tgt_vectors, tgt_vectors, tgt_mask)
    h = decoder_layer.norm1(tgt_vectors + out)  # post-LN: what the cross-attention reads
    _, w_cross = decoder_layer.cross_attn(h, memory, memory, src_mask)
for name, w in [("encoder self", w_enc), ("decoder self", w_self), ("cross", w_cross)]:
    print(f"{name:13} attention weights: {tuple(w.shape)}")
attention_panels(
    [
        (w_enc[0, 0], source, source, f"encoder self-attention\n{tuple(w_enc.shape)}"),
        (w_self[0, 0], target, target, f"decoder masked self-attention\n{tuple(w_self.shape)}"),
        (w_cross[0, 0], target, source, f"cross-attention\n{tuple(w_cross.shape)}"),
    ],
    title="the three attentions (batch, num_heads, len_q, len_k): head 0 of sentence 0",
)
plt.show()

# %% [markdown]
# Read the zeros: in the encoder panel, no query gives weight to the two `<pad>` keys;
# in the decoder's self-attention, nothing above the diagonal (no position looks
# ahead); in the cross-attention, the rows are the 5 target positions and the columns
# the 6 source positions, and the `<pad>` columns are zero again. The cross-attention
# map is not square: **source and target need not have the same length**, whatever you
# may have read, and within a batch each side is padded to its own longest sentence.

# %% [markdown]
# ## 3. Cross-attention: the decoder asks, the source answers
#
# In cross-attention the **queries come from the decoder**, one per target position,
# and the **keys and values come from the encoder output**. Read lesson 04's formula
# with those shapes:
#
# $$\underbrace{\operatorname{softmax}\!\Big(\frac{Q K^\top}{\sqrt{d_k}}\Big)}_{(\text{len\_tgt},\ \text{len\_src})}
# \ \underbrace{V}_{(\text{len\_src},\ d_v)} \;=\; \text{output}\ (\text{len\_tgt},\ d_v),
# \qquad Q \text{ from } x,\quad K, V \text{ from memory}.$$
#
# Each target position asks "which source positions matter for me now?" (its query
# against the source's keys), and receives a weighted average of the source's values:
# one output row per target position, which is what the decoder must produce. Keys and
# values come **in pairs**: key $j$ decides how much of value $j$ is taken, so both
# belong to the same sequence, the source.
#
# A widely read illustrated guide says the opposite: queries *and keys* from the
# encoder, values from the decoder. The shapes settle it. The weights would then be
# `(len_src, len_src)`, and multiplying them with `len_tgt` value rows is impossible
# unless the two lengths happen to match; and even then, the output would have one row
# per *source* position, not one per target position.
#
# **Predict first.** We ask the reference cross-attention for both versions, on the
# batch above (`len_src = 6`, `len_tgt = 5`). Which of the two calls works, and what
# shape does it return?

# %%
attention = decoder_layer.cross_attn  # a MultiHeadAttention (lesson 05)
with torch.no_grad():
    out, weights = attention(h, memory, memory, src_mask)  # queries from the decoder
    print("queries from the decoder:", tuple(out.shape), "weights", tuple(weights.shape))
    try:  # the illustrated guide's version: queries and keys from memory, values from x
        attention(memory, memory, h, src_mask)
    except RuntimeError as error:
        print("queries and keys from the encoder, values from the decoder:")
        print("   RuntimeError:", str(error).split("\n")[0])

# %% [markdown]
# ## 4. Two masks, two attentions
#
# Each attention gets its own mask, both built with lesson 06's functions from the
# token ids (shown here with the reference versions):
#
# * `tgt_mask = decoder_self_attention_mask(tgt_ids, pad_id)`, bool
#   `(batch, 1, len_tgt, len_tgt)`: the look-ahead mask and the target padding
#   together, for the **self-attention**;
# * `src_mask = padding_mask(src_ids, pad_id)`, bool `(batch, 1, 1, len_src)`: the
#   source padding, for the **cross-attention**. Its size-1 query axis broadcasts over
#   the `len_tgt` queries: every target position may read the same source positions.
#
# They are easy to mix up: both are "a padding mask of some sort", and PyTorch's
# `nn.TransformerDecoderLayer.forward(tgt, memory, tgt_mask, memory_mask, ...)` even
# takes its masks in a different order from ours. When `len_src != len_tgt`, a swap
# fails loudly with a shape error; when the lengths happen to be equal, it runs and is
# silently wrong. Here are the self-attention mask of the second sentence pair (whose
# target has one `<pad>`) and the cross-attention mask of the first (whose source has
# two), each broadcast to the shape of the weights it acts on:

# %%
second_target = ["<bos>", "w1", "w2", "w3", "<pad>"]  # the second pair's target, len_tgt = 5
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
mask_heatmap(
    tgt_mask[1, 0],
    second_target,
    second_target,
    ax=axes[0],
    title="tgt_mask[1], for the self-attention\n(len_tgt, len_tgt)",
)
cross_view = src_mask[0, 0].expand(len(target), len(source))  # (len_tgt, len_src)
mask_heatmap(
    cross_view,
    target,
    source,
    ax=axes[1],
    title="src_mask[0], for the cross-attention\n(len_tgt, len_src) after broadcasting",
)
plt.tight_layout()
plt.show()

# %% [markdown]
# ### Exercise 1: `DecoderLayer`
# *3 points · about 30 min · challenging*
#
# Write the decoder layer as its docstring says, post-LN and pre-LN. The building
# blocks are imported in the setup cell: `MultiHeadAttention` (lesson 05) and
# `LayerNorm` and `PositionwiseFeedForward` (lesson 07), all reference versions. The
# sub-module names (`self_attn`, `cross_attn`, `feed_forward`, `norm1`, `norm2`,
# `norm3`) are the contract: weights are loaded by them.
#
# The check runs your layer on inputs where the two lengths are equal (so that a mask
# or a query given to the wrong attention gives a wrong *value*, which it can name) and
# on inputs where they differ; in eval and in train mode, where `dropout=1.0` must give
# exactly `norm3(norm2(norm1(x)))` (post-LN) and `x` (pre-LN). It also checks the two
# guarantees of section 5.
#
# <details><summary>Hint 1</summary>
#
# Start from your `EncoderLayer` of lesson 07: the self-attention and feed-forward
# sub-layers are the same, with `tgt_mask` for the self-attention. The cross-attention
# sub-layer goes between them and is wrapped the same way.
# </details>
#
# <details><summary>Hint 2</summary>
#
# `MultiHeadAttention.forward(query, key, value, mask)`: pass the decoder's tensor as
# `query`, `memory` as both `key` and `value`, and `src_mask` as the mask; take element
# `[0]` of the pair it returns.
# </details>
#
# <details><summary>Hint 3</summary>
#
# In pre-LN, `norm2` normalises the decoder's tensor before it becomes the queries; the
# keys and values are `memory` as it comes (it has been normalised by the encoder
# already).
# </details>


# %% nbgrader={"solution": true, "grade_id": "DecoderLayer"}
class DecoderLayer(nn.Module):
    """One decoder layer: masked self-attention, cross-attention, feed-forward, each
    wrapped in a residual connection and a LayerNorm.

    DecoderLayer(d_model, num_heads, d_ff, dropout=0.0, norm_first=False) has
    `self_attn` and `cross_attn` = MultiHeadAttention(d_model, num_heads, dropout),
    `feed_forward` = PositionwiseFeedForward(d_model, d_ff, dropout), `norm1`,
    `norm2`, `norm3` = LayerNorm(d_model), and dropout on each sub-layer's output.

    forward(x, memory, src_mask=None, tgt_mask=None):
        x: (batch, len_tgt, d_model), the decoder's input;
        memory: (batch, len_src, d_model), the encoder's output;
        tgt_mask: bool, broadcastable to (batch, num_heads, len_tgt, len_tgt), True =
            may attend (look-ahead and target padding), for the self-attention;
        src_mask: bool, broadcastable to (batch, num_heads, len_tgt, len_src) (the
            source padding mask), for the cross-attention.
    Cross-attention takes its queries from the decoder (x) and its keys and values
    from the encoder output (memory). Post-LN (norm_first=False, the paper):
        x = norm1(x + dropout(self_attn(x, x, x, tgt_mask)))
        x = norm2(x + dropout(cross_attn(x, memory, memory, src_mask)))
        x = norm3(x + dropout(feed_forward(x)))
    Pre-LN (norm_first=True): x = x + dropout(sublayer(norm_i(x))) for each, with the
    cross-attention's keys and values the (un-normalised) memory.
    Returns (batch, len_tgt, d_model).
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
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        ### END SOLUTION

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        ### BEGIN SOLUTION
        if self.norm_first:
            h = self.norm1(x)
            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])
            h = self.norm2(x)  # queries from the decoder, keys and values from the encoder
            x = x + self.dropout(self.cross_attn(h, memory, memory, src_mask)[0])
            return x + self.dropout(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))
        return self.norm3(x + self.dropout(self.feed_forward(x)))  # (batch, len_tgt, d_model)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_DecoderLayer", "points": 3}
check_DecoderLayer(DecoderLayer)
### BEGIN HIDDEN TESTS
check_DecoderLayer(DecoderLayer, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Your layer is PyTorch's
#
# `nn.TransformerDecoderLayer` is the same layer with other names: its cross-attention
# is called `multihead_attn`, its feed-forward layers `linear1` and `linear2`; and its
# masks are passed differently (True = *blocked*, the padding as separate
# `tgt_key_padding_mask` and `memory_key_padding_mask`, lesson 06's table). The helper
# below copies a layer of ours into PyTorch's, with lesson 07's helpers.


# %% export=true
def torch_decoder_layer(ours: nn.Module, norm_first: bool = False) -> nn.TransformerDecoderLayer:
    """An nn.TransformerDecoderLayer (batch_first, ReLU, dropout 0, eval mode) holding the
    weights of our DecoderLayer `ours` (PyTorch calls the cross-attention multihead_attn)."""
    d_model, d_ff = ours.feed_forward.w_1.in_features, ours.feed_forward.w_1.out_features
    theirs = nn.TransformerDecoderLayer(
        d_model,
        ours.self_attn.num_heads,
        d_ff,
        dropout=0.0,
        batch_first=True,
        norm_first=norm_first,
    )
    copy_attention_into(ours.self_attn, theirs.self_attn)
    copy_attention_into(ours.cross_attn, theirs.multihead_attn)
    copy_feed_forward_into(ours.feed_forward, theirs)
    for name in ("norm1", "norm2", "norm3"):
        getattr(theirs, name).load_state_dict(getattr(ours, name).state_dict())
    return theirs.eval()


# %%
def torch_masks(src_ids, tgt_ids, pad_id=0):
    """Our inputs' masks in nn.TransformerDecoder(Layer)'s form: True = blocked."""
    return {
        "tgt_mask": ~look_ahead_mask(tgt_ids.shape[1]),  # (len_tgt, len_tgt)
        "tgt_key_padding_mask": tgt_ids == pad_id,  # (batch, len_tgt)
        "memory_key_padding_mask": src_ids == pad_id,  # (batch, len_src)
    }


try:
    for norm_first in (False, True):
        torch.manual_seed(1)
        yours = DecoderLayer(d_model, num_heads, d_ff, norm_first=norm_first).eval()
        with torch.no_grad():
            for p in yours.parameters():  # move every weight away from its initial value
                p.add_(0.2 * torch.randn(p.shape))
            theirs = torch_decoder_layer(yours, norm_first)
            mine = yours(tgt_vectors, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)
            pytorchs = theirs(tgt_vectors, memory, **torch_masks(src_ids, tgt_ids))
        name = "pre-LN " if norm_first else "post-LN"
        print(
            f"{name}: output {tuple(mine.shape)}, largest difference from "
            f"nn.TransformerDecoderLayer = {(mine - pytorchs).abs().max().item():.1e}"
        )
except NotImplementedError:
    print(
        "DecoderLayer is not written yet: this cell compares it with nn.TransformerDecoderLayer once it is."
    )

# %% [markdown]
# ### Question 1: what cross-attention reads in a pre-LN layer
# *1 point · about 3 min · core*
#
# In a pre-LN decoder layer (`norm_first=True`), the second sub-layer is
# `x = x + dropout(cross_attn(query, key, value, src_mask)[0])`. What are `query`,
# `key` and `value`? Make `quiz_cross_attention_norm` return the letter.
#
# * (a) `norm2(x)`, `norm2(memory)`, `norm2(memory)`
# * (b) `norm2(x)`, `memory`, `memory`
# * (c) `x`, `norm2(memory)`, `norm2(memory)`
# * (d) `memory`, `norm2(x)`, `norm2(x)`


# %% nbgrader={"solution": true, "grade_id": "quiz_cross_attention_norm"}
def quiz_cross_attention_norm() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_cross_attention_norm", "points": 1}
check_quiz_cross_attention_norm(quiz_cross_attention_norm)
### BEGIN HIDDEN TESTS
check_quiz_cross_attention_norm(quiz_cross_attention_norm, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. What the masks guarantee
#
# Two properties make a decoder layer usable, and the check tested both on your layer.
# Here they are in pictures, on a reference layer.
#
# ### No peeking: position $t$ never depends on target tokens after $t$
#
# **Predict first.** We change the decoder's input at one target position $s$ at a time
# and record how much the output at every position $t$ moves. Draw the
# `(len_tgt, len_tgt)` map you expect with the look-ahead mask, and without it.

# %%
torch.manual_seed(2)
layer = ref.DecoderLayer(d_model, num_heads, d_ff).eval()
len_tgt = 7
gen = torch.Generator().manual_seed(3)
x = torch.randn(1, len_tgt, d_model, generator=gen)  # (batch=1, len_tgt, d_model)
memory_1 = torch.randn(1, 4, d_model, generator=gen)  # (batch=1, len_src=4, d_model)


def influence(mask):
    """(len_tgt, len_tgt): entry [t, s] = how much output t moves when input s changes."""
    moved = torch.zeros(len_tgt, len_tgt)
    with torch.no_grad():
        base = layer(x, memory_1, None, mask)
        for s in range(len_tgt):
            changed = x.clone()
            changed[0, s] += torch.randn(d_model, generator=gen)
            moved[:, s] = (layer(changed, memory_1, None, mask) - base)[0].abs().amax(dim=-1)
    return moved


fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for ax, mask, name in [
    (axes[0], look_ahead_mask(len_tgt), "with the look-ahead mask"),
    (axes[1], None, "without a mask"),
]:
    moved = influence(mask)  # (len_tgt, len_tgt)
    heatmap(
        torch.log10(moved).clamp(min=-6),  # exact zeros (log = -inf) drawn at -6
        ax=ax,
        title=f"{name}\nlog10 of the change (-6: exactly zero)",
        cmap="magma",
        vmin=-6,
        vmax=1,
        xlabel="target position s whose input changed",
        ylabel="output position t",
    )
    print(f"{name}: changes above the diagonal (s > t): {moved.triu(1).count_nonzero()} of 21")
plt.tight_layout()
plt.show()

# %% [markdown]
# With the mask, everything above the diagonal is exactly zero: the output at position
# $t$ moves only when an input at $s \le t$ changes (most of all on the diagonal,
# through the residual connection). That is what makes training with the whole target
# at once honest: position $t$ is trained to predict token $t + 1$ without being able to
# read it. Without the mask, every output depends on every input, including the answers.
#
# ### Padded source positions are invisible
#
# The cross-attention gives exactly zero weight to `<pad>` keys (section 2's figure), so
# whatever the encoder left at the padded source positions cannot reach the decoder.
# We overwrite them with large random vectors and compare:

# %%
with torch.no_grad():
    clean = decoder_layer(tgt_vectors, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)
    garbage = memory.clone()
    garbage[src_ids == PAD] = 100 * torch.randn(int((src_ids == PAD).sum()), d_model)
    dirty = decoder_layer(tgt_vectors, garbage, src_mask, tgt_mask)
    unmasked = decoder_layer(tgt_vectors, garbage, None, tgt_mask)
print(
    "cross-attention weight on <pad> keys:      ",
    w_cross[0][..., src_ids[0] == PAD].abs().max().item(),
)
print("change with src_mask, pads overwritten:    ", (clean - dirty).abs().max().item())
print("change without src_mask, pads overwritten: ", (clean - unmasked).abs().max().item())

# %% [markdown]
# ## 6. The decoder: a stack of independent layers
#
# Like the encoder, the decoder is `num_layers` independent layers ($N = 6$ in the
# paper) in a row, with an optional final LayerNorm `norm` that follows the same rule
# (`final_norm=None` means "the same as `norm_first`"; `nn.Transformer` always has one).
# Two things are passed unchanged to **every** layer:
#
# * `memory`, the encoder's output: every decoder layer reads the *final* encoder output
#   (not a layer-by-layer pairing of encoder and decoder layers);
# * the two masks.
#
# Shapes: `x` `(batch, len_tgt, d_model)` and `memory` `(batch, len_src, d_model)` in;
# `(batch, len_tgt, d_model)` after every layer and out.

# %% [markdown]
# ### Exercise 2: `Decoder`
# *2 points · about 15 min · core*
#
# Write the stack as its docstring says, on your `DecoderLayer`. It is lesson 07's
# `Encoder` with one more input.
#
# <details><summary>Hint 1</summary>
#
# The same structure as your `Encoder`: an `nn.ModuleList` of new layers built in a
# comprehension, and `norm` a `LayerNorm` or `None`.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Each layer gets the previous layer's output as `x`, and the same `memory`, `src_mask`
# and `tgt_mask`, in `DecoderLayer.forward`'s order: `(x, memory, src_mask, tgt_mask)`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "Decoder"}
class Decoder(nn.Module):
    """A stack of `num_layers` independent DecoderLayers.

    Decoder(num_layers, d_model, num_heads, d_ff, dropout=0.0, norm_first=False,
    final_norm=None): `layers` is an nn.ModuleList of new DecoderLayer objects, and
    `norm` a final LayerNorm when final_norm is True (None means "the same as
    norm_first", as for the Encoder; nn.Transformer always has it). Without a final
    norm, `norm` is None.

    forward(x, memory, src_mask=None, tgt_mask=None): x (batch, len_tgt, d_model)
    through every layer in order, each reading the same memory (batch, len_src,
    d_model) and masks; returns (batch, len_tgt, d_model).
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
            [DecoderLayer(d_model, num_heads, d_ff, dropout, norm_first) for _ in range(num_layers)]
        )
        use_final_norm = norm_first if final_norm is None else final_norm
        self.norm = LayerNorm(d_model) if use_final_norm else None
        ### END SOLUTION

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        ### BEGIN SOLUTION
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)
        return x if self.norm is None else self.norm(x)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_Decoder", "points": 2}
check_Decoder(Decoder)
### BEGIN HIDDEN TESTS
check_Decoder(Decoder, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Your encoder-decoder stack is PyTorch's
#
# The reference `Encoder` (lesson 07) and your `Decoder`, both with a final LayerNorm
# (`final_norm=True`, `nn.Transformer`'s configuration), against
# `nn.TransformerEncoder` and `nn.TransformerDecoder` holding the same weights, on
# section 2's batch (the first source and the second target end in padding, and the two
# lengths differ). Watch the shapes on the way through:

# %%
try:
    num_layers = 2
    torch.manual_seed(4)
    encoder = Encoder(num_layers, d_model, num_heads, d_ff, final_norm=True).eval()
    yours = Decoder(num_layers, d_model, num_heads, d_ff, final_norm=True).eval()
    torch_encoder = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(d_model, num_heads, d_ff, 0.0, batch_first=True),
        num_layers,
        norm=nn.LayerNorm(d_model),
        enable_nested_tensor=False,
    ).eval()
    torch_decoder = nn.TransformerDecoder(
        nn.TransformerDecoderLayer(d_model, num_heads, d_ff, 0.0, batch_first=True),
        num_layers,
        norm=nn.LayerNorm(d_model),
    ).eval()
    with torch.no_grad():
        for ours_i, theirs_i in zip(encoder.layers, torch_encoder.layers, strict=True):
            theirs_i.load_state_dict(torch_encoder_layer(ours_i).state_dict())
        for ours_i, theirs_i in zip(yours.layers, torch_decoder.layers, strict=True):
            theirs_i.load_state_dict(torch_decoder_layer(ours_i).state_dict())
        torch_encoder.norm.load_state_dict(encoder.norm.state_dict())
        torch_decoder.norm.load_state_dict(yours.norm.state_dict())

        print("source vectors       ", tuple(src_vectors.shape), "  (batch, len_src, d_model)")
        print("src_mask             ", tuple(src_mask.shape), "  (batch, 1, 1, len_src)")
        memory = encoder(src_vectors, src_mask)
        print("memory               ", tuple(memory.shape), "  (batch, len_src, d_model)")
        print("target vectors       ", tuple(tgt_vectors.shape), "  (batch, len_tgt, d_model)")
        print("tgt_mask             ", tuple(tgt_mask.shape), "  (batch, 1, len_tgt, len_tgt)")
        out = yours(tgt_vectors, memory, src_mask, tgt_mask)
        print("decoder output       ", tuple(out.shape), "  (batch, len_tgt, d_model)")

        torch_memory = torch_encoder(src_vectors, src_key_padding_mask=src_ids == PAD)
        torch_out = torch_decoder(tgt_vectors, torch_memory, **torch_masks(src_ids, tgt_ids))
    print(
        f"largest difference from nn.TransformerEncoder + nn.TransformerDecoder: "
        f"{(out - torch_out).abs().max().item():.1e}"
    )
except NotImplementedError:
    print(
        "Decoder is not written yet: this cell compares it with nn.TransformerDecoder once it is."
    )

# %% [markdown]
# Lesson 09 puts embeddings and positional encodings in front of this stack and a
# linear layer over the target vocabulary behind it, and compares the whole model with
# `nn.Transformer`.

# %% [markdown]
# ### Question 2: the cross-attention's mask
# *1 point · about 3 min · core*
#
# Which mask does the decoder's cross-attention get? Make `quiz_decoder_masks` return
# the letter.
#
# * (a) the look-ahead mask, because the decoder must not see the future
# * (b) the source padding mask, broadcast over every target position
# * (c) the look-ahead and target padding masks combined
# * (d) no mask: the encoder output has no padding left


# %% nbgrader={"solution": true, "grade_id": "quiz_decoder_masks"}
def quiz_decoder_masks() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_decoder_masks", "points": 1}
check_quiz_decoder_masks(quiz_decoder_masks)
### BEGIN HIDDEN TESTS
check_quiz_decoder_masks(quiz_decoder_masks, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Common misconceptions
#
# * *"In the decoder's second attention, queries and keys come from the encoder and
#   values from the decoder."* Queries come from the decoder; keys **and** values from the
#   encoder output. The other way round, the output would have one row per source token.
# * *"The source and the target must have the same length."* Cross-attention weights are
#   `(len_tgt, len_src)`; each side is padded within its own batch.
# * *"The cross-attention needs the look-ahead mask too."* The whole source is known
#   before decoding starts; only its padding is masked there. The look-ahead mask is for
#   the self-attention, over the target.
# * *"Decoder layer $i$ reads encoder layer $i$."* Every decoder layer reads the same,
#   final encoder output.
# * *"In pre-LN, the memory is normalised by each decoder layer."* Only the decoder's
#   own stream is normalised before each sub-layer; the memory arrives normalised by the
#   encoder's final LayerNorm.
# * *"The decoder's output is a probability distribution."* It is a
#   `(batch, len_tgt, d_model)` tensor of vectors; lesson 09's linear layer and softmax
#   turn each one into a distribution over the target vocabulary.
#
# ## Summary
#
# * A decoder layer has three sub-layers, each with a residual connection, dropout and a
#   LayerNorm: masked self-attention (`tgt_mask`), cross-attention (queries from the
#   decoder, keys and values from `memory`, `src_mask`), feed-forward.
# * Shapes: `x` `(batch, len_tgt, d_model)`, `memory` `(batch, len_src, d_model)`;
#   cross-attention weights `(batch, num_heads, len_tgt, len_src)`; output
#   `(batch, len_tgt, d_model)`.
# * Masks: `decoder_self_attention_mask(tgt_ids, pad_id)` → self-attention;
#   `padding_mask(src_ids, pad_id)` → cross-attention.
# * The guarantees: position $t$'s output never depends on target inputs after $t$;
#   padded source positions change nothing.
# * `Decoder` stacks independent layers, all reading the same memory and masks; with
#   `final_norm=True` it is exactly `nn.TransformerDecoder(..., norm=nn.LayerNorm(d_model))`.
#
# ## Further reading
#
# * Vaswani et al., ["Attention Is All You Need"](https://arxiv.org/abs/1706.03762)
#   (2017): section 3.1 (the decoder's third sub-layer, and why the self-attention is
#   masked), section 3.2.3 (the three uses of attention, in one list), section 5.4
#   (residual dropout). Check each sentence against your `DecoderLayer`.
# * Rush et al., ["The Annotated Transformer"](https://nlp.seas.harvard.edu/annotated-transformer/):
#   `DecoderLayer` calls its cross-attention `src_attn` and reads `m = memory` for keys
#   and values; the same layer in pre-LN form, with a training loop around it.
# * Zhang et al., [Dive into Deep Learning](https://d2l.ai), section "The Transformer
#   Architecture": `TransformerDecoderBlock` keeps the tokens decoded so far as a state
#   and builds its own look-ahead (valid lengths) inside the block; a useful contrast to
#   passing masks in.
# * Jay Alammar, ["The Illustrated Transformer"](https://jalammar.github.io/illustrated-transformer/):
#   the decoder drawn step by step, with animations of decoding; good pictures, read
#   with this lesson's shapes in mind.
# * PyTorch's [`nn.TransformerDecoderLayer`](https://pytorch.org/docs/stable/generated/torch.nn.TransformerDecoderLayer.html)
#   and [`nn.TransformerDecoder`](https://pytorch.org/docs/stable/generated/torch.nn.TransformerDecoder.html):
#   `multihead_attn`, the argument order `(tgt, memory, tgt_mask, memory_mask, ...)` and
#   the True-means-blocked masks you converted above.
#
# **Next:** lesson 09 puts embeddings, positional encodings and an output layer around
# your encoder and decoder: the complete Transformer, checked against `nn.Transformer`.
