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


def pytest_configure(config):
    """One id per test run, shared with pytest-xdist's workers (they inherit it): the
    folder where each lesson notebook's one run is kept (common.validated_notebook)."""
    if not hasattr(config, "workerinput") and "COURSE_TEST_RUN" not in os.environ:
        import uuid

        os.environ["COURSE_TEST_RUN"] = uuid.uuid4().hex
        config.course_run_owner = True


def pytest_sessionfinish(session):
    """The run that made the id removes the notebooks' runs it kept."""
    if getattr(session.config, "course_run_owner", False):
        import shutil

        from common import validated_folder

        shutil.rmtree(validated_folder(), ignore_errors=True)


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
