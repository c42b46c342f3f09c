"""Reading one cell of the profile's workbook: point indices (``AI537`` or block-relative
``Meter_AI + 3``), event classes, numbers, texts and the Mandatory / Frozen flags.

Each reader raises CellError with what is wrong; the workbook loader adds the sheet, row and
cell.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from gridwire.der.points import MAX_INDEX, Address, Kind, Number
from gridwire.errors import GridwireError

_ABSOLUTE = re.compile(r"=?\s*(BI|BO|AI|AO|CTR|C)?\s*(\d+)", re.I)
_RELATIVE = re.compile(r"=?\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:([+-])\s*(\d{1,10}))?")
_CLASS = re.compile(r"(?:class\s*)?([0-3])", re.I)
_NONE = frozenset({"", "-", "--", "n/a", "na", "none", "null"})
_UNIT = re.compile(r"#\s*(\d{1,6})\b")


class CellError(GridwireError):
    """A cell that cannot be read as what its column holds (the loader says where it is)."""


@dataclass(frozen=True, slots=True)
class IndexCell:
    """A point index as a cell gives it, and the block it is relative to (if any)."""

    index: int
    block: str | None = None


def text(value: object) -> str | None:
    """A cell as text with white space collapsed, or None when it is empty; a whole number
    reads without a decimal point."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    out = " ".join(str(value).split())
    return out or None


def _is_none(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip().casefold() in _NONE)


def number(value: object) -> Number | None:
    """A number (a whole one as int), or None for an empty cell or a dash."""
    if _is_none(value):
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
    if _is_none(value):
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


def index(value: object, kind: Kind, blocks: Mapping[str, int]) -> IndexCell:
    """A point index of ``kind``: ``AO12``, ``12``, or a block start from the Key sheet plus an
    offset (``Meter_AI + 3``)."""
    if isinstance(value, bool) or value is None:
        raise CellError("expected a point index")
    if isinstance(value, (int, float)):
        if not (isinstance(value, int) or value.is_integer()) or not 0 <= value <= MAX_INDEX:
            raise CellError(f"expected a point index, found {value}")
        return IndexCell(int(value))
    cell = str(value).strip()
    absolute = _ABSOLUTE.fullmatch(cell)
    if absolute is not None:
        prefix = (absolute.group(1) or "").upper()
        if prefix and prefix != kind.value and not (prefix == "C" and kind is Kind.CTR):
            raise CellError(f"'{cell}' is a {prefix} index where a {kind.value} index belongs")
        digits = absolute.group(2)
        if len(digits) > len(str(MAX_INDEX)):
            raise CellError(f"'{cell}' gives an index outside 0 to {MAX_INDEX}")
        return IndexCell(_bounded(int(digits), cell))
    relative = _RELATIVE.fullmatch(cell)
    if relative is None:
        raise CellError(
            f"expected a point index such as {kind.value}12 or Block_{kind.value} + 3, "
            f"found '{cell}'"
        )
    block, start = _block(relative.group(1), blocks, cell)
    suffix = block.rsplit("_", 1)[-1].upper()
    if suffix in Kind.__members__ and suffix != kind.value:
        raise CellError(f"'{cell}' counts from a {suffix} block where a {kind.value} index belongs")
    offset = int(relative.group(3) or 0)
    return IndexCell(
        _bounded(start - offset if relative.group(2) == "-" else start + offset, cell), block
    )


def _block(name: str, blocks: Mapping[str, int], cell: str) -> tuple[str, int]:
    for known, start in blocks.items():
        if known.casefold() == name.casefold():
            return known, start
    listed = ", ".join(sorted(blocks)) or "none"
    raise CellError(
        f"'{cell}' counts from block '{name}', which the Key sheet does not give (blocks: {listed})"
    )


def _bounded(value: int, cell: str) -> int:
    if not 0 <= value <= MAX_INDEX:
        raise CellError(f"'{cell}' gives index {value}, outside 0 to {MAX_INDEX}")
    return value


def associated(value: object, kind: Kind, blocks: Mapping[str, int]) -> Address | None:
    """The associated point a cell names (of ``kind``), or None when it names none."""
    if _is_none(value):
        return None
    return Address(kind, index(value, kind, blocks).index)


def unit_number(name: str) -> int | None:
    """The unit an equipment block's point is for, from ``#2`` in its name."""
    match = _UNIT.search(name)
    return int(match.group(1)) if match else None
