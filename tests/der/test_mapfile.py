"""The JSON map format (docs/point-map.md): reading it field by field, its errors, and writing
it with defaults left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.der.demo import demo_map
from gridwire.der.errors import MapError
from gridwire.der.functions import CurveBlock, CurveRef
from gridwire.der.mapfile import dumps, load_map, loads, point_dict, save_map, to_dict
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind
from gridwire.der.text import EnumValue

# Written by hand the way docs/point-map.md describes the format.
DOCUMENT = """
{
  "format": "gridwire.der-map",
  "version": 1,
  "title": "Two-function test DER",
  "source": "written by hand",
  "blocks": {"Meter_AI": 569},
  "points": [
    {"kind": "BO", "index": 29, "name": "Volt-var enable", "purpose": "Volt-Var",
     "states": ["Disabled", "Enabled"], "associated": "BI81", "mandatory": true},
    {"kind": "BI", "index": 81, "name": "Volt-var enabled", "event_class": 2,
     "purpose": "Volt-Var", "associated": "BO29", "states": ["Disabled", "Enabled"]},
    {"kind": "BI", "index": 48, "name": "Supports volt-var <0> No <1> Yes", "event_class": 0},
    {"kind": "AO", "index": 217, "name": "Volt-var curve number", "minimum": 1,
     "maximum": 4, "associated": "AI297", "value": 1},
    {"kind": "AI", "index": 297, "name": "Volt-var curve number", "event_class": 2,
     "minimum": 1, "maximum": 4, "associated": "AO217"},
    {"kind": "AI", "index": 547, "name": "Meter voltage", "section": "System meter",
     "purpose": "Monitoring", "event_class": 3, "minimum": 0, "maximum": 2147483647,
     "multiplier": 0.1, "units": "V", "iec61850": "MMXU1.PhV.phsA", "value": 2400,
     "mandatory": true, "mandatory_1547": true},
    {"kind": "AI", "index": 570, "name": "Meter #1 frequency", "block": "Meter_AI", "unit": 1,
     "multiplier": 0.001, "offset": 0, "units": "Hz"},
    {"kind": "AO", "index": 4, "name": "Sign convention",
     "enumeration": [{"value": 1, "name": "IEC"}, {"value": 2, "name": "IEEE"}]},
    {"kind": "CTR", "index": 0, "name": "Energy delivered", "event_class": 3, "frozen": true,
     "frozen_event_class": 3, "units": "Wh"}
  ],
  "functions": [
    {"key": "volt_var", "name": "Volt-Var", "purpose": "Volt-Var", "enable": "BO29",
     "supports": "BI48", "enabled": "BI81", "settings": ["AO217"],
     "curves": [{"setting": "AO217", "types": [2]}]}
  ]
}
"""


def test_a_document_written_by_hand() -> None:
    point_map = loads(DOCUMENT)
    assert point_map.title == "Two-function test DER" and not point_map.demo
    assert point_map.source == "written by hand" and point_map.blocks == {"Meter_AI": 569}
    voltage = point_map.at("AI547")
    assert voltage is not None
    assert (voltage.units, voltage.multiplier, voltage.event_class, voltage.value) == (
        "V",
        0.1,
        3,
        2400,
    )
    assert voltage.iec61850 == "MMXU1.PhV.phsA" and voltage.mandatory and voltage.mandatory_1547
    assert voltage.to_engineering(2400) == 240.0
    frequency = point_map.at("AI570")
    assert frequency is not None and (frequency.block, frequency.unit) == ("Meter_AI", 1)
    # A binary point's name listing 0 and 1 gives its states.
    assert point_map.at("BI48").states == ("No", "Yes")  # type: ignore[union-attr]
    assert point_map.at("AO4").enumeration == (EnumValue(1, "IEC"), EnumValue(2, "IEEE"))  # type: ignore[union-attr]
    counter = point_map.at("CTR0")
    assert counter is not None and counter.frozen and counter.frozen_event_class == 3
    function = point_map.function("volt_var")
    assert function is not None and function.curves == (CurveRef(217, (2,)),)
    # Points the function lists are marked with its enable output.
    assert point_map.at("AI297").enable == 29  # type: ignore[union-attr]
    assert point_map.at("BI48").enable == 29  # type: ignore[union-attr]


def document(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DOCUMENT)
    data.update(changes)
    return data


def error(data: Any) -> str:
    with pytest.raises(MapError) as caught:
        loads(orjson.dumps(data), "m.json")
    return str(caught.value)


def test_errors_say_where() -> None:
    bad = document()
    bad["points"][5]["multiplier"] = "tenth"
    assert error(bad) == "m.json: points[5] (AI547).multiplier: Input should be a valid number"
    bad = document()
    bad["points"][3]["minimum"] = "1"
    assert error(bad).startswith(
        "m.json: points[3] (AO217).minimum: Input should be a valid "
        "integer, or Input should be a valid number"
    )
    assert error(document(format="other")).startswith("m.json: format: Input should be")
    assert error(document(surplus=1)) == "m.json: surplus: Extra inputs are not permitted"
    bad = document()
    bad["points"][0]["associated"] = "BI-81"
    assert error(bad) == "m.json: BO29.associated: 'BI-81' is not an address"
    bad = document()
    bad["functions"][0]["enable"] = "AO29"
    assert error(bad) == (
        "m.json: function 'volt_var'.enable: 'AO29' is not a BO address such as BO12"
    )
    bad = document()
    bad["points"][1]["associated"] = "BO30"
    assert error(bad) == "m.json: BI81 is associated with BO30, which is not in the map"


def test_not_json() -> None:
    with pytest.raises(MapError, match=r"^m\.json: not JSON \(Invalid JSON"):
        loads(b'{"format": ', "m.json")


def test_defaults_are_left_out_when_written() -> None:
    point_map = loads(DOCUMENT)
    assert point_dict(point_map.at("AI297")) == {  # type: ignore[arg-type]
        "kind": "AI",
        "index": 297,
        "name": "Volt-var curve number",
        "event_class": 2,
        "minimum": 1,
        "maximum": 4,
        "associated": "AO217",
        "enable": "BO29",
    }
    # An enumeration the name lists is not repeated; one given apart is.
    assert "enumeration" in point_dict(point_map.at("AO4"))  # type: ignore[arg-type]
    written = to_dict(point_map)
    assert written["functions"][0]["curves"] == [{"setting": "AO217", "types": [2]}]
    assert "curve_block" not in written and "demo" not in written


def test_what_is_written_reads_back_the_same() -> None:
    demo = demo_map()
    again = loads(dumps(demo))
    assert again.points == demo.points
    assert again.functions == demo.functions
    assert again.curve_block == demo.curve_block == CurveBlock(244, 328, 107, 100, 4)
    assert again.demo and again.title == demo.title


def test_files(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "map.json"
    save_map(loads(DOCUMENT), path)
    assert load_map(path).at("AI547") == loads(DOCUMENT).at("AI547")
    with pytest.raises(MapError, match=r"missing\.json: cannot read it"):
        load_map(tmp_path / "missing.json")
    blocked = tmp_path / "file"
    blocked.write_text("x")
    with pytest.raises(MapError, match=r"cannot write it"):
        save_map(loads(DOCUMENT), blocked / "map.json")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_octets_are_a_map_or_a_map_error(data: bytes) -> None:
    try:
        point_map = loads(data)
    except MapError:
        return
    assert isinstance(point_map, PointMap)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 8),
    st.sampled_from(
        [
            "kind",
            "index",
            "name",
            "minimum",
            "multiplier",
            "states",
            "associated",
            "enable",
            "enumeration",
            "event_class",
            "value",
            "unit",
        ]
    ),
    json_values,
)
def test_any_value_in_any_field_is_taken_or_refused(point: int, field: str, value: Any) -> None:
    data = document()
    data["points"][point][field] = value
    try:
        raw = orjson.dumps(data)
    except (TypeError, orjson.JSONEncodeError):
        return  # not JSON at all (NaN, huge integers)
    try:
        point_map = loads(raw)
    except MapError:
        return
    assert len(point_map) == len(data["points"])


def test_addresses_in_the_written_form() -> None:
    assert str(Address(Kind.BO, 29)) == to_dict(loads(DOCUMENT))["functions"][0]["enable"]
