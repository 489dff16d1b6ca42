"""Controls for the generalisation table: the same cases judged by the checks of several
commits, to tell checks that improved from cases that are familiar.

A batch's row in the generalisation table mixes two things: how well the checks of its
commit name mistakes, and how new its mistakes are. Round 11 showed the second matters:
its blind batches, written without reading a check, scored far higher than round 10's,
and their authors found most of their mistakes already in the benchmark under other ids.
A control holds the cases still and moves the checks: each listed commit's course
(``src/``, rebuilt from git) judges today's cases with today's runner and criteria. If a
batch scores as high against checks from rounds before, its figure measures familiar
mistakes, not fixes that carried over; the difference between two commits is what the
fixes between them did for mistakes they were not made for (when the later commit comes
before the cases were read)::

    .venv/bin/python -m benchmarks.diagnosis.controls    # writes controls.json
    .venv/bin/python -m benchmarks.diagnosis.controls "NAME"   # only that control
    .venv/bin/python -m benchmarks.diagnosis.readme      # README's tables
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchmarks.diagnosis.generalisation import REPO, VERDICTS
from benchmarks.diagnosis.run import with_hash_seed

RECORD = Path(__file__).with_name("controls.json")
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Control:
    name: str
    #: the cases: ids starting with one of these prefixes (commented-out cases, left out
    #: after reading, are not in CASES and so not counted)
    prefixes: tuple[str, ...]
    #: (commit, what its checks are) in history order
    commits: tuple[tuple[str, str], ...]


#: the course before rounds 6, 9, 10 and 11 fixed anything
_BEFORE_ROUNDS = (
    ("fcd53ed", "before round 6"),
    ("5c9425c", "before round 9"),
    ("584f36c", "before round 10"),
    ("b0ae317", "before round 11"),
)

#: the course after round 12's fixes, then with the single-edit diagnosis
#: (checking.deviations), which was built while round 13's cases were written, then after
#: round 14, which read round 13's uncaught and misnamed cases and fixed their classes,
#: round 15 (round 13's located and generic cases), and rounds 16-17 (round 14's cases)
_DEVIATIONS = (
    ("68a1a7c", "after round 12, before the single-edit diagnosis"),
    ("e57633d", "with the single-edit diagnosis"),
    ("d5d2d8b", "after round 14: round 13's uncaught and misnamed cases read and fixed"),
    ("4c718bc", "after round 15: round 13's located and generic cases read, lessons 01-11"),
    ("3d8a5aa", "after rounds 16-17: round 14's cases and round 13's leftovers read and fixed"),
)
#: the generic diagnoses added after rounds 16-17, none made for a case: edits of a
#: module's __init__ (its construction recorded), more kinds of edit, shape explanations in
#: every check; designed while round 15's cases were being written, before any of their
#: messages was read (the later changes to it fixed what its own tests found)
_GENERIC_AFTER_ROUND_17 = (
    "f5e3a15",
    "with edits of __init__, more edit kinds and shape explanations everywhere",
)
#: after round 18, which read round 15's cases and fixed their classes (with the probes
#: of the single-edit diagnosis, and hints for raw errors); round 16's cases' base
_AFTER_ROUND_18 = ("f0c70d0", "after round 18: round 15's cases read and fixed")
#: the general diagnoses of round 19 (raw errors told by their text and failing line, a
#: forward that changes its parameters, layers in a plain dict, a quiz answer's form, a
#: wrong number related to the right one): designed from round 16's reports (their
#: classes, not their cases), before any per-case fix of round 19
_GENERIC_ROUND_19 = ("e313667", "with round 19's general diagnoses, before its per-case fixes")
#: the same, corrected where this control showed them wrong: four of round 12's second
#: cases lost their name to them, and their messages were read (so this control is no
#: longer wholly unread: those four cases are known)
_GENERIC_ROUND_19_CORRECTED = (
    "89dd575",
    "round 19's general diagnoses corrected on four of these cases' messages",
)
#: after round 19, which read round 16's cases and fixed their classes; round 17's base
_AFTER_ROUND_19 = ("1f5edb0", "after round 19: round 16's cases read and fixed")
#: after round 20, which read round 17's cases and fixed their classes (with general
#: diagnoses: a forward that writes its layers' settings, values rounded for a print, an
#: argument's size in another's place, printed instead of returned); round 18's base
_AFTER_ROUND_20 = ("aff273a", "after round 20: round 17's cases read and fixed")
#: after round 21, which read round 18's cases (and every case still misnamed or uncaught)
#: and fixed their classes (with general diagnoses: a single edit's other way of writing
#: the same wrong code, the values on a failing line, a tuple read by key, None compared,
#: 1000 for 1024); round 19's base
_AFTER_ROUND_21 = ("86b9029", "after round 21: round 18's cases read and fixed")
#: after round 22, which read round 19's cases (and every case still not named) and fixed
#: their classes; round 20's base
_AFTER_ROUND_22 = ("6b27596", "after round 22: round 19's cases read and fixed")
#: after round 23, which read round 20's cases (and every case still not named) and fixed
#: their classes; round 21's base
_AFTER_ROUND_23 = ("44fe00e", "after round 23: round 20's cases read and fixed")
#: after round 24, which read round 21's cases (lessons 10-12 only: three of its five fix
#: helpers wrote nothing) and fixed their classes; round 22's base
_AFTER_ROUND_24 = ("40db1ca", "after round 24: round 21's cases read and fixed")
#: after round 25, which read round 22's cases and round 21's in the lessons round 24 had
#: not read (00-08, 12), and fixed their classes; round 23's base
_AFTER_ROUND_25 = ("8fa42eb", "after round 25: round 21's and round 22's cases read and fixed")
_AFTER_ROUND_26 = ("415d438", "after round 26: round 23's cases read and fixed")
_AFTER_ROUND_27 = ("7f2890e", "after round 27: round 24's cases read and fixed")
_AFTER_ROUND_28 = ("359f3b4", "after round 28: round 25's cases read and fixed")
_AFTER_ROUND_29 = ("3db2534", "after round 29: round 26's cases read and fixed")
_AFTER_ROUND_31 = ("14ac010", "after round 31: round 27's cases read and fixed")
_AFTER_ROUND_33 = ("a0739f7", "after round 33: round 28's cases read and fixed")
CONTROLS = (
    Control(
        "round 11's first cases (blind11a-g)",
        tuple(f"blind11{x}-" for x in "abcdefg"),
        _BEFORE_ROUNDS,
    ),
    Control(
        "round 11's second cases (blind11h-n)",
        tuple(f"blind11{x}-" for x in "hijklmn"),
        _BEFORE_ROUNDS,
    ),
    Control(
        "round 12's cases, new to the benchmark (blind12a-g)",
        tuple(f"blind12{x}-" for x in "abcdefg"),
        (*_BEFORE_ROUNDS[2:], ("3e64947", "after round 11, before round 12"), *_DEVIATIONS),
    ),
    Control(
        "round 12's second cases, new to the benchmark (blind12h-n)",
        tuple(f"blind12{x}-" for x in "hijklmn"),
        (
            _BEFORE_ROUNDS[3],
            ("3e64947", "after round 11, before round 12"),
            *_DEVIATIONS,
            _GENERIC_AFTER_ROUND_17,
            _AFTER_ROUND_18,
            _GENERIC_ROUND_19,
            _GENERIC_ROUND_19_CORRECTED,
            _AFTER_ROUND_20,
            _AFTER_ROUND_21,
            _AFTER_ROUND_22,
        ),
    ),
    Control(
        "round 13's cases, new to the benchmark (blind13a-g)",
        tuple(f"blind13{x}-" for x in "abcdefg"),
        _DEVIATIONS,
    ),
    Control(
        "round 14's cases, new to the benchmark (blind14a-g)",
        tuple(f"blind14{x}-" for x in "abcdefg"),
        (
            ("71949de", "after round 15: the cases' base, before they were read"),
            _DEVIATIONS[-1],
        ),
    ),
    Control(
        "round 16's cases, new to the benchmark (blind16a-g)",
        tuple(f"blind16{x}-" for x in "abcdefg"),
        (
            ("f0c70d0", "after round 18: the cases' base, before they were read"),
            ("89dd575", "round 19's general diagnoses, designed from these cases' reports"),
            _AFTER_ROUND_19,
        ),
    ),
    Control(
        "round 17's cases, new to the benchmark (blind17a-g)",
        tuple(f"blind17{x}-" for x in "abcdefg"),
        (
            ("1f5edb0", "after round 19: the cases' base, before they were read"),
            _AFTER_ROUND_20,
        ),
    ),
    Control(
        "round 18's cases, new to the benchmark (blind18a-e)",
        tuple(f"blind18{x}-" for x in "abcde"),
        (
            ("aff273a", "after round 20: the cases' base, before they were read"),
            _AFTER_ROUND_21,
            _AFTER_ROUND_22,
        ),
    ),
    Control(
        "round 19's cases, new to the benchmark (blind19a-f)",
        tuple(f"blind19{x}-" for x in "abcdef"),
        (
            ("86b9029", "after round 21: the cases' base, before they were read"),
            _AFTER_ROUND_22,
            _AFTER_ROUND_23,
        ),
    ),
    Control(
        "round 20's cases, new to the benchmark (blind20a-d)",
        tuple(f"blind20{x}-" for x in "abcd"),
        (
            ("6b27596", "after round 22: the cases' base, before they were read"),
            _AFTER_ROUND_23,
            _AFTER_ROUND_24,
        ),
    ),
    Control(
        "round 21's cases, new to the benchmark (blind21a-c)",
        tuple(f"blind21{x}-" for x in "abc"),
        (
            ("44fe00e", "after round 23: the cases' base, before they were read"),
            _AFTER_ROUND_24,
            _AFTER_ROUND_25,
        ),
    ),
    Control(
        "round 22's cases, new to the benchmark (blind22b)",
        ("blind22b-",),
        (
            ("00aed72", "after round 24: the cases' base, before they were read"),
            _AFTER_ROUND_25,
        ),
    ),
    Control(
        "round 23's cases, new to the benchmark (blind23a, blind23c)",
        ("blind23a-", "blind23c-"),
        (
            ("4d37f12", "after round 25: the cases' base, before they were read"),
            _AFTER_ROUND_26,
            _AFTER_ROUND_27,
        ),
    ),
    Control(
        "round 24's cases, new to the benchmark (blind24a-c)",
        ("blind24a-", "blind24b-", "blind24c-"),
        (
            ("4bcd29f", "after round 26: the cases' base, before they were read"),
            _AFTER_ROUND_27,
        ),
    ),
    Control(
        "round 25's cases, new to the benchmark (blind25a-c)",
        ("blind25a-", "blind25b-", "blind25c-"),
        (
            ("804677b", "after round 27: the cases' base, before they were read"),
            _AFTER_ROUND_28,
        ),
    ),
    Control(
        "round 26's cases, new to the benchmark (blind26b-c)",
        ("blind26b-", "blind26c-"),
        (
            ("4a50fae", "after round 28: the cases' base, before they were read"),
            _AFTER_ROUND_29,
        ),
    ),
    Control(
        "round 27's cases, new to the benchmark (blind27a-c)",
        ("blind27a-", "blind27b-", "blind27c-"),
        (
            ("8f0b17a", "after round 30: the cases' base, before they were read"),
            _AFTER_ROUND_31,
        ),
    ),
    Control(
        "round 28's cases, new to the benchmark (blind28a-c)",
        ("blind28a-", "blind28b-", "blind28c-"),
        (
            ("76c5218", "after round 32: the cases' base, before they were read"),
            _AFTER_ROUND_33,
        ),
    ),
    Control(
        "round 29's cases, new to the benchmark (blind29a-c)",
        ("blind29a-", "blind29b-", "blind29c-"),
        (
            ("3b8817d", "after round 33: before round 34, which read no case"),
            ("f4cedbc", "after round 34: the cases' base, before they were read"),
            ("2920c98", "after round 35: round 29's cases read and fixed"),
        ),
    ),
    Control(
        "round 30's cases, new to the benchmark (blind30a-c)",
        ("blind30a-", "blind30b-", "blind30c-"),
        (
            ("58b2898", "after round 35: the cases' base, before they were read"),
            ("8e4d564", "after round 36: round 30's cases read and fixed"),
        ),
    ),
    Control(
        "round 31's cases, new to the benchmark (blind31a-c)",
        ("blind31a-", "blind31b-", "blind31c-"),
        (
            ("e13f909", "after round 36: the cases' base, before they were read"),
            ("b0d70a4", "after round 37, whose helpers never saw these cases"),
            ("4600a1a", "after round 38: round 31's cases read and fixed"),
        ),
    ),
    Control(
        "round 15's cases, new to the benchmark (blind15a-g)",
        tuple(f"blind15{x}-" for x in "abcdefg"),
        (
            ("bea9fb8", "after rounds 16-17: the cases' base, before they were read"),
            _GENERIC_AFTER_ROUND_17,
            _AFTER_ROUND_18,
        ),
    ),
)

_DRIVER = """
import json, sys
import torch
torch.set_num_threads(1)
from benchmarks.diagnosis.run import _judge, _learner_object
from transformer_course import registry
out = {}
for case in json.load(open(sys.argv[1])):
    exercise = registry.exercise(case["lesson"], case["exercise"])
    answer = _learner_object(exercise, case["source"], case["id"])
    result = _judge(
        case["id"], case["lesson"], exercise, answer, case["named_if"], case["misnamed_if"],
        "reported", case["cause"], "", True,
    )
    out[case["id"]] = {"lesson": case["lesson"], "verdict": result["verdict"]}
