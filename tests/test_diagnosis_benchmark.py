"""The diagnosis benchmark (benchmarks/diagnosis/, issue 22): its README figures are the
records the runner wrote, the records were written from today's checks and cases (their
digest) and are the runner's current output (a sample of cases re-run), and its cases are well
formed and kept apart from the tests' mistake tables."""

from __future__ import annotations

import ast
import json
import re
import sys

import pytest
from common import REPO

sys.path.insert(0, str(REPO))

from benchmarks.diagnosis import controls, generalisation, readme
from benchmarks.diagnosis.accepted import ACCEPTED_BY_CONTRACT
from benchmarks.diagnosis.cases import CASES
from benchmarks.diagnosis.run import (
    MUTANT_TABLES,
    RECORDS,
    _judge,
    case_source,
    classify,
    diagnostic_text,
    judge_answer,
    markdown,
    mutant_results,
    run_case,
    sources_digest,
    table,
)
from transformer_course import registry

RECORDED = json.loads(RECORDS.read_text())
BY_ID = {result["id"]: result for result in RECORDED["results"]}


def test_the_readme_shows_the_recorded_figures():
    text = (REPO / "README.md").read_text()
    assert readme.block() in text
    assert markdown(RECORDED["figures"]) in text


def test_the_readme_shows_how_the_diagnoses_generalised():
    text = (REPO / "README.md").read_text()
    record = json.loads(generalisation.RECORD.read_text())
    assert readme.generalisation_block() in text
    assert [batch.name for batch in generalisation.BATCHES] == list(record)
    for name, batch in record.items():
        counts = {verdict: 0 for verdict in generalisation.VERDICTS}
        for verdict in batch["cases"].values():
            counts[verdict] += 1
        per_lesson = {v: sum(c[v] for c in batch["lessons"].values()) for v in counts}
        assert per_lesson == counts, name


def test_the_readme_shows_the_controls():
    """Every control is recorded for every commit it lists, its counts are its cases'
    verdicts counted, and README shows the recorded table."""
    record = json.loads(controls.RECORD.read_text())
    assert [control.name for control in controls.CONTROLS] == list(record)
    for control in controls.CONTROLS:
        rows = record[control.name]
        assert [commit for commit, _ in control.commits] == list(rows)
        for row in rows.values():
            assert all(case_id.startswith(control.prefixes) for case_id in row["cases"])
            counted = {verdict: 0 for verdict in generalisation.VERDICTS}
            for verdict in row["cases"].values():
                if verdict == "accepted":  # accepted by the contract (accepted.py): apart
                    continue
                counted[verdict] += 1
            assert counted == row["counts"], control.name
    assert readme.controls_block() in (REPO / "README.md").read_text()


def test_a_cause_only_echoed_from_the_call_or_the_values_is_not_misnamed():
    """``misnamed_if`` is matched against what the message says: a pattern for another
    cause that matches only the call, a printed tensor, a shape's dtype or the learner's
    own exception text does not make the message misnamed; the same words in a sentence
    of the message still do."""
    other_cause = (
        r"top.?p",
        r"float32",
        r"dtype",
        r"probability tensor",
        r"look.?ahead",
        r"block.?size",
    )
    echoes = (
        "calling `sample(logits (6, 32), top_p=0.4, generator=...)` raised RuntimeError: "
        "probability tensor contains either `inf`, `nan` or element < 0\n"
        "On your line that raised: probs (6, 32) float32.",
        "sliding_window_mask(6, 3) returned Tensor([[100] [110]] as 0/1, dtype=torch.bool), "
        "expected Tensor([[100] [010]] as 0/1, dtype=torch.bool). Your mask keeps the same "
        "keys for every query.",
        "RMSNorm(8)(x (2, 3, 8) float32) [eval mode, top_p unused] is not what the reference "
        "gives.",
        # the module is called under its instance's name, the masks described in the call
        "the output of layer(x (2, 4, 8), memory (2, 4, 8), tgt_mask=bool (2, 1, 4, 4) "
        "(look-ahead and target padding)) [DecoderLayer(8, 2, 16), eval mode] is not what "
        "the reference gives. The output of `self.cross_attn` is not added back.",
        # a printed tensor clipped before its brackets close
        "online_softmax(x (2, 7) = Tensor([[ 0.8006, -1.0887],\n [-0..., block_size=3) is "
        "not what the reference gives. Your result is NaN everywhere.",
    )
    exercises = ("sample", "sliding_window_mask", "RMSNorm", "DecoderLayer", "online_softmax")
    for message, exercise in zip(echoes, exercises, strict=True):
        assert classify(message, (r"nothing matches",), other_cause, exercise) != "misnamed"
        # matched against the whole message, the patterns would call it misnamed
        assert any(re.search(pattern, message, re.IGNORECASE) for pattern in other_cause)
    said = diagnostic_text(echoes[0], "sample")
    assert "top_p" not in said and "probability tensor" not in said
    assert "raised RuntimeError" in said
    assert "NaN everywhere" in diagnostic_text(echoes[4], "online_softmax")
    claims = "sample(logits (6, 32), top_p=0.4): your top-p keeps the tokens above p."
    assert classify(claims, (r"nothing matches",), other_cause, "sample") == "misnamed"
    # named is judged on the whole message, as before
    assert classify(echoes[0], (r"probability tensor",), (), "sample") == "named"


