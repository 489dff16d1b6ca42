"""How lesson 11's default model spends its 5-minute budget: a few other ways to spend it,
and the default with other seeds, each trained and measured exactly as the shipped model
(``transformer_course.checkpoints.language_model.train_and_record``: the lesson's own
training loop, the weights rounded to bfloat16, the validation loss on the lesson's
windows, bits per byte over the whole validation split). A benchmark, not a test: run it
by hand, one configuration at a time if you like (each takes a few minutes).

    python benchmarks/language_model_budget.py                  # list the configurations
    python benchmarks/language_model_budget.py --run all --record
    python benchmarks/language_model_budget.py --run "seed 1" "seed 2" --record

``--record`` merges the results, by name, into
``src/transformer_course/checkpoints/language_model_budget.json``, which the README
quotes and ``tests/test_11_language_model.py`` reads: the seeds' spread is the
tolerance within which a retrained default model must match the shipped record.
Compare configurations by their loss at a similar CPU time: on a shared machine the
wall-clock time depends on the other jobs (the load average is recorded), the CPU time
much less.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import torch

from transformer_course.checkpoints import DIRECTORY
from transformer_course.checkpoints import language_model as shipped
from transformer_course.reference import language_model as lm

RECORD = DIRECTORY / "language_model_budget.json"
SHAPE = {"d_model": 128, "num_heads": 4, "d_ff": 352, "num_layers": 3, "block_size": 128}
CONFIGS = {  # name: the changes to lesson 11's DEFAULT_CONFIG
    "before: 400 steps, lr 3e-3": {**SHAPE, "steps": 400, "batch_size": 32, "lr": 3e-3},
    "560 steps, lr 3e-3": {**SHAPE, "steps": 560, "batch_size": 32, "lr": 3e-3},
    "700 steps, lr 6e-3": {**SHAPE, "steps": 700, "batch_size": 32, "lr": 6e-3},
    "seed 1": {"seed": 1},  # the default model, other seeds: the run-to-run spread
    "seed 2": {"seed": 2},
}


def measure(name: str) -> dict:
    """Train one configuration and return what the shipped record would say about it."""
    _, _, record = shipped.train_and_record(CONFIGS[name], progress=False)
    training = record["training"]
    return {
        "changes": CONFIGS[name],
        "config": record["config"],
        "validation_loss": record["validation_loss"],
        "validation_bits_per_byte": record["validation_bits_per_byte"],
        "val_steps": training["val_steps"],
        "val_loss": training["val_loss"],
        "cpu_seconds": training["cpu_seconds"],
        "seconds": training["seconds"],
        "load_average": training["load_average"],
        "passes": training["passes"],
        "torch_version": torch.__version__,
        "cpu_count": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", nargs="*", default=[], help='names, or "all"')
    parser.add_argument("--record", action="store_true", help=f"merge the results into {RECORD}")
    args = parser.parse_args()
    names = list(CONFIGS) if args.run == ["all"] else args.run
    if not names:
        print(f"lesson 11's default: {lm.DEFAULT_CONFIG}")
        for name, changes in CONFIGS.items():
            print(f"  {name!r}: {changes}")
        return
    unknown = [name for name in names if name not in CONFIGS]
    if unknown:
        parser.error(f"unknown configurations {unknown}; known: {list(CONFIGS)}")
    for name in names:
        result = measure(name)
        print(
            f"{name}: validation loss {result['validation_loss']:.4f}, "
            f"{result['validation_bits_per_byte']:.4f} bits per byte, "
            f"{result['cpu_seconds']:.0f} s CPU ({result['seconds']:.0f} s wall, load average "
            f"{result['load_average']}), {result['passes']:.2f} passes",
            flush=True,
        )
        if args.record:  # read just before writing: runs in parallel each add their own
            results = json.loads(RECORD.read_text()) if RECORD.exists() else {}
            results[name] = result
            RECORD.write_text(json.dumps(results, indent=1) + "\n")
    if args.record:
        print(f"wrote {RECORD}")


if __name__ == "__main__":
    main()
