"""Held-out wrong answers, blind round 26 (helper b26b, 2026-11-29, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 28 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08 = "07_encoder", "08_decoder"
L09, L10 = "09_transformer", "10_training"

_c = held_out_authored("blind26b")

# Where these mistakes are reported (each page was read for this batch).
MACARON_HALF_STEP = "https://github.com/espnet/espnet/pull/2356"
MASK_PER_HEAD = "https://github.com/pytorch/pytorch/issues/64706"
MASK_REPEAT_TILES = "https://github.com/line/lighthouse/pull/77"
KERNEL_THREE = "https://github.com/kolloldas/torchnlp/issues/17"
CONTEXT_VECTOR = (
    "https://www.oreilly.com/library/view/hands-on-deep-learning/9781789344158/"
    "84352544-52f0-4bbe-ad68-773528eb8587.xhtml"
)
MASK_SEES_WORD = "https://github.com/pytorch/examples/issues/649"
FORGOT_PARENTHESES = "https://mail.python.org/pipermail/python-list/2014-February/666476.html"
MAX_TOKENS = "https://github.com/facebookresearch/fairseq/issues/37"
COSINE_DECAY = "https://github.com/EleutherAI/gpt-neox/pull/1008"
BCE_MULTICLASS = (
    "https://discuss.pytorch.org/t/using-bcewithlogisloss-for-multi-label-classification/67011"
)
ACCUMULATION = "https://github.com/ThilinaRajapakse/BERT_binary_text_classification/issues/15"
EFFECTIVE_ORDER = "https://github.com/vibrantlabsai/ragas/pull/1862"
SHIFTED_RIGHT = "https://datascience.stackexchange.com/q/88981"
LOSS_AT_INIT = (
    "https://stats.stackexchange.com/questions/606359/"
    "how-to-initialize-final-layer-to-get-a-good-starting-loss"
)

BLIND26B: list[Case] = [
    # ---- 07 encoder ------------------------------------------------------------------------
    _c(
        "ln-mean-over-whole-tensor",
        L07,
        "LayerNorm",
        "takes the mean without a dim (x.mean(), one mean over every element of the whole "
        "input) while the variance is still taken per token over its features: each token is "
        "centred on the tensor's overall mean instead of its own, so its normalised features "
        "no longer average to zero.",
        (
            r"(one|single|global|overall) mean",
            r"mean (over|of|across) (the )?(whole|entire|all)",
            r"mean.{0,40}(every|all) (the )?(elements?|tokens|positions)",
            r"mean.{0,30}(no|without (a )?)dim",
            r"(each|every) token'?s? own mean",
            r"mean.{0,40}(per|of each|for each) token",
        ),
        (
            r"unbiased|bessel|n ?- ?1\b",
            r"eps.{0,30}(outside|added to the (std|standard))",
            r"variance (over|across|of) (the )?(whole|entire|all)",
            r"(batch|position)s? axis",
            r"(gain|weight|bias) (is |are )?(never|not) (applied|multiplied|added)",
        ),
        edits=(("mean = x.mean(dim=-1, keepdim=True)", "mean = x.mean()"),),
    ),
    _c(
        "ffn-positions-looped-stacked-first",
        L07,
        "PositionwiseFeedForward",
        "applies the network position by position in a Python loop (x[:, t]) and joins the "
        "results with torch.stack(outputs), whose default dim=0 puts the positions first: "
        "the values are right but the output is (len, batch, d_model) instead of (batch, "
        "len, d_model) (a batch whose size equals its length gets the right shape with "
        "sentences and positions transposed).",
        (
            r"stack\w*.{0,40}(dim|axis)",
            r"\(len, batch",
            r"(positions?|length|len) (axis )?(first|in front|leading)",
            r"(batch|positions?) and (the )?(positions?|batch)( axes)? (are )?"
            r"(swapped|transposed|exchanged)",
            r"transpos",
            r"dim ?= ?1",
        ),
        (
            r"relu (is )?(missing|applied after|on the output)|(uses?|with) (gelu|tanh)",
            r"dropout (after|on the output|on the input)",
            r"residual (connection )?(inside|added)|adds (the )?input back",
            r"hidden (layer )?width|d_ff (is )?(ignored|unused)",
        ),
        code="""
