"""Throughput of course-grader against serial ``nbgrader autograde``, on the same submissions.

    .venv/bin/python benchmarks/grade_benchmark.py                  # lesson 04, 12 submissions
    .venv/bin/python benchmarks/grade_benchmark.py --lesson 01_tokenization -n 20
    .venv/bin/python benchmarks/grade_benchmark.py --workers 1 2 4

In a scratch course directory it makes N synthetic submissions of one lesson (solved,
untouched and half-solved, in turn), grades them once with ``nbgrader autograde``
(serial, as grade.sh did) and once with course-grader per worker count (each run
from a cold start: worker processes, sandboxes and imports included), checks that
the scores agree, and reports wall times, the throughput ratio, how course-grader
scales with workers, and the sandbox's own per-submission overhead (forking a fresh
learner process from the pre-started zygote, setting it up, and tearing it down),
which replaces nbgrader's kernel start. Not a test: timings depend on the machine and
its load, which the report shows.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from transformer_course import registry
from transformer_course.build import REPO, tool_env

MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def _cells(lesson: str, which: str) -> dict:
    return json.loads((REPO / which / lesson / f"{lesson}.ipynb").read_text())


def _solutions(lesson: str) -> dict[str, str]:
    found = {}
    for cell in _cells(lesson, "solutions")["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            found[meta["grade_id"]] = "\n".join(
                line for line in text.splitlines() if line.strip() not in MARKERS
            )
    return found


def synthetic_submissions(lesson: str, count: int) -> list[tuple[str, bytes]]:
    solved = _solutions(lesson)
    names = [ex.name for ex in registry.exercises(lesson)]
    variants = [solved, {}, {name: solved[name] for name in names[: len(names) // 2]}]
    release = _cells(lesson, "notebooks")
    made = []
    for index in range(count):
        answers = variants[index % len(variants)]
        nb = copy.deepcopy(release)
        for cell in nb["cells"]:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id in answers:
                cell["source"] = answers[grade_id]
        made.append((f"student{index:03d}", json.dumps(nb).encode()))
    return made


def make_course(root: Path, lesson: str, submissions) -> Path:
    root.mkdir(parents=True)
    shutil.copy2(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    (root / "autograde").mkdir()
    shutil.copy2(REPO / "autograde" / "nbgrader_config.py", root / "autograde")
    for which in ("solutions", "notebooks"):
        (root / which / lesson).mkdir(parents=True)
        shutil.copy2(REPO / which / lesson / f"{lesson}.ipynb", root / which / lesson)
    for student, data in submissions:
        folder = root / "autograde" / "submitted" / student / lesson
        folder.mkdir(parents=True)
        (folder / f"{lesson}.ipynb").write_bytes(data)
    return root


def run(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=tool_env())
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return elapsed


def gradebook_scores(db_url: str, lesson: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(db_url) as gradebook:
        return {s.student.id: float(s.score) for s in gradebook.assignment_submissions(lesson)}


def sandbox_overhead(repeat: int) -> dict[str, float]:
    """Fork, set up and tear down a learner process from a warm zygote (what replaces
    starting a Jupyter kernel and importing torch for every submission)."""
    from transformer_course.grader import codec, sandbox

    started = time.perf_counter()
    zygote = sandbox.acquire()
    cold = time.perf_counter() - started
    limits = sandbox.Limits()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        process = zygote.spawn(limits)
        codec.send_message(process.sock, {"op": "setup", "id": 1, "modules": {}, "guarded": {}})
        codec.recv_message(process.sock, time.monotonic() + 60)
        codec.send_message(process.sock, {"op": "exec", "id": 2, "cell": 0,
                                          "source": "import numpy, torch\nx = torch.ones(3)"})  # fmt: skip
        codec.recv_message(process.sock, time.monotonic() + 60)
        process.close()
        times.append(time.perf_counter() - started)
    sandbox.release(zygote)
    sandbox.shutdown()
    return {"zygote_start_s": cold, "per_submission_s": statistics.median(times),
            "mode": zygote.isolation.mode}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lesson", default="04_attention")
    parser.add_argument("-n", type=int, default=12, help="number of submissions (12)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--skip-nbgrader", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args(argv)
    submissions = synthetic_submissions(args.lesson, args.n)
    scratch = Path(tempfile.mkdtemp(prefix="grade-benchmark-"))
    report: dict = {"lesson": args.lesson, "n": args.n, "cores": os.cpu_count(),
                    "load_before": os.getloadavg()}  # fmt: skip
    python = sys.executable
    print(f"{args.n} submissions of {args.lesson}; {os.cpu_count()} cores; "
          f"load average before: {report['load_before'][0]:.2f}", flush=True)  # fmt: skip
    try:
        if not args.skip_nbgrader:
            course = make_course(scratch / "nbgrader", args.lesson, submissions)
            report["nbgrader_generate_s"] = run(
                [python, "-m", "nbgrader", "generate_assignment", args.lesson, "--force"], course
            )
            seconds = run([python, "-m", "nbgrader", "autograde", args.lesson], course)
            report["nbgrader_s"] = seconds
            print(f"nbgrader autograde (serial): {seconds:.1f} s, {seconds / args.n:.2f} s per submission",
                  flush=True)  # fmt: skip
            reference = gradebook_scores(f"sqlite:///{course}/autograde/gradebook.db", args.lesson)
        for workers in args.workers:
            course = make_course(scratch / f"ours-{workers}", args.lesson, submissions)
            command = [python, "-m", "transformer_course.grader", args.lesson, "--course-dir",
                       str(course), "--workers", str(workers), "--quiet"]  # fmt: skip
            run([python, "-m", "nbgrader", "generate_assignment", args.lesson, "--force"], course)
            seconds = run(command, course)
            report[f"ours_{workers}_s"] = seconds
            line = f"course-grader, {workers} worker(s): {seconds:.1f} s, {seconds / args.n:.2f} s per submission"
            if "nbgrader_s" in report:
                ours = gradebook_scores(f"sqlite:///{course}/autograde/gradebook.db", args.lesson)
                if ours != reference:
                    raise SystemExit(f"the scores differ:\nnbgrader {reference}\nours     {ours}")
                line += (
                    f", {report['nbgrader_s'] / seconds:.1f}x nbgrader's throughput (same scores)"
                )
            print(line, flush=True)
        overhead = sandbox_overhead(10)
        report["sandbox"] = overhead
        print(f"sandbox ({overhead['mode']}): zygote start {overhead['zygote_start_s']:.1f} s once per "
              f"worker; then {1000 * overhead['per_submission_s']:.0f} ms per submission (fork, setup, "
              "a first cell, teardown)", flush=True)  # fmt: skip
        if len(args.workers) >= 2:
            first, last = args.workers[0], args.workers[-1]
            speedup = report[f"ours_{first}_s"] / report[f"ours_{last}_s"]
            report["scaling"] = speedup
            print(f"scaling from {first} to {last} workers: {speedup:.2f}x", flush=True)
        report["load_after"] = os.getloadavg()
        print(f"load average after: {report['load_after'][0]:.2f}")
        if args.json:
            args.json.write_text(json.dumps(report, indent=1))
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
