"""A synthetic workbook laid out as IEEE 1815.2's companion workbook is (sheets Key, BO, BI, AO,
AI, CTR; two header rows; headings; absolute and block-relative indices), with invented names:
nothing of IEEE's tables. Tests change single cells to provoke the loader's errors."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import openpyxl

Rows = list[list[Any]]

HEADERS: dict[str, Rows] = {
    "BO": [
        [
            "Point Index",
            "Name / Description",
            "Value is 0",
            "Value is 1",
            "IEC61850",
            "Assoc. BI",
            "Purpose",
            "Mandatory for IEEE 1815.2",
            "Mandatory for 1547",
        ],
        [None, None, "state name", "state name", "unique string"],
    ],
    "BI": [
        [
            "Point Index",
            "Name / Description",
            "Default Event Class",
            "Value is 0",
            "Value is 1",
            "IEC61850",
            "Assoc. BO",
            "Purpose",
            "Mandatory for IEEE 1815.2",
            "Mandatory for 1547",
        ],
        [None] * 3,
    ],
    "AO": [
        [
            "Point Index",
            "Name",
            "Minimum",
            "Maximum",
            "Multiplier",
            "Offset",
            "Units",
            "IEC61850",
            "Assoc. AI",
            "Purpose",
            "Mandatory for IEEE 1815.2",
            "Mandatory for 1547",
        ],
        [None, None, "transmitted", "transmitted"],
    ],
    "AI": [
        [
            "Point Index",
            "Name",
            "Default Event Class",
            "Minimum",
            "Maximum",
            "Multiplier",
            "Offset",
            "Units",
            "IEC61850",
            "Value",
            "Assoc. AO",
            "Purpose",
            "Mandatory for IEEE 1815.2",
            "Mandatory for 1547",
        ],
        [None],
    ],
    "CTR": [
        [
            "Point Index",
            "Name",
            "Default Class of the counter",
            "Frozen Counter Exists",
            "Default Class of the frozen counter",
            "IEC61850",
            "Purpose",
            "Mandatory for IEEE 1815.2",
            "Mandatory for 1547",
        ],
        [None],
    ],
}

KEY: Rows = [
    ["Block", "Start"],
    ["Gadget_AI", 700],
    ["Gadget_BI", 300],
    ["Max index", 65535],
]

BO: Rows = [
    [None, "Widget controls"],
    ["BO0", "Hold the widget", "Release", "Hold", "XWGT.Hold", "BI0", "Control", "M", "O"],
    [None, "Frobnication"],
    ["BO1", "Enable Frobnication Mode", "Off", "On", None, "BI2", "Frob", "Mandatory", None],
    ["BO2", "Enable Spin Mode. Spins the rotor", "Off", "On", None, "BI4", "Spin", "M", "M"],
]

BI: Rows = [
    [None, "Widget status"],
    ["BI0", "Widget held", "Class 2", "Free", "Held", None, "BO0", "Status", "M", None],
    ["BI1", "Supports Frobnication Mode", 0, "No", "Yes", None, None, "Nameplate", "M", None],
    ["BI2", "Frobnication Mode Enabled", "1", "No", "Yes", None, "BO1", "Frob", "O", None],
    ["BI3", "Supports spin mode", "Class0", "No", "Yes", None, None, "Nameplate", "M", None],
    ["BI4", "Spin Mode Enabled", 2, "No", "Yes", None, "BO2", "Spin", None, None],
    [
        "BI5",
        "Selected curve is referenced by an enabled mode",
        1,
        "No",
        "Yes",
        None,
        None,
        "Curve",
        "M",
        None,
    ],
    [None, "Gadget block"],
    ["Gadget_BI + 1", "Gadget #1 jammed", 1, "Turning", "Jammed", None, None, "Alarm"],
    ["Gadget_BI+2", "Gadget #2 jammed", 1, "Turning", "Jammed", None, None, "Alarm"],
]

AO: Rows = [
    [None, "Frobnication settings"],
    [
        "AO0",
        "Frobnication strength. Share of the largest",
        0,
        1000,
        0.1,
        0,
        "%",
        None,
        "AI0",
        "Frob",
        "M",
        None,
    ],
    ["AO1", "Frobnication curve index", 1, 4, 1, None, None, None, "AI1", "Frob", None, None],
    [None, "Spin settings"],
    ["AO2", "Spin speed", 0, 3000, None, None, "rpm", None, "AI2", "Spin", None, None],
    [None, "Curve editing"],
    [
        "AO10",
        "Curve select. Number of the curve to edit",
        1,
        4,
        1,
        0,
        None,
        None,
        "AI20",
        "Curve",
        "M",
        None,
    ],
    [
        "AO11",
        "Curve kind <0> Unused <1> Not applicable <2> Frobnication curve <3> Spin curve",
        0,
        3,
        1,
        0,
        None,
        None,
        "AI21",
        "Curve",
        "M",
        None,
    ],
    ["AO12", "Curve point count", 0, 2, 1, 0, None, None, "AI22", "Curve", "M", None],
    ["AO13", "Curve X units <0=None, 1=Percent>", 0, 1, 1, 0, None, None, "AI23", "Curve"],
    ["AO14", "Curve Y units <0=None, 1=Percent>", 0, 1, 1, 0, None, None, "AI24", "Curve"],
    ["AO15", "Curve point 1 X", None, None, None, None, None, None, "AI25", "Curve"],
    ["AO16", "Curve point 1 Y", None, None, None, None, None, None, "AI26", "Curve"],
    ["AO17", "Curve point 2 X", None, None, None, None, None, None, "AI27", "Curve"],
    ["AO18", "Curve point 2 Y", None, None, None, None, None, None, "AI28", "Curve"],
]


def _mirror(ai: int, ao: int, name: str, purpose: str, *numbers: Any) -> list[Any]:
    return [f"AI{ai}", name, 2, *numbers, None, None, f"AO{ao}", purpose]


AI: Rows = [
    [None, "Frobnication settings"],
    _mirror(0, 0, "Frobnication strength. Share of the largest", "Frob", 0, 1000, 0.1, 0, "%"),
    _mirror(1, 1, "Frobnication curve index", "Frob", 1, 4, 1, 0, None),
    _mirror(2, 2, "Spin speed", "Spin", 0, 3000, None, None, "rpm"),
    [None, "Measurements"],
    [
        "AI5",
        "Widget frequency",
        "Class 1",
        0,
        70000,
        0.001,
        0,
        "Hz",
        None,
        60000,
        None,
        "Monitoring",
        "M",
        "M",
    ],
    [
        "AI6",
        "Widget remark",
        3,
        None,
        None,
        None,
        None,
        None,
        None,
        "see the note",
        None,
        "Monitoring",
    ],
    [None, "Curve editing"],
    _mirror(20, 10, "Curve select. Number of the curve shown", "Curve", 1, 4, 1, 0, None),
    _mirror(
        21,
        11,
        "Curve kind <0> Unused <1> Not applicable <2> Frobnication curve <3> Spin curve",
        "Curve",
        0,
        3,
        1,
        0,
        None,
    ),
    _mirror(22, 12, "Curve point count", "Curve", 0, 2, 1, 0, None),
    _mirror(23, 13, "Curve X units <0=None, 1=Percent>", "Curve", 0, 1, 1, 0, None),
    _mirror(24, 14, "Curve Y units <0=None, 1=Percent>", "Curve", 0, 1, 1, 0, None),
    _mirror(25, 15, "Curve point 1 X", "Curve", None, None, None, None, None),
    _mirror(26, 16, "Curve point 1 Y", "Curve", None, None, None, None, None),
    _mirror(27, 17, "Curve point 2 X", "Curve", None, None, None, None, None),
    _mirror(28, 18, "Curve point 2 Y", "Curve", None, None, None, None, None),
    [None, "Gadget block"],
    [
        "Gadget_AI",
        "Gadget #1 temperature",
        3,
        -400,
        1500,
        0.1,
        -40,
        "degC",
        None,
        650,
        None,
        "Monitoring",
    ],
    [
        "Gadget_AI + 1",
        "Gadget #1 pressure",
        3,
        0,
        5000,
        1,
        0,
        "kPa",
        None,
        None,
        None,
        "Monitoring",
    ],
]

CTR: Rows = [
    [None, "Widget counters"],
    ["CTR0", "Widget turns", 3, "Yes", 3, None, "Monitoring", "M", None],
    ["CTR1", "Widget jams", "Class 1", "No", None, None, "Monitoring", None, None],
]

SHEETS: dict[str, Rows] = {"Key": KEY, "BO": BO, "BI": BI, "AO": AO, "AI": AI, "CTR": CTR}


def workbook_bytes(
    changes: Mapping[str, Mapping[tuple[int, int], Any]] | None = None,
    *,
    drop: Iterable[str] = (),
    extra_rows: Mapping[str, Rows] | None = None,
    sheets: Mapping[str, Rows] = SHEETS,
    headers: Mapping[str, Rows] = HEADERS,
) -> bytes:
    """The synthetic workbook (or ``sheets`` under ``headers``) as .xlsx octets.
    ``changes[sheet][(row, column)]`` (both counted from 1, as Excel does) replaces one cell;
    ``drop`` leaves sheets out."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    dropped = set(drop)
    for name, rows in sheets.items():
        if name in dropped:
            continue
        sheet = book.create_sheet(name)
        body = [list(r) for r in headers.get(name, [])] + [list(r) for r in rows]
        body += [list(r) for r in (extra_rows or {}).get(name, [])]
        for (row, column), value in (changes or {}).get(name, {}).items():
            while len(body) < row:
                body.append([])
            line = body[row - 1]
            line.extend([None] * (column - len(line)))
            line[column - 1] = value
        for line in body:
            sheet.append(line)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def write_workbook(path: Path, **kwargs: Any) -> Path:
    path.write_bytes(workbook_bytes(**kwargs))
    return path
