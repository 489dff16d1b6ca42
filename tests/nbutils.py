"""Helpers for the notebook tests: execute a notebook headless and read its graded cells."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[1]

# Executed headless, a lesson draws its interactive figures once, statically
# (transformer_course.plotting.interactive_or_static); kernels inherit this.
os.environ.setdefault("COURSE_STATIC_FIGURES", "1")


@dataclass
class Executed:
    nb: nbformat.NotebookNode
    seconds: float

    def graded_cells(self):
        return [c for c in self.nb.cells if c.metadata.get("nbgrader", {}).get("grade")]

    @staticmethod
    def errors(cell):
        return [o for o in cell.get("outputs", []) if o.output_type == "error"]

    @staticmethod
    def stderr(cell):
        return "".join(
            o.text
            for o in cell.get("outputs", [])
            if o.output_type == "stream" and o.name == "stderr"
        )

    @staticmethod
    def stdout(cell):
        return "".join(
            o.text
            for o in cell.get("outputs", [])
            if o.output_type == "stream" and o.name == "stdout"
        )


def execute(path: Path, timeout: int = 180) -> Executed:
    """Run every cell (errors recorded, not raised), in the notebook's own folder."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    return Executed(nb, time.perf_counter() - start)
