"""A cross-check against third-party numbering: AN2018's point lists (EPRI's DNP3 application
note, the predecessor of IEEE 1815.2, in ../shared/data/an2018) written into a workbook in
IEEE's layout, equipment blocks block-relative with the Key sheet's block table, and loaded.

AN2018's list gives each equipment block twice at concrete indices, for unit #1 ("Meter #1
Frequency", AI791) and for a second unit named generically ("Meter #m Frequency", AI828). The
workbook here states the first as ``Meter_AI+4`` and the second as ``Meter_AI+mhai(m)+4``, as
IEEE's layout does; the Key sheet gives the block start and the length per unit AN2018 implies
(the distance between the two). Loading must put every point at AN2018's own index.
"""

from __future__ import annotations

import csv
import re
from typing import Any

import pytest

from gridwire.der.workbook import WorkbookResult, read_workbook_bytes
from tests.der.ieee_layout import HEADERS
from tests.der.workbooks import Rows, workbook_bytes
from tests.support.shared import shared_file

#: Equipment blocks written block-relative: (type, symbol, unit #1's mark, the generic mark).
BLOCKS = [
    ("AI", "Meter", "Meter #1", "Meter #m"),
    ("BI", "DER_Unit", "DER Unit #1", "DER Unit #u"),
    ("AI", "Inverter", "Inverter #1", "Inver(?:t?er) #i"),
]
TYPES = ("BO", "BI", "AO", "AI")
KEY_COLUMNS = {"BO": 11, "BI": 12, "AO": 13, "AI": 14}


def _an2018() -> list[dict[str, str]]:
    with shared_file("data/an2018/epri-an2018-points.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _row(kind: str, index: str, name: str, point: dict[str, str]) -> list[Any]:
    cls, low, high = point["event_class"] or None, point["min"] or None, point["max"] or None
    return {
        "BO": [index, name],
        "BI": [index, name, cls],
        "AO": [index, name, low, high],
        "AI": [index, name, cls, low, high],
    }[kind]


Layout = dict[str, tuple[int, int]]
Loaded = tuple[list[dict[str, str]], WorkbookResult, Layout, set[tuple[str, int]]]


def _workbook(points: list[dict[str, str]]) -> tuple[bytes, Layout, set[tuple[str, int]]]:
    """The workbook; each block's (start, length per unit) as AN2018 lays it out; the
    addresses AN2018 gives the generic unit's points."""
    sheets: dict[str, Rows] = {kind: [] for kind in TYPES}
    key: Rows = [[None] * 8 + ["Block", "Note", "Start", *TYPES, "CTR"]]
    layout: Layout = {}
    relative: dict[tuple[str, int], str] = {}
    for kind, symbol, first, generic in BLOCKS:
        ones = [p for p in points if p["type"] == kind and p["name"].startswith(first)]
        others = [p for p in points if p["type"] == kind and re.match(generic, p["name"])]
        start, again = int(ones[0]["index"]), int(others[0]["index"])
        layout[f"{symbol}_{kind}"] = (start, again - start)
        for p in ones:
            relative[(kind, int(p["index"]))] = f"{symbol}_{kind}+{int(p['index']) - start}"
        for p in others:
            relative[(kind, int(p["index"]))] = f"{symbol}_{kind}+mhai(m)+{int(p['index']) - again}"
        label = {"Meter": "Meters", "DER_Unit": "DER Units", "Inverter": "Inverters"}[symbol]
        starts = [None] * 5
        lengths = [None] * 5
        starts[TYPES.index(kind)], lengths[TYPES.index(kind)] = start, again - start
        key += [[None] * 8 + [label, None, None, *starts], [None] * 11 + lengths]
    for p in points:
        kind, index = p["type"], int(p["index"])
        cell = relative.get((kind, index), f"{kind}{index}")
        if cell.endswith("+mhai(m)+0"):  # the generic unit follows a row of dots
            sheets[kind].append([". . ."])
        elif cell.endswith(f"_{kind}+0"):  # a block begins under a heading of its start
            sheets[kind].append([index, "Equipment"])
        sheets[kind].append(_row(kind, cell, p["name"], p))
    sheets = {"Key": key, **sheets, "CTR": []}
    generic = {place for place, cell in relative.items() if "mhai" in cell}
    return workbook_bytes(sheets=sheets, headers=HEADERS), layout, generic


@pytest.fixture(scope="module")
def an2018() -> Loaded:
    points = _an2018()
    data, layout, generic = _workbook(points)
    return points, read_workbook_bytes(data, "an2018.xlsx"), layout, generic


def test_every_point_is_at_an2018s_index(
    an2018: Loaded,
) -> None:
    points, result, _, generic = an2018
    kept = {
        (p["type"], int(p["index"])): " ".join(p["name"].split())
        for p in points
        if (p["type"], int(p["index"])) not in generic
    }
    assert len(generic) == 37 + 4 + 33
    loaded = {(p.kind.value, p.index): p.name for p in result.point_map.points}
    assert loaded == kept
    meter = result.point_map.at("AI791")
    assert meter is not None and (meter.block, meter.unit) == ("Meter_AI", 1)


def test_key_sheet_starts_and_lengths(
    an2018: Loaded,
) -> None:
    _, result, layout, _ = an2018
    blocks = result.point_map.blocks
    assert layout["Meter_AI"] == (787, 37)  # AI787 "Meter #1 Type of Connection Point"
    for name, (start, length) in layout.items():
        assert (blocks[name], blocks[f"{name} per unit"]) == (start, length)


def test_restatements_agree_where_an2018_agrees(
    an2018: Loaded,
) -> None:
    # AN2018 restates its meter AI and DER unit BI blocks exactly; its inverter AI block
    # differs in places (event classes, one name spelt "Inverer"), which is reported.
    _, result, _, _ = an2018
    assert result.warnings == (
        "sheet AI: 7 rows restating block Inverter_AI for a unit m differ from unit #1's "
        "(row 930 against row 896: event_class; and 6 more)",
    )
