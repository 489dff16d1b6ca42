# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 09 · The full Transformer
#
# **Time:** about 2¼ hours: 96 minutes for the three exercises and two questions,
# the rest for reading and the demos.
#
# Lessons 02 to 08 built every part of "Attention Is All You Need": token embeddings,
# positional encoding, attention with its heads and masks, the encoder and the decoder.
# This lesson puts them together into the model of the paper's Figure 1, from token ids
# in to a score for every word of the target vocabulary out, and then makes it write:
# one token at a time, feeding its own output back in.
#
# **By the end of this lesson you can**
#
# * follow a batch through the whole encoder-decoder Transformer and give the shape of
#   every tensor on the way, and name the three attentions and what each one reads;
# * build the `Transformer` module: scaled embeddings, positions and dropout on both
#   sides, masks built from the ids and routed to the right attention, the output layer,
#   and the paper's shared embedding matrix (`tie_embeddings`);
# * explain what the logits are, why the model returns them rather than probabilities,
#   and why training works with log-probabilities;
# * prove that your model computes exactly what PyTorch's `nn.Transformer` computes, and
#   say in which configuration the two are equal;
# * count the parameters of any configuration from its shapes alone, and reproduce the
#   sizes of the paper's base and big models (and say why the counts differ a little);
# * write `greedy_decode`, which translates a whole batch one token at a time, and
#   explain why inference is autoregressive while training uses teacher forcing.
#
# | | you build | |
# |---|---|---|
# | Question 1 | | what sharing the embedding matrix requires |
# | Exercise 1 | `Transformer` | the whole model: ids in, logits out |
# | Exercise 2 | `count_parameters` | where the 63 million parameters are |
# | Question 2 | | why decoding is autoregressive |
# | Exercise 3 | `greedy_decode` | the model writes, one token at a time |
#
# **How to work:** fill in each cell marked `# YOUR CODE HERE` (delete the
# `raise NotImplementedError()`), run it, then run the test cell under it. A test cell
# prints `✓ ...` when your code is right and explains what is wrong when it is not; the
# hints under each exercise open one at a time. Demos that illustrate an idea use the
# course's *reference* modules, so that they work whatever state your code is in; the
# comparison with PyTorch right after exercise 1 uses yours.
#
# Symbols (`transformer_course.glossary`): `batch`; `len_src` and `len_tgt`, the padded
# lengths of the source and the target (in general different); `src_vocab_size` and
# `tgt_vocab_size`; `d_model` (512 in the paper), `num_heads` ($h$, 8), `d_ff` (2048),
# `num_layers` ($N$, 6); `memory`, the encoder's output `(batch, len_src, d_model)`;
# `pad_id`, the id of `<pad>`. Masks are bool, **True = may attend** (lesson 06).

# %% nbgrader={"locked": true, "grade_id": "setup"}
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.checks.transformer import (
    check_count_parameters,
    check_greedy_decode,
    check_quiz_autoregression,
    check_quiz_tie_embeddings,
    check_Transformer,
)
from transformer_course.plotting import (
    padded_batch,
    teacher_forcing_vs_autoregression,
    transformer_data_flow,
)
from transformer_course.reference import transformer as ref

# Earlier lessons' building blocks, the reference versions.
from transformer_course.reference.decoder import Decoder, torch_decoder_layer
from transformer_course.reference.embeddings import TokenEmbedding
from transformer_course.reference.encoder import Encoder, torch_encoder_layer
from transformer_course.reference.masking import (
    decoder_self_attention_mask,
    look_ahead_mask,
    padding_mask,
)
from transformer_course.reference.positional_encoding import PositionalEncoding
from transformer_course.reference.tokenization import BOS_ID, EOS_ID, PAD_ID

torch.set_printoptions(precision=3, sci_mode=False)
# In eval mode PyTorch's own encoder may take a fused "fast path" that packs a padded batch
# into nested tensors and returns zeros at the padded positions; switching it off makes
# nn.Transformer compute the plain formulas, which is what we compare with (section 5).
torch.backends.mha.set_fastpath_enabled(False)

# %% [markdown]
# ## 1. The whole model on one page
#
# Here is the model you will build, with the shape of every tensor that flows through
# it. Read it from the top: each side starts from token ids, and the two sides meet in
# the decoder's cross-attention, which reads the encoder's output, `memory`.

# %%
transformer_data_flow(
    batch=2,
    len_src=7,
    len_tgt=5,
    d_model=512,
    num_heads=8,
    num_layers=6,
    d_ff=2048,
    src_vocab_size=37000,
    tgt_vocab_size=37000,
)
plt.show()

# %% [markdown]
# Three things to take from the figure.
#
# * **The encoder runs once per source batch**, and its output `memory` is read by
#   *every* decoder layer. The decoder never sees the source ids, only `memory`.
# * **Attention is used in three places**, with three different masks, all built from
#   the ids and the pad id:
#
#   | | attention | queries | keys and values | mask | weights |
#   |---|---|---|---|---|---|
#   | (1) | encoder self-attention | source | source | source padding | `(batch, h, len_src, len_src)` |
#   | (2) | decoder masked self-attention | target | target | look-ahead & target padding | `(batch, h, len_tgt, len_tgt)` |
#   | (3) | cross-attention | target (decoder) | `memory` (encoder) | source padding | `(batch, h, len_tgt, len_src)` |
#
# * **Only the last step is new**: a linear layer turns each of the decoder's
#   `len_tgt` output vectors into `tgt_vocab_size` numbers, the *logits*. A softmax
#   over them would give the probability of every possible next token; section 3 says
#   why the model stops before it.
#
# **Predict, then check.** A small reference model below has `src_vocab_size = 11`,
# `tgt_vocab_size = 13` and `d_model = 16`; the batch has 2 sentence pairs with
# `len_src = 7` and `len_tgt = 5`. Write down the shapes of `memory` and of the logits
# before you run the cell.

# %%
torch.manual_seed(0)
walk_model = ref.Transformer(11, 13, d_model=16, num_heads=2, num_layers=2, d_ff=32).eval()
walk_src = torch.tensor([[2, 5, 6, 7, 8, 3, 0], [2, 9, 10, 3, 0, 0, 0]])  # (batch, len_src)
walk_tgt = torch.tensor([[2, 4, 5, 6, 7], [2, 8, 9, 0, 0]])  # (batch, len_tgt)
with torch.no_grad():
    steps = {
        "src_ids": walk_src,
        "src_embedding(src_ids)": walk_model.src_embedding(walk_src),
        "memory = encode(src_ids)": walk_model.encode(walk_src),
        "tgt_ids": walk_tgt,
        "tgt_embedding(tgt_ids)": walk_model.tgt_embedding(walk_tgt),
        "padding_mask(src_ids, 0)": padding_mask(walk_src, 0),
        "decoder_self_attention_mask(tgt_ids, 0)": decoder_self_attention_mask(walk_tgt, 0),
        "logits = forward(src_ids, tgt_ids)": walk_model(walk_src, walk_tgt),
    }
