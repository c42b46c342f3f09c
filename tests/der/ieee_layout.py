"""A synthetic workbook in the layout of IEEE 1815.2's published workbook, with invented names
and numbers (nothing of IEEE's tables): the Key sheet's block table in columns I-P with fixed
and equipment blocks (lengths per unit on the row after) and start-only blocks; two-row
headers; absolute and block-relative index cells, bare symbols, the HM and EX aliases; each
equipment block stated for unit #1 and again for a generic unit m; paired-point columns that
write the reference type first; headings holding nothing, words, a block start, a bare symbol
or ``. . .``.

Row numbers count as Excel does. On the point sheets the two header rows come first, so
``BI[0]`` is row 3; the Key sheet has no header rows of its own here (its row 1 is ``KEY[0]``).
"""

from __future__ import annotations

from typing import Any

from tests.der.workbooks import Rows, workbook_bytes

LEGEND: Rows = [["Column", "Meaning"], ["Default Event Class", 2], ["Mandatory", "M"]]


def _key(label: Any, note: Any = None, start: Any = None, *per_type: Any) -> list[Any]:
    return [None] * 8 + [label, note, start, *per_type]


KEY_TABLE: Rows = [
    _key("Block", "Note", "Start", "BO", "BI", "AO", "AI", "CTR"),
    _key("Configuration & Control", None, None, 0, 0, 0, 0, 0),
    _key("Functions", "one block per function", None, 10, 20, 10, 20),
    _key("Curves", None, None, None, 40, 60, 80),
    _key("System Meter", None, None, None, None, None, 120, 4),
    _key("Extensions beyond", "room to grow", None, 20, 50, 70, 150, 6),
    _key("Gap #1", "unused", None, 30, 60, 75, 160, 8),
    _key("Schedules", "2 items", None, None, None, 90, 170),
    _key("Schedule Status", "2 items", None, None, 70, None, 175),
    _key("Schedules", "4 items", None, None, None, 100, 180),
    _key("Schedule Status", "4 items", None, None, 72, None, 185),
    _key("Meters", "unit m starts at Meter + mhai(m)", None, 200, 300, 400, 500, 10),  # row 12
    _key(None, "points per unit", None, 2, 4, 2, 6, 3),
    _key("DER Units", None, None, 210, 310, 410, 520, 20),
    _key("Length per unit", None, None, 1, 2, 1, 4, 1),
    _key("Inverters", None, None, 220, 320, 420, 540, 30),
    _key(None, None, None, 2, 2, 2, 4, 2),
    _key("Batteries", None, None, 230, 330, 430, 560, 40),
    _key(None, None, None, 1, 3, 1, 4, 1),
    _key("Experimental", "for trials", 5000),  # row 20
    _key("Vendor Points", None, 6000),
    _key("Start Index Points", None, 7000),
    _key("Maximum Index", None, 65535),
]
KEY: Rows = [LEGEND[i] + row[2:] if i < len(LEGEND) else row for i, row in enumerate(KEY_TABLE)]


def _heads(first: str, second: str) -> Rows:
    """Two header rows, cells split at "|" (an empty cell is None)."""
    return [[cell or None for cell in row.split("|")] for row in (first, second)]


_END = "Purpose|Mandatory|"  # the Mandatory heading spans two columns ...
_END2 = "||IEEE 1815.2|1547"  # ... which the second row tells apart
HEADERS: dict[str, Rows] = {
    "BO": _heads(
        f"Point|Name /|Value|Value|IEC|Associated|{_END}",
        f"Index|Description|is 0|is 1|61850|BI{_END2}",
    ),
    "BI": _heads(
        f"Point|Name /|Default|Value|Value|IEC|Associated|{_END}",
        f"Index|Description|Event Class|is 0|is 1|61850|BO{_END2}",
    ),
    "AO": _heads(
        f"Point|Name /|Transmitted||Scaling||Units|IEC|Associated|{_END}",
        f"Index|Description|Minimum|Maximum|Multiplier|Offset||61850|AI{_END2}",
    ),
    "AI": _heads(
        f"Point|Name /|Default|Transmitted||Scaling||Units|IEC|Value|Associated|{_END}",
        f"Index|Description|Event Class|Minimum|Maximum|Multiplier|Offset||61850||AO{_END2}",
    ),
    "CTR": _heads(
        f"Point|Name /|Default Class|Frozen Counter|Default Class of|IEC|{_END}",
        f"Index|Description|of the counter|Exists|the frozen counter|61850{_END2}",
    ),
}

