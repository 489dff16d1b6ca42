"""The course run by an instructor on a real JupyterHub (`make hub`), end to end.

One hub per module (``course-hub start``, as `make hub` runs it), with real Unix accounts
(PAMAuthenticator, LocalProcessSpawner): an instructor and three students from a roster
CSV. The cycle is lesson 00 through nbgrader's exchange, as a class runs it: the
instructor generates and releases it; one student fetches it through her own server's
Assignments API (what the Assignments tab calls) and solves it in her server, the other
two fetch and submit by nbgrader's CLI as themselves, one half done (a wrong answer), one
twice (untouched, then solved); the instructor collects, grades with ``course-grader``
(its sandbox), releases the feedback; each student fetches their own and sees only their
own score and no hidden test. The scores equal ``nbgrader autograde``'s on the same
collected submissions. The isolation tests then run, as a student's uid (the uid their
server and kernels run as, checked), what a student could try: reading another
student's home and submission, the instructor's solutions and gradebook. In Chromium, a
fourth student does it by clicking (Assignments tab, test cell, Validate, Submit, Fetch
Feedback) and the instructor sees the scores in the formgrader; screenshots of every step
go to test-artifacts/browser/hub-student/ and hub-instructor/. Last, the fallback without
root (one shared account) is set up and its configuration read.

Needs root (accounts, setuid), JupyterHub and the proxy `make install` installs. Outside
CI, a missing piece skips; in CI (CI=true) it fails.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import html
import http.cookiejar
import json
import os
import pwd
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from common import points, scores, solutions

from transformer_course import hub as course_hub
from transformer_course.build import REPO, tool_env

pytestmark = [pytest.mark.pipeline, pytest.mark.xdist_group("hub"), pytest.mark.slow(240)]

LESSON = "00_welcome"  # the smallest graded lesson: one exercise, one point
COURSE = course_hub.COURSE_ID
VENV = Path(sys.prefix)
VENV_BIN = VENV / "bin"
HUB_START = 120  # seconds
SERVER_START = 180
WRONG = "def center_rows(x):\n    return x - x.mean(axis=0, keepdims=True)\n"  # columns


def _readme_hub() -> tuple[str, list[str]]:
    """The README's hub section: its `make hub` line and the instructor's commands."""
    readme = (REPO / "README.md").read_text()
    section = re.search(r"^### A course hub .*?(?=^##)", readme, re.S | re.M)
    assert section, "README: no section '### A course hub'"
    blocks = re.findall(r"```bash\n(.*?)```", section.group(0), re.S)
    assert len(blocks) == 2, "README's hub section: one block to start, one for the cycle"
    lines = [[ln.strip() for ln in b.splitlines() if ln.strip()] for b in blocks]
    (start,) = lines[0]
    return start, lines[1]


# The cycle, in the README's order (its block is checked to say exactly this).
INSTRUCTOR_STEPS = [
    f"cd ~/{COURSE}",
    f"nbgrader generate_assignment {LESSON} --force",
    f"nbgrader release_assignment {LESSON} --force",
    f"nbgrader collect {LESSON}",
    f"course-grader {LESSON}",
    f"nbgrader release_feedback {LESSON}",
]


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _require(ok: bool, what: str) -> None:
    if not ok:
        if _in_ci():
            pytest.fail(f"{what}; CI must run the hub tests (.ci/run installs what they need)")
        pytest.skip(what)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Hub:
    """A running course hub: its settings, its REST API, and commands as its users."""

    def __init__(self, settings: dict, log: Path, roster: Path):
        self.settings, self.log, self.roster = settings, log, roster
        self.base = f"http://127.0.0.1:{settings['port']}"
        self.instructor = settings["instructor"]
        self.students = settings["students"]
        self.cycle_students, self.browser_student = self.students[:3], self.students[3]
        self.course_dir = Path(settings["course_dir"])
        self.exchange = Path(settings["exchange"])

    def request(self, method: str, url: str, token: str, data=None, form=False):
        headers = {"Authorization": f"token {token}"}
        body = None
        if data is not None:
            if form:
                body = urllib.parse.urlencode(data).encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            else:
                body = json.dumps(data).encode()
                headers["Content-Type"] = "application/json"
        request = urllib.request.Request(f"{self.base}{url}", body, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                text = response.read()
                return response.status, (json.loads(text) if text.strip() else None)
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def admin(self, method: str, path: str, data=None):
        return self.request(method, f"/hub/api{path}", self.settings["admin_token"], data)

    def log_tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:]

    def as_user(self, user: str, argv: list[str], *, cwd: Path | None = None, check=True):
        role = "instructor" if user == self.instructor else "student"
        result = course_hub.as_user(
            user,
            argv,
            env=course_hub.role_env(self.settings, role),
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if check:
            assert result.returncode == 0, (
                f"as {user}: {' '.join(argv)} exited {result.returncode}\n"
                f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
            )
        return result

    def nbgrader(self, user: str, *args: str, check=True):
        cwd = self.course_dir if user == self.instructor else None
        return self.as_user(user, [str(VENV_BIN / "nbgrader"), *args], cwd=cwd, check=check)

    def instructor_runs(self, line: str, check=True):
        """A README command line, as the instructor, in the course directory (the
        commands are found on the PATH their server has: the course's environment)."""
        return self.as_user(self.instructor, shlex.split(line), cwd=self.course_dir, check=check)

    def home(self, user: str) -> Path:
        return Path(pwd.getpwnam(user).pw_dir)

    def spawn(self, user: str) -> None:
        """Ask the hub to start the user's server (it starts in the background)."""
        status, body = self.admin("POST", f"/users/{user}/server")
        assert status in (201, 202), f"spawn {user}: HTTP {status} {body}\n{self.log_tail()}"

    def server_token(self, user: str) -> str:
        """Wait for the user's server; return a token of the user's for its API."""
        deadline = time.monotonic() + SERVER_START
        while time.monotonic() < deadline:
            status, model = self.admin("GET", f"/users/{user}")
            server = (model.get("servers") or {}).get("", {}) if status == 200 else {}
            if server.get("ready"):
                break
            time.sleep(0.5)
        else:
            pytest.fail(f"{user}'s server did not start in {SERVER_START} s:\n{self.log_tail()}")
        status, token = self.admin("POST", f"/users/{user}/tokens", {"note": "test"})
        assert status == 201, f"token for {user}: HTTP {status} {token}"
        return token["token"]

    def password(self, user: str) -> str:
        rows = (Path(self.settings["state"]) / "passwords.csv").read_text().splitlines()
        return dict(row.split(",", 1) for row in rows[1:])[user]

    def login(self, user: str, password: str) -> int:
        """Log in on the hub's login page (PAM); the HTTP status of the form's answer."""
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _NoRedirect())
        with opener.open(f"{self.base}/hub/login", timeout=60) as page:
            xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.read().decode()).group(1)
        form = urllib.parse.urlencode({"username": user, "password": password, "_xsrf": xsrf})
        try:
            with opener.open(f"{self.base}/hub/login", form.encode(), timeout=60) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def _Config():
    from traitlets.config import Config

    return Config()


