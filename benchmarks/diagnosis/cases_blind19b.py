"""Held-out wrong answers, blind round 19 (helper b19b, 2026-11-28): mistakes new to the
benchmark, written blind (no check module, no message read) while fix round 21 changed the
checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L04, L05, L06 = "04_attention", "05_multi_head_attention", "06_masking"

# Where these mistakes are reported (each URL was read for this batch).
NOT_IMPLEMENTED_LEFT = "https://github.com/LDSSA/ds-prep-course-2021/issues/40"
SCORES_Q_TIMES_Q = "https://github.com/datawhalechina/learn-nlp-with-transformers/issues/45"
RENORMALISE_DROPOUT = "https://github.com/facebookresearch/fairseq/issues/351"
SEEDED_DROPOUT = "https://github.com/torch/nn/issues/1154"
INTERMEDIATE_SIZE = "https://github.com/google-research/albert/issues/153"
TWO_D_MASK = "https://github.com/phlippe/uvadlc_notebooks/issues/67"
EXTRA_BOS_POSITION = "https://github.com/coaxsoft/pytorch_bert/issues/1"
NOTEBOOK_GLOBAL = "https://hendrikwulf.github.io/sds210-jb/book/l04-functions/design-concepts"

_c = held_out_authored("blind19b")

_QUIZ_WRONG_CONTENT = (
    r"is not the (right|correct) (answer|letter|option)",
    r"\bwrong (answer|letter|option)\b",
)

BLIND19B: list[Case] = [
    # ------------------------------------------------------------------ 04 softmax
    _c(
        "sm-atleast-2d-never-restored",
        L04,
        "softmax",
        "promotes every input to 2-D with np.atleast_2d (one code path for vectors and "
        "matrices) and never restores the shape: a 1-D vector of scores comes back (1, n) "
        "instead of (n,), and with axis=0 it is normalised over the added axis of size 1 "
        "(all ones); inputs of 2 or more dims are right.",
        (
            r"atleast_2d",
            r"\(1, \d+\).{0,30}expected \(\d+,\)",
            r"expected \(\d+,\).{0,40}(got|returned) \(1, \d+\)",
            r"\(1, \d+\) instead of \(\d+,\)",
            r"instead of \(\d+,\).{0,40}\(1, \d+\)",
            r"gain\w* an? (extra |leading |new )?(axis|dimension)",
            r"(extra|added|additional|new) (leading )?(axis|dimension) (of size 1 )?"
            r"(in front|at the front|first)",
            r"(1-?D|one-dimensional) (input|vector|array|scores?).{0,80}"
            r"(2-?D|two-dimensional|two axes|as a row)",
        ),
        (
            r"without keepdims",
            r"(whole|entire) array'?s? max",
            r"modif\w* (the caller's |your )?(input|x)\b",
            r"ignor\w* (the )?axis",
            r"squeez",
        ),
        code="""
