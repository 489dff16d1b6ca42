"""benchmarks/cpu_time.py, the load-proof profile of the test suite: it charges each test
with the CPU time of the processes it ran, and its summary adds them up."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from transformer_course.build import REPO

BUSY = """
import subprocess, sys

def test_busy_child():
    # about 0.3 s of CPU in a child process that the test waits for
    subprocess.run([sys.executable, "-c", "import time\\nend = time.process_time() + 0.3\\nwhile time.process_time() < end: pass"], check=True)

def test_idle():
    import time
    time.sleep(0.3)
"""


def test_each_test_is_charged_with_its_children_s_cpu_time(tmp_path):
    (tmp_path / "test_busy.py").write_text(BUSY)
    folder = tmp_path / "records"
    command = [sys.executable, "-m", "pytest", str(tmp_path / "test_busy.py")]
    command += ["-p", "benchmarks.cpu_time", "-q", "-p", "no:cacheprovider"]
    command += ["-c", "/dev/null", "--rootdir", str(tmp_path)]  # not the course's settings
    # a run of its own: not a worker of this run's pytest-xdist (its name would be gw0's)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env["COURSE_CPU_TIME"] = str(folder)
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    found = {r["id"].split("::")[1]: r for r in map(json.loads, (folder / "main.jsonl").open())}
    assert found["test_busy_child"]["children"] >= 0.25, found
    assert found["test_idle"]["cpu"] < 0.2 <= found["test_idle"]["wall"], found
    summary = subprocess.run(
        [sys.executable, "-m", "benchmarks.cpu_time", str(folder)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert summary.startswith("2 tests: ") and "test_busy.py" in summary, summary