import torch
from torch import nn


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        outputs = []
        for t in range(x.shape[1]):  # the same network at every position
            hidden = torch.relu(self.w_1(x[:, t]))  # (batch, d_ff)
            outputs.append(self.w_2(self.dropout(hidden)))  # (batch, d_model)
        return torch.stack(outputs)
""",
    ),
    _c(
        "ffn-first-layer-kernel-three",
        L07,
        "PositionwiseFeedForward",
        "builds w_1 as nn.Conv1d(d_model, d_ff, kernel_size=3, padding=1) over the "
        "positions (the convolutional 'position-wise' layer of ESPnet-style code) instead of "
        "an nn.Linear: each hidden vector mixes a position with its two neighbours, so the "
        "network is no longer applied to each position separately (and w_1's weight has a "
        "third axis of size 3).",
        (
            r"kernel",
            r"conv",
            r"neighbo",
            r"(mix|combin)\w* (adjacent|neighbouring|neighboring|nearby|other) positions",
            r"not (applied )?(position-?wise|to each position (separately|on its own))",
            r"(depends on|reads|sees) (the )?(other|adjacent|neighbouring) positions",
        ),
        (
            r"relu (is )?(missing|applied after|on the output)|(uses?|with) (gelu|tanh)",
            r"dropout (after|on the output|on the input)",
            r"residual (connection )?(inside|added)|adds (the )?input back",
            r"(in|out)[_ ]features.{0,30}swapped|sizes (are )?swapped",
        ),
        code="""
import torch
from torch import nn


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.0):
        super().__init__()
        self.w_1 = nn.Conv1d(d_model, d_ff, kernel_size=3, padding=1)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        hidden = self.w_1(x.transpose(1, 2)).transpose(1, 2)  # (batch, len, d_ff)
        return self.w_2(self.dropout(torch.relu(hidden)))
