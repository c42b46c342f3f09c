"""Reading point names: enumerations in the two ways tables write them, labels, first
sentences, and the form names are compared in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.der.text import EnumValue, first_sentence, normalize, split_name


def pairs(name: str) -> list[tuple[int, str]] | None:
    enumeration = split_name(name).enumeration
    return None if enumeration is None else [(e.value, e.name) for e in enumeration]


def test_markers_one_per_value_as_the_der_profiles_write_them() -> None:
    # AN2018 writes an enumeration as "<value> name" markers, a "+" meaning "and above".
    name = "Curve mode type. Enumeration: <0> Curve disabled <1> Not applicable <234+> Other"
    assert pairs(name) == [(0, "Curve disabled"), (1, "Not applicable"), (234, "Other")]
    assert split_name(name).label == "Curve mode type"


def test_markers_across_lines_keep_names_with_parentheses() -> None:
    name = "Reactive reference\n<0> Not applicable\n<1> Percent of WMax (WMax)\n<2> Other."
    assert pairs(name) == [(0, "Not applicable"), (1, "Percent of WMax (WMax)"), (2, "Other")]
    assert split_name(name).label == "Reactive reference"


def test_bracketed_list_of_pairs() -> None:
    name = "Connection state <0=Open, 1=Closed; 2=Moving>"
    assert pairs(name) == [(0, "Open"), (1, "Closed"), (2, "Moving")]
    assert split_name(name).label == "Connection state"


def test_bracketed_list_in_the_middle_leaves_the_rest_of_the_name() -> None:
    assert split_name("Mode <0=Off, 1=On> of the pump").label == "Mode of the pump"


def test_enumeration_inside_parentheses() -> None:
    # The closing parenthesis belongs to the name, not to the last value.
    assert pairs("Pump mode (<0> Off, <1> On)") == [(0, "Off"), (1, "On")]
    assert split_name("Pump mode (<0> Off, <1> On)").label == "Pump mode"


def test_a_default_value_in_a_sentence_is_not_an_enumeration() -> None:
    name = "Reference for setpoints. Selects which is active. Default is <3>."
    assert split_name(name).enumeration is None
    assert split_name(name).label == name


def test_a_default_before_the_values_stays_in_the_label() -> None:
    name = "Reference. Default is <3>. <0> None <1> WMax"
    assert pairs(name) == [(0, "None"), (1, "WMax")]
    assert split_name(name).label == "Reference. Default is <3>"


def test_one_value_is_no_enumeration_and_repeats_keep_the_first() -> None:
    assert split_name("Level <1> Only one").enumeration is None
    assert pairs("Level <1> One <1> Again <2> Two") == [(1, "One"), (2, "Two")]


def test_negative_values() -> None:
    assert pairs("Direction <-1> Reverse <0> Stopped <1> Forward") == [
        (-1, "Reverse"),
        (0, "Stopped"),
        (1, "Forward"),
    ]


def test_first_sentence() -> None:
    assert first_sentence("State of charge is high. Reserve reached.") == "State of charge is high"
    assert first_sentence("Frequency 60.000 Hz nominal") == "Frequency 60.000 Hz nominal"
    assert first_sentence("Ends with a stop.") == "Ends with a stop"


def test_normalize_ignores_case_spacing_dashes_and_a_final_stop() -> None:
    assert (
        normalize("System  Meter Active Power \u2013 High.") == "system meter active power - high"
    )


def test_enum_value_is_a_plain_record() -> None:
    assert EnumValue(1, "On") == EnumValue(1, "On")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("<>=+-,;. 0123456789abAB\n"), max_size=80) | st.text())
def test_any_name_splits_without_raising(name: str) -> None:
    split = split_name(name)
    assert isinstance(split.label, str)
    if split.enumeration is not None:
        assert len(split.enumeration) >= 2
        assert len({e.value for e in split.enumeration}) == len(split.enumeration)