def test_a_batch_re_run_from_git_gives_its_recorded_figures():
    """The smallest batch, rebuilt from its commit and judged there again (about 15 s)."""
    batch = min(
        generalisation.BATCHES,
        key=lambda b: len(json.loads(generalisation.RECORD.read_text())[b.name]["cases"]),
    )
    assert (
        generalisation.run_batch(batch) == json.loads(generalisation.RECORD.read_text())[batch.name]
    )


def test_the_recorded_figures_are_the_recorded_results_counted():
    assert table(RECORDED["results"]) == RECORDED["figures"]
    assert {r["id"] for r in RECORDED["results"] if r["origin"] == "reported"} == {
        case.id for case in CASES
    }


def _sample() -> list:
    """Per lesson, its first and last hand-written case (the slow beam search left out)."""
    chosen = {}
    for case in CASES:
        if case.exercise == "beam_search":
            continue
        chosen.setdefault(case.lesson, []).append(case)
    return [
        case
        for cases in chosen.values()
        for case in {cases[0].id: cases[0], cases[-1].id: cases[-1]}.values()
    ]


@pytest.mark.parametrize("case", _sample(), ids=lambda case: case.id)
def test_the_records_are_the_runners_current_output(case):
    """A sample re-run: same catch, same verdict, same first message as recorded. Rerun
    `python -m benchmarks.diagnosis` (and `python -m benchmarks.diagnosis.readme`) after
    changing a check's messages."""
    now = run_case(case)
    recorded = BY_ID[case.id]
    for key in ("visible", "hidden", "verdict", "message"):
        # an object's memory address (a generator's repr, say) differs from run to run
        got, want = (
            re.sub(r" at 0x[0-9a-f]+", " at 0x…", value) if isinstance(value, str) else value
            for value in (now[key], recorded[key])
        )
        assert got == want, (case.id, key, now[key], recorded[key])


def test_the_records_are_as_new_as_the_checks_and_the_cases():
    """Every lesson's records at once: they were written from the checks, references, runner
    and cases of today (their digest), so no lesson's table can be older than its checks."""
    assert RECORDED["sources"] == sources_digest(), (
        "benchmarks/diagnosis/records.json is older than the checks or the benchmark's cases: "
        "run `python -m benchmarks.diagnosis` and `python -m benchmarks.diagnosis.readme`"
    )


def test_the_mutants_are_the_runners_current_output():
    """The mutant runner reproduces its records: lesson 03's mutants (functions and a module,
    in every table that has some of them: 1-3 and the held-out 4-6, 7-9, 10-12, 13-15 and
    16-18) and, for 19-21, which lesson 03 has run out of, lesson 09's (count_parameters),
    re-run: same ids, verdicts and first messages as recorded (the held-out ones under their
    own tables)."""
    assert [numbers for numbers, _ in MUTANT_TABLES] == [
        (1, 3),
        (4, 6),
        (7, 9),
        (10, 12),
        (13, 15),
        (16, 18),
        (19, 21),
    ]
    for numbers, origin in MUTANT_TABLES:
        lesson = "09_transformer" if numbers == (19, 21) else "03_positional_encoding"
        now = mutant_results({lesson}, numbers, origin)
        assert now, numbers
        for result in now:
            recorded = BY_ID[result["id"]]
            assert recorded["origin"] == origin
            for key in ("verdict", "message"):
                assert result[key] == recorded[key], (result["id"], key)


def test_every_lesson_has_cases_and_every_case_is_well_formed():
    lessons = {case.lesson for case in CASES}
    for number in range(1, 13):
        (lesson,) = [name for name in registry.lessons() if name.startswith(f"{number:02d}_")]
        count = sum(case.lesson == lesson for case in CASES)
        assert count >= 5, (lesson, count)
    assert lessons <= set(registry.lessons())
    assert len({case.id for case in CASES}) == len(CASES)
    for case in CASES:
        assert case.cause and case.named_if, case.id
        assert re.match(r"https?://|author: ", case.source), case.id
        for pattern in (*case.named_if, *case.misnamed_if):
            re.compile(pattern)
        source = case_source(case, registry.exercise(case.lesson, case.exercise))
        ast.parse(source)  # the edits applied and left Python


