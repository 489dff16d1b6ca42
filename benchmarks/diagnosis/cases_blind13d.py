"""Held-out wrong answers for lessons 05-06, blind round 13 (helper r13d, 2026-11-27):
mistakes new to the benchmark, written while the checks' mutation-based diagnosis was being
built, and judged before and after it. 24 cases over the ten exercises; eleven transpose a
mistake reported in public (the URL read for this benchmark), the others are the author's.

Written blind: without reading the checks of these lessons or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run, and each case was compared with the causes of the benchmark's earlier cases for these
lessons (ids and causes only) and replaced where it repeated one.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06 = "05_multi_head_attention", "06_masking"

# The reports these cases transpose (each read with the search tool for this benchmark).
NUMPY_NEEDS_GRAD_FREE = "https://github.com/zhuangdizhu/FedGen/issues/15"
LIST_TIMES_SHARES_MODULE = "https://github.com/acids-ircam/ddsp_pytorch/issues/37"
DROPOUT_INPLACE_BACKWARD = "https://github.com/BierOne/bottom-up-attention-vqa/issues/6"
DROPOUT_BEFORE_SOFTMAX = "https://github.com/meta-pytorch/attention-gym/issues/77"
DIVISIBILITY_DIRECTION = "https://github.com/jsksxs360/How-to-use-Transformers/issues/9"
SCALE_AFTER_SOFTMAX = "https://github.com/FrancescoSaverioZuppichini/ViT/issues/2"
PADDING_SKIPPED_BATCH_OF_ONE = "https://github.com/huggingface/transformers/pull/46773"
FLOAT_MASK_BITWISE = "https://github.com/ArcInstitute/state/pull/213"
TENSOR_OPERATOR_PRECEDENCE = "https://github.com/ELS-RD/transformer-deploy/issues/78"
LENGTH_FROM_REAL_TOKENS = "https://github.com/Dao-AILab/flash-attention/issues/1681"
MISSING_RETURN = "https://github.com/bytedance/Protenix/pull/261"

_c = held_out_authored("blind13d")

BLIND13D: list[Case] = [
    # ------------------------------------------------------------------ 05 quiz_head_width
    _c(
        "q-head-width-paper-heads",
        L05,
        "quiz_head_width",
        "answers 96, 768 / 8: divides BERT-base's d_model by the paper's 8 heads instead of "
        "BERT's own 12 heads (768 / 12 = 64).",
        (
            r"768 ?/ ?8\b",
            r"(divided|divides|dividing) by 8\b",
            r"\b8\b.{0,30}(instead of|not|rather than) (BERT's )?12",
            r"paper's (h|number of heads|8 heads)",
        ),
        (r"sentence|tokens|\blength\b", r"whole width|d_model itself", r"number of heads, not"),
        code='''
def quiz_head_width() -> int:
    """Your answer to Question 1: d_k, as a number."""
    return 96
''',
    ),
    # ------------------------------------------------------------------ 05 split_heads
    _c(
        "split-d-head-modulo",
        L05,
        "split_heads",
        "computes the head width with % instead of // (d_head = d_model % num_heads), which is "
        "0 whenever num_heads divides d_model: the reshape to (batch, len, num_heads, 0) "
        "raises a RuntimeError inside the learner's line.",
        (
            r"%",
            r"modulo|remainder",
            r"d_head (=|is|of) 0\b",
            r"//.{0,40}(not|instead of|rather than) %",
        ),
        (r"transpose", r"float|true division", r"hard-?coded|\b64\b", r"length axis"),
        edits=[
            (
                "x.reshape(batch, length, num_heads, d_model // num_heads)",
                "x.reshape(batch, length, num_heads, d_model % num_heads)",
            )
        ],
    ),
    _c(
        "split-through-numpy",
        L05,
        "split_heads",
        "does the reshape and the transpose in numpy (x.numpy() ... torch.from_numpy): right on a "
        "plain tensor, but x.numpy() raises on a tensor that requires grad (the projections' "
        "output in the layer), and the result is cut from the autograd graph.",
        (
            r"numpy",
            r"requires.?grad",
            r"(autograd|gradient).{0,60}(cut|lost|does not flow|no longer|detached|broken)",
        ),
        (r"transpose.{0,40}(missing|forgot|without)", r"dtype", r"tokens? (are )?mixed"),
        code="""
