"""The course as a learner meets it: `make lab` in a real browser, and the README's
commands for a learner without `make`.

Each test starts JupyterLab with the Makefile's own `lab` (or `lab-instructor`)
target, on a scratch copy of the course, adding only what a test needs to the
command line (`--no-browser`, a free loopback port, a known token); HOME is an empty
temporary folder, so every test sees a first start. Debian's Chromium
(/usr/bin/chromium), driven by Playwright, then does what a newcomer does: reads
lesson 00, browses to lesson 01 and to the solutions, runs a solution and the
student notebook, moves a slider, and presses nbgrader's Validate button.
Playwright never downloads a browser here.

Screenshots of every step are saved in test-artifacts/browser/<session>/, with
JupyterLab's log when a step fails (the failure names the folder). Outside CI the
browser parts are skipped when Chromium or make is missing; in CI (CI=true) that is
a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nbgrader
import pytest

from transformer_course.build import REPO

pytestmark = pytest.mark.pipeline

VENV = Path(sys.prefix)
CHROMIUM = Path("/usr/bin/chromium")
# Headless, and quiet: without the background-networking flags Chromium keeps trying
# to reach Google's services, which a closed network refuses.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",  # containers' /dev/shm is often too small for Chromium
]
ARTIFACTS = REPO / "test-artifacts" / "browser"
LESSON_00 = "notebooks/00_welcome/00_welcome.ipynb"
SOLUTION_00 = "solutions/00_welcome/00_welcome.ipynb"
KERNEL = "Python 3 (ipykernel)"  # the display name of the course's kernel, .venv's python3
# nbgrader 0.9's JupyterLab plugins that only an instructor needs.
INSTRUCTOR_PLUGINS = {
    "@jupyter/nbgrader:assignment-list",
    "@jupyter/nbgrader:course-list",
    "@jupyter/nbgrader:create-assignment",
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:menu",
}
# ... and the server routes of the instructor-only server extensions.
INSTRUCTOR_ROUTES = ["formgrader", "formgraders", "assignments", "courses"]
SERVER_START = 120  # seconds; JupyterLab starts in ~5 s on an idle laptop
KERNEL_RUN = 240_000  # ms for a notebook's cells, or nbgrader's Validate, to finish


# ---------------------------------------------------------------------------- guards
def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _require(ok: bool, what: str) -> None:
    """Skip on a developer's machine, fail in CI: the browser tests must run there."""
    if not ok:
        if _in_ci():
            pytest.fail(f"{what}; CI must run the browser tests (.ci/run installs it)")
        pytest.skip(what)


def _require_make() -> None:
    _require(shutil.which("make") is not None, "make is not installed")


def _require_browser() -> None:
    _require_make()
    _require(CHROMIUM.exists(), f"{CHROMIUM} is missing (Debian: apt-get install chromium)")


# ------------------------------------------------------------------------ the server
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _not_the_course(directory: str, names: list[str]) -> set[str]:
    """What a scratch copy leaves out: environments, caches, a class's grading state."""
    skip = {".git", ".venv", "test-artifacts", "build", "dist"}
    skip |= {n for n in names if n.startswith(".") and n.endswith("_cache")}
    skip |= {n for n in names if n in {"__pycache__", ".ipynb_checkpoints"}}
    skip |= {n for n in names if n.endswith(".egg-info")}
    if Path(directory).name == "autograde":
        skip |= {"submitted", "autograded", "feedback", "gradebook.db", "grades.csv"}
    return skip & set(names)


@pytest.fixture
def course(tmp_path) -> Path:
    """A scratch copy of the course. JupyterLab saves the notebooks it runs and writes
    .ipynb_checkpoints; none of that may land in the repository."""
    dest = tmp_path / "course"
    shutil.copytree(REPO, dest, ignore=_not_the_course, symlinks=True)
    return dest


