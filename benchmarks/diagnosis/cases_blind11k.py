"""Held-out wrong answers for lessons 05-06, blind round 11, second batch (helper s11k,
2026-11-27), written after round 11's first fixes of these lessons.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Thirteen of the 24 transpose a mistake reported in a public issue thread (the URL read
for this benchmark) to the course's exercise; the others are the author's. Kinds favoured:
mistakes that show only on some inputs (a batch of one, len_q != len_k, a mask given,
pad_id other than 0, training mode), two mistakes at once, wrong shapes and dtypes returned,
a raw exception in the learner's code (view after transpose), standard idioms misused
(view without transpose, squeeze(), non-in-place masked_fill, triu for tril, | for &).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06 = "05_multi_head_attention", "06_masking"

# The reports these cases transpose (each read with the search tool for this benchmark).
SPLIT_VIEW_NO_TRANSPOSE = "https://github.com/hyunwoongko/transformer/issues/15"
SPLIT_HEADS_INTO_BATCH = "https://github.com/reczoo/FuxiCTR/issues/30"
MERGE_VIEW_NO_TRANSPOSE = (
    "https://github.com/649453932/Chinese-Text-Classification-Pytorch/issues/10"
)
MERGE_VIEW_NOT_CONTIGUOUS = "https://github.com/facebookresearch/fairseq/issues/2598"
SCALE_BY_D_MODEL = "https://github.com/karpathy/ng-video-lecture/pull/6"
KEYS_FROM_WRONG_INPUT = "https://github.com/rexrex9/nlp_torchtext/pull/2"
DROPOUT_ON_OUTPUT = "https://github.com/nikhilbarhate99/min-decision-transformer/issues/2"
MASKED_FILL_NOOP = "https://github.com/lucidrains/flamingo-pytorch/issues/10"
MASK_POLARITY = "https://github.com/lucidrains/halonet-pytorch/pull/6"
PAD_MASK_QUERY_AXIS = "https://github.com/hyunwoongko/transformer/pull/40"
TRIU_FOR_TRIL = "https://github.com/karpathy/nanoGPT/issues/170"
CAUSAL_NO_DIAGONAL = "https://github.com/RVC-Boss/GPT-SoVITS/issues/965"
PAD_QUERIES_BLOCKED = "https://github.com/lucidrains/x-transformers/issues/172"


_c = held_out_authored("blind11k")

# A learner's layer that computes attention itself instead of calling lesson 04's function;
# the cases below change one line of it (as written, it is right).
_OWN_ATTENTION = """\
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be divisible by num_heads")
        self.d_model, self.num_heads = d_model, num_heads
        self.d_head = d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query), self.num_heads)
        k = split_heads(self.w_k(key), self.num_heads)
        v = split_heads(self.w_v(value), self.num_heads)
        scores = q @ k.transpose(-2, -1) / self.d_head**0.5
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        weights = torch.softmax(scores, dim=-1)
        heads = self.dropout(weights) @ v
        return self.w_o(merge_heads(heads)), weights
