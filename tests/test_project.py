"""Project-level guarantees: generated notebooks are current, the conda environment
matches the pip one, ruff is clean, and the README's first command opens JupyterLab."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
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
        capture_output=True, text=True, cwd=REPO, env=tool_env(),
    )  # fmt: skip
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
        _requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["dev"]
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
    expected = {CONDA_NAMES.get(name, name): spec for name, spec in pip_deps.items()}
    assert conda_deps == expected
    assert pip_section == ["-e ."]


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.pipeline
def test_jupyterlab_serves_the_course(tmp_path):
    """What `make lab` runs, headless on loopback: the lab page and lesson 00 are served."""
    port, token = _free_port(), "course-test"
    server = subprocess.Popen(
        [str(BIN / "jupyter"), "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={REPO}",
         "--ServerApp.open_browser=False", *(["--allow-root"] if os.geteuid() == 0 else [])],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO,
        env={**tool_env(), "HOME": str(tmp_path)},
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/lab?token={token}", timeout=5) as response:
                    assert response.status == 200
                    assert "JupyterLab" in response.read().decode()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode()[-2000:]
                assert time.monotonic() < deadline, "JupyterLab did not start within 60 s"
                time.sleep(0.5)
        url = f"{base}/api/contents/notebooks/00_welcome/00_welcome.ipynb?token={token}"
        with urllib.request.urlopen(url, timeout=10) as response:
            model = json.loads(response.read())
        assert model["type"] == "notebook"
        with urllib.request.urlopen(
            f"{base}/api/kernelspecs?token={token}", timeout=10
        ) as response:
            assert "python3" in json.loads(response.read())["kernelspecs"]
    finally:
        server.terminate()
        server.wait(timeout=30)
