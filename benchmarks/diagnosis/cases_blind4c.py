"""Blind round 4, helper b4c: held-out wrong answers for lessons 09 and 10, written from the
reference solutions alone (no check module or message read), judging criteria fixed before
any run. Most causes come from a public report read with the search tool (its URL is the
source), transposed to this course's exercise; the rest are the author's own."""

from __future__ import annotations

from benchmarks.diagnosis.cases import Case

AUTHOR = "author: a plausible learner slip, written from the exercise's docstring"
L09, L10 = "09_transformer", "10_training"

# Reports read for this batch (search tool, corpus issues/pages).
LOG_SOFTMAX_OUTPUT = "https://github.com/HLTCHKUST/PAML/issues/11"
TIE_BY_COPY = "https://github.com/dhansmair/flamingo-mini/issues/4"
QKV_PER_HEAD = "https://github.com/karpathy/nanoGPT/issues/629"
LAST_TOKEN_ONLY = "https://github.com/OpenNMT/OpenNMT-py/issues/2156"
LABELS_MINUS_100 = "https://github.com/huggingface/transformers/issues/9909"
KL_DIV_LOSS = "https://github.com/harvardnlp/annotated-transformer/issues/109"
SMOOTH_MINUS_2 = "https://github.com/chenjunyi1999/Translator-Transformer/issues/1"
CLIP_ORDER = (
    "https://theneuralbase.com/pytorch/learn/intermediate/gradient-exploding-gradient-clipping/"
)
SACRE_REFS_TRANSPOSED = "https://github.com/mjpost/sacrebleu/issues/220"
SACRE_REFS_FLAT = "https://github.com/mjpost/sacrebleu/issues/272"
BEAM_MULTIPLIED = "https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning/issues/72"
BEAM_TOTAL_SCORE = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/20"

