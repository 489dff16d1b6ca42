"""Test-session setup (one OpenMP thread per worker, tests/ importable) and the fixtures
that several test modules share. Helpers live in tests/common.py."""

import os
import sys
from pathlib import Path

import pytest

# pytest-xdist runs one worker per core: one thread each is fastest, and the kernels
# and nbgrader processes the tests start inherit it. Set before torch is imported.
os.environ.setdefault("OMP_NUM_THREADS", "1")

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def no_fastpath():
    """PyTorch's eval "fast path" returns zeros at padded positions (nested tensors); the
    oracles compare the plain computation. A module uses it with
    ``pytestmark = pytest.mark.usefixtures("no_fastpath")``."""
    import torch

    before = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    yield
    torch.backends.mha.set_fastpath_enabled(before)
