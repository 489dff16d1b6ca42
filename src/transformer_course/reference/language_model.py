"""Reference implementation: lesson 11 · A GPT of your own

Generated from the lesson master `solutions/11_language_model/11_language_model.py`
(its answer cells and its cells marked `export=true`) by `make notebooks`.
Edit the master, never this file.
"""

from __future__ import annotations

import math
import time

import torch
import torch.nn.functional as F
from torch import nn

from transformer_course.reference.attention import scaled_dot_product_attention
from transformer_course.reference.masking import look_ahead_mask
from transformer_course.reference.multi_head_attention import merge_heads, split_heads
from transformer_course.reference.training import progress_bar


def next_token_batches(
    tokens: torch.Tensor, block_size: int, batch_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random training windows from a token stream, and their next-token targets.

    tokens: int64 (num_tokens,), num_tokens > block_size. Draws batch_size starts with
    torch.randint(0, num_tokens - block_size, (batch_size,), generator=generator) (every
    start from 0 to num_tokens - block_size - 1 is possible) and returns
    (inputs, targets), each int64 (batch_size, block_size):
    inputs[b] = tokens[s_b : s_b + block_size], targets[b] = tokens[s_b + 1 : s_b + block_size + 1].
    Only `generator` supplies randomness; `tokens` is not modified.
    """
    starts = torch.randint(0, len(tokens) - block_size, (batch_size,), generator=generator)
    positions = starts[:, None] + torch.arange(block_size)  # (batch_size, block_size)
    return tokens[positions], tokens[positions + 1]


class RMSNorm(nn.Module):
    """Root-mean-square normalisation of each token's features (Zhang and Sennrich 2019).

    RMSNorm(d_model, eps=1e-5): a learned gain `weight` (d_model,) initialised to ones,
    no bias (state-dict key: weight only). forward(x): x (..., d_model) ->
    (..., d_model), x / sqrt(mean(x**2 over the last axis) + eps) * weight: equal to
    nn.RMSNorm(d_model, eps=eps) with the same weight.
    """

    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean_square = x.pow(2).mean(dim=-1, keepdim=True)  # (..., 1): one per token
        return x * torch.rsqrt(mean_square + self.eps) * self.weight


def rotary_embedding(
    length: int, d_head: int, base: float = 10000.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """RoPE's rotation angles for positions 0 .. length - 1.

    Returns (cos, sin), each float32 (length, d_head // 2): angle[m, i] = m * theta_i
    with theta_i = base ** (-2 i / d_head), i = 0 .. d_head // 2 - 1; d_head is even.
    """
    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64) / d_head)  # (d_head/2,)
    angles = torch.arange(length, dtype=torch.float64)[:, None] * theta  # (length, d_head/2)
    return angles.cos().float(), angles.sin().float()


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate the feature pairs of x by RoPE's angles.

    x: (..., len, d_head) queries or keys (one head or many: (batch, num_heads, len,
    d_head)); cos, sin: (len, d_head // 2) from rotary_embedding. Pair i is
    (x[..., i], x[..., i + d_head // 2]) ("rotate half", as in GPT-NeoX and Hugging
    Face's Llama; adjacent pairs (x[..., 2i], x[..., 2i + 1]), as in the RoFormer paper
    and Meta's Llama code, are accepted too). Returns a tensor of x's shape and dtype; x
    is not modified.
    """
    half = x.shape[-1] // 2
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)  # (len, d_head/2)
    a, b = x[..., :half], x[..., half:]  # (..., len, d_head/2) each
    return torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)  # (..., len, d_head)


def quiz_rope_values() -> str:
    """Your answer to Question 1: "a", "b", "c" or "d"."""
    return "c"