def split_heads(x: torch.Tensor, num_heads: int) -> torch.Tensor:
    batch, length, d_model = x.shape
    array = x.numpy().reshape(batch, length, num_heads, d_model // num_heads)
    return torch.from_numpy(array.transpose(0, 2, 1, 3))
""",
        source=NUMPY_NEEDS_GRAD_FREE,
    ),
    _c(
        "split-one-head-shortcut",
        L05,
        "split_heads",
        "adds a shortcut for a single head (if num_heads == 1: return x), returning the 3-D "
        "(batch, len, d_model) input itself instead of (batch, 1, len, d_model): right for "
        "every num_heads > 1.",
        (
            r"(single head|one head|num_heads ?== ?1).{0,100}"
            r"(3-D|three axes|no head axis|head axis.{0,20}missing|unchanged|x itself|as it is)",
            r"returns? (x|the input|its input) (unchanged|as it is|itself)",
            r"head axis.{0,40}(missing|dropped|of size 1)",
            r"shortcut|special case",
        ),
        (
            r"transpose",
            r"tokens? (are )?mixed",
            r"d_head.{0,40}num_heads.{0,20}(swapped|exchanged)",
        ),
        edits=[
            (
                "batch, length, d_model = x.shape",
                "if num_heads == 1:\n        return x\n    batch, length, d_model = x.shape",
            )
        ],
    ),
    # ------------------------------------------------------------------ 05 merge_heads
    _c(
        "merge-global-d-model",
        L05,
        "merge_heads",
        "reshapes to (batch, length, d_model) with a d_model the function never defines (it "
        "unpacks batch, num_heads, length, d_head only): a NameError inside the learner's "
        "line; num_heads * d_head is the width.",
        (
            r"NameError",
            r"name 'd_model' is not defined",
            r"d_model.{0,60}(not defined|isn't defined|undefined|global|outside the function)",
        ),
        (r"contiguous|\.view", r"interleav", r"transpose.{0,40}(missing|forgot|without)"),
        edits=[
            (
                "reshape(batch, length, num_heads * d_head)",
                "reshape(batch, length, d_model)",
            )
        ],
    ),
    _c(
        "merge-transposes-batch-and-length",
        L05,
        "merge_heads",
        "transposes axes 0 and 2 (x.transpose(0, 2), batch and length) instead of 1 and 2 before "
        "the reshape: right for a batch of one, where memory order happens to match, wrong for "
        "any batch of two or more (tokens of different sequences mixed).",
        (
            r"transpose\(0, ?2\)",
            r"axes 0 and 2",
            r"batch (axis )?(and|with) (the )?(length|len|token)s?( axis)?.{0,40}"
            r"(swapped|exchanged|transposed)",
            r"(sequences|rows) of the batch.{0,40}mixed",
        ),
        (r"contiguous|\.view", r"interleav", r"last two axes", r"heads? (axis )?before the batch"),
        edits=[("x.transpose(1, 2)", "x.transpose(0, 2)")],
    ),
    _c(
        "merge-drops-last-head",
        L05,
        "merge_heads",
        "concatenates the heads with torch.cat([x[:, h] for h in range(num_heads - 1)], -1), "
        "one head short: the last head is dropped and the width is (num_heads - 1) * d_head "
        "(and a single head gives an empty list, which torch.cat refuses).",
        (
            r"last head",
            r"range\(num_heads ?- ?1\)",
            r"num_heads ?- ?1",
            r"one head (short|missing|fewer|too few|dropped)",
        ),
        (r"transpose", r"interleav", r"summ|added together", r"contiguous|\.view"),
        edits=[
            (
                "return x.transpose(1, 2).reshape(batch, length, num_heads * d_head)",
                "return torch.cat([x[:, h] for h in range(num_heads - 1)], dim=-1)",
            )
        ],
    ),
    # ------------------------------------------------------------------ 05 quiz_cross_attention_shape
    _c(
        "q-cross-shape-tuple-not-letter",
        L05,
        "quiz_cross_attention_shape",
        "returns the shape itself, the tuple (2, 8, 5, 7), instead of the letter of the answer "
        "(the right one, 'b'): the function must return one of 'a', 'b', 'c', 'd'.",
        (
            r"letter",
            r"one of .{0,10}a.{0,10}b.{0,10}c.{0,10}d",
            r"(a|the) tuple",
            r"str(ing)?.{0,40}(not|instead of) (a )?tuple",
        ),
        (r"rows? (per|for each) key", r"keys? first", r"averag", r"target length for both"),
        code='''
def quiz_cross_attention_shape() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return (2, 8, 5, 7)
''',
    ),
    # ------------------------------------------------------------------ 05 MultiHeadAttention
    _c(
        "mha-four-linears-one-object",
        L05,
        "MultiHeadAttention",
        "builds the projections with list multiplication, self.w_q, self.w_k, self.w_v, "
        "self.w_o = [nn.Linear(d_model, d_model)] * 4: the list holds one Linear four times, "
        "so all four projections are the same layer with the same weights (loading a state "
        "dict leaves all four with w_o's).",
        (
            r"(same|one|single|shared) (nn\.)?Linear",
            r"list multiplication|\] ?\* ?4",
            r"(share|shares|shared|sharing) (their |the same |one )?(weights|parameters|layer)",
            r"(same|one) (object|module|layer).{0,40}(four|4|w_q|w_k|w_v|w_o)",
        ),
        (r"\bbias\b", r"keys?.{0,20}from .{0,10}query", r"fused", r"sqrt|scal(e|ing)"),
        edits=[
            (
                "        self.w_q = nn.Linear(d_model, d_model)\n"
                "        self.w_k = nn.Linear(d_model, d_model)\n"
                "        self.w_v = nn.Linear(d_model, d_model)\n"
                "        self.w_o = nn.Linear(d_model, d_model)\n",
                "        self.w_q, self.w_k, self.w_v, self.w_o = [nn.Linear(d_model, d_model)] * 4\n",
            )
        ],
        source=LIST_TIMES_SHARES_MODULE,
    ),
    _c(
        "mha-dropout-inplace",
        L05,
        "MultiHeadAttention",
        "builds nn.Dropout(dropout, inplace=True): in training with dropout > 0 it overwrites "
        "the softmax's output, which autograd needs, so backward raises 'modified by an "
        "inplace operation' (and the returned weights are the dropped ones); eval mode and "
        "dropout 0 are unaffected.",
        (
            r"inplace|in-place|in place",
            r"modified by an inplace operation",
        ),
        (
            r"dropout.{0,40}(on|to) the (layer's )?output",
            r"(never|not) applied",
            r"eval mode.{0,40}(still|drops)",
            r"keep.?prob",
        ),
        edits=[
            (
                "self.dropout = nn.Dropout(dropout)",
                "self.dropout = nn.Dropout(dropout, inplace=True)",
            )
        ],
        source=DROPOUT_INPLACE_BACKWARD,
    ),
    _c(
        "mha-dropout-on-scores",
        L05,
        "MultiHeadAttention",
        "writes the attention inline and applies dropout to the scaled scores before the "
        "softmax instead of to the weights after it: eval mode and dropout 0 are right, but in "
        "training dropped scores become 0 (not a zero weight) and every row still sums to 1.",
        (
            r"dropout.{0,60}(scores|logits).{0,40}(before|instead)",
            r"before the softmax",
            r"pre-?softmax",
            r"(scores|logits).{0,30}(dropped|dropout)",
        ),
        (
            r"(on|to) the (layer's )?output",
            r"(on|to) the values",
            r"inplace|in-place",
            r"(never|not) applied",
            r"eval mode.{0,40}(still|drops)",
        ),
        code="""
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.num_heads = d_model, num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query), self.num_heads)
        k = split_heads(self.w_k(key), self.num_heads)
        v = split_heads(self.w_v(value), self.num_heads)
        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        scores = self.dropout(scores)
        if mask is not None:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1)
        return self.w_o(merge_heads(weights @ v)), weights
