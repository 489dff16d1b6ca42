"""Held-out wrong answers, blind round 25 (helper b25b, 2026-11-29, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 27 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind25b")

# Where these mistakes are reported (each page was read for this batch).
RMSNORM_NO_CENTERING = "https://github.com/mit-han-lab/omniserve/issues/32"
BERT_GELU = "https://github.com/pytorch/pytorch/pull/24181"
PLAIN_LIST_LAYERS = (
    "https://runebook.dev/zh/docs/pytorch/generated/torch.nn.modulelist/torch.nn.ModuleList"
)
CROSS_NO_PADDING_MASK = "https://github.com/facebookresearch/fairseq/issues/318"
SOFTMAX_OUTPUT = (
    "https://datascience.stackexchange.com/questions/85790/"
    "why-this-tensorflow-transformer-model-has-linear-output-instead-of-softmax"
)
IGNORE_INDEX_UNUSED = "https://github.com/lucidrains/DALLE-pytorch/issues/57"
SMOOTHING_COUNTS_IGNORED = "https://github.com/pytorch/pytorch/issues/73205"
ZERO_GRAD_PLACEMENT = "https://theneuralbase.com/pytorch/learn/beginner/training-loop-structure/"
CROSS_MASK_SHAPE = "https://github.com/joeynmt/joeynmt/issues/151"
TIED_DOUBLE_SUBTRACTED = "https://github.com/pytorch/torchtitan/pull/3225"
EXACT_WORD_SETS = "https://github.com/UKGovernmentBEIS/inspect_ai/issues/4618"
BEAM_PROBABILITIES = "https://github.com/atulkum/pointer_summarizer/issues/26"
EOS_IN_FRONT = "https://github.com/uber-research/PPLM/issues/47"

BLIND25B: list[Case] = [
    # ---- 07 encoder -----------------------------------------------------------------------
    _c(
        "ln-rms-without-centering",
        L07,
        "LayerNorm",
        "normalises the RMSNorm way: divides x by the root of the mean of its squares "
        "(sqrt(mean(x**2) + eps)) without ever subtracting the mean, so a token whose features "
        "do not average to zero is not re-centred.",
        (
            r"rms|root[- ]mean[- ]square",
            r"(never|not|without|forg[eo]t\w*( to)?) (subtract\w*|remov\w*|centr\w*|cent\w*) "
            r"(the )?mean",
            r"mean (is )?(never|not) (subtracted|removed)",
            r"re-?cent(e|r)",
            r"mean of (the )?squares",
        ),
        (
            r"unbiased|d ?- ?1",
            r"over the (batch|positions?|sequence)",
            r"eps (outside|added to the std)",
            r"(weight|gain) and (bias|shift) (swapped|exchanged)",
        ),
        edits=(
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "mean = 0\n        variance = (x * x).mean(dim=-1, keepdim=True)",
            ),
        ),
        source=RMSNORM_NO_CENTERING,
    ),
    _c(
        "ln-functional-weight-bias-swapped",
        L07,
        "LayerNorm",
        "calls F.layer_norm(x, (d_model,), self.bias, self.weight, self.eps): the gain and the "
        "bias go in each other's positional slots, so the normalised vector is multiplied by the "
        "bias and shifted by the gain (a fresh layer returns all ones).",
        (
            r"(weight|gain|gamma) and (the )?(bias|beta|shift) (are )?(swapped|exchanged|"
            r"in each other'?s|reversed|the wrong way)",
            r"(bias|beta) (is |used )?(as|in place of|where) the (weight|gain|scale)",
            r"multipl\w+ by (the )?bias",
            r"(weight|gain|bias) (argument|slot|position)",
        ),
        (
            r"rms|root[- ]mean[- ]square",
            r"unbiased|d ?- ?1",
            r"over the (batch|positions?|sequence)",
            r"(gain|weight) (initiali[sz]ed|init) (to|with) (random|zeros?)",
        ),
        code="""
