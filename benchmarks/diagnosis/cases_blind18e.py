"""Held-out wrong answers for lessons 05-11, blind round 18 (helper b18e, 2026-11-28):
mistakes new to the benchmark, written blind (no check module, no message read) while fix
round 20 changed the checks, to measure how the diagnoses generalise to mistakes nobody
here has seen (``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L05, L06, L07 = "05_multi_head_attention", "06_masking", "07_encoder"
L08, L10, L11 = "08_decoder", "10_training", "11_language_model"

_c = held_out_authored("blind18e")

BLIND18E: list[Case] = [
    _c(
        "split-heads-split-size-as-count",
        L05,
        "split_heads",
        "cuts the features with x.split(num_heads, dim=-1) and stacks the pieces on axis 1, "
        "reading split's argument as the number of pieces while it is the size of each: it "
        "makes d_model // num_heads pieces of num_heads features, (batch, d_head, len, "
        "num_heads), right only when d_head equals num_heads.",
        (
            r"split\(num_heads",
            r"size of each (piece|chunk|part|split)",
            r"(number|count) of (pieces|chunks|parts)",
            r"(pieces|chunks|parts) of num_heads features",
            r"\bchunk\(",
        ),
        (
            r"interleav",
            r"(without|no|missing|forg[eo]t\w*) (a |the )?transpose",
            r"concatenat\w* .{0,30}batch axis",
        ),
        edits=(
            (
                "return x.reshape(batch, length, num_heads, d_model // num_heads).transpose(1, 2)",
                "return torch.stack(x.split(num_heads, dim=-1), dim=1)",
            ),
        ),
    ),
    _c(
        "merge-heads-shape-unpacked-in-output-order",
        L05,
        "merge_heads",
        "unpacks x.shape in the output's order (batch, length, num_heads, d_head = x.shape) "
        "although x is (batch, num_heads, len, d_head): the head and length sizes trade places, "
        "so the result is (batch, num_heads, len * d_head), right only when num_heads equals "
        "len.",
        (
            r"unpack\w*.{0,60}(order|x\.shape)",
            r"x\.shape.{0,60}(order|swapped|mixed up|wrong way)",
            r"(length|len) and num_heads (sizes )?(are )?(swapped|mixed|exchanged)",
            r"num_heads and (length|len) (sizes )?(are )?(swapped|mixed|exchanged)",
            r"(reads?|takes?) (the )?(length|num_heads|sizes?) from the wrong ax[ie]s",
        ),
        (
            r"(without|no|missing|forg[eo]t\w*) (a |the )?transpose",
            r"interleav",
            r"\.view\b.{0,40}contiguous",
        ),
        edits=(
            (
                "batch, num_heads, length, d_head = x.shape",
                "batch, length, num_heads, d_head = x.shape",
            ),
        ),
    ),
    _c(
        "mha-mask-tested-by-truth-value",
        L05,
        "MultiHeadAttention",
        "tests the mask with `if mask:` (the tensor's truth value) instead of "
        "`if mask is not None`: any mask of more than one element raises 'Boolean value of "
        "Tensor with more than one value is ambiguous' inside the learner's forward; calls "
        "without a mask are right.",
        (
            r"if mask\b(?!\s+is)",
            r"truth(iness| value)",
            r"instead of .{0,20}is not None",
            r"test\w* (the )?mask (itself|directly|as a (bool|condition))",
        ),
        (
            r"(mask|polarity) (is )?inverted",
            r"mask.{0,40}unsqueez",
            r"(ignores|never (uses|passes)) the mask",
        ),
        edits=(
            (
                "        heads, weights = scaled_dot_product_attention(q, k, v, mask)  "
                "# weights (b, h, len_q, len_k)",
                "        if mask:\n"
                "            heads, weights = scaled_dot_product_attention(q, k, v, mask)\n"
                "        else:\n"
                "            heads, weights = scaled_dot_product_attention(q, k, v)",
            ),
        ),
    ),
    _c(
        "mha-dropout-recompute-times-keys",
        L05,
        "MultiHeadAttention",
        "in training with dropout recomputes the heads as self.dropout(weights) @ k, the "
        "projected keys, instead of @ v: right in eval mode or with dropout=0.0, wrong in "
        "training whenever keys and values differ.",
        (
            r"@ k\b",
            r"keys? instead of (the )?values?",
            r"(multipl\w*|times) (by |with )?(the )?(projected )?keys",
            r"\bk instead of v\b",
        ),
        (
            r"dropout (is )?(never|not) applied",
            r"dropout.{0,30}(after|on) (the )?(layer's )?output",
            r"raw (input )?value",
            r"(not )?rescal",
        ),
        edits=(
            (
                "heads = self.dropout(weights) @ v  # (batch, num_heads, len_q, d_head)",
                "heads = self.dropout(weights) @ k  # (batch, num_heads, len_q, d_head)",
            ),
        ),
    ),
    _c(
        "padmask-zero-id-masked-too",
        L06,
        "padding_mask",
        "replaces the pads by 0 and casts to bool, ids.masked_fill(ids == pad_id, 0).bool(): "
        "the pads are False, but so is every real token whose id is 0, a real id whenever "
        "pad_id is not 0.",
        (
            r"\bid 0\b",
            r"(ids?|tokens?) (equal to |of |with id )?0\b.{0,60}(masked|False|pad|blocked)",
            r"\.bool\(\)",
            r"(zero|0) (is )?(treated|counted|taken|read) as (padding|a pad)",
            r"non-?zero",
        ),
        (
            r"pad_id (is )?ignored",
            r"compar\w* with 0 instead of pad_id",
            r"in.place",
            r"(query|row) axis",
        ),
        edits=(
            (
                "return (ids != pad_id)[:, None, None, :]  # (batch, 1, 1, len)",
                "return ids.masked_fill(ids == pad_id, 0).bool()[:, None, None, :]",
            ),
        ),
    ),
    _c(
        "ln-params-shaped-for-3d",
        L07,
        "LayerNorm",
        "creates the gain and the bias with shape (1, 1, d_model), to broadcast over (batch, "
        "len): a 3-D input is normalised right, but the parameters do not have nn.LayerNorm's "
        "shape (d_model,), so weights cannot be copied or loaded, and a 2-D input comes out "
        "3-D.",
        (
            r"(weight|bias|gain)\w*.{0,40}shape \(1, 1, ",
            r"shape \(1, 1, \w+\).{0,40}(weight|bias|gain)",
            r"(weight|bias|gain)\w*.{0,60}\(d_model,\)",
            r"(weight|bias|gain)\w*.{0,40}(extra|leading) (axes|dimensions)",
        ),
        (
            r"unbiased",
            r"eps.{0,30}(outside|after)",
            r"(one|single) (gain|scale)",
            r"buffer",
        ),
        edits=(
            (
                "self.weight = nn.Parameter(torch.ones(d_model))  # gain",
                "self.weight = nn.Parameter(torch.ones(1, 1, d_model))  # gain",
            ),
            (
                "self.bias = nn.Parameter(torch.zeros(d_model))",
                "self.bias = nn.Parameter(torch.zeros(1, 1, d_model))",
            ),
        ),
    ),
    _c(
        "el-pre-ln-falls-through",
        L07,
        "EncoderLayer",
        "ends the pre-LN branch with an assignment (x = x + dropout(feed_forward(norm2(x)))) "
        "instead of a return, so a pre-LN layer falls through into the post-LN lines and runs "
        "both sub-layers a second time; post-LN layers are right.",
        (
            r"fall\w* through",
            r"(no|missing|without (a )?) return\b",
            r"return (statement )?(is )?missing",
            r"(both|two) (branches|paths) run",
            r"(runs?|applies) (both |the )?sub-?layers (a second time|twice)",
        ),
        (
            r"norm_first (is )?(ignored|inverted)",
            r"adds? .{0,30}normali[sz]ed (copy|input)",
            r"final norm",
        ),
        edits=(
            (
                "            return x + self.dropout(self.feed_forward(self.norm2(x)))",
                "            x = x + self.dropout(self.feed_forward(self.norm2(x)))",
            ),
        ),
    ),
    _c(
        "dl-pre-ln-cross-queries-from-old-h",
        L08,
        "DecoderLayer",
        "pre-LN: normalises h again (h = norm2(h)) instead of the updated stream x, so the "
        "cross-attention's queries come from the layer's input and never see the "
        "self-attention's result; post-LN layers are right.",
        (
            r"norm2\(h\)",
            r"(stale|old|previous|earlier) h\b",
            r"cross-attention('s)? quer\w*.{0,80}(layer's input|before the self-attention|"
            r"skip\w* the self-attention|not .{0,20}self-attention)",
            r"never sees? the self-attention",
        ),
        (
            r"memory (is )?(also )?normali[sz]ed",
            r"(keys|values) (come )?from the decoder",
            r"(gets|given|uses) tgt_mask",
            r"norm3",
        ),
        edits=(
            (
                "h = self.norm2(x)  # queries",
                "h = self.norm2(h)  # queries",
            ),
        ),
    ),
    _c(
        "dec-src-mask-in-both-slots",
        L08,
        "Decoder",
        "passes src_mask in both mask slots, layer(x, memory, src_mask, src_mask): the "
        "self-attention gets the source padding mask instead of tgt_mask, so it is not causal "
        "(and fails to broadcast when the source and target lengths differ).",
        (
            r"src_mask (twice|for both|in both)",
            r"(both|two) (mask )?slots",
            r"tgt_mask (is )?(never|not) (passed|used|given)",
            r"self-attention (gets|receives|is given|with) (the )?src_mask",
            r"src_mask (passed )?instead of tgt_mask",
        ),
        (
            r"(masks|arguments) (are )?(swapped|the wrong way round)",
            r"TransformerDecoderLayer's order",
            r"x and memory (are )?swapped",
        ),
        edits=(
            (
                "x = layer(x, memory, src_mask, tgt_mask)",
                "x = layer(x, memory, src_mask, src_mask)",
            ),
        ),
    ),
    _c(
        "mb-batch-is-generator-expression",
        L10,
        "make_batches",
        "appends a generator expression, (torch.from_numpy(a) for a in ...), instead of "
        "tuple(...): each batch is a one-shot generator object, not the tuple (src, "
        "decoder_input, labels), so it cannot be indexed and is empty once unpacked.",
        (
            r"generator (expression|object)",
            r"not a tuple",
            r"tuple\(",
            r"(batch|each batch|element) is a generator",
            r"one-shot",
        ),
        (
            r"global (random )?generator",
            r"seed (argument )?(is )?ignored",
            r"float32",
            r"\bdict\b",
        ),
        edits=(
            (
                "batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, labels)))",
                "batches.append((torch.from_numpy(a) for a in (src, decoder_input, labels)))",
            ),
        ),
    ),
    _c(
        "ts-clip-gets-exhausted-parameters",
        L10,
        "train_step",
        "keeps model.parameters() in a variable, walks it once to clear the gradients by hand, "
        "then hands the same, now exhausted, generator to clip_grad_norm_, which sees no "
        "parameter: the gradients are never clipped.",
        (
            r"exhausted",
            r"generator.{0,60}(once|twice|consumed|used up|empty|already)",
            r"(consumed|used up|iterated) (once|already|before)",
            r"clip_grad_norm_.{0,60}(no|zero|empty|none of the) param",
        ),
        (
            r"clip\w* after (the )?(optimizer\.)?step",
            r"clip_grad_value_",
            r"zero_grad\(\) (is )?(missing|never)",
            r"hard-?coded",
            r"named_parameters",
        ),
        edits=(
            (
                "    model.train()\n    src, decoder_input, labels = batch\n",
                "    model.train()\n    params = model.parameters()\n    for p in params:\n"
                "        p.grad = None\n    src, decoder_input, labels = batch\n",
            ),
            (
                "clip_grad_norm_(model.parameters(), clip_norm)\n    optimizer.step()\n"
                "    optimizer.zero_grad()\n    return loss.item()",
                "clip_grad_norm_(params, clip_norm)\n    optimizer.step()\n"
                "    optimizer.zero_grad()\n    return loss.item()",
            ),
        ),
    ),
    _c(
        "sample-logits-divided-in-place",
        L11,
        "sample",
        "divides the logits by the temperature in place (logits /= temperature): the draws are "
        "right, but the caller's logits tensor is rescaled by every call with a temperature "
        "other than 1.",
        (
            r"in.place",
            r"/=",
            r"caller's logits",
            r"(modifie|change|overwrite|rescale)[sd]? (the )?(caller's |input |given |passed )?"
            r"logits",
        ),
        (
            r"temperature (applied )?(to|on) (the )?probabilit",
            r"divid\w* by (zero|0)",
            r"top.?k",
            r"global (random )?generator",
        ),
        edits=(
            (
                "logits = logits / temperature  # (batch, vocab)",
                "logits /= temperature  # (batch, vocab)",
            ),
        ),
    ),
    _c(
        "ntb-starts-drawn-as-column",
        L11,
        "next_token_batches",
        "draws the starts with size (batch_size, 1), already a column, and then adds the "
        "[:, None] axis as well: the windows come out (batch_size, 1, block_size), one axis too "
        "many.",
        (
            r"\(batch_size, 1\)",
            r"(extra|one too many|additional|superfluous) (axis|dimension)",
            r"\[:, None\].{0,40}(again|twice|already)",
            r"starts? .{0,40}(already )?(a )?column",
        ),
        (
            r"arange\(batch_size\)",
            r"transpos",
            r"torch\.stack",
            r"float",
        ),
        edits=(
            (
                "len(tokens) - block_size, (batch_size,), generator=generator)",
                "len(tokens) - block_size, (batch_size, 1), generator=generator)",
            ),
        ),
    ),
    _c(
        "swiglu-value-multiplied-after-w2",
        L11,
        "SwiGLU",
        "closes w2's parenthesis too early, w2(silu(w1(x))) * w3(x): the value multiplies the "
        "output instead of the gate, a (d_model) by (d_ff) product that only broadcasts when "
        "d_ff equals d_model.",
        (
            r"after (the )?w2",
            r"outside (the )?w2",
            r"parenthes[ie]s",
            r"w2\(silu\(w1\(x\)\)\) \* w3",
            r"w3\(x\) .{0,40}(output|after the projection)",
        ),
        (
            r"silu .{0,30}(over|of) the product",
            r"gelu",
            r"(gate|value) (is )?added",
            r"bias",
        ),
        edits=(
            (
                "return self.w2(F.silu(self.w1(x)) * self.w3(x))",
                "return self.w2(F.silu(self.w1(x))) * self.w3(x)",
            ),
        ),
    ),
    _c(
        "rms-eps-as-floor-not-added",
        L11,
        "RMSNorm",
        "floors the mean square at eps, rsqrt(mean_square.clamp(min=eps)), instead of adding "
        "eps to it: the same for tokens of large magnitude, but a token whose mean square is "
        "near eps is scaled differently.",
        (
            r"clamp",
            r"floor\w*",
            r"max\(.{0,30}eps",
            r"instead of add\w* eps",
            r"eps (is )?(used as|taken as) a (minimum|lower bound)",
        ),
        (
            r"eps.{0,30}outside (the )?(square )?root",
            r"eps (is )?(hard-?coded|ignored)",
            r"1e-0?6",
            r"sum\w* (of )?(the )?squares",
        ),
        edits=(
            (
                "return x * torch.rsqrt(mean_square + self.eps) * self.weight",
                "return x * torch.rsqrt(mean_square.clamp(min=self.eps)) * self.weight",
            ),
        ),
    ),
]