BO: Rows = [
    [None, "Configuration and control"],  # row 3
    ["BO0", "Connect the unit", "Disconnect", "Connect", None, "BI0", "Control", "M", "M"],
    [None, "Trial function"],
    ["BO10", "Enable Trial Mode", "Off", "On", None, "BI21", "Trial", "M", None],
    [None, "Meters"],
    ["Meter_BO", "Meter #1 reset", "Idle", "Reset", None, "BI+Meter+1", "Meter", "O", None],
    ["Meter_BO + 1", "Meter #1 hold", "Run", "Hold", None, "BI+Meter+2", "Meter", "O", None],
    [". . ."],  # row 10
    [
        "Meter_BO+mhai(m)",
        "Meter #m reset",
        "Idle",
        "Reset",
        None,
        "BI+Meter+mhai(m)+1",
        "Meter",
        "O",
        None,
    ],
    [
        "Meter_BO+mhai(m)+1",
        "Meter #m hold",
        "Run",
        "Hold",
        None,
        "BI+Meter+mhai(m)+2",
        "Meter",
        "O",
        None,
    ],
    [None, "Inverters"],
    ["Inverter_BO", "Inverter #1 stop", "Run", "Stop", None, "Inverter_BI", "Inverter", "O", None],
]


def _bi(
    index: str, name: str, assoc: Any = None, purpose: str = "Meter", cls: Any = 1
) -> list[Any]:
    return [index, name, cls, "No", "Yes", None, assoc, purpose, "O", None]


BI: Rows = [
    [None, "Status"],  # row 3
    ["BI0", "Unit connected", 1, "No", "Yes", None, "BO0", "Status", "M", None],
    ["BI20", "Supports Trial Mode", 0, "No", "Yes", None, None, "Nameplate", "M", None],
    ["BI21", "Trial Mode Enabled", 1, "No", "Yes", None, "BO10", "Trial", "M", None],
    [None, "Meters"],
    _bi("Meter_BI", "Meter #1 healthy"),
    _bi("Meter_BI + 1", "Meter #1 reset done", "BO+Meter"),
    _bi("Meter_BI+2", "Meter #1 held", "BO + Meter + 1"),  # row 10
    [". . ."],
    _bi("Meter_BI+mhai(m)", "Meter #m healthy"),
    _bi("Meter_BI+mhai(m)+1", "Meter #m reset done", "BO+Meter+mhai(m)"),
    _bi("Meter_BI+mhai(m)+2", "Meter #m held", "BO+Meter+mhai(m)+1"),
    [None, "Inverters"],
    _bi("Inverter_BI", "Inverter #1 stopped", "Inverter_BO", "Inverter"),
    [None, "Batteries"],
    _bi("Battery_BI+1", "Battery #1 full", None, "Battery", 2),
    _bi("Battery_BI+2", "Battery #1 empty", None, "Battery", 2),
    _bi("Battery_bhai(b)+1", "Battery #b full", None, "Battery", 2),  # row 20
    _bi("Battery_bhai(b)+2", "Battery #b empty", None, "Battery", 2),
]


def _ao(index: str, name: str, assoc: Any, purpose: str, *numbers: Any) -> list[Any]:
    return [index, name, *numbers, None, assoc, purpose, "O", None]


