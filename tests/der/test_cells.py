"""Reading single workbook cells: event classes, numbers, flags, texts; and any cell through every
reader, index cells included (their grammar is tested in test_indexcells)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.der import cells, indexcells
from gridwire.der.indexcells import IndexCell
from gridwire.der.points import Address, Kind

BLOCKS = {"Meter_AI": 569, "Inverter_BI": 400}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", None),
        ("-", None),
        ("N/A", None),
        (2, 2),
        ("Class 3", 3),
        ("class1", 1),
        (" 0 ", 0),
        (1.0, 1),
    ],
)
def test_event_class(value: object, expected: int | None) -> None:
    assert cells.event_class(value) == expected


@pytest.mark.parametrize("value", ["Class 4", "high", 7, True])
def test_event_class_refused(value: object) -> None:
    with pytest.raises(cells.CellError):
        cells.event_class(value)


def test_number() -> None:
    assert cells.number("2,147,483,647") == 2147483647
    assert cells.number(0.1) == 0.1 and cells.number(1000.0) == 1000
    assert isinstance(cells.number(1000.0), int)
    assert cells.number(" -40 ") == -40 and cells.number("none") is None
    with pytest.raises(cells.CellError, match="expected a finite number"):
        cells.number(float("inf"))


def test_flags_and_text() -> None:
    assert cells.flag("Mandatory", "M") and cells.flag(" m", "M") and not cells.flag("O", "M")
    assert cells.flag("Yes", "Y") and not cells.flag(None, "Y") and not cells.flag("No", "Y")
    assert cells.text("  Two\n lines ") == "Two lines" and cells.text(12.0) == "12"
    assert cells.text("   ") is None


def test_associated_and_unit() -> None:
    assert indexcells.associated("AI29", Kind.AI, BLOCKS) == Address(Kind.AI, 29)
    assert indexcells.associated("n/a", Kind.AI, BLOCKS) is None
    assert cells.unit_number("Meter #12 voltage") == 12 and cells.unit_number("Meter") is None


any_cell: st.SearchStrategy[Any] = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=30)
    | st.from_regex(r"=?\s*[A-Za-z_]{1,10}\s*[+-]?\s*\d{0,12}", fullmatch=True)
)


@settings(max_examples=400, deadline=None)
@given(any_cell, st.sampled_from(list(Kind)))
def test_any_cell_is_read_or_refused(value: Any, kind: Kind) -> None:
    for reader in (
        lambda v: indexcells.index(v, kind, BLOCKS),
        lambda v: indexcells.associated(v, kind, BLOCKS),
        cells.event_class,
        cells.number,
        cells.text,
    ):
        try:
            read = reader(value)
        except cells.CellError:
            continue
        assert read is None or isinstance(read, (int, float, str, IndexCell, Address))
