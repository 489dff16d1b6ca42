"""Lesson 11 (a GPT of your own): classic mistakes fail with their intended message in
the visible and the hidden check, correct variants (nanoGPT's and Llama's idioms,
adjacent-pair RoPE used consistently, torch.rsqrt, x * sigmoid(x), einsum forms) pass
both, and the references agree with independent oracles: torch.nn.RMSNorm with the
same weight, a plain SwiGLU formula with F.silu, F.scaled_dot_product_attention
(is_causal=True) on rotated queries and keys, and the GPT's causality."""

from __future__ import annotations

import functools
import math
import time

import pytest
import torch
import torch.nn.functional as F
from common import Correct, Mistake, lesson_tests
from torch import nn

from transformer_course.checks.language_model import (
    check_apply_rotary,
    check_CausalSelfAttention,
    check_DecoderBlock,
    check_GPT,
    check_next_token_batches,
    check_RMSNorm,
    check_rotary_embedding,
    check_sample,
    check_SwiGLU,
)
from transformer_course.reference import language_model as ref
from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.masking import look_ahead_mask
from transformer_course.reference.multi_head_attention import merge_heads, split_heads


def _named(name, fn):
    fn.__name__ = fn.__qualname__ = name
    return fn


# ------------------------------------------------------------------- next_token_batches
def _batches_generator_by_position(tokens, block_size, batch_size, generator):
    """torch.randint's generator given by position: a TypeError (it is keyword-only)."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator)
    positions = starts[:, None] + torch.arange(block_size)
    return tokens[positions], tokens[positions + 1]


def _batches_randint_size(form):
    """torch.randint's size an int, not a tuple: by keyword, size=batch_size ("keyword"),
    or as randint(high, batch_size) ("high"), which reads like randint(low, high)."""

    def next_token_batches(tokens, block_size, batch_size, generator):
        high = len(tokens) - block_size
        if form == "keyword":
            starts = torch.randint(0, high, size=batch_size, generator=generator)
        else:
            starts = torch.randint(high, batch_size, generator=generator)
        positions = starts[:, None] + torch.arange(block_size)  # (batch_size, block_size)
        return tokens[positions], tokens[positions + 1]

    return _named("next_token_batches", next_token_batches)


def _batches_without_replacement(tokens, block_size, batch_size, generator):
    """Distinct starts: a random permutation of every start, cut to batch_size."""
    order = torch.randperm(len(tokens) - block_size, generator=generator)
    windows = torch.stack([tokens[s : s + block_size + 1] for s in order[:batch_size].tolist()])
    return windows[:, :-1], windows[:, 1:]


def _batches_block_size_starts(tokens, block_size, batch_size, generator):
    """block_size starts drawn where batch_size belong (b10h: the shapes alone before)."""
    starts = torch.randint(0, len(tokens) - block_size, (block_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size)
    return tokens[positions], tokens[positions + 1]


def _batches_starts_drawn_from_one(tokens, block_size, batch_size, generator):
    """Starts drawn from 1 .. num_tokens - block_size: every window one token late."""
    high = len(tokens) - block_size + 1
    starts = torch.randint(1, high, (batch_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size)  # (batch_size, block_size)
    return tokens[positions], tokens[positions + 1]


def _batches_targets_one_hot_float(tokens, block_size, batch_size, generator):
    """Targets as float one-hot vectors over every id of the stream, for a loss that takes
    class probabilities (round 31: the shape alone before)."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    windows = torch.stack([tokens[s : s + block_size + 1] for s in starts.tolist()])
    classes = int(tokens.max()) + 5
    return windows[:, :-1], torch.nn.functional.one_hot(windows[:, 1:], classes).float()


def _batches_sliced_one_late(tokens, block_size, batch_size, generator):
    """Windows sliced from s + 1: the last start's slices come out short (torch.stack)."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    windows = torch.stack([tokens[s + 1 : s + block_size + 2] for s in starts.tolist()])
    return windows[:, :-1], windows[:, 1:]


def _batches_offsets_from_two(tokens, block_size, batch_size, generator):
    """Offsets 2 .. block_size + 1 added to the starts: every window two tokens late."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    positions = starts[:, None] + 2 + torch.arange(block_size)  # (batch_size, block_size)
    return tokens[positions], tokens[positions + 1]


def _batches(*, shift=1, high_minus=0, global_stream=False, step=1):
    def next_token_batches(tokens, block_size, batch_size, generator):
        high = len(tokens) - block_size - high_minus
        if global_stream:
            starts = torch.randint(0, high, (batch_size,))
        else:
            starts = torch.randint(0, high, (batch_size,), generator=generator)
        positions = starts[:, None] + step * torch.arange(block_size)
        if step != 1:  # a window that wraps around the stream
            positions = positions % len(tokens)
            return tokens[positions], tokens[(positions + shift) % len(tokens)]
        return tokens[positions], tokens[(positions + shift).clamp(min=0)]

    return next_token_batches


def _batches_pair_reversed(draw: str):
    """Round 34: the pair returned as (targets, inputs), "contract" with the contract's
    draw (told "your targets are shifted the wrong way" before), "scaled" with starts from
    scaled uniform floats, where the targets before the inputs fit a shift as well."""

    def next_token_batches(tokens, block_size, batch_size, generator):
        high = len(tokens) - block_size
        if draw == "contract":
            starts = torch.randint(0, high, (batch_size,), generator=generator)
        else:
            starts = (torch.rand(batch_size, generator=generator) * high).long()
        positions = starts[:, None] + torch.arange(block_size)  # (batch_size, block_size)
        inputs, targets = tokens[positions], tokens[positions + 1]
        return targets, inputs

    return next_token_batches


def _batches_windows_read_backwards(tokens, block_size, batch_size, generator):
    """Round 37: windows of block_size + 1 tokens, the pair cut the other way round:
    (window[:, 1:], window[:, :-1]), the targets before the inputs."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    windows = torch.stack([tokens[s : s + block_size + 1] for s in starts.tolist()])
    return windows[:, 1:], windows[:, :-1]


def _batches_after_another_draw(first: str):
    """Round 34: the generator used before the starts are drawn ("coin": one torch.randint
    of a coin flip; "rand": torch.rand(3)), so the starts are the contract's draw moved on
    (several causes listed before)."""

    def next_token_batches(tokens, block_size, batch_size, generator):
        if first == "coin":
            torch.randint(0, 2, (1,), generator=generator)
        else:
            torch.rand(3, generator=generator)
        starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
        positions = starts[:, None] + torch.arange(block_size)  # (batch_size, block_size)
        return tokens[positions], tokens[positions + 1]

    return next_token_batches


def _batches_evenly_spaced(spacing: str):
    """Round 25: rows whose starts are one start plus a fixed step, not independent draws:
    "shifted" windows one token apart from a random offset (each start clamped into the
    stream), "fixed" non-overlapping windows from position 0 with no randomness at all."""

    def next_token_batches(tokens, block_size, batch_size, generator):
        if spacing == "shifted":
            offset = torch.randint(0, len(tokens) - block_size, (1,), generator=generator)
            starts = (offset + torch.arange(batch_size)).clamp(max=len(tokens) - block_size - 1)
        else:
            starts = torch.arange(batch_size) * block_size  # (batch_size,)
        positions = starts[:, None] + torch.arange(block_size)  # (batch_size, block_size)
        return tokens[positions], tokens[positions + 1]

    return next_token_batches


def _batches_windows_sliced_batch_size_long(tokens, block_size, batch_size, generator):
    """Round 25: each window sliced batch_size tokens long, tokens[s : s + batch_size]."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    inputs = torch.stack([tokens[s : s + batch_size] for s in starts.tolist()])
    targets = torch.stack([tokens[s + 1 : s + batch_size + 1] for s in starts.tolist()])
    return inputs, targets


def _batches_targets_from_inputs(last: str):
    """Targets built from the inputs: the last column wraps round (a roll), repeats the
    last input, or is padding; or the targets drawn from starts of their own."""

    def next_token_batches(tokens, block_size, batch_size, generator):
        starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
        inputs = tokens[starts[:, None] + torch.arange(block_size)]
        if last == "roll":
            return inputs, inputs.roll(-1, dims=1)
        if last == "repeat":
            return inputs, torch.cat([inputs[:, 1:], inputs[:, -1:]], dim=1)
        if last == "pad":
            return inputs, torch.nn.functional.pad(inputs[:, 1:], (0, 1))
        second = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
        return inputs, tokens[second[:, None] + torch.arange(block_size) + 1]

    return next_token_batches


def _batches_ids_plus_one(tokens, block_size, batch_size, generator):
    """The + 1 on the token ids, not on the positions."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size)
    return tokens[positions], tokens[positions] + 1


def _batches_tuples_of_windows(tokens, block_size, batch_size, generator):
    """Round 21: the windows returned as tuples, never stacked (told only "a tuple")."""
    starts = torch.randint(len(tokens) - block_size, (batch_size,), generator=generator)
    pairs = [(tokens[s : s + block_size], tokens[s + 1 : s + 1 + block_size]) for s in starts]
    inputs, targets = zip(*pairs, strict=True)
    return inputs, targets


def _batches_whole_stream(tokens, block_size, batch_size, generator):
    """Starts drawn from the whole stream: windows near the end run past it."""
    starts = torch.randint(0, len(tokens), (batch_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size)
    return tokens[positions], tokens[positions + 1]


def _batches_time_major(tokens, block_size, batch_size, generator):
    """Windows as columns, (block_size, batch_size), as a seq-first iterator gives them
    (https://github.com/pytorch/text/issues/36)."""
    inputs, targets = ref.next_token_batches(tokens, block_size, batch_size, generator)
    return inputs.T, targets.T


def _batches_sizes_crossed_in_body(tokens, block_size, batch_size, generator):
    """Each size used where the other belongs, in the draw and in the windows alike: the
    reference's body with the two names exchanged."""
    starts = torch.randint(0, len(tokens) - batch_size, (block_size,), generator=generator)
    positions = starts[:, None] + torch.arange(batch_size)  # (block_size, batch_size)
    return tokens[positions], tokens[positions + 1]


def _batches_ids_counting_up(tokens, block_size, batch_size, generator):
    """The offsets added to each window's first token id, unsqueezed after the lookup."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    offsets = torch.arange(block_size)
    first = tokens[starts].unsqueeze(1)  # (batch_size, 1): ids, not positions
    return first + offsets, tokens[starts + 1].unsqueeze(1) + offsets


def _batches_negative_index_ring(tokens, block_size, batch_size, generator):
    """Starts drawn over the whole stream, the windows read from the end backwards with
    negative indices (positions - len(tokens)): a window near the end wraps round."""
    starts = torch.randint(0, len(tokens), (batch_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size) - len(tokens)  # (batch, block)
    return tokens[positions], tokens[positions + 1]


def _batches_starts_sorted_descending(tokens, block_size, batch_size, generator):
    """The contract's starts, sorted from the last to the first."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    starts = starts.sort(descending=True).values
    positions = starts[:, None] + torch.arange(block_size)
    return tokens[positions], tokens[positions + 1]


def _batches_as_floats(tokens, block_size, batch_size, generator):
    """Right windows cast to float32: the keyword call gives the same wrong dtype, so no
    parameter order is blamed (the float dtype alone is the mistake)."""
    inputs, targets = ref.next_token_batches(tokens, block_size, batch_size, generator)
    return inputs.float(), targets.float()


def _batches_one_stacked_tensor(tokens, block_size, batch_size, generator):
    """The pair stacked into one (2, batch_size, block_size) tensor."""
    return torch.stack(ref.next_token_batches(tokens, block_size, batch_size, generator))


def _sample_softmax_over_batch(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits / temperature, dim=0)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]


def _sample_gumbel_max_uniform_noise(
    logits, temperature=1.0, top_k=None, top_p=None, generator=None
):
    """The Gumbel-max trick with the uniform draws themselves as the noise."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    log_probs = torch.log_softmax(logits / temperature, dim=-1)
    return (log_probs + torch.rand(logits.shape, generator=generator)).argmax(dim=-1)


def _sample_smoothed(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """The probabilities smoothed by a constant before the draw: flatter draws that one
    row's noise models can mimic (never to be named as noise)."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits / temperature, dim=-1) + 0.05
    return torch.multinomial(probs / probs.sum(-1, keepdim=True), 1, generator=generator)[:, 0]


def _sample_probs_times_uniform(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """The argmax of probs * u: log(u) added to the log-probabilities."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits / temperature, dim=-1)
    return (probs * torch.rand(logits.shape, generator=generator)).argmax(dim=-1)


def _sample_exponential_noise_on_probs(
    logits, temperature=1.0, top_k=None, top_p=None, generator=None
):
    """-log(u) added to the probabilities themselves."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits / temperature, dim=-1)
    return (probs - torch.log(torch.rand(logits.shape, generator=generator))).argmax(dim=-1)


def _batches_reshaped_then_transposed(tokens, block_size, batch_size, generator):
    """The windows reshaped to (block_size, batch_size) and transposed back: the rows
    regrouped in memory order, each mixing positions of several windows."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    windows = starts[:, None] + torch.arange(block_size)  # (batch_size, block_size)
    positions = windows.reshape(block_size, batch_size).T
    return tokens[positions], tokens[positions + 1]


def _batches_numpy_style_floor(tokens, block_size, batch_size, generator):
    """Starts as floor(u * high) from uniform draws of the generator, the way a numpy
    `rng.random()` port writes it: valid windows, not the contract's draw."""
    high = len(tokens) - block_size
    starts = torch.floor(high * torch.rand(batch_size, generator=generator)).to(torch.int64)
    windows = torch.stack([tokens[s : s + block_size + 1] for s in starts.tolist()])
    return windows[:, :-1], windows[:, 1:]


def _batches_one_draw_at_a_time(tokens, block_size, batch_size, generator):
    """Correct: one start per call of torch.randint, the same stream as one draw of all."""
    high = len(tokens) - block_size
    rows = []
    for _ in range(batch_size):
        start = int(torch.randint(high, (1,), generator=generator))
        rows.append(tokens[start : start + block_size + 1])
    windows = torch.stack(rows)
    return windows[:, :-1], windows[:, 1:]


def _batches_nanogpt(tokens, block_size, batch_size, generator):
    """nanoGPT's get_batch: one-argument randint, then a stack of slices."""
    ix = torch.randint(len(tokens) - block_size, (batch_size,), generator=generator)
    x = torch.stack([tokens[i : i + block_size] for i in ix])
    y = torch.stack([tokens[i + 1 : i + 1 + block_size] for i in ix])
    return x, y


def _batches_shift_inside(tokens, block_size, batch_size, generator):
    """Windows of block_size tokens, shifted inside: both block_size - 1 long (blind8b)."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    windows = tokens[starts[:, None] + torch.arange(block_size)]
    return windows[:, :-1], windows[:, 1:]


def _batches_starts_only(tokens, block_size, batch_size, generator):
    """The offsets never added: one token per window (mutant next_token_batches-7)."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    positions = starts[:, None]
    return tokens[positions], tokens[positions + 1]


def _sample_top_p_scatter_rows(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """top-p's decision mapped back with scatter along the rows (mutant sample-8)."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1])).values[..., -1:]
        logits = logits.masked_fill(logits < kth, -torch.inf)
    if top_p is not None:
        sorted_probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        remove_sorted = sorted_probs.cumsum(dim=-1) - sorted_probs >= top_p
        remove_sorted[..., 0] = False
        logits = logits.masked_fill(remove_sorted.scatter(-2, order, remove_sorted), -torch.inf)
    return torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator)[:, 0]


def _batches_from_one(tokens, block_size, batch_size, generator):
    """Starts drawn from 1: the start 0 never occurs."""
    starts = torch.randint(1, len(tokens) - block_size, (batch_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size)
    return tokens[positions], tokens[positions + 1]


def _batches_unfold(tokens, block_size, batch_size, generator):
    """All windows of block_size + 1 tokens with unfold, then random rows."""
    windows = tokens.unfold(0, block_size + 1, 1)  # (num_tokens - block_size, block_size + 1)
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    chosen = windows[starts]
    return chosen[:, :-1].clone(), chosen[:, 1:].clone()


# ------------------------------------------------------------------------------ RMSNorm
class _Norm(ref.RMSNorm):
    statistic = "mean_square"
    eps_outside = False
    dim = -1

    def forward(self, x):
        if self.statistic == "variance":
            x = x - x.mean(dim=self.dim, keepdim=True)
        stat = x.mean(self.dim, keepdim=True) if self.statistic == "mean" else None
        if stat is None:
            stat = x.pow(2).mean(self.dim, keepdim=True)
        if self.eps_outside:
            return x / (stat.sqrt() + self.eps) * self.weight
        return x / torch.sqrt(stat + self.eps) * self.weight


class NormSquaresOverDMinusOne(ref.RMSNorm):
    """Round 21: the squares' sum divided by d_model - 1 (told only the first token's
    number before)."""

    def forward(self, x):
        square_mean = (x * x).sum(dim=-1, keepdim=True) / (self.weight.numel() - 1)
        return x * torch.rsqrt(square_mean + self.eps) * self.weight


class NormOverAllButLastFeature(ref.RMSNorm):
    """Round 37: the mean square over x[..., :-1], one feature short (a slice off by one)."""

    def forward(self, x):
        square_mean = x[..., :-1].pow(2).mean(dim=-1, keepdim=True)
        return x / (square_mean + self.eps).sqrt() * self.weight


class NormOverFirstQuarter(ref.RMSNorm):
    """Round 37: a partial RMSNorm: the mean square of the first quarter of the features."""

    def forward(self, x):
        part = x.narrow(-1, 0, max(1, x.shape[-1] // 4))
        return x * torch.rsqrt(part.square().mean(-1, keepdim=True) + self.eps) * self.weight


class NormGainSummedIn(ref.RMSNorm):
    """The gain applied with torch.matmul on the (d_model,) vector: one number per token."""

    def forward(self, x):
        normalised = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return torch.matmul(normalised, self.weight)


class NormEpsAsLowerBound(ref.RMSNorm):
    """Round 21: eps as a lower bound of the mean square, not added to it."""

    def forward(self, x):
        square_mean = x.pow(2).mean(-1, keepdim=True)
        return x / torch.maximum(square_mean, torch.tensor(self.eps)).sqrt() * self.weight


class NormEpsAddedToInput(ref.RMSNorm):
    """Round 34: eps added to every feature before squaring, mean((x + eps) ** 2): on
    these tokens the same numbers as eps left out, and was told "floored at eps"."""

    def forward(self, x):
        return x * torch.rsqrt((x + self.eps).pow(2).mean(-1, keepdim=True)) * self.weight


class NormOverBatch(ref.RMSNorm):
    """Round 34: the mean of the squares over dim=0, the batch ("largest difference" first
    before)."""

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(0, keepdim=True) + self.eps) * self.weight


class NormRootOfMeanAbsolute(ref.RMSNorm):
    """Round 34: sqrt(mean(|x|) + eps), the absolute values where the squares belong (the
    first token's number alone before); ``roots`` square roots of it."""

    roots = 1

    def forward(self, x):
        statistic = x.abs().mean(-1, keepdim=True) + self.eps
        for _ in range(self.roots):
            statistic = statistic.sqrt()
        return x / statistic * self.weight


class NormFourthRootOfMeanAbsolute(NormRootOfMeanAbsolute):
    roots = 2


class NormMean(_Norm):
    statistic = "mean"


class NormEpsOutside(_Norm):
    eps_outside = True


class NormWrongAxis(_Norm):
    dim = -2


class NormSubtractsMean(_Norm):
    statistic = "variance"


class NormGainDouble(ref.RMSNorm):
    """Round 21: the gain converted to float64 after construction (passed: a float32
    input came back float64)."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        self.double()


class NormStd(ref.RMSNorm):
    """x divided by its (biased) standard deviation: the mean subtracted inside the
    statistic only (timm's RmsNorm before pytorch-image-models#2380)."""

    def forward(self, x):
        std = torch.sqrt(x.var(-1, keepdim=True, correction=0) + self.eps)
        return x / std * self.weight


class NormMeanAbsolute(ref.RMSNorm):
    """The mean |x| squared where the mean of the squares belongs (b10h: "differs")."""

    def forward(self, x):
        return x * torch.rsqrt(x.abs().mean(-1, keepdim=True).pow(2) + self.eps) * self.weight


class NormOverSequenceLength(ref.RMSNorm):
    """The squares summed over the features but averaged by the length, the axis before
    (b13b: "one number per token" with its value alone)."""

    def forward(self, x):
        squares = torch.einsum("...d,...d->...", x, x)[..., None]  # (..., 1)
        return self.weight * x / torch.sqrt(squares / x.shape[-2] + self.eps)


class NormGainAdded(ref.RMSNorm):
    """The gain added as a bias would be (b11b)."""

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) + self.weight


class NormGainSubtracted(ref.RMSNorm):
    """The gain subtracted (b11b)."""

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) - self.weight


class NormFourthRoot(ref.RMSNorm):
    """An average no candidate names, mean(x ** 4) ** (1 / 4): the first token's number
    against the root mean square is told."""

    def forward(self, x):
        return x / (x.pow(4).mean(-1, keepdim=True) + self.eps) ** 0.25 * self.weight


class NormRsqrtOfRoot(ref.RMSNorm):
    """Round 25: rsqrt of the root mean square, x * rsqrt(sqrt(mean(x ** 2) + eps)): the
    square root taken twice, a fourth root of the mean square."""

    def forward(self, x):
        root_mean_square = torch.sqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return x * torch.rsqrt(root_mean_square) * self.weight


class NormEighthRoot(ref.RMSNorm):
    """Round 25: the mean square to the power 1/8, three square roots where one belongs."""

    def forward(self, x):
        return x / (x.pow(2).mean(-1, keepdim=True) + self.eps) ** 0.125 * self.weight


class NormMeanDividedAgain(ref.RMSNorm):
    """The mean of the squares divided by d_model once more (sum / d_model ** 2)."""

    def forward(self, x):
        mean_square = x.pow(2).mean(-1, keepdim=True) / x.size(-1)  # (..., 1)
        return x * torch.rsqrt(mean_square + self.eps) * self.weight


class NormZeroGain(ref.RMSNorm):
    """The gain initialised to zeros (Gemma's 1 + weight start) and used directly."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        nn.init.zeros_(self.weight)


class NormCentredNumerator(ref.RMSNorm):
    """The mean subtracted from x after the mean square was taken of x itself."""

    def forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return (x - x.mean(-1, keepdim=True)) * scale * self.weight


class NormOverSequenceAndFeatures(ref.RMSNorm):
    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean((-2, -1), keepdim=True) + self.eps) * self.weight


class NormDividesByRsqrt(ref.RMSNorm):
    def forward(self, x):
        return x / torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class NormSumAndEpsOutside(ref.RMSNorm):
    """Two mistakes at once: the L2 norm (no mean), and eps outside the root."""

    def forward(self, x):
        return x / (x.norm(dim=-1, keepdim=True) + self.eps) * self.weight


class NormWithoutKeepdim(ref.RMSNorm):
    """The mean square without keepdim=True: a size clash (or a silent broadcast when
    len == d_model, which the inputs avoid)."""

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1) + self.eps) * self.weight


class NormNeverCastsBack(ref.RMSNorm):
    """Statistics in float32 and no cast back: a float64 input gives a float32 output
    (blind4d-rms-returns-float32, uncaught before: every input was float32)."""

    def forward(self, x):
        x = x.float()
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class NormFixedEps(ref.RMSNorm):
    """eps hard-coded to 1e-6, the argument ignored (blind8b): was told its default eps
    was wrong, although the default is 1e-5."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        self.eps = 1e-6


class NormWrongDefaultEps(ref.RMSNorm):
    """The default eps is 1e-6, the argument used when given."""

    def __init__(self, d_model, eps=1e-6):
        super().__init__(d_model, eps)


class NormGainFirst(ref.RMSNorm):
    """The gain applied before the root mean square: normalised away (blind8b)."""

    def forward(self, x):
        y = x * self.weight
        return y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps)


class NormUnitOffset(ref.RMSNorm):
    """Gemma's gain (Liger-Kernel#74): x / rms * (1 + weight)."""

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * (1 + self.weight)


class NormNoSquareRoot(ref.RMSNorm):
    """Divides by the mean square, the root forgotten."""

    def forward(self, x):
        return x / (x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class NormNoGain(ref.RMSNorm):
    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class NormEpsSubtracted(ref.RMSNorm):
    """eps subtracted under the root: NaN on a token with small values."""

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) - self.eps) * self.weight


class NormCubes(ref.RMSNorm):
    """The mean of x ** 3 under the root: NaN wherever it is negative."""

    def forward(self, x):
        return x * torch.rsqrt(x.pow(3).mean(-1, keepdim=True) + self.eps) * self.weight


class NormDividesByGain(ref.RMSNorm):
    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) / self.weight


class NormDefaultEps(ref.RMSNorm):
    def __init__(self, d_model, eps=1e-6):
        super().__init__(d_model, eps)


class NormDefaultEpsTiny(ref.RMSNorm):
    def __init__(self, d_model, eps=1e-8):
        super().__init__(d_model, eps)


class NormPlainTensorGain(ref.RMSNorm):
    """The gain kept as a bare tensor, never registered
    (https://github.com/SimonThomine/RememberingNormality/issues/7)."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        del self.weight
        self.weight = torch.ones(d_model)


class NormGainNamedGamma(ref.RMSNorm):
    """The gain called gamma (https://github.com/stanford-cs336/assignment1-basics/issues/93)."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        self.gamma = self.weight
        del self.weight

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.gamma


class NormTorch(nn.RMSNorm):
    """PyTorch's own RMSNorm, which the exercise asks to build."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps=eps)


class NormUnitVectorDividedByRootD(nn.Module):
    """Round 23: the unit-vector form divided by sqrt(d_model) where it multiplies (each
    output d_model times too small)."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        norm = x.norm(dim=-1, keepdim=True)  # (..., 1)
        return x / (norm * x.shape[-1] ** 0.5 + self.eps) * self.weight


class NormHoldsTorchNorm(nn.Module):
    """PyTorch's norm held as a submodule (blind15b: told the stack's final-norm advice):
    nn.RMSNorm, or nn.LayerNorm without its bias."""

    def __init__(self, d_model, eps=1e-5, kind="rms"):
        super().__init__()
        if kind == "rms":
            self.inner = nn.RMSNorm(d_model, eps=eps)
        else:
            self.inner = nn.LayerNorm(d_model, eps=eps, bias=False)

    def forward(self, x):
        return self.inner(x)


class NormHoldsLayerNorm(NormHoldsTorchNorm):
    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps, kind="layer")


class NormEpsTuple(nn.Module):
    """eps kept with a trailing comma, a tuple of one number (blind15b: a raw TypeError)."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d_model))
        self.eps = (eps,)

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class NormLlama(nn.Module):
    """Llama's RMSNorm: computed in float32, cast back, then the gain."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        return self._norm(x.float()).type_as(x) * self.weight


class NormSumSquaredOverWidth(ref.RMSNorm):
    """The token's sum squared, then divided by d_model ** 2: the mean squared."""

    def forward(self, x):
        mean_squared = x.sum(-1, keepdim=True).square() / x.shape[-1] ** 2  # (..., 1)
        return self.weight * x / torch.sqrt(mean_squared + self.eps)


class NormPower(ref.RMSNorm):
    """The textbook formula: x / sqrt(mean(x^2) + eps), with ** -0.5 and a norm."""

    def forward(self, x):
        rms = torch.linalg.vector_norm(x, dim=-1, keepdim=True) ** 2 / x.shape[-1] + self.eps
        return self.weight * x * rms**-0.5


class FfnW2Transposed(nn.Module):
    """w2 built as nn.Linear(d_model, d_ff), its sizes swapped."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_model, d_ff, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class FfnOutputActivated(ref.SwiGLU):
    """Round 34: an activation after w2 too, F.silu(w2(...)) ("differs" before)."""

    def forward(self, x):
        return F.silu(self.w2(F.silu(self.w1(x)) * self.w3(x)))


class FfnActivationMovedToOutput(ref.SwiGLU):
    """Round 34: the activation moved from the gate to after w2, relu(w2(w1(x) * w3(x)));
    the gate without activation alone was told before."""

    def forward(self, x):
        return F.relu(self.w2(self.w1(x) * self.w3(x)))


class FfnFusedGateValue(nn.Module):
    """Round 34: the gate and the value as one fused layer w13 (2 * d_ff outputs), split
    in forward; told "the submodules must be called exactly so" before."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w13 = nn.Linear(d_model, 2 * d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        gate, value = self.w13(x).chunk(2, dim=-1)
        return self.w2(F.silu(gate) * value)


class FfnGateThroughW1(FfnW2Transposed):
    """w1 reads the value instead of x: the value projection chained before the gate."""

    def __init__(self, d_model, d_ff):
        super().__init__(d_model, d_ff)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x):
        value = self.w3(x)  # (..., d_ff)
        return self.w2(F.silu(self.w1(value)) * value)


class FfnValueFromActivatedInput(FfnGateThroughW1):
    """An activation on the block's input before the value projection, w3(gelu(x))."""

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(F.gelu(x)))


class FfnValueAddedToProduct(FfnGateThroughW1):
    """The value added once more to the gated product: (silu(w1(x)) + 1) * w3(x)."""

    def forward(self, x):
        value = self.w3(x)  # (..., d_ff)
        return self.w2(F.silu(self.w1(x)) * value + value)


class FfnGateCubedRelu(FfnGateThroughW1):
    """The gate a cubed ReLU, relu(w1(x)) ** 3: no catalogued activation (round 31)."""

    def forward(self, x):
        return self.w2(F.relu(self.w1(x)) ** 3 * self.w3(x))


