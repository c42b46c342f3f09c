"""Reading a point sheet's index cell: a heading, an absolute index or a block-relative one.

An index cell holds one of:

- an absolute address, ``AI328``, ``CTR0``, ``C3`` (any case, a space allowed), or a bare whole
  number (``537``) that is not a block start;
- a block start from the Key sheet plus or minus offsets: ``Meter_AI+3``, ``Meter_BI + 1``,
  bare ``Inverter_BI`` (offset 0), ``Exp + 2`` (a block with one start for every type);
- a reference type first, as paired-point columns write it: ``AO+Meter+3`` is ``Meter_AO+3``;
- a generic unit's restatement of unit #1, with an instance term: ``Meter_AI+mhai(m)+3``, or
  with the term glued to the symbol and no type, ``Battery_bhai(b)+1``.

Symbols are matched ignoring case; ``HM`` is another name for the meter block and ``EX`` for
the experimental block. A cell is an index when it holds a digit beside a letter, ``+``,
``_`` or a parenthesis, or starts as an address does (``AI 5``), unless it is a bare block
symbol (``Exp``, ``DER_Unit``); otherwise (words, a bare symbol, a block start such as
``5000``, ``. . .``) the row is a section heading. An index that
does not parse raises :class:`CellError`; the workbook loader adds the sheet, row and cell.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from gridwire.der.cells import CellError, is_none
from gridwire.der.points import MAX_INDEX, Address, Kind

#: Other names the workbook uses for a block symbol (folded), and the symbol they stand for.
ALIASES: dict[str, str] = {"hm": "Meter", "ex": "Exp"}

#: How the Key sheet's per-unit length of an equipment block is named among the blocks.
PER_UNIT = " per unit"

_INDEX_LIKE = re.compile(r"[A-Za-z]\d|\d[A-Za-z]|[+_()]|^(?:BI|BO|AI|AO|CTR)\s+\d", re.I)
_NUMBER = re.compile(r"\d{1,12}")
_NUMERIC = re.compile(r"-?\d+(?:\.\d*)?")
_ADDRESS = re.compile(r"(BI|BO|AI|AO|CTR|C)\s*(\d+)", re.I)
_TYPE = re.compile(r"BI|BO|AI|AO|CTR", re.I)
_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_INSTANCE = re.compile(r"([A-Za-z][A-Za-z0-9_]*)\(\s*[A-Za-z]\s*\)")
_SIGN = re.compile(r"\s*([+-])\s*")


@dataclass(frozen=True, slots=True)
class IndexCell:
    """A point index as a cell gives it: the block it counts from (if any), and the instance
    term (``mhai(m)``) when the cell restates unit #1 of an equipment block for a unit m."""

    index: int
    block: str | None = None
    instance: str | None = None


def is_heading(
    value: object, starts: Collection[int], symbols: Collection[str] = frozenset()
) -> bool:
    """Whether an index cell makes its row a section heading: empty; a whole number that is a
    block start (``5000``); a bare block symbol, even one with ``_`` in it (``DER_Unit``;
    ``symbols`` are the Key sheet's, folded); or text that is no index (words, ``. . .``)."""
    if value is None or isinstance(value, bool):
        return value is None
    if isinstance(value, (int, float)):
        return float(value).is_integer() and int(value) in starts
    text = str(value).strip().lstrip("=").strip()
    if not text:
        return True
    if _NUMERIC.fullmatch(text):
        number = float(text)
        return number.is_integer() and number in starts
    if text.casefold() in symbols or text.casefold() in ALIASES:
        return True
    return _INDEX_LIKE.search(text) is None


def block_symbols(blocks: Mapping[str, int]) -> frozenset[str]:
    """The symbols the blocks are named by, folded: ``der_unit`` for ``DER_Unit_AI``, ``exp``
    for ``Exp`` (per-unit lengths left out)."""
    found: set[str] = set()
    for name in blocks:
        if name.endswith(PER_UNIT):
            continue
        head, _, tail = name.rpartition("_")
        found.add((head if head and _TYPE.fullmatch(tail) else name).casefold())
    return frozenset(found)


def index(value: object, kind: Kind, blocks: Mapping[str, int]) -> IndexCell:
    """The point index of ``kind`` a cell gives (see the module's description)."""
    if isinstance(value, bool) or value is None:
        raise CellError("expected a point index")
    if isinstance(value, (int, float)):
        if not (isinstance(value, int) or value.is_integer()) or not 0 <= value <= MAX_INDEX:
            raise CellError(f"expected a point index, found {value}")
        return IndexCell(int(value))
    cell = str(value).strip()
    digits = cell.lstrip("=").strip()
    if digits.isascii() and digits.isdigit():
        if len(digits) > len(str(MAX_INDEX)) or int(digits) > MAX_INDEX:
            raise CellError(f"'{cell}' gives an index outside 0 to {MAX_INDEX}")
        return IndexCell(int(digits))
    return _Expression(cell, kind, blocks).read()


def associated(value: object, kind: Kind, blocks: Mapping[str, int]) -> Address | None:
    """The associated point a cell names (of ``kind``), or None when it names none."""
    if is_none(value):
        return None
    return Address(kind, index(value, kind, blocks).index)


