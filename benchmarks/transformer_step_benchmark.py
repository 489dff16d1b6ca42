"""Training-step time: the course's reference Transformer against PyTorch's nn.Transformer.

Both models have the same size (lesson 10's default: d_model 64, 4 heads, 2 + 2
layers, d_ff 256, dropout 0.1, post-LN with a final LayerNorm in each stack, which is
what nn.Transformer has) and the same embeddings, positional encoding and output
layer (the course's). They train on the same batches of lesson 10's corpus with the
same optimizer (Adam) and loss (label-smoothed cross-entropy). The steps of the two
models are interleaved, so that a change in the machine's load hits both alike, and
the median step times are compared. This is a benchmark, not a test: run it by hand.

    python benchmarks/transformer_step_benchmark.py            # the default model
    python benchmarks/transformer_step_benchmark.py --profile  # where the time goes

Target (lesson 10's issue): the reference within 1.3x of nn.Transformer's step time.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn

from transformer_course import translation
from transformer_course.reference import training
from transformer_course.reference.embeddings import TokenEmbedding
from transformer_course.reference.masking import look_ahead_mask
from transformer_course.reference.positional_encoding import PositionalEncoding
from transformer_course.reference.tokenization import PAD_ID
from transformer_course.reference.transformer import Transformer


class TorchTransformer(nn.Module):
    """nn.Transformer between the course's embeddings, positions and output layer."""

    def __init__(
        self, src_vocab, tgt_vocab, d_model, num_heads, num_layers, d_ff, dropout, max_len
    ):
        super().__init__()
        self.src_embedding = TokenEmbedding(src_vocab, d_model)
        self.tgt_embedding = TokenEmbedding(tgt_vocab, d_model)
        self.positional_encoding = PositionalEncoding(d_model, max_len, dropout)
        self.transformer = nn.Transformer(
            d_model, num_heads, num_layers, num_layers, d_ff, dropout, batch_first=True
        )
        self.output = nn.Linear(d_model, tgt_vocab)

    def forward(self, src_ids, tgt_ids):
        src_pads, tgt_pads = src_ids == PAD_ID, tgt_ids == PAD_ID  # True = blocked
        future = ~look_ahead_mask(tgt_ids.shape[1])
        y = self.transformer(
            self.positional_encoding(self.src_embedding(src_ids)),
            self.positional_encoding(self.tgt_embedding(tgt_ids)),
            tgt_mask=future,
            src_key_padding_mask=src_pads,
            tgt_key_padding_mask=tgt_pads,
            memory_key_padding_mask=src_pads,
        )
        return self.output(y)


def build(corpus, config):
    sizes = (len(corpus.src_vocab), len(corpus.tgt_vocab))
    ours = Transformer(
        *sizes,
        d_model=config["d_model"],
        num_heads=config["num_heads"],
        num_layers=config["num_layers"],
        d_ff=config["d_ff"],
        dropout=config["dropout"],
        max_len=config["max_len"],
        pad_id=PAD_ID,
        final_norm=True,
    )
    theirs = TorchTransformer(
        *sizes,
        config["d_model"],
        config["num_heads"],
        config["num_layers"],
        config["d_ff"],
        config["dropout"],
        config["max_len"],
    )
    return ours, theirs


def step(model, optimizer, batch, smoothing):
    src, decoder_input, labels = batch
    model.train()
    logits = model(src, decoder_input)
    loss = F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]),
        labels.reshape(-1),
        ignore_index=PAD_ID,
        label_smoothing=smoothing,
    )
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()


def profile(model, optimizer, batches, smoothing, rows):
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    with torch_profile(activities=[ProfilerActivity.CPU]) as prof:
        for batch in batches:
            step(model, optimizer, batch, smoothing)
    return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150, help="timed steps per model")
    parser.add_argument("--warmup-steps", type=int, default=15)
    parser.add_argument(
        "--threads", type=int, default=None, help="torch threads (default: torch's)"
    )
    parser.add_argument("--profile", action="store_true", help="also print torch.profiler tables")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    config = training.DEFAULT_CONFIG
    corpus = translation.make_corpus()
    batches = [
        training.batch_fields(b)
        for b in training.make_batches(
            corpus.encode(corpus.train), config["batch_size"], shuffle=True, seed=0
        )
    ]
    torch.manual_seed(0)
    ours, theirs = build(corpus, config)
    models = {"reference Transformer": ours, "nn.Transformer": theirs}
    optimizers = {name: torch.optim.Adam(m.parameters(), lr=1e-3) for name, m in models.items()}
    counts = {name: sum(p.numel() for p in m.parameters()) for name, m in models.items()}
    times: dict[str, list[float]] = {name: [] for name in models}
    total = args.warmup_steps + args.steps
    for i in range(total):
        batch = batches[i % len(batches)]
        order = list(models) if i % 2 == 0 else list(models)[::-1]
        for name in order:
            start = time.perf_counter()
            step(models[name], optimizers[name], batch, config["smoothing"])
            if i >= args.warmup_steps:
                times[name].append(time.perf_counter() - start)
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, "
        f"{platform.processor() or platform.machine()}; batch {config['batch_size']}, "
        f"{args.steps} timed steps each (after {args.warmup_steps} warm-up steps)"
    )
    for name in models:
        t = times[name]
        print(
            f"{name:<22} {counts[name]:>8,} parameters   median {1e3 * statistics.median(t):6.2f} ms"
            f"   mean {1e3 * statistics.mean(t):6.2f} ms"
        )
    ratio = statistics.median(times["reference Transformer"]) / statistics.median(
        times["nn.Transformer"]
    )
    print(f"step-time ratio reference / nn.Transformer (medians): {ratio:.2f}x  (target <= 1.3x)")
    if args.profile:
        for name in models:
            print(f"\n=== {name}: 30 steps, ops by self CPU time ===")
            print(profile(models[name], optimizers[name], batches[:30], config["smoothing"], 18))
    return ratio


if __name__ == "__main__":
    main()
