"""Write the benchmark's table (from records.json) into README.md between its markers:
``.venv/bin/python -m benchmarks.diagnosis.readme``."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.diagnosis.run import RECORDS, markdown

README = Path(__file__).resolve().parents[2] / "README.md"
BEGIN, END = "<!-- diagnosis:begin -->", "<!-- diagnosis:end -->"


def block() -> str:
    figures = json.loads(RECORDS.read_text())["figures"]
    return f"{BEGIN}\n{markdown(figures)}{END}"


def main() -> None:
    text = README.read_text()
    start, stop = text.index(BEGIN), text.index(END) + len(END)
    README.write_text(text[:start] + block() + text[stop:])


if __name__ == "__main__":
    main()
