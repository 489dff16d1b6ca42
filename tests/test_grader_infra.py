"""The grader's plumbing, for real: a Dask cluster of separate worker processes, a
PostgreSQL gradebook (a server started here on a loopback port), an LMS zip, an
interrupted run that resumes, and the degraded sandbox announced as such."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest
from common import grader, make_course, points, scores, solutions, submission, submit

from transformer_course.build import tool_env

pytestmark = pytest.mark.pipeline

LESSON = "01_tokenization"
POINTS = points(LESSON)
TOTAL = sum(POINTS.values())
FIRST = next(iter(POINTS))


def class_of_three() -> dict[str, tuple[bytes, float]]:
    solved = solutions(LESSON)
    return {
        "ada": (submission(LESSON, solved), TOTAL),
        "ben": (submission(LESSON, {}), 0.0),
        "cy": (submission(LESSON, {FIRST: solved[FIRST]}), POINTS[FIRST]),
    }


def course_with_class(root: Path) -> Path:
    course = make_course(root, [LESSON])
    for student, (data, _) in class_of_three().items():
        submit(course, student, LESSON, data)
    return course


def totals(db_url: str) -> dict[str, float]:
    return {student: sum(s.values()) for student, s in scores(db_url, LESSON).items()}


EXPECTED = {student: total for student, (_, total) in class_of_three().items()}


# ------------------------------------------------------------------------------ Dask
@pytest.mark.slow(35)
def test_a_dask_cluster_of_worker_processes_grades_the_class(tmp_path):
    distributed = pytest.importorskip("distributed")
    course = course_with_class(tmp_path / "course")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster) as client:
            pids = set(client.run(os.getpid).values())
        assert len(pids) == 2 and os.getpid() not in pids, "two separate worker processes"
        run = grader(course, LESSON, "--scheduler", cluster.scheduler_address)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert "on the Dask workers" in run.stdout
    assert totals(f"sqlite:///{course}/autograde/gradebook.db") == EXPECTED
    for student in EXPECTED:
        assert (course / "autograde" / "feedback" / student / LESSON / f"{LESSON}.html").exists()


# ------------------------------------------------------------------------ PostgreSQL
def _postgres_bin() -> Path | None:
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_ctl") else None


@pytest.fixture
def postgres():
    binaries = _postgres_bin()
    if binaries is None:
        pytest.skip(
            "PostgreSQL's initdb/pg_ctl are not installed (Debian: apt-get install postgresql)"
        )
    root = Path(tempfile.mkdtemp(prefix="grader-pg-"))
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    user_kwargs = {}
    if os.geteuid() == 0:  # initdb refuses to run as root
        nobody = pwd.getpwnam("nobody")
        os.chown(root, nobody.pw_uid, nobody.pw_gid)
        os.chown(sockets, nobody.pw_uid, nobody.pw_gid)
        user_kwargs = {"user": nobody.pw_uid, "group": nobody.pw_gid}
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "HOME": str(root)}
    # A throw-away cluster: nothing is synced to disk (initdb --no-sync, fsync=off), as
    # PostgreSQL's documentation suggests for tests; initdb alone waited ~3-4 s on its syncs.
    # What the test looks at (nbgrader and course-grader on PostgreSQL) does not change.
    subprocess.run(
        [
            binaries / "initdb",
            "-D",
            data,
            "-U",
            "grader",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        ],
        check=True,
        capture_output=True,
        env=env,
        cwd=root,
        **user_kwargs,
    )
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        [binaries / "pg_ctl", "-D", data, "-o", options, "-w", "-l", root / "log", "start"],
        check=True,
        capture_output=True,
        env=env,
        cwd=root,
        **user_kwargs,
    )
    try:
        yield f"postgresql+psycopg://grader@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [binaries / "pg_ctl", "-D", data, "-m", "immediate", "stop"],
            capture_output=True,
            env=env,
            cwd=root,
            **user_kwargs,
        )
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow(35)
def test_a_postgresql_gradebook_works_with_nbgrader_export(tmp_path, postgres):
    course = course_with_class(tmp_path / "course")
    run = grader(course, LESSON, "--db", postgres, "--workers", "2")
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert totals(postgres) == EXPECTED
    exported = tmp_path / "export.csv"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "nbgrader",
            "export",
            f"--CourseDirectory.db_url={postgres}",
            "--to",
            str(exported),
        ],
        cwd=course,
        capture_output=True,
        text=True,
        env=tool_env(),
    )
    assert result.returncode == 0, result.stderr
    import csv

    with open(exported) as handle:
        rows = {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}
    assert rows == EXPECTED


# ------------------------------------------------------------------------------- zip
@pytest.mark.slow(35)
def test_an_lms_zip_is_collected_as_nbgrader_zip_collect_does(tmp_path):
    course = make_course(tmp_path / "course", [LESSON])
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for student, (data, _) in class_of_three().items():
            bundle.writestr(f"{LESSON}_{student}_attempt_2024-05-01-10-00-00_{LESSON}.ipynb", data)
        bundle.writestr(f"{LESSON}_ada_attempt_2024-04-01-10-00-00_{LESSON}.ipynb", b"{}")  # older
        bundle.writestr(
            f"{LESSON}_dan_attempt_2024-05-01-10-00-00_homework.ipynb",
            submission(LESSON, solutions(LESSON)),
        )
        bundle.writestr("readme-from-the-lms.ipynb", b"{}")
    run = grader(course, LESSON, "--zip", str(archive))
    assert run.returncode == 3, f"{run.stdout}\n{run.stderr}"
    found = totals(f"sqlite:///{course}/autograde/gradebook.db")
    assert found == {**EXPECTED, "dan": 0.0}, "the latest file of each student; dan renamed his"
    assert "renamed" in run.stdout and "readme-from-the-lms.ipynb" in run.stdout
    for student in EXPECTED:
        path = course / "autograde" / "submitted" / student / LESSON / f"{LESSON}.ipynb"
        assert path.exists(), "copied into nbgrader's layout, as zip_collect does"


# ---------------------------------------------------------------------------- resume
@pytest.mark.slow(35)
def test_an_interrupted_run_resumes_and_regrades_only_what_changed(tmp_path):
    course = course_with_class(tmp_path / "course")
    state = course / "autograde" / "autograded"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "transformer_course.grader",
            LESSON,
            "--course-dir",
            str(course),
            "--workers",
            "1",
        ],
        cwd=course,
        env=tool_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not list(state.glob("*/*/grader.json")):
        time.sleep(0.2)
    process.send_signal(signal.SIGINT)  # the instructor presses Ctrl-C
    process.communicate(timeout=120)
    finished = {p.parent.parent.name: p.stat().st_mtime_ns for p in state.glob("*/*/grader.json")}
    assert 1 <= len(finished), "at least one submission was saved before the interruption"

    run = grader(course, LESSON, "--workers", "2")
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert totals(f"sqlite:///{course}/autograde/gradebook.db") == EXPECTED
    for student, stamp in finished.items():
        path = state / student / LESSON / "grader.json"
        assert path.stat().st_mtime_ns == stamp, f"{student} was graded twice"

    changed = submission(LESSON, solutions(LESSON))
    submit(course, "ben", LESSON, changed)  # ben resubmits, solved
    again = grader(course, LESSON, "--workers", "2")
    assert again.returncode == 0, again.stdout
    assert "2 already graded and unchanged" in again.stdout
    assert totals(f"sqlite:///{course}/autograde/gradebook.db") == {**EXPECTED, "ben": TOTAL}
    results = json.loads((state / "ben" / LESSON / "grader.json").read_text())
    assert results["result"]["student"] == "ben"


def test_the_degraded_sandbox_says_so_in_the_summary():
    from transformer_course.grader import cli, sandbox
    from transformer_course.grader.results import ExerciseResult, SubmissionResult

    degraded = sandbox.isolation("process")
    assert degraded.degraded and "DEGRADED ISOLATION" in degraded.describe()
    result = SubmissionResult(
        "cy",
        LESSON,
        exercises=[ExerciseResult(FIRST, 1.0, 1.0, "passed")],
        flags=[degraded.describe()],
        degraded=True,
    )
    text = cli.summary([result], [LESSON], [])
    assert "Flagged for a human (1)" in text and "DEGRADED ISOLATION" in text
