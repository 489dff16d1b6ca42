"""Reference implementation: lesson 10 · Training: the Transformer learns to translate

Generated from the lesson master `solutions/10_training/10_training.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import functools
import math
import sys
import time

import sacrebleu
import torch
from torch import nn
from tqdm.auto import tqdm as auto_tqdm
from tqdm.std import tqdm as text_tqdm

from transformer_course.environment import running_headless
from transformer_course.reference.multi_head_attention import MultiHeadAttention
from transformer_course.reference.tokenization import BOS_ID, EOS_ID, PAD_ID, pad_batch
from transformer_course.reference.transformer import Transformer, greedy_decode


def make_batches(
    pairs: list[tuple[list[int], list[int]]],
    batch_size: int,
    *,
    pad_id: int = PAD_ID,
    bos_id: int = BOS_ID,
    eos_id: int = EOS_ID,
    shuffle: bool = False,
    seed: int = 0,
) -> list:
    """Cut (source, target) id pairs into padded batches for teacher forcing.

    pairs: a list of (source ids, target ids), each a list of ints without <bos> or
        <eos> (what Corpus.encode returns). Neither the list nor its members may be
        modified.
    batch_size: the number of pairs per batch; the last batch holds the rest (it is
        not dropped).
    shuffle=False keeps the order: batch 0 holds pairs[0:batch_size], batch 1 the next
        batch_size pairs, and so on. shuffle=True puts the pairs in a random order
        first, the same order for the same seed (draw it from a generator of your own,
        such as torch.Generator().manual_seed(seed)); any order is accepted then, as
        long as every pair is used exactly once.
    Returns a list of batches. A batch is a tuple (src, decoder_input, labels), or a
    dict with the keys "src", "decoder_input" and "labels". Each is a 2-D integer
    tensor (torch.int64, what nn.Embedding and the loss want; a numpy integer array is
    accepted too, a torch.int32 tensor is not: F.cross_entropy refuses int32 labels),
    padded with pad_id on the right to the longest row of its batch (extra columns of
    pad_id are accepted too, such as one fixed width for every batch, or one width for
    src and the target fields: every mask and the loss ignore them):
        src (batch, len_src): row i holds pair i's source ids. It may carry markers,
            source + [eos_id] or [bos_id] + source + [eos_id]: all three forms are
            accepted (the model learns whichever it is trained on).
        decoder_input (batch, len_tgt): row i = [bos_id] + target ids. (An <eos> in
            a padded position, which slicing [bos_id] + target + [eos_id] after padding
            leaves in shorter rows, is accepted too: its label is pad_id, so no loss reads it.)
        labels (batch, len_tgt): row i = target ids + [eos_id], the token that should
            come next at each position of decoder_input (teacher forcing).
    """
    order = list(range(len(pairs)))
    if shuffle:
        generator = torch.Generator().manual_seed(seed)
        order = torch.randperm(len(pairs), generator=generator).tolist()
    batches = []
    for start in range(0, len(order), batch_size):
        chunk = [pairs[i] for i in order[start : start + batch_size]]
        src = pad_batch([list(source) for source, _ in chunk], pad_id)  # (batch, len_src)
        decoder_input = pad_batch([[bos_id, *target] for _, target in chunk], pad_id)
        labels = pad_batch([[*target, eos_id] for _, target in chunk], pad_id)  # same shape
        batches.append(tuple(torch.from_numpy(a) for a in (src, decoder_input, labels)))
    return batches


BATCH_FIELDS = ("src", "decoder_input", "labels")


def batch_fields(batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(src, decoder_input, labels) as int64 tensors, from a tuple or a dict batch."""
    if isinstance(batch, dict):
        batch = tuple(batch[name] for name in BATCH_FIELDS)
    return tuple(torch.as_tensor(field).long() for field in batch)


def quiz_teacher_forcing() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "a"