def _newcomer_env(home: Path) -> dict[str, str]:
    """This process's environment without anything that would make JupyterLab, the
    kernel or make behave unlike a newcomer's first `make lab` (the test harness sets
    COURSE_STATIC_FIGURES, for example, which turns widgets into static figures)."""
    dropped = ("JUPYTER", "IPYTHON", "MPL", "XDG_", "MAKE", "MFLAGS", "NBGRADER", "COURSE_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    env["HOME"] = str(home)
    return env


@dataclass
class Lab:
    """A running `make lab`: where it is, and what it would open in a browser."""

    opens: str  # the URL `make lab` opens in the learner's browser
    base: str
    token: str
    root: Path
    log: Path

    def get(self, path: str) -> tuple[int, bytes]:
        request = urllib.request.Request(
            f"{self.base}/{path}", headers={"Authorization": f"token {self.token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def json(self, path: str):
        status, body = self.get(path)
        assert status == 200, f"GET /{path}: HTTP {status}\n{body[:500]!r}"
        return json.loads(body)

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:]


def _wait_for_browser_url(home: Path, server: subprocess.Popen, log: Path) -> str:
    """The page `make lab` opens in the learner's browser: with --no-browser, JupyterLab
    still writes it (jpserver-file-to-run-<pid>-open.html, in its runtime folder)."""
    deadline = time.monotonic() + SERVER_START
    while time.monotonic() < deadline:
        for page in home.rglob("jpserver-file-to-run-*-open.html"):
            found = re.search(r'url=(http[^"]+)"', page.read_text())
            if found:
                return found.group(1)
        if server.poll() is not None:
            pytest.fail(
                f"JupyterLab exited ({server.returncode}) before it served:\n"
                + log.read_text(errors="replace")[-3000:]
            )
        time.sleep(0.2)
    pytest.fail(f"JupyterLab did not start within {SERVER_START} s:\n" + log.read_text()[-3000:])


def _stop(server: subprocess.Popen, lab: Lab | None) -> None:
    """Shut JupyterLab down as a learner would (its kernels with it); signal the
    process group make started only if that fails."""
    if lab is not None:
        with contextlib.suppress(OSError):
            request = urllib.request.Request(
                f"{lab.base}/api/shutdown",
                method="POST",
                headers={"Authorization": f"token {lab.token}"},
            )
            urllib.request.urlopen(request, timeout=10).close()
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, sig)
        try:
            server.wait(timeout=30)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def make_lab(course: Path, target: str = "lab") -> Iterator[Lab]:
    """`make <target>` in the scratch copy, with the course's .venv (not reinstalled:
    `-o` tells make the install is current) and a fresh HOME."""
    home = course.parent / f"home-{target}"
    home.mkdir()
    port, token = _free_port(), secrets.token_hex(12)
    lab_args = (
        f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} "
        f"--ServerApp.port_retries=0 --IdentityProvider.token={token}"
    )
    command = ["make", "--no-print-directory", "-o", f"{VENV}/.installed", target]
    command += [f"VENV={VENV}", f"LAB_ARGS={lab_args}"]
    log = course.parent / f"make-{target}.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            command,
            cwd=course,
            env=_newcomer_env(home),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    lab = None
    try:
        opens = _wait_for_browser_url(home, server, log)
        lab = Lab(opens, f"http://127.0.0.1:{port}", token, course, log)
        yield lab
    finally:
        _stop(server, lab)


def _page_config(html: str) -> dict:
    found = re.search(
        r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', html, re.S
    )
    assert found, "the JupyterLab page has no jupyter-config-data"
    return json.loads(found.group(1))


def _nbgrader_cells(notebook: Path, *, tests: bool) -> list[int]:
    """Indices of the code cells (tests=False) or of the graded test cells (tests=True)."""
    cells = json.loads(notebook.read_text())["cells"]
    return [
        i
        for i, cell in enumerate(cells)
        if cell["cell_type"] == "code"
        and (not tests or cell["metadata"].get("nbgrader", {}).get("grade") is True)
        and not (tests and cell["metadata"].get("nbgrader", {}).get("solution"))
    ]