def _roster(folder: Path, students: list[str]) -> Path:
    roster = folder / "roster.csv"
    lines = ["id,first_name,last_name,email"]
    lines += [f"{s},{s.title()},Student,{s}@example.org" for s in students]
    roster.write_text("\n".join(lines) + "\n")
    return roster


def _stop(make: subprocess.Popen, pid_file: Path) -> None:
    """Stop the hub as Ctrl+C does: course-hub stops JupyterHub (and every user's server)
    and takes back the traverse bits it granted; then make ends."""
    with contextlib.suppress(OSError, ValueError):
        os.kill(int(pid_file.read_text()), signal.SIGINT)
    try:
        make.wait(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(make.pid, signal.SIGKILL)
        make.wait()


def _remove_accounts(names: list[str]) -> None:
    for name in names:
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
            subprocess.run(["userdel", "--remove", name], capture_output=True)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    _require(os.geteuid() == 0, "the hub tests make Unix accounts: run them as root")
    _require(shutil.which("useradd") is not None, "useradd is missing")
    _require(shutil.which("make") is not None, "make is missing")
    _require(course_hub.PROXY.exists(), f"{course_hub.PROXY} is missing (make install, npm)")
    try:
        import jupyterhub  # noqa: F401
    except ImportError:
        _require(False, "JupyterHub is not installed (make install installs .[dev,hub])")

    tag = secrets.token_hex(2)
    instructor = f"hub{tag}prof"
    # Ada, Alan and Grace go through the scripted cycle; Bo through the browser.
    students = [f"hub{tag}{name}" for name in ("ada", "alan", "grace", "bo")]
    work = tmp_path_factory.mktemp("hub")
    roster = _roster(work, students)
    # The state folder must be reachable by the students (pytest's own is 0700).
    state = Path(tempfile.mkdtemp(prefix="course-hub-"))
    os.chmod(state, 0o755)
    log = work / "hub.log"
    port = _free_port()
    # The README's command, with this test's roster, users, folders and port added.
    start, _ = _readme_hub()
    readme_args = re.fullmatch(r'make hub ROSTER=students\.csv HUB_ARGS="([^"]*)"', start)
    assert readme_args, f"README's hub command is not `make hub ROSTER=... HUB_ARGS=...`: {start}"
    hub_args = (
        f"{readme_args.group(1)} --instructor {instructor} --state {state / 'hub'} "
        f"--exchange {state / 'exchange'} --port {port}"
    )
    command = ["make", "--no-print-directory", "-o", f"{VENV}/.installed", "hub"]
    command += [f"VENV={VENV}", f"ROSTER={roster}", f"HUB_ARGS={hub_args}"]
    env = {k: v for k, v in tool_env().items() if not k.startswith(("MAKE", "MFLAGS"))}
    env.pop("COURSE_TEST_RUN", None)
    started = time.monotonic()
    with log.open("w") as out:
        launcher = subprocess.Popen(
            command,
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        settings_file = state / "hub" / "settings.json"
        deadline = time.monotonic() + HUB_START
        running = None
        while time.monotonic() < deadline:
            if launcher.poll() is not None:
                pytest.fail(f"course-hub exited ({launcher.returncode}):\n{log.read_text()}")
            if settings_file.exists() and running is None:
                with contextlib.suppress(ValueError):
                    running = Hub(json.loads(settings_file.read_text()), log, roster)
            if running is not None:
                with contextlib.suppress(OSError):
                    urllib.request.urlopen(f"{running.base}/hub/api/", timeout=5).close()
                    break
            time.sleep(0.3)
        else:
            pytest.fail(f"the hub did not answer within {HUB_START} s:\n{log.read_text()[-4000:]}")
        print(f"hub up in {time.monotonic() - started:.1f} s")
        yield running
    finally:
        _stop(launcher, state / "hub" / "course-hub.pid")
        _remove_accounts([instructor, *students])
        shutil.rmtree(state, ignore_errors=True)


# ----------------------------------------------------------------------- notebook edits
def _answered(notebook: dict, answer: str) -> dict:
    """The notebook with lesson 00's answer cell replaced, as a student types it."""
    notebook = json.loads(json.dumps(notebook))
    cells = [c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("solution")]
    assert [c["metadata"]["nbgrader"]["grade_id"] for c in cells] == ["center_rows"]
    cells[0]["source"] = answer
    return notebook


EDIT_AS_STUDENT = """
import json, sys
path, answer = sys.argv[1], sys.argv[2]
nb = json.load(open(path))
for cell in nb["cells"]:
    if cell["metadata"].get("nbgrader", {}).get("solution"):
        cell["source"] = answer
json.dump(nb, open(path, "w"), indent=1)
"""


def _edit_as(hub: Hub, user: str, answer: str) -> None:
    path = hub.home(user) / LESSON / f"{LESSON}.ipynb"
    hub.as_user(user, [str(VENV_BIN / "python"), "-c", EDIT_AS_STUDENT, str(path), answer])


# ---------------------------------------------------------------------------- the cycle
def _at_once(*work) -> None:
    """Run the calls in parallel threads (each waits on its own processes); re-raise."""
    with concurrent.futures.ThreadPoolExecutor(len(work)) as pool:
        for future in [pool.submit(w) for w in work]:
            future.result()


@pytest.fixture(scope="module")
def cycle(hub):
    """Release, fetch, work, submit, collect, grade, return: the whole class's cycle."""
    started = time.monotonic()
    times: list[str] = []

    def mark(what: str) -> None:
        times.append(f"{time.monotonic() - started:6.1f} s  {what}")

    ada, alan, grace = hub.cycle_students
    solved = solutions(LESSON)["center_rows"]
    _, steps = _readme_hub()
    assert steps == INSTRUCTOR_STEPS, "README's instructor commands are not the tested cycle"
    assert Path(steps[0].split()[1]).name == hub.course_dir.name
    generate, release, collect, grade, release_feedback = steps[1:]
    # The instructor: the student version and its release into the exchange.
    hub.instructor_runs(generate)
    hub.instructor_runs(release)
    mark("released")

    # Ada logs in (PAM, her roster password) and her server starts; meanwhile Alan and
    # Grace fetch by nbgrader's CLI, as themselves: Alan leaves a wrong answer (half
    # done), Grace submits the untouched notebook, then again, solved.
    assert hub.login(ada, "not her password") == 403
    assert hub.login(ada, hub.password(ada)) == 302
    hub.spawn(ada)
    path = f"{LESSON}/{LESSON}.ipynb"

    def alans_work() -> None:
        hub.nbgrader(alan, "fetch_assignment", LESSON)
        _edit_as(hub, alan, WRONG)
        hub.nbgrader(alan, "submit", LESSON)

    def graces_work() -> None:
        hub.nbgrader(grace, "fetch_assignment", LESSON)
        hub.nbgrader(grace, "submit", LESSON)
        time.sleep(1.1)  # nbgrader's timestamps: a later second
        _edit_as(hub, grace, solved)
        hub.nbgrader(grace, "submit", LESSON)

    _at_once(alans_work, graces_work)  # students work at the same time
    mark("Alan and Grace fetched and submitted by the CLI")

    # Ada, in her own server: the Assignments tab's API lists and fetches the lesson; she
    # answers (the contents API is what JupyterLab saves with) and submits.
    token = hub.server_token(ada)
    mark("Ada logged in and her server started")
    user_url = f"/user/{ada}"
    status, listed = hub.request("GET", f"{user_url}/assignments?course_id={COURSE}", token)
    assert status == 200, listed
    assert listed["success"], listed
    released = [(a["assignment_id"], a["status"]) for a in listed["value"]]
    assert (LESSON, "released") in released, released
    status, fetched = hub.request(
        "POST",
        f"{user_url}/assignments/fetch",
        token,
        {"course_id": COURSE, "assignment_id": LESSON},
        form=True,
    )
    assert status == 200 and fetched["success"], fetched
    status, model = hub.request("GET", f"{user_url}/api/contents/{path}", token)
    assert status == 200, model
    notebook = _answered(model["content"], solved)
    status, saved = hub.request(
        "PUT",
        f"{user_url}/api/contents/{path}",
        token,
        {"type": "notebook", "format": "json", "content": notebook},
    )
    assert status == 200, saved
    assert (hub.home(ada) / path).stat().st_uid == pwd.getpwnam(ada).pw_uid
    status, submitted = hub.request(
        "POST",
        f"{user_url}/assignments/submit",
        token,
        {"course_id": COURSE, "assignment_id": LESSON},
        form=True,
    )
    assert status == 200 and submitted["success"], submitted
    mark("Ada fetched, answered and submitted through her server")

    # The instructor collects, grades with course-grader, returns the feedback.
    hub.instructor_runs(collect)
    mark("collected")
    grading = hub.instructor_runs(grade, check=False)
    assert grading.returncode == 0, f"{grading.stdout[-4000:]}\n{grading.stderr[-3000:]}"
    mark("graded by course-grader")
    hub.instructor_runs(release_feedback)
    _at_once(
        *(functools.partial(hub.nbgrader, s, "fetch_feedback", LESSON) for s in hub.cycle_students)
    )
    mark("feedback released and fetched")
    seconds = time.monotonic() - started
    print("the cycle:", *times, grading.stdout[-1500:], sep="\n")
    return {"grading": grading, "seconds": seconds}


def _gradebook(hub: Hub) -> str:
    return f"sqlite:///{hub.course_dir}/autograde/gradebook.db"


def test_the_class_cycle_scores(hub, cycle):
    """course-grader's scores: Ada solved it, Alan's answer is wrong, Grace's second
    submission (solved) is the one collected."""
    ada, alan, grace = hub.cycle_students
    total = sum(points(LESSON).values())
    got = {s: sum(e.values()) for s, e in scores(_gradebook(hub), LESSON).items()}
    assert got == {ada: total, alan: 0.0, grace: total}, cycle["grading"].stdout[-3000:]
    collected = hub.course_dir / "autograde" / "submitted" / grace / LESSON / f"{LESSON}.ipynb"
    answer = [
        "".join(c["source"])
        for c in json.loads(collected.read_text())["cells"]
        if c["metadata"].get("nbgrader", {}).get("solution")
    ]
    assert answer == [solutions(LESSON)["center_rows"]], "collect took Grace's first submission"
    # Run as the instructor, course-grader still sandboxes (README's hub section).
    summary = cycle["grading"].stdout
    assert "bubblewrap sandbox" in summary and "seccomp filter" in summary, summary[:2000]
    assert "DEGRADED ISOLATION" not in summary, summary[:2000]


def test_scores_equal_nbgrader_autograde(hub, cycle, tmp_path):
    """`nbgrader autograde` on a copy of the same collected submissions (its own gradebook)
    gives the same score to every student, exercise by exercise."""
    copy = tmp_path / "course"
    shutil.copytree(hub.course_dir, copy, symlinks=True)
    (copy / "autograde" / "gradebook.db").unlink()
    shutil.rmtree(copy / "autograde" / "autograded", ignore_errors=True)
    shutil.rmtree(copy / "autograde" / "feedback", ignore_errors=True)
    env = tool_env()
    env.pop("JUPYTER_CONFIG_PATH", None)
    for args in (["generate_assignment", LESSON, "--force"], ["autograde", LESSON, "--force"]):
        result = subprocess.run(
            [str(VENV_BIN / "nbgrader"), *args],
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert result.returncode == 0, f"nbgrader {args}:\n{result.stdout}\n{result.stderr}"
    theirs = scores(f"sqlite:///{copy}/autograde/gradebook.db", LESSON)
    ours = scores(_gradebook(hub), LESSON)
    assert set(ours) == set(hub.cycle_students)
    assert ours == theirs


def _feedback(hub: Hub, student: str) -> str:
    pages = list((hub.home(student) / LESSON / "feedback").glob(f"*/{LESSON}.html"))
    assert len(pages) == 1, f"{student}'s fetched feedback: {pages}"
    assert pages[0].stat().st_uid == pwd.getpwnam(student).pw_uid
    return pages[0].read_text()


def test_each_student_fetches_only_their_own_feedback(hub, cycle):
    ada, alan, grace = hub.cycle_students
    total = sum(points(LESSON).values())
    expected = {ada: total, alan: 0.0, grace: total}
    master = (REPO / "solutions" / LESSON / f"{LESSON}.py").read_text()
    hidden = re.search(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", master, re.S)
    for student in hub.cycle_students:
        page = _feedback(hub, student)
        text = html.unescape(re.sub(r"<[^>]+>", " ", page))
        assert f"center_rows ({expected[student]:g} / {total:g})" in " ".join(text.split())
        for other in set(hub.students) - {student}:
            assert other not in page, f"{student}'s feedback names {other}"
        assert hidden.group(1).strip() not in text, f"{student}'s feedback shows a hidden test"
        assert "BEGIN HIDDEN TESTS" not in page
    alans = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", _feedback(hub, alan))).split())
    assert "center_rows" in alans and "mean" in alans, alans[:2000]


# ---------------------------------------------------------------------------- isolation
PROBE = """
import json, os, sys
found = {}
for path in sys.argv[1:]:
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            open(path, "rb").read(1)
        found[path] = "read"
    except PermissionError:
        found[path] = "denied"
    except FileNotFoundError:
        found[path] = "missing"
print(json.dumps(found))
"""


def _probe(hub: Hub, user: str, paths: list[Path]) -> dict[str, str]:
    result = hub.as_user(user, [str(VENV_BIN / "python"), "-c", PROBE, *map(str, paths)])
    return json.loads(result.stdout)


def _server_uids(user: str) -> set[int]:
    """The uids of the processes that run ``user``'s single-user server."""
    uids = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            environ = (proc / "environ").read_bytes().split(b"\0")
            if f"JUPYTERHUB_USER={user}".encode() in environ:
                status = (proc / "status").read_text()
                uids.add(int(re.search(r"^Uid:\s+(\d+)", status, re.M).group(1)))
    return uids


def test_a_students_server_cannot_read_other_students_or_the_instructor(hub, cycle):
    """As Ada's uid (her server's and kernels' uid, checked): another student's home,
    fetched notebook, the exchange's inbound and feedback folders, and the instructor's
    solutions, gradebook and collected submissions are all refused; her own work is
    readable (so the probe can succeed)."""
    ada, alan, _ = hub.cycle_students
    assert _server_uids(ada) == {pwd.getpwnam(ada).pw_uid}, "Ada's server runs as another uid"
    inbound = hub.exchange / COURSE / "inbound"
    alans_submission = sorted(inbound.glob(f"{alan}+{LESSON}+*/{LESSON}.ipynb"))
    assert alans_submission, f"no submission of Alan's in {inbound}"
    course = hub.course_dir
    theirs = [
        hub.home(alan),
        hub.home(alan) / LESSON / f"{LESSON}.ipynb",
        inbound,
        hub.exchange / COURSE / "feedback",
        hub.home(hub.instructor),
        course / "solutions" / LESSON / f"{LESSON}.ipynb",
        course / "solutions" / LESSON / f"{LESSON}.py",
        course / "autograde" / "gradebook.db",
        course / "autograde" / "submitted" / alan / LESSON / f"{LESSON}.ipynb",
    ]
    # Readable by design (README: what the hub does not hide): her own work, and the
    # course's environment her kernel imports, reference implementations included.
    own = [
        hub.home(ada) / LESSON / f"{LESSON}.ipynb",
        REPO / "src" / "transformer_course" / "reference" / "welcome.py",
    ]
    for path in theirs:
        assert path.exists(), f"the probe's target {path} does not exist"
    found = _probe(hub, ada, theirs + own)
    readable = [path for path in map(str, theirs) if found[path] != "denied"]
    assert not readable, f"{ada} can read: {readable}"
    assert all(found[str(path)] == "read" for path in own), found
    # nbgrader's exchange keeps submissions in a write-only inbound: a student cannot list
    # it (checked above), and each submission's folder ends in a random part, so its path
    # cannot be guessed. That name is the protection: the file itself is readable by path.
    name = alans_submission[0].parent.name
    assert re.fullmatch(rf"{alan}\+{LESSON}\+[^+]+\+[A-Za-z0-9_-]{{12}}", name), name


# ------------------------------------------------------------------------------ browser
def _browser(hub: Hub, playwright, name: str, tmp: Path):
    """Debian's Chromium as test_browser.py drives it (never a downloaded browser), a
    fresh profile, and the Browser helper that keeps a screenshot of every step."""
    from test_browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, Browser

    shots = ARTIFACTS / f"hub-{name}"
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    context = playwright.chromium.launch_persistent_context(
        str(tmp / f"chromium-{name}"),
        executable_path=str(CHROMIUM),
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1400, "height": 900},
    )
    context.set_default_timeout(60_000)
    page = context.pages[0] if context.pages else context.new_page()
    return context, Browser(page, shots, hub)


def _log_in(browser, hub: Hub, user: str) -> None:
    from playwright.sync_api import expect

    page = browser.page
    page.goto(f"{hub.base}/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", hub.password(user))
    page.click("#login_submit")
    expect(page).to_have_url(re.compile(rf"/user/{user}/lab"), timeout=SERVER_START * 1000)
    expect(page.locator(".lm-MenuBar-item").first).to_be_visible(timeout=SERVER_START * 1000)


def _assignment_list(page):
    """Nbgrader > Assignment List: nbgrader's Assignments tab."""
    from playwright.sync_api import expect

    page.locator(".lm-MenuBar-item", has_text="Nbgrader").click()
    items = page.locator(".lm-Menu:visible .lm-Menu-item:visible .lm-Menu-itemLabel")
    expect(items.first).to_be_visible()
    labels = [label.strip() for label in items.all_inner_texts() if label.strip()]
    assert labels == ["Assignment List"], f"a student's Nbgrader menu offers {labels}"
    page.locator(".lm-Menu-item", has_text="Assignment List").click()
    tab = page.locator("#nbgrader-assignment-list")
    expect(tab).to_be_visible()
    return tab


def _cell_indices(notebook: Path) -> tuple[list[int], int, int]:
    """(code cells up to the test cell, the answer cell, the test cell) of lesson 00."""
    cells = json.loads(notebook.read_text())["cells"]
    nbg = [c["metadata"].get("nbgrader", {}) for c in cells]
    answer = next(i for i, m in enumerate(nbg) if m.get("solution"))
    test = next(i for i, m in enumerate(nbg) if m.get("grade") and not m.get("solution"))
    code = [i for i, c in enumerate(cells[: test + 1]) if c["cell_type"] == "code"]
    return code, answer, test


def test_browser_a_student_and_the_instructor_through_the_hub(hub, cycle, tmp_path):
    """Bo, in Chromium: logs in, fetches lesson 00 in the Assignments tab, types a wrong
    answer, runs the test cell (it explains), presses Validate, submits. The instructor
    collects, grades and returns (the README's commands); Bo fetches the feedback and
    reads the failed check's message. The instructor logs in and sees the submissions
    with course-grader's scores in the formgrader."""
    _require(Path("/usr/bin/chromium").exists(), "/usr/bin/chromium is missing")
    from playwright.sync_api import expect, sync_playwright
    from test_browser import _run_cell, _validate

    expect.set_options(timeout=60_000)
    bo, path = hub.browser_student, f"{LESSON}/{LESSON}.ipynb"
    _, steps = _readme_hub()
    collect, grade, release_feedback = steps[3:]
    with sync_playwright() as playwright:
        context, browser = _browser(hub, playwright, "student", tmp_path)
        page = browser.page
        try:
            with browser.step("student-logs-in"):
                _log_in(browser, hub, bo)
            with browser.step("assignments-tab-fetch"):
                tab = _assignment_list(page)
                tab.locator("#released_assignments_list button", has_text="Fetch").click()
                expect(tab.locator("#fetched_assignments_list")).to_contain_text(LESSON)
                assert (hub.home(bo) / path).stat().st_uid == pwd.getpwnam(bo).pw_uid
            code, answer, test = _cell_indices(hub.home(bo) / path)
            with browser.step("open-the-lesson"):
                page.goto(f"{hub.base}/user/{bo}/lab/tree/{path}")
                expect(page.locator(".jp-StatusBar-Widget")).to_contain_text("| Idle")
                panel = page.locator(".jp-NotebookPanel:visible")
                cells = panel.locator(".jp-Notebook .jp-Cell")
            with browser.step("type-an-answer"):
                editor = cells.nth(answer).locator(".cm-content")
                editor.click()
                page.keyboard.press("Control+A")
                page.keyboard.insert_text(WRONG.rstrip())
                expect(editor).to_contain_text("axis=0")
            with browser.step("run-the-test-cell"):
                for i in code:
                    _run_cell(page, cells.nth(i))
                text = "\n".join(cells.nth(test).locator(".jp-OutputArea-output").all_inner_texts())
                assert "not yet right" in text, f"the test cell shows:\n{text}"
            with browser.step("validate"):
                verdict, text = _validate(browser, panel)
                assert "validation-failed" in verdict, text
            with browser.step("submit"):
                # opening the notebook by its address reloads JupyterLab, which restores
                # the Assignments tab only if its layout was saved in time: open it again
                tab = _assignment_list(page)
                tab.locator("#fetched_assignments_list button", has_text="Submit").click()
                expect(tab.locator("#submitted_assignments_list")).to_contain_text(LESSON)

            # The instructor collects, grades and returns the feedback (README's commands).
            for line in (collect, grade, release_feedback):
                hub.instructor_runs(line)

            with browser.step("fetch-feedback"):
                tab.locator("#refresh_assignments_list").click()
                submitted = tab.locator("#submitted_assignments_list")
                submitted.locator("button", has_text="Fetch Feedback").click()
                link = submitted.locator("a", has_text="view feedback")
                expect(link).to_have_count(1)
            with browser.step("read-the-failed-check"):
                link.click()  # the file browser goes to the feedback's folder
                page.locator(
                    "#filebrowser .jp-DirListing-item", has_text=f"{LESSON}.html"
                ).dblclick()
                body = page.frame_locator(".jp-HTMLViewer iframe").locator("body")
                expect(body).to_contain_text("center_rows (0 / 1)")
                text = " ".join(body.inner_text().split())
                assert "mean" in text, text[:2000]
        finally:
            context.close()

        context, browser = _browser(hub, playwright, "instructor", tmp_path)
        page = browser.page
        try:
            with browser.step("instructor-logs-in"):
                _log_in(browser, hub, hub.instructor)
            with browser.step("formgrader-submissions"):
                page.goto(
                    f"{hub.base}/user/{hub.instructor}/formgrader/manage_submissions/{LESSON}"
                )
                table = page.locator("table")
                for student in hub.students:
                    expect(table).to_contain_text(student)
                rows = {
                    student: " ".join(
                        table.locator("tr", has_text=student).first.inner_text().split()
                    )
                    for student in hub.students
                }
                ada, alan, grace, bo = hub.students
                for student, score in ((ada, 1), (alan, 0), (grace, 1), (bo, 0)):
                    assert f"{score} / 1" in rows[student], rows
        finally:
            context.close()


# ----------------------------------------------------------------------- the fallback
def test_without_accounts_the_hub_runs_everyone_in_one_account(tmp_path):
    """`--accounts shared` (the default when not root): no accounts are made; every user
    gets a home under the state folder, the instructor a course directory with the roster
    in its gradebook, and JupyterHub's DummyAuthenticator and SimpleLocalProcessSpawner
    are configured with the shared password."""
    from nbgrader.api import Gradebook

    roster = _roster(tmp_path, ["fallbackada", "fallbackalan"])
    args = course_hub.parser().parse_args(
        [
            "accounts",
            str(roster),
            "--accounts",
            "shared",
            "--state",
            str(tmp_path / "state"),
            "--exchange",
            str(tmp_path / "exchange"),
        ]
    )
    settings = course_hub.setup(args)
    for user in ("fallbackada", "fallbackalan", "instructor"):
        assert (tmp_path / "state" / "homes" / user).is_dir()
    for user in ("fallbackada", "fallbackalan"):
        with pytest.raises(KeyError):
            pwd.getpwnam(user)  # no account was made
    course = Path(settings["course_dir"])
    assert (course / "solutions" / LESSON / f"{LESSON}.py").exists()
    with Gradebook(f"sqlite:///{course}/autograde/gradebook.db") as gradebook:
        assert {s.id for s in gradebook.students} == {"fallbackada", "fallbackalan"}
    loaded = {}
    exec(  # the configuration as JupyterHub reads it, with these settings
        (REPO / "hub" / "jupyterhub_config.py")
        .read_text()
        .replace(
            'os.environ["COURSE_HUB_SETTINGS"]', repr(str(tmp_path / "state" / "settings.json"))
        ),
        {"get_config": lambda: loaded.setdefault("c", _Config()), "__name__": "config"},
    )
    c = loaded["c"]
    assert c.JupyterHub.authenticator_class == "dummy"
    assert c.JupyterHub.spawner_class == "simple"
    assert (
        c.DummyAuthenticator.password
        == course_hub._read_passwords(tmp_path / "state" / "passwords.csv")["*shared*"]
    )
    assert oct((tmp_path / "exchange").stat().st_mode & 0o777) == "0o777"


def test_course_grader_feedback_carries_nbgrader_exchange_keys(tmp_path):
    """`nbgrader release_feedback` files a page in the exchange under a key made from the
    submission's timestamp.txt and submission_secret.txt (which `nbgrader collect` writes);
    course-grader's page gets them from the submission's folder, and a page regraded from
    a folder without them loses stale ones rather than being returned under an old key."""
    from transformer_course.grader.feedback import EXCHANGE_KEYS, write_feedback
    from transformer_course.grader.results import SubmissionResult

    submitted = tmp_path / "submitted" / "ada" / LESSON
    submitted.mkdir(parents=True)
    keys = {"timestamp.txt": "2026-01-02 03:04:05.000006 UTC", "submission_secret.txt": "s3cr"}
    assert set(keys) == set(EXCHANGE_KEYS)
    for name, text in keys.items():
        (submitted / name).write_text(text)
    result = SubmissionResult(student="ada", lesson=LESSON)
    page = write_feedback(result, tmp_path / "feedback", None, submitted)
    assert {name: (page.parent / name).read_text() for name in keys} == keys
    for name in keys:
        (submitted / name).unlink()
    write_feedback(result, tmp_path / "feedback", None, submitted)
    assert sorted(p.name for p in page.parent.iterdir()) == [f"{LESSON}.html"]
