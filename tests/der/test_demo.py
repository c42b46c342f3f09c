"""The built-in demo map: what the simulated DER and the demo need is there, and its numbering,
units, multipliers, ranges, event classes, enumerations and output/input pairs agree with the
point lists of AN2018 (the profile IEEE 1815.2 grew from), read from ../shared/data/an2018:

- epri-an2018-points.csv: EPRI's simulator's list (names, ranges, event classes, AO->AI pairs);
- volttron-mesa-points.json: VOLTTRON's list (units, multipliers, ranges, enumerations).
"""

from __future__ import annotations

import csv
import json
import re
from typing import Any

import pytest

from gridwire.der.demo import DEMO_CURVES, demo_map
from gridwire.der.points import Kind, Point
from tests.support.shared import shared_file

DEMO = demo_map()

# VOLTTRON's unit words and the symbols the demo writes.
UNITS: dict[str | None, str | None] = {
    None: None,
    "None": None,
    "None (list)": None,
    "Volts": "V",
    "Watts": "W",
    "VARs": "var",
    "VAr": "var",
    "VA": "VA",
    "VAs": "VA",
    "Amps": "A",
    "Hz": "Hz",
    "Percent": "%",
    "Seconds": "s",
    "Degrees": "deg",
    "Siemens": "S",
    "Amp-hrs or Watt-hrs": "Ah or Wh",
    "Percent per Second": "%/s",
    "Days": "d",
    "Milli-seconds": "ms",
    "Varies": None,
}
STOP = {
    "the",
    "and",
    "for",
    "when",
    "with",
    "from",
    "that",
    "this",
    "system",
    "mode",
    "function",
    "value",
    "share",
}


def words(name: str) -> set[str]:
    """Word stems (first four letters) that say what a point is."""
    return {w[:4] for w in re.findall(r"[a-z0-9]+", name.lower()) if len(w) >= 3 and w not in STOP}


@pytest.fixture(scope="module")
def epri() -> dict[tuple[str, int], dict[str, str]]:
    path = shared_file("data/an2018/epri-an2018-points.csv")
    with path.open(newline="", encoding="utf-8") as file:
        return {(row["type"], int(row["index"])): row for row in csv.DictReader(file)}


@pytest.fixture(scope="module")
def mesa() -> dict[tuple[str, int], dict[str, Any]]:
    path = shared_file("data/an2018/volttron-mesa-points.json")
    return {(p["data_type"], p["index"]): p for p in json.loads(path.read_text(encoding="utf-8"))}


def indices(kind: Kind) -> set[int]:
    return {p.index for p in DEMO.by_kind(kind)}


def test_marked_as_a_demo() -> None:
    assert DEMO.demo and "not IEEE's tables" in DEMO.title


def test_what_the_issue_asks_for_is_there() -> None:
    assert set(range(0, 12)) <= indices(Kind.BO)
    assert set(range(0, 29)) <= indices(Kind.AI)  # nameplate
    assert set(range(533, 557)) <= indices(Kind.AI)  # the system meter block
    assert set(range(0, 10)) <= indices(Kind.BI)  # alarms
    assert {p.purpose for p in DEMO.points} >= {"Nameplate", "Monitoring", "Status", "Alarm"}
    for bo in range(12):
        mirror = DEMO.mirror(DEMO.at(f"BO{bo}"))  # type: ignore[arg-type]
        assert mirror is not None and mirror.kind is Kind.BI


def test_six_functions_and_one_unsupported() -> None:
    keys = {f.key for f in DEMO.functions}
    assert keys >= {
        "volt-var",
        "volt-watt",
        "active-power-limit",
        "constant-power-factor",
        "constant-vars",
        "charge-discharge",
    }
    for function in DEMO.functions:
        enable = DEMO.at(f"BO{function.enable}")
        assert enable is not None and function.supports is not None and function.settings
        assert DEMO.mirror(enable) == DEMO.at(f"BI{function.enabled}")
        for index in function.settings:
            assert DEMO.mirror(DEMO.at(f"AO{index}")) is not None  # type: ignore[arg-type]
    supported = {f.key: DEMO.at(f"BI{f.supports}").value for f in DEMO.functions}  # type: ignore[union-attr]
    assert supported["watt-var"] is False
    assert all(v is True for k, v in supported.items() if k != "watt-var")


def test_curve_block() -> None:
    block = DEMO.curve_block
    assert block is not None
    assert (block.selector, block.readback, block.referenced) == (244, 328, 107)
    assert (block.max_points, block.curves) == (100, 4)
    assert (
        block.output(block.x_offset(100) + 1) == 448 and block.input(block.x_offset(100) + 1) == 532
    )
    curve_type = DEMO.at("AO245")
    assert curve_type is not None and curve_type.enumeration_name(2) == "Volt-var"
    # The tables give the curve points no multiplier: the curve's units scale them.
    assert all(DEMO.at(f"AO{i}").multiplier == 1.0 for i in range(249, 449))  # type: ignore[union-attr]
    assert {f.key: f.curve_types for f in DEMO.functions if f.curves} == {
        "volt-watt": (5,),
        "volt-var": (2,),
        "watt-var": (4,),
    }


