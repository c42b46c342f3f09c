"""The columns of the workbook's point sheets, in order, and how their headings are checked.

Each point sheet has two header rows; a column's heading is the two joined (the first row
often spans several columns, the second says which). Every column's heading must say what the
column holds (``Minimum``, ``Assoc. AI``, ``Mandatory for 1547``...), so a workbook whose
columns moved is refused rather than misread. The words looked for are few and broad (a
heading may say ``Scale factor`` or ``Multiplier``); the order is what is checked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openpyxl.utils import get_column_letter

from gridwire.der import cells
from gridwire.der.points import Kind

HEADER_ROWS = 2


@dataclass(frozen=True, slots=True)
class Heading:
    """What a column's heading must say: ``title`` names it in messages; ``needs`` must be found
    in the joined heading (case folded) and ``unless`` must not."""

    title: str
    needs: re.Pattern[str]
    unless: re.Pattern[str] | None = None

    def fits(self, heading: str) -> bool:
        folded = heading.casefold()
        if self.needs.search(folded) is None:
            return False
        return self.unless is None or self.unless.search(folded) is None


def _heading(title: str, needs: str, unless: str | None = None) -> Heading:
    return Heading(title, re.compile(needs), None if unless is None else re.compile(unless))


HEADINGS: dict[str, Heading] = {
    "index": _heading("Point Index", r"index|point"),
    "name": _heading("Name", r"name|description|label"),
    "event_class": _heading("Default Event Class", r"class", r"frozen"),
    "state0": _heading("Value is 0", r"(?<![\d.])0(?![\d.])|\bfalse\b|\bzero\b"),
    "state1": _heading("Value is 1", r"(?<![\d.])1(?![\d.])|\btrue\b"),
    "iec61850": _heading("IEC61850", r"61850|iec"),
    "associated": _heading("Associated point", r"assoc|pair|mirror|correspond"),
    "purpose": _heading("Purpose", r"purpose|category"),
    "mandatory": _heading("Mandatory for IEEE 1815.2", r"mandatory|required|1815", r"1547"),
    "mandatory_1547": _heading("Mandatory for 1547", r"1547"),
    "minimum": _heading("Minimum", r"min"),
    "maximum": _heading("Maximum", r"max"),
    "multiplier": _heading("Multiplier", r"multipl|scal|factor"),
    "offset": _heading("Offset", r"offset"),
    "units": _heading("Units", r"unit"),
    "value": _heading("Value", r"value|fixed|constant"),
    "frozen": _heading("Frozen Counter Exists", r"frozen", r"class"),
    "frozen_event_class": _heading(
        "Default Class of the frozen counter", r"frozen.*class|class.*frozen"
    ),
}

_ENDING = "purpose mandatory mandatory_1547"
COLUMNS: dict[Kind, tuple[str, ...]] = {
    Kind.BO: tuple(f"index name state0 state1 iec61850 associated {_ENDING}".split()),
    Kind.BI: tuple(f"index name event_class state0 state1 iec61850 associated {_ENDING}".split()),
    Kind.AO: tuple(
        f"index name minimum maximum multiplier offset units iec61850 associated {_ENDING}".split()
    ),
    Kind.AI: tuple(
        "index name event_class minimum maximum multiplier offset units iec61850 value "
        f"associated {_ENDING}".split()
    ),
    Kind.CTR: tuple(f"index name event_class frozen frozen_event_class iec61850 {_ENDING}".split()),
}


def header_error(kind: Kind, headers: Sequence[Sequence[Any]]) -> str | None:
    """What is wrong with a sheet's header rows (cell and expectation), or None when every
    column is headed as it should be."""
    for number, field in enumerate(COLUMNS[kind]):
        texts = [t for row in headers if (t := cells.text(_at(row, number))) is not None]
        joined = " ".join(texts)
        heading = HEADINGS[field]
        if not heading.fits(joined):
            letter = get_column_letter(number + 1)
            found = f"'{joined}'" if joined else "nothing"
            return (
                f"cell {letter}1 or {letter}2: expected the heading of the {heading.title} "
                f"column, found {found}"
            )
    return None


def _at(row: Sequence[Any], column: int) -> Any:
    return row[column] if column < len(row) else None