for name, value in steps.items():
    print(f"{name:42} {tuple(value.shape)!s:18} {value.dtype}")

# %% [markdown]
# `memory` is `(2, 7, 16)`: one vector per **source** position. The logits are
# `(2, 5, 13)`: one row per **target** position, one number per word of the
# **target** vocabulary. Nothing in the model forces `len_src == len_tgt`, or the two
# vocabularies to be the same size.

# %% [markdown]
# ## 2. Into the model: embeddings, positions, dropout, masks
#
# Both sides start the same way, with the modules of lessons 02 and 03:
#
# 1. **`TokenEmbedding`** looks up a row of a learned table for every id and multiplies
#    it by $\sqrt{d_\text{model}}$ (paper, section 3.4; lesson 02 explains the factor).
#    The source and the target have their own tables, `src_embedding` and
#    `tgt_embedding`, unless they are tied (section 4).
# 2. **`PositionalEncoding`** adds the sinusoidal table of lesson 03 and then applies
#    dropout. The paper (section 5.4) puts dropout exactly there, on the *sums* of the
#    embeddings and the positional encodings, on both sides, with rate 0.1 in the base
#    model. The table has no weights, so one `positional_encoding` module serves both
#    sides.
# 3. **The masks** come from the ids, with lesson 06's functions and the model's own
#    `pad_id`: `padding_mask(src_ids, pad_id)` `(batch, 1, 1, len_src)` for the encoder's
#    self-attention *and* for the cross-attention (whose keys are source positions), and
#    `decoder_self_attention_mask(tgt_ids, pad_id)` `(batch, 1, len_tgt, len_tgt)`
#    (look-ahead and target padding) for the decoder's self-attention.
#
# The stacks are lesson 07's `Encoder` and lesson 08's `Decoder`, called as
# `encoder(x, src_mask)` and `decoder(y, memory, src_mask, tgt_mask)`. Mind the order
# of the decoder's arguments: the **source** mask comes first, because it belongs to the
# cross-attention, which reads the source.
#
# Both stacks take `final_norm`. The paper's post-LN layers each end with a LayerNorm,
# so its stacks have no extra one (`final_norm=None` follows `norm_first`: no final norm
# for post-LN, one for pre-LN). PyTorch's `nn.Transformer` always ends each stack with a
# LayerNorm; `final_norm=True` builds exactly that, which is the configuration in which
# your model will equal `nn.Transformer` in section 5.

# %% [markdown]
# ## 3. Out of the model: logits, softmax and log-probabilities
#
# The decoder returns `(batch, len_tgt, d_model)`. The **output layer**,
# `nn.Linear(d_model, tgt_vocab_size)`, maps every position's vector to one number per
# word of the target vocabulary. These numbers are the **logits**: unnormalised scores,
# any real number, where larger means "more likely the next token". At position $t$ they
# score the token that should come *after* target token $t$ (the decoder sees
# `<bos> la bola`, and position 2 scores the word after `bola`).
#
# A **softmax over the last axis** turns the logits $z$ of one position into
# probabilities: $p_i = e^{z_i} / \sum_j e^{z_j}$. Three consequences:
#
# * adding the same constant to every logit of a position changes nothing (it cancels
#   in the fraction): only differences between logits matter;
# * the most probable token is the largest logit, so `argmax` works on the logits
#   directly, no softmax needed (`greedy_decode` does exactly that);
# * the softmax is over the **vocabulary** axis, the last one. A softmax over the
#   positions (axis 1) would compare different positions' scores for the same word,
#   which means nothing.
#
# **Why training uses log-probabilities.** Training maximises the probability of the
# right next token $y$, which is the same as minimising $-\log p_y$, the cross-entropy.
# Written with the logits,
#
# $$-\log p_y = -z_y + \log \sum_j e^{z_j},$$
#
# a *difference* of two moderate numbers, which `log_softmax` computes stably (it
# subtracts the largest logit first, the trick of lesson 04). Computing the softmax
# first and its logarithm afterwards is not safe: a probability smaller than the
# smallest float becomes exactly 0, and $\log 0 = -\infty$, after which the loss and
# every gradient are `inf` or `nan`. PyTorch's `F.cross_entropy(logits, labels)` is
# `log_softmax` followed by `F.nll_loss` (the negative log-likelihood, which picks
# $-\log p_y$ out), so it takes the logits. That is why this course's `Transformer`
# returns **logits**, and why the loss of lesson 10 starts from them.
#
# **Predict, then check.** One position has two logits, 0 and 120, in float32. What
# will `torch.log(torch.softmax(z, -1))` print for the first token, and what will
# `torch.log_softmax(z, -1)` print?

# %%
z = torch.tensor([0.0, 120.0])  # the logits of one position, float32
print("softmax         :", torch.softmax(z, dim=-1))
print("log of softmax  :", torch.log(torch.softmax(z, dim=-1)))
print("log_softmax     :", torch.log_softmax(z, dim=-1))
label = torch.tensor([0])  # suppose the right next token is token 0
print("cross_entropy   :", F.cross_entropy(z[None], label).item())
print("log_softmax+nll :", F.nll_loss(torch.log_softmax(z[None], dim=-1), label).item())

# %% [markdown]
# $e^{-120} \approx 8 \cdot 10^{-53}$ is far below float32's smallest positive number
# (about $1.4 \cdot 10^{-45}$), so the softmax rounds it to 0 and the log gives `-inf`,
# while `log_softmax` gives the exact answer, −120. Cross-entropy is the same number
# computed either way round that is safe. Logits of this size do happen: a confident
# model that is wrong produces them, and that is exactly the example training must
# learn from.
#
# Here are the logits of the small model of section 1, and what the softmax makes of
# them: each row sums to 1 over the vocabulary, and the argmax is the same before and
# after the softmax.

# %%
with torch.no_grad():
    walk_logits = walk_model(walk_src, walk_tgt)  # (batch, len_tgt, tgt_vocab_size)
walk_probs = torch.softmax(walk_logits, dim=-1)  # over the vocabulary: the last axis
print("logits of sentence 0, position 1:", walk_logits[0, 1])
print("probabilities, same position    :", walk_probs[0, 1])
print("sums over the vocabulary        :", walk_probs.sum(dim=-1))
print(
    "argmax of logits == argmax of probabilities:",
    torch.equal(walk_logits.argmax(-1), walk_probs.argmax(-1)),
)