def test_counters_have_frozen_counterparts() -> None:
    counters = DEMO.by_kind(Kind.CTR)
    assert counters and all(c.frozen and c.units in ("Wh", "varh") for c in counters)


def test_starting_values_are_in_range() -> None:
    for point in DEMO.points:
        if isinstance(point.value, (int, float)) and not isinstance(point.value, bool):
            assert point.in_range(point.value), point


def test_names_and_numbering_agree_with_an2018(
    epri: dict[tuple[str, int], dict[str, str]], mesa: dict[tuple[str, int], dict[str, Any]]
) -> None:
    for point in DEMO.points:
        if point.kind is Kind.CTR:
            continue  # AN2018's lists have no counters
        row = epri[(point.kind.value, point.index)]
        if point.kind is Kind.AO:
            # EPRI abbreviates output names; VOLTTRON's or the mirror input's say what it is.
            entry = mesa.get(("AO", point.index))
            reference = (
                entry["description"] if entry else epri[("AI", point.associated.index)]["name"]
            )  # type: ignore[union-attr]
        else:
            reference = row["name"]
        assert words(point.label) & words(reference), (point, reference)


def test_event_classes_agree_with_an2018(epri: dict[tuple[str, int], dict[str, str]]) -> None:
    for point in DEMO.points:
        if point.kind in (Kind.BI, Kind.AI):
            expected = epri[(point.kind.value, point.index)]["event_class"]
            assert f"Class{point.event_class}" == expected, point


def test_output_pairs_agree_with_an2018(epri: dict[tuple[str, int], dict[str, str]]) -> None:
    checked = 0
    for point in DEMO.points:
        if point.kind in (Kind.AO, Kind.BO):
            mapped = epri[(point.kind.value, point.index)]["mapped_input"]
            if mapped and mapped != "65535":
                assert point.associated is not None and point.associated.index == int(mapped), point
                checked += 1
    assert checked >= 40


def test_units_multipliers_ranges_agree_with_an2018(
    mesa: dict[tuple[str, int], dict[str, Any]], epri: dict[tuple[str, int], dict[str, str]]
) -> None:
    checked = 0
    for point in DEMO.points:
        entry = mesa.get((point.kind.value, point.index))
        if entry is None or entry.get("type") == "array":
            continue
        checked += 1
        assert UNITS[entry.get("units")] == point.units, point
        assert entry.get("scaling_multiplier", 1) == point.multiplier, point
        if "minimum" in entry:
            assert entry["minimum"] == point.minimum, point
        if "maximum" in entry:
            assert entry["maximum"] == point.maximum, point
    assert checked >= 280
    for point in DEMO.by_kind(Kind.AI):
        row = epri[("AI", point.index)]
        assert (int(row["min"]), int(row["max"])) == (point.minimum, point.maximum), point


def test_enumerations_agree_with_an2018(mesa: dict[tuple[str, int], dict[str, Any]]) -> None:
    for point in DEMO.points:
        entry = mesa.get((point.kind.value, point.index))
        allowed = None if entry is None else entry.get("allowed_values")
        if point.kind.is_binary:
            assert point.states is not None, point
        elif allowed is not None:
            assert point.enumeration is not None, point
            assert {e.value for e in point.enumeration} == {int(v) for v in allowed}, point


def test_every_point_of_a_function_is_marked_with_its_enable_output() -> None:
    for function in DEMO.functions:
        points: tuple[Point, ...] = DEMO.function_points(function)
        assert all(p.enable == function.enable for p in points)
        assert {p.purpose for p in points} <= {function.purpose, "Nameplate"}


def test_stored_curves_fit_the_functions_that_reference_them() -> None:
    curves = {c.number: c for c in DEMO_CURVES}
    assert len(curves) == DEMO.curve_block.curves  # type: ignore[union-attr]
    for function in DEMO.functions:
        for ref in function.curves:
            number = DEMO.at(f"AO{ref.setting}").value  # type: ignore[union-attr]
            assert curves[number].type in ref.types, function.key  # type: ignore[index]
    for curve in DEMO_CURVES:
        assert len(curve.points) <= DEMO.curve_block.max_points  # type: ignore[union-attr]
        for name, value in (
            ("AO245", curve.type),
            ("AO247", curve.x_units),
            ("AO248", curve.y_units),
        ):
            assert DEMO.at(name).enumeration_name(value) is not None  # type: ignore[union-attr]


def test_the_window_shows_the_first_curve() -> None:
    first = DEMO_CURVES[0]
    shown = [DEMO.at(f"AO{i}").value for i in range(244, 249)]  # type: ignore[union-attr]
    assert shown == [1, first.type, len(first.points), first.x_units, first.y_units]
    pairs = [
        (DEMO.at(f"AO{249 + 2 * i}").value, DEMO.at(f"AI{334 + 2 * i}").value)  # type: ignore[union-attr]
        for i in range(len(first.points))
    ]
    assert pairs == list(first.points)
    assert DEMO.at(f"AO{249 + 2 * len(first.points)}").value is None  # type: ignore[union-attr]
