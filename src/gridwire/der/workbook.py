"""Loading IEEE 1815.2's companion workbook (which users download from IEEE themselves).

Sheets ``Key``, ``BO``, ``BI``, ``AO``, ``AI`` and ``CTR``. The Key sheet gives the block
starts (``keysheet``). The point sheets have two header rows, checked column by column
(``columns``); points start at row 3. A row whose index cell holds no index (empty, words, a
bare symbol, a block start, ``. . .``) is a heading and names the section of the rows below
it; an index is absolute (``AI537``) or counts from a block start (``Meter_AI + 3``), see
``indexcells``. An equipment block is stated for unit #1 and again for a generic unit m
(``Meter_AI+mhai(m)+3``): the second is checked against the first, not kept. Any cell that
cannot be read stops the load with an error naming the sheet, the row and the cell.
"""

from __future__ import annotations

import dataclasses
import io
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openpyxl
from openpyxl.utils import get_column_letter

from gridwire.der import cells, indexcells
from gridwire.der.columns import COLUMNS, HEADER_ROWS, header_error
from gridwire.der.derive import derive_curve_block, derive_functions
from gridwire.der.errors import MapError, WorkbookError
from gridwire.der.functions import CURVE_TYPE
from gridwire.der.keysheet import KEY_SHEET, read_key
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Point, with_name_values
from gridwire.der.restated import Restatement, check_restated
from gridwire.der.schedules import derive_schedule_block
from gridwire.errors import GridwireError

SHEETS = (KEY_SHEET, *(kind.value for kind in COLUMNS))
_DOTS = re.compile(r"[.\s…]+")


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
        key = read_key((row for _, row in self._rows(KEY_SHEET)), self.name)
        self.warnings.extend(key.warnings)
        points: list[Point] = []
        for kind in COLUMNS:
            points.extend(
                self._sheet(kind, key.blocks, key.starts, indexcells.block_symbols(key.blocks))
            )
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
                blocks=key.blocks,
                functions=functions,
                curve_block=curve_block,
                schedule_block=derive_schedule_block(points),
            )
        except MapError as exc:
            raise WorkbookError(f"{self.name}: {exc}") from None
        return WorkbookResult(point_map, tuple(self.warnings))

    def _rows(self, sheet: str) -> Iterator[tuple[int, tuple[Any, ...]]]:
        for number, row in enumerate(self.book[sheet].iter_rows(values_only=True), start=1):
            yield number, tuple(row)

    def _sheet(
        self,
        kind: Kind,
        blocks: Mapping[str, int],
        starts: Collection[int],
        symbols: Collection[str],
    ) -> list[Point]:
        sheet = kind.value
        columns = COLUMNS[kind]
        headers: list[tuple[Any, ...]] = []
        section = ""
        points: list[Point] = []
        restated: list[Restatement] = []
        seen: dict[int, int] = {}
        for number, row in self._rows(sheet):
            if number <= HEADER_ROWS:
                headers.append(row)
                continue
            if number == HEADER_ROWS + 1:
                self._check_headers(kind, headers)
            values = dict(zip(columns, row + (None,) * (len(columns) - len(row)), strict=False))
            if indexcells.is_heading(values["index"], starts, symbols):
                section = self._heading(sheet, number, row) or section
                continue
            point, where = self._point(kind, values, number, section, blocks)
            if where.instance is not None:
                restated.append(Restatement(number, cells.text(values["index"]) or "", point))
                continue
            if point.index in seen:
                raise WorkbookError(
                    f"{self.name}: sheet {sheet}, row {number}, cell A{number}: "
                    f"{point.address} is listed already, at row {seen[point.index]}"
                )
            seen[point.index] = number
            self.rows[point.address] = f"sheet {sheet}, row {number}"
            points.append(point)
        if len(headers) < HEADER_ROWS or not (points or restated):
            self._check_headers(kind, headers)
        try:
            self.warnings.extend(check_restated(sheet, points, restated, seen, blocks))
        except cells.CellError as exc:
            raise WorkbookError(f"{self.name}: {exc}") from None
        return points

    def _heading(self, sheet: str, number: int, row: tuple[Any, ...]) -> str | None:
        """The section a heading row names (None for a row of dots or nothing)."""
        first = cells.text(row[0]) if row else None
        rest = next((t for v in row[1:] if (t := cells.text(v)) is not None), None)
        if (
            first is not None
            and _DOTS.fullmatch(first) is None
            and any(cells.text(v) is not None for v in row[2:])
        ):
            self.warnings.append(
                f"sheet {sheet}, row {number}, cell A{number}: '{first}' is not a point "
                "index, so the row is read as a heading although it fills other columns"
            )
        if rest is not None:
            return rest
        if first is None or _DOTS.fullmatch(first) or first.lstrip("=").strip().isdigit():
            return None
        return first

    def _check_headers(self, kind: Kind, headers: list[tuple[Any, ...]]) -> None:
        error = header_error(kind, headers)
        if error is not None:
            raise WorkbookError(f"{self.name}: sheet {kind.value}, {error}")

    def _point(
        self,
        kind: Kind,
        values: dict[str, Any],
        number: int,
        section: str,
        blocks: Mapping[str, int],
    ) -> tuple[Point, indexcells.IndexCell]:
        columns = COLUMNS[kind]

        def read(field: str, reader: Any, *args: Any) -> Any:
            try:
                return reader(values.get(field), *args)
            except cells.CellError as exc:
                column = get_column_letter(columns.index(field) + 1)
                raise WorkbookError(
                    f"{self.name}: sheet {kind.value}, row {number}, cell {column}{number}: {exc}"
                ) from None

        where: indexcells.IndexCell = read("index", indexcells.index, kind, blocks)
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
            attrs["associated"] = read("associated", indexcells.associated, kind.mirror, blocks)
        if kind is Kind.CTR:
            attrs["frozen"] = cells.flag(values.get("frozen"), "Y")
            attrs["frozen_event_class"] = read("frozen_event_class", cells.event_class)
        if where.block is not None:
            attrs["block"] = where.block
            attrs["unit"] = cells.unit_number(name)
        return with_name_values(Point(kind, where.index, name, **attrs)), where

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
