"""Points: addresses, scaling between transmitted and engineering values, ranges, states."""

from __future__ import annotations

import pytest

from gridwire.der.points import Address, Kind, Point, with_name_values
from gridwire.der.text import EnumValue


def test_address_parses_any_case_and_spacing() -> None:
    assert Address.parse("AO12") == Address(Kind.AO, 12)
    assert Address.parse(" bi 107 ") == Address(Kind.BI, 107)
    assert Address.parse("ctr3") == Address(Kind.CTR, 3)
    assert str(Address(Kind.AI, 537)) == "AI537"


@pytest.mark.parametrize("text", ["AO", "12", "AX12", "AO-1", "AO12.5", "AO 99999999999", ""])
def test_address_refuses_what_is_not_one(text: str) -> None:
    assert Address.parse(text) is None


def test_kind_facts() -> None:
    assert [k.value for k in sorted(Kind, key=lambda k: k.order)] == ["BI", "BO", "CTR", "AI", "AO"]
    assert Kind.BO.mirror is Kind.BI and Kind.AI.mirror is Kind.AO and Kind.CTR.mirror is None
    assert Kind.CTR.is_input and not Kind.CTR.is_output
    assert Kind.CTR.type_name == "counter"


def voltage() -> Point:
    # Like the system meter's phase A voltage: tenths of a volt, 0 up.
    return Point(
        Kind.AI, 547, "Phase A voltage", minimum=0, maximum=2**31 - 1, multiplier=0.1, units="V"
    )


def test_engineering_is_raw_times_multiplier_plus_offset() -> None:
    assert voltage().to_engineering(2400) == 240.0  # 2400 x 0.1, without the float noise
    temperature = Point(Kind.AI, 1, "t", multiplier=0.1, offset=-40.0)
    assert temperature.to_engineering(650) == 25.0  # 650 x 0.1 - 40


def test_raw_is_the_nearest_whole_number() -> None:
    assert voltage().to_raw(239.96) == 2400  # 2399.6 rounds up
    assert voltage().to_raw(239.94) == 2399
    temperature = Point(Kind.AI, 1, "t", multiplier=0.1, offset=-40.0)
    assert temperature.to_raw(25.0) == 650


def test_range_is_checked_on_transmitted_values() -> None:
    limit = Point(Kind.AO, 88, "limit", minimum=0, maximum=1000, multiplier=0.1)
    assert limit.in_range(0) and limit.in_range(1000)
    assert not limit.in_range(1001) and not limit.in_range(-1)
    assert limit.engineering_range == (0.0, 100.0)


def test_a_negative_multiplier_keeps_the_range_lowest_first() -> None:
    flipped = Point(Kind.AI, 1, "x", minimum=0, maximum=10, multiplier=-2.0)
    assert flipped.engineering_range == (-20.0, 0.0)


def test_states_by_value_and_by_name() -> None:
    switch = Point(Kind.BO, 5, "Switch", states=("Open", "Closed"))
    assert switch.state_name(True) == "Closed"
    assert switch.state_value("open") is False
    assert switch.state_value("ajar") is None
    assert Point(Kind.BO, 6, "No states").state_value("On") is None


def test_enumeration_name() -> None:
    mode = Point(Kind.AO, 4, "m", enumeration=(EnumValue(1, "IEC"), EnumValue(2, "IEEE")))
    assert mode.enumeration_name(2) == "IEEE"
    assert mode.enumeration_name(3) is None


def test_values_listed_in_a_name() -> None:
    analog = with_name_values(Point(Kind.AO, 4, "Sign convention <1> IEC <2> IEEE"))
    assert analog.enumeration == (EnumValue(1, "IEC"), EnumValue(2, "IEEE"))
    assert analog.label == "Sign convention"
    binary = with_name_values(Point(Kind.BI, 4, "Mode <0> Off <1> On"))
    assert binary.states == ("Off", "On") and binary.enumeration is None
    given = with_name_values(Point(Kind.BI, 4, "Mode <0> Off <1> On", states=("A", "B")))
    assert given.states == ("A", "B")
