"""The workbook loader against a synthetic workbook laid out as IEEE 1815.2's companion
workbook (invented names): every column, headings as sections, block-relative rows, the
functions and the curve block found from the names, and errors naming sheet, row and cell.

Row numbers below count as Excel does: two header rows, so a sheet's first body row is row 3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridwire.der.errors import WorkbookError
from gridwire.der.functions import CurveBlock, CurveRef, DerFunction
from gridwire.der.points import Address, Kind
from gridwire.der.text import EnumValue
from gridwire.der.workbook import WorkbookResult, read_workbook, read_workbook_bytes
from tests.der.workbooks import workbook_bytes, write_workbook


@pytest.fixture(scope="module")
def loaded() -> WorkbookResult:
    return read_workbook_bytes(workbook_bytes(), "synthetic.xlsx")


def test_every_sheet_is_read(loaded: WorkbookResult) -> None:
    point_map = loaded.point_map
    assert loaded.warnings == ()
    assert point_map.title == "IEEE 1815.2 tables (synthetic.xlsx)"
    assert point_map.source == "synthetic.xlsx" and not point_map.demo
    assert point_map.describe().endswith("41 points (BI 8, BO 3, CTR 2, AI 16, AO 12), 2 functions")
    assert point_map.blocks == {"Gadget_AI": 700, "Gadget_BI": 300, "Max index": 65535}


def test_binary_output_columns(loaded: WorkbookResult) -> None:
    hold = loaded.point_map.at("BO0")
    assert hold is not None
    assert (hold.name, hold.section, hold.purpose) == (
        "Hold the widget",
        "Widget controls",
        "Control",
    )
    assert hold.states == ("Release", "Hold") and hold.iec61850 == "XWGT.Hold"
    assert hold.associated == Address(Kind.BI, 0)
    # "M" is mandatory; "O" is not.
    assert hold.mandatory and not hold.mandatory_1547
    assert hold.event_class is None


def test_binary_input_columns(loaded: WorkbookResult) -> None:
    point_map = loaded.point_map
    held = point_map.at("BI0")
    assert held is not None and held.event_class == 2 and held.associated == Address(Kind.BO, 0)
    # "Class 2", 0, "1", "Class0" and 2 all read as event classes.
    assert [point_map.at(f"BI{i}").event_class for i in range(5)] == [2, 0, 1, 0, 2]  # type: ignore[union-attr]


def test_analog_columns_and_scaling(loaded: WorkbookResult) -> None:
    strength = loaded.point_map.at("AO0")
    assert strength is not None
    assert (strength.minimum, strength.maximum, strength.multiplier, strength.offset) == (
        0,
        1000,
        0.1,
        0.0,
    )
    assert strength.units == "%" and strength.section == "Frobnication settings"
    assert strength.to_engineering(1000) == 100.0
    speed = loaded.point_map.at("AO2")
    # Empty multiplier and offset cells mean 1 and 0.
    assert speed is not None and (speed.multiplier, speed.offset) == (1.0, 0.0)
    assert speed.section == "Spin settings"


def test_analog_input_value_column(loaded: WorkbookResult) -> None:
    frequency = loaded.point_map.at("AI5")
    assert frequency is not None and frequency.value == 60000
    assert frequency.to_engineering(frequency.value) == 60.0
    assert frequency.mandatory and frequency.mandatory_1547 and frequency.event_class == 1
    remark = loaded.point_map.at("AI6")
    assert remark is not None and remark.value is None  # text in the Value column is a remark


def test_block_relative_rows(loaded: WorkbookResult) -> None:
    point_map = loaded.point_map
    # Gadget_AI starts at 700 (Key sheet): "Gadget_AI" is AI700, "Gadget_AI + 1" is AI701.
    temperature = point_map.at("AI700")
    assert temperature is not None and temperature.name == "Gadget #1 temperature"
    assert (temperature.block, temperature.unit) == ("Gadget_AI", 1)
    # 650 x 0.1 - 40 = 25.0 degrees.
    assert temperature.to_engineering(650) == 25.0
    assert point_map.at("AI701").name == "Gadget #1 pressure"  # type: ignore[union-attr]
    # "Gadget_BI+2" (no spaces) is BI302, unit 2.
    jammed = point_map.at("BI302")
    assert jammed is not None and (jammed.block, jammed.unit) == ("Gadget_BI", 2)
    assert jammed.section == "Gadget block"


def test_counters(loaded: WorkbookResult) -> None:
    turns = loaded.point_map.at("CTR0")
    jams = loaded.point_map.at("CTR1")
    assert turns is not None and jams is not None
    assert (turns.event_class, turns.frozen, turns.frozen_event_class) == (3, True, 3)
    assert (jams.event_class, jams.frozen, jams.frozen_event_class) == (1, False, None)


def test_enumerations_from_names(loaded: WorkbookResult) -> None:
    kind = loaded.point_map.at("AO11")
    assert kind is not None and kind.label == "Curve kind"
    assert kind.enumeration == (
        EnumValue(0, "Unused"),
        EnumValue(1, "Not applicable"),
        EnumValue(2, "Frobnication curve"),
        EnumValue(3, "Spin curve"),
    )
    units = loaded.point_map.at("AI23")
    assert units is not None and units.enumeration == (
        EnumValue(0, "None"),
        EnumValue(1, "Percent"),
    )


def test_functions_are_found_from_the_names(loaded: WorkbookResult) -> None:
    assert loaded.point_map.functions == (
        DerFunction(
            key="frobnication",
            name="Frobnication",
            purpose="Frob",
            enable=1,
            supports=1,
            enabled=2,
            settings=(0, 1),
            curves=(CurveRef(1, (2,)),),
        ),
        DerFunction(
            key="spin", name="Spin", purpose="Spin", enable=2, supports=3, enabled=4, settings=(2,)
        ),
    )
    assert [str(p) for p in loaded.point_map.group("spin")] == ["BI3", "BI4", "BO2", "AI2", "AO2"]


def test_curve_block_is_found(loaded: WorkbookResult) -> None:
    assert loaded.point_map.curve_block == CurveBlock(
        selector=10, readback=20, referenced=5, max_points=2, curves=None
    )


def test_a_workbook_file(tmp_path: Path) -> None:
    path = write_workbook(tmp_path / "tables.xlsx")
    assert len(read_workbook(path).point_map) == 41
    with pytest.raises(WorkbookError, match=r"nothing\.xlsx: cannot read it"):
        read_workbook(tmp_path / "nothing.xlsx")


def test_a_dangling_association_is_left_out_with_a_warning() -> None:
    result = read_workbook_bytes(workbook_bytes({"BO": {(4, 6): "BI77"}}), "w.xlsx")
    assert result.point_map.at("BO0").associated is None  # type: ignore[union-attr]
    assert result.warnings == (
        "BO0 (sheet BO, row 4) is associated with BI77, which the workbook does not list; "
        "the association is left out",
    )


def error(changes: dict[str, dict[tuple[int, int], Any]] | None = None, **kwargs: Any) -> str:
    with pytest.raises(WorkbookError) as caught:
        read_workbook_bytes(workbook_bytes(changes, **kwargs), "w.xlsx")
    return str(caught.value)


def test_missing_sheet() -> None:
    assert error(drop=["CTR", "Key"]) == (
        "w.xlsx: the workbook has no sheet Key, CTR (sheets: BO, BI, AO, AI); "
        "is it IEEE 1815.2's point workbook?"
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"AO": {(4, 1): "AI0"}},
            "sheet AO, row 4, cell A4: 'AI0' is a AI index where a AO index belongs",
        ),
        (
            {"AO": {(4, 1): "Widget_AO + 2"}},
            "sheet AO, row 4, cell A4: 'Widget_AO + 2' counts "
            "from block 'Widget_AO', which the Key sheet does "
            "not give (blocks: Gadget_AI, Gadget_BI, Max index)",
        ),
        (
            {"AI": {(21, 1): "Gadget_BI + 1"}},
            "sheet AI, row 21, cell A21: 'Gadget_BI + 1' "
            "counts from a BI block where a AI index belongs",
        ),
        (
            {"AO": {(4, 1): "twelve_AO"}},
            "sheet AO, row 4, cell A4: 'twelve_AO' counts from block 'twelve_AO'",
        ),
        (
            {"AO": {(4, 1): "AO 1.5"}},
            "sheet AO, row 4, cell A4: expected a point index such as "
            "AO12 or Block_AO + 3, found 'AO 1.5'",
        ),
        ({"AO": {(4, 1): 2.5}}, "sheet AO, row 4, cell A4: expected a point index, found 2.5"),
        (
            {"BI": {(4, 3): "Class 5"}},
            "sheet BI, row 4, cell C4: expected an event class 0 to 3, found 'Class 5'",
        ),
        ({"AO": {(4, 3): "low"}}, "sheet AO, row 4, cell C4: expected a number, found 'low'"),
        ({"AO": {(4, 5): True}}, "sheet AO, row 4, cell E4: expected a number, found True"),
        (
            {"AO": {(4, 9): "AO5"}},
            "sheet AO, row 4, cell I4: 'AO5' is a AO index where a AI index belongs",
        ),
        ({"AO": {(5, 1): "AO0"}}, "sheet AO, row 5, cell A5: AO0 is listed already, at row 4"),
        ({"BO": {(4, 2): None}}, "sheet BO, row 4, cell B4: the point has no name"),
        (
            {"AI": {(1, 1): "Nom", (2, 1): None}},
            "sheet AI, cell A1 or A2: expected the heading of the Point Index column, found 'Nom'",
        ),
        ({"AO": {(4, 3): 5000}}, "AO0: minimum 5000 is above maximum 1000"),
    ],
)
def test_errors_name_sheet_row_and_cell(
    changes: dict[str, dict[tuple[int, int], Any]], message: str
) -> None:
    assert error(changes).startswith(f"w.xlsx: {message}")


def test_words_in_the_index_cell_make_a_heading_and_a_warning() -> None:
    # No digit beside a letter, no +, _ or parenthesis: a heading, as IEEE's layout has them.
    result = read_workbook_bytes(workbook_bytes({"AO": {(4, 1): "twelve"}}), "w.xlsx")
    assert result.point_map.at("AO0") is None
    assert result.point_map.at("AO1").section == "Frobnication strength. Share of the largest"  # type: ignore[union-attr]
    assert result.warnings == (
        "sheet AO, row 4, cell A4: 'twelve' is not a point index, so the row is read as a "
        "heading although it fills other columns",
        "AI0 (sheet AI, row 4) is associated with AO0, which the workbook does not list; "
        "the association is left out",
    )


def test_not_a_workbook() -> None:
    with pytest.raises(WorkbookError, match=r"^x\.xlsx: not an Excel workbook \("):
        read_workbook_bytes(b"PK\x03\x04 but not really", "x.xlsx")


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_any_octets_are_a_workbook_error(data: bytes) -> None:
    with pytest.raises(WorkbookError):
        read_workbook_bytes(data, "x.xlsx")


cell_values = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)
    | st.sampled_from(["AO3", "AI3", "Gadget_AI + 2", "Class 2", "M", "Yes", "-", "1e3"])
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["BO", "BI", "AO", "AI", "CTR"]), st.lists(cell_values, min_size=1, max_size=14)
)
def test_any_row_is_read_or_refused_by_cell(sheet: str, row: list[Any]) -> None:
    changes = {sheet: {(4, column): value for column, value in enumerate(row, start=1)}}
    try:
        data = workbook_bytes(changes)
    except (ValueError, TypeError):
        return  # openpyxl will not write this cell value (illegal characters)
    try:
        result = read_workbook_bytes(data, "w.xlsx")
    except WorkbookError:
        return
    assert len(result.point_map) >= 40