""",
        source=KERNEL_THREE,
    ),
    _c(
        "el-feed-forward-half-step-residual",
        L07,
        "EncoderLayer",
        "adds the feed-forward sub-layer's output to the residual stream with weight one "
        "half, x + 0.5 * dropout(feed_forward(...)) (the Conformer's macaron 'half-step' "
        "feed-forward), in both layouts, instead of adding it whole; the attention "
        "sub-layer is right.",
        (
            r"\b0\.5 ?\*|\* ?0\.5\b|one half|\bhalf\b|1/2",
            r"(scal|weigh|multipl)\w* (the )?(feed-?forward|ffn|sub-?layer)('s)? "
            r"(output|branch|residual)",
            r"(feed-?forward|ffn)('s)? (output|branch|residual).{0,40}(scal|weigh|multipl)",
            r"macaron",
        ),
        (
            r"no residual|residual (connection )?(is )?missing",
            r"dropout (on|after|applied to) the (residual )?sum",
            r"(norms?|norm1|norm2) (are )?(swapped|reused|shared)",
            r"(attention|self-attention)('s)? (sub-?layer|residual|output) "
            r"(is )?(missing|scaled|wrong)",
        ),
        edits=(
            (
                "return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "return x + 0.5 * self.dropout(self.feed_forward(self.norm2(x)))",
            ),
            (
                "return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "return self.norm2(x + 0.5 * self.dropout(self.feed_forward(x)))",
            ),
        ),
        source=MACARON_HALF_STEP,
    ),
    _c(
        "enc-mask-flattened-to-batch-times-heads",
        L07,
        "Encoder",
        "reshapes the mask into one (len, len) mask per sentence and head, (batch * "
        "num_heads, len, len), the 3-D attn_mask layout of nn.MultiheadAttention, before "
        "giving it to the layers, whose attention takes a mask broadcastable to (batch, "
        "num_heads, len, len): right for a batch of one sentence, a shape error for any "
        "larger batch.",
        (
            r"batch ?\* ?(num_)?heads|(num_)?heads ?\* ?batch",
            r"3-?d (attn_)?mask|three axes",
            r"(merg|flatten|fold|reshap|combin)\w* (the )?(batch and (the )?heads?|heads? and "
            r"(the )?batch)",
            r"nn\.MultiheadAttention'?s? (attn_)?mask",
        ),
        (
            r"mask (is )?(inverted|flipped)|true = (blocked|ignore)",
            r"mask (is )?(never|not) (passed|given)|without (the )?mask",
            r"final (layer ?)?norm",
            r"(layers?|weights) (are )?shared|same layer",
        ),
        edits=(
            (
                "        for layer in self.layers:\n            x = layer(x, mask)",
                "        if mask is not None:  # one (len, len) mask per sentence and head\n"
                "            batch, length = x.shape[:2]\n"
                "            heads = self.layers[0].self_attn.num_heads\n"
                "            mask = mask.expand(batch, heads, length, length)\n"
                "            mask = mask.reshape(batch * heads, length, length)\n"
                "        for layer in self.layers:\n            x = layer(x, mask)",
            ),
        ),
        source=MASK_PER_HEAD,
    ),
    # ---- 08 decoder ------------------------------------------------------------------------
    _c(
        "dl-cross-attends-last-source-position",
        L08,
        "DecoderLayer",
        "cross-attends to the encoder's last position only, memory[:, -1:] as keys and "
        "values (the RNN encoder-decoder's single context vector), without src_mask, which "
        "no longer fits, instead of attending to every source position under the source "
        "padding mask: every target position reads the same vector (a pad's, in a padded "
        "row).",
        (
            r"last (source )?(position|vector|token|state)",
            r"memory\[:, ?-1",
            r"context vector",
            r"(only|single) (one )?(source )?(position|vector|key)",
            r"(every|all) (the )?source positions",
            r"\bone key\b",
        ),
        (
            r"(queries|query) (come )?from (the )?memory|roles (are )?(reversed|swapped)",
            r"(look-?ahead|target) mask.{0,40}cross",
            r"(memory|encoder output) (is )?(normali[sz]ed|normed)",
            r"(residual|dropout) (is )?(missing|left out)",
            r"(keys?|values?) (come )?from (the )?decoder",
        ),
        edits=(
            (
                "self.cross_attn(h, memory, memory, src_mask)",
                "self.cross_attn(h, memory[:, -1:], memory[:, -1:])",
            ),
            (
                "self.cross_attn(x, memory, memory, src_mask)",
                "self.cross_attn(x, memory[:, -1:], memory[:, -1:])",
            ),
        ),
        source=CONTEXT_VECTOR,
    ),
    _c(
        "dec-stack-run-num-layers-times",
        L08,
        "Decoder",
        "wraps the loop over the layers in a second loop over range(len(self.layers)), so "
        "the whole stack runs num_layers times (num_layers squared layer calls) instead of "
        "once: right for a single layer only.",
        (
            r"num_layers ?(\*\*|²|\^) ?2|num_layers (squared|times num_layers)",
            r"(stack|layers?) (runs?|is run|are run|applied|is applied|are applied) "
            r"(num_layers|n|several|more than once|twice|repeatedly|again)",
            r"(nested|two|second|outer|double) loops?",
            r"(each|every) layer (runs?|is applied|applied|is called|called) "
            r"(num_layers|more than once|several|repeatedly|twice)",
            r"too many layer (calls|applications)",
        ),
        (
            r"(layers?|weights) (are )?shared|same (layer|weights)",
            r"(not|never) chained|stack'?s input",
            r"masks? (are )?(swapped|in the wrong order)",
            r"final (layer ?)?norm",
            r"revers\w* order",
        ),
        edits=(
            (
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)",
                "        for _ in range(len(self.layers)):\n"
                "            for layer in self.layers:\n"
                "                x = layer(x, memory, src_mask, tgt_mask)",
            ),
        ),
    ),
    _c(
        "dec-src-mask-tiled-per-head",
        L08,
        "Decoder",
        "gives the cross-attention one source mask per head by tiling the batch with "
        "src_mask.repeat(num_heads, 1, 1, 1) and viewing the result as (batch, num_heads, "
        "1, len_src): repeat tiles the sentences (mask 0, mask 1, mask 0, mask 1) where "
        "repeat_interleave would keep each sentence's copies together, so with more than "
        "one sentence the heads of a sentence read other sentences' padding masks (right "
        "for a batch of one or rows padded alike).",
        (
            r"repeat_interleave",
            r"\.repeat\b|repeat\(|tile",
            r"(other|another|wrong|neighbouring) sentences?'?s? (padding )?mask",
            r"(heads?|sentences?) (get|read|use|receive)s? .{0,30}(other|another|wrong) "
            r"(sentence|row)",
            r"mask.{0,40}(mixed|shuffled|interleaved) (across|between) (the )?(batch|sentences|rows)",
        ),
        (
            r"masks? (are )?(swapped|in the wrong order)|tgt_mask.{0,30}cross",
            r"(not|never) chained|stack'?s input",
            r"final (layer ?)?norm",
            r"src_mask (is )?(never|not) (passed|given)|without (the )?src_mask",
            r"mask (is )?(inverted|flipped)",
        ),
        edits=(
            (
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)",
                "        if src_mask is not None:  # one source mask per head\n"
                "            batch, heads = x.shape[0], self.layers[0].cross_attn.num_heads\n"
                "            src_mask = src_mask.expand(batch, 1, 1, -1)\n"
                "            src_mask = src_mask.repeat(heads, 1, 1, 1)"
                ".view(batch, heads, 1, -1)\n"
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)",
            ),
        ),
        source=MASK_REPEAT_TILES,
    ),
    # ---- 09 transformer --------------------------------------------------------------------
    _c(
        "tr-look-ahead-one-diagonal-too-many",
        L09,
        "Transformer",
        "builds the decoder's look-ahead part with torch.tril(..., diagonal=1), one "
        "diagonal too many: each target position may also attend to the next one, so the "
        "decoder reads the very token it must predict (the padding parts and the source "
        "mask are right).",
        (
            r"diagonal",
            r"next (target )?(token|position)",
            r"one (position|step|token) (ahead|too far|into the future)",
            r"(sees?|see|attend\w*|read\w*|leak\w*).{0,40}(the )?(next|following) "
            r"(token|position)",
            r"\bleak|\bpeek",
        ),
        (
            r"(look-?ahead|causal) mask (is )?(missing|dropped|absent)|no look-?ahead",
            r"(target )?padding (mask )?(is )?(missing|dropped)",
            r"source (padding )?mask.{0,30}(self-attention|target)",
            r"masks? (are )?(swapped|in the wrong order)",
            r"(mask|masks) (is |are )?(inverted|flipped)",
        ),
        edits=(
            (
                "tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)",
                "length = tgt_ids.shape[1]\n"
                "        future = torch.tril(torch.ones(length, length, dtype=torch.bool), "
                "diagonal=1)\n"
                "        tgt_mask = padding_mask(tgt_ids, self.pad_id) & future",
            ),
        ),
        source=MASK_SEES_WORD,
    ),
    _c(
        "cp-decoder-final-norm-under-output",
        L09,
        "count_parameters",
        "with final_norm=True files the decoder's final LayerNorm (2 * d_model) under "
        "'output' instead of 'decoder' (GPT's habit of counting ln_f with the output head): "
        "the total is right, the decoder's entry is 2 * d_model too small and the output's "
        "as much too large; without final norms every count is right.",
        (
            r"final (layer ?)?norm.{0,60}(output|head)",
            r"(output|head).{0,60}final (layer ?)?norm",
            r"ln_f",
            r"(filed|counted|put|placed) under .?output",
            r"(decoder|output).{0,40}(2 ?\* ?d_model|2·d_model|two d_model)",
        ),
        (
            r"final (layer ?)?norm.{0,40}(encoder only|once per layer|never counted|ignored|"
            r"not counted)",
            r"tie_embeddings|tied (table|matrix|output)",
            r"(forgets?|missing|without) (the |its )?bias",
            r"counts? (a |the )?positional|positional (table|encoding).{0,20}counted",
        ),
        edits=(
            (
                '"decoder": num_layers * decoder_layer + final,',
                '"decoder": num_layers * decoder_layer,',
            ),
            (
                '"output": vocab_size if tie_embeddings else table + vocab_size,',
                '"output": (vocab_size if tie_embeddings else table + vocab_size) + final,',
            ),
        ),
    ),
    _c(
        "gd-all-method-not-called",
        L09,
        "greedy_decode",
        "tests the stopping rule as `if finished.all:` without the call's parentheses: a "
        "bound method is always true, so the loop stops after its first step and every row "
        "gets one token (right only when max_len is 1 or every row ends at its first "
        "token).",
        (
            r"parenthes",
            r"(method|function) (object )?(is )?(always )?(true|truthy)",
            r"(stops|breaks|ends|exits).{0,40}(after|at) (the|its) first (step|token)",
            r"(never|not) called",
            r"(only|just) one (token|step|column)",
        ),
        (
            r"(any|first) row (has )?finished|finished\.any",
            r"(no|without|missing) (the )?break|never stops",
            r"(pad|padding) after (its|their|the) <eos>|keeps generating after",
            r"(keeps|returns|with) <bos>",
        ),
        edits=(("if finished.all():", "if finished.all:"),),
        source=FORGOT_PARENTHESES,
    ),
    # ---- 10 training -----------------------------------------------------------------------
    _c(
        "qtf-reads-unshifted-target",
        L10,
        "quiz_teacher_forcing",
        "answers (d): in the teacher-forced step the decoder would read the target itself, "
        "el gato negro bebe, not shifted right, so at the position that must produce *bebe* "
        "it would already read *bebe*; the decoder input is <bos> plus the reference's "
        "tokens before that position, <bos> el gato negro (and greedy decoding reads its own "
        "<bos> el gato blanco): (a).",
        (
            r"shift\w* (one position )?(to the )?right|shifted",
            r"(reads?|see|sees|given) (the )?(very )?(token|word) (it|that it) (must|should|has "
            r"to) predict",
            r"(starts?|begins?) with <bos>|<bos> (in front|first)",
        ),
        (
            r"own (mistaken )?predictions?.{0,40}(training|teacher)",
            r"(reference|gold) (prefix|tokens?).{0,40}(inference|greedy)",
            r"look-?ahead mask (is )?(off|switched off|removed)",
        ),
        code="""
