"""Project-level guarantees: generated notebooks are current, the conda environment
matches the pip one, ruff is clean, and CI runs the README's test command. (That the
README's first command, `make lab`, opens the course: tests/test_browser.py.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from transformer_course.build import REPO, lessons, tool_env

BIN = Path(sys.executable).parent
CONDA_NAMES = {"torch": "pytorch"}  # PyPI name -> conda-forge name


def _requirement(text: str) -> tuple[str, str]:
    """(name, version spec) of a requirement; extras such as [binary] are pip-only."""
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(.*?)\s*", text)
    assert match, text
    return match.group(1).lower(), match.group(2).replace(" ", "")


def test_committed_notebooks_are_generated_from_their_masters():
    result = subprocess.run(
        [sys.executable, "-m", "transformer_course.build", "--check"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=tool_env(),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1])["lessons"] == lessons()


def test_generated_notebooks_say_so_and_have_no_outputs():
    for lesson in lessons():
        for top in ("solutions", "notebooks"):
            nb = json.loads((REPO / top / lesson / f"{lesson}.ipynb").read_text())
            assert nb["metadata"]["course"]["generated_from"] == f"solutions/{lesson}/{lesson}.py"
            notice = "generated from the lesson master" in "".join(nb["cells"][0]["source"])
            # The instructor sees the notice; the learner's view is kept free of it.
            assert notice == (top == "solutions"), f"{top}/{lesson}: notice shown = {notice}"
            assert not any(c.get("outputs") for c in nb["cells"]), f"{top}/{lesson} has outputs"
    for path in (REPO / "notebooks").rglob("*"):
        assert path.suffix in {".ipynb", ""} or path.is_dir(), f"stray file in the release: {path}"


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pip_deps = dict(
        _requirement(r)
        for r in project["dependencies"]
        + project["optional-dependencies"]["dev"]
        + project["optional-dependencies"]["hub"]
    )
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    assert env["name"] == "transformer-course"
    conda_deps, pip_section = {}, []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip_section += dep["pip"]
        else:
            name, spec = _requirement(dep)
            conda_deps[name] = spec
    assert conda_deps.pop("python") == ">=" + project["requires-python"].removeprefix(">=")
    assert conda_deps.pop("pip") == ""
    assert conda_deps.pop("libseccomp") == ">=2.5"  # a C library (ctypes), no PyPI package
    # the hub's Node proxy: npm's package, installed by `make install` at CHP_SPEC's version
    chp = re.search(
        r"^CHP_SPEC \?= configurable-http-proxy@(\S+)$", (REPO / "Makefile").read_text(), re.M
    )
    assert conda_deps.pop("configurable-http-proxy") == ">=" + chp.group(1)
    expected = {CONDA_NAMES.get(name, name): spec for name, spec in pip_deps.items()}
    assert conda_deps == expected
    assert pip_section == ["-e ."]


def test_importing_nbformat_builds_no_grammar():
    """Every nbgrader command, course-grader and JupyterLab import nbformat, and with it
    jsonschema: jsonschema 4.25 and newer also import rfc3987-syntax, whose Lark grammar
    costs about 1.9 s of CPU per process (pyproject.toml pins jsonschema below 4.25)."""
    code = "import sys, nbformat, jsonschema; print(sorted({'lark', 'rfc3987_syntax'} & set(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]", (
        f"importing nbformat imported {result.stdout.strip()}: is jsonschema 4.25 or newer "
        "installed (pyproject.toml pins it below 4.25)?"
    )


def test_ruff_lint_and_format_are_clean():
    for args in (["check", "."], ["format", "--check", "."]):
        result = subprocess.run(
            [str(BIN / "ruff"), *args], capture_output=True, text=True, cwd=REPO
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    commands = re.search(r"```bash\n(.*?)```", readme, re.S).group(1).splitlines()
    assert commands[0].startswith("make lab") and commands[1].startswith("make test")
    assert "make test" in (REPO / ".ci" / "run").read_text()


@pytest.mark.xdist_group("probe")
def test_xdist_groups_are_honoured(request):
    """`make test` runs with --dist loadgroup so that each grader and pipeline module builds
    its graded class once, on one worker. Some pytest / pytest-xdist pairs silently ignore
    the groups (pytest 9.2 with xdist 3.8): then every worker builds every class again."""
    if request.config.getoption("loadgroup", default=False):
        assert request.node.nodeid.endswith("@probe"), request.node.nodeid