def noam_lr(step: int, d_model: int, warmup: int) -> float:
    """The learning rate of "Attention Is All You Need", section 5.3.

        lr = d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)

    Steps count from 1 (the first optimizer step is step 1): the rate grows linearly
    for `warmup` steps, peaks at step == warmup, then decays like 1 / sqrt(step).
    At step 0 (before any step) return 0.0 or the value of step 1, without raising.
    Returns a Python float.
    """
    step = max(step, 1)
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


def label_smoothed_loss(
    logits: torch.Tensor, labels: torch.Tensor, pad_id: int, smoothing: float = 0.1
) -> torch.Tensor:
    """Cross-entropy with label smoothing (paper, section 5.4), ignoring padding.

    logits: float (..., V), unnormalised scores over the V target tokens at each
        position (for example (batch, len_tgt, V));
    labels: int64 (...), the right token at each position; pad_id where there is none.
    At a position with label y the target distribution is PyTorch's smoothed one:
        q = (1 - smoothing) * one_hot(y) + smoothing / V
    (smoothing is spread over all V tokens, y included, so q[y] = 1 - smoothing +
    smoothing / V), and the loss there is the cross-entropy -sum_j q[j] * log p[j]
    with p = softmax(logits). Returns the mean of that over the positions whose label
    is not pad_id, as a 0-d tensor that gradients flow through.
    """
    log_probs = torch.log_softmax(logits, dim=-1)  # (..., V), stable
    keep = labels != pad_id  # (...): the positions that count
    safe_labels = labels.masked_fill(~keep, 0)  # any valid index where the label is pad
    target = -log_probs.gather(-1, safe_labels[..., None]).squeeze(-1)  # (...): -log p[y]
    uniform = -log_probs.mean(dim=-1)  # (...): mean over all V tokens of -log p[j]
    loss = (1 - smoothing) * target + smoothing * uniform  # (...)
    return loss[keep].mean()


def quiz_loss_floor() -> float:
    """Your answer to Question 2: the smallest possible loss, as a number."""
    return 0.500


def train_step(
    model: nn.Module,
    batch: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    optimizer: torch.optim.Optimizer,
    loss_fn,
    clip_norm: float | None = 1.0,
) -> float:
    """One optimisation step with teacher forcing; returns the loss as a Python float.

    model: a Transformer (lesson 09); batch: a tuple (src, decoder_input, labels) of
    int64 tensors; optimizer: a torch optimizer over model.parameters();
    loss_fn(logits, labels) -> 0-d tensor (label_smoothed_loss with pad_id and
    smoothing filled in).
    In this order: put the model in training mode; logits = model(src, decoder_input);
    loss = loss_fn(logits, labels); back-propagate; unless clip_norm is None, rescale
    the gradients so that their total 2-norm, over all parameters together, is at most
    clip_norm; take the optimizer step; clear the gradients (optimizer.zero_grad()).
    Clearing them at the start instead, before the forward pass (PyTorch's tutorials),
    is accepted too: what counts is that no step adds an earlier step's gradients.
    The model must be left in training mode. The returned float is the loss computed
    before the step.
    """
    model.train()
    src, decoder_input, labels = batch
    logits = model(src, decoder_input)  # (batch, len_tgt, tgt_vocab_size)
    loss = loss_fn(logits, labels)
    loss.backward()
    if clip_norm is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()


def translation_scores(hypotheses: list[str], references: list[list[str]]) -> dict[str, float]:
    """Exact-match accuracy and corpus BLEU of a set of translations.

    hypotheses[i] is the model's translation of sentence i; references[i] is the list of
    every correct translation of sentence i (at least one; the lists may have different
    lengths). All are strings of words separated by single spaces.
    Returns {"exact_match": the fraction (0 to 1) of hypotheses equal to at least one of
    their references, "bleu": corpus BLEU on sacrebleu's 0-100 scale, from
    sacrebleu.corpus_bleu with its default settings and every reference: reference
    stream j holds the j-th reference of each sentence, None where a sentence has fewer}.
    Neither list may be modified.
    """
    exact = sum(h in refs for h, refs in zip(hypotheses, references)) / len(hypotheses)
    width = max(len(refs) for refs in references)
    streams = [[refs[j] if j < len(refs) else None for refs in references] for j in range(width)]
    bleu = sacrebleu.corpus_bleu(hypotheses, streams).score  # streams: (width, num_sentences)
    return {"exact_match": exact, "bleu": bleu}