print("RESULTS " + json.dumps(out))
"""


def _answers(prefixes: tuple[str, ...]) -> list[dict]:
    """Today's cases with these prefixes, each with its answer's code as today's reference
    gives it (an older reference may lack the lines a case edits)."""
    from benchmarks.diagnosis.cases import CASES
    from benchmarks.diagnosis.run import case_source
    from transformer_course import registry

    return [
        {
            "id": case.id,
            "lesson": case.lesson,
            "exercise": case.exercise,
            "cause": case.cause,
            "named_if": list(case.named_if),
            "misnamed_if": list(case.misnamed_if),
            "source": case_source(case, registry.exercise(case.lesson, case.exercise)),
        }
        for case in CASES
        if case.id.startswith(prefixes)
    ]


def judged_at(commit: str, prefixes: tuple[str, ...]) -> dict[str, dict]:
    """Today's cases with these prefixes (their answers as today's reference gives them),
    judged by ``commit``'s course with today's runner and criteria (this folder replaces the
    commit's ``benchmarks/diagnosis``; the answer cells run in that commit's namespaces)."""
    with tempfile.TemporaryDirectory(prefix="controls-") as tmp:
        answers = Path(tmp, "answers.json")
        answers.write_text(json.dumps(_answers(prefixes)))
        archive = subprocess.run(
            ["git", "archive", "--format=tar", commit], cwd=REPO, check=True, capture_output=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        shutil.rmtree(Path(tmp, "benchmarks", "diagnosis"))
        shutil.copytree(
            HERE,
            Path(tmp, "benchmarks", "diagnosis"),
            ignore=shutil.ignore_patterns("__pycache__", "*.json"),
        )
        env = with_hash_seed({**os.environ, "PYTHONPATH": f"{tmp}/src{os.pathsep}{tmp}"})
        run = subprocess.run(
            [sys.executable, "-c", _DRIVER, str(answers)],
            cwd=tmp,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    lines = [line for line in run.stdout.splitlines() if line.startswith("RESULTS ")]
    if run.returncode or not lines:
        raise RuntimeError(f"{commit}: the control's run failed:\n{run.stderr[-3000:]}")
    return json.loads(lines[-1].split(" ", 1)[1])


def _case_ids(prefixes: tuple[str, ...]) -> list[str]:
    from benchmarks.diagnosis.cases import CASES

    return sorted(case.id for case in CASES if case.id.startswith(prefixes))


def run_control(control: Control, recorded: dict | None = None) -> dict:
    """The control's rows; a commit already ``recorded`` for exactly today's cases keeps
    its row (an old commit's checks do not change)."""
    rows = {}
    ids = _case_ids(control.prefixes)
    for commit, what in control.commits:
        old = (recorded or {}).get(commit)
        if old is not None and sorted(old["cases"]) == ids:
            rows[commit] = {**old, "what": what}
            continue
        results = judged_at(commit, control.prefixes)
        counts = Counter(result["verdict"] for result in results.values())
        rows[commit] = {
            "what": what,
            "counts": {verdict: counts[verdict] for verdict in VERDICTS},
            "cases": {case_id: results[case_id]["verdict"] for case_id in sorted(results)},
        }
    return rows


def markdown(record: dict) -> str:
    lines = [
        "| cases | judged by the checks of | cases | named | pointed | generic | misnamed "
        "| uncaught | named % |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, rows in record.items():
        for commit, row in rows.items():
            counts = row["counts"]
            total = sum(counts.values())
            lines.append(
                f"| {name} | `{commit}` ({row['what']}) | {total} | "
                + " | ".join(str(counts[verdict]) for verdict in VERDICTS)
                + f" | {round(100 * counts['named'] / total) if total else 0} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Run every control, or only those named (the others keep their recorded rows)."""
    names = sys.argv[1:] if argv is None else argv
    old = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    record = {}
    for control in CONTROLS:
        if names and control.name not in names:
            if control.name in old:
                record[control.name] = old[control.name]
            continue
        record[control.name] = run_control(control, old.get(control.name))
        print(control.name, {c: r["counts"] for c, r in record[control.name].items()}, flush=True)
    RECORD.write_text(json.dumps(record, indent=1) + "\n")
    print(markdown(record))
    print(f"wrote {RECORD.relative_to(REPO)}")


if __name__ == "__main__":
    main()
