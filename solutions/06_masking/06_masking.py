# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 06 · Masking: what attention is not allowed to see
#
# **Time:** about 1¼ hours: 41 minutes for the three exercises and two questions,
# the rest for reading and the demos.
#
# Attention, as built in lessons 04 and 05, lets **every query look at every key**.
# That is exactly what makes it powerful, and in two situations it is exactly wrong:
#
# 1. **Padding.** A batch is a rectangle, so short sentences are filled up with
#    `<pad>` tokens (lesson 01). Pads are not words; no real token should take
#    information from them.
# 2. **The future.** The decoder learns to predict the *next* token. During
#    training the whole target sentence is fed in at once, so without a guard
#    position *i* could simply read the answer at position *i + 1*.
#
# A **mask** is how we tell attention "not this key". In this lesson you build
#
# | function | returns | used in |
# |---|---|---|
# | `padding_mask(ids, pad_id)` | bool `(batch, 1, 1, len)` | encoder self-attention, cross-attention |
# | `look_ahead_mask(size)` | bool `(size, size)` | decoder self-attention |
# | `decoder_self_attention_mask(tgt_ids, pad_id)` | bool `(batch, 1, len, len)` | decoder self-attention |
#
# and then check, on real attention, the properties that make them right: padded
# keys get *exactly* zero weight, changing future tokens never changes earlier
# outputs, and a sequence that is all padding produces no NaN.
#
# **By the end of this lesson you can**
#
# * say where a mask enters attention, why blocked scores become −∞ (or a very large
#   negative number) and what each choice does in float32 and float16;
# * say what a query that may attend to nothing should get, and why not NaN;
# * build the padding mask, the look-ahead mask and the decoder's combined mask, with
#   shapes that broadcast against `(batch, num_heads, len_q, len_k)`;
# * say which mask goes on each of the Transformer's three attentions;
# * convert between this course's masks and PyTorch's three other conventions.
#
# **One convention for the whole course:** a mask is a `torch.bool` tensor in which
# **`True` means "may attend"**, the convention of PyTorch's
# `F.scaled_dot_product_attention`. Some PyTorch modules use the opposite; section 6
# shows how to convert.
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. A test
# cell prints `✓ ...` when your function is right and explains what is wrong when
# it is not; the hints under each exercise open one at a time. The demos use the
# *reference* attention of lessons 04 and 05 (imported below), so that everything
# here works whatever state your earlier notebooks are in.

# %% nbgrader={"locked": true, "grade_id": "setup"}
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checks.masking import (
    check_decoder_self_attention_mask,
    check_look_ahead_mask,
    check_padding_mask,
    check_quiz_fully_masked_row,
    check_quiz_which_mask,
)
from transformer_course.data import BALL_IS_BLUE, BLACK_CAT, HI_HOW_ARE_YOU
from transformer_course.plotting import attention_heads, attention_heatmap, mask_heatmap
from transformer_course.reference import tokenization as tok
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.multi_head_attention import MultiHeadAttention

torch.manual_seed(0)  # the demos' random weights (the checks seed themselves)
PAD_ID = tok.PAD_ID  # 0, as in lesson 01

# %% [markdown]
# ## 1. Where a mask enters attention, and why −∞
#
# Scaled dot-product attention with a mask is
#
# $$
# \operatorname{Attention}(Q, K, V, M) = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)V,
# \qquad
# M_{ij} = \begin{cases} 0 & \text{if query } i \text{ may attend to key } j,\\ -\infty & \text{otherwise.}\end{cases}
# $$
#
# The mask is added to the **scaled** scores, right before the softmax (in the
# paper's Figure 2 the "Mask (opt.)" box sits between "Scale" and "SoftMax"). In
# code we keep the mask as booleans and let the attention function do the
# adding: the reference `scaled_dot_product_attention` runs
# `scores.masked_fill(~mask, float("-inf"))`.
#
# Why minus infinity? Look at one query's row. The softmax weight of key $j$ is
#
# $$
# a_j = \frac{e^{s_j + M_j}}{\sum_{l} e^{s_l + M_l}} .
# $$
#
# For a blocked key $e^{s_j - \infty} = e^{-\infty} = 0$ **exactly**: the key
# contributes nothing to the numerator *or* the denominator, so the remaining
# weights still sum to 1, shared among the allowed keys only. The result is
# the same as if the blocked keys had been deleted from the sequence.
#
# **Worked example.** One query, four keys with scaled scores $s = (2.0, 1.0, 0.5, 3.0)$.
# Unmasked, the weights are $e^{s}/\sum e^{s} \approx (0.23, 0.09, 0.05, 0.63)$.
# Block the last key: $e^{3 - \infty} = 0$, and the other three share the whole
# weight, $(e^{2}, e^{1}, e^{0.5}) / (e^{2} + e^{1} + e^{0.5}) \approx (0.63, 0.23, 0.14)$.
#
# Many implementations use a large *finite* negative number instead (the seed
# articles use $-10^{9}$, the Annotated Transformer too, d2l uses $-10^{6}$).
#
# **Predict, then check.** The cell below hides the last key with six different fill
# values. For which of them will the hidden key get exactly 0? Which one hides
# nothing at all?

