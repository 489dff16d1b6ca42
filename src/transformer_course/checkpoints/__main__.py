"""Remake the shipped translator: ``python -m transformer_course.checkpoints``.

Trains lesson 10's default model with the course's own code, evaluates it, runs the
lesson's short "what if" experiments, and writes translator.pt and translator.json
next to this file. Prints the training time and the test accuracy.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import torch

from transformer_course import translation
from transformer_course.checkpoints import DIRECTORY, TRANSLATOR

CORPUS_ARGUMENTS = {"num_train": 6000, "num_validation": 500, "num_test": 1000, "seed": 0}
BEAM_SIZE, LENGTH_PENALTY = 4, 0.6  # the paper's section 6.1
WHAT_IF_EPOCHS = 3
LONG_WHAT_IFS = ("no positional encoding", "no 1/sqrt(d_k) scaling")  # also trained 8 epochs
WHAT_IFS = {
    "baseline": {},
    "no positional encoding": {"positional_encoding": False},
    "no 1/sqrt(d_k) scaling": {"scale_scores": False},
}


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def train_and_evaluate(corpus, config=None, *, progress=True) -> tuple:
    """(model, record): the default training run, its curves and its test scores."""
    from transformer_course.reference import training

    model, history = training.train_translator(corpus, config, progress=progress)
    greedy = training.evaluate(model, corpus, corpus.test)
    record = {
        "config": history["config"],
        "training": {
            "seconds": round(history["seconds"], 2),
            "tokens_per_second": round(history["tokens_per_second"]),
            "steps": len(history["loss"]),
            "epoch_end": history["epoch_end"],
            "loss": _rounded(history["loss"]),
            "lr": _rounded(history["lr"], 8),
            "val_exact_match": _rounded(history["val_exact_match"]),
        },
        "test": {"greedy": {k: greedy[k] for k in ("exact_match", "bleu")}},
    }
    return model, record


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--directory", type=Path, default=DIRECTORY)
    parser.add_argument("--skip-what-if", action="store_true")
    args = parser.parse_args(argv)
    from transformer_course.reference import training

    torch.set_num_threads(1)  # as the training loop does: see lesson 10, section 7

    corpus = translation.make_corpus(**CORPUS_ARGUMENTS)
    print(corpus.summary())
    model, record = train_and_evaluate(corpus)
    start = time.perf_counter()
    beam = training.evaluate(
        model, corpus, corpus.test, beam_size=BEAM_SIZE, length_penalty=LENGTH_PENALTY
    )
    record["test"]["beam"] = {
        "beam_size": BEAM_SIZE,
        "length_penalty": LENGTH_PENALTY,
        "exact_match": beam["exact_match"],
        "bleu": beam["bleu"],
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(
        f"trained in {record['training']['seconds']:.0f} s "
        f"({record['training']['tokens_per_second']:,} target tokens/s); test exact match: "
        f"greedy {record['test']['greedy']['exact_match']:.1%}, "
        f"beam {beam['exact_match']:.1%}; BLEU {record['test']['greedy']['bleu']:.1f}"
    )
    what_if = {}
    if not args.skip_what_if:
        for name, change in WHAT_IFS.items():
            run, history = training.train_translator(
                corpus, {**change, "epochs": WHAT_IF_EPOCHS}, progress=False
            )
            scores = training.evaluate(run, corpus, corpus.test)
            what_if[name] = {
                "change": change,
                "loss": _rounded(history["loss"]),
                "val_exact_match": _rounded(history["val_exact_match"]),
                "test_exact_match": scores["exact_match"],
                "test_bleu": scores["bleu"],
                "examples": scores["translations"][:20],
            }
            print(f"what if, {name}: test exact match {scores['exact_match']:.1%}")
    long_runs = {}
    if not args.skip_what_if:
        for name in LONG_WHAT_IFS:  # as many epochs as the default model
            run, history = training.train_translator(corpus, WHAT_IFS[name], progress=False)
            scores = training.evaluate(run, corpus, corpus.test)
            long_runs[name] = {
                "change": WHAT_IFS[name],
                "val_exact_match": _rounded(history["val_exact_match"]),
                "test_exact_match": scores["exact_match"],
                "test_bleu": scores["bleu"],
            }
            print(
                f"what if, {name}, {len(history['val_exact_match'])} epochs: "
                f"test exact match {scores['exact_match']:.1%}, BLEU {scores['bleu']:.1f}"
            )
    meta = {
        **record,
        "what_if": {"epochs": WHAT_IF_EPOCHS, "runs": what_if, "long_runs": long_runs},
        "corpus": {
            "arguments": CORPUS_ARGUMENTS,
            "src_vocab": corpus.src_vocab,
            "tgt_vocab": corpus.tgt_vocab,
        },
        "made_with": "python -m transformer_course.checkpoints",
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "machine": {
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
        },
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    args.directory.mkdir(parents=True, exist_ok=True)
    state = {name: tensor.detach().clone() for name, tensor in model.state_dict().items()}
    torch.save(state, args.directory / f"{TRANSLATOR}.pt")
    (args.directory / f"{TRANSLATOR}.json").write_text(json.dumps(meta, indent=1) + "\n")
    size = (args.directory / f"{TRANSLATOR}.pt").stat().st_size
    print(f"wrote {args.directory / TRANSLATOR}.pt ({size / 1e6:.2f} MB) and .json")


if __name__ == "__main__":
    main()
