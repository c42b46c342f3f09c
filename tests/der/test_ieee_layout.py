"""The workbook loader against a synthetic workbook in the layout of IEEE 1815.2's published
workbook (tests/der/ieee_layout.py: invented names and numbers). Each fact of the layout is
tested here, loading and refused, with the sheet, row and cell of every error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridwire.cli import main
from gridwire.der import load_map
from gridwire.der.errors import WorkbookError
from gridwire.der.points import Address, Kind
from gridwire.der.workbook import WorkbookResult, read_workbook_bytes
from tests.der.ieee_layout import ieee_layout_bytes

Changes = dict[str, dict[tuple[int, int], Any]]
# Key sheet columns by letter: I label, J note, K start, L-P a start per BO, BI, AO, AI, CTR.
COLUMN = {letter: number for number, letter in enumerate("ABCDEFGHIJKLMNOP", start=1)}


def key(row: int, letter: str, value: Any) -> tuple[tuple[int, int], Any]:
    return (row, COLUMN[letter]), value


@pytest.fixture(scope="module")
def loaded() -> WorkbookResult:
    return read_workbook_bytes(ieee_layout_bytes(), "ieee.xlsx")


def load(changes: Changes) -> WorkbookResult:
    return read_workbook_bytes(ieee_layout_bytes(changes), "w.xlsx")


def error(changes: Changes) -> str:
    with pytest.raises(WorkbookError) as caught:
        load(changes)
    return str(caught.value)


def test_it_loads_without_a_warning(loaded: WorkbookResult) -> None:
    assert loaded.warnings == ()
    assert loaded.point_map.describe() == (
        "IEEE 1815.2 tables (ieee.xlsx): 29 points (BI 9, BO 5, CTR 3, AI 8, AO 4), 1 functions"
    )
    assert [f.key for f in loaded.point_map.functions] == ["trial"]


def test_the_key_sheets_block_table(loaded: WorkbookResult) -> None:
    blocks = loaded.point_map.blocks

    def typed(name: str, *starts: int | None) -> dict[str, int]:
        kinds = ("BO", "BI", "AO", "AI", "CTR")
        return {f"{name}_{k}": s for k, s in zip(kinds, starts, strict=True) if s is not None}

    def lengths(name: str, *values: int) -> dict[str, int]:
        kinds = ("BO", "BI", "AO", "AI", "CTR")
        return {f"{name}_{k} per unit": v for k, v in zip(kinds, values, strict=True)}

    assert blocks == {
        # Fixed blocks by their label; a label given twice, by label and note.
        **typed("Configuration & Control", 0, 0, 0, 0, 0),
        **typed("Functions", 10, 20, 10, 20, None),
        **typed("Curves", None, 40, 60, 80, None),
        **typed("System Meter", None, None, None, 120, 4),
        **typed("Extensions beyond", 20, 50, 70, 150, 6),
        **typed("Gap #1", 30, 60, 75, 160, 8),
        **typed("Schedules (2 items)", None, None, 90, 170, None),
        **typed("Schedule Status (2 items)", None, 70, None, 175, None),
        **typed("Schedules (4 items)", None, None, 100, 180, None),
        **typed("Schedule Status (4 items)", None, 72, None, 185, None),
        # Equipment blocks by symbol, with the row after giving the lengths per unit (that
        # row unlabelled, or labelled with anything but a block).
        **typed("Meter", 200, 300, 400, 500, 10),
        **lengths("Meter", 2, 4, 2, 6, 3),
        **typed("DER_Unit", 210, 310, 410, 520, 20),
        **lengths("DER_Unit", 1, 2, 1, 4, 1),
        **typed("Inverter", 220, 320, 420, 540, 30),
        **lengths("Inverter", 2, 2, 2, 4, 2),
        **typed("Battery", 230, 330, 430, 560, 40),
        **lengths("Battery", 1, 3, 1, 4, 1),
        # A start only.
        "Exp": 5000,
        "VP": 6000,
        "Start Index Points": 7000,
        "Maximum Index": 65535,
    }
    # The legend in columns A-H ("Default Event Class" 2...) is not a block.
    assert "Default Event Class" not in blocks


def point(loaded: WorkbookResult, address: str) -> Any:
    found = loaded.point_map.at(address)
    assert found is not None, address
    return found


@pytest.mark.parametrize(
    ("address", "name", "block"),
    [
        ("AI120", "System meter frequency", None),  # absolute
        ("CTR0", "Energy delivered", None),
        ("BI300", "Meter #1 healthy", "Meter_BI"),  # bare symbol and type: offset 0
        ("BI301", "Meter #1 reset done", "Meter_BI"),  # "Meter_BI + 1"
        ("BI302", "Meter #1 held", "Meter_BI"),  # "Meter_BI+2"
        ("BI320", "Inverter #1 stopped", "Inverter_BI"),  # bare "Inverter_BI"
        ("AI522", "DER unit #1 rating", "DER_Unit_AI"),
        ("AI541", "Inverter #1 temperature", "Inverter_AI"),  # "Inverter_AI + 1"
        ("BI331", "Battery #1 full", "Battery_BI"),
        ("CTR10", "Meter #1 energy delivered", "Meter_CTR"),  # "HM_CTR": HM is the meter
        ("CTR11", "Meter #1 energy received", "Meter_CTR"),
        ("AO5001", "Trial ramp", "Exp"),  # "Exp + 1": one start for every type
        ("AI5001", "Trial ramp", "Exp"),
        ("AO6002", "Vendor knob", "VP"),  # "VP_AO + 2"
    ],
)
def test_absolute_and_block_relative_indices(
    loaded: WorkbookResult, address: str, name: str, block: str | None
) -> None:
    found = point(loaded, address)
    assert (found.name, found.block) == (name, block)
    assert found.unit == (1 if block and block not in ("Exp", "VP") else None)


def test_paired_point_columns(loaded: WorkbookResult) -> None:
    pairs = {
        "BO200": "BI301",  # "BI+Meter+1": the reference type first
        "BI301": "BO200",  # "BO+Meter": offset 0
        "BI302": "BO201",  # "BO + Meter + 1"
        "BO220": "BI320",  # bare "Inverter_BI"
        "BI320": "BO220",
        "AO401": "AI503",  # "AI+Meter+3"
        "AI503": "AO401",  # "AO+Meter+1"
        "AO5001": "AI5001",  # "EX+1": EX is the experimental block
        "AI5001": "AO5001",
    }
    assert {a: str(point(loaded, a).associated) for a in pairs} == pairs


def test_each_unit_block_is_kept_once_for_unit_1(loaded: WorkbookResult) -> None:
    # The generic unit's rows (Meter_BI+mhai(m)..., Battery_bhai(b)+1...) restate unit #1's:
    # no point of theirs is kept, and none is named "#m" or "#b".
    points = loaded.point_map.points
    assert not [p for p in points if "#m" in p.name or "#b" in p.name]
    meters = [str(p) for p in points if p.block and p.block.startswith("Meter_")]
    assert meters == [
        "BI300",
        "BI301",
        "BI302",
        "BO200",
        "BO201",
        "CTR10",
        "CTR11",
        "AI500",
        "AI503",
        "AO401",
    ]


def test_section_headings(loaded: WorkbookResult) -> None:
    sections = {
        "AI5001": "Experimental points",  # a heading holding the block start 5000
        "AO5001": "Exp",  # a bare symbol and nothing else
        "AO6002": "Vendor points follow",  # words in the index cell
        "AI121": "Meters",  # ". . ." rows leave the section as it was
        "AI120": "System meter",  # an empty index cell
    }
    assert {a: point(loaded, a).section for a in sections} == sections


@pytest.mark.parametrize("start", ["5000", " 5000 ", 5000.0])
def test_a_block_start_written_otherwise_is_a_heading(start: Any) -> None:
    result = load({"AI": {(5, 1): start}})
    assert point(result, "AI5001").section == "Experimental points"
    assert result.point_map.at("AI5000") is None


@pytest.mark.parametrize("symbol", ["DER_Unit", "der_unit", "Inverter", "VP", "HM", "EX"])
def test_a_bare_symbol_is_a_heading_even_with_an_underscore(symbol: str) -> None:
    # "DER_Unit" holds a "_" yet is a bare symbol (no type, no offset): a heading, not the
    # point DER_Unit_AI+0 named by the heading's words.
    result = load({"AI": {(7, 1): symbol}})
    assert result.point_map.at("AI520") is None and result.point_map.at("AI540") is None
    assert point(result, "AI120").section == "System meter"
    assert len(result.point_map) == 29 and result.warnings == ()


def test_a_bare_number_that_is_no_block_start_is_an_absolute_index() -> None:
    # The rule kept from the older layout: 4999 starts no block, so it is AI4999.
    result = load({"AI": {(5, 1): 4999, (5, 3): 1}})
    assert point(result, "AI4999").name == "Experimental points"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        # Anything with a digit beside a letter, +, _ or a parenthesis is an index.
        (
            {"AI": {(11, 1): "Meter_AI+3)"}},
            "sheet AI, row 11, cell A11: expected a point index such as AI12 or Block_AI + 3, "
            "found 'Meter_AI+3)'",
        ),
        (
            {"BI": {(9, 1): "2nd meter"}},
            "sheet BI, row 9, cell A9: expected a point index such as BI12 or Block_BI + 3, "
            "found '2nd meter'",
        ),
        (
            {"CTR": {(6, 1): "HM_CTR++1"}},
            "sheet CTR, row 6, cell A6: expected a point index such as CTR12 or Block_CTR + 3, "
            "found 'HM_CTR++1'",
        ),
        (
            {"AO": {(8, 9): "AI+Meter+mhai(m"}},
            "sheet AO, row 8, cell I8: expected a point index such as AI12 or Block_AI + 3, "
            "found 'AI+Meter+mhai(m'",
        ),
        (
            {"AI": {(11, 1): "Meter_CTR+3"}},
            "sheet AI, row 11, cell A11: 'Meter_CTR+3' counts from a CTR block where a AI "
            "index belongs",
        ),
        (
            {"AO": {(8, 9): "AO+Meter+3"}},
            "sheet AO, row 8, cell I8: 'AO+Meter+3' counts from a AO block where a AI index "
            "belongs",
        ),
        (
            {"BI": {(18, 1): "Charger_BI+1"}},
            "sheet BI, row 18, cell A18: 'Charger_BI+1' counts from block 'Charger_BI', which "
            "the Key sheet does not give",
        ),
        # Without its Key row, the meter block is not known (the error the issue reports).
        (
            {"Key": dict(key(row, letter, None) for row in (12, 13) for letter in "IJKLMNOP")},
            "sheet BO, row 8, cell A8: 'Meter_BO' counts from block 'Meter_BO', which the Key "
            "sheet does not give",
        ),
    ],
)
def test_index_cells_that_do_not_parse(changes: Changes, message: str) -> None:
    assert error(changes).startswith(f"w.xlsx: {message}")


def test_a_restatement_of_an_offset_unit_1_does_not_list() -> None:
    assert error({"AI": {(14, 1): "Meter_AI+mhai(m)+4"}}) == (
        "w.xlsx: sheet AI, row 14, cell A14: 'Meter_AI+mhai(m)+4' restates Meter_AI+4 for a "
        "unit m, which no unit #1 row of the sheet lists"
    )
    assert error({"BI": {(21, 1): "Battery_bhai(b)+3"}}) == (
        "w.xlsx: sheet BI, row 21, cell A21: 'Battery_bhai(b)+3' restates Battery_BI+3 for a "
        "unit m, which no unit #1 row of the sheet lists"
    )


def test_a_restatement_that_says_otherwise_is_reported() -> None:
    result = load({"AI": {(14, 8): "kV", (13, 2): "Meter #m sort"}})
    assert result.warnings == (
        "sheet AI: 2 rows restating block Meter_AI for a unit m differ from unit #1's (row 13 "
        "against row 10: name, enumeration; and 1 more)",
    )
    # Unit #1's rows are what the map keeps.
    assert point(result, "AI503").units is None
    # The name's unit mark (#1, #m) is not a difference.
    assert load({"CTR": {(9, 2): "Meter # m energy delivered"}}).warnings == ()


def test_a_unit_1_row_beyond_the_units_length_is_reported() -> None:
    result = load({"Key": dict([key(13, "O", 3)])})
    assert result.warnings == (
        "sheet AI: block Meter_AI is 3 long per unit (Key sheet), yet 1 row counts beyond it "
        "(row 11: Meter_AI+3)",
    )


def test_headers_in_other_words_load() -> None:
    # What is checked is the order; a column may be headed in other common words.
    changes: Changes = {
        "AO": {(1, 5): "Scale", (2, 5): "Factor"},
        "AI": {(1, 10): "Fixed", (1, 11): "Corresponding", (1, 12): "Category"},
        "BO": {(1, 3): "State when", (2, 3): "False", (1, 4): "State when", (2, 4): "True"},
    }
    assert len(load(changes).point_map) == 29


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        # Two header rows joined per column: a reordered edition fails loudly.
        (
            {"AO": {(2, 3): "Maximum", (2, 4): "Minimum"}},
            "sheet AO, cell C1 or C2: expected the heading of the Minimum column, found "
            "'Transmitted Maximum'",
        ),
        (
            {
                "CTR": {
                    (1, 4): "Default Class of",
                    (2, 4): "the frozen counter",
                    (1, 5): "Frozen Counter",
                    (2, 5): "Exists",
                }
            },
            "sheet CTR, cell D1 or D2: expected the heading of the Frozen Counter Exists column, "
            "found 'Default Class of the frozen counter'",
        ),
        (
            {"BI": {(1, 3): "Value", (2, 3): "is 0", (1, 4): "Default", (2, 4): "Event Class"}},
            "sheet BI, cell C1 or C2: expected the heading of the Default Event Class column, "
            "found 'Value is 0'",
        ),
        (
            {"BO": {(1, 9): None, (2, 9): None}},
            "sheet BO, cell I1 or I2: expected the heading of the Mandatory for 1547 column, "
            "found nothing",
        ),
        (
            {"AI": {(1, 11): "Purpose", (2, 11): None, (1, 12): "Associated", (2, 12): "AO"}},
            "sheet AI, cell K1 or K2: expected the heading of the Associated point column, "
            "found 'Purpose'",
        ),
    ],
)
def test_headers_are_checked_per_sheet(changes: Changes, message: str) -> None:
    assert error(changes) == f"w.xlsx: {message}"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"Key": dict([key(1, "L", "BI"), key(1, "M", "BO")])},
            "sheet Key, row 1, cell L1: the BO starts belong in this column, but it is headed "
            "'BI'; is the Key sheet laid out differently?",
        ),
        (
            {"Key": dict([key(1, "P", "Analog Input")])},
            "sheet Key, row 1, cell P1: the CTR starts belong in this column, but it is headed "
            "'Analog Input'; is the Key sheet laid out differently?",
        ),
        (
            {"Key": dict([key(12, "O", "many")])},
            "sheet Key, row 12, cell O12: expected a whole number (a start), found 'many'",
        ),
        (
            {"Key": dict([key(14, "M", -5)])},
            "sheet Key, row 14, cell M14: -5 is outside 0 to 4294967295",
        ),
        (
            {"Key": dict([key(24, "L", 1)])},
            "sheet Key, row 24, cell I24: block starts without a label",
        ),
        (
            {"Key": dict([key(8, "I", "GAP #1")])},
            "sheet Key, row 8, cell I8: block 'GAP #1' is given already, at row 7",
        ),
        (
            {"Key": dict([key(18, "I", "Meters")])},
            "sheet Key, row 18, cell I18: block 'Meter' is given already, at row 12",
        ),
    ],
)
def test_key_sheet_errors(changes: Changes, message: str) -> None:
    assert error(changes) == f"w.xlsx: {message}"


def test_key_sheet_lengths_row_rules() -> None:
    # After an equipment block, any label but a block's heads its lengths row ...
    blocks = load({"Key": dict([key(17, "I", "Points per inverter")])}).point_map.blocks
    assert blocks["Inverter_AI per unit"] == 4
    # ... its own symbol included ...
    blocks = load({"Key": dict([key(13, "I", "Meter")])}).point_map.blocks
    assert blocks["Meter_AI per unit"] == 6
    # ... while a row labelled as a block is a block, even right after one.
    blocks = load(
        {"Key": dict([key(13, "I", "Inverters"), key(16, "I", "Chargers")])}
    ).point_map.blocks
    assert "Meter_AI per unit" not in blocks and blocks["Inverter_AI"] == 6
    assert (blocks["Chargers_AI"], blocks["Chargers_AI per unit"]) == (540, 4)


def test_tables_build_installs_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workbook = tmp_path / "tables.xlsx"
    workbook.write_bytes(ieee_layout_bytes())
    out = tmp_path / "map.json"
    assert main(["tables", "build", str(workbook), "--out", str(out)]) == 0
    assert capsys.readouterr().err == ""
    installed = load_map(out)
    assert len(installed) == 29 and installed.blocks["Meter_AI"] == 500
    assert installed.at(Address(Kind.AI, 503)).associated == Address(Kind.AO, 401)  # type: ignore[union-attr]


key_cells = (
    st.none()
    | st.integers(-5, 70000)
    | st.sampled_from(["Meters", "Exp", "BO", "AI", "Length", "n/a", "many", "AI5", 5000.0, 2.5])
)
index_cells = st.lists(
    st.sampled_from(["Meter", "HM", "EX", "Exp", "_", "AI", "AO", "+", "-", " ", "(m)", "mhai"])
    | st.sampled_from(["3", "5000", ". . .", "words", "(", ")", "#", "2nd"]),
    max_size=8,
).map("".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(12, 14),
    st.lists(key_cells, min_size=8, max_size=8),
    st.sampled_from([(11, 1), (14, 1), (11, 11), (10, 1)]),
    index_cells,
)
def test_any_key_row_and_index_cell_are_read_or_refused(
    key_row: int, row: list[Any], place: tuple[int, int], cell: str
) -> None:
    changes: Changes = {
        "Key": {(key_row, number): value for number, value in enumerate(row, start=9)},
        "AI": {place: cell},
    }
    try:
        result = load(changes)
    except WorkbookError as exc:
        assert str(exc).startswith("w.xlsx: ")
        return
    assert len(result.point_map) >= 20
