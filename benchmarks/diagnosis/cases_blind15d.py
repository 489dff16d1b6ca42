"""Held-out wrong answers for lessons 05-06, blind round 15 (helper b15d, 2026-11-28):
mistakes new to the benchmark, written against the checks after round 17's fixes, to
measure how the diagnoses generalise to mistakes nobody here has seen. 23 cases over the
ten exercises; ten transpose a mistake reported in public (the URL read for this
benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06 = "05_multi_head_attention", "06_masking"

# The reports these cases transpose (each read with the search tool for this benchmark).
TRAILING_COMMA_TUPLE = "https://github.com/openai/multi-agent-emergence-environments/pull/22"
THREE_NAMES_FOR_4D_SHAPE = "https://github.com/tianrun-chen/SAM-Adapter-PyTorch/issues/103"
FILL_MINUS_1E_MINUS_9 = "https://github.com/Shujun-He/RibonanzaNet/issues/5"
BOOL_MASK_ADDED_TO_SCORES = "https://github.com/huggingface/transformers/pull/41443"
SDPA_RETURNS_NO_WEIGHTS = "https://github.com/pytorch/pytorch/issues/98505"
MASK_METHOD_ON_NONE = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/91"
KEYS_TIMES_QUERIES = "https://github.com/karpathy/llm.c/pull/531"
PROJECTION_TO_D_K = "https://github.com/brightmart/text_classification/issues/63"
MASK_OPERATOR_PRECEDENCE = "https://github.com/flagos-ai/FlagGems/issues/5744"
HARD_CODED_CUDA = "https://github.com/bm2-lab/CausCell/issues/1"

_c = held_out_authored("blind15d")

# the reference forward's lines, for the inline-attention answers
_PROJECT = (
    "q = split_heads(self.w_q(query), self.num_heads)  # (batch, num_heads, len_q, d_head)\n"
    "        k = split_heads(self.w_k(key), self.num_heads)  # (batch, num_heads, len_k, d_head)\n"
    "        v = split_heads(self.w_v(value), self.num_heads)  # (batch, num_heads, len_k, d_head)\n"
)
_SDPA = (
    "heads, weights = scaled_dot_product_attention(q, k, v, mask)  # weights (b, h, len_q, len_k)\n"
)


def _inline_attention(mask_line: str) -> str:
    """The reference's attention call replaced by the learner's own, with ``mask_line``
    applying the mask to ``scores``."""
    return (
        "import math\n"
        "        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n"
        "        if mask is not None:\n"
        f"            {mask_line}\n"
        "        weights = torch.softmax(scores, dim=-1)\n"
        "        heads = weights @ v  # (batch, num_heads, len_q, d_head)\n"
    )


BLIND15D: list[Case] = [
    # ------------------------------------------------------------------ 05 quiz_head_width
    _c(
        "q-head-width-shared-by-q-k-v",
        L05,
        "quiz_head_width",
        "answers 256, 768 / 3, as if d_model were shared out between the queries, the keys "
        "and the values: each of them is d_model = 768 wide, and it is the heads that "
        "split that width, d_k = 768 / 12 = 64.",
        (
            r"768\s*/\s*3\b|768\s*÷\s*3\b",
            r"(divid\w*|split\w*|shar\w*) .{0,40}(by|in|into) (3|three)\b",
            r"(split|divid|shar)\w* .{0,60}(between|among|across) .{0,10}(the )?(queries|Q)\b"
            r".{0,20}(keys|K)\b",
            r"(queries|Q), (keys|K),? and (values|V).{0,60}(each|all|every one).{0,40}"
            r"(768|d_model)",
        ),
        (
            r"768\s*/\s*8|paper'?s (8|eight) heads",
            r"(is|that's|that is) (the )?(sentence length|number of tokens|number of words)",
            r"(is|that's|that is) (the )?number of heads",
            r"(is|that's|that is) d_model\b",
            r"(is|that's|that is) (the )?square root",
        ),
        edits=[("return 64", "return 256")],
    ),
    _c(
        "q-head-width-query-matrix-shape",
        L05,
        "quiz_head_width",
        "returns the tuple (20, 64), the shape of one head's query matrix for the 20-token "
        "sentence, where the question asks for d_k alone, one number: 64.",
        (
            r"tuple",
            r"shape.{0,60}(not|instead of|rather than) .{0,30}(the )?(width|number|d_k)",
            r"(one|a single) (number|int)\b.{0,40}(not|instead of) .{0,10}(a |the )?"
            r"(shape|tuple|pair)",
            r"(not|instead of) (a|the) (shape|pair)",
        ),
        (
            r"(is|that's|that is) (the )?(sentence length|number of tokens|number of words)",
            r"(is|that's|that is) (the )?number of heads",
            r"768\s*/\s*8",
            r"numeric string|in quotes",
        ),
        edits=[("return 64", "return (20, 64)")],
    ),
    # ------------------------------------------------------------------ 05 split_heads
    _c(
        "split-pieces-concatenated-on-length",
        L05,
        "split_heads",
        "cuts the features into num_heads pieces with x.split(d_head, dim=-1) and joins them "
        "with torch.cat(..., dim=1) instead of torch.stack(..., dim=1): the heads are laid "
        "end to end along the length axis, a 3-D (batch, num_heads * len, d_head), with no "
        "heads axis of their own.",
        (
            r"torch\.cat|\bcat\(",
            r"\bstack",
            r"(concatenat|glued|joined|laid)\w* .{0,60}(along|on|into) (the )?"
            r"(length|len|token|sequence|time)( axis)?",
            r"heads.{0,60}(end to end|one after another).{0,40}(length|len|tokens|sequence)",
            r"num_heads \* len|len(gth)? \* num_heads",
        ),
        (
            r"fold\w* .{0,30}(into|in) the batch",
            r"batch \* num_heads|num_heads \* batch",
            r"(no|without|forg[eo]t\w*|missing) (the )?transpose",
            r"(heads|num_heads) and d_head.{0,20}(swapped|exchanged)",
            r"torch\.split.{0,60}(size of each|not the number)",
        ),
        edits=[
            (
                "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "return torch.cat(x.split(d_model // num_heads, dim=-1), dim=1)",
            )
        ],
    ),
    _c(
        "split-two-inferred-sizes",
        L05,
        "split_heads",
        "lets reshape infer two sizes at once, x.reshape(batch, -1, num_heads, -1), "
        "leaving both the length and d_head as -1: reshape can infer only one dimension, so "
        "it raises a RuntimeError inside the learner's line.",
        (
            r"only one dimension can be inferred",
            r"(two|2|more than one|several) (-1s?|inferred (sizes|dimensions))",
            r"-1.{0,40}(twice|two times|two places|more than once)",
            r"(only )?one -1",
        ),
        (
            r"(float|true) division|d_model / num_heads",
            r"d_head.{0,40}(from the length|hard.?coded|modulo)",
            r"(no|without|forg[eo]t\w*|missing) (the )?transpose",
            r"x\.size\b.{0,30}(call|method)",
        ),
        edits=[
            (
                "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "return x.reshape(batch, -1, num_heads, -1).transpose(1, 2)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 05 merge_heads
    _c(
        "merge-flattens-length-and-heads",
        L05,
        "merge_heads",
        "transposes back correctly and then flattens axes 1 and 2, x.transpose(1, 2)"
        ".flatten(1, 2), the length and the heads, instead of the last two (the heads and "
        "d_head): the result is (batch, len * num_heads, d_head) instead of "
        "(batch, len, num_heads * d_head).",
        (
            r"flatten\(1, ?2\)",
            r"flatten\(2(, ?3)?\)|flatten\(-2",
            r"flatten\w*.{0,60}(wrong axes|axes 1 and 2|the length)",
            r"(length|len|tokens?)( axis)? .{0,40}(merged|flattened|folded|glued) .{0,30}"
            r"(with|into) (the )?heads",
            r"heads( axis)? .{0,40}(merged|flattened|folded|glued) .{0,30}(with|into) (the )?"
            r"(length|len|token|sequence)",
            r"len(gth)? \* num_heads|num_heads \* len",
        ),
        (
            r"(no|without|forg[eo]t\w*|missing) (the )?transpose",
            r"flatten\(1\)|from dim 1\b",
            r"cat\w* .{0,30}(along|on) (the )?(time|length)",
            r"\bsum\w*\b.{0,20}heads|heads.{0,20}\bsummed",
            r"d_head \* d_head",
        ),
        edits=[
            (
                "return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "return x.transpose(1, 2).flatten(1, 2)",
            )
        ],
    ),
    _c(
        "merge-unpacks-three-sizes",
        L05,
        "merge_heads",
        "copies split_heads' first line, batch, length, d_model = x.shape, into merge_heads, "
        "whose input is 4-D (batch, num_heads, len, d_head): unpacking four sizes into "
        "three names raises ValueError (too many values to unpack) in the learner's first "
        "line.",
        (
            r"too many values to unpack",
            r"unpack\w*.{0,60}(three|3) (names|variables)",
            r"(4-?D|four axes|four dimensions|4 dimensions).{0,80}(three|3) (names|variables)",
            r"split_heads'?s? (first line|unpacking)",
        ),
        (
            r"num_heads.{0,40}(second|extra) (parameter|argument)",
            r"\.view.{0,40}contiguous",
            r"not defined|NameError",
            r"(unpacks?|reads?) .{0,30}(the )?split layout",
        ),
        edits=[
            (
                "batch, num_heads, length, d_head = x.shape",
                "batch, length, d_model = x.shape\n    num_heads, d_head = x.shape[1], x.shape[3]",
            )
        ],
        source=THREE_NAMES_FOR_4D_SHAPE,
    ),
    # ------------------------------------------------------------------ 05 quiz_cross_attention_shape
    _c(
        "q-cross-shape-trailing-comma",
        L05,
        "quiz_cross_attention_shape",
        'writes return "b", with a trailing comma: the right letter, but Python makes it '
        "a one-element tuple ('b',), where the function must return the string 'b'.",
        (
            r"tuple",
            r"trailing comma|\bcomma\b",
            r"\('b',\)",
        ),
        (
            r"(keys?|source).{0,20}(as rows|first)",
            r"averag\w* over the heads",
            r"(target|decoder) length for both",
            r"without quotes|unquoted|NameError",
            r"(answered|chose|picked) \(?['\"]?[acd]\b",
        ),
        edits=[('return "b"', 'return "b",')],
        source=TRAILING_COMMA_TUPLE,
    ),
    # ------------------------------------------------------------------ 05 MultiHeadAttention
    _c(
        "mha-dropout-rate-kept-as-float",
        L05,
        "MultiHeadAttention",
        "stores the dropout rate itself, self.dropout = dropout, instead of a module "
        "nn.Dropout(dropout), and calls self.dropout(weights) in training: right with the "
        "default dropout 0.0 (the call is skipped), but a layer built with dropout > 0 "
        "raises TypeError ('float' object is not callable) in training mode.",
        (
            r"'float' object is not callable",
            r"self\.dropout.{0,60}(a float|a number|the rate|not (a|an) (module|nn\.Dropout|"
            r"callable))",
            r"nn\.Dropout\(dropout\)",
            r"(not|never|instead of) (an? )?nn\.Dropout",
        ),
        (
            r"(dropout|drops?) .{0,40}(on|to) the (output|values|scores)",
            r"hard.?coded",
            r"keep.?prob|1 - (p|dropout)",
            r"inplace",
            r"(never|not) applied|built .{0,30}never",
            r"F\.dropout|functional\.dropout",
        ),
        edits=[
            ("self.dropout = nn.Dropout(dropout)", "self.dropout = dropout"),
            ("if self.training and self.dropout.p > 0:", "if self.training and self.dropout > 0:"),
        ],
    ),
    _c(
        "mha-inline-fill-minus-1e-minus-9",
        L05,
        "MultiHeadAttention",
        "writes the attention inline and blocks the masked scores with "
        "masked_fill(~mask, -1e-9), a typo for -1e9: -1e-9 is practically 0, so a masked "
        "key keeps an ordinary score and gets about as much weight as if it were not masked.",
        (
            r"-1e-0?9\b",
            r"(fill|filled|fill value|blocking value|value).{0,60}(too small|close to 0|close to "
            r"zero|almost (0|zero)|nearly (0|zero)|practically (0|zero)|tiny|near zero|barely)",
            r"e-9 .{0,20}(instead of|not|rather than) .{0,10}e9",
            r"(sign of the exponent|exponent'?s? sign|negative exponent)",
        ),
        (
            r"(not|never) (passed|applied|given)|mask.{0,20}(ignored|dropped)",
            r"(assign|kept|keep)\w* .{0,30}(result|return value)|not in.?place",
            r"inverted|polarity|True = blocked",
            r"(multipl\w*|times) .{0,20}(by )?the mask",
            r"after the softmax",
            r"\+ ?mask|add\w* .{0,20}the (bool(ean)? )?mask",
        ),
        edits=[
            (_SDPA, _inline_attention("scores = scores.masked_fill(~mask, -1e-9)")),
        ],
        source=FILL_MINUS_1E_MINUS_9,
    ),
    _c(
        "mha-inline-bool-mask-added",
        L05,
        "MultiHeadAttention",
        "writes the attention inline and adds the bool mask to the scores (scores = scores "
        "+ mask), as if it were an additive float mask of 0 and -inf: True becomes +1 and "
        "False 0, so the allowed keys get a bonus of 1 and the masked keys are not blocked.",
        (
            r"add\w* .{0,40}(the )?(bool(ean)?|True/False|0/1) mask",
            r"(bool(ean)?) mask.{0,60}(added|as (a |an )?(float|additive|bias))",
            r"\+ ?mask\b|\bmask ?\+",
            r"(True|allowed).{0,30}(adds?|added|becomes|gets?) .{0,10}(\+ ?1|one|1\.0)\b",
            r"instead of adding",
        ),
        (
            r"-1e-?9|fill value.{0,30}(too|small)",
            r"(multipl\w*|times) .{0,20}(by )?the mask",
            r"(not|never) (passed|applied|given)|mask.{0,20}(ignored|dropped)",
            r"(assign|kept|keep)\w* .{0,30}(result|return value)|not in.?place",
            r"inverted|polarity|True = blocked",
            r"after the softmax",
        ),
        edits=[
            (_SDPA, _inline_attention("scores = scores + mask")),
        ],
        source=BOOL_MASK_ADDED_TO_SCORES,
    ),
    _c(
        "mha-torch-sdpa-unpacked-as-pair",
        L05,
        "MultiHeadAttention",
        "calls PyTorch's F.scaled_dot_product_attention in place of the course's and unpacks "
        "its result as (heads, weights), but PyTorch's returns only the output tensor, no "
        "weights: unpacking splits that tensor along its batch axis (a ValueError unless "
        "the batch holds exactly two sequences, and then nonsense of the wrong rank).",
        (
            r"F\.scaled_dot_product_attention.{0,80}(returns? only|one tensor|no weights|not "
            r"(the )?weights|only the output|does not return|doesn't return)",
            r"(PyTorch|torch)'?s? (own )?scaled_dot_product_attention.{0,80}(returns? only|"
            r"one tensor|no weights|only the output|does not return|doesn't return)",
            r"(returns?|gives) (only )?(a single|one) tensor.{0,60}(not|no) .{0,20}weights",
            r"(unpack\w*|split\w*) .{0,40}(along|over) (its|the) (first|batch) (axis|dim)",
        ),
        (
            r"(keys?|k) and (values?|v) .{0,20}swapped",
            r"(no|without|forg[eo]t\w*) (the )?w_o",
            r"(no|without) (the )?transpose",
            r"(layer|forward|MultiHeadAttention) returns? only (the )?output",
            r"(weights|heads) first",
        ),
        edits=[
            (
                _SDPA,
                "import torch.nn.functional as F\n"
                "        heads, weights = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)\n",
            )
        ],
        source=SDPA_RETURNS_NO_WEIGHTS,
    ),
    _c(
        "mha-mask-moved-without-none-check",
        L05,
        "MultiHeadAttention",
        "moves the mask to the inputs' device on the first line of forward, mask = "
        "mask.to(query.device), without testing whether a mask was given: every masked "
        "call is right, but a call with mask=None (the default) raises AttributeError "
        "('NoneType' object has no attribute 'to').",
        (
            r"NoneType",
            r"mask=None.{0,80}(fails|raises|crash|error|AttributeError)",
            r"(without|no) (a )?(check|test) .{0,20}(for )?(mask is None|None|a missing mask)",
            r"mask is (not )?None",
            r"(no|without a) mask.{0,40}(fails|raises|crash|AttributeError)",
        ),
        (
            r"unsqueeze|5-?D",
            r"expand\w* .{0,20}(the )?mask|mask\.expand",
            r"(remember|kept|stored|earlier call).{0,30}mask",
            r"always causal|own (causal|look.?ahead)",
            r"inverted|polarity|True = blocked",
            r"(not|never) (passed|applied)",
        ),
        edits=[
            (
                _PROJECT.split("\n")[0],
                "mask = mask.to(query.device)\n        " + _PROJECT.split("\n")[0],
            )
        ],
        source=MASK_METHOD_ON_NONE,
    ),
    _c(
        "mha-sdpa-queries-keys-swapped",
        L05,
        "MultiHeadAttention",
        "calls scaled_dot_product_attention(k, q, v, mask), the keys in the queries' place "
        "and the queries in the keys': the scores are K Q^T, the transpose of Q K^T, so in "
        "self-attention the weights have the right shape but the wrong values (and the mask "
        "lands on the transposed scores), and in cross-attention (len_q != len_k) the shapes "
        "no longer fit.",
        (
            r"(queries|\bq\b) and (keys|\bk\b) .{0,30}(swapped|exchanged|reversed|the wrong way"
            r"|other'?s place)",
            r"(keys|\bk\b) and (queries|\bq\b) .{0,30}(swapped|exchanged|reversed|the wrong way"
            r"|other'?s place)",
            r"\(k, q, v",
            r"(keys?|\bk\b) .{0,30}(in|take|took|passed in) (the )?(queries|query|q)'?s? place",
            r"K ?Q\^?T|k @ q\b|K·Q",
        ),
        (
            r"(keys?|\bk\b) and (values?|\bv\b) .{0,20}swapped|\(q, v, k",
            r"(keys?|values?) .{0,20}(projected )?from (the )?`?query",
            r"softmax over (the )?(queries|dim=-2|rows|heads)",
            r"\bscal(e|ing) (by|factor)|sqrt\(d_model\)",
            r"inverted|polarity|True = blocked",
        ),
        edits=[
            (
                "scaled_dot_product_attention(q, k, v, mask)",
                "scaled_dot_product_attention(k, q, v, mask)",
            )
        ],
        source=KEYS_TIMES_QUERIES,
    ),
    _c(
        "mha-projections-to-head-width",
        L05,
        "MultiHeadAttention",
        "reads the paper's W_i^Q in R^(d_model x d_k) as the size of the whole projection and "
        "builds w_q, w_k and w_v as nn.Linear(d_model, d_model // num_heads): the projections "
        "are one head wide instead of d_model (the weights are (d_head, d_model), not "
        "(d_model, d_model)), so the state dict does not load and the heads are num_heads "
        "times too thin.",
        (
            r"size mismatch for w_[qkv]\.weight",
            r"(out_features|output (size|width|features)).{0,60}(d_head|d_k|d_model ?// ?"
            r"num_heads|one head)",
            r"(d_head|d_k|one head'?s? width).{0,60}(instead of|not|rather than) .{0,10}"
            r"(d_model|all (the )?heads)",
            r"w_[qkv]\b.{0,60}(project|map)\w* .{0,30}(to|onto) (d_head|d_k|one head)",
            r"w_[qkv].{0,60}(too (narrow|thin|small)|one head wide)",
        ),
        (
            r"fused|in_proj",
            r"ModuleList|linears\.",
            r"per.?head (linears?|layers?)|Python lists?",
            r"\bbias\b",
            r"(heads|num_heads) (and|before) d_model|argument order",
            r"d_head as num_heads|split into d_head heads",
        ),
        edits=[
            (
                "self.w_q = nn.Linear(d_model, d_model)",
                "self.w_q = nn.Linear(d_model, d_model // num_heads)",
            ),
            (
                "self.w_k = nn.Linear(d_model, d_model)",
                "self.w_k = nn.Linear(d_model, d_model // num_heads)",
            ),
            (
                "self.w_v = nn.Linear(d_model, d_model)",
                "self.w_v = nn.Linear(d_model, d_model // num_heads)",
            ),
        ],
        source=PROJECTION_TO_D_K,
    ),
    _c(
        "mha-dropout-applied-twice",
        L05,
        "MultiHeadAttention",
        "drops the attention weights once (weights = self.dropout(weights), the Annotated "
        "Transformer's habit) and then again in the training branch "
        "(heads = self.dropout(weights) @ v): in training with dropout > 0 each weight is "
        "dropped twice, with probability 1 - (1 - p)^2, and the kept ones scaled by "
        "1 / (1 - p)^2; eval mode and dropout 0 are right.",
        (
            r"dropout.{0,60}(twice|two times|a second time|again)",
            r"(twice|double|two) .{0,30}dropout",
            r"dropped twice|drops? .{0,30}twice",
            r"\(1 - p\)\s*(\^|\*\*)\s*2",
        ),
        (
            r"(on|to) the (output|values|scores)\b",
            r"(never|not) applied|built .{0,30}never",
            r"keep.?prob|1 - dropout\)",
            r"not rescaled|without (re)?scal",
            r"hard.?coded",
            r"(still )?drops? .{0,30}in eval|eval mode.{0,30}(still|drops)",
            r"inplace",
        ),
        edits=[
            (
                _SDPA,
                _SDPA + "        weights = self.dropout(weights)\n",
            )
        ],
    ),
    # ------------------------------------------------------------------ 06 quiz_fully_masked_row
    _c(
        "q-fully-masked-number-zero",
        L06,
        "quiz_fully_masked_row",
        "returns the number 0 for answer (b) 'all zeros': the right idea, but the function "
        "must return the letter 'b', a string.",
        (
            r"\bint\b|integer",
            r"(a|the) number\b(?! of)",
            r"returned 0\b|gave 0\b|answer 0\b|\b0 \(",
            r"letter.{0,40}(not|instead of) .{0,20}(a |the )?(number|0|int)",
        ),
        (
            r"(answered|chose|picked) \(?['\"]?[acd]\b",
            r"(words|text) .{0,20}(instead of|not) .{0,10}(the )?letter",
            r"two (letters|answers)|hedg",
            r"without quotes|unquoted|NameError",
        ),
        edits=[('return "b"', "return 0")],
    ),
    # ------------------------------------------------------------------ 06 padding_mask
    _c(
        "padmask-unsqueeze-two-dims-at-once",
        L06,
        "padding_mask",
        "adds both new axes in one call, (ids != pad_id).unsqueeze(1, 2), as numpy's "
        "expand_dims(a, (1, 2)) would: torch's unsqueeze takes a single dim, so it raises "
        "TypeError (unsqueeze() takes 1 positional argument but 2 were given) in the "
        "learner's line; two unsqueeze calls, or [:, None, None, :], were needed.",
        (
            r"takes 1 positional argument but 2",
            r"unsqueeze\w*.{0,60}(one (dim|axis|int)|single (dim|axis|int)|only one|not (a tuple|"
            r"two|several))",
            r"expand_dims",
            r"unsqueeze.{0,20}(twice|two times)|two unsqueeze",
            r"unsqueeze\(1\)\.unsqueeze\((1|2)\)",
        ),
        (
            r"(leading|front) axes|\(1, 1, batch",
            r"query axis",
            r"inverted|polarity|== instead of !=",
            r"pad_id.{0,30}(ignored|hard.?coded)|(compares?|compared) with 0\b",
            r"(head|heads) axis.{0,30}missing|3-?D",
            r"expand\b|expanded",
        ),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return (ids != pad_id).unsqueeze(1, 2)",
            )
        ],
    ),
    _c(
        "padmask-not-before-comparison",
        L06,
        "padding_mask",
        "means 'not a pad', ~(ids == pad_id), but writes ~ids == pad_id without parentheses: "
        "~ binds tighter than ==, so it takes the bitwise complement of the ids (-id - 1) "
        "and compares that with pad_id, which is True almost nowhere: the mask comes out "
        "(nearly) all False, every key blocked.",
        (
            r"~ ?ids\b",
            r"bitwise (not|complement|inver\w*)",
            r"precedence",
            r"parenthes",
            r"~ .{0,40}(binds|applies|applied|acts) .{0,30}(before|tighter|first|to the ids)",
        ),
        (
            r"== instead of !=|compares? with ==",
            r"(True|marks?) .{0,20}(at|the) pads\b",
            r"pad_id.{0,30}(ignored|hard.?coded)|(compares?|compared) with 0\b",
            r"query axis",
            r"\.bool\(\)|nonzero",
            r"all.?pad(ding)? rows?",
        ),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return (~ids == pad_id)[:, None, None, :]",
            )
        ],
        source=MASK_OPERATOR_PRECEDENCE,
    ),
    # ------------------------------------------------------------------ 06 look_ahead_mask
    _c(
        "lookahead-dtype-passed-to-tril",
        L06,
        "look_ahead_mask",
        "puts dtype=torch.bool in the wrong call, torch.tril(torch.ones(size, size), "
        "dtype=torch.bool): torch.tril takes no dtype, so it raises TypeError (an unexpected "
        "keyword argument 'dtype') in the learner's line.",
        (
            r"unexpected keyword argument 'dtype'",
            r"dtype.{0,60}(tril|wrong (call|parenthes\w*|place)|torch\.ones)",
            r"tril\(?\)? (takes|has|accepts) no dtype",
        ),
        (
            r"float (mask|tensor|1\.0|ones)",
            r"numpy",
            r"1-?D|one size|second size",
            r"(uint8|int64|integer) mask",
        ),
        edits=[
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "return torch.tril(torch.ones(size, size), dtype=torch.bool)",
            )
        ],
    ),
    _c(
        "lookahead-hard-coded-cuda",
        L06,
        "look_ahead_mask",
        "builds the triangle on a hard-coded GPU, torch.ones(size, size, dtype=torch.bool, "
        "device='cuda'), copied from a notebook run on a GPU: on a machine without CUDA it "
        "raises in the learner's line (and where a GPU exists, the mask is on another device "
        "than CPU tensors it meets).",
        (
            r"cuda|CUDA|\bGPU\b|NVIDIA",
            r"device",
        ),
        (
            r"float (mask|tensor|1\.0|ones)",
            r"numpy",
            r"\bdtype\b",
            r"1-?D|one size|second size",
        ),
        edits=[
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "return torch.tril(torch.ones(size, size, dtype=torch.bool, device='cuda'))",
            )
        ],
        source=HARD_CODED_CUDA,
    ),
    # ------------------------------------------------------------------ 06 decoder_self_attention_mask
    _c(
        "decmask-combined-with-xor",
        L06,
        "decoder_self_attention_mask",
        "combines the two masks with ^ (read as the logician's AND, ∧), which is XOR: a key "
        "is allowed when exactly one rule allows it, so real past keys (both allow) are "
        "blocked while real future keys and past pads (one allows) become visible.",
        (
            r"\^|\bxor\b|exclusive",
            r"(exactly|only) one (of the )?(two )?(rules?|masks?)",
        ),
        (
            r"\| instead of &|\bor\b instead of|either (rule|mask)",
            r"inverted|~ ?look_ahead|polarity",
            r"pad(ding)? .{0,30}(query|rows)",
            r"transposed|upper triangle|triu",
            r"(no|without) (the )?(look.?ahead|padding)",
        ),
        edits=[
            (
                "padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "padding_mask(tgt_ids, pad_id) ^ look_ahead_mask(tgt_ids.shape[1])",
            )
        ],
    ),
    _c(
        "decmask-look-ahead-sized-by-whole-shape",
        L06,
        "decoder_self_attention_mask",
        "sizes the look-ahead part with tgt_ids.shape, the whole (batch, len) size, instead "
        "of tgt_ids.shape[1]: look_ahead_mask then calls torch.ones(shape, shape, ...) with "
        "two torch.Size arguments, which raises TypeError (ones() takes 1 positional argument "
        "but 2 were given).",
        (
            r"tgt_ids\.shape\)|the whole (shape|size)",
            r"torch\.Size",
            r"shape\[1\]|size\(1\)",
            r"(size|length).{0,40}(a tuple|torch\.Size|the shape)",
        ),
        (
            r"batch size|shape\[0\]|len\(tgt_ids\)",
            r"pad_id.{0,30}(as|for) (the )?(size|length)",
            r"one too few|shape\[1\] - 1",
            r"longest",
            r"\| instead of &",
        ),
        edits=[
            (
                "look_ahead_mask(tgt_ids.shape[1])",
                "look_ahead_mask(tgt_ids.shape)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 06 quiz_which_mask
    _c(
        "q-which-mask-takes-the-ids",
        L06,
        "quiz_which_mask",
        "declares the quiz function with the ids the question talks about, "
        "def quiz_which_mask(src, tgt), and returns the right letter 'c': called with no "
        "arguments, as every quiz function is, it raises TypeError (missing 2 required "
        "positional arguments).",
        (
            r"missing 2 required positional arguments",
            r"(takes|has|declares|expects|defined with) .{0,30}(parameters|arguments)",
            r"(no|without) (parameters|arguments)",
            r"positional argument",
        ),
        (
            r"(answered|chose|picked) \(?['\"]?[abd]\b",
            r"no return|returns? None|return statement",
            r"number .{0,30}instead of .{0,10}letter",
        ),
        code='''
def quiz_which_mask(src, tgt):
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return "c"
''',
    ),
]
