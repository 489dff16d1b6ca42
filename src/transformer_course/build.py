"""Generate every notebook and reference module from the lesson masters, or check
that they are current.

One text master per lesson, ``solutions/<lesson>/<lesson>.py`` (Jupytext
py:percent, with nbgrader cell metadata), is the single source of truth:

1. master -> ``solutions/<lesson>/<lesson>.ipynb``: the instructor version
   (solutions and hidden tests included), with deterministic cell ids;
2. that notebook -> ``notebooks/<lesson>/<lesson>.ipynb``: the student version,
   produced by nbgrader's own ``generate_assignment`` with this repository's
   ``nbgrader_config.py`` (solutions replaced by stubs, hidden tests removed,
   outputs cleared);
3. master -> ``src/transformer_course/reference/<topic>.py``: the reference
   implementation, exported (like d2l's ``#@save``) from every answer cell with
   its solution markers removed, plus every code cell marked ``export=true``
   (constants and helpers that later lessons and the checks use). Its imports
   are the master's own import lines that bind the names the exported code uses.

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
import ast
import builtins
import difflib
import json
import re
import shutil
import subprocess
import symtable
import sys
import tempfile
from pathlib import Path

import jupytext
import nbformat

from transformer_course.exercise import SOLUTION_MARKERS, lesson_topic
from transformer_course.nbgrader_plugins import INSTRUCTOR_ONLY
from transformer_course.paths import REPO, tool_env

SOLUTIONS = "solutions"
NOTEBOOKS = "notebooks"
REFERENCE = Path("src") / "transformer_course" / "reference"
EXPORT_KEY = "export"  # `# %% export=true`: a code cell that also goes into the reference
FIRST_PARTY = "transformer_course"
LINE_LENGTH = 100

BANNER_ID = "generated-notice"
BANNER = (
    "<small>Instructor version, generated from the lesson master `{master}` "
    "(`make notebooks`): edit the master, never this file. The student version leaves "
    "this notice out.</small>"
)
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def reference_path(lesson: str, root: Path = REPO) -> Path:
    return root / REFERENCE / f"{lesson_topic(lesson)}.py"


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
    banner = nbformat.v4.new_markdown_cell(
        BANNER.format(master=relative), metadata={"course": INSTRUCTOR_ONLY}
    )
    cells = [banner, *nb.cells]
    seen: set[str] = set()
    for index, cell in enumerate(cells):
        cell.metadata.pop("lines_to_next_cell", None)
        cell.metadata.pop(EXPORT_KEY, None)  # for the reference export only
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


# ------------------------------------------------------------------ reference export
def _exported_cells(nb: nbformat.NotebookNode) -> list[str]:
    """The code of every answer cell (solution markers removed) and every export cell."""
    blocks = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if cell.metadata.get("nbgrader", {}).get("solution") or cell.metadata.get(EXPORT_KEY):
            lines = [
                line for line in cell.source.splitlines() if line.strip() not in SOLUTION_MARKERS
            ]
            code = _without_imports("\n".join(lines)).strip("\n")
            if code:
                blocks.append(code)
    return blocks


def _without_imports(source: str) -> str:
    """Drop a cell's top-level import lines: the module's import block gathers them."""
    lines = source.splitlines()
    for node in reversed(ast.parse(source).body):
        if isinstance(node, ast.Import | ast.ImportFrom):
            del lines[node.lineno - 1 : node.end_lineno]
    return re.sub(r"\n{3,}", "\n\n\n", "\n".join(lines))


def _free_names(source: str) -> set[str]:
    """Names the code reads but never defines at module level (they must be imported)."""
    free: set[str] = set()

    def walk(table: symtable.SymbolTable) -> None:
        for symbol in table.get_symbols():
            if symbol.is_referenced() and symbol.is_global():
                free.add(symbol.get_name())
        for child in table.get_children():
            walk(child)

    top = symtable.symtable(source, "<reference>", "exec")
    walk(top)
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    return free - defined - set(dir(builtins))


def _import_bindings(nb: nbformat.NotebookNode) -> dict[str, tuple[str, str | None, str]]:
    """name -> (module, imported name or None for `import module`, alias) over the master's
    top-level import lines, in notebook order (the first binding of a name wins)."""
    bindings: dict[str, tuple[str, str | None, str]] = {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    target = alias.name if alias.asname else alias.name.split(".")[0]
                    bindings.setdefault(bound, (target, None, alias.asname or ""))
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    bound = alias.asname or alias.name
                    bindings.setdefault(bound, (node.module, alias.name, alias.asname or ""))
    return bindings


def _section(module: str) -> int:
    root = module.split(".")[0]
    if root == "__future__":
        return 0
    if root in sys.stdlib_module_names:
        return 1
    return 3 if root == FIRST_PARTY else 2


def _name_order(name: str) -> tuple[int, str]:
    """isort's order-by-type: CONSTANTS, then Classes, then functions and modules."""
    if name.isupper() and len(name) > 1:
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def _import_block(bindings: list[tuple[str, str | None, str]]) -> str:
    """Import statements sorted and grouped as ruff's isort rules want them."""
    straight: dict[int, set[str]] = {}
    from_: dict[int, dict[str, set[str]]] = {}
    for module, name, alias in bindings:
        section = _section(module)
        if name is None:
            straight.setdefault(section, set()).add(
                f"import {module}" + (f" as {alias}" if alias else "")
            )
        else:
            from_.setdefault(section, {}).setdefault(module, set()).add(
                name + (f" as {alias}" if alias else "")
            )
    groups = []
    for section in sorted(set(straight) | set(from_)):
        lines = sorted(straight.get(section, ()), key=lambda line: line.split()[1].lower())
        for module in sorted(from_.get(section, {}), key=str.lower):
            names = sorted(from_[section][module], key=lambda n: _name_order(n.split()[0]))
            line = f"from {module} import {', '.join(names)}"
            if len(line) > LINE_LENGTH:
                line = f"from {module} import (\n" + "".join(f"    {n},\n" for n in names) + ")"
            lines.append(line)
        groups.append("\n".join(lines))
    return "\n\n".join(groups)


