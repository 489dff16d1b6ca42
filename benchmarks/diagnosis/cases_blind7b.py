"""Held-out wrong answers for lessons 05-08, blind round 7 (helper b7b, 2026-11-27).

Written blind: without reading the checks of lessons 05-08 or any message they print, from
the reference solutions alone; cause, source and judging criteria were written before any
run. Most transpose a mistake described in a public issue thread or Q&A page (the URL read
for this benchmark with the search tool) to the course's exercise; the others are the
author's. Kinds favoured: attention written inline with the masking done wrongly, masks
with two mistakes at once or a misplaced axis, mistakes that only show on some inputs
(batch != len, pad_id != 0, an explicit eps or final_norm, pre-LN, padding present), and
residual streams taken from the wrong variable.
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out

AUTHOR = "author: written for this benchmark, no public report cited"

L05, L06, L07, L08 = "05_multi_head_attention", "06_masking", "07_encoder", "08_decoder"

# The reports these cases transpose (each read with the search tool for this benchmark).
FULLY_MASKED_NAN = "https://github.com/pytorch/pytorch/issues/40932"
SCORES_TIMES_MASK = "https://github.com/georg-wolflein/good-features/pull/1"
MASK_AFTER_SOFTMAX = "https://github.com/rasbt/LLMs-from-scratch/issues/279"
SOFTMAX_ACROSS_HEADS = "https://github.com/facebookresearch/detr/issues/247"
SCALE_NUM_HEADS = "https://github.com/tenstorrent/tt-metal/pull/56789"
SEQUENCE_FIRST = "https://github.com/pytorch/pytorch/issues/63560"
ADDITIVE_PAD_MASK = "https://github.com/huggingface/transformers/issues/3121"
TRIU_INT_MASK = "https://github.com/hkproj/pytorch-transformer/issues/19"
PAD_ID_ZERO = "https://github.com/huggingface/transformers/issues/2862"
T5_NORM_NO_MEAN = "https://github.com/huggingface/transformers/issues/20224"
LN_EPS_FIXED = "https://github.com/huggingface/transformers/pull/585"
MASK_NOT_PROPAGATED = "https://github.com/keras-team/keras-hub/issues/137"
KEY_PADDING_CONVENTION = (
    "https://kiwix.lema.org/stackoverflow.com_en_all_2023-11/questions/62170439/"
    "difference-between-src-mask-and-src-key-padding-mask"
)
PRELN_X_OVERWRITTEN = "https://github.com/datawhalechina/happy-llm/issues/21"
CROSS_RESIDUAL_MEMORY = "https://github.com/georgepar/slp/pull/26"

_held_out = held_out("blind7b")


def _e(id_, lesson, exercise, cause, source, named, misnamed=(), edits=()):
    return _held_out(id_, lesson, exercise, cause, source, named, misnamed, edits)


def _code(id_, lesson, exercise, cause, source, named, misnamed, code):
    return _held_out(id_, lesson, exercise, cause, source, named, misnamed, code=code)


_SDPA = "heads, weights = scaled_dot_product_attention(q, k, v, mask)"


def _inline(scores: str, masking: str, softmax: str) -> str:
    """The reference's attention call written out inline by a learner."""
    return (
        f"scores = {scores}\n"
        f"        {masking}\n"
        f"        weights = {softmax}\n"
        "        heads = weights @ v"
    )


#: misnamed for the inline-attention cases: causes these answers do not have
_INLINE_WRONG = (
    r"sqrt\(d_model\)",
    r"mask (is |was )?inverted",
    r"dropout (is |was )?(applied|taken) (to the output|in eval|twice)",
    r"w_o.{0,30}(missing|not applied|skipped)",
)
#: misnamed for the layer cases
_LAYER_WRONG = (
    r"residual.{0,40}(missing|dropped|forgotten)",
    r"ignores? norm_first",
    r"dropout.{0,40}(after|wrong|missing)",
)
#: misnamed for the stack cases
_STACK_WRONG = (
    r"not chained",
    r"(each|every) layer (is )?(fed|given|receives) the (stack'?s )?input",
    r"(same|one) layer.{0,40}(shared|reused|every)",
    r"final norm.{0,40}(every|each|inside)",
)