def _mistake_sources() -> set[str]:
    """The source of every function and class defined in the lesson test files: the
    mistake tables and their helpers, normalised by ast.unparse."""
    found = set()
    for path in REPO.glob("tests/test_[01][0-9]_*.py"):
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                body = ast.unparse(ast.Module(body=node.body, type_ignores=[]))
                found.add(body)
    return found


def test_no_case_is_a_mistake_from_the_tests_tables():
    """The benchmark measures generalisation: no case's answer is one of the tests' own
    wrong implementations (compared body for body, after ast.unparse), and the benchmark
    does not import the tests."""
    tables = _mistake_sources()
    for case in CASES:
        source = case_source(case, registry.exercise(case.lesson, case.exercise))
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                body = ast.unparse(ast.Module(body=node.body, type_ignores=[]))
                assert body not in tables, case.id
    for path in (REPO / "benchmarks" / "diagnosis").glob("*.py"):
        assert not re.search(r"^\s*(from|import) (tests|test_|common)", path.read_text(), re.M)


def test_an_answer_s_lines_show_in_its_tracebacks_as_in_a_notebook():
    """A kernel keeps each cell's source in linecache, and some hints read the learner's
    line from the traceback (`k.T`); the runner's answers must be read the same way."""
    import linecache

    from benchmarks.diagnosis.run import _learner_object

    exercise = registry.exercise("04_attention", "scaled_dot_product_attention")
    source = "def scaled_dot_product_attention(q, k, v, mask=None):\n    return q @ k.T, None\n"
    answer = _learner_object(exercise, source, "linecache-probe")
    assert linecache.getline(answer.__code__.co_filename, 2).strip() == "return q @ k.T, None"


def test_every_case_the_contract_accepts_is_a_case():
    """ACCEPTED_BY_CONTRACT names real cases, each with its sentence."""
    ids = {case.id for case in CASES}
    assert set(ACCEPTED_BY_CONTRACT) <= ids, set(ACCEPTED_BY_CONTRACT) - ids
    assert all(reason.strip() for reason in ACCEPTED_BY_CONTRACT.values())


def _judge_answer(case_id: str, answer) -> dict:
    case = next(case for case in CASES if case.id == case_id)
    return judge_answer(case, answer, registry.exercise(case.lesson, case.exercise))


def test_a_case_the_contract_accepts_is_accepted_only_while_both_checks_pass_it():
    """A case of ACCEPTED_BY_CONTRACT that both checks pass is "accepted" (counted apart);
    an answer under its id that a check fails keeps its normal verdict, so the table cannot
    hide a caught case; an uncaught answer under another id stays "uncaught"."""
    import numpy as np

    from transformer_course.reference import attention

    case_id = "blind18c-softmax-cast-float32"
    assert case_id in ACCEPTED_BY_CONTRACT
    case = next(case for case in CASES if case.id == case_id)
    assert run_case(case)["verdict"] == "accepted"
    assert _judge_answer(case_id, attention.softmax)["verdict"] == "accepted"

    def softmax_without_the_exponential(x, axis=-1):
        x = np.asarray(x)
        return x / x.sum(axis=axis, keepdims=True)

    caught = _judge_answer(case_id, softmax_without_the_exponential)
    assert caught["visible"] and caught["verdict"] != "accepted"
    assert caught["verdict"] in ("named", "pointed", "generic", "misnamed")
    other = next(case for case in CASES if case.exercise == "softmax" and case.id != case_id)
    assert other.id not in ACCEPTED_BY_CONTRACT
    exercise = registry.exercise(other.lesson, other.exercise)
    uncaught = _judge(
        other.id, other.lesson, exercise, attention.softmax, (), (), "reported", "", ""
    )
    assert uncaught["verdict"] == "uncaught"


def test_every_generalisation_batch_leaves_out_the_cases_the_contract_accepts():
    """generalisation.excluded: each batch's own exclusions, and the contract's ids that the
    batch holds, with the table's sentence as the reason."""
    batch = generalisation.BATCHES[0]
    some_id = next(iter(ACCEPTED_BY_CONTRACT))
    left_out = generalisation.excluded(batch, [some_id, "not-a-case"])
    assert some_id in left_out and ACCEPTED_BY_CONTRACT[some_id] in left_out[some_id]
    assert "not-a-case" not in left_out
    assert set(ACCEPTED_BY_CONTRACT) <= set(generalisation.excluded(batch))
    for batch in generalisation.BATCHES:
        assert dict(batch.excluded).items() <= generalisation.excluded(batch, []).items()