# %% [markdown]
# ## 4. One matrix in three places: `tie_embeddings`
#
# The paper (section 3.4) uses **one** weight matrix for three jobs: the source
# embedding, the target embedding and the output layer ("the pre-softmax linear
# transformation"), following Press and Wolf (2017). The shapes allow it:
# `nn.Embedding(vocab_size, d_model).weight` is `(vocab_size, d_model)`, and so is
# `nn.Linear(d_model, vocab_size).weight`, because `nn.Linear` stores its weight as
# `(out_features, in_features)`. Then
#
# * the embedding of token $i$ is row $i$ (times $\sqrt{d_\text{model}}$), and
# * the logit of token $i$ is the dot product of the decoder's output with the *same*
#   row $i$ (plus a bias).
#
# So a token is predicted when the decoder's output points the way that token's
# embedding points: input and output speak one language. Sharing saves a lot of
# parameters (section 6 counts them), and Press and Wolf found it also makes language
# models better, because the output matrix gets a gradient for every word at every step
# and passes that training on to the embeddings.
#
# In PyTorch, sharing means one `nn.Parameter` object registered under three names:
# assign the *Parameter* itself, not a copy of its values. The state dict then still
# lists three keys, holding one tensor; `model.parameters()` yields it once. The output
# layer's bias stays its own. (Lesson 02, section 7, explained the catch with the
# $\sqrt{d_\text{model}}$ factor: a tied matrix is initialised with small entries, so that
# the scaled embeddings come out at about the size of the positional encoding.)

# %% [markdown]
# ### Question 1: what tying needs
# *1 point · about 3 min · warm-up*
#
# `tie_embeddings=True` makes the source embedding, the target embedding and the output
# layer share one matrix. For which of these models is that right?
#
# * **a)** English → German with one byte-pair vocabulary of 37,000 tokens learned on
#   the text of both languages, used for both sides
# * **b)** English → Japanese with two separate vocabularies of exactly 32,000 tokens
#   each, one per language
# * **c)** English → German with separate vocabularies of 30,000 (English) and 40,000
#   (German) tokens
# * **d)** any of them: tying only needs the same `d_model` on both sides
#
# Make `quiz_tie_embeddings` return your letter. The test cell explains the answer.


# %% nbgrader={"solution": true, "grade_id": "quiz_tie_embeddings"}
def quiz_tie_embeddings() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "a"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_tie_embeddings", "points": 1}
check_quiz_tie_embeddings(quiz_tie_embeddings)
### BEGIN HIDDEN TESTS
check_quiz_tie_embeddings(quiz_tie_embeddings, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 5. The model
#
# ### Exercise 1: `Transformer`
# *4 points · about 40 min · challenging*
#
# Assemble the model. The contract (the checks load weights by these names, and lesson
# 10 trains this very class):
#
# * `__init__` creates `src_embedding` and `tgt_embedding` (lesson 02's
#   `TokenEmbedding`), **one** `positional_encoding` (lesson 03's `PositionalEncoding`,
#   with the model's `dropout` and `max_len`), `encoder` (lesson 07's `Encoder`) and
#   `decoder` (lesson 08's `Decoder`), both with `num_layers`, `d_model`, `num_heads`,
#   `d_ff`, `dropout`, `norm_first` and `final_norm`, and `output`, an
#   `nn.Linear(d_model, tgt_vocab_size)` with its bias. It keeps `pad_id` as
#   `self.pad_id`. All of these are imported in the setup cell.
# * `tie_embeddings=True` shares one matrix between `src_embedding`, `tgt_embedding` and
#   `output` (section 4), and raises an error when `src_vocab_size !=
#   tgt_vocab_size`: a `ValueError` preferably (an `assert` is accepted too).
# * `encode(src_ids)` embeds the source, adds the positions, and runs the encoder with
#   the source padding mask: `(batch, len_src)` → `memory` `(batch, len_src, d_model)`.
# * `decode(tgt_ids, memory, src_ids)` embeds the target, adds the positions, runs the
#   decoder with the right mask for each attention, and applies `output`:
#   `(batch, len_tgt, tgt_vocab_size)` logits. It needs `src_ids` only for the source
#   padding mask.
# * `forward(src_ids, tgt_ids)` is `decode(tgt_ids, encode(src_ids), src_ids)`, and
#   returns **logits**: no softmax, no log-softmax.
#
# <details><summary>Hint 1</summary>
#
# Every building block already exists; this exercise is wiring. Draw (or reread) the
# figure of section 1 and write one line per arrow. The `TokenEmbedding` you import
# already scales by $\sqrt{d_\text{model}}$, and the `PositionalEncoding` already
# applies dropout: do not do either a second time.
#
# </details>
#
# <details><summary>Hint 2</summary>
#
# The masks: `padding_mask(src_ids, self.pad_id)` and
# `decoder_self_attention_mask(tgt_ids, self.pad_id)`, with the model's `pad_id`, never
# a hard-coded 0. The decoder's signature is `decoder(x, memory, src_mask, tgt_mask)`:
# the first argument is the target (the queries), the second the encoder's output (the
# keys and values of the cross-attention).
#
# </details>
#
# <details><summary>Hint 3</summary>
#
# Tying: a `TokenEmbedding` keeps its table as `.embedding` (an `nn.Embedding`), so the
# matrix is `self.src_embedding.embedding.weight`. Assigning that `nn.Parameter` to
# `self.tgt_embedding.embedding.weight` and to `self.output.weight` makes all three the
# same object. Check the vocabulary sizes first.
#
# </details>


# %% nbgrader={"solution": true, "grade_id": "Transformer"}
class Transformer(nn.Module):
    """The encoder-decoder Transformer of "Attention Is All You Need".

    Transformer(src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8,
    num_layers=6, d_ff=2048, dropout=0.1, max_len=512, pad_id=0,
    tie_embeddings=False, norm_first=False, final_norm=None) has
        src_embedding, tgt_embedding: TokenEmbedding(vocab_size, d_model) (lesson 02:
            a lookup scaled by sqrt(d_model));
        positional_encoding: PositionalEncoding(d_model, max_len, dropout) (lesson 03:
            adds the sinusoids, then dropout), used for both sides;
        encoder: Encoder(num_layers, d_model, num_heads, d_ff, dropout, norm_first,
            final_norm); decoder: Decoder(the same);
        output: nn.Linear(d_model, tgt_vocab_size), the pre-softmax projection;
        pad_id: the id of <pad>, from which every mask is built.
    tie_embeddings=True (paper, section 3.4) makes src_embedding, tgt_embedding and
    output share one weight matrix (vocab_size, d_model); it needs
    src_vocab_size == tgt_vocab_size (a shared vocabulary) and raises an error
    otherwise: a ValueError preferably, an assert (AssertionError) accepted too.
    final_norm=True gives each stack a final LayerNorm, as nn.Transformer
    has; None follows norm_first (the paper's post-LN stacks have none).

    encode(src_ids (batch, len_src) int64) -> memory (batch, len_src, d_model), with
        the source padding mask.
    decode(tgt_ids (batch, len_tgt) int64, memory, src_ids) -> logits
        (batch, len_tgt, tgt_vocab_size): self-attention with the look-ahead and
        target padding mask, cross-attention with the source padding mask.
    forward(src_ids, tgt_ids) = decode(tgt_ids, encode(src_ids), src_ids).
    Logits are unnormalised scores: softmax over the last axis gives the
    probabilities of the next token at every target position.
    """

    def __init__(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        d_model: int = 512,
        num_heads: int = 8,
        num_layers: int = 6,
        d_ff: int = 2048,
        dropout: float = 0.1,
        max_len: int = 512,
        pad_id: int = 0,
        tie_embeddings: bool = False,
        norm_first: bool = False,
        final_norm: bool | None = None,
    ):
        super().__init__()
        ### BEGIN SOLUTION
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError(
                "tie_embeddings needs a shared vocabulary: src_vocab_size "
                f"{src_vocab_size} != tgt_vocab_size {tgt_vocab_size}"
            )
        self.pad_id = pad_id
        self.src_embedding = TokenEmbedding(src_vocab_size, d_model)
        self.tgt_embedding = TokenEmbedding(tgt_vocab_size, d_model)
        self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)
        layers = (num_layers, d_model, num_heads, d_ff, dropout, norm_first, final_norm)
        self.encoder = Encoder(*layers)
        self.decoder = Decoder(*layers)
        self.output = nn.Linear(d_model, tgt_vocab_size)
        if tie_embeddings:  # one (vocab_size, d_model) matrix in three places
            self.tgt_embedding.embedding.weight = self.src_embedding.embedding.weight
            self.output.weight = self.src_embedding.embedding.weight
        ### END SOLUTION

    def encode(self, src_ids: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)
        x = self.positional_encoding(self.src_embedding(src_ids))  # (batch, len_src, d_model)
        return self.encoder(x, src_mask)  # (batch, len_src, d_model)
        ### END SOLUTION

    def decode(
        self, tgt_ids: torch.Tensor, memory: torch.Tensor, src_ids: torch.Tensor
    ) -> torch.Tensor:
        ### BEGIN SOLUTION
        tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)  # (b, 1, len_tgt, len_tgt)
        src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)
        y = self.positional_encoding(self.tgt_embedding(tgt_ids))  # (batch, len_tgt, d_model)
        y = self.decoder(y, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)
        return self.output(y)  # (batch, len_tgt, tgt_vocab_size)
        ### END SOLUTION

    def forward(self, src_ids: torch.Tensor, tgt_ids: torch.Tensor) -> torch.Tensor:
        ### BEGIN SOLUTION
        return self.decode(tgt_ids, self.encode(src_ids), src_ids)
        ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_Transformer", "points": 4}
