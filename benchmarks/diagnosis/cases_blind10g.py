"""Held-out wrong answers for lessons 05-08, blind round 10, second batch (helper b10g,
2026-11-27), written after round 10's first fixes of these lessons (r10d).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Half transpose a mistake described in a public report (the URL read for this benchmark
with the search tool) to the course's exercise; the others are the author's. Kinds favoured:
wrong types and shapes returned (a tuple of heads, a 4-D merge, a flattened feed-forward, a
stack of every layer's output), mistakes that only show on some inputs (a batch of one, a
row without padding, sizes above a window, a 2-D or 4-D LayerNorm input, non-default
LayerNorm parameters, training mode, len_src != len_tgt, target padding, positional calls),
raw exceptions from the learner's own code (k.T on 4-D tensors, Python `and` on masks,
nn.ReLU without parentheses, the mask in the value slot, w_o before the merge), gradients
cut by torch.no_grad, and two mistakes at once (a parallel sub-layer layout).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06, L07, L08 = (
    "05_multi_head_attention",
    "06_masking",
    "07_encoder",
    "08_decoder",
)

# The reports these cases transpose (each read with the search tool for this benchmark).
SPLIT_RETURNS_LIST = "https://github.com/pytorch/pytorch/issues/38550"
SQUEEZE_BATCH_OF_ONE = "https://github.com/NVIDIA/DeepLearningExamples/pull/765"
LINEAR_WEIGHT_NOT_TRANSPOSED = "https://github.com/pytorch/pytorch/issues/139598"
DOT_T_ON_4D = "https://github.com/deepset-ai/haystack/pull/9393"
ARGMAX_FIRST_PAD = "https://github.com/huggingface/transformers/issues/35909"
WINDOW_TESTED_SHORT = "https://github.com/Lightning-AI/litgpt/issues/1552"
DIAGONAL_GUARD = "https://github.com/kornia/kornia/pull/4165"
PYTHON_AND_ON_TENSORS = "https://github.com/Atcold/pytorch-CortexNet/issues/10"
PARALLEL_RESIDUAL = "https://github.com/huggingface/transformers/pull/18695"
ATTENTION_DROPOUT_NOT_SET = "https://github.com/OpenNMT/OpenNMT-py/pull/1830"
NORM_NOT_APPLIED = "https://github.com/iCog-Labs-Dev/PC-Transformers/issues/46"
TGT_MASK_WITHOUT_PADDING = "https://github.com/minqukanq/transformer-pytorch/issues/1"

_c = held_out_authored("blind10g")

_MHA_INIT = (
    "class MultiHeadAttention(nn.Module):\n"
    "    def __init__(self, d_model, num_heads, dropout=0.0):\n"
    "        super().__init__()\n"
    "        if d_model % num_heads:\n"
    "            raise ValueError('d_model must be divisible by num_heads')\n"
    "        self.d_model, self.num_heads = d_model, num_heads\n"
    "        self.w_q = nn.Linear(d_model, d_model)\n"
    "        self.w_k = nn.Linear(d_model, d_model)\n"
    "        self.w_v = nn.Linear(d_model, d_model)\n"
    "        self.w_o = nn.Linear(d_model, d_model)\n"
    "        self.dropout = nn.Dropout(dropout)\n"
    "\n"
)

BLIND10G: list[Case] = [
    # ------------------------------------------------------------------ 05 multi-head attention
    _c(
        "split-returns-tuple-of-heads",
        L05,
        "split_heads",
        "cuts the features with torch.split(x, d_head, dim=-1) and returns its result as it "
        "comes: a tuple of num_heads tensors (batch, len, d_head), never stacked into one "
        "(batch, num_heads, len, d_head) tensor.",
        (
            r"tuple|list",
            r"torch\.stack|stack\w* (them|the (heads|pieces))",
            r"not a (torch\.)?tensor|instead of a (torch\.)?tensor",
        ),
        (r"transpos", r"float|dtype", r"contiguous"),
        code="def split_heads(x, num_heads):\n"
        "    d_head = x.shape[-1] // num_heads\n"
        "    return torch.split(x, d_head, dim=-1)\n",
        source=SPLIT_RETURNS_LIST,
    ),
    _c(
        "merge-squeeze-drops-batch-of-one",
        L05,
        "merge_heads",
        "ends with a bare .squeeze() (meant to tidy the result), which also removes the "
        "batch axis when the batch holds one sequence (and the length axis for a single "
        "token): right for batch > 1, (len, d_model) for a batch of one.",
        (
            r"squeeze",
            r"batch (size )?(of )?(1|one)\b",
            r"(one|single|1) (sequence|sentence|row)",
            r"batch (axis|dim\w*).{0,40}(dropped|removed|missing|lost|squeezed)",
            r"(dropped|removed|lost|squeezed).{0,40}batch (axis|dim)",
        ),
        (r"transpos", r"float|dtype", r"hard[- ]?cod"),
        edits=[
            (
                "x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "x.transpose(1, 2).reshape(batch, length, num_heads * d_head).squeeze()",
            )
        ],
        source=SQUEEZE_BATCH_OF_ONE,
    ),
    _c(
        "merge-forgets-reshape",
        L05,
        "merge_heads",
        "transposes the heads back next to the features but never reshapes: returns the 4-D "
        "(batch, len, num_heads, d_head) instead of concatenating the heads into "
        "(batch, len, num_heads * d_head).",
        (
            r"reshape|flatten|concatenat|\bconcat\b",
            r"(4|four)[- ]?(d\b|dim|axes)",
            r"\(batch, len, num_heads, d_head\)",
            r"(one|an) (extra|additional) ax",
        ),
        (
            r"(forgot|missing|without|no) (the )?transpos",
            r"float|dtype",
        ),
        edits=[
            (
                "x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "x.transpose(1, 2)",
            )
        ],
    ),
    _c(
        "mha-projection-weight-not-transposed",
        L05,
        "MultiHeadAttention",
        "projects the queries, keys and values by hand as x @ w.weight + w.bias, but "
        "nn.Linear stores its weight as (out, in) and computes x @ weight.T + bias: the "
        "square matrices are applied transposed (the shapes all fit).",
        (
            r"transpos\w*.{0,60}(weight|w_q|w_k|w_v|projection|matri)",
            r"(weight|w_q|w_k|w_v).{0,60}transpos",
            r"weight\.T\b|weight\.t\(\)|\.mT\b",
            r"(call|use|apply)\w* (the )?(layers?|nn\.Linear|self\.w_q|w_q)( (module|layer)s?)? "
            r"(directly|itself|themselves)|self\.w_q\(query\)",
            r"(out, in)|\(out_features, in_features\)",
        ),
        (r"scal|sqrt", r"mask", r"bias", r"w_o"),
        edits=[
            (
                "split_heads(self.w_q(query), self.num_heads)",
                "split_heads(query @ self.w_q.weight + self.w_q.bias, self.num_heads)",
            ),
            (
                "split_heads(self.w_k(key), self.num_heads)",
                "split_heads(key @ self.w_k.weight + self.w_k.bias, self.num_heads)",
            ),
            (
                "split_heads(self.w_v(value), self.num_heads)",
                "split_heads(value @ self.w_v.weight + self.w_v.bias, self.num_heads)",
            ),
        ],
        source=LINEAR_WEIGHT_NOT_TRANSPOSED,
    ),
    _c(
        "mha-inline-scores-with-dot-T",
        L05,
        "MultiHeadAttention",
        "writes the attention inline with q @ k.T: on a 4-D tensor .T reverses all four "
        "axes, (d_head, len_k, num_heads, batch), instead of swapping the last two "
        "(k.transpose(-2, -1) or k.mT), so the matmul raises (or broadcasts wrongly).",
        (
            r"\.T\b",
            r"transpose\(-2, ?-1\)|transpose\(-1, ?-2\)|\.mT\b",
            r"revers\w*.{0,40}(all|every|four)",
            r"last two (axes|dims|dimensions)",
        ),
        (r"scal|sqrt", r"softmax", r"mask", r"merge"),
        code=_MHA_INIT + "    def forward(self, query, key, value, mask=None):\n"
        "        q = split_heads(self.w_q(query), self.num_heads)\n"
        "        k = split_heads(self.w_k(key), self.num_heads)\n"
        "        v = split_heads(self.w_v(value), self.num_heads)\n"
        "        d_head = self.d_model // self.num_heads\n"
        "        scores = q @ k.T / d_head**0.5\n"
        "        if mask is not None:\n"
        "            scores = scores.masked_fill(~mask, -1e9)\n"
        "        weights = torch.softmax(scores, dim=-1)\n"
        "        heads = (self.dropout(weights) if self.training else weights) @ v\n"
        "        return self.w_o(merge_heads(heads)), weights\n",
        source=DOT_T_ON_4D,
    ),
    _c(
        "mha-output-projection-before-merge",
        L05,
        "MultiHeadAttention",
        "applies w_o to the heads before merging them (merge_heads(self.w_o(heads))): w_o "
        "expects d_model features but each head has d_head, so it raises unless "
        "num_heads == 1.",
        (
            r"w_o.{0,80}(before|ahead of|prior to) (the )?merg",
            r"merg\w*.{0,60}(before|first|then).{0,40}w_o",
            r"w_o.{0,60}(after|on the merged|to the merged)",
            r"w_o.{0,60}(each|every|per) head|(each|every|per) head.{0,60}w_o",
        ),
        (r"mask", r"scal|sqrt", r"transpos"),
        edits=[
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return merge_heads(self.w_o(heads)), weights",
            )
        ],
    ),
    # ------------------------------------------------------------------ 06 masking
    _c(
        "padmask-length-from-argmax-of-first-pad",
        L06,
        "padding_mask",
        "takes each row's length as the index of its first pad ((ids == pad_id).argmax(-1)) "
        "and marks the positions before it as real: a row without any pad gets length 0 "
        "(argmax of all False is 0), so every one of its tokens is masked (and a row padded "
        "at the start is masked whole too).",
        (
            r"argmax",
            r"(no|without( any)?) (pad|padding)\b",
            r"(row|sequence|sentence)s? (with no|without|that has no) (pad|padding)",
            r"first pad",
            r"(assum|only).{0,50}(pads?|padding) .{0,30}(at the )?(end|right)",
        ),
        (
            r"pad_id.{0,40}(ignored|hard[- ]?cod|0)",
            r"invert|polarity|True at (the )?pads",
            r"query axis",
        ),
        code="def padding_mask(ids, pad_id):\n"
        "    length = (ids == pad_id).long().argmax(dim=-1)\n"
        "    positions = torch.arange(ids.shape[1])\n"
        "    return (positions[None, :] < length[:, None])[:, None, None, :]\n",
        source=ARGMAX_FIRST_PAD,
    ),
    _c(
        "lookahead-sliding-window-of-four",
        L06,
        "look_ahead_mask",
        "builds a sliding-window (banded) causal mask, each query seeing itself and the 3 "
        "keys before it (tril minus tril(diagonal=-4), Mistral-style local attention), "
        "instead of every earlier key: identical for size <= 4, wrong beyond.",
        (
            r"window|band",
            r"(far|distant|earlier|older|first|early) (keys?|positions?|tokens?).{0,60}"
            r"(blocked|False|masked|not allowed|cannot)",
            r"(blocked|False|masked).{0,60}(far|distant|more than \d+|earliest|first) "
            r"(keys?|positions?|tokens?|back)",
            r"(lower|bottom)[- ]left|below the diagonal.{0,40}(False|blocked)",
            r"size.{0,20}(above|over|greater than|larger than|>) ?4",
        ),
        (
            r"diagonal ?= ?1|sees? the future|upper triangle|triu",
            r"float|dtype|uint8",
            r"diagonal.{0,40}(excluded|blocked|missing)",
        ),
        code="def look_ahead_mask(size):\n"
        "    ones = torch.ones(size, size, dtype=torch.bool)\n"
        "    return torch.tril(ones) & ~torch.tril(ones, diagonal=-4)\n",
        source=WINDOW_TESTED_SHORT,
    ),
    _c(
        "decmask-diagonal-forced-true",
        L06,
        "decoder_self_attention_mask",
        "ORs the identity into the combined mask (mask | eye(len), a guard against fully "
        "masked rows), so every pad position may attend to itself: entry [b, 0, i, i] is "
        "True at a pad key i, where the padding must block it.",
        (
            r"diagonal",
            r"(pad|padding)\w* (keys?|positions?|tokens?|quer\w+).{0,60}(itself|themselves|own)",
            r"eye|identity",
            r"\[\w+, ?0, ?(\w+), ?\1\]",
        ),
        (
            r"query axis|pad(ding)? on (the )?quer",
            r"\|.{0,20}instead of &|or instead of and",
            r"look[- ]ahead.{0,40}(wrong|inverted|transposed)",
            r"batch",
        ),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "length = tgt_ids.shape[1]\n"
                "    mask = padding_mask(tgt_ids, pad_id) & look_ahead_mask(length)\n"
                "    return mask | torch.eye(length, dtype=torch.bool)",
            )
        ],
        source=DIAGONAL_GUARD,
    ),
    _c(
        "decmask-python-and",
        L06,
        "decoder_self_attention_mask",
        "combines the two masks with Python's `and` instead of the element-wise `&`: "
        "`and` asks for the truth value of a whole tensor, which raises 'Boolean value of "
        "Tensor with more than one value is ambiguous'.",
        (
            r"\band\b.{0,60}&|&.{0,60}\band\b",
            r"ambiguous",
            r"element-?wise",
            r"logical_and",
        ),
        (r"\|", r"query axis", r"batch size|shape\[0\]"),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "return padding_mask(tgt_ids, pad_id) and look_ahead_mask(tgt_ids.shape[1])",
            )
        ],
        source=PYTHON_AND_ON_TENSORS,
    ),
    # ------------------------------------------------------------------ 07 encoder
    _c(
        "ln-unit-l2-norm",
        L07,
        "LayerNorm",
        "normalises the centred vector to unit L2 length (torch.nn.functional.normalize(x - "
        "mean, dim=-1)) instead of dividing by the standard deviation: every output is the "
        "LayerNorm's divided by sqrt(d_model).",
        (
            r"sqrt\(d_model\)|√ ?d_model|sqrt\(d\)|sqrt\(n\)",
            r"\bL2\b|unit (length|norm)|euclidean|\bnorm of\b",
            r"normali[sz]e\(",
            r"(std|standard deviation|variance).{0,60}(instead|not|rather)",
            r"(sum|total) of squares.{0,40}(instead|not|rather)|mean of (the )?squares",
        ),
        (r"unbiased|n ?- ?1|bessel", r"eps", r"gain|bias|weight", r"batch axis"),
        edits=[
            (
                "return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
                "unit = torch.nn.functional.normalize(x - mean, dim=-1)\n"
                "        return self.weight * unit + self.bias",
            )
        ],
    ),
    _c(
        "ln-affine-before-normalising",
        L07,
        "LayerNorm",
        "applies the gain and the bias to x first and normalises the result (normalise("
        "weight * x + bias)), instead of normalising x and then scaling and shifting: a "
        "fresh layer (gain 1, bias 0) is right, trained or loaded parameters are not.",
        (
            r"(gain|weight|bias|affine|scale and shift).{0,80}(before|inside|ahead of) "
            r"(the )?normali",
            r"normali\w*.{0,60}(after|then|before) (the )?(gain|weight|bias|affine|scal)",
            r"(gain|weight|bias)\w*.{0,60}(cancel|no effect|ignored|undone|removed)",
            r"(non-?default|trained|random|loaded|other than (1|one)).{0,40}"
            r"(gain|weight|bias|parameters)",
        ),
        (r"unbiased|n ?- ?1|bessel", r"eps", r"swapped", r"batch axis|over the batch"),
        edits=[
            (
                "        mean = x.mean(dim=-1, keepdim=True)  # (..., 1): one mean per token",
                "        x = self.weight * x + self.bias\n"
                "        mean = x.mean(dim=-1, keepdim=True)",
            ),
            (
                "return self.weight * (x - mean) / torch.sqrt(variance + self.eps) + self.bias",
                "return (x - mean) / torch.sqrt(variance + self.eps)",
            ),
        ],
    ),
    _c(
        "ln-stats-over-dim-2",
        L07,
        "LayerNorm",
        "takes the mean and the variance over dim=2, the feature axis of a 3-D (batch, "
        "len, d_model) input only: a 2-D (tokens, d_model) input raises IndexError and a "
        "4-D one is normalised over the wrong axis.",
        (
            r"dim ?= ?2\b",
            r"dim ?= ?-1|last (axis|dim)",
            r"hard[- ]?cod",
            r"(2-?d|4-?d|two-dim|four-dim|other ranks?|any (number of|rank)|\(\.\.\., d_model\))",
        ),
        (r"unbiased|n ?- ?1|bessel", r"eps", r"over the batch|batch axis", r"keepdim"),
        edits=[
            ("x.mean(dim=-1, keepdim=True)", "x.mean(dim=2, keepdim=True)"),
            (
                "x.var(dim=-1, keepdim=True, unbiased=False)",
                "x.var(dim=2, keepdim=True, unbiased=False)",
            ),
        ],
    ),
    _c(
        "ffn-relu-class-not-instance",
        L07,
        "PositionwiseFeedForward",
        "stores self.relu = nn.ReLU without parentheses (the class, not a module): "
        "self.relu(h) builds a new ReLU module with h as its `inplace` argument, and the "
        "dropout then receives a module instead of a tensor and raises TypeError.",
        (
            r"nn\.ReLU\(\)|ReLU\(\)",
            r"parenthes",
            r"not ReLU|got ReLU|ReLU (module|object|instance)",
            r"(class|module).{0,40}(instead of|not) (an? )?(instance|tensor|called)",
        ),
        (r"dropout.{0,40}(wrong|after|before|on the)", r"gelu", r"d_ff"),
        code="class PositionwiseFeedForward(nn.Module):\n"
        "    def __init__(self, d_model, d_ff, dropout=0.0):\n"
        "        super().__init__()\n"
        "        self.w_1 = nn.Linear(d_model, d_ff)\n"
        "        self.w_2 = nn.Linear(d_ff, d_model)\n"
        "        self.relu = nn.ReLU\n"
        "        self.dropout = nn.Dropout(dropout)\n"
        "\n"
        "    def forward(self, x):\n"
        "        return self.w_2(self.dropout(self.relu(self.w_1(x))))\n",
    ),
    _c(
        "ffn-flattened-never-reshaped-back",
        L07,
        "PositionwiseFeedForward",
        "flattens the tokens to (batch * len, d_model) before the two layers (thinking "
        "nn.Linear needs a matrix) and returns that 2-D result without reshaping it back "
        "to (batch, len, d_model).",
        (
            r"batch ?\* ?len|\(\w+ ?\* ?\w+, ?d_model\)",
            r"flatten|reshape\w*.{0,30}back",
            r"(2|two)[- ]?(d\b|dim|axes)",
            r"shape.{0,80}(expected|should be|instead of)",
        ),
        (r"relu|gelu", r"dropout", r"d_ff"),
        edits=[
            (
                "        hidden = torch.relu(self.w_1(x))  # (batch, len, d_ff)",
                "        x = x.reshape(-1, x.shape[-1])\n        hidden = torch.relu(self.w_1(x))",
            )
        ],
    ),
    _c(
        "enc-layer-post-ln-parallel-sublayers",
        L07,
        "EncoderLayer",
        "post-LN in the parallel layout (GPT-J's): the attention and the feed-forward both "
        "read the layer's input x and are summed in one residual under one norm, "
        "norm1(x + attn(x) + ff(x)), instead of the feed-forward reading the attention "
        "sub-layer's normalised result (norm2 is never used).",
        (
            r"parallel",
            r"feed[- ]?forward.{0,80}(reads?|input|gets|sees|applied to|takes).{0,60}"
            r"(layer'?s? input|original|un-?normali[sz]ed|not (the )?(attention|first|norm1))",
            r"(sequential|one after the other|after the (self-)?attention sub-?layer)",
            r"norm2.{0,50}(unused|never|not (used|applied|called))",
        ),
        (r"mask", r"dropout", r"pre-?LN (path|branch)"),
        edits=[
            (
                "        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))\n"
                "        return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "        attended = self.dropout(self.self_attn(x, x, x, mask)[0])\n"
                "        return self.norm1(x + attended + self.dropout(self.feed_forward(x)))",
            )
        ],
        source=PARALLEL_RESIDUAL,
    ),
    _c(
        "enc-layer-attention-without-dropout",
        L07,
        "EncoderLayer",
        "builds the self-attention as MultiHeadAttention(d_model, num_heads) without "
        "passing dropout, so the attention weights are never dropped in training (the "
        "residual and feed-forward dropouts are right); eval mode hides it.",
        (
            r"MultiHeadAttention\(d_model, num_heads\)",
            r"(attention|self_attn)\w*.{0,60}dropout|dropout.{0,60}(attention|self_attn)",
            r"(pass|give|hand|forward)\w*.{0,40}dropout",
        ),
        (
            r"feed[- ]?forward.{0,40}dropout",
            r"(still|stays|remains) (on|active) in eval",
            r"mask",
        ),
        edits=[
            (
                "self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)",
                "self.self_attn = MultiHeadAttention(d_model, num_heads)",
            )
        ],
        source=ATTENTION_DROPOUT_NOT_SET,
    ),
    _c(
        "enc-layer-mask-in-value-slot",
        L07,
        "EncoderLayer",
        "calls the self-attention with three arguments, self_attn(x, x, mask), in both "
        "branches: the mask lands in the value slot and no mask is passed, so w_v receives "
        "a bool mask (or None) and raises.",
        (
            r"\bvalue\b",
            r"(x, ?x, ?x, ?mask)|\(h, ?h, ?h, ?mask\)|query, key, value, mask",
            r"(three|3) arguments|(four|4) arguments|third (argument|position)",
        ),
        (r"invert|~mask|polarity", r"padding", r"norm_first"),
        edits=[
            (
                "x = x + self.dropout(self.self_attn(h, h, h, mask)[0])",
                "x = x + self.dropout(self.self_attn(h, h, mask)[0])",
            ),
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, mask)[0]))",
            ),
        ],
    ),
    _c(
        "encoder-final-norm-built-never-applied",
        L07,
        "Encoder",
        "builds self.norm correctly in __init__ but forward returns the last layer's "
        "output without applying it, so a pre-LN stack (or final_norm=True) ends "
        "unnormalised although its `norm` exists.",
        (
            r"(final )?norm.{0,60}(never|not) (applied|used|called)",
            r"(built|created|defined|exists).{0,60}(never|not) (applied|used|called)",
            r"self\.norm\(x\)|apply (the |self\.)?(final )?norm",
            r"norm.{0,40}(after|at the end of) (the )?(last layer|loop|stack)",
        ),
        (
            r"None .{0,40}(as|means|read as) .{0,20}no",
            r"chain",
            r"(every|each) layer",
        ),
        edits=[
            ("        return x if self.norm is None else self.norm(x)", "        return x"),
        ],
        source=NORM_NOT_APPLIED,
    ),
    _c(
        "encoder-returns-every-layer-output",
        L07,
        "Encoder",
        "keeps every layer's output (as output_hidden_states does) and returns them "
        "stacked, (num_layers, batch, len, d_model), instead of the last layer's output "
        "(batch, len, d_model).",
        (
            r"stack",
            r"(every|each|all( the)?) layers?'?s? outputs?",
            r"hidden states",
            r"\(num_layers, |num_layers.{0,40}(axis|extra|leading)",
            r"(4|four)[- ]?(d\b|dim|axes)|extra (leading )?ax",
        ),
        (r"chain", r"final norm", r"mask"),
        code="class Encoder(nn.Module):\n"
        "    def __init__(self, num_layers, d_model, num_heads, d_ff, dropout=0.0,\n"
        "                 norm_first=False, final_norm=None):\n"
        "        super().__init__()\n"
        "        self.layers = nn.ModuleList(\n"
        "            [EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)\n"
        "             for _ in range(num_layers)]\n"
        "        )\n"
        "        use_final_norm = norm_first if final_norm is None else final_norm\n"
        "        self.norm = LayerNorm(d_model) if use_final_norm else None\n"
        "\n"
        "    def forward(self, x, mask=None):\n"
        "        outputs = []\n"
        "        for layer in self.layers:\n"
        "            x = layer(x, mask)\n"
        "            outputs.append(x)\n"
        "        if self.norm is not None:\n"
        "            outputs[-1] = self.norm(outputs[-1])\n"
        "        return torch.stack(outputs)\n",
    ),
    # ------------------------------------------------------------------ 08 decoder
    _c(
        "declayer-self-attention-reads-memory",
        L08,
        "DecoderLayer",
        "the first (masked self-) attention takes its keys and values from memory "
        "(self_attn(x, memory, memory, tgt_mask)) in both branches, so it is a second "
        "cross-attention under the look-ahead mask: it raises when len_src != len_tgt and "
        "is wrong when they are equal.",
        (
            r"self-?attention.{0,80}(memory|encoder('s)? output|source)",
            r"(keys?|values?).{0,60}(from|are|come from|read) (the )?(memory|encoder)",
            r"self_attn\((x|h), ?\1, ?\1",
        ),
        (
            r"cross-?attention.{0,60}(swapped|quer\w* from (the )?memory)",
            r"src_mask.{0,40}self",
            r"norm",
        ),
        edits=[
            (
                "x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])",
                "x = x + self.dropout(self.self_attn(h, memory, memory, tgt_mask)[0])",
            ),
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))",
                "x = self.norm1(x + self.dropout(self.self_attn(x, memory, memory, tgt_mask)[0]))",
            ),
        ],
    ),
    _c(
        "declayer-signature-masks-in-torch-order",
        L08,
        "DecoderLayer",
        "declares forward(self, x, memory, tgt_mask=None, src_mask=None), "
        "nn.TransformerDecoderLayer's order, although the contract is (x, memory, "
        "src_mask, tgt_mask): the body uses each mask correctly by name, but a caller "
        "passing the masks positionally gets them swapped.",
        (
            r"(order|position)s? of (the )?(mask )?(arguments|parameters)",
            r"signature",
            r"positional",
            r"tgt_mask.{0,60}(before|first|third).{0,40}src_mask",
            r"swapped|exchanged",
        ),
        (r"memory", r"norm", r"residual"),
        edits=[
            (
                "        src_mask: torch.Tensor | None = None,\n"
                "        tgt_mask: torch.Tensor | None = None,\n",
                "        tgt_mask: torch.Tensor | None = None,\n"
                "        src_mask: torch.Tensor | None = None,\n",
            )
        ],
    ),
    _c(
        "decoder-forward-under-no-grad",
        L08,
        "Decoder",
        "runs the stack inside `with torch.no_grad():` (copied from an inference snippet): "
        "the output is right, but it carries no gradient, so nothing in the decoder can "
        "be trained.",
        (
            r"no_grad",
            r"grad(ient)?s?\b",
            r"requires_grad|backward|backprop|detach",
        ),
        (r"chain", r"final norm", r"mask"),
        edits=[
            (
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)",
                "        with torch.no_grad():\n"
                "            for layer in self.layers:\n"
                "                x = layer(x, memory, src_mask, tgt_mask)",
            )
        ],
    ),
    _c(
        "decoder-builds-own-causal-mask",
        L08,
        "Decoder",
        "ignores the tgt_mask it is given and builds a plain causal mask from x's length "
        "inside forward: the look-ahead part is right, but the target padding that "
        "tgt_mask carries is dropped, so every query attends to the target's pads.",
        (
            r"tgt_mask.{0,60}(ignored|replaced|overwritten|not (passed|used))",
            r"(target|tgt)(['’]s)? pad",
            r"(own|builds?|rebuil\w*|creat\w*|its own) .{0,30}(causal|look-ahead) mask",
            r"pad\w*.{0,60}(attended|visible|allowed)",
        ),
        (r"src_mask", r"memory", r"swapped", r"chain"),
        edits=[
            (
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)  # (batch, len_tgt, d_model)",
                "        length = x.shape[1]\n"
                "        tgt_mask = torch.tril(torch.ones(length, length, dtype=torch.bool))\n"
                "        for layer in self.layers:\n"
                "            x = layer(x, memory, src_mask, tgt_mask)",
            )
        ],
        source=TGT_MASK_WITHOUT_PADDING,
    ),
]
