"""Per-student feedback, in nbgrader's layout (``feedback/<student>/<lesson>/<lesson>.html``),
and the autograded notebook the formgrader shows (``autograded/<student>/<lesson>/``).

Feedback shows, per exercise, the verdict, the score, what the checks printed and
the message of the check that failed (with the learner's own traceback), never a
test cell's source: hidden tests exist only in the grader's process.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from transformer_course.grader.lesson import LessonSpec, cell_source
from transformer_course.grader.results import STATUS_WORDS, SubmissionResult

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #1f2328; line-height: 1.45; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d0d7de; padding: 0.3rem 0.7rem; text-align: left; }
th { background: #f6f8fa; }
.pass { color: #1a7f37; font-weight: 600; } .fail { color: #cf222e; font-weight: 600; }
pre { background: #f6f8fa; padding: 0.6rem; overflow-x: auto; white-space: pre-wrap; }
section { border-top: 1px solid #d0d7de; margin-top: 1.5rem; }
.note { color: #57606a; font-size: 0.9rem; }
"""


def _e(text: str) -> str:
    return html.escape(text or "", quote=True)


def render(result: SubmissionResult, spec: LessonSpec | None = None) -> str:
    rows = []
    for exercise in result.exercises:
        ok = exercise.score >= exercise.points
        mark = '<span class="pass">✓</span>' if ok else '<span class="fail">✗</span>'
        rows.append(
            f"<tr><td><a href='#{_e(exercise.name)}'>{_e(exercise.name)}</a></td>"
            f"<td>{exercise.score:g} / {exercise.points:g}</td><td>{mark} "
            f"{_e(STATUS_WORDS.get(exercise.status, exercise.status))}</td></tr>"
        )
    sections = []
    for exercise in result.exercises:
        parts = [
            f"<section id='{_e(exercise.name)}'><h2>{_e(exercise.name)} "
            f"({exercise.score:g} / {exercise.points:g})</h2>"
        ]
        if exercise.status == "passed":
            parts.append("<p class='pass'>All visible and hidden checks passed.</p>")
        elif exercise.message:
            where = {"visible": "the visible checks", "hidden": "the hidden checks"}.get(
                exercise.part, ""
            )
            if where and exercise.status == "failed":
                parts.append(f"<p>It failed {where}:</p>")
            parts.append(f"<pre>{_e(exercise.message)}</pre>")
        elif exercise.status == "not run":
            parts.append(
                "<p>Not graded: the grader could not get this far in your notebook. Your "
                "instructor's report lists it for a second look.</p>"
            )
        if exercise.learner_traceback:
            parts.append("<p>Where your code raised it:</p>")
            parts.append(f"<pre>{_e(exercise.learner_traceback)}</pre>")
        if exercise.output.strip():
            parts.append("<p class='note'>What the checks printed:</p>")
            parts.append(f"<pre>{_e(exercise.output.strip())}</pre>")
        parts.append("</section>")
        sections.append("\n".join(parts))
    cell_errors = [c for c in result.cells if c.status != "ok"]
    if cell_errors:
        items = "".join(
            f"<li>cell {c.index + 1 if c.index >= 0 else '(restored)'}: {_e(c.error or c.status)}</li>"
            for c in cell_errors[:30]
        )
        sections.append(
            "<section><h2>Cells that did not run cleanly</h2><p class='note'>Errors in cells "
            f"other than the exercises' do not cost points by themselves.</p><ul>{items}</ul></section>"
        )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{_e(result.lesson)}: feedback</title>
<style>{STYLE}</style></head>
<body>
<h1>Feedback: {_e(result.lesson)}</h1>
<p>Student: <b>{_e(result.student)}</b>. Score: <b>{result.score:g} / {result.max_score:g}</b>.</p>
<table><tr><th>exercise</th><th>points</th><th>verdict</th></tr>
{"".join(rows)}
<tr><th>total</th><th>{result.score:g} / {result.max_score:g}</th><th></th></tr></table>
{"".join(sections)}
</body></html>
"""


#: What ``nbgrader collect`` leaves beside a submission and ``nbgrader release_feedback``
#: needs beside its feedback page (the key of the page in the exchange).
EXCHANGE_KEYS = ("timestamp.txt", "submission_secret.txt")


def write_feedback(
    result: SubmissionResult,
    feedback_dir: Path,
    spec: LessonSpec | None = None,
    submission_folder: Path | None = None,
) -> Path:
    """The feedback page; with the submission's folder, also nbgrader's exchange keys from
    it (as ``nbgrader generate_feedback`` copies them), so that ``release_feedback`` can
    return the page to the student through an nbgrader exchange."""
    folder = feedback_dir / result.student / result.lesson
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{result.lesson}.html"
    path.write_text(render(result, spec), encoding="utf-8")
    for name in EXCHANGE_KEYS:
        key = submission_folder / name if submission_folder is not None else None
        if key is not None and key.is_file():
            (folder / name).write_bytes(key.read_bytes())
        else:
            (folder / name).unlink(missing_ok=True)  # a stale key would return the page wrongly
    return path


def _cell_outputs(printed: str, status: str, message: str, ok: bool) -> list[dict]:
    """A graded cell's outputs in the autograded notebook: what it printed (stdout), and,
    unless it went through, an error named by its status with the message."""
    outputs: list[dict] = []
    if printed:
        outputs.append({"output_type": "stream", "name": "stdout", "text": printed})
    if not ok:
        error = {"output_type": "error", "ename": status, "evalue": message}
        outputs.append({**error, "traceback": [message]})
    return outputs


def autograded_notebook(data: bytes, result: SubmissionResult, spec: LessonSpec) -> dict | None:
    """The submission with the check results as the test cells' outputs (for the formgrader)."""
    try:
        notebook = json.loads(data.decode("utf-8"))
        cells = notebook["cells"]
        if not isinstance(cells, list):
            return None
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    by_cell = {c.index: c for c in result.cells}
    exercises = {e.name: e for e in result.exercises}
    visible = {c.exercise: c.source for c in spec.release if c.role == "test"}
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        meta = (
            cell.get("metadata", {}).get("nbgrader", {})
            if isinstance(cell.get("metadata"), dict)
            else {}
        )
        grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
        name = grade_id[5:] if isinstance(grade_id, str) and grade_id.startswith("test_") else None
        outputs = []
        if name in exercises:
            exercise = exercises[name]
            cell["source"] = visible.get(name, cell_source(cell))
            ok = exercise.status == "passed"
            printed = exercise.output if exercise.output.strip() else ""
            outputs = _cell_outputs(printed, exercise.status, exercise.message, ok)
        elif index in by_cell:
            run = by_cell[index]
            outputs = _cell_outputs(run.output, run.status, run.error, run.status == "ok")
        cell["outputs"] = outputs
        cell["execution_count"] = None
    return notebook
