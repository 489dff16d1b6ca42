"""nbgrader configuration: maps nbgrader's course directory onto this repository.

    solutions/<lesson>/            source (instructor versions, the single source of truth)
    notebooks/<lesson>/            release (student versions, generated: `make notebooks`)
    autograde/submitted/<student>/<lesson>/   collected submissions
    autograde/autograded/, autograde/feedback/, autograde/gradebook.db

Loaded through ../nbgrader_config.py; run nbgrader from the repository root, e.g.
    nbgrader autograde 01_tokenization
See README.md, "For instructors".
"""

c = get_config()  # noqa: F821 (provided by traitlets when nbgrader loads this file)

c.CourseDirectory.course_id = "build-a-transformer"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
c.CourseDirectory.submitted_directory = "autograde/submitted"
c.CourseDirectory.autograded_directory = "autograde/autograded"
c.CourseDirectory.feedback_directory = "autograde/feedback"
c.CourseDirectory.db_url = "sqlite:///autograde/gradebook.db"

# The lesson master (<lesson>.py, with solutions and hidden tests) sits beside
# the generated .ipynb; it must never be copied into the student release.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", "*.py"]

# The student version leaves out the instructor-only cells (the "generated from the
# master" notice); see transformer_course/nbgrader_plugins.py.
from nbgrader.converters import GenerateAssignment  # noqa: E402

c.GenerateAssignment.preprocessors = [
    "transformer_course.nbgrader_plugins.RemoveInstructorCells",
    *GenerateAssignment.class_traits()["preprocessors"].default(),
]

# What a learner sees where a solution was.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Student notebooks are committed without outputs; grading runs them headless.
c.ClearOutput.enabled = True
c.Execute.timeout = 120
c.ExecutePreprocessor.timeout = 120
