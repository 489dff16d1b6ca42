"""Lesson 11's shipped language model: ``python -m transformer_course.checkpoints.language_model``.

Trains the lesson's default GPT on the standard-library corpus with the lesson's own
functions (``transformer_course.reference.language_model.train_language_model``),
and writes ``language_model.pt`` (the state dict, stored in bfloat16 to stay small)
and ``language_model.json`` (the config, the BPE merges, the curves, the validation
loss against the unigram and bigram baselines, the bits per byte of the whole
validation split against gzip, bz2 and xz on the same bytes, the training time in CPU
and wall-clock seconds with the load average, the machine) next to this file. The
lesson loads both when it is graded or tested, instead of training;
``tests/test_11_language_model.py`` (marked ``pipeline``) retrains, asserts the
targets and compares with the record; ``benchmarks/language_model_budget.py`` records
the other configurations tried and the default's spread over seeds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import torch

__all__ = [
    "NAME",
    "load_budget",
    "load_model",
    "load_record",
    "main",
    "merges",
    "train_and_record",
]

DIRECTORY = Path(__file__).resolve().parent
NAME = "language_model"


def load_record(directory: Path = DIRECTORY) -> dict[str, Any]:
    """The metadata of the shipped model (language_model.json)."""
    return json.loads((directory / f"{NAME}.json").read_text())


def load_budget(directory: Path = DIRECTORY) -> dict[str, dict[str, Any]]:
    """Other ways of spending the training budget, and the default model with other seeds,
    measured like the shipped model (benchmarks/language_model_budget.py), by name."""
    return json.loads((directory / f"{NAME}_budget.json").read_text())


def merges(record: dict[str, Any]) -> dict[tuple[int, int], int]:
    """The BPE merges the shipped model was trained with, as lesson 01's {pair: new_id}."""
    return {(a, b): new_id for a, b, new_id in record["corpus"]["merges"]}


def load_model(record: dict[str, Any] | None = None, directory: Path = DIRECTORY):
    """The shipped GPT (reference classes), float32, in eval mode."""
    from transformer_course.reference import language_model as lm

    record = load_record(directory) if record is None else record
    config = {**lm.DEFAULT_CONFIG, **record["config"]}
    model = lm.build_language_model(record["corpus"]["vocab_size"], config)
    state = torch.load(directory / f"{NAME}.pt", map_location="cpu", weights_only=True)
    model.load_state_dict({key: value.float() for key, value in state.items()})
    return model.eval()


def _rounded(values, digits=4):
    return [round(float(v), digits) for v in values]


def train_and_record(config=None, *, progress=True):
    """(model, corpus, record): a training run of the default model and what it measured."""
    from transformer_course import stdlib_corpus
    from transformer_course.reference import language_model as lm

    start = time.perf_counter()
    corpus = stdlib_corpus.load_corpus()
    corpus_seconds = time.perf_counter() - start
    load_before = os.getloadavg()[0]
    model, history = lm.train_language_model(corpus, config, progress=progress)
    load_average = [round(load_before, 2), round(os.getloadavg()[0], 2)]  # 1-minute, start/end
    config = history["config"]
    with torch.no_grad():  # measure the weights as shipped: rounded to bfloat16
        for parameter in model.parameters():
            parameter.copy_(parameter.to(torch.bfloat16).float())
    validation = lm.estimate_loss(model, corpus.validation, config)
    validation_bytes = corpus.split_bytes("validation")
    bits = lm.bits_per_byte(model, corpus.validation, len(validation_bytes), config["block_size"])
    compressors = lm.compressor_bits_per_byte(validation_bytes, corpus.split_bytes("train"))
    predictions = history["config"]["steps"] * config["batch_size"] * config["block_size"]
    record = {
        "config": config,
        "corpus": {
            "train_modules": corpus.train_modules,
            "validation_modules": corpus.validation_modules,
            "train_tokens": len(corpus.train),
            "validation_tokens": len(corpus.validation),
            "validation_bytes": len(validation_bytes),
            "vocab_size": corpus.vocab_size,
            "seconds_to_read_and_tokenise": round(corpus_seconds, 1),
            "merges": [[a, b, new_id] for (a, b), new_id in corpus.merges.items()],
        },
        "training": {
            "seconds": round(history["seconds"], 1),
            "cpu_seconds": round(history["cpu_seconds"], 1),
            "load_average": load_average,
            "passes": round(predictions / len(corpus.train), 2),
            "tokens_per_second": round(history["tokens_per_second"]),
            "loss": _rounded(history["loss"]),
            "lr": _rounded(history["lr"], 7),
            "val_steps": history["val_steps"],
            "val_loss": _rounded(history["val_loss"]),
        },
        "validation_loss": round(validation, 4),
        "validation_bits_per_byte": round(bits, 4),
        "compressors_bits_per_byte": {name: round(v, 4) for name, v in compressors.items()},
        "baselines": {k: round(v, 4) for k, v in lm.ngram_baselines(corpus, config).items()},
    }
    return model, corpus, record


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--directory", type=Path, default=DIRECTORY)
    args = parser.parse_args(argv)
    model, corpus, record = train_and_record()
    print(corpus.summary())
    training = record["training"]
    print(
        f"trained in {training['cpu_seconds']:.0f} s of CPU time ({training['seconds']:.0f} s wall "
        f"clock, load average {training['load_average']}); validation loss "
        f"{record['validation_loss']:.3f}, bigram {record['baselines']['bigram']:.3f}, "
        f"unigram {record['baselines']['unigram']:.3f}"
    )
    compressors = ", ".join(
        f"{name} {bits:.3f}" for name, bits in record["compressors_bits_per_byte"].items()
    )
    print(f"bits per byte: {record['validation_bits_per_byte']:.3f}; {compressors}")
    record.update(
        {
            "made_with": "python -m transformer_course.checkpoints.language_model",
            "torch_version": torch.__version__,
            "python_version": platform.python_version(),
            "machine": {
                "processor": platform.processor() or platform.machine(),
                "cpu_count": os.cpu_count(),
                "note": "a 2-core machine shared with other jobs",
            },
            "parameters": sum(p.numel() for p in model.parameters()),
        }
    )
    args.directory.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to(torch.bfloat16).clone() for k, v in model.state_dict().items()}
    torch.save(state, args.directory / f"{NAME}.pt")
    (args.directory / f"{NAME}.json").write_text(json.dumps(record, indent=1) + "\n")
    size = (args.directory / f"{NAME}.pt").stat().st_size
    print(f"wrote {args.directory / NAME}.pt ({size / 1e6:.2f} MB) and .json", file=sys.stdout)


if __name__ == "__main__":
    main()