class SwiGLU(nn.Module):
    """The SwiGLU feed-forward block (Shazeer 2020; Llama's layout).

    SwiGLU(d_model, d_ff): three nn.Linear without bias, w1 (d_model -> d_ff, the gate),
    w3 (d_model -> d_ff, the value) and w2 (d_ff -> d_model). forward(x):
    x (..., d_model) -> w2(silu(w1(x)) * w3(x)), (..., d_model).
    """

    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))  # (..., d_ff) inside


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention with rotary position embeddings.

    CausalSelfAttention(d_model, num_heads, base=10000.0): four nn.Linear(d_model,
    d_model, bias=False) named w_q, w_k, w_v, w_o; d_head = d_model // num_heads.
    forward(x): x (batch, len, d_model) -> (batch, len, d_model). The queries and keys
    of every head, (batch, num_heads, len, d_head), are rotated with
    rotary_embedding(len, d_head, base) and apply_rotary (positions 0 .. len - 1); the
    values are not. Query i attends to keys 0 .. i only (look_ahead_mask).
    """

    def __init__(self, d_model: int, num_heads: int, base: float = 10000.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads, self.d_head, self.base = num_heads, d_model // num_heads, base
        self.w_q = nn.Linear(d_model, d_model, bias=False)
        self.w_k = nn.Linear(d_model, d_model, bias=False)
        self.w_v = nn.Linear(d_model, d_model, bias=False)
        self.w_o = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        length = x.shape[1]
        q = split_heads(self.w_q(x), self.num_heads)  # (batch, num_heads, len, d_head)
        k = split_heads(self.w_k(x), self.num_heads)  # (batch, num_heads, len, d_head)
        v = split_heads(self.w_v(x), self.num_heads)  # (batch, num_heads, len, d_head)
        cos, sin = rotary_embedding(length, self.d_head, self.base)  # (len, d_head/2)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        heads, _ = scaled_dot_product_attention(q, k, v, look_ahead_mask(length))
        return self.w_o(merge_heads(heads))  # (batch, len, d_model)


class DecoderBlock(nn.Module):
    """One pre-norm decoder-only block.

    DecoderBlock(d_model, num_heads, d_ff, eps=1e-5): norm1 = RMSNorm(d_model, eps),
    attn = CausalSelfAttention(d_model, num_heads), norm2 = RMSNorm(d_model, eps),
    feed_forward = SwiGLU(d_model, d_ff). forward(x): x (batch, len, d_model) ->
    h = x + attn(norm1(x)); returns h + feed_forward(norm2(h)), (batch, len, d_model).
    """

    def __init__(self, d_model: int, num_heads: int, d_ff: int, eps: float = 1e-5):
        super().__init__()
        self.norm1 = RMSNorm(d_model, eps)
        self.attn = CausalSelfAttention(d_model, num_heads)
        self.norm2 = RMSNorm(d_model, eps)
        self.feed_forward = SwiGLU(d_model, d_ff)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x + self.attn(self.norm1(x))  # (batch, len, d_model)
        return h + self.feed_forward(self.norm2(h))


class GPT(nn.Module):
    """A decoder-only language model.

    GPT(vocab_size, d_model, num_heads, d_ff, num_layers, eps=1e-5): embedding =
    nn.Embedding(vocab_size, d_model), its weight initialised from a normal distribution
    with standard deviation 0.02 (GPT-2's); layers = nn.ModuleList of num_layers new
    DecoderBlock(d_model, num_heads, d_ff, eps), one constructor call each, so that every
    block starts from its own random weights (copies of one block would all start
    alike); norm = RMSNorm(d_model, eps). The
    output layer is tied to the embedding: logits = norm(...) @ embedding.weight.T
    (an extra key output.weight is fine if it is the same tensor).
    forward(ids): int64 (batch, len) -> logits (batch, len, vocab_size), where
    logits[:, t] depends on ids[:, : t + 1] only.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        num_heads: int,
        d_ff: int,
        num_layers: int,
        eps: float = 1e-5,
    ):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.layers = nn.ModuleList(
            [DecoderBlock(d_model, num_heads, d_ff, eps) for _ in range(num_layers)]
        )
        self.norm = RMSNorm(d_model, eps)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embedding(ids)  # (batch, len, d_model)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T  # (batch, len, vocab)