BLIND4C: list[Case] = [
    # ------------------------------------------------------------------ 09 transformer
    Case(
        "blind4c-tr-decode-log-softmax",
        L09,
        "Transformer",
        "decode returns log_softmax of the output layer (log-probabilities) instead of the raw "
        "logits.",
        LOG_SOFTMAX_OUTPUT,
        (r"log[-_ ]?softmax", r"log-?probabilit", r"(raw|unnormali[sz]ed) (logits|scores)"),
        (r"tie", r"mask", r"position"),
        edits=(
            (
                "return self.output(y)  # (batch, len_tgt, tgt_vocab_size)",
                "return torch.log_softmax(self.output(y), dim=-1)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-tr-tie-by-copy",
        L09,
        "Transformer",
        "tie_embeddings copies the source table into new Parameters (clone) for the target "
        "embedding and the output layer, so the three start equal but are three matrices.",
        TIE_BY_COPY,
        (
            r"(same|one|shared?|single) (weight|matrix|parameter|tensor|object)",
            r"cop(y|ies)|clone",
            r"not (the same|shared|tied)",
            r"\bis\b.{0,40}weight",
        ),
        (r"log[-_ ]?softmax", r"mask"),
        edits=(
            (
                "self.tgt_embedding.embedding.weight = self.src_embedding.embedding.weight\n"
                "            self.output.weight = self.src_embedding.embedding.weight",
                "self.tgt_embedding.embedding.weight = nn.Parameter(\n"
                "                self.src_embedding.embedding.weight.detach().clone()\n"
                "            )\n"
                "            self.output.weight = nn.Parameter(\n"
                "                self.src_embedding.embedding.weight.detach().clone()\n"
                "            )",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-tr-pad-id-zero",
        L09,
        "Transformer",
        "encode and decode build their masks with pad id 0 written in, not self.pad_id.",
        AUTHOR,
        (r"pad_id", r"pad(ding)? id.{0,40}(0|zero|hard)"),
        (r"look-?ahead|causal", r"tie"),
        edits=(
            (
                "src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)\n"
                "        x = ",
                "src_mask = padding_mask(src_ids, 0)  # (batch, 1, 1, len_src)\n        x = ",
            ),
            (
                "tgt_mask = decoder_self_attention_mask(tgt_ids, self.pad_id)",
                "tgt_mask = decoder_self_attention_mask(tgt_ids, 0)",
            ),
            (
                "src_mask = padding_mask(src_ids, self.pad_id)  # (batch, 1, 1, len_src)\n"
                "        y = ",
                "src_mask = padding_mask(src_ids, 0)  # (batch, 1, 1, len_src)\n        y = ",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-count-qkv-per-head-blocks",
        L09,
        "count_parameters",
        "counts w_q, w_k and w_v as num_heads separate d_head x d_head blocks (3 * d_model * "
        "d_head weights) instead of full d_model x d_model projections.",
        QKV_PER_HEAD,
        (
            r"w_q.{0,40}(d_model ?[x×*] ?d_model|d_model\^?2|d_model\*\*2)",
            r"(each|every) (head|projection).{0,60}(d_model|all)",
            r"(query|key|value|q, ?k, ?v).{0,40}(projection|weight).{0,60}d_model",
        ),
        (r"bias", r"layer ?norm", r"w_o"),
        edits=(
            (
                "attention = 4 * (d_model * num_heads * d_head + d_model)  # w_q, w_k, w_v, w_o",
                "attention = 3 * (d_model * d_head + d_model) + (d_model * d_model + d_model)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-count-tied-output-nothing",
        L09,
        "count_parameters",
        "when tie_embeddings, the output layer is counted as 0, forgetting that its bias "
        "(vocab_size) is its own.",
        AUTHOR,
        (r"output.{0,60}bias", r"bias.{0,60}(output|own|vocab)"),
        (r"layer ?norm", r"w_o"),
        edits=(
            (
                '"output": vocab_size if tie_embeddings else table + vocab_size',
                '"output": 0 if tie_embeddings else table + vocab_size',
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-greedy-last-token-only",
        L09,
        "greedy_decode",
        "feeds model.decode only the last generated token at each step (as a cached decoder "
        "would) instead of every token generated so far.",
        LAST_TOKEN_ONLY,
        (
            r"(every|all) (the )?tokens? (generated|so far)",
            r"only (the )?last token",
            r"whole (prefix|sequence)",
        ),
        (r"argmax", r"<?bos>? .{0,20}(dropped|kept)", r"eval"),
        edits=(
            (
                "logits = model.decode(tokens, memory, src_ids)",
                "logits = model.decode(tokens[:, -1:], memory, src_ids)",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-greedy-eos-overwritten",
        L09,
        "greedy_decode",
        "marks a row finished before padding the new token, so the row's own <eos> is replaced "
        "by a pad id.",
        AUTHOR,
        (
            r"<?eos>?.{0,60}(replaced|overwritten|missing|dropped|not kept|lost)",
            r"(keep|include).{0,30}<?eos>?",
            r"up to and including <?eos>?",
        ),
        (r"break|stop early", r"bos"),
        edits=(
            (
                "            next_token = next_token.masked_fill(finished, model.pad_id)\n"
                "            tokens = torch.cat([tokens, next_token[:, None]], dim=1)\n"
                "            finished = finished | (next_token == eos_id)\n",
                "            finished = finished | (next_token == eos_id)\n"
                "            next_token = next_token.masked_fill(finished, model.pad_id)\n"
                "            tokens = torch.cat([tokens, next_token[:, None]], dim=1)\n",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-greedy-src-mask-from-tokens",
        L09,
        "greedy_decode",
        "passes the generated tokens as the third argument of model.decode, so the "
        "cross-attention mask is built from the target prefix instead of src_ids.",
        AUTHOR,
        (r"src_ids", r"source (ids|padding|mask)", r"third argument"),
        (r"argmax", r"last (position|token)"),
        edits=(
            (
                "logits = model.decode(tokens, memory, src_ids)",
                "logits = model.decode(tokens, memory, tokens)",
            ),
        ),
        heldout=True,
    ),
    # ------------------------------------------------------------------ 10 training
    Case(
        "blind4c-batches-labels-minus-100",
        L10,
        "make_batches",
        "pads labels with -100 (Hugging Face's ignore index) instead of pad_id.",
        LABELS_MINUS_100,
        (r"-100", r"labels?.{0,60}pad(ded)? with.{0,20}pad_id", r"ignore.?index"),
        (r"bos", r"shuffle", r"eos.{0,30}missing"),
        edits=(
            (
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)",
                "labels = pad_batch([[*target, eos_id] for _, target in chunk], -100)",
            ),
        ),
        heldout=True,
    ),
    # "batches-slice-after-padding" (an <eos> left in a padded position of decoder_input;
    # https://github.com/Shivanandroy/T5-Finetuning-PyTorch/issues/3) was written here and measured in its batch's commit (711402e); it is an answer the
    # lesson accepts on purpose (the tests' annotated_transformer_shift Correct variant),
    # so it is left out here and in the generalisation record, with that reason.
    Case(
        "blind4c-loss-kl-divergence",
        L10,
        "label_smoothed_loss",
        "returns the KL divergence KL(q || p) (as nn.KLDivLoss would) rather than the "
        "cross-entropy: it is lower by the entropy of q.",
        KL_DIV_LOSS,
        (r"\bKL\b|kl.?div|kullback", r"entropy of (q|the target)", r"cross-entropy, not"),
        (r"pad", r"softmax (applied )?(twice|before)", r"smoothing / ?\(?V ?- ?1"),
        edits=(
            (
                "    loss = (1 - smoothing) * target + smoothing * uniform  # (...)\n",
                "    loss = (1 - smoothing) * target + smoothing * uniform  # (...)\n"
                "    V = logits.shape[-1]\n"
                "    q_hit, q_other = 1 - smoothing + smoothing / V, smoothing / V\n"
                "    neg_entropy = q_hit * math.log(q_hit) + (V - 1) * (\n"
                "        q_other * math.log(q_other) if q_other > 0 else 0.0\n"
                "    )\n"
                "    loss = loss + neg_entropy\n",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-loss-smoothing-over-v-minus-2",
        L10,
        "label_smoothed_loss",
        "the annotated Transformer's target: 1 - smoothing on the label, smoothing / (V - 2) "
        "on every other token except the pad column, which gets 0.",
        SMOOTH_MINUS_2,
        (
            r"V ?- ?2",
            r"pad (column|token|id).{0,60}(0|zero|probability|target)",
            r"smoothing.{0,40}(all|every|each) V",
        ),
        (r"denominator", r"V ?- ?1\b"),
        code="""
def label_smoothed_loss(logits, labels, pad_id, smoothing=0.1):
    V = logits.shape[-1]
    log_probs = torch.log_softmax(logits, dim=-1)
    keep = labels != pad_id
    true_dist = torch.full_like(log_probs, smoothing / (V - 2))
    true_dist.scatter_(-1, labels.masked_fill(~keep, 0)[..., None], 1 - smoothing)
    true_dist[..., pad_id] = 0.0
    loss = -(true_dist * log_probs).sum(dim=-1)
    return loss[keep].mean()
""",
        heldout=True,
    ),
    Case(
        "blind4c-loss-mean-of-sentence-means",
        L10,
        "label_smoothed_loss",
        "averages the loss over each row's non-pad positions first, then over rows, instead "
        "of over all non-pad positions together.",
        AUTHOR,
        (
            r"(per|each) (row|sentence|sequence).{0,60}(mean|average)",
            r"mean of (the )?(row|sentence|sequence)",
            r"all (the )?non-?pad(ded)? positions (together|at once)",
        ),
        (r"smoothing / ?\(?V", r"softmax"),
        edits=(
            (
                "    return loss[keep].mean()\n",
                "    if loss.dim() < 2:\n"
                "        return loss[keep].mean()\n"
                "    per_row = (loss * keep).sum(dim=-1) / keep.sum(dim=-1).clamp(min=1)\n"
                "    return per_row[keep.any(dim=-1)].mean()\n",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-step-clip-before-backward",
        L10,
        "train_step",
        "calls clip_grad_norm_ before loss.backward(), so it clips the (cleared) old gradients "
        "and the step uses unclipped ones.",
        CLIP_ORDER,
        (
            r"clip.{0,80}(after|before).{0,40}(backward|step)",
            r"(backward|back-propagat).{0,60}(then|before).{0,30}clip",
            r"unclipped|not clipped",
        ),
        (r"zero_grad", r"train(ing)? mode", r"clip_grad_value"),
        edits=(
            (
                "    loss.backward()\n"
                "    if clip_norm is not None:\n"
                "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n",
                "    if clip_norm is not None:\n"
                "        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)\n"
                "    loss.backward()\n",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-scores-refs-per-sentence",
        L10,
        "translation_scores",
        "passes references as they come (one list per sentence) to sacrebleu.corpus_bleu, "
        "which reads each inner list as a reference stream.",
        SACRE_REFS_TRANSPOSED,
        (
            r"stream",
            r"transpos",
            r"(one|a) list per (reference|annotator)",
            r"reference j of (each|every) sentence",
        ),
        (r"exact", r"sentence_bleu", r"0-100|0 to 1|scale"),
        edits=(
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                "bleu = sacrebleu.corpus_bleu(hypotheses, references).score",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-scores-flat-first-refs",
        L10,
        "translation_scores",
        "passes a flat list of each sentence's first reference to corpus_bleu, not wrapped "
        "in a list of streams (and ignores the other references).",
        SACRE_REFS_FLAT,
        (
            r"list of (reference )?streams",
            r"\[refs?\]|wrap",
            r"(every|all|other) references",
            r"stream",
        ),
        (r"exact", r"scale"),
        edits=(
            (
                "bleu = sacrebleu.corpus_bleu(hypotheses, streams).score",
                "bleu = sacrebleu.corpus_bleu(hypotheses, [r[0] for r in references]).score",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-beam-multiplied-probabilities",
        L10,
        "beam_search",
        "scores a hypothesis by the product of its token probabilities (starting at 1.0) "
        "instead of the sum of log-probabilities, so the length penalty divides a probability.",
        BEAM_MULTIPLIED,
        (
            r"product of (the )?(token )?probabilit",
            r"probabilit(y|ies).{0,40}(not|instead of) log",
            r"sum of (the )?log-?probabilit",
        ),
        (r"raw logits", r"<?eos>?.{0,30}(never|length)"),
        edits=(
            ("beam, finished = [([], 0.0)], []", "beam, finished = [([], 1.0)], []"),
            (
                "log_probs = torch.log_softmax(logits[:, -1], dim=-1)  # (k, vocab)\n"
                "                scores = torch.tensor([s for _, s in beam])[:, None] + log_probs",
                "log_probs = torch.softmax(logits[:, -1], dim=-1)  # (k, vocab)\n"
                "                scores = torch.tensor([s for _, s in beam])[:, None] * log_probs",
            ),
        ),
        heldout=True,
    ),
    Case(
        "blind4c-beam-no-cumulative-score",
        L10,
        "beam_search",
        "a candidate's score is the log-probability of its last token only; the parent "
        "hypothesis's score is not added.",
        BEAM_TOTAL_SCORE,
        (
            r"(sum|add|accumulat|cumulative).{0,60}(parent|previous|earlier|so far|hypothes)",
            r"last token('s)? log-?prob",
            r"sum of (their|its|the) log-?probabilit",
        ),
        (r"length penalty", r"<?eos>?.{0,30}never"),
        edits=(
            (
                "scores = torch.tensor([s for _, s in beam])[:, None] + log_probs",
                "scores = log_probs",
            ),
        ),
        heldout=True,
    ),
]
