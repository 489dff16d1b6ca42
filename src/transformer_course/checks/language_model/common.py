"""Lesson 11's shared check machinery: the seeded generators its checks draw from."""

from __future__ import annotations

import torch

from transformer_course.checking.generators import seeded_generator


def _generator(seed: int) -> torch.Generator:
    return seeded_generator(seed)


def _plain_generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)
