"""nbgrader looks for its configuration in the folder it runs from; the course's
configuration lives with the rest of the grading harness in autograde/."""

load_subconfig("autograde/nbgrader_config.py")  # noqa: F821 (provided by traitlets)
