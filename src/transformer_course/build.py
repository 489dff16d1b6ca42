"""Generate every notebook from the lesson masters, or check that they are current.

One text master per lesson, ``solutions/<lesson>/<lesson>.py`` (Jupytext
py:percent, with nbgrader cell metadata), is the single source of truth:

1. master -> ``solutions/<lesson>/<lesson>.ipynb``: the instructor version
   (solutions and hidden tests included), with deterministic cell ids;
2. that notebook -> ``notebooks/<lesson>/<lesson>.ipynb``: the student version,
   produced by nbgrader's own ``generate_assignment`` with this repository's
   ``nbgrader_config.py`` (solutions replaced by stubs, hidden tests removed,
   outputs cleared).

Usage::

    python -m transformer_course.build            # regenerate everything
    python -m transformer_course.build --check    # fail if anything is stale
    python -m transformer_course.build 01_tokenization   # one lesson

Masters may abbreviate nbgrader metadata; it is completed here:
``nbgrader={"solution": true, "grade_id": "tokenize"}`` for an answer cell,
``nbgrader={"grade": true, "grade_id": "test_tokenize", "points": 2}`` for a
test cell, ``nbgrader={"locked": true, "grade_id": "setup"}`` for a read-only cell.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import jupytext
import nbformat

REPO = Path(__file__).resolve().parents[2]
SOLUTIONS = "solutions"
NOTEBOOKS = "notebooks"

BANNER_ID = "generated-notice"
BANNER = (
    "<small>This notebook is generated from the lesson master `{master}` "
    "(`make notebooks`). Learners: work here as usual. Course maintainers: edit the "
    "master, never this file.</small>"
)
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def tool_env() -> dict[str, str]:
    """The environment for nbgrader subprocesses: this interpreter's scripts first on
    PATH (nbgrader runs the ``alembic`` command to open its gradebook)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def lessons(repo: Path = REPO) -> list[str]:
    """Every lesson: a folder of solutions/ holding a master of the same name."""
    return sorted(
        path.parent.name
        for path in (repo / SOLUTIONS).glob("*/*.py")
        if path.stem == path.parent.name
    )


def _complete_nbgrader_metadata(meta: dict) -> dict:
    grade = bool(meta.get("grade", False))
    solution = bool(meta.get("solution", False))
    full = {
        "grade": grade,
        "grade_id": meta["grade_id"],
        "locked": bool(meta.get("locked", grade and not solution)),
        "schema_version": 3,
        "solution": solution,
        "task": bool(meta.get("task", False)),
    }
    if grade:
        full["points"] = meta.get("points", 1)
    return full


def build_solution_notebook(master: Path, repo: Path = REPO) -> nbformat.NotebookNode:
    """Read a py:percent master and return the instructor notebook."""
    nb = jupytext.read(master, fmt="py:percent")
    relative = master.resolve().relative_to(repo.resolve()).as_posix()
    banner = nbformat.v4.new_markdown_cell(BANNER.format(master=relative))
    cells = [banner, *nb.cells]
    seen: set[str] = set()
    for index, cell in enumerate(cells):
        cell.metadata.pop("lines_to_next_cell", None)
        if "nbgrader" in cell.metadata:
            cell.metadata["nbgrader"] = _complete_nbgrader_metadata(cell.metadata["nbgrader"])
            cell_id = cell.metadata["nbgrader"]["grade_id"]
        else:
            cell_id = BANNER_ID if index == 0 else f"cell-{index:03d}"
        if cell_id in seen:
            raise ValueError(f"{master}: duplicate cell id / grade_id {cell_id!r}")
        seen.add(cell_id)
        cell["id"] = cell_id
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.cells = cells
    nb.metadata = {
        "kernelspec": KERNELSPEC,
        "language_info": {"name": "python"},
        "course": {"generated_from": relative, "generator": "python -m transformer_course.build"},
    }
    nb.nbformat, nb.nbformat_minor = 4, 5
    nbformat.validate(nb)
    return nb


