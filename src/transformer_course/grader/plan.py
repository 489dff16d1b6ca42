"""Line a submission up with its lesson: which cells run, and where each exercise is checked.

nbgrader semantics: every code cell of the submission runs in order, the
instructor's version of every locked cell (the setup cell) replaces the learner's,
and an exercise is checked where its test cell is. Test cells' content is never
run (the registry says what to check), so editing, emptying or re-typing a test
cell, or inflating its points, changes nothing. Cells are recognised by their
nbgrader ``grade_id``; where the metadata was stripped, by content (a cell that
calls ``check_<name>(``, a copy of a locked cell, a cell that defines an
exercise), and the submission is flagged for a human.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from transformer_course.grader.lesson import (
    LessonSpec,
    cell_source,
    classify,
    nbgrader_meta,
)

CHECK_CALL = re.compile(r"\s*check_(\w+)\s*\(")  # a cell that starts by calling a check


@dataclass
class Step:
    kind: str  # "exec" or "check"
    index: int  # the cell's position in the submission (-1: a restored locked cell)
    source: str = ""
    role: str = "free"  # "answer", "locked", "free" (for exec steps)
    exercise: str | None = None
    given: bool = False  # an unchanged cell of the student version (given code)


@dataclass
class Plan:
    steps: list[Step] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)  # exercise -> the learner's answer
    untouched: dict[str, bool] = field(default_factory=dict)  # exercise -> answer is the stub
    learner_cells: list[tuple[int, str, str | None]] = field(default_factory=list)
    roles: dict[int, Step] = field(default_factory=dict)  # cell index -> its step


def _normal(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def _defines(source: str, names: set[str]) -> str | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name in names:
            return node.name
    return None


def build_plan(cells: list, spec: LessonSpec) -> Plan:
    names = {ex.name for ex in spec.exercises}
    order = [ex.name for ex in spec.exercises]
    locked = {c.grade_id: c.source for c in spec.instructor if c.role == "locked"}
    locked_by_source = {_normal(source): gid for gid, source in locked.items()}
    instructor_position = {
        (c.grade_id or ""): i for i, c in enumerate(spec.instructor) if c.grade_id
    }
    stubs = {c.exercise: _normal(c.source) for c in spec.release if c.role == "answer"}
    visible_tests = {_normal(c.source): c.exercise for c in spec.release if c.role == "test"}
    given = {_normal(c.source) for c in spec.release if c.role == "free" and c.source.strip()}
    plan = Plan()
    checked: set[str] = set()
    seen_locked: set[str] = set()
    roles = [classify(c, names) if isinstance(c, dict) else None for c in cells]
    metadata_answers = {r.exercise for r in roles if r is not None and r.role == "answer"}
    metadata_tests = {r.exercise for r in roles if r is not None and r.role == "test"}
    metadata_locked = {r.grade_id for r in roles if r is not None and r.role == "locked"}
    stripped = False
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        role = classify(cell, names)
        source = cell_source(cell)
        has_meta = bool(nbgrader_meta(cell))
        if role.role == "test":
            if role.exercise in checked:
                plan.flags.append(
                    f"a second test cell for {role.exercise} (cell {index + 1}) was ignored"
                )
            else:
                checked.add(role.exercise)
                plan.steps.append(Step("check", index, exercise=role.exercise))
            continue
        if role.role == "answer":
            step = Step("exec", index, source, "answer", role.exercise)
            plan.steps.append(step)
            plan.answers[role.exercise] = source
            plan.untouched[role.exercise] = _normal(source) == stubs.get(role.exercise)
            plan.learner_cells.append((index, source, role.exercise))
            continue
        if role.role == "locked" and role.grade_id in locked:
            seen_locked.add(role.grade_id)
            plan.steps.append(Step("exec", index, locked[role.grade_id], "locked", given=True))
            continue
        if nbgrader_meta(cell).get("grade") and role.role == "free":
            plan.flags.append(
                f"cell {index + 1} is marked as a graded cell ({role.grade_id!r}) that the lesson "
                "does not have; it was run as ordinary code and earns nothing"
            )
        normal = _normal(source)
        if not has_meta:
            match = visible_tests.get(normal)
            if match is None:
                found = CHECK_CALL.match(source)
                match = found.group(1) if found and found.group(1) in names else None
            if match is not None and match not in metadata_tests:
                stripped = True
                if match not in checked:
                    checked.add(match)
                    plan.steps.append(Step("check", index, exercise=match))
                continue
            if normal in locked_by_source and locked_by_source[normal] not in metadata_locked:
                gid = locked_by_source[normal]
                stripped = True
                seen_locked.add(gid)
                plan.steps.append(Step("exec", index, locked[gid], "locked", given=True))
                continue
            defined = _defines(source, names)
            if defined is not None and defined not in metadata_answers:
                stripped = True
                plan.steps.append(Step("exec", index, source, "answer", defined))
                plan.answers[defined] = source
                plan.untouched[defined] = normal == stubs.get(defined)
                plan.learner_cells.append((index, source, defined))
                continue
        is_given = normal in given or not normal
        plan.steps.append(Step("exec", index, source, "free", given=is_given))
        if not is_given:
            plan.learner_cells.append((index, source, None))
    if stripped:
        plan.flags.append(
            "some cells have lost their nbgrader metadata; they were matched to the lesson by "
            "their content: check that the grading followed the right cells"
        )
    # locked cells the learner deleted: restore them where the instructor has them
    for gid, source in locked.items():
        if gid in seen_locked:
            continue
        position = instructor_position.get(gid, 0)
        at = len(plan.steps)
        for i, step in enumerate(plan.steps):
            key = (
                step.exercise
                if step.kind == "exec" and step.role == "answer"
                else (f"test_{step.exercise}" if step.kind == "check" else None)
            )
            if key is not None and instructor_position.get(key, -1) > position:
                at = i
                break
        plan.steps.insert(at, Step("exec", -1, source, "locked", given=True))
        plan.flags.append(f"the locked cell {gid!r} was missing and was put back")
    # exercises whose test cell is gone: check them after their answer, or at the end
    for name in order:
        if name in checked:
            continue
        at = len(plan.steps)
        for i, step in enumerate(plan.steps):
            if step.kind == "exec" and step.exercise == name:
                at = i + 1
        plan.steps.insert(at, Step("check", -1, exercise=name))
        plan.flags.append(
            f"the test cell of {name} is missing (deleted?); {name} was checked anyway"
        )
    for step in plan.steps:
        if step.index >= 0:
            plan.roles[step.index] = step
    return plan
