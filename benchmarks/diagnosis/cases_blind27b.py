"""Held-out wrong answers, blind round 27 (helper b27b, 2026-11-29, lessons 07-10): mistakes new to
the benchmark, written blind (no check module, no message read) while fix round 30 changed
the checks, to measure how the diagnoses generalise to mistakes nobody here has seen
(``held_out_authored`` in ``cases.py`` makes each case).
"""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case, held_out_authored

L07, L08, L09, L10 = "07_encoder", "08_decoder", "09_transformer", "10_training"

_c = held_out_authored("blind27b")

# Where these mistakes are reported (each page was read for this batch).
SQUARED_RELU = "https://github.com/ReaLLMASIC/ReaLLM-Forge/pull/22"
CONFORMER_FEED_FORWARD = "https://github.com/lucidrains/conformer/issues/5"
EMBEDDING_NORM = "https://github.com/OpenNMT/OpenNMT-py/issues/770"
FORWARD_EXPANSION = "https://github.com/aladdinpersson/Machine-Learning-Collection/issues/100"
GPT2_EMBEDDING_HEAD = "https://github.com/huggingface/transformers/issues/2824"
BOS_HARDCODED = "https://github.com/huggingface/transformers/issues/33998"
EXP_WARMUP = "https://github.com/tensorflow/tensor2tensor/issues/555"
LOSS_DOUBLE_SHIFT = "https://github.com/huggingface/transformers/pull/46898"
CLIP_SQUARED_NORM = "https://github.com/paiml/entrenar/issues/311"
EMPTY_HYPOTHESES = "https://github.com/mjpost/sacrebleu/pull/132"

