"""Loading IEEE 1815.2's companion workbook (which users download from IEEE themselves).

Sheets ``Key``, ``BO``, ``BI``, ``AO``, ``AI`` and ``CTR``. The point sheets have two header
rows; points start at row 3. A row whose index cell is empty is a heading and names the section
of the rows below it. An index is absolute (``AI537``) or counts from a block start the Key
sheet gives (``Meter_AI + 3``). Columns, in order, are in ``COLUMNS``. Any cell that cannot be
read stops the load with an error naming the sheet, the row and the cell.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openpyxl
from openpyxl.utils import get_column_letter

from gridwire.der import cells
from gridwire.der.derive import derive_curve_block, derive_functions
from gridwire.der.errors import MapError, WorkbookError
from gridwire.der.functions import CURVE_TYPE
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Point, with_name_values
from gridwire.errors import GridwireError

HEADER_ROWS = 2
KEY_SHEET = "Key"
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
SHEETS = (KEY_SHEET, *(kind.value for kind in COLUMNS))
_INTEGER = re.compile(r"-?\d{1,10}")


@dataclass(frozen=True, slots=True)
class WorkbookResult:
    """A map read from a workbook, and what the loader left out (dangling associations...)."""

    point_map: PointMap
    warnings: tuple[str, ...]


def read_workbook(path: Path) -> WorkbookResult:
    """Read the workbook at ``path``."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise WorkbookError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    return read_workbook_bytes(data, path.name)


def read_workbook_bytes(data: bytes, name: str) -> WorkbookResult:
    """Read a workbook held in memory; ``name`` is what errors and the map call it."""
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a file that is not a workbook
        raise WorkbookError(f"{name}: not an Excel workbook ({_reason(exc)})") from None
    try:
        return _Reader(book, name).read()
    except GridwireError:
        raise
    except Exception as exc:  # parts of the file are parsed lazily while rows are read
        raise WorkbookError(f"{name}: cannot be read as a workbook ({_reason(exc)})") from None
    finally:
        book.close()


def _reason(exc: Exception) -> str:
    first = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {first}"[:200] if first else type(exc).__name__