# ---------------------------------------------------------------------- rotary_embedding
def _angles(length, d_head, base=10000.0, *, first=0, exponent=2):
    theta = base ** (-exponent * torch.arange(d_head // 2, dtype=torch.float64) / d_head)
    return torch.arange(first, first + length, dtype=torch.float64)[:, None] * theta


def _rope(*, first=0, exponent=2, swap=False, sign=1):
    def rotary_embedding(length, d_head, base=10000.0):
        angles = _angles(length, d_head, base, first=first, exponent=exponent * sign)
        cos, sin = angles.cos().float(), angles.sin().float()
        return (sin, cos) if swap else (cos, sin)

    return rotary_embedding


def _rope_theta(theta_of):
    """rotary_embedding with the frequencies theta_of(i, d_head, base), i the pair index."""

    def rotary_embedding(length, d_head, base=10000.0):
        i = torch.arange(d_head // 2, dtype=torch.float64)
        angles = torch.arange(length, dtype=torch.float64)[:, None] * theta_of(i, d_head, base)
        return angles.cos().float(), angles.sin().float()

    return rotary_embedding


def _rotate_with_reassigned_half(x, cos, sin):
    """The first half reassigned before the second half is computed from it."""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    a = a * cos - b * sin
    b = a * sin + b * cos  # reads the new a
    return torch.cat([a, b], dim=-1).to(x.dtype)


def _rope_sines_from_every_exponent(length, d_head, base=10000.0):
    """Round 25: the sines from their own frequencies, base ** (-i / d_head) with i =
    0 .. d_head / 2 - 1, while the cosines use base ** (-2i / d_head)."""
    positions = torch.arange(length, dtype=torch.float64)[:, None]  # (length, 1)
    exponents = torch.arange(d_head // 2, dtype=torch.float64)
    cos_theta = base ** (-2 * exponents / d_head)  # (d_head // 2,)
    sin_theta = base ** (-exponents / d_head)
    return (positions * cos_theta).cos().float(), (positions * sin_theta).sin().float()


def _rope_sines_twice(length, d_head, base=10000.0):
    """Round 25: the sines returned in both places, the cosines never."""
    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    sines = (torch.arange(length, dtype=torch.float64)[:, None] * theta).sin().float()
    return sines, sines.clone()


def _rope_position_as_power(length, d_head, base=10000.0):
    """Round 21: the angles as torch.pow(theta, m), the position an exponent."""
    theta = base ** -(torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    angles = torch.pow(theta[None, :], torch.arange(length, dtype=torch.float64)[:, None])
    return angles.cos().float(), angles.sin().float()


def _rope_float64(length, d_head, base=10000.0):
    """The angles in float64, returned without the cast to float32."""
    angles = _angles(length, d_head, base)
    return angles.cos(), angles.sin()


def _rope_frequencies(theta_of):
    """A table of m · theta_i from 0, with the frequencies ``theta_of(d_head, base)``."""

    def rotary_embedding(length, d_head, base=10000.0):
        angles = torch.arange(length).double()[:, None] * theta_of(d_head, base)
        return angles.cos().float(), angles.sin().float()

    return _named("rotary_embedding", rotary_embedding)


def _rope_positions(positions_of):
    """A table of positions_of(length) · theta_i with the right frequencies."""

    def rotary_embedding(length, d_head, base=10000.0):
        theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
        angles = positions_of(length)[:, None] * theta
        return angles.cos().float(), angles.sin().float()

    return _named("rotary_embedding", rotary_embedding)


def _rope_shaped_to_broadcast(length, d_head, base=10000.0):
    """Round 34: the tables returned as (1, 1, length, d_head // 2), shaped in advance for
    (batch, num_heads, len, d_head // 2) halves (the shape and the rotate-half note alone
    before)."""
    cos, sin = ref.rotary_embedding(length, d_head, base)
    return cos[None, None], sin[None, None]


def _rope_in_half_precision(length, d_head, base=10000.0):
    """The angle table built in float16 (a model's .half() applied to its buffers), cos and
    sin taken in float32 (b13b: "largest difference" alone)."""
    exponents = torch.arange(0, d_head, 2).half() / d_head
    angles = torch.outer(torch.arange(length).half(), base**-exponents)  # (length, d_head // 2)
    return angles.float().cos(), angles.float().sin()


def _rope_outer_without_axis(length, d_head, base=10000.0):
    """positions * theta without [:, None]: two vectors of different lengths (b11b)."""
    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)
    angles = theta * torch.arange(length)
    return angles.cos().float(), angles.sin().float()


def _rope_even_odd_of_rotate_half_table(length, d_head, base=10000.0):
    """Round 35: the rotate-half table cat([cos, sin], -1) built, then read as if it were
    interleaved, its even columns as cos and its odd ones as sin (each mixes cosines and
    sines of every other pair)."""
    inv = 1.0 / base ** (torch.arange(0, d_head, 2).float() / d_head)  # (d_head // 2,)
    freqs = torch.outer(torch.arange(length).float(), inv)  # (length, d_head // 2)
    emb = torch.cat((freqs.cos(), freqs.sin()), dim=-1)  # (length, d_head)
    return emb[:, ::2], emb[:, 1::2]


def _rope_cos_table_interleaved(length, d_head, base=10000.0):
    """Round 35: the cos table the first half of a cos/sin interleaved table (cos(m
    theta_0), sin(m theta_0), cos(m theta_1), ...), the sin table right: no cut of one
    table gives both, so the columns are told one by one."""
    inv = 1.0 / base ** (torch.arange(0, d_head, 2).float() / d_head)
    freqs = torch.outer(torch.arange(length).float(), inv)  # (length, d_head // 2)
    mixed = torch.stack((freqs.cos(), freqs.sin()), dim=-1).flatten(-2)  # (length, d_head)
    return mixed[:, : d_head // 2], freqs.sin()


def _rope_from_interleaved_table(length, d_head, base=10000.0):
    """Lesson 03's interleaved table, then its odd columns as cos and its even ones as sin:
    right."""
    position = torch.arange(length, dtype=torch.float32)[:, None]
    div_term = torch.exp(torch.arange(0, d_head, 2).float() * (-math.log(base) / d_head))
    table = torch.zeros(length, d_head)
    table[:, 0::2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term)
    return table[:, 1::2], table[:, 0::2]


def _batches_padding_in_front(tokens, block_size, batch_size, generator):
    """A padding id (-100) in front of every window, the targets the window itself."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    windows = tokens[starts[:, None] + torch.arange(block_size)]  # (batch_size, block_size)
    padding = torch.full((batch_size, 1), -100, dtype=tokens.dtype)
    return torch.cat([padding, windows[:, :-1]], dim=1), windows


def _batches_outer_without_axis(tokens, block_size, batch_size, generator):
    """starts + torch.arange(block_size) without starts[:, None] (b11b)."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    positions = torch.arange(block_size) + starts
    return tokens[positions], tokens[positions + 1]


def _rotary_second_half_never_written(x, cos, sin):
    """The first half written into a torch.empty buffer, the second half only computed."""
    half = x.shape[-1] // 2
    first, second = x[..., :half], x[..., half:]
    rotated = torch.empty(x.shape, dtype=x.dtype)
    rotated[..., :half] = first * cos - second * sin
    unused = first * sin + second * cos  # noqa: F841
    return rotated


def _rotary_last_pair_left_out(x, cos, sin):
    """The pairs rotated up to the next-to-last one (range(half - 1)), the last pair's two
    features passed through unchanged."""
    half = x.shape[-1] // 2
    out = x.clone()
    for i in range(half - 1):
        a, b = x[..., i], x[..., i + half]
        c, s = cos[..., i].to(x.dtype), sin[..., i].to(x.dtype)
        out[..., i], out[..., i + half] = a * c - b * s, a * s + b * c
    return out


def _rotary_polar_of_the_sines(x, cos, sin):
    """Adjacent pairs as complex numbers times torch.polar(ones, sin): the sine taken for
    the angle."""
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2).contiguous())
    turned = pairs * torch.polar(torch.ones_like(sin.float()), sin.float())
    return torch.view_as_real(turned).flatten(-2).to(x.dtype)


def _rotary_sine_of_the_sines(x, cos, sin):
    """The sin table read as the angles, torch.sin(sin), the cos table used as it is."""
    half, cos, sin = x.shape[-1] // 2, cos.to(x.dtype), torch.sin(sin).to(x.dtype)
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)


def _rotary_tables_as_half(x, cos, sin):
    """Rotate-half with the tables rounded to float16 first (.half(), as for a GPU run),
    then brought back to x's dtype: a float32 x rotated with 11-bit tables."""
    half = x.shape[-1] // 2
    cos, sin = cos.half().to(x.dtype), sin.half().to(x.dtype)
    first, second = x[..., :half], x[..., half:]
    return torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)


def _rotary_all_in_bfloat16(x, cos, sin):
    """The whole rotation in bfloat16 (x and the tables cast), cast back to x's dtype."""
    y, c, s = x.bfloat16(), cos.bfloat16(), sin.bfloat16()
    half = y.shape[-1] // 2
    out = torch.cat(
        [y[..., :half] * c - y[..., half:] * s, y[..., :half] * s + y[..., half:] * c], -1
    )
    return out.to(x.dtype)


def _rotary_angles_from_asin(x, cos, sin):
    """Rotate-half with the angles rebuilt as torch.asin(sin) (the cosine's sign lost)."""
    theta = torch.asin(sin.double())
    half = x.shape[-1] // 2
    c, s = torch.cos(theta), torch.sin(theta)
    a, b = x.double()[..., :half], x.double()[..., half:]
    return torch.cat([a * c - b * s, a * s + b * c], dim=-1).to(x.dtype)


def _rotary_angles_from_atan2(x, cos, sin):
    """Neighbouring pairs as complex numbers, the angles rebuilt with torch.atan2 (right
    on the whole circle)."""
    theta = torch.atan2(sin.double(), cos.double())
    pairs = torch.view_as_complex(x.double().reshape(*x.shape[:-1], -1, 2).contiguous())
    turned = pairs * torch.polar(torch.ones_like(theta), theta)
    return torch.view_as_real(turned).flatten(-2).to(x.dtype)


def _rotary_partner_times_sin_cos(x, cos, sin):
    """Round 37: the partner (-b, a) times (sin, cos) alone, as halves: (-b sin, a cos),
    the products never added to x * cos: not a rotation."""
    a, b = x.chunk(2, dim=-1)
    partner = torch.cat((-b, a), dim=-1)
    return partner * torch.cat((sin, cos), dim=-1).to(x.dtype)


def _rotary_first_feature_twice(x, cos, sin):
    """A copy-paste slip: a in place of b, (a cos - a sin, a sin + a cos) (b10h)."""
    half, cos, sin = x.shape[-1] // 2, cos.to(x.dtype), sin.to(x.dtype)
    a = x[..., :half]
    return torch.cat([a * cos - a * sin, a * sin + a * cos], dim=-1)


def _rotary_split_in_pairs(x, cos, sin):
    """torch.split's second argument read as the number of pieces (b13b: told that x's
    axes were unpacked into fixed names)."""
    first, second = torch.split(x, 2, -1)
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    return torch.cat((first * cos - second * sin, second * cos + first * sin), -1)


def _rotary_tables_swapped(x, cos, sin):
    """The tables unpacked in the wrong order, sin, cos = ... (b11b: "differs" before)."""
    half = x.shape[-1] // 2
    sin, cos = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)


def _rotary_adjacent_factors_swapped(x, cos, sin):
    """Neighbouring pairs with cos and sin exchanged in every term (written by hand)."""
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * sin - b * cos, a * cos + b * sin], dim=-1).flatten(-2)


def _rotary_formula_repeated(first_twice):
    """One output written with the other's formula, a copy-paste slip (b11b)."""

    def apply_rotary(x, cos, sin):
        half, cos, sin = x.shape[-1] // 2, cos.to(x.dtype), sin.to(x.dtype)
        a, b = x[..., :half], x[..., half:]
        first, second = a * cos - b * sin, a * sin + b * cos
        return torch.cat([first, first] if first_twice else [second, second], dim=-1)

    return _named("apply_rotary", apply_rotary)


def _rotary_negated(x, cos, sin):
    """Minus the rotation: every term's sign flipped."""
    half, cos, sin = x.shape[-1] // 2, cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., :half], x[..., half:]
    return torch.cat([b * sin - a * cos, -a * sin - b * cos], dim=-1)


def _rotary_first_output_without_sine(x, cos, sin):
    """The first output's -b * sin term left out: feature 3's pair turns so slowly that it
    stays within the tolerance of x (once told "features 3 to 3 ... never rotated")."""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat([cos.to(x.dtype) * a, sin.to(x.dtype) * a + cos.to(x.dtype) * b], dim=-1)


def _rope_llama(length, d_head, base=10000.0):
    """Llama's precompute_freqs_cis, in float32: torch.outer, then polar."""
    freqs = 1.0 / (base ** (torch.arange(0, d_head, 2)[: d_head // 2].float() / d_head))
    freqs_cis = torch.polar(
        torch.ones(length, d_head // 2), torch.outer(torch.arange(length).float(), freqs)
    )
    return freqs_cis.real, freqs_cis.imag


def _rope_for_twice_the_head(length, d_head, base=10000.0):
    """The frequency formula given 2 * d_head where d_head belongs: d_head frequencies."""
    width = 2 * d_head
    theta = base ** (-torch.arange(0, width, 2, dtype=torch.float64) / width)
    angles = torch.arange(length, dtype=torch.float64)[:, None] * theta
    return angles.cos().float(), angles.sin().float()


def _rope_memo_without_base():
    """Tables memoised in a module-level dict keyed by (length, d_head): base left out of the
    key, so a later call with another base gets the first one's tables."""
    memo = {}

    def rotary_embedding(length, d_head, base=10000.0):
        key = (length, d_head)
        if key not in memo:
            angles = _angles(length, d_head, base)  # (length, d_head // 2)
            memo[key] = (angles.cos().float(), angles.sin().float())
        return memo[key]

    return rotary_embedding


@functools.lru_cache(maxsize=32)
def _rope_lru_cached(length, d_head, base=10000.0):
    """The tables memoised by functools.lru_cache: keyed on every argument."""
    angles = _angles(length, d_head, base)  # (length, d_head // 2)
    return angles.cos().float(), angles.sin().float()


# -------------------------------------------------------------------------- apply_rotary
def _rotate(*, direction=1, mixed=False, not_rotated=False, split_axis=-1, join=None):
    def apply_rotary(x, cos, sin):
        half = x.shape[split_axis] // 2
        cos, sin = cos.to(x.dtype), direction * sin.to(x.dtype)
        if not_rotated:
            return x * torch.cat([cos, cos], -1) + x * torch.cat([sin, sin], -1)
        a, b = x[..., :half], x[..., half:]
        if mixed:
            return torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2)
        if join is not None:  # (function, axis)
            return join[0]([a * cos - b * sin, a * sin + b * cos], join[1])
        return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)

    return apply_rotary


def _rotary_second_half_detached(x, cos, sin):
    """Round 21: the second half taken from x.data: the values are right, the gradient
    through b is lost (uncaught before, as a detached copy of all of x)."""
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., :half], x.data[..., half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)


def _rotary_tables_cut_to_heads(x, cos, sin):
    """Round 21: the tables cut to x.size(1) rows (the heads of a 4-D x): a raw broadcast
    error before."""
    rows = x.size(1)
    return _rotate()(x, cos[:rows], sin[:rows])


def _rotary_no_minus(x, cos, sin):
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos + b * sin, a * sin + b * cos], -1)


def _rotary_divides_by_cos(x, cos, sin):
    """Mutant apply_rotary-7: a / cos in the first output ("differs from the reference")."""
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a / cos - b * sin, a * sin + b * cos], -1)


def _rotary_adjacent_no_b_cos(x, cos, sin):
    """Neighbouring pairs, the second output's b * cos term dropped."""
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin], -1).flatten(-2)


def _rotary_wrong_way_for_4d_only(x, cos, sin):
    """Wrong only for 4-D inputs: no known mistake gives this on every input."""
    return _rotate(direction=-1 if x.dim() == 4 else 1)(x, cos, sin)


def _rope_one_indexed_when_long(length, d_head, base=10000.0):
    """Positions from 1 only when length > 10: no known mistake gives this on every input."""
    return _rope(first=1 if length > 10 else 0)(length, d_head, base)


def _adjacent_written_as_halves(x, cos, sin):
    """Neighbouring pairs (2i, 2i + 1) rotated, the results written back as halves."""
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)


def _adjacent_with_halves_table(x, cos, sin):
    """Neighbouring pairs rotated with the halves' angle table, cat([cos, cos])."""
    cos, sin = torch.cat([cos, cos], -1).to(x.dtype), torch.cat([sin, sin], -1).to(x.dtype)
    swapped = torch.stack([-x[..., 1::2], x[..., 0::2]], -1).flatten(-2)
    return x * cos + swapped * sin


def _halves_swapped(x, cos, sin):
    """The two rotated halves written back in the wrong order."""
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * sin + b * cos, a * cos - b * sin], -1)


def _rotate_partner_rolled_by_one(x, cos, sin):
    """Round 23: each feature's partner taken as its neighbour to the left, x.roll(1, -1),
    a partner map of the rotate-half form that is a permutation but not the halves'."""
    half = x.shape[-1] // 2
    cos, sin = torch.cat([cos, cos], dim=-1), torch.cat([sin, sin], dim=-1)  # (len, d_head)
    signs = torch.cat([-torch.ones(half), torch.ones(half)])
    return (x * cos + x.roll(1, -1) * signs * sin).to(x.dtype)


def _rotate_first_half_strided(x, cos, sin):
    """Round 30: a taken as every other feature, x[..., ::2], b as the second half: the
    halves' slices pick the wrong features (the first half reads features 0, 2, 4, ...)."""
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)  # (len, d_head/2)
    a, b = x[..., ::2], x[..., half:]  # (..., len, d_head/2) each
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)


def _rotate_second_half_one_early(x, cos, sin):
    """Round 30: b sliced one feature early, x[..., 1 : half + 1]: features 1 .. half - 1
    read twice, the last never."""
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)  # (len, d_head/2)
    first, second = x[..., :half], x[..., 1 : half + 1]  # (..., len, d_head/2) each
    return torch.cat([first * cos - second * sin, first * sin + second * cos], dim=-1)


def _rotate_half_neox(x, cos, sin):
    """GPT-NeoX / Hugging Face: rotate_half, with the angle table repeated to d_head."""
    cos, sin = torch.cat([cos, cos], -1).to(x.dtype), torch.cat([sin, sin], -1).to(x.dtype)
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], -1)
    return x * cos + rotated * sin


def _rotate_half_tables_for_four_axes(x, cos, sin):
    """GPT-NeoX's rotate_half, with the tables reshaped to (1, 1, len, d_head) as for a
    (batch, heads, len, d_head) x: a 2-D x gains two leading axes."""
    cos = torch.cat([cos, cos], -1).to(x.dtype).view(1, 1, cos.shape[0], -1)
    sin = torch.cat([sin, sin], -1).to(x.dtype).view(1, 1, sin.shape[0], -1)
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], -1)
    return x * cos + rotated * sin


def _rotate_half_tables(doubled):
    """rotate_half with the tables doubled along the positions ("positions", torch.cat
    along dim 0) or not doubled at all ("none")."""

    def apply_rotary(x, cos, sin):
        if doubled == "positions":
            cos, sin = torch.cat([cos, cos], 0), torch.cat([sin, sin], 0)
        x1, x2 = x.chunk(2, dim=-1)
        return x * cos.to(x.dtype) + torch.cat([-x2, x1], -1) * sin.to(x.dtype)

    return _named("apply_rotary", apply_rotary)


def _rotary_split_at_length(x, cos, sin):
    """The split point read from x's length axis, x.shape[-2], not its features."""
    half = x.shape[-2]
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], -1).to(x.dtype)


def _rotate_tables_unsqueezed(x, cos, sin):
    """cos and sin unsqueezed for a (batch, len, heads, d_head) layout: (len, 1, d/2)."""
    cos, sin = cos.unsqueeze(1).to(x.dtype), sin.unsqueeze(1).to(x.dtype)
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)


def _rotate_four_axes(x, cos, sin):
    """x indexed with four axes, x[:, :, :, :half]: only a (batch, heads, len, d) x works."""
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[:, :, :, :half], x[:, :, :, half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)


def _rotate_complex_upcast(x, cos, sin):
    """Neighbouring pairs as complex numbers of x.float(), never cast back."""
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2).contiguous())
    return torch.view_as_real(pairs * torch.complex(cos, sin)).flatten(-2)


def _rotate_adjacent_complex(x, cos, sin):
    """Llama / RoFormer: neighbouring pairs as complex numbers, times e^{i angle}."""
    pairs = torch.view_as_complex(x.double().reshape(*x.shape[:-1], -1, 2).contiguous())
    turned = pairs * torch.complex(cos.double(), sin.double())
    return torch.view_as_real(turned).flatten(-2).to(x.dtype)


def _rotate_half_promoted(x, cos, sin):
    """Rotate-half with the float32 cos and sin as given: a half-precision x comes back
    float32 (https://github.com/huggingface/transformers/pull/24262)."""
    half = x.shape[-1] // 2
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)


def _rotate_adjacent(x, cos, sin):
    """Adjacent pairs (2i, 2i + 1) in real arithmetic."""
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2)


def _rotate_adjacent_unflattened(x, cos, sin):
    """Adjacent pairs stacked on a last axis of their own, never flattened back."""
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]  # (..., len, d_head // 2) each
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)


# ------------------------------------------------------------------------------- SwiGLU
class _Ffn(ref.SwiGLU):
    def act(self, z):
        return F.silu(z)

    def forward(self, x):
        return self.w2(self.act(self.w1(x)) * self.w3(x))


class FfnTwoThirds(nn.Module):
    """Llama's hidden width, int(2 * d_ff / 3), applied to a d_ff that is already the
    hidden width (blind8b: told the shape of w1.weight alone)."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        hidden = int(2 * d_ff / 3)
        self.w1 = nn.Linear(d_model, hidden, bias=False)
        self.w3 = nn.Linear(d_model, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class FfnFusedWidthPerProjection(nn.Module):
    """Round 23: each of w1 and w3 given the width of a fused gate-and-value projection,
    2 * d_ff, and w2 taking 2 * d_ff inputs."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, 2 * d_ff, bias=False)
        self.w3 = nn.Linear(d_model, 2 * d_ff, bias=False)
        self.w2 = nn.Linear(2 * d_ff, d_model, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class FfnGateSwishBetaTwo(ref.SwiGLU):
    """Round 25: a Swish gate with slope 2, gate * sigmoid(2 * gate)."""

    def forward(self, x):
        gate = self.w1(x)  # (..., d_ff)
        return self.w2(gate * torch.sigmoid(2.0 * gate) * self.w3(x))


class FfnGateSwishOddSlope(ref.SwiGLU):
    """A Swish gate whose slope, 0.37, is no known activation's constant."""

    def forward(self, x):
        gate = self.w1(x)  # (..., d_ff)
        return self.w2(gate * torch.sigmoid(0.37 * gate) * self.w3(x))


class FfnGateGeluTanh(ref.SwiGLU):
    """Round 25: GELU's tanh approximation as the gate."""

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x), approximate="tanh") * self.w3(x))


class FfnProjectionsMultipliedRaw(ref.SwiGLU):
    """Round 25: the value times the gate with no activation anywhere."""

    def forward(self, x):
        product = self.w3(x) * self.w1(x)  # (..., d_ff)
        return self.w2(product)


class FfnHiddenLayerReturned(ref.SwiGLU):
    """Round 25: the raw product of the two projections returned, neither SiLU nor w2."""

    def forward(self, x):
        hidden = self.w1(x) * self.w3(x)  # (..., d_ff)
        return hidden


class FfnResidualOwn(ref.SwiGLU):
    """The residual added inside the feed-forward, after w2 (blind15b)."""

    def forward(self, x):
        out = self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., d_model)
        return out + x


class FfnInputStraightToW2(ref.SwiGLU):
    """The block's input handed to w2, the gated projections built and never called (round
    28's class: layers the reference runs before the one that raised, skipped)."""

    def forward(self, x):
        return self.w2(F.silu(x))  # w2 reads d_ff features, x has d_model


class FfnSigmoidOfInput(ref.SwiGLU):
    """A hand-written SiLU whose sigmoid takes the block's input (blind15b)."""

    def forward(self, x):
        z = self.w1(x)  # (..., d_ff)
        return self.w2(z * x.sigmoid() * self.w3(x))


class FfnSwapped(ref.SwiGLU):
    def forward(self, x):
        return self.w2(self.w1(x) * F.silu(self.w3(x)))


class FfnOutputPerBranch(ref.SwiGLU):
    """Round 30: w2 applied to each branch, then the product: w2(silu(w1(x))) * w2(w3(x))."""

    def forward(self, x):
        return self.w2(F.silu(self.w1(x))) * self.w2(self.w3(x))


class FfnWithBias(ref.SwiGLU):
    """nn.Linear's default bias on all three projections (llama-from-scratch#7)."""

    def __init__(self, d_model, d_ff):
        super().__init__(d_model, d_ff)
        self.w1, self.w3 = nn.Linear(d_model, d_ff), nn.Linear(d_model, d_ff)
        self.w2 = nn.Linear(d_ff, d_model)


class FfnReLU(_Ffn):
    def act(self, z):
        return torch.relu(z)


class FfnGELU(_Ffn):
    def act(self, z):
        return F.gelu(z)


class FfnNoGate(ref.SwiGLU):
    def forward(self, x):
        return self.w2(F.silu(self.w1(x)))


class FfnValueLayerUncalled(ref.SwiGLU):
    """The value layer used as a factor without being applied (b13b: told only of
    nn.Linear's class)."""

    def forward(self, x):
        return self.w2(self.w3 * F.silu(self.w1(x)))


class FfnOutputNamedW3(nn.Module):
    """Llama's w2 and w3 exchanged: w2 the value projection, w3 the output one (b13b: told
    that w3's two sizes are swapped)."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_model, d_ff, bias=False)  # value
        self.w3 = nn.Linear(d_ff, d_model, bias=False)  # out

    def forward(self, x):
        hidden = F.silu(self.w1(x)) * self.w2(x)  # (..., d_ff)
        return self.w3(hidden)  # (..., d_model)


class FfnSiluAfter(ref.SwiGLU):
    def forward(self, x):
        return self.w2(F.silu(self.w1(x) * self.w3(x)))


class FfnSigmoidForm(ref.SwiGLU):
    """silu written out: z * sigmoid(z)."""

    def forward(self, x):
        gate = self.w1(x)
        return self.w2(gate * torch.sigmoid(gate) * self.w3(x))


class FfnGateMulInPlace(ref.SwiGLU):
    """The SiLU computed in place with mul_: z.mul_(z.sigmoid_()) multiplies the sigmoid by
    itself (sigmoid_ has already overwritten z)."""

    def forward(self, x):
        z = self.w1(x)
        z.mul_(z.sigmoid_())
        return self.w2(z * self.w3(x))


class FfnSiluInPlaceTimesZ(ref.SwiGLU):
    """F.silu(z, inplace=True) * z: z already holds silu(z), so the gate is silu(z) ** 2."""

    def forward(self, x):
        z = self.w1(x)
        return self.w2(F.silu(z, inplace=True) * z * self.w3(x))


class FfnGateSoftmaxByHand(ref.SwiGLU):
    """A router-style gate written out: exp(z - max) over its sum across the d_ff units."""

    def forward(self, x):
        z = self.w1(x)
        e = torch.exp(z - z.amax(dim=-1, keepdim=True))
        return self.w2(e / e.sum(dim=-1, keepdim=True) * self.w3(x))


class FfnGateUnitNorm(ref.SwiGLU):
    """The SiLU gate divided by its L2 norm over the hidden units (F.normalize)."""

    def forward(self, x):
        return self.w2(F.normalize(F.silu(self.w1(x)), dim=-1) * self.w3(x))


class FfnReluBothBranches(ref.SwiGLU):
    """A ReGLU with relu on the value branch too: relu(w1(x)) * relu(w3(x))."""

    def forward(self, x):
        return self.w2(torch.relu(self.w1(x)) * torch.relu(self.w3(x)))


class FfnTanhValue(ref.SwiGLU):
    """The value branch squashed with tanh: silu(w1(x)) * tanh(w3(x))."""

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * torch.tanh(self.w3(x)))


class FfnSigmoidOfMinus(ref.SwiGLU):
    """The SiLU written with the sign flipped: z * sigmoid(-z)."""

    def forward(self, x):
        gate = self.w1(x)
        return self.w2(gate * torch.sigmoid(-gate) * self.w3(x))


class FfnFunctionalDropout(ref.SwiGLU):
    """F.dropout on the product, following self.training: right in eval mode only."""

    def forward(self, x):
        hidden = F.dropout(F.silu(self.w1(x)) * self.w3(x), 0.1, training=self.training)
        return self.w2(hidden)


class FfnValueFromW1(ref.SwiGLU):
    """w1 where w3 belongs: silu(w1(x)) * w1(x)."""

    def forward(self, x):
        gate = self.w1(x)
        return self.w2(F.silu(gate) * gate)


class FfnDivided(ref.SwiGLU):
    """Mutant SwiGLU-1: the gate divided by the value ("differs from the reference")."""

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) / self.w3(x))


class FfnW2First(ref.SwiGLU):
    """w2 on the gate alone, then times the value: a raw size error when d_ff != d_model,
    a wrong value when they are equal (the hidden case with d_ff = d_model)."""

    def forward(self, x):
        return self.w2(F.silu(self.w1(x))) * self.w3(x)


class FfnGateTimesInput(ref.SwiGLU):
    """The value w3(x) forgotten: the gate times x itself (a raw size error before)."""

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * x)


class FfnEinsum(ref.SwiGLU):
    """Explicit einsum products with the weights (no nn.Linear call)."""

    def forward(self, x):
        gate = torch.einsum("...d,fd->...f", x, self.w1.weight)
        value = torch.einsum("...d,fd->...f", x, self.w3.weight)
        return torch.einsum("...f,df->...d", F.silu(gate) * value, self.w2.weight)


# ------------------------------------------------------------------ CausalSelfAttention
class _Attention(ref.CausalSelfAttention):
    """The reference with knobs for the classic mistakes and other correct forms."""

    rotate = staticmethod(ref.apply_rotary)
    first = 0
    rope = True
    rotate_values = False
    before_split = False
    causal = True

    length_axis = 1

    def forward(self, x):
        length = x.shape[self.length_axis]
        q, k, v = self.w_q(x), self.w_k(x), self.w_v(x)  # (batch, len, d_model)
        if self.before_split and self.rope:
            cos, sin = ref.rotary_embedding(length + self.first, q.shape[-1], self.base)
            q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
        q, k, v = (split_heads(t, self.num_heads) for t in (q, k, v))
        if self.rope and not self.before_split:
            cos, sin = ref.rotary_embedding(length + self.first, self.d_head, self.base)
            cos, sin = cos[self.first :], sin[self.first :]
            q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
            if self.rotate_values:
                v = self.rotate(v, cos, sin)
        mask = look_ahead_mask(length) if self.causal else None
        heads, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(merge_heads(heads))


class AttentionOutputPerHead(_Attention):
    """w_o built nn.Linear(d_head, d_head) and applied to each head before the merge."""

    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__(d_model, num_heads, base)
        self.w_o = nn.Linear(self.d_head, self.d_head, bias=False)

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return merge_heads(self.w_o(heads))  # (batch, len, d_model)


class AttentionMergeInterleaved(_Attention):
    """Heads split right, merged with the head axis last: permute(0, 2, 3, 1)."""

    def forward(self, x):
        batch, length, d_model = x.shape
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        merged = heads.permute(0, 2, 3, 1).reshape(batch, length, d_model)
        return self.w_o(merged)


class AttentionNoRope(_Attention):
    rope = False


class AttentionScoresTimesMask(_Attention):
    """The scores multiplied by the 0/1 mask: blocked scores become 0, not -inf."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = q @ k.transpose(-2, -1) / self.d_head**0.5 * look_ahead_mask(length).float()
        return self.w_o(merge_heads(torch.softmax(scores, -1) @ v))


class AttentionTablesFromFirstCall(_Attention):
    """The rotation tables computed on the first call, kept, and sliced on later calls:
    a later, longer call fails (blind10h-csa-rope-cached-first-call: uncaught before)."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        if not hasattr(self, "tables"):
            self.tables = ref.rotary_embedding(length, self.d_head, self.base)
        cos, sin = (t[:length] for t in self.tables)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionTablesCachedUntilLonger(AttentionTablesFromFirstCall):
    """Correct: the cached tables are rebuilt whenever a longer sequence comes."""

    def forward(self, x):
        if hasattr(self, "tables") and self.tables[0].shape[0] < x.shape[1]:
            del self.tables
        return super().forward(x)


class AttentionFourHeads(_Attention):
    """Four heads whatever num_heads is, view(batch, length, 4, -1) (b10h: "differs")."""

    def forward(self, x):
        batch, length, d_model = x.shape
        q, k, v = (
            w(x).view(batch, length, 4, -1).transpose(1, 2) for w in (self.w_q, self.w_k, self.w_v)
        )
        cos, sin = ref.rotary_embedding(length, q.shape[-1], self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(heads.transpose(1, 2).reshape(batch, length, d_model))


class AttentionMaskAfterSoftmax(_Attention):
    """The future weights zeroed after the softmax, not renormalised (b10h: "differs")."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        weights = torch.softmax(q @ k.transpose(-2, -1) / self.d_head**0.5, -1)
        weights = weights.masked_fill(~look_ahead_mask(length), 0.0)
        return self.w_o(merge_heads(weights @ v))


class NormLazyGain(nn.Module):
    """The gain created on the first call, from x's width: a fresh module has no weight."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        if not hasattr(self, "weight"):
            self.weight = nn.Parameter(torch.ones(x.shape[-1]))
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class AttentionViewSizesSwapped(ref.CausalSelfAttention):
    """Heads made with view(batch, len, d_head, num_heads): d_head heads of num_heads."""

    def forward(self, x):
        batch, length, _ = x.shape
        q, k, v = (
            w(x).view(batch, length, self.d_head, self.num_heads).transpose(1, 2)
            for w in (self.w_q, self.w_k, self.w_v)
        )
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionOutputInForward(ref.CausalSelfAttention):
    """w_o built in forward, on every call."""

    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__(d_model, num_heads, base)
        del self.w_o

    def forward(self, x):
        self.w_o = nn.Linear(x.shape[-1], x.shape[-1], bias=False)
        return super().forward(x)


class GptHeadsAndLayersExchanged(ref.GPT):
    """num_heads and num_layers exchanged in the signature, the body the reference's."""

    def __init__(self, vocab_size, d_model, num_layers, d_ff, num_heads, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)


class GptBlocksCalledAtOnce(ref.GPT):
    """The ModuleList of blocks called on the embeddings in one expression."""

    def forward(self, ids):
        return self.norm(self.layers(self.embedding(ids))) @ self.embedding.weight.T


class GptTimeMajorBlocks(ref.GPT):
    """The embeddings moved to (len, batch, d_model) before the blocks, and the logits
    moved back after: the blocks attend across the batch."""

    def forward(self, ids):
        x = self.embedding(ids).transpose(0, 1)  # (len, batch, d_model)
        for layer in self.layers:
            x = layer(x)
        return (self.norm(x) @ self.embedding.weight.T).transpose(0, 1)


class GptBatchFlattenedIntoOneRow(ref.GPT):
    """The embeddings flattened to one row, (1, batch * len, d_model), before the blocks
    and the logits unflattened after: each sequence attends to the earlier ones."""

    def forward(self, ids):
        x = self.embedding(ids).flatten(0, 1).unsqueeze(0)  # (1, batch * len, d_model)
        for layer in self.layers:
            x = layer(x)
        return (self.norm(x) @ self.embedding.weight.T).unflatten(1, ids.shape)[0]


class GptEmbeddingReset(ref.GPT):
    """The embedding's reset_parameters() called at the start of forward: redrawn, and
    the loaded weights lost, on every call."""

    def forward(self, ids):
        self.embedding.reset_parameters()
        return super().forward(ids)


class GptLookedUpRowsCappedByHand(ref.GPT):
    """The looked-up rows capped at norm 3 by hand, in place, before each lookup (what
    nn.Embedding's max_norm does)."""

    def forward(self, ids):
        with torch.no_grad():
            rows = torch.unique(ids)
            table = self.embedding.weight
            lengths = table[rows].norm(dim=-1, keepdim=True)
            table[rows] = table[rows] * (3.0 / lengths).clamp(max=1.0)
        return super().forward(ids)