def _own_module_aliases(
    bindings: dict[str, tuple[str, str | None, str]], own_module: str
) -> set[str]:
    """Names that a master binds to its own lesson's reference module (``as ref``)."""
    package, _, leaf = own_module.rpartition(".")
    return {
        bound
        for bound, (module, name, _) in bindings.items()
        if (module == own_module and name is None) or (module == package and name == leaf)
    }


def _unqualify(source: str, aliases: set[str]) -> str:
    """``ref.softmax(x)`` -> ``softmax(x)`` for each alias of the module being written."""
    lines = source.splitlines(keepends=True)
    spots = [
        (node.value.lineno, node.value.col_offset, len(node.value.id) + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in aliases
    ]
    for lineno, col, width in sorted(spots, reverse=True):
        line = lines[lineno - 1]
        lines[lineno - 1] = line[:col] + line[col + width :]
    return "".join(lines)


def build_reference(master: Path, repo: Path = REPO) -> str:
    """The reference module exported from a master (the text of reference/<topic>.py)."""
    nb = jupytext.read(master, fmt="py:percent")
    lesson = master.parent.name
    relative = master.resolve().relative_to(repo.resolve()).as_posix()
    bindings = _import_bindings(nb)
    own_module = f"{FIRST_PARTY}.reference.{lesson_topic(lesson)}"
    body = _unqualify("\n\n\n".join(_exported_cells(nb)), _own_module_aliases(bindings, own_module))
    needed = _free_names(body)
    missing = sorted(name for name in needed if name not in bindings)
    if missing:
        raise ValueError(
            f"{relative}: the exported code uses {missing}, which no import line of the master "
            "binds and no answer or export cell defines"
        )
    title = next(
        (
            line.lstrip("# ").strip()
            for cell in nb.cells
            if cell.cell_type == "markdown"
            for line in cell.source.splitlines()
            if line.startswith("# ")
        ),
        lesson,
    )
    header = (
        f'"""Reference implementation: lesson {title}\n\n'
        f"Generated from the lesson master `{relative}`\n"
        "(its answer cells and its cells marked `export=true`) by `make notebooks`.\n"
        "Edit the master, never this file.\n"
        '"""\n\n'
    )
    imports = _import_block(
        [("__future__", "annotations", "")] + [bindings[name] for name in sorted(needed)]
    )
    # isort's spacing: two blank lines before a def or class, one before anything else.
    gap = "\n\n\n" if re.match(r"(def |class |@|async def )", body) else "\n\n"
    return header + imports + gap + body + "\n"


def generate_release(lesson: str, source_root: Path, release_root: Path, repo: Path = REPO) -> None:
    """Run nbgrader generate_assignment for one lesson (or, with ``"*"``, for every lesson
    under ``source_root`` in one run of nbgrader), with this repo's config.

    ``source_root/<lesson>/`` is read; ``release_root/<lesson>/`` is written.
    A throw-away gradebook is used, so this never touches autograde/gradebook.db.
    """
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            sys.executable,
            "-m",
            "nbgrader",
            "generate_assignment",
            lesson,
            "--force",
            "--quiet",
            f"--CourseDirectory.root={scratch}",
            f"--CourseDirectory.source_directory={source_root.resolve()}",
            f"--CourseDirectory.release_directory={release_root.resolve()}",
            f"--CourseDirectory.db_url=sqlite:///{scratch}/gradebook.db",
        ]
        result = subprocess.run(command, cwd=repo, capture_output=True, text=True, env=tool_env())
        if result.returncode != 0 or "Exception while loading config file" in result.stderr:
            raise RuntimeError(
                f"nbgrader generate_assignment {lesson} failed:\n{result.stdout}\n{result.stderr}"
            )


