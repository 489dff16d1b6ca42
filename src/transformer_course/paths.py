"""Where the course lives and how its tools are started: the bottom module that the notebook
builder (``build``), the grader and the tests share, importing nothing of the course."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["REPO", "nbgrader_config", "scripts_first_on_path", "tool_env"]

#: the repository root (the course directory nbgrader's configuration maps)
REPO = Path(__file__).resolve().parents[2]


def scripts_first_on_path(path: str | None) -> str:
    """``path`` (a ``PATH`` value) with this interpreter's scripts folder first, so that the
    tools installed beside it (``nbgrader``, ``alembic``, ``jupyter``) are the ones run."""
    return os.pathsep.join([str(Path(sys.executable).parent), path or ""])


def tool_env() -> dict[str, str]:
    """The environment for nbgrader subprocesses: this interpreter's scripts first on
    PATH (nbgrader runs the ``alembic`` command to open its gradebook)."""
    env = dict(os.environ)
    env["PATH"] = scripts_first_on_path(env.get("PATH"))
    return env


def nbgrader_config(course_dir: Path = REPO):
    """The course directory's nbgrader configuration (a traitlets ``Config``; empty when
    the folder has no ``nbgrader_config.py``), loaded as nbgrader loads it: from inside the
    folder, since ``load_subconfig`` paths are relative to it."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    if not (course_dir / "nbgrader_config.py").exists():
        return Config()
    cwd = os.getcwd()
    try:
        os.chdir(course_dir)
        return PyFileConfigLoader("nbgrader_config.py", path=str(course_dir)).load_config()
    finally:
        os.chdir(cwd)