check_Transformer(Transformer)
### BEGIN HIDDEN TESTS
check_Transformer(Transformer, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Your model against `nn.Transformer`
#
# The checks compared your model with the course's reference. Now compare it with
# something nobody in this course wrote. `nn.Transformer` is the two stacks only: it
# takes *vectors*, not ids, and returns vectors, not logits. So the comparison feeds it
# your model's own embeddings and positions, and applies your model's own output layer
# to its result; everything in between is PyTorch's. The given function
# `torch_transformer` copies your layers' weights into an `nn.Transformer` (with lesson
# 07's and 08's copying helpers), and `torch_transformer_logits` runs it, translating
# the masks into PyTorch's convention, where a bool mask means the opposite of ours:
# `True` = *blocked*.
#
# By default `nn.Transformer` ends each stack with a LayerNorm. Your model has one
# exactly when `final_norm=True` (or when it is pre-LN with the default
# `final_norm=None`); for the paper's own post-LN configuration, without a final norm,
# `torch_transformer` hands `nn.Transformer` stacks built without one, which its
# constructor accepts as `custom_encoder` and `custom_decoder`.


# %% export=true
def torch_transformer(ours: nn.Module) -> nn.Transformer:
    """An nn.Transformer (batch_first, ReLU, dropout 0, eval mode) holding the weights of
    the stacks of our Transformer `ours`, with a final LayerNorm in each stack exactly
    when `ours` has one (nn.Transformer's default stacks always have it)."""
    first = ours.encoder.layers[0]
    norm_first = first.norm_first
    d_model, d_ff = first.feed_forward.w_1.in_features, first.feed_forward.w_1.out_features

    def final(norm: nn.Module | None) -> nn.LayerNorm | None:
        if norm is None:
            return None
        layer_norm = nn.LayerNorm(d_model)
        layer_norm.load_state_dict(norm.state_dict())
        return layer_norm

    num_layers = len(ours.encoder.layers)
    encoder = nn.TransformerEncoder(
        torch_encoder_layer(first, norm_first),
        num_layers,
        final(ours.encoder.norm),
        enable_nested_tensor=False,
    )
    decoder = nn.TransformerDecoder(
        torch_decoder_layer(ours.decoder.layers[0], norm_first),
        num_layers,
        final(ours.decoder.norm),
    )
    theirs = nn.Transformer(
        d_model,
        first.self_attn.num_heads,
        dim_feedforward=d_ff,
        dropout=0.0,
        custom_encoder=encoder,
        custom_decoder=decoder,
        batch_first=True,
        norm_first=norm_first,
    )
    # nn.Transformer's constructor re-initialises every weight matrix of its stacks, custom
    # ones included: put our layers in after it.
    theirs.encoder.layers = nn.ModuleList(
        [torch_encoder_layer(layer, norm_first) for layer in ours.encoder.layers]
    )
    theirs.decoder.layers = nn.ModuleList(
        [torch_decoder_layer(layer, norm_first) for layer in ours.decoder.layers]
    )
    return theirs.eval()


def torch_transformer_logits(
    ours: nn.Module, theirs: nn.Transformer, src_ids: torch.Tensor, tgt_ids: torch.Tensor
) -> torch.Tensor:
    """Logits (batch, len_tgt, tgt_vocab_size): our embeddings and positions, PyTorch's
    stacks, our output layer. PyTorch's bool masks mean True = blocked."""
    src_pads, tgt_pads = src_ids == ours.pad_id, tgt_ids == ours.pad_id  # True at <pad>
    future = ~look_ahead_mask(tgt_ids.shape[1])  # (len_tgt, len_tgt), True = a later token
    vectors = theirs(
        ours.positional_encoding(ours.src_embedding(src_ids)),  # (batch, len_src, d_model)
        ours.positional_encoding(ours.tgt_embedding(tgt_ids)),  # (batch, len_tgt, d_model)
        tgt_mask=future,
        src_key_padding_mask=src_pads,
        tgt_key_padding_mask=tgt_pads,
        memory_key_padding_mask=src_pads,
    )  # (batch, len_tgt, d_model)
    return ours.output(vectors)


# %% [markdown]
# Four configurations: the paper's post-LN without final norms, `nn.Transformer`'s
# default (post-LN with final norms), pre-LN, and tied embeddings. The batch has padding
# on both sides and `len_src != len_tgt`. The weights are random (PyTorch's
# initialisation), the model in eval mode so that dropout is off.

# %%
try:
    cmp_src = torch.tensor([[2, 5, 6, 7, 3, 0, 0], [2, 8, 9, 10, 11, 12, 3]])  # (batch, len_src)
    cmp_tgt = torch.tensor([[2, 13, 14, 3, 0], [2, 15, 16, 17, 3]])  # (batch, len_tgt)
    configurations = {
        "post-LN, no final norm (the paper)": {},
        "post-LN, final_norm=True (nn.Transformer)": {"final_norm": True},
        "pre-LN (final norm by default)": {"norm_first": True},
        "post-LN, tied embeddings": {"tie_embeddings": True},
    }
    torch.manual_seed(0)
    for name, options in configurations.items():
        yours = Transformer(
            23, 23, d_model=16, num_heads=4, num_layers=2, d_ff=32, **options
        ).eval()
        pytorch = torch_transformer(yours)
        with torch.no_grad():
            difference = yours(cmp_src, cmp_tgt) - torch_transformer_logits(
                yours, pytorch, cmp_src, cmp_tgt
            )
        print(f"{name:44} largest difference {difference.abs().max().item():.1e}")
except NotImplementedError:
    print("Transformer is not written yet: this cell compares it with nn.Transformer once it is.")

# %% [markdown]
# Differences of a few $10^{-6}$ (all of them below $10^{-5}$) are float32 rounding:
# float32 keeps about 7 significant digits (its machine epsilon is $1.2\times10^{-7}$),
# and each logit here is a sum of many products of order 1, added up in a different
# order by the two models. Your model *is* the Transformer that PyTorch ships, plus the
# embeddings, positions and output layer that PyTorch leaves to you.

# %% [markdown]
# ## 6. Where the parameters are
#
# The paper's Table 3 gives the size of its two main models: **65 million** parameters
# for the base model ($N = 6$, $d_\text{model} = 512$, $h = 8$, $d_\text{ff} = 2048$)
# and **213 million** for the big one ($d_\text{model} = 1024$, $h = 16$,
# $d_\text{ff} = 4096$), both for English-German with a shared vocabulary of about
# 37,000 byte-pair tokens and tied embeddings. Where are they? Every weight is a matrix
# or a vector whose shape you know, so you can count them without building anything:
#
# * `nn.Linear(n_in, n_out)`: a weight `(n_out, n_in)` and a bias `(n_out,)`;
# * `nn.Embedding(vocab_size, d_model)`: one table `(vocab_size, d_model)`;
# * a `LayerNorm(d_model)`: a gain and a bias, `(d_model,)` each;
# * the positional encoding: a fixed table, a *buffer*, not a parameter: 0.
#
# **Predict, then check.** Before you count: which of the four parts of the base model
# do you think is the largest, the embeddings, the encoder, the decoder, or the output
# layer?

# %% [markdown]
# ### Exercise 2: `count_parameters`
# *2 points · about 20 min · core*
#
# Write `count_parameters(vocab_size, d_model, num_heads, num_layers, d_ff,
# tie_embeddings, final_norm=False)`, the number of parameters of
# `Transformer(vocab_size, vocab_size, d_model, num_heads, num_layers, d_ff,
# tie_embeddings=tie_embeddings, final_norm=final_norm)` (post-LN; a shared vocabulary,
# so both sides have `vocab_size` tokens), computed from the shapes alone, as a dict
# with four entries (Python ints):
#
# * `"embeddings"`: the embedding tables: both of them, or the one shared matrix when
#   `tie_embeddings` is True;
# * `"encoder"` and `"decoder"`: every parameter of the two stacks, the final
#   LayerNorms included when `final_norm` is True;
# * `"output"`: the output layer: its weight and bias, or only the bias when tied (its
#   weight is the shared matrix, already counted under `"embeddings"`).
#
# Their sum is what PyTorch counts with `sum(p.numel() for p in model.parameters())`.
# Do not build a model: the function must answer in a microsecond for the paper's sizes.
#
# <details><summary>Hint 1</summary>
#
# Count one piece at a time, then multiply: one multi-head attention (lesson 05: four
# `nn.Linear(d_model, d_model)`), one feed-forward block (lesson 07: `w_1` and `w_2`),
# one LayerNorm. An encoder layer has one attention, one feed-forward block and two
# LayerNorms; a decoder layer has one more attention and one more LayerNorm.
#
# </details>
#
# <details><summary>Hint 2</summary>
#
# One attention is $4(d_\text{model}^2 + d_\text{model})$ parameters, whatever `num_heads`
# is: the heads split $d_\text{model}$ between them (lesson 05, section 6). The
# feed-forward block is $d_\text{model} d_\text{ff} + d_\text{ff} + d_\text{ff}
# d_\text{model} + d_\text{model}$. Check your function on a small configuration against
# `sum(p.numel() for p in ref.Transformer(...).parameters())`.
#
# </details>


# %% nbgrader={"solution": true, "grade_id": "count_parameters"}
def count_parameters(
    vocab_size: int,
    d_model: int,
    num_heads: int,
    num_layers: int,
    d_ff: int,
    tie_embeddings: bool,
    final_norm: bool = False,
) -> dict[str, int]:
    """The number of parameters of Transformer(vocab_size, vocab_size, d_model, num_heads,
    num_layers, d_ff, tie_embeddings=tie_embeddings, final_norm=final_norm), a post-LN
    model with a shared vocabulary, from the shapes alone.

    Returns {"embeddings": ..., "encoder": ..., "decoder": ..., "output": ...} (ints):
    the embedding tables (one shared matrix when tie_embeddings, else two); the encoder
    and the decoder stacks (with their final LayerNorms when final_norm); the output
    layer (its bias only when tie_embeddings: the weight is the shared matrix). The sum
    is sum(p.numel() for p in model.parameters()).
    """
    ### BEGIN SOLUTION
    d_head = d_model // num_heads
    attention = 4 * (d_model * num_heads * d_head + d_model)  # w_q, w_k, w_v, w_o
    feed_forward = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)  # w_1, w_2
    layer_norm = 2 * d_model  # gain and bias
    encoder_layer = attention + feed_forward + 2 * layer_norm
    decoder_layer = 2 * attention + feed_forward + 3 * layer_norm
    final = layer_norm if final_norm else 0
    table = vocab_size * d_model
    return {
        "embeddings": table if tie_embeddings else 2 * table,
        "encoder": num_layers * encoder_layer + final,
        "decoder": num_layers * decoder_layer + final,
        "output": vocab_size if tie_embeddings else table + vocab_size,
    }
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_count_parameters", "points": 2}
check_count_parameters(count_parameters)
### BEGIN HIDDEN TESTS
check_count_parameters(count_parameters, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# Your function against PyTorch's own count, first on small models, then on the paper's
# base model, built for real (this takes a second or two: 63 million random numbers).
# Note that `parameters()` yields the shared matrix of a tied model **once**, although
# the state dict lists it under three names.

# %%
try:
    # (vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings)
    for config in [
        (50, 8, 2, 1, 16, False),
        (50, 8, 2, 3, 12, True),
        (37000, 512, 8, 6, 2048, True),
    ]:
        yours = sum(count_parameters(*config).values())
        vocab_size, d_model, num_heads, num_layers, d_ff, tied = config
        model = ref.Transformer(
            vocab_size, vocab_size, d_model, num_heads, num_layers, d_ff, tie_embeddings=tied
        )
        pytorch = sum(p.numel() for p in model.parameters())  # a shared Parameter counts once
        print(f"{config}: yours {yours:>12,}   PyTorch {pytorch:>12,}")
    print(
        f"the tied model: {len(model.state_dict())} state-dict entries, "
        f"{len(list(model.parameters()))} parameter tensors"
    )
    del model
except NotImplementedError:
    print(
        "count_parameters is not written yet: this cell compares its counts with PyTorch's once it is."
    )

# %% [markdown]
# The base model has **63,119,496** parameters, the big one **214,282,376** (computed
# below). The paper says 65 and 213 million. Close, but not equal, and not even off in
# the same direction. An exact count depends on details the paper does not give:
#
# * **the vocabulary size.** "About 37,000" tokens: every 1,000 tokens more add
#   $1{,}000 \times 513 = 513{,}000$ parameters to the tied base model (a row of the
#   matrix and an output bias). 65 million would need about 40,700 tokens; but then the
#   big model would have about 218 million, not 213;
# * **tying.** Untied, the base model has two more $37{,}000 \times 512$ matrices: 101
#   million;
# * **biases.** This course's (and PyTorch's) attention projections have biases; an
#   implementation without them has $4 d_\text{model}$ fewer parameters per attention
#   (36,864 in the base model's 18 attentions). The output layer's bias is 37,000 more;
#   some implementations have none;
# * **final LayerNorms**, as `nn.Transformer` has: $2 \times 2 d_\text{model}$ = 2,048
#   more.
#
# So the paper's counts come from an implementation that differs from ours in small
# ways we cannot read off the paper, and rounding does the rest. Yours is exact for the
# model you built. Now the picture:

# %%
base = ref.count_parameters(37000, 512, 8, 6, 2048, tie_embeddings=True)
big = ref.count_parameters(37000, 1024, 16, 6, 4096, tie_embeddings=True)
untied = ref.count_parameters(37000, 512, 8, 6, 2048, tie_embeddings=False)
models = {"base, tied": base, "base, untied": untied, "big, tied": big}
for name, counts in models.items():
    print(f"{name:13} total {sum(counts.values()):>12,} =", end="")
    print(" +".join(f" {part} {n:,}" for part, n in counts.items()))

fig, (by_part, in_layer) = plt.subplots(
    1, 2, figsize=(13, 4.2), gridspec_kw={"width_ratios": [3, 2]}
)
parts = list(base)
width = 0.26
for k, (name, counts) in enumerate(models.items()):
    millions = [counts[p] / 1e6 for p in parts]
    positions = [i + (k - 1) * width for i in range(len(parts))]
    bars = by_part.bar(positions, millions, width, label=name)
    labels = [f"{m:.1f}" if m >= 0.1 else f"{m:.3f}" for m in millions]
    by_part.bar_label(bars, labels=labels, fontsize=7)
by_part.set_xticks(range(len(parts)), labels=parts)
by_part.set(
    ylabel="parameters (millions)",
    xlabel="component",
    title="where the parameters are (vocab_size = 37,000)",
)
by_part.legend()
d, d_ff = 512, 2048
layer_parts = {
    "attention\n(w_q, w_k, w_v, w_o)": 4 * (d * d + d),
    "feed-forward\n(w_1, w_2)": 2 * d * d_ff + d_ff + d,
    "two LayerNorms": 2 * 2 * d,
}
in_layer.barh(list(layer_parts), [n / 1e6 for n in layer_parts.values()], color="tab:gray")
for i, n in enumerate(layer_parts.values()):
    in_layer.text(n / 1e6, i, f" {n:,}", va="center", fontsize=8)
in_layer.set(
    xlabel="parameters (millions)", title="one encoder layer of the base model", xlim=(0, 2.6)
)
fig.tight_layout()
plt.show()

# %% [markdown]
# In the base model the shared embedding matrix alone is 30% of all parameters, the
# decoder (three sub-layers per layer) is a third larger than the encoder (two), and
# inside each layer the feed-forward block is twice as big as the attention. Untied, the
# vocabulary would take more than half the model. `num_heads` changes nothing: 8 heads
# of 64 or 16 heads of 32 use the same $d_\text{model} \times d_\text{model}$ matrices.

# %% [markdown]
# ## 7. Writing: autoregressive decoding
#
# In training the whole target is known. The decoder gets the reference translation
# shifted right by one, `<bos> la bola es azul`, and predicts at every position at
# once the token that follows, `la bola es azul <eos>`. The look-ahead mask makes
# position $t$ blind to the tokens after it, so each prediction is made as if the rest
# did not exist yet. Feeding the decoder the *reference* tokens, rather than its own
# guesses, is called **teacher forcing**: one pass trains every position, and an early
# mistake does not derail what the model learns about later positions.
#
# At inference there is no reference. The decoder must be fed its **own** output: start
# with `<bos>`, predict one token, append it, run the decoder again on the longer prefix,
# and so on, until it writes `<eos>`. Generating a sequence by feeding each output back
# as the next input is called **autoregression**. The encoder runs once: the source does
# not change while the target grows. Right: what an untrained or imperfect model may do,
# writing "pelota" (also "ball") where the reference had "bola" and carrying on from its
# own word.

# %%
teacher_forcing_vs_autoregression(["la", "bola", "es", "azul"], ["la", "pelota", "es", "azul"])
plt.show()

# %% [markdown]
# **Greedy** decoding takes the single most probable token at every step: the argmax of
# the logits of the **last** position of the prefix (the earlier positions predict
# tokens we already have). It is the simplest strategy, not the best: a token that looks
# best now may lead to a worse sentence than the runner-up would have; beam search
# (lesson 10) keeps several candidates.
#
# **A batch of sentences** finishes at different steps. A row that has produced `<eos>`
# is done: from then on it gets the model's `pad_id`, whatever the model predicts for it,
# and the loop stops as soon as **every** row is done, or after `max_len` new tokens.

# %% [markdown]
# ### Question 2: why not teacher forcing at inference?
# *1 point · about 3 min · warm-up*
#
# In training, the decoder reads the reference translation shifted right and predicts
# every position in one pass. Why does `greedy_decode` run the decoder once per new
# token, feeding back its own outputs, instead?
#
# * **a)** Because the look-ahead mask is switched off at inference, so one pass would
#   let every position see the future.
# * **b)** Because at inference there is no reference translation: the token at
#   position $t$ is only known once the model has produced it, so the input of step
#   $t + 1$ depends on the output of step $t$.
# * **c)** Because one pass over the whole target would be slower than one pass per
#   token.
# * **d)** Because the encoder has to run again for every new token.
#
# Make `quiz_autoregression` return your letter.


# %% nbgrader={"solution": true, "grade_id": "quiz_autoregression"}
def quiz_autoregression() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    ### BEGIN SOLUTION
    return "b"
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_quiz_autoregression", "points": 1}
check_quiz_autoregression(quiz_autoregression)
### BEGIN HIDDEN TESTS
check_quiz_autoregression(quiz_autoregression, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 3: `greedy_decode`
# *3 points · about 30 min · challenging*
#
# Write `greedy_decode(model, src_ids, max_len, bos_id, eos_id)` for a whole batch:
#
# * `model` is a `Transformer` (it has `encode`, `decode` and `pad_id`), already in eval
#   mode: use it as it is. `src_ids` is `(batch, len_src)`, int64, possibly padded.
# * Every row starts from `<bos>`. At each step, run the decoder on all tokens so far and
#   take the argmax of the **last** position's logits, over the **vocabulary**.
# * A row is finished once it has produced `<eos>`; from the next step on it gets
#   `model.pad_id`. Stop after `max_len` new tokens, or as soon as every row is finished.
# * Return an int64 tensor `(batch, n)` with `n <= max_len`: each row the generated
#   tokens **without** `<bos>`, up to and including its `<eos>`, then pad ids.
#
# For example, with `<bos>` = 2, `<eos>` = 3, `<pad>` = 0 and `max_len = 5`, rows that
# generate `7 3` and `8 9 3` give `[[7, 3, 0], [8, 9, 3]]`: three steps, because after
# the third both rows are finished. A row that never writes `<eos>` gets `max_len`
# tokens.
#
# <details><summary>Hint 1</summary>
#
# Compute `memory` once, before the loop. Keep a tensor `(batch, 1)` of `<bos>` ids and
# a bool tensor `(batch,)` that says which rows are finished; each step appends one
# column.
#
# </details>
#
# <details><summary>Hint 2</summary>
#
# `model.decode(tokens, memory, src_ids)` gives `(batch, len_so_far, vocab_size)`; the
# next token of every row is the argmax over the last axis of `logits[:, -1]`. Replace
# the tokens of rows that were already finished with `model.pad_id` *before* you mark the
# rows that just wrote `<eos>` as finished (`torch.where` or `masked_fill`).
#
# </details>
#
# <details><summary>Hint 3</summary>
#
# Wrap the loop in `torch.no_grad()`: nothing here is trained. Drop the `<bos>` column at
# the end (`tokens[:, 1:]`), and keep everything int64 (`torch.full(..., dtype=torch.long)`).
#
# </details>


# %% nbgrader={"solution": true, "grade_id": "greedy_decode"}
def greedy_decode(
    model: nn.Module, src_ids: torch.Tensor, max_len: int, bos_id: int, eos_id: int
) -> torch.Tensor:
    """Translate a batch greedily, one token at a time.

    model: a Transformer (encode, decode, pad_id), used as it is (put it in eval()
    mode first: dropout would make decoding random). src_ids: (batch, len_src) int64.
    Starts every target with <bos> (bos_id), then repeatedly feeds the tokens
    generated so far to model.decode and appends the most probable next token
    (argmax of the last position's logits). A row is finished once it has produced
    <eos>; after that it gets model.pad_id. Stops after max_len new tokens, or as soon
    as every row has finished.
    Returns an int64 tensor (batch, n), n <= max_len: each row the generated tokens
    without <bos>, up to and including <eos>, then pad ids.
    """
    ### BEGIN SOLUTION
    with torch.no_grad():
        memory = model.encode(src_ids)  # (batch, len_src, d_model), computed once
        batch = src_ids.shape[0]
        tokens = torch.full((batch, 1), bos_id, dtype=torch.long)  # (batch, 1): <bos>
        finished = torch.zeros(batch, dtype=torch.bool)
        for _ in range(max_len):
            logits = model.decode(tokens, memory, src_ids)  # (batch, len_so_far, vocab)
            next_token = logits[:, -1].argmax(dim=-1)  # (batch,)
            next_token = next_token.masked_fill(finished, model.pad_id)
            tokens = torch.cat([tokens, next_token[:, None]], dim=1)
            finished = finished | (next_token == eos_id)
            if finished.all():
                break
    return tokens[:, 1:]  # drop <bos>
    ### END SOLUTION


# %% nbgrader={"grade": true, "grade_id": "test_greedy_decode", "points": 3}
check_greedy_decode(greedy_decode)
### BEGIN HIDDEN TESTS
check_greedy_decode(greedy_decode, hidden=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Watching it write
#
# An untrained model writes nonsense, but the mechanics are the same as for lesson 10's
# trained translator. This one is a reference `Transformer` with random weights whose
# output bias is nudged so that `<eos>` comes at different steps for different rows (and
# `<pad>` and `<bos>` never win). The ids are those of the course's tokenizer: `<pad>` =
# 0, `<bos>` = 2, `<eos>` = 3. Calling `greedy_decode` with `max_len` = 1, 2, 3, ... shows
# the result after each step.
#
# **Predict, then check.** With `max_len = 8`, how many columns will the result have if
# the last row to finish writes its `<eos>` at step 5?

# %%
torch.manual_seed(10)
writer = ref.Transformer(12, 12, d_model=16, num_heads=2, num_layers=2, d_ff=32, dropout=0.0)
with torch.no_grad():
    for table in (writer.src_embedding.embedding, writer.tgt_embedding.embedding):
        nn.init.normal_(table.weight, std=16**-0.5)  # small entries (lesson 02, section 7)
    writer.output.bias[PAD_ID] = writer.output.bias[BOS_ID] = -100.0  # never predicted
    writer.output.bias[EOS_ID] += 0.5  # <eos> a little more likely
writer.eval()
write_src = torch.tensor([[2, 5, 6, 7, 3], [2, 8, 9, 3, 0], [2, 10, 11, 4, 3]])  # (batch, len_src)
for max_len in range(1, 9):
    result = ref.greedy_decode(writer, write_src, max_len, BOS_ID, EOS_ID)  # (batch, n)
    print(f"max_len={max_len}: {result.shape[1]} columns {result.tolist()}")
fig, ax = plt.subplots(figsize=(6, 2.4))
padded_batch(result, PAD_ID, ax=ax, title="greedy_decode's result: ids on green, <pad> on white")
ax.set_xlabel("generation step")
plt.show()

# %% [markdown]
# Each row stops at its own `<eos>` and is padded from there on; the loop ends at the
# step where the last row finishes, so the result is as wide as the longest row, and a
# row that never wrote `<eos>` would have made it `max_len` wide.
#
# **What it costs.** Step $t$ runs the decoder on a prefix of $t$ tokens, so writing $n$
# tokens runs it on $1 + 2 + \dots + n \approx n^2/2$ positions, although only the last
# one is new at each step. Production decoders keep the keys and values of earlier
# positions from step to step (a "KV cache") and compute only the new position; the
# output is the same, because with the look-ahead mask earlier positions never change.

# %% [markdown]
# ## Common misconceptions
#
# * *"The model outputs probabilities."* It outputs logits; the softmax (or the
#   log-softmax inside the loss) comes after. Probabilities returned by `forward` would
#   give `F.cross_entropy`, which applies its own log-softmax, the wrong numbers.
# * *"Source and target must have the same length (or the same vocabulary)."* Neither:
#   cross-attention's weights are `(len_tgt, len_src)`, and the output layer has
#   `tgt_vocab_size` rows. Only tying the embeddings needs one shared vocabulary.
# * *"At inference the decoder also gets the reference translation, shifted."* There is
#   none: it gets its own previous outputs (autoregression). Teacher forcing is a
#   training device.
# * *"Decoding re-runs the encoder at every step."* The source does not change, so
#   `memory` is computed once (re-running it gives the same result, just slower).
# * *"More heads, more parameters."* The heads split $d_\text{model}$; the count does not
#   depend on $h$.
#
# ## Summary
#
# * The Transformer is: ids → scaled embeddings + positions (+ dropout) → encoder →
#   `memory`; target ids → scaled embeddings + positions → decoder (masked
#   self-attention, cross-attention on `memory`, feed-forward) → output layer → logits
#   `(batch, len_tgt, tgt_vocab_size)`.
# * Masks come from the ids and `pad_id`: source padding for the encoder and for
#   cross-attention, look-ahead plus target padding for the decoder's self-attention.
# * Logits are unnormalised scores; softmax over the vocabulary axis gives the
#   next-token distribution; training uses log-softmax (inside `F.cross_entropy`),
#   which stays finite where the log of a softmax would not.
# * `tie_embeddings` shares one `(vocab_size, d_model)` matrix between both embeddings
#   and the output layer; it needs a shared vocabulary, and saves $2 \cdot$
#   `vocab_size` $\cdot d_\text{model}$ parameters.
# * With `final_norm=True`, the model equals `nn.Transformer` (plus embeddings,
#   positions and output layer) to float precision; the paper's post-LN model has no
#   final norms.
# * The base model has 63.1 million parameters with 37,000 tied tokens (paper: 65M),
#   the big one 214.3 million (paper: 213M); the exact number depends on the
#   vocabulary, tying, biases and final norms.
# * Greedy decoding encodes once and then appends the argmax of the last position's
#   logits until every row has written `<eos>`: autoregression, where training used
#   teacher forcing.
#
# ## Further reading
#
# * Vaswani et al., [*Attention Is All You Need*](https://arxiv.org/abs/1706.03762):
#   section 3 (the architecture of this lesson, Figure 1 in particular), section 3.4
#   (the shared embedding matrix and the $\sqrt{d_\text{model}}$ factor), section 5.4
#   (where dropout goes) and Table 3 (the model sizes of section 6). Short, and now you
#   can check every sentence.
# * Rush (2018; updated by Huang et al., 2022), [*The Annotated Transformer*](https://nlp.seas.harvard.edu/annotated-transformer/):
#   the whole model as runnable PyTorch, with a `greedy_decode` for one sentence. Its
#   `EncoderDecoder` returns decoder vectors and a separate `Generator` returns
#   **log-softmax** outputs (it trains with a KL-divergence loss), where this course's
#   model returns logits; the wiring is otherwise the one you wrote.
# * Press and Wolf, [*Using the Output Embedding to Improve Language
#   Models*](https://arxiv.org/abs/1608.05859): the source of weight tying, with the
#   argument for why the output matrix is a good embedding, and measurements.
# * PyTorch's [`nn.Transformer`](https://pytorch.org/docs/stable/generated/torch.nn.Transformer.html)
#   documentation: its mask conventions (True = blocked), `norm_first`, and the final
#   LayerNorms of its default stacks; read it with section 5 next to it.
# * von Platen, [*How to generate text*](https://huggingface.co/blog/how-to-generate)
#   (Hugging Face blog): greedy search next to beam search and sampling, with examples
#   of what each produces; a good preview of lesson 10.
#
# **Next:** the model can write, but it knows nothing. Lesson 10 trains it on a small
# English-Spanish corpus, with teacher forcing, label smoothing and the paper's learning
# rate schedule, and then lets it translate.
