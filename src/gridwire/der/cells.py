"""Reading one cell of the profile's workbook: event classes, numbers, texts, the Mandatory /
Frozen flags and unit numbers (point indices are read by ``indexcells``).

Each reader raises CellError with what is wrong; the workbook loader adds the sheet, row and
cell.
"""

from __future__ import annotations

import math
import re

from gridwire.der.points import Number
from gridwire.errors import GridwireError

_CLASS = re.compile(r"(?:class\s*)?([0-3])", re.I)
_NONE = frozenset({"", "-", "--", "n/a", "na", "none", "null"})
_UNIT = re.compile(r"#\s*(\d{1,6})\b")


class CellError(GridwireError):
    """A cell that cannot be read as what its column holds (the loader says where it is)."""


def text(value: object) -> str | None:
    """A cell as text with white space collapsed, or None when it is empty; a whole number
    reads without a decimal point."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    out = " ".join(str(value).split())
    return out or None


def is_none(value: object) -> bool:
    """Whether a cell says nothing: empty, a dash, "n/a", "none"..."""
    return value is None or (isinstance(value, str) and value.strip().casefold() in _NONE)


def number(value: object) -> Number | None:
    """A number (a whole one as int), or None for an empty cell or a dash."""
    if is_none(value):
        return None
    if isinstance(value, bool):
        raise CellError(f"expected a number, found {value}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CellError(f"expected a finite number, found {value}")
        return int(value) if value.is_integer() and abs(value) < 2**63 else value
    try:
        parsed = float(str(value).replace(",", "").strip())
    except ValueError:
        raise CellError(f"expected a number, found '{text(value)}'") from None
    return number(parsed)


def event_class(value: object) -> int | None:
    """An event class 0-3 written ``2``, ``Class 2`` or ``Class2``; None when empty."""
    if is_none(value):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1, 2, 3):
        return int(value)
    match = _CLASS.fullmatch(str(value).strip())
    if match is None:
        raise CellError(f"expected an event class 0 to 3, found '{text(value)}'")
    return int(match.group(1))


def flag(value: object, initial: str) -> bool:
    """Whether a cell's text starts with ``initial`` (M for Mandatory, Y for Yes)."""
    return value is not None and str(value).strip().upper().startswith(initial)


def unit_number(name: str) -> int | None:
    """The unit an equipment block's point is for, from ``#2`` in its name."""
    match = _UNIT.search(name)
    return int(match.group(1)) if match else None
