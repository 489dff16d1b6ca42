"""Lesson 12's two targets, measured: generation with and without a KV cache, and the
peak memory of tiled against naive attention. A benchmark, not a test: run it by hand.

    python benchmarks/inference_benchmark.py                 # both, 2 threads
    python benchmarks/inference_benchmark.py --tokens 512 --threads 2

1. Time per generated token: greedy generation of ``--tokens`` tokens after a 16-token
   prompt, batch 1, with lesson 12's reference ``generate`` (KV cache) and
   ``generate_without_cache``, on a model of the lesson's timing size (d_model 128,
   4 heads, 4 layers, d_ff 512). The two runs alternate ``--repeats`` times and the
   medians are compared. Target: the cache at least 3x faster per token at 512 tokens.
2. Peak extra CPU memory of one attention call, (1, 1, len, 64), measured with the
   PyTorch profiler (profile_memory=True; lesson 12's ``peak_memory``), naive
   attention against tiled attention with blocks of 128 keys, for lengths up to 4096.
   Target: tiled at most 1/8 of naive at 4096.

Times depend on the machine and its load (a shared machine makes them noisy); the
memory figures do not.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import torch

from transformer_course.reference import inference as ref


def generation_times(tokens: int, repeats: int) -> tuple[float, float, bool]:
    """Median seconds per generated token without and with the cache, and whether the
    two runs chose the same tokens."""
    model = ref.make_lm(seed=1, vocab_size=256, d_model=128, num_heads=4, num_layers=4, d_ff=512)
    prompt = torch.randint(0, 256, (1, 16), generator=torch.Generator().manual_seed(0))
    slow, fast, same = [], [], True
    for _ in range(repeats):
        begin = time.perf_counter()
        slow_ids, _ = ref.generate_without_cache(model, prompt, tokens)
        slow.append((time.perf_counter() - begin) / tokens)
        begin = time.perf_counter()
        fast_ids, _ = ref.generate(model, prompt, tokens)
        fast.append((time.perf_counter() - begin) / tokens)
        same = same and torch.equal(slow_ids, fast_ids)
    return statistics.median(slow), statistics.median(fast), same


def memory_peaks(lengths: list[int], block_size: int) -> list[tuple[int, int, int]]:
    """(length, naive peak bytes, tiled peak bytes) for each length."""
    rows = []
    for n in lengths:
        q = torch.randn(1, 1, n, 64)  # (batch, heads, len, d_head)
        rows.append(
            (
                n,
                ref.peak_memory(ref.naive_attention, q, q, q),
                ref.peak_memory(ref.tiled_attention, q, q, q, block_size),
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--block-size", type=int, default=128)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(
        f"torch {torch.__version__}, {platform.processor() or platform.machine()}, "
        f"{torch.get_num_threads()} threads"
    )

    slow, fast, same = generation_times(args.tokens, args.repeats)
    print(f"\ngeneration of {args.tokens} tokens (prompt 16, batch 1), median of {args.repeats}:")
    print(f"  without cache: {1e3 * slow:8.3f} ms per token")
    print(f"  with cache:    {1e3 * fast:8.3f} ms per token")
    print(f"  speed-up {slow / fast:.1f}x (target >= 3x); same tokens: {same}")

    rows = memory_peaks([256, 512, 1024, 2048, 4096], args.block_size)
    print(f"\npeak extra memory of one attention call, (1, 1, len, 64), block {args.block_size}:")
    for n, naive, tiled in rows:
        print(f"  len {n:5d}: naive {naive / 2**20:8.2f} MiB, tiled {tiled / 2**20:6.2f} MiB")
    n, naive, tiled = rows[-1]
    print(f"  at {n}: tiled / naive = 1/{naive / tiled:.1f} (target <= 1/8)")


if __name__ == "__main__":
    main()
