"""Real text with no download: the source code of Python's own standard library (lesson 11).

Every Python installation carries a few megabytes of carefully written English and
Python in its standard library. Lesson 11 trains its language model on a fixed list of
those modules, read from ``sysconfig.get_paths()["stdlib"]`` on the learner's machine,
and splits them **by module** (every fifth module of the sorted list is validation), so
that the validation loss measures text the model has never seen, not other windows of
the files it trained on.

The text is tokenised with lesson 01's byte-pair encoding (the reference
``train_bpe_pretokenized`` / ``bpe_encode``). Lesson 01's trainer recounts every pair
of every distinct chunk after each merge, which is exact but slow on megabytes of text;
:func:`train_merges` learns the same kind of merges with incremental counts (after a
merge, only the chunks that contained the merged pair are recounted), which is what
makes a few hundred merges over the whole training split take seconds instead of
minutes. Ties between equally frequent pairs are broken by the smaller pair, so the
result does not depend on dictionary order. :func:`encode` caches each distinct chunk,
since code repeats the same words (``self``, ``return``, four spaces) endlessly.
"""

from __future__ import annotations

import sysconfig
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import torch

from transformer_course.reference.tokenization import (
    bpe_decode,
    bpe_encode,
    merge_pair,
    pretokenize,
)

__all__ = ["MODULES", "StdlibCorpus", "encode", "load_corpus", "read_modules", "train_merges"]

#: the modules, by file name below the stdlib folder; pure Python in CPython 3.10-3.13
MODULES = (
    "argparse ast base64 bisect calendar cmd codecs colorsys configparser contextlib copy "
    "csv dataclasses difflib enum fractions ftplib functools getopt gettext glob gzip heapq "
    "hmac inspect ipaddress locale mailbox numbers operator optparse os pickle platform "
    "pprint queue random reprlib sched secrets selectors shlex shutil smtplib socket "
    "statistics string subprocess tarfile tempfile textwrap threading timeit tokenize trace "
    "traceback typing uuid warnings wave weakref"
).split()
VALIDATION_EVERY = 5  # modules 4, 9, 14, ... of the sorted list are the validation split


def stdlib_folder() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def read_modules(folder: Path | None = None) -> dict[str, str]:
    """{module name: source text} for the modules of MODULES present in ``folder``."""
    folder = stdlib_folder() if folder is None else folder
    texts = {}
    for name in sorted(MODULES):
        path = folder / f"{name}.py"
        if path.exists():
            texts[name] = path.read_text(encoding="utf-8", errors="replace")
    return texts


def split_modules(names: list[str]) -> tuple[list[str], list[str]]:
    """(train, validation) module names: every VALIDATION_EVERY-th of the sorted list is
    validation."""
    ordered = sorted(names)
    validation = ordered[VALIDATION_EVERY - 1 :: VALIDATION_EVERY]
    return [n for n in ordered if n not in validation], validation


def train_merges(text: str, num_merges: int) -> dict[tuple[int, int], int]:
    """Byte-pair merges learned on the chunks of ``pretokenize(text)`` (lesson 01's rule:
    merges never cross a chunk; the i-th merge gets id 256 + i), with incremental
    counts. Ties go to the smaller pair."""
    chunk_counts = Counter(pretokenize(text))
    chunks = [list(chunk.encode("utf-8")) for chunk in chunk_counts]
    weights = list(chunk_counts.values())
    counts: Counter = Counter()
    where: defaultdict[tuple[int, int], set[int]] = defaultdict(set)  # pair -> chunk indices
    for index, ids in enumerate(chunks):
        for pair in zip(ids, ids[1:]):
            counts[pair] += weights[index]
            where[pair].add(index)
    merges: dict[tuple[int, int], int] = {}
    for step in range(num_merges):
        if not counts:
            break
        best = max(counts.items(), key=lambda item: (item[1], (-item[0][0], -item[0][1])))[0]
        new_id = 256 + step
        for index in list(where[best]):
            ids = chunks[index]
            for pair in zip(ids, ids[1:]):  # remove this chunk's old pairs
                counts[pair] -= weights[index]
                if counts[pair] <= 0:
                    del counts[pair]
                where[pair].discard(index)
            ids = chunks[index] = merge_pair(ids, best, new_id)
            for pair in zip(ids, ids[1:]):  # and add its new ones
                counts[pair] += weights[index]
                where[pair].add(index)
        merges[best] = new_id
    return merges


def encode(text: str, merges: dict[tuple[int, int], int]) -> list[int]:
    """lesson 01's ``bpe_encode`` on each chunk of ``pretokenize(text)``, each distinct
    chunk encoded once."""
    cache: dict[str, list[int]] = {}
    ids: list[int] = []
    for chunk in pretokenize(text):
        if chunk not in cache:
            cache[chunk] = bpe_encode(chunk, merges)
        ids.extend(cache[chunk])
    return ids


@dataclass
class StdlibCorpus:
    """The tokenised corpus: ``train`` and ``validation`` as int64 token streams (the
    modules of each split joined, in sorted order), the merges, and which modules went
    where."""

    train: torch.Tensor  # (num_train_tokens,) int64
    validation: torch.Tensor  # (num_validation_tokens,) int64
    merges: dict[tuple[int, int], int]
    train_modules: list[str]
    validation_modules: list[str]
    num_characters: dict[str, int]

    @property
    def vocab_size(self) -> int:
        return 256 + len(self.merges)

    def decode(self, ids) -> str:
        return bpe_decode([int(i) for i in ids], self.merges)

    def split_bytes(self, split: str) -> bytes:
        """The bytes of text that a split's tokens stand for ("train" or "validation"):
        its modules joined, in UTF-8, exactly what a compressor would be given."""
        table = {i: bytes([i]) for i in range(256)}
        for (a, b), new_id in sorted(self.merges.items(), key=lambda item: item[1]):
            table[new_id] = table[a] + table[b]
        tokens = {"train": self.train, "validation": self.validation}[split]
        return b"".join(table[i] for i in tokens.tolist())

    def summary(self) -> str:
        return (
            f"{len(self.train_modules)} training modules ({self.num_characters['train']:,} "
            f"characters, {len(self.train):,} tokens), {len(self.validation_modules)} validation "
            f"modules ({self.num_characters['validation']:,} characters, "
            f"{len(self.validation):,} tokens); vocabulary {self.vocab_size} "
            f"(256 bytes + {len(self.merges)} merges)"
        )


def load_corpus(
    num_merges: int = 256,
    merges: dict[tuple[int, int], int] | None = None,
    folder: Path | None = None,
) -> StdlibCorpus:
    """Read, split and tokenise the modules. ``merges``: use these (e.g. a checkpoint's)
    instead of learning ``num_merges`` new ones from the training split."""
    texts = read_modules(folder)
    if not texts:
        raise FileNotFoundError(f"none of the corpus modules is in {folder or stdlib_folder()}")
    train_names, validation_names = split_modules(list(texts))
    train_text = "\n\n".join(texts[n] for n in train_names)
    validation_text = "\n\n".join(texts[n] for n in validation_names)
    if merges is None:
        merges = train_merges(train_text, num_merges)
    return StdlibCorpus(
        train=torch.tensor(encode(train_text, merges), dtype=torch.int64),
        validation=torch.tensor(encode(validation_text, merges), dtype=torch.int64),
        merges=merges,
        train_modules=train_names,
        validation_modules=validation_names,
        num_characters={"train": len(train_text), "validation": len(validation_text)},
    )
