"""Trained weights shipped with the course, made by the course's own code.

``translator.pt`` holds the state dict of lesson 10's default Transformer, trained
on :func:`transformer_course.translation.make_corpus` with
``transformer_course.reference.training.train_translator`` (the lesson's own
functions, exported from its master). ``translator.json`` holds what the lesson
shows when it does not train live (while graded, or when its notebook is executed
by the tests): the configuration and seed, the corpus and its vocabularies, the
loss and learning rate of every step, the validation accuracy of every epoch, the
test scores (greedy and beam search), the short "what if" runs, the training time,
the machine and the torch version.

Remake both with ``python -m transformer_course.checkpoints`` (a few minutes of
training on 2 CPU cores, plus the "what if" runs); ``tests/test_10_checkpoint.py``
retrains the model and compares its accuracy with the one recorded here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

__all__ = ["DIRECTORY", "TRANSLATOR", "load_translator", "translator_metadata"]

DIRECTORY = Path(__file__).resolve().parent
TRANSLATOR = "translator"


def translator_metadata(directory: Path = DIRECTORY) -> dict[str, Any]:
    """The metadata of the shipped translator (translator.json)."""
    return json.loads((directory / f"{TRANSLATOR}.json").read_text())


def load_translator(corpus=None, directory: Path = DIRECTORY):
    """(model, corpus, metadata): the shipped translator in eval mode, the corpus it was
    trained on (regenerated from the recorded seed and sizes), and its metadata.

    Raises ValueError when the regenerated corpus's vocabularies differ from the
    recorded ones (the generator changed since the checkpoint was made: remake it).
    """
    from transformer_course import translation
    from transformer_course.reference import training

    meta = translator_metadata(directory)
    if corpus is None:
        corpus = translation.make_corpus(**meta["corpus"]["arguments"])
    if corpus.src_vocab != meta["corpus"]["src_vocab"] or (
        corpus.tgt_vocab != meta["corpus"]["tgt_vocab"]
    ):
        raise ValueError(
            "the corpus's vocabularies differ from the checkpoint's: the generator has "
            "changed since it was made; remake it with `python -m transformer_course.checkpoints`"
        )
    model = training.build_model(corpus, {**training.DEFAULT_CONFIG, **meta["config"]})
    state = torch.load(directory / f"{TRANSLATOR}.pt", map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    model.eval()
    return model, corpus, meta