def quiz_teacher_forcing():
    return "d"
""",
        source=SHIFTED_RIGHT,
    ),
    _c(
        "mb-batch-size-read-as-token-budget",
        L10,
        "make_batches",
        "reads batch_size as a budget of source tokens per batch (fairseq's --max-tokens) "
        "and fills each batch with as many pairs as fit in it, instead of batch_size pairs: "
        "the batches hold varying numbers of sentences (one each when batch_size is smaller "
        "than a sentence).",
        (
            r"tokens? (budget|per batch)|max.?tokens|number of tokens",
            r"batch_size (pairs|sentences)|(pairs|sentences|rows) per batch",
            r"(wrong|varying|different) number of (pairs|sentences|rows)",
            r"batch \d+ (holds|has|should hold|must hold) .{0,30}(pairs|sentences|rows)",
        ),
        (
            r"last batch (is )?(dropped|missing)",
            r"(shuffl|order).{0,30}(wrong|differs|seed)",
            r"pad\w* on the left|left-pad",
            r"(labels|decoder_input).{0,40}(shift|<bos>|<eos>)",
        ),
        code="""
import torch


def make_batches(pairs, batch_size, *, pad_id=PAD_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                 shuffle=False, seed=0):
    order = list(range(len(pairs)))
    if shuffle:
        generator = torch.Generator().manual_seed(seed)
        order = torch.randperm(len(pairs), generator=generator).tolist()
    chunks, chunk, tokens = [], [], 0
    for i in order:  # batch_size counts source tokens, as fairseq's --max-tokens
        size = len(pairs[i][0])
        if chunk and tokens + size > batch_size:
            chunks.append(chunk)
            chunk, tokens = [], 0
        chunk.append(pairs[i])
        tokens += size
    if chunk:
        chunks.append(chunk)
    batches = []
    for chunk in chunks:
        src = pad_batch([list(source) for source, _ in chunk], pad_id)
        decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)
        labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)
        batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, labels)))
    return batches
