"""Test-session setup (one OpenMP thread per worker, tests/ importable) and the fixtures
that several test modules share. Helpers live in tests/common.py."""

import os
import sys
from pathlib import Path

import pytest

# pytest-xdist runs one worker per core: one thread each is fastest, and the kernels
# and nbgrader processes the tests start inherit it. Set before torch is imported.
os.environ.setdefault("OMP_NUM_THREADS", "1")

# Bytecode is cached for the test run even where PYTHONDONTWRITEBYTECODE is set (a CI
# image, a container): the course package is about 100,000 lines, and every process that
# imports it (each nbgrader kernel, each course-grader run and its worker processes, the
# second pytest-xdist worker) would otherwise compile what it imports again: about a CPU
# second for the checks of every lesson, a third of one for a lesson's kernel. The caches
# go where Python puts them by default (``__pycache__``: ignored by git, and left out by
# every copy and comparison of a tree the tests make); the grader's sandbox sets its own
# environment (grader/sandbox.py). Set here, before the workers start: they and what
# they start inherit it.
if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False

sys.path.insert(0, str(Path(__file__).parent))


def pytest_configure(config):
    """One id per test run, shared with pytest-xdist's workers (they inherit it): the
    folder where each lesson notebook's one run is kept (common.validated_notebook).

    Under ``--dist loadgroup`` the groups are dealt to the workers in collection order
    (pytest-xdist would otherwise deal the groups with the most tests first, and every
    test without a group, however long, after them), and the collection puts the
    slowest first (``pytest_collection_modifyitems``): a long group or training run
    started last would leave the other worker idle at the end."""
    if not hasattr(config, "workerinput"):
        if "COURSE_TEST_RUN" not in os.environ:
            import uuid

            os.environ["COURSE_TEST_RUN"] = uuid.uuid4().hex
            config.course_run_owner = True
        if getattr(config.option, "dist", "no") == "loadgroup":
            config.option.loadscopereorder = False


def _group(item) -> str:
    """What pytest-xdist's loadgroup deals as one unit: the xdist_group, or the test."""
    marker = item.get_closest_marker("xdist_group")
    if marker is None:
        return item.nodeid
    return marker.args[0] if marker.args else marker.kwargs.get("name", "default")


def pytest_collection_modifyitems(config, items):
    """The slowest groups first: a group's weight is the largest ``slow`` mark of its
    tests (seconds it takes on CI's two cores, as ``--durations`` measured it); tests
    without one keep their order, after the marked ones."""
    weight: dict[str, float] = {}
    for item in items:
        marker = item.get_closest_marker("slow")
        seconds = float(marker.args[0]) if marker else 0.0
        group = _group(item)
        weight[group] = max(weight.get(group, 0.0), seconds)
    order = {id(item): index for index, item in enumerate(items)}
    items.sort(key=lambda item: (-weight[_group(item)], order[id(item)]))


def pytest_collection_finish(session):
    """The parts of the class of honest submissions this run grades: the lessons' notebook
    runs are read from there (common.validated_notebook)."""
    import common

    groups = {
        marker.args[0]
        for item in session.items
        for marker in item.iter_markers("xdist_group")
        if marker.args
    }
    common.CLASS_PARTS_IN_RUN.update(
        part for part in common.class_parts() if common.class_group(part) in groups
    )


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
