"""The environment a lesson runs in: whether it runs headless (graded, validated or tested),
and lesson 00's environment check (versions, CPU threads, and whether they fit the course)."""

from __future__ import annotations

import os
import platform
from importlib import metadata

#: set while nbgrader grades or validates, or the tests execute a lesson
STATIC_ENV = ("NBGRADER_EXECUTION", "COURSE_STATIC_FIGURES")


def running_headless() -> bool:
    """True while nbgrader grades or validates, or tests execute a lesson: no widgets, no
    live training then (the lessons show what their records hold)."""
    return any(os.environ.get(name) for name in STATIC_ENV)


REQUIRED = {"numpy": "1.26", "torch": "2.2", "matplotlib": "3.8", "nbgrader": "0.9.3"}


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _at_least(version: str, minimum: str) -> bool:
    def parts(text: str) -> tuple[int, ...]:
        digits = []
        for piece in text.split("+")[0].split("."):
            number = "".join(ch for ch in piece if ch.isdigit())
            if not number:
                break
            digits.append(int(number))
        return tuple(digits)

    return parts(version) >= parts(minimum)


def report() -> dict[str, str]:
    """Collect the facts that matter for the course."""
    import torch

    facts = {
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "cpu cores": str(os.cpu_count()),
        "torch threads": str(torch.get_num_threads()),
        "cuda available": str(torch.cuda.is_available()),
    }
    for package in (*REQUIRED, "jupyterlab", "jupytext"):
        facts[package] = _version(package) or "missing"
    return facts


def problems(facts: dict[str, str] | None = None) -> list[str]:
    """What is wrong with this environment for the course (empty when all is well)."""
    facts = facts or report()
    found = []
    for package, minimum in REQUIRED.items():
        have = facts.get(package, "missing")
        if have == "missing":
            found.append(f"{package} is not installed: run `make install` in the course folder.")
        elif not _at_least(have, minimum):
            found.append(f"{package} {have} is older than {minimum}: run `make install`.")
    return found


def check_environment() -> None:
    """Print the report and a verdict (never raises: it is a welcome, not a test)."""
    facts = report()
    width = max(map(len, facts))
    for key, value in facts.items():
        print(f"{key:<{width}}  {value}")
    found = problems(facts)
    print()
    if found:
        print("Problems found:")
        for problem in found:
            print(" -", problem)
    else:
        print(
            "✓ Everything the course needs is installed. The lessons run on the CPU;"
            " no GPU is needed."
        )