class GptEmbeddingHalvedInPlace(ref.GPT):
    """Every row of the embedding halved in place on each call (.data.mul_)."""

    def forward(self, ids):
        self.embedding.weight.data.mul_(0.5)
        return super().forward(ids)


class GptVocabularyPaddedTo32(ref.GPT):
    """The embedding table padded to a multiple of 32 rows (round 31: a size rounded up)."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        self.embedding = nn.Embedding(-(-vocab_size // 32) * 32, d_model)


class NormGainAsBuffer(ref.RMSNorm):
    """The gain wrapped in nn.Buffer (a state-dict entry, not a parameter): never trained."""

    def __init__(self, d_model, eps=1e-5):
        super().__init__(d_model, eps)
        del self.weight
        self.weight = nn.Buffer(torch.ones(d_model))


class AttentionMaskBuffer(_Attention):
    """nanoGPT's causal mask kept as a buffer with the default persistent=True: an extra
    state-dict key, "tril"."""

    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__(d_model, num_heads, base)
        self.register_buffer("tril", torch.tril(torch.ones(64, 64)).bool())


class GptPositionsBuffer(ref.GPT):
    """Hugging Face's position_ids kept as a persistent buffer: an extra state-dict key."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        self.register_buffer("position_ids", torch.arange(512)[None])


class BlockSecondNormSwapped(ref.DecoderBlock):
    """The second norm built as RMSNorm(eps, d_model): torch.ones refuses the float eps."""

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.norm2 = ref.RMSNorm(eps, d_model)


class GptEmbeddingNotTransposed(ref.GPT):
    """The logits through the embedding matrix as stored, without .T (b11b)."""

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight


class GptEmbeddingThroughLinear(ref.GPT):
    """F.linear with the transposed matrix, F.linear(x, weight.T): the transpose twice."""

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer(x)
        return F.linear(self.norm(x), self.embedding.weight.T)


class BlockFfnResultUnused(ref.DecoderBlock):
    """Round 23: the feed-forward runs, but its result is never added: h is returned."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        self.feed_forward(self.norm2(h))  # computed, then dropped
        return h


class BlockFeedForwardSandwiched(ref.DecoderBlock):
    """Round 33: the feed-forward's output normalised again by norm2 before the residual
    (a post-sub-layer norm on that branch only)."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return h + self.norm2(self.feed_forward(self.norm2(h)))


class BlockInputAddedAgain(ref.DecoderBlock):
    """Round 30: the block's input added to the output once more (a residual around the
    whole block on top of the two inside it)."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return x + h + self.feed_forward(self.norm2(h))


class BlockAttentionAddedToOutput(ref.DecoderBlock):
    """Round 30: the attention's output added to the block's output again (a variable
    holding attn(...) reused in the last sum)."""

    def forward(self, x):
        attended = self.attn(self.norm1(x))
        h = x + attended
        return h + self.feed_forward(self.norm2(h)) + attended


class BlockFfnGainTwice(ref.DecoderBlock):
    """Round 23: the feed-forward reads norm2(h) multiplied by norm2's weight again."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return h + self.feed_forward(self.norm2(h) * self.norm2.weight)


class BlockFfnNormTwice(ref.DecoderBlock):
    """Round 23: the feed-forward reads norm2(norm2(h)), the stream normalised twice."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return h + self.feed_forward(self.norm2(self.norm2(h)))


class BlockNormEpsOnce(ref.DecoderBlock):
    """eps passed to norm1 only: norm2 computes with the default (b11b: "differs")."""

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.norm2 = ref.RMSNorm(d_model)


class BlockNormGivenHeadsAsEps(ref.DecoderBlock):
    """norm1 built as RMSNorm(d_model, num_heads): another argument where eps belongs."""

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.norm1 = ref.RMSNorm(d_model, num_heads)


class BlockNormEpsOnceOther(ref.DecoderBlock):
    """eps passed to norm2 only."""

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.norm1 = ref.RMSNorm(d_model)


class FfnWidthRoundedUp(ref.SwiGLU):
    """The hidden width rounded up to a multiple of 16, as Llama's multiple_of does."""

    def __init__(self, d_model, d_ff):
        super().__init__(d_model, 16 * ((d_ff + 15) // 16))


class FfnSiluClass(ref.SwiGLU):
    """nn.SiLU stored without parentheses: self.act(h) builds a module, then a module times
    a tensor (b11b: Python's TypeError alone before)."""

    def forward(self, x):
        return self.w2(nn.SiLU(self.w1(x)) * self.w3(x))


class FfnSiluClassRight(ref.SwiGLU):
    """The same, the module on the right of the product."""

    def forward(self, x):
        return self.w2(self.w3(x) * nn.SiLU(self.w1(x)))


class FfnOtherActivation(ref.SwiGLU):
    """b12b: another activation of F in the SiLU's place: F.selu (the benchmark's case, one
    letter away) or F.mish (no case): "differs from the reference" alone before."""

    activation = "selu"

    def forward(self, x):
        return self.w2(getattr(F, self.activation)(self.w1(x)) * self.w3(x))


class FfnMish(FfnOtherActivation):
    activation = "mish"


class FfnGeluClass(ref.SwiGLU):
    """b12b: the same slip with another activation's class, nn.GELU(h): the advice names
    that module's own function, F.gelu, not another activation's."""

    def forward(self, x):
        return self.w2(nn.GELU(self.w1(x)) * self.w3(x))


class AttentionSlips(_Attention):
    """b11b: the causal mask transposed (look_ahead_mask(len).T: each query sees the later
    keys), or two projections exchanged (k, q unpacked in the wrong order, or the queries
    and the values swapped): "differs from the reference" before."""

    slip = "mask_transposed"

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        if self.slip == "q_v":
            q, v = v, q
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        if self.slip == "q_k":
            k, q = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        else:
            q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        mask = look_ahead_mask(length)
        if self.slip == "mask_transposed":
            mask = mask.T
        heads, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(merge_heads(heads))


class AttentionTablesSwapped(_Attention):
    """RoPE's tables unpacked in the wrong order, sin, cos = rotary_embedding(...) (b11b:
    "differs" before)."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        sin, cos = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionNotCausalNoOutput(_Attention):
    """Two mistakes at once: no mask and no w_o (b11b: no single candidate matched)."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v)
        return merge_heads(heads)


class AttentionMaskTransposedValuesRotated(_Attention):
    """Two mistakes at once: the mask transposed and the values rotated (b11b)."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k, v = (ref.apply_rotary(t, cos, sin) for t in (q, k, v))
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length).T)
        return self.w_o(merge_heads(heads))


class GptScaledNoFinalNorm(ref.GPT):
    """Two mistakes at once: embeddings times sqrt(d_model), no final norm (b11b)."""

    def forward(self, ids):
        x = self.embedding(ids) * math.sqrt(self.embedding.embedding_dim)
        for layer in self.layers:
            x = layer(x)
        return x @ self.embedding.weight.T


class GptTiedScaledUnitRows(ref.GPT):
    """nGPT-style output: the embedding rows normalised to unit length and scaled by
    sqrt(d_model), each token's logit off by its own factor."""

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer(x)
        rows = self.embedding.weight / self.embedding.weight.norm(dim=1, keepdim=True)
        return self.norm(x) @ (rows * math.sqrt(self.embedding.embedding_dim)).T


class AttentionOwnSublayerBlock(ref.CausalSelfAttention):
    """The attention wrapped in its own residual and norm, LayerNorm(x + attention): a
    whole sub-layer inside the attention (x added back alone was told "differs",
    blind19d-csa-residual-added-inside)."""

    def forward(self, x):
        return F.layer_norm(x + super().forward(x), x.shape[-1:])


class AttentionFunctionalDropout(ref.CausalSelfAttention):
    """b12b: the attention by hand with F.dropout on the weights, on in eval mode too (the
    benchmark's case): "differs from the reference" alone before."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        scores = scores.masked_fill(~look_ahead_mask(length), float("-inf"))
        weights = F.dropout(torch.softmax(scores, -1), p=0.1)
        return self.w_o(merge_heads(weights @ v))


class AttentionSdpaDropout(ref.CausalSelfAttention):
    """Round 21: PyTorch's fused attention given dropout_p (on in eval mode too): F.dropout
    alone was named before."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads = F.scaled_dot_product_attention(
            q, k, v, attn_mask=look_ahead_mask(length), dropout_p=0.25
        )
        return self.w_o(merge_heads(heads))


class AttentionRotaryArgumentsSwapped(ref.CausalSelfAttention):
    """b12b: rotary_embedding(self.d_head, length): (d_head, len // 2) tables, a shape error
    whose sizes a fixed head width explains too, so both are said."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(self.d_head, length, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class BlockResidualDropout(ref.DecoderBlock):
    """b12b: F.dropout on each sub-layer's output (no case): random in eval mode."""

    def forward(self, x):
        h = x + F.dropout(self.attn(self.norm1(x)), 0.1)
        return h + F.dropout(self.feed_forward(self.norm2(h)), 0.1)


class BlockHeadsFrom(ref.DecoderBlock):
    """b12b: another of the block's sizes given to the attention as num_heads: d_ff (the
    benchmark's case; equal to d_model in the visible case, parted by a second block),
    d_model or d_model // num_heads (no case)."""

    source = "d_ff"

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        heads = {"d_ff": d_ff, "d_model": d_model, "d_head": d_model // num_heads}[self.source]
        self.attn = ref.CausalSelfAttention(d_model, heads)


class BlockHeadsFromDModel(BlockHeadsFrom):
    source = "d_model"


class BlockHeadsFromDHead(BlockHeadsFrom):
    source = "d_head"


class GptEmbeddingSizesSwapped(ref.GPT):
    """b12b: nn.Embedding(d_model, vocab_size): its shape alone before."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        self.embedding = nn.Embedding(d_model, vocab_size)


class GptLogitsScaled(ref.GPT):
    """b12b: the tied logits times a constant: d_model ** -0.5 (T5's rescaling, the
    benchmark's case), sqrt(d_model) or 0.5 (no case): every step right but the output's
    scale, which was reported as a final norm missing."""

    factor = "inverse_root"

    def forward(self, ids):
        d_model = self.embedding.embedding_dim
        scale = {"inverse_root": d_model**-0.5, "root": d_model**0.5, "half": 0.5}[self.factor]
        return super().forward(ids) * scale


class GptLogitsTimesRoot(GptLogitsScaled):
    factor = "root"


class GptLogitsHalved(GptLogitsScaled):
    factor = "half"


class AttentionPositionsReversed(_Attention):
    """The tables flipped along the positions: the same scores as cos and sin exchanged,
    so both are told (b11b)."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = (t.flip(0) for t in ref.rotary_embedding(length, self.d_head, self.base))
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionQueriesKeysExchanged(AttentionSlips):
    slip = "q_k"


class AttentionQueriesValuesExchanged(AttentionSlips):
    slip = "q_v"


class AttentionScaleHalfHead(_Attention):
    """Scores divided by pow(d_head, 1) / 2, the square root written with the wrong
    precedence: right only for d_head = 4."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = q @ k.transpose(-2, -1) / (pow(self.d_head, 1) / 2)
        scores = scores.masked_fill(~look_ahead_mask(length), float("-inf"))
        return self.w_o(merge_heads(torch.softmax(scores, dim=-1) @ v))


class _AttentionFromScores(_Attention):
    """The reference's projections, split and rotation; ``weights(scores, allowed)`` makes
    the attention weights from the scaled scores (the family recovered from the values and
    w_o's input, checking/recovered_weights)."""

    def weights(self, scores, allowed):
        return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        return self.w_o(merge_heads(self.weights(scores, look_ahead_mask(length)) @ v))


class AttentionSinkInDenominator(_AttentionFromScores):
    """A "sink" in the softmax's denominator, written stably: exp(s - m) / (exp(-m) +
    sum exp(s - m)), which is exp(s) / (1 + sum exp(s))."""

    def weights(self, scores, allowed):
        scores = scores.masked_fill(~allowed, float("-inf"))
        top = scores.amax(dim=-1, keepdim=True)
        exps = torch.exp(scores - top)
        return exps / (torch.exp(-top) + exps.sum(dim=-1, keepdim=True))


class AttentionScoresCappedAtFive(_AttentionFromScores):
    """The scores soft-capped, 5 tanh(s / 5), before the mask."""

    def weights(self, scores, allowed):
        return super().weights(5.0 * torch.tanh(scores / 5.0), allowed)


class AttentionCappedAfterTheMask(_AttentionFromScores):
    """The soft-cap after the mask: tanh(-inf) = -1, so the blocked keys get -5, not -inf."""

    def weights(self, scores, allowed):
        blocked = scores.masked_fill(~allowed, float("-inf"))
        return torch.softmax(5.0 * torch.tanh(blocked / 5.0), dim=-1)


class AttentionTemperatureFourFifths(_AttentionFromScores):
    """The scores divided by 0.8 sqrt(d_head): a temperature of 0.8 left in."""

    def weights(self, scores, allowed):
        return super().weights(scores / 0.8, allowed)


class AttentionDistanceBias(_AttentionFromScores):
    """A linear penalty on the distance i - j added to the scores (ALiBi's idea, one slope
    for every head): the lesson's positions are the rotation alone."""

    def weights(self, scores, allowed):
        length = scores.shape[-1]
        distance = torch.arange(length)[:, None] - torch.arange(length)[None, :]
        return super().weights(scores - 0.5 * distance, allowed)


class AttentionWeightsOverTheirMaximum(_AttentionFromScores):
    """Each row of weights divided by its largest weight after the softmax."""

    def weights(self, scores, allowed):
        weights = super().weights(scores, allowed)
        return weights / weights.amax(dim=-1, keepdim=True)


class AttentionTablesAtLeast32(_Attention):
    """The rotation tables for max(d_head, 32) features: heads narrower than 32 get
    tables of the wrong width (b10h: PyTorch's size error alone)."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, max(self.d_head, 32), self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionTablesFromHeadsAxis(_Attention):
    """The head width read from the wrong axis of the heads, q.shape[1] (the number of
    heads) for q.shape[-1]: rotation tables for a num_heads-wide head."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, q.shape[1], self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionMaskForMaxLength(_Attention):
    """A causal mask made once for 64 positions and never cut to the input's length."""

    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__(d_model, num_heads, base)
        self.register_buffer("mask", look_ahead_mask(64), persistent=False)

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, self.mask)
        return self.w_o(merge_heads(heads))


class AttentionLengthFromFeatures(_Attention):
    length_axis = 2


class AttentionRotatesValues(_Attention):
    rotate_values = True


class AttentionRotatesBeforeSplit(_Attention):
    before_split = True


class AttentionOneIndexed(_Attention):
    first = 1


class AttentionFusedProjection(nn.Module):
    """Round 34: nanoGPT's c_attn, one nn.Linear(d_model, 3 * d_model) for the queries,
    keys and values; told "the submodules must be called exactly so" before."""

    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__()
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.c_attn = nn.Linear(d_model, 3 * d_model, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (
            split_heads(t, self.num_heads) for t in self.c_attn(x).split(x.shape[-1], dim=-1)
        )
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionNotCausal(_Attention):
    causal = False


class AttentionKeysNotRotated(_Attention):
    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        heads, _ = scaled_dot_product_attention(
            ref.apply_rotary(q, cos, sin), k, v, look_ahead_mask(length)
        )
        return self.w_o(merge_heads(heads))


class AttentionNoOutputProjection(_Attention):
    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return merge_heads(heads)


class AttentionDividedByDHead(_Attention):
    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = (q @ k.transpose(-2, -1) / self.d_head).masked_fill(
            ~look_ahead_mask(length), float("-inf")
        )
        return self.w_o(merge_heads(torch.softmax(scores, dim=-1) @ v))


class AttentionPairNotUnpacked(_Attention):
    """Round 34: heads = scaled_dot_product_attention(...), the (output, weights) pair kept
    whole: PyTorch's AttributeError from inside merge_heads alone before ("merge": the
    course's merge_heads; "by_hand": the learner's own transpose and reshape)."""

    merge = "merge"

    def forward(self, x):
        batch, length, d_model = x.shape
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        if self.merge == "merge":
            return self.w_o(merge_heads(heads))
        return self.w_o(heads.transpose(1, 2).reshape(batch, length, d_model))


class AttentionPairNotUnpackedByHand(AttentionPairNotUnpacked):
    merge = "by_hand"


class AttentionMaskDiagonalMoved(_Attention):
    """Round 34: the causal mask built with torch.tril(..., diagonal=k), k = 1: each query
    sees the next key too ("differs from the reference" before)."""

    diagonal = 1

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        mask = torch.tril(torch.ones(length, length, dtype=torch.bool), diagonal=self.diagonal)
        heads, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(merge_heads(heads))


class AttentionMaskTwoBelow(AttentionMaskDiagonalMoved):
    diagonal = -2


class AttentionScoresScaled(_Attention):
    """Round 34: the scores times another factor than 1 / sqrt(d_head), ``factor(self)``
    (sqrt(d_head): multiplied where they are divided, "differs from the reference" before)."""

    factor = staticmethod(lambda self: math.sqrt(self.d_head))

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = (q @ k.transpose(-2, -1) * self.factor(self)).masked_fill(
            ~look_ahead_mask(length), float("-inf")
        )
        return self.w_o(merge_heads(torch.softmax(scores, dim=-1) @ v))


class AttentionScoresOverDModel(AttentionScoresScaled):
    """The scores divided by d_model itself (x.shape[-1] read for the scale)."""

    factor = staticmethod(lambda self: 1 / (self.d_head * self.num_heads))


class AttentionScoresOverFourthRoot(AttentionScoresScaled):
    """The square root taken twice: the scores divided by d_head ** 0.25."""

    factor = staticmethod(lambda self: self.d_head**-0.25)


class AttentionValuesFromWk(_Attention):
    """A copy-paste slip: the values projected with w_k ("differs from the reference")."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_k))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = (q @ k.transpose(-2, -1) / self.d_head**0.5).masked_fill(
            ~look_ahead_mask(length), float("-inf")
        )
        return self.w_o(merge_heads(torch.softmax(scores, dim=-1) @ v))


class AttentionMergesWeights(_Attention):
    """(output, weights) unpacked the wrong way round: the weights merged (a raw error)."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = (q @ k.transpose(-2, -1) / self.d_head**0.5).masked_fill(
            ~look_ahead_mask(length), float("-inf")
        )
        weights = torch.softmax(scores, dim=-1)
        _, heads = weights @ v, weights
        return self.w_o(merge_heads(heads))


class AttentionUnscaled(_Attention):
    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = (q @ k.transpose(-2, -1)).masked_fill(~look_ahead_mask(length), float("-inf"))
        return self.w_o(merge_heads(torch.softmax(scores, dim=-1) @ v))


class AttentionSplitByView(ref.CausalSelfAttention):
    """Heads split with one view, no transpose (see
    https://tracker-7ex.pages.dev/00_ai_foundation/04_autoregressive_generation/06-multi-head-split-merge/);
    ``merge_by_reshape``: merged back by a plain reshape too."""

    merge_by_reshape = False

    def forward(self, x):
        batch, length, d_model = x.shape
        q, k, v = (
            w(x).view(batch, self.num_heads, length, self.d_head)
            for w in (self.w_q, self.w_k, self.w_v)
        )
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = ref.scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        merged = (
            heads.reshape(batch, length, d_model) if self.merge_by_reshape else merge_heads(heads)
        )
        return self.w_o(merged)


class AttentionSplitAndMergeByView(AttentionSplitByView):
    merge_by_reshape = True


class AttentionLengthFromBatch(ref.CausalSelfAttention):
    """The length read from the batch axis (length, batch = x.shape[:2])."""

    def forward(self, x):
        length = x.shape[0]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = ref.scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionRopeOnInputForQueriesKeys(ref.CausalSelfAttention):
    """Round 23: the input x rotated over its d_model features and fed to w_q and w_k
    (the values from x as it is), where each head's projected q and k belong."""

    def forward(self, x):
        length = x.shape[1]
        cos, sin = ref.rotary_embedding(length, x.shape[-1], self.base)  # (len, d_model / 2)
        turned = ref.apply_rotary(x, cos, sin)  # (batch, len, d_model)
        q = split_heads(self.w_q(turned), self.num_heads)
        k = split_heads(self.w_k(turned), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        heads, _ = ref.scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionHeadTablesBeforeSplit(ref.CausalSelfAttention):
    """Round 23: one head's tables applied to the d_model-wide projections, before
    split_heads (a raw size error: d_model // 2 pairs met d_head // 2 columns)."""

    def forward(self, x):
        length = x.shape[1]
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)  # (len, d_head / 2)
        q = ref.apply_rotary(self.w_q(x), cos, sin)  # (batch, len, d_model): too early
        k = ref.apply_rotary(self.w_k(x), cos, sin)
        q, k = split_heads(q, self.num_heads), split_heads(k, self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        heads, _ = ref.scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionRotatesUnflattenedHeads(ref.CausalSelfAttention):
    """Round 23: queries and keys unflattened to (batch, len, num_heads, d_head) and
    rotated there, the heads moved before the positions only afterwards."""

    def forward(self, x):
        length = x.shape[1]
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)  # (len, d_head / 2)
        q = self.w_q(x).unflatten(-1, (self.num_heads, self.d_head))  # (b, len, heads, d)
        k = self.w_k(x).unflatten(-1, (self.num_heads, self.d_head))
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        q, k = q.transpose(1, 2), k.transpose(1, 2)  # (batch, heads, len, d_head)
        v = split_heads(self.w_v(x), self.num_heads)
        heads, _ = ref.scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionTriuMask(ref.CausalSelfAttention):
    """The mask written with nn.MultiheadAttention's convention (triu, True = blocked) and
    passed to the course's attention (True = may attend): the future only (blind8b)."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        future = torch.triu(torch.ones(length, length, dtype=torch.bool), diagonal=1)
        heads, _ = ref.scaled_dot_product_attention(q, k, v, future)
        return self.w_o(merge_heads(heads))


class BlockHeadsFromWidth(ref.DecoderBlock):
    """The attention built with d_model // num_heads as its number of heads."""

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.attn = ref.CausalSelfAttention(d_model, d_model // num_heads)


class AttentionIgnoresBase(ref.CausalSelfAttention):
    """rotary_embedding(len, d_head) without self.base: right only with the default base."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = ref.scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))


class AttentionAdjacent(_Attention):
    rotate = staticmethod(_rotate_adjacent)


class AttentionSdpa(ref.CausalSelfAttention):
    """nanoGPT's fast path: F.scaled_dot_product_attention(..., is_causal=True)."""

    def forward(self, x):
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(x.shape[1], self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        return self.w_o(merge_heads(F.scaled_dot_product_attention(q, k, v, is_causal=True)))


class AttentionEinsumTril(ref.CausalSelfAttention):
    """nanoGPT's manual attention: a tril buffer (not in the state dict), einsum scores."""

    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__(d_model, num_heads, base)
        self.register_buffer("tril", torch.ones(256, 256).tril().bool(), persistent=False)

    def forward(self, x):
        batch, length, d_model = x.shape
        q, k, v = (
            w(x).view(batch, length, self.num_heads, self.d_head).transpose(1, 2)
            for w in (self.w_q, self.w_k, self.w_v)
        )
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = _rotate_half_neox(q, cos, sin), _rotate_half_neox(k, cos, sin)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(self.d_head)
        scores = scores.masked_fill(~self.tril[:length, :length], float("-inf"))
        out = torch.einsum("bhqk,bhkd->bhqd", F.softmax(scores, dim=-1), v)
        return self.w_o(out.transpose(1, 2).contiguous().view(batch, length, d_model))


# ------------------------------------------------------------------------- DecoderBlock
class BlockPostNorm(ref.DecoderBlock):
    def forward(self, x):
        h = self.norm1(x + self.attn(x))
        return self.norm2(h + self.feed_forward(h))


class BlockParallel(ref.DecoderBlock):
    def forward(self, x):
        return x + self.attn(self.norm1(x)) + self.feed_forward(self.norm2(x))


class BlockDefaultEps(ref.DecoderBlock):
    """Builds its norms without the eps it was given."""

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.norm1, self.norm2 = ref.RMSNorm(d_model), ref.RMSNorm(d_model)


class BlockEpsAsBase(ref.DecoderBlock):
    """eps passed to the attention's third argument, its RoPE base."""

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.attn = ref.CausalSelfAttention(d_model, num_heads, eps)


class BlockFourTimesWidth(ref.DecoderBlock):
    """d_ff ignored: the feed-forward built with the usual 4 * d_model."""

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.feed_forward = ref.SwiGLU(d_model, 4 * d_model)


class BlockNoResidual(ref.DecoderBlock):
    def forward(self, x):
        return self.feed_forward(self.norm2(self.attn(self.norm1(x))))


class BlockNoAttnResidual(ref.DecoderBlock):
    """The attention's residual alone is missing."""

    def forward(self, x):
        h = self.attn(self.norm1(x))
        return h + self.feed_forward(self.norm2(h))


class BlockAttentionFirstItem(ref.DecoderBlock):
    """Round 34: attn(...)[0], nn.MultiheadAttention's habit: the first sequence's output
    added to every sequence ("check the step right after `self.attn`" before)."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))[0]
        return h + self.feed_forward(self.norm2(h))


class BlockFeedForwardFirstItem(ref.DecoderBlock):
    """The same [0] on the feed-forward's output, the layer's last step."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return h + self.feed_forward(self.norm2(h))[0]


class BlockOneNorm(ref.DecoderBlock):
    """norm1 before both sub-layers (norm2 never used)."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return h + self.feed_forward(self.norm1(h))


class BlockHalfFeedForward(ref.DecoderBlock):
    """The feed-forward output halved before the residual sum: in no table."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return h + 0.5 * self.feed_forward(self.norm2(h))


class BlockFeedForwardResidualFromInput(ref.DecoderBlock):
    """The feed-forward's residual adds the block's input x, not h (blind8b)."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return x + self.feed_forward(self.norm2(h))


class BlockFeedForwardResidualTwice(ref.DecoderBlock):
    """The feed-forward's residual added twice, h + (h + feed_forward(norm2(h))) (b10h)."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return h + (h + self.feed_forward(self.norm2(h)))


class BlockSandwichedOutputs(ref.DecoderBlock):
    """Each norm wrapped around its sub-layer's result, looped over the pairs (b13b:
    "`self.attn` reads x itself" alone)."""

    def forward(self, x):
        for norm, sublayer in ((self.norm1, self.attn), (self.norm2, self.feed_forward)):
            x = x + norm(sublayer(x))
        return x


class BlockOutputThroughFirstNorm(ref.DecoderBlock):
    """Round 21: the block's result normalised once more, with norm1 (a post-norm habit;
    told the final norm is an Encoder's LayerNorm before)."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        out = h + self.feed_forward(self.norm2(h))
        return self.norm1(out)


class BlockSecondResidualFromData(ref.DecoderBlock):
    """Round 21: the stream added around the feed-forward taken as h.data: the values are
    right, the gradient through that residual path is lost (uncaught before)."""

    def forward(self, x):
        h = x + self.attn(self.norm1(x))
        return h.data + self.feed_forward(self.norm2(h))


class BlockAttentionUnnormalised(ref.DecoderBlock):
    def forward(self, x):
        attended = x + self.attn(x)
        return attended + self.feed_forward(self.norm2(attended))


class BlockFeedForwardOnStream(ref.DecoderBlock):
    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.feed_forward(x)
        return x


class BlockTorchLayerNorms(ref.DecoderBlock):
    """Lesson 07's norms: nn.LayerNorm for both (a bias each, the mean subtracted)."""

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.norm1 = nn.LayerNorm(d_model, eps=eps)
        self.norm2 = nn.LayerNorm(d_model, eps=eps)


class BlockFeedForwardSizesSwapped(ref.DecoderBlock):
    """The feed-forward's two sizes passed the other way round, by keyword."""

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.feed_forward = ref.SwiGLU(d_model=d_ff, d_ff=d_model)


class AttentionResidualDropout(ref.CausalSelfAttention):
    """nanoGPT's resid_dropout on the attention's output: random in train mode only."""

    def __init__(self, d_model, num_heads, base=10000.0):
        super().__init__(d_model, num_heads, base)
        self.resid_dropout = nn.Dropout(0.2)

    def forward(self, x):
        return self.resid_dropout(super().forward(x))


class BlockSublayerDropout(ref.DecoderBlock):
    """F.dropout on each sub-layer's output, following self.training."""

    def forward(self, x):
        h = x + F.dropout(self.attn(self.norm1(x)), 0.1, self.training)
        return h + F.dropout(self.feed_forward(self.norm2(h)), 0.1, self.training)


class GptEmbeddingDropout(ref.GPT):
    """nanoGPT's drop(tok_emb): a dropout on the embeddings."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.drop = nn.Dropout(0.1)

    def forward(self, ids):
        x = self.drop(self.embedding(ids))
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T


class _AttentionByHand(ref.CausalSelfAttention):
    """The attention written out, with knobs for the softmax's axis and k's transpose."""

    softmax_dim = -1
    key_axes = (-2, -1)

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = q @ k.transpose(*self.key_axes) / self.d_head**0.5
        scores = scores.masked_fill(~look_ahead_mask(length), -torch.inf)
        weights = torch.softmax(scores, self.softmax_dim).nan_to_num(0.0)
        return self.w_o(merge_heads(weights @ v))


class AttentionSoftmaxOverQueries(_AttentionByHand):
    softmax_dim = -2


class AttentionKeysHeadsSwapped(_AttentionByHand):
    key_axes = (1, 2)


class NormEpsOnReciprocal(ref.RMSNorm):
    """eps added after the reciprocal root: x * (rsqrt(mean(x**2)) + eps)."""

    def forward(self, x):
        return x * (x.pow(2).mean(-1, keepdim=True).rsqrt() + self.eps) * self.weight


class GptOneBlockTooMany(ref.GPT):
    """Round 23: num_layers + 1 blocks, a range written for an inclusive end."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        self.layers = nn.ModuleList(
            ref.DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(0, num_layers + 1)
        )


class GptBlocksCountingDown(ref.GPT):
    """Round 25: the blocks indexed from the last down to the first (a reversed order)."""

    def forward(self, ids):
        x = self.embedding(ids)  # (batch, len, d_model)
        for i in range(len(self.layers) - 1, -1, -1):
            x = self.layers[i](x)
        return self.norm(x) @ self.embedding.weight.T  # (batch, len, vocab)


class GptEmbeddingsAddedAfterEveryBlock(ref.GPT):
    """Round 25: the embeddings added back after every block, layer(x) + embedded."""

    def forward(self, ids):
        embedded = self.embedding(ids)  # (batch, len, d_model)
        x = embedded
        for layer in self.layers:
            x = layer(x) + embedded
        return self.norm(x) @ self.embedding.weight.T  # (batch, len, vocab)


class GptBlockOutputPlusItsInput(ref.GPT):
    """Round 25: each block's output plus its input, written with a temporary."""

    def forward(self, ids):
        x = self.embedding(ids)  # (batch, len, d_model)
        for layer in self.layers:
            updated = layer(x)
            x = updated + x
        return self.norm(x) @ self.embedding.weight.T  # (batch, len, vocab)


class GptInlineStaleStream(ref.GPT):
    """The block written out in the loop, the feed-forward's norm given the block's input
    (a stale name): x + attn(norm1(x)) + feed_forward(norm2(x)), the parallel block."""

    def forward(self, ids):
        x = self.embedding(ids)  # (batch, len, d_model)
        for layer in self.layers:
            h = x + layer.attn(layer.norm1(x))
            x = h + layer.feed_forward(layer.norm2(x))
        return self.norm(x) @ self.embedding.weight.T


class GptInlineAttentionDropped(ref.GPT):
    """The block written out in the loop, the attention's output computed and never added:
    x + feed_forward(norm2(x))."""

    def forward(self, ids):
        x = self.embedding(ids)  # (batch, len, d_model)
        for layer in self.layers:
            attended = layer.attn(layer.norm1(x))  # noqa: F841 (the slip)
            x = x + layer.feed_forward(layer.norm2(x))
        return self.norm(x) @ self.embedding.weight.T


class AttentionUnitProjectionsBeforeRotation(ref.CausalSelfAttention):
    """Round 25: queries and keys scaled to unit length by hand, before the rotation."""

    def forward(self, x):
        length = x.shape[1]
        q = split_heads(self.w_q(x), self.num_heads)  # (batch, num_heads, len, d_head)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        q = q / q.norm(dim=-1, keepdim=True)
        k = k / k.norm(dim=-1, keepdim=True)
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)  # (len, d_head/2)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))  # (batch, len, d_model)


class AttentionMaskAddedByHand(ref.CausalSelfAttention):
    """Round 25: the look-ahead mask added to the scores as 0 and 1, by hand."""

    def forward(self, x):
        length = x.shape[1]
        q = split_heads(self.w_q(x), self.num_heads)  # (batch, num_heads, len, d_head)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)  # (len, d_head/2)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (batch, heads, len, len)
        scores = scores + look_ahead_mask(length).to(scores.dtype)
        return self.w_o(merge_heads(scores.softmax(dim=-1) @ v))  # (batch, len, d_model)


class BlockFeedForwardNormsAttentionOutput(ref.DecoderBlock):
    """Round 25: the feed-forward reads norm2 of the attention's output, although the
    output still sums x, that output and the feed-forward's."""

    def forward(self, x):
        attended = self.attn(self.norm1(x))  # (batch, len, d_model)
        fed = self.feed_forward(self.norm2(attended))
        return x + attended + fed


class GptOutputWithBias(ref.GPT):
    """A tied output nn.Linear that keeps its default bias."""

    def __init__(self, vocab_size, d_model, *args, **kwargs):
        super().__init__(vocab_size, d_model, *args, **kwargs)
        self.output = nn.Linear(d_model, vocab_size)
        self.output.weight = self.embedding.weight

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer(x)
        return self.output(self.norm(x))


class AttentionOutputOnHeads(ref.CausalSelfAttention):
    """w_o applied to the heads before merge_heads."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return merge_heads(self.w_o(heads))


class GptEveryParameterRedrawn(ref.GPT):
    """Every parameter redrawn from N(0, 0.02) after building, the norm gains included
    (blind10h-gpt-init-every-parameter: uncaught before)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for parameter in self.parameters():
            nn.init.normal_(parameter, std=0.02)


class GptLinearsRedrawn(ref.GPT):
    """Correct: nanoGPT's init, N(0, 0.02) for every nn.Linear, the norms left at ones."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)


class GptCachedEmbeddingsLength(ref.GPT):
    """Keeps the first call's length and cuts every later input to it (b10h)."""

    def forward(self, ids):
        if not hasattr(self, "length"):
            self.length = ids.shape[1]
        logits = super().forward(ids[:, : self.length])
        return torch.cat([logits, logits[:, -1:].expand(-1, ids.shape[1] - self.length, -1)], 1)


class GptOneBlockMore(ref.GPT):
    """range(num_layers + 1): one block too many."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers + 1, eps)


class AttentionNoDiagonal(ref.CausalSelfAttention):
    """The causal mask without its diagonal, tril(-1): no query sees its own key."""

    def forward(self, x):
        length = x.shape[1]
        q, k, v = (split_heads(w(x), self.num_heads) for w in (self.w_q, self.w_k, self.w_v))
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        mask = torch.ones(length, length, dtype=torch.bool).tril(-1)
        heads, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.w_o(merge_heads(heads))


class GptWithLossSlot(ref.GPT):
    """forward returns (logits, None), a loss slot beside the logits."""

    def forward(self, ids):
        return super().forward(ids), None


class GptLastPosition(ref.GPT):
    """nanoGPT's generation shortcut (nanoGPT#42) in forward: the last position's logits."""

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x[:, [-1]]) @ self.embedding.weight.T


class GptShiftsInside(ref.GPT):
    """The next-token shift done inside the model: the blocks read ids[:, :-1], so the
    logits stop one position short (b13b: told the shape alone)."""

    def forward(self, ids):
        x = self.embedding(ids[:, :-1])
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T


class GptSkipsFirstLogits(ref.GPT):
    def forward(self, ids):
        return super().forward(ids).narrow(1, 1, ids.shape[1] - 1)


class GptPlainList(ref.GPT):
    """The blocks in a plain Python list: their parameters are never registered."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        blocks = list(self.layers)
        del self.layers  # unregistered: held as a plain attribute from here on
        self.layers = blocks


class GptRepeatedBlock(ref.GPT):
    """One block repeated num_layers times."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        self.layers = nn.ModuleList([self.layers[0]] * num_layers)


class GptUnchained(ref.GPT):
    """Every block reads the embeddings; the last block's output goes on: in no table."""

    def forward(self, ids):
        x = self.embedding(ids)
        out = [layer(x) for layer in self.layers][-1]
        return self.norm(out) @ self.embedding.weight.T


class GptNormEveryBlock(ref.GPT):
    """The final norm applied after every block, inside the loop."""

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = self.norm(layer(x))
        return x @ self.embedding.weight.T


class _Block(ref.DecoderBlock):
    """The reference block with another attention class."""

    attention = _Attention

    def __init__(self, d_model, num_heads, d_ff, eps=1e-5):
        super().__init__(d_model, num_heads, d_ff, eps)
        self.attn = self.attention(d_model, num_heads)


class BlockNotCausal(_Block):
    attention = AttentionNotCausal


class BlockAdjacent(_Block):
    """RoPE on adjacent pairs, consistently; the residual written as in-place-free adds."""

    attention = AttentionAdjacent

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.feed_forward(self.norm2(x))
        return x


# ---------------------------------------------------------------------------------- GPT
class _Gpt(ref.GPT):
    """The reference with knobs for the classic mistakes and other correct output layers.
    ``attention``: the attention class of every block (None: the reference's); ``head``:
    "matmul" (x @ embedding.weight.T), "f_linear" (F.linear with the embedding's weight),
    "lm_head" (nanoGPT: an nn.Linear sharing the embedding's weight) or "untied" (an
    nn.Linear of its own)."""

    attention = None
    scale_embedding = False
    final_norm = True
    head = "matmul"
    probabilities = False

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        if self.attention is not None:
            for layer in self.layers:
                layer.attn = self.attention(d_model, num_heads)
        if self.head == "lm_head":
            self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
            self.lm_head.weight = self.embedding.weight
        if self.head == "untied":
            self.output = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, ids):
        x = self.embedding(ids)
        if self.scale_embedding:
            x = x * math.sqrt(self.embedding.weight.shape[1])
        for layer in self.layers:
            x = layer(x)
        if self.final_norm:
            x = self.norm(x)
        if self.head == "lm_head":
            logits = self.lm_head(x)
        elif self.head == "untied":
            logits = self.output(x)
        elif self.head == "f_linear":
            logits = F.linear(x, self.embedding.weight)
        else:
            logits = x @ self.embedding.weight.T
        return torch.softmax(logits, dim=-1) if self.probabilities else logits


class BlockSdpa(_Block):
    attention = AttentionSdpa


class GptSdpa(_Gpt):
    attention = AttentionSdpa


class GptNoFinalNorm(_Gpt):
    final_norm = False


class GptScaled(_Gpt):
    scale_embedding = True


class GptProbabilities(_Gpt):
    probabilities = True


class GptLogProbabilities(_Gpt):
    """Round 34: log-probabilities returned (a softmax cannot see the shift by each row's
    logsumexp); told "not the final norm of layers[1]'s output" before."""

    def forward(self, ids):
        return F.log_softmax(super().forward(ids), dim=-1)


class GptLogitsMaxSubtracted(_Gpt):
    """Round 34: each row's largest logit subtracted, a stable softmax's first step."""

    def forward(self, ids):
        logits = super().forward(ids)
        return logits - logits.amax(dim=-1, keepdim=True)


class GptSinusoidsAdded(_Gpt):
    """Round 34: lesson 03's encoding added to the embeddings (RoPE gives the positions
    here); told "layers[0] does not receive the embeddings of the ids" alone before."""

    scaled = False
    layout = "interleaved"

    def forward(self, ids):
        x = self.embedding(ids)  # (batch, len, d_model)
        d_model = x.shape[-1]
        if self.scaled:
            x = x * math.sqrt(d_model)
        angles = torch.arange(ids.shape[1])[:, None] * 10000.0 ** (
            -torch.arange(0, d_model, 2) / d_model
        )  # (len, d_model / 2)
        if self.layout == "interleaved":
            table = torch.stack([angles.sin(), angles.cos()], -1).flatten(-2)
        else:
            table = torch.cat([angles.sin(), angles.cos()], -1)
        x = x + table
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T


class GptScaledSinusoidHalvesAdded(GptSinusoidsAdded):
    """The 2017 model's input: embeddings times sqrt(d_model), plus sines then cosines."""

    scaled = True
    layout = "halves"


class GptPositionTableAdded(ref.GPT):
    """A fixed table of one vector per position added (a position embedding kept as a
    buffer): told from the batch's sequences, which differ at every position."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        table = 0.1 * torch.randn(64, d_model, generator=torch.Generator().manual_seed(3))
        self.register_buffer("positions", table, persistent=False)

    def forward(self, ids):
        x = self.embedding(ids) + self.positions[: ids.shape[1]]
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T


class GptUntied(_Gpt):
    head = "untied"


class GptNotCausal(_Gpt):
    attention = AttentionNotCausal


class GptBlocksDefaultEps(ref.GPT):
    """eps given to the final norm but not to the blocks (blind8b: passed every case, none
    gave an eps)."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        self.layers = nn.ModuleList(
            [ref.DecoderBlock(d_model, num_heads, d_ff) for _ in range(num_layers)]
        )


class GptFinalNormDefaultEps(ref.GPT):
    """eps given to the blocks but not to the final norm."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        self.norm = ref.RMSNorm(d_model)


class GptDefaultInit(_Gpt):
    """nn.Embedding's own initialisation (standard deviation 1) kept."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        nn.init.normal_(self.embedding.weight, std=1.0)


class GptInitStdAsMean(_Gpt):
    """nn.init.normal_(w, 0.02): 0.02 is the mean, the standard deviation stays 1."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        nn.init.normal_(self.embedding.weight, 0.02)


class GptTiedTheOtherWay(_Gpt):
    """The embedding initialised, then replaced by an untouched nn.Linear's weight."""

    def __init__(self, vocab_size, d_model, *args, **kwargs):
        super().__init__(vocab_size, d_model, *args, **kwargs)
        self.output = nn.Linear(d_model, vocab_size, bias=False)
        self.embedding.weight = self.output.weight


class GptTruncatedNormalInit(_Gpt):
    """A truncated normal of standard deviation 0.02 (cut at +-2 std: std about 0.0176)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        nn.init.trunc_normal_(self.embedding.weight, std=0.02, a=-0.04, b=0.04)


class GptTruncatedAtBoundsNotStds(_Gpt):
    """Round 37: trunc_normal_ given bounds of 1.5 * 0.02 positionally, meant as 1.5 std
    and taken as absolute: std about 0.015, below the contract's."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        with torch.no_grad():
            nn.init.trunc_normal_(self.embedding.weight, 0.0, 0.02, -0.025, 0.025)


class GptUniformInit(_Gpt):
    """Round 37: a uniform draw on [-0.02, 0.02] (std about 0.0115), not a normal."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        nn.init.uniform_(self.embedding.weight, -0.02, 0.02)


class GptLogitsSoftCappedAtFifteen(ref.GPT):
    """Round 37: the logits soft-capped at 15, written as a chain of tensor methods."""

    def forward(self, ids):
        return super().forward(ids).div(15.0).tanh().mul(15.0)


class GptTiedLinear(_Gpt):
    """nanoGPT's weight tying: an lm_head nn.Linear sharing the embedding's weight."""

    head = "lm_head"


class GptNormedLogits(ref.GPT):
    """The final norm built over the vocabulary and applied to the tied output's logits
    (F.linear), the stream reaching the output unnormalised (blind15b)."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5):
        super().__init__(vocab_size, d_model, num_heads, d_ff, num_layers, eps)
        self.norm = ref.RMSNorm(vocab_size, eps)

    def forward(self, ids):
        x = self.embedding(ids)  # (batch, len, d_model)
        for layer in self.layers:
            x = layer(x)
        return self.norm(F.linear(x, self.embedding.weight))  # (batch, len, vocab)


class GptAdjacent(_Gpt):
    """Adjacent-pair RoPE in every block, and F.linear for the tied output."""

    attention = AttentionAdjacent
    head = "f_linear"


# ------------------------------------------------------------------------------- sample
def _filtered(logits, top_k, top_p, *, top_p_rule="right", map_back="scatter", first_row=False):
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        probs, order = torch.softmax(logits, -1).sort(-1, descending=True)
        cumulative = probs.cumsum(-1)
        if top_p_rule == "too_few":
            remove = cumulative >= top_p  # drops the token that crosses top_p
        elif top_p_rule == "too_many":
            remove = (cumulative - probs) >= top_p
            remove = torch.cat([torch.zeros_like(remove[..., :1]), remove[..., :-1]], -1)
        elif top_p_rule == "ties_kept":  # every token tied with the crossing one is kept
            # at least one token kept: top_p=0.0 counts none
            count = ((cumulative - probs) < top_p).sum(-1, keepdim=True).clamp(min=1)
            remove = probs < probs.gather(-1, count - 1)
        else:
            remove = (cumulative - probs) >= top_p
        if first_row:
            remove[0] = False  # meant: the first column of every row
        else:
            remove[..., 0] = False
        if map_back == "gather":
            remove = remove.gather(-1, order)
        else:
            remove = remove.scatter(-1, order, remove)
        logits = logits.masked_fill(remove, float("-inf"))
    return logits


def _sampler(
    *,
    temperature_at="logits",
    top_p_rule="right",
    renormalise=True,
    greedy=True,
    map_back="scatter",
    first_row=False,
    top_p_first=False,
):
    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if greedy and temperature == 0:
            return logits.argmax(-1)
        if temperature_at == "logits":
            logits = logits / temperature
        options = dict(top_p_rule=top_p_rule, map_back=map_back, first_row=first_row)
        if top_p_first:
            kept = _filtered(_filtered(logits, None, top_p, **options), top_k, None)
        else:
            kept = _filtered(logits, top_k, top_p, **options)
        if temperature_at == "after_top_p":
            kept = kept / temperature
        if temperature_at == "probs":
            probs = torch.softmax(kept, -1) / temperature
        elif renormalise:
            probs = torch.softmax(kept, -1)
        else:  # the kept tokens' original probabilities, the rest on the most probable
            probs = torch.softmax(logits, -1).masked_fill(torch.isinf(kept), 0.0)
            top = probs.argmax(-1, keepdim=True)
            probs = probs.scatter_add(-1, top, 1 - probs.sum(-1, keepdim=True))
        return torch.multinomial(probs, 1, generator=generator)[:, 0]

    return sample


def _sample_top_k_clamped_to_rows(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Round 21: top_k clamped with the number of rows, len(logits) (told "not clamped")."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_k is not None:
        kth = logits.topk(min(top_k, len(logits)), dim=-1).values[:, -1:]
        logits = torch.where(logits < kth, float("-inf"), logits)
    logits = _filtered(logits, None, top_p)  # top-p as the tests' right one
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator).view(-1)


def _sample_greedy_last_row_only(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Round 23: the greedy branch returns the last row's argmax alone (a scalar), another
    one-number reading of the batch than the flattened argmax."""
    if temperature == 0:
        return logits.argmax(dim=-1)[-1]
    return _sampler(greedy=False)(logits, temperature, top_k, top_p, generator)


def _sample_top_k_over_batch(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Round 34: the k-th largest taken across the batch axis, topk(..., dim=0) (clamped to
    the batch): on copies of one row nothing is removed, as when the result is discarded,
    and was told only that ("Was its result discarded?")."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[0]), dim=0).values[-1:]  # (1, vocab)
        logits = logits.masked_fill(logits < kth, float("-inf"))
    return _sampler(greedy=False)(logits, 1.0, None, top_p, generator)


def _sample_greedy_index_pair(reduction: str):
    """Round 34: the greedy branch returns what a reduction with an index returns, the
    (values, indices) pair (logits.max(dim=-1), or logits.topk(1)): "should be a Tensor,
    but it is a max" alone before (checking.return_types)."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if temperature == 0:
            return logits.max(dim=-1) if reduction == "max" else logits.topk(1, dim=-1)
        return _sampler(greedy=False)(logits, temperature, top_k, top_p, generator)

    return sample


def _sample_top_p_absolute_threshold(
    logits, temperature=1.0, top_k=None, top_p=None, generator=None
):
    """Round 23: top-p as an absolute threshold on each token's probability (removes the
    tokens below 1 - top_p, the most probable kept), not a cumulative set."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = _filtered(logits / temperature, top_k, None)
    if top_p is not None:
        probs = torch.softmax(logits, -1)  # (batch, vocab)
        remove = probs < 1 - top_p
        remove = remove & (probs < probs.amax(-1, keepdim=True))
        logits = logits.masked_fill(remove, float("-inf"))
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]


def _sample_top_p_last_index_by_argmax(
    logits, temperature=1.0, top_k=None, top_p=None, generator=None
):
    """The nucleus kept by position: the last kept sorted position found as the first
    where the running total passes top_p, (cumsum > top_p).argmax(), 0 when no total
    passes it (at top_p = 1.0), kept by position rather than by probability."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = _filtered(logits / temperature, top_k, None)
    if top_p is not None:
        sorted_probs, order = torch.softmax(logits, -1).sort(-1, descending=True)
        totals = sorted_probs.cumsum(-1)  # (batch, vocab)
        last = (totals > top_p).long().argmax(-1, keepdim=True)  # (batch, 1)
        remove_sorted = torch.arange(logits.shape[-1]) > last  # (batch, vocab)
        remove = remove_sorted.scatter(-1, order, remove_sorted)
        logits = logits.masked_fill(remove, float("-inf"))
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]


def _sample_top_k_log_probs_against_logit(
    logits, temperature=1.0, top_k=None, top_p=None, generator=None
):
    """The k-th largest logit as the threshold, compared with the log-probabilities."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(torch.log_softmax(logits, -1) < kth, float("-inf"))
    logits = _filtered(logits, None, top_p)
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]


def _sample_top_p_removed_by_any_row(
    logits, temperature=1.0, top_k=None, top_p=None, generator=None
):
    """top-p's removal reduced over the batch, remove.any(dim=0): a token removed in one
    row is removed in every row."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = _filtered(logits / temperature, top_k, None)
    if top_p is not None:
        sorted_probs, order = torch.softmax(logits, -1).sort(-1, descending=True)
        remove_sorted = sorted_probs.cumsum(-1) - sorted_probs >= top_p
        remove = remove_sorted.scatter(-1, order, remove_sorted)  # (batch, vocab)
        logits = logits.masked_fill(remove.any(dim=0, keepdim=True), float("-inf"))
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]