"""


def _own(old: str, new: str) -> str:
    assert old in _OWN_ATTENTION, old
    return _OWN_ATTENTION.replace(old, new)


_HEADS_OTHER_CAUSES = (r"d_model.{0,30}not divisible", r"dtype", r"modif")

BLIND11K: list[Case] = [
    # ------------------------------------------------------------------ 05 quiz_head_width
    _c(
        "q-head-width-sentence-length",
        L05,
        "quiz_head_width",
        "answers 20, the number of tokens in the sentence, for d_k: d_k is the width of one "
        "head's vectors, d_model / h = 768 / 12 = 64, whatever the sentence length.",
        (
            r"sentence|tokens|length",
            r"d_model ?/ ?h|768 ?/ ?12",
            r"width of (one|each|a) head",
        ),
        (r"d_model itself|768 is", r"number of heads"),
        edits=[("return 64", "return 20")],
    ),
    # ------------------------------------------------------------------ 05 split_heads
    _c(
        "split-view-without-transpose",
        L05,
        "split_heads",
        "cuts the features with one view straight to (batch, num_heads, len, d_head), no "
        "transpose: the shape is right but each 'head' holds consecutive numbers of memory, "
        "whole tokens mixed, not the same features of every token.",
        (
            r"transpos",
            r"reshape (alone|only)|(single|one|bare) (reshape|view)",
            r"mix\w* (the )?tokens|tokens? (are )?mixed|scrambl",
        ),
        (r"interleav", r"d_head.{0,30}num_heads.{0,30}(swapped|order)", *_HEADS_OTHER_CAUSES),
        edits=[
            (
                "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "return x.view(batch, num_heads, length, d_model // num_heads)",
            )
        ],
        source=SPLIT_VIEW_NO_TRANSPOSE,
    ),
    _c(
        "split-heads-interleaved",
        L05,
        "split_heads",
        "cuts the last axis as (d_head, num_heads) instead of (num_heads, d_head) and then "
        "permutes to (batch, num_heads, len, d_head): head i gets the strided features i, "
        "i + num_heads, i + 2 num_heads, ... instead of the contiguous block i*d_head ... "
        "(i+1)*d_head - 1.",
        (
            r"interleav|strided|every \w+(-th|th)? feature",
            r"\(d_head, num_heads\)|d_head, num_heads",
            r"(num_heads, d_head).{0,40}(order|not|instead)",
            r"contiguous block|consecutive features|block of d_head",
        ),
        (
            r"reshape (alone|only)|add (a )?\.?transpose",
            r"mix\w* (the )?tokens",
            *_HEADS_OTHER_CAUSES,
        ),
        edits=[
            (
                "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "return x.reshape(batch, length, d_model // num_heads, num_heads).permute(0, 3, 1, 2)",
            )
        ],
    ),
    _c(
        "split-heads-folded-into-batch",
        L05,
        "split_heads",
        "folds the heads into the batch axis, returning the 3-D (batch * num_heads, len, "
        "d_head) with one view (the d2l/fairseq layout, and without the transpose), instead "
        "of the 4-D (batch, num_heads, len, d_head).",
        (
            r"3-?D|three (axes|dims|dimensions)|4-?D|four (axes|dims|dimensions)",
            r"batch ?\* ?num_heads|heads? (folded )?into the batch|(merged|folded).{0,20}batch",
            r"\(batch, num_heads, len, d_head\)",
        ),
        (r"interleav", r"dtype"),
        edits=[
            (
                "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "return x.view(batch * num_heads, -1, d_model // num_heads)",
            )
        ],
        source=SPLIT_HEADS_INTO_BATCH,
    ),
    # ------------------------------------------------------------------ 05 merge_heads
    _c(
        "merge-reshape-without-transpose",
        L05,
        "merge_heads",
        "glues the heads back with one reshape to (batch, len, d_model), no transpose first: "
        "the shape is right but each token's vector is made of consecutive memory of one "
        "head (several tokens of head 0), not the heads of that token side by side.",
        (
            r"transpos",
            r"reshape (alone|only)|(single|one|bare) (reshape|view)",
            r"mix\w* (the )?tokens|tokens? (are )?mixed|scrambl",
        ),
        (r"interleav", r"contiguous", r"squeeze"),
        edits=[
            (
                "return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "return x.reshape(batch, length, num_heads * d_head)",
            )
        ],
        source=MERGE_VIEW_NO_TRANSPOSE,
    ),
    _c(
        "merge-view-after-transpose",
        L05,
        "merge_heads",
        "transposes and then calls .view, which refuses the non-contiguous result: a raw "
        "RuntimeError ('view size is not compatible ...') instead of a merged tensor; "
        ".reshape, or .contiguous() before .view, is needed.",
        (r"contiguous", r"\.reshape|use reshape", r"\.view.{0,60}(transpos|refuse|cannot)"),
        (r"interleav", r"add (a )?\.?transpose|reshape (alone|only)", r"squeeze"),
        edits=[
            (
                "return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "return x.transpose(1, 2).view(batch, length, num_heads * d_head)",
            )
        ],
        source=MERGE_VIEW_NOT_CONTIGUOUS,
    ),
    _c(
        "merge-cat-then-squeeze",
        L05,
        "merge_heads",
        "concatenates the heads with torch.cat(x.split(1, dim=1), dim=-1), which keeps a "
        "heads axis of size 1, and removes it with a bare .squeeze(): right for most inputs, "
        "but a batch of one (or a single token) loses that axis too and comes back 2-D.",
        (
            r"squeeze\(\)|\.squeeze|squeez",
            r"batch of (one|1)|batch size (of )?1|single (token|sequence)|length 1",
            r"every axis of size 1|axes of size 1",
        ),
        (r"transpos", r"interleav", r"contiguous"),
        edits=[
            (
                "return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "return torch.cat(x.split(1, dim=1), dim=-1).squeeze()",
            )
        ],
    ),
    # ------------------------------------------------------------------ 05 quiz_cross_attention_shape
    _c(
        "q-cross-shape-keys-first",
        L05,
        "quiz_cross_attention_shape",
        "answers (a) (2, 8, 7, 5): the source length as rows and the target length as "
        "columns, while the weights have one row per query (the 5 decoder tokens) and one "
        "column per key (the 7 encoder tokens).",
        (
            r"(one )?row per query|rows? (are|is) (the )?quer",
            r"quer(y|ies).{0,60}(decoder|target)",
            r"\(len_q, len_k\)|len_q.{0,20}len_k",
        ),
        (r"averag", r"same length", r"len_q ?= ?len_k"),
        edits=[('return "b"', 'return "a"')],
    ),
    # ------------------------------------------------------------------ 05 MultiHeadAttention
    _c(
        "mha-scale-by-d-model",
        L05,
        "MultiHeadAttention",
        "computes attention itself and divides the scores by sqrt(d_model) instead of "
        "sqrt(d_head): the scores are sqrt(num_heads) times too small and the weights too "
        "flat.",
        (r"sqrt\(?d_model|√ ?d_model", r"sqrt\(?d_head|√ ?d_head|sqrt\(?d_k", r"scal(e|ed|ing)"),
        (r"mask", r"dropout", r"w_o|output projection", r"averag"),
        code=_own("/ self.d_head**0.5", "/ self.d_model**0.5"),
        source=SCALE_BY_D_MODEL,
    ),
    _c(
        "mha-keys-values-from-query",
        L05,
        "MultiHeadAttention",
        "projects the keys and values from `query` (w_k(query), w_v(query)) instead of from "
        "`key` and `value`: right in self-attention, wrong (or a shape error) in "
        "cross-attention, where len_k differs from len_q.",
        (
            r"w_k\(query\)|w_v\(query\)",
            r"keys?.{0,40}(from|of) (`|')?query|(keys?|values?).{0,60}(should|must) come from",
            r"cross-?attention",
            r"len_k.{0,40}(differ|not)|(key|value) (input|argument)",
        ),
        (r"sqrt|scal", r"dropout", r"averag", r"mask"),
        edits=[
            (
                "k = split_heads(self.w_k(key), self.num_heads)",
                "k = split_heads(self.w_k(query), self.num_heads)",
            ),
            (
                "v = split_heads(self.w_v(value), self.num_heads)",
                "v = split_heads(self.w_v(query), self.num_heads)",
            ),
        ],
        source=KEYS_FROM_WRONG_INPUT,
    ),
    _c(
        "mha-dropout-on-output",
        L05,
        "MultiHeadAttention",
        "applies dropout to the layer's output (after w_o) instead of to the attention "
        "weights before they multiply the values: in training mode whole output features are "
        "zeroed and rescaled instead of weights.",
        (
            r"dropout.{0,80}(weights|before.{0,30}values)",
            r"(weights|before).{0,60}dropout",
            r"dropout.{0,60}(output|after w_o)",
        ),
        (r"sqrt|scal", r"mask", r"averag", r"eval\(\).{0,40}(still|on)"),
        edits=[
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return self.dropout(self.w_o(merge_heads(heads))), weights",
            ),
            ("if self.training and self.dropout.p > 0:", "if False:"),
        ],
        source=DROPOUT_ON_OUTPUT,
    ),
    _c(
        "mha-masked-fill-not-assigned",
        L05,
        "MultiHeadAttention",
        "computes attention itself and calls scores.masked_fill(...) without assigning the "
        "result (masked_fill is not in place), so the mask is ignored: masked keys get "
        "weight.",
        (
            r"masked_fill",
            r"in.place|assign",
            r"mask.{0,40}(ignored|no effect|not applied|has no|never)",
            r"(masked|blocked) (keys?|positions?).{0,40}(get|receive|have) (weight|nonzero)",
        ),
        (r"sqrt|scal", r"dropout", r"invert|polarity|opposite"),
        code=_own("scores = scores.masked_fill(~mask, -1e9)", "scores.masked_fill(~mask, -1e9)"),
        source=MASKED_FILL_NOOP,
    ),
    _c(
        "mha-weights-mean-keepdim",
        L05,
        "MultiHeadAttention",
        "returns the weights averaged over the heads with keepdim=True, (batch, 1, len_q, "
        "len_k) (nn.MultiheadAttention's default, keeping the axis), instead of the per-head "
        "(batch, num_heads, len_q, len_k).",
        (r"averag|mean", r"per.head|each head|every head", r"num_heads axis|heads axis"),
        (r"sqrt|scal", r"dropout", r"mask", r"transpos"),
        edits=[
            (
                "return self.w_o(merge_heads(heads)), weights",
                "return self.w_o(merge_heads(heads)), weights.mean(dim=1, keepdim=True)",
            )
        ],
    ),
    _c(
        "mha-values-through-w-k-and-no-w-o",
        L05,
        "MultiHeadAttention",
        "two slips at once: the values go through w_k (a copy-paste of the line above) "
        "instead of w_v, and the merged heads are returned without the output projection "
        "w_o.",
        (r"w_v", r"w_o|output projection"),
        (r"sqrt|scal", r"dropout", r"averag", r"mask"),
        edits=[
            (
                "v = split_heads(self.w_v(value), self.num_heads)",
                "v = split_heads(self.w_k(value), self.num_heads)",
            ),
            ("return self.w_o(merge_heads(heads)), weights", "return merge_heads(heads), weights"),
        ],
    ),
    # ------------------------------------------------------------------ 06 quiz_fully_masked_row
    _c(
        "q-fully-masked-nan",
        L06,
        "quiz_fully_masked_row",
        "answers (a) NaN, what a plain softmax over a row of -inf gives, while the course's "
        "reference attention returns all-zero weights for a row with no allowed key and keeps "
        "the output finite.",
        (r"zeros?|all-zero", r"finite", r"reference|course's attention|lesson 04"),
        (r"uniform.{0,30}(is|answer)", r"own position|itself"),
        edits=[('return "b"', 'return "a"')],
    ),
    # ------------------------------------------------------------------ 06 padding_mask
    _c(
        "pad-mask-inverted",
        L06,
        "padding_mask",
        "returns ids == pad_id: True at the pads and False at the real tokens, the opposite "
        "of the course's convention (True = may attend).",
        (
            r"invert|polarity|opposite|reversed|flipped",
            r"==|!=",
            r"True.{0,40}(pads?|real)|(pads?|real).{0,40}True",
        ),
        (r"quer(y|ies) axis|rows", r"dtype|bool", r"pad_id.{0,30}(0|hard)", r"shape"),
        edits=[
            ("return (ids != pad_id)[:, None, None, :]", "return (ids == pad_id)[:, None, None, :]")
        ],
        source=MASK_POLARITY,
    ),
    _c(
        "pad-mask-on-query-axis",
        L06,
        "padding_mask",
        "puts the flags on the query axis, (batch, 1, len, 1) (the unsqueeze(1).unsqueeze(3) "
        "slip), instead of the key axis, (batch, 1, 1, len): pad rows are blanked instead of "
        "pad columns.",
        (
            r"quer(y|ies)|rows?",
            r"key axis|columns?|last axis",
            r"\(batch, 1, len, 1\)|\[:, None, :, None\]|unsqueeze\(3\)",
        ),
        (r"invert|polarity|opposite", r"dtype", r"pad_id.{0,30}(0|hard)", r"expand"),
        edits=[
            ("return (ids != pad_id)[:, None, None, :]", "return (ids != pad_id)[:, None, :, None]")
        ],
        source=PAD_MASK_QUERY_AXIS,
    ),
    _c(
        "pad-mask-pad-id-hard-coded",
        L06,
        "padding_mask",
        "compares with 0 instead of pad_id: right when the pad id is 0 (lesson 01's), wrong "
        "for any other pad_id.",
        (r"pad_id", r"hard.?cod|literal|\b0\b.{0,40}(instead|rather)", r"!= ?0"),
        (r"invert|polarity|opposite", r"quer(y|ies) axis|rows", r"dtype", r"shape"),
        edits=[("return (ids != pad_id)[:, None, None, :]", "return (ids != 0)[:, None, None, :]")],
    ),
    # ------------------------------------------------------------------ 06 look_ahead_mask
    _c(
        "look-ahead-triu",
        L06,
        "look_ahead_mask",
        "keeps the upper triangle (torch.triu) instead of the lower one: every query may see "
        "itself and the keys after it, none before.",
        (r"triu|upper", r"tril|lower", r"transpos", r"future|later keys?|after (the|it|its)"),
        (r"diagonal.{0,30}(missing|exclud|left out)", r"dtype|bool", r"invert"),
        edits=[
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "return torch.triu(torch.ones(size, size, dtype=torch.bool))",
            )
        ],
        source=TRIU_FOR_TRIL,
    ),
    _c(
        "look-ahead-no-diagonal",
        L06,
        "look_ahead_mask",
        "uses tril(..., diagonal=-1), leaving out the diagonal: no position may attend to "
        "itself, and the first query has no key at all.",
        (r"diagonal", r"itself|own position|j ?<= ?i", r"first (query|row|position)"),
        (r"triu|upper", r"dtype|bool", r"transpos"),
        edits=[
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "return torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=-1)",
            )
        ],
        source=CAUSAL_NO_DIAGONAL,
    ),
    # ------------------------------------------------------------------ 06 decoder_self_attention_mask
    _c(
        "decoder-mask-or",
        L06,
        "decoder_self_attention_mask",
        "combines the two masks with | instead of &: a key is allowed when either rule "
        "allows it, so every real future token is visible again (and pads before the query).",
        (r"\||\bor\b", r"&|\band\b|both"),
        (r"heads? axis|\(batch, len, len\)", r"quer(y|ies).{0,30}(blocked|masked)", r"shape\[0\]"),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "return padding_mask(tgt_ids, pad_id) | look_ahead_mask(tgt_ids.shape[1])",
            )
        ],
    ),
    _c(
        "decoder-mask-size-from-batch",
        L06,
        "decoder_self_attention_mask",
        "sizes the look-ahead mask with tgt_ids.shape[0], the batch size, instead of "
        "shape[1], the length: a batch of one gets a 1x1 look-ahead part and no causal rule "
        "at all; other batch sizes fail to broadcast.",
        (
            r"shape\[0\]|shape\[1\]",
            r"batch (size)?.{0,60}(instead of|not|rather than).{0,30}(length|len|columns)",
            r"number of columns|len(gth)? of (the )?sequence",
        ),
        (r"\||\bor\b", r"heads? axis", r"quer(y|ies).{0,30}(blocked|masked)"),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[0])",
            )
        ],
    ),
    _c(
        "decoder-mask-blocks-pad-queries",
        L06,
        "decoder_self_attention_mask",
        "also blocks the pad queries (the padding flags ANDed on the query axis as well as "
        "the key axis): pad rows come out fully masked, while the padding must act on the "
        "keys only.",
        (
            r"quer(y|ies)|rows?",
            r"keys? only|only (on )?the keys|columns only",
            r"fully masked|blank|nothing to attend",
        ),
        (r"\||\bor\b", r"heads? axis", r"shape\[0\]", r"look-?ahead.{0,30}(missing|wrong)"),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "keys = padding_mask(tgt_ids, pad_id)\n"
                "    return keys & keys.transpose(-1, -2) & look_ahead_mask(tgt_ids.shape[1])",
            )
        ],
        source=PAD_QUERIES_BLOCKED,
    ),
    # ------------------------------------------------------------------ 06 quiz_which_mask
    _c(
        "q-which-mask-cross-uses-decoder-mask",
        L06,
        "quiz_which_mask",
        "answers (b): cross-attention with the decoder's mask of the target, while its keys "
        "are the encoder's (source) positions, so it takes padding_mask(src) and no "
        "look-ahead rule.",
        (
            r"keys?.{0,60}(source|encoder|src)",
            r"padding_mask\(src",
            r"cross-?attention.{0,80}(source|src|encoder)",
        ),
        (r"encoder self-attention.{0,40}(wrong|not)",),
        edits=[('return "c"', 'return "b"')],
    ),
]