def softmax(x, axis=-1):
    x = np.atleast_2d(x)  # one code path: every input has rows
    peak = np.max(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    exps = np.exp(x - peak)
    total = np.sum(exps, axis=axis, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)
""",
    ),
    _c(
        "sm-other-axis-by-transpose",
        L04,
        "softmax",
        "handles any axis other than the literal -1 by transposing (softmax(x.T).T), which "
        "is right only for axis 0: axis=1 of a 2-D array, the same axis as -1, is normalised "
        "down the columns instead, and a middle axis of a 3-D array along the first axis.",
        (
            r"\.T\b",
            r"transpos",
            r"axis=1\b.{0,80}(same as|equals?|is) (axis=)?-1",
            r"(positive|non-negative) (index|axis)",
            r"(other than|not) (the )?(literal )?-1",
            r"along axis 0 (instead of|rather than|not) (along )?(axis )?1",
        ),
        (
            r"ignor\w* (the )?axis",
            r"always (normalis\w*|along) (along )?(the )?last axis",
            r"without keepdims",
            r"(whole|entire) array'?s? max",
            r"moveaxis",
        ),
        code="""
def softmax(x, axis=-1):
    if axis != -1:  # normalise along the other axis: transpose there and back
        return softmax(x.T).T
    peak = np.max(x, axis=-1, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    exps = np.exp(x - peak)
    total = np.sum(exps, axis=-1, keepdims=True)
    return np.divide(exps, total, out=np.zeros_like(exps), where=total > 0)
""",
    ),
    # ------------------------------------------------------------------ 04 attention_row
    _c(
        "ar-scores-from-global-cat-keys",
        L04,
        "attention_row",
        "computes the scores from the notebook's global CAT_KEYS instead of its keys "
        "argument (left from trying it on 'The black cat drank the milk'): right on that "
        "sentence, wrong (or a matmul error) on any other keys.",
        (
            r"CAT_KEYS.{0,40}(instead of|rather than|not) (the |your |its )?(`)?keys",
            r"(global|notebook'?s?) (variable )?(`)?CAT_KEYS",
            r"\bglobal\b",
            r"(do not|don't|does not|doesn't|never) depend on (the |its )?(`)?keys",
            r"(ignores|never uses|does not use|doesn't use) (the |its |your )?(`)?keys(`)?"
            r"( argument| parameter)?",
            r"keys (argument|parameter).{0,40}(ignored|unused|not used|never used)",
            r"hard-?cod\w* (the )?(cat|example|sentence|keys)",
        ),
        (
            r"scores from (the )?values",
            r"keys instead of (the )?values",
            r"query @ keys",
            r"sqrt\(len_k\)",
            r"sum\w* over (the )?features",
        ),
        source=NOTEBOOK_GLOBAL,
        edits=(
            (
                "scores = keys @ query / math.sqrt(d_k)",
                "scores = CAT_KEYS @ query / math.sqrt(d_k)",
            ),
        ),
    ),
    _c(
        "ar-pair-packed-in-one-array",
        L04,
        "attention_row",
        "packs the pair into one numpy array, np.array([weights, output]), instead of "
        "returning the tuple (weights, output): numpy refuses the ragged pair (ValueError, "
        "inhomogeneous shape) whenever len_k != d_v, and returns a (2, n) array when they "
        "are equal.",
        (
            r"np\.array\(\[weights",
            r"array.{0,40}instead of (a |the )?(tuple|pair)",
            r"(one|single|an?) (numpy )?array (instead of|rather than|not) (a |the )?(tuple|pair)",
            r"(must|should) return (a |the )?(tuple|pair)",
            r"pack\w* .{0,30}(into|in) (one|a single|an?) (numpy )?array",
            r"return (the )?(tuple|pair) \(?weights, output\)?",
        ),
        (
            r"(output|weights) (is |are )?(in the )?wrong order",
            r"returns? \(output, weights\)",
            r"sum\w* over (the )?features",
            r"values @ weights",
        ),
        edits=(("return weights, output", "return np.array([weights, output])"),),
    ),
    # ------------------------------------------------------------------ 04 sdpa
    _c(
        "sdpa-scores-q-times-q",
        L04,
        "scaled_dot_product_attention",
        "computes the scores as q @ q^T (a typo for k): the keys are never used, so the "
        "weights compare each query with the other queries; right only when k equals q, a "
        "shape error when len_q != len_k.",
        (
            r"q @ q",
            r"q\.transpose",
            r"(keys?|\bk\b) (is |are )?(never|not) used",
            r"ignor\w* (the )?keys",
            r"queries (with|against) (the )?(other )?queries",
            r"queries instead of (the )?keys",
            r"\bq instead of k\b",
            r"(do not|don't|does not|doesn't|never) depend on (the )?(keys|k\b)",
        ),
        (
            r"softmax (is )?(taken )?over (the )?queries",
            r"sqrt\(len",
            r"(scores|weights) (are |come out )?transposed",
            r"keys and values (are )?swapped",
            r"k\.T\b",
        ),
        source=SCORES_Q_TIMES_Q,
        edits=(
            (
                "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)",
                "scores = q @ q.transpose(-2, -1) / math.sqrt(d_k)",
            ),
        ),
    ),
    _c(
        "sdpa-returns-unrepaired-weights",
        L04,
        "scaled_dot_product_attention",
        "zeroes the fully masked rows in a copy (safe) that it uses for the output, but "
        "returns the unrepaired weights: a query with no allowed key gets the zero output "
        "asked for, while its returned weights are NaN.",
        (
            r"weights.{0,80}NaN.{0,120}output.{0,60}(zero|finite|fine|right|correct)",
            r"output.{0,60}(zero|finite|fine|right|correct).{0,120}weights.{0,80}NaN",
            r"return\w* the (unrepaired|original|raw|NaN|un-?zeroed) weights",
            r"return\w* (the )?weights (from )?before (zeroing|the repair|repairing)",
            r"zero\w* .{0,40}(only )?(in )?a copy",
        ),
        (
            r"(weights|rows) and (the )?output (are|come out|contain) NaN",
            r"output (is|comes out|contains) NaN",
            r"never (repairs?|zeroe?s?|handles?) (the )?(fully masked|blocked) rows",
            r"output (is )?computed before",
        ),
        code="""
def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    safe = weights
    if mask is not None:
        nothing_allowed = ~mask.any(dim=-1, keepdim=True)
        if nothing_allowed.any():
            safe = weights.masked_fill(nothing_allowed, 0.0)  # no NaN in the output
    output = safe @ v
    return output, weights
""",
    ),
    # ------------------------------------------------------------------ 04 quizzes
    _c(
        "q-score-scale-raise-left-above-answer",
        L04,
        "quiz_score_scale",
        "writes the right letter under the placeholder without deleting it: "
        "raise NotImplementedError() still runs first, so the answer 'c' is never reached "
        "and the function raises.",
        (
            r"(delete|remove|still (has|raises|contains)|left|leave).{0,40}"
            r"raise NotImplementedError",
            r"raise NotImplementedError\(?\)?.{0,60}(line|still|left|delete|remove|before)",
            r"not (yet )?(been )?(answered|written|filled in)",
            r"placeholder",
            r"unreachable|never reached",
        ),
        (*_QUIZ_WRONG_CONTENT, r"number of words", r"\(b\) d_model"),
        source=NOT_IMPLEMENTED_LEFT,
        code='''
def quiz_score_scale() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    # YOUR CODE HERE
    raise NotImplementedError()
    return "c"
''',
    ),
    _c(
        "q-fully-masked-nan-value",
        L04,
        "quiz_fully_masked",
        "answers with the value of option (a), float('nan'), instead of a letter: both the "
        "form (a float, not one of 'a'-'d') and the choice (NaN, while the lesson's attention "
        "gives that row all-zero weights) are wrong.",
        (
            r"not (a|one of the) letters?",
            r"(must|should) (be|return) (a |one )?(single )?(letter|string)",
            r"a (float|number),? not a (letter|string)",
            r"one of the letters",
            r"(must|should) be a (str|string)\b",
            r"return\w* (a|the) letter",
            r"instead of (a|the) letter",
        ),
        (r"returned None", r"print", r"tuple", r"\blist\b"),
        code='''
def quiz_fully_masked() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return float("nan")  # (a): 0 / 0
''',
    ),
    _c(
        "q-cross-roles-letter-in-list",
        L04,
        "quiz_cross_attention_roles",
        "returns the right letter inside a list, ['b'] (the habit of quiz tools that take "
        "a list of checked options), where the function must return the string 'b'.",
        (
            r"\blist\b",
            r"not a (string|str)\b",
            r"(return|as) (the |a )?(plain |bare )?(string|str)\b",
            r"without (the )?(square )?brackets",
        ),
        (
            *_QUIZ_WRONG_CONTENT,
            r"tuple",
            r"(keys|values) (come )?from the decoder",
            r"queries (come )?from the encoder",
        ),
        code='''
def quiz_cross_attention_roles() -> str:
    """Your answer to Question 3: "a", "b", "c" or "d"."""
    return ["b"]
''',
    ),
    # ------------------------------------------------------------------ 05 split / merge
    _c(
        "split-heads-slices-start-at-i",
        L05,
        "split_heads",
        "slices head i from feature i instead of i * d_head (x[..., i : i + d_head], "
        "stacked on axis 1): the shape is right but the heads overlap, head i holding "
        "features i .. i + d_head - 1, so only head 0 is right (every head when d_head is 1).",
        (
            r"overlap",
            r"(shifted|offset) by (1|one)( feature)?\b",
            r"heads? share features",
            r"i ?\* ?d_head",
            r"start\w* (at|from) (feature )?i\b",
            r"(offset|shifted) by (one|1) (feature )?(instead of|rather than|not)",
            r"features? i\b.{0,30}instead of .{0,20}i ?\* ?d_head",
        ),
        (
            r"interleav",
            r"strided",
            r"(without|no|missing|forg[eo]t\w*) (a |the )?transpose",
            r"every num_heads-th",
            r"mix\w* tokens",
        ),
        code="""
def split_heads(x, num_heads):
    batch, length, d_model = x.shape
    d_head = d_model // num_heads
    heads = [x[..., i : i + d_head] for i in range(num_heads)]  # head i: its d_head features
    return torch.stack(heads, dim=1)  # (batch, num_heads, len, d_head)
""",
    ),
    _c(
        "merge-heads-one-head-returned-as-is",
        L05,
        "merge_heads",
        "adds a shortcut for one head (if num_heads == 1: return x, 'nothing to "
        "concatenate'): the 4-D (batch, 1, len, d_head) comes back instead of "
        "(batch, len, d_head); every num_heads > 1 is right.",
        (
            r"num_heads ?(==|=|is) ?1",
            r"(one|single|a single) head",
            r"shortcut",
            r"(unchanged|as it (is|came))",
            r"\(batch, 1, len(gth)?, d_head\)",
        ),
        (
            r"(without|no|missing|forg[eo]t\w*) (a |the )?transpose",
            r"(without|no|missing|forg[eo]t\w*) (a |the )?reshape",
            r"squeez",
            r"interleav",
        ),
        edits=(
            (
                "    batch, num_heads, length, d_head = x.shape\n",
                "    batch, num_heads, length, d_head = x.shape\n"
                "    if num_heads == 1:  # nothing to concatenate\n"
                "        return x\n",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 05 MultiHeadAttention
    _c(
        "mha-dropped-weights-renormalised",
        L05,
        "MultiHeadAttention",
        "in training renormalises the dropped-out weights so that each row sums to 1 again "
        "(dividing by their row sums), which undoes dropout's 1/(1-p) scaling and changes "
        "the mixture; a row whose weights are all dropped (or a fully masked row) divides 0 "
        "by 0 and gives NaN. Eval mode and dropout=0.0 are right.",
        (
            r"re-?normali",
            r"sum to 1 again",
            r"divid\w* .{0,40}(by )?(the |their )?(row )?sums?",
            r"undo\w* .{0,40}(1 ?/ ?\(1 ?- ?p\)|rescal|scaling)",
        ),
        (
            r"dropout (is )?(never|not) applied",
            r"dropout.{0,30}(after|on) (the )?(layer's )?output",
            r"dropout.{0,20}(on|to) (the )?values",
            r"not rescal",
            r"dropout rate",
        ),
        source=RENORMALISE_DROPOUT,
        edits=(
            (
                "            heads = self.dropout(weights) @ v",
                "            dropped = self.dropout(weights)\n"
                "            dropped = dropped / dropped.sum(dim=-1, keepdim=True)  # sum to 1\n"
                "            heads = dropped @ v",
            ),
        ),
    ),
    _c(
        "mha-seeds-rng-in-forward",
        L05,
        "MultiHeadAttention",
        "calls torch.manual_seed(0) at the top of forward, for reproducible dropout: in "
        "training every call drops the same weights, and each call resets the global random "
        "generator for everything else; eval mode and dropout=0.0 are right.",
        (
            r"manual_seed\(.{0,10}\) (in|inside|at the top of) (your |the )?forward",
            r"seed\w* (in|inside) (your |the )?forward",
            r"(resets?|reseed\w*) (the )?(global )?(random|RNG|seed)",
            r"same (dropout )?(mask|pattern|weights? dropped) (on |at |in )?(every|each) call",
            r"(every|each|two|second|repeated) calls?.{0,60}(identical|the same) "
            r"(dropout )?(mask|pattern|output)",
        ),
        (
            r"dropout (is )?(never|not) applied",
            r"(in )?eval mode.{0,40}(drop|still)",
            r"dropout rate",
            r"1 - dropout",
            r"dropout.{0,30}(after|on) (the )?(layer's )?output",
        ),
        source=SEEDED_DROPOUT,
        edits=(
            (
                "        q = split_heads(self.w_q(query), self.num_heads)",
                "        torch.manual_seed(0)  # reproducible dropout\n"
                "        q = split_heads(self.w_q(query), self.num_heads)",
            ),
        ),
    ),
    _c(
        "mha-w-v-built-as-w-o",
        L05,
        "MultiHeadAttention",
        "builds w_o where w_v belongs (a copy-paste slip: self.w_o = nn.Linear(...) written "
        "twice): the layer has no w_v, so its state dict lacks w_v.weight and w_v.bias and "
        "forward raises AttributeError.",
        (
            r"w_v\.?(weight|bias)?.{0,40}(missing|lacks?|absent|not (found|defined|created|built))",
            r"(missing|lacks?|without)( a| the)? (layer |Linear |projection )?['\"`]?w_v\b",
            r"\bno (layer|Linear|nn\.Linear|projection|submodule) (named |called )?['\"`]?w_v",
            r"w_o.{0,40}(twice|two times|overwrit|defined again|assigned again)",
        ),
        (
            r"fused",
            r"ModuleList",
            r"(values|\bv\b) (projected )?(with|through) w_k",
            r"w_v\(key\)",
            r"bias=False",
        ),
        edits=(
            (
                "        self.w_v = nn.Linear(d_model, d_model)",
                "        self.w_o = nn.Linear(d_model, d_model)",
            ),
        ),
    ),
    # ------------------------------------------------------------------ 05 quizzes
    _c(
        "q-head-width-intermediate-size",
        L05,
        "quiz_head_width",
        "answers 3072, BERT-base's feed-forward (intermediate) width, 4 x 768, mistaking "
        "the layer's inner size for the width of one attention head; d_k = d_model / h = "
        "768 / 12 = 64.",
        (
            r"feed-?forward",
            r"intermediate",
            r"\bd_ff\b",
            r"4 ?(x|×|\*) ?768",
        ),
        (
            r"768 ?(\*|x|×) ?12",
            r"multipl\w* .{0,30}(by )?(the number of )?heads",
            r"number of (tokens|words)",
            r"sentence length",
        ),
        source=INTERMEDIATE_SIZE,
        code='''
def quiz_head_width() -> int:
    """Your answer to Question 1: d_k, as a number."""
    return 3072  # BERT-base: 768 between layers, 3072 inside
''',
    ),
    _c(
        "q-cross-shape-empty-placeholder",
        L05,
        "quiz_cross_attention_shape",
        'returns the empty string it left as a placeholder (return "") and never fills in '
        "a letter: the function must return one of 'a', 'b', 'c', 'd' (here 'b').",
        (
            r"\bempty( string)?\b",
            r"\bblank\b",
            r"no (letter|answer)",
            r"(''|\"\")",
        ),
        (*_QUIZ_WRONG_CONTENT, r"returned None", r"print", r"tuple"),
        code='''
def quiz_cross_attention_shape() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return ""  # TODO: answer after section 4
''',
    ),
    # ------------------------------------------------------------------ 06 padding_mask
    _c(
        "padmask-hugging-face-attention-mask",
        L06,
        "padding_mask",
        "returns Hugging Face's attention_mask, (ids != pad_id).long(): two mistakes at once, "
        "an int64 tensor of 1s and 0s instead of a bool one, and (batch, len) without the "
        "head and query axes of (batch, 1, 1, len).",
        (
            r"attention_mask",
            r"Hugging ?Face",
            r"\(batch, len\) instead of \(batch, 1, 1, len\)",
            r"(missing|without|no|lacks?) (the )?(two )?(size-?1 |singleton )?"
            r"(head|heads|num_heads|query|len_q)( and (query|len_q))? ax[ei]s",
            r"(int64|long|integer) (mask )?instead of (a )?bool",
            r"not (a )?bool",
            r"(must|should) (be|return) (a )?(torch\.)?bool",
        ),
        (
            r"inverted",
            r"(True|1) at (the )?pads",
            r"query axis",
            r"pad_id (is )?ignored",
            r"compar\w* with 0",
        ),
        source=TWO_D_MASK,
        code="""
def padding_mask(ids, pad_id):
    return (ids != pad_id).long()  # 1 = real token, 0 = pad
""",
    ),
    _c(
        "padmask-with-look-ahead-triangle",
        L06,
        "padding_mask",
        "ANDs a look-ahead triangle into the padding mask (what the decoder's mask does): "
        "(batch, 1, len, len), where every query is also blocked from the later keys, which "
        "the encoder's and cross-attention's padding mask must not do.",
        (
            r"look.?ahead",
            r"causal",
            r"triang",
            r"\btril\b",
            r"later keys",
            r"future",
        ),
        (
            r"expand\w* (it |the mask )?to \(batch, 1, len, len\)",
            r"(pad|padded) (queries|rows)",
            r"query axis",
            r"inverted",
        ),
        code="""
def padding_mask(ids, pad_id):
    length = ids.shape[1]
    causal = torch.tril(torch.ones(length, length, dtype=torch.bool))
    return (ids != pad_id)[:, None, None, :] & causal  # (batch, 1, len, len)
""",
    ),
    # ------------------------------------------------------------------ 06 look_ahead_mask
    _c(
        "lookahead-one-more-for-bos",
        L06,
        "look_ahead_mask",
        "builds the triangle for size + 1 positions ('one more for <bos>'): a (size + 1, "
        "size + 1) mask, one row and one column too many, which cannot combine with a "
        "(batch, size) target.",
        (
            r"size ?\+ ?1",
            r"one (row and (one )?column )?too (many|large|big)",
            r"(an )?extra (row|position|column)",
            r"<bos>",
            r"off by one",
            r"one (row|position|column) (too many|more)",
            r"(larger|bigger) than (the )?(size|requested)",
        ),
        (
            r"(no|without|excludes?|missing) (the )?diagonal",
            r"diagonal=1",
            r"upper triangle",
            r"cached",
            r"(float|int|uint8) (mask )?instead of bool",
        ),
        source=EXTRA_BOS_POSITION,
        code="""
def look_ahead_mask(size):
    return torch.tril(torch.ones(size + 1, size + 1, dtype=torch.bool))  # one more position
""",
    ),
    # ------------------------------------------------------------------ 06 decoder mask
    _c(
        "decmask-padding-read-as-blocked",
        L06,
        "decoder_self_attention_mask",
        "builds the mask in the blocked convention, padding_mask(...) | ~look_ahead_mask(...), "
        "then inverts it, but padding_mask's True means a real token, not a pad: after the "
        "inversion only the pad keys in the past are allowed and every real key is blocked "
        "(a row with no pad before it comes out fully masked).",
        (
            r"padding (part|mask) (is |comes out )?inverted",
            r"padding_mask.{0,60}True (=|means|marks) (a )?real",
            r"(pads?|pad keys) (are |is )?(allowed|attended|visible).{0,80}real "
            r"(tokens|keys) (are )?(blocked|hidden)",
            r"real (tokens|keys) (are )?(blocked|hidden).{0,80}pads? (are |is )?"
            r"(allowed|attended|visible)",
            r"only (the )?pad(s| keys)",
            r"polarity of (the )?padding",
        ),
        (
            r"(whole|entire) mask (is )?inverted",
            r"look.?ahead (part |mask )?(is )?inverted",
            r"\|.{0,20}instead of &",
            r"(pad|padded) (queries|rows)",
        ),
        code="""
def decoder_self_attention_mask(tgt_ids, pad_id):
    # blocked = a pad or a future key; the mask wants the opposite
    blocked = padding_mask(tgt_ids, pad_id) | ~look_ahead_mask(tgt_ids.shape[1])
    return ~blocked
""",
    ),
    # ------------------------------------------------------------------ 06 quizzes
    _c(
        "q-fully-masked-row-typo-v",
        L06,
        "quiz_fully_masked_row",
        "types 'v' for 'b' (its neighbour on the keyboard): the answer meant is right, but "
        "'v' is not one of 'a', 'b', 'c', 'd'.",
        (
            r"not one of",
            r"(must|should) be one of",
            r"not (an? )?(option|valid (letter|answer|choice))",
            r"typo",
        ),
        (*_QUIZ_WRONG_CONTENT, r"uniform weights", r"own position"),
        code='''
def quiz_fully_masked_row() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "v"
''',
    ),
    _c(
        "q-which-mask-one-hot-list",
        L06,
        "quiz_which_mask",
        "returns its choice as a one-hot list of the options, [False, False, True, False] "
        "(only (c) ticked), where the function must return the letter 'c' as a string.",
        (
            r"\blist\b",
            r"one-?hot",
            r"booleans?",
            r"True/False",
            r"not a (string|str|letter)",
        ),
        (*_QUIZ_WRONG_CONTENT, r"returned None", r"\bdict\b", r"option number"),
        code='''
def quiz_which_mask() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return [False, False, True, False]  # (a), (b), (c), (d)
''',
    ),
]