""",
        source=MAX_TOKENS,
    ),
    _c(
        "noam-cosine-decay-after-warmup",
        L10,
        "noam_lr",
        "decays after the warm-up along a cosine from the peak down to a tenth of it over "
        "ten warm-ups (nanoGPT's get_lr: linear warm-up, then cosine decay) instead of like "
        "1 / sqrt(step): the warm-up line and the peak are right, every rate after the peak "
        "is not (too high at first, then too low, flat at the floor).",
        (
            r"cos",
            r"1 ?/ ?sqrt\(?step|step ?\*\* ?-0\.5|inverse (square )?root",
            r"decay\w*.{0,40}(sqrt|square root)",
            r"(after|past|beyond) (the )?(warm-?up|peak).{0,60}(decay|wrong|differ|too)",
            r"decay(ing)? (branch|phase|part|term)",
        ),
        (
            r"warm-?up (branch|line|term|phase).{0,30}(wrong|differs)|warmup ?\*\* ?-0\.5",
            r"max\b.{0,20}(instead of|rather than) (the )?min",
            r"step 0|zero ?division",
            r"d_model ?\*\* ?0\.5|sqrt\(d_model\)|d_model factor",
        ),
        code="""
import math


def noam_lr(step, d_model, warmup):
    step = max(step, 1)
    peak = d_model**-0.5 * warmup**-0.5
    if step < warmup:
        return peak * step / warmup
    total = 10 * warmup  # then a cosine down to a tenth of the peak
    progress = min((step - warmup) / (total - warmup), 1.0)
    floor = 0.1 * peak
    return floor + 0.5 * (peak - floor) * (1 + math.cos(math.pi * progress))
