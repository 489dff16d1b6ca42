"""course-grader: grade a class's submissions in sandboxes, in parallel, into nbgrader's gradebook.

    course-grader 04_attention                 # autograde/submitted/<student>/04_attention/
    course-grader all                          # every lesson
    course-grader 01_tokenization --zip lms-download.zip
    course-grader 04_attention --scheduler tcp://10.0.0.5:8786   # a Dask cluster

Reads the course's nbgrader configuration (submitted/autograded/feedback folders,
``db_url``), registers each lesson in the gradebook as ``nbgrader generate_assignment``
does, grades every submission that is new or changed since the last run, writes
the scores into the gradebook, feedback to ``autograde/feedback/<student>/<lesson>/``,
and the grades to ``autograde/grades.csv`` (``nbgrader export``'s format).

Exit status: 0 all graded, 3 graded but some submissions are flagged for a human
(listed at the end), 1 the grader could not run, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from transformer_course.paths import nbgrader_config, scripts_first_on_path

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_FLAGGED = 0, 1, 2, 3


def _course_dir(given: Path | None) -> Path:
    if given is not None:
        return given.resolve()
    here = Path.cwd()
    if (here / "nbgrader_config.py").exists() or (here / "solutions").is_dir():
        return here
    from transformer_course.paths import REPO

    return REPO


def nbgrader_settings(course_dir: Path) -> dict:
    """The nbgrader configuration of the course directory (folders, db_url, zip regex)."""
    settings = {
        "submitted": "submitted",
        "autograded": "autograded",
        "feedback": "feedback",
        "db_url": "sqlite:///gradebook.db",
        "regex": None,
    }
    config = nbgrader_config(course_dir)
    course = config.get("CourseDirectory", {})
    for key, name in (
        ("submitted", "submitted_directory"),
        ("autograded", "autograded_directory"),
        ("feedback", "feedback_directory"),
        ("db_url", "db_url"),
    ):
        if name in course:
            settings[key] = course[name]
    plugin = config.get("FileNameCollectorPlugin", {})
    if plugin.get("named_regexp"):
        settings["regex"] = plugin["named_regexp"]
    return settings


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="course-grader",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
    )
    p.add_argument("lessons", nargs="+", metavar="LESSON", help="lesson(s) to grade, or 'all'")
    p.add_argument("--course-dir", type=Path, help="the course directory (default: here)")
    p.add_argument("--submitted", type=Path, help="submissions folder (default: nbgrader's)")
    p.add_argument("--zip", type=Path, help="an LMS zip download instead of the folder")
    p.add_argument("--regex", help="file-name regex for --zip (groups student_id, file_id)")
    p.add_argument("--db", help="gradebook URL (default: nbgrader's db_url)")
    p.add_argument("--student", action="append", help="grade only this student (repeatable)")
    p.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    p.add_argument("--scheduler", help="a Dask scheduler address, e.g. tcp://host:8786")
    p.add_argument(
        "--sandbox",
        choices=["auto", "bwrap", "process"],
        default=None,
        help="auto (default): bubblewrap where it works, else a degraded process sandbox",
    )
    p.add_argument("--force", action="store_true", help="regrade submissions already graded")
    p.add_argument("--no-feedback", action="store_true", help="do not write feedback HTML")
    p.add_argument("--export", type=Path, help="grades CSV (default: autograde/grades.csv)")
    p.add_argument("--no-export", action="store_true", help="do not write the grades CSV")
    p.add_argument("--json", type=Path, help="also write every result to this JSON file")
    p.add_argument("--cell-timeout", type=float, default=60.0, help="seconds per cell (60)")
    p.add_argument(
        "--check-timeout", type=float, default=60.0, help="seconds per exercise's checks (60)"
    )
    p.add_argument(
        "--reference-timeout",
        type=float,
        default=10.0,
        help="seconds the grader gives one call of the course's reference that learner code "
        "makes before that exercise is graded; the grader runs it on its own side (10)",
    )
    p.add_argument(
        "--submission-timeout", type=float, default=900.0, help="seconds per notebook (900)"
    )
    p.add_argument("--memory-mb", type=int, default=2048, help="memory per notebook (2048 MB)")
    p.add_argument("--quiet", action="store_true", help="no per-submission table")
    return p


def _lessons(requested: list[str], course_dir: Path) -> list[str]:
    from transformer_course import registry

    def gradable(lesson: str) -> bool:
        return (course_dir / "solutions" / lesson / f"{lesson}.ipynb").exists() and (
            course_dir / "notebooks" / lesson / f"{lesson}.ipynb"
        ).exists()

    if requested == ["all"]:
        return [lesson for lesson in registry.lessons() if gradable(lesson)]
    unknown = []
    for lesson in requested:  # import only the named lessons' checks (all of them take seconds)
        try:
            registry.exercises(lesson)
        except (LookupError, ImportError, IndexError):
            unknown.append(lesson)
            continue
        if not gradable(lesson):
            unknown.append(lesson)
    if unknown:
        available = [lesson for lesson in registry.lessons() if gradable(lesson)]
        raise SystemExit(
            f"course-grader: unknown lesson(s) {', '.join(unknown)}; the lessons are: "
            f"{', '.join(available)} (or 'all')"
        )
    return requested


def limits_from(args: argparse.Namespace):
    """The sandbox's and the grader's limits (:class:`.sandbox.Limits`) the command line
    asks for."""
    from transformer_course.grader import sandbox

    for option in ("cell_timeout", "check_timeout", "reference_timeout", "submission_timeout"):
        if not getattr(args, option) > 0:
            raise SystemExit(f"course-grader: --{option.replace('_', '-')} must be positive")
    return sandbox.Limits(
        cell_timeout=args.cell_timeout,
        check_timeout=args.check_timeout,
        reference_timeout=args.reference_timeout,
        submission_timeout=args.submission_timeout,
        memory_mb=args.memory_mb,
        cpu_s=int(args.submission_timeout) + 60,
    )


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    from transformer_course.grader import gradebook
    from transformer_course.grader.classrun import ClassRun, ClassRunError, grade_class

    # nbgrader runs the `alembic` command next to this interpreter to open a gradebook
    os.environ["PATH"] = scripts_first_on_path(os.environ.get("PATH"))
    course_dir = _course_dir(args.course_dir)
    settings = nbgrader_settings(course_dir)
    feedback_dir = course_dir / settings["feedback"]
    options = ClassRun(
        course_dir=course_dir,
        lessons=_lessons(args.lessons, course_dir),
        submitted=(args.submitted or course_dir / settings["submitted"]).resolve(),
        autograded_dir=course_dir / settings["autograded"],
        feedback_dir=None if args.no_feedback else feedback_dir,
        db_url=gradebook.absolute_db_url(args.db or settings["db_url"], course_dir),
        export=None if args.no_export else (args.export or course_dir / "autograde" / "grades.csv"),
        limits=limits_from(args),
        sandbox_mode=args.sandbox,
        scheduler=args.scheduler,
        workers=args.workers,
        force=args.force,
        zip=args.zip,
        regex=args.regex or settings["regex"],
        students=args.student,
    )
    try:
        report = grade_class(options)
    except ClassRunError as error:
        print(f"course-grader: {error.message}", file=sys.stderr)
        return EXIT_USAGE if error.usage else EXIT_ERROR
    if report.interrupted:
        print("\ncourse-grader: interrupted; what was graded is saved, run again to resume")
        return 130
    if args.json:
        args.json.write_text(json.dumps([r.to_dict() for r in report.results], indent=1))
    print(summary(report.results, options.lessons, report.unmatched + report.problems, args.quiet))
    if report.graded:
        each = report.seconds / report.graded
        print(f"\n{report.graded} graded in {report.seconds:.1f} s ({each:.2f} s each)")
    if options.export is not None:
        print(f"grades: {options.export}")
    if options.feedback_dir is not None:
        print(f"feedback: {feedback_dir}/<student>/<lesson>/<lesson>.html")
    return EXIT_FLAGGED if report.flagged else EXIT_OK


def summary(results, lessons: list[str], unmatched: list[str], quiet: bool = False) -> str:
    lines: list[str] = []
    ordered = sorted(results, key=lambda r: (r.lesson, r.student))
    if ordered and not quiet and len(ordered) <= 200:
        width = max(len("student"), *(len(r.student) for r in ordered))
        lines += ["", f"{'lesson':<24} {'student':<{width}}  {'score':>11}  flagged"]
        for r in ordered:
            mark = "yes" if r.flagged else ""
            lines.append(
                f"{r.lesson:<24} {r.student:<{width}}  {r.score:>5g} / {r.max_score:<3g}  {mark}"
            )
    for lesson in lessons:
        subset = [r for r in ordered if r.lesson == lesson]
        if not subset:
            continue
        mean = sum(r.score for r in subset) / len(subset)
        lines += [
            "",
            f"{lesson}: {len(subset)} submission(s), mean {mean:.2f} / "
            f"{subset[0].max_score:g}, {sum(r.flagged for r in subset)} flagged",
        ]
        names = [e.name for e in subset[0].exercises]
        width = max(len(n) for n in names) if names else 8
        for index, name in enumerate(names):
            passed = sum(
                1
                for r in subset
                if index < len(r.exercises) and r.exercises[index].status == "passed"
            )
            lines.append(f"  {name:<{width}}  passed by {passed}/{len(subset)}")
    flagged = [r for r in ordered if r.flagged]
    if flagged or unmatched:
        lines += ["", f"Flagged for a human ({len(flagged) + len(unmatched)}):"]
        for r in flagged:
            reasons = [f.splitlines()[0] for f in r.flags if f] or [r.error]
            lines.append(f"  {r.student} / {r.lesson} ({r.score:g} / {r.max_score:g}):")
            lines += [f"    - {reason[:300]}" for reason in reasons[:6]]
        for name in unmatched:
            if any(
                m in name for m in (": could not be saved", ": no feedback", "valid student id")
            ):
                lines.append(f"  {name}")
            else:
                lines.append(f"  {name}: could not tell whose or which lesson's notebook this is")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