# --------------------------------------------------------------------------- browser
class Browser:
    """A Playwright page with numbered screenshots and failure notes."""

    def __init__(self, page, shots: Path, lab: Lab):
        self.page, self.shots, self.lab = page, shots, lab
        self.count = 0

    def shot(self, name: str) -> Path:
        self.count += 1
        path = self.shots / f"{self.count:02d}-{name}.png"
        self.page.screenshot(path=path)
        return path

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        """One thing a learner does; a screenshot after it, or where it went wrong."""
        try:
            yield
        except BaseException as error:
            note = f"browser step {name!r} failed; screenshots of every step: {self.shots}"
            with contextlib.suppress(Exception):
                note += f"\nscreenshot of the failure: {self.shot('FAILED-' + name)}"
            with contextlib.suppress(OSError):
                shutil.copy(self.lab.log, self.shots / "jupyterlab.log")
            note += f"\nJupyterLab's log ({self.lab.log}) ends:\n{self.lab.log_tail(2000)}"
            error.add_note(note)
            raise
        self.shot(name)


@contextlib.contextmanager
def chromium(lab: Lab, name: str) -> Iterator[Browser]:
    """Debian's Chromium, headless, with a fresh profile, opened on what `make lab`
    opens in the learner's browser. Screenshots go to test-artifacts/browser/<name>/."""
    _require_browser()
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)  # a kernel starts slowly on a busy 2-core runner
    shots = ARTIFACTS / name
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(lab.root.parent / f"chromium-profile-{name}"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 900},
        )
        context.set_default_timeout(60_000)
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.goto(lab.opens)
            yield Browser(page, shots, lab)
        finally:
            context.close()


def _notebook(browser: Browser, path: str):
    """The notebook on show, checked to be ``path``, once the course's kernel is
    started and idle and all its cells are attached (JupyterLab adds a long
    notebook's cells in batches)."""
    from playwright.sync_api import expect

    page = browser.page
    expect(page).to_have_url(re.compile(rf"/lab/tree/{re.escape(path)}(\?|$)"))
    panel = page.locator(".jp-NotebookPanel:visible")
    expect(panel.locator(".jp-Toolbar-kernelName")).to_have_text(KERNEL)
    expect(page.locator(".jp-StatusBar-Widget")).to_contain_text(f"{KERNEL} | Idle")
    cells = len(json.loads((browser.lab.root / path).read_text())["cells"])
    expect(panel.locator(".jp-Notebook .jp-Cell")).to_have_count(cells)
    return panel


def _no_popups(page) -> None:
    page.wait_for_load_state("networkidle")
    dialogs = page.locator(".jp-Dialog")
    assert dialogs.count() == 0, f"a dialog is open: {dialogs.first.inner_text()!r}"
    toasts = page.locator(".Toastify__toast")
    assert toasts.count() == 0, f"a notification pops up: {toasts.first.inner_text()!r}"


def _file_browser_open(page, *names: str) -> None:
    """From the root of the file browser, double-click each name in turn."""
    files = page.locator("#filebrowser")
    files.locator(".jp-BreadCrumbs-home").click()
    for name in names:
        exact = re.compile(rf"^\s*{re.escape(name)}\s*$")
        files.locator(".jp-DirListing-item").filter(
            has=page.locator(".jp-DirListing-itemText", has_text=exact)
        ).dblclick()


def _run_cell(page, cell) -> None:
    """Select a cell as a learner does, run it (Ctrl+Enter), wait until it has run."""
    from playwright.sync_api import expect

    cell.locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")
    expect(cell.locator(".jp-InputPrompt")).to_have_text(
        re.compile(r"^\[\d+\]:$"), timeout=KERNEL_RUN
    )


def _run_all(page, panel) -> None:
    """Run > Run All Cells, then wait until every code cell has run."""
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-item[data-command='runmenu:run-all']").click()
    page.wait_for_function(
        """panel => {
            const prompts = [...panel.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
            return prompts.length > 0
                && prompts.every(p => /^\\[\\d+\\]:$/.test(p.textContent.trim()));
        }""",
        arg=panel.element_handle(),
        timeout=KERNEL_RUN,
    )


