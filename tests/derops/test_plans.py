"""Checking what a der.write or der.write_curve asks for before anything is sent
(gridwire.derops.values, write.plan_write, write_curve.plan_curve), on the demo map: every
refusal names the point and, for a range, gives it in engineering units."""

from __future__ import annotations

import pytest

from gridwire.der.demo import demo_map
from gridwire.der.points import Kind, Point
from gridwire.derops.functions import setting_info
from gridwire.derops.values import analog_plan, whole
from gridwire.derops.write import plan_write
from gridwire.derops.write_curve import plan_curve
from gridwire.errors import RequestError
from gridwire.master.controls import Control

MAP = demo_map()


def test_an_analog_value_is_scaled_to_the_nearest_whole_number() -> None:
    [limit] = plan_write(MAP, {"AO88": 50.04})  # x 0.1: 500.4 -> 500
    assert limit.control == Control("ao", 88, 500, 1)
    assert (limit.sent, limit.sent_value) == (500, 50.0)
    [frequency] = plan_write(MAP, {"nominal grid frequency": 59.95})  # x 0.001, an output
    assert frequency.control == Control("ao", 2, 59950, 1) and frequency.point.kind is Kind.AO


def test_variations_3_and_4_carry_the_engineering_value() -> None:
    [limit] = plan_write(MAP, {"AO88": 50.04}, variation=3)
    assert limit.control == Control("ao", 88, 50.04, 3)
    assert (limit.sent, limit.sent_value) == (None, 50.04)
    [double] = plan_write(MAP, {"AO88": 12}, variation=4)
    assert double.control == Control("ao", 88, 12.0, 4)


def test_out_of_range_is_refused_in_engineering_units() -> None:
    with pytest.raises(RequestError) as caught:
        plan_write(MAP, {"AO0": 240.0, "AO88": 100.1})
    message = str(caught.value)
    assert message.startswith("AO88 (Active Power Limit generating limit):")
    assert "100.1 % is outside the tables' range 0 % to 100 %" in message
    with pytest.raises(RequestError, match=r"-100 % to 100 %"):
        plan_write(MAP, {"AO93": -100.5})
    with pytest.raises(RequestError, match="outside the tables' range"):
        plan_write(MAP, {"AO88": 101}, variation=3)


def test_beyond_the_variations_range() -> None:
    unbounded = Point(Kind.AO, 1, "Open setting")
    with pytest.raises(RequestError, match=r"does not fit g41v1 \(32-bit\)"):
        analog_plan(unbounded, 2.0**31, None)
    with pytest.raises(RequestError, match=r"does not fit g41v2 \(16-bit\)"):
        analog_plan(unbounded, 40000, 2)
    with pytest.raises(RequestError, match="does not fit g41v3"):
        analog_plan(unbounded, 1e39, 3)
    assert analog_plan(unbounded, 1e39, 4).control.value == 1e39


def test_a_value_too_large_to_scale_is_refused_clearly() -> None:
    # 1.7e308 / 0.1 overflows to infinity: a request error naming the point, not an
    # OverflowError (it used to be "der.write failed: OverflowError").
    with pytest.raises(RequestError, match=r"^AO0 \(Reference voltage\): 1.7e\+308 V is outside"):
        plan_write(MAP, {"AO0": 1.7e308})
    unbounded = Point(Kind.AO, 1, "Open setting", multiplier=0.1)
    with pytest.raises(RequestError, match=r"1.7e\+308 does not fit g41v1 \(32-bit\)"):
        analog_plan(unbounded, 1.7e308, None)
    assert analog_plan(unbounded, 1.7e308, 4).control.value == 1.7e308  # a double carries it