""",
        source=DROPOUT_BEFORE_SOFTMAX,
    ),
    _c(
        "mha-divisibility-test-reversed",
        L05,
        "MultiHeadAttention",
        "tests divisibility the wrong way round, if num_heads % d_model: raise ValueError, so "
        "building any valid layer with fewer heads than features (MultiHeadAttention(16, 4)) "
        "raises the learner's own ValueError.",
        (
            r"num_heads ?% ?d_model",
            r"(operands|order).{0,40}(swapped|reversed|the other way)",
            r"divisib.{0,60}(reversed|the wrong way|backwards|other way)",
            r"ValueError.{0,80}(although|even though|but) .{0,40}divisible",
        ),
        (r"not divisible.{0,40}(should|must) raise", r"never raises"),
        edits=[("if d_model % num_heads:", "if num_heads % d_model:")],
        source=DIVISIBILITY_DIRECTION,
    ),
    _c(
        "mha-scale-after-softmax",
        L05,
        "MultiHeadAttention",
        "writes the attention inline and divides by sqrt(d_head) after the softmax "
        "(softmax(scores) / sqrt(d_head)) instead of scaling the scores before it: the weights "
        "are those of unscaled scores and each row sums to 1 / sqrt(d_head), not 1.",
        (
            r"(scal|divid|multipl)\w*.{0,60}after (the )?softmax",
            r"softmax.{0,40}(before|then).{0,40}(scal|divid)",
            r"(rows?|weights) sum to 1 ?/ ?(sqrt|√)",
        ),
        (
            r"sqrt\(d_model\)|√d_model",
            r"sqrt\(num_heads\)",
            r"mask\w*.{0,30}after (the )?softmax",
            r"(not|never) scaled|no scaling",
            r"scaled twice",
        ),
        code="""
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.num_heads = d_model, num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query), self.num_heads)
        k = split_heads(self.w_k(key), self.num_heads)
        v = split_heads(self.w_v(value), self.num_heads)
        scores = q @ k.transpose(-2, -1)
        if mask is not None:
            scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1) / q.shape[-1] ** 0.5
        return self.w_o(merge_heads(self.dropout(weights) @ v)), weights