# %%
scores = torch.tensor([2.0, 1.0, 0.5, 3.0])  # scaled scores of one query against 4 keys
blocked = torch.tensor([False, False, False, True])  # hide the last key
print("unmasked weights       ", torch.softmax(scores, dim=-1).numpy().round(4))
for fill in [float("-inf"), -1e9, -1e4, -20.0, -5.0, 0.0]:
    weights = torch.softmax(scores.masked_fill(blocked, fill), dim=-1)  # (4,)
    hidden_weight = weights[3].item()
    print(
        f"fill {fill:>8g}: weights {weights.numpy().round(4)}, hidden key gets {hidden_weight:.3g}"
    )

# %% [markdown]
# What the numbers say:
#
# * A large enough negative number also gives exactly 0: $e^{-10^9}$ (and already
#   $e^{-10^4}$) underflows to 0 in float32.
# * A *moderate* one does not: with $-5$ the hidden key still gets a weight of
#   0.000573 ($e^{-5}$ against $e^{2} + e^{1} + e^{0.5} \approx 11.8$), small but not
#   zero, and it adds up over many hidden keys and many layers. With $-20$ it is
#   $1.75 \times 10^{-10}$.
# * Filling with **0** (a popular slip: "zero out the masked scores") hides nothing:
#   $e^{0} = 1$ is an ordinary score, and the "hidden" key gets 0.0784, more than the
#   visible key whose score is 0.5.
#
# **Half precision.** The largest float16 number is 65504, so $-10^{9}$ does not fit.
# What happens depends on how it gets there: `masked_fill` with the Python number
# `-1e9` on a float16 tensor refuses with an overflow error, while converting a float32
# tensor that holds $-10^{9}$ to float16 silently turns it into $-\infty$. Code that
# must run in half precision fills with `float("-inf")` or with
# `torch.finfo(scores.dtype).min`, the most negative number of the tensor's own dtype:

# %%
half_scores = scores.half()  # float16
try:
    half_scores.masked_fill(blocked, -1e9)
except RuntimeError as error:
    print("masked_fill(blocked, -1e9) on float16 raises:", error)
print("torch.tensor(-1e9).half() is", torch.tensor(-1e9).half().item())
lowest = torch.finfo(half_scores.dtype).min  # -65504.0
safe = torch.softmax(half_scores.masked_fill(blocked, lowest), dim=-1)
print(f"finfo(float16).min = {lowest}: weights {safe.tolist()}")

# %% [markdown]
# **The fully masked row.** What if a query may attend to *nothing*, for example a
# query in a sequence that is all padding, or a pad at the start of a left-padded
# sequence under the decoder's mask (section 4)?
#
# ### Question 1: a query with no key to attend to
# *1 point · about 3 min · core*
#
# Every key of one query row is blocked. What does the course's attention (lesson 04's
# `scaled_dot_product_attention`) return as that query's weights? Make
# `quiz_fully_masked_row` return the letter of your answer, then run the demo below
# it to see the three candidates side by side.
#
# * (a) NaN: the softmax of a row of −∞ is 0 / 0, and NaN honestly says "undefined"
# * (b) all zeros: the query attends to nothing, and its output stays finite
# * (c) uniform weights, 1/len_k on every key, pads included
# * (d) weight 1 on the query's own position: every position may at least see itself


