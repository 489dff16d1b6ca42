"""Held-out wrong answers for lessons 05-06, blind round 11 (helper r11d, 2026-11-27).

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Fourteen of the 24 transpose a mistake reported in a public issue thread (the URL read
for this benchmark) to the course's exercise; the others are the author's. Kinds favoured
this round: mistakes that show only on some inputs (a batch of more than one row, len_q !=
len_k, num_heads != d_head, key != value, pad_id != 0, dropout > 0 in eval or training
mode), constants and arguments swapped, raw exceptions inside the learner's code (`.view` on
a transposed tensor, a reshape that assumes len_q == len_k, an extra mask axis), wrong
dtypes and shapes returned, the standard library misused (non-in-place `masked_fill`,
`F.dropout`'s default, `len()` of a 2-D tensor, `ne_`, `transpose_`) and inputs modified
in place.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06 = "05_multi_head_attention", "06_masking"

# The reports these cases transpose (each read with the search tool for this benchmark).
SPLIT_WITHOUT_TRANSPOSE = "https://github.com/reczoo/FuxiCTR/issues/30"
MERGE_VIEW_CONTIGUOUS = "https://github.com/hyunwoongko/transformer/issues/21"
SCALE_BY_D_MODEL = "https://github.com/karpathy/ng-video-lecture/pull/6"
KV_SHAPED_BY_QUERY = "https://github.com/huggingface/transformers/pull/48356"
MASKED_FILL_NOT_IN_PLACE = "https://github.com/lucidrains/flamingo-pytorch/issues/10"
DROPOUT_ON_OUTPUT = "https://github.com/nikhilbarhate99/min-decision-transformer/issues/2"
MASK_UNSQUEEZED_FOR_HEADS = "https://github.com/harvardnlp/annotated-transformer/issues/17"
PAD_MASK_ON_QUERIES = "https://github.com/hyunwoongko/transformer/pull/40"
PAD_MASK_INVERTED = "https://github.com/lucidrains/halonet-pytorch/issues/4"
TRIL_OR_TRIU = "https://github.com/karpathy/nanoGPT/issues/170"
CAUSAL_DIAGONAL = "https://github.com/TransformerLensOrg/TransformerLens/issues/284"
FLOAT_TRIL = "https://github.com/rasbt/LLMs-from-scratch/issues/279"
MASKS_OR_INSTEAD_OF_AND = "https://github.com/lucidrains/local-attention/issues/5"
PAD_ROWS_AND_COLUMNS = "https://github.com/lucidrains/x-transformers/issues/172"
MASK_WITHOUT_HEAD_AXIS = "https://github.com/hyunwoongko/transformer/issues/32"


_c = held_out_authored("blind11d")

_SPLIT_OTHER_CAUSES = (
    r"without (a |the )?transpose|transpose.{0,40}(missing|forgot|needed)",
    r"batch (of|size) (one|1)",
    r"in[- ]place",
)
_MERGE_OTHER_CAUSES = (
    r"without (a |the )?transpose|transpose.{0,40}(missing|forgot)",
    r"contiguous",
    r"interleav",
    r"in[- ]place",
)
_MHA_OTHER_CAUSES = (
    r"sqrt\(?d_model|√ ?d_model",
    r"softmax.{0,40}(wrong )?(axis|dim)",
    r"(key|value)s?.{0,30}(swapped|exchanged)",
    r"invert|polarity",
    r"w_o.{0,30}(missing|skipped|not applied)",
)
_PAD_OTHER_CAUSES = (
    r"query axis|len_q axis|\(batch, 1, len, 1\)",
    r"invert|polarity|opposite",
    r"pad_id.{0,40}(ignored|hard-?coded|0 instead)",
    r"in[- ]place",
    r"dtype",
)
_LOOK_AHEAD_OTHER_CAUSES = (
    r"triu|upper triangle",
    r"diagonal.{0,40}(excluded|missing|left out)",
    r"dtype|float",
    r"invert|complement|polarity",
)
_DECODER_OTHER_CAUSES = (
    r"\bOR\b|`\|`",
    r"pad (queries|query rows)|rows of (the )?pads",
    r"head axis|num_heads axis",
    r"len\(tgt_ids\)|batch size.{0,40}instead of",
    r"pad_id.{0,40}(ignored|hard-?coded)",
)


def _without(patterns: tuple[str, ...], *dropped: int) -> tuple[str, ...]:
    return tuple(p for i, p in enumerate(patterns) if i not in dropped)


BLIND11D: list[Case] = [
    # ------------------------------------------------------------------ 05 split_heads
    _c(
        "split-bare-reshape",
        L05,
        "split_heads",
        "reshapes (batch, len, d_model) straight into (batch, num_heads, len, d_head) with no "
        "transpose, so each 'head' holds consecutive numbers of memory: whole tokens and "
        "halves of tokens mixed, not one slice of features of every token.",
        (
            r"without (a |the )?transpose",
            r"transpose.{0,60}(missing|forgot|needed|required)",
            r"reshape.{0,60}(alone|only|directly|straight)",
            r"(mix|scrambl)\w*.{0,40}tokens?",
            r"memory order",
        ),
        _without(_SPLIT_OTHER_CAUSES, 0),
        edits=[
            (
                "x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "x.reshape(batch, num_heads, length, d_model // num_heads)",
            )
        ],
        source=SPLIT_WITHOUT_TRANSPOSE,
    ),
    _c(
        "split-heads-and-width-swapped",
        L05,
        "split_heads",
        "cuts the last axis into (d_head, num_heads) instead of (num_heads, d_head): right "
        "whenever num_heads == d_head (d_model 16, 4 heads), a tensor of the wrong shape "
        "(batch, d_head, len, num_heads) otherwise.",
        (
            r"(swap|exchang|revers|invert)\w*.{0,80}(num_heads|heads).{0,60}(d_head|width)",
            r"(swap|exchang|revers|invert)\w*.{0,80}(d_head|width).{0,60}(num_heads|heads)",
            r"d_head, num_heads",
            r"\(batch, len(gth)?, d_head, num_heads\)",
        ),
        _without(_SPLIT_OTHER_CAUSES),
        edits=[
            (
                "x.reshape(batch, length, num_heads, d_model // num_heads)",
                "x.reshape(batch, length, d_model // num_heads, num_heads)",
            )
        ],
    ),
    _c(
        "split-assumes-batch-of-one",
        L05,
        "split_heads",
        "works on one sequence, (len, d_model) -> (num_heads, len, d_head), and adds a batch "
        "axis of 1 at the end: right for a batch of one, a RuntimeError in its own reshape "
        "for a batch of several sequences.",
        (
            r"batch (of|size) (one|1)",
            r"batch axis.{0,60}(lost|dropped|missing|ignored|assumed)",
            r"only (works|right|correct) (for|with|on) (a )?(batch|one|single)",
            r"more than one (sequence|row)",
            r"unsqueeze\(0\)",
        ),
        _without(_SPLIT_OTHER_CAUSES, 1),
        code=(
            "def split_heads(x, num_heads):\n"
            "    length, d_model = x.shape[-2:]\n"
            "    heads = x.reshape(length, num_heads, d_model // num_heads).transpose(0, 1)\n"
            "    return heads.unsqueeze(0)\n"
        ),
    ),
    # ------------------------------------------------------------------ 05 merge_heads
    _c(
        "merge-view-after-transpose",
        L05,
        "merge_heads",
        "calls .view on the transposed tensor, which is not contiguous: a RuntimeError inside "
        "the learner's line whenever num_heads > 1 and len > 1 (reshape, or .contiguous() "
        "first, is what works).",
        (r"contiguous", r"\.view\b", r"reshape (instead|rather)"),
        _without(_MERGE_OTHER_CAUSES, 1),
        edits=[
            (
                ".transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                ".transpose(1, 2).view(batch, length, num_heads * d_head)",
            )
        ],
        source=MERGE_VIEW_CONTIGUOUS,
    ),
    _c(
        "merge-heads-interleaved",
        L05,
        "merge_heads",
        "permutes to (batch, len, d_head, num_heads) before the reshape, so each token's "
        "vector interleaves the heads (feature j of every head, then feature j+1, ...) "
        "instead of head 0's d_head features, then head 1's.",
        (
            r"interleav",
            r"(d_head|features?).{0,60}(before|ahead of|outside).{0,40}heads?",
            r"permute\(0, 2, 3, 1\)",
            r"\(batch, len(gth)?, d_head, num_heads\)",
            r"head by head",
        ),
        _without(_MERGE_OTHER_CAUSES, 2),
        edits=[
            (
                "x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "x.permute(0, 2, 3, 1).reshape(batch, length, num_heads * d_head)",
            )
        ],
    ),
    _c(
        "merge-transposes-input-in-place",
        L05,
        "merge_heads",
        "uses transpose_, the in-place form: the result is right, but the caller's tensor x "
        "now has shape (batch, len, num_heads, d_head).",
        (
            r"in[- ]place",
            r"transpose_",
            r"modif\w*.{0,30}(its |the |your )?(input|argument|x\b)",
            r"(input|argument|x) (was|is|has been) (modified|changed|transposed)",
        ),
        _without(_MERGE_OTHER_CAUSES, 3),
        edits=[("x.transpose(1, 2).reshape(", "x.transpose_(1, 2).reshape(")],
    ),
    # ------------------------------------------------------------- 05 MultiHeadAttention
    _c(
        "mha-scale-by-d-model",
        L05,
        "MultiHeadAttention",
        "writes its own attention and divides the scores by sqrt(d_model) instead of "
        "sqrt(d_head): weights too flat by a factor sqrt(num_heads) in the exponent.",
        (
            r"sqrt\(?d_model",
            r"√ ?d_model",
            r"d_model.{0,40}instead of.{0,40}d_head",
            r"sqrt\(num_heads\)|√ ?num_heads",
        ),
        (r"softmax.{0,40}(axis|dim)", r"dropout", r"invert|polarity"),
        edits=[
            (
                "heads, weights = scaled_dot_product_attention(q, k, v, mask)",
                "scores = q @ k.transpose(-2, -1) / self.d_model**0.5\n"
                "        if mask is not None:\n"
                "            scores = scores.masked_fill(~mask, -1e9)\n"
                "        weights = torch.softmax(scores, dim=-1)\n"
                "        heads = weights @ v",
            )
        ],
        source=SCALE_BY_D_MODEL,
    ),
    _c(
        "mha-keys-shaped-by-query-length",
        L05,
        "MultiHeadAttention",
        "splits keys and values with the query's length, view(batch, len_q, num_heads, "
        "d_head): right in self-attention, a RuntimeError in the learner's view whenever "
        "len_k != len_q (cross-attention).",
        (
            r"len_q.{0,80}(keys?|values?)",
            r"(keys?|values?).{0,80}(query'?s? length|len_q|length of the quer)",
            r"len_k ?(!=|≠|differs)",
            r"cross-attention.{0,80}length",
        ),
        _without(_MHA_OTHER_CAUSES),
        edits=[
            (
                "q = split_heads(self.w_q(query), self.num_heads)",
                "batch, len_q, _ = query.shape\n"
                "        d_head = self.d_model // self.num_heads\n"
                "        q = self.w_q(query).view(batch, len_q, self.num_heads, d_head)"
                ".transpose(1, 2)",
            ),
            (
                "k = split_heads(self.w_k(key), self.num_heads)",
                "k = self.w_k(key).view(batch, len_q, self.num_heads, d_head).transpose(1, 2)",
            ),
            (
                "v = split_heads(self.w_v(value), self.num_heads)",
                "v = self.w_v(value).view(batch, len_q, self.num_heads, d_head).transpose(1, 2)",
            ),
        ],
        source=KV_SHAPED_BY_QUERY,
    ),
    _c(
        "mha-masked-fill-result-dropped",
        L05,
        "MultiHeadAttention",
        "writes its own attention and calls scores.masked_fill(~mask, -inf) without "
        "keeping the result (masked_fill is not in place): the mask is never applied, so "
        "masked keys get weight.",
        (
            r"masked_fill_",
            r"not in[- ]place",
            r"mask.{0,60}(ignored|has no effect|no effect|not applied|never applied|unused)",
            r"(result|return value).{0,40}masked_fill|masked_fill.{0,60}(result|returns)",
        ),
        _MHA_OTHER_CAUSES,
        edits=[
            (
                "heads, weights = scaled_dot_product_attention(q, k, v, mask)",
                "scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5\n"
                "        if mask is not None:\n"
                "            scores.masked_fill(~mask, float('-inf'))\n"
                "        weights = torch.softmax(scores, dim=-1)\n"
                "        heads = weights @ v",
            )
        ],
        source=MASKED_FILL_NOT_IN_PLACE,
    ),
    _c(
        "mha-dropout-on-output",
        L05,
        "MultiHeadAttention",
        "applies dropout to the layer's output, after w_o, instead of to the attention "
        "weights before they multiply the values: right in eval mode and with dropout 0, "
        "wrong in training with dropout > 0.",
        (
            r"dropout.{0,80}(output|after w_o|on the result)",
            r"(output|result).{0,40}dropped",
            r"dropout.{0,60}(instead of|not|rather than).{0,40}weights",
        ),
        (r"eval", r"no dropout|dropout.{0,30}(never|not) applied", r"mask"),
        edits=[
            ("if self.training and self.dropout.p > 0:", "if False:"),
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return self.dropout(self.w_o(merge_heads(heads))), weights",
            ),
        ],
        source=DROPOUT_ON_OUTPUT,
    ),
    _c(
        "mha-functional-dropout-in-eval",
        L05,
        "MultiHeadAttention",
        "uses torch.nn.functional.dropout(weights, p) without training=self.training "
        "(whose default is True) and no self.training test: with dropout > 0 the layer "
        "still drops weights in eval mode.",
        (
            r"eval.{0,80}(dropout|random|differ|not deterministic)",
            r"dropout.{0,80}eval",
            r"training=self\.training",
            r"self\.training",
        ),
        (r"dropout.{0,40}(output|after w_o)", r"mask", r"sqrt"),
        edits=[
            (
                "if self.training and self.dropout.p > 0:",
                "if self.dropout.p > 0:",
            ),
            (
                "heads = self.dropout(weights) @ v",
                "heads = torch.nn.functional.dropout(weights, self.dropout.p) @ v",
            ),
        ],
    ),
    _c(
        "mha-values-from-key",
        L05,
        "MultiHeadAttention",
        "projects the values from key instead of value (w_v(key)): right whenever key and "
        "value are the same tensor, as in every self- and cross-attention of the model, "
        "wrong when they differ.",
        (
            r"values?.{0,60}from.{0,20}`?key\b",
            r"w_v\(key\)",
            r"key (instead of|in place of|rather than) (the )?value",
            r"value.{0,40}(ignored|unused|never used|not used)",
        ),
        (r"quer(y|ies).{0,40}key.{0,20}(swap|instead)", r"w_k\(value\)", r"sqrt"),
        edits=[("v = split_heads(self.w_v(value)", "v = split_heads(self.w_v(key)")],
    ),
    _c(
        "mha-mask-unsqueezed-again",
        L05,
        "MultiHeadAttention",
        "adds a head axis to the mask (mask.unsqueeze(1), the Annotated Transformer's "
        "habit for its 3-D masks) although the course's masks already broadcast over the "
        "heads: a 5-D mask, so a crash or weights of the wrong shape whenever a mask is "
        "given.",
        (
            r"unsqueeze",
            r"(extra|additional|fifth|5-?d|one more|added) (axis|dim)",
            r"mask.{0,80}(already|broadcasts?).{0,60}heads",
        ),
        _without(_MHA_OTHER_CAUSES),
        edits=[
            (
                "q = split_heads(self.w_q(query), self.num_heads)",
                "if mask is not None:\n"
                "            mask = mask.unsqueeze(1)\n"
                "        q = split_heads(self.w_q(query), self.num_heads)",
            )
        ],
        source=MASK_UNSQUEEZED_FOR_HEADS,
    ),
    # ------------------------------------------------------------------ 06 padding_mask
    _c(
        "pad-mask-on-query-axis",
        L06,
        "padding_mask",
        "puts the length on the query axis, (batch, 1, len, 1): broadcast, it blocks every "
        "key of a pad query's row instead of the pad keys' columns.",
        (
            r"query axis|len_q axis|queries axis",
            r"\(batch, 1, len, 1\)",
            r"rows? (instead of|not|rather than) (the )?columns?",
            r"(hides?|blocks?|masks?) (the )?(pad )?quer(y|ies)",
        ),
        _without(_PAD_OTHER_CAUSES, 0),
        edits=[("[:, None, None, :]", "[:, None, :, None]")],
        source=PAD_MASK_ON_QUERIES,
    ),
    _c(
        "pad-mask-inverted",
        L06,
        "padding_mask",
        "compares with ==, so the mask is True at the pads and False at real tokens (the "
        "'True = ignore' convention of key_padding_mask): attention would read only pads.",
        (
            r"invert|polarity|opposite|revers",
            r"True (at|on|for) (the )?pads?",
            r"==.{0,20}pad_id",
            r"key_padding_mask",
        ),
        _without(_PAD_OTHER_CAUSES, 1),
        edits=[("(ids != pad_id)", "(ids == pad_id)")],
        source=PAD_MASK_INVERTED,
    ),
    _c(
        "pad-mask-pad-id-ignored",
        L06,
        "padding_mask",
        "compares with 0 instead of pad_id: right for the usual pad_id 0, wrong when the "
        "pad id is another number (pads counted as real tokens, token 0 as a pad).",
        (
            r"pad_id.{0,60}(ignored|not used|hard-?coded|never used)",
            r"(0|zero) instead of (the )?pad_id",
            r"pad_id ?= ?[1-9]\d*.{0,80}(0|zero)",
            r"compar\w*.{0,30}(with|to|against) (0|zero)",
        ),
        _without(_PAD_OTHER_CAUSES, 2),
        edits=[("(ids != pad_id)", "(ids != 0)")],
    ),
    _c(
        "pad-mask-ne-in-place",
        L06,
        "padding_mask",
        "uses ids.ne_(pad_id), the in-place comparison: the mask is right, but the caller's "
        "ids are overwritten with 0/1.",
        (
            r"in[- ]place",
            r"ne_",
            r"modif\w*.{0,30}(the |its |your )?ids|ids.{0,40}(modified|changed|overwritten)",
        ),
        _without(_PAD_OTHER_CAUSES, 3),
        edits=[("(ids != pad_id)[:, None, None, :]", "ids.ne_(pad_id).bool()[:, None, None, :]")],
    ),
    # ---------------------------------------------------------------- 06 look_ahead_mask
    _c(
        "look-ahead-upper-triangle",
        L06,
        "look_ahead_mask",
        "keeps the upper triangle (torch.triu): each query may see itself and the later "
        "keys instead of itself and the earlier ones.",
        (
            r"triu",
            r"upper triangle",
            r"(future|later).{0,60}(instead of|not|rather than) (the )?(past|earlier)",
            r"transpos\w*",
        ),
        _without(_LOOK_AHEAD_OTHER_CAUSES, 0),
        edits=[("torch.tril(", "torch.triu(")],
        source=TRIL_OR_TRIU,
    ),
    _c(
        "look-ahead-diagonal-excluded",
        L06,
        "look_ahead_mask",
        "uses tril(..., diagonal=-1): a query may not attend to its own position, and the "
        "first row is fully masked.",
        (r"diagonal", r"itself", r"own position", r"j < i|strict"),
        _without(_LOOK_AHEAD_OTHER_CAUSES, 1),
        edits=[
            (
                "torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=-1)",
            )
        ],
        source=CAUSAL_DIAGONAL,
    ),
    _c(
        "look-ahead-float-ones",
        L06,
        "look_ahead_mask",
        "returns torch.tril(torch.ones(size, size)) without dtype=torch.bool: the right "
        "pattern as float 1.0/0.0, which attention would add to the scores instead of "
        "using as a bool mask.",
        (r"dtype", r"float", r"torch\.bool|\bbool\b"),
        _without(_LOOK_AHEAD_OTHER_CAUSES, 2),
        edits=[("torch.ones(size, size, dtype=torch.bool)", "torch.ones(size, size)")],
        source=FLOAT_TRIL,
    ),
    # ---------------------------------------------------- 06 decoder_self_attention_mask
    _c(
        "decoder-mask-or",
        L06,
        "decoder_self_attention_mask",
        "combines the two masks with | instead of &: a key is allowed when either rule "
        "allows it, so every real future token is visible again and pads in the past too.",
        (r"\bOR\b", r"either (rule|mask)", r"`\|`", r"\| (instead of|rather than) &", r"\bunion"),
        _without(_DECODER_OTHER_CAUSES, 0),
        edits=[
            (
                "padding_mask(tgt_ids, pad_id) & look_ahead_mask",
                "padding_mask(tgt_ids, pad_id) | look_ahead_mask",
            )
        ],
        source=MASKS_OR_INSTEAD_OF_AND,
    ),
    _c(
        "decoder-mask-pads-rows-too",
        L06,
        "decoder_self_attention_mask",
        "masks the pad queries as well as the pad keys (padding & its transpose & "
        "look-ahead): the rows of pad positions come out fully masked.",
        (
            r"pad (queries|query rows|rows)",
            r"rows? of (the )?pad",
            r"(pad|padded) quer(y|ies).{0,40}(masked|blocked|hidden)",
            r"quer(y|ies) (axis|rows?).{0,40}(masked|blocked|too|as well)",
        ),
        _without(_DECODER_OTHER_CAUSES, 1),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "keys = padding_mask(tgt_ids, pad_id)\n"
                "    return keys & keys.transpose(-1, -2) & look_ahead_mask(tgt_ids.shape[1])",
            )
        ],
        source=PAD_ROWS_AND_COLUMNS,
    ),
    _c(
        "decoder-mask-no-head-axis",
        L06,
        "decoder_self_attention_mask",
        "builds the padding part as (batch, 1, len) itself, so the result is (batch, len, "
        "len) with no head axis: against (batch, num_heads, len, len) its batch axis lands "
        "on the heads.",
        (
            r"head axis|heads axis|num_heads axis",
            r"\(batch, len, len\)",
            r"3-?d\b|three (axes|dims)",
            r"missing.{0,30}axis|axis.{0,30}missing",
        ),
        _without(_DECODER_OTHER_CAUSES, 2),
        edits=[
            (
                "padding_mask(tgt_ids, pad_id) & look_ahead_mask",
                "(tgt_ids != pad_id)[:, None, :] & look_ahead_mask",
            )
        ],
        source=MASK_WITHOUT_HEAD_AXIS,
    ),
    _c(
        "decoder-mask-len-of-batch",
        L06,
        "decoder_self_attention_mask",
        "sizes the look-ahead part with len(tgt_ids), which is the batch size, not the "
        "sequence length: a broadcasting error (or a wrong shape) unless batch == len.",
        (
            r"len\(tgt_ids\)",
            r"batch size.{0,60}(instead of|not|rather than).{0,40}(length|len)",
            r"shape\[1\]",
            r"(number of )?(rows|sequences).{0,40}instead of.{0,40}(length|positions|columns)",
        ),
        _without(_DECODER_OTHER_CAUSES, 3),
        edits=[("look_ahead_mask(tgt_ids.shape[1])", "look_ahead_mask(len(tgt_ids))")],
    ),
]
