"""Lesson 12's targets, measured on lesson 11's GPT (the shipped checkpoint, its sizes read
from ``checkpoints/language_model.json``): generation with and without a KV cache, the
cache's bytes against the formula, and the peak memory of tiled against naive attention.
A benchmark, not a test: run it by hand.

    python benchmarks/inference_benchmark.py                    # measure and print, 1 thread
    python benchmarks/inference_benchmark.py --record           # ... and write the record
    python benchmarks/inference_benchmark.py --threads 2        # both cores

One thread by default, as the lesson: on a 2-core machine shared with other work, two
threads mostly wait for each other (a cached step then costs several times more).

1. Time per generated token: greedy generation of ``--tokens`` tokens after a 16-token
   prompt, batch 1, with lesson 12's reference ``generate`` (KV cache) and
   ``generate_without_cache``. The two runs alternate ``--repeats`` times and the
   medians are compared. Target: the cache at least 3x faster per token at 512 tokens.
2. Time of one generation step at context lengths 64 to 1024, with and without the
   cache (the lesson's ``step_times``, the fastest of 9 rounds: other jobs on the
   machine only add time; the lesson plots them).
3. The cache's bytes at those lengths against 2 · layers · heads · d_head · length ·
   bytes per element.
4. Peak extra CPU memory of one attention call, (1, 1, len, 64), measured with the
   PyTorch profiler (profile_memory=True; lesson 12's ``peak_memory``), naive attention
   against tiled attention with blocks of 128 keys, for lengths up to 4096.
   Target: tiled at most 1/8 of naive at 4096.

``--record`` writes everything to
``src/transformer_course/checkpoints/inference_benchmark.json``: the lesson shows
those figures when it is graded or tested, the README quotes them, and
``tests/test_12_inference.py`` checks them against the targets and the shipped model.
Times depend on the machine and its load (a shared machine makes them noisy); the
memory figures do not.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import torch

from transformer_course.checkpoints import DIRECTORY
from transformer_course.checkpoints import language_model as shipped_model
from transformer_course.reference import inference as ref

LENGTHS = [64, 128, 256, 512, 1024]
ATTENTION_LENGTHS = [256, 512, 1024, 2048, 4096]
STEP_ROUNDS = 9  # step_times keeps the fastest round of each length
RECORD = DIRECTORY / "inference_benchmark.json"  # what the lesson shows when graded


def generation_times(model, tokens: int, repeats: int) -> tuple[float, float, bool]:
    """Median seconds per generated token without and with the cache, and whether the
    two runs chose the same tokens."""
    vocab_size = model.embedding.num_embeddings
    prompt = torch.randint(0, vocab_size, (1, 16), generator=torch.Generator().manual_seed(0))
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


def cache_bytes(model, lengths: list[int]) -> tuple[list[int], list[int]]:
    """The bytes of one sequence's caches at each length, and the formula's."""
    attn = model.layers[0].attn
    measured, formula = [], []
    for length in lengths:
        caches = model.new_caches(1, length)
        measured.append(sum(c.keys.nbytes + c.values.nbytes for c in caches))
        element = caches[0].keys.element_size()
        formula.append(2 * len(model.layers) * attn.num_heads * attn.d_head * length * element)
    return measured, formula


def memory_peaks(lengths: list[int], block_size: int) -> tuple[list[int], list[int]]:
    """Peak extra bytes of naive and of tiled attention at each length."""
    naive, tiled = [], []
    for n in lengths:
        q = torch.randn(1, 1, n, 64)  # (batch, heads, len, d_head)
        naive.append(ref.peak_memory(ref.naive_attention, q, q, q))
        tiled.append(ref.peak_memory(ref.tiled_attention, q, q, q, block_size))
    return naive, tiled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--block-size", type=int, default=128)
    parser.add_argument("--record", action="store_true", help=f"write {RECORD}")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    load_before = os.getloadavg()[0]  # other jobs on the machine: 1-minute load average
    config = shipped_model.load_record()["config"]
    model = ref.CachedGPT.from_gpt(shipped_model.load_model())
    sizes = {key: config[key] for key in ("d_model", "num_heads", "d_ff", "num_layers")}
    machine = f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} threads"
    print(f"torch {torch.__version__}, {machine}; lesson 11's GPT: {sizes}")

    slow, fast, same = generation_times(model, args.tokens, args.repeats)
    print(f"\ngeneration of {args.tokens} tokens (prompt 16, batch 1), median of {args.repeats}:")
    print(f"  without cache: {1e3 * slow:8.3f} ms per token")
    print(f"  with cache:    {1e3 * fast:8.3f} ms per token")
    print(f"  speed-up {slow / fast:.1f}x (target >= 3x); same tokens: {same}")

    steps = ref.step_times(model, LENGTHS, repeats=STEP_ROUNDS)
    print(f"\none generation step (batch 1), the fastest of {STEP_ROUNDS} rounds:")
    for length, without, with_cache in zip(
        LENGTHS, steps["without cache"], steps["with cache"], strict=True
    ):
        print(
            f"  context {length:5d}: {1e3 * without:7.2f} ms without, {1e3 * with_cache:6.2f} ms with"
        )

    measured, formula = cache_bytes(model, LENGTHS)
    print("\ncache bytes per sequence (float32): measured / 2 · layers · heads · d_head · len · 4")
    for length, got, expected in zip(LENGTHS, measured, formula, strict=True):
        print(f"  len {length:5d}: {got:>10,} / {expected:>10,}")

    naive, tiled = memory_peaks(ATTENTION_LENGTHS, args.block_size)
    print(f"\npeak extra memory of one attention call, (1, 1, len, 64), block {args.block_size}:")
    for n, naive_peak, tiled_peak in zip(ATTENTION_LENGTHS, naive, tiled, strict=True):
        print(
            f"  len {n:5d}: naive {naive_peak / 2**20:8.2f} MiB, tiled {tiled_peak / 2**20:6.2f} MiB"
        )
    print(
        f"  at {ATTENTION_LENGTHS[-1]}: tiled / naive = 1/{naive[-1] / tiled[-1]:.1f} (target <= 1/8)"
    )

    if args.record:
        record = {
            "made_with": "python benchmarks/inference_benchmark.py --record",
            "model": sizes,
            "machine": (
                f"{machine}, a 2-core machine shared with other jobs (load average "
                f"{load_before:.2f} at the start, {os.getloadavg()[0]:.2f} at the end)"
            ),
            "torch_version": torch.__version__,
            "generation": {
                "tokens": args.tokens,
                "prompt_tokens": 16,
                "repeats": args.repeats,
                "ms_per_token_without_cache": round(1e3 * slow, 3),
                "ms_per_token_with_cache": round(1e3 * fast, 3),
                "same_tokens": same,
            },
            "step_times": {"lengths": LENGTHS, "rounds": STEP_ROUNDS, "seconds": steps},
            "cache_memory": {"lengths": LENGTHS, "bytes": measured, "formula": formula},
            "attention_memory": {
                "block_size": args.block_size,
                "d_head": 64,
                "lengths": ATTENTION_LENGTHS,
                "naive": naive,
                "tiled": tiled,
            },
        }
        RECORD.write_text(json.dumps(record, indent=1) + "\n")
        print(f"\nwrote {RECORD}")


if __name__ == "__main__":
    main()