def generate_release(lesson: str, source_root: Path, release_root: Path, repo: Path = REPO) -> None:
    """Run nbgrader generate_assignment for one lesson, with this repo's config.

    ``source_root/<lesson>/`` is read; ``release_root/<lesson>/`` is written.
    A throw-away gradebook is used, so this never touches autograde/gradebook.db.
    """
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            sys.executable, "-m", "nbgrader", "generate_assignment", lesson,
            "--force", "--quiet",
            f"--CourseDirectory.root={scratch}",
            f"--CourseDirectory.source_directory={source_root.resolve()}",
            f"--CourseDirectory.release_directory={release_root.resolve()}",
            f"--CourseDirectory.db_url=sqlite:///{scratch}/gradebook.db",
        ]  # fmt: skip
        result = subprocess.run(command, cwd=repo, capture_output=True, text=True, env=tool_env())
        if result.returncode != 0:
            raise RuntimeError(
                f"nbgrader generate_assignment {lesson} failed:\n{result.stdout}\n{result.stderr}"
            )


def build_lesson(lesson: str, out_root: Path, repo: Path = REPO) -> None:
    """Write solutions/<lesson>/<lesson>.ipynb and notebooks/<lesson>/ under out_root."""
    master = repo / SOLUTIONS / lesson / f"{lesson}.py"
    source_dir = out_root / SOLUTIONS / lesson
    source_dir.mkdir(parents=True, exist_ok=True)
    nbformat.write(build_solution_notebook(master, repo), source_dir / f"{lesson}.ipynb")
    # Any other files of the lesson (data, images) travel with the notebook.
    if source_dir.resolve() != master.parent.resolve():
        for extra in master.parent.iterdir():
            if extra.is_file() and extra.suffix not in {".py", ".ipynb"}:
                shutil.copy2(extra, source_dir / extra.name)
    release_dir = out_root / NOTEBOOKS / lesson
    if release_dir.exists():
        shutil.rmtree(release_dir)
    generate_release(lesson, out_root / SOLUTIONS, out_root / NOTEBOOKS, repo)


def stale_files(selected: list[str], repo: Path = REPO) -> list[str]:
    """Build into a scratch folder and list every committed file that differs."""
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for lesson in selected:
            build_lesson(lesson, out, repo)
            for top in (SOLUTIONS, NOTEBOOKS):
                fresh_dir, committed_dir = out / top / lesson, repo / top / lesson
                fresh = {p.relative_to(fresh_dir) for p in fresh_dir.rglob("*") if p.is_file()}
                committed = {
                    p.relative_to(committed_dir)
                    for p in committed_dir.rglob("*")
                    if p.is_file()
                    and not (top == SOLUTIONS and p.suffix == ".py")
                    and ".ipynb_checkpoints" not in p.parts
                }
                for name in sorted(fresh | committed):
                    label = f"{top}/{lesson}/{name}"
                    if name not in committed:
                        problems.append(f"{label}: missing (run `make notebooks`)")
                    elif name not in fresh:
                        problems.append(f"{label}: not generated by the build (stray file)")
                    else:
                        a = (committed_dir / name).read_text().splitlines()
                        b = (fresh_dir / name).read_text().splitlines()
                        if a != b:
                            diff = "\n".join(list(difflib.unified_diff(a, b, lineterm=""))[:20])
                            problems.append(f"{label}: out of date (run `make notebooks`)\n{diff}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson folders (default: all)")
    parser.add_argument("--check", action="store_true", help="only check that files are current")
    args = parser.parse_args(argv)
    selected = args.lessons or lessons()
    if args.check:
        problems = stale_files(selected)
        for problem in problems:
            print(problem)
        print(json.dumps({"lessons": selected, "stale": len(problems)}))
        return 1 if problems else 0
    for lesson in selected:
        build_lesson(lesson, REPO)
        print(f"built {SOLUTIONS}/{lesson} and {NOTEBOOKS}/{lesson}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
