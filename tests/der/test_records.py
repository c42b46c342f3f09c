"""The `profile` records (the spec's "Point of a profile", one list per kind) and the DER
functions listing, as the master serializes them."""

from __future__ import annotations

import orjson

from gridwire.der.demo import demo_map
from gridwire.der.records import profile_of
from tests.der.maps import small_map


def test_profile_lists_each_kind_apart_with_the_spec_fields() -> None:
    profile = profile_of(small_map())
    assert [p.index for p in profile.bi] == [25, 48, 81, 200]
    assert [p.index for p in profile.counter] == [0, 1]
    assert [p.index for p in profile.frozen] == [0]  # CTR1 has no frozen counterpart
    data = orjson.loads(orjson.dumps(profile))
    assert list(data) == ["title", "demo", "bi", "bo", "counter", "frozen", "ai", "ao"]
    # AO4 lists its values in its name: the label drops them, the enumeration holds them.
    assert data["ao"][1] == {
        "index": 4,
        "name": "Power factor sign convention <1> IEC <2> IEEE",
        "label": "Power factor sign convention",
        "enumeration": [{"value": 1, "name": "IEC"}, {"value": 2, "name": "IEEE"}],
        "mandatory": False,
        "section": "",
        "units": None,
        "multiplier": 1.0,
        "offset": 0.0,
    }
    # AI29 is sent in tenths of a volt: the record says so, for a page to show 2783 as 278.3 V.
    reference = next(p for p in data["ai"] if p["index"] == 29)
    assert (reference["units"], reference["multiplier"], reference["offset"]) == ("V", 0.1, 0.0)


def test_a_binary_point_gives_its_two_states_as_its_enumeration() -> None:
    islanded = profile_of(small_map()).bi[0]
    assert islanded.index == 25 and islanded.label == "Islanded mode"
    assert [(e.value, e.name) for e in islanded.enumeration or []] == [
        (0, "Isochronous"),
        (1, "Droop"),
    ]
    assert profile_of(small_map()).bi[3].enumeration is None  # BI200 names no states


def test_demo_profile_sections_and_mandatory() -> None:
    profile = profile_of(demo_map())
    assert profile.demo
    meter = next(p for p in profile.ai if p.index == 537)
    assert (meter.section, meter.mandatory) == ("System meter", True)
    assert len(profile.ao) == len(demo_map().by_kind("AO"))