def build_lesson(lesson: str, out_root: Path, repo: Path = REPO, release: bool = True) -> None:
    """Write solutions/<lesson>/<lesson>.ipynb and notebooks/<lesson>/ under out_root
    (``release=False``: not notebooks/, which the caller generates)."""
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
    if release:
        generate_release(lesson, out_root / SOLUTIONS, out_root / NOTEBOOKS, repo)
    reference = reference_path(lesson, out_root)
    reference.parent.mkdir(parents=True, exist_ok=True)
    reference.write_text(build_reference(master, repo))


def stale_files(selected: list[str], repo: Path = REPO) -> list[str]:
    """Build into a scratch folder and list every committed file that differs."""
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for lesson in selected:
            build_lesson(lesson, out, repo, release=False)
        # the student versions of every selected lesson in one run of nbgrader (each run
        # starts nbgrader and a gradebook anew: most of its time)
        if selected:
            generate_release("*", out / SOLUTIONS, out / NOTEBOOKS, repo)
        for lesson in selected:
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
                            problems.append(_stale(label, a, b))
            fresh_ref, committed_ref = reference_path(lesson, out), reference_path(lesson, repo)
            label = committed_ref.relative_to(repo).as_posix()
            if not committed_ref.exists():
                problems.append(f"{label}: missing (run `make notebooks`)")
            else:
                a, b = committed_ref.read_text().splitlines(), fresh_ref.read_text().splitlines()
                if a != b:
                    problems.append(_stale(label, a, b))
    return problems


def _stale(label: str, committed: list[str], fresh: list[str]) -> str:
    diff = "\n".join(list(difflib.unified_diff(committed, fresh, lineterm=""))[:20])
    return f"{label}: out of date (run `make notebooks`)\n{diff}"


def main(argv: list[str] | None = None) -> int:
    from transformer_course.course_map import stale_tables, update_tables

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson folders (default: all)")
    parser.add_argument("--check", action="store_true", help="only check that files are current")
    args = parser.parse_args(argv)
    selected = args.lessons or lessons()
    if args.check:
        problems = stale_tables() + stale_files(selected)
        for problem in problems:
            print(problem)
        print(json.dumps({"lessons": selected, "stale": len(problems)}))
        return 1 if problems else 0
    for path in update_tables():  # the course map first: lesson 00's master holds one
        print(f"updated the course map in {path.relative_to(REPO)}")
        if path.name == "00_welcome.py" and "00_welcome" not in selected:
            selected = ["00_welcome", *selected]
    for lesson in selected:
        build_lesson(lesson, REPO)
        print(
            f"built {SOLUTIONS}/{lesson}, {NOTEBOOKS}/{lesson} and {REFERENCE}/{lesson_topic(lesson)}.py"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
