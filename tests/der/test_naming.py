"""Naming points as the spec's "DER naming" says: by address or by name (whole or first
sentence, ignoring case); reads look among inputs first, writes among outputs only; a name that
still means two points is refused with both addresses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.der.points import Point
from gridwire.errors import RequestError
from tests.der.maps import small_map

MAP = small_map()


def name(text: str, *, write: bool = False) -> str:
    return str(MAP.resolve(text, write=write))


def test_by_address_in_any_case() -> None:
    assert name("AO0") == "AO0"
    assert name("ai537") == "AI537"
    assert name(" bo 6 ", write=True) == "BO6"


def test_by_whole_name_ignoring_case_and_spacing() -> None:
    assert name("system METER   active power") == "AI537"


def test_by_first_sentence() -> None:
    assert name("state of charge") == "AI47"


def test_by_label_of_an_enumeration() -> None:
    assert name("Power factor sign convention") == "AI41"
    assert name("power factor sign convention", write=True) == "AO4"


def test_a_read_looks_among_the_inputs_first() -> None:
    # BO6 and BI25 share their name: a read means the input, a write the output.
    assert name("Islanded mode") == "BI25"
    assert name("Islanded mode", write=True) == "BO6"
    assert name("reference voltage") == "AI29"
    assert name("reference voltage", write=True) == "AO0"


def test_a_read_falls_back_to_the_outputs() -> None:
    small = small_map()
    assert str(small.resolve("Volt-var enable")) == "BO29"


def test_counters_are_inputs() -> None:
    assert name("energy delivered") == "CTR0"


def test_a_whole_name_beats_a_first_sentence() -> None:
    # AI104 is named "Exact name"; AI105's first sentence is "Exact name".
    assert name("exact name") == "AI104"


def test_a_name_meaning_two_points_is_refused_with_both_addresses() -> None:
    with pytest.raises(RequestError, match=r"'Twin' names more than one point: AI100, AI101"):
        MAP.resolve("Twin")
    with pytest.raises(RequestError, match=r"more than one point: AI102, AI103"):
        MAP.resolve("twin sentence")


def test_a_write_names_outputs_only() -> None:
    with pytest.raises(RequestError, match=r"'Only an input' names an input \(BI200\)"):
        MAP.resolve("Only an input", write=True)
    with pytest.raises(RequestError, match=r"AI537 is an input; a write names outputs only"):
        MAP.resolve("AI537", write=True)


def test_unknown_names_and_addresses() -> None:
    with pytest.raises(RequestError, match=r"no point of the profile is named 'Nothing'"):
        MAP.resolve("Nothing")
    with pytest.raises(RequestError, match=r"AO999 is not a point of the profile"):
        MAP.resolve("AO999")
    with pytest.raises(RequestError, match=r"the name is empty"):
        MAP.resolve("   ")


def test_resolve_all_keeps_order() -> None:
    assert [str(p) for p in MAP.resolve_all(["AI537", "islanded mode"])] == ["AI537", "BI25"]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.booleans())
def test_any_text_names_a_point_or_is_refused(text: str, write: bool) -> None:
    try:
        point = MAP.resolve(text, write=write)
    except RequestError:
        return
    assert isinstance(point, Point)
    assert point.kind.is_output or not write


def test_a_name_resolved_again_means_the_same_and_refusals_stay_refusals() -> None:
    # Resolved names are kept (a message is resolved twice: checked, then carried out), by
    # the name as given and whether it is a write.
    fresh = small_map()
    for _ in range(2):
        assert str(fresh.resolve("Reference voltage", write=True)) == "AO0"
        assert str(fresh.resolve("Reference voltage")) == "AI29"
        with pytest.raises(RequestError, match="a write names outputs only"):
            fresh.resolve("AI537", write=True)
        assert str(fresh.resolve("AI537")) == "AI537"