def _sample_top_p_min_p_on_logits(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Round 23: min-p written on the logits (a logit more than log(1 / top_p) below the
    largest is removed): the tokens at least top_p times as probable as the top one."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = _filtered(logits / temperature, top_k, None)
    if top_p is not None:
        floor = logits.amax(-1, keepdim=True) + math.log(top_p)  # (batch, 1)
        logits = logits.masked_fill(logits < floor, float("-inf"))
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]


def _sample_greedy_for_int_only(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Round 21: the greedy case tested by type, so 0.0 divides by zero (told only that
    temperature 0 is the argmax)."""
    if isinstance(temperature, int) and not temperature:
        return logits.argmax(-1)
    return _sampler(greedy=False)(logits, temperature, top_k, top_p, generator)


def _sample_top_p_on_unrenormalised(source):
    """b12b: top-p after top-k, but its running total taken on probabilities top-k did not
    renormalise: "probs" zeroes the removed tokens' probabilities (the benchmark's case),
    "logits" takes the softmax of the logits from before top-k's mask (no case holds it).
    Both keep what top-p before top-k keeps, on every input."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if temperature == 0:
            return logits.argmax(-1)
        logits = logits / temperature
        kept = logits
        if top_k is not None:
            kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
            kept = logits.masked_fill(logits < kth, float("-inf"))
        if top_p is not None:
            if source == "probs":
                probs = torch.softmax(logits, -1).masked_fill(torch.isinf(kept), 0.0)
            else:
                probs = torch.softmax(logits, -1)
            sorted_probs, order = probs.sort(dim=-1, descending=True)
            remove_sorted = sorted_probs.cumsum(-1) - sorted_probs >= top_p
            remove_sorted[..., 0] = False
            kept = kept.masked_fill(remove_sorted.scatter(-1, order, remove_sorted), float("-inf"))
        return torch.multinomial(torch.softmax(kept, -1), 1, generator=generator)[:, 0]

    return _named("sample", sample)


def _sample_keep_shifted_in_place(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """A keep mask shifted right over overlapping slices without a copy: on several rows
    the copy reads its own output (everything kept); on one row PyTorch refuses it."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        sorted_logits, order = logits.sort(dim=-1, descending=True)
        keep = torch.softmax(sorted_logits, -1).cumsum(-1) < top_p
        keep[:, 1:] = keep[:, :-1]
        keep[:, 0] = True
        logits = logits.masked_fill(~keep.scatter(-1, order, keep), float("-inf"))
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]


def _sample_generator_fixed(how):
    """b12b: draws that ignore the generator's seed: "own" draws from a generator of its
    own seeded 0 (the benchmark's case), "reseeded" re-seeds the one given (no case)."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if how == "own":
            generator = torch.Generator().manual_seed(0)
        else:
            generator.manual_seed(1234)
        return ref.sample(logits, temperature, top_k, top_p, generator)

    return _named("sample", sample)


def _rotary_unsqueezed_in_place(which):
    """b12b: an in-place shape method on an argument: the tables given an axis with
    cos.unsqueeze_(0) (the benchmark's case), or a one-head x given a batch axis with
    x.unsqueeze_(0) and the result read back without it (no case)."""

    def apply_rotary(x, cos, sin):
        if which == "tables":
            cos.unsqueeze_(0)
            sin.unsqueeze_(0)
            return ref.apply_rotary(x, cos[0], sin[0])
        if x.dim() == 2:
            x.unsqueeze_(0)
            return ref.apply_rotary(x, cos, sin)[0]
        return ref.apply_rotary(x, cos, sin)

    return apply_rotary


def _rope_pair_indices(indices):
    """b12b: another range of pair indices: torch.arange(0, d_head // 2, 2) (the
    benchmark's case: d_head // 4 columns) or torch.arange(0, 2 * d_head, 2) (no case:
    d_head columns, the formula continued): their shapes alone before."""

    def rotary_embedding(length, d_head, base=10000.0):
        stop = d_head // 2 if indices == "quarter" else 2 * d_head
        theta = base ** (-torch.arange(0, stop, 2, dtype=torch.float64) / d_head)
        angles = torch.arange(length, dtype=torch.float64)[:, None] * theta
        return angles.cos().float(), angles.sin().float()

    return rotary_embedding


def _rope_log_of_base(log):
    """b12b: theta_i in log space with the wrong logarithm: log10 (the benchmark's case) or
    log2 (no case): the frequencies of base e ** log10(base) or e ** log2(base)."""

    def rotary_embedding(length, d_head, base=10000.0):
        theta = torch.exp(-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head * log(base))
        angles = torch.arange(length, dtype=torch.float64)[:, None] * theta
        return angles.cos().float(), angles.sin().float()

    return rotary_embedding


def _sample_top_k_from_smallest(how):
    """b12b: the top-k threshold counted from the smallest logit: torch.kthvalue (the
    benchmark's case) or an ascending sort's k-th value (no case)."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if temperature == 0:
            return logits.argmax(-1)
        logits = logits / temperature
        if top_k is not None:
            k = min(top_k, logits.shape[-1])
            if how == "kthvalue":
                kth = torch.kthvalue(logits, k, dim=-1, keepdim=True).values
            else:
                kth = logits.sort(dim=-1).values[..., k - 1 : k]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        return ref.sample(logits, 1.0, None, top_p, generator)

    return _named("sample", sample)


def _batches_tensor_of_windows(tokens, block_size, batch_size, generator):
    """b12b: torch.tensor of a list of windows (tensors): PyTorch's TypeError alone before."""
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    inputs = torch.tensor([tokens[s : s + block_size] for s in starts])
    targets = torch.tensor([tokens[s + 1 : s + block_size + 1] for s in starts])
    return inputs, targets


class RmsOverVarianceFourthRoot(ref.RMSNorm):
    """x divided by a fourth root of its biased variance (round 28's class: a centred
    statistic under a wrong number of roots, told part by part)."""

    def forward(self, x):
        variance = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1)
        return x / (variance + self.eps).pow(0.25) * self.weight


class RmsTensorOfRows(ref.RMSNorm):
    """b12b: the same idiom on float rows, torch.tensor([...]) of normalised tokens: a
    ValueError whose usual advice (.item() on a batch) did not say why (no case holds it)."""

    def forward(self, x):
        rows = [
            row * torch.rsqrt(row.pow(2).mean() + self.eps) for row in x.reshape(-1, x.shape[-1])
        ]
        return torch.tensor([rows]).reshape(x.shape) * self.weight


def _batches_own_generator(tokens, block_size, batch_size, generator):
    """b12b: the starts drawn from a generator of its own with a fixed seed (no case)."""
    own = torch.Generator().manual_seed(0)
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=own)
    positions = starts[:, None] + torch.arange(block_size)
    return tokens[positions], tokens[positions + 1]


def _sample_edited(
    *,
    top_k_extra=0,
    strict=False,
    unsorted=False,
    always_argmax=False,
    complement=False,
    squeeze=False,
    flat_threshold=False,
    guard=False,
    flat_argmax=False,
    ascending=False,
):
    """The reference sample with one of the mistakes it is built to show."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if flat_argmax and temperature == 0:
            return logits.argmax()
        if temperature == 0 or always_argmax:
            return logits.argmax(dim=-1)
        logits = logits / temperature
        if top_k is not None:
            kth = torch.topk(logits, min(top_k + top_k_extra, logits.shape[-1])).values
            kth = kth[..., -1] if flat_threshold else kth[..., -1:]
            logits = logits.masked_fill(logits <= kth if strict else logits < kth, -torch.inf)
        if top_p is not None and unsorted:
            probs = torch.softmax(logits, dim=-1)
            remove = probs.cumsum(dim=-1) - probs >= top_p
            remove[..., 0] = False
            logits = logits.masked_fill(remove, -torch.inf)
        elif top_p is not None:
            probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=not ascending)
            remove = probs.cumsum(dim=-1) - probs >= (1 - top_p if complement else top_p)
            remove[..., 0] = guard
            logits = logits.masked_fill(remove.scatter(-1, order, remove), -torch.inf)
        probs = torch.softmax(logits, dim=-1)
        drawn = torch.multinomial(probs, 1, generator=generator)
        return drawn.squeeze() if squeeze else drawn[:, 0]

    return sample


def _sample_top_p_exp_by_hand(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Top-p's probabilities as exp(z) / exp(z).sum() without the row's maximum (the draw
    itself right): inf / inf = NaN once a logit passes about 88.7 (blind26c's family)."""
    if top_p is None or temperature == 0:
        return ref.sample(logits, temperature, top_k, top_p, generator)
    logits = _filtered(logits / temperature, top_k, None)
    exps = torch.exp(logits)  # (batch, vocab)
    sorted_probs, order = (exps / exps.sum(-1, keepdim=True)).sort(-1, descending=True)
    remove = (sorted_probs.cumsum(-1) - sorted_probs) >= top_p
    remove[..., 0] = False
    logits = logits.masked_fill(remove.scatter(-1, order, remove), float("-inf"))
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]


def _sample_top_k_mask_as_weights(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Top-k's keep mask drawn from as the weights: the kept tokens alike."""
    if top_k is None or top_p is not None or temperature == 0:
        return ref.sample(logits, temperature, top_k, top_p, generator)
    logits = logits / temperature
    kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
    weights = (logits >= kth).float()  # (batch, vocab): 1 where kept
    return torch.multinomial(weights, 1, generator=generator)[:, 0]


def _sample_log_sum_exp_by_hand(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Log-probabilities as z - log(exp(z).sum()) without the row's maximum: log(inf) is
    inf, every probability 0 once a logit passes about 88.7."""
    if top_k is not None or top_p is not None or temperature == 0:
        return ref.sample(logits, temperature, top_k, top_p, generator)
    logits = logits / temperature
    log_probs = logits - torch.log(torch.exp(logits).sum(-1, keepdim=True))  # (batch, vocab)
    return torch.multinomial(log_probs.exp(), 1, generator=generator)[:, 0]


def _sample_greedy_over_batch(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """The greedy branch's argmax over the batch axis (mutant sample-9: the shape alone)."""
    if temperature == 0:
        return logits.argmax(dim=-2)
    return ref.sample(logits, temperature, top_k, top_p, generator)


def _sample_top_k_over_rows(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """torch.topk over the rows (dim=-2) (mutant sample-7: PyTorch's raw size clash)."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-2).values[..., -1:]
        logits = logits.masked_fill(logits < kth, -torch.inf)
    return ref.sample(logits, 1.0, None, top_p, generator)


def _sample_top_k_unclamped(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """torch.topk with top_k as given: a RuntimeError when it exceeds the vocabulary
    (https://github.com/TransformerLensOrg/TransformerLens/pull/1347)."""
    if top_k is not None:
        kth = torch.topk(logits / temperature, top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits / temperature < kth, -torch.inf)
    return ref.sample(logits, temperature, None, top_p, generator)


def _sample_nanogpt_hf(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """nanoGPT's top-k (in place on a copy) and Hugging Face's top-p (shift right)."""
    if temperature == 0:
        return torch.argmax(logits, dim=-1)
    logits = logits / temperature
    if top_k is not None:
        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
        logits[logits < v[:, [-1]]] = -float("Inf")
    if top_p is not None:
        sorted_logits, sorted_indices = torch.sort(logits, descending=True)
        cumulative_probs = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        sorted_indices_to_remove = cumulative_probs > top_p
        sorted_indices_to_remove[..., 1:] = sorted_indices_to_remove[..., :-1].clone()
        sorted_indices_to_remove[..., 0] = 0
        indices_to_remove = sorted_indices_to_remove.scatter(
            1, sorted_indices, sorted_indices_to_remove
        )
        logits = logits.masked_fill(indices_to_remove, -float("Inf"))
    probs = F.softmax(logits, dim=-1)
    return torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)


def _sample_draws_last_row(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """The last row of multinomial's (batch, 1) draws, [-1], for its column."""
    if temperature == 0:
        return torch.argmax(logits, dim=-1)
    probs = F.softmax(logits / temperature, dim=-1)  # (batch, vocab)
    return torch.multinomial(probs, 1, generator=generator)[-1]  # (1,)


def _sample_top_k_from_max(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """nanoGPT's top-k with the threshold read from the wrong end of topk's sorted values."""
    if temperature == 0:
        return torch.argmax(logits, dim=-1)
    logits = logits / temperature
    if top_k is not None:
        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))  # (batch, k), descending
        logits = logits.masked_fill(logits < v[:, [0]], -float("inf"))
    probs = F.softmax(logits, dim=-1)
    return torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)


def _rotary_inverse_exp_without_log(length, d_head, base=10000.0):
    """Round 24: the frequencies as 1 / exp(2i / d_head · base), the logarithm of the base
    left out (blind21c's exp form without it was told float32 overflowed at 1e8)."""
    theta = 1.0 / torch.exp(torch.arange(0, d_head, 2).float() / d_head * base)
    angles = torch.arange(length).float()[:, None] * theta[None, :]
    return torch.cos(angles), torch.sin(angles)


def _sample_threshold_from_sorted_raw_logits(
    logits, temperature=1.0, top_k=None, top_p=None, generator=None
):
    """Round 24: the k-th largest read from the logits sorted before the temperature, and
    the tempered logits compared with it (blind21c's untempered topk threshold was told
    "keeps k - 1 tokens")."""
    if temperature == 0:
        return logits.argmax(-1)
    if top_k is not None:
        ranked, _ = torch.sort(logits, dim=-1, descending=True)
        threshold = ranked[:, min(top_k, logits.shape[-1]) - 1].unsqueeze(-1)
    logits = logits / temperature
    if top_k is not None:
        logits = torch.where(logits < threshold, torch.full_like(logits, -math.inf), logits)
    if top_p is not None:
        probs, order = F.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        drop = probs.cumsum(dim=-1) - probs >= top_p
        drop[..., 0] = False
        logits = logits.masked_fill(drop.scatter(-1, order, drop), -math.inf)
    return torch.multinomial(F.softmax(logits, dim=-1), 1, generator=generator).squeeze(-1)


def _sample_hf_temperature_slip(where: str):
    """Hugging Face's top-p with a temperature slip: divided again inside top-p ("twice":
    the nucleus at t ** 2), or divided only inside the top-p branch ("branch")."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if temperature == 0:
            return torch.argmax(logits, dim=-1)
        if where == "twice":
            logits = logits / temperature
        if top_k is not None:
            v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
            logits = logits.masked_fill(logits < v[:, [-1]], -float("Inf"))
        if top_p is not None:
            if where == "branch":
                logits = logits / temperature
            sorted_logits, sorted_indices = torch.sort(logits, descending=True)
            scale = temperature if where == "twice" else 1.0
            cumulative_probs = torch.cumsum(F.softmax(sorted_logits / scale, dim=-1), dim=-1)
            sorted_indices_to_remove = cumulative_probs > top_p
            sorted_indices_to_remove[..., 1:] = sorted_indices_to_remove[..., :-1].clone()
            sorted_indices_to_remove[..., 0] = 0
            indices_to_remove = sorted_indices_to_remove.scatter(
                1, sorted_indices, sorted_indices_to_remove
            )
            logits = logits.masked_fill(indices_to_remove, -float("Inf"))
        probs = F.softmax(logits, dim=-1)  # (batch, vocab)
        return torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)

    return _named("sample", sample)


def _sample_sorted_space(*, map_back=True, extra_kept_column=None):
    """Temperature, top-k and top-p all worked in sorted order (a sort once, the filters
    on the sorted logits) and the draw made there: right when the drawn position is mapped
    back to the vocabulary through the sort's indices; ranks when it is not. With
    ``extra_kept_column``, top-p's guard also keeps that sorted column (mutant sample-14)."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if temperature == 0:
            return logits.argmax(-1)
        values, indices = (logits / temperature).sort(dim=-1, descending=True)
        if top_k is not None:
            k = min(top_k, values.shape[-1])
            values = values.masked_fill(values < values[..., k - 1 : k], -torch.inf)
        if top_p is not None:
            probs = torch.softmax(values, -1)
            drop = probs.cumsum(-1) - probs >= top_p
            drop[..., 0] = False
            if extra_kept_column is not None:
                drop[..., extra_kept_column] = False
            values = values.masked_fill(drop, -torch.inf)
        drawn = torch.multinomial(torch.softmax(values, -1), 1, generator=generator)
        return (indices.gather(-1, drawn) if map_back else drawn)[:, 0]

    return sample


def _sample_threshold_slice(cut):
    """top-k's threshold a slice of several of the k largest logits, not the k-th alone:
    .values[..., -2:] (mutant sample-18), or the whole .values (cut None)."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if temperature == 0:
            return logits.argmax(-1)
        logits = logits / temperature
        if top_k is not None:
            values = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values
            kth = values if cut is None else values[..., cut:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]

    return sample


def _sample_filter_slip(slip):
    """A filter whose result is discarded (logits.masked_fill(...) not assigned: "top_k"
    or "top_p"), or top-p removing a token when the total *including* it passes
    1 - top_p (two slips at once, "one_minus_inclusive")."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if temperature == 0:
            return logits.argmax(-1)
        logits = logits / temperature
        if top_k is not None:
            kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
            kept = logits.masked_fill(logits < kth, float("-inf"))
            if slip != "top_k":
                logits = kept
        if top_p is not None:
            probs, order = torch.softmax(logits, -1).sort(dim=-1, descending=True)
            if slip == "one_minus_inclusive":
                drop = probs.cumsum(-1) > 1 - top_p
            else:
                drop = probs.cumsum(-1) - probs >= top_p
            drop[..., 0] = False
            kept = logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
            if slip != "top_p":
                logits = kept
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]

    return sample


def _sample_top_p_over_log_probs(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Top-p accumulated over log-probabilities (always <= 0, so never above top_p)."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        probs, order = torch.softmax(logits, -1).sort(dim=-1, descending=True)
        running = probs.log().cumsum(-1)
        drop = running - probs.log() > top_p
        drop[..., 0] = False
        logits = logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]


def _sample_fill(value, where):
    """The removed tokens filled with a finite value instead of -inf (b11b)."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if temperature == 0:
            return logits.argmax(-1)
        logits = logits / temperature
        if top_k is not None:
            kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
            fill = value if where in ("top_k", "both") else float("-inf")
            logits = logits.masked_fill(logits < kth, fill)
        if top_p is not None:
            probs, order = torch.softmax(logits, -1).sort(dim=-1, descending=True)
            drop = probs.cumsum(-1) - probs >= top_p
            drop[..., 0] = False
            fill = value if where in ("top_p", "both") else float("-inf")
            logits = logits.masked_fill(drop.scatter(-1, order, drop), fill)
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]

    return _named("sample", sample)


def _sample_top_p_softmax_over_batch(
    logits, temperature=1.0, top_k=None, top_p=None, generator=None
):
    """top-p's probabilities from a softmax over the batch axis (mutant sample-3's slip):
    on 4000 copies of one row every probability is 1 / 4000 and top-p keeps every token,
    as a top-p with no effect would; a batch of one row tells the two apart (b11b)."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        probs, order = torch.softmax(logits, dim=0).sort(dim=-1, descending=True)
        drop = probs.cumsum(-1) - probs >= top_p
        drop[..., 0] = False
        logits = logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]