_SCORES = "q @ k.transpose(-2, -1) / (self.d_model // self.num_heads) ** 0.5"

BLIND7B: list[Case] = [
    # ------------------------------------------------------------ 05 multi-head attention
    _code(
        "split-sequence-first-unpack",
        L05,
        "split_heads",
        "unpacks x.shape in PyTorch's sequence-first order (len, batch, d_model), so the "
        "reshape is given the length where the batch goes and the batch where the length "
        "goes: tokens of different sequences are mixed, which goes unseen when batch == len.",
        SEQUENCE_FIRST,
        (
            r"sequence[- ]first",
            r"batch_first",
            r"unpack",
            r"x\.shape.{0,80}(order|\(batch, len)",
            r"(batch|len(gth)?).{0,40}(and|with).{0,20}(batch|len(gth)?).{0,60}"
            r"(swap|exchang|confus|wrong (order|way)|the other way)",
            r"(mix|mixes|mixed).{0,60}(sequence|batch|sentence)s?",
        ),
        (r"(missing|no|without) (a |the )?transpose", r"contiguous", r"float", r"strided"),
        "def split_heads(x, num_heads):\n"
        "    length, batch, d_model = x.shape\n"
        "    d_head = d_model // num_heads\n"
        "    return x.reshape(batch, length, num_heads, d_head).transpose(1, 2)\n",
    ),
    _code(
        "merge-flattens-batch",
        L05,
        "merge_heads",
        "reshapes to (-1, num_heads * d_head), folding the batch and length axes into one, "
        "so a (batch * len, d_model) matrix comes back instead of (batch, len, d_model).",
        AUTHOR,
        (
            r"(batch|len(gth)?).{0,60}(flatten|merged|folded|collapsed|combined)",
            r"(flatten|merg|fold|collaps).{0,60}(batch|len(gth)?) (and|with)",
            r"(three|3) (axes|dimensions)",
            r"2-?d(imensional)?.{0,60}(instead|expected|3-?d)",
            r"\(batch, len, (d_model|num_heads \* d_head)\)",
            r"\(\d+, \d+\).{0,120}\(\d+, \d+, \d+\)",
        ),
        (r"contiguous", r"(missing|no|without) (a |the )?transpose", r"\bcat\b"),
        "def merge_heads(x):\n"
        "    batch, num_heads, length, d_head = x.shape\n"
        "    return x.transpose(1, 2).reshape(-1, num_heads * d_head)\n",
    ),
    _e(
        "mha-inline-fully-masked-rows-nan",
        L05,
        "MultiHeadAttention",
        "writes the attention inline with masked_fill(..., -inf) and no guard, so a query "
        "row whose keys are all masked takes the softmax of all -inf and returns NaN where "
        "all-zero (or uniform) weights are required.",
        FULLY_MASKED_NAN,
        (
            r"nan.{0,160}(row|quer(y|ies)).{0,120}(mask|no (allowed|visible) key|every key)",
            r"(row|quer(y|ies)).{0,120}(every|all|no) (allowed |visible )?keys?.{0,160}nan",
            r"fully[- ]masked",
            r"-inf.{0,120}nan",
            r"nan.{0,120}-inf",
            r"(all|every) (of its |the )?keys? (are |is )?(masked|blocked)",
        ),
        _INLINE_WRONG,
        edits=[
            (
                _SDPA,
                _inline(
                    _SCORES,
                    'scores = scores if mask is None else scores.masked_fill(~mask, float("-inf"))',
                    "torch.softmax(scores, dim=-1)",
                ),
            )
        ],
    ),
    _e(
        "mha-inline-scores-times-mask",
        L05,
        "MultiHeadAttention",
        "masks the scores by multiplying them by the boolean mask, which sets a masked score "
        "to 0 rather than to a large negative number, so the softmax still gives masked keys "
        "weight.",
        SCORES_TIMES_MASK,
        (
            r"multipl.{0,60}mask",
            r"mask.{0,60}multipl",
            r"(score|logit)s? (of|at) (the )?masked.{0,60}(0|zero)",
            r"(0|zero).{0,40}instead of.{0,40}(-inf|large negative|very negative|block)",
            r"masked (keys|positions).{0,80}(still|non-?zero|get|receive).{0,40}weight",
            r"mask.{0,40}(before|inside) (the )?softmax.{0,60}(-inf|negative|masked_fill)",
        ),
        (*_INLINE_WRONG, r"after (the )?softmax"),
        edits=[
            (
                _SDPA,
                _inline(
                    _SCORES,
                    "scores = scores if mask is None else scores * mask",
                    "torch.softmax(scores, dim=-1)",
                ),
            )
        ],
    ),
    _e(
        "mha-inline-mask-after-softmax",
        L05,
        "MultiHeadAttention",
        "applies the mask after the softmax (multiplying the weights by it) and never "
        "renormalises, so every masked row's weights sum to less than 1.",
        MASK_AFTER_SOFTMAX,
        (
            r"after (the )?softmax",
            r"renormali",
            r"(rows?|weights?).{0,60}(do not|don't|no longer|not) sum to (1|one)",
            r"sum to (less|under) (than )?(1|one)",
            r"before (the )?softmax",
        ),
        (*_INLINE_WRONG, r"multipl.{0,40}(scores|before)"),
        edits=[
            (
                _SDPA,
                _inline(
                    _SCORES,
                    "weights = torch.softmax(scores, dim=-1)",
                    "weights if mask is None else weights * mask",
                ),
            )
        ],
    ),
    _e(
        "mha-inline-softmax-over-heads",
        L05,
        "MultiHeadAttention",
        "takes the softmax over dim=1, the heads axis of (batch, num_heads, len_q, len_k), "
        "instead of over the keys (the last axis), so weights are normalised across heads.",
        SOFTMAX_ACROSS_HEADS,
        (
            r"dim ?= ?1\b",
            r"(softmax|normali[sz]).{0,80}(over|across|along) (the )?heads",
            r"(softmax|normali[sz]).{0,80}(wrong|another) (axis|dim)",
            r"(softmax|normali[sz]).{0,80}(last|key) (axis|dim)",
            r"(sum|add up) to (1|one) over (the )?heads",
        ),
        (*_INLINE_WRONG, r"mask.{0,40}(ignored|dropped)"),
        edits=[
            (
                _SDPA,
                _inline(
                    _SCORES,
                    "scores = scores if mask is None else scores.masked_fill(~mask, -1e9)",
                    "torch.softmax(scores, dim=1)",
                ),
            )
        ],
    ),
    _e(
        "mha-inline-scale-sqrt-num-heads",
        L05,
        "MultiHeadAttention",
        "divides the scores by sqrt(num_heads) instead of sqrt(d_head), which goes unseen "
        "when num_heads == d_head.",
        SCALE_NUM_HEADS,
        (
            r"num_heads.{0,80}(instead|not|rather)",
            r"sqrt\(num_heads\)",
            r"(scal|divid|temperature).{0,80}(d_head|d_k|per-head|head width|width of (a|one) "
            r"head)",
            r"sqrt\(d_head\)",
        ),
        (*_INLINE_WRONG, r"mask.{0,40}(ignored|dropped)"),
        edits=[
            (
                _SDPA,
                _inline(
                    "q @ k.transpose(-2, -1) / self.num_heads ** 0.5",
                    "scores = scores if mask is None else scores.masked_fill(~mask, -1e9)",
                    "torch.softmax(scores, dim=-1)",
                ),
            )
        ],
    ),
    # ------------------------------------------------------------ 06 masking
    _e(
        "padmask-additive-float",
        L06,
        "padding_mask",
        "returns Hugging Face's additive mask, (1 - keep) * -10000 as float32 (0 where a "
        "token may be attended, -10000 at pads), where a bool mask with True = may attend "
        "is asked for.",
        ADDITIVE_PAD_MASK,
        (
            r"additive",
            r"-10000|-1e4",
            r"float\w*.{0,80}(instead of|not|rather than).{0,20}bool",
            r"bool\w*.{0,60}(not|instead of|rather than).{0,20}float",
            r"dtype.{0,60}bool",
            r"must be (a )?bool",
        ),
        (r"invert|polarity", r"quer(y|ies) axis", r"(hard-?coded?|assum).{0,30}(0|zero)"),
        edits=[
            (
                "return (ids != pad_id)[:, None, None, :]",
                "return (1.0 - (ids != pad_id).float())[:, None, None, :] * -10000.0",
            )
        ],
    ),
    _code(
        "padmask-modifies-ids",
        L06,
        "padding_mask",
        "marks the pads by overwriting them in place (ids.masked_fill_(ids == pad_id, -1)) "
        "and compares with that, so the mask is right but the caller's ids are changed.",
        AUTHOR,
        (
            r"modif",
            r"in[- ]place",
            r"(chang|overwr|mutat|alter).{0,60}(ids|input|argument|caller)",
            r"masked_fill_",
            r"(ids|input).{0,40}(changed|overwritten|mutated|altered)",
        ),
        (r"invert|polarity", r"quer(y|ies) axis", r"dtype"),
        "def padding_mask(ids, pad_id):\n"
        "    ids.masked_fill_(ids == pad_id, -1)\n"
        "    return (ids >= 0)[:, None, None, :]\n",
    ),
    _code(
        "lookahead-triu-int-two-mistakes",
        L06,
        "look_ahead_mask",
        "two mistakes at once: returns torch.triu(ones, diagonal=1) as int32, that is 1 at "
        "the blocked future keys (the polarity inverted) and an integer dtype instead of bool.",
        TRIU_INT_MASK,
        (
            r"(int|integer).{0,200}(invert|polarity|opposite|blocked|future|triu|upper)",
            r"(invert|polarity|opposite|blocked|future|triu|upper).{0,200}(int|integer)",
            r"two (mistakes|things|problems)",
        ),
        (r"diagonal.{0,40}(missing|excluded|one ahead)", r"leading axis", r"numpy"),
        "def look_ahead_mask(size):\n"
        "    return torch.triu(torch.ones(size, size), diagonal=1).int()\n",
    ),
    _e(
        "decmask-pad-id-hardcoded-zero",
        L06,
        "decoder_self_attention_mask",
        "builds the padding part with pad id 0 (padding_mask(tgt_ids, 0)), ignoring the "
        "pad_id argument, which goes unseen when pad_id == 0.",
        PAD_ID_ZERO,
        (
            r"pad_id.{0,80}(ignored|not used|unused|never used|instead of 0|hard-?coded)",
            r"(0|zero) instead of (the given |the )?pad_id",
            r"(hard-?coded?|assum\w*).{0,60}(pad\w*.{0,20})?\b(0|zero)\b",
            r"pad_id (is |was )?not 0",
            r"pad_id ?= ?[1-9]",
        ),
        (
            r"look-?ahead.{0,40}(wrong|invert|missing)",
            r"diagonal.{0,30}(missing|excluded)",
            r"quer(y|ies) axis",
            r"batch size",
        ),
        edits=[
            (
                "padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "padding_mask(tgt_ids, 0) & look_ahead_mask(tgt_ids.shape[1])",
            )
        ],
    ),
    _e(
        "decmask-heads-axis-misplaced",
        L06,
        "decoder_self_attention_mask",
        "adds the heads axis to the causal mask in the wrong place (look_ahead_mask(L)[:, "
        "None, :]), so the mask broadcasts to (batch, len, 1, len) instead of "
        "(batch, 1, len, len): right entries, wrong axis order.",
        AUTHOR,
        (
            r"\(batch, len(_q)?, 1, len(_k)?\)",
            r"(heads?|1) axis.{0,80}(wrong|misplaced|position|place|third|second)",
            r"(wrong|misplaced) (place|position).{0,60}(heads?|1|axis)",
            r"\(\d+, \d+, 1, \d+\).{0,160}\(\d+, 1, \d+, \d+\)",
            r"\(\d+, 1, \d+, \d+\).{0,160}\(\d+, \d+, 1, \d+\)",
        ),
        (
            r"look-?ahead.{0,40}(invert|diagonal)",
            r"pad.{0,40}quer(y|ies)",
            r"\| instead of &|or instead of and",
        ),
        edits=[
            (
                "padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])",
                "padding_mask(tgt_ids, pad_id) & look_ahead_mask(tgt_ids.shape[1])[:, None, :]",
            )
        ],
    ),
    # ------------------------------------------------------------ 07 encoder
    _e(
        "ln-no-centering-t5-style",
        L07,
        "LayerNorm",
        "normalises by the root mean square (mean of x squared) without subtracting the "
        "mean, T5's RMS-style norm, which differs from a LayerNorm on any token whose "
        "features do not average to zero.",
        T5_NORM_NO_MEAN,
        (
            r"(mean|average).{0,60}(not|never) (subtract|removed)",
            r"subtract.{0,40}(the )?mean",
            r"(cent(er|re)|re-?cent)",
            r"rms ?norm",
            r"root mean square",
            r"mean of (the )?squares",
        ),
        (
            r"unbiased",
            r"eps.{0,40}(outside|inside)",
            r"(axis|dim).{0,40}wrong",
            r"gain.{0,40}bias.{0,40}swap",
        ),
        edits=[
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = x.pow(2).mean(dim=-1, keepdim=True)",
            ),
            (
                "self.weight * (x - mean) / torch.sqrt(variance + self.eps)",
                "self.weight * x / torch.sqrt(variance + self.eps)",
            ),
        ],
    ),
    _e(
        "ln-eps-argument-ignored",
        L07,
        "LayerNorm",
        "stores a fixed eps = 1e-12 (BERT's) and ignores the eps argument, which only shows "
        "when a LayerNorm is built with another eps or meets nearly constant features.",
        LN_EPS_FIXED,
        (
            r"eps.{0,100}(ignored|not used|unused|argument|passed|given|hard-?coded|fixed)",
            r"1e-12",
            r"(ignor|overrid).{0,40}eps",
            r"self\.eps",
        ),
        (r"unbiased", r"(axis|dim).{0,40}wrong", r"mean.{0,40}subtract"),
        edits=[("self.eps = eps", "self.eps = 1e-12")],
    ),
    _e(
        "ffn-linear-in-out-swapped",
        L07,
        "PositionwiseFeedForward",
        "gives nn.Linear its sizes in (out, in) order, w_1 = Linear(d_ff, d_model) and "
        "w_2 = Linear(d_model, d_ff), so the first matmul fails (mat1 and mat2 shapes) "
        "unless d_ff == d_model.",
        AUTHOR,
        (
            r"w_1.{0,100}(d_model ?(->|→|to) ?d_ff|in_features|Linear\(d_model, d_ff\))",
            r"(in|out)_features.{0,80}(swap|exchang|order|reversed)",
            r"(swap|exchang|reversed).{0,80}(d_model|d_ff|in.{0,10}out)",
            r"nn\.Linear\(d_model, d_ff\)",
            r"\(in_features, out_features\)",
        ),
        (r"relu", r"dropout", r"gelu"),
        edits=[
            ("self.w_1 = nn.Linear(d_model, d_ff)", "self.w_1 = nn.Linear(d_ff, d_model)"),
            ("self.w_2 = nn.Linear(d_ff, d_model)", "self.w_2 = nn.Linear(d_model, d_ff)"),
        ],
    ),
    _e(
        "enc-layer-mask-inverted-torch-convention",
        L07,
        "EncoderLayer",
        "inverts the mask (~mask) before the self-attention, following PyTorch's "
        "src_key_padding_mask convention (True = ignore), so real tokens are blocked and "
        "pads attended; it goes unseen without a mask.",
        KEY_PADDING_CONVENTION,
        (
            r"invert",
            r"~ ?mask",
            r"polarity",
            r"(opposite|pytorch'?s?|key_padding).{0,40}convention",
            r"True.{0,60}(block|ignore|pad).{0,60}(instead|not|rather)",
            r"(pads?|padding).{0,80}attended.{0,80}(real|tokens?).{0,40}(blocked|masked)",
        ),
        _LAYER_WRONG,
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))",
                "inverted = None if mask is None else ~mask\n"
                "        x = self.norm1(x + self.dropout(self.self_attn(x, x, x, inverted)[0]))",
            )
        ],
    ),
    _e(
        "enc-layer-ffn-residual-from-input",
        L07,
        "EncoderLayer",
        "post-LN: the feed-forward's residual adds the layer's input x instead of the "
        "attention sub-layer's normalised output h (the feed-forward itself reads h).",
        AUTHOR,
        (
            r"residual.{0,160}(layer'?s input|original (x|input)|input of the layer|"
            r"before (the )?(self-)?attention)",
            r"second residual",
            r"(feed-?forward|ffn).{0,80}residual.{0,120}(input|x|norm1|attention)",
            r"residual.{0,80}(feed-?forward|ffn).{0,120}(input|x|norm1|attention)",
        ),
        (*_LAYER_WRONG, r"mask.{0,40}(ignored|dropped|not passed|inverted)"),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))\n"
                "        return self.norm2(x + self.dropout(self.feed_forward(x)))",
                "h = self.norm1(x + self.dropout(self.self_attn(x, x, x, mask)[0]))\n"
                "        return self.norm2(x + self.dropout(self.feed_forward(h)))",
            )
        ],
    ),
    _e(
        "encoder-mask-first-layer-only",
        L07,
        "Encoder",
        "passes the mask to the first layer only and calls the later layers without it, so "
        "from layers[1] on every token attends to the pads.",
        MASK_NOT_PROPAGATED,
        (
            r"(mask|padding).{0,100}(first layer|layers\[0\]|only.{0,30}first|later layers|"
            r"other layers|layers\[[1-9]\]|every layer)",
            r"layers\[[1-9]\].{0,120}(mask|pad)",
            r"(same|the) mask.{0,40}(to )?(each|every|all) (the )?layers?",
        ),
        _STACK_WRONG,
        edits=[
            (
                "for layer in self.layers:\n            x = layer(x, mask)",
                "for i, layer in enumerate(self.layers):\n"
                "            x = layer(x, mask if i == 0 else None)",
            )
        ],
    ),
    _e(
        "encoder-layers-ignore-norm-first",
        L07,
        "Encoder",
        "builds the layers without passing norm_first (EncoderLayer(d_model, num_heads, "
        "d_ff, dropout)), so a pre-LN stack holds post-LN layers; it goes unseen for "
        "norm_first=False.",
        AUTHOR,
        (
            r"norm_first.{0,100}(not passed|never passed|pass|forward|layers|EncoderLayer)",
            r"(layers|EncoderLayer).{0,80}(post-?LN|norm_first ?= ?False)",
            r"post-?LN layers",
            r"pre-?LN.{0,80}(layers|EncoderLayer).{0,60}post-?LN",
        ),
        (*_STACK_WRONG, r"mask.{0,40}(ignored|dropped|not passed)"),
        edits=[
            (
                "EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first)",
                "EncoderLayer(d_model, num_heads, d_ff, dropout)",
            )
        ],
    ),
    # ------------------------------------------------------------ 08 decoder
    _e(
        "dec-preln-x-overwritten-by-norm",
        L08,
        "DecoderLayer",
        "pre-LN: assigns the normalised x back to x (x = norm_i(x)) before each sub-layer, "
        "so every residual carries the normalised stream instead of the un-normalised one.",
        PRELN_X_OVERWRITTEN,
        (
            r"residual.{0,120}(normali[sz]ed|norm\d?\(x\)|normed)",
            r"(overwrit|replac|reassign).{0,60}\bx\b",
            r"\bx ?= ?(self\.)?norm",
            r"un-?normali[sz]ed.{0,60}(input|x|stream|residual)",
        ),
        (
            *_LAYER_WRONG,
            r"mask.{0,40}(ignored|dropped|not passed|swapped)",
            r"memory.{0,40}normali",
        ),
        edits=[
            (
                "h = self.norm1(x)\n"
                "            x = x + self.dropout(self.self_attn(h, h, h, tgt_mask)[0])\n"
                "            h = self.norm2(x)",
                "x = self.norm1(x)\n"
                "            x = x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0])\n"
                "            x = self.norm2(x)\n"
                "            h = x",
            ),
            (
                "return x + self.dropout(self.feed_forward(self.norm3(x)))",
                "x = self.norm3(x)\n            return x + self.dropout(self.feed_forward(x))",
            ),
        ],
    ),
    _e(
        "dec-cross-residual-from-memory",
        L08,
        "DecoderLayer",
        "post-LN: the cross-attention's residual adds the encoder output (memory) instead "
        "of the decoder stream x, which fails when len_src != len_tgt and is wrong "
        "otherwise.",
        CROSS_RESIDUAL_MEMORY,
        (
            r"residual.{0,120}(memory|encoder)",
            r"(memory|encoder output).{0,100}\b(residual|added|skip)",
            r"adds? (the )?memory",
        ),
        (
            *_LAYER_WRONG,
            r"mask.{0,40}(ignored|dropped|not passed|swapped)",
            r"(quer(y|ies)|memory).{0,40}swap",
        ),
        edits=[
            (
                "x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, src_mask)[0]))",
                "x = self.norm2(memory + self.dropout(self.cross_attn(x, memory, memory, "
                "src_mask)[0]))",
            )
        ],
    ),
    _e(
        "dec-cross-queries-from-layer-input",
        L08,
        "DecoderLayer",
        "post-LN: keeps the layer's input in x and writes the self-attention result to a "
        "new variable, but the cross-attention (queries and residual) still reads the stale "
        "x, so the self-attention's output is discarded.",
        AUTHOR,
        (
            r"(quer(y|ies)|cross-?attention).{0,120}(layer'?s input|original x|before (the )?"
            r"self-?attention|stale|input of the layer)",
            r"self-?attention.{0,80}(output|result).{0,60}(discarded|unused|never used|lost|"
            r"ignored)",
            r"cross-?attention.{0,80}(reads|takes|receives|gets).{0,60}(input|x).{0,40}"
            r"(not|instead)",
        ),
        (
            *_LAYER_WRONG,
            r"mask.{0,40}(ignored|dropped|not passed|swapped)",
            r"memory.{0,30}(quer|swap)",
        ),
        edits=[
            (
                "x = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))\n"
                "        x = self.norm2(",
                "a = self.norm1(x + self.dropout(self.self_attn(x, x, x, tgt_mask)[0]))\n"
                "        x = self.norm2(",
            )
        ],
    ),
    _e(
        "decoder-final-norm-argument-ignored",
        L08,
        "Decoder",
        "decides the final norm from norm_first alone (LayerNorm if norm_first else None) "
        "and ignores final_norm, so an explicit final_norm=True (nn.Transformer's layout) "
        "or final_norm=False is not honoured.",
        AUTHOR,
        (
            r"final_norm.{0,100}(ignored|not used|unused|argument|explicit|honou?r|"
            r"True|False)",
            r"(ignor|overrid).{0,40}final_norm",
            r"(final|last) norm.{0,80}(missing|absent|should be there|extra|should not)",
        ),
        (*_STACK_WRONG, r"mask.{0,40}(ignored|dropped|not passed|swapped)"),
        edits=[
            (
                "use_final_norm = norm_first if final_norm is None else final_norm",
                "use_final_norm = norm_first",
            )
        ],
    ),
    _e(
        "decoder-layers-reversed",
        L08,
        "Decoder",
        "runs the layers in reverse order (for layer in reversed(self.layers)), so "
        "layers[-1] sees the input and layers[0] produces the output.",
        AUTHOR,
        (
            r"revers",
            r"(wrong|backward|opposite) order",
            r"layers\[-1\].{0,80}first",
            r"last layer.{0,60}first",
            r"layers\[0\].{0,80}last",
            r"order of (the )?layers",
        ),
        (*_STACK_WRONG, r"mask.{0,40}(ignored|dropped|not passed|swapped)"),
        edits=[("for layer in self.layers:", "for layer in reversed(self.layers):")],
    ),
]