import torch
from torch import nn
from torch.nn import functional as F


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        return F.layer_norm(x, (x.shape[-1],), self.bias, self.weight, self.eps)
""",
    ),
    _c(
        "ffn-gelu-activation",
        L07,
        "PositionwiseFeedForward",
        "uses GELU (F.gelu, BERT's and GPT's activation) for the hidden layer instead of the "
        "paper's ReLU: small negative pre-activations leak through and positive ones are bent.",
        (
            r"gelu",
            r"relu",
            r"activation",
        ),
        (
            r"tanh",
            r"dropout (is )?(after|on the output of) w_2",
            r"residual",
            r"(relu|activation) (after|on) w_2|output (is )?never negative",
        ),
        edits=(("hidden = torch.relu(self.w_1(x))", "hidden = nn.functional.gelu(self.w_1(x))"),),
        source=BERT_GELU,
    ),
    _c(
        "el-attention-tuple-not-indexed",
        L07,
        "EncoderLayer",
        "adds the self-attention's whole return value to the residual stream, forgetting the [0] "
        "that takes the output out of the (output, attention weights) pair lesson 05's "
        "MultiHeadAttention returns, so the layer fails on a tuple (in both layouts).",
        (
            r"tuple|pair",
            r"\[0\]",
            r"(attention )?weights",
            r"(returns|gives) (two|2|both)",
        ),
        (
            r"mask (is )?(not|never) passed|without the mask",
            r"(residual|skip) (connection )?(is )?(missing|forgotten|dropped)",
            r"norm1 and norm2",
            r"pre-?ln|post-?ln",
        ),
        edits=(
            (
                "x = x + self.dropout(self.self_attn(h, h, h, mask)[0])",
                "x = x + self.dropout(self.self_attn(h, h, h, mask))",
            ),
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)))",
            ),
        ),
    ),
    _c(
        "enc-layers-in-plain-list",
        L07,
        "Encoder",
        "keeps the layers in a plain Python list instead of nn.ModuleList, so they are not "
        "registered as sub-modules: the encoder has no parameters of its layers "
        "(model.parameters(), state_dict, .to() and .train()/.eval() never reach them), "
        "although its forward values are right.",
        (
            r"modulelist",
            r"(plain|python|ordinary|regular) list",
            r"(not|never) registered|unregistered",
            r"(no|missing) (layer )?parameters|parameters? (are )?(missing|not (found|seen))",
            r"state_dict",
        ),
        (
            r"share (one|the same) (set of )?weights|same layer object",
            r"final (layer)?norm",
            r"mask (is )?(not|never) passed",
            r"residual (connection )?around",
        ),
        edits=(("self.layers = nn.ModuleList(", "self.layers = list("),),
        source=PLAIN_LIST_LAYERS,
    ),
    # ---- 08 decoder -----------------------------------------------------------------------
    _c(
        "dl-post-ln-cross-without-src-mask",
        L08,
        "DecoderLayer",
        "post-LN: calls the cross-attention without the source padding mask, "
        "cross_attn(x, memory, memory), so every target position attends to the padded source "
        "positions too; the pre-LN branch passes it.",
        (
            r"src_mask",
            r"source (padding )?mask",
            r"(attend\w*|attention) (to|on) (the )?(source |memory )?pad",
            r"pad\w* (source |memory )?(positions?|tokens?) (are |is )?(not |never )?(masked|hidden)",
            r"cross-?attention\W+(\w+\W+){0,6}(without|no|ignor\w+|miss\w+) (the |a |its )?mask",
        ),
        (
            r"tgt_mask (is )?(used|given|passed) (for|to) the cross",
            r"look-?ahead",
            r"queries (come )?from (the )?memory",
            r"norm[123] (is )?(missing|never used|unused)",
        ),
        edits=(
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory)[0]))",
            ),
        ),
        source=CROSS_NO_PADDING_MASK,
    ),
    _c(
        "dec-layers-run-in-reverse",
        L08,
        "Decoder",
        "runs the layers from the last to the first (for layer in reversed(self.layers)), so the "
        "input goes through layers[-1] first and layers[0] last: each layer's weights act at the "
        "wrong depth (the same as the reference only with one layer).",
        (
            r"revers\w+",
            r"(wrong|backwards?|opposite|inverse) order",
            r"(last|top) layer (runs? |is applied )?first",
            r"layers\[0\] (runs? |is applied )?last",
        ),
        (
            r"skip\w* (the )?first layer|num_layers ?- ?1 layers",
            r"share (one|the same) (set of )?weights",
            r"final (layer)?norm",
            r"masks? (are |is )?(swapped|exchanged)",
        ),
        edits=(("for layer in self.layers:", "for layer in reversed(self.layers):"),),
    ),
    # ---- 09 transformer -------------------------------------------------------------------
    _c(
        "tr-decode-returns-probabilities",
        L09,
        "Transformer",
        "ends decode with a softmax (the paper's figure has one after the linear layer), so "
        "forward returns probabilities that sum to 1 over the vocabulary instead of the raw, "
        "unnormalised logits of the output layer.",
        (
            r"softmax",
            r"probabilit",
            r"(raw|unnormali[sz]ed) (scores|logits)",
            r"sum to (one|1)",
        ),
        (
            r"log[-_ ]?softmax|log-?probabilit",
            r"masks? (are |is )?(swapped|exchanged)",
            r"sqrt\(d_model\)|scal\w+ (the )?embedding",
            r"positional encoding",
        ),
        edits=(("return self.output(y)", "return torch.softmax(self.output(y), dim=-1)"),),
        source=SOFTMAX_OUTPUT,
    ),
    _c(
        "tr-cross-mask-from-target-padding",
        L09,
        "Transformer",
        "builds the cross-attention's mask from the target ids (padding_mask(tgt_ids, pad_id)) "
        "instead of the source ids: the mask has the target's length and padding, so the decoder "
        "attends to the source padding (and the shapes clash when the lengths differ).",
        (
            r"padding_mask\(tgt_ids",
            r"(source|src|cross[- ]attention'?s?) (padding )?mask\W+(\w+\W+){0,8}(target|tgt)",
            r"(from|of|on) (the )?(target|tgt)(_ids| ids)? instead of (the )?(source|src)",
            r"source pad\w*",
        ),
        (
            r"look-?ahead (mask )?(sized|built) (by|from) (the )?source",
            r"masks? (are |is )?(swapped|exchanged)",
            r"pad(_| )id (0 )?(hard-?coded|written in)",
            r"target padding (is )?(missing|left out)",
        ),
        edits=(
            (
                "src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)\n"
                "        y = self.positional_encoding(self.tgt_embedding(tgt_ids))",
                "src_mask = padding_mask(tgt_ids, self.pad_id)\n"
                "        y = self.positional_encoding(self.tgt_embedding(tgt_ids))",
            ),
        ),
        source=CROSS_MASK_SHAPE,
    ),
    # ---- 10 training ----------------------------------------------------------------------
    _c(
        "ls-cross-entropy-without-ignore-index",
        L10,
        "label_smoothed_loss",
        "calls F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), "
        "label_smoothing=smoothing) without ignore_index=pad_id, so the padded positions are "
        "trained to predict <pad> and counted in the mean like real ones.",
        (
            r"ignore_index",
            r"pad\w* (positions?|tokens?|labels?) (are |is )?(not |never )?(ignored|excluded|masked)",
            r"(includ\w+|count\w+) (the )?pad",
            r"(ignore|skip|exclude) (the )?pad",
        ),
        (
            r"v ?- ?1|other tokens",
            r"kl[- ]?div",
            r"class (axis|dim)|dim(ension)? 1",
            r"smoothing (is )?(spread|applied) to the predictions",
        ),
        code="""
