"""Lesson 01's exercises, as the registry reads them (re-exported by the package)."""

from __future__ import annotations

from transformer_course.exercise import Exercise

from .bpe_codec import check_bpe_decode, check_bpe_encode
from .bpe_training import check_train_bpe
from .lookup import check_decode, check_encode
from .padding import check_pad_batch
from .pairs import check_get_pair_counts, check_merge_pair
from .quizzes import check_quiz_merge_order, check_quiz_unk
from .vocab import check_build_vocab
from .words import check_tokenize

LESSON = "01_tokenization"
EXERCISES = (
    Exercise("tokenize", check_tokenize, kind="function", points=2, minutes=10, level=1),
    Exercise("build_vocab", check_build_vocab, kind="function", points=2, minutes=15, level=2),
    Exercise("encode", check_encode, kind="function", points=1, minutes=5, level=1),
    Exercise("decode", check_decode, kind="function", points=1, minutes=5, level=1),
    Exercise("quiz_unk", check_quiz_unk, kind="quiz", points=1, minutes=3, level=1),
    Exercise("pad_batch", check_pad_batch, kind="function", points=1, minutes=10, level=2),
    Exercise(
        "get_pair_counts", check_get_pair_counts, kind="function", points=1, minutes=10, level=1
    ),
    Exercise("merge_pair", check_merge_pair, kind="function", points=1, minutes=15, level=2),
    Exercise("train_bpe", check_train_bpe, kind="function", points=2, minutes=20, level=3),
    Exercise("quiz_merge_order", check_quiz_merge_order, kind="quiz", points=1, minutes=5, level=2),
    Exercise("bpe_encode", check_bpe_encode, kind="function", points=2, minutes=20, level=3),
    Exercise("bpe_decode", check_bpe_decode, kind="function", points=1, minutes=10, level=2),
)