def _validate(browser: Browser, panel) -> tuple[str, str]:
    """Press nbgrader's Validate button (it saves the notebook first); return the
    verdict's class and text, and close the verdict after a screenshot of it."""
    from playwright.sync_api import expect

    page = browser.page
    panel.locator(".validate-button").click()
    message = page.locator(".jp-Dialog #validation-message")
    message.wait_for(timeout=KERNEL_RUN)
    verdict = (message.get_attribute("class") or "", message.inner_text())
    browser.shot("validation-results")
    page.locator(".jp-Dialog .jp-Dialog-button.jp-mod-accept").click()
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    return verdict


def _error_outputs(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text())["cells"]
    return [
        f"cell {i}: {output['ename']}: {output['evalue']}"
        for i, cell in enumerate(cells)
        for output in cell.get("outputs", [])
        if output["output_type"] == "error"
    ]


WIDGETS_CHECK = "widgets_check.ipynb"  # written into the scratch copy only
WIDGETS_CODE = """\
import matplotlib.pyplot as plt
from transformer_course.plotting import interactive_or_static

def draw(k):
    plt.plot(range(10), [x**k for x in range(10)])
    plt.title(f"x to the power {k}")

interactive_or_static(draw, static={"k": 1}, k=(1, 5, 1))"""