import torch.nn.functional as F


def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    vocab = logits.shape[-1]
    return F.cross_entropy(
        logits.reshape(-1, vocab), labels.reshape(-1), label_smoothing=smoothing
    )
""",
        source=IGNORE_INDEX_UNUSED,
    ),
    _c(
        "ls-smoothing-term-over-every-position",
        L10,
        "label_smoothed_loss",
        "averages the -log p[y] term over the real positions only but the smoothing term "
        "(the mean of -log p over the vocabulary) over every position, padding included, so "
        "the padded positions still pull on the loss through the smoothing part.",
        (
            r"smoothing (term|part)\W+(\w+\W+){0,10}pad",
            r"pad\w*\W+(\w+\W+){0,10}smoothing (term|part)",
            r"(uniform|smoothing) (term|part) (is )?(averaged|taken) over (every|all)",
        ),
        (
            r"v ?- ?1|other tokens",
            r"kl[- ]?div",
            r"weights? (are )?swapped",
            r"sum\w* over the vocab",
        ),
        edits=(
            (
                "loss = (1 - smoothing) * target + smoothing * uniform  # (...)\n"
                "    return loss[keep].mean()",
                "return (1 - smoothing) * target[keep].mean() + smoothing * uniform.mean()",
            ),
        ),
        source=SMOOTHING_COUNTS_IGNORED,
    ),
    _c(
        "ts-zero-grad-before-step",
        L10,
        "train_step",
        "clears the gradients between loss.backward() and optimizer.step() (zero_grad moved up "
        "a line), so the step always sees zero gradients and the parameters never change "
        "(Adam and SGD without weight decay leave them exactly as they were).",
        (
            r"zero_grad\W+(\w+\W+){0,8}(before|ahead of) (the )?(optimizer\.)?step",
            r"(between|after) (loss\.)?backward\W+(\w+\W+){0,4}(and|before) (the )?(optimizer\.)?step",
            r"gradients? (are )?(cleared|zeroed|erased) before (the )?(optimizer )?step",
            r"(parameters?|weights?) (never|did not|do not|don'?t) (change|move|update)",
        ),
        (
            r"clip\w* before (loss\.)?backward",
            r"step\(\) before (loss\.)?backward",
            r"eval mode",
            r"accumulat\w+",
        ),
        edits=(
            (
                "    optimizer.step()\n    optimizer.zero_grad()",
                "    optimizer.zero_grad()\n    optimizer.step()",
            ),
        ),
        source=ZERO_GRAD_PLACEMENT,
    ),
    _c(
        "noam-max-instead-of-min",
        L10,
        "noam_lr",
        "takes the larger of the two terms, max(step ** -0.5, step * warmup ** -1.5), instead "
        "of the smaller: the rate starts at its highest (d_model ** -0.5 at step 1), falls "
        "until warmup and then grows linearly without end, the schedule turned inside out.",
        (
            r"\bmax\b",
            r"larger|largest|bigger|greater",
            r"(instead of|not) (the )?min",
            r"grows? (linearly )?(without end|forever|after (the )?warm-?up)",
        ),
        (
            r"d_model and warmup (are )?swapped",
            r"branches (are )?swapped",
            r"one step (late|early)|shifted",
            r"exponent",
        ),
        edits=(("min(step**-0.5, step * warmup**-1.5)", "max(step**-0.5, step * warmup**-1.5)"),),
    ),
    _c(
        "gd-stops-when-first-row-finishes",
        L09,
        "greedy_decode",
        "stops the loop when the first sentence's new token is <eos> (if next_token[0] == "
        "eos_id: break, the batch-of-one test), so the other rows are cut short as soon as row "
        "0 finishes, and rows that finished earlier do not end the loop.",
        (
            r"(first|row 0|0th|one) (row|sentence)('s)?\W+(\w+\W+){0,8}(stop|break|end)",
            r"next_token\[0\]",
            r"(stop|break|end)\w*\W+(\w+\W+){0,8}(first|row 0|0th) (row|sentence)",
            r"(instead of|not) (when )?(every|all) rows?",
            r"other rows?\W+(\w+\W+){0,6}(cut|stopp?ed|truncated|short)",
        ),
        (
            r"any row",
            r"max_len ?\+ ?1|one step too many",
            r"pad(ded|s)? (with|by) (the )?eos|<eos> (is )?(overwritten|replaced)",
            r"last position",
        ),
        edits=(
            (
                "if finished.all():",
                "if next_token[0] == eos_id:",
            ),
        ),
    ),
    _c(
        "cp-tied-table-subtracted-twice",
        L09,
        "count_parameters",
        "with tie_embeddings=True removes the shared matrix once for the target table and once "
        "more for the output weight from 'embeddings' (2 * table - 2 * table = 0) while 'output' "
        "already leaves the weight out: the one shared matrix is not counted anywhere.",
        (
            r"shared (matrix|table|weight)\W+(\w+\W+){0,10}(not counted|never counted|missing|left out|nowhere)",
            r"(subtract\w*|remov\w*) (\w+ ){0,4}twice",
            r"embeddings\W+(\w+\W+){0,6}(0|zero)",
            r"(count|include) (the shared (matrix|table)|it) once",
        ),
        (
            r"bias",
            r"two tables|counted twice",
            r"num_layers",
            r"final (layer ?)?norm",
        ),
        edits=(
            (
                '"embeddings": table if tie_embeddings else 2 * table,',
                '"embeddings": 2 * table - 2 * table if tie_embeddings else 2 * table,',
            ),
        ),
        source=TIED_DOUBLE_SUBTRACTED,
    ),
    _c(
        "tsc-exact-match-word-sets",
        L10,
        "translation_scores",
        "counts an exact match when the hypothesis has the same set of words as a reference "
        "(set(h.split()) == set(r.split())), so a translation with the words in another order or "
        "a word repeated or dropped still counts as exact.",
        (
            r"\bsets?\b",
            r"(word )?order",
            r"repeat\w*|duplicat\w*",
            r"same words",
        ),
        (
            r"lower-?case|case-?insensitive",
            r"first reference",
            r"0-100|percent",
            r"streams?",
        ),
        edits=(
            (
                "exact = sum(h in refs for h, refs in zip(hypotheses, references)) / len(hypotheses)",
                "exact = sum(\n"
                "        any(set(h.split()) == set(r.split()) for r in refs)\n"
                "        for h, refs in zip(hypotheses, references)\n"
                "    ) / len(hypotheses)",
            ),
        ),
        source=EXACT_WORD_SETS,
    ),
    _c(
        "bs-scores-add-probabilities",
        L10,
        "beam_search",
        "scores the candidates with softmax probabilities instead of log-probabilities "
        "(torch.softmax where log_softmax belongs) and adds them up, so a hypothesis's score is "
        "a sum of probabilities, which grows with every token, instead of the log of their product.",
        (
            r"log[-_ ]?softmax",
            r"log[- ]?probabilit",
            r"(sum|add\w*) (of |up )?(the )?probabilit",
            r"probabilities (are )?(added|summed)",
        ),
        (
            r"length penalty",
            r"(not|never) accumulat\w+|new token'?s? (log-?probability )?alone",
            r"beam axis|dim=0",
            r"stop\w* (condition|test)",
        ),
        edits=(
            (
                "log_probs = torch.log_softmax(logits[:, -1], dim=-1)",
                "log_probs = torch.softmax(logits[:, -1], dim=-1)",
            ),
        ),
        source=BEAM_PROBABILITIES,
    ),
    _c(
        "mb-labels-eos-in-front",
        L10,
        "make_batches",
        "puts the <eos> in front of the target in the labels ([eos_id] + target instead of "
        "target + [eos_id]), so each label is the token the decoder has just read, not the next "
        "one, and the last position's label is the last word instead of <eos>.",
        (
            r"eos\W+(\w+\W+){0,6}(front|beginning|start|first|prepended|before the target)",
            r"(front|beginning|start)\W+(\w+\W+){0,4}eos",
            r"target \+ \[eos",
            r"eos\W+(\w+\W+){0,4}(at|to) the end",
            r"(not|never) shifted|same (token|position) (as|it) (the decoder )?reads",
        ),
        (
            r"bos\W+(\w+\W+){0,4}(missing|left out)",
            r"pad\w* (on )?the left",
            r"(shift\w*|shifted) twice",
            r"int32|float",
        ),
        edits=(
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([[eos_id, *target] for _, target in chunk], pad_id)",
            ),
        ),
        source=EOS_IN_FRONT,
    ),
]