DEFAULT_CONFIG = {
    "d_model": 64,  # the lesson's small model
    "num_heads": 4,
    "num_layers": 2,
    "d_ff": 256,
    "dropout": 0.1,
    "max_len": 32,
    "batch_size": 64,
    "epochs": 8,
    "warmup": 200,
    "lr_factor": 1.0,  # lr = lr_factor * noam_lr(step, d_model, warmup)
    "smoothing": 0.1,
    "clip_norm": 1.0,
    "seed": 0,
    "positional_encoding": True,  # False: the "what if" without positions
    "scale_scores": True,  # False: the "what if" without the 1/sqrt(d_k)
    "num_threads": 1,  # CPU threads while training (see the text above the training cell)
}
MAX_OUTPUT_LEN = 26  # longest translation the decoders may produce


def build_model(corpus, config: dict) -> Transformer:
    """The lesson-09 Transformer for this corpus, with Xavier-initialised matrices."""
    model = Transformer(
        len(corpus.src_vocab),
        len(corpus.tgt_vocab),
        d_model=config["d_model"],
        num_heads=config["num_heads"],
        num_layers=config["num_layers"],
        d_ff=config["d_ff"],
        dropout=config["dropout"],
        max_len=config["max_len"],
        pad_id=PAD_ID,
    )
    for parameter in model.parameters():
        if parameter.dim() > 1:
            nn.init.xavier_uniform_(parameter)
    if not config["positional_encoding"]:
        model.positional_encoding.pe.zero_()  # the sinusoids become zeros: no positions
    if not config["scale_scores"]:
        for module in model.modules():
            if isinstance(module, MultiHeadAttention):
                # queries times sqrt(d_k) cancel attention's division by sqrt(d_k)
                root = math.sqrt(module.d_model // module.num_heads)
                module.w_q.register_forward_hook(lambda _, __, q, root=root: q * root)
    return model


def source_tensor(pairs, batcher=None) -> torch.Tensor:
    """The src field that `batcher` (make_batches by default) builds for id pairs, in order."""
    batcher = batcher or make_batches
    return batch_fields(batcher(pairs, len(pairs))[0])[0]


def translate(model, corpus, sentences, *, beam_size=None, length_penalty=0.0, batcher=None):
    """English sentences -> Spanish translations (strings), greedy or with beam search."""
    pairs = [(corpus.encode_source(s), []) for s in sentences]
    src = source_tensor(pairs, batcher)  # (batch, len_src)
    model.eval()
    if beam_size is None:
        out = greedy_decode(model, src, MAX_OUTPUT_LEN, BOS_ID, EOS_ID)  # (batch, n)
    else:
        out = beam_search(model, src, beam_size, MAX_OUTPUT_LEN, BOS_ID, EOS_ID, length_penalty)
    return [corpus.target_text(row) for row in out.tolist()]


def evaluate(
    model, corpus, pairs, *, beam_size=None, length_penalty=0.0, chunk=250, batcher=None
) -> dict:
    """Translate the English side of (English, Spanish) pairs and score the result
    against every correct translation: {"exact_match", "bleu", "translations"}."""
    translations = []
    for start in range(0, len(pairs), chunk):
        english = [en for en, _ in pairs[start : start + chunk]]
        translations += translate(
            model,
            corpus,
            english,
            beam_size=beam_size,
            length_penalty=length_penalty,
            batcher=batcher,
        )
    scores = translation_scores(translations, corpus.references_of(pairs))
    return {**scores, "translations": translations}


def progress_bar(total: int, description: str, enabled: bool = True):
    """tqdm's notebook bar in JupyterLab; plain text on stdout when run headless (never
    stderr: nbgrader counts any output there as a failure)."""
    if running_headless():  # a line of text, rewritten at most every 2 seconds
        return text_tqdm(
            total=total,
            desc=description,
            file=sys.stdout,
            disable=not enabled,
            unit="step",
            mininterval=2.0,
        )
    return auto_tqdm(
        total=total, desc=description, file=sys.stdout, disable=not enabled, unit="step"
    )


def train_translator(corpus, config=None, *, max_steps=None, progress=True):
    """Train a Transformer on corpus.train with this lesson's make_batches, noam_lr,
    label_smoothed_loss and train_step. Returns (model, history); history holds the
    loss and learning rate of every step, the validation accuracy after every epoch,
    the training time in seconds (evaluation excluded) and the config.
    `max_steps` stops early (a short demonstration run)."""
    config = {**DEFAULT_CONFIG, **(config or {})}
    history = {"config": config, "loss": [], "lr": [], "val_exact_match": [], "epoch_end": []}
    train_pairs = corpus.encode(corpus.train)
    steps_per_epoch = math.ceil(len(train_pairs) / config["batch_size"])
    total = config["epochs"] * steps_per_epoch if max_steps is None else max_steps
    threads = torch.get_num_threads()
    torch.set_num_threads(config["num_threads"] or threads)
    try:
        with torch.random.fork_rng(devices=[]):  # the global stream is left as it was
            torch.manual_seed(config["seed"])  # initial weights and dropout
            model = build_model(corpus, config)
            optimizer = torch.optim.Adam(model.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9)
            loss_fn = functools.partial(
                label_smoothed_loss, pad_id=PAD_ID, smoothing=config["smoothing"]
            )
            step, tokens, seconds = 0, 0, 0.0
            bar = progress_bar(total, "training", progress)
            for epoch in range(config["epochs"]):
                batches = make_batches(
                    train_pairs, config["batch_size"], shuffle=True, seed=config["seed"] + epoch
                )
                start = time.perf_counter()
                for batch in batches:
                    step += 1
                    lr = config["lr_factor"] * noam_lr(step, config["d_model"], config["warmup"])
                    for group in optimizer.param_groups:
                        group["lr"] = lr
                    fields = batch_fields(batch)
                    loss = train_step(model, fields, optimizer, loss_fn, config["clip_norm"])
                    history["loss"].append(loss)
                    history["lr"].append(lr)
                    tokens += int((fields[2] != PAD_ID).sum())
                    elapsed = seconds + time.perf_counter() - start
                    bar.set_postfix(
                        loss=f"{loss:.3f}", tokens_per_s=f"{tokens / elapsed:,.0f}", refresh=False
                    )
                    bar.update(1)
                    if step == total:
                        break
                seconds += time.perf_counter() - start
                history["epoch_end"].append(step)
                validation = evaluate(model, corpus, corpus.validation)
                history["val_exact_match"].append(validation["exact_match"])
                bar.set_description(
                    f"epoch {epoch + 1}: validation {validation['exact_match']:.1%}"
                )
                if step == total:
                    break
            bar.close()
    finally:
        torch.set_num_threads(threads)  # as it was
    history["seconds"] = seconds
    history["tokens_per_second"] = tokens / max(seconds, 1e-9)
    model.eval()
    return model, history


def beam_search(
    model: nn.Module,
    src_ids: torch.Tensor,
    beam_size: int,
    max_len: int,
    bos_id: int,
    eos_id: int,
    length_penalty: float = 0.0,
) -> torch.Tensor:
    """Translate every source sentence with beam search; the best hypothesis of each.

    model: a Transformer in eval mode (encode, decode, pad_id); src_ids: (batch,
    len_src) int64, padded with model.pad_id. Each sentence is searched on its own:
    * A hypothesis is the list of tokens generated after <bos>; its score is the sum of
      their log-probabilities (log_softmax of model.decode's logits at the last position).
    * Start from one live hypothesis, the empty one, with score 0. At each of at most
      max_len steps, extend every live hypothesis by every token of the vocabulary and
      sort all these candidates by score, best first. Walk down that list: a candidate
      ending in <eos> is finished and set aside; any other joins the new beam, until
      the new beam holds beam_size hypotheses (finished ones take no place in it).
    * Stop after the step at which the best normalised score of the finished hypotheses
      (see below) is at least the best score of the live ones (not normalised: a live
      hypothesis can only lose log-probability as it grows, so with length_penalty=0 none
      of them can still win), or after max_len steps.
    * The answer is the finished hypothesis with the best normalised score
      score / lp(L), lp(L) = ((5 + L) / 6) ** length_penalty (GNMT, Wu et al. 2016),
      where L is its number of tokens, <eos> included. If none has finished, it is the
      live hypothesis with the best score (all have L = max_len).
    length_penalty=0 compares plain log-probabilities; larger values favour longer
    translations. With beam_size=1 the result is greedy_decode's, for every
    length_penalty.
    Returns what greedy_decode returns: an int64 tensor (batch, n), each row the chosen
    tokens without <bos>, up to and including <eos>, then model.pad_id; n is the length
    of the longest row (extra columns of padding only are accepted).
    """

    def normalised(hypothesis):
        tokens, score = hypothesis
        return score / ((5 + len(tokens)) / 6) ** length_penalty

    results = []
    with torch.no_grad():
        for row in range(src_ids.shape[0]):
            src = src_ids[row : row + 1]  # (1, len_src), padding kept: it is masked
            memory = model.encode(src)  # (1, len_src, d_model)
            beam, finished = [([], 0.0)], []  # (tokens, sum of log-probabilities)
            for _ in range(max_len):
                tokens = torch.tensor([[bos_id, *t] for t, _ in beam])  # (k, steps so far)
                k = tokens.shape[0]
                logits = model.decode(tokens, memory.expand(k, -1, -1), src.expand(k, -1))
                log_probs = torch.log_softmax(logits[:, -1], dim=-1)  # (k, vocab)
                scores = torch.tensor([s for _, s in beam])[:, None] + log_probs  # (k, vocab)
                order = scores.flatten().argsort(descending=True, stable=True)
                new_beam = []
                for index in order.tolist():
                    parent, token = divmod(index, scores.shape[1])
                    candidate = (beam[parent][0] + [token], scores[parent, token].item())
                    if token == eos_id:
                        finished.append(candidate)
                    else:
                        new_beam.append(candidate)
                        if len(new_beam) == beam_size:
                            break
                beam = new_beam  # sorted: beam[0] is the best live hypothesis
                if finished and max(map(normalised, finished)) >= beam[0][1]:
                    break  # no live hypothesis can still win
            results.append(max(finished or beam, key=normalised)[0])
    width = max(len(tokens) for tokens in results)
    out = torch.full((len(results), width), model.pad_id, dtype=torch.long)
    for row, tokens in enumerate(results):
        out[row, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
    return out


def seed_summary(runs: dict) -> dict:
    """runs[seed][split][decoder]["exact_match"] (as the checkpoint script records them)
    -> summary[split][decoder] = {"mean": mean over the seeds, "spread": max - min}."""
    summary = {}
    for split in next(iter(runs.values())):
        summary[split] = {}
        for decoder in ("greedy", "beam"):
            values = [
                run[split][decoder]["exact_match"] for run in runs.values() if decoder in run[split]
            ]
            if values:
                mean, spread = sum(values) / len(values), max(values) - min(values)
                summary[split][decoder] = {"mean": mean, "spread": spread, "runs": len(values)}
    return summary


def beam_verdict(runs: dict) -> dict[str, bool]:
    """split -> whether beam search's mean exact match beats greedy decoding's by more
    than the run-to-run spread (the larger of the two decoders' spreads)."""
    verdict = {}
    for split, decoders in seed_summary(runs).items():
        gain = decoders["beam"]["mean"] - decoders["greedy"]["mean"]
        verdict[split] = gain > max(decoders["beam"]["spread"], decoders["greedy"]["spread"])
    return verdict
