"""``python -m transformer_course.grader``: the course-grader command."""

import sys

from transformer_course.grader.cli import main

sys.exit(main())
