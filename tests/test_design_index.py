"""docs/DESIGN.md's index agrees with its decisions.

Each decision is a heading ``## Dn. title``; one that a later decision changes says so in its
body with a line ``*Amended by Dm*`` or ``*Superseded by Dm*`` (``Dm-Dk`` for a run). The index
at the top lists every decision, in order, with its status taken from those lines. Run this
file as a script to rewrite the index after adding or amending a decision::

    .venv/bin/python tests/test_design_index.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DESIGN = Path(__file__).resolve().parents[1] / "docs" / "DESIGN.md"
BEGIN = "<!-- index: written by tests/test_design_index.py -->"
END = "<!-- end of index -->"
_HEADING = re.compile(r"^## D(\d+)\. (.+)$", re.M)
_MARK = re.compile(r"^\*(Amended|Superseded) by (D\d+(?:-D\d+)?)\*", re.M)


def decisions(text: str) -> list[tuple[int, str, str]]:
    """(number, title, status) of every decision, in the order written."""
    found = []
    headings = list(_HEADING.finditer(text))
    for at, heading in enumerate(headings):
        end = headings[at + 1].start() if at + 1 < len(headings) else len(text)
        marks = _MARK.findall(text[heading.end() : end])
        status = "; ".join(f"{kind.lower()} by {which}" for kind, which in marks) or "current"
        found.append((int(heading.group(1)), heading.group(2).strip(), status))
    return found


def _cell(text: str) -> str:
    """Text for a Markdown table cell: a bar is escaped."""
    return text.replace("|", "\\|")


def index_of(text: str) -> str:
    rows = [f"| D{n} | {_cell(title)} | {status} |" for n, title, status in decisions(text)]
    table = "\n".join(["| | decision | status |", "|---|---|---|", *rows])
    return f"{BEGIN}\n{table}\n{END}"


def _present(text: str) -> str:
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def test_the_index_lists_every_decision_with_its_status() -> None:
    text = DESIGN.read_text()
    assert _present(text) == index_of(text), "run tests/test_design_index.py to rewrite it"


def test_decisions_are_numbered_in_order_without_gaps() -> None:
    numbers = [n for n, _, _ in decisions(DESIGN.read_text())]
    assert numbers == list(range(1, len(numbers) + 1))


def test_every_decision_named_as_amending_exists() -> None:
    text = DESIGN.read_text()
    known = {n for n, _, _ in decisions(text)}
    for _, which in _MARK.findall(text):
        for name in which.split("-"):
            assert int(name[1:]) in known, name


if __name__ == "__main__":
    text = DESIGN.read_text()
    DESIGN.write_text(text.replace(_present(text), index_of(text)))
    sys.exit(0)
