"""The DER reading of a point (gridwire.derops.readings), from objects built by hand: engineering
units rounded to the multiplier's decimals, floating-point variations unscaled, the quality
rules, and a static object winning over an event."""

from __future__ import annotations

from gridwire.der.points import Kind, Point
from gridwire.der.text import EnumValue
from gridwire.derops.readings import decimals, engineering, latest, quality_of, reading, readings
from gridwire.dnp3.objects.records import DnpObject

VOLTAGE = Point(Kind.AI, 29, "Voltage. Line to neutral", multiplier=0.1, units="V")
MODE = Point(Kind.AI, 5, "Mode", enumeration=(EnumValue(0, "Off"), EnumValue(1, "On")), units="n/a")
SWITCH = Point(Kind.BI, 23, "Switch closed", states=("Open", "Closed"))


def obj(
    point_type: str,
    index: int,
    value: object,
    flags: list[str] | None = None,
    *,
    event: bool = False,
    variation: int = 1,
    time_ms: int | None = None,
) -> DnpObject:
    return DnpObject(
        point_type,
        30,
        variation,
        index,
        None,
        value,  # type: ignore[arg-type]
        ["ONLINE"] if flags is None else flags,
        time_ms,
        None,
        event,
    )


def test_engineering_units_are_rounded_to_the_multipliers_decimals() -> None:
    assert engineering(VOLTAGE, 4224) == 422.4  # 4224 x 0.1 is 422.40000000000003 in floats
    assert decimals(0.1) == 1 and decimals(0.25) == 2 and decimals(10) == 0 and decimals(1) == 0
    assert decimals(0.001) == 3 and decimals(1e-5) == 5
    offset = Point(Kind.AI, 1, "Temperature", multiplier=0.01, offset=-40.5)
    assert engineering(offset, 1234) == -28.16
    whole = Point(Kind.AI, 2, "Energy", multiplier=10)
    assert engineering(whole, 42) == 420 and isinstance(engineering(whole, 42), int)


def test_a_floating_point_variation_is_not_scaled() -> None:
    # g30v5 carries engineering units: 422.4 stays 422.4 (not 42.24).
    found = reading(VOLTAGE, obj("ai", 29, 422.4, variation=5))
    assert (found.value, found.raw) == (422.4, 422.4)


def test_a_reading_names_the_point_and_gives_its_state() -> None:
    found = reading(SWITCH, obj("bi", 23, True, time_ms=1700000000123))
    assert (found.address, found.type, found.index, found.label) == (
        "BI23",
        "bi",
        23,
        "Switch closed",
    )
    assert (found.value, found.raw, found.state, found.quality) == (True, True, "Closed", "good")
    assert found.time_ms == 1700000000123
    enumerated = reading(MODE, obj("ai", 5, 1))
    assert (enumerated.state, enumerated.units) == ("On", None)  # "n/a" is no units


def test_quality() -> None:
    assert quality_of(["ONLINE"]) == "good"
    assert quality_of([]) == "offline"
    assert quality_of(["ONLINE", "RESTART"]) == "restart"
    assert quality_of(["ONLINE", "COMM_LOST", "RESTART"]) == "comm_lost"
    assert quality_of(None) == "no_flags"
    assert reading(VOLTAGE, obj("ai", 29, 2400, flags=None)).quality == "good"
    assert reading(VOLTAGE, obj("ai", 29, 2400, flags=[])).quality == "offline"


def test_not_reported() -> None:
    found = reading(VOLTAGE, None)
    assert found.quality == "not_reported"
    assert (found.value, found.raw, found.state, found.flags, found.time_ms) == (None,) * 5
    assert found.units == "V" and found.name == VOLTAGE.name


def test_a_static_object_wins_over_an_event() -> None:
    static = obj("ai", 29, 2400)
    event = obj("ai", 29, 2410, event=True)
    assert latest([static, event])[("ai", 29)] is static
    assert latest([event, static])[("ai", 29)] is static
    later = obj("ai", 29, 2420, event=True)
    assert latest([event, later])[("ai", 29)] is later
    # Objects that are not a point's value (a command echo, say) are left out.
    command = DnpObject("ao", 41, 1, 7, None, None, None, None, None, False)  # type: ignore[arg-type]
    assert latest([command]) == {}
    [found] = readings([VOLTAGE], [event, static])
    assert found.value == 240.0