def _write_widgets_check(root: Path) -> None:
    """A one-cell notebook calling plotting.interactive_or_static, as lessons do."""
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": "widgets",
                "metadata": {},
                "outputs": [],
                "source": WIDGETS_CODE,
            }
        ],
        "metadata": {
            "kernelspec": {"display_name": KERNEL, "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / WIDGETS_CHECK).write_text(json.dumps(notebook))


# ----------------------------------------------------------------------------- tests
def test_make_lab_a_learners_first_session(course):
    """`make lab`, first over HTTP (this part runs without Chromium too), then in the
    browser as a newcomer uses it: lesson 00 opens ready to work, with no pop-up;
    the student notebook's test cells teach and Validate says "not yet"; lesson 01
    and the solutions are a few clicks away; a solution runs clean and validates;
    an interactive figure's slider redraws it."""
    _require_make()
    _write_widgets_check(course)
    with make_lab(course) as lab:
        # ---- the server, over HTTP
        assert lab.opens.startswith(f"{lab.base}/lab/tree/{LESSON_00}?"), lab.opens
        assert "--ServerApp.root_dir=." in lab.log.read_text(), "make lab must serve the repo"
        listing = {item["name"] for item in lab.json("api/contents")["content"]}
        assert {"notebooks", "solutions", "README.md"} <= listing, listing
        status, html = lab.get(f"lab/tree/{LESSON_00}")
        assert status == 200
        config = _page_config(html.decode())
        assert Path(config["serverRoot"]).resolve() == course.resolve()
        assert INSTRUCTOR_PLUGINS <= set(config["disabledExtensions"]), config["disabledExtensions"]
        assert "@jupyter/nbgrader:validate-assignment" not in config["disabledExtensions"]
        assert config["news"] == {"disabled": True}
        assert config["buildCheck"] is False  # no "Build recommended" prompt
        notification = lab.json("lab/api/settings/@jupyterlab/apputils-extension:notification")
        assert notification["schema"]["properties"]["fetchNews"]["default"] == "false"
        # Validate's server extension answers; the instructor's are not loaded.
        assert lab.json(f"nbgrader_version?version={nbgrader.__version__}")["success"] is True
        for route in INSTRUCTOR_ROUTES:
            assert lab.get(route)[0] == 404, f"/{route} is served to learners"
        kernels = lab.json("api/kernelspecs")
        assert kernels["default"] == "python3"
        python = kernels["kernelspecs"]["python3"]["spec"]["argv"][0]
        assert python == "python" or Path(python).parent == VENV / "bin", python

        # ---- in the browser
        with chromium(lab, "learner") as browser:
            page = browser.page
            from playwright.sync_api import expect

            with browser.step("lesson-00-opens"):
                panel = _notebook(browser, LESSON_00)
                tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
                expect(tab).to_contain_text("00_welcome.ipynb")
                sessions = [(s["path"], s["kernel"]["name"]) for s in lab.json("api/sessions")]
                assert sessions == [(LESSON_00, "python3")], sessions
            with browser.step("no-popups"):
                _no_popups(page)
            with browser.step("learner-toolbar"):
                expect(panel.locator(".validate-button")).to_be_visible()
                expect(page.locator(".lm-MenuBar-item", has_text="Nbgrader")).to_have_count(0)
                create = page.locator(".lm-TabBar-tab[title*='Create Assignment']")
                expect(create).to_have_count(0)

            student = lab.root / LESSON_00
            cells = panel.locator(".jp-Notebook .jp-Cell")
            tests = _nbgrader_cells(student, tests=True)
            assert tests, "lesson 00 has no graded test cell"
            with browser.step("student-runs-every-cell"):
                for i in _nbgrader_cells(student, tests=False):
                    _run_cell(page, cells.nth(i))
            for i in tests:
                with browser.step(f"test-cell-{i}-teaches"):
                    cells.nth(i).scroll_into_view_if_needed()
                    outputs = cells.nth(i).locator(".jp-OutputArea-output").all_inner_texts()
                    text = "\n".join(outputs)
                    assert "not yet right" in text, f"test cell {i} shows:\n{text}"
                    assert "not implemented yet" in text, f"test cell {i} shows:\n{text}"
                    assert "Traceback" not in text, f"test cell {i}, a bare traceback:\n{text}"
            with browser.step("student-validate-says-not-yet"):
                verdict, text = _validate(browser, panel)
                assert "validation-failed" in verdict, text
                assert "not implemented yet" in text, text

            with browser.step("browse-to-lesson-01"):
                lesson_01 = "notebooks/01_tokenization/01_tokenization.ipynb"
                _file_browser_open(page, "notebooks", "01_tokenization", "01_tokenization.ipynb")
                panel = _notebook(browser, lesson_01)
                expect(panel.locator(".jp-MarkdownOutput").first).to_contain_text("Tokeni")
            with browser.step("browse-to-the-solutions"):
                _file_browser_open(page, "solutions")
                names = page.locator("#filebrowser .jp-DirListing-itemText")
                expect(names.filter(has_text=re.compile(r"^\s*00_welcome\s*$"))).to_have_count(1)
                shown = {n.strip() for n in names.all_inner_texts()}
                lessons = {p.name for p in (lab.root / "solutions").iterdir() if p.is_dir()}
                assert lessons <= shown, f"missing from the file browser: {lessons - shown}"
            with browser.step("solution-00-runs-clean"):
                _file_browser_open(page, "solutions", "00_welcome", "00_welcome.ipynb")
                panel = _notebook(browser, SOLUTION_00)
                _run_all(page, panel)
                text = " ".join(panel.locator(".jp-OutputArea-output").all_inner_texts())
                assert "Traceback" not in text and "not yet right" not in text, text[-3000:]
                assert "✓" in text, "no test cell of the solution says it passed"
            with browser.step("solution-validates"):
                verdict, text = _validate(browser, panel)
                assert "validation-success" in verdict, text
                assert "passes all the tests" in text, text
                assert _error_outputs(lab.root / SOLUTION_00) == []  # as saved by Validate

            with browser.step("widget-slider-and-figure"):
                _file_browser_open(page, WIDGETS_CHECK)
                cell = _notebook(browser, WIDGETS_CHECK).locator(".jp-Cell").first
                _run_cell(page, cell)
                figure = cell.locator(".jp-OutputArea-output img")
                readout = cell.locator(".widget-slider .widget-readout")
                expect(readout).to_have_text(re.compile(r"^\s*[1-4]\s*$"))
                expect(figure).to_have_count(1)
                k, first = int(readout.inner_text()), figure.get_attribute("src")
            with browser.step("widget-slider-redraws"):
                cell.locator(".widget-slider .noUi-handle").focus()
                page.keyboard.press("ArrowRight")
                expect(readout).to_have_text(str(k + 1))
                expect(figure).not_to_have_attribute("src", first)  # redrawn for the new k
                expect(figure).to_have_count(1)


def test_make_lab_instructor_adds_nbgrader_instructor_tools(course):
    """`make lab-instructor`: the instructor version of lesson 00, with nbgrader's
    Create Assignment panel, its menu (Formgrader) and their server side; the
    learner's settings (no pop-ups) still apply."""
    _require_make()
    with make_lab(course, "lab-instructor") as lab:
        assert lab.opens.startswith(f"{lab.base}/lab/tree/{SOLUTION_00}?"), lab.opens
        status, html = lab.get(f"lab/tree/{SOLUTION_00}")
        assert status == 200
        config = _page_config(html.decode())
        assert not INSTRUCTOR_PLUGINS & set(config["disabledExtensions"])
        assert config["news"] == {"disabled": True}
        assert lab.get("formgrader")[0] == 200, lab.log_tail()
        assert lab.get("formgraders")[0] == 200, lab.log_tail()

        with chromium(lab, "instructor") as browser:
            page = browser.page
            with browser.step("create-assignment-panel"):
                panel = _notebook(browser, SOLUTION_00)
                panel.locator(".validate-button").wait_for()
                page.locator(".lm-TabBar-tab[title*='Create Assignment']").click()
                page.locator(".lm-Widget", has_text="Total points").last.wait_for()
            with browser.step("nbgrader-menu"):
                page.locator(".lm-MenuBar-item", has_text="Nbgrader").click()
                page.locator(".lm-Menu-item", has_text="Formgrader").first.wait_for()
            page.keyboard.press("Escape")
            _no_popups(page)


# ------------------------------------------------------------------ without `make`
def _start_here_blocks() -> dict[str, list[str]]:
    """The README's "Start here" code blocks, by language."""
    readme = (REPO / "README.md").read_text()
    section = re.search(r"^## Start here\n(.*?)^## ", readme, re.S | re.M).group(1)
    blocks: dict[str, list[str]] = {}
    for language, body in re.findall(r"```(\w+)\n(.*?)```", section, re.S):
        blocks.setdefault(language, []).append(body)
    return {language: bodies for language, bodies in blocks.items()}


def _commands(block: str) -> list[str]:
    """The command lines of a code block, without trailing comments."""
    lines = [re.sub(r"\s+#\s.*$", "", line).strip() for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def _without_make() -> tuple[list[str], list[str]]:
    blocks = _start_here_blocks()
    bash = [_commands(b) for b in blocks["bash"] if "pip install" in b]
    powershell = [_commands(b) for b in blocks.get("powershell", []) if "pip install" in b]
    assert len(bash) == 1 and len(powershell) == 1, "README: one bash and one PowerShell block"
    return bash[0], powershell[0]


def test_readme_start_here_for_windows_says_the_same_as_for_linux():
    """The PowerShell commands are the Linux ones, spelled for Windows; and both
    install the torch version that `make` installs."""
    _require_make()
    bash, powershell = _without_make()
    translated = []
    for line in powershell:
        line = re.sub(r'\$env:(\w+) = "([^"]*)"; ', r'\1="\2" ', line)
        line = line.replace("\\", "/").replace(".venv/Scripts/", ".venv/bin/")
        line = line.replace("; ", " && ").replace("python -m venv", "python3 -m venv")
        translated.append(line)
    assert translated == bash
    torch_spec = re.search(r"^TORCH_SPEC \?= (\S+)$", (REPO / "Makefile").read_text(), re.M)
    assert any(f'"{torch_spec.group(1)}"' in line for line in bash), (torch_spec.group(1), bash)
    make_lab = subprocess.run(
        ["make", "-n", "-o", f"{VENV}/.installed", "lab", f"VENV={VENV}"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    ).stdout.strip()
    lab_line = next(line for line in bash if "jupyter lab" in line)
    # The same configuration folder, root and first notebook as `make lab`.
    lab_args = lab_line.split("jupyter lab", 1)[1].split()
    assert all(arg in make_lab.split() for arg in lab_args), (lab_line, make_lab)
    assert "jupyter-config/learner" in lab_line and "jupyter-config/learner" in make_lab


@pytest.mark.slow(90)  # started first by pytest-xdist (tests/conftest.py)
def test_readme_start_here_without_make_works(tmp_path):
    """The README's commands for a learner without make, run as written in a fresh
    clone: a new virtual environment, pip (torch included), JupyterLab serving lesson
    00 with the course's configuration, and the test command (collecting only: the
    suite itself is what `make test` runs). The new environment (~1.3 GB) stays in
    pytest's temporary folder, which pytest prunes to its last three runs."""
    _require(shutil.which("bash") is not None, "bash is not installed")
    bash, _ = _without_make()
    clone = tmp_path / "clone"
    shutil.copytree(REPO, clone, ignore=_not_the_course, symlinks=True)
    home = tmp_path / "home"
    home.mkdir()
    env = _newcomer_env(home)
    env.pop("VIRTUAL_ENV", None)
    # pip's own download cache, not the empty one a fresh HOME would give: the same
    # packages, fetched once.
    cache = subprocess.run(
        [sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True
    )
    if cache.returncode == 0 and cache.stdout.strip():
        env.setdefault("PIP_CACHE_DIR", cache.stdout.strip())
    # Nor does the test wait for pip to precompile bytecode for tens of thousands of
    # files (Python does it on first import). pip reads PIP_NO_COMPILE=0 as --no-compile.
    env["PIP_NO_COMPILE"] = "0"
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if Path(p) != VENV / "bin"
    )
    install = [line for line in bash if "jupyter lab" not in line and "pytest" not in line]
    (lab_line,) = [line for line in bash if "jupyter lab" in line]
    (test_line,) = [line for line in bash if "pytest" in line]
    started = time.monotonic()
    for line in install:
        result = subprocess.run(
            ["bash", "-c", line], cwd=clone, env=env, capture_output=True, text=True
        )
        assert result.returncode == 0, f"{line}\n{result.stdout[-2000:]}{result.stderr[-3000:]}"
    print(f"README install: {time.monotonic() - started:.0f} s")
    started = time.monotonic()

    port, token = _free_port(), secrets.token_hex(12)
    extra = (
        f" --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port}"
        f" --ServerApp.port_retries=0 --IdentityProvider.token={token}"
        + (" --allow-root" if os.geteuid() == 0 else "")  # as `make lab` adds for root
    )
    log = tmp_path / "jupyter-lab.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            ["bash", "-c", lab_line + extra],
            cwd=clone,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    lab = None
    try:
        opens = _wait_for_browser_url(home, server, log)
        lab = Lab(opens, f"http://127.0.0.1:{port}", token, clone, log)
        assert opens.startswith(f"{lab.base}/lab/tree/{LESSON_00}?"), opens
        status, html = lab.get(f"lab/tree/{LESSON_00}")
        assert status == 200
        config = _page_config(html.decode())
        assert Path(config["serverRoot"]).resolve() == clone.resolve()
        assert INSTRUCTOR_PLUGINS <= set(config["disabledExtensions"])
        assert lab.json(f"api/contents/{LESSON_00}?content=0")["type"] == "notebook"
        assert lab.json("api/kernelspecs")["default"] == "python3"
    finally:
        _stop(server, lab)
    kernels = subprocess.run(
        [str(clone / ".venv/bin/jupyter"), "kernelspec", "list", "--json"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    kernel_dir = Path(json.loads(kernels.stdout)["kernelspecs"]["python3"]["resource_dir"])
    assert kernel_dir.is_relative_to(clone / ".venv"), f"python3 kernel from {kernel_dir}"
    print(f"README JupyterLab: {time.monotonic() - started:.0f} s")
    started = time.monotonic()

    result = subprocess.run(
        ["bash", "-c", test_line + " --collect-only -q -p no:cacheprovider"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert re.search(r"\d+ tests? collected", result.stdout), result.stdout[-1000:]
    print(f"README test command (collection): {time.monotonic() - started:.0f} s")