def sample(
    logits: torch.Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Draw one next token per row of logits (batch, vocab).

    temperature > 0: sample from softmax(logits / temperature); temperature == 0:
    the argmax (greedy). top_k (None: all): keep only the top_k largest logits (ties
    with the k-th may be kept; a top_k of the vocabulary size or more keeps all). top_p (None: all): then, on the probabilities after the
    temperature and top-k (renormalised), keep the smallest set of the most probable
    tokens whose probabilities sum to at least top_p (the token that crosses top_p is
    kept; at least one token per row; when the tokens before one sum to exactly top_p,
    keeping it too, as a strict test before > top_p does, is accepted). What is kept
    is renormalised. Random draws use `generator`. Returns int64 (batch,); logits is
    not modified.
    """
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits / temperature  # (batch, vocab)
    if top_k is not None:
        kth = torch.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None:
        sorted_probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
        before = sorted_probs.cumsum(dim=-1) - sorted_probs  # (batch, vocab): mass before each
        remove_sorted = before >= top_p
        remove_sorted[..., 0] = False  # always keep the most probable token
        remove = remove_sorted.scatter(-1, order, remove_sorted)  # back to vocabulary order
        logits = logits.masked_fill(remove, float("-inf"))
    probs = torch.softmax(logits, dim=-1)  # (batch, vocab), renormalised
    return torch.multinomial(probs, 1, generator=generator)[:, 0]


def quiz_temperature() -> str:
    """Your answer to Question 2: "a", "b", "c" or "d"."""
    return "b"


DEFAULT_CONFIG = {
    "d_model": 128,
    "num_heads": 4,
    "d_ff": 352,  # about 8/3 * d_model, a multiple of 32
    "num_layers": 3,
    "block_size": 128,
    "batch_size": 32,
    "steps": 640,
    "lr": 3e-3,
    "warmup": 50,
    "weight_decay": 0.1,
    "clip_norm": 1.0,
    "seed": 0,
    "num_threads": 1,
    "eval_batches": 20,
}


def build_language_model(vocab_size: int, config: dict) -> GPT:
    """A GPT of the config's size (weights from the global stream: seed it first)."""
    return GPT(
        vocab_size,
        config["d_model"],
        config["num_heads"],
        config["d_ff"],
        config["num_layers"],
    )


def cosine_lr(step: int, config: dict) -> float:
    """Linear warm-up to config["lr"], then a cosine decay to a tenth of it."""
    if step <= config["warmup"]:
        return config["lr"] * step / config["warmup"]
    progress = (step - config["warmup"]) / max(1, config["steps"] - config["warmup"])
    return config["lr"] * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


@torch.no_grad()
def estimate_loss(model: nn.Module, tokens: torch.Tensor, config: dict, seed: int = 1234) -> float:
    """Mean next-token cross-entropy (nats per token) over config["eval_batches"] random
    windows of the stream, the same windows for every model (a fixed seed)."""
    was_training = model.training
    model.eval()
    generator = torch.Generator().manual_seed(seed)
    total = 0.0
    for _ in range(config["eval_batches"]):
        inputs, targets = next_token_batches(
            tokens, config["block_size"], config["batch_size"], generator
        )
        logits = model(inputs)  # (batch, block_size, vocab)
        total += F.cross_entropy(logits.flatten(0, 1), targets.flatten()).item()
    model.train(was_training)
    return total / config["eval_batches"]


def ngram_baselines(corpus, config: dict, smoothing: float = 0.1) -> dict[str, float]:
    """The validation loss of a unigram and a bigram model counted on the training
    split (add-`smoothing` counts), on the same windows as estimate_loss."""
    vocab = corpus.vocab_size
    unigram = torch.bincount(corpus.train, minlength=vocab).double() + smoothing
    pairs = corpus.train[:-1] * vocab + corpus.train[1:]
    bigram = torch.bincount(pairs, minlength=vocab * vocab).double().view(vocab, vocab)
    bigram = bigram + smoothing
    log_unigram = (unigram / unigram.sum()).log()  # (vocab,)
    log_bigram = (bigram / bigram.sum(dim=1, keepdim=True)).log()  # (vocab, vocab): row = previous
    generator = torch.Generator().manual_seed(1234)  # estimate_loss's windows
    totals = {"unigram": 0.0, "bigram": 0.0}
    for _ in range(config["eval_batches"]):
        inputs, targets = next_token_batches(
            corpus.validation, config["block_size"], config["batch_size"], generator
        )
        totals["unigram"] -= log_unigram[targets].mean().item()
        totals["bigram"] -= log_bigram[inputs, targets].mean().item()
    return {name: total / config["eval_batches"] for name, total in totals.items()}


@torch.no_grad()
def bits_per_byte(model: nn.Module, tokens: torch.Tensor, num_bytes: int, block_size: int) -> float:
    """The model as a compressor: the bits an arithmetic coder driven by its predictions
    would spend on the whole stream `tokens` (which spells `num_bytes` bytes of text), per
    byte. The stream is read in consecutive windows of block_size predictions, so every
    token after the first is predicted once, from the 1 to block_size tokens before it
    in its window; the first token costs log2(vocab) bits (a uniform guess)."""
    was_training = model.training
    model.eval()
    starts = list(range(0, len(tokens) - 1, block_size))
    nats = 0.0
    for first in range(0, len(starts), 32):  # 32 windows per forward pass
        windows = [tokens[s : s + block_size + 1] for s in starts[first : first + 32]]
        for size in sorted({len(w) for w in windows}):  # the last window may be shorter
            batch = torch.stack([w for w in windows if len(w) == size])  # (n, size)
            logits = model(batch[:, :-1])  # (n, size - 1, vocab)
            loss = F.cross_entropy(logits.flatten(0, 1), batch[:, 1:].flatten(), reduction="sum")
            nats += loss.item()
    model.train(was_training)
    vocab = logits.shape[-1]
    return (nats / math.log(2) + math.log2(vocab)) / num_bytes


def compressor_bits_per_byte(data: bytes, context: bytes = b"") -> dict[str, float]:
    """Bits per byte of `data` under the standard library's compressors at their strongest
    settings: gzip -9, bz2 -9, and xz -9e given `context` first (the size of `context`
    compressed alone is subtracted), as the model was given its training text. A
    compressor this Python was built without is left out."""
    import gzip

    results = {"gzip -9": 8 * len(gzip.compress(data, compresslevel=9)) / len(data)}
    try:
        import bz2

        results["bz2 -9"] = 8 * len(bz2.compress(data, compresslevel=9)) / len(data)
    except ImportError:
        pass
    try:
        import lzma

        def xz(text: bytes) -> int:
            return len(lzma.compress(text, preset=9 | lzma.PRESET_EXTREME))

        with_context = xz(context + data) - (xz(context) if context else 0)
        results["xz -9e" + (", given the training text" if context else "")] = (
            8 * with_context / len(data)
        )
    except ImportError:
        pass
    return results


def train_language_model(corpus, config=None, *, max_steps=None, progress=True):
    """Train a GPT on corpus.train. Returns (model, history): the loss and learning rate
    of every step, the validation loss every 100 steps and at the end
    (val_steps, val_loss), the training time in seconds (evaluation excluded; wall clock,
    and the process's CPU time, which is the wall time of a machine running nothing
    else), tokens per second and the config. `max_steps` stops early (a short
    demonstration run)."""
    config = {**DEFAULT_CONFIG, **(config or {})}
    total = config["steps"] if max_steps is None else min(max_steps, config["steps"])
    history = {"config": config, "loss": [], "lr": [], "val_steps": [], "val_loss": []}
    threads = torch.get_num_threads()
    torch.set_num_threads(config["num_threads"] or threads)
    try:
        with torch.random.fork_rng(devices=[]):  # the global stream is left as it was
            torch.manual_seed(config["seed"])
            model = build_language_model(corpus.vocab_size, config)
            optimizer = torch.optim.AdamW(
                model.parameters(), lr=0.0, betas=(0.9, 0.95), weight_decay=config["weight_decay"]
            )
            generator = torch.Generator().manual_seed(config["seed"])
            seconds = cpu_seconds = 0.0
            bar = progress_bar(total, "training", progress)
            for step in range(1, total + 1):
                start, cpu_start = time.perf_counter(), time.process_time()
                lr = cosine_lr(step, config)
                for group in optimizer.param_groups:
                    group["lr"] = lr
                inputs, targets = next_token_batches(
                    corpus.train, config["block_size"], config["batch_size"], generator
                )
                logits = model(inputs)  # (batch, block_size, vocab)
                loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), config["clip_norm"])
                optimizer.step()
                seconds += time.perf_counter() - start
                cpu_seconds += time.process_time() - cpu_start
                history["loss"].append(loss.item())
                history["lr"].append(lr)
                tokens_per_s = step * config["batch_size"] * config["block_size"] / seconds
                bar.set_postfix(
                    loss=f"{loss.item():.3f}", tokens_per_s=f"{tokens_per_s:,.0f}", refresh=False
                )
                bar.update(1)
                if step % 100 == 0 or step == total:
                    history["val_steps"].append(step)
                    history["val_loss"].append(estimate_loss(model, corpus.validation, config))
                    model.train()
            bar.close()
    finally:
        torch.set_num_threads(threads)
    history["seconds"], history["cpu_seconds"] = seconds, cpu_seconds
    history["tokens_per_second"] = total * config["batch_size"] * config["block_size"] / seconds
    model.eval()
    return model, history