""",
        source=COSINE_DECAY,
    ),
    _c(
        "ls-binary-cross-entropy-per-token",
        L10,
        "label_smoothed_loss",
        "scores every vocabulary entry as its own yes/no question: binary cross-entropy of "
        "sigmoid(logits) against the smoothed target, summed over the V tokens "
        "(BCEWithLogitsLoss, the multi-label loss), instead of the cross-entropy of "
        "softmax(logits): the tokens are not normalised against each other, so the loss "
        "changes when the same constant is added to every logit.",
        (
            r"sigmoid",
            r"binary cross-?entropy|\bbce",
            r"multi-?label",
            r"(not|never) (a |the )?softmax|without (a |the )?softmax|softmax over the "
            r"(vocabulary|last axis)",
            r"(constant|same value) (is )?(added|shift\w*).{0,40}logits",
            r"(normali[sz]ed|normalised) (across|over|against) (the |each other|one another)",
        ),
        (
            r"\bv ?- ?1\b|over the other tokens",
            r"kl[- ]divergence",
            r"pad\w* (positions? )?(counted|included|in the (mean|denominator))",
            r"(smoothing|uniform) term (is )?(missing|dropped|summed)",
            r"log_softmax over (axis|dim) (0|1)",
        ),
        code="""
import torch
import torch.nn.functional as F


def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    vocab = logits.shape[-1]
    keep = labels != pad_id
    safe = labels.masked_fill(~keep, 0)
    target = F.one_hot(safe, vocab).to(logits.dtype) * (1 - smoothing) + smoothing / vocab
    loss = F.binary_cross_entropy_with_logits(logits, target, reduction="none").sum(-1)
    return loss[keep].mean()
""",
        source=BCE_MULTICLASS,
    ),
    _c(
        "ts-optimizer-steps-every-second-call",
        L10,
        "train_step",
        "accumulates gradients over two calls (the gradient-accumulation recipe: loss / 2 "
        "back-propagated at every call, clipping, optimizer.step() and zero_grad() only at "
        "every second call, counted on the function): the first call, and every odd one, "
        "changes no parameter, and each step applies half the sum of two batches' "
        "gradients.",
        (
            r"accumulat",
            r"(every|each) (second|other|2nd) (call|step)",
            r"(first|odd) call.{0,60}(no|never|not).{0,20}(step|update|change)",
            r"(optimizer\.step\(\)|optimizer'?s? step|the step) (is |was )?(not|never) "
            r"(taken|called|made)|no (optimizer )?step",
            r"(parameters?|weights) (did not|didn't|do not|never|not) (change|move|update)",
            r"(parameters?|weights) (are |were |stay |stayed )?unchanged",
            r"(divid|halv|scal)\w* (the )?loss",
        ),
        (
            r"zero_grad.{0,40}(never|not|missing)|gradients? (are |were )?(never|not) cleared",
            r"clip\w* (after|before) (the )?(step|backward)",
            r"eval mode|(not|never) in training mode",
            r"clip_grad_value|clip\w* (each|every) parameter",
        ),
        code="""
import torch

ACCUMULATION_STEPS = 2