class _Expression:
    """One index cell's text, read term by term (terms joined by + and -)."""

    def __init__(self, cell: str, kind: Kind, blocks: Mapping[str, int]) -> None:
        self.cell = cell
        self.kind = kind
        self.blocks = blocks
        self.offset = 0
        self.address: Address | None = None
        self.symbol: str | None = None
        self.symbol_type: Kind | None = None
        self.reference_type: Kind | None = None
        self.instance: str | None = None

    def fail(self, why: str | None = None) -> CellError:
        if why is not None:
            return CellError(f"'{self.cell}' {why}")
        return CellError(
            f"expected a point index such as {self.kind.value}12 or "
            f"Block_{self.kind.value} + 3, found '{self.cell}'"
        )

    def read(self) -> IndexCell:
        body = self.cell[1:].strip() if self.cell.startswith("=") else self.cell
        parts = _SIGN.split(body)
        # Signs and terms alternate; a cell without a leading sign starts with a "+".
        parts = parts[1:] if parts and parts[0] == "" else ["+", *parts]
        if not parts or len(parts) % 2:
            raise self.fail()
        for sign, term in zip(parts[::2], parts[1::2], strict=True):
            self.term(sign, term.strip())
        return self.result()

    def term(self, sign: str, term: str) -> None:
        if _NUMBER.fullmatch(term):
            self.offset += -int(term) if sign == "-" else int(term)
            return
        if sign == "-" or not term:
            raise self.fail()
        if (address := _ADDRESS.fullmatch(term)) is not None:
            self.take_address(address)
        elif _TYPE.fullmatch(term):
            if self.reference_type is not None:
                raise self.fail("gives two reference types")
            self.reference_type = Kind(term.upper())
        elif (instance := _INSTANCE.fullmatch(term)) is not None:
            if self.instance is not None:
                raise self.fail("gives two unit terms")
            self.instance = term
            head, _, function = instance.group(1).rpartition("_")
            if head:  # "Battery_bhai(b)": the symbol with the unit term glued on
                self.take_symbol(head)
                self.instance = f"{function}{term[len(instance.group(1)) :]}"
        elif _SYMBOL.fullmatch(term):
            self.take_symbol(term)
        else:
            raise self.fail()

    def take_address(self, address: re.Match[str]) -> None:
        if self.address is not None or self.symbol is not None:
            raise self.fail("names two places to count from")
        prefix = address.group(1).upper()
        kind = Kind.CTR if prefix == "C" else Kind(prefix)
        digits = address.group(2)
        if len(digits) > len(str(MAX_INDEX)):
            raise self.fail(f"gives an index outside 0 to {MAX_INDEX}")
        self.address = Address(kind, int(digits))

    def take_symbol(self, term: str) -> None:
        if self.address is not None or self.symbol is not None:
            raise self.fail("names two places to count from")
        head, _, tail = term.rpartition("_")
        if head and _TYPE.fullmatch(tail):
            self.symbol, self.symbol_type = head, Kind(tail.upper())
        else:
            self.symbol = term

    def result(self) -> IndexCell:
        if self.address is not None:
            kind = self.address.kind
            if self.reference_type not in (None, kind) or self.instance is not None:
                raise self.fail()
            if kind is not self.kind:
                raise self.fail(f"is a {kind.value} index where a {self.kind.value} index belongs")
            return IndexCell(self.bounded(self.address.index + self.offset))
        if self.symbol is None:
            raise self.fail()
        if None not in (self.symbol_type, self.reference_type) and (
            self.symbol_type is not self.reference_type
        ):
            raise self.fail("gives two reference types")
        kind = self.symbol_type or self.reference_type or self.kind
        if kind is not self.kind:
            raise self.fail(
                f"counts from a {kind.value} block where a {self.kind.value} index belongs"
            )
        block, start = self.block(kind)
        return IndexCell(self.bounded(start + self.offset), block, self.instance)

    def block(self, kind: Kind) -> tuple[str, int]:
        assert self.symbol is not None
        typed = self.symbol_type is not None or self.reference_type is not None
        named = f"{self.symbol}_{kind.value}" if typed else self.symbol
        found = find_block(self.symbol, kind, self.blocks)
        if found is None:
            listed = ", ".join(sorted(k for k in self.blocks if not k.endswith(PER_UNIT))) or "none"
            raise self.fail(
                f"counts from block '{named}', which the Key sheet does not give (blocks: {listed})"
            )
        return found

    def bounded(self, value: int) -> int:
        if not 0 <= value <= MAX_INDEX:
            raise self.fail(f"gives index {value}, outside 0 to {MAX_INDEX}")
        return value


def find_block(symbol: str, kind: Kind, blocks: Mapping[str, int]) -> tuple[str, int] | None:
    """The block a symbol names for points of ``kind``, and its start: ``Meter_AI`` for symbol
    ``Meter`` (or ``HM``) and kind AI, else a block with one start for every type (``Exp``)."""
    folded = {name.casefold(): name for name in blocks}
    for candidate in (symbol, ALIASES.get(symbol.casefold())):
        if candidate is None:
            continue
        name = folded.get(f"{candidate}_{kind.value}".casefold())
        if name is not None:
            return name, blocks[name]
        typed = any(f"{candidate}_{k.value}".casefold() in folded for k in Kind)
        name = folded.get(candidate.casefold())
        if name is not None and not typed:
            return name, blocks[name]
    return None
