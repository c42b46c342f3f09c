"""The workbook's Key sheet: where each block of points starts.

IEEE's layout has a block table in columns I to P: a label, a note, a start, then a start per
type (BO, BI, AO, AI, CTR). Fixed blocks are named by their label (``System Meter`` gives
``System Meter_AI``...). Equipment blocks (Meters, DER Units, Inverters, Batteries) are named
by the symbol their index cells use (``Meter_AI``), and the row after each gives the length of
one unit's block per type (kept as ``Meter_AI per unit``). Experimental points, Vendor Points,
Start Index Points and Maximum Index give one start (column K) for every type (``Exp``,
``VP``). A label given on several rows (``Schedules`` of 2 and of 4 items) is told apart by
its note: ``Schedules (2 items)_AO``. A header row, if any, must name the types in that order, so a Key sheet whose columns
moved fails rather than being misread.

A Key sheet without that table (an older synthetic layout) is read as names each followed by a
whole number, anywhere on the sheet.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from openpyxl.utils import get_column_letter

from gridwire.der import cells
from gridwire.der.errors import WorkbookError
from gridwire.der.indexcells import PER_UNIT
from gridwire.der.points import MAX_INDEX, Address, Kind

KEY_SHEET = "Key"
LABEL, NOTE, START = 8, 9, 10  # columns I, J, K (counted from 0)
TYPE_COLUMNS: dict[Kind, int] = {Kind.BO: 11, Kind.BI: 12, Kind.AO: 13, Kind.AI: 14, Kind.CTR: 15}
_WIDTH = 16

#: Block labels (folded, a trailing parenthesis left out) and the symbol index cells use.
SYMBOLS: dict[str, str] = {
    "meters": "Meter",
    "meter": "Meter",
    "der units": "DER_Unit",
    "der unit": "DER_Unit",
    "inverters": "Inverter",
    "inverter": "Inverter",
    "batteries": "Battery",
    "battery": "Battery",
    "experimental": "Exp",
    "experimental points": "Exp",
    "vendor points": "VP",
}
EQUIPMENT = frozenset({"Meter", "DER_Unit", "Inverter", "Battery"})
_TYPE_WORDS: dict[Kind, tuple[str, ...]] = {
    Kind.BO: ("bo", "binary output"),
    Kind.BI: ("bi", "binary input"),
    Kind.AO: ("ao", "analog output", "analogue output"),
    Kind.AI: ("ai", "analog input", "analogue input"),
    Kind.CTR: ("ctr", "counter"),
}
_TRAILING_NOTE = re.compile(r"\s*\([^)]*\)\s*$")
_INTEGER = re.compile(r"-?\d{1,10}")


@dataclass(frozen=True, slots=True)
class KeyTable:
    """What the Key sheet gives: block starts by name (and equipment lengths per unit)."""

    blocks: dict[str, int]
    warnings: tuple[str, ...] = ()

    @property
    def starts(self) -> frozenset[int]:
        """Every block start (what a heading row's index cell may hold)."""
        return frozenset(v for k, v in self.blocks.items() if not k.endswith(PER_UNIT))


def read_key(rows: Iterable[tuple[Any, ...]], workbook: str) -> KeyTable:
    """The Key sheet's blocks, from its rows (values, row 1 first)."""
    listed = [tuple(row) + (None,) * (_WIDTH - len(row)) for row in rows]
    if any(_is_block_row(row) for row in listed):
        return _BlockTable(workbook).read(listed)
    return _pairs(listed)


def symbol_of(label: str) -> str | None:
    """The symbol index cells use for a block the Key sheet labels ``label``."""
    folded = " ".join(_TRAILING_NOTE.sub("", label).casefold().rstrip(":").split())
    return SYMBOLS.get(folded)


def _is_block_row(row: Sequence[Any]) -> bool:
    label = cells.text(row[LABEL])
    return label is not None and any(_whole(row[c]) is not None for c in range(START, _WIDTH))


@dataclass(slots=True)
class _Block:
    name: str
    equipment: bool
    typed: dict[Kind, int] = field(default_factory=dict)


class _BlockTable:
    def __init__(self, workbook: str) -> None:
        self.workbook = workbook
        self.blocks: dict[str, int] = {}
        self.rows: dict[str, int] = {}  # the row that gave each name (folded)
        self.repeated: set[str | None] = set()  # labels given on several rows

    def fail(self, number: int, column: int, why: str) -> WorkbookError:
        cell = f"{get_column_letter(column + 1)}{number}"
        return WorkbookError(f"{self.workbook}: sheet Key, row {number}, cell {cell}: {why}")

    def read(self, rows: list[tuple[Any, ...]]) -> KeyTable:
        labels = [cells.text(row[LABEL]) for row in rows if _is_block_row(row)]
        self.repeated = {label for label in labels if labels.count(label) > 1}
        last: _Block | None = None
        for number, row in enumerate(rows, start=1):
            numbers = self.numbers(number, row)
            label = cells.text(row[LABEL])
            if not numbers:
                self.check_header(number, row)
                last = None
                continue
            typed = {kind: numbers[c] for kind, c in TYPE_COLUMNS.items() if c in numbers}
            if last is not None and self.is_lengths(last, label, typed):
                if START in numbers:
                    self.blocks[f"{last.name}{PER_UNIT}"] = numbers[START]
                for kind, length in typed.items():
                    self.blocks[f"{last.name}_{kind.value}{PER_UNIT}"] = length
                last = None
                continue
            if label is None:
                raise self.fail(number, LABEL, "block starts without a label")
            last = self.block(number, label, cells.text(row[NOTE]), numbers.get(START), typed)
        return KeyTable(self.blocks)

    def numbers(self, number: int, row: tuple[Any, ...]) -> dict[int, int]:
        """The whole numbers of columns K-P. Other text in K is a remark; in L-P it is a
        header, or an error on a row that gives starts."""
        found: dict[int, int] = {}
        texts: list[int] = []
        for column in range(START, _WIDTH):
            value = row[column]
            if cells.is_none(value):
                continue
            whole = _whole(value)
            if whole is None:
                if column != START:
                    texts.append(column)
            elif not 0 <= whole <= MAX_INDEX:
                raise self.fail(number, column, f"{whole} is outside 0 to {MAX_INDEX}")
            else:
                found[column] = whole
        if found and texts:
            value = cells.text(row[texts[0]])
            raise self.fail(number, texts[0], f"expected a whole number (a start), found '{value}'")
        return found

    def check_header(self, number: int, row: tuple[Any, ...]) -> None:
        """A header row must head each start column with its own type (when it names one)."""
        for kind, column in TYPE_COLUMNS.items():
            text = (cells.text(row[column]) or "").casefold()
            named = [k for k, words in _TYPE_WORDS.items() if any(_has(text, w) for w in words)]
            if named and kind not in named:
                raise self.fail(
                    number,
                    column,
                    f"the {kind.value} starts belong in this column, but it is headed "
                    f"'{cells.text(row[column])}'; is the Key sheet laid out differently?",
                )

    def is_lengths(self, last: _Block, label: str | None, typed: dict[Kind, int]) -> bool:
        """Whether a row gives the per-unit lengths of the block on the row before: no label
        of its own, or after an equipment block any label but another block's (its own
        symbol, ``Meter`` after ``Meters``, included)."""
        if not last.typed or not typed:
            return False
        return label is None or (last.equipment and symbol_of(label) in (None, last.name))

    def block(
        self, number: int, label: str, note: str | None, start: int | None, typed: dict[Kind, int]
    ) -> _Block:
        symbol = symbol_of(label)
        name = symbol or label
        if symbol is None and label in self.repeated:  # "Schedules" of 2 items, of 4 items
            name = f"{label} ({note})" if note else f"{label} (row {number})"
        given = self.rows.get(name.casefold())
        if given is not None:
            raise self.fail(number, LABEL, f"block '{name}' is given already, at row {given}")
        self.rows[name.casefold()] = number
        if start is not None:
            self.blocks[name] = start
        for kind, value in typed.items():
            self.blocks[f"{name}_{kind.value}"] = value
        return _Block(name, symbol in EQUIPMENT, typed)


def _has(text: str, word: str) -> bool:
    return re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", text) is not None


def _pairs(rows: list[tuple[Any, ...]]) -> KeyTable:
    """Block starts of a Key sheet without the block table: each text cell followed by a whole
    number (the first value given for a name is kept)."""
    blocks: dict[str, int] = {}
    warnings: list[str] = []
    for number, row in enumerate(rows, start=1):
        filled = [(i, v) for i, v in enumerate(row) if cells.text(v) is not None]
        for (_, label), (column, value) in itertools.pairwise(filled):
            start = _whole(value)
            name = cells.text(label)
            if start is None or name is None or _whole(label) is not None:
                continue
            if name in blocks and blocks[name] != start:
                warnings.append(
                    f"Key sheet, row {number}, cell "
                    f"{get_column_letter(column + 1)}{number}: '{name}' is "
                    f"given again as {start}; {blocks[name]} is kept"
                )
                continue
            blocks.setdefault(name, start)
    return KeyTable(blocks, tuple(warnings))


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
