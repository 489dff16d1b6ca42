"""Remake the shipped translator: ``python -m transformer_course.checkpoints``.

Trains lesson 10's default model with the course's own code, evaluates it on the three
test splits (greedy and beam search), trains the same model with two more seeds and,
for each seed, without label smoothing, runs the lesson's short "what if" experiments,
times training steps on one and two threads, and writes translator.pt and
translator.json next to this file (the json after each stage, so a stage that is cut
short leaves the ones before it). Prints what it measures.
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

CORPUS_ARGUMENTS = {
    "num_train": 8000,
    "num_validation": 500,
    "num_test": 1000,
    "num_combinations": 500,
    "num_longer": 500,
    "seed": 0,
}
BEAM_SIZE, LENGTH_PENALTY = 4, 0.6  # the paper's section 6.1
SEEDS = (0, 1, 2)  # the default model is seed 0; the others measure the run-to-run spread
SMOOTHINGS = (0.1, 0.0)  # the default, and the "what if" without label smoothing
WHAT_IF_EPOCHS = 3
LONG_WHAT_IFS = ("no positional encoding", "no 1/sqrt(d_k) scaling")  # also trained 8 epochs
WHAT_IFS = {
    "baseline": {},
    "no positional encoding": {"positional_encoding": False},
    "no 1/sqrt(d_k) scaling": {"scale_scores": False},
}
TIMED_STEPS = 20  # training steps timed on one and on two threads


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def _scores(scores: dict) -> dict:
    return {"exact_match": round(scores["exact_match"], 6), "bleu": round(scores["bleu"], 4)}


def evaluate_splits(model, corpus, *, beam: bool = True) -> tuple[dict, dict]:
    """(scores, translations) on every test split: greedy, and beam search if `beam`."""
    from transformer_course.reference import training

    scores, translations = {}, {}
    for name in translation.SPLITS:
        pairs = corpus.split(name)
        greedy = training.evaluate(model, corpus, pairs)
        scores[name] = {"size": len(pairs), "greedy": _scores(greedy)}
        translations[name] = {"greedy": greedy["translations"]}
        if beam:
            start = time.perf_counter()
            found = training.evaluate(
                model, corpus, pairs, beam_size=BEAM_SIZE, length_penalty=LENGTH_PENALTY
            )
            scores[name]["beam"] = {
                **_scores(found),
                "seconds": round(time.perf_counter() - start, 1),
            }
            translations[name]["beam"] = found["translations"]
    return scores, translations


def train_and_evaluate(corpus, config=None, *, progress=True, beam=True) -> tuple:
    """(model, record, translations): one training run, its curves and its scores on
    every test split (greedy, and beam search with the paper's settings if `beam`)."""
    from transformer_course.reference import training

    start, cpu = time.perf_counter(), time.process_time()
    model, history = training.train_translator(corpus, config, progress=progress)
    wall = time.perf_counter() - start  # with the validation decoding after each epoch
    cpu = time.process_time() - cpu  # what the other jobs of a busy machine do not slow
    scores, translations = evaluate_splits(model, corpus, beam=beam)
    record = {
        "config": history["config"],
        "training": {
            "seconds": round(history["seconds"], 2),
            "wall_seconds": round(wall, 1),
            "cpu_seconds": round(cpu, 1),
            "tokens_per_second": round(history["tokens_per_second"]),
            "load_average": round(os.getloadavg()[0], 2),
            "steps": len(history["loss"]),
            "epoch_end": history["epoch_end"],
            "loss": _rounded(history["loss"]),
            "lr": _rounded(history["lr"], 8),
            "val_exact_match": _rounded(history["val_exact_match"]),
        },
        "splits": scores,
    }
    return model, record, translations


def time_steps(corpus, threads: int, steps: int = TIMED_STEPS) -> float:
    """Mean seconds per training step of the default model on `threads` CPU threads."""
    from transformer_course.reference import training

    config = {**training.DEFAULT_CONFIG, "num_threads": threads}
    _, history = training.train_translator(corpus, config, max_steps=steps + 2, progress=False)
    return history["seconds"] / (steps + 2)


def retime(corpus, directory: Path) -> None:
    """Train the default model again and record its times in the existing record, if
    the run is the recorded one (the same loss at every step: same machine, same
    seed, one thread); otherwise refuse, since the times would belong to another run."""
    from transformer_course.reference import training

    meta = json.loads((directory / f"{TRANSLATOR}.json").read_text())
    start, cpu = time.perf_counter(), time.process_time()
    _, history = training.train_translator(corpus, progress=False)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    if _rounded(history["loss"]) != meta["training"]["loss"]:
        raise SystemExit("not the recorded run (its losses differ): remake the whole record")
    meta["training"].update(
        seconds=round(history["seconds"], 2),
        wall_seconds=round(wall, 1),
        cpu_seconds=round(cpu, 1),
        tokens_per_second=round(history["tokens_per_second"]),
        load_average=round(os.getloadavg()[0], 2),
    )
    meta["step_seconds"] = {
        str(threads): round(time_steps(corpus, threads), 4) for threads in (1, 2)
    }
    meta["step_seconds"]["load_average"] = round(os.getloadavg()[0], 2)
    print(f"retimed: {meta['training']['seconds']:.0f} s of training; steps {meta['step_seconds']}")
    _write(directory, meta)


def _write(directory: Path, meta: dict, model=None) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    if model is not None:
        state = {name: tensor.detach().clone() for name, tensor in model.state_dict().items()}
        torch.save(state, directory / f"{TRANSLATOR}.pt")
    (directory / f"{TRANSLATOR}.json").write_text(json.dumps(meta, indent=1) + "\n")


def _line(scores: dict) -> str:
    return ", ".join(
        f"{name} {s['greedy']['exact_match']:.1%}"
        + (f" (beam {s['beam']['exact_match']:.1%})" if "beam" in s else "")
        for name, s in scores.items()
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--directory", type=Path, default=DIRECTORY)
    parser.add_argument("--skip-what-if", action="store_true")
    parser.add_argument(
        "--retime",
        action="store_true",
        help="train the default model again and record only its times (training and "
        "steps), keeping everything else: for a record made on a machine busier then",
    )
    args = parser.parse_args(argv)
    from transformer_course.reference import training

    torch.set_num_threads(1)  # as the training loop does: see lesson 10, section 7
    corpus = translation.make_corpus(**CORPUS_ARGUMENTS)
    if args.retime:
        retime(corpus, args.directory)
        return
    print(corpus.summary())
    model, record, translations = train_and_evaluate(corpus)
    print(
        f"trained in {record['training']['seconds']:.0f} s "
        f"({record['training']['tokens_per_second']:,} target tokens/s, load average "
        f"{record['training']['load_average']}); exact match: {_line(record['splits'])}"
    )
    meta = {
        **record,
        "translations": translations,
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
    _write(args.directory, meta, model)
    if args.skip_what_if:
        return

    seeds: dict[str, dict[str, dict]] = {}  # smoothing -> seed -> split scores
    for smoothing in SMOOTHINGS:
        runs = seeds.setdefault(str(smoothing), {})
        for seed in SEEDS:
            if smoothing == training.DEFAULT_CONFIG["smoothing"] and seed == 0:
                runs[str(seed)] = record["splits"]  # the default model itself
                continue
            beam = smoothing == training.DEFAULT_CONFIG["smoothing"] or seed == 0
            config = {"seed": seed, "smoothing": smoothing}
            _, run, _ = train_and_evaluate(corpus, config, progress=False, beam=beam)
            runs[str(seed)] = run["splits"]
            print(f"smoothing {smoothing}, seed {seed}: {_line(run['splits'])}")
            meta["seeds"] = seeds
            _write(args.directory, meta)

    what_if = {}
    for name, change in WHAT_IFS.items():
        start = time.perf_counter()
        run, history = training.train_translator(
            corpus, {**change, "epochs": WHAT_IF_EPOCHS}, progress=False
        )
        scores = training.evaluate(run, corpus, corpus.test)
        wall = time.perf_counter() - start  # what the lesson's live cell takes per run
        what_if[name] = {
            "change": change,
            "loss": _rounded(history["loss"]),
            "val_exact_match": _rounded(history["val_exact_match"]),
            "test_exact_match": scores["exact_match"],
            "test_bleu": scores["bleu"],
            "seconds": round(history["seconds"], 1),
            "wall_seconds": round(wall, 1),
            "load_average": round(os.getloadavg()[0], 2),
            "examples": scores["translations"][:40],
        }
        print(f"what if, {name}: test exact match {scores['exact_match']:.1%}")
    meta["what_if"] = {"epochs": WHAT_IF_EPOCHS, "runs": what_if, "long_runs": {}}
    _write(args.directory, meta)
    for name in LONG_WHAT_IFS:  # as many epochs as the default model
        run, history = training.train_translator(corpus, WHAT_IFS[name], progress=False)
        scores = training.evaluate(run, corpus, corpus.test)
        meta["what_if"]["long_runs"][name] = {
            "change": WHAT_IFS[name],
            "val_exact_match": _rounded(history["val_exact_match"]),
            "test_exact_match": scores["exact_match"],
            "test_bleu": scores["bleu"],
            "seconds": round(history["seconds"], 1),
        }
        print(
            f"what if, {name}, {len(history['val_exact_match'])} epochs: "
            f"test exact match {scores['exact_match']:.1%}, BLEU {scores['bleu']:.1f}"
        )
        _write(args.directory, meta)

    meta["step_seconds"] = {
        str(threads): round(time_steps(corpus, threads), 4) for threads in (1, 2)
    }
    meta["step_seconds"]["load_average"] = round(os.getloadavg()[0], 2)
    print(f"seconds per training step: {meta['step_seconds']}")
    _write(args.directory, meta)
    size = (args.directory / f"{TRANSLATOR}.pt").stat().st_size
    print(f"wrote {args.directory / TRANSLATOR}.pt ({size / 1e6:.2f} MB) and .json")


if __name__ == "__main__":
    main()