def train_step(model, batch, optimizer, loss_fn, clip_norm=1.0):
    model.train()
    src, decoder_input, labels = batch
    logits = model(src, decoder_input)
    loss = loss_fn(logits, labels)
    (loss / ACCUMULATION_STEPS).backward()
    train_step.calls = getattr(train_step, "calls", 0) + 1
    if train_step.calls % ACCUMULATION_STEPS == 0:
        if clip_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        optimizer.step()
        optimizer.zero_grad()
    return loss.item()
""",
        source=ACCUMULATION,
    ),
    _c(
        "tsc-bleu-effective-order",
        L10,
        "translation_scores",
        "calls sacrebleu.corpus_bleu with use_effective_order=True (sentence_bleu's "
        "setting) instead of its default settings: when some n-gram order has no match in "
        "the whole corpus, that order is left out of the geometric mean instead of being "
        "smoothed, so BLEU comes out higher (the same while every order up to 4-grams has a "
        "match).",
        (
            r"effective.?order",
            r"(n-?gram )?orders? (with no|without (a |any )?)match",
            r"(default|default settings).{0,40}(corpus_bleu|sacrebleu)|sacrebleu'?s? defaults",
        ),
        (
            r"lower-?case|case-insensitive",
            r"tokeni[sz]e",
            r"(references?|streams?) (are )?(not )?transposed|one list per sentence",
            r"averag\w* (of )?(per-)?sentence",
            r"0-1 scale|/ ?100\b",
        ),
        edits=(
            (
                "sacrebleu.corpus_bleu(hypotheses, streams).score",
                "sacrebleu.corpus_bleu(hypotheses, streams, use_effective_order=True).score",
            ),
        ),
        source=EFFECTIVE_ORDER,
    ),
    _c(
        "bs-finished-list-reset-every-step",
        L10,
        "beam_search",
        "empties the list of finished hypotheses at the start of every step, together with "
        "the new beam (new_beam, finished = [], []), instead of once per sentence: hypotheses "
        "that ended with <eos> at an earlier step are forgotten, so the stopping rule and the "
        "answer only see those that finished at the last step (or fall back on the best live "
        "hypothesis when none did).",
        (
            r"(forgot|forget|forgets|lost|loses|drops?|discard\w*|throw\w* away) .{0,40}"
            r"(finished|completed|ended)",
            r"(finished|completed) (hypothes[ie]s|list).{0,60}(reset|emptied|cleared|"
            r"re-?initiali[sz]ed|forgotten|lost)",
            r"(reset|empt\w*|clear\w*|re-?initiali[sz]\w*) .{0,30}(every|each) step",
            r"earlier steps?'? (finished|hypothes)",
            r"(finished|ended) (at|in) (an )?earlier step",
        ),
        (
            r"finished.{0,30}(shared|kept) (across|between) (rows|sentences)",
            r"(never|not) (reset|re-?initiali[sz]ed) (per|for each) sentence",
            r"stop\w* (as soon as|when) (any|the first|one) hypothes",
            r"(length|\bL\b).{0,30}(without|leaves out|excluding) (the )?<eos>|counts <bos>",
            r"(raw|unnormali[sz]ed) score",
        ),
        edits=(
            (
                "                new_beam = []\n",
                "                new_beam, finished = [], []\n",
            ),
        ),
    ),
    _c(
        "qlf-uniform-prediction-log-v",
        L10,
        "quiz_loss_floor",
        "answers 2.303 = ln 10, the loss of a model that predicts the uniform distribution "
        "(the loss to expect at initialisation, -log(1/V)), taking that starting value for "
        "the smallest one: the floor is the entropy of the smoothed target, 0.500, reached "
        "when the model predicts that target exactly.",
        (
            r"ln ?\(?10|log ?\(?10|log ?\(?v\)?\b|-log\(1/",
            r"uniform",
            r"(initiali[sz]ation|at init|starting|start(s|ing)?) (loss|value|point)",
            r"loss (at|before) (the start|training|initiali[sz]ation)",
        ),
        (
            r"in bits|log ?2\b|base[- ]2",
            r"v ?- ?1\b|fairseq",
            r"-log\(0\.9\)|0\.105",
            r"one-hot (target|cross-entropy)|floor of (the )?plain",
        ),
        code="""
def quiz_loss_floor():
    return 2.303
""",
        source=LOSS_AT_INIT,
    ),
]