def _sample_top_k_whole_batch(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """top-k's threshold from the whole batch at once (the k-th largest of the flattened
    logits): right for a batch of one row, wrong for more."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits.flatten(), min(top_k, logits.shape[-1])).values[-1]
        logits = logits.masked_fill(logits < kth, -torch.inf)
    return ref.sample(logits, 1.0, None, top_p, generator)


def _sample_top_k_row_zero(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """top-k's threshold of the first row as a number, .values[0, -1].item(), for every
    row: right while the rows share their logits (b10h)."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[0, -1].item()
        logits = logits.masked_fill(logits < kth, -torch.inf)
    return ref.sample(logits, 1.0, None, top_p, generator)


def _sample_top_k_last_row(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """top-k's threshold of the LAST row as a number, for every row: rows with smaller
    logits lose every token (a NaN softmax) once the rows differ (b10h)."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[-1, -1].item()
        logits = logits.masked_fill(logits < kth, -torch.inf)
    if top_p is not None:
        return ref.sample(logits, 1.0, None, top_p, generator)
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]


def _sample_inclusive_no_guard(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """top-p removes a token once the total up to and including it reaches top_p, and
    nothing keeps the most probable token: two mistakes (the second shows only when the
    most probable token alone reaches top_p)."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_p is not None:
        probs, order = torch.softmax(logits, -1).sort(-1, descending=True)
        drop = probs.cumsum(-1) >= top_p
        logits = logits.masked_fill(drop.scatter(-1, order, drop), -torch.inf)
    return ref.sample(logits, 1.0, top_k, None, generator)


def _sample_top_k_one_early(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """The threshold from torch.topk(logits, top_k - 1): k - 1 tokens kept, as with <=."""
    if top_k is not None and top_k > 1:
        top_k = top_k - 1
    return ref.sample(logits, temperature, top_k, top_p, generator)


def _sample_temperature_twice(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """The logits divided by the temperature before the call and again inside it."""
    if temperature == 0:
        return logits.argmax(-1)
    return ref.sample(logits / temperature, temperature, top_k, top_p, generator)


def _sample_top_p_on_logits(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """top-p's running total taken over the sorted logits, not the probabilities."""
    if temperature == 0:
        return logits.argmax(-1)
    logits = logits / temperature
    if top_p is not None:
        ordered, order = logits.sort(-1, descending=True)
        drop = ordered.cumsum(-1) - ordered >= top_p
        drop[..., 0] = False
        logits = logits.masked_fill(drop.scatter(-1, order, drop), -torch.inf)
    return ref.sample(logits, 1.0, top_k, None, generator)


def _sample_second_column(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """torch.multinomial(probs, 1)[:, 1]: past its only column (mutant sample-15)."""
    if temperature == 0:
        return logits.argmax(-1)
    probs = torch.softmax(_filtered(logits / temperature, top_k, top_p), -1)
    return torch.multinomial(probs, 1, generator=generator)[:, 1]


def _sample_gumbel(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """The Gumbel-max trick: argmax(logits + Gumbel noise) draws from softmax(logits)."""
    if temperature == 0:
        return logits.argmax(-1)
    kept = _filtered(logits / temperature, top_k, top_p)
    uniform = torch.rand(kept.shape, generator=generator).clamp(1e-12, 1 - 1e-7)
    return (kept - torch.log(-torch.log(uniform))).argmax(-1)


def _sample_keep_mask(*, guard=True, truthy=False, gumbel=False):
    """Top-p as a keep mask (keep a token while the mass before it is below top_p), with
    or without the guard that keeps the first sorted column; ``truthy`` tests ``if top_p:``
    (0.0 taken for None); ``gumbel`` draws with the Gumbel-max trick (no error when a row
    is emptied: the argmax of all -inf is token 0)."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if temperature == 0:
            return logits.argmax(-1)
        logits = logits / temperature
        if top_k is not None:
            kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        if top_p if truthy else top_p is not None:
            probs, order = torch.softmax(logits, -1).sort(dim=-1, descending=True)
            keep = probs.cumsum(-1) - probs < top_p  # (batch, vocab), sorted order
            if guard:
                keep[..., 0] = True
            keep = keep.scatter(-1, order, keep)
            logits = logits.masked_fill(~keep, float("-inf"))
        if gumbel:
            uniform = torch.rand(logits.shape, generator=generator).clamp(1e-12, 1 - 1e-7)
            return (logits - torch.log(-torch.log(uniform))).argmax(-1)
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]

    return _named("sample", sample)


def _sample_inverted(which: str):
    """A filter's mask inverted (blind30c's family, written otherwise): "top_k" removes
    the k largest with torch.where(logits >= kth, -inf, logits); "top_p" fills where a keep
    mask (mass before < top_p) is True; "top_k_weights" draws uniformly from the tokens
    outside the k largest (the inverted keep mask used as the weights: the set is the
    complement, the proportions are off too); "top_k_smallest" keeps the k smallest
    logits (topk(largest=False)), which is not the complement and must not be told so."""

    def sample(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
        if temperature == 0:
            return logits.argmax(-1)
        logits = logits / temperature
        if top_k is not None:
            k = min(top_k, logits.shape[-1])
            kth = torch.topk(logits, k, dim=-1).values[..., -1:]
            if which == "top_k":
                logits = torch.where(logits >= kth, float("-inf"), logits)
            elif which == "top_k_weights" and top_p is None:
                weights = (logits < kth).float()  # (batch, vocab)
                return torch.multinomial(weights, 1, generator=generator)[:, 0]
            elif which == "top_k_smallest":
                lowest = torch.topk(logits, k, dim=-1, largest=False).values[..., -1:]
                logits = logits.masked_fill(logits > lowest, float("-inf"))
            else:
                logits = logits.masked_fill(logits < kth, float("-inf"))
        if top_p is not None:
            probs, order = torch.softmax(logits, -1).sort(dim=-1, descending=True)
            keep = probs.cumsum(-1) - probs < top_p  # (batch, vocab), sorted order
            keep[..., 0] = True
            keep = keep.scatter(-1, order, keep)
            logits = logits.masked_fill(keep if which == "top_p" else ~keep, float("-inf"))
        return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0]

    return _named("sample", sample)


# ------------------------------------------------ round 14: gradients, memory layout, starts
class NormStatisticNoGrad(ref.RMSNorm):
    """The root mean square computed under torch.no_grad(), "a statistic, not a weight":
    the values right, no gradient through it."""

    def forward(self, x):
        with torch.no_grad():
            rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x / rms * self.weight


class NormNumeratorDetached(ref.RMSNorm):
    """x.detach() divided by the root mean square of x: the gradient through the
    statistic only."""

    def forward(self, x):
        return x.detach() * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class NormOnACopy(ref.RMSNorm):
    """x copied with x.detach().clone() first, "so as not to modify the caller's
    tensor": no gradient reaches x."""

    def forward(self, x):
        x = x.detach().clone()
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class NormRsqrtFloat32(ref.RMSNorm):
    """The statistic in float32 with torch.rsqrt, the result cast back, then the gain
    (Gemma/Llama style): the gradient flows through every step."""

    def forward(self, x):
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.square().mean(-1, keepdim=True) + self.eps)
        return normed.to(x.dtype) * self.weight


def _rotary_flat_rows(x, cos, sin):
    """Every vector of x as a row of a 2-D table, x.view(-1, d_head), the tables repeated
    for each leading index: fails on split_heads' transposed (non-contiguous) output."""
    length, d_head = x.shape[-2:]
    half = d_head // 2
    rows = x.view(-1, d_head)  # (... * len, d_head)
    repeats = rows.shape[0] // length
    c, s = cos.to(x.dtype).repeat(repeats, 1), sin.to(x.dtype).repeat(repeats, 1)
    a, b = rows[:, :half], rows[:, half:]
    return torch.cat([a * c - b * s, a * s + b * c], dim=-1).view(x.shape)


def _rotary_flat_rows_reshaped(x, cos, sin):
    """The same table of rows made with reshape, which copies a non-contiguous x."""
    length, d_head = x.shape[-2:]
    half = d_head // 2
    rows = x.reshape(-1, d_head)  # (... * len, d_head)
    repeats = rows.shape[0] // length
    c, s = cos.to(x.dtype).repeat(repeats, 1), sin.to(x.dtype).repeat(repeats, 1)
    a, b = rows[:, :half], rows[:, half:]
    return torch.cat([a * c - b * s, a * s + b * c], dim=-1).reshape(x.shape)


class GptFunctionalLookupPadded(ref.GPT):
    """The lookup written with F.embedding and a pad id carried over from a translation
    model: token 0's row gets no gradient from the lookup."""

    def forward(self, ids):
        x = F.embedding(ids, self.embedding.weight, padding_idx=0)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T


class GptLookupFromData(ref.GPT):
    """The embeddings indexed out of self.embedding.weight.data: no gradient through the
    lookup at all."""

    def forward(self, ids):
        x = self.embedding.weight.data[ids]
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T


class GptOutputFromDetached(ref.GPT):
    """The tied output layer as F.linear on the detached embedding weight."""

    def forward(self, ids):
        x = self.embedding(ids)
        for layer in self.layers:
            x = layer(x)
        return F.linear(self.norm(x), self.embedding.weight.detach())


class GptFunctionalTied(ref.GPT):
    """F.embedding for the lookup and F.linear for the tied output: both train the table."""

    def forward(self, ids):
        x = F.embedding(ids, self.embedding.weight)
        for layer in self.layers:
            x = layer(x)
        return F.linear(self.norm(x), self.embedding.weight)


def _batches_one_window_stacked(tokens, block_size, batch_size, generator):
    """One start drawn as a Python int, its window stacked batch_size times."""
    s = int(torch.randint(0, len(tokens) - block_size, (), generator=generator))
    window = tokens[s : s + block_size + 1]  # (block_size + 1,)
    windows = torch.stack([window] * batch_size)  # (batch_size, block_size + 1)
    return windows[:, :-1], windows[:, 1:]


def _batches_half_the_starts(tiled: bool):
    """batch_size // k starts drawn, then tiled (.repeat) or each repeated in a row."""

    def next_token_batches(tokens, block_size, batch_size, generator):
        k = 2 if tiled else 4
        starts = torch.randint(0, len(tokens) - block_size, (batch_size // k,), generator=generator)
        starts = starts.repeat(k) if tiled else starts.repeat_interleave(k)
        positions = starts[:, None] + torch.arange(block_size)  # (batch_size, block_size)
        return tokens[positions], tokens[positions + 1]

    return next_token_batches


def _batches_squeezed_first_axis(tokens, block_size, batch_size, generator):
    """nanoGPT's stack, then .squeeze(0) on both: a batch of one loses its batch axis."""
    ix = torch.randint(len(tokens) - block_size, (batch_size,), generator=generator)
    x = torch.stack([tokens[i : i + block_size] for i in ix]).squeeze(0)
    y = torch.stack([tokens[i + 1 : i + 1 + block_size] for i in ix]).squeeze(0)
    return x, y


def _batches_inputs_one_too_long(tokens, block_size, batch_size, generator):
    """The inputs sliced block_size + 1 long, the targets right."""
    ix = torch.randint(len(tokens) - block_size, (batch_size,), generator=generator)
    x = torch.stack([tokens[i : i + block_size + 1] for i in ix])  # (batch, block_size + 1)
    y = torch.stack([tokens[i + 1 : i + 1 + block_size] for i in ix])  # (batch, block_size)
    return x, y


def _batches_inner_starts(tokens, block_size, batch_size, generator):
    """Starts drawn from 1 to num_tokens - block_size - 2: neither end occurs."""
    starts = torch.randint(1, len(tokens) - block_size - 1, (batch_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size)
    return tokens[positions], tokens[positions + 1]


# ---- round 32 (helper f32g1112): structural families, each named from outputs and state


def _rotary_newest_position_only(x, cos, sin):
    """Rotates the last position only (as for the newest token of a generation step): the
    others come back as they went in."""
    out = x.clone()
    out[..., -1:, :] = ref.apply_rotary(x[..., -1:, :], cos[-1:], sin[-1:])
    return out


class FfnGateAbs(ref.SwiGLU):
    """Takes the absolute value of the SiLU gate (one operation added)."""

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)).abs() * self.w3(x))


class NormGainSquared(ref.RMSNorm):
    """Multiplies by the gain squared (one operation added to an attribute)."""

    def forward(self, x):
        mean_square = x.pow(2).mean(dim=-1, keepdim=True)
        return x * torch.rsqrt(mean_square + self.eps) * self.weight.square()


class AttentionKeysAbs(ref.CausalSelfAttention):
    """Takes the absolute value of the rotated keys before the attention."""

    def forward(self, x):
        length = x.shape[1]
        q = split_heads(self.w_q(x), self.num_heads)  # (batch, num_heads, len, d_head)
        k = split_heads(self.w_k(x), self.num_heads)
        v = split_heads(self.w_v(x), self.num_heads)
        cos, sin = ref.rotary_embedding(length, self.d_head, self.base)
        q, k = ref.apply_rotary(q, cos, sin), ref.apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k.abs(), v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))  # (batch, len, d_model)


_SAMPLE_MEMO: dict = {}


def _sample_memo_by_shape(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Keeps the tokens drawn for each shape of logits and returns them again."""
    key = tuple(logits.shape)
    if key not in _SAMPLE_MEMO:
        _SAMPLE_MEMO[key] = ref.sample(logits, temperature, top_k, top_p, generator)
    return _SAMPLE_MEMO[key]


_BATCHES_MEMO: dict = {}


def _batches_memo_by_sizes(tokens, block_size, batch_size, generator):
    """Keeps the batches drawn for each (stream length, block, batch) and returns them again."""
    key = (len(tokens), block_size, batch_size)
    if key not in _BATCHES_MEMO:
        _BATCHES_MEMO[key] = ref.next_token_batches(tokens, block_size, batch_size, generator)
    return _BATCHES_MEMO[key]


def _sample_one_hot(logits, temperature=1.0, top_k=None, top_p=None, generator=None):
    """Returns the drawn tokens one-hot encoded, as for a loss that takes vectors."""
    drawn = ref.sample(logits, temperature, top_k, top_p, generator)
    return F.one_hot(drawn, logits.shape[-1])


def _rope_length_padded(length, d_head, base=10000.0):
    """Builds the tables for the length rounded up to a multiple of 32 (a padded size)."""
    return ref.rotary_embedding((length + 31) // 32 * 32, d_head, base)


MISTAKES = [
    # the family "attention weights recovered from the values and w_o's input": round 29's
    # softmax_1 and soft-capped scores got "differs from the reference" alone
    Mistake(
        check_CausalSelfAttention,
        AttentionSinkInDenominator,
        r"recovered exactly from your values and w_o's input\) are exp\(s\) / \(1 \+ sum "
        r"exp\(s\)\): a 1 is added to the softmax's denominator",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionScoresCappedAtFive,
        r"are the softmax of capped scores, 5 \* tanh\(s / 5\)",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionCappedAfterTheMask,
        r"put weight on keys the mask blocks: head \d of batch row \d, query \d, key \d has "
        r"weight .*a step between the mask and the softmax that makes -inf finite",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionTemperatureFourFifths,
        r"are the softmax of the right scores times 1\.25: your scores are scaled by 0\.4419 "
        r"where the lesson's are scaled by 0\.3536",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionDistanceBias,
        r"differs from the reference: largest difference .* are a softmax over the allowed keys .* "
        r"but not of the right scores, .*the first "
        r"wrong weight is at head \d of batch row \d, query \d, key \d",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionWeightsOverTheirMaximum,
        r"are the right softmax times a factor per query \(the rows sum to between",
    ),
    # round 23: the block count's rule read from builds at other num_layers (blind12i-gpt-
    # one-layer-short was told the count alone)
    Mistake(check_GPT, GptOneBlockTooMany, r"num_layers \+ 1, one block more than asked"),
    Mistake(
        check_RMSNorm, NormEpsTuple, r"'tuple'\nA tuple met a tensor in arithmetic: .*trailing"
    ),
    # blind15b: a final norm over the vocabulary got its shape alone
    Mistake(
        check_GPT,
        GptNormedLogits,
        r"norm\.weight has shape \(\d+,\), vocab_size .*fits only the logits",
    ),
    # round 37: the family "a formula that is not a rotation", read as a signed sum of
    # a * cos, a * sin, b * cos, b * sin per output (three terms wrong: "largest difference")
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_partner_times_sin_cos),
        r"your pair \(a, b\) becomes \(-b \* sin, a \* cos\), where the rotation gives .*at "
        r"position 0 \(cos = 1, sin = 0\) yours turns \(a, b\) into \(0, a\)",
    ),
    # blind26c-rot-tables-taken-as-angles: a table passed through cos or sin (differences
    # alone before)
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_sine_of_the_sines),
        r"formula with torch\.sin\(sin\) where sin belongs: .*not the angles",
    ),
    # the family "the tables (or x, or everything) rounded to a narrower dtype"
    # (blind30c-rot-tables-rounded-to-bfloat16: "largest difference" before); the sibling,
    # the whole rotation in bfloat16, keeps its own message
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_tables_as_half),
        r"rotation with cos and sin rounded to float16 first",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_all_in_bfloat16),
        r"whole rotation computed in bfloat16",
    ),
    # the family "angles recovered from the tables over half a turn"
    # (blind30c-rot-angles-recovered-with-atan: "largest difference" before)
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_angles_from_asin),
        r"angles recovered from the tables as torch\.asin\(sin\), .*cosine changes sign",
    ),
    # the family "a result buffer never (wholly) written" (its differences alone before)
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_second_half_never_written),
        r"\d+ of the \d+ entries of your result were never written",
    ),
    # blind15b: tables with two leading axes got the shape alone
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotate_half_tables_for_four_axes),
        r"extra leading axes of size one come from the tables, given 2 leading axes",
    ),
    # blind15b: PyTorch's norm as a submodule was told the stack's final-norm advice
    Mistake(check_RMSNorm, NormSquaresOverDMinusOne, r"divided by d_model - 1 = \d+ \(Bessel"),
    # round 37: the family "the mean square of some of the features", read off which
    # features reproduce the learner's number per token (pRMSNorm's first p %: the first
    # token's number alone)
    Mistake(
        check_RMSNorm,
        NormOverFirstQuarter,
        r"root mean square of the first \d+ of the \d+ features \(x\[\.\.\., :\d+\], 25 % of "
        r"them\) only, not of all d_model = \d+",
    ),
    Mistake(
        check_RMSNorm,
        NormOverAllButLastFeature,
        r"root mean square of the first (7 of the 8|15 of the 16) features \(x\[\.\.\., :"
        r"(7|15)\]\) only",
    ),
    Mistake(
        check_RMSNorm,
        RmsOverVarianceFourthRoot,
        r"that number is the variance, x\.var\(unbiased=False\).* under two square roots.*: "
        r"the statistic is a variance, which subtracts each token's mean.*taken 2 times",
    ),
    # blind19d: the gain applied with @ was told the shape alone
    Mistake(
        check_RMSNorm,
        NormGainSummedIn,
        r"summed into one number, a dot product\. That is the gain applied with @ or "
        r"torch\.matmul",
    ),
    Mistake(
        check_RMSNorm,
        NormEpsAsLowerBound,
        r"eps is a lower bound of the mean square, sqrt\(max\(mean\(x \*\* 2\), eps\)\)",
    ),
    Mistake(
        check_RMSNorm,
        NormGainDouble,
        r"returned torch\.float64 for a float32 input, not float32: your weight is torch\.float64",
    ),
    # round 23: the number per token as a power of d_model times the root mean square
    # (blind20c-rms-unit-vector-scale-inverted got the first token's number alone)
    Mistake(
        check_RMSNorm,
        NormUnitVectorDividedByRootD,
        r"d_model \*\* 1 times the root mean square .*d_model times too small",
    ),
    Mistake(check_RMSNorm, NormHoldsTorchNorm, r"holds PyTorch's nn\.RMSNorm as `self\.inner`"),
    Mistake(check_RMSNorm, NormHoldsLayerNorm, r"nn\.LayerNorm .*also subtracts the mean"),
    # blind15b: a residual inside SwiGLU got the largest difference; the sigmoid of x in a
    # hand-written SiLU got two other causes (the probe at d_ff = d_model tells it)
    # blind23c: the mean squared where the mean of the squares belongs ("not the root mean
    # square" with one token's number before)
    Mistake(check_RMSNorm, NormSumSquaredOverWidth, r"it is the square of the mean, mean\(x\)"),
    # blind21c: a complex rotation built from the wrong inputs got "largest difference"
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_polar_of_the_sines),
        r"Each pair \(2i, 2i \+ 1\) of yours, read as a complex number, is multiplied by "
        r"torch\.polar\(torch\.ones_like\(sin\), sin\): the sine taken for the angle",
    ),
    # blind23c: features passed through unrotated were told "largest difference"
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_last_pair_left_out),
        r"Your result's features \[(3, 7|7, 15)\] of every head \(of d_head = (8|16)\) come back as x "
        r"unchanged at every position: they are never rotated",
    ),
    # the family "every window some tokens after its drawn start" (an IndexError told the
    # bound of the draw alone before)
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_starts_drawn_from_one),
        r"Every window begins 1 token after its drawn start s.*starts are drawn from 1",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_sliced_one_late),
        r"(?s)raised RuntimeError: stack expects.*Every window begins 1 token after its drawn start",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_offsets_from_two),
        r"Every window begins 2 tokens after its drawn start s.*reaches 2 tokens past the end",
    ),
    # round 31: targets one-hot encoded (blind27c's family), said from their values
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_targets_one_hot_float),
        r"targets should have shape.*Yours is the expected integer ids one-hot encoded: each "
        r"id became a vector of \d+ class indicators along a new last axis",
    ),
    # blind23c: made-up ids in front of the windows were told the stream positions alone
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_padding_in_front),
        r"its first token is a made-up id \(id -100\) not from the stream.*the window is "
        r"shifted right by 1 place, with a token prepended",
    ),
    # blind23c: heads split (and merged) with the head axis as the fast one got "differs"
    # the family "heads and head width swapped in the split" (told of RoPE's tables)
    Mistake(
        check_CausalSelfAttention,
        AttentionViewSizesSwapped,
        r"Your q, k are \(\d+, \d+, \d+, \d+\): split into d_head = \d+ heads of num_heads",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionMergeInterleaved,
        r"Your merge puts head h's feature j at j · num_heads \+ h .*while your split is right",
    ),
    # blind23c: a projection of one head's width was told the shapes alone
    Mistake(
        check_CausalSelfAttention,
        AttentionOutputPerHead,
        r"w_o\.weight has shape \(\d+, \d+\), expected .*Its size \d+ is d_head = d_model // "
        r"num_heads, one head's width, where d_model \(\d+\) belongs.*nn\.Linear\(d_head, "
        r"d_head\) can only be applied to the heads one by one",
    ),
    Mistake(check_SwiGLU, FfnResidualOwn, r"block's output plus its input.*residual"),
    Mistake(
        check_SwiGLU,
        FfnInputStraightToW2,
        r"Your forward never uses w1 and w3 before `self\.w2` raised",
    ),
    # blind23c: an activation on the input before a projection, and an extra term added to
    # the gated product, were told "largest difference": the layers' inputs, recorded
    Mistake(check_SwiGLU, FfnValueFromActivatedInput, r"w3 receives gelu\(x\), not the block's"),
    Mistake(
        check_SwiGLU,
        FfnValueAddedToProduct,
        r"What your w2 receives \(the hidden layer\) is not silu\(w1\(x\)\) \* w3\(x\) but "
        r"silu\(w1\(x\)\) \* w3\(x\) \+ w3\(x\)",
    ),
    # round 31: a gate activation no table lists, described from its values
    Mistake(
        check_SwiGLU,
        FfnGateCubedRelu,
        r"divided by the value w3\(x\), is your gate's activation f of z = w1\(x\), and f\(z\) "
        r"is exactly 0 for every negative z and z \*\* 3 for positive z",
    ),
    Mistake(
        check_SwiGLU,
        FfnSigmoidOfInput,
        r"d_ff = d_model = \d+, where nothing clashes, .* sigmoid of the block's input x",
    ),
    # blind23c: a threshold on one scale compared on another removed every token, and was
    # told an edit using top_k as the threshold: the kept set probed under shifted logits
    Mistake(
        check_sample,
        _sample_top_k_log_probs_against_logit,
        r"the tokens top-k keeps must not change with it either; yours do: with logits -10 it "
        r"kept .*not on the same scale",
    ),
    # blind21c: rows that remove each other's tokens raised NaN with the error alone
    Mistake(
        check_sample,
        _sample_top_p_removed_by_any_row,
        r"Each row given alone \(a batch of one, logits\[r:r\+1\]\) keeps its own top-p "
        r"set, but .* a row loses tokens other rows remove\. The union",
    ),
    # blind23c: a cut found by argmax over a comparison false everywhere at top_p = 1.0
    # turned it greedy and passed every check
    Mistake(
        check_sample,
        _sample_top_p_last_index_by_argmax,
        r"With top_p=1\.0 the nucleus is the whole vocabulary.*drew token \d in all "
        r"\d+ draws.*the argmax of an all-False row is 0",
    ),
    # blind15b: the temperature applied only in a filter's branch was told "you divided the
    # probabilities"; applied again inside top-p, told "never drew some tokens"
    Mistake(
        check_sample,
        _sample_hf_temperature_slip("branch"),
        r"when no top-p is given; with top_p=1\.0 .* only inside the `if top_p is not None:`",
    ),
    Mistake(
        check_sample,
        _sample_hf_temperature_slip("twice"),
        r"top-p chose its tokens from the probabilities at temperature t \*\* 2",
    ),
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rotary_inverse_exp_without_log),
        r"nothing overflowed.*log-space form written without its logarithm",
    ),
    Mistake(
        check_sample,
        _sample_threshold_from_sorted_raw_logits,
        r"top-k threshold is the k-th largest of the logits before the temperature",
    ),
    # blind15b: a squeezed batch of one was accepted; inputs one token too long got the shape
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_squeezed_first_axis),
        r"\(1, \d\), but it has shape \(\d,\)\. With batch_size = 1 the batch axis is gone.*"
        r"squeeze",
    ),
    # blind17b-ntb-starts-from-scaled-rand: valid windows of another draw were accepted
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_numpy_style_floor),
        r"not the ones the contract's draw gives.*Yours are the starts of uniform floats scaled "
        r"and truncated",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_inputs_one_too_long),
        r"inputs are one position too long: block_size \+ 1 tokens per row",
    ),
    # blind round 10 (b10h): positions spaced length / (length - 1) apart were told "Your
    # positions are right ..., but not your frequencies"; a second length parts the two
    Mistake(
        check_rotary_embedding,
        _rope_positions(lambda n: torch.linspace(0, n, n, dtype=torch.float64)),
        r"(?s)Your positions are wrong.*changes with the length.*torch\.linspace",
    ),
    # positions as fractions of the length (blind16b-rope-positions-divided-by-length was
    # told only that the factor changes with the length)
    Mistake(
        check_rotary_embedding,
        _rope_positions(lambda n: torch.linspace(0, 1, n, dtype=torch.float64)),
        r"(?s)Your positions are wrong.*spread over \[0, 1\].*length - 1 times too small",
    ),
    # blind round 13 (b13b): a sub-layer reading the raw stream, its norm moved or left out
    Mistake(check_DecoderBlock, BlockSandwichedOutputs, r"norms act on the sub-layers' outputs"),
    # round 30: a term added to the residual sum ("check the step right after" before)
    Mistake(
        check_DecoderBlock,
        BlockInputAddedAgain,
        r"layer's output is h \+ feed_forward\(\.\.\.\) \+ x: x is added, which the sum does not hold",
    ),
    Mistake(
        check_DecoderBlock,
        BlockAttentionAddedToOutput,
        r"layer's output is h \+ feed_forward\(\.\.\.\) \+ attn\(\.\.\.\): attn\(\.\.\.\) is added",
    ),
    # blind21c-block-feed-forward-reads-attention-alone was told the residual was missing;
    # blind21c-gpt-blocks-in-reverse was told the order only
    Mistake(
        check_DecoderBlock,
        BlockFeedForwardNormsAttentionOutput,
        r"^(?![\s\S]*not added back)[\s\S]*norm2` is the output of `self\.attn` alone, "
        r"without the residual stream.*sum h = x \+ attn\(\.\.\.\) is formed",
    ),
    Mistake(check_GPT, GptBlocksCountingDown, r"in reverse, the last layer first"),
    # two layers: the stack's output tells the two sums apart (blind13b-gpt-extra-residual-
    # around-blocks got both named)
    Mistake(
        check_GPT,
        GptEmbeddingsAddedAfterEveryBlock,
        r"^(?![\s\S]*two mistakes)[\s\S]*output plus the embeddings of the ids",
    ),
    Mistake(
        check_GPT,
        GptBlockOutputPlusItsInput,
        r"^(?![\s\S]*two mistakes)[\s\S]*an extra residual connection around each whole",
    ),
    # the family "the blocks' sub-layers called in the loop" (blind30c-gpt-parallel-residual:
    # "differs" alone before): the parallel block is named, the sibling (the attention's
    # output dropped) is not called parallel
    Mistake(
        check_GPT,
        GptInlineStaleStream,
        r"layers\.0\.norm2 receives the block's input x, not x \+ attn\(norm1\(x\)\).*side by "
        r"side.*parallel residual of GPT-J",
    ),
    Mistake(
        check_GPT,
        GptInlineAttentionDropped,
        r"layers\.0\.norm2 receives the block's input x.*attn's output never reaches the "
        r"stream(?!.*parallel)",
    ),
    Mistake(
        check_DecoderBlock,
        BlockSecondResidualFromData,
        r"forward values are right, but the second residual path carries no gradient",
    ),
    Mistake(
        check_DecoderBlock,
        BlockOutputThroughFirstNorm,
        r"normalises its output too: it returns norm1\(h \+ feed_forward\(norm2\(h\)\)\)",
    ),
    Mistake(
        check_DecoderBlock, BlockAttentionUnnormalised, r"attention reads the raw, unnormalised"
    ),
    Mistake(
        check_DecoderBlock, BlockFeedForwardOnStream, r"feed-forward reads the raw, unnormalised"
    ),
    # blind round 10 (b10h): "check the step right after `self.feed_forward`" alone
    Mistake(
        check_DecoderBlock,
        BlockFeedForwardResidualTwice,
        r"adds the stream twice: the layer's output is 2 \* h \+ feed_forward",
    ),
    # blind round 10 (b10h): uncaught (every call of a module had the same length)
    Mistake(
        check_CausalSelfAttention,
        AttentionTablesFromFirstCall,
        r"right on a fresh module but not when the same module was called first on a shorter",
    ),
    # blind round 10 (b10h): uncaught (every batch held copies or permutations of one row)
    Mistake(
        check_sample,
        _named("sample", _sample_top_k_row_zero),
        r"Row 0 drew only from its own top 2 tokens.*one threshold, the first row's",
    ),
    # blind round 10 (b10h): uncaught (the checks load their own weights)
    Mistake(
        check_GPT,
        GptEveryParameterRedrawn,
        r"3 of its 3 norm gains not at ones .*drawn at random.*self\.parameters\(\)",
    ),
    # blind round 10 (b10h): "differs from the reference" before; the same weights split
    # into every other number of heads are candidates
    Mistake(
        check_CausalSelfAttention,
        AttentionFourHeads,
        r"computes 4 heads of \d+ features, not num_heads = [23] heads",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionMaskAfterSoftmax,
        r"causal mask after the softmax .* no longer add up to 1",
    ),
    # b11b: an outer sum or product of two vectors without the new axis: PyTorch's size
    # error and its general advice alone before; the sizes name the two vectors
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_outer_without_axis),
        r"(?s)The sizes \d+ and \d+ are batch_size and block_size.*starts\[:, None\]",
    ),
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_outer_without_axis),
        r"(?s)are length \(one per position\) and d_head // 2.*arange\(length\)\[:, None\]",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_split_in_pairs),
        r"x\.split\(2, dim=-1\),? (which )?cutting d_head = \d+ into chunks of size 2",
    ),
    # b11b: one slip made in all four terms of the rotation ("differs" before)
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_tables_swapped),
        r"cos and sin are exchanged in every term: .*sin, cos = rotary_embedding",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_adjacent_factors_swapped),
        r"cos and sin are exchanged in every term",
    ),
    Mistake(
        check_apply_rotary,
        _rotary_formula_repeated(True),
        r"second output repeats the first's formula, a \* cos - b \* sin \(a copy-paste",
    ),
    Mistake(
        check_apply_rotary,
        _rotary_formula_repeated(False),
        r"first output repeats the second's formula, a \* sin \+ b \* cos",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_negated),
        r"Every term has the wrong sign: yours is minus the rotation",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_first_output_without_sine),
        r"the -b \* sin term is missing",
    ),
    # b11b: one norm of the block built without its eps ("differs from the reference")
    Mistake(check_DecoderBlock, BlockNormEpsOnce, r"Your norm2 ignores the eps the block was"),
    # round 23: the sub-layer's input related to its own norm module run on the stream
    # (blind20c-block-attention-input-normalised-twice and -functional-rms-norm-without-
    # gains got "differs" and "not norm1(x)")
    # round 23: the output is the stream from before the last sub-layer (blind12i-block-
    # returns-h was told "a wrong sign or factor")
    Mistake(
        check_DecoderBlock,
        BlockFfnResultUnused,
        r"The layer's output is h .*the output of `self\.feed_forward` never reaches",
    ),
    # round 33: a norm run again on its sub-layer's output (blind28c-decoder-sandwich-norm
    # was told "no residual")
    Mistake(
        check_DecoderBlock,
        BlockFeedForwardSandwiched,
        r"`self\.norm2` runs twice around `self\.feed_forward`.*h \+ norm2\(feed_forward\("
        r"norm2\(h\)\)\).*a sandwich norm",
    ),
    Mistake(
        check_DecoderBlock,
        BlockFfnGainTwice,
        r"`self\.feed_forward` reads norm2\(h\) with its gain applied twice",
    ),
    Mistake(
        check_DecoderBlock,
        BlockFfnNormTwice,
        r"`self\.feed_forward` reads norm2\(norm2\(h\)\) \(where h = .*normalised twice",
    ),
    Mistake(check_DecoderBlock, BlockNormEpsOnceOther, r"Your norm1 ignores the eps the block was"),
    # blind19d: a block argument where eps belongs (d_ff there) got "largest difference"
    Mistake(
        check_DecoderBlock,
        BlockNormGivenHeadsAsEps,
        r"`self\.norm1` normalises with eps = (\d) .*That is num_heads = \1: it reaches RMSNorm's "
        r"second parameter, eps \(RMSNorm\(d_model, num_heads\) where",
    ),
    # b11b: two mistakes of the table at once, when no single one matches ("differs")
    Mistake(
        check_CausalSelfAttention,
        AttentionNotCausalNoOutput,
        r"(?s)Two mistakes at once\. \(1\) Your attention is not causal.*\(2\) You return "
        r"the merged heads without the output projection",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionMaskTransposedValuesRotated,
        r"(?s)Two mistakes at once\. .*causal mask is transposed.*rotated the values too",
    ),
    Mistake(
        check_GPT,
        GptScaledNoFinalNorm,
        r"(?s)Two mistakes at once\. .*no final norm.*multiplied the embeddings by sqrt",
    ),
    # b11b: the embedding matrix as stored where its transpose belongs (PyTorch's product
    # error and "a missing or extra transpose" before)
    Mistake(
        check_GPT,
        GptEmbeddingNotTransposed,
        r"(?s)the embedding matrix as it is stored.*x @ self\.embedding\.weight\.T",
    ),
    Mistake(
        check_GPT,
        GptEmbeddingThroughLinear,
        r"(?s)the embedding matrix as it is stored.*F\.linear\(x, self\.embedding\.weight\)",
    ),
    # b11b: the mask transposed, two projections exchanged ("differs" before)
    Mistake(
        check_CausalSelfAttention,
        AttentionSlips,
        r"causal mask is transposed: each query attends to itself and the keys after it",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionTablesSwapped,
        r"turn the wrong way round: .*cos and sin exchanged \(sin, cos = rotary_embedding.*"
        r"positions reversed",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionPositionsReversed,
        r"turn the wrong way round: .*positions reversed",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionQueriesKeysExchanged,
        r"queries and keys are exchanged: the queries come from self\.w_k\(x\)",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionQueriesValuesExchanged,
        r"queries and values are exchanged: the queries come from self\.w_v\(x\)",
    ),
    # blind round 10 (b10h): "differs from the reference" before
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_first_feature_twice),
        r"does not depend on the second feature of each pair, b: .*a stands in for b",
    ),
    # blind round 10 (b10h): "differs from the reference" before
    # b11b: the gain added or subtracted, as a bias ("differs from the reference" before)
    Mistake(check_RMSNorm, NormGainAdded, r"You added the learned gain instead of multiplying"),
    Mistake(
        check_RMSNorm, NormGainSubtracted, r"You subtracted the learned gain instead of multipl"
    ),
    Mistake(check_RMSNorm, NormMeanAbsolute, r"one number per token.*it is the mean absolute"),
    Mistake(
        check_RMSNorm,
        NormOverSequenceLength,
        r"it is the sum of the squares divided by x\.shape\[\d\] = \d+, not by d_model",
    ),
    Mistake(check_RMSNorm, NormFourthRoot, r"one number per token.*for token \(0, 0\) yours is"),
    # the square root taken more than once (blind21c-rms-root-of-root-mean-square was told
    # the first token's number and to add eps)
    Mistake(check_RMSNorm, NormRsqrtOfRoot, r"under 2 square roots, a fourth root.*taken 2 times"),
    Mistake(check_RMSNorm, NormEighthRoot, r"under 3 square roots, an eighth root"),
    # blind16b: the first token's number alone before
    Mistake(
        check_RMSNorm,
        NormMeanDividedAgain,
        r"one number per token.*it is the sum of the squares divided by d_model \*\* 2.*"
        r"sqrt\(d_model\) times too large",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_block_size_starts),
        r"has block_size \(\d+\) rows: was the number of starts drawn block_size",
    ),
    # blind17b-csa-scale-power-precedence: at d_model = 16, d_head = 8, d_head / 2 is
    # sqrt(d_model), and was told so
    Mistake(
        check_CausalSelfAttention, AttentionScaleHalfHead, r"by d_head / 2, not sqrt\(d_head\)"
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionTablesAtLeast32,
        r"is d_head // 2, the width of half a head .*made for another head width \(32 features",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_top_k_last_row),
        r"(?s)probability tensor contains.*some row lost every token.*one threshold applied",
    ),
    Mistake(
        check_GPT,
        GptCachedEmbeddingsLength,
        r"right on a fresh model but not when the same model was called first on a shorter",
    ),
    # ... while frequencies scaled by one factor at every length are not told the positions
    Mistake(
        check_rotary_embedding,
        _rope_frequencies(
            lambda d, base: 1.5 * base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        ),
        r"(?s)^(?!.*positions are (right|wrong)).*Either the positions are scaled by 1\.5, "
        r"or every frequency is multiplied by it",
    ),
    Mistake(check_next_token_batches, _batches(shift=0), r"targets are the inputs themselves"),
    # the rows' starts evenly spaced (blind21c-batches-one-offset-consecutive-windows was
    # told its windows ran past the end) and windows batch_size long (blind12i-ntb-window-
    # length-batch-size: a raw IndexError)
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_evenly_spaced("shifted")),
        r"not independent random windows.*one token apart.*from one random offset",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_evenly_spaced("fixed")),
        r"not independent random windows.*consecutive windows.*same first start 0",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_windows_sliced_batch_size_long),
        r"windows are batch_size tokens long, not block_size",
    ),
    # blind round 11 (b11b): "targets[0] should be tokens[s + 1 : ...]" alone; each way of
    # building the targets from the inputs predicts every column, named when one agrees
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_targets_from_inputs("roll")),
        r"right but the last of each row, which wraps round to the window's own first token",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_targets_from_inputs("repeat")),
        r"right but the last of each row, which repeats the last input",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_targets_from_inputs("pad")),
        r"right but the last of each row, which is not a token of the stream",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_targets_from_inputs("second")),
        r"a window of the stream, but \d+ of \d+ start elsewhere.*drawn separately",
    ),
    # blind round 10 (b10b): PyTorch's raw TypeError alone before
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_generator_by_position),
        r"(?s)TypeError.*generator went in by position.*generator=generator",
    ),
    Mistake(check_SwiGLU, FfnValueFromW1, r"value is w1\(x\), not w3\(x\)"),
    Mistake(check_SwiGLU, FfnOtherActivation, r"Your gate is F\.selu, not the SiLU"),
    # the gate's activation left out or another of the sigmoid family (blind21c-swiglu-no-
    # activation-bilinear and blind12i-swiglu-quick-gelu-gate were pointed, "differs")
    Mistake(check_SwiGLU, FfnGateSwishBetaTwo, r"Your gate is z \* sigmoid\(2 \* z\)"),
    # blind26c-swiglu-swish-random-beta: a slope of no known activation (differences alone)
    Mistake(
        check_SwiGLU,
        FfnGateSwishOddSlope,
        r"your gate is Swish with a slope beta = 0\.37, not SiLU",
    ),
    Mistake(check_SwiGLU, FfnGateGeluTanh, r"Your gate is GELU's tanh approximation"),
    # the family "the factor of z * h(z) in z's place" (blind30c-swiglu-sigmoid-in-place-on-
    # gate: "largest difference" before); the sibling, silu in place times z, keeps its own
    Mistake(
        check_SwiGLU,
        FfnGateMulInPlace,
        r"f\(z\) = sigmoid\(z\) \* sigmoid\(z\) = sigmoid\(z\) \*\* 2: .*in-place call on z",
    ),
    Mistake(check_SwiGLU, FfnSiluInPlaceTimesZ, r"f\(z\) = F\.silu\(z\) \*\* 2(?!.*in-place)"),
    # the family "a gate normalised across the hidden units" (blind30c-swiglu-softmax-gate:
    # "largest difference" before); the sibling, divided by its L2 norm, says so
    Mistake(
        check_SwiGLU,
        FfnGateSoftmaxByHand,
        r"torch\.exp\(z\) of z = w1\(x\), divided by its sum over the features \(a softmax",
    ),
    Mistake(
        check_SwiGLU,
        FfnGateUnitNorm,
        r"F\.silu\(z\) = z \* sigmoid\(z\) of z = w1\(x\), divided by its L2 norm(?!.*softmax)",
    ),
    Mistake(
        check_SwiGLU,
        FfnHiddenLayerReturned,
        r"d_ff = \d+ features, not d_model.*w1\(x\) \* w3\(x\), with no activation either, and "
        r"w2 is never applied",
    ),
    Mistake(check_SwiGLU, FfnProjectionsMultipliedRaw, r"Your gate has no activation.*bilinear"),
    Mistake(check_SwiGLU, FfnMish, r"Your gate is F\.mish, not the SiLU"),
    Mistake(
        check_SwiGLU,
        FfnSiluClass,
        r"(?s)TypeError.*An nn\.SiLU module arrived where a tensor.*F\.silu\(h\)(?!.*relu)",
    ),
    Mistake(
        check_SwiGLU,
        FfnGeluClass,
        r"(?s)TypeError.*An nn\.GELU module arrived where a tensor.*F\.gelu\(h\)(?!.*relu)",
    ),
    Mistake(check_SwiGLU, FfnSiluClassRight, r"(?s)TypeError.*An nn\.SiLU module arrived where a"),
    # blind round 10 (b10b): "should have shape (400, 4), but it has shape (8, 4)" alone
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_without_replacement),
        r"exactly the number of possible starts .* drawn at most once",
    ),
    Mistake(check_next_token_batches, _batches(step=-1), r"window runs backwards .* subtracted"),
    Mistake(check_next_token_batches, _batches(step=2), r"window steps by 2 positions, not 1"),
    Mistake(
        check_next_token_batches,
        _batches(shift=-1),
        r"generator\): Your targets are shifted the wrong way \(the token before",
    ),
    # round 34: the pair in the other order, named from the values where the contract's
    # draw tells it from a shift (checking.returned_order), both said where it cannot
    Mistake(
        check_next_token_batches,
        _batches_after_another_draw("coin"),
        r"contract's draw moved on by 1 number: 1 number of the generator's stream went to "
        r"another draw first",
    ),
    Mistake(
        check_next_token_batches,
        _batches_after_another_draw("rand"),
        r"contract's draw moved on by 3 numbers",
    ),
    Mistake(
        check_next_token_batches,
        _batches_pair_reversed("contract"),
        r"^(?![\s\S]*shifted the wrong way)[\s\S]*returns \(targets, inputs\): each is exactly "
        r"right, but they come in the wrong order",
    ),
    # round 37: the same swap cut from one window, told what it teaches a model
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_windows_read_backwards),
        r"returns \(targets, inputs\).*your targets are the tokens one place before the "
        r"inputs, so a model trained on them learns to predict the previous token",
    ),
    Mistake(
        check_next_token_batches,
        _batches_pair_reversed("scaled"),
        r"Either the targets are shifted the wrong way .*or the pair comes back in the other "
        r"order, \(targets, inputs\)",
    ),
    Mistake(check_next_token_batches, _batches(high_minus=1), r"last valid start"),
    # blind round 9 (b9b): both were "targets[0] should be tokens[s + 1 : ...]"
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_ids_plus_one),
        r"target is its input's token id plus one .*belongs to the positions",
    ),
    Mistake(
        check_next_token_batches,
        _batches(shift=2, high_minus=1),
        r"targets are 2 tokens ahead .*1 too far.* Also, no window starts at the last valid",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_shift_inside),
        r"one position short: windows of block_size tokens shifted inside the window",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_starts_only),
        r"Each window holds one token: the positions are the starts alone",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_from_one),
        r"start 0 never occurs in many draws: are the starts drawn from 1",
    ),
    Mistake(
        check_next_token_batches,
        _batches_tuples_of_windows,
        r"inputs should be a Tensor, but it is a tuple\. It is a Python tuple of \d+ windows",
    ),
    Mistake(
        check_next_token_batches,
        _batches_whole_stream,
        r"(?s)IndexError.*a window or its targets reach beyond the last token",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_top_k_clamped_to_rows),
        r"Yours does clamp, but to the number of rows: .*min\(top_k, logits\.shape\[0\]\)",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_greedy_for_int_only),
        r"With temperature=0, the int, yours returns the argmax, but with 0\.0 it divides",
    ),
    Mistake(check_sample, _sample_softmax_over_batch, r"softmax over the wrong axis \(dim=0"),
    # round 28: Gumbel-max draws with the wrong noise, or the noise on the probabilities
    # (blind25c-sample-exponential-noise-not-gumbel, -gumbel-noise-on-probabilities)
    Mistake(check_sample, _sample_smoothed, r"(?s)No filter is given here(?!.*noise)"),
    Mistake(check_sample, _sample_gumbel_max_uniform_noise, r"noise u itself \(uniform noise"),
    Mistake(
        check_sample, _sample_probs_times_uniform, r"noise log\(u\) \(the argmax of probs \* u"
    ),
    Mistake(
        check_sample,
        _sample_exponential_noise_on_probs,
        r"argmax\(probs \+ noise\) with the noise -log\(u\)",
    ),
    # round 23: one-number greedy readings told apart on a probe (blind20c-sample-slices-
    # last-position was told "the argmax of the flattened logits"), and top-p replaced by a
    # threshold on each token's probability (blind20c-sample-top-p-as-min-p was given an
    # edit, cumsum + probs, that fitted every input)
    Mistake(
        check_sample,
        _named("sample", _sample_top_k_over_batch),
        r"top-k has no effect: .*cannot tell which of two causes: its result is discarded.*"
        r"or its threshold is taken across the batch axis \(torch\.topk\(logits, k, dim=0\)",
    ),
    Mistake(
        check_sample,
        _sample_greedy_index_pair("max"),
        r"it is a max\. It is the \(values, indices\) pair that torch's max\(\.\.\., dim\) "
        r"returns.*\.indices",
    ),
    Mistake(
        check_sample,
        _sample_greedy_index_pair("topk"),
        r"it is a topk\. It is the \(values, indices\) pair that torch's topk",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_greedy_last_row_only),
        r"It is the last row's token alone",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_top_p_absolute_threshold),
        r"own probability is at least 1 - top_p: a threshold",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_top_p_min_p_on_logits),
        r"that is min-p, a threshold relative to the top token",
    ),
    # blind19d: the two sizes in each other's places got a raw error and a guessed edit
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_sizes_crossed_in_body),
        r"With block_size and batch_size exchanged, next_token_batches\(tokens \(\d+,\), .*"
        r"your function gives the right result.*it uses block_size where batch_size belongs",
    ),
    # blind19d, blind12i, blind16b: ids counting up, sorted starts and one stacked tensor
    # were told "not consecutive", "not the contract's draw" and "not a tuple" alone
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_ids_counting_up),
        r"its values are consecutive integers, .* the offsets torch\.arange\(block_size\) "
        r"were added to the token ids instead of to the start positions",
    ),
    # blind26c-ntb-windows-wrap-around-stream: a ring read was told "not consecutive" alone
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_negative_index_ring),
        r"wraps? round to (its|the stream.s) first token.*read as circular",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_starts_sorted_descending),
        r"the same starts as the contract's draw, sorted in decreasing order",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_as_floats),
        r"should be int64 token ids, not torch\.float32\.$",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_one_stacked_tensor),
        r"It is one tensor of shape \(2, \d+, \d+\): the inputs and the targets stacked",
    ),
    # the shapes alone before (blind6d-batches-time-major)
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_time_major),
        r"transpose of what is asked, \(block_size, batch_size\), time-major",
    ),
    # accepted before: no top_k beyond the vocabulary (blind6d-sample-top-k-beyond-vocab)
    Mistake(
        check_sample,
        _named("sample", _sample_top_k_unclamped),
        r"top_k=\d+ is larger than the vocabulary .*min\(top_k, logits\.shape\[-1\]\)",
    ),
    Mistake(check_next_token_batches, _batches(global_stream=True), r"the generator you were"),
    # round 28: a reshape that regroups the windows (blind25c-ntb-time-major-positions-
    # reshaped was told "not consecutive ones" alone)
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_reshaped_then_transposed),
        r"mixes positions of several windows.*reshaped \(or viewed\) from \(batch_size",
    ),
    Mistake(check_RMSNorm, NormMean, r"mean of x, not of x squared"),
    # round 34: the mean absolute value in the family of statistics under roots
    Mistake(
        check_RMSNorm,
        NormRootOfMeanAbsolute,
        r"number is the mean absolute value, mean\(\|x\|\) under one square root: the "
        r"statistic averages the absolute values",
    ),
    Mistake(
        check_RMSNorm,
        NormFourthRootOfMeanAbsolute,
        r"mean absolute value, mean\(\|x\|\) under two square roots.*absolute values.*; and "
        r"the square root is taken 2 times",
    ),
    Mistake(
        check_RMSNorm,
        NormOverBatch,
        r"^(?![\s\S]*largest difference)[\s\S]*wrong axis: your mean of the squares runs over "
        r"the first axis \(dim=0, the batch",
    ),
    # round 34: statistics that agree on these tokens are said together, none as the cause
    Mistake(
        check_RMSNorm,
        NormEpsAddedToInput,
        r"^(?![\s\S]*floored)[\s\S]*root mean square without eps.*; or the root mean square "
        r"of x \+ eps, sqrt\(mean\(\(x \+ eps\) \*\* 2\)\).*cannot tell which",
    ),
    # told only "largest difference" before (blind round 3's rms-sqrt-missing)
    Mistake(check_RMSNorm, NormNeverCastsBack, r"returned torch\.float32 for a float64 input"),
    Mistake(check_RMSNorm, NormUnitOffset, r"multiplied by 1 \+ self\.weight"),
    Mistake(check_RMSNorm, NormFixedEps, r"eps=1e-06, although the second was given eps=1e-5"),
    Mistake(check_RMSNorm, NormWrongDefaultEps, r"Your default eps is 1e-06, not 1e-5"),
    # "largest difference" before (blind8b-rms-gain-before-norm)
    Mistake(check_RMSNorm, NormGainFirst, r"multiplied x by the gain before taking the root"),
    Mistake(check_RMSNorm, NormEpsOutside, r"eps outside the square root"),
    Mistake(check_RMSNorm, NormEpsSubtracted, r"subtracted eps under the square root"),
    Mistake(check_RMSNorm, NormDividesByGain, r"divided by the learned gain self\.weight"),
    # told only that NaN comes from a root, a log, 0 / 0 ... before
    Mistake(check_RMSNorm, NormCubes, r"NaN on the tokens .*exactly those where .*x \*\* 3"),
    # round 23: the axes named (blind18d-rms-mean-over-sequence got "the wrong axis" alone)
    Mistake(
        check_RMSNorm, NormWrongAxis, r"wrong axis: your mean of the squares runs over the pos"
    ),
    Mistake(check_RMSNorm, NormSubtractsMean, r"subtracted the mean"),
    Mistake(
        check_RMSNorm,
        NormCentredNumerator,
        r"subtracted the mean from x, although the root mean square is taken of x itself",
    ),
    Mistake(check_RMSNorm, NormDividesByRsqrt, r"multiplied by the root mean square instead"),
    Mistake(check_RMSNorm, NormOverSequenceAndFeatures, r"wrong axis: .*over the last two axes"),
    Mistake(
        check_RMSNorm,
        NormSumAndEpsOutside,
        r"(?s)Two mistakes at once\. \(1\) You used the sum of the squares.*\(2\) You added "
        r"eps outside",
    ),
    Mistake(
        check_RMSNorm, NormNoSquareRoot, r"mean of the squares itself, without its square root"
    ),
    Mistake(check_RMSNorm, NormWithoutKeepdim, r"(?s)must match.*without keepdim=True"),
    Mistake(check_RMSNorm, NormNoGain, r"cut off from the module.s parameters"),
    Mistake(check_RMSNorm, NormDefaultEps, r"default eps is 1e-06, not 1e-5"),
    # b12b: the default's value said ("not 1e-5" alone before), another wrong default
    Mistake(check_RMSNorm, NormDefaultEpsTiny, r"default eps is 1e-08, not 1e-5 .*eps=1e-08"),
    # the shapes alone before (blind6d-swiglu-w2-wrong-shape)
    Mistake(
        check_SwiGLU,
        FfnW2Transposed,
        r"w2 must be nn\.Linear\((\d+), (\d+)\); yours is nn\.Linear\(\2, \1\)",
    ),
    # accepted with a note before, although the contract says float32
    # (blind6d-rope-returns-float64)
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_float64),
        r"cos has dtype float64, but the contract asks for float32",
    ),
    # accepted before: no half-precision input (blind6d-rotary-upcasts-half)
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotate_half_promoted),
        r"returned float32: the result keeps x's dtype.*cos\.to\(x\.dtype\)",
    ),
    # blind round 9 (b9b): was told that cos and sin were not cast, which this code does not need
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotate_complex_upcast),
        r"(?s)^(?!.*x times them is promoted).*(works in float32 itself|Cast the result back)"
        r".*\.to\(x\.dtype\)",
    ),
    # was "... so the submodules must be called exactly so", although it was called weight
    # (blind6d-rms-weight-plain-tensor)
    Mistake(check_RMSNorm, NormPlainTensorGain, r"plain tensor, not an nn\.Parameter"),
    # was told about a bias that RMSNorm does not have (blind6d-rms-gain-named-gamma)
    Mistake(
        check_RMSNorm,
        NormGainNamedGamma,
        r"unexpected: \['gamma'\].*gain is called `weight` here \(nn\.RMSNorm's name\), and "
        r"there is no bias",
    ),
    # blind19f: a Llama-style rounded hidden width was told the width alone
    Mistake(
        check_SwiGLU,
        FfnWidthRoundedUp,
        r"That is a width rounded up to a multiple of multiple_of \(Llama's\): .*of 16 from "
        r"[^;]*\bd_ff\b",
    ),
    Mistake(check_RMSNorm, NormTorch, r"(?s)calls torch\.nn\.RMSNorm.*grader scores it 0"),
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_shaped_to_broadcast),
        r"has shape \(1, 1, \d+, \d+\)\. That is the expected shape with 2 extra axes of "
        r"length 1 \(at positions 0, 1",
    ),
    Mistake(check_rotary_embedding, _rope(first=1), r"positions start at 1"),
    # round 35 (blind29c-rope-tables-halves-of-interleaved-sinusoid's family, told "cos ** 2
    # + sin ** 2 is 0"): the right sines and cosines cut wrongly from one wider table
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_even_odd_of_rotate_half_table),
        r"one of the right functions.*not in its place: your tables are the two pieces of a "
        r"table of all the cosines, then all the sines .*even and odd columns.*your cos table "
        r"is its even columns \(cos\(m·theta_0\), (cos\(m·theta_2|sin\(m·theta_0)\)",
    ),
    # and with no one table to cut them from: each column said
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_cos_table_interleaved),
        r"not in its place: your cos table's column 0 is cos\(m·theta_0\), column 1 is "
        r"sin\(m·theta_0\).*your sin table is right",
    ),
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_sines_twice),
        r"cos and sin tables are equal, entry for entry: both hold the sines",
    ),
    # cos and sin of different angles (blind21c-rope-sines-from-odd-exponents: "differs")
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_sines_from_every_exponent),
        r"not the cosine and sine of one angle: cos \*\* 2 \+ sin \*\* 2 is .*your sines "
        r"with e = \[0, 1[,\]]",
    ),
    # blind19d: a half computed from the other half already rotated got "differs" alone
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotate_with_reassigned_half),
        r"Your second half is computed from the first half already rotated.*Either the name "
        r"was reassigned before the other half used it",
    ),
    # blind round 10 (b10b): "largest difference" alone before; the pairs' angles now
    Mistake(
        check_rotary_embedding,
        _rope_frequencies(lambda d, base: base ** -torch.arange(0, d, 2).double() / d),
        r"positions are right .* not your frequencies: pair 0 is the first wrong",
    ),
    Mistake(
        check_rotary_embedding,
        _rope_frequencies(lambda d, base: base ** -((2 * torch.arange(d // 2)) // d).double()),
        r"pair 1 is the first wrong .* Every pair of yours turns by the same angle",
    ),
    # blind19d: a power of the base on its own in float32, then the root: past float32's
    # range from one pair on (here base ** -2i underflowing to 0, where blind19d's base **
    # 2i overflowed to inf), so those pairs never turn (passed the visible check before)
    Mistake(
        check_rotary_embedding,
        _rope_frequencies(
            lambda d, base: (
                (base ** -torch.arange(0, d, 2, dtype=torch.float32)) ** (1 / d)
            ).double()
        ),
        r"Pairs 6 to 1\d never rotate: their angle per position is exactly 0.*left float32's "
        r"range.*underflows to 0",
    ),
    # blind19f: the base argument never reaching the formula (here a helper called without
    # it) was told "ignores its base argument" without what the tables are instead
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", lambda length, d_head, base=10000.0: _rope()(length, d_head)),
        r"ignores the base argument: its tables are those of the default base, 10000",
    ),
    Mistake(check_rotary_embedding, _rope(exponent=1), r"base \*\* \(-i / d_head\)"),
    Mistake(
        check_rotary_embedding,
        _rope(first=1, exponent=1),
        r"Two mistakes at once\. \(1\) Your positions start at 1.* \(2\) .*base \*\* \(-i / d_head\)",
    ),
    Mistake(check_rotary_embedding, _rope(sign=-1), r"grow with i"),
    Mistake(check_rotary_embedding, _rope(swap=True), r"returned \(sin, cos\)"),
    # round 28: the formula given another width than d_head (blind25c-rope-frequencies-for-
    # half-the-head, d_head // 2, was told the shape alone)
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_for_twice_the_head),
        r"given 2 \* d_head \(\d+\) where d_head belongs, so it makes too many",
    ),
    # blind16b: a cache keyed by the length alone passed every check (each call its own length)
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_memo_without_base()),
        r"returned the very tables of an earlier call.* a key that leaves out base\b",
    ),
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_in_half_precision),
        r"Your angles are computed in float16: the frequencies, the positions",
    ),
    # b13b: the exponent doubled (told only "not your frequencies" with their values)
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_position_as_power),
        r"Your angles are theta_i \*\* m, each frequency raised to the power of the position",
    ),
    # round 21: the exponents' end included (told "1 more columns" alone)
    Mistake(
        check_rotary_embedding,
        _rope_frequencies(
            lambda d, base: base ** -(torch.linspace(0, d, d // 2 + 1, dtype=torch.float64) / d)
        ),
        r"one frequency too many, d_head // 2 \+ 1: the pair indices ran up to d_head inclusive",
    ),
    Mistake(
        check_rotary_embedding,
        _rope_theta(lambda i, d, base: (1.0 / base) ** (4 * i / d)),
        r"That is base \*\* 2: the exponent is doubled, theta_i = base \*\* \(-4i / d_head\)",
    ),
    # told "largest difference at index ..." before
    Mistake(
        check_rotary_embedding,
        _rope_theta(lambda i, d, base: base ** (-(2 * i + 1) / d)),
        r"exponents are -\(2i \+ 1\) / d_head, shifted by one",
    ),
    Mistake(
        check_rotary_embedding,
        _rope_theta(lambda i, d, base: base ** (-2 * i * d)),
        # its angles past pair 0 are all below the tolerance: the single edit names it, or
        # (where no edit of the reference writes it so) it is one of the two slips named
        r"multiplied by d_head where the formula divides|multiplies where it should divide: "
        r"`-torch\.arange\(…\) \* d_head`|Two slips give exactly this: .* or the "
        r"exponent multiplied by d_head where it divides",
    ),
    Mistake(
        check_rotary_embedding,
        _rope_theta(lambda i, d, base: base * (-2 * i / d)),
        r"multiplied base by the exponent",
    ),
    # blind23c: a scaling of the slow frequencies alone (here NTK-like, the last two pairs
    # divided by 4) was told of a lost minus and missing parentheses, which its angles
    # contradict: only the slips that fit are named, else what is observed
    Mistake(
        check_rotary_embedding,
        _rope_theta(lambda i, d, base: base ** (-2 * i / d) / torch.where(i >= d // 4, 4.0, 1.0)),
        r"(?s)^(?!.*lost minus)(?!.*parentheses missing).*Only the slowest pairs are wrong "
        r"\(pairs? \d.*(is|are) right\), and they turn slower than theta_i \(pair \d: 0\.25 "
        r"times",
    ),
    # m / theta_i gives the same table as a lost minus: both are named
    Mistake(
        check_rotary_embedding,
        _rope_theta(lambda i, d, base: 1 / base ** (-2 * i / d)),
        r"minus is missing, or the positions are divided by theta_i instead of multiplied",
    ),
    Mistake(check_apply_rotary, _rotate(direction=-1), r"wrong way"),
    # blind round 10 (b10b): the shapes alone, and a raw IndexError, before
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotate_tables_unsqueezed),
        r"cos and sin were given an extra axis \(cos\[:, None, :\]",  # x (len, d) or 4-D
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotate_four_axes),
        r"(?s)IndexError.*any number of leading axes.*x\[\.\.\., :half\]",
    ),
    Mistake(check_apply_rotary, _rotate(mixed=True), r"pairing is mixed"),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_tables_cut_to_heads),
        r"and \d = x\.shape\[1\]: on the positions' axis .*cos\[: x\.shape\[1\]\]",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", torch.no_grad()(_rotate())),
        r"does not require grad: your code cuts x from autograd",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_second_half_detached),
        r"No gradient reaches x's features \[4, 5, 6, 7\] .*cut from autograd",
    ),
    Mistake(check_apply_rotary, _rotate(not_rotated=True), r"rather than a rotation"),
    # told only the shapes or PyTorch's raw size clash before
    Mistake(
        check_apply_rotary,
        _rotate(join=(torch.cat, -2)),
        r"two rotated halves .* joined along axis -2 \(len\), with the right values",
    ),
    Mistake(check_apply_rotary, _rotate(join=(torch.stack, -3)), r"extra axis of size 2"),
    # blind16b: the shape alone before
    Mistake(
        check_apply_rotary,
        _rotate(join=(torch.stack, -1)),
        r"extra trailing axis of size 2.*two rotated halves stacked on a new last axis",
    ),
    # round 23: partners read from the outputs with cos = 0, sin = 1 (blind20c-rot-partner-
    # from-flipped-features got "differs from the reference")
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotate_partner_rolled_by_one),
        r"wrong partner.*input features \[\d+, 0, 1, 2, 3, 4, 5, 6",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotate_adjacent_unflattened),
        r"extra trailing axis of size 2.*neighbouring pair.*values are right: flatten",
    ),
    Mistake(
        check_apply_rotary,
        _rotate(split_axis=-2),
        r"(?s)halves of x has \d+ features .* split point must be x\.shape\[-1\] // 2",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _adjacent_written_as_halves),
        r"rotate neighbouring features \(2i, 2i \+ 1\) as pairs but write the results back as halves",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _adjacent_with_halves_table),
        r"neighbouring pairs \(2i, 2i \+ 1\) with the halves' angle table",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _halves_swapped),
        r"two rotated halves back in the wrong order",
    ),
    # round 30: the halves sliced from the wrong features ("differs from the reference")
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotate_first_half_strided),
        r"reads its halves from the wrong features.*first half of the result \(features 0 "
        r"\.\. \d+\) copies input features \[0, 2, 4",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotate_second_half_one_early),
        r"reads its halves from the wrong features.*second half of the result .* copies "
        r"input features \[1, 2, 3, .*are read twice and \[[\d, ]+\] never",
    ),
    Mistake(check_SwiGLU, FfnSwapped, r"gate and value are swapped"),
    # round 30: a layer run once per branch ("differs from the reference" before)
    Mistake(
        check_SwiGLU,
        FfnOutputPerBranch,
        r"`self\.w2` runs 2 times in one forward, on silu\(w1\(x\)\) and on w3\(x\)",
    ),
    # blind16b: right when num_heads == num_layers (the visible case); a block count alone
    Mistake(
        check_GPT,
        GptHeadsAndLayersExchanged,
        r"number of blocks is num_heads, not num_layers, so num_heads and num_layers are swapped",
    ),
    # blind16b: a projection reading another's d_ff output got only the transpose note
    Mistake(
        check_SwiGLU,
        FfnGateThroughW1,
        r"(?s)was given \d+ = d_ff features.*exactly what this gives: w1 reads the value w3\(x\) "
        r"instead of x: silu\(w1\(w3\(x\)\)\) \* w3\(x\)",
    ),
    Mistake(check_SwiGLU, FfnTwoThirds, r"not to d_ff = \d+\. That is int\(2 \* d_ff / 3\)"),
    # round 23: a hidden width related to d_ff in another way, named with the relation
    # (blind20c-swiglu-d-ff-split-between-gate-and-value got "6 features, not d_ff" alone)
    Mistake(
        check_SwiGLU,
        FfnFusedWidthPerProjection,
        r"Your hidden width is 2 \* d_ff = \d+: the width of a fused projection",
    ),
    Mistake(check_SwiGLU, FfnReLU, r"used ReLU"),
    # round 34: an activation after the last projection (checking.extra_steps)
    Mistake(
        check_SwiGLU,
        FfnOutputActivated,
        r"Your result is passed through F\.silu after `self\.w2`: SwiGLU ends with self\.w2, "
        r"with no activation after it\. Return",
    ),
    Mistake(
        check_SwiGLU,
        FfnActivationMovedToOutput,
        r"passed through F\.relu after `self\.w2`.*the gate has no activation of its own.*"
        r"moved from the gate to the output",
    ),
    # round 34: layers of the contract fused into one (checking.fused_keys)
    Mistake(
        check_SwiGLU,
        FfnFusedGateValue,
        r"w13\.weight has shape \(\d+, \d+\): the weights of `w1` and `w3` stacked into one layer",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionFusedProjection,
        r"c_attn\.weight has shape \(\d+, \d+\): the weights of `w_q`, `w_k` and `w_v` stacked",
    ),
    # was told "the submodules must be called exactly so", though their names were right
    Mistake(check_SwiGLU, FfnWithBias, r"has biases its contract leaves out.*bias=False"),
    # blind round 10 (b10b): "largest difference" alone before
    Mistake(check_SwiGLU, FfnSigmoidOfMinus, r"z \* sigmoid\(-z\).*sign inside the exp"),
    # blind round 10 (b10b): accepted before (the values are compared in eval mode)
    Mistake(check_SwiGLU, FfnFunctionalDropout, r"train mode .*two different outputs.*F\.dropout"),
    # blind round 10 (b10b): "largest difference" alone before (generic)
    Mistake(check_RMSNorm, NormStd, r"divided x by its standard deviation"),
    # blind round 10 (b10b): accepted before (the value checks load their own gains)
    Mistake(check_RMSNorm, NormZeroGain, r"weight starts at zeros.*torch\.ones\(d_model\)"),
    Mistake(check_SwiGLU, FfnGELU, r"used GELU"),
    Mistake(check_SwiGLU, FfnNoGate, r"no gate: your result is w2\(silu\(w1\(x\)\)\), a plain"),
    # blind round 13 (b13b): a layer in the product, not its output; w2 and w3 exchanged
    Mistake(
        check_SwiGLU, FfnValueLayerUncalled, r"self\.w3 is the nn\.Linear module, self\.w3\(x\)"
    ),
    Mistake(check_SwiGLU, FfnOutputNamedW3, r"the names w2 and w3 are swapped"),
    Mistake(check_SwiGLU, FfnSiluAfter, r"SiLU after the product"),
    Mistake(check_SwiGLU, FfnDivided, r"divided the gate by the value"),
    # round 28: an activation on the value branch too (blind25c-swiglu-silu-on-both-branches)
    Mistake(check_SwiGLU, FfnReluBothBranches, r"relu\(w1\(x\)\) \* relu\(w3\(x\)\): both"),
    Mistake(check_SwiGLU, FfnTanhValue, r"value through tanh.*enters the product\s+linearly"),
    # b15b: the probe at d_ff = d_model names it alone (two candidates before)
    Mistake(
        check_SwiGLU,
        FfnGateTimesInput,
        r"nothing clashes, .*value is x itself, not its projection: silu\(w1\(x\)\) \* x",
    ),
    Mistake(check_SwiGLU, FfnW2First, r"sizes \d+ and \d+ are d_model and d_ff.*w2 applied"),
    # blind19f: the rotation's results discarded was told only "no rotary embedding"
    Mistake(
        check_CausalSelfAttention,
        AttentionNoRope,
        r"no rotary embedding: its queries and keys are never rotated\. Either apply_rotary is "
        r"never called, or its results are not assigned",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionOwnSublayerBlock,
        r"Yours is LayerNorm\(`x` \+ the right output\): a whole sub-layer block .*the "
        r"DecoderBlock that uses it",
    ),
    # blind round 10 (b10b): "largest difference" alone before
    Mistake(
        check_CausalSelfAttention,
        AttentionScoresTimesMask,
        r"blocked scores became 0 .*scores multiplied by the mask",
    ),
    # blind round 10 (b10b): PyTorch's size clash and the generic broadcast hint before
    Mistake(
        check_CausalSelfAttention,
        AttentionMaskForMaxLength,
        r"64 is no size of this input.*a table made for a fixed number of positions",
    ),
    # a raw size clash and a guess about d_model before
    Mistake(
        check_CausalSelfAttention,
        AttentionLengthFromFeatures,
        r"is x\.shape\[2\] \(d_model\), so the length given to rotary_embedding",
    ),
    Mistake(check_CausalSelfAttention, AttentionRotatesValues, r"rotated the values too"),
    # slips in the scores (blind21c-attention-unit-length-queries-and-keys and blind12i-
    # csa-sdpa-float-mask got "differs from the reference")
    Mistake(
        check_CausalSelfAttention,
        AttentionUnitProjectionsBeforeRotation,
        r"queries and keys are normalised to unit length",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionMaskAddedByHand,
        r"look-ahead mask is added to the scores as numbers",
    ),
    Mistake(check_CausalSelfAttention, AttentionRotatesBeforeSplit, r"before splitting"),
    Mistake(check_CausalSelfAttention, AttentionNotCausal, r"not causal"),
    Mistake(
        check_CausalSelfAttention, AttentionKeysNotRotated, r"rotated the queries but not the keys"
    ),
    Mistake(
        check_CausalSelfAttention, AttentionNoOutputProjection, r"without the output projection"
    ),
    Mistake(check_CausalSelfAttention, AttentionUnscaled, r"not divided by sqrt\(d_head\)"),
    # passed every visible and hidden case (all at the default base) before they had one
    Mistake(check_CausalSelfAttention, AttentionIgnoresBase, r"ignores the base"),
    # round 23: the width of cos on the failing line tells tables for d_model from
    # rotation before split_heads (blind16b-csa-rope-tables-for-d-model was asked)
    Mistake(
        check_CausalSelfAttention,
        AttentionHeadTablesBeforeSplit,
        r"d_head // 2 columns, right for one head.*rotated while still d_model wide",
    ),
    # round 23: RoPE on the input before the projections (blind20c-csa-rope-on-input-
    # before-projections got "differs from the reference")
    Mistake(
        check_CausalSelfAttention,
        AttentionRopeOnInputForQueriesKeys,
        r"rotates the layer's input x .* for the queries and keys \(the values from x",
    ),
    # round 23: the shapes on the failing line tell rotation before the heads transpose
    # (blind19d-csa-rotates-before-heads-transposed was told "k.transpose(1, 2)")
    Mistake(
        check_CausalSelfAttention,
        AttentionRotatesUnflattenedHeads,
        r"rotated before the heads were transposed",
    ),
    # was told "are cos and sin from rotary_embedding(len, d_head) ..., not d_model?"
    Mistake(
        check_CausalSelfAttention,
        AttentionLengthFromBatch,
        # (visible: the sizes it raises on; hidden, batch 1: the broadcast tables' values)
        r"your cos and sin have \d+ rows, the batch: the length was read from the batch axis"
        r"|the length was read from the batch axis \(x\.shape\[0\], 1 here\)",
    ),
    # "largest difference" before: the weights' shapes do not show the head count
    Mistake(check_DecoderBlock, BlockHeadsFromWidth, r"attention has num_heads=\d+, but the block"),
    # "largest difference at index ..." before (blind8b-csa-triu-mask-inverted)
    Mistake(check_CausalSelfAttention, AttentionTriuMask, r"Your mask is the wrong way round"),
    # "largest difference at index ..." before (blind6d-csa-heads-view-no-transpose)
    Mistake(check_CausalSelfAttention, AttentionSplitByView, r"heads were split with one view"),
    Mistake(
        check_CausalSelfAttention,
        AttentionSplitAndMergeByView,
        r"heads were split \(and merged back\) with one view",
    ),
    # round 34: a pair used as one tensor (checking.hints)
    Mistake(
        check_CausalSelfAttention,
        AttentionPairNotUnpacked,
        r"'tuple' object has no attribute 'shape'\nA tuple arrived where a tensor belongs.*"
        r"heads, _ = scaled_dot_product_attention",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionPairNotUnpackedByHand,
        r"'tuple' object has no attribute 'transpose'\nA tuple arrived where a tensor belongs "
        r"\(it was asked for \.transpose\)",
    ),
    # round 34: the causal mask's diagonal moved (checking.mask_relations.moved_diagonals)
    Mistake(
        check_CausalSelfAttention,
        AttentionMaskDiagonalMoved,
        r"causal mask's triangle is cut at the wrong diagonal: it is torch\.tril\(\.\.\., "
        r"diagonal=1\) \(j <= i \+ 1\)[\s\S]*each query also sees the next key",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionMaskTwoBelow,
        r"causal mask's triangle is cut at the wrong diagonal: it is torch\.tril\(\.\.\., "
        r"diagonal=-2\) \(j <= i - 2\)[\s\S]*hidden from itself and from the 1 key\(s\)",
    ),
    # round 34: the scores scaled by another power of a size (checking.score_scales)
    Mistake(
        check_CausalSelfAttention,
        AttentionScoresScaled,
        r"scores are multiplied by sqrt\(d_head\) = 2\.828 \(d_head = 8\), not by 1 / "
        r"sqrt\(d_head\): the scores multiplied by sqrt\(d_head\) where they are divided",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionScoresOverDModel,
        r"scores are multiplied by 1 / d_model = [\d.]+ \(d_model = \d+\).*divided by d_model "
        r"itself, not its square root",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionScoresOverFourthRoot,
        r"multiplied by 1 / d_head \*\* 0\.25 = [\d.]+ .*a square root taken twice",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionDividedByDHead,
        r"divided the scores by d_head instead of sqrt\(d_head\)",
    ),
    Mistake(check_apply_rotary, _rotary_no_minus, r"no minus sign"),
    Mistake(
        check_CausalSelfAttention,
        AttentionValuesFromWk,
        r"values are projected with w_k, not w_v .*w_v is never used",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionMergesWeights,
        r"num_heads x len features .*attention weights rather than the heads' outputs",
    ),
    Mistake(
        check_apply_rotary,
        _rotary_divides_by_cos,
        r"first output \(a \* cos - b \* sin\), the a \* cos term divides by cos instead",
    ),
    Mistake(
        check_apply_rotary,
        _rotary_adjacent_no_b_cos,
        r"pairs as neighbouring pairs\): in the second output .*the b \* cos term is missing",
    ),
    Mistake(
        check_apply_rotary,
        _rotary_wrong_way_for_4d_only,
        r"(?s)^(?!.*wrong way).*apply_rotary\(x \(\d, \d, \d, \d+\).*differs from the reference",
    ),
    Mistake(
        check_rotary_embedding,
        _rope_one_indexed_when_long,
        r"(?s)^(?!.*Your positions start at 1).*(differs from the reference|shifted by one)",
    ),
    Mistake(check_CausalSelfAttention, AttentionSdpa, r"calls .*scaled_dot_product_attention"),
    Mistake(check_DecoderBlock, BlockSdpa, r"calls .*scaled_dot_product_attention"),
    Mistake(check_GPT, GptSdpa, r"calls .*scaled_dot_product_attention"),
    # blind19d: a sequence-first layout into the blocks was told "does not receive" alone
    # blind26c-gpt-batch-packed-into-one-row: "layers[0] does not receive" alone before
    Mistake(
        check_GPT,
        GptBatchFlattenedIntoOneRow,
        r"layers\[0\] receives the embeddings of the ids reshaped to \(1, \d+, \d+\).*joined "
        r"end to end into one long sequence.*the rows of the batch attend to each other",
    ),
    Mistake(
        check_GPT,
        GptTimeMajorBlocks,
        r"layers\[0\] receives the embeddings of the ids with its first two axes exchanged: "
        r"a sequence-first \(time-major\) layout",
    ),
    Mistake(
        check_GPT,
        GptEmbeddingSizesSwapped,
        r"embedding\.weight has shape \(\d+, \d+\), expected \(\d+, \d+\)\. Its two arguments "
        r"are swapped: .*must be nn\.Embedding\(\d+, \d+\) \(the vocabulary size first\)",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionSdpaDropout,
        r"in eval mode, gave different results.*F\.scaled_dot_product_attention\(q, k, v, "
        r"\.\.\., dropout_p=p\)",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionFunctionalDropout,
        r"Two calls of .* in eval mode, gave different results.*F\.dropout\(h, p\), is on "
        r"whatever the mode",
    ),
    Mistake(
        check_DecoderBlock,
        BlockResidualDropout,
        r"Two calls of .* in eval mode, gave different results.*training=self\.training",
    ),
    Mistake(
        check_CausalSelfAttention,
        AttentionRotaryArgumentsSwapped,
        r"(?s)is also \(len \+ 1\) // 2: were the length and d_head arguments swapped, "
        r"rotary_embedding\(self\.d_head, len\).*another head width",
    ),
    # b12b: "d_model // num_heads, or d_ff" listed before, whichever was passed
    Mistake(
        check_DecoderBlock,
        BlockHeadsFrom,
        r"block's d_ff,? passed (to the attention )?where num_heads belongs, "
        r"CausalSelfAttention\(d_model, d_ff\)",
    ),
    Mistake(
        check_DecoderBlock,
        BlockHeadsFromDModel,
        r"block's d_model passed where num_heads belongs, CausalSelfAttention\(d_model, "
        r"d_model\)",
    ),
    Mistake(
        check_DecoderBlock,
        BlockHeadsFromDHead,
        r"block's d_model // num_heads passed where num_heads belongs, "
        r"CausalSelfAttention\(d_model, d_model // num_heads\)\. Build",
    ),
    # b12b: "not the final norm of layers[1]'s output" before, a step that is right
    Mistake(
        check_GPT,
        GptLogitsScaled,
        r"output is 0\.\d+ times, 1 / sqrt\(d_model\) = d_model \*\* -0\.5 with d_model = "
        r"\d+, what the last step gives from layers\[\d\]'s output \(which is right\)",
    ),
    Mistake(
        check_GPT,
        GptLogitsTimesRoot,
        r"output is [\d.]+ times, sqrt\(d_model\) with d_model = \d+, what the last step",
    ),
    Mistake(check_GPT, GptLogitsHalved, r"output is 0\.5 times what the last step gives"),
    Mistake(check_GPT, GptLastPosition, r"not one per position.*only the last position"),
    # blind round 13 (b13b): the shift to next-token targets inside the model
    Mistake(check_GPT, GptShiftsInside, r"len - 1 positions, the last position's logits"),
    Mistake(check_GPT, GptSkipsFirstLogits, r"len - 1 positions, the first position's logits"),
    # round 34: a sub-layer's output indexed [0] (checking.localise)
    Mistake(
        check_DecoderBlock,
        BlockAttentionFirstItem,
        r"input of `self\.norm2` is x \+ attn\(\.\.\.\)\[0\]: the output of `self\.attn` for the "
        r"batch's first sequence, added to every sequence",
    ),
    Mistake(
        check_DecoderBlock,
        BlockFeedForwardFirstItem,
        r"is h \+ feed_forward\(\.\.\.\)\[0\] \(where h = .*the batch's first sequence",
    ),
    Mistake(check_DecoderBlock, BlockPostNorm, r"post-norm"),
    Mistake(check_DecoderBlock, BlockParallel, r"parallel"),
    Mistake(check_DecoderBlock, BlockNoResidual, r"no residual"),
    Mistake(check_DecoderBlock, BlockNoAttnResidual, r"output of `self\.attn` is not added back"),
    Mistake(
        check_DecoderBlock,
        BlockOneNorm,
        r"`self\.feed_forward` sub-layer uses `self\.norm1` instead of its own `self\.norm2`",
    ),
    Mistake(
        check_DecoderBlock,
        BlockHalfFeedForward,
        # the stream after the first residual is named h and defined, never called x; the
        # sum written out (checking.localise's wrong-coefficient residual, round 11)
        r"The layer's output is h \+ 0\.5 \* feed_forward\(\.\.\.\) \(where h = x \+ "
        r"attn\(norm1\(x\)\)\): the residual sum around `self\.feed_forward` has a wrong",
    ),
    # was "The layer's output is not x + feed_forward(norm2(x))": x there meant the stream
    # (h), which reads as the block's input, the very mistake (blind8b)
    Mistake(
        check_DecoderBlock,
        BlockFeedForwardResidualFromInput,
        r"residual around `self\.feed_forward` adds the layer's input x, not h, the stream that "
        r"reaches `self\.feed_forward` \(where h = x \+ attn\(norm1\(x\)\)\).*output of "
        r"`self\.attn` is lost",
    ),
    Mistake(check_GPT, GptPlainList, r"(?s)no parameters at all under `layers`.*nn\.ModuleList"),
    Mistake(check_GPT, GptRepeatedBlock, r"`layers\.0` and `layers\.1` are one and the same"),
    Mistake(
        check_GPT,
        GptUnchained,
        r"layers\[1\] receives the embeddings of the ids, not layers\[0\]'s output",
    ),
    Mistake(
        check_GPT,
        GptNormEveryBlock,
        r"(layers\[1\] receives the final norm of layers\[0\]'s output|final norm applied "
        r"twice to layers\[0\]'s output): the final norm runs once",
    ),
    Mistake(check_DecoderBlock, BlockNotCausal, r"not causal"),
    Mistake(check_DecoderBlock, BlockDefaultEps, r"norms ignore the eps it was given"),
    # blind round 9 (b9b): "feed_forward.w1.weight has shape (64, 16), expected (16, 16)"
    Mistake(
        check_DecoderBlock,
        BlockFourTimesWidth,
        r"hidden width is \d+ = 4 \* d_model, not the d_ff = \d+ the block was given",
    ),
    # blind round 9 (b9b): "differs from the reference" before
    Mistake(
        check_DecoderBlock,
        BlockEpsAsBase,
        r"rotates with base=\S+, not RoPE's 10000: that is the block's eps",
    ),
    # blind round 10 (b10b): "has biases its contract leaves out ... nn.Linear(..., bias=False)"
    Mistake(
        check_DecoderBlock,
        BlockTorchLayerNorms,
        r"norm1, norm2 are nn\.LayerNorm .*subtracts each token's mean.*RMSNorm\(d_model, eps\)",
    ),
    # blind round 10 (b10b): hidden only before (d_ff == d_model in the visible case), and
    # told "feed_forward.w1 must be nn.Linear(24, 16); yours is nn.Linear(16, 24)"
    Mistake(
        check_DecoderBlock,
        BlockFeedForwardSizesSwapped,
        r"every weight of feed_forward has its two sizes swapped.*SwiGLU\(b, a\) for SwiGLU",
    ),
    # blind round 10 (b10b): "not the attention weights with it" for (logits, None)
    Mistake(
        check_GPT, GptWithLossSlot, r"\(Tensor, NoneType\): return the output alone \(a \(logits"
    ),
    # blind round 10 (b10b): dropouts were accepted (the values are compared in eval mode)
    Mistake(
        check_CausalSelfAttention,
        AttentionResidualDropout,
        r"train mode .*two different outputs .*dropout \(resid_dropout\): remove it",
    ),
    Mistake(check_DecoderBlock, BlockSublayerDropout, r"two different outputs .*F\.dropout"),
    Mistake(check_GPT, GptEmbeddingDropout, r"two different outputs .*dropout \(drop\)"),
    # blind round 10 (b10b): "largest difference" alone before
    Mistake(
        check_CausalSelfAttention, AttentionSoftmaxOverQueries, r"softmax runs over the queries"
    ),
    # blind round 10 (b10b): told only "was the length read from the wrong axis?"
    Mistake(
        check_CausalSelfAttention,
        AttentionKeysHeadsSwapped,
        r"k\.transpose\(1, 2\) exchanges the heads and the positions",
    ),
    # blind round 10 (b10b): told "You left out eps" alone (the two agree at eps=1e-5)
    # round 23: named alone, told from eps left out on the input scaled (they agree on it)
    Mistake(check_RMSNorm, NormEpsOnReciprocal, r"gives\. You added eps to the reciprocal"),
    Mistake(
        check_rotary_embedding,
        _rope_frequencies(lambda d, base: 2 * base ** (-torch.arange(0, d, 2).double() / d)),
        r"Every pair turns 2 times as far as it should.*Either the positions are scaled by 2, "
        r"or every frequency is multiplied by it",
    ),
    # blind26c-rope-positions-linearly-interpolated: "their frequencies are divided by a
    # factor" was said too, of a factor that scaled positions give as well
    Mistake(
        check_rotary_embedding,
        _rope_positions(lambda length: torch.arange(length).double() / 4),
        r"(?s)(?!.*divided by a factor)Either the positions are scaled by 0\.25 \(the linear "
        r"position interpolation",
    ),
    # blind round 10 (b10b): "unexpected keys ['output.bias', 'output.weight']" before
    Mistake(check_GPT, GptOutputWithBias, r"output layer has a bias \(output\.bias\)"),
    # blind round 10 (b10b): PyTorch's matmul error and the generic hint before
    Mistake(
        check_CausalSelfAttention,
        AttentionOutputOnHeads,
        r"projection got d_head = \d+ features per row: it was applied to the heads",
    ),
    # blind round 10 (b10b): a list of unexpected keys alone before
    Mistake(check_GPT, GptOneBlockMore, r"holds 3 blocks .* given num_layers = 2"),
    # blind round 10 (b10b): "largest difference" alone before
    Mistake(check_CausalSelfAttention, AttentionNoDiagonal, r"causal mask leaves out the diag"),
    # round 28: the tables made for another of the module's sizes (blind25c-csa-rotary-
    # tables-num-heads-wide was asked about "a fixed or minimum head width")
    Mistake(
        check_CausalSelfAttention,
        AttentionTablesFromHeadsAxis,
        r"built with self\.num_heads where the head width d_head belongs",
    ),
    Mistake(check_GPT, GptNoFinalNorm, r"no final norm"),
    Mistake(check_GPT, GptBlocksDefaultEps, r"blocks ignore the eps the GPT was given"),
    Mistake(check_GPT, GptFinalNormDefaultEps, r"final norm ignores the eps the GPT was given"),
    Mistake(check_GPT, GptScaled, r"sqrt\(d_model\)"),
    Mistake(check_GPT, GptProbabilities, r"returns probabilities"),
    # round 34: a term of the position alone before the first block (checking.position_terms)
    Mistake(
        check_GPT,
        GptSinusoidsAdded,
        r"layers\[0\] receives the embeddings of the ids plus lesson 03's sinusoidal positional "
        r"encoding \(sines and cosines interleaved\)",
    ),
    Mistake(
        check_GPT,
        GptScaledSinusoidHalvesAdded,
        r"embeddings of the ids multiplied by sqrt\(d_model\) plus lesson 03's sinusoidal "
        r"positional encoding \(all sines, then all cosines\).*Remove the added positions and "
        r"the scaling",
    ),
    Mistake(
        check_GPT,
        GptPositionTableAdded,
        # the hidden case holds one sequence: a term of the position alone cannot be told
        r"plus one vector per position, the same in every sequence of the batch|layers\[0\] "
        r"does not receive the embeddings of the ids\.",
    ),
    # round 34: logits shifted by one number per row (checking.row_shifts)
    Mistake(
        check_GPT,
        GptLogProbabilities,
        r"^(?![\s\S]*final norm)[\s\S]*not the logits themselves: yours are the right logits "
        r"minus one number per row: log-probabilities, F\.log_softmax",
    ),
    Mistake(
        check_GPT,
        GptLogitsMaxSubtracted,
        r"right logits minus one number per row: each row minus its largest logit",
    ),
    Mistake(check_GPT, GptUntied, r"not tied to the embedding"),
    # round 28: each output row rescaled (blind25c-gpt-tied-output-unit-rows was told to
    # apply the final norm once)
    Mistake(
        check_GPT,
        GptTiedScaledUnitRows,
        r"its own factor.*1 / the length of each row of embedding\.weight, times 4",
    ),
    Mistake(check_GPT, GptNotCausal, r"GPT's logits at a position depend on the tokens after"),
    Mistake(check_GPT, GptDefaultInit, r"nn.Embedding's default initialisation"),
    # blind round 9 (b9b): was told "That is nn.Embedding's default initialisation" alone
    Mistake(check_GPT, GptInitStdAsMean, r"0\.02 passed as normal_'s second positional"),
    # round 37: the tie the other way round leaves nn.Linear's uniform draw, read off the
    # weights (checking.init_statistics); a truncated normal cut at absolute bounds and a
    # uniform draw of about the same standard deviation each keep their own words
    Mistake(
        check_GPT,
        GptTiedTheOtherWay,
        r"(?s)standard deviation 0\.0[3-9].*uniform on \[-0\.125, 0\.125\], not normal: "
        r"±1/sqrt\(d_model\) = ±0\.125 is nn\.Linear's default initialisation",
    ),
    # round 37: the family "a step applied to the logits after the tied output layer",
    # fitted from got and expected (blamed on the final norm before); the siblings, a
    # constant factor (GptLogitsHalved, GptLogitsScaled), keep their own words
    Mistake(
        check_GPT,
        GptLogitsSoftCappedAtFifteen,
        r"Your logits are the right ones soft-capped: 15 \* tanh\(logits / 15\).*nothing "
        r"applied after it",
    ),
    Mistake(
        check_GPT,
        GptTruncatedAtBoundsNotStds,
        r"normal distribution cut at ±0\.025.*truncated at 1\.[23] of its standard deviations.*"
        r"trunc_normal_'s a and b are absolute bounds, not multiples of std",
    ),
    Mistake(
        check_GPT,
        GptUniformInit,
        r"Yours are uniform on \[-0\.02, 0\.02\], not normal \(a uniform_ initialisation\)",
    ),
    Mistake(check_sample, _sampler(temperature_at="probs"), r"whatever the temperature"),
    Mistake(check_sample, _sampler(top_p_rule="too_few"), r"one token too few"),
    Mistake(check_sample, _sampler(top_p_rule="too_many"), r"one token too many"),
    Mistake(check_sample, _sampler(renormalise=False), r"renormalise"),
    # blind16b: the shape alone, and "check top-k" alone, before
    Mistake(
        check_sample,
        _named("sample", _sample_draws_last_row),
        r"one token for the whole batch, the last row's: .* \[-1\] on it takes its last row",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_top_k_from_max),
        r"keeps one token, the most probable \(greedy\), where top_k=\d+ keeps \d+: the "
        r"threshold is the largest logit",
    ),
    Mistake(
        check_sample, _sampler(temperature_at="after_top_p"), r"probabilities at temperature 1"
    ),
    # b11b: "top-k has no effect" fits it too wherever top-p alone keeps at most k tokens;
    # a wide row, where top-p keeps more, parts them
    Mistake(
        check_sample,
        _sampler(top_p_first=True),
        r"(?s)^(?!.*more than one classic mistake).*you applied top-p before top-k, or after "
        r"it on the probabilities top-k zeroed",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_tensor_of_windows),
        r"(?s)TypeError.*builds a tensor from a list whose elements are tensors of several values.*"
        r"torch\.stack",
    ),
    Mistake(
        check_RMSNorm,
        RmsTensorOfRows,
        r"(?s)ValueError.*builds a tensor from a list whose elements are tensors of several values.*"
        r"torch\.stack",
    ),
    # b12b: "changed its argument cos in place" alone before: the shape it now has
    Mistake(
        check_apply_rotary,
        _rotary_unsqueezed_in_place("tables"),
        r"changed its argument `cos` in place: its shape went from \(\d+, \d+\) to "
        r"\(1, \d+, \d+\)\. .*unsqueeze_",
    ),
    Mistake(
        check_apply_rotary,
        _rotary_unsqueezed_in_place("x"),
        r"changed its argument `x` in place: its shape went from \(\d+, \d+\) to "
        r"\(1, \d+, \d+\)",
    ),
    Mistake(
        check_rotary_embedding,
        _rope_pair_indices("quarter"),
        r"Its \d+ columns are the angles of the first \d+ pairs only.*"
        r"torch\.arange\(0, d_head // 2, 2\) stops at d_head // 2",
    ),
    Mistake(
        check_rotary_embedding,
        _rope_pair_indices("double"),
        r"Its \d+ columns are the d_head // 2 pairs' angles and \d+ more columns",
    ),
    # b12b: the per-pair angles alone before: the base they fit, and the logarithm's slip
    Mistake(
        check_rotary_embedding,
        _rope_log_of_base(math.log10),
        r"frequencies of base [\d.]+, not [\d.e+]+\. That is e \*\* log10\(base\): the base-10 "
        r"logarithm",
    ),
    Mistake(
        check_rotary_embedding,
        _rope_log_of_base(math.log2),
        r"frequencies of base [\d.e+]+, not [\d.e+]+\. That is e \*\* log2\(base\)",
    ),
    # b12b: "drew tokens that must never be drawn here ... check top-k" before
    Mistake(
        check_sample,
        _sample_top_k_from_smallest("kthvalue"),
        r"top-k keeps the vocab - top_k \+ 1 largest logits.*k-th \*smallest\* logit",
    ),
    Mistake(
        check_sample,
        _sample_top_k_from_smallest("ascending"),
        r"top-k keeps the vocab - top_k \+ 1 largest logits.*k-th \*smallest\* logit",
    ),
    # b12b: the right distribution, repeatable, but the same draws whatever the seed
    Mistake(
        check_sample,
        _sample_generator_fixed("own"),
        r"same tokens with generators seeded 31 and 32: your draws do not depend on the "
        r"generator you are given.*of your own with a fixed seed.*re-seeded",
    ),
    Mistake(
        check_sample,
        _sample_generator_fixed("reseeded"),
        r"same tokens with generators seeded 31 and 32: .*re-seeded inside the function",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_own_generator),
        r"same batches with generators seeded \d+ and \d+: your draws do not depend on the "
        r"generator",
    ),
    # b12b: the same draws as top-p before top-k on every input, named together with it
    Mistake(
        check_sample,
        _sample_top_p_on_unrenormalised("probs"),
        r"top-p measured its running total on probabilities that top-k had not renormalised",
    ),
    Mistake(
        check_sample,
        _sample_top_p_on_unrenormalised("logits"),
        r"you applied top-p before top-k, or after it .* without renormalising",
    ),
    Mistake(check_sample, _sample_edited(top_k_extra=1), r"top-k keeps k \+ 1 tokens"),
    # "check top-k and top-p" before, with top-p alone given (mutant sample-8)
    Mistake(
        check_sample,
        _named("sample", _sample_top_p_scatter_rows),
        r"drew tokens that must never be drawn here .*only \[.*\] may be\): check top-p, the "
        r"filter given here .*scatter\(-1, order",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_top_k_over_rows),
        r"did torch\.topk run over the rows \(dim=0 or dim=-2\) instead of the vocabulary",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_greedy_over_batch),
        r"the argmax ran over the batch axis \(dim=0 or dim=-2\)",
    ),
    Mistake(check_sample, _sample_edited(strict=True), r"top-k keeps k - 1 tokens"),
    Mistake(check_sample, _sample_edited(unsorted=True), r"in vocabulary order: sort"),
    Mistake(check_sample, _sample_edited(always_argmax=True), r"always the most probable token"),
    # x-transformers#184: the nucleus cut at 1 - top_p; it keeps only the argmax at top_p=0.8,
    # which was told "always the most probable token, whatever the temperature"
    Mistake(check_sample, _sample_edited(complement=True), r"cut at 1 - top_p, not at top_p"),
    Mistake(
        check_sample,
        _named("sample", _sample_keep_shifted_in_place),
        r"in place over overlapping slices",
    ),
    # blind26c-sample-softmax-without-max: exp(z) / exp(z).sum() by hand passed every check
    # (no logit was above 88.7, where exp overflows float32)
    Mistake(
        check_sample,
        _named("sample", _sample_top_p_exp_by_hand),
        r"top_p=0\.8.*exponential of large logits overflows.*subtract each row's maximum",
    ),
    # blind26c-sample-top-k-kept-logits-set-to-one: "drawn in the wrong proportions" before
    Mistake(
        check_sample,
        _named("sample", _sample_top_k_mask_as_weights),
        r"draws uniformly among the kept tokens .*the kept logits are all set to one value",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_log_sum_exp_by_hand),
        r"exponential of large logits overflows.*torch\.softmax",
    ),
    Mistake(check_sample, _sampler(map_back="gather"), r"mapped back.*with gather"),
    # blind30c-sample-top-{k,p}-mask-inverted: "drew tokens that must never be drawn" (and
    # for top-p the scatter hint, read as another cause) before; the drawn set is the
    # complement of the kept one
    Mistake(
        check_sample,
        _sample_inverted("top_k"),
        r"top_k=\d.*Your top-k removes the top_k most probable tokens .*mask is inverted",
    ),
    Mistake(
        check_sample,
        _sample_inverted("top_p"),
        r"(?s)top_p=0\.\d+.*Your top-p removes the nucleus .*mask is inverted(?!.*scatter)",
    ),
    Mistake(
        check_sample,
        _sample_inverted("top_k_weights"),
        r"top-k removes the top_k most probable .*inverted.*proportions .* off as well",
    ),
    # siblings: the k smallest kept (not the complement), never told "inverted"
    Mistake(
        check_sample,
        _sample_inverted("top_k_smallest"),
        r"(?s)^(?!.*inverted).*top_k=\d.*must never be drawn here.*check top-k",
    ),
    Mistake(check_sample, _sampler(first_row=True), r"drop\[0\] = False"),
    Mistake(check_sample, _sampler(greedy=False), r"(?s)temperature=0\.0.*argmax of each row"),
    # blind round 9 (b9b): .squeeze() passed every check (a batch of one was never drawn)
    Mistake(check_sample, _sample_edited(squeeze=True), r"shape \(\)\. .*\.squeeze\(\) removes"),
    # HF transformers#338: the k-th value without its axis; a raw size error before
    Mistake(
        check_sample,
        _sample_edited(flat_threshold=True),
        r"k-th largest logit taken without its axis.*\.values\[\.\.\., -1:\]",
    ),
    # gluon-nlp#1481 (blind9b-sample-top-p-ascending): "drew tokens that must never be
    # drawn here ... check top-p" before
    Mistake(check_sample, _sample_edited(ascending=True), r"sorted in ascending order"),
    # mutant sample-12: "never drew some tokens ... check top-k and top-p" before
    Mistake(check_sample, _sample_edited(guard=True), r"your top-p removes the most probable"),
    # "should have shape (2,), but it has shape ()" before, with no cause
    Mistake(
        check_sample,
        _sample_edited(flat_argmax=True),
        r"argmax of the flattened logits.*logits\.argmax\(dim=-1\)",
    ),  # blind round 10 (b10b): a position within the top k returned as the token ("drew
    # tokens that must never be drawn here: check top-k" before)
    Mistake(
        check_sample,
        _named("sample", _sample_sorted_space(map_back=False)),
        r"Your tokens are ranks, not vocabulary ids.*indices\.gather",
    ),
    # blind round 10 (b10b): rows that share a threshold ("drew tokens that must never be
    # drawn ... scatter(-1, order" before, or a classic mistake that does not apply)
    Mistake(
        check_sample,
        _named("sample", _sample_top_k_whole_batch),
        r"same row of logits draws from one distribution in a batch of one .* not independent",
    ),
    # blind round 10 (b10b): two mistakes, only the first was told
    Mistake(
        check_sample,
        _named("sample", _sample_inclusive_no_guard),
        r"(?s)one token too few.*Also: with top_p=0\.\d+.*most probable token is always kept",
    ),
    # mutant sample-14 (the guard also keeps the second sorted column): accepted before,
    # no case had a nucleus of one token ("one token too many" would not hold on a flat
    # row, where this guard changes nothing); round 11 (b11b): the guard on each other
    # sorted column, from the first or the last, is a candidate, named when it alone fits
    # both rows ("only token 1 may be drawn here ... also drew 3" before)
    Mistake(
        check_sample,
        _named("sample", _sample_sorted_space(extra_kept_column=1)),
        r"always keeps the 2nd most probable token, whatever top_p.*remove_sorted\[\.\.\., 1\]",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_sorted_space(extra_kept_column=-1)),
        r"always keeps the least probable token, whatever top_p.*remove_sorted\[\.\.\., -1\]",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_sorted_space(extra_kept_column=2)),
        r"always keeps the 3rd most probable token, whatever top_p.*remove_sorted\[\.\.\., 2\]",
    ),
    # b11b: a filter with no effect (its masked_fill not assigned) and two top-p slips at
    # once were "drew tokens that must never be drawn" / "never drew some tokens"
    Mistake(
        check_sample,
        _named("sample", _sample_filter_slip("top_p")),
        r"top-p has no effect: .*as if top_p were None.*logits = logits\.masked_fill",
    ),
    # round 33: no token removed because the cumulative sum is not of probabilities: the
    # samples are those of a discarded removal, so both causes are said
    Mistake(
        check_sample,
        _named("sample", _sample_top_p_over_log_probs),
        r"top-p has no effect: .*cannot tell which of two causes.*masked_fill.*cumsum of "
        r"log-probabilities",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_filter_slip("top_k")),
        r"top-k has no effect: .*as if top_k were None",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_filter_slip("one_minus_inclusive")),
        r"(?s)Two mistakes at once\. \(1\) Your top-p set is cut at 1 - top_p.*\(2\) Your "
        r"top-p keeps one token too few",
    ),
    # ... while a top-p whose softmax runs over the batch keeps every token of 4000 copies
    # too: the batch of one row refutes "no effect" (b11b's candidate)
    Mistake(
        check_sample,
        _named("sample", _sample_top_p_softmax_over_batch),
        r"(?s)^(?!.*has no effect).*same row of logits draws from one distribution in a batch",
    ),
    Mistake(
        check_sample,
        _sample_fill(0.0, "both"),
        r"filters remove are still drawn, as often as a logit of 0.*instead of -inf",
    ),
    Mistake(
        check_sample,
        _sample_fill(1e-9, "both"),
        r"filters remove are still drawn, as often as a logit of 0.*instead of -inf",
    ),
    # mutant sample-18 (.values[..., -2:]): the broadcast error's general advice alone
    # before; the error's sizes tell a threshold of m columns, any slice of the k largest
    Mistake(
        check_sample,
        _named("sample", _sample_threshold_slice(-2)),
        r"(?s)a tensor with 2 columns .*top-k threshold taken as a slice of 2 of the k largest",
    ),
    Mistake(
        check_sample,
        _named("sample", _sample_threshold_slice(None)),
        r"(?s)a tensor with (3|4) columns .*or all k of them, \.values\)",
    ),
    # blind round 10 (b10b): told "it removes the k-th largest logit itself (logits <=
    # kth)" as the one cause, although topk(logits, top_k - 1) gives the same samples
    Mistake(
        check_sample,
        _named("sample", _sample_top_k_one_early),
        r"k - 1 tokens, one too few\. Two slips .*torch\.topk\(logits, top_k - 1\)",
    ),
    # blind round 10 (b10b): "never drew some tokens ...: check top-k and top-p" with no
    # filter given before
    Mistake(
        check_sample,
        _named("sample", _sample_temperature_twice),
        r"follow the temperature t \*\* 2 = \S+ .*divided by the temperature twice",
    ),
    # blind round 10 (b10b): told "cut at 1 - top_p" (the two keep one token alike on the
    # first row); a flat second row now has to agree before a cause is stated. b10h: that
    # row keeps about five tokens with the running total of the logits, two with 1 - top_p:
    # the logits' model is one of the candidates, and the flat row names it
    Mistake(
        check_sample,
        _named("sample", _sample_top_p_on_logits),
        r"^(?![\s\S]*1 - top_p)[\s\S]*Your top-p adds up the logits, not the probabilities",
    ),
    # mutant sample-15: PyTorch's raw IndexError alone before
    Mistake(
        check_sample,
        _named("sample", _sample_second_column),
        r"(?s)IndexError.*torch\.multinomial\(probs, 1, \.\.\.\) returns \(batch, 1\)",
    ),
    # blind13b: the forward right, the gradient wrong (uncaught: no check ran backward)
    Mistake(
        check_RMSNorm,
        NormStatisticNoGrad,
        r"root mean square held constant: no gradient flows through the statistic",
    ),
    Mistake(check_RMSNorm, NormNumeratorDetached, r"gradient flows only through the root mean"),
    Mistake(check_RMSNorm, NormOnACopy, r"left x without a gradient.*x is cut from autograd"),
    Mistake(
        check_GPT,
        GptFunctionalLookupPadded,
        r"token 0's embedding row gets no gradient from the lookup.*padding_idx",
    ),
    Mistake(check_GPT, GptLookupFromData, r"no gradient reaches the embedding through the lookup"),
    Mistake(check_GPT, GptOutputFromDetached, r"tied output layer passes no gradient"),
    # blind13b: every input was contiguous; split_heads' queries are a transposed view
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_flat_rows),
        r"(?s)raised RuntimeError: view size.*transposed view.*split_heads.*\.reshape\(",
    ),
    # blind13b: one start for the whole batch was told "the last valid start never occurs"
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_one_window_stacked),
        r"^(?![\s\S]*last valid start)[\s\S]*every row is the same window.*one start was drawn",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_half_the_starts(tiled=True)),
        r"repeat the first (\d+) windows .*only \1 starts were drawn",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_half_the_starts(tiled=False)),
        r"each window comes 4 times in a row",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_inner_starts),
        r"^(?![\s\S]*last valid start)[\s\S]*the starts 0, \d+ never occur",
    ),
    # blind14b: uncaught (no top_p was 0.0, the one value where the mass before the first
    # sorted token reaches top_p): a top-p without the guard empties every row there
    Mistake(
        check_sample,
        _sample_keep_mask(guard=False),
        r"(?s)probability tensor contains.*top_p=0\.0 the nucleus is the most probable token "
        r"alone.*guard that keeps the most probable token is missing",
    ),
    Mistake(
        check_sample,
        _sample_keep_mask(guard=False, gumbel=True),
        r"top_p=0\.0 .*yours gave token \d+ in row \d+, whose argmax is \d+.*first sorted column",
    ),
    Mistake(check_sample, _sample_keep_mask(truthy=True), r"`if top_p:` is False for 0\.0"),
    # blind14b: told "the generator went in by position" (the Generator in the signatures
    # PyTorch lists as expected)
    Mistake(
        check_next_token_batches,
        _batches_randint_size("keyword"),
        r"^(?![\s\S]*by position)[\s\S]*size as a bare int: the size must be a tuple",
    ),
    Mistake(
        check_next_token_batches,
        _batches_randint_size("high"),
        r"^(?![\s\S]*by position)[\s\S]*either the size is missing.*or it went in as a bare int",
    ),
    # blind14b: a buffer for a weight named among four causes; persistent tables told as
    # misnamed submodules; RMSNorm(eps, d_model) told as PyTorch's TypeError alone
    Mistake(check_RMSNorm, NormGainAsBuffer, r"weight is registered as a buffer.*nn\.Parameter"),
    Mistake(
        check_CausalSelfAttention,
        AttentionMaskBuffer,
        r"extra entries \['tril'\], which are buffers.*persistent=False",
    ),
    Mistake(check_GPT, GptPositionsBuffer, r"extra entries \['position_ids'\].*persistent=False"),
    Mistake(
        check_DecoderBlock,
        BlockSecondNormSwapped,
        r"(?s)TypeError.*gains norm2\.weight have 7 entries.*RMSNorm\(eps, d_model\)",
    ),
    # blind14b: layers built in forward told as misnamed keys; weights redrawn in forward
    # told "differs from the reference"
    Mistake(check_RMSNorm, NormLazyGain, r"lacks the state-dict keys \['weight'\].*in __init__"),
    Mistake(
        check_CausalSelfAttention,
        AttentionOutputInForward,
        r"lacks the state-dict keys \['w_o\.weight'\], which appear only once it has been called",
    ),
    Mistake(
        check_GPT,
        GptVocabularyPaddedTo32,
        r"embedding\.weight has shape \(\d+, \d+\), expected .*Its axis 0 has \d+ entries: "
        r"vocab_size = \d+ rounded up to a multiple of (16 or )?32",
    ),
    Mistake(
        check_GPT,
        GptEmbeddingReset,
        r"changed the module's weights: after the call, embedding\.weight is no longer",
    ),
    # the family "the looked-up rows renormalised" (blind30c-gpt-embedding-max-norm was told
    # that forward re-initialises its weights); the sibling, every row written, is not
    Mistake(
        check_GPT,
        GptLookedUpRowsCappedByHand,
        r"the rows of embedding\.weight that the ids looked up and whose norm was above 3, and "
        r"only those, are rescaled to norm 3.*max_norm=3",
    ),
    Mistake(
        check_GPT,
        GptEmbeddingHalvedInPlace,
        r"embedding\.weight is no longer what was loaded(?![\s\S]*max_norm)",
    ),
    # blind14b: PyTorch's size clash with "print both shapes", or "the split point must be
    # x.shape[-1] // 2" without what it followed
    Mistake(
        check_apply_rotary,
        _rotate_half_tables("positions"),
        r"(?s)must match.*tables were doubled along the positions.*cat\(\[cos, cos\], dim=-1\)",
    ),
    Mistake(
        check_apply_rotary,
        _rotate_half_tables("none"),
        r"^(?![\s\S]*along the positions)[\s\S]*needs the tables doubled along the features",
    ),
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_split_at_length),
        r"your split point follows len, the number of positions",
    ),
    # blind14b: "contains NaN or inf" alone
    Mistake(
        check_rotary_embedding,
        _rope_theta(lambda i, d, base: 1.0 / (2 * i / d) ** base),
        r"torch\.pow's arguments are swapped",
    ),
    # blind14b: PyTorch's NotImplementedError alone
    Mistake(
        check_GPT,
        GptBlocksCalledAtOnce,
        r"(?s)ModuleList\] is missing.*has no forward of its own.*for layer in self\.layers",
    ),
    # round 32: a step applied to part of an axis (the rest left as the input)
    Mistake(
        check_apply_rotary,
        _named("apply_rotary", _rotary_newest_position_only),
        r"Along axis \d .*are the input as it came in: the step never ran on them",
    ),
    # round 32: one operation added (the gate read off the values; the edits' second tier)
    Mistake(
        check_SwiGLU, FfnGateAbs, r"f\(z\) = F\.silu\(z\)\.abs\(\) \(an absolute value on it\)"
    ),
    Mistake(check_RMSNorm, NormGainSquared, r"squares `self\.weight` in the formula"),
    Mistake(check_CausalSelfAttention, AttentionKeysAbs, r"takes the absolute value of `k`"),
    # round 32: a result kept from one call to the next (the very tensors returned again)
    Mistake(
        check_sample,
        _named("sample", _sample_memo_by_shape),
        r"(returned the very tensor that .* returned earlier \(the same memory|keeps something "
        r"from one call to the next: the module-level dict `_SAMPLE_MEMO`)",
    ),
    Mistake(
        check_next_token_batches,
        _named("next_token_batches", _batches_memo_by_sizes),
        r"the second call returned the very tensors of the first \(the same memory\)",
    ),
    # round 32: the right values in another encoding (read without the expected ids)
    Mistake(
        check_sample,
        _named("sample", _sample_one_hot),
        r"Yours is one-hot encoded: along a new last axis each vector of \d+ entries",
    ),
    # round 32: a size rounded up
    Mistake(
        check_rotary_embedding,
        _named("rotary_embedding", _rope_length_padded),
        r"rounded up to a multiple of 32",
    ),
]

CORRECT = [
    Correct(check_next_token_batches, _named("next_token_batches", _batches_nanogpt)),
    Correct(check_next_token_batches, _named("next_token_batches", _batches_one_draw_at_a_time)),
    Correct(check_next_token_batches, _named("next_token_batches", _batches_unfold)),
    Correct(check_RMSNorm, NormLlama),
    Correct(check_RMSNorm, NormPower),
    Correct(check_rotary_embedding, _named("rotary_embedding", _rope_llama)),
    Correct(check_rotary_embedding, _named("rotary_embedding", _rope_lru_cached)),
    Correct(check_rotary_embedding, _named("rotary_embedding", _rope_from_interleaved_table)),
    Correct(check_apply_rotary, _named("apply_rotary", _rotate_half_neox)),
    Correct(check_apply_rotary, _named("apply_rotary", _rotate_adjacent), note=r"neighbouring"),
    Correct(check_apply_rotary, _named("apply_rotary", _rotate_adjacent_complex), note=r"2i"),
    Correct(check_SwiGLU, FfnSigmoidForm),
    Correct(check_SwiGLU, FfnEinsum),
    Correct(check_CausalSelfAttention, AttentionAdjacent, note=r"neighbouring"),
    Correct(check_CausalSelfAttention, AttentionEinsumTril),
    Correct(check_CausalSelfAttention, AttentionTablesCachedUntilLonger),
    Correct(check_GPT, GptLinearsRedrawn),
    # positions 1 .. len for queries and keys alike: RoPE's scores depend on m - n only
    Correct(check_CausalSelfAttention, AttentionOneIndexed),
    Correct(check_DecoderBlock, BlockAdjacent, note=r"neighbouring"),
    Correct(check_GPT, GptTiedLinear),
    Correct(check_GPT, GptAdjacent, note=r"neighbouring"),
    Correct(check_GPT, GptTruncatedNormalInit),
    Correct(check_sample, _named("sample", _sample_nanogpt_hf)),
    Correct(check_sample, _named("sample", _sample_gumbel)),
    # the draw made in sorted order and mapped back through the sort's indices
    Correct(check_sample, _named("sample", _sample_sorted_space())),
    # ties at the top-p threshold: keeping every token tied with the crossing one passes
    Correct(check_sample, _named("sample", _sampler(top_p_rule="ties_kept"))),
    # top-p as a keep mask, the first sorted column always kept
    Correct(check_sample, _sample_keep_mask()),
    Correct(check_RMSNorm, NormRsqrtFloat32),
    Correct(check_apply_rotary, _named("apply_rotary", _rotary_flat_rows_reshaped)),
    # the angles rebuilt with atan2 (the whole circle): the half-turn slips must not fire
    Correct(check_apply_rotary, _named("apply_rotary", _rotary_angles_from_atan2), note=r"2i"),
    Correct(check_GPT, GptFunctionalTied),
]

test_classic_mistake, test_correct_variant = lesson_tests(MISTAKES, CORRECT)


# --------------------------------------------------------------------------- oracles
def test_rms_norm_equals_pytorch_rms_norm_with_the_same_weight():
    generator = torch.Generator().manual_seed(0)
    for eps in (1e-5, 0.1):
        ours = ref.RMSNorm(12, eps)
        with torch.no_grad():
            ours.weight.copy_(torch.randn(12, generator=generator))
        theirs = nn.RMSNorm(12, eps=eps)
        theirs.load_state_dict(ours.state_dict())
        x = torch.randn(3, 5, 12, generator=generator)
        x[0, 0] *= 1e-3  # a quiet token, where eps matters
        torch.testing.assert_close(ours(x), theirs(x), rtol=1e-5, atol=1e-6)


def test_swiglu_equals_the_plain_formula():
    torch.manual_seed(1)
    block = ref.SwiGLU(8, 20)
    x = torch.randn(2, 7, 8)
    w1, w2, w3 = block.w1.weight, block.w2.weight, block.w3.weight
    expected = (F.silu(x @ w1.T) * (x @ w3.T)) @ w2.T
    torch.testing.assert_close(block(x), expected)


def test_rotary_embedding_is_the_papers_angle_table():
    cos, sin = ref.rotary_embedding(5, 6, base=100.0)
    for m in range(5):
        for i in range(3):
            angle = m * 100.0 ** (-2 * i / 6)
            assert math.isclose(float(cos[m, i]), math.cos(angle), abs_tol=1e-6)
            assert math.isclose(float(sin[m, i]), math.sin(angle), abs_tol=1e-6)


def test_causal_self_attention_equals_pytorch_sdpa_on_rotated_queries_and_keys():
    torch.manual_seed(2)
    attention = ref.CausalSelfAttention(24, 3)
    x = torch.randn(2, 9, 24)
    q, k, v = (split_heads(w(x), 3) for w in (attention.w_q, attention.w_k, attention.w_v))
    cos, sin = ref.rotary_embedding(9, 8)

    # rotate half by hand, independently of apply_rotary: pair (i, i + 4)
    def rotate(t):
        a, b = t[..., :4], t[..., 4:]
        return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)

    heads = F.scaled_dot_product_attention(rotate(q), rotate(k), v, is_causal=True)
    expected = attention.w_o(merge_heads(heads))
    torch.testing.assert_close(attention(x), expected, rtol=1e-5, atol=1e-5)


def test_gpt_is_causal_and_ties_its_output_to_the_embedding():
    torch.manual_seed(3)
    model = ref.GPT(31, 16, 2, 24, 2).eval()
    ids = torch.randint(0, 31, (2, 10))
    changed = ids.clone()
    changed[:, 6:] = (changed[:, 6:] + 5) % 31
    with torch.no_grad():
        before, after = model(ids), model(changed)
    torch.testing.assert_close(before[:, :6], after[:, :6])
    assert not torch.allclose(before[:, 6:], after[:, 6:])
    assert set(model.state_dict()) >= {"embedding.weight", "norm.weight"}
    assert not any(key.startswith(("output", "lm_head")) for key in model.state_dict())


def test_sample_at_temperature_zero_is_the_argmax_and_top_k_one_is_greedy():
    logits = torch.randn(6, 40, generator=torch.Generator().manual_seed(4))
    assert torch.equal(ref.sample(logits, temperature=0.0), logits.argmax(-1))
    generator = torch.Generator().manual_seed(5)
    assert torch.equal(ref.sample(logits, top_k=1, generator=generator), logits.argmax(-1))


# ================================================== the shipped model: the lesson's claim
def _seed_spread() -> dict[str, float]:
    """The run-to-run spread of the default model, max - min over the shipped run (seed 0)
    and the budget benchmark's seeds 1 and 2 (benchmarks/language_model_budget.py), of
    the validation loss and of the bits per byte; the seeds' configs must be the
    record's but for the seed."""
    import json

    from transformer_course.checkpoints import DIRECTORY
    from transformer_course.checkpoints import language_model as shipped

    record = shipped.load_record()
    budget = json.loads((DIRECTORY / "language_model_budget.json").read_text())
    runs = [record] + [budget[name] for name in ("seed 1", "seed 2")]
    for run in runs[1:]:
        assert {**run["config"], "seed": 0} == record["config"], "re-run the seeds' benchmark"
    return {
        key: max(run[key] for run in runs) - min(run[key] for run in runs)
        for key in ("validation_loss", "validation_bits_per_byte")
    }


@pytest.mark.pipeline
@pytest.mark.slow(280)  # started first by pytest-xdist (tests/conftest.py)
def test_default_training_meets_the_targets_and_matches_the_record():
    """The lesson's claims, wherever it runs: the default GPT, trained with the course's
    own code on the standard-library corpus, ends at least half a nat per token below the
    bigram baseline measured on the same validation windows, and compresses the
    validation split to fewer bits per byte than gzip -9. (Not a timing test: the CPU
    time is printed; the README's test holds the record to the 5-minute target.)

    Retrained, it matches the shipped record within three times the range of three seeds'
    runs: on another CPU the kernels add in another order, so the weights differ in their
    last bits after the first steps; such a run shares the record's initial weights and
    batches, and lands no further from it than another seed's run does. Three seeds'
    range is about 1.7 standard deviations of one run, so three times it (about five) also
    covers the range's own uncertainty. The comparison needs the record's corpus: the
    record was made on CPython 3.11's standard library, and another version's modules
    are other text."""
    from transformer_course.checkpoints import language_model as shipped

    start = time.perf_counter()
    *_, record = shipped.train_and_record(progress=False)
    loss, bigram = record["validation_loss"], record["baselines"]["bigram"]
    bits, gzip_bits = (
        record["validation_bits_per_byte"],
        record["compressors_bits_per_byte"]["gzip -9"],
    )
    print(
        f"trained in {record['training']['cpu_seconds']:.1f} s of CPU time (wall "
        f"{time.perf_counter() - start:.1f} s); validation loss {loss:.3f}, bigram {bigram:.3f}; "
        f"{bits:.3f} bits per byte, gzip -9 {gzip_bits:.3f}"
    )
    assert loss <= bigram - 0.5
    assert bits < gzip_bits
    recorded = shipped.load_record()
    same_corpus = all(
        record["corpus"][key] == recorded["corpus"][key]
        for key in ("train_modules", "train_tokens", "validation_tokens", "merges")
    )
    if not same_corpus:
        print("another standard library than the record's: not compared with the record")
        return
    spread = _seed_spread()
    assert loss == pytest.approx(recorded["validation_loss"], abs=3 * spread["validation_loss"])
    assert bits == pytest.approx(
        recorded["validation_bits_per_byte"], abs=3 * spread["validation_bits_per_byte"]
    )
    assert bigram == pytest.approx(recorded["baselines"]["bigram"], abs=1e-3)  # no training


# ================================================ an unanswered notebook, end to end
@pytest.mark.notebook
def test_untouched_student_notebook_shows_the_trained_model():
    """Run headless as nbgrader runs it (TRAIN_LIVE is False), the untouched student
    notebook loads the shipped checkpoint and shows it with the reference functions: a
    learner who is stuck still sees the trained model's losses, samples and attention. No
    cell outside the graded test cells fails, and those cells print the model's figures.
    (The same run as tests/test_notebooks.py's: common.validated_notebook.)"""
    from common import REPO, validated_notebook

    run = validated_notebook(REPO / "notebooks" / "11_language_model" / "11_language_model.ipynb")
    problems, printed = [], ""
    for cell in run.nb.cells:
        if cell.cell_type != "code" or cell.metadata.get("nbgrader", {}).get("grade"):
            continue
        printed += run.stdout(cell)
        for error in run.errors(cell):
            problems.append(f"{cell.source.splitlines()[0]!r}: {error.ename}: {error.evalue}")
    assert not problems, "\n".join(problems)
    assert "validation loss" in printed and "bigram" in printed
    assert "bits per byte" in printed and "gzip -9" in printed
    assert "--- temperature 0.8:" in printed


def test_the_readme_states_the_shipped_record_which_meets_the_target():
    """The README's lesson-11 paragraph gives the checkpoint's recorded figures and the
    budget benchmark's (none typed by hand out of step with the records), and the record
    meets the lesson's targets: at most 5 minutes of training on one core (CPU time: the
    wall-clock time of a machine running nothing else), a validation loss at least half
    a nat per token below the bigram baseline, and fewer bits per byte than gzip -9."""
    from common import REPO

    from transformer_course.checkpoints import language_model as shipped

    record, budget = shipped.load_record(), shipped.load_budget()
    config, corpus, training = record["config"], record["corpus"], record["training"]
    compressors = record["compressors_bits_per_byte"]
    readme = (REPO / "README.md").read_text()
    paragraph = readme.split("**Lesson 11's training, measured.**")[1].split("```")[0]
    paragraph = " ".join(paragraph.split())  # line breaks folded
    figures = [
        f"{record['parameters']:,} parameters",
        f"d_model {config['d_model']}, {config['num_layers']} layers, {config['num_heads']} heads",
        f"SwiGLU width {config['d_ff']}, {corpus['vocab_size']} byte-pair tokens",
        f"{config['steps']} steps of {config['batch_size']} windows of {config['block_size']} tokens",
        f"{training['passes']:.1f} passes",
        f"on {len(corpus['train_modules'])} modules",
        f"({corpus['train_tokens']:,} tokens",
        f"on {len(corpus['validation_modules'])} other modules",
        f"({corpus['validation_bytes']:,} bytes, {corpus['validation_tokens']:,} tokens)",
        f"{training['cpu_seconds']:.0f} s of CPU time",
        f"{training['seconds']:.0f} s of wall-clock time",
        f"load average {training['load_average'][0]} at the start and "
        f"{training['load_average'][1]} at the end",
        f"validation loss {record['validation_loss']:.3f} nats",
        f"{record['baselines']['bigram']:.3f} for the bigram",
        f"{record['baselines']['unigram']:.3f} for the unigram",
        f"{record['validation_bits_per_byte']:.2f} bits per byte",
        f"gzip -9 {compressors['gzip -9']:.2f}",
        f"bz2 -9 {compressors['bz2 -9']:.2f}",
        f"xz -9e {compressors['xz -9e, given the training text']:.2f}",
    ] + [
        f"{name}: {run['validation_loss']:.3f} nats per token, "
        f"{run['validation_bits_per_byte']:.2f} bits per byte"
        for name, run in budget.items()
    ]
    assert [figure for figure in figures if figure not in paragraph] == []
    assert config["num_threads"] == 1 and "on one thread" in paragraph
    assert training["cpu_seconds"] <= 5 * 60
    assert record["validation_loss"] <= record["baselines"]["bigram"] - 0.5
    assert record["validation_bits_per_byte"] < compressors["gzip -9"]
    # the lesson's reading of the budget runs, against the seeds' spread: 400 -> 560 steps
    # lowered the loss by several times the spread, 560 -> 640 by about the spread, and
    # the doubled learning rate ended within the spread of the default
    losses = {name: run["validation_loss"] for name, run in budget.items()}
    spread = _seed_spread()["validation_loss"]
    assert config["steps"] == 640 and config["lr"] == 3e-3
    assert losses["before: 400 steps, lr 3e-3"] - losses["560 steps, lr 3e-3"] > 3 * spread
    assert 0.5 * spread < losses["560 steps, lr 3e-3"] - record["validation_loss"] < 2 * spread
    assert abs(losses["700 steps, lr 6e-3"] - record["validation_loss"]) < spread


@pytest.mark.parametrize("letter", ["a", "c", "d"])
def test_quiz_temperature_explains_every_wrong_choice_by_the_renormalisation(letter):
    """Each wrong choice is told that the weights are renormalised, so nothing changes
    (blind14b, 15b, 16b: a sentence on ratios or on sums alone before)."""
    from transformer_course.checks.language_model import check_quiz_temperature

    with pytest.raises(Exception, match=r"(?s)renormalises .*nothing changes"):
        check_quiz_temperature(lambda: letter)