AO: Rows = [
    [None, "Trial settings"],  # row 3
    _ao("AO10", "Trial strength", "AI20", "Trial", 0, 1000, 0.1, 0, "%"),
    ["Exp"],
    _ao("Exp + 1", "Trial ramp", "EX+1", "Experimental", 0, 100, 1, 0, "s"),
    [None, "Meters"],
    _ao("Meter_AO+1", "Meter #1 ratio", "AI+Meter+3", "Meter", 1, 1000, 1, 0, None),  # row 8
    [". . ."],
    _ao("Meter_AO+mhai(m)+1", "Meter #m ratio", "AI+Meter+mhai(m)+3", "Meter", 1, 1000, 1, 0, None),
    ["Vendor points follow"],
    _ao("VP_AO + 2", "Vendor knob", None, "Vendor", 0, 10, 1, 0, None),
]


def _ai(
    index: Any, name: str, cls: Any, scale: tuple[Any, ...], assoc: Any = None, **more: Any
) -> list[Any]:
    minimum, maximum, multiplier, offset, units = scale
    purpose, value = more.get("purpose", "Meter"), more.get("value")
    mandatory = more.get("mandatory", ("O", None))
    return [
        index,
        name,
        cls,
        minimum,
        maximum,
        multiplier,
        offset,
        units,
        None,
        value,
        assoc,
        purpose,
        *mandatory,
    ]


_SETTING = (0, 1000, 0.1, 0, "%")
_KIND = (0, 1, 1, 0, None)
_RATIO = (1, 1000, 1, 0, None)
AI: Rows = [
    [None, "Trial settings"],  # row 3
    _ai("AI20", "Trial strength", 2, _SETTING, "AO10", purpose="Trial", mandatory=("M", None)),
    [5000, "Experimental points"],  # row 5
    _ai("Exp+1", "Trial ramp", 2, (0, 100, 1, 0, "s"), "Exp + 1", purpose="Experimental"),
    [None, "System meter"],
    _ai(
        "AI120",
        "System meter frequency",
        1,
        (0, 70000, 0.001, 0, "Hz"),
        value=60000,
        purpose="Monitoring",
        mandatory=("M", "M"),
    ),
    [None, "Meters"],
    _ai("Meter_AI", "Meter #1 kind <0=Revenue, 1=Check>", 3, _KIND),
    _ai("Meter_AI+3", "Meter #1 ratio", 2, _RATIO, "AO+Meter+1"),  # row 11
    [". . ."],
    _ai("Meter_AI+mhai(m)", "Meter #m kind <0=Revenue, 1=Check>", 3, _KIND),
    _ai("Meter_AI+mhai(m)+3", "Meter #m ratio", 2, _RATIO, "AO+Meter+mhai(m)+1"),
    [". . ."],  # row 15: the section goes on
    _ai("AI121", "Meter summary", 3, (0, 10, 1, 0, None)),
    [None, "DER units"],
    _ai("DER_Unit_AI+2", "DER unit #1 rating", 3, (0, 100000, 1, 0, "W"), purpose="Nameplate"),
    _ai(
        "Inverter_AI + 1",
        "Inverter #1 temperature",
        3,
        (-400, 1500, 0.1, 0, "degC"),
        purpose="Monitoring",
    ),
]

CTR: Rows = [
    [None, "Energy"],  # row 3
    ["CTR0", "Energy delivered", 3, "Yes", 3, None, "Monitoring", "M", None],
    [None, "Meters"],
    ["HM_CTR", "Meter #1 energy delivered", 3, "Yes", 3, None, "Meter", "O", None],
    ["HM_CTR+1", "Meter #1 energy received", 3, "Yes", 3, None, "Meter", "O", None],
    [". . ."],
    ["HM_CTR+mhai(m)", "Meter #m energy delivered", 3, "Yes", 3, None, "Meter", "O", None],
    ["HM_CTR+mhai(m)+1", "Meter #m energy received", 3, "Yes", 3, None, "Meter", "O", None],
]

SHEETS: dict[str, Rows] = {"Key": KEY, "BO": BO, "BI": BI, "AO": AO, "AI": AI, "CTR": CTR}


def ieee_layout_bytes(changes: dict[str, dict[tuple[int, int], Any]] | None = None) -> bytes:
    """The workbook as .xlsx octets; ``changes[sheet][(row, column)]`` replaces one cell."""
    return workbook_bytes(changes, sheets=SHEETS, headers=HEADERS)