@torch.no_grad()
def generate(
    model: nn.Module,
    ids: torch.Tensor,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    block_size: int | None = None,
) -> torch.Tensor:
    """Append max_new_tokens sampled tokens to ids (batch, len), running the whole
    sequence (its last block_size tokens, if given) through the model at every step:
    no cache (lesson 12 adds one). Returns int64 (batch, len + max_new_tokens)."""
    for _ in range(max_new_tokens):
        context = ids if block_size is None else ids[:, -block_size:]
        logits = model(context)[:, -1]  # (batch, vocab): the next token's logits
        next_id = sample(logits, temperature, top_k, top_p, generator)  # (batch,)
        ids = torch.cat([ids, next_id[:, None]], dim=1)
    return ids


@torch.no_grad()
def attention_maps(model: GPT, ids: torch.Tensor) -> list[torch.Tensor]:
    """The attention weights of every block for ids (1, len): one (num_heads, len, len)
    tensor per block, computed from the block's input and its attention's weights."""
    maps = []
    x = model.embedding(ids)  # (1, len, d_model)
    for layer in model.layers:
        attn = layer.attn
        h = layer.norm1(x)
        q = split_heads(attn.w_q(h), attn.num_heads)  # (1, num_heads, len, d_head)
        k = split_heads(attn.w_k(h), attn.num_heads)
        cos, sin = rotary_embedding(ids.shape[1], attn.d_head, attn.base)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
        _, weights = scaled_dot_product_attention(q, k, q, look_ahead_mask(ids.shape[1]))
        maps.append(weights[0])  # (num_heads, len, len)
        x = layer(x)
    return maps
