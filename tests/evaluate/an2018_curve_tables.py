"""Tables whose curve type point enumerates no values, derived from AN2018's point lists
(EPRI's DNP3 application note, the predecessor of IEEE 1815.2, in ../shared/data/an2018):
the volt-watt function (BO25, BI44, BI77, its settings AO168-AO180 and their inputs), the
curve block (AO244-AO448, AI328-AI532) and the referenced indicator (BI107), each point at
AN2018's index with its range and mirror from EPRI's list (``mapped_input``), named by
VOLTTRON's description where it has one (EPRI's names of outputs are abbreviations) and
grouped by VOLTTRON's logical node class; the DER supports volt-watt (BI44 true). The curve type point (AO245, "Curve Mode Type")
is named without the values VOLTTRON lists for it: an abridged copy of the tables."""

from __future__ import annotations

import csv
from collections.abc import Iterable

import orjson

from gridwire.der.derive import derive_curve_block, derive_functions
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Point
from tests.support.shared import shared_file

NO_INPUT = "65535"
WANTED = {
    "BO": {25},
    "BI": {44, 77, 107},
    "AO": {*range(168, 181), *range(244, 449)},
    "AI": {*range(242, 257), *range(328, 533)},
}


def _volttron() -> dict[tuple[str, int], dict[str, object]]:
    data = orjson.loads(shared_file("data/an2018/volttron-mesa-points.json").read_bytes())
    return {(p["data_type"], int(p["index"])): p for p in data}


def _rows() -> Iterable[dict[str, str]]:
    with shared_file("data/an2018/epri-an2018-points.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if int(row["index"]) in WANTED.get(row["type"], ()):
                yield row


def an2018_curve_points() -> list[Point]:
    described = _volttron()
    points = []
    for row in _rows():
        kind, index = Kind(row["type"]), int(row["index"])
        extra = described.get((row["type"], index), {})
        mirror = row["mapped_input"]
        associated = None
        if kind.is_output and mirror and mirror != NO_INPUT:
            associated = Address(kind.mirror or kind, int(mirror))
        points.append(
            Point(
                kind,
                index,
                str(extra.get("description") or row["name"]).strip(),
                purpose=str(extra.get("ln_class") or ""),
                minimum=int(row["min"]) if row["min"] else None,
                maximum=int(row["max"]) if row["max"] else None,
                event_class=0 if kind.is_output else 2,
                associated=associated,
                value=True if row["name"].startswith("Supports") else None,
            )
        )
    return points


def an2018_curve_map() -> PointMap:
    """The tables, functions and curve block found from the names as a workbook's are."""
    points = an2018_curve_points()
    return PointMap(
        points,
        title="AN2018 (EPRI, VOLTTRON): volt-watt and the curve block, curve types unlisted",
        functions=derive_functions(points),
        curve_block=derive_curve_block(points),
    )
