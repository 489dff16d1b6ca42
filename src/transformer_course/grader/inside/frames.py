"""Where a frame's code comes from: a notebook cell of the learner's, a file of the learner's
scratch folder, or the course (the grader's own code and the reference it released)."""

from __future__ import annotations

import os
import re

from transformer_course.grader.inside.importing import COURSE_FILE_PREFIX

__all__ = ["CELL_FILE", "cell_of", "is_learner_file"]

CELL_FILE = re.compile(r"^<ipython-input-(\d+)-[0-9a-f]+>$")


def is_learner_file(filename: str, scratch: str) -> bool:
    if CELL_FILE.match(filename):
        return True
    if filename.startswith(COURSE_FILE_PREFIX) or filename.startswith("<frozen"):
        return False
    if filename.startswith("<"):
        return filename in ("<string>", "<stdin>") or filename.startswith("<ipython-input")
    return os.path.realpath(filename).startswith(scratch)


def cell_of(filename: str) -> int | None:
    match = CELL_FILE.match(filename)
    return int(match.group(1)) - 1 if match else None
