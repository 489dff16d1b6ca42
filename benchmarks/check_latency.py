"""How long each exercise's visible check takes, as its test cell calls it
(``check_<name>(<name>)``), on one thread: the developers' guide asks that a test cell
answer in about a second, and timed tests do not measure that, this benchmark does.

    .venv/bin/python -m benchmarks.check_latency      # table; writes check_latency.json (minutes)
    .venv/bin/python -m benchmarks.check_latency --lesson 10_training   # no record

For every registered coding exercise: the reference answer's time (the first call
discarded as warm-up, then the median of ``--repeats`` calls), and, over the wrong answers
the diagnosis benchmark holds for that exercise (``benchmarks/diagnosis`` CASES, built as
its runner builds them), the median and the largest time (each wrong answer timed as the
reference is: ``--wrong-repeats`` calls after a discarded one, their median). The
record's ``summary`` gives the exercises whose slowest answer exceeds one second.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import time
from pathlib import Path

from benchmarks.diagnosis.cases import CASES
from benchmarks.diagnosis.run import case_answer
from transformer_course import registry

RECORD = Path(__file__).resolve().parent / "check_latency.json"
#: the same run at commit 52a595a, before the beam_search check shared its reference's
#: replays (the README quotes both)
BEFORE = RECORD.with_name("check_latency_before.json")
#: a test cell should answer in about this many seconds (developers' guide)
TARGET_SECONDS = 1.0


def seconds_of(check, answer) -> float:
    """Wall time of one visible check call; a failing or crashing check counts (its
    message is what the learner waits for)."""
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception):
        check(answer)
    return time.perf_counter() - started


def median_seconds(check, answer, repeats: int, warm: bool) -> float:
    if warm:
        seconds_of(check, answer)
    return statistics.median(seconds_of(check, answer) for _ in range(repeats))


def measure(exercise, repeats: int = 3, wrong_repeats: int = 3) -> dict:
    """The exercise's row: reference seconds, wrong answers' count, median and max."""
    reference = median_seconds(exercise.check, exercise.reference, repeats, warm=True)
    wrong = []
    for case in CASES:
        if case.lesson == exercise.lesson and case.exercise == exercise.name:
            answer, _ = case_answer(case)
            wrong.append(median_seconds(exercise.check, answer, wrong_repeats, warm=True))
    return {
        "lesson": exercise.lesson,
        "exercise": exercise.name,
        "reference": round(reference, 3),
        "wrong_answers": len(wrong),
        "wrong_median": round(statistics.median(wrong), 3) if wrong else None,
        "wrong_max": round(max(wrong), 3) if wrong else None,
    }


def slowest(row: dict) -> float:
    return max(row["reference"], row["wrong_max"] or 0.0)


def summary(rows: list[dict]) -> dict:
    over = sorted((row for row in rows if slowest(row) > TARGET_SECONDS), key=slowest, reverse=True)
    worst = max(rows, key=slowest)
    return {
        "exercises": len(rows),
        "over_target": len(over),
        "target_seconds": TARGET_SECONDS,
        "over": [f"{row['lesson']}/{row['exercise']}" for row in over],
        "slowest": f"{worst['lesson']}/{worst['exercise']}",
        "slowest_seconds": round(slowest(worst), 2),
    }


def sentence(record: dict) -> str:
    """The README's figures, from the record."""
    s = record["summary"]
    return (
        f"{s['over_target']} of {s['exercises']} exercises' visible checks took over "
        f"{s['target_seconds']:.0f} s on some answer (the slowest, {s['slowest']}: "
        f"{s['slowest_seconds']} s, load average {record['load']})"
    )


def table(rows: list[dict]) -> str:
    lines = [f"{'exercise':45} {'reference':>9} {'wrong':>5} {'median':>7} {'max':>7}"]
    for row in sorted(rows, key=slowest, reverse=True):
        wrong = (
            f"{row['wrong_median']:7.2f} {row['wrong_max']:7.2f}"
            if row["wrong_answers"]
            else f"{'-':>7} {'-':>7}"
        )
        name = f"{row['lesson']}/{row['exercise']}"
        lines.append(f"{name:45} {row['reference']:9.2f} {row['wrong_answers']:5} {wrong}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lesson", action="append", help="only these lessons (no record)")
    parser.add_argument("--exercise", action="append", help="only these exercises (no record)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--wrong-repeats", type=int, default=3)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    started = time.perf_counter()
    rows = [
        measure(exercise, args.repeats, args.wrong_repeats)
        for exercise in registry.all_exercises()
        if exercise.kind != "quiz"
        and (not args.lesson or exercise.lesson in args.lesson)
        and (not args.exercise or exercise.name in args.exercise)
    ]
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    record = {"summary": summary(rows), "load": load, "rows": rows}
    print(table(rows))
    print()
    print(sentence(record) + ".")
    for name in record["summary"]["over"]:
        print(f"  over {TARGET_SECONDS:.0f} s: {name}")
    print(f"{len(rows)} exercises in {time.perf_counter() - started:.0f} s (load average {load})")
    if not args.lesson and not args.exercise:
        RECORD.write_text(json.dumps(record, indent=1) + "\n")
        print(f"wrote {RECORD}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