BLIND27B: list[Case] = [
    # ---- 07 encoder -----------------------------------------------------------------------
    _c(
        "ln-variance-mean-not-squared",
        L07,
        "LayerNorm",
        "computes the variance as the mean of the squares minus the mean itself, "
        "(x ** 2).mean(-1) - mean, forgetting to square the mean (E[x^2] - E[x] instead of "
        "E[x^2] - E[x]^2): right only for tokens whose mean is 0 or 1, and a token whose "
        "'variance' comes out negative gives NaN.",
        (
            r"(squar\w+|square of) (the )?mean|mean (is )?(not|never) squared|mean ?\*\* ?2",
            r"e\[x\^?2\] ?- ?e\[x\]",
            r"varian\w+ .{0,80}(mean of (the )?squares|second moment)",
            r"minus the mean (itself|instead)",
        ),
        (
            r"unbiased|bessel|n ?- ?1\b",
            r"eps.{0,40}outside the (square )?root",
            r"over the (batch|positions|wrong axis)",
            r"keepdim",
        ),
        edits=(
            (
                "variance = x.var(dim=-1, keepdim=True, unbiased=False)",
                "variance = (x**2).mean(dim=-1, keepdim=True) - mean",
            ),
        ),
    ),
    _c(
        "ffn-squared-relu",
        L07,
        "PositionwiseFeedForward",
        "squares the ReLU's output (Primer's squared ReLU, relu(w_1(x)) ** 2) instead of "
        "using the paper's plain ReLU between the two linear layers.",
        (
            r"squar\w+",
            r"relu ?\(.{0,30}\) ?\*\* ?2|relu ?\^ ?2|relu²",
            r"(activation|hidden layer).{0,60}(not|isn't|is not) (a )?(plain )?relu",
        ),
        (
            r"gelu",
            r"dropout (is )?(applied )?(after|before) w_2|dropout on the output",
            r"relu (is )?(applied )?after w_2",
            r"(no|missing|without|forg[eo]t\w*) (the )?relu",
        ),
        edits=(
            (
                "hidden = torch.relu(self.w_1(x))",
                "hidden = torch.relu(self.w_1(x)) ** 2",
            ),
        ),
        source=SQUARED_RELU,
    ),
    _c(
        "ffn-layer-norm-at-the-start",
        L07,
        "PositionwiseFeedForward",
        "gives the feed-forward block a LayerNorm of its own on its input (self.norm, applied "
        "before w_1, as Conformer's feed-forward module starts with one), so the block "
        "normalises every token before w_1 and has two extra parameters (norm.weight, "
        "norm.bias); the paper's block is w_2(dropout(relu(w_1(x)))) alone, the sub-layer's "
        "LayerNorm belongs to the encoder layer.",
        (
            r"(layer ?norm|normalis\w+|normaliz\w+).{0,60}(input|inside|before w_1|first|own)",
            r"extra (layer ?norm|norm|module|parameters?|keys?)",
            r"unexpected (keys?|parameters?|state)",
            r"norm\.(weight|bias)",
        ),
        (
            r"gelu",
            r"dropout (is )?(applied )?(after|before) w_2|dropout on the (output|input)",
            r"relu (is )?(applied )?(after w_2|to the input)",
            r"residual",
        ),
        edits=(
            (
                "self.dropout = nn.Dropout(dropout)",
                "self.dropout = nn.Dropout(dropout)\n"
                "        self.norm = nn.LayerNorm(d_model)  # the module starts with a LayerNorm",
            ),
            (
                "hidden = torch.relu(self.w_1(x))",
                "hidden = torch.relu(self.w_1(self.norm(x)))",
            ),
        ),
        source=CONFORMER_FEED_FORWARD,
    ),
    _c(
        "ffn-leaky-relu",
        L07,
        "PositionwiseFeedForward",
        "uses a leaky ReLU (F.leaky_relu, negative slope 0.01, the GAN habit) between the two "
        "linear layers instead of the paper's ReLU, so negative hidden values leak through "
        "scaled by 0.01 instead of becoming 0.",
        (
            r"leaky",
            r"negative (hidden )?(values|inputs|activations|part)\w*.{0,60}"
            r"(kept|leak|not (set to )?zero|scaled|through)",
            r"(activation|hidden layer).{0,60}(not|isn't|is not) (a )?(plain )?relu",
        ),
        (
            r"gelu",
            r"dropout (is )?(applied )?(after|before) w_2|dropout on the output",
            r"relu (is )?(applied )?after w_2",
            r"(no|missing|without|forg[eo]t\w*) (the )?relu",
        ),
        edits=(
            (
                "hidden = torch.relu(self.w_1(x))",
                "hidden = torch.nn.functional.leaky_relu(self.w_1(x), 0.01)",
            ),
        ),
    ),
    _c(
        "enc-final-norm-on-the-input",
        L07,
        "Encoder",
        "applies the stack's final LayerNorm to the input, before the first layer (as "
        "OpenNMT/tensor2tensor normalise the embeddings), instead of to the output of the last "
        "layer: a stack with a final norm (pre-LN, or final_norm=True) returns an "
        "un-normalised sum.",
        (
            r"(before|ahead of) the first layer|on the input|to the input",
            r"(normalis|normaliz)\w* (the )?(input|embeddings)",
            r"(after|at the end of|on the output of) the last layer",
            r"final (layer ?norm|norm)\b.{0,60}(start|beginning|input|before|wrong place)",
        ),
        (
            r"final (layer ?norm|norm) (is )?(missing|never|absent)",
            r"(after|inside|in) (every|each) layer",
            r"final_norm=none",
            r"not chained|every layer (reads|gets) the (stack's )?input",
        ),
        edits=(
            (
                "for layer in self.layers:",
                "if self.norm is not None:\n"
                "            x = self.norm(x)  # normalise the embeddings first\n"
                "        for layer in self.layers:",
            ),
            ("return x if self.norm is None else self.norm(x)", "return x"),
        ),
        source=EMBEDDING_NORM,
    ),
    # ---- 08 decoder -----------------------------------------------------------------------
    _c(
        "dl-feed-forward-width-four-d-model",
        L08,
        "DecoderLayer",
        "builds the feed-forward block with a hidden width of 4 * d_model (the usual "
        "'forward expansion' of 4) instead of the d_ff it is given, so w_1 and w_2 have the "
        "wrong shapes whenever d_ff != 4 * d_model.",
        (
            r"4 ?\* ?d_model|four times d_model|4 ?× ?d_model|expansion",
            r"d_ff (is |was )?(ignored|not used|unused|not passed)|ignor\w+ d_ff",
            r"(hidden|inner) (width|size|dimension|layer).{0,60}(d_ff|wrong|should be)",
            r"w_1.{0,40}(shape|out_features|size)|w_2.{0,40}(shape|in_features|size)",
        ),
        (
            r"norm3|norm2 (again|twice)",
            r"masks? (are )?swapped|src_mask.{0,30}self-attention",
            r"(cross-attention|cross_attn).{0,40}(keys|values|queries) from",
            r"dropout",
        ),
        edits=(
            (
                "self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)",
                "self.feed_forward = PositionwiseFeedForward(d_model, 4 * d_model, dropout)",
            ),
        ),
        source=FORWARD_EXPANSION,
    ),
    # ---- 09 transformer -------------------------------------------------------------------
    _c(
        "tr-logits-from-embedding-matrix-always",
        L09,
        "Transformer",
        "computes the logits with the target embedding matrix, y @ tgt_embedding's weight.T "
        "+ output.bias (GPT-2's shared output projection), whether or not tie_embeddings is "
        "set: without tying the output layer's own weight is never used.",
        (
            r"(target |tgt_?)?embedding('s)? (weight|matrix|table).{0,60}(output|logits|projection)",
            r"output (layer|projection)('s)? (own )?weight (is )?(never|not) used",
            r"ignor\w+ (the )?(self\.)?output(\.weight| layer's weight)",
            r"(as if|even when|even though|although).{0,40}(tied|tie_embeddings)",
            r"untied",
        ),
        (
            r"softmax|log-probabilities",
            r"(look-ahead|padding) mask",
            r"source embedding (for|on) the target",
            r"output (layer )?(has )?no bias",
        ),
        edits=(
            (
                "return self.output(y)",
                "return y @ self.tgt_embedding.embedding.weight.T + self.output.bias",
            ),
        ),
        source=GPT2_EMBEDDING_HEAD,
    ),
    # ---- 10 training ----------------------------------------------------------------------
    _c(
        "mb-special-ids-from-constants",
        L10,
        "make_batches",
        "writes the module's BOS_ID and EOS_ID constants into the rows instead of the "
        "bos_id and eos_id arguments, so a call with other special ids still starts every "
        "decoder input with BOS_ID and ends every label row with EOS_ID.",
        (
            r"(bos_id|eos_id).{0,60}(ignored|not used|unused|argument|parameter)",
            r"ignor\w+ (the )?(bos_id|eos_id)",
            r"(bos_id|eos_id) (constant|instead)|constants? (bos_id|eos_id)",
            r"default (special )?(ids?|constants?|tokens?)",
        ),
        (
            r"not shifted|shifted (twice|again)",
            r"pad\w* (on )?the left",
            r"int32|float\w* tensor",
            r"shuffl\w+",
            r"pad_id.{0,30}(ignored|not used)",
        ),
        edits=(
            (
                "[[bos_id, *target] for _, target in chunk]",
                "[[BOS_ID, *target] for _, target in chunk]",
            ),
            (
                "[[*target, eos_id] for _, target in chunk]",
                "[[*target, EOS_ID] for _, target in chunk]",
            ),
        ),
        source=BOS_HARDCODED,
    ),
    _c(
        "noam-exponential-warmup",
        L10,
        "noam_lr",
        "warms up exponentially, peak * 0.01 ** ((warmup - step) / warmup) (tensor2tensor's "
        "'exp' warm-up, from 1 % of the peak up to it), instead of linearly, step * warmup ** "
        "-1.5: the peak at step == warmup and the decay after it are right, every warm-up "
        "rate before the peak is wrong.",
        (
            r"exponential\w*|geometric\w*",
            r"linear(ly)?\W.{0,40}warm-?up|warm-?up.{0,60}(linear|proportional to (the )?step)",
            r"step ?\* ?warmup ?\*\* ?-1\.5",
            r"0\.01|1 ?%",
        ),
        (
            r"(no|never|without) decay",
            r"warmup ?\*\* ?-0\.5",
            r"d_model ?\*\* ?-0\.5.{0,30}(missing|forgot)",
            r"one step (early|late)|(counts?|steps?) from 0",
            r"max instead of min",
        ),
        code="""
def noam_lr(step: int, d_model: int, warmup: int) -> float:
    step = max(step, 1)
    peak = d_model**-0.5 * warmup**-0.5
    if step < warmup:  # tensor2tensor's "exp" warm-up: from 1 % of the peak up to it
        return peak * 0.01 ** ((warmup - step) / warmup)
    return d_model**-0.5 * step**-0.5
""",
        source=EXP_WARMUP,
    ),
    _c(
        "ls-shifts-logits-and-labels",
        L10,
        "label_smoothed_loss",
        "shifts the inputs inside the loss the causal-LM way (logits[..., :-1, :] against "
        "labels[..., 1:]), although make_batches has already aligned them: every position is "
        "scored against the label of the next one, and the first label and the last logits "
        "are dropped.",
        (
            r"shift\w*",
            r"(next|following) (position|token)('s)? label|label of the next",
            r"labels?\[\.\.\., ?1:\]|logits\[\.\.\., ?:-1",
            r"drops? (the )?(first|last) (position|label|token|logits)",
            r"off by one position|misaligned",
        ),
        (
            r"pad\w* (positions? )?(are )?(counted|included)",
            r"v ?- ?1|other tokens",
            r"kl[- ]divergence",
            r"sum instead of (the )?mean",
        ),
        edits=(
            (
                "log_probs = torch.log_softmax(logits, dim=-1)",
                "logits, labels = logits[..., :-1, :], labels[..., 1:]  # tokens < n predict n\n"
                "    log_probs = torch.log_softmax(logits, dim=-1)",
            ),
        ),
        source=LOSS_DOUBLE_SHIFT,
    ),
    _c(
        "ts-clip-with-squared-norm",
        L10,
        "train_step",
        "clips by hand with the sum of the squared gradient entries as the 'total norm' "
        "(the square root forgotten): it compares the squared norm with clip_norm and divides "
        "by it, so gradients are clipped when their norm is above sqrt(clip_norm) instead of "
        "clip_norm, and rescaled to clip_norm / norm instead of to norm clip_norm.",
        (
            r"square ?root|sqrt",
            r"squared (total |gradient |2-)?norm|norm squared|\|\|g\|\|\^?2|sum of (the )?squares",
            r"(total )?norm.{0,60}(wrong|too (large|big|small)|not the 2-norm)",
            r"clip_grad_norm_",
        ),
        (
            r"clip_grad_value|each (gradient )?entry",
            r"per[- ]parameter|each parameter('s)? (own )?norm",
            r"zero_grad|accumulat\w+",
            r"model\.train|training mode",
            r"(after|before) (the )?(optimizer\.)?(step|backward)",
        ),
        edits=(
            (
                "torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)",
                "grads = [p.grad for p in model.parameters() if p.grad is not None]\n"
                "        total = sum((g**2).sum() for g in grads)  # total gradient norm\n"
                "        if total > clip_norm:\n"
                "            for g in grads:\n"
                "                g.mul_(clip_norm / total)",
            ),
        ),
        source=CLIP_SQUARED_NORM,
    ),
    _c(
        "tsc-empty-hypotheses-left-out",
        L10,
        "translation_scores",
        "leaves the sentences whose translation is empty out of the BLEU computation (their "
        "hypotheses and their references), so BLEU is scored over the non-empty translations "
        "only and comes out higher (no brevity penalty for the missing words) whenever the "
        "model produced an empty translation.",
        (
            r"empty (hypothes\w+|translations?|strings?|outputs?)",
            r"(drop|skip|remov|filter|leav|exclud)\w* (out )?.{0,40}empty",
            r"brevity penalty",
            r"(every|all) (the )?sentences?.{0,40}(bleu|counted)",
        ),
        (
            r"(transpos|streams?).{0,40}(not|wrong)",
            r"lower-?case",
            r"sentence[_ ]bleu",
            r"exact[_ ]match (is )?(wrong|a count|percent)",
            r"0-1 scale|fraction instead",
        ),
        edits=(
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                "kept = [i for i, h in enumerate(hypotheses) if h.strip()]\n"
                "    bleu = sacrebleu.corpus_bleu(\n"
                "        [hypotheses[i] for i in kept], [[s[i] for i in kept] for s in streams]\n"
                "    ).score",
            ),
        ),
        source=EMPTY_HYPOTHESES,
    ),
    _c(
        "tsc-chrf-instead-of-bleu",
        L10,
        "translation_scores",
        "computes the 'bleu' entry with sacrebleu.corpus_chrf (the character n-gram F-score, "
        "sacrebleu's other corpus metric, picked by mistake) instead of sacrebleu.corpus_bleu, "
        "so the number is a chrF score, not BLEU.",
        (
            r"chrf|character n-?grams?|character[- ]level",
            r"corpus_bleu (is )?(never|not) (called|used)",
            r"(not|isn't|is not) (corpus )?bleu|(another|a different|wrong) metric",
        ),
        (
            r"(transpos|streams?).{0,40}(not|wrong)",
            r"lower-?case",
            r"sentence[_ ]bleu",
            r"0-1 scale|fraction instead",
            r"exact[_ ]match",
        ),
        edits=(
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                "bleu = sacrebleu.corpus_chrf(hypotheses, streams).score",
            ),
        ),
    ),
    _c(
        "bs-extends-only-the-best-hypothesis",
        L10,
        "beam_search",
        "extends only the best live hypothesis (beam[:1]) by every token at each step instead "
        "of every live hypothesis, so the other beam_size - 1 hypotheses kept in the beam are "
        "never grown and the search follows one prefix, like greedy decoding with a wider "
        "choice of the last token.",
        (
            r"only (the )?(best|first|top)( live)? hypothes\w+",
            r"(every|all|each) (of the )?(live )?hypothes\w+.{0,60}(extend|expand|grow)",
            r"beam\[:1\]|beam\[0\] (only|alone)",
            r"(other|remaining) hypothes\w+.{0,60}(never|not) (extended|expanded|grown)",
            r"(same as|reduces to|collapses to|like) greedy",
        ),
        (
            r"length penalty|lp\(",
            r"stop\w* (rule|early|too early|too late)",
            r"<?eos>? (takes|candidates? (take|takes))",
            r"log_softmax over",
            r"scores? (are )?(not )?accumulat\w+",
        ),
        edits=(
            (
                "tokens = torch.tensor([[bos_id, *t] for t, _ in beam])",
                "tokens = torch.tensor([[bos_id, *t] for t, _ in beam[:1]])  # the best one",
            ),
            (
                "scores = torch.tensor([s for _, s in beam])[:, None] + log_probs",
                "scores = torch.tensor([s for _, s in beam[:1]])[:, None] + log_probs",
            ),
        ),
    ),
]