class _Reader:
    def __init__(self, book: Any, name: str) -> None:
        self.book = book
        self.name = name
        self.warnings: list[str] = []
        self.rows: dict[Address, str] = {}  # where each point was read, for messages

    def read(self) -> WorkbookResult:
        missing = [s for s in SHEETS if s not in self.book.sheetnames]
        if missing:
            raise WorkbookError(
                f"{self.name}: the workbook has no sheet {', '.join(missing)} "
                f"(sheets: {', '.join(self.book.sheetnames) or 'none'}); "
                "is it IEEE 1815.2's point workbook?"
            )
        blocks = self._key()
        points: list[Point] = []
        for kind in COLUMNS:
            points.extend(self._sheet(kind, blocks))
        points = self._drop_dangling(points)
        curve_block = derive_curve_block(points)
        curve_types: Sequence[Any] = ()
        if curve_block is not None:
            type_point = next(
                (
                    p
                    for p in points
                    if p.address == Address(Kind.AO, curve_block.output(CURVE_TYPE))
                ),
                None,
            )
            curve_types = (type_point.enumeration or ()) if type_point else ()
        functions = derive_functions(points, curve_types)
        try:
            point_map = PointMap(
                points,
                title=f"IEEE 1815.2 tables ({self.name})",
                source=self.name,
                blocks=blocks,
                functions=functions,
                curve_block=curve_block,
            )
        except MapError as exc:
            raise WorkbookError(f"{self.name}: {exc}") from None
        return WorkbookResult(point_map, tuple(self.warnings))

    def _rows(self, sheet: str) -> Iterator[tuple[int, tuple[Any, ...]]]:
        for number, row in enumerate(self.book[sheet].iter_rows(values_only=True), start=1):
            yield number, tuple(row)

    def _key(self) -> dict[str, int]:
        """Block starts: each text cell of the Key sheet followed by a whole number."""
        blocks: dict[str, int] = {}
        for number, row in self._rows(KEY_SHEET):
            filled = [(i, v) for i, v in enumerate(row) if cells.text(v) is not None]
            for (_, label), (column, value) in itertools.pairwise(filled):
                start = _whole(value)
                name = cells.text(label)
                if start is None or name is None or _whole(label) is not None:
                    continue
                if name in blocks and blocks[name] != start:
                    self.warnings.append(
                        f"Key sheet, row {number}, cell "
                        f"{get_column_letter(column + 1)}{number}: '{name}' is "
                        f"given again as {start}; {blocks[name]} is kept"
                    )
                    continue
                blocks.setdefault(name, start)
        return blocks

    def _sheet(self, kind: Kind, blocks: Mapping[str, int]) -> list[Point]:
        sheet = kind.value
        columns = COLUMNS[kind]
        headers: list[tuple[Any, ...]] = []
        section = ""
        points: list[Point] = []
        seen: dict[int, int] = {}
        for number, row in self._rows(sheet):
            if number <= HEADER_ROWS:
                headers.append(row)
                continue
            if number == HEADER_ROWS + 1:
                self._check_headers(sheet, headers)
            values = dict(zip(columns, row + (None,) * (len(columns) - len(row)), strict=False))
            if cells.text(values["index"]) is None:
                heading = next((t for v in row if (t := cells.text(v)) is not None), None)
                if heading is not None:
                    section = heading
                continue
            point = self._point(kind, values, number, section, blocks)
            if point.index in seen:
                raise WorkbookError(
                    f"{self.name}: sheet {sheet}, row {number}, cell A{number}: "
                    f"{point.address} is listed already, at row {seen[point.index]}"
                )
            seen[point.index] = number
            self.rows[point.address] = f"sheet {sheet}, row {number}"
            points.append(point)
        if len(headers) < HEADER_ROWS or not points:
            self._check_headers(sheet, headers)
        return points

    def _check_headers(self, sheet: str, headers: list[tuple[Any, ...]]) -> None:
        firsts = [cells.text(row[0]) if row else None for row in headers]
        if any(f and ("index" in f.casefold() or "point" in f.casefold()) for f in firsts):
            return
        found = ", ".join(f"'{f}'" for f in firsts if f) or "nothing"
        raise WorkbookError(
            f"{self.name}: sheet {sheet}, cell A1 or A2: expected the heading of "
            f"the Point Index column, found {found}"
        )

    def _point(
        self,
        kind: Kind,
        values: dict[str, Any],
        number: int,
        section: str,
        blocks: Mapping[str, int],
    ) -> Point:
        columns = COLUMNS[kind]

        def read(field: str, reader: Any, *args: Any) -> Any:
            try:
                return reader(values.get(field), *args)
            except cells.CellError as exc:
                column = get_column_letter(columns.index(field) + 1)
                raise WorkbookError(
                    f"{self.name}: sheet {kind.value}, row {number}, cell {column}{number}: {exc}"
                ) from None

        where = read("index", cells.index, kind, blocks)
        name = read("name", cells.text)
        if name is None:
            raise WorkbookError(
                f"{self.name}: sheet {kind.value}, row {number}, cell B{number}: "
                "the point has no name"
            )
        attrs: dict[str, Any] = {
            "section": section,
            "purpose": read("purpose", cells.text) or "",
            "mandatory": cells.flag(values.get("mandatory"), "M"),
            "mandatory_1547": cells.flag(values.get("mandatory_1547"), "M"),
            "iec61850": read("iec61850", cells.text),
        }
        if "event_class" in values:
            attrs["event_class"] = read("event_class", cells.event_class)
        if "state0" in values:
            states = (read("state0", cells.text), read("state1", cells.text))
            if states != (None, None):
                attrs["states"] = (states[0] or "0", states[1] or "1")
        if "minimum" in values:
            attrs["minimum"] = read("minimum", cells.number)
            attrs["maximum"] = read("maximum", cells.number)
            multiplier = read("multiplier", cells.number)
            attrs["multiplier"] = 1.0 if multiplier is None else float(multiplier)
            offset = read("offset", cells.number)
            attrs["offset"] = 0.0 if offset is None else float(offset)
            attrs["units"] = read("units", cells.text)
        if "value" in values:
            try:
                attrs["value"] = cells.number(values["value"])
            except cells.CellError:
                attrs["value"] = None  # a remark rather than a value: not needed
        if "associated" in values and kind.mirror is not None:
            attrs["associated"] = read("associated", cells.associated, kind.mirror, blocks)
        if kind is Kind.CTR:
            attrs["frozen"] = cells.flag(values.get("frozen"), "Y")
            attrs["frozen_event_class"] = read("frozen_event_class", cells.event_class)
        if where.block is not None:
            attrs["block"] = where.block
            attrs["unit"] = cells.unit_number(name)
        return with_name_values(Point(kind, where.index, name, **attrs))

    def _drop_dangling(self, points: list[Point]) -> list[Point]:
        present = {p.address for p in points}
        kept = []
        for point in points:
            other = point.associated
            if other is not None and other not in present:
                self.warnings.append(
                    f"{point.address} ({self.rows[point.address]}) is associated "
                    f"with {other}, which the workbook does not list; the "
                    "association is left out"
                )
                point = dataclasses.replace(point, associated=None)
            kept.append(point)
        return kept


def _whole(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        if _INTEGER.fullmatch(value.strip()):
            return int(value.strip())
        address = Address.parse(value)
        return None if address is None else address.index
    return None
