"""Where the test suite's CPU time goes, measured so that other jobs on the machine do not
change the figures: a pytest plugin that records, for every test (setup, call and
teardown), the CPU time of the pytest process and of the child processes it waited for
(nbgrader, kernels, course-grader, browsers), next to its wall time. Processes that no
process of the test waited for (parts of the grader's sandboxes) are not counted: the
totals are a lower bound (a cgroup's CPU accounting sees everything).

On a shared machine ``--durations`` measures the load as much as the tests; CPU time does
not, and the sum over the tests is the work that two CI cores must do (wall time on two
cores is at least half of it)::

    make test PYTEST_ARGS="-n 2 --dist loadgroup -p benchmarks.cpu_time"
    .venv/bin/python -m benchmarks.cpu_time            # the summary of that run

Each pytest-xdist worker appends one JSON line per test to ``<folder>/<worker>.jsonl``;
the folder is ``$COURSE_CPU_TIME`` (default ``.cpu-time/`` in the repository, which git
ignores; a new run starts it afresh).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections import Counter
from pathlib import Path

import pytest

FOLDER = Path(os.environ.get("COURSE_CPU_TIME", Path(__file__).resolve().parents[1] / ".cpu-time"))


def _cpu() -> tuple[float, float]:
    """CPU seconds (user + system) of this process, and of its waited-for children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def pytest_configure(config):
    """The controller (or a run without xdist) empties the folder before the tests start."""
    if not hasattr(config, "workerinput"):
        FOLDER.mkdir(parents=True, exist_ok=True)
        for old in FOLDER.glob("*.jsonl"):
            old.unlink()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    (own0, children0), wall0 = _cpu(), time.perf_counter()
    yield
    (own1, children1), wall1 = _cpu(), time.perf_counter()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    record = {
        "id": item.nodeid,
        "cpu": round(own1 - own0 + children1 - children0, 3),
        "children": round(children1 - children0, 3),
        "wall": round(wall1 - wall0, 3),
    }
    with (FOLDER / f"{worker}.jsonl").open("a") as out:
        out.write(json.dumps(record) + "\n")


def records(folder: Path = FOLDER) -> list[dict]:
    return [json.loads(line) for path in sorted(folder.glob("*.jsonl")) for line in path.open()]


def summary(found: list[dict], top: int = 25) -> str:
    """Total CPU and wall seconds, the test files by CPU time, and the costliest tests."""
    cpu = sum(r["cpu"] for r in found)
    by_file: Counter = Counter()
    for r in found:
        by_file[r["id"].split("::")[0]] += r["cpu"]
    lines = [
        f"{len(found)} tests: {cpu:.0f} CPU seconds (at least {cpu / 2:.0f} s of wall time on "
        f"two cores), {sum(r['wall'] for r in found):.0f} s of wall time summed over the tests",
        "",
        "CPU s   share  test file",
    ]
    lines += [f"{s:7.1f} {100 * s / cpu:5.1f}%  {name}" for name, s in by_file.most_common()]
    lines += ["", "CPU s   wall s  test"]
    costliest = sorted(found, key=lambda r: -r["cpu"])[:top]
    lines += [f"{r['cpu']:7.1f} {r['wall']:7.1f}  {r['id']}" for r in costliest]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=FOLDER)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    found = records(args.folder)
    if not found:
        raise SystemExit(f"no records in {args.folder}: run pytest with -p benchmarks.cpu_time")
    print(summary(found, args.top))


if __name__ == "__main__":
    main()
