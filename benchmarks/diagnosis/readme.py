"""Write the benchmark's tables into README.md between their markers: today's figures (from
records.json), how the diagnoses generalised (from generalisation.json) and the controls
of that table (from controls.json):
``.venv/bin/python -m benchmarks.diagnosis.readme``."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.diagnosis import controls, generalisation
from benchmarks.diagnosis.run import RECORDS, markdown

README = Path(__file__).resolve().parents[2] / "README.md"
BEGIN, END = "<!-- diagnosis:begin -->", "<!-- diagnosis:end -->"
GENERAL_BEGIN, GENERAL_END = "<!-- generalisation:begin -->", "<!-- generalisation:end -->"
CONTROLS_BEGIN, CONTROLS_END = "<!-- controls:begin -->", "<!-- controls:end -->"


def block() -> str:
    figures = json.loads(RECORDS.read_text())["figures"]
    return f"{BEGIN}\n{markdown(figures)}{END}"


def generalisation_block() -> str:
    record = json.loads(generalisation.RECORD.read_text())
    return f"{GENERAL_BEGIN}\n{generalisation.markdown(record)}{GENERAL_END}"


def controls_block() -> str:
    record = json.loads(controls.RECORD.read_text())
    return f"{CONTROLS_BEGIN}\n{controls.markdown(record)}{CONTROLS_END}"


def _replace(text: str, begin: str, end: str, block: str) -> str:
    start, stop = text.index(begin), text.index(end) + len(end)
    return text[:start] + block + text[stop:]


def main() -> None:
    text = _replace(README.read_text(), BEGIN, END, block())
    text = _replace(text, GENERAL_BEGIN, GENERAL_END, generalisation_block())
    README.write_text(_replace(text, CONTROLS_BEGIN, CONTROLS_END, controls_block()))


if __name__ == "__main__":
    main()