def test_ranges_are_given_rounded_and_points_by_their_label() -> None:
    # AO1's raw range is the 32-bit one at 0.1 V: 214748364.7 V, not 214748364.70000002 V.
    with pytest.raises(RequestError, match=r"range -214748364.8 V to 214748364.7 V; nothing"):
        plan_write(MAP, {"AO1": -3e8})
    offset = setting_info(MAP, MAP.get(Kind.AO, 1))  # as der.functions lists it
    assert (offset.minimum, offset.maximum) == (-214748364.8, 214748364.7)
    # AO245's name lists its codes; the refusal names it by its label alone.
    with pytest.raises(RequestError) as caught:
        plan_curve(MAP, 1, 21, 129, 2, [])
    assert str(caught.value).startswith("type (AO245 (Curve type)): 21 is outside")


@pytest.mark.parametrize(
    ("value", "state"),
    [(True, True), (False, False), (1, True), (0, False), ("closed", True), ("OPEN", False)],
)
def test_a_binary_output_takes_a_state(value: object, state: bool) -> None:
    [switch] = plan_write(MAP, {"BO5": value})  # type: ignore[dict-item]
    assert switch.control == Control("bo", 5, state) and switch.sent_value is state


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ({"BO5": "ajar"}, r"BO5 \(Connect/disconnect switch\): 'ajar' is not true, false, 0, 1"),
        ({"BO5": 2}, "is not true, false"),
        ({"AO88": "lots"}, r"AO88 .*'lots' is not a number"),
        ({"AO88": True}, "True is not a number"),
        ({"AO88": float("nan")}, "is not a finite number"),
        ({"AI537": 1}, r"AI537 is an input; a write names outputs only"),
        ({"System meter active power": 1}, r"names an input \(AI537\)"),
        ({"no such point": 1}, "no point of the profile is named 'no such point'"),
        ({"AO88": 1, "ao 88": 2}, "'AO88' and 'ao 88' both name AO88"),
        ({}, "at least one point"),
    ],
)
def test_refusals_name_the_point(points: dict[str, object], message: str) -> None:
    with pytest.raises(RequestError, match=message):
        plan_write(MAP, points)  # type: ignore[arg-type]


def test_an_enumerated_output_takes_a_value_by_name() -> None:
    [kind] = plan_write(MAP, {"AO245": "volt-watt"})
    assert kind.control == Control("ao", 245, 5, 1)
    with pytest.raises(RequestError, match="is not one of its values"):
        plan_write(MAP, {"AO245": "sideways"})


def test_whole_numbers() -> None:
    assert whole(900.0, "x") == 900 and whole(-3, "x") == -3
    for bad in (900.5, float("inf"), True, "9"):
        with pytest.raises(RequestError, match="x: "):
            whole(bad, "x")


def test_a_curve_is_checked_whole_before_anything_is_sent() -> None:
    plan = plan_curve(MAP, 4.0, 2, 129, 2, [[90, 40], [110.0, -40]])
    assert plan.selector == [Control("ao", 244, 4, 1)]
    assert plan.fields == [
        Control("ao", 245, 2, 1),
        Control("ao", 246, 2, 1),
        Control("ao", 247, 129, 1),
        Control("ao", 248, 2, 1),
    ]
    assert [c.index for c in plan.points] == [249, 250, 251, 252]
    assert plan.heads == (4, 2, 2, 129, 2) and plan.pairs == [[90, 40], [110, -40]]
    with pytest.raises(RequestError, match=r"points\[1\] x \(AO251 .*\): 900.5 is not a whole"):
        plan_curve(MAP, 4, 2, 129, 2, [[90, 40], [900.5, 0]])
    with pytest.raises(
        RequestError, match=r"number \(AO244 .*\): 0 is outside .*range 1 to 2147483647"
    ):
        plan_curve(MAP, 0, 2, 129, 2, [])
    with pytest.raises(RequestError, match=r"type \(AO245 .*\): 21 is outside .*0 to 20"):
        plan_curve(MAP, 1, 21, 129, 2, [])
    with pytest.raises(RequestError, match="at most 100 points; 101 were given"):
        plan_curve(MAP, 1, 2, 129, 2, [[n, n] for n in range(101)])