""",
        source=SCALE_AFTER_SOFTMAX,
    ),
    _c(
        "mha-forward-self-attention-only",
        L05,
        "MultiHeadAttention",
        "writes forward(self, x, mask=None) for self-attention only (nanoGPT's habit), taking "
        "the queries, keys and values all from x: the contract's call forward(query, key, "
        "value, mask) raises a TypeError (too many positional arguments).",
        (
            r"forward\(self, x",
            r"signature",
            r"forward\(\) takes .{0,30}positional arguments",
            r"(takes|accepts) (only )?(one|a single) input",
            r"query, key, value.{0,40}(arguments|parameters)",
        ),
        (r"keys?.{0,20}from .{0,10}query", r"values?.{0,20}from .{0,10}key"),
        edits=[
            (
                "def forward(self, query, key, value, mask=None):",
                "def forward(self, x, mask=None):",
            ),
            ("self.w_q(query)", "self.w_q(x)"),
            ("self.w_k(key)", "self.w_k(x)"),
            ("self.w_v(value)", "self.w_v(x)"),
        ],
    ),
    # ------------------------------------------------------------------ 06 quiz_fully_masked_row
    _c(
        "q-fully-masked-words-not-letter",
        L06,
        "quiz_fully_masked_row",
        "returns the words of the right answer, 'all zeros', instead of its letter 'b': the "
        "function must return one of 'a', 'b', 'c', 'd'.",
        (r"letter", r"one of .{0,10}a.{0,10}b.{0,10}c.{0,10}d"),
        (r"\bNaN\b", r"uniform", r"own position"),
        code='''
def quiz_fully_masked_row() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "all zeros"
''',
    ),
    # ------------------------------------------------------------------ 06 padding_mask
    _c(
        "padmask-batch-of-one-skipped",
        L06,
        "padding_mask",
        "skips the padding for a batch of one (if ids.shape[0] == 1: every position True, "
        "'a single sentence has no padding'): a batch of one that does hold pads (left "
        "padding, or padding past its end) gets them marked as real; larger batches are right.",
        (
            r"batch of one.{0,100}(pads?|padding)",
            r"(single|one) (sequence|sentence|row).{0,80}(pads?|padding).{0,60}"
            r"(True|attend|not masked|ignored|real)",
            r"shape\[0\] ?== ?1",
            r"batch size (of )?1",
        ),
        (
            r"inverted|polarity|== ?pad_id",
            r"pad_id.{0,30}(ignored|hard-?coded|0 instead)",
            r"query axis",
            r"all-pad(ding)? rows?",
        ),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]",
                "if ids.shape[0] == 1:\n"
                "        return torch.ones(1, 1, 1, ids.shape[1], dtype=torch.bool)\n"
                "    return (ids != pad_id)[:, None, None, :]",
            )
        ],
        source=PADDING_SKIPPED_BATCH_OF_ONE,
    ),
    # blind13d-padmask-first-row-for-all left out after the run: its code is one of the tests' own
    # mistakes (test_06 padding_mask_first_sequence_only); generalisation.py lists it with the
    # reason.
    # _c(
    #     "padmask-first-row-for-all",
    #     L06,
    #     "padding_mask",
    #     "builds the mask from the first sequence only, (ids[0] != pad_id)[None, None, None, :], "
    #     "shape (1, 1, 1, len): right for a batch of one; for larger batches every sequence "
    #     "gets the first one's padding (and the batch axis has size 1).",
    #     (
    #         r"ids\[0\]",
    #         r"first (sequence|row|sentence).{0,80}(every|all|whole batch|other)",
    #         r"(every|each) (sequence|row) .{0,40}(the )?first('s)?",
    #         r"batch (axis|dimension).{0,60}(1 instead|size 1|missing|lost)",
    #     ),
    #     (
    #         r"leading axes|in front",
    #         r"inverted|polarity",
    #         r"query axis",
    #         r"pad_id.{0,30}(ignored|0)",
    #     ),
    #     edits=[
    #         (
    #             "return (ids != pad_id)[:, None, None, :]",
    #             "return (ids[0] != pad_id)[None, None, None, :]",
    #         )
    #     ],
    # ),
    _c(
        "padmask-unpadded-batch-float-ones",
        L06,
        "padding_mask",
        "adds a shortcut for a batch with no pad at all that returns torch.ones(batch, 1, 1, "
        "len) without dtype=torch.bool: exactly when no row is padded the mask is float32 "
        "1.0 instead of bool True (the right shape and pattern).",
        (
            r"float32.{0,120}(no (pad|padding)|without (any )?pad|unpadded|not padded)",
            r"(no (pad|padding)|without (any )?pad|unpadded|not padded).{0,120}float",
            r"torch\.ones.{0,40}(dtype|bool)",
            r"shortcut|special case|early return",
        ),
        (r"inverted|polarity", r"query axis", r"pad_id.{0,30}(ignored|0 instead|hard-?coded)"),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]",
                "if not (ids == pad_id).any():\n"
                "        return torch.ones(ids.shape[0], 1, 1, ids.shape[1])\n"
                "    return (ids != pad_id)[:, None, None, :]",
            )
        ],
    ),
    # ------------------------------------------------------------------ 06 look_ahead_mask
    _c(
        "lookahead-tril-indices",
        L06,
        "look_ahead_mask",
        "returns torch.tril_indices(size, size), the (2, size * (size + 1) / 2) int64 tensor of "
        "the lower triangle's row and column indices, instead of the (size, size) bool mask.",
        (
            r"tril_indices",
            r"indices.{0,60}(not|instead of|rather than).{0,20}(a |the )?(bool |boolean )?"
            r"(mask|matrix)",
            r"(row and column|row|column) indices",
        ),
        (r"\bfloat", r"triu|upper triangle", r"diagonal", r"numpy", r"(Python )?list"),
        edits=[
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "return torch.tril_indices(size, size)",
            )
        ],
    ),
    _c(
        "lookahead-diagonal-or-float-eye",
        L06,
        "look_ahead_mask",
        "builds the strict past (tril with diagonal=-1) and adds each query's own key back with "
        "| torch.eye(size), a float matrix: | is not defined for floats, so a "
        "NotImplementedError ('bitwise_or_cpu' not implemented for 'Float') is raised in the "
        "learner's line.",
        (
            r"torch\.eye",
            r"eye\(.{0,20}\).{0,60}(float|dtype)",
            r"bitwise_or",
            r"float.{0,40}\|",
        ),
        (r"diagonal.{0,40}(excluded|missing|blocked)", r"triu|upper triangle", r"numpy"),
        edits=[
            (
                "return torch.tril(torch.ones(size, size, dtype=torch.bool))",
                "return torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=-1)"
                " | torch.eye(size)",
            )
        ],
        source=FLOAT_MASK_BITWISE,
    ),
    # ------------------------------------------------------------------ 06 decoder_self_attention_mask
    _c(
        "decmask-comparison-and-precedence",
        L06,
        "decoder_self_attention_mask",
        "writes tgt_ids[:, None, None, :] != pad_id & look_ahead_mask(len) without parentheses: "
        "& binds tighter than !=, so it computes tgt_ids != (pad_id & look_ahead): with "
        "pad_id 0 the look-ahead part vanishes (padding only), with another pad_id the ids "
        "are compared with the triangle.",
        (
            r"precedence",
            r"parenthes",
            r"pad_id ?& ?look_ahead",
            r"&.{0,40}(binds|evaluated).{0,40}(before|tighter)",
        ),
        (r"\|.{0,20}instead of.{0,20}&", r"either rule", r"pad_id.{0,30}(ignored|hard-?coded)"),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "return tgt_ids[:, None, None, :] != pad_id & look_ahead_mask(tgt_ids.shape[1])",
            )
        ],
        source=TENSOR_OPERATOR_PRECEDENCE,
    ),
    _c(
        "decmask-length-from-longest-real-row",
        L06,
        "decoder_self_attention_mask",
        "sizes the look-ahead part by the longest real sentence, (tgt_ids != pad_id).sum(1).max(), "
        "instead of tgt_ids.shape[1], the number of columns: right while some row has no pad, "
        "a broadcasting error when every row ends in padding (or the batch is all pads).",
        (
            r"(longest|number of) real (tokens|row|sentence)",
            r"\.sum\(",
            r"(count|counts|counted|counting) .{0,30}(real|non-pad) tokens",
            r"(tgt_ids\.shape\[1\]|number of columns).{0,40}(not|instead of|rather than)",
        ),
        (r"batch size|shape\[0\]|len\(tgt_ids\)", r"shifted|\[:, ?:-1\]", r"pad_id.{0,30}as the"),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "length = int((tgt_ids != pad_id).sum(dim=1).max())\n"
                "    return padding_mask(tgt_ids, pad_id) & look_ahead_mask(length)",
            )
        ],
        source=LENGTH_FROM_REAL_TOKENS,
    ),
    _c(
        "decmask-returns-pair",
        L06,
        "decoder_self_attention_mask",
        "returns the two masks as a pair, (padding_mask(...), look_ahead_mask(...)), leaving "
        "the combination to the attention, instead of one (batch, 1, len, len) bool mask "
        "combined with &.",
        (
            r"tuple",
            r"(returns?|returned) (the )?(two|both) masks",
            r"(not|never) combined",
            r"pair",
        ),
        (r"\|.{0,20}instead of.{0,20}&", r"either rule", r"\bfloat"),
        edits=[
            (
                "return padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "return padding_mask(tgt_ids, pad_id), look_ahead_mask(tgt_ids.shape[1])",
            )
        ],
    ),
    # ------------------------------------------------------------------ 06 quiz_which_mask
    _c(
        "q-which-mask-no-return",
        L06,
        "quiz_which_mask",
        'writes the right letter "c" on a line of its own without return: the function '
        "returns None.",
        (r"\bNone\b", r"no return|missing return|forg[eo]t\w* (the )?return"),
        (r"cross-attention.{0,60}(decoder|look.?ahead|target)", r"encoder.{0,40}look.?ahead"),
        code='''
def quiz_which_mask() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    "c"
''',
        source=MISSING_RETURN,
    ),
]