# %% nbgrader={"solution": true, "grade_id": "quiz_fully_masked_row"}
def quiz_fully_masked_row() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_fully_masked_row", "points": 1}
check_quiz_fully_masked_row(quiz_fully_masked_row)
### BEGIN HIDDEN TESTS
check_quiz_fully_masked_row(quiz_fully_masked_row, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# With −∞ everywhere the softmax computes $0/0$, which is **NaN**; one NaN then spreads
# through every later layer (even a zero weight times NaN is NaN). With $-10^{9}$
# everywhere all scores are equal, so the row gets *uniform* weights over every key,
# pads included: no crash, but the row reads exactly what it was told to ignore. The
# reference attention returns all-zero weights for such a row and keeps the output
# finite (so does `F.scaled_dot_product_attention` from PyTorch 2.5 on;
# `nn.MultiheadAttention` returns NaN, see section 6). Such rows belong to pads, whose
# outputs nobody uses, so the checks of this course accept any finite answer there
# (zeros, or the uniform weights of a finite fill value, with a note); only NaN is a
# mistake.

# %%
nothing = torch.ones(4, dtype=torch.bool)  # every key blocked
print("-inf fill :", torch.softmax(scores.masked_fill(nothing, float("-inf")), dim=-1))
print("-1e9 fill :", torch.softmax(scores.masked_fill(nothing, -1e9), dim=-1))
q = k = v = torch.randn(1, 4, 8)  # (batch, len, d_k)
no_key_allowed = torch.zeros(4, 4, dtype=torch.bool)  # (len_q, len_k): True = may attend
out, reference_weights = scaled_dot_product_attention(q, k, v, no_key_allowed)
print("reference :", reference_weights[0, 0], " output finite:", bool(out.isfinite().all()))

# %% [markdown]
# ## 2. The padding mask
#
# ### Why pads must be hidden
#
# Lesson 01's `pad_batch` turns sentences of different lengths into one
# `(batch, len)` array by appending `<pad>` (id 0). A pad is embedded like any other
# token: it has a vector, so its key produces scores and its value gets mixed into
# the output. Worse, the number of pads depends on *which other sentences are in
# the batch*. Without a mask, the same sentence would be encoded differently
# depending on its batch-mates. The cell below shows this with the reference
# multi-head attention: "the ball is blue" alone, and padded to the length of a
# longer sentence.
#
# **Predict, then check:** the padded copy differs from the original only by two
# `<pad>` tokens at the end. Will the outputs at the four real words stay the same?

# %%
sentences = [BALL_IS_BLUE[0], BLACK_CAT, BALL_IS_BLUE[1], HI_HOW_ARE_YOU[0], HI_HOW_ARE_YOU[1]]
vocab = tok.build_vocab([tok.tokenize(s) for s in sentences])
id_to_token = {i: t for t, i in vocab.items()}


def encode(text, bos_eos=False):
    """Text -> list of ids with the reference tokenizer (optionally <bos> ... <eos>)."""
    ids = tok.encode(tok.tokenize(text), vocab)
    return [tok.BOS_ID, *ids, tok.EOS_ID] if bos_eos else ids


def tokens_of(ids_row):
    return [id_to_token[int(i)] for i in ids_row]


d_model, num_heads = 16, 2
embedding = nn.Embedding(len(vocab), d_model)  # a random table stands in for a trained one
self_attention = MultiHeadAttention(d_model, num_heads).eval()

ball = encode(BALL_IS_BLUE[0])
alone = torch.tensor([ball])  # (1, 4)
batch_ids = torch.tensor(tok.pad_batch([ball, encode(BLACK_CAT)], PAD_ID))  # (2, 6)
print(batch_ids)
with torch.no_grad():
    out_alone, _ = self_attention(embedding(alone), embedding(alone), embedding(alone))
    x = embedding(batch_ids)  # (batch, len, d_model)
    out_batch, _ = self_attention(x, x, x)  # no mask: (batch, len, d_model)
change = (out_batch[0, :4] - out_alone[0]).abs().max()
print(f"without a mask, 'the ball is blue' changes by {change:.3f} when padded")

# %% [markdown]
# ### Which axis: keys, not queries
#
# Attention weights have shape `(batch, num_heads, len_q, len_k)`: one row per
# query, one column per key. The padding mask must hide the **pad keys**, the
# *columns*, so that no real token reads from a pad. The *rows* of pad queries
# are harmless: a pad query produces an output vector that nobody uses (the loss
# ignores pad positions, and the next layer's mask hides that position as a key
# again), so there is nothing to gain by blocking them and, as we will see, a
# NaN to lose.
#
# So the mask holds one flag per key and has to broadcast over the heads and over
# the queries. Broadcasting aligns shapes from the right, which gives the shape:
#
# ```
# scores        (batch, num_heads, len_q, len_k)
# padding mask  (batch,         1,     1, len  )   one row of key flags per sequence
# ```
#
# For `ids = [[5, 7, 9, 0, 0]]` with `pad_id = 0` the mask is
# `[[[[True, True, True, False, False]]]]`, shape `(1, 1, 1, 5)`. Keep it this
# compact: the same mask then fits cross-attention (section 5), where the number of
# queries differs from `len`.
#
# > **A correction.** One of the popular explanations this course draws on says
# > that "the sequences that are the input to the encoder and the decoder must be
# > of the same length". They need not, and in translation they almost never
# > are: source sentences are padded within the source batch, target sentences
# > within the target batch, each to its own longest sentence. Attention handles
# > $\text{len}_q \ne \text{len}_k$ natively (section 5).
#
# ### Exercise 1: `padding_mask`
# *2 points · about 10 min · core*
#
# Write `padding_mask` as its docstring says.
#
# <details><summary>Hint 1</summary>
#
# A comparison of a tensor with a number (`==`, `!=`, `<`, ...) gives a bool tensor of
# the same shape, element by element. Which comparison is True exactly at real tokens?
# </details>
#
# <details><summary>Hint 2</summary>
#
# The comparison gives `(batch, len)`. Insert two axes of size 1 between `batch` and
# `len`: indexing with `None` inserts an axis where it stands, and so does
# `.unsqueeze(dim)`.
# </details>


# %% nbgrader={"solution": true, "grade_id": "padding_mask"}
def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Mark which key positions hold real tokens.

    Args:
        ids: int64 tensor (batch, len) of token ids; pads may sit anywhere
            (usually at the end, sometimes at the start).
        pad_id: the id of the <pad> token (not necessarily 0).

    Returns:
        bool tensor (batch, 1, 1, len): True where ids != pad_id (a real token, which
        may be attended to), False at pads. The two 1s are the num_heads and len_q
        axes, so the mask broadcasts over every head and every query; do not expand
        it to (batch, 1, len, len). `ids` must not be modified.
    """
    ### BEGIN SOLUTION
    return (ids != pad_id)[:, None, None, :]  # (batch, 1, 1, len)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_padding_mask", "points": 2}
check_padding_mask(padding_mask)
### BEGIN HIDDEN TESTS
check_padding_mask(padding_mask, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Your padding mask at work
#
# Left: your mask for the batch above (one row per sentence). Middle: the same mask
# as attention sees it for the first sentence, broadcast over the queries. Right:
# the reference attention's weights (head 0) with your mask. In the mask plots, blue
# cells **may be attended to** and grey cells are blocked.
#
# **Predict, then check:** how much weight will the two pad columns get, and will
# each row of weights still add up to 1? And the question of the first demo again:
# with the mask, does padding still change "the ball is blue"?

# %%
try:
    mask = padding_mask(batch_ids, PAD_ID)  # (batch, 1, 1, len)
    with torch.no_grad():
        out_masked, weights = self_attention(x, x, x, mask)  # weights (batch, heads, len_q, len_k)
    labels = tokens_of(batch_ids[0])
    sequences = ["the ball is blue", "the black cat ..."]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4), layout="constrained")
    mask_heatmap(
        mask[:, 0, 0, :],
        sequences,
        range(6),
        title="padding_mask: one row per sequence",
        ax=axes[0],
        xlabel="position (key)",
        ylabel="sequence",
    )
    mask_heatmap(
        mask[0, 0].expand(6, 6), labels, labels, title="broadcast over the queries", ax=axes[1]
    )
    attention_heatmap(weights[0, 0], labels, labels, title="masked weights, head 0", ax=axes[2])
    plt.show()
    change = (out_masked[0, :4] - out_alone[0]).abs().max()
    print("weight on pad keys:", weights[0, :, :, 4:].abs().max().item())
    print("rows sum to 1:", torch.allclose(weights[0].sum(-1), torch.ones(num_heads, 6)))
    print(f"with the mask, 'the ball is blue' changes by {change:.1e} when padded")
except NotImplementedError:
    print("padding_mask is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# The last line is the point of the whole exercise: with the mask, the sentence's
# representation no longer depends on how much padding its batch needed. (Had the
# difference not been exactly 0, it would be float rounding of order 1e-7: sums
# over a different number of terms may be carried out in a different order.)
#
# ## 3. The look-ahead mask
#
# ### Why the decoder needs one
#
# The decoder is **autoregressive**: at inference it writes one token at a time,
# feeding each output back in as the next input. To answer "Hi how are you" it
# starts from `<bos>`, predicts `i`, then reads `<bos> i` and predicts `am`, and so
# on until it predicts `<eos>`.
#
# Training step by step like that would be slow. Instead, **teacher forcing**
# feeds the whole correct target at once, shifted right by one, and asks for a
# prediction at *every* position in a single parallel pass:

# %%
target = ["<bos>", "i", "am", "fine", "<eos>"]
decoder_input, labels_to_predict = target[:-1], target[1:]
print("decoder input:", decoder_input)
for i, label in enumerate(labels_to_predict):
    seen = " ".join(decoder_input[: i + 1])
    where = f"= input position {i + 1}" if i + 1 < len(decoder_input) else "(not in the input)"
    print(f"position {i}: should only read {seen!r:<22} and predict {label!r:<8} {where}")

# %% [markdown]
# Each label is also an *input* token one position further on. If position $i$
# could attend to position $i+1$, the cheapest "prediction" would be to copy it:
# the training loss would drop towards zero while the model learned nothing it
# could use at inference, where the future has not been written yet. The
# **look-ahead mask** (also called the causal or subsequent mask) forbids this:
# query $i$ may attend to keys $0, \dots, i$ and never to a later one. With it, the
# parallel training pass computes exactly what step-by-step generation would.
#
# As a matrix (rows = queries, columns = keys, 1 = may attend) for four positions:
#
# $$
# \begin{pmatrix} 1&0&0&0\\ 1&1&0&0\\ 1&1&1&0\\ 1&1&1&1 \end{pmatrix}
# $$
#
# the lower triangle **including the diagonal**: every position may look at
# itself. In the example, the query "am" sees `<bos>`, "i" and "am", but not "fine".
#
# ### Exercise 2: `look_ahead_mask`
# *1 point · about 10 min · warm-up*
#
# Write `look_ahead_mask` as its docstring says.
#
# <details><summary>Hint 1</summary>
#
# PyTorch has a function that keeps the lower triangle of a matrix (on and below the
# diagonal) and zeroes the rest. Apply it to a square matrix of all True.
# </details>
#
# <details><summary>Hint 2</summary>
#
# `torch.tril` of `torch.ones(size, size, dtype=torch.bool)`. Or, without tril: entry
# `[i, j]` is True when `j <= i`; compare a column of positions with a row of positions
# (`torch.arange`) and let broadcasting build the matrix.
# </details>


# %% nbgrader={"solution": true, "grade_id": "look_ahead_mask"}
def look_ahead_mask(size: int) -> torch.Tensor:
    """The causal mask for one sequence of `size` positions.

    Returns:
        bool tensor (size, size) = (len_q, len_k): entry [i, j] is True when query i
        may attend to key j, that is when j <= i (the lower triangle including the
        diagonal), and False for every key after the query.
    """
    ### BEGIN SOLUTION
    return torch.tril(torch.ones(size, size, dtype=torch.bool))  # (size, size)
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_look_ahead_mask", "points": 1}
check_look_ahead_mask(look_ahead_mask)
### BEGIN HIDDEN TESTS
check_look_ahead_mask(look_ahead_mask, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Your look-ahead mask at work
#
# The decoder input `<bos> i am fine` through the reference attention with your
# mask (blue: may attend).
#
# **Predict, then check:** which cells of the weights will be exactly zero, and where
# does the first position, `<bos>`, put its weight?

# %%
try:
    tgt = torch.tensor([encode("I am fine", bos_eos=True)[:-1]])  # (1, 4): <bos> i am fine
    words = tokens_of(tgt[0])
    causal = look_ahead_mask(tgt.shape[1])  # (len, len)
    with torch.no_grad():
        y = embedding(tgt)  # (1, len, d_model)
        _, causal_weights = self_attention(y, y, y, causal)  # (1, heads, len, len)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
    mask_heatmap(causal, words, words, title="look_ahead_mask(4)", ax=axes[0])
    attention_heatmap(
        causal_weights[0, 0], words, words, title="masked weights, head 0", ax=axes[1]
    )
    plt.show()
except NotImplementedError:
    print("look_ahead_mask is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# The upper triangle of the weights is exactly zero, and `<bos>`, which may only see
# itself, puts all its weight there.

# %% [markdown]
# **The property that matters**, tested directly: change the tokens after position
# $i$ and compare the outputs at positions $0..i$.
#
# **Predict, then check:** the next cell replaces the last two tokens (`am fine`
# becomes `blue cat`). With the mask, which of the four positions can change? Without
# it?

# %%
try:
    causal = look_ahead_mask(tgt.shape[1])  # (len, len)
    future_changed = tgt.clone()
    future_changed[0, 2:] = torch.tensor([vocab["blue"], vocab["cat"]])  # <bos> i blue cat
    with torch.no_grad():
        y = embedding(tgt)  # (1, len, d_model)
        y2 = embedding(future_changed)
        before, _ = self_attention(y, y, y, causal)  # (1, len, d_model)
        after, _ = self_attention(y2, y2, y2, causal)
        before_open, _ = self_attention(y, y, y)  # no mask
        after_open, _ = self_attention(y2, y2, y2)
    pairs = [("with the mask", before, after), ("without a mask", before_open, after_open)]
    for name, b, a in pairs:
        change = (a - b).abs().amax(dim=-1)[0]  # (len,) largest change per position
        print(f"{name:>15}: change at positions 0..3 = {change.numpy().round(4)}")
except NotImplementedError:
    print("look_ahead_mask is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# Positions 0 and 1 (`<bos>`, `i`) are untouched with the mask: what the decoder
# says at a position depends only on the tokens up to it, during training exactly
# as during generation.
#
# ## 4. The decoder's mask: both at once
#
# A target batch is padded too, so the decoder's self-attention needs **both**
# rules: key $j$ is allowed for query $i$ only if $j$ is not in the future **and**
# $j$ is a real token. Broadcasting lines the two kinds of rule up:
#
# ```
# padding part      (batch, 1,   1, len)    one row of key flags per sequence
# look-ahead part             (len, len)    one matrix for every sequence
# both rules        (batch, 1, len, len)    one (len_q, len_k) matrix per sequence
# ```
#
# Both rules, not either: if a key were allowed when *either* rule allowed it, every
# real future token would become visible again. And the head axis stays: a
# `(batch, len, len)` mask would be aligned from the right against
# `(batch, num_heads, len_q, len_k)`, and its batch axis would land on the heads.
#
# Can a row end up with nothing to attend to? With right padding, no: every query
# sees position 0, a real token (unless the whole sequence is padding). With **left
# padding** (common when generating a batch with a decoder-only model) the first rows
# belong to pads that have no real token at or before them: fully masked rows. The
# reference attention turns those into zero weights (Question 1).
#
# ### Exercise 3: `decoder_self_attention_mask`
# *3 points · about 15 min · core*
#
# Write `decoder_self_attention_mask` as its docstring says. You may call your
# `padding_mask` and `look_ahead_mask` from above.
#
# <details><summary>Hint 1</summary>
#
# Build the two masks of this lesson for `tgt_ids` and combine them element by
# element. Which logical operation keeps a key only when both rules allow it?
# </details>
#
# <details><summary>Hint 2</summary>
#
# On bool tensors, `&` is the element-wise AND (and `|` the OR, the classic slip). The
# length for the look-ahead mask is the number of columns of `tgt_ids`. Broadcasting
# `(batch, 1, 1, len)` against `(len, len)` gives the `(batch, 1, len, len)` you need,
# with no reshaping.
# </details>


# %% nbgrader={"solution": true, "grade_id": "decoder_self_attention_mask"}
def decoder_self_attention_mask(tgt_ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """The mask of the decoder's (masked) self-attention.

    Args:
        tgt_ids: int64 tensor (batch, len) of target token ids, padded with `pad_id`.
        pad_id: the id of the <pad> token.

    Returns:
        bool tensor (batch, 1, len, len) = (batch, 1, len_q, len_k): entry
        [b, 0, i, j] is True when key j is not after query i (j <= i) AND
        tgt_ids[b, j] is a real token. The padding acts on the keys only; the 1 is
        the num_heads axis. `tgt_ids` must not be modified.
    """
    ### BEGIN SOLUTION
    # (batch, 1, 1, len) & (len, len) -> (batch, 1, len, len)
    return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_decoder_self_attention_mask", "points": 3}
check_decoder_self_attention_mask(decoder_self_attention_mask)
### BEGIN HIDDEN TESTS
check_decoder_self_attention_mask(decoder_self_attention_mask, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Your decoder mask at work
#
# Two target sentences of different lengths in one batch. Each gets its own
# `(len, len)` matrix (blue: may attend). Below them, the reference multi-head
# attention's weights for the shorter sentence, one panel per head.
#
# **Predict, then check:** sketch the mask of the shorter sentence, `<bos> i am fine
# <eos>` followed by one pad, before you run the cell. Does the row of the pad *query*
# come out blank?

# %%
try:
    targets = [encode(BALL_IS_BLUE[1], bos_eos=True), encode(HI_HOW_ARE_YOU[1], bos_eos=True)]
    tgt_batch = torch.tensor(tok.pad_batch(targets, PAD_ID))  # (2, 6)
    dec_mask = decoder_self_attention_mask(tgt_batch, PAD_ID)  # (batch, 1, len, len)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4), layout="constrained")
    for b, ax in enumerate(axes):
        row_words = tokens_of(tgt_batch[b])
        mask_heatmap(
            dec_mask[b, 0], row_words, row_words, title=f"sequence {b}: causal & not pad", ax=ax
        )
    plt.show()
    with torch.no_grad():
        z = embedding(tgt_batch)  # (batch, len, d_model)
        _, dec_weights = self_attention(z, z, z, dec_mask)  # (batch, heads, len, len)
    short_words = tokens_of(tgt_batch[1])
    title = "decoder self-attention weights, sequence 1, per head"
    attention_heads(dec_weights[1], short_words, short_words, title=title)
    plt.show()
except NotImplementedError:
    print("decoder_self_attention_mask is not written yet: this cell shows it at work once it is.")

# %% [markdown]
# Each sequence gets the triangle of the look-ahead mask minus its own pad columns,
# and whatever each head prefers, it never looks up and to the right, and never at a
# pad. The pad *row* of sequence 1 is not blank: a pad query still reads the real tokens
# before it. That is harmless (its output is ignored) and deliberate: blocking pad
# rows as well would create fully masked rows for no benefit.
#
# ## 5. Three attention layers, three masks
#
# A Transformer uses attention in three places, and each has its own mask. From
# here on we need masks that are certainly right, so the demos import the
# reference implementation instead of calling your functions:

# %%
from transformer_course.reference import masking as ref

# %% [markdown]
# ### Question 2: which mask goes where?
# *1 point · about 3 min · core*
#
# Before you read the table below: `src` are the source token ids (the encoder's
# input), `tgt` the target token ids (the decoder's input). Which masks do the three
# attention layers use? Make `quiz_which_mask` return the letter of your answer.
#
# * (a) encoder self-attention: `decoder_self_attention_mask(src)`; decoder
#   self-attention: `padding_mask(tgt)`; cross-attention: `padding_mask(tgt)`
# * (b) encoder self-attention: `padding_mask(src)`; decoder self-attention:
#   `decoder_self_attention_mask(tgt)`; cross-attention:
#   `decoder_self_attention_mask(tgt)`
# * (c) encoder self-attention: `padding_mask(src)`; decoder self-attention:
#   `decoder_self_attention_mask(tgt)`; cross-attention: `padding_mask(src)`
# * (d) encoder self-attention: `padding_mask(src)`; decoder self-attention:
#   `padding_mask(tgt)`; cross-attention: `padding_mask(src) & look_ahead_mask`
#
# A clue: a mask hides **keys**. Where do each layer's keys come from?


# %% nbgrader={"solution": true, "grade_id": "quiz_which_mask"}
def quiz_which_mask() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "c"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_which_mask", "points": 1}
check_quiz_which_mask(quiz_which_mask)
### BEGIN HIDDEN TESTS
check_quiz_which_mask(quiz_which_mask, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# | layer | queries from | keys and values from | mask | mask shape |
# |---|---|---|---|---|
# | encoder self-attention | source | source | `padding_mask(src_ids)` | `(batch, 1, 1, len_src)` |
# | decoder masked self-attention | target | target | `decoder_self_attention_mask(tgt_ids)` | `(batch, 1, len_tgt, len_tgt)` |
# | encoder-decoder (cross) attention | target (decoder) | source (encoder output) | `padding_mask(src_ids)` | `(batch, 1, 1, len_src)` |
#
# In cross-attention the keys are the encoder's positions, so only the **source**
# padding matters, and there is no look-ahead rule: the whole source sentence is
# known before decoding starts. The `(batch, 1, 1, len_src)` mask broadcasts over
# the `len_tgt` decoder queries, giving weights of shape
# `(batch, num_heads, len_tgt, len_src)`: a rectangle, because
# $\text{len}_q \ne \text{len}_k$ is perfectly normal. (Another popular explanation
# swaps the roles here and takes the queries from the encoder; the queries come
# from the decoder, the keys and values from the encoder output.)
#
# Cross-attention therefore needs no new function, only a name that says which ids
# it takes (the course's later lessons use it):


# %% export=true
def cross_attention_mask(src_ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """src_ids (batch, len_src) -> bool (batch, 1, 1, len_src) for encoder-decoder attention.

    The keys are the encoder's (source) positions, so only the source padding
    matters; the mask broadcasts over the decoder's len_q queries, whatever the
    target length.
    """
    return padding_mask(src_ids, pad_id)


# %% [markdown]
# Below, a source batch and a target batch with different lengths: the source is
# padded to 6, the target to 5, and cross-attention does not mind.

# %%
sources = [encode(BALL_IS_BLUE[0]), encode("Hi, how are you?")]  # 4 and 6 tokens
src_batch = torch.tensor(tok.pad_batch(sources, PAD_ID))  # (2, len_src=6)
tgt_in = torch.tensor(tok.pad_batch([t[:-1] for t in targets], PAD_ID))  # (2, len_tgt=5)
print("source batch", tuple(src_batch.shape), " target batch", tuple(tgt_in.shape))

cross_attention = MultiHeadAttention(d_model, num_heads).eval()
with torch.no_grad():
    memory = embedding(src_batch)  # stands in for the encoder output: (batch, len_src, d_model)
    decoder_states = embedding(tgt_in)  # (batch, len_tgt, d_model)
    cross_mask = ref.cross_attention_mask(src_batch, PAD_ID)  # (batch, 1, 1, len_src)
    _, cross_weights = cross_attention(decoder_states, memory, memory, cross_mask)
print("cross-attention weights", tuple(cross_weights.shape), "= (batch, heads, len_tgt, len_src)")
target_words, source_words = tokens_of(tgt_in[0]), tokens_of(src_batch[0])
attention_heatmap(
    cross_weights[0, 0], target_words, source_words, title="cross-attention, sequence 0, head 0"
)
plt.show()

# %% [markdown]
# ## 6. PyTorch's conventions (and how to convert)
#
# PyTorch has three mask conventions. Mixing them up silently inverts a mask, so
# it is worth a table:
#
# | API | mask | `True` means | what the masks of this course become |
# |---|---|---|---|
# | this course, `F.scaled_dot_product_attention(attn_mask=...)` | bool | **may attend** | unchanged |
# | `nn.MultiheadAttention(attn_mask=...)`, `nn.Transformer(tgt_mask=...)` | bool `(len_q, len_k)` | **blocked** | `~look_ahead_mask(n)` |
# | `nn.MultiheadAttention(key_padding_mask=...)` | bool `(batch, len_k)` | **is a pad (ignore)** | `ids == pad_id`, i.e. `~padding_mask(ids, pad)[:, 0, 0, :]` |
# | any of them, float form | float | added to the scores: 0 allowed, −∞ blocked | `zeros.masked_fill(~mask, -inf)` |
#
# `nn.Transformer.generate_square_subsequent_mask(n)` returns the float form of the
# look-ahead mask: 0 on and below the diagonal, −∞ above it. Two small converters
# (the course's later lessons use them to talk to PyTorch's layers):


# %% export=true
def to_blocked(mask: torch.Tensor) -> torch.Tensor:
    """Flip polarity: True = may attend -> True = blocked (nn.MultiheadAttention's bool masks)."""
    return ~mask


def to_additive(mask: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """bool mask (True = may attend) -> float mask: 0.0 where allowed, -inf where blocked.

    This is the form that is added to the scaled scores, and the form
    nn.Transformer.generate_square_subsequent_mask returns.
    """
    return torch.zeros(mask.shape, dtype=dtype).masked_fill(~mask, float("-inf"))


# %% [markdown]
# The cell below checks every conversion against PyTorch's own `nn.MultiheadAttention`,
# loaded with the same weights as the reference layer.

# %%
n = tgt_batch.shape[1]
print("generate_square_subsequent_mask(4):\n", nn.Transformer.generate_square_subsequent_mask(4))
theirs_causal = nn.Transformer.generate_square_subsequent_mask(n)  # float: 0 or -inf
print(
    "same as ours, after conversion:",
    torch.equal(theirs_causal == 0, ref.look_ahead_mask(n)),
    torch.equal(ref.to_additive(ref.look_ahead_mask(n)), theirs_causal),
)

torch_attention = nn.MultiheadAttention(d_model, num_heads, batch_first=True).eval()
layers = [self_attention.w_q, self_attention.w_k, self_attention.w_v]
with torch.no_grad():  # copy the reference layer's weights into PyTorch's
    torch_attention.in_proj_weight.copy_(torch.cat([layer.weight for layer in layers]))
    torch_attention.in_proj_bias.copy_(torch.cat([layer.bias for layer in layers]))
    torch_attention.out_proj.weight.copy_(self_attention.w_o.weight)
    torch_attention.out_proj.bias.copy_(self_attention.w_o.bias)

    decoder_mask = ref.decoder_self_attention_mask(tgt_batch, PAD_ID)  # True = may attend
    z = embedding(tgt_batch)  # (batch, len, d_model), whether or not your mask ran above
    ours, _ = self_attention(z, z, z, decoder_mask)
    theirs, _ = torch_attention(
        z,
        z,
        z,
        attn_mask=~ref.look_ahead_mask(n),  # True = blocked
        key_padding_mask=tgt_batch == PAD_ID,  # True = pad
    )
    q_heads = torch.randn(2, num_heads, n, 8)  # (batch, heads, len, d_k)
    sdpa = F.scaled_dot_product_attention(q_heads, q_heads, q_heads, attn_mask=decoder_mask)
    sdpa_ref, _ = scaled_dot_product_attention(q_heads, q_heads, q_heads, decoder_mask)
print(
    "reference vs nn.MultiheadAttention, largest difference:", f"{(ours - theirs).abs().max():.1e}"
)
print("reference vs F.scaled_dot_product_attention:", f"{(sdpa - sdpa_ref).abs().max():.1e}")

# %% [markdown]
# Finally, the fully masked row in practice: a left-padded sequence whose first
# two positions are pads. Their rows in the decoder mask are all `False`.
# `nn.MultiheadAttention` answers with NaN there; the reference attention gives
# those rows zero weights (so their output is just the output projection's bias),
# and at the real positions the two agree.

# %%
left_padded = torch.tensor([[PAD_ID, PAD_ID, *encode("I am fine", bos_eos=True)[:-1]]])  # (1, 6)
with torch.no_grad():
    w = embedding(left_padded)  # (1, 6, d_model)
    ours, _ = self_attention(w, w, w, ref.decoder_self_attention_mask(left_padded, PAD_ID))
    theirs, _ = torch_attention(
        w, w, w, attn_mask=~ref.look_ahead_mask(6), key_padding_mask=left_padded == PAD_ID
    )
nothing_allowed = ~ref.decoder_self_attention_mask(left_padded, PAD_ID).any(-1)  # (1, 1, len)
print("rows with nothing to attend to:", nothing_allowed.nonzero()[:, -1].tolist())
print("nn.MultiheadAttention, position 0:", theirs[0, 0, :4])
print("reference,             position 0:", ours[0, 0, :4])
print("real positions agree:", torch.allclose(ours[0, 2:], theirs[0, 2:], atol=1e-6))

# %% [markdown]
# ## Common misconceptions
#
# * **"Encoder and decoder inputs must have the same length."** No: each side is
#   padded within its own batch, and cross-attention works with any
#   $\text{len}_q$ and $\text{len}_k$ (section 5).
# * **"Set the masked scores to 0."** A score of 0 is an ordinary score; $e^0 = 1$
#   gives the key a sizeable weight. Masked scores must become −∞ (or a very large
#   negative number).
# * **"−10⁹ works everywhere."** Not in float16, whose largest number is 65504:
#   `masked_fill` refuses the value, and a converted −10⁹ becomes −∞. Use −∞ or
#   `torch.finfo(dtype).min`.
# * **"Multiply the weights by the mask after the softmax."** The allowed weights no
#   longer sum to 1 (the hidden keys took their share in the denominator). Mask
#   *before* the softmax, and the softmax renormalises for free.
# * **"Add the mask before dividing by $\sqrt{d_k}$."** One of the source articles
#   writes $\operatorname{softmax}((QK^\top + M)/\sqrt{d_k})$. With $M$ in
#   $\{0, -\infty\}$ that happens to give the same result ($-\infty/\sqrt{d_k} = -\infty$),
#   but the paper and every implementation add the mask to the *scaled* scores.
# * **"Pad queries must be masked too."** Only pad *keys* need hiding. Blocking pad
#   query rows creates fully masked rows: NaN in a plain softmax, and that NaN
#   reaches every position in the next layer.
# * **"The look-ahead mask is for inference."** It is for *training*: at inference
#   the future tokens do not exist yet. The mask makes the parallel, teacher-forced
#   training pass see exactly what generation will see.
# * **"`True` means masked."** Depends on the API (section 6). In this course, and in
#   `F.scaled_dot_product_attention`, `True` means *may attend*.
#
# ## Summary
#
# * A mask says which keys each query may attend to. It is applied to the scaled
#   scores before the softmax as 0 / −∞; $e^{-\infty} = 0$, so hidden keys get
#   **exactly zero** weight and the rest still sums to 1.
# * `padding_mask`: `(batch, 1, 1, len)`, True at real tokens; it hides pad **keys**
#   and broadcasts over heads and queries.
# * `look_ahead_mask`: `(len, len)`, the lower triangle with the diagonal; it makes
#   teacher-forced training causal: changing future tokens never changes earlier
#   outputs.
# * `decoder_self_attention_mask`: padding AND look-ahead, `(batch, 1, len, len)`.
# * Cross-attention uses the **source** padding mask; source and target lengths are
#   independent.
# * Fully masked rows need care: −∞ gives NaN, −1e9 gives uniform weights over keys
#   that were meant to be hidden; the reference attention returns zeros.
#
# ## Further reading
#
# * Vaswani et al., ["Attention Is All You Need"](https://arxiv.org/abs/1706.03762)
#   (2017), section 3.2.3 and Figure 2: where the "Mask (opt.)" box sits (between
#   scaling and softmax) and why the decoder masks the future. Two paragraphs.
# * Rush et al., ["The Annotated Transformer"](https://nlp.seas.harvard.edu/annotated-transformer/):
#   `subsequent_mask` and `make_std_mask` build this lesson's masks for a full training
#   pipeline. Note their shapes, `(1, len, len)` and `(batch, len, len)`: its attention
#   layer adds the head axis itself, ours does not.
# * PyTorch's [`F.scaled_dot_product_attention`](https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html)
#   documentation: bool masks with this course's polarity (True takes part), float masks
#   that are added, and `is_causal`; the fastest attention PyTorch has.
# * PyTorch's [`nn.MultiheadAttention`](https://pytorch.org/docs/stable/generated/torch.nn.MultiheadAttention.html)
#   and [`nn.Transformer.generate_square_subsequent_mask`](https://pytorch.org/docs/stable/generated/torch.nn.Transformer.html):
#   the opposite polarity (`attn_mask` True = blocked, `key_padding_mask` True = pad)
#   and the float form; keep section 6's table next to them.
# * Zhang et al., [Dive into Deep Learning](https://d2l.ai), section "Attention Scoring
#   Functions": a masked softmax driven by the valid length of each sequence instead
#   of a mask tensor, filling with $-10^6$; another way to write the padding rule.
# * Jay Alammar, ["The Illustrated GPT-2"](https://jalammar.github.io/illustrated-gpt2/):
#   masked self-attention drawn step by step, including the score matrix before and
#   after the mask; good for the look-ahead mask in a decoder-only model.
#
# Next, the masks join attention, feed-forward layers, residual connections and
# LayerNorm in the encoder and decoder layers.
