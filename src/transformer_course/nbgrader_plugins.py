"""nbgrader preprocessors of the course, loaded by autograde/nbgrader_config.py.

``RemoveInstructorCells`` drops the cells meant for instructors and course
maintainers only (the "generated from the master" notice) from the student
version that ``nbgrader generate_assignment`` writes. The student notebook still
says where it comes from, in its metadata (``metadata.course.generated_from``).
"""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

INSTRUCTOR_ONLY = "instructor-only"


def is_instructor_only(cell) -> bool:
    return cell.get("metadata", {}).get("course") == INSTRUCTOR_ONLY


class RemoveInstructorCells(Preprocessor):
    """Remove every cell whose metadata has ``"course": "instructor-only"``."""

    enabled = Bool(True).tag(config=True)  # nbconvert's preprocessors are off by default

    def preprocess(self, nb, resources):
        nb.cells = [cell for cell in nb.cells if not is_instructor_only(cell)]
        return nb, resources
