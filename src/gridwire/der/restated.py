"""Checking an equipment block's rows against each other and against the Key sheet.

The workbook states each per-unit block twice: for unit #1 (``Meter_AI+3``) and for a generic
unit m (``Meter_AI+mhai(m)+3``). The second restates the first: it is not kept as points, but a
restated offset unit #1 does not list stops the load, and a restatement that says something
else of the point (units, range, class...) is reported. A unit #1 row that counts beyond the
per-unit length the Key sheet gives is reported too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gridwire.der.cells import CellError
from gridwire.der.indexcells import PER_UNIT
from gridwire.der.points import Point
from gridwire.der.text import normalize

#: Fields a restatement must agree on with unit #1's row (the name, with its unit marks left
#: out, is compared apart; the IEC 61850 name and the value may name the unit).
COMPARED = (
    "purpose",
    "event_class",
    "mandatory",
    "mandatory_1547",
    "minimum",
    "maximum",
    "multiplier",
    "offset",
    "units",
    "states",
    "enumeration",
    "associated",
    "frozen",
    "frozen_event_class",
)
_UNIT_MARK = re.compile(r"#\s*\w+")


@dataclass(frozen=True, slots=True)
class Restatement:
    """A generic unit's row: where it is, what its index cell says, the point it describes."""

    row: int
    cell: str
    point: Point


def check_restated(
    sheet: str,
    points: Sequence[Point],
    restated: Iterable[Restatement],
    rows: Mapping[int, int],
    blocks: Mapping[str, int],
) -> list[str]:
    """Warnings about a sheet's equipment blocks; raises CellError (naming sheet, row and cell)
    for a restatement of an offset unit #1 does not list. ``rows`` gives each kept point's row
    by index."""
    first = {(p.block, p.index): p for p in points if p.block is not None}
    differing: dict[str, list[str]] = {}
    for again in restated:
        point = again.point
        assert point.block is not None
        original = first.get((point.block, point.index))
        if original is None:
            offset = point.index - blocks[point.block]
            raise CellError(
                f"sheet {sheet}, row {again.row}, cell A{again.row}: '{again.cell}' restates "
                f"{point.block}+{offset} for a unit m, which no unit #1 row of the sheet lists"
            )
        fields = _differences(original, point)
        if fields:
            differing.setdefault(point.block, []).append(
                f"row {again.row} against row {rows[original.index]}: {', '.join(fields)}"
            )
    warnings = [
        f"sheet {sheet}: {_rows(len(found))} restating block {block} for a unit m "
        f"{'differs' if len(found) == 1 else 'differ'} from unit #1's ({_first(found)})"
        for block, found in differing.items()
    ]
    return warnings + _beyond_length(sheet, points, rows, blocks)


def _differences(original: Point, again: Point) -> list[str]:
    fields = [f for f in COMPARED if getattr(original, f) != getattr(again, f)]
    if _unitless(original.name) != _unitless(again.name):
        fields.insert(0, "name")
    return fields


def _unitless(name: str) -> str:
    return " ".join(_UNIT_MARK.sub("#", normalize(name)).split())


def _beyond_length(
    sheet: str, points: Sequence[Point], rows: Mapping[int, int], blocks: Mapping[str, int]
) -> list[str]:
    beyond: dict[str, list[str]] = {}
    for point in points:
        if point.block is None:
            continue
        length = blocks.get(f"{point.block}{PER_UNIT}")
        offset = point.index - blocks[point.block]
        if length is not None and not 0 <= offset < length:
            beyond.setdefault(point.block, []).append(
                f"row {rows[point.index]}: {point.block}+{offset}"
            )
    return [
        f"sheet {sheet}: block {block} is {blocks[block + PER_UNIT]} long per unit "
        f"(Key sheet), yet {_rows(len(found))} {'counts' if len(found) == 1 else 'count'} "
        f"beyond it ({_first(found)})"
        for block, found in beyond.items()
    ]


def _rows(count: int) -> str:
    return "1 row" if count == 1 else f"{count} rows"


def _first(found: list[str]) -> str:
    return found[0] if len(found) == 1 else f"{found[0]}; and {len(found) - 1} more"
