"""Index cells of the workbook's point sheets, as IEEE's layout writes them: absolute and
block-relative indices, the HM and EX aliases, paired-point cells that give the reference type
first, a generic unit's restatement, and which cells are section headings instead."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.der.cells import CellError
from gridwire.der.indexcells import (
    IndexCell,
    associated,
    block_symbols,
    find_block,
    index,
    is_heading,
)
from gridwire.der.points import Address, Kind

BLOCKS = {
    "Meter_AI": 569,
    "Meter_AO": 300,
    "Meter_BI": 200,
    "Meter_CTR": 10,
    "Meter_AI per unit": 40,
    "Inverter_BI": 400,
    "Battery_AI": 700,
    "DER_Unit_AI": 800,
    "Exp": 5000,
    "Max index": 65535,
}
STARTS = {569, 300, 200, 10, 400, 700, 800, 5000, 65535}


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        # Absolute.
        ("AI537", Kind.AI, IndexCell(537)),
        (" ai 537 ", Kind.AI, IndexCell(537)),
        (537, Kind.AI, IndexCell(537)),
        (537.0, Kind.AI, IndexCell(537)),
        ("537", Kind.AI, IndexCell(537)),
        ("C3", Kind.CTR, IndexCell(3)),
        ("CTR0", Kind.CTR, IndexCell(0)),
        ("AI328", Kind.AI, IndexCell(328)),
        # Block-relative, with or without spaces, any case, a leading "=".
        ("Meter_AI + 3", Kind.AI, IndexCell(572, "Meter_AI")),
        ("meter_ai+3", Kind.AI, IndexCell(572, "Meter_AI")),
        ("=Meter_AI+3", Kind.AI, IndexCell(572, "Meter_AI")),
        ("Meter_BI + 1", Kind.BI, IndexCell(201, "Meter_BI")),
        ("Meter_AI - 9", Kind.AI, IndexCell(560, "Meter_AI")),
        ("Meter_AI+1+2", Kind.AI, IndexCell(572, "Meter_AI")),
        # A bare block: offset 0.
        ("Inverter_BI", Kind.BI, IndexCell(400, "Inverter_BI")),
        ("Meter_AI", Kind.AI, IndexCell(569, "Meter_AI")),
        # A symbol that itself holds an underscore.
        ("DER_Unit_AI+2", Kind.AI, IndexCell(802, "DER_Unit_AI")),
        # HM is the meter block; EX and Exp the experimental block (one start for all types).
        ("HM_CTR+1", Kind.CTR, IndexCell(11, "Meter_CTR")),
        ("HM + 1", Kind.CTR, IndexCell(11, "Meter_CTR")),
        ("Exp + 1", Kind.AO, IndexCell(5001, "Exp")),
        ("EX+2", Kind.AI, IndexCell(5002, "Exp")),
        ("Exp_BI+4", Kind.BI, IndexCell(5004, "Exp")),
        # Paired-point columns give the reference type first.
        ("AO+Meter+3", Kind.AO, IndexCell(303, "Meter_AO")),
        ("BI + Meter", Kind.BI, IndexCell(200, "Meter_BI")),
        ("AI+Meter_AI+3", Kind.AI, IndexCell(572, "Meter_AI")),
        # A generic unit m restating unit #1: the same index, with its instance term.
        ("Meter_AI+mhai(m)+3", Kind.AI, IndexCell(572, "Meter_AI", "mhai(m)")),
        ("Meter_AI + mhai( m ) + 3", Kind.AI, IndexCell(572, "Meter_AI", "mhai( m )")),
        ("Battery_bhai(b)+1", Kind.AI, IndexCell(701, "Battery_AI", "bhai(b)")),
        ("AO+Meter+mhai(m)+3", Kind.AO, IndexCell(303, "Meter_AO", "mhai(m)")),
        ("HM_CTR+mhai(m)+1", Kind.CTR, IndexCell(11, "Meter_CTR", "mhai(m)")),
    ],
)
def test_index(value: object, kind: Kind, expected: IndexCell) -> None:
    assert index(value, kind, BLOCKS) == expected


@pytest.mark.parametrize(
    ("value", "kind", "message"),
    [
        ("BI5", Kind.AI, "'BI5' is a BI index where a AI index belongs"),
        (
            "Inverter_BI + 1",
            Kind.AI,
            "'Inverter_BI + 1' counts from a BI block where a AI index belongs",
        ),
        ("AO+Meter+3", Kind.AI, "'AO+Meter+3' counts from a AO block where a AI index belongs"),
        (
            "Battery_BI + 1",
            Kind.BI,
            "'Battery_BI + 1' counts from block 'Battery_BI', which the Key sheet does not give "
            "(blocks: Battery_AI, DER_Unit_AI, Exp, Inverter_BI, Max index, Meter_AI, Meter_AO, "
            "Meter_BI, Meter_CTR)",
        ),
        ("Battery_AI + 1", Kind.BI, "'Battery_AI + 1' counts from a AI block where a BI index"),
        ("Gadget+1", Kind.AI, "'Gadget+1' counts from block 'Gadget', which the Key sheet"),
        ("AO+Gadget+1", Kind.AO, "'AO+Gadget+1' counts from block 'Gadget_AO', which the Key"),
        # A block given per type has no start for the other types, whatever else is given.
        ("Inverter_AI", Kind.AI, "'Inverter_AI' counts from block 'Inverter_AI', which the"),
        ("Meter_AI - 600", Kind.AI, "'Meter_AI - 600' gives index -31, outside 0 to 4294967295"),
        ("AI99999999999", Kind.AI, "'AI99999999999' gives an index outside 0 to 4294967295"),
        ("99999999999", Kind.AI, "'99999999999' gives an index outside 0 to 4294967295"),
        ("Meter_AI+99999999999999", Kind.AI, None),
        ("AO+BI+Meter", Kind.BI, "'AO+BI+Meter' gives two reference types"),
        ("AO+Meter_AI", Kind.AI, "'AO+Meter_AI' gives two reference types"),
        ("Meter_AI+Exp", Kind.AI, "'Meter_AI+Exp' names two places to count from"),
        ("AI5+Meter_AI", Kind.AI, "'AI5+Meter_AI' names two places to count from"),
        ("Meter_AI+mhai(m)+mhai(m)", Kind.AI, "'Meter_AI+mhai(m)+mhai(m)' gives two unit terms"),
        (-1, Kind.AI, "expected a point index, found -1"),
        (2.5, Kind.AI, "expected a point index, found 2.5"),
        (True, Kind.AI, "expected a point index"),
        (None, Kind.AI, "expected a point index"),
    ],
)
def test_index_refused(value: object, kind: Kind, message: str | None) -> None:
    with pytest.raises(CellError) as caught:
        index(value, kind, BLOCKS)
    if message is not None:
        assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    "cell",
    [
        "Meter_AI+3)",
        "Meter_AI++3",
        "Meter_AI+",
        "+",
        "mhai(m)+3",
        "Meter_AI-mhai(m)",
        "AI5+mhai(m)",
        "AI 1.5",
        "2nd meter",
        "Meter_AI*2",
        "Meter_AI - Exp",
    ],
)
def test_an_index_that_does_not_parse(cell: str) -> None:
    with pytest.raises(CellError) as caught:
        index(cell, Kind.AI, BLOCKS)
    assert str(caught.value) == (
        f"expected a point index such as AI12 or Block_AI + 3, found '{cell}'"
    )


def test_associated() -> None:
    assert associated("AI29", Kind.AI, BLOCKS) == Address(Kind.AI, 29)
    assert associated("AO+Meter+3", Kind.AO, BLOCKS) == Address(Kind.AO, 303)
    assert associated("n/a", Kind.AI, BLOCKS) is None
    assert associated(None, Kind.AI, BLOCKS) is None


def test_find_block() -> None:
    assert find_block("meter", Kind.AI, BLOCKS) == ("Meter_AI", 569)
    assert find_block("HM", Kind.CTR, BLOCKS) == ("Meter_CTR", 10)
    assert find_block("ex", Kind.CTR, BLOCKS) == ("Exp", 5000)
    # A block the Key sheet gives per type has no start for the types it leaves out.
    assert find_block("Inverter", Kind.AI, BLOCKS) is None
    assert find_block("Inverter", Kind.AI, {**BLOCKS, "Inverter": 9}) is None


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "   ",
        5000,
        5000.0,
        "5000",
        "=5000",
        65535,
        "Exp",
        "Meter",
        "Experimental points",
        "Gap #1",
        ". . .",
        "...",
        "…",
        "Meters, unit m",
    ],
)
def test_headings(value: object) -> None:
    assert is_heading(value, STARTS)


def test_a_bare_symbol_of_the_key_sheet_is_a_heading() -> None:
    symbols = block_symbols(BLOCKS)
    assert {"meter", "der_unit", "exp", "inverter", "battery", "max index"} <= symbols
    assert "meter per unit" not in symbols and "meter_ai" not in symbols
    assert is_heading("DER_Unit", STARTS, symbols) and is_heading("der_unit ", STARTS, symbols)
    assert not is_heading("DER_Unit_AI", STARTS, symbols)
    assert not is_heading("DER_Unit+1", STARTS, symbols)
    assert not is_heading("DER_Units", STARTS, symbols)  # no such symbol: an index (refused)


@pytest.mark.parametrize(
    "value",
    [
        "AI328",
        "AI 328",
        "ai 3 and more",
        "CTR0",
        "Meter_AI",
        "Meter_AI+3",
        "HM+1",
        "mhai(m)",
        "2nd meter",
        "a(b)",
        537,
        "537",
        "4999",
        -1,
        "-1",
        "2.5",
        2.5,
        True,
    ],
)
def test_indices_not_headings(value: object) -> None:
    assert not is_heading(value, STARTS)


pieces = st.sampled_from(
    [
        "Meter",
        "HM",
        "EX",
        "Exp",
        "Battery",
        "DER_Unit",
        "_",
        "AI",
        "ao",
        "CTR",
        "C",
        "+",
        "-",
        " ",
        "=",
        "(",
        ")",
        "mhai",
        "(m)",
        "3",
        "0",
        "99999999999",
        "4294967295",
        ".",
        "#",
        "é",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(pieces, max_size=12).map("".join), st.sampled_from(list(Kind)))
def test_any_index_text_is_read_or_refused(text: str, kind: Kind) -> None:
    heading = is_heading(text, STARTS)
    assert isinstance(heading, bool)
    try:
        read: Any = index(text, kind, BLOCKS)
    except CellError:
        return
    assert isinstance(read, IndexCell) and 0 <= read.index <= 0xFFFFFFFF
    assert read.block is None or read.block in BLOCKS
