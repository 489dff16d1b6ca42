"""Hand grading tasks to workers: local processes (default), or a Dask cluster.

The same function (:func:`transformer_course.grader.runner.run_task`) runs either
way, on plain-data tasks, and returns plain-data results; only the coordinating
process writes the gradebook and the files. A Dask cluster is started with Dask's
own commands, on each machine that has the course installed (and bubblewrap)::

    dask scheduler --host 0.0.0.0 --port 8786
    dask worker tcp://scheduler:8786 --nworkers 8 --nthreads 1

then ``course-grader 04_attention --scheduler tcp://scheduler:8786``. Use one thread
per worker process: checks restore the process-wide random streams.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable

from transformer_course.grader.runner import Task, run_task


def local_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS
        return max(1, os.cpu_count() or 1)


def run(
    tasks: list[Task],
    on_result: Callable[[Task, dict], None],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    in_process: bool = False,
) -> None:
    """Grade every task; ``on_result(task, result)`` is called in this process as each finishes."""
    if not tasks:
        return
    if scheduler:
        _run_dask(tasks, on_result, scheduler)
    elif in_process or ((workers or local_cores()) == 1 and len(tasks) == 1):
        for task in tasks:
            on_result(task, run_task(task))
    else:
        _run_local(tasks, on_result, workers or local_cores())


def _prestart(mode: str | None) -> None:
    from transformer_course.grader import sandbox

    try:
        sandbox.prestart(mode)
    except Exception:  # the first task reports it
        pass


def _run_local(tasks: list[Task], on_result, workers: int) -> None:
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    workers = max(1, min(workers, len(tasks)))
    mode = tasks[0].mode
    context = multiprocessing.get_context("spawn")
    pending = list(tasks)
    attempts: dict[int, int] = {}
    while pending:
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_prestart, initargs=(mode,)
        ) as pool:
            futures = {pool.submit(run_task, task): task for task in pending}
            pending = []
            broken = False
            for future in as_completed(futures):
                task = futures[future]
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken = True
                    attempts[id(task)] = attempts.get(id(task), 0) + 1
                    if attempts[id(task)] <= 2:
                        pending.append(task)
                        continue
                    result = _failed(task, "the grading worker process died twice on it")
                except Exception as exc:  # pragma: no cover - run_task does not raise
                    result = _failed(task, f"{type(exc).__name__}: {exc}")
                on_result(task, result)
            if broken:
                time.sleep(0.5)


def _run_dask(tasks: list[Task], on_result, scheduler: str) -> None:
    from distributed import Client, as_completed

    with Client(scheduler, timeout="60s") as client:
        futures = client.map(run_task, tasks, pure=False, retries=1)
        by_key = {future.key: task for future, task in zip(futures, tasks)}
        for future in as_completed(futures):
            task = by_key[future.key]
            try:
                result = future.result()
            except Exception as exc:
                result = _failed(task, f"the Dask worker failed: {type(exc).__name__}: {exc}")
            on_result(task, result)


def _failed(task: Task, reason: str) -> dict:
    from transformer_course.grader.results import SubmissionResult

    return SubmissionResult.not_graded(task, f"not graded: {reason}", message=reason).to_dict()


class Progress:
    """A progress bar with ETA on a terminal; plain lines otherwise."""

    def __init__(self, total: int, label: str = "grading"):
        self.total = total
        self.done = 0
        self.started = time.monotonic()
        self.last_line = 0.0
        self.bar = None
        if sys.stderr.isatty() and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=label, unit="nb", dynamic_ncols=True)
        elif total:
            print(f"{label}: {total} submission(s)", flush=True)

    def update(self, text: str = "") -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix_str(text[:40], refresh=False)
            self.bar.update(1)
            return
        now = time.monotonic()
        if now - self.last_line >= 5.0 or self.done == self.total:
            self.last_line = now
            elapsed = now - self.started
            rate = self.done / elapsed if elapsed > 0 else 0.0
            left = (self.total - self.done) / rate if rate > 0 else 0.0
            print(
                f"  {self.done}/{self.total} graded ({100 * self.done / self.total:.0f}%), "
                f"{elapsed:.0f}s elapsed, ETA {left:.0f}s",
                flush=True,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
