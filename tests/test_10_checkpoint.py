"""Lesson 10's shipped checkpoint: small and documented, its recorded scores reproduced,
training that writes its progress to stdout only, and (marked ``pipeline``) a full training
run of the default model that must reach the lesson's target and agree with the record
within the recorded spread."""

from __future__ import annotations

import io
import json
import time
from contextlib import redirect_stdout

import numpy as np
import pytest

from transformer_course import checkpoints, translation
from transformer_course.reference import training as ref


# ======================================================================= checkpoint
def test_checkpoint_is_small_and_documented():
    path = checkpoints.DIRECTORY / "translator.pt"
    assert path.stat().st_size < 2_000_000
    meta = checkpoints.translator_metadata()
    for key in ("config", "corpus", "training", "splits", "translations", "seeds", "what_if"):
        assert key in meta, key
    assert meta["config"] == ref.DEFAULT_CONFIG
    splits = meta["splits"]
    assert set(splits) == set(translation.SPLITS)
    # the lesson's targets: >= 95% on the in-distribution split in at most 3 minutes;
    # the harder splits are reported, and stay below 100%
    assert splits["test"]["greedy"]["exact_match"] >= 0.95
    assert meta["training"]["seconds"] <= 180
    assert all(splits[name]["greedy"]["exact_match"] < 1 for name in ("combinations", "longer"))
    # the lesson prints these instead of typing them (sections 8 and 10)
    for smoothing in ("0.1", "0.0"):
        assert set(meta["seeds"][smoothing]) == {"0", "1", "2"}, smoothing
    assert meta["seeds"]["0.1"]["0"] == splits
    assert set(meta["what_if"]["long_runs"]) == {"no positional encoding", "no 1/sqrt(d_k) scaling"}
    for name, run in meta["what_if"]["runs"].items():
        assert {"val_exact_match", "test_exact_match", "test_bleu", "wall_seconds"} <= set(run), (
            name
        )
    # the times the lesson prints before a live run (training, beam search, what-ifs)
    assert meta["training"]["wall_seconds"] >= meta["training"]["seconds"] > 0
    assert all(splits[name]["beam"]["seconds"] > 0 for name in translation.SPLITS)
    assert {"1", "2", "load_average"} <= set(meta["step_seconds"])
    json.dumps(meta)  # plain data


def test_checkpoint_reproduces_its_recorded_scores():
    """Loading the shipped weights and decoding each test split gives the recorded
    scores and translations (greedy decoding of fixed weights: only float summation
    order can differ)."""
    model, corpus, meta = checkpoints.load_translator()
    for name in translation.SPLITS:
        scores = ref.evaluate(model, corpus, corpus.split(name))
        recorded = meta["splits"][name]["greedy"]
        assert scores["exact_match"] == pytest.approx(recorded["exact_match"], abs=0.002), name
        same = np.mean(
            [a == b for a, b in zip(scores["translations"], meta["translations"][name]["greedy"])]
        )
        assert same >= 0.99, name


def test_training_writes_progress_to_stdout_only(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_STATIC_FIGURES", "1")
    corpus = translation.make_corpus(200, 20, 0, 0, 0, seed=1)
    _, history = ref.train_translator(corpus, {"epochs": 1}, max_steps=3)
    out = capsys.readouterr()
    assert out.err == ""
    assert "training" in out.out or "epoch" in out.out
    assert len(history["loss"]) == 3 and len(history["lr"]) == 3


@pytest.mark.pipeline
@pytest.mark.slow(130)  # started first by pytest-xdist (tests/conftest.py)
def test_default_training_reaches_the_target_and_matches_the_checkpoint():
    """The lesson's claims: the default small model reaches at least 95% exact match on
    the in-distribution split (fixed seed), the harder splits stay below 100%, and beam
    search beats greedy decoding by no more than the recorded run-to-run spread wherever
    the lesson says so (section 8). Retrained with the course's own code, it is compared
    with the shipped checkpoint's scores within a tolerance taken from the record: on
    another machine or thread count CPU kernels add in another order, the weights differ
    in their last bits from the first step on, and training drifts as it would with
    another seed (a fresh clone on another machine of the course's kind got 97.9% where
    the record said 96.8%). So the tolerance of each split and decoder is twice the
    spread (largest minus smallest) of its three recorded seeds: the range of three
    draws is about 1.7 standard deviations, and a fourth draw can land further from any
    one of them than that. On the machine that made the record the run is bit-for-bit
    the same. (Not a timing test: the time is printed.)"""
    from transformer_course.checkpoints.__main__ import CORPUS_ARGUMENTS, train_and_evaluate

    corpus = translation.make_corpus(**CORPUS_ARGUMENTS)
    start = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        _, record, _ = train_and_evaluate(corpus, progress=False)
    splits = record["splits"]
    print(
        f"trained in {record['training']['seconds']:.1f} s (wall "
        f"{time.perf_counter() - start:.1f} s, load average "
        f"{record['training']['load_average']}); exact match, greedy / beam: "
        + ", ".join(
            f"{name} {s['greedy']['exact_match']:.1%} / {s['beam']['exact_match']:.1%}"
            for name, s in splits.items()
        )
    )
    assert splits["test"]["greedy"]["exact_match"] >= 0.95
    assert all(splits[name]["greedy"]["exact_match"] < 1 for name in ("combinations", "longer"))
    meta = checkpoints.translator_metadata()
    summary = ref.seed_summary(meta["seeds"]["0.1"])
    for name in translation.SPLITS:
        for decoder in ("greedy", "beam"):
            got, recorded = splits[name][decoder], meta["splits"][name][decoder]
            # at least two sentences of the split, should the three seeds agree
            tolerance = max(2 * summary[name][decoder]["spread"], 2 / meta["splits"][name]["size"])
            assert got["exact_match"] == pytest.approx(recorded["exact_match"], abs=tolerance), (
                name,
                decoder,
                tolerance,
            )
    for name, wins in ref.beam_verdict(meta["seeds"]["0.1"]).items():
        gain = splits[name]["beam"]["exact_match"] - splits[name]["greedy"]["exact_match"]
        spread = max(summary[name]["beam"]["spread"], summary[name]["greedy"]["spread"])
        assert (gain > spread) == wins, name  # a fresh run agrees with the lesson's claim


def test_seed_summary_and_beam_verdict():
    runs = {
        str(seed): {"a": {"greedy": {"exact_match": g}, "beam": {"exact_match": b}}}
        for seed, (g, b) in enumerate([(0.5, 0.7), (0.6, 0.75), (0.55, 0.8)])
    }
    summary = ref.seed_summary(runs)["a"]
    assert summary["greedy"]["mean"] == pytest.approx(0.55)
    assert summary["greedy"]["spread"] == pytest.approx(0.1)
    assert summary["beam"]["spread"] == pytest.approx(0.1)
    assert ref.beam_verdict(runs) == {"a": True}  # gain 0.2 > spread 0.1
    runs["0"]["a"]["beam"]["exact_match"] = 0.5  # spread 0.3 > gain 0.133
    assert ref.beam_verdict(runs) == {"a": False}
